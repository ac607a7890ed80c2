/* See config.h. `keys` below is the configuration: each row names a key,
 * its option, its default, whether a change needs a restart, its help
 * paragraph and how its value is parsed. Everything else in this file
 * walks that table: the file parser, the option parser, the help, the
 * sample file and the Markdown reference. */
#include "daemon/config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/error.h"
#include "core/units.h"
#include "tessera/client.h"
#include "tessera/device.h"

/* How a key's value is stored, compared and merged. */
typedef enum value_kind {
    KIND_TEXT,    /* paths: text */
    KIND_NUMBER,  /* counts, modes, milliseconds, levels: number */
    KIND_GROUP,   /* a gid in number, its name as written in text ("" unset) */
    KIND_LIMIT,   /* limit */
    KIND_DEVICES, /* all_devices, devices */
    KIND_UIDS,    /* the memory_limit.uid.<user> list */
    KIND_GROUPS,  /* the memory_limit.group.<group> list */
    KIND_MATCH,   /* lines keyed on a unit, slice or cgroup (matches), value as `parse` */
} value_kind;

/* What the suffix of a KIND_MATCH key names. */
typedef enum match_kind { MATCH_NONE, MATCH_UNIT, MATCH_SLICE, MATCH_CGROUP } match_kind;

/* Parses a value into *v, or fails with a message about the value alone
 * ("invalid size 'lots' (...)"); the caller adds where and which key. */
typedef tsr_status (*parse_fn)(const char *text, tsr__config_value *v,
                               const tsr__config_resolver *r);

typedef struct key_row {
    tsr__config_key pub;
    value_kind kind;
    parse_fn parse;
    match_kind match;
} key_row;

static tsr_status parse_socket_path(const char *text, tsr__config_value *v,
                                    const tsr__config_resolver *r);
static tsr_status parse_directory(const char *text, tsr__config_value *v,
                                  const tsr__config_resolver *r);
static tsr_status parse_group(const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r);
static tsr_status parse_mode(const char *text, tsr__config_value *v, const tsr__config_resolver *r);
static tsr_status parse_devices(const char *text, tsr__config_value *v,
                                const tsr__config_resolver *r);
static tsr_status parse_sessions(const char *text, tsr__config_value *v,
                                 const tsr__config_resolver *r);
static tsr_status parse_device_memory(const char *text, tsr__config_value *v,
                                      const tsr__config_resolver *r);
static tsr_status parse_limit(const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r);
static tsr_status parse_level(const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r);
static tsr_status parse_ms(const char *text, tsr__config_value *v, const tsr__config_resolver *r);
static tsr_status parse_switch(const char *text, tsr__config_value *v,
                               const tsr__config_resolver *r);
static tsr_status parse_bytes(const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r);
static tsr_status parse_user_kernels(const char *text, tsr__config_value *v,
                                     const tsr__config_resolver *r);
static tsr_status parse_piece(const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r);

#define GLOB_HELP                                                                            \
    " in the cgroup v2 path its process had when it opened the session; the name is a glob " \
    "(*, ?, [...]) that must match the whole of it, and where several lines match, the one " \
    "with the most characters that are not wildcards wins (the earlier line on a tie)."
#define UNIT_HELP " The client's unit is the innermost .service or .scope" GLOB_HELP
#define SLICE_HELP " The client's slice is the innermost .slice" GLOB_HELP
#define CGROUP_HELP                                                                          \
    " The path is an absolute cgroup v2 path as /proc/PID/cgroup writes it "                 \
    "(/kubepods.slice/kubepods-pod1234.slice); it matches clients in that cgroup and every " \
    "cgroup below it, and where several lines match the longest path wins."
#define VISIBLE_ORDER                                                                        \
    " The most specific place decides: a devices.visible.cgroup line, else a "               \
    "devices.visible.unit line, else a devices.visible.slice line, else devices.visible. A " \
    "change applies to sessions that start after it."

#define LIMIT_VALUES \
    "a size (4096, 512M, 2GiB), a percentage of the device's memory (50%) or unlimited"

