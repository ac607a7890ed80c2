/* DLPack exchange (tessera/dlpack.h): tensors out as DLManagedTensor and
 * DLManagedTensor in as tensors, never copying elements.
 *
 * An export is one allocation holding the DLManagedTensor, its shape and
 * strides and a reference to the tensor; its deleter drops that reference,
 * so the storage outlives the exporter's own references as long as the
 * consumer holds it. An import of host memory is a cpu storage that owns
 * nothing but the DLManagedTensor, whose deleter it calls when the storage
 * goes (tensor.c's release hook), so every view keeps the producer's
 * memory alive. Our own accelerator (kDLOpenCL) exports come back as the
 * tensor they hold: nobody else can name their memory. */
#include <stdlib.h>

#include "core/error.h"
#include "libclient/tensor_internal.h"
#include "tessera/dlpack.h"

/* DLPack's type of each dtype; bits 0 means DLPack has no code for it. */
static const DLDataType dlpack_types[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = {TSR_DLPACK_BOOL, 8, 1},  [TSR_UINT8] = {kDLUInt, 8, 1},
    [TSR_INT8] = {kDLInt, 8, 1},           [TSR_UINT16] = {kDLUInt, 16, 1},
    [TSR_INT16] = {kDLInt, 16, 1},         [TSR_UINT32] = {kDLUInt, 32, 1},
    [TSR_INT32] = {kDLInt, 32, 1},         [TSR_UINT64] = {kDLUInt, 64, 1},
    [TSR_INT64] = {kDLInt, 64, 1},         [TSR_FLOAT16] = {kDLFloat, 16, 1},
    [TSR_BFLOAT16] = {kDLBfloat, 16, 1},   [TSR_FLOAT32] = {kDLFloat, 32, 1},
    [TSR_FLOAT64] = {kDLFloat, 64, 1},     [TSR_COMPLEX32] = {kDLComplex, 32, 1},
    [TSR_COMPLEX64] = {kDLComplex, 64, 1}, [TSR_COMPLEX128] = {kDLComplex, 128, 1},
};

/* DLPack's device type of each device type; 0 where DLPack has none. */
static const DLDeviceType dlpack_devices[TSR_DEVICE_TYPE_COUNT] = {
    [TSR_DEVICE_CPU] = kDLCPU,       [TSR_DEVICE_CUDA] = kDLCUDA,   [TSR_DEVICE_OPENCL] = kDLOpenCL,
    [TSR_DEVICE_VULKAN] = kDLVulkan, [TSR_DEVICE_METAL] = kDLMetal, [TSR_DEVICE_HIP] = kDLROCM,
};

typedef struct dlpack_export {
    DLManagedTensor managed; /* first: the deleter gets this pointer */
    /* A tensor of its own over the exported tensor's storage, with its
     * geometry: the exported one may be given another storage later (an
     * out= resized), and the memory must stay as long as the export. */
    tsr_tensor *tensor;
    int64_t shape[TSR_MAX_DIMS];
    int64_t strides[TSR_MAX_DIMS];
} dlpack_export;

static void export_deleter(DLManagedTensor *self)
{
    dlpack_export *e = self->manager_ctx;
    atomic_fetch_sub(&e->tensor->storage->dlpack_exports, 1);
    tsr_tensor_release(e->tensor);
    free(e);
}

tsr_status tsr_tensor_to_dlpack(const tsr_tensor *tensor, unsigned flags, DLManagedTensor **out)
{
    if (tensor == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    if (flags & ~(unsigned)TSR_DLPACK_HOST)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "unknown DLPack export flags 0x%x",
                         flags & ~(unsigned)TSR_DLPACK_HOST);
    tsr_device device = tensor->storage->device;
    DLDataType type = dlpack_types[tensor->dtype];
    if (type.bits == 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "DLPack has no type code for %s",
                         tsr_dtype_name(tensor->dtype));
    bool host = device.type == TSR_DEVICE_CPU || (flags & TSR_DLPACK_HOST);
    if (!host && device.type != TSR_DEVICE_META && dlpack_devices[device.type] == 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "DLPack has no device type for %s",
                         tsr_device_type_name(device.type));
    const char *what = "Cannot pack tensors on meta"; /* the only tensors without memory */
    unsigned char *base = NULL;
    tsr_status st = host ? tsr__tensor_host_ordered(tensor, what, &base)
                         : tsr__tensor_host_base(tensor, what, &base);
    if (st != TSR_OK)
        return st;

    dlpack_export *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a DLPack tensor");
    if ((st = tsr__tensor_view_of(tensor, &tensor->geometry, &e->tensor)) != TSR_OK) {
        free(e);
        return st;
    }
    const tsr_geometry *g = &tensor->geometry;
    for (int d = 0; d < g->ndim; d++) {
        e->shape[d] = g->sizes[d];
        e->strides[d] = g->strides[d];
    }
    /* Offsets inside a storage are bytes the storage has, so they fit. */
    uint64_t offset = (uint64_t)g->offset * tsr_dtype_itemsize(tensor->dtype);
    DLTensor *dl = &e->managed.dl_tensor;
    if (host) {
        /* As PyTorch and NumPy export host memory: the first element,
         * byte_offset 0. Built as an integer: an empty view's offset may
         * lie past its storage. */
        dl->data = (void *)((uintptr_t)base + (uintptr_t)offset);
        dl->device = (DLDevice){kDLCPU, 0};
    } else {
        dl->data = base;
        dl->byte_offset = offset;
        dl->device = (DLDevice){dlpack_devices[device.type], device.index};
    }
    dl->ndim = g->ndim;
    dl->dtype = type;
    dl->shape = e->shape;
    dl->strides = e->strides;
    e->managed.manager_ctx = e;
    e->managed.deleter = export_deleter;
    atomic_fetch_add(&e->tensor->storage->dlpack_exports, 1);
    *out = &e->managed;
    return TSR_OK;
}

