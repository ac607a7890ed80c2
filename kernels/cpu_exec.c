/* Running an elementwise kernel on the host (tsr__host_elementwise): the
 * cpu device's, and the daemon's on a device that is this machine's CPU.
 *
 * The coalesced iteration space is cut into units: a unit is a block of
 * the two innermost dimensions (a row, or ROW_UNIT elements of a longer
 * one, when the inputs walk the output's order; a tile when an input is
 * transposed against the output, so that both stay in cache). Units are
 * independent, which is what the thread pool splits above PARALLEL_MIN
 * elements.
 *
 * A row runs the kernels/ row loop of the common dtype directly when every
 * operand already has that dtype. Otherwise it goes in blocks of BLOCK
 * elements through small buffers: inputs are gathered and converted into
 * the common dtype, the row loop writes the result block, which is
 * converted into the output's dtype and scattered.
 *
 * The fast paths of kernels/cpu_fast.h come in here too (all of them off
 * with tsr__cpu_fast_enable(false), which leaves exactly the loops above):
 * an int32 and a float32 input meet in one pass instead of blocks, and
 * so do a float32 comparison into bools and a float32 where with a bool
 * condition (bool_row); a tile of same-dtype operands is PACK_ROWS x
 * PACK_ROW_BYTES, and its
 * transposed inputs are transposed into a scratch buffer first (a copy
 * transposes straight into its output), so that every operand is read
 * along its own rows; and an output of at least stream_min_bytes() that
 * is most of the traffic (writes_most) is written with non-temporal
 * stores (stream_row): float32 and float64 add, sub, mul and div, the
 * bool_row kernels and float32 relu and abs compute and store in one
 * pass, other rows through a buffer in the first-level cache. None of
 * them changes a bit of the result. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "kernels/cpu_exec.h"
#include "kernels/threadpool.h"

#define BLOCK 1024
#define TILE 64
#define PACK_ROWS 128 /* packed tiles: rows, and bytes of a row */
#define PACK_ROW_BYTES 1024
/* Packed tiles go down bands of this many tile rows, a band's columns one
 * after the other. Along a row of tiles, every tile's transposed input
 * came from 4 KiB pages no tile had used just before (one per source
 * row); down a band, each page serves PACK_BAND tiles while the other
 * operands' pages of the band still hold their translations (4 x 128
 * rows x 2 operands: a second-level TLB keeps them). With 4 a transposed
 * add ran about a third faster on an AMD EPYC (1 MiB of L2 a core) than
 * along rows, and faster than with 2, 6 or 8. */
#define PACK_BAND 4
#define PREFETCH_AHEAD 8192 /* bytes of a tile's rows asked for ahead of use */
#define STREAM_BYTES 16384
#define ROW_UNIT 65536 /* elements: a long row is cut into units of this many */
#define PARALLEL_MIN 32768
#define ELEMENT_MAX 16

typedef struct exec {
    const tsr__kernel *kernel;
    unsigned char *const *host; /* each operand's storage base */
    tsr__kernel_row row;
    int nops;
    bool convert;                          /* some operand's dtype differs from the common one */
    size_t size[TSR__KERNEL_MAX_OPERANDS]; /* itemsize of each operand's dtype */
    size_t common_size;
    /* geometry: outer dims [0, ndim-2), then the tile's two */
    int ndim;
    int64_t n1, n0;        /* the two innermost sizes (n1 = 1 below two dims) */
    int64_t t1, t0;        /* unit extents along them */
    int64_t b1, b0;        /* units along them */
    bool packed;           /* units are tiles whose transposed inputs are packed first */
    bool stream;           /* the output is stored around the caches (stream_row) */
    bool bool_kernel;      /* a float32 comparison or where in one pass (bool_row) */
    int64_t scratch_bytes; /* the packing buffer each range needs (0: none) */
    atomic_int bad;
} exec;

/* Element pointer of operand k at element index `at` (in its dtype). */
static unsigned char *at_element(const exec *x, int k, int64_t at)
{
    const tsr__kernel *kernel = x->kernel;
    const tsr__kernel_operand *o = &kernel->operands[k];
    if (o->flags & TSR__KOPERAND_SCALAR) {
        /* the first scalar input's value is in `scalar`, a second's in
         * `alpha` */
        for (int i = 1; i < k; i++)
            if (kernel->operands[i].flags & TSR__KOPERAND_SCALAR)
                return (unsigned char *)kernel->alpha;
        return (unsigned char *)kernel->scalar;
    }
    return x->host[k] + (o->offset + at) * (int64_t)x->size[k];
}

