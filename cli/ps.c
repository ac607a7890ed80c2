/* `tessera ps`: the daemon's client sessions, as a table, JSON or CSV,
 * their columns described once in session_fields. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon.h"
#include "cli/fields.h"

tsr_status cli_try_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count)
{
    tsr_process_info *list = NULL;
    size_t n = 0, cap = 0;
    uint32_t after = 0;
    for (bool found = true; found;) {
        tsr_process_info s;
        tsr_status st = tsr_admin_session_list(c, after, &s, &found);
        if (st != TSR_OK) {
            free(list);
            return st;
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
                return tsr_error_set(TSR_ERR_OUT_OF_MEMORY, "out of memory");
            }
            list = grown;
        }
        list[n++] = s;
    }
    *out = list;
    *count = n;
    return TSR_OK;
}

int cli_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count)
{
    return cli_try_list_sessions(c, out, count) == TSR_OK ? -1 : cli_fail(tsr_last_error());
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

/* `lines`: the whole array on one line (JSON Lines, under --loop). */
static void print_session_json(const tsr_process_info *s, bool first, bool lines)
{
    char dev[TSR_DEVICE_STR_MAX], user[64];
    printf("%s%s{\"session\": %" PRIu32 ", \"visible\": %s, \"pid\": ", first ? "" : ",",
           lines ? (first ? "" : " ") : "\n  ", s->session_id, s->visible ? "true" : "false");
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
    printf(", \"state\": \"%s\", \"kernels\": %" PRIu32 ", \"launches\": %" PRIu64
           ", \"busy_ms\": %" PRIu64,
           state_of(s), s->kernels, s->launches, s->busy_ns / 1000000u);
    printf(", \"programs\": %" PRIu32 ", \"max_programs\": %" PRIu32
           ", \"max_source_bytes\": %" PRIu64 ", \"build_memory\": %" PRIu64
           ", \"build_time_limit_ms\": %" PRIu32 ", \"run_time_limit_ms\": %" PRIu32 "}",
           s->programs, s->max_programs, s->max_source_bytes, s->build_memory,
           s->build_time_limit_ms, s->run_time_limit_ms);
}

/* A row: a session, and one device it holds memory on (usage < 0: none,
 * or the view shows no field of a device). */
typedef struct session_row {
    const tsr_process_info *s;
    int usage;
} session_row;

#define SESSION(row) (((const session_row *)(row))->s)

static void get_session(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->session_id);
}

static void get_state(const void *row, cli_cell *out)
{
    cli_cell_text(out, state_of(SESSION(row)));
}

static void get_pid(const void *row, cli_cell *out)
{
    const tsr_process_info *s = SESSION(row);
    if (s->visible && s->pid_known && s->pid)
        cli_cell_number(out, s->pid);
}

static void get_uid(const void *row, cli_cell *out)
{
    if (SESSION(row)->visible)
        cli_cell_number(out, SESSION(row)->uid);
}

static void get_gid(const void *row, cli_cell *out)
{
    if (SESSION(row)->visible)
        cli_cell_number(out, SESSION(row)->gid);
}

static void get_user(const void *row, cli_cell *out)
{
    if (SESSION(row)->visible)
        cli_cell_text(out, cli_user_name(SESSION(row)->uid, out->buf, sizeof out->buf));
}

static void get_command(const void *row, cli_cell *out)
{
    cli_cell_text(out, SESSION(row)->command);
    if (!SESSION(row)->visible)
        out->shown = "(other user)";
}

static void get_name(const void *row, cli_cell *out)
{
    cli_cell_text(out, SESSION(row)->name);
}

static void get_unit(const void *row, cli_cell *out)
{
    cli_cell_text(out, SESSION(row)->unit);
}

static void get_cgroup(const void *row, cli_cell *out)
{
    cli_cell_text(out, SESSION(row)->cgroup);
}

static void get_unit_or_cgroup(const void *row, cli_cell *out)
{
    if (SESSION(row)->visible)
        cli_cell_text(out, unit_or_cgroup(SESSION(row)));
}

static void get_pid_namespace(const void *row, cli_cell *out)
{
    if (SESSION(row)->pid_namespace)
        cli_cell_number(out, SESSION(row)->pid_namespace);
}

