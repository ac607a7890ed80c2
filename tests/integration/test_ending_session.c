/* A client that exits while its kernels run leaves an ending session, not
 * nothing: tsr_admin_session_list and `tessera ps` show it as ending, with
 * its kernels in flight and the memory it still holds, until the last of
 * them is done; then it is gone and the device has its memory back. A
 * session opened meanwhile gets a larger id, and the ending one does not
 * count under sessions.max_per_uid (checked as another user when the test
 * runs as root).
 *
 * devices.memory = copy makes every launch one enqueue of the whole
 * operation (copies in, kernel, copy back), so the few launches the driver
 * holds when the client leaves keep the device busy for a while: long
 * enough to look at the session, which today's daemon would have dropped
 * from its list at once. */
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define NOBODY 65534
#define N (INT64_C(1) << 24) /* float32 elements per operand: 64 MiB */
#define LAUNCHES 8           /* as many as the daemon gives a device's driver at once */

static const tsr_device opencl0 = {TSR_DEVICE_OPENCL, 0};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The leaving client: z = x + y LAUNCHES times over N elements, once it
 * has waited for its fills and for one small add (so that their programs
 * are built and the adds go straight to the driver); then it tells its
 * session id and exits without waiting for them and without closing its
 * connection. */
static int leaver(int ready_fd, uid_t uid)
{
    if (uid != 0 && (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0))
        return 10;
    tsr_client *c = NULL;
    tsr_client_options co = {.name = "leaver"};
    if (tsr_client_open(&co, &c) != TSR_OK)
        return 11;
    tsr_tensor_options f32 = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = opencl0};
    int64_t n = N, one = 1;
    tsr_tensor *x, *y, *z, *w;
    if (tsr_tensor_full(c, 1, &one, tsr_scalar_float(1.0), &f32, &w) != TSR_OK ||
        tsr_tensor_full(c, 1, &n, tsr_scalar_float(1.5), &f32, &x) != TSR_OK ||
        tsr_tensor_full(c, 1, &n, tsr_scalar_float(2.0), &f32, &y) != TSR_OK ||
        tsr_tensor_empty(c, 1, &n, &f32, &z) != TSR_OK)
        return 12;
    if (tsr_add_out(w, w, tsr_scalar_int(1), w) != TSR_OK || tsr_synchronize(c, opencl0) != TSR_OK)
        return 13;
    for (int k = 0; k < LAUNCHES; k++)
        if (tsr_add_out(x, y, tsr_scalar_int(1), z) != TSR_OK)
            return 14;
    uint32_t id = tsr_client_session_id(c);
    if (write(ready_fd, &id, sizeof id) != (ssize_t)sizeof id)
        return 15;
    _exit(0);
}

/* Session `id` as `c` is shown it; false when it is not listed. */
static bool row_of(tsr_client *c, uint32_t id, tsr_process_info *row)
{
    bool found = false;
    for (uint32_t after = 0; tsr_admin_session_list(c, after, row, &found) == TSR_OK && found;
         after = row->session_id)
        if (row->session_id == id)
            return true;
    return false;
}

/* Opens a session as `uid` in a child and says whether it opened. */
static bool opens_as(uid_t uid)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0)
            _exit(10);
        tsr_client *c = NULL;
        if (tsr_client_open(NULL, &c) != TSR_OK) {
            fprintf(stderr, "uid %u: %s\n", (unsigned)uid, tsr_last_error());
            _exit(11);
        }
        tsr_client_close(c);
        _exit(0);
    }
    int status = -1;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* `tessera ps` in its three forms, while session `id` is ending. */
static void check_cli(uint32_t id, pid_t pid)
{
    static char out[1 << 16];
    char want[96];
    const char *json[] = {"ps", "--json", NULL}, *csv[] = {"ps", "--csv", NULL},
               *table[] = {"ps", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, json), 0);
    snprintf(want, sizeof want, "{\"session\": %u, \"visible\": true, \"pid\": %d,", id, (int)pid);
    const char *at = strstr(out, want), *ending = "\"state\": \"ending\", \"kernels\": ";
    const char *state = at ? strstr(at, ending) : NULL;
    const char *next = at ? strstr(at + 1, "{\"session\"") : NULL;
    ASSERT_TRUE(state && (!next || state < next));
    ASSERT_TRUE(state && atoi(state + strlen(ending)) > 0);

    ASSERT_EQ(test_run_cli(out, sizeof out, csv), 0);
    ASSERT_TRUE(strstr(out,
                       ",limit,state,kernels,name,launches,busy_ms,programs,max_programs,"
                       "max_source_bytes,build_memory,build_time_limit_ms,run_time_limit_ms\n") !=
                NULL);
    snprintf(want, sizeof want, "\n%u,%d,", id, (int)pid);
    at = strstr(out, want);
    const char *eol = at ? strchr(at + 1, '\n') : NULL;
    ASSERT_TRUE(at && eol && memmem(at, (size_t)(eol - at), ",ending,", 8));

    ASSERT_EQ(test_run_cli(out, sizeof out, table), 0);
    ASSERT_TRUE(strstr(out, " STATE ") && strstr(out, " KERNELS "));
    snprintf(want, sizeof want, "\n%5u ending %7d ", id, (int)pid);
    ASSERT_TRUE(strstr(out, want) != NULL);
}

