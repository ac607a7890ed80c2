/* The reductions (tessera/ops.h, "Reductions"): PyTorch 1.13's checks,
 * in its order and with its messages, then one tsr__kernel per call
 * (core/kernel.h, "A reduction") that the cpu runs in
 * kernels/reduce_order.h's order, split over the thread pool in ways that
 * never change a bit (kernels/cpu_reduce.h). Meta tensors get shapes and
 * dtypes; accelerator tensors send the same descriptor to the daemon,
 * whose devices compute it in the same order (their reduction programs:
 * docs/architecture.md, "Reductions"). */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/error.h"
#include "kernels/cpu_reduce.h"
#include "libclient/client.h"
#include "libclient/plan.h"
#include "kernels/cpu_exec.h"
#include "tessera/ops.h"

/* Below this many input elements a reduction runs on the calling thread. */

typedef struct request {
    tsr__kernel_op op;
    const tsr__kernel_op_info *info;
    const char *name; /* the op's name in messages: "sum", "max" */
    const tsr_tensor *a;
    const int64_t *dims;
    int ndims;
    bool keepdim;
    tsr_dtype dtype;        /* dtype=, or TSR_NO_DTYPE */
    tsr_tensor *out, *out2; /* out= (values, indices), or NULL */
} request;

tsr_status tsr__expect_out_dtype(const tsr_tensor *t, tsr_dtype want)
{
    if (t->dtype == want)
        return TSR_OK;
    return tsr__fail(TSR_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                     tsr__dtype_cpp_name(want), tsr__dtype_cpp_name(t->dtype));
}

static bool is_integer_or_bool(tsr_dtype d)
{
    return d == TSR_BOOL || tsr_dtype_is_integral(d);
}

/* Whether the reduction computes in `d` (its row's dtype columns). */
static tsr_status check_compute(const request *q, tsr_dtype d)
{
    uint32_t f = q->info->flags, want;
    switch (d) {
    case TSR_BOOL:
        want = TSR__KOPF_BOOL;
        break;
    case TSR_UINT8:
    case TSR_INT8:
    case TSR_INT16:
    case TSR_INT32:
    case TSR_INT64:
        want = TSR__KOPF_INT;
        break;
    case TSR_FLOAT16:
        want = (f & TSR__KOPF_NO_HALF) ? 0 : TSR__KOPF_FLOAT;
        break;
    case TSR_BFLOAT16:
        want = (f & TSR__KOPF_NO_BFLOAT16) ? 0 : TSR__KOPF_FLOAT;
        break;
    case TSR_FLOAT32:
    case TSR_FLOAT64:
        want = TSR__KOPF_FLOAT;
        break;
    case TSR_COMPLEX32:
        want = TSR__KOPF_COMPLEX32;
        break;
    case TSR_COMPLEX64:
    case TSR_COMPLEX128:
        want = TSR__KOPF_COMPLEX;
        break;
    default:
        want = 0;
    }
    if (want && (f & want))
        return TSR_OK;
    return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'", q->info->stub,
                     tsr_dtype_message_name(d));
}

/* ---- dims ----------------------------------------------------------------- */

tsr_status tsr__reduced_dims(const tsr_tensor *a, const int64_t *dims, int ndims,
                             bool mask[TSR_MAX_DIMS])
{
    int nd = a->geometry.ndim, wrap = nd > 0 ? nd : 1;
    memset(mask, 0, sizeof(bool) * TSR_MAX_DIMS);
    if (ndims == 0) {
        for (int d = 0; d < nd; d++)
            mask[d] = true;
        return TSR_OK;
    }
    bool seen[TSR_MAX_DIMS] = {false};
    for (int i = 0; i < ndims; i++) {
        int64_t d = dims[i];
        if (d < -wrap || d >= wrap)
            return tsr__fail(TSR_ERR_INDEX,
                             "Dimension out of range (expected to be in range of [%d, %d], but "
                             "got %lld)",
                             -wrap, wrap - 1, (long long)d);
        int w = (int)(d < 0 ? d + wrap : d);
        if (seen[w])
            return tsr__fail(TSR_ERR_RUNTIME, "dim %d appears multiple times in the list of dims",
                             w);
        seen[w] = true;
        if (nd > 0)
            mask[w] = true;
    }
    return TSR_OK;
}

