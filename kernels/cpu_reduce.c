/* The cpu reduction walks (cpu_reduce.h) in kernels/reduce_order.h's
 * order, over the loops of cpu_reduce_ops.c.
 *
 * Elements are read a chunk at a time: when the input's dtype is the math
 * type as stored (float32, float64, int64, complex64, complex128 reduced
 * in their own dtype) and the chunk lies in one contiguous run, the lanes
 * run over the input itself; otherwise the chunk is gathered into a
 * buffer, converted to the common dtype (tsr__kernel_convert, the
 * conversion of every kernel) and widened to the math type. */
#include "kernels/cpu_reduce.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/cpu_exec.h"
#include "kernels/cpu_fast.h"
#include "kernels/cpu_reduce_ops.h"
#include "kernels/kernels.h"
#include "kernels/threadpool.h"

/* The column walk's accumulators per block of outputs: LANES rows of
 * them, one lane's row (COL_BYTES / LANES) in the second-level cache. */
#define COL_BYTES (1024 * 1024)
/* The column walk takes over reductions of at most SMALL_R elements per
 * output when there are at least SMALL_OUTPUTS outputs. */
#define SMALL_R 64
#define SMALL_OUTPUTS 256

/* The element functions' names of core/ops.def, by op: the combines. */
static const char *const combine_of[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, ...) [TSR__KOP_##ENUM] = #elem,
#include "core/ops.def"
#undef X
};

bool tsr__reduce_computes(uint32_t op, tsr_dtype common)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    if (info == NULL || !(info->flags & TSR__KOPF_REDUCE) || !tsr_dtype_is_valid(common))
        return false;
    bool arg = (info->flags & (TSR__KOPF_INDEX | TSR__KOPF_INDICES)) != 0;
    return tsr__reduce_ops_for(combine_of[op], common) != NULL &&
           !(arg && tsr_dtype_is_complex(common));
}

/* ---- the walk ---------------------------------------------------------- */

/* Blocks of the column walk of at most `width` outputs (a multiple of 16,
 * at least 16). The blocks only share out the outputs: no bit depends on
 * them. */
static void set_col_width(tsr__reduce_walk *w, int64_t width)
{
    width = width > 16 ? width & ~(int64_t)15 : 16;
    w->col_width = w->ksize[w->cdim] < width ? w->ksize[w->cdim] : width;
    w->col_blocks = (w->ksize[w->cdim] + w->col_width - 1) / w->col_width;
    w->col_units = w->nout / w->ksize[w->cdim] * w->col_blocks;
}

