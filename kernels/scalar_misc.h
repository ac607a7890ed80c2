/* sgn, abs of complex numbers, round with decimals and nan_to_num, one element at a
 * time, written once for host C11 and for OpenCL C 1.2 (opencl/source.c
 * embeds this file after kernels/scalar_trig.h; kernels/scalar_ops.h's
 * rules hold: only +, -, *, /, fma, rint, sqrt and bit moves, no
 * contraction), so that every device gives the same bits.
 *
 *   sgn: sign's answer for bool, the integers and the floating dtypes;
 *     z / |z| for a complex z (0 for 0), each part divided by |z|, which
 *     is scalar_math.h's hypot: no square overflows or underflows, so
 *     sgn(1e30 + 1e30i) in complex64 is (0.7071..., 0.7071...) where
 *     PyTorch 1.13's loops give 0 (vectorised) or NaN (element loop);
 *     an infinite part gives NaN in it (inf / inf) and keeps the other
 *     part's zero, as PyTorch's vector loop does; complex32 follows its
 *     element loop (below).
 *   abs of a complex z: hypot(re, im) + 0i, within 1 ulp of |z| and
 *     never overflowing before the result does (PyTorch 1.13's vectorised
 *     loop squares the parts: |1e30 + 1e30i| is inf there); inf beats
 *     NaN. The planner takes the real part into the real result.
 *   round with decimals d (p = 10^|d| in the dtype, the value): rint(x *
 *     p) / p for d > 0, rint(x / p) * p for d < 0 (roundn), in the
 *     dtype's own arithmetic as PyTorch 1.13's round_decimals loop has
 *     it; bfloat16 rounds the scaled value to bfloat16 before rint
 *     (c10::BFloat16's product and quotient round), the rest in float.
 *   nan_to_num(x, nan, pos, neg): NaN, +inf and -inf replaced, every
 *     other value (subnormals, -0) kept; bool and the integers pass
 *     through. */
#ifndef TESSERA_KERNELS_SCALAR_MISC_H
#define TESSERA_KERNELS_SCALAR_MISC_H

#define tsr__k_sgn_int tsr__k_sign_int
#define tsr__k_sgn_b8 tsr__k_sign_b8
#define tsr__k_sgn_f16 tsr__k_sign_f16
#define tsr__k_sgn_bf16 tsr__k_sign_bf16
#define tsr__k_sgn_f32 tsr__k_sign_f32

#define TSR__K_SGN_ABS_COMPLEX(Z, T, sfx, real)                 \
    static inline Z tsr__k_sgn_##sfx(Z z)                       \
    {                                                           \
        T h = tsr__k_hypot_##real(z.re, z.im);                  \
        if (h == 0)                                             \
            return Z##_make((T)0, (T)0);                        \
        return Z##_make(z.re / h, z.im / h);                    \
    }                                                           \
    static inline Z tsr__k_abs_##sfx(Z z)                       \
    {                                                           \
        return Z##_make(tsr__k_hypot_##real(z.re, z.im), (T)0); \
    }

TSR__K_SGN_ABS_COMPLEX(tsr__kc64, float, c64, f32)
#define tsr__k_abs_c32 tsr__k_abs_c64
/* complex32 has no vector loop in PyTorch 1.13: its element loop divides
 * z by |z| + 0i as a complex quotient (so an infinite part gives NaN in
 * both), in complex64, rounded once to complex32. */
static inline tsr__kc64 tsr__k_sgn_c32(tsr__kc64 z)
{
    float h = tsr__k_hypot_f32(z.re, z.im);
    if (h == 0)
        return tsr__kc64_make(0.0f, 0.0f);
    return tsr__kc64_div(z, tsr__kc64_make(h, 0.0f));
}

#define TSR__K_ROUND_DECIMALS(T, sfx, RINT, R)    \
    static inline T tsr__k_roundd_##sfx(T x, T p) \
    {                                             \
        return RINT(R(x * p)) / p;                \
    }                                             \
    static inline T tsr__k_roundn_##sfx(T x, T p) \
    {                                             \
        return RINT(R(x / p)) * p;                \
    }

/* nan_to_num: the replacement values come in the dtype already (the
 * planner rounds them as PyTorch's static_cast does), so float16 and
 * bfloat16 pick in float and store back unchanged. */
#define TSR__K_NAN_TO_NUM(T, sfx)                              \
    static inline T tsr__k_n2n_##sfx(T x, T nan, T pos, T neg) \
    {                                                          \
        if (x != x)                                            \
            return nan;                                        \
        if (x == (T)INFINITY)                                  \
            return pos;                                        \
        return x == -(T)INFINITY ? neg : x;                    \
    }

TSR__K_NAN_TO_NUM(float, f32)
static inline tsr__u64 tsr__k_n2n_int(tsr__u64 x, tsr__u64 nan, tsr__u64 pos, tsr__u64 neg)
{
    (void)nan, (void)pos, (void)neg;
    return x;
}
#define tsr__k_n2n_b8 tsr__k_n2n_int
#define tsr__k_n2n_f16 tsr__k_n2n_f32
#define tsr__k_n2n_bf16 tsr__k_n2n_f32

TSR__K_ROUND_DECIMALS(float, f32, tsr__k_rintf, TSR__K_SAME)
TSR__K_ROUND_DECIMALS(float, bf16, tsr__k_rintf, tsr__k_rbf16)
/* float16 is refused before it runs (TSR__KOPF_NO_HALF) */
#define tsr__k_roundd_f16 tsr__k_roundd_f32
#define tsr__k_roundn_f16 tsr__k_roundn_f32

#ifdef TSR_CONV_HAVE_DOUBLE
#define tsr__k_sgn_f64 tsr__k_sign_f64
TSR__K_SGN_ABS_COMPLEX(tsr__kc128, double, c128, f64)
TSR__K_ROUND_DECIMALS(double, f64, tsr__k_rintd, TSR__K_SAME)
TSR__K_NAN_TO_NUM(double, f64)
#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_KERNELS_SCALAR_MISC_H */
