/* float16 and bfloat16 unary rows as table lookups (see cpu_fast.h,
 * tsr__cpu_table_row).
 *
 * A one-input operation without parameters computes a 16-bit element
 * through float32 and rounds once, so its result is a function of the
 * input's 16 bits alone: 65536 entries say everything it can give. The
 * table of (op, dtype) is the operation's own row run once over every
 * bit pattern (the vector row of cpu_unary.c where the machine has one,
 * else the generic loop), so it holds that row's bits by construction,
 * NaN payloads and signed zeros included. It holds them under the
 * default floating-point environment, which every element function of
 * kernels/ assumes anyway (rounding to nearest, no flushing).
 *
 * When. Filling costs about one and a half rows of 65536 elements (the
 * row over every input, then eight blocks of it timed). A table is filled by
 * the row that brings the elements its operation computed without one
 * to 65536 (a long row at once, short rows once they have added up to
 * that much work), so that an operation never pays more than about 2.5
 * times what computing all along would have cost, and one seen rarely
 * never pays for a table. The fill also times the row against a lookup
 * and keeps the table only where looking up is the faster (fill).
 *
 * Publication. Each slot counts those elements with an atomic add: of
 * the threads whose adds cross the mark exactly one sees the crossing,
 * and it alone fills; the others compute their rows as before meanwhile.
 * The table goes out with a release store, and readers load it with
 * acquire: no lock on the hot path.
 *
 * Lifetime. A table lives until the process ends and is never freed:
 * any thread of the pool may be reading it at any moment, and freeing
 * it at exit would race with threads that outlive the exit handlers. At
 * most one table per operation and dtype exists (128 KiB each, only for
 * the operations that run and gain by it), still reachable from
 * `slots`, so leak checkers do not count them. */
#include "kernels/cpu_fast.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENTRIES 65536
/* The elements an operation's rows compute without a table before one
 * is filled: as many as filling it costs. */
#define FILL_AFTER ENTRIES
/* The fill's rows: its inputs go through a buffer on the stack. */
#define FILL_ROW 4096

/* Whether a row of core/ops.def may be a table: one input and no
 * parameter (call UNARY), a floating family, a result of the input's
 * dtype (not the bools of isnan and its kin). */
#define TABLE_CALL_UNARY 1
#define TABLE_CALL_MOVE 0
#define TABLE_CALL_ALPHA 0
#define TABLE_CALL_PLAIN 0
#define TABLE_CALL_CHECKED 0
#define TABLE_CALL_WIDTH 0
#define TABLE_CALL_TERNARY 0
#define TABLE_CALL_VALUE1 0
#define TABLE_CALL_VALUE2 0
#define TABLE_CALL_VALUE3 0
#define TABLE_CALL_REPLACE 0
#define TABLE_CALL_REDUCE 0
#define TABLE_F_Y 1
#define TABLE_F_N 0

static const bool table_op[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    [TSR__KOP_##ENUM] = TABLE_CALL_##call && TABLE_F_##f && !((flags)&TSR__KOPF_BOOL_RESULT),
#include "core/ops.def"
#undef X
};

typedef struct table_slot {
    _Atomic(const uint16_t *) table; /* ENTRIES results, or NULL */
    atomic_llong computed;           /* elements computed while there was none */
} table_slot;

/* [op][0: float16, 1: bfloat16] */
static table_slot slots[TSR__KOP_COUNT][2];

bool tsr__cpu_table_covers(tsr__kernel_op op, tsr_dtype dtype)
{
    if ((unsigned)op >= TSR__KOP_COUNT || !table_op[op])
        return false;
    if (dtype == TSR_FLOAT16)
        return !tsr__kernel_op_has(op, TSR__KOPF_NO_HALF);
    return dtype == TSR_BFLOAT16;
}

/* A slot's table where the operation's row beat the lookup (fill). */
static const uint16_t declined;

static table_slot *slot_of(tsr__kernel_op op, tsr_dtype dtype)
{
    return &slots[op][dtype == TSR_BFLOAT16];
}

/* ---- the lookups ------------------------------------------------------------ */

static void lookup_strided(const uint16_t *t, unsigned char *o, int64_t so, const unsigned char *a,
                           int64_t sa, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint16_t x;
        memcpy(&x, a + i * sa, 2);
        memcpy(o + i * so, &t[x], 2);
    }
}

/* Plain loads, four at a time: on an AMD EPYC (Zen 3) they took 0.35-0.67
 * ns an element from the first- and second-level caches where an AVX2
 * gather of eight took 0.5-0.8. */
static void lookup(const uint16_t *t, uint16_t *o, const uint16_t *a, int64_t n)
{
    int64_t i = 0, whole = n - n % 4;
    for (; i < whole; i += 4) {
        uint16_t y0 = t[a[i]], y1 = t[a[i + 1]], y2 = t[a[i + 2]], y3 = t[a[i + 3]];
        o[i] = y0;
        o[i + 1] = y1;
        o[i + 2] = y2;
        o[i + 3] = y3;
    }
    for (; i < n; i++)
        o[i] = t[a[i]];
}

