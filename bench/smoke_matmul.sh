#!/usr/bin/env bash
# Smoke test of tessera-bench's matmul suite: `matmul --json --quick` runs
# (no daemon: the products run on the cpu device in this process), prints
# rows of the documented shape, every product has a value beside its
# OpenBLAS baseline, and PyTorch's rows are there when the run found torch
# (mm_f16 beside torch's float32 mm where torch refuses float16). No timing
# is checked.
# Usage: smoke_matmul.sh PATH-TO-tessera-bench
set -u
B=${1:?usage: smoke_matmul.sh PATH-TO-tessera-bench}
names=(mm_f32 bmm_f32 mm_f16 mm_f16_transposed)
failed=0
fail() {
    printf 'FAIL %s\n' "$*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$B" --list | grep -q "^matmul " || fail "--list does not name matmul"
"$B" --help | grep -q "mm_f32" || fail "--help does not describe the matmul suite"

TMPDIR=$tmp "$B" matmul --json --quick >"$tmp/out.json" 2>"$tmp/err" ||
    fail "tessera-bench matmul --json --quick: exit $?"
grep -q "^tessera-bench: matmul: " "$tmp/err" || fail "no progress lines on stderr"

# One object per measurement, every key with its type; every row on the
# cpu, in GFLOP/s, its value and baseline measured side by side.
shape='
  def num_or_null: type == "number" or type == "null";
  type == "array" and length > 0 and all(.[];
    (keys == (["baseline", "baseline_p99", "baseline_value", "device", "meets_target",
               "name", "p99", "paired", "ratio", "suite", "target", "threads", "unit",
               "value"] | sort))
    and .suite == "matmul" and (.name | type == "string")
    and .device == "cpu" and .threads == 1
    and (.value | type == "number" and . > 0)
    and .p99 == null and .baseline_p99 == null
    and .unit == "GFLOP/s"
    and (.baseline | IN("openblas", "torch", "torch_f32"))
    and (.baseline_value | type == "number" and . > 0)
    and .paired == true and (.ratio | type == "number" and . > 0)
    and (.target | num_or_null)
    and (if .target == null then .meets_target == null
         else (.meets_target | type == "boolean") end))'
if ! jq -e "$shape" "$tmp/out.json" >/dev/null; then
    fail "the JSON does not have the documented shape"
    cat "$tmp/out.json"
fi

row() { # NAME BASELINE: whether the run has that row
    jq -e --arg n "$1" --arg b "$2" 'any(.[]; .name == $n and .baseline == $b)' \
        "$tmp/out.json" >/dev/null
}
for name in "${names[@]}"; do
    row "$name" openblas || fail "no row $name/openblas"
done
jq -e 'any(.[]; .name == "mm_f32" and .baseline == "openblas" and .target == 0.9)' \
    "$tmp/out.json" >/dev/null || fail "mm_f32/openblas has not its target 0.9"
if grep -q "no PyTorch comparison" "$tmp/err"; then
    jq -e 'all(.[]; .baseline == "openblas")' "$tmp/out.json" >/dev/null ||
        fail "torch rows without torch"
else
    row mm_f32 torch || fail "no row mm_f32/torch"
    row bmm_f32 torch || fail "no row bmm_f32/torch"
    row mm_f16 torch || row mm_f16 torch_f32 || fail "no row mm_f16/torch or mm_f16/torch_f32"
    if row mm_f16 torch_f32; then
        grep -q "torch: case mm_f16: " "$tmp/err" || fail "no reason why mm_f16 has no torch row"
    fi
fi
if [[ $failed != 0 ]]; then
    echo "---- stderr of the run ----"
    cat "$tmp/err"
fi
exit $failed
