/* The cpu reduction loops (cpu_reduce.h), in kernels/reduce_order.h's
 * order.
 *
 * Elements are read a chunk at a time: when the input's dtype is the math
 * type as stored (float32, float64, int64, complex64, complex128 reduced
 * in their own dtype) and the chunk lies in one contiguous run, the lanes
 * run over the input itself; otherwise the chunk is gathered into a
 * buffer, converted to the common dtype (tsr__kernel_convert, the
 * conversion of every kernel) and widened to the math type. Each family
 * of math types (64-bit integers, float, double, complex64, complex128)
 * instantiates the combines it needs from one set of macros. */
#include "kernels/cpu_reduce.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/reduce_order.h"
#include "kernels/scalar_ops.h"

#define LANES TSR__RED_LANES
#define CHUNK TSR__RED_CHUNK
#define COLS TSR__RED_COLUMNS
#define ELEMENT_MAX 16
#define STACK_MAX 64  /* levels of the chunk tree: 2^64 chunks */
#define COL_LEVELS 48 /* the column walk's: 2^48 chunks */

/* One math value, aligned for any math type. */
typedef struct mval {
    _Alignas(16) unsigned char b[ELEMENT_MAX];
} mval;

typedef struct tsr__reduce_ops {
    size_t xsize; /* an element's math value */
    size_t msize; /* an accumulator */
    void (*identity)(void *m);
    void (*chunk)(const void *x, int64_t n, void *result); /* steps 2 and 3 */
    void (*combine)(void *a, const void *b);               /* a = a (+) b */
    void (*col_init)(void *lanes, int ncols);
    void (*col_add)(void *lanes, int lane, const void *x, int ncols);
    void (*col_fold)(void *lanes, int ncols);
    void (*final)(const void *acc, void *x);         /* an accumulator's value */
    bool (*better)(const void *v, const void *best); /* arg: v takes best's place */
    /* the family's */
    void (*load)(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                 int64_t *nonnan);
    void (*store)(tsr_dtype common, const void *m, unsigned char *dst);
    void (*divide)(tsr_dtype common, void *m, int64_t count);
} tsr__reduce_ops;

/* ---- families: math type, load, store, divide ----------------------------- */

static void load_I(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    (void)skip_nan;
    uint64_t *d = dst;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *p = src + i * (int64_t)tsr_dtype_itemsize(common);
        uint16_t h;
        uint32_t s;
        switch (common) {
        case TSR_BOOL:
            d[i] = tsr__k_b8_in(p[0]);
            break;
        case TSR_UINT8:
            d[i] = tsr__k_u8_in(p[0]);
            break;
        case TSR_INT8:
            d[i] = tsr__k_i8_in(p[0]);
            break;
        case TSR_INT16:
            memcpy(&h, p, 2);
            d[i] = tsr__k_i16_in(h);
            break;
        case TSR_INT32:
            memcpy(&s, p, 4);
            d[i] = tsr__k_i32_in(s);
            break;
        default:
            memcpy(&d[i], p, 8);
            break;
        }
    }
    if (nonnan)
        *nonnan += n;
}

static void store_I(tsr_dtype common, const void *m, unsigned char *dst)
{
    uint64_t v = *(const uint64_t *)m;
    if (common == TSR_BOOL)
        dst[0] = tsr__k_b8_out(v);
    else
        memcpy(dst, &v, tsr_dtype_itemsize(common)); /* the low bytes (little endian) */
}

static void divide_I(tsr_dtype common, void *m, int64_t count)
{
    (void)common, (void)m, (void)count; /* mean never computes in integers */
}

/* nansum: NaN elements become 0 and leave the count (*nonnan). */
#define skip_nans(d, n, skip_nan, nonnan)        \
    do {                                         \
        int64_t ok_ = (n);                       \
        if (skip_nan)                            \
            for (int64_t i_ = 0; i_ < (n); i_++) \
                if ((d)[i_] != (d)[i_]) {        \
                    (d)[i_] = 0;                 \
                    ok_--;                       \
                }                                \
        if (nonnan)                              \
            *(nonnan) += ok_;                    \
    } while (0)

static void load_F(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    float *d = dst;
    if (common == TSR_FLOAT32) {
        memcpy(d, src, (size_t)n * sizeof(float));
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            d[i] = common == TSR_FLOAT16 ? tsr__k_f16_in(h) : tsr__k_bf16_in(h);
        }
    }
    skip_nans(d, n, skip_nan, nonnan);
}

