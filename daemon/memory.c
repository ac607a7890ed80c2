/* See memory.h. Memory segments: the memfd arenas behind a session's
 * allocators.
 *
 * A segment is a memfd of exactly the size the allocator asks for, sealed
 * against shrinking (so no client can make the daemon's mapping fault) and
 * against further seals (so no client can forbid the daemon's writable
 * mapping), mapped by the daemon (where its huge pages can be mapped whole:
 * kernels/hugemem.h) and bound to its device's NUMA node before any page is
 * touched. The device's capacity is shared by all sessions:
 * creation is refused with TSR_ERR_OUT_OF_MEMORY when it would overflow.
 * On release the pages are punched out before the descriptor is closed, so
 * the memory returns to the system even while a client still maps it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/roster.h"
#include "kernels/hugemem.h"
#include "numa/topology.h"

/* Charges `bytes` of device `dev` to the session: the device's
 * capacity, then the configured limits (per session, uid and group).
 * TSR_ERR_OUT_OF_MEMORY "the device is full", TSR_ERR_LIMIT with the
 * limit's words. */
static tsr_status charge(tsr__session *s, tsr__registry_device *dev, uint64_t bytes)
{
    uint64_t after;
    if (__builtin_add_overflow(dev->reserved, bytes, &after) || after > dev->capacity) {
        s->refused_at_limit = false; /* the device, whatever a first try met */
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "the device is full");
    }
    tsr_status st = tsr__limits_charge(s->server->limits, tsr__session_who(s),
                                       (uint32_t)dev->info.device.index, bytes);
    if (st == TSR_ERR_OUT_OF_MEMORY) { /* a limit, not a full device: see alloc.c */
        s->refused_at_limit = true;
        s->refused_scope = (uint32_t)tsr__limits_refused_scope(s->server->limits);
        char why[TSR__ERROR_MAX];
        snprintf(why, sizeof why, "%s", tsr_last_error());
        return tsr__fail_text(TSR_ERR_LIMIT, why);
    }
    if (st == TSR_OK)
        dev->reserved = after;
    return st;
}

static void uncharge(tsr__session *s, tsr__registry_device *dev, uint64_t bytes)
{
    dev->reserved -= bytes;
    tsr__limits_uncharge(s->server->limits, tsr__session_who(s), (uint32_t)dev->info.device.index,
                         bytes);
}

static tsr_status segment_create(void *ctx, uint64_t bytes, uint32_t *segment_id)
{
    tsr__device_pool *pool = ctx;
    tsr__session *s = pool->session;
    tsr__registry_device *dev = pool->device;
    /* Every failure after the charge gives it back. */
    tsr_status st = charge(s, dev, bytes);
    if (st != TSR_OK)
        return st;
    if (s->segment_count >= s->server->session_max_segments) {
        uncharge(s, dev, bytes);
        return tsr__fail(TSR_ERR_LIMIT, "too many segments in one session (%u)",
                         s->server->session_max_segments);
    }
    if (s->segment_count == s->segment_cap) {
        uint32_t cap = s->segment_cap ? s->segment_cap * 2 : 16;
        tsr__segment *grown = realloc(s->segments, cap * sizeof *grown);
        if (!grown) {
            uncharge(s, dev, bytes);
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory tracking segments");
        }
        s->segments = grown;
        s->segment_cap = cap;
    }
    if ((st = tsr__roster_segment_take(s->server, s->uid)) != TSR_OK) {
        uncharge(s, dev, bytes);
        return st;
    }
    int fd = memfd_create("tessera-segment", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        uncharge(s, dev, bytes);
        tsr__roster_segment_give(s->server, s->uid);
    }
    if (fd < 0 && (errno == EMFILE || errno == ENFILE))
        return tsr__fail(TSR_ERR_LIMIT, "tesserad is out of file descriptors for segments");
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "memfd_create: %s", strerror(errno));
    void *base = MAP_FAILED;
    /* fchmod: see descriptor_for (share.c). */
    if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t)bytes) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
        (base = tsr__mmap_shared(fd, 0, bytes, PROT_READ | PROT_WRITE, MAP_NORESERVE)) ==
            MAP_FAILED) {
        int e = errno;
        close(fd);
        uncharge(s, dev, bytes);
        tsr__roster_segment_give(s->server, s->uid);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot make a %llu-byte segment: %s",
                         (unsigned long long)bytes, strerror(e));
    }
    if (tsr__numa_bind(base, bytes, dev->info.numa_node) != TSR_OK)
        tsr__log(TSR__LOG_DEBUG, "session %u: NUMA placement: %s", s->id, tsr_last_error());
    uint32_t id = ++s->next_segment_id;
    s->segments[s->segment_count++] =
        (tsr__segment){.id = id, .fd = fd, .base = base, .bytes = bytes, .device = dev};
    *segment_id = id;
    return TSR_OK;
}

