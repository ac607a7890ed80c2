/* The administration messages (see admin.h).
 *
 * Everything here reads state the loop thread owns (sessions, allocators,
 * the registry) and changes none of it. A device's busy time comes from
 * the kernel executor, which measures it at every submission and
 * completion (tsr__exec_busy_ns). */
#include "daemon/admin.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/dispatch.h"
#include "daemon/exec.h"
#include "daemon/memory.h"
#include "daemon/procinfo.h"
#include "daemon/session.h"
#include "daemon/user.h"
#include "numa/topology.h"

bool tsr__admin_may_see(uint32_t asker_uid, bool asker_admin, uint32_t owner_uid)
{
    return asker_admin || asker_uid == owner_uid;
}

/* The most a session may reserve on an OpenCL device: the least of what
 * the daemon lends of it and the memory limits of the session's uid and
 * group (limits.h), as if nobody else held anything. */
static uint64_t limit_of(const tsr__session *s, const tsr__registry_device *dev)
{
    if (!s->server->limits)
        return dev->capacity;
    uint64_t limit = tsr__limits_effective(s->server->limits, tsr__session_who(s),
                                           (uint32_t)dev->info.device.index);
    return limit < dev->capacity ? limit : dev->capacity;
}

static tsr__registry_device *wire_device(tsr__registry *reg, const void *in)
{
    const tsr__wire_device *w = in;
    return tsr__registry_find(reg,
                              (tsr_device){.type = (tsr_device_type)w->type, .index = w->index});
}

static tsr__session *find_session(tsr__session *asker, uint32_t id)
{
    if (id == 0)
        return asker;
    for (tsr__session *s = asker->server->first; s; s = s->next)
        if (s->id == id && s->version && !s->monitor)
            return s;
    return NULL;
}

tsr__wire_device tsr__admin_shown_device(const tsr__session *s)
{
    /* A thread can only have chosen a device the session sees, so a
     * session that sees none has its tensors on the cpu. */
    if (s->visible_count == 0)
        return (tsr__wire_device){.type = TSR_DEVICE_CPU, .index = -1};
    int32_t index = s->visible[0]; /* the session's opencl:0, where its threads start */
    for (uint32_t k = 0; k < s->thread_count; k++)
        if (k == 0 || s->threads[k].thread_id == (uint64_t)s->pid)
            index = s->threads[k].opencl_index;
    return (tsr__wire_device){.type = s->server->registry.accel_type, .index = index};
}

_Static_assert(sizeof((tsr__proc_owner *)0)->cgroup == sizeof((tsr__wire_process *)0)->cgroup &&
                   sizeof((tsr__proc_owner *)0)->unit == sizeof((tsr__wire_process *)0)->unit,
               "what /proc says of a client fits the wire's fields");

/* Of an open session, /proc now; of an ending one, what it said when the
 * connection ended (all unknown when that could not be kept). */
static void describe_owner(const tsr__session *s, const tsr__session *asker, tsr__wire_process *out)
{
    tsr__proc_owner now = {0};
    const tsr__proc_owner *owner = s->owner;
    if (!s->ending) {
        tsr__proc_read_owner(s->pid, &now);
        owner = &now;
    }
    tsr__proc_ids viewer;
    tsr__proc_read_ids(asker->pid, &viewer);
    uint32_t pid = 0;
    if (owner && tsr__proc_pid_seen_by(&owner->ids, &viewer, &pid)) {
        out->pid = pid;
        out->flags |= TSR__WIRE_PROCESS_PID_KNOWN;
    }
    if (owner && owner->ids.levels)
        out->pid_namespace = owner->ids.ns[owner->ids.levels - 1];
    out->uid = s->uid;
    out->gid = s->gid;
    memcpy(out->command, s->command, sizeof out->command);
    memcpy(out->name, s->name, sizeof out->name);
    if (owner) {
        memcpy(out->cgroup, owner->cgroup, sizeof out->cgroup);
        memcpy(out->unit, owner->unit, sizeof out->unit);
    }
    out->started_unix_ns = s->started_unix_ns;
}

const tsr__session *tsr__admin_session_after(const tsr__server *server, uint32_t cursor, bool *more)
{
    const tsr__session *s = server->first;
    /* Open sessions and ending ones; not connections still on their
     * handshake, nor monitoring connections. */
    while (s && (s->id <= cursor || s->version == 0 || s->monitor))
        s = s->next;
    *more = false;
    for (const tsr__session *n = s ? s->next : NULL; n && !*more; n = n->next)
        *more = n->version != 0 && !n->monitor;
    return s;
}