int main(void)
{
    /* As root, the leaving client and the one after it are nobody, who may
     * keep one session open. */
    bool as_nobody = geteuid() == 0;
    const char *const extra[] = {"--set", "devices.memory=copy", "--set",
                                 as_nobody ? "sessions.max_per_uid=1" : "sessions.max=64", NULL};
    test_daemon d;
    if (test_daemon_start(&d, extra) != 0)
        return 1;
    ASSERT_EQ(chmod(d.dir, 0755), 0);
    ASSERT_EQ(chmod(d.socket, 0666), 0);
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return 1;
    int32_t count = 0;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &count));
    if (count == 0) {
        tsr_client_close(c);
        test_daemon_stop(&d);
        TEST_SKIP("no OpenCL device to run kernels on");
    }
    int64_t one = 1;
    tsr_tensor *mine = NULL; /* makes this session's pool, for the stats */
    tsr_tensor_options o = {.has_device = true, .device = opencl0};
    ASSERT_OK(tsr_tensor_empty(c, 1, &one, &o, &mine));
    tsr_memory_stats before, after;
    ASSERT_OK(tsr_memory_get_stats(c, opencl0, &before));

    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t kid = fork();
    if (kid == 0)
        _exit(leaver(ready[1], as_nobody ? NOBODY : 0));
    close(ready[1]);
    uint32_t id = 0;
    ASSERT_EQ(read(ready[0], &id, sizeof id), (ssize_t)sizeof id);
    close(ready[0]);
    double left = now_s();

    /* Open until the daemon sees the connection go, then ending. The
     * child is not reaped yet, so its pid is still its own. */
    tsr_process_info row;
    bool listed = false;
    for (int k = 0; k < 1000; k++) {
        listed = row_of(c, id, &row);
        if (!listed || row.ending)
            break;
        usleep(2000);
    }
    ASSERT_TRUE(listed);
    ASSERT_TRUE(listed && row.ending);
    if (listed && row.ending) {
        ASSERT_TRUE(row.kernels > 0 && row.kernels <= LAUNCHES + 2);
        ASSERT_TRUE(row.visible && row.pid_known);
        ASSERT_EQ(row.pid, kid);
        ASSERT_UEQ(row.uid, as_nobody ? NOBODY : geteuid());
        ASSERT_STREQ(row.name, "leaver");
        ASSERT_EQ(row.usage_count, 1);
        ASSERT_TRUE(row.usage[0].allocated >= 3 * N * 4);
        ASSERT_TRUE(row.usage[0].reserved >= row.usage[0].allocated);
        ASSERT_OK(tsr_memory_get_stats(c, opencl0, &after));
        ASSERT_TRUE(before.device_free - after.device_free >= 3 * N * 4);
        check_cli(id, kid);

        /* A new session: a larger id, open, and let in although its user
         * may keep only one session and the ending one was its user's. */
        tsr_client *next = NULL;
        ASSERT_OK(tsr_client_open(NULL, &next));
        ASSERT_TRUE(next && tsr_client_session_id(next) > id);
        tsr_process_info fresh;
        ASSERT_TRUE(next && row_of(c, tsr_client_session_id(next), &fresh) && !fresh.ending &&
                    fresh.kernels == 0);
        tsr_client_close(next);
        if (as_nobody)
            ASSERT_TRUE(opens_as(NOBODY));
        ASSERT_TRUE(row_of(c, id, &row) && row.ending);
    }
    double seen = now_s();

    /* Gone once its last kernel is, and its memory with it. */
    int status = -1;
    ASSERT_EQ(waitpid(kid, &status, 0), kid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    bool gone = false;
    for (int k = 0; k < 6000 && !gone; k++) {
        gone = !row_of(c, id, &row);
        if (!gone)
            usleep(10000);
    }
    ASSERT_TRUE(gone);
    fprintf(stderr, "session %u: ending for %.2f s after its client left, checked in %.2f s\n", id,
            now_s() - left, seen - left);
    ASSERT_OK(tsr_memory_get_stats(c, opencl0, &after));
    ASSERT_UEQ(after.device_free, before.device_free);
    char needle[128];
    snprintf(needle, sizeof needle, "session %u: pid %d ended (disconnected)", id, (int)kid);
    ASSERT_EQ(test_daemon_log_count(&d, needle), 1);
    ASSERT_EQ(test_daemon_log_count(&d, "once its kernels finish"), 1);

    tsr_tensor_release(mine);
    tsr_client_close(c);
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
