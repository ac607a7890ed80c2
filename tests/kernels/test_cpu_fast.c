/* The cpu device's fast paths (kernels/cpu_fast.h) against the generic
 * loops they stand in for, bit for bit: the float16/bfloat16 rows, the
 * int32 + float32 rows, the conversions, the tile transpose and the
 * non-temporal copy one by one, and then whole kernels through
 * tsr__host_elementwise (kernels/cpu_exec.c) with
 * the fast paths on and off: transposed inputs in packed tiles,
 * channels-last copies, broadcasts, mixed dtypes and streamed outputs, on
 * two threads. Inputs are random bits mixed with the values where
 * conversions and rounding go wrong: NaNs of both signs with payloads
 * (signalling ones too), infinities, subnormals, +-0, ties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include "core/kernel.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "kernels/cpu_exec.h"
#include "tessera/convert.h"
#include "test.h"

/* ---- random operands ------------------------------------------------------- */

/* splitmix64, from a fixed seed: the same cases every run. */
static uint64_t rng_state = 20240601;

static uint64_t next_random(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static const uint32_t f32_special[] = {
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
    0xFFA00001, 0x7FFFFFFF, 0x7FC12345, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
    0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x33000000,
    0x33000001, 0x387FC000, 0x38800000, 0x3F808000, 0x3F818000, 0x3F807FFF, 0x4B800001,
};
static const uint16_t f16_special[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00,
                                       0x7C01, 0xFD00, 0x0001, 0x8001, 0x03FF, 0x0400,
                                       0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x7FFF};
static const uint16_t bf16_special[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0,
                                        0x7F81, 0xFFFF, 0x0001, 0x807F, 0x0080, 0x7F7F,
                                        0xFF7F, 0x3F80, 0xBF80, 0x3F81};
static const int64_t int_special[] = {
    0, 1, -1, 2147483647, -2147483647 - 1, 16777217, -16777217, 16777219, 2147483583, 127, -128};

#define PICK(table) table[next_random() % (sizeof table / sizeof table[0])]

/* One element of dt into p: a third random bits, a third special values,
 * a third small numbers (whose sums are not all NaN). */
static void random_element(tsr_dtype dt, unsigned char *p)
{
    uint64_t r = next_random(), kind = next_random() % 3;
    size_t w = tsr_dtype_itemsize(dt);
    if (kind == 0) {
        memcpy(p, &r, w < 8 ? w : 8);
        if (w > 8) {
            uint64_t r2 = next_random();
            memcpy(p + 8, &r2, w - 8);
        }
        return;
    }
    float f = (float)((int64_t)(r % 4001) - 2000) / 16.0f;
    switch (dt) {
    case TSR_FLOAT16:
    case TSR_BFLOAT16: {
        uint16_t h = kind == 1 ? (dt == TSR_FLOAT16 ? PICK(f16_special) : PICK(bf16_special))
                     : dt == TSR_FLOAT16 ? tsr_float_to_half(f)
                                         : tsr_float_to_bfloat16(f);
        memcpy(p, &h, 2);
        return;
    }
    case TSR_FLOAT32:
    case TSR_COMPLEX64: {
        for (size_t part = 0; part < w / 4; part++) {
            uint32_t u = PICK(f32_special);
            if (kind == 2)
                memcpy(&u, &f, 4);
            memcpy(p + 4 * part, &u, 4);
        }
        return;
    }
    case TSR_FLOAT64:
    case TSR_COMPLEX128: {
        for (size_t part = 0; part < w / 8; part++) {
            uint32_t u = PICK(f32_special);
            float g;
            memcpy(&g, &u, 4);
            double d = kind == 2 ? (double)f : (double)g;
            memcpy(p + 8 * part, &d, 8);
        }
        return;
    }
    default: {
        int64_t v = kind == 1 ? PICK(int_special) : (int64_t)(r % 201) - 100;
        if (dt == TSR_BOOL)
            v = v != 0;
        memcpy(p, &v, w); /* little-endian: the low bytes */
        return;
    }
    }
}

static void random_fill(tsr_dtype dt, unsigned char *p, int64_t n)
{
    size_t w = tsr_dtype_itemsize(dt);
    for (int64_t i = 0; i < n; i++)
        random_element(dt, p + (size_t)i * w);
}

/* Whether an element of a floating or complex dtype has a NaN part (or,
 * with `inf`, a NaN or infinite one). */
static bool not_finite(tsr_dtype dt, const unsigned char *p, bool inf)
{
    size_t w = tsr_dtype_itemsize(dt);
    for (size_t part = 0; part < w; part += tsr_dtype_itemsize(tsr_dtype_to_real(dt))) {
        float f;
        switch (tsr_dtype_to_real(dt)) {
        case TSR_FLOAT16:
        case TSR_BFLOAT16: {
            uint16_t h;
            memcpy(&h, p + part, 2);
            f = dt == TSR_BFLOAT16 ? tsr_bfloat16_to_float(h) : tsr_half_to_float(h);
            break;
        }
        case TSR_FLOAT32:
            memcpy(&f, p + part, 4);
            break;
        case TSR_FLOAT64: {
            double d;
            memcpy(&d, p + part, 8);
            if (d != d || (inf && d - d != 0))
                return true;
            continue;
        }
        default:
            return false;
        }
        if (f != f || (inf && f - f != 0))
            return true;
    }
    return false;
}

/* Random elements without NaNs (and, with `inf`, without infinities). */
static void random_fill_finite(tsr_dtype dt, unsigned char *p, int64_t n, bool inf)
{
    size_t w = tsr_dtype_itemsize(dt);
    for (int64_t i = 0; i < n; i++)
        do
            random_element(dt, p + (size_t)i * w);
        while (not_finite(dt, p + (size_t)i * w, inf));
}

/* Integer divisors without zeros (a zero stops a threaded loop at a
 * place that depends on timing). */
static void no_zeros(tsr_dtype dt, unsigned char *p, int64_t n)
{
    size_t w = tsr_dtype_itemsize(dt);
    for (int64_t i = 0; i < n; i++) {
        unsigned char *e = p + (size_t)i * w, any = 0;
        for (size_t k = 0; k < w; k++)
            any |= e[k];
        if (!any)
            e[0] = 3;
    }
}

static int report_budget = 20;

/* Compares two buffers; reports the first differing byte. */
static void same_bytes(const void *got, const void *want, size_t n, const char *what)
{
    if (memcmp(got, want, n) == 0) {
        test__passed++;
        return;
    }
    test__failed++;
    const unsigned char *g = got, *w = want;
    size_t at = 0;
    while (g[at] == w[at])
        at++;
    if (report_budget-- > 0) {
        fprintf(stderr, "%s: byte %zu differs (fast %02x, generic %02x)\n", what, at, g[at], w[at]);
        size_t e = at / 8 * 8;
        uint64_t gv, wv;
        memcpy(&gv, g + e, 8);
        memcpy(&wv, w + e, 8);
        fprintf(stderr, "   8 bytes at %zu: fast %016llx generic %016llx\n", e,
                (unsigned long long)gv, (unsigned long long)wv);
    }
}

/* ---- rows of one dtype ------------------------------------------------------- */

static const int64_t lengths[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1023, 1031};

/* An element with a NaN input has a NaN result whose bits x86 fixes: the
 * first input's NaN where it is one, else the second's, quieted (no
 * operation flips its sign), then rounded as the dtype's operations
 * round NaNs. The fast loops say so explicitly (cpu_fast.h); the generic
 * loops give it as GCC compiles them (and PyTorch's loops), while clang
 * may swap the operands of + and * or the sign of a NaN. These elements
 * are checked against that rule and copied into ref, so that the
 * comparison with the generic loop that follows covers the rest. */
static void settle_nans(tsr_dtype dt, tsr_dtype da, const unsigned char *a, tsr_dtype db,
                        const unsigned char *b, const int64_t st[3], int64_t n,
                        const unsigned char *fast, unsigned char *ref, const char *what)
{
    size_t w = tsr_dtype_itemsize(dt);
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *x = a + i * st[1], *y = b + i * st[2];
        const unsigned char *nan = not_finite(da, x, false)   ? x
                                   : not_finite(db, y, false) ? y
                                                              : NULL;
        if (!nan)
            continue;
        uint64_t want = 0;
        memcpy(&want, nan, w);
        if (dt == TSR_FLOAT16)
            want = (want & 0x8000) | 0x7E00;
        else if (dt == TSR_BFLOAT16)
            want = 0x7FC0;
        else
            want |= w == 4 ? UINT64_C(0x00400000) : UINT64_C(0x0008000000000000);
        if (memcmp(fast + (size_t)i * w, &want, w) != 0) {
            test__failed++;
            if (report_budget-- > 0)
                fprintf(stderr, "%s: element %lld has not the NaN of its first NaN input\n", what,
                        (long long)i);
        }
        memcpy(ref + (size_t)i * w, fast + (size_t)i * w, w);
    }
}