/* The reduced dimensions of q->a: mask[d]. */
static tsr_status reduced_dims(const request *q, bool mask[TSR_MAX_DIMS])
{
    return tsr__reduced_dims(q->a, q->dims, q->ndims, mask);
}

/* amax(), argmax(), max() of an empty dimension. */
static tsr_status check_nonempty(const request *q, const bool mask[TSR_MAX_DIMS])
{
    const tsr_geometry *g = &q->a->geometry;
    if (q->a->numel != 0)
        return TSR_OK;
    if (q->ndims == 0) {
        if (q->info->flags & TSR__KOPF_INDEX)
            return tsr__fail(TSR_ERR_INDEX,
                             "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                             q->name);
        return tsr__fail(TSR_ERR_RUNTIME,
                         "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.",
                         q->name);
    }
    for (int i = 0; i < q->ndims; i++) {
        int64_t d = q->dims[i];
        int w = (int)(d < 0 ? d + g->ndim : d);
        if (g->ndim > 0 && mask[w] && g->sizes[w] == 0)
            return tsr__fail(TSR_ERR_INDEX,
                             "%s(): Expected reduction dim %lld to have non-zero size.", q->name,
                             (long long)d);
    }
    return TSR_OK;
}

/* ---- dtypes ---------------------------------------------------------------- */

/* The dtype the elements reduce in and the result's dtype (PyTorch's
 * rules per reduction, out= included), checking out='s dtypes. */
static tsr_status decide_dtypes(request *q, tsr_dtype *common, tsr_dtype *result)
{
    tsr_dtype in = q->a->dtype;
    uint32_t f = q->info->flags;
    tsr_status st;
    if ((f & TSR__KOPF_MEAN) && (f & TSR__KOPF_SKIP_NAN) && !tsr_dtype_is_floating_point(in))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "%s(): expected input to have floating point dtype but got %s", q->name,
                         tsr_dtype_message_name(in));
    if ((f & TSR__KOPF_MEAN) && !(f & TSR__KOPF_SKIP_NAN)) {
        /* mean: the dtype it infers, dtype= first */
        bool given = q->dtype != TSR_NO_DTYPE;
        tsr_dtype d = given ? q->dtype : in;
        if (!tsr_dtype_is_floating_point(d) && !tsr_dtype_is_complex(d))
            return tsr__fail(TSR_ERR_RUNTIME,
                             "%s(): could not infer output dtype. %s dtype must be either a "
                             "floating point or complex dtype. Got: %s",
                             q->name, given ? "Optional" : "Input", tsr_dtype_message_name(d));
    }
    if (f & TSR__KOPF_DTYPE_ARG) {
        /* nansum of integers is their sum (PyTorch calls sum) */
        if ((f & TSR__KOPF_SKIP_NAN) && !(f & TSR__KOPF_MEAN) && is_integer_or_bool(in)) {
            q->op = TSR__KOP_SUM;
            q->info = &tsr__kernel_ops[TSR__KOP_SUM];
        }
        if (q->dtype != TSR_NO_DTYPE && q->out && (st = tsr__expect_out_dtype(q->out, q->dtype)) != TSR_OK)
            return st;
        *common = q->dtype != TSR_NO_DTYPE                                ? q->dtype
                  : q->out                                                ? q->out->dtype
                  : (f & TSR__KOPF_INT_TO_LONG) && is_integer_or_bool(in) ? TSR_INT64
                                                                          : in;
        if ((f & TSR__KOPF_MEAN) && !(f & TSR__KOPF_SKIP_NAN) && is_integer_or_bool(*common))
            return tsr__fail(
                TSR_ERR_RUNTIME, "result type %s can't be cast to the desired output type %s",
                tsr_dtype_message_name(tsr_get_default_dtype()), tsr_dtype_message_name(*common));
        /* nanmean into integers: nansum refuses them, unless no element
         * runs it; then the count divides as true division (NaN) */
        if ((f & TSR__KOPF_MEAN) && (f & TSR__KOPF_SKIP_NAN) && is_integer_or_bool(*common) &&
            q->a->numel == 0 && !q->out)
            *common = tsr_get_default_dtype();
        *result = *common;
        return TSR_OK;
    }
    if (f & TSR__KOPF_BOOL_RESULT) { /* all, any */
        if (q->out && q->out->dtype != TSR_BOOL && q->out->dtype != TSR_UINT8)
            return tsr__fail(TSR_ERR_RUNTIME, "%s only supports bool tensor for result, got: %s",
                             q->name, tsr_dtype_message_name(q->out->dtype));
        *common = TSR_BOOL;
        *result = q->out ? q->out->dtype : in == TSR_UINT8 ? TSR_UINT8 : TSR_BOOL;
        return TSR_OK;
    }
    *common = in;
    if (f & TSR__KOPF_INDEX) {
        if (q->out && (st = tsr__expect_out_dtype(q->out, TSR_INT64)) != TSR_OK)
            return st;
        *result = TSR_INT64;
        return TSR_OK;
    }
    if (f & TSR__KOPF_INDICES) {
        if (q->out && ((st = tsr__expect_out_dtype(q->out, in)) != TSR_OK ||
                       (st = tsr__expect_out_dtype(q->out2, TSR_INT64)) != TSR_OK))
            return st;
    } else if (q->out && q->out->dtype != in) {
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected the dtype for input and out to match, but got %s for input's "
                         "dtype and %s for out's dtype.",
                         tsr_dtype_message_name(in), tsr_dtype_message_name(q->out->dtype));
    }
    *result = in;
    return TSR_OK;
}

