/* Tensor objects: storages and tensors, their lifetime, their attributes and
 * data_ptr, and where a tensor's memory comes from.
 *
 * cpu memory is this process's own (64-byte aligned); accelerator memory is
 * a block of a daemon arena mapped into this process, reached through the
 * connection layer (libclient/client.h); meta tensors have a storage with a
 * size and no memory, so that views and as_strided check bounds as they do
 * elsewhere. Factories live in tensor_factory.c, views in tensor_view.c and
 * host copies in tensor_copy.c. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/error.h"
#include "libclient/client.h"
#include "libclient/tensor_internal.h"
#include "tessera/ops.h"

/* cpu storages are aligned like PyTorch's allocator (c10's gAlignment). */
#define CPU_ALIGNMENT 64
/* Storages from this size up are aligned to, and asked to be backed by,
 * transparent huge pages: a fresh output of tens of MiB otherwise spends
 * more time in page faults than in the operation that fills it. */
#define CPU_HUGE_PAGE (UINT64_C(2) << 20)

tsr_status tsr__tensor_resolve_device(tsr_client *client, tsr_device device, tsr_device *out)
{
    if ((unsigned)device.type >= TSR_DEVICE_TYPE_COUNT || device.index < -1 ||
        device.index > TSR_DEVICE_INDEX_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid device (type %d, index %d)",
                         (int)device.type, (int)device.index);
    /* Accelerator tensors live in tesserad's memory, whichever backend
     * serves them, so any accelerator type needs a session; with one, the
     * connection layer words every other refusal (types the daemon does
     * not serve, indices out of range). cpu and meta come back index-less:
     * torch.zeros(2, device='cpu:1').device is device('cpu'). */
    if (client == NULL && device.type != TSR_DEVICE_CPU && device.type != TSR_DEVICE_META) {
        char name[TSR_DEVICE_STR_MAX];
        tsr_device_str(device, name, sizeof(name));
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "cannot allocate on %s without a client: %s tensors live in "
                         "tesserad's memory (pass the tsr_client from tsr_client_open)",
                         name, tsr_device_type_name(device.type));
    }
    return tsr__client_resolve_device(client, device, out);
}

static tsr_status not_host_visible(tsr_device device)
{
    char name[TSR_DEVICE_STR_MAX];
    tsr_device_str(device, name, sizeof(name));
    return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                     "the memory of %s is not host-visible: the host cannot address it here", name);
}

/* cpu memory: aligned as c10's allocator aligns it, and for zeros taken
 * from calloc, whose large blocks come zeroed from the kernel (PyTorch
 * writes them; the result is the same). 0 bytes still gets a distinct
 * block, a storage of its own. */
static tsr_status cpu_alloc(tsr__storage *s, bool zero)
{
    uint64_t padded;
    if (!__builtin_add_overflow(s->nbytes, CPU_ALIGNMENT, &padded) && padded <= SIZE_MAX) {
        if (zero) {
            s->block = calloc(1, (size_t)padded);
            uintptr_t at =
                ((uintptr_t)s->block + CPU_ALIGNMENT - 1) & ~(uintptr_t)(CPU_ALIGNMENT - 1);
            s->data = (unsigned char *)at;
        } else {
            /* aligned_alloc wants a multiple of the alignment */
            uint64_t align = padded >= 2 * CPU_HUGE_PAGE ? CPU_HUGE_PAGE : CPU_ALIGNMENT;
            size_t bytes = (size_t)(padded + align - 1 - (padded + align - 1) % align);
            s->block = bytes >= padded ? aligned_alloc((size_t)align, bytes) : NULL;
            s->data = s->block;
            /* Advice only: where huge pages are off, nothing changes. */
            if (s->block && align == CPU_HUGE_PAGE)
                (void)madvise(s->block, bytes, MADV_HUGEPAGE);
        }
    }
    if (s->block == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY,
                         "DefaultCPUAllocator: not enough memory: you tried to allocate %llu "
                         "bytes.",
                         (unsigned long long)s->nbytes);
    return TSR_OK;
}

/* Accelerator memory: a block of the daemon's arena, mapped here. Blocks
 * come from a cache, so zeros are written. */
