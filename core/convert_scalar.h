/* Element conversions, one value at a time, bit-exact with PyTorch's CPU
 * copy_ on x86-64 (the rules are summarised in docs of tsr_cast_buffer).
 *
 * This header is compiled twice: as host C11 (core/convert.c and the
 * tests) and as OpenCL C 1.2 source embedded by the kernels module. So it
 * uses integer bit manipulation and plain float operations only: no libm,
 * no tables, no compiler builtins, no undefined behaviour (every shift
 * count is in range, every float->int cast is range-checked first).
 * double paths exist when TSR_CONV_HAVE_DOUBLE is defined (always on the
 * host; an OpenCL program defines it when the device has cl_khr_fp64).
 *
 * Conventions. A float32 travels as its bit pattern (tsr__u32) through the
 * reduced-type encoders and decoders, so NaN payloads and signalling NaNs
 * are never touched by an FPU on the way; names with "f32" take or give
 * such bits. Names with "float"/"double" take a value. Integer results are
 * returned as unsigned bit patterns of the destination width (two's
 * complement for signed dtypes), which keeps every narrowing well defined.
 *
 * Every reduced type is reached from float32 (PyTorch has one float32
 * constructor per type): a float64 or integer source is first rounded to
 * float32 with RNE, then encoded (so float64 -> float16 rounds twice). */
#ifndef TESSERA_CORE_CONVERT_SCALAR_H
#define TESSERA_CORE_CONVERT_SCALAR_H

/* ---- portability: fixed-width types and float <-> bits ---------------- */
#ifdef __OPENCL_VERSION__

typedef uchar tsr__u8;
typedef ushort tsr__u16;
typedef uint tsr__u32;
typedef ulong tsr__u64;
typedef int tsr__i32;
typedef long tsr__i64;
#define TSR__U64(c) c##UL

static inline float tsr__float_from_bits(tsr__u32 u)
{
    return as_float(u);
}

static inline tsr__u32 tsr__float_bits(float f)
{
    return as_uint(f);
}

#ifdef TSR_CONV_HAVE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
static inline tsr__u64 tsr__double_bits(double d)
{
    return as_ulong(d);
}

static inline double tsr__double_from_bits(tsr__u64 u)
{
    return as_double(u);
}
#endif

#else /* host C */

#include <stdbool.h>
#include <stdint.h>

#ifndef TSR_CONV_HAVE_DOUBLE
#define TSR_CONV_HAVE_DOUBLE 1
#endif

typedef uint8_t tsr__u8;
typedef uint16_t tsr__u16;
typedef uint32_t tsr__u32;
typedef uint64_t tsr__u64;
typedef int32_t tsr__i32;
typedef int64_t tsr__i64;
#define TSR__U64(c) UINT64_C(c)

static inline float tsr__float_from_bits(tsr__u32 u)
{
    union {
        tsr__u32 u;
        float f;
    } v;
    v.u = u;
    return v.f;
}

static inline tsr__u32 tsr__float_bits(float f)
{
    union {
        float f;
        tsr__u32 u;
    } v;
    v.f = f;
    return v.u;
}

static inline tsr__u64 tsr__double_bits(double d)
{
    union {
        double d;
        tsr__u64 u;
    } v;
    v.d = d;
    return v.u;
}

static inline double tsr__double_from_bits(tsr__u64 u)
{
    union {
        tsr__u64 u;
        double d;
    } v;
    v.u = u;
    return v.d;
}

#endif /* __OPENCL_VERSION__ */

#define TSR__F32_ABS 0x7FFFFFFFu
#define TSR__F32_INF 0x7F800000u

/* ---- decoders: code -> float32 bits (exact) --------------------------- */

/* A finite code of a small IEEE-like format without its sign: `mag` holds
 * exponent and mantissa (m mantissa bits, exponent bias b). Normal codes
 * only need re-biasing; a subnormal code is placed under the format's
 * smallest normal exponent and that power of two subtracted again, which
 * is exact and never touches a float32 subnormal (so a device that
 * flushes denormals gets the same bits). */
static inline tsr__u32 tsr__small_to_f32(tsr__u32 mag, int m, int b)
{
    tsr__u32 normal = (mag << (23 - m)) + ((tsr__u32)(127 - b) << 23);
    tsr__u32 k = (tsr__u32)(128 - b) << 23;
    float sub = tsr__float_from_bits(k | (mag << (23 - m))) - tsr__float_from_bits(k);
    return (mag >> m) != 0 ? normal : tsr__float_bits(sub);
}

