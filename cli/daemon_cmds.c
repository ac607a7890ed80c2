/* `tessera devices`: the device registry, as a table, JSON or CSV, its
 * columns described once in device_fields. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/daemon.h"
#include "cli/fields.h"

/* ---- devices ------------------------------------------------------------ */

typedef struct device_row {
    tsr_device_properties p;
    tsr_device_status st; /* read only when a CLI_FIELD_GROUP field is shown */
    /* Busy share over UTIL_SAMPLE_MS, read only when utilization_percent is
     * shown; negative when unknown. */
    double utilization;
} device_row;

/* How long `devices` watches the busy time for utilization_percent: two
 * readings this far apart, as nvidia-smi's utilization.gpu is the share of
 * a recent sample period. */
#define UTIL_SAMPLE_MS 200

#define DEVICE_ROW(row) (&((const device_row *)(row))->p)
#define DEVICE_STATUS(row) (&((const device_row *)(row))->st)

static void get_device(const void *row, cli_cell *out)
{
    cli_cell_text(out, cli_device_name(DEVICE_ROW(row)->device, out->buf, sizeof out->buf));
}

static void get_type(const void *row, cli_cell *out)
{
    cli_cell_text(out, tsr_device_type_name(DEVICE_ROW(row)->device.type));
}

static void get_index(const void *row, cli_cell *out)
{
    if (DEVICE_ROW(row)->device.index >= 0)
        cli_cell_number(out, (uint64_t)DEVICE_ROW(row)->device.index);
}

static void get_name(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->name);
}

static void get_vendor(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->vendor);
}

static void get_driver_version(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->driver_version);
}

static void get_api_version(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->api_version);
}

/* In tables a limit of the caller's is marked '*' (the footnote below the
 * table says what it is). */
static void get_memory_bytes(const void *row, cli_cell *out)
{
    const tsr_device_properties *p = DEVICE_ROW(row);
    cli_cell_bytes(out, p->memory_bytes);
    if (out->number == 0) {
        out->shown = "-";
    } else if (p->memory_limited) {
        char bytes[32];
        snprintf(out->buf, sizeof out->buf, "%s*", cli_bytes(p->memory_bytes, bytes, sizeof bytes));
        out->shown = out->buf;
    }
}

static void get_memory_limited(const void *row, cli_cell *out)
{
    cli_cell_bool(out, DEVICE_ROW(row)->memory_limited);
}

static void get_device_memory_bytes(const void *row, cli_cell *out)
{
    if (DEVICE_ROW(row)->device_memory_bytes)
        cli_cell_bytes(out, DEVICE_ROW(row)->device_memory_bytes);
}

static void get_compute_units(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_ROW(row)->compute_units);
}

static void get_max_work_group_size(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_ROW(row)->max_work_group_size);
}

static void get_fp16(const void *row, cli_cell *out)
{
    cli_cell_bool(out, DEVICE_ROW(row)->fp16);
}

static void get_fp64(const void *row, cli_cell *out)
{
    cli_cell_bool(out, DEVICE_ROW(row)->fp64);
}

static void get_host_unified_memory(const void *row, cli_cell *out)
{
    cli_cell_bool(out, DEVICE_ROW(row)->host_unified_memory);
}

static void get_numa_node(const void *row, cli_cell *out)
{
    if (DEVICE_ROW(row)->numa_node >= 0)
        cli_cell_number(out, (uint64_t)DEVICE_ROW(row)->numa_node);
}

static void get_cpuset(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->cpuset);
}

static void get_pci_bus_id(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->pci_bus_id);
}

static void get_render_node(const void *row, cli_cell *out)
{
    cli_cell_text(out, DEVICE_ROW(row)->render_node);
}

/* A number in JSON and CSV; the daemon's name of the device in tables. */
static void get_daemon_index(const void *row, cli_cell *out)
{
    const tsr_device_properties *p = DEVICE_ROW(row);
    if (!cli_is_accelerator(p->device))
        return;
    cli_cell_number(out, (uint64_t)p->daemon_index);
    out->shown = cli_daemon_name(p, out->buf, sizeof out->buf);
}

static void get_memory_total(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, DEVICE_STATUS(row)->capacity);
}

static void get_memory_used(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, DEVICE_STATUS(row)->reserved);
}

static void get_memory_free(const void *row, cli_cell *out)
{
    const tsr_device_status *st = DEVICE_STATUS(row);
    cli_cell_bytes(out, st->capacity > st->reserved ? st->capacity - st->reserved : 0);
}

static void get_memory_used_percent(const void *row, cli_cell *out)
{
    const tsr_device_status *st = DEVICE_STATUS(row);
    if (st->capacity == 0)
        return;
    out->kind = CLI_CELL_PERCENT;
    out->percent = 100.0 * (double)st->reserved / (double)st->capacity;
}

