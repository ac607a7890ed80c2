/* tesserad: the Tessera device daemon. main() only reads the command line
 * and the configuration (config.c); server.c does the work. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/server.h"
#include "tessera/client.h"
#include "tessera/version.h"

/* The manual: what precedes the configuration keys' options, which
 * tsr__config_write_help prints from the key table, and what follows. */
static const char usage_head[] =
    "NAME\n"
    "    tesserad - the Tessera device daemon\n"
    "\n"
    "SYNOPSIS\n"
    "    tesserad [--config FILE] [--foreground] [--set KEY=VALUE]... [OPTION]...\n"
    "    tesserad [--config FILE] [--set KEY=VALUE]... [OPTION]... --print-config\n"
    "    tesserad --help | --help-config | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    Discovers the machine's devices (every OpenCL platform through the ICD\n"
    "    loader, located with hwloc, libnuma and libdrm), gives them stable\n"
    "    ordinals (opencl:0, opencl:1, ...), and serves programs linked with\n"
    "    libtessera: each connection is a session with its own current device\n"
    "    per thread, shared-memory arenas for its tensors and a request ring.\n"
    "    Everything a session holds is released when it ends, however it ends.\n"
    "\n"
    "    Each setting comes from the first of: the command line, the\n"
    "    configuration file, the environment ($TESSERA_SOCKET), the built-in\n"
    "    default.\n"
    "\n"
    "    Logs go to standard error, one line per event, with syslog priority\n"
    "    prefixes (<3> error ... <7> debug) for journald.\n"
    "\n"
    "OPTIONS\n"
    "    --config FILE\n"
    "        Read FILE instead of " TSR__CONFIG_DEFAULT_PATH ". That file may be\n"
    "        missing (all defaults); FILE must exist. SIGHUP reads it again.\n"
    "    --set KEY=VALUE\n"
    "        Set any configuration key as a line of the file would, for example\n"
    "        --set memory_limit.uid.alice=4GiB. May be repeated.\n"
    "    --print-config\n"
    "        Print the configuration that would be in force, in the file's\n"
    "        format, and exit. With no file and no options it is the sample\n"
    "        configuration: every key commented out with its default.\n"
    "    --foreground\n"
    "        Stay in the foreground (what systemd and tests want). Without it the\n"
    "        daemon detaches once it listens, and the command returns.\n"
    "    -h, --help\n"
    "        Print this text and exit.\n"
    "    --help-config\n"
    "        Print the manual of the configuration file, tesserad.conf(5):\n"
    "        its format and every key, and exit.\n"
    "    --version\n"
    "        Print the version and exit.\n";

static const char usage_tail[] =
    "\n"
    "CONFIGURATION FILE\n"
    "    " TSR__CONFIG_DEFAULT_PATH ": one `key = value` per line; blank lines\n"
    "    and lines starting with # are ignored. Each option above that names a\n"
    "    key can be set there too, and so can memory_limit.session,\n"
    "    memory_limit.uid_default, memory_limit.uid.<user> and\n"
    "    memory_limit.group.<group>. Memory limits are sizes (4GiB), percentages\n"
    "    of the device's memory (50%) or unlimited. `tesserad --print-config`\n"
    "    prints every key with its description; docs/configuration.md in the\n"
    "    Tessera sources is the reference.\n"
    "\n"
    "SIGNALS\n"
    "    SIGTERM, SIGINT   end every session, remove the socket, exit 0.\n"
    "    SIGHUP            read the configuration again and apply the memory\n"
    "                      limits, log.level, the sessions.* caps and\n"
    "                      devices.visible (for new sessions); other changes are\n"
    "                      logged and wait for a restart. A file with an error,\n"
    "                      or a path that is not a regular file, changes nothing.\n"
    "\n"
    "SYSTEMD\n"
    "    Takes the listening socket systemd passes (tesserad.socket) instead of\n"
    "    binding its own. With Type=notify it reports READY=1 after discovery,\n"
    "    STATUS= with device and session counts, RELOADING=1 and STOPPING=1,\n"
    "    and sends WATCHDOG=1 at half of WatchdogSec=.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 stopped by a signal; 1 could not start, a bad configuration included\n"
    "    (the reason is logged); 2 bad command line.\n"
    "\n"
    "ENVIRONMENT\n"
    "    TESSERA_SOCKET   the socket path when neither the file nor --socket sets it.\n"
    "    TESSERA_KERNEL_CACHE, CACHE_DIRECTORY\n"
    "                     where compiled kernels are kept when neither the file\n"
    "                     nor --cache-dir says (systemd's CacheDirectory= sets\n"
    "                     CACHE_DIRECTORY).\n"
    "    OCL_ICD_VENDORS  where the OpenCL ICD loader looks for drivers.\n"
    "\n"
    "FILES\n"
    "    " TSR__CONFIG_DEFAULT_PATH "\n"
    "        The configuration file.\n"
    "    " TSR__CONFIG_DEFAULT_PATH ".d/*.conf\n"
    "        Drop-ins read after it, in name order (tesserad.conf(5)).\n"
    "\n"
    "SEE ALSO\n"
    "    tessera(1): `tessera devices` and `tessera ps` ask this daemon.\n"
    "    tesserad.conf(5): the configuration file.\n"
    "    systemd.unit(5): tesserad.service and tesserad.socket.\n";

static void print_usage(void)
{
    fputs(usage_head, stdout);
    tsr__config_write_help(stdout);
    fputs(usage_tail, stdout);
}

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

