/* Type promotion, result_type, the casting rules and the default dtype.
 *
 * promote_types is PyTorch's 13x13 table for the classic dtypes, with the
 * 2.9 error rules for float8, uint16/32/64 and float4 applied first.
 * result_type folds operands into three tiers (dimensioned tensors, 0-dim
 * tensors, wrapped scalars) and combines them by category, exactly as
 * c10's ResultTypeState does. The casting policies give frontends with
 * other rules (OneFlow, NumPy) the same core. */
#include <stdatomic.h>
#include <string.h>

#include "core/dtype.h"
#include "core/error.h"

/* Rows and columns in classic-index order:
 * u8 i8 i16 i32 i64 f16 bf16 f32 f64 c32 c64 c128 b */
#define u8 TSR_UINT8
#define i8 TSR_INT8
#define i16 TSR_INT16
#define i32 TSR_INT32
#define i64 TSR_INT64
#define f16 TSR_FLOAT16
#define bf TSR_BFLOAT16
#define f32 TSR_FLOAT32
#define f64 TSR_FLOAT64
#define c32 TSR_COMPLEX32
#define c64 TSR_COMPLEX64
#define c128 TSR_COMPLEX128
#define b1 TSR_BOOL
static const uint8_t promote_table[13][13] = {
    /* u8  */ {u8, i16, i16, i32, i64, f16, bf, f32, f64, c32, c64, c128, u8},
    /* i8  */ {i16, i8, i16, i32, i64, f16, bf, f32, f64, c32, c64, c128, i8},
    /* i16 */ {i16, i16, i16, i32, i64, f16, bf, f32, f64, c32, c64, c128, i16},
    /* i32 */ {i32, i32, i32, i32, i64, f16, bf, f32, f64, c32, c64, c128, i32},
    /* i64 */ {i64, i64, i64, i64, i64, f16, bf, f32, f64, c32, c64, c128, i64},
    /* f16 */ {f16, f16, f16, f16, f16, f16, f32, f32, f64, c32, c64, c128, f16},
    /* bf  */ {bf, bf, bf, bf, bf, f32, bf, f32, f64, c64, c64, c128, bf},
    /* f32 */ {f32, f32, f32, f32, f32, f32, f32, f32, f64, c64, c64, c128, f32},
    /* f64 */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, c128, c128, c128, f64},
    /* c32 */ {c32, c32, c32, c32, c32, c32, c64, c64, c128, c32, c64, c128, c32},
    /* c64 */ {c64, c64, c64, c64, c64, c64, c64, c64, c128, c64, c64, c128, c64},
    /* c128*/ {c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128},
    /* b   */ {u8, i8, i16, i32, i64, f16, bf, f32, f64, c32, c64, c128, b1},
};
#undef u8
#undef i8
#undef i16
#undef i32
#undef i64
#undef f16
#undef bf
#undef f32
#undef f64
#undef c32
#undef c64
#undef c128
#undef b1

static bool is_barebones_unsigned(tsr_dtype d)
{
    return d == TSR_UINT16 || d == TSR_UINT32 || d == TSR_UINT64;
}

static tsr_status invalid_dtype(tsr_dtype d)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)d);
}

tsr_status tsr_promote_types(tsr_dtype a, tsr_dtype b, tsr_dtype *out)
{
    if (!tsr__dtype_valid(a))
        return invalid_dtype(a);
    if (!tsr__dtype_valid(b))
        return invalid_dtype(b);
    const char *na = tsr__dtypes[a].message_name, *nb = tsr__dtypes[b].message_name;
    tsr_dtype r;
    if (a == b) {
        r = a;
    } else if (tsr_dtype_is_float8(a) || tsr_dtype_is_float8(b)) {
        return tsr__fail(
            TSR_ERR_RUNTIME,
            "Promotion for Float8 Types is not supported, attempted to promote %s and %s", na, nb);
    } else if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
        /* A floating partner wins (float4 included: c10 calls it floating);
         * anything else has no defined promotion. */
        if (tsr_dtype_is_floating_point(a))
            r = a;
        else if (tsr_dtype_is_floating_point(b))
            r = b;
        else
            return tsr__fail(TSR_ERR_RUNTIME,
                             "Promotion for uint16, uint32, uint64 types is not supported, "
                             "attempted to promote %s and %s",
                             na, nb);
    } else if (tsr__dtypes[a].classic < 0 || tsr__dtypes[b].classic < 0) {
        /* float4_e2m1fn_x2: PyTorch trips an internal assertion here. */
        return tsr__fail(
            TSR_ERR_RUNTIME,
            "Promotion for shell dtypes is not defined, attempted to promote %s and %s", na, nb);
    } else {
        r = (tsr_dtype)promote_table[tsr__dtypes[a].classic][tsr__dtypes[b].classic];
    }
    *out = r;
    return TSR_OK;
}

