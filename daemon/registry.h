/* The device registry: what the daemon serves, built once at start-up.
 *
 * Entries, in the order DEVICE_GET positions name them: cpu, every device
 * of the accelerator backend by ordinal (opencl:0 ..), meta. Each built-in
 * backend (daemon/backend.h) discovers its devices its own way (OpenCL's
 * in a probe process); the daemon serves the first backend that finds
 * any, and locates its devices with hwloc and libdrm (numa/topology.h).
 * Clients do neither. The loop thread owns the registry; its per-device
 * `reserved` counts what every session holds. */
#ifndef TESSERA_DAEMON_REGISTRY_H
#define TESSERA_DAEMON_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"
#include "daemon/backend.h"
#include "tessera/device.h"

typedef struct tsr__registry_device {
    tsr__wire_device_info info;
    uint64_t capacity; /* what sessions may reserve in total */
    uint64_t reserved; /* what they reserve now */
    uint64_t launches; /* kernels queued on it since start (exec.c; loop thread) */
    /* Accelerators: the backend, the device's number there, and what
     * discovery saw (as served: devices.memory = copy takes
     * host_unified_memory away). NULL, 0, zeros for cpu and meta. */
    const tsr__backend *backend;
    uint32_t backend_index;
    tsr__backend_device desc;
} tsr__registry_device;

typedef struct tsr__registry {
    tsr__registry_device *devices;
    size_t count;
    size_t accel_count;             /* accelerators: entries 1 .. accel_count */
    tsr_device_type accel_type;     /* their type (the backend's) */
    const tsr__backend *backend;    /* the accelerator backend served */
    tsr__backend_found found;       /* what it discovered (found.trusted: it may run here) */
    struct tsr__topology *topology; /* for NUMA placement of segments */
} tsr__registry;

typedef struct tsr__registry_options {
    uint64_t memory_limit; /* 0: none; else caps each device's capacity */
    int probe_timeout_ms;
    bool copy_memory;  /* devices.memory = copy or staged: no device computes in the segments */
    bool stage_copies; /* devices.memory = staged: copies in read the segment when queued */
    bool host_code;    /* devices.host_code: a device that is the host's CPU runs host code */
    bool huge_pages;   /* devices.huge_pages: such a device moves segments into huge pages */
} tsr__registry_options;

/* Discovers the devices and logs what it found. Must run before any thread
 * is started (discovery forks). */
tsr_status tsr__registry_build(const tsr__registry_options *options, tsr__registry *out);
void tsr__registry_free(tsr__registry *registry);

/* The entry of a device; NULL with TSR_ERR_NO_DEVICE set (the message
 * names the devices that exist) when there is none. `index` -1 is accepted
 * for cpu and meta only. */
tsr__registry_device *tsr__registry_find(tsr__registry *registry, tsr_device device);

/* How many devices of a type exist (cpu, meta: 1). */
int32_t tsr__registry_count(const tsr__registry *registry, tsr_device_type type);

/* A device list (devices.visible or one of its unit, slice and cgroup
 * lines: `all`, or `count` ordinals at `devices`) against the devices that
 * exist, into out (room for every accelerator); `warn` names the key to
 * log ordinals that do not exist under (with `pattern` after it), NULL
 * for none. Returns the count. */
uint32_t tsr__registry_visible_list(const tsr__registry *reg, bool all, uint32_t count,
                                    const int32_t *devices, int32_t *out, const char *warn,
                                    const char *pattern);
/* The accelerator at `ordinal` (0 .. accel_count - 1), or NULL. */
tsr__registry_device *tsr__registry_accelerator(tsr__registry *registry, size_t ordinal);

#endif /* TESSERA_DAEMON_REGISTRY_H */
