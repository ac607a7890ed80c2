/* See registry.h. */
#include "daemon/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/log.h"
#include "numa/topology.h"

#define PROBE_TIMEOUT_MS 20000

static void set_text(char *field, size_t size, const char *text)
{
    tsr__wire_text_set(field, size, text);
}

static void fill_host(tsr__registry_device *d, tsr_device_type type, const tsr__topology *topo)
{
    memset(d, 0, sizeof *d);
    d->info.device = (tsr__wire_device){.type = type, .index = -1};
    d->info.host_unified_memory = 1;
    d->info.numa_node = -1;
    if (type == TSR_DEVICE_META) {
        set_text(d->info.name, sizeof d->info.name, "meta");
        return;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    set_text(d->info.name, sizeof d->info.name, "host processor");
    d->info.compute_units = cpus > 0 ? (uint32_t)cpus : 0;
    d->info.memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    d->info.fp16 = d->info.fp64 = 1;
    tsr__device_location where;
    if (topo && tsr__topology_locate(topo, "", &where) == TSR_OK) {
        d->info.numa_node = tsr__topology_numa_nodes(topo) == 1 ? where.numa_node : -1;
        set_text(d->info.cpuset, sizeof d->info.cpuset, where.cpuset);
    }
}

static void fill_accelerator(tsr__registry_device *d, const tsr__backend *backend, int32_t index,
                             const tsr__backend_device *desc, const tsr__topology *topo,
                             const tsr__registry_options *options)
{
    uint64_t limit = options->memory_limit;
    memset(d, 0, sizeof *d);
    tsr__wire_device_info *i = &d->info;
    i->device = (tsr__wire_device){.type = backend->device_type, .index = index};
    i->memory_bytes = desc->memory_bytes;
    i->max_work_group_size = desc->max_work_group_size;
    i->compute_units = desc->compute_units;
    i->fp16 = desc->fp16;
    i->fp64 = desc->fp64;
    i->numa_node = -1;
    set_text(i->name, sizeof i->name, desc->name);
    set_text(i->vendor, sizeof i->vendor, desc->vendor);
    set_text(i->driver_version, sizeof i->driver_version, desc->driver_version);
    set_text(i->api_version, sizeof i->api_version, desc->api_version);
    set_text(i->pci_bus_id, sizeof i->pci_bus_id, desc->pci_bus_id);
    tsr__device_location where;
    if (topo && tsr__topology_locate(topo, desc->pci_bus_id, &where) == TSR_OK) {
        i->numa_node = where.numa_node;
        set_text(i->cpuset, sizeof i->cpuset, where.cpuset);
        set_text(i->render_node, sizeof i->render_node, where.render_node);
    }
    d->backend = backend;
    d->backend_index = (uint32_t)index;
    d->desc = *desc;
    /* The kernel executor copies in and out for a device the host does
     * not share memory with (daemon/backend.h); devices.memory = copy
     * treats every device so, and clients hear it from DEVICE_GET. */
    if (options->copy_memory)
        d->desc.host_unified_memory = false;
    d->desc.stage_copies = options->stage_copies;
    d->desc.host_code = options->host_code;
    d->desc.huge_pages = options->huge_pages;
    i->host_unified_memory = d->desc.host_unified_memory;
    d->capacity = i->memory_bytes;
    if (limit && limit < d->capacity)
        d->capacity = limit;
    if (limit)
        i->memory_bytes = d->capacity;
}

/* Runs every built-in backend's discovery and keeps the first that finds
 * devices (else the first backend, with none): one accelerator type per
 * daemon. */
static tsr_status discover(int timeout, const tsr__backend **backend, tsr__backend_found *found)
{
    *backend = NULL;
    for (size_t k = 0; tsr__backends[k]; k++) {
        const tsr__backend *b = tsr__backends[k];
        tsr__backend_found f = {0};
        tsr_status st = b->discover(timeout, &f);
        if (st != TSR_OK) {
            if (*backend)
                (*backend)->forget(found);
            return st;
        }
        if (f.note[0])
            tsr__log(TSR__LOG_WARNING, "%s discovery: %s", b->name, f.note);
        if (!*backend || (found->count == 0 && f.count > 0)) {
            if (*backend)
                (*backend)->forget(found);
            *backend = b;
            *found = f;
            continue;
        }
        if (f.count > 0)
            tsr__log(TSR__LOG_WARNING,
                     "%s: %zu devices not served: this daemon serves the %s devices only", b->name,
                     f.count, (*backend)->name);
        b->forget(&f);
    }
    if (!*backend)
        return tsr__fail(TSR_ERR_DEVICE, "no device backend is built in");
    return TSR_OK;
}

tsr_status tsr__registry_build(const tsr__registry_options *options, tsr__registry *out)
{
    tsr__topology *topo = NULL;
    if (tsr__topology_load(&topo) != TSR_OK) {
        tsr__log(TSR__LOG_WARNING, "topology unavailable: %s", tsr_last_error());
        topo = NULL;
    } else if (tsr__topology_note(topo)[0]) {
        tsr__log(TSR__LOG_INFO, "topology: %s", tsr__topology_note(topo));
    }
    const tsr__backend *backend;
    tsr__backend_found found;
    int timeout = options->probe_timeout_ms > 0 ? options->probe_timeout_ms : PROBE_TIMEOUT_MS;
    tsr_status st = discover(timeout, &backend, &found);
    if (st != TSR_OK) {
        tsr__topology_free(topo);
        return st;
    }
    size_t count = found.count + 2;
    tsr__registry_device *devices = calloc(count, sizeof *devices);
    if (!devices) {
        backend->forget(&found);
        tsr__topology_free(topo);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory building the device registry");
    }
    fill_host(&devices[0], TSR_DEVICE_CPU, topo);
    for (size_t k = 0; k < found.count; k++)
        fill_accelerator(&devices[k + 1], backend, (int32_t)k, &found.devices[k], topo, options);
    fill_host(&devices[count - 1], TSR_DEVICE_META, topo);
    *out = (tsr__registry){.devices = devices,
                           .count = count,
                           .accel_count = found.count,
                           .accel_type = backend->device_type,
                           .backend = backend,
                           .found = found,
                           .topology = topo};
    for (size_t k = 1; k + 1 < count; k++) {
        const tsr__wire_device_info *i = &devices[k].info;
        tsr__log(TSR__LOG_INFO, "%s:%d: %s (%s), %llu MiB, %u compute units, NUMA node %d%s%s, %s",
                 backend->name, i->device.index, i->name, i->vendor,
                 (unsigned long long)(devices[k].capacity >> 20), i->compute_units, i->numa_node,
                 i->pci_bus_id[0] ? ", PCI " : "", i->pci_bus_id,
                 i->host_unified_memory ? "zero copy" : "kernels copy operands in and out");
    }
    if (count == 2)
        tsr__log(TSR__LOG_NOTICE, "no %s devices: serving cpu and meta only", backend->name);
    return TSR_OK;
}

void tsr__registry_free(tsr__registry *registry)
{
    free(registry->devices);
    if (registry->backend)
        registry->backend->forget(&registry->found);
    tsr__topology_free(registry->topology);
    *registry = (tsr__registry){0};
}

int32_t tsr__registry_count(const tsr__registry *registry, tsr_device_type type)
{
    if (type == TSR_DEVICE_CPU || type == TSR_DEVICE_META)
        return 1;
    return registry->backend && type == registry->accel_type ? (int32_t)registry->accel_count : 0;
}

tsr__registry_device *tsr__registry_accelerator(tsr__registry *registry, size_t ordinal)
{
    return ordinal < registry->accel_count ? &registry->devices[1 + ordinal] : NULL;
}

/* "cpu, opencl:0, opencl:1, meta" */
static const char *existing(const tsr__registry *registry, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < registry->count && used < n; k++) {
        char name[TSR_DEVICE_STR_MAX];
        tsr_device d = {registry->devices[k].info.device.type,
                        registry->devices[k].info.device.index};
        tsr_device_str(d, name, sizeof name);
        int m = snprintf(buf + used, n - used, "%s%s", k ? ", " : "", name);
        if (m < 0)
            break;
        used += (size_t)m;
    }
    return buf;
}