/* Runs `row` over random inputs of dt at strides st (bytes) for every
 * length above, from a random element offset, with the fast paths on and
 * off, and compares the outputs (and what lies around them). fast_loop:
 * the row takes a fast loop (whose NaNs settle_nans checks). */
static void compare_row(tsr__kernel_row row, tsr_dtype dt, const int64_t st[4],
                        const uint8_t *alpha, bool fast_loop, const char *what)
{
    enum { CAP = (1031 + 16) * 8 };
    static unsigned char a[CAP], b[CAP], fast[CAP], ref[CAP];
    int64_t w = (int64_t)tsr_dtype_itemsize(dt);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int64_t n = lengths[li], off = (int64_t)(next_random() % 4) * w;
        random_fill(dt, a, CAP / w);
        random_fill(dt, b, CAP / w);
        memset(fast, 0xA5, sizeof fast);
        memset(ref, 0xA5, sizeof ref);
        int bad = 0;
        tsr__cpu_fast_enable(true);
        (void)row(fast + off, a + off, b + off, NULL, n, st, alpha, &bad);
        tsr__cpu_fast_enable(false);
        (void)row(ref + off, a + off, b + off, NULL, n, st, alpha, &bad);
        tsr__cpu_fast_enable(true);
        char name[128];
        snprintf(name, sizeof name, "%s n %lld", what, (long long)n);
        if (fast_loop)
            settle_nans(dt, dt, a + off, dt, b + off, st, n, fast + off, ref + off, name);
        same_bytes(fast, ref, sizeof fast, name);
    }
}

/* float16 and bfloat16 rows in every layout the vector loops take;
 * float32 and float64 rows with a scalar first input. */
static void check_rows(void)
{
    static const tsr__kernel_op ops[] = {TSR__KOP_ADD, TSR__KOP_SUB, TSR__KOP_MUL, TSR__KOP_DIV};
    static const tsr_dtype dts[] = {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
    static const double alphas[] = {1, -1, 2, 0.5};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        int64_t w = (int64_t)tsr_dtype_itemsize(dts[d]);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            for (size_t al = 0; al < sizeof alphas / sizeof alphas[0]; al++) {
                uint8_t alpha[16] = {0};
                float f = (float)alphas[al];
                if (w == 8)
                    memcpy(alpha, &alphas[al], sizeof(double));
                else
                    memcpy(alpha, &f, sizeof f);
                for (int layout = 0; layout < 4; layout++) {
                    int64_t sa = layout & 1 ? 0 : w, sb = layout & 2 ? 0 : w;
                    if (w > 2 && !(sa == 0 && sb == w))
                        continue;
                    const int64_t st[4] = {w, sa, sb, 0};
                    char what[96];
                    snprintf(what, sizeof what, "%s op %d alpha %g layout %d",
                             tsr_dtype_name(dts[d]), (int)ops[o], alphas[al], layout);
                    bool fast_loop = ops[o] == TSR__KOP_MUL || ops[o] == TSR__KOP_DIV ||
                                     alphas[al] == 1 || alphas[al] == -1;
                    compare_row(tsr__kernel_row_for(ops[o], dts[d]), dts[d], st, alpha, fast_loop,
                                what);
                }
            }
        }
    }
}

/* ---- int32 with float32 ----------------------------------------------------- */

/* The generic answer: the int32 input converted by tsr__kernel_convert,
 * then the float32 row loop. */
