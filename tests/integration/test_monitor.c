/* Monitoring connections (TSR_CLIENT_MONITOR, HELLO's MONITOR flag): what
 * `tessera` opens to watch the daemon. They work with sessions.max
 * reached, are not listed as sessions, are refused everything but the
 * queries, are bounded by sessions.max_monitors, and are logged at debug
 * level only; a client refused a session is told why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define MAX_SESSIONS 1
#define MAX_MONITORS 2
#define ADMIN_RESERVE 4 /* TSR__SERVER_ADMIN_RESERVE: root goes this far beyond a cap */

static tsr_status open_monitor(tsr_client **out)
{
    tsr_client_options o = {.name = "watcher", .flags = TSR_CLIENT_MONITOR};
    return tsr_client_open(&o, out);
}

/* Rows tsr_session_list shows `c`, and whether `id` is among them. */
static int listed(tsr_client *c, uint32_t id, bool *found_id)
{
    tsr_session_info row;
    bool found = false;
    int rows = 0;
    *found_id = false;
    for (uint32_t after = 0; tsr_session_list(c, after, &row, &found) == TSR_OK && found;
         after = row.session_id) {
        rows++;
        *found_id |= row.session_id == id;
    }
    return rows;
}

static char out[65536];

int main(void)
{
    test_daemon d;
    const char *extra[] = {"--max-sessions", "1", "--max-monitors", "2", NULL};
    if (test_daemon_start(&d, extra) != 0)
        return 1;
    bool root = getuid() == 0;

    /* Sessions up to the cap (and root's reserve beyond it); the next is
     * told why it is refused. */
    tsr_client *sessions[MAX_SESSIONS + ADMIN_RESERVE + 1] = {NULL};
    int opened = 0;
    tsr_status st = TSR_OK;
    while (opened < MAX_SESSIONS + ADMIN_RESERVE + 1 &&
           (st = tsr_client_open(NULL, &sessions[opened])) == TSR_OK)
        opened++;
    ASSERT_EQ(opened, MAX_SESSIONS + (root ? ADMIN_RESERVE : 0));
    ASSERT_EQ(st, TSR_ERR_LIMIT);
    char want[128];
    snprintf(want, sizeof want, "tesserad has %d sessions open, its most (sessions.max = 1)",
             opened);
    ASSERT_STREQ(tsr_last_error(), want);

    /* A monitor gets in all the same, sees the devices and the sessions,
     * and is not one of them. */
    tsr_client *m = NULL;
    ASSERT_OK(open_monitor(&m));
    ASSERT_TRUE(tsr_client_session_id(m) != 0);
    int32_t n = -1;
    ASSERT_OK(tsr_device_count(m, TSR_DEVICE_CPU, &n));
    ASSERT_EQ(n, 1);
    bool self = true;
    ASSERT_EQ(listed(m, tsr_client_session_id(m), &self), opened);
    ASSERT_FALSE(self);
    ASSERT_EQ(listed(sessions[0], tsr_client_session_id(m), &self), opened);
    ASSERT_FALSE(self);
    ASSERT_OK(tsr_client_ping(m, TSR_TRANSPORT_SOCKET));
    ASSERT_EQ(tsr_client_ping(m, TSR_TRANSPORT_RING), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(tsr_last_error(),
                 "tsr_client_ping: a monitoring connection has no ring; ping the socket");

    /* It asks; it holds nothing. */
    tsr_device_type accel;
    if (tsr_accelerator_type(m, &accel) == TSR_OK && tsr_device_count(m, accel, &n) == TSR_OK &&
        n > 0) {
        int64_t size = 16;
        tsr_tensor_options o = {.has_device = true, .device = {accel, 0}};
        tsr_tensor *t = NULL;
        ASSERT_EQ(tsr_tensor_empty(m, 1, &size, &o, &t), TSR_ERR_PROTOCOL);
        ASSERT_STREQ(tsr_last_error(),
                     "ALLOC is not served on a monitoring connection: open a session for it");
        ASSERT_TRUE(t == NULL);
        tsr_device_status ds;
        ASSERT_OK(tsr_admin_device_status(m, (tsr_device){accel, 0}, &ds));
    }

    /* The command-line tool is a monitor: it works at sessions.max, and
     * lists the sessions, not itself. */
    const char *ps[] = {"ps", "--query", "name", "--no-header", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        ASSERT_TRUE(strcmp(line, "tessera") != 0 && strcmp(line, "watcher") != 0);
    }
    ASSERT_EQ(lines, opened);

    /* Busy time and counters: a session's kernels count for it and for
     * its device; its share of busy time is no more than the device's. */
    bool accelerator = tsr_accelerator_type(m, &accel) == TSR_OK &&
                       tsr_device_count(m, accel, &n) == TSR_OK && n > 0;
    if (accelerator) {
        tsr_device dev = {accel, 0};
        int64_t size = 1 << 20;
        tsr_tensor_options o = {.has_device = true, .device = dev};
        tsr_tensor *a = NULL, *r[3] = {NULL};
        ASSERT_OK(tsr_tensor_empty(sessions[0], 1, &size, &o, &a));
        for (int k = 0; k < 3 && a; k++)
            ASSERT_OK(tsr_maximum(a, a, &r[k]));
        ASSERT_OK(tsr_synchronize(sessions[0], dev));
        tsr_process_info row;
        bool found = false;
        ASSERT_OK(tsr_admin_session_list(m, tsr_client_session_id(sessions[0]) - 1, &row, &found));
        ASSERT_TRUE(found && row.session_id == tsr_client_session_id(sessions[0]));
        ASSERT_EQ(row.launches, 3);
        ASSERT_TRUE(row.busy_ns > 0);
        tsr_device_status status;
        ASSERT_OK(tsr_admin_device_status(m, dev, &status));
        ASSERT_EQ(status.launches, 3);
        ASSERT_TRUE(status.programs_built + status.programs_loaded >= 1);
        ASSERT_TRUE(status.busy_ns >= row.busy_ns);
        /* The command shows the same, and an idle device as 0% busy. */
        const char *devices[] = {
            "devices", "-q",          "device,utilization_percent,launches,programs_built",
            "--csv",   "--no-header", "--no-units",
            NULL};
        ASSERT_EQ(test_run_cli(out, sizeof out, devices), 0);
        /* The builder may finish a program in the background meanwhile:
         * the count the command shows lies between two readings. */
        tsr_device_status after;
        ASSERT_OK(tsr_admin_device_status(m, dev, &after));
        unsigned long long shown = 0;
        char rest[16] = "";
        ASSERT_EQ(sscanf(out, "opencl:0,0.0,3,%llu%15s", &shown, rest), 1);
        ASSERT_TRUE(shown >= status.programs_built && shown <= after.programs_built);
        const char *info[] = {"info", "opencl:0", "--json", NULL};
        ASSERT_EQ(test_run_cli(out, sizeof out, info), 0);
        ASSERT_TRUE(strstr(out, ", \"launches\": 3, \"programs_built\": ") != NULL);
        ASSERT_TRUE(strstr(out, "\"busy_ms\": ") != NULL);
        ASSERT_TRUE(strstr(out, "\"programs_pending\": ") != NULL);
        /* Every program asked for is made in the end (no launch asks for
         * more meanwhile): what was pending then is counted as built or
         * loaded once nothing is pending. */
        for (int waited = 0; waited < 1200 && after.programs_pending > 0; waited++) {
            nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
            ASSERT_OK(tsr_admin_device_status(m, dev, &after));
        }
        ASSERT_EQ(after.programs_pending, 0);
        ASSERT_EQ(after.programs_built + after.programs_loaded,
                  status.programs_built + status.programs_loaded + status.programs_pending);
        for (int k = 0; k < 3; k++)
            tsr_tensor_release(r[k]);
        tsr_tensor_release(a);
    }

    /* sessions.max_monitors bounds them (root a few beyond it). */
    tsr_client *more[MAX_MONITORS + ADMIN_RESERVE + 1] = {NULL};
    int monitors = 1;
    while (monitors < MAX_MONITORS + ADMIN_RESERVE + 1 &&
           (st = open_monitor(&more[monitors - 1])) == TSR_OK)
        monitors++;
    ASSERT_EQ(monitors, MAX_MONITORS + (root ? ADMIN_RESERVE : 0));
    ASSERT_EQ(st, TSR_ERR_LIMIT);
    snprintf(want, sizeof want,
             "tesserad has %d monitoring connections open, its most (sessions.max_monitors = 2)",
             monitors);
    ASSERT_STREQ(tsr_last_error(), want);
    for (int k = 0; k < monitors - 1; k++)
        tsr_client_close(more[k]);
    /* A closed monitor's place is free again. */
    ASSERT_OK(open_monitor(&more[0]));
    tsr_client_close(more[0]);

    /* The daemon's counters: every session, monitor and refusal so far
     * (the ps, devices and info above watched through monitors of their
     * own). */
    tsr_daemon_stats ds;
    ASSERT_OK(tsr_admin_daemon_stats(m, &ds));
    ASSERT_EQ(ds.sessions_opened, (uint64_t)opened);
    ASSERT_EQ(ds.sessions_refused, 1);
    ASSERT_EQ(ds.monitors_opened, (uint64_t)monitors + 2 + (accelerator ? 2 : 0));
    ASSERT_EQ(ds.monitors_refused, 1);
    ASSERT_EQ(ds.monitors, 1);
    ASSERT_EQ(ds.sessions, (uint32_t)opened);
    ASSERT_EQ(ds.oom_refusals + ds.limit_refusals + ds.reloads + ds.reload_failures, 0);
    ASSERT_TRUE(ds.started_unix_ns > 0 && ds.uptime_ns > 0);

    /* Sessions end; a new one fits again. Monitors logged nothing at the
     * default level, sessions their start. */
    for (int k = 0; k < opened; k++)
        tsr_client_close(sessions[k]);
    tsr_client_close(m);
    tsr_client *again = NULL;
    for (int tries = 0; tries < 200 && tsr_client_open(NULL, &again) != TSR_OK; tries++)
        usleep(10000); /* the daemon sees the closes in its own time */
    ASSERT_TRUE(again != NULL);
    tsr_client_close(again);
    test_daemon_terminate(&d);
    ASSERT_EQ(test_daemon_log_count(&d, "monitor "), 0);
    ASSERT_TRUE(test_daemon_log_count(&d, "refused a session of pid") >= 1);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