/* The table, one block per key. */
/* clang-format off */
static const key_row keys[TSR__CONF_KEY_COUNT] = {
    [TSR__CONF_SOCKET_PATH] = {
        {.name = "socket.path", .option = "socket", .metavar = "PATH", .env = "TESSERA_SOCKET",
         .default_value = TSR_DEFAULT_SOCKET,
         .default_text = "$TESSERA_SOCKET, else " TSR_DEFAULT_SOCKET, .restart = true,
         .help = "The Unix socket clients connect to. Its directory must exist. A stale socket "
                 "left by a daemon that died is replaced; a live daemon's is not, nor a file "
                 "that is not a socket. The socket appears at the path only once it listens "
                 "with its group and mode, so waiting for the file is waiting for the daemon. "
                 "Not used when systemd passes the listening socket (tesserad.socket)."},
        KIND_TEXT, parse_socket_path, MATCH_NONE},
    [TSR__CONF_SOCKET_GROUP] = {
        {.name = "socket.group", .option = "socket-group", .metavar = "GROUP",
         .default_text = "the daemon's own group", .example = "tessera", .restart = true,
         .help = "The group, by name or number, that owns the socket, so that its members can "
                 "connect (with socket.mode 0660). Not used when systemd passes the socket: "
                 "then the unit's SocketGroup= decides."},
        KIND_GROUP, parse_group, MATCH_NONE},
    [TSR__CONF_SOCKET_MODE] = {
        {.name = "socket.mode", .option = "socket-mode", .metavar = "MODE",
         .default_value = "0660", .restart = true,
         .help = "The socket's permissions, in octal. Connecting needs write permission, so "
                 "0660 lets in the owner and socket.group, 0666 everyone. Not used when systemd "
                 "passes the socket (SocketMode= decides)."},
        KIND_NUMBER, parse_mode, MATCH_NONE},
    [TSR__CONF_VISIBLE_DEVICES] = {
        {.name = "devices.visible", .option = "visible-devices", .metavar = "LIST",
         .default_value = "all", .example = "0,1",
         .help = "The OpenCL devices that sessions see, as a comma-separated list of ordinals "
                 "(1,0 or opencl:1,opencl:0); a session numbers them from 0 in the order "
                 "listed, as CUDA_VISIBLE_DEVICES does. all: every device; none: no OpenCL device. "
                 "Ordinals that do not "
                 "exist are left out with a warning. A client's TESSERA_VISIBLE_DEVICES narrows "
                 "the list further. A change applies to sessions that start after it."},
        KIND_DEVICES, parse_devices, MATCH_NONE},
    [TSR__CONF_VISIBLE_UNIT] = {
        {.name = "devices.visible.unit.", .suffix = "<glob>", .metavar = "LIST",
         .default_text = "devices.visible", .example = "1", .example_name = "job*.scope",
         .help = "The OpenCL devices that sessions of clients in a matching systemd unit "
                 "(service or scope) see, written and numbered as devices.visible."
                 UNIT_HELP VISIBLE_ORDER},
        KIND_MATCH, parse_devices, MATCH_UNIT},
    [TSR__CONF_VISIBLE_SLICE] = {
        {.name = "devices.visible.slice.", .suffix = "<glob>", .metavar = "LIST",
         .default_text = "devices.visible", .example = "0", .example_name = "batch.slice",
         .help = "The OpenCL devices that sessions of clients in a matching systemd slice "
                 "see, written and numbered as devices.visible." SLICE_HELP VISIBLE_ORDER},
        KIND_MATCH, parse_devices, MATCH_SLICE},
    [TSR__CONF_VISIBLE_CGROUP] = {
        {.name = "devices.visible.cgroup.", .suffix = "<path>", .metavar = "LIST",
         .default_text = "devices.visible", .example = "none",
         .example_name = "/kubepods.slice/kubepods-besteffort.slice",
         .help = "The OpenCL devices that sessions of clients in this cgroup, or below it, "
                 "see, written and numbered as devices.visible." CGROUP_HELP VISIBLE_ORDER},
        KIND_MATCH, parse_devices, MATCH_CGROUP},
    [TSR__CONF_DEVICE_MEMORY] = {
        {.name = "devices.memory", .option = "device-memory", .metavar = "MODE",
         .default_value = "auto", .restart = true,
         .help = "How kernels reach tensor memory. auto: a device that addresses host memory "
                 "itself (host-unified memory, as PoCL's CPU device and integrated GPUs do) "
                 "computes in the shared segments with no copy; any other device gets memory of "
                 "its own, and each kernel copies its operands in and its output back. copy: "
                 "every device works the second way, and clients are told so (for checking "
                 "that path on a machine without a discrete device; slower). staged: as copy, "
                 "and each copy in reads the tensor memory when its kernel is queued instead of "
                 "when it runs, as drivers that stage host memory do (NVIDIA's OpenCL): for "
                 "checking that kernels queued back to back still see each other's results."},
        KIND_NUMBER, parse_device_memory, MATCH_NONE},
    [TSR__CONF_HOST_CODE] = {
        {.name = "devices.host_code", .option = "host-code", .metavar = "on|off",
         .default_value = "on", .restart = true,
         .help = "Whether a device that is this machine's own CPU and computes in the shared "
                 "segments (PoCL's CPU device: host-unified memory, and native kernels) runs "
                 "elementwise operations, reductions and matrix products as the cpu device's "
                 "own code, called in the device's queue in order with its other work: the "
                 "same bits as on cpu, at the cpu's speed, with no program to build. off: such "
                 "a device runs its generated programs and its BLAS (CLBlast) as any other "
                 "device does (for checking them on a machine with no other device). User "
                 "kernels always run their own programs."},
        KIND_NUMBER, parse_switch, MATCH_NONE},
    [TSR__CONF_HUGE_PAGES] = {
        {.name = "devices.huge_pages", .option = "huge-pages", .metavar = "on|off",
         .default_value = "on", .restart = true,
         .help = "Whether the tensor memory of a device that computes in the shared segments "
                 "with the host's code (devices.host_code) is moved into huge pages, once per "
                 "segment of at least one huge page, in the device's queue before the first "
                 "kernel that uses it (Linux's MADV_COLLAPSE, which works even where "
                 "/sys/kernel/mm/transparent_hugepage/shmem_enabled is never, Debian's "
                 "default). Streaming operations then walk no 4 KiB page tables: faster, "
                 "most of all on virtual machines. The first kernel on a new segment waits "
                 "for the move (a few milliseconds per 2 MiB); the contents never change. "
                 "off: segments keep the pages the kernel gave them."},
        KIND_NUMBER, parse_switch, MATCH_NONE},
    [TSR__CONF_MATMUL_PIECE] = {
        {.name = "devices.matmul_piece", .metavar = "auto|N", .default_value = "auto",
         .example = "268435456",
         .help = "The most multiply-adds of one piece of a matrix product (from 65536 to "
                 "2^40). A larger product runs as several pieces, whole matrices of its batch or "
                 "bands of its rows, and between two pieces the device's queue takes other "
                 "sessions' work, so that no product holds the device for long; each piece "
                 "also costs the BLAS a pass over the operand all the bands share. auto: 2^30 "
                 "(1073741824: a few milliseconds on a GPU, about two seconds for CLBlast on "
                 "one thread of PoCL's CPU device), and 2^32 where a device runs products as "
                 "the host's code (devices.host_code: OpenBLAS, a quarter of a second on one "
                 "thread). A change applies to products queued after it."},
        KIND_NUMBER, parse_piece, MATCH_NONE},
    [TSR__CONF_MAX_SESSIONS] = {
        {.name = "sessions.max", .option = "max-sessions", .metavar = "N", .default_value = "4096",
         .help = "The most sessions (client connections) open at once; connections beyond it "
                 "are refused. Lowering it ends no open session. A session whose client has "
                 "gone while its kernels finish (ending, in `tessera ps`) counts here no more, "
                 "nor under sessions.max_per_uid; the memory it holds still counts under every "
                 "memory limit until the last of them is done."},
        KIND_NUMBER, parse_sessions, MATCH_NONE},
    [TSR__CONF_MAX_SESSIONS_UID] = {
        {.name = "sessions.max_per_uid", .option = "max-sessions-per-uid", .metavar = "N",
         .default_value = "1024",
         .help = "The most sessions one user may have open at once, connections still on "
                 "their handshake included, so that one user cannot take every session. A "
                 "refused client is told why. uid 0 and members of the tessera-admin group may "
                 "go a few beyond it, and beyond sessions.max, so that `tessera ps` works "
                 "whatever the others hold. Lowering it ends no open session."},
        KIND_NUMBER, parse_sessions, MATCH_NONE},
    [TSR__CONF_MAX_HANDSHAKES_UID] = {
        {.name = "sessions.max_handshakes_per_uid", .metavar = "N", .default_value = "128",
         .help = "The most connections of one user that may be waiting to say HELLO at once "
                 "(a connection has 10 s for it). A client opens its session at once, so only "
                 "a burst of starting processes, or connections that never say anything, come "
                 "near it; the ones beyond it are refused and told why."},
        KIND_NUMBER, parse_sessions, MATCH_NONE},
    [TSR__CONF_MAX_MONITORS] = {
        {.name = "sessions.max_monitors", .option = "max-monitors", .metavar = "N",
         .default_value = "64",
         .help = "The most monitoring connections open at once: those of `tessera devices`, "
                 "`ps`, `top`, `stats` and `metrics`, which only ask questions. They are no "
                 "sessions: they hold no memory, count under no other cap, are not listed by "
                 "`tessera ps` and are logged at debug level, so that watching the daemon works "
                 "with sessions.max reached. uid 0 and members of the tessera-admin group may "
                 "go a few beyond it. Lowering it ends no open connection."},
        KIND_NUMBER, parse_sessions, MATCH_NONE},
    [TSR__CONF_MEMORY_DAEMON] = {
        {.name = "memory_limit.daemon", .option = "memory-limit", .metavar = "LIMIT",
         .default_value = "unlimited", .default_text = "unlimited (each device's own size)",
         .help = "The most memory the daemon lends of each device, all sessions together: "
                 LIMIT_VALUES ". Clients see it as the device's total memory. Lowering it takes "
                 "nothing back: allocations fail until enough is freed."},
        KIND_LIMIT, parse_limit, MATCH_NONE},
    [TSR__CONF_MEMORY_SESSION] = {
        {.name = "memory_limit.session", .metavar = "LIMIT", .default_value = "unlimited",
         .help = "The most memory one session may hold on each device: " LIMIT_VALUES "."},
        KIND_LIMIT, parse_limit, MATCH_NONE},
    [TSR__CONF_MEMORY_UID_DEFAULT] = {
        {.name = "memory_limit.uid_default", .metavar = "LIMIT", .default_value = "unlimited",
         .help = "The most memory all the sessions of one user may hold together on each "
                 "device, for every user without a memory_limit.uid.<user> line of their own: "
                 LIMIT_VALUES "."},
        KIND_LIMIT, parse_limit, MATCH_NONE},
    [TSR__CONF_MEMORY_UID] = {
        {.name = "memory_limit.uid.", .suffix = "<user>", .metavar = "LIMIT",
         .default_text = "memory_limit.uid_default", .example = "4GiB", .example_name = "alice",
         .help = "The most memory all the sessions of this user (a name or a uid) may hold "
                 "together on each device: " LIMIT_VALUES ", which exempts the user from "
                 "memory_limit.uid_default. One line per user."},
        KIND_UIDS, parse_limit, MATCH_NONE},
    [TSR__CONF_MEMORY_GROUP] = {
        {.name = "memory_limit.group.", .suffix = "<group>", .metavar = "LIMIT",
         .default_text = "unlimited", .example = "50%", .example_name = "users",
         .help = "The most memory all the sessions whose primary group (the gid the client "
                 "runs with) is this group (a name or a gid) may hold together on each device: "
                 LIMIT_VALUES ". One line per group."},
        KIND_GROUPS, parse_limit, MATCH_NONE},
    [TSR__CONF_MEMORY_UNIT] = {
        {.name = "memory_limit.unit.", .suffix = "<glob>", .metavar = "LIMIT",
         .default_text = "unlimited", .example = "8GiB", .example_name = "job*.scope",
         .help = "The most memory all the sessions of one matching systemd unit (service or "
                 "scope) may hold together on each device: " LIMIT_VALUES ". Each unit the glob "
                 "matches has the limit to itself (job*.scope: each job its own 8GiB)."
                 UNIT_HELP " It applies beside every other limit: the user's, the group's, "
                 "the session's, the slice's and the cgroup's."},
        KIND_MATCH, parse_limit, MATCH_UNIT},
    [TSR__CONF_MEMORY_SLICE] = {
        {.name = "memory_limit.slice.", .suffix = "<glob>", .metavar = "LIMIT",
         .default_text = "unlimited", .example = "50%", .example_name = "batch.slice",
         .help = "The most memory all the sessions of clients whose innermost slice matches "
                 "may hold together on each device: " LIMIT_VALUES ". Each slice the glob "
                 "matches has the limit to itself." SLICE_HELP " It applies beside every "
                 "other limit."},
        KIND_MATCH, parse_limit, MATCH_SLICE},
    [TSR__CONF_MEMORY_CGROUP] = {
        {.name = "memory_limit.cgroup.", .suffix = "<path>", .metavar = "LIMIT",
         .default_text = "unlimited", .example = "16GiB",
         .example_name = "/kubepods.slice/kubepods-burstable.slice",
         .help = "The most memory all the sessions of clients in this cgroup and every "
                 "cgroup below it may hold together on each device: " LIMIT_VALUES "."
                 CGROUP_HELP " It applies beside every other limit."},
        KIND_MATCH, parse_limit, MATCH_CGROUP},
    [TSR__CONF_LOG_LEVEL] = {
        {.name = "log.level", .option = "log-level", .metavar = "LEVEL", .default_value = "info",
         .help = "The least important messages logged: err, warning, notice, info or debug."},
        KIND_NUMBER, parse_level, MATCH_NONE},
    [TSR__CONF_CACHE_DIR] = {
        {.name = "cache.directory", .option = "cache-dir", .metavar = "DIR",
         .default_text = "$TESSERA_KERNEL_CACHE, else $CACHE_DIRECTORY (which systemd's "
                         "CacheDirectory= sets: /var/cache/tessera under tesserad.service), else "
                         "$XDG_CACHE_HOME/tessera or ~/.cache/tessera",
         .example = "/var/cache/tessera", .restart = true,
         .help = "Where compiled OpenCL programs are kept between runs, keyed by device, "
                 "driver and source, each sealed with a secret kept there. An absolute path. "
                 "It must belong to the daemon's user and be writable by no one else; "
                 "otherwise it is refused (logged) and programs are kept in memory only."},
        KIND_TEXT, parse_directory, MATCH_NONE},
    [TSR__CONF_PROBE_TIMEOUT] = {
        {.name = "discovery.probe_timeout_ms", .option = "probe-timeout", .metavar = "MS",
         .default_value = "20000", .restart = true,
         .help = "How long, in milliseconds, the OpenCL discovery probe may run before it is "
                 "killed and the daemon goes on without OpenCL devices."},
        KIND_NUMBER, parse_ms, MATCH_NONE},
    [TSR__CONF_USER_KERNELS] = {
        {.name = "kernels.user", .option = "user-kernels", .metavar = "auto|on|off",
         .default_value = "auto",
         .help = "Whether clients may build and run OpenCL C of their own (tsr_program_create). "
                 "Their programs are compiled in a process of their worker's under "
                 "kernels.build_time_limit_ms and kernels.build_memory, and their kernels run "
                 "in a worker process per user and device (tessera-kernel-worker), never in "
                 "the daemon: a kernel that crashes or overruns ends its own user's worker "
                 "only. A kernel that takes over its worker (on a CPU device it is native "
                 "code) can do what the worker's uid can. auto lets every user run kernels "
                 "where the daemon runs as root, which runs each user's worker as that user, "
                 "and otherwise only the daemon's own uid; on lets every user run them, in "
                 "workers of the daemon's uid where it is not root (for machines whose users "
                 "trust each other); off refuses PROGRAM_CREATE."},
        KIND_NUMBER, parse_user_kernels, MATCH_NONE},
    [TSR__CONF_MAX_PROGRAMS] = {
        {.name = "kernels.max_programs", .metavar = "N", .default_value = "64",
         .help = "The most user programs one session may hold at once."},
        KIND_NUMBER, parse_sessions, MATCH_NONE},
    [TSR__CONF_MAX_SOURCE] = {
        {.name = "kernels.max_source_bytes", .metavar = "SIZE", .default_value = "1MiB",
         .help = "The longest source of a user program, in bytes (suffixes KiB, MiB)."},
        KIND_NUMBER, parse_bytes, MATCH_NONE},
    [TSR__CONF_BUILD_TIME] = {
        {.name = "kernels.build_time_limit_ms", .metavar = "MS", .default_value = "60000",
         .help = "How long, in milliseconds, the compiler may take over one user program "
                 "before it is killed and the build fails with that reason (or, where the "
                 "build was done and the compiler was making the program's binary, its "
                 "launches fail with it)."},
        KIND_NUMBER, parse_ms, MATCH_NONE},
    [TSR__CONF_BUILD_MEMORY] = {
        {.name = "kernels.build_memory", .metavar = "SIZE", .default_value = "8GiB",
         .help = "The address space the compiler of one user program may take beyond what it "
                 "maps as the build starts: the device's driver, and what the worker's earlier "
                 "builds left (RLIMIT_AS, set to their sum for the build; a GPU's driver maps "
                 "as much as the device has memory); a compiler that needs more fails the "
                 "build (or, where the build was done and the compiler was making the "
                 "program's binary, its launches fail with it)."},
        KIND_NUMBER, parse_bytes, MATCH_NONE},
    [TSR__CONF_RUN_TIME] = {
        {.name = "kernels.run_time_limit_ms", .metavar = "MS", .default_value = "60000",
         .help = "How long, in milliseconds, one user kernel may run. The kernel worker of a "
                 "kernel that runs longer is killed: that user's launches in flight on that "
                 "device fail, and their programs must be created again."},
        KIND_NUMBER, parse_ms, MATCH_NONE},
    [TSR__CONF_WORKER_IDLE] = {
        {.name = "kernels.worker_idle_ms", .metavar = "MS", .default_value = "30000",
         .help = "How long, in milliseconds, a user's kernel worker with no program left is "
                 "kept before it is stopped, so that the next process of a job finds it ready "
                 "(its context made, its programs' binaries cached)."},
        KIND_NUMBER, parse_ms, MATCH_NONE},
};
/* clang-format on */

