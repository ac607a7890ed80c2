/* Internal: where devices sit in the machine, and NUMA placement of memory.
 *
 * The daemon loads the topology once (hwloc with I/O discovery cut to the
 * PCI devices hwloc counts as important, read from sysfs, plus libdrm's
 * device list; up to ~100 ms) and asks it, for each device, which
 * NUMA node and CPUs are local to it and which DRM render node drives it.
 * hwloc's plugins that would call GPU drivers (OpenCL, CUDA, NVML, ROCm
 * SMI, Level Zero, GL) are kept out: driver code runs only in the OpenCL
 * probe's child (opencl/discover.h). */
#ifndef TESSERA_NUMA_TOPOLOGY_H
#define TESSERA_NUMA_TOPOLOGY_H

#include <stddef.h>

#include "core/protocol.h"
#include "tessera/status.h"

typedef struct tsr__topology tsr__topology;

/* Loads the machine's topology. Facts worth a log line (no /dev/dri, ...)
 * go to tsr__topology_note. TSR_ERR_RUNTIME when hwloc cannot load it,
 * TSR_ERR_OUT_OF_MEMORY; *out is written only on success. */
tsr_status tsr__topology_load(tsr__topology **out);
void tsr__topology_free(tsr__topology *topology);

/* Diagnostics for the daemon's log; "" if none. Valid until freed. */
const char *tsr__topology_note(const tsr__topology *topology);

/* The number of NUMA nodes (at least 1). */
int tsr__topology_numa_nodes(const tsr__topology *topology);

typedef struct tsr__device_location {
    int numa_node;        /* -1 when unknown or when the device spans several nodes */
    char cpuset[256];     /* Linux cpulist ("0-1,4") of the CPUs local to the device; "" unknown */
    char render_node[64]; /* "/dev/dri/renderD128", or "" when none */
} tsr__device_location;

/* Where a device sits. pci_bus_id is "dddd:bb:dd.f" (hex, either case), or
 * NULL / "" for a device without one, such as a CPU OpenCL device: it gets
 * every CPU of the machine, and NUMA node 0 when the machine has one node
 * (-1 when it has several).
 *
 * A well-formed bus id of a device hwloc does not know (absent, or not a
 * kind it keeps) is TSR_OK with numa_node -1 and cpuset "" (unknown); its
 * render node is still looked up. A malformed bus id is
 * TSR_ERR_INVALID_ARGUMENT. A cpu list longer than the field is left ""
 * rather than cut. *out is written only on success. */
tsr_status tsr__topology_locate(const tsr__topology *topology, const char *pci_bus_id,
                                tsr__device_location *out);

/* How the PCI devices at two bus ids ("dddd:bb:dd.f") reach each other,
 * from hwloc's PCI tree, as `nvidia-smi topo -m` classifies it: the same
 * id is TSR__LINK_SELF; a path through at most one PCI bridge (switch) on
 * each side is PIX, through more is PXB, through the host bridge they share
 * PHB; devices under different host bridges are NODE when one NUMA node is
 * local to both, else SYS. TSR__LINK_UNKNOWN when either id is empty,
 * malformed or not a device hwloc keeps. */
tsr__wire_link tsr__topology_link(const tsr__topology *topology, const char *bus_a,
                                  const char *bus_b);

/* Binds [addr, addr + len) (page-aligned, e.g. a MAP_SHARED mapping of a
 * memfd) to NUMA node `node` with mbind(MPOL_BIND), so that pages are
 * placed there when first touched. A no-op returning TSR_OK when node < 0,
 * when libnuma reports NUMA unavailable, or when the machine has one node.
 * TSR_ERR_INVALID_ARGUMENT for a NULL or unaligned address or a zero length
 * (always), and for a node this process may not allocate on (whenever NUMA
 * is available, one node or not, so that a caller's bug shows everywhere);
 * TSR_ERR_IO when the kernel refuses. */
tsr_status tsr__numa_bind(void *addr, size_t len, int node);

#endif /* TESSERA_NUMA_TOPOLOGY_H */
