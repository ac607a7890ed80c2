#!/usr/bin/env bash
# Runs every libFuzzer target of a TESSERA_FUZZ=ON clang build for a short
# while on its committed corpus (the CI fuzz smoke):
#   tests/fuzz/smoke.sh BUILD_DIR [SECONDS] [RUNS] [JOBS]
# Each target stops after SECONDS (default 15) or RUNS inputs (default -1,
# no limit), whichever comes first. Each target is one process on one
# core, and JOBS of them (default: the number of cores, nproc) run at the
# same time, so every target still gets its SECONDS of a core. New
# interesting inputs go to BUILD_DIR/fuzz-work/<target>/ and crashes to
# BUILD_DIR/fuzz-artifacts/; the committed corpus is only read. A crash
# fails the run: add the crash file to tests/fuzz/corpus/<target>/ along
# with the fix, and it stays a regression test.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$(cd "${1:?usage: smoke.sh BUILD_DIR [SECONDS] [RUNS] [JOBS]}" && pwd)
seconds=${2:-15}
runs=${3:--1}
jobs=${4:-$(nproc)}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
    echo "smoke.sh: JOBS must be a positive number, not '$jobs'" >&2
    exit 1
fi

shopt -s nullglob
targets=("$build_dir"/fuzz/*)
if ((${#targets[@]} == 0)); then
    echo "smoke.sh: no fuzz targets in $build_dir/fuzz (configure with clang and -DTESSERA_FUZZ=ON)" >&2
    exit 1
fi
for bin in "${targets[@]}"; do
    name=$(basename "$bin")
    [[ -d $root/tests/fuzz/corpus/$name ]] ||
        { echo "smoke.sh: no corpus for $name at $root/tests/fuzz/corpus/$name" >&2; exit 1; }
done

# One target: its log in fuzz-work/<target>.log, its exit status in
# fuzz-work/<target>.status.
fuzz_one()
{
    local bin=$1 name work rc=0
    name=$(basename "$bin")
    work=$build_dir/fuzz-work/$name
    "$bin" -max_total_time="$seconds" -runs="$runs" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build_dir/fuzz-artifacts/$name-" "$work" \
        "$root/tests/fuzz/corpus/$name" >"$work.log" 2>&1 || rc=$?
    echo "$rc" >"$work.status"
}

mkdir -p "$build_dir/fuzz-artifacts"
running=0
for bin in "${targets[@]}"; do
    name=$(basename "$bin")
    mkdir -p "$build_dir/fuzz-work/$name"
    rm -f "$build_dir/fuzz-work/$name.status"
    if ((running == jobs)); then
        wait -n
        running=$((running - 1))
    fi
    fuzz_one "$bin" &
    running=$((running + 1))
done
wait

# The results in the targets' order, whatever order they ended in.
failed=()
for bin in "${targets[@]}"; do
    name=$(basename "$bin")
    work=$build_dir/fuzz-work/$name
    if [[ $(cat "$work.status" 2>/dev/null) == 0 ]]; then
        summary=$(grep -E '^Done [0-9]+ runs' "$work.log" || echo "done")
        printf '  %-16s %s, %s inputs in the work corpus\n' "$name" "$summary" "$(ls "$work" | wc -l)"
    else
        echo "  $name FAILED; last lines of $work.log:"
        tail -n 40 "$work.log" | sed 's/^/    /'
        failed+=("$name")
    fi
done

if ((${#failed[@]})); then
    echo "smoke.sh: crashes in ${failed[*]}; inputs in $build_dir/fuzz-artifacts/" >&2
    echo "smoke.sh: reproduce with: $build_dir/fuzz/<target> <crash-file>" >&2
    exit 1
fi