tsr_status tsr__reduce_walk_init(tsr__reduce_walk *w, const tsr__kernel *k,
                                 unsigned char *const host[TSR__KERNEL_MAX_OPERANDS])
{
    memset(w, 0, sizeof *w);
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(k->op);
    if (info == NULL || !(info->flags & TSR__KOPF_REDUCE))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid reduction %u", k->op);
    w->k = k;
    w->flags = info->flags;
    w->common = (tsr_dtype)k->common;
    w->in_dtype = (tsr_dtype)k->operands[1].dtype;
    w->ops = tsr__reduce_ops_for(combine_of[k->op], w->common);
    if (w->ops == NULL)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'", info->stub,
                         tsr_dtype_message_name(w->common));
    w->arg = (info->flags & (TSR__KOPF_INDEX | TSR__KOPF_INDICES)) != 0;
    w->chunk = w->ops->chunk;
    w->chunk2 = w->ops->chunk2;
    w->col_rows = w->ops->col_rows;
    w->scan = w->ops->scan;
    w->scan2 = w->ops->scan2;
    if (tsr__reduce_avx2()) {
        w->chunk = w->ops->chunk_avx2;
        w->chunk2 = w->ops->chunk2_avx2;
        w->col_rows = w->ops->col_rows_avx2;
        w->scan = w->ops->scan_avx2;
        w->scan2 = w->ops->scan2_avx2;
    }
    w->in_w = tsr_dtype_itemsize(w->in_dtype);
    w->common_w = tsr_dtype_itemsize(w->common);
    size_t out_w = tsr_dtype_itemsize((tsr_dtype)k->operands[0].dtype);
    w->direct = w->in_dtype == w->common && !(info->flags & TSR__KOPF_SKIP_NAN) &&
                (w->common == TSR_FLOAT32 || w->common == TSR_FLOAT64 || w->common == TSR_INT64 ||
                 w->common == TSR_COMPLEX64 || w->common == TSR_COMPLEX128);
    w->out = host[0] + k->operands[0].offset * (int64_t)out_w;
    w->in = host[1] + k->operands[1].offset * (int64_t)w->in_w;
    if (k->noperands > 2)
        w->idx = host[2] + k->operands[2].offset * 8;
    w->nout = 1;
    w->R = 1;
    for (int d = 0; d < k->ndim; d++) {
        int64_t size = k->sizes[d];
        if (k->operands[0].strides[d] == 0 && size != 1) {
            w->rsize[w->nred] = size;
            w->rin[w->nred] = k->operands[1].strides[d] * (int64_t)w->in_w;
            w->nred++;
            w->R *= size;
        } else {
            w->ksize[w->nkept] = size;
            w->kout[w->nkept] = k->operands[0].strides[d] * (int64_t)out_w;
            w->kin[w->nkept] = k->operands[1].strides[d] * (int64_t)w->in_w;
            w->kidx[w->nkept] = k->noperands > 2 ? k->operands[2].strides[d] * 8 : 0;
            w->nkept++;
            w->nout *= size;
        }
    }
    /* Columns: a kept dimension contiguous in the input, the reduced
     * innermost one not (its rows would be read across); or few elements
     * per output (R <= SMALL_R) and many outputs, where the rows walk
     * would spend its time between outputs: the kept dimension of the
     * smallest stride then, its elements gathered. */
    w->cdim = -1;
    for (int d = 0; d < w->nkept; d++)
        if (w->kin[d] == (int64_t)w->in_w && w->ksize[d] > 1)
            w->cdim = d;
    bool small = w->R <= SMALL_R && w->nout >= SMALL_OUTPUTS;
    if (w->cdim < 0 && small)
        for (int d = 0; d < w->nkept; d++)
            if (w->ksize[d] > 1 && (w->cdim < 0 || llabs(w->kin[d]) < llabs(w->kin[w->cdim])))
                w->cdim = d;
    w->columns = w->cdim >= 0 && !w->arg && w->nred > 0 && w->R > 1 &&
                 (w->rin[w->nred - 1] != (int64_t)w->in_w || small) &&
                 !((info->flags & TSR__KOPF_MEAN) && (info->flags & TSR__KOPF_SKIP_NAN));
    if (w->columns) {
        /* blocks of outputs whose LANES rows of accumulators take about
         * COL_BYTES, one lane's row 64 KiB (the second-level cache, where
         * the walk adds a lane's rows: see col_rows in cpu_reduce_ops.c):
         * the longer the runs of a row read at once, the fewer the jumps
         * between rows, where a read of one thread waits for the memory
         * (a float32 sum over dim 0 of 8192 columns, whole rows of 32
         * KiB at a time, reads at about 0.75-0.8 of a plain read, in
         * runs of 8 KiB at about 0.7) */
        set_col_width(w, (int64_t)(COL_BYTES / (LANES * w->ops->msize)));
        int64_t nchunks = (w->R + CHUNK - 1) / CHUNK;
        w->col_levels = 2;
        while (nchunks > 1) {
            nchunks = (nchunks + 1) / 2;
            w->col_levels++;
        }
    }
    return TSR_OK;
}

/* Byte offsets of output element o (row-major over the kept dimensions,
 * leaving out `skip`, or -1) in the output, input and indices. */
static void kept_offsets(const tsr__reduce_walk *w, int64_t o, int skip, int64_t *out, int64_t *in,
                         int64_t *idx)
{
    *out = *in = *idx = 0;
    for (int d = w->nkept - 1; d >= 0; d--) {
        if (d == skip)
            continue;
        int64_t i = o % w->ksize[d];
        o /= w->ksize[d];
        *out += i * w->kout[d];
        *in += i * w->kin[d];
        *idx += i * w->kidx[d];
    }
}

/* Byte offset in the input of reduced row `row` (dimensions 0..nred-2,
 * row-major). */
static int64_t row_offset(const tsr__reduce_walk *w, int64_t row)
{
    int64_t off = 0;
    for (int d = w->nred - 2; d >= 0; d--) {
        off += (row % w->rsize[d]) * w->rin[d];
        row /= w->rsize[d];
    }
    return off;
}

/* Elements r0 .. r0+n-1 (n <= CHUNK) of the reduction at input `base`,
 * as math values: a pointer into the input (direct), or `buf` filled. */