/* float16: inf and NaN keep sign and payload; NaN gets the quiet bit, as
 * the c10 routine and F16C both do (7D00 -> 7FE00000, 7C01 -> 7FC02000). */
static inline tsr__u32 tsr__f16_to_f32(tsr__u16 h)
{
    tsr__u32 sign = (tsr__u32)(h & 0x8000u) << 16;
    tsr__u32 mag = h & 0x7FFFu;
    tsr__u32 special =
        TSR__F32_INF | ((mag & 0x3FFu) << 13) | ((mag & 0x3FFu) != 0 ? 0x400000u : 0);
    return sign | (mag >= 0x7C00u ? special : tsr__small_to_f32(mag, 10, 15));
}

/* bfloat16 is the top half of a float32: exact, NaN bits kept. */
static inline tsr__u32 tsr__bf16_to_f32(tsr__u16 h)
{
    return (tsr__u32)h << 16;
}

/* float8_e4m3fn: 7F/FF are NaN, decoded as c10's scalar decoder does
 * (exponent all ones, the three mantissa ones on top: s|7FF00000). */
static inline tsr__u32 tsr__e4m3fn_to_f32(tsr__u8 c)
{
    tsr__u32 sign = (tsr__u32)(c & 0x80u) << 24;
    tsr__u32 mag = c & 0x7Fu;
    return sign | (mag == 0x7Fu ? 0x7FF00000u : tsr__small_to_f32(mag, 3, 7));
}

/* float8_e5m2 is the high byte of a float16 and decodes as one. */
static inline tsr__u32 tsr__e5m2_to_f32(tsr__u8 c)
{
    return tsr__f16_to_f32((tsr__u16)((tsr__u32)c << 8));
}

/* The fnuz formats: 80 is the only NaN (bits 7F800001, as PyTorch's
 * current decoder gives), there is no -0 and no infinity. */
#define TSR__FNUZ_NAN 0x7F800001u

static inline tsr__u32 tsr__e4m3fnuz_to_f32(tsr__u8 c)
{
    tsr__u32 sign = (tsr__u32)(c & 0x80u) << 24;
    return c == 0x80u ? TSR__FNUZ_NAN : sign | tsr__small_to_f32(c & 0x7Fu, 3, 8);
}

static inline tsr__u32 tsr__e5m2fnuz_to_f32(tsr__u8 c)
{
    tsr__u32 sign = (tsr__u32)(c & 0x80u) << 24;
    return c == 0x80u ? TSR__FNUZ_NAN : sign | tsr__small_to_f32(c & 0x7Fu, 2, 16);
}

/* float8_e8m0fnu: 2^(c-127); code 00 is 2^-127, a float32 subnormal. */
static inline tsr__u32 tsr__e8m0fnu_to_f32(tsr__u8 c)
{
    tsr__u32 normal = (tsr__u32)c << 23;
    return c == 0xFFu ? TSR__FNUZ_NAN : (c == 0 ? 0x00400000u : normal);
}

/* One float4_e2m1fn nibble (bits 3..0 of `nibble`; the rest ignored):
 * 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives. PyTorch has no casts for
 * this type; the decode is for printing. */
static inline tsr__u32 tsr__e2m1_to_f32(tsr__u8 nibble)
{
    tsr__u32 sign = (tsr__u32)(nibble & 0x8u) << 28;
    return sign | tsr__small_to_f32(nibble & 0x7u, 1, 1);
}

/* ---- encoders: float32 bits -> code ------------------------------------ */

/* Round a = |x| (float32 bits, finite) to the grid of a small format with
 * m mantissa bits and bias b, ties to even, with gradual underflow. The
 * result is the unsigned code (exponent << m | mantissa); a rounding carry
 * moves into the exponent, so values at or past the format's top come out
 * as the next code up and callers clamp. Both paths are computed and one
 * selected, which keeps the function free of branches.
 *   normal target: re-bias the exponent, then add half an ulp minus one
 *     plus the kept low bit and shift (integer RNE);
 *   subnormal target: the same rounding on the 24-bit significand, shifted
 *     by how far the value lies below the format's smallest normal. */
