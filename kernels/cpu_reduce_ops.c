/* The loops of every reduction combine in every family of math types
 * (cpu_reduce_ops.h), in kernels/reduce_order.h's order: 64-bit wrapping
 * integers (bool and the integers), float (float16, bfloat16, float32),
 * double, complex64 (complex32 only for an empty reduction's identity),
 * complex128. Each family loads elements of its common dtypes into its
 * math type and stores them back; each combine has its chunk (lanes and
 * their fold), its column rows and its argmax scan, the hot ones built
 * twice, for the baseline and for AVX2, from the same source. */
#include "kernels/cpu_reduce_ops.h"

#include <math.h>
#include <string.h>

#include "kernels/cpu_fast.h"
#include "kernels/scalar_ops.h"

/* ---- families: math type, load, store, divide ----------------------------- */

/* One loop per dtype, the dtype's switch outside it (a sum of int32 spent
 * most of its time in a switch and an itemsize call per element). */
#define LOAD_LOOP(T, IN)                              \
    do {                                              \
        for (int64_t i = 0; i < n; i++) {             \
            T v;                                      \
            memcpy(&v, src + i * sizeof v, sizeof v); \
            d[i] = IN(v);                             \
        }                                             \
    } while (0)

static void load_I(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    (void)skip_nan;
    uint64_t *d = dst;
    switch (common) {
    case TSR_BOOL:
        LOAD_LOOP(uint8_t, tsr__k_b8_in);
        break;
    case TSR_UINT8:
        LOAD_LOOP(uint8_t, tsr__k_u8_in);
        break;
    case TSR_INT8:
        LOAD_LOOP(uint8_t, tsr__k_i8_in);
        break;
    case TSR_INT16:
        LOAD_LOOP(uint16_t, tsr__k_i16_in);
        break;
    case TSR_INT32:
        LOAD_LOOP(uint32_t, tsr__k_i32_in);
        break;
    default:
        memcpy(d, src, (size_t)n * 8);
        break;
    }
    if (nonnan)
        *nonnan += n;
}

static void store_I(tsr_dtype common, const void *m, unsigned char *dst)
{
    uint64_t v = *(const uint64_t *)m;
    if (common == TSR_BOOL)
        dst[0] = tsr__k_b8_out(v);
    else
        memcpy(dst, &v, tsr_dtype_itemsize(common)); /* the low bytes (little endian) */
}

static void divide_I(tsr_dtype common, void *m, int64_t count)
{
    (void)common, (void)m, (void)count; /* mean never computes in integers */
}

/* nansum: NaN elements become 0 and leave the count (*nonnan). */
#define skip_nans(d, n, skip_nan, nonnan)        \
    do {                                         \
        int64_t ok_ = (n);                       \
        if (skip_nan)                            \
            for (int64_t i_ = 0; i_ < (n); i_++) \
                if ((d)[i_] != (d)[i_]) {        \
                    (d)[i_] = 0;                 \
                    ok_--;                       \
                }                                \
        if (nonnan)                              \
            *(nonnan) += ok_;                    \
    } while (0)

static void load_F(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    float *d = dst;
    if (common == TSR_FLOAT32)
        memcpy(d, src, (size_t)n * sizeof(float));
    else if (tsr__cpu_fast_convert(src, common, d, TSR_FLOAT32, (size_t)n))
        ; /* in vectors, the same bits */
    else if (common == TSR_FLOAT16)
        LOAD_LOOP(uint16_t, tsr__k_f16_in);
    else
        LOAD_LOOP(uint16_t, tsr__k_bf16_in);
    skip_nans(d, n, skip_nan, nonnan);
}

/* A NaN result is stored as the positive quiet NaN: which NaN an addition
 * of two NaNs keeps depends on the order of its operands in the machine
 * code (x86 keeps the first), which differs between builds and devices. */
static float quiet_f(float v)
{
    return v != v ? tsr__float_from_bits(0x7FC00000u) : v;
}
static double quiet_d(double v)
{
    uint64_t bits = UINT64_C(0x7FF8000000000000);
    if (v == v)
        return v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void store_F(tsr_dtype common, const void *m, unsigned char *dst)
{
    float v = quiet_f(*(const float *)m);
    uint16_t h;
    if (common == TSR_FLOAT32) {
        memcpy(dst, &v, 4);
        return;
    }
    h = common == TSR_FLOAT16 ? tsr__k_f16_out(v) : tsr__k_bf16_out(v);
    memcpy(dst, &h, 2);
}

/* The count as PyTorch's div_ sees it: converted to the dtype first. */
static float count_F(tsr_dtype common, int64_t count)
{
    float c = (float)count;
    if (common == TSR_FLOAT16)
        return tsr__k_f16_in(tsr__k_f16_out(c));
    if (common == TSR_BFLOAT16)
        return tsr__k_bf16_in(tsr__k_bf16_out(c));
    return c;
}

static void divide_F(tsr_dtype common, void *m, int64_t count)
{
    *(float *)m = *(float *)m / count_F(common, count);
}

static void load_D(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    (void)common;
    double *d = dst;
    memcpy(d, src, (size_t)n * sizeof(double));
    skip_nans(d, n, skip_nan, nonnan);
}

static void store_D(tsr_dtype common, const void *m, unsigned char *dst)
{
    (void)common;
    double v = quiet_d(*(const double *)m);
    memcpy(dst, &v, sizeof v);
}

static void divide_D(tsr_dtype common, void *m, int64_t count)
{
    (void)common;
    *(double *)m = *(double *)m / (double)count;
}

/* complex32 computes in complex64 (only the identity of an empty
 * reduction reaches it: PyTorch refuses complex32 before any element) */
static tsr__kc64 c32_value(const unsigned char *p)
{
    uint16_t re, im;
    memcpy(&re, p, 2);
    memcpy(&im, p + 2, 2);
    return tsr__k_c32_in(re, im);
}
static void c32_store(tsr__kc64 z, unsigned char *p)
{
    uint16_t re = tsr__k_f16_out(z.re), im = tsr__k_f16_out(z.im);
    memcpy(p, &re, 2);
    memcpy(p + 2, &im, 2);
}

#define COMPLEX_FAMILY(FAM, Z, T)                                                            \
    static void load_##FAM(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, \
                           bool skip_nan, int64_t *nonnan)                                   \
    {                                                                                        \
        (void)skip_nan;                                                                      \
        if (common == TSR_COMPLEX32)                                                         \
            for (int64_t i = 0; i < n; i++)                                                  \
                ((tsr__kc64 *)dst)[i] = c32_value(src + 4 * i);                              \
        else                                                                                 \
            memcpy(dst, src, (size_t)n * sizeof(Z));                                         \
        if (nonnan)                                                                          \
            *nonnan += n;                                                                    \
    }                                                                                        \
    static void store_##FAM(tsr_dtype common, const void *m, unsigned char *dst)             \
    {                                                                                        \
        Z z = *(const Z *)m;                                                                 \
        z = Z##_make(QUIET(z.re), QUIET(z.im));                                              \
        if (common == TSR_COMPLEX32)                                                         \
            c32_store(tsr__kc64_make((float)z.re, (float)z.im), dst);                        \
        else                                                                                 \
            memcpy(dst, &z, sizeof(Z));                                                      \
    }                                                                                        \
    static void divide_##FAM(tsr_dtype common, void *m, int64_t count)                       \
    {                                                                                        \
        (void)common;                                                                        \
        *(Z *)m = Z##_div(*(Z *)m, Z##_make((T)count, 0)); /* c10's complex quotient */      \
    }
