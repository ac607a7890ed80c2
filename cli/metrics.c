/* `tessera metrics`: what the daemon lends and its sessions hold, as
 * Prometheus metrics, in the text format Prometheus and promtool read
 * (0.0.4) or in OpenMetrics 1.0.0; and, with --http, the answer to one
 * HTTP request read from standard input, which is what a socket unit with
 * Accept=yes (systemd/tessera-metrics.socket) runs for each connection.
 *
 * Every metric family is one row of METRIC_FAMILIES. The samples come
 * from the administration calls `devices`, `ps` and `stats` make, read
 * in full before a line is written: a scrape gets the whole exposition or
 * an error, never half of one. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/daemon.h"
#include "cli/http.h"

typedef enum metrics_format { FORMAT_PROMETHEUS, FORMAT_OPENMETRICS } metrics_format;

#define CONTENT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define CONTENT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define REQUEST_TIMEOUT_MS 10000 /* for the whole head of a request */

/* name (a counter's without _total), type, OpenMetrics unit ("" none), help */
#define METRIC_FAMILIES(X)                                                                       \
    X(BUILD_INFO, "tessera_build_info", "gauge", "",                                             \
      "The version of the tessera command that answered, as a label; always 1")                  \
    X(SESSIONS, "tessera_sessions", "gauge", "",                                                 \
      "Client sessions of the daemon, by state: open, or ending (the client is gone, its "       \
      "kernels still run)")                                                                      \
    X(DEVICE_INFO, "tessera_device_info", "gauge", "",                                           \
      "Each device the daemon serves, named as a client program opened now names it; always 1")  \
    X(DEVICE_CAPACITY, "tessera_device_memory_capacity_bytes", "gauge", "bytes",                 \
      "Memory the daemon lends all sessions on the device")                                      \
    X(DEVICE_RESERVED, "tessera_device_memory_reserved_bytes", "gauge", "bytes",                 \
      "Memory every session holds in segments on the device, their caches included")             \
    X(DEVICE_ALLOCATED, "tessera_device_memory_allocated_bytes", "gauge", "bytes",               \
      "Memory in the live allocations of every session on the device")                           \
    X(DEVICE_SESSIONS, "tessera_device_sessions", "gauge", "",                                   \
      "Sessions holding memory on the device")                                                   \
    X(DEVICE_BUSY, "tessera_device_busy_seconds", "counter", "seconds",                          \
      "Time the device had kernels submitted and not finished, since the daemon's first launch") \
    X(DEVICE_LAUNCHES, "tessera_device_kernels_launched", "counter", "",                         \
      "Kernels queued on the device since the daemon started")                                   \
    X(DEVICE_BUILT, "tessera_device_programs_built", "counter", "",                              \
      "Kernel programs compiled from source for the device")                                     \
    X(DEVICE_LOADED, "tessera_device_programs_loaded", "counter", "",                            \
      "Kernel programs taken from the daemon's disk cache for the device instead of compiled")   \
    X(DEVICE_PENDING, "tessera_device_programs_pending", "gauge", "",                            \
      "Kernel programs asked for and still being built or loaded for the device")                \
    X(SESSION_ALLOCATED, "tessera_session_memory_allocated_bytes", "gauge", "bytes",             \
      "Memory in the session's live allocations on the device")                                  \
    X(SESSION_RESERVED, "tessera_session_memory_reserved_bytes", "gauge", "bytes",               \
      "Memory the session holds in segments on the device, its cache included")                  \
    X(SESSION_LIMIT, "tessera_session_memory_limit_bytes", "gauge", "bytes",                     \
      "The most the session may reserve on the device")                                          \
    X(SESSION_OOMS, "tessera_session_out_of_memory", "counter", "",                              \
      "Allocations on the device refused to the session for want of memory")                     \
    X(SESSION_REQUESTS, "tessera_session_requests", "counter", "",                               \
      "Requests the daemon has served the session")                                              \
    X(SESSION_KERNELS, "tessera_session_kernels", "gauge", "",                                   \
      "The session's launches queued or running, not finished")                                  \
    X(SESSION_START, "tessera_session_start_time_seconds", "gauge", "seconds",                   \
      "When the session opened, in seconds since the Unix epoch")                                \
    X(SESSION_LAUNCHES, "tessera_session_kernels_launched", "counter", "",                       \
      "Kernels the session has queued on devices")                                               \
    X(SESSION_BUSY, "tessera_session_busy_seconds", "counter", "seconds",                        \
      "The session's share of its devices' busy time: each device's busy time goes to the "      \
      "session whose kernel kept it busy")                                                       \
    X(DAEMON_START, "tessera_daemon_start_time_seconds", "gauge", "seconds",                     \
      "When the daemon started, in seconds since the Unix epoch")                                \
    X(DAEMON_SESSIONS_OPENED, "tessera_daemon_sessions_opened", "counter", "",                   \
      "Client sessions opened since the daemon started")                                         \
    X(DAEMON_SESSIONS_REFUSED, "tessera_daemon_sessions_refused", "counter", "",                 \
      "Connections turned away at sessions.max or a per-uid cap")                                \
    X(DAEMON_MONITORS, "tessera_daemon_monitors", "gauge", "",                                   \
      "Monitoring connections open (what tessera and exporters watch through)")                  \
    X(DAEMON_MONITORS_REFUSED, "tessera_daemon_monitors_refused", "counter", "",                 \
      "Monitoring connections turned away at sessions.max_monitors")                             \
    X(DAEMON_OOM, "tessera_daemon_out_of_memory", "counter", "",                                 \
      "Allocations refused because the device was full")                                         \
    X(DAEMON_LIMIT, "tessera_daemon_limit_refusals", "counter", "",                              \
      "Allocations refused at a configured memory limit")                                        \
    X(DAEMON_RELOADS, "tessera_daemon_reloads", "counter", "",                                   \
      "Configuration reloads that took effect")                                                  \
    X(DAEMON_RELOAD_FAILURES, "tessera_daemon_reload_failures", "counter", "",                   \
      "Configuration reloads refused, the running configuration kept")