static void get_visible(const void *row, cli_cell *out)
{
    cli_cell_bool(out, SESSION(row)->visible);
}

static void get_current_device(const void *row, cli_cell *out)
{
    cli_cell_text(out, cli_shown_device(SESSION(row)->current_device, out->buf, sizeof out->buf));
}

static void get_threads(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->threads);
}

static void get_requests(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->requests);
}

static void get_kernels(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->kernels);
}

static void get_started(const void *row, cli_cell *out)
{
    if (SESSION(row)->visible)
        cli_cell_number(out, SESSION(row)->started_unix_ns);
}

static void get_launches(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->launches);
}

/* Milliseconds in CSV and JSON, seconds in tables. */
static void get_busy_ms(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->busy_ns / 1000000u);
    snprintf(out->buf, sizeof out->buf, "%.1fs", (double)SESSION(row)->busy_ns / 1e9);
    out->shown = out->buf;
}

static void get_programs(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->programs);
}

static void get_max_programs(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->max_programs);
}

static void get_max_source_bytes(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, SESSION(row)->max_source_bytes);
}

static void get_build_memory(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, SESSION(row)->build_memory);
}

static void get_build_time_limit(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->build_time_limit_ms);
}

static void get_run_time_limit(const void *row, cli_cell *out)
{
    cli_cell_number(out, SESSION(row)->run_time_limit_ms);
}

static const tsr_process_usage *usage_of(const void *row)
{
    const session_row *r = row;
    return r->usage >= 0 ? &r->s->usage[r->usage] : NULL;
}

static void get_device(const void *row, cli_cell *out)
{
    const tsr_process_usage *u = usage_of(row);
    if (u)
        cli_cell_text(out, cli_shown_device(u->device, out->buf, sizeof out->buf));
}

static void get_allocated(const void *row, cli_cell *out)
{
    if (usage_of(row))
        cli_cell_bytes(out, usage_of(row)->allocated);
}

static void get_reserved(const void *row, cli_cell *out)
{
    if (usage_of(row))
        cli_cell_bytes(out, usage_of(row)->reserved);
}

static void get_limit(const void *row, cli_cell *out)
{
    if (usage_of(row))
        cli_cell_bytes(out, usage_of(row)->limit);
}

#define RIGHT CLI_FIELD_RIGHT
#define PER_DEVICE CLI_FIELD_GROUP

static const cli_field session_fields[] = {
    {"session", "SID", 5, RIGHT, "the daemon's session number (what 'tessera stats' takes)",
     get_session},
    {"state", "STATE", 6, 0,
     "open, or ending: the client has gone while kernels it launched still run", get_state},
    {"pid", "PID", 7, RIGHT, "the client's pid in this command's pid namespace", get_pid},
    {"uid", "UID", 6, RIGHT, "the client's uid", get_uid},
    {"gid", "GID", 6, RIGHT, "the client's gid", get_gid},
    {"user", "USER", 8, 0, "the name of its uid", get_user},
    {"command", "COMMAND", 15, 0, "the client's process name (/proc/PID/comm)", get_command},
    {"name", "NAME", 15, 0, "the name the client gave its session when it opened it", get_name},
    {"unit", "UNIT", 24, 0, "the systemd unit (service or scope) its cgroup names", get_unit},
    {"cgroup", "CGROUP", 30, 0, "its cgroup v2 path", get_cgroup},
    {"unit_or_cgroup", "UNIT/CGROUP", 15, CLI_FIELD_HIDDEN, "", get_unit_or_cgroup},
    {"pid_namespace", "PID NS", 10, RIGHT, "the inode of its pid namespace", get_pid_namespace},
    {"visible", "VISIBLE", 7, 0, "false for another user's session, of which only numbers show",
     get_visible},
    {"current_device", "CURRENT", 9, 0, "the current device of its main thread",
     get_current_device},
    {"threads", "THREADS", 7, RIGHT, "its threads that chose a device", get_threads},
    {"requests", "REQUESTS", 10, RIGHT, "requests served so far", get_requests},
    {"kernels", "KERNELS", 7, RIGHT, "its launches not yet finished", get_kernels},
    {"launches", "LAUNCHES", 9, RIGHT, "kernels it has queued on devices so far", get_launches},
    {"busy_ms", "BUSY", 8, RIGHT,
     "its share of its devices' busy time, in milliseconds (tables: seconds): each device's "
     "busy time goes to the session whose kernel kept it busy",
     get_busy_ms},
    {"programs", "PROGRAMS", 8, RIGHT, "user-kernel programs it holds (tessera/kernel.h)",
     get_programs},
    {"max_programs", "MAX PROGRAMS", 12, RIGHT,
     "the most programs it may hold (kernels.max_programs; 0: kernels.user refuses its uid)",
     get_max_programs},
    {"max_source_bytes", "MAX SOURCE", 10, RIGHT,
     "the largest program source it may send (kernels.max_source_bytes)", get_max_source_bytes},
    {"build_memory", "BUILD MEMORY", 12, RIGHT,
     "the address space its programs' compiler may take (kernels.build_memory)", get_build_memory},
    {"build_time_limit_ms", "BUILD LIMIT (MS)", 16, RIGHT,
     "how long its programs' compiler may run (kernels.build_time_limit_ms)", get_build_time_limit},
    {"run_time_limit_ms", "RUN LIMIT (MS)", 14, RIGHT,
     "how long one of its kernels may run (kernels.run_time_limit_ms)", get_run_time_limit},
    {"started_unix_ns", "STARTED (NS)", 19, RIGHT,
     "when it connected, in nanoseconds since the epoch", get_started},
    {"device", "MEMORY ON", 9, PER_DEVICE, "a device it holds memory on (a row for each)",
     get_device},
    {"allocated", "ALLOCATED", 10, RIGHT | PER_DEVICE, "bytes in its live allocations there",
     get_allocated},
    {"reserved", "RESERVED", 9, RIGHT | PER_DEVICE, "bytes it holds there, cache included",
     get_reserved},
    {"limit", "LIMIT", 9, RIGHT | PER_DEVICE, "the most it may reserve there", get_limit},
    {"", NULL, 0, 0, NULL, NULL},
};

