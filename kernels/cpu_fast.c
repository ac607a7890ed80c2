/* The cpu device's fast paths (see cpu_fast.h).
 *
 * The vector loops are x86-64 only and chosen at run time: they are
 * compiled for AVX2 and F16C (attribute target) and run where the cpu
 * has both, so the library itself still runs on any x86-64. Everywhere
 * else the entry points answer false and the generic loops run.
 *
 * Exactness. Each element is computed as in kernels/scalar_ops.h: the
 * operands widened to float32 (F16C's widening is exact and quiets a NaN
 * as tsr__f16_to_f32 does; bfloat16 is the top half of a float32), one
 * float32 operation, one rounding back. VCVTPS2PH rounds to nearest even
 * exactly as tsr__f32_to_f16 does for every non-NaN value (subnormals
 * included: it ignores MXCSR.FTZ); its NaNs (s|7E00 with the top payload
 * bits) are tsr_cast_buffer's, and an operation's NaN lanes are patched
 * to c10::Half's s|7E00. bfloat16 rounding is the integer formula of
 * tsr__f32_to_bf16, lane by lane, with an operation's NaN 7FC0 and a
 * conversion's FFFF. The last elements of a row that do not fill a
 * vector go through the same lanes from a padded copy; those of a
 * conversion take the scalar functions of core/convert_scalar.h. */
#include "kernels/cpu_fast.h"

#include <stdatomic.h>
#include <string.h>

#include "kernels/scalar_ops.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FAST_X86 1
#include <cpuid.h>
#include <immintrin.h>
#define TARGET_AVX2 __attribute__((target("avx2,f16c")))
#else
#define FAST_X86 0
#endif

static atomic_bool fast_on = true;

void tsr__cpu_fast_enable(bool on)
{
    atomic_store_explicit(&fast_on, on, memory_order_relaxed);
}

bool tsr__cpu_fast_enabled(void)
{
    return atomic_load_explicit(&fast_on, memory_order_relaxed);
}

/* ---- which operations the loops compute -------------------------------------- */

enum { FAST_NONE = -1, FAST_ALPHA = -2, FAST_MUL = TSR__FAST_MUL, FAST_DIV = TSR__FAST_DIV };