#define QUIET quiet_f
COMPLEX_FAMILY(CF, tsr__kc64, float)
#undef QUIET
#define QUIET quiet_d
COMPLEX_FAMILY(CD, tsr__kc128, double)
#undef QUIET

/* ---- combines ------------------------------------------------------------- */

#define SUM_I(a, b) ((a) + (b)) /* uint64_t: wraps */
#define PROD_I(a, b) ((a) * (b))
#define MAX_I(a, b) ((int64_t)(b) > (int64_t)(a) ? (b) : (a))
#define MIN_I(a, b) ((int64_t)(b) < (int64_t)(a) ? (b) : (a))
#define ALL_I(a, b) ((a) & (b))
#define ANY_I(a, b) ((a) | (b))
#define BETTER_MAX_I(v, b) ((int64_t)(v) > (int64_t)(b))
#define BETTER_MIN_I(v, b) ((int64_t)(v) < (int64_t)(b))
#define PROD_R(a, b) ((a) * (b))
/* NaN propagates (the first one met); ties keep the earlier value. */
#define MAX_R(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) > (a) ? (b) : (a))
#define MIN_R(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) < (a) ? (b) : (a))
/* argmax: a NaN is the largest, the first of equals wins. */
#define BETTER_MAX_R(v, b) ((b) == (b) && ((v) != (v) || (v) > (b)))
#define BETTER_MIN_R(v, b) ((b) == (b) && ((v) != (v) || (v) < (b)))
#define SUM_CF(a, b) tsr__kc64_make((a).re + (b).re, (a).im + (b).im)
#define PROD_CF(a, b) tsr__kc64_mul(a, b)
#define SUM_CD(a, b) tsr__kc128_make((a).re + (b).re, (a).im + (b).im)
#define PROD_CD(a, b) tsr__kc128_mul(a, b)
#define NO_BETTER(v, b) ((void)(v), (void)(b), 0)
#define SAME(a) (a)

/* The hot loops are built twice: for the baseline and for AVX2 (picked at
 * run time). The same operations in the same order: no bit changes (no
 * fused multiply-add: contraction is off). */
/* the generic loops of an op that has vector ones too */
#define MAYBE_UNUSED __attribute__((unused))
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_CLONES 1
#define TARGET_AVX2 __attribute__((target("avx2")))
/* Only where the two-sums ask for FNMADDs: elsewhere GCC would
 * fuse a complex product's multiplications and additions (contraction
 * off or not), and the clones would part from the baseline. */
#define TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
#else
#define HAVE_AVX2_CLONES 0
#define TARGET_AVX2
#define TARGET_AVX2_FMA
#endif

/* A group of lanes' elements at p (LANES * size bytes): the cache lines
 * PREFETCH_BYTES further on asked for ahead of their turn. A read of one
 * thread meets the memory's latency at every page the hardware's
 * prefetchers have not followed yet; this keeps a few kilobytes in
 * flight (a float32 sum read about a fifth faster beside a plain read).
 * Asked for too close, the lines come no sooner and the requests crowd
 * the hardware's own: over 2^26 float32 on an AMD EPYC, against a plain
 * read in the same rounds (medians of fifteen), 2 KiB ahead 0.82-0.85,
 * none 0.89-0.91, 4 KiB 0.93, 8 KiB 0.95, 16 KiB 0.96. Never a fault,
 * whatever the address; no bit changes. */
#define PREFETCH_BYTES 8192
#define PREFETCH_LANES(p, size)                                                 \
    do {                                                                        \
        for (size_t pf_ = 0; pf_ < (size_t)LANES * (size); pf_ += 64)           \
            __builtin_prefetch((const char *)(p) + PREFETCH_BYTES + pf_, 0, 3); \
    } while (0)

/* The AVX2 two-sums (TSR__RED_TWO_SUM_ADD_BY) take their three
 * subtractions as FNMADD(a, 1, b): a times 1 is exact, so that is b - a
 * rounded once, the same bits. AMD's cores run additions and fused
 * multiply-adds on different units, and two-sums in additions alone kept
 * a float32 sum below the memory's speed there (an AMD EPYC, over 2^26
 * float32 with 16 lanes: 27 GB/s, 32 with the FNMADDs, 35-40 for a plain
 * read; 30 and 46 GB/s in the first-level cache). That left four
 * additions against three multiply-adds per vector; every other vector
 * (odd k) also adds its error as FMADD(r, 1, e) (TSR__RED_TWO_SUM_ADD_BY2),
 * seven and seven for two vectors: a float32 sum in the second-level
 * cache and the third 43-44 GB/s before, 45-46 after; over 2^26 float32,
 * 1.01-1.03 of before, the same memory read by both in turns. */

/* Steps 2 and 3 of the order over one chunk, result in *result. */
#define CHUNK_PLAIN(NAME, ATTR, X, IDENTITY, OP)                                \
    static ATTR MAYBE_UNUSED void NAME(const void *xv, int64_t n, void *result) \
    {                                                                           \
        const X *x = xv;                                                        \
        X lane[LANES];                                                          \
        for (int j = 0; j < LANES; j++)                                         \
            lane[j] = IDENTITY;                                                 \
        int64_t i = 0;                                                          \
        for (; i + LANES <= n; i += LANES)                                      \
            for (int j = 0; j < LANES; j++)                                     \
                lane[j] = OP(lane[j], x[i + j]);                                \
        for (int j = 0; i + j < n; j++)                                         \
            lane[j] = OP(lane[j], x[i + j]);                                    \
        TSR__RED_FOLD_LANES(lane, OP);                                          \
        *(X *)result = lane[0];                                                 \
    }
/* Two whole chunks (CHUNK elements each, x's into *rx and y's into *ry)
 * in one loop, each by the order as NAME's one-chunk loop takes it: the
 * same bits. The walks (cpu_reduce.c) give it chunks from two places in
 * memory far apart; read side by side, they kept more of the memory's
 * bandwidth busy than one place read after the other (float32 over 2^26
 * elements on an AMD EPYC, medians of 21 rounds against a plain read of
 * the same bytes in each: a sum 0.97-1.12 two at a time against 0.82-0.92
 * one at a time, two chunks taken in turns instead 0.69-0.88). The
 * hardware's prefetchers follow two such streams unaided: lines asked for
 * ahead as the one-chunk loops do (PREFETCH_LANES) slowed a float32 max
 * two at a time from 1.08-1.09 of the read to 0.91-0.99. */
#define CHUNK2_HEAD(NAME, ATTR, X)                                                         \
    static ATTR MAYBE_UNUSED void NAME(const void *xv, const void *yv, void *rx, void *ry) \
    {                                                                                      \
        const X *x = xv, *y = yv;
#define CHUNK_PLAIN2(NAME, ATTR, X, IDENTITY, OP) \
    CHUNK2_HEAD(NAME, ATTR, X)                    \
    X lx[LANES], ly[LANES];                       \
    for (int j = 0; j < LANES; j++)               \
        lx[j] = ly[j] = IDENTITY;                 \
    for (int64_t i = 0; i < CHUNK; i += LANES)    \
        for (int j = 0; j < LANES; j++) {         \
            lx[j] = OP(lx[j], x[i + j]);          \
            ly[j] = OP(ly[j], y[i + j]);          \
        }                                         \
    TSR__RED_FOLD_LANES(lx, OP);                  \
    TSR__RED_FOLD_LANES(ly, OP);                  \
    *(X *)rx = lx[0];                             \
    *(X *)ry = ly[0];                             \
    }
