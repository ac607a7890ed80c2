/* The request handlers: one function per message of the protocol table,
 * each given a checked, aligned copy of its payload. A handler answers
 * through its reply payload or fails with a status and message, which
 * become an error reply; only a refused handshake ends the session. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "core/region.h"
#include "daemon/admin.h"
#include "daemon/dispatch.h"
#include "daemon/exec.h"
#include "daemon/limits.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/procinfo.h"
#include "daemon/roster.h"
#include "daemon/session.h"
#include "daemon/share.h"
#include "daemon/user.h"

typedef tsr__request request;
typedef tsr__handler_fn handler_fn;

static tsr_device wire_to_device(tsr__wire_device d)
{
    return (tsr_device){.type = (tsr_device_type)d.type, .index = d.index};
}

/* ---- devices as the session numbers them ---------------------------------
 *
 * A session sees the OpenCL devices devices.visible named when it said
 * HELLO, numbered from 0 in that order (session.h); cpu and meta are always
 * there. The daemon keeps everything by registry ordinal, so the devices a
 * request names are translated on the way in and those a reply names on
 * the way out. A hidden device does not exist for the session: naming one
 * gets the error a device that does not exist gets, and the list of devices
 * in that error is the session's. */

/* "cpu, opencl:0, opencl:1, meta", as the session sees them. */
static const char *seen_devices(const tsr__session *s, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "cpu");
    for (uint32_t k = 0; k < s->visible_count && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, ", %s:%u",
                                 tsr_device_type_name(s->server->registry.accel_type), (unsigned)k);
    if (used < n)
        snprintf(buf + used, n - used, ", meta");
    return buf;
}

/* Whether devices of `type` are the accelerators the daemon serves. */
static bool accelerator(const tsr__session *s, int type)
{
    const tsr__registry *reg = &s->server->registry;
    return reg->backend && type == (int)reg->accel_type;
}

/* The registry entry of a device as the session names it; NULL with
 * TSR_ERR_NO_DEVICE set, worded as tsr__registry_find words it, when the
 * session has no such device. */
static tsr__registry_device *session_device(tsr__session *s, tsr__wire_device wd)
{
    tsr__registry *reg = &s->server->registry;
    tsr_device d = wire_to_device(wd);
    bool single = d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META;
    if (accelerator(s, d.type) && d.index >= 0 && (uint32_t)d.index < s->visible_count)
        return &reg->devices[1 + s->visible[d.index]];
    if ((unsigned)d.type >= TSR_DEVICE_TYPE_COUNT || (single && (d.index == -1 || d.index == 0)))
        return tsr__registry_find(reg, d); /* nothing here depends on the session */
    char have[1024], name[TSR_DEVICE_STR_MAX];
    snprintf(name, sizeof name, "%s:%d", tsr_device_type_name(d.type), (int)d.index);
    if (single || (accelerator(s, d.type) && s->visible_count > 0))
        tsr__fail(TSR_ERR_NO_DEVICE,
                  "invalid device ordinal: %s does not exist (this machine has: %s)", name,
                  seen_devices(s, have, sizeof have));
    else
        tsr__fail(TSR_ERR_NO_DEVICE, "no %s devices here (this machine has: %s)",
                  tsr_device_type_name(d.type), seen_devices(s, have, sizeof have));
    return NULL;
}

/* The session's ordinal of a registry OpenCL device it sees (-1: hidden). */
static int32_t session_ordinal(const tsr__session *s, int32_t registry_index)
{
    for (uint32_t k = 0; k < s->visible_count; k++)
        if (s->visible[k] == registry_index)
            return (int32_t)k;
    return -1;
}

/* A registry device as the session names it on the wire. */
static tsr__wire_device session_wire_device(const tsr__session *s, const tsr__registry_device *dev)
{
    tsr__wire_device w = dev->info.device;
    if (accelerator(s, w.type))
        w.index = session_ordinal(s, w.index);
    return w;
}

/* The pool of an OpenCL device the session names, with its allocator made
 * on first use. Pools are indexed by registry ordinal, as the kernel
 * executor and the administration messages expect. */
