#!/usr/bin/env bash
# Smoke test of tessera-bench: `ipc --json --quick` runs (starting its own
# tesserad, $TESSERA_DAEMON) and prints rows of the documented shape; the
# command line refuses what it should. No timing is checked: a benchmark's
# numbers are printed, never asserted.
# Usage: smoke_ipc.sh PATH-TO-tessera-bench
set -u
B=${1:?usage: smoke_ipc.sh PATH-TO-tessera-bench}
failed=0
fail() {
    printf 'FAIL %s\n' "$*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The command line.
"$B" --help >"$tmp/help" || fail "--help exits nonzero"
for section in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT "EXIT STATUS"; do
    grep -q "^$section\$" "$tmp/help" || fail "--help has no $section section"
done
"$B" --list | grep -q '^ipc ' || fail "--list does not name ipc"
for bad in "nosuchsuite" "--nosuchoption" "--clients 0" "--clients x" "--socket"; do
    # shellcheck disable=SC2086 # split on purpose
    "$B" $bad >/dev/null 2>"$tmp/err"
    rc=$?
    [[ $rc == 2 ]] || fail "tessera-bench $bad: exit $rc, want 2"
    grep -q "^tessera-bench: " "$tmp/err" || fail "tessera-bench $bad: no error message"
done

# The run.
TMPDIR=$tmp "$B" ipc --json --quick >"$tmp/out.json" 2>"$tmp/err"
rc=$?
if [[ $rc != 0 ]]; then
    fail "tessera-bench ipc --json --quick: exit $rc"
    cat "$tmp/err"
fi
grep -q "^tessera-bench: ipc: " "$tmp/err" || fail "no progress lines on stderr"

# One object per measurement, every key with its type, ratios as documented.
shape='
  def num_or_null: type == "number" or type == "null";
  type == "array" and length > 0 and all(.[];
    (keys == (["baseline", "baseline_p99", "baseline_value", "device", "meets_target",
               "name", "p99", "paired", "ratio", "suite", "target", "threads", "unit",
               "value"] | sort))
    and (.suite | type == "string") and (.name | type == "string")
    and (.device | type == "string" or type == "null")
    and (.threads | type == "number" and . >= 1)
    and (.value | type == "number" and . > 0)
    and (.unit | IN("GB/s", "us", "ops/s"))
    and (.baseline | type == "string")
    and (.baseline_value | type == "number" and . > 0)
    and (.p99 | num_or_null) and (.baseline_p99 | num_or_null)
    and (.ratio | type == "number") and .paired == false
    and (. as $o | ($o.ratio - (if $o.unit == "us" then $o.baseline_value / $o.value
                                 else $o.value / $o.baseline_value end) | fabs)
                   < 1e-3 * $o.ratio + 1e-9)
    and (.target | num_or_null)
    and (if .target == null then .meets_target == null
         else (.meets_target | type == "boolean") end))'
jq -e "$shape" "$tmp/out.json" >/dev/null || {
    fail "the JSON does not have the documented shape"
    cat "$tmp/out.json"
}
# The rows the ipc suite promises (alloc_free only with an OpenCL device).
for row in ring_rtt/bare_seqpacket ring_rtt/limit ring_rtt/bare_spin_shm \
    socket_rtt/bare_seqpacket clients64/bare_epoll_seqpacket; do
    jq -e --arg n "${row%/*}" --arg b "${row#*/}" \
        'any(.[]; .suite == "ipc" and .name == $n and .baseline == $b)' \
        "$tmp/out.json" >/dev/null || fail "no row $row"
done
if ! grep -q "no OpenCL device" "$tmp/err"; then
    jq -e 'any(.[]; .name == "alloc_free" and .device == "opencl:0" and .baseline == "ring_rtt")' \
        "$tmp/out.json" >/dev/null || fail "no row alloc_free/ring_rtt"
fi
# Its private daemon's directory (made under $TMPDIR) is gone.
if compgen -G "$tmp/tessera-bench.*" >/dev/null; then
    fail "the private daemon's directory was left behind"
fi
exit $failed
