/* The administration calls of the public API (client.h): the client side
 * of PROCESS_LIST, SESSION_STATS, DEVICE_STATUS and TOPOLOGY. Replies are
 * checked before anything is copied out, as the daemon checks requests. */
#include <string.h>

#include "core/error.h"
#include "core/protocol.h"
#include "libclient/client.h"

_Static_assert((int)TSR_LINK_SYS + 1 == (int)TSR__LINK_COUNT &&
                   (int)TSR_LINK_PIX == (int)TSR__LINK_PIX,
               "tsr_link is tsr__wire_link");
_Static_assert((int)TSR_DEVICE_KIND_ACCELERATOR + 1 == (int)TSR__WIRE_KIND_COUNT &&
                   (int)TSR_DEVICE_KIND_OTHER == (int)TSR__WIRE_KIND_OTHER &&
                   (int)TSR_DEVICE_KIND_CPU == (int)TSR__WIRE_KIND_CPU &&
                   (int)TSR_DEVICE_KIND_GPU == (int)TSR__WIRE_KIND_GPU,
               "tsr_device_kind is tsr__wire_device_kind");

static tsr__wire_device to_wire(tsr_device d)
{
    return (tsr__wire_device){.type = (int32_t)d.type, .index = d.index};
}

static tsr_device from_wire(tsr__wire_device d)
{
    return (tsr_device){.type = (tsr_device_type)d.type, .index = d.index};
}

static tsr_status garbled(const char *what)
{
    return tsr__fail(TSR_ERR_PROTOCOL, "garbled %s from tesserad", what);
}

tsr_status tsr_admin_session_list(tsr_client *c, uint32_t after, tsr_process_info *out, bool *found)
{
    if (!c || !out || !found)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_session_list: NULL argument");
    tsr__wire_segment req = {.segment_id = after};
    tsr__wire_process w;
    tsr_status st = tsr__client_call(c, TSR__OP_PROCESS_LIST, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.session_id == 0) {
        *found = false;
        return TSR_OK;
    }
    if (w.session_id <= after || w.usage_count > TSR__WIRE_SESSION_DEVICES ||
        !tsr__wire_text_ok(w.command, sizeof w.command) ||
        !tsr__wire_text_ok(w.name, sizeof w.name) || !tsr__wire_text_ok(w.unit, sizeof w.unit) ||
        !tsr__wire_text_ok(w.cgroup, sizeof w.cgroup))
        return garbled("session entry");
    tsr_process_info i = {.session_id = w.session_id,
                          .visible = (w.flags & TSR__WIRE_PROCESS_VISIBLE) != 0,
                          .self = (w.flags & TSR__WIRE_PROCESS_SELF) != 0,
                          .pid_known = (w.flags & TSR__WIRE_PROCESS_PID_KNOWN) != 0,
                          .pid = w.pid,
                          .uid = w.uid,
                          .gid = w.gid,
                          .pid_namespace = w.pid_namespace,
                          .current_device = from_wire(w.current_device),
                          .threads = w.threads,
                          .requests = w.requests,
                          .started_unix_ns = w.started_unix_ns,
                          .usage_count = w.usage_count,
                          .kernels = w.kernels,
                          .ending = (w.flags & TSR__WIRE_PROCESS_ENDING) != 0,
                          .launches = w.launches,
                          .busy_ns = w.busy_ns,
                          .programs = w.programs,
                          .max_programs = w.max_programs,
                          .max_source_bytes = w.max_source_bytes,
                          .build_memory = w.build_memory,
                          .build_time_limit_ms = w.build_time_limit_ms,
                          .run_time_limit_ms = w.run_time_limit_ms};
    _Static_assert(sizeof i.command == sizeof w.command && sizeof i.name == sizeof w.name &&
                       sizeof i.unit == sizeof w.unit && sizeof i.cgroup == sizeof w.cgroup,
                   "text fields match the wire");
    memcpy(i.command, w.command, sizeof i.command);
    memcpy(i.name, w.name, sizeof i.name);
    memcpy(i.unit, w.unit, sizeof i.unit);
    memcpy(i.cgroup, w.cgroup, sizeof i.cgroup);
    for (uint32_t k = 0; k < w.usage_count; k++)
        i.usage[k] = (tsr_process_usage){.device = from_wire(w.usage[k].device),
                                         .allocated = w.usage[k].allocated,
                                         .reserved = w.usage[k].reserved,
                                         .limit = w.usage[k].limit};
    *out = i;
    *found = true;
    return TSR_OK;
}

tsr_status tsr_admin_session_stats(tsr_client *c, uint32_t session_id, tsr_device device,
                                   tsr_allocator_stats *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_session_stats: NULL argument");
    tsr__wire_stats_request req = {.session_id = session_id, .device = to_wire(device)};
    tsr__wire_session_stats w;
    tsr_status st = tsr__client_call(c, TSR__OP_SESSION_STATS, &req, &w);
    if (st != TSR_OK)
        return st;
    *out = (tsr_allocator_stats){
        .allocated = w.allocated,
        .peak_allocated = w.peak_allocated,
        .reserved = w.reserved,
        .peak_reserved = w.peak_reserved,
        .active = w.active,
        .peak_active = w.peak_active,
        .inactive_split = w.inactive_split,
        .inactive_split_blocks = w.inactive_split_blocks,
        .requested = w.requested,
        .live_blocks = w.live_blocks,
        .allocations = w.allocations,
        .frees = w.frees,
        .segments = w.segments,
        .segments_created = w.segments_created,
        .segments_released = w.segments_released,
        .cache_hits = w.cache_hits,
        .ooms = w.ooms,
        .limit = w.limit,
        .programs = w.programs,
        .worker_running = (w.worker_flags & TSR__WIRE_STATS_WORKER_RUNNING) != 0,
        .worker_pid_known = (w.worker_flags & TSR__WIRE_STATS_WORKER_PID_KNOWN) != 0};
    if (out->worker_pid_known)
        out->worker_pid = w.worker_pid;
    return TSR_OK;
}