static tsr_status device_alloc(tsr__storage *s, tsr_client *client, bool zero, bool alone)
{
    assert(client != NULL); /* tsr__tensor_resolve_device refuses accelerators without one */
    void *data = NULL;
    bool in_use = false;
    tsr_status st =
        tsr__client_alloc(client, s->device, s->nbytes, alone, &data, &s->handle, &in_use);
    if (st != TSR_OK)
        return st;
    tsr__client_retain(client);
    s->client = client;
    s->mapped = data;
    s->alone = alone;
    s->data = tsr__client_host_visible(client, s->device) ? data : NULL;
    if (zero && s->data == NULL)
        return not_host_visible(s->device);
    /* The zeros are the host's writes: after the kernels of the block's
     * last owner, which may still read or write it. */
    if (zero && in_use && (st = tsr__client_synchronize(client, s->device)) != TSR_OK)
        return st;
    if (zero)
        memset(s->data, 0, (size_t)s->nbytes);
    return TSR_OK;
}

static void storage_release(tsr__storage *s)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (s->release != NULL)
        s->release(s->release_ctx);
    if (s->client != NULL) {
        if (!s->imported)
            tsr__client_free(s->client, s->device, s->handle, s->nbytes, s->mapped,
                             atomic_load_explicit(&s->exported, memory_order_acquire), s->alone);
        tsr__client_release(s->client);
    }
    if (s->moved_from)
        storage_release(s->moved_from);
    free(s->block);
    free(s);
}

/* A storage of nbytes on a resolved device, zeroed on request; one
 * reference. */
static tsr_status storage_new(tsr_client *client, tsr_device device, uint64_t nbytes, bool zero,
                              tsr__storage **out)
{
    tsr__storage *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a tensor storage");
    atomic_init(&s->refs, 1);
    s->device = device;
    s->nbytes = nbytes;
    tsr_status st = TSR_OK;
    if (device.type == TSR_DEVICE_CPU)
        st = cpu_alloc(s, zero);
    else if (device.type != TSR_DEVICE_META)
        st = device_alloc(s, client, zero, false);
    if (st != TSR_OK) {
        storage_release(s);
        return st;
    }
    *out = s;
    return TSR_OK;
}

/* Wraps g over s, taking over the caller's reference to s. */
static tsr_status tensor_new(tsr__storage *s, tsr_dtype dtype, const tsr_geometry *g,
                             tsr_tensor **out)
{
    int64_t numel = 0;
    tsr_status st = tsr_numel(g->ndim, g->sizes, &numel);
    if (st != TSR_OK) { /* the checked views and factories never get here */
        storage_release(s);
        return st;
    }
    tsr_tensor *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        storage_release(s);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a tensor");
    }
    atomic_init(&t->refs, 1);
    t->storage = s;
    t->dtype = dtype;
    t->layout = TSR_STRIDED;
    t->geometry = *g;
    t->numel = numel;
    *out = t;
    return TSR_OK;
}

tsr_status tsr__tensor_alloc(tsr_client *client, tsr_device device, tsr_dtype dtype,
                             const tsr_geometry *g, bool zero, tsr_tensor **out)
{
    int64_t span, nbytes;
    tsr_status st = tsr_geometry_storage_span(g, &span);
    if (st != TSR_OK)
        return st;
    if (__builtin_mul_overflow(span, (int64_t)tsr_dtype_itemsize(dtype), &nbytes)) {
        char text[TSR__DIMS_TEXT];
        return tsr__fail(TSR_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s",
                         tsr__format_dims(text, sizeof(text), g->sizes, g->ndim));
    }
    tsr__storage *s = NULL;
    if ((st = storage_new(client, device, (uint64_t)nbytes, zero, &s)) != TSR_OK)
        return st;
    return tensor_new(s, dtype, g, out);
}

tsr_status tsr__tensor_wrap_host(void *data, uint64_t nbytes, tsr_dtype dtype,
                                 const tsr_geometry *g, void (*release)(void *), void *release_ctx,
                                 tsr_tensor **out)
{
    /* A storage that allocates nothing (as meta's do), then pointed at
     * the caller's memory. */
    tsr__storage *s = NULL;
    tsr_status st = storage_new(NULL, (tsr_device){TSR_DEVICE_META, -1}, nbytes, false, &s);
    if (st != TSR_OK)
        return st;
    s->device = (tsr_device){TSR_DEVICE_CPU, -1};
    s->data = data;
    /* The hook only once the tensor exists: a failure here must not
     * release what the caller still owns. */
    if ((st = tensor_new(s, dtype, g, out)) != TSR_OK)
        return st;
    s->release = release;
    s->release_ctx = release_ctx;
    return TSR_OK;
}