/* ---- outputs ------------------------------------------------------------------ */

tsr_status tsr__fit_reduction_out(tsr_tensor *out, const tsr_geometry *want)
{
    if (tsr__has_internal_overlap(&out->geometry))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
    const tsr_geometry *g = &out->geometry;
    if (g->ndim == want->ndim &&
        memcmp(g->sizes, want->sizes, sizeof(int64_t) * (size_t)want->ndim) == 0)
        return TSR_OK;
    tsr_tensor *fresh = NULL;
    tsr_status st = tsr__tensor_alloc(out->storage->client, out->storage->device, out->dtype, want,
                                      false, &fresh);
    if (st != TSR_OK)
        return st;
    tsr__plan_adopt_storage(out, fresh);
    return TSR_OK;
}

/* Strides of output `t` over the input's dimensions: 0 where reduced. */
static void output_strides(const tsr_tensor *t, const bool mask[TSR_MAX_DIMS], int nd, bool keepdim,
                           int64_t *strides)
{
    int r = 0;
    for (int d = 0; d < nd; d++) {
        if (mask[d]) {
            strides[d] = 0;
            r += keepdim;
        } else {
            strides[d] = t->geometry.strides[r++];
        }
    }
}

/* ---- the kernel --------------------------------------------------------- */

/* Orders and merges the dimensions (core/kernel.h, "A reduction"): kept
 * ones first, outermost input stride first, merged where every operand
 * allows; then the reduced ones in their logical order, merged where the
 * input keeps them row-major. */