int tsr__cpu_fast_op_of(tsr__kernel_op op, tsr_dtype common, const uint8_t alpha[16])
{
    static const signed char fast_of[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    [TSR__KOP_##ENUM] = FAST_##fast,
#include "core/ops.def"
#undef X
    };
    if ((unsigned)op >= TSR__KOP_COUNT || op == 0)
        return -1;
    if (fast_of[op] != FAST_ALPHA)
        return fast_of[op];
    double a;
    if (common == TSR_FLOAT64) {
        memcpy(&a, alpha, sizeof a);
    } else {
        float f;
        memcpy(&f, alpha, sizeof f);
        a = f;
    }
    return a == 1 ? TSR__FAST_ADD : a == -1 ? TSR__FAST_SUB : -1;
}

/* ---- one element ------------------------------------------------------------ */

/* Where two NaNs meet, x86 returns its first source, quieted, and the
 * generic loops (and PyTorch's float16/bfloat16 loops) have the first
 * input there. C does not fix which operand of + and * a compiler puts
 * first (nor do the intrinsics, which GCC writes as vector arithmetic),
 * so the loops below say it: a NaN first input gives itself, quieted;
 * otherwise at most one NaN takes part, and the order is immaterial. */
#define APPLY(op, x, y)                  \
    ((op) == TSR__FAST_ADD   ? (x) + (y) \
     : (op) == TSR__FAST_SUB ? (x) - (y) \
     : (op) == TSR__FAST_MUL ? (x) * (y) \
                             : (x) / (y))

/* ---- a scalar first input: float32, float64 ---------------------------------- */

/* o[i] = x op b[i]: a NaN x makes the whole row x, quieted; any other x
 * leaves b[i] the only possible NaN, and a plain loop the compiler
 * vectorises gives the generic loop's bits. One function per operation,
 * so that the loop has nothing else in it. */
#define QUIET_NAN(name, T, U, QUIET)         \
    static inline T name(T x) /* x, a NaN */ \
    {                                        \
        U bits;                              \
        memcpy(&bits, &x, sizeof bits);      \
        bits |= QUIET;                       \
        memcpy(&x, &bits, sizeof x);         \
        return x;                            \
    }
QUIET_NAN(quiet_f32, float, uint32_t, 0x00400000u)
QUIET_NAN(quiet_f64, double, uint64_t, UINT64_C(0x0008000000000000))
#undef QUIET_NAN

#define SCALAR_FIRST(name, T, QUIETEN, OP)             \
    static void name(T *o, T x, const T *b, int64_t n) \
    {                                                  \
        if (x != x) {                                  \
            x = QUIETEN(x);                            \
            for (int64_t i = 0; i < n; i++)            \
                o[i] = x;                              \
            return;                                    \
        }                                              \
        for (int64_t i = 0; i < n; i++)                \
            o[i] = APPLY(OP, x, b[i]);                 \
    }
#define SCALAR_FIRSTS(type, T)                                                           \
    SCALAR_FIRST(add_first_##type, T, quiet_##type, TSR__FAST_ADD)                       \
    SCALAR_FIRST(sub_first_##type, T, quiet_##type, TSR__FAST_SUB)                       \
    SCALAR_FIRST(mul_first_##type, T, quiet_##type, TSR__FAST_MUL)                       \
    SCALAR_FIRST(div_first_##type, T, quiet_##type, TSR__FAST_DIV)                       \
    static void (*const first_##type[4])(T *, T, const T *,                              \
                                         int64_t) = {[TSR__FAST_ADD] = add_first_##type, \
                                                     [TSR__FAST_SUB] = sub_first_##type, \
                                                     [TSR__FAST_MUL] = mul_first_##type, \
                                                     [TSR__FAST_DIV] = div_first_##type};

SCALAR_FIRSTS(f32, float)
SCALAR_FIRSTS(f64, double)

/* Rows of x op y stored around the caches as they are computed: where
 * the output is most of the traffic (a broadcast's rows, a tensor and a
 * number, the rows of packed tiles), computing it into a buffer first
 * and copying that out costs a second pass. Each input is contiguous or
 * one element. Where two NaNs meet, the first input's comes out, quieted
 * (see APPLY): the vector operation may give either, so the lanes where
 * x is a NaN take x's quieted bits. */
#if FAST_X86
#define STREAM_OP(name, T, QUIETEN, V, LANES, SET1, SET1_BITS, LOADU, STREAM, ADD, SUB, MUL, DIV, \
                  UNORD, AND, ANDNOT, OR)                                                         \
    static inline V name##_lanes(tsr__cpu_fast_op op, V x, V y)                                   \
    {                                                                                             \
        V r = op == TSR__FAST_ADD   ? ADD(x, y)                                                   \
              : op == TSR__FAST_SUB ? SUB(x, y)                                                   \
              : op == TSR__FAST_MUL ? MUL(x, y)                                                   \
                                    : DIV(x, y);                                                  \
        V nan = UNORD(x, x);                                                                      \
        return OR(AND(nan, OR(x, SET1_BITS)), ANDNOT(nan, r));                                    \
    }                                                                                             \
    static T name##_one(tsr__cpu_fast_op op, T x, T y)                                            \
    {                                                                                             \
        return x != x ? QUIETEN(x) : APPLY(op, x, y);                                             \
    }                                                                                             \
    static inline __attribute__((always_inline)) void name##_body(                                \
        tsr__cpu_fast_op op, T *o, const T *a, int64_t sa, const T *b, int64_t sb, int64_t n)     \
    {                                                                                             \
        int64_t i = 0;                                                                            \
        for (; i < n && (uintptr_t)(o + i) % 64; i++)                                             \
            o[i] = name##_one(op, a[i * sa], b[i * sb]);                                          \
        V xs = SET1(a[0]), ys = SET1(b[0]);                                                       \
        for (; i + 4 * LANES <= n; i += 4 * LANES) {                                              \
            V r[4];                                                                               \
            for (int k = 0; k < 4; k++) {                                                         \
                int64_t at = i + k * LANES;                                                       \
                r[k] = name##_lanes(op, sa ? LOADU(a + at) : xs, sb ? LOADU(b + at) : ys);        \
            }                                                                                     \
            for (int k = 0; k < 4; k++)                                                           \
                STREAM(o + i + k * LANES, r[k]);                                                  \
        }                                                                                         \
        for (; i < n; i++)                                                                        \
            o[i] = name##_one(op, a[i * sa], b[i * sb]);                                          \
    }                                                                                             \
    /* One loop per operation and layout, each with nothing else in it. */                        \
    static void name(tsr__cpu_fast_op op, T *o, const T *a, int64_t sa, const T *b, int64_t sb,   \
                     int64_t n)                                                                   \
    {                                                                                             \
        switch ((int)op * 4 + (int)(sa + 2 * sb)) {                                               \
            STREAM_CASES(name, TSR__FAST_ADD)                                                     \
            STREAM_CASES(name, TSR__FAST_SUB)                                                     \
            STREAM_CASES(name, TSR__FAST_MUL)                                                     \
            STREAM_CASES(name, TSR__FAST_DIV)                                                     \
        }                                                                                         \
    }
#define STREAM_CASES(name, OP)             \
    case OP * 4 + 1:                       \
        name##_body(OP, o, a, 1, b, 0, n); \
        break;                             \
    case OP * 4 + 2:                       \
        name##_body(OP, o, a, 0, b, 1, n); \
        break;                             \
    case OP * 4 + 3:                       \
        name##_body(OP, o, a, 1, b, 1, n); \
        break;
STREAM_OP(stream_op_f32, float, quiet_f32, __m128, 4, _mm_set1_ps,
          _mm_castsi128_ps(_mm_set1_epi32(0x00400000)), _mm_loadu_ps, _mm_stream_ps, _mm_add_ps,
          _mm_sub_ps, _mm_mul_ps, _mm_div_ps, _mm_cmpunord_ps, _mm_and_ps, _mm_andnot_ps, _mm_or_ps)
STREAM_OP(stream_op_f64, double, quiet_f64, __m128d, 2, _mm_set1_pd,
          _mm_castsi128_pd(_mm_set1_epi64x(INT64_C(0x0008000000000000))), _mm_loadu_pd,
          _mm_stream_pd, _mm_add_pd, _mm_sub_pd, _mm_mul_pd, _mm_div_pd, _mm_cmpunord_pd,
          _mm_and_pd, _mm_andnot_pd, _mm_or_pd)
#undef STREAM_OP
#undef STREAM_CASES
#endif

bool tsr__cpu_fast_stream_op(tsr_dtype dtype, tsr__cpu_fast_op op, void *o, const void *a,
                             int64_t sa, const void *b, int64_t sb, int64_t n)
{
#if FAST_X86
    if (!tsr__cpu_fast_enabled() || (unsigned)op > TSR__FAST_DIV || (sa | sb) != 1 ||
        (sa & ~INT64_C(1)) || (sb & ~INT64_C(1)))
        return false;
    if (dtype == TSR_FLOAT32)
        stream_op_f32(op, o, a, sa, b, sb, n);
    else if (dtype == TSR_FLOAT64)
        stream_op_f64(op, o, a, sa, b, sb, n);
    else
        return false;
    return true;
#else
    (void)dtype, (void)op, (void)o, (void)a, (void)sa, (void)b, (void)sb, (void)n;
    return false;
#endif
}

bool tsr__cpu_fast_scalar_first(tsr_dtype dtype, tsr__cpu_fast_op op, void *o, const void *x,
                                const void *b, int64_t n)
{
    if (!tsr__cpu_fast_enabled() || (unsigned)op > TSR__FAST_DIV)
        return false;
    if (dtype == TSR_FLOAT32) {
        float v;
        memcpy(&v, x, sizeof v);
        first_f32[op](o, v, b, n);
    } else if (dtype == TSR_FLOAT64) {
        double v;
        memcpy(&v, x, sizeof v);
        first_f64[op](o, v, b, n);
    } else {
        return false;
    }
    return true;
}

#if FAST_X86

static bool have_avx2(void)
{
    static atomic_int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        /* F16C by CPUID (not every compiler's builtin knows the name);
         * the AVX2 test includes the operating system's YMM support. */
        unsigned eax, ebx, ecx = 0, edx;
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
            (ecx & bit_F16C) != 0;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v != 0;
}

/* AVX2, F16C and FMA: what cpu_unary.c is compiled for. */
static bool have_avx2_fma(void)
{
    static atomic_int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        __builtin_cpu_init();
        v = have_avx2() && __builtin_cpu_supports("fma");
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v != 0;
}

/* ---- eight lanes: loads, stores, the operation ---------------------------- */

TARGET_AVX2 static inline __m256 load_f16(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

/* Rounds to float16 as tsr_cast_buffer does (VCVTPS2PH's NaNs: s|7E00
 * with the top payload bits). */
TARGET_AVX2 static inline __m128i cast_f16(__m256 r)
{
    return _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Rounds an operation's result to float16: NaN lanes become s|7E00
 * (c10::Half's constructor). */
TARGET_AVX2 static inline __m128i result_f16(__m256 r)
{
    __m128i h = cast_f16(r);
    __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    if (_mm256_testz_ps(nan, nan))
        return h;
    __m256i bits = _mm256_castps_si256(r);
    __m256i quiet =
        _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x8000)),
                        _mm256_set1_epi32(0x7E00));
    __m256i m = _mm256_castps_si256(nan);
    __m128i q16 =
        _mm_packus_epi32(_mm256_castsi256_si128(quiet), _mm256_extracti128_si256(quiet, 1));
    __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    return _mm_blendv_epi8(h, q16, m16);
}

TARGET_AVX2 static inline __m256 load_bf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

/* The bfloat16 code of each float32 lane, in the low half of the lane:
 * tsr__f32_to_bf16's RNE on the bits, NaN lanes `nan_code` (7FC0 for an
 * operation's result, FFFF for tsr_cast_buffer's). */
TARGET_AVX2 static inline __m256i code_bf16(__m256 r, int nan_code)
{
    __m256i t = _mm256_castps_si256(r);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(t, 16), _mm256_set1_epi32(1));
    __m256i c = _mm256_add_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(0x7FFF)), odd);
    c = _mm256_srli_epi32(c, 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(t, _mm256_set1_epi32(0x7FFFFFFF)),
                                     _mm256_set1_epi32(0x7F800000));
    return _mm256_blendv_epi8(c, _mm256_set1_epi32(nan_code), nan);
}

TARGET_AVX2 static inline __m128i pack_bf16(__m256 r, int nan_code)
{
    __m256i c = code_bf16(r, nan_code);
    return _mm_packus_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
}

TARGET_AVX2 static inline __m128i result_bf16(__m256 r)
{
    return pack_bf16(r, 0x7FC0);
}

TARGET_AVX2 static inline __m128i cast_bf16(__m256 r)
{
    return pack_bf16(r, 0xFFFF);
}

/* x op y in eight lanes, whichever NaN comes out where two meet. */
TARGET_AVX2 static inline __m256 any_nan_op(tsr__cpu_fast_op op, __m256 x, __m256 y)
{
    return APPLY(op, x, y); /* vector arithmetic, as the intrinsics are written */
}

/* x op y in eight lanes, with the first input's NaN where it has one
 * (see APPLY). */
TARGET_AVX2 static inline __m256 vector_op(tsr__cpu_fast_op op, __m256 x, __m256 y)
{
    __m256 r = any_nan_op(op, x, y);
    __m256 x_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    __m256 x_quiet = _mm256_or_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    return _mm256_blendv_ps(r, x_quiet, x_nan);
}

/* Sixteen contiguous elements at a time, two vectors in flight. float16
 * keeps the first NaN (its result keeps the sign); every bfloat16 NaN
 * result is 7FC0, so which one comes out does not matter there, and the
 * sixteen bfloat16 inputs are spread into two float32 vectors by one
 * unpack each (elements 0-3 and 8-11, 4-7 and 12-15), which the final
 * pack puts back in order. */
TARGET_AVX2 static inline void step16_f16(tsr__cpu_fast_op op, uint16_t *o, const uint16_t *a,
                                          const uint16_t *b)
{
    __m256 r0 = vector_op(op, load_f16(a), load_f16(b));
    __m256 r1 = vector_op(op, load_f16(a + 8), load_f16(b + 8));
    _mm_storeu_si128((__m128i *)o, result_f16(r0));
    _mm_storeu_si128((__m128i *)(o + 8), result_f16(r1));
}

TARGET_AVX2 static inline void step16_bf16(tsr__cpu_fast_op op, uint16_t *o, const uint16_t *a,
                                           const uint16_t *b)
{
    __m256i va = _mm256_loadu_si256((const __m256i *)a);
    __m256i vb = _mm256_loadu_si256((const __m256i *)b);
    __m256i zero = _mm256_setzero_si256();
    __m256 r0 = any_nan_op(op, _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, va)),
                           _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, vb)));
    __m256 r1 = any_nan_op(op, _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, va)),
                           _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, vb)));
    _mm256_storeu_si256((__m256i *)o,
                        _mm256_packus_epi32(code_bf16(r0, 0x7FC0), code_bf16(r1, 0x7FC0)));
}

