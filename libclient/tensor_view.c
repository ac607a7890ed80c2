/* Views: each applies the core's tsr_view_* function (core/geometry.c, which
 * owns the rules and the messages) to the tensor's geometry and wraps the
 * result over the same storage. What the core cannot say on its own is
 * added here: the storage size as_strided checks against, the tensor's
 * type name in expand's message, and reshape's copy when no view exists. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "libclient/tensor_internal.h"

static tsr_status check_args(const tsr_tensor *t, tsr_tensor **out)
{
    if (t == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    return TSR_OK;
}

/* The common end of every view: wrap g when the core accepted it. */
static tsr_status finish(const tsr_tensor *t, tsr_status st, const tsr_geometry *g,
                         tsr_tensor **out)
{
    return st == TSR_OK ? tsr__tensor_view_of(t, g, out) : st;
}

/* Each view, as one line: check the arguments, run the core's function on
 * the tensor's geometry into `g`, wrap. */
#define VIEW(t, out, call)                  \
    do {                                    \
        tsr_geometry g;                     \
        tsr_status st = check_args(t, out); \
        if (st == TSR_OK)                   \
            st = (call);                    \
        return finish(t, st, &g, out);      \
    } while (0)

tsr_status tsr_tensor_transpose(const tsr_tensor *t, int64_t dim0, int64_t dim1, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_transpose(&t->geometry, dim0, dim1, &g));
}

tsr_status tsr_tensor_t(const tsr_tensor *t, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_t(&t->geometry, &g));
}

tsr_status tsr_tensor_permute(const tsr_tensor *t, const int64_t *dims, int ndims, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_permute(&t->geometry, dims, ndims, &g));
}

tsr_status tsr_tensor_narrow(const tsr_tensor *t, int64_t dim, int64_t start, int64_t length,
                             tsr_tensor **out)
{
    VIEW(t, out, tsr_view_narrow(&t->geometry, dim, start, length, &g));
}

tsr_status tsr_tensor_select(const tsr_tensor *t, int64_t dim, int64_t index, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_select(&t->geometry, dim, index, &g));
}

tsr_status tsr_tensor_slice(const tsr_tensor *t, int64_t dim, bool has_start, int64_t start,
                            bool has_end, int64_t end, int64_t step, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_slice(&t->geometry, dim, has_start, start, has_end, end, step, &g));
}

tsr_status tsr_tensor_unsqueeze(const tsr_tensor *t, int64_t dim, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_unsqueeze(&t->geometry, dim, &g));
}

tsr_status tsr_tensor_squeeze(const tsr_tensor *t, int64_t dim, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_squeeze(&t->geometry, dim, &g));
}

tsr_status tsr_tensor_view(const tsr_tensor *t, const int64_t *sizes, int nsizes, tsr_tensor **out)
{
    VIEW(t, out, tsr_view_view(&t->geometry, sizes, nsizes, &g));
}

tsr_status tsr_tensor_as_strided(const tsr_tensor *t, int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset, tsr_tensor **out)
{
    size_t item = t ? tsr_dtype_itemsize(t->dtype) : 1;
    int64_t elems = t ? (int64_t)(t->storage->nbytes / item) : 0;
    VIEW(t, out,
         tsr_view_as_strided(&t->geometry, ndim, sizes, strides,
                             offset < 0 ? t->geometry.offset : offset, elems, item, &g));
}

/* How PyTorch names a tensor in expand's message: c10's toString()
 * ("CPUFloatType"), which Python's error translation turns into the legacy
 * type name for the dtypes that have one on cpu ("torch.FloatTensor");
 * bool, bfloat16, complex and later dtypes, and meta tensors, keep the
 * dispatch name ("CPUBoolType", "MetaFloatType"). Accelerators use their
 * legacy name ("torch.opencl.FloatTensor"). */
static void expand_type_name(const tsr_tensor *t, char *buf, size_t n)
{
    tsr_device_type type = t->storage->device.type;
    bool legacy;
    switch (t->dtype) {
    case TSR_UINT8:
    case TSR_INT8:
    case TSR_INT16:
    case TSR_INT32:
    case TSR_INT64:
    case TSR_FLOAT16:
    case TSR_FLOAT32:
    case TSR_FLOAT64:
        legacy = true;
        break;
    default:
        legacy = false;
        break;
    }
    if (type == TSR_DEVICE_META || (type == TSR_DEVICE_CPU && !legacy))
        snprintf(buf, n, "%s%sType", type == TSR_DEVICE_META ? "Meta" : "CPU",
                 tsr_dtype_message_name(t->dtype));
    else
        tsr_tensor_type(t, buf, n);
}

/* The core names the tensor "Tensor{[2, 3]}" in expand's message for too
 * few sizes, knowing no dtype; the tensor's own name goes in its place. */
static tsr_status name_expanded(const tsr_tensor *t, tsr_status st)
{
    static const char core_prefix[] = "expand(Tensor{";
    const char *msg = tsr_last_error();
    if (strncmp(msg, core_prefix, sizeof(core_prefix) - 1) != 0)
        return st;
    char rest[TSR__ERROR_MAX], type[64];
    snprintf(rest, sizeof(rest), "%s", msg + sizeof(core_prefix) - 1);
    expand_type_name(t, type, sizeof(type));
    return tsr__fail(st, "expand(%s{%s", type, rest);
}

tsr_status tsr_tensor_expand(const tsr_tensor *t, const int64_t *sizes, int nsizes,
                             tsr_tensor **out)
{
    tsr_geometry g;
    tsr_status st = check_args(t, out);
    if (st == TSR_OK && (st = tsr_view_expand(&t->geometry, sizes, nsizes, &g)) != TSR_OK)
        return name_expanded(t, st);
    return finish(t, st, &g, out);
}

tsr_status tsr_tensor_reshape(const tsr_tensor *t, const int64_t *sizes, int nsizes,
                              tsr_tensor **out)
{
    tsr_geometry g;
    bool copied = false;
    tsr_status st = check_args(t, out);
    if (st == TSR_OK)
        st = tsr_view_reshape(&t->geometry, sizes, nsizes, &g, &copied);
    if (st != TSR_OK || !copied)
        return finish(t, st, &g, out);
    /* No view exists: a contiguous copy on the same device and session. */
    tsr_tensor *copy = NULL;
    const tsr__storage *s = t->storage;
    if ((st = tsr__tensor_alloc(s->client, s->device, t->dtype, &g, false, &copy)) != TSR_OK)
        return st;
    if (s->device.type != TSR_DEVICE_META) {
        unsigned char *src = NULL, *dst = NULL;
        if ((st = tsr__tensor_host_ordered(t, "", &src)) != TSR_OK ||
            (st = tsr__tensor_host_base(copy, "", &dst)) != TSR_OK) {
            tsr_tensor_release(copy);
            return st;
        }
        tsr__strided_gather(src, &t->geometry, tsr_dtype_itemsize(t->dtype), dst);
    }
    *out = copy;
    return TSR_OK;
}
