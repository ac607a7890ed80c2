/* Unit tests of the conversions (tessera/convert.h, core/convert_scalar.h):
 * every worked example of the conversions spec, the float->integer tables,
 * exhaustive decodes and round trips, an independent RNE reference over a
 * sweep of float32 patterns, the options, and the error cases.
 *
 * Hex constants are bit patterns: float32 in 8 digits, float16/bfloat16
 * in 4, float8 in 2. */
#include <math.h>

#include "test.h"

#include "core/convert_scalar.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------ */

static tsr_cast_options options(tsr_nan_bits nan_bits, bool saturate, bool real_only)
{
    tsr_cast_options o = {
        .saturate_float8 = saturate, .nan_bits = nan_bits, .complex_to_bool_real_only = real_only};
    return o;
}

static const tsr_cast_options scalar_nans = {.nan_bits = TSR_NAN_BITS_SCALAR};
static const tsr_cast_options saturating = {.saturate_float8 = true};

/* One element (given as its bit pattern; complex types: the real part,
 * imaginary part zero) converted through tsr_cast_buffer_ex. Returns the
 * destination's bit pattern (complex: the real part). */
static uint64_t cast1(uint64_t in, tsr_dtype from, tsr_dtype to, const tsr_cast_options *o)
{
    unsigned char src[16] = {0}, dst[16] = {0};
    size_t in_size = tsr_dtype_itemsize(tsr_dtype_to_real(from));
    size_t out_size = tsr_dtype_itemsize(tsr_dtype_to_real(to));
    memcpy(src, &in, in_size);
    ASSERT_OK(tsr_cast_buffer_ex(src, from, dst, to, 1, o));
    uint64_t out = 0;
    memcpy(&out, dst, out_size);
    return out;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float f32_value(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Loops over many values count mismatches and report the first one, so a
 * broken rule prints one line rather than thousands. */
typedef struct sweep {
    const char *what;
    long mismatches;
} sweep;

static void sweep_check(sweep *s, uint64_t input, uint64_t got, uint64_t want)
{
    if (got != want && s->mismatches++ == 0)
        fprintf(stderr, "%s: input 0x%llx gave 0x%llx, expected 0x%llx\n", s->what,
                (unsigned long long)input, (unsigned long long)got, (unsigned long long)want);
}

#define SWEEP_DONE(s) ASSERT_EQ((s).mismatches, 0)

/* ---- tables transcribed from the conversions spec --------------------------
 * Sections 3.3, 4.3, 5.5, 6.5, 7.6, 7.7, 8.4 (input float32 bits, expected
 * codes) and 10 (float64 bits, the float32 it rounds to, then each format). */

/* 3.3 */
static const uint32_t f16_examples[][3] = {
    {0x00000000, 0x0000, 0x0000}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x8000, 0x8000}, /* #2 -0x0p+0: -0 */
    {0x33800000, 0x0001, 0x0001}, /* #3 0x1p-24: min subnormal */
    {0x33000000, 0x0000, 0x0000}, /* #4 0x1p-25: tie 0 / min subnormal -> 0 (even) */
    {0x33000001, 0x0001, 0x0001}, /* #5 0x1.000002p-25: just above -> 0001 */
    {0x33C00000, 0x0002, 0x0002}, /* #6 0x1.8p-24: tie 1/2 -> 0002 */
    {0x387FE000, 0x0400, 0x0400}, /* #7 0x1.ffcp-15: tie max subnormal / min normal -> 0400 */
    {0x38800000, 0x0400, 0x0400}, /* #8 0x1p-14: min normal */
    {0x3F800000, 0x3C00, 0x3C00}, /* #9 0x1p+0: 1.0 */
    {0x3F801000, 0x3C00, 0x3C00}, /* #10 0x1.002p+0: tie -> 3C00 */
    {0x3F801001, 0x3C01, 0x3C01}, /* #11 0x1.002002p+0: just above tie -> 3C01 */
    {0x3F803000, 0x3C02, 0x3C02}, /* #12 0x1.006p+0: tie -> 3C02 (even) */
    {0x3DCCCCCD, 0x2E66, 0x2E66}, /* #13 0x1.99999ap-4: 0.1f */
    {0x477FE000, 0x7BFF, 0x7BFF}, /* #14 0x1.ffcp+15: max finite */
    {0x477FEFFF, 0x7BFF, 0x7BFF}, /* #15 0x1.ffdffep+15: largest float32 below 65520 -> 7BFF */
    {0x477FF000, 0x7C00, 0x7C00}, /* #16 0x1.ffep+15: 65520 = max + half ulp: tie -> inf (max is */
    {0x47C35000, 0x7C00, 0x7C00}, /* #17 0x1.86ap+16: overflow -> inf */
    {0xFF800000, 0xFC00, 0xFC00}, /* #18 -inf: -inf */
    {0x7FC00000, 0x7E00, 0x7E00}, /* #19 NaN: qNaN */
    {0xFFC00000, 0xFE00, 0xFE00}, /* #20 NaN: -qNaN */
    {0x7FFFFFFF, 0x7E00, 0x7FFF}, /* #21 NaN: NaN, full payload */
    {0x7FA00000, 0x7E00, 0x7F00}, /* #22 NaN: sNaN with payload */
    {0xC77FF000, 0xFC00, 0xFC00}, /* #23 -0x1.ffep+15: -tie -> -inf */
    {0xB3000000, 0x8000, 0x8000}, /* #24 -0x1p-25: -tie -> -0 */
};

/* 4.3 */
static const uint32_t bf16_examples[][3] = {
    {0x00000000, 0x0000, 0x0000}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x8000, 0x8000}, /* #2 -0x0p+0: -0 */
    {0x3F800000, 0x3F80, 0x3F80}, /* #3 0x1p+0: 1.0 */
    {0x3F808000, 0x3F80, 0x3F80}, /* #4 0x1.01p+0: tie -> 3F80 (even) */
    {0x3F808001, 0x3F81, 0x3F81}, /* #5 0x1.010002p+0: just above -> 3F81 */
    {0x3F818000, 0x3F82, 0x3F82}, /* #6 0x1.03p+0: tie -> 3F82 (even) */
    {0xBF808000, 0xBF80, 0xBF80}, /* #7 -0x1.01p+0: negative tie -> BF80 */
    {0x3DCCCCCD, 0x3DCD, 0x3DCD}, /* #8 0x1.99999ap-4: 0.1f */
    {0x40490FDB, 0x4049, 0x4049}, /* #9 0x1.921fb6p+1: pi */
    {0x00000001, 0x0000, 0x0000}, /* #10 0x1p-149: float32 min subnormal -> 0 */
    {0x00008000, 0x0000, 0x0000}, /* #11 0x1p-134: tie 0 / bf16 min subnormal -> 0 */
    {0x00018000, 0x0002, 0x0002}, /* #12 0x1.8p-133: tie 1/2 -> 0002 */
    {0x007FFFFF, 0x0080, 0x0080}, /* #13 0x1.fffffcp-127: max float32 subnormal -> 0080 (bf16 min */
    {0x7F7F0000, 0x7F7F, 0x7F7F}, /* #14 0x1.fep+127: bf16 max finite */
    {0x7F7F7FFF, 0x7F7F, 0x7F7F}, /* #15 0x1.fefffep+127: below top tie -> 7F7F */
    {0x7F7F8000, 0x7F80, 0x7F80}, /* #16 0x1.ffp+127: top tie -> inf (7F7F odd) */
    {0x7F7FFFFF, 0x7F80, 0x7F80}, /* #17 0x1.fffffep+127: FLT_MAX -> inf */
    {0x7F800000, 0x7F80, 0x7F80}, /* #18 +inf: +inf */
    {0xFF800000, 0xFF80, 0xFF80}, /* #19 -inf: -inf */
    {0x7FC00000, 0x7FC0, 0xFFFF}, /* #20 NaN: qNaN */
    {0xFFC00000, 0x7FC0, 0xFFFF}, /* #21 NaN: -qNaN: scalar path drops sign */
    {0x7F800001, 0x7FC0, 0xFFFF}, /* #22 NaN: sNaN: bias trick alone would give 7F80, NaN check p */
};

