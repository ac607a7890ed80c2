/* The elementwise planner (see plan.h): PyTorch 1.13's TensorIterator
 * for binary operations and copies, in its order of checks and with its
 * messages, ending in a tsr__kernel that runs on the operands' device.
 *
 * Operands are numbered as in the kernel: 0 the output, 1 to 3 the
 * inputs. An input is a tensor or a scalar: a Python number always, and
 * a zero-dim cpu tensor when the operation runs on another device (its
 * value is read here and travels in the kernel). */
#include "libclient/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/cpu_exec.h"
#include "kernels/kernels.h"
#include "kernels/launch.h"
#include "libclient/client.h"

/* ---- operands --------------------------------------------------------- */

typedef struct operand {
    const tsr_tensor *t; /* NULL: a Python scalar, or no operand */
    bool scalar;         /* travels by value (kernel scalar, or alpha for a second one) */
    bool condition;      /* where's condition: bool or uint8, outside the promotion */
    tsr_scalar number;   /* the Python scalar when t is NULL */
} operand;

static bool is_cpu_scalar(const tsr_tensor *t)
{
    return t->geometry.ndim == 0 && t->storage->device.type == TSR_DEVICE_CPU;
}

static const char *device_text(tsr_device d, char *buf, size_t n)
{
    tsr_device_str(d, buf, n);
    return buf;
}

static tsr_status shape_mismatch(const tsr_geometry *out, int ndim, const int64_t *shape)
{
    char t1[TSR__DIMS_TEXT], t2[TSR__DIMS_TEXT];
    return tsr__fail(TSR_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                     tsr__format_dims(t1, sizeof t1, out->sizes, out->ndim),
                     tsr__format_dims(t2, sizeof t2, shape, ndim));
}

/* ---- memory overlap (ATen's MemOverlap) -------------------------------- */

typedef enum overlap { OVERLAP_NO, OVERLAP_FULL, OVERLAP_PARTIAL, OVERLAP_TOO_HARD } overlap;

static overlap overlap_status(const tsr_tensor *a, const tsr_tensor *b)
{
    if (a == b)
        return OVERLAP_FULL;
    if (a->numel == 0 || b->numel == 0)
        return OVERLAP_NO;
    const tsr_geometry *ga = &a->geometry, *gb = &b->geometry;
    if (!tsr_is_non_overlapping_and_dense(ga->ndim, ga->sizes, ga->strides) ||
        !tsr_is_non_overlapping_and_dense(gb->ndim, gb->sizes, gb->strides))
        return OVERLAP_TOO_HARD;
    if (a->storage != b->storage)
        return OVERLAP_NO;
    int64_t ia = (int64_t)tsr_dtype_itemsize(a->dtype), ib = (int64_t)tsr_dtype_itemsize(b->dtype);
    int64_t a0 = ga->offset * ia, a1 = a0 + a->numel * ia;
    int64_t b0 = gb->offset * ib, b1 = b0 + b->numel * ib;
    if (a0 == b0 && a1 == b1)
        return ga->ndim == gb->ndim &&
                       memcmp(ga->strides, gb->strides, sizeof(int64_t) * (size_t)ga->ndim) == 0
                   ? OVERLAP_FULL
                   : OVERLAP_PARTIAL;
    return a0 < b1 && b0 < a1 ? OVERLAP_PARTIAL : OVERLAP_NO;
}

/* compute_mem_overlaps: the output must not overlap itself, nor partly
 * overlap an input. */
static tsr_status check_overlaps(const tsr_tensor *out, const operand *in, int nin)
{
    if (tsr__has_internal_overlap(&out->geometry))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
    for (int i = 0; i < nin; i++)
        if (in[i].t && overlap_status(out, in[i].t) == OVERLAP_PARTIAL)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "unsupported operation: some elements of the input tensor and the "
                             "written-to tensor refer to a single memory location. Please clone() "
                             "the tensor before performing the operation.");
    return TSR_OK;
}

/* ---- layout: TensorIterator's dimension order ---------------------------- */

/* Strides of geometry g broadcast to `shape` (ndim dims): 0 where g is
 * broadcast. */
static void broadcast_geometry(const tsr_geometry *g, int ndim, const int64_t *shape, int64_t *out)
{
    int lead = ndim - g->ndim;
    for (int d = 0; d < ndim; d++) {
        int s = d - lead;
        out[d] = s < 0 || (g->sizes[s] == 1 && shape[d] != 1) ? 0 : g->strides[s];
    }
}

static void broadcast_strides(const tsr_tensor *t, int ndim, const int64_t *shape, int64_t *out)
{
    broadcast_geometry(&t->geometry, ndim, shape, out);
}

/* reorder_dimensions: perm[0] is the fastest dimension. Each operand in
 * turn may decide a pair: the smaller nonzero stride goes first; equal
 * strides put the smaller size first; broadcast dimensions abstain. */