/* Moves n elements of `size` bytes between a strided place and a packed
 * buffer. */
static void gather(unsigned char *dst, const unsigned char *src, int64_t n, int64_t stride,
                   size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + (size_t)i * size, src + i * stride, size);
}

static void scatter(unsigned char *dst, const unsigned char *src, int64_t n, int64_t stride,
                    size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + i * stride, src + (size_t)i * size, size);
}

/* tsr__kernel_convert, by a fast loop where cpu_fast.c has one. */
static tsr_status convert(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                          size_t n)
{
    if (tsr__cpu_fast_convert(src, src_dtype, dst, dst_dtype, n))
        return TSR_OK;
    return tsr__kernel_convert(src, src_dtype, dst, dst_dtype, n);
}

/* m result elements of the common dtype -> the output's dtype, at its
 * stride (in elements). */
static tsr_status store_block(const exec *x, const unsigned char *result, unsigned char *staging,
                              unsigned char *out, int64_t step, int64_t m)
{
    tsr_dtype common = (tsr_dtype)x->kernel->common;
    tsr_dtype dt = (tsr_dtype)x->kernel->operands[0].dtype;
    if (step == 1)
        return convert(result, common, out, dt, (size_t)m);
    tsr_status st = convert(result, common, staging, dt, (size_t)m);
    if (st == TSR_OK)
        scatter(out, staging, m, step * (int64_t)x->size[0], x->size[0]);
    return st;
}

/* A float32 row with an int32 and a float32 input, in one pass where
 * cpu_fast.c has the loop (a scalar input is already float32). */
static bool mixed_row(const exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    const tsr__kernel *k = x->kernel;
    if (x->nops != 3 || k->common != TSR_FLOAT32 || k->operands[0].dtype != TSR_FLOAT32 ||
        step[0] != 1)
        return false;
    int op = tsr__cpu_fast_op_of((tsr__kernel_op)k->op, (tsr_dtype)k->common, k->alpha);
    tsr_dtype dt[3];
    for (int i = 1; i < 3; i++)
        dt[i] = k->operands[i].flags & TSR__KOPERAND_SCALAR ? TSR_FLOAT32
                                                            : (tsr_dtype)k->operands[i].dtype;
    return op >= 0 && tsr__cpu_fast_mixed((tsr__cpu_fast_op)op, (float *)p[0], p[1], dt[1], step[1],
                                          p[2], dt[2], step[2], n);
}

/* Whether operand i is a float32 row or scalar (a scalar input is
 * already in the common dtype). */
static bool float32_input(const tsr__kernel *k, int i)
{
    return (k->operands[i].flags & TSR__KOPERAND_SCALAR) || k->operands[i].dtype == TSR_FLOAT32;
}

/* Whether the kernel is a float32 comparison into bools or a float32
 * where with a bool condition, which cpu_fast.c computes in one pass
 * where the operands step by one (bool_row). */
static bool bool_kernel(const exec *x)
{
    const tsr__kernel *k = x->kernel;
    if (k->common != TSR_FLOAT32 || !tsr__cpu_fast_enabled())
        return false;
    if (k->op == TSR__KOP_WHERE)
        return x->nops == 4 && k->operands[0].dtype == TSR_FLOAT32 &&
               k->operands[1].dtype == TSR_BOOL && !(k->operands[1].flags & TSR__KOPERAND_SCALAR) &&
               float32_input(k, 2) && float32_input(k, 3);
    return x->nops == 3 && tsr__kernel_op_has(k->op, TSR__KOPF_BOOL_RESULT) &&
           k->operands[0].dtype == TSR_BOOL && float32_input(k, 1) && float32_input(k, 2);
}

/* A bool_kernel row in one pass, where its operands step by one (a
 * comparison's inputs may also stand still), its output stored around
 * the caches with `stream`; false elsewhere. */