static void store_F(tsr_dtype common, const void *m, unsigned char *dst)
{
    float v = *(const float *)m;
    uint16_t h;
    if (common == TSR_FLOAT32) {
        memcpy(dst, &v, 4);
        return;
    }
    h = common == TSR_FLOAT16 ? tsr__k_f16_out(v) : tsr__k_bf16_out(v);
    memcpy(dst, &h, 2);
}

/* The count as PyTorch's div_ sees it: converted to the dtype first. */
static float count_F(tsr_dtype common, int64_t count)
{
    float c = (float)count;
    if (common == TSR_FLOAT16)
        return tsr__k_f16_in(tsr__k_f16_out(c));
    if (common == TSR_BFLOAT16)
        return tsr__k_bf16_in(tsr__k_bf16_out(c));
    return c;
}

static void divide_F(tsr_dtype common, void *m, int64_t count)
{
    *(float *)m = *(float *)m / count_F(common, count);
}

static void load_D(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, bool skip_nan,
                   int64_t *nonnan)
{
    (void)common;
    double *d = dst;
    memcpy(d, src, (size_t)n * sizeof(double));
    skip_nans(d, n, skip_nan, nonnan);
}

static void store_D(tsr_dtype common, const void *m, unsigned char *dst)
{
    (void)common;
    memcpy(dst, m, sizeof(double));
}

static void divide_D(tsr_dtype common, void *m, int64_t count)
{
    (void)common;
    *(double *)m = *(double *)m / (double)count;
}

/* complex32 computes in complex64 (only the identity of an empty
 * reduction reaches it: PyTorch refuses complex32 before any element) */
static tsr__kc64 c32_value(const unsigned char *p)
{
    uint16_t re, im;
    memcpy(&re, p, 2);
    memcpy(&im, p + 2, 2);
    return tsr__k_c32_in(re, im);
}
static void c32_store(tsr__kc64 z, unsigned char *p)
{
    uint16_t re = tsr__k_f16_out(z.re), im = tsr__k_f16_out(z.im);
    memcpy(p, &re, 2);
    memcpy(p + 2, &im, 2);
}

#define COMPLEX_FAMILY(FAM, Z, T)                                                            \
    static void load_##FAM(tsr_dtype common, const unsigned char *src, int64_t n, void *dst, \
                           bool skip_nan, int64_t *nonnan)                                   \
    {                                                                                        \
        (void)skip_nan;                                                                      \
        if (common == TSR_COMPLEX32)                                                         \
            for (int64_t i = 0; i < n; i++)                                                  \
                ((tsr__kc64 *)dst)[i] = c32_value(src + 4 * i);                              \
        else                                                                                 \
            memcpy(dst, src, (size_t)n * sizeof(Z));                                         \
        if (nonnan)                                                                          \
            *nonnan += n;                                                                    \
    }                                                                                        \
    static void store_##FAM(tsr_dtype common, const void *m, unsigned char *dst)             \
    {                                                                                        \
        if (common == TSR_COMPLEX32)                                                         \
            c32_store(*(const tsr__kc64 *)m, dst);                                           \
        else                                                                                 \
            memcpy(dst, m, sizeof(Z));                                                       \
    }                                                                                        \
    static void divide_##FAM(tsr_dtype common, void *m, int64_t count)                       \
    {                                                                                        \
        (void)common;                                                                        \
        *(Z *)m = Z##_div(*(Z *)m, Z##_make((T)count, 0)); /* c10's complex quotient */      \
    }
COMPLEX_FAMILY(CF, tsr__kc64, float)
COMPLEX_FAMILY(CD, tsr__kc128, double)

/* ---- combines ------------------------------------------------------------- */

