/* The OpenCL probe: the only code in Tessera that calls OpenCL. It runs in
 * the forked child of tsr__cl_discover, asks every device of every platform
 * the questions in the tables below, and writes one wire message (wire.h)
 * to the pipe. A query a driver does not answer leaves its field at zero
 * or "": one missing answer must not cost the device. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "opencl/wire.h"

/* cl_nv_device_attribute_query's PCI queries, which Khronos' headers lack. */
#define TSR__CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define TSR__CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define TSR__CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

_Static_assert(sizeof(size_t) <= sizeof(cl_ulong), "size_t answers fit a cl_ulong");

/* An info query's answer in a fresh NUL-terminated buffer, or NULL. The
 * device's when `device` is given, else the platform's. */
static char *query_bytes(cl_platform_id platform, cl_device_id device, cl_uint param)
{
    size_t size = 0;
    cl_int err = device ? clGetDeviceInfo(device, param, 0, NULL, &size)
                        : clGetPlatformInfo(platform, param, 0, NULL, &size);
    char *bytes = err == CL_SUCCESS && size > 0 ? calloc(1, size + 1) : NULL;
    if (!bytes)
        return NULL;
    err = device ? clGetDeviceInfo(device, param, size, bytes, NULL)
                 : clGetPlatformInfo(platform, param, size, bytes, NULL);
    if (err != CL_SUCCESS) {
        free(bytes);
        return NULL;
    }
    return bytes;
}

/* Copies a query's string, cut to the record's field; "" when unanswered. */
static void query_text(cl_platform_id platform, cl_device_id device, cl_uint param,
                       char dst[TSR__CL_TEXT])
{
    char *text = query_bytes(platform, device, param);
    snprintf(dst, TSR__CL_TEXT, "%s", text ? text : "");
    free(text);
}

/* An unsigned answer of cl_size bytes (4 or 8) widened to 64 bits; 0 when
 * unanswered. */
static uint64_t query_unsigned(cl_device_id device, cl_uint param, size_t cl_size)
{
    union {
        cl_uint u32;
        cl_ulong u64;
    } value = {.u64 = 0};
    if (clGetDeviceInfo(device, param, cl_size, &value, NULL) != CL_SUCCESS)
        return 0;
    return cl_size == sizeof(cl_uint) ? value.u32 : value.u64;
}

static const struct {
    cl_device_info param;
    enum tsr__cl_wire_text field;
} text_queries[] = {
    {CL_DEVICE_NAME, TSR__CL_WIRE_NAME},
    {CL_DEVICE_VENDOR, TSR__CL_WIRE_VENDOR},
    {CL_DRIVER_VERSION, TSR__CL_WIRE_DRIVER_VERSION},
    {CL_DEVICE_VERSION, TSR__CL_WIRE_OPENCL_VERSION},
    {CL_DEVICE_OPENCL_C_VERSION, TSR__CL_WIRE_OPENCL_C_VERSION},
};

#define WIRE_FIELD(f) offsetof(tsr__cl_wire_device, f), sizeof(((tsr__cl_wire_device *)0)->f)

/* Numbers: the query, the size of OpenCL's answer, where the record keeps it. */
static const struct {
    cl_device_info param;
    size_t cl_size, offset, width;
} number_queries[] = {
    {CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong), WIRE_FIELD(global_memory_bytes)},
    {CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong), WIRE_FIELD(max_alloc_bytes)},
    {CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong), WIRE_FIELD(local_memory_bytes)},
    {CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), WIRE_FIELD(max_work_group_size)},
    {CL_DEVICE_TYPE, sizeof(cl_device_type), WIRE_FIELD(cl_device_type)},
    {CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint), WIRE_FIELD(compute_units)},
    {CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(cl_uint), WIRE_FIELD(max_clock_mhz)},
    {CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(cl_uint), WIRE_FIELD(mem_base_addr_align_bits)},
};

/* Flags: set when the answer is non-zero. CL_DEVICE_HOST_UNIFIED_MEMORY is
 * deprecated since OpenCL 2.0 but still answered, and nothing replaces it. */
