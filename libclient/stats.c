/* Statistics: a device's memory statistics as the program sees them, and
 * the session list (tessera ps).
 *
 * Owns no state. Memory statistics are the daemon's, less what this
 * library's block cache holds (free to the program, allocated to the
 * daemon). Replies are checked before anything is copied out. Calls down
 * to memory.c, devices.c and transport.c only. */
#include <string.h>

#include "core/error.h"
#include "core/protocol.h"
#include "libclient/connection.h"

tsr_status tsr_memory_get_stats(tsr_client *c, tsr_device d, tsr_memory_stats *out)
{
    tsr__wire_device wd = {0};
    tsr_status st = tsr__client_daemon_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_memory_get_stats: out is NULL");
    tsr__wire_memory_stats m;
    st = tsr__client_call(c, TSR__OP_MEMORY_STATS, &wd, &m);
    if (st != TSR_OK)
        return st;
    if (wd.index < (int32_t)TSR__RING_QUEUES) {
        /* Blocks in this library's cache are free to the program, though
         * the daemon still counts them as handed out. */
        tsr__cache_counts n = tsr__memory_cache_counts(c, wd.index);
        m.allocated -= n.rounded < m.allocated ? n.rounded : m.allocated;
        m.active -= n.rounded < m.active ? n.rounded : m.active;
        m.requested -= n.bytes < m.requested ? n.bytes : m.requested;
        m.allocations += n.hits;
        m.frees += n.frees;
        m.cache_hits += n.hits;
    }
    *out = (tsr_memory_stats){.allocated = m.allocated,
                              .reserved = m.reserved,
                              .active = m.active,
                              .requested = m.requested,
                              .peak_allocated = m.peak_allocated,
                              .peak_reserved = m.peak_reserved,
                              .allocations = m.allocations,
                              .frees = m.frees,
                              .cache_hits = m.cache_hits,
                              .ooms = m.ooms,
                              .segments = m.segments,
                              .device_capacity = m.device_capacity,
                              .device_free = m.device_free};
    return TSR_OK;
}

tsr_status tsr_session_list(tsr_client *c, uint32_t after, tsr_session_info *out, bool *found)
{
    if (!c || !out || !found)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_session_list: NULL argument");
    tsr__wire_segment req = {.segment_id = after};
    tsr__wire_session_info w;
    tsr_status st = tsr__client_call(c, TSR__OP_SESSION_LIST, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.session_id == 0) {
        *found = false;
        return TSR_OK;
    }
    if (w.session_id <= after || w.usage_count > TSR__WIRE_SESSION_DEVICES ||
        !tsr__wire_text_ok(w.command, sizeof w.command) ||
        !tsr__wire_text_ok(w.name, sizeof w.name))
        return tsr__fail(TSR_ERR_PROTOCOL, "garbled session entry from tesserad");
    tsr_session_info i = {
        .session_id = w.session_id,
        .pid = w.pid,
        .uid = w.uid,
        .gid = w.gid,
        .threads = w.threads,
        .requests = w.requests,
        .started_unix_ns = w.started_unix_ns,
        .current_device = {(tsr_device_type)w.current_device.type, w.current_device.index},
        .usage_count = w.usage_count};
    memcpy(i.command, w.command, sizeof i.command);
    memcpy(i.name, w.name, sizeof i.name);
    for (uint32_t k = 0; k < w.usage_count; k++)
        i.usage[k] = (tsr_session_usage){
            .device = {(tsr_device_type)w.usage[k].device.type, w.usage[k].device.index},
            .allocated = w.usage[k].allocated,
            .reserved = w.usage[k].reserved};
    *out = i;
    *found = true;
    return TSR_OK;
}