#define SUM_I(a, b) ((a) + (b)) /* uint64_t: wraps */
#define PROD_I(a, b) ((a) * (b))
#define MAX_I(a, b) ((int64_t)(b) > (int64_t)(a) ? (b) : (a))
#define MIN_I(a, b) ((int64_t)(b) < (int64_t)(a) ? (b) : (a))
#define ALL_I(a, b) ((a) & (b))
#define ANY_I(a, b) ((a) | (b))
#define BETTER_MAX_I(v, b) ((int64_t)(v) > (int64_t)(b))
#define BETTER_MIN_I(v, b) ((int64_t)(v) < (int64_t)(b))
#define PROD_R(a, b) ((a) * (b))
/* NaN propagates (the first one met); ties keep the earlier value. */
#define MAX_R(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) > (a) ? (b) : (a))
#define MIN_R(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) < (a) ? (b) : (a))
/* argmax: a NaN is the largest, the first of equals wins. */
#define BETTER_MAX_R(v, b) ((b) == (b) && ((v) != (v) || (v) > (b)))
#define BETTER_MIN_R(v, b) ((b) == (b) && ((v) != (v) || (v) < (b)))
#define SUM_CF(a, b) tsr__kc64_make((a).re + (b).re, (a).im + (b).im)
#define PROD_CF(a, b) tsr__kc64_mul(a, b)
#define SUM_CD(a, b) tsr__kc128_make((a).re + (b).re, (a).im + (b).im)
#define PROD_CD(a, b) tsr__kc128_mul(a, b)
#define NO_BETTER(v, b) ((void)(v), (void)(b), false)
#define SAME(a) (a)

/* Real sums are compensated (kernels/reduce_order.h): TSR__RED_TWO_SUM_ADD
 * and _MERGE on pairs of the real type. */
#define PAIR(T, sfx)                                                  \
    typedef struct pair_##sfx {                                       \
        T s, e;                                                       \
    } pair_##sfx;                                                     \
    static inline pair_##sfx add_p##sfx(pair_##sfx a, T x)            \
    {                                                                 \
        TSR__RED_TWO_SUM_ADD(a.s, a.e, x, T);                         \
        return a;                                                     \
    }                                                                 \
    static inline pair_##sfx merge_p##sfx(pair_##sfx a, pair_##sfx b) \
    {                                                                 \
        TSR__RED_TWO_SUM_MERGE(a.s, a.e, b.s, b.e, T);                \
        return a;                                                     \
    }                                                                 \
    static inline T final_p##sfx(pair_##sfx a)                        \
    {                                                                 \
        return a.s + a.e;                                             \
    }
PAIR(float, f)
PAIR(double, d)
#define PAIR_F0 ((pair_f){0.0f, 0.0f})
#define PAIR_D0 ((pair_d){0.0, 0.0})

/* An op in one family: X the math type of elements, A its accumulator;
 * ADD(A, X) takes an element in, MERGE(A, A) combines two accumulators
 * (the lane fold and the chunk tree), FINAL(A) gives the value. */
#define COMBINE(FAM, X, A, NAME, IDENTITY, ADD, MERGE, FINAL, BETTER)           \
    static void identity_##FAM##_##NAME(void *m)                                \
    {                                                                           \
        *(A *)m = IDENTITY;                                                     \
    }                                                                           \
    static void chunk_##FAM##_##NAME(const void *xv, int64_t n, void *result)   \
    {                                                                           \
        const X *x = xv;                                                        \
        A lane[LANES];                                                          \
        for (int j = 0; j < LANES; j++)                                         \
            lane[j] = IDENTITY;                                                 \
        int64_t i = 0;                                                          \
        for (; i + LANES <= n; i += LANES)                                      \
            for (int j = 0; j < LANES; j++)                                     \
                lane[j] = ADD(lane[j], x[i + j]);                               \
        for (int j = 0; i + j < n; j++)                                         \
            lane[j] = ADD(lane[j], x[i + j]);                                   \
        TSR__RED_FOLD_LANES(lane, MERGE);                                       \
        *(A *)result = lane[0];                                                 \
    }                                                                           \
    static void combine_##FAM##_##NAME(void *a, const void *b)                  \
    {                                                                           \
        *(A *)a = MERGE(*(A *)a, *(const A *)b);                                \
    }                                                                           \
    static void col_init_##FAM##_##NAME(void *lv, int nc)                       \
    {                                                                           \
        A(*lane)[COLS] = lv;                                                    \
        for (int j = 0; j < LANES; j++)                                         \
            for (int c = 0; c < nc; c++)                                        \
                lane[j][c] = IDENTITY;                                          \
    }                                                                           \
    static void col_add_##FAM##_##NAME(void *lv, int j, const void *xv, int nc) \
    {                                                                           \
        A(*lane)[COLS] = lv;                                                    \
        const X *x = xv;                                                        \
        for (int c = 0; c < nc; c++)                                            \
            lane[j][c] = ADD(lane[j][c], x[c]);                                 \
    }                                                                           \
    static void col_fold_##FAM##_##NAME(void *lv, int nc)                       \
    {                                                                           \
        A(*lane)[COLS] = lv;                                                    \
        for (int w = LANES / 2; w >= 1; w /= 2)                                 \
            for (int j = 0; j < w; j++)                                         \
                for (int c = 0; c < nc; c++)                                    \
                    lane[j][c] = MERGE(lane[j][c], lane[j + w][c]);             \
    }                                                                           \
    static void final_##FAM##_##NAME(const void *a, void *x)                    \
    {                                                                           \
        *(X *)x = FINAL(*(const A *)a);                                         \
    }                                                                           \
    static bool better_##FAM##_##NAME(const void *v, const void *b)             \
    {                                                                           \
        X p = *(const X *)v, q = *(const X *)b;                                 \
        (void)p, (void)q;                                                       \
        return BETTER(p, q);                                                    \
    }                                                                           \
    static const tsr__reduce_ops ops_##FAM##_##NAME = {                         \
        sizeof(X),                                                              \
        sizeof(A),                                                              \
        identity_##FAM##_##NAME,                                                \
        chunk_##FAM##_##NAME,                                                   \
        combine_##FAM##_##NAME,                                                 \
        col_init_##FAM##_##NAME,                                                \
        col_add_##FAM##_##NAME,                                                 \
        col_fold_##FAM##_##NAME,                                                \
        final_##FAM##_##NAME,                                                   \
        better_##FAM##_##NAME,                                                  \
        load_##FAM,                                                             \
        store_##FAM,                                                            \
        divide_##FAM,                                                           \
    };