static bool bool_row(const exec *x, unsigned char **p, const int64_t *step, int64_t n, bool stream)
{
    const tsr__kernel *k = x->kernel;
    if (!x->bool_kernel || step[0] != 1)
        return false;
    if (k->op == TSR__KOP_WHERE)
        return step[1] == 1 && step[2] == 1 && step[3] == 1 &&
               tsr__cpu_fast_where(TSR_FLOAT32, p[0], p[1], p[2], p[3], n, stream);
    return tsr__cpu_fast_compare((tsr__kernel_op)k->op, TSR_FLOAT32, p[0], p[1], step[1], p[2],
                                 step[2], n, stream);
}

/* One row of n elements with converted operands, BLOCK at a time;
 * *written: the elements written (fewer than n after a zero divisor). */
static tsr_status convert_row(exec *x, unsigned char **p, const int64_t *step, int64_t n,
                              int64_t *written)
{
    const tsr__kernel *k = x->kernel;
    tsr_dtype common = (tsr_dtype)k->common;
    *written = n;
    if (mixed_row(x, p, step, n) || bool_row(x, p, step, n, false))
        return TSR_OK;
    unsigned char buf[TSR__KERNEL_MAX_OPERANDS][BLOCK * ELEMENT_MAX];
    unsigned char staging[BLOCK * ELEMENT_MAX];
    for (int64_t done = 0; done < n; done += BLOCK) {
        int64_t m = n - done < BLOCK ? n - done : BLOCK;
        const unsigned char *in[TSR__KERNEL_MAX_OPERANDS] = {NULL};
        int64_t bytes[TSR__KERNEL_MAX_OPERANDS] = {0};
        for (int op = 1; op < x->nops; op++) {
            const tsr__kernel_operand *o = &k->operands[op];
            unsigned char *src = p[op] + done * step[op] * (int64_t)x->size[op];
            tsr_dtype dt = (tsr_dtype)o->dtype;
            tsr_status st = TSR_OK;
            if ((o->flags & TSR__KOPERAND_SCALAR) || dt == common) {
                in[op] = src;
                bytes[op] = step[op] * (int64_t)x->common_size;
                continue;
            }
            in[op] = buf[op];
            bytes[op] = step[op] == 0 ? 0 : (int64_t)x->common_size;
            if (step[op] == 0) {
                st = convert(src, dt, buf[op], common, 1);
            } else if (step[op] == 1) {
                st = convert(src, dt, buf[op], common, (size_t)m);
            } else {
                gather(staging, src, m, step[op] * (int64_t)x->size[op], x->size[op]);
                st = convert(staging, dt, buf[op], common, (size_t)m);
            }
            if (st != TSR_OK)
                return st;
        }
        unsigned char *out = p[0] + done * step[0] * (int64_t)x->size[0];
        tsr_status st = TSR_OK;
        bool direct = (tsr_dtype)k->operands[0].dtype == common;
        bytes[0] = direct ? step[0] * (int64_t)x->size[0] : (int64_t)x->common_size;
        int bad = 0;
        m = x->row(direct ? out : buf[0], in[1], x->nops > 2 ? in[2] : in[1],
                   x->nops > 3 ? in[3] : in[1], m, bytes, tsr__kernel_row_alpha(k), &bad);
        if (bad) {
            atomic_store(&x->bad, 1);
            *written = done + m;
        }
        if (!direct)
            st = store_block(x, buf[0], staging, out, step[0], m);
        if (st != TSR_OK || bad)
            return st;
    }
    return TSR_OK;
}

/* One row of n elements; *written as in convert_row. */
static tsr_status compute_row(exec *x, unsigned char **p, const int64_t *step, int64_t n,
                              int64_t *written)
{
    if (x->convert)
        return convert_row(x, p, step, n, written);
    const tsr__kernel *k = x->kernel;
    int64_t bytes[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int op = 0; op < x->nops; op++)
        bytes[op] = step[op] * (int64_t)x->size[op];
    if (k->op == TSR__KOP_FILL) {
        bytes[2] = 0;
        *written = x->row(p[0], NULL, k->scalar, NULL, n, bytes, k->alpha, &(int){0});
        return TSR_OK;
    }
    int bad = 0;
    *written = x->row(p[0], p[1], x->nops > 2 ? p[2] : p[1], x->nops > 3 ? p[3] : p[1], n, bytes,
                      tsr__kernel_row_alpha(k), &bad);
    if (bad)
        atomic_store(&x->bad, 1);
    return TSR_OK;
}