static void mixed_reference(tsr__kernel_op op, const uint8_t *alpha, float *o, const void *a,
                            tsr_dtype da, int64_t sa, const void *b, tsr_dtype db, int64_t sb,
                            int64_t n)
{
    static float ca[1100], cb[1100];
    const void *in[2] = {a, b};
    tsr_dtype dts[2] = {da, db};
    int64_t steps[2] = {sa, sb};
    float *conv[2] = {ca, cb};
    const unsigned char *use[2];
    for (int k = 0; k < 2; k++) {
        if (dts[k] == TSR_FLOAT32) {
            use[k] = in[k];
            continue;
        }
        ASSERT_EQ(
            tsr__kernel_convert(in[k], dts[k], conv[k], TSR_FLOAT32, (size_t)(steps[k] ? n : 1)),
            TSR_OK);
        use[k] = (const unsigned char *)conv[k];
    }
    const int64_t st[4] = {4, 4 * sa, 4 * sb, 0};
    int bad = 0;
    tsr__cpu_fast_enable(false);
    (void)tsr__kernel_row_for(op, TSR_FLOAT32)((unsigned char *)o, use[0], use[1], NULL, n, st,
                                               alpha, &bad);
    tsr__cpu_fast_enable(true);
}

static void check_mixed_rows(void)
{
    static const struct {
        tsr__kernel_op op;
        tsr__cpu_fast_op fop;
        float alpha;
    } cases[] = {{TSR__KOP_ADD, TSR__FAST_ADD, 1},
                 {TSR__KOP_ADD, TSR__FAST_SUB, -1},
                 {TSR__KOP_MUL, TSR__FAST_MUL, 1},
                 {TSR__KOP_DIV, TSR__FAST_DIV, 1}};
    enum { CAP = 1031 + 16 };
    uint32_t a[CAP], b[CAP];
    float fast[CAP], ref[CAP];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t alpha[16] = {0};
        memcpy(alpha, &cases[c].alpha, sizeof(float));
        for (int order = 0; order < 2; order++) {
            tsr_dtype da = order ? TSR_FLOAT32 : TSR_INT32, db = order ? TSR_INT32 : TSR_FLOAT32;
            for (int layout = 0; layout < 4; layout++) {
                int64_t sa = layout & 1 ? 0 : 1, sb = layout & 2 ? 0 : 1;
                for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                    int64_t n = lengths[li], off = (int64_t)(next_random() % 4);
                    random_fill(da, (unsigned char *)a, CAP);
                    random_fill(db, (unsigned char *)b, CAP);
                    memset(fast, 0xA5, sizeof fast);
                    memset(ref, 0xA5, sizeof ref);
                    ASSERT_TRUE(tsr__cpu_fast_mixed(cases[c].fop, fast + off, a + off, da, sa,
                                                    b + off, db, sb, n));
                    mixed_reference(cases[c].op, alpha, ref + off, a + off, da, sa, b + off, db, sb,
                                    n);
                    char what[96];
                    snprintf(what, sizeof what, "mixed %s+%s op %d layout %d n %lld",
                             tsr_dtype_name(da), tsr_dtype_name(db), (int)cases[c].fop, layout,
                             (long long)n);
                    const int64_t st[3] = {4, 4 * sa, 4 * sb};
                    settle_nans(TSR_FLOAT32, da, (unsigned char *)(a + off), db,
                                (unsigned char *)(b + off), st, n, (unsigned char *)(fast + off),
                                (unsigned char *)(ref + off), what);
                    same_bytes(fast, ref, sizeof fast, what);
                }
            }
        }
    }
    /* Not its pairs. */
    ASSERT_FALSE(tsr__cpu_fast_mixed(TSR__FAST_ADD, fast, a, TSR_FLOAT32, 1, b, TSR_FLOAT32, 1, 4));
    ASSERT_FALSE(tsr__cpu_fast_mixed(TSR__FAST_ADD, fast, a, TSR_INT64, 1, b, TSR_FLOAT32, 1, 4));
}

/* ---- conversions -------------------------------------------------------------- */

static void check_conversions(void)
{
    static const tsr_dtype pairs[][2] = {
        {TSR_UINT8, TSR_FLOAT32},    {TSR_INT8, TSR_FLOAT32},     {TSR_INT16, TSR_FLOAT32},
        {TSR_INT32, TSR_FLOAT32},    {TSR_INT64, TSR_FLOAT32},    {TSR_FLOAT16, TSR_FLOAT32},
        {TSR_BFLOAT16, TSR_FLOAT32}, {TSR_FLOAT32, TSR_FLOAT64},  {TSR_INT32, TSR_FLOAT64},
        {TSR_FLOAT32, TSR_FLOAT16},  {TSR_FLOAT32, TSR_BFLOAT16}, {TSR_UINT8, TSR_INT64},
        {TSR_INT8, TSR_INT64},       {TSR_INT16, TSR_INT64},      {TSR_INT32, TSR_INT64},
        {TSR_BOOL, TSR_INT64},
    };
    enum { CAP = 1100 };
    static unsigned char src[CAP * 8], fast[CAP * 8 + 64], ref[CAP * 8 + 64];
    int taken = 0;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        tsr_dtype from = pairs[p][0], to = pairs[p][1];
        size_t ws = tsr_dtype_itemsize(from), wd = tsr_dtype_itemsize(to);
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            size_t n = (size_t)lengths[li], off = next_random() % 4;
            random_fill(from, src, CAP);
            memset(fast, 0x5A, sizeof fast);
            memset(ref, 0x5A, sizeof ref);
            bool ok = tsr__cpu_fast_convert(src + off * ws, from, fast + off * wd, to, n);
            taken += ok;
            ASSERT_EQ(tsr__kernel_convert(src + off * ws, from, ref + off * wd, to, n), TSR_OK);
            if (!ok)
                memcpy(fast, ref, sizeof fast);
            char what[96];
            snprintf(what, sizeof what, "convert %s -> %s n %zu", tsr_dtype_name(from),
                     tsr_dtype_name(to), n);
            same_bytes(fast, ref, sizeof fast, what);
        }
    }
    ASSERT_TRUE(taken > 0);
    ASSERT_FALSE(tsr__cpu_fast_convert(src, TSR_FLOAT64, fast, TSR_BFLOAT16, 4));
}

