/* The matrix products of tessera/ops.h: mm, bmm, addmm, dot, mv, outer
 * and matmul, new and out= forms (addmm_ in place).
 *
 * Each operation first makes PyTorch 1.13's checks in PyTorch's order
 * (core/matmul.c words them), then the output's (dtype, shape, device),
 * then hands one product to product(): a and b as views whose leading
 * dimensions are a broadcast batch and whose last two are the matrices,
 * and the result seen with the same batch. product() merges the batch
 * dimensions where every operand allows, folds a batch against a shared
 * right operand into the rows of one product, and calls tsr__gemm
 * (gemm.c) for the rest. An output that shares storage with an input, or
 * that the batch cannot be laid over, is computed into a temporary and
 * copied. Results are new contiguous tensors; meta tensors get shapes and
 * dtypes only; accelerator tensors go to the daemon's BLAS (CLBlast on
 * opencl devices), one GEMM request per batch of matrices ("the product on
 * a device"). outer is an elementwise product of views. */
#include <string.h>

#include "core/dtype.h"
#include "core/error.h"
#include "core/matmul.h"
#include "core/protocol.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "libclient/client.h"
#include "libclient/plan.h"
#include "libclient/tensor_internal.h"
#include "kernels/threadpool.h"
#include "tessera/ops.h"

/* ---- devices, outputs, scalars ------------------------------------------ */

/* All tensors on one device. */
static tsr_status common_device(const tsr_tensor *const *ts, int n, tsr_device *out)
{
    tsr_device dev = ts[0]->storage->device;
    for (int i = 1; i < n; i++) {
        if (!ts[i] || tsr_device_equal(ts[i]->storage->device, dev))
            continue;
        char d1[TSR_DEVICE_STR_MAX], d2[TSR_DEVICE_STR_MAX];
        tsr_device_str(dev, d1, sizeof d1);
        tsr_device_str(ts[i]->storage->device, d2, sizeof d2);
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected all tensors to be on the same device, but found at least two "
                         "devices, %s and %s!",
                         d1, d2);
    }
    /* an accelerator's products are its daemon's to refuse (GEMM) */
    *out = dev;
    return TSR_OK;
}

static tsr_status out_dtype(const tsr_tensor *out, tsr_dtype want)
{
    if (out && out->dtype != want)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected out tensor to have dtype %s, but got %s instead",
                         tsr__dtype_cpp_name(want), tsr__dtype_cpp_name(out->dtype));
    return TSR_OK;
}

/* The result: a new contiguous tensor of `shape` (out NULL), or out
 * itself when it has that shape, resized when it has no elements. */
static tsr_status make_result(tsr_device dev, tsr_client *client, tsr_dtype dtype, int ndim,
                              const int64_t *shape, tsr_tensor *out, tsr_tensor **result)
{
    const tsr_geometry *g = out ? &out->geometry : NULL;
    if (g && g->ndim == ndim && memcmp(g->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0) {
        *result = tsr_tensor_retain(out);
        return TSR_OK;
    }
    if (out && out->numel != 0) {
        char t1[TSR__DIMS_TEXT], t2[TSR__DIMS_TEXT];
        return tsr__fail(TSR_ERR_RUNTIME, "output with shape %s doesn't match the result shape %s",
                         tsr__format_dims(t1, sizeof t1, g->sizes, g->ndim),
                         tsr__format_dims(t2, sizeof t2, shape, ndim));
    }
    tsr_geometry fresh_g;
    tsr_status st = tsr_geometry_init(ndim, shape, TSR_CONTIGUOUS_FORMAT, &fresh_g);
    tsr_tensor *fresh = NULL;
    if (st == TSR_OK)
        st = tsr__tensor_alloc(client, dev, dtype, &fresh_g, false, &fresh);
    if (st != TSR_OK)
        return st;
    if (out) {
        tsr__plan_adopt_storage(out, fresh);
        fresh = tsr_tensor_retain(out);
    }
    *result = fresh;
    return TSR_OK;
}

static bool math_zero(tsr_dtype math, const uint8_t *v)
{
    if (math == TSR_FLOAT32 || math == TSR_COMPLEX64) {
        float f[2];
        memcpy(f, v, sizeof f);
        return f[0] == 0 && (math == TSR_FLOAT32 || f[1] == 0);
    }
    if (math == TSR_FLOAT64 || math == TSR_COMPLEX128) {
        double d[2];
        memcpy(d, v, sizeof d);
        return d[0] == 0 && (math == TSR_FLOAT64 || d[1] == 0);
    }
    int64_t i;
    memcpy(&i, v, 8);
    return i == 0;
}

static bool scalar_zero(tsr_scalar s)
{
    return s.kind == TSR_BOOL      ? !s.v.b
           : s.kind == TSR_INT64   ? s.v.i == 0
           : s.kind == TSR_FLOAT64 ? s.v.f == 0
                                   : s.v.c[0] == 0 && s.v.c[1] == 0;
}

/* alpha and beta in the math type of dtype, converted as PyTorch's
 * Scalar::to<opmath_t>() converts them (beta first, as its call
 * evaluates them). alpha NULL means 1, beta NULL 0. */
static tsr_status gemm_scalars(tsr_dtype dtype, const tsr_scalar *alpha, const tsr_scalar *beta,
                               tsr__gemm_args *g)
{
    tsr_dtype math = dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 ? TSR_FLOAT32 : dtype;
    const tsr_scalar one = tsr_scalar_int(1);
    const tsr_scalar *in[2] = {beta, alpha ? alpha : &one};
    uint8_t *outv[2] = {g->beta, g->alpha};
    bool *zero[2] = {&g->beta_zero, &g->alpha_zero};
    g->dtype = dtype;
    for (int i = 0; i < 2; i++) {
        unsigned char element[16] = {0};
        if (in[i] == NULL) {
            memset(outv[i], 0, 16);
            *zero[i] = true;
            continue;
        }
        if (in[i]->kind != TSR_BOOL && in[i]->kind != TSR_INT64 && in[i]->kind != TSR_FLOAT64 &&
            in[i]->kind != TSR_COMPLEX128)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid scalar kind (expected bool, int64, float64 or complex128)");
        tsr_status st = tsr__scalar_to_element(*in[i], math, element);
        if (st != TSR_OK)
            return st;
        tsr__kernel_alpha_from_element(math, element, outv[i]);
        *zero[i] = scalar_zero(*in[i]) || math_zero(math, outv[i]);
    }
    return TSR_OK;
}

static tsr_status unit_scalars(tsr_dtype dtype, tsr__gemm_args *g)
{
    tsr_scalar one = tsr_scalar_int(1);
    if (!tsr__gemm_supports(dtype)) { /* only zero fills reach the product */
        memset(g, 0, sizeof *g);
        g->dtype = dtype;
        g->beta_zero = true;
        return TSR_OK;
    }
    return gemm_scalars(dtype, &one, NULL, g);
}

/* "\"addmm_impl_cpu_\" not implemented for 'Bool'" for a dtype no
 * product computes in. */
static tsr_status check_computes(const char *stub, tsr_dtype dtype)
{
    if (tsr__gemm_supports(dtype))
        return TSR_OK;
    return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'", stub,
                     tsr_dtype_message_name(dtype));
}

