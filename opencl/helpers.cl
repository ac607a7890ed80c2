/* OpenCL C helpers every generated program holds, between the two
 * embedded element headers (opencl/source.c embeds this file as it was
 * at build time).
 *
 * float16 conversions that vectorise. Where the compiler has _Float16 and
 * the device F16C (x86), the conversions are the hardware's: widening is
 * exact and quiets a NaN as tsr__f16_to_f32 does, and narrowing rounds to
 * nearest even as tsr__f32_to_f16 does for every value but NaN (F16C
 * ignores the subnormal flush flags). Elsewhere the encoder rounds with
 * one float addition where the result is subnormal (0.5f's ulp is
 * float16's smallest subnormal, and the sum is a normal float32 whether
 * or not the device flushes subnormal operands, which round to zero
 * anyway) and with integer RNE above, branch-free. Either way a NaN is
 * spelled out. tests/kernels checks every code and every rounding
 * boundary against the host routines. scalar_ops.h's float16 arithmetic
 * is redirected to them.
 *
 * The NaN of a real operation. Where x86-64 computes it (the reference:
 * docs/semantics.md), a NaN first input comes out quieted, else a NaN
 * second input, else an invalid operation gives the default NaN, whose
 * sign is set. A compiler that vectorises may reorder the operands of
 * + and * and rewrite a - b as a + -b, which changes those bits, so the
 * result's NaN is spelled out from the inputs.
 *
 * Stores around the caches (the rows of chunked walks, when the launch
 * asks for it): whole aligned lines, fenced before the work-item ends. */
#if defined(__F16C__) && defined(__FLT16_MAX__)
typedef union {
    tsr__u16 u;
    _Float16 h;
} tsr__cl_half;

static inline tsr__u32 tsr__cl_f16_to_f32(tsr__u16 x)
{
    tsr__cl_half v;
    v.u = x;
    return tsr__float_bits((float)v.h);
}

static inline tsr__u16 tsr__cl_f32_round_f16(tsr__u32 t)
{
    tsr__cl_half v;
    v.h = (_Float16)tsr__float_from_bits(t);
    return v.u;
}
#define tsr__f16_to_f32 tsr__cl_f16_to_f32
#else
static inline tsr__u16 tsr__cl_f32_round_f16(tsr__u32 t)
{
    tsr__u32 a = t & TSR__F32_ABS;
    tsr__u32 normal = (a - (112u << 23) + 0xFFFu + ((a >> 13) & 1u)) >> 13;
    tsr__u32 sub = tsr__float_bits(tsr__float_from_bits(a) + 0.5f) - 0x3F000000u;
    tsr__u32 c = a < 0x38800000u ? sub : normal;
    c = a >= 0x47800000u ? 0x7C00u : c;
    return (tsr__u16)(((t >> 16) & 0x8000u) | c);
}
#endif

static inline tsr__u16 tsr__cl_f32_to_f16(tsr__u32 t, bool f16c_nan)
{
    tsr__u32 a = t & TSR__F32_ABS;
    tsr__u32 nan = ((t >> 16) & 0x8000u) | 0x7E00u | (f16c_nan ? (a >> 13) & 0x1FFu : 0u);
    return a > TSR__F32_INF ? (tsr__u16)nan : tsr__cl_f32_round_f16(t);
}
#define tsr__f32_to_f16 tsr__cl_f32_to_f16

static inline float tsr__cl_nan_f32(float m, float x, float y)
{
    uint n = isnan(x) ? as_uint(x) | 0x00400000u
             : isnan(y) ? as_uint(y) | 0x00400000u : 0xFFC00000u;
    return isnan(m) ? as_float(n) : m;
}

#ifdef TSR_CONV_HAVE_DOUBLE
static inline double tsr__cl_nan_f64(double m, double x, double y)
{
    ulong n = isnan(x) ? as_ulong(x) | 0x0008000000000000UL
              : isnan(y) ? as_ulong(y) | 0x0008000000000000UL : 0xFFF8000000000000UL;
    return isnan(m) ? as_double(n) : m;
}
#endif

#ifdef __clang__
#define TSR__CL_STREAM(v, p) __builtin_nontemporal_store(v, p)
#else
#define TSR__CL_STREAM(v, p) (*(p) = (v))
#endif
#if defined(__clang__) && defined(__x86_64__)
#define TSR__CL_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#define TSR__CL_STREAM_END(stream) \
    do { \
        if (stream) \
            __builtin_ia32_sfence(); \
    } while (0)
#else
#define TSR__CL_PREFETCH(p) (void)(p)
#define TSR__CL_STREAM_END(stream) (void)(stream)
#endif