/* The contiguous loops ask for their inputs 2 KiB ahead of use:
 * measured, the hardware alone keeps too few lines in flight for loops
 * that spend a while on each vector. A prefetch never faults, past the
 * end of a buffer included; the address is formed as an integer. */
static inline void prefetch_ahead(const uint16_t *p)
{
    _mm_prefetch((const char *)((uintptr_t)p + 2048), _MM_HINT_T0);
}

/* One loop per (dtype, operation); the layout cases are unswitched by
 * hand. The last n % 8 elements go through the same lanes from a padded
 * copy, so that every element is computed the same way. */
#define REDUCED_ROW(name, OP, LOAD, PACK, IN, STEP16)                                           \
    TARGET_AVX2 static void name(uint16_t *o, const uint16_t *a, int64_t sa, const uint16_t *b, \
                                 int64_t sb, int64_t n)                                         \
    {                                                                                           \
        int64_t i = 0;                                                                          \
        if (n <= 0)                                                                             \
            return;                                                                             \
        __m256 x = _mm256_set1_ps(IN(a[0])), y = _mm256_set1_ps(IN(b[0]));                      \
        if (sa && sb) {                                                                         \
            for (; i + 16 <= n; i += 16) {                                                      \
                prefetch_ahead(a + i);                                                          \
                prefetch_ahead(b + i);                                                          \
                STEP16(OP, o + i, a + i, b + i);                                                \
            }                                                                                   \
            for (; i + 8 <= n; i += 8)                                                          \
                _mm_storeu_si128((__m128i *)(o + i),                                            \
                                 PACK(vector_op(OP, LOAD(a + i), LOAD(b + i))));                \
        } else if (sa) {                                                                        \
            for (; i + 8 <= n; i += 8)                                                          \
                _mm_storeu_si128((__m128i *)(o + i), PACK(vector_op(OP, LOAD(a + i), y)));      \
        } else if (sb) {                                                                        \
            for (; i + 8 <= n; i += 8)                                                          \
                _mm_storeu_si128((__m128i *)(o + i), PACK(vector_op(OP, x, LOAD(b + i))));      \
        } else {                                                                                \
            const __m128i v = PACK(vector_op(OP, x, y));                                        \
            for (; i + 8 <= n; i += 8)                                                          \
                _mm_storeu_si128((__m128i *)(o + i), v);                                        \
        }                                                                                       \
        if (i < n) {                                                                            \
            uint16_t ta[8] = {0}, tb[8] = {0}, to[8];                                           \
            memcpy(ta, a + i * sa, (size_t)(sa ? n - i : 1) * 2);                               \
            memcpy(tb, b + i * sb, (size_t)(sb ? n - i : 1) * 2);                               \
            __m256 tx = sa ? LOAD(ta) : x, ty = sb ? LOAD(tb) : y;                              \
            _mm_storeu_si128((__m128i *)to, PACK(vector_op(OP, tx, ty)));                       \
            memcpy(o + i, to, (size_t)(n - i) * 2);                                             \
        }                                                                                       \
    }

