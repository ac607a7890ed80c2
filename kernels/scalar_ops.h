/* The elementwise operations, one element at a time, as PyTorch 1.13's
 * CPU kernels compute them, bit for bit (docs/semantics.md, "Elementwise
 * arithmetic", says which of PyTorch's paths each one follows).
 *
 * This header is compiled twice, like core/convert_scalar.h (which it
 * needs, and which must come first): as host C11 by the cpu loops, and as
 * OpenCL C 1.2 source that opencl/source.c embeds in every
 * generated program. So: plain arithmetic, the math builtins both
 * languages define exactly (fma, trunc, floor, fmod, copysign), no
 * pointers to memory, no undefined behaviour (integers wrap through
 * unsigned arithmetic), and no floating-point contraction (the host
 * build passes -ffp-contract=off, OpenCL programs say FP_CONTRACT OFF).
 *
 * Every compute dtype has a math type the operations work in:
 *   bool, uint8, int8, int16, int32, int64   tsr__u64 holding the value
 *                                            (sign-extended for signed;
 *                                            bool is 0 or 1)
 *   float16, bfloat16, float32               float
 *   float64                                  double
 *   complex32, complex64                     tsr__kc64 (two floats)
 *   complex128                               tsr__kc128 (two doubles)
 * tsr__k_<dtype>_in turns a stored element into its math value and
 * tsr__k_<dtype>_out rounds a math value back into a stored element.
 * Where PyTorch rounds to float16/bfloat16 inside an operation (c10::Half
 * and c10::BFloat16 arithmetic round after every step), the operation
 * does too, with tsr__k_r16 / tsr__k_rbf16.
 *
 * bool's functions are tsr__k_<op>_b8, most of them the integers' own
 * (tsr__k_<op>_int) under a second name; bitwise_not is where they
 * differ. An operation whose result is bool (comparisons, isnan, ...)
 * gives 0 or 1 in the common dtype's math type, which every conversion
 * into the output's dtype keeps exactly.
 *
 * Integer division by zero sets *bad and gives 0 (the caller reports
 * PyTorch's "ZeroDivisionError"). add takes alpha already converted to
 * the dtype (then widened); sub is add with alpha negated. */
#ifndef TESSERA_KERNELS_SCALAR_OPS_H
#define TESSERA_KERNELS_SCALAR_OPS_H

#ifdef __OPENCL_VERSION__

#define tsr__k_fmaf(a, b, c) fma(a, b, c)
#define tsr__k_fmodf(x, y) fmod(x, y)
#define tsr__k_copysignf(x, y) copysign(x, y)
#define tsr__k_fmad(a, b, c) fma(a, b, c)
#define tsr__k_fmodd(x, y) fmod(x, y)
#define tsr__k_copysignd(x, y) copysign(x, y)
/* The roundings to an integer, exact operations, as the compiler's own
 * where it has them (clang: one instruction on x86 since SSE4.1, in
 * vector loops too) rather than the OpenCL library's, which a CPU driver
 * may compute in a dozen instructions with a range check of their own
 * (PoCL's rint: its masks took half of a vectorised exp's instructions). */
#if defined(__clang__)
#define tsr__k_truncf(x) __builtin_truncf(x)
#define tsr__k_floorf(x) __builtin_floorf(x)
#define tsr__k_ceilf(x) __builtin_ceilf(x)
#define tsr__k_rintf(x) __builtin_rintf(x)
#define tsr__k_truncd(x) __builtin_trunc(x)
#define tsr__k_floord(x) __builtin_floor(x)
#define tsr__k_ceild(x) __builtin_ceil(x)
#define tsr__k_rintd(x) __builtin_rint(x)
#else
#define tsr__k_truncf(x) trunc(x)
#define tsr__k_floorf(x) floor(x)
#define tsr__k_ceilf(x) ceil(x)
#define tsr__k_rintf(x) rint(x)
#define tsr__k_truncd(x) trunc(x)
#define tsr__k_floord(x) floor(x)
#define tsr__k_ceild(x) ceil(x)
#define tsr__k_rintd(x) rint(x)
#endif
#define tsr__k_fabsf(x) fabs(x)
#define tsr__k_fabsd(x) fabs(x)
/* Correctly rounded: double's sqrt always is in OpenCL, float's under
 * -cl-fp32-correctly-rounded-divide-sqrt, which every program is built
 * with (core/kernel.h). */
#define tsr__k_sqrtf(x) sqrt(x)
#define tsr__k_sqrtd(x) sqrt(x)

static inline tsr__i64 tsr__k_signed(tsr__u64 u)
{
    return as_long(u);
}

#else /* host C */

#include <math.h>

#include "core/convert_scalar.h"

#define tsr__k_fmaf fmaf
#define tsr__k_truncf truncf
#define tsr__k_floorf floorf
#define tsr__k_fmodf fmodf
#define tsr__k_copysignf copysignf
#define tsr__k_fmad fma
#define tsr__k_truncd trunc
#define tsr__k_floord floor
#define tsr__k_fmodd fmod
#define tsr__k_copysignd copysign
#define tsr__k_ceilf ceilf
#define tsr__k_ceild ceil
#define tsr__k_rintf nearbyintf
#define tsr__k_rintd nearbyint
#define tsr__k_fabsf fabsf
#define tsr__k_fabsd fabs
#define tsr__k_sqrtf sqrtf
#define tsr__k_sqrtd sqrt

static inline tsr__i64 tsr__k_signed(tsr__u64 u)
{
    union {
        tsr__u64 u;
        tsr__i64 i;
    } v;
    v.u = u;
    return v.i;
}

#endif /* __OPENCL_VERSION__ */

/* The complex operations of c10::complex for one component type T, as
 * PyTorch 1.13's x86-64 build compiled them: GCC contracted some of
 * c10's products and sums into fused multiply-adds, so these spell out
 * the fmas it made (docs/semantics.md):
 *   product: (ac - bd) + (ad + bc)i, plain for complex64, with the first
 *     product of each part fused for complex128 (MUL_RE / MUL_IM);
 *   self + alpha * other: that product, then a plain sum (alpha 1 is
 *     1 + 0i, whose zero part can turn -0 into +0 and inf into NaN, as
 *     in PyTorch);
 *   quotient: PyTorch 1.13's textbook formula over c^2 + d^2, unscaled
 *     (it overflows where c^2 does), with the first product of the
 *     denominator and of each numerator fused. */