static void coalesce(tsr__kernel *k)
{
    int nd = k->ndim, nops = (int)k->noperands, n = 0;
    int order[TSR_MAX_DIMS], nk = 0;
    bool empty = false;
    for (int d = 0; d < nd; d++)
        empty |= k->sizes[d] == 0;
    for (int d = 0; d < nd; d++)
        if (k->operands[0].strides[d] != 0 || k->sizes[d] <= 1)
            order[nk++] = d;
    /* insertion sort by |input stride|, descending (stable) */
    for (int i = 1; i < nk; i++)
        for (int j = i; j > 0; j--) {
            int64_t a = llabs(k->operands[1].strides[order[j - 1]]);
            int64_t b = llabs(k->operands[1].strides[order[j]]);
            if (a >= b)
                break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int nall = nk;
    for (int d = 0; d < nd; d++)
        if (!(k->operands[0].strides[d] != 0 || k->sizes[d] <= 1))
            order[nall++] = d;
    int64_t sizes[TSR_MAX_DIMS], st[TSR__KERNEL_MAX_OPERANDS][TSR_MAX_DIMS];
    bool reduced[TSR_MAX_DIMS];
    for (int i = 0; i < nall; i++) {
        int d = order[i];
        int64_t size = k->sizes[d];
        bool red = i >= nk;
        if (size == 1 && !empty)
            continue;
        bool merge = n > 0 && reduced[n - 1] == red;
        for (int op = 0; op < nops && merge; op++)
            merge = st[op][n - 1] == k->operands[op].strides[d] * size;
        if (merge) {
            sizes[n - 1] *= size;
            for (int op = 0; op < nops; op++)
                st[op][n - 1] = k->operands[op].strides[d];
            continue;
        }
        sizes[n] = size;
        reduced[n] = red;
        for (int op = 0; op < nops; op++)
            st[op][n] = k->operands[op].strides[d];
        n++;
    }
    k->ndim = n;
    memcpy(k->sizes, sizes, sizeof(int64_t) * (size_t)n);
    for (int op = 0; op < nops; op++)
        memcpy(k->operands[op].strides, st[op], sizeof(int64_t) * (size_t)n);
}

/* ---- the one entry of every reduction -------------------------------------- */

/* The arguments, and the devices: cpu and meta compute here, the others
 * in the daemon; out= on the input's device. */
static tsr_status check_request(const request *q, bool want_result, bool want_result2)
{
    bool pair = (q->info->flags & TSR__KOPF_INDICES) != 0;
    if (q->a == NULL || (q->ndims > 0 && q->dims == NULL) || q->ndims < 0 ||
        q->ndims > TSR_MAX_DIMS || (!q->out && !want_result) ||
        (pair && !q->out && !want_result2) || (pair && q->out && !q->out2))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output arguments must not be NULL");
    if ((q->info->flags & TSR__KOPF_ONE_DIM) && q->ndims > 1)
        return tsr__fail(TSR_ERR_TYPE, "%s(): argument 'dim' must be int, not a list of %d",
                         q->name, q->ndims);
    if (q->dtype != TSR_NO_DTYPE && !tsr_dtype_is_valid(q->dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)q->dtype);
    tsr_device device = q->a->storage->device;
    const tsr_tensor *o = q->out && !tsr_device_equal(q->out->storage->device, device)     ? q->out
                          : q->out2 && !tsr_device_equal(q->out2->storage->device, device) ? q->out2
                                                                                           : NULL;
    if (o) {
        char d1[TSR_DEVICE_STR_MAX], d2[TSR_DEVICE_STR_MAX];
        tsr_device_str(device, d1, sizeof d1);
        tsr_device_str(o->storage->device, d2, sizeof d2);
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected all tensors to be on the same device, but found at least two "
                         "devices, %s and %s!",
                         d1, d2);
    }
    return TSR_OK;
}

/* PyTorch's checks of dims, empty reductions and dtypes, in its order:
 * the reduced dimensions, the dtype the elements combine in and the
 * result's; *trivial for argmax/argmin along a dimension of size 1, which
 * PyTorch answers with zeros before any kernel (so checks no dtype). */
static tsr_status check_semantics(request *q, bool mask[TSR_MAX_DIMS], tsr_dtype *common,
                                  tsr_dtype *rdtype, bool *trivial)
{
    const tsr_tensor *a = q->a;
    const tsr_geometry *g = &a->geometry;
    tsr_status st;
    if ((st = reduced_dims(q, mask)) != TSR_OK)
        return st;
    if ((q->info->flags & TSR__KOPF_NONEMPTY) && (st = check_nonempty(q, mask)) != TSR_OK)
        return st;
    const char *msg = tsr_dtype_is_complex(a->dtype) ? q->info->no_complex : NULL;
    if (msg)
        return tsr__fail(TSR_ERR_RUNTIME, "%s", msg);
    if ((st = decide_dtypes(q, common, rdtype)) != TSR_OK)
        return st;
    uint32_t f = q->info->flags; /* nansum of integers became sum */
    *trivial = (f & TSR__KOPF_INDEX) && q->ndims == 1 && g->ndim > 0 &&
               g->sizes[q->dims[0] < 0 ? q->dims[0] + g->ndim : q->dims[0]] == 1;
    if (a->storage->device.type == TSR_DEVICE_META)
        return TSR_OK; /* no kernel, no dtype check */
    /* PyTorch checks the dtype where its kernel runs: not for an empty
     * input */
    if (a->numel > 0 && !*trivial &&
        (st = check_compute(q, (f & TSR__KOPF_BOOL_RESULT) ? a->dtype : *common)) != TSR_OK)
        return st;
    if (a->numel == 0 && (f & TSR__KOPF_MEAN) && *common == TSR_COMPLEX32)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"div_cpu\" not implemented for 'ComplexHalf'");
    return TSR_OK;
}

