#!/usr/bin/env bash
# End-to-end tests of the `tessera` command's offline subcommands: output,
# error messages and exit codes, as a user or a script sees them.
# Usage: test_cli.sh PATH-TO-tessera
set -u
T=${1:?usage: test_cli.sh PATH-TO-tessera}
passed=0 failed=0

# check NAME EXPECTED-EXIT EXPECTED-STDOUT -- ARGS...
check() {
    local name=$1 want_rc=$2 want_out=$3
    shift 4
    local out rc
    out=$("$T" "$@" 2>/tmp/tessera-cli-err.$$)
    rc=$?
    if [[ $rc == "$want_rc" && $out == "$want_out" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s: tessera %s\n  exit %s (want %s)\n  stdout: %s\n  want:   %s\n  stderr: %s\n' \
            "$name" "$*" "$rc" "$want_rc" "$out" "$want_out" "$(cat /tmp/tessera-cli-err.$$)"
    fi
}

# check_err NAME EXPECTED-EXIT EXPECTED-STDERR-LINE -- ARGS...
check_err() {
    local name=$1 want_rc=$2 want_err=$3
    shift 4
    local err rc
    err=$("$T" "$@" 2>&1 >/dev/null)
    rc=$?
    if [[ $rc == "$want_rc" && $err == *"$want_err"* ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s: tessera %s\n  exit %s (want %s)\n  stderr: %s\n  want:   %s\n' \
            "$name" "$*" "$rc" "$want_rc" "$err" "$want_err"
    fi
}

check promote-1 0 int16 -- promote uint8 int8
check promote-2 0 float32 -- promote float16 bfloat16
check promote-alias 0 float32 -- promote torch.float int
check promote-json 0 '{"dtype": "complex64"}' -- promote bfloat16 complex32 --json
check_err promote-f8 1 "tessera: error: Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Float" -- promote float8_e4m3fn float32
check_err promote-name 2 "invalid dtype name: 'float33'" -- promote float33 int8
check_err promote-argc 2 "expects 2 arguments, got 1" -- promote int8

check cast-1 0 True -- can-cast float64 float32
check cast-2 0 False -- can-cast float32 int32
check cast-safe 0 False -- can-cast float64 float32 --policy safe
check cast-eq 0 True -- can-cast int8 int16 --policy=same_kind
check cast-json 0 '{"can_cast": false, "policy": "oneflow"}' -- can-cast int64 int32 --json --policy oneflow
check_err cast-policy 2 "casting policy must be one of" -- can-cast int8 int16 --policy sometimes

check rt-1 0 int32 -- result-type 'int32[3]' 5
check rt-2 0 float32 -- result-type 'int32[3]' 2.5
check rt-3 0 float16 -- result-type 'float16[3]' 'float64[]'
check rt-neg 0 uint8 -- result-type 'uint8[2]' -1
check rt-cplx 0 complex32 -- result-type 'float16[2]' -1.5-2j
check rt-default 0 float64 -- result-type 'int64[2]' 5.0 --default-dtype float64
check rt-default-c 0 complex128 -- result-type 5 1j --default-dtype=float64
check rt-many 0 complex128 -- result-type 'int8[3]' 'uint8[3]' 'float64[]' 1j
check_err rt-uint16 1 "attempted to promote UInt16 and Short" -- result-type 'uint16[2]' 'int16[2]'
check_err rt-bad 2 "invalid operand 'int32[2'" -- result-type 'int32[2'
check_err rt-default-bad 1 "only floating-point types are supported as the default type" -- result-type 5 --default-dtype int32
check_err rt-none 2 "expects at least 1 argument" -- result-type

check dev-1 0 $'str:   cuda:1\nrepr:  device(type=\'cuda\', index=1)\ntype:  cuda\nindex: 1' -- device cuda:1
check dev-json 0 '{"device": "cpu", "repr": "device(type='"'"'cpu'"'"')", "type": "cpu", "index": null}' -- device cpu --json
check_err dev-bad 1 "tessera: error: Invalid device string: 'cuda:01'" -- device cuda:01
check_err dev-empty 1 "Device string must not be empty" -- device ''
check_err dev-upper 1 "device type at start of device string: CUDA" -- device CUDA

out=$("$T" dtypes)
rows=$(printf '%s\n' "$out" | tail -n +2 | wc -l)
if [[ $rows == 22 && $out == *"torch.float8_e8m0fnu"* && $out == *"torch.cdouble"* ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL dtypes table: $rows rows"
fi
json=$("$T" dtypes --json)
n=$(printf '%s\n' "$json" | grep -c '"dtype":')
if [[ $n == 22 && ${json:0:1} == "[" && $json == *'"legacy_type": "torch.FloatTensor"'* ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL dtypes --json: $n objects"
fi
if ! command -v jq >/dev/null; then
    failed=$((failed + 1)); echo "FAIL jq is missing (scripts/deps.sh installs it): JSON output unchecked"
else
    for args in "dtypes --json" "promote int8 uint8 --json" "device cuda:3 --json" \
                "can-cast int8 bool --json" "version --json"; do
        # shellcheck disable=SC2086
        if "$T" $args | jq -e . >/dev/null; then passed=$((passed + 1))
        else failed=$((failed + 1)); echo "FAIL invalid JSON from: tessera $args"; fi
    done
fi

for cmd in dtypes promote can-cast result-type device version; do
    help=$("$T" "$cmd" --help)
    if [[ $? == 0 && $help == *SYNOPSIS* && $help == *DESCRIPTION* && $help == *"EXIT STATUS"* ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL $cmd --help"
    fi
done
check_err no-cmd 2 "no such command 'frobnicate'" -- frobnicate
check_err bad-opt 2 "unknown option '--frob'" -- dtypes --frob
check_err no-args 2 "COMMANDS" --
help=$("$T" --help) && [[ $help == *result-type* ]] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL --help"; }
check version 0 "tessera 0.1.0" -- --version

# Option parsing (getopt_long): global options before the command, short
# forms, --opt=value, "--", negative numbers as arguments; every check
# below is refused before any daemon is asked, so none is needed.
check global-json 0 '{"dtype": "int16"}' -- --json promote uint8 int8
check short-json 0 '{"dtype": "int16"}' -- promote -j uint8 int8
check global-version-json 0 '{"version": "0.1.0"}' -- --json --version
check short-version 0 "tessera 0.1.0" -- -V
check rt-dashdash 0 uint8 -- result-type -- 'uint8[2]' -1
check rt-neg-first 0 int64 -- result-type -5 -7
check cast-split 0 False -- can-cast --policy safe float64 float32
out=$("$T" --json dtypes) && [[ $out == "$("$T" dtypes --json)" ]] && passed=$((passed + 1)) ||
    { failed=$((failed + 1)); echo "FAIL tessera --json dtypes differs from tessera dtypes --json"; }
check_err conflict-dtypes 2 "--json and --csv conflict" -- dtypes --json --csv
check_err conflict-global 2 "--json and --csv conflict" -- --csv --json ps
check_err conflict-mixed 2 "--json and --csv conflict" -- --json devices --csv
check_err conflict-stats 2 "--json and --csv conflict" -- stats -j --csv
check_err global-unsupported 2 "option '--csv' does not apply to this command" -- --csv dtypes
check_err socket-unsupported 2 "option '--socket' does not apply to this command" -- --socket /x promote int8 int8
check_err units-unsupported 2 "option '--no-units' does not apply to this command" -- topo --no-units
check_err loop-before 2 "option '--loop' goes after the command name" -- --loop 1 ps
check_err no-command 2 "a command is needed after the options" -- --json
check_err query-unknown 2 "unknown field 'bogus' in --query; the fields are: device, type, index" -- devices --query index,bogus
check_err query-ps-unknown 2 "unknown field 'memory_total' in --query; the fields are: session, state, pid" -- ps -q name,memory_total
check_err query-empty 2 "--query needs field names separated by commas" -- ps --query 'pid,,name'
check_err query-twice 2 "field 'pid' is named twice" -- ps --query=pid,name,pid
check_err query-unsupported 2 "option '--query' does not apply to this command" -- stats -q pid
for bad in 0 -1 abc 1e3 nan inf 86401 '' 0x10 1.5s; do
    check_err "loop-$bad" 2 "--loop takes a number of seconds above 0 and at most 86400, not '$bad'" -- ps --loop "$bad"
done
check_err loop-missing 2 "option '--loop' needs a value" -- devices --loop
check_err loop-short-missing 2 "option '-l' needs a value" -- devices -l
for bad in 0 -3 x 1.5 10000000000; do
    check_err "count-$bad" 2 "--count takes a number of rounds from 1 to 1000000000, not '$bad'" -- devices -l 1 --count="$bad"
done
check_err count-alone 2 "--count needs --loop" -- ps --count 3
check_err json-value 2 "option '--json' takes no value" -- devices --json=yes
check_err ambiguous 2 "ambiguous option '--no'" -- ps --no
check_err short-unknown 2 "unknown option '-z'" -- ps -z
for cmd in devices ps; do
    help=$("$T" "$cmd" --help)
    if [[ $help == *$'\nFIELDS\n'*"    name   "*"EXIT STATUS"* && $help == *"--no-units"* &&
          $help == *"JSON Lines"* && $help == *'\u00NN'* ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL $cmd --help lacks FIELDS, --no-units, JSON Lines or the escaping rule"
    fi
done
help=$("$T" stats --help) && [[ $help == *"--loop SECONDS"* && $help != *$'\nFIELDS\n'* ]] &&
    passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL stats --help"; }

# top's options, refused before the daemon is asked; -d is top's --delay
# and stats' --device.
for bad in 0 -1 abc 1e3 nan inf 3601 '' 0x10 1.5s . 1.2.3; do
    check_err "top-delay-$bad" 2 "--delay takes a number of seconds above 0 and at most 3600, not '$bad'" -- top -d "$bad"
done
check_err top-delay-long 2 "--delay takes a number of seconds above 0 and at most 3600, not '0'" -- top --delay=0
for bad in 0 -3 x 1.5 10000000000; do
    check_err "top-iterations-$bad" 2 "--iterations takes a number of frames from 1 to 1000000000, not '$bad'" -- top -n "$bad"
done
check_err top-sort 2 "--sort takes memory, busy, pid, session or name, not 'cpu'" -- top -o cpu
check_err top-once-n 2 "--once and --iterations conflict: choose one" -- top --once -n 2
check_err top-delay-missing 2 "option '-d' needs a value" -- top -d
check_err top-json 2 "option '--json' does not apply to this command" -- top --json
check_err top-device 2 "option '--device' does not apply to this command" -- top --device 0
check_err stats-delay 2 "option '--delay' does not apply to this command" -- stats --delay 1
help=$("$T" top --help)
if [[ $help == *$'\nKEYS\n'*"-d, --delay SECONDS"*"-o, --sort FIELD"*"-n, --iterations N"*$'\nEXAMPLES\n'* ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL top --help lacks KEYS, -d, -o, -n or EXAMPLES"
fi

rm -f /tmp/tessera-cli-err.$$
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