tsr__registry_device *tsr__registry_find(tsr__registry *registry, tsr_device device)
{
    char have[512], name[TSR_DEVICE_STR_MAX];
    if ((unsigned)device.type >= TSR_DEVICE_TYPE_COUNT) {
        tsr__fail(TSR_ERR_NO_DEVICE, "invalid device type %d", (int)device.type);
        return NULL;
    }
    if (device.type == TSR_DEVICE_CPU || device.type == TSR_DEVICE_META) {
        if (device.index == -1 || device.index == 0)
            return &registry->devices[device.type == TSR_DEVICE_CPU ? 0 : registry->count - 1];
    } else if (registry->backend && device.type == registry->accel_type && device.index >= 0 &&
               (size_t)device.index < registry->accel_count) {
        return &registry->devices[1 + (size_t)device.index];
    }
    snprintf(name, sizeof name, "%s:%d", tsr_device_type_name(device.type), (int)device.index);
    int32_t count = tsr__registry_count(registry, device.type);
    if (count == 0)
        tsr__fail(TSR_ERR_NO_DEVICE, "no %s devices here (this machine has: %s)",
                  tsr_device_type_name(device.type), existing(registry, have, sizeof have));
    else
        tsr__fail(TSR_ERR_NO_DEVICE,
                  "invalid device ordinal: %s does not exist (this machine has: %s)", name,
                  existing(registry, have, sizeof have));
    return NULL;
}

uint32_t tsr__registry_visible_list(const tsr__registry *reg, bool all, uint32_t count,
                                    const int32_t *devices, int32_t *out, const char *warn,
                                    const char *pattern)
{
    size_t n = reg->accel_count;
    uint32_t seen = 0;
    for (size_t k = 0; all && k < n; k++)
        out[seen++] = (int32_t)k;
    /* The list names each device once (config.c), so it fits. */
    for (uint32_t k = 0; !all && k < count; k++) {
        if ((size_t)devices[k] < n && seen < n)
            out[seen++] = devices[k];
        else if (warn)
            tsr__log(TSR__LOG_WARNING, "%s%s: %s:%d does not exist (%zu device%s here); left out",
                     warn, pattern, reg->backend->name, (int)devices[k], n, n == 1 ? "" : "s");
    }
    return seen;
}