typedef enum family_id {
#define FAMILY_ENUM(id, name, type, unit, help) FAMILY_##id,
    METRIC_FAMILIES(FAMILY_ENUM)
#undef FAMILY_ENUM
        FAMILY_COUNT
} family_id;

typedef struct family {
    const char *name, *type, *unit, *help;
} family;

static const family families[] = {
#define FAMILY_ROW(id, name, type, unit, help) {name, type, unit, help},
    METRIC_FAMILIES(FAMILY_ROW)
#undef FAMILY_ROW
};
_Static_assert(sizeof families / sizeof families[0] == FAMILY_COUNT, "one row per family");

/* ---- what the daemon says ------------------------------------------------- */

typedef struct device_sample {
    char name[TSR_DEVICE_STR_MAX]; /* as the command's session names it */
    tsr_device_properties p;
    tsr_device_status st;
} device_sample;

typedef struct session_sample {
    const tsr_process_info *s;
    tsr_allocator_stats stats[TSR_SESSION_DEVICES];
    bool has_stats[TSR_SESSION_DEVICES];
} session_sample;

typedef struct snapshot {
    tsr_daemon_stats daemon;
    device_sample *devices;
    size_t ndevices;
    tsr_process_info *list;
    session_sample *sessions;
    size_t nsessions;
} snapshot;

static void snapshot_free(snapshot *z)
{
    free(z->devices);
    free(z->list);
    free(z->sessions);
    *z = (snapshot){0};
}

/* Reads everything the metrics show. Returns -1, else the exit status
 * after printing the error. */
