/* Memory segments: the memfd arenas behind a session's allocators.
 *
 * A segment is a memfd of exactly the size the allocator asks for, sealed
 * against shrinking (so no client can make the daemon's mapping fault) and
 * against further seals (so no client can forbid the daemon's writable
 * mapping), mapped by the daemon and bound to its device's NUMA node before
 * any page is touched. The device's capacity is shared by all sessions:
 * creation is refused with TSR_ERR_OUT_OF_MEMORY when it would overflow.
 * On release the pages are punched out before the descriptor is closed, so
 * the memory returns to the system even while a client still maps it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/exec.h"
#include "daemon/log.h"
#include "daemon/session.h"
#include "numa/topology.h"

static tsr_status segment_create(void *ctx, uint64_t bytes, uint32_t *segment_id)
{
    tsr__device_pool *pool = ctx;
    tsr__session *s = pool->session;
    tsr__registry_device *dev = pool->device;
    uint64_t after;
    if (__builtin_add_overflow(dev->reserved, bytes, &after) || after > dev->capacity)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "the device is full");
    /* The configured limits (per session, uid and group) come next; every
     * failure below gives the charge back. */
    uint32_t ordinal = (uint32_t)dev->info.device.index;
    tsr__limits_who who = {.uid = s->uid, .gid = s->gid, .session = s->id};
    tsr_status st = tsr__limits_charge(s->server->limits, who, ordinal, bytes);
    if (st == TSR_ERR_OUT_OF_MEMORY) { /* a limit, not a full device: see alloc.c */
        char why[TSR__ERROR_MAX];
        snprintf(why, sizeof why, "%s", tsr_last_error());
        return tsr__fail_text(TSR_ERR_LIMIT, why);
    }
    if (st != TSR_OK)
        return st;
    if (s->segment_count >= s->server->session_max_segments) {
        tsr__limits_uncharge(s->server->limits, who, ordinal, bytes);
        return tsr__fail(TSR_ERR_LIMIT, "too many segments in one session (%u)",
                         s->server->session_max_segments);
    }
    if (s->segment_count == s->segment_cap) {
        uint32_t cap = s->segment_cap ? s->segment_cap * 2 : 16;
        tsr__segment *grown = realloc(s->segments, cap * sizeof *grown);
        if (!grown) {
            tsr__limits_uncharge(s->server->limits, who, ordinal, bytes);
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory tracking segments");
        }
        s->segments = grown;
        s->segment_cap = cap;
    }
    int fd = memfd_create("tessera-segment", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        tsr__limits_uncharge(s->server->limits, who, ordinal, bytes);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE))
        return tsr__fail(TSR_ERR_LIMIT, "tesserad is out of file descriptors for segments");
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "memfd_create: %s", strerror(errno));
    void *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
        (base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)) ==
            MAP_FAILED) {
        int e = errno;
        close(fd);
        tsr__limits_uncharge(s->server->limits, who, ordinal, bytes);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot make a %llu-byte segment: %s",
                         (unsigned long long)bytes, strerror(e));
    }
    if (tsr__numa_bind(base, bytes, dev->info.numa_node) != TSR_OK)
        tsr__log(TSR__LOG_DEBUG, "session %u: NUMA placement: %s", s->id, tsr_last_error());
    uint32_t id = ++s->next_segment_id;
    s->segments[s->segment_count++] =
        (tsr__segment){.id = id, .fd = fd, .base = base, .bytes = bytes, .device = dev};
    dev->reserved = after;
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
        tsr__exec_segment_gone(seg);
        fallocate(seg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)seg->bytes);
        munmap(seg->base, seg->bytes);
        close(seg->fd);
        seg->device->reserved -= seg->bytes;
        tsr__limits_uncharge(s->server->limits,
                             (tsr__limits_who){.uid = s->uid, .gid = s->gid, .session = s->id},
                             (uint32_t)seg->device->info.device.index, seg->bytes);
        s->segments[k] = s->segments[--s->segment_count];
        return;
    }
}

const tsr__segment_ops tsr__segment_ops_memfd = {.create = segment_create,
                                                 .destroy = segment_destroy};

tsr__segment *tsr__session_segment(tsr__session *s, uint32_t id)
{
    for (uint32_t k = 0; k < s->segment_count; k++)
        if (s->segments[k].id == id)
            return &s->segments[k];
    return NULL;
}

void tsr__session_release_segments(tsr__session *s)
{
    if (s->pools) {
        for (size_t k = 0; k < s->server->registry.opencl_count; k++)
            tsr__allocator_destroy(s->pools[k].allocator);
        free(s->pools);
        s->pools = NULL;
    }
    free(s->segments);
    s->segments = NULL;
    s->segment_count = s->segment_cap = 0;
}
