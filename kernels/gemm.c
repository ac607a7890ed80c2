/* Matrix products on the host through OpenBLAS (see gemm.h).
 *
 * Threads: the caller's (tsr__gemm_threads). OpenBLAS's own are set to
 * its blas_threads before a product, so that a product runs on no more
 * threads than any other operation of the caller (libtessera: its
 * thread count; the daemon: the device's compute units). A batch of
 * small matrices (bmm of 32 x 32) is split over the caller's pool
 * instead, one single-threaded BLAS call per matrix; OpenBLAS keeps such
 * calls on the calling thread by itself.
 *
 * Layouts: every BLAS call is row-major. A matrix is passed as it lies
 * when its columns step by one element (NoTrans, leading dimension its
 * row stride) or its rows do (Trans, leading dimension its column
 * stride); C likewise, a column-major C by computing C^T = B^T A^T. Only
 * an operand with neither layout is packed into a scratch buffer. A
 * single column (gemv) covers mv and dot. */
#include "kernels/gemm.h"

#include <cblas.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "tessera/ops.h"

/* One matrix of a batch: element (i, j) at p + (i * rs + j * cs) * itemsize. */
typedef struct mat {
    unsigned char *p;
    int64_t rs, cs;
} mat;

/* The BLAS routines of one dtype, with alpha and beta by address. */
typedef struct blas_ops {
    void (*gemm)(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                 const void *alpha, const void *a, blasint lda, const void *b, blasint ldb,
                 const void *beta, void *c, blasint ldc);
    void (*gemv)(CBLAS_TRANSPOSE ta, blasint m, blasint n, const void *alpha, const void *a,
                 blasint lda, const void *x, blasint incx, const void *beta, void *y, blasint incy);
} blas_ops;

static void sgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                  const void *alpha, const void *a, blasint lda, const void *b, blasint ldb,
                  const void *beta, void *c, blasint ldc)
{
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, *(const float *)alpha, a, lda, b, ldb,
                *(const float *)beta, c, ldc);
}

static void dgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                  const void *alpha, const void *a, blasint lda, const void *b, blasint ldb,
                  const void *beta, void *c, blasint ldc)
{
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, *(const double *)alpha, a, lda, b, ldb,
                *(const double *)beta, c, ldc);
}