tsr_status tsr__tensor_wrap_import(tsr_client *client, tsr_device device, void *data,
                                   uint64_t handle, uint64_t nbytes, tsr_dtype dtype,
                                   const tsr_geometry *g, void (*release)(void *),
                                   void *release_ctx, tsr_tensor **out)
{
    tsr__storage *s = NULL;
    tsr_status st = storage_new(NULL, (tsr_device){TSR_DEVICE_META, -1}, nbytes, false, &s);
    if (st != TSR_OK)
        return st;
    s->device = device;
    s->data = data;
    s->handle = handle;
    s->imported = true;
    if ((st = tensor_new(s, dtype, g, out)) != TSR_OK)
        return st;
    tsr__client_retain(client);
    s->client = client;
    s->release = release;
    s->release_ctx = release_ctx;
    return TSR_OK;
}

tsr_status tsr__storage_make_alone(tsr__storage *s)
{
    if (s->alone || s->client == NULL || s->imported)
        return TSR_OK;
    tsr__storage *fresh = calloc(1, sizeof *fresh);
    if (fresh == NULL)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a tensor storage");
    atomic_init(&fresh->refs, 1);
    fresh->device = s->device;
    fresh->nbytes = s->nbytes;
    tsr_status st = device_alloc(fresh, s->client, false, true);
    /* The bytes, as uint8 over the whole storage: every view's. */
    tsr_geometry g = {.ndim = 1, .sizes = {(int64_t)s->nbytes}, .strides = {1}};
    tsr_tensor *from = NULL, *to = NULL;
    if (st == TSR_OK && s->nbytes) {
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
        st = tensor_new(s, TSR_UINT8, &g, &from);
        if (st == TSR_OK) {
            atomic_fetch_add_explicit(&fresh->refs, 1, memory_order_relaxed);
            st = tensor_new(fresh, TSR_UINT8, &g, &to);
        }
        if (st == TSR_OK)
            st = tsr_tensor_copy_(to, from);
        tsr_tensor_release(from);
        tsr_tensor_release(to);
    }
    /* The copy is done before the storage lets go of its memory: where it
     * failed (no room for the device's buffer, say), the tensor keeps it. */
    if (st == TSR_OK)
        st = tsr__client_synchronize(s->client, s->device);
    if (st != TSR_OK) {
        storage_release(fresh);
        return st;
    }
    /* fresh takes the old block, s the new one. */
    uint64_t handle = s->handle;
    unsigned char *data = s->data, *mapped = s->mapped;
    s->handle = fresh->handle;
    s->data = fresh->data;
    s->mapped = fresh->mapped;
    s->alone = true;
    fresh->handle = handle;
    fresh->data = data;
    fresh->mapped = mapped;
    fresh->alone = false;
    /* A DLPack export still reads and writes the old block: it stays,
     * apart, until the storage goes (as tsr_tensor_share_memory_ keeps
     * the old memory). */
    assert(s->moved_from == NULL); /* one move: the storage is alone after it */
    if (atomic_load(&s->dlpack_exports) > 0)
        s->moved_from = fresh;
    else
        storage_release(fresh);
    return TSR_OK;
}

tsr_status tsr__tensor_writable(const tsr_tensor *t)
{
    if (!t->storage->read_only)
        return TSR_OK;
    return tsr__fail(TSR_ERR_PERMISSION,
                     "the tensor was imported read-only (its exporter shared it so): it may not "
                     "be written");
}

tsr_status tsr__tensor_view_of(const tsr_tensor *t, const tsr_geometry *g, tsr_tensor **out)
{
    atomic_fetch_add_explicit(&t->storage->refs, 1, memory_order_relaxed);
    return tensor_new(t->storage, t->dtype, g, out);
}

tsr_status tsr__tensor_host_base(const tsr_tensor *t, const char *what, unsigned char **out)
{
    const tsr__storage *s = t->storage;
    if (s->device.type == TSR_DEVICE_META)
        return tsr__fail(TSR_ERR_RUNTIME, "%s", what);
    if (s->data == NULL)
        return not_host_visible(s->device);
    *out = s->data;
    return TSR_OK;
}