/* PyTorch reads the second operand as the first one's dtype. */
static tsr_status check_same_dtype(tsr_dtype want, tsr_dtype found)
{
    if (want == found)
        return TSR_OK;
    return tsr__fail(TSR_ERR_RUNTIME, "expected scalar type %s but found %s",
                     tsr_dtype_message_name(want), tsr_dtype_message_name(found));
}

/* ---- the product ------------------------------------------------------------ */

/* A view of `g` with `lead` leading batch dims of size/stride taken from
 * batch (stride 0 where g has none), then rows and cols of g's last two
 * dims (or a vector's, as a row or a column). */
typedef struct mview {
    int ndim;
    int64_t sizes[TSR_MAX_DIMS + 2], strides[TSR_MAX_DIMS + 2];
    int64_t offset;
} mview;

/* g's dims as a batch (nb dims, broadcast to `batch`) of matrices; a
 * vector (nmat 1) is a row (as_row) or a column. */
static void to_mview(const tsr_geometry *g, int nmat, bool as_row, int nb, const int64_t *batch,
                     mview *v)
{
    int gb = g->ndim - nmat;
    v->ndim = nb + 2;
    v->offset = g->offset;
    for (int d = 0; d < nb; d++) {
        int s = d - (nb - gb);
        v->sizes[d] = batch[d];
        v->strides[d] = s < 0 || g->sizes[s] != batch[d] ? 0 : g->strides[s];
    }
    if (nmat == 2) {
        v->sizes[nb] = g->sizes[g->ndim - 2];
        v->strides[nb] = g->strides[g->ndim - 2];
        v->sizes[nb + 1] = g->sizes[g->ndim - 1];
        v->strides[nb + 1] = g->strides[g->ndim - 1];
    } else {
        int r = as_row ? nb : nb + 1, c = as_row ? nb + 1 : nb;
        v->sizes[r] = 1;
        v->strides[r] = 0;
        v->sizes[c] = g->sizes[g->ndim - 1];
        v->strides[c] = g->strides[g->ndim - 1];
    }
}

/* The result's elements in row-major order as the view's (batch, m, n):
 * its own strides when a view allows, else false. */
static bool result_mview(const tsr_tensor *r, const mview *shape, mview *v)
{
    tsr_geometry g;
    if (tsr_view_view(&r->geometry, shape->sizes, shape->ndim, &g) != TSR_OK)
        return false;
    v->ndim = g.ndim;
    v->offset = g.offset;
    memcpy(v->sizes, g.sizes, sizeof(int64_t) * (size_t)g.ndim);
    memcpy(v->strides, g.strides, sizeof(int64_t) * (size_t)g.ndim);
    return true;
}

static tsr__mat host_mat(unsigned char *base, tsr_dtype dt, const mview *v, const int64_t *at)
{
    int nb = v->ndim - 2;
    int64_t off = v->offset;
    for (int d = 0; d < nb - 1; d++)
        off += at[d] * v->strides[d];
    return (tsr__mat){base + (size_t)off * tsr_dtype_itemsize(dt), nb > 0 ? v->strides[nb - 1] : 0,
                      v->strides[nb], v->strides[nb + 1]};
}

/* Merges batch dims d and d + 1 where all three views allow, drops size-1
 * batch dims; then, when b is shared by the whole (last) batch and a's
 * and c's rows continue across it, folds that batch into the rows. */