/* 5.5 */
static const uint32_t e4m3fn_examples[][3] = {
    {0x00000000, 0x00, 0x00}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x80, 0x80}, /* #2 -0x0p+0: -0 */
    {0x00000001, 0x00, 0x00}, /* #3 0x1p-149: float32 min subnormal 2^-149 -> rounds to 0 */
    {0x3A000000, 0x00, 0x00}, /* #4 0x1p-11: s/4 (below half of min subnormal s) */
    {0xBA000000, 0x80, 0x80}, /* #5 -0x1p-11: negative tiny -> signed zero */
    {0x3A800000, 0x00, 0x00}, /* #6 0x1p-10: exactly s/2: tie between 0 and s -> 0 (even) */
    {0x3A800001, 0x01, 0x01}, /* #7 0x1.000002p-10: just above s/2 -> s */
    {0x3B000000, 0x01, 0x01}, /* #8 0x1p-9: min subnormal s */
    {0xBAC00000, 0x81, 0x81}, /* #9 -0x1.8p-10: -3s/4 -> -s */
    {0x3B400000, 0x02, 0x02}, /* #10 0x1.8p-9: 3s/2: tie between s (odd) and 2s -> 2s */
    {0x3BA00000, 0x02, 0x02}, /* #11 0x1.4p-8: 5s/2: tie between 2s and 3s -> 2s (even) */
    {0x3C600000, 0x07, 0x07}, /* #12 0x1.cp-7: max subnormal */
    {0x3C700000, 0x08, 0x08}, /* #13 0x1.ep-7: tie max subnormal / min normal -> min normal (even */
    {0x3C6FFFFF, 0x07, 0x07}, /* #14 0x1.dffffep-7: just below that tie -> max subnormal */
    {0x3C800000, 0x08, 0x08}, /* #15 0x1p-6: min normal */
    {0xBC800000, 0x88, 0x88}, /* #16 -0x1p-6: -min normal */
    {0x3F800000, 0x38, 0x38}, /* #17 0x1p+0: 1.0 */
    {0x3F7FFFFF, 0x38, 0x38}, /* #18 0x1.fffffep-1: largest float32 < 1 -> 1.0 */
    {0x3F880000, 0x38, 0x38}, /* #19 0x1.1p+0: 1+ulp/2: tie -> 1.0 (even) */
    {0x3F880001, 0x39, 0x39}, /* #20 0x1.100002p+0: just above tie -> 1+ulp */
    {0x3F980000, 0x3A, 0x3A}, /* #21 0x1.3p+0: 1+3ulp/2: tie -> 1+2ulp (even) */
    {0xBF880000, 0xB8, 0xB8}, /* #22 -0x1.1p+0: negative tie -> -1.0 */
    {0x3DCCCCCD, 0x1D, 0x1D}, /* #23 0x1.99999ap-4: 0.1f */
    {0x40490FDB, 0x45, 0x45}, /* #24 0x1.921fb6p+1: pi (float32) */
    {0x43E00000, 0x7E, 0x7E}, /* #25 0x1.cp+8: max finite */
    {0xC3E00000, 0xFE, 0xFE}, /* #26 -0x1.cp+8: -max finite */
    {0x43E40000, 0x7E, 0x7E}, /* #27 0x1.c8p+8: between max and the top tie -> max */
    {0x43E7FFFF, 0x7E, 0x7E}, /* #28 0x1.cffffep+8: largest float32 below the top tie */
    {0x43E80000, 0x7E, 0x7E}, /* #29 0x1.dp+8: top tie (max, would-be next)/2 */
    {0x43E80001, 0x7F, 0x7E}, /* #30 0x1.d00002p+8: just above the top tie */
    {0xC3E80000, 0xFE, 0xFE}, /* #31 -0x1.dp+8: negative top tie */
    {0x43EFFFFF, 0x7F, 0x7E}, /* #32 0x1.dffffep+8: largest float32 below the overflow threshold */
    {0x43F00000, 0x7F, 0x7E}, /* #33 0x1.ep+8: the code's overflow-threshold constant */
    {0x44700000, 0x7F, 0x7E}, /* #34 0x1.ep+9: 2x threshold */
    {0x49742400, 0x7F, 0x7E}, /* #35 0x1.e848p+19: 1e6 */
    {0x7F7FFFFF, 0x7F, 0x7E}, /* #36 0x1.fffffep+127: FLT_MAX */
    {0x7F800000, 0x7F, 0x7E}, /* #37 +inf: +inf */
    {0xFF800000, 0xFF, 0xFE}, /* #38 -inf: -inf */
    {0x7FC00000, 0x7F, 0x7F}, /* #39 NaN: qNaN */
    {0xFFC00000, 0xFF, 0xFF}, /* #40 NaN: negative qNaN */
    {0x7F800001, 0x7F, 0x7F}, /* #41 NaN: sNaN (payload 1) */
    {0xFFFFFFFF, 0xFF, 0xFF}, /* #42 NaN: negative NaN, all payload bits */
};

/* 6.5 */
static const uint32_t e5m2_examples[][2] = {
    {0x00000000, 0x00}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x80}, /* #2 -0x0p+0: -0 */
    {0x00000001, 0x00}, /* #3 0x1p-149: float32 min subnormal 2^-149 -> rounds to 0 */
    {0x36800000, 0x00}, /* #4 0x1p-18: s/4 (below half of min subnormal s) */
    {0xB6800000, 0x80}, /* #5 -0x1p-18: negative tiny -> signed zero */
    {0x37000000, 0x00}, /* #6 0x1p-17: exactly s/2: tie between 0 and s -> 0 (even) */
    {0x37000001, 0x01}, /* #7 0x1.000002p-17: just above s/2 -> s */
    {0x37800000, 0x01}, /* #8 0x1p-16: min subnormal s */
    {0xB7400000, 0x81}, /* #9 -0x1.8p-17: -3s/4 -> -s */
    {0x37C00000, 0x02}, /* #10 0x1.8p-16: 3s/2: tie between s (odd) and 2s -> 2s */
    {0x38200000, 0x02}, /* #11 0x1.4p-15: 5s/2: tie between 2s and 3s -> 2s (even) */
    {0x38400000, 0x03}, /* #12 0x1.8p-15: max subnormal */
    {0x38600000, 0x04}, /* #13 0x1.cp-15: tie max subnormal / min normal -> min normal (even) */
    {0x385FFFFF, 0x03}, /* #14 0x1.bffffep-15: just below that tie -> max subnormal */
    {0x38800000, 0x04}, /* #15 0x1p-14: min normal */
    {0xB8800000, 0x84}, /* #16 -0x1p-14: -min normal */
    {0x3F800000, 0x3C}, /* #17 0x1p+0: 1.0 */
    {0x3F7FFFFF, 0x3C}, /* #18 0x1.fffffep-1: largest float32 < 1 -> 1.0 */
    {0x3F900000, 0x3C}, /* #19 0x1.2p+0: 1+ulp/2: tie -> 1.0 (even) */
    {0x3F900001, 0x3D}, /* #20 0x1.200002p+0: just above tie -> 1+ulp */
    {0x3FB00000, 0x3E}, /* #21 0x1.6p+0: 1+3ulp/2: tie -> 1+2ulp (even) */
    {0xBF900000, 0xBC}, /* #22 -0x1.2p+0: negative tie -> -1.0 */
    {0x3DCCCCCD, 0x2E}, /* #23 0x1.99999ap-4: 0.1f */
    {0x40490FDB, 0x42}, /* #24 0x1.921fb6p+1: pi (float32) */
    {0x47600000, 0x7B}, /* #25 0x1.cp+15: max finite */
    {0xC7600000, 0xFB}, /* #26 -0x1.cp+15: -max finite */
    {0x47680000, 0x7B}, /* #27 0x1.dp+15: between max and the top tie -> max */
    {0x476FFFFF, 0x7B}, /* #28 0x1.dffffep+15: largest float32 below the top tie */
    {0x47700000, 0x7C}, /* #29 0x1.ep+15: top tie (max, would-be next)/2 */
    {0x47700001, 0x7C}, /* #30 0x1.e00002p+15: just above the top tie */
    {0xC7700000, 0xFC}, /* #31 -0x1.ep+15: negative top tie */
    {0x477FFFFF, 0x7C}, /* #32 0x1.fffffep+15: largest float32 below the overflow threshold const */
    {0x47800000, 0x7C}, /* #33 0x1p+16: the code's overflow-threshold constant */
    {0x48000000, 0x7C}, /* #34 0x1p+17: 2x threshold */
    {0x49742400, 0x7C}, /* #35 0x1.e848p+19: 1e6 */
    {0x7F7FFFFF, 0x7C}, /* #36 0x1.fffffep+127: FLT_MAX */
    {0x7F800000, 0x7C}, /* #37 +inf: +inf */
    {0xFF800000, 0xFC}, /* #38 -inf: -inf */
    {0x7FC00000, 0x7F}, /* #39 NaN: qNaN */
    {0xFFC00000, 0xFF}, /* #40 NaN: negative qNaN */
    {0x7F800001, 0x7F}, /* #41 NaN: sNaN (payload 1) */
    {0xFFFFFFFF, 0xFF}, /* #42 NaN: negative NaN, all payload bits */
};

/* 7.6 */
static const uint32_t e4m3fnuz_examples[][2] = {
    {0x00000000, 0x00}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x00}, /* #2 -0x0p+0: -0.0 -> 00 (fnuz has no -0) */
    {0x00000001, 0x00}, /* #3 0x1p-149: float32 min subnormal 2^-149 -> rounds to 0 */
    {0x39800000, 0x00}, /* #4 0x1p-12: s/4 (below half of min subnormal s) */
    {0xB9800000, 0x00}, /* #5 -0x1p-12: negative tiny -> 00 (no -0 in fnuz) */
    {0x3A000000, 0x00}, /* #6 0x1p-11: exactly s/2: tie between 0 and s -> 0 (even) */
    {0x3A000001, 0x01}, /* #7 0x1.000002p-11: just above s/2 -> s */
    {0x3A800000, 0x01}, /* #8 0x1p-10: min subnormal s */
    {0xBA400000, 0x81}, /* #9 -0x1.8p-11: -3s/4 -> -s */
    {0x3AC00000, 0x02}, /* #10 0x1.8p-10: 3s/2: tie between s (odd) and 2s -> 2s */
    {0x3B200000, 0x02}, /* #11 0x1.4p-9: 5s/2: tie between 2s and 3s -> 2s (even) */
    {0x3BE00000, 0x07}, /* #12 0x1.cp-8: max subnormal */
    {0x3BF00000, 0x08}, /* #13 0x1.ep-8: tie max subnormal / min normal -> min normal (even) */
    {0x3BEFFFFF, 0x07}, /* #14 0x1.dffffep-8: just below that tie -> max subnormal */
    {0x3C000000, 0x08}, /* #15 0x1p-7: min normal */
    {0xBC000000, 0x88}, /* #16 -0x1p-7: -min normal */
    {0x3F800000, 0x40}, /* #17 0x1p+0: 1.0 */
    {0x3F7FFFFF, 0x40}, /* #18 0x1.fffffep-1: largest float32 < 1 -> 1.0 */
    {0x3F880000, 0x40}, /* #19 0x1.1p+0: 1+ulp/2: tie -> 1.0 (even) */
    {0x3F880001, 0x41}, /* #20 0x1.100002p+0: just above tie -> 1+ulp */
    {0x3F980000, 0x42}, /* #21 0x1.3p+0: 1+3ulp/2: tie -> 1+2ulp (even) */
    {0xBF880000, 0xC0}, /* #22 -0x1.1p+0: negative tie -> -1.0 */
    {0x3DCCCCCD, 0x25}, /* #23 0x1.99999ap-4: 0.1f */
    {0x40490FDB, 0x4D}, /* #24 0x1.921fb6p+1: pi (float32) */
    {0x43700000, 0x7F}, /* #25 0x1.ep+7: max finite */
    {0xC3700000, 0xFF}, /* #26 -0x1.ep+7: -max finite */
    {0x43740000, 0x7F}, /* #27 0x1.e8p+7: between max and the top tie -> max */
    {0x4377FFFF, 0x7F}, /* #28 0x1.effffep+7: largest float32 below the top tie */
    {0x43780000, 0x80}, /* #29 0x1.fp+7: top tie (max, would-be next)/2 */
    {0x43780001, 0x80}, /* #30 0x1.f00002p+7: just above the top tie */
    {0xC3780000, 0x80}, /* #31 -0x1.fp+7: negative top tie (sign dropped: always 80) */
    {0x437FFFFF, 0x80}, /* #32 0x1.fffffep+7: largest float32 below the overflow threshold consta */
    {0x43800000, 0x80}, /* #33 0x1p+8: the code's overflow-threshold constant */
    {0x44000000, 0x80}, /* #34 0x1p+9: 2x threshold */
    {0x49742400, 0x80}, /* #35 0x1.e848p+19: 1e6 */
    {0x7F7FFFFF, 0x80}, /* #36 0x1.fffffep+127: FLT_MAX */
    {0x7F800000, 0x80}, /* #37 +inf: +inf */
    {0xFF800000, 0x80}, /* #38 -inf: -inf (sign dropped: always 80) */
    {0x7FC00000, 0x80}, /* #39 NaN: qNaN */
    {0xFFC00000, 0x80}, /* #40 NaN: negative qNaN (sign dropped: always 80) */
    {0x7F800001, 0x80}, /* #41 NaN: sNaN (payload 1) */
    {0xFFFFFFFF, 0x80}, /* #42 NaN: negative NaN, all payload bits (sign dropped: always 80) */
};