static void segment_destroy(void *ctx, uint32_t segment_id)
{
    tsr__device_pool *pool = ctx;
    tsr__session *s = pool->session;
    for (uint32_t k = 0; k < s->segment_count; k++) {
        tsr__segment *seg = &s->segments[k];
        if (seg->id != segment_id)
            continue;
        if (seg->device_buffer) /* made by the device's backend at its first kernel */
            seg->device->backend->buffer_release(seg->device_buffer);
        fallocate(seg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)seg->bytes);
        if (s->server && s->server->segment_released)
            s->server->segment_released(s, segment_id);
        munmap(seg->base, seg->bytes);
        close(seg->fd);
        uncharge(s, seg->device, seg->bytes);
        tsr__roster_segment_give(s->server, s->uid);
        s->segments[k] = s->segments[--s->segment_count];
        return;
    }
}

static const tsr__segment_ops segment_ops = {.create = segment_create, .destroy = segment_destroy};

tsr__segment *tsr__session_segment(tsr__session *s, uint32_t id)
{
    for (uint32_t k = 0; k < s->segment_count; k++)
        if (s->segments[k].id == id)
            return &s->segments[k];
    return NULL;
}

/* Lets go of a segment of another session this one imported: its
 * device buffer and descriptor are this session's, the memory the
 * owner's. */
static void foreign_close(tsr__session *s, tsr__segment *seg)
{
    if (seg->device_buffer)
        seg->device->backend->buffer_release(seg->device_buffer);
    if (seg->charged)
        uncharge(s, seg->device, seg->bytes);
    close(seg->fd);
    tsr__roster_segment_give(s->server, s->uid);
}

void tsr__memory_drop_segment(tsr__session *s, uint32_t id)
{
    for (uint32_t k = 0; k < s->segment_count; k++)
        if (s->segments[k].id == id && s->segments[k].foreign) {
            foreign_close(s, &s->segments[k]);
            s->segments[k] = s->segments[--s->segment_count];
            return;
        }
}

tsr_status tsr__memory_add_foreign(tsr__session *s, const tsr__segment *owner, int fd, uint32_t *id)
{
    if (s->segment_count >= s->server->session_max_segments)
        return tsr__fail(TSR_ERR_LIMIT, "too many segments in one session (%u)",
                         s->server->session_max_segments);
    if (s->segment_count == s->segment_cap) {
        uint32_t cap = s->segment_cap ? s->segment_cap * 2 : 16;
        tsr__segment *grown = realloc(s->segments, cap * sizeof *grown);
        if (!grown)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory tracking segments");
        s->segments = grown;
        s->segment_cap = cap;
    }
    /* Where the device has memory of its own, this session's kernels on
     * the import use a device buffer of its own over the segment: device
     * memory of the importer's, charged to it as a segment would be. */
    bool charged = !owner->device->desc.host_unified_memory;
    tsr_status st = tsr__roster_segment_take(s->server, s->uid);
    if (st != TSR_OK)
        return st;
    if (charged)
        st = charge(s, owner->device, owner->bytes);
    if (st != TSR_OK) {
        tsr__roster_segment_give(s->server, s->uid);
        char why[TSR__ERROR_MAX];
        snprintf(why, sizeof why, "%s", tsr_last_error());
        return tsr__fail(st,
                         "IMPORT: this session's %llu-byte device copy of the tensor does not "
                         "fit: %s",
                         (unsigned long long)owner->bytes, why);
    }
    *id = ++s->next_segment_id;
    s->segments[s->segment_count++] = (tsr__segment){.id = *id,
                                                     .fd = fd,
                                                     .base = owner->base,
                                                     .bytes = owner->bytes,
                                                     .device = owner->device,
                                                     .foreign = true,
                                                     .charged = charged};
    return TSR_OK;
}

