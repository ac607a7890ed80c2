/* The reduction program of a common dtype (core/kernel.h, "A
 * reduction"), after kernels/reduce_order.h and what opencl/source.c
 * writes before this file for the dtype:
 *   tsr_r_x             the math type (tsr__u64, float, double, tsr__kc64,
 *                       tsr__kc128) and TSR_R_INT, TSR_R_REAL or TSR_R_CPLX
 *   tsr_r_raw           the common dtype as stored (a vector of two when
 *                       complex)
 *   tsr_r_in, tsr_r_out the raw value widened to the math type, and back
 *   tsr_r_load          element i of an input of dtype d, in the math type
 *                       (read as it is when d is the common dtype, as the
 *                       cpu reads it, else through tsr_g_load)
 *   tsr_r_quiet         a NaN as the positive quiet NaN (the cpu stores
 *                       every NaN result so)
 *   tsr_r_div           mean's quotient by the count
 *   tsr_g_load, tsr_g_store   the generic programs' conversions
 * and after it tsr_r_one, the switch over the reductions computing in
 * the dtype.
 *
 * Each output is reduced by one work-item, in kernels/reduce_order.h's
 * order exactly as kernels/cpu_reduce.c's rows walk does: chunks of
 * TSR__RED_CHUNK elements, TSR__RED_LANES lanes, their fold, the chunk
 * tree by a binary counter, compensated sums for real types; argmax and
 * co keep the first of the best. The elements come in their logical
 * order r from a cursor over the reduced dimensions. */

/* The elements of one output, r = 0, 1, ...: the cursor's offset steps
 * along the innermost reduced dimension and is computed again from the
 * row at each row's end. */
typedef struct tsr_r_src {
    __global const uchar *p;
    __global const long *geom;
    long base, off, s0;
    ulong pos, n0, row;
    long nonnan;
    uint d;
    int nk, nr, nd, skip;
} tsr_r_src;

/* The input's offset of reduced row `row` (the reduced dimensions but the
 * innermost, row-major). */
static long tsr_r_row_offset(const tsr_r_src *src, ulong row)
{
    long off = 0;
    for (int d = src->nr - 2; d >= 0; d--) {
        ulong n = (ulong)src->geom[src->nk + d];
        off += (long)(row % n) * src->geom[2 * src->nd + src->nk + d];
        row /= n;
    }
    return off;
}

/* nansum: a NaN counts as zero, and not at all in the count */
static tsr_r_x tsr_r_counted(tsr_r_src *src, tsr_r_x x)
{
#if TSR_R_REAL
    if (src->skip && x != x)
        return 0;
#endif
    src->nonnan++;
    return x;
}

/* The cursor past the end of its row: the next one's start. */
static void tsr_r_next_row(tsr_r_src *src)
{
    src->pos = 0;
    src->row++;
    src->off = src->base + tsr_r_row_offset(src, src->row);
}

static tsr_r_x tsr_r_next(tsr_r_src *src)
{
    tsr_r_x x = tsr_r_load(src->d, src->p, src->off);
    if (++src->pos == src->n0)
        tsr_r_next_row(src);
    else
        src->off += src->s0;
    return tsr_r_counted(src, x);
}

/* The next TSR__RED_LANES elements, one per lane: read along the row
 * where it holds them all. */
static void tsr_r_group(tsr_r_src *src, tsr_r_x *xs)
{
    if (src->pos + TSR__RED_LANES > src->n0) {
        for (int j = 0; j < TSR__RED_LANES; j++)
            xs[j] = tsr_r_next(src);
        return;
    }
    long off = src->off, s0 = src->s0;
#pragma unroll
    for (int j = 0; j < TSR__RED_LANES; j++)
        xs[j] = tsr_r_counted(src, tsr_r_load(src->d, src->p, off + j * s0));
    src->pos += TSR__RED_LANES;
    if (src->pos == src->n0)
        tsr_r_next_row(src);
    else
        src->off = off + TSR__RED_LANES * s0;
}

