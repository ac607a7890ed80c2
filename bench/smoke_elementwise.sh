#!/usr/bin/env bash
# Smoke test of tessera-bench's elementwise and unary suites: `SUITE --json
# --quick` runs (starting its own tesserad, $TESSERA_DAEMON), prints rows of
# the documented shape and a STREAM baseline for every operation on every
# device. An operation this libtessera cannot compute yet keeps its row with
# a null value (the reason goes to stderr); the operations it has must have
# a value. No timing is checked.
# Usage: smoke_elementwise.sh PATH-TO-tessera-bench [elementwise|unary]
set -u
. "$(dirname "$0")/smoke_lib.sh"
smoke_begin "smoke_elementwise.sh PATH-TO-tessera-bench [elementwise|unary]" "$@"
S=${2:-elementwise}
case $S in
elementwise)
    names=(add_f32 add_i32_f32 add_f16 add_bf16 add_f64 add_transposed add_broadcast nchw_to_nhwc)
    computed=("${names[@]}")
    base=stream_add
    ;;
unary)
    names=(relu_f32 abs_f32 lt_f32 where_f32 exp_f32 log_f32 tanh_f32 sigmoid_f32 gelu_f32 exp_f16
        exp_bf16)
    computed=(relu_f32 abs_f32 lt_f32 where_f32 gelu_f32)
    base=stream_copy
    ;;
*)
    echo "smoke_elementwise.sh: no suite $S" >&2
    exit 2
    ;;
esac

# The command line: --threads is listed and checked (exit 2 and a message).
smoke_listed "$S" '--threads N'
refused() {
    "$B" "$S" "$@" >/dev/null 2>"$tmp/err"
    [[ $? == 2 ]] && grep -q "^tessera-bench: " "$tmp/err"
}
refused --threads 0 || fail "--threads 0 accepted"
refused --threads 17 || fail "--threads 17 accepted"
refused --threads=x || fail "--threads=x accepted"
refused --threads || fail "--threads without a number accepted"

# The run: exit 0 even where operations fail, progress on stderr.
smoke_run "$S"

# One object per measurement, every key with its type; value and ratio may
# be null together (the operation failed), the baseline never.
smoke_shape '
  type == "array" and length > 0 and all(.[];
    smoke_keys and .suite == $s and (.name | type == "string")
    and (.device | type == "string")
    and (.threads | type == "number" and . >= 1)
    and (.value == null or (.value | type == "number" and . > 0))
    and (.unit | IN("GB/s", "us"))
    and (.baseline | type == "string")
    and (.baseline_value | type == "number" and . > 0)
    and (.p99 | num_or_null) and (.baseline_p99 | num_or_null)
    and (.paired | type == "boolean")
    and (if .value == null then .ratio == null and .meets_target == null and .paired == false
         elif .paired then .ratio | type == "number" and . > 0
         else (. as $o | ($o.ratio | type == "number")
               and (($o.ratio - (if $o.unit == "us" then $o.baseline_value / $o.value
                                 else $o.value / $o.baseline_value end) | fabs)
                    < 1e-3 * $o.ratio + 1e-9)) end)
    and (.target | num_or_null)
    and (if .target == null or .value == null then .meets_target == null
         else (.meets_target | type == "boolean") end))' --arg s "$S"

# A STREAM baseline for every operation on cpu and, when the daemon has
# one, on opencl:0, with the thread count asked for (1 by default).
devices=(cpu)
grep -q "no OpenCL device" "$tmp/err" || devices+=(opencl:0)
for name in "${names[@]}"; do
    for dev in "${devices[@]}"; do
        jq -e --arg n "$name" --arg d "$dev" --arg b "$base" \
            'any(.[]; .name == $n and .device == $d and .baseline == $b
                      and .unit == "GB/s" and .threads == 1)' \
            "$tmp/out.json" >/dev/null || fail "no row $name/$dev/$base"
    done
done
for name in "${computed[@]}"; do
    for dev in "${devices[@]}"; do
        jq -e --arg n "$name" --arg d "$dev" \
            'any(.[]; .name == $n and .device == $d and .value != null)' \
            "$tmp/out.json" >/dev/null || fail "$name on $dev has no value"
    done
done
if [[ $S == elementwise && ${#devices[@]} == 2 ]]; then
    for base in bare_enqueue_finish bare_enqueue_finish+ring_rtt; do
        jq -e --arg b "$base" \
            'any(.[]; .name == "small_op_latency" and .device == "opencl:0" and .baseline == $b
                      and .unit == "us")' \
            "$tmp/out.json" >/dev/null || fail "no row small_op_latency/$base"
    done
fi
# Samples of an operation (Tessera's or PyTorch's) and of its STREAM
# baseline are taken in pairs (the quick tensors always fit beside the
# baseline's arrays), and so are the rounds of the latency against enqueue +
# finish + ring; the bare enqueue's ratio is a ratio of medians.
jq -e 'all(.[]; if .value == null then .paired == false
                elif .baseline == "bare_enqueue_finish" then .paired == false
                else .paired end)' "$tmp/out.json" >/dev/null ||
    fail "a row sampled in pairs says otherwise, or the other way round"
# PyTorch's rows when the run found torch, none when it said it did not.
if grep -q "no PyTorch comparison" "$tmp/err"; then
    jq -e 'all(.[]; .baseline != "torch")' "$tmp/out.json" >/dev/null ||
        fail "torch rows without torch"
else
    jq -e --arg n "${names[0]}" 'any(.[]; .name == $n and .device == "cpu" and .baseline == "torch")' \
        "$tmp/out.json" >/dev/null || fail "no row ${names[0]}/cpu/torch"
fi
# Its private daemon's directory (made under $TMPDIR) is gone.
smoke_no_leftovers
smoke_end
