/* Internal: the tensor layer's objects, shared by tensor*.c.
 *
 * A tsr__storage is one block of memory on one device (or, for meta, a
 * size without memory); a tsr_tensor is a dtype and a geometry over a
 * storage. Both are reference-counted; views are new tensors holding a
 * reference to their base's storage, so a storage lives as long as any
 * tensor viewing it. */
#ifndef TESSERA_LIBCLIENT_TENSOR_INTERNAL_H
#define TESSERA_LIBCLIENT_TENSOR_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/tensor.h"

typedef struct tsr__storage {
    atomic_long refs;
    tsr_client *client;  /* retained for accelerator memory; NULL for cpu and meta */
    tsr_device device;   /* resolved: cpu and meta index-less, accelerators indexed */
    unsigned char *data; /* host address; NULL for meta and non-host-visible memory */
    void *block;         /* what free() takes: cpu memory only */
    /* An accelerator block's address in this process's mapping of its
     * segment, host-visible or not: what the block cache and the segment
     * table know it by. */
    unsigned char *mapped;
    /* An accelerator block alone in its segment (ALLOC's ALONE), as an
     * export needs: tsr__storage_make_alone moves it there. */
    bool alone;
    /* The block it was moved from while DLPack exports still pointed at
     * it: released with this storage. */
    struct tsr__storage *moved_from;
    uint64_t nbytes;
    uint64_t handle; /* the daemon's handle of an accelerator block */
    /* Foreign host memory (tsr__tensor_wrap_host): called once with
     * release_ctx when the storage goes; NULL otherwise. */
    void (*release)(void *release_ctx);
    void *release_ctx;
    /* Another process's export (libclient/share.c): the release hook, not
     * the block cache, gives the import back; client is retained all the
     * same, for launches (accelerators). */
    bool imported;
    /* Importers may not write it (a read-only export): the library refuses
     * to, and the mapping is read-only. */
    bool read_only;
    /* cpu memory in tesserad's shared memory (tsr_tensor_share_memory_):
     * the session that holds it (retained by the release hook), and
     * `handle` is the daemon's handle of it; NULL otherwise. */
    tsr_client *share_client;
    /* Exported to other processes: its block goes back to the daemon, not
     * to this library's cache. */
    atomic_bool exported;
    /* DLPack exports of it not yet deleted: they hold its data's address,
     * so tsr_tensor_share_memory_ keeps the old block until it goes. */
    atomic_int dlpack_exports;
} tsr__storage;

struct tsr_tensor {
    atomic_long refs;
    tsr__storage *storage;
    tsr_dtype dtype;
    tsr_layout layout;
    tsr_geometry geometry;
    int64_t numel;
};

/* A device as a factory asks for it -> the device memory goes to: cpu and
 * meta lose their index (PyTorch ignores it), an index-less accelerator
 * becomes the current one. Refuses opencl without a client
 * (TSR_ERR_INVALID_ARGUMENT) and, through the connection layer, types and
 * indices that do not exist here (TSR_ERR_NO_DEVICE). */
tsr_status tsr__tensor_resolve_device(tsr_client *client, tsr_device device, tsr_device *out);

/* Moves an accelerator storage to a block alone in its segment, unless it
 * is there already: a new block, the bytes copied on the device's queue
 * (in order with the client's kernels) and waited for, the old block
 * given back; on failure the storage keeps its memory. Every
 * view of the storage follows, as share_memory_'s do; no other thread may
 * use the storage meanwhile. */
tsr_status tsr__storage_make_alone(tsr__storage *s);

/* A fresh tensor of `dtype` and geometry `g` on a resolved device, its
 * storage just large enough for g: zeros with `zero`, else uninitialised. */
tsr_status tsr__tensor_alloc(tsr_client *client, tsr_device device, tsr_dtype dtype,
                             const tsr_geometry *g, bool zero, tsr_tensor **out);

/* A cpu tensor of `dtype` and geometry g over host memory this library
 * does not own: `data` is the storage (nbytes, g inside it). When the
 * last tensor viewing it goes, release(release_ctx) is called, once. On
 * failure nothing is called: the memory stays the caller's. */
