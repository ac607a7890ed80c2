/* Copies, fill and conversions of tessera/ops.h: copy_, fill_, to, clone,
 * contiguous, and synchronize. copy_ and fill_ are planned kernels
 * (libclient/plan.c); the rest build on them as PyTorch does: clone is
 * empty_like + copy_, contiguous is clone when needed, to is an alias or
 * an empty_strided/empty_like on the target + copy_. */
#include <string.h>

#include "core/error.h"
#include "libclient/client.h"
#include "libclient/plan.h"
#include "tessera/ops.h"

tsr_status tsr_tensor_copy_(tsr_tensor *dst, const tsr_tensor *src)
{
    return tsr__copy(dst, src);
}

tsr_status tsr_tensor_fill_(tsr_tensor *t, tsr_scalar value)
{
    return tsr__fill(t, value);
}

/* A new tensor shaped like t with `format`'s strides (preserve: t's when
 * dense and non-overlapping, else inferred), on `device` through `client`. */
static tsr_status empty_like_on(tsr_client *client, tsr_device device, tsr_dtype dtype,
                                const tsr_tensor *t, tsr_memory_format format, tsr_tensor **out)
{
    const tsr_geometry *in = &t->geometry;
    tsr_geometry g = {.ndim = in->ndim};
    tsr_status st;
    if (format == TSR_PRESERVE_FORMAT) {
        memcpy(g.sizes, in->sizes, sizeof g.sizes);
        st = tsr_preserve_strides(in->ndim, in->sizes, in->strides, g.strides);
    } else {
        st = tsr_geometry_init(in->ndim, in->sizes, format, &g);
    }
    if (st != TSR_OK)
        return st;
    return tsr__tensor_alloc(client, device, dtype, &g, false, out);
}

static tsr_status copy_into_new(tsr_client *client, tsr_device device, tsr_dtype dtype,
                                const tsr_tensor *t, tsr_memory_format format, tsr_tensor **out)
{
    tsr_tensor *fresh = NULL;
    tsr_status st = empty_like_on(client, device, dtype, t, format, &fresh);
    if (st == TSR_OK)
        st = tsr__copy(fresh, t);
    if (st != TSR_OK) {
        tsr_tensor_release(fresh);
        return st;
    }
    *out = fresh;
    return TSR_OK;
}

static tsr_status check_format(tsr_memory_format format)
{
    if ((unsigned)format >= TSR_MEMORY_FORMAT_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid memory format value %d", (int)format);
    return TSR_OK;
}

static tsr_status check_args(const tsr_tensor *t, tsr_memory_format format, tsr_tensor **out)
{
    if (t == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    return check_format(format);
}

tsr_status tsr_tensor_clone(const tsr_tensor *t, tsr_memory_format format, tsr_tensor **out)
{
    tsr_status st = check_args(t, format, out);
    if (st != TSR_OK)
        return st;
    return copy_into_new(t->storage->client, t->storage->device, t->dtype, t, format, out);
}

tsr_status tsr_tensor_contiguous(const tsr_tensor *t, tsr_memory_format format, tsr_tensor **out)
{
    tsr_status st = check_args(t, format, out);
    if (st != TSR_OK)
        return st;
    /* PyTorch asks is_contiguous first: preserve reads as contiguous. */
    if (tsr_tensor_is_contiguous(t, format)) {
        *out = tsr_tensor_retain((tsr_tensor *)t);
        return TSR_OK;
    }
    if (format == TSR_PRESERVE_FORMAT)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "preserve memory format is unsupported by the contiguous operator");
    return tsr_tensor_clone(t, format, out);
}

tsr_status tsr_tensor_to(tsr_client *client, const tsr_tensor *t, const tsr_tensor_options *options,
                         bool copy, tsr_tensor **out)
{
    static const tsr_tensor_options none;
    const tsr_tensor_options *o = options ? options : &none;
    if (t == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    if (o->has_dtype && !tsr_dtype_is_valid(o->dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)o->dtype);
    if (o->layout != TSR_STRIDED)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "to() supports strided tensors only");
    tsr_memory_format format = o->has_memory_format ? o->memory_format : TSR_PRESERVE_FORMAT;
    tsr_status st = check_format(format);
    if (st != TSR_OK)
        return st;
    if (client == NULL)
        client = t->storage->client;
    tsr_device device = t->storage->device;
    if (o->has_device && (st = tsr__tensor_resolve_device(client, o->device, &device)) != TSR_OK)
        return st;
    tsr_dtype dtype = o->has_dtype ? o->dtype : t->dtype;
    const tsr_geometry *g = &t->geometry;
    bool same_format = format == TSR_PRESERVE_FORMAT ||
                       tsr_suggest_memory_format(g->ndim, g->sizes, g->strides, false) == format;
    if (!copy && dtype == t->dtype && tsr_device_equal(device, t->storage->device) && same_format) {
        *out = tsr_tensor_retain((tsr_tensor *)t);
        return TSR_OK;
    }
    return copy_into_new(device.type == TSR_DEVICE_CPU || device.type == TSR_DEVICE_META ? NULL
                                                                                         : client,
                         device, dtype, t, format, out);
}

tsr_status tsr_synchronize(tsr_client *client, tsr_device device)
{
    if (device.type == TSR_DEVICE_CPU || device.type == TSR_DEVICE_META)
        return TSR_OK;
    if (client == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "synchronizing an accelerator needs a client");
    tsr_device resolved;
    tsr_status st = tsr__client_resolve_device(client, device, &resolved);
    if (st != TSR_OK)
        return st;
    return tsr__client_synchronize(client, resolved);
}
