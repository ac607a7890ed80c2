/* exp and log of float32 and float64, one element at a time, written once
 * for host C11 and for OpenCL C 1.2 (opencl/source.c embeds this file
 * after kernels/scalar_ops.h, whose rules it keeps: only +, -, *, /, fma,
 * rint and bit moves, no contraction), so that every device gives the
 * same bits.
 *
 * Accuracy: within 1 ulp of the correctly rounded result everywhere
 * (subnormal inputs and results included), exact where IEEE 754 defines
 * the result (exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf, log(1) = +0,
 * log(+-0) = -inf, log(+inf) = +inf, log(x < 0) and NaN in give NaN);
 * tests/kernels/test_exp_log.c checks float32 exhaustively and float64
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

/* 2^k as a float, for k in [-126, 127]. */
static inline float tsr__k_pow2f(int k)
{
    return tsr__float_from_bits((tsr__u32)(k + 127) << 23);
}

/* p * 2^k for p in [0.5, 2] and k in [-152, 129], rounded once. */
static inline float tsr__k_scalef(float p, int k)
{
    if (k > 127)
        return p * tsr__k_pow2f(k - 127) * 0x1p127f;
    if (k < -126)
        return p * tsr__k_pow2f(k + 64) * 0x1p-64f;
    return p * tsr__k_pow2f(k);
}

/* Beyond 89 the result overflows, below -104 it rounds to +0; a NaN
 * passes through (x + x quiets it). */
static inline float tsr__k_exp_f32(float x)
{
    if (x != x)
        return x + x;
    if (x > 89.0f)
        return (float)INFINITY;
    if (x < -104.0f)
        return 0.0f;
    float k = tsr__k_rintf(x * TSR__K_F_LOG2E);
    float r = tsr__k_fmaf(-k, TSR__K_F_LN2_HI, x);
    r = tsr__k_fmaf(-k, TSR__K_F_LN2_LO, r);
    float q = tsr__k_fmaf(r, TSR__K_EXPF_Q5, TSR__K_EXPF_Q4);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q3);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q2);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q1);
    q = tsr__k_fmaf(r, q, TSR__K_EXPF_Q0);
    float p = 1.0f + tsr__k_fmaf(r * r, q, r);
    return tsr__k_scalef(p, (int)k);
}

/* x = 2^e * m, m in [sqrt2 / 2, sqrt2): subnormals are scaled up first;
 * the significand's bits above sqrt2's (0x3FB504F3 as a float in [1, 2))
 * take one off them and put it on e. */
static inline float tsr__k_log_f32(float x)
{
    if (x != x)
        return x + x;
    if (x == 0)
        return -(float)INFINITY;
    if (x < 0)
        return TSR__K_QUIET_NAN;
    if (x == (float)INFINITY)
        return x;
    int e = 0;
    if (x < 0x1p-126f) {
        x *= 0x1p25f;
        e = -25;
    }
    tsr__u32 u = tsr__float_bits(x);
    e += (int)(u >> 23) - 127;
    tsr__u32 m = (u & 0x007FFFFFu) | 0x3F800000u;
    if (m >= 0x3FB504F3u) {
        m -= 0x00800000u;
        e += 1;
    }
    float f = tsr__float_from_bits(m) - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    float h = 0.5f * f * f;
    float pz = tsr__k_fmaf(z, TSR__K_LOGF_P3, TSR__K_LOGF_P2);
    pz = tsr__k_fmaf(z, pz, TSR__K_LOGF_P1);
    pz = tsr__k_fmaf(z, pz, TSR__K_LOGF_P0);
    float ef = (float)e;
    float small = tsr__k_fmaf(s, tsr__k_fmaf(z, pz, h), ef * TSR__K_F_LN2_LO);
    return tsr__k_fmaf(ef, TSR__K_F_LN2_HI, f - (h - small));
}

/* bfloat16 computes in float and rounds once (PyTorch 1.13's loops do
 * the same through float); float16 is refused before (NO_HALF), its
 * functions are there for the programs that name every family. */
#define tsr__k_exp_f16 tsr__k_exp_f32
#define tsr__k_exp_bf16 tsr__k_exp_f32
#define tsr__k_log_f16 tsr__k_log_f32
#define tsr__k_log_bf16 tsr__k_log_f32

#ifdef TSR_CONV_HAVE_DOUBLE

/* 2^k as a double, for k in [-1022, 1023]. */
static inline double tsr__k_pow2d(int k)
{
    return tsr__double_from_bits((tsr__u64)(k + 1023) << 52);
}

/* p * 2^k for p in [0.5, 2] and k in [-1080, 1025], rounded once. */
static inline double tsr__k_scaled(double p, int k)
{
    if (k > 1023)
        return p * tsr__k_pow2d(k - 1023) * 0x1p1023;
    if (k < -1022)
        return p * tsr__k_pow2d(k + 128) * 0x1p-128;
    return p * tsr__k_pow2d(k);
}

/* As float's: beyond 710 the result overflows, below -746 it is +0. */
static inline double tsr__k_exp_f64(double x)
{
    if (x != x)
        return x + x;
    if (x > 710.0)
        return (double)INFINITY;
    if (x < -746.0)
        return 0.0;
    double k = tsr__k_rintd(x * TSR__K_D_LOG2E);
    double r = tsr__k_fmad(-k, TSR__K_D_LN2_HI, x);
    r = tsr__k_fmad(-k, TSR__K_D_LN2_LO, r);
    double q = tsr__k_fmad(r, TSR__K_EXPD_Q10, TSR__K_EXPD_Q9);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q8);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q7);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q6);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q5);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q4);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q3);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q2);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q1);
    q = tsr__k_fmad(r, q, TSR__K_EXPD_Q0);
    double p = 1.0 + tsr__k_fmad(r * r, q, r);
    return tsr__k_scaled(p, (int)k);
}

/* As float's, with sqrt2's significand bits 0x6A09E667F3BCD. */
static inline double tsr__k_log_f64(double x)
{
    if (x != x)
        return x + x;
    if (x == 0)
        return -(double)INFINITY;
    if (x < 0)
        return (double)TSR__K_QUIET_NAN;
    if (x == (double)INFINITY)
        return x;
    int e = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        e = -54;
    }
    tsr__u64 u = tsr__double_bits(x);
    e += (int)(u >> 52) - 1023;
    tsr__u64 m = (u & TSR__U64(0x000FFFFFFFFFFFFF)) | TSR__U64(0x3FF0000000000000);
    if (m >= TSR__U64(0x3FF6A09E667F3BCD)) {
        m -= TSR__U64(0x0010000000000000);
        e += 1;
    }
    double f = tsr__double_from_bits(m) - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    double h = 0.5 * f * f;
    double pz = tsr__k_fmad(z, TSR__K_LOGD_P7, TSR__K_LOGD_P6);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P5);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P4);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P3);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P2);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P1);
    pz = tsr__k_fmad(z, pz, TSR__K_LOGD_P0);
    double ed = (double)e;
    double small = tsr__k_fmad(s, tsr__k_fmad(z, pz, h), ed * TSR__K_D_LN2_LO);
    return tsr__k_fmad(ed, TSR__K_D_LN2_HI, f - (h - small));
}

#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_KERNELS_SCALAR_MATH_H */
