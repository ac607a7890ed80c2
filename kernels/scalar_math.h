/* exp, log, expm1, log1p, tanh and sigmoid of float32 and float64, and
 * the functions built on them (exp2, log2, log10, sinh, cosh, asinh,
 * acosh, atanh, rsqrt, hypot, erf ... silu, pow), one element at a
 * time, written once for host C11 and for OpenCL C 1.2 (opencl/source.c
 * embeds this file after kernels/scalar_ops.h, whose rules it keeps:
 * only +, -, *, /, fma, rint, sqrt and bit moves, no contraction), so
 * that every device gives the same bits.
 *
 * Accuracy: within 1 ulp of the correctly rounded result everywhere
 * (subnormal inputs and results included), exact where IEEE 754 defines
 * the result (exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, log(1) = +0,
 * log(+-0) = -inf, log(+inf) = +inf, log(x < 0) and NaN in give NaN;
 * expm1(+-0) = +-0, expm1(-inf) = -1, log1p(+-0) = +-0, log1p(-1) =
 * -inf, log1p(x < -1) = NaN, tanh(+-0) = +-0, tanh(+-inf) = +-1,
 * sigmoid(+-0) = 1/2, sigmoid(-inf) = +0, sigmoid(+inf) = 1; exp2 of
 * an integer and log2 of a power of two are exact; sinh, asinh and atanh
 * keep the sign of zero and of infinity, cosh(+-inf) = +inf, acosh(1) =
 * +0, atanh(+-1) = +-inf, rsqrt(+-0) = +-inf, rsqrt(+inf) = +0,
 * hypot(+-inf, NaN) = +inf, hypot(x, +-0) = |x|);
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
 *     summed first and e * HI (exact) added last, with the rounding
 *     errors of h, f - h and the last sum kept in a second word (log2
 *     and log10 multiply both words by their constant).
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

/* A table of constants: in OpenCL's constant memory, static on the host. */
#ifdef __OPENCL_VERSION__
#define TSR__K_TABLE __constant
#else
#define TSR__K_TABLE static const
#endif

/* out = entry j of row i of TAB, whose rows hold W entries. A program
 * whose loops vectorise (TSR_PICK_ROWS, which opencl/source.c defines
 * in a key's own programs) picks it among the rows with selects: a
 * vector loop does not gather from a place that depends on the element
 * (PoCL's vectoriser gives up on such loads from constant memory), and a
 * few rows of selects cost less than gathers would. The host and the
 * generic programs load it, the same value (and a generic program builds
 * faster without them). */
#if defined(__OPENCL_VERSION__) && defined(TSR_PICK_ROWS)
#define TSR__K_UNROLL _Pragma("unroll")
#define TSR__K_ROW_ENTRY(out, TAB, W, i, j)                                            \
    do {                                                                               \
        (out) = (TAB)[j];                                                              \
        TSR__K_UNROLL                                                                  \
        for (int row_ = 1; row_ < (int)(sizeof(TAB) / sizeof((TAB)[0])) / (W); row_++) \
            (out) = (i) == row_ ? (TAB)[row_ * (W) + (j)] : (out);                     \
    } while (0)
#else
#define TSR__K_UNROLL
#define TSR__K_ROW_ENTRY(out, TAB, W, i, j) ((out) = (TAB)[(i) * (W) + (j)])
#endif

/* clang-format off */
/* F: ln2 - HI - LO = 5.5e-14 */
#define TSR__K_F_LN2_HI 0x1.62e400p-1f
#define TSR__K_F_LN2_LO 0x1.7f7d1cp-20f
#define TSR__K_F_LOG2E 0x1.715476p+0f
/* D: ln2 - HI - LO = 1.95e-31 */
#define TSR__K_D_LN2_HI 0x1.62e42fefa3800p-1
#define TSR__K_D_LN2_LO 0x1.ef35793c76730p-45
#define TSR__K_D_LOG2E 0x1.71547652b82fep+0
/* F_LN2W: value - HI - LO = -8.78e-17 */
#define TSR__K_F_LN2W_HI 0x1.62e430p-1f
#define TSR__K_F_LN2W_LO -0x1.05c610p-29f
/* F_INVLN2: value - HI - LO = -4.24e-16 */
#define TSR__K_F_INVLN2_HI 0x1.715476p+0f
#define TSR__K_F_INVLN2_LO 0x1.4ae0c0p-26f
/* F_INVLN10: value - HI - LO = -1.0e-16 */
#define TSR__K_F_INVLN10_HI 0x1.bcb7b2p-2f
#define TSR__K_F_INVLN10_LO -0x1.5b235ep-27f
/* D_LN2W: value - HI - LO = 5.71e-34 */
#define TSR__K_D_LN2W_HI 0x1.62e42fefa39efp-1
#define TSR__K_D_LN2W_LO 0x1.abc9e3b39803fp-56
/* D_INVLN2: value - HI - LO = -1.06e-33 */
#define TSR__K_D_INVLN2_HI 0x1.71547652b82fep+0
#define TSR__K_D_INVLN2_LO 0x1.777d0ffda0d24p-56
/* D_INVLN10: value - HI - LO = 3.72e-34 */
#define TSR__K_D_INVLN10_HI 0x1.bcb7b1526e50ep-2
#define TSR__K_D_INVLN10_LO 0x1.95355baaafad3p-57
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
/* From tests/kernels/gen_erf_coeffs.py: */
/* ERFF_P: degree 5, fit error 2^-36.2 of erf(x) / x */
#define TSR__K_ERFF_P0 0x1.06eba8p-3f
#define TSR__K_ERFF_P1 -0x1.812746p-2f
#define TSR__K_ERFF_P2 0x1.ce2ef2p-4f
#define TSR__K_ERFF_P3 -0x1.b82030p-6f
#define TSR__K_ERFF_P4 0x1.54d076p-8f
#define TSR__K_ERFF_P5 -0x1.936a4ap-11f
/* ERFD_P: degree 9, fit error 2^-65.2 of erf(x) / x */
#define TSR__K_ERFD_P0 0x1.06eba8214db69p-3
#define TSR__K_ERFD_P1 -0x1.812746b0379e6p-2
#define TSR__K_ERFD_P2 0x1.ce2f21a042b29p-4
#define TSR__K_ERFD_P3 -0x1.b82ce3127f739p-6
#define TSR__K_ERFD_P4 0x1.565bcd0aa6349p-8
#define TSR__K_ERFD_P5 -0x1.c02db23d41138p-11
#define TSR__K_ERFD_P6 0x1.f9a2a6635fe79p-14
#define TSR__K_ERFD_P7 -0x1.f4bb9f7301dedp-17
#define TSR__K_ERFD_P8 0x1.b776442df3041p-20
#define TSR__K_ERFD_P9 -0x1.39fb524e9c1f7p-23
#define TSR__K_F_SQRT1_2_HI 0x1.6a09e6p-1f
#define TSR__K_F_SQRT1_2_LO 0x1.9fcef4p-27f
#define TSR__K_F_GELU_A_HI 0x1.988454p+0f
#define TSR__K_F_GELU_A_LO -0x1.857936p-25f
#define TSR__K_F_GELU_B_HI 0x1.2444f2p-4f
#define TSR__K_F_GELU_B_LO 0x1.49b16ap-29f
#define TSR__K_D_SQRT1_2_HI 0x1.6a09e667f3bcdp-1
#define TSR__K_D_SQRT1_2_LO -0x1.bdd3413b26456p-55
#define TSR__K_D_GELU_A_HI 0x1.9884533d43651p+0
#define TSR__K_D_GELU_A_LO -0x1.cbc0d30ebfd15p-54
#define TSR__K_D_GELU_B_HI 0x1.2444f2a4d8b4bp-4
#define TSR__K_D_GELU_B_LO -0x1.6c843a29d1c70p-61
/* clang-format on */

/* What the two formats differ in besides the constants above: the
 * significand's width, the exponent's bias, sqrt2's significand as the
 * bits of a value in [1, 2), the smallest normal number and the scaling
 * that makes a subnormal normal, exp's overflow and underflow bounds
 * (beyond them the result is +inf or rounds to +0), and the power of two
 * by which tsr__k_scale_* steps into the top (bottom) of the range;
 * DNAN is the NaN an invalid operation (inf * 0) makes on x86, whose
 * sign the shared code reproduces where it reaches a result. */
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
#define TSR__K_F_SHIFTER 0x1.8000fep+23f
#define TSR__K_F_STEP_BITS 64
#define TSR__K_F_STEP_DOWN 0x1p-64f
#define TSR__K_F_TOP 0x1p127f
#define TSR__K_F_SINH_HUGE 89.5f
#define TSR__K_F_ROOT_EPS 0x1p-12f
#define TSR__K_F_ROOT_BIG 0x1p13f
#define TSR__K_F_HYPOT_EDGE 50
#define TSR__K_F_HYPOT_STEP 90
#define TSR__K_F_TWO_SQRTPI 0x1.20dd76p+0f
#define TSR__K_F_ERF_ONE 4.0f
#define TSR__K_F_ERFC_ZERO 10.25f
#define TSR__K_F_SILU_TINY -110.0f
#define TSR__K_F_DNAN tsr__float_from_bits(0xFFC00000u)
#define TSR__K_D_MANT 52
#define TSR__K_D_BIAS 1023
#define TSR__K_D_SQRT2 TSR__U64(0x3FF6A09E667F3BCD)
#define TSR__K_D_MIN_NORMAL 0x1p-1022
#define TSR__K_D_DNAN tsr__double_from_bits(TSR__U64(0xFFF8000000000000))
#define TSR__K_D_SUB_BITS 54
#define TSR__K_D_SUB_SCALE 0x1p54
#define TSR__K_D_EXP_HUGE 710.0
#define TSR__K_D_EXP_TINY -746.0
#define TSR__K_D_EXPM1_TINY -38.0
#define TSR__K_D_EXPQ0 TSR__K_EXPD_Q0
#define TSR__K_D_TANH_ONE 20.0
#define TSR__K_D_SIGMOID_EXP -76.0
#define TSR__K_D_SHIFTER 0x1.80000000003ffp+52
#define TSR__K_D_STEP_BITS 128
#define TSR__K_D_STEP_DOWN 0x1p-128
#define TSR__K_D_TOP 0x1p1023
#define TSR__K_D_SINH_HUGE 711.0
#define TSR__K_D_ROOT_EPS 0x1p-26
#define TSR__K_D_ROOT_BIG 0x1p27
#define TSR__K_D_HYPOT_EDGE 450
#define TSR__K_D_HYPOT_STEP 600
#define TSR__K_D_TWO_SQRTPI 0x1.20dd750429b6dp+0
#define TSR__K_D_ERF_ONE 6.0
#define TSR__K_D_ERFC_ZERO 27.5
#define TSR__K_D_SILU_TINY -760.0

/* The functions of a real type T (suffix sfx; C is F or D, the constants'
 * prefix; U the unsigned integer of T's width, BITS and FROM_BITS move
 * between them). The type's own tsr__k_expq_tail_<sfx>(r) (Q without its
 * constant 1/2, divided by r) and tsr__k_logp_<sfx>(z) evaluate Q and P.
 * exp, scale, expm1k, tanh and sigmoid pick among their paths with
 * selects, not branches: each path runs on every input (one outside its
 * range on a harmless stand-in) and the result is chosen last, so that a
 * device's vector loop computes them without masks (PoCL's float32 exp
 * took twice the instructions with them). The bits are those of the
 * branches: the same operations on the same values.
 *   two_sum: a + b = s + *err exactly (Knuth's, for any order of size).
 *   scale: p * 2^k for p in [0.5, 2] and k from below the subnormals'
 *     bottom to one past the top exponent, rounded once: 2^k is built from
 *     its bits, in two steps beyond the normal exponents.
 *   exp: a NaN passes through (x + x quiets it).
 *   logw: log(x) + c for a positive normal x (times 2^e) and a small c,
 *     the error term log1p carries, in two words (hi + *lo): x = 2^e * m,
 *     m in [sqrt2 / 2, sqrt2); a significand above sqrt2's takes one off
 *     m and puts it on e. f - h and e * HI + (f - h) are exact two-sums
 *     (|h| <= |f| and |e * HI| > |f - h| unless e = 0).
 *   logm, log: logm below; subnormals are scaled up first.
 *   expr: exp's reduction with r's rounding error kept (rl): x = k ln2 +
 *     r + rl, and expm1(r + rl) = r + h + lo, h = r^2 / 2 exactly.
 *   exp1p: 1 + r + h + lo in two words, yh + yl (r + h's error kept).
 *   expm1k: expm1(x) = 2^k (yh + yl) - 1 in two words, hi + rest, the -1
 *     taken off 2^k yh exactly (two-sum); for k up to MANT + 2.
 *   expm1: beyond k = MANT + 2 the -1 is folded into the low word.
 *   tanh: tanh(|x|) = -e / (2 + e), e = expm1(-2|x|) in two words, the
 *     division's remainder taken exactly (fma) and corrected for; 1 from
 *     TANH_ONE, where 1 - tanh is below a quarter of 1's ulp.
 *   sigmoidx (silu's and gelu_tanh's, of x + xl): 1 / (1 + d), d =
 *     exp(-x) in two words, the division corrected as tanh's; below
 *     SIGMOID_EXP, where exp(-x) would grow towards overflow and 1 +
 *     exp(x) is 1 to far below an ulp, exp(x) itself; 1 above
 *     -EXPM1_TINY.
 *   sigmoid: 1 / (1 + e), e = exp(z) with z = -x clamped at SIGMOID_EXP
 *     (above, 1 + e is 1 to far below an ulp) and at -EXP_TINY (beyond,
 *     the result rounds to +0). z = k ln2 + r (exp's reduction; r's
 *     rounding, under 2^-(MANT + 3) of it, moves the result by a quarter
 *     of an ulp at most, and is left out), exp(r) = h + l with h = 1 + r
 *     and l its rounding error (a fast two-sum, |r| < 1) plus r^2 Q(r);
 *     e = 2^k (h + l). 1 + e = dh + dl by a fast two-sum of the larger
 *     and the smaller of 1 and e (dl exact but for e's own low word), q =
 *     1 / dh, and the result q + q (1 - q dh - q dl) (the remainder by
 *     fma) rounded once: within about 0.9 ulp however the errors
 *     line up. Where 2^k would put 1 / dh among the subnormals (k from
 *     BIAS - 1) e and the 1 are taken 2^-STEP_BITS smaller and the
 *     result scaled back, its one further rounding that of a subnormal.
 *   log1p: 1 + x = uh + ul exactly (two-sum), log(uh) as log computes it
 *     with ul / uh added to its small terms. */
