/* The device calls of the public API (tessera/client.h) and the
 * resolution of devices for the rest of the connection.
 *
 * Owns the calling thread's current-device cache and the mapping between
 * this client's device numbering (after TESSERA_VISIBLE_DEVICES) and the
 * daemon's. The accelerator type is the one the registry reports
 * (c->accelerator), never assumed; cpu and meta exist everywhere. Reads
 * the registry client.c filled, which does not change after open. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "libclient/connection.h"

/* The calling thread's current accelerator, as last read or set. */
static _Thread_local struct {
    const tsr_client *client;
    uint32_t session_id;
    int32_t index; /* client numbering */
} current_cache;
/* "cpu, opencl:0, meta" as this client sees them. */
static const char *client_devices(const tsr_client *c, char *buf, size_t n)
{
    int used = snprintf(buf, n, "cpu");
    for (int32_t k = 0; k < c->visible_count && used > 0 && (size_t)used < n; k++)
        used += snprintf(buf + used, n - (size_t)used, ", %s:%d",
                         tsr_device_type_name(c->accelerator), (int)k);
    if (used > 0 && (size_t)used < n)
        snprintf(buf + used, n - (size_t)used, ", meta");
    return buf;
}

/* The argument checks the device calls share: a valid type and, where
 * `args_ok` says so, no NULL pointers. */
static tsr_status check_call(tsr_device_type type, bool args_ok, const char *fn)
{
    if ((unsigned)type >= TSR_DEVICE_TYPE_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid device type %d", (int)type);
    if (!args_ok)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
    return TSR_OK;
}

static tsr_status no_such_device(const tsr_client *c, tsr_device d)
{
    char have[512], name[TSR_DEVICE_STR_MAX];
    tsr_device_str(d, name, sizeof name);
    if (d.type != c->accelerator || c->visible_count == 0)
        return tsr__fail(TSR_ERR_NO_DEVICE, "no %s devices here (this machine has: %s)",
                         tsr_device_type_name(d.type), client_devices(c, have, sizeof have));
    return tsr__fail(TSR_ERR_NO_DEVICE,
                     "invalid device ordinal: %s does not exist (this client sees: %s)", name,
                     client_devices(c, have, sizeof have));
}

tsr_status tsr_device_count(tsr_client *c, tsr_device_type type, int32_t *out)
{
    tsr_status st = check_call(type, c && out, "tsr_device_count");
    if (st != TSR_OK)
        return st;
    *out = type == TSR_DEVICE_CPU || type == TSR_DEVICE_META ? 1
           : type == c->accelerator                          ? c->visible_count
                                                             : 0;
    return TSR_OK;
}

tsr_status tsr_current_device(tsr_client *c, tsr_device_type type, tsr_device *out)
{
    tsr_status st = check_call(type, c && out, "tsr_current_device");
    if (st != TSR_OK)
        return st;
    if (type == TSR_DEVICE_CPU || type == TSR_DEVICE_META) {
        *out = (tsr_device){type, -1};
        return TSR_OK;
    }
    if (type != c->accelerator || c->visible_count == 0)
        return no_such_device(c, (tsr_device){type, -1});
    if (current_cache.client != c || current_cache.session_id != c->session_id) {
        tsr__wire_get_device req = {.thread_id = (uint64_t)gettid(),
                                    .type = (int32_t)c->accelerator};
        tsr__wire_device rep;
        st = tsr__client_call(c, TSR__OP_GET_DEVICE, &req, &rep);
        if (st != TSR_OK)
            return st;
        int32_t index = 0;
        for (int32_t k = 0; k < c->visible_count; k++)
            if (c->visible[k] == rep.index)
                index = k;
        current_cache.client = c;
        current_cache.session_id = c->session_id;
        current_cache.index = index;
    }
    *out = (tsr_device){c->accelerator, current_cache.index};
    return TSR_OK;
}

tsr_status tsr_set_device(tsr_client *c, tsr_device d)
{
    tsr_status st = check_call(d.type, c != NULL, "tsr_set_device");
    if (st != TSR_OK)
        return st;
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META) {
        if (d.index > 0)
            return no_such_device(c, d);
        return TSR_OK;
    }
    if (d.type != c->accelerator || d.index < 0 || d.index >= c->visible_count)
        return no_such_device(c, d);
    tsr__wire_set_device req = {
        .thread_id = (uint64_t)gettid(),
        .device = {.type = (int32_t)c->accelerator, .index = c->visible[d.index]}};
    st = tsr__client_call(c, TSR__OP_SET_DEVICE, &req, NULL);
    if (st != TSR_OK)
        return st;
    current_cache.client = c;
    current_cache.session_id = c->session_id;
    current_cache.index = d.index;
    return TSR_OK;
}