#define REDUCED_ROWS(type, LOAD, PACK, IN)                                                       \
    REDUCED_ROW(add_##type, TSR__FAST_ADD, LOAD, PACK, IN, step16_##type)                        \
    REDUCED_ROW(sub_##type, TSR__FAST_SUB, LOAD, PACK, IN, step16_##type)                        \
    REDUCED_ROW(mul_##type, TSR__FAST_MUL, LOAD, PACK, IN, step16_##type)                        \
    REDUCED_ROW(div_##type, TSR__FAST_DIV, LOAD, PACK, IN, step16_##type)                        \
    static void (*const type##_rows[4])(uint16_t *, const uint16_t *, int64_t, const uint16_t *, \
                                        int64_t, int64_t) = {[TSR__FAST_ADD] = add_##type,       \
                                                             [TSR__FAST_SUB] = sub_##type,       \
                                                             [TSR__FAST_MUL] = mul_##type,       \
                                                             [TSR__FAST_DIV] = div_##type};

REDUCED_ROWS(f16, load_f16, result_f16, tsr__k_f16_in)
REDUCED_ROWS(bf16, load_bf16, result_bf16, tsr__k_bf16_in)

bool tsr__cpu_fast_reduced(tsr_dtype dtype, tsr__cpu_fast_op op, uint16_t *o, const uint16_t *a,
                           int64_t sa, const uint16_t *b, int64_t sb, int64_t n)
{
    if (!tsr__cpu_fast_enabled() || !have_avx2() || (unsigned)op > TSR__FAST_DIV ||
        (sa != 0 && sa != 1) || (sb != 0 && sb != 1))
        return false;
    if (dtype == TSR_FLOAT16)
        f16_rows[op](o, a, sa, b, sb, n);
    else if (dtype == TSR_BFLOAT16)
        bf16_rows[op](o, a, sa, b, sb, n);
    else
        return false;
    return true;
}

/* ---- float32 comparisons into bools, where from a bool -------------------- */

/* Thirty-two lanes of all-ones or zero (four vectors of eight) as 32
 * bytes of 1 or 0, in order: the two packs work within each 128-bit
 * half, and the permute puts the halves' 4-byte groups back in order. */
TARGET_AVX2 static inline __m256i bytes_of(__m256 m0, __m256 m1, __m256 m2, __m256 m3)
{
    __m256i w01 = _mm256_packs_epi32(_mm256_castps_si256(m0), _mm256_castps_si256(m1));
    __m256i w23 = _mm256_packs_epi32(_mm256_castps_si256(m2), _mm256_castps_si256(m3));
    __m256i b = _mm256_packs_epi16(w01, w23);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    return _mm256_and_si256(b, _mm256_set1_epi8(1));
}

/* One loop per predicate (an immediate of VCMPPS: the ordered ones are
 * false for a NaN, as C's <, <=, >, >= and == are; NEQ_UQ is true, as
 * != is), unswitched by hand on which input is a scalar and on whether
 * the stores go around the caches (those from the first 32-byte boundary
 * of the output on). The elements outside the vectors take C's operator,
 * which is the same comparison. */
#define COMPARE_LOAD(p, s, i, splat) ((s) ? _mm256_loadu_ps((p) + (i)) : (splat))
#define COMPARE_LOOP(PRED, sa, sb, STORE)                                                        \
    for (; i + 32 <= n; i += 32) {                                                               \
        __m256 m0 = _mm256_cmp_ps(COMPARE_LOAD(a, sa, i, x), COMPARE_LOAD(b, sb, i, y), PRED);   \
        __m256 m1 =                                                                              \
            _mm256_cmp_ps(COMPARE_LOAD(a, sa, i + 8, x), COMPARE_LOAD(b, sb, i + 8, y), PRED);   \
        __m256 m2 =                                                                              \
            _mm256_cmp_ps(COMPARE_LOAD(a, sa, i + 16, x), COMPARE_LOAD(b, sb, i + 16, y), PRED); \
        __m256 m3 =                                                                              \
            _mm256_cmp_ps(COMPARE_LOAD(a, sa, i + 24, x), COMPARE_LOAD(b, sb, i + 24, y), PRED); \
        STORE((__m256i *)(o + i), bytes_of(m0, m1, m2, m3));                                     \
    }
#define COMPARE_LAYOUTS(PRED, STORE)    \
    if (sa && sb)                       \
        COMPARE_LOOP(PRED, 1, 1, STORE) \
    else if (sa)                        \
        COMPARE_LOOP(PRED, 1, 0, STORE) \
    else if (sb)                        \
    COMPARE_LOOP(PRED, 0, 1, STORE)
#define COMPARE_ROW(name, PRED, OP)                                                      \
    TARGET_AVX2 static void name(uint8_t *o, const float *a, int64_t sa, const float *b, \
                                 int64_t sb, int64_t n, bool stream)                     \
    {                                                                                    \
        int64_t i = 0;                                                                   \
        if (n <= 0)                                                                      \
            return;                                                                      \
        const __m256 x = _mm256_set1_ps(a[0]), y = _mm256_set1_ps(b[0]);                 \
        if (stream) {                                                                    \
            for (; i < n && (uintptr_t)(o + i) % 32 != 0; i++)                           \
                o[i] = a[i * sa] OP b[i * sb];                                           \
            COMPARE_LAYOUTS(PRED, _mm256_stream_si256)                                   \
        } else {                                                                         \
            COMPARE_LAYOUTS(PRED, _mm256_storeu_si256)                                   \
        }                                                                                \
        for (; i < n; i++)                                                               \
            o[i] = a[i * sa] OP b[i * sb];                                               \
    }

COMPARE_ROW(eq_f32, _CMP_EQ_OQ, ==)
COMPARE_ROW(ne_f32, _CMP_NEQ_UQ, !=)
COMPARE_ROW(lt_f32, _CMP_LT_OQ, <)
COMPARE_ROW(le_f32, _CMP_LE_OQ, <=)
COMPARE_ROW(gt_f32, _CMP_GT_OQ, >)
COMPARE_ROW(ge_f32, _CMP_GE_OQ, >=)

/* c[i] != 0 picks a[i], else b[i]: a blend moves the bits as they are.
 * Streamed, from the output's first 32-byte boundary on. */
#define WHERE_LOOP(STORE)                                                                        \
    for (; i + 16 <= n; i += 16) {                                                               \
        __m128i cc = _mm_loadu_si128((const __m128i *)(c + i));                                  \
        __m256i c0 = _mm256_cvtepu8_epi32(cc), c1 = _mm256_cvtepu8_epi32(_mm_srli_si128(cc, 8)); \
        __m256 f0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(c0, zero));                           \
        __m256 f1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(c1, zero));                           \
        STORE(o + i, _mm256_blendv_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), f0));      \
        STORE(o + i + 8,                                                                         \
              _mm256_blendv_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), f1));     \
    }