/* 7.7 */
static const uint32_t e5m2fnuz_examples[][2] = {
    {0x00000000, 0x00}, /* #1 0x0p+0: +0 */
    {0x80000000, 0x00}, /* #2 -0x0p+0: -0.0 -> 00 (fnuz has no -0) */
    {0x00000001, 0x00}, /* #3 0x1p-149: float32 min subnormal 2^-149 -> rounds to 0 */
    {0x36000000, 0x00}, /* #4 0x1p-19: s/4 (below half of min subnormal s) */
    {0xB6000000, 0x00}, /* #5 -0x1p-19: negative tiny -> 00 (no -0 in fnuz) */
    {0x36800000, 0x00}, /* #6 0x1p-18: exactly s/2: tie between 0 and s -> 0 (even) */
    {0x36800001, 0x01}, /* #7 0x1.000002p-18: just above s/2 -> s */
    {0x37000000, 0x01}, /* #8 0x1p-17: min subnormal s */
    {0xB6C00000, 0x81}, /* #9 -0x1.8p-18: -3s/4 -> -s */
    {0x37400000, 0x02}, /* #10 0x1.8p-17: 3s/2: tie between s (odd) and 2s -> 2s */
    {0x37A00000, 0x02}, /* #11 0x1.4p-16: 5s/2: tie between 2s and 3s -> 2s (even) */
    {0x37C00000, 0x03}, /* #12 0x1.8p-16: max subnormal */
    {0x37E00000, 0x04}, /* #13 0x1.cp-16: tie max subnormal / min normal -> min normal (even) */
    {0x37DFFFFF, 0x03}, /* #14 0x1.bffffep-16: just below that tie -> max subnormal */
    {0x38000000, 0x04}, /* #15 0x1p-15: min normal */
    {0xB8000000, 0x84}, /* #16 -0x1p-15: -min normal */
    {0x3F800000, 0x40}, /* #17 0x1p+0: 1.0 */
    {0x3F7FFFFF, 0x40}, /* #18 0x1.fffffep-1: largest float32 < 1 -> 1.0 */
    {0x3F900000, 0x40}, /* #19 0x1.2p+0: 1+ulp/2: tie -> 1.0 (even) */
    {0x3F900001, 0x41}, /* #20 0x1.200002p+0: just above tie -> 1+ulp */
    {0x3FB00000, 0x42}, /* #21 0x1.6p+0: 1+3ulp/2: tie -> 1+2ulp (even) */
    {0xBF900000, 0xC0}, /* #22 -0x1.2p+0: negative tie -> -1.0 */
    {0x3DCCCCCD, 0x32}, /* #23 0x1.99999ap-4: 0.1f */
    {0x40490FDB, 0x46}, /* #24 0x1.921fb6p+1: pi (float32) */
    {0x47600000, 0x7F}, /* #25 0x1.cp+15: max finite */
    {0xC7600000, 0xFF}, /* #26 -0x1.cp+15: -max finite */
    {0x47680000, 0x7F}, /* #27 0x1.dp+15: between max and the top tie -> max */
    {0x476FFFFF, 0x7F}, /* #28 0x1.dffffep+15: largest float32 below the top tie */
    {0x47700000, 0x80}, /* #29 0x1.ep+15: top tie (max, would-be next)/2 */
    {0x47700001, 0x80}, /* #30 0x1.e00002p+15: just above the top tie */
    {0xC7700000, 0x80}, /* #31 -0x1.ep+15: negative top tie (sign dropped: always 80) */
    {0x477FFFFF, 0x80}, /* #32 0x1.fffffep+15: largest float32 below the overflow threshold const */
    {0x47800000, 0x80}, /* #33 0x1p+16: the code's overflow-threshold constant */
    {0x48000000, 0x80}, /* #34 0x1p+17: 2x threshold */
    {0x49742400, 0x80}, /* #35 0x1.e848p+19: 1e6 */
    {0x7F7FFFFF, 0x80}, /* #36 0x1.fffffep+127: FLT_MAX */
    {0x7F800000, 0x80}, /* #37 +inf: +inf */
    {0xFF800000, 0x80}, /* #38 -inf: -inf (sign dropped: always 80) */
    {0x7FC00000, 0x80}, /* #39 NaN: qNaN */
    {0xFFC00000, 0x80}, /* #40 NaN: negative qNaN (sign dropped: always 80) */
    {0x7F800001, 0x80}, /* #41 NaN: sNaN (payload 1) */
    {0xFFFFFFFF, 0x80}, /* #42 NaN: negative NaN, all payload bits (sign dropped: always 80) */
};

/* 8.4 */
static const uint32_t e8m0fnu_examples[][2] = {
    {0x00000000, 0x00}, /* #1 0x0p+0: +0 -> code 00 (decodes to 2^-127, not 0) */
    {0x80000000, 0x00}, /* #2 -0x0p+0: -0: sign ignored */
    {0x00000001, 0x00}, /* #3 0x1p-149: float32 min subnormal -> 00 */
    {0x00400000, 0x00}, /* #4 0x1p-127: 2^-127 exactly (subnormal, mantissa 0x400000) -> 00 */
    {0x00400001, 0x01}, /* #5 0x1.000004p-127: just above 2^-127 (subnormal) -> 01 (2^-126)  [sub */
    {0x005FFFFF, 0x01}, /* #6 0x1.7ffffcp-127: 1.5*2^-127 - tiny (subnormal) -> 01 */
    {0x00600000, 0x01}, /* #7 0x1.8p-127: 1.5*2^-127 (subnormal) -> 01 */
    {0x00800000, 0x01}, /* #8 0x1p-126: 2^-126 -> 01 */
    {0x00BFFFFF, 0x01}, /* #9 0x1.7ffffep-126: just below 1.5*2^-126 -> 01 */
    {0x00C00000, 0x02}, /* #10 0x1.8p-126: 1.5*2^-126 tie -> 02 (ties go up) */
    {0x3F800000, 0x7F}, /* #11 0x1p+0: 1.0 -> 7F */
    {0x3FBFFFFF, 0x7F}, /* #12 0x1.7ffffep+0: largest float32 < 1.5 -> 7F (1.0) */
    {0x3FC00000, 0x80}, /* #13 0x1.8p+0: 1.5: tie -> 80 (2.0) */
    {0x3FC00001, 0x80}, /* #14 0x1.800002p+0: just above 1.5 -> 80 */
    {0x3F7FFFFF, 0x7F}, /* #15 0x1.fffffep-1: largest float32 < 1 (0.99999994) -> 7F (1.0) */
    {0x3F400000, 0x7F}, /* #16 0x1.8p-1: 0.75 = 1.5*2^-1: tie -> 7F (1.0), NOT 0.5 */
    {0x3F333333, 0x7E}, /* #17 0x1.666666p-1: 0.7 -> 7E (0.5) */
    {0x40400000, 0x81}, /* #18 0x1.8p+1: 3.0 = 1.5*2: tie -> 81 (4.0) */
    {0x40A00000, 0x81}, /* #19 0x1.4p+2: 5.0 -> 81 (4.0) */
    {0x40C00000, 0x82}, /* #20 0x1.8p+2: 6.0 = 1.5*4 -> 82 (8.0) */
    {0x3E99999A, 0x7D}, /* #21 0x1.333334p-2: 0.3 -> 7D (0.25) */
    {0x40490FDB, 0x81}, /* #22 0x1.921fb6p+1: pi = 1.57*2^1 -> 81 (4.0) */
    {0xC0800000, 0x81}, /* #23 -0x1p+2: -4.0: sign ignored -> 81 (+4.0) */
    {0xBFC00000, 0x80}, /* #24 -0x1.8p+0: -1.5 -> 80 (+2.0) */
    {0x7F000000, 0xFE}, /* #25 0x1p+127: 2^127 -> FE (max) */
    {0x7F3FFFFF, 0xFE}, /* #26 0x1.7ffffep+127: just below 1.5*2^127 -> FE */
    {0x7F400000, 0xFF}, /* #27 0x1.8p+127: 1.5*2^127 -> FF (NaN, overflow) */
    {0x7F7FFFFF, 0xFF}, /* #28 0x1.fffffep+127: FLT_MAX -> FF (NaN) */
    {0x7F800000, 0xFF}, /* #29 +inf: +inf -> FF */
    {0xFF800000, 0xFF}, /* #30 -inf: -inf -> FF */
    {0x7FC00000, 0xFF}, /* #31 NaN: NaN -> FF */
    {0xFFC00000, 0xFF}, /* #32 NaN: -NaN -> FF */
    {0x000116C2, 0x00}, /* #33 0x1.16c2p-133: 1e-40 (float32 subnormal ~ 2^-132.9) -> 00 */
};