bool tsr_can_cast(tsr_dtype from, tsr_dtype to)
{
    if (!tsr__dtype_valid(from) || !tsr__dtype_valid(to))
        return false;
    if (tsr_dtype_is_complex(from) && !tsr_dtype_is_complex(to))
        return false;
    if (tsr_dtype_is_floating_point(from) && tsr_dtype_is_integral(to))
        return false;
    if (from != TSR_BOOL && to == TSR_BOOL)
        return false;
    return true;
}

/* What a floating format can hold, for the "safe" (value-preserving)
 * relation: significand bits, largest and smallest binary exponents, and
 * which special values exist. Complex dtypes use their component's row. */
typedef struct float_format {
    int8_t digits;   /* significand bits, implicit bit included */
    int16_t emax;    /* exponent of the largest finite value */
    int16_t esub;    /* exponent of the smallest positive value */
    int8_t int_bits; /* widest integer NumPy calls safe to cast in */
    bool inf, nan, negative, zero;
} float_format;

static const float_format float_formats[TSR_DTYPE_COUNT] = {
    [TSR_FLOAT16] = {11, 15, -24, 8, true, true, true, true},
    [TSR_BFLOAT16] = {8, 127, -133, 8, true, true, true, true},
    [TSR_FLOAT32] = {24, 127, -149, 16, true, true, true, true},
    [TSR_FLOAT64] = {53, 1023, -1074, 64, true, true, true, true},
    [TSR_FLOAT8_E4M3FN] = {4, 8, -9, 0, false, true, true, true},
    [TSR_FLOAT8_E5M2] = {3, 15, -16, 0, true, true, true, true},
    [TSR_FLOAT8_E4M3FNUZ] = {4, 7, -10, 0, false, true, true, true},
    [TSR_FLOAT8_E5M2FNUZ] = {3, 15, -17, 0, false, true, true, true},
    [TSR_FLOAT8_E8M0FNU] = {1, 127, -127, 0, false, true, false, false},
    [TSR_FLOAT4_E2M1FN_X2] = {2, 2, -1, 0, false, false, true, true},
};

static int int_bits(tsr_dtype d)
{
    return (int)tsr__dtypes[d].itemsize * 8;
}

/* NumPy's 'safe' relation, extended to the dtypes NumPy lacks by the same
 * principle: every value of `from` is a value of `to`. Integers follow
 * NumPy's own table (which calls int64 -> float64 safe). */
static bool safe_cast(tsr_dtype from, tsr_dtype to)
{
    if (from == to || from == TSR_BOOL)
        return from == to || to != TSR_FLOAT8_E8M0FNU; /* e8m0 has no zero */
    tsr_dtype_category cf = tsr__dtypes[from].category, ct = tsr__dtypes[to].category;
    if (ct == TSR_CATEGORY_BOOL || (cf == TSR_CATEGORY_COMPLEX && ct != TSR_CATEGORY_COMPLEX))
        return false;
    if (cf == TSR_CATEGORY_INTEGRAL) {
        bool sf = tsr__dtypes[from].is_signed;
        if (ct == TSR_CATEGORY_INTEGRAL) {
            bool st = tsr__dtypes[to].is_signed;
            return sf == st ? int_bits(to) >= int_bits(from)
                            : (!sf && st && int_bits(to) > int_bits(from));
        }
        return int_bits(from) <= float_formats[tsr_dtype_to_real(to)].int_bits;
    }
    if (ct == TSR_CATEGORY_INTEGRAL)
        return false;
    const float_format *a = &float_formats[tsr_dtype_to_real(from)];
    const float_format *b = &float_formats[tsr_dtype_to_real(to)];
    return a->digits <= b->digits && a->emax <= b->emax && a->esub >= b->esub &&
           (!a->inf || b->inf) && (!a->nan || b->nan) && (!a->negative || b->negative) &&
           (!a->zero || b->zero);
}

