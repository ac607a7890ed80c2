/* exp, log, expm1, log1p, tanh and sigmoid of float32 and float64, one
 * element at a time, written once for host C11 and for OpenCL C 1.2
 * (opencl/source.c embeds this file after kernels/scalar_ops.h, whose
 * rules it keeps: only +, -, *, /, fma, rint and bit moves, no
 * contraction), so that every device gives the same bits.
 *
 * Accuracy: within 1 ulp of the correctly rounded result everywhere
 * (subnormal inputs and results included), exact where IEEE 754 defines
 * the result (exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, log(1) = +0,
 * log(+-0) = -inf, log(+inf) = +inf, log(x < 0) and NaN in give NaN;
 * expm1(+-0) = +-0, expm1(-inf) = -1, log1p(+-0) = +-0, log1p(-1) =
 * -inf, log1p(x < -1) = NaN, tanh(+-0) = +-0, tanh(+-inf) = +-1,
 * sigmoid(+-0) = 1/2, sigmoid(-inf) = +0, sigmoid(+inf) = 1);
 * tests/kernels/test_accuracy.c checks float32 exhaustively and float64
 * on millions of inputs. float32 never meets a double: a device without
 * float64 computes it the same way.
 *
 *   exp(x) = 2^k exp(r), k = rint(x / ln2), r = x - k ln2 computed with
 *     ln2 split in two (Cody and Waite: k * HI is exact, one fma takes
 *     it off x exactly, a second takes LO off), |r| <= ln2 / 2;
 *     exp(r) = 1 + (r + r^2 Q(r)), and 2^k is put in by building the
 *     power of two from its bits (in two steps at the ends of the range,
 *     so that a subnormal result is rounded once).
 *   log(x) = e ln2 + log(1 + f), x = 2^e (1 + f) with 1 + f in
 *     [sqrt2 / 2, sqrt2) (f exact); with s = f / (2 + f), h = f^2 / 2,
 *     log(1 + f) = f - (h - s (h + s^2 P(s^2))), the small corrections
 *     summed first and e * HI (exact) added last.
 *   expm1(x) = 2^k (1 + expm1(r)) - 1, exp's reduction with the rounding
 *     error of r kept, expm1(r) = r + r^2 / 2 + r^3 Q'(r) summed with its
 *     errors carried, and the -1 taken off exactly where it matters.
 *   log1p(x) = log(uh) + ul / uh, where uh + ul = 1 + x exactly.
 * Q and P are fits that tests/kernels/gen_exp_log_coeffs.py derives and
 * prints, as are the ln2 splits below. Division is correctly rounded on
 * every device (programs are built with
 * -cl-fp32-correctly-rounded-divide-sqrt, as sqrt and div need). */
#ifndef TESSERA_KERNELS_SCALAR_MATH_H
#define TESSERA_KERNELS_SCALAR_MATH_H

/* clang-format off */
/* F: ln2 - HI - LO = 5.5e-14 */
#define TSR__K_F_LN2_HI 0x1.62e400p-1f
#define TSR__K_F_LN2_LO 0x1.7f7d1cp-20f
#define TSR__K_F_LOG2E 0x1.715476p+0f
/* D: ln2 - HI - LO = 1.95e-31 */
#define TSR__K_D_LN2_HI 0x1.62e42fefa3800p-1
#define TSR__K_D_LN2_LO 0x1.ef35793c76730p-45
#define TSR__K_D_LOG2E 0x1.71547652b82fep+0
/* EXPF_Q: degree 5, fit error 2.38e-10 of the result (2^-32.0) */
#define TSR__K_EXPF_Q0 0x1.000000p-1f
#define TSR__K_EXPF_Q1 0x1.555556p-3f
#define TSR__K_EXPF_Q2 0x1.5554eap-5f
#define TSR__K_EXPF_Q3 0x1.1110e0p-7f
#define TSR__K_EXPF_Q4 0x1.6d4316p-10f
#define TSR__K_EXPF_Q5 0x1.a124e4p-13f
/* EXPD_Q: degree 10, fit error 2.37e-19 of the result (2^-61.9) */
#define TSR__K_EXPD_Q0 0x1.0000000000000p-1
#define TSR__K_EXPD_Q1 0x1.5555555555557p-3
#define TSR__K_EXPD_Q2 0x1.5555555555556p-5
#define TSR__K_EXPD_Q3 0x1.11111111100dfp-7
#define TSR__K_EXPD_Q4 0x1.6c16c16c162d6p-10
#define TSR__K_EXPD_Q5 0x1.a01a01abe62ddp-13
#define TSR__K_EXPD_Q6 0x1.a01a01a6d7808p-16
#define TSR__K_EXPD_Q7 0x1.71de02375656cp-19
#define TSR__K_EXPD_Q8 0x1.27e4db67b4303p-22
#define TSR__K_EXPD_Q9 0x1.af4ddd84882fep-26
#define TSR__K_EXPD_Q10 0x1.1f72fc730b4ffp-29
/* LOGF_P: degree 3, fit error 1.69e-11 of the result (2^-35.8) */
#define TSR__K_LOGF_P0 0x1.555556p-1f
#define TSR__K_LOGF_P1 0x1.9999ecp-2f
#define TSR__K_LOGF_P2 0x1.245c44p-2f
#define TSR__K_LOGF_P3 0x1.ddced8p-3f
/* LOGD_P: degree 7, fit error 3.05e-20 of the result (2^-64.8) */
#define TSR__K_LOGD_P0 0x1.5555555555555p-1
#define TSR__K_LOGD_P1 0x1.9999999999a38p-2
#define TSR__K_LOGD_P2 0x1.2492492476cccp-2
#define TSR__K_LOGD_P3 0x1.c71c720159177p-3
#define TSR__K_LOGD_P4 0x1.745cf9048dd95p-3
#define TSR__K_LOGD_P5 0x1.3b1c355a8f7a2p-3
#define TSR__K_LOGD_P6 0x1.0fbe95d716020p-3
#define TSR__K_LOGD_P7 0x1.0c039c49989c6p-3
/* clang-format on */