static void cgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                  const void *alpha, const void *a, blasint lda, const void *b, blasint ldb,
                  const void *beta, void *c, blasint ldc)
{
    cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void zgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                  const void *alpha, const void *a, blasint lda, const void *b, blasint ldb,
                  const void *beta, void *c, blasint ldc)
{
    cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void sgemv(CBLAS_TRANSPOSE ta, blasint m, blasint n, const void *alpha, const void *a,
                  blasint lda, const void *x, blasint incx, const void *beta, void *y, blasint incy)
{
    cblas_sgemv(CblasRowMajor, ta, m, n, *(const float *)alpha, a, lda, x, incx,
                *(const float *)beta, y, incy);
}

static void dgemv(CBLAS_TRANSPOSE ta, blasint m, blasint n, const void *alpha, const void *a,
                  blasint lda, const void *x, blasint incx, const void *beta, void *y, blasint incy)
{
    cblas_dgemv(CblasRowMajor, ta, m, n, *(const double *)alpha, a, lda, x, incx,
                *(const double *)beta, y, incy);
}

static void cgemv(CBLAS_TRANSPOSE ta, blasint m, blasint n, const void *alpha, const void *a,
                  blasint lda, const void *x, blasint incx, const void *beta, void *y, blasint incy)
{
    cblas_cgemv(CblasRowMajor, ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

static void zgemv(CBLAS_TRANSPOSE ta, blasint m, blasint n, const void *alpha, const void *a,
                  blasint lda, const void *x, blasint incx, const void *beta, void *y, blasint incy)
{
    cblas_zgemv(CblasRowMajor, ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

static const blas_ops blas[TSR_DTYPE_COUNT] = {
    [TSR_FLOAT32] = {sgemm, sgemv},
    [TSR_FLOAT64] = {dgemm, dgemv},
    [TSR_COMPLEX64] = {cgemm, cgemv},
    [TSR_COMPLEX128] = {zgemm, zgemv},
};

bool tsr__gemm_supports(tsr_dtype d)
{
    return d == TSR_FLOAT16 || d == TSR_BFLOAT16 || blas[d].gemm != NULL || d == TSR_UINT8 ||
           d == TSR_INT8 || d == TSR_INT16 || d == TSR_INT32 || d == TSR_INT64;
}

/* OpenBLAS's thread count as last set here (0: never). */
static atomic_int blas_threads_set;

static void set_blas_threads(int n)
{
    if (n > 0 && atomic_exchange(&blas_threads_set, n) != n)
        openblas_set_num_threads(n);
}

/* ---- packing ------------------------------------------------------------ */

/* A strided row goes through the bulk conversion in runs of this many
 * elements, gathered into (or scattered from) a buffer of the source's
 * (the destination's) dtype. */
#define RUN 256
#define MAX_ITEMSIZE 16

/* dst[j * ds] = src[j * ss] for j < n, elements of isz bytes: a gather
 * (ds 1) or a scatter (ss 1); inlined with a constant isz below, so that
 * each element is one load and one store. */
static inline void copy_strided(unsigned char *dst, int64_t ds, const unsigned char *src,
                                int64_t ss, size_t n, size_t isz)
{
    for (size_t j = 0; j < n; j++)
        memcpy(dst + (size_t)((int64_t)j * ds) * isz, src + (size_t)((int64_t)j * ss) * isz, isz);
}

static void copy_elements(unsigned char *dst, int64_t ds, const unsigned char *src, int64_t ss,
                          size_t n, size_t isz)
{
    switch (isz) {
    case 2:
        copy_strided(dst, ds, src, ss, n, 2);
        break;
    case 4:
        copy_strided(dst, ds, src, ss, n, 4);
        break;
    case 8:
        copy_strided(dst, ds, src, ss, n, 8);
        break;
    default:
        copy_strided(dst, ds, src, ss, n, isz);
        break;
    }
}

/* n contiguous elements converted: float16 and bfloat16 to and from
 * float32 in vectors where the CPU has them (the same bits). */
static void convert(const void *src, tsr_dtype sdt, void *dst, tsr_dtype ddt, size_t n)
{
    if (!tsr__cpu_fast_convert(src, sdt, dst, ddt, n))
        tsr__kernel_convert(src, sdt, dst, ddt, n);
}

void tsr__gemm_pack(const unsigned char *src, tsr_dtype sdt, int64_t rows, int64_t cols, int64_t rs,
                    int64_t cs, void *dst, tsr_dtype ddt)
{
    size_t si = tsr_dtype_itemsize(sdt), di = tsr_dtype_itemsize(ddt);
    if (cols == 1) { /* a column: the same bytes out as one row of `rows` */
        cols = rows;
        cs = rs;
        rows = 1;
    }
    unsigned char run[RUN * MAX_ITEMSIZE];
    unsigned char *q = dst;
    for (int64_t i = 0; i < rows; i++) {
        const unsigned char *row = src + (size_t)(i * rs) * si;
        unsigned char *out = q + (size_t)(i * cols) * di;
        if (cs == 1 && sdt == ddt) {
            memcpy(out, row, (size_t)cols * si);
        } else if (cs == 1) {
            convert(row, sdt, out, ddt, (size_t)cols);
        } else if (sdt == ddt) {
            copy_elements(out, 1, row, cs, (size_t)cols, si);
        } else {
            for (int64_t j = 0; j < cols; j += RUN) {
                size_t n = (size_t)(cols - j < RUN ? cols - j : RUN);
                copy_elements(run, 1, row + (size_t)(j * cs) * si, cs, n, si);
                convert(run, sdt, out + (size_t)j * di, ddt, n);
            }
        }
    }
}

void tsr__gemm_unpack(const void *src, tsr_dtype sdt, int64_t rows, int64_t cols,
                      unsigned char *dst, tsr_dtype ddt, int64_t rs, int64_t cs)
{
    size_t si = tsr_dtype_itemsize(sdt), di = tsr_dtype_itemsize(ddt);
    if (cols == 1) {
        cols = rows;
        cs = rs;
        rows = 1;
    }
    unsigned char run[RUN * MAX_ITEMSIZE];
    const unsigned char *p = src;
    for (int64_t i = 0; i < rows; i++) {
        const unsigned char *row = p + (size_t)(i * cols) * si;
        unsigned char *out = dst + (size_t)(i * rs) * di;
        if (cs == 1) {
            convert(row, sdt, out, ddt, (size_t)cols);
        } else {
            for (int64_t j = 0; j < cols; j += RUN) {
                size_t n = (size_t)(cols - j < RUN ? cols - j : RUN);
                convert(row + (size_t)j * si, sdt, run, ddt, n);
                copy_elements(out + (size_t)(j * cs) * di, cs, run, 1, n, di);
            }
        }
    }
}

static void zero_mat(mat c, int64_t rows, int64_t cols, size_t isz)
{
    for (int64_t i = 0; i < rows; i++) {
        unsigned char *row = c.p + (size_t)(i * c.rs) * isz;
        if (c.cs == 1) {
            memset(row, 0, (size_t)cols * isz);
            continue;
        }
        for (int64_t j = 0; j < cols; j++)
            memset(row + (size_t)(j * c.cs) * isz, 0, isz);
    }
}

/* ---- one product on a BLAS dtype ------------------------------------------ */

/* Scratch buffers of one thread, grown on demand. */
typedef struct scratch {
    void *buf[3];
    size_t size[3];
} scratch;

static void *scratch_get(scratch *s, int which, size_t bytes)
{
    if (s->size[which] >= bytes)
        return s->buf[which];
    void *p = realloc(s->buf[which], bytes ? bytes : 1);
    if (p == NULL)
        return NULL;
    s->buf[which] = p;
    s->size[which] = bytes;
    return p;
}

static void scratch_free(scratch *s)
{
    for (int i = 0; i < 3; i++)
        free(s->buf[i]);
}

/* One set of float16/bfloat16 scratch buffers kept between products: a
 * float32 copy of three 2048 x 2048 matrices is 48 MiB, whose pages the
 * system would otherwise hand over and zero again at every product (a
 * tenth of its time). The set a product leaves is the spare; the next
 * one takes it, grown as needed. */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static scratch spare;

static void spare_take(scratch *s)
{
    pthread_mutex_lock(&spare_lock);
    *s = spare;
    memset(&spare, 0, sizeof spare);
    pthread_mutex_unlock(&spare_lock);
}

static void spare_give(scratch *s)
{
    pthread_mutex_lock(&spare_lock);
    scratch old = spare;
    spare = *s;
    pthread_mutex_unlock(&spare_lock);
    scratch_free(&old);
}

/* How BLAS reads a rows x cols matrix in place: NoTrans with ld its row
 * stride, Trans with ld its column stride; false when neither fits. */
static bool blas_layout(mat x, int64_t rows, int64_t cols, CBLAS_TRANSPOSE *t, blasint *ld)
{
    int64_t lead;
    if ((cols <= 1 || x.cs == 1) && (rows <= 1 || x.rs >= (cols > 1 ? cols : 1))) {
        *t = CblasNoTrans;
        lead = rows <= 1 ? (cols > 1 ? cols : 1) : x.rs;
    } else if ((rows <= 1 || x.rs == 1) && (cols <= 1 || x.cs >= (rows > 1 ? rows : 1))) {
        *t = CblasTrans;
        lead = cols <= 1 ? (rows > 1 ? rows : 1) : x.cs;
    } else {
        return false;
    }
    if (lead > INT_MAX)
        return false;
    *ld = (blasint)lead;
    return true;
}

static mat transposed(mat x)
{
    return (mat){x.p, x.cs, x.rs};
}

/* An operand BLAS can read: x itself, or x packed row-major into scratch
 * buffer `which`. NULL when the buffer cannot be had. */
static const void *operand(mat x, int64_t rows, int64_t cols, tsr_dtype dt, scratch *s, int which,
                           CBLAS_TRANSPOSE *t, blasint *ld)
{
    if (blas_layout(x, rows, cols, t, ld))
        return x.p;
    size_t isz = tsr_dtype_itemsize(dt);
    void *buf = scratch_get(s, which, (size_t)(rows * cols) * isz);
    if (buf == NULL)
        return NULL;
    tsr__gemm_pack(x.p, dt, rows, cols, x.rs, x.cs, buf, dt);
    *t = CblasNoTrans;
    *ld = (blasint)(cols > 1 ? cols : 1);
    return buf;
}

static bool row_major(mat c, int64_t m, int64_t n)
{
    return (n <= 1 || c.cs == 1) && (m <= 1 || c.rs >= n) && c.rs <= INT_MAX;
}

/* C = alpha A B + beta C for one m x n x k product of BLAS dtype dt;
 * C's contents are zero already where the caller's beta was zero. */
static tsr_status blas_one(tsr_dtype dt, int64_t m, int64_t n, int64_t k, const void *alpha,
                           const void *beta, mat a, mat b, mat c, scratch *s)
{
    size_t isz = tsr_dtype_itemsize(dt);
    if (!row_major(c, m, n)) {
        if (row_major(transposed(c), n, m))
            return blas_one(dt, n, m, k, alpha, beta, transposed(b), transposed(a), transposed(c),
                            s);
        void *tmp = scratch_get(s, 2, (size_t)(m * n) * isz);
        if (tmp == NULL)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
        tsr__gemm_pack(c.p, dt, m, n, c.rs, c.cs, tmp, dt);
        tsr_status st = blas_one(dt, m, n, k, alpha, beta, a, b, (mat){tmp, n, 1}, s);
        if (st == TSR_OK)
            tsr__gemm_unpack(tmp, dt, m, n, c.p, dt, c.rs, c.cs);
        return st;
    }
    if (m == 1 && n > 1 && c.cs == 1)
        /* a row: the transposed problem is one column, for gemv */
        return blas_one(dt, n, m, k, alpha, beta, transposed(b), transposed(a), (mat){c.p, 1, n},
                        s);
    CBLAS_TRANSPOSE ta, tb;
    blasint lda, ldb;
    const void *pa = operand(a, m, k, dt, s, 0, &ta, &lda);
    if (pa == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
    if (n == 1) {
        /* y = A x: x is B's column, y C's, each at its own stride */
        const void *x = b.p;
        int64_t incx = k > 1 ? b.rs : 1, incy = m > 1 ? c.rs : 1;
        if (incx < 1 || incx > INT_MAX) {
            if ((x = scratch_get(s, 1, (size_t)k * isz)) == NULL)
                return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
            tsr__gemm_pack(b.p, dt, k, 1, b.rs, 1, (void *)x, dt);
            incx = 1;
        }
        /* row-major gemv takes A's own shape: NoTrans m x k, Trans k x m */
        blasint rows = ta == CblasNoTrans ? (blasint)m : (blasint)k;
        blasint cols = ta == CblasNoTrans ? (blasint)k : (blasint)m;
        blas[dt].gemv(ta, rows, cols, alpha, pa, lda, x, (blasint)incx, beta, c.p, (blasint)incy);
        return TSR_OK;
    }
    const void *pb = operand(b, k, n, dt, s, 1, &tb, &ldb);
    if (pb == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
    blas[dt].gemm(ta, tb, (blasint)m, (blasint)n, (blasint)k, alpha, pa, lda, pb, ldb, beta, c.p,
                  (blasint)(c.rs > n ? c.rs : (n > 1 ? n : 1)));
    return TSR_OK;
}

/* x, a rows x cols matrix of float16 or bfloat16, as float32 in buf,
 * along the direction in which its elements are contiguous: row-major
 * when its rows are (or neither are), column-major when only its
 * columns are (a transposed operand), which BLAS then reads with its
 * transpose flag. Either way each contiguous run is one bulk
 * conversion. */
static mat widen(mat x, tsr_dtype dt, int64_t rows, int64_t cols, float *buf)
{
    if (rows > 1 && cols > 1 && x.cs != 1 && x.rs == 1) {
        tsr__gemm_pack(x.p, dt, cols, rows, x.cs, x.rs, buf, TSR_FLOAT32);
        return (mat){(void *)buf, 1, rows};
    }
    tsr__gemm_pack(x.p, dt, rows, cols, x.rs, x.cs, buf, TSR_FLOAT32);
    return (mat){(void *)buf, cols > 1 ? cols : 1, 1};
}

/* float16 and bfloat16: both operands and (when beta is not zero) C to
 * float32, sgemm, C rounded once. */
static tsr_status reduced_one(const tsr__gemm_args *g, const float *beta, mat a, mat b, mat c,
                              scratch *s)
{
    size_t f = sizeof(float);
    int64_t m = g->m, n = g->n, k = g->k;
    float *pa = scratch_get(&s[1], 0, (size_t)(m * k) * f);
    float *pb = scratch_get(&s[1], 1, (size_t)(k * n) * f);
    float *pc = scratch_get(&s[1], 2, (size_t)(m * n) * f);
    if (pa == NULL || pb == NULL || pc == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
    mat wa = widen(a, g->dtype, m, k, pa), wb = widen(b, g->dtype, k, n, pb);
    if (g->beta_zero)
        memset(pc, 0, (size_t)(m * n) * f);
    else
        tsr__gemm_pack(c.p, g->dtype, m, n, c.rs, c.cs, pc, TSR_FLOAT32);
    tsr_status st =
        blas_one(TSR_FLOAT32, m, n, k, g->alpha, beta, wa, wb, (mat){(void *)pc, n, 1}, s);
    if (st == TSR_OK)
        tsr__gemm_unpack(pc, TSR_FLOAT32, m, n, c.p, g->dtype, c.rs, c.cs);
    return st;
}

/* ---- batches ----------------------------------------------------------------- */

typedef struct batch_job {
    const tsr__gemm_args *g;
    const tsr__mat *a, *b, *c;
    atomic_int status;
} batch_job;

static mat item(const tsr__mat *x, int64_t i, size_t isz)
{
    return (mat){x->data + (size_t)(i * x->bstride) * isz, x->rs, x->cs};
}

static void run_batches(void *ctx, int64_t begin, int64_t end)
{
    batch_job *j = ctx;
    const tsr__gemm_args *g = j->g;
    size_t isz = tsr_dtype_itemsize(g->dtype);
    bool reduced = g->dtype == TSR_FLOAT16 || g->dtype == TSR_BFLOAT16;
    static const uint8_t zero[16];
    const void *beta = g->beta_zero ? zero : g->beta;
    scratch s[2];
    memset(s, 0, sizeof s);
    if (reduced)
        spare_take(&s[1]);
    for (int64_t i = begin; i < end && atomic_load(&j->status) == TSR_OK; i++) {
        mat a = item(j->a, i, isz), b = item(j->b, i, isz), c = item(j->c, i, isz);
        tsr_status st;
        if (reduced) {
            st = reduced_one(g, beta, a, b, c, s);
        } else {
            if (g->beta_zero)
                zero_mat(c, g->m, g->n, isz);
            st = blas_one(g->dtype, g->m, g->n, g->k, g->alpha, beta, a, b, c, s);
        }
        if (st != TSR_OK) {
            int ok = TSR_OK;
            atomic_compare_exchange_strong(&j->status, &ok, (int)st);
        }
    }
    scratch_free(&s[0]);
    if (reduced)
        spare_give(&s[1]);
}

/* C = beta * C, in the dtype's math type (k == 0, or alpha == 0). */
static tsr_status scale_only(const tsr__gemm_args *g, const tsr__mat *c)
{
    size_t isz = tsr_dtype_itemsize(g->dtype);
    tsr_dtype math = tsr_dtype_is_complex(g->dtype)          ? TSR_COMPLEX128
                     : tsr_dtype_is_floating_point(g->dtype) ? TSR_FLOAT64
                                                             : TSR_INT64;
    double beta[2];
    int64_t ibeta;
    memcpy(&ibeta, g->beta, 8);
    tsr__kernel_convert(g->beta,
                        g->dtype == TSR_FLOAT64      ? TSR_FLOAT64
                        : g->dtype == TSR_COMPLEX128 ? TSR_COMPLEX128
                        : g->dtype == TSR_COMPLEX64  ? TSR_COMPLEX64
                        : math == TSR_INT64          ? TSR_INT64
                                                     : TSR_FLOAT32,
                        beta, math, 1);
    unsigned char *row = malloc((size_t)(g->n > 0 ? g->n : 1) * 16);
    if (row == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a product's scratch");
    for (int64_t bi = 0; bi < g->batch; bi++) {
        mat c1 = item(c, bi, isz);
        for (int64_t i = 0; i < g->m; i++) {
            unsigned char *p = c1.p + (size_t)(i * c1.rs) * isz;
            if (g->beta_zero) {
                zero_mat((mat){p, 0, c1.cs}, 1, g->n, isz);
                continue;
            }
            tsr__gemm_pack(p, g->dtype, 1, g->n, 0, c1.cs, row, math);
            for (int64_t j = 0; j < g->n; j++) {
                if (math == TSR_INT64) {
                    uint64_t v;
                    memcpy(&v, row + j * 8, 8);
                    v *= (uint64_t)ibeta;
                    memcpy(row + j * 8, &v, 8);
                } else if (math == TSR_FLOAT64) {
                    double v;
                    memcpy(&v, row + j * 8, 8);
                    v *= beta[0];
                    memcpy(row + j * 8, &v, 8);
                } else {
                    double v[2], w[2];
                    memcpy(v, row + j * 16, 16);
                    w[0] = v[0] * beta[0] - v[1] * beta[1];
                    w[1] = v[0] * beta[1] + v[1] * beta[0];
                    memcpy(row + j * 16, w, 16);
                }
            }
            tsr__gemm_unpack(row, math, 1, g->n, p, g->dtype, 0, c1.cs);
        }
    }
    free(row);
    return TSR_OK;
}

tsr_status tsr__gemm(const tsr__gemm_args *g, const tsr__mat *a, const tsr__mat *b,
                     const tsr__mat *c, const tsr__gemm_threads *threads)
{
    if (g->batch == 0 || g->m == 0 || g->n == 0)
        return TSR_OK;
    if (g->k == 0 || g->alpha_zero)
        return scale_only(g, c);
    if (!tsr__gemm_supports(g->dtype))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "no product computes in %s",
                         tsr_dtype_name(g->dtype));
    if (!tsr_dtype_is_floating_point(g->dtype) && !tsr_dtype_is_complex(g->dtype))
        return tsr__gemm_int(g, a, b, c, threads);
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "matrix products of more than 2^31 - 1 rows, columns or inner "
                         "elements are not available yet");
    set_blas_threads(threads->blas_threads);
    batch_job j = {.g = g, .a = a, .b = b, .c = c, .status = TSR_OK};
    /* OpenBLAS runs products below about 2^18 multiply-adds on the
     * calling thread: a batch of those is ours to spread. */
    if (g->batch > 1 && g->m * g->n <= (1 << 18) / g->k && threads->parallel_for &&
        threads->pool_size > 1)
        threads->parallel_for(g->batch, 1, run_batches, &j);
    else
        run_batches(&j, 0, g->batch);
    return (tsr_status)atomic_load(&j.status);
}