/* The outputs: out= fitted to the result's shape, or new contiguous ones
 * (fresh, fresh2: the caller's to release on failure). */
static tsr_status make_outputs(const request *q, const bool mask[TSR_MAX_DIMS], tsr_dtype rdtype,
                               tsr_tensor **out, tsr_tensor **out2, tsr_tensor **fresh,
                               tsr_tensor **fresh2)
{
    const tsr_geometry *g = &q->a->geometry;
    tsr_geometry rg = {.ndim = 0};
    for (int d = 0; d < g->ndim; d++)
        if (!mask[d] || q->keepdim)
            rg.sizes[rg.ndim++] = mask[d] ? 1 : g->sizes[d];
    tsr_strides_for(rg.ndim, rg.sizes, TSR_CONTIGUOUS_FORMAT, rg.strides);
    tsr_status st;
    if (q->out) {
        *out = q->out;
        *out2 = q->out2;
        if ((st = tsr__fit_reduction_out(*out, &rg)) != TSR_OK)
            return st;
        return *out2 ? tsr__fit_reduction_out(*out2, &rg) : TSR_OK;
    }
    tsr_client *client = q->a->storage->client;
    tsr_device device = q->a->storage->device;
    if ((st = tsr__tensor_alloc(client, device, rdtype, &rg, false, fresh)) != TSR_OK)
        return st;
    if ((q->info->flags & TSR__KOPF_INDICES) &&
        (st = tsr__tensor_alloc(client, device, TSR_INT64, &rg, false, fresh2)) != TSR_OK)
        return st;
    *out = *fresh;
    *out2 = *fresh2;
    return TSR_OK;
}

static tsr_status reduce(request *q, tsr_tensor **result, tsr_tensor **result2)
{
    tsr_status st;
    bool mask[TSR_MAX_DIMS], trivial = false;
    tsr_dtype common = TSR_FLOAT32, rdtype = TSR_FLOAT32;
    if ((st = check_request(q, result != NULL, result2 != NULL)) != TSR_OK ||
        (st = check_semantics(q, mask, &common, &rdtype, &trivial)) != TSR_OK)
        return st;
    tsr_tensor *fresh = NULL, *fresh2 = NULL, *out = NULL, *out2 = NULL;
    if ((st = make_outputs(q, mask, rdtype, &out, &out2, &fresh, &fresh2)) == TSR_OK &&
        (st = tsr__tensor_writable(out)) == TSR_OK &&
        (!out2 || (st = tsr__tensor_writable(out2)) == TSR_OK)) {
        /* the kernel: the input's dimensions, the output's strides 0
         * where reduced */
        const tsr_geometry *g = &q->a->geometry;
        tsr__kernel k = {.op = q->op, .common = common, .ndim = g->ndim, .noperands = out2 ? 3 : 2};
        unsigned char *host[TSR__KERNEL_MAX_OPERANDS] = {NULL};
        memcpy(k.sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim);
        const tsr_tensor *ops[3] = {out, q->a, out2};
        for (uint32_t i = 0; i < k.noperands; i++) {
            tsr__kernel_operand *o = &k.operands[i];
            o->dtype = ops[i]->dtype;
            o->handle = ops[i]->storage->handle;
            o->offset = ops[i]->geometry.offset;
            if (i == 1)
                memcpy(o->strides, g->strides, sizeof(int64_t) * (size_t)g->ndim);
            else
                output_strides(ops[i], mask, g->ndim, q->keepdim, o->strides);
            host[i] = ops[i]->storage->data;
        }
        coalesce(&k);
        tsr_scalar zero = {.kind = TSR_INT64};
        tsr_device_type type = q->a->storage->device.type;
        if (trivial && type != TSR_DEVICE_META)
            st = tsr__fill(out, zero);
        else if (type == TSR_DEVICE_CPU)
            st = tsr__host_reduce(&k, host, 0);
        else if (type != TSR_DEVICE_META)
            st = tsr__client_launch(q->a->storage->client, q->a->storage->device, &k);
    }
    if (st != TSR_OK) {
        tsr_tensor_release(fresh);
        tsr_tensor_release(fresh2);
        return st;
    }
    if (result)
        *result = fresh;
    if (result2)
        *result2 = fresh2;
    return TSR_OK;
}