/* What the two formats differ in besides the constants above: the
 * significand's width, the exponent's bias, sqrt2's significand as the
 * bits of a value in [1, 2), the smallest normal number and the scaling
 * that makes a subnormal normal, exp's overflow and underflow bounds
 * (beyond them the result is +inf or rounds to +0), and the power of two
 * by which tsr__k_scale_* steps into the top (bottom) of the range. */
#define TSR__K_F_MANT 23
#define TSR__K_F_BIAS 127
#define TSR__K_F_SQRT2 0x3FB504F3u
#define TSR__K_F_MIN_NORMAL 0x1p-126f
#define TSR__K_F_SUB_BITS 25
#define TSR__K_F_SUB_SCALE 0x1p25f
#define TSR__K_F_EXP_HUGE 89.0f
#define TSR__K_F_EXP_TINY -104.0f
#define TSR__K_F_EXPM1_TINY -17.5f
#define TSR__K_F_EXPQ0 TSR__K_EXPF_Q0
#define TSR__K_F_TANH_ONE 9.5f
#define TSR__K_F_SIGMOID_EXP -36.0f
#define TSR__K_F_STEP_BITS 64
#define TSR__K_F_STEP_DOWN 0x1p-64f
#define TSR__K_F_TOP 0x1p127f
#define TSR__K_D_MANT 52
#define TSR__K_D_BIAS 1023
#define TSR__K_D_SQRT2 TSR__U64(0x3FF6A09E667F3BCD)
#define TSR__K_D_MIN_NORMAL 0x1p-1022
#define TSR__K_D_SUB_BITS 54
#define TSR__K_D_SUB_SCALE 0x1p54
#define TSR__K_D_EXP_HUGE 710.0
#define TSR__K_D_EXP_TINY -746.0
#define TSR__K_D_EXPM1_TINY -38.0
#define TSR__K_D_EXPQ0 TSR__K_EXPD_Q0
#define TSR__K_D_TANH_ONE 20.0
#define TSR__K_D_SIGMOID_EXP -76.0
#define TSR__K_D_STEP_BITS 128
#define TSR__K_D_STEP_DOWN 0x1p-128
#define TSR__K_D_TOP 0x1p1023