/* The same for compensated sums: the lanes' s and e parts apart. */
/* The same for compensated sums, the lanes' s and e parts in vectors
 * (GCC's and clang's vector extension: elementwise IEEE operations), so
 * that the compiler cannot miss the vectorisation. Lane j is element j % W of
 * vector j / W. */
#define CHUNK_PAIR(NAME, ATTR, T, VT, P, SUB, ADD)                           \
    static ATTR void NAME(const void *xv, int64_t n, void *result)           \
    {                                                                        \
        enum { W = sizeof(VT) / sizeof(T), K = LANES / W };                  \
        const T *x = xv;                                                     \
        VT sv[K], ev[K];                                                     \
        for (int k = 0; k < K; k++)                                          \
            sv[k] = ev[k] = (VT){0};                                         \
        int64_t i = 0;                                                       \
        for (; i + 2 * LANES <= n; i += 2 * LANES) {                         \
            PREFETCH_LANES(x + i, 2 * sizeof(T));                            \
            for (int k = 0; k < K; k++) {                                    \
                VT v, v2;                                                    \
                memcpy(&v, x + i + k * W, sizeof v);                         \
                memcpy(&v2, x + i + LANES + k * W, sizeof v2);               \
                v = v + v2;                                                  \
                if (k % 2)                                                   \
                    TSR__RED_TWO_SUM_ADD_BY2(sv[k], ev[k], v, VT, SUB, ADD); \
                else                                                         \
                    TSR__RED_TWO_SUM_ADD_BY(sv[k], ev[k], v, VT, SUB);       \
            }                                                                \
        }                                                                    \
        T s[LANES], e[LANES];                                                \
        memcpy(s, sv, sizeof s);                                             \
        memcpy(e, ev, sizeof e);                                             \
        for (int j = 0; j < LANES && i + j < n; j++)                         \
            TSR__RED_TWO_SUM_ADD(s[j], e[j], PAIR_AT(x, i + j, n), T);       \
        PAIR_FOLD(s, e, T, P, result);                                       \
    }
/* The element at x[q] of a chunk of n, q % (2 LANES) < LANES, with its
 * partner LANES on where there is one (kernels/reduce_order.h, step 2). */
#define PAIR_AT(x, q, n) ((q) + LANES < (n) ? (x)[q] + (x)[(q) + LANES] : (x)[q])
/* Step 3 for compensated lanes s[LANES], e[LANES] (T), into *result (P). */
#define PAIR_FOLD(s, e, T, P, result)                                            \
    do {                                                                         \
        for (int w_ = LANES / 2; w_ >= 1; w_ /= 2)                               \
            for (int j_ = 0; j_ < w_; j_++)                                      \
                TSR__RED_TWO_SUM_MERGE(s[j_], e[j_], s[j_ + w_], e[j_ + w_], T); \
        ((P *)(result))->s = s[0];                                               \
        ((P *)(result))->e = e[0];                                               \
    } while (0)
#define CHUNK_PAIR2(NAME, ATTR, T, VT, P, SUB, ADD)                      \
    CHUNK2_HEAD(NAME, ATTR, T)                                           \
    enum { W = sizeof(VT) / sizeof(T), K = LANES / W };                  \
    VT sx[K], ex[K], sy[K], ey[K];                                       \
    for (int k = 0; k < K; k++)                                          \
        sx[k] = ex[k] = sy[k] = ey[k] = (VT){0};                         \
    for (int64_t i = 0; i < CHUNK; i += 2 * LANES) {                     \
        for (int k = 0; k < K; k++) {                                    \
            VT u, v, u2, v2;                                             \
            memcpy(&u, x + i + k * W, sizeof u);                         \
            memcpy(&v, y + i + k * W, sizeof v);                         \
            memcpy(&u2, x + i + LANES + k * W, sizeof u2);               \
            memcpy(&v2, y + i + LANES + k * W, sizeof v2);               \
            u = u + u2;                                                  \
            v = v + v2;                                                  \
            if (k % 2) {                                                 \
                TSR__RED_TWO_SUM_ADD_BY2(sx[k], ex[k], u, VT, SUB, ADD); \
                TSR__RED_TWO_SUM_ADD_BY2(sy[k], ey[k], v, VT, SUB, ADD); \
            } else {                                                     \
                TSR__RED_TWO_SUM_ADD_BY(sx[k], ex[k], u, VT, SUB);       \
                TSR__RED_TWO_SUM_ADD_BY(sy[k], ey[k], v, VT, SUB);       \
            }                                                            \
        }                                                                \
    }                                                                    \
    T s[LANES], e[LANES];                                                \
    memcpy(s, sx, sizeof s);                                             \
    memcpy(e, ex, sizeof e);                                             \
    PAIR_FOLD(s, e, T, P, rx);                                           \
    memcpy(s, sy, sizeof s);                                             \
    memcpy(e, ey, sizeof e);                                             \
    PAIR_FOLD(s, e, T, P, ry);                                           \
    }
/* 16-byte vectors for the baseline (SSE2's registers: wider ones would be
 * taken apart element by element where they compare), 32-byte ones for
 * AVX2; lane j is element j % W of vector j / W either way. */
typedef float lanes_f __attribute__((vector_size(16)));
typedef double lanes_d __attribute__((vector_size(16)));
typedef float lanes2_f __attribute__((vector_size(32)));
typedef double lanes2_d __attribute__((vector_size(32)));
#if HAVE_AVX2_CLONES
/* b - a in one rounding, as -(a * 1) + b (the two-sums' SUB). */
TARGET_AVX2_FMA static inline lanes2_f sub2_f(lanes2_f a, lanes2_f b)
{
    return (lanes2_f)_mm256_fnmadd_ps((__m256)a, _mm256_set1_ps(1.0f), (__m256)b);
}
TARGET_AVX2_FMA static inline lanes2_d sub2_d(lanes2_d a, lanes2_d b)
{
    return (lanes2_d)_mm256_fnmadd_pd((__m256d)a, _mm256_set1_pd(1.0), (__m256d)b);
}
/* a + b in one rounding, as a * 1 + b (the two-sums' ADD). */
TARGET_AVX2_FMA static inline lanes2_f add2_f(lanes2_f a, lanes2_f b)
{
    return (lanes2_f)_mm256_fmadd_ps((__m256)a, _mm256_set1_ps(1.0f), (__m256)b);
}
TARGET_AVX2_FMA static inline lanes2_d add2_d(lanes2_d a, lanes2_d b)
{
    return (lanes2_d)_mm256_fmadd_pd((__m256d)a, _mm256_set1_pd(1.0), (__m256d)b);
}
/* STEP_FAST's picks: VMAXPS(v, acc) is v > acc ? v : acc, VMINPS
 * v < acc ? v : acc (the second operand where either is NaN). */
TARGET_AVX2 static inline lanes2_f pick2_max_f(lanes2_f v, lanes2_f acc)
{
    return (lanes2_f)_mm256_max_ps((__m256)v, (__m256)acc);
}
TARGET_AVX2 static inline lanes2_f pick2_min_f(lanes2_f v, lanes2_f acc)
{
    return (lanes2_f)_mm256_min_ps((__m256)v, (__m256)acc);
}
TARGET_AVX2 static inline lanes2_d pick2_max_d(lanes2_d v, lanes2_d acc)
{
    return (lanes2_d)_mm256_max_pd((__m256d)v, (__m256d)acc);
}
TARGET_AVX2 static inline lanes2_d pick2_min_d(lanes2_d v, lanes2_d acc)
{
    return (lanes2_d)_mm256_min_pd((__m256d)v, (__m256d)acc);
}
#else
#define sub2_f TSR__RED_SUB
#define sub2_d TSR__RED_SUB
#define add2_f TSR__RED_ADD
#define add2_d TSR__RED_ADD
#define pick2_max_f(v, acc) VPICK(lanes2_f, ilanes2_f, acc, v, >)
#define pick2_min_f(v, acc) VPICK(lanes2_f, ilanes2_f, acc, v, <)
#define pick2_max_d(v, acc) VPICK(lanes2_d, ilanes2_d, acc, v, >)
#define pick2_min_d(v, acc) VPICK(lanes2_d, ilanes2_d, acc, v, <)
#endif