static const struct {
    const char *name;
    int priority;
} log_levels[] = {{"err", 3}, {"warning", 4}, {"notice", 5}, {"info", 6}, {"debug", 7}};

const tsr__config_key *tsr__config_key_at(tsr__config_key_id id)
{
    return (unsigned)id < TSR__CONF_KEY_COUNT ? &keys[id].pub : NULL;
}

int tsr__config_log_level(const char *name)
{
    for (size_t k = 0; k < TSR__ARRAY_SIZE(log_levels); k++)
        if (strcmp(name, log_levels[k].name) == 0)
            return log_levels[k].priority;
    return -1;
}

/* ---- values ------------------------------------------------------------- */

/* A whole decimal number in [min, max]: digits only. */
static bool whole_number(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    if (!*text)
        return false;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || __builtin_mul_overflow(n, 10u, &n) ||
            __builtin_add_overflow(n, (uint64_t)(*p - '0'), &n))
            return false;
    }
    if (n < min || n > max)
        return false;
    *out = n;
    return true;
}

static tsr_status parse_socket_path(const char *text, tsr__config_value *v,
                                    const tsr__config_resolver *r)
{
    (void)r;
    size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;
    if (strlen(text) > max)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "socket path too long (%zu bytes, at most %zu)",
                         strlen(text), max);
    snprintf(v->text, sizeof v->text, "%s", text);
    return TSR_OK;
}