static tsr_status dtype_of(DLDataType type, tsr_dtype *out)
{
    if (type.lanes != 1)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "DLPack vector types are not supported (lanes %u; Tessera needs 1)",
                         (unsigned)type.lanes);
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        if (dlpack_types[d].bits != 0 && dlpack_types[d].code == type.code &&
            dlpack_types[d].bits == type.bits) {
            *out = (tsr_dtype)d;
            return TSR_OK;
        }
    }
    return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                     "DLPack type (code %u, bits %u, lanes %u) has no Tessera dtype",
                     (unsigned)type.code, (unsigned)type.bits, (unsigned)type.lanes);
}

/* The geometry of a DLTensor over a storage starting at its first
 * element (offset 0), and the bytes that storage spans. */
static tsr_status geometry_of(const DLTensor *dl, tsr_dtype dtype, tsr_geometry *g,
                              uint64_t *nbytes)
{
    if (dl->ndim < 0 || dl->ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "DLPack tensor has %d dimensions; Tessera supports 0 to %d", dl->ndim,
                         TSR_MAX_DIMS);
    if (dl->ndim > 0 && dl->shape == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "DLPack tensor has no shape");
    for (int d = 0; d < dl->ndim; d++) {
        if (dl->shape[d] < 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "DLPack tensor has a negative size (%lld)",
                             (long long)dl->shape[d]);
        if (dl->strides != NULL && dl->strides[d] < 0)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                             "DLPack tensor has a negative stride (%lld): Tessera's strides are "
                             "non-negative",
                             (long long)dl->strides[d]);
    }
    tsr_status st = tsr_geometry_init(dl->ndim, dl->shape, TSR_CONTIGUOUS_FORMAT, g);
    if (st != TSR_OK)
        return st;
    for (int d = 0; d < dl->ndim && dl->strides != NULL; d++)
        g->strides[d] = dl->strides[d];
    int64_t span, bytes;
    if ((st = tsr_geometry_storage_span(g, &span)) != TSR_OK)
        return st;
    if (__builtin_mul_overflow(span, (int64_t)tsr_dtype_itemsize(dtype), &bytes))
        return tsr__fail(TSR_ERR_OVERFLOW, "DLPack tensor spans more than INT64_MAX bytes");
    if (bytes > 0 && dl->data == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "DLPack tensor has elements but no data");
    *nbytes = (uint64_t)bytes;
    return TSR_OK;
}

static void call_deleter(void *managed)
{
    DLManagedTensor *m = managed;
    if (m->deleter != NULL)
        m->deleter(m);
}

/* One of our own accelerator exports, back in its session. */
static tsr_status import_own(tsr_client *client, DLManagedTensor *managed, tsr_tensor **out)
{
    dlpack_export *e = managed->manager_ctx;
    if (client != e->tensor->storage->client)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "this DLPack tensor belongs to another Tessera session: import it "
                         "with the client that exported it");
    *out = tsr_tensor_retain(e->tensor);
    managed->deleter(managed);
    return TSR_OK;
}

tsr_status tsr_tensor_from_dlpack(tsr_client *client, DLManagedTensor *managed, tsr_tensor **out)
{
    if (managed == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "DLPack tensor and output must not be NULL");
    const DLTensor *dl = &managed->dl_tensor;
    if (dl->device.device_type != kDLCPU && managed->deleter == export_deleter)
        return import_own(client, managed, out);
    if (dl->device.device_type != kDLCPU)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "DLPack device type %d is not supported: Tessera imports kDLCPU memory "
                         "and the kDLOpenCL tensors it exported",
                         (int)dl->device.device_type);
    tsr_dtype dtype = TSR_BOOL;
    tsr_geometry g;
    uint64_t nbytes = 0;
    tsr_status st = dtype_of(dl->dtype, &dtype);
    if (st == TSR_OK)
        st = geometry_of(dl, dtype, &g, &nbytes);
    if (st != TSR_OK)
        return st;
    void *data = (void *)((uintptr_t)dl->data + (uintptr_t)dl->byte_offset);
    return tsr__tensor_wrap_host(data, nbytes, dtype, &g, call_deleter, managed, out);
}
