#!/usr/bin/env bash
# Smoke test of tessera-bench's share suite: `share --json --quick` runs
# (starting its own tesserad, $TESSERA_DAEMON), its row is there with its
# baseline, and the daemon's resident memory did not grow by the tensor
# (the suite fails if it did); with `python` (a build with the Python
# package) its python_add and python_latency rows are there with their C
# baselines, without (a sanitizer build) they are left out with a note.
# No timing is checked.
# Usage: smoke_share.sh PATH-TO-tessera-bench [python]
set -u
B=${1:?usage: smoke_share.sh PATH-TO-tessera-bench [python]}
python=${2:-}
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
jq -e '.[0].suite == "share" and .[0].name == "export_import_1gib"
       and .[0].device == "opencl:0" and .[0].unit == "us" and .[0].value > 0
       and .[0].baseline == "bare_memfd_pass" and .[0].baseline_value > 0' \
    "$tmp/out.json" >/dev/null || {
    fail "the JSON's first row is not export_import_1gib"
    cat "$tmp/out.json"
}
if [[ $python == python ]]; then
    jq -e 'length == 3 and ([.[] | .suite] | unique) == ["share"]
           and .[1].name == "python_add" and .[1].device == "opencl:0"
           and .[1].unit == "GB/s" and .[1].value > 0 and .[1].baseline == "c_add"
           and .[1].baseline_value > 0 and .[1].target == 0.9
           and .[2].name == "python_latency" and .[2].unit == "us" and .[2].value > 0
           and .[2].p99 >= .[2].value and .[2].baseline == "c_small_op_latency"
           and .[2].baseline_value > 0 and .[2].target == 0.5' \
        "$tmp/out.json" >/dev/null || {
        fail "the JSON lacks the Python rows"
        cat "$tmp/out.json" "$tmp/err"
    }
else
    jq -e 'length == 1' "$tmp/out.json" >/dev/null || fail "Python rows without the package"
    grep -q "^tessera-bench: share: no Python rows: " "$tmp/err" ||
        fail "no note on the Python rows left out"
fi
if compgen -G "$tmp/tessera-bench.*" >/dev/null; then
    fail "the private daemon's directory was left behind"
fi
exit $failed
