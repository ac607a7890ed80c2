/* `tessera info`, `tessera topo` and `tessera stats`: one device in full,
 * the device matrix, and allocator statistics. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon.h"

static const char *const link_names[] = {
    [TSR_LINK_UNKNOWN] = "-", [TSR_LINK_SELF] = "X",  [TSR_LINK_PIX] = "PIX",
    [TSR_LINK_PXB] = "PXB",   [TSR_LINK_PHB] = "PHB", [TSR_LINK_NODE] = "NODE",
    [TSR_LINK_SYS] = "SYS",
};

static const char *link_name(tsr_link l)
{
    return (size_t)l < sizeof link_names / sizeof link_names[0] ? link_names[l] : "?";
}

/* ---- info --------------------------------------------------------------- */

static const char *const kind_names[] = {
    [TSR_DEVICE_KIND_OTHER] = "other",
    [TSR_DEVICE_KIND_CPU] = "cpu",
    [TSR_DEVICE_KIND_GPU] = "gpu",
    [TSR_DEVICE_KIND_ACCELERATOR] = "accelerator",
};

/* The kind of a device a backend serves; NULL for cpu and meta. */
static const char *kind_name(const tsr_device_status *st)
{
    if (!st->backend_name[0])
        return NULL;
    return (size_t)st->kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[st->kind] : "?";
}

static const char *uuid_text(const tsr_device_status *st, char *buf, size_t n)
{
    if (!st->has_uuid)
        return "";
    size_t used = 0;
    for (size_t k = 0; k < 16 && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%02x",
                                 k == 4 || k == 6 || k == 8 || k == 10 ? "-" : "", st->uuid[k]);
    return buf;
}

/* The class of the path from a row's device to the session's accelerator k. */
static tsr_link link_to(const tsr_topology_row *row, int32_t k)
{
    int32_t j = cli_daemon_ordinal(k);
    return j >= 0 && (uint32_t)j < row->count ? row->links[j] : TSR_LINK_UNKNOWN;
}

/* d: the daemon's name of the device. */
static int fetch_links(tsr_client *c, tsr_device d, tsr_topology_row *row)
{
    memset(row, 0, sizeof *row);
    if (!cli_is_accelerator(d))
        return -1;
    return tsr_admin_topology_row(c, d, row) == TSR_OK ? -1 : cli_fail(tsr_last_error());
}

static void print_info_json(const tsr_device_properties *p, const tsr_device_status *st,
                            const tsr_topology_row *row)
{
    char buf[128];
    printf("{");
    cli_print_device_json_fields(p);
    printf(", \"capacity_bytes\": %" PRIu64 ", \"reserved_bytes\": %" PRIu64
           ", \"allocated_bytes\": %" PRIu64 ", \"sessions\": %" PRIu32,
           st->capacity, st->reserved, st->allocated, st->sessions);
    printf(", \"busy_ms\": ");
    if (st->busy_sampled)
        printf("%" PRIu64, st->busy_ns / 1000000u);
    else
        printf("null");
    printf(", \"launches\": %" PRIu64 ", \"programs_built\": %" PRIu64
           ", \"programs_loaded\": %" PRIu64,
           st->launches, st->programs_built, st->programs_loaded);
    printf(", \"programs_pending\": %" PRIu32, st->programs_pending);
    printf(", \"kernel_workers\": %" PRIu32 ", \"user_programs\": %" PRIu32, st->kernel_workers,
           st->user_programs);
    printf(", \"max_alloc_bytes\": %" PRIu64 ", \"local_memory_bytes\": %" PRIu64
           ", \"max_clock_mhz\": %" PRIu32 ", \"mem_base_addr_align_bits\": %" PRIu32,
           st->max_alloc_bytes, st->local_memory_bytes, st->max_clock_mhz,
           st->mem_base_addr_align_bits);
    printf(", \"backend\": ");
    cli_json_text(st->backend_name);
    printf(", \"kind\": ");
    cli_json_text(kind_name(st));
    printf(", \"platform_name\": ");
    cli_json_text(st->platform_name);
    if (st->backend_name[0])
        printf(", \"available\": %s, \"little_endian\": %s", st->available ? "true" : "false",
               st->little_endian ? "true" : "false");
    printf(", \"uuid\": ");
    cli_json_text(uuid_text(st, buf, sizeof buf));
    if (st->backend_name[0]) {
        printf(", ");
        json_string(stdout, st->backend_name);
        printf(": {\"language_version\": ");
        cli_json_text(st->backend.language_version);
        printf(", \"type_bits\": %" PRIu64 ", \"platform_index\": %" PRIu32
               ", \"device_index\": %" PRIu32 "}",
               st->backend.type_bits, st->backend.platform_index, st->backend.device_index);
    }
    printf(", \"links\": {");
    for (int32_t k = 0; row->count && k < cli_accelerator_count(); k++)
        printf("%s\"%s\": \"%s\"", k ? ", " : "", cli_accelerator_name(k, buf, sizeof buf),
               link_name(link_to(row, k)));
    printf("}}\n");
}