static const char session_table[] =
    "session,state,pid,user,command,name,unit_or_cgroup,"
    "current_device,kernels,programs,busy_ms,device,allocated,reserved,limit";
static const char session_csv[] = "session,pid,uid,user,command,unit,cgroup,current_device,device,"
                                  "allocated,reserved,limit,state,kernels,name,launches,busy_ms,"
                                  "programs,max_programs,max_source_bytes,build_memory,"
                                  "build_time_limit_ms,run_time_limit_ms";

static int ps_round(tsr_client *c, const cli_args *args, void *state)
{
    cli_view *v = state;
    tsr_process_info *list = NULL;
    size_t n = 0;
    int rc = cli_list_sessions(c, &list, &n);
    if (rc >= 0)
        return rc;
    if (v->format == CLI_FORMAT_JSON && !cli_given(args, CLI_OPT_QUERY)) {
        printf("[");
        for (size_t k = 0; k < n; k++)
            print_session_json(&list[k], k == 0, v->lines);
        printf("%s]\n", n && !v->lines ? "\n" : "");
        free(list);
        return -1;
    }
    bool per_device = cli_view_has(v, PER_DEVICE);
    cli_view_begin(v);
    for (size_t k = 0; k < n; k++) {
        session_row row = {&list[k], per_device && list[k].usage_count ? 0 : -1};
        cli_view_row(v, &row, false);
        for (row.usage = 1; per_device && row.usage < (int)list[k].usage_count; row.usage++)
            cli_view_row(v, &row, true);
    }
    cli_view_end(v);
    free(list);
    return -1;
}

static int run_ps(const cli_args *args)
{
    cli_view v;
    int rc = cli_view_init(&v, &cli_cmd_ps, args, session_table, session_csv);
    return rc >= 0 ? rc : cli_rounds(args, ps_round, &v);
}

