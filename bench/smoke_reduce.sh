#!/usr/bin/env bash
# Smoke test of tessera-bench's reduce suite: `reduce --json --quick` runs
# (on the cpu device in this process, then on opencl:0 of a private
# daemon), prints rows of the documented shape, every reduction has a value
# beside its stream_read baseline on the cpu and, where the daemon found an
# OpenCL device, on opencl:0, and PyTorch's rows are there when the run
# found torch. No timing is checked.
# Usage: smoke_reduce.sh PATH-TO-tessera-bench
set -u
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_reduce.sh PATH-TO-tessera-bench" "$@"
names=(sum_f32 amax_f32 sum_inner sum_outer argmax_f32 softmax_f32)

smoke_listed reduce sum_inner
smoke_run reduce

# One object per measurement, every key with its type; every row on the
# cpu or on opencl:0, in GB/s, its value and baseline measured side by
# side, with a target but softmax_f32's against the read.
smoke_shape '
  type == "array" and length > 0 and all(.[];
    smoke_keys and .suite == "reduce" and (.name | type == "string")
    and (.device | IN("cpu", "opencl:0")) and .threads == 1
    and (.value | type == "number" and . > 0)
    and .p99 == null and .baseline_p99 == null
    and .unit == "GB/s"
    and (.baseline | IN("stream_read", "torch"))
    and (.baseline_value | type == "number" and . > 0)
    and .paired == true and (.ratio | type == "number" and . > 0)
    and (if .name == "softmax_f32" and .baseline == "stream_read"
           then .target == null and .meets_target == null
         else (.target | type == "number") and (.meets_target | type == "boolean") end))'
for name in "${names[@]}"; do
    row "$name" stream_read || fail "no row $name/stream_read"
    if ! grep -q "no opencl:0" "$tmp/err"; then
        row "$name" stream_read opencl:0 || fail "no row $name/stream_read on opencl:0"
    fi
done
if ! grep -q "no opencl:0" "$tmp/err"; then
    jq -e 'any(.[]; .name == "sum_f32" and .device == "opencl:0" and .target == 0.85)' \
        "$tmp/out.json" >/dev/null || fail "sum_f32/stream_read on opencl:0 has not its target"
fi
jq -e 'any(.[]; .name == "sum_f32" and .baseline == "stream_read" and .target == 0.85)' \
    "$tmp/out.json" >/dev/null || fail "sum_f32/stream_read has not its target 0.85"
if grep -q "no PyTorch comparison" "$tmp/err"; then
    jq -e 'all(.[]; .baseline == "stream_read")' "$tmp/out.json" >/dev/null ||
        fail "torch rows without torch"
else
    for name in "${names[@]}"; do
        row "$name" torch || fail "no row $name/torch"
        if ! grep -q "no opencl:0" "$tmp/err"; then
            row "$name" torch opencl:0 || fail "no row $name/torch on opencl:0"
        fi
    done
fi
smoke_end