/* A float32 or float64 row of add, sub, mul or div whose inputs are
 * contiguous or single elements (a broadcast's row, a tensor and a
 * number, a packed tile's row): computed and stored around the caches in
 * one pass. */
static bool stream_op_row(const exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    const tsr__kernel *k = x->kernel;
    if (x->convert || x->nops != 3)
        return false;
    int op = tsr__cpu_fast_op_of((tsr__kernel_op)k->op, (tsr_dtype)k->common, k->alpha);
    return op >= 0 && tsr__cpu_fast_stream_op((tsr_dtype)k->common, (tsr__cpu_fast_op)op, p[0],
                                              p[1], step[1], p[2], step[2], n);
}

/* A contiguous output row written around the caches (x->stream): the row
 * is computed into a buffer that stays in the first-level cache, a block
 * at a time, and each block is stored with non-temporal stores. A plain
 * copy streams straight from its input. */
static tsr_status stream_row(exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    int64_t size = (int64_t)x->size[0];
    if (x->kernel->op == TSR__KOP_COPY && !x->convert && step[1] == 1) {
        tsr__cpu_stream_store(p[0], p[1], (size_t)(n * size));
        return TSR_OK;
    }
    if (stream_op_row(x, p, step, n) || bool_row(x, p, step, n, true))
        return TSR_OK;
    if (!x->convert && x->nops == 2 && step[1] == 1 &&
        tsr__cpu_fast_stream_unary((tsr__kernel_op)x->kernel->op,
                                   (tsr_dtype)x->kernel->common, p[0], p[1], n))
        return TSR_OK;
    _Alignas(64) unsigned char buf[STREAM_BYTES];
    int64_t chunk = STREAM_BYTES / size;
    for (int64_t done = 0; done < n; done += chunk) {
        int64_t m = n - done < chunk ? n - done : chunk, written = 0;
        unsigned char *q[TSR__KERNEL_MAX_OPERANDS] = {buf};
        for (int op = 1; op < x->nops; op++)
            q[op] = p[op] + done * step[op] * (int64_t)x->size[op];
        tsr_status st = compute_row(x, q, step, m, &written);
        tsr__cpu_stream_store(p[0] + done * size, buf, (size_t)(written * size));
        if (st != TSR_OK || written < m)
            return st;
    }
    return TSR_OK;
}

static tsr_status run_row(exec *x, unsigned char **p, const int64_t *step, int64_t n)
{
    if (x->stream && step[0] == 1)
        return stream_row(x, p, step, n);
    int64_t written;
    return compute_row(x, p, step, n, &written);
}

/* Whether operand op of a packed tile is transposed into the scratch
 * buffer first: an input that walks the tile's rows with unit stride and
 * its columns with a larger one. */
static bool packs(const exec *x, int op)
{
    const tsr__kernel_operand *o = &x->kernel->operands[op];
    int d0 = x->ndim - 1, d1 = x->ndim - 2;
    return op > 0 && !(o->flags & TSR__KOPERAND_SCALAR) && o->strides[d1] == 1 &&
           o->strides[d0] > 1;
}

/* A tile of rows x cols elements, same dtypes throughout: the transposed
 * inputs are first transposed into `scratch` (tsr__cpu_transpose reads
 * them along their own rows, whole cache lines at a time), and then the
 * rows run on contiguous operands. A copy transposes straight into the
 * output. Without scratch the rows read the inputs where they are. p,
 * step and step1 as in run_unit. */