static tsr_status device_pool(tsr__session *s, tsr__wire_device wd, tsr__device_pool **out)
{
    tsr_device d = wire_to_device(wd);
    tsr__registry_device *dev = session_device(s, wd);
    if (!dev)
        return TSR_ERR_NO_DEVICE;
    if (!accelerator(s, d.type)) {
        char name[TSR_DEVICE_STR_MAX];
        tsr_device_str(d, name, sizeof name);
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "the daemon manages no memory of %s: its tensors live in the client",
                         name);
    }
    /* The allocator's messages name the device as the session does. */
    char name[TSR_DEVICE_STR_MAX];
    tsr_device_str(d, name, sizeof name);
    tsr__device_pool *pool;
    tsr_status st = tsr__memory_pool(s, dev, name, &pool);
    if (st != TSR_OK)
        return st;
    *out = pool;
    return TSR_OK;
}

/* The client posted to a parked ring: the poller takes it up again. */
static void on_doorbell(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    tsr__session *s = data;
    uint64_t rings;
    ssize_t ignored = read(s->doorbell_fd, &rings, sizeof rings);
    (void)ignored;
    tsr__roster_ring_ready(s->server, s);
}

/* Where the client runs now, and the devices a connection opened now
 * sees there: those of devices.visible, or of its unit's, slice's or
 * cgroup's line, now, so that its numbering never changes under it. */
static tsr_status copy_visible(tsr__session *s)
{
    tsr__proc_read_place(s->pid, &s->place);
    size_t n = s->server->registry.accel_count;
    int32_t *visible = calloc(n ? n : 1, sizeof *visible);
    if (!visible)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory opening the session");
    const tsr__server *server = s->server;
    const tsr__config_match *m = tsr__config_visible_for(server->config, tsr__session_place(s));
    uint32_t seen = server->visible_count;
    if (m)
        seen = tsr__registry_visible_list(&server->registry, m->all_devices, m->device_count,
                                          m->devices, visible, NULL, NULL);
    else
        memcpy(visible, server->visible, seen * sizeof *visible);
    free(s->visible); /* from a HELLO that failed after it */
    s->visible = visible;
    s->visible_count = seen;
    return TSR_OK;
}

/* HELLO with the MONITOR flag: a connection that only asks (the messages
 * marked TSR__WIRE_MONITOR), with no ring. It leaves the session counts
 * (sessions.max, the uid's sessions and handshakes) for the monitors'
 * own, so that watching works however many sessions others hold. */
static tsr_status open_monitor(request *r, uint32_t version)
{
    const tsr__wire_hello *in = r->in;
    tsr__session *s = r->s;
    tsr__server *server = s->server;
    bool admin = tsr__proc_peer_is_admin(s->fd, s->uid, s->gid, TSR__ADMIN_GROUP);
    uint32_t most = server->max_monitors + (admin ? TSR__SERVER_ADMIN_RESERVE : 0);
    if (server->monitor_count >= most) {
        r->end_session = true;
        server->counters.monitors_refused++;
        TSR__LOG_LIMITED(TSR__LOG_WARNING,
                         "refused a monitoring connection of pid %d: %u open "
                         "(sessions.max_monitors = %u)",
                         (int)s->pid, server->monitor_count, server->max_monitors);
        return tsr__fail(TSR_ERR_LIMIT,
                         "tesserad has %u monitoring connections open, its most "
                         "(sessions.max_monitors = %u)",
                         server->monitor_count, server->max_monitors);
    }
    tsr_status st = copy_visible(s);
    if (st != TSR_OK)
        return st;
    s->monitor = true;
    s->version = version;
    s->admin = admin;
    tsr__wire_text_set(s->name, sizeof s->name, in->name);
    server->monitor_count++;
    server->counters.monitors_opened++;
    server->session_count--;
    tsr__roster_count(server, s->uid, -1, -1);
    *(tsr__wire_welcome *)r->out = (tsr__wire_welcome){
        .version = version, .session_id = s->id, .device_count = s->visible_count + 2};
    return TSR_OK;
}

