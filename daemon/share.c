/* See share.h. */
#include "daemon/share.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/region.h"
#include "daemon/lifetime.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/procinfo.h"
#include "daemon/session.h"
#include "tessera/dtype.h"

typedef tsr__request request;

/* Every refusal of a handle that does not name a live export the asker
 * may learn of reads the same, so that a guess learns nothing. */
static tsr_status unknown_export(const tsr__wire_share_key *key)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "no such export %016llx: the handle is not one tesserad issued, or its "
                     "tensor was released",
                     (unsigned long long)key->id);
}

/* Compares the secrets in time that does not depend on where they differ. */
static bool same_secret(const uint8_t *a, const uint8_t *b)
{
    uint8_t diff = 0;
    for (int k = 0; k < 16; k++)
        diff |= (uint8_t)(a[k] ^ b[k]);
    return diff == 0;
}

/* The export the key names, with its session; NULL with the error set. */
static tsr__export *find_export(tsr__server *server, const tsr__wire_share_key *key,
                                tsr__session **owner)
{
    uint32_t sid = (uint32_t)(key->id >> 32);
    for (tsr__session *s = server->first; s; s = s->next) {
        if (s->id != sid)
            continue;
        for (uint32_t k = 0; k < s->export_count; k++) {
            tsr__export *e = &s->exports[k];
            if (e->id == key->id && same_secret(e->secret, key->secret) && !e->freed) {
                *owner = s;
                return e;
            }
        }
        break;
    }
    unknown_export(key);
    return NULL;
}

static bool grow(void **items, uint32_t count, uint32_t *cap, size_t size)
{
    if (count < *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 8;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

/* Handles below 2^32 (imports, host blocks), unique for the daemon's life
 * (until 2^32 of them). */
static uint32_t small_handle(void)
{
    static uint32_t next;
    if (++next == 0)
        ++next;
    return next;
}

/* The session's host block `handle` (the export that made it or any
 * other of it), while the session holds it; NULL when none. */
static tsr__export *host_block(tsr__session *s, uint64_t handle)
{
    for (uint32_t k = 0; k < s->export_count; k++)
        if (s->exports[k].host_fd >= 0 && s->exports[k].handle == handle && !s->exports[k].freed)
            return &s->exports[k];
    return NULL;
}

/* A new block of host memory for EXPORT's HOST flag: a memfd of the
 * region's bytes, sealed as segments are and against growing. */
static tsr_status host_create(const tsr__wire_export *in, int *fd_out, uint64_t *bytes)
{
    const tsr__wire_region *g = &in->region;
    if (g->handle != 0 || in->dtype != TSR_UINT8 || g->itemsize != 1 || g->ndim != 1 ||
        g->offset != 0 || g->strides[0] != 1 || g->sizes[0] < 1 ||
        (uint64_t)g->sizes[0] > TSR__ALLOC_MAX_BYTES)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "EXPORT of new host memory takes handle 0 and one uint8 dimension of 1 "
                         "to 2^48 bytes");
    int fd = memfd_create("tessera-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return tsr__fail(errno == EMFILE || errno == ENFILE ? TSR_ERR_LIMIT : TSR_ERR_IO,
                         "memfd_create: %s", strerror(errno));
    if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t)g->sizes[0]) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        int e = errno;
        close(fd);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot make %lld bytes of host memory: %s",
                         (long long)g->sizes[0], strerror(e));
    }
    *fd_out = fd;
    *bytes = (uint64_t)g->sizes[0];
    return TSR_OK;
}