tsr_status tsr_admin_device_status(tsr_client *c, tsr_device device, tsr_device_status *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_device_status: NULL argument");
    tsr__wire_device req = to_wire(device);
    tsr__wire_device_status w;
    tsr_status st = tsr__client_call(c, TSR__OP_DEVICE_STATUS, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.kind >= TSR__WIRE_KIND_COUNT ||
        !tsr__wire_text_ok(w.backend_name, sizeof w.backend_name) ||
        !tsr__wire_text_ok(w.platform_name, sizeof w.platform_name) ||
        !tsr__wire_text_ok(w.backend.language_version, sizeof w.backend.language_version))
        return garbled("device status");
    tsr_device_status d = {.device = from_wire(w.device),
                           .capacity = w.capacity,
                           .reserved = w.reserved,
                           .allocated = w.allocated,
                           .sessions = w.sessions,
                           .busy_sampled = (w.flags & TSR__WIRE_DEVICE_BUSY_SAMPLED) != 0,
                           .busy_ns = w.busy_ns,
                           .now_ns = w.now_ns,
                           .max_alloc_bytes = w.max_alloc_bytes,
                           .local_memory_bytes = w.local_memory_bytes,
                           .kind = (tsr_device_kind)w.kind,
                           .max_clock_mhz = w.max_clock_mhz,
                           .mem_base_addr_align_bits = w.mem_base_addr_align_bits,
                           .available = (w.flags & TSR__WIRE_DEVICE_AVAILABLE) != 0,
                           .little_endian = (w.flags & TSR__WIRE_DEVICE_LITTLE_ENDIAN) != 0,
                           .has_uuid = (w.flags & TSR__WIRE_DEVICE_HAS_UUID) != 0,
                           .backend = {.type_bits = w.backend.type_bits,
                                       .platform_index = w.backend.platform_index,
                                       .device_index = w.backend.device_index},
                           .launches = w.launches,
                           .programs_built = w.programs_built,
                           .programs_loaded = w.programs_loaded,
                           .kernel_workers = w.kernel_workers,
                           .user_programs = w.user_programs,
                           .programs_pending = w.programs_pending};
    memcpy(d.uuid, w.uuid, sizeof d.uuid);
    _Static_assert(sizeof d.backend_name == sizeof w.backend_name &&
                       sizeof d.platform_name == sizeof w.platform_name &&
                       sizeof d.backend.language_version == sizeof w.backend.language_version,
                   "text fields match the wire");
    memcpy(d.backend_name, w.backend_name, sizeof d.backend_name);
    memcpy(d.platform_name, w.platform_name, sizeof d.platform_name);
    memcpy(d.backend.language_version, w.backend.language_version,
           sizeof d.backend.language_version);
    *out = d;
    return TSR_OK;
}

tsr_status tsr_admin_topology_row(tsr_client *c, tsr_device device, tsr_topology_row *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_topology_row: NULL argument");
    tsr__wire_device req = to_wire(device);
    tsr__wire_topology w;
    tsr_status st = tsr__client_call(c, TSR__OP_TOPOLOGY, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.count > TSR__WIRE_TOPOLOGY_DEVICES)
        return garbled("topology row");
    tsr_topology_row row = {
        .device = from_wire(w.device), .count = w.count, .numa_nodes = w.numa_nodes};
    for (uint32_t k = 0; k < w.count; k++) {
        if (w.links[k] >= TSR__LINK_COUNT)
            return garbled("topology row");
        row.links[k] = (tsr_link)w.links[k];
    }
    *out = row;
    return TSR_OK;
}

tsr_status tsr_admin_daemon_stats(tsr_client *c, tsr_daemon_stats *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_admin_daemon_stats: NULL argument");
    tsr__wire_daemon_stats w;
    tsr_status st = tsr__client_call(c, TSR__OP_DAEMON_STATS, NULL, &w);
    if (st != TSR_OK)
        return st;
    *out = (tsr_daemon_stats){.started_unix_ns = w.started_unix_ns,
                              .uptime_ns = w.uptime_ns,
                              .sessions_opened = w.sessions_opened,
                              .sessions_refused = w.sessions_refused,
                              .monitors_opened = w.monitors_opened,
                              .monitors_refused = w.monitors_refused,
                              .oom_refusals = w.oom_refusals,
                              .limit_refusals = w.limit_refusals,
                              .reloads = w.reloads,
                              .reload_failures = w.reload_failures,
                              .sessions = w.sessions,
                              .monitors = w.monitors};
    return TSR_OK;
}