/* ---- transpose and the non-temporal copy -------------------------------------- */

static void check_transpose(void)
{
    static const size_t widths[] = {1, 2, 4, 8, 16};
    static const int64_t dims[] = {1, 3, 8, 9, 16, 17, 64, 71};
    enum { DIM = 71 + 5 };
    static unsigned char src[DIM * DIM * 16], fast[DIM * DIM * 16], ref[DIM * DIM * 16];
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        size_t width = widths[w];
        for (size_t r = 0; r < sizeof dims / sizeof dims[0]; r++) {
            for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++) {
                int64_t rows = dims[r], cols = dims[c];
                int64_t src_row = rows + (int64_t)(next_random() % 5);
                int64_t dst_row = cols + (int64_t)(next_random() % 5);
                random_fill(TSR_UINT8, src, sizeof src);
                memset(fast, 0x3C, sizeof fast);
                memset(ref, 0x3C, sizeof ref);
                tsr__cpu_transpose(fast, dst_row, src, src_row, rows, cols, width);
                for (int64_t i = 0; i < rows; i++)
                    for (int64_t j = 0; j < cols; j++)
                        memcpy(ref + (size_t)(i * dst_row + j) * width,
                               src + (size_t)(j * src_row + i) * width, width);
                char what[96];
                snprintf(what, sizeof what, "transpose width %zu %lld x %lld", width,
                         (long long)rows, (long long)cols);
                same_bytes(fast, ref, sizeof fast, what);
            }
        }
    }
}

static void check_stream_store(void)
{
    static unsigned char src[6000], fast[6200], ref[6200];
    static const size_t sizes[] = {0, 1, 15, 63, 64, 65, 127, 128, 300, 5000};
    random_fill(TSR_UINT8, src, sizeof src);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t off = 0; off < 70; off += 7) {
            memset(fast, 0x77, sizeof fast);
            memset(ref, 0x77, sizeof ref);
            tsr__cpu_stream_store(fast + off, src + s, sizes[s]);
            tsr__cpu_stream_fence();
            memcpy(ref + off, src + s, sizes[s]);
            same_bytes(fast, ref, sizeof fast, "stream store");
        }
    }
}

/* ---- whole kernels -------------------------------------------------------------- */

typedef struct operand_spec {
    tsr_dtype dtype;
    bool scalar;
    int64_t offset;
    int64_t strides[TSR_MAX_DIMS];
} operand_spec;

/* Elements an operand's storage needs. */
static int64_t extent(int ndim, const int64_t *sizes, const operand_spec *o)
{
    int64_t last = o->offset;
    for (int d = 0; d < ndim; d++)
        last += (sizes[d] - 1) * o->strides[d];
    return last + 1;
}

/* tsr__kernel.alpha of a small value that every dtype holds exactly. */
static void set_alpha(tsr_dtype common, double alpha, uint8_t out[16])
{
    memset(out, 0, 16);
    if (common == TSR_FLOAT64 || common == TSR_COMPLEX128) {
        memcpy(out, &alpha, sizeof alpha);
    } else if (tsr_dtype_is_floating_point(common) || tsr_dtype_is_complex(common)) {
        float f = (float)alpha;
        memcpy(out, &f, sizeof f);
    } else {
        int64_t v = common == TSR_BOOL ? alpha != 0 : (int64_t)alpha;
        memcpy(out, &v, sizeof v);
    }
}

/* Integer divisors of check_kernel: none zero, some zero at random, or
 * (an index >= 0) one zero, at that element of the second input's
 * storage. */
#define NO_ZEROS (-1)
#define RANDOM_ZEROS (-2)

/* Runs the kernel with the fast paths on (with outputs of every size
 * streamed, and with the default threshold) and off, from the same
 * output contents, and compares statuses and outputs.
 *
 * The second input has no NaNs, and complex inputs have neither NaNs nor
 * infinities: where two NaNs meet in + or *, the generic loops give the
 * one the compiler put first, which differs between their contiguous
 * and strided forms (and the fast paths choose between those). The row
 * tests above cover NaN pairs where the fast loops compute them. */