tsr_status tsr__admin_process_list(tsr__request *r)
{
    uint32_t cursor = ((const tsr__wire_segment *)r->in)->segment_id;
    tsr__wire_process *out = r->out;
    memset(out, 0, sizeof *out);
    bool more;
    const tsr__session *s = tsr__admin_session_after(r->s->server, cursor, &more);
    if (!s)
        return TSR_OK; /* session_id 0: the end */
    out->session_id = s->id;
    out->flags = (more ? TSR__WIRE_PROCESS_MORE : 0) | (s->ending ? TSR__WIRE_PROCESS_ENDING : 0);
    out->kernels = s->inflight_total;
    out->threads = s->thread_count;
    out->requests = s->requests;
    out->launches = s->launches;
    out->busy_ns = s->busy_ns;
    out->current_device = tsr__admin_shown_device(s);
    out->uid = out->gid = TSR__WIRE_ID_HIDDEN;
    if (s == r->s)
        out->flags |= TSR__WIRE_PROCESS_SELF;
    if (tsr__admin_may_see(r->s->uid, r->s->admin, s->uid)) {
        out->flags |= TSR__WIRE_PROCESS_VISIBLE;
        describe_owner(s, r->s, out);
    }
    const tsr__config *conf = s->server->config;
    out->programs = tsr__user_programs(s, UINT32_MAX);
    out->max_programs =
        tsr__user_kernels_allowed(s) ? (uint32_t)conf->v[TSR__CONF_MAX_PROGRAMS].number : 0;
    out->max_source_bytes = conf->v[TSR__CONF_MAX_SOURCE].number;
    out->build_memory = conf->v[TSR__CONF_BUILD_MEMORY].number;
    out->build_time_limit_ms = (uint32_t)conf->v[TSR__CONF_BUILD_TIME].number;
    out->run_time_limit_ms = (uint32_t)conf->v[TSR__CONF_RUN_TIME].number;
    const tsr__registry *reg = &s->server->registry;
    for (size_t k = 0; s->devices && k < reg->accel_count; k++) {
        if (!s->devices[k].pool.allocator || out->usage_count == TSR__WIRE_SESSION_DEVICES)
            continue;
        tsr__alloc_stats a;
        tsr__allocator_stats(s->devices[k].pool.allocator, &a);
        out->usage[out->usage_count++] =
            (tsr__wire_process_usage){.device = s->devices[k].pool.device->info.device,
                                      .allocated = a.allocated,
                                      .reserved = a.reserved,
                                      .limit = limit_of(s, s->devices[k].pool.device)};
    }
    return TSR_OK;
}

/* Free bytes and blocks in segments that also hold live blocks: what
 * PyTorch calls inactive split (memory that empty_cache cannot give back). */
static void inactive_split(const tsr__allocator *a, uint64_t *bytes, uint64_t *blocks)
{
    *bytes = *blocks = 0;
    size_t n = tsr__allocator_segments(a, NULL, 0);
    if (n == 0)
        return;
    tsr__segment_info *segs = calloc(n, sizeof *segs);
    if (!segs)
        return;
    n = tsr__allocator_segments(a, segs, n);
    for (size_t k = 0; k < n; k++) {
        if (segs[k].live_blocks == 0)
            continue;
        *bytes += segs[k].bytes - segs[k].allocated;
        *blocks += segs[k].free_blocks;
    }
    free(segs);
}

