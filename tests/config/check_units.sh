#!/usr/bin/env bash
# Installs a built tree into a staging prefix and checks what it installs
# for systemd:
#   - tesserad.socket and tesserad.service pass `systemd-analyze verify`
#     with no complaint (ExecStart= names the staged tesserad, which exists,
#     and the pages Documentation= names are installed);
#   - `systemd-analyze security --offline=true` rates tesserad.service's
#     exposure below 3.0, tessera-metrics@.service's below 2.0 (the numbers
#     are printed either way); the metrics units pass verify too;
#   - sysusers.d/tessera.conf creates the user and group in a scratch root;
#   - the sample configuration and its reference are installed.
#   check_units.sh BUILD_DIR WORK_DIR
# Exit 77 (skipped) when systemd-analyze is missing. CMAKE names cmake.
set -euo pipefail

build_dir=$(cd "${1:?usage: check_units.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: check_units.sh BUILD_DIR WORK_DIR}
cmake=${CMAKE:-cmake}
max_exposure=3.0
max_metrics_exposure=2.0 # it needs less than the daemon

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
for f in "$units/tesserad.service" "$units/tesserad.socket" "$units/tessera-metrics.socket" \
    "$units/tessera-metrics@.service" "$prefix/lib/sysusers.d/tessera.conf" \
    "$prefix/share/doc/tessera/tesserad.conf" "$prefix/share/doc/tessera/configuration.md"; do
    [[ -f $f ]] || fail "missing from the installation: ${f#"$prefix"/}"
done
grep -qx "ExecStart=$prefix/sbin/tesserad --foreground" "$units/tesserad.service" ||
    fail "ExecStart= of the installed tesserad.service does not name $prefix/sbin/tesserad"
grep -qx "ExecStart=$prefix/bin/tessera metrics --http" "$units/tessera-metrics@.service" ||
    fail "ExecStart= of the installed tessera-metrics@.service does not name $prefix/bin/tessera"

echo "-- systemd-analyze verify tesserad.socket tesserad.service tessera-metrics.socket tessera-metrics@.service"
# Documentation= names manual pages: verify looks them up where they were
# installed.
# A template is verified through an instance of it, as the socket makes.
cp "$units/tessera-metrics@.service" "$work/tessera-metrics@0.service"
if ! complaints=$(MANPATH=$prefix/share/man systemd-analyze verify "$units/tesserad.socket" \
    "$units/tesserad.service" "$units/tessera-metrics.socket" "$work/tessera-metrics@0.service" 2>&1); then
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

# systemd-analyze security's overall exposure of a unit file, which must
# stay below a bound.
check_exposure()
{
    local file=$1 name=$2 max=$3 report exposure
    echo "-- systemd-analyze security --offline=true $name"
    report=$(systemd-analyze security --offline=true "$file" 2>&1) ||
        { echo "$report" >&2; fail "systemd-analyze security failed on $name"; }
    exposure=$(sed -n "s/.*Overall exposure level for $(basename "$file"): \([0-9.]*\).*/\1/p" <<<"$report")
    [[ -n $exposure ]] || { echo "$report" >&2; fail "no exposure level in the security report of $name"; }
    echo "$name exposure: $exposure (must be below $max)"
    if awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e >= m) }'; then
        grep '✗' <<<"$report" >&2 || true
        fail "$name: exposure $exposure is $max or more"
    fi
}
check_exposure "$units/tesserad.service" tesserad.service "$max_exposure"
check_exposure "$work/tessera-metrics@0.service" tessera-metrics@.service "$max_metrics_exposure"
# The daemon as the service runs it: $HOME unwritable (ProtectHome=,
# ProtectSystem=strict), the unit's Environment= lines, the cache directory
# standing in for /var/cache/tessera. It must find the OpenCL devices it
# finds when run plainly.
echo "-- tesserad with the service's environment"
opencl_devices()
{
    local log=$work/discover.log
    rm -f "$work/discover.sock"
    "$@" "$prefix/sbin/tesserad" --foreground --config /dev/null --socket "$work/discover.sock" \
        2>"$log" &
    local pid=$!
    for _ in $(seq 1 600); do
        grep -q 'listening on' "$log" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -c '^<6>opencl:[0-9]*: ' "$log" || true
}
plain=$(opencl_devices env)
mkdir -p "$work/cache"
service_env=(env -u XDG_CACHE_HOME -u TESSERA_KERNEL_CACHE HOME=/proc CACHE_DIRECTORY="$work/cache")
while IFS= read -r assignment; do
    service_env+=("${assignment//\/var\/cache\/tessera/$work/cache}")
done < <(sed -n 's/^Environment=//p' "$units/tesserad.service")
confined=$(opencl_devices "${service_env[@]}")
echo "OpenCL devices: $plain when run plainly, $confined with the service's environment"
((confined == plain)) || fail "with the service's environment tesserad finds $confined OpenCL devices, not $plain"
echo "units check passed"