static tsr_status run_packed_tile(exec *x, unsigned char *scratch, unsigned char **p,
                                  const int64_t *step, const int64_t *step1, int64_t rows,
                                  int64_t cols)
{
    const tsr__kernel *k = x->kernel;
    if (k->op == TSR__KOP_COPY && packs(x, 1)) {
        tsr__cpu_transpose(p[0], step1[0], p[1], step[1], rows, cols, x->size[0]);
        return TSR_OK;
    }
    int64_t s0[TSR__KERNEL_MAX_OPERANDS], s1[TSR__KERNEL_MAX_OPERANDS];
    unsigned char *q[TSR__KERNEL_MAX_OPERANDS];
    for (int op = 0; op < x->nops; op++) {
        s0[op] = step[op];
        s1[op] = step1[op];
        q[op] = p[op];
        if (scratch && packs(x, op)) {
            tsr__cpu_transpose(scratch, cols, p[op], step[op], rows, cols, x->size[op]);
            q[op] = scratch;
            s0[op] = 1;
            s1[op] = cols;
            scratch += x->t0 * x->t1 * (int64_t)x->size[op];
        }
    }
    /* The inputs read in place are read in short runs (a tile's row), too
     * short for the hardware to see coming: each row is asked for a few
     * rows ahead. */
    int64_t row_bytes = cols * (int64_t)x->common_size;
    int64_t ahead = row_bytes < PREFETCH_AHEAD ? PREFETCH_AHEAD / row_bytes : 1;
    for (int64_t r = 0; r < rows; r++) {
        unsigned char *row[TSR__KERNEL_MAX_OPERANDS];
        for (int op = 0; op < x->nops; op++) {
            row[op] = q[op] + r * s1[op] * (int64_t)x->size[op];
            if (op > 0 && q[op] == p[op] && s0[op] == 1 && r + ahead < rows)
                tsr__cpu_prefetch(row[op] + ahead * s1[op] * (int64_t)x->size[op],
                                  (size_t)row_bytes);
        }
        tsr_status st = run_row(x, row, s0, cols);
        if (st != TSR_OK || atomic_load_explicit(&x->bad, memory_order_relaxed))
            return st;
    }
    return TSR_OK;
}

/* Unit u: its outer index, then its block along dim ndim-2 and ndim-1. */
static tsr_status run_unit(exec *x, unsigned char *scratch, int64_t u)
{
    const tsr__kernel *k = x->kernel;
    int64_t j = u % x->b0, rest = u / x->b0;
    int64_t i = rest % x->b1, outer = rest / x->b1;
    if (x->packed) {
        /* Down bands of PACK_BAND tile rows (see PACK_BAND). */
        int64_t in = u % (x->b0 * x->b1), first = in / (PACK_BAND * x->b0) * PACK_BAND;
        int64_t rows = x->b1 - first < PACK_BAND ? x->b1 - first : PACK_BAND;
        int64_t at = in - first * x->b0;
        j = at / rows;
        i = first + at % rows;
    }
    int64_t at[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int d = x->ndim - 3; d >= 0; d--) {
        int64_t c = outer % k->sizes[d];
        outer /= k->sizes[d];
        for (int op = 0; op < x->nops; op++)
            at[op] += c * k->operands[op].strides[d];
    }
    int d1 = x->ndim - 2, d0 = x->ndim - 1;
    int64_t step[TSR__KERNEL_MAX_OPERANDS] = {0}, step1[TSR__KERNEL_MAX_OPERANDS] = {0};
    for (int op = 0; op < x->nops; op++) {
        step[op] = d0 >= 0 ? k->operands[op].strides[d0] : 0;
        step1[op] = d1 >= 0 ? k->operands[op].strides[d1] : 0;
        if (k->operands[op].flags & TSR__KOPERAND_SCALAR)
            step[op] = step1[op] = 0;
    }
    int64_t r0 = i * x->t1, r_end = r0 + x->t1 < x->n1 ? r0 + x->t1 : x->n1;
    int64_t c0 = j * x->t0, c_end = c0 + x->t0 < x->n0 ? c0 + x->t0 : x->n0;
    if (x->packed) {
        unsigned char *p[TSR__KERNEL_MAX_OPERANDS];
        for (int op = 0; op < x->nops; op++)
            p[op] = at_element(x, op, at[op] + r0 * step1[op] + c0 * step[op]);
        return run_packed_tile(x, scratch, p, step, step1, r_end - r0, c_end - c0);
    }
    for (int64_t r = r0; r < r_end; r++) {
        unsigned char *p[TSR__KERNEL_MAX_OPERANDS];
        for (int op = 0; op < x->nops; op++)
            p[op] = at_element(x, op, at[op] + r * step1[op] + c0 * step[op]);
        tsr_status st = run_row(x, p, step, c_end - c0);
        if (st != TSR_OK || atomic_load_explicit(&x->bad, memory_order_relaxed))
            return st;
    }
    return TSR_OK;
}