/* ---- Lifetime ------------------------------------------------------- */

tsr_tensor *tsr_tensor_retain(tsr_tensor *tensor)
{
    if (tensor != NULL)
        atomic_fetch_add_explicit(&tensor->refs, 1, memory_order_relaxed);
    return tensor;
}

void tsr_tensor_release(tsr_tensor *tensor)
{
    if (tensor == NULL || atomic_fetch_sub_explicit(&tensor->refs, 1, memory_order_acq_rel) != 1)
        return;
    storage_release(tensor->storage);
    free(tensor);
}

/* ---- Attributes ----------------------------------------------------- */

tsr_dtype tsr_tensor_dtype(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->dtype;
}

tsr_device tsr_tensor_device(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->storage->device;
}

int64_t tsr_tensor_get_device(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->storage->device.index; /* -1 for cpu and meta */
}

tsr_layout tsr_tensor_layout(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->layout;
}

int tsr_tensor_ndim(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->geometry.ndim;
}

const int64_t *tsr_tensor_sizes(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->geometry.sizes;
}

const int64_t *tsr_tensor_strides(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->geometry.strides;
}

int64_t tsr_tensor_storage_offset(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->geometry.offset;
}

int64_t tsr_tensor_numel(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tensor->numel;
}

int64_t tsr_tensor_nbytes(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    /* numel elements lie inside the storage, so this cannot overflow. */
    return tensor->numel * (int64_t)tsr_dtype_itemsize(tensor->dtype);
}

size_t tsr_tensor_itemsize(const tsr_tensor *tensor)
{
    assert(tensor != NULL);
    return tsr_dtype_itemsize(tensor->dtype);
}

bool tsr_tensor_is_contiguous(const tsr_tensor *tensor, tsr_memory_format format)
{
    assert(tensor != NULL);
    const tsr_geometry *g = &tensor->geometry;
    return tsr_is_contiguous(g->ndim, g->sizes, g->strides, format);
}

void tsr_tensor_geometry(const tsr_tensor *tensor, tsr_geometry *out)
{
    assert(tensor != NULL && out != NULL);
    *out = tensor->geometry;
}

/* size(dim) and stride(dim): c10 words a 0-dim tensor's refusal apart. */
static tsr_status dim_entry(const tsr_tensor *tensor, int64_t dim, const int64_t *entries,
                            int64_t *out)
{
    if (tensor == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    if (tensor->geometry.ndim == 0)
        return tsr__fail(TSR_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                         (long long)dim);
    int d;
    tsr_status st = tsr_wrap_dim(dim, tensor->geometry.ndim, &d);
    if (st != TSR_OK)
        return st;
    *out = entries[d];
    return TSR_OK;
}

tsr_status tsr_tensor_size(const tsr_tensor *tensor, int64_t dim, int64_t *out)
{
    return dim_entry(tensor, dim, tensor ? tensor->geometry.sizes : NULL, out);
}

tsr_status tsr_tensor_stride(const tsr_tensor *tensor, int64_t dim, int64_t *out)
{
    return dim_entry(tensor, dim, tensor ? tensor->geometry.strides : NULL, out);
}

size_t tsr_tensor_type(const tsr_tensor *tensor, char *buf, size_t n)
{
    assert(tensor != NULL);
    return tsr_tensor_type_name(tensor->dtype, tensor->storage->device.type,
                                tensor->layout == TSR_SPARSE_COO, buf, n);
}

bool tsr_tensor_shares_storage(const tsr_tensor *a, const tsr_tensor *b)
{
    return a != NULL && b != NULL && a->storage == b->storage;
}

tsr_status tsr_tensor_data_ptr(const tsr_tensor *tensor, void **out)
{
    if (tensor == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tensor and output must not be NULL");
    unsigned char *base = NULL;
    tsr_status st = tsr__tensor_host_base(
        tensor, "Cannot access data pointer of Tensor that doesn't have storage", &base);
    if (st != TSR_OK)
        return st;
    /* An empty view may carry an offset past the storage's end (as_strided
     * accepts any offset for it): compute the address without forming an
     * out-of-bounds pointer. */
    uintptr_t at = (uintptr_t)base + (uintptr_t)tensor->geometry.offset *
                                         (uintptr_t)tsr_dtype_itemsize(tensor->dtype);
    *out = (void *)at;
    return TSR_OK;
}