#define TSR__K_EXP_LOG(T, sfx, C, U, FMA, RINT, BITS, FROM_BITS)                               \
    static inline T tsr__k_two_sum_##sfx(T a, T b, T *err)                                     \
    {                                                                                          \
        T s = a + b;                                                                           \
        T bb = s - a;                                                                          \
        *err = (a - (s - bb)) + (b - bb);                                                      \
        return s;                                                                              \
    }                                                                                          \
    static inline T tsr__k_pow2_##sfx(int k)                                                   \
    {                                                                                          \
        return FROM_BITS((U)(k + TSR__K_##C##_BIAS) << TSR__K_##C##_MANT);                     \
    }                                                                                          \
    static inline T tsr__k_scale_##sfx(T p, int k)                                             \
    {                                                                                          \
        int top = k > TSR__K_##C##_BIAS, bottom = k < 1 - TSR__K_##C##_BIAS;                   \
        int j = top ? k - TSR__K_##C##_BIAS : bottom ? k + TSR__K_##C##_STEP_BITS : k;         \
        T step = top ? TSR__K_##C##_TOP : bottom ? TSR__K_##C##_STEP_DOWN : (T)1;              \
        return p * tsr__k_pow2_##sfx(j) * step;                                                \
    }                                                                                          \
    static inline T tsr__k_exp_##sfx(T x)                                                      \
    {                                                                                          \
        int inside = x >= TSR__K_##C##_EXP_TINY && x <= TSR__K_##C##_EXP_HUGE;                 \
        T xi = inside ? x : (T)0;                                                              \
        T k = RINT(xi * TSR__K_##C##_LOG2E);                                                   \
        T r = FMA(-k, TSR__K_##C##_LN2_HI, xi);                                                \
        r = FMA(-k, TSR__K_##C##_LN2_LO, r);                                                   \
        T p = (T)1 + FMA(r * r, FMA(r, tsr__k_expq_tail_##sfx(r), TSR__K_##C##_EXPQ0), r);     \
        T y = tsr__k_scale_##sfx(p, (int)k);                                                   \
        y = x > TSR__K_##C##_EXP_HUGE ? (T)INFINITY : y;                                       \
        y = x < TSR__K_##C##_EXP_TINY ? (T)0 : y;                                              \
        return x != x ? x + x : y;                                                             \
    }                                                                                          \
    static inline T tsr__k_logw_##sfx(T x, int e, T c, T *lo)                                  \
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
        T hf = (T)0.5 * f;                                                                     \
        T h = hf * f;                                                                          \
        T et = (T)e;                                                                           \
        T small = FMA(s, FMA(z, tsr__k_logp_##sfx(z), h), FMA(et, TSR__K_##C##_LN2_LO, c));    \
        small -= FMA(hf, f, -h);                                                               \
        T d = f - h;                                                                           \
        T eh = et * TSR__K_##C##_LN2_HI;                                                       \
        T hi = eh + d;                                                                         \
        *lo = ((eh - hi) + d) + (((f - d) - h) + small);                                       \
        return hi;                                                                             \
    }                                                                                          \
    static inline T tsr__k_logm_##sfx(T x, T mh, T ml)                                         \
    {                                                                                          \
        if (x != x)                                                                            \
            return x + x;                                                                      \
        if (x == 0)                                                                            \
            return -(T)INFINITY;                                                               \
        if (x < 0)                                                                             \
            return (T)TSR__K_QUIET_NAN;                                                        \
        if (x == (T)INFINITY)                                                                  \
            return x;                                                                          \
        int e = 0;                                                                             \
        if (x < TSR__K_##C##_MIN_NORMAL) {                                                     \
            x *= TSR__K_##C##_SUB_SCALE;                                                       \
            e = -TSR__K_##C##_SUB_BITS;                                                        \
        }                                                                                      \
        T lo;                                                                                  \
        T hi = tsr__k_logw_##sfx(x, e, 0, &lo);                                                \
        T y = hi * mh;                                                                         \
        return y + (FMA(hi, mh, -y) + FMA(hi, ml, lo * mh));                                   \
    }                                                                                          \
    static inline T tsr__k_log_##sfx(T x)                                                      \
    {                                                                                          \
        return tsr__k_logm_##sfx(x, (T)1, (T)0);                                               \
    }                                                                                          \
    static inline T tsr__k_expr_##sfx(T x, T xl, T *r, T *h, T *lo)                            \
    {                                                                                          \
        T k = RINT(x * TSR__K_##C##_LOG2E);                                                    \
        T rh = FMA(-k, TSR__K_##C##_LN2_HI, x);                                                \
        T rr = FMA(-k, TSR__K_##C##_LN2_LO, rh);                                               \
        T rl = FMA(-k, TSR__K_##C##_LN2_LO, rh - rr);                                          \
        T rs = rr + xl;                                                                        \
        T rb = rs - rr;                                                                        \
        rl += (rr - (rs - rb)) + (xl - rb);                                                    \
        rr = rs;                                                                               \
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
        T yl;                                                                                  \
        T yh = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                              \
        T p = tsr__k_pow2_##sfx((int)k);                                                       \
        T a = p * yh;                                                                          \
        T err;                                                                                 \
        T hi = tsr__k_two_sum_##sfx(a, (T)-1, &err);                                           \
        *rest = k == 0 ? h + lo : FMA(p, yl, err);                                             \
        return k == 0 ? r : hi;                                                                \
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
        T k = tsr__k_expr_##sfx(x, 0, &r, &h, &lo);                                            \
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
        T ax = x < 0 ? -x : x;                                                                 \
        int inside = ax < TSR__K_##C##_TANH_ONE && x != 0;                                     \
        T a = inside ? ax : (T)1;                                                              \
        T r, h, lo, el;                                                                        \
        T k = tsr__k_expr_##sfx((T)-2 * a, 0, &r, &h, &lo);                                    \
        T eh = tsr__k_expm1k_##sfx(k, r, h, lo, &el);                                          \
        T e = eh + el;                                                                         \
        el -= e - eh;                                                                          \
        T dh = (T)2 + e;                                                                       \
        T dl = (e - (dh - (T)2)) + el;                                                         \
        T q = -e / dh;                                                                         \
        T rem = FMA(q, dh, e);                                                                 \
        T t = inside ? q + FMA(-q, dl, -(rem + el)) / dh : (T)1;                               \
        t = x < 0 ? -t : t;                                                                    \
        return x != x || x == 0 ? x + x : t;                                                   \
    }                                                                                          \
    static inline T tsr__k_sigmoidx_##sfx(T x, T xl, T *lo, int *k)                            \
    {                                                                                          \
        int far = x < TSR__K_##C##_SIGMOID_EXP, one = x > -TSR__K_##C##_EXPM1_TINY;            \
        T s = far ? x : one ? (T)0 : -x;                                                       \
        T sl = far ? xl : one ? (T)0 : -xl;                                                    \
        T r, h, l, yl;                                                                         \
        int kd = (int)tsr__k_expr_##sfx(s, sl, &r, &h, &l);                                    \
        T y = tsr__k_exp1p_##sfx(r, h, l, &yl);                                                \
        T yh = y + yl;                                                                         \
        T p = tsr__k_pow2_##sfx(kd);                                                           \
        T eh = p * yh;                                                                         \
        T yd = yl - (yh - y);                                                                  \
        T dh = (T)1 + eh;                                                                      \
        T b = dh - eh;                                                                         \
        T dl = ((eh - (dh - b)) + ((T)1 - b)) + p * yd;                                        \
        T q = (T)1 / dh;                                                                       \
        T rem = FMA(-q, dh, (T)1);                                                             \
        T ql = FMA(-q, dl, rem) / dh;                                                          \
        *k = far ? kd : 0;                                                                     \
        *lo = far ? yl : one ? (T)0 : ql;                                                      \
        return far ? y : one ? (T)1 : q;                                                       \
    }                                                                                          \
    static inline T tsr__k_sigmoid_##sfx(T x)                                                  \
    {                                                                                          \
        T z = -x;                                                                              \
        z = z < TSR__K_##C##_SIGMOID_EXP || x != x ? TSR__K_##C##_SIGMOID_EXP : z;             \
        z = z > -TSR__K_##C##_EXP_TINY ? -TSR__K_##C##_EXP_TINY : z;                           \
        T kb = FMA(z, TSR__K_##C##_LOG2E, TSR__K_##C##_SHIFTER);                               \
        T k = kb - TSR__K_##C##_SHIFTER;                                                       \
        T rh = FMA(-k, TSR__K_##C##_LN2_HI, z);                                                \
        T r = FMA(-k, TSR__K_##C##_LN2_LO, rh);                                                \
        T t = r * r * FMA(r, tsr__k_expq_tail_##sfx(r), TSR__K_##C##_EXPQ0);                   \
        T s = r + t;                                                                           \
        T h = (T)1 + s;                                                                        \
        T l = (((T)1 - h) + s) + ((r - s) + t);                                                \
        int kd = (int)k;                                                                       \
        int far = kd >= TSR__K_##C##_BIAS - 1;                                                 \
        T one = far ? TSR__K_##C##_STEP_DOWN : (T)1;                                           \
        T p = far ? tsr__k_pow2_##sfx(kd - TSR__K_##C##_STEP_BITS)                             \
                  : FROM_BITS(BITS(kb) << TSR__K_##C##_MANT);                                  \
        T eh = p * h, el = p * l;                                                              \
        T dh = one + eh;                                                                       \
        T big = eh > one ? eh : one, small = eh > one ? one : eh;                              \
        T dl = (small - (dh - big)) + el;                                                      \
        T q = (T)1 / dh;                                                                       \
        T y = FMA(q, FMA(-q, dl, FMA(-q, dh, (T)1)), q);                                       \
        y = far ? y * TSR__K_##C##_STEP_DOWN : y;                                              \
        return x != x ? x + x : y;                                                             \
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
        T lo;                                                                                  \
        T hi = tsr__k_logw_##sfx(uh, 0, ul / uh, &lo);                                         \
        return hi + lo;                                                                        \
    }

/* The functions built on those (same parameters, SQRT the correctly
 * rounded square root):
 *   exp2: 2^k 2^r, k = rint(x), r = x - k exact, 2^r = exp(t + tl) with
 *     t + tl = r ln2 in two words (ln2 in two words, LN2W), exp's Q.
 *   logm: log(x) (mh + ml), the two words of logw times a constant in
 *     two words: log (1), log2 (1 / ln2), log10 (1 / ln10).
 *   sch: (e^a + sgn e^-a) / 2 for a > 0: e^a = 2^k (yh + yl) and its
 *     reciprocal in two words; beyond k = MANT + 2, e^-a is below the
 *     result's rounding and 2^(k - 1) (yh + yl) is rounded once; sinh at
 *     k = 0 is r + (lo(r) - lo(-r)) / 2, the odd part of expm1's terms.
 *   asinh, acosh: log(a + sqrt(a^2 +- 1)), the argument of the log in two
 *     words (a^2 by fma, the square root corrected by its exact
 *     remainder), logw taking the low word as c; a above ROOT_BIG is
 *     log(2a) (the next term, 1 / (4 a^2), is far below an ulp); asinh(a)
 *     = a below ROOT_EPS, where a^3 / 6 is below a quarter of a's ulp.
 *   atanh: log((1 + a) / (1 - a)) / 2, the quotient in two words.
 *   rsqrt: y = 1 / sqrt(x) (rounded twice, so up to an ulp off), then one
 *     Newton step on y with the residual 1 - x y^2 taken exactly enough
 *     (y^2 in two words); x out of [MIN_NORMAL, 2^STEP_BITS] is scaled
 *     by an even power of two first, so y^2 stays a normal number.
 *   hypot: sqrt(a^2 + b^2), the sum in two words, the root corrected by
 *     its exact remainder; a above 2^HYPOT_EDGE or below its reciprocal
 *     scales both by 2^-+HYPOT_STEP, so no square overflows or underflows
 *     where it matters; inf beats NaN as IEEE 754 says. */
#define TSR__K_MATH_MORE(T, sfx, C, U, FMA, RINT, SQRT)                                           \
    static inline T tsr__k_exp2_##sfx(T x)                                                        \
    {                                                                                             \
        if (x != x)                                                                               \
            return x + x;                                                                         \
        if (x > (T)(TSR__K_##C##_BIAS + 1))                                                       \
            return (T)INFINITY;                                                                   \
        if (x < (T)(-TSR__K_##C##_BIAS - TSR__K_##C##_MANT - 1))                                  \
            return (T)0;                                                                          \
        T k = RINT(x);                                                                            \
        T r = x - k;                                                                              \
        T t = r * TSR__K_##C##_LN2W_HI;                                                           \
        T tl = FMA(r, TSR__K_##C##_LN2W_LO, FMA(r, TSR__K_##C##_LN2W_HI, -t));                    \
        T q = FMA(t, tsr__k_expq_tail_##sfx(t), TSR__K_##C##_EXPQ0);                              \
        return tsr__k_scale_##sfx((T)1 + (t + FMA(t * t, q, tl)), (int)k);                        \
    }                                                                                             \
    static inline T tsr__k_log2_##sfx(T x)                                                        \
    {                                                                                             \
        return tsr__k_logm_##sfx(x, TSR__K_##C##_INVLN2_HI, TSR__K_##C##_INVLN2_LO);              \
    }                                                                                             \
    static inline T tsr__k_log10_##sfx(T x)                                                       \
    {                                                                                             \
        return tsr__k_logm_##sfx(x, TSR__K_##C##_INVLN10_HI, TSR__K_##C##_INVLN10_LO);            \
    }                                                                                             \
    static inline T tsr__k_sch_##sfx(T a, T sgn)                                                  \
    {                                                                                             \
        T r, h, lo, yl;                                                                           \
        T k = tsr__k_expr_##sfx(a, 0, &r, &h, &lo);                                               \
        if (k == 0 && sgn < 0) {                                                                  \
            T r2, h2, lo2;                                                                        \
            tsr__k_expr_##sfx(-a, 0, &r2, &h2, &lo2);                                             \
            return r + (T)0.5 * (lo - lo2);                                                       \
        }                                                                                         \
        T y = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                                  \
        T yh = y + yl;                                                                            \
        if (k > (T)(TSR__K_##C##_MANT + 2))                                                       \
            return tsr__k_scale_##sfx(yh, (int)k - 1);                                            \
        yl -= yh - y;                                                                             \
        T p = tsr__k_pow2_##sfx((int)k - 1);                                                      \
        T q = sgn * tsr__k_pow2_##sfx(-(int)k - 1);                                               \
        T ih = (T)1 / yh;                                                                         \
        T il = FMA(-ih, yl, FMA(-ih, yh, (T)1)) / yh;                                             \
        T err;                                                                                    \
        T sh = tsr__k_two_sum_##sfx(p * yh, q * ih, &err);                                        \
        return sh + (err + FMA(p, yl, q * il));                                                   \
    }                                                                                             \
    static inline T tsr__k_sinh_##sfx(T x)                                                        \
    {                                                                                             \
        if (x != x || x == 0)                                                                     \
            return x + x;                                                                         \
        T a = x < 0 ? -x : x;                                                                     \
        T y = a > TSR__K_##C##_SINH_HUGE ? (T)INFINITY : tsr__k_sch_##sfx(a, (T)-1);              \
        return x < 0 ? -y : y;                                                                    \
    }                                                                                             \
    static inline T tsr__k_cosh_##sfx(T x)                                                        \
    {                                                                                             \
        if (x != x)                                                                               \
            return x + x;                                                                         \
        T a = x < 0 ? -x : x;                                                                     \
        return a > TSR__K_##C##_SINH_HUGE ? (T)INFINITY : tsr__k_sch_##sfx(a, (T)1);              \
    }                                                                                             \
    static inline T tsr__k_logu_##sfx(T uh, T ul)                                                 \
    {                                                                                             \
        T lo;                                                                                     \
        T hi = tsr__k_logw_##sfx(uh, 0, ul / uh, &lo);                                            \
        return hi + lo;                                                                           \
    }                                                                                             \
    static inline T tsr__k_log2x_##sfx(T a)                                                       \
    {                                                                                             \
        T lo;                                                                                     \
        T hi = tsr__k_logw_##sfx(a, 1, 0, &lo);                                                   \
        return hi + lo;                                                                           \
    }                                                                                             \
    static inline T tsr__k_root_plus_##sfx(T a, T sgn)                                            \
    {                                                                                             \
        T ph = a * a;                                                                             \
        T err;                                                                                    \
        T wh = tsr__k_two_sum_##sfx(ph, sgn, &err);                                               \
        T wl = err + FMA(a, a, -ph);                                                              \
        T sh = SQRT(wh);                                                                          \
        T sl = (FMA(-sh, sh, wh) + wl) / (sh + sh);                                               \
        T uh = tsr__k_two_sum_##sfx(a, sh, &err);                                                 \
        return tsr__k_logu_##sfx(uh, err + sl);                                                   \
    }                                                                                             \
    static inline T tsr__k_asinh_##sfx(T x)                                                       \
    {                                                                                             \
        T a = x < 0 ? -x : x;                                                                     \
        if (x != x)                                                                               \
            return x + x;                                                                         \
        if (a < TSR__K_##C##_ROOT_EPS || a == (T)INFINITY)                                        \
            return x;                                                                             \
        T y = a > TSR__K_##C##_ROOT_BIG ? tsr__k_log2x_##sfx(a) : tsr__k_root_plus_##sfx(a, 1);   \
        return x < 0 ? -y : y;                                                                    \
    }                                                                                             \
    static inline T tsr__k_acosh_##sfx(T x)                                                       \
    {                                                                                             \
        if (x != x || x == (T)INFINITY)                                                           \
            return x + x;                                                                         \
        if (x < (T)1)                                                                             \
            return (T)TSR__K_QUIET_NAN;                                                           \
        if (x == (T)1)                                                                            \
            return (T)0;                                                                          \
        return x > TSR__K_##C##_ROOT_BIG ? tsr__k_log2x_##sfx(x) : tsr__k_root_plus_##sfx(x, -1); \
    }                                                                                             \
    static inline T tsr__k_atanh_##sfx(T x)                                                       \
    {                                                                                             \
        T a = x < 0 ? -x : x;                                                                     \
        if (x != x)                                                                               \
            return x + x;                                                                         \
        if (a < TSR__K_##C##_ROOT_EPS)                                                            \
            return x;                                                                             \
        if (a > (T)1)                                                                             \
            return (T)TSR__K_QUIET_NAN;                                                           \
        if (a == (T)1)                                                                            \
            return x * (T)INFINITY;                                                               \
        T nh = (T)1 + a;                                                                          \
        T dh = (T)1 - a;                                                                          \
        T nl = ((T)1 - nh) + a;                                                                   \
        T dl = ((T)1 - dh) - a;                                                                   \
        T qh = nh / dh;                                                                           \
        T ql = (FMA(-qh, dh, nh) + FMA(-qh, dl, nl)) / dh;                                        \
        T y = (T)0.5 * tsr__k_logu_##sfx(qh, ql);                                                 \
        return x < 0 ? -y : y;                                                                    \
    }                                                                                             \
    static inline T tsr__k_rsqrt_##sfx(T x)                                                       \
    {                                                                                             \
        if (x != x)                                                                               \
            return x + x;                                                                         \
        if (x == 0)                                                                               \
            return (T)1 / x;                                                                      \
        if (x < 0)                                                                                \
            return (T)TSR__K_QUIET_NAN;                                                           \
        if (x == (T)INFINITY)                                                                     \
            return (T)0;                                                                          \
        int n = 0;                                                                                \
        if (x < TSR__K_##C##_MIN_NORMAL)                                                          \
            n = TSR__K_##C##_STEP_BITS;                                                           \
        else if (x > tsr__k_pow2_##sfx(TSR__K_##C##_STEP_BITS))                                   \
            n = -TSR__K_##C##_STEP_BITS;                                                          \
        x *= tsr__k_pow2_##sfx(n);                                                                \
        T y = (T)1 / SQRT(x);                                                                     \
        T t = y * y;                                                                              \
        T res = FMA(-x, FMA(y, y, -t), FMA(-x, t, (T)1));                                         \
        return FMA((T)0.5 * y, res, y) * tsr__k_pow2_##sfx(n / 2);                                \
    }                                                                                             \
    static inline T tsr__k_hypot_##sfx(T x, T y)                                                  \
    {                                                                                             \
        T a = x < 0 ? -x : x;                                                                     \
        T b = y < 0 ? -y : y;                                                                     \
        if (a == (T)INFINITY || b == (T)INFINITY)                                                 \
            return (T)INFINITY;                                                                   \
        if (a != a || b != b)                                                                     \
            return x + y;                                                                         \
        if (a < b) {                                                                              \
            T t = a;                                                                              \
            a = b;                                                                                \
            b = t;                                                                                \
        }                                                                                         \
        if (b == 0)                                                                               \
            return a == 0 ? (T)0 : a;                                                             \
        int n = 0;                                                                                \
        if (a > tsr__k_pow2_##sfx(TSR__K_##C##_HYPOT_EDGE))                                       \
            n = -TSR__K_##C##_HYPOT_STEP;                                                         \
        else if (a < tsr__k_pow2_##sfx(-TSR__K_##C##_HYPOT_EDGE))                                 \
            n = TSR__K_##C##_HYPOT_STEP;                                                          \
        a *= tsr__k_pow2_##sfx(n);                                                                \
        b *= tsr__k_pow2_##sfx(n);                                                                \
        T ah = a * a;                                                                             \
        T bh = b * b;                                                                             \
        T s = ah + bh;                                                                            \
        T sl = ((ah - s) + bh) + (FMA(a, a, -ah) + FMA(b, b, -bh));                               \
        T r = SQRT(s);                                                                            \
        return (r + (FMA(-r, r, s) + sl) / (r + r)) * tsr__k_pow2_##sfx(-n);                      \
    }

/* erf, erfc, gelu (both forms) and silu of a real type T, built on exp's
 * pieces above and the type's tables (TAB, N terms a row) and its
 * tsr__k_erfp_<sfx>(z) (P of gen_erf_coeffs.py).
 *   erfcrow: F (G for the rows of t) on row i at x: c0 + c1 s in two
 *     words, the rest in the low word (the rows keep s^2 Q(s) to a few
 *     hundredths of F).
 *   erfc2: erfc(x + xl) = 2^k (hi + lo) for x in [1/2, ERFC_ZERO):
 *     exp(-(x + xl)^2) in two words (the square's rounding error and
 *     2 x xl carried into exp's reduction) times F in two words, beyond
 *     3 G(1/x) / x with the division's remainder kept, and xl F'(x) =
 *     xl (2 x F(x) - 2 / sqrt(pi)) added to its low word.
 *   erfcx: erfc(x + xl) for every x but NaN, as 2^k (hi + lo): below 1/2
 *     in magnitude 1 - x - x P(x^2) - xl erfc'(x) with the sums carried;
 *     below -1/2, 2 - erfc(-x - xl); 2 from -ERF_ONE, 0 from ERFC_ZERO.
 *   erf: x + x P(x^2) below 1/2 (one fma: exact at +-0 and for
 *     subnormals), 1 - erfc(|x|) up to ERF_ONE (+-1 beyond).
 *   geluv: gelu(v) = v Phi(v) = (v / 2) erfc(-v / sqrt2) of a finite v,
 *     v / sqrt2 in two words (the erfc of a rounded argument would be off
 *     by up to v^2 ulps far below 0); *small where that argument is
 *     below 1/2 in magnitude (erfcx's polynomial path).
 *   gelu_of: gelu(x) from g, geluv's result where x is finite, PyTorch's
 *     NaN at -inf and x + x at +inf and NaN. tsr__k_gelu_<sfx> (after
 *     the type's tables) puts the two together.
 *   gelu_tanh: PyTorch's x (1 + tanh(u)) / 2, u = sqrt(2 / pi) (x +
 *     0.044715 x^3), as x sigmoid(2u) (the same number, without the
 *     cancellation of 1 + tanh(u) below 0), 2u in two words; x beyond
 *     2^10 and x * 0 below -2^10, where 2u is past both ends.
 *   silu: x sigmoid(x), the sigmoid in two words; x * 0 below SILU_TINY,
 *     where x exp(x) rounds to 0.
 * erfc2, erfcx and geluv run their paths side by side and pick the result
 * with selects, as exp does (gelu on one PoCL thread: from one element
 * at a time to a vector loop), and erfcrow takes its row's entries
 * through TSR__K_ROW_ENTRY. */
#define TSR__K_ERF(T, sfx, C, FMA, TAB, N)                                         \
    static inline T tsr__k_erfcrow_##sfx(int i, T x, T *lo)                        \
    {                                                                              \
        T m, c0, c1, c3, q, e;                                                     \
        TSR__K_ROW_ENTRY(m, TAB, N + 2, i, 0);                                     \
        TSR__K_ROW_ENTRY(c1, TAB, N + 2, i, 1);                                    \
        TSR__K_ROW_ENTRY(c0, TAB, N + 2, i, 2);                                    \
        TSR__K_ROW_ENTRY(c3, TAB, N + 2, i, 3);                                    \
        TSR__K_ROW_ENTRY(q, TAB, N + 2, i, N + 1);                                 \
        T s = x - m;                                                               \
        TSR__K_UNROLL                                                              \
        for (int j = N; j > 3; j--) {                                              \
            TSR__K_ROW_ENTRY(e, TAB, N + 2, i, j);                                 \
            q = FMA(s, q, e);                                                      \
        }                                                                          \
        T p = c3 * s;                                                              \
        T hi = c0 + p;                                                             \
        *lo = ((c0 - hi) + p) + (FMA(c3, s, -p) + c1 + s * s * q);                 \
        return hi;                                                                 \
    }                                                                              \
    static inline T tsr__k_erfc2_##sfx(T x, T xl, T *lo, int *k)                   \
    {                                                                              \
        T xx = x * x;                                                              \
        T xxl = FMA(x, x, -xx) + (T)2 * x * xl;                                    \
        T r, h, l, yl, fl, fh;                                                     \
        *k = (int)tsr__k_expr_##sfx(-xx, -xxl, &r, &h, &l);                        \
        T y = tsr__k_exp1p_##sfx(r, h, l, &yl);                                    \
        T yh = y + yl;                                                             \
        yl -= yh - y;                                                              \
        int near = x < (T)3;                                                       \
        T t = (T)1 / x;                                                            \
        int j = (int)(t * (T)12);                                                  \
        int i = near ? (int)((x - (T)0.5) * (T)2) : 5 + (j < 3 ? j : 3);           \
        T gl;                                                                      \
        T g = tsr__k_erfcrow_##sfx(i, near ? x : t, &gl);                          \
        fh = near ? g : g / x;                                                     \
        fl = near ? gl : (FMA(-fh, x, g) + gl) / x;                                \
        fl = FMA(xl, FMA((T)2 * x, fh, -TSR__K_##C##_TWO_SQRTPI), fl);             \
        T ph = yh * fh;                                                            \
        *lo = FMA(yh, fh, -ph) + FMA(yh, fl, yl * fh);                             \
        return ph;                                                                 \
    }                                                                              \
    static inline T tsr__k_erfc_from_##sfx(T c, T e, T el, int k, T *lo)           \
    {                                                                              \
        T p = tsr__k_pow2_##sfx(k);                                                \
        T a = p * e;                                                               \
        T s = c - a;                                                               \
        *lo = ((c - s) - a) - p * el;                                              \
        return s;                                                                  \
    }                                                                              \
    static inline T tsr__k_erfcx_##sfx(T x, T xl, T *lo, int *k)                   \
    {                                                                              \
        T ax = x < 0 ? -x : x;                                                     \
        int small = ax < (T)0.5, pos = x > 0;                                      \
        int mid = !small && x < TSR__K_##C##_ERFC_ZERO;                            \
        mid = mid && x > -TSR__K_##C##_ERF_ONE;                                    \
        T p = tsr__k_erfp_##sfx(x * x);                                            \
        T a = x * p;                                                               \
        T bh = (T)1 - x;                                                           \
        T bl = ((T)1 - bh) - x;                                                    \
        T s = bh - a;                                                              \
        T d = xl * TSR__K_##C##_TWO_SQRTPI * ((T)1 - x * x);                       \
        T sl = ((bh - s) - a) + ((bl - FMA(x, p, -a)) - d);                        \
        T el, fl;                                                                  \
        int ke;                                                                    \
        T e = tsr__k_erfc2_##sfx(mid ? ax : (T)1, x < 0 ? -xl : xl, &el, &ke);     \
        T f = tsr__k_erfc_from_##sfx((T)2, e, el, ke, &fl);                        \
        *k = mid && pos ? ke : 0;                                                  \
        *lo = small ? sl : mid ? (pos ? el : fl) : (T)0;                           \
        return small ? s : mid ? (pos ? e : f) : pos ? (T)0 : (T)2;                \
    }                                                                              \
    static inline T tsr__k_erf_##sfx(T x)                                          \
    {                                                                              \
        if (x != x)                                                                \
            return x + x;                                                          \
        T ax = x < 0 ? -x : x;                                                     \
        if (ax < (T)0.5)                                                           \
            return FMA(x, tsr__k_erfp_##sfx(x * x), x);                            \
        T r = (T)1;                                                                \
        if (ax < TSR__K_##C##_ERF_ONE) {                                           \
            T el, lo;                                                              \
            int k;                                                                 \
            T e = tsr__k_erfc2_##sfx(ax, 0, &el, &k);                              \
            r = tsr__k_erfc_from_##sfx((T)1, e, el, k, &lo);                       \
            r += lo;                                                               \
        }                                                                          \
        return x < 0 ? -r : r;                                                     \
    }                                                                              \
    static inline T tsr__k_erfc_##sfx(T x)                                         \
    {                                                                              \
        if (x != x)                                                                \
            return x + x;                                                          \
        T lo;                                                                      \
        int k;                                                                     \
        T e = tsr__k_erfcx_##sfx(x, 0, &lo, &k);                                   \
        return tsr__k_scale_##sfx(e + lo, k);                                      \
    }                                                                              \
    static inline T tsr__k_geluv_##sfx(T v, int *small)                            \
    {                                                                              \
        T yh = v * TSR__K_##C##_SQRT1_2_HI;                                        \
        T yl = FMA(v, TSR__K_##C##_SQRT1_2_HI, -yh) + v * TSR__K_##C##_SQRT1_2_LO; \
        T lo;                                                                      \
        int k;                                                                     \
        T e = tsr__k_erfcx_##sfx(-yh, -yl, &lo, &k);                               \
        *small = (yh < 0 ? -yh : yh) < (T)0.5;                                     \
        return tsr__k_scale_##sfx(FMA(v, (T)0.5 * e, v * ((T)0.5 * lo)), k);       \
    }                                                                              \
    static inline T tsr__k_gelu_of_##sfx(T x, T g)                                 \
    {                                                                              \
        return x - x == 0 ? g : x == -(T)INFINITY ? (T)TSR__K_QUIET_NAN : x + x;   \
    }                                                                              \
    static inline T tsr__k_xsigmoid_##sfx(T x, T v, T vl)                          \
    {                                                                              \
        if (v < TSR__K_##C##_SILU_TINY)                                            \
            return x * (T)0;                                                       \
        T lo;                                                                      \
        int k;                                                                     \
        T q = tsr__k_sigmoidx_##sfx(v, vl, &lo, &k);                               \
        return tsr__k_scale_##sfx(FMA(x, q, x * lo), k);                           \
    }                                                                              \
    static inline T tsr__k_silu_##sfx(T x)                                         \
    {                                                                              \
        if (x != x || x == (T)INFINITY)                                            \
            return x + x;                                                          \
        if (x == -(T)INFINITY)                                                     \
            return (T)TSR__K_QUIET_NAN;                                            \
        return tsr__k_xsigmoid_##sfx(x, x, 0);                                     \
    }                                                                              \
    static inline T tsr__k_gelut_##sfx(T x)                                        \
    {                                                                              \
        if (x != x || x == (T)INFINITY)                                            \
            return x + x;                                                          \
        if (x == -(T)INFINITY)                                                     \
            return (T)TSR__K_QUIET_NAN;                                            \
        if (x > (T)1024)                                                           \
            return x;                                                              \
        if (x < (T)-1024)                                                          \
            return x * (T)0;                                                       \
        T x2 = x * x;                                                              \
        T x3 = x2 * x;                                                             \
        T x3l = FMA(x2, x, -x3) + FMA(x, x, -x2) * x;                              \
        T a = TSR__K_##C##_GELU_A_HI * x;                                          \
        T al = FMA(TSR__K_##C##_GELU_A_HI, x, -a) + TSR__K_##C##_GELU_A_LO * x;    \
        T b = TSR__K_##C##_GELU_B_HI * x3;                                         \
        T bl = FMA(TSR__K_##C##_GELU_B_HI, x3, -b) +                               \
               FMA(TSR__K_##C##_GELU_B_HI, x3l, TSR__K_##C##_GELU_B_LO * x3);      \
        T v = a + b;                                                               \
        T bb = v - a;                                                              \
        T vl = ((a - (v - bb)) + (b - bb)) + (al + bl);                            \
        return tsr__k_xsigmoid_##sfx(x, v, vl);                                    \
    }

/* pow of a real type T (W its width in bits, TAB its table and
 * tsr__k_powa_<sfx>(r) its A(r), both from tests/kernels/gen_pow_table.py,
 * SQRT the correctly rounded square root):
 *   powlog: log(x) for a positive x in two words (hi + *lo), to about
 *     2^-66 (float32: 2^-40) of itself: subnormals scaled up first;
 *     x = 2^k z with z in [OFF, 2 OFF), the top 7 bits of bits(x) -
 *     bits(OFF) pick row i (INVC, -log(INVC) in two words); z INVC =
 *     ph + pl exactly (fma), r = ph - 1 exactly (Sterbenz), and log x =
 *     k ln2 - log(INVC) + r - r^2 / 2 + r^3 A(r) + pl / ph, the
 *     large terms summed by two-sums and their errors kept in the low
 *     word with the small ones. The row holding 1 has INVC = 1: near 1
 *     the logarithm is r's own series, with no cancellation.
 *   pow: IEEE 754's special values (pow(x, +-0) = 1 and pow(1, y) = 1
 *     even for NaN, pow(-1, +-inf) = 1, the zeros' and infinities'
 *     signed results, NaN for a negative x and a non-integer y), then
 *     exp(y log|x|) with y log|x| in two words (the product's rounding
 *     error by fma) through exp's two-word path (expr, exp1p, scale),
 *     negated for a negative x and an odd integer y (RINT(y) = y and
 *     RINT(y / 2) != y / 2; beyond 2^(MANT + 1) every number is even).
 *   pows: PyTorch 1.13's pow with a Python-number exponent, which takes
 *     sqrt for 1/2, 1 / sqrt for -1/2, 1 / x for -1, x x for 2, x x x
 *     for 3 and 1 / (x x) for -2 (their bits, signed zeros and NaNs:
 *     pows(-0, 0.5) = -0, pows(-inf, 0.5) = NaN), pow elsewhere. */
#define TSR__K_POW(T, sfx, C, U, W, FMA, RINT, SQRT, BITS, FROM_BITS, TAB)                        \
    static inline T tsr__k_powlog_##sfx(T x, T *lo)                                               \
    {                                                                                             \
        int e = 0;                                                                                \
        if (x < TSR__K_##C##_MIN_NORMAL) {                                                        \
            x *= TSR__K_##C##_SUB_SCALE;                                                          \
            e = -TSR__K_##C##_SUB_BITS;                                                           \
        }                                                                                         \
        U u = BITS(x);                                                                            \
        U t = u - TSR__K_POW##C##_OFF;                                                            \
        int i = (int)(t >> (TSR__K_##C##_MANT - 7)) & 127;                                        \
        e += (int)((t + ((U)1 << (W - 2))) >> TSR__K_##C##_MANT) -                                \
             (1 << (W - 2 - TSR__K_##C##_MANT));                                                  \
        T z = FROM_BITS(u - (t & ((U)0 - ((U)1 << TSR__K_##C##_MANT))));                          \
        T invc = TAB[3 * i];                                                                      \
        T ph = z * invc;                                                                          \
        T pl = FMA(z, invc, -ph);                                                                 \
        T r = ph - (T)1;                                                                          \
        T et = (T)e;                                                                              \
        T e1, e2, e3;                                                                             \
        T t1 = tsr__k_two_sum_##sfx(et * TSR__K_##C##_LN2_HI, TAB[3 * i + 1], &e1);               \
        T t2 = tsr__k_two_sum_##sfx(t1, r, &e2);                                                  \
        T ar = (T)-0.5 * r;                                                                       \
        T a2 = ar * r;                                                                            \
        T hi = tsr__k_two_sum_##sfx(t2, a2, &e3);                                                 \
        T l = FMA(et, TSR__K_##C##_LN2_LO, TAB[3 * i + 2]) + ((e1 + e2) + e3) + FMA(ar, r, -a2) + \
              pl / ph + r * r * r * tsr__k_powa_##sfx(r);                                         \
        T y = hi + l;                                                                             \
        *lo = (hi - y) + l;                                                                       \
        return y;                                                                                 \
    }                                                                                             \
    static inline T tsr__k_pow_##sfx(T x, T y)                                                    \
    {                                                                                             \
        if (y == 0 || x == (T)1)                                                                  \
            return (T)1;                                                                          \
        if (x != x || y != y)                                                                     \
            return x + y;                                                                         \
        T ax = x < 0 ? -x : x;                                                                    \
        if (y == (T)INFINITY || y == -(T)INFINITY)                                                \
            return ax == (T)1 ? (T)1 : (ax < (T)1) == (y < 0) ? (T)INFINITY : (T)0;               \
        T hy = (T)0.5 * y;                                                                        \
        T sgn = (BITS(x) >> (W - 1)) && RINT(y) == y && RINT(hy) != hy ? (T)-1 : (T)1;            \
        if (ax == 0 || ax == (T)INFINITY)                                                         \
            return sgn * ((ax == 0) == (y < 0) ? (T)INFINITY : (T)0);                             \
        if (x < 0 && RINT(y) != y)                                                                \
            return (T)TSR__K_QUIET_NAN;                                                           \
        T ll, r, h, lo, yl;                                                                       \
        T lh = tsr__k_powlog_##sfx(ax, &ll);                                                      \
        T p = y * lh;                                                                             \
        if (p > TSR__K_##C##_EXP_HUGE || p < TSR__K_##C##_EXP_TINY)                               \
            return sgn * (p > 0 ? (T)INFINITY : (T)0);                                            \
        T k = tsr__k_expr_##sfx(p, FMA(y, lh, -p) + y * ll, &r, &h, &lo);                         \
        T v = tsr__k_exp1p_##sfx(r, h, lo, &yl);                                                  \
        return sgn * tsr__k_scale_##sfx(v + yl, (int)k);                                          \
    }                                                                                             \
    static inline T tsr__k_pows_##sfx(T x, T y)                                                   \
    {                                                                                             \
        if (y == (T)0.5 || y == (T)-0.5)                                                          \
            return y > 0 ? SQRT(x) : (T)1 / SQRT(x);                                              \
        if (y == (T)-1 || y == (T)-2)                                                             \
            return (T)1 / (y == (T)-1 ? x : x * x);                                               \
        if (y == (T)2 || y == (T)3)                                                               \
            return y == (T)2 ? x * x : x * x * x;                                                 \
        return tsr__k_pow_##sfx(x, y);                                                            \
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
TSR__K_MATH_MORE(float, f32, F, tsr__u32, tsr__k_fmaf, tsr__k_rintf, tsr__k_sqrtf)

/* clang-format off */
/* TSR__K_ERFCF: 9 rows of m, the constant in two words and 7 more terms; fit error 2^-30.3 of F at most */
#define TSR__K_ERFCF_N 8
TSR__K_TABLE float tsr__k_erfcf[] = {
    0x1.800000p-1f, 0x1.cf660ap-26f, 0x1.038d54p-1f, -0x1.78cdd6p-2f, 0x1.d900a8p-3f, -0x1.09e786p-3f, 0x1.118648p-4f, -0x1.0543a8p-5f, 0x1.de5610p-7f, -0x1.945e7cp-8f,
    0x1.400000p+0f, 0x1.28b55cp-30f, 0x1.78a692p-2f, -0x1.abaacep-3f, 0x1.b56f4ep-4f, -0x1.9b6360p-5f, 0x1.689886p-6f, -0x1.298f76p-7f, 0x1.d98e30p-9f, -0x1.60ef62p-10f,
    0x1.c00000p+0f, 0x1.e344d4p-27f, 0x1.23cfc2p-2f, -0x1.0c3d54p-3f, 0x1.c8d0d2p-5f, -0x1.6cb532p-6f, 0x1.136002p-7f, -0x1.8bf180p-9f, 0x1.1409c0p-10f, -0x1.6cadaap-12f,
    0x1.200000p+1f, 0x1.ac1102p-28f, 0x1.d94446p-3f, -0x1.6a70d2p-4f, 0x1.061568p-5f, -0x1.6883fap-7f, 0x1.da547cp-9f, -0x1.2bcfa0p-10f, 0x1.715694p-12f, -0x1.b32490p-14f,
    0x1.600000p+1f, 0x1.1fd216p-28f, 0x1.8c9eb6p-3f, -0x1.030578p-4f, 0x1.43b98cp-6f, -0x1.84e9acp-8f, 0x1.c2c43cp-10f, -0x1.f99b4ap-12f, 0x1.1576dap-13f, -0x1.25710cp-15f,
    0x1.e4b17ep-5f, -0x1.ad87d4p-27f, 0x1.205cb2p-1f, -0x1.0e9fc8p-5f, -0x1.17f56ep-2f, 0x1.88d5b4p-4f, 0x1.7b854ap-2f, -0x1.578316p-2f, -0x1.77188ap-1f, 0x1.60f71ep+0f,
    0x1.000000p-3f, 0x1.36f9e2p-34f, 0x1.1ea8c4p-1f, -0x1.14108ep-4f, -0x1.f7b136p-3f, 0x1.67f06cp-3f, 0x1.d1afa4p-3f, -0x1.f4c37cp-2f, -0x1.c4429ep-5f, 0x1.4e6f40p+0f,
    0x1.aaaaaap-3f, 0x1.79be5ap-28f, 0x1.1af73ep-1f, -0x1.ab4916p-4f, -0x1.8ffa6ap-3f, 0x1.c03936p-3f, 0x1.43c87ap-5f, -0x1.80ac56p-2f, 0x1.909a8cp-2f, 0x1.f00d44p-3f,
    0x1.2aaaaap-2f, -0x1.27a2e2p-27f, 0x1.15e2b8p-1f, -0x1.0ef220p-3f, -0x1.206590p-3f, 0x1.af7732p-3f, -0x1.317b32p-4f, -0x1.68406ap-3f, 0x1.6c0b88p-2f, -0x1.fc9ab8p-3f,
};
/* clang-format on */
static inline float tsr__k_erfp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_ERFF_P5, TSR__K_ERFF_P4);
    p = tsr__k_fmaf(z, p, TSR__K_ERFF_P3);
    p = tsr__k_fmaf(z, p, TSR__K_ERFF_P2);
    p = tsr__k_fmaf(z, p, TSR__K_ERFF_P1);
    return tsr__k_fmaf(z, p, TSR__K_ERFF_P0);
}
TSR__K_ERF(float, f32, F, tsr__k_fmaf, tsr__k_erfcf, TSR__K_ERFCF_N)

/* From tests/kernels/gen_gelu_table.py: */
/* clang-format off */
/* TSR__K_GELUF: 8 rows of c0, c1 and c2 in two words and 6 more terms; error 2^-30.7 of a Phi(-a) at most (rows 6 and 7: 2^-26.5) */
#define TSR__K_GELUF_N 12
TSR__K_TABLE float tsr__k_geluf[] = {
    0x0p+0f, 0x0p+0f, 0x1.000000p-2f, 0x1.ba85a6p-37f, -0x1.988454p-4f, 0x1.51322ap-30f, 0x1.1f5194p-25f, 0x1.1053cep-8f, 0x1.0cd760p-20f, -0x1.4b0f0cp-13f, 0x1.20ea4ep-19f, 0x1.e70c62p-19f,
    0x1.5c1980p-3f, 0x1.041aeep-29f, 0x1.95f1e4p-12f, -0x1.f029e8p-37f, -0x1.bb4638p-5f, -0x1.13d1aap-30f, 0x1.09003ap-6f, 0x1.3793d2p-12f, -0x1.75fc64p-11f, 0x1.3e0eecp-15f, 0x1.6824a0p-16f, -0x1.21f4c6p-19f,
    0x1.0e76a2p-3f, 0x1.769434p-28f, -0x1.f66bfep-5f, -0x1.b1ed92p-37f, -0x1.474ea2p-7f, -0x1.e8902ep-35f, 0x1.7be900p-7f, -0x1.184e30p-9f, -0x1.95ca2cp-13f, 0x1.b78a7ep-14f, -0x1.babbd8p-19f, -0x1.7cbb64p-19f,
    0x1.1f24e0p-4f, -0x1.b8d500p-30f, -0x1.c65a80p-5f, 0x1.ef24aep-35f, 0x1.777a98p-7f, 0x1.4b315cp-32f, 0x1.8285cep-9f, -0x1.daa3eep-10f, 0x1.0410a0p-12f, 0x1.08a706p-15f, -0x1.a70a16p-17f, 0x1.06e8a6p-21f,
    0x1.c2a49ap-6f, -0x1.f3e466p-31f, -0x1.e4e1e4p-6f, 0x1.7734fap-33f, 0x1.8e2466p-7f, 0x1.7c361cp-32f, -0x1.9e64a0p-10f, -0x1.f76ef2p-12f, 0x1.d652e8p-13f, -0x1.cfb074p-16f, -0x1.a7ca4ep-19f, 0x1.5cc4ccp-20f,
    0x1.0c832ep-7f, 0x1.0b4a60p-33f, -0x1.68e62cp-7f, -0x1.f0e9a0p-35f, 0x1.9e601ep-8f, -0x1.e079aep-36f, -0x1.e68accp-10f, 0x1.99e9eap-13f, 0x1.b4ead6p-15f, -0x1.7c526ap-16f, 0x1.833c00p-19f, 0x1.86e77ep-23f,
    0x1.eb9b5cp-10f, -0x1.4dab76p-38f, -0x1.8a5ae8p-9f, 0x1.8f6414p-34f, 0x1.1ca6aep-9f, 0x1.44426ep-37f, -0x1.d8afe2p-11f, 0x1.cd4d86p-13f, -0x1.8176eep-16f, -0x1.fc181cp-19f, 0x1.f19a3ep-20f, -0x1.26ba84p-22f,
    0x1.5babc0p-12f, 0x1.ccf5e2p-37f, -0x1.437006p-11f, -0x1.2646cap-36f, 0x1.16bc9cp-11f, 0x1.2099f0p-37f, -0x1.22a6cap-12f, 0x1.8de6a2p-14f, -0x1.60d068p-16f, 0x1.449762p-19f, 0x1.58f0d8p-23f, -0x1.ff05fcp-24f,
};
/* clang-format on */

/* Where gelu's table serves x: from -3 to 4 (row k of the table holds
 * |x| in [k/2, (k+1)/2); rows 6 and 7 only x above 0). */
#define TSR__K_F_GELU_LOW -3.0f
#define TSR__K_F_GELU_HIGH 4.0f

/* gelu of float32 for x in (GELU_LOW, GELU_HIGH), a = |x| (and a stand-in
 * elsewhere): S = a Phi(-a) from the row of tsr__k_geluf that holds a (u
 * = 2a - k - 1/2, exact; row 0: u = 2a), c0 + c1 u + c2 u^2 in two words
 * (both products' rounding errors by fma, both sums' by two-sums), the
 * rest (u^3 Q(u), u^2's own rounding error, the low words) in the low
 * word: hi + lo. Then gelu(x) = x Phi(x) is -S below 0 and x - S above:
 * y - hi - lo with y = max(x, 0), y - hi in two words (exact, hi is under
 * half of x above 0 and y - hi is -hi below), rounded once. Each way of
 * gelu runs on every input, on a stand-in where it does not apply, and
 * a select picks (as exp's paths do), the table's row by
 * TSR__K_ROW_ENTRY. */
static inline float tsr__k_gelum_f32(float x, float a)
{
    float a2 = a * 2.0f;
    int k = (int)a2;
    float u = (a2 - (float)k) - (k > 0 ? 0.5f : 0.0f);
    float q, e, c0, c0l, c1, c1l, c2, c2l;
    TSR__K_ROW_ENTRY(q, tsr__k_geluf, TSR__K_GELUF_N, k, TSR__K_GELUF_N - 1);
    TSR__K_UNROLL
    for (int j = TSR__K_GELUF_N - 2; j > 5; j--) {
        TSR__K_ROW_ENTRY(e, tsr__k_geluf, TSR__K_GELUF_N, k, j);
        q = tsr__k_fmaf(u, q, e);
    }
    TSR__K_ROW_ENTRY(c0, tsr__k_geluf, TSR__K_GELUF_N, k, 0);
    TSR__K_ROW_ENTRY(c0l, tsr__k_geluf, TSR__K_GELUF_N, k, 1);
    TSR__K_ROW_ENTRY(c1, tsr__k_geluf, TSR__K_GELUF_N, k, 2);
    TSR__K_ROW_ENTRY(c1l, tsr__k_geluf, TSR__K_GELUF_N, k, 3);
    TSR__K_ROW_ENTRY(c2, tsr__k_geluf, TSR__K_GELUF_N, k, 4);
    TSR__K_ROW_ENTRY(c2l, tsr__k_geluf, TSR__K_GELUF_N, k, 5);
    float uu = u * u;
    float uul = tsr__k_fmaf(u, u, -uu);
    float p1 = c1 * u;
    float p2 = c2 * uu;
    float t = c0 + p1;
    float tb = t - c0;
    float hi = t + p2;
    float hb = hi - t;
    float lo =
        (((c0 - (t - tb)) + (p1 - tb)) + ((t - (hi - hb)) + (p2 - hb))) +
        (tsr__k_fmaf(c1, u, -p1) + tsr__k_fmaf(c2, uu, -p2)) +
        tsr__k_fmaf(uu, tsr__k_fmaf(u, q, c2l), tsr__k_fmaf(c2, uul, tsr__k_fmaf(c1l, u, c0l)));
    float y = x > 0 ? x : 0.0f;
    float d = y - hi;
    return d + (((y - d) - hi) - lo);
}
static inline float tsr__k_gelu_f32(float x)
{
    int near = x > TSR__K_F_GELU_LOW && x < TSR__K_F_GELU_HIGH;
    float v = near ? 0.0f : x - x == 0 ? x : 0.0f;
    int small;
    float g = tsr__k_geluv_f32(v, &small);
    float m = tsr__k_gelum_f32(near ? x : 0.0f, near ? (x < 0 ? -x : x) : 0.0f);
    return x == 0 ? x : near ? m : tsr__k_gelu_of_f32(x, g);
}

/* From tests/kernels/gen_pow_table.py: */
/* clang-format off */
/* POWF: OFF, |r| <= 2^-8.01, A of 3 Taylor terms (next term 2^-42.6 of r) */
#define TSR__K_POWF_OFF 0x3F355556u
#define TSR__K_POWF_A0 0x1.555556p-2f
#define TSR__K_POWF_A1 -0x1.000000p-2f
#define TSR__K_POWF_A2 0x1.99999ap-3f
TSR__K_TABLE float tsr__k_powf[] = {
    0x1.686b00p+0f, -0x1.5e4c0ap-2f, 0x1.b7232ep-29f,
    0x1.667258p+0f, -0x1.58ae4cp-2f, -0x1.ff4c0ap-27f,
    0x1.647f30p+0f, -0x1.53186ep-2f, -0x1.c68eb6p-27f,
    0x1.62916ep+0f, -0x1.4d8a50p-2f, -0x1.2a182ep-27f,
    0x1.60a8fcp+0f, -0x1.4803dep-2f, 0x1.c998f8p-28f,
    0x1.5ec5c4p+0f, -0x1.428500p-2f, -0x1.ef4c5cp-29f,
    0x1.5ce7b2p+0f, -0x1.3d0da8p-2f, 0x1.3efdeap-30f,
    0x1.5b0eb0p+0f, -0x1.379dbep-2f, 0x1.e7db44p-27f,
    0x1.593aaap+0f, -0x1.32352cp-2f, -0x1.e6e20ap-27f,
    0x1.576b8ap+0f, -0x1.2cd3dep-2f, -0x1.215df8p-30f,
    0x1.55a140p+0f, -0x1.2779c8p-2f, 0x1.e59c34p-29f,
    0x1.53dbb6p+0f, -0x1.2226cep-2f, -0x1.3836f6p-27f,
    0x1.521adap+0f, -0x1.1cdae2p-2f, -0x1.d7f270p-29f,
    0x1.505e9ap+0f, -0x1.1795f2p-2f, 0x1.2e02b4p-27f,
    0x1.4ea6e4p+0f, -0x1.1257eap-2f, -0x1.82da58p-30f,
    0x1.4cf3a4p+0f, -0x1.0d20b4p-2f, 0x1.89075cp-27f,
    0x1.4b44ccp+0f, -0x1.07f046p-2f, 0x1.5019fep-27f,
    0x1.499a4ap+0f, -0x1.02c68cp-2f, 0x1.60de94p-30f,
    0x1.47f40ap+0f, -0x1.fb46d6p-3f, -0x1.49efb4p-28f,
    0x1.465202p+0f, -0x1.f10dccp-3f, -0x1.57733ap-28f,
    0x1.44b41cp+0f, -0x1.e6e1b4p-3f, 0x1.fbe75ep-28f,
    0x1.431a4cp+0f, -0x1.dcc280p-3f, 0x1.cc6914p-31f,
    0x1.418480p+0f, -0x1.d2b002p-3f, -0x1.3b20acp-29f,
    0x1.3ff2aap+0f, -0x1.c8aa22p-3f, 0x1.ce8d28p-28f,
    0x1.3e64bep+0f, -0x1.beb0cep-3f, -0x1.53a63cp-28f,
    0x1.3cdaaap+0f, -0x1.b4c3d6p-3f, 0x1.a01848p-29f,
    0x1.3b5460p+0f, -0x1.aae318p-3f, -0x1.4d3360p-28f,
    0x1.39d1d4p+0f, -0x1.a10e86p-3f, -0x1.5c6d62p-29f,
    0x1.3852f6p+0f, -0x1.9745f2p-3f, 0x1.0a103ep-30f,
    0x1.36d7bap+0f, -0x1.8d8948p-3f, 0x1.8c5becp-28f,
    0x1.356014p+0f, -0x1.83d872p-3f, 0x1.61fce8p-28f,
    0x1.33ebf4p+0f, -0x1.7a3340p-3f, 0x1.5ab714p-28f,
    0x1.327b50p+0f, -0x1.7099a6p-3f, -0x1.eeecf0p-28f,
    0x1.310e1ap+0f, -0x1.670b82p-3f, -0x1.d019a6p-30f,
    0x1.2fa446p+0f, -0x1.5d88b8p-3f, 0x1.926f46p-28f,
    0x1.2e3dcap+0f, -0x1.541138p-3f, -0x1.e18bc8p-29f,
    0x1.2cda96p+0f, -0x1.4aa4cep-3f, -0x1.a0e3ccp-28f,
    0x1.2b7aa4p+0f, -0x1.414386p-3f, 0x1.7be6a0p-30f,
    0x1.2a1de4p+0f, -0x1.37ed24p-3f, 0x1.9ea260p-32f,
    0x1.28c44cp+0f, -0x1.2ea198p-3f, 0x1.1736aap-28f,
    0x1.276dd2p+0f, -0x1.2560cep-3f, 0x1.5b32c6p-29f,
    0x1.261a6cp+0f, -0x1.1c2ab2p-3f, -0x1.f9952ap-28f,
    0x1.24ca0ep+0f, -0x1.12ff24p-3f, -0x1.e49854p-28f,
    0x1.237caep+0f, -0x1.09de0ep-3f, 0x1.232344p-31f,
    0x1.223242p+0f, -0x1.00c758p-3f, 0x1.34f038p-28f,
    0x1.20eabep+0f, -0x1.ef75b8p-4f, 0x1.33cd86p-29f,
    0x1.1fa61cp+0f, -0x1.dd713ep-4f, 0x1.2338cap-29f,
    0x1.1e6450p+0f, -0x1.cb80f2p-4f, 0x1.d4a606p-33f,
    0x1.1d2550p+0f, -0x1.b9a4a0p-4f, -0x1.40798ap-30f,
    0x1.1be914p+0f, -0x1.a7dc2ep-4f, -0x1.b9b212p-29f,
    0x1.1aaf92p+0f, -0x1.962766p-4f, 0x1.f4b960p-30f,
    0x1.1978c2p+0f, -0x1.848628p-4f, 0x1.4d9524p-29f,
    0x1.18449cp+0f, -0x1.72f856p-4f, -0x1.7bea60p-34f,
    0x1.171314p+0f, -0x1.617d98p-4f, 0x1.f4368ep-29f,
    0x1.15e424p+0f, -0x1.5015e6p-4f, 0x1.80d8c6p-31f,
    0x1.14b7c2p+0f, -0x1.3ec102p-4f, 0x1.4bfa0ap-30f,
    0x1.138de8p+0f, -0x1.2d7ee4p-4f, 0x1.3e235ap-29f,
    0x1.12668ap+0f, -0x1.1c4f2ap-4f, 0x1.bb2044p-29f,
    0x1.1141a6p+0f, -0x1.0b3204p-4f, -0x1.1cff5ep-29f,
    0x1.101f2ep+0f, -0x1.f44de6p-5f, 0x1.7cb81ap-30f,
    0x1.0eff1ep+0f, -0x1.d25c08p-5f, -0x1.dc44ecp-30f,
    0x1.0de16ep+0f, -0x1.b08e1cp-5f, 0x1.7b61cap-33f,
    0x1.0cc614p+0f, -0x1.8ee386p-5f, 0x1.c9e2eap-34f,
    0x1.0bad0cp+0f, -0x1.6d5c62p-5f, -0x1.6462bep-31f,
    0x1.0a964ep+0f, -0x1.4bf850p-5f, -0x1.af90ecp-31f,
    0x1.0981d0p+0f, -0x1.2ab6aep-5f, -0x1.4f4820p-30f,
    0x1.086f8ep+0f, -0x1.099792p-5f, 0x1.6895b2p-30f,
    0x1.075f82p+0f, -0x1.d1359ap-6f, -0x1.01232ap-31f,
    0x1.0651a2p+0f, -0x1.8f7f70p-6f, -0x1.75f942p-31f,
    0x1.0545eap+0f, -0x1.4e0cc0p-6f, -0x1.ca406ap-31f,
    0x1.043c50p+0f, -0x1.0cdc2ap-6f, -0x1.099c32p-31f,
    0x1.0334d2p+0f, -0x1.97dc7cp-7f, -0x1.aca53ep-32f,
    0x1.022f66p+0f, -0x1.168322p-7f, -0x1.62f330p-32f,
    0x1.012c08p+0f, -0x1.2b58b8p-8f, 0x1.e4c964p-34f,
    0x1.000000p+0f, 0x0p+0f, 0x0p+0f,
    0x1.fcb030p-1f, 0x1.a9487ep-8f, -0x1.a6c142p-34f,
    0x1.f8c52cp-1f, 0x1.d20146p-7f, 0x1.b7ed9ap-32f,
    0x1.f4e97ep-1f, 0x1.66b638p-6f, 0x1.a6e8d0p-32f,
    0x1.f11ccep-1f, 0x1.e3767cp-6f, 0x1.fa4a86p-33f,
    0x1.ed5ec0p-1f, 0x1.2fa2eap-5f, -0x1.4dcdeep-32f,
    0x1.e9af06p-1f, 0x1.6d138ap-5f, 0x1.afb84ep-30f,
    0x1.e60d4ap-1f, 0x1.aa0f30p-5f, 0x1.fa2c56p-33f,
    0x1.e2793ep-1f, 0x1.e69782p-5f, -0x1.bb24fcp-32f,
    0x1.def296p-1f, 0x1.115712p-4f, -0x1.070560p-29f,
    0x1.db7908p-1f, 0x1.2f2a58p-4f, 0x1.d5afd8p-30f,
    0x1.d80c4ap-1f, 0x1.4cc672p-4f, 0x1.4f2374p-30f,
    0x1.d4ac16p-1f, 0x1.6a2c26p-4f, 0x1.60addep-29f,
    0x1.d15828p-1f, 0x1.875c38p-4f, 0x1.665212p-29f,
    0x1.ce103ep-1f, 0x1.a45766p-4f, 0x1.261928p-29f,
    0x1.cad416p-1f, 0x1.c11e7ap-4f, 0x1.dd0884p-29f,
    0x1.c7a372p-1f, 0x1.ddb228p-4f, 0x1.e76806p-29f,
    0x1.c47e16p-1f, 0x1.fa131ep-4f, -0x1.516cc8p-29f,
    0x1.c163c4p-1f, 0x1.0b2112p-3f, -0x1.bae8d6p-28f,
    0x1.be5444p-1f, 0x1.191fecp-3f, -0x1.5040f6p-28f,
    0x1.bb4f5ep-1f, 0x1.270672p-3f, -0x1.7696ccp-34f,
    0x1.b854dap-1f, 0x1.34d500p-3f, -0x1.eff854p-28f,
    0x1.b56484p-1f, 0x1.428be0p-3f, -0x1.f797d2p-28f,
    0x1.b27e28p-1f, 0x1.502b64p-3f, -0x1.4e20e4p-28f,
    0x1.afa194p-1f, 0x1.5db3d8p-3f, 0x1.ae2560p-28f,
    0x1.acce96p-1f, 0x1.6b2592p-3f, -0x1.fdc43cp-28f,
    0x1.aa04fep-1f, 0x1.7880d8p-3f, 0x1.e111fcp-29f,
    0x1.a7449ep-1f, 0x1.85c5f6p-3f, 0x1.6cf622p-28f,
    0x1.a48d48p-1f, 0x1.92f538p-3f, -0x1.e9e010p-29f,
    0x1.a1decep-1f, 0x1.a00eecp-3f, -0x1.ef21a4p-28f,
    0x1.9f390ap-1f, 0x1.ad133ep-3f, 0x1.3cef04p-29f,
    0x1.9c9bcep-1f, 0x1.ba028ap-3f, -0x1.d5fff8p-29f,
    0x1.9a06f0p-1f, 0x1.c6dd16p-3f, -0x1.3838a6p-28f,
    0x1.977a4cp-1f, 0x1.d3a310p-3f, 0x1.646292p-29f,
    0x1.94f5b8p-1f, 0x1.e054cap-3f, 0x1.07c664p-28f,
    0x1.92790ep-1f, 0x1.ecf284p-3f, -0x1.431f02p-29f,
    0x1.90042ap-1f, 0x1.f97c74p-3f, 0x1.f83d28p-28f,
    0x1.8d96e8p-1f, 0x1.02f96ep-2f, -0x1.19aab8p-27f,
    0x1.8b3124p-1f, 0x1.092afap-2f, 0x1.4b6c42p-27f,
    0x1.88d2bcp-1f, 0x1.0f52fep-2f, 0x1.0450bap-27f,
    0x1.867b8cp-1f, 0x1.15719cp-2f, 0x1.2d4a40p-28f,
    0x1.842b78p-1f, 0x1.1b86e4p-2f, -0x1.bb7914p-30f,
    0x1.81e25ap-1f, 0x1.219300p-2f, 0x1.ef09e2p-27f,
    0x1.7fa018p-1f, 0x1.279602p-2f, -0x1.eebbe2p-27f,
    0x1.7d6490p-1f, 0x1.2d9008p-2f, 0x1.cfce3cp-29f,
    0x1.7b2fa4p-1f, 0x1.338132p-2f, -0x1.e1e646p-28f,
    0x1.79013ap-1f, 0x1.39698ep-2f, 0x1.e6b6eep-28f,
    0x1.76d932p-1f, 0x1.3f4942p-2f, 0x1.4a65f6p-29f,
    0x1.74b772p-1f, 0x1.452060p-2f, 0x1.84b52cp-27f,
    0x1.729bdep-1f, 0x1.4aef06p-2f, -0x1.adba80p-27f,
    0x1.70865cp-1f, 0x1.50b546p-2f, 0x1.db3b08p-32f,
    0x1.6e76d0p-1f, 0x1.567340p-2f, 0x1.a87b24p-27f,
    0x1.6c6d24p-1f, 0x1.5c2904p-2f, -0x1.f1eac8p-28f,
    0x1.6a693ap-1f, 0x1.61d6b4p-2f, -0x1.83ac82p-28f,
};
/* clang-format on */
static inline float tsr__k_powa_f32(float r)
{
    return tsr__k_fmaf(r, tsr__k_fmaf(r, TSR__K_POWF_A2, TSR__K_POWF_A1), TSR__K_POWF_A0);
}
TSR__K_POW(float, f32, F, tsr__u32, 32, tsr__k_fmaf, tsr__k_rintf, tsr__k_sqrtf, tsr__float_bits,
           tsr__float_from_bits, tsr__k_powf)

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
#define tsr__k_exp2_f16 tsr__k_exp2_f32
#define tsr__k_exp2_bf16 tsr__k_exp2_f32
#define tsr__k_log2_f16 tsr__k_log2_f32
#define tsr__k_log2_bf16 tsr__k_log2_f32
#define tsr__k_log10_f16 tsr__k_log10_f32
#define tsr__k_log10_bf16 tsr__k_log10_f32
#define tsr__k_sinh_f16 tsr__k_sinh_f32
#define tsr__k_sinh_bf16 tsr__k_sinh_f32
#define tsr__k_cosh_f16 tsr__k_cosh_f32
#define tsr__k_cosh_bf16 tsr__k_cosh_f32
#define tsr__k_asinh_f16 tsr__k_asinh_f32
#define tsr__k_asinh_bf16 tsr__k_asinh_f32
#define tsr__k_acosh_f16 tsr__k_acosh_f32
#define tsr__k_acosh_bf16 tsr__k_acosh_f32
#define tsr__k_atanh_f16 tsr__k_atanh_f32
#define tsr__k_atanh_bf16 tsr__k_atanh_f32
#define tsr__k_rsqrt_f16 tsr__k_rsqrt_f32
#define tsr__k_rsqrt_bf16 tsr__k_rsqrt_f32
#define tsr__k_hypot_f16 tsr__k_hypot_f32
#define tsr__k_hypot_bf16 tsr__k_hypot_f32
#define tsr__k_erf_f16 tsr__k_erf_f32
#define tsr__k_erf_bf16 tsr__k_erf_f32
#define tsr__k_erfc_f16 tsr__k_erfc_f32
#define tsr__k_erfc_bf16 tsr__k_erfc_f32
#define tsr__k_gelu_f16 tsr__k_gelu_f32
#define tsr__k_gelu_bf16 tsr__k_gelu_f32
#define tsr__k_gelut_f16 tsr__k_gelut_f32
#define tsr__k_gelut_bf16 tsr__k_gelut_f32
#define tsr__k_silu_f16 tsr__k_silu_f32
#define tsr__k_silu_bf16 tsr__k_silu_f32
/* float16's pow with a number exponent is PyTorch's plain pow: its
 * kernel takes no square roots or squares. */
#define tsr__k_pow_f16 tsr__k_pow_f32
#define tsr__k_pow_bf16 tsr__k_pow_f32
#define tsr__k_pows_f16 tsr__k_pow_f32
#define tsr__k_pows_bf16 tsr__k_pows_f32

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
TSR__K_MATH_MORE(double, f64, D, tsr__u64, tsr__k_fmad, tsr__k_rintd, tsr__k_sqrtd)

/* clang-format off */
/* TSR__K_ERFCD: 9 rows of m, the constant in two words and 14 more terms; fit error 2^-62.1 of F at most */
#define TSR__K_ERFCD_N 15
TSR__K_TABLE double tsr__k_erfcd[] = {
    0x1.8000000000000p-1, -0x1.ec2134d851665p-55, 0x1.038d54ea3d834p-1, -0x1.78cdd551ee51ap-2, 0x1.d90093ae10928p-3, -0x1.09e77d40e01cep-3, 0x1.1192f5bd6873cp-4, -0x1.054d68296d26ap-5, 0x1.d43a7c7a7c0fap-7, -0x1.8c97dd23cacebp-8, 0x1.3f818962c9a60p-9, -0x1.ec0d293395f67p-11, 0x1.6b984c0138dd8p-12, -0x1.02a04a14e43aap-13, 0x1.635d5fe5fc73cp-15, -0x1.e412f7345926ep-17, 0x1.37d7863ebade2p-18,
    0x1.4000000000000p+0, 0x1.4797400f19192p-63, 0x1.78a692138767ap-2, -0x1.abaacdbfa8b07p-3, 0x1.b56f45eef7e58p-4, -0x1.9b635ac624aacp-5, 0x1.68a25a6641f0fp-6, -0x1.299636d6cc780p-7, 0x1.d1b695aac3b75p-9, -0x1.5b8bc93be2cfcp-10, 0x1.f0fe6fa38ae29p-12, -0x1.55c091473d69dp-13, 0x1.c5704c211f94ap-15, -0x1.22ef171276aeep-16, 0x1.6a0a03aa8bdd0p-18, -0x1.be7acdc5ba9a0p-20, 0x1.06619375fc922p-21,
    0x1.c000000000000p+0, 0x1.3b1040eb318c2p-57, 0x1.23cfc2f1dc7e0p-2, -0x1.0c3d538446447p-3, 0x1.c8d0cef0f810dp-5, -0x1.6cb52fe489456p-6, 0x1.13648a11ffe6ep-7, -0x1.8bf716a8edfb0p-9, 0x1.106bd5c044de2p-10, -0x1.6838884303dbfp-12, 0x1.cb4c687663b55p-14, -0x1.1b291c3426d9dp-15, 0x1.5273fcedd6c81p-17, -0x1.88eee54c7c1b3p-19, 0x1.bc0384dfab0dap-21, -0x1.f14928151e4e0p-23, 0x1.0b240c0b45ac3p-24,
    0x1.2000000000000p+1, -0x1.a8198a8216449p-58, 0x1.d94446d627932p-3, -0x1.6a70d2bb37411p-4, 0x1.0615670e25a7bp-5, -0x1.6883f9919a177p-7, 0x1.da595561f7d31p-9, -0x1.2bd251bb2fe84p-10, 0x1.6d7743d3b35a3p-12, -0x1.aed7ebc558f93p-14, 0x1.ec773cc51b889p-16, -0x1.117a6b9b9f74cp-17, 0x1.27af477cc6335p-19, -0x1.37b2d3e2bafe1p-21, 0x1.40e119faabcc4p-23, -0x1.478772de8066dp-25, 0x1.428297084d79cp-27,
    0x1.6000000000000p+1, -0x1.bb4e763c64a35p-57, 0x1.8c9eb68ff27d7p-3, -0x1.0305781330099p-4, 0x1.43b98bac83823p-6, -0x1.84e9ab30e6ab2p-8, 0x1.c2c72fd72763dp-10, -0x1.f99e41ecb124ep-12, 0x1.131bb16125983p-13, -0x1.2312b25805865p-15, 0x1.2bfb5b0d83f91p-17, -0x1.2da32d24fb79ap-19, 0x1.2856fda52a137p-21, -0x1.1ccb30f457aedp-23, 0x1.0c1223e921938p-25, -0x1.f4a74bd173f40p-28, 0x1.c52907556b237p-30,
    0x1.e4b17e4b17e4bp-5, -0x1.08e236cd52c04p-56, 0x1.205cb194765afp-1, -0x1.0e9fc7885b519p-5, -0x1.17f56d051173bp-2, 0x1.88d5b528ad858p-4, 0x1.7b8576faf675ap-2, -0x1.5783cd6d111fbp-2, -0x1.7807f19980af6p-1, 0x1.62e191a69c96bp+0, 0x1.9097b1cdfa6f2p+0, -0x1.9ba3aa1384bc3p+2, -0x1.7ac08488c4ba9p+0, 0x1.fb35df11ad0c0p+4, -0x1.6fc46d65ac2f1p+4, -0x1.31530050389dcp+7, 0x1.316c22268a6a3p+8,
    0x1.0000000000000p-3, 0x1.e4fa709a9de5ep-56, 0x1.1ea8c4009b459p-1, -0x1.14108e58a9badp-4, -0x1.f7b1352c3ce88p-3, 0x1.67f06c659f029p-3, 0x1.d1ace4e3e3d65p-3, -0x1.f4c5f5d137c08p-2, -0x1.9c954aaaf1366p-5, 0x1.50a9ef2fdd108p+0, -0x1.6a6b716f38c26p+0, -0x1.3fe53c8076bcep+1, 0x1.19d7f4eb34853p+3, -0x1.def469f03007ap+1, -0x1.ff77dea6ee81dp+4, 0x1.20107392f01f2p+6, 0x1.5d3cc1a7c03a5p+4,
    0x1.aaaaaaaaaaaaap-3, 0x1.c5f5445db6831p-55, 0x1.1af73e2ac429ap-1, -0x1.ab49165c6dcf5p-4, -0x1.8ffa692fa81d4p-3, 0x1.c039365d6afd1p-3, 0x1.43be26389eee8p-5, -0x1.80aac86b5591bp-2, 0x1.953ef20bcc919p-2, 0x1.e4da91e086ae2p-3, -0x1.4ebf29983125ap+0, 0x1.9718320f70497p+0, 0x1.adec4b3b904c4p-1, -0x1.a1399d7cfed70p+2, 0x1.541cc3542a4aap+3, 0x1.35ce89e1a93d3p-2, -0x1.35eae8e4b52e2p+5,
    0x1.2aaaaaaaaaaaap-2, -0x1.223b5a68e5a4bp-55, 0x1.15e2b7aacd26cp-1, -0x1.0ef21f6971141p-3, -0x1.20658eb30abb8p-3, 0x1.af77317440cafp-3, -0x1.317c32d738759p-4, -0x1.683e7ff2d5769p-3, 0x1.6cef82b8d4302p-2, -0x1.01b8b58b7be89p-2, -0x1.faa2ea387b435p-3, 0x1.ebf2134d0b05fp-1, -0x1.4b143da209e74p+0, 0x1.6a23512f0f2a7p-2, 0x1.3ac6cbcd08c51p+1, -0x1.9509d0ff9deaap+2, 0x1.e6b4b11816810p+2,
};
/* clang-format on */
static inline double tsr__k_erfp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_ERFD_P9, TSR__K_ERFD_P8);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P7);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P6);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P5);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P4);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P3);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P2);
    p = tsr__k_fmad(z, p, TSR__K_ERFD_P1);
    return tsr__k_fmad(z, p, TSR__K_ERFD_P0);
}
TSR__K_ERF(double, f64, D, tsr__k_fmad, tsr__k_erfcd, TSR__K_ERFCD_N)
static inline double tsr__k_gelu_f64(double x)
{
    int small;
    return tsr__k_gelu_of_f64(x, tsr__k_geluv_f64(x - x == 0 ? x : 0.0, &small));
}

/* clang-format off */
/* POWD: OFF, |r| <= 2^-8.01, A of 6 Taylor terms (next term 2^-67.2 of r) */
#define TSR__K_POWD_OFF TSR__U64(0x3FE6AAAAAAAAAAAB)
#define TSR__K_POWD_A0 0x1.5555555555555p-2
#define TSR__K_POWD_A1 -0x1.0000000000000p-2
#define TSR__K_POWD_A2 0x1.999999999999ap-3
#define TSR__K_POWD_A3 -0x1.5555555555555p-3
#define TSR__K_POWD_A4 0x1.2492492492492p-3
#define TSR__K_POWD_A5 -0x1.0000000000000p-3
TSR__K_TABLE double tsr__k_powd[] = {
    0x1.686affc3ee2abp+0, -0x1.5e4c091e70ef7p-2, -0x1.c62c4afc1234fp-56,
    0x1.667259251ad64p+0, -0x1.58ae5044fb5b8p-2, -0x1.d7235398f99e0p-56,
    0x1.647f300b23f98p+0, -0x1.53186f03475b3p-2, 0x1.6674b1ac1598dp-56,
    0x1.62916da5f9133p+0, -0x1.4d8a4f910c174p-2, 0x1.4974ef97d696ap-56,
    0x1.60a8fba33e388p+0, -0x1.4803dc80446d1p-2, 0x1.87d04611cc3ecp-59,
    0x1.5ec5c42aeedf6p+0, -0x1.428500bb3ee0fp-2, 0x1.831068331ae09p-56,
    0x1.5ce7b1dc1c2abp+0, -0x1.3d0da782bacc0p-2, -0x1.9d7486e718d25p-56,
    0x1.5b0eafc9c5b49p+0, -0x1.379dbc6c125e1p-2, -0x1.81d4f446ea7bap-56,
    0x1.593aa977cbdb2p+0, -0x1.32352b5f71057p-2, 0x1.394ff6151bbb6p-58,
    0x1.576b8ad7faa25p+0, -0x1.2cd3e09615e04p-2, 0x1.81e3a26314b77p-56,
    0x1.55a140472c42cp+0, -0x1.2779c898a1cf1p-2, 0x1.b4b32b26ba327p-56,
    0x1.53dbb68a828b6p+0, -0x1.2226d03d70d10p-2, 0x1.589d9564e0c51p-56,
    0x1.521adaccb6428p+0, -0x1.1cdae4a6fe4eep-2, 0x1.d006b67537cddp-57,
    0x1.505e9a9b7bbadp+0, -0x1.1795f34253fb5p-2, -0x1.c76d745b2dc54p-56,
    0x1.4ea6e3e4fbdc4p+0, -0x1.1257e9c582fadp-2, -0x1.d0d80dbf96052p-59,
    0x1.4cf3a4f560e4fp+0, -0x1.0d20b62e26fdcp-2, -0x1.4d4c91dd63ce7p-58,
    0x1.4b44cc74762fep+0, -0x1.07f046bff300fp-2, 0x1.8a1bdfde3e704p-57,
    0x1.499a49635a572p+0, -0x1.02c68a03476c8p-2, 0x1.5d1ab12a3e342p-57,
    0x1.47f40b1a430aep+0, -0x1.fb46dd87a2872p-3, -0x1.86ad8fac58955p-57,
    0x1.4652014652015p+0, -0x1.f10dc81e64499p-3, 0x1.d3b738b986b20p-60,
    0x1.44b41be77a65ep+0, -0x1.e6e1b26761a68p-3, -0x1.3c575e3bfd6d7p-57,
    0x1.431a4b4e7637fp+0, -0x1.dcc27b7de41a9p-3, -0x1.2b7cad39c0a6fp-57,
    0x1.4184801acb0abp+0, -0x1.d2b002f972d5ap-3, -0x1.5f22769a2ec46p-57,
    0x1.3ff2ab38dda17p+0, -0x1.c8aa28eb641aap-3, -0x1.0a8f1a1d49f8cp-58,
    0x1.3e64bde013e65p+0, -0x1.beb0cddc7dc88p-3, 0x1.daad7dbc820b6p-57,
    0x1.3cdaa99104beap+0, -0x1.b4c3d2caa4997p-3, 0x1.30d0ce51a29e1p-57,
    0x1.3b546013b5460p+0, -0x1.aae3192699afbp-3, 0x1.ef771fd8d4a40p-57,
    0x1.39d1d375e2fcfp+0, -0x1.a10e82d1c603bp-3, -0x1.4f0237c05461ep-57,
    0x1.3852f6095a7c1p+0, -0x1.9745f21c134ddp-3, -0x1.f0235c069ceefp-57,
    0x1.36d7ba625a420p+0, -0x1.8d8949c1d20a4p-3, 0x1.3d6814693d225p-57,
    0x1.3560135601356p+0, -0x1.83d86ce9ac37ep-3, -0x1.b0768e787087dp-57,
    0x1.33ebf3f8c8785p+0, -0x1.7a333f22a475ep-3, -0x1.1e202b59236c6p-57,
    0x1.327b4f9d082e5p+0, -0x1.7099a4622123bp-3, -0x1.18d8918e6cebdp-58,
    0x1.310e19d186da1p+0, -0x1.670b81020334cp-3, 0x1.b505f39b30fb2p-57,
    0x1.2fa4466012fa4p+0, -0x1.5d88b9bec85cdp-3, 0x1.e6b7217895bbfp-60,
    0x1.2e3dc94c26914p+0, -0x1.541133b5b848ep-3, 0x1.7b8f26909a254p-57,
    0x1.2cda96d19445cp+0, -0x1.4aa4d4631c932p-3, -0x1.8076457893f94p-57,
    0x1.2b7aa3633dce8p+0, -0x1.414381a0832d3p-3, -0x1.b861e7757219ep-59,
    0x1.2a1de3a9d35c3p+0, -0x1.37ed21a30aed4p-3, -0x1.d6af4a43fa36ap-57,
    0x1.28c44c829bb9bp+0, -0x1.2ea19af9ba018p-3, 0x1.c2be72fc38f04p-60,
    0x1.276dd2fe44db4p+0, -0x1.2560d48bddfc4p-3, -0x1.1edf508c870a5p-57,
    0x1.261a6c5fbc99fp+0, -0x1.1c2ab597753fdp-3, -0x1.813921592fb53p-57,
    0x1.24ca0e1b1158ap+0, -0x1.12ff25afa17fap-3, -0x1.194ddcca04e35p-59,
    0x1.237cadd45a54ap+0, -0x1.09de0cbb23211p-3, -0x1.39a7e6c4a1161p-62,
    0x1.2232415ea7645p+0, -0x1.00c752f2dd3a1p-3, 0x1.5cc6b9faa9f9ap-57,
    0x1.20eabebaf7e97p+0, -0x1.ef75c1c0c3eabp-4, 0x1.aba8e6a9a9c6fp-59,
    0x1.1fa61c1738be4p+0, -0x1.dd713eb90e450p-4, -0x1.75f524428684ap-59,
    0x1.1e644fcd48e73p+0, -0x1.cb80ef1c057a8p-4, -0x1.7ba5c45dd76a1p-58,
    0x1.1d25506204d3ap+0, -0x1.b9a4a5d01e639p-4, 0x1.914b38d70caa3p-58,
    0x1.1be9148457fb9p+0, -0x1.a7dc36522e5fcp-4, 0x1.bd6c43586d668p-60,
    0x1.1aaf930c54a89p+0, -0x1.962774b2d1af0p-4, 0x1.86aa34c55a14bp-61,
    0x1.1978c2fa51bacp+0, -0x1.84863593e01f8p-4, -0x1.19c2316a82b74p-58,
    0x1.18449b760e3b8p+0, -0x1.72f84e25efabbp-4, 0x1.388c47ff36b10p-58,
    0x1.171313cdda927p+0, -0x1.617d9425e4b94p-4, 0x1.276a1dcbc9a97p-58,
    0x1.15e42375c7311p+0, -0x1.5015ddda8f947p-4, -0x1.fa8707501e7b5p-58,
    0x1.14b7c206d88bdp+0, -0x1.3ec1021256d31p-4, -0x1.9a89993ac75a3p-59,
    0x1.138de73e40397p+0, -0x1.2d7ed820ee57cp-4, 0x1.72aeea791ab5ep-60,
    0x1.12668afc9b10ap+0, -0x1.1c4f37dd1a8ffp-4, 0x1.1076a0be89926p-59,
    0x1.1141a54534200p+0, -0x1.0b31f99e7fb28p-4, -0x1.ee1985cb32d24p-58,
    0x1.101f2e3d4c5b7p+0, -0x1.f44dec76f9497p-5, 0x1.e21cc95769f60p-59,
    0x1.0eff1e2b66dbdp+0, -0x1.d25c0e0e22758p-5, 0x1.158054271596dp-59,
    0x1.0de16d769990ap+0, -0x1.b08e0b9d9f3d9p-5, 0x1.c85f1a2776c16p-59,
    0x1.0cc614a5e240cp+0, -0x1.8ee399b1b0eefp-5, -0x1.9ac8c2b0abb35p-61,
    0x1.0bad0c5f7fbd1p+0, -0x1.6d5c6dc3c35bcp-5, -0x1.480ad1fe47e32p-61,
    0x1.0a964d684f24ap+0, -0x1.4bf83e368eeadp-5, 0x1.ad55e8b068f89p-61,
    0x1.0981d0a32d1d9p+0, -0x1.2ab6c2524ec08p-5, 0x1.9650569a0a96ep-60,
    0x1.086f8f105ae66p+0, -0x1.0997b2410a8e5p-5, 0x1.60b80f9627ca8p-59,
    0x1.075f81cce7232p+0, -0x1.d1358e15e6e9bp-6, 0x1.47e11974c5a80p-63,
    0x1.0651a2121a4cep+0, -0x1.8f7f7525a74d7p-6, 0x1.4a71a1fe9735bp-60,
    0x1.0545e934e6a7cp+0, -0x1.4e0c8f25204a7p-6, 0x1.8d065e9ddc74ap-61,
    0x1.043c50a55ba89p+0, -0x1.0cdc532f78cf6p-6, -0x1.0e41a9c25e657p-60,
    0x1.0334d1ee1cb03p+0, -0x1.97dc7400fd4b1p-7, -0x1.59d3593e928adp-61,
    0x1.022f66b3db053p+0, -0x1.16837bdc245ebp-7, 0x1.fddf17a2e5318p-65,
    0x1.012c08b4d2f62p+0, -0x1.2b596b86cde75p-8, 0x1.f426b0b3dd5aep-62,
    0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0,
    0x1.fcb02fb084789p-1, 0x1.a948a5964faacp-8, -0x1.edb9db0ee5eaap-62,
    0x1.f8c52d05962ebp-1, 0x1.d2010486a1650p-7, -0x1.93a748529d559p-61,
    0x1.f4e97f82c5a02p-1, 0x1.66b606ff0f766p-6, -0x1.acb0ce58c7968p-60,
    0x1.f11ccdd5ed3aap-1, 0x1.e37681a9f3f9ap-6, -0x1.3e60927e52ca1p-66,
    0x1.ed5ec15d7873ap-1, 0x1.2fa2d32b9b8fbp-5, -0x1.c8e21bb9d426dp-62,
    0x1.e9af060eaa3dep-1, 0x1.6d1389e286d13p-5, -0x1.21408588c9a61p-59,
    0x1.e60d4a5d088b4p-1, 0x1.aa0f29ffa2c48p-5, 0x1.51168be35ff0cp-59,
    0x1.e2793f22ddc31p-1, 0x1.e6976e7df0b00p-5, 0x1.a26f0dba0dc9dp-59,
    0x1.def2978ac1f2fp-1, 0x1.1157044c7d4a3p-4, -0x1.44ee2f27c2978p-58,
    0x1.db7908fa1e561p-1, 0x1.2f2a500ac1494p-4, -0x1.01f53b15715c4p-59,
    0x1.d80c4afc9e942p-1, 0x1.4cc669c3c8daep-4, 0x1.f1a9d6ffb0110p-59,
    0x1.d4ac173083d07p-1, 0x1.6a2c1c4b0195ap-4, -0x1.5021be0ae33e9p-59,
    0x1.d1582933ce50ap-1, 0x1.875c2e1dd3afap-4, 0x1.0f084c73f9ba5p-59,
    0x1.ce103e923323dp-1, 0x1.a45761830c92fp-4, 0x1.70804d6c3c8e1p-59,
    0x1.cad416b3d3ca4p-1, 0x1.c11e74a92eeb9p-4, -0x1.1e6c43b0cada4p-62,
    0x1.c7a372ccae6c9p-1, 0x1.ddb221c3b4019p-4, 0x1.38d81ab15fc14p-62,
    0x1.c47e15ccbdb79p-1, 0x1.fa131f27499bbp-4, 0x1.c22e6466a6fe8p-59,
    0x1.c163c450bfed5p-1, 0x1.0b210fb28b94fp-3, -0x1.ccbc774807d14p-57,
    0x1.be5444939d340p-1, 0x1.191fe8b28a2f8p-3, -0x1.0861e14a7a53dp-58,
    0x1.bb4f5e6065979p-1, 0x1.2706703fbd7cbp-3, 0x1.e72589a177306p-58,
    0x1.b854db04df9b2p-1, 0x1.34d4fa4aae7efp-3, -0x1.f802e9b061e52p-58,
    0x1.b5648544a09afp-1, 0x1.428bd9143414dp-3, 0x1.b0380ca0b23d4p-57,
    0x1.b27e294ca897ap-1, 0x1.502b5d38ef8b4p-3, -0x1.e899799a51400p-58,
    0x1.afa194a77b5d0p-1, 0x1.5db3d5bc6804ap-3, -0x1.4848f1c20ba69p-57,
    0x1.acce9631b1461p-1, 0x1.6b259013c88cdp-3, 0x1.05f4fd4ea48a2p-58,
    0x1.aa04fe0efa2cfp-1, 0x1.7880d830447f3p-3, -0x1.ec1bfe55fbf5ep-58,
    0x1.a7449d9f8d5d7p-1, 0x1.85c5f88925bafp-3, 0x1.01e632016b9fap-58,
    0x1.a48d477601a49p-1, 0x1.92f53a2587fb8p-3, -0x1.eb446808a534ep-57,
    0x1.a1decf4d88d78p-1, 0x1.a00ee4a5c480fp-3, 0x1.adf7db14db852p-57,
    0x1.9f390a008a686p-1, 0x1.ad133e4c91163p-3, 0x1.328a2fb14b671p-57,
    0x1.9c9bcd7f98d91p-1, 0x1.ba028c07d556fp-3, 0x1.4db9f9399a9bbp-58,
    0x1.9a06f0c8be109p-1, 0x1.c6dd117939019p-3, -0x1.b62a1925c01fdp-57,
    0x1.977a4bdf1acb4p-1, 0x1.d3a310fe6df9bp-3, -0x1.dfc50053c60dcp-58,
    0x1.94f5b7c2d58d9p-1, 0x1.e054cbb93887bp-3, -0x1.be7217bb34063p-60,
    0x1.92790e6955aedp-1, 0x1.ecf28197383f0p-3, 0x1.ff6857dcea785p-57,
    0x1.90042ab5c73a1p-1, 0x1.f97c715973e8ap-3, 0x1.42d6979b29710p-57,
    0x1.8d96e871e48ffp-1, 0x1.02f96c4dd54ebp-2, -0x1.ee9de01fbd912p-56,
    0x1.8b31244702d48p-1, 0x1.092af9edb6213p-2, 0x1.c657539da2f4fp-58,
    0x1.88d2bbb75e5eap-1, 0x1.0f52ff3f7db25p-2, 0x1.4a5eaf45637eap-56,
    0x1.867b8d17a47b1p-1, 0x1.1571996dfd39bp-2, -0x1.57b9d1846229bp-56,
    0x1.842b7788b7f9fp-1, 0x1.1b86e51ef3194p-2, 0x1.5a5ff83447480p-57,
    0x1.81e25af1ae19ap-1, 0x1.2192fe762f9afp-2, -0x1.b195f48680526p-59,
    0x1.7fa017fa017fap-1, 0x1.27960118a20ebp-2, 0x1.067b77a7e2744p-60,
    0x1.7d649003f90c3p-1, 0x1.2d90082f4f1cdp-2, -0x1.1ccb3b7776135p-56,
    0x1.7b2fa527406eap-1, 0x1.33812e6a3117ep-2, -0x1.8e332c39237f4p-56,
    0x1.79013a2bb079cp-1, 0x1.39698e030310ep-2, 0x1.11791a35f3d4cp-56,
    0x1.76d93284454edp-1, 0x1.3f4940bff7694p-2, -0x1.3ee701be248dep-58,
    0x1.74b7724a408bcp-1, 0x1.45205ff65a95ep-2, 0x1.73db2f402e1e7p-59,
    0x1.729bde3875beep-1, 0x1.4aef048d22c06p-2, 0x1.4fa9164f7290bp-57,
    0x1.70865ba6bf75dp-1, 0x1.50b546ff6cec0p-2, -0x1.498b0926337a7p-56,
    0x1.6e76d0859b516p-1, 0x1.56733f5ee83c1p-2, 0x1.2066bada8ef1bp-57,
    0x1.6c6d2359eb989p-1, 0x1.5c2905562ff84p-2, -0x1.4f30912a1d9a8p-57,
    0x1.6a693b38dcd82p-1, 0x1.61d6b02b14dddp-2, -0x1.566ead4e449fcp-57,
};
/* clang-format on */
static inline double tsr__k_powa_f64(double r)
{
    double p = tsr__k_fmad(r, TSR__K_POWD_A5, TSR__K_POWD_A4);
    p = tsr__k_fmad(r, p, TSR__K_POWD_A3);
    p = tsr__k_fmad(r, p, TSR__K_POWD_A2);
    p = tsr__k_fmad(r, p, TSR__K_POWD_A1);
    return tsr__k_fmad(r, p, TSR__K_POWD_A0);
}
TSR__K_POW(double, f64, D, tsr__u64, 64, tsr__k_fmad, tsr__k_rintd, tsr__k_sqrtd, tsr__double_bits,
           tsr__double_from_bits, tsr__k_powd)

#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_KERNELS_SCALAR_MATH_H */