static const struct {
    cl_device_info param;
    size_t cl_size;
    uint32_t flag;
} flag_queries[] = {
    {CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(cl_bool), TSR__CL_WIRE_HOST_UNIFIED_MEMORY},
    {CL_DEVICE_ENDIAN_LITTLE, sizeof(cl_bool), TSR__CL_WIRE_LITTLE_ENDIAN},
    {CL_DEVICE_AVAILABLE, sizeof(cl_bool), TSR__CL_WIRE_AVAILABLE},
    {CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(cl_device_fp_config), TSR__CL_WIRE_FP64},
    {CL_DEVICE_HALF_FP_CONFIG, sizeof(cl_device_fp_config), TSR__CL_WIRE_FP16},
};

/* Whether a space-separated extension list names `name` as a whole word. */
static bool has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list ? strstr(list, name) : NULL; p; p = strstr(p + n, name))
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

struct pci_address {
    cl_uint domain, bus, device, function;
};

static bool read_pci_khr(cl_device_id device, struct pci_address *a)
{
    cl_device_pci_bus_info_khr info;
    if (clGetDeviceInfo(device, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(info), &info, NULL) !=
        CL_SUCCESS)
        return false;
    *a = (struct pci_address){info.pci_domain, info.pci_bus, info.pci_device, info.pci_function};
    return true;
}

/* AMD reports no domain (0 then) and keeps the numbers in cl_char. */
static bool read_pci_amd(cl_device_id device, struct pci_address *a)
{
    cl_device_topology_amd topology;
    if (clGetDeviceInfo(device, CL_DEVICE_TOPOLOGY_AMD, sizeof(topology), &topology, NULL) !=
            CL_SUCCESS ||
        topology.raw.type != CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD)
        return false;
    *a = (struct pci_address){0, (unsigned char)topology.pcie.bus,
                              (unsigned char)topology.pcie.device,
                              (unsigned char)topology.pcie.function};
    return true;
}

/* NVIDIA's slot id is device << 3 | function; the domain query is newer
 * (CUDA 10.2) than the others, so a missing one means domain 0. */
static bool read_pci_nv(cl_device_id device, struct pci_address *a)
{
    cl_uint bus, slot, domain = 0;
    if (clGetDeviceInfo(device, TSR__CL_DEVICE_PCI_BUS_ID_NV, sizeof(bus), &bus, NULL) !=
            CL_SUCCESS ||
        clGetDeviceInfo(device, TSR__CL_DEVICE_PCI_SLOT_ID_NV, sizeof(slot), &slot, NULL) !=
            CL_SUCCESS)
        return false;
    if (clGetDeviceInfo(device, TSR__CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof(domain), &domain, NULL) !=
        CL_SUCCESS)
        domain = 0;
    *a = (struct pci_address){domain, bus, slot >> 3, slot & 7};
    return true;
}

/* Where a PCI bus id can come from, most standard first; each source is
 * asked only when the device lists its extension. */
static const struct {
    const char *extension;
    bool (*read)(cl_device_id, struct pci_address *);
} pci_sources[] = {
    {"cl_khr_pci_bus_info", read_pci_khr},
    {"cl_amd_device_attribute_query", read_pci_amd},
    {"cl_nv_device_attribute_query", read_pci_nv},
};

static void probe_pci(cl_device_id device, const char *extensions, tsr__cl_wire_device *r)
{
    for (size_t s = 0; s < TSR__ARRAY_SIZE(pci_sources); s++) {
        struct pci_address a;
        if (!has_extension(extensions, pci_sources[s].extension) ||
            !pci_sources[s].read(device, &a))
            continue;
        /* A driver's nonsense must not void the whole message in the parent. */
        if (a.bus > 0xff || a.device > 0x1f || a.function > 7)
            continue;
        r->pci_domain = a.domain;
        r->pci_bus = a.bus;
        r->pci_device = a.device;
        r->pci_function = a.function;
        r->flags |= TSR__CL_WIRE_HAS_PCI;
        return;
    }
}