static int take_snapshot(tsr_client *c, snapshot *z)
{
    int32_t n = cli_accelerator_count();
    int rc = -1;
    z->devices = calloc((size_t)(n > 0 ? n : 1), sizeof *z->devices);
    if (!z->devices)
        return cli_fail("out of memory");
    for (int32_t k = 0; rc < 0 && k < n; k++) {
        device_sample *d = &z->devices[k];
        tsr_device on;
        cli_accelerator_name(k, d->name, sizeof d->name);
        if (tsr_device_get_properties(c, cli_accelerator(k), &d->p) != TSR_OK)
            rc = cli_fail(tsr_last_error());
        else if ((rc = cli_daemon_device(c, cli_accelerator(k), &on)) < 0 &&
                 tsr_admin_device_status(c, on, &d->st) != TSR_OK)
            rc = cli_fail(tsr_last_error());
    }
    z->ndevices = (size_t)n;
    if (rc < 0 && tsr_admin_daemon_stats(c, &z->daemon) != TSR_OK)
        rc = cli_fail(tsr_last_error());
    if (rc < 0)
        rc = cli_list_sessions(c, &z->list, &z->nsessions);
    if (rc < 0 && !(z->sessions = calloc(z->nsessions + 1, sizeof *z->sessions)))
        rc = cli_fail("out of memory");
    for (size_t k = 0; rc < 0 && k < z->nsessions; k++) {
        session_sample *s = &z->sessions[k];
        s->s = &z->list[k];
        /* Another user's statistics are not the caller's to see: those
         * samples are left out, as the session's own numbers say. */
        for (uint32_t u = 0; s->s->visible && u < s->s->usage_count; u++)
            s->has_stats[u] = tsr_admin_session_stats(c, s->s->session_id, s->s->usage[u].device,
                                                      &s->stats[u]) == TSR_OK;
    }
    return rc;
}

/* ---- the exposition -------------------------------------------------------- */

typedef struct writer {
    FILE *f;
    metrics_format format;
    family_id family;
    bool first_label;
} writer;

static void header(writer *w, family_id id)
{
    const family *fam = &families[id];
    bool counter = strcmp(fam->type, "counter") == 0;
    /* Prometheus's format names a counter's family as its samples are
     * named; OpenMetrics names it without the _total its samples add. */
    const char *suffix = counter && w->format == FORMAT_PROMETHEUS ? "_total" : "";
    w->family = id;
    fprintf(w->f, "# HELP %s%s %s.\n", fam->name, suffix, fam->help);
    fprintf(w->f, "# TYPE %s%s %s\n", fam->name, suffix, fam->type);
    if (w->format == FORMAT_OPENMETRICS && fam->unit[0])
        fprintf(w->f, "# UNIT %s %s\n", fam->name, fam->unit);
}

static void begin_sample(writer *w)
{
    const family *fam = &families[w->family];
    fprintf(w->f, "%s%s{", fam->name, strcmp(fam->type, "counter") == 0 ? "_total" : "");
    w->first_label = true;
}

static void label(writer *w, const char *key, const char *value)
{
    fprintf(w->f, "%s%s=\"", w->first_label ? "" : ",", key);
    cli_label_value(w->f, value);
    fputc('"', w->f);
    w->first_label = false;
}

static void label_number(writer *w, const char *key, uint64_t value)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, value);
    label(w, key, text);
}

static void end_count(writer *w, uint64_t value)
{
    fprintf(w->f, "} %" PRIu64 "\n", value);
}