#define TSR__K_COMPLEX(Z, T, FMA, MUL_RE, MUL_IM)               \
    typedef struct Z {                                          \
        T re, im;                                               \
    } Z;                                                        \
    static inline Z Z##_make(T re, T im)                        \
    {                                                           \
        Z z;                                                    \
        z.re = re;                                              \
        z.im = im;                                              \
        return z;                                               \
    }                                                           \
    static inline Z Z##_mul(Z x, Z y)                           \
    {                                                           \
        return Z##_make(MUL_RE(x, y), MUL_IM(x, y));            \
    }                                                           \
    static inline Z Z##_add(Z a, Z b, Z alpha)                  \
    {                                                           \
        Z t = Z##_mul(alpha, b);                                \
        return Z##_make(a.re + t.re, a.im + t.im);              \
    }                                                           \
    static inline Z Z##_div(Z x, Z y)                           \
    {                                                           \
        T den = FMA(y.re, y.re, y.im * y.im);                   \
        return Z##_make(FMA(x.re, y.re, x.im * y.im) / den,     \
                        FMA(x.im, y.re, -(x.re * y.im)) / den); \
    }

#define TSR__K_MUL_RE(x, y) ((x).re * (y).re - (x).im * (y).im)
#define TSR__K_MUL_IM(x, y) ((x).re * (y).im + (x).im * (y).re)
#define TSR__K_MUL_RE_FUSED(x, y) tsr__k_fmad((x).re, (y).re, -((x).im * (y).im))
#define TSR__K_MUL_IM_FUSED(x, y) tsr__k_fmad((x).re, (y).im, (x).im *(y).re)

TSR__K_COMPLEX(tsr__kc64, float, tsr__k_fmaf, TSR__K_MUL_RE, TSR__K_MUL_IM)

/* ---- integers and bool: wrapping arithmetic on 64 bits ------------------ */

/* Stored integers -> math values (sign extension without signed
 * overflow), and back (the low bits). */
static inline tsr__u64 tsr__k_b8_in(tsr__u8 x)
{
    return x != 0 ? 1u : 0u;
}
static inline tsr__u64 tsr__k_u8_in(tsr__u8 x)
{
    return x;
}
static inline tsr__u64 tsr__k_i8_in(tsr__u8 x)
{
    return ((tsr__u64)x ^ 0x80u) - 0x80u;
}
static inline tsr__u64 tsr__k_i16_in(tsr__u16 x)
{
    return ((tsr__u64)x ^ 0x8000u) - 0x8000u;
}
static inline tsr__u64 tsr__k_i32_in(tsr__u32 x)
{
    return ((tsr__u64)x ^ 0x80000000u) - 0x80000000u;
}
static inline tsr__u64 tsr__k_i64_in(tsr__u64 x)
{
    return x;
}
static inline tsr__u8 tsr__k_b8_out(tsr__u64 x)
{
    return x != 0 ? 1 : 0;
}
static inline tsr__u8 tsr__k_u8_out(tsr__u64 x)
{
    return (tsr__u8)x;
}
#define tsr__k_i8_out tsr__k_u8_out
static inline tsr__u16 tsr__k_i16_out(tsr__u64 x)
{
    return (tsr__u16)x;
}
static inline tsr__u32 tsr__k_i32_out(tsr__u64 x)
{
    return (tsr__u32)x;
}
static inline tsr__u64 tsr__k_i64_out(tsr__u64 x)
{
    return x;
}

static inline tsr__u64 tsr__k_add_int(tsr__u64 a, tsr__u64 b, tsr__u64 alpha)
{
    return a + alpha * b;
}

static inline tsr__u64 tsr__k_mul_int(tsr__u64 a, tsr__u64 b)
{
    return a * b;
}

/* Truncating division on the signed values. INT64_MIN / -1 wraps to
 * INT64_MIN (PyTorch's x86 idiv traps there). */
static inline tsr__u64 tsr__k_divt_int(tsr__u64 a, tsr__u64 b, int *bad)
{
    tsr__i64 sa = tsr__k_signed(a), sb = tsr__k_signed(b);
    if (b == 0) {
        *bad = 1;
        return 0;
    }
    if (sb == -1)
        return 0 - a;
    return (tsr__u64)(sa / sb);
}

/* c10's floor division of integers: truncation, minus one when the signs
 * differ and the division is inexact. */
static inline tsr__u64 tsr__k_divf_int(tsr__u64 a, tsr__u64 b, int *bad)
{
    tsr__i64 sa = tsr__k_signed(a), sb = tsr__k_signed(b);
    if (b == 0) {
        *bad = 1;
        return 0;
    }
    if (sb == -1)
        return 0 - a;
    tsr__i64 q = sa / sb;
    if ((sa < 0) != (sb < 0) && q * sb != sa)
        q -= 1;
    return (tsr__u64)q;
}

/* fmod and remainder of the signed values: C's %, and Python's, whose
 * result takes the divisor's sign. x % -1 is 0 for every x (PyTorch's
 * x86 idiv traps on INT32_MIN and INT64_MIN there). */
static inline tsr__u64 tsr__k_fmod_int(tsr__u64 a, tsr__u64 b, int *bad)
{
    tsr__i64 sa = tsr__k_signed(a), sb = tsr__k_signed(b);
    if (b == 0) {
        *bad = 1;
        return 0;
    }
    if (sb == -1)
        return 0;
    return (tsr__u64)(sa % sb);
}
static inline tsr__u64 tsr__k_rem_int(tsr__u64 a, tsr__u64 b, int *bad)
{
    tsr__u64 r = tsr__k_fmod_int(a, b, bad);
    if (r != 0 && (tsr__k_signed(r) < 0) != (tsr__k_signed(b) < 0))
        r += b;
    return r;
}

/* Shifts as PyTorch 1.13's loops compute them in C: below int64 the
 * operands are promoted to int, so the count is taken modulo 32 (x86's
 * shift instructions mask it), in int64 modulo 64; a negative count is
 * read by its low bits alike. The result's low `bits` bits are the
 * dtype's; right shifts are arithmetic on the signed values (uint8's are
 * never negative). */
static inline tsr__u64 tsr__k_shl_int(tsr__u64 a, tsr__u64 b, int bits)
{
    return a << (b & (bits == 64 ? 63u : 31u));
}
static inline tsr__u64 tsr__k_shr_int(tsr__u64 a, tsr__u64 b, int bits)
{
    tsr__u64 s = b & (bits == 64 ? 63u : 31u);
    return tsr__k_signed(a) < 0 ? ~(~a >> s) : a >> s;
}

/* pow of the integers as PyTorch 1.13's powi: repeated squaring in 64
 * bits, whose low bits are the dtype's (the products wrap as its own
 * do); a negative exponent gives 1 for a base of 1, +-1 for -1 (by the
 * exponent's parity) and 0 for any other base, 0 included. pows (a
 * Python-number exponent, never negative here) is the same function. */