/* section 10: double bits, float32 bits, e4m3fn, e4m3fn saturating, e5m2, e4m3fnuz, e5m2fnuz, e8 */
static const uint64_t double_rounding[][10] = {
    {0x3FF1000000001000, 0x3F880000, 0x38, 0x38, 0x3C, 0x40, 0x40, 0x7F, 0x3C40, 0x3F88}, /* 1.06 */
    {0x3FF0020000001000, 0x3F801000, 0x38, 0x38, 0x3C, 0x40, 0x40, 0x7F, 0x3C00, 0x3F80}, /* 1.00 */
    {0x3FF0100000001000, 0x3F808000, 0x38, 0x38, 0x3C, 0x40, 0x40, 0x7F, 0x3C04, 0x3F80}, /* 1.00 */
    {0x3FF2000000001000, 0x3F900000, 0x39, 0x39, 0x3C, 0x41, 0x40, 0x7F, 0x3C80, 0x3F90}, /* 1.12 */
    {0x407D000001000000, 0x43E80000, 0x7E, 0x7E, 0x5F, 0x80, 0x63, 0x88, 0x5F40, 0x43E8}, /* 464. */
    {0x40EDFFFFF8000000, 0x47700000, 0x7F, 0x7E, 0x7C, 0x80, 0x80, 0x8F, 0x7B80, 0x4770}, /* 6143 */
    {0x406EFFFFFE000000, 0x43780000, 0x78, 0x78, 0x5C, 0x80, 0x60, 0x87, 0x5BC0, 0x4378}, /* 247. */
    {0x40EFFDFFFFFDE721, 0x477FF000, 0x7F, 0x7E, 0x7C, 0x80, 0x80, 0x8F, 0x7C00, 0x4780}, /* 6551 */
    {0x3E60000000020000, 0x33000000, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66, 0x0000, 0x3300}, /* 2.98 */
    {0x3FF7FFFFFFC00000, 0x3FC00000, 0x3C, 0x3C, 0x3E, 0x44, 0x42, 0x80, 0x3E00, 0x3FC0}, /* 1.49 */
    {0x7E37E43C8800759C, 0x7F800000, 0x7F, 0x7E, 0x7C, 0x80, 0x80, 0xFF, 0x7C00, 0x7F80}, /* 1e+3 */
    {0x81A56E1FC2F8F359, 0x80000000, 0x80, 0x80, 0x80, 0x00, 0x00, 0x00, 0x8000, 0x8000}, /* -1e- */
};

/* ---- the spec's worked examples ----------------------------------------- */

static void test_f16_examples(void)
{
    /* {input, c10 software routine (NaN s|7E00), F16C (NaN keeps payload)} */
    for (size_t i = 0; i < COUNT(f16_examples); i++) {
        const uint32_t *r = f16_examples[i];
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_FLOAT16, &scalar_nans), r[1]);
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_FLOAT16, NULL), r[2]);
        ASSERT_UEQ(tsr_float_to_half(f32_value(r[0])), r[1]);
        ASSERT_UEQ(tsr__f32_to_f16(r[0], true), r[2]);
    }
}

static void test_bf16_examples(void)
{
    /* {input, scalar constructor (NaN 7FC0), vectorised copy (NaN FFFF)} */
    for (size_t i = 0; i < COUNT(bf16_examples); i++) {
        const uint32_t *r = bf16_examples[i];
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_BFLOAT16, &scalar_nans), r[1]);
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_BFLOAT16, NULL), r[2]);
        ASSERT_UEQ(tsr_float_to_bfloat16(f32_value(r[0])), r[1]);
    }
}

static void check_float8_examples(tsr_dtype fmt, const uint32_t (*rows)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ASSERT_UEQ(cast1(rows[i][0], TSR_FLOAT32, fmt, NULL), rows[i][1]);
        /* saturation is an e4m3fn-only option: the others ignore it */
        ASSERT_UEQ(cast1(rows[i][0], TSR_FLOAT32, fmt, &saturating), rows[i][1]);
        ASSERT_UEQ(tsr_float_to_float8(f32_value(rows[i][0]), fmt, false), rows[i][1]);
    }
}

static void test_float8_examples(void)
{
    /* {input, PyTorch <= 2.11 (NaN on overflow), >= 2.12 (saturating)} */
    for (size_t i = 0; i < COUNT(e4m3fn_examples); i++) {
        const uint32_t *r = e4m3fn_examples[i];
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_FLOAT8_E4M3FN, NULL), r[1]);
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT32, TSR_FLOAT8_E4M3FN, &saturating), r[2]);
        ASSERT_UEQ(tsr_float_to_float8(f32_value(r[0]), TSR_FLOAT8_E4M3FN, false), r[1]);
        ASSERT_UEQ(tsr_float_to_float8(f32_value(r[0]), TSR_FLOAT8_E4M3FN, true), r[2]);
    }
    check_float8_examples(TSR_FLOAT8_E5M2, e5m2_examples, COUNT(e5m2_examples));
    check_float8_examples(TSR_FLOAT8_E4M3FNUZ, e4m3fnuz_examples, COUNT(e4m3fnuz_examples));
    check_float8_examples(TSR_FLOAT8_E5M2FNUZ, e5m2fnuz_examples, COUNT(e5m2fnuz_examples));
    check_float8_examples(TSR_FLOAT8_E8M0FNU, e8m0fnu_examples, COUNT(e8m0fnu_examples));
    ASSERT_UEQ(tsr_float_to_float8(1.0f, TSR_FLOAT16, false), 0);
}

/* float64 goes to float32 first, then to the reduced type: a double just
 * off a tie lands on it and is rounded to even (section 10). */
static void test_double_rounding(void)
{
    static const tsr_dtype targets[] = {
        TSR_FLOAT8_E4M3FN,   TSR_FLOAT8_E4M3FN,  TSR_FLOAT8_E5M2, TSR_FLOAT8_E4M3FNUZ,
        TSR_FLOAT8_E5M2FNUZ, TSR_FLOAT8_E8M0FNU, TSR_FLOAT16,     TSR_BFLOAT16};
    for (size_t i = 0; i < COUNT(double_rounding); i++) {
        const uint64_t *r = double_rounding[i];
        ASSERT_UEQ(cast1(r[0], TSR_FLOAT64, TSR_FLOAT32, NULL), r[1]);
        for (size_t t = 0; t < COUNT(targets); t++) {
            const tsr_cast_options *o = t == 1 ? &saturating : NULL;
            ASSERT_UEQ(cast1(r[0], TSR_FLOAT64, targets[t], o), r[2 + t]);
        }
    }

    /* sections 3.4 and 4.4, observed with torch 1.13 */
    static const struct {
        double x;
        uint16_t f16, bf16;
    } seen[] = {
        {1.0 + 0x1p-11 + 0x1p-40, 0x3C00, 0x3F80},
        {1.0 + 0x1p-11 + 0x1p-29, 0x3C00, 0x3F80},
        {1.0 + 0x1p-8 + 0x1p-40, 0x3C04, 0x3F80},
        {65519.999999, 0x7C00, 0x4780},
        {0x1p-25 + 0x1p-60, 0x0000, 0x3300},
        {1e300, 0x7C00, 0x7F80},
        {-1e300, 0xFC00, 0xFF80},
        {1e-300, 0x0000, 0x0000},
        {3.4028235677973362e38, 0x7C00, 0x7F80},
    };
    for (size_t i = 0; i < COUNT(seen); i++) {
        ASSERT_UEQ(cast1(f64_bits(seen[i].x), TSR_FLOAT64, TSR_FLOAT16, NULL), seen[i].f16);
        ASSERT_UEQ(cast1(f64_bits(seen[i].x), TSR_FLOAT64, TSR_BFLOAT16, NULL), seen[i].bf16);
    }
    ASSERT_UEQ(cast1(f64_bits(-NAN), TSR_FLOAT64, TSR_FLOAT16, &scalar_nans), 0xFE00);
    /* integers go through float32 too: 2^24 + 2^16 + 1 -> 2^24 + 2^16 -> tie -> 4B80 */
    ASSERT_UEQ(cast1(16842753, TSR_INT64, TSR_BFLOAT16, NULL), 0x4B80);
    ASSERT_UEQ(cast1(16842753, TSR_INT32, TSR_BFLOAT16, NULL), 0x4B80);
}

/* ---- floating -> integer (section 11.2, 11.3) ---------------------------- */