/* A time in nanoseconds as seconds, every digit exact. */
static void end_seconds(writer *w, uint64_t ns)
{
    fprintf(w->f, "} %" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/* A sample with no labels. */
static void begin_plain(writer *w)
{
    const family *fam = &families[w->family];
    fprintf(w->f, "%s%s ", fam->name, strcmp(fam->type, "counter") == 0 ? "_total" : "");
}

static void device_labels(writer *w, const device_sample *d)
{
    begin_sample(w);
    label(w, "device", d->name);
}

/* The labels of a session's samples: who it is, as far as the caller may
 * see (another user's session has its number and nothing else). */
static void session_labels(writer *w, const tsr_process_info *s)
{
    char user[64] = "";
    begin_sample(w);
    label_number(w, "session", s->session_id);
    if (!s->visible)
        return;
    if (s->pid_known)
        label_number(w, "pid", s->pid);
    label_number(w, "uid", s->uid);
    label(w, "user", cli_user_name(s->uid, user, sizeof user));
    label(w, "name", s->name);
    label(w, "command", s->command);
    if (s->unit[0])
        label(w, "unit", s->unit);
}

static void usage_sample(writer *w, const tsr_process_info *s, uint32_t u, uint64_t value)
{
    char dev[TSR_DEVICE_STR_MAX + 1];
    session_labels(w, s);
    label(w, "device", cli_shown_device(s->usage[u].device, dev, sizeof dev));
    end_count(w, value);
}

static void write_devices(writer *w, const snapshot *z)
{
    static const struct {
        family_id id;
        size_t offset;
    } bytes[] = {
        {FAMILY_DEVICE_CAPACITY, offsetof(tsr_device_status, capacity)},
        {FAMILY_DEVICE_RESERVED, offsetof(tsr_device_status, reserved)},
        {FAMILY_DEVICE_ALLOCATED, offsetof(tsr_device_status, allocated)},
    };
    header(w, FAMILY_DEVICE_INFO);
    for (size_t k = 0; k < z->ndevices; k++) {
        const device_sample *d = &z->devices[k];
        device_labels(w, d);
        label(w, "model", d->p.name);
        label(w, "vendor", d->p.vendor);
        label(w, "backend", d->st.backend_name);
        end_count(w, 1);
    }
    for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
        header(w, bytes[b].id);
        for (size_t k = 0; k < z->ndevices; k++) {
            uint64_t v;
            memcpy(&v, (const char *)&z->devices[k].st + bytes[b].offset, sizeof v);
            device_labels(w, &z->devices[k]);
            end_count(w, v);
        }
    }
    header(w, FAMILY_DEVICE_SESSIONS);
    for (size_t k = 0; k < z->ndevices; k++) {
        device_labels(w, &z->devices[k]);
        end_count(w, z->devices[k].st.sessions);
    }
    header(w, FAMILY_DEVICE_BUSY);
    for (size_t k = 0; k < z->ndevices; k++) {
        if (!z->devices[k].st.busy_sampled)
            continue;
        device_labels(w, &z->devices[k]);
        end_seconds(w, z->devices[k].st.busy_ns);
    }
    static const struct {
        family_id id;
        size_t offset;
    } counts[] = {
        {FAMILY_DEVICE_LAUNCHES, offsetof(tsr_device_status, launches)},
        {FAMILY_DEVICE_BUILT, offsetof(tsr_device_status, programs_built)},
        {FAMILY_DEVICE_LOADED, offsetof(tsr_device_status, programs_loaded)},
    };
    for (size_t b = 0; b < sizeof counts / sizeof counts[0]; b++) {
        header(w, counts[b].id);
        for (size_t k = 0; k < z->ndevices; k++) {
            uint64_t v;
            memcpy(&v, (const char *)&z->devices[k].st + counts[b].offset, sizeof v);
            device_labels(w, &z->devices[k]);
            end_count(w, v);
        }
    }
    header(w, FAMILY_DEVICE_PENDING);
    for (size_t k = 0; k < z->ndevices; k++) {
        device_labels(w, &z->devices[k]);
        end_count(w, z->devices[k].st.programs_pending);
    }
}

/* The daemon's own counters: samples without labels. */
static void write_daemon(writer *w, const snapshot *z)
{
    const tsr_daemon_stats *d = &z->daemon;
    const struct {
        family_id id;
        uint64_t value;
    } counts[] = {
        {FAMILY_DAEMON_SESSIONS_OPENED, d->sessions_opened},
        {FAMILY_DAEMON_SESSIONS_REFUSED, d->sessions_refused},
        {FAMILY_DAEMON_MONITORS, d->monitors},
        {FAMILY_DAEMON_MONITORS_REFUSED, d->monitors_refused},
        {FAMILY_DAEMON_OOM, d->oom_refusals},
        {FAMILY_DAEMON_LIMIT, d->limit_refusals},
        {FAMILY_DAEMON_RELOADS, d->reloads},
        {FAMILY_DAEMON_RELOAD_FAILURES, d->reload_failures},
    };
    header(w, FAMILY_DAEMON_START);
    begin_plain(w);
    fprintf(w->f, "%" PRIu64 ".%09" PRIu64 "\n", d->started_unix_ns / 1000000000u,
            d->started_unix_ns % 1000000000u);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        header(w, counts[k].id);
        begin_plain(w);
        fprintf(w->f, "%" PRIu64 "\n", counts[k].value);
    }
}