static inline tsr__u64 tsr__k_pow_int(tsr__u64 a, tsr__u64 b)
{
    if (tsr__k_signed(b) < 0)
        return a == 1 || a + 1 == 0 ? ((b & 1) ? a : 1) : 0;
    tsr__u64 r = 1;
    for (; b != 0; b >>= 1, a *= a)
        if (b & 1)
            r *= a;
    return r;
}
#define tsr__k_pows_int tsr__k_pow_int

/* maximum and minimum as std::max and std::min: the first input unless
 * it is less than the second (than which the second is less), compared
 * as signed values (uint8's are never negative); on bool's 0 and 1 they
 * are PyTorch's `a || b` and `a && b`. */
static inline tsr__u64 tsr__k_max_int(tsr__u64 a, tsr__u64 b)
{
    return tsr__k_signed(a) < tsr__k_signed(b) ? b : a;
}
static inline tsr__u64 tsr__k_min_int(tsr__u64 a, tsr__u64 b)
{
    return tsr__k_signed(b) < tsr__k_signed(a) ? b : a;
}

/* The unary operations on the signed values (uint8's are never
 * negative): abs and neg wrap (abs(INT_MIN) is INT_MIN), sign is
 * (0 < x) - (x < 0), relu clamps below at 0; floor, ceil, trunc and round
 * of an integer are the integer itself. */
static inline tsr__u64 tsr__k_abs_int(tsr__u64 x)
{
    return tsr__k_signed(x) < 0 ? 0 - x : x;
}
static inline tsr__u64 tsr__k_neg_int(tsr__u64 x)
{
    return 0 - x;
}
static inline tsr__u64 tsr__k_sign_int(tsr__u64 x)
{
    tsr__i64 s = tsr__k_signed(x);
    return (tsr__u64)((s > 0) - (s < 0));
}
static inline tsr__u64 tsr__k_sq_int(tsr__u64 x)
{
    return x * x;
}
static inline tsr__u64 tsr__k_relu_int(tsr__u64 x)
{
    return tsr__k_signed(x) < 0 ? 0 : x;
}
static inline tsr__u64 tsr__k_same_int(tsr__u64 x)
{
    return x;
}
#define tsr__k_floor_int tsr__k_same_int
#define tsr__k_ceil_int tsr__k_same_int
#define tsr__k_trunc_int tsr__k_same_int
#define tsr__k_round_int tsr__k_same_int
static inline tsr__u64 tsr__k_bnot_int(tsr__u64 x)
{
    return ~x;
}
static inline tsr__u64 tsr__k_zero_int(tsr__u64 x)
{
    return x & 0;
}
static inline tsr__u64 tsr__k_one_int(tsr__u64 x)
{
    return (x & 0) | 1;
}
#define tsr__k_isnan_int tsr__k_zero_int
#define tsr__k_isinf_int tsr__k_zero_int
#define tsr__k_isfin_int tsr__k_one_int
static inline tsr__u64 tsr__k_sbit_int(tsr__u64 x)
{
    return tsr__k_signed(x) < 0;
}
static inline tsr__u64 tsr__k_lnot_int(tsr__u64 x)
{
    return x == 0;
}

/* Comparisons, logical and bitwise operations; fmax and fmin are maximum
 * and minimum where no NaN can be. */
#define TSR__K_INT_BINARY(name, EXPR)                        \
    static inline tsr__u64 name(tsr__u64 x, tsr__u64 y)      \
    {                                                        \
        tsr__i64 a = tsr__k_signed(x), b = tsr__k_signed(y); \
        (void)a, (void)b;                                    \
        return (tsr__u64)(EXPR);                             \
    }
TSR__K_INT_BINARY(tsr__k_eq_int, x == y)
TSR__K_INT_BINARY(tsr__k_ne_int, x != y)
TSR__K_INT_BINARY(tsr__k_lt_int, a < b)
TSR__K_INT_BINARY(tsr__k_le_int, a <= b)
TSR__K_INT_BINARY(tsr__k_gt_int, a > b)
TSR__K_INT_BINARY(tsr__k_ge_int, a >= b)
TSR__K_INT_BINARY(tsr__k_land_int, x != 0 && y != 0)
TSR__K_INT_BINARY(tsr__k_lor_int, x != 0 || y != 0)
TSR__K_INT_BINARY(tsr__k_lxor_int, (x != 0) != (y != 0))
TSR__K_INT_BINARY(tsr__k_band_int, x &y)
TSR__K_INT_BINARY(tsr__k_bor_int, x | y)
TSR__K_INT_BINARY(tsr__k_bxor_int, x ^ y)
#define tsr__k_fmax_int tsr__k_max_int
#define tsr__k_fmin_int tsr__k_min_int

/* bool: the integers' functions on 0 and 1, but bitwise_not, which is
 * logical there. */
#define tsr__k_add_b8 tsr__k_add_int
#define tsr__k_mul_b8 tsr__k_mul_int
#define tsr__k_max_b8 tsr__k_max_int
#define tsr__k_min_b8 tsr__k_min_int
#define tsr__k_sign_b8 tsr__k_sign_int
#define tsr__k_bnot_b8 tsr__k_lnot_int
#define tsr__k_lnot_b8 tsr__k_lnot_int
#define tsr__k_isnan_b8 tsr__k_isnan_int
#define tsr__k_isinf_b8 tsr__k_isinf_int
#define tsr__k_isfin_b8 tsr__k_isfin_int
#define tsr__k_sbit_b8 tsr__k_sbit_int
#define tsr__k_eq_b8 tsr__k_eq_int
#define tsr__k_ne_b8 tsr__k_ne_int
#define tsr__k_lt_b8 tsr__k_lt_int
#define tsr__k_le_b8 tsr__k_le_int
#define tsr__k_gt_b8 tsr__k_gt_int
#define tsr__k_ge_b8 tsr__k_ge_int
#define tsr__k_land_b8 tsr__k_land_int
#define tsr__k_lor_b8 tsr__k_lor_int
#define tsr__k_lxor_b8 tsr__k_lxor_int
#define tsr__k_band_b8 tsr__k_band_int
#define tsr__k_bor_b8 tsr__k_bor_int
#define tsr__k_bxor_b8 tsr__k_bxor_int
#define tsr__k_fmax_b8 tsr__k_max_int
#define tsr__k_fmin_b8 tsr__k_min_int

/* where: the condition, converted to the common dtype as every input is,
 * is nonzero exactly where it was true; the value picked is returned
 * as it is. */
