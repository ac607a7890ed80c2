/* The machine's topology for device placement: an hwloc topology loaded
 * once with only the I/O objects placement needs, the PCI render nodes
 * libdrm lists, and NUMA binding of memory with libnuma's mbind. Nothing
 * here prints: what the daemon should log goes to the note. */
#include "numa/topology.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>
#include <xf86drm.h>

#include "core/error.h"

/* A PCI device that has a DRM render node. */
struct render_node {
    unsigned domain, bus, device, function;
    char path[sizeof(((tsr__device_location *)0)->render_node)];
};

struct tsr__topology {
    hwloc_topology_t hwloc;
    int numa_nodes;
    struct render_node *render_nodes;
    size_t render_node_count;
    char note[512];
};

/* hwloc components kept out. The GPU ones would load drivers into the
 * daemon (or talk to an X server) to name OS devices placement does not
 * need. "pci" (libpciaccess) adds only names and link speeds to the PCI
 * devices hwloc's Linux backend reads from sysfs anyway, and its memory
 * becomes unreachable when hwloc unloads the plugin (LeakSanitizer sees
 * about 1 KiB per topology). */
static const char *const left_out_components[] = {"opencl",    "cuda", "nvml", "rsmi",
                                                  "levelzero", "gl",   "pci"};

static tsr_status load_hwloc(tsr__topology *t)
{
    if (hwloc_topology_init(&t->hwloc) != 0)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "hwloc cannot start a topology: %s",
                         strerror(errno));
    /* PCI devices (and the bridges above them) locate devices; OS devices
     * (block, net, ...) would only cost load time. */
    hwloc_topology_set_io_types_filter(t->hwloc, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_topology_set_type_filter(t->hwloc, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_NONE);
    for (size_t c = 0; c < TSR__ARRAY_SIZE(left_out_components); c++)
        hwloc_topology_set_components(t->hwloc, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                      left_out_components[c]);
    if (hwloc_topology_load(t->hwloc) != 0)
        return tsr__fail(TSR_ERR_RUNTIME, "hwloc cannot load the topology: %s", strerror(errno));
    int nodes = hwloc_get_nbobjs_by_type(t->hwloc, HWLOC_OBJ_NUMANODE);
    t->numa_nodes = nodes > 0 ? nodes : 1;
    return TSR_OK;
}

static bool keep_render_node(const drmDevice *d)
{
    return d->bustype == DRM_BUS_PCI && (d->available_nodes & (1 << DRM_NODE_RENDER)) &&
           strlen(d->nodes[DRM_NODE_RENDER]) < sizeof(((struct render_node *)0)->path);
}

/* libdrm answers -ENOENT when there is no /dev/dri: no DRM devices at all,
 * which is a fact for the log, not a failure. */
static tsr_status load_render_nodes(tsr__topology *t)
{
    int count = drmGetDevices2(0, NULL, 0);
    if (count == -ENOENT) {
        snprintf(t->note, sizeof(t->note), "no /dev/dri: no DRM render nodes on this machine");
        return TSR_OK;
    }
    if (count < 0) {
        snprintf(t->note, sizeof(t->note), "DRM devices not listed (%s): no render nodes",
                 strerror(-count));
        return TSR_OK;
    }
    drmDevicePtr *devices = count > 0 ? calloc((size_t)count, sizeof(*devices)) : NULL;
    t->render_nodes = count > 0 ? calloc((size_t)count, sizeof(*t->render_nodes)) : NULL;
    if (count > 0 && (!devices || !t->render_nodes)) {
        free(devices);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for %d DRM devices", count);
    }
    int listed = count > 0 ? drmGetDevices2(0, devices, count) : 0;
    for (int i = 0; i < listed; i++) {
        if (!keep_render_node(devices[i]))
            continue;
        const drmPciBusInfo *pci = devices[i]->businfo.pci;
        struct render_node *r = &t->render_nodes[t->render_node_count++];
        *r = (struct render_node){pci->domain, pci->bus, pci->dev, pci->func, ""};
        snprintf(r->path, sizeof(r->path), "%s", devices[i]->nodes[DRM_NODE_RENDER]);
    }
    if (listed > 0)
        drmFreeDevices(devices, listed);
    free(devices);
    if (t->render_node_count == 0)
        snprintf(t->note, sizeof(t->note), "no DRM render nodes on this machine");
    return TSR_OK;
}