static tsr_status reduce_call(tsr__kernel_op op, const tsr_tensor *a, const int64_t *dims,
                              int ndims, bool keepdim, tsr_dtype dtype, tsr_tensor *out,
                              tsr_tensor **result)
{
    request q = {.op = op,
                 .info = &tsr__kernel_ops[op],
                 .name = tsr__kernel_ops[op].name,
                 .a = a,
                 .dims = dims,
                 .ndims = ndims,
                 .keepdim = keepdim,
                 .dtype = dtype,
                 .out = out};
    return reduce(&q, out ? NULL : result, NULL);
}

/* The public functions of the op table's REDUCE and REDUCE_DTYPE rows. */
#define REDUCE_OP(name, OP)                                                                        \
    tsr_status tsr_##name(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,       \
                          tsr_tensor **result)                                                     \
    {                                                                                              \
        return reduce_call(OP, a, dims, ndims, keepdim, TSR_NO_DTYPE, NULL, result);               \
    }                                                                                              \
    tsr_status tsr_##name##_out(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim, \
                                tsr_tensor *out)                                                   \
    {                                                                                              \
        if (out == NULL)                                                                           \
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");                 \
        return reduce_call(OP, a, dims, ndims, keepdim, TSR_NO_DTYPE, out, NULL);                  \
    }
#define REDUCE_DTYPE_OP(name, OP)                                                                  \
    tsr_status tsr_##name(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim,       \
                          tsr_dtype dtype, tsr_tensor **result)                                    \
    {                                                                                              \
        return reduce_call(OP, a, dims, ndims, keepdim, dtype, NULL, result);                      \
    }                                                                                              \
    tsr_status tsr_##name##_out(const tsr_tensor *a, const int64_t *dims, int ndims, bool keepdim, \
                                tsr_dtype dtype, tsr_tensor *out)                                  \
    {                                                                                              \
        if (out == NULL)                                                                           \
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");                 \
        return reduce_call(OP, a, dims, ndims, keepdim, dtype, out, NULL);                         \
    }
#define API_INTERNAL(name, OP)
#define API_HAND(name, OP)
#define API_TENSOR(name, OP)
#define API_SCALAR(name, OP)
#define API_UNARY(name, OP)
#define API_REDUCE(name, OP) REDUCE_OP(name, OP)
#define API_REDUCE_DTYPE(name, OP) REDUCE_DTYPE_OP(name, OP)
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) \
    API_##api(name, TSR__KOP_##ENUM)
#include "core/ops.def"
#undef X

/* max/min with a dim: values and indices. */
static tsr_status minmax_dim(tsr__kernel_op op, const tsr_tensor *a, int64_t dim, bool keepdim,
                             tsr_tensor *values_out, tsr_tensor *indices_out, tsr_tensor **values,
                             tsr_tensor **indices)
{
    request q = {.op = op,
                 .info = &tsr__kernel_ops[op],
                 .name = tsr__kernel_ops[op].name,
                 .a = a,
                 .dims = &dim,
                 .ndims = 1,
                 .keepdim = keepdim,
                 .dtype = TSR_NO_DTYPE,
                 .out = values_out,
                 .out2 = indices_out};
    if (values_out || indices_out) {
        if (!values_out || !indices_out)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
        return reduce(&q, NULL, NULL);
    }
    return reduce(&q, values, indices);
}

#define MINMAX_DIM(name, OP)                                                        \
    tsr_status tsr_##name##_dim(const tsr_tensor *a, int64_t dim, bool keepdim,     \
                                tsr_tensor **values, tsr_tensor **indices)          \
    {                                                                               \
        return minmax_dim(OP, a, dim, keepdim, NULL, NULL, values, indices);        \
    }                                                                               \
    tsr_status tsr_##name##_dim_out(const tsr_tensor *a, int64_t dim, bool keepdim, \
                                    tsr_tensor *values, tsr_tensor *indices)        \
    {                                                                               \
        if (!values || !indices)                                                    \
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");  \
        return minmax_dim(OP, a, dim, keepdim, values, indices, NULL, NULL);        \
    }
MINMAX_DIM(max, TSR__KOP_MAX_DIM)
MINMAX_DIM(min, TSR__KOP_MIN_DIM)