/* The column walk: rows i = 0..n-1 of a chunk at p + i * stride, each
 * into lane i % LANES of a block of nc outputs; the lanes are [LANES][nc]
 * accumulators (pairs: all the s parts, then all the e parts). The rows
 * are taken a lane at a time: rows m, m + LANES, m + 2 LANES, ... (in
 * increasing order, as the lane adds them), then m + 1, ..., so that one
 * lane's row of accumulators (cpu_reduce.c's COL_BYTES / LANES: in the
 * second-level cache) takes all its rows before the next, where row after
 * row would read and write back a row of every lane in turn, all LANES of
 * them more than that cache holds (a float32 sum over dim 0 read at about
 * half the speed of a plain read so, even with all of them in it).
 * COL_GROUP rows of a lane go in at once, one after the other into each
 * accumulator as it is loaded, so that a lane's accumulators are read
 * and written once per COL_GROUP rows (a float32 sum over dim 0 of 8192
 * columns: 0.50-0.55 of a plain read a row at a time, 0.81-0.87 four at a
 * time, 0.45 eight at a time, whose streams and pointers outgrow the
 * registers and the prefetchers). The rows of a lane lie LANES rows
 * apart, which the hardware's prefetchers do not follow: the row
 * COL_AHEAD steps further in this walk (in the next lane near a lane's
 * end) is asked for a cache line at a time as the row's lines are read
 * (without it, 0.50-0.56 four at a time). No bit changes. */
#define COL_GROUP 4
_Static_assert(COL_GROUP % 2 == 0, "a pass starts at an even row of its lane");
#define COL_AHEAD 4
#define COL_LINE 64
/* The body once per pass of the walk, with G_ (a constant: COL_GROUP,
 * or 1 for a lane's last rows) rows x[0 .. G_) of lane j in increasing
 * order, and ahead[g] the row to ask for in place of x[g] (about
 * COL_AHEAD steps on where n is no multiple of LANES; x[g] itself past
 * the last). */
#define COL_PASS(G, ...)                                                        \
    do {                                                                        \
        enum { G_ = (G) };                                                      \
        const unsigned char *x[G_], *ahead[G_];                                 \
        for (int g_ = 0; g_ < G_; g_++) {                                       \
            int64_t r_ = i_ + (int64_t)g_ * LANES, a_ = r_ + LANES * COL_AHEAD; \
            if (a_ >= n)                                                        \
                a_ -= n16_ - 1;                                                 \
            x[g_] = p + r_ * stride;                                            \
            ahead[g_] = a_ >= 0 && a_ < n ? p + a_ * stride : x[g_];            \
        }                                                                       \
        __VA_ARGS__                                                             \
    } while (0)
#define COL_WALK(...)                                                                  \
    do {                                                                               \
        int64_t n16_ = (n + LANES - 1) / LANES * LANES;                                \
        for (int m_ = 0; m_ < LANES && m_ < n; m_++) {                                 \
            int j = m_;                                                                \
            int64_t i_ = m_;                                                           \
            for (; i_ + (int64_t)(COL_GROUP - 1) * LANES < n; i_ += COL_GROUP * LANES) \
                COL_PASS(COL_GROUP, __VA_ARGS__);                                      \
            for (; i_ + LANES < n; i_ += 2 * LANES)                                    \
                COL_PASS(2, __VA_ARGS__);                                              \
            if (i_ < n)                                                                \
                COL_PASS(1, __VA_ARGS__);                                              \
        }                                                                              \
    } while (0)
#define COL_ROWS_PLAIN(NAME, ATTR, X, OP)                                                      \
    static ATTR void NAME(void *lv, const unsigned char *p, int64_t stride, int64_t n, int nc) \
    {                                                                                          \
        enum { LINE = COL_LINE / sizeof(X) > 0 ? COL_LINE / sizeof(X) : 1 };                   \
        COL_WALK({                                                                             \
            X *l = (X *)lv + j * nc;                                                           \
            for (int c0 = 0; c0 < nc; c0 += LINE) {                                            \
                for (int g = 0; g < G_; g++)                                                   \
                    __builtin_prefetch(ahead[g] + c0 * (int64_t)sizeof(X), 0, 3);              \
                int ce = nc - c0 < LINE ? nc : c0 + LINE;                                      \
                for (int c = c0; c < ce; c++) {                                                \
                    X acc = l[c];                                                              \
                    for (int g = 0; g < G_; g++)                                               \
                        acc = OP(acc, ((const X *)x[g])[c]);                                   \
                    l[c] = acc;                                                                \
                }                                                                              \
            }                                                                                  \
        });                                                                                    \
    }
/* The pairs in vectors of VT (lane j's columns c .. c + W - 1 side by
 * side), the last nc % (a line) columns one at a time; a lane's rows two
 * at a time (kernels/reduce_order.h, step 2: COL_WALK's passes start at
 * an even row of the lane). */
#define COL_ROWS_PAIR(NAME, ATTR, T, VT, SUB)                                                  \
    static ATTR void NAME(void *lv, const unsigned char *p, int64_t stride, int64_t n, int nc) \
    {                                                                                          \
        enum { W = sizeof(VT) / sizeof(T), LINE = COL_LINE / sizeof(T) };                      \
        COL_WALK({                                                                             \
            T *s = (T *)lv + j * nc, *e = (T *)lv + (LANES + j) * nc;                          \
            int c = 0;                                                                         \
            for (; c + LINE <= nc; c += LINE) {                                                \
                for (int g = 0; g < G_; g++)                                                   \
                    __builtin_prefetch(ahead[g] + c * (int64_t)sizeof(T), 0, 3);               \
                for (int k = 0; k < LINE; k += W) {                                            \
                    VT sv, ev;                                                                 \
                    memcpy(&sv, s + c + k, sizeof sv);                                         \
                    memcpy(&ev, e + c + k, sizeof ev);                                         \
                    for (int g = 0; g < G_; g += 2) {                                          \
                        VT xv, x2;                                                             \
                        memcpy(&xv, (const T *)x[g] + c + k, sizeof xv);                       \
                        if (g + 1 < G_) {                                                      \
                            memcpy(&x2, (const T *)x[g + 1] + c + k, sizeof x2);               \
                            xv = xv + x2;                                                      \
                        }                                                                      \
                        TSR__RED_TWO_SUM_ADD_BY(sv, ev, xv, VT, SUB);                          \
                    }                                                                          \
                    memcpy(s + c + k, &sv, sizeof sv);                                         \
                    memcpy(e + c + k, &ev, sizeof ev);                                         \
                }                                                                              \
            }                                                                                  \
            for (; c < nc; c++)                                                                \
                for (int g = 0; g < G_; g += 2) {                                              \
                    T xc = ((const T *)x[g])[c];                                               \
                    if (g + 1 < G_)                                                            \
                        xc = xc + ((const T *)x[g + 1])[c];                                    \
                    TSR__RED_TWO_SUM_ADD(s[c], e[c], xc, T);                                   \
                }                                                                              \
        });                                                                                    \
    }