static void check_kernel(const char *what, tsr__kernel_op op, tsr_dtype common, int ndim,
                         const int64_t *sizes, int nops, const operand_spec *ops, double alpha,
                         int64_t zeros)
{
    struct {
        tsr__kernel kernel;
        unsigned char *host[TSR__KERNEL_MAX_OPERANDS];
    } p;
    memset(&p, 0, sizeof p);
    tsr__kernel *k = &p.kernel;
    k->op = op;
    k->common = common;
    k->ndim = ndim;
    k->noperands = (uint32_t)nops;
    for (int d = 0; d < ndim; d++)
        k->sizes[d] = sizes[d];
    unsigned char *store[TSR__KERNEL_MAX_OPERANDS] = {NULL};
    size_t bytes[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int i = 0; i < nops; i++) {
        tsr__kernel_operand *o = &k->operands[i];
        o->dtype = (uint32_t)ops[i].dtype;
        if (ops[i].scalar) {
            o->flags = TSR__KOPERAND_SCALAR;
            unsigned char e[16] = {0};
            do
                random_element(common, e);
            while (not_finite(common, e, tsr_dtype_is_complex(common)) &&
                   (i == 2 || tsr_dtype_is_complex(common)));
            if (zeros != RANDOM_ZEROS && i == 2)
                no_zeros(common, e, 1);
            memcpy(k->scalar, e, sizeof k->scalar);
            continue;
        }
        o->offset = ops[i].offset;
        memcpy(o->strides, ops[i].strides, sizeof o->strides);
        int64_t n = extent(ndim, sizes, &ops[i]);
        bytes[i] = (size_t)n * tsr_dtype_itemsize(ops[i].dtype);
        store[i] = malloc(bytes[i]);
        if (i == 2 || tsr_dtype_is_complex(ops[i].dtype))
            random_fill_finite(ops[i].dtype, store[i], n, tsr_dtype_is_complex(ops[i].dtype));
        else
            random_fill(ops[i].dtype, store[i], n);
        if (i == 2 && zeros != RANDOM_ZEROS)
            no_zeros(ops[i].dtype, store[i], n);
        if (i == 2 && zeros >= 0)
            memset(store[i] + (size_t)zeros * tsr_dtype_itemsize(ops[i].dtype), 0,
                   tsr_dtype_itemsize(ops[i].dtype));
        p.host[i] = store[i];
    }
    if (op == TSR__KOP_ADD || op == TSR__KOP_SUB)
        set_alpha(common, alpha, k->alpha);
    unsigned char *before = malloc(bytes[0]), *fast = malloc(bytes[0]), *fast2 = malloc(bytes[0]);
    memcpy(before, store[0], bytes[0]);

    tsr__cpu_fast_enable(true);
    tsr__cpu_stream_threshold_set(1);
    tsr_status st_fast = tsr__host_elementwise(&p.kernel, p.host, 0);
    memcpy(fast, store[0], bytes[0]);
    memcpy(store[0], before, bytes[0]);
    tsr__cpu_stream_threshold_set(0);
    tsr_status st_fast2 = tsr__host_elementwise(&p.kernel, p.host, 0);
    memcpy(fast2, store[0], bytes[0]);
    memcpy(store[0], before, bytes[0]);
    tsr__cpu_fast_enable(false);
    tsr_status st_ref = tsr__host_elementwise(&p.kernel, p.host, 0);
    tsr__cpu_fast_enable(true);

    ASSERT_EQ(st_fast, st_ref);
    ASSERT_EQ(st_fast2, st_ref);
    char name[160];
    snprintf(name, sizeof name, "%s (%s, streamed)", what, tsr_dtype_name(common));
    same_bytes(fast, store[0], bytes[0], name);
    snprintf(name, sizeof name, "%s (%s)", what, tsr_dtype_name(common));
    same_bytes(fast2, store[0], bytes[0], name);
    free(before);
    free(fast);
    free(fast2);
    for (int i = 0; i < nops; i++)
        free(store[i]);
}

static const tsr_dtype arith_dtypes[] = {
    TSR_BOOL,    TSR_UINT8,    TSR_INT8,    TSR_INT16,   TSR_INT32,     TSR_INT64,
    TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64, TSR_COMPLEX64, TSR_COMPLEX128,
};
#define ARITH_COUNT (sizeof arith_dtypes / sizeof arith_dtypes[0])

static bool computes(tsr__kernel_op op, tsr_dtype dt)
{
    return tsr__kernel_row_for(op, dt) != NULL;
}

/* a.t() + b (and both transposed) over shapes around the tile size. */
static void check_transposed_kernels(void)
{
    static const int64_t shapes[][2] = {{3, 5}, {129, 257}, {300, 517}};
    static const tsr__kernel_op ops[] = {TSR__KOP_ADD, TSR__KOP_SUB, TSR__KOP_MUL, TSR__KOP_DIV,
                                         TSR__KOP_DIV_TRUNC};
    for (size_t d = 0; d < ARITH_COUNT; d++) {
        tsr_dtype dt = arith_dtypes[d];
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            if (!computes(ops[o], dt))
                continue;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                int64_t n1 = shapes[s][0], n0 = shapes[s][1];
                for (int both = 0; both < 2; both++) {
                    operand_spec spec[3] = {
                        {.dtype = dt, .strides = {n0, 1}},
                        {.dtype = dt, .offset = 3, .strides = {1, n1 + 2}},
                        {.dtype = dt, .offset = 1, .strides = {n0 + 1, 1}},
                    };
                    if (both)
                        spec[2] = (operand_spec){.dtype = dt, .strides = {1, n1}};
                    check_kernel(both ? "a.t() + b.t()" : "a.t() + b", ops[o], dt, 2, shapes[s], 3,
                                 spec, o == 0 ? 1 : -1, NO_ZEROS);
                    if (o == 0)
                        check_kernel("a.t() + 2 * b", ops[o], dt, 2, shapes[s], 3, spec, 2,
                                     NO_ZEROS);
                    /* One thread's worth with zero divisors: the same
                     * elements are written before the error. */
                    static const int64_t serial[2] = {100, 300};
                    operand_spec zs[3] = {
                        {.dtype = dt, .strides = {300, 1}},
                        {.dtype = dt, .strides = {1, 100}},
                        {.dtype = dt, .strides = {300, 1}},
                    };
                    if (ops[o] == TSR__KOP_DIV_TRUNC && s == 0) {
                        check_kernel("a.t() / b with zeros", ops[o], dt, 2, serial, 3, zs, 1,
                                     RANDOM_ZEROS);
                        /* One zero, in the second row of 64 x 64 tiles. */
                        check_kernel("a.t() / b with a zero", ops[o], dt, 2, serial, 3, zs, 1,
                                     70 * 300 + 10);
                    }
                }
            }
        }
    }
}

/* contiguous(channels_last) of N x C x H x W: [N, H*W, C] from strides
 * [C*H*W, 1, H*W]; and a transposed copy with a dtype change. */
static void check_transposed_copies(void)
{
    static const tsr_dtype dts[] = {TSR_UINT8, TSR_INT16, TSR_FLOAT32, TSR_FLOAT64, TSR_COMPLEX128};
    static const int64_t shapes[][3] = {{2, 50, 13}, {1, 3, 2}, {2, 3136, 64}};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t hw = shapes[s][1], c = shapes[s][2];
            operand_spec spec[2] = {
                {.dtype = dts[d], .strides = {hw * c, c, 1}},
                {.dtype = dts[d], .offset = 5, .strides = {c * hw, 1, hw}},
            };
            check_kernel("nchw -> nhwc", TSR__KOP_COPY, dts[d], 3, shapes[s], 2, spec, 1, NO_ZEROS);
            spec[1].dtype = TSR_FLOAT32;
            check_kernel("nchw -> nhwc from float32", TSR__KOP_COPY, dts[d], 3, shapes[s], 2, spec,
                         1, NO_ZEROS);
        }
    }
}

/* a[N, 1] + b[1, M], a tensor against a scalar, and contiguous rows long
 * enough to be cut into units and streamed. */
