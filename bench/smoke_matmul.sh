#!/usr/bin/env bash
# Smoke test of tessera-bench's matmul suite: `matmul --json --quick` runs
# (the cpu's products in this process, opencl:0's in a daemon it starts),
# prints rows of the documented shape, every product has a value beside its
# OpenBLAS baseline (CLBlast's on opencl:0, where the daemon has one), and
# PyTorch's rows are there when the run found torch (mm_f16's converting
# to float32 where torch refuses float16). No timing is checked.
# Usage: smoke_matmul.sh PATH-TO-tessera-bench
set -u
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_matmul.sh PATH-TO-tessera-bench" "$@"
names=(mm_f32 bmm_f32 mm_f16 mm_f16_transposed)

smoke_listed matmul mm_f32
smoke_run matmul

# One object per measurement, every key with its type; every row on the
# cpu or opencl:0, in GFLOP/s, its value and baseline measured side by side.
smoke_shape '
  type == "array" and length > 0 and all(.[];
    smoke_keys and .suite == "matmul" and (.name | type == "string")
    and (.device | IN("cpu", "opencl:0")) and .threads == 1
    and (.value | type == "number" and . > 0)
    and .p99 == null and .baseline_p99 == null
    and .unit == "GFLOP/s"
    and (.baseline | IN("openblas", "clblast", "torch"))
    and ((.baseline == "clblast") == (.device == "opencl:0") or .baseline == "torch")
    and (.baseline_value | type == "number" and . > 0)
    and .paired == true and (.ratio | type == "number" and . > 0)
    and (.target | num_or_null)
    and (if .target == null then .meets_target == null
         else (.meets_target | type == "boolean") end))'
for name in "${names[@]}"; do
    row "$name" openblas || fail "no row $name/openblas"
done
if ! grep -q "no opencl:0" "$tmp/err"; then
    for name in mm_f32 bmm_f32 mm_f16; do
        row "$name" clblast opencl:0 || fail "no row $name/clblast on opencl:0"
    done
    jq -e 'any(.[]; .name == "mm_f32" and .baseline == "clblast" and .target == 0.9)' \
        "$tmp/out.json" >/dev/null || fail "mm_f32/clblast has not its target 0.9"
fi
jq -e 'any(.[]; .name == "mm_f32" and .baseline == "openblas" and .target == 0.9)' \
    "$tmp/out.json" >/dev/null || fail "mm_f32/openblas has not its target 0.9"
if grep -q "no PyTorch comparison" "$tmp/err"; then
    jq -e 'all(.[]; .baseline != "torch")' "$tmp/out.json" >/dev/null ||
        fail "torch rows without torch"
else
    for name in mm_f32 bmm_f32 mm_f16; do
        row "$name" torch || fail "no row $name/torch"
    done
    if grep -q "torch: case mm_f16: " "$tmp/err"; then
        grep -q "mm_f16: torch .* has no float16 mm on the cpu" "$tmp/err" ||
            fail "no note that mm_f16's torch side converts to float32"
    fi
fi
smoke_end