static inline tsr__u64 tsr__k_where_int(tsr__u64 c, tsr__u64 x, tsr__u64 y)
{
    return c != 0 ? x : y;
}
#define tsr__k_where_b8 tsr__k_where_int

/* clamp with both bounds: std::min(std::max(x, lo), hi), as PyTorch's
 * element loop computes it (a NaN bound gives quiet_NaN() in the
 * floating types below). */
static inline tsr__u64 tsr__k_clamp_int(tsr__u64 x, tsr__u64 lo, tsr__u64 hi)
{
    return tsr__k_min_int(tsr__k_max_int(x, lo), hi);
}

/* clamp with one Python-number bound, as PyTorch 1.13's clamp_min and
 * clamp_max scalar loops: std::max(x, min) and std::min(x, max), which
 * keep x on a tie and where either is NaN (a NaN bound changes nothing). */
#define TSR__K_CLAMP_ONE(T, sfx)                    \
    static inline T tsr__k_cmin_##sfx(T x, T bound) \
    {                                               \
        return x < bound ? bound : x;               \
    }                                               \
    static inline T tsr__k_cmax_##sfx(T x, T bound) \
    {                                               \
        return bound < x ? bound : x;               \
    }
static inline tsr__u64 tsr__k_cmin_int(tsr__u64 x, tsr__u64 bound)
{
    return tsr__k_signed(x) < tsr__k_signed(bound) ? bound : x;
}
static inline tsr__u64 tsr__k_cmax_int(tsr__u64 x, tsr__u64 bound)
{
    return tsr__k_signed(bound) < tsr__k_signed(x) ? bound : x;
}

/* addcmul: self + value * t1 * t2, wrapping. */
static inline tsr__u64 tsr__k_addcmul_int(tsr__u64 x, tsr__u64 y, tsr__u64 z, tsr__u64 v)
{
    return x + v * y * z;
}

/* The floating maximum and minimum of PyTorch's loops: a NaN in either
 * input gives quiet_NaN() (positive, no payload), else std::max or
 * std::min, so that max(0, -0) is 0 and max(-0, 0) is -0. The result is
 * exact, so float16 and bfloat16 compute it in float. */
#define TSR__K_MAX_MIN(max, min, T, NAN_VALUE) \
    static inline T max(T a, T b)              \
    {                                          \
        if (a != a || b != b)                  \
            return NAN_VALUE;                  \
        return a < b ? b : a;                  \
    }                                          \
    static inline T min(T a, T b)              \
    {                                          \
        if (a != a || b != b)                  \
            return NAN_VALUE;                  \
        return b < a ? b : a;                  \
    }

#define TSR__K_QUIET_NAN tsr__float_from_bits(0x7FC00000u)

/* The exactly defined operations of one real type T (float or double),
 * as PyTorch 1.13's cpu loops give them: sign is (0 < x) - (x < 0), so
 * +0 for a zero or a NaN; relu keeps -0 and NaN (std::max(x, 0)); round
 * is to nearest even; fmax and fmin take the number where one input is
 * NaN and otherwise keep the first input on a tie (as PyTorch 1.13's
 * std::fmax gives it), so fmax(-0, 0) is -0 and fmax(0, -0) is 0. Results
 * that are bool are 1 or 0 in T. */
/* clamp of a real type T: a NaN bound gives quiet_NaN() (positive, no
 * payload), else std::min(std::max(x, lo), hi), whose ties keep the
 * first operand (clamp(-0, 0, 1) is -0) and which passes x's NaN on.
 * PyTorch's vectorised loop answers ties with the second operand; its
 * element loop, which this is, runs where the operands are strided or
 * few. */
#define TSR__K_CLAMP(T, sfx, NAN_VALUE)                 \
    static inline T tsr__k_clamp_##sfx(T x, T lo, T hi) \
    {                                                   \
        if (lo != lo || hi != hi)                       \
            return NAN_VALUE;                           \
        T m = x < lo ? lo : x;                          \
        return hi < m ? hi : m;                         \
    }

/* where of a real type T (float16 and bfloat16 pick in float: a value
 * that comes back to its dtype unchanged). */
#define TSR__K_WHERE(T, sfx)                          \
    static inline T tsr__k_where_##sfx(T c, T x, T y) \
    {                                                 \
        return c != 0 ? x : y;                        \
    }

