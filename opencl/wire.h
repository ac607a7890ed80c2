/* Internal: the message the OpenCL probe child sends its parent.
 *
 * One header, then `count` device records, all fixed-size and free of
 * padding, in enumeration order. The child ran driver code, so the parent
 * treats the bytes as untrusted input: tsr__cl_decode checks the length,
 * count, every string terminator, flag bit and PCI field before it builds
 * the device list, and only then drops duplicates and puts the devices in
 * ordinal order. Booleans travel as flag bits, never as `bool`, so that a
 * garbled byte cannot become an invalid bool in the parent. */
#ifndef TESSERA_OPENCL_WIRE_H
#define TESSERA_OPENCL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "opencl/discover.h"

#define TSR__CL_WIRE_MAGIC 0x4c435354u /* "TSCL" as little-endian bytes */
#define TSR__CL_WIRE_VERSION 1u
#define TSR__CL_WIRE_NOTE 384

/* The text fields of a device record, in wire order. */
enum tsr__cl_wire_text {
    TSR__CL_WIRE_NAME,
    TSR__CL_WIRE_VENDOR,
    TSR__CL_WIRE_DRIVER_VERSION,
    TSR__CL_WIRE_OPENCL_VERSION,
    TSR__CL_WIRE_OPENCL_C_VERSION,
    TSR__CL_WIRE_PLATFORM_NAME,
    TSR__CL_WIRE_TEXT_COUNT
};

/* Flag bits of a device record; any other bit makes the message invalid. */
enum tsr__cl_wire_flag {
    TSR__CL_WIRE_FP16 = 1u << 0,
    TSR__CL_WIRE_FP64 = 1u << 1,
    TSR__CL_WIRE_HOST_UNIFIED_MEMORY = 1u << 2,
    TSR__CL_WIRE_LITTLE_ENDIAN = 1u << 3,
    TSR__CL_WIRE_AVAILABLE = 1u << 4,
    TSR__CL_WIRE_HAS_UUID = 1u << 5,
    TSR__CL_WIRE_HAS_PCI = 1u << 6,
    TSR__CL_WIRE_IL_PROGRAM = 1u << 7, /* cl_khr_il_program: it loads SPIR-V */
    TSR__CL_WIRE_FLAG_MASK = (1u << 8) - 1
};

typedef struct tsr__cl_wire_header {
    uint32_t magic, version, record_size, count;
    char note[TSR__CL_WIRE_NOTE]; /* the child's diagnostics, "" if none */
} tsr__cl_wire_header;

typedef struct tsr__cl_wire_device {
    char text[TSR__CL_WIRE_TEXT_COUNT][TSR__CL_TEXT];
    uint8_t uuid[16];
    uint64_t global_memory_bytes, max_alloc_bytes, local_memory_bytes, max_work_group_size;
    uint64_t cl_device_type;
    uint32_t compute_units, max_clock_mhz, mem_base_addr_align_bits;
    uint32_t platform_index, device_index, flags;
    uint32_t pci_domain, pci_bus, pci_device, pci_function; /* valid with TSR__CL_WIRE_HAS_PCI */
} tsr__cl_wire_device;

/* Both structs cross the pipe as bytes: no padding may carry stale memory. */
_Static_assert(sizeof(tsr__cl_wire_header) == 4 * 4 + TSR__CL_WIRE_NOTE, "header has no padding");
_Static_assert(sizeof(tsr__cl_wire_device) ==
                   TSR__CL_WIRE_TEXT_COUNT * TSR__CL_TEXT + 16 + 5 * 8 + 10 * 4,
               "device record has no padding");

/* The largest message a probe may send. */
#define TSR__CL_WIRE_MAX \
    (sizeof(tsr__cl_wire_header) + TSR__CL_MAX_DEVICES * sizeof(tsr__cl_wire_device))

/* Validates a whole message of `len` bytes and, when it is sound, fills
 * out->devices and out->count (duplicates dropped, ordinal order) and
 * copies the child's note into out->note. TSR_ERR_PROTOCOL, with a message
 * saying what was wrong, when the bytes do not validate;
 * TSR_ERR_OUT_OF_MEMORY. *out is written only on success. */
tsr_status tsr__cl_decode(const void *buf, size_t len, tsr__cl_discovery *out);

/* The child's side: enumerates every OpenCL device and writes one message
 * to fd. Returns the exit status for the child (0: message written). Runs
 * only in the forked child; it is the only function that calls OpenCL. */
int tsr__cl_probe(int fd);

#endif /* TESSERA_OPENCL_WIRE_H */