const cli_command cli_cmd_ps = {
    "ps",
    "list the sessions of the daemon's clients",
    "SYNOPSIS\n"
    "    tessera ps [-j | --csv] [--no-header] [--no-units] [-q FIELD,...]\n"
    "               [-l SECONDS [-c N]] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Lists the client sessions of tesserad (this command's own excepted), one\n"
    "    row per session: its number (SID), its state, the client's pid as this\n"
    "    command's pid namespace numbers it ('-' when the process lives outside\n"
    "    it, as a host process seen from a container), its user, command, the\n"
    "    name the client gave its session, its systemd unit (else the last\n"
    "    part of its cgroup), the current device of its main thread, its\n"
    "    kernels in flight (launched, not yet finished), the user-kernel\n"
    "    programs it holds (PROGRAMS), its busy time (BUSY:\n"
    "    its share of the device time its kernels took, below) and, per\n"
    "    device it holds memory on, the bytes in live allocations, the bytes\n"
    "    reserved (cache included) and the most it may reserve there.\n\n"
    "    A device is busy while its queue holds a kernel; each stretch of busy\n"
    "    time counts for the session whose kernel kept the device busy, so\n"
    "    the sessions' busy times add up to the device's (tessera devices -q\n"
    "    busy_ms). Two readings apart give a session's utilisation, as\n"
    "    tessera top shows it.\n\n"
    "    STATE is 'open' while the client is connected, and 'ending' once the\n"
    "    client has exited or closed its connection while kernels it launched\n"
    "    still run: the session then keeps its memory, and its row, until the\n"
    "    last of them finishes (kernels the device had not started yet are\n"
    "    cancelled). An ending session holds no place under sessions.max or\n"
    "    sessions.max_per_uid, but its memory still counts against every\n"
    "    memory limit. Its pid, unit and cgroup are as they were when its\n"
    "    connection ended.\n\n"
    "    tessera itself watches through a monitoring connection, which is no\n"
    "    session: it is not listed, holds no place under sessions.max (so ps\n"
    "    works when that is reached; sessions.max_monitors bounds monitors)\n"
    "    and is logged at debug level only.\n\n"
    "    The daemon decides what each caller sees, from the credentials of its\n"
    "    connection: root and members of the group tessera-admin see every\n"
    "    session; anyone else sees its own sessions in full and only the\n"
    "    numbers (memory, device) of other users' sessions, whose pid, user,\n"
    "    command and name read '-' and '(other user)'.\n\n"
    "    --query picks the columns, from the FIELDS below, in every format,\n"
    "    as nvidia-smi's --query-compute-apps does: one row per session and\n"
    "    device it holds memory on when a field of a device (device,\n"
    "    allocated, reserved, limit) is among them, else one per session.\n\n" CLI_DEVICE_NAMES
        CLI_ESCAPE_HELP "OPTIONS\n"
    "    -j, --json     print an array of objects with the keys session,\n"
    "                   visible, pid, uid, gid, user, command, name, unit,\n"
    "                   cgroup, pid_namespace, current_device, threads,\n"
    "                   requests, started_unix_ns, memory (device -> bytes in\n"
    "                   live allocations), reserved (device -> bytes held,\n"
    "                   cache included), limit (device -> bytes), state ('open'\n"
    "                   or 'ending'), kernels (in flight), launches (kernels\n"
    "                   queued so far), busy_ms, programs (user-kernel\n"
    "                   programs it holds) and the kernels.* limits in force\n"
    "                   for it: max_programs (0: kernels.user refuses its uid),\n"
    "                   max_source_bytes, build_memory, build_time_limit_ms\n"
    "                   and run_time_limit_ms; null where\n"
    "                   unknown or not visible. With --query, one object per\n"
    "                   row with the fields asked for\n"
    "    --csv          print a header line, then one line per session and\n"
    "                   device with the columns session, pid, uid, user,\n"
    "                   command, unit, cgroup, current_device, device,\n"
    "                   allocated, reserved, limit, state, kernels, name,\n"
    "                   launches, busy_ms, programs, max_programs,\n"
    "                   max_source_bytes, build_memory, build_time_limit_ms\n"
    "                   and run_time_limit_ms\n"
    "                   (empty where unknown)\n" CLI_ROW_OPTIONS_HELP CLI_LOOP_HELP CLI_SOCKET_HELP
    "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera ps\n"
    "    tessera ps --json | jq '.[] | select(.uid == 1000) | .memory'\n"
    "    tessera ps --csv > sessions.csv\n"
    "    tessera ps -q pid,name,device,allocated --csv --no-header --no-units\n"
    "    tessera ps -q session,name,command,kernels -l 2\n",
    CLI_ROW_OPTIONS | CLI_LOOP_OPTIONS | CLI_OPT(SOCKET),
    0,
    0,
    run_ps,
    session_fields};
