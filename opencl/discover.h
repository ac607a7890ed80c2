/* Internal: the OpenCL devices of this machine, listed without trusting the
 * drivers.
 *
 * OpenCL drivers (ICDs) are foreign code that may crash, abort or hang while
 * they are enumerated. tsr__cl_discover therefore runs every OpenCL call in
 * a forked child and reads fixed-size records back through a pipe; the
 * calling process never calls OpenCL at all. A child that misbehaves costs
 * the caller its OpenCL devices (and a line in `note`), never the process.
 *
 * Ordinals: devices that report a PCI bus id come first, in bus id order;
 * the rest follow in platform order, then device order. A device seen
 * through two platforms (same PCI bus id, or same UUID when both report
 * one) is listed once, as it was first enumerated. */
#ifndef TESSERA_OPENCL_DISCOVER_H
#define TESSERA_OPENCL_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/status.h"

#define TSR__CL_TEXT 256

typedef struct tsr__cl_device_info {
    char name[TSR__CL_TEXT], vendor[TSR__CL_TEXT], driver_version[TSR__CL_TEXT];
    char opencl_version[TSR__CL_TEXT];   /* CL_DEVICE_VERSION, e.g. "OpenCL 1.2 pocl ..." */
    char opencl_c_version[TSR__CL_TEXT]; /* CL_DEVICE_OPENCL_C_VERSION */
    char platform_name[TSR__CL_TEXT];
    char pci_bus_id[32]; /* "0000:01:00.0" (lowercase hex) or "" when unknown */
    uint8_t uuid[16];    /* cl_khr_device_uuid, valid when has_uuid */
    bool has_uuid;
    bool il_program; /* cl_khr_il_program: it loads SPIR-V */
    uint64_t global_memory_bytes, max_alloc_bytes, local_memory_bytes, max_work_group_size;
    uint32_t compute_units, max_clock_mhz, mem_base_addr_align_bits;
    uint64_t cl_device_type; /* CL_DEVICE_TYPE_* bits */
    bool fp16, fp64, host_unified_memory, little_endian, available;
    bool stage_copies; /* the daemon's choice (devices.memory = staged), never discovered */
    bool host_code;    /* the daemon's choice (devices.host_code), never discovered */
    bool huge_pages;   /* the daemon's choice (devices.huge_pages), never discovered */
    uint32_t platform_index, device_index; /* position in the enumeration */
} tsr__cl_device_info;

typedef struct tsr__cl_discovery {
    tsr__cl_device_info *devices; /* malloc'ed, `count` entries in ordinal order; NULL if none */
    size_t count;
    char note[512]; /* diagnostics for the daemon's log, "" if none */
} tsr__cl_discovery;

/* The most devices one discovery lists; more are cut, with a note. */
#define TSR__CL_MAX_DEVICES 64

/* Enumerates every device of every OpenCL platform in a forked child and
 * waits at most timeout_ms (> 0) for its answer. A child that crashes, is
 * killed, overruns the deadline (it is then SIGKILLed) or sends records
 * that do not validate means zero OpenCL devices, with the reason in
 * out->note, and TSR_OK; so does a machine without an OpenCL platform
 * (CL_PLATFORM_NOT_FOUND_KHR). The child is always reaped before return.
 * Only a resource failure (pipe, fork, memory) returns an error, and then
 * *out is left untouched.
 *
 * The caller must be single-threaded at the time: the child runs driver
 * code after fork(), which is only safe when no other thread held a lock
 * (in malloc, stdio, the dynamic loader) at the moment of the fork. Nor may
 * a SIGCHLD handler of the caller reap the child (waitpid(-1, ...)). The
 * child's signal handlers are reset to their defaults, so a handler the
 * caller installed never runs in it. */
tsr_status tsr__cl_discover(int timeout_ms, tsr__cl_discovery *out);

/* Frees the device array; safe on a zeroed or already freed discovery. */
void tsr__cl_discovery_free(tsr__cl_discovery *discovery);

#endif /* TESSERA_OPENCL_DISCOVER_H */