/* NumPy kinds, in the order same_kind allows: b < u < i < f < c. */
static int numpy_kind(tsr_dtype d)
{
    switch (tsr__dtypes[d].category) {
    case TSR_CATEGORY_BOOL:
        return 0;
    case TSR_CATEGORY_INTEGRAL:
        return tsr__dtypes[d].is_signed ? 2 : 1;
    case TSR_CATEGORY_FLOATING:
        return 3;
    default:
        return 4;
    }
}

bool tsr_can_cast_policy(tsr_dtype from, tsr_dtype to, tsr_cast_policy policy)
{
    if (!tsr__dtype_valid(from) || !tsr__dtype_valid(to))
        return false;
    switch (policy) {
    case TSR_CAST_PYTORCH:
        return tsr_can_cast(from, to);
    case TSR_CAST_ONEFLOW:
        return tsr_can_cast(from, to) &&
               (tsr__dtypes[from].category != tsr__dtypes[to].category || safe_cast(from, to));
    case TSR_CAST_NO:
    case TSR_CAST_EQUIV:
        return from == to;
    case TSR_CAST_SAFE:
        return safe_cast(from, to);
    case TSR_CAST_SAME_KIND:
        return safe_cast(from, to) || numpy_kind(from) <= numpy_kind(to);
    case TSR_CAST_UNSAFE:
        return true;
    default:
        return false;
    }
}

static const char *const policy_names[TSR_CAST_POLICY_COUNT] = {
    [TSR_CAST_PYTORCH] = "pytorch", [TSR_CAST_ONEFLOW] = "oneflow",
    [TSR_CAST_NO] = "no",           [TSR_CAST_EQUIV] = "equiv",
    [TSR_CAST_SAFE] = "safe",       [TSR_CAST_SAME_KIND] = "same_kind",
    [TSR_CAST_UNSAFE] = "unsafe",
};

const char *tsr_cast_policy_name(tsr_cast_policy policy)
{
    return (unsigned)policy < TSR_CAST_POLICY_COUNT ? policy_names[policy] : NULL;
}

tsr_status tsr_cast_policy_from_name(const char *name, tsr_cast_policy *out)
{
    if (name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "casting policy name must not be NULL");
    for (int p = 0; p < TSR_CAST_POLICY_COUNT; p++) {
        if (strcmp(name, policy_names[p]) == 0) {
            *out = (tsr_cast_policy)p;
            return TSR_OK;
        }
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "casting policy must be one of pytorch, oneflow, no, equiv, safe, "
                     "same_kind, unsafe (got '%.100s')",
                     name);
}