/* The functions of a real type T (suffix sfx; C is F or D, the constants'
 * prefix; U the unsigned integer of T's width, BITS and FROM_BITS move
 * between them). The type's own tsr__k_expq_tail_<sfx>(r) (Q without its
 * constant 1/2, divided by r) and tsr__k_logp_<sfx>(z) evaluate Q and P.
 *   scale: p * 2^k for p in [0.5, 2] and k from below the subnormals'
 *     bottom to one past the top exponent, rounded once: 2^k is built from
 *     its bits, in two steps beyond the normal exponents.
 *   exp: a NaN passes through (x + x quiets it).
 *   logc: log(x) + c for a positive normal x (times 2^e) and a small c,
 *     the error term log1p carries: x = 2^e * m, m in [sqrt2 / 2, sqrt2);
 *     a significand above sqrt2's takes one off m and puts it on e.
 *   log: subnormals are scaled up first.
 *   expr: exp's reduction with r's rounding error kept (rl): x = k ln2 +
 *     r + rl, and expm1(r + rl) = r + h + lo, h = r^2 / 2 exactly.
 *   exp1p: 1 + r + h + lo in two words, yh + yl (r + h's error kept).
 *   expm1k: expm1(x) = 2^k (yh + yl) - 1 in two words, hi + rest, the -1
 *     taken off 2^k yh exactly (two-sum); for k up to MANT + 2.
 *   expm1: beyond k = MANT + 2 the -1 is folded into the low word.
 *   tanh: tanh(|x|) = -e / (2 + e), e = expm1(-2|x|) in two words, the
 *     division's remainder taken exactly (fma) and corrected for; 1 from
 *     TANH_ONE, where 1 - tanh is below a quarter of 1's ulp.
 *   sigmoid: 1 / (1 + d), d = exp(-x) in two words, the division
 *     corrected as tanh's; below SIGMOID_EXP, where exp(-x) would grow
 *     towards overflow and 1 + exp(x) is 1 to far below an ulp, exp(x)
 *     itself; 1 above -EXPM1_TINY.
 *   log1p: 1 + x = uh + ul exactly (two-sum), log(uh) as log computes it
 *     with ul / uh added to its small terms. */