static void kv(const char *key, const char *value)
{
    printf("  %-26s ", key);
    cli_table_text(stdout, value && *value ? value : "-", -1, false);
    putchar('\n');
}

/* `live`: a count of what is in use now, where 0 is a value, not "unknown". */
static void kv_bytes(const char *key, uint64_t bytes, bool live)
{
    char human[32], text[64];
    snprintf(text, sizeof text, "%s (%" PRIu64 " bytes)", cli_bytes(bytes, human, sizeof human),
             bytes);
    kv(key, bytes || live ? text : "-");
}

static void kv_number(const char *key, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    kv(key, text);
}

/* The backend's own details, under a heading of its name. */
static void print_backend_text(const tsr_device_status *st)
{
    char text[32];
    if (!st->backend_name[0])
        return;
    printf("  ");
    cli_table_text(stdout, st->backend_name, -1, false);
    putchar('\n');
    kv("  language version", st->backend.language_version);
    snprintf(text, sizeof text, "0x%" PRIx64, st->backend.type_bits);
    kv("  type bits", text);
    kv_number("  platform index", st->backend.platform_index);
    kv_number("  device index", st->backend.device_index);
}

static void print_info_text(const tsr_device_properties *p, const tsr_device_status *st,
                            const tsr_topology_row *row)
{
    char buf[256], name[TSR_DEVICE_STR_MAX];
    printf("%s\n", cli_device_name(p->device, name, sizeof name));
    kv("name", p->name);
    kv("type", tsr_device_type_name(p->device.type));
    if (cli_is_accelerator(p->device))
        kv("daemon's ordinal", cli_daemon_name(p, name, sizeof name));
    kv("vendor", p->vendor);
    kv("driver version", p->driver_version);
    kv("api version", p->api_version);
    kv("backend", st->backend_name);
    kv("kind", kind_name(st));
    kv("platform", st->platform_name);
    kv("uuid", uuid_text(st, buf, sizeof buf));
    kv_bytes("memory", p->memory_bytes, false);
    kv_bytes("largest allocation", st->max_alloc_bytes, false);
    kv_bytes("local memory", st->local_memory_bytes, false);
    kv_number("compute units", p->compute_units);
    kv_number("max clock (MHz)", st->max_clock_mhz);
    kv_number("max work-group size", p->max_work_group_size);
    kv("float16", p->fp16 ? "yes" : "no");
    kv("float64", p->fp64 ? "yes" : "no");
    kv("host-unified memory",
       p->host_unified_memory ? "yes (zero copy)" : "no (kernels copy their operands in and out)");
    snprintf(buf, sizeof buf, "%d", p->numa_node);
    kv("NUMA node", p->numa_node >= 0 ? buf : NULL);
    kv("CPU affinity", p->cpuset);
    kv("PCI bus id", p->pci_bus_id);
    kv("DRM render node", p->render_node);
    if (!cli_is_accelerator(p->device))
        return;
    kv_bytes("lent to sessions", st->capacity, false);
    kv_bytes("reserved by sessions", st->reserved, true);
    kv_bytes("allocated by sessions", st->allocated, true);
    kv_number("sessions holding memory", st->sessions);
    if (st->busy_sampled) {
        snprintf(buf, sizeof buf, "%.3f s since the daemon's first kernel",
                 (double)st->busy_ns / 1e9);
        kv("busy", buf);
    }
    kv_number("kernels launched", st->launches);
    snprintf(buf, sizeof buf,
             "%" PRIu64 " compiled, %" PRIu64 " from the disk cache, %" PRIu32 " being made",
             st->programs_built, st->programs_loaded, st->programs_pending);
    kv("programs", buf);
    kv_number("user-kernel workers", st->kernel_workers);
    kv_number("user programs held", st->user_programs);
    size_t used = 0;
    buf[0] = '\0';
    for (int32_t k = 0; row->count && k < cli_accelerator_count() && used < sizeof buf; k++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s %s", k ? ", " : "",
                                 cli_accelerator_name(k, name, sizeof name),
                                 link_name(link_to(row, k)));
    kv("links (tessera topo)", buf);
    print_backend_text(st);
}