tsr_status tsr_check_output_cast(tsr_dtype common, tsr_dtype out_dtype, tsr_cast_policy policy)
{
    if (!tsr__dtype_valid(common))
        return invalid_dtype(common);
    if (!tsr__dtype_valid(out_dtype))
        return invalid_dtype(out_dtype);
    if ((unsigned)policy >= TSR_CAST_POLICY_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid casting policy %d", (int)policy);
    if (common == out_dtype || tsr_can_cast_policy(common, out_dtype, policy))
        return TSR_OK;
    return tsr__fail(TSR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                     tsr__dtypes[common].message_name, tsr__dtypes[out_dtype].message_name);
}

/* ---- default dtype ---------------------------------------------------- */

static _Atomic int default_dtype = TSR_FLOAT32;

static bool default_dtype_allowed(tsr_dtype d)
{
    return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || d == TSR_FLOAT32 || d == TSR_FLOAT64;
}

tsr_status tsr_set_default_dtype(tsr_dtype d)
{
    if (!tsr__dtype_valid(d))
        return tsr__fail(TSR_ERR_TYPE,
                         "invalid dtype object: only floating-point types are supported as the "
                         "default type");
    if (!tsr_dtype_is_floating_point(d))
        return tsr__fail(TSR_ERR_TYPE,
                         "only floating-point types are supported as the default type");
    if (!default_dtype_allowed(d))
        return tsr__fail(TSR_ERR_TYPE,
                         "%s is not supported as the default type (use float16, bfloat16, float32 "
                         "or float64)",
                         tsr__dtypes[d].name);
    atomic_store(&default_dtype, (int)d);
    return TSR_OK;
}

tsr_dtype tsr_get_default_dtype(void)
{
    return (tsr_dtype)atomic_load(&default_dtype);
}

static tsr_dtype complex_of_default(tsr_dtype d)
{
    if (d == TSR_FLOAT16)
        return TSR_COMPLEX32;
    if (d == TSR_FLOAT64)
        return TSR_COMPLEX128;
    return TSR_COMPLEX64;
}

tsr_dtype tsr_get_default_complex_dtype(void)
{
    return complex_of_default(tsr_get_default_dtype());
}

/* ---- result_type ------------------------------------------------------- */

#define UNDEF TSR_DTYPE_COUNT

/* promote, treating UNDEF as the identity */
static tsr_status promote_skip_undef(tsr_dtype a, tsr_dtype b, tsr_dtype *out)
{
    if (a == UNDEF) {
        *out = b;
        return TSR_OK;
    }
    if (b == UNDEF) {
        *out = a;
        return TSR_OK;
    }
    return tsr_promote_types(a, b, out);
}

/* c10's combine_categories: a lower tier only counts when its category is
 * higher, and then only as far as its category requires. */
static tsr_status combine(tsr_dtype higher, tsr_dtype lower, tsr_dtype *out)
{
    if (higher != UNDEF && tsr_dtype_is_complex(higher)) {
        *out = higher;
        return TSR_OK;
    }
    if (lower != UNDEF && tsr_dtype_is_complex(lower)) {
        if (higher != UNDEF && tsr_dtype_is_floating_point(higher))
            return tsr_dtype_to_complex(higher, out);
        *out = lower;
        return TSR_OK;
    }
    if (higher != UNDEF && tsr_dtype_is_floating_point(higher)) {
        *out = higher;
        return TSR_OK;
    }
    if (higher == TSR_BOOL || (lower != UNDEF && tsr_dtype_is_floating_point(lower)))
        return promote_skip_undef(higher, lower, out);
    *out = higher != UNDEF ? higher : lower;
    return TSR_OK;
}

/* The dtype a wrapped number stands for. */
static tsr_dtype scalar_dtype(tsr_dtype kind, tsr_dtype default_dtype_value)
{
    switch (tsr__dtypes[kind].category) {
    case TSR_CATEGORY_BOOL:
        return TSR_BOOL;
    case TSR_CATEGORY_INTEGRAL:
        return TSR_INT64;
    case TSR_CATEGORY_FLOATING:
        return default_dtype_value;
    default:
        return complex_of_default(default_dtype_value);
    }
}

tsr_status tsr_result_type_with_default(const tsr_operand *ops, size_t n, tsr_dtype dflt,
                                        tsr_dtype *out)
{
    if (ops == NULL || n == 0 || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "result_type needs at least one operand");
    if (!tsr__dtype_valid(dflt) || !default_dtype_allowed(dflt))
        return tsr__fail(TSR_ERR_TYPE,
                         "only floating-point types are supported as the default type");
    tsr_dtype tier[3] = {UNDEF, UNDEF, UNDEF}; /* dimensioned, zero-dim, wrapped */
    for (size_t i = 0; i < n; i++) {
        tsr_dtype d = ops[i].dtype;
        if (!tsr__dtype_valid(d))
            return invalid_dtype(d);
        unsigned t = (unsigned)ops[i].kind;
        if (t > TSR_OPERAND_SCALAR)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid operand kind %d", (int)t);
        if (t == TSR_OPERAND_SCALAR)
            d = scalar_dtype(d, dflt);
        tsr_status st = promote_skip_undef(tier[t], d, &tier[t]);
        if (st != TSR_OK)
            return st;
    }
    tsr_dtype low, r;
    tsr_status st = combine(tier[1], tier[2], &low);
    if (st == TSR_OK)
        st = combine(tier[0], low, &r);
    if (st != TSR_OK)
        return st;
    *out = r;
    return TSR_OK;
}

tsr_status tsr_result_type(const tsr_operand *ops, size_t n, tsr_dtype *out)
{
    return tsr_result_type_with_default(ops, n, tsr_get_default_dtype(), out);
}
