/* Host copies: a tensor's elements to and from a packed row-major buffer,
 * for any strides, and the strided walker they (and reshape's copy) share.
 *
 * Kernels on an accelerator run behind the caller's back, so every host
 * access the library makes to an accelerator's storage waits first for
 * the kernels this client queued on that device (tsr__tensor_host_ordered):
 * a read must see what they write, and a write must not change what they
 * read or be overwritten by what they write, as PyTorch's .cpu() and
 * copy_ from the host do. Waiting for the device's last launch, rather
 * than the last one that touched this storage, costs an atomic load when
 * the queue is idle and never misses a kernel.
 *
 * The walker first simplifies the geometry: size-1 dimensions go, and a
 * dimension whose stride is exactly what the next one spans merges into
 * it, so a contiguous tensor is one memcpy, a slice of rows is one memcpy
 * per row, and only truly scattered elements are copied one by one. */
#include <string.h>

#include "core/error.h"
#include "libclient/client.h"
#include "libclient/tensor_internal.h"

static void walk(unsigned char *base, const tsr_geometry *g, size_t itemsize, unsigned char *packed,
                 bool gather)
{
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < g->ndim; d++) {
        int64_t span;
        if (g->sizes[d] == 0)
            return;
        if (g->sizes[d] == 1)
            continue;
        if (n > 0 && !__builtin_mul_overflow(g->sizes[d], g->strides[d], &span) &&
            strides[n - 1] == span) {
            sizes[n - 1] *= g->sizes[d];
            strides[n - 1] = g->strides[d];
        } else {
            sizes[n] = g->sizes[d];
            strides[n] = g->strides[d];
            n++;
        }
    }
    /* A unit-stride innermost dimension is one run; the rest are loops,
     * the innermost of them written out for speed. */
    size_t run = itemsize;
    if (n > 0 && strides[n - 1] == 1) {
        run = (size_t)sizes[n - 1] * itemsize;
        n--;
    }
    int64_t inner_size = 1, inner_step = 0;
    if (n > 0) {
        inner_size = sizes[n - 1];
        inner_step = strides[n - 1] * (int64_t)itemsize;
        n--;
    }
    /* Byte positions, not pointers: the odometer steps one past a
     * dimension's end before it wraps. */
    int64_t index[TSR_MAX_DIMS] = {0}, at = g->offset * (int64_t)itemsize;
    for (;;) {
        unsigned char *p = base + at;
        for (int64_t i = 0; i < inner_size; i++, packed += run) {
            /* memmove: a caller may pass a host buffer that is another
             * view of the same storage. */
            if (gather)
                memmove(packed, p, run);
            else
                memmove(p, packed, run);
            if (i + 1 < inner_size)
                p += inner_step;
        }
        int d = n - 1;
        for (; d >= 0; d--) { /* odometer over the outer dimensions */
            at += strides[d] * (int64_t)itemsize;
            if (++index[d] < sizes[d])
                break;
            at -= sizes[d] * strides[d] * (int64_t)itemsize;
            index[d] = 0;
        }
        if (d < 0)
            return;
    }
}

void tsr__strided_gather(const unsigned char *base, const tsr_geometry *g, size_t itemsize,
                         void *packed)
{
    /* The view is only read in this direction. */
    walk((unsigned char *)base, g, itemsize, packed, true);
}

void tsr__strided_scatter(unsigned char *base, const tsr_geometry *g, size_t itemsize,
                          const void *packed)
{
    /* The packed buffer is only read in this direction. */
    walk(base, g, itemsize, (unsigned char *)packed, false);
}

tsr_status tsr__tensor_host_ordered(const tsr_tensor *t, const char *what, unsigned char **out)
{
    const tsr__storage *s = t->storage;
    unsigned char *base = NULL;
    tsr_status st = tsr__tensor_host_base(t, what, &base);
    if (st == TSR_OK && s->client && s->device.type != TSR_DEVICE_CPU)
        st = tsr__client_synchronize(s->client, s->device);
    if (st == TSR_OK)
        *out = base;
    return st;
}

/* The checks both directions share: arguments, the buffer's size, meta. */
static tsr_status check_copy(const tsr_tensor *t, const void *buf, size_t nbytes,
                             const char *meta_message, unsigned char **base)
{
    if (t == NULL || (buf == NULL && nbytes > 0))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and buffer must not be NULL");
    int64_t need = tsr_tensor_nbytes(t);
    if ((uint64_t)need != nbytes)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "the host buffer has %zu bytes but the tensor's %lld elements of %s "
                         "take %lld",
                         nbytes, (long long)t->numel, tsr_dtype_name(t->dtype), (long long)need);
    return tsr__tensor_host_ordered(t, meta_message, base);
}

tsr_status tsr_tensor_copy_to_host(const tsr_tensor *tensor, void *dst, size_t nbytes)
{
    unsigned char *base = NULL;
    tsr_status st =
        check_copy(tensor, dst, nbytes, "Cannot copy out of meta tensor; no data!", &base);
    if (st != TSR_OK)
        return st;
    tsr__strided_gather(base, &tensor->geometry, tsr_dtype_itemsize(tensor->dtype), dst);
    return TSR_OK;
}

bool tsr__has_internal_overlap(const tsr_geometry *g)
{
    if (tsr_is_non_overlapping_and_dense(g->ndim, g->sizes, g->strides))
        return false;
    for (int d = 0; d < g->ndim; d++)
        if (g->strides[d] == 0 && g->sizes[d] > 1)
            return true;
    return false;
}

tsr_status tsr_tensor_copy_from_host(tsr_tensor *tensor, const void *src, size_t nbytes)
{
    unsigned char *base = NULL;
    tsr_status st =
        check_copy(tensor, src, nbytes, "Cannot copy into meta tensor; no data!", &base);
    if (st == TSR_OK)
        st = tsr__tensor_writable(tensor);
    if (st != TSR_OK)
        return st;
    if (tsr__has_internal_overlap(&tensor->geometry))
        return tsr__fail(TSR_ERR_RUNTIME,
                         "unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
    tsr__strided_scatter(base, &tensor->geometry, tsr_dtype_itemsize(tensor->dtype), src);
    return TSR_OK;
}
