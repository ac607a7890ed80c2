/* The cpu device's reduction loops: a reduction's tsr__kernel
 * (core/kernel.h, "A reduction") computed in kernels/reduce_order.h's
 * order, one range of work at a time, so that a thread pool may split
 * the work (libclient/reduce.c) without changing a bit.
 *
 * Three ways to cut the work, all giving the same bits:
 *   rows     one output element after another, each reducing its R
 *            elements chunk by chunk (the reduced innermost dimension
 *            contiguous: the lanes run straight over the input);
 *   columns  the innermost kept dimension contiguous in the input (sum
 *            over dim 0 of a row-major matrix): a block of neighbouring
 *            outputs at once, each input row added into TSR__RED_LANES
 *            rows of accumulators, which is the same order per output;
 *   blocks   few outputs of many chunks: whole blocks of
 *            TSR__RED_BLOCK_CHUNKS chunks (nodes of the chunk tree)
 *            computed apart, then pushed in order.
 * Rows and blocks take the two halves of a range side by side, a chunk of
 * each at a time (the ops' chunk2 and scan2), and an argmax of one output
 * the two halves of its chunks: two streams of reads far apart in memory,
 * which it serves faster than one.
 * Pure C, no I/O, no allocation (buffers of a chunk live on the stack). */
#ifndef TESSERA_KERNELS_CPU_REDUCE_H
#define TESSERA_KERNELS_CPU_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "tessera/dtype.h"
#include "tessera/status.h"

struct tsr__reduce_ops;

/* A reduction kernel, taken apart for the loops. Strides in bytes. */
typedef struct tsr__reduce_walk {
    const tsr__kernel *k;
    const struct tsr__reduce_ops *ops; /* the combine in the common dtype's math type */
    void (*chunk)(const void *x, int64_t n, void *acc);               /* ops' chunk, for this CPU */
    void (*chunk2)(const void *x, const void *y, void *rx, void *ry); /* and its chunk2 */
    void (*col_rows)(void *lanes, const unsigned char *rows, int64_t stride, int64_t n,
                     int ncols); /* ops' column rows, for this CPU */
    void (*scan)(const void *v, int64_t n, int64_t base, bool first, void *best,
                 int64_t *at); /* ops' argmax scan, for this CPU */
    void (*scan2)(const void *x, const void *y, int64_t xbase, int64_t ybase, bool xfirst,
                  bool yfirst, void *xbest, int64_t *xat, void *ybest,
                  int64_t *yat); /* its scan2 */
    unsigned char *out, *idx;    /* element 0 of the outputs (idx: NULL but max/min) */
    const unsigned char *in;     /* element 0 of the input */
    tsr_dtype in_dtype, common;
    size_t in_w, common_w;
    uint32_t flags; /* the op's TSR__KOPF_* */
    bool arg;       /* a position is kept (argmax, argmin, max/min with a dim) */
    bool direct;    /* input elements are the math type as stored: no conversion */
    int nkept, nred;
    int64_t ksize[TSR_MAX_DIMS], kout[TSR_MAX_DIMS], kin[TSR_MAX_DIMS], kidx[TSR_MAX_DIMS];
    int64_t rsize[TSR_MAX_DIMS], rin[TSR_MAX_DIMS];
    int64_t nout; /* output elements */
    int64_t R;    /* elements reduced into each */
    /* the column walk: the kept dimension `cdim` is contiguous in the input */
    bool columns;
    int cdim;
    int64_t col_width, col_blocks, col_units;
    int col_levels; /* of the chunk tree: its counters */
} tsr__reduce_walk;

/* Whether reduction `op` computes in `common` on the cpu, and so on every
 * device (its combine in that dtype's family; a position kept only for
 * real and integer values): the one list the devices' programs and the
 * daemon's checks follow. */
bool tsr__reduce_computes(uint32_t op, tsr_dtype common);

/* Takes apart a planned reduction over host memory: host[k] is operand
 * k's storage base (operand offsets are applied here). TSR_OK, or
 * TSR_ERR_NOT_SUPPORTED for a common dtype the loops lack (the planner
 * refuses those first). */
tsr_status tsr__reduce_walk_init(tsr__reduce_walk *w, const tsr__kernel *k,
                                 unsigned char *const host[TSR__KERNEL_MAX_OPERANDS]);

/* Output elements [begin, end), in row-major order of the kept
 * dimensions (the rows walk; any reduction). */
void tsr__reduce_rows(const tsr__reduce_walk *w, int64_t begin, int64_t end);

/* Units [begin, end) of the column walk (w->columns): col_units in all,
 * with `scratch` of tsr__reduce_column_scratch bytes (per thread). */
size_t tsr__reduce_column_scratch(const tsr__reduce_walk *w);
void tsr__reduce_columns(const tsr__reduce_walk *w, int64_t begin, int64_t end, void *scratch);

/* The blocks walk (no position kept): every output has `blocks` whole
 * blocks (R / (CHUNK * BLOCK_CHUNKS)); unit u = o * blocks + b writes
 * block b's value into values + u * value_size. Then finish(o) pushes
 * output o's blocks and the chunks after them and stores the result. */
int64_t tsr__reduce_whole_blocks(const tsr__reduce_walk *w);
size_t tsr__reduce_value_size(const tsr__reduce_walk *w);
void tsr__reduce_blocks(const tsr__reduce_walk *w, int64_t begin, int64_t end, void *values);
void tsr__reduce_finish(const tsr__reduce_walk *w, int64_t o, const void *values);

#endif /* TESSERA_KERNELS_CPU_REDUCE_H */