static void probe_device(cl_device_id device, tsr__cl_wire_device *r)
{
    for (size_t q = 0; q < TSR__ARRAY_SIZE(text_queries); q++)
        query_text(NULL, device, text_queries[q].param, r->text[text_queries[q].field]);
    for (size_t q = 0; q < TSR__ARRAY_SIZE(number_queries); q++) {
        uint64_t v = query_unsigned(device, number_queries[q].param, number_queries[q].cl_size);
        uint32_t v32 = (uint32_t)v;
        memcpy((char *)r + number_queries[q].offset,
               number_queries[q].width == 4 ? (void *)&v32 : &v, number_queries[q].width);
    }
    for (size_t q = 0; q < TSR__ARRAY_SIZE(flag_queries); q++)
        if (query_unsigned(device, flag_queries[q].param, flag_queries[q].cl_size) != 0)
            r->flags |= flag_queries[q].flag;

    char *extensions = query_bytes(NULL, device, CL_DEVICE_EXTENSIONS);
    if (has_extension(extensions, "cl_khr_fp16"))
        r->flags |= TSR__CL_WIRE_FP16;
    if (has_extension(extensions, "cl_khr_il_program"))
        r->flags |= TSR__CL_WIRE_IL_PROGRAM;
    if (has_extension(extensions, "cl_khr_device_uuid") &&
        clGetDeviceInfo(device, CL_DEVICE_UUID_KHR, sizeof(r->uuid), r->uuid, NULL) == CL_SUCCESS)
        r->flags |= TSR__CL_WIRE_HAS_UUID;
    else
        memset(r->uuid, 0, sizeof(r->uuid));
    probe_pci(device, extensions, r);
    free(extensions);
}

/* Appends to the header's note, "; " between entries, cut to fit. */
TSR__PRINTF(2, 3) static void add_note(tsr__cl_wire_header *h, const char *fmt, ...)
{
    size_t used = strlen(h->note);
    if (used > 0 && used + 2 < sizeof(h->note)) {
        memcpy(h->note + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->note + used, sizeof(h->note) - used, fmt, ap);
    va_end(ap);
}

static void probe_platform(cl_platform_id platform, uint32_t index, tsr__cl_wire_header *h,
                           tsr__cl_wire_device *records)
{
    char name[TSR__CL_TEXT];
    query_text(platform, NULL, CL_PLATFORM_NAME, name);
    cl_uint count = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && count == 0))
        return;
    cl_device_id *devices = err == CL_SUCCESS ? calloc(count, sizeof(*devices)) : NULL;
    if (devices)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices, NULL);
    if (!devices || err != CL_SUCCESS) {
        add_note(h, "OpenCL platform %u (%s): no device list (%d)", (unsigned)index, name,
                 (int)err);
        free(devices);
        return;
    }
    for (cl_uint d = 0; d < count; d++) {
        if (h->count == TSR__CL_MAX_DEVICES) {
            add_note(h, "more than %d OpenCL devices: the rest are not listed",
                     TSR__CL_MAX_DEVICES);
            break;
        }
        tsr__cl_wire_device *r = &records[h->count++];
        probe_device(devices[d], r);
        memcpy(r->text[TSR__CL_WIRE_PLATFORM_NAME], name, TSR__CL_TEXT);
        r->platform_index = index;
        r->device_index = d;
    }
    free(devices);
}

static bool write_all(int fd, const void *data, size_t len)
{
    for (const char *p = data; len > 0;) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Exit statuses of the child; the parent reports anything but 0. */
enum { PROBE_SENT = 0, PROBE_NO_MEMORY = 2, PROBE_WRITE_FAILED = 3 };

int tsr__cl_probe(int fd)
{
    tsr__cl_wire_header h;
    memset(&h, 0, sizeof(h));
    h.magic = TSR__CL_WIRE_MAGIC;
    h.version = TSR__CL_WIRE_VERSION;
    h.record_size = sizeof(tsr__cl_wire_device);
    tsr__cl_wire_device *records = calloc(TSR__CL_MAX_DEVICES, sizeof(*records));
    if (!records)
        return PROBE_NO_MEMORY;

    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &count);
    cl_platform_id *platforms =
        err == CL_SUCCESS && count > 0 ? calloc(count, sizeof(*platforms)) : NULL;
    if (platforms)
        err = clGetPlatformIDs(count, platforms, NULL);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && count == 0))
        add_note(&h, "no OpenCL platform (%d)", (int)CL_PLATFORM_NOT_FOUND_KHR);
    else if (err != CL_SUCCESS)
        add_note(&h, "OpenCL platforms not listed (%d)", (int)err);
    else if (!platforms) {
        free(records);
        return PROBE_NO_MEMORY;
    }
    for (cl_uint p = 0; platforms && err == CL_SUCCESS && p < count; p++)
        probe_platform(platforms[p], p, &h, records);

    bool sent = write_all(fd, &h, sizeof(h)) &&
                write_all(fd, records, h.count * sizeof(tsr__cl_wire_device));
    free(platforms);
    free(records);
    return sent ? PROBE_SENT : PROBE_WRITE_FAILED;
}