static void run_units(void *ctx, int64_t begin, int64_t end)
{
    exec *x = ctx;
    /* One scratch buffer per range; without memory for it the tiles run
     * unpacked (slower, the same bits). */
    unsigned char *scratch = x->scratch_bytes ? malloc((size_t)x->scratch_bytes) : NULL;
    /* Conversions fail only for dtypes the planner refuses; a zero divisor
     * stops this range (other threads finish theirs, as in PyTorch). */
    for (int64_t u = begin; u < end && !atomic_load_explicit(&x->bad, memory_order_relaxed); u++)
        if (run_unit(x, scratch, u) != TSR_OK)
            break;
    free(scratch);
    if (x->stream)
        tsr__cpu_stream_fence();
}

/* Outputs of at least this many bytes are stored around the caches: half
 * the last-level cache (they would push out at least that much and not
 * be there whole for the next reader anyway), or 16 MiB where the size
 * is unknown; tsr__cpu_stream_threshold() instead where it is set. */
static int64_t stream_min_bytes(void)
{
    static atomic_llong known;
    int64_t v = tsr__cpu_stream_threshold();
    if (v > 0)
        return v;
    v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v == 0) {
        long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (llc <= 0)
            llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
        v = llc > 0 ? llc / 2 : 16 << 20;
        v = v < (4 << 20) ? 4 << 20 : v;
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}

/* Whether the output is most of the traffic or comes in short runs, where
 * stores around the caches pay (measured): an input that stays put along
 * the rows (a broadcast or a scalar), packed tiles, or a single input
 * (unary operations). Rows that stream
 * every operand in order do better with plain stores, which the buffer
 * of stream_row would only slow down. */
static bool writes_most(const exec *x)
{
    const tsr__kernel *k = x->kernel;
    /* One input and one output (a unary operation): a copy's traffic,
     * which a copy of this size sends around the caches too (the store
     * would otherwise read each output line first). */
    if (x->packed || x->nops == 2)
        return true;
    /* A comparison or where computed in one pass (bool_row), which
     * stores around the caches as it computes: stored through them,
     * where moves 17 bytes an element for its 13 (its output's line is
     * read before it is written), lt 10 for its 9. */
    if (x->bool_kernel)
        return true;
    for (int op = 1; op < x->nops; op++)
        if ((k->operands[op].flags & TSR__KOPERAND_SCALAR) ||
            k->operands[op].strides[k->ndim - 1] == 0)
            return true;
    return false;
}

/* Whether an input walks the innermost dimension with a large stride while
 * the output does not: tiles then keep its cache lines in use. */
static bool wants_tiles(const tsr__kernel *k)
{
    if (k->ndim < 2)
        return false;
    int d0 = k->ndim - 1, d1 = k->ndim - 2;
    if (k->operands[0].strides[d0] != 1)
        return false;
    for (uint32_t op = 1; op < k->noperands; op++) {
        const tsr__kernel_operand *o = &k->operands[op];
        if (!(o->flags & TSR__KOPERAND_SCALAR) && o->strides[d1] == 1 && o->strides[d0] > 1)
            return true;
    }
    return false;
}

tsr_status tsr__host_elementwise(const tsr__kernel *k,
                                 unsigned char *const host[TSR__KERNEL_MAX_OPERANDS], int threads)
{
    return tsr__host_elementwise_part(k, host, threads, 0);
}

