/* OpenCL discovery through the real ICD loader and PoCL's CPU device, with
 * its answers checked against clinfo (a separate process, same driver) and
 * against the machine: compute units are the online CPUs. Also: two calls
 * list the same devices in the same order, ordinals follow the rules of
 * discover.h, and the test process itself never loads an OpenCL driver. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opencl/discover.h"
#include "test.h"

#define POCL_PLATFORM "Portable Computing Language"

/* One device's answers from `clinfo --raw`: "[SUFFIX/n]  KEY  value" lines. */
struct clinfo {
    bool found;
    char lines[128][2][TSR__CL_TEXT];
    int count;
};

static void trim_right(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* Reads device 0 of the platform whose name is POCL_PLATFORM. */
static void read_clinfo(struct clinfo *c)
{
    memset(c, 0, sizeof(*c));
    FILE *p = popen("clinfo --raw 2>/dev/null", "r");
    if (!p)
        return;
    char line[4096], suffix[64] = "", prefix[80] = "";
    while (fgets(line, sizeof(line), p)) {
        trim_right(line);
        char tag[80], key[128];
        int value_at = 0;
        if (sscanf(line, " %79s %127s %n", tag, key, &value_at) < 2 || value_at == 0)
            continue;
        const char *value = line + value_at;
        if (!suffix[0] && strcmp(key, "CL_PLATFORM_NAME") == 0 &&
            strcmp(value, POCL_PLATFORM) == 0 && sscanf(tag, "[%63[^/]/*]", suffix) == 1)
            snprintf(prefix, sizeof(prefix), "[%s/0]", suffix);
        if (prefix[0] && strcmp(tag, prefix) == 0 && c->count < 128) {
            snprintf(c->lines[c->count][0], TSR__CL_TEXT, "%s", key);
            snprintf(c->lines[c->count][1], TSR__CL_TEXT, "%s", value);
            c->count++;
            c->found = true;
        }
    }
    pclose(p);
}

/* clinfo's value for key, or NULL when it printed none. */
static const char *clinfo_value(const struct clinfo *c, const char *key)
{
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->lines[i][0], key) == 0)
            return c->lines[i][1];
    return NULL;
}

static unsigned long long clinfo_number(const struct clinfo *c, const char *key)
{
    const char *v = clinfo_value(c, key);
    return v ? strtoull(v, NULL, 0) : 0;
}

static bool clinfo_lists(const struct clinfo *c, const char *extension)
{
    const char *v = clinfo_value(c, "CL_DEVICE_EXTENSIONS");
    for (const char *p = v ? strstr(v, extension) : NULL; p; p = strstr(p + 1, extension))
        if ((p == v || p[-1] == ' ') &&
            (p[strlen(extension)] == '\0' || p[strlen(extension)] == ' '))
            return true;
    return false;
}

static bool process_maps(const char *library)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = strstr(line, library) != NULL;
    if (f)
        fclose(f);
    return found;
}

