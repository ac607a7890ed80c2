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
 * order r from a cursor over the reduced dimensions.
 *
 * Where a few outputs reduce many elements each, one launch runs in two
 * phases (block.z, core/kernel.h): in phase 1 each work-item reduces one
 * node of an output's chunk tree, size.w whole chunks starting at a
 * multiple of size.w (the last node may be shorter), and leaves its
 * accumulator in a slot of the scratch buffer that comes as `status`; in
 * phase 2 one work-item per output takes its size.z slots through the
 * same binary counter, by node. A node of the tree is what its part of
 * the one-pass walk makes of it, and the counter over nodes merges them
 * as the counter over chunks does, so the bits are the one-pass bits. */

/* The accumulator one node leaves for phase 2. */
typedef struct tsr_r_acc {
    tsr_r_x s, e; /* e: the compensated sums' error, else unused */
    long at;      /* argmax and co: the position of the best, counted from 0 */
    long n;       /* the elements counted (nansum's non-NaN ones) */
} tsr_r_acc;

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
    int given;     /* the sum is `value`, the column walk's */
    tsr_r_x value;
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
    if (src->skip) { /* only nanmean reads the count */
#if TSR_R_REAL
        if (x != x)
            return 0;
#endif
        src->nonnan++;
    }
    return x;
}

/* The cursor past the end of its row: the next one's start. */
static void tsr_r_next_row(tsr_r_src *src)
{
    src->pos = 0;
    src->row++;
    src->off = src->base + tsr_r_row_offset(src, src->row);
}

/* The cursor at element r of the output's reduced elements. */
static void tsr_r_seek(tsr_r_src *src, ulong r)
{
    src->row = r / src->n0;
    src->pos = r % src->n0;
    src->off = src->base + tsr_r_row_offset(src, src->row) + (long)src->pos * src->s0;
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
    if (src->d == TSR_R_COMMON) {
#pragma unroll
        for (int j = 0; j < TSR__RED_LANES; j++)
            xs[j] = tsr_r_counted(src, tsr_r_load_same(src->p, off + j * s0));
    } else {
#pragma unroll
        for (int j = 0; j < TSR__RED_LANES; j++)
            xs[j] = tsr_r_counted(src, tsr_r_load(src->d, src->p, off + j * s0));
    }
    src->pos += TSR__RED_LANES;
    if (src->pos == src->n0)
        tsr_r_next_row(src);
    else
        src->off = off + TSR__RED_LANES * s0;
}

/* Rows of float32 and float64 (tsr_r_v: 16 of the math type, tsr_r_vi
 * the integers of its width) are read in vectors where the cursor's next
 * n elements lie along its row, one after another, as stored: component
 * j of the k-th vector is element r = 16 k + j, lane r % TSR__RED_LANES,
 * so each lane takes the same elements in the same order as one at a
 * time, and PoCL's compiler makes SIMD code of the vector operations. */
static int tsr_r_flat(const tsr_r_src *src, ulong n)
{
    return src->d == TSR_R_COMMON && !src->skip && src->s0 == 1 && src->pos + n <= src->n0;
}

static __global const tsr_r_x *tsr_r_here(const tsr_r_src *src)
{
    return (__global const tsr_r_x *)src->p + src->off;
}

/* The cursor n elements on, along its row. */
static void tsr_r_skip(tsr_r_src *src, ulong n)
{
    src->pos += n;
    if (src->pos == src->n0)
        tsr_r_next_row(src);
    else
        src->off += (long)n;
}

#if TSR_R_VEC
/* The whole groups of lanes of a chunk's n elements into lane[], i past
 * them, where they can be read in vectors. */