tsr_status tsr__share_export(request *r)
{
    const tsr__wire_export *in = r->in;
    tsr__session *s = r->s;
    if (in->flags & ~TSR__WIRE_EXPORT_FLAGS_KNOWN)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "EXPORT flags 0x%x are not defined",
                         (unsigned)(in->flags & ~TSR__WIRE_EXPORT_FLAGS_KNOWN));
    if (in->dtype < 0 || in->dtype >= TSR_DTYPE_COUNT ||
        tsr_dtype_itemsize((tsr_dtype)in->dtype) != in->region.itemsize)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "EXPORT: dtype %d with elements of %u bytes is not a dtype",
                         (int)in->dtype, (unsigned)in->region.itemsize);
    if (tsr__memory_import(s, in->region.handle))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "an imported tensor cannot be exported again: export it from the "
                         "process that made it");
    if (s->export_count >= TSR__SHARE_MAX_EXPORTS)
        return tsr__fail(TSR_ERR_LIMIT, "too many exports in one session (%u)",
                         TSR__SHARE_MAX_EXPORTS);
    if (!grow((void **)&s->exports, s->export_count, &s->export_cap, sizeof *s->exports))
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for an export");
    tsr__export e = {.handle = in->region.handle,
                     .flags = in->flags,
                     .allow_uid = in->allow_uid,
                     .allow_gid = in->allow_gid,
                     .dtype = in->dtype,
                     .region = in->region,
                     .host_fd = -1};
    uint64_t block_bytes;
    tsr_status st;
    tsr__device_pool *pool = NULL; /* a device block's */
    tsr__block_ref b;
    const tsr__export *host = host_block(s, in->region.handle);
    if (in->flags & TSR__WIRE_EXPORT_HOST) {
        if ((st = host_create(in, &e.host_fd, &e.host_bytes)) != TSR_OK)
            return st;
        e.handle = small_handle();
        e.region.handle = e.handle;
        block_bytes = e.host_bytes;
    } else if (host) {
        e.flags |= TSR__WIRE_EXPORT_HOST;
        e.host_bytes = block_bytes = host->host_bytes;
        e.host_fd = fcntl(host->host_fd, F_DUPFD_CLOEXEC, 0);
        if (e.host_fd < 0)
            return tsr__fail(TSR_ERR_LIMIT, "tesserad is out of file descriptors: %s",
                             strerror(errno));
    } else {
        if (!(pool = tsr__session_find_live(s, in->region.handle, &b)))
            return TSR_ERR_INVALID_ARGUMENT;
        block_bytes = b.size;
    }
    tsr__region g = {
        .itemsize = in->region.itemsize, .ndim = in->region.ndim, .offset = in->region.offset};
    memcpy(g.sizes, in->region.sizes, sizeof g.sizes);
    memcpy(g.strides, in->region.strides, sizeof g.strides);
    uint64_t span;
    if ((st = tsr__region_check(&g, block_bytes, &span)) != TSR_OK ||
        getrandom(e.secret, sizeof e.secret, 0) != (ssize_t)sizeof e.secret) {
        if (e.host_fd >= 0)
            close(e.host_fd);
        return st != TSR_OK ? st : tsr__fail(TSR_ERR_IO, "getrandom gave no secret for the export");
    }
    /* An importer gets the segment's memfd: it must show this block and
     * nothing else, now and after the block is freed. Sealing is for good,
     * so it is the last check. */
    if (pool && (st = tsr__memory_seal(s, pool, in->region.handle, &b)) == TSR_ERR_RUNTIME) {
        char why[TSR__ERROR_MAX];
        snprintf(why, sizeof why, "%s", tsr_last_error());
        return tsr__fail(TSR_ERR_RUNTIME,
                         "EXPORT: %s: move it to an allocation made alone (ALLOC's ALONE flag) "
                         "and export that",
                         why);
    }
    if (st != TSR_OK)
        return st;
    /* With the session's id: unique for the daemon's life. A new host
     * block's handle is the low half. */
    e.id =
        (uint64_t)s->id << 32 | ((in->flags & TSR__WIRE_EXPORT_HOST) ? e.handle : small_handle());
    s->exports[s->export_count++] = e;
    if (in->flags & TSR__WIRE_EXPORT_HOST) {
        r->fds[0] = e.host_fd;
        *r->nfds = 1;
    }
    tsr__wire_share_key *out = r->out;
    out->id = e.id;
    memcpy(out->secret, e.secret, sizeof out->secret);
    tsr__log(TSR__LOG_DEBUG, "session %u: exported allocation 0x%016llx as %016llx%s", s->id,
             (unsigned long long)e.handle, (unsigned long long)e.id,
             (e.flags & TSR__WIRE_EXPORT_READ_ONLY) ? " (read-only)" : "");
    return TSR_OK;
}

/* Whether the importing session may take the export: its owner's uid,
 * the uid the export names, or a member of the group it names. */
static bool may_import(const tsr__session *s, const tsr__session *owner, const tsr__export *e)
{
    if (s->uid == owner->uid)
        return true;
    if ((e->flags & TSR__WIRE_EXPORT_UID) && s->uid == e->allow_uid)
        return true;
    return (e->flags & TSR__WIRE_EXPORT_GID) &&
           (s->gid == e->allow_gid ||
            (s->fd >= 0 && tsr__proc_peer_in_group(s->fd, s->gid, e->allow_gid)));
}

/* The descriptor an importer gets of `fd`: read-only ones cannot be
 * mapped for writing (the daemon keeps its own writable descriptor).
 * Every memfd the daemon makes is mode 0600, the daemon's: a memfd is
 * born 0777, and an importer of another uid could otherwise open its
 * read-only descriptor again for writing through /proc/self/fd. */
static tsr_status descriptor_for(int fd, bool read_only, int *out)
{
    if (read_only) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        *out = open(path, O_RDONLY | O_CLOEXEC);
    } else {
        *out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    }
    if (*out < 0)
        return tsr__fail(TSR_ERR_LIMIT, "tesserad cannot open the export's memory: %s",
                         strerror(errno));
    return TSR_OK;
}