static void compute_perm(int ndim, const int64_t *shape, int nops, int64_t (*strides)[TSR_MAX_DIMS],
                         int *perm)
{
    for (int i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int cmp = 0;
            for (int k = 0; k < nops && cmp == 0; k++) {
                int64_t s0 = strides[k][perm[d0]], s1 = strides[k][perm[d1]];
                if (s0 == 0 || s1 == 0)
                    continue;
                if (s0 != s1)
                    cmp = s0 < s1 ? -1 : 1;
                else if (shape[perm[d0]] > shape[perm[d1]])
                    cmp = 1;
            }
            if (cmp > 0) {
                int tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

/* The strides of a new output: TensorIterator's fast setup when every
 * operand has the output's shape and they agree on a layout (all
 * contiguous, all channels_last, or all the same dense strides), else the
 * permutation's strides (contiguous ones when it keeps the natural order).
 * `layout` holds the geometries of the inputs that shape the output. */
static void output_strides(int ndim, const int64_t *shape, const tsr_geometry *layout, int nlayout,
                           bool all_same_shape, int64_t *out)
{
    if (all_same_shape && nlayout > 0) {
        bool contig = true, cl = true, nod = true, same = true;
        for (int k = 0; k < nlayout; k++) {
            const tsr_geometry *g = &layout[k];
            contig &= tsr_is_contiguous(g->ndim, g->sizes, g->strides, TSR_CONTIGUOUS_FORMAT);
            cl &= tsr_is_contiguous(g->ndim, g->sizes, g->strides, TSR_CHANNELS_LAST);
            nod &= tsr_is_non_overlapping_and_dense(g->ndim, g->sizes, g->strides);
            same &= memcmp(g->strides, layout[0].strides, sizeof(int64_t) * (size_t)ndim) == 0;
        }
        if (contig || cl) {
            tsr_strides_for(ndim, shape, contig ? TSR_CONTIGUOUS_FORMAT : TSR_CHANNELS_LAST, out);
            return;
        }
        if (nod && same) {
            memcpy(out, layout[0].strides, sizeof(int64_t) * (size_t)ndim);
            return;
        }
    }
    int64_t strides[TSR__KERNEL_MAX_OPERANDS][TSR_MAX_DIMS];
    int perm[TSR_MAX_DIMS];
    bool natural = true;
    for (int k = 0; k < nlayout; k++)
        broadcast_geometry(&layout[k], ndim, shape, strides[k]);
    compute_perm(ndim, shape, nlayout, strides, perm);
    for (int i = 0; i < ndim; i++)
        natural &= perm[i] == ndim - 1 - i;
    if (natural) {
        tsr_strides_for(ndim, shape, TSR_CONTIGUOUS_FORMAT, out);
        return;
    }
    int64_t next = 1;
    for (int i = 0; i < ndim; i++) {
        out[perm[i]] = next;
        next *= shape[perm[i]];
    }
}

void tsr__plan_coalesce(tsr__kernel *k)
{
    int ndim = k->ndim, nops = (int)k->noperands;
    int64_t strides[TSR__KERNEL_MAX_OPERANDS][TSR_MAX_DIMS];
    int perm[TSR_MAX_DIMS];
    for (int i = 0; i < nops; i++)
        memcpy(strides[i], k->operands[i].strides, sizeof strides[i]);
    compute_perm(ndim, k->sizes, nops, strides, perm);
    /* Walk from the fastest dimension, merging into the current one. */
    int64_t sizes[TSR_MAX_DIMS], st[TSR__KERNEL_MAX_OPERANDS][TSR_MAX_DIMS];
    int n = 0;
    bool empty = false;
    for (int i = 0; i < ndim; i++)
        empty |= k->sizes[i] == 0;
    for (int i = 0; i < ndim; i++) {
        int d = perm[i];
        int64_t size = k->sizes[d];
        if (size == 1 && !empty)
            continue;
        bool merge = n > 0;
        for (int op = 0; op < nops && merge; op++)
            merge = st[op][n - 1] * sizes[n - 1] == strides[op][d];
        if (merge) {
            sizes[n - 1] *= size;
            continue;
        }
        sizes[n] = size;
        for (int op = 0; op < nops; op++)
            st[op][n] = strides[op][d];
        n++;
    }
    /* Innermost last. */
    k->ndim = n;
    for (int i = 0; i < n; i++) {
        k->sizes[i] = sizes[n - 1 - i];
        for (int op = 0; op < nops; op++)
            k->operands[op].strides[i] = st[op][n - 1 - i];
    }
}

/* ---- running --------------------------------------------------------------- */

/* An integer division by a zero scalar fails before anything is written,
 * as on the cpu (a zero inside a divisor tensor is found by the kernel). */
static bool divides_by_zero_scalar(const tsr__kernel *k)
{
    if (!tsr__kernel_op_has(k->op, TSR__KOPF_ZERO_CHECK) || k->noperands < 3 ||
        !(k->operands[2].flags & TSR__KOPERAND_SCALAR) ||
        tsr_dtype_is_floating_point((tsr_dtype)k->common) ||
        tsr_dtype_is_complex((tsr_dtype)k->common))
        return false;
    for (size_t i = 0; i < tsr_dtype_itemsize((tsr_dtype)k->common) && i < sizeof k->scalar; i++)
        if (k->scalar[i])
            return false;
    return true;
}

static tsr_status run(tsr__plan *p)
{
    if (p->numel == 0 || p->device.type == TSR_DEVICE_META)
        return TSR_OK;
    if (p->device.type == TSR_DEVICE_CPU)
        return tsr__host_elementwise(&p->kernel, p->host, 0);
    if (divides_by_zero_scalar(&p->kernel))
        return tsr__fail(TSR_ERR_RUNTIME, "ZeroDivisionError");
    return tsr__client_launch(p->client, p->device, &p->kernel);
}

/* Fills kernel operand k from tensor t (strides broadcast to the plan's
 * shape) or marks it a scalar. */
static void set_operand(tsr__plan *p, int k, const tsr_tensor *t, tsr_dtype dtype, bool scalar,
                        const int64_t *shape)
{
    tsr__kernel_operand *o = &p->kernel.operands[k];
    memset(o, 0, sizeof *o);
    o->dtype = (uint32_t)dtype;
    if (scalar) {
        o->flags = TSR__KOPERAND_SCALAR;
        return;
    }
    o->handle = t->storage->handle;
    o->offset = t->geometry.offset;
    broadcast_strides(t, p->kernel.ndim, shape, o->strides);
    p->host[k] = t->storage->data;
}

/* The value of a scalar input, converted to the common dtype. */
static tsr_status scalar_value(const operand *in, tsr_dtype common, uint8_t value[16])
{
    unsigned char src[16] = {0};
    tsr_dtype from;
    memset(value, 0, 16);
    if (in->t) {
        unsigned char *base = NULL;
        tsr_status st =
            tsr__tensor_host_base(in->t, "Cannot copy out of meta tensor; no data!", &base);
        if (st != TSR_OK)
            return st;
        from = in->t->dtype;
        memcpy(src, base + in->t->geometry.offset * (int64_t)tsr_dtype_itemsize(from),
               tsr_dtype_itemsize(from));
    } else {
        const tsr_scalar *s = &in->number;
        from = s->kind;
        if (from == TSR_BOOL)
            src[0] = s->v.b;
        else if (from == TSR_INT64)
            memcpy(src, &s->v.i, 8);
        else if (from == TSR_FLOAT64)
            memcpy(src, &s->v.f, 8);
        else
            memcpy(src, s->v.c, 16);
    }
    tsr_status st = tsr__kernel_convert(src, from, value, common, 1);
    /* A Python number is converted as c10's constructors convert one
     * value, whose bfloat16 NaN is 7FC0 (a sign copysign reads). */
    if (st == TSR_OK && !in->t && common == TSR_BFLOAT16 && from == TSR_FLOAT64 &&
        in->number.v.f != in->number.v.f) {
        value[0] = 0xC0;
        value[1] = 0x7F;
    }
    return st;
}

/* ---- binary operations ------------------------------------------------------- */

static bool scalar_kind_ok(const tsr_scalar *s)
{
    return s->kind == TSR_BOOL || s->kind == TSR_INT64 || s->kind == TSR_FLOAT64 ||
           s->kind == TSR_COMPLEX128;
}

static tsr_dtype operand_dtype(const operand *o)
{
    return o->t ? o->t->dtype : o->number.kind;
}

/* sub_check: bool subtraction has its own messages. */
static tsr_status check_sub(const operand *in)
{
    bool a = operand_dtype(&in[0]) == TSR_BOOL, b = operand_dtype(&in[1]) == TSR_BOOL;
    if (a && b)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Subtraction, the `-` operator, with two bool tensors is not supported. "
                         "Use the `^` or `logical_xor()` operator instead.");
    if (a || b)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Subtraction, the `-` operator, with a bool tensor is not supported. If "
                         "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                         "instead.");
    return TSR_OK;
}

/* alpha_check, on the common dtype. */
static tsr_status check_alpha(tsr_dtype common, const tsr_scalar *alpha)
{
    if (alpha->kind == TSR_BOOL && common != TSR_BOOL)
        return tsr__fail(TSR_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    bool fl = tsr_dtype_is_floating_point(common), cx = tsr_dtype_is_complex(common);
    if (!fl && !cx && alpha->kind != TSR_BOOL && alpha->kind != TSR_INT64)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "For integral input tensors, argument alpha must not be a floating point "
                         "number.");
    if (!cx && alpha->kind == TSR_COMPLEX128)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "For non-complex input tensors, argument alpha must not be a complex "
                         "number.");
    return TSR_OK;
}

/* Whether op's complex result is its real dtype (abs). */
static bool to_real(tsr__kernel_op op, tsr_dtype common)
{
    return tsr__kernel_op_has(op, TSR__KOPF_REAL_RESULT) && tsr_dtype_is_complex(common);
}

/* The dtype of an operation's new result: bool for the comparisons and
 * tests, the real dtype of abs's complex one, else the common dtype. */
static tsr_dtype result_dtype(tsr__kernel_op op, tsr_dtype common)
{
    if (to_real(op, common))
        return tsr_dtype_to_real(common);
    return tsr__kernel_op_has(op, TSR__KOPF_BOOL_RESULT) ? TSR_BOOL : common;
}

/* compute_types: the common dtype (true division promotes integers to
 * the default dtype, square bool to int64), then per operand, output first, the device check
 * (zero-dim cpu inputs ride along as scalars) and the out= cast check. */
static tsr_status compute_types(tsr__kernel_op op, const tsr_tensor *out, operand *in, int nin,
                                tsr_dtype *common, tsr_device *device)
{
    /* A condition (where's) takes no part in the common dtype. */
    tsr_operand ops[3];
    int first = tsr__kernel_op_has(op, TSR__KOPF_CONDITION) ? 1 : 0;
    for (int i = first; i < nin; i++) {
        const tsr_tensor *t = in[i].t;
        ops[i - first].kind = !t                     ? TSR_OPERAND_SCALAR
                              : t->geometry.ndim > 0 ? TSR_OPERAND_TENSOR
                                                     : TSR_OPERAND_ZERO_DIM;
        ops[i - first].dtype = operand_dtype(&in[i]);
    }
    tsr_status st = tsr_result_type(ops, (size_t)(nin - first), common);
    if (st != TSR_OK)
        return st;
    if (tsr__kernel_op_has(op, TSR__KOPF_INT_TO_FLOAT) &&
        (tsr_dtype_is_integral(*common) || *common == TSR_BOOL))
        *common = tsr_get_default_dtype();
    if (tsr__kernel_op_has(op, TSR__KOPF_BOOL_TO_LONG) && *common == TSR_BOOL)
        *common = TSR_INT64;
    tsr_dtype result = result_dtype(op, *common);
    const tsr_tensor *all[4] = {out, in[0].t, nin > 1 ? in[1].t : NULL, nin > 2 ? in[2].t : NULL};
    tsr_device dev = {TSR_DEVICE_CPU, -1};
    for (int k = 0; k < 4; k++)
        if (all[k] && all[k]->storage->device.type != TSR_DEVICE_CPU) {
            dev = all[k]->storage->device;
            break;
        }
    int cpu_scalars = 0;
    for (int k = 0; k < 4; k++) {
        const tsr_tensor *t = all[k];
        if (!t)
            continue;
        if (dev.type != TSR_DEVICE_CPU && k > 0 && is_cpu_scalar(t)) {
            if (++cpu_scalars > 1)
                return tsr__fail(TSR_ERR_RUNTIME,
                                 "Trying to pass too many CPU scalars to non-CPU kernel!");
            in[k - 1].scalar = true;
        } else if (!tsr_device_equal(t->storage->device, dev)) {
            char d1[TSR_DEVICE_STR_MAX], d2[TSR_DEVICE_STR_MAX];
            return tsr__fail(TSR_ERR_RUNTIME,
                             "Expected all tensors to be on the same device, but found at least "
                             "two devices, %s and %s!",
                             device_text(dev, d1, sizeof d1),
                             device_text(t->storage->device, d2, sizeof d2));
        }
        /* abs's complex out= is computed into as the complex result
         * (PyTorch's unary_op_impl_with_complex_to_float_out); a real one
         * takes any dtype the real result casts to */
        bool complex_out = to_real(op, *common) && tsr_dtype_is_complex(t->dtype);
        tsr_dtype want = complex_out ? *common : result;
        if (k == 0 && tsr__kernel_op_has(op, TSR__KOPF_SAME_DTYPE) && t->dtype != want &&
            (complex_out || !to_real(op, *common)))
            return tsr__fail(TSR_ERR_RUNTIME, "Found dtype %s but expected %s",
                             tsr_dtype_message_name(t->dtype), tsr_dtype_message_name(want));
        if (k == 0 && (st = tsr_check_output_cast(want, t->dtype, TSR_CAST_PYTORCH)) != TSR_OK)
            return st;
    }
    int scalars = 0;
    for (int i = 0; i < nin; i++) {
        in[i].scalar |= in[i].t == NULL;
        scalars += in[i].scalar;
    }
    /* Two scalar values fit a kernel (tsr__kernel_scalar_max): a third
     * one would need a zero-dim cpu condition beside two Python numbers
     * on another device, which no function here makes. */
    if (scalars > (int)tsr__kernel_scalar_max(op))
        return tsr__fail(TSR_ERR_RUNTIME, "Trying to pass too many CPU scalars to non-CPU kernel!");
    *device = dev;
    return TSR_OK;
}

/* compute_shape: the inputs broadcast together (outputs being resized
 * take no part, nor Python numbers where the row sets them aside). *same
 * tells whether every input had that exact shape. */
static tsr_status compute_shape(tsr__kernel_op op, const operand *in, int nin, int *ndim,
                                int64_t *shape, bool *same)
{
    bool any = false, scalars = false, tensors = false;
    bool aside = tsr__kernel_op_has(op, TSR__KOPF_NUMBERS_ASIDE);
    *same = true;
    *ndim = 0;
    for (int i = 0; i < nin; i++) {
        if (aside && !in[i].t)
            continue;
        const tsr_geometry *g = in[i].t ? &in[i].t->geometry : NULL;
        int n = g ? g->ndim : 0;
        const int64_t *sizes = g ? g->sizes : NULL;
        scalars |= n == 0;
        tensors |= n > 0;
        if (!any) {
            *ndim = n;
            if (n)
                memcpy(shape, sizes, sizeof(int64_t) * (size_t)n);
            any = true;
            continue;
        }
        if (n != *ndim || (n && memcmp(shape, sizes, sizeof(int64_t) * (size_t)n) != 0)) {
            *same = false;
            tsr_status st = tsr_broadcast_shapes(*ndim, shape, n, sizes, ndim, shape);
            if (st != TSR_OK)
                return st;
        }
    }
    *same &= !(scalars && tensors);
    return TSR_OK;
}

static bool same_shape(const tsr_geometry *g, int ndim, const int64_t *shape)
{
    return g->ndim == ndim && memcmp(g->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0;
}

/* A fresh output (or the new storage of a resized out=) on `device`, laid
 * out as TensorIterator lays it out. On the cpu, PyTorch first converts
 * inputs of another dtype into temporaries of the common dtype (with
 * preserve_format strides), and those shape the output. Accelerators here
 * follow the cpu (PyTorch's CUDA does not), so that both devices give the
 * same strides as well as the same bits; meta keeps PyTorch's own rule. */
static tsr_status allocate_output(tsr_client *client, tsr_device device, tsr_dtype dtype,
                                  tsr_dtype common, int ndim, const int64_t *shape,
                                  const operand *in, int nin, bool same, tsr_tensor **out)
{
    tsr_geometry layout[3];
    int n = 0;
    for (int i = 0; i < nin; i++) {
        if (!in[i].t || in[i].scalar)
            continue;
        layout[n] = in[i].t->geometry;
        /* where converts a uint8 condition to bool first, and the values
         * to the common dtype */
        tsr_dtype want = in[i].condition ? TSR_BOOL : common;
        if (device.type != TSR_DEVICE_META && in[i].t->dtype != want)
            tsr_preserve_strides(layout[n].ndim, layout[n].sizes, in[i].t->geometry.strides,
                                 layout[n].strides);
        n++;
    }
    tsr_geometry g = {.ndim = ndim};
    if (ndim)
        memcpy(g.sizes, shape, sizeof(int64_t) * (size_t)ndim);
    output_strides(ndim, shape, layout, n, same, g.strides);
    return tsr__tensor_alloc(client, device, dtype, &g, false, out);
}

void tsr__plan_adopt_storage(tsr_tensor *out, tsr_tensor *fresh)
{
    tsr__storage *old = out->storage;
    out->storage = fresh->storage;
    out->geometry = fresh->geometry;
    out->numel = fresh->numel;
    fresh->storage = old;
    tsr_tensor_release(fresh);
}

static tsr_client *client_of(const tsr_tensor *out, const operand *in, int nin)
{
    if (out && out->storage->client)
        return out->storage->client;
    for (int i = 0; i < nin; i++)
        if (in[i].t && in[i].t->storage->client)
            return in[i].t->storage->client;
    return NULL;
}

/* The kernel of a planned binary operation over `out`. */
static tsr_status build_kernel(tsr__plan *p, tsr__kernel_op op, tsr_dtype common, tsr_tensor *out,
                               const operand *in, int nin, const tsr_scalar *alpha)
{
    if (tsr__tensor_writable(out) != TSR_OK)
        return TSR_ERR_PERMISSION;
    tsr__kernel *k = &p->kernel;
    const tsr_geometry *g = &out->geometry;
    k->op = op;
    k->common = common;
    k->ndim = g->ndim;
    k->noperands = (uint32_t)(1 + nin);
    memcpy(k->sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim);
    set_operand(p, 0, out, out->dtype, false, g->sizes);
    int scalars = 0;
    for (int i = 0; i < nin; i++) {
        set_operand(p, 1 + i, in[i].t, in[i].t ? in[i].t->dtype : common, in[i].scalar, g->sizes);
        if (in[i].scalar) {
            /* the first scalar's value in `scalar`, a second one's in
             * `alpha` (an operation without alpha) */
            k->operands[1 + i].dtype = common;
            uint8_t *value = scalars++ ? k->alpha : k->scalar;
            /* where's Python numbers become tensors of the common dtype
             * first (at::scalar_tensor), converted as fill_ converts, out
             * of range refused */
            tsr_status st = !in[i].t && tsr__kernel_ops[op].arity == 3
                                ? tsr__scalar_to_element(in[i].number, common, value)
                                : scalar_value(&in[i], common, value);
            if (st != TSR_OK)
                return st;
        }
    }
    if (alpha && tsr__kernel_op_has(op, TSR__KOPF_VALUE)) {
        /* PyTorch's Scalar::to<T> of the computation type (lerp's and
         * addcmul's bfloat16 loops take a float) */
        tsr_dtype as = common == TSR_BFLOAT16 && tsr__kernel_op_has(op, TSR__KOPF_VALUE_FLOAT)
                           ? TSR_FLOAT32
                           : common;
        unsigned char element[16];
        tsr_status st = tsr__scalar_to_element(*alpha, as, element);
        if (st != TSR_OK)
            return st;
        tsr__kernel_alpha_from_element(as, element, k->alpha);
    } else if (alpha) {
        /* sub is add with -alpha, negated as a Python number (integers
         * wrap, complex negates both parts) before the conversion. */
        tsr_scalar a = *alpha;
        if (tsr__kernel_op_has(op, TSR__KOPF_NEGATE_ALPHA)) {
            if (a.kind == TSR_INT64)
                a.v.i = (int64_t)(0 - (uint64_t)a.v.i);
            else if (a.kind == TSR_FLOAT64)
                a.v.f = -a.v.f;
            else if (a.kind == TSR_COMPLEX128)
                a.v.c[0] = -a.v.c[0], a.v.c[1] = -a.v.c[1];
        }
        unsigned char element[16];
        tsr_status st = tsr__scalar_to_element(a, common, element);
        if (st != TSR_OK)
            return st;
        tsr__kernel_alpha_from_element(common, element, k->alpha);
    }
    p->numel = out->numel;
    tsr__plan_coalesce(k);
    return TSR_OK;
}

static tsr_status check_args(tsr__kernel_op op, const tsr_tensor *a, const tsr_tensor *b,
                             const tsr_scalar *b_scalar, const tsr_scalar *alpha,
                             tsr__out_mode mode, const tsr_tensor *out, tsr_tensor **result)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    if (info == NULL || (info->flags & (TSR__KOPF_MOVE | TSR__KOPF_REDUCE)) != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid elementwise operation %d", (int)op);
    if (a == NULL || (info->arity == 2 && b == NULL && b_scalar == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if ((mode == TSR__OUT_NEW && result == NULL) || (mode == TSR__OUT_GIVEN && out == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    if ((b_scalar && !scalar_kind_ok(b_scalar)) || (alpha && !scalar_kind_ok(alpha)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid scalar kind (expected bool, int64, float64 or complex128)");
    return TSR_OK;
}

/* The refusals PyTorch makes before anything else: a bool or complex
 * input to an operation whose row gives a message for it. Before them,
 * the complex inputs that PyTorch computes and Tessera does not yet. */
static tsr_status refuse_inputs(tsr__kernel_op op, const operand *in, int nin)
{
    const tsr__kernel_op_info *info = &tsr__kernel_ops[op];
    for (int i = 0; i < nin; i++) {
        tsr_dtype d = operand_dtype(&in[i]);
        if ((info->flags & TSR__KOPF_CPLX_LATER) && in[i].t &&
            (d == TSR_COMPLEX64 || d == TSR_COMPLEX128))
            return tsr__fail(TSR_ERR_NOT_SUPPORTED, "complex %s is not available yet", info->name);
        const char *msg = d == TSR_BOOL && in[i].t             ? info->no_bool
                          : tsr_dtype_is_complex(d) && in[i].t ? info->no_complex
                                                               : NULL;
        if (msg)
            return tsr__fail(strstr(msg, " not implemented for ") ? TSR_ERR_NOT_SUPPORTED
                                                                  : TSR_ERR_RUNTIME,
                             "%s", msg);
    }
    return TSR_OK;
}

/* where's condition: bool, or uint8 (which PyTorch 1.13 takes with a
 * deprecation warning and converts to bool). */
static tsr_status check_condition(const operand *in)
{
    tsr_dtype d = in->t->dtype;
    if (d != TSR_BOOL && d != TSR_UINT8)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "where expected condition to be a boolean tensor, but got a tensor with "
                         "dtype %s",
                         tsr_dtype_message_name(d));
    return TSR_OK;
}

static tsr_status plan_elementwise(tsr__kernel_op op, operand *in, int nin, const tsr_scalar *alpha,
                                   const uint8_t *numbers, tsr__out_mode mode, tsr_tensor *out,
                                   tsr_tensor **result);

tsr_status tsr__binary_op(tsr__kernel_op op, const tsr_tensor *a, const tsr_tensor *b,
                          const tsr_scalar *b_scalar, const tsr_scalar *alpha, tsr__out_mode mode,
                          tsr_tensor *out, tsr_tensor **result)
{
    tsr_status st = check_args(op, a, b, b_scalar, alpha, mode, out, result);
    if (st != TSR_OK)
        return st;
    if (tsr__kernel_ops[op].arity > 2)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s takes three inputs",
                         tsr__kernel_ops[op].name);
    if (tsr__kernel_ops[op].replace)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s takes three numbers",
                         tsr__kernel_ops[op].name);
    int nin = (int)tsr__kernel_ops[op].arity;
    operand in[2] = {{.t = a}, {.t = b}};
    if (nin > 1 && !b)
        in[1].number = *b_scalar;
    if ((st = refuse_inputs(op, in, nin)) != TSR_OK)
        return st;
    if (op == TSR__KOP_SUB && (st = check_sub(in)) != TSR_OK)
        return st;
    if (mode == TSR__OUT_INPLACE && to_real(op, a->dtype))
        return tsr__fail(TSR_ERR_RUNTIME, "In-place %s is not supported for complex tensors.",
                         tsr__kernel_ops[op].name);
    if (mode == TSR__OUT_INPLACE)
        out = (tsr_tensor *)a;
    return plan_elementwise(op, in, nin, alpha, NULL, mode, out, result);
}

tsr_status tsr__replace_op(tsr__kernel_op op, const tsr_tensor *a, const uint8_t numbers[32],
                           tsr__out_mode mode, tsr_tensor *out, tsr_tensor **result)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    if (info == NULL || !info->replace || numbers == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid replacing operation %d", (int)op);
    tsr_status st = check_args(op, a, NULL, NULL, NULL, mode, out, result);
    if (st != TSR_OK)
        return st;
    operand in[1] = {{.t = a}};
    if ((st = refuse_inputs(op, in, 1)) != TSR_OK)
        return st;
    if (mode == TSR__OUT_INPLACE)
        out = (tsr_tensor *)a;
    return plan_elementwise(op, in, 1, NULL, numbers, mode, out, result);
}

tsr_status tsr__ternary_op(tsr__kernel_op op, const tsr_tensor *a, const tsr_tensor *b,
                           const tsr_scalar *b_scalar, const tsr_tensor *c,
                           const tsr_scalar *c_scalar, const tsr_scalar *value, tsr__out_mode mode,
                           tsr_tensor *out, tsr_tensor **result)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    if (info == NULL || info->arity != 3)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid ternary operation %d", (int)op);
    if (a == NULL || (b == NULL && b_scalar == NULL) || (c == NULL && c_scalar == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if ((mode == TSR__OUT_NEW && result == NULL) || (mode == TSR__OUT_GIVEN && out == NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    if (((info->flags & TSR__KOPF_VALUE) != 0) != (value != NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s %s a value", info->name,
                         value ? "does not take" : "takes");
    if ((!b && !scalar_kind_ok(b_scalar)) || (!c && !scalar_kind_ok(c_scalar)) ||
        (value && !scalar_kind_ok(value)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid scalar kind (expected bool, int64, float64 or complex128)");
    operand in[3] = {{.t = a}, {.t = b}, {.t = c}};
    if (!b)
        in[1].number = *b_scalar;
    if (!c)
        in[2].number = *c_scalar;
    tsr_status st;
    if (info->flags & TSR__KOPF_CONDITION) {
        in[0].condition = true;
        if ((st = check_condition(&in[0])) != TSR_OK)
            return st;
    }
    if ((st = refuse_inputs(op, in + 1, 2)) != TSR_OK)
        return st;
    if (mode == TSR__OUT_INPLACE)
        out = (tsr_tensor *)a;
    return plan_elementwise(op, in, 3, value, NULL, mode, out, result);
}

static tsr_status plan_elementwise(tsr__kernel_op op, operand *in, int nin, const tsr_scalar *alpha,
                                   const uint8_t *numbers, tsr__out_mode mode, tsr_tensor *out,
                                   tsr_tensor **result)
{
    tsr_status st;
    if (mode != TSR__OUT_NEW && (st = check_overlaps(out, in, nin)) != TSR_OK)
        return st;
    int ndim;
    int64_t shape[TSR_MAX_DIMS];
    bool same;
    if ((st = compute_shape(op, in, nin, &ndim, shape, &same)) != TSR_OK)
        return st;
    tsr_dtype common;
    tsr_device device;
    if ((st = compute_types(op, mode == TSR__OUT_NEW ? NULL : out, in, nin, &common, &device)) !=
        TSR_OK)
        return st;
    bool resize = false;
    if (mode != TSR__OUT_NEW && !same_shape(&out->geometry, ndim, shape)) {
        if (mode == TSR__OUT_INPLACE || out->numel != 0)
            return shape_mismatch(&out->geometry, ndim, shape);
        resize = true;
    }
    if (alpha && tsr__kernel_op_has(op, TSR__KOPF_ALPHA) &&
        (st = check_alpha(common, alpha)) != TSR_OK)
        return st;
    if (device.type != TSR_DEVICE_META && (st = tsr__kernel_check_compute(op, common)) != TSR_OK)
        return st;
    tsr__plan p = {.device = device, .client = client_of(out, in, nin)};
    tsr_tensor *fresh = NULL;
    if (mode == TSR__OUT_NEW || resize) {
        st = allocate_output(p.client, device,
                             mode == TSR__OUT_NEW ? result_dtype(op, common) : out->dtype, common,
                             ndim, shape, in, nin, same, &fresh);
        if (st != TSR_OK)
            return st;
        if (resize) {
            tsr__plan_adopt_storage(out, fresh);
            fresh = NULL;
        } else {
            out = fresh;
        }
    }
    st = build_kernel(&p, op, common, out, in, nin, device.type == TSR_DEVICE_META ? NULL : alpha);
    if (st == TSR_OK && numbers) { /* a REPLACE row's (core/kernel.h) */
        memcpy(p.kernel.scalar, numbers, 16);
        memcpy(p.kernel.alpha, numbers + 16, 16);
    }
    if (st == TSR_OK)
        st = run(&p);
    if (st != TSR_OK) {
        tsr_tensor_release(fresh);
        return st;
    }
    if (mode == TSR__OUT_NEW)
        *result = fresh;
    return TSR_OK;
}

/* ---- copy_ and fill_ ----------------------------------------------------------- */

/* A plan whose output is dst: shapes broadcast to dst's (src's must). */
static tsr_status plan_copy(tsr__plan *p, tsr_tensor *dst, const tsr_tensor *src)
{
    int ndim;
    int64_t shape[TSR_MAX_DIMS];
    const tsr_geometry *gd = &dst->geometry, *gs = &src->geometry;
    tsr_status st = tsr__tensor_writable(dst);
    if (st == TSR_OK)
        st = tsr_broadcast_shapes(gd->ndim, gd->sizes, gs->ndim, gs->sizes, &ndim, shape);
    if (st != TSR_OK)
        return st;
    if (!same_shape(gd, ndim, shape))
        return shape_mismatch(gd, ndim, shape);
    tsr__kernel *k = &p->kernel;
    k->op = TSR__KOP_COPY;
    k->common = dst->dtype;
    k->ndim = gd->ndim;
    k->noperands = 2;
    memcpy(k->sizes, gd->sizes, sizeof(int64_t) * (size_t)gd->ndim);
    set_operand(p, 0, dst, dst->dtype, false, gd->sizes);
    set_operand(p, 1, src, src->dtype, false, gd->sizes);
    p->numel = dst->numel;
    tsr__plan_coalesce(k);
    return TSR_OK;
}

/* copy_ between devices goes through the host: both sides must be
 * addressable here, and accelerators idle first. */
static tsr_status host_side(const tsr_tensor *t)
{
    tsr__storage *s = t->storage;
    if (s->device.type == TSR_DEVICE_CPU)
        return TSR_OK;
    if (!s->client || !tsr__client_host_visible(s->client, s->device)) {
        char name[TSR_DEVICE_STR_MAX];
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "copy_() between %s and another device needs host-visible memory",
                         device_text(s->device, name, sizeof name));
    }
    return tsr__client_synchronize(s->client, s->device);
}

tsr_status tsr__copy(tsr_tensor *dst, const tsr_tensor *src)
{
    if (dst == NULL || src == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor arguments must not be NULL");
    if (dst == src)
        return TSR_OK;
    const tsr_geometry *gd = &dst->geometry, *gs = &src->geometry;
    if (dst->storage == src->storage && dst->dtype == src->dtype && gd->offset == gs->offset &&
        gd->ndim == gs->ndim && memcmp(gd->sizes, gs->sizes, sizeof gd->sizes) == 0 &&
        memcmp(gd->strides, gs->strides, sizeof gd->strides) == 0)
        return TSR_OK;
    tsr_dtype d = dst->dtype, s = src->dtype;
    if (d != s && (d == TSR_FLOAT4_E2M1FN_X2 || s == TSR_FLOAT4_E2M1FN_X2))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                         "(from %s to %s)",
                         tsr_dtype_message_name(s), tsr_dtype_message_name(d));
    operand in = {.t = src};
    tsr_status st = check_overlaps(dst, &in, 1);
    if (st != TSR_OK)
        return st;
    tsr__plan p = {.device = dst->storage->device, .client = dst->storage->client};
    if ((st = plan_copy(&p, dst, src)) != TSR_OK)
        return st;
    tsr_device dd = dst->storage->device, sd = src->storage->device;
    if (dd.type == TSR_DEVICE_META)
        return TSR_OK;
    if (sd.type == TSR_DEVICE_META)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "Cannot copy out of meta tensor; no data!");
    if (p.numel == 0)
        return TSR_OK;
    if (tsr_device_equal(dd, sd) && dd.type != TSR_DEVICE_CPU)
        return tsr__client_launch(p.client, dd, &p.kernel);
    if ((st = host_side(dst)) != TSR_OK || (st = host_side(src)) != TSR_OK)
        return st;
    return tsr__host_elementwise(&p.kernel, p.host, 0);
}

tsr_status tsr__fill(tsr_tensor *t, tsr_scalar value)
{
    if (t == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor must not be NULL");
    if (tsr__tensor_writable(t) != TSR_OK)
        return TSR_ERR_PERMISSION;
    if (!scalar_kind_ok(&value))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid scalar kind %d (expected bool, int64, float64 or complex128)",
                         (int)value.kind);
    tsr__plan p = {.device = t->storage->device, .client = t->storage->client};
    tsr__kernel *k = &p.kernel;
    tsr_status st = tsr__scalar_to_element(value, t->dtype, k->scalar);
    if (st != TSR_OK)
        return st;
    const tsr_geometry *g = &t->geometry;
    k->op = TSR__KOP_FILL;
    k->common = t->dtype;
    k->ndim = g->ndim;
    k->noperands = 1;
    memcpy(k->sizes, g->sizes, sizeof(int64_t) * (size_t)g->ndim);
    set_operand(&p, 0, t, t->dtype, false, g->sizes);
    p.numel = t->numel;
    /* PyTorch fills a tensor that overlaps itself (expanded), as it does
     * any other: every element gets the value. An element that a
     * dimension of stride 0 repeats is written once, so a 1-element
     * tensor expanded to 2^23 x 2^23 is one store, not 2^46. */
    for (int d = 0; d < k->ndim; d++)
        if (k->sizes[d] > 1 && k->operands[0].strides[d] == 0) {
            p.numel /= k->sizes[d];
            k->sizes[d] = 1;
        }
    tsr__plan_coalesce(k);
    return run(&p);
}
