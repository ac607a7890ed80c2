/* Decoding the probe's message in the parent: validation, then the
 * duplicate and ordinal rules of discover.h. Every check happens before
 * anything is allocated for the caller, so a garbled message leaves no
 * partial device list behind. */
#include "opencl/wire.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Where each wire text field lands in the device description. */
static const size_t text_fields[TSR__CL_WIRE_TEXT_COUNT] = {
    [TSR__CL_WIRE_NAME] = offsetof(tsr__cl_device_info, name),
    [TSR__CL_WIRE_VENDOR] = offsetof(tsr__cl_device_info, vendor),
    [TSR__CL_WIRE_DRIVER_VERSION] = offsetof(tsr__cl_device_info, driver_version),
    [TSR__CL_WIRE_OPENCL_VERSION] = offsetof(tsr__cl_device_info, opencl_version),
    [TSR__CL_WIRE_OPENCL_C_VERSION] = offsetof(tsr__cl_device_info, opencl_c_version),
    [TSR__CL_WIRE_PLATFORM_NAME] = offsetof(tsr__cl_device_info, platform_name),
};

/* The flag bits that become a bool of the device description. */
static const struct {
    uint32_t flag;
    size_t field;
} flag_fields[] = {
    {TSR__CL_WIRE_FP16, offsetof(tsr__cl_device_info, fp16)},
    {TSR__CL_WIRE_FP64, offsetof(tsr__cl_device_info, fp64)},
    {TSR__CL_WIRE_HOST_UNIFIED_MEMORY, offsetof(tsr__cl_device_info, host_unified_memory)},
    {TSR__CL_WIRE_LITTLE_ENDIAN, offsetof(tsr__cl_device_info, little_endian)},
    {TSR__CL_WIRE_AVAILABLE, offsetof(tsr__cl_device_info, available)},
    {TSR__CL_WIRE_HAS_UUID, offsetof(tsr__cl_device_info, has_uuid)},
    {TSR__CL_WIRE_IL_PROGRAM, offsetof(tsr__cl_device_info, il_program)},
};

static bool has(const tsr__cl_wire_device *r, uint32_t flag)
{
    return (r->flags & flag) != 0;
}

static tsr_status check_record(const tsr__cl_wire_device *r, uint32_t i)
{
    for (int t = 0; t < TSR__CL_WIRE_TEXT_COUNT; t++)
        if (!memchr(r->text[t], '\0', TSR__CL_TEXT))
            return tsr__fail(TSR_ERR_PROTOCOL, "device record %u: text field %d is not terminated",
                             i, t);
    if (r->flags & ~(uint32_t)TSR__CL_WIRE_FLAG_MASK)
        return tsr__fail(TSR_ERR_PROTOCOL, "device record %u: unknown flag bits 0x%x", i,
                         (unsigned)r->flags);
    if (has(r, TSR__CL_WIRE_HAS_PCI) &&
        (r->pci_bus > 0xff || r->pci_device > 0x1f || r->pci_function > 7))
        return tsr__fail(TSR_ERR_PROTOCOL, "device record %u: PCI address %x:%x:%x.%x out of range",
                         i, (unsigned)r->pci_domain, (unsigned)r->pci_bus, (unsigned)r->pci_device,
                         (unsigned)r->pci_function);
    return TSR_OK;
}

/* domain:bus:device.function as one number that sorts as the bus id does. */
static uint64_t pci_key(const tsr__cl_wire_device *r)
{
    return (uint64_t)r->pci_domain << 16 | r->pci_bus << 8 | r->pci_device << 3 | r->pci_function;
}

static bool same_device(const tsr__cl_wire_device *a, const tsr__cl_wire_device *b)
{
    if (has(a, TSR__CL_WIRE_HAS_PCI) && has(b, TSR__CL_WIRE_HAS_PCI) && pci_key(a) == pci_key(b))
        return true;
    return has(a, TSR__CL_WIRE_HAS_UUID) && has(b, TSR__CL_WIRE_HAS_UUID) &&
           memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0;
}

/* Ordinal order: devices with a PCI bus id first, by bus id. Devices
 * without one compare equal, so the stable sort keeps them in enumeration
 * order. */
static bool goes_before(const tsr__cl_wire_device *a, const tsr__cl_wire_device *b)
{
    if (!has(a, TSR__CL_WIRE_HAS_PCI))
        return false;
    return !has(b, TSR__CL_WIRE_HAS_PCI) || pci_key(a) < pci_key(b);
}