/* argmax and co over one chunk: elements v[0..n) at positions base..,
 * against *best found at *at (or from the first element when `first`):
 * the first of the best wins. */
#define SCAN_ONE(X, BETTER)                         \
    do {                                            \
        X b = first ? x[0] : *(X *)best;            \
        int64_t k = first ? base : *at;             \
        for (int64_t i = first ? 1 : 0; i < n; i++) \
            if (BETTER(x[i], b)) {                  \
                b = x[i];                           \
                k = base + i;                       \
            }                                       \
        *(X *)best = b;                             \
        *at = k;                                    \
    } while (0)
/* SCAN_VEC2's interface for the plain scans: one chunk, then the other. */
#define SCAN_PLAIN2(NAME, ATTR, X, BETTER)                                                   \
    static ATTR MAYBE_UNUSED void NAME(const void *xv, const void *yv, int64_t xbase,        \
                                       int64_t ybase, bool xfirst, bool yfirst, void *xbest, \
                                       int64_t *xat, void *ybest, int64_t *yat)              \
    {                                                                                        \
        const void *v = xv;                                                                  \
        int64_t n = CHUNK, base = xbase, *at = xat;                                          \
        bool first = xfirst;                                                                 \
        void *best = xbest;                                                                  \
        for (int s_ = 0; s_ < 2; s_++) {                                                     \
            const X *x = v;                                                                  \
            SCAN_ONE(X, BETTER);                                                             \
            v = yv, base = ybase, first = yfirst, best = ybest, at = yat;                    \
        }                                                                                    \
    }
#define SCAN_PLAIN(NAME, ATTR, X, BETTER)                                                  \
    static ATTR MAYBE_UNUSED void NAME(const void *v, int64_t n, int64_t base, bool first, \
                                       void *best, int64_t *at)                            \
    {                                                                                      \
        const X *x = v;                                                                    \
        SCAN_ONE(X, BETTER);                                                               \
    }

/* max and min of floating types in vectors: VI is the integer vector of
 * VT's size, CMP(b, a) the comparison that makes b win (>, <). take b
 * where a is no NaN and b is NaN or wins: MAX_R / MIN_R elementwise. */
#define VSELECT(VT, VI, take, b, a) ((VT)(((VI)(b) & (take)) | ((VI)(a) & ~(take))))
#define VPICK(VT, VI, a, b, CMP) VSELECT(VT, VI, ~((a) != (a)) & (((b) != (b)) | ((b)CMP(a))), b, a)
/* One vector v into its lanes' accumulator: VPICK, or (the AVX2 max and
 * min, CHUNK_VEC's EXACT given) PICK while noting the lanes that met a
 * NaN. */
#define STEP_EXACT(VT, VI, acc, v, nan, CMP, PICK) ((acc) = VPICK(VT, VI, acc, v, CMP))
#define STEP_FAST(VT, VI, acc, v, nan, CMP, PICK) ((nan) |= (v) != (v), (acc) = PICK(v, acc))
#define CHUNK_VEC(NAME, ATTR, X, VT, VI, IDENTITY, OP, CMP, STEP, PICK, EXACT)  \
    static ATTR MAYBE_UNUSED void NAME(const void *xv, int64_t n, void *result) \
    {                                                                           \
        enum { W = sizeof(VT) / sizeof(X), K = LANES / W };                     \
        void (*exact)(const void *, int64_t, void *) = EXACT;                   \
        const X *x = xv;                                                        \
        VT acc[K];                                                              \
        VI nan = (VI){0};                                                       \
        for (int k = 0; k < K; k++)                                             \
            acc[k] = (VT){0} + (IDENTITY);                                      \
        int64_t i = 0;                                                          \
        for (; i + LANES <= n; i += LANES) {                                    \
            PREFETCH_LANES(x + i, sizeof(X));                                   \
            for (int k = 0; k < K; k++) {                                       \
                VT v;                                                           \
                memcpy(&v, x + i + k * W, sizeof v);                            \
                STEP(VT, VI, acc[k], v, nan, CMP, PICK);                        \
            }                                                                   \
        }                                                                       \
        bool any = false;                                                       \
        for (int j = 0; j < W; j++)                                             \
            any |= nan[j] != 0;                                                 \
        if (exact && any) {                                                     \
            exact(xv, n, result);                                               \
            return;                                                             \
        }                                                                       \
        X lane[LANES];                                                          \
        memcpy(lane, acc, sizeof lane);                                         \
        for (int j = 0; i + j < n; j++)                                         \
            lane[j] = OP(lane[j], x[i + j]);                                    \
        TSR__RED_FOLD_LANES(lane, OP);                                          \
        *(X *)result = lane[0];                                                 \
    }
/* CHUNK_VEC over two whole chunks (CHUNK_PLAIN2); where STEP_FAST notes a
 * NaN, each chunk is done again by ONE, CHUNK_VEC's loop. */
#define CHUNK_VEC2(NAME, ATTR, X, VT, VI, IDENTITY, OP, CMP, STEP, PICK, ONE) \
    CHUNK2_HEAD(NAME, ATTR, X)                                                \
    enum { W = sizeof(VT) / sizeof(X), K = LANES / W };                       \
    VT ax[K], ay[K];                                                          \
    VI nan = (VI){0};                                                         \
    for (int k = 0; k < K; k++)                                               \
        ax[k] = ay[k] = (VT){0} + (IDENTITY);                                 \
    for (int64_t i = 0; i < CHUNK; i += LANES) {                              \
        for (int k = 0; k < K; k++) {                                         \
            VT u, v;                                                          \
            memcpy(&u, x + i + k * W, sizeof u);                              \
            memcpy(&v, y + i + k * W, sizeof v);                              \
            STEP(VT, VI, ax[k], u, nan, CMP, PICK);                           \
            STEP(VT, VI, ay[k], v, nan, CMP, PICK);                           \
        }                                                                     \
    }                                                                         \
    bool any = false;                                                         \
    for (int j = 0; j < W; j++)                                               \
        any |= nan[j] != 0;                                                   \
    if (any) {                                                                \
        ONE(xv, CHUNK, rx);                                                   \
        ONE(yv, CHUNK, ry);                                                   \
        return;                                                               \
    }                                                                         \
    X lane[LANES];                                                            \
    memcpy(lane, ax, sizeof lane);                                            \
    TSR__RED_FOLD_LANES(lane, OP);                                            \
    *(X *)rx = lane[0];                                                       \
    memcpy(lane, ay, sizeof lane);                                            \
    TSR__RED_FOLD_LANES(lane, OP);                                            \
    *(X *)ry = lane[0];                                                       \
    }
/* argmax in vectors: each lane keeps its first best and its position;
 * then the lanes meet (a better value, or an equal one found earlier). */