TARGET_AVX2 static void where_f32(float *o, const uint8_t *c, const float *a, const float *b,
                                  int64_t n, bool stream)
{
    int64_t i = 0;
    const __m256i zero = _mm256_setzero_si256();
    if (stream) {
        for (; i < n && (uintptr_t)(o + i) % 32 != 0; i++)
            memcpy(o + i, c[i] != 0 ? a + i : b + i, sizeof(float));
        WHERE_LOOP(_mm256_stream_ps)
    } else {
        WHERE_LOOP(_mm256_storeu_ps)
    }
    for (; i < n; i++)
        memcpy(o + i, c[i] != 0 ? a + i : b + i, sizeof(float));
}

bool tsr__cpu_fast_compare(tsr__kernel_op op, tsr_dtype dtype, uint8_t *o, const void *a,
                           int64_t sa, const void *b, int64_t sb, int64_t n, bool stream)
{
    void (*row)(uint8_t *, const float *, int64_t, const float *, int64_t, int64_t, bool) =
        op == TSR__KOP_EQ   ? eq_f32
        : op == TSR__KOP_NE ? ne_f32
        : op == TSR__KOP_LT ? lt_f32
        : op == TSR__KOP_LE ? le_f32
        : op == TSR__KOP_GT ? gt_f32
        : op == TSR__KOP_GE ? ge_f32
                            : NULL;
    if (row == NULL || dtype != TSR_FLOAT32 || !tsr__cpu_fast_enabled() || !have_avx2() ||
        (sa != 0 && sa != 1) || (sb != 0 && sb != 1))
        return false;
    row(o, a, sa, b, sb, n, stream);
    return true;
}

bool tsr__cpu_fast_where(tsr_dtype dtype, void *o, const uint8_t *c, const void *a, const void *b,
                         int64_t n, bool stream)
{
    if (dtype != TSR_FLOAT32 || !tsr__cpu_fast_enabled() || !have_avx2())
        return false;
    where_f32(o, c, a, b, n, stream);
    return true;
}

/* ---- unary float32 rows stored around the caches ----------------------------- */

/* relu and abs in one pass, each vector stored around the caches as it
 * is computed (from the output's first 32-byte boundary on; the elements
 * outside the vectors take the generic element functions). relu's lanes
 * below zero become +0, every other lane (NaN, -0) stays as it is, as
 * x < 0 ? 0 : x has it; abs clears the sign bit, as fabsf does. */
TARGET_AVX2 static inline __m256 relu8(__m256 x)
{
    return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ), x);
}

TARGET_AVX2 static inline __m256 abs8(__m256 x)
{
    return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
}

#define STREAM_UNARY(name, LANES, ONE)                                \
    TARGET_AVX2 static void name(float *o, const float *a, int64_t n) \
    {                                                                 \
        int64_t i = 0;                                                \
        for (; i < n && (uintptr_t)(o + i) % 32 != 0; i++)            \
            o[i] = ONE(a[i]);                                         \
        for (; i + 32 <= n; i += 32) {                                \
            __m256 r0 = LANES(_mm256_loadu_ps(a + i));                \
            __m256 r1 = LANES(_mm256_loadu_ps(a + i + 8));            \
            __m256 r2 = LANES(_mm256_loadu_ps(a + i + 16));           \
            __m256 r3 = LANES(_mm256_loadu_ps(a + i + 24));           \
            _mm256_stream_ps(o + i, r0);                              \
            _mm256_stream_ps(o + i + 8, r1);                          \
            _mm256_stream_ps(o + i + 16, r2);                         \
            _mm256_stream_ps(o + i + 24, r3);                         \
        }                                                             \
        for (; i < n; i++)                                            \
            o[i] = ONE(a[i]);                                         \
    }