#define TSR__K_REAL_OPS(T, sfx, FLOOR, CEIL, TRUNC, RINT, FABS, SQRT, COPYSIGN) \
    static inline T tsr__k_abs_##sfx(T x)                                       \
    {                                                                           \
        return FABS(x);                                                         \
    }                                                                           \
    static inline T tsr__k_neg_##sfx(T x)                                       \
    {                                                                           \
        return -x;                                                              \
    }                                                                           \
    static inline T tsr__k_sign_##sfx(T x)                                      \
    {                                                                           \
        return (T)((x > 0) - (x < 0));                                          \
    }                                                                           \
    static inline T tsr__k_sq_##sfx(T x)                                        \
    {                                                                           \
        return x * x;                                                           \
    }                                                                           \
    static inline T tsr__k_recip_##sfx(T x)                                     \
    {                                                                           \
        return (T)1 / x;                                                        \
    }                                                                           \
    static inline T tsr__k_floor_##sfx(T x)                                     \
    {                                                                           \
        return FLOOR(x);                                                        \
    }                                                                           \
    static inline T tsr__k_ceil_##sfx(T x)                                      \
    {                                                                           \
        return CEIL(x);                                                         \
    }                                                                           \
    static inline T tsr__k_trunc_##sfx(T x)                                     \
    {                                                                           \
        return TRUNC(x);                                                        \
    }                                                                           \
    static inline T tsr__k_round_##sfx(T x)                                     \
    {                                                                           \
        return RINT(x);                                                         \
    }                                                                           \
    static inline T tsr__k_relu_##sfx(T x)                                      \
    {                                                                           \
        return x < 0 ? (T)0 : x;                                                \
    }                                                                           \
    static inline T tsr__k_lnot_##sfx(T x)                                      \
    {                                                                           \
        return (T)(x == 0);                                                     \
    }                                                                           \
    static inline T tsr__k_isnan_##sfx(T x)                                     \
    {                                                                           \
        return (T)(x != x);                                                     \
    }                                                                           \
    static inline T tsr__k_isinf_##sfx(T x)                                     \
    {                                                                           \
        return (T)(x == (T)INFINITY || x == -(T)INFINITY);                      \
    }                                                                           \
    static inline T tsr__k_isfin_##sfx(T x)                                     \
    {                                                                           \
        return (T)(x == x && x != (T)INFINITY && x != -(T)INFINITY);            \
    }                                                                           \
    static inline T tsr__k_sbit_##sfx(T x)                                      \
    {                                                                           \
        return (T)(COPYSIGN((T)1, x) < 0);                                      \
    }                                                                           \
    static inline T tsr__k_frac_##sfx(T x)                                      \
    {                                                                           \
        return x - TRUNC(x);                                                    \
    }                                                                           \
    static inline T tsr__k_sqrt_##sfx(T x)                                      \
    {                                                                           \
        return SQRT(x);                                                         \
    }                                                                           \
    static inline T tsr__k_eq_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x == y);                                                     \
    }                                                                           \
    static inline T tsr__k_ne_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x != y);                                                     \
    }                                                                           \
    static inline T tsr__k_lt_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x < y);                                                      \
    }                                                                           \
    static inline T tsr__k_le_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x <= y);                                                     \
    }                                                                           \
    static inline T tsr__k_gt_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x > y);                                                      \
    }                                                                           \
    static inline T tsr__k_ge_##sfx(T x, T y)                                   \
    {                                                                           \
        return (T)(x >= y);                                                     \
    }                                                                           \
    static inline T tsr__k_land_##sfx(T x, T y)                                 \
    {                                                                           \
        return (T)(x != 0 && y != 0);                                           \
    }                                                                           \
    static inline T tsr__k_lor_##sfx(T x, T y)                                  \
    {                                                                           \
        return (T)(x != 0 || y != 0);                                           \
    }                                                                           \
    static inline T tsr__k_lxor_##sfx(T x, T y)                                 \
    {                                                                           \
        return (T)((x != 0) != (y != 0));                                       \
    }                                                                           \
    static inline T tsr__k_fmax_##sfx(T x, T y)                                 \
    {                                                                           \
        if (x != x)                                                             \
            return y;                                                           \
        if (y != y)                                                             \
            return x;                                                           \
        return y > x ? y : x;                                                   \
    }                                                                           \
    static inline T tsr__k_fmin_##sfx(T x, T y)                                 \
    {                                                                           \
        if (x != x)                                                             \
            return y;                                                           \
        if (y != y)                                                             \
            return x;                                                           \
        return y < x ? y : x;                                                   \
    }                                                                           \
    static inline T tsr__k_csign_##sfx(T x, T y)                                \
    {                                                                           \
        return COPYSIGN(x, y);                                                  \
    }

/* float16 and bfloat16 compute these in float: each is exact, or one
 * rounding of float's result (reciprocal, sqrt), as PyTorch's loops
 * round them. */
#define TSR__K_REDUCED_UNARY(op, sfx)                \
    static inline float tsr__k_##op##_##sfx(float x) \
    {                                                \
        return tsr__k_##op##_f32(x);                 \
    }
#define TSR__K_REDUCED_BINARY(op, sfx)                        \
    static inline float tsr__k_##op##_##sfx(float x, float y) \
    {                                                         \
        return tsr__k_##op##_f32(x, y);                       \
    }
/* fmax and fmin of float16 and bfloat16 keep the second input on a tie
 * (std::fmax of the values widened to float, which glibc's fmaxf is). */
#define TSR__K_REDUCED_SWAPPED(op, sfx)                       \
    static inline float tsr__k_##op##_##sfx(float x, float y) \
    {                                                         \
        return tsr__k_##op##_f32(y, x);                       \
    }
#define TSR__K_REDUCED_OPS(sfx)                                                               \
    TSR__K_REDUCED_UNARY(abs, sfx)                                                            \
    TSR__K_REDUCED_UNARY(neg, sfx)                                                            \
    TSR__K_REDUCED_UNARY(sign, sfx)                                                           \
    TSR__K_REDUCED_UNARY(sq, sfx)                                                             \
    TSR__K_REDUCED_UNARY(recip, sfx)                                                          \
    TSR__K_REDUCED_UNARY(floor, sfx)                                                          \
    TSR__K_REDUCED_UNARY(ceil, sfx)                                                           \
    TSR__K_REDUCED_UNARY(trunc, sfx) TSR__K_REDUCED_UNARY(round, sfx)                         \
        TSR__K_REDUCED_UNARY(relu, sfx) TSR__K_REDUCED_UNARY(lnot, sfx)                       \
            TSR__K_REDUCED_UNARY(isnan, sfx) TSR__K_REDUCED_UNARY(isinf, sfx)                 \
                TSR__K_REDUCED_UNARY(isfin, sfx) TSR__K_REDUCED_UNARY(sbit, sfx)              \
                    TSR__K_REDUCED_UNARY(frac, sfx) TSR__K_REDUCED_UNARY(sqrt, sfx)           \
                        TSR__K_REDUCED_BINARY(eq, sfx) TSR__K_REDUCED_BINARY(ne, sfx)         \
                            TSR__K_REDUCED_BINARY(lt, sfx) TSR__K_REDUCED_BINARY(le, sfx)     \
                                TSR__K_REDUCED_BINARY(gt, sfx) TSR__K_REDUCED_BINARY(ge, sfx) \
                                    TSR__K_REDUCED_BINARY(land, sfx)                          \
                                        TSR__K_REDUCED_BINARY(lor, sfx)                       \
                                            TSR__K_REDUCED_BINARY(lxor, sfx)                  \
                                                TSR__K_REDUCED_SWAPPED(fmax, sfx)             \
                                                    TSR__K_REDUCED_SWAPPED(fmin, sfx)         \
                                                        TSR__K_REDUCED_BINARY(csign, sfx)

/* The exactly defined operations of complex numbers Z (parts T); a bool
 * result is 1 + 0i or 0. */