tsr_status tsr__tensor_wrap_host(void *data, uint64_t nbytes, tsr_dtype dtype,
                                 const tsr_geometry *g, void (*release)(void *), void *release_ctx,
                                 tsr_tensor **out);

/* An accelerator tensor over memory imported from another process
 * (libclient/share.c): `data` is its host address here (NULL where the
 * host cannot address the device), `handle` the daemon's handle of the
 * import. When the last tensor viewing it goes, release(release_ctx) is
 * called, once, while the client is still retained. */
tsr_status tsr__tensor_wrap_import(tsr_client *client, tsr_device device, void *data,
                                   uint64_t handle, uint64_t nbytes, tsr_dtype dtype,
                                   const tsr_geometry *g, void (*release)(void *),
                                   void *release_ctx, tsr_tensor **out);

/* TSR_OK when the library may write t's elements; TSR_ERR_PERMISSION for
 * a read-only import. */
tsr_status tsr__tensor_writable(const tsr_tensor *t);

/* A tensor over t's storage with geometry g (a view); g must lie inside
 * the storage. */
tsr_status tsr__tensor_view_of(const tsr_tensor *t, const tsr_geometry *g, tsr_tensor **out);

/* The dimensions of a that `ndims` dims (negative ones wrapping; none:
 * all of them) reduce: mask[d]. PyTorch's TSR_ERR_INDEX for one out of
 * range and TSR_ERR_RUNTIME for one repeated. */
tsr_status tsr__reduced_dims(const tsr_tensor *a, const int64_t *dims, int ndims,
                             bool mask[TSR_MAX_DIMS]);
/* A reduction's out=: TSR_OK when t has dtype `want`, else PyTorch's
 * "Expected out tensor to have dtype float, but got double instead". */
tsr_status tsr__expect_out_dtype(const tsr_tensor *t, tsr_dtype want);
/* A reduction's out= fitted to the result's geometry `want`: one that
 * overlaps itself is refused (PyTorch's message), one of another shape
 * takes a new contiguous storage (PyTorch resizes it, with a warning). */
tsr_status tsr__fit_reduction_out(tsr_tensor *out, const tsr_geometry *want);

/* The host address of t's storage (not offset), or the error for meta
 * tensors ("what" names the refused operation) and for memory the host
 * cannot address. */
tsr_status tsr__tensor_host_base(const tsr_tensor *t, const char *what, unsigned char **out);
/* tsr__tensor_host_base for the library's own host reads and writes of
 * t's elements: first waits for the kernels this client queued on t's
 * device (an accelerator's), which may read or write that storage, and
 * reports an error one of them raised. Only tsr_tensor_data_ptr hands out
 * the address without waiting: its caller orders its own accesses. */
tsr_status tsr__tensor_host_ordered(const tsr_tensor *t, const char *what, unsigned char **out);

/* Moves the elements of the strided view g over `base` (storage bytes, of
 * itemsize each) to `packed` in row-major order (gather), or from it
 * (scatter). Contiguous inner runs are copied with one memcpy each. */
void tsr__strided_gather(const unsigned char *base, const tsr_geometry *g, size_t itemsize,
                         void *packed);
void tsr__strided_scatter(unsigned char *base, const tsr_geometry *g, size_t itemsize,
                          const void *packed);

/* ATen's has_internal_overlap() == YES: some dimension of size > 1 with
 * stride 0 (expanded). Other overlapping layouts are "too hard" to prove
 * and, as in PyTorch, allowed. */
bool tsr__has_internal_overlap(const tsr_geometry *g);

/* One element of `dtype` (16 bytes of room) holding `value`, converted as
 * fill_ converts it: c10's Scalar::to<T>(), which refuses values out of
 * the dtype's range with TSR_ERR_RUNTIME "value cannot be converted to
 * type int8_t without overflow". */
tsr_status tsr__scalar_to_element(tsr_scalar value, tsr_dtype dtype, unsigned char *element);

#endif /* TESSERA_LIBCLIENT_TENSOR_INTERNAL_H */