/* Steps 2 to 4 of the order for a combine OP on plain accumulators. */
#define TSR_R_PLAIN(NAME, IDENTITY, OP)                                         \
    static tsr_r_x NAME(tsr_r_src *src, ulong R)                                \
    {                                                                           \
        tsr_r_x stack[64];                                                      \
        int level[64], depth = 0;                                               \
        for (ulong c0 = 0; c0 < R; c0 += TSR__RED_CHUNK) {                      \
            ulong n = min((ulong)TSR__RED_CHUNK, R - c0);                       \
            tsr_r_x lane[TSR__RED_LANES];                                       \
            for (int j = 0; j < TSR__RED_LANES; j++)                            \
                lane[j] = IDENTITY;                                             \
            ulong i = 0;                                                        \
            for (; i + TSR__RED_LANES <= n; i += TSR__RED_LANES) {              \
                tsr_r_x xs[TSR__RED_LANES];                                     \
                tsr_r_group(src, xs);                                           \
                _Pragma("unroll") for (int j = 0; j < TSR__RED_LANES; j++)      \
                    lane[j] = OP(lane[j], xs[j]);                               \
            }                                                                   \
            for (int j = 0; i + j < n; j++) {                                   \
                tsr_r_x x = tsr_r_next(src);                                    \
                lane[j] = OP(lane[j], x);                                       \
            }                                                                   \
            TSR__RED_FOLD_LANES(lane, OP);                                      \
            tsr_r_x v = lane[0];                                                \
            int lv = 0;                                                         \
            for (; depth > 0 && level[depth - 1] == lv; depth--, lv++)          \
                v = OP(stack[depth - 1], v);                                    \
            stack[depth] = v;                                                   \
            level[depth++] = lv;                                                \
        }                                                                       \
        if (depth == 0)                                                         \
            return IDENTITY;                                                    \
        tsr_r_x acc = stack[depth - 1];                                         \
        for (int k = depth - 2; k >= 0; k--)                                    \
            acc = OP(stack[k], acc);                                            \
        return acc;                                                             \
    }

/* argmax and co: the first of the best. */
#define TSR_R_SCAN(NAME, BETTER)                                                \
    static tsr_r_x NAME(tsr_r_src *src, ulong R, long *at)                      \
    {                                                                           \
        *at = 0;                                                                \
        if (R == 0)                                                             \
            return 0;                                                           \
        tsr_r_x b = tsr_r_next(src);                                            \
        for (ulong r = 1; r < R; r++) {                                         \
            tsr_r_x x = tsr_r_next(src);                                        \
            if (BETTER(x, b)) {                                                 \
                b = x;                                                          \
                *at = (long)r;                                                  \
            }                                                                   \
        }                                                                       \
        return b;                                                               \
    }

#if TSR_R_INT
/* 64-bit wrapping integers, compared signed */
#define TSR_R_SUM(a, b) ((a) + (b))
#define TSR_R_PROD(a, b) ((a) * (b))
#define TSR_R_MAX(a, b) ((long)(b) > (long)(a) ? (b) : (a))
#define TSR_R_MIN(a, b) ((long)(b) < (long)(a) ? (b) : (a))
#define TSR_R_ALL(a, b) ((a) & (b))
#define TSR_R_ANY(a, b) ((a) | (b))
#define TSR_R_BETTER_MAX(v, b) ((long)(v) > (long)(b))
#define TSR_R_BETTER_MIN(v, b) ((long)(v) < (long)(b))
TSR_R_PLAIN(tsr_r_sum, (tsr_r_x)0, TSR_R_SUM)
TSR_R_PLAIN(tsr_r_prod, (tsr_r_x)1, TSR_R_PROD)
TSR_R_PLAIN(tsr_r_max, (tsr_r_x)0x8000000000000000UL, TSR_R_MAX)
TSR_R_PLAIN(tsr_r_min, (tsr_r_x)0x7FFFFFFFFFFFFFFFUL, TSR_R_MIN)
TSR_R_PLAIN(tsr_r_all, (tsr_r_x)1, TSR_R_ALL)
TSR_R_PLAIN(tsr_r_any, (tsr_r_x)0, TSR_R_ANY)
TSR_R_SCAN(tsr_r_scan_max, TSR_R_BETTER_MAX)
TSR_R_SCAN(tsr_r_scan_min, TSR_R_BETTER_MIN)
#endif

#if TSR_R_REAL
/* NaN propagates (the first met), ties keep the earlier value; argmax
 * takes a NaN as the largest. */
#define TSR_R_PROD(a, b) ((a) * (b))
#define TSR_R_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) > (a) ? (b) : (a))
#define TSR_R_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) < (a) ? (b) : (a))
#define TSR_R_BETTER_MAX(v, b) ((b) == (b) && ((v) != (v) || (v) > (b)))
#define TSR_R_BETTER_MIN(v, b) ((b) == (b) && ((v) != (v) || (v) < (b)))
TSR_R_PLAIN(tsr_r_prod, (tsr_r_x)1, TSR_R_PROD)
TSR_R_PLAIN(tsr_r_max, -(tsr_r_x)INFINITY, TSR_R_MAX)
TSR_R_PLAIN(tsr_r_min, (tsr_r_x)INFINITY, TSR_R_MIN)
TSR_R_SCAN(tsr_r_scan_max, TSR_R_BETTER_MAX)
TSR_R_SCAN(tsr_r_scan_min, TSR_R_BETTER_MIN)

/* The compensated sum: accumulators are pairs (s, e), their parts kept
 * apart. */