#define TSR__K_COMPLEX_OPS(Z, T, sfx)                                                          \
    static inline Z tsr__k_truth_##sfx(int v)                                                  \
    {                                                                                          \
        return Z##_make((T)v, (T)0);                                                           \
    }                                                                                          \
    static inline Z tsr__k_lnot_##sfx(Z x)                                                     \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re == 0 && x.im == 0);                                     \
    }                                                                                          \
    static inline Z tsr__k_isnan_##sfx(Z x)                                                    \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re != x.re || x.im != x.im);                               \
    }                                                                                          \
    static inline Z tsr__k_isinf_##sfx(Z x)                                                    \
    {                                                                                          \
        T inf = (T)INFINITY;                                                                   \
        return tsr__k_truth_##sfx(x.re == inf || x.re == -inf || x.im == inf || x.im == -inf); \
    }                                                                                          \
    static inline Z tsr__k_isfin_##sfx(Z x)                                                    \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re - x.re == 0 && x.im - x.im == 0);                       \
    }                                                                                          \
    static inline Z tsr__k_eq_##sfx(Z x, Z y)                                                  \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re == y.re && x.im == y.im);                               \
    }                                                                                          \
    static inline Z tsr__k_ne_##sfx(Z x, Z y)                                                  \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re != y.re || x.im != y.im);                               \
    }                                                                                          \
    static inline Z tsr__k_land_##sfx(Z x, Z y)                                                \
    {                                                                                          \
        return tsr__k_truth_##sfx((x.re != 0 || x.im != 0) && (y.re != 0 || y.im != 0));       \
    }                                                                                          \
    static inline Z tsr__k_lor_##sfx(Z x, Z y)                                                 \
    {                                                                                          \
        return tsr__k_truth_##sfx(x.re != 0 || x.im != 0 || y.re != 0 || y.im != 0);           \
    }                                                                                          \
    static inline Z tsr__k_lxor_##sfx(Z x, Z y)                                                \
    {                                                                                          \
        return tsr__k_truth_##sfx((x.re != 0 || x.im != 0) != (y.re != 0 || y.im != 0));       \
    }                                                                                          \
    static inline Z tsr__k_where_##sfx(Z c, Z x, Z y)                                          \
    {                                                                                          \
        return c.re != 0 || c.im != 0 ? x : y;                                                 \
    }

/* lerp, addcmul and addcdiv of a real type T as PyTorch 1.13's cpu loops
 * compute them, GCC having fused each product into the sum that follows
 * it (docs/semantics.md):
 *   lerp: start + w * (end - start) while w < 0.5 (w itself, not its
 *     magnitude: -3 counts as small), else end - (end - start) * (1 - w)
 *     as fma(-(end - start), 1 - w, end) (the sign of a zero result
 *     depends on it);
 *   addcmul: self + (v * t1) * t2, the second product fused;
 *   addcdiv: self + (v * t1) / t2, nothing fused.
 * bfloat16 computes in float from a value that is a float (PyTorch's
 * Scalar::to<float>, not rounded to bfloat16) and rounds once. */
#define TSR__K_LERP_ADDC(T, sfx, FMA)                            \
    static inline T tsr__k_lerp_##sfx(T s, T e, T w)             \
    {                                                            \
        T d = e - s;                                             \
        return w < (T)0.5 ? FMA(w, d, s) : FMA(-d, (T)1 - w, e); \
    }                                                            \
    static inline T tsr__k_addcmul_##sfx(T x, T y, T z, T v)     \
    {                                                            \
        return FMA(v * y, z, x);                                 \
    }                                                            \
    static inline T tsr__k_addcdiv_##sfx(T x, T y, T z, T v)     \
    {                                                            \
        return x + v * y / z;                                    \
    }

/* The same of complex numbers Z (parts T), as c10::complex's element
 * loops compute them (their vectorised loops fuse nothing and differ:
 * the conformance cases take the element loop): every complex product
 * with its first product fused into each part (MULF), the quotient as
 * Z##_div; lerp's weight is small where |w| < 0.5, |w| being glibc's
 * hypot (SMALL). */
#define TSR__K_LERP_ADDC_COMPLEX(Z, T, sfx, FMA, SMALL)                                 \
    static inline Z Z##_mulf(Z a, Z b)                                                  \
    {                                                                                   \
        return Z##_make(FMA(a.re, b.re, -(a.im * b.im)), FMA(a.re, b.im, a.im * b.re)); \
    }                                                                                   \
    static inline Z tsr__k_lerp_##sfx(Z s, Z e, Z w)                                    \
    {                                                                                   \
        Z d = Z##_make(e.re - s.re, e.im - s.im), t;                                    \
        if (SMALL(w.re, w.im)) {                                                        \
            t = Z##_mulf(w, d);                                                         \
            return Z##_make(s.re + t.re, s.im + t.im);                                  \
        }                                                                               \
        t = Z##_mulf(d, Z##_make((T)1 - w.re, (T)0 - w.im));                            \
        return Z##_make(e.re - t.re, e.im - t.im);                                      \
    }                                                                                   \
    static inline Z tsr__k_addcmul_##sfx(Z x, Z y, Z z, Z v)                            \
    {                                                                                   \
        Z t = Z##_mulf(Z##_mulf(v, y), z);                                              \
        return Z##_make(x.re + t.re, x.im + t.im);                                      \
    }                                                                                   \
    static inline Z tsr__k_addcdiv_##sfx(Z x, Z y, Z z, Z v)                            \
    {                                                                                   \
        Z t = Z##_div(Z##_mulf(v, y), z);                                               \
        return Z##_make(x.re + t.re, x.im + t.im);                                      \
    }

/* ---- float32 and float64 ------------------------------------------------ */

TSR__K_REAL_OPS(float, f32, tsr__k_floorf, tsr__k_ceilf, tsr__k_truncf, tsr__k_rintf, tsr__k_fabsf,
                tsr__k_sqrtf, tsr__k_copysignf)
TSR__K_REDUCED_OPS(f16)
TSR__K_REDUCED_OPS(bf16)
TSR__K_WHERE(float, f32)
TSR__K_WHERE(float, f16)
TSR__K_WHERE(float, bf16)
TSR__K_CLAMP(float, f32, TSR__K_QUIET_NAN)
TSR__K_CLAMP(float, f16, TSR__K_QUIET_NAN)
TSR__K_CLAMP(float, bf16, TSR__K_QUIET_NAN)

TSR__K_MAX_MIN(tsr__k_max_f32, tsr__k_min_f32, float, TSR__K_QUIET_NAN)
TSR__K_LERP_ADDC(float, f32, tsr__k_fmaf)
TSR__K_CLAMP_ONE(float, f32)
#define tsr__k_cmin_bf16 tsr__k_cmin_f32
#define tsr__k_cmax_bf16 tsr__k_cmax_f32
#define tsr__k_cmin_f16 tsr__k_cmin_f32
#define tsr__k_cmax_f16 tsr__k_cmax_f32
#define tsr__k_lerp_bf16 tsr__k_lerp_f32
#define tsr__k_addcmul_bf16 tsr__k_addcmul_f32
#define tsr__k_addcdiv_bf16 tsr__k_addcdiv_f32
/* float16's are refused before they run (TSR__KOPF_NO_HALF) */
#define tsr__k_lerp_f16 tsr__k_lerp_f32
#define tsr__k_addcmul_f16 tsr__k_addcmul_f32
#define tsr__k_addcdiv_f16 tsr__k_addcdiv_f32

/* a + alpha * b with one rounding (PyTorch's CPU kernels fuse it); alpha
 * 1 and -1 are plain sums, which round identically. */