static tsr_status on_hello(request *r)
{
    const tsr__wire_hello *in = r->in;
    tsr__wire_welcome *out = r->out;
    tsr__session *s = r->s;
    if (s->version)
        return tsr__fail(TSR_ERR_PROTOCOL, "the session is already open");
    uint32_t lo = in->version_min > TSR__WIRE_VERSION_MIN ? in->version_min : TSR__WIRE_VERSION_MIN;
    uint32_t hi = in->version_max < TSR__WIRE_VERSION ? in->version_max : TSR__WIRE_VERSION;
    if (lo > hi) {
        r->end_session = true;
        return tsr__fail(
            TSR_ERR_PROTOCOL,
            "protocol version mismatch: the client speaks versions %u to %u, this "
            "tesserad speaks %u to %u; use a libtessera and tesserad of matching releases",
            (unsigned)in->version_min, (unsigned)in->version_max, TSR__WIRE_VERSION_MIN,
            TSR__WIRE_VERSION);
    }
    if (in->flags & ~TSR__WIRE_HELLO_FLAGS_KNOWN)
        return tsr__fail(TSR_ERR_PROTOCOL, "HELLO flags 0x%x are not defined",
                         (unsigned)(in->flags & ~TSR__WIRE_HELLO_FLAGS_KNOWN));
    if (!tsr__wire_text_ok(in->name, sizeof in->name))
        return tsr__fail(TSR_ERR_PROTOCOL, "HELLO name is not terminated");
    if (in->flags & TSR__WIRE_HELLO_MONITOR)
        return open_monitor(r, hi);
    if (s->over_cap[0]) {
        r->end_session = true;
        TSR__LOG_LIMITED_WITH(&(tsr__log_fields){.event = TSR__EV_SESSION_REFUSED,
                                                 .session = s->id,
                                                 .uid = (int64_t)s->uid,
                                                 .pid = (int64_t)s->pid},
                              TSR__LOG_WARNING, "refused a session of pid %d: %s", (int)s->pid,
                              s->over_cap);
        s->server->counters.sessions_refused++;
        return tsr__fail_text(TSR_ERR_LIMIT, s->over_cap);
    }
    tsr_status st = copy_visible(s);
    if (st != TSR_OK)
        return st;
    int ring_fd = memfd_create("tessera-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    int bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    tsr__ring *ring = MAP_FAILED;
    if (ring_fd < 0 || bell < 0 || ftruncate(ring_fd, sizeof *ring) < 0 ||
        fcntl(ring_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
        (ring = mmap(NULL, sizeof *ring, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0)) ==
            MAP_FAILED) {
        int e = errno;
        if (ring_fd >= 0)
            close(ring_fd);
        if (bell >= 0)
            close(bell);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot make the session's ring: %s", strerror(e));
    }
    ring->header = (tsr__ring_header){.magic = TSR__RING_MAGIC,
                                      .version = TSR__WIRE_VERSION,
                                      .slot_count = TSR__RING_SLOTS,
                                      .slot_size = TSR__RING_SLOT_SIZE};
    st = tsr__loop_watch(s->server->loop, bell, EPOLLIN, on_doorbell, s, &s->doorbell_watch);
    if (st != TSR_OK) {
        munmap(ring, sizeof *ring);
        close(ring_fd);
        close(bell);
        return st;
    }
    s->ring = ring;
    s->ring_fd = ring_fd;
    s->doorbell_fd = bell;
    s->version = hi;
    s->admin = tsr__proc_peer_is_admin(s->fd, s->uid, s->gid, TSR__ADMIN_GROUP);
    tsr__wire_text_set(s->name, sizeof s->name, in->name);
    *out = (tsr__wire_welcome){.version = hi,
                               .session_id = s->id,
                               .device_count = s->visible_count + 2, /* cpu, opencl:*, meta */
                               .ring_slots = TSR__RING_SLOTS,
                               .ring_slot_size = TSR__RING_SLOT_SIZE,
                               .ring_bytes = sizeof *ring};
    r->fds[0] = ring_fd;
    r->fds[1] = bell;
    *r->nfds = 2;
    return TSR_OK;
}

static tsr_status on_ping(request *r)
{
    (void)r;
    return TSR_OK;
}

static tsr_status on_device_get(request *r)
{
    const tsr__wire_position *in = r->in;
    tsr__session *s = r->s;
    tsr__registry *reg = &s->server->registry;
    /* cpu, the session's OpenCL devices in its order, meta. */
    uint32_t count = s->visible_count + 2;
    if (in->position >= count)
        return tsr__fail(TSR_ERR_INDEX, "device position %u out of range (%u devices)",
                         (unsigned)in->position, (unsigned)count);
    const tsr__registry_device *dev = &reg->devices[0];
    if (in->position == count - 1)
        dev = &reg->devices[reg->count - 1];
    else if (in->position > 0)
        dev = &reg->devices[1 + s->visible[in->position - 1]];
    tsr__wire_device_info *out = r->out;
    memcpy(out, &dev->info, sizeof *out);
    /* The daemon's own ordinal travels beside the session's, so that a
     * client can name the device in the administration messages. */
    out->flags = TSR__WIRE_INFO_DAEMON_INDEX;
    out->daemon_index = -1;
    if (dev->backend) {
        out->daemon_index = dev->info.device.index;
        uint64_t total = tsr__memory_session_total(s, dev);
        if (total < out->memory_bytes) {
            out->flags |= TSR__WIRE_INFO_LIMITED;
            out->device_memory_bytes = s->admin ? out->memory_bytes : 0;
            out->memory_bytes = total;
        }
        out->device.index = (int32_t)in->position - 1;
    }
    return TSR_OK;
}

static tsr__thread_device *find_thread(tsr__session *s, uint64_t tid)
{
    for (uint32_t k = 0; k < s->thread_count; k++)
        if (s->threads[k].thread_id == tid)
            return &s->threads[k];
    return NULL;
}

static tsr_status on_set_device(request *r)
{
    const tsr__wire_set_device *in = r->in;
    tsr__session *s = r->s;
    const tsr__registry_device *dev = session_device(s, in->device);
    if (!dev)
        return TSR_ERR_NO_DEVICE;
    if (!dev->backend)
        return TSR_OK; /* cpu and meta have one device each */
    tsr__thread_device *t = find_thread(s, in->thread_id);
    if (!t) {
        if (s->thread_count >= s->server->session_max_threads)
            return tsr__fail(TSR_ERR_LIMIT, "too many client threads with a current device (%u)",
                             s->server->session_max_threads);
        if ((s->thread_count & (s->thread_count - 1)) == 0) {
            uint32_t cap = s->thread_count ? s->thread_count * 2 : 4;
            tsr__thread_device *grown = realloc(s->threads, cap * sizeof *grown);
            if (!grown)
                return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
            s->threads = grown;
        }
        t = &s->threads[s->thread_count++];
        t->thread_id = in->thread_id;
    }
    t->opencl_index = dev->info.device.index; /* by registry ordinal, as tessera ps shows it */
    return TSR_OK;
}

static tsr_status on_get_device(request *r)
{
    const tsr__wire_get_device *in = r->in;
    tsr__wire_device *out = r->out;
    tsr__session *s = r->s;
    tsr__wire_device d = {.type = in->type, .index = accelerator(s, in->type) ? 0 : -1};
    if (!session_device(s, d))
        return TSR_ERR_NO_DEVICE;
    const tsr__thread_device *t = accelerator(s, d.type) ? find_thread(s, in->thread_id) : NULL;
    int32_t recorded = t ? session_ordinal(s, t->opencl_index) : -1;
    if (recorded >= 0)
        d.index = recorded;
    *out = d;
    return TSR_OK;
}

/* An allocation refused for want of memory: counted, and logged once per
 * session for each cause (each of its memory limits: session, uid, group,
 * unit, slice, cgroup;
 * a full device), with the limit's own words. */
static void refused_allocation(tsr__session *s, const tsr__device_pool *pool, uint64_t bytes)
{
    bool limit = s->refused_at_limit;
    uint32_t bit = limit ? 1u << (s->refused_scope & 7u) : 1u << 8;
    if (limit)
        s->server->counters.limit_refusals++;
    else
        s->server->counters.oom_refusals++;
    if (s->refusals_logged & bit)
        return;
    s->refusals_logged |= bit;
    char device[TSR_DEVICE_STR_MAX];
    tsr_device_str((tsr_device){(tsr_device_type)pool->device->info.device.type,
                                pool->device->info.device.index},
                   device, sizeof device);
    tsr__log_with(&(tsr__log_fields){.event = TSR__EV_LIMIT_REFUSED,
                                     .session = s->id,
                                     .uid = (int64_t)s->uid,
                                     .pid = (int64_t)s->pid,
                                     .device = device},
                  TSR__LOG_WARNING,
                  "session %u: pid %d: an allocation of %llu bytes on %s refused (%s); further "
                  "refusals of this session for %s are not logged",
                  s->id, (int)s->pid, (unsigned long long)bytes, device, tsr_last_error(),
                  !limit                                   ? "a full device"
                  : s->refused_scope == TSR__SCOPE_SESSION ? "memory_limit.session"
                  : s->refused_scope == TSR__SCOPE_UID     ? "its uid's memory limit"
                  : s->refused_scope == TSR__SCOPE_GROUP   ? "its group's memory limit"
                  : s->refused_scope == TSR__SCOPE_UNIT    ? "its unit's memory limit"
                  : s->refused_scope == TSR__SCOPE_SLICE   ? "its slice's memory limit"
                                                           : "its cgroup's memory limit");
}

static tsr_status on_alloc(request *r)
{
    const tsr__wire_alloc *in = r->in;
    if (in->flags & ~TSR__WIRE_ALLOC_FLAGS_KNOWN)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "ALLOC flags 0x%x are not defined",
                         (unsigned)(in->flags & ~TSR__WIRE_ALLOC_FLAGS_KNOWN));
    if (in->pad != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "ALLOC: pad is not 0");
    tsr__device_pool *pool = NULL;
    tsr_status st = device_pool(r->s, in->device, &pool);
    if (st != TSR_OK)
        return st;
    tsr__block_ref b;
    tsr__alloc_stats before, after;
    tsr__allocator_stats(pool->allocator, &before);
    r->s->refused_at_limit = false;
    st = (in->flags & TSR__WIRE_ALLOC_ALONE) ? tsr__alloc_alone(pool->allocator, in->bytes, &b)
                                             : tsr__alloc(pool->allocator, in->bytes, &b);
    if (st == TSR_ERR_OUT_OF_MEMORY)
        refused_allocation(r->s, pool, in->bytes);
    if (st != TSR_OK)
        return st;
    tsr__allocator_stats(pool->allocator, &after);
    *(tsr__wire_block *)r->out = (tsr__wire_block){
        .handle = b.handle,
        .offset = b.offset,
        .size = b.size,
        .segment_bytes = b.segment_bytes,
        .segment_id = b.segment_id,
        .flags = (b.new_segment ? TSR__WIRE_NEW_SEGMENT : 0) |
                 (after.segments_released != before.segments_released ? TSR__WIRE_SEGMENTS_RELEASED
                                                                      : 0)};
    return TSR_OK;
}

static tsr_status on_fill(request *r)
{
    const tsr__wire_fill *in = r->in;
    tsr__block_ref b;
    tsr__device_pool *pool = tsr__session_find_live(r->s, in->region.handle, &b);
    if (!pool)
        return TSR_ERR_INVALID_ARGUMENT;
    if (tsr__share_read_only(r->s, in->region.handle))
        return TSR_ERR_PERMISSION;
    tsr__region g = {
        .itemsize = in->region.itemsize, .ndim = in->region.ndim, .offset = in->region.offset};
    memcpy(g.sizes, in->region.sizes, sizeof g.sizes);
    memcpy(g.strides, in->region.strides, sizeof g.strides);
    uint64_t span;
    uint32_t queue = pool->ordinal;
    *(tsr__wire_launched *)r->out = (tsr__wire_launched){.sequence = 0, .queue = queue};
    tsr_status st = tsr__region_check(&g, b.size, &span);
    if (st != TSR_OK || span == 0)
        return st;
    /* A fill writes each element it names once, however often the
     * region repeats it: the work is bounded by the block. */
    if ((st = tsr__region_distinct(&g, b.size)) != TSR_OK)
        return st;
    tsr__segment *seg = tsr__session_segment(r->s, b.segment_id);
    if (!seg || b.offset + b.size > seg->bytes) /* an allocator invariant */
        return tsr__fail(TSR_ERR_RUNTIME, "allocation 0x%016llx lost its segment",
                         (unsigned long long)in->region.handle);
    return tsr__exec_fill(r->s, queue, in->region.handle, (uint8_t *)seg->base + b.offset, &g,
                          in->value, r->out);
}

static tsr_status on_launch(request *r)
{
    return tsr__exec_launch(r->s, r->in, r->out);
}

static tsr_status on_gemm(request *r)
{
    return tsr__exec_gemm(r->s, r->in, r->out);
}

static tsr_status on_segment_map(request *r)
{
    const tsr__wire_segment *in = r->in;
    tsr__segment *seg = tsr__session_segment(r->s, in->segment_id);
    if (!seg)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "segment %u is not one of this session's",
                         (unsigned)in->segment_id);
    *(tsr__wire_segment_info *)r->out = (tsr__wire_segment_info){
        .bytes = seg->bytes,
        .device = session_wire_device(r->s, seg->device),
    };
    r->fds[0] = seg->fd;
    *r->nfds = 1;
    return TSR_OK;
}