static void describe(const tsr__cl_wire_device *r, tsr__cl_device_info *d)
{
    memset(d, 0, sizeof(*d));
    for (int t = 0; t < TSR__CL_WIRE_TEXT_COUNT; t++)
        memcpy((char *)d + text_fields[t], r->text[t], TSR__CL_TEXT);
    for (size_t f = 0; f < TSR__ARRAY_SIZE(flag_fields); f++)
        *(bool *)((char *)d + flag_fields[f].field) = has(r, flag_fields[f].flag);
    if (d->has_uuid)
        memcpy(d->uuid, r->uuid, sizeof(d->uuid));
    if (has(r, TSR__CL_WIRE_HAS_PCI))
        snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "%04x:%02x:%02x.%x", (unsigned)r->pci_domain,
                 (unsigned)r->pci_bus, (unsigned)r->pci_device, (unsigned)r->pci_function);
    d->global_memory_bytes = r->global_memory_bytes;
    d->max_alloc_bytes = r->max_alloc_bytes;
    d->local_memory_bytes = r->local_memory_bytes;
    d->max_work_group_size = r->max_work_group_size;
    d->cl_device_type = r->cl_device_type;
    d->compute_units = r->compute_units;
    d->max_clock_mhz = r->max_clock_mhz;
    d->mem_base_addr_align_bits = r->mem_base_addr_align_bits;
    d->platform_index = r->platform_index;
    d->device_index = r->device_index;
}

static tsr_status check_header(const tsr__cl_wire_header *h, size_t len)
{
    if (h->magic != TSR__CL_WIRE_MAGIC || h->version != TSR__CL_WIRE_VERSION ||
        h->record_size != sizeof(tsr__cl_wire_device))
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "foreign header (magic 0x%08x, version %u, record size %u)",
                         (unsigned)h->magic, (unsigned)h->version, (unsigned)h->record_size);
    if (h->count > TSR__CL_MAX_DEVICES)
        return tsr__fail(TSR_ERR_PROTOCOL, "%u device records, more than %d", (unsigned)h->count,
                         TSR__CL_MAX_DEVICES);
    size_t want = sizeof(*h) + h->count * sizeof(tsr__cl_wire_device);
    if (len != want)
        return tsr__fail(TSR_ERR_PROTOCOL, "%zu bytes for %u device records, expected %zu", len,
                         (unsigned)h->count, want);
    if (!memchr(h->note, '\0', sizeof(h->note)))
        return tsr__fail(TSR_ERR_PROTOCOL, "the note is not terminated");
    return TSR_OK;
}

tsr_status tsr__cl_decode(const void *buf, size_t len, tsr__cl_discovery *out)
{
    tsr__cl_wire_header h;
    if (!buf || len < sizeof(h))
        return tsr__fail(TSR_ERR_PROTOCOL, "%zu bytes, shorter than the %zu-byte header", len,
                         sizeof(h));
    memcpy(&h, buf, sizeof(h));
    tsr_status st = check_header(&h, len);
    if (st != TSR_OK)
        return st;

    /* Records are copied out, so the buffer needs no particular alignment. */
    tsr__cl_wire_device *records = NULL;
    if (h.count > 0 && !(records = malloc(h.count * sizeof(*records))))
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for %u OpenCL device records",
                         (unsigned)h.count);
    const tsr__cl_wire_device *order[TSR__CL_MAX_DEVICES];
    size_t kept = 0;
    for (uint32_t i = 0; i < h.count; i++) {
        tsr__cl_wire_device *r = &records[i];
        memcpy(r, (const char *)buf + sizeof(h) + i * sizeof(*r), sizeof(*r));
        if ((st = check_record(r, i)) != TSR_OK) {
            free(records);
            return st;
        }
        bool seen = false;
        for (size_t k = 0; k < kept && !seen; k++)
            seen = same_device(order[k], r);
        if (seen)
            continue;
        /* Insertion into the ordinal order: stable, and n is small. */
        size_t at = kept++;
        for (; at > 0 && goes_before(r, order[at - 1]); at--)
            order[at] = order[at - 1];
        order[at] = r;
    }

    tsr__cl_device_info *devices = NULL;
    if (kept > 0 && !(devices = malloc(kept * sizeof(*devices)))) {
        free(records);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for %zu OpenCL devices", kept);
    }
    for (size_t k = 0; k < kept; k++)
        describe(order[k], &devices[k]);
    free(records);
    out->devices = devices;
    out->count = kept;
    snprintf(out->note, sizeof(out->note), "%s", h.note);
    return TSR_OK;
}