tsr_status tsr__client_resolve_device(tsr_client *c, tsr_device d, tsr_device *out)
{
    tsr_status st = check_call(d.type, out != NULL, "tsr__client_resolve_device");
    if (st != TSR_OK)
        return st;
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META) {
        *out = (tsr_device){d.type, -1};
        return TSR_OK;
    }
    /* Accelerators are tesserad's, whichever backend serves them; which
     * types it serves here only its registry says, so without a session
     * any of them needs one rather than being absent. */
    if (!c)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "%s memory is served by tesserad: pass the tsr_client from "
                         "tsr_client_open",
                         tsr_device_type_name(d.type));
    if (d.type != c->accelerator)
        return no_such_device(c, d);
    if (d.index < 0) {
        st = tsr_current_device(c, c->accelerator, &d);
        if (st != TSR_OK)
            return st;
    }
    if (d.index >= c->visible_count)
        return no_such_device(c, d);
    *out = d;
    return TSR_OK;
}

/* The daemon's registry entry for a device as this client numbers it. */
static const tsr__wire_device_info *entry_of(const tsr_client *c, tsr_device d)
{
    if (d.type == TSR_DEVICE_CPU)
        return &c->devices[0];
    if (d.type == TSR_DEVICE_META)
        return &c->devices[c->device_count - 1];
    return &c->devices[1 + c->visible[d.index]];
}

tsr_status tsr_device_get_properties(tsr_client *c, tsr_device d, tsr_device_properties *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_device_get_properties: NULL argument");
    tsr_status st = tsr__client_resolve_device(c, d, &d);
    if (st != TSR_OK)
        return st;
    const tsr__wire_device_info *i = entry_of(c, d);
    /* A daemon that does not send its ordinal numbers devices as the
     * session does. */
    int32_t daemon_index = -1;
    if (i->device.type == (int32_t)c->accelerator)
        daemon_index = (i->flags & TSR__WIRE_INFO_DAEMON_INDEX) ? i->daemon_index : i->device.index;
    tsr_device_properties p = {.device = d,
                               .daemon_index = daemon_index,
                               .memory_bytes = i->memory_bytes,
                               .compute_units = i->compute_units,
                               .max_work_group_size = i->max_work_group_size,
                               .fp16 = i->fp16,
                               .fp64 = i->fp64,
                               .host_unified_memory = i->host_unified_memory,
                               .numa_node = i->numa_node,
                               .memory_limited = (i->flags & TSR__WIRE_INFO_LIMITED) != 0,
                               .device_memory_bytes = i->device_memory_bytes};
    tsr__wire_text_set(p.name, sizeof p.name, i->name);
    tsr__wire_text_set(p.vendor, sizeof p.vendor, i->vendor);
    tsr__wire_text_set(p.driver_version, sizeof p.driver_version, i->driver_version);
    tsr__wire_text_set(p.api_version, sizeof p.api_version, i->api_version);
    tsr__wire_text_set(p.cpuset, sizeof p.cpuset, i->cpuset);
    tsr__wire_text_set(p.pci_bus_id, sizeof p.pci_bus_id, i->pci_bus_id);
    tsr__wire_text_set(p.render_node, sizeof p.render_node, i->render_node);
    *out = p;
    return TSR_OK;
}

tsr_status tsr_accelerator_type(tsr_client *c, tsr_device_type *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_accelerator_type: NULL argument");
    if (c->visible_count == 0)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Cannot access accelerator device when none is available.");
    *out = c->accelerator;
    return TSR_OK;
}

tsr_status tsr_device_from_index(tsr_client *c, int64_t index, tsr_device *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_device_from_index: NULL argument");
    return tsr_device_for_accelerator(c->visible_count ? c->accelerator : TSR_DEVICE_TYPE_COUNT,
                                      index, out);
}

bool tsr__client_host_visible(tsr_client *c, tsr_device d)
{
    if (d.type == TSR_DEVICE_CPU)
        return true;
    if (!c || d.type != c->accelerator || d.index < 0 || d.index >= c->visible_count)
        return false;
    /* Every segment is a host mapping; devices that cannot address it
     * directly will get explicit copies through the daemon. */
    return true;
}

tsr_status tsr__client_daemon_device(tsr_client *c, tsr_device d, tsr__wire_device *out)
{
    if (!c)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "NULL client");
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tesserad manages no memory of %s: its tensors live in this process",
                         tsr_device_type_name(d.type));
    tsr_status st = tsr__client_resolve_device(c, d, &d);
    if (st != TSR_OK)
        return st;
    *out = (tsr__wire_device){.type = (int32_t)c->accelerator, .index = c->visible[d.index]};
    return TSR_OK;
}
