#!/usr/bin/env bash
# A rank that is stuck, late or dies must not hang the others (test_failure.c):
# each scenario under mpiexec -n 2 must end well inside its time limit,
# rank 0 reporting the timeout where a rank is stuck, mpiexec ending the
# job where one dies.
# Usage: check_failure.sh PROGRAM MPIEXEC [MPIEXEC-FLAG...]
set -u
prog=${1:?usage: check_failure.sh PROGRAM MPIEXEC [FLAG...]}
shift
mpiexec=("$@")
failed=0
fail() {
    printf 'FAIL %s\n' "$*"
    failed=1
}
out=$(mktemp "${TMPDIR:-/tmp}/tessera-failure.XXXXXX")
trap 'rm -f "$out"' EXIT

# One rank: the option and the variable.
TESSERA_GLOBAL_TIMEOUT=7 timeout 60 "$@" -n 1 "$prog" timeout-option >"$out" 2>&1 ||
    fail "timeout-option: exit $?: $(cat "$out")"

# A scenario under TESSERA_GLOBAL_TIMEOUT=1 whose rank must print `line`
# (its own errors checked) and whose job must end well inside 60 s
# (mpiexec's exit status is not ours: a rank leaves with _exit).
expect_report() {
    local name=$1 line=$2 start=$SECONDS rc
    TESSERA_GLOBAL_TIMEOUT=1 timeout 60 "${mpiexec[@]}" -n 2 "$prog" "$name" >"$out" 2>&1
    rc=$?
    ((rc != 124)) || fail "$name: the job hung (killed after 60 s)"
    grep -q "^$line\$" "$out" || fail "$name: no \"$line\": $(cat "$out")"
    echo "$name: ended in $((SECONDS - start)) s (mpiexec exit $rc)"
}

# Stuck: rank 1 sleeps 4 s; rank 0 gives up after 1 s, checks its errors
# and leaves.
expect_report stuck "rank 0: stuck: ok"
# Late: rank 1 comes 2 s late, after rank 0 gave up (which stays 4 s
# more); rank 1 must fail at its own timeout rather than wait for ever.
expect_report late "rank 1: late: ok"

# Dies: rank 1 exits at once; rank 0 waits in to_global with the default
# timeout (300 s), so only mpiexec's end of the job can free it in time.
start=$SECONDS
timeout 60 "$@" -n 2 "$prog" dies >"$out" 2>&1
rc=$?
((rc != 124)) || fail "dies: the job hung (killed after 60 s)"
((rc != 0)) || fail "dies: mpiexec reported success for a job whose rank died"
! grep -q "^rank 0: dies: to_global returned" "$out" ||
    fail "dies: rank 0's to_global returned: $(cat "$out")"
echo "dies: ended in $((SECONDS - start)) s (mpiexec exit $rc)"
exit $failed