static void coalesce(mview *v[3], int64_t *m)
{
    int nb = v[0]->ndim - 2, out = 0;
    for (int d = 0; d < nb; d++) {
        int64_t size = v[0]->sizes[d];
        if (size == 1)
            continue;
        bool merge = out > 0;
        for (int k = 0; k < 3 && merge; k++)
            merge = v[k]->strides[out - 1] == v[k]->strides[d] * size;
        for (int k = 0; k < 3; k++) {
            if (merge) {
                v[k]->sizes[out - 1] *= size;
                v[k]->strides[out - 1] = v[k]->strides[d];
            } else {
                v[k]->sizes[out] = size;
                v[k]->strides[out] = v[k]->strides[d];
            }
        }
        out += !merge;
    }
    for (int k = 0; k < 3; k++) {
        memmove(v[k]->sizes + out, v[k]->sizes + nb, 2 * sizeof(int64_t));
        memmove(v[k]->strides + out, v[k]->strides + nb, 2 * sizeof(int64_t));
        v[k]->ndim = out + 2;
    }
    if (out > 0 && v[1]->strides[out - 1] == 0 &&
        v[0]->strides[out - 1] == *m * v[0]->strides[out] &&
        v[2]->strides[out - 1] == *m * v[2]->strides[out]) {
        *m *= v[0]->sizes[out - 1];
        for (int k = 0; k < 3; k++) {
            memmove(v[k]->sizes + out - 1, v[k]->sizes + out, 2 * sizeof(int64_t));
            memmove(v[k]->strides + out - 1, v[k]->strides + out, 2 * sizeof(int64_t));
            v[k]->ndim--;
        }
        v[0]->sizes[out - 1] = v[2]->sizes[out - 1] = *m;
    }
}

/* The gemm calls over the coalesced views: the last batch dim is the
 * gemm's batch, the others an odometer. */
static tsr_status run_gemms(tsr__gemm_args *g, unsigned char *base[3], mview *v[3])
{
    int nb = v[0]->ndim - 2;
    int64_t at[TSR_MAX_DIMS + 2] = {0};
    g->batch = nb > 0 ? v[0]->sizes[nb - 1] : 1;
    for (;;) {
        tsr__mat a = host_mat(base[0], g->dtype, v[0], at);
        tsr__mat b = host_mat(base[1], g->dtype, v[1], at);
        tsr__mat c = host_mat(base[2], g->dtype, v[2], at);
        tsr__gemm_threads threads = {.parallel_for = tsr__parallel_for,
                                     .pool_size = tsr__threadpool_size(),
                                     .blas_threads = tsr_get_num_threads()};
        tsr_status st = tsr__gemm(g, &a, &b, &c, &threads);
        if (st != TSR_OK)
            return st;
        int d = nb - 2;
        while (d >= 0 && ++at[d] == v[0]->sizes[d])
            at[d--] = 0;
        if (d < 0)
            return TSR_OK;
    }
}

static tsr_status product_into(const tsr_tensor *a, mview va, const tsr_tensor *b, mview vb,
                               tsr_tensor *r, mview vc, tsr__gemm_args *g)
{
    unsigned char *base[3];
    tsr_status st;
    if ((st = tsr__tensor_host_base(a, "mm", &base[0])) != TSR_OK ||
        (st = tsr__tensor_host_base(b, "mm", &base[1])) != TSR_OK ||
        (st = tsr__tensor_host_base(r, "mm", &base[2])) != TSR_OK)
        return st;
    int nb = va.ndim - 2;
    g->m = va.sizes[nb];
    g->k = va.sizes[nb + 1];
    g->n = vb.sizes[nb + 1];
    mview *v[3] = {&va, &vb, &vc};
    coalesce(v, &g->m);
    return run_gemms(g, base, v);
}

/* ---- the product on a device -------------------------------------------------
 * On an accelerator the daemon's BLAS computes each product (GEMM,
 * core/protocol.h): a matrix is handed over as it lies where its columns
 * or its rows step by one element (the transpose flag then), C only with
 * its columns so; anything else is first copied contiguous on the device.
 * Products there sum in the device BLAS's order, not OpenBLAS's: equal to
 * the cpu's within rounding, not bit for bit. */

/* How the daemon reads a rows x cols matrix with strides rs, cs: as it
 * lies (ld the row step) or transposed (ld the column step); false when
 * neither. */
static bool device_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans,
                          int64_t *ld)
{
    int64_t need_n = cols > 1 ? cols : 1, need_t = rows > 1 ? rows : 1;
    *trans = false;
    *ld = rows == 1 ? need_n : rs;
    if ((cols == 1 || cs == 1) && *ld >= need_n)
        return true;
    *trans = true;
    *ld = cols == 1 ? need_t : cs;
    return (rows == 1 || rs == 1) && *ld >= need_t;
}

static bool device_ready(const mview *v, bool output)
{
    int nb = v->ndim - 2;
    bool trans;
    int64_t ld;
    return device_layout(v->sizes[nb], v->sizes[nb + 1], v->strides[nb], v->strides[nb + 1], &trans,
                         &ld) &&
           !(output && trans);
}

/* An operand the daemon cannot read as it lies, copied contiguous: the
 * copy's view replaces *v. */