#define TSR_R_VEC_LANES(lane, n, i, OP)                                 \
    do {                                                                \
        if (!tsr_r_flat(src, n))                                        \
            break;                                                      \
        __global const tsr_r_x *q = tsr_r_here(src);                    \
        tsr_r_v acc = vload16(0, lane);                                 \
        for (; i + TSR__RED_LANES <= n; i += TSR__RED_LANES) {          \
            tsr_r_v x = vload16(i / TSR__RED_LANES, q);                 \
            acc = OP(acc, x);                                           \
        }                                                               \
        vstore16(acc, 0, lane);                                         \
        tsr_r_skip(src, i);                                             \
    } while (0)
#else
#define TSR_R_VEC_LANES(lane, n, i, OP) \
    do {                                \
    } while (0)
#endif

/* The chunk tree's binary counter on plain accumulators (stack, level,
 * depth): value v pushed, and the stack folded from the top. */
#define TSR_R_PUSH(v, OP)                                          \
    do {                                                           \
        int lv = 0;                                                \
        for (; depth > 0 && level[depth - 1] == lv; depth--, lv++) \
            v = OP(stack[depth - 1], v);                           \
        stack[depth] = v;                                          \
        level[depth++] = lv;                                       \
    } while (0)
#define TSR_R_FOLD(acc, OP)                  \
    do {                                     \
        acc = stack[depth - 1];              \
        for (int k = depth - 2; k >= 0; k--) \
            acc = OP(stack[k], acc);         \
    } while (0)

/* Steps 2 to 4 of the order for a combine OP on plain accumulators. */
#define TSR_R_PLAIN(NAME, IDENTITY, OP)                                              \
    static tsr_r_x NAME(tsr_r_src *src, ulong R)                                     \
    {                                                                                \
        tsr_r_x stack[64];                                                           \
        int level[64], depth = 0;                                                    \
        for (ulong c0 = 0; c0 < R; c0 += TSR__RED_CHUNK) {                           \
            ulong n = min((ulong)TSR__RED_CHUNK, R - c0);                            \
            tsr_r_x lane[TSR__RED_LANES];                                            \
            for (int j = 0; j < TSR__RED_LANES; j++)                                 \
                lane[j] = IDENTITY;                                                  \
            ulong i = 0;                                                             \
            TSR_R_VEC_LANES(lane, n, i, OP);                                         \
            for (; i + TSR__RED_LANES <= n; i += TSR__RED_LANES) {                   \
                tsr_r_x xs[TSR__RED_LANES];                                          \
                tsr_r_group(src, xs);                                                \
                _Pragma("unroll") for (int j = 0; j < TSR__RED_LANES; j++) lane[j] = \
                    OP(lane[j], xs[j]);                                              \
            }                                                                        \
            for (int j = 0; i + j < n; j++) {                                        \
                tsr_r_x x = tsr_r_next(src);                                         \
                lane[j] = OP(lane[j], x);                                            \
            }                                                                        \
            TSR__RED_FOLD_LANES(lane, OP);                                           \
            tsr_r_x v = lane[0];                                                     \
            TSR_R_PUSH(v, OP);                                                       \
        }                                                                            \
        if (depth == 0)                                                              \
            return IDENTITY;                                                         \
        tsr_r_x acc;                                                                 \
        TSR_R_FOLD(acc, OP);                                                         \
        return acc;                                                                  \
    }                                                                                \
    static void NAME##_node(tsr_r_src *src, ulong R, __global tsr_r_acc *slot)       \
    {                                                                                \
        slot->s = NAME(src, R);                                                      \
        slot->n = src->nonnan;                                                       \
    }                                                                                \
    static tsr_r_x NAME##_nodes(__global const tsr_r_acc *slots, ulong G)            \
    {                                                                                \
        tsr_r_x stack[64];                                                           \
        int level[64], depth = 0;                                                    \
        for (ulong i = 0; i < G; i++) {                                              \
            tsr_r_x v = slots[i].s;                                                  \
            TSR_R_PUSH(v, OP);                                                       \
        }                                                                            \
        tsr_r_x acc;                                                                 \
        TSR_R_FOLD(acc, OP);                                                         \
        return acc;                                                                  \
    }