static tsr_status on_memory_stats(request *r)
{
    tsr__device_pool *pool = NULL;
    tsr_status st = device_pool(r->s, *(const tsr__wire_device *)r->in, &pool);
    if (st != TSR_OK)
        return st;
    tsr__alloc_stats a;
    tsr__allocator_stats(pool->allocator, &a);
    *(tsr__wire_memory_stats *)r->out = (tsr__wire_memory_stats){
        .allocated = a.allocated,
        .reserved = a.reserved,
        .active = a.active,
        .requested = a.requested,
        .peak_allocated = a.peak_allocated,
        .peak_reserved = a.peak_reserved,
        .allocations = a.allocations,
        .frees = a.frees,
        .cache_hits = a.cache_hits,
        .ooms = a.ooms,
        .segments = a.segments,
        .device_capacity = tsr__memory_session_total(pool->session, pool->device),
        .device_free = tsr__memory_available(pool),
    };
    return TSR_OK;
}

static tsr_status on_empty_cache(request *r)
{
    tsr__device_pool *pool = NULL;
    tsr_status st = device_pool(r->s, *(const tsr__wire_device *)r->in, &pool);
    if (st != TSR_OK)
        return st;
    ((tsr__wire_bytes *)r->out)->bytes = tsr__memory_empty_cache(r->s, pool);
    return TSR_OK;
}