static inline float tsr__k_add_f32(float a, float b, float alpha)
{
    if (alpha == 1.0f)
        return a + b;
    if (alpha == -1.0f)
        return a - b;
    return tsr__k_fmaf(alpha, b, a);
}

/* The floating floor division of c10 (div_floor_floating): fmod, an exact
 * correction, floor, and a round-half-up guard; a zero quotient takes the
 * sign of a / b. Where fmod would make a NaN the result is spelled out, as
 * x86 and glibc's fmod give it (OpenCL's fmod may give another NaN): a NaN
 * operand propagates as in a + b, an infinite a gives inf - inf's NaN. R rounds the intermediate floordiv the way c10::Half and
 * c10::BFloat16 assignments do (identity for float and double). */
#define TSR__K_DIV_FLOOR(name, T, R, FLOOR, FMOD, COPYSIGN) \
    static inline T name(T a, T b)                          \
    {                                                       \
        if (b == 0)                                         \
            return a / b;                                   \
        if (a != a || b != b)                               \
            return a + b;                                   \
        if (a - a != 0)                                     \
            return a - a;                                   \
        T mod = FMOD(a, b);                                 \
        T div = (a - mod) / b;                              \
        if (mod != 0 && (b < 0) != (mod < 0))               \
            div -= (T)1;                                    \
        T q;                                                \
        if (div != 0) {                                     \
            q = R(FLOOR(div));                              \
            if (div - q > (T)0.5)                           \
                q = R(q + (T)1);                            \
        } else {                                            \
            q = COPYSIGN((T)0, a / b);                      \
        }                                                   \
        return q;                                           \
    }

#define TSR__K_SAME(x) (x)

/* fmod as glibc's: exact where it is defined; where it is not (a NaN
 * operand, an infinite a, a zero b) the NaN is spelled out as glibc makes
 * it, (a * b) / (a * b), since OpenCL's fmod may give another. remainder
 * is Python's: fmod, plus b where the signs of b and a nonzero fmod
 * differ (one rounding). float16 and bfloat16 compute in float: fmod is
 * exact, and the sum is rounded once on the way out, as c10::Half's
 * `mod += b` rounds it. */
#define TSR__K_FMOD_OPS(T, sfx, FMOD)                 \
    static inline T tsr__k_fmod_##sfx(T a, T b)       \
    {                                                 \
        if (a != a || b != b || a - a != 0 || b == 0) \
            return (a * b) / (a * b);                 \
        return FMOD(a, b);                            \
    }                                                 \
    static inline T tsr__k_rem_##sfx(T a, T b)        \
    {                                                 \
        T mod = tsr__k_fmod_##sfx(a, b);              \
        if (mod != 0 && (b < 0) != (mod < 0))         \
            mod += b;                                 \
        return mod;                                   \
    }

TSR__K_DIV_FLOOR(tsr__k_divf_f32, float, TSR__K_SAME, tsr__k_floorf, tsr__k_fmodf, tsr__k_copysignf)
TSR__K_FMOD_OPS(float, f32, tsr__k_fmodf)
#define tsr__k_fmod_f16 tsr__k_fmod_f32
#define tsr__k_fmod_bf16 tsr__k_fmod_f32
#define tsr__k_rem_f16 tsr__k_rem_f32
#define tsr__k_rem_bf16 tsr__k_rem_f32

static inline float tsr__k_divt_f32(float a, float b)
{
    return tsr__k_truncf(a / b);
}

/* Products and quotients: plain IEEE operations (named so that every
 * device calls them by the op table's element name). */
static inline float tsr__k_mul_f32(float a, float b)
{
    return a * b;
}
static inline float tsr__k_div_f32(float a, float b)
{
    return a / b;
}

/* ---- float16 and bfloat16: float math, rounded where c10 rounds -------- */

/* One product or quotient in float, rounded once at the end (as
 * PyTorch's vectorised loops compute them). */
#define tsr__k_mul_f16 tsr__k_mul_f32
#define tsr__k_mul_bf16 tsr__k_mul_f32
#define tsr__k_div_f16 tsr__k_div_f32
#define tsr__k_div_bf16 tsr__k_div_f32
#define tsr__k_max_f16 tsr__k_max_f32
#define tsr__k_max_bf16 tsr__k_max_f32
#define tsr__k_min_f16 tsr__k_min_f32
#define tsr__k_min_bf16 tsr__k_min_f32

static inline float tsr__k_f16_in(tsr__u16 h)
{
    return tsr__float_from_bits(tsr__f16_to_f32(h));
}
/* c10::Half's constructor: NaN becomes s|7E00. */
static inline tsr__u16 tsr__k_f16_out(float x)
{
    return tsr__f32_to_f16(tsr__float_bits(x), false);
}
static inline float tsr__k_bf16_in(tsr__u16 h)
{
    return tsr__float_from_bits(tsr__bf16_to_f32(h));
}
/* c10::BFloat16's constructor: NaN becomes 7FC0. */
static inline tsr__u16 tsr__k_bf16_out(float x)
{
    return tsr__f32_to_bf16(tsr__float_bits(x), false);
}
static inline float tsr__k_r16(float x)
{
    return tsr__k_f16_in(tsr__k_f16_out(x));
}
static inline float tsr__k_rbf16(float x)
{
    return tsr__k_bf16_in(tsr__k_bf16_out(x));
}

/* self + alpha * other in c10::Half (c10::BFloat16) arithmetic: the
 * product is rounded to the reduced type before the sum (it is exact in
 * float, both factors being reduced). */
#define TSR__K_ADD_REDUCED(name, R)                         \
    static inline float name(float a, float b, float alpha) \
    {                                                       \
        if (alpha == 1.0f)                                  \
            return a + b;                                   \
        if (alpha == -1.0f)                                 \
            return a - b;                                   \
        return a + R(alpha * b);                            \
    }

TSR__K_ADD_REDUCED(tsr__k_add_f16, tsr__k_r16)
TSR__K_ADD_REDUCED(tsr__k_add_bf16, tsr__k_rbf16)

/* std::trunc(a / b) on c10::Half: the quotient is rounded first. */
static inline float tsr__k_divt_f16(float a, float b)
{
    return tsr__k_truncf(tsr__k_r16(a / b));
}
static inline float tsr__k_divt_bf16(float a, float b)
{
    return tsr__k_truncf(tsr__k_rbf16(a / b));
}

TSR__K_DIV_FLOOR(tsr__k_divf_f16, float, tsr__k_r16, tsr__k_floorf, tsr__k_fmodf, tsr__k_copysignf)
TSR__K_DIV_FLOOR(tsr__k_divf_bf16, float, tsr__k_rbf16, tsr__k_floorf, tsr__k_fmodf,
                 tsr__k_copysignf)

