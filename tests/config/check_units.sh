#!/usr/bin/env bash
# Installs a built tree into a staging prefix and checks what it installs
# for systemd:
#   - tesserad.socket and tesserad.service pass `systemd-analyze verify`
#     with no complaint (ExecStart= names the staged tesserad, which exists);
#   - `systemd-analyze security --offline=true` rates tesserad.service's
#     exposure below 3.0 (the number is printed either way);
#   - sysusers.d/tessera.conf creates the user and group in a scratch root;
#   - the sample configuration and its reference are installed.
#   check_units.sh BUILD_DIR WORK_DIR
# Exit 77 (skipped) when systemd-analyze is missing. CMAKE names cmake.
set -euo pipefail

build_dir=$(cd "${1:?usage: check_units.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: check_units.sh BUILD_DIR WORK_DIR}
cmake=${CMAKE:-cmake}
max_exposure=3.0

fail()
{
    echo "units check: $*" >&2
    exit 1
}

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "skipped: systemd-analyze is not installed (Debian package systemd)"
    exit 77
fi

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" ||
    { cat "$work/install.log"; fail "cmake --install failed"; }

units=$prefix/lib/systemd/system
for f in "$units/tesserad.service" "$units/tesserad.socket" "$prefix/lib/sysusers.d/tessera.conf" \
    "$prefix/share/doc/tessera/tesserad.conf" "$prefix/share/doc/tessera/configuration.md"; do
    [[ -f $f ]] || fail "missing from the installation: ${f#"$prefix"/}"
done
grep -qx "ExecStart=$prefix/sbin/tesserad --foreground" "$units/tesserad.service" ||
    fail "ExecStart= of the installed tesserad.service does not name $prefix/sbin/tesserad"

echo "-- systemd-analyze verify tesserad.socket tesserad.service"
if ! complaints=$(systemd-analyze verify "$units/tesserad.socket" "$units/tesserad.service" 2>&1); then
    echo "$complaints" >&2
    fail "systemd-analyze verify failed"
fi
[[ -z $complaints ]] || { echo "$complaints" >&2; fail "systemd-analyze verify complained"; }

echo "-- systemd-sysusers tessera.conf (into a scratch root)"
if command -v systemd-sysusers >/dev/null 2>&1; then
    mkdir -p "$work/root/etc"
    systemd-sysusers --root="$work/root" "$prefix/lib/sysusers.d/tessera.conf" >"$work/sysusers.log" 2>&1 ||
        { cat "$work/sysusers.log"; fail "systemd-sysusers refused tessera.conf"; }
    grep -q '^tessera:' "$work/root/etc/passwd" || fail "sysusers made no user tessera"
    grep -q '^tessera:' "$work/root/etc/group" || fail "sysusers made no group tessera"
fi

echo "-- systemd-analyze security --offline=true tesserad.service"
report=$(systemd-analyze security --offline=true "$units/tesserad.service" 2>&1) ||
    { echo "$report" >&2; fail "systemd-analyze security failed"; }
exposure=$(sed -n 's/.*Overall exposure level for tesserad.service: \([0-9.]*\).*/\1/p' <<<"$report")
[[ -n $exposure ]] || { echo "$report" >&2; fail "no exposure level in the security report"; }
echo "tesserad.service exposure: $exposure (must be below $max_exposure)"
if awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e >= m) }'; then
    grep '✗' <<<"$report" >&2 || true
    fail "exposure $exposure is $max_exposure or more"
fi
echo "units check passed"