static inline tsr__u32 tsr__f32_round_small(tsr__u32 a, int m, int b)
{
    const int s = 23 - m;
    const tsr__u32 top_sub =
        (tsr__u32)(127 - b); /* largest float32 exponent with a subnormal result */
    tsr__u32 normal = (a - (top_sub << 23) + ((1u << (s - 1)) - 1u) + ((a >> s) & 1u)) >> s;
    tsr__u32 e = a >> 23;
    tsr__u32 sig = (a & 0x7FFFFFu) | (e != 0 ? 0x800000u : 0);
    tsr__u32 ec = e < 1u ? 1u : (e > top_sub ? top_sub : e);
    tsr__u32 sh = (tsr__u32)(151 - b - m) - ec; /* >= 24 - m >= 1 */
    sh = sh > 31u ? 31u : sh;
    tsr__u32 sub = (sig + ((1u << (sh - 1u)) - 1u) + ((sig >> sh) & 1u)) >> sh;
    return e > top_sub ? normal : sub;
}

/* float16, RNE, overflow to inf (from 65520 up). NaN: with f16c_nan the
 * sign and top nine payload bits are kept as x86 F16C keeps them
 * (s|7E00|m>>13: PyTorch >= 2.1 CPU kernels); without, s|7E00 (c10's
 * software routine, PyTorch <= 2.0 and code outside CPU kernels). */
static inline tsr__u16 tsr__f32_to_f16(tsr__u32 t, bool f16c_nan)
{
    tsr__u32 a = t & TSR__F32_ABS;
    tsr__u32 c = a >= 0x47800000u ? 0x7C00u : tsr__f32_round_small(a, 10, 15);
    tsr__u32 nan = 0x7E00u | (f16c_nan ? (a >> 13) & 0x1FFu : 0);
    return (tsr__u16)(((t >> 16) & 0x8000u) | (a > TSR__F32_INF ? nan : c));
}

/* bfloat16, RNE on the bit pattern (exact IEEE RNE including float32
 * subnormals; overflow to inf). NaN: vector_nan gives FFFF (the AVX2/
 * AVX512 copy kernels), otherwise 7FC0 (c10's scalar constructor). */
static inline tsr__u16 tsr__f32_to_bf16(tsr__u32 t, bool vector_nan)
{
    tsr__u32 c = (t + 0x7FFFu + ((t >> 16) & 1u)) >> 16;
    tsr__u32 nan = vector_nan ? 0xFFFFu : 0x7FC0u;
    return (tsr__u16)((t & TSR__F32_ABS) > TSR__F32_INF ? nan : c);
}

/* float8_e4m3fn. Rounded magnitudes above 448 (from 0x43E80001) and +-inf
 * give NaN 7F|s (PyTorch 2.1 - 2.11), or with `saturate` +-448 7E|s
 * (PyTorch >= 2.12). NaN stays NaN 7F|s either way. */
static inline tsr__u8 tsr__f32_to_e4m3fn(tsr__u32 t, bool saturate)
{
    tsr__u32 a = t & TSR__F32_ABS;
    tsr__u32 c = a >= 0x43F00000u ? 0x7Fu : tsr__f32_round_small(a, 3, 7);
    c = saturate && c > 0x7Eu ? 0x7Eu : c;
    c = a > TSR__F32_INF ? 0x7Fu : c;
    return (tsr__u8)(((t >> 24) & 0x80u) | c);
}

/* float8_e5m2: RNE, overflow to inf 7C|s (from 61440 up), NaN 7F|s. */
static inline tsr__u8 tsr__f32_to_e5m2(tsr__u32 t)
{
    tsr__u32 a = t & TSR__F32_ABS;
    tsr__u32 c = a >= 0x47800000u ? 0x7Cu : tsr__f32_round_small(a, 2, 15);
    c = a > TSR__F32_INF ? 0x7Fu : c;
    return (tsr__u8)(((t >> 24) & 0x80u) | c);
}

/* fnuz: NaN, +-inf and overflow all give 80 (sign dropped); a rounding
 * carry out of the top code also lands exactly on 80; zero is always 00. */
static inline tsr__u8 tsr__fnuz_finish(tsr__u32 t, tsr__u32 c)
{
    tsr__u32 sign = c != 0 ? (t >> 24) & 0x80u : 0;
    return (tsr__u8)(c | sign);
}

