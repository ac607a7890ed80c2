/* The cpu device's unary rows (kernels/cpu_unary.c, through
 * tsr__cpu_fast_unary) against the generic row loops, bit for bit.
 *
 * The row of every unary operation and floating dtype runs twice over the
 * same inputs, with the fast paths on and off (tsr__cpu_fast_enable), and
 * the outputs must be the same bytes, NaNs included:
 *   - float32 exp, log, tanh, sigmoid, gelu, silu and gelu's tanh form
 *     (the vector rows): a stride of 251 through all 2^32 bit patterns
 *     (17 million inputs, every exponent and sign; TSR_UNARY_EXHAUSTIVE=1:
 *     all of them), then dense runs
 *     around the edges of their common paths (exp's overflow and
 *     subnormal results, log's smallest normal, tanh's saturation,
 *     sigmoid's switches, gelu's ways through erfc and its table's
 *     rows, silu's and the tanh form's sigmoid), and the special values;
 *   - bfloat16 and float16 rows: every bit pattern;
 *   - every other float32 and the float64 rows: random bits and special
 *     values, a million each;
 * each run as rows of 1 to 17 elements from odd offsets too (the vector
 * rows' last, partial vector). On a cpu without AVX2, FMA and F16C the
 * fast rows do not exist and the test checks that they say so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "tessera/convert.h"
#include "test.h"

#define CHUNK 65536

static uint64_t rng_state = 20261126;

static int report_budget = 40;

static bool has_fast(void)
{
    float x = 1, y;
    return tsr__cpu_fast_unary(TSR__KOP_EXP, TSR_FLOAT32, &y, &x, 1);
}

/* Runs the row of (op, dt) over n elements of `in` (packed, width w)
 * with the fast paths on and off and compares the two outputs. */
static void compare(tsr__kernel_op op, tsr_dtype dt, const unsigned char *in, int64_t n,
                    const char *what)
{
    static unsigned char fast[CHUNK * 8 + 64], ref[CHUNK * 8 + 64];
    size_t w = tsr_dtype_itemsize(dt);
    const int64_t st[4] = {(int64_t)w, (int64_t)w, 0, 0};
    tsr__kernel_row row = tsr__kernel_row_for(op, dt);
    if (row == NULL)
        return;
    int bad = 0;
    uint8_t alpha[64] = {0}; /* the REPLACE rows read three values past alpha */
    memset(fast, 0xA5, n * w + 64);
    memset(ref, 0xA5, n * w + 64);
    tsr__cpu_fast_enable(true);
    (void)row(fast, in, in, NULL, n, st, alpha, &bad);
    tsr__cpu_fast_enable(false);
    (void)row(ref, in, in, NULL, n, st, alpha, &bad);
    tsr__cpu_fast_enable(true);
    if (memcmp(fast, ref, n * w + 64) == 0) {
        test__passed++;
        return;
    }
    test__failed++;
    static int last_op = -1, last_dt = -1;
    if ((int)op != last_op || (int)dt != last_dt)
        report_budget = 4;
    last_op = (int)op;
    last_dt = (int)dt;
    int shown = 0;
    for (int64_t i = 0; i < n + 64 / (int64_t)w && report_budget > 0 && shown < 2; i++) {
        if (memcmp(fast + i * w, ref + i * w, w) == 0)
            continue;
        uint64_t x = 0, f = 0, r = 0;
        if (i < n)
            memcpy(&x, in + i * w, w);
        memcpy(&f, fast + i * w, w);
        memcpy(&r, ref + i * w, w);
        fprintf(stderr, "%s %s %s: element %lld input %llx: fast %llx generic %llx\n",
                tsr__kernel_op_stub(op), tsr_dtype_name(dt), what, (long long)i,
                (unsigned long long)x, (unsigned long long)f, (unsigned long long)r);
        report_budget--;
        shown++;
    }
}

/* Also as short rows from odd places: the vector rows' partial vector;
 * and rows of 60 to 100 elements, where a pipelined row (sigmoid's)
 * starts, ends after one round or two, and leaves its rest to the plain
 * row. */
static void compare_short(tsr__kernel_op op, tsr_dtype dt, const unsigned char *in, int64_t n)
{
    compare(op, dt, in, n, "row");
    size_t w = tsr_dtype_itemsize(dt);
    for (int64_t len = 1, at = 0; len <= 17 && at + len <= n; at += len + 3, len++)
        compare(op, dt, in + at * w, len, "short row");
    for (int64_t len = 60, at = 5; len <= 100 && at + len <= n; at += len + 7, len++)
        compare(op, dt, in + at * w, len, "medium row");
}

static const uint32_t f32_special[] = {
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA00001,
    0x7FFFFFFF, 0x7FC12345, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000, 0x3F3504F3, 0x3FB504F3, 0x3FB504F2, 0x42B17218,
    0x42B17217, 0xC2AEAC50, 0xC2AEAC4F, 0xC2CE8ED0, 0x42B20000, 0xC2D00000, 0x41180000, 0xC1180000,
    0xC2100000, 0x418C0000, 0x418C0001, 0x33000000, 0xB3000000, 0x3C000000, 0x40400000,
};

static void fill_special_f32(float *buf, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = test_next_u64(&rng_state);
        uint32_t u =
            (r >> 8) % 2 ? (uint32_t)(r >> 32) : f32_special[(r >> 16) % (sizeof f32_special / 4)];
        memcpy(&buf[i], &u, 4);
    }
}