static tsr_status device_pack(const tsr_tensor *t, mview *v, tsr_tensor **packed)
{
    tsr_tensor *view = NULL;
    tsr_status st = tsr_tensor_as_strided(t, v->ndim, v->sizes, v->strides, v->offset, &view);
    if (st == TSR_OK)
        st = tsr_tensor_contiguous(view, TSR_CONTIGUOUS_FORMAT, packed);
    tsr_tensor_release(view);
    if (st != TSR_OK)
        return st;
    const tsr_geometry *g = &(*packed)->geometry;
    v->offset = g->offset;
    memcpy(v->strides, g->strides, sizeof(int64_t) * (size_t)g->ndim);
    return TSR_OK;
}

static tsr_status device_gemms(tsr__gemm_args *g, const tsr_tensor *t[3], mview *v[3])
{
    int nb = v[0]->ndim - 2;
    tsr__wire_gemm req = {.dtype = (uint32_t)g->dtype,
                          .flags = g->beta_zero ? TSR__WIRE_GEMM_BETA_ZERO : 0,
                          .m = g->m,
                          .n = g->n,
                          .k = g->k};
    memcpy(req.alpha, g->alpha, sizeof req.alpha);
    memcpy(req.beta, g->beta, sizeof req.beta);
    int64_t ms[3] = {g->m, g->m, g->k}, ns[3] = {g->n, g->k, g->n};
    for (int i = 0; i < 3; i++) {
        bool trans = false;
        req.handles[i] = t[i]->storage->handle;
        device_layout(ms[i], ns[i], v[i]->strides[nb], v[i]->strides[nb + 1], &trans, &req.ld[i]);
        if (trans)
            req.flags |= i == 1 ? TSR__WIRE_GEMM_TRANS_A : TSR__WIRE_GEMM_TRANS_B;
    }
    /* the last batch dim goes in one call where C's matrices lie apart */
    bool batched = nb > 0 && v[0]->strides[nb - 1] >= g->m * req.ld[0];
    int odometer = batched ? nb - 1 : nb;
    req.batch = batched ? v[0]->sizes[nb - 1] : 1;
    int64_t at[TSR_MAX_DIMS + 2] = {0};
    for (;;) {
        for (int i = 0; i < 3; i++) {
            req.offsets[i] = v[i]->offset;
            for (int d = 0; d < odometer; d++)
                req.offsets[i] += at[d] * v[i]->strides[d];
            req.bstride[i] = batched ? v[i]->strides[nb - 1] : 0;
        }
        tsr_status st =
            tsr__client_launch_op(t[0]->storage->client, t[0]->storage->device, TSR__OP_GEMM, &req);
        if (st != TSR_OK)
            return st;
        int d = odometer - 1;
        while (d >= 0 && ++at[d] == v[0]->sizes[d])
            at[d--] = 0;
        if (d < 0)
            return TSR_OK;
    }
}

/* beta, in its math type in g, as a Python number again (exact: a float
 * or double widens to double). */
static tsr_scalar beta_scalar(const tsr__gemm_args *g)
{
    if (!tsr_dtype_is_floating_point(g->dtype) && !tsr_dtype_is_complex(g->dtype)) {
        int64_t i;
        memcpy(&i, g->beta, sizeof i);
        return tsr_scalar_int(i);
    }
    if (g->dtype == TSR_FLOAT16 || g->dtype == TSR_BFLOAT16) {
        float f;
        memcpy(&f, g->beta, sizeof f);
        return tsr_scalar_float(f);
    }
    if (g->dtype == TSR_FLOAT32 || g->dtype == TSR_COMPLEX64) {
        float f[2] = {0, 0};
        memcpy(f, g->beta, g->dtype == TSR_FLOAT32 ? 4 : 8);
        return g->dtype == TSR_FLOAT32 ? tsr_scalar_float(f[0]) : tsr_scalar_complex(f[0], f[1]);
    }
    double d[2] = {0, 0};
    memcpy(d, g->beta, g->dtype == TSR_FLOAT64 ? 8 : 16);
    return g->dtype == TSR_FLOAT64 ? tsr_scalar_float(d[0]) : tsr_scalar_complex(d[0], d[1]);
}

static tsr_status device_product_into(const tsr_tensor *a, mview va, const tsr_tensor *b, mview vb,
                                      tsr_tensor *r, mview vc, tsr__gemm_args *g)
{
    int nb = va.ndim - 2;
    g->m = va.sizes[nb];
    g->k = va.sizes[nb + 1];
    g->n = vb.sizes[nb + 1];
    if (g->k == 0 || g->alpha_zero) /* C = beta * C, A and B unread */
        return g->beta_zero ? tsr_tensor_fill_(r, tsr_scalar_int(0))
                            : tsr_mul_scalar_(r, beta_scalar(g));
    if (!tsr__gemm_supports(g->dtype))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "matrix products in %s on %s devices are not available yet",
                         tsr_dtype_name(g->dtype), tsr_device_type_name(r->storage->device.type));
    tsr_tensor *packed[2] = {NULL, NULL};
    const tsr_tensor *t[3] = {r, a, b};
    mview *v[3] = {&vc, &va, &vb};
    mview *order[3] = {&va, &vb, &vc};
    coalesce(order, &g->m);
    tsr_status st = TSR_OK;
    for (int i = 1; i < 3 && st == TSR_OK; i++)
        if (!device_ready(v[i], false) && (st = device_pack(t[i], v[i], &packed[i - 1])) == TSR_OK)
            t[i] = packed[i - 1];
    if (st == TSR_OK)
        st = device_gemms(g, t, v);
    tsr_tensor_release(packed[0]);
    tsr_tensor_release(packed[1]);
    return st;
}

