/* `tessera devices` and `tessera ps`: the device registry and the
 * sessions, as tables, JSON or CSV. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon.h"

/* ---- devices ------------------------------------------------------------ */

static const char *const devices_flags[] = {"all", "csv", NULL};

static const char *yes_no(bool b)
{
    return b ? "true" : "false";
}

void cli_print_device_json_fields(const tsr_device_properties *p)
{
    char name[TSR_DEVICE_STR_MAX];
    printf("\"device\": \"%s\", \"type\": \"%s\", \"index\": ",
           cli_device_name(p->device, name, sizeof name), tsr_device_type_name(p->device.type));
    if (p->device.index >= 0)
        printf("%d", p->device.index);
    else
        printf("null");
    printf(", \"name\": ");
    json_string(stdout, p->name);
    printf(", \"vendor\": ");
    cli_json_text(p->vendor);
    printf(", \"driver_version\": ");
    cli_json_text(p->driver_version);
    printf(", \"api_version\": ");
    cli_json_text(p->api_version);
    printf(", \"memory_bytes\": %" PRIu64 ", \"compute_units\": %u, \"max_work_group_size\": %" PRIu64,
           p->memory_bytes, p->compute_units, p->max_work_group_size);
    printf(", \"fp16\": %s, \"fp64\": %s, \"host_unified_memory\": %s, \"numa_node\": ",
           yes_no(p->fp16), yes_no(p->fp64), yes_no(p->host_unified_memory));
    if (p->numa_node >= 0)
        printf("%d", p->numa_node);
    else
        printf("null");
    printf(", \"cpuset\": ");
    cli_json_text(p->cpuset);
    printf(", \"pci_bus_id\": ");
    cli_json_text(p->pci_bus_id);
    printf(", \"render_node\": ");
    cli_json_text(p->render_node);
    printf(", \"daemon_index\": ");
    if (cli_is_accelerator(p->device))
        printf("%d", p->daemon_index);
    else
        printf("null");
}

static void print_device_row(const tsr_device_properties *p)
{
    char name[TSR_DEVICE_STR_MAX], mem[32], numa[16], daemon[TSR_DEVICE_STR_MAX];
    snprintf(numa, sizeof numa, "%d", p->numa_node);
    printf("%-10s %-9s %-7s ", cli_device_name(p->device, name, sizeof name),
           cli_daemon_name(p, daemon, sizeof daemon), tsr_device_type_name(p->device.type));
    cli_table_text(stdout, p->name, 40, true);
    printf(" %10s %4u  %-4s  %-12s %s\n",
           p->memory_bytes ? cli_bytes(p->memory_bytes, mem, sizeof mem) : "-",
           p->compute_units, p->numa_node >= 0 ? numa : "-", p->pci_bus_id[0] ? p->pci_bus_id : "-",
           p->render_node[0] ? p->render_node : "-");
}

static const char *const device_csv_header =
    "device,type,index,name,vendor,driver_version,api_version,memory_bytes,compute_units,"
    "max_work_group_size,fp16,fp64,host_unified_memory,numa_node,cpuset,pci_bus_id,render_node,"
    "daemon_index";

static void print_device_csv(const tsr_device_properties *p)
{
    char name[TSR_DEVICE_STR_MAX];
    printf("%s,%s,", cli_device_name(p->device, name, sizeof name),
           tsr_device_type_name(p->device.type));
    if (p->device.index >= 0)
        printf("%d", p->device.index);
    const char *texts[] = {p->name, p->vendor, p->driver_version, p->api_version};
    for (size_t k = 0; k < 4; k++) {
        putchar(',');
        cli_csv_field(stdout, texts[k]);
    }
    printf(",%" PRIu64 ",%u,%" PRIu64 ",%s,%s,%s,", p->memory_bytes, p->compute_units,
           p->max_work_group_size, yes_no(p->fp16), yes_no(p->fp64),
           yes_no(p->host_unified_memory));
    if (p->numa_node >= 0)
        printf("%d", p->numa_node);
    putchar(',');
    cli_csv_field(stdout, p->cpuset);
    printf(",%s,%s,", p->pci_bus_id, p->render_node);
    if (cli_is_accelerator(p->device))
        printf("%d", p->daemon_index);
    putchar('\n');
}