tsr_status tsr__topology_load(tsr__topology **out)
{
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr__topology_load needs a result");
    tsr__topology *t = calloc(1, sizeof(*t));
    if (!t)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for the topology");
    tsr_status st = load_hwloc(t);
    if (st == TSR_OK)
        st = load_render_nodes(t);
    if (st != TSR_OK) {
        tsr__topology_free(t);
        return st;
    }
    *out = t;
    return TSR_OK;
}

void tsr__topology_free(tsr__topology *t)
{
    if (!t)
        return;
    if (t->hwloc)
        hwloc_topology_destroy(t->hwloc);
    free(t->render_nodes);
    free(t);
}

const char *tsr__topology_note(const tsr__topology *t)
{
    return t ? t->note : "";
}

int tsr__topology_numa_nodes(const tsr__topology *t)
{
    return t ? t->numa_nodes : 1;
}

struct pci_address {
    unsigned long part[4]; /* domain, bus, device, function */
};

/* The fields of "dddd:bb:dd.f": hex digits allowed, the character after,
 * the largest value. Linux prints the domain with at least 4 digits. */
static const struct {
    int min_digits, max_digits;
    char end;
    unsigned long max;
} bus_id_fields[] = {
    {4, 8, ':', 0xffffffff},
    {2, 2, ':', 0xff},
    {2, 2, '.', 0x1f},
    {1, 1, '\0', 7},
};

static bool parse_bus_id(const char *s, struct pci_address *a)
{
    for (size_t f = 0; f < TSR__ARRAY_SIZE(bus_id_fields); f++) {
        int digits = 0;
        unsigned long value = 0;
        for (; isxdigit((unsigned char)*s) && digits < bus_id_fields[f].max_digits; s++, digits++)
            value = value * 16 + (unsigned long)(isdigit((unsigned char)*s)
                                                     ? *s - '0'
                                                     : tolower((unsigned char)*s) - 'a' + 10);
        if (digits < bus_id_fields[f].min_digits || *s != bus_id_fields[f].end ||
            value > bus_id_fields[f].max)
            return false;
        a->part[f] = value;
        s++;
    }
    return true;
}

/* Writes a cpu list, or "" when the set is unknown or the list does not fit. */
static void format_cpus(hwloc_const_cpuset_t cpus, char *dst, size_t n)
{
    int len = cpus ? hwloc_bitmap_list_snprintf(dst, n, cpus) : -1;
    if (len < 0 || (size_t)len >= n)
        dst[0] = '\0';
}

static void locate_pci(const tsr__topology *t, const struct pci_address *a,
                       tsr__device_location *loc)
{
    hwloc_obj_t pci =
        hwloc_get_pcidev_by_busid(t->hwloc, (unsigned)a->part[0], (unsigned)a->part[1],
                                  (unsigned)a->part[2], (unsigned)a->part[3]);
    hwloc_obj_t near = pci ? hwloc_get_non_io_ancestor_obj(t->hwloc, pci) : NULL;
    if (near) {
        format_cpus(near->cpuset, loc->cpuset, sizeof(loc->cpuset));
        if (near->nodeset && hwloc_bitmap_weight(near->nodeset) == 1)
            loc->numa_node = hwloc_bitmap_first(near->nodeset);
    }
    for (size_t i = 0; i < t->render_node_count; i++) {
        const struct render_node *r = &t->render_nodes[i];
        if (r->domain == a->part[0] && r->bus == a->part[1] && r->device == a->part[2] &&
            r->function == a->part[3]) {
            snprintf(loc->render_node, sizeof(loc->render_node), "%s", r->path);
            break;
        }
    }
}

