/* The OpenCL backend: daemon/backend.h's table over discovery
 * (opencl/discover.h, in a forked child), the runtime (opencl/runtime.h)
 * and the OpenCL C generator (opencl/source.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "daemon/backend.h"
#include "kernels/launch.h"
#include "opencl/discover.h"
#include "opencl/runtime.h"
#include "opencl/source.h"

/* CL_DEVICE_TYPE_* bits (cl.h is not included outside the driver's
 * callers). */
enum { TYPE_CPU = 1u << 1, TYPE_GPU = 1u << 2, TYPE_ACCELERATOR = 1u << 3 };

static tsr__device_kind kind_of(uint64_t type_bits)
{
    return type_bits & TYPE_GPU           ? TSR__DEVICE_KIND_GPU
           : type_bits & TYPE_CPU         ? TSR__DEVICE_KIND_CPU
           : type_bits & TYPE_ACCELERATOR ? TSR__DEVICE_KIND_ACCELERATOR
                                          : TSR__DEVICE_KIND_OTHER;
}

static void describe_neutral(const tsr__cl_device_info *cl, tsr__backend_device *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", cl->name);
    snprintf(d->vendor, sizeof d->vendor, "%s", cl->vendor);
    snprintf(d->driver_version, sizeof d->driver_version, "%s", cl->driver_version);
    snprintf(d->api_version, sizeof d->api_version, "%s", cl->opencl_version);
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", cl->pci_bus_id);
    memcpy(d->uuid, cl->uuid, sizeof d->uuid);
    d->has_uuid = cl->has_uuid;
    d->memory_bytes = cl->global_memory_bytes;
    d->max_alloc_bytes = cl->max_alloc_bytes;
    d->local_memory_bytes = cl->local_memory_bytes;
    d->max_work_group_size = cl->max_work_group_size;
    d->compute_units = cl->compute_units;
    d->max_clock_mhz = cl->max_clock_mhz;
    d->address_align_bits = cl->mem_base_addr_align_bits;
    d->kind = kind_of(cl->cl_device_type);
    d->fp16 = cl->fp16;
    d->fp64 = cl->fp64;
    d->il_program = cl->il_program;
    d->host_unified_memory = cl->host_unified_memory;
    d->little_endian = cl->little_endian;
    d->available = cl->available;
}

static void forget(tsr__backend_found *found)
{
    tsr__cl_discovery *cl = found->state;
    if (cl) {
        tsr__cl_discovery_free(cl);
        free(cl);
    }
    free(found->devices);
    *found = (tsr__backend_found){0};
}

static tsr_status discover(int timeout_ms, tsr__backend_found *out)
{
    tsr__cl_discovery *cl = calloc(1, sizeof *cl);
    if (!cl)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory discovering OpenCL devices");
    tsr_status st = tsr__cl_discover(timeout_ms, cl);
    if (st != TSR_OK) {
        free(cl);
        return st;
    }
    tsr__backend_found found = {.count = cl->count, .trusted = cl->note[0] == '\0', .state = cl};
    snprintf(found.note, sizeof found.note, "%s", cl->note);
    found.devices = calloc(cl->count ? cl->count : 1, sizeof *found.devices);
    if (!found.devices) {
        forget(&found);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory discovering OpenCL devices");
    }
    for (size_t k = 0; k < cl->count; k++)
        describe_neutral(&cl->devices[k], &found.devices[k]);
    *out = found;
    return TSR_OK;
}

static void describe(const tsr__backend_found *found, uint32_t device, tsr__wire_device_status *out)
{
    const tsr__cl_discovery *cl = found->state;
    if (!cl || device >= cl->count)
        return;
    const tsr__cl_device_info *info = &cl->devices[device];
    tsr__wire_text_set(out->platform_name, sizeof out->platform_name, info->platform_name);
    out->backend.type_bits = info->cl_device_type;
    out->backend.platform_index = info->platform_index;
    out->backend.device_index = info->device_index;
    tsr__wire_text_set(out->backend.language_version, sizeof out->backend.language_version,
                       info->opencl_c_version);
}

/* A device as the worker executable finds it: "platform:device". */
static bool worker_device(const tsr__backend_found *found, uint32_t device, char *buf, size_t n)
{
    const tsr__cl_discovery *cl = found->state;
    if (!cl || device >= cl->count)
        return false;
    int len = snprintf(buf, n, "%u:%u", (unsigned)cl->devices[device].platform_index,
                       (unsigned)cl->devices[device].device_index);
    return len > 0 && (size_t)len < n;
}

/* The runtime's source callback over the generator. */
static size_t kernel_source(const tsr__kernel_key *key, bool fp64, char *buf, size_t cap)
{
    size_t length = 0;
    tsr_status st = tsr__opencl_source(key, fp64 ? TSR__KCAP_FP64 : 0, buf, cap, &length);
    if (st == TSR_OK)
        return length;
    return st == TSR_ERR_BUFFER_TOO_SMALL ? cap : 0;
}

static tsr_status open_runtime(const tsr__backend_config *config, tsr__backend_runtime **out)
{
    const tsr__cl_discovery *cl = config->found->state;
    size_t count = cl ? cl->count : 0;
    tsr__cl_device_info *infos = calloc(count ? count : 1, sizeof *infos);
    if (!infos)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory opening the OpenCL runtime");
    for (size_t k = 0; k < count; k++) {
        infos[k] = cl->devices[k];
        infos[k].host_unified_memory = config->devices[k].host_unified_memory;
        infos[k].stage_copies = config->devices[k].stage_copies;
        infos[k].host_code = config->devices[k].host_code;
        infos[k].huge_pages = config->devices[k].huge_pages;
    }
    tsr__clrt_config c = {.devices = infos,
                          .count = count,
                          .cache_dir = config->cache_dir,
                          .notify_fd = config->notify_fd,
                          .source = kernel_source};
    tsr_status st = tsr__clrt_create(&c, out);
    free(infos);
    return st;
}

const tsr__backend tsr__opencl_backend = {
    .name = "opencl",
    .device_type = TSR_DEVICE_OPENCL,
    .discover = discover,
    .forget = forget,
    .describe = describe,
    .open = open_runtime,
    .close = tsr__clrt_destroy,
    .cache_refusal = tsr__clrt_cache_refusal,
    .program_get = tsr__clrt_program_get,
    .program_find = tsr__clrt_program_find,
    .program_state = tsr__clrt_program_state,
    .program_settled = tsr__clrt_program_settled,
    .program_error = tsr__clrt_program_error,
    .program_report = tsr__clrt_program_report,
    .program_key = tsr__clrt_program_key,
    .program_counts = tsr__clrt_program_counts,
    .buffer = tsr__clrt_buffer,
    .buffer_release = tsr__clrt_buffer_release,
    .compute_units = tsr__clrt_compute_units,
    .copies = tsr__clrt_copies,
    .on_host = tsr__clrt_on_host,
    .enqueue = tsr__clrt_enqueue,
    .gemm = tsr__clrt_gemm,
    .host_code = tsr__clrt_host_code,
    .host_enqueue = tsr__clrt_host_enqueue,
    .host_run = tsr__clrt_host_run,
    .worker = "tessera-kernel-worker",
    .spirv_requires = "cl_khr_il_program extension",
    .worker_device = worker_device,
};
