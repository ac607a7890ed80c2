/* tesserad: the Tessera device daemon. main() only reads the command line;
 * server.c does the work. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "core/units.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "tessera/client.h"
#include "tessera/version.h"

static const char usage_text[] =
    "NAME\n"
    "    tesserad - the Tessera device daemon\n"
    "\n"
    "SYNOPSIS\n"
    "    tesserad [--socket PATH] [--foreground] [--memory-limit SIZE]\n"
    "             [--probe-timeout MS] [--log-level LEVEL]\n"
    "    tesserad --help | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    Discovers the machine's devices (every OpenCL platform through the ICD\n"
    "    loader, located with hwloc, libnuma and libdrm), gives them stable\n"
    "    ordinals (opencl:0, opencl:1, ...), and serves programs linked with\n"
    "    libtessera: each connection is a session with its own current device\n"
    "    per thread, shared-memory arenas for its tensors and a request ring.\n"
    "    Everything a session holds is released when it ends, however it ends.\n"
    "\n"
    "    Logs go to standard error, one line per event, with syslog priority\n"
    "    prefixes (<3> error ... <7> debug) for journald.\n"
    "\n"
    "OPTIONS\n"
    "    --socket PATH\n"
    "        Listen on PATH. Default: $TESSERA_SOCKET, else " TSR_DEFAULT_SOCKET ".\n"
    "        The directory must exist. A stale socket left by a dead daemon is\n"
    "        replaced; a live daemon's is not.\n"
    "    --foreground\n"
    "        Stay in the foreground (what systemd and tests want). Without it the\n"
    "        daemon detaches once it listens, and the command returns.\n"
    "    --memory-limit SIZE\n"
    "        Lend each device at most SIZE bytes in total across sessions (4096,\n"
    "        512M, 2GiB, ...). Default: the device's own memory size.\n"
    "    --probe-timeout MS\n"
    "        How long the OpenCL discovery probe may take before it is killed and\n"
    "        the daemon goes on without OpenCL devices. Default: 20000.\n"
    "    --log-level LEVEL\n"
    "        err, warning, notice, info (default) or debug.\n"
    "    -h, --help\n"
    "        Print this text and exit.\n"
    "    --version\n"
    "        Print the version and exit.\n"
    "\n"
    "SIGNALS\n"
    "    SIGTERM, SIGINT   end every session, remove the socket, exit 0.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 stopped by a signal; 1 could not start (the reason is logged);\n"
    "    2 bad command line.\n"
    "\n"
    "ENVIRONMENT\n"
    "    TESSERA_SOCKET   the socket path when --socket is not given.\n"
    "    OCL_ICD_VENDORS  where the OpenCL ICD loader looks for drivers.\n"
    "\n"
    "SEE ALSO\n"
    "    tessera(1): `tessera devices` and `tessera ps` ask this daemon.\n";

static const struct {
    const char *name;
    int level;
} log_levels[] = {
    {"err", TSR__LOG_ERR},   {"warning", TSR__LOG_WARNING}, {"notice", TSR__LOG_NOTICE},
    {"info", TSR__LOG_INFO}, {"debug", TSR__LOG_DEBUG},
};

static int usage_error(const char *what, const char *detail)
{
    fprintf(stderr, "tesserad: %s%s", what, detail);
    fprintf(stderr, "\nTry 'tesserad --help' for more information.\n");
    return 2;
}

/* Without --foreground: the parent returns once the child listens (or
 * failed), so `tesserad && tessera devices` works. */
static int detach(int *ready_fd)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        close(fds[1]);
        char status = 1;
        ssize_t got = read(fds[0], &status, 1);
        _exit(got == 1 ? status : 1);
    }
    close(fds[0]);
    setsid();
    *ready_fd = fds[1];
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_SOCKET = 256, OPT_FOREGROUND, OPT_MEMORY, OPT_PROBE, OPT_LOG, OPT_VERSION };
    static const struct option options[] = {
        {"socket", required_argument, NULL, OPT_SOCKET},
        {"foreground", no_argument, NULL, OPT_FOREGROUND},
        {"memory-limit", required_argument, NULL, OPT_MEMORY},
        {"probe-timeout", required_argument, NULL, OPT_PROBE},
        {"log-level", required_argument, NULL, OPT_LOG},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    tsr__server_options so = {0};
    bool foreground = false;
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, "h", options, NULL);
        if (c == -1)
            break;
        switch (c) {
        case OPT_SOCKET:
            so.socket_path = optarg;
            break;
        case OPT_FOREGROUND:
            foreground = true;
            break;
        case OPT_MEMORY:
            if (tsr__parse_size(optarg, &so.memory_limit) != TSR_OK)
                return usage_error("--memory-limit: ", tsr_last_error());
            if (so.memory_limit == 0)
                return usage_error("--memory-limit: ", "must be above 0");
            break;
        case OPT_PROBE: {
            char *end;
            errno = 0;
            long ms = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || ms <= 0 || ms > 3600000)
                return usage_error("--probe-timeout: invalid milliseconds: ", optarg);
            so.probe_timeout_ms = (int)ms;
            break;
        }
        case OPT_LOG: {
            int level = -1;
            for (size_t k = 0; k < sizeof log_levels / sizeof log_levels[0]; k++)
                if (strcmp(optarg, log_levels[k].name) == 0)
                    level = log_levels[k].level;
            if (level < 0)
                return usage_error("--log-level: use err, warning, notice, info or debug, not ",
                                   optarg);
            tsr__log_set_level(level);
            break;
        }
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        case OPT_VERSION:
            printf("tesserad %s (protocol %u)\n", tsr_version_string(), TSR__WIRE_VERSION);
            return 0;
        default:
            return usage_error("unknown or incomplete option ", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument ", argv[optind]);
    if (!so.socket_path)
        so.socket_path = getenv("TESSERA_SOCKET");
    if (!so.socket_path || !*so.socket_path)
        so.socket_path = TSR_DEFAULT_SOCKET;

    int ready_fd = -1;
    if (!foreground && detach(&ready_fd) < 0) {
        tsr__log(TSR__LOG_ERR, "cannot detach: %s", strerror(errno));
        return 1;
    }
    tsr__server server;
    tsr_status st = tsr__server_init(&server, &so);
    if (ready_fd >= 0) {
        char status = st == TSR_OK ? 0 : 1;
        ssize_t ignored = write(ready_fd, &status, 1);
        (void)ignored;
        close(ready_fd);
    }
    if (st != TSR_OK) {
        tsr__log(TSR__LOG_ERR, "cannot start: %s", tsr_last_error());
        return 1;
    }
    sd_notify(0, "READY=1");
    st = tsr__server_run(&server);
    sd_notify(0, "STOPPING=1");
    tsr__server_fini(&server);
    if (st != TSR_OK) {
        tsr__log(TSR__LOG_ERR, "stopped: %s", tsr_last_error());
        return 1;
    }
    tsr__log(TSR__LOG_NOTICE, "stopped");
    return 0;
}