/* SESSION_LIST is PROCESS_LIST's row in the older layout, so that both
 * walk the sessions the same way and apply the same rule of who may see
 * whose (admin.c): of a session the asker may not see, only numbers. Its
 * layout cannot say that a session is ending, so it lists open ones. */
static tsr_status on_session_list(request *r)
{
    tsr__wire_process row;
    tsr__wire_segment cursor = *(const tsr__wire_segment *)r->in;
    request ask = *r;
    ask.in = &cursor;
    ask.out = &row;
    tsr_status st;
    do {
        st = tsr__admin_process_list(&ask);
        cursor.segment_id = row.session_id;
    } while (st == TSR_OK && (row.flags & TSR__WIRE_PROCESS_ENDING));
    tsr__wire_session_info *out = r->out;
    memset(out, 0, sizeof *out);
    if (st != TSR_OK || row.session_id == 0)
        return st; /* session_id 0: the end */
    out->session_id = row.session_id;
    out->more = (row.flags & TSR__WIRE_PROCESS_MORE) != 0;
    out->threads = row.threads;
    out->requests = row.requests;
    out->current_device = row.current_device;
    out->uid = out->gid = TSR__WIRE_ID_HIDDEN;
    if (row.flags & TSR__WIRE_PROCESS_VISIBLE) {
        /* The pid from the connection's credentials, as this message has
         * always told it (PROCESS_LIST's is the asker's namespace's). */
        bool more;
        out->pid = (uint32_t)tsr__admin_session_after(r->s->server, row.session_id - 1, &more)->pid;
        out->uid = row.uid;
        out->gid = row.gid;
        out->started_unix_ns = row.started_unix_ns;
        memcpy(out->command, row.command, sizeof out->command);
        memcpy(out->name, row.name, sizeof out->name);
    }
    for (uint32_t k = 0; k < row.usage_count && k < TSR__WIRE_SESSION_DEVICES; k++)
        out->usage[out->usage_count++] =
            (tsr__wire_session_usage){.device = row.usage[k].device,
                                      .allocated = row.usage[k].allocated,
                                      .reserved = row.usage[k].reserved};
    return TSR_OK;
}

