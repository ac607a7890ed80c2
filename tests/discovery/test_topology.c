/* The machine topology (numa/topology.h) against what the kernel says in
 * sysfs and libnuma: NUMA node count, the CPUs local to a device without a
 * bus id (all online CPUs) and to each PCI device hwloc keeps, an absent
 * device, malformed bus ids, the /dev/dri note, and NUMA binding of a memfd
 * mapping. */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "numa/topology.h"
#include "test.h"

/* The first line of a file without its newline, or "" when unreadable. */
static void read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f && fgets(buf, (int)n, f))
        buf[strcspn(buf, "\n")] = '\0';
    if (f)
        fclose(f);
}

static void check_no_bus_id(const tsr__topology *t)
{
    char online[256];
    read_line("/sys/devices/system/cpu/online", online, sizeof(online));
    const char *ids[] = {NULL, ""};
    for (size_t i = 0; i < 2; i++) {
        tsr__device_location loc;
        ASSERT_OK(tsr__topology_locate(t, ids[i], &loc));
        ASSERT_STREQ(loc.cpuset, online);
        ASSERT_EQ(loc.numa_node, tsr__topology_numa_nodes(t) == 1 ? 0 : -1);
        ASSERT_STREQ(loc.render_node, "");
    }
}

/* Every PCI device the topology places must sit where sysfs says. */
static void check_pci_devices(const tsr__topology *t)
{
    DIR *dir = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    int located = 0;
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        tsr__device_location loc;
        ASSERT_OK(tsr__topology_locate(t, e->d_name, &loc));
        if (loc.numa_node < 0 && loc.cpuset[0] == '\0')
            continue;
        char path[512], cpus[256], node[16];
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", e->d_name);
        read_line(path, cpus, sizeof(cpus));
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", e->d_name);
        read_line(path, node, sizeof(node));
        printf("%s: node %d (sysfs %s), cpus %s (sysfs %s), render node \"%s\"\n", e->d_name,
               loc.numa_node, node, loc.cpuset, cpus, loc.render_node);
        ASSERT_STREQ(loc.cpuset, cpus);
        /* sysfs says -1 where the firmware gives no node; one node is then still node 0. */
        int want_node = atoi(node);
        if (want_node < 0 && tsr__topology_numa_nodes(t) == 1)
            want_node = 0;
        ASSERT_EQ(loc.numa_node, want_node);
        located++;
    }
    if (dir)
        closedir(dir);
    printf("%d PCI devices located\n", located);
}

static void check_bus_ids(const tsr__topology *t)
{
    tsr__device_location loc = {.numa_node = 5};
    /* Well-formed but absent: unknown location, not an error. */
    ASSERT_OK(tsr__topology_locate(t, "0000:ff:1f.7", &loc));
    ASSERT_EQ(loc.numa_node, -1);
    ASSERT_STREQ(loc.cpuset, "");
    ASSERT_STREQ(loc.render_node, "");
    ASSERT_OK(tsr__topology_locate(t, "0000:FF:1F.7", &loc));
    ASSERT_OK(tsr__topology_locate(t, "10000:00:00.0", &loc));

    static const char *const malformed[] = {
        "0000:ff:1f",   "000:00:00.0",   "0000:00:20.0",  "0000:00:00.8", "0000:00:00.0 ",
        "0000:0:00.0",  "0000:000:00.0", "g000:00:00.0",  "0000-00:00.0", "123456789:00:00.0",
        "0000:00:00:0", "0000:00.00.0",  " 0000:00:00.0",
    };
    for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
        loc.numa_node = 5;
        ASSERT_FAIL(tsr__topology_locate(t, malformed[i], &loc), TSR_ERR_INVALID_ARGUMENT, NULL);
        ASSERT_EQ(loc.numa_node, 5);
    }
    ASSERT_FAIL(tsr__topology_locate(t, "0000:00:20.0", &loc), TSR_ERR_INVALID_ARGUMENT,
                "invalid PCI bus id '0000:00:20.0': expected dddd:bb:dd.f in hex");
    ASSERT_FAIL(tsr__topology_locate(NULL, "", &loc), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr__topology_locate(t, "", NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
}

static void check_bind(void)
{
    const size_t len = 2u << 20;
    int fd = memfd_create("tessera-numa-test", MFD_CLOEXEC);
    ASSERT_TRUE(fd >= 0 && ftruncate(fd, (off_t)len) == 0);
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ASSERT_TRUE(p != MAP_FAILED);
    if (p == MAP_FAILED)
        return;
    ASSERT_OK(tsr__numa_bind(p, len, 0));
    ASSERT_OK(tsr__numa_bind(p, len, -1));
    memset(p, 0x3c, len);
    ASSERT_EQ(p[0], 0x3c);
    ASSERT_EQ(p[len - 1], 0x3c);
    if (numa_available() >= 0) {
        /* Bound on a multi-node machine, untouched (a no-op) on one node. */
        int mode = -1;
        ASSERT_EQ(get_mempolicy(&mode, NULL, 0, p, MPOL_F_ADDR), 0);
        ASSERT_EQ(mode, numa_num_configured_nodes() > 1 ? MPOL_BIND : MPOL_DEFAULT);
        int absent = numa_max_node() + 1;
        char want[128];
        snprintf(want, sizeof(want), "NUMA node %d is not a node this process may allocate on",
                 absent);
        ASSERT_FAIL(tsr__numa_bind(p, len, absent), TSR_ERR_INVALID_ARGUMENT, want);
    }
    ASSERT_FAIL(tsr__numa_bind(p + 1, len - 4096, 0), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr__numa_bind(p, 0, 0), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr__numa_bind(NULL, len, 0), TSR_ERR_INVALID_ARGUMENT,
                "NUMA binding needs a page-aligned range (got (nil), 2097152 bytes)");
    munmap(p, len);
    close(fd);
}

int main(void)
{
    struct timespec a, b;
    tsr__topology *t = NULL;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ASSERT_OK(tsr__topology_load(&t));
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!t)
        TEST_DONE();
    printf("loaded in %.1f ms, %d NUMA node(s), note \"%s\"\n",
           (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, tsr__topology_numa_nodes(t),
           tsr__topology_note(t));
    ASSERT_EQ(tsr__topology_numa_nodes(t), numa_available() >= 0 ? numa_max_node() + 1 : 1);
    if (access("/dev/dri", F_OK) != 0)
        ASSERT_STREQ(tsr__topology_note(t), "no /dev/dri: no DRM render nodes on this machine");
    ASSERT_FAIL(tsr__topology_load(NULL), TSR_ERR_INVALID_ARGUMENT, NULL);

    check_no_bus_id(t);
    check_pci_devices(t);
    check_bus_ids(t);
    tsr__topology_free(t);
    tsr__topology_free(NULL);
    check_bind();
    TEST_DONE();
}