static tsr_status parse_directory(const char *text, tsr__config_value *v,
                                  const tsr__config_resolver *r)
{
    (void)r;
    if (text[0] != '/')
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "'%s' is not an absolute path", text);
    snprintf(v->text, sizeof v->text, "%s", text);
    return TSR_OK;
}

static int system_user(void *ctx, const char *name, uint32_t *uid)
{
    (void)ctx;
    char buf[4096];
    struct passwd pw, *found = NULL;
    if (getpwnam_r(name, &pw, buf, sizeof buf, &found) != 0 || !found)
        return -1;
    *uid = (uint32_t)found->pw_uid;
    return 0;
}

static int system_group(void *ctx, const char *name, uint32_t *gid)
{
    (void)ctx;
    char buf[16384];
    struct group gr, *found = NULL;
    if (getgrnam_r(name, &gr, buf, sizeof buf, &found) != 0 || !found)
        return -1;
    *gid = (uint32_t)found->gr_gid;
    return 0;
}

/* A user or group given by number or by name; (uint32_t)-1 is no id. */
static tsr_status resolve_id(const char *text, bool group, const tsr__config_resolver *r,
                             uint32_t *id)
{
    uint64_t n;
    if (whole_number(text, 0, UINT32_MAX - 1, &n)) {
        *id = (uint32_t)n;
        return TSR_OK;
    }
    int (*user)(void *, const char *, uint32_t *) = r && r->user ? r->user : system_user;
    int (*grp)(void *, const char *, uint32_t *) = r && r->group ? r->group : system_group;
    int rc = group ? grp(r ? r->ctx : NULL, text, id) : user(r ? r->ctx : NULL, text, id);
    if (rc != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "no such %s '%s'", group ? "group" : "user",
                         text);
    return TSR_OK;
}

static tsr_status parse_group(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    uint32_t gid;
    tsr_status st = resolve_id(text, true, r, &gid);
    if (st != TSR_OK)
        return st;
    v->number = gid;
    snprintf(v->text, sizeof v->text, "%s", text);
    return TSR_OK;
}

static tsr_status parse_mode(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    uint64_t mode = 0;
    size_t n = strlen(text);
    bool ok = n >= 1 && n <= 4;
    for (size_t k = 0; ok && k < n; k++) {
        ok = text[k] >= '0' && text[k] <= '7';
        mode = mode * 8 + (uint64_t)(text[k] - '0');
    }
    if (!ok || mode > 0777)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid mode '%s' (expected octal permissions such as 0660)", text);
    v->number = mode;
    return TSR_OK;
}

#define DEVICE_LIST_HINT "expected all, none, or ordinals such as 1,0 or opencl:1,opencl:0"

/* Whether a built-in backend serves devices of `type`. */
static bool backend_type(tsr_device_type type)
{
    static const tsr_device_type types[] = {
#define X(name, device_type) device_type,
#include "daemon/backends.def"
#undef X
    };
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (types[k] == type)
            return true;
    return false;
}

/* One entry of a device list: "1" or "opencl:1". */
static tsr_status parse_ordinal(const char *item, int32_t *out)
{
    uint64_t n;
    if (whole_number(item, 0, TSR_DEVICE_INDEX_MAX, &n)) {
        *out = (int32_t)n;
        return TSR_OK;
    }
    tsr_device d;
    if (tsr_device_parse(item, &d) != TSR_OK)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid device '%s' (" DEVICE_LIST_HINT ")",
                         item);
    if (!backend_type(d.type))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "'%s' is not a device of a backend this daemon has (" DEVICE_LIST_HINT ")",
                         item);
    if (d.index < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "'%s' names no ordinal (" DEVICE_LIST_HINT ")",
                         item);
    *out = d.index;
    return TSR_OK;
}

static tsr_status parse_devices(const char *text, tsr__config_value *v,
                                const tsr__config_resolver *r)
{
    (void)r;
    if (strcmp(text, "all") == 0 || strcmp(text, "none") == 0) {
        v->all_devices = text[0] == 'a';
        v->device_count = 0;
        return TSR_OK;
    }
    tsr__config_value out = {0};
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        char item[64];
        if (len == 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "empty entry in the device list '%s'", text);
        if (out.device_count == TSR__CONFIG_MAX_DEVICES)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "more than %d devices listed",
                             TSR__CONFIG_MAX_DEVICES);
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        int32_t ordinal = -1;
        tsr_status st = parse_ordinal(item, &ordinal);
        if (st != TSR_OK)
            return st;
        for (uint32_t k = 0; k < out.device_count; k++)
            if (out.devices[k] == ordinal)
                return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "opencl:%d is listed twice",
                                 (int)ordinal);
        out.devices[out.device_count++] = ordinal;
        if (!end)
            break;
        p = end + 1;
    }
    v->all_devices = false;
    v->device_count = out.device_count;
    memcpy(v->devices, out.devices, sizeof v->devices);
    return TSR_OK;
}

static tsr_status parse_sessions(const char *text, tsr__config_value *v,
                                 const tsr__config_resolver *r)
{
    (void)r;
    if (!whole_number(text, 1, 1000000, &v->number))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid count '%s' (expected a whole number from 1 to 1000000)", text);
    return TSR_OK;
}

static tsr_status parse_device_memory(const char *text, tsr__config_value *v,
                                      const tsr__config_resolver *r)
{
    (void)r;
    if (strcmp(text, "auto") == 0)
        v->number = TSR__DEVICE_MEMORY_AUTO;
    else if (strcmp(text, "copy") == 0)
        v->number = TSR__DEVICE_MEMORY_COPY;
    else if (strcmp(text, "staged") == 0)
        v->number = TSR__DEVICE_MEMORY_STAGED;
    else
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "unknown device memory mode '%s' (expected auto, copy or staged)", text);
    return TSR_OK;
}

static tsr_status parse_ms(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    if (!whole_number(text, 1, 3600000, &v->number))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid milliseconds '%s' (expected a whole number from 1 to 3600000)",
                         text);
    return TSR_OK;
}

static tsr_status parse_switch(const char *text, tsr__config_value *v,
                               const tsr__config_resolver *r)
{
    (void)r;
    if (strcmp(text, "on") == 0)
        v->number = 1;
    else if (strcmp(text, "off") == 0)
        v->number = 0;
    else
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid switch '%s' (expected on or off)",
                         text);
    return TSR_OK;
}

static tsr_status parse_user_kernels(const char *text, tsr__config_value *v,
                                     const tsr__config_resolver *r)
{
    if (strcmp(text, "auto") == 0) {
        v->number = TSR__USER_KERNELS_AUTO;
        return TSR_OK;
    }
    if (strcmp(text, "on") != 0 && strcmp(text, "off") != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid value '%s' (expected auto, on or off)",
                         text);
    return parse_switch(text, v, r);
}

