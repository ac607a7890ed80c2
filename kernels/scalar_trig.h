/* sin, cos and tan of float32 and float64 (and the complex
 * transcendental functions, at the end), one element at a time,
 * written once for host C11 and for OpenCL C 1.2 under the rules of
 * kernels/scalar_math.h (only +, -, *, /, fma, rint and bit moves, no
 * contraction; float32 never meets a double), so that every device gives
 * the same bits. opencl/source.c embeds this file after scalar_math.h.
 *
 * Accuracy: within 1 ulp of the correctly rounded result for every
 * finite argument, however large; sin(+-0) = +-0, tan(+-0) = +-0,
 * cos(+-0) = 1, NaN at +-inf and for NaN.
 *
 * The argument is reduced to |x| = (4n + j) pi/2 + r, |r| <= pi/4 (a
 * little more), r carried in two words rh + rl:
 *   moderate |x| (below 2^20 for float64, 2^12 for float32): Cody and
 *     Waite, k = rint(|x| 2/pi) and pi/2 in four parts, the first two
 *     short enough that k P1 and k P2 are exact; x - k P1 is exact
 *     (both are multiples of |x|'s ulp and the difference is below 1),
 *     the other three come off with their rounding errors kept (two-sum,
 *     and an fma for k P3).
 *   large |x| = m 2^e (m the integer significand): the bits of 2/pi
 *     before bit e - 1 only add multiples of 4 to |x| 2/pi, so the
 *     product of m with the 192 bits after them, taken modulo 1 in
 *     integer arithmetic (64-bit words, products built from 32-bit
 *     halves), gives |x| 2/pi mod 4: j and the fraction d in [-1/2, 1/2]
 *     as a 128-bit two's complement number (float32 keeps its top 64),
 *     cut into three pieces that convert exactly, summed in two words,
 *     and multiplied by pi/2 in two words. The table of 2/pi's bits is
 *     the same for both types.
 * Then sin(r) = rh + (rh^3 S(z) + rl (1 - z/2)), z = rh^2 and rh^3 in
 * two words (float32's tan needs that much of sin's tail), and cos(r) =
 * w + tail, w = 1 - z/2 rounded, its rounding error, r^2's low part and
 * z^2 C(z) in the tail; tan = sin / cos (or -cos / sin for odd j) from
 * the two words of each, the quotient corrected by its exact remainder.
 * The closest float64 to a multiple of pi/2 is about 2^-61 away
 * (float32: about 2^-29), which the reduction's error stays far below.
 * The constants and fits come from tests/kernels/gen_trig_coeffs.py. */
#ifndef TESSERA_KERNELS_SCALAR_TRIG_H
#define TESSERA_KERNELS_SCALAR_TRIG_H

/* clang-format off */
/* F: k P1, k P2 exact for k < 2^12; pi/2 - P1 - P2 - P3 - P4 = -1.9e-25 */
#define TSR__K_F_PIO2_1 0x1.922000p+0f
#define TSR__K_F_PIO2_2 -0x1.2ae000p-18f
#define TSR__K_F_PIO2_3 -0x1.de973ep-31f
#define TSR__K_F_PIO2_4 0x1.a62634p-58f
#define TSR__K_F_PIO2_HI 0x1.921fb6p+0f
#define TSR__K_F_PIO2_LO -0x1.777a5cp-25f
#define TSR__K_F_2OPI 0x1.45f306p-1f
/* D: k P1, k P2 exact for k < 2^20; pi/2 - P1 - P2 - P3 - P4 = -4.2e-54 */
#define TSR__K_D_PIO2_1 0x1.921fb54400000p+0
#define TSR__K_D_PIO2_2 0x1.0b4611a600000p-34
#define TSR__K_D_PIO2_3 0x1.3198a2e037073p-69
#define TSR__K_D_PIO2_4 0x1.129024e088a68p-123
#define TSR__K_D_PIO2_HI 0x1.921fb54442d18p+0
#define TSR__K_D_PIO2_LO 0x1.1a62633145c07p-54
#define TSR__K_D_2OPI 0x1.45f306dc9c883p-1
/* SINF_S: degree 3, fit error 1.73e-11 of the result (2^-35.7) */
#define TSR__K_SINF_S0 -0x1.555556p-3f
#define TSR__K_SINF_S1 0x1.11110ep-7f
#define TSR__K_SINF_S2 -0x1.a013a8p-13f
#define TSR__K_SINF_S3 0x1.6dbe08p-19f
/* SIND_S: degree 6, fit error 7.15e-21 of the result (2^-66.9) */
#define TSR__K_SIND_S0 -0x1.5555555555555p-3
#define TSR__K_SIND_S1 0x1.1111111111110p-7
#define TSR__K_SIND_S2 -0x1.a01a01a019938p-13
#define TSR__K_SIND_S3 0x1.71de3a546095bp-19
#define TSR__K_SIND_S4 -0x1.ae645412c560cp-26
#define TSR__K_SIND_S5 0x1.61217f0b800d5p-33
#define TSR__K_SIND_S6 -0x1.ab17d404de5b3p-41
/* COSF_C: degree 3, fit error 1.26e-12 of the result (2^-39.5) */
#define TSR__K_COSF_C0 0x1.555556p-5f
#define TSR__K_COSF_C1 -0x1.6c16c0p-10f
#define TSR__K_COSF_C2 0x1.a015c4p-16f
#define TSR__K_COSF_C3 -0x1.25244ep-22f
/* COSD_C: degree 5, fit error 6.88e-19 of the result (2^-60.3) */
#define TSR__K_COSD_C0 0x1.5555555555555p-5
#define TSR__K_COSD_C1 -0x1.6c16c16c16967p-10
#define TSR__K_COSD_C2 0x1.a01a019f4eb01p-16
#define TSR__K_COSD_C3 -0x1.27e4fa17da09ep-22
#define TSR__K_COSD_C4 0x1.1eeb68e93b64cp-29
#define TSR__K_COSD_C5 -0x1.907da367a37cbp-37
/* ATANF_A: degree 6, fit error 7.31e-12 of the result (2^-37.0) */
#define TSR__K_ATANF_A0 -0x1.555556p-2f
#define TSR__K_ATANF_A1 0x1.999996p-3f
#define TSR__K_ATANF_A2 -0x1.24916ap-3f
#define TSR__K_ATANF_A3 0x1.c6e4b4p-4f
#define TSR__K_ATANF_A4 -0x1.71029cp-4f
#define TSR__K_ATANF_A5 0x1.1fe196p-4f
#define TSR__K_ATANF_A6 -0x1.39b60ap-5f
/* ATAND_A: degree 12, fit error 3.05e-20 of the result (2^-64.8) */
#define TSR__K_ATAND_A0 -0x1.5555555555555p-2
#define TSR__K_ATAND_A1 0x1.999999999998fp-3
#define TSR__K_ATAND_A2 -0x1.24924924918e8p-3
#define TSR__K_ATAND_A3 0x1.c71c71c6740b1p-4
#define TSR__K_ATAND_A4 -0x1.745d171e3eb9fp-4
#define TSR__K_ATAND_A5 0x1.3b13abae16efbp-4
#define TSR__K_ATAND_A6 -0x1.111090a2806b0p-4
#define TSR__K_ATAND_A7 0x1.e1d23dd1aec1fp-5
#define TSR__K_ATAND_A8 -0x1.ae802f8797bc7p-5
#define TSR__K_ATAND_A9 0x1.812dbb32976abp-5
#define TSR__K_ATAND_A10 -0x1.4ac2f13f00fb9p-5
#define TSR__K_ATAND_A11 0x1.ddf4141252423p-6
#define TSR__K_ATAND_A12 -0x1.9a239e5a9c793p-7
/* ASINF_P: degree 6, fit error 6.18e-11 of the result (2^-33.9) */
#define TSR__K_ASINF_P0 0x1.555556p-3f
#define TSR__K_ASINF_P1 0x1.33331ep-4f
#define TSR__K_ASINF_P2 0x1.6dc0f0p-5f
#define TSR__K_ASINF_P3 0x1.efedf8p-6f
#define TSR__K_ASINF_P4 0x1.82db24p-6f
#define TSR__K_ASINF_P5 0x1.5a80a0p-7f
#define TSR__K_ASINF_P6 0x1.fb7ca4p-6f
/* ASIND_P: degree 13, fit error 2.44e-19 of the result (2^-61.8) */
#define TSR__K_ASIND_P0 0x1.5555555555555p-3
#define TSR__K_ASIND_P1 0x1.3333333333388p-4
#define TSR__K_ASIND_P2 0x1.6db6db6dac1e0p-5
#define TSR__K_ASIND_P3 0x1.f1c71c7a52ba3p-6
#define TSR__K_ASIND_P4 0x1.6e8ba123e494cp-6
#define TSR__K_ASIND_P5 0x1.1c4efce23019fp-6
#define TSR__K_ASIND_P6 0x1.c990ad3d8fdcap-7
#define TSR__K_ASIND_P7 0x1.7b027ee1dd585p-7
#define TSR__K_ASIND_P8 0x1.3b49de7121487p-7
#define TSR__K_ASIND_P9 0x1.31622469ce5adp-7
#define TSR__K_ASIND_P10 0x1.8f193743418ffp-9
#define TSR__K_ASIND_P11 0x1.406192d124629p-6
#define TSR__K_ASIND_P12 -0x1.3b416bb7d9257p-6
#define TSR__K_ASIND_P13 0x1.e529c6fce9bb4p-6
#define TSR__K_F_ATAN_HALF_HI 0x1.dac670p-2f
#define TSR__K_F_ATAN_HALF_LO 0x1.586ed4p-28f
#define TSR__K_F_PIO4_HI 0x1.921fb6p-1f
#define TSR__K_F_PIO4_LO -0x1.777a5cp-26f
#define TSR__K_F_PI_HI 0x1.921fb6p+1f
#define TSR__K_F_PI_LO -0x1.777a5cp-24f
#define TSR__K_D_ATAN_HALF_HI 0x1.dac670561bb4fp-2
#define TSR__K_D_ATAN_HALF_LO 0x1.a2b7f222f65e2p-56
#define TSR__K_D_PIO4_HI 0x1.921fb54442d18p-1
#define TSR__K_D_PIO4_LO 0x1.1a62633145c07p-55
#define TSR__K_D_PI_HI 0x1.921fb54442d18p+1
#define TSR__K_D_PI_LO 0x1.1a62633145c07p-53
#define TSR__K_2OPI_WORDS 40
#define TSR__K_2OPI_TABLE \
    0x00000000u, 0x00000000u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, \
    0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, \
    0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u, \
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, \
    0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, \
    0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u, 0x8A5292EAu, \
    0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu
/* clang-format on */

/* What differs between the two types besides the constants above: the
 * end of the Cody-Waite range, pi/4 (rounded up) below which no
 * reduction is needed, and the bound below which sin(x) and tan(x) round
 * to x and cos(x) to 1. */
#define TSR__K_F_CW_MAX 0x1p12f
#define TSR__K_F_PIO4 0x1.921fb6p-1f
#define TSR__K_F_CTANH_BIG 44.0f
#define TSR__K_D_CTANH_BIG 354.0
#define TSR__K_F_ROOT_TINY 0x1p-100f
#define TSR__K_D_ROOT_TINY 0x1p-1000
#define TSR__K_F_TRIG_TINY 0x1p-13f
#define TSR__K_F_ATAN_HUGE 0x1p30f
#define TSR__K_F_3PIO4 0x1.2d97c8p+1f
#define TSR__K_D_CW_MAX 0x1p20
#define TSR__K_D_PIO4 0x1.921fb54442d19p-1
#define TSR__K_D_TRIG_TINY 0x1p-27
#define TSR__K_D_ATAN_HUGE 0x1p64
#define TSR__K_D_3PIO4 0x1.2d97c7f3321d2p+1
#define TSR__K_F_EPS 0x1p-23f
#define TSR__K_D_EPS 0x1p-52

/* OpenCL C 1.2 keeps a table outside functions only in __constant. */
#ifdef __OPENCL_VERSION__
#define TSR__K_TABLE __constant
#else
#define TSR__K_TABLE static const
#endif

TSR__K_TABLE tsr__u32 tsr__k_2opi[TSR__K_2OPI_WORDS] = {TSR__K_2OPI_TABLE};

/* 64 bits of the table from bit q (bit 0 is word 0's top bit). */
static inline tsr__u64 tsr__k_2opi_bits(int q)
{
    int w = q >> 5, s = q & 31;
    tsr__u64 top = ((tsr__u64)tsr__k_2opi[w] << 32 | tsr__k_2opi[w + 1]) << s;
    return top | (((tsr__u64)tsr__k_2opi[w + 2] << s) >> 32);
}