static const void *chunk_values(const tsr__reduce_walk *w, const unsigned char *base, int64_t r0,
                                int64_t n, void *buf, int64_t *nonnan)
{
    int64_t n0 = w->nred ? w->rsize[w->nred - 1] : 1, s0 = w->nred ? w->rin[w->nred - 1] : 0;
    int64_t row = r0 / n0, pos = r0 % n0;
    if (w->direct && pos + n <= n0 && (s0 == (int64_t)w->in_w || n == 1)) {
        if (nonnan)
            *nonnan += n;
        return base + row_offset(w, row) + pos * s0;
    }
    _Alignas(16) unsigned char raw[CHUNK * ELEMENT_MAX];
    _Alignas(16) unsigned char conv[CHUNK * ELEMENT_MAX];
    size_t iw = w->in_w;
    for (int64_t got = 0; got < n; row++, pos = 0) {
        const unsigned char *p = base + row_offset(w, row) + pos * s0;
        int64_t m = n0 - pos < n - got ? n0 - pos : n - got;
        if (s0 == (int64_t)iw)
            memcpy(raw + got * (int64_t)iw, p, (size_t)m * iw);
        else
            for (int64_t i = 0; i < m; i++)
                memcpy(raw + (got + i) * (int64_t)iw, p + i * s0, iw);
        got += m;
    }
    const unsigned char *src = raw;
    if (w->in_dtype != w->common) {
        if (!tsr__cpu_fast_convert(raw, w->in_dtype, conv, w->common, (size_t)n))
            tsr__kernel_convert(raw, w->in_dtype, conv, w->common, (size_t)n);
        src = conv;
    }
    w->ops->load(w->common, src, n, buf, (w->flags & TSR__KOPF_SKIP_NAN) != 0, nonnan);
    return buf;
}

/* The binary counter of step 4. */
typedef struct counter {
    mval v[STACK_MAX];
    int level[STACK_MAX];
    int n;
} counter;

static void push(const tsr__reduce_walk *w, counter *c, const void *value, int level)
{
    mval v;
    memcpy(v.b, value, w->ops->msize);
    while (c->n > 0 && c->level[c->n - 1] == level) {
        mval left = c->v[c->n - 1];
        w->ops->combine(left.b, v.b);
        v = left;
        c->n--;
        level++;
    }
    c->v[c->n] = v;
    c->level[c->n++] = level;
}

/* The counter's value: its stack folded from the top (identity if empty). */
static void fold(const tsr__reduce_walk *w, const counter *c, void *result)
{
    if (c->n == 0) {
        w->ops->identity(result);
        return;
    }
    mval acc = c->v[c->n - 1];
    for (int i = c->n - 2; i >= 0; i--) {
        mval left = c->v[i];
        w->ops->combine(left.b, acc.b);
        acc = left;
    }
    memcpy(result, acc.b, w->ops->msize);
}

/* Chunks [c0, c1) of the reduction at `base` pushed into `c`. */
static void push_chunks(const tsr__reduce_walk *w, const unsigned char *base, int64_t c0,
                        int64_t c1, counter *c, int64_t *nonnan)
{
    double buf[CHUNK * ELEMENT_MAX / sizeof(double)];
    for (int64_t ch = c0; ch < c1; ch++) {
        int64_t r0 = ch * CHUNK, n = w->R - r0 < CHUNK ? w->R - r0 : CHUNK;
        mval value;
        w->chunk(chunk_values(w, base, r0, n, buf, nonnan), n, value.b);
        push(w, c, value.b, 0);
    }
}

/* One of two runs of chunks read side by side (run_pair): chunks c0..
 * of the reduction at `base`, into a counter (and nonnan, the elements
 * that are no NaN) or, for an arg reduction, into a best and its
 * position. */
typedef struct run_side {
    const unsigned char *base;
    int64_t c0;
    counter *c;
    int64_t *nonnan;
    mval *best;
    int64_t *at;
} run_side;

/* One chunk of a side alone (first: the run's first chunk). */
static void side_one(const tsr__reduce_walk *w, const run_side *s, const void *x, int64_t n,
                     int64_t r0, bool first)
{
    if (w->arg) {
        w->scan(x, n, r0, first, s->best->b, s->at);
        return;
    }
    mval v;
    w->chunk(x, n, v.b);
    push(w, s->c, v.b, 0);
}

/* n chunks of each side, a chunk of each at a time (chunk2 or scan2,
 * where both are whole and read in place). The walks below give it two
 * halves of a thread's work, far apart in memory: the memory serves two
 * streams of reads faster than one (cpu_reduce_ops.c, CHUNK_PLAIN2). No
 * bit changes. */