static tsr_status parse_piece(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    if (strcmp(text, "auto") == 0)
        v->number = TSR__MATMUL_PIECE_AUTO;
    else if (!whole_number(text, UINT64_C(1) << 16, UINT64_C(1) << 40, &v->number))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid piece '%s' (expected auto or a whole number of multiply-adds "
                         "from 65536 to 1099511627776)",
                         text);
    return TSR_OK;
}

static tsr_status parse_bytes(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    if (tsr__parse_size(text, &v->number) != TSR_OK || v->number == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid size '%s' (expected bytes, e.g. 65536 or 1MiB)", text);
    return TSR_OK;
}

static tsr_status parse_level(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    int level = tsr__config_log_level(text);
    if (level < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "unknown log level '%s' (expected err, warning, notice, info or debug)",
                         text);
    v->number = (uint64_t)level;
    return TSR_OK;
}

static tsr_status parse_limit(const char *text, tsr__config_value *v, const tsr__config_resolver *r)
{
    (void)r;
    size_t n = strlen(text);
    if (strcmp(text, "unlimited") == 0) {
        v->limit = (tsr__limit){TSR__LIMIT_NONE, 0};
        return TSR_OK;
    }
    if (n > 1 && text[n - 1] == '%') {
        char digits[16];
        uint64_t percent;
        if (n > sizeof digits || (snprintf(digits, sizeof digits, "%.*s", (int)(n - 1), text),
                                  !whole_number(digits, 1, 100, &percent)))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid percentage '%s' (expected 1%% to 100%%)", text);
        v->limit = (tsr__limit){TSR__LIMIT_PERCENT, percent};
        return TSR_OK;
    }
    uint64_t bytes;
    tsr_status st = tsr__parse_size(text, &bytes);
    if (st == TSR_ERR_OVERFLOW)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "size '%s' is too large", text);
    if (st != TSR_OK)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid size '%s' (expected e.g. 4GiB or 50%%)",
                         text);
    if (bytes == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid size '0' (a limit is above 0; 'unlimited' means none)");
    v->limit = (tsr__limit){TSR__LIMIT_BYTES, bytes};
    return TSR_OK;
}

/* ---- the configuration -------------------------------------------------- */

void tsr__config_clear(tsr__config *cfg)
{
    *cfg = (tsr__config){0};
}

void tsr__config_free(tsr__config *cfg)
{
    if (!cfg)
        return;
    free(cfg->uids);
    free(cfg->groups);
    free(cfg->matches);
    cfg->uids = cfg->groups = NULL;
    cfg->matches = NULL;
    cfg->uid_count = cfg->group_count = cfg->match_count = 0;
}

/* Parses `text` as key k's value into v, keeping text as written. */
static tsr_status parse_value(const key_row *row, const char *text, tsr__config_value *v,
                              const tsr__config_resolver *r)
{
    if (!*text)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "missing value");
    if (strlen(text) >= TSR__CONFIG_TEXT_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "value too long (%zu bytes, at most %d)",
                         strlen(text), TSR__CONFIG_TEXT_MAX - 1);
    tsr__config_value out = *v;
    tsr_status st = row->parse(text, &out, r);
    if (st != TSR_OK)
        return st;
    snprintf(out.text, sizeof out.text, "%s", text);
    *v = out;
    return TSR_OK;
}

/* The value an environment variable gives key k. */
static tsr_status env_default(const key_row *row, tsr__config_value *v,
                              const tsr__config_resolver *r)
{
    const char *env = row->pub.env ? getenv(row->pub.env) : NULL;
    if (!env || !*env || parse_value(row, env, v, r) == TSR_OK)
        return TSR_OK;
    char msg[TSR__ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", tsr_last_error());
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "$%s: %s", row->pub.env, msg);
}

tsr_status tsr__config_init(tsr__config *cfg, const tsr__config_resolver *r)
{
    tsr__config_clear(cfg);
    for (size_t k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const key_row *row = &keys[k];
        tsr_status st = TSR_OK;
        if (row->pub.default_value)
            st = parse_value(row, row->pub.default_value, &cfg->v[k], r);
        if (st == TSR_OK)
            st = env_default(row, &cfg->v[k], r);
        if (st != TSR_OK) {
            tsr__config_clear(cfg);
            return st;
        }
        cfg->v[k].set = false;
    }
    return TSR_OK;
}

/* The list of a list key. */
static tsr__config_id_limit **list_of(tsr__config *cfg, value_kind kind, size_t **count)
{
    *count = kind == KIND_UIDS ? &cfg->uid_count : &cfg->group_count;
    return kind == KIND_UIDS ? &cfg->uids : &cfg->groups;
}

static tsr__config_id_limit *find_id(tsr__config_id_limit *list, size_t count, uint32_t id)
{
    for (size_t k = 0; k < count; k++)
        if (list[k].id == id)
            return &list[k];
    return NULL;
}

/* Adds or replaces entry e of a list. */
static tsr_status put_entry(tsr__config *cfg, value_kind kind, const tsr__config_id_limit *e)
{
    size_t *count;
    tsr__config_id_limit **list = list_of(cfg, kind, &count);
    tsr__config_id_limit *old = find_id(*list, *count, e->id);
    if (old) {
        *old = *e;
        return TSR_OK;
    }
    /* Grow at powers of two. */
    if ((*count & (*count - 1)) == 0) {
        size_t cap = *count ? *count * 2 : 4;
        tsr__config_id_limit *grown = realloc(*list, cap * sizeof *grown);
        if (!grown)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory reading the configuration");
        *list = grown;
    }
    (*list)[(*count)++] = *e;
    return TSR_OK;
}

/* memory_limit.uid.<suffix> / memory_limit.group.<suffix> = value. A file
 * (line > 0) may name an id once; the command line replaces. */
static tsr_status set_list_entry(tsr__config *cfg, const key_row *row, const char *suffix,
                                 const char *value, unsigned line, const tsr__config_resolver *r)
{
    bool group = row->kind == KIND_GROUPS;
    tsr__config_id_limit e = {.line = line};
    if (!*suffix)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "missing %s name (write %s%s = LIMIT)",
                         group ? "group" : "user", row->pub.name, row->pub.suffix);
    if (strlen(suffix) >= sizeof e.name)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s name too long (at most %zu bytes)",
                         group ? "group" : "user", sizeof e.name - 1);
    tsr__config_value v = {0};
    tsr_status st = parse_value(row, value, &v, r);
    if (st != TSR_OK)
        return st;
    uint64_t ignored;
    bool named = !whole_number(suffix, 0, UINT32_MAX, &ignored);
    st = resolve_id(suffix, group, r, &e.id);
    if (st != TSR_OK && named && line > 0) {
        /* A file's line for a name nobody has: noted, left out (the
         * caller puts SOURCE:LINE in front). */
        if (cfg->note_count < TSR__CONFIG_NOTES)
            snprintf(cfg->notes[cfg->note_count++], TSR__CONFIG_NOTE_MAX,
                     "%s%s: %s; the line is left out until the %s exists (SIGHUP reads "
                     "it again)",
                     row->pub.name, suffix, tsr_last_error(), group ? "group" : "user");
        else
            cfg->notes_dropped++;
        return TSR_OK;
    }
    if (st != TSR_OK)
        return st;
    if (named)
        snprintf(e.name, sizeof e.name, "%s", suffix);
    e.limit = v.limit;
    snprintf(e.text, sizeof e.text, "%s", v.text);
    size_t *count;
    tsr__config_id_limit **list = list_of(cfg, row->kind, &count);
    const tsr__config_id_limit *old = find_id(*list, *count, e.id);
    if (line && old && old->line)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s %u already has a limit (line %u)",
                         group ? "gid" : "uid", (unsigned)e.id, old->line);
    return put_entry(cfg, row->kind, &e);
}

