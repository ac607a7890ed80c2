#!/usr/bin/env bash
# check_without_tests.sh SOURCE_DIR WORK_DIR [CMAKE]
# A clang tree configured with -DTESSERA_FUZZ=ON -DTESSERA_TESTS=OFF still
# has every fuzz target of tests/fuzz/fuzz_*.c (configured, not built: the
# targets' existence is what TESSERA_TESTS once took away). Skips (77)
# without clang.
set -euo pipefail
src=${1:?usage: check_without_tests.sh SOURCE_DIR WORK_DIR [CMAKE]}
work=${2:?usage: check_without_tests.sh SOURCE_DIR WORK_DIR [CMAKE]}
cmake=${3:-cmake}

if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null; then
    echo "skip: no clang to build libFuzzer targets with"
    exit 77
fi
rm -rf "$work"
"$cmake" -S "$src" -B "$work" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DTESSERA_FUZZ=ON -DTESSERA_TESTS=OFF >"$work.log" 2>&1 ||
    { cat "$work.log"; echo "FAIL: configuring failed"; exit 1; }
targets=$("$cmake" --build "$work" --target help)
fail=0
for src_file in "$src"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$src_file" .c)
    name=${name#fuzz_}
    if grep -qw "libfuzzer-$name" <<<"$targets"; then
        echo "ok: libfuzzer-$name"
    else
        echo "FAIL: no target libfuzzer-$name with TESSERA_TESTS=OFF"
        fail=1
    fi
done
rm -rf "$work" "$work.log"
exit $fail
