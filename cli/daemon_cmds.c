/* The commands that ask the daemon: `tessera devices` and `tessera ps`.
 * They find it through --socket PATH, else $TESSERA_SOCKET, else the
 * system socket, and see every device whatever TESSERA_VISIBLE_DEVICES
 * says (an administrator's view, as nvidia-smi's). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tessera/tessera.h"

static const char *const daemon_options[] = {"socket", NULL};

/* Parses the shared options and connects. Returns -1 to go on, else the
 * exit status. */
static int connect_daemon(const cli_command *cmd, int argc, char **argv, cli_args *args,
                          bool *all, tsr_client **out)
{
    const char *values[1] = {NULL};
    args->value_names = daemon_options;
    args->values = values;
    /* --all is a flag: take it out before the shared scanner sees it. */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (all && strcmp(argv[i], "--all") == 0)
            *all = true;
        else
            argv[kept++] = argv[i];
    }
    int rc = cli_parse(cmd, kept, argv, args);
    if (rc != EXIT_OK)
        return rc;
    if (args->help) {
        cli_print_manual(stdout, cmd);
        return EXIT_OK;
    }
    if (args->npos)
        return cli_usage_error(cmd, "unexpected argument '%s'", args->pos[0]);
    tsr_client_options o = {.socket_path = values[0], .name = "tessera"};
    unsetenv("TESSERA_VISIBLE_DEVICES");
    if (tsr_client_open(&o, out) != TSR_OK)
        return cli_fail(tsr_last_error());
    return -1;
}

/* "15.6 GiB" */
static const char *human_bytes(uint64_t bytes, char *buf, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, n, "%.1f %s", v, units[u]);
    return buf;
}

/* A JSON string, or null for an empty one. */
static void json_text_or_null(const char *s)
{
    json_string(stdout, s && *s ? s : NULL);
}

static void print_device_json(const tsr_device_properties *p, bool first)
{
    char name[TSR_DEVICE_STR_MAX];
    tsr_device_str(p->device, name, sizeof name);
    printf("%s\n  {\"device\": \"%s\", \"type\": \"%s\", \"index\": ", first ? "" : ",", name,
           tsr_device_type_name(p->device.type));
    if (p->device.index >= 0)
        printf("%d", p->device.index);
    else
        printf("null");
    printf(", \"name\": ");
    json_string(stdout, p->name);
    printf(", \"vendor\": ");
    json_text_or_null(p->vendor);
    printf(", \"driver_version\": ");
    json_text_or_null(p->driver_version);
    printf(", \"api_version\": ");
    json_text_or_null(p->api_version);
    printf(", \"memory_bytes\": %" PRIu64 ", \"compute_units\": %u, \"max_work_group_size\": %" PRIu64,
           p->memory_bytes, p->compute_units, p->max_work_group_size);
    printf(", \"fp16\": %s, \"fp64\": %s, \"host_unified_memory\": %s, \"numa_node\": ",
           p->fp16 ? "true" : "false", p->fp64 ? "true" : "false",
           p->host_unified_memory ? "true" : "false");
    if (p->numa_node >= 0)
        printf("%d", p->numa_node);
    else
        printf("null");
    printf(", \"cpuset\": ");
    json_text_or_null(p->cpuset);
    printf(", \"pci_bus_id\": ");
    json_text_or_null(p->pci_bus_id);
    printf(", \"render_node\": ");
    json_text_or_null(p->render_node);
    printf("}");
}

static void print_device_row(const tsr_device_properties *p)
{
    char name[TSR_DEVICE_STR_MAX], mem[32], numa[16];
    tsr_device_str(p->device, name, sizeof name);
    snprintf(numa, sizeof numa, "%d", p->numa_node);
    printf("%-10s %-7s %-40.40s %10s %4u  %-4s  %-12s %s\n", name,
           tsr_device_type_name(p->device.type), p->name,
           p->memory_bytes ? human_bytes(p->memory_bytes, mem, sizeof mem) : "-",
           p->compute_units, p->numa_node >= 0 ? numa : "-", p->pci_bus_id[0] ? p->pci_bus_id : "-",
           p->render_node[0] ? p->render_node : "-");
}

static int run_devices(int argc, char **argv)
{
    char *pos[8];
    cli_args args = {.pos = pos};
    bool all = false;
    tsr_client *c = NULL;
    if (argc > 8)
        return cli_usage_error(&cli_cmd_devices, "too many arguments");
    int rc = connect_daemon(&cli_cmd_devices, argc, argv, &args, &all, &c);
    if (rc >= 0)
        return rc;
    int32_t n = 0;
    tsr_device_count(c, TSR_DEVICE_OPENCL, &n);
    tsr_device list[2 + 256];
    int count = 0;
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_CPU, -1};
    for (int32_t k = 0; k < n && k < 256; k++)
        list[count++] = (tsr_device){TSR_DEVICE_OPENCL, k};
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_META, -1};
    if (args.json)
        printf("[");
    else
        printf("%-10s %-7s %-40s %10s %4s  %-4s  %-12s %s\n", "DEVICE", "TYPE", "NAME", "MEMORY",
               "CUS", "NUMA", "PCI BUS", "RENDER NODE");
    for (int k = 0; k < count; k++) {
        tsr_device_properties p;
        if (tsr_device_get_properties(c, list[k], &p) != TSR_OK) {
            rc = cli_fail(tsr_last_error());
            break;
        }
        if (args.json)
            print_device_json(&p, k == 0);
        else
            print_device_row(&p);
    }
    if (args.json)
        printf("%s]\n", count ? "\n" : "");
    else if (count == 0)
        printf("(no OpenCL devices: tensors can live on cpu and meta only)\n");
    tsr_client_close(c);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_devices = {
    "devices", "list the devices the daemon serves",
    "SYNOPSIS\n    tessera devices [--all] [--json] [--socket PATH]\n\n"
    "DESCRIPTION\n"
    "    Asks tesserad for its device registry and prints one row per device:\n"
    "    its ordinal (opencl:0, ...), type, name, memory, compute units, NUMA\n"
    "    node, PCI bus id and DRM render node ('-' where unknown). Ordinals are\n"
    "    the daemon's, whatever TESSERA_VISIBLE_DEVICES says, and stay the same\n"
    "    while the daemon runs.\n\n"
    "OPTIONS\n"
    "    --all          also list cpu and meta\n"
    "    --json         print an array of objects with the keys device, type,\n"
    "                   index, name, vendor, driver_version, api_version,\n"
    "                   memory_bytes, compute_units, max_work_group_size, fp16,\n"
    "                   fp64, host_unified_memory, numa_node, cpuset, pci_bus_id\n"
    "                   and render_node (null where unknown)\n"
    "    --socket PATH  the daemon's socket (default: $TESSERA_SOCKET, else\n"
    "                   " TSR_DEFAULT_SOCKET ")\n\n"
    "EXIT STATUS\n"
    "    0 on success; 1 when the daemon cannot be reached; 2 on a usage error.\n\n"
    "EXAMPLES\n"
    "    tessera devices\n"
    "    tessera devices --json | jq -r '.[].name'\n",
    run_devices};