static void check_against_clinfo(const tsr__cl_device_info *d)
{
    struct clinfo c;
    read_clinfo(&c);
    if (!c.found) {
        printf("clinfo lists no PoCL device: its comparisons are left out\n");
        return;
    }
    ASSERT_STREQ(d->name, clinfo_value(&c, "CL_DEVICE_NAME"));
    ASSERT_STREQ(d->vendor, clinfo_value(&c, "CL_DEVICE_VENDOR"));
    ASSERT_STREQ(d->driver_version, clinfo_value(&c, "CL_DRIVER_VERSION"));
    ASSERT_STREQ(d->opencl_version, clinfo_value(&c, "CL_DEVICE_VERSION"));
    ASSERT_STREQ(d->opencl_c_version, clinfo_value(&c, "CL_DEVICE_OPENCL_C_VERSION"));
    ASSERT_STREQ(clinfo_value(&c, "CL_DEVICE_TYPE"), "CL_DEVICE_TYPE_CPU");
    ASSERT_UEQ(d->compute_units, clinfo_number(&c, "CL_DEVICE_MAX_COMPUTE_UNITS"));
    ASSERT_UEQ(d->global_memory_bytes, clinfo_number(&c, "CL_DEVICE_GLOBAL_MEM_SIZE"));
    ASSERT_UEQ(d->max_alloc_bytes, clinfo_number(&c, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
    ASSERT_UEQ(d->local_memory_bytes, clinfo_number(&c, "CL_DEVICE_LOCAL_MEM_SIZE"));
    ASSERT_UEQ(d->max_work_group_size, clinfo_number(&c, "CL_DEVICE_MAX_WORK_GROUP_SIZE"));
    ASSERT_UEQ(d->max_clock_mhz, clinfo_number(&c, "CL_DEVICE_MAX_CLOCK_FREQUENCY"));
    ASSERT_UEQ(d->mem_base_addr_align_bits, clinfo_number(&c, "CL_DEVICE_MEM_BASE_ADDR_ALIGN"));
    ASSERT_EQ(d->fp16, clinfo_lists(&c, "cl_khr_fp16") ||
                           clinfo_value(&c, "CL_DEVICE_HALF_FP_CONFIG") != NULL);
    ASSERT_EQ(d->has_uuid, clinfo_lists(&c, "cl_khr_device_uuid"));
    ASSERT_EQ(d->pci_bus_id[0] != '\0', clinfo_lists(&c, "cl_khr_pci_bus_info"));
}

/* Devices with a PCI bus id first, by bus id; the rest by platform, then device. */
static void check_ordinals(const tsr__cl_discovery *d)
{
    for (size_t i = 1; i < d->count; i++) {
        const tsr__cl_device_info *a = &d->devices[i - 1], *b = &d->devices[i];
        if (a->pci_bus_id[0] && b->pci_bus_id[0])
            ASSERT_TRUE(strlen(a->pci_bus_id) < strlen(b->pci_bus_id) ||
                        (strlen(a->pci_bus_id) == strlen(b->pci_bus_id) &&
                         strcmp(a->pci_bus_id, b->pci_bus_id) < 0));
        else if (!a->pci_bus_id[0])
            ASSERT_TRUE(!b->pci_bus_id[0] && (a->platform_index < b->platform_index ||
                                              (a->platform_index == b->platform_index &&
                                               a->device_index < b->device_index)));
    }
}

int main(void)
{
    tsr__cl_discovery first, second;
    ASSERT_OK(tsr__cl_discover(60000, &first));
    printf("note: \"%s\"\n", first.note);
    const tsr__cl_device_info *pocl = NULL;
    for (size_t i = 0; i < first.count; i++) {
        const tsr__cl_device_info *d = &first.devices[i];
        printf("device %zu: %s | %s | driver %s | %s | %s | platform %u (%s) device %u | "
               "%llu bytes global, %llu local, %u CUs, %u MHz | bus id \"%s\"\n",
               i, d->name, d->vendor, d->driver_version, d->opencl_version, d->opencl_c_version,
               d->platform_index, d->platform_name, d->device_index,
               (unsigned long long)d->global_memory_bytes,
               (unsigned long long)d->local_memory_bytes, d->compute_units, d->max_clock_mhz,
               d->pci_bus_id);
        if (!pocl && strstr(d->platform_name, POCL_PLATFORM) &&
            d->cl_device_type == CL_DEVICE_TYPE_CPU)
            pocl = d;
    }
    if (!pocl) {
        tsr__cl_discovery_free(&first);
        TEST_SKIP("no PoCL CPU device (%s)", first.note);
    }
    ASSERT_STREQ(first.note, "");
    ASSERT_UEQ(pocl->cl_device_type, CL_DEVICE_TYPE_CPU);
    ASSERT_EQ(pocl->compute_units, sysconf(_SC_NPROCESSORS_ONLN));
    ASSERT_TRUE(pocl->name[0] && pocl->vendor[0] && pocl->driver_version[0]);
    ASSERT_TRUE(strncmp(pocl->opencl_version, "OpenCL ", 7) == 0);
    ASSERT_TRUE(strncmp(pocl->opencl_c_version, "OpenCL C ", 9) == 0);
    ASSERT_TRUE(pocl->global_memory_bytes > 0);
    ASSERT_TRUE(pocl->max_alloc_bytes > 0 && pocl->max_alloc_bytes <= pocl->global_memory_bytes);
    ASSERT_TRUE(pocl->host_unified_memory);
    ASSERT_TRUE(pocl->fp64);
    ASSERT_TRUE(pocl->little_endian);
    ASSERT_TRUE(pocl->available);
    ASSERT_STREQ(pocl->pci_bus_id, "");
    check_against_clinfo(pocl);
    check_ordinals(&first);

    /* Stable ordinals: a second run lists the same devices in the same order. */
    ASSERT_OK(tsr__cl_discover(60000, &second));
    ASSERT_EQ(second.count, first.count);
    for (size_t i = 0; i < first.count && i < second.count; i++) {
        ASSERT_STREQ(second.devices[i].name, first.devices[i].name);
        ASSERT_STREQ(second.devices[i].pci_bus_id, first.devices[i].pci_bus_id);
        ASSERT_EQ(second.devices[i].platform_index, first.devices[i].platform_index);
        ASSERT_EQ(second.devices[i].device_index, first.devices[i].device_index);
    }

    /* The driver ran in the children only, and both were reaped. */
    ASSERT_FALSE(process_maps("libpocl"));
    ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
    ASSERT_EQ(errno, ECHILD);

    tsr__cl_discovery_free(&first);
    tsr__cl_discovery_free(&second);
    ASSERT_TRUE(first.devices == NULL && first.count == 0);
    tsr__cl_discovery_free(&first); /* twice is harmless */
    TEST_DONE();
}