/* ---- lines keyed on where the client runs ------------------------------ */

/* Characters of a unit name (systemd's: letters, digits, ":-_.\\@") and
 * of the glob syntax. */
static bool unit_char(char c)
{
    return isalnum((unsigned char)c) || strchr(":-_.\\@*?[]!^", c) != NULL;
}

/* A unit or slice glob: fnmatch's syntax over unit-name characters, each
 * '[' closed. The message says what is wrong with it. */
static tsr_status check_glob(const char *glob, const char *what)
{
    size_t n = strlen(glob);
    if (n >= TSR__CONFIG_PATTERN_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s pattern too long (at most %d bytes)", what,
                         TSR__CONFIG_PATTERN_MAX - 1);
    for (size_t k = 0; k < n; k++) {
        if (glob[k] == '/')
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid %s pattern '%s': a %s name has no '/' (for a cgroup path "
                             "write the cgroup key)",
                             what, glob, what);
        if (!unit_char(glob[k]))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid %s pattern '%s': '%c' is in no %s name", what, glob, glob[k],
                             what);
        if (glob[k] == ']' || glob[k] == '!' || glob[k] == '^')
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid %s pattern '%s': '%c' outside [...]", what, glob, glob[k]);
        if (glob[k] != '[')
            continue;
        /* [...]: an optional ! or ^, then at least one character (a ']'
         * first is literal), up to the closing ']'. */
        size_t j = k + 1;
        if (j < n && (glob[j] == '!' || glob[j] == '^'))
            j++;
        if (j < n && glob[j] == ']')
            j++;
        while (j < n && glob[j] != ']' && glob[j] != '[')
            j++;
        if (j >= n || glob[j] != ']')
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid %s pattern '%s': '[' without ']'",
                             what, glob);
        k = j;
    }
    return TSR_OK;
}

/* A cgroup path prefix: absolute, plain components (no ".", "..", empty
 * ones or wildcards), no '/' at the end but for "/" itself. */
static tsr_status check_cgroup(const char *path)
{
    size_t n = strlen(path);
    if (n >= TSR__CONFIG_CGROUP_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cgroup path too long (at most %d bytes)",
                         TSR__CONFIG_CGROUP_MAX - 1);
    if (path[0] != '/')
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid cgroup path '%s': it is absolute, as /proc/PID/cgroup writes it "
                         "(/system.slice/batch.service)",
                         path);
    if (strpbrk(path, "*?[]"))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid cgroup path '%s': a path is a prefix, not a pattern", path);
    for (const char *p = path + 1; n > 1;) {
        size_t c = strcspn(p, "/");
        if (c == 0 || (c == 1 && p[0] == '.') || (c == 2 && p[0] == '.' && p[1] == '.'))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "invalid cgroup path '%s': an empty, '.' or '..' component", path);
        if (!p[c])
            break;
        p += c + 1;
    }
    return TSR_OK;
}

static tsr__config_match *find_match(tsr__config_match *list, size_t count, tsr__config_key_id key,
                                     const char *pattern)
{
    for (size_t k = 0; k < count; k++)
        if (list[k].key == key && strcmp(list[k].pattern, pattern) == 0)
            return &list[k];
    return NULL;
}

/* Adds or replaces (in place) the line of e's key and pattern. */
static tsr_status put_match(tsr__config *cfg, const tsr__config_match *e)
{
    tsr__config_match *old = find_match(cfg->matches, cfg->match_count, e->key, e->pattern);
    if (old) {
        *old = *e;
        return TSR_OK;
    }
    if ((cfg->match_count & (cfg->match_count - 1)) == 0) {
        size_t cap = cfg->match_count ? cfg->match_count * 2 : 4;
        tsr__config_match *grown = realloc(cfg->matches, cap * sizeof *grown);
        if (!grown)
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory reading the configuration");
        cfg->matches = grown;
    }
    cfg->matches[cfg->match_count++] = *e;
    return TSR_OK;
}

/* devices.visible.unit.<glob> = LIST and its five kin. A file (line > 0)
 * may name a pattern once; the command line replaces. */
static tsr_status set_match_entry(tsr__config *cfg, const key_row *row, const char *suffix,
                                  const char *value, unsigned line, const tsr__config_resolver *r)
{
    static const char *const what[] = {"", "unit", "slice", "cgroup"};
    if (!*suffix)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "missing %s %s (write %s%s = %s)",
                         what[row->match], row->match == MATCH_CGROUP ? "path" : "pattern",
                         row->pub.name, row->pub.suffix, row->pub.metavar);
    tsr_status st =
        row->match == MATCH_CGROUP ? check_cgroup(suffix) : check_glob(suffix, what[row->match]);
    if (st != TSR_OK)
        return st;
    tsr__config_value v = {0};
    st = parse_value(row, value, &v, r);
    if (st != TSR_OK)
        return st;
    tsr__config_match e = {.key = (tsr__config_key_id)(row - keys),
                           .limit = v.limit,
                           .all_devices = v.all_devices,
                           .device_count = v.device_count,
                           .line = line};
    snprintf(e.pattern, sizeof e.pattern, "%s", suffix);
    snprintf(e.text, sizeof e.text, "%s", v.text);
    memcpy(e.devices, v.devices, sizeof e.devices);
    const tsr__config_match *old = find_match(cfg->matches, cfg->match_count, e.key, e.pattern);
    if (line && old && old->line)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "already set on line %u", old->line);
    return put_match(cfg, &e);
}

/* How specific a glob is: its characters that are not wildcards ([...]
 * counts as one). */
static size_t glob_weight(const char *glob)
{
    size_t weight = 0;
    for (const char *p = glob; *p; p++) {
        if (*p == '*' || *p == '?')
            continue;
        if (*p == '[') {
            const char *close = strchr(p + 2, ']');
            p = close ? close : p;
        }
        weight++;
    }
    return weight;
}

bool tsr__config_cgroup_under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 1)
        return path[0] == '/';
    return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const tsr__config_match *tsr__config_match_find(const tsr__config_match *list, size_t count,
                                                tsr__config_key_id key, tsr__place where)
{
    if ((unsigned)key >= TSR__CONF_KEY_COUNT || keys[key].kind != KIND_MATCH)
        return NULL;
    match_kind kind = keys[key].match;
    const char *name = kind == MATCH_UNIT    ? where.unit
                       : kind == MATCH_SLICE ? where.slice
                                             : where.cgroup;
    if (!name || !*name)
        return NULL;
    const tsr__config_match *best = NULL;
    size_t best_weight = 0;
    for (size_t k = 0; k < count; k++) {
        const tsr__config_match *m = &list[k];
        if (m->key != key)
            continue;
        bool hit = kind == MATCH_CGROUP ? tsr__config_cgroup_under(name, m->pattern)
                                        : fnmatch(m->pattern, name, FNM_NOESCAPE) == 0;
        size_t weight = kind == MATCH_CGROUP ? strlen(m->pattern) : glob_weight(m->pattern);
        if (hit && (!best || weight > best_weight)) {
            best = m;
            best_weight = weight;
        }
    }
    return best;
}

const tsr__config_match *tsr__config_visible_for(const tsr__config *cfg, tsr__place where)
{
    static const tsr__config_key_id order[] = {TSR__CONF_VISIBLE_CGROUP, TSR__CONF_VISIBLE_UNIT,
                                               TSR__CONF_VISIBLE_SLICE};
    for (size_t k = 0; k < TSR__ARRAY_SIZE(order); k++) {
        const tsr__config_match *m =
            tsr__config_match_find(cfg->matches, cfg->match_count, order[k], where);
        if (m)
            return m;
    }
    return NULL;
}