static void run_pair(const tsr__reduce_walk *w, const run_side *a, const run_side *b, int64_t n)
{
    double buf[CHUNK * ELEMENT_MAX / sizeof(double)];
    for (int64_t k = 0; k < n; k++) {
        int64_t ra = (a->c0 + k) * CHUNK, rb = (b->c0 + k) * CHUNK;
        int64_t na = w->R - ra < CHUNK ? w->R - ra : CHUNK;
        int64_t nb = w->R - rb < CHUNK ? w->R - rb : CHUNK;
        const void *xa = chunk_values(w, a->base, ra, na, buf, a->nonnan);
        if (xa == buf) /* not in place: this one alone */
            side_one(w, a, xa, na, ra, k == 0);
        const void *xb = chunk_values(w, b->base, rb, nb, buf, b->nonnan);
        if (xa != buf && xb != buf && na == CHUNK && nb == CHUNK) {
            if (w->arg) {
                w->scan2(xa, xb, ra, rb, k == 0, k == 0, a->best->b, a->at, b->best->b, b->at);
            } else {
                mval va, vb;
                w->chunk2(xa, xb, va.b, vb.b);
                push(w, a->c, va.b, 0);
                push(w, b->c, vb.b, 0);
            }
        } else {
            if (xa != buf)
                side_one(w, a, xa, na, ra, k == 0);
            side_one(w, b, xb, nb, rb, k == 0);
        }
    }
}

/* Stores an output element's value: mean divides first. */
static void store_result(const tsr__reduce_walk *w, const void *acc, int64_t count,
                         unsigned char *dst)
{
    mval x;
    void *value = x.b;
    w->ops->final(acc, value);
    w->ops->store(w->common, value, dst);
    if (w->flags & TSR__KOPF_MEAN) {
        w->ops->load(w->common, dst, 1, value, false, NULL);
        w->ops->divide(w->common, value, count);
        w->ops->store(w->common, value, dst);
    }
}

/* An arg reduction's chunks [c0, c1) at `base` scanned into *best and
 * *at, chunk c0 taken as it is when `first`. */
static void scan_chunks(const tsr__reduce_walk *w, const unsigned char *base, int64_t c0,
                        int64_t c1, bool first, mval *best, int64_t *at)
{
    double buf[CHUNK * ELEMENT_MAX / sizeof(double)];
    for (int64_t c = c0; c < c1; c++) {
        int64_t r0 = c * CHUNK, n = w->R - r0 < CHUNK ? w->R - r0 : CHUNK;
        w->scan(chunk_values(w, base, r0, n, buf, NULL), n, r0, first && c == c0, best->b, at);
    }
}

/* Output o of an arg reduction from its best and position. */
static void store_arg(const tsr__reduce_walk *w, int64_t o, const mval *best, int64_t at)
{
    int64_t oo, oi, ox;
    kept_offsets(w, o, -1, &oo, &oi, &ox);
    if (w->flags & TSR__KOPF_INDEX) {
        memcpy(w->out + oo, &at, 8);
        return;
    }
    w->ops->store(w->common, best->b, w->out + oo);
    memcpy(w->idx + ox, &at, 8);
}

/* Output o of an arg reduction alone: the first half of its chunks side
 * by side with the second (run_pair), the second's best then scanned
 * as one element at its position after the first's: the first best of
 * all, as one scan from the start gives it. */
static void arg_row(const tsr__reduce_walk *w, int64_t o)
{
    int64_t oo, oi, ox;
    kept_offsets(w, o, -1, &oo, &oi, &ox);
    int64_t nchunks = (w->R + CHUNK - 1) / CHUNK, h = nchunks / 2;
    mval best, second;
    int64_t at = 0, second_at = 0;
    if (h == 0) {
        scan_chunks(w, w->in + oi, 0, nchunks, true, &best, &at);
    } else {
        run_side a = {.base = w->in + oi, .c0 = 0, .best = &best, .at = &at};
        run_side b = {.base = w->in + oi, .c0 = h, .best = &second, .at = &second_at};
        run_pair(w, &a, &b, h);
        scan_chunks(w, w->in + oi, 2 * h, nchunks, false, &second, &second_at);
        w->scan(second.b, 1, second_at, false, best.b, &at);
    }
    store_arg(w, o, &best, at);
}

/* Output o's counter folded and stored. */
static void store_row(const tsr__reduce_walk *w, int64_t o, const counter *c, int64_t nonnan)
{
    int64_t oo, oi, ox;
    kept_offsets(w, o, -1, &oo, &oi, &ox);
    mval value;
    fold(w, c, value.b);
    store_result(w, value.b, (w->flags & TSR__KOPF_SKIP_NAN) ? nonnan : w->R, w->out + oo);
}

/* Rows of a reduction that keeps no position, read in place, each from one
 * contiguous reduced dimension: rows_group takes them. */