/* r (viewed as va's batch and m, vb's n) = alpha * a @ b + beta * r. */
static tsr_status product(const tsr_tensor *a, const mview *va, const tsr_tensor *b,
                          const mview *vb, tsr_tensor *r, tsr__gemm_args *g)
{
    mview shape = *va, vc;
    shape.sizes[shape.ndim - 1] = vb->sizes[vb->ndim - 1];
    bool shares = r->storage == a->storage || r->storage == b->storage;
    bool device = r->storage->device.type != TSR_DEVICE_CPU;
    if (!shares && result_mview(r, &shape, &vc) && (!device || device_ready(&vc, true)))
        return device ? device_product_into(a, *va, b, *vb, r, vc, g)
                      : product_into(a, *va, b, *vb, r, vc, g);
    tsr_tensor *tmp = NULL;
    tsr_geometry tg;
    tsr_status st =
        tsr_geometry_init(r->geometry.ndim, r->geometry.sizes, TSR_CONTIGUOUS_FORMAT, &tg);
    if (st == TSR_OK)
        st = tsr__tensor_alloc(r->storage->client, r->storage->device, r->dtype, &tg, false, &tmp);
    if (st == TSR_OK && !g->beta_zero)
        st = tsr__copy(tmp, r);
    if (st == TSR_OK && !result_mview(tmp, &shape, &vc))
        st = tsr__fail(TSR_ERR_RUNTIME, "internal: a contiguous result refused a view");
    if (st == TSR_OK)
        st = device ? device_product_into(a, *va, b, *vb, tmp, vc, g)
                    : product_into(a, *va, b, *vb, tmp, vc, g);
    if (st == TSR_OK)
        st = tsr__copy(r, tmp);
    tsr_tensor_release(tmp);
    return st;
}

/* ---- one operation, checked ---------------------------------------------------- */

/* What an operation hands to run(): its result's dtype and shape, the
 * dtype PyTorch dispatches on and the operand it then reads as that dtype
 * (a mismatch is "expected scalar type Float but found Double"), the
 * kernel's name for its refusals, and the product's operands. */
typedef struct job {
    const char *stub;
    tsr_dtype dtype, dispatch, other;
    bool checks_on_empty; /* dot checks its dtype even with nothing to compute */
    const tsr_scalar *alpha, *beta;
    const tsr_tensor *self; /* addmm: the input, expanded, that beta scales */
    const tsr_tensor *a, *b;
    mview va, vb;
    int ndim;
    int64_t shape[TSR_MAX_DIMS];
} job;

static tsr_status run(job *j, tsr_device dev, tsr_tensor *out, tsr_tensor **result)
{
    tsr_tensor *r = NULL;
    tsr_status st = make_result(dev, j->a->storage->client, j->dtype, j->ndim, j->shape, out, &r);
    if (st != TSR_OK)
        return st;
    int64_t k = j->va.sizes[j->va.ndim - 1];
    bool nothing = r->numel == 0 || k == 0;
    tsr__gemm_args g = {0};
    if (dev.type == TSR_DEVICE_META || (nothing && !j->checks_on_empty))
        st = TSR_OK;
    else if ((st = check_computes(j->stub, j->dispatch)) == TSR_OK)
        st = check_same_dtype(j->dispatch, j->other);
    if (st == TSR_OK && dev.type != TSR_DEVICE_META && r->numel != 0) {
        st = tsr__gemm_supports(j->dtype) ? gemm_scalars(j->dtype, j->alpha, j->beta, &g)
                                          : unit_scalars(j->dtype, &g);
        if (st == TSR_OK && j->self && !g.beta_zero)
            st = tsr__copy(r, j->self);
        if (st == TSR_OK)
            st = product(j->a, &j->va, j->b, &j->vb, r, &g);
    }
    if (st != TSR_OK || out) {
        tsr_tensor_release(r);
        return st;
    }
    *result = r;
    return TSR_OK;
}

