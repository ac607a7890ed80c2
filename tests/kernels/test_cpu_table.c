/* The float16 and bfloat16 unary rows read from tables (kernels/cpu_table.c,
 * tsr__cpu_table_row) against the generic row loops, bit for bit.
 *
 *   - Which rows have tables, from core/ops.def: exp, log, sqrt, tanh,
 *     abs, floor, ... of bfloat16, those of float16 that PyTorch computes
 *     in float16 (abs, neg, exp2, ...; not exp or sqrt, which it refuses),
 *     never a bool result (isnan), an operation with a parameter
 *     (nan_to_num, clamp_min) or one of two inputs.
 *   - When a table is filled: not for a short row, once the rows of an
 *     operation have computed 65536 elements without one.
 *   - Every one of the 65536 inputs of every such operation and dtype:
 *     the generic loop's answer (the fast paths off) against the table's
 *     (on), contiguous, in a shuffled order, strided, from a
 *     broadcast input, in place, and as short rows from odd offsets.
 *   - Two threads that fill the same table at once get the same bits.
 * Every table is kept here (tsr__cpu_table_keep_all), including those
 * that the library would drop for a row that computes faster than it
 * looks up.
 * Each comparison includes the bytes past the row, which must stay
 * untouched. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "test.h"

#define ENTRIES 65536
#define PAD 64 /* bytes after each output that a row must leave alone */

static uint64_t rng_state = 20261127;

static int report_budget = 20;

static const int64_t packed[4] = {2, 2, 0, 0};

/* The row of (op, dt) over n elements at strides st, with the fast paths
 * on or off, into `out` (PAD bytes beyond the last element marked). */
static void run(tsr__kernel_op op, tsr_dtype dt, bool fast, unsigned char *out, size_t out_bytes,
                const unsigned char *in, int64_t n, const int64_t st[4])
{
    uint8_t alpha[16] = {0};
    int bad = 0;
    memset(out, 0xA5, out_bytes + PAD);
    tsr__cpu_fast_enable(fast);
    int64_t done = tsr__kernel_row_for(op, dt)(out, in, in, in, n, st, alpha, &bad);
    tsr__cpu_fast_enable(true);
    ASSERT_EQ(done, n);
    ASSERT_EQ(bad, 0);
}

static void expect_same(tsr__kernel_op op, tsr_dtype dt, const unsigned char *got,
                        const unsigned char *want, size_t bytes, const char *what)
{
    if (memcmp(got, want, bytes + PAD) == 0) {
        test__passed++;
        return;
    }
    test__failed++;
    for (size_t i = 0; i + 2 <= bytes + PAD && report_budget > 0; i += 2) {
        if (memcmp(got + i, want + i, 2) == 0)
            continue;
        uint16_t g, w;
        memcpy(&g, got + i, 2);
        memcpy(&w, want + i, 2);
        fprintf(stderr, "%s %s %s: byte %zu: table %04x generic %04x\n", tsr__kernel_op_stub(op),
                tsr_dtype_name(dt), what, i, g, w);
        report_budget--;
        break;
    }
}

/* The same row with the fast paths (the table) on and off. */
static void compare(tsr__kernel_op op, tsr_dtype dt, const unsigned char *in, int64_t n,
                    const int64_t st[4], const char *what)
{
    static unsigned char got[ENTRIES * 4 + PAD], want[ENTRIES * 4 + PAD];
    size_t bytes = n > 0 ? (size_t)((n - 1) * st[0] + 2) : 0;
    run(op, dt, true, got, bytes, in, n, st);
    run(op, dt, false, want, bytes, in, n, st);
    expect_same(op, dt, got, want, bytes, what);
}

static bool is_table_row(tsr__kernel_op op, tsr_dtype dt)
{
    return tsr__cpu_table_covers(op, dt);
}