/* ---- complex64 and complex32 -------------------------------------------- */

#define tsr__k_mul_c64 tsr__kc64_mul
#define tsr__k_add_c64 tsr__kc64_add
#define tsr__k_div_c64 tsr__kc64_div

/* complex32's product computes in complex64 and rounds once. */
#define tsr__k_mul_c32 tsr__kc64_mul

TSR__K_COMPLEX_OPS(tsr__kc64, float, c64)
TSR__K_COMPLEX_OPS(tsr__kc64, float, c32)

/* Negation is c10's -z (PyTorch's vector loop computes 0 - z, which
 * differs on zero parts; its tails and strided loops compute -z). */
static inline tsr__kc64 tsr__k_neg_c64(tsr__kc64 x)
{
    return tsr__kc64_make(-x.re, -x.im);
}
#define tsr__k_neg_c32 tsr__k_neg_c64

static inline tsr__kc64 tsr__k_c32_in(tsr__u16 re, tsr__u16 im)
{
    return tsr__kc64_make(tsr__k_f16_in(re), tsr__k_f16_in(im));
}

/* complex32's add runs in c10::complex<c10::Half>: every product and sum
 * is rounded to float16. (mul computes in complex64 and rounds once.) */
static inline tsr__kc64 tsr__k_add_c32(tsr__kc64 a, tsr__kc64 b, tsr__kc64 alpha)
{
    float re = tsr__k_r16(tsr__k_r16(alpha.re * b.re) - tsr__k_r16(alpha.im * b.im));
    float im = tsr__k_r16(tsr__k_r16(alpha.re * b.im) + tsr__k_r16(alpha.im * b.re));
    return tsr__kc64_make(a.re + re, a.im + im);
}

/* |w| < 0.5 for a complex64 weight, |w| being glibc's hypotf: the float
 * nearest to the square root, taken in double, of the squares' sum. */
static inline int tsr__k_lerp_small_c64(float re, float im)
{
#ifdef TSR_CONV_HAVE_DOUBLE
    double x = re, y = im;
    return (float)tsr__k_sqrtd(x * x + y * y) < 0.5f;
#else
    /* a device without float64: the squares' sum in float, which can
     * differ from glibc's answer within an ulp of the edge */
    return tsr__k_fmaf(re, re, im * im) < 0.25f;
#endif
}

TSR__K_LERP_ADDC_COMPLEX(tsr__kc64, float, c64, tsr__k_fmaf, tsr__k_lerp_small_c64)

/* ---- float64 and complex128 --------------------------------------------- */

#ifdef TSR_CONV_HAVE_DOUBLE

TSR__K_COMPLEX(tsr__kc128, double, tsr__k_fmad, TSR__K_MUL_RE_FUSED, TSR__K_MUL_IM_FUSED)
#define tsr__k_mul_c128 tsr__kc128_mul
#define tsr__k_add_c128 tsr__kc128_add
#define tsr__k_div_c128 tsr__kc128_div

static inline double tsr__k_add_f64(double a, double b, double alpha)
{
    if (alpha == 1.0)
        return a + b;
    if (alpha == -1.0)
        return a - b;
    return tsr__k_fmad(alpha, b, a);
}

static inline double tsr__k_mul_f64(double a, double b)
{
    return a * b;
}
static inline double tsr__k_div_f64(double a, double b)
{
    return a / b;
}

TSR__K_MAX_MIN(tsr__k_max_f64, tsr__k_min_f64, double, (double)TSR__K_QUIET_NAN)

TSR__K_REAL_OPS(double, f64, tsr__k_floord, tsr__k_ceild, tsr__k_truncd, tsr__k_rintd, tsr__k_fabsd,
                tsr__k_sqrtd, tsr__k_copysignd)
TSR__K_COMPLEX_OPS(tsr__kc128, double, c128)
TSR__K_WHERE(double, f64)
TSR__K_CLAMP(double, f64, (double)TSR__K_QUIET_NAN)
TSR__K_LERP_ADDC(double, f64, tsr__k_fmad)
TSR__K_CLAMP_ONE(double, f64)

/* |w| < 0.5 for a complex128 weight, |w| being glibc's hypot (2.35 and
 * later, without fma): near 0.5 its square root corrected by one Newton
 * step, which is not always the nearest double, so the edge is taken as
 * it computes it; elsewhere (and for NaN, infinities, underflows) the
 * squares' sum says. */
static inline int tsr__k_lerp_small_c128(double re, double im)
{
    double ax = tsr__k_fabsd(re), ay = tsr__k_fabsd(im);
    if (ax < ay) {
        double t = ax;
        ax = ay;
        ay = t;
    }
    double h = ax * ax + ay * ay;
    if (!(h > 0.2 && h < 0.3))
        return h < 0.25;
    h = tsr__k_sqrtd(h);
    double t1, t2;
    if (h <= 2.0 * ay) {
        double delta = h - ay;
        t1 = ax * (2.0 * delta - ax);
        t2 = (delta - 2.0 * (ax - ay)) * delta;
    } else {
        double delta = h - ax;
        t1 = 2.0 * delta * (ax - 2.0 * ay);
        t2 = (4.0 * delta - ay) * ay + delta * delta;
    }
    h -= (t1 + t2) / (2.0 * h);
    return h < 0.5;
}

TSR__K_LERP_ADDC_COMPLEX(tsr__kc128, double, c128, tsr__k_fmad, tsr__k_lerp_small_c128)
static inline tsr__kc128 tsr__k_neg_c128(tsr__kc128 x)
{
    return tsr__kc128_make(-x.re, -x.im);
}

static inline double tsr__k_divt_f64(double a, double b)
{
    return tsr__k_truncd(a / b);
}

TSR__K_DIV_FLOOR(tsr__k_divf_f64, double, TSR__K_SAME, tsr__k_floord, tsr__k_fmodd,
                 tsr__k_copysignd)
TSR__K_FMOD_OPS(double, f64, tsr__k_fmodd)

#endif /* TSR_CONV_HAVE_DOUBLE */

/* exp, log and the functions built on them have a file of their own,
 * and so have the trigonometric functions and sgn, complex abs and round
 * with decimals: OpenCL programs take them right after this one, in this
 * order. */
#ifndef __OPENCL_VERSION__
#include "kernels/scalar_math.h"
#include "kernels/scalar_trig.h"
#include "kernels/scalar_misc.h"
#endif

#endif /* TESSERA_KERNELS_SCALAR_OPS_H */