/* Dense runs of float32 values: `count` values stepping by the ulp from
 * each centre. */
static void run_dense(tsr__kernel_op op, float *buf, const float *centres, size_t ncentres)
{
    for (size_t c = 0; c < ncentres; c++) {
        uint32_t u;
        memcpy(&u, &centres[c], 4);
        for (int64_t i = 0; i < CHUNK; i++) {
            uint32_t v = u - CHUNK / 2 + (uint32_t)i;
            memcpy(&buf[i], &v, 4);
        }
        compare_short(op, TSR_FLOAT32, (const unsigned char *)buf, CHUNK);
        /* and the same magnitudes in wider steps, both signs */
        for (int64_t i = 0; i < CHUNK; i++) {
            uint32_t v = (u - (uint32_t)CHUNK * 32 + (uint32_t)i * 64) ^ (i % 2 ? 0x80000000u : 0);
            memcpy(&buf[i], &v, 4);
        }
        compare(op, TSR_FLOAT32, (const unsigned char *)buf, CHUNK, "wide");
    }
}

static void check_vector_f32(void)
{
    static float buf[CHUNK];
    static const tsr__kernel_op ops[] = {TSR__KOP_EXP,      TSR__KOP_LOG,  TSR__KOP_TANH,
                                         TSR__KOP_SIGMOID,  TSR__KOP_GELU, TSR__KOP_SILU,
                                         TSR__KOP_GELU_TANH};
    static const float edges[] = {88.72f,   -87.33f,     -103.9f,   89.0f,     -104.0f, 0x1p-126f,
                                  1.0f,     0.70710677f, 9.5f,      -9.5f,     -36.0f,  17.5f,
                                  0x1p-20f, -0x1p-20f,   0.25f,     -0.25f,    -87.68f, 0.75f,
                                  -1.5f,    2.25f,       2.5f,      -2.5f,     1024.0f, -1024.0f,
                                  -6.98f,   5.4f,        0.703125f, -0.703125f};
    const char *all = getenv("TSR_UNARY_EXHAUSTIVE");
    uint64_t stride = all && strcmp(all, "1") == 0 ? 1 : 251;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        uint64_t u = 0;
        while (u < (UINT64_C(1) << 32)) {
            int64_t n = 0;
            for (; n < CHUNK && u < (UINT64_C(1) << 32); n++, u += stride) {
                uint32_t v = (uint32_t)u;
                memcpy(&buf[n], &v, 4);
            }
            compare(ops[o], TSR_FLOAT32, (const unsigned char *)buf, n, "sweep");
        }
        run_dense(ops[o], buf, edges, sizeof edges / sizeof edges[0]);
        fill_special_f32(buf, CHUNK);
        compare_short(ops[o], TSR_FLOAT32, (const unsigned char *)buf, CHUNK);
    }
}

/* Every unary row of every floating dtype. */
static void check_all_rows(void)
{
    static unsigned char buf[CHUNK * 8];
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        const tsr__kernel_op_info *info = tsr__kernel_op_info_of((tsr__kernel_op)op);
        if (info == NULL || info->arity != 1)
            continue;
        /* float16 and bfloat16: every pattern */
        static const tsr_dtype halves[] = {TSR_FLOAT16, TSR_BFLOAT16};
        for (size_t d = 0; d < 2; d++) {
            uint16_t *h = (uint16_t *)buf;
            for (int64_t i = 0; i < CHUNK; i++)
                h[i] = (uint16_t)i;
            compare_short((tsr__kernel_op)op, halves[d], buf, CHUNK);
        }
        /* float32 and float64: random bits and special values */
        for (int rep = 0; rep < 16; rep++) {
            fill_special_f32((float *)buf, CHUNK);
            compare_short((tsr__kernel_op)op, TSR_FLOAT32, buf, CHUNK);
            for (int64_t i = 0; i < CHUNK; i++) {
                uint64_t r = test_next_u64(&rng_state);
                double v;
                if (r % 4 == 0)
                    v = (double)((float *)buf)[i]; /* the float32 specials, widened */
                else if (r % 4 == 1)
                    v = (double)(int64_t)(r >> 40) / 4096.0; /* moderate values */
                else
                    memcpy(&v, &r, 8);
                memcpy(buf + i * 8, &v, 8);
            }
            compare_short((tsr__kernel_op)op, TSR_FLOAT64, buf, CHUNK);
        }
    }
}

int main(void)
{
    bool fast = has_fast();
    printf("unary fast rows: %s\n", fast ? "yes" : "none on this cpu");
    check_vector_f32();
    check_all_rows();
    /* With the fast paths off, nothing answers. */
    float x = 1, y;
    tsr__cpu_fast_enable(false);
    ASSERT_FALSE(tsr__cpu_fast_unary(TSR__KOP_EXP, TSR_FLOAT32, &y, &x, 1));
    tsr__cpu_fast_enable(true);
    ASSERT_FALSE(tsr__cpu_fast_unary(TSR__KOP_ADD, TSR_FLOAT32, &y, &x, 1));
    ASSERT_FALSE(tsr__cpu_fast_unary(TSR__KOP_EXP, TSR_INT32, &y, &x, 1));
    TEST_DONE();
}