static void get_memory_allocated(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, DEVICE_STATUS(row)->allocated);
}

static void get_sessions(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->sessions);
}

static void get_utilization(const void *row, cli_cell *out)
{
    double u = ((const device_row *)row)->utilization;
    if (u < 0)
        return;
    out->kind = CLI_CELL_PERCENT;
    out->percent = u;
}

/* Milliseconds in CSV and JSON, seconds in tables. */
static void get_busy_ms(const void *row, cli_cell *out)
{
    const tsr_device_status *st = DEVICE_STATUS(row);
    if (!st->busy_sampled)
        return;
    cli_cell_number(out, st->busy_ns / 1000000u);
    snprintf(out->buf, sizeof out->buf, "%.1fs", (double)st->busy_ns / 1e9);
    out->shown = out->buf;
}

static void get_launches(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->launches);
}

static void get_programs_built(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->programs_built);
}

static void get_programs_loaded(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->programs_loaded);
}

static void get_kernel_workers(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->kernel_workers);
}

static void get_user_programs(const void *row, cli_cell *out)
{
    cli_cell_number(out, DEVICE_STATUS(row)->user_programs);
}

#define RIGHT CLI_FIELD_RIGHT
#define LIVE CLI_FIELD_GROUP /* from the device's status */

/* The first DEVICE_JSON_FIELDS are the keys of --json and --csv, and of
 * `info --json`, in order. */
static const cli_field device_fields[] = {
    {"device", "DEVICE", 10, 0, "opencl:0, cpu, meta: as a client program opened now names it",
     get_device},
    {"type", "TYPE", 7, 0, "opencl, cpu or meta", get_type},
    {"index", "INDEX", 5, RIGHT, "the ordinal in that name; null for cpu and meta", get_index},
    {"name", "NAME", 40, 0, "the device's name, as its driver reports it", get_name},
    {"vendor", "VENDOR", 20, 0, "its vendor, as its driver reports it", get_vendor},
    {"driver_version", "DRIVER", 16, 0, "the driver's version", get_driver_version},
    {"api_version", "API", 16, 0, "the version of the API the driver offers (OpenCL)",
     get_api_version},
    {"memory_bytes", "MEMORY", 10, RIGHT,
     "what allocations of a session may use: what the daemon lends, or the session's limit "
     "when less",
     get_memory_bytes},
    {"compute_units", "CUS", 4, RIGHT, "compute units", get_compute_units},
    {"max_work_group_size", "WG SIZE", 7, RIGHT, "the largest work-group", get_max_work_group_size},
    {"fp16", "FP16", 4, 0, "whether it computes in half precision", get_fp16},
    {"fp64", "FP64", 4, 0, "whether it computes in double precision", get_fp64},
    {"host_unified_memory", "UNIFIED", 7, 0,
     "whether the host addresses its memory directly (zero copy)", get_host_unified_memory},
    {"numa_node", "NUMA", 4, RIGHT, "the NUMA node local to it; null when unknown", get_numa_node},
    {"cpuset", "CPUS", 12, 0, "the CPUs local to it, as a Linux cpu list (0-3,8)", get_cpuset},
    {"pci_bus_id", "PCI BUS", 12, 0, "its PCI address, 0000:01:00.0", get_pci_bus_id},
    {"render_node", "RENDER NODE", 18, 0, "its DRM render node, /dev/dri/renderD128",
     get_render_node},
    {"daemon_index", "DAEMON", 9, 0,
     "the daemon's own ordinal of an accelerator (tables: its name); null for cpu and meta",
     get_daemon_index},
    {"memory_limited", "LIMITED", 7, 0,
     "whether memory_bytes is a memory limit of yours (memory_limit.uid, .group or .session of "
     "the daemon's configuration), below what the daemon lends of the device; tables mark such "
     "a value '*'",
     get_memory_limited},
    {"device_memory_bytes", "DEVICE MEMORY", 13, RIGHT,
     "with memory_limited, what the daemon lends all sessions of the device: shown to root and "
     "the tessera-admin group, null for others",
     get_device_memory_bytes},
    {"memory_total", "MEMORY TOTAL", 12, RIGHT | LIVE,
     "bytes the daemon lends all sessions on the device (info's capacity_bytes)", get_memory_total},
    {"memory_used", "MEMORY USED", 11, RIGHT | LIVE,
     "bytes sessions hold in segments now, cache included (reserved_bytes)", get_memory_used},
    {"memory_free", "MEMORY FREE", 11, RIGHT | LIVE, "memory_total less memory_used",
     get_memory_free},
    {"memory_used_percent", "USED %", 7, RIGHT | LIVE,
     "memory_used as a share of memory_total, 0 to 100; null when the total is 0",
     get_memory_used_percent},
    {"memory_allocated", "ALLOCATED", 10, RIGHT | LIVE,
     "bytes in the sessions' live allocations (allocated_bytes)", get_memory_allocated},
    {"sessions", "SESSIONS", 8, RIGHT | LIVE, "sessions holding memory on the device",
     get_sessions},
    {"utilization_percent", "UTIL %", 7, RIGHT | LIVE,
     "the share of the last 200 ms the device was busy (its queue held a kernel), 0 to 100; "
     "asking for it makes the command take two readings that far apart",
     get_utilization},
    {"busy_ms", "BUSY", 10, RIGHT | LIVE,
     "milliseconds it has been busy since the daemon's first kernel (tables: seconds)",
     get_busy_ms},
    {"launches", "LAUNCHES", 10, RIGHT | LIVE, "kernels queued on it since the daemon started",
     get_launches},
    {"programs_built", "BUILT", 6, RIGHT | LIVE, "kernel programs compiled for it from source",
     get_programs_built},
    {"programs_loaded", "LOADED", 6, RIGHT | LIVE,
     "kernel programs taken from the daemon's disk cache instead", get_programs_loaded},
    {"kernel_workers", "WORKERS", 7, RIGHT | LIVE,
     "user-kernel worker processes running for it (one per user with programs there)",
     get_kernel_workers},
    {"user_programs", "USER PROGRAMS", 13, RIGHT | LIVE,
     "user-kernel programs the sessions hold on it", get_user_programs},
    {"", NULL, 0, 0, NULL, NULL},
};
#define DEVICE_JSON_FIELDS 20