static void print_session_json(const tsr_session_info *s, bool first)
{
    char dev[TSR_DEVICE_STR_MAX];
    tsr_device_str(s->current_device, dev, sizeof dev);
    printf("%s\n  {\"session\": %u, \"pid\": %u, \"uid\": %u, \"gid\": %u, \"command\": ",
           first ? "" : ",", s->session_id, s->pid, s->uid, s->gid);
    json_string(stdout, s->command);
    printf(", \"name\": ");
    json_string(stdout, s->name);
    printf(", \"current_device\": \"%s\", \"threads\": %u, \"requests\": %" PRIu64
           ", \"started_unix_ns\": %" PRIu64 ", \"memory\": {",
           dev, s->threads, s->requests, s->started_unix_ns);
    for (uint32_t k = 0; k < s->usage_count; k++) {
        tsr_device_str(s->usage[k].device, dev, sizeof dev);
        printf("%s\"%s\": %" PRIu64, k ? ", " : "", dev, s->usage[k].allocated);
    }
    printf("}, \"reserved\": {");
    for (uint32_t k = 0; k < s->usage_count; k++) {
        tsr_device_str(s->usage[k].device, dev, sizeof dev);
        printf("%s\"%s\": %" PRIu64, k ? ", " : "", dev, s->usage[k].reserved);
    }
    printf("}}");
}

static void print_session_row(const tsr_session_info *s)
{
    char dev[TSR_DEVICE_STR_MAX], mem[32];
    uint64_t total = 0;
    for (uint32_t k = 0; k < s->usage_count; k++)
        total += s->usage[k].allocated;
    tsr_device_str(s->current_device, dev, sizeof dev);
    printf("%7u %8u %6u  %-16.16s %-10s %10s\n", s->session_id, s->pid, s->uid, s->command, dev,
           human_bytes(total, mem, sizeof mem));
}

static int run_ps(int argc, char **argv)
{
    char *pos[8];
    cli_args args = {.pos = pos};
    tsr_client *c = NULL;
    if (argc > 8)
        return cli_usage_error(&cli_cmd_ps, "too many arguments");
    int rc = connect_daemon(&cli_cmd_ps, argc, argv, &args, NULL, &c);
    if (rc >= 0)
        return rc;
    uint32_t self = tsr_client_session_id(c), after = 0;
    bool first = true, found = true;
    if (args.json)
        printf("[");
    else
        printf("%7s %8s %6s  %-16s %-10s %10s\n", "SESSION", "PID", "UID", "COMMAND", "DEVICE",
               "MEMORY");
    while (found) {
        tsr_session_info s;
        if (tsr_session_list(c, after, &s, &found) != TSR_OK) {
            rc = cli_fail(tsr_last_error());
            break;
        }
        if (!found)
            break;
        after = s.session_id;
        if (s.session_id == self)
            continue; /* this very command */
        if (args.json)
            print_session_json(&s, first);
        else
            print_session_row(&s);
        first = false;
    }
    if (args.json)
        printf("%s]\n", first ? "" : "\n");
    tsr_client_close(c);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_ps = {
    "ps", "list the sessions of the daemon's clients",
    "SYNOPSIS\n    tessera ps [--json] [--socket PATH]\n\n"
    "DESCRIPTION\n"
    "    Lists every client session of tesserad (this command's own excepted):\n"
    "    its number, the client's pid, uid and command, the current device of\n"
    "    its main thread and the device memory it holds in live allocations.\n\n"
    "OPTIONS\n"
    "    --json         print an array of objects with the keys session, pid,\n"
    "                   uid, gid, command, name, current_device, threads,\n"
    "                   requests, started_unix_ns, memory (device -> bytes in\n"
    "                   live allocations) and reserved (device -> bytes held,\n"
    "                   cache included)\n"
    "    --socket PATH  the daemon's socket (default: $TESSERA_SOCKET, else\n"
    "                   " TSR_DEFAULT_SOCKET ")\n\n"
    "EXIT STATUS\n"
    "    0 on success; 1 when the daemon cannot be reached; 2 on a usage error.\n\n"
    "EXAMPLES\n"
    "    tessera ps\n"
    "    tessera ps --json | jq '.[] | select(.uid == 1000) | .memory'\n",
    run_ps};