static int run_devices(int argc, char **argv)
{
    char *pos[8];
    bool flags[2] = {false, false};
    cli_args args = {.pos = pos, .flag_names = devices_flags, .flags = flags};
    tsr_client *c = NULL;
    if (argc > 8)
        return cli_usage_error(&cli_cmd_devices, "too many arguments");
    int rc = cli_connect(&cli_cmd_devices, argc, argv, &args, 0, &c);
    if (rc >= 0)
        return rc;
    bool all = flags[0], csv = flags[1] && !args.json;
    int32_t n = cli_accelerator_count();
    tsr_device list[2 + 256];
    int count = 0;
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_CPU, -1};
    for (int32_t k = 0; k < n && k < 256; k++)
        list[count++] = cli_accelerator(k);
    if (all)
        list[count++] = (tsr_device){TSR_DEVICE_META, -1};
    if (args.json)
        printf("[");
    else if (csv)
        printf("%s\n", device_csv_header);
    else
        printf("%-10s %-9s %-7s %-40s %10s %4s  %-4s  %-12s %s\n", "DEVICE", "DAEMON", "TYPE",
               "NAME", "MEMORY", "CUS", "NUMA", "PCI BUS", "RENDER NODE");
    for (int k = 0; k < count; k++) {
        tsr_device_properties p;
        if (tsr_device_get_properties(c, list[k], &p) != TSR_OK) {
            rc = cli_fail(tsr_last_error());
            break;
        }
        if (args.json) {
            printf("%s\n  {", k ? "," : "");
            cli_print_device_json_fields(&p);
            printf("}");
        } else if (csv) {
            print_device_csv(&p);
        } else {
            print_device_row(&p);
        }
    }
    if (args.json)
        printf("%s]\n", count ? "\n" : "");
    else if (count == 0 && !csv)
        printf("(no accelerators: tensors can live on cpu and meta only)\n");
    tsr_client_close(c);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_devices = {
    "devices", "list the devices the daemon serves",
    "SYNOPSIS\n    tessera devices [--all] [--json | --csv] [--socket PATH]\n\n"
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
    "OPTIONS\n"
    "    --all          also list cpu and meta\n"
    "    --json         print an array of objects with the keys device, type,\n"
    "                   index, name, vendor, driver_version, api_version,\n"
    "                   memory_bytes, compute_units, max_work_group_size, fp16,\n"
    "                   fp64, host_unified_memory, numa_node, cpuset,\n"
    "                   pci_bus_id, render_node and daemon_index (the daemon's\n"
    "                   ordinal; null for cpu and meta)\n"
    "    --csv          print the same keys as CSV: a header line, then one\n"
    "                   line per device (empty where unknown)\n" CLI_SOCKET_HELP "\n"
    CLI_DAEMON_EXIT
    "EXAMPLES\n"
    "    tessera devices\n"
    "    tessera devices --json | jq -r '.[].name'\n",
    run_devices};

/* ---- ps ----------------------------------------------------------------- */

int cli_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count)
{
    tsr_process_info *list = NULL;
    size_t n = 0, cap = 0;
    uint32_t after = 0;
    for (bool found = true; found;) {
        tsr_process_info s;
        if (tsr_admin_session_list(c, after, &s, &found) != TSR_OK) {
            free(list);
            return cli_fail(tsr_last_error());
        }
        if (!found)
            break;
        after = s.session_id;
        if (s.self)
            continue; /* this very command */
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            tsr_process_info *grown = realloc(list, cap * sizeof *grown);
            if (!grown) {
                free(list);
                return cli_fail("out of memory");
            }
            list = grown;
        }
        list[n++] = s;
    }
    *out = list;
    *count = n;
    return -1;
}

/* What the UNIT/CGROUP column shows: the unit, else the cgroup's last part. */
static const char *unit_or_cgroup(const tsr_process_info *s)
{
    if (s->unit[0])
        return s->unit;
    const char *slash = strrchr(s->cgroup, '/');
    return slash && slash[1] ? slash + 1 : "-";
}

/* The STATE column: a session is open until its connection ends, then
 * ending while kernels it launched are still in flight. */
static const char *state_of(const tsr_process_info *s)
{
    return s->ending ? "ending" : "open";
}

static void json_id(uint32_t id, bool shown)
{
    if (shown)
        printf("%" PRIu32, id);
    else
        printf("null");
}

static void json_usage_map(const tsr_process_info *s, size_t field)
{
    char dev[TSR_DEVICE_STR_MAX];
    printf("{");
    for (uint32_t k = 0; k < s->usage_count; k++) {
        const uint64_t *v = (const uint64_t *)((const char *)&s->usage[k] + field);
        printf("%s\"%s\": %" PRIu64, k ? ", " : "",
               cli_shown_device(s->usage[k].device, dev, sizeof dev), *v);
    }
    printf("}");
}