static void test_float_to_int(void)
{
    /* torch 1.13, float32 and float64 sources alike */
    static const struct {
        double x;
        int64_t i8, u8, i16, i32, i64;
        bool b;
    } rows[] = {
        {1.9, 1, 1, 1, 1, 1, true},
        {-1.9, -1, 255, -1, -1, -1, true},
        {0.5, 0, 0, 0, 0, 0, true},
        {-0.5, 0, 0, 0, 0, 0, true},
        {-0.0, 0, 0, 0, 0, 0, false},
        {127.5, 127, 127, 127, 127, 127, true},
        {128.0, -128, 128, 128, 128, 128, true},
        {-128.5, -128, 128, -128, -128, -128, true},
        {-129.0, 127, 127, -129, -129, -129, true},
        {255.0, -1, 255, 255, 255, 255, true},
        {256.0, 0, 0, 256, 256, 256, true},
        {300.0, 44, 44, 300, 300, 300, true},
        {-300.0, -44, 212, -300, -300, -300, true},
        {32768.0, 0, 0, -32768, 32768, 32768, true},
        {-32769.0, -1, 255, 32767, -32769, -32769, true},
        {65535.0, -1, 255, -1, 65535, 65535, true},
        {65536.0, 0, 0, 0, 65536, 65536, true},
        {70000.0, 112, 112, 4464, 70000, 70000, true},
        {2147483520.0, -128, 128, -128, 2147483520, 2147483520, true},
        {0x1p31, 0, 0, 0, INT32_MIN, 0x80000000LL, true},
        {-0x1p31, 0, 0, 0, INT32_MIN, -0x80000000LL, true},
        {-0x1p31 - 256, 0, 0, 0, INT32_MIN, -2147483904LL, true},
        {0x1p32, 0, 0, 0, INT32_MIN, 0x100000000LL, true},
        {1e10, 0, 0, 0, INT32_MIN, 10000000000LL, true},
        {-1e10, 0, 0, 0, INT32_MIN, -10000000000LL, true},
        {0x1p63, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {1e20, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {-1e20, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {INFINITY, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {-INFINITY, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {NAN, 0, 0, 0, INT32_MIN, INT64_MIN, true},
        {1e-45, 0, 0, 0, 0, 0, true},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        uint64_t from[2] = {f32_bits((float)rows[i].x), f64_bits(rows[i].x)};
        for (int s = 0; s < 2; s++) {
            tsr_dtype src = s ? TSR_FLOAT64 : TSR_FLOAT32;
            ASSERT_UEQ(cast1(from[s], src, TSR_INT8, NULL), (uint8_t)rows[i].i8);
            ASSERT_UEQ(cast1(from[s], src, TSR_UINT8, NULL), (uint8_t)rows[i].u8);
            ASSERT_UEQ(cast1(from[s], src, TSR_INT16, NULL), (uint16_t)rows[i].i16);
            ASSERT_UEQ(cast1(from[s], src, TSR_INT32, NULL), (uint32_t)rows[i].i32);
            ASSERT_UEQ(cast1(from[s], src, TSR_INT64, NULL), (uint64_t)rows[i].i64);
            ASSERT_UEQ(cast1(from[s], src, TSR_BOOL, NULL), rows[i].b);
        }
    }

    /* x86-64 GCC -O2 scalar casts (not in torch 1.13): uint16 through the
     * 32-bit cvtt, uint32 through the 64-bit one, uint64 in two halves */
    static const struct {
        float x;
        uint64_t u16, u32, u64;
    } unsigned_rows[] = {
        {-1.0f, 65535, 4294967295u, UINT64_MAX},
        {70000.0f, 4464, 70000, 70000},
        {5e9f, 0, 705032704, 5000000000u},
        {2e19f, 0, 0, 0},
        {-INFINITY, 0, 0, 0x8000000000000000u},
        {NAN, 0, 0, 0x8000000000000000u},
        {-3e9f, 0, 1294967296, (uint64_t)0 - 3000000000u},
        {0x1p63f, 0, 0, 0x8000000000000000u},
        {0x1.fffffep63f, 0, 0, 0xFFFFFF0000000000u},
    };
    for (size_t i = 0; i < COUNT(unsigned_rows); i++) {
        float x = unsigned_rows[i].x;
        uint64_t from[2] = {f32_bits(x), f64_bits(x)};
        for (int s = 0; s < 2; s++) {
            tsr_dtype src = s ? TSR_FLOAT64 : TSR_FLOAT32;
            ASSERT_UEQ(cast1(from[s], src, TSR_UINT16, NULL), unsigned_rows[i].u16);
            ASSERT_UEQ(cast1(from[s], src, TSR_UINT32, NULL), unsigned_rows[i].u32);
            ASSERT_UEQ(cast1(from[s], src, TSR_UINT64, NULL), unsigned_rows[i].u64);
        }
    }
    /* reduced types convert through float32 first */
    ASSERT_UEQ(cast1(0xDCB0 /* -300 */, TSR_FLOAT16, TSR_UINT8, NULL), 212);
    ASSERT_UEQ(cast1(0x7C00, TSR_FLOAT16, TSR_INT32, NULL), 0x80000000u);
    ASSERT_UEQ(cast1(0xC3B0 /* bf16 -352 */, TSR_BFLOAT16, TSR_INT8, NULL), (uint8_t)-96);
    ASSERT_UEQ(cast1(0x7E /* 448 */, TSR_FLOAT8_E4M3FN, TSR_INT8, NULL), (uint8_t)-64);
    ASSERT_UEQ(cast1(0x7F /* NaN */, TSR_FLOAT8_E4M3FN, TSR_BOOL, NULL), 1);
    ASSERT_UEQ(cast1(0x00 /* 2^-127 */, TSR_FLOAT8_E8M0FNU, TSR_BOOL, NULL), 1);
    ASSERT_UEQ(cast1(0x80 /* -0 */, TSR_FLOAT8_E5M2, TSR_BOOL, NULL), 0);
}

/* ---- integer sources (section 11.4) --------------------------------------- */

static void test_integers(void)
{
    ASSERT_UEQ(cast1(300, TSR_INT64, TSR_INT8, NULL), 44);
    ASSERT_UEQ(cast1((uint64_t)-1, TSR_INT64, TSR_UINT8, NULL), 255);
    ASSERT_UEQ(cast1((1ull << 40) + 5, TSR_INT64, TSR_INT8, NULL), 5);
    ASSERT_UEQ(cast1(70000, TSR_INT64, TSR_INT16, NULL), 4464);
    ASSERT_UEQ(cast1((uint64_t)-40000, TSR_INT64, TSR_INT16, NULL), 25536);
    ASSERT_UEQ(cast1(1ull << 31, TSR_INT64, TSR_INT32, NULL), 0x80000000u);
    ASSERT_UEQ(cast1(200, TSR_UINT8, TSR_INT8, NULL), (uint8_t)-56);
    ASSERT_UEQ(cast1(0x80 /* -128 */, TSR_INT8, TSR_UINT8, NULL), 128);
    ASSERT_UEQ(cast1(0x80 /* -128 */, TSR_INT8, TSR_INT64, NULL), (uint64_t)-128);
    ASSERT_UEQ(cast1(0x8000 /* -32768 */, TSR_INT16, TSR_UINT32, NULL), 0xFFFF8000u);
    ASSERT_UEQ(cast1(0xFFFFFFFFu, TSR_UINT32, TSR_INT64, NULL), 0xFFFFFFFFu);
    ASSERT_UEQ(cast1(UINT64_MAX, TSR_UINT64, TSR_INT16, NULL), 0xFFFF);
    ASSERT_UEQ(cast1(256, TSR_INT64, TSR_BOOL, NULL), 1);
    ASSERT_UEQ(cast1(cast1(256, TSR_INT64, TSR_UINT8, NULL), TSR_UINT8, TSR_BOOL, NULL), 0);

    /* a bool byte other than 0 or 1 still reads as true */
    const uint8_t bytes[4] = {0, 1, 2, 255};
    int64_t wide[4];
    ASSERT_OK(tsr_cast_buffer(bytes, TSR_BOOL, wide, TSR_INT64, 4));
    ASSERT_EQ(wide[0], 0);
    ASSERT_EQ(wide[1], 1);
    ASSERT_EQ(wide[2], 1);
    ASSERT_EQ(wide[3], 1);
    ASSERT_UEQ(cast1(2, TSR_BOOL, TSR_FLOAT32, NULL), 0x3F800000);

    /* int -> float: RNE (through float32 for the reduced types) */
    ASSERT_UEQ(cast1(16777217, TSR_INT64, TSR_FLOAT32, NULL), f32_bits(16777216.0f));
    ASSERT_UEQ(cast1((1ull << 53) + 1, TSR_INT64, TSR_FLOAT64, NULL), f64_bits(0x1p53));
    ASSERT_UEQ(cast1(UINT64_MAX, TSR_UINT64, TSR_FLOAT32, NULL), f32_bits(0x1p64f));
    ASSERT_UEQ(cast1(UINT64_MAX, TSR_UINT64, TSR_FLOAT64, NULL), f64_bits(0x1p64));
    ASSERT_UEQ(cast1((uint64_t)INT64_MIN, TSR_INT64, TSR_FLOAT64, NULL), f64_bits(-0x1p63));
    ASSERT_UEQ(cast1(65519, TSR_INT64, TSR_FLOAT16, NULL), 0x7BFF);
    ASSERT_UEQ(cast1(65520, TSR_INT64, TSR_FLOAT16, NULL), 0x7C00);
    ASSERT_UEQ(cast1(2049, TSR_INT64, TSR_FLOAT16, NULL), 0x6800);
    ASSERT_UEQ(cast1(2051, TSR_INT64, TSR_FLOAT16, NULL), 0x6802);
    ASSERT_UEQ(cast1(465, TSR_INT64, TSR_FLOAT8_E4M3FN, NULL), 0x7F);
    ASSERT_UEQ(cast1(465, TSR_INT64, TSR_FLOAT8_E4M3FN, &saturating), 0x7E);
    ASSERT_UEQ(cast1((uint64_t)-3, TSR_INT16, TSR_FLOAT8_E5M2, NULL), 0xC2);
}

/* ---- complex (section 11.5) ------------------------------------------------ */

static void test_complex(void)
{
    const float z[2] = {1.5f, 2.0f};
    float f;
    int32_t i;
    uint16_t h, zh[2];
    double zd[2];
    bool b;
    ASSERT_OK(tsr_cast_buffer(z, TSR_COMPLEX64, &f, TSR_FLOAT32, 1));
    ASSERT_TRUE(f == 1.5f);
    ASSERT_OK(tsr_cast_buffer(z, TSR_COMPLEX64, &i, TSR_INT32, 1));
    ASSERT_EQ(i, 1);
    ASSERT_OK(tsr_cast_buffer(z, TSR_COMPLEX64, &h, TSR_FLOAT16, 1));
    ASSERT_UEQ(h, 0x3E00);
    ASSERT_OK(tsr_cast_buffer(z, TSR_COMPLEX64, zd, TSR_COMPLEX128, 1));
    ASSERT_TRUE(zd[0] == 1.5 && zd[1] == 2.0);
    ASSERT_OK(tsr_cast_buffer(z, TSR_COMPLEX64, zh, TSR_COMPLEX32, 1));
    ASSERT_UEQ(zh[0], 0x3E00);
    ASSERT_UEQ(zh[1], 0x4000);
    ASSERT_OK(tsr_cast_buffer(zh, TSR_COMPLEX32, zd, TSR_COMPLEX128, 1));
    ASSERT_TRUE(zd[0] == 1.5 && zd[1] == 2.0);

    /* complex -> bool: either part (current PyTorch) or the real part (1.13) */
    const tsr_cast_options real_only = options(TSR_NAN_BITS_VECTOR, false, true);
    static const struct {
        float re, im;
        bool any, real;
    } bools[] = {
        {0.0f, 1.0f, true, false},    {-0.0f, 1.0f, true, false}, {0.0f, 0.0f, false, false},
        {-0.0f, -0.0f, false, false}, {NAN, 0.0f, true, true},    {0.0f, NAN, true, false},
        {2.0f, 0.0f, true, true},
    };
    for (size_t k = 0; k < COUNT(bools); k++) {
        const float c[2] = {bools[k].re, bools[k].im};
        const double cd[2] = {bools[k].re, bools[k].im};
        ASSERT_OK(tsr_cast_buffer(c, TSR_COMPLEX64, &b, TSR_BOOL, 1));
        ASSERT_EQ(b, bools[k].any);
        ASSERT_OK(tsr_cast_buffer_ex(c, TSR_COMPLEX64, &b, TSR_BOOL, 1, &real_only));
        ASSERT_EQ(b, bools[k].real);
        ASSERT_OK(tsr_cast_buffer(cd, TSR_COMPLEX128, &b, TSR_BOOL, 1));
        ASSERT_EQ(b, bools[k].any);
        ASSERT_OK(tsr_cast_buffer_ex(cd, TSR_COMPLEX128, &b, TSR_BOOL, 1, &real_only));
        ASSERT_EQ(b, bools[k].real);
    }
    const uint16_t imaginary_half[2] = {0x8000, 0x3C00}; /* (-0, 1) */
    ASSERT_OK(tsr_cast_buffer(imaginary_half, TSR_COMPLEX32, &b, TSR_BOOL, 1));
    ASSERT_EQ(b, true);
    ASSERT_OK(tsr_cast_buffer_ex(imaginary_half, TSR_COMPLEX32, &b, TSR_BOOL, 1, &real_only));
    ASSERT_EQ(b, false);

    /* real -> complex is (x, +0); complex128 -> complex64 rounds each part */
    const double big[2] = {1e300, 1e-300};
    uint32_t parts[2];
    ASSERT_OK(tsr_cast_buffer(big, TSR_COMPLEX128, parts, TSR_COMPLEX64, 1));
    ASSERT_UEQ(parts[0], 0x7F800000);
    ASSERT_UEQ(parts[1], 0x00000000);
    const double tenth = 0.1;
    ASSERT_OK(tsr_cast_buffer(&tenth, TSR_FLOAT64, parts, TSR_COMPLEX64, 1));
    ASSERT_UEQ(parts[0], 0x3DCCCCCD);
    ASSERT_UEQ(parts[1], 0x00000000);
    const float minus_zero = -0.0f;
    uint64_t dparts[2];
    ASSERT_OK(tsr_cast_buffer(&minus_zero, TSR_FLOAT32, dparts, TSR_COMPLEX128, 1));
    ASSERT_UEQ(dparts[0], 0x8000000000000000u);
    ASSERT_UEQ(dparts[1], 0);
    const int8_t minus_two = -2;
    ASSERT_OK(tsr_cast_buffer(&minus_two, TSR_INT8, zh, TSR_COMPLEX32, 1));
    ASSERT_UEQ(zh[0], 0xC000);
    ASSERT_UEQ(zh[1], 0x0000);

    /* same component type: the part moves untouched, signalling NaN and all */
    const uint16_t snan_half[2] = {0x7C01, 0x3C00};
    ASSERT_OK(tsr_cast_buffer(snan_half, TSR_COMPLEX32, &h, TSR_FLOAT16, 1));
    ASSERT_UEQ(h, 0x7C01);
    ASSERT_OK(tsr_cast_buffer(snan_half, TSR_FLOAT16, zh, TSR_COMPLEX32, 1));
    ASSERT_UEQ(zh[0], 0x7C01);
    ASSERT_UEQ(zh[1], 0x0000);
    ASSERT_OK(tsr_cast_buffer(snan_half, TSR_COMPLEX32, &parts[0], TSR_FLOAT32, 1));
    ASSERT_UEQ(parts[0], 0x7FC02000);

    /* complex64 -> complex32 follows the float16 NaN mode per part */
    const uint32_t nans[2] = {0x7FFFFFFF, 0xFFC00000};
    ASSERT_OK(tsr_cast_buffer(nans, TSR_COMPLEX64, zh, TSR_COMPLEX32, 1));
    ASSERT_UEQ(zh[0], 0x7FFF);
    ASSERT_UEQ(zh[1], 0xFE00);
    ASSERT_OK(tsr_cast_buffer_ex(nans, TSR_COMPLEX64, zh, TSR_COMPLEX32, 1, &scalar_nans));
    ASSERT_UEQ(zh[0], 0x7E00);
    ASSERT_UEQ(zh[1], 0xFE00);
}

/* ---- NaN bit options ---------------------------------------------------- */

static void test_nan_bits(void)
{
    /* float32 -> bfloat16: the vector kernel's FFFF for every element */
    uint32_t f32_nans[20];
    uint16_t out[20];
    for (int k = 0; k < 20; k++)
        f32_nans[k] = (k & 1 ? 0xFF800001u : 0x7FC00000u) + (uint32_t)k;
    ASSERT_OK(tsr_cast_buffer(f32_nans, TSR_FLOAT32, out, TSR_BFLOAT16, 20));
    for (int k = 0; k < 20; k++)
        ASSERT_UEQ(out[k], 0xFFFF);
    ASSERT_OK(tsr_cast_buffer_ex(f32_nans, TSR_FLOAT32, out, TSR_BFLOAT16, 20, &scalar_nans));
    for (int k = 0; k < 20; k++)
        ASSERT_UEQ(out[k], 0x7FC0);

    /* float64 -> bfloat16: 16-element vector steps, scalar tail (torch 1.13:
     * 20 NaNs -> 16 x FFFF, 4 x 7FC0) */
    double f64_nans[20];
    for (int k = 0; k < 20; k++)
        f64_nans[k] = k & 1 ? -NAN : NAN;
    const size_t counts[] = {20, 16, 15, 1, 17};
    for (size_t c = 0; c < COUNT(counts); c++) {
        size_t n = counts[c];
        ASSERT_OK(tsr_cast_buffer(f64_nans, TSR_FLOAT64, out, TSR_BFLOAT16, n));
        for (size_t k = 0; k < n; k++)
            ASSERT_UEQ(out[k], k < n - n % 16 ? 0xFFFF : 0x7FC0);
        ASSERT_OK(tsr_cast_buffer_ex(f64_nans, TSR_FLOAT64, out, TSR_BFLOAT16, n, &scalar_nans));
        for (size_t k = 0; k < n; k++)
            ASSERT_UEQ(out[k], 0x7FC0);
    }

    /* other sources reach bfloat16 through the scalar constructor */
    ASSERT_UEQ(cast1(0x7E00, TSR_FLOAT16, TSR_BFLOAT16, NULL), 0x7FC0);
    ASSERT_UEQ(cast1(0x7F, TSR_FLOAT8_E4M3FN, TSR_BFLOAT16, NULL), 0x7FC0);
    ASSERT_UEQ(cast1(0x7FC00000, TSR_COMPLEX64, TSR_BFLOAT16, NULL), 0x7FC0);
    ASSERT_UEQ(cast1(0x7FFF, TSR_BFLOAT16, TSR_BFLOAT16, NULL), 0x7FFF);

    /* float16: F16C keeps sign and payload top bits, the c10 routine does not */
    ASSERT_UEQ(cast1(0x7FA00000, TSR_FLOAT32, TSR_FLOAT16, NULL), 0x7F00);
    ASSERT_UEQ(cast1(0x7FA00000, TSR_FLOAT32, TSR_FLOAT16, &scalar_nans), 0x7E00);
    ASSERT_UEQ(cast1(0xFFF0, TSR_BFLOAT16, TSR_FLOAT16, NULL), 0xFF80);
    ASSERT_UEQ(cast1(0xFF, TSR_FLOAT8_E5M2, TSR_FLOAT16, NULL), 0xFF00);
    ASSERT_UEQ(cast1(0xFF, TSR_FLOAT8_E5M2, TSR_FLOAT16, &scalar_nans), 0xFE00);
    ASSERT_UEQ(cast1(f64_bits(-NAN), TSR_FLOAT64, TSR_FLOAT16, NULL), 0xFE00);

    /* NaNs widened to float64 are quieted as x86 does */
    ASSERT_UEQ(cast1(0x80, TSR_FLOAT8_E4M3FNUZ, TSR_FLOAT64, NULL), 0x7FF8000020000000u);
    ASSERT_UEQ(cast1(0x7F, TSR_FLOAT8_E4M3FN, TSR_FLOAT64, NULL), 0x7FFE000000000000u);
    ASSERT_UEQ(cast1(0x7F800001, TSR_FLOAT32, TSR_COMPLEX128, NULL), 0x7FF8000020000000u);
    ASSERT_UEQ(cast1(0x7F800001, TSR_FLOAT32, TSR_FLOAT32, NULL), 0x7F800001);
    ASSERT_UEQ(cast1(0x7FF0000000000001u, TSR_FLOAT64, TSR_FLOAT32, NULL), 0x7FC00000);
}

/* ---- decoders: every code ------------------------------------------------ */

/* An independent decode: the IEEE formula evaluated in double. */
static uint32_t ref_small(uint32_t sign, uint32_t mag, int m, int b)
{
    uint32_t e = mag >> m, mant = mag & ((1u << m) - 1);
    double v = e == 0 ? ldexp(mant, 1 - b - m) : ldexp((double)((1u << m) + mant), (int)e - b - m);
    return f32_bits((float)(sign ? -v : v));
}

static uint32_t ref_f16(uint32_t h)
{
    uint32_t sign = h & 0x8000, mag = h & 0x7FFF;
    if (mag == 0x7C00)
        return sign << 16 | 0x7F800000;
    if (mag > 0x7C00)
        return sign << 16 | 0x7FC00000 | (mag & 0x3FF) << 13;
    return ref_small(sign, mag, 10, 15);
}

static uint32_t ref_float8(tsr_dtype fmt, uint32_t c)
{
    uint32_t sign = c & 0x80, mag = c & 0x7F;
    switch (fmt) {
    case TSR_FLOAT8_E4M3FN:
        return mag == 0x7F ? sign << 24 | 0x7FF00000 : ref_small(sign, mag, 3, 7);
    case TSR_FLOAT8_E5M2:
        return ref_f16(c << 8);
    case TSR_FLOAT8_E4M3FNUZ:
        return c == 0x80 ? 0x7F800001 : ref_small(sign, mag, 3, 8);
    case TSR_FLOAT8_E5M2FNUZ:
        return c == 0x80 ? 0x7F800001 : ref_small(sign, mag, 2, 16);
    default: /* e8m0fnu */
        return c == 0xFF ? 0x7F800001 : f32_bits((float)ldexp(1.0, (int)c - 127));
    }
}

static const tsr_dtype float8s[] = {TSR_FLOAT8_E4M3FN, TSR_FLOAT8_E5M2, TSR_FLOAT8_E4M3FNUZ,
                                    TSR_FLOAT8_E5M2FNUZ, TSR_FLOAT8_E8M0FNU};

static bool float8_is_nan(tsr_dtype fmt, uint32_t c)
{
    switch (fmt) {
    case TSR_FLOAT8_E4M3FN:
        return (c & 0x7F) == 0x7F;
    case TSR_FLOAT8_E5M2:
        return (c & 0x7F) > 0x7C;
    case TSR_FLOAT8_E8M0FNU:
        return c == 0xFF;
    default:
        return c == 0x80;
    }
}

static void test_decode_all(void)
{
    static uint16_t codes[65536];
    static uint32_t wide[65536];
    static uint16_t back[65536];
    for (uint32_t c = 0; c < 65536; c++)
        codes[c] = (uint16_t)c;

    /* float16: all codes in one call, then back (F16C and c10 NaN rules) */
    sweep f16 = {"float16 decode", 0}, f16_trip = {"float16 round trip", 0};
    ASSERT_OK(tsr_cast_buffer(codes, TSR_FLOAT16, wide, TSR_FLOAT32, 65536));
    for (uint32_t c = 0; c < 65536; c++) {
        sweep_check(&f16, c, wide[c], ref_f16(c));
        sweep_check(&f16, c, f32_bits(tsr_half_to_float((uint16_t)c)), ref_f16(c));
    }
    ASSERT_OK(tsr_cast_buffer(wide, TSR_FLOAT32, back, TSR_FLOAT16, 65536));
    for (uint32_t c = 0; c < 65536; c++)
        sweep_check(&f16_trip, c, back[c], (c & 0x7FFF) > 0x7C00 ? c | 0x0200 : c);
    ASSERT_OK(tsr_cast_buffer_ex(wide, TSR_FLOAT32, back, TSR_FLOAT16, 65536, &scalar_nans));
    for (uint32_t c = 0; c < 65536; c++)
        sweep_check(&f16_trip, c, back[c], (c & 0x7FFF) > 0x7C00 ? (c & 0x8000) | 0x7E00 : c);
    SWEEP_DONE(f16);
    SWEEP_DONE(f16_trip);

    /* bfloat16 */
    sweep bf16 = {"bfloat16 decode", 0}, bf16_trip = {"bfloat16 round trip", 0};
    ASSERT_OK(tsr_cast_buffer(codes, TSR_BFLOAT16, wide, TSR_FLOAT32, 65536));
    for (uint32_t c = 0; c < 65536; c++) {
        sweep_check(&bf16, c, wide[c], c << 16);
        sweep_check(&bf16, c, f32_bits(tsr_bfloat16_to_float((uint16_t)c)), c << 16);
    }
    ASSERT_OK(tsr_cast_buffer(wide, TSR_FLOAT32, back, TSR_BFLOAT16, 65536));
    for (uint32_t c = 0; c < 65536; c++)
        sweep_check(&bf16_trip, c, back[c], (c & 0x7FFF) > 0x7F80 ? 0xFFFF : c);
    SWEEP_DONE(bf16);
    SWEEP_DONE(bf16_trip);

    /* the five float8 formats; e4m3fn round-trips in both overflow modes */
    for (size_t f = 0; f < COUNT(float8s); f++) {
        tsr_dtype fmt = float8s[f];
        uint8_t bytes[256], again[256], again_sat[256];
        sweep dec = {tsr_dtype_name(fmt), 0}, trip = {tsr_dtype_name(fmt), 0};
        for (uint32_t c = 0; c < 256; c++)
            bytes[c] = (uint8_t)c;
        ASSERT_OK(tsr_cast_buffer(bytes, fmt, wide, TSR_FLOAT32, 256));
        ASSERT_OK(tsr_cast_buffer(wide, TSR_FLOAT32, again, fmt, 256));
        ASSERT_OK(tsr_cast_buffer_ex(wide, TSR_FLOAT32, again_sat, fmt, 256, &saturating));
        for (uint32_t c = 0; c < 256; c++) {
            sweep_check(&dec, c, wide[c], ref_float8(fmt, c));
            sweep_check(&dec, c, f32_bits(tsr_float8_to_float((uint8_t)c, fmt)),
                        ref_float8(fmt, c));
            if (float8_is_nan(fmt, c))
                continue;
            sweep_check(&trip, c, again[c], c);
            sweep_check(&trip, c, again_sat[c], c);
        }
        SWEEP_DONE(dec);
        SWEEP_DONE(trip);
    }

    /* spot values from the spec's decode tables */
    ASSERT_TRUE(tsr_float8_to_float(0x7E, TSR_FLOAT8_E4M3FN) == 448.0f);
    ASSERT_TRUE(tsr_float8_to_float(0x01, TSR_FLOAT8_E4M3FN) == 0x1p-9f);
    ASSERT_TRUE(tsr_float8_to_float(0x7B, TSR_FLOAT8_E5M2) == 57344.0f);
    ASSERT_TRUE(tsr_float8_to_float(0x7F, TSR_FLOAT8_E4M3FNUZ) == 240.0f);
    ASSERT_TRUE(tsr_float8_to_float(0x01, TSR_FLOAT8_E4M3FNUZ) == 0x1p-10f);
    ASSERT_TRUE(tsr_float8_to_float(0xFF, TSR_FLOAT8_E5M2FNUZ) == -57344.0f);
    ASSERT_TRUE(tsr_float8_to_float(0x01, TSR_FLOAT8_E5M2FNUZ) == 0x1p-17f);
    ASSERT_TRUE(tsr_float8_to_float(0x7F, TSR_FLOAT8_E8M0FNU) == 1.0f);
    ASSERT_TRUE(tsr_float8_to_float(0xFE, TSR_FLOAT8_E8M0FNU) == 0x1p127f);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0x00, TSR_FLOAT8_E8M0FNU)), 0x00400000);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0xFF, TSR_FLOAT8_E4M3FN)), 0xFFF00000);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0x7D, TSR_FLOAT8_E5M2)), 0x7FE00000);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0x7E, TSR_FLOAT8_E5M2)), 0x7FC00000);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0xFF, TSR_FLOAT8_E5M2)), 0xFFE00000);
    ASSERT_UEQ(f32_bits(tsr_float8_to_float(0x38, TSR_FLOAT16)), 0x7FC00000);
    ASSERT_UEQ(f32_bits(tsr_half_to_float(0x7D00)), 0x7FE00000);
    ASSERT_UEQ(f32_bits(tsr_half_to_float(0xFC01)), 0xFFC02000);

    /* float4_e2m1fn nibbles; the high nibble is ignored */
    static const float e2m1[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                   -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    for (uint32_t c = 0; c < 16; c++) {
        ASSERT_UEQ(f32_bits(tsr_float4_to_float((uint8_t)c)), f32_bits(e2m1[c]));
        ASSERT_UEQ(f32_bits(tsr_float4_to_float((uint8_t)(0xA0 | c))), f32_bits(e2m1[c]));
    }
}