/* a * b = hi 2^64 + lo, from 32-bit halves. */
static inline tsr__u64 tsr__k_mul128(tsr__u64 a, tsr__u64 b, tsr__u64 *lo)
{
    tsr__u64 m32 = 0xFFFFFFFFu;
    tsr__u64 ll = (a & m32) * (b & m32), lh = (a & m32) * (b >> 32);
    tsr__u64 hl = (a >> 32) * (b & m32), hh = (a >> 32) * (b >> 32);
    tsr__u64 mid = (ll >> 32) + (lh & m32) + (hl & m32);
    *lo = mid << 32 | (ll & m32);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* m 2^e 2/pi = 4n + j + d for m < 2^53 and e >= -62: returns j (0..3),
 * d = (ghi 2^64 + glo) 2^-128 read as two's complement, |d| <= 1/2.
 * Bit i of 2/pi (weight 2^-i) is the table's bit i + 63, so the bits
 * that matter, from i = e - 1 on, start at e + 62; F is 0.b_(e-1)...
 * and m 2^e 2/pi mod 4 = 4 frac(m F), whose 192 bits are
 * (m F0 mod 2^64) + m F1 2^-64 + m F2 2^-128 (carry included). */
static inline int tsr__k_rem_pio2_fix(tsr__u64 m, int e, tsr__u64 *ghi, tsr__u64 *glo)
{
    int q = e + 62;
    tsr__u64 l1, l2;
    tsr__u64 a = m * tsr__k_2opi_bits(q);
    tsr__u64 h1 = tsr__k_mul128(m, tsr__k_2opi_bits(q + 64), &l1);
    tsr__u64 h2 = tsr__k_mul128(m, tsr__k_2opi_bits(q + 128), &l2);
    tsr__u64 b = l1 + h2;
    a += h1 + (b < l1 ? 1u : 0u);
    *ghi = a << 2 | b >> 62;
    *glo = b << 2 | l2 >> 62;
    return (int)((a >> 62) + (*ghi >> 63)) & 3;
}

/* The functions of a real type T (suffix sfx; C is F or D, the
 * constants' prefix; U the unsigned integer of T's width, BITS moves T's
 * bits into it). The type's own tsr__k_sinp_<sfx>(z), tsr__k_cosp_<sfx>(z)
 * evaluate S and C, and tsr__k_fix_<sfx>(ghi, glo, &p2, &p3) cuts the
 * reduction's fraction into three pieces that convert exactly.
 *   two_sum: a + b = s + *err exactly (Knuth).
 *   fix_sum: p1 + p2 + p3 in two words, for pieces that are exact and
 *     ordered (p1 a multiple of p2's top, p3 below p2's lowest bit).
 *   rem_pio2: ax = (4n + j) pi/2 + rh + rl for a finite ax > pi/4.
 *   sin_kern, cos_kern: sin(rh + rl), cos(rh + rl) as hi + *lo, |lo|
 *     at most an eighth of |hi|; rh^3 = p + pl, pl from the errors of z
 *     and of rh z.
 *   sincos: sin(x), or cos(x) = sin(|x| + pi/2) (one quadrant on).
 *   tan: sin / cos as above. */
/* (two_sum is kernels/scalar_math.h's.) */
#define TSR__K_TRIG(T, sfx, C, U, FMA, RINT, BITS)                                                 \
    static inline T tsr__k_fix_sum_##sfx(T p1, T p2, T p3, T *dl)                                  \
    {                                                                                              \
        T e;                                                                                       \
        T s = tsr__k_two_sum_##sfx(p1, p2, &e);                                                    \
        e += p3;                                                                                   \
        T dh = s + e;                                                                              \
        *dl = e - (dh - s);                                                                        \
        return dh;                                                                                 \
    }                                                                                              \
    static inline int tsr__k_rem_pio2_##sfx(T ax, T *rh, T *rl)                                    \
    {                                                                                              \
        T h, lo;                                                                                   \
        int j;                                                                                     \
        if (ax < TSR__K_##C##_CW_MAX) {                                                            \
            T k = RINT(ax * TSR__K_##C##_2OPI);                                                    \
            T e1, e2;                                                                              \
            T s = tsr__k_two_sum_##sfx(FMA(-k, TSR__K_##C##_PIO2_1, ax), -k * TSR__K_##C##_PIO2_2, \
                                       &e1);                                                       \
            T c = k * TSR__K_##C##_PIO2_3;                                                         \
            h = tsr__k_two_sum_##sfx(s, -c, &e2);                                                  \
            lo = (e1 + e2) - FMA(k, TSR__K_##C##_PIO2_4, FMA(k, TSR__K_##C##_PIO2_3, -c));         \
            j = (int)k & 3;                                                                        \
        } else {                                                                                   \
            U u = BITS(ax);                                                                        \
            U one = (U)1 << TSR__K_##C##_MANT;                                                     \
            int e = (int)(u >> TSR__K_##C##_MANT) - TSR__K_##C##_BIAS - TSR__K_##C##_MANT;         \
            tsr__u64 ghi, glo;                                                                     \
            j = tsr__k_rem_pio2_fix((tsr__u64)((u & (one - 1)) | one), e, &ghi, &glo);             \
            T p2, p3, dl;                                                                          \
            T p1 = tsr__k_fix_##sfx(ghi, glo, &p2, &p3);                                           \
            T dh = tsr__k_fix_sum_##sfx(p1, p2, p3, &dl);                                          \
            h = dh * TSR__K_##C##_PIO2_HI;                                                         \
            lo = FMA(dh, TSR__K_##C##_PIO2_HI, -h) +                                               \
                 FMA(dh, TSR__K_##C##_PIO2_LO, dl * TSR__K_##C##_PIO2_HI);                         \
        }                                                                                          \
        *rh = h + lo;                                                                              \
        *rl = lo - (*rh - h);                                                                      \
        return j;                                                                                  \
    }                                                                                              \
    static inline T tsr__k_sin_kern_##sfx(T rh, T rl, T *lo)                                       \
    {                                                                                              \
        T z = rh * rh;                                                                             \
        T p = rh * z;                                                                              \
        T pl = FMA(rh, FMA(rh, rh, -z), FMA(rh, z, -p));                                           \
        T s = tsr__k_sinp_##sfx(z);                                                                \
        *lo = FMA(p, s, FMA(pl, s, FMA((T)-0.5 * z, rl, rl)));                                     \
        return rh;                                                                                 \
    }                                                                                              \
    static inline T tsr__k_cos_kern_##sfx(T rh, T rl, T *lo)                                       \
    {                                                                                              \
        T z = rh * rh;                                                                             \
        T zl = FMA(rh, rh, -z) + (T)2 * rh * rl;                                                   \
        T hz = (T)0.5 * z;                                                                         \
        T w = (T)1 - hz;                                                                           \
        *lo = (((T)1 - w) - hz) + FMA(z * z, tsr__k_cosp_##sfx(z), (T)-0.5 * zl);                  \
        return w;                                                                                  \
    }                                                                                              \
    static inline T tsr__k_sincos_##sfx(T x, int cosine)                                           \
    {                                                                                              \
        if (x != x)                                                                                \
            return x + x;                                                                          \
        T ax = x < 0 ? -x : x;                                                                     \
        if (ax == (T)INFINITY)                                                                     \
            return (T)TSR__K_QUIET_NAN;                                                            \
        if (ax < TSR__K_##C##_TRIG_TINY)                                                           \
            return cosine ? (T)1 : x;                                                              \
        T rh = ax, rl = 0, lo;                                                                     \
        int j = ax > TSR__K_##C##_PIO4 ? tsr__k_rem_pio2_##sfx(ax, &rh, &rl) : 0;                  \
        j += cosine;                                                                               \
        T hi = (j & 1) ? tsr__k_cos_kern_##sfx(rh, rl, &lo) : tsr__k_sin_kern_##sfx(rh, rl, &lo);  \
        T y = hi + lo;                                                                             \
        if (j & 2)                                                                                 \
            y = -y;                                                                                \
        return !cosine && x < 0 ? -y : y;                                                          \
    }                                                                                              \
    static inline T tsr__k_sin_##sfx(T x)                                                          \
    {                                                                                              \
        return tsr__k_sincos_##sfx(x, 0);                                                          \
    }                                                                                              \
    static inline T tsr__k_cos_##sfx(T x)                                                          \
    {                                                                                              \
        return tsr__k_sincos_##sfx(x, 1);                                                          \
    }                                                                                              \
    static inline T tsr__k_tan_##sfx(T x)                                                          \
    {                                                                                              \
        if (x != x)                                                                                \
            return x + x;                                                                          \
        T ax = x < 0 ? -x : x;                                                                     \
        if (ax == (T)INFINITY)                                                                     \
            return (T)TSR__K_QUIET_NAN;                                                            \
        if (ax < TSR__K_##C##_TRIG_TINY)                                                           \
            return x;                                                                              \
        T rh = ax, rl = 0, sl, cl;                                                                 \
        int j = ax > TSR__K_##C##_PIO4 ? tsr__k_rem_pio2_##sfx(ax, &rh, &rl) : 0;                  \
        T sh = tsr__k_sin_kern_##sfx(rh, rl, &sl);                                                 \
        T ch = tsr__k_cos_kern_##sfx(rh, rl, &cl);                                                 \
        T s = sh + sl, c = ch + cl;                                                                \
        sl -= s - sh;                                                                              \
        cl -= c - ch;                                                                              \
        T nh = s, nl = sl, dh = c, dl = cl;                                                        \
        if (j & 1) {                                                                               \
            nh = c;                                                                                \
            nl = cl;                                                                               \
            dh = -s;                                                                               \
            dl = -sl;                                                                              \
        }                                                                                          \
        T q = nh / dh;                                                                             \
        T rem = FMA(-q, dh, nh);                                                                   \
        T t = q + FMA(-q, dl, rem + nl) / dh;                                                      \
        return x < 0 ? -t : t;                                                                     \
    }

/* The inverse functions of a real type T, as TSR__K_TRIG (whose
 * two_sum they use); SQRT is T's correctly rounded square root, and
 * tsr__k_atanp_<sfx>(z), tsr__k_asinp_<sfx>(z) evaluate A and P.
 *   atan_core: atan(n / d) = hi + *lo for 0 <= n <= d: with c = 0, 1/2
 *     or 1 as n / d is below 7/16, 11/16 or not, atan(n / d) = atan(c) +
 *     atan(t), t = (n - c d) / (d + c n): the numerator is exact
 *     (Sterbenz), the denominator is taken in two words and t = th + tl
 *     with the division's exact remainder; |t| <= 7/16.
 *   atan_add: b + atan(n / d) (or b - atan(n / d)), b in two words;
 *     atan_add2 also gives the sum's tail.
 *   atan: ax <= 1 as atan(ax / 1), else pi/2 - atan(1 / ax); pi/2
 *     (rounded) beyond ATAN_HUGE, where the rest is below a quarter ulp.
 *   atan2: IEEE 754's special values, then the smaller of |y|, |x| over
 *     the larger, both scaled by a power of two that puts the larger in
 *     [2, 4) (subnormals made normal first), added to 0, pi/2 or pi; y / x
 *     itself where that is below TRIG_TINY and x > 0 (atan's cubic term
 *     is below a quarter ulp there, and y / x is rounded once).
 *     atan2w: that path alone, for finite ay >= 0 and x, not both zero,
 *     in two words (hi + *lo; complex pow's arg x).
 *   asin_sqrt: asin(s) for s = sqrt(w), w <= 1/4, as s + *lo, with
 *     sqrt's rounding error taken from its exact remainder.
 *   asin, acos: |x| <= 1/2 directly (acos = pi/2 - asin), else through
 *     asin(x) = pi/2 - 2 asin(sqrt((1 - x) / 2)), acos(x) = 2 asin(sqrt((1
 *     - x) / 2)) and, for x < 0, acos(x) = pi - 2 asin(sqrt((1 + x) / 2)),
 *     1 -+ x exact. */
#define TSR__K_ATRIG(T, sfx, C, U, FMA, SQRT, BITS)                                             \
    static inline T tsr__k_atan_core_##sfx(T n, T d, T *lo)                                     \
    {                                                                                           \
        T ah = 0, al = 0, num = n, dh = d, dl = 0;                                              \
        if (n > (T)0.6875 * d) {                                                                \
            ah = TSR__K_##C##_PIO4_HI;                                                          \
            al = TSR__K_##C##_PIO4_LO;                                                          \
            num = n - d;                                                                        \
            dh = tsr__k_two_sum_##sfx(d, n, &dl);                                               \
        } else if (n > (T)0.4375 * d) {                                                         \
            ah = TSR__K_##C##_ATAN_HALF_HI;                                                     \
            al = TSR__K_##C##_ATAN_HALF_LO;                                                     \
            num = n - (T)0.5 * d;                                                               \
            dh = tsr__k_two_sum_##sfx(d, (T)0.5 * n, &dl);                                      \
        }                                                                                       \
        T th = num / dh;                                                                        \
        T tl = FMA(-th, dl, FMA(-th, dh, num)) / dh;                                            \
        T z = th * th, e;                                                                       \
        T hi = tsr__k_two_sum_##sfx(ah, th, &e);                                                \
        *lo = e + (al + FMA(th * z, tsr__k_atanp_##sfx(z), FMA(-z, tl, tl)));                   \
        return hi;                                                                              \
    }                                                                                           \
    static inline T tsr__k_atan_add2_##sfx(T bh, T bl, T n, T d, int minus, T *tail)            \
    {                                                                                           \
        T lo, e;                                                                                \
        T hi = tsr__k_atan_core_##sfx(n, d, &lo);                                               \
        if (minus) {                                                                            \
            hi = -hi;                                                                           \
            lo = -lo;                                                                           \
        }                                                                                       \
        T s = tsr__k_two_sum_##sfx(bh, hi, &e);                                                 \
        T t = e + (bl + lo), r = s + t;                                                         \
        *tail = t - (r - s);                                                                    \
        return r;                                                                               \
    }                                                                                           \
    static inline T tsr__k_atan_add_##sfx(T bh, T bl, T n, T d, int minus)                      \
    {                                                                                           \
        T t;                                                                                    \
        return tsr__k_atan_add2_##sfx(bh, bl, n, d, minus, &t);                                 \
    }                                                                                           \
    static inline T tsr__k_atan_##sfx(T x)                                                      \
    {                                                                                           \
        if (x != x)                                                                             \
            return x + x;                                                                       \
        T ax = x < 0 ? -x : x, y;                                                               \
        if (ax < TSR__K_##C##_TRIG_TINY)                                                        \
            return x;                                                                           \
        if (ax > TSR__K_##C##_ATAN_HUGE)                                                        \
            y = TSR__K_##C##_PIO2_HI;                                                           \
        else if (ax <= (T)1)                                                                    \
            y = tsr__k_atan_add_##sfx(0, 0, ax, (T)1, 0);                                       \
        else                                                                                    \
            y = tsr__k_atan_add_##sfx(TSR__K_##C##_PIO2_HI, TSR__K_##C##_PIO2_LO, (T)1, ax, 1); \
        return x < 0 ? -y : y;                                                                  \
    }                                                                                           \
    static inline T tsr__k_atan2w_##sfx(T ay, T x, T *lo)                                       \
    {                                                                                           \
        T ax = x < 0 ? -x : x;                                                                  \
        int negx = (BITS(x) >> (sizeof(U) * 8 - 1)) != 0, swap = ay > ax;                       \
        T n = swap ? ax : ay, d = swap ? ay : ax;                                               \
        if (d < TSR__K_##C##_MIN_NORMAL) {                                                      \
            n *= TSR__K_##C##_SUB_SCALE;                                                        \
            d *= TSR__K_##C##_SUB_SCALE;                                                        \
        }                                                                                       \
        T s = tsr__k_pow2_##sfx(1 + TSR__K_##C##_BIAS - (int)(BITS(d) >> TSR__K_##C##_MANT));   \
        T bh = swap ? TSR__K_##C##_PIO2_HI : negx ? TSR__K_##C##_PI_HI : (T)0;                  \
        T bl = swap ? TSR__K_##C##_PIO2_LO : negx ? TSR__K_##C##_PI_LO : (T)0;                  \
        return tsr__k_atan_add2_##sfx(bh, bl, n * s, d * s, swap != negx, lo);                  \
    }                                                                                           \
    static inline T tsr__k_atan2_##sfx(T y, T x)                                                \
    {                                                                                           \
        if (x != x || y != y)                                                                   \
            return x + y;                                                                       \
        T ax = x < 0 ? -x : x, ay = y < 0 ? -y : y, r;                                          \
        int negx = (BITS(x) >> (sizeof(U) * 8 - 1)) != 0;                                       \
        if (ay == 0 || (ax == (T)INFINITY && ay != (T)INFINITY)) {                              \
            r = negx ? TSR__K_##C##_PI_HI : (T)0;                                               \
        } else if (ax == (T)INFINITY) {                                                         \
            r = negx ? TSR__K_##C##_3PIO4 : TSR__K_##C##_PIO4_HI;                               \
        } else if (ay == (T)INFINITY || ax == 0) {                                              \
            r = TSR__K_##C##_PIO2_HI;                                                           \
        } else if (!negx && ay < ax * TSR__K_##C##_TRIG_TINY) {                                 \
            return y / x;                                                                       \
        } else {                                                                                \
            T l;                                                                                \
            r = tsr__k_atan2w_##sfx(ay, x, &l);                                                 \
        }                                                                                       \
        return (BITS(y) >> (sizeof(U) * 8 - 1)) != 0 ? -r : r;                                  \
    }                                                                                           \
    static inline T tsr__k_asin_sqrt_##sfx(T w, T *lo)                                          \
    {                                                                                           \
        T s = SQRT(w);                                                                          \
        T sl = s > 0 ? FMA(-s, s, w) / (s + s) : (T)0;                                          \
        *lo = FMA(s * w, tsr__k_asinp_##sfx(w), FMA((T)0.5 * w, sl, sl));                       \
        return s;                                                                               \
    }                                                                                           \
    static inline T tsr__k_asin_##sfx(T x)                                                      \
    {                                                                                           \
        T ax = x < 0 ? -x : x, y, lo, e;                                                        \
        if (x != x)                                                                             \
            return x + x;                                                                       \
        if (ax < TSR__K_##C##_TRIG_TINY)                                                        \
            return x;                                                                           \
        if (ax > (T)1)                                                                          \
            return (T)TSR__K_QUIET_NAN;                                                         \
        if (ax <= (T)0.5) {                                                                     \
            y = FMA(ax * (ax * ax), tsr__k_asinp_##sfx(ax * ax), ax);                           \
        } else {                                                                                \
            T s = tsr__k_asin_sqrt_##sfx(((T)1 - ax) * (T)0.5, &lo);                            \
            T h = tsr__k_two_sum_##sfx(TSR__K_##C##_PIO2_HI, -(s + s), &e);                     \
            y = h + (e + (TSR__K_##C##_PIO2_LO - (lo + lo)));                                   \
        }                                                                                       \
        return x < 0 ? -y : y;                                                                  \
    }                                                                                           \
    static inline T tsr__k_acos_##sfx(T x)                                                      \
    {                                                                                           \
        T ax = x < 0 ? -x : x, lo, e;                                                           \
        if (x != x)                                                                             \
            return x + x;                                                                       \
        if (ax > (T)1)                                                                          \
            return (T)TSR__K_QUIET_NAN;                                                         \
        if (ax <= (T)0.5) {                                                                     \
            T h = tsr__k_two_sum_##sfx(TSR__K_##C##_PIO2_HI, -x, &e);                           \
            return h + (e + (TSR__K_##C##_PIO2_LO - x * (x * x) * tsr__k_asinp_##sfx(x * x)));  \
        }                                                                                       \
        T s = tsr__k_asin_sqrt_##sfx(((T)1 - ax) * (T)0.5, &lo);                                \
        if (x > 0)                                                                              \
            return (s + s) + (lo + lo);                                                         \
        T h = tsr__k_two_sum_##sfx(TSR__K_##C##_PI_HI, -(s + s), &e);                           \
        return h + (e + (TSR__K_##C##_PI_LO - (lo + lo)));                                      \
    }

static inline float tsr__k_sinp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_SINF_S3, TSR__K_SINF_S2);
    p = tsr__k_fmaf(z, p, TSR__K_SINF_S1);
    return tsr__k_fmaf(z, p, TSR__K_SINF_S0);
}
static inline float tsr__k_cosp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_COSF_C3, TSR__K_COSF_C2);
    p = tsr__k_fmaf(z, p, TSR__K_COSF_C1);
    return tsr__k_fmaf(z, p, TSR__K_COSF_C0);
}
static inline float tsr__k_atanp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_ATANF_A6, TSR__K_ATANF_A5);
    p = tsr__k_fmaf(z, p, TSR__K_ATANF_A4);
    p = tsr__k_fmaf(z, p, TSR__K_ATANF_A3);
    p = tsr__k_fmaf(z, p, TSR__K_ATANF_A2);
    p = tsr__k_fmaf(z, p, TSR__K_ATANF_A1);
    return tsr__k_fmaf(z, p, TSR__K_ATANF_A0);
}
static inline float tsr__k_asinp_f32(float z)
{
    float p = tsr__k_fmaf(z, TSR__K_ASINF_P6, TSR__K_ASINF_P5);
    p = tsr__k_fmaf(z, p, TSR__K_ASINF_P4);
    p = tsr__k_fmaf(z, p, TSR__K_ASINF_P3);
    p = tsr__k_fmaf(z, p, TSR__K_ASINF_P2);
    p = tsr__k_fmaf(z, p, TSR__K_ASINF_P1);
    return tsr__k_fmaf(z, p, TSR__K_ASINF_P0);
}
/* float32 keeps the fraction's top 64 bits: 24 + 24 + 16. */
static inline float tsr__k_fix_f32(tsr__u64 ghi, tsr__u64 glo, float *p2, float *p3)
{
    (void)glo;
    *p2 = (float)((ghi >> 16) & 0xFFFFFFu) * 0x1p-48f;
    *p3 = (float)(ghi & 0xFFFFu) * 0x1p-64f;
    return (float)tsr__k_signed(ghi & ~TSR__U64(0xFFFFFFFFFF)) * 0x1p-64f;
}
TSR__K_TRIG(float, f32, F, tsr__u32, tsr__k_fmaf, tsr__k_rintf, tsr__float_bits)
TSR__K_ATRIG(float, f32, F, tsr__u32, tsr__k_fmaf, tsr__k_sqrtf, tsr__float_bits)

/* bfloat16 computes in float and rounds once; float16 is refused before
 * (NO_HALF), its names are there for the programs that name every
 * family. */
#define tsr__k_sin_f16 tsr__k_sin_f32
#define tsr__k_sin_bf16 tsr__k_sin_f32
#define tsr__k_cos_f16 tsr__k_cos_f32
#define tsr__k_cos_bf16 tsr__k_cos_f32
#define tsr__k_tan_f16 tsr__k_tan_f32
#define tsr__k_tan_bf16 tsr__k_tan_f32
#define tsr__k_asin_f16 tsr__k_asin_f32
#define tsr__k_asin_bf16 tsr__k_asin_f32
#define tsr__k_acos_f16 tsr__k_acos_f32
#define tsr__k_acos_bf16 tsr__k_acos_f32
#define tsr__k_atan_f16 tsr__k_atan_f32
#define tsr__k_atan_bf16 tsr__k_atan_f32
#define tsr__k_atan2_f16 tsr__k_atan2_f32
#define tsr__k_atan2_bf16 tsr__k_atan2_f32

/* The complex functions of complex64 (Z tsr__kc64, parts T float) and
 * complex128, as PyTorch 1.13's cpu computes them (docs/semantics.md):
 * exp and log2 by its vector loops' formulas, sigmoid, silu and rsqrt
 * by its element loops', the others as glibc's element functions (C99
 * Annex G's special values), all built on the real functions above, so
 * every part is within a few ulps of the correctly rounded value (NEG
 * tells a value's sign bit, SQRT is the correctly rounded square root).
 *   sc: sin y and cos y; a subnormal y gives y and 1.
 *   exp: e^x cos y + i e^x sin y, no special cases (exp(inf + 0i) is
 *     inf + NaN i, as PyTorch's vector loop gives it).
 *   expg: exp as glibc's cexp (Annex G's special values; beyond
 *     EXP_HUGE - 1, e^x applied in two halves), for sigmoid.
 *   sigmoid, silu: 1 / (1 + expg(-z)) and z / (1 + expg(-z)) as
 *     PyTorch's element loop computes them, the quotient as Z##_div
 *     (unscaled: 0 where the square overflows).
 *   csqrt: glibc's csqrt (Annex G's values): sqrt((|z| + |x|) / 2) for
 *     the larger part, y / 2 over it for the other, both parts scaled by
 *     1/4 (2^2 SUB_BITS) where |z| could overflow (be subnormal); rsqrt:
 *     1 / csqrt(z) by Z##_div.
 *   log: log|z| + i atan2(y, x); log|z| = log1p(x^2 + y^2 - 1) / 2 where
 *     |z|^2 is in [1/2, 2] (x^2 + y^2 - 1 summed in two words from the
 *     squares and their exact errors, by fma), log(hypot(x, y)) elsewhere
 *     (of x / 4 and y / 4, plus 2 ln2, where |z| could overflow; of x
 *     and y scaled up where it could be subnormal).
 *   log2: log(z) / ln2 part by part (PyTorch's vector loop); log10:
 *     log|z| / ln10 (1 / ln10 in two words) + i atan2(y, x) log10(e).
 *   sch: sinh (odd 1) or cosh (odd 0) of x + iy, with Annex G's special
 *     values: y = 0 keeps y's zero (times sign x for cosh), x = 0 with y
 *     infinite or NaN gives 0 (sinh) or NaN (cosh) and NaN; beyond
 *     EXP_HUGE - 1, e^|x| / 2 is applied in two halves, so a small sin or
 *     cos keeps the product finite.
 *   sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz).
 *   tanh: (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y); beyond
 *     CTANH_BIG, sign(x) + i 4 sin y cos y e^-2|x|.
 *   asinh, asin, acos, acosh, atanh, atan: glibc's casinh ... catan
 *     (Annex G's special values, glibc's where it leaves one open).
 *     asinhk takes asinh z = log(z + sqrt(z^2 + 1)) in the first quadrant
 *     a = |x|, b = |y| by cases that keep its digits: beyond 1/EPS
 *     log(2z); a >= 1/2 with b tiny, and b >= 3/2 with a tiny, through
 *     the real sqrt and log; for a < 1/2 and b near 1 (asinh_near: b
 *     within (1, 3/2) or below 1) log1p of a sum built from d =
 *     sqrt(m^2 + f), m = |1 - b^2|, f = a^2 (2 + a^2 + 2 b^2), without a
 *     difference of close numbers; b = 1 and tiny a apart; csqrt and
 *     clog elsewhere; the signs of x and y put back. adj asks for the
 *     result rotated a quarter turn (acos z = -i asinh(iz) + pi/2 read
 *     off directly, without pi/2 - asin's cancellation; acosh alike).
 *     asin z = -i asinh(iz); acos through asin where a part is not
 *     finite or z = 0. atanh: log((1 + x)^2 + y^2) / ((1 - x)^2 + y^2))
 *     / 4 by log, or log1p(4x / den) where the quotient is near 1, 1 / z
 *     beyond 16/EPS; the imaginary part atan2(2y, (1 - x^2) - y^2) / 2
 *     with x^2 + y^2 - 1 in two words (x2y2m1) where it cancels. atan z
 *     = -i atanh(iz).
 *   gmul: C99 Annex G's product (libgcc's: a NaN + NaN i product of an
 *     infinite factor, or of overflowing partial products, is computed
 *     again with the infinities boxed and the NaNs made zeros). A NaN
 *     part that no NaN factor brought (inf * 0) is DNAN, x86's: its sign
 *     reaches pow's result (exp of -inf + NaN i is 0 with the NaN's
 *     sign), and other devices' arithmetic makes NaNs positive.
 *   pow: x^y = exp(y log x). Special values (a part not finite, x = 0, y
 *     = 0, y log x beyond exp's range) as glibc's cpow, cexp(y clog x)
 *     with gmul; elsewhere (cpow_fine) log|x| in two words (x scaled by
 *     a power of two, |x|^2 as an exact sum of squares, powlog; near |x|
 *     = 1 log1p(|x|^2 - 1) / 2 with |x|^2 - 1 from x2y2m1), arg x
 *     in two words (atan2w), y log x in two words, e^re through exp's
 *     two-word path and the cosine and sine of the two-word imaginary
 *     part (to second order; beyond ROOT_BIG it is not known that well,
 *     and the special values' formula takes over), so that each part is
 *     within about 2 ulps of the true value where glibc's loses digits as
 *     |y log x| grows.
 *   pows: PyTorch's tensor ^ number: exponent 0 gives 1, 1 the base,
 *     1/2 csqrt, -1/2 rsqrt, -1 and -2 c10's quotients 1 / x and 1 /
 *     (x x), 2 and 3 the products x x and (x x) x, pow elsewhere. */
#define TSR__K_CPLX_MATH(Z, T, sfx, zs, C, FMA, SQRT, NEG, BITS)                                   \
    static inline void tsr__k_sc_##sfx(T y, T *s, T *c)                                            \
    {                                                                                              \
        T ay = y < 0 ? -y : y;                                                                     \
        *s = ay < TSR__K_##C##_MIN_NORMAL ? y : tsr__k_sin_##sfx(y);                               \
        *c = ay < TSR__K_##C##_MIN_NORMAL ? (T)1 : tsr__k_cos_##sfx(y);                            \
    }                                                                                              \
    static inline T tsr__k_cps_##zs(T v, T s)                                                      \
    {                                                                                              \
        T a = NEG(v) ? -v : v;                                                                     \
        return NEG(s) ? -a : a;                                                                    \
    }                                                                                              \
    static inline T tsr__k_x2y2m1_##zs(T a, T b, T *lo)                                            \
    {                                                                                              \
        T p = a * a, q = b * b, e1, e2, e3, e4;                                                    \
        T u = tsr__k_two_sum_##sfx(p, (T)-1, &e1);                                                 \
        u = tsr__k_two_sum_##sfx(u, q, &e2);                                                       \
        u = tsr__k_two_sum_##sfx(u, FMA(a, a, -p), &e3);                                           \
        u = tsr__k_two_sum_##sfx(u, FMA(b, b, -q), &e4);                                           \
        *lo = (e1 + e2) + (e3 + e4);                                                               \
        return u;                                                                                  \
    }                                                                                              \
    static inline Z tsr__k_exp_##zs(Z z)                                                           \
    {                                                                                              \
        T e = tsr__k_exp_##sfx(z.re), s, c;                                                        \
        tsr__k_sc_##sfx(z.im, &s, &c);                                                             \
        return Z##_make(e * c, e * s);                                                             \
    }                                                                                              \
    static inline Z tsr__k_expg_##zs(T x, T y)                                                     \
    {                                                                                              \
        T s, c, h;                                                                                 \
        if (y == 0)                                                                                \
            return Z##_make(tsr__k_exp_##sfx(x), y);                                               \
        if (y - y != 0) {                                                                          \
            if (x == -(T)INFINITY)                                                                 \
                return Z##_make((T)0, NEG(y) ? -(T)0 : (T)0);                                      \
            return Z##_make(x == (T)INFINITY ? x : y - y, y - y);                                  \
        }                                                                                          \
        tsr__k_sc_##sfx(y, &s, &c);                                                                \
        if (x > TSR__K_##C##_EXP_HUGE - (T)1) {                                                    \
            h = tsr__k_exp_##sfx((T)0.5 * x);                                                      \
            return Z##_make((h * c) * h, (h * s) * h);                                             \
        }                                                                                          \
        h = tsr__k_exp_##sfx(x);                                                                   \
        return Z##_make(h * c, h * s);                                                             \
    }                                                                                              \
    static inline Z tsr__k_sigden_##zs(Z z)                                                        \
    {                                                                                              \
        Z w = tsr__k_expg_##zs(-z.re, -z.im);                                                      \
        return Z##_make((T)1 + w.re, (T)0 + w.im);                                                 \
    }                                                                                              \
    static inline Z tsr__k_sigmoid_##zs(Z z)                                                       \
    {                                                                                              \
        return Z##_div(Z##_make((T)1, (T)0), tsr__k_sigden_##zs(z));                               \
    }                                                                                              \
    static inline Z tsr__k_silu_##zs(Z z)                                                          \
    {                                                                                              \
        return Z##_div(z, tsr__k_sigden_##zs(z));                                                  \
    }                                                                                              \
    static inline Z tsr__k_csqrt_##zs(T x, T y)                                                    \
    {                                                                                              \
        T a = x < 0 ? -x : x, b = y < 0 ? -y : y, r, s, k = 1;                                     \
        if (b == (T)INFINITY)                                                                      \
            return Z##_make(b, y);                                                                 \
        if (a == (T)INFINITY) {                                                                    \
            T z = y == y ? (NEG(y) ? -(T)0 : (T)0) : y;                                            \
            return x < 0 ? Z##_make(y == y ? (T)0 : y, NEG(y) ? -a : a) : Z##_make(x, z);          \
        }                                                                                          \
        if (x != x || y != y)                                                                      \
            return Z##_make(x + y, x + y);                                                         \
        if (y == 0)                                                                                \
            return x < 0 ? Z##_make((T)0, NEG(y) ? -SQRT(a) : SQRT(a)) : Z##_make(SQRT(a) + 0, y); \
        if (a > TSR__K_##C##_TOP || b > TSR__K_##C##_TOP) {                                        \
            a *= (T)0.25;                                                                          \
            b *= (T)0.25;                                                                          \
            k = 2;                                                                                 \
        } else if (a < TSR__K_##C##_ROOT_TINY && b < TSR__K_##C##_ROOT_TINY) {                     \
            a *= TSR__K_##C##_SUB_SCALE * TSR__K_##C##_SUB_SCALE;                                  \
            b *= TSR__K_##C##_SUB_SCALE * TSR__K_##C##_SUB_SCALE;                                  \
            k = (T)1 / TSR__K_##C##_SUB_SCALE;                                                     \
        }                                                                                          \
        T d = tsr__k_hypot_##sfx(a, b);                                                            \
        if (x > 0) {                                                                               \
            r = SQRT((T)0.5 * (d + a));                                                            \
            s = (T)0.5 * (b / r);                                                                  \
        } else {                                                                                   \
            s = SQRT((T)0.5 * (d + a));                                                            \
            r = (T)0.5 * (b / s);                                                                  \
        }                                                                                          \
        return Z##_make(r * k, (y < 0 ? -s : s) * k);                                              \
    }                                                                                              \
    static inline Z tsr__k_rsqrt_##zs(Z z)                                                         \
    {                                                                                              \
        return Z##_div(Z##_make((T)1, (T)0), tsr__k_csqrt_##zs(z.re, z.im));                       \
    }                                                                                              \
    static inline T tsr__k_logabs_##zs(Z z)                                                        \
    {                                                                                              \
        T a = z.re < 0 ? -z.re : z.re, b = z.im < 0 ? -z.im : z.im;                                \
        if (a < b) {                                                                               \
            T t = a;                                                                               \
            a = b;                                                                                 \
            b = t;                                                                                 \
        }                                                                                          \
        T p = a * a, q = b * b, s = p + q;                                                         \
        if (s >= (T)0.5 && s <= (T)2) {                                                            \
            T lo, u = tsr__k_x2y2m1_##zs(a, b, &lo);                                               \
            return (T)0.5 * (tsr__k_log1p_##sfx(u) + lo / ((T)1 + u));                             \
        }                                                                                          \
        T e = 0, m = 1;                                                                            \
        if (a >= TSR__K_##C##_TOP) { /* |z| could overflow */                                      \
            m = (T)0.25;                                                                           \
            e = 2;                                                                                 \
        } else if (a < TSR__K_##C##_ROOT_TINY) { /* or lose bits as a subnormal */                 \
            m = TSR__K_##C##_SUB_SCALE * TSR__K_##C##_SUB_SCALE;                                   \
            e = -2 * TSR__K_##C##_SUB_BITS;                                                        \
        }                                                                                          \
        T l = tsr__k_log_##sfx(tsr__k_hypot_##sfx(m * a, m * b));                                  \
        return FMA(e, TSR__K_##C##_LN2W_HI, FMA(e, TSR__K_##C##_LN2W_LO, l));                      \
    }                                                                                              \
    static inline Z tsr__k_log_##zs(Z z)                                                           \
    {                                                                                              \
        return Z##_make(tsr__k_logabs_##zs(z), tsr__k_atan2_##sfx(z.im, z.re));                    \
    }                                                                                              \
    static inline Z tsr__k_log2_##zs(Z z)                                                          \
    {                                                                                              \
        Z l = tsr__k_log_##zs(z);                                                                  \
        return Z##_make(l.re / TSR__K_##C##_LN2W_HI, l.im / TSR__K_##C##_LN2W_HI);                 \
    }                                                                                              \
    static inline Z tsr__k_log10_##zs(Z z)                                                         \
    {                                                                                              \
        T r = tsr__k_logabs_##zs(z), h = TSR__K_##C##_INVLN10_HI;                                  \
        r = r - r == 0 ? FMA(r, h, r * TSR__K_##C##_INVLN10_LO) : r * h;                           \
        return Z##_make(r, tsr__k_atan2_##sfx(z.im, z.re) * h);                                    \
    }                                                                                              \
    static inline Z tsr__k_sch_##zs(T x, T y, int odd)                                             \
    {                                                                                              \
        T ax = x < 0 ? -x : x, sx = NEG(x) ? (T)-1 : (T)1;                                         \
        if (y == 0)                                                                                \
            return Z##_make(odd ? tsr__k_sinh_##sfx(x) : tsr__k_cosh_##sfx(x),                     \
                            odd || x != x ? y : sx * y);                                           \
        if (y - y != 0) {                                                                          \
            if (x == 0)                                                                            \
                return Z##_make(odd ? x : y - y, odd ? y - y : (T)0);                              \
            return Z##_make(ax == (T)INFINITY ? ax : y - y, y - y);                                \
        }                                                                                          \
        T s, c, ch, sh;                                                                            \
        tsr__k_sc_##sfx(y, &s, &c);                                                                \
        if (ax > TSR__K_##C##_EXP_HUGE - (T)1) {                                                   \
            T h = tsr__k_exp_##sfx((T)0.5 * ax);                                                   \
            T k = (T)0.5 * h;                                                                      \
            return Z##_make(((odd ? sx : (T)1) * k * c) * h, ((odd ? (T)1 : sx) * k * s) * h);     \
        }                                                                                          \
        ch = tsr__k_cosh_##sfx(x);                                                                 \
        sh = tsr__k_sinh_##sfx(x);                                                                 \
        return Z##_make((odd ? sh : ch) * c, (odd ? ch : sh) * s);                                 \
    }                                                                                              \
    static inline Z tsr__k_sinh_##zs(Z z)                                                          \
    {                                                                                              \
        return tsr__k_sch_##zs(z.re, z.im, 1);                                                     \
    }                                                                                              \
    static inline Z tsr__k_cosh_##zs(Z z)                                                          \
    {                                                                                              \
        return tsr__k_sch_##zs(z.re, z.im, 0);                                                     \
    }                                                                                              \
    static inline Z tsr__k_sin_##zs(Z z)                                                           \
    {                                                                                              \
        Z w = tsr__k_sch_##zs(-z.im, z.re, 1);                                                     \
        return Z##_make(w.im, w.re == (T)INFINITY && w.im != w.im ? w.re : -w.re);                 \
    }                                                                                              \
    static inline Z tsr__k_cos_##zs(Z z)                                                           \
    {                                                                                              \
        return tsr__k_sch_##zs(-z.im, z.re, 0);                                                    \
    }                                                                                              \
    static inline Z tsr__k_tanh_##zs(Z z)                                                          \
    {                                                                                              \
        T x = z.re, y = z.im, ax = x < 0 ? -x : x, s, c;                                           \
        if (x != x)                                                                                \
            return Z##_make(x + x, y == 0 ? y : x + x);                                            \
        if (y - y != 0) {                                                                          \
            if (ax == (T)INFINITY)                                                                 \
                return Z##_make(x < 0 ? (T)-1 : (T)1, NEG(y) ? -(T)0 : (T)0);                      \
            return Z##_make(x == 0 ? x : y - y, y - y);                                            \
        }                                                                                          \
        tsr__k_sc_##sfx(y, &s, &c);                                                                \
        if (ax > TSR__K_##C##_CTANH_BIG) {                                                         \
            T e = tsr__k_exp_##sfx(-ax);                                                           \
            return Z##_make(x < 0 ? (T)-1 : (T)1, ((T)4 * s * c * e) * e);                         \
        }                                                                                          \
        T sh = ax < TSR__K_##C##_MIN_NORMAL ? x : tsr__k_sinh_##sfx(x);                            \
        T ch = ax < TSR__K_##C##_MIN_NORMAL ? (T)1 : tsr__k_cosh_##sfx(x);                         \
        T den = sh * sh + c * c;                                                                   \
        return Z##_make(sh * ch / den, s * c / den);                                               \
    }                                                                                              \
    static inline Z tsr__k_tan_##zs(Z z)                                                           \
    {                                                                                              \
        Z w = tsr__k_tanh_##zs(Z##_make(-z.im, z.re));                                             \
        return Z##_make(w.im, -w.re);                                                              \
    }                                                                                              \
    static inline T tsr__k_asinh_near_##zs(T a, T b, T y, int adj, T *im)                          \
    {                                                                                              \
        T m = b > 1 ? (b + 1) * (b - 1) : (1 + b) * (1 - b), a2 = a * a;                           \
        T f = a2 * ((T)2 + a2 + (T)2 * b * b), d = SQRT(m * m + f), dp = d + m, dm = f / dp;       \
        T r1 = SQRT(((b > 1 ? dm : dp) + a2) * (T)0.5), r2 = a * b / r1;                           \
        *im = adj ? tsr__k_atan2_##sfx(a + r1, tsr__k_cps_##zs(b + r2, y))                         \
                  : tsr__k_atan2_##sfx(b + r2, a + r1);                                            \
        return a2 + (b > 1 ? dp : dm) + (T)2 * (a * r1 + b * r2);                                  \
    }                                                                                              \
    static inline Z tsr__k_asinhk_##zs(T x, T y, int adj)                                          \
    {                                                                                              \
        T a = x < 0 ? -x : x, b = y < 0 ? -y : y, re, im, s, eps = TSR__K_##C##_EPS;               \
        Z w;                                                                                       \
        if (a >= (T)1 / eps || b >= (T)1 / eps) {                                                  \
            w = adj ? Z##_make(tsr__k_cps_##zs(b, y), a) : Z##_make(a, b);                         \
            w = tsr__k_log_##zs(w);                                                                \
            re = w.re + TSR__K_##C##_LN2W_HI;                                                      \
            im = w.im;                                                                             \
        } else if (a >= (T)0.5 && b < eps / 8) {                                                   \
            s = tsr__k_hypot_##sfx((T)1, a);                                                       \
            re = tsr__k_log_##sfx(a + s);                                                          \
            im = adj ? tsr__k_atan2_##sfx(s, y) : tsr__k_atan2_##sfx(b, s);                        \
        } else if (a < eps / 8 && b >= (T)1.5) {                                                   \
            s = SQRT((b + 1) * (b - 1));                                                           \
            re = tsr__k_log_##sfx(b + s);                                                          \
            im = adj ? tsr__k_atan2_##sfx(a, tsr__k_cps_##zs(s, y)) : tsr__k_atan2_##sfx(s, a);    \
        } else if (a < (T)0.5 && b > 1 && b < (T)1.5 && a >= eps * eps) {                          \
            re = (T)0.5 * tsr__k_log1p_##sfx(tsr__k_asinh_near_##zs(a, b, y, adj, &im));           \
        } else if (a < (T)0.5 && b > 1 && b < (T)1.5) {                                            \
            T m = (b + 1) * (b - 1);                                                               \
            s = SQRT(m);                                                                           \
            re = (T)0.5 * tsr__k_log1p_##sfx((T)2 * (m + b * s));                                  \
            im = adj ? tsr__k_atan2_##sfx(a, tsr__k_cps_##zs(s, y)) : tsr__k_atan2_##sfx(s, a);    \
        } else if (a < (T)0.5 && b == 1 && a < eps / 8) {                                          \
            s = SQRT(a);                                                                           \
            re = (T)0.5 * tsr__k_log1p_##sfx((T)2 * (a + s));                                      \
            im = adj ? tsr__k_atan2_##sfx(s, tsr__k_cps_##zs((T)1, y))                             \
                     : tsr__k_atan2_##sfx((T)1, s);                                                \
        } else if (a < (T)0.5 && b == 1) {                                                         \
            T d = a * SQRT((T)4 + a * a);                                                          \
            T s1 = SQRT((d + a * a) * (T)0.5), s2 = SQRT((d - a * a) * (T)0.5);                    \
            re = (T)0.5 * tsr__k_log1p_##sfx(a * a + d + (T)2 * (a * s1 + s2));                    \
            im = adj ? tsr__k_atan2_##sfx(a + s1, tsr__k_cps_##zs(1 + s2, y))                      \
                     : tsr__k_atan2_##sfx(1 + s2, a + s1);                                         \
        } else if (a < (T)0.5 && b < 1 && b >= eps && a >= eps * eps) {                            \
            re = (T)0.5 * tsr__k_log1p_##sfx(tsr__k_asinh_near_##zs(a, b, y, adj, &im));           \
        } else if (a < (T)0.5 && b < 1 && b >= eps) {                                              \
            s = SQRT((1 + b) * (1 - b));                                                           \
            re = (T)0.5 * tsr__k_log1p_##sfx((T)2 * a / s);                                        \
            im = adj ? tsr__k_atan2_##sfx(s, y) : tsr__k_atan2_##sfx(b, s);                        \
        } else if (a < (T)0.5 && b < 1) {                                                          \
            s = tsr__k_hypot_##sfx((T)1, a);                                                       \
            re = (T)0.5 * tsr__k_log1p_##sfx((T)2 * a * (a + s));                                  \
            im = adj ? tsr__k_atan2_##sfx(s, y) : tsr__k_atan2_##sfx(b, s);                        \
        } else {                                                                                   \
            w = tsr__k_csqrt_##zs((a - b) * (a + b) + 1, (T)2 * a * b);                            \
            w = Z##_make(w.re + a, w.im + b);                                                      \
            if (adj)                                                                               \
                w = Z##_make(tsr__k_cps_##zs(w.im, y), w.re);                                      \
            w = tsr__k_log_##zs(w);                                                                \
            re = w.re;                                                                             \
            im = w.im;                                                                             \
        }                                                                                          \
        return Z##_make(tsr__k_cps_##zs(re, x), tsr__k_cps_##zs(im, adj ? (T)1 : y));              \
    }                                                                                              \
    static inline Z tsr__k_asinh_##zs(Z z)                                                         \
    {                                                                                              \
        T x = z.re, y = z.im;                                                                      \
        int xf = x - x == 0, yf = y - y == 0;                                                      \
        if (!yf && y == y)                                                                         \
            return Z##_make(                                                                       \
                tsr__k_cps_##zs((T)INFINITY, x),                                                   \
                x != x ? x                                                                         \
                       : tsr__k_cps_##zs(xf ? TSR__K_##C##_PIO2_HI : TSR__K_##C##_PIO4_HI, y));    \
        if (!xf)                                                                                   \
            return Z##_make(x, (x == x && yf) || (x != x && y == 0) ? tsr__k_cps_##zs((T)0, y)     \
                                                                    : x - x);                      \
        if (!yf)                                                                                   \
            return Z##_make(y, y);                                                                 \
        if (x == 0 && y == 0)                                                                      \
            return z;                                                                              \
        return tsr__k_asinhk_##zs(x, y, 0);                                                        \
    }                                                                                              \
    static inline Z tsr__k_asin_##zs(Z z)                                                          \
    {                                                                                              \
        T x = z.re, y = z.im;                                                                      \
        if (x != x || y != y) {                                                                    \
            if (x == 0)                                                                            \
                return z;                                                                          \
            if ((x == x && x - x != 0) || (y == y && y - y != 0))                                  \
                return Z##_make(x - x, tsr__k_cps_##zs((T)INFINITY, y));                           \
            return Z##_make(x + y, x + y);                                                         \
        }                                                                                          \
        Z w = tsr__k_asinh_##zs(Z##_make(-y, x));                                                  \
        return Z##_make(w.im, -w.re);                                                              \
    }                                                                                              \
    static inline Z tsr__k_acos_##zs(Z z)                                                          \
    {                                                                                              \
        T x = z.re, y = z.im;                                                                      \
        if (x - x != 0 || y - y != 0 || (x == 0 && y == 0)) {                                      \
            Z w = tsr__k_asin_##zs(z);                                                             \
            T re = TSR__K_##C##_PIO2_HI - w.re;                                                    \
            return Z##_make(re == 0 ? (T)0 : re, -w.im);                                           \
        }                                                                                          \
        Z w = tsr__k_asinhk_##zs(-y, x, 1);                                                        \
        return Z##_make(w.im, w.re);                                                               \
    }                                                                                              \
    static inline Z tsr__k_acosh_##zs(Z z)                                                         \
    {                                                                                              \
        T x = z.re, y = z.im, inf = (T)INFINITY;                                                   \
        int xf = x - x == 0, yf = y - y == 0;                                                      \
        if (!yf && y == y)                                                                         \
            return Z##_make(inf, x != x ? x                                                        \
                                        : tsr__k_cps_##zs(xf      ? TSR__K_##C##_PIO2_HI           \
                                                          : x < 0 ? TSR__K_##C##_3PIO4             \
                                                                  : TSR__K_##C##_PIO4_HI,          \
                                                          y));                                     \
        if (!xf && x == x)                                                                         \
            return Z##_make(inf, yf ? tsr__k_cps_##zs(NEG(x) ? TSR__K_##C##_PI_HI : (T)0, y) : y); \
        if (!xf || !yf)                                                                            \
            return Z##_make(x + y, x == 0 ? TSR__K_##C##_PIO2_HI : x + y);                         \
        if (x == 0 && y == 0)                                                                      \
            return Z##_make((T)0, tsr__k_cps_##zs(TSR__K_##C##_PIO2_HI, y));                       \
        Z w = tsr__k_asinhk_##zs(-y, x, 1);                                                        \
        return NEG(y) ? Z##_make(w.re, -w.im) : Z##_make(-w.re, w.im);                             \
    }                                                                                              \
    static inline Z tsr__k_atanh_##zs(Z z)                                                         \
    {                                                                                              \
        T x = z.re, y = z.im, ax = x < 0 ? -x : x, ay = y < 0 ? -y : y, re, den, lo,               \
          eps = TSR__K_##C##_EPS;                                                                  \
        int xf = x - x == 0, yf = y - y == 0;                                                      \
        if (!yf && y == y)                                                                         \
            return Z##_make(tsr__k_cps_##zs((T)0, x), tsr__k_cps_##zs(TSR__K_##C##_PIO2_HI, y));   \
        if ((!xf && x == x) || (x == 0 && !yf))                                                    \
            return Z##_make(tsr__k_cps_##zs((T)0, x),                                              \
                            yf ? tsr__k_cps_##zs(TSR__K_##C##_PIO2_HI, y) : y);                    \
        if (!xf || !yf)                                                                            \
            return Z##_make(x + y, x + y);                                                         \
        if (x == 0 && y == 0)                                                                      \
            return z;                                                                              \
        if (ax >= (T)16 / eps || ay >= (T)16 / eps) {                                              \
            if (ay <= 1)                                                                           \
                re = (T)1 / x;                                                                     \
            else if (ax <= 1)                                                                      \
                re = x / y / y;                                                                    \
            else {                                                                                 \
                T h = tsr__k_hypot_##sfx((T)0.5 * x, (T)0.5 * y);                                  \
                re = x / h / h * (T)0.25;                                                          \
            }                                                                                      \
            return Z##_make(re, tsr__k_cps_##zs(TSR__K_##C##_PIO2_HI, y));                         \
        }                                                                                          \
        if (ax == 1 && ay < eps * eps) {                                                           \
            re = tsr__k_cps_##zs((T)0.5, x) * (TSR__K_##C##_LN2W_HI - tsr__k_log_##sfx(ay));       \
        } else {                                                                                   \
            T i2 = ay >= eps * eps ? y * y : (T)0;                                                 \
            T n = (1 + x) * (1 + x) + i2, d = (1 - x) * (1 - x) + i2, f = n / d;                   \
            re = f < (T)0.5 ? (T)0.25 * tsr__k_log_##sfx(f)                                        \
                            : (T)0.25 * tsr__k_log1p_##sfx((T)4 * x / d);                          \
        }                                                                                          \
        T p = ax < ay ? ay : ax, q = ax < ay ? ax : ay;                                            \
        if (q < (T)0.5 * eps) {                                                                    \
            den = (1 - p) * (1 + p);                                                               \
            den = den == 0 ? (T)0 : den;                                                           \
        } else if (p >= 1 || (p < (T)0.75 && q < (T)0.5)) {                                        \
            den = (1 - p) * (1 + p) - q * q;                                                       \
        } else {                                                                                   \
            den = -tsr__k_x2y2m1_##zs(p, q, &lo);                                                  \
            den -= lo;                                                                             \
        }                                                                                          \
        return Z##_make(re, (T)0.5 * tsr__k_atan2_##sfx((T)2 * y, den));                           \
    }                                                                                              \
    static inline Z tsr__k_atan_##zs(Z z)                                                          \
    {                                                                                              \
        Z w = tsr__k_atanh_##zs(Z##_make(-z.im, z.re));                                            \
        return Z##_make(w.im, -w.re);                                                              \
    }                                                                                              \
    static inline int tsr__k_isinfp_##zs(T v)                                                      \
    {                                                                                              \
        return v == v && v - v != 0;                                                               \
    }                                                                                              \
    static inline T tsr__k_box_##zs(T v, int inf_to_one)                                           \
    {                                                                                              \
        if (v != v)                                                                                \
            return tsr__k_cps_##zs((T)0, v);                                                       \
        return inf_to_one ? tsr__k_cps_##zs(tsr__k_isinfp_##zs(v) ? (T)1 : (T)0, v) : v;           \
    }                                                                                              \
    static inline T tsr__k_dnan_##zs(T v)                                                          \
    {                                                                                              \
        return v == v ? v : TSR__K_##C##_DNAN;                                                     \
    }                                                                                              \
    static inline Z tsr__k_gmul_##zs(Z p, Z q)                                                     \
    {                                                                                              \
        T a = p.re, b = p.im, c = q.re, d = q.im;                                                  \
        T ac = a * c, bd = b * d, ad = a * d, bc = b * c, x = ac - bd, y = ad + bc;                \
        if (x == x || y == y) {                                                                    \
            if (a == a && b == b && c == c && d == d)                                              \
                return Z##_make(tsr__k_dnan_##zs(x), tsr__k_dnan_##zs(y));                         \
            return Z##_make(x, y);                                                                 \
        }                                                                                          \
        int pinf = tsr__k_isinfp_##zs(a) || tsr__k_isinfp_##zs(b);                                 \
        int qinf = tsr__k_isinfp_##zs(c) || tsr__k_isinfp_##zs(d);                                 \
        int over = tsr__k_isinfp_##zs(ac) || tsr__k_isinfp_##zs(bd) || tsr__k_isinfp_##zs(ad) ||   \
                   tsr__k_isinfp_##zs(bc);                                                         \
        if (!pinf && !qinf && !over)                                                               \
            return Z##_make(x, y);                                                                 \
        if (pinf || over) {                                                                        \
            a = tsr__k_box_##zs(a, pinf);                                                          \
            b = tsr__k_box_##zs(b, pinf);                                                          \
        }                                                                                          \
        if (qinf || over) {                                                                        \
            c = tsr__k_box_##zs(c, qinf);                                                          \
            d = tsr__k_box_##zs(d, qinf);                                                          \
        }                                                                                          \
        if (pinf && !qinf) {                                                                       \
            c = c != c ? tsr__k_cps_##zs((T)0, c) : c;                                             \
            d = d != d ? tsr__k_cps_##zs((T)0, d) : d;                                             \
        }                                                                                          \
        if (qinf && !pinf) {                                                                       \
            a = a != a ? tsr__k_cps_##zs((T)0, a) : a;                                             \
            b = b != b ? tsr__k_cps_##zs((T)0, b) : b;                                             \
        }                                                                                          \
        return Z##_make(tsr__k_dnan_##zs((T)INFINITY * (a * c - b * d)),                           \
                        tsr__k_dnan_##zs((T)INFINITY * (a * d + b * c)));                          \
    }                                                                                              \
    static inline int tsr__k_cpow_fine_##zs(Z x, Z y, Z *res)                                      \
    {                                                                                              \
        T a = x.re < 0 ? -x.re : x.re, b = x.im < 0 ? -x.im : x.im, u = y.re, v = y.im;            \
        if (a < b) {                                                                               \
            T t = a;                                                                               \
            a = b;                                                                                 \
            b = t;                                                                                 \
        }                                                                                          \
        if (a - a != 0 || b - b != 0 || u - u != 0 || v - v != 0 || a == 0 || (u == 0 && v == 0))  \
            return 0;                                                                              \
        T gh, gl, e1, e2, e3, e4, ll, tl, s0 = a * a + b * b;                                      \
        if (s0 >= (T)0.5 && s0 <= (T)2) { /* log|x| near 0: log1p(|x|^2 - 1) / 2 */                \
            T ul, uh = tsr__k_x2y2m1_##zs(a, b, &ul);                                              \
            T ph = (T)1 + uh;                                                                      \
            T pl = (((T)1 - ph) + uh) + ul;                                                        \
            T lh = tsr__k_powlog_##sfx(ph, &ll);                                                   \
            gh = (T)0.5 * lh;                                                                      \
            gl = (T)0.5 * (ll + pl / ph);                                                          \
        } else {                                                                                   \
            int e = 0;                                                                             \
            if (a < TSR__K_##C##_MIN_NORMAL) {                                                     \
                a *= TSR__K_##C##_SUB_SCALE;                                                       \
                b *= TSR__K_##C##_SUB_SCALE;                                                       \
                e = -TSR__K_##C##_SUB_BITS;                                                        \
            }                                                                                      \
            int k = (int)(BITS(a) >> TSR__K_##C##_MANT) - TSR__K_##C##_BIAS;                       \
            T m = tsr__k_pow2_##sfx(-k);                                                           \
            a *= m;                                                                                \
            b *= m;                                                                                \
            T p = a * a, q = b * b, et = (T)(e + k);                                               \
            T sh = tsr__k_two_sum_##sfx(p, q, &e1);                                                \
            T sl = e1 + (FMA(a, a, -p) + FMA(b, b, -q));                                           \
            T lh = tsr__k_powlog_##sfx(sh, &ll);                                                   \
            gh = tsr__k_two_sum_##sfx(et * TSR__K_##C##_LN2_HI, (T)0.5 * lh, &e2);                 \
            gl = e2 + FMA(et, TSR__K_##C##_LN2_LO, (T)0.5 * (ll + sl / sh));                       \
        }                                                                                          \
        T th = tsr__k_atan2w_##sfx(x.im < 0 ? -x.im : x.im, x.re, &tl);                            \
        if (NEG(x.im)) {                                                                           \
            th = -th;                                                                              \
            tl = -tl;                                                                              \
        }                                                                                          \
        T p1 = u * gh, p2 = -v * th, q1 = u * th, q2 = v * gh;                                     \
        T wr = tsr__k_two_sum_##sfx(p1, p2, &e3), wi = tsr__k_two_sum_##sfx(q1, q2, &e4);          \
        T wrl = e3 + ((FMA(u, gh, -p1) + FMA(-v, th, -p2)) + (u * gl - v * tl));                   \
        T wil = e4 + ((FMA(u, th, -q1) + FMA(v, gh, -q2)) + (u * tl + v * gl));                    \
        T h = wr + wrl;                                                                            \
        wrl -= h - wr;                                                                             \
        wr = h;                                                                                    \
        h = wi + wil;                                                                              \
        wil -= h - wi;                                                                             \
        wi = h;                                                                                    \
        if (wi == 0 && wil == 0)                                                                   \
            wi = q1 + q2;                                                                          \
        if (!(wr < TSR__K_##C##_EXP_HUGE - (T)1 && wr > TSR__K_##C##_EXP_TINY + (T)1 &&            \
              wi < TSR__K_##C##_ROOT_BIG && wi > -TSR__K_##C##_ROOT_BIG))                          \
            return 0;                                                                              \
        T r, rh, rl, gl2, s, c;                                                                    \
        int kk = (int)tsr__k_expr_##sfx(wr, wrl, &r, &rh, &rl);                                    \
        T g = tsr__k_exp1p_##sfx(r, rh, rl, &gl2);                                                 \
        tsr__k_sc_##sfx(wi, &s, &c);                                                               \
        T hq = (T)0.5 * wil * wil;                                                                 \
        T cs = FMA(-wil, s, FMA(-hq, c, c)), sn = wil == 0 ? s : FMA(wil, c, FMA(-hq, s, s));      \
        *res = Z##_make(tsr__k_scale_##sfx(FMA(g, cs, gl2 * cs), kk),                              \
                        sn == 0 ? sn : tsr__k_scale_##sfx(FMA(g, sn, gl2 * sn), kk));              \
        return 1;                                                                                  \
    }                                                                                              \
    static inline Z tsr__k_pow_##zs(Z x, Z y)                                                      \
    {                                                                                              \
        Z w;                                                                                       \
        if (tsr__k_cpow_fine_##zs(x, y, &w))                                                       \
            return w;                                                                              \
        w = tsr__k_gmul_##zs(y, tsr__k_log_##zs(x));                                               \
        return tsr__k_expg_##zs(w.re, w.im);                                                       \
    }                                                                                              \
    static inline Z tsr__k_pows_##zs(Z x, Z y)                                                     \
    {                                                                                              \
        T e = y.re;                                                                                \
        Z one = Z##_make((T)1, (T)0);                                                              \
        if (y.im != 0 || !(e == 0 || e == 1 || e == (T)0.5 || e == (T)-0.5 || e == -1 || e == 2 || \
                           e == 3 || e == -2))                                                     \
            return tsr__k_pow_##zs(x, y);                                                          \
        if (e == 0 || e == 1)                                                                      \
            return e == 0 ? one : x;                                                               \
        if (e == (T)0.5 || e == (T)-0.5)                                                           \
            return e > 0 ? tsr__k_csqrt_##zs(x.re, x.im) : tsr__k_rsqrt_##zs(x);                   \
        if (e == -1 || e == -2)                                                                    \
            return Z##_div(one, e == -1 ? x : Z##_mul(x, x));                                      \
        return e == 2 ? Z##_mul(x, x) : Z##_mul(Z##_mul(x, x), x);                                 \
    }

#define TSR__K_NEG_F(v) ((tsr__float_bits(v) >> 31) != 0)
#define TSR__K_NEG_D(v) ((tsr__double_bits(v) >> 63) != 0)
TSR__K_CPLX_MATH(tsr__kc64, float, f32, c64, F, tsr__k_fmaf, tsr__k_sqrtf, TSR__K_NEG_F,
                 tsr__float_bits)

#ifdef TSR_CONV_HAVE_DOUBLE

static inline double tsr__k_sinp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_SIND_S6, TSR__K_SIND_S5);
    p = tsr__k_fmad(z, p, TSR__K_SIND_S4);
    p = tsr__k_fmad(z, p, TSR__K_SIND_S3);
    p = tsr__k_fmad(z, p, TSR__K_SIND_S2);
    p = tsr__k_fmad(z, p, TSR__K_SIND_S1);
    return tsr__k_fmad(z, p, TSR__K_SIND_S0);
}
static inline double tsr__k_cosp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_COSD_C5, TSR__K_COSD_C4);
    p = tsr__k_fmad(z, p, TSR__K_COSD_C3);
    p = tsr__k_fmad(z, p, TSR__K_COSD_C2);
    p = tsr__k_fmad(z, p, TSR__K_COSD_C1);
    return tsr__k_fmad(z, p, TSR__K_COSD_C0);
}
static inline double tsr__k_atanp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_ATAND_A12, TSR__K_ATAND_A11);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A10);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A9);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A8);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A7);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A6);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A5);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A4);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A3);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A2);
    p = tsr__k_fmad(z, p, TSR__K_ATAND_A1);
    return tsr__k_fmad(z, p, TSR__K_ATAND_A0);
}
static inline double tsr__k_asinp_f64(double z)
{
    double p = tsr__k_fmad(z, TSR__K_ASIND_P13, TSR__K_ASIND_P12);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P11);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P10);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P9);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P8);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P7);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P6);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P5);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P4);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P3);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P2);
    p = tsr__k_fmad(z, p, TSR__K_ASIND_P1);
    return tsr__k_fmad(z, p, TSR__K_ASIND_P0);
}
/* float64 takes all 128 bits: 43 + 43 + 42. */
static inline double tsr__k_fix_f64(tsr__u64 ghi, tsr__u64 glo, double *p2, double *p3)
{
    *p2 = (double)((ghi & 0x1FFFFFu) << 22 | glo >> 42) * 0x1p-86;
    *p3 = (double)(glo & TSR__U64(0x3FFFFFFFFFF)) * 0x1p-128;
    return (double)tsr__k_signed(ghi & ~TSR__U64(0x1FFFFF)) * 0x1p-64;
}
TSR__K_TRIG(double, f64, D, tsr__u64, tsr__k_fmad, tsr__k_rintd, tsr__double_bits)
TSR__K_ATRIG(double, f64, D, tsr__u64, tsr__k_fmad, tsr__k_sqrtd, tsr__double_bits)
TSR__K_CPLX_MATH(tsr__kc128, double, f64, c128, D, tsr__k_fmad, tsr__k_sqrtd, TSR__K_NEG_D,
                 tsr__double_bits)

#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_KERNELS_SCALAR_TRIG_H */