/* Nanoseconds of the monotonic clock (no system call where the vDSO
 * has it: this thread's cpu clock took 1.5 us a reading under KVM). A
 * block takes microseconds, so that the fastest of several is one that
 * no other thread interrupted. */
static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Whether tables are kept whatever the measure says (tests). */
static atomic_bool keep_all;

void tsr__cpu_table_keep_all(bool on)
{
    atomic_store_explicit(&keep_all, on, memory_order_relaxed);
}

/* One block of `generic`'s row, or of the vector row that stands in for
 * it. */
static void compute_block(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic, uint16_t *o,
                          const uint16_t *in)
{
    const int64_t st[4] = {2, 2, 0, 0};
    const uint8_t alpha[16] = {0};
    int bad = 0;
    if (!tsr__cpu_fast_unary(op, dtype, o, in, FILL_ROW))
        (void)generic((unsigned char *)o, (const unsigned char *)in, (const unsigned char *)in,
                      (const unsigned char *)in, FILL_ROW, st, alpha, &bad);
}

/* Runs the row over every input, a block of FILL_ROW at a time; NULL
 * without memory, or where the row is faster than looking up. That is
 * measured here, on this machine, once: the fastest of eight runs of a
 * block of the row against the fastest of eight lookups of a block,
 * both warm, over inputs that spread over the whole table (slower than
 * real data, which mostly keeps to a few exponents). The rows of abs,
 * neg, sign, square, reciprocal, round, relu and sgn in bfloat16 took
 * 0.2-0.45 ns an element on an AMD EPYC (Zen 3), such lookups 0.3-0.6;
 * exp 2, tanh 2.3, floor 2, the float16 rows (which convert element by
 * element) 3-40. Either way the bits are the same. */
static const uint16_t *fill(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic)
{
    uint16_t *t = malloc(ENTRIES * sizeof *t);
    if (t == NULL)
        return NULL;
    uint16_t in[FILL_ROW], out[FILL_ROW];
    for (int64_t at = 0; at < ENTRIES; at += FILL_ROW) {
        for (int64_t i = 0; i < FILL_ROW; i++)
            in[i] = (uint16_t)(at + i);
        compute_block(op, dtype, generic, t + at, in);
    }
    for (int64_t i = 0; i < FILL_ROW; i++)
        in[i] = (uint16_t)(i * 40503); /* odd: FILL_ROW inputs all over the table */
    int64_t compute = INT64_MAX, look = INT64_MAX;
    for (int k = 0; k < 8; k++) {
        int64_t t0 = now_ns();
        compute_block(op, dtype, generic, out, in);
        int64_t t1 = now_ns();
        lookup(t, out, in, FILL_ROW);
        int64_t t2 = now_ns();
        compute = t1 - t0 < compute ? t1 - t0 : compute;
        look = t2 - t1 < look ? t2 - t1 : look;
    }
    if (look >= compute && !atomic_load_explicit(&keep_all, memory_order_relaxed)) {
        free(t);
        return &declined;
    }
    return t;
}

/* The table of (op, dtype), filling it if this row of n elements
 * crosses the mark; NULL while there is none or where there will be
 * none. */
static const uint16_t *table_for(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic,
                                 int64_t n)
{
    table_slot *s = slot_of(op, dtype);
    const uint16_t *t = atomic_load_explicit(&s->table, memory_order_acquire);
    if (t == NULL) {
        long long before =
            atomic_fetch_add_explicit(&s->computed, (long long)n, memory_order_relaxed);
        if (before >= FILL_AFTER || before + n < FILL_AFTER)
            return NULL;
        t = fill(op, dtype, generic);
        if (t != NULL)
            atomic_store_explicit(&s->table, t, memory_order_release);
    }
    return t == &declined ? NULL : t;
}

bool tsr__cpu_table_ready(tsr__kernel_op op, tsr_dtype dtype)
{
    if (!tsr__cpu_table_covers(op, dtype))
        return false;
    const uint16_t *t = atomic_load_explicit(&slot_of(op, dtype)->table, memory_order_acquire);
    return t != NULL && t != &declined;
}

bool tsr__cpu_table_row(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic,
                        unsigned char *o, const unsigned char *a, int64_t n, const int64_t st[4])
{
    if (!tsr__cpu_fast_enabled() || !tsr__cpu_table_covers(op, dtype))
        return false;
    const uint16_t *t = table_for(op, dtype, generic, n);
    if (t == NULL)
        return false;
    if (st[0] == 2 && st[1] == 2)
        lookup(t, (uint16_t *)o, (const uint16_t *)a, n);
    else
        lookup_strided(t, o, st[0], a, st[1], n);
    return true;
}