static inline tsr__u8 tsr__f32_to_e4m3fnuz(tsr__u32 t)
{
    tsr__u32 a = t & TSR__F32_ABS;
    return tsr__fnuz_finish(t, a >= 0x43800000u ? 0x80u : tsr__f32_round_small(a, 3, 8));
}

static inline tsr__u8 tsr__f32_to_e5m2fnuz(tsr__u32 t)
{
    tsr__u32 a = t & TSR__F32_ABS;
    return tsr__fnuz_finish(t, a >= 0x47800000u ? 0x80u : tsr__f32_round_small(a, 2, 16));
}

/* float8_e8m0fnu: the float32 exponent field, plus one when the mantissa
 * field is at least half (ties up; for float32 subnormals the tie at
 * exactly 2^-127 goes down). Sign ignored; inf, NaN and overflow -> FF. */
static inline tsr__u8 tsr__f32_to_e8m0fnu(tsr__u32 t)
{
    tsr__u32 e = (t >> 23) & 0xFFu;
    tsr__u32 tie = 0x400000u + (e == 0 ? 1u : 0);
    tsr__u32 c = e + ((t & 0x7FFFFFu) >= tie ? 1u : 0);
    return (tsr__u8)(e == 0xFFu ? 0xFFu : c);
}

/* ---- floating -> integer, x86-64 semantics ------------------------------
 * cvtt32/cvtt64 are the x86 truncating conversions: trunc(x) when it fits
 * int32/int64, else (NaN, +-inf, out of range) the "integer indefinite"
 * INT32_MIN / INT64_MIN. PyTorch's static_casts compile to these, then
 * narrower targets keep the low bits:
 *   int8, int16, uint16: low bits of cvtt32     int32: cvtt32
 *   uint8, uint32:       low bits of cvtt64     int64: cvtt64
 *   uint64: to_u64 (GCC -O2: below 2^63 or NaN -> cvtt64, else
 *           cvtt64(x - 2^63) ^ 2^63; x - 2^63 is exact there)
 *   bool: x != 0 (NaN is true, -0.0 false). */
#define TSR__I32_MIN (-2147483647 - 1)
#define TSR__I64_MIN (-(tsr__i64)TSR__U64(0x7FFFFFFFFFFFFFFF) - 1)

/* The lower bounds are exclusive: the only excluded in-range input, -2^31
 * resp. -2^63 itself, truncates to the indefinite value anyway. */
static inline tsr__i32 tsr__float_cvtt32(float x)
{
    return x > -0x1p31f && x < 0x1p31f ? (tsr__i32)x : TSR__I32_MIN;
}

static inline tsr__i64 tsr__float_cvtt64(float x)
{
    return x > -0x1p63f && x < 0x1p63f ? (tsr__i64)x : TSR__I64_MIN;
}

static inline tsr__u64 tsr__float_to_u64(float x)
{
    return x >= 0x1p63f ? (tsr__u64)tsr__float_cvtt64(x - 0x1p63f) ^ TSR__U64(0x8000000000000000)
                        : (tsr__u64)tsr__float_cvtt64(x);
}

#ifdef TSR_CONV_HAVE_DOUBLE
static inline tsr__i32 tsr__double_cvtt32(double x)
{
    return x > -2147483649.0 && x < 0x1p31 ? (tsr__i32)x : TSR__I32_MIN;
}

static inline tsr__i64 tsr__double_cvtt64(double x)
{
    return x > -0x1p63 && x < 0x1p63 ? (tsr__i64)x : TSR__I64_MIN;
}

static inline tsr__u64 tsr__double_to_u64(double x)
{
    return x >= 0x1p63 ? (tsr__u64)tsr__double_cvtt64(x - 0x1p63) ^ TSR__U64(0x8000000000000000)
                       : (tsr__u64)tsr__double_cvtt64(x);
}

/* float64 -> float32 bits: IEEE RNE, overflow to inf, NaN kept quiet. */
static inline tsr__u32 tsr__double_to_f32(double x)
{
    return tsr__float_bits((float)x);
}
#endif /* TSR_CONV_HAVE_DOUBLE */

#endif /* TESSERA_CORE_CONVERT_SCALAR_H */