/* IMPORT of host memory: no device, no segment; the descriptor is the
 * import's until it is let go. */
static tsr_status import_host(request *r, tsr__session *owner, tsr__export *e, bool ro)
{
    tsr__session *s = r->s;
    int fd = -1;
    tsr_status st = descriptor_for(e->host_fd, ro, &fd);
    if (st != TSR_OK)
        return st;
    tsr__import imp = {.handle = small_handle(),
                       .ordinal = UINT32_MAX,
                       .size = e->host_bytes,
                       .read_only = ro,
                       .owner = tsr__session_retain(owner),
                       .export_id = e->id,
                       .host_fd = fd};
    s->imports[s->import_count++] = imp;
    e->imports++;
    tsr__wire_imported *out = r->out;
    *out = (tsr__wire_imported){.handle = imp.handle,
                                .size = e->host_bytes,
                                .segment_bytes = e->host_bytes,
                                .flags = e->flags,
                                .device = {.type = TSR_DEVICE_CPU, .index = -1},
                                .dtype = e->dtype,
                                .owner_uid = (uint32_t)owner->uid,
                                .region = e->region};
    out->region.handle = imp.handle;
    r->fds[0] = fd;
    *r->nfds = 1;
    return TSR_OK;
}

tsr_status tsr__share_import(request *r)
{
    const tsr__wire_share_key *in = r->in;
    tsr__session *s = r->s;
    tsr__session *owner = NULL;
    tsr__export *e = find_export(s->server, in, &owner);
    if (!e)
        return TSR_ERR_INVALID_ARGUMENT;
    if (!may_import(s, owner, e))
        return tsr__fail(TSR_ERR_PERMISSION,
                         "export %016llx is not shared with uid %u: it is uid %u's, and shared "
                         "only with its own uid and those its export names",
                         (unsigned long long)e->id, (unsigned)s->uid, (unsigned)owner->uid);
    if (e->revoked)
        return tsr__fail(TSR_ERR_PERMISSION,
                         "export %016llx was revoked: it can no longer be imported",
                         (unsigned long long)e->id);
    if (owner == s)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "export %016llx is this session's own tensor: use it directly",
                         (unsigned long long)e->id);
    if (s->import_count >= TSR__SHARE_MAX_IMPORTS)
        return tsr__fail(TSR_ERR_LIMIT, "too many imports in one session (%u)",
                         TSR__SHARE_MAX_IMPORTS);
    if (!grow((void **)&s->imports, s->import_count, &s->import_cap, sizeof *s->imports))
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for an import");
    bool ro = (e->flags & TSR__WIRE_EXPORT_READ_ONLY) != 0;
    if (e->host_fd >= 0)
        return import_host(r, owner, e, ro);
    tsr__block_ref b;
    tsr__device_pool *opool = tsr__session_find_live(owner, e->handle, &b);
    tsr__segment *oseg = opool ? tsr__session_segment(owner, b.segment_id) : NULL;
    if (!oseg)
        return unknown_export(in);
    /* The importer names the device as it sees it; one it does not see it
     * cannot use. */
    int32_t seen = -1;
    for (uint32_t k = 0; k < s->visible_count; k++)
        if (s->visible[k] == (int32_t)opool->ordinal)
            seen = (int32_t)k;
    char name[TSR_DEVICE_STR_MAX];
    snprintf(name, sizeof name, "%s:%d", tsr_device_type_name(s->server->registry.accel_type),
             seen);
    if (seen < 0)
        return tsr__fail(TSR_ERR_NO_DEVICE,
                         "export %016llx lives on a device this session does not see "
                         "(devices.visible)",
                         (unsigned long long)e->id);
    tsr__device_pool *pool;
    tsr_status st = tsr__memory_pool(s, opool->device, name, &pool);
    if (st != TSR_OK)
        return st;
    int fd = -1;
    if ((st = descriptor_for(oseg->fd, ro, &fd)) != TSR_OK)
        return st;
    uint32_t segment_id;
    if ((st = tsr__memory_add_foreign(s, oseg, fd, &segment_id)) != TSR_OK) {
        close(fd);
        return st;
    }
    tsr__import imp = {.handle = small_handle(),
                       .host_fd = -1,
                       .segment_id = segment_id,
                       .ordinal = opool->ordinal,
                       .offset = b.offset,
                       .size = b.size,
                       .read_only = ro,
                       .owner = tsr__session_retain(owner),
                       .export_id = e->id};
    s->imports[s->import_count++] = imp;
    e->imports++;
    tsr__wire_imported *out = r->out;
    *out = (tsr__wire_imported){
        .handle = imp.handle,
        .offset = b.offset,
        .size = b.size,
        .segment_bytes = oseg->bytes,
        .segment_id = segment_id,
        .flags = e->flags,
        .device = {.type = (int32_t)s->server->registry.accel_type, .index = seen},
        .dtype = e->dtype,
        .owner_uid = (uint32_t)owner->uid,
        .region = e->region};
    out->region.handle = imp.handle;
    r->fds[0] = fd;
    *r->nfds = 1;
    tsr__log(TSR__LOG_DEBUG, "session %u: imported %016llx of session %u", s->id,
             (unsigned long long)e->id, owner->id);
    return TSR_OK;
}