static void write_sessions(writer *w, const snapshot *z)
{
    uint64_t open = 0, ending = 0;
    for (size_t k = 0; k < z->nsessions; k++)
        *(z->list[k].ending ? &ending : &open) += 1;
    header(w, FAMILY_SESSIONS);
    begin_sample(w);
    label(w, "state", "open");
    end_count(w, open);
    begin_sample(w);
    label(w, "state", "ending");
    end_count(w, ending);

    static const struct {
        family_id id;
        size_t offset;
    } usage[] = {
        {FAMILY_SESSION_ALLOCATED, offsetof(tsr_process_usage, allocated)},
        {FAMILY_SESSION_RESERVED, offsetof(tsr_process_usage, reserved)},
        {FAMILY_SESSION_LIMIT, offsetof(tsr_process_usage, limit)},
    };
    for (size_t f = 0; f < sizeof usage / sizeof usage[0]; f++) {
        header(w, usage[f].id);
        for (size_t k = 0; k < z->nsessions; k++) {
            const tsr_process_info *s = &z->list[k];
            for (uint32_t u = 0; u < s->usage_count && u < TSR_SESSION_DEVICES; u++) {
                uint64_t v;
                memcpy(&v, (const char *)&s->usage[u] + usage[f].offset, sizeof v);
                usage_sample(w, s, u, v);
            }
        }
    }
    header(w, FAMILY_SESSION_OOMS);
    for (size_t k = 0; k < z->nsessions; k++) {
        const session_sample *s = &z->sessions[k];
        for (uint32_t u = 0; u < s->s->usage_count && u < TSR_SESSION_DEVICES; u++)
            if (s->has_stats[u])
                usage_sample(w, s->s, u, s->stats[u].ooms);
    }
    header(w, FAMILY_SESSION_REQUESTS);
    for (size_t k = 0; k < z->nsessions; k++) {
        session_labels(w, &z->list[k]);
        end_count(w, z->list[k].requests);
    }
    header(w, FAMILY_SESSION_KERNELS);
    for (size_t k = 0; k < z->nsessions; k++) {
        session_labels(w, &z->list[k]);
        end_count(w, z->list[k].kernels);
    }
    header(w, FAMILY_SESSION_START);
    for (size_t k = 0; k < z->nsessions; k++) {
        if (!z->list[k].visible || z->list[k].started_unix_ns == 0)
            continue;
        session_labels(w, &z->list[k]);
        end_seconds(w, z->list[k].started_unix_ns);
    }
    header(w, FAMILY_SESSION_LAUNCHES);
    for (size_t k = 0; k < z->nsessions; k++) {
        session_labels(w, &z->list[k]);
        end_count(w, z->list[k].launches);
    }
    header(w, FAMILY_SESSION_BUSY);
    for (size_t k = 0; k < z->nsessions; k++) {
        session_labels(w, &z->list[k]);
        end_seconds(w, z->list[k].busy_ns);
    }
}

/* The whole exposition into a new buffer (*text, *size; the caller frees
 * it). Returns -1, else the exit status after printing the error. */
static int exposition(const cli_args *args, metrics_format format, char **text, size_t *size)
{
    tsr_client *c = NULL;
    snapshot z = {0};
    int rc = cli_connect(args, &c);
    if (rc < 0)
        rc = take_snapshot(c, &z);
    tsr_client_close(c);
    FILE *f = rc < 0 ? open_memstream(text, size) : NULL;
    if (rc < 0 && !f)
        rc = cli_fail("out of memory");
    if (rc < 0) {
        writer w = {.f = f, .format = format};
        header(&w, FAMILY_BUILD_INFO);
        begin_sample(&w);
        label(&w, "version", tsr_version_string());
        end_count(&w, 1);
        write_sessions(&w, &z);
        write_devices(&w, &z);
        write_daemon(&w, &z);
        if (format == FORMAT_OPENMETRICS)
            fputs("# EOF\n", f);
        if (fclose(f) != 0)
            rc = cli_fail("out of memory");
    }
    snapshot_free(&z);
    return rc;
}

/* ---- one HTTP request ----------------------------------------------------------- */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads a request's head from fd 0: the status cli_http_parse gives, 408
 * when it does not come whole within REQUEST_TIMEOUT_MS, or 0 when the
 * peer closed the connection first (nothing to answer). */
