#!/usr/bin/env bash
# Smoke test of tessera-bench's share suite: `share --json --quick` runs
# (starting its own tesserad, $TESSERA_DAEMON), its row is there with its
# baseline, and the daemon's resident memory did not grow by the tensor
# (the suite fails if it did). No timing is checked.
# Usage: smoke_share.sh PATH-TO-tessera-bench
set -u
B=${1:?usage: smoke_share.sh PATH-TO-tessera-bench}
failed=0
fail() {
    printf 'FAIL %s\n' "$*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$B" --list | grep -q '^share ' || fail "--list does not name share"
TMPDIR=$tmp "$B" share --json --quick >"$tmp/out.json" 2>"$tmp/err"
rc=$?
if [[ $rc != 0 ]]; then
    fail "tessera-bench share --json --quick: exit $rc"
    cat "$tmp/err"
fi
grep -q "^tessera-bench: share: tesserad's resident memory grew by" "$tmp/err" ||
    fail "no line on the daemon's resident memory"
jq -e 'length == 1 and .[0].suite == "share" and .[0].name == "export_import_1gib"
       and .[0].device == "opencl:0" and .[0].unit == "us" and .[0].value > 0
       and .[0].baseline == "bare_memfd_pass" and .[0].baseline_value > 0' \
    "$tmp/out.json" >/dev/null || {
    fail "the JSON is not the share suite's one row"
    cat "$tmp/out.json"
}
if compgen -G "$tmp/tessera-bench.*" >/dev/null; then
    fail "the private daemon's directory was left behind"
fi
exit $failed