static const char device_table[] =
    "device,daemon_index,type,name,memory_bytes,compute_units,numa_node,pci_bus_id,render_node";
static const char device_data[] =
    "device,type,index,name,vendor,driver_version,api_version,memory_bytes,compute_units,"
    "max_work_group_size,fp16,fp64,host_unified_memory,numa_node,cpuset,pci_bus_id,render_node,"
    "daemon_index,memory_limited,device_memory_bytes";

void cli_print_device_json_fields(const tsr_device_properties *p)
{
    device_row row = {.p = *p};
    cli_fields_json(device_fields, DEVICE_JSON_FIELDS, &row);
}

/* The footnote of a table whose MEMORY shows a limit of the caller's. */
static void print_limit_note(const device_row *rows, int count)
{
    printf("* your memory limit on the device (memory_limit.* of tesserad's configuration)");
    const char *sep = ": the device has ";
    for (int k = 0; k < count; k++) {
        char name[TSR_DEVICE_STR_MAX], bytes[32];
        if (!rows[k].p.memory_limited || !rows[k].p.device_memory_bytes)
            continue;
        printf("%s%s on %s", sep, cli_bytes(rows[k].p.device_memory_bytes, bytes, sizeof bytes),
               cli_device_name(rows[k].p.device, name, sizeof name));
        sep = ", ";
    }
    printf("\n");
}

/* Whether the view shows the field named `name`. */
static bool view_shows(const cli_view *v, const char *name)
{
    for (size_t k = 0; k < v->columns; k++)
        if (strcmp(v->fields[v->column[k]].name, name) == 0)
            return true;
    return false;
}

/* A second reading of each accelerator's busy time UTIL_SAMPLE_MS after
 * the first, into each row's utilization. */
static int sample_utilization(tsr_client *c, const tsr_device *list, device_row *rows, int count)
{
    struct timespec pause = {.tv_sec = 0, .tv_nsec = UTIL_SAMPLE_MS * 1000000L};
    nanosleep(&pause, NULL);
    for (int k = 0; k < count; k++) {
        tsr_device on;
        tsr_device_status now;
        rows[k].utilization = -1;
        int rc = cli_daemon_device(c, list[k], &on);
        if (rc >= 0)
            return rc;
        if (tsr_admin_device_status(c, on, &now) != TSR_OK)
            return cli_fail(tsr_last_error());
        const tsr_device_status *then = &rows[k].st;
        if (now.busy_sampled && now.now_ns > then->now_ns && now.busy_ns >= then->busy_ns) {
            double u =
                100.0 * (double)(now.busy_ns - then->busy_ns) / (double)(now.now_ns - then->now_ns);
            rows[k].utilization = u > 100.0 ? 100.0 : u;
        }
        rows[k].st = now;
    }
    return -1;
}