static tsr_r_x tsr_r_sum(tsr_r_src *src, ulong R)
{
    tsr_r_x ss[64], es[64];
    int level[64], depth = 0;
    for (ulong c0 = 0; c0 < R; c0 += TSR__RED_CHUNK) {
        ulong n = min((ulong)TSR__RED_CHUNK, R - c0);
        tsr_r_x s[TSR__RED_LANES], e[TSR__RED_LANES];
        for (int j = 0; j < TSR__RED_LANES; j++)
            s[j] = e[j] = 0;
        ulong i = 0;
        for (; i + TSR__RED_LANES <= n; i += TSR__RED_LANES) {
            tsr_r_x xs[TSR__RED_LANES];
            tsr_r_group(src, xs);
#pragma unroll
            for (int j = 0; j < TSR__RED_LANES; j++)
                TSR__RED_TWO_SUM_ADD(s[j], e[j], xs[j], tsr_r_x);
        }
        for (int j = 0; i + j < n; j++) {
            tsr_r_x x = tsr_r_next(src);
            TSR__RED_TWO_SUM_ADD(s[j], e[j], x, tsr_r_x);
        }
        for (int w = TSR__RED_LANES / 2; w >= 1; w /= 2)
            for (int j = 0; j < w; j++)
                TSR__RED_TWO_SUM_MERGE(s[j], e[j], s[j + w], e[j + w], tsr_r_x);
        tsr_r_x vs = s[0], ve = e[0];
        int lv = 0;
        for (; depth > 0 && level[depth - 1] == lv; depth--, lv++) {
            tsr_r_x ls = ss[depth - 1], le = es[depth - 1];
            TSR__RED_TWO_SUM_MERGE(ls, le, vs, ve, tsr_r_x);
            vs = ls;
            ve = le;
        }
        ss[depth] = vs;
        es[depth] = ve;
        level[depth++] = lv;
    }
    if (depth == 0)
        return 0;
    tsr_r_x as = ss[depth - 1], ae = es[depth - 1];
    for (int k = depth - 2; k >= 0; k--) {
        tsr_r_x ls = ss[k], le = es[k];
        TSR__RED_TWO_SUM_MERGE(ls, le, as, ae, tsr_r_x);
        as = ls;
        ae = le;
    }
    return TSR__RED_TWO_SUM_VALUE(as, ae);
}
#endif

#if TSR_R_CPLX
#define TSR_R_SUM(a, b) TSR_R_CMAKE((a).re + (b).re, (a).im + (b).im)
TSR_R_PLAIN(tsr_r_sum, TSR_R_CMAKE(0, 0), TSR_R_SUM)
TSR_R_PLAIN(tsr_r_prod, TSR_R_CMAKE(1, 0), TSR_R_CMUL)
#endif

/* mean: the sum rounded to the dtype (as stored), divided by the count
 * (an integer one, which the planner never sends, is the sum as stored) */
static tsr_r_x tsr_r_mean(tsr_r_x v, long count)
{
    return tsr_r_div(tsr_r_in(tsr_r_out(tsr_r_quiet(v))), count);
}

static void tsr_r_one(uint op, tsr_r_src *src, ulong R, uint d0, __global uchar *p0, long e0,
                      __global uchar *p2, long e2);

__kernel void tsr_kernel(__global uchar *base0, ulong off0, __global uchar *base1, ulong off1,
                         __global uchar *base2, ulong off2, __global uchar *base3, ulong off3,
                         ulong2 scalar, ulong2 alpha, __global int *status, ulong4 size,
                         uint4 block, long4 st0, long4 st1, long4 st2, long4 st3,
                         __global const long *geom, uint4 kind)
{
    (void)base3, (void)off3, (void)scalar, (void)alpha, (void)status;
    (void)st0, (void)st1, (void)st2, (void)st3;
    ulong o0 = get_global_id(0) * block.x;
    if (o0 >= size.x)
        return;
    ulong no = min((ulong)block.x, size.x - o0), R = size.y;
    int nk = (int)block.y, nr = (int)block.w, nd = nk + nr;
    uint ns = kind.w;
    __global uchar *p0 = base0 + off0, *p2 = base2 + off2;
    __global const uchar *p1 = base1 + off1;
    for (ulong o = o0; o < o0 + no; o++) {
        long e0 = 0, e1 = 0, e2 = 0;
        ulong rest = o;
        for (int d = nk - 1; d >= 0; d--) {
            ulong n = (ulong)geom[d];
            long at = (long)(rest % n);
            rest /= n;
            e0 += at * geom[nd + d];
            e1 += at * geom[2 * nd + d];
            if (ns > 2)
                e2 += at * geom[3 * nd + d];
        }
        tsr_r_src src;
        src.p = p1;
        src.geom = geom;
        src.d = kind.z & 0xffu;
        src.nk = nk;
        src.nr = nr;
        src.nd = nd;
        src.skip = 0;
        src.nonnan = 0;
        src.base = src.off = e1;
        src.pos = src.row = 0;
        src.n0 = nr > 0 ? (ulong)geom[nd - 1] : 1;
        src.s0 = nr > 0 ? geom[2 * nd + nd - 1] : 0;
        tsr_r_one(kind.x, &src, R, kind.y, p0, e0, p2, e2);
    }
}