static int read_request(cli_http_request *req)
{
    static char buf[CLI_HTTP_HEAD_MAX];
    size_t len = 0;
    long long deadline = now_ms() + REQUEST_TIMEOUT_MS;
    for (;;) {
        int status = cli_http_parse(buf, len, req);
        if (status != 0)
            return status;
        long long left = deadline - now_ms();
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        int ready = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return 408;
        ssize_t n = read(STDIN_FILENO, buf + len, sizeof buf - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        len += (size_t)n;
    }
}

static bool write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static int respond(int status, const char *type, const char *body, size_t length, bool head)
{
    char top[512];
    int n = snprintf(top, sizeof top,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                     "Connection: close\r\n\r\n",
                     status, cli_http_reason(status), type, length,
                     status == 405 ? "Allow: GET, HEAD\r\n" : "");
    bool ok = write_all(top, (size_t)n) && (head || write_all(body, length));
    return ok && status == 200 ? EXIT_OK : EXIT_FAILED;
}

static int respond_text(int status, const char *text, bool head)
{
    return respond(status, "text/plain; charset=utf-8", text, strlen(text), head);
}

static int serve_http(const cli_args *args)
{
    signal(SIGPIPE, SIG_IGN); /* a peer gone early is a failed write */
    cli_http_request req;
    int status = read_request(&req);
    if (status == 0)
        return EXIT_FAILED;
    if (status != 200) {
        char text[128];
        snprintf(text, sizeof text, "%d %s\n", status, cli_http_reason(status));
        return respond_text(status, text, false);
    }
    if (strcmp(req.path, "/metrics") != 0)
        return respond_text(404, "404 Not Found: the metrics are at /metrics\n", req.head);
    metrics_format format = req.openmetrics ? FORMAT_OPENMETRICS : FORMAT_PROMETHEUS;
    char *text = NULL;
    size_t size = 0;
    int rc = exposition(args, format, &text, &size);
    if (rc >= 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "503 Service Unavailable: %s\n", tsr_last_error());
        rc = respond_text(503, msg, req.head);
    } else {
        rc = respond(200, format == FORMAT_OPENMETRICS ? CONTENT_OPENMETRICS : CONTENT_PROMETHEUS,
                     text, size, req.head);
    }
    free(text);
    return rc;
}

static int run_metrics(const cli_args *args)
{
    if (cli_given(args, CLI_OPT_HTTP) && cli_given(args, CLI_OPT_OPENMETRICS))
        return cli_usage_error(&cli_cmd_metrics, "--http and --openmetrics conflict: over HTTP "
                                                 "the request's Accept header chooses the format");
    if (cli_given(args, CLI_OPT_HTTP))
        return serve_http(args);
    char *text = NULL;
    size_t size = 0;
    int rc = exposition(
        args, cli_given(args, CLI_OPT_OPENMETRICS) ? FORMAT_OPENMETRICS : FORMAT_PROMETHEUS, &text,
        &size);
    if (rc < 0) {
        fwrite(text, 1, size, stdout);
        rc = fflush(stdout) == 0 ? EXIT_OK : cli_fail("cannot write the metrics");
    }
    free(text);
    return rc;
}

