/* Monitoring connections (TSR_CLIENT_MONITOR, HELLO's MONITOR flag): what
 * `tessera` opens to watch the daemon. They work with sessions.max
 * reached, are not listed as sessions, are refused everything but the
 * queries, are bounded by sessions.max_monitors, and are logged at debug
 * level only; a client refused a session is told why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    static char out[65536];
    const char *ps[] = {"ps", "--query", "name", "--no-header", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        ASSERT_TRUE(strcmp(line, "tessera") != 0 && strcmp(line, "watcher") != 0);
    }
    ASSERT_EQ(lines, opened);

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