static void print_session_json(const tsr_process_info *s, bool first)
{
    char dev[TSR_DEVICE_STR_MAX], user[64];
    printf("%s\n  {\"session\": %" PRIu32 ", \"visible\": %s, \"pid\": ", first ? "" : ",",
           s->session_id, yes_no(s->visible));
    json_id(s->pid, s->visible && s->pid_known && s->pid);
    printf(", \"uid\": ");
    json_id(s->uid, s->visible);
    printf(", \"gid\": ");
    json_id(s->gid, s->visible);
    printf(", \"user\": ");
    cli_json_text(s->visible ? cli_user_name(s->uid, user, sizeof user) : NULL);
    printf(", \"command\": ");
    cli_json_text(s->command);
    printf(", \"name\": ");
    cli_json_text(s->name);
    printf(", \"unit\": ");
    cli_json_text(s->unit);
    printf(", \"cgroup\": ");
    cli_json_text(s->cgroup);
    printf(", \"pid_namespace\": ");
    if (s->pid_namespace)
        printf("%" PRIu64, s->pid_namespace);
    else
        printf("null");
    printf(", \"current_device\": \"%s\", \"threads\": %" PRIu32 ", \"requests\": %" PRIu64
           ", \"started_unix_ns\": ",
           cli_shown_device(s->current_device, dev, sizeof dev), s->threads, s->requests);
    if (s->visible)
        printf("%" PRIu64, s->started_unix_ns);
    else
        printf("null");
    printf(", \"memory\": ");
    json_usage_map(s, offsetof(tsr_process_usage, allocated));
    printf(", \"reserved\": ");
    json_usage_map(s, offsetof(tsr_process_usage, reserved));
    printf(", \"limit\": ");
    json_usage_map(s, offsetof(tsr_process_usage, limit));
    printf(", \"state\": \"%s\", \"kernels\": %" PRIu32 "}", state_of(s), s->kernels);
}

static void print_session_csv(const tsr_process_info *s)
{
    char dev[TSR_DEVICE_STR_MAX], user[64];
    for (uint32_t k = 0; k == 0 || k < s->usage_count; k++) {
        printf("%" PRIu32 ",", s->session_id);
        if (s->visible && s->pid_known && s->pid)
            printf("%" PRIu32, s->pid);
        putchar(',');
        if (s->visible)
            printf("%" PRIu32, s->uid);
        putchar(',');
        cli_csv_field(stdout, s->visible ? cli_user_name(s->uid, user, sizeof user) : "");
        const char *texts[] = {s->command, s->unit, s->cgroup};
        for (size_t t = 0; t < 3; t++) {
            putchar(',');
            cli_csv_field(stdout, texts[t]);
        }
        printf(",%s,", cli_shown_device(s->current_device, dev, sizeof dev));
        if (k < s->usage_count)
            printf("%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                   cli_shown_device(s->usage[k].device, dev, sizeof dev), s->usage[k].allocated,
                   s->usage[k].reserved, s->usage[k].limit);
        else
            printf(",,,");
        printf(",%s,%" PRIu32 "\n", state_of(s), s->kernels);
    }
}

static void print_session_rows(const tsr_process_info *s)
{
    char pid[16] = "-", user[64] = "-", dev[TSR_DEVICE_STR_MAX], on[TSR_DEVICE_STR_MAX];
    char a[32], r[32], l[32];
    if (s->visible && s->pid_known && s->pid)
        snprintf(pid, sizeof pid, "%" PRIu32, s->pid);
    if (s->visible)
        cli_user_name(s->uid, user, sizeof user);
    printf("%5" PRIu32 " %-6s %7s %-8.8s ", s->session_id, state_of(s), pid, user);
    cli_table_text(stdout, s->visible ? s->command : "(other user)", 15, true);
    putchar(' ');
    cli_table_text(stdout, s->visible ? unit_or_cgroup(s) : "-", 15, true);
    printf(" %-9s %7" PRIu32 " ", cli_shown_device(s->current_device, dev, sizeof dev), s->kernels);
    if (s->usage_count == 0)
        printf("%-9s %10s %9s %9s\n", "-", "-", "-", "-");
    for (uint32_t k = 0; k < s->usage_count; k++) {
        const tsr_process_usage *u = &s->usage[k];
        if (k)
            printf("%80s", "");
        printf("%-9s %10s %9s %9s\n", cli_shown_device(u->device, on, sizeof on),
               cli_bytes(u->allocated, a, sizeof a), cli_bytes(u->reserved, r, sizeof r),
               cli_bytes(u->limit, l, sizeof l));
    }
}

