/* Sharing tensors between processes (tessera/share.h): EXPORT, IMPORT and
 * REVOKE (docs/protocol.md), and the tensor over an import's mapping. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/region.h"
#include "libclient/client.h"
#include "libclient/connection.h"
#include "libclient/tensor_internal.h"
#include "tessera/share.h"

static tsr_status reserved_zero(const tsr_export_options *o)
{
    for (size_t k = 0; k < sizeof o->abi_reserved / sizeof o->abi_reserved[0]; k++)
        if (o->abi_reserved[k] != 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "tsr_export_options: reserved word %zu is not zero (a newer "
                             "program's option this library does not know)",
                             k);
    return TSR_OK;
}

tsr_status tsr_tensor_export(const tsr_tensor *t, const tsr_export_options *options,
                             tsr_export_handle *out)
{
    if (t == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_tensor_export: NULL argument");
    tsr_export_options o = {0};
    if (options)
        o = *options;
    tsr_status st = reserved_zero(&o);
    if (st != TSR_OK)
        return st;
    uint64_t known = TSR_EXPORT_READ_ONLY | TSR_EXPORT_ALLOW_UID | TSR_EXPORT_ALLOW_GID;
    if (o.flags & ~known)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_export_options: unknown flags 0x%llx",
                         (unsigned long long)(o.flags & ~known));
    const tsr__storage *s = t->storage;
    if (s->imported)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "an imported tensor cannot be exported again: export it from the "
                         "process that made it");
    tsr_client *client = s->client ? s->client : s->share_client;
    if (client == NULL && s->device.type == TSR_DEVICE_CPU)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "cannot export a cpu tensor in this process's own memory: move it to "
                         "shared memory first (tsr_tensor_share_memory_)");
    if (client == NULL) {
        char name[TSR_DEVICE_STR_MAX];
        tsr_device_str(s->device, name, sizeof name);
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "cannot export a %s tensor: it has no memory",
                         name);
    }
    /* What the exporter's kernels write before the export, importers see
     * (cpu operations are done when they return). */
    if (s->client && (st = tsr__client_synchronize(s->client, s->device)) != TSR_OK)
        return st;
    /* The daemon clears a sealed segment past the size its ALLOC asked
     * for; this library's block cache may have handed the block to a
     * smaller tensor since, and the bytes between were the last one's. */
    if (s->client && !s->alone && s->mapped) {
        uint64_t rounded = s->nbytes ? (s->nbytes + 511) / 512 * 512 : 512;
        memset(s->mapped + s->nbytes, 0, (size_t)(rounded - s->nbytes));
    }
    tsr__wire_export req = {.dtype = (int32_t)t->dtype,
                            .flags = (uint32_t)o.flags, /* the same bits on the wire */
                            .allow_uid = o.allow_uid,
                            .allow_gid = o.allow_gid};
    req.region = (tsr__wire_region){.handle = s->handle,
                                    .itemsize = (uint32_t)tsr_dtype_itemsize(t->dtype),
                                    .ndim = t->geometry.ndim,
                                    .offset = t->geometry.offset};
    for (int d = 0; d < t->geometry.ndim; d++) {
        req.region.sizes[d] = t->geometry.sizes[d];
        req.region.strides[d] = t->geometry.strides[d];
    }
    tsr__wire_share_key key;
    st = tsr__socket_call(client, TSR__OP_EXPORT, &req, sizeof req, &key, sizeof key, NULL, NULL);
    /* An importer gets the memfd of the block's segment, so the daemon
     * exports only a block alone in it. It makes it so when no other live
     * block is there; else (a small tensor among others) the block moves
     * to a segment of its own, once, and its views follow. */
    if (st == TSR_ERR_RUNTIME && s->client && !s->alone) {
        if ((st = tsr__storage_make_alone((tsr__storage *)s)) != TSR_OK)
            return st;
        req.region.handle = s->handle;
        st = tsr__socket_call(client, TSR__OP_EXPORT, &req, sizeof req, &key, sizeof key, NULL,
                              NULL);
    }
    if (st != TSR_OK)
        return st;
    if (s->client)
        ((tsr__storage *)s)->alone = true; /* the daemon made or found it so */
    atomic_store_explicit(&((tsr__storage *)s)->exported, true, memory_order_release);
    out->id = key.id;
    memcpy(out->secret, key.secret, sizeof out->secret);
    return TSR_OK;
}

/* What an imported tensor's storage gives back when it goes. */
typedef struct import_ctx {
    tsr_client *client;
    uint64_t handle;
    void *map;
    size_t map_bytes;
    bool holds_client; /* a reference of its own on client (cpu memory) */
    void *old_block;   /* the storage's memory before it was shared, which
                          DLPack exports still pointed at (free() takes it) */
} import_ctx;

static void import_release(void *p)
{
    import_ctx *ctx = p;
    tsr__wire_handle req = {.handle = ctx->handle};
    (void)tsr__client_call(ctx->client, TSR__OP_FREE, &req, NULL); /* gone with the session */
    munmap(ctx->map, ctx->map_bytes);
    if (ctx->holds_client) /* cpu memory: nothing else keeps the session */
        tsr__client_release(ctx->client);
    free(ctx->old_block);
    free(ctx);
}