tsr_status tsr__host_elementwise_part(const tsr__kernel *k,
                                      unsigned char *const host[TSR__KERNEL_MAX_OPERANDS],
                                      int threads, int64_t whole)
{
    tsr_dtype common = (tsr_dtype)k->common;
    exec x = {.kernel = k, .host = host, .nops = (int)k->noperands, .ndim = k->ndim};
    int64_t numel = 1;
    for (int d = 0; d < k->ndim; d++)
        numel *= k->sizes[d];
    x.row = tsr__kernel_row_for((tsr__kernel_op)k->op, common);
    tsr_status st = tsr__kernel_check_compute((tsr__kernel_op)k->op, common);
    if (st != TSR_OK)
        return st;
    x.common_size = tsr_dtype_itemsize(common);
    for (int op = 0; op < x.nops; op++) {
        const tsr__kernel_operand *o = &k->operands[op];
        bool scalar = o->flags & TSR__KOPERAND_SCALAR;
        x.size[op] = scalar ? x.common_size : tsr_dtype_itemsize((tsr_dtype)o->dtype);
        x.convert |= !scalar && (tsr_dtype)o->dtype != common && k->op != TSR__KOP_FILL;
    }
    x.bool_kernel = x.convert && bool_kernel(&x);
    x.n0 = k->ndim >= 1 ? k->sizes[k->ndim - 1] : 1;
    x.n1 = k->ndim >= 2 ? k->sizes[k->ndim - 2] : 1;
    bool tiles = wants_tiles(k);
    x.t0 = tiles ? TILE : (x.n0 > ROW_UNIT ? ROW_UNIT : x.n0 > 0 ? x.n0 : 1);
    x.t1 = tiles ? TILE : 1;
    /* Integer division keeps the generic walk: which elements a zero
     * divisor leaves unwritten depends on the order of the tiles. */
    bool may_stop = tsr__kernel_op_has(k->op, TSR__KOPF_ZERO_CHECK) &&
                    !tsr_dtype_is_floating_point(common) && !tsr_dtype_is_complex(common);
    x.packed = tiles && !x.convert && !may_stop && tsr__cpu_fast_enabled();
    x.stream = k->op != TSR__KOP_FILL && k->ndim >= 1 && k->operands[0].strides[k->ndim - 1] == 1 &&
               writes_most(&x) && tsr__cpu_fast_enabled() && tsr__cpu_stream_available() &&
               (whole > numel ? whole : numel) * (int64_t)x.size[0] >= stream_min_bytes();
    if (x.packed) {
        /* Larger tiles: each operand is read in runs of t0 or t1 elements. */
        x.t1 = PACK_ROWS;
        x.t0 = PACK_ROW_BYTES / (int64_t)x.common_size;
        for (int op = 1; op < x.nops; op++)
            if (k->op != TSR__KOP_COPY && packs(&x, op))
                x.scratch_bytes += x.t0 * x.t1 * (int64_t)x.size[op];
    }
    x.b0 = (x.n0 + x.t0 - 1) / x.t0;
    x.b1 = (x.n1 + x.t1 - 1) / x.t1;
    int64_t outer = 1;
    for (int d = 0; d < k->ndim - 2; d++)
        outer *= k->sizes[d];
    int64_t units = outer * x.b1 * x.b0;
    atomic_init(&x.bad, 0);
    if (numel < PARALLEL_MIN) {
        run_units(&x, 0, units);
    } else {
        int64_t per_unit = x.t0 * x.t1;
        tsr__parallel_for_on(threads, units, per_unit >= 8192 ? 1 : 8192 / per_unit, run_units, &x);
    }
    if (atomic_load(&x.bad))
        return tsr__fail(TSR_ERR_RUNTIME, "ZeroDivisionError");
    return TSR_OK;
}

uint64_t tsr__host_pieces(const tsr__kernel *k, int *dim, int64_t *rows)
{
    *dim = -1;
    *rows = 1;
    if (tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE))
        return 1;
    int64_t numel = 1;
    for (int d = 0; d < k->ndim; d++)
        numel *= k->sizes[d];
    if (numel <= (int64_t)TSR__KERNEL_PIECE_ELEMENTS)
        return 1;
    for (int d = 0; d < k->ndim && *dim < 0; d++)
        if (k->sizes[d] > 1)
            *dim = d;
    int64_t slab = numel / k->sizes[*dim]; /* elements under one index */
    *rows = (int64_t)TSR__KERNEL_PIECE_ELEMENTS / slab;
    if (*rows < 1)
        *rows = 1;
    return (uint64_t)((k->sizes[*dim] + *rows - 1) / *rows);
}

void tsr__host_piece(const tsr__kernel *k, int dim, int64_t rows, uint64_t index,
                     tsr__kernel *piece)
{
    *piece = *k;
    if (dim < 0)
        return;
    int64_t first = (int64_t)index * rows;
    piece->sizes[dim] = k->sizes[dim] - first < rows ? k->sizes[dim] - first : rows;
    for (uint32_t i = 0; i < k->noperands; i++)
        if (!(k->operands[i].flags & TSR__KOPERAND_SCALAR))
            piece->operands[i].offset += first * k->operands[i].strides[dim];
}