void tsr__session_release_segments(tsr__session *s)
{
    /* Imported segments first: the allocators below know only their own. */
    for (uint32_t k = 0; k < s->segment_count;)
        if (s->segments[k].foreign) {
            foreign_close(s, &s->segments[k]);
            s->segments[k] = s->segments[--s->segment_count];
        } else {
            k++;
        }
    if (s->devices) {
        for (size_t k = 0; k < s->server->registry.accel_count; k++)
            tsr__allocator_destroy(s->devices[k].pool.allocator);
        free(s->devices);
        s->devices = NULL;
    }
    free(s->segments);
    s->segments = NULL;
    s->segment_count = s->segment_cap = 0;
}

/* ---- pools and blocks ---------------------------------------------------- */

/* The device's memory as the session is told it (DEVICE_GET, memory
 * statistics, out-of-memory messages): its capacity, or less when the
 * session's limits allow less, so that a program sizing itself to "total
 * memory" stays inside its limit. */
uint64_t tsr__memory_session_total(const tsr__session *s, const tsr__registry_device *dev)
{
    uint64_t most = tsr__limits_effective(s->server->limits, tsr__session_who(s),
                                          (uint32_t)dev->info.device.index);
    return most && most < dev->capacity ? most : dev->capacity;
}

static uint64_t device_total(void *ctx)
{
    const tsr__device_pool *pool = ctx;
    return tsr__memory_session_total(pool->session, pool->device);
}

/* What the session could still get of the device: what every session has
 * left of it, or less when the session's limits leave less. */
uint64_t tsr__memory_available(const tsr__device_pool *pool)
{
    const tsr__session *s = pool->session;
    /* A reload may have lowered the capacity below what is reserved. */
    uint64_t left = pool->device->capacity > pool->device->reserved
                        ? pool->device->capacity - pool->device->reserved
                        : 0;
    uint64_t allowed = tsr__limits_available(s->server->limits, tsr__session_who(s),
                                             (uint32_t)pool->device->info.device.index);
    return allowed < left ? allowed : left;
}

static uint64_t device_free(void *ctx)
{
    return tsr__memory_available(ctx);
}

/* Zeros [from, to) of a segment: its pages punched out, or, where the
 * memfd cannot, written over. */
static void clear_range(const tsr__segment *seg, uint64_t from, uint64_t to)
{
    if (from >= to)
        return;
    if (fallocate(seg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                  (off_t)(to - from)) != 0)
        memset((unsigned char *)seg->base + from, 0, (size_t)(to - from));
}

tsr_status tsr__memory_seal(tsr__session *s, tsr__device_pool *pool, uint64_t handle,
                            tsr__block_ref *b)
{
    tsr__block_ref was;
    tsr_status st = tsr__lookup(pool->allocator, handle, &was);
    if (st == TSR_OK && !was.alone)
        st = tsr__alloc_seal(pool->allocator, handle, b);
    else
        *b = was;
    if (st != TSR_OK || was.alone)
        return st;
    /* What the block holds past its request (a reused block may be up
     * to a megabyte longer) was other blocks' too. */
    const tsr__segment *seg = tsr__session_segment(s, b->segment_id);
    if (seg) {
        clear_range(seg, 0, b->offset);
        clear_range(seg, b->offset + b->requested, seg->bytes);
    }
    return TSR_OK;
}

