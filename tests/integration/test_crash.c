/* Endings nobody planned: a client killed with SIGKILL mid-way loses its
 * session and the daemon reclaims everything it held (seen through
 * `tessera ps --json` and the device's free memory); a daemon killed with
 * SIGKILL leaves its clients with an error on their next call within a
 * second, and their mapped data readable. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child allocates 8 MiB on opencl:0, fills it, says so, and then
 * keeps the daemon busy until it is killed. */
static int victim(int ready_fd)
{
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        return 10;
    int64_t n = 8 << 20;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_UINT8,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t;
    void *data;
    if (tsr_tensor_empty(c, 1, &n, &o, &t) != TSR_OK || tsr_tensor_data_ptr(t, &data) != TSR_OK)
        return 11;
    memset(data, 1, (size_t)n);
    char byte = 1;
    if (write(ready_fd, &byte, 1) != 1)
        return 12;
    for (;;)
        tsr_client_ping(c, TSR_TRANSPORT_RING);
}

/* Whether `tessera ps --json` lists pid, and if so its opencl:0 bytes. */
static bool ps_lists(pid_t pid, long long *bytes)
{
    char out[16384], want[64];
    const char *args[] = {"ps", "--json", NULL};
    if (test_run_cli(out, sizeof out, args) != 0)
        return false;
    snprintf(want, sizeof want, "\"pid\": %d, ", (int)pid);
    const char *at = strstr(out, want);
    if (!at)
        return false;
    const char *mem = strstr(at, "\"memory\": {\"opencl:0\": ");
    *bytes = mem ? atoll(mem + strlen("\"memory\": {\"opencl:0\": ")) : -1;
    return true;
}

static void killed_client(void)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return;
    tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    tsr_memory_stats before, after;
    int64_t one = 1;
    tsr_tensor *mine = NULL; /* makes this session's pool, for the stats */
    tsr_tensor_options o = {.has_device = true, .device = dev};
    ASSERT_OK(tsr_tensor_empty(c, 1, &one, &o, &mine));
    ASSERT_OK(tsr_memory_get_stats(c, dev, &before));

    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(victim(ready[1]));
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    long long bytes = 0;
    ASSERT_TRUE(ps_lists(pid, &bytes));
    ASSERT_EQ(bytes, 8 << 20);
    ASSERT_OK(tsr_memory_get_stats(c, dev, &after));
    ASSERT_EQ(before.device_free - after.device_free, 20 << 20); /* its segment */

    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    bool gone = false;
    for (int k = 0; k < 200 && !gone; k++) {
        gone = !ps_lists(pid, &bytes);
        if (!gone)
            usleep(10000);
    }
    ASSERT_TRUE(gone);
    ASSERT_OK(tsr_memory_get_stats(c, dev, &after));
    ASSERT_EQ(after.device_free, before.device_free);
    tsr_tensor_release(mine);
    tsr_client_close(c);
    close(ready[0]);
    close(ready[1]);
}

static void killed_daemon(test_daemon *d)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return;
    int64_t n = 256;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_INT32,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    int32_t *data = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, &n, &o, &t));
    ASSERT_OK(tsr_tensor_data_ptr(t, (void **)&data));
    for (int k = 0; k < 256; k++)
        data[k] = k * 3;

    test_daemon_kill(d);
    double start = now_s();
    ASSERT_FAIL(tsr_client_ping(c, TSR_TRANSPORT_RING), TSR_ERR_CONNECTION, NULL);
    ASSERT_TRUE(now_s() - start < 1.0);
    ASSERT_TRUE(strstr(tsr_last_error(), "connection to tesserad was lost") != NULL);
    start = now_s();
    tsr_tensor *u = NULL;
    ASSERT_FAIL(tsr_tensor_empty(c, 1, &n, &o, &u), TSR_ERR_CONNECTION, NULL);
    ASSERT_FAIL(tsr_client_ping(c, TSR_TRANSPORT_SOCKET), TSR_ERR_CONNECTION, NULL);
    ASSERT_FAIL(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 0}), TSR_ERR_CONNECTION, NULL);
    ASSERT_TRUE(now_s() - start < 1.0);
    /* The data stays readable, and releasing is quiet. */
    int bad = 0;
    for (int k = 0; k < 256; k++)
        bad += data[k] != k * 3;
    ASSERT_EQ(bad, 0);
    int32_t back[256];
    ASSERT_OK(tsr_tensor_copy_to_host(t, back, sizeof back));
    ASSERT_EQ(back[255], 765);
    tsr_tensor_release(t);
    tsr_client_close(c);
}

/* A wait for the device that signals interrupt every millisecond (a
 * profiler's SIGPROF, say) still sees the daemon die: its futex never
 * times out, so it looks whenever a step has passed, whatever woke it. */
static atomic_bool storming;
static pthread_t waiter;

static void on_signal(int sig)
{
    (void)sig;
}

static void *storm(void *arg)
{
    test_daemon *d = arg;
    for (int k = 0; atomic_load(&storming); k++) {
        pthread_kill(waiter, SIGUSR1);
        usleep(1000);
        if (k == 200)
            test_daemon_kill(d); /* while the waiter sleeps on its kernels */
    }
    return NULL;
}

static void killed_daemon_while_signalled(test_daemon *d)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return;
    int64_t n = INT64_C(1) << 24;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_FLOAT32,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *a = NULL, *b = NULL;
    ASSERT_OK(tsr_tensor_ones(c, 1, &n, &o, &a));
    ASSERT_OK(tsr_tensor_ones(c, 1, &n, &o, &b));
    for (int k = 0; a && b && k < 400; k++) /* seconds of work */
        ASSERT_OK(tsr_add_(a, b, tsr_scalar_int(1)));
    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: EINTR */
    sigaction(SIGUSR1, &sa, NULL);
    waiter = pthread_self();
    atomic_store(&storming, true);
    pthread_t t;
    ASSERT_EQ(pthread_create(&t, NULL, storm, d), 0);
    alarm(60); /* the way it failed: waiting for ever */
    double start = now_s();
    ASSERT_FAIL(tsr_synchronize(c, o.device), TSR_ERR_CONNECTION, NULL);
    ASSERT_TRUE(now_s() - start < 5.0);
    alarm(0);
    atomic_store(&storming, false);
    pthread_join(t, NULL);
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_client_close(c);
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    killed_client();
    ASSERT_TRUE(test_daemon_alive(&d));

    /* A client blocked in a call when the daemon dies: the same answer. */
    killed_daemon(&d);
    test_daemon_stop(&d); /* cleans up the directory; the exit was SIGKILL */
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    killed_daemon_while_signalled(&d);
    test_daemon_stop(&d);
    TEST_DONE();
}