STREAM_UNARY(stream_relu_f32, relu8, tsr__k_relu_f32)
STREAM_UNARY(stream_abs_f32, abs8, tsr__k_abs_f32)

bool tsr__cpu_fast_stream_unary(tsr__kernel_op op, tsr_dtype dtype, void *o, const void *a,
                                int64_t n)
{
    void (*row)(float *, const float *, int64_t) = op == TSR__KOP_RELU  ? stream_relu_f32
                                                   : op == TSR__KOP_ABS ? stream_abs_f32
                                                                        : NULL;
    if (dtype != TSR_FLOAT32 || !tsr__cpu_fast_enabled() || (unsigned)op >= TSR__KOP_COUNT)
        return false;
    if (row && have_avx2()) {
        row(o, a, n);
        return true;
    }
    /* The float32 vector rows store plainly here too (cpu_unary.c says
     * why). */
    tsr__cpu_unary_fn vector = tsr__cpu_unary_vector[op][2];
    if (vector && have_avx2_fma()) {
        vector(o, a, n);
        return true;
    }
    return false;
}

/* ---- conversions that need the vector units ------------------------------ */

TARGET_AVX2 static void f16_to_f32(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    float *d = dst;
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        _mm256_storeu_ps(d + k, load_f16(s + k));
    for (; k < n; k++)
        d[k] = tsr__k_f16_in(s[k]);
}

/* float32 -> float16 or bfloat16 with tsr_cast_buffer's NaNs (the
 * scalar encoders' `true` forms). */
#define NARROW(name, CAST, ENCODE)                                              \
    TARGET_AVX2 static void name(const void *src, void *dst, size_t n)          \
    {                                                                           \
        const float *s = src;                                                   \
        uint16_t *d = dst;                                                      \
        size_t k = 0;                                                           \
        for (; k + 8 <= n; k += 8)                                              \
            _mm_storeu_si128((__m128i *)(d + k), CAST(_mm256_loadu_ps(s + k))); \
        for (; k < n; k++)                                                      \
            d[k] = ENCODE(tsr__float_bits(s[k]), true);                         \
    }

NARROW(f32_to_f16, cast_f16, tsr__f32_to_f16)
NARROW(f32_to_bf16, cast_bf16, tsr__f32_to_bf16)

/* An 8 x 8 block of 4-byte elements: d[r][c] = s[c][r]. Shuffles move
 * bits and never look at them as numbers, so every NaN survives. */
TARGET_AVX2 static void transpose8_4(float *d, int64_t dr, const float *s, int64_t sr)
{
    __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + sr);
    __m256 r2 = _mm256_loadu_ps(s + 2 * sr), r3 = _mm256_loadu_ps(s + 3 * sr);
    __m256 r4 = _mm256_loadu_ps(s + 4 * sr), r5 = _mm256_loadu_ps(s + 5 * sr);
    __m256 r6 = _mm256_loadu_ps(s + 6 * sr), r7 = _mm256_loadu_ps(s + 7 * sr);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + dr, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * dr, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * dr, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * dr, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * dr, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * dr, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * dr, _mm256_permute2f128_ps(u3, u7, 0x31));
}

#else /* !FAST_X86 */

bool tsr__cpu_fast_stream_unary(tsr__kernel_op op, tsr_dtype dtype, void *o, const void *a,
                                int64_t n)
{
    (void)op, (void)dtype, (void)o, (void)a, (void)n;
    return false;
}

bool tsr__cpu_fast_compare(tsr__kernel_op op, tsr_dtype dtype, uint8_t *o, const void *a,
                           int64_t sa, const void *b, int64_t sb, int64_t n, bool stream)
{
    (void)op, (void)dtype, (void)o, (void)a, (void)sa, (void)b, (void)sb, (void)n, (void)stream;
    return false;
}

bool tsr__cpu_fast_where(tsr_dtype dtype, void *o, const uint8_t *c, const void *a, const void *b,
                         int64_t n, bool stream)
{
    (void)dtype, (void)o, (void)c, (void)a, (void)b, (void)n, (void)stream;
    return false;
}

bool tsr__cpu_fast_reduced(tsr_dtype dtype, tsr__cpu_fast_op op, uint16_t *o, const uint16_t *a,
                           int64_t sa, const uint16_t *b, int64_t sb, int64_t n)
{
    (void)dtype, (void)op, (void)o, (void)a, (void)sa, (void)b, (void)sb, (void)n;
    return false;
}

#endif /* FAST_X86 */

/* ---- conversions ---------------------------------------------------------- */

/* Plain loops the compiler vectorises: an integer's conversion to float32
 * or float64 rounds to nearest even, as tsr_cast_buffer's does through
 * int64 (the same real value, rounded once), and float32 -> float64 is
 * exact (a signalling NaN is quieted by the hardware either way). */
#define WIDEN(name, S, D)                                  \
    static void name(const void *src, void *dst, size_t n) \
    {                                                      \
        const S *s = src;                                  \
        D *d = dst;                                        \
        for (size_t k = 0; k < n; k++)                     \
            d[k] = (D)s[k];                                \
    }

WIDEN(u8_to_f32, uint8_t, float)
WIDEN(i8_to_f32, int8_t, float)
WIDEN(i16_to_f32, int16_t, float)
WIDEN(i32_to_f32, int32_t, float)
WIDEN(i64_to_f32, int64_t, float)
WIDEN(i32_to_f64, int32_t, double)
WIDEN(f32_to_f64, float, double)
/* and the integers to int64 (the reductions' sums and products) */
WIDEN(u8_to_i64, uint8_t, int64_t)
WIDEN(i8_to_i64, int8_t, int64_t)
WIDEN(i16_to_i64, int16_t, int64_t)
WIDEN(i32_to_i64, int32_t, int64_t)