tsr_status tsr__share_revoke(request *r)
{
    const tsr__wire_share_key *in = r->in;
    tsr__session *owner = NULL;
    tsr__export *e = find_export(r->s->server, in, &owner);
    if (!e)
        return TSR_ERR_INVALID_ARGUMENT;
    if (r->s->uid != owner->uid && !r->s->admin)
        return tsr__fail(TSR_ERR_PERMISSION,
                         "export %016llx is uid %u's: only it (or an administrator) may revoke "
                         "it",
                         (unsigned long long)e->id, (unsigned)owner->uid);
    e->revoked = true;
    return TSR_OK;
}

/* The session's exports of `handle` are over: no import may come. Those
 * no import holds go now; true when some import still holds one. */
static bool exports_end(tsr__session *s, uint64_t handle)
{
    bool held = false;
    for (uint32_t k = 0; k < s->export_count;) {
        tsr__export *e = &s->exports[k];
        if (e->handle != handle) {
            k++;
            continue;
        }
        e->freed = true;
        if (e->imports > 0) {
            held = true;
            k++;
        } else {
            if (e->host_fd >= 0)
                close(e->host_fd);
            s->exports[k] = s->exports[--s->export_count];
        }
    }
    return held;
}

tsr_status tsr__share_free(request *r)
{
    const tsr__wire_handle *in = r->in;
    tsr__session *s = r->s;
    const tsr__import *host_import = tsr__memory_import(s, in->handle);
    if (host_import && host_import->host_fd >= 0 && !tsr__memory_freed(s, in->handle)) {
        /* No kernel of the daemon's reads host memory: let go now. */
        tsr__session_drop_import(s, (uint32_t)(host_import - s->imports));
        return TSR_OK;
    }
    if (host_block(s, in->handle)) {
        (void)exports_end(s, in->handle); /* imports hold the memfd, if any */
        return TSR_OK;
    }
    tsr__block_ref b;
    tsr__device_pool *pool = tsr__session_find_live(s, in->handle, &b);
    if (!pool)
        return TSR_ERR_INVALID_ARGUMENT;
    if (tsr__memory_import(s, in->handle)) {
        /* Kernels of this session may still read it: let go after them. */
        if (tsr__memory_defer_free(s, pool->ordinal, in->handle))
            return TSR_OK;
        for (uint32_t k = 0; k < s->import_count; k++)
            if (s->imports[k].handle == in->handle) {
                tsr__session_drop_import(s, k);
                break;
            }
        return TSR_OK;
    }
    if (exports_end(s, in->handle)) {
        /* Imports hold it: it goes with the last of them. */
        if (!tsr__memory_defer_shared(s, in->handle))
            tsr__log(TSR__LOG_WARNING,
                     "session %u: out of memory putting a shared block aside; it stays "
                     "allocated until the session ends",
                     s->id);
        return TSR_OK;
    }
    if (tsr__memory_defer_free(s, pool->ordinal, in->handle))
        return TSR_OK;
    return tsr__free(pool->allocator, in->handle, NULL);
}

bool tsr__share_read_only(tsr__session *s, uint64_t handle)
{
    const tsr__import *imp = tsr__memory_import(s, handle);
    if (!imp || !imp->read_only)
        return false;
    tsr__fail(TSR_ERR_PERMISSION,
              "the tensor was imported read-only (its exporter shared it so): kernels and "
              "fills may not write it");
    return true;
}

void tsr__share_session_end(tsr__session *s)
{
    /* No import may come now; exports imports hold stay, as does the
     * session (each import holds a reference on it). */
    for (uint32_t k = 0; k < s->export_count;) {
        s->exports[k].freed = true;
        if (s->exports[k].imports > 0) {
            k++;
            continue;
        }
        if (s->exports[k].host_fd >= 0)
            close(s->exports[k].host_fd);
        s->exports[k] = s->exports[--s->export_count];
    }
    /* Its imports go once its kernels are done with them, so that two
     * sessions importing from each other do not keep each other. */
    for (uint32_t k = 0; k < s->import_count;) {
        const tsr__import *imp = &s->imports[k];
        if (imp->host_fd < 0 && !tsr__memory_freed(s, imp->handle) &&
            tsr__memory_defer_free(s, imp->ordinal, imp->handle)) {
            k++;
            continue;
        }
        if (tsr__memory_freed(s, imp->handle))
            k++;
        else
            tsr__session_drop_import(s, k);
    }
}