tsr_status tsr__admin_session_stats(tsr__request *r)
{
    const tsr__wire_stats_request *in = r->in;
    tsr__session *s = find_session(r->s, in->session_id);
    if (!s)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "no open session %u", (unsigned)in->session_id);
    const tsr__registry_device *dev = wire_device(&s->server->registry, &in->device);
    if (!dev)
        return TSR_ERR_NO_DEVICE;
    if (!dev->backend)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "the daemon manages no memory of %s: its tensors live in the client",
                         tsr_device_type_name((tsr_device_type)dev->info.device.type));
    tsr__wire_session_stats *out = r->out;
    *out = (tsr__wire_session_stats){.limit = limit_of(s, dev)};
    uint32_t q = (uint32_t)dev->info.device.index;
    out->programs = tsr__user_programs(s, q);
    pid_t worker = tsr__user_worker_pid(s->server, s->uid, q);
    if (worker > 0) {
        out->worker_flags = TSR__WIRE_STATS_WORKER_RUNNING;
        /* Its pid, as the asker's namespace numbers it, to who may see the
         * session: the worker is that uid's process. */
        tsr__proc_ids target, viewer;
        uint32_t pid = 0;
        if (tsr__admin_may_see(r->s->uid, r->s->admin, s->uid)) {
            tsr__proc_read_ids(worker, &target);
            tsr__proc_read_ids(r->s->pid, &viewer);
            if (tsr__proc_pid_seen_by(&target, &viewer, &pid) && pid) {
                out->worker_pid = pid;
                out->worker_flags |= TSR__WIRE_STATS_WORKER_PID_KNOWN;
            }
        }
    }
    const tsr__allocator *a = s->devices ? s->devices[dev->info.device.index].pool.allocator : NULL;
    if (!a)
        return TSR_OK;
    tsr__alloc_stats st;
    tsr__allocator_stats(a, &st);
    out->allocated = st.allocated;
    out->peak_allocated = st.peak_allocated;
    out->reserved = st.reserved;
    out->peak_reserved = st.peak_reserved;
    out->active = st.active;
    out->peak_active = st.peak_allocated; /* active is allocated: no streams */
    out->requested = st.requested;
    out->live_blocks = st.live_blocks;
    out->allocations = st.allocations;
    out->frees = st.frees;
    out->segments = st.segments;
    out->segments_created = st.segments_created;
    out->segments_released = st.segments_released;
    out->cache_hits = st.cache_hits;
    out->ooms = st.ooms;
    inactive_split(a, &out->inactive_split, &out->inactive_split_blocks);
    return TSR_OK;
}

/* ---- devices ------------------------------------------------------------ */

/* The reply's kind is the backend's own, value for value. */
_Static_assert(TSR__DEVICE_KIND_OTHER == (int)TSR__WIRE_KIND_OTHER &&
                   TSR__DEVICE_KIND_CPU == (int)TSR__WIRE_KIND_CPU &&
                   TSR__DEVICE_KIND_GPU == (int)TSR__WIRE_KIND_GPU &&
                   TSR__DEVICE_KIND_ACCELERATOR + 1 == (int)TSR__WIRE_KIND_COUNT,
               "tsr__device_kind is tsr__wire_device_kind");

tsr_status tsr__admin_device_status(tsr__request *r)
{
    tsr__server *server = r->s->server;
    const tsr__registry_device *dev = wire_device(&server->registry, r->in);
    if (!dev)
        return TSR_ERR_NO_DEVICE;
    tsr__wire_device_status *out = r->out;
    memset(out, 0, sizeof *out);
    out->device = dev->info.device;
    out->capacity = dev->capacity;
    out->reserved = dev->reserved;
    out->now_ns = tsr__now_ns();
    if (!dev->backend)
        return TSR_OK;
    uint32_t q = (uint32_t)dev->info.device.index;
    for (const tsr__session *s = server->first; s; s = s->next) {
        const tsr__allocator *a = s->devices ? s->devices[q].pool.allocator : NULL;
        if (!a)
            continue;
        tsr__alloc_stats st;
        tsr__allocator_stats(a, &st);
        out->allocated += st.allocated;
        out->sessions += st.reserved > 0;
    }
    out->flags |= TSR__WIRE_DEVICE_BUSY_SAMPLED;
    out->busy_ns = tsr__exec_busy_ns(server, q, out->now_ns);
    out->launches = dev->launches;
    tsr__exec_program_counts(server, q, &out->programs_built, &out->programs_loaded,
                             &out->programs_pending);
    tsr__user_device_counts(server, q, &out->kernel_workers, &out->user_programs);
    const tsr__backend_device *d = &dev->desc;
    out->max_alloc_bytes = d->max_alloc_bytes;
    out->local_memory_bytes = d->local_memory_bytes;
    out->max_clock_mhz = d->max_clock_mhz;
    out->mem_base_addr_align_bits = d->address_align_bits;
    out->flags |= (d->available ? TSR__WIRE_DEVICE_AVAILABLE : 0) |
                  (d->has_uuid ? TSR__WIRE_DEVICE_HAS_UUID : 0) |
                  (d->little_endian ? TSR__WIRE_DEVICE_LITTLE_ENDIAN : 0);
    memcpy(out->uuid, d->uuid, sizeof out->uuid);
    out->kind = (uint32_t)d->kind;
    tsr__wire_text_set(out->backend_name, sizeof out->backend_name, dev->backend->name);
    dev->backend->describe(&server->registry.found, dev->backend_index, out);
    return TSR_OK;
}

