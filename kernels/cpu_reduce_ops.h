/* Internal to the cpu reductions (cpu_reduce.c walks, cpu_reduce_ops.c
 * computes): one combine of kernels/reduce_order.h in one family of math
 * types, as a table of loops. */
#ifndef TESSERA_KERNELS_CPU_REDUCE_OPS_H
#define TESSERA_KERNELS_CPU_REDUCE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/reduce_order.h"
#include "tessera/dtype.h"

#define LANES TSR__RED_LANES
#define CHUNK TSR__RED_CHUNK
#define ELEMENT_MAX 16
#define STACK_MAX 64 /* levels of the chunk tree: 2^64 chunks */

/* One math value, aligned for any math type. */
typedef struct mval {
    _Alignas(16) unsigned char b[ELEMENT_MAX];
} mval;

typedef struct tsr__reduce_ops {
    size_t xsize; /* an element's math value */
    size_t msize; /* an accumulator */
    void (*identity)(void *m);
    void (*chunk)(const void *x, int64_t n, void *result); /* steps 2 and 3 */
    void (*chunk_avx2)(const void *x, int64_t n, void *result);
    void (*combine)(void *a, const void *b); /* a = a (+) b */
    /* the column walk: LANES rows of accumulators for a block of outputs */
    void (*col_init)(void *lanes, int ncols);
    /* the rows r = 0..n-1 of a chunk at rows + r * stride, each into lane
     * r % LANES (a compensated sum's two at a time: reduce_order.h) */
    void (*col_rows)(void *lanes, const unsigned char *rows, int64_t stride, int64_t n, int ncols);
    void (*col_rows_avx2)(void *lanes, const unsigned char *rows, int64_t stride, int64_t n,
                          int ncols);
    /* one step of lane `lane`: a row, or two (b: NULL or the one LANES
     * rows after a in the chunk), as col_rows takes them */
    void (*col_two)(void *lanes, const unsigned char *a, const unsigned char *b, int lane,
                    int ncols);
    void (*col_fold)(void *lanes, int ncols);
    void (*col_value)(const void *lanes, int ncols, int col, void *acc); /* lane 0's accumulator */
    void (*final)(const void *acc, void *x); /* an accumulator's value */
    /* argmax and co: elements v[0..n) at positions base.. against *best
     * (at *at); the first element taken as is when `first` */
    void (*scan)(const void *v, int64_t n, int64_t base, bool first, void *best, int64_t *at);
    void (*scan_avx2)(const void *v, int64_t n, int64_t base, bool first, void *best, int64_t *at);
    /* the family's */
    void (*load)(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                 int64_t *nonnan);
    void (*store)(tsr_dtype common, const void *m, unsigned char *dst);
    void (*divide)(tsr_dtype common, void *m, int64_t count);
    /* chunk over two whole chunks (CHUNK elements each) at once: x's
     * into *rx, y's into *ry, each as chunk gives it */
    void (*chunk2)(const void *x, const void *y, void *rx, void *ry);
    void (*chunk2_avx2)(const void *x, const void *y, void *rx, void *ry);
    /* scan over two whole chunks at once, each as scan takes it */
    void (*scan2)(const void *x, const void *y, int64_t xbase, int64_t ybase, bool xfirst,
                  bool yfirst, void *xbest, int64_t *xat, void *ybest, int64_t *yat);
    void (*scan2_avx2)(const void *x, const void *y, int64_t xbase, int64_t ybase, bool xfirst,
                       bool yfirst, void *xbest, int64_t *xat, void *ybest, int64_t *yat);
} tsr__reduce_ops;

/* Whether the loops' AVX2 builds (the _avx2 members) run here: built for
 * x86-64, and the CPU has AVX2. */
bool tsr__reduce_avx2(void);

/* The loops of a combine of core/ops.def's elem column ("sum", "prod",
 * "max", "min", "all", "any") in a common dtype, or NULL. */
const tsr__reduce_ops *tsr__reduce_ops_for(const char *combine, tsr_dtype common);

#endif /* TESSERA_KERNELS_CPU_REDUCE_OPS_H */