static bool rows_in_place(const tsr__reduce_walk *w)
{
    return w->direct && !w->arg && w->nred == 1 && w->rin[0] == (int64_t)w->in_w;
}

#define ROW_GROUP 8

/* Outputs o .. o+g-1 (g <= ROW_GROUP) side by side with o+half ..: the
 * whole chunks of each pair of rows by chunk2, a chunk's address the last
 * one's plus a chunk, a short last chunk by chunk; the g pairs read one
 * after the other, then stored. The same calls in the same order as
 * run_pair's for each pair, so the same bits. Between rows of a few
 * chunks, run_pair's work out of each chunk's place and the stores kept
 * the memory idle often enough to matter: over 8192 rows of 8192 float32
 * (two chunks each) this way reads 1.10-1.15 of run_pair's speed, the
 * same memory read by both in turns, and within 5-10% of the same tensor
 * summed whole. */
static void rows_group(const tsr__reduce_walk *w, int64_t o, int64_t half, int64_t g)
{
    counter c[ROW_GROUP], d[ROW_GROUP];
    int64_t whole = w->R / CHUNK, step = CHUNK * (int64_t)w->in_w;
    for (int64_t r = 0; r < g; r++) {
        int64_t oo, oi, ox;
        c[r].n = d[r].n = 0;
        kept_offsets(w, o + r, -1, &oo, &oi, &ox);
        const unsigned char *x = w->in + oi;
        kept_offsets(w, o + r + half, -1, &oo, &oi, &ox);
        const unsigned char *y = w->in + oi;
        for (int64_t k = 0; k < whole; k++, x += step, y += step) {
            mval vx, vy;
            w->chunk2(x, y, vx.b, vy.b);
            push(w, &c[r], vx.b, 0);
            push(w, &d[r], vy.b, 0);
        }
        if (w->R > whole * CHUNK) {
            mval vx, vy;
            w->chunk(x, w->R - whole * CHUNK, vx.b);
            push(w, &c[r], vx.b, 0);
            w->chunk(y, w->R - whole * CHUNK, vy.b);
            push(w, &d[r], vy.b, 0);
        }
    }
    for (int64_t r = 0; r < g; r++) {
        store_row(w, o + r, &c[r], w->R);
        store_row(w, o + r + half, &d[r], w->R);
    }
}

/* Outputs [begin, end), each from its whole row of chunks: those of the
 * first half of the range side by side with those of the second
 * (rows_group, or run_pair) where a row is a chunk or more. */
void tsr__reduce_rows(const tsr__reduce_walk *w, int64_t begin, int64_t end)
{
    int64_t nchunks = (w->R + CHUNK - 1) / CHUNK;
    int64_t half = w->R < CHUNK ? 0 : (end - begin) / 2;
    int64_t first = begin; /* of the pairs run_pair takes */
    if (rows_in_place(w))
        for (; first < begin + half; first += ROW_GROUP)
            rows_group(w, first, half,
                       begin + half - first < ROW_GROUP ? begin + half - first : ROW_GROUP);
    for (int64_t o = first; o < begin + half; o++) {
        int64_t oo, oi, ox, qo, qi, qx;
        kept_offsets(w, o, -1, &oo, &oi, &ox);
        kept_offsets(w, o + half, -1, &qo, &qi, &qx);
        if (w->arg) {
            mval best, qbest;
            int64_t at = 0, qat = 0;
            run_side a = {.base = w->in + oi, .best = &best, .at = &at};
            run_side b = {.base = w->in + qi, .best = &qbest, .at = &qat};
            run_pair(w, &a, &b, nchunks);
            store_arg(w, o, &best, at);
            store_arg(w, o + half, &qbest, qat);
            continue;
        }
        counter c = {.n = 0}, d = {.n = 0};
        int64_t nonnan = 0, qnonnan = 0;
        run_side a = {.base = w->in + oi, .c = &c, .nonnan = &nonnan};
        run_side b = {.base = w->in + qi, .c = &d, .nonnan = &qnonnan};
        run_pair(w, &a, &b, nchunks);
        store_row(w, o, &c, nonnan);
        store_row(w, o + half, &d, qnonnan);
    }
    for (int64_t o = begin + 2 * half; o < end; o++) {
        int64_t oo, oi, ox;
        kept_offsets(w, o, -1, &oo, &oi, &ox);
        if (w->arg) {
            arg_row(w, o);
            continue;
        }
        counter c = {.n = 0};
        int64_t nonnan = 0;
        push_chunks(w, w->in + oi, 0, nchunks, &c, &nonnan);
        store_row(w, o, &c, nonnan);
    }
}