static void check_rows_kernels(void)
{
    static const tsr__kernel_op ops[] = {TSR__KOP_ADD, TSR__KOP_SUB, TSR__KOP_MUL, TSR__KOP_DIV,
                                         TSR__KOP_DIV_FLOOR};
    static const int64_t grid[2] = {37, 1029};
    static const int64_t line[1] = {70001};
    for (size_t d = 0; d < ARITH_COUNT; d++) {
        tsr_dtype dt = arith_dtypes[d];
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            if (!computes(ops[o], dt))
                continue;
            operand_spec bc[3] = {
                {.dtype = dt, .strides = {1029, 1}},
                {.dtype = dt, .offset = 1, .strides = {1, 0}},
                {.dtype = dt, .offset = 2, .strides = {0, 1}},
            };
            check_kernel("a[N,1] + b[1,M]", ops[o], dt, 2, grid, 3, bc, 1, NO_ZEROS);
            operand_spec sc[3] = {
                {.dtype = dt, .strides = {1}},
                {.dtype = dt, .offset = 3, .strides = {1}},
                {.dtype = dt, .scalar = true},
            };
            check_kernel("a + scalar", ops[o], dt, 1, line, 3, sc, -1, NO_ZEROS);
            sc[1] = (operand_spec){.dtype = dt, .scalar = true};
            sc[2] = (operand_spec){.dtype = dt, .offset = 1, .strides = {1}};
            check_kernel("scalar + b", ops[o], dt, 1, line, 3, sc, 1, NO_ZEROS);
            operand_spec flat[3] = {
                {.dtype = dt, .offset = 1, .strides = {1}},
                {.dtype = dt, .strides = {1}},
                {.dtype = dt, .offset = 7, .strides = {1}},
            };
            check_kernel("a + b", ops[o], dt, 1, line, 3, flat, 1, NO_ZEROS);
            /* One thread's worth, with zero divisors: the rows stop at the
             * first, streamed or not. */
            static const int64_t small[1] = {3001};
            check_kernel("a / b with zeros", ops[o], dt, 1, small, 3, flat, 1, RANDOM_ZEROS);
        }
    }
}

/* int32 with float32 into float32 (one pass), and around it the block
 * paths: into float16, with int64, with a scalar. */
static void check_mixed_kernels(void)
{
    static const tsr__kernel_op ops[] = {TSR__KOP_ADD, TSR__KOP_SUB, TSR__KOP_MUL, TSR__KOP_DIV};
    static const int64_t line[1] = {70001}, grid[2] = {37, 1029};
    static const tsr_dtype others[] = {TSR_INT32, TSR_INT64,   TSR_INT16,
                                       TSR_UINT8, TSR_FLOAT16, TSR_BFLOAT16};
    static const tsr_dtype outs[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_FLOAT64};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
            for (size_t u = 0; u < sizeof outs / sizeof outs[0]; u++) {
                for (int order = 0; order < 2; order++) {
                    tsr_dtype da = order ? TSR_FLOAT32 : others[i];
                    tsr_dtype db = order ? others[i] : TSR_FLOAT32;
                    operand_spec flat[3] = {
                        {.dtype = outs[u], .strides = {1}},
                        {.dtype = da, .offset = 1, .strides = {1}},
                        {.dtype = db, .offset = 2, .strides = {1}},
                    };
                    double alpha = o == 1 ? -1 : u == 2 ? 0.5 : 1;
                    check_kernel("mixed a + b", ops[o], TSR_FLOAT32, 1, line, 3, flat, alpha,
                                 NO_ZEROS);
                    operand_spec bc[3] = {
                        {.dtype = outs[u], .strides = {1029, 1}},
                        {.dtype = da, .strides = {1, 0}},
                        {.dtype = db, .strides = {0, 1}},
                    };
                    check_kernel("mixed a[N,1] + b[1,M]", ops[o], TSR_FLOAT32, 2, grid, 3, bc,
                                 alpha, NO_ZEROS);
                    flat[2] = (operand_spec){.dtype = db, .scalar = true};
                    check_kernel("mixed a + scalar", ops[o], TSR_FLOAT32, 1, line, 3, flat, alpha,
                                 NO_ZEROS);
                    operand_spec tr[3] = {
                        {.dtype = outs[u], .strides = {1029, 1}},
                        {.dtype = da, .strides = {1, 37}},
                        {.dtype = db, .strides = {1029, 1}},
                    };
                    check_kernel("mixed a.t() + b", ops[o], TSR_FLOAT32, 2, grid, 3, tr, alpha,
                                 NO_ZEROS);
                }
            }
        }
    }
}

/* float32 and float64 rows of contiguous inputs or single elements,
 * stored around the caches: the bits of the generic row, the first
 * input's NaN where two meet (settle_nans), at every alignment of the
 * output. */
static void check_stream_op(void)
{
    static const tsr__kernel_op ops[] = {TSR__KOP_ADD, TSR__KOP_SUB, TSR__KOP_MUL, TSR__KOP_DIV};
    static const tsr_dtype dts[] = {TSR_FLOAT32, TSR_FLOAT64};
    enum { CAP = (1031 + 16) * 8 };
    static unsigned char a[CAP], b[CAP], fast[CAP], ref[CAP];
    if (!tsr__cpu_stream_available())
        return;
    for (size_t d = 0; d < 2; d++) {
        tsr_dtype dt = dts[d];
        int64_t w = (int64_t)tsr_dtype_itemsize(dt);
        uint8_t alpha[16] = {0};
        set_alpha(dt, 1, alpha);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            int fop = tsr__cpu_fast_op_of(ops[o], dt, alpha);
            ASSERT_TRUE(fop >= 0);
            for (int layout = 1; layout < 4; layout++) {
                int64_t sa = layout & 1, sb = layout >> 1;
                for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                    int64_t n = lengths[li], off = (int64_t)(next_random() % 16) * w;
                    random_fill(dt, a, CAP / w);
                    random_fill(dt, b, CAP / w);
                    memset(fast, 0xA5, sizeof fast);
                    memset(ref, 0xA5, sizeof ref);
                    ASSERT_TRUE(tsr__cpu_fast_stream_op(dt, (tsr__cpu_fast_op)fop, fast + off,
                                                        a + off, sa, b + off, sb, n));
                    tsr__cpu_stream_fence();
                    const int64_t st[4] = {w, sa * w, sb * w, 0};
                    int bad = 0;
                    tsr__cpu_fast_enable(false);
                    (void)tsr__kernel_row_for(ops[o], dt)(ref + off, a + off, b + off, NULL, n, st,
                                                          alpha, &bad);
                    tsr__cpu_fast_enable(true);
                    char name[96];
                    snprintf(name, sizeof name, "%s op %d layout %d, streamed, n %lld",
                             tsr_dtype_name(dt), (int)ops[o], layout, (long long)n);
                    settle_nans(dt, dt, a + off, dt, b + off, st, n, fast + off, ref + off, name);
                    same_bytes(fast, ref, sizeof fast, name);
                }
            }
            /* Strides other than 0 and 1 are not this loop's. */
            ASSERT_TRUE(!tsr__cpu_fast_stream_op(dt, (tsr__cpu_fast_op)fop, fast, a, 0, b, 0, 8));
            ASSERT_TRUE(!tsr__cpu_fast_stream_op(dt, (tsr__cpu_fast_op)fop, fast, a, 2, b, 1, 8));
        }
    }
}