static tsr_status on_program_create(request *r)
{
    tsr__device_pool *pool = NULL;
    tsr_status st = device_pool(r->s, ((const tsr__wire_program_create *)r->in)->device, &pool);
    return st == TSR_OK ? tsr__user_program_create(r, pool) : st;
}

static const handler_fn handlers[TSR__OP_MAX] = {
    [TSR__OP_HELLO] = on_hello,
    [TSR__OP_PING] = on_ping,
    [TSR__OP_DEVICE_GET] = on_device_get,
    [TSR__OP_SET_DEVICE] = on_set_device,
    [TSR__OP_GET_DEVICE] = on_get_device,
    [TSR__OP_ALLOC] = on_alloc,
    [TSR__OP_FREE] = tsr__share_free,
    [TSR__OP_SEGMENT_MAP] = on_segment_map,
    [TSR__OP_MEMORY_STATS] = on_memory_stats,
    [TSR__OP_EMPTY_CACHE] = on_empty_cache,
    [TSR__OP_SESSION_LIST] = on_session_list,
    [TSR__OP_FILL] = on_fill,
    [TSR__OP_LAUNCH] = on_launch,
    [TSR__OP_PROCESS_LIST] = tsr__admin_process_list,
    [TSR__OP_SESSION_STATS] = tsr__admin_session_stats,
    [TSR__OP_DEVICE_STATUS] = tsr__admin_device_status,
    [TSR__OP_TOPOLOGY] = tsr__admin_topology,
    [TSR__OP_DAEMON_STATS] = tsr__admin_daemon_stats,
    [TSR__OP_EXPORT] = tsr__share_export,
    [TSR__OP_IMPORT] = tsr__share_import,
    [TSR__OP_REVOKE] = tsr__share_revoke,
    [TSR__OP_SHARE_LIST] = tsr__admin_share_list,
    [TSR__OP_PROGRAM_CREATE] = on_program_create,
    [TSR__OP_PROGRAM_SOURCE] = tsr__user_program_source,
    [TSR__OP_PROGRAM_STATUS] = tsr__user_program_status,
    [TSR__OP_PROGRAM_RELEASE] = tsr__user_program_release,
    [TSR__OP_KERNEL_INFO] = tsr__user_kernel_info,
    [TSR__OP_KERNEL_LAUNCH] = tsr__user_kernel_launch,
    [TSR__OP_GEMM] = on_gemm,
};