static void bf16_to_f32(const void *src, void *dst, size_t n)
{
    const uint16_t *s = src;
    uint32_t *d = dst;
    for (size_t k = 0; k < n; k++)
        d[k] = (uint32_t)s[k] << 16;
}

/* bool to and from float32 and float64: 0 or 1 in, and a bool that is
 * true for every value but +-0 out (NaN included), as tsr__kernel_convert
 * makes them, from the bits (comparisons and where write and read bools
 * this way). */
#define FROM_BOOL(name, D)                                 \
    static void name(const void *src, void *dst, size_t n) \
    {                                                      \
        const uint8_t *s = src;                            \
        D *d = dst;                                        \
        for (size_t k = 0; k < n; k++)                     \
            d[k] = s[k] != 0 ? (D)1 : (D)0;                \
    }
#define TO_BOOL(name, U, ABS)                              \
    static void name(const void *src, void *dst, size_t n) \
    {                                                      \
        const U *s = src;                                  \
        uint8_t *d = dst;                                  \
        for (size_t k = 0; k < n; k++)                     \
            d[k] = (s[k] & (ABS)) != 0;                    \
    }

FROM_BOOL(b8_to_f32, float)
FROM_BOOL(b8_to_f64, double)
FROM_BOOL(b8_to_i64, int64_t)
TO_BOOL(f32_to_b8, uint32_t, 0x7FFFFFFFu)
TO_BOOL(f64_to_b8, uint64_t, 0x7FFFFFFFFFFFFFFFull)

static const struct conversion {
    tsr_dtype from, to;
    void (*fn)(const void *, void *, size_t);
    bool vector; /* needs AVX2 and F16C */
} conversions[] = {
    {TSR_UINT8, TSR_FLOAT32, u8_to_f32, false},     {TSR_INT8, TSR_FLOAT32, i8_to_f32, false},
    {TSR_INT16, TSR_FLOAT32, i16_to_f32, false},    {TSR_INT32, TSR_FLOAT32, i32_to_f32, false},
    {TSR_INT64, TSR_FLOAT32, i64_to_f32, false},    {TSR_INT32, TSR_FLOAT64, i32_to_f64, false},
    {TSR_FLOAT32, TSR_FLOAT64, f32_to_f64, false},  {TSR_BFLOAT16, TSR_FLOAT32, bf16_to_f32, false},
    {TSR_BOOL, TSR_FLOAT32, b8_to_f32, false},      {TSR_BOOL, TSR_FLOAT64, b8_to_f64, false},
    {TSR_UINT8, TSR_INT64, u8_to_i64, false},       {TSR_INT8, TSR_INT64, i8_to_i64, false},
    {TSR_INT16, TSR_INT64, i16_to_i64, false},      {TSR_INT32, TSR_INT64, i32_to_i64, false},
    {TSR_BOOL, TSR_INT64, b8_to_i64, false},        {TSR_FLOAT32, TSR_BOOL, f32_to_b8, false},
    {TSR_FLOAT64, TSR_BOOL, f64_to_b8, false},
#if FAST_X86
    {TSR_FLOAT16, TSR_FLOAT32, f16_to_f32, true},   {TSR_FLOAT32, TSR_FLOAT16, f32_to_f16, true},
    {TSR_FLOAT32, TSR_BFLOAT16, f32_to_bf16, true},
#endif
};

bool tsr__cpu_fast_convert(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                           size_t n)
{
    if (!tsr__cpu_fast_enabled())
        return false;
    for (size_t i = 0; i < sizeof conversions / sizeof conversions[0]; i++) {
        const struct conversion *c = &conversions[i];
        if (c->from != src_dtype || c->to != dst_dtype)
            continue;
#if FAST_X86
        if (c->vector && !have_avx2())
            return false;
#endif
        c->fn(src, dst, n);
        return true;
    }
    return false;
}

/* ---- int32 with float32 ----------------------------------------------------- */

/* The loops for one pair of input types: both rows, or one a scalar. An
 * int32 becomes the float32 nearest to it (ties to even), as
 * tsr__kernel_convert makes it; then one float32 operation. */
#define MIXED_LOOPS(TA, TB, OP)                                    \
    do {                                                           \
        const TA *pa = a;                                          \
        const TB *pb = b;                                          \
        if (sa && sb) {                                            \
            for (int64_t i = 0; i < n; i++)                        \
                o[i] = APPLY(OP, (float)pa[i], (float)pb[i]);      \
        } else if (sa) {                                           \
            const float y = (float)pb[0];                          \
            for (int64_t i = 0; i < n; i++)                        \
                o[i] = APPLY(OP, (float)pa[i], y);                 \
        } else if (sb) {                                           \
            const float x = (float)pa[0];                          \
            for (int64_t i = 0; i < n; i++)                        \
                o[i] = APPLY(OP, x, (float)pb[i]);                 \
        } else {                                                   \
            const float v = APPLY(OP, (float)pa[0], (float)pb[0]); \
            for (int64_t i = 0; i < n; i++)                        \
                o[i] = v;                                          \
        }                                                          \
    } while (0)

#define MIXED_FN(name, TA, TB, OP)                                                              \
    static void name(float *o, const void *a, int64_t sa, const void *b, int64_t sb, int64_t n) \
    {                                                                                           \
        MIXED_LOOPS(TA, TB, OP);                                                                \
    }