/* ---- encoders against an independent RNE reference ---------------------- */

/* |x| rounded to nearest-even on the grid of a format with m mantissa bits
 * and smallest normal exponent emin, in double (exact for float32 input).
 * Returns the unsigned code; the caller applies the overflow policy. */
static uint32_t ref_round(double a, int m, int emin)
{
    if (a == 0)
        return 0;
    int e;
    frexp(a, &e);
    e = e - 1 < emin ? emin : e - 1;
    double q = nearbyint(ldexp(a, m - e));
    if (q >= ldexp(1.0, m + 1)) {
        e++;
        q /= 2;
    }
    uint32_t iq = (uint32_t)q;
    if (iq < (1u << m))
        return iq; /* subnormal (or zero) */
    return (uint32_t)(e - emin + 1) << m | (iq - (1u << m));
}

typedef struct ref_format {
    tsr_dtype dtype;
    bool saturate;
    int m, emin;
    uint32_t max_code, overflow_code, nan_code;
    bool fnuz; /* no -0; NaN, inf and overflow lose the sign */
} ref_format;

static const ref_format ref_formats[] = {
    {TSR_FLOAT16, false, 10, -14, 0x7BFF, 0x7C00, 0x7E00, false},
    {TSR_BFLOAT16, false, 7, -126, 0x7F7F, 0x7F80, 0x7FC0, false},
    {TSR_FLOAT8_E4M3FN, false, 3, -6, 0x7E, 0x7F, 0x7F, false},
    {TSR_FLOAT8_E4M3FN, true, 3, -6, 0x7E, 0x7E, 0x7F, false},
    {TSR_FLOAT8_E5M2, false, 2, -14, 0x7B, 0x7C, 0x7F, false},
    {TSR_FLOAT8_E4M3FNUZ, false, 3, -7, 0x7F, 0x80, 0x80, true},
    {TSR_FLOAT8_E5M2FNUZ, false, 2, -15, 0x7F, 0x80, 0x80, true},
};

