/* See daemon.h. */
#include "cli/daemon.h"

#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPENCL 256

static const char *const socket_option[] = {"socket", NULL};

/* The daemon's ordinal of each OpenCL device the session sees, by the
 * session's ordinal. One command opens one session, so one map serves. */
static int32_t opencl_count;
static int32_t daemon_ordinal[MAX_OPENCL];

static int read_device_map(tsr_client *c)
{
    int32_t n = 0;
    if (tsr_device_count(c, TSR_DEVICE_OPENCL, &n) != TSR_OK)
        return cli_fail(tsr_last_error());
    opencl_count = n < MAX_OPENCL ? n : MAX_OPENCL;
    for (int32_t k = 0; k < opencl_count; k++) {
        tsr_device_properties p;
        if (tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, k}, &p) != TSR_OK)
            return cli_fail(tsr_last_error());
        daemon_ordinal[k] = p.daemon_index;
    }
    return -1;
}

int cli_connect(const cli_command *cmd, int argc, char **argv, cli_args *args, int max_pos,
                tsr_client **out)
{
    const char *values[1] = {NULL};
    args->value_names = socket_option;
    args->values = values;
    int rc = cli_parse(cmd, argc, argv, args);
    if (rc != EXIT_OK)
        return rc;
    if (args->help) {
        cli_print_manual(stdout, cmd);
        return EXIT_OK;
    }
    if (args->npos > max_pos)
        return cli_usage_error(cmd, "unexpected argument '%s'", args->pos[max_pos]);
    tsr_client_options o = {.socket_path = values[0], .name = "tessera"};
    unsetenv("TESSERA_VISIBLE_DEVICES");
    if (tsr_client_open(&o, out) != TSR_OK)
        return cli_fail(tsr_last_error());
    rc = read_device_map(*out);
    if (rc >= 0) {
        tsr_client_close(*out);
        *out = NULL;
    }
    return rc;
}

int32_t cli_opencl_count(void)
{
    return opencl_count;
}

int32_t cli_daemon_ordinal(int32_t k)
{
    return k >= 0 && k < opencl_count ? daemon_ordinal[k] : -1;
}

const char *cli_bytes(uint64_t bytes, char *buf, size_t n)
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

const char *cli_user_name(uint32_t uid, char *buf, size_t n)
{
    struct passwd pw, *found = NULL;
    char text[1024];
    if (getpwuid_r((uid_t)uid, &pw, text, sizeof text, &found) == 0 && found)
        snprintf(buf, n, "%s", found->pw_name);
    else
        snprintf(buf, n, "%" PRIu32, uid);
    return buf;
}

const char *cli_device_name(tsr_device d, char *buf, size_t n)
{
    tsr_device_str(d, buf, n);
    return buf;
}

const char *cli_shown_device(tsr_device d, char *buf, size_t n)
{
    if (d.type != TSR_DEVICE_OPENCL || d.index < 0)
        return cli_device_name(d, buf, n);
    for (int32_t k = 0; k < opencl_count; k++)
        if (daemon_ordinal[k] == d.index) {
            snprintf(buf, n, "opencl:%d", (int)k);
            return buf;
        }
    snprintf(buf, n, "opencl:%d*", (int)d.index);
    return buf;
}

int cli_daemon_device(tsr_client *c, tsr_device d, tsr_device *out)
{
    tsr_device_properties p;
    if (tsr_device_get_properties(c, d, &p) != TSR_OK)
        return cli_fail(tsr_last_error());
    *out = p.device.type == TSR_DEVICE_OPENCL ? (tsr_device){TSR_DEVICE_OPENCL, p.daemon_index}
                                              : p.device;
    return -1;
}

int cli_device_arg(const cli_command *cmd, const char *text, tsr_device *out)
{
    char *end;
    long k = strtol(text, &end, 10);
    if (*text && !*end && k >= 0 && k < 4096) {
        *out = (tsr_device){TSR_DEVICE_OPENCL, (int32_t)k};
        return -1;
    }
    if (tsr_device_parse(text, out) != TSR_OK)
        return cli_usage_error(cmd, "%s", tsr_last_error());
    return -1;
}

void cli_json_text(const char *s)
{
    json_string(stdout, s && *s ? s : NULL);
}