/* ---- columns ------------------------------------------------------------- */

/* n elements of `width` bytes at src + i * stride, packed into dst. */
static void gather(unsigned char *dst, const unsigned char *src, int64_t stride, int n,
                   size_t width)
{
#define GATHER(T)                                          \
    for (int i = 0; i < n; i++) {                          \
        T v;                                               \
        memcpy(&v, src + i * stride, sizeof v);            \
        memcpy(dst + i * (int64_t)sizeof v, &v, sizeof v); \
    }
    switch (width) {
    case 1:
        GATHER(uint8_t)
        break;
    case 2:
        GATHER(uint16_t)
        break;
    case 4:
        GATHER(uint32_t)
        break;
    case 8:
        GATHER(uint64_t)
        break;
    default:
        for (int i = 0; i < n; i++)
            memcpy(dst + i * (int64_t)width, src + i * stride, width);
    }
#undef GATHER
}

size_t tsr__reduce_column_scratch(const tsr__reduce_walk *w)
{
    size_t width = (size_t)w->col_width, ms = w->ops->msize;
    /* lanes, a row and its partner (each converted, twice), lane 0's
     * values, the counters */
    return width * (LANES * ms + 6 * ELEMENT_MAX + (size_t)w->col_levels * ms) + 64;
}

/* Row r of the reduction for the column walk's block at input offset
 * oi: its nc elements in the math type, where they are or made in raw
 * (gathered), conv and row (converted, loaded). */
static const unsigned char *column_row(const tsr__reduce_walk *w, int64_t oi, int64_t r, int nc,
                                       unsigned char *raw, unsigned char *conv, unsigned char *row)
{
    int64_t n0 = w->rsize[w->nred - 1], s0 = w->rin[w->nred - 1], cs = w->kin[w->cdim];
    const unsigned char *x = w->in + oi + row_offset(w, r / n0) + (r % n0) * s0;
    if (cs != (int64_t)w->in_w) { /* the row's elements gathered */
        gather(raw, x, cs, nc, w->in_w);
        x = raw;
    }
    if (!w->direct) {
        const unsigned char *src = x;
        if (w->in_dtype != w->common) {
            tsr__kernel_convert(x, w->in_dtype, conv, w->common, (size_t)nc);
            src = conv;
        }
        w->ops->load(w->common, src, nc, row, (w->flags & TSR__KOPF_SKIP_NAN) != 0, NULL);
        x = row;
    }
    return x;
}

