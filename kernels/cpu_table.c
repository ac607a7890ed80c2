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
 * When. Filling costs one row of 65536 elements. A table is filled by
 * the row that brings the elements its operation computed without one
 * to 65536 (a long row at once, short rows once they have added up to
 * that much work), so that an operation never pays more than twice what
 * computing all along would have cost, and one that is seen rarely
 * never pays for a table.
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
 * the operations that run), still reachable from `slots`, so leak
 * checkers do not count them. */
#include "kernels/cpu_fast.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

static table_slot *slot_of(tsr__kernel_op op, tsr_dtype dtype)
{
    return &slots[op][dtype == TSR_BFLOAT16];
}

/* Runs `generic`'s row, or the vector row that stands in for it, over
 * every input; NULL without memory. */
static const uint16_t *fill(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic)
{
    uint16_t *t = malloc(ENTRIES * sizeof *t);
    if (t == NULL)
        return NULL;
    const int64_t st[4] = {2, 2, 0, 0};
    const uint8_t alpha[16] = {0};
    for (int64_t at = 0; at < ENTRIES; at += FILL_ROW) {
        uint16_t in[FILL_ROW];
        for (int64_t i = 0; i < FILL_ROW; i++)
            in[i] = (uint16_t)(at + i);
        if (!tsr__cpu_fast_unary(op, dtype, t + at, in, FILL_ROW)) {
            int bad = 0;
            (void)generic((unsigned char *)(t + at), (const unsigned char *)in,
                          (const unsigned char *)in, (const unsigned char *)in, FILL_ROW, st,
                          alpha, &bad);
        }
    }
    return t;
}

/* The table of (op, dtype), filling it if this row of n elements
 * crosses the mark; NULL while there is none. */
static const uint16_t *table_for(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic,
                                 int64_t n)
{
    table_slot *s = slot_of(op, dtype);
    const uint16_t *t = atomic_load_explicit(&s->table, memory_order_acquire);
    if (t != NULL)
        return t;
    long long before = atomic_fetch_add_explicit(&s->computed, (long long)n, memory_order_relaxed);
    if (before >= FILL_AFTER || before + n < FILL_AFTER)
        return NULL;
    t = fill(op, dtype, generic);
    if (t != NULL)
        atomic_store_explicit(&s->table, t, memory_order_release);
    return t;
}

bool tsr__cpu_table_ready(tsr__kernel_op op, tsr_dtype dtype)
{
    return tsr__cpu_table_covers(op, dtype) &&
           atomic_load_explicit(&slot_of(op, dtype)->table, memory_order_acquire) != NULL;
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
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint16_t y0 = t[a[i]], y1 = t[a[i + 1]], y2 = t[a[i + 2]], y3 = t[a[i + 3]];
        o[i] = y0;
        o[i + 1] = y1;
        o[i + 2] = y2;
        o[i + 3] = y3;
    }
    for (; i < n; i++)
        o[i] = t[a[i]];
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