#if TSR_R_VEC
/* argmax and co over the n (a multiple of 16, at most TSR_R_SCAN_SPAN)
 * elements at the cursor, read in vectors: each component keeps the
 * first of its best and where (CMP makes a value win), in two chains, the
 * even vectors and the odd ones (a last odd one out to the even chain),
 * so that two comparisons are under way at once; then the chains meet
 * (the better, or of equals the earlier, wins: the first of the best of
 * the component), the components meet, the earlier of equals winning,
 * and the first of the best of them all goes against (b, at) found
 * before r0. */
#define TSR_R_SCAN_SPAN (1ul << 24)
#define TSR_R_SCAN_TAKE(c, bv, CMP) (((bv) == (bv)) & (((c) != (c)) | ((c)CMP(bv))))
#define TSR_R_SCAN_VEC(b, at, r0, n, BETTER, CMP)                                        \
    do {                                                                                 \
        __global const tsr_r_x *q = tsr_r_here(src);                                     \
        ulong nv = n / 16, k = 2;                                                        \
        tsr_r_vi pos = (tsr_r_vi)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); \
        tsr_r_vi pw = pos + 16, bp = pos, bq = pw;                                       \
        tsr_r_v bv = vload16(0, q), bw = bv;                                             \
        if (nv > 1)                                                                      \
            bw = vload16(1, q);                                                          \
        else                                                                             \
            bq = bp;                                                                     \
        for (; k + 1 < nv; k += 2) {                                                     \
            tsr_r_v c = vload16(k, q), d = vload16(k + 1, q);                            \
            pos += 32;                                                                   \
            pw += 32;                                                                    \
            tsr_r_vi take = TSR_R_SCAN_TAKE(c, bv, CMP);                                 \
            tsr_r_vi tw = TSR_R_SCAN_TAKE(d, bw, CMP);                                   \
            bv = take ? c : bv;                                                          \
            bp = take ? pos : bp;                                                        \
            bw = tw ? d : bw;                                                            \
            bq = tw ? pw : bq;                                                           \
        }                                                                                \
        if (k < nv) {                                                                    \
            tsr_r_v c = vload16(k, q);                                                   \
            pos += 32;                                                                   \
            tsr_r_vi take = TSR_R_SCAN_TAKE(c, bv, CMP);                                 \
            bv = take ? c : bv;                                                          \
            bp = take ? pos : bp;                                                        \
        }                                                                                \
        tsr_r_vi same = (bw == bv) | ((bw != bw) & (bv != bv));                          \
        tsr_r_vi odd = TSR_R_SCAN_TAKE(bw, bv, CMP) | (same & (bq < bp));                \
        bv = odd ? bw : bv;                                                              \
        bp = odd ? bq : bp;                                                              \
        tsr_r_x lb[16];                                                                  \
        long lp[16];                                                                     \
        vstore16(bv, 0, lb);                                                             \
        vstore16(convert_long16(bp), 0, lp);                                             \
        tsr_r_x vb = lb[0];                                                              \
        long vp = lp[0];                                                                 \
        for (int j = 1; j < 16; j++)                                                     \
            if (BETTER(lb[j], vb) || (!BETTER(vb, lb[j]) && lp[j] < vp)) {               \
                vb = lb[j];                                                              \
                vp = lp[j];                                                              \
            }                                                                            \
        if (BETTER(vb, b)) {                                                             \
            b = vb;                                                                      \
            at = (long)(r0) + vp;                                                        \
        }                                                                                \
        tsr_r_skip(src, n);                                                              \
    } while (0)
#else
#define TSR_R_SCAN_SPAN 0ul
#define TSR_R_SCAN_VEC(b, at, r0, n, BETTER, CMP) \
    do {                                          \
    } while (0)
#endif

