#!/usr/bin/env bash
# check_output.sh EXPECTED COMMAND...
# Runs COMMAND; it must succeed and its standard output must be EXPECTED's
# text exactly (standard error passes through, for MPI's and the program's
# messages).
set -uo pipefail
expected=${1:?usage: check_output.sh EXPECTED COMMAND...}
shift
out=$("$@")
rc=$?
printf '%s\n' "$out"
if ((rc != 0)); then
    echo "FAIL: $* exited $rc"
    exit 1
fi
if ! diff -u "$expected" <(printf '%s\n' "$out"); then
    echo "FAIL: the output differs from $expected"
    exit 1
fi
echo "ok: the output is $(basename "$expected")"
