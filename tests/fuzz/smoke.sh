#!/usr/bin/env bash
# Runs every libFuzzer target of a TESSERA_FUZZ=ON clang build for a short
# while on its committed corpus (the CI fuzz smoke):
#   tests/fuzz/smoke.sh BUILD_DIR [SECONDS] [RUNS]
# Each target stops after SECONDS (default 15) or RUNS inputs (default -1,
# no limit), whichever comes first. New interesting inputs go to
# BUILD_DIR/fuzz-work/<target>/ and crashes to BUILD_DIR/fuzz-artifacts/;
# the committed corpus is only read. A crash fails the run: add the crash
# file to tests/fuzz/corpus/<target>/ along with the fix, and it stays a
# regression test.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$(cd "${1:?usage: smoke.sh BUILD_DIR [SECONDS] [RUNS]}" && pwd)
seconds=${2:-15}
runs=${3:--1}

shopt -s nullglob
targets=("$build_dir"/fuzz/*)
if ((${#targets[@]} == 0)); then
    echo "smoke.sh: no fuzz targets in $build_dir/fuzz (configure with clang and -DTESSERA_FUZZ=ON)" >&2
    exit 1
fi

mkdir -p "$build_dir/fuzz-artifacts"
failed=()
for bin in "${targets[@]}"; do
    name=$(basename "$bin")
    corpus=$root/tests/fuzz/corpus/$name
    work=$build_dir/fuzz-work/$name
    log=$build_dir/fuzz-work/$name.log
    mkdir -p "$work"
    [[ -d $corpus ]] || { echo "smoke.sh: no corpus for $name at $corpus" >&2; exit 1; }
    if "$bin" -max_total_time="$seconds" -runs="$runs" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build_dir/fuzz-artifacts/$name-" "$work" "$corpus" >"$log" 2>&1; then
        summary=$(grep -E '^Done [0-9]+ runs' "$log" || echo "done")
        printf '  %-16s %s, %s inputs in the work corpus\n' "$name" "$summary" "$(ls "$work" | wc -l)"
    else
        echo "  $name FAILED; last lines of $log:"
        tail -n 40 "$log" | sed 's/^/    /'
        failed+=("$name")
    fi
done

if ((${#failed[@]})); then
    echo "smoke.sh: crashes in ${failed[*]}; inputs in $build_dir/fuzz-artifacts/" >&2
    echo "smoke.sh: reproduce with: $build_dir/fuzz/<target> <crash-file>" >&2
    exit 1
fi