/* argmax and co: the first of the best. */
#define TSR_R_SCAN(NAME, BETTER, CMP)                                                    \
    static tsr_r_x NAME(tsr_r_src *src, ulong R, long *at)                               \
    {                                                                                    \
        *at = 0;                                                                         \
        if (R == 0)                                                                      \
            return 0;                                                                    \
        tsr_r_x b = tsr_r_next(src);                                                     \
        long best_at = 0;                                                                \
        for (ulong r = 1; r < R;) {                                                      \
            ulong row = min(R - r, src->n0 - src->pos);                                  \
            ulong n = min(row, TSR_R_SCAN_SPAN) & ~15ul;                                 \
            if (n > 0 && tsr_r_flat(src, n)) {                                           \
                TSR_R_SCAN_VEC(b, best_at, r, n, BETTER, CMP);                           \
                r += n;                                                                  \
                continue;                                                                \
            }                                                                            \
            for (ulong k = 0; k < row; k++, r++) { /* to the row's end */               \
                tsr_r_x x = tsr_r_next(src);                                             \
                if (BETTER(x, b)) {                                                      \
                    b = x;                                                               \
                    best_at = (long)r;                                                   \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        *at = best_at;                                                                   \
        return b;                                                                        \
    }                                                                                    \
    static void NAME##_node(tsr_r_src *src, ulong R, ulong r0, __global tsr_r_acc *slot) \
    {                                                                                    \
        long at;                                                                         \
        slot->s = NAME(src, R, &at);                                                     \
        slot->at = (long)r0 + at;                                                        \
    }                                                                                    \
    static tsr_r_x NAME##_nodes(__global const tsr_r_acc *slots, ulong G, long *at)      \
    {                                                                                    \
        tsr_r_x b = slots[0].s;                                                          \
        *at = slots[0].at;                                                               \
        for (ulong i = 1; i < G; i++) {                                                  \
            tsr_r_x x = slots[i].s;                                                      \
            if (BETTER(x, b)) {                                                          \
                b = x;                                                                   \
                *at = slots[i].at;                                                       \
            }                                                                            \
        }                                                                                \
        return b;                                                                        \
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
TSR_R_SCAN(tsr_r_scan_max, TSR_R_BETTER_MAX, >)
TSR_R_SCAN(tsr_r_scan_min, TSR_R_BETTER_MIN, <)
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
TSR_R_SCAN(tsr_r_scan_max, TSR_R_BETTER_MAX, >)
TSR_R_SCAN(tsr_r_scan_min, TSR_R_BETTER_MIN, <)

/* The compensated sum: accumulators are pairs (s, e), their parts kept
 * apart. The binary counter over chunk values (tsr_r_sum_pair) or over
 * nodes (tsr_r_sum_nodes), one value (vs, ve) pushed at a time. */
#define TSR_R_SUM_PUSH(vs0, ve0)                                     \
    do {                                                             \
        tsr_r_x vs = (vs0), ve = (ve0);                              \
        int lv = 0;                                                  \
        for (; depth > 0 && level[depth - 1] == lv; depth--, lv++) { \
            tsr_r_x ls = ss[depth - 1], le = es[depth - 1];          \
            TSR__RED_TWO_SUM_MERGE(ls, le, vs, ve, tsr_r_x);         \
            vs = ls;                                                 \
            ve = le;                                                 \
        }                                                            \
        ss[depth] = vs;                                              \
        es[depth] = ve;                                              \
        level[depth++] = lv;                                         \
    } while (0)
/* ... and the stack folded from the top into (*s, *e). */
#define TSR_R_SUM_FOLD(s_out, e_out)                         \
    do {                                                     \
        tsr_r_x as = ss[depth - 1], ae = es[depth - 1];      \
        for (int k = depth - 2; k >= 0; k--) {               \
            tsr_r_x ls = ss[k], le = es[k];                  \
            TSR__RED_TWO_SUM_MERGE(ls, le, as, ae, tsr_r_x); \
            as = ls;                                         \
            ae = le;                                         \
        }                                                    \
        *(s_out) = as;                                       \
        *(e_out) = ae;                                       \
    } while (0)

static void tsr_r_sum_pair(tsr_r_src *src, ulong R, tsr_r_x *s_out, tsr_r_x *e_out)
{
    tsr_r_x ss[64], es[64];
    int level[64], depth = 0;
    for (ulong c0 = 0; c0 < R; c0 += TSR__RED_CHUNK) {
        ulong n = min((ulong)TSR__RED_CHUNK, R - c0);
        tsr_r_x s[TSR__RED_LANES], e[TSR__RED_LANES];
        for (int j = 0; j < TSR__RED_LANES; j++)
            s[j] = e[j] = 0;
        ulong i = 0;
#if TSR_R_VEC
        if (tsr_r_flat(src, n)) {
            __global const tsr_r_x *q = tsr_r_here(src);
            tsr_r_v vs = 0, ve = 0;
            for (; i + 2 * TSR__RED_LANES <= n; i += 2 * TSR__RED_LANES) {
                tsr_r_v x = vload16(i / TSR__RED_LANES, q) + vload16(i / TSR__RED_LANES + 1, q);
                TSR__RED_TWO_SUM_ADD(vs, ve, x, tsr_r_v);
            }
            vstore16(vs, 0, s);
            vstore16(ve, 0, e);
            tsr_r_skip(src, i);
        }
#endif
        /* a lane's elements two at a time (kernels/reduce_order.h, step 2) */
        for (; i + 2 * TSR__RED_LANES <= n; i += 2 * TSR__RED_LANES) {
            tsr_r_x xs[TSR__RED_LANES], ys[TSR__RED_LANES];
            tsr_r_group(src, xs);
            tsr_r_group(src, ys);
#pragma unroll
            for (int j = 0; j < TSR__RED_LANES; j++)
                TSR__RED_TWO_SUM_ADD(s[j], e[j], xs[j] + ys[j], tsr_r_x);
        }
        if (i < n) {
            tsr_r_x xs[TSR__RED_LANES];
            int left = (int)(n - i);
            for (int j = 0; j < TSR__RED_LANES && j < left; j++)
                xs[j] = tsr_r_next(src);
            for (int j = 0; j + TSR__RED_LANES < left; j++)
                xs[j] = xs[j] + tsr_r_next(src);
            for (int j = 0; j < TSR__RED_LANES && j < left; j++)
                TSR__RED_TWO_SUM_ADD(s[j], e[j], xs[j], tsr_r_x);
        }
        for (int w = TSR__RED_LANES / 2; w >= 1; w /= 2)
            for (int j = 0; j < w; j++)
                TSR__RED_TWO_SUM_MERGE(s[j], e[j], s[j + w], e[j + w], tsr_r_x);
        TSR_R_SUM_PUSH(s[0], e[0]);
    }
    *s_out = *e_out = 0;
    if (depth > 0)
        TSR_R_SUM_FOLD(s_out, e_out);
}

static tsr_r_x tsr_r_sum(tsr_r_src *src, ulong R)
{
    if (src->given)
        return src->value;
    tsr_r_x s, e;
    tsr_r_sum_pair(src, R, &s, &e);
    return TSR__RED_TWO_SUM_VALUE(s, e);
}

static void tsr_r_sum_node(tsr_r_src *src, ulong R, __global tsr_r_acc *slot)
{
    tsr_r_x s, e;
    tsr_r_sum_pair(src, R, &s, &e);
    slot->s = s;
    slot->e = e;
    slot->n = src->nonnan;
}

#if TSR_R_VEC
/* The cursor `by` elements on, across rows where it must. */
static void tsr_r_advance(tsr_r_src *src, ulong by)
{
    src->pos += by;
    if (src->pos < src->n0) {
        src->off += (long)by * src->s0;
        return;
    }
    src->row += src->pos / src->n0;
    src->pos %= src->n0;
    src->off = src->base + tsr_r_row_offset(src, src->row) + (long)src->pos * src->s0;
}

/* Asks for the n values at q ahead of their reading: each cache line
 * where the compiler offers a prefetch of its own (PoCL on x86-64),
 * else OpenCL's prefetch. */
#if defined(__x86_64__)
#define TSR_R_PREFETCH(q, n)                                        \
    do {                                                            \
        for (int k_ = 0; k_ < (n); k_ += 64 / (int)sizeof(tsr_r_x)) \
            __builtin_prefetch((q) + k_);                           \
    } while (0)
#else
#define TSR_R_PREFETCH(q, n) prefetch((q), (size_t)(n))
#endif

/* The column walk: the sums of nv * 16 (at most TSR__RED_COL_WIDE)
 * neighbouring outputs whose elements lie side by side (output o + c
 * reads element c past each of output o's, which the cursor walks), each
 * in the one-pass order, elementwise on nv vectors of columns. A chunk's
 * lanes are summed one after another, lane j over the walk's rows r0 + j,
 * r0 + j + 16, ..., each row read once, nv * 16 values side by side (a
 * run long enough that the memory system streams it; one output at a
 * time would read one value of each row), the row TSR_R_COL_AHEAD steps
 * further along the lane asked for a cache line with each vector summed
 * (rows LANES apart are a stride the hardware's prefetchers do not
 * follow, each on pages of its own). Up to TSR_R_COL_GROUP rows of the
 * lane go into each vector of accumulators as it is loaded, one after
 * the other, so that the accumulators (private memory, which PoCL keeps
 * on the stack) are read and written once for them. The lanes come in bit-reversed
 * order (0, 8, 4, 12, ...), in which the fold of step 3 is a perfect tree of 16 leaves, the
 * earlier on the left: what a binary counter makes of them. A chunk's
 * value is so a level-4 node of that counter, and the same counter, one
 * stack for lanes and chunks, builds the chunk tree above it: each
 * output gets the one-pass bits. The stack holds tsr_r_col_depth(chunks)
 * entries of nv vectors (the kernel picks nv so they fit in
 * TSR_R_COL_ROOM). Results into values[0 .. nv * 16). */
#define TSR_R_COL_VECS (TSR__RED_COL_WIDE / 16)
#define TSR_R_COL_AHEAD 4 /* rows of the lane */
#define TSR_R_COL_GROUP 4 /* rows of the lane added into an accumulator as it is loaded */
#define TSR_R_COL_ROOM (8 * TSR_R_COL_VECS)
static int tsr_r_col_depth(ulong chunks)
{
    int depth = 2; /* the value being made, and one more than the levels */
    for (int w = TSR__RED_LANES; w > 1; w /= 2)
        depth++;
    for (; chunks > 1; chunks = (chunks + 1) / 2)
        depth++;
    return depth;
}

static void tsr_r_sum_cols(tsr_r_src *src, ulong R, int nv, tsr_r_x *values)
{
    tsr_r_v ss[TSR_R_COL_ROOM], es[TSR_R_COL_ROOM];
    int level[TSR_R_COL_ROOM / (TSR__RED_COL_OUTPUTS / 16)], depth = 0;
    for (ulong c0 = 0; c0 < R; c0 += TSR__RED_CHUNK) {
        ulong n = min((ulong)TSR__RED_CHUNK, R - c0);
        for (int p = 0; p < TSR__RED_LANES; p++) {
            int j = 0; /* p's bits reversed */
            for (int b = 1, m = TSR__RED_LANES / 2; m > 0; b *= 2, m /= 2)
                if (p & b)
                    j |= m;
            tsr_r_v *s = ss + depth * nv, *e = es + depth * nv;
            for (int g = 0; g < nv; g++)
                s[g] = e[g] = 0;
            if ((ulong)j < n)
                tsr_r_seek(src, c0 + (ulong)j);
            /* a cursor TSR_R_COL_AHEAD rows of the lane further on */
            tsr_r_src ahead = *src;
            ulong ia = (ulong)j + TSR__RED_LANES * TSR_R_COL_AHEAD;
            if (ia < n)
                tsr_r_advance(&ahead, TSR__RED_LANES * TSR_R_COL_AHEAD);
            for (ulong i = (ulong)j; i < n;) {
                /* up to TSR_R_COL_GROUP rows of the lane at once */
                __global const tsr_r_x *q[TSR_R_COL_GROUP], *qa[TSR_R_COL_GROUP];
                int m = 0;
                for (; m < TSR_R_COL_GROUP && i < n; m++) {
                    q[m] = tsr_r_here(src);
                    qa[m] = ia < n ? tsr_r_here(&ahead) : q[m];
                    if (i + TSR__RED_LANES < n)
                        tsr_r_advance(src, TSR__RED_LANES);
                    if (ia + TSR__RED_LANES < n)
                        tsr_r_advance(&ahead, TSR__RED_LANES);
                    i += TSR__RED_LANES;
                    ia += TSR__RED_LANES;
                }
                /* the lane's rows two at a time (kernels/reduce_order.h,
                 * step 2): a group starts at an even row of the lane */
                for (int g = 0; g < nv; g++) {
                    tsr_r_v sg = s[g], eg = e[g];
                    for (int r = 0; r < m; r += 2) {
                        TSR_R_PREFETCH(qa[r] + g * 16, 16);
                        tsr_r_v x = vload16(g, q[r]);
                        if (r + 1 < m) {
                            TSR_R_PREFETCH(qa[r + 1] + g * 16, 16);
                            x = x + vload16(g, q[r + 1]);
                        }
                        TSR__RED_TWO_SUM_ADD(sg, eg, x, tsr_r_v);
                    }
                    s[g] = sg;
                    e[g] = eg;
                }
            }
            /* pushed: merged into the entries below of its level */
            int lv = 0;
            for (; depth > 0 && level[depth - 1] == lv; depth--, lv++) {
                tsr_r_v *ls = ss + (depth - 1) * nv, *le = es + (depth - 1) * nv;
                tsr_r_v *rs = ss + depth * nv, *re = es + depth * nv;
                for (int g = 0; g < nv; g++)
                    TSR__RED_TWO_SUM_MERGE(ls[g], le[g], rs[g], re[g], tsr_r_v);
            }
            level[depth++] = lv;
        }
    }
    for (int g = 0; g < nv; g++) {
        tsr_r_v s = 0, e = 0;
        if (depth > 0) {
            s = ss[(depth - 1) * nv + g];
            e = es[(depth - 1) * nv + g];
        }
        for (int k = depth - 2; k >= 0; k--) {
            tsr_r_v l = ss[k * nv + g], m = es[k * nv + g];
            TSR__RED_TWO_SUM_MERGE(l, m, s, e, tsr_r_v);
            s = l;
            e = m;
        }
        vstore16(TSR__RED_TWO_SUM_VALUE(s, e), g, values);
    }
}
#endif

static tsr_r_x tsr_r_sum_nodes(__global const tsr_r_acc *slots, ulong G)
{
    tsr_r_x ss[64], es[64], s, e;
    int level[64], depth = 0;
    for (ulong i = 0; i < G; i++)
        TSR_R_SUM_PUSH(slots[i].s, slots[i].e);
    TSR_R_SUM_FOLD(&s, &e);
    return TSR__RED_TWO_SUM_VALUE(s, e);
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

/* nanmean's count over the nodes */
static long tsr_r_count_nodes(__global const tsr_r_acc *slots, ulong G)
{
    long n = 0;
    for (ulong i = 0; i < G; i++)
        n += slots[i].n;
    return n;
}

/* One output's reduction (phase 0), one node of it (phase 1: R elements
 * from r0 into *slots) or its nodes' merge (phase 2: slots[0 .. G)). */
typedef struct tsr_r_task {
    uint phase;
    ulong R, r0, G;
    __global tsr_r_acc *slots;
} tsr_r_task;

/* Whether op's value is a plain sum of its elements (sum, mean): the
 * column walk may compute it. */
static int tsr_r_cols_op(uint op);
static void tsr_r_one(uint op, tsr_r_src *src, const tsr_r_task *task, uint d0, __global uchar *p0,
                      long e0, __global uchar *p2, long e2);

__kernel void tsr_kernel(__global uchar *base0, ulong off0, __global uchar *base1, ulong off1,
                         __global uchar *base2, ulong off2, __global uchar *base3, ulong off3,
                         ulong2 scalar, ulong2 alpha, __global int *status, ulong4 size,
                         uint4 block, long4 st0, long4 st1, long4 st2, long4 st3,
                         __global const long *geom, uint4 kind)
{
    (void)base3, (void)off3, (void)scalar, (void)alpha;
    (void)st0, (void)st1, (void)st2, (void)st3;
    tsr_r_task task = {block.z, size.y, 0, 1, 0};
    ulong item = get_global_id(0), o0, no = 1, node = 0;
    if (task.phase == 0) {
        o0 = item * block.x;
        if (o0 >= size.x)
            return;
        no = min((ulong)block.x, size.x - o0);
    } else {
        task.G = size.z;
        o0 = task.phase == 1 ? item / task.G : item;
        node = task.phase == 1 ? item % task.G : 0;
        if (o0 >= size.x)
            return;
        /* the node's elements: size.w chunks from its first */
        ulong span = size.w * TSR__RED_CHUNK;
        task.r0 = node * span;
        if (task.phase == 1)
            task.R = min(span, size.y - task.r0);
        task.slots = (__global tsr_r_acc *)status + o0 * task.G + node;
    }
    int nk = (int)block.y, nr = (int)block.w, nd = nk + nr;
    uint ns = kind.w;
    __global uchar *p0 = base0 + off0, *p2 = base2 + off2;
    __global const uchar *p1 = base1 + off1;
#if TSR_R_VEC
    /* the column walk's sums of outputs col .. col_end - 1 */
    tsr_r_x cols[TSR__RED_COL_WIDE];
    ulong col = 0, col_end = 0;
    int by_cols = task.phase == 0 && tsr_r_cols_op(kind.x) && (kind.z & 0xffu) == TSR_R_COMMON &&
                  nk > 0 && nr > 0 && geom[2 * nd + nk - 1] == 1 && geom[2 * nd + nd - 1] != 1;
    int col_depth = tsr_r_col_depth((size.y + TSR__RED_CHUNK - 1) / TSR__RED_CHUNK);
#endif
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
        src.given = 0;
        src.n0 = nr > 0 ? (ulong)geom[nd - 1] : 1;
        src.s0 = nr > 0 ? geom[2 * nd + nd - 1] : 0;
        if (task.r0)
            tsr_r_seek(&src, task.r0);
#if TSR_R_VEC
        /* outputs o .. o + 16 nv - 1 along the innermost kept dimension,
         * all this work-item's: their sums at once, nv as large as they
         * and the walk's stack allow */
        if (by_cols && o >= col_end) {
            ulong inner = (ulong)geom[nk - 1];
            ulong room = min(o0 + no - o, inner - o % inner);
            int nv = TSR_R_COL_VECS;
            while (nv > TSR__RED_COL_OUTPUTS / 16 &&
                   ((ulong)nv * 16 > room || col_depth * nv > TSR_R_COL_ROOM))
                nv /= 2;
            if ((ulong)nv * 16 <= room && col_depth * nv <= TSR_R_COL_ROOM) {
                tsr_r_sum_cols(&src, task.R, nv, cols);
                col = o;
                col_end = o + (ulong)nv * 16;
            }
        }
        if (o < col_end) {
            src.given = 1;
            src.value = cols[o - col];
        }
#endif
        tsr_r_one(kind.x, &src, &task, kind.y, p0, e0, p2, e2);
    }
}
