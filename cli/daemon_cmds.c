/* `tessera devices`: the device registry, as a table, JSON or CSV, its
 * columns described once in device_fields. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon.h"
#include "cli/fields.h"

/* ---- devices ------------------------------------------------------------ */

typedef struct device_row {
    tsr_device_properties p;
    tsr_device_status st; /* read only when a CLI_FIELD_GROUP field is shown */
} device_row;

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

static void get_memory_bytes(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, DEVICE_ROW(row)->memory_bytes);
    if (out->number == 0)
        out->shown = "-";
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
    {"", NULL, 0, 0, NULL, NULL},
};
#define DEVICE_JSON_FIELDS 18

static const char device_table[] =
    "device,daemon_index,type,name,memory_bytes,compute_units,numa_node,pci_bus_id,render_node";
static const char device_data[] =
    "device,type,index,name,vendor,driver_version,api_version,memory_bytes,compute_units,"
    "max_work_group_size,fp16,fp64,host_unified_memory,numa_node,cpuset,pci_bus_id,render_node,"
    "daemon_index";

void cli_print_device_json_fields(const tsr_device_properties *p)
{
    device_row row = {.p = *p};
    cli_fields_json(device_fields, DEVICE_JSON_FIELDS, &row);
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
    }
    if (rc < 0) {
        cli_view_begin(v);
        for (int k = 0; k < count; k++)
            cli_view_row(v, &rows[k], false);
        if (count == 0 && v->format == CLI_FORMAT_TABLE && v->header)
            printf("(no accelerators: tensors can live on cpu and meta only)\n");
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
    "    --query picks the columns, from the FIELDS below, in every format,\n"
    "    as nvidia-smi's --query-gpu does; the memory_* fields and sessions\n"
    "    tell how much of each device the sessions hold now.\n\n" CLI_ESCAPE_HELP "OPTIONS\n"
    "    -a, --all      also list cpu and meta\n"
    "    -j, --json     print an array of objects with the keys device, type,\n"
    "                   index, name, vendor, driver_version, api_version,\n"
    "                   memory_bytes, compute_units, max_work_group_size, fp16,\n"
    "                   fp64, host_unified_memory, numa_node, cpuset,\n"
    "                   pci_bus_id, render_node and daemon_index (the daemon's\n"
    "                   ordinal; null for cpu and meta)\n"
    "    --csv          print the same keys as CSV: a header line, then one\n"
    "                   line per device (empty where unknown)\n" CLI_ROW_OPTIONS_HELP CLI_LOOP_HELP
        CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera devices\n"
    "    tessera devices --json | jq -r '.[].name'\n"
    "    tessera devices -q index,name,memory_total,memory_used --csv --no-header --no-units\n"
    "    tessera devices -q device,memory_used_percent,sessions -l 5\n",
    CLI_ROW_OPTIONS | CLI_LOOP_OPTIONS | CLI_OPT(ALL) | CLI_OPT(SOCKET),
    0,
    0,
    run_devices,
    device_fields};
