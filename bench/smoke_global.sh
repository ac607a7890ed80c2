#!/usr/bin/env bash
# Smoke test of tessera-bench's global suite: `global --json --quick` runs
# 4 MPI ranks (no daemon: the cpu device), prints its four rows in the
# documented shape, each beside its bare MPI (or local) baseline with its
# target. No timing is checked.
# Usage: smoke_global.sh PATH-TO-tessera-bench
set -u
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_global.sh PATH-TO-tessera-bench" "$@"

smoke_listed global boxing_s0_to_s1
smoke_run global

smoke_shape '
  type == "array" and length == 4 and all(.[];
    .suite == "global" and .device == "cpu" and .threads == 4
    and (.value | type == "number" and . > 0) and .unit == "GB/s"
    and (.baseline_value | type == "number" and . > 0)
    and .paired == true and (.ratio | type == "number" and . > 0)
    and (.target | type == "number") and (.meets_target | type == "boolean"))'
for pair in boxing_p_to_b:mpi_allreduce:0.9 boxing_s0_to_b:mpi_allgather:0.9 \
    boxing_s0_to_s1:mpi_alltoall:0.8 global_add:local_add:0.909; do
    IFS=: read -r name base target <<<"$pair"
    jq -e --arg n "$name" --arg b "$base" --argjson t "$target" \
        'any(.[]; .name == $n and .baseline == $b and (.target - $t | fabs) < 0.001)' \
        "$tmp/out.json" >/dev/null || fail "no row $name/$base with target $target"
done
smoke_end json