/* ---- float32 comparisons and where ------------------------------------------- */

/* The rows' value slots (tsr__kernel_row_alpha), unused by these. */
static const uint8_t no_alpha[32];

static const tsr__kernel_op compare_ops[] = {TSR__KOP_EQ, TSR__KOP_NE, TSR__KOP_LT,
                                             TSR__KOP_LE, TSR__KOP_GT, TSR__KOP_GE};
#define COMPARE_COUNT (sizeof compare_ops / sizeof compare_ops[0])

/* tsr__cpu_fast_compare and tsr__cpu_fast_where against the generic
 * answer: the float32 row loop, its float32 result converted to bool by
 * tsr__kernel_convert (a comparison), the condition converted to float32
 * first (where). NaNs in both inputs, conditions of any byte value, every
 * length above from a random offset, with what lies around the output. */
static void check_bool_rows(void)
{
    enum { CAP = 1031 + 16 };
    static float a[CAP], b[CAP], fast_f[CAP], ref_f[CAP], cf[CAP];
    static uint8_t fast[CAP], ref[CAP], c[CAP];
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int64_t n = lengths[li], off = (int64_t)(next_random() % 8);
        random_fill(TSR_FLOAT32, (unsigned char *)a, CAP);
        random_fill(TSR_FLOAT32, (unsigned char *)b, CAP);
        for (size_t o = 0; o < COMPARE_COUNT; o++) {
            for (int layout = 0; layout < 4; layout++) {
                int64_t sa = layout & 1 ? 0 : 1, sb = layout & 2 ? 0 : 1;
                const int64_t st[4] = {4, sa * 4, sb * 4, 0};
                int bad = 0;
                memset(fast, 0xA5, sizeof fast);
                memset(ref, 0xA5, sizeof ref);
                bool ran = tsr__cpu_fast_compare(compare_ops[o], TSR_FLOAT32, fast + off, a + off,
                                                 sa, b + off, sb, n, (li + layout) % 2 == 1);
                tsr__cpu_fast_enable(false);
                (void)tsr__kernel_row_for(compare_ops[o], TSR_FLOAT32)(
                    (unsigned char *)ref_f, (const unsigned char *)(a + off),
                    (const unsigned char *)(b + off), NULL, n, st, no_alpha, &bad);
                ASSERT_EQ(tsr__kernel_convert(ref_f, TSR_FLOAT32, ref + off, TSR_BOOL, (size_t)n),
                          TSR_OK);
                tsr__cpu_fast_enable(true);
                char name[96];
                snprintf(name, sizeof name, "compare op %d layout %d n %lld", (int)compare_ops[o],
                         layout, (long long)n);
                if (ran)
                    same_bytes(fast, ref, sizeof fast, name);
            }
        }
        for (int k = 0; k < CAP; k++) {
            uint64_t r = next_random();
            c[k] = r % 3 == 0 ? 0 : r % 3 == 1 ? 1 : (uint8_t)(r >> 8);
        }
        memset(fast_f, 0xA5, sizeof fast_f);
        memset(ref_f, 0xA5, sizeof ref_f);
        bool ran = tsr__cpu_fast_where(TSR_FLOAT32, fast_f + off, c + off, a + off, b + off, n,
                                       li % 2 == 1);
        tsr__cpu_fast_enable(false);
        ASSERT_EQ(tsr__kernel_convert(c + off, TSR_BOOL, cf, TSR_FLOAT32, (size_t)n), TSR_OK);
        const int64_t st[4] = {4, 4, 4, 4};
        int bad = 0;
        (void)tsr__kernel_row_for(TSR__KOP_WHERE, TSR_FLOAT32)(
            (unsigned char *)(ref_f + off), (const unsigned char *)cf,
            (const unsigned char *)(a + off), (const unsigned char *)(b + off), n, st, no_alpha,
            &bad);
        tsr__cpu_fast_enable(true);
        char name[64];
        snprintf(name, sizeof name, "where n %lld", (long long)n);
        if (ran)
            same_bytes(fast_f, ref_f, sizeof fast_f, name);
    }
}

/* Whole comparison and where kernels: contiguous (the one-pass rows),
 * with a scalar, broadcast and transposed (the blocks), streamed or not,
 * split between two threads. */