enum {
    OPT_CONFIG = 256,
    OPT_SET,
    OPT_PRINT,
    OPT_FOREGROUND,
    OPT_VERSION,
    OPT_HELP_CONFIG,
    OPT_KEY
};
#define FIXED_OPTIONS 7

/* The fixed options, then one per configuration key that has one. */
static void build_options(struct option *out)
{
    static const struct option fixed[FIXED_OPTIONS] = {
        {"config", required_argument, NULL, OPT_CONFIG},
        {"set", required_argument, NULL, OPT_SET},
        {"print-config", no_argument, NULL, OPT_PRINT},
        {"foreground", no_argument, NULL, OPT_FOREGROUND},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"help-config", no_argument, NULL, OPT_HELP_CONFIG},
    };
    size_t n = 0;
    for (size_t k = 0; k < FIXED_OPTIONS; k++)
        out[n++] = fixed[k];
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        if (key->option)
            out[n++] = (struct option){key->option, required_argument, NULL, OPT_KEY + k};
    }
    out[n] = (struct option){NULL, 0, NULL, 0};
}

/* `--set KEY=VALUE` */
static tsr_status set_pair(tsr__config *over, const char *pair)
{
    const char *eq = strchr(pair, '=');
    if (!eq)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "--set: expected KEY=VALUE, not '%s'", pair);
    char key[256];
    snprintf(key, sizeof key, "%.*s", (int)(eq - pair), pair);
    return tsr__config_set(over, "--set", key, eq + 1, NULL);
}

typedef struct command_line {
    tsr__config over; /* the keys the command line sets */
    const char *config_path;
    bool print_config, foreground;
} command_line;

/* Returns -1 to go on, else the exit status. */
static int parse_command_line(int argc, char **argv, command_line *cl)
{
    struct option options[FIXED_OPTIONS + TSR__CONF_KEY_COUNT + 1];
    build_options(options);
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, "h", options, NULL);
        if (c == -1)
            break;
        tsr_status st = TSR_OK;
        if (c == OPT_CONFIG) {
            cl->config_path = optarg;
        } else if (c == OPT_SET) {
            st = set_pair(&cl->over, optarg);
        } else if (c == OPT_PRINT) {
            cl->print_config = true;
        } else if (c == OPT_FOREGROUND) {
            cl->foreground = true;
        } else if (c == 'h') {
            print_usage();
            return 0;
        } else if (c == OPT_HELP_CONFIG) {
            tsr__config_write_manual(stdout);
            return 0;
        } else if (c == OPT_VERSION) {
            printf("tesserad %s (protocol %u)\n", tsr_version_string(), TSR__WIRE_VERSION);
            return 0;
        } else if (c >= OPT_KEY && c < OPT_KEY + TSR__CONF_KEY_COUNT) {
            const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)(c - OPT_KEY));
            st = tsr__config_set_option(&cl->over, key->option, optarg, NULL);
        } else {
            return usage_error("unknown or incomplete option ", argv[optind - 1]);
        }
        if (st != TSR_OK)
            return usage_error(tsr_last_error(), "");
    }
    if (optind < argc)
        return usage_error("unexpected argument ", argv[optind]);
    return -1;
}

/* The defaults and environment, the file, then the command line. */
static tsr_status read_config(const command_line *cl, tsr__config *cfg)
{
    const char *path = cl->config_path ? cl->config_path : TSR__CONFIG_DEFAULT_PATH;
    bool found = false;
    tsr_status st = tsr__config_init(cfg, NULL);
    if (st == TSR_OK)
        st = tsr__config_load(cfg, path, !cl->config_path, &found, NULL);
    if (st == TSR_OK)
        st = tsr__config_merge(cfg, &cl->over);
    if (st == TSR_OK)
        tsr__server_log_notes(cfg); /* --print-config too: what it leaves out */
    if (st == TSR_OK && !cl->print_config) {
        tsr__log_set_level((int)cfg->v[TSR__CONF_LOG_LEVEL].number);
        if (found)
            tsr__log(TSR__LOG_INFO, "configuration: %s", path);
        else
            tsr__log(TSR__LOG_DEBUG, "no %s: using the defaults", path);
    }
    return st;
}

static int serve(const command_line *cl, const tsr__config *cfg)
{
    int ready_fd = -1;
    if (!cl->foreground && detach(&ready_fd) < 0) {
        tsr__log(TSR__LOG_ERR, "cannot detach: %s", strerror(errno));
        return 1;
    }
    tsr__server server;
    tsr__server_options so = {
        .config = cfg,
        .overrides = &cl->over,
        .config_path = cl->config_path ? cl->config_path : TSR__CONFIG_DEFAULT_PATH,
        .config_required = cl->config_path != NULL,
    };
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

int main(int argc, char **argv)
{
    /* Static: a configuration is a few tens of kilobytes. */
    static command_line cl;
    static tsr__config cfg;
    tsr__config_clear(&cl.over);
    tsr__log_detect_journal(true);
    int rc = parse_command_line(argc, argv, &cl);
    if (rc < 0) {
        if (read_config(&cl, &cfg) != TSR_OK) {
            tsr__log(TSR__LOG_ERR, "%s", tsr_last_error());
            rc = 1;
        } else if (cl.print_config) {
            tsr__config_write(stdout, &cfg);
            rc = 0;
        } else {
            rc = serve(&cl, &cfg);
        }
    }
    tsr__config_free(&cfg);
    tsr__config_free(&cl.over);
    return rc;
}