/* The reply's claims, before anything is mapped. */
static tsr_status check_imported(const tsr__wire_imported *r, tsr_geometry *g)
{
    uint64_t end;
    if (r->size == 0 || __builtin_add_overflow(r->offset, r->size, &end) ||
        end > r->segment_bytes || r->dtype < 0 || r->dtype >= TSR_DTYPE_COUNT ||
        r->region.itemsize != tsr_dtype_itemsize((tsr_dtype)r->dtype) || r->region.ndim < 0 ||
        r->region.ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad's IMPORT reply fails its checks");
    tsr__region reg = {
        .itemsize = r->region.itemsize, .ndim = r->region.ndim, .offset = r->region.offset};
    memcpy(reg.sizes, r->region.sizes, sizeof reg.sizes);
    memcpy(reg.strides, r->region.strides, sizeof reg.strides);
    uint64_t span;
    if (tsr__region_check(&reg, r->size, &span) != TSR_OK)
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad's IMPORT reply names a view outside it");
    *g = (tsr_geometry){.ndim = r->region.ndim, .offset = r->region.offset};
    for (int d = 0; d < g->ndim; d++) {
        g->sizes[d] = r->region.sizes[d];
        g->strides[d] = r->region.strides[d];
    }
    return TSR_OK;
}

/* The client's ordinal of the session's device `index`. */
static tsr_status client_device(tsr_client *c, tsr__wire_device w, tsr_device *out)
{
    if (w.type == TSR_DEVICE_CPU && w.index == -1) {
        *out = (tsr_device){TSR_DEVICE_CPU, -1};
        return TSR_OK;
    }
    if (w.type == (int32_t)c->accelerator)
        for (int32_t k = 0; k < c->visible_count; k++)
            if (c->visible[k] == w.index) {
                *out = (tsr_device){.type = c->accelerator, .index = k};
                return TSR_OK;
            }
    return tsr__fail(TSR_ERR_NO_DEVICE,
                     "the exported tensor lives on a device this client does not see "
                     "(TESSERA_VISIBLE_DEVICES)");
}

tsr_status tsr_tensor_import(tsr_client *c, const tsr_export_handle *handle, tsr_tensor **out)
{
    if (c == NULL || handle == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_tensor_import: NULL argument");
    tsr__wire_share_key key = {.id = handle->id};
    memcpy(key.secret, handle->secret, sizeof key.secret);
    tsr__wire_imported rep = {0};
    int fd = -1, nfds = 1;
    tsr_status st =
        tsr__socket_call(c, TSR__OP_IMPORT, &key, sizeof key, &rep, sizeof rep, &fd, &nfds);
    if (st == TSR_ERR_LIMIT && rep.handle) { /* imported, its descriptor lost: given back */
        tsr__wire_handle req = {.handle = rep.handle};
        (void)tsr__client_call(c, TSR__OP_FREE, &req, NULL);
    }
    if (st != TSR_OK)
        return st;
    tsr_geometry g;
    tsr_device device = {0};
    import_ctx *ctx = NULL;
    if ((st = check_imported(&rep, &g)) == TSR_OK)
        st = client_device(c, rep.device, &device);
    if (st == TSR_OK && !(ctx = calloc(1, sizeof *ctx)))
        st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory importing a tensor");
    /* Only the pages of the block are mapped, read-only when so exported. */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t first = rep.offset - rep.offset % page;
    uint64_t bytes = rep.offset + rep.size - first;
    bytes += (page - bytes % page) % page;
    if (bytes > rep.segment_bytes - first)
        bytes = rep.segment_bytes - first;
    void *map = NULL;
    if (st == TSR_OK)
        st = tsr__map_shared_range(fd, first, bytes, !(rep.flags & TSR__WIRE_EXPORT_READ_ONLY),
                                   "shared tensor", &map);
    close(fd);
    if (st == TSR_OK) {
        *ctx = (import_ctx){.client = c, .handle = rep.handle, .map = map, .map_bytes = bytes};
        unsigned char *at = (unsigned char *)map + (rep.offset - first);
        if (device.type == TSR_DEVICE_CPU)
            st = tsr__tensor_wrap_host(at, rep.size, (tsr_dtype)rep.dtype, &g, import_release, ctx,
                                       out);
        else
            st = tsr__tensor_wrap_import(c, device, tsr__client_host_visible(c, device) ? at : NULL,
                                         rep.handle, rep.size, (tsr_dtype)rep.dtype, &g,
                                         import_release, ctx, out);
        if (st == TSR_OK) {
            (*out)->storage->imported = true;
            (*out)->storage->read_only = (rep.flags & TSR__WIRE_EXPORT_READ_ONLY) != 0;
            if (device.type == TSR_DEVICE_CPU) {
                tsr__client_retain(c); /* the release hook's FREE needs the session */
                ctx->holds_client = true;
            }
            return TSR_OK;
        }
        munmap(map, bytes);
    }
    free(ctx);
    tsr__wire_handle req = {.handle = rep.handle};
    (void)tsr__client_call(c, TSR__OP_FREE, &req, NULL);
    return st;
}

tsr_status tsr_export_revoke(tsr_client *c, const tsr_export_handle *handle)
{
    if (c == NULL || handle == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_export_revoke: NULL argument");
    tsr__wire_share_key key = {.id = handle->id};
    memcpy(key.secret, handle->secret, sizeof key.secret);
    return tsr__socket_call(c, TSR__OP_REVOKE, &key, sizeof key, NULL, 0, NULL, NULL);
}

tsr_status tsr_admin_share_list(tsr_client *c, uint64_t after, tsr_share_info *out, bool *more)
{
    if (c == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_share_list: NULL argument");
    tsr__wire_handle req = {.handle = after};
    tsr__wire_share_info w;
    tsr_status st = tsr__client_call(c, TSR__OP_SHARE_LIST, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.id == 0)
        return tsr__fail(TSR_ERR_INDEX, "no export after %016llx", (unsigned long long)after);
    if (w.id <= after || w.holder_count > TSR__WIRE_SHARE_HOLDERS)
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad's SHARE_LIST reply fails its checks");
    *out = (tsr_share_info){.id = w.id,
                            .session_id = w.session_id,
                            .uid = w.uid,
                            .device = {(tsr_device_type)w.device.type, w.device.index},
                            .bytes = w.bytes,
                            .imports = w.imports,
                            .read_only = (w.flags & TSR__WIRE_EXPORT_READ_ONLY) != 0,
                            .revoked = (w.flags & TSR__WIRE_SHARE_REVOKED) != 0,
                            .released = (w.flags & TSR__WIRE_SHARE_RELEASED) != 0,
                            .holder_count = w.holder_count};
    memcpy(out->holders, w.holders, w.holder_count * sizeof w.holders[0]);
    if (more)
        *more = (w.flags & TSR__WIRE_SHARE_MORE) != 0;
    return TSR_OK;
}

tsr_status tsr_tensor_share_memory_(tsr_client *c, tsr_tensor *t)
{
    if (c == NULL || t == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_tensor_share_memory_: NULL argument");
    tsr__storage *s = t->storage;
    /* Accelerator memory is tesserad's already; shared cpu memory too. */
    if (s->device.type != TSR_DEVICE_CPU || s->share_client || s->imported)
        return TSR_OK;
    if (s->release != NULL)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "cannot move memory this library does not own (a DLPack import) to "
                         "shared memory: copy it first (tsr_tensor_clone)");
    uint64_t bytes = s->nbytes ? s->nbytes : 1;
    tsr__wire_export req = {.dtype = TSR_UINT8, .flags = TSR__WIRE_EXPORT_HOST};
    req.region = (tsr__wire_region){.itemsize = 1, .ndim = 1};
    req.region.sizes[0] = (int64_t)bytes;
    req.region.strides[0] = 1;
    tsr__wire_share_key key = {0};
    int fd = -1, nfds = 1;
    tsr_status st =
        tsr__socket_call(c, TSR__OP_EXPORT, &req, sizeof req, &key, sizeof key, &fd, &nfds);
    if (st == TSR_ERR_LIMIT && key.id) { /* made, its descriptor lost: given back */
        tsr__wire_handle lost = {.handle = (uint32_t)key.id};
        (void)tsr__client_call(c, TSR__OP_FREE, &lost, NULL);
    }
    if (st != TSR_OK)
        return st;
    uint64_t handle = (uint32_t)key.id; /* a new host block's handle */
    void *map = NULL;
    import_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory sharing a tensor");
    if (st == TSR_OK)
        st = tsr__map_shared_range(fd, 0, bytes, true, "shared host memory", &map);
    close(fd);
    if (st != TSR_OK) {
        free(ctx);
        tsr__wire_handle req_free = {.handle = handle};
        (void)tsr__client_call(c, TSR__OP_FREE, &req_free, NULL);
        return st;
    }
    memcpy(map, s->data, (size_t)s->nbytes);
    tsr__client_retain(c);
    *ctx = (import_ctx){
        .client = c, .handle = handle, .map = map, .map_bytes = bytes, .holds_client = true};
    /* A DLPack export still reads and writes the old memory: it stays,
     * apart, until the storage goes (as in PyTorch, the export does not
     * follow the tensor into shared memory). */
    if (atomic_load(&s->dlpack_exports) > 0)
        ctx->old_block = s->block;
    else
        free(s->block);
    s->block = NULL;
    s->data = map;
    s->handle = handle;
    s->share_client = c;
    s->release = import_release;
    s->release_ctx = ctx;
    return TSR_OK;
}

bool tsr_tensor_is_shared(const tsr_tensor *t)
{
    return t && (t->storage->client || t->storage->share_client || t->storage->imported);
}