static void check_bool_kernels(void)
{
    static const int64_t line[1] = {70001}, grid[2] = {37, 1029};
    for (size_t o = 0; o < COMPARE_COUNT; o++) {
        operand_spec flat[3] = {
            {.dtype = TSR_BOOL, .offset = 3, .strides = {1}},
            {.dtype = TSR_FLOAT32, .offset = 1, .strides = {1}},
            {.dtype = TSR_FLOAT32, .offset = 2, .strides = {1}},
        };
        check_kernel("a < b", compare_ops[o], TSR_FLOAT32, 1, line, 3, flat, 1, NO_ZEROS);
        flat[2] = (operand_spec){.dtype = TSR_FLOAT32, .scalar = true};
        check_kernel("a < scalar", compare_ops[o], TSR_FLOAT32, 1, line, 3, flat, 1, NO_ZEROS);
        operand_spec bc[3] = {
            {.dtype = TSR_BOOL, .strides = {1029, 1}},
            {.dtype = TSR_FLOAT32, .strides = {1, 0}},
            {.dtype = TSR_FLOAT32, .strides = {0, 1}},
        };
        check_kernel("a[N,1] < b[1,M]", compare_ops[o], TSR_FLOAT32, 2, grid, 3, bc, 1, NO_ZEROS);
        operand_spec tr[3] = {
            {.dtype = TSR_BOOL, .strides = {1029, 1}},
            {.dtype = TSR_FLOAT32, .strides = {1, 37}},
            {.dtype = TSR_FLOAT32, .strides = {1029, 1}},
        };
        check_kernel("a.t() < b", compare_ops[o], TSR_FLOAT32, 2, grid, 3, tr, 1, NO_ZEROS);
    }
    operand_spec flat[4] = {
        {.dtype = TSR_FLOAT32, .offset = 1, .strides = {1}},
        {.dtype = TSR_BOOL, .offset = 5, .strides = {1}},
        {.dtype = TSR_FLOAT32, .offset = 2, .strides = {1}},
        {.dtype = TSR_FLOAT32, .strides = {1}},
    };
    check_kernel("where(c, a, b)", TSR__KOP_WHERE, TSR_FLOAT32, 1, line, 4, flat, 1, NO_ZEROS);
    flat[3] = (operand_spec){.dtype = TSR_FLOAT32, .scalar = true};
    check_kernel("where(c, a, scalar)", TSR__KOP_WHERE, TSR_FLOAT32, 1, line, 4, flat, 1, NO_ZEROS);
    operand_spec bc[4] = {
        {.dtype = TSR_FLOAT32, .strides = {1029, 1}},
        {.dtype = TSR_BOOL, .strides = {1, 0}},
        {.dtype = TSR_FLOAT32, .strides = {1029, 1}},
        {.dtype = TSR_FLOAT32, .strides = {0, 1}},
    };
    check_kernel("where(c[N,1], a, b[1,M])", TSR__KOP_WHERE, TSR_FLOAT32, 2, grid, 4, bc, 1,
                 NO_ZEROS);
}

/* float32 relu and abs stored around the caches: the generic row's bits
 * (specials and NaNs included) at every length and alignment above, and
 * whole kernels, streamed or not. */
static void check_stream_unary(void)
{
    /* relu and abs (cpu_fast.c's own rows), then cpu_unary.c's vector
     * rows with their stores around the caches */
    static const tsr__kernel_op ops[] = {TSR__KOP_RELU, TSR__KOP_ABS,  TSR__KOP_EXP,
                                         TSR__KOP_LOG,  TSR__KOP_TANH, TSR__KOP_SIGMOID,
                                         TSR__KOP_SILU, TSR__KOP_GELU, TSR__KOP_GELU_TANH};
    enum { CAP = 1031 + 16 };
    static float a[CAP], fast[CAP], ref[CAP];
    static const int64_t line[1] = {70001};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            int64_t n = lengths[li], off = (int64_t)(next_random() % 8);
            random_fill(TSR_FLOAT32, (unsigned char *)a, CAP);
            memset(fast, 0xA5, sizeof fast);
            memset(ref, 0xA5, sizeof ref);
            bool ran = tsr__cpu_fast_stream_unary(ops[o], TSR_FLOAT32, fast + off, a + off, n);
            tsr__cpu_stream_fence();
            const int64_t st[4] = {4, 4, 0, 0};
            int bad = 0;
            tsr__cpu_fast_enable(false);
            (void)tsr__kernel_row_for(ops[o], TSR_FLOAT32)(
                (unsigned char *)(ref + off), (const unsigned char *)(a + off),
                (const unsigned char *)a, NULL, n, st, no_alpha, &bad);
            tsr__cpu_fast_enable(true);
            char name[64];
            snprintf(name, sizeof name, "streamed op %d n %lld", (int)ops[o], (long long)n);
            if (ran)
                same_bytes(fast, ref, sizeof fast, name);
        }
        operand_spec flat[2] = {
            {.dtype = TSR_FLOAT32, .offset = 3, .strides = {1}},
            {.dtype = TSR_FLOAT32, .offset = 1, .strides = {1}},
        };
        check_kernel("relu(a)", ops[o], TSR_FLOAT32, 1, line, 2, flat, 1, NO_ZEROS);
    }
}

int main(void)
{
    /* Two threads, so that the kernels above PARALLEL_MIN elements are
     * split between them (the pool reads this once). */
    setenv("TESSERA_NUM_THREADS", "2", 1);
    check_rows();
    check_stream_op();
    check_mixed_rows();
    check_conversions();
    check_transpose();
    check_stream_store();
    check_transposed_kernels();
    check_transposed_copies();
    check_rows_kernels();
    check_mixed_kernels();
    check_bool_rows();
    check_bool_kernels();
    check_stream_unary();
    /* The loops compared above did run here. */
    uint16_t h[8] = {0};
    float f[8] = {0};
    ASSERT_TRUE(tsr__cpu_fast_scalar_first(TSR_FLOAT32, TSR__FAST_ADD, f, f, f, 8));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned eax, ebx, ecx = 0, edx;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
        (ecx & bit_F16C)) {
        ASSERT_TRUE(tsr__cpu_fast_reduced(TSR_FLOAT16, TSR__FAST_ADD, h, h, 1, h, 1, 8));
        ASSERT_TRUE(
            tsr__cpu_fast_compare(TSR__KOP_LT, TSR_FLOAT32, (uint8_t *)h, f, 1, f, 1, 8, false));
        ASSERT_TRUE(tsr__cpu_fast_where(TSR_FLOAT32, f, (const uint8_t *)h, f, f, 8, false));
        ASSERT_TRUE(tsr__cpu_fast_stream_unary(TSR__KOP_RELU, TSR_FLOAT32, f, f, 8));
    }
#endif
    (void)h;
    TEST_DONE();
}