bool tsr__session_handle(tsr__session *s, const tsr__wire_header *h, const uint8_t *payload,
                         uint32_t transport, uint8_t *reply, uint32_t *reply_len, int *fds,
                         int *nfds)
{
    (void)transport;
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX];
    } in;
    memcpy(in.bytes, payload, h->length);
    *nfds = 0;
    request r = {.s = s, .in = in.bytes, .out = reply + sizeof *h, .fds = fds, .nfds = nfds};
    const tsr__wire_op_info *op = tsr__wire_op(h->opcode);
    tsr_status st;
    if (s->version == 0 && h->opcode != TSR__OP_HELLO) {
        st = tsr__fail(TSR_ERR_PROTOCOL, "%s before HELLO: open the session first", op->name);
    } else if (s->monitor && !(op->transports & TSR__WIRE_MONITOR)) {
        st = tsr__fail(TSR_ERR_PROTOCOL,
                       "%s is not served on a monitoring connection: open a session for it",
                       op->name);
    } else {
        handler_fn fn = handlers[h->opcode];
        st = fn ? fn(&r) : tsr__fail(TSR_ERR_NOT_SUPPORTED, "%s is not served", op->name);
    }
    s->requests++;
    tsr__wire_header out;
    if (st == TSR_OK) {
        tsr__wire_header_init(&out, h->opcode, TSR__WIRE_REPLY, op->reply_size, h->request_id);
    } else {
        *nfds = 0;
        tsr__wire_error err;
        uint32_t len = tsr__wire_error_fill(&err, st, tsr_last_error());
        memcpy(reply + sizeof out, &err, len);
        tsr__wire_header_init(&out, h->opcode, TSR__WIRE_REPLY | TSR__WIRE_ERROR, len,
                              h->request_id);
    }
    memcpy(reply, &out, sizeof out);
    *reply_len = (uint32_t)sizeof out + out.length;
    return !r.end_session;
}