#define SCAN_VEC(NAME, ATTR, X, VT, VI, BETTER, CMP)                                      \
    static ATTR void NAME(const void *v, int64_t n, int64_t base, bool first, void *best, \
                          int64_t *at)                                                    \
    {                                                                                     \
        enum { W = sizeof(VT) / sizeof(X), K = LANES / W };                               \
        const X *x = v;                                                                   \
        if (n < LANES) {                                                                  \
            SCAN_ONE(X, BETTER);                                                          \
            return;                                                                       \
        }                                                                                 \
        VT bv[K];                                                                         \
        VI bp[K], step = (VI){0} + LANES;                                                 \
        for (int k = 0; k < K; k++) {                                                     \
            memcpy(&bv[k], x + k * W, sizeof bv[k]);                                      \
            for (int j = 0; j < W; j++)                                                   \
                bp[k][j] = k * W + j;                                                     \
        }                                                                                 \
        VI pos[K];                                                                        \
        for (int k = 0; k < K; k++)                                                       \
            pos[k] = bp[k];                                                               \
        int64_t i = LANES;                                                                \
        for (; i + LANES <= n; i += LANES) {                                              \
            PREFETCH_LANES(x + i, sizeof(X));                                             \
            for (int k = 0; k < K; k++) {                                                 \
                VT c;                                                                     \
                memcpy(&c, x + i + k * W, sizeof c);                                      \
                pos[k] += step;                                                           \
                VI take = ((bv[k] == bv[k]) & ((c != c) | (c CMP bv[k])));                \
                bv[k] = VSELECT(VT, VI, take, c, bv[k]);                                  \
                bp[k] = (pos[k] & take) | (bp[k] & ~take);                                \
            }                                                                             \
        }                                                                                 \
        SCAN_END(X, VI, W, K, BETTER, bv, bp, x, i, n, base, first, best, at);            \
    }
/* The end of SCAN_VEC's scan of x[0..n), its lanes at bv and bp (values
 * and positions) and elements i.. not yet taken: the lanes' first best,
 * then the rest one at a time, into *best and *at where better. */
#define SCAN_END(X, VI, W, K, BETTER, bv, bp, x, i, n, base, first, best, at) \
    do {                                                                      \
        X lb_[LANES];                                                         \
        VI lp_[K];                                                            \
        memcpy(lb_, bv, sizeof lb_);                                          \
        memcpy(lp_, bp, sizeof lp_);                                          \
        X b_ = lb_[0];                                                        \
        int64_t k0_ = lp_[0][0];                                              \
        for (int j_ = 1; j_ < LANES; j_++) {                                  \
            X c_ = lb_[j_];                                                   \
            int64_t p_ = lp_[j_ / W][j_ % W];                                 \
            if (BETTER(c_, b_) || (!BETTER(b_, c_) && p_ < k0_)) {            \
                b_ = c_;                                                      \
                k0_ = p_;                                                     \
            }                                                                 \
        }                                                                     \
        for (int64_t t_ = i; t_ < n; t_++)                                    \
            if (BETTER(x[t_], b_)) {                                          \
                b_ = x[t_];                                                   \
                k0_ = t_;                                                     \
            }                                                                 \
        if (first || BETTER(b_, *(X *)best)) {                                \
            *(X *)best = b_;                                                  \
            *at = base + k0_;                                                 \
        }                                                                     \
    } while (0)
/* SCAN_VEC over two whole chunks side by side (CHUNK_PLAIN2): x's from
 * position xbase into *xbest and *xat, y's from ybase into *ybest and
 * *yat, each as SCAN_VEC takes it. */
#define SCAN_VEC2(NAME, ATTR, X, VT, VI, BETTER, CMP)                                        \
    static ATTR MAYBE_UNUSED void NAME(const void *xv, const void *yv, int64_t xbase,        \
                                       int64_t ybase, bool xfirst, bool yfirst, void *xbest, \
                                       int64_t *xat, void *ybest, int64_t *yat)              \
    {                                                                                        \
        enum { W = sizeof(VT) / sizeof(X), K = LANES / W };                                  \
        const X *x = xv, *y = yv;                                                            \
        VT bx[K], by[K];                                                                     \
        VI px[K], py[K], pos[K], step = (VI){0} + LANES;                                     \
        for (int k = 0; k < K; k++) {                                                        \
            memcpy(&bx[k], x + k * W, sizeof bx[k]);                                         \
            memcpy(&by[k], y + k * W, sizeof by[k]);                                         \
            for (int j = 0; j < W; j++)                                                      \
                px[k][j] = k * W + j;                                                        \
            py[k] = pos[k] = px[k];                                                          \
        }                                                                                    \
        for (int64_t i = LANES; i < CHUNK; i += LANES)                                       \
            for (int k = 0; k < K; k++) {                                                    \
                VT c, d;                                                                     \
                memcpy(&c, x + i + k * W, sizeof c);                                         \
                memcpy(&d, y + i + k * W, sizeof d);                                         \
                pos[k] += step;                                                              \
                VI tx = ((bx[k] == bx[k]) & ((c != c) | (c CMP bx[k])));                     \
                VI ty = ((by[k] == by[k]) & ((d != d) | (d CMP by[k])));                     \
                bx[k] = VSELECT(VT, VI, tx, c, bx[k]);                                       \
                by[k] = VSELECT(VT, VI, ty, d, by[k]);                                       \
                px[k] = (pos[k] & tx) | (px[k] & ~tx);                                       \
                py[k] = (pos[k] & ty) | (py[k] & ~ty);                                       \
            }                                                                                \
        SCAN_END(X, VI, W, K, BETTER, bx, px, x, CHUNK, CHUNK, xbase, xfirst, xbest, xat);   \
        SCAN_END(X, VI, W, K, BETTER, by, py, y, CHUNK, CHUNK, ybase, yfirst, ybest, yat);   \
    }

typedef int32_t ilanes_f __attribute__((vector_size(16)));
typedef int64_t ilanes_d __attribute__((vector_size(16)));
typedef int32_t ilanes2_f __attribute__((vector_size(32)));
typedef int64_t ilanes2_d __attribute__((vector_size(32)));
/* max and min: the baseline and an exact AVX2 chunk by VPICK, and the AVX2
 * chunk that is called (STEP_FAST): while no element is NaN, VPICK is
 * VMAXPS(v, acc) (VMINPS): v where v > acc (<), else acc, one instruction
 * where VPICK takes five with a chain of three, and the lanes note
 * whether they met a NaN beside it. A chunk that holds one is done again
 * by EXACT, VPICK's loop, from the start (rarely: a NaN ends the
 * reduction's meaning). A float32 max over 4096 elements in the
 * first-level cache: 28 GB/s with VPICK, 100 with this (an AMD EPYC). */