const tsr__import *tsr__memory_import(const tsr__session *s, uint64_t handle)
{
    if (handle >> 32) /* allocator handles; imports are numbered below 2^32 */
        return NULL;
    for (uint32_t k = 0; k < s->import_count; k++)
        if (s->imports[k].handle == handle)
            return &s->imports[k];
    return NULL;
}

tsr__device_pool *tsr__session_find_block(tsr__session *s, uint64_t handle, tsr__block_ref *b)
{
    const tsr__import *imp = tsr__memory_import(s, handle);
    if (imp) {
        if (imp->host_fd >= 0) /* host memory: no device's block */
            return NULL;
        const tsr__segment *seg = tsr__session_segment(s, imp->segment_id);
        if (!seg || !s->devices)
            return NULL;
        *b = (tsr__block_ref){.handle = handle,
                              .segment_id = imp->segment_id,
                              .offset = imp->offset,
                              .size = imp->size,
                              .segment_bytes = seg->bytes};
        return &s->devices[imp->ordinal].pool;
    }
    for (size_t k = 0; s->devices && k < s->server->registry.accel_count; k++)
        if (s->devices[k].pool.allocator &&
            tsr__lookup(s->devices[k].pool.allocator, handle, b) == TSR_OK)
            return &s->devices[k].pool;
    return NULL;
}

tsr__device_pool *tsr__session_find_live(tsr__session *s, uint64_t handle, tsr__block_ref *b)
{
    tsr__device_pool *pool =
        tsr__memory_freed(s, handle) ? NULL : tsr__session_find_block(s, handle, b);
    if (pool)
        return pool;
    tsr__fail(TSR_ERR_INVALID_ARGUMENT,
              "invalid allocation handle 0x%016llx: not a live allocation of this session",
              (unsigned long long)handle);
    return NULL;
}

tsr_status tsr__memory_pool(tsr__session *s, tsr__registry_device *dev, const char *name,
                            tsr__device_pool **out)
{
    if (!dev->backend)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "the daemon manages no memory of %s: its tensors live in the client",
                         name);
    if (!s->devices) {
        s->devices = calloc(s->server->registry.accel_count, sizeof *s->devices);
        if (!s->devices)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    tsr__device_pool *pool = &s->devices[dev->info.device.index].pool;
    if (!pool->allocator) {
        pool->session = s;
        pool->device = dev;
        pool->ordinal = (uint32_t)dev->info.device.index;
        tsr__alloc_config config = {.device_name = name,
                                    .device_capacity = dev->capacity,
                                    .device_free = device_free,
                                    .max_allocations = s->server->session_max_allocations,
                                    .device_total = device_total};
        tsr_status st = tsr__allocator_create(&segment_ops, pool, &config, &pool->allocator);
        if (st != TSR_OK)
            return st;
    }
    *out = pool;
    return TSR_OK;
}

/* ---- frees behind kernels -------------------------------------------------- */

/* Whether kernels of the session may still touch memory of a device:
 * false when none is in flight, or when every one launched has finished
 * and only waits for the loop to retire it. */
bool tsr__memory_in_use(const tsr__session *s, uint32_t queue)
{
    const tsr__session_device *d =
        s->devices && queue < s->server->registry.accel_count ? &s->devices[queue] : NULL;
    return d && d->inflight != 0 && (int32_t)(atomic_load(&d->finished) - d->launch_seq) < 0;
}