static uint32_t ref_encode(const ref_format *f, uint32_t t)
{
    float x = f32_value(t);
    uint32_t sign = t >> 31 ? (f->max_code > 0xFF ? 0x8000u : 0x80u) : 0;
    uint32_t c;
    if (isnan(x))
        return f->fnuz || f->dtype == TSR_BFLOAT16 ? f->nan_code : f->nan_code | sign;
    if (isinf(x))
        c = f->overflow_code;
    else
        c = ref_round(fabs((double)x), f->m, f->emin);
    if (c > f->max_code)
        c = f->overflow_code;
    if (f->fnuz && (c == 0 || c == 0x80))
        return c;
    return c | sign;
}

/* e8m0fnu: round half up on the linear mantissa, any excess over 2^-127
 * rounds a float32 subnormal up; sign ignored; overflow, inf, NaN -> FF. */
static uint32_t ref_e8m0(uint32_t t)
{
    double a = fabs((double)f32_value(t));
    if (isnan(a) || isinf(a))
        return 0xFF;
    if (a < 0x1p-126)
        return a > 0x1p-127 ? 1 : 0;
    int e;
    double frac = frexp(a, &e); /* a = frac * 2^e, frac in [0.5, 1) */
    uint32_t c = (uint32_t)(e - 1 + 127) + (frac >= 0.75 ? 1 : 0);
    return c > 0xFF ? 0xFF : c;
}

