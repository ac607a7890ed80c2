#!/usr/bin/env bash
# check_asan_options.sh SANITIZE [--run PROGRAM...] [--exported PROGRAM...]
# In a sanitizer build (SANITIZE is ON), the programs that may load PoCL
# run with ASan's use_sigaltstack=0 by default (cmake/asan_options.c says
# why). --run programs are started with `--version` under ASAN_OPTIONS=help=1,
# which prints each flag's value in force before main(); --exported ones
# (tests, which --version would not stop) must export their own
# __asan_default_options, as the sanitizer runtime finds it only then.
# Anything else skips (77).
set -euo pipefail

case ${1:-} in
ON | on | TRUE | true | 1) ;;
*)
    echo "skip: not a sanitizer build (-DTESSERA_SANITIZE=ON)"
    exit 77
    ;;
esac
shift

fail=0
mode=""
for arg in "$@"; do
    case $arg in
    --run | --exported)
        mode=$arg
        continue
        ;;
    esac
    name=$(basename "$arg")
    if [[ $mode == --run ]]; then
        # Only the flag under test is named in ASAN_OPTIONS, so the value
        # printed is the program's default.
        out=$(ASAN_OPTIONS=help=1 "$arg" --version 2>&1 >/dev/null) || true
        value=$(grep -A1 -E '^\s*use_sigaltstack$' <<<"$out" |
            sed -n 's/.*Current Value: \([a-z]*\).*/\1/p') || true
        if [[ $value == false ]]; then
            echo "ok: $name runs with use_sigaltstack=0"
        else
            echo "FAIL: $name runs with use_sigaltstack=${value:-<no ASan flags printed>}"
            fail=1
        fi
    else
        symbols=$(nm -D --defined-only "$arg") || true
        if grep -qE ' T __asan_default_options$' <<<"$symbols"; then
            echo "ok: $name exports __asan_default_options"
        else
            echo "FAIL: $name does not export its own __asan_default_options"
            fail=1
        fi
    fi
done
exit $fail