#define VEC_MAXMIN(FAM, X, sfx, NAME, IDENTITY, OP, BETTER, CMP)                                  \
    CHUNK_VEC(vec_chunk_##FAM##_##NAME, , X, lanes_##sfx, ilanes_##sfx, IDENTITY, OP, CMP,        \
              STEP_EXACT, , NULL)                                                                 \
    CHUNK_VEC(vec_chunk_##FAM##_##NAME##_avx2_exact, TARGET_AVX2, X, lanes2_##sfx, ilanes2_##sfx, \
              IDENTITY, OP, CMP, STEP_EXACT, , NULL)                                              \
    CHUNK_VEC(vec_chunk_##FAM##_##NAME##_avx2, TARGET_AVX2, X, lanes2_##sfx, ilanes2_##sfx,       \
              IDENTITY, OP, CMP, STEP_FAST, pick2_##NAME##_##sfx,                                 \
              vec_chunk_##FAM##_##NAME##_avx2_exact)                                              \
    CHUNK_VEC2(vec_chunk2_##FAM##_##NAME, , X, lanes_##sfx, ilanes_##sfx, IDENTITY, OP, CMP,      \
               STEP_EXACT, , vec_chunk_##FAM##_##NAME)                                            \
    CHUNK_VEC2(vec_chunk2_##FAM##_##NAME##_avx2, TARGET_AVX2, X, lanes2_##sfx, ilanes2_##sfx,     \
               IDENTITY, OP, CMP, STEP_FAST, pick2_##NAME##_##sfx,                                \
               vec_chunk_##FAM##_##NAME##_avx2)                                                   \
    SCAN_VEC(vec_scan_##FAM##_##NAME, , X, lanes_##sfx, ilanes_##sfx, BETTER, CMP)                \
    SCAN_VEC(vec_scan_##FAM##_##NAME##_avx2, TARGET_AVX2, X, lanes2_##sfx, ilanes2_##sfx, BETTER, \
             CMP)                                                                                 \
    SCAN_VEC2(vec_scan2_##FAM##_##NAME, , X, lanes_##sfx, ilanes_##sfx, BETTER, CMP)              \
    SCAN_VEC2(vec_scan2_##FAM##_##NAME##_avx2, TARGET_AVX2, X, lanes2_##sfx, ilanes2_##sfx,       \
              BETTER, CMP)

/* Real sums are compensated (kernels/reduce_order.h): an accumulator is a
 * pair; its column lanes keep the s and e parts apart. */
#define PAIR(T, sfx)                                                                             \
    typedef struct pair_##sfx {                                                                  \
        T s, e;                                                                                  \
    } pair_##sfx;                                                                                \
    static inline pair_##sfx merge_p##sfx(pair_##sfx a, pair_##sfx b)                            \
    {                                                                                            \
        TSR__RED_TWO_SUM_MERGE(a.s, a.e, b.s, b.e, T);                                           \
        return a;                                                                                \
    }                                                                                            \
    static inline T final_p##sfx(pair_##sfx a)                                                   \
    {                                                                                            \
        return TSR__RED_TWO_SUM_VALUE(a.s, a.e);                                                 \
    }                                                                                            \
    static void identity_p##sfx(void *m)                                                         \
    {                                                                                            \
        ((pair_##sfx *)m)->s = ((pair_##sfx *)m)->e = 0;                                         \
    }                                                                                            \
    CHUNK_PAIR(chunk_p##sfx, , T, lanes_##sfx, pair_##sfx, TSR__RED_SUB, TSR__RED_ADD)           \
    CHUNK_PAIR(chunk_p##sfx##_avx2, TARGET_AVX2_FMA, T, lanes2_##sfx, pair_##sfx, sub2_##sfx,    \
               add2_##sfx)                                                                       \
    CHUNK_PAIR2(chunk2_p##sfx, , T, lanes_##sfx, pair_##sfx, TSR__RED_SUB, TSR__RED_ADD)         \
    CHUNK_PAIR2(chunk2_p##sfx##_avx2, TARGET_AVX2_FMA, T, lanes2_##sfx, pair_##sfx, sub2_##sfx,  \
                add2_##sfx)                                                                      \
    static void combine_p##sfx(void *a, const void *b)                                           \
    {                                                                                            \
        *(pair_##sfx *)a = merge_p##sfx(*(pair_##sfx *)a, *(const pair_##sfx *)b);               \
    }                                                                                            \
    static void col_init_p##sfx(void *lv, int nc)                                                \
    {                                                                                            \
        T *l = lv;                                                                               \
        for (int k = 0; k < 2 * LANES * nc; k++)                                                 \
            l[k] = 0;                                                                            \
    }                                                                                            \
    COL_ROWS_PAIR(col_rows_p##sfx, , T, lanes_##sfx, TSR__RED_SUB)                               \
    COL_ROWS_PAIR(col_rows_p##sfx##_avx2, TARGET_AVX2_FMA, T, lanes2_##sfx, sub2_##sfx)          \
    static void col_two_p##sfx(void *lv, const unsigned char *a, const unsigned char *b, int j,  \
                               int nc)                                                           \
    {                                                                                            \
        T *s = (T *)lv + j * nc, *e = (T *)lv + (LANES + j) * nc;                                \
        for (int c = 0; c < nc; c++) {                                                           \
            T x = ((const T *)a)[c];                                                             \
            if (b)                                                                               \
                x = x + ((const T *)b)[c];                                                       \
            TSR__RED_TWO_SUM_ADD(s[c], e[c], x, T);                                              \
        }                                                                                        \
    }                                                                                            \
    static void col_fold_p##sfx(void *lv, int nc)                                                \
    {                                                                                            \
        T *ls = lv, *le = ls + LANES * nc; /* s parts [LANES][nc], then e parts */               \
        for (int w = LANES / 2; w >= 1; w /= 2)                                                  \
            for (int j = 0; j < w; j++)                                                          \
                for (int c = 0; c < nc; c++)                                                     \
                    TSR__RED_TWO_SUM_MERGE(ls[j * nc + c], le[j * nc + c], ls[(j + w) * nc + c], \
                                           le[(j + w) * nc + c], T);                             \
    }                                                                                            \
    static void col_value_p##sfx(const void *lv, int nc, int c, void *acc)                       \
    {                                                                                            \
        const T *ls = lv;                                                                        \
        ((pair_##sfx *)acc)->s = ls[c];                                                          \
        ((pair_##sfx *)acc)->e = ls[LANES * nc + c];                                             \
    }                                                                                            \
    static void final_p##sfx##_any(const void *a, void *x)                                       \
    {                                                                                            \
        *(T *)x = final_p##sfx(*(const pair_##sfx *)a);                                          \
    }
PAIR(float, f)
PAIR(double, d)

/* A plain combine (accumulator = element) in one family. */
#define PLAIN(FAM, X, NAME, IDENTITY, OP, BETTER, FAST)                                          \
    static void identity_##FAM##_##NAME(void *m)                                                 \
    {                                                                                            \
        *(X *)m = IDENTITY;                                                                      \
    }                                                                                            \
    CHUNK_PLAIN(chunk_##FAM##_##NAME, , X, IDENTITY, OP)                                         \
    CHUNK_PLAIN(chunk_##FAM##_##NAME##_avx2, TARGET_AVX2, X, IDENTITY, OP)                       \
    CHUNK_PLAIN2(chunk2_##FAM##_##NAME, , X, IDENTITY, OP)                                       \
    CHUNK_PLAIN2(chunk2_##FAM##_##NAME##_avx2, TARGET_AVX2, X, IDENTITY, OP)                     \
    static void combine_##FAM##_##NAME(void *a, const void *b)                                   \
    {                                                                                            \
        *(X *)a = OP(*(X *)a, *(const X *)b);                                                    \
    }                                                                                            \
    static void col_init_##FAM##_##NAME(void *lv, int nc)                                        \
    {                                                                                            \
        X *lane = lv;                                                                            \
        for (int j = 0; j < LANES; j++)                                                          \
            for (int c = 0; c < nc; c++)                                                         \
                lane[j * nc + c] = IDENTITY;                                                     \
    }                                                                                            \
    COL_ROWS_PLAIN(col_rows_##FAM##_##NAME, , X, OP)                                             \
    COL_ROWS_PLAIN(col_rows_##FAM##_##NAME##_avx2, TARGET_AVX2, X, OP)                           \
    static void col_two_##FAM##_##NAME(void *lv, const unsigned char *a, const unsigned char *b, \
                                       int j, int nc)                                            \
    {                                                                                            \
        X *l = (X *)lv + j * nc;                                                                 \
        for (int c = 0; c < nc; c++) {                                                           \
            X acc = OP(l[c], ((const X *)a)[c]);                                                 \
            l[c] = b ? OP(acc, ((const X *)b)[c]) : acc;                                         \
        }                                                                                        \
    }                                                                                            \
    static void col_fold_##FAM##_##NAME(void *lv, int nc)                                        \
    {                                                                                            \
        X *lane = lv;                                                                            \
        for (int w = LANES / 2; w >= 1; w /= 2)                                                  \
            for (int j = 0; j < w; j++)                                                          \
                for (int c = 0; c < nc; c++)                                                     \
                    lane[j * nc + c] = OP(lane[j * nc + c], lane[(j + w) * nc + c]);             \
    }                                                                                            \
    static void col_value_##FAM##_##NAME(const void *lv, int nc, int c, void *acc)               \
    {                                                                                            \
        (void)nc;                                                                                \
        *(X *)acc = ((const X *)lv)[c];                                                          \
    }                                                                                            \
    static void final_##FAM##_##NAME(const void *a, void *x)                                     \
    {                                                                                            \
        *(X *)x = *(const X *)a;                                                                 \
    }                                                                                            \
    SCAN_PLAIN(scan_##FAM##_##NAME, , X, BETTER)                                                 \
    SCAN_PLAIN(scan_##FAM##_##NAME##_avx2, TARGET_AVX2, X, BETTER)                               \
    SCAN_PLAIN2(scan2_##FAM##_##NAME, , X, BETTER)                                               \
    SCAN_PLAIN2(scan2_##FAM##_##NAME##_avx2, TARGET_AVX2, X, BETTER)                             \
    static const tsr__reduce_ops ops_##FAM##_##NAME = {                                          \
        sizeof(X),                                                                               \
        sizeof(X),                                                                               \
        identity_##FAM##_##NAME,                                                                 \
        FAST##chunk_##FAM##_##NAME,                                                              \
        FAST##chunk_##FAM##_##NAME##_avx2,                                                       \
        combine_##FAM##_##NAME,                                                                  \
        col_init_##FAM##_##NAME,                                                                 \
        col_rows_##FAM##_##NAME,                                                                 \
        col_rows_##FAM##_##NAME##_avx2,                                                          \
        col_two_##FAM##_##NAME,                                                                  \
        col_fold_##FAM##_##NAME,                                                                 \
        col_value_##FAM##_##NAME,                                                                \
        final_##FAM##_##NAME,                                                                    \
        FAST##scan_##FAM##_##NAME,                                                               \
        FAST##scan_##FAM##_##NAME##_avx2,                                                        \
        load_##FAM,                                                                              \
        store_##FAM,                                                                             \
        divide_##FAM,                                                                            \
        FAST##chunk2_##FAM##_##NAME,                                                             \
        FAST##chunk2_##FAM##_##NAME##_avx2,                                                      \
        FAST##scan2_##FAM##_##NAME,                                                              \
        FAST##scan2_##FAM##_##NAME##_avx2,                                                       \
    };

static void never_scan(const void *v, int64_t n, int64_t base, bool first, void *best, int64_t *at)
{
    (void)v, (void)n, (void)base, (void)first, (void)best, (void)at;
}
static void never_scan2(const void *xv, const void *yv, int64_t xbase, int64_t ybase, bool xfirst,
                        bool yfirst, void *xbest, int64_t *xat, void *ybest, int64_t *yat)
{
    (void)xv, (void)yv, (void)xbase, (void)ybase, (void)xfirst, (void)yfirst;
    (void)xbest, (void)xat, (void)ybest, (void)yat;
}

/* Compensated sums of float (float16, bfloat16, float32) and double. */
#define PAIR_OPS(FAM, T, sfx)                                             \
    static const tsr__reduce_ops ops_##FAM##_sum = {                      \
        sizeof(T),          sizeof(pair_##sfx),   identity_p##sfx,        \
        chunk_p##sfx,       chunk_p##sfx##_avx2,  combine_p##sfx,         \
        col_init_p##sfx,    col_rows_p##sfx,      col_rows_p##sfx##_avx2, \
        col_two_p##sfx,     col_fold_p##sfx,      col_value_p##sfx,       \
        final_p##sfx##_any, never_scan,           never_scan,             \
        load_##FAM,         store_##FAM,          divide_##FAM,           \
        chunk2_p##sfx,      chunk2_p##sfx##_avx2, never_scan2,            \
        never_scan2,                                                      \
    };

PLAIN(I, uint64_t, sum, 0, SUM_I, NO_BETTER, )
PLAIN(I, uint64_t, prod, 1, PROD_I, NO_BETTER, )
PLAIN(I, uint64_t, max, (uint64_t)INT64_MIN, MAX_I, BETTER_MAX_I, )
PLAIN(I, uint64_t, min, (uint64_t)INT64_MAX, MIN_I, BETTER_MIN_I, )
PLAIN(I, uint64_t, all, 1, ALL_I, NO_BETTER, )
PLAIN(I, uint64_t, any, 0, ANY_I, NO_BETTER, )
/* float (float16, bfloat16, float32) and double: compensated sums, plain
 * products, max and min in vectors. */
#define REAL_FAMILY(FAM, T, sfx)                                    \
    PAIR_OPS(FAM, T, sfx)                                           \
    PLAIN(FAM, T, prod, (T)1, PROD_R, NO_BETTER, )                  \
    VEC_MAXMIN(FAM, T, sfx, max, -INFINITY, MAX_R, BETTER_MAX_R, >) \
    VEC_MAXMIN(FAM, T, sfx, min, INFINITY, MIN_R, BETTER_MIN_R, <)  \
    PLAIN(FAM, T, max, -INFINITY, MAX_R, BETTER_MAX_R, vec_)        \
    PLAIN(FAM, T, min, INFINITY, MIN_R, BETTER_MIN_R, vec_)
REAL_FAMILY(F, float, f)
REAL_FAMILY(D, double, d)
PLAIN(CF, tsr__kc64, sum, tsr__kc64_make(0.0f, 0.0f), SUM_CF, NO_BETTER, )
PLAIN(CF, tsr__kc64, prod, tsr__kc64_make(1.0f, 0.0f), PROD_CF, NO_BETTER, )
PLAIN(CD, tsr__kc128, sum, tsr__kc128_make(0.0, 0.0), SUM_CD, NO_BETTER, )
PLAIN(CD, tsr__kc128, prod, tsr__kc128_make(1.0, 0.0), PROD_CD, NO_BETTER, )

bool tsr__reduce_avx2(void)
{
#if HAVE_AVX2_CLONES
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

/* The loops of an op (its elem column names the combine) in a common
 * dtype, or NULL. */
const tsr__reduce_ops *tsr__reduce_ops_for(const char *combine, tsr_dtype common)
{
    static const struct {
        const char *name;
        const tsr__reduce_ops *i, *f, *d, *cf, *cd;
    } table[] = {
        {"sum", &ops_I_sum, &ops_F_sum, &ops_D_sum, &ops_CF_sum, &ops_CD_sum},
        {"prod", &ops_I_prod, &ops_F_prod, &ops_D_prod, &ops_CF_prod, &ops_CD_prod},
        {"max", &ops_I_max, &ops_F_max, &ops_D_max, NULL, NULL},
        {"min", &ops_I_min, &ops_F_min, &ops_D_min, NULL, NULL},
        {"all", &ops_I_all, NULL, NULL, NULL, NULL},
        {"any", &ops_I_any, NULL, NULL, NULL, NULL},
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        if (strcmp(table[t].name, combine) != 0)
            continue;
        switch (common) {
        case TSR_BOOL:
        case TSR_UINT8:
        case TSR_INT8:
        case TSR_INT16:
        case TSR_INT32:
        case TSR_INT64:
            return table[t].i;
        case TSR_FLOAT16:
        case TSR_BFLOAT16:
        case TSR_FLOAT32:
            return table[t].f;
        case TSR_FLOAT64:
            return table[t].d;
        case TSR_COMPLEX32:
        case TSR_COMPLEX64:
            return table[t].cf;
        case TSR_COMPLEX128:
            return table[t].cd;
        default:
            return NULL;
        }
    }
    return NULL;
}