static int run_info(const cli_args *args)
{
    if (args->npos != 1)
        return cli_usage_error(&cli_cmd_info, "which device? e.g. 'tessera info opencl:0'");
    tsr_client *c = NULL;
    int rc = cli_connect(args, &c);
    if (rc >= 0)
        return rc;
    tsr_device d = {TSR_DEVICE_CPU, -1}, on = d; /* as the session and the daemon name it */
    rc = cli_device_arg(&cli_cmd_info, args->pos[0], &d);
    if (rc < 0)
        rc = cli_daemon_device(c, d, &on);
    tsr_device_properties p;
    tsr_device_status st;
    tsr_topology_row row;
    if (rc < 0 && (tsr_device_get_properties(c, d, &p) != TSR_OK ||
                   tsr_admin_device_status(c, on, &st) != TSR_OK))
        rc = cli_fail(tsr_last_error());
    if (rc < 0)
        rc = fetch_links(c, on, &row);
    if (rc < 0) {
        if (cli_given(args, CLI_OPT_JSON))
            print_info_json(&p, &st, &row);
        else
            print_info_text(&p, &st, &row);
    }
    tsr_client_close(c);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_info = {
    "info",
    "everything the daemon knows of one device",
    "SYNOPSIS\n    tessera info DEVICE [-j] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Prints every property tesserad knows of DEVICE: what the backend\n"
    "    serving it reports (name, vendor, driver and API versions, the\n"
    "    backend's name, the kind of processor: cpu, gpu, accelerator or\n"
    "    other, platform, UUID, memory, largest allocation, local memory,\n"
    "    compute units, clock, work-group size, float16 and float64 support,\n"
    "    whether the host addresses its memory directly), where it sits (NUMA\n"
    "    node, local CPUs, PCI bus id, DRM render node, links to the other\n"
    "    devices), what sessions hold on it now, how long it has been busy\n"
    "    (its queue held a kernel) and what it ran and built since the daemon\n"
    "    started, and last, under a heading of\n"
    "    the backend's name, what only that backend has (for opencl: the\n"
    "    OpenCL C version, the device type bits and the positions of the\n"
    "    platform and the device in OpenCL's enumeration). DEVICE is opencl:N\n"
    "    (or just N), cpu or meta, numbered as 'tessera devices' lists\n"
    "    devices: as a client program opened now numbers them. The daemon's\n"
    "    own ordinal of the device is shown too; it differs when the daemon's\n"
    "    devices.visible picks or reorders devices.\n\n" CLI_ESCAPE_HELP "OPTIONS\n"
    "    -j, --json     print one object with the keys of 'tessera devices\n"
    "                   --json' (daemon_index among them) and capacity_bytes,\n"
    "                   reserved_bytes, allocated_bytes, sessions, busy_ms\n"
    "                   (null for cpu and meta), launches, programs_built,\n"
    "                   programs_loaded, programs_pending (programs asked\n"
    "                   for and still being built or loaded; launches run\n"
    "                   on the generic programs meanwhile), kernel_workers,\n"
    "                   user_programs,\n"
    "                   max_alloc_bytes, local_memory_bytes, max_clock_mhz,\n"
    "                   mem_base_addr_align_bits, backend, kind,\n"
    "                   platform_name, available, little_endian, uuid, an\n"
    "                   object named after the backend with its own keys\n"
    "                   (opencl: language_version, type_bits, platform_index,\n"
    "                   device_index), and links (opencl:N -> link class, as\n"
    "                   'tessera topo' names them, for the devices 'tessera\n"
    "                   devices' lists); backend and kind are null for cpu and\n"
    "                   meta, which lack available, little_endian and the\n"
    "                   backend's object\n" CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera info opencl:0\n"
    "    tessera info 0 --json | jq .max_alloc_bytes\n",
    CLI_OPT(JSON) | CLI_OPT(SOCKET),
    0,
    1,
    run_info,
    NULL};

/* ---- topo --------------------------------------------------------------- */

static int run_topo(const cli_args *args)
{
    tsr_client *c = NULL;
    int rc = cli_connect(args, &c);
    if (rc >= 0)
        return rc;
    int32_t n = cli_accelerator_count();
    if (n > TSR_TOPOLOGY_DEVICES)
        n = TSR_TOPOLOGY_DEVICES;
    tsr_topology_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    tsr_device_properties *props = calloc((size_t)(n ? n : 1), sizeof *props);
    if (!rows || !props)
        rc = cli_fail("out of memory");
    for (int32_t k = 0; rc < 0 && k < n; k++) {
        tsr_device d = cli_accelerator(k), on = cli_accelerator(cli_daemon_ordinal(k));
        if (tsr_admin_topology_row(c, on, &rows[k]) != TSR_OK ||
            tsr_device_get_properties(c, d, &props[k]) != TSR_OK)
            rc = cli_fail(tsr_last_error());
    }
    tsr_client_close(c);
    char name[TSR_DEVICE_STR_MAX];
    if (rc < 0 && cli_given(args, CLI_OPT_JSON)) {
        printf("{\"numa_nodes\": %" PRIu32 ", \"devices\": [", n ? rows[0].numa_nodes : 0);
        for (int32_t k = 0; k < n; k++) {
            printf("%s\n  {\"device\": \"%s\", \"daemon_index\": %d, \"cpu_affinity\": ",
                   k ? "," : "", cli_accelerator_name(k, name, sizeof name), props[k].daemon_index);
            cli_json_text(props[k].cpuset);
            printf(", \"numa_node\": ");
            if (props[k].numa_node >= 0)
                printf("%d", props[k].numa_node);
            else
                printf("null");
            printf(", \"links\": {");
            for (int32_t j = 0; j < n; j++)
                printf("%s\"%s\": \"%s\"", j ? ", " : "",
                       cli_accelerator_name(j, name, sizeof name), link_name(link_to(&rows[k], j)));
            printf("}}");
        }
        printf("%s]}\n", n ? "\n" : "");
    } else if (rc < 0) {
        printf("%-10s", "");
        for (int32_t k = 0; k < n; k++)
            printf(" %-9s", cli_accelerator_name(k, name, sizeof name));
        printf("  %-16s %s\n", "CPU AFFINITY", "NUMA AFFINITY");
        for (int32_t k = 0; k < n; k++) {
            printf("%-10s", cli_accelerator_name(k, name, sizeof name));
            for (int32_t j = 0; j < n; j++)
                printf(" %-9s", link_name(link_to(&rows[k], j)));
            char numa[16];
            snprintf(numa, sizeof numa, "%d", props[k].numa_node);
            printf("  %-16s %s\n", props[k].cpuset[0] ? props[k].cpuset : "-",
                   props[k].numa_node >= 0 ? numa : "-");
        }
        if (n == 0)
            printf("(no accelerators)\n");
        printf("\nLegend:\n"
               "  X    = self\n"
               "  PIX  = through at most one PCI bridge (switch) on each side\n"
               "  PXB  = through several PCI bridges, not the host bridge\n"
               "  PHB  = through a PCI host bridge (typically the CPU)\n"
               "  NODE = between PCI host bridges of one NUMA node\n"
               "  SYS  = between NUMA nodes (the interconnect between them)\n"
               "  -    = unknown: a device with no PCI location (a CPU device)\n");
    }
    free(rows);
    free(props);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_topo = {
    "topo",
    "the device matrix: how devices connect, and their CPUs",
    "SYNOPSIS\n    tessera topo [-j] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Prints, as 'nvidia-smi topo -m' does, a matrix of the accelerators\n"
    "    'tessera devices' lists, named as it names them, with the class of\n"
    "    the path between each pair, read from hwloc's PCI tree by the daemon,\n"
    "    and each device's CPU and NUMA affinity: the CPUs and the NUMA node\n"
    "    local to it. Classes, from nearest to farthest: X (itself), PIX (at\n"
    "    most one PCI bridge on each side, as under one PCIe switch), PXB\n"
    "    (several bridges), PHB (through a host bridge), NODE (between host\n"
    "    bridges of one NUMA node), SYS (between NUMA nodes); '-' where a\n"
    "    device has no PCI location, as one computing on the host's CPUs.\n\n"
    "OPTIONS\n"
    "    -j, --json     print {\"numa_nodes\": N, \"devices\": [...]}, one object\n"
    "                   per device with the keys device, daemon_index (the\n"
    "                   daemon's ordinal), cpu_affinity (a Linux cpu list),\n"
    "                   numa_node (null when unknown or several) and links\n"
    "                   (opencl:N -> class)\n" CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera topo\n"
    "    tessera topo --json | jq '.devices[0].links'\n",
    CLI_OPT(JSON) | CLI_OPT(SOCKET),
    0,
    0,
    run_topo,
    NULL};

/* ---- stats -------------------------------------------------------------- */

/* The entries, as PyTorch's memory_stats() names them (the last two are
 * Tessera's own). */
static const struct {
    const char *name;
    size_t offset;
    bool bytes;
} stat_rows[] = {
#define ROW(name, field, bytes)                           \
    {                                                     \
        name, offsetof(tsr_allocator_stats, field), bytes \
    }
    ROW("allocated_bytes.all.current", allocated, true),
    ROW("allocated_bytes.all.peak", peak_allocated, true),
    ROW("reserved_bytes.all.current", reserved, true),
    ROW("reserved_bytes.all.peak", peak_reserved, true),
    ROW("active_bytes.all.current", active, true),
    ROW("active_bytes.all.peak", peak_active, true),
    ROW("inactive_split_bytes.all.current", inactive_split, true),
    ROW("inactive_split.all.current", inactive_split_blocks, false),
    ROW("requested_bytes.all.current", requested, true),
    ROW("allocation.all.current", live_blocks, false),
    ROW("allocation.all.allocated", allocations, false),
    ROW("allocation.all.freed", frees, false),
    ROW("segment.all.current", segments, false),
    ROW("num_device_alloc", segments_created, false),
    ROW("num_device_free", segments_released, false),
    ROW("num_ooms", ooms, false),
    ROW("cache_hits", cache_hits, false),
    ROW("limit_bytes", limit, true),
#undef ROW
};
#define STAT_ROWS (sizeof stat_rows / sizeof stat_rows[0])

static uint64_t stat_value(const tsr_allocator_stats *st, size_t row)
{
    uint64_t v;
    memcpy(&v, (const char *)st + stat_rows[row].offset, sizeof v);
    return v;
}

/* A run of stats: what it asks for, and the rounds printed so far. */
typedef struct stats_run {
    const char *device_text; /* --device */
    uint32_t want;           /* SESSION; 0 for all */
    bool json, lines, units;
    unsigned long rounds;
} stats_run;

typedef struct stats_entry {
    const tsr_process_info *s;
    tsr_device d; /* as the daemon names it */
    tsr_allocator_stats st;
} stats_entry;

static void print_stats(const stats_run *r, const stats_entry *e, bool first)
{
    char dev[TSR_DEVICE_STR_MAX], human[32], pid[16] = "-";
    const tsr_process_info *s = e->s;
    cli_shown_device(e->d, dev, sizeof dev);
    if (s->visible && s->pid_known && s->pid)
        snprintf(pid, sizeof pid, "%" PRIu32, s->pid);
    if (r->json) {
        printf("%s%s{\"session\": %" PRIu32 ", \"pid\": %s, \"command\": ", first ? "" : ",",
               r->lines ? (first ? "" : " ") : "\n  ", s->session_id,
               strcmp(pid, "-") ? pid : "null");
        cli_json_text(s->command);
        printf(", \"device\": \"%s\", \"stats\": {", dev);
        for (size_t k = 0; k < STAT_ROWS; k++)
            printf("%s\"%s\": %" PRIu64, k ? ", " : "", stat_rows[k].name, stat_value(&e->st, k));
        printf("}, \"programs\": %" PRIu32 ", \"worker\": %s, \"worker_pid\": ", e->st.programs,
               e->st.worker_running ? "true" : "false");
        if (e->st.worker_pid_known)
            printf("%" PRIu32 "}", e->st.worker_pid);
        else
            printf("null}");
        return;
    }
    printf("%ssession %" PRIu32 " (pid %s, ", first ? "" : "\n", s->session_id, pid);
    cli_table_text(stdout, s->visible ? s->command : "other user", -1, false);
    printf(") on %s\n", dev);
    for (size_t k = 0; k < STAT_ROWS; k++) {
        uint64_t v = stat_value(&e->st, k);
        bool human_too = stat_rows[k].bytes && r->units;
        printf("  %-34s %20" PRIu64 "%s%s\n", stat_rows[k].name, v, human_too ? "  " : "",
               human_too ? cli_bytes(v, human, sizeof human) : "");
    }
    printf("  %-34s %20" PRIu32 "\n", "programs", e->st.programs);
    if (e->st.worker_pid_known)
        printf("  %-34s %20" PRIu32 "\n", "worker_pid", e->st.worker_pid);
    else
        printf("  %-34s %20s\n", "worker_pid", e->st.worker_running ? "(not shown)" : "-");
}

/* Reads every entry of the round, then prints them: a round that fails
 * prints no half of itself. */
static int stats_round(tsr_client *c, const cli_args *args, void *state)
{
    stats_run *r = state;
    (void)args;
    tsr_device only = {TSR_DEVICE_CPU, -1}; /* --device's, as the daemon names it */
    int rc = -1;
    if (r->device_text && (rc = cli_device_arg(&cli_cmd_stats, r->device_text, &only)) < 0)
        rc = cli_daemon_device(c, only, &only);
    tsr_process_info *list = NULL;
    stats_entry *entries = NULL;
    size_t n = 0, shown = 0;
    if (rc < 0)
        rc = cli_list_sessions(c, &list, &n);
    if (rc < 0 && !(entries = calloc(n * TSR_SESSION_DEVICES + 1, sizeof *entries)))
        rc = cli_fail("out of memory");
    for (size_t k = 0; rc < 0 && k < n; k++) {
        const tsr_process_info *s = &list[k];
        if (r->want && s->session_id != r->want)
            continue;
        uint32_t count = r->device_text ? 1 : s->usage_count;
        for (uint32_t u = 0; rc < 0 && u < count; u++) {
            stats_entry *e = &entries[shown];
            *e = (stats_entry){.s = s, .d = r->device_text ? only : s->usage[u].device};
            if (tsr_admin_session_stats(c, s->session_id, e->d, &e->st) != TSR_OK)
                rc = cli_fail(tsr_last_error());
            else
                shown++;
        }
    }
    if (rc < 0 && !r->json && r->want && shown == 0)
        rc = cli_fail("no such session, or it holds no device memory (see 'tessera ps')");
    if (rc < 0) {
        if (r->json)
            printf("[");
        else if (r->rounds > 0)
            putchar('\n');
        for (size_t k = 0; k < shown; k++)
            print_stats(r, &entries[k], k == 0);
        if (r->json)
            printf("%s]\n", shown && !r->lines ? "\n" : "");
        else if (shown == 0)
            printf("(no session holds device memory)\n");
        r->rounds++;
    }
    free(entries);
    free(list);
    return rc;
}

static int run_stats(const cli_args *args)
{
    stats_run r = {.device_text = args->value[CLI_OPT_DEVICE],
                   .json = cli_given(args, CLI_OPT_JSON),
                   .lines = cli_given(args, CLI_OPT_LOOP),
                   .units = !cli_given(args, CLI_OPT_NO_UNITS)};
    if (args->npos == 1) {
        char *end = NULL;
        unsigned long v = strtoul(args->pos[0], &end, 10);
        if (!*args->pos[0] || *end || v == 0 || v > UINT32_MAX)
            return cli_usage_error(&cli_cmd_stats, "SESSION is a session number, not '%s'",
                                   args->pos[0]);
        r.want = (uint32_t)v;
    }
    /* A device's name is checked before connecting; a bare ordinal needs
     * the daemon's accelerator type. */
    tsr_device d;
    const char *t = r.device_text;
    if (t && (!*t || t[strspn(t, "0123456789")]) && tsr_device_parse(t, &d) != TSR_OK)
        return cli_usage_error(&cli_cmd_stats, "%s", tsr_last_error());
    return cli_rounds(args, stats_round, &r);
}

const cli_command cli_cmd_stats = {
    "stats",
    "allocator statistics per session and device",
    "SYNOPSIS\n    tessera stats [SESSION] [-d DEVICE] [-j] [--no-units] [-l SECONDS [-c N]]\n"
    "                  [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Prints the daemon's allocator statistics of each session on each device\n"
    "    it holds memory on (of session SESSION only, a number from 'tessera\n"
    "    ps', when given), under the names PyTorch's torch.cuda.memory_stats()\n"
    "    gives them: allocated_bytes, reserved_bytes, active_bytes (current and\n"
    "    peak), inactive_split_bytes and inactive_split (free memory, and its\n"
    "    blocks, in segments that also hold live allocations: what empty_cache\n"
    "    cannot give back), requested_bytes, allocation (live, allocated and\n"
    "    freed counts), segment, num_device_alloc and num_device_free (segments\n"
    "    made and released), num_ooms; plus cache_hits (allocations served\n"
    "    without a new segment) and limit_bytes (the most the session may\n"
    "    reserve on the device). Counts run from the session's first allocation\n"
    "    on the device. These are the daemon's numbers: blocks a client library\n"
    "    keeps cached for reuse count as allocated here.\n\n"
    "    Then its user kernels there: programs (the programs it holds on the\n"
    "    device) and worker_pid, the pid of the kernel worker of its uid on the\n"
    "    device as this command's pid namespace numbers it: '-' when none runs,\n"
    "    '(not shown)' when it runs but is another user's or outside that\n"
    "    namespace.\n\n" CLI_DEVICE_NAMES CLI_ESCAPE_HELP "OPTIONS\n"
    "    -d, --device DEVICE\n"
    "                   only this device (opencl:N or N, as 'tessera devices'\n"
    "                   lists it), even one the session never allocated on\n"
    "                   (all zero)\n"
    "    -j, --json     print an array of objects with the keys session, pid,\n"
    "                   command, device, stats (name -> number), programs,\n"
    "                   worker (whether its uid's kernel worker runs there)\n"
    "                   and worker_pid (null: none, or not shown)\n"
    "    --no-units     leave out the sizes in KiB, MiB, ... that follow the\n"
    "                   numbers of bytes\n" CLI_LOOP_HELP CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT
    "EXAMPLES\n"
    "    tessera stats\n"
    "    tessera stats 3 --json | jq '.[0].stats[\"reserved_bytes.all.peak\"]'\n"
    "    tessera stats --loop 10 --json >> stats.jsonl\n",
    CLI_OPT(DEVICE) | CLI_OPT(JSON) | CLI_OPT(NO_UNITS) | CLI_LOOP_OPTIONS | CLI_OPT(SOCKET),
    0,
    1,
    run_stats,
    NULL};