/* The row of a key and, for a list, where its suffix starts. */
static const key_row *find_key(const char *key, const char **suffix)
{
    for (size_t k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const key_row *row = &keys[k];
        size_t n = strlen(row->pub.name);
        if (!row->pub.suffix && strcmp(key, row->pub.name) == 0)
            return row;
        /* "memory_limit.uid" alone, or with the dot, lacks its name. */
        if (row->pub.suffix && strncmp(key, row->pub.name, n - 1) == 0 &&
            (key[n - 1] == '\0' || key[n - 1] == '.')) {
            *suffix = key[n - 1] ? key + n : "";
            return row;
        }
    }
    return NULL;
}

/* Sets `key` = `value`; the message says only what is wrong. */
static tsr_status set_key(tsr__config *cfg, const char *key, const char *value, unsigned line,
                          unsigned *lines, const tsr__config_resolver *r)
{
    const char *suffix = NULL;
    const key_row *row = find_key(key, &suffix);
    if (!row)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "unknown key");
    if (row->kind == KIND_MATCH)
        return set_match_entry(cfg, row, suffix, value, line, r);
    if (row->pub.suffix)
        return set_list_entry(cfg, row, suffix, value, line, r);
    size_t k = (size_t)(row - keys);
    if (lines && lines[k])
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "already set on line %u", lines[k]);
    tsr_status st = parse_value(row, value, &cfg->v[k], r);
    if (st != TSR_OK)
        return st;
    cfg->v[k].set = true;
    if (lines)
        lines[k] = line;
    return TSR_OK;
}

/* Prefixes the thread's message with "WHERE: ". */
static tsr_status place(tsr_status st, const char *where)
{
    char msg[TSR__ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", tsr_last_error());
    return tsr__fail(st, "%s: %s", where, msg);
}

tsr_status tsr__config_set(tsr__config *cfg, const char *where, const char *key, const char *value,
                           const tsr__config_resolver *r)
{
    tsr_status st = set_key(cfg, key, value, 0, NULL, r);
    if (st != TSR_OK) {
        char at[TSR__CONFIG_LINE_MAX + 64];
        snprintf(at, sizeof at, "%s: %s", where, key);
        return place(st, at);
    }
    return TSR_OK;
}

tsr_status tsr__config_set_option(tsr__config *cfg, const char *option, const char *value,
                                  const tsr__config_resolver *r)
{
    char where[64];
    snprintf(where, sizeof where, "--%s", option);
    for (size_t k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        if (!keys[k].pub.option || strcmp(keys[k].pub.option, option) != 0)
            continue;
        tsr_status st = set_key(cfg, keys[k].pub.name, value, 0, NULL, r);
        return st == TSR_OK ? TSR_OK : place(st, where);
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: no such option", where);
}

/* ---- files -------------------------------------------------------------- */

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Trims blanks off both ends of [*start, *start + *len). */
static void trim(const char **start, size_t *len)
{
    while (*len && blank(**start))
        ++*start, --*len;
    while (*len && blank((*start)[*len - 1]))
        --*len;
}

static bool valid_key(const char *key, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if (!isgraph((unsigned char)key[k]))
            return false;
    return len > 0;
}

/* One line (no newline), already free of control characters. */
static tsr_status parse_line(tsr__config *cfg, const char *line, size_t len, unsigned lineno,
                             unsigned *lines, const tsr__config_resolver *r)
{
    trim(&line, &len);
    if (len == 0 || line[0] == '#')
        return TSR_OK;
    if (line[0] == '[')
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "sections such as '%.*s' are not used: write each key in full "
                         "(socket.path = ...)",
                         (int)(len > 64 ? 64 : len), line);
    const char *eq = memchr(line, '=', len);
    const char *key = line, *value = eq ? eq + 1 : NULL;
    size_t key_len = eq ? (size_t)(eq - line) : len;
    size_t value_len = eq ? len - key_len - 1 : 0;
    trim(&key, &key_len);
    if (!eq || key_len == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "expected 'key = value', got '%.*s'",
                         (int)(len > 64 ? 64 : len), line);
    if (!valid_key(key, key_len))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid key '%.*s' (keys have no blanks)",
                         (int)(key_len > 64 ? 64 : key_len), key);
    trim(&value, &value_len);
    char k[TSR__CONFIG_LINE_MAX + 1], v[TSR__CONFIG_LINE_MAX + 1];
    snprintf(k, sizeof k, "%.*s", (int)key_len, key);
    snprintf(v, sizeof v, "%.*s", (int)value_len, value);
    tsr_status st = set_key(cfg, k, v, lineno, lines, r);
    return st == TSR_OK ? TSR_OK : place(st, k);
}

/* Refuses control characters other than tab (NUL included), so that every
 * message quoting the file prints cleanly. */
static tsr_status check_line(const char *line, size_t len)
{
    if (len > TSR__CONFIG_LINE_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "line too long (over %d bytes)",
                         TSR__CONFIG_LINE_MAX);
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)line[k];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "control character 0x%02x in the line", c);
    }
    return TSR_OK;
}

tsr_status tsr__config_parse(tsr__config *cfg, const char *source, const char *text, size_t len,
                             const tsr__config_resolver *r)
{
    unsigned lines[TSR__CONF_KEY_COUNT] = {0};
    unsigned lineno = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        lineno++;
        if (n && line[n - 1] == '\r')
            n--;
        tsr_status st = check_line(line, n);
        unsigned notes = cfg->note_count;
        if (st == TSR_OK)
            st = parse_line(cfg, line, n, lineno, lines, r);
        if (st == TSR_OK && cfg->note_count > notes) {
            char *note = cfg->notes[notes], said[TSR__CONFIG_NOTE_MAX - 240];
            snprintf(said, sizeof said, "%s", note);
            snprintf(note, TSR__CONFIG_NOTE_MAX, "%.200s:%u: %s", source, lineno, said);
        }
        if (st != TSR_OK) {
            char where[TSR__CONFIG_TEXT_MAX + 16];
            snprintf(where, sizeof where, "%s:%u", source, lineno);
            return place(st, where);
        }
    }
    return TSR_OK;
}

/* What a path that is not a regular file is, for the error. */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "not a regular file";
}

/* Reads the whole file into a fresh buffer. Only a regular file of bounded
 * size is read: the loop thread reloads, and a FIFO or a device could keep
 * it waiting forever with every session frozen behind it. O_NONBLOCK makes
 * the open itself return at once on a FIFO with no writer; it changes
 * nothing for a regular file. /dev/null is let through as an empty file,
 * which is how one says "no file" on the command line. */
static tsr_status read_file(const char *path, bool missing_ok, char **out, size_t *out_len)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT && missing_ok)
        return TSR_OK;
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    tsr_status status = TSR_OK;
    bool empty = false;
    if (fstat(fd, &st) < 0)
        status = tsr__fail(TSR_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) /* /dev/null */
        empty = true;
    else if (!S_ISREG(st.st_mode))
        status = tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                           "%s is %s; the configuration must be a regular file", path,
                           file_kind(st.st_mode));
    else if ((uint64_t)st.st_size > TSR__CONFIG_FILE_MAX)
        status = tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: too large (over %u bytes)", path,
                           TSR__CONFIG_FILE_MAX);
    char *text = status == TSR_OK ? malloc(TSR__CONFIG_FILE_MAX + 1) : NULL;
    if (status == TSR_OK && !text)
        status = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
    /* The file may grow between fstat and read: read up to one byte past
     * the limit to notice. */
    size_t len = 0;
    while (status == TSR_OK && !empty && len <= TSR__CONFIG_FILE_MAX) {
        ssize_t got = read(fd, text + len, TSR__CONFIG_FILE_MAX + 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            status = tsr__fail(TSR_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        else if (got == 0)
            break;
        else
            len += (size_t)got;
    }
    if (status == TSR_OK && len > TSR__CONFIG_FILE_MAX)
        status = tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: too large (over %u bytes)", path,
                           TSR__CONFIG_FILE_MAX);
    close(fd);
    if (status != TSR_OK) {
        free(text);
        return status;
    }
    *out = text;
    *out_len = len;
    return TSR_OK;
}