tsr_status tsr__admin_topology(tsr__request *r)
{
    tsr__registry *reg = &r->s->server->registry;
    const tsr__registry_device *self = wire_device(reg, r->in);
    if (!self)
        return TSR_ERR_NO_DEVICE;
    if (!self->backend)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "the device matrix has %s devices only",
                         reg->backend ? reg->backend->name : "accelerator");
    size_t row = (size_t)self->info.device.index;
    tsr__wire_topology *out = r->out;
    memset(out, 0, sizeof *out);
    out->device = self->info.device;
    out->numa_nodes = (uint32_t)tsr__topology_numa_nodes(reg->topology);
    for (size_t k = 0; k < reg->accel_count && k < TSR__WIRE_TOPOLOGY_DEVICES; k++) {
        const tsr__registry_device *other = &reg->devices[1 + k];
        out->links[k] = k == row ? TSR__LINK_SELF
                                 : (uint8_t)tsr__topology_link(reg->topology, self->info.pci_bus_id,
                                                               other->info.pci_bus_id);
        out->count++;
    }
    return TSR_OK;
}

/* Counters anyone may read: they name no session or user. */
tsr_status tsr__admin_daemon_stats(tsr__request *r)
{
    const tsr__server *server = r->s->server;
    const struct tsr__server_counters *c = &server->counters;
    *(tsr__wire_daemon_stats *)r->out =
        (tsr__wire_daemon_stats){.started_unix_ns = c->started_unix_ns,
                                 .uptime_ns = tsr__now_ns() - c->started_ns,
                                 .sessions_opened = c->sessions_opened,
                                 .sessions_refused = c->sessions_refused,
                                 .monitors_opened = c->monitors_opened,
                                 .monitors_refused = c->monitors_refused,
                                 .oom_refusals = c->oom_refusals,
                                 .limit_refusals = c->limit_refusals,
                                 .reloads = c->reloads,
                                 .reload_failures = c->reload_failures,
                                 .sessions = server->session_count,
                                 .monitors = server->monitor_count};
    return TSR_OK;
}

/* ---- SHARE_LIST ------------------------------------------------------------ */

tsr_status tsr__admin_share_list(tsr__request *r)
{
    uint64_t after = ((const tsr__wire_handle *)r->in)->handle;
    tsr__wire_share_info *out = r->out;
    memset(out, 0, sizeof *out);
    const tsr__server *server = r->s->server;
    const tsr__session *owner = NULL;
    const tsr__export *best = NULL;
    bool more = false;
    for (const tsr__session *s = server->first; s; s = s->next)
        for (uint32_t k = 0; k < s->export_count; k++) {
            const tsr__export *e = &s->exports[k];
            if (e->id <= after)
                continue;
            if (best && e->id > best->id) {
                more = true;
                continue;
            }
            more |= best != NULL;
            best = e;
            owner = s;
        }
    if (!best)
        return TSR_OK; /* id 0: the end */
    tsr__block_ref b;
    tsr__device_pool *pool = tsr__session_find_block((tsr__session *)owner, best->handle, &b);
    out->id = best->id;
    out->session_id = owner->id;
    out->flags = best->flags | (best->revoked ? TSR__WIRE_SHARE_REVOKED : 0) |
                 (best->freed ? TSR__WIRE_SHARE_RELEASED : 0) | (more ? TSR__WIRE_SHARE_MORE : 0);
    out->uid = TSR__WIRE_ID_HIDDEN;
    if (tsr__admin_may_see(r->s->uid, r->s->admin, owner->uid)) {
        out->flags |= TSR__WIRE_SHARE_VISIBLE;
        out->uid = owner->uid;
    }
    out->imports = best->imports;
    if (best->host_fd >= 0) {
        out->device = (tsr__wire_device){.type = TSR_DEVICE_CPU, .index = -1};
        out->bytes = best->host_bytes;
    } else if (pool) {
        out->device = pool->device->info.device;
        out->bytes = b.size;
    }
    for (const tsr__session *s = server->first; s; s = s->next) {
        bool holds = false;
        for (uint32_t k = 0; k < s->import_count && !holds; k++)
            holds = s->imports[k].export_id == best->id;
        if (holds && out->holder_count < TSR__WIRE_SHARE_HOLDERS)
            out->holders[out->holder_count++] = s->id;
    }
    return TSR_OK;
}
