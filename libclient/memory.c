/* Device memory as this client holds it: segments, the block cache,
 * allocate and free (tessera/client.h's tsr_memory_empty_cache too).
 *
 * Owns the mapped segments (under seg_lock) and the block cache (under
 * cache_lock). A segment stays mapped while `live` counts a block of it
 * this client holds, cached ones included; one with none left is unmapped
 * once the daemon says it released segments. The block cache keeps freed
 * small blocks for the next allocation of the same rounded size on the
 * same device, so that a steady allocate / free cycle (a temporary per
 * step, as training loops have) costs no round trip at all. The daemon
 * still counts them as allocated; the statistics this library reports take
 * them out again (tsr__memory_cache_counts). Calls down to devices.c and
 * transport.c only. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "libclient/connection.h"

#define CACHE_BLOCK_MAX (UINT64_C(1) << 20) /* blocks of the daemon's small pool */
#define CACHE_ROUND UINT64_C(512)           /* the daemon's rounding of small requests */
#define CACHE_BYTES_MAX (UINT64_C(8) << 20)

void tsr__memory_init(tsr_client *c)
{
    pthread_mutex_init(&c->seg_lock, NULL);
    pthread_mutex_init(&c->cache_lock, NULL);
}

void tsr__memory_fini(tsr_client *c)
{
    for (uint32_t k = 0; k < c->segment_count; k++)
        munmap(c->segments[k].base, c->segments[k].bytes);
    free(c->segments);
    pthread_mutex_destroy(&c->seg_lock);
    pthread_mutex_destroy(&c->cache_lock);
}

tsr__cache_counts tsr__memory_cache_counts(tsr_client *c, int32_t queue)
{
    tsr__cache_counts n = {0};
    if (queue < 0 || queue >= (int32_t)TSR__RING_QUEUES)
        return n;
    pthread_mutex_lock(&c->cache_lock);
    n = c->counts[queue];
    pthread_mutex_unlock(&c->cache_lock);
    return n;
}

/* The host address of a segment, mapping it on first sight, for a new
 * block in it (counted live). */
