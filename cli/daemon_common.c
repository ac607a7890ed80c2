/* See daemon.h. */
#include "cli/daemon.h"

#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ACCELERATORS 256

/* The accelerator type the daemon serves (TSR_DEVICE_TYPE_COUNT while the
 * session sees none), and the daemon's ordinal of each accelerator the
 * session sees, by the session's ordinal. One command opens one session,
 * so one map serves. */
static tsr_device_type accelerator = TSR_DEVICE_TYPE_COUNT;
static int32_t accelerator_count;
static int32_t daemon_ordinal[MAX_ACCELERATORS];

static tsr_status read_device_map(tsr_client *c)
{
    int32_t n = 0;
    tsr_status st;
    accelerator = TSR_DEVICE_TYPE_COUNT;
    accelerator_count = 0;
    /* No accelerator is an answer, not a failure: cpu and meta remain. */
    if (tsr_accelerator_type(c, &accelerator) != TSR_OK)
        accelerator = TSR_DEVICE_TYPE_COUNT;
    else if ((st = tsr_device_count(c, accelerator, &n)) != TSR_OK)
        return st;
    int32_t count = n < MAX_ACCELERATORS ? n : MAX_ACCELERATORS;
    for (int32_t k = 0; k < count; k++) {
        tsr_device_properties p;
        if ((st = tsr_device_get_properties(c, (tsr_device){accelerator, k}, &p)) != TSR_OK)
            return st;
        daemon_ordinal[k] = p.daemon_index;
    }
    accelerator_count = count;
    return TSR_OK;
}

tsr_status cli_try_connect(const cli_args *args, tsr_client **out)
{
    tsr_client_options o = {
        .socket_path = args->value[CLI_OPT_SOCKET], .name = "tessera", .flags = TSR_CLIENT_MONITOR};
    unsetenv("TESSERA_VISIBLE_DEVICES");
    *out = NULL;
    tsr_status st = tsr_client_open(&o, out);
    if (st == TSR_OK && (st = read_device_map(*out)) != TSR_OK) {
        /* The message of the call that failed outlives the close. */
        char message[1024];
        snprintf(message, sizeof message, "%s", tsr_last_error());
        tsr_client_close(*out);
        *out = NULL;
        tsr_error_set(st, message);
    }
    return st;
}

int cli_connect(const cli_args *args, tsr_client **out)
{
    return cli_try_connect(args, out) == TSR_OK ? -1 : cli_fail(tsr_last_error());
}

int32_t cli_accelerator_count(void)
{
    return accelerator_count;
}

tsr_device cli_accelerator(int32_t k)
{
    return (tsr_device){accelerator, k};
}

const char *cli_accelerator_name(int32_t k, char *buf, size_t n)
{
    return cli_device_name(cli_accelerator(k), buf, n);
}

bool cli_is_accelerator(tsr_device d)
{
    return d.type == accelerator && accelerator_count > 0;
}

int32_t cli_daemon_ordinal(int32_t k)
{
    return k >= 0 && k < accelerator_count ? daemon_ordinal[k] : -1;
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
    if (!cli_is_accelerator(d) || d.index < 0)
        return cli_device_name(d, buf, n);
    for (int32_t k = 0; k < accelerator_count; k++)
        if (daemon_ordinal[k] == d.index)
            return cli_device_name(cli_accelerator(k), buf, n);
    snprintf(buf, n, "%s:%d*", tsr_device_type_name(d.type), (int)d.index);
    return buf;
}

const char *cli_daemon_name(const tsr_device_properties *p, char *buf, size_t n)
{
    if (!cli_is_accelerator(p->device))
        return "-";
    return cli_device_name((tsr_device){p->device.type, p->daemon_index}, buf, n);
}

int cli_daemon_device(tsr_client *c, tsr_device d, tsr_device *out)
{
    tsr_device_properties p;
    if (tsr_device_get_properties(c, d, &p) != TSR_OK)
        return cli_fail(tsr_last_error());
    *out = p.device;
    if (cli_is_accelerator(p.device))
        out->index = p.daemon_index;
    return -1;
}

int cli_device_arg(const cli_command *cmd, const char *text, tsr_device *out)
{
    char *end;
    long k = strtol(text, &end, 10);
    /* A bare ordinal names an accelerator, as torch.device(0) does. */
    if (*text && !*end && k >= 0 && k < 4096) {
        if (tsr_device_for_accelerator(accelerator, k, out) != TSR_OK)
            return cli_fail(tsr_last_error());
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