static const char *const ps_flags[] = {"csv", NULL};

static int run_ps(int argc, char **argv)
{
    char *pos[8];
    bool csv = false;
    cli_args args = {.pos = pos, .flag_names = ps_flags, .flags = &csv};
    tsr_client *c = NULL;
    if (argc > 8)
        return cli_usage_error(&cli_cmd_ps, "too many arguments");
    int rc = cli_connect(&cli_cmd_ps, argc, argv, &args, 0, &c);
    if (rc >= 0)
        return rc;
    tsr_process_info *list = NULL;
    size_t n = 0;
    rc = cli_list_sessions(c, &list, &n);
    tsr_client_close(c);
    if (rc >= 0)
        return rc;
    if (args.json) {
        printf("[");
        for (size_t k = 0; k < n; k++)
            print_session_json(&list[k], k == 0);
        printf("%s]\n", n ? "\n" : "");
    } else if (csv) {
        printf("session,pid,uid,user,command,unit,cgroup,current_device,device,allocated,reserved,"
               "limit,state,kernels\n");
        for (size_t k = 0; k < n; k++)
            print_session_csv(&list[k]);
    } else {
        printf("%5s %-6s %7s %-8s %-15s %-15s %-9s %7s %-9s %10s %9s %9s\n", "SID", "STATE", "PID",
               "USER", "COMMAND", "UNIT/CGROUP", "CURRENT", "KERNELS", "MEMORY ON", "ALLOCATED",
               "RESERVED", "LIMIT");
        for (size_t k = 0; k < n; k++)
            print_session_rows(&list[k]);
    }
    free(list);
    return EXIT_OK;
}

const cli_command cli_cmd_ps = {
    "ps", "list the sessions of the daemon's clients",
    "SYNOPSIS\n    tessera ps [--json | --csv] [--socket PATH]\n\n"
    "DESCRIPTION\n"
    "    Lists the client sessions of tesserad (this command's own excepted), one\n"
    "    row per session: its number (SID), its state, the client's pid as this\n"
    "    command's pid namespace numbers it ('-' when the process lives outside\n"
    "    it, as a host process seen from a container), its user, command,\n"
    "    systemd unit (else the last part of its cgroup), the current device of\n"
    "    its main thread, its kernels in flight (launched, not yet finished)\n"
    "    and, per device it holds memory on, the bytes in live allocations, the\n"
    "    bytes reserved (cache included) and the most it may reserve there.\n\n"
    "    STATE is 'open' while the client is connected, and 'ending' once the\n"
    "    client has exited or closed its connection while kernels it launched\n"
    "    still run: the session then keeps its memory, and its row, until the\n"
    "    last of them finishes (kernels the device had not started yet are\n"
    "    cancelled). An ending session holds no place under sessions.max or\n"
    "    sessions.max_per_uid, but its memory still counts against every\n"
    "    memory limit. Its pid, unit and cgroup are as they were when its\n"
    "    connection ended.\n\n"
    "    The daemon decides what each caller sees, from the credentials of its\n"
    "    connection: root and members of the group tessera-admin see every\n"
    "    session; anyone else sees its own sessions in full and only the\n"
    "    numbers (memory, device) of other users' sessions, whose pid, user and\n"
    "    command read '-' and '(other user)'.\n\n" CLI_DEVICE_NAMES
    "OPTIONS\n"
    "    --json         print an array of objects with the keys session,\n"
    "                   visible, pid, uid, gid, user, command, name, unit,\n"
    "                   cgroup, pid_namespace, current_device, threads,\n"
    "                   requests, started_unix_ns, memory (device -> bytes in\n"
    "                   live allocations), reserved (device -> bytes held,\n"
    "                   cache included), limit (device -> bytes), state ('open'\n"
    "                   or 'ending') and kernels (in flight); null where\n"
    "                   unknown or not visible\n"
    "    --csv          print a header line, then one line per session and\n"
    "                   device with the columns session, pid, uid, user,\n"
    "                   command, unit, cgroup, current_device, device,\n"
    "                   allocated, reserved, limit, state and kernels (empty\n"
    "                   where unknown)\n" CLI_SOCKET_HELP
    "\n" CLI_DAEMON_EXIT
    "EXAMPLES\n"
    "    tessera ps\n"
    "    tessera ps --json | jq '.[] | select(.uid == 1000) | .memory'\n"
    "    tessera ps --csv > sessions.csv\n",
    run_ps};
