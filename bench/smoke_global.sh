#!/usr/bin/env bash
# Smoke test of tessera-bench's global suite: `global --json --quick` runs
# 4 MPI ranks (no daemon: the cpu device), prints its four rows in the
# documented shape, each beside its bare MPI (or local) baseline with its
# target. No timing is checked.
# Usage: smoke_global.sh PATH-TO-tessera-bench
set -u
B=${1:?usage: smoke_global.sh PATH-TO-tessera-bench}
failed=0
fail() {
    printf 'FAIL %s\n' "$*"
    failed=1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$B" --list | grep -q "^global " || fail "--list does not name global"
"$B" --help | grep -q "boxing_s0_to_s1" || fail "--help does not describe the global suite"

TMPDIR=$tmp "$B" global --json --quick >"$tmp/out.json" 2>"$tmp/err" ||
    fail "tessera-bench global --json --quick: exit $?"
grep -q "^tessera-bench: global: " "$tmp/err" || fail "no progress lines on stderr"

shape='
  type == "array" and length == 4 and all(.[];
    .suite == "global" and .device == "cpu" and .threads == 4
    and (.value | type == "number" and . > 0) and .unit == "GB/s"
    and (.baseline_value | type == "number" and . > 0)
    and .paired == true and (.ratio | type == "number" and . > 0)
    and (.target | type == "number") and (.meets_target | type == "boolean"))'
jq -e "$shape" "$tmp/out.json" >/dev/null || fail "the JSON does not have the documented shape"
for pair in boxing_p_to_b:mpi_allreduce:0.9 boxing_s0_to_b:mpi_allgather:0.9 \
    boxing_s0_to_s1:mpi_alltoall:0.8 global_add:local_add:0.909; do
    IFS=: read -r name base target <<<"$pair"
    jq -e --arg n "$name" --arg b "$base" --argjson t "$target" \
        'any(.[]; .name == $n and .baseline == $b and (.target - $t | fabs) < 0.001)' \
        "$tmp/out.json" >/dev/null || fail "no row $name/$base with target $target"
done
if [[ $failed != 0 ]]; then
    cat "$tmp/out.json"
    echo "---- stderr of the run ----"
    cat "$tmp/err"
fi
exit $failed
