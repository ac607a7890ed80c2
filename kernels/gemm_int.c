/* Integer matrix products (see gemm.h). No BLAS computes in integers, so
 * this is a loop of our own.
 *
 * Every integer dtype wraps modulo 2^bits, as PyTorch's loops do, and
 * uint64 arithmetic wraps modulo 2^64, whose low bits are the same: the
 * operands are widened to int64 once (packed row-major, which also gives
 * the inner loop unit strides), products are accumulated in uint64, and
 * each result is narrowed once. The summation order does not matter for
 * integers, so the result is exact whatever the blocking.
 *
 * Blocking: a block of KB rows of B by NB columns (KB * NB * 8 bytes =
 * 128 KiB) stays in the L2 cache while every row of A that a thread owns
 * passes over it, and each row's NB accumulators stay in L1. Rows of C
 * are split over the caller's threads. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/gemm.h"

#define KB 64
#define NB 256
#define ROWS 32 /* rows of C per task */

typedef struct int_job {
    const tsr__gemm_args *g;
    const int64_t *a, *b; /* packed m x k and k x n */
    unsigned char *c;     /* this batch item's C */
    int64_t crs, ccs;
    atomic_int status;
} int_job;

static uint64_t load(const unsigned char *p, tsr_dtype dt)
{
    switch (tsr_dtype_itemsize(dt)) {
    case 1:
        return dt == TSR_UINT8 ? *p : (uint64_t)(int64_t) * (const int8_t *)p;
    case 2: {
        int16_t v;
        memcpy(&v, p, 2);
        return (uint64_t)(int64_t)v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, p, 4);
        return (uint64_t)(int64_t)v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* The low bytes of v (little-endian hosts, as every dtype is stored). */
static void store(unsigned char *p, tsr_dtype dt, uint64_t v)
{
    memcpy(p, &v, tsr_dtype_itemsize(dt));
}

/* Rows [begin, begin + rows) of C, rows <= ROWS, acc ROWS x NB. */
static void block(int_job *j, int64_t begin, int64_t rows, uint64_t *acc)
{
    const tsr__gemm_args *g = j->g;
    int64_t n = g->n, k = g->k;
    uint64_t alpha, beta;
    memcpy(&alpha, g->alpha, 8);
    memcpy(&beta, g->beta, 8);
    size_t isz = tsr_dtype_itemsize(g->dtype);
    for (int64_t j0 = 0; j0 < n; j0 += NB) {
        int64_t nb = n - j0 < NB ? n - j0 : NB;
        memset(acc, 0, (size_t)(rows * nb) * sizeof *acc);
        for (int64_t p0 = 0; p0 < k; p0 += KB) {
            int64_t pe = k - p0 < KB ? k : p0 + KB;
            for (int64_t i = 0; i < rows; i++) {
                uint64_t *out = acc + i * nb;
                const int64_t *arow = j->a + (begin + i) * k;
                for (int64_t p = p0; p < pe; p++) {
                    uint64_t av = (uint64_t)arow[p];
                    const int64_t *brow = j->b + p * n + j0;
                    for (int64_t q = 0; q < nb; q++)
                        out[q] += av * (uint64_t)brow[q];
                }
            }
        }
        for (int64_t i = 0; i < rows; i++)
            for (int64_t q = 0; q < nb; q++) {
                unsigned char *p = j->c + (size_t)((begin + i) * j->crs + (j0 + q) * j->ccs) * isz;
                uint64_t v = alpha * acc[i * nb + q];
                if (!g->beta_zero)
                    v += beta * load(p, g->dtype);
                store(p, g->dtype, v);
            }
    }
}

static void rows_task(void *ctx, int64_t begin, int64_t end)
{
    int_job *j = ctx;
    uint64_t *acc = malloc((size_t)ROWS * NB * sizeof *acc);
    if (acc == NULL) {
        atomic_store(&j->status, TSR_ERR_OUT_OF_MEMORY);
        return;
    }
    for (int64_t r0 = begin; r0 < end; r0 += ROWS)
        block(j, r0, end - r0 < ROWS ? end - r0 : ROWS, acc);
    free(acc);
}

tsr_status tsr__gemm_int(const tsr__gemm_args *g, const tsr__mat *a, const tsr__mat *b,
                         const tsr__mat *c, const tsr__gemm_threads *threads)
{
    size_t isz = tsr_dtype_itemsize(g->dtype);
    int64_t *pa = malloc((size_t)(g->m * g->k) * sizeof(int64_t));
    int64_t *pb = malloc((size_t)(g->k * g->n) * sizeof(int64_t));
    tsr_status st = TSR_OK;
    if (pa == NULL || pb == NULL) {
        st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
        goto out_free;
    }
    for (int64_t bi = 0; bi < g->batch && st == TSR_OK; bi++) {
        tsr__gemm_pack(a->data + (size_t)(bi * a->bstride) * isz, g->dtype, g->m, g->k, a->rs,
                       a->cs, pa, TSR_INT64);
        tsr__gemm_pack(b->data + (size_t)(bi * b->bstride) * isz, g->dtype, g->k, g->n, b->rs,
                       b->cs, pb, TSR_INT64);
        int_job j = {.g = g,
                     .a = pa,
                     .b = pb,
                     .c = c->data + (size_t)(bi * c->bstride) * isz,
                     .crs = c->rs,
                     .ccs = c->cs,
                     .status = TSR_OK};
        if (threads->parallel_for)
            threads->parallel_for(g->m, ROWS, rows_task, &j);
        else
            rows_task(&j, 0, g->m);
        if (atomic_load(&j.status) != TSR_OK)
            st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
    }
out_free:
    free(pa);
    free(pb);
    return st;
}