/* Known answers of the op table's columns. */
static void check_coverage(void)
{
    ASSERT_TRUE(is_table_row(TSR__KOP_EXP, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_LOG, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_TANH, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_SIGMOID, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_GELU, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_SQRT, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_FLOOR, TSR_BFLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_ABS, TSR_FLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_NEG, TSR_FLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_EXP2, TSR_FLOAT16));
    ASSERT_TRUE(is_table_row(TSR__KOP_SGN, TSR_FLOAT16));
    /* float16 exp and sqrt are refused (PyTorch 1.13's cpu has neither) */
    ASSERT_FALSE(is_table_row(TSR__KOP_EXP, TSR_FLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_SQRT, TSR_FLOAT16));
    /* bool results, parameters, two inputs, other dtypes */
    ASSERT_FALSE(is_table_row(TSR__KOP_ISNAN, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_SIGNBIT, TSR_FLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_LOGICAL_NOT, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_NAN_TO_NUM, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_CLAMP_MIN_SCALAR, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_ROUND_DECIMALS, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_ADD, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_COPY, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_SUM, TSR_BFLOAT16));
    ASSERT_FALSE(is_table_row(TSR__KOP_EXP, TSR_FLOAT32));
    ASSERT_FALSE(is_table_row(TSR__KOP_BITWISE_NOT, TSR_INT16));
    ASSERT_FALSE(is_table_row((tsr__kernel_op)TSR__KOP_COUNT, TSR_BFLOAT16));
}

/* A table comes only once the operation's rows have computed 65536
 * elements without one; with the fast paths off, never. */
static void check_when_filled(void)
{
    static uint16_t in[ENTRIES], out[ENTRIES + PAD];
    for (int64_t i = 0; i < ENTRIES; i++)
        in[i] = (uint16_t)(0x3F00 + i % 256);
    const tsr__kernel_op op = TSR__KOP_COS;
    ASSERT_FALSE(tsr__cpu_table_ready(op, TSR_BFLOAT16));
    run(op, TSR_BFLOAT16, false, (unsigned char *)out, 2 * ENTRIES, (unsigned char *)in, ENTRIES,
        packed);
    ASSERT_FALSE(tsr__cpu_table_ready(op, TSR_BFLOAT16));
    int64_t total = 0;
    for (int64_t n = 1000; total + n < ENTRIES; total += n) {
        run(op, TSR_BFLOAT16, true, (unsigned char *)out, 2 * (size_t)n, (unsigned char *)in, n,
            packed);
        ASSERT_FALSE(tsr__cpu_table_ready(op, TSR_BFLOAT16));
    }
    run(op, TSR_BFLOAT16, true, (unsigned char *)out, 2 * (size_t)(ENTRIES - total),
        (unsigned char *)in, ENTRIES - total, packed);
    ASSERT_TRUE(tsr__cpu_table_ready(op, TSR_BFLOAT16));
    ASSERT_FALSE(tsr__cpu_table_ready(op, TSR_FLOAT16)); /* float16 cos is refused */
    ASSERT_FALSE(tsr__cpu_table_ready(TSR__KOP_SIN, TSR_BFLOAT16));
}