#define MIXED_FNS(suffix, TA, TB)                                                               \
    MIXED_FN(add_##suffix, TA, TB, TSR__FAST_ADD)                                               \
    MIXED_FN(sub_##suffix, TA, TB, TSR__FAST_SUB)                                               \
    MIXED_FN(mul_##suffix, TA, TB, TSR__FAST_MUL)                                               \
    MIXED_FN(div_##suffix, TA, TB, TSR__FAST_DIV)                                               \
    static void (*const suffix##_fns[4])(float *, const void *, int64_t, const void *, int64_t, \
                                         int64_t) = {[TSR__FAST_ADD] = add_##suffix,            \
                                                     [TSR__FAST_SUB] = sub_##suffix,            \
                                                     [TSR__FAST_MUL] = mul_##suffix,            \
                                                     [TSR__FAST_DIV] = div_##suffix};

MIXED_FNS(i32_f32, int32_t, float)
MIXED_FNS(f32_i32, float, int32_t)

bool tsr__cpu_fast_mixed(tsr__cpu_fast_op op, float *o, const void *a, tsr_dtype a_dtype,
                         int64_t sa, const void *b, tsr_dtype b_dtype, int64_t sb, int64_t n)
{
    if (!tsr__cpu_fast_enabled() || (unsigned)op > TSR__FAST_DIV || (sa != 0 && sa != 1) ||
        (sb != 0 && sb != 1))
        return false;
    if (a_dtype == TSR_INT32 && b_dtype == TSR_FLOAT32)
        i32_f32_fns[op](o, a, sa, b, sb, n);
    else if (a_dtype == TSR_FLOAT32 && b_dtype == TSR_INT32)
        f32_i32_fns[op](o, a, sa, b, sb, n);
    else
        return false;
    return true;
}

/* ---- unary rows (cpu_unary.c) --------------------------------------------- */

bool tsr__cpu_fast_unary(tsr__kernel_op op, tsr_dtype dtype, void *o, const void *a, int64_t n)
{
#if FAST_X86
    int family = dtype == TSR_FLOAT16    ? 0
                 : dtype == TSR_BFLOAT16 ? 1
                 : dtype == TSR_FLOAT32  ? 2
                 : dtype == TSR_FLOAT64  ? 3
                                         : -1;
    /* floor, ceil and trunc keep the generic loop: compiled for SSE4.1
     * they are ROUNDSS, which quiets a signalling NaN that the library's
     * functions return as it is. */
    if (family < 0 || (unsigned)op >= TSR__KOP_COUNT || op == TSR__KOP_FLOOR ||
        op == TSR__KOP_CEIL || op == TSR__KOP_TRUNC || !tsr__cpu_fast_enabled() || !have_avx2_fma())
        return false;
    tsr__cpu_unary_fn fn = tsr__cpu_unary_vector[op][family];
    if (fn == NULL)
        fn = tsr__cpu_unary_scalar[op][family];
    if (fn == NULL)
        return false;
    fn(o, a, n);
    return true;
#else
    (void)op, (void)dtype, (void)o, (void)a, (void)n;
    return false;
#endif
}

/* ---- transposed tiles ------------------------------------------------------ */

#define TRANSPOSE(T)                                       \
    do {                                                   \
        T *d_ = (T *)dst;                                  \
        const T *s_ = (const T *)src;                      \
        for (int64_t c = c0; c < cols; c++)                \
            for (int64_t r = 0; r < rows; r++)             \
                d_[r * dst_row + c] = s_[c * src_row + r]; \
        for (int64_t c = 0; c < c0; c++)                   \
            for (int64_t r = r0; r < rows; r++)            \
                d_[r * dst_row + c] = s_[c * src_row + r]; \
    } while (0)

typedef struct bytes16 {
    uint64_t lo, hi;
} bytes16;

void tsr__cpu_transpose(unsigned char *dst, int64_t dst_row, const unsigned char *src,
                        int64_t src_row, int64_t rows, int64_t cols, size_t width)
{
    /* [0, r0) x [0, c0) goes in 8 x 8 blocks where there are vector
     * units for it; the loops below do the rest. */
    int64_t r0 = 0, c0 = 0;
#if FAST_X86
    if (width == 4 && tsr__cpu_fast_enabled() && have_avx2()) {
        r0 = rows - rows % 8;
        c0 = cols - cols % 8;
        for (int64_t c = 0; c < c0; c += 8) {
            /* The next eight source rows are on their way meanwhile: each
             * is a short run, too short for the hardware to see coming. */
            for (int64_t k = c + 8; k < c + 16 && k < cols; k++)
                for (int64_t r = 0; r < rows; r += 16)
                    _mm_prefetch((const char *)((const float *)src + k * src_row + r), _MM_HINT_T0);
            for (int64_t r = 0; r < r0; r += 8)
                transpose8_4((float *)dst + r * dst_row + c, dst_row,
                             (const float *)src + c * src_row + r, src_row);
        }
    }
#endif
    switch (width) {
    case 1:
        TRANSPOSE(uint8_t);
        break;
    case 2:
        TRANSPOSE(uint16_t);
        break;
    case 4:
        TRANSPOSE(uint32_t);
        break;
    case 8:
        TRANSPOSE(uint64_t);
        break;
    default:
        TRANSPOSE(bytes16);
        break;
    }
}

/* ---- stores around the caches ------------------------------------------------ */

void tsr__cpu_prefetch(const unsigned char *p, size_t bytes)
{
#if FAST_X86
    for (size_t k = 0; k < bytes; k += 64)
        _mm_prefetch((const char *)(p + k), _MM_HINT_T0);
#else
    (void)p, (void)bytes;
#endif
}

static atomic_llong stream_threshold;

void tsr__cpu_stream_threshold_set(int64_t bytes)
{
    atomic_store_explicit(&stream_threshold, bytes, memory_order_relaxed);
}

int64_t tsr__cpu_stream_threshold(void)
{
    return atomic_load_explicit(&stream_threshold, memory_order_relaxed);
}

bool tsr__cpu_stream_available(void)
{
    return FAST_X86;
}

void tsr__cpu_stream_store(unsigned char *dst, const unsigned char *src, size_t bytes)
{
#if FAST_X86
    /* SSE2 is part of x86-64: no run-time check. Whole lines only, so
     * that the write-combining buffers go out full. */
    size_t head = (64 - (uintptr_t)dst % 64) % 64;
    head = head < bytes ? head : bytes;
    memcpy(dst, src, head);
    size_t k = head;
    for (; k + 64 <= bytes; k += 64) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(src + k));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(src + k + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(src + k + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(src + k + 48));
        _mm_stream_si128((__m128i *)(dst + k), v0);
        _mm_stream_si128((__m128i *)(dst + k + 16), v1);
        _mm_stream_si128((__m128i *)(dst + k + 32), v2);
        _mm_stream_si128((__m128i *)(dst + k + 48), v3);
    }
    memcpy(dst + k, src + k, bytes - k);
#else
    memcpy(dst, src, bytes);
#endif
}

void tsr__cpu_stream_fence(void)
{
#if FAST_X86
    _mm_sfence();
#endif
}
