/* The device registry: what the daemon serves, built once at start-up.
 *
 * Entries, in the order DEVICE_GET positions name them: cpu, every OpenCL
 * device by ordinal (opencl:0 ..), meta. Discovery runs OpenCL in a probe
 * process (opencl/discover.h) and locates devices with hwloc and libdrm
 * (numa/topology.h); clients never do either. The loop thread owns the
 * registry; its per-device `reserved` counts what every session holds. */
#ifndef TESSERA_DAEMON_REGISTRY_H
#define TESSERA_DAEMON_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"
#include "opencl/discover.h"
#include "tessera/device.h"

typedef struct tsr__registry_device {
    tsr__wire_device_info info;
    uint64_t capacity; /* what sessions may reserve in total */
    uint64_t reserved; /* what they reserve now */
    tsr__cl_device_info cl; /* OpenCL devices: what discovery saw */
} tsr__registry_device;

typedef struct tsr__registry {
    tsr__registry_device *devices;
    size_t count;
    size_t opencl_count;
    bool opencl_trusted; /* discovery met no misbehaving driver: OpenCL may run in the daemon */
    struct tsr__topology *topology; /* for NUMA placement of segments */
} tsr__registry;

typedef struct tsr__registry_options {
    uint64_t memory_limit; /* 0: none; else caps each device's capacity */
    int probe_timeout_ms;
    bool copy_memory; /* devices.memory = copy: no device computes in the segments */
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

#endif /* TESSERA_DAEMON_REGISTRY_H */