static tsr_status need(const tsr_tensor *a, const tsr_tensor *b, const tsr_tensor *out,
                       tsr_tensor **result)
{
    if (a == NULL || b == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (out == NULL && result == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    return TSR_OK;
}

static const int64_t one_batch[1] = {1};

/* A tensor's geometry with its sizes replaced (a folded or transposed
 * operand, for the messages of the product PyTorch runs). */
static tsr_geometry sized(int ndim, int64_t s0, int64_t s1)
{
    tsr_geometry g = {.ndim = ndim};
    g.sizes[0] = s0;
    g.sizes[1] = s1;
    return g;
}

static tsr_status mm_job(const tsr_tensor *a, const tsr_geometry *ga, const tsr_tensor *b,
                         const tsr_tensor *out, job *j)
{
    tsr_status st = tsr__matmul_check_mm(ga, &b->geometry);
    if (st == TSR_OK)
        st = out_dtype(out, a->dtype);
    if (st != TSR_OK)
        return st;
    *j = (job){.stub = "addmm_impl_cpu_",
               .dtype = a->dtype,
               .dispatch = a->dtype,
               .other = b->dtype,
               .a = a,
               .b = b,
               .ndim = 2,
               .shape = {ga->sizes[0], b->geometry.sizes[1]}};
    to_mview(&a->geometry, a->geometry.ndim == 1 ? 1 : 2, true, 1, one_batch, &j->va);
    to_mview(&b->geometry, 2, false, 1, one_batch, &j->vb);
    return TSR_OK;
}

static tsr_status mm_op(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out,
                        tsr_tensor **result)
{
    tsr_device dev;
    job j;
    tsr_status st = need(a, b, out, result);
    if (st == TSR_OK)
        st = common_device((const tsr_tensor *[]){a, b, out}, 3, &dev);
    if (st == TSR_OK)
        st = mm_job(a, &a->geometry, b, out, &j);
    return st == TSR_OK ? run(&j, dev, out, result) : st;
}

/* PyTorch 1.13's bmm runs products under 400 multiply-adds in a loop of
 * its own, named bmm and dispatched on batch1's dtype; the others go
 * through addmm's, dispatched on the result's (batch2's) dtype. */
static void bmm_dispatch(job *j, int64_t m, int64_t n, int64_t k)
{
    bool small = m * n * k < 400;
    j->stub = small ? "bmm" : "addmm_impl_cpu_";
    j->dispatch = small ? j->a->dtype : j->b->dtype;
    j->other = small ? j->b->dtype : j->a->dtype;
}

static tsr_status bmm_op(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out,
                         tsr_tensor **result)
{
    tsr_device dev;
    tsr_status st = need(a, b, out, result);
    if (st == TSR_OK)
        st = common_device((const tsr_tensor *[]){a, b, out}, 3, &dev);
    if (st == TSR_OK)
        st = tsr__matmul_check_bmm(&a->geometry, &b->geometry);
    if (st == TSR_OK)
        st = out_dtype(out, b->dtype);
    if (st != TSR_OK)
        return st;
    const int64_t *as = a->geometry.sizes, *bs = b->geometry.sizes;
    job j = {.dtype = b->dtype, .a = a, .b = b, .ndim = 3, .shape = {as[0], as[1], bs[2]}};
    bmm_dispatch(&j, as[1], bs[2], as[2]);
    to_mview(&a->geometry, 2, false, 1, as, &j.va);
    to_mview(&b->geometry, 2, false, 1, as, &j.vb);
    return run(&j, dev, out, result);
}

static tsr_status dot_op(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out,
                         tsr_tensor **result)
{
    tsr_device dev;
    tsr_status st = need(a, b, out, result);
    if (st == TSR_OK)
        st = common_device((const tsr_tensor *[]){a, b, out}, 3, &dev);
    if (st == TSR_OK && out && out->dtype != a->dtype)
        st = tsr__fail(TSR_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                       tsr_dtype_message_name(out->dtype), tsr_dtype_message_name(a->dtype));
    if (st == TSR_OK)
        st = tsr__matmul_check_dot(a->dtype, &a->geometry, b->dtype, &b->geometry);
    if (st != TSR_OK)
        return st;
    job j = {.stub = "dot",
             .dtype = a->dtype,
             .dispatch = a->dtype,
             .other = b->dtype,
             .checks_on_empty = true,
             .a = a,
             .b = b};
    to_mview(&a->geometry, 1, true, 1, one_batch, &j.va);
    to_mview(&b->geometry, 1, false, 1, one_batch, &j.vb);
    return run(&j, dev, out, result);
}

/* mv's job for a matrix a (geometry ga: a's own, or a folded view's
 * sizes for the messages) and a vector. */
static tsr_status mv_job(const tsr_tensor *a, const tsr_geometry *ga, const tsr_tensor *v,
                         const tsr_tensor *out, job *j)
{
    tsr_status st = tsr__matmul_check_mv(ga, &v->geometry);
    if (st == TSR_OK)
        st = out_dtype(out, v->dtype);
    if (st != TSR_OK)
        return st;
    *j = (job){.stub = "addmv_impl_cpu",
               .dtype = v->dtype,
               .dispatch = a->dtype,
               .other = v->dtype,
               .a = a,
               .b = v,
               .ndim = 1,
               .shape = {ga->sizes[0]}};
    to_mview(&a->geometry, 2, false, 1, one_batch, &j->va);
    to_mview(&v->geometry, 1, false, 1, one_batch, &j->vb);
    return TSR_OK;
}

static tsr_status mv_op(const tsr_tensor *a, const tsr_tensor *v, tsr_tensor *out,
                        tsr_tensor **result)
{
    tsr_device dev;
    job j;
    tsr_status st = need(a, v, out, result);
    if (st == TSR_OK)
        st = common_device((const tsr_tensor *[]){a, v, out}, 3, &dev);
    if (st == TSR_OK)
        st = mv_job(a, &a->geometry, v, out, &j);
    return st == TSR_OK ? run(&j, dev, out, result) : st;
}

static tsr_status addmm_op(const tsr_tensor *self, const tsr_tensor *m1, const tsr_tensor *m2,
                           tsr_scalar beta, tsr_scalar alpha, bool inplace, tsr_tensor *out,
                           tsr_tensor **result)
{
    tsr_device dev;
    tsr_status st = need(m1, m2, out, result);
    if (st == TSR_OK && self == NULL)
        st = tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (st == TSR_OK)
        st = common_device((const tsr_tensor *[]){self, m1, m2, out}, 4, &dev);
    if (st == TSR_OK)
        st = tsr__matmul_check_addmm(self->dtype, m1->dtype, &m1->geometry, m2->dtype,
                                     &m2->geometry);
    if (st == TSR_OK)
        st = out_dtype(out, self->dtype);
    if (st != TSR_OK)
        return st;
    int64_t shape[2] = {m1->geometry.sizes[0], m2->geometry.sizes[1]};
    const tsr_geometry *gs = &self->geometry;
    if (inplace && (gs->ndim != 2 || memcmp(gs->sizes, shape, sizeof shape) != 0)) {
        char t1[TSR__DIMS_TEXT], t2[TSR__DIMS_TEXT];
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Bad in-place call: input tensor size %s and output tensor size %s "
                         "should match",
                         tsr__format_dims(t1, sizeof t1, gs->sizes, gs->ndim),
                         tsr__format_dims(t2, sizeof t2, shape, 2));
    }
    tsr_tensor *expanded = NULL;
    if ((st = tsr_tensor_expand(self, shape, 2, &expanded)) != TSR_OK)
        return st;
    job j = {.stub = "addmm_impl_cpu_",
             .dtype = self->dtype,
             .dispatch = self->dtype,
             .other = self->dtype,
             .alpha = &alpha,
             .beta = &beta,
             .self = expanded,
             .a = m1,
             .b = m2,
             .ndim = 2,
             .shape = {shape[0], shape[1]}};
    to_mview(&m1->geometry, 2, false, 1, one_batch, &j.va);
    to_mview(&m2->geometry, 2, false, 1, one_batch, &j.vb);
    st = run(&j, dev, out, result);
    tsr_tensor_release(expanded);
    return st;
}

static tsr_status outer_op(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out,
                           tsr_tensor **result)
{
    tsr_status st = need(a, b, out, result);
    if (st == TSR_OK)
        st = tsr__matmul_check_outer(&a->geometry, &b->geometry);
    tsr_tensor *column = NULL;
    if (st == TSR_OK)
        st = tsr_tensor_unsqueeze(a, 1, &column);
    if (st == TSR_OK)
        st = out ? tsr_mul_out(column, b, out) : tsr_mul(column, b, result);
    tsr_tensor_release(column);
    return st;
}

/* ---- matmul ---------------------------------------------------------------------- */

/* >=3-D a against a matrix or a vector b: PyTorch folds a's batch into
 * the rows of one mm (mv), whose messages it reports. */
static tsr_status fold_job(const tsr_tensor *a, const tsr_tensor *b, const tsr__matmul_plan *p,
                           const tsr_tensor *out, job *j)
{
    const tsr_geometry *g = &a->geometry;
    int64_t rows = 1;
    for (int d = 0; d < g->ndim - 1; d++)
        rows *= g->sizes[d];
    tsr_geometry folded = sized(2, rows, g->sizes[g->ndim - 1]);
    tsr_status st = b->geometry.ndim == 2 ? tsr__matmul_check_mm(&folded, &b->geometry)
                                          : tsr__matmul_check_mv(&folded, &b->geometry);
    tsr_dtype dtype = b->geometry.ndim == 2 ? a->dtype : b->dtype;
    if (st == TSR_OK)
        st = out_dtype(out, dtype);
    if (st != TSR_OK)
        return st;
    *j = (job){.stub = b->geometry.ndim == 2 ? "addmm_impl_cpu_" : "addmv_impl_cpu",
               .dtype = dtype,
               .dispatch = a->dtype,
               .other = b->dtype,
               .a = a,
               .b = b,
               .ndim = p->out_ndim};
    memcpy(j->shape, p->out_sizes, sizeof(int64_t) * (size_t)p->out_ndim);
    to_mview(g, 2, false, g->ndim - 2, g->sizes, &j->va);
    to_mview(&b->geometry, b->geometry.ndim, false, g->ndim - 2, g->sizes, &j->vb);
    return TSR_OK;
}

/* 1-D or 2-D a against >=3-D b: the same fold on the transposed problem
 * (b^T's batch into the rows of mm(b^T, a^T), or mv(b^T, a)). */
static tsr_status fold_t_job(const tsr_tensor *a, const tsr_tensor *b, const tsr__matmul_plan *p,
                             const tsr_tensor *out, job *j)
{
    const tsr_geometry *g = &b->geometry;
    int64_t rows = g->sizes[g->ndim - 1];
    for (int d = 0; d < g->ndim - 2; d++)
        rows *= g->sizes[d];
    tsr_geometry folded = sized(2, rows, g->sizes[g->ndim - 2]);
    bool matrix = a->geometry.ndim == 2;
    tsr_geometry at =
        sized(matrix ? 2 : 1, a->geometry.sizes[matrix ? 1 : 0], a->geometry.sizes[0]);
    tsr_status st =
        matrix ? tsr__matmul_check_mm(&folded, &at) : tsr__matmul_check_mv(&folded, &at);
    tsr_dtype dtype = matrix ? b->dtype : a->dtype;
    if (st == TSR_OK)
        st = out_dtype(out, dtype);
    if (st != TSR_OK)
        return st;
    *j = (job){.stub = matrix ? "addmm_impl_cpu_" : "addmv_impl_cpu",
               .dtype = dtype,
               .dispatch = b->dtype,
               .other = a->dtype,
               .a = a,
               .b = b,
               .ndim = p->out_ndim};
    memcpy(j->shape, p->out_sizes, sizeof(int64_t) * (size_t)p->out_ndim);
    to_mview(&a->geometry, a->geometry.ndim, true, g->ndim - 2, g->sizes, &j->va);
    to_mview(g, 2, false, g->ndim - 2, g->sizes, &j->vb);
    return TSR_OK;
}

/* Batch dims broadcast, then bmm over (batch, n, m1) and (batch, m2, p). */
static tsr_status batch_job(const tsr_tensor *a, const tsr_tensor *b, const tsr__matmul_plan *p,
                            const tsr_tensor *out, job *j)
{
    int64_t batch = 1;
    for (int d = 0; d < p->batch_ndim; d++)
        batch *= p->batch[d];
    tsr_geometry e1 = {.ndim = 3, .sizes = {batch, p->n, p->m1}};
    tsr_geometry e2 = {.ndim = 3, .sizes = {batch, p->m2, p->p}};
    tsr_status st = tsr__matmul_check_bmm(&e1, &e2);
    if (st == TSR_OK)
        st = out_dtype(out, b->dtype);
    if (st != TSR_OK)
        return st;
    *j = (job){.dtype = b->dtype, .a = a, .b = b, .ndim = p->out_ndim};
    bmm_dispatch(j, p->n, p->p, p->m1);
    memcpy(j->shape, p->out_sizes, sizeof(int64_t) * (size_t)p->out_ndim);
    int da = a->geometry.ndim, db = b->geometry.ndim;
    to_mview(&a->geometry, da > 1 ? 2 : 1, true, p->batch_ndim, p->batch, &j->va);
    to_mview(&b->geometry, db > 1 ? 2 : 1, false, p->batch_ndim, p->batch, &j->vb);
    return TSR_OK;
}

static tsr_status matmul_op(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out,
                            tsr_tensor **result)
{
    tsr__matmul_plan p;
    tsr_status st = need(a, b, out, result);
    if (st == TSR_OK)
        st = tsr__matmul_plan_for(&a->geometry, &b->geometry, &p);
    if (st != TSR_OK)
        return st;
    switch (p.path) {
    case TSR__MATMUL_DOT:
        return dot_op(a, b, out, result);
    case TSR__MATMUL_MV:
        return mv_op(a, b, out, result);
    case TSR__MATMUL_MM:
        return mm_op(a, b, out, result);
    default:
        break;
    }
    tsr_device dev;
    job j;
    if ((st = common_device((const tsr_tensor *[]){a, b, out}, 3, &dev)) != TSR_OK)
        return st;
    if (p.path == TSR__MATMUL_ROW_MM) {
        tsr_geometry row = sized(2, 1, a->geometry.sizes[0]);
        st = mm_job(a, &row, b, out, &j);
        j.ndim = 1;
        j.shape[0] = j.shape[1];
    } else if (p.path == TSR__MATMUL_FOLD) {
        st = fold_job(a, b, &p, out, &j);
    } else if (p.path == TSR__MATMUL_FOLD_T) {
        st = fold_t_job(a, b, &p, out, &j);
    } else {
        st = batch_job(a, b, &p, out, &j);
    }
    return st == TSR_OK ? run(&j, dev, out, result) : st;
}

/* ---- the public functions ---------------------------------------------------------- */

#define PRODUCT_API(name)                                                                  \
    tsr_status tsr_##name(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor **result)   \
    {                                                                                      \
        return name##_op(a, b, NULL, result);                                              \
    }                                                                                      \
    tsr_status tsr_##name##_out(const tsr_tensor *a, const tsr_tensor *b, tsr_tensor *out) \
    {                                                                                      \
        if (out == NULL)                                                                   \
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");         \
        return name##_op(a, b, out, NULL);                                                 \
    }

PRODUCT_API(mm)
PRODUCT_API(bmm)
PRODUCT_API(dot)
PRODUCT_API(mv)
PRODUCT_API(outer)
PRODUCT_API(matmul)

tsr_status tsr_addmm(const tsr_tensor *self, const tsr_tensor *mat1, const tsr_tensor *mat2,
                     tsr_scalar beta, tsr_scalar alpha, tsr_tensor **result)
{
    return addmm_op(self, mat1, mat2, beta, alpha, false, NULL, result);
}

tsr_status tsr_addmm_out(const tsr_tensor *self, const tsr_tensor *mat1, const tsr_tensor *mat2,
                         tsr_scalar beta, tsr_scalar alpha, tsr_tensor *out)
{
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    return addmm_op(self, mat1, mat2, beta, alpha, false, out, NULL);
}

tsr_status tsr_addmm_(tsr_tensor *self, const tsr_tensor *mat1, const tsr_tensor *mat2,
                      tsr_scalar beta, tsr_scalar alpha)
{
    if (self == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    return addmm_op(self, mat1, mat2, beta, alpha, true, self, NULL);
}