static int devices_round(tsr_client *c, const cli_args *args, void *state)
{
    cli_view *v = state;
    bool all = cli_given(args, CLI_OPT_ALL), live = cli_view_has(v, LIVE);
    int32_t n = cli_accelerator_count();
    tsr_device list[2 + 256];
    int count = 0, rc = -1;
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_CPU, -1};
    for (int32_t k = 0; k < n && k < 256; k++)
        list[count++] = cli_accelerator(k);
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_META, -1};
    /* Everything is read before anything is printed: a round that fails
     * prints no half of itself. */
    device_row *rows = calloc((size_t)count + 1, sizeof *rows);
    if (!rows)
        return cli_fail("out of memory");
    for (int k = 0; rc < 0 && k < count; k++) {
        tsr_device on;
        if (tsr_device_get_properties(c, list[k], &rows[k].p) != TSR_OK)
            rc = cli_fail(tsr_last_error());
        else if (live && (rc = cli_daemon_device(c, list[k], &on)) < 0 &&
                 tsr_admin_device_status(c, on, &rows[k].st) != TSR_OK)
            rc = cli_fail(tsr_last_error());
        rows[k].utilization = -1;
    }
    if (rc < 0 && view_shows(v, "utilization_percent"))
        rc = sample_utilization(c, list, rows, count);
    if (rc < 0) {
        cli_view_begin(v);
        bool limited = false;
        for (int k = 0; k < count; k++) {
            cli_view_row(v, &rows[k], false);
            limited |= rows[k].p.memory_limited;
        }
        if (count == 0 && v->format == CLI_FORMAT_TABLE && v->header)
            printf("(no accelerators: tensors can live on cpu and meta only)\n");
        if (limited && v->format == CLI_FORMAT_TABLE && v->header && view_shows(v, "memory_bytes"))
            print_limit_note(rows, count);
        cli_view_end(v);
    }
    free(rows);
    return rc;
}

static int run_devices(const cli_args *args)
{
    cli_view v;
    int rc = cli_view_init(&v, &cli_cmd_devices, args, device_table, device_data);
    return rc >= 0 ? rc : cli_rounds(args, devices_round, &v);
}

const cli_command cli_cmd_devices = {
    "devices",
    "list the devices the daemon serves",
    "SYNOPSIS\n"
    "    tessera devices [-a] [-j | --csv] [--no-header] [--no-units]\n"
    "                    [-q FIELD,...] [-l SECONDS [-c N]] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Asks tesserad for the devices it shows a client session and prints\n"
    "    one row per device: its ordinal as a client program opened now\n"
    "    numbers it (opencl:0, ...), the daemon's own ordinal of it (DAEMON),\n"
    "    type, name, memory, compute units, NUMA node, PCI bus id and DRM\n"
    "    render node ('-' where unknown). The two ordinals differ when the\n"
    "    daemon's devices.visible picks or reorders devices; a device it hides\n"
    "    is not listed. TESSERA_VISIBLE_DEVICES is ignored. Every tessera\n"
    "    command names devices by the first ordinal. 'tessera info DEVICE'\n"
    "    shows everything known of one device.\n\n"
    "    MEMORY is what your allocations on the device may use. Where the\n"
    "    daemon's configuration limits you below the device's memory\n"
    "    (memory_limit.uid, .group or .session), it is that limit, marked '*'\n"
    "    in tables (memory_limited in CSV and JSON); to root and the\n"
    "    tessera-admin group the footnote and device_memory_bytes also give\n"
    "    what the daemon lends of the device.\n\n"
    "    --query picks the columns, from the FIELDS below, in every format,\n"
    "    as nvidia-smi's --query-gpu does; the memory_* fields and sessions\n"
    "    tell how much of each device the sessions hold now, busy_ms,\n"
    "    launches and programs_* what it has done since the daemon started,\n"
    "    and utilization_percent how busy it is now (the command then takes\n"
    "    two readings 200 ms apart).\n\n" CLI_ESCAPE_HELP "OPTIONS\n"
    "    -a, --all      also list cpu and meta\n"
    "    -j, --json     print an array of objects with the keys device, type,\n"
    "                   index, name, vendor, driver_version, api_version,\n"
    "                   memory_bytes, compute_units, max_work_group_size, fp16,\n"
    "                   fp64, host_unified_memory, numa_node, cpuset,\n"
    "                   pci_bus_id, render_node, daemon_index (the daemon's\n"
    "                   ordinal; null for cpu and meta), memory_limited and\n"
    "                   device_memory_bytes (below)\n"
    "    --csv          print the same keys as CSV: a header line, then one\n"
    "                   line per device (empty where unknown)\n" CLI_ROW_OPTIONS_HELP CLI_LOOP_HELP
        CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera devices\n"
    "    tessera devices --json | jq -r '.[].name'\n"
    "    tessera devices -q index,name,memory_total,memory_used --csv --no-header --no-units\n"
    "    tessera devices -q device,memory_used_percent,sessions -l 5\n"
    "    tessera devices -q device,utilization_percent,busy_ms --csv -l 1\n",
    CLI_ROW_OPTIONS | CLI_LOOP_OPTIONS | CLI_OPT(ALL) | CLI_OPT(SOCKET),
    0,
    0,
    run_devices,
    device_fields};