void tsr__reduce_columns(const tsr__reduce_walk *w, int64_t begin, int64_t end, void *scratch)
{
    size_t ms = w->ops->msize;
    int64_t ncols = w->ksize[w->cdim], width = w->col_width;
    int64_t s0 = w->rin[w->nred - 1], cs = w->kin[w->cdim];
    bool contiguous = cs == (int64_t)w->in_w;
    unsigned char *lanes = (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    unsigned char *row = lanes + LANES * width * (int64_t)ms;
    unsigned char *conv = row + width * ELEMENT_MAX;
    unsigned char *raw = conv + width * ELEMENT_MAX;
    unsigned char *row2 = raw + width * ELEMENT_MAX, *raw2 = row2 + width * ELEMENT_MAX;
    unsigned char *v = raw2 + width * ELEMENT_MAX;
    unsigned char *stack = v + width * ELEMENT_MAX; /* [col_levels][width] accumulators */
    int level[STACK_MAX];
    for (int64_t u = begin; u < end; u++) {
        int64_t outer = u / w->col_blocks, col0 = (u % w->col_blocks) * width;
        int nc = (int)(ncols - col0 < width ? ncols - col0 : width);
        int64_t oo, oi, ox;
        kept_offsets(w, outer, w->cdim, &oo, &oi, &ox);
        oo += col0 * w->kout[w->cdim];
        oi += col0 * w->kin[w->cdim];
        int depth = 0;
        for (int64_t r0 = 0; r0 < w->R; r0 += CHUNK) {
            int64_t n = w->R - r0 < CHUNK ? w->R - r0 : CHUNK;
            w->ops->col_init(lanes, nc);
            if (w->direct && contiguous && w->nred == 1) {
                /* rows at a fixed stride, read where they are */
                w->col_rows(lanes, w->in + oi + r0 * s0, s0, n, nc);
            } else {
                /* a lane's rows i and i + LANES (i % (2 LANES) < LANES)
                 * together, as col_rows takes them */
                for (int64_t i0 = 0; i0 < n; i0 += 2 * LANES)
                    for (int j = 0; j < LANES && i0 + j < n; j++) {
                        int64_t i = i0 + j;
                        const unsigned char *a = column_row(w, oi, r0 + i, nc, raw, conv, row);
                        const unsigned char *b =
                            i + LANES < n ? column_row(w, oi, r0 + i + LANES, nc, raw2, conv, row2)
                                          : NULL;
                        w->ops->col_two(lanes, a, b, j, nc);
                    }
            }
            w->ops->col_fold(lanes, nc);
            /* lane 0's columns into the counters (one level array) */
            for (int c = 0; c < nc; c++)
                w->ops->col_value(lanes, nc, c, v + c * ms);
            int lv = 0;
            while (depth > 0 && level[depth - 1] == lv) {
                unsigned char *top = stack + (depth - 1) * width * (int64_t)ms;
                for (int c = 0; c < nc; c++) {
                    w->ops->combine(top + c * ms, v + c * ms);
                    memcpy(v + c * ms, top + c * ms, ms);
                }
                depth--;
                lv++;
            }
            memcpy(stack + depth * width * (int64_t)ms, v, (size_t)nc * ms);
            level[depth++] = lv;
        }
        for (int c = 0; c < nc; c++) {
            mval acc;
            memcpy(acc.b, stack + (depth - 1) * width * (int64_t)ms + c * ms, ms);
            for (int i = depth - 2; i >= 0; i--) {
                mval left;
                memcpy(left.b, stack + i * width * (int64_t)ms + c * ms, ms);
                w->ops->combine(left.b, acc.b);
                acc = left;
            }
            store_result(w, acc.b, w->R, w->out + oo + c * w->kout[w->cdim]);
        }
    }
}

/* ---- blocks ---------------------------------------------------------------- */

int64_t tsr__reduce_whole_blocks(const tsr__reduce_walk *w)
{
    return w->R / ((int64_t)CHUNK * TSR__RED_BLOCK_CHUNKS);
}

size_t tsr__reduce_value_size(const tsr__reduce_walk *w)
{
    return w->ops->msize + sizeof(int64_t); /* the value, then nanmean's count */
}

/* Block unit u's value (a whole block is one node) and count in its slot. */
static void store_block(const tsr__reduce_walk *w, int64_t u, const counter *c, int64_t nonnan,
                        void *values)
{
    unsigned char *slot = (unsigned char *)values + u * (int64_t)tsr__reduce_value_size(w);
    memcpy(slot, c->v[0].b, w->ops->msize);
    memcpy(slot + w->ops->msize, &nonnan, sizeof nonnan);
}

/* Block units [begin, end): those of the first half of the range side by
 * side with those of the second (run_pair). */
void tsr__reduce_blocks(const tsr__reduce_walk *w, int64_t begin, int64_t end, void *values)
{
    int64_t nb = tsr__reduce_whole_blocks(w);
    int64_t half = (end - begin) / 2;
    for (int64_t u = begin; u < begin + half; u++) {
        int64_t v = u + half;
        int64_t oo, oi, ox, qo, qi, qx;
        kept_offsets(w, u / nb, -1, &oo, &oi, &ox);
        kept_offsets(w, v / nb, -1, &qo, &qi, &qx);
        counter c = {.n = 0}, d = {.n = 0};
        int64_t nonnan = 0, qnonnan = 0;
        run_side a = {
            .base = w->in + oi, .c0 = u % nb * TSR__RED_BLOCK_CHUNKS, .c = &c, .nonnan = &nonnan};
        run_side b = {
            .base = w->in + qi, .c0 = v % nb * TSR__RED_BLOCK_CHUNKS, .c = &d, .nonnan = &qnonnan};
        run_pair(w, &a, &b, TSR__RED_BLOCK_CHUNKS);
        store_block(w, u, &c, nonnan, values);
        store_block(w, v, &d, qnonnan, values);
    }
    for (int64_t u = begin + 2 * half; u < end; u++) {
        int64_t o = u / nb, b = u % nb;
        int64_t oo, oi, ox;
        kept_offsets(w, o, -1, &oo, &oi, &ox);
        counter c = {.n = 0};
        int64_t nonnan = 0;
        push_chunks(w, w->in + oi, b * TSR__RED_BLOCK_CHUNKS, (b + 1) * TSR__RED_BLOCK_CHUNKS, &c,
                    &nonnan);
        store_block(w, u, &c, nonnan, values);
    }
}

void tsr__reduce_finish(const tsr__reduce_walk *w, int64_t o, const void *values)
{
    int64_t nb = tsr__reduce_whole_blocks(w);
    size_t vs = tsr__reduce_value_size(w);
    int64_t oo, oi, ox;
    kept_offsets(w, o, -1, &oo, &oi, &ox);
    counter c = {.n = 0};
    int64_t nonnan = 0;
    for (int64_t b = 0; b < nb; b++) {
        const unsigned char *slot = (const unsigned char *)values + (o * nb + b) * (int64_t)vs;
        int64_t k;
        memcpy(&k, slot + w->ops->msize, sizeof k);
        nonnan += k;
        push(w, &c, slot, TSR__RED_BLOCK_LOG2);
    }
    int64_t nchunks = (w->R + CHUNK - 1) / CHUNK;
    push_chunks(w, w->in + oi, nb * TSR__RED_BLOCK_CHUNKS, nchunks, &c, &nonnan);
    mval value;
    fold(w, &c, value.b);
    store_result(w, value.b, (w->flags & TSR__KOPF_SKIP_NAN) ? nonnan : w->R, w->out + oo);
}

/* ---- a whole reduction on the host ------------------------------------------
 * How the work is cut depends on the threads; the bits do not (the order
 * above depends only on the shape). */

#define PARALLEL_MIN 32768 /* elements of work below which one thread runs it */

typedef struct cpu_job {
    const tsr__reduce_walk *w;
    void *values;
    atomic_bool failed; /* out of memory */
} cpu_job;

static void rows_range(void *ctx, int64_t b, int64_t e)
{
    tsr__reduce_rows(((cpu_job *)ctx)->w, b, e);
}
static void columns_range(void *ctx, int64_t b, int64_t e)
{
    cpu_job *j = ctx;
    void *scratch = malloc(tsr__reduce_column_scratch(j->w));
    if (scratch == NULL) {
        atomic_store(&j->failed, true);
        return;
    }
    tsr__reduce_columns(j->w, b, e, scratch);
    free(scratch);
}
static void blocks_range(void *ctx, int64_t b, int64_t e)
{
    cpu_job *j = ctx;
    tsr__reduce_blocks(j->w, b, e, j->values);
}
static void finish_range(void *ctx, int64_t b, int64_t e)
{
    cpu_job *j = ctx;
    for (int64_t o = b; o < e; o++)
        tsr__reduce_finish(j->w, o, j->values);
}

tsr_status tsr__host_reduce(const tsr__kernel *k,
                            unsigned char *const host[TSR__KERNEL_MAX_OPERANDS], int threads)
{
    for (int d = 0; d < k->ndim; d++)
        if (k->sizes[d] == 0 && k->operands[0].strides[d] != 0)
            return TSR_OK; /* no output element */
    tsr__reduce_walk w;
    tsr_status st = tsr__reduce_walk_init(&w, k, host);
    if (st != TSR_OK || w.nout == 0)
        return st;
    int pool = tsr__threadpool_size();
    if (threads > 0 && threads < pool)
        pool = threads;
    cpu_job j = {.w = &w};
    atomic_init(&j.failed, false);
    int64_t R = w.R > 0 ? w.R : 1, work = w.nout * R;
    int64_t grain = PARALLEL_MIN / R > 0 ? PARALLEL_MIN / R : 1;
    if (work < PARALLEL_MIN && !w.columns) {
        tsr__reduce_rows(&w, 0, w.nout);
    } else if (w.columns) {
        /* narrower blocks where there are fewer than the threads (down
         * to a quarter of COL_BYTES) */
        int64_t least = (int64_t)(COL_BYTES / 4 / (LANES * w.ops->msize));
        while (w.col_units < pool && w.col_width / 2 >= least)
            set_col_width(&w, w.col_width / 2);
        int64_t per = R * w.col_width;
        tsr__parallel_for_on(threads, w.col_units, PARALLEL_MIN / per > 0 ? PARALLEL_MIN / per : 1,
                             columns_range, &j);
        if (atomic_load(&j.failed))
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    } else if (!w.arg && w.nout < 4 * (int64_t)pool && tsr__reduce_whole_blocks(&w) > 1) {
        int64_t units = w.nout * tsr__reduce_whole_blocks(&w);
        j.values = calloc((size_t)units, tsr__reduce_value_size(&w));
        if (j.values == NULL)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
        tsr__parallel_for_on(threads, units, 1, blocks_range, &j);
        tsr__parallel_for_on(threads, w.nout, 1, finish_range, &j);
        free(j.values);
    } else {
        tsr__parallel_for_on(threads, w.nout, grain, rows_range, &j);
    }
    return TSR_OK;
}
