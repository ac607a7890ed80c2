#!/usr/bin/env bash
# Smoke test of tessera-bench: `ipc --json --quick` runs (starting its own
# tesserad, $TESSERA_DAEMON) and prints rows of the documented shape; the
# command line refuses what it should. No timing is checked: a benchmark's
# numbers are printed, never asserted.
# Usage: smoke_ipc.sh PATH-TO-tessera-bench
set -u
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_ipc.sh PATH-TO-tessera-bench" "$@"

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
smoke_run ipc

# One object per measurement, every key with its type, ratios as documented.
smoke_shape '
  type == "array" and length > 0 and all(.[];
    smoke_keys and (.suite | type == "string") and (.name | type == "string")
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
smoke_no_leftovers
smoke_end