static tsr_status segment_base(tsr_client *c, uint32_t id, int32_t queue, uint64_t bytes,
                               uint8_t **out)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count; k++) {
        if (c->segments[k].id == id) {
            /* The reply's bounds were checked against the size it claims:
             * a mapped segment's is the one that counts. */
            bool same = c->segments[k].bytes == bytes && c->segments[k].queue == queue;
            if (same) {
                *out = c->segments[k].base;
                c->segments[k].live++;
            }
            pthread_mutex_unlock(&c->seg_lock);
            return same ? TSR_OK
                        : tsr__fail(TSR_ERR_PROTOCOL,
                                    "tesserad described segment %u otherwise than before", id);
        }
    }
    tsr_status st = TSR_OK;
    if (c->segment_count == c->segment_cap) {
        uint32_t cap = c->segment_cap ? c->segment_cap * 2 : 16;
        tsr__client_segment *grown = realloc(c->segments, cap * sizeof *grown);
        if (!grown)
            st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
        else {
            c->segments = grown;
            c->segment_cap = cap;
        }
    }
    tsr__wire_segment req = {.segment_id = id};
    tsr__wire_segment_info info;
    int fd = -1, nfds = 1;
    if (st == TSR_OK)
        st = tsr__socket_call(c, TSR__OP_SEGMENT_MAP, &req, sizeof req, &info, sizeof info, &fd,
                              &nfds);
    if (st == TSR_OK && info.bytes != bytes) {
        close(fd);
        st = tsr__fail(TSR_ERR_PROTOCOL, "segment %u is %llu bytes, not %llu", (unsigned)id,
                       (unsigned long long)info.bytes, (unsigned long long)bytes);
    }
    if (st == TSR_OK) {
        void *base = NULL;
        st = tsr__map_shared(fd, bytes, "memory segment", &base);
        close(fd);
        if (st == TSR_OK) {
            c->segments[c->segment_count++] = (tsr__client_segment){
                .id = id, .queue = queue, .base = base, .bytes = bytes, .live = 1};
            *out = base;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
    return st;
}

/* A block of `data` goes back: one live block fewer in its segment. A
 * segment it was `alone` in goes with it (the daemon destroys it). */
static void segment_drop(tsr_client *c, const uint8_t *data, bool alone)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count; k++) {
        tsr__client_segment *seg = &c->segments[k];
        if (data >= seg->base && data < seg->base + seg->bytes) {
            if (seg->live)
                seg->live--;
            if (alone && seg->live == 0) {
                munmap(seg->base, seg->bytes);
                *seg = c->segments[--c->segment_count];
            }
            break;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
}

/* Unmaps the segments of `queue` that hold no block of this client: the
 * daemon released them (EMPTY_CACHE, or an allocation that had to make
 * room). One it still has is simply mapped again when a block in it comes
 * back. */
static void segments_forget(tsr_client *c, int32_t queue)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count;) {
        tsr__client_segment *seg = &c->segments[k];
        if (seg->queue == queue && seg->live == 0) {
            munmap(seg->base, seg->bytes);
            *seg = c->segments[--c->segment_count];
        } else {
            k++;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
}

static uint64_t cache_key(uint64_t nbytes)
{
    if (nbytes > CACHE_BLOCK_MAX)
        return 0;
    uint64_t key = (nbytes + CACHE_ROUND - 1) / CACHE_ROUND * CACHE_ROUND;
    return key ? key : CACHE_ROUND;
}

static bool cache_take(tsr_client *c, int32_t queue, uint64_t nbytes, void **data, uint64_t *handle,
                       bool *in_use)
{
    uint64_t key = cache_key(nbytes);
    if (!key || queue >= (int32_t)TSR__RING_QUEUES)
        return false;
    bool hit = false;
    pthread_mutex_lock(&c->cache_lock);
    for (uint32_t k = c->cache_count; k-- > 0;) { /* newest first: warm in the caches */
        tsr__cached_block *b = &c->cache[k];
        if (b->queue != queue || b->key != key)
            continue;
        *data = b->data;
        *handle = b->handle;
        /* Its last kernels are done once the ring says the launches up to
         * the one before its free are, in the queue record its device's
         * launches report in (the daemon's numbering, not the session's). */
        *in_use = false;
        if (b->record >= 0) {
            uint32_t done =
                atomic_load_explicit(&c->ring->queues[b->record].completed, memory_order_acquire);
            *in_use = (int32_t)(done - b->issued) < 0;
        }
        c->cache_bytes -= key;
        tsr__cache_counts *n = &c->counts[queue];
        n->bytes -= b->bytes;
        n->rounded -= key;
        n->hits++;
        memmove(b, b + 1, (c->cache_count - k - 1) * sizeof *b);
        c->cache_count--;
        hit = true;
        break;
    }
    pthread_mutex_unlock(&c->cache_lock);
    return hit;
}

static bool cache_put(tsr_client *c, int32_t queue, uint64_t nbytes, void *data, uint64_t handle)
{
    uint64_t key = cache_key(nbytes);
    if (!key || queue >= (int32_t)TSR__RING_QUEUES || atomic_load(&c->dead))
        return false;
    bool kept = false;
    int32_t record = atomic_load(&c->queue_of[queue]);
    pthread_mutex_lock(&c->cache_lock);
    if (c->cache_count < TSR__CACHE_BLOCKS && c->cache_bytes + key <= CACHE_BYTES_MAX) {
        c->cache[c->cache_count++] =
            (tsr__cached_block){.handle = handle,
                                .data = data,
                                .key = key,
                                .bytes = nbytes,
                                .queue = queue,
                                .record = record,
                                .issued = record >= 0 ? atomic_load(&c->issued[record]) : 0};
        c->cache_bytes += key;
        tsr__cache_counts *n = &c->counts[queue];
        n->bytes += nbytes;
        n->rounded += key;
        n->frees++;
        kept = true;
    }
    pthread_mutex_unlock(&c->cache_lock);
    return kept;
}

static void free_block(tsr_client *c, uint64_t handle)
{
    tsr__wire_handle req = {.handle = handle};
    if (!atomic_load(&c->dead))
        tsr__client_call(c, TSR__OP_FREE, &req, NULL);
}

/* Gives the daemon back every cached block of `queue`. */
static void cache_flush(tsr_client *c, int32_t queue)
{
    for (;;) {
        tsr__cached_block b = {0};
        pthread_mutex_lock(&c->cache_lock);
        for (uint32_t k = 0; k < c->cache_count; k++) {
            if (c->cache[k].queue != queue)
                continue;
            b = c->cache[k];
            c->cache_bytes -= b.key;
            tsr__cache_counts *n = &c->counts[queue];
            n->bytes -= b.bytes;
            n->rounded -= b.key;
            n->frees--; /* it is freed for real now, and counted by the daemon */
            c->cache[k] = c->cache[--c->cache_count];
            break;
        }
        pthread_mutex_unlock(&c->cache_lock);
        if (!b.handle)
            return;
        free_block(c, b.handle);
        segment_drop(c, b.data, false);
    }
}

tsr_status tsr__client_alloc(tsr_client *c, tsr_device d, uint64_t nbytes, bool alone, void **data,
                             uint64_t *handle, bool *in_use)
{
    tsr__wire_alloc req = {.bytes = nbytes, .flags = alone ? TSR__WIRE_ALLOC_ALONE : 0};
    *in_use = false;
    /* A forked child: the cache's blocks are its parent's. */
    tsr_status st = tsr__forked(c);
    if (st == TSR_OK)
        st = tsr__client_daemon_device(c, d, &req.device);
    if (st != TSR_OK)
        return st;
    if (!alone && cache_take(c, req.device.index, nbytes, data, handle, in_use))
        return TSR_OK;
    tsr__wire_block b;
    st = tsr__client_call(c, TSR__OP_ALLOC, &req, &b);
    if (st == TSR_ERR_OUT_OF_MEMORY && c->cache_count) {
        /* What this client keeps for reuse may be what the device lacks. */
        cache_flush(c, req.device.index);
        st = tsr__client_call(c, TSR__OP_ALLOC, &req, &b);
    }
    if (st != TSR_OK)
        return st;
    uint64_t end;
    if (__builtin_add_overflow(b.offset, b.size, &end) || end > b.segment_bytes ||
        b.size < nbytes || (alone && (b.offset != 0 || b.size != b.segment_bytes))) {
        free_block(c, b.handle); /* the daemon's, whatever it says of it */
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad returned a block outside its segment");
    }
    if (b.flags & TSR__WIRE_SEGMENTS_RELEASED)
        segments_forget(c, req.device.index);
    uint8_t *base = NULL;
    st = segment_base(c, b.segment_id, req.device.index, b.segment_bytes, &base);
    if (st != TSR_OK) {
        free_block(c, b.handle);
        return st;
    }
    *data = base + b.offset;
    *handle = b.handle;
    return TSR_OK;
}
void tsr__client_free(tsr_client *c, tsr_device d, uint64_t handle, uint64_t nbytes, void *data,
                      bool shared, bool alone)
{
    /* A forked child lets its parent's blocks be: no cache, no locks (a
     * parent thread may have held them at the fork), no FREE. */
    if (tsr__is_forked(c))
        return;
    tsr__wire_device wd = {0};
    if (!shared && !alone && tsr__client_daemon_device(c, d, &wd) == TSR_OK &&
        cache_put(c, wd.index, nbytes, data, handle))
        return;
    free_block(c, handle);
    segment_drop(c, data, alone);
}

tsr_status tsr_memory_empty_cache(tsr_client *c, tsr_device d, uint64_t *released_bytes)
{
    tsr__wire_device wd = {0};
    tsr_status st = tsr__client_daemon_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    cache_flush(c, wd.index);
    tsr__wire_bytes rep;
    st = tsr__client_call(c, TSR__OP_EMPTY_CACHE, &wd, &rep);
    if (st == TSR_OK)
        segments_forget(c, wd.index);
    if (st == TSR_OK && released_bytes)
        *released_bytes = rep.bytes;
    return st;
}