static void test_encode_reference(void)
{
    /* every 4099th float32 pattern (both signs, all binades, NaNs), and a
     * finer pass over 2^-31 .. 2^33, where every small format lives */
    sweep s[COUNT(ref_formats)];
    sweep e8 = {"float8_e8m0fnu vs reference", 0};
    for (size_t f = 0; f < COUNT(ref_formats); f++)
        s[f] = (sweep){tsr_dtype_name(ref_formats[f].dtype), 0};
    for (uint64_t t = 0; t < 0x100000000u; t += 4099) {
        for (int dense = 0; dense < 2; dense++) {
            uint32_t u = dense ? 0x30000000u + (uint32_t)(t >> 3) : (uint32_t)t;
            for (size_t f = 0; f < COUNT(ref_formats); f++) {
                const ref_format *rf = &ref_formats[f];
                uint32_t got;
                switch (rf->dtype) {
                case TSR_FLOAT16:
                    got = tsr__f32_to_f16(u, false);
                    break;
                case TSR_BFLOAT16:
                    got = tsr__f32_to_bf16(u, false);
                    break;
                default:
                    got = tsr_float_to_float8(f32_value(u), rf->dtype, rf->saturate);
                    break;
                }
                sweep_check(&s[f], u, got, ref_encode(rf, u));
            }
            sweep_check(&e8, u, tsr__f32_to_e8m0fnu(u), ref_e8m0(u));
        }
    }
    for (size_t f = 0; f < COUNT(ref_formats); f++)
        SWEEP_DONE(s[f]);
    SWEEP_DONE(e8);

    /* e8m0fnu's threshold form: code c for |T| in [((c-1)<<23)|400000,
     * (c<<23)|3FFFFF], 00 up to 00400000, 01 up to 00BFFFFF */
    for (uint32_t c = 2; c < 0xFF; c++) {
        uint32_t lo = ((c - 1) << 23) | 0x400000u, hi = (c << 23) | 0x3FFFFFu;
        ASSERT_UEQ(tsr__f32_to_e8m0fnu(lo), c);
        ASSERT_UEQ(tsr__f32_to_e8m0fnu(hi | 0x80000000u), c);
        ASSERT_UEQ(tsr__f32_to_e8m0fnu(lo - 1), c - 1);
    }
    ASSERT_UEQ(tsr__f32_to_e8m0fnu(0x00400000), 0x00);
    ASSERT_UEQ(tsr__f32_to_e8m0fnu(0x00400001), 0x01);
    ASSERT_UEQ(tsr__f32_to_e8m0fnu(0x00BFFFFF), 0x01);
    ASSERT_UEQ(tsr__f32_to_e8m0fnu(0x7F3FFFFF), 0xFE);
    ASSERT_UEQ(tsr__f32_to_e8m0fnu(0x7F400000), 0xFF);
}

/* ---- blocks, in place, and every pair ------------------------------------ */

/* A long cast must equal element-by-element casts (blocks are 256 long),
 * and an in-place cast (same item size) the out-of-place one. The float64
 * -> bfloat16 NaN tail depends on n by design, so that pair is compared in
 * scalar NaN mode only. */
static void test_all_pairs(void)
{
    enum { N = 600 };
    static unsigned char src[N * 16], dst[N * 16], inplace[N * 16];
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (size_t k = 0; k < sizeof src; k++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        src[k] = (unsigned char)(seed >> 56);
    }
    const tsr_cast_options modes[2] = {options(TSR_NAN_BITS_VECTOR, false, false),
                                       options(TSR_NAN_BITS_SCALAR, true, true)};
    long mismatches = 0, calls_failed = 0;
    for (int from = 0; from < TSR_DTYPE_COUNT; from++) {
        for (int to = 0; to < TSR_DTYPE_COUNT; to++) {
            if (from == TSR_FLOAT4_E2M1FN_X2 || to == TSR_FLOAT4_E2M1FN_X2)
                continue;
            size_t in_size = tsr_dtype_itemsize(from), out_size = tsr_dtype_itemsize(to);
            for (int m = 0; m < 2; m++) {
                if (m == 0 && from == TSR_FLOAT64 && to == TSR_BFLOAT16)
                    continue;
                calls_failed += tsr_cast_buffer_ex(src, (tsr_dtype)from, dst, (tsr_dtype)to, N,
                                                   &modes[m]) != TSR_OK;
                for (size_t k = 0; k < N; k++) {
                    unsigned char one[16];
                    calls_failed += tsr_cast_buffer_ex(src + k * in_size, (tsr_dtype)from, one,
                                                       (tsr_dtype)to, 1, &modes[m]) != TSR_OK;
                    if (memcmp(one, dst + k * out_size, out_size) != 0 && mismatches++ == 0)
                        fprintf(stderr, "%s -> %s element %zu differs\n",
                                tsr_dtype_name((tsr_dtype)from), tsr_dtype_name((tsr_dtype)to), k);
                }
                if (in_size != out_size)
                    continue;
                memcpy(inplace, src, N * in_size);
                calls_failed += tsr_cast_buffer_ex(inplace, (tsr_dtype)from, inplace, (tsr_dtype)to,
                                                   N, &modes[m]) != TSR_OK;
                if (memcmp(inplace, dst, N * out_size) != 0 && mismatches++ == 0)
                    fprintf(stderr, "%s -> %s in place differs\n", tsr_dtype_name((tsr_dtype)from),
                            tsr_dtype_name((tsr_dtype)to));
            }
        }
    }
    ASSERT_EQ(calls_failed, 0);
    ASSERT_EQ(mismatches, 0);
}

/* ---- argument checking ------------------------------------------------------ */

static void test_errors(void)
{
    float f[4] = {1, 2, 3, 4};
    uint16_t h[4];
    unsigned char bytes[64];

    ASSERT_FAIL(tsr_cast_buffer(NULL, TSR_FLOAT32, h, TSR_FLOAT16, 1), TSR_ERR_INVALID_ARGUMENT,
                "source buffer is NULL (n = 1)");
    ASSERT_FAIL(tsr_cast_buffer(f, TSR_FLOAT32, NULL, TSR_FLOAT16, 4), TSR_ERR_INVALID_ARGUMENT,
                "destination buffer is NULL (n = 4)");
    ASSERT_OK(tsr_cast_buffer(NULL, TSR_FLOAT32, NULL, TSR_FLOAT16, 0));
    ASSERT_FAIL(tsr_cast_buffer(f, (tsr_dtype)99, h, TSR_FLOAT16, 1), TSR_ERR_INVALID_ARGUMENT,
                "invalid dtype value 99");
    ASSERT_FAIL(tsr_cast_buffer(f, TSR_FLOAT32, h, (tsr_dtype)-1, 1), TSR_ERR_INVALID_ARGUMENT,
                "invalid dtype value -1");
    tsr_cast_options bad = {.nan_bits = (tsr_nan_bits)7};
    ASSERT_FAIL(tsr_cast_buffer_ex(f, TSR_FLOAT32, h, TSR_FLOAT16, 1, &bad),
                TSR_ERR_INVALID_ARGUMENT, "invalid NaN bits mode 7");

    /* float4_e2m1fn_x2 copies itself and nothing else */
    memset(bytes, 0xAA, sizeof bytes);
    ASSERT_FAIL(tsr_cast_buffer(f, TSR_FLOAT32, bytes, TSR_FLOAT4_E2M1FN_X2, 4),
                TSR_ERR_NOT_SUPPORTED,
                "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                "(from Float to Float4_e2m1fn_x2)");
    ASSERT_FAIL(tsr_cast_buffer(bytes, TSR_FLOAT4_E2M1FN_X2, f, TSR_UINT8, 4),
                TSR_ERR_NOT_SUPPORTED,
                "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                "(from Float4_e2m1fn_x2 to Byte)");
    ASSERT_UEQ(bytes[0], 0xAA); /* untouched on failure */
    ASSERT_TRUE(f[0] == 1.0f);
    const uint8_t packed[3] = {0x21, 0xF7, 0x80};
    ASSERT_OK(tsr_cast_buffer(packed, TSR_FLOAT4_E2M1FN_X2, bytes, TSR_FLOAT4_E2M1FN_X2, 3));
    ASSERT_TRUE(memcmp(packed, bytes, 3) == 0);

    /* overlap: identical buffers with equal item sizes only */
    ASSERT_FAIL(tsr_cast_buffer(bytes, TSR_FLOAT32, bytes + 2, TSR_FLOAT16, 4),
                TSR_ERR_INVALID_ARGUMENT, "source and destination buffers partially overlap");
    ASSERT_FAIL(tsr_cast_buffer(bytes, TSR_FLOAT32, bytes, TSR_FLOAT16, 4),
                TSR_ERR_INVALID_ARGUMENT, "source and destination buffers partially overlap");
    ASSERT_FAIL(tsr_cast_buffer(bytes + 8, TSR_FLOAT16, bytes, TSR_FLOAT32, 4),
                TSR_ERR_INVALID_ARGUMENT, "source and destination buffers partially overlap");
    ASSERT_OK(tsr_cast_buffer(bytes, TSR_FLOAT32, bytes + 16, TSR_FLOAT16, 4));
    ASSERT_OK(tsr_cast_buffer(bytes, TSR_FLOAT32, bytes, TSR_FLOAT32, 16));
    float in_place[3] = {-1.5f, 300.0f, NAN};
    ASSERT_OK(tsr_cast_buffer(in_place, TSR_FLOAT32, in_place, TSR_INT32, 3));
    int32_t as_int[3];
    memcpy(as_int, in_place, sizeof as_int);
    ASSERT_EQ(as_int[0], -1);
    ASSERT_EQ(as_int[1], 300);
    ASSERT_EQ(as_int[2], INT32_MIN);

    /* element counts whose byte size overflows are refused before any access */
    ASSERT_FAIL(tsr_cast_buffer(f, TSR_FLOAT32, h, TSR_FLOAT16, SIZE_MAX / 2 + 1), TSR_ERR_OVERFLOW,
                NULL);

    /* unaligned buffers are fine */
    float one = 1.0f;
    memcpy(bytes + 1, &one, 4);
    ASSERT_OK(tsr_cast_buffer(bytes + 1, TSR_FLOAT32, bytes + 33, TSR_FLOAT64, 1));
    double wide;
    memcpy(&wide, bytes + 33, 8);
    ASSERT_TRUE(wide == 1.0);
}

int main(void)
{
    test_f16_examples();
    test_bf16_examples();
    test_float8_examples();
    test_double_rounding();
    test_float_to_int();
    test_integers();
    test_complex();
    test_nan_bits();
    test_decode_all();
    test_encode_reference();
    test_all_pairs();
    test_errors();
    TEST_DONE();
}