#define PLAIN(FAM, X, NAME, IDENTITY, OP, BETTER) \
    COMBINE(FAM, X, X, NAME, IDENTITY, OP, OP, SAME, BETTER)

PLAIN(I, uint64_t, sum, 0, SUM_I, NO_BETTER)
PLAIN(I, uint64_t, prod, 1, PROD_I, NO_BETTER)
PLAIN(I, uint64_t, max, (uint64_t)INT64_MIN, MAX_I, BETTER_MAX_I)
PLAIN(I, uint64_t, min, (uint64_t)INT64_MAX, MIN_I, BETTER_MIN_I)
PLAIN(I, uint64_t, all, 1, ALL_I, NO_BETTER)
PLAIN(I, uint64_t, any, 0, ANY_I, NO_BETTER)
COMBINE(F, float, pair_f, sum, PAIR_F0, add_pf, merge_pf, final_pf, NO_BETTER)
PLAIN(F, float, prod, 1.0f, PROD_R, NO_BETTER)
PLAIN(F, float, max, -INFINITY, MAX_R, BETTER_MAX_R)
PLAIN(F, float, min, INFINITY, MIN_R, BETTER_MIN_R)
COMBINE(D, double, pair_d, sum, PAIR_D0, add_pd, merge_pd, final_pd, NO_BETTER)
PLAIN(D, double, prod, 1.0, PROD_R, NO_BETTER)
PLAIN(D, double, max, -INFINITY, MAX_R, BETTER_MAX_R)
PLAIN(D, double, min, INFINITY, MIN_R, BETTER_MIN_R)
PLAIN(CF, tsr__kc64, sum, tsr__kc64_make(0.0f, 0.0f), SUM_CF, NO_BETTER)
PLAIN(CF, tsr__kc64, prod, tsr__kc64_make(1.0f, 0.0f), PROD_CF, NO_BETTER)
PLAIN(CD, tsr__kc128, sum, tsr__kc128_make(0.0, 0.0), SUM_CD, NO_BETTER)
PLAIN(CD, tsr__kc128, prod, tsr__kc128_make(1.0, 0.0), PROD_CD, NO_BETTER)

/* The loops of an op (its elem column names the combine) in a common
 * dtype, or NULL. */
