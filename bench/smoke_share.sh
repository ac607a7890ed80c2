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
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_share.sh PATH-TO-tessera-bench [python]" "$@"
python=${2:-}

smoke_listed share export_import_1gib
smoke_run share
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
        cat "$tmp/out.json"
    }
else
    jq -e 'length == 1' "$tmp/out.json" >/dev/null || fail "Python rows without the package"
    grep -q "^tessera-bench: share: no Python rows: " "$tmp/err" ||
        fail "no note on the Python rows left out"
fi
smoke_no_leftovers
smoke_end