tsr_status tsr__topology_locate(const tsr__topology *t, const char *pci_bus_id,
                                tsr__device_location *out)
{
    if (!t || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr__topology_locate needs a topology and a "
                                                   "result");
    tsr__device_location loc = {.numa_node = -1, .cpuset = "", .render_node = ""};
    if (!pci_bus_id || !*pci_bus_id) {
        /* Not on a bus: the whole machine is local to it. */
        format_cpus(hwloc_get_root_obj(t->hwloc)->cpuset, loc.cpuset, sizeof(loc.cpuset));
        hwloc_obj_t node = hwloc_get_obj_by_type(t->hwloc, HWLOC_OBJ_NUMANODE, 0);
        if (t->numa_nodes == 1)
            loc.numa_node = node ? (int)node->os_index : 0;
    } else {
        struct pci_address a;
        if (!parse_bus_id(pci_bus_id, &a))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid PCI bus id '%s': expected dddd:bb:dd.f in hex", pci_bus_id);
        locate_pci(t, &a, &loc);
    }
    *out = loc;
    return TSR_OK;
}

static hwloc_obj_t pci_object(const tsr__topology *t, const char *bus_id)
{
    struct pci_address a;
    if (!t || !bus_id || !parse_bus_id(bus_id, &a))
        return NULL;
    return hwloc_get_pcidev_by_busid(t->hwloc, (unsigned)a.part[0], (unsigned)a.part[1],
                                     (unsigned)a.part[2], (unsigned)a.part[3]);
}

/* Bridges on the way from obj up to (not including) top. */
static int bridges_below(hwloc_obj_t obj, hwloc_obj_t top)
{
    int n = 0;
    for (hwloc_obj_t o = obj->parent; o && o != top; o = o->parent)
        n += o->type == HWLOC_OBJ_BRIDGE;
    return n;
}

tsr__wire_link tsr__topology_link(const tsr__topology *t, const char *bus_a, const char *bus_b)
{
    hwloc_obj_t a = pci_object(t, bus_a), b = pci_object(t, bus_b);
    if (!a || !b)
        return TSR__LINK_UNKNOWN;
    if (a == b)
        return TSR__LINK_SELF;
    hwloc_obj_t common = NULL;
    for (hwloc_obj_t x = a; x && !common; x = x->parent)
        for (hwloc_obj_t y = b; y; y = y->parent)
            if (x == y) {
                common = x;
                break;
            }
    if (common && common->type == HWLOC_OBJ_BRIDGE) {
        if (common->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
            return TSR__LINK_PHB;
        return bridges_below(a, common) <= 1 && bridges_below(b, common) <= 1 ? TSR__LINK_PIX
                                                                             : TSR__LINK_PXB;
    }
    if (common && common->type == HWLOC_OBJ_PCI_DEVICE)
        return TSR__LINK_PIX; /* functions of one device */
    hwloc_obj_t na = hwloc_get_non_io_ancestor_obj(t->hwloc, a);
    hwloc_obj_t nb = hwloc_get_non_io_ancestor_obj(t->hwloc, b);
    if (na && nb && na->nodeset && nb->nodeset && hwloc_bitmap_weight(na->nodeset) == 1 &&
        hwloc_bitmap_isequal(na->nodeset, nb->nodeset))
        return TSR__LINK_NODE;
    return TSR__LINK_SYS;
}

tsr_status tsr__numa_bind(void *addr, size_t len, int node)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!addr || len == 0 || (uintptr_t)addr % (uintptr_t)page != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "NUMA binding needs a page-aligned range (got %p, %zu bytes)", addr, len);
    if (node < 0 || numa_available() < 0)
        return TSR_OK;
    /* A fixed mask: libnuma's allocating helpers exit the process on
     * failure, which library code must not risk. */
    unsigned long mask[1024 / (sizeof(unsigned long) * CHAR_BIT)] = {0};
    size_t mask_bits = sizeof(mask) * CHAR_BIT;
    if ((size_t)node >= mask_bits || !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "NUMA node %d is not a node this process may allocate on", node);
    if (numa_num_configured_nodes() <= 1)
        return TSR_OK;
    mask[(size_t)node / (sizeof(unsigned long) * CHAR_BIT)] |=
        1ul << ((size_t)node % (sizeof(unsigned long) * CHAR_BIT));
    /* The kernel reads maxnode - 1 bits of the mask. */
    if (mbind(addr, len, MPOL_BIND, mask, mask_bits + 1, 0) != 0)
        return tsr__fail(TSR_ERR_IO, "cannot bind %zu bytes at %p to NUMA node %d: %s", len, addr,
                         node, strerror(errno));
    return TSR_OK;
}