static const tsr__reduce_ops *ops_for(const char *combine, tsr_dtype common)
{
    static const struct {
        const char *name;
        const tsr__reduce_ops *i, *f, *d, *cf, *cd;
    } table[] = {
        {"sum", &ops_I_sum, &ops_F_sum, &ops_D_sum, &ops_CF_sum, &ops_CD_sum},
        {"prod", &ops_I_prod, &ops_F_prod, &ops_D_prod, &ops_CF_prod, &ops_CD_prod},
        {"max", &ops_I_max, &ops_F_max, &ops_D_max, NULL, NULL},
        {"min", &ops_I_min, &ops_F_min, &ops_D_min, NULL, NULL},
        {"all", &ops_I_all, NULL, NULL, NULL, NULL},
        {"any", &ops_I_any, NULL, NULL, NULL, NULL},
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        if (strcmp(table[t].name, combine) != 0)
            continue;
        switch (common) {
        case TSR_BOOL:
        case TSR_UINT8:
        case TSR_INT8:
        case TSR_INT16:
        case TSR_INT32:
        case TSR_INT64:
            return table[t].i;
        case TSR_FLOAT16:
        case TSR_BFLOAT16:
        case TSR_FLOAT32:
            return table[t].f;
        case TSR_FLOAT64:
            return table[t].d;
        case TSR_COMPLEX32:
        case TSR_COMPLEX64:
            return table[t].cf;
        case TSR_COMPLEX128:
            return table[t].cd;
        default:
            return NULL;
        }
    }
    return NULL;
}

/* The element functions' names of core/ops.def, by op: the combines. */
static const char *const combine_of[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, ...) [TSR__KOP_##ENUM] = #elem,
#include "core/ops.def"
#undef X
};

