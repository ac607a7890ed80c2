# Shared by the smoke tests of tessera-bench's suites (bench/smoke_*.sh),
# sourced after `set -u`. None of them checks a timing: a benchmark's
# numbers are printed, never asserted.
#
#   smoke_begin USAGE "$@"    $B (the tessera-bench to run, the first
#                             argument), $tmp (a directory removed at
#                             exit), $failed
#   fail MESSAGE...           a failure, printed; the test goes on
#   smoke_listed SUITE WORD   --list names SUITE, --help mentions WORD
#   smoke_run SUITE           SUITE --json --quick into $tmp/out.json
#                             ($tmp/err); exit 0 and progress lines
#   smoke_shape FILTER [JQ-ARG...]
#                             the JSON satisfies FILTER, which may use
#                             smoke_keys (every row has exactly the
#                             documented keys) and num_or_null
#   row NAME BASELINE [DEVICE]  whether the run has that row (cpu)
#   smoke_no_leftovers        the private daemon's directory is gone
#   smoke_end [json]          prints the run's stderr (and JSON) after a
#                             failure, and exits with the verdict

smoke_begin()
{
    local usage=$1
    shift
    B=${1:?usage: $usage}
    failed=0
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-bench-smoke.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
}

fail()
{
    printf 'FAIL %s\n' "$*"
    failed=1
}

smoke_listed()
{
    "$B" --list | grep -q "^$1 " || fail "--list does not name $1"
    "$B" --help | grep -q -- "$2" || fail "--help does not describe $2"
}

smoke_run()
{
    TMPDIR=$tmp "$B" "$1" --json --quick >"$tmp/out.json" 2>"$tmp/err" ||
        fail "tessera-bench $1 --json --quick: exit $?"
    grep -q "^tessera-bench: $1: " "$tmp/err" || fail "no progress lines on stderr"
}

smoke_prelude='
  def num_or_null: type == "number" or type == "null";
  def smoke_keys:
    keys == (["baseline", "baseline_p99", "baseline_value", "device", "meets_target",
              "name", "p99", "paired", "ratio", "suite", "target", "threads", "unit",
              "value"] | sort);'

smoke_shape()
{
    local filter=$1
    shift
    # jq -e accepts an empty file: no JSON at all is a failure too.
    if [[ ! -s $tmp/out.json ]] || ! jq -e "$@" "$smoke_prelude $filter" "$tmp/out.json" >/dev/null; then
        fail "the JSON does not have the documented shape"
        cat "$tmp/out.json"
    fi
}

row()
{
    jq -e --arg n "$1" --arg b "$2" --arg d "${3:-cpu}" \
        'any(.[]; .name == $n and .baseline == $b and .device == $d)' "$tmp/out.json" >/dev/null
}

smoke_no_leftovers()
{
    if compgen -G "$tmp/tessera-bench.*" >/dev/null; then
        fail "the private daemon's directory was left behind"
    fi
}

smoke_end()
{
    if [[ $failed != 0 ]]; then
        [[ ${1:-} != json ]] || cat "$tmp/out.json"
        echo "---- stderr of the run ----"
        cat "$tmp/err"
    fi
    exit "$failed"
}