#define TSR__K_EXP_LOG(T, sfx, C, U, FMA, RINT, BITS, FROM_BITS)                               \
    static inline T tsr__k_pow2_##sfx(int k)                                                   \
    {                                                                                          \
        return FROM_BITS((U)(k + TSR__K_##C##_BIAS) << TSR__K_##C##_MANT);                     \
    }                                                                                          \
    static inline T tsr__k_scale_##sfx(T p, int k)                                             \
    {                                                                                          \
        if (k > TSR__K_##C##_BIAS)                                                             \
            return p * tsr__k_pow2_##sfx(k - TSR__K_##C##_BIAS) * TSR__K_##C##_TOP;            \
        if (k < 1 - TSR__K_##C##_BIAS)                                                         \
            return p * tsr__k_pow2_##sfx(k + TSR__K_##C##_STEP_BITS) * TSR__K_##C##_STEP_DOWN; \
        return p * tsr__k_pow2_##sfx(k);                                                       \
    }                                                                                          \
    static inline T tsr__k_exp_##sfx(T x)                                                      \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x > TSR__K_##C##_EXP_HUGE)                                                         \
            return (T)INFINITY;                                                                \
        if (x < TSR__K_##C##_EXP_TINY)                                                         \
            return (T)0;                                                                       \
        T k = RINT(x * TSR__K_##C##_LOG2E);                                                    \
        T r = FMA(-k, TSR__K_##C##_LN2_HI, x);                                                 \
        r = FMA(-k, TSR__K_##C##_LN2_LO, r);                                                   \
        T p = (T)1 + FMA(r * r, FMA(r, tsr__k_expq_tail_##sfx(r), TSR__K_##C##_EXPQ0), r);     \
        return tsr__k_scale_##sfx(p, (int)k);                                                  \
    }                                                                                          \
    static inline T tsr__k_logc_##sfx(T x, int e, T c)                                         \
    {                                                                                          \
        U u = BITS(x);                                                                         \
        e += (int)(u >> TSR__K_##C##_MANT) - TSR__K_##C##_BIAS;                                \
        U one = (U)1 << TSR__K_##C##_MANT;                                                     \
        U m = (u & (one - 1)) | (U)TSR__K_##C##_BIAS << TSR__K_##C##_MANT;                     \
        if (m >= TSR__K_##C##_SQRT2) {                                                         \
            m -= one;                                                                          \
            e += 1;                                                                            \
        }                                                                                      \
        T f = FROM_BITS(m) - (T)1;                                                             \
        T s = f / ((T)2 + f);                                                                  \
        T z = s * s;                                                                           \
        T h = (T)0.5 * f * f;                                                                  \
        T et = (T)e;                                                                           \
        T small = FMA(s, FMA(z, tsr__k_logp_##sfx(z), h), FMA(et, TSR__K_##C##_LN2_LO, c));    \
        return FMA(et, TSR__K_##C##_LN2_HI, f - (h - small));                                  \
    }                                                                                          \
    static inline T tsr__k_log_##sfx(T x)                                                      \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x == 0)                                                                            \
            return -(T)INFINITY;                                                               \
        if (x < 0)                                                                             \
            return (T)TSR__K_QUIET_NAN;                                                        \
        if (x == (T)INFINITY)                                                                  \
            return x;                                                                          \
        if (x < TSR__K_##C##_MIN_NORMAL)                                                       \
            return tsr__k_logc_##sfx(x * TSR__K_##C##_SUB_SCALE, -TSR__K_##C##_SUB_BITS, 0);   \
        return tsr__k_logc_##sfx(x, 0, 0);                                                     \
    }                                                                                          \
    static inline T tsr__k_expr_##sfx(T x, T *r, T *h, T *lo)                                  \
    {                                                                                          \
        T k = RINT(x * TSR__K_##C##_LOG2E);                                                    \
        T rh = FMA(-k, TSR__K_##C##_LN2_HI, x);                                                \
        T rr = FMA(-k, TSR__K_##C##_LN2_LO, rh);                                               \
        T rl = FMA(-k, TSR__K_##C##_LN2_LO, rh - rr);                                          \
        T r2 = rr * rr;                                                                        \
        T e2 = FMA(rr, rr, -r2);                                                               \
        *r = rr;                                                                               \
        *h = (T)0.5 * r2;                                                                      \
        *lo = FMA(r2, rr * tsr__k_expq_tail_##sfx(rr), FMA((T)0.5, e2, FMA(rl, rr, rl)));      \
        return k;                                                                              \
    }                                                                                          \
    static inline T tsr__k_exp1p_##sfx(T r, T h, T lo, T *yl)                                  \
    {                                                                                          \
        T s = r + h;                                                                           \
        lo += h - (s - r);                                                                     \
        T yh = (T)1 + s;                                                                       \
        *yl = ((T)1 - yh) + s + lo;                                                            \
        return yh;                                                                             \
    }                                                                                          \
    static inline T tsr__k_expm1k_##sfx(T k, T r, T h, T lo, T *rest)                          \
    {                                                                                          \
        if (k == 0) {                                                                          \
            *rest = h + lo;                                                                    \
            return r;                                                                          \
        }                                                                                      \
        T yl;                                                                                  \
        T yh = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                              \
        T p = tsr__k_pow2_##sfx((int)k);                                                       \
        T a = p * yh;                                                                          \
        T hi = a - (T)1;                                                                       \
        T b = hi - a;                                                                          \
        T err = (a - (hi - b)) + ((T)-1 - b);                                                  \
        *rest = FMA(p, yl, err);                                                               \
        return hi;                                                                             \
    }                                                                                          \
    static inline T tsr__k_expm1_##sfx(T x)                                                    \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x > TSR__K_##C##_EXP_HUGE)                                                         \
            return (T)INFINITY;                                                                \
        if (x < TSR__K_##C##_EXPM1_TINY)                                                       \
            return (T)-1;                                                                      \
        if (x == 0)                                                                            \
            return x;                                                                          \
        T r, h, lo, rest;                                                                      \
        T k = tsr__k_expr_##sfx(x, &r, &h, &lo);                                               \
        if (k > (T)(TSR__K_##C##_MANT + 2)) {                                                  \
            int ki = (int)k;                                                                   \
            T yl;                                                                              \
            T yh = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                          \
            T m = ki < 2 * TSR__K_##C##_MANT ? tsr__k_pow2_##sfx(-ki) : (T)0;                  \
            return tsr__k_scale_##sfx(yh + (yl - m), ki);                                      \
        }                                                                                      \
        T hi = tsr__k_expm1k_##sfx(k, r, h, lo, &rest);                                        \
        return hi + rest;                                                                      \
    }                                                                                          \
    static inline T tsr__k_tanh_##sfx(T x)                                                     \
    {                                                                                          \
        if (x != x || x == 0)                                                                  \
            return x + x;                                                                      \
        T ax = x < 0 ? -x : x;                                                                 \
        T t = (T)1;                                                                            \
        if (ax < TSR__K_##C##_TANH_ONE) {                                                      \
            T r, h, lo, el;                                                                    \
            T k = tsr__k_expr_##sfx((T)-2 * ax, &r, &h, &lo);                                  \
            T eh = tsr__k_expm1k_##sfx(k, r, h, lo, &el);                                      \
            T e = eh + el;                                                                     \
            el -= e - eh;                                                                      \
            T dh = (T)2 + e;                                                                   \
            T dl = (e - (dh - (T)2)) + el;                                                     \
            T q = -e / dh;                                                                     \
            T rem = FMA(q, dh, e);                                                             \
            t = q + FMA(-q, dl, -(rem + el)) / dh;                                             \
        }                                                                                      \
        return x < 0 ? -t : t;                                                                 \
    }                                                                                          \
    static inline T tsr__k_sigmoid_##sfx(T x)                                                  \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x < TSR__K_##C##_SIGMOID_EXP)                                                      \
            return tsr__k_exp_##sfx(x);                                                        \
        if (x > -TSR__K_##C##_EXPM1_TINY)                                                      \
            return (T)1;                                                                       \
        T r, h, lo, yl;                                                                        \
        int k = (int)tsr__k_expr_##sfx(-x, &r, &h, &lo);                                       \
        T y = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                               \
        T yh = y + yl;                                                                         \
        T p = tsr__k_pow2_##sfx(k);                                                            \
        T eh = p * yh;                                                                         \
        yl -= yh - y;                                                                          \
        T dh = (T)1 + eh;                                                                      \
        T b = dh - eh;                                                                         \
        T dl = ((eh - (dh - b)) + ((T)1 - b)) + p * yl;                                        \
        T q = (T)1 / dh;                                                                       \
        T rem = FMA(-q, dh, (T)1);                                                             \
        return q + FMA(-q, dl, rem) / dh;                                                      \
    }                                                                                          \
    static inline T tsr__k_log1p_##sfx(T x)                                                    \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x == (T)-1)                                                                        \
            return -(T)INFINITY;                                                               \
        if (x < (T)-1)                                                                         \
            return (T)TSR__K_QUIET_NAN;                                                        \
        if (x == (T)INFINITY || x == 0)                                                        \
            return x;                                                                          \
        T uh = (T)1 + x;                                                                       \
        T b = uh - (T)1;                                                                       \
        T ul = ((T)1 - (uh - b)) + (x - b);                                                    \
        return tsr__k_logc_##sfx(uh, 0, ul / uh);                                              \
    }

static inline float tsr__k_expq_tail_f32(float r)
{
    float q = tsr__k_fmaf(r, TSR__K_EXPF_Q5, TSR__K_EXPF_Q4);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q3);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q2);
    return tsr__k_fmaf(r, q, TSR__K_EXPF_Q1);
}
static inline float tsr__k_logp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_LOGF_P3, TSR__K_LOGF_P2);
    p = tsr__k_fmaf(z, p, TSR__K_LOGF_P1);
    return tsr__k_fmaf(z, p, TSR__K_LOGF_P0);
}
TSR__K_EXP_LOG(float, f32, F, tsr__u32, tsr__k_fmaf, tsr__k_rintf, tsr__float_bits,
               tsr__float_from_bits)

/* bfloat16 computes in float and rounds once (PyTorch 1.13's loops do
 * the same through float); float16 is refused before (NO_HALF), its
 * functions are there for the programs that name every family. */
#define tsr__k_exp_f16 tsr__k_exp_f32
#define tsr__k_exp_bf16 tsr__k_exp_f32
#define tsr__k_log_f16 tsr__k_log_f32
#define tsr__k_log_bf16 tsr__k_log_f32
#define tsr__k_expm1_f16 tsr__k_expm1_f32
#define tsr__k_expm1_bf16 tsr__k_expm1_f32
#define tsr__k_log1p_f16 tsr__k_log1p_f32
#define tsr__k_log1p_bf16 tsr__k_log1p_f32
#define tsr__k_tanh_f16 tsr__k_tanh_f32
#define tsr__k_tanh_bf16 tsr__k_tanh_f32
#define tsr__k_sigmoid_f16 tsr__k_sigmoid_f32
#define tsr__k_sigmoid_bf16 tsr__k_sigmoid_f32

#ifdef TSR_CONV_HAVE_DOUBLE

static inline double tsr__k_expq_tail_f64(double r)
{
    double q = tsr__k_fmad(r, TSR__K_EXPD_Q10, TSR__K_EXPD_Q9);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q8);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q7);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q6);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q5);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q4);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q3);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q2);
    return tsr__k_fmad(r, q, TSR__K_EXPD_Q1);
}
static inline double tsr__k_logp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_LOGD_P7, TSR__K_LOGD_P6);
    p = tsr__k_fmad(z, p, TSR__K_LOGD_P5);
    p = tsr__k_fmad(z, p, TSR__K_LOGD_P4);
    p = tsr__k_fmad(z, p, TSR__K_LOGD_P3);
    p = tsr__k_fmad(z, p, TSR__K_LOGD_P2);
    p = tsr__k_fmad(z, p, TSR__K_LOGD_P1);
    return tsr__k_fmad(z, p, TSR__K_LOGD_P0);
}
TSR__K_EXP_LOG(double, f64, D, tsr__u64, tsr__k_fmad, tsr__k_rintd, tsr__double_bits,
               tsr__double_from_bits)

#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_KERNELS_SCALAR_MATH_H */