/* ---- the walk ---------------------------------------------------------- */

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
    w->ops = ops_for(combine_of[k->op], w->common);
    if (w->ops == NULL)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'", info->stub,
                         tsr_dtype_message_name(w->common));
    w->arg = (info->flags & (TSR__KOPF_INDEX | TSR__KOPF_INDICES)) != 0;
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
    /* Columns: the kept dimension contiguous in the input, the reduced
     * innermost one not (its rows would be read across). */
    w->cdim = -1;
    for (int d = 0; d < w->nkept; d++)
        if (w->kin[d] == (int64_t)w->in_w && w->ksize[d] > 1)
            w->cdim = d;
    w->columns = w->cdim >= 0 && !w->arg && w->nred > 0 && w->R > 1 &&
                 w->rin[w->nred - 1] != (int64_t)w->in_w &&
                 !((info->flags & TSR__KOPF_MEAN) && (info->flags & TSR__KOPF_SKIP_NAN));
    if (w->columns) {
        w->col_blocks = (w->ksize[w->cdim] + COLS - 1) / COLS;
        w->col_units = w->nout / w->ksize[w->cdim] * w->col_blocks;
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
        w->ops->chunk(chunk_values(w, base, r0, n, buf, nonnan), n, value.b);
        push(w, c, value.b, 0);
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

static void arg_row(const tsr__reduce_walk *w, const unsigned char *base, unsigned char *out,
                    unsigned char *idx)
{
    double buf[CHUNK * ELEMENT_MAX / sizeof(double)];
    mval best;
    size_t ms = w->ops->xsize;
    int64_t at = 0;
    for (int64_t r0 = 0; r0 < w->R; r0 += CHUNK) {
        int64_t n = w->R - r0 < CHUNK ? w->R - r0 : CHUNK;
        const unsigned char *v = chunk_values(w, base, r0, n, buf, NULL);
        int64_t i = 0;
        if (r0 == 0) {
            memcpy(best.b, v, ms);
            i = 1;
        }
        for (; i < n; i++)
            if (w->ops->better(v + i * (int64_t)ms, best.b)) {
                memcpy(best.b, v + i * (int64_t)ms, ms);
                at = r0 + i;
            }
    }
    if (w->flags & TSR__KOPF_INDEX) {
        memcpy(out, &at, 8);
        return;
    }
    w->ops->store(w->common, best.b, out);
    memcpy(idx, &at, 8);
}

void tsr__reduce_rows(const tsr__reduce_walk *w, int64_t begin, int64_t end)
{
    int64_t nchunks = (w->R + CHUNK - 1) / CHUNK;
    for (int64_t o = begin; o < end; o++) {
        int64_t oo, oi, ox;
        kept_offsets(w, o, -1, &oo, &oi, &ox);
        if (w->arg) {
            arg_row(w, w->in + oi, w->out + oo, w->idx ? w->idx + ox : NULL);
            continue;
        }
        counter c = {.n = 0};
        int64_t nonnan = 0;
        push_chunks(w, w->in + oi, 0, nchunks, &c, &nonnan);
        mval value;
        fold(w, &c, value.b);
        store_result(w, value.b, (w->flags & TSR__KOPF_SKIP_NAN) ? nonnan : w->R, w->out + oo);
    }
}

/* ---- columns ------------------------------------------------------------- */

void tsr__reduce_columns(const tsr__reduce_walk *w, int64_t begin, int64_t end)
{
    size_t ms = w->ops->msize;
    int64_t ncols = w->ksize[w->cdim];
    int64_t n0 = w->rsize[w->nred - 1], s0 = w->rin[w->nred - 1];
    /* lanes, values of one row, and the counters of every column */
    double lanes[LANES * COLS * ELEMENT_MAX / sizeof(double)];
    double row[COLS * ELEMENT_MAX / sizeof(double)];
    _Alignas(16) unsigned char stack[COL_LEVELS][COLS * ELEMENT_MAX];
    int level[COL_LEVELS];
    for (int64_t u = begin; u < end; u++) {
        int64_t outer = u / w->col_blocks, col0 = (u % w->col_blocks) * COLS;
        int nc = (int)(ncols - col0 < COLS ? ncols - col0 : COLS);
        int64_t oo, oi, ox;
        kept_offsets(w, outer, w->cdim, &oo, &oi, &ox);
        oo += col0 * w->kout[w->cdim];
        oi += col0 * w->kin[w->cdim];
        int depth = 0;
        for (int64_t r0 = 0; r0 < w->R; r0 += CHUNK) {
            int64_t n = w->R - r0 < CHUNK ? w->R - r0 : CHUNK;
            w->ops->col_init(lanes, nc);
            for (int64_t i = 0; i < n; i++) {
                int64_t r = r0 + i;
                const unsigned char *p = w->in + oi + row_offset(w, r / n0) + (r % n0) * s0;
                const void *x = p;
                if (!w->direct) {
                    _Alignas(16) unsigned char conv[COLS * ELEMENT_MAX];
                    const unsigned char *src = p;
                    if (w->in_dtype != w->common) {
                        tsr__kernel_convert(p, w->in_dtype, conv, w->common, (size_t)nc);
                        src = conv;
                    }
                    w->ops->load(w->common, src, nc, row, (w->flags & TSR__KOPF_SKIP_NAN) != 0,
                                 NULL);
                    x = row;
                }
                w->ops->col_add(lanes, (int)(i % LANES), x, nc);
            }
            w->ops->col_fold(lanes, nc);
            /* push lane 0's columns into the counters (one level array) */
            unsigned char *v = (unsigned char *)lanes;
            int lv = 0;
            while (depth > 0 && level[depth - 1] == lv) {
                for (int c = 0; c < nc; c++) {
                    unsigned char *left = stack[depth - 1] + c * ms;
                    w->ops->combine(left, v + c * ms);
                    memcpy(v + c * ms, left, ms);
                }
                depth--;
                lv++;
            }
            memcpy(stack[depth], v, (size_t)nc * ms);
            level[depth++] = lv;
        }
        for (int c = 0; c < nc; c++) {
            mval acc;
            memcpy(acc.b, stack[depth - 1] + c * ms, ms);
            for (int i = depth - 2; i >= 0; i--) {
                mval left;
                memcpy(left.b, stack[i] + c * ms, ms);
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

void tsr__reduce_blocks(const tsr__reduce_walk *w, int64_t begin, int64_t end, void *values)
{
    int64_t nb = tsr__reduce_whole_blocks(w);
    size_t vs = tsr__reduce_value_size(w);
    for (int64_t u = begin; u < end; u++) {
        int64_t o = u / nb, b = u % nb;
        int64_t oo, oi, ox;
        kept_offsets(w, o, -1, &oo, &oi, &ox);
        counter c = {.n = 0};
        int64_t nonnan = 0;
        push_chunks(w, w->in + oi, b * TSR__RED_BLOCK_CHUNKS, (b + 1) * TSR__RED_BLOCK_CHUNKS, &c,
                    &nonnan);
        unsigned char *slot = (unsigned char *)values + u * (int64_t)vs;
        memcpy(slot, c.v[0].b, w->ops->msize); /* a whole block is one node */
        memcpy(slot + w->ops->msize, &nonnan, sizeof nonnan);
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