/* Every input of (op, dt) in every layout. */
static void check_op(tsr__kernel_op op, tsr_dtype dt)
{
    static uint16_t in[ENTRIES * 3], copy[ENTRIES + PAD], shuffled[ENTRIES];
    for (int64_t i = 0; i < ENTRIES; i++)
        in[i] = (uint16_t)i;
    /* the first row fills the table, the second reads it */
    compare(op, dt, (const unsigned char *)in, ENTRIES, packed, "first row");
    ASSERT_TRUE(tsr__cpu_table_ready(op, dt));
    compare(op, dt, (const unsigned char *)in, ENTRIES, packed, "every input");

    for (int64_t i = 0; i < ENTRIES; i++)
        shuffled[i] = (uint16_t)i;
    for (int64_t i = ENTRIES - 1; i > 0; i--) {
        int64_t j = (int64_t)(test_next_u64(&rng_state) % (uint64_t)(i + 1));
        uint16_t t = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = t;
    }
    compare(op, dt, (const unsigned char *)shuffled, ENTRIES, packed, "shuffled");

    /* strided: every input at a stride of three elements into every other
     * element; one input throughout (a broadcast) */
    for (int64_t i = 0; i < ENTRIES; i++)
        in[3 * i] = shuffled[i];
    const int64_t strided[4] = {4, 6, 0, 0};
    compare(op, dt, (const unsigned char *)in, ENTRIES, strided, "strided");
    const int64_t broadcast[4] = {2, 0, 0, 0};
    for (int k = 0; k < 8; k++)
        compare(op, dt, (const unsigned char *)&shuffled[k], 1000, broadcast, "broadcast");

    /* short rows from odd places */
    for (int64_t len = 1, at = 0; len <= 17; at += len + 3, len++)
        compare(op, dt, (const unsigned char *)(shuffled + at), len, packed, "short row");

    /* in place: the output is the input */
    static unsigned char want[2 * ENTRIES + PAD];
    run(op, dt, false, want, 2 * ENTRIES, (const unsigned char *)shuffled, ENTRIES, packed);
    memcpy(copy, shuffled, sizeof shuffled);
    memset(copy + ENTRIES, 0xA5, PAD);
    uint8_t alpha[16] = {0};
    int bad = 0;
    (void)tsr__kernel_row_for(op, dt)((unsigned char *)copy, (const unsigned char *)copy,
                                      (const unsigned char *)copy, (const unsigned char *)copy,
                                      ENTRIES, packed, alpha, &bad);
    expect_same(op, dt, (const unsigned char *)copy, want, 2 * ENTRIES, "in place");
}

static void check_every_op(void)
{
    static const tsr_dtype dts[] = {TSR_FLOAT16, TSR_BFLOAT16};
    int covered = 0;
    for (int op = 1; op < TSR__KOP_COUNT; op++)
        for (size_t d = 0; d < 2; d++)
            if (is_table_row((tsr__kernel_op)op, dts[d])) {
                check_op((tsr__kernel_op)op, dts[d]);
                covered++;
            }
    printf("%d operations and dtypes checked through their tables\n", covered);
    ASSERT_TRUE(covered > 40);
}

/* Two threads whose rows cross the mark together. */
typedef struct filler {
    uint16_t out[ENTRIES + PAD];
} filler;

static uint16_t thread_in[ENTRIES];

static void *fill_thread(void *arg)
{
    const uint16_t *in = thread_in;
    filler *f = arg;
    uint8_t alpha[16] = {0};
    int bad = 0;
    for (int64_t at = 0; at < ENTRIES; at += 8192)
        (void)tsr__kernel_row_for(TSR__KOP_SIN, TSR_BFLOAT16)(
            (unsigned char *)(f->out + at), (const unsigned char *)(in + at),
            (const unsigned char *)in, (const unsigned char *)in, 8192, packed, alpha, &bad);
    return NULL;
}

static void check_threads(void)
{
    static filler f[2];
    static unsigned char want[2 * ENTRIES + PAD];
    const uint16_t *in = thread_in;
    for (int64_t i = 0; i < ENTRIES; i++)
        thread_in[i] = (uint16_t)i;
    ASSERT_FALSE(tsr__cpu_table_ready(TSR__KOP_SIN, TSR_BFLOAT16));
    pthread_t t[2];
    for (int k = 0; k < 2; k++) {
        memset(f[k].out, 0xA5, sizeof f[k].out);
        ASSERT_EQ(pthread_create(&t[k], NULL, fill_thread, &f[k]), 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    ASSERT_TRUE(tsr__cpu_table_ready(TSR__KOP_SIN, TSR_BFLOAT16));
    run(TSR__KOP_SIN, TSR_BFLOAT16, false, want, 2 * ENTRIES, (const unsigned char *)in, ENTRIES,
        packed);
    for (int k = 0; k < 2; k++)
        expect_same(TSR__KOP_SIN, TSR_BFLOAT16, (const unsigned char *)f[k].out, want, 2 * ENTRIES,
                    "two threads");
}

int main(void)
{
    tsr__cpu_table_keep_all(true);
    check_coverage();
    check_when_filled();
    check_threads();
    check_every_op();
    TEST_DONE();
}