/* Whether a drop-in directory entry is a configuration to read: NAME.conf,
 * not hidden (editors' and package managers' leftovers are not). */
static int is_dropin(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".conf") == 0;
}

/* Each file in a scratch configuration merged over cfg, in name order
 * (C locale): a later file overrides an earlier one key by key, and a
 * user's or group's limit by id, as systemd's drop-ins do. */
static tsr_status load_dropins(tsr__config *cfg, const char *dir, bool *found,
                               const tsr__config_resolver *r)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, is_dropin, alphasort);
    if (n < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return TSR_OK;
        return tsr__fail(TSR_ERR_IO, "cannot read %s: %s", dir, strerror(errno));
    }
    tsr_status st = TSR_OK;
    for (int k = 0; k < n; k++) {
        char path[TSR__CONFIG_TEXT_MAX + 256];
        if (st == TSR_OK &&
            snprintf(path, sizeof path, "%s/%s", dir, names[k]->d_name) >= (int)sizeof path)
            st = tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s/%s: path too long", dir, names[k]->d_name);
        char *text = NULL;
        size_t len = 0;
        if (st == TSR_OK)
            st = read_file(path, true, &text, &len);
        if (st == TSR_OK && text) {
            tsr__config one;
            tsr__config_clear(&one);
            st = tsr__config_parse(&one, path, text, len, r);
            if (st == TSR_OK)
                st = tsr__config_merge(cfg, &one);
            for (unsigned i = 0; st == TSR_OK && i < one.note_count; i++) {
                if (cfg->note_count < TSR__CONFIG_NOTES)
                    memcpy(cfg->notes[cfg->note_count++], one.notes[i], TSR__CONFIG_NOTE_MAX);
                else
                    cfg->notes_dropped++;
            }
            cfg->notes_dropped += one.notes_dropped;
            tsr__config_free(&one);
            if (found && st == TSR_OK)
                *found = true;
        }
        free(text);
        free(names[k]);
    }
    free(names);
    return st;
}

tsr_status tsr__config_load(tsr__config *cfg, const char *path, bool missing_ok, bool *found,
                            const tsr__config_resolver *r)
{
    if (found)
        *found = false;
    char *text;
    size_t len = 0;
    tsr_status st = read_file(path, missing_ok, &text, &len);
    if (st != TSR_OK)
        return st;
    if (text) {
        st = tsr__config_parse(cfg, path, text, len, r);
        free(text);
        if (st != TSR_OK)
            return st;
        if (found)
            *found = true;
    }
    if (strcmp(path, "/dev/null") == 0)
        return TSR_OK;
    char dir[TSR__CONFIG_TEXT_MAX + 8];
    if (snprintf(dir, sizeof dir, "%s.d", path) >= (int)sizeof dir)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: path too long", path);
    return load_dropins(cfg, dir, found, r);
}

/* ---- combining and comparing ------------------------------------------- */

tsr_status tsr__config_merge(tsr__config *base, const tsr__config *over)
{
    for (size_t k = 0; k < TSR__CONF_KEY_COUNT; k++)
        if (over->v[k].set)
            base->v[k] = over->v[k];
    for (size_t k = 0; k < over->uid_count; k++)
        if (put_entry(base, KIND_UIDS, &over->uids[k]) != TSR_OK)
            return TSR_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; k < over->group_count; k++)
        if (put_entry(base, KIND_GROUPS, &over->groups[k]) != TSR_OK)
            return TSR_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; k < over->match_count; k++)
        if (put_match(base, &over->matches[k]) != TSR_OK)
            return TSR_ERR_OUT_OF_MEMORY;
    return TSR_OK;
}

tsr_status tsr__config_copy(tsr__config *dst, const tsr__config *src)
{
    tsr__config_clear(dst);
    memcpy(dst->v, src->v, sizeof dst->v);
    tsr_status st = tsr__config_merge(dst, src);
    if (st != TSR_OK)
        tsr__config_free(dst);
    return st;
}

static bool same_limit(tsr__limit a, tsr__limit b)
{
    return a.kind == b.kind && (a.kind == TSR__LIMIT_NONE || a.value == b.value);
}

static bool same_list(const tsr__config_id_limit *a, size_t na, const tsr__config_id_limit *b,
                      size_t nb)
{
    if (na != nb)
        return false;
    for (size_t k = 0; k < na; k++) {
        const tsr__config_id_limit *other = find_id((tsr__config_id_limit *)b, nb, a[k].id);
        if (!other || !same_limit(a[k].limit, other->limit))
            return false;
    }
    return true;
}

static bool same_devices(bool all_a, uint32_t na, const int32_t *a, bool all_b, uint32_t nb,
                         const int32_t *b)
{
    return all_a == all_b && na == nb && memcmp(a, b, na * sizeof *a) == 0;
}

/* Whether every line of key `id` in a is in b with the same value, and
 * b has no other. */
static bool same_matches(const tsr__config *a, const tsr__config *b, tsr__config_key_id id)
{
    size_t na = 0, nb = 0;
    for (size_t k = 0; k < a->match_count; k++) {
        const tsr__config_match *x = &a->matches[k];
        if (x->key != id)
            continue;
        na++;
        const tsr__config_match *y = find_match(b->matches, b->match_count, id, x->pattern);
        if (!y || !same_limit(x->limit, y->limit) ||
            !same_devices(x->all_devices, x->device_count, x->devices, y->all_devices,
                          y->device_count, y->devices))
            return false;
    }
    for (size_t k = 0; k < b->match_count; k++)
        nb += b->matches[k].key == id;
    return na == nb;
}

bool tsr__config_equal(const tsr__config *a, const tsr__config *b, tsr__config_key_id id)
{
    const tsr__config_value *x = &a->v[id], *y = &b->v[id];
    switch (keys[id].kind) {
    case KIND_TEXT:
        return strcmp(x->text, y->text) == 0;
    case KIND_NUMBER:
        return x->number == y->number;
    case KIND_GROUP:
        return (x->text[0] != '\0') == (y->text[0] != '\0') && x->number == y->number;
    case KIND_LIMIT:
        return same_limit(x->limit, y->limit);
    case KIND_DEVICES:
        return same_devices(x->all_devices, x->device_count, x->devices, y->all_devices,
                            y->device_count, y->devices);
    case KIND_MATCH:
        return same_matches(a, b, id);
    case KIND_UIDS:
        return same_list(a->uids, a->uid_count, b->uids, b->uid_count);
    case KIND_GROUPS:
        return same_list(a->groups, a->group_count, b->groups, b->group_count);
    }
    return false;
}

const char *tsr__config_text(const tsr__config *cfg, tsr__config_key_id id)
{
    return cfg->v[id].text[0] || !keys[id].pub.default_text ? cfg->v[id].text
                                                            : keys[id].pub.default_text;
}

const tsr__config_id_limit *tsr__config_uid_limit(const tsr__config *cfg, uint32_t uid)
{
    return find_id(cfg->uids, cfg->uid_count, uid);
}

const tsr__config_id_limit *tsr__config_group_limit(const tsr__config *cfg, uint32_t gid)
{
    return find_id(cfg->groups, cfg->group_count, gid);
}