const cli_command cli_cmd_metrics = {
    "metrics",
    "the daemon's devices and sessions as Prometheus metrics",
    "SYNOPSIS\n"
    "    tessera metrics [--openmetrics] [-s PATH]\n"
    "    tessera metrics --http [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Prints what the daemon lends and its sessions hold as metrics in the\n"
    "    text format Prometheus scrapes (version 0.0.4, which 'promtool check\n"
    "    metrics' reads), or with --openmetrics in OpenMetrics 1.0.0. The\n"
    "    families:\n\n"
    "      tessera_build_info{version}               always 1\n"
    "      tessera_sessions{state}                   open and ending sessions\n"
    "      tessera_device_info{device,model,vendor,backend}   always 1\n"
    "      tessera_device_memory_capacity_bytes{device}, ..._reserved_bytes,\n"
    "          ..._allocated_bytes                   the device's memory\n"
    "      tessera_device_sessions{device}           sessions holding memory\n"
    "      tessera_device_busy_seconds_total{device} time with kernels in\n"
    "                                                flight (a counter)\n"
    "      tessera_device_kernels_launched_total{device}, ..._programs_built_total,\n"
    "          ..._programs_loaded_total             kernels queued, programs\n"
    "                                                compiled or taken from cache\n"
    "      tessera_device_programs_pending{device}   programs still being built or\n"
    "                                                loaded (launches run on the\n"
    "                                                generic programs meanwhile)\n"
    "      tessera_session_memory_allocated_bytes, ..._reserved_bytes,\n"
    "          ..._limit_bytes{SESSION,device}       each session's memory\n"
    "      tessera_session_out_of_memory_total{SESSION,device}\n"
    "                                                allocations refused\n"
    "      tessera_session_requests_total{SESSION}   requests served\n"
    "      tessera_session_kernels{SESSION}          launches not finished\n"
    "      tessera_session_start_time_seconds{SESSION}\n"
    "                                                Unix time it opened\n"
    "      tessera_session_kernels_launched_total{SESSION}\n"
    "                                                kernels it queued\n"
    "      tessera_session_busy_seconds_total{SESSION}\n"
    "                                                its share of device busy\n"
    "                                                time (they add up to it)\n"
    "      tessera_daemon_start_time_seconds         Unix time it started\n"
    "      tessera_daemon_sessions_opened_total, ..._sessions_refused_total\n"
    "                                                sessions since it started\n"
    "      tessera_daemon_monitors, ..._monitors_refused_total\n"
    "                                                monitoring connections\n"
    "      tessera_daemon_out_of_memory_total, ..._limit_refusals_total\n"
    "                                                allocations refused: a full\n"
    "                                                device, a memory limit\n"
    "      tessera_daemon_reloads_total, ..._reload_failures_total\n"
    "                                                configuration reloads\n\n"
    "    where SESSION is the labels session, pid, uid, user, name (what the\n"
    "    client called itself), command and unit (its systemd unit). Devices\n"
    "    are named as 'tessera devices' names them. Like 'tessera ps', a caller\n"
    "    who is neither root nor in the tessera-admin group sees other users'\n"
    "    sessions by their numbers only: their samples carry the session label\n"
    "    alone, and their out-of-memory counts are left out. A label value's\n"
    "    control characters and bytes that are not UTF-8 show as the text\n"
    "    \\xNN. The daemon is asked everything before anything is printed.\n\n"
    "    With --http the command answers one HTTP/1.1 request read from\n"
    "    standard input on standard output, as an inetd-style service does:\n"
    "    GET or HEAD /metrics gets the metrics, in OpenMetrics when the\n"
    "    request's Accept header asks for application/openmetrics-text (as\n"
    "    Prometheus does), else in the 0.0.4 text format; 404 for any other\n"
    "    path, 405 for any other method, 400 for a malformed request, 408 when\n"
    "    the request's head takes over 10 s, and 503 with the error when the\n"
    "    daemon cannot be reached. The units tessera-metrics.socket and\n"
    "    tessera-metrics@.service (installed, not enabled) run it for each\n"
    "    connection to port 9477 on the loopback address:\n\n"
    "      systemctl enable --now tessera-metrics.socket\n\n"
    "    and a Prometheus scrape job then names localhost:9477. Without\n"
    "    systemd, 'systemd-socket-activate --inetd -a -l 127.0.0.1:9477\n"
    "    tessera metrics --http' serves the same.\n\n"
    "OPTIONS\n"
    "    --openmetrics  OpenMetrics 1.0.0 instead of the 0.0.4 text format\n"
    "    --http         answer one HTTP request on standard input and output\n" CLI_SOCKET_HELP "\n"
    "EXIT STATUS\n"
    "    0 on success; 1 when the daemon cannot be reached or refuses (with\n"
    "    --http: when the answer was not 200 or could not be written); 2 on a\n"
    "    usage error.\n\n"
    "EXAMPLES\n"
    "    tessera metrics | promtool check metrics\n"
    "    tessera metrics | grep '^tessera_device_memory'\n"
    "    curl -s localhost:9477/metrics\n",
    CLI_OPT(OPENMETRICS) | CLI_OPT(HTTP) | CLI_OPT(SOCKET),
    0,
    0,
    run_metrics,
    NULL};