bool tsr__memory_defer_free(tsr__session *s, uint32_t queue, uint64_t handle)
{
    if (!tsr__memory_in_use(s, queue))
        return false;
    if (s->deferred_count == s->deferred_cap) {
        uint32_t cap = s->deferred_cap ? 2 * s->deferred_cap : 16;
        tsr__deferred_free *grown = realloc(s->deferred, cap * sizeof *grown);
        if (!grown) {
            /* No room to remember it: it stays (the caller must not free
             * it under the kernels), and goes with the session. */
            tsr__log(TSR__LOG_WARNING,
                     "session %u: out of memory deferring a free; the block stays allocated "
                     "until the session ends",
                     s->id);
            return true;
        }
        s->deferred = grown;
        s->deferred_cap = cap;
    }
    s->deferred[s->deferred_count++] = (tsr__deferred_free){
        .handle = handle, .queue = queue, .sequence = s->devices[queue].launch_seq};
    return true;
}

bool tsr__memory_freed(const tsr__session *s, uint64_t handle)
{
    for (uint32_t k = 0; k < s->deferred_count; k++)
        if (s->deferred[k].handle == handle)
            return true;
    return false;
}

/* Whether frees of the session wait behind its kernels on `queue`. */
static bool frees_waiting(const tsr__session *s, uint32_t queue)
{
    for (uint32_t k = 0; k < s->deferred_count; k++)
        if (!s->deferred[k].shared && s->deferred[k].queue == queue)
            return true;
    return false;
}

uint64_t tsr__memory_empty_cache(tsr__session *s, tsr__device_pool *pool)
{
    if (frees_waiting(s, pool->ordinal))
        s->devices[pool->ordinal].empty_pending = true;
    return tsr__allocator_empty_cache(pool->allocator);
}

void tsr__memory_retired(tsr__session *s, uint32_t queue, uint32_t sequence)
{
    for (uint32_t k = 0; k < s->deferred_count;) {
        tsr__deferred_free *d = &s->deferred[k];
        /* Imports are let go by the session's lifetime (lifetime.c), and
         * shared blocks when their last import goes. */
        if (d->shared || !(d->handle >> 32) || d->queue != queue ||
            (int32_t)(d->sequence - sequence) > 0) {
            k++;
            continue;
        }
        tsr__block_ref b;
        tsr__device_pool *pool = tsr__session_find_block(s, d->handle, &b);
        if (pool)
            tsr__free(pool->allocator, d->handle, NULL);
        s->deferred[k] = s->deferred[--s->deferred_count];
    }
    tsr__session_device *dev =
        s->devices && queue < s->server->registry.accel_count ? &s->devices[queue] : NULL;
    if (dev && dev->empty_pending && !frees_waiting(s, queue)) {
        dev->empty_pending = false;
        if (dev->pool.allocator)
            tsr__allocator_empty_cache(dev->pool.allocator);
    }
}

/* ---- blocks other sessions imported ----------------------------------------- */

bool tsr__memory_defer_shared(tsr__session *s, uint64_t handle)
{
    if (s->deferred_count == s->deferred_cap) {
        uint32_t cap = s->deferred_cap ? 2 * s->deferred_cap : 16;
        tsr__deferred_free *grown = realloc(s->deferred, cap * sizeof *grown);
        if (!grown)
            return false;
        s->deferred = grown;
        s->deferred_cap = cap;
    }
    s->deferred[s->deferred_count++] =
        (tsr__deferred_free){.handle = handle, .shared = true, .queue = UINT32_MAX};
    return true;
}

void tsr__memory_unshare(tsr__session *s, uint64_t handle)
{
    for (uint32_t k = 0; k < s->deferred_count; k++) {
        if (s->deferred[k].handle != handle || !s->deferred[k].shared)
            continue;
        s->deferred[k] = s->deferred[--s->deferred_count];
        tsr__block_ref b;
        tsr__device_pool *pool = tsr__session_find_block(s, handle, &b);
        if (pool && !tsr__memory_defer_free(s, pool->ordinal, handle))
            tsr__free(pool->allocator, handle, NULL);
        return;
    }
}
