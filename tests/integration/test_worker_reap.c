/* A kernel worker that does not exit when the daemon kills it: a worker
 * runs as its user, who may trace it, and the zombie of a traced process
 * is the tracer's to reap first. Here the test traces the worker. While
 * the tracer holds it the daemon goes on serving and its loop does not
 * spin (its thread's CPU time stays far below the time that passes);
 * once the tracer lets go, the daemon reaps it. A worker still held when
 * the daemon stops costs that stop at most about a second, is logged,
 * and leaks nothing (the AddressSanitizer build checks the daemon's
 * exit). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

static const tsr_device DEV = {TSR_DEVICE_OPENCL, 0};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The pid of the newest worker the daemon logged, or -1. */
static long newest_worker(const test_daemon *d)
{
    static const char want[] = "on opencl:0 started (pid ";
    char line[1024];
    FILE *f = fopen(d->log, "r");
    long pid = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, want);
        if (at && strstr(line, "kernel worker of uid"))
            pid = strtol(at + strlen(want), NULL, 10);
    }
    if (f)
        fclose(f);
    return pid;
}

/* Whether /proc still has process pid (a zombie counts). */
static bool exists(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld", pid);
    return access(path, F_OK) == 0;
}

/* Builds a one-kernel program on a new session, which starts the uid's
 * worker; returns the session and the program (the worker is idle, and
 * stopped kernels.worker_idle_ms later, once both are gone), or NULL. */
static tsr_client *start_worker(tsr_program **p)
{
    static const char src[] = "__kernel void one(__global int *p) { p[0] = 1; }";
    tsr_client *c = NULL;
    *p = NULL;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        return NULL;
    if (tsr_program_create(c, DEV, src, NULL, p) != TSR_OK || tsr_program_wait(*p) != TSR_OK) {
        fprintf(stderr, "build: %s\n", tsr_last_error());
        tsr_program_release(*p);
        *p = NULL;
        tsr_client_close(c);
        return NULL;
    }
    return c;
}

/* Traces the worker `pid` (without stopping it) from this process. */
static bool trace(long pid)
{
    if (ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL) == 0)
        return true;
    fprintf(stderr, "PTRACE_SEIZE %ld: %s\n", pid, strerror(errno));
    return false;
}

/* Reaps, as its tracer, the killed worker `pid`: the kill is what ends
 * it. */
static bool reap_as_tracer(long pid)
{
    int status = 0;
    for (;;) {
        pid_t got = waitpid((pid_t)pid, &status, __WALL);
        if (got < 0)
            return errno == ECHILD;
        if (WIFEXITED(status) || WIFSIGNALED(status))
            return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
        /* a stop the tracer is told of: let it go on */
        ptrace(PTRACE_CONT, (pid_t)pid, NULL, NULL);
    }
}

int main(void)
{
    test_daemon d;
    const char *args[] = {"--set", "kernels.worker_idle_ms=300", NULL};
    if (test_daemon_start(&d, args) != 0)
        return 1;
    tsr_client *probe = NULL;
    int32_t n = 0;
    ASSERT_OK(tsr_client_open(NULL, &probe));
    ASSERT_OK(tsr_device_count(probe, TSR_DEVICE_OPENCL, &n));
    tsr_client_close(probe);
    if (n < 1) {
        test_daemon_stop(&d);
        TEST_SKIP("no OpenCL device");
    }

    /* 1. Held while the daemon runs: it is killed when idle. */
    tsr_program *p = NULL;
    tsr_client *c = start_worker(&p);
    ASSERT_TRUE(c != NULL);
    long w = newest_worker(&d);
    ASSERT_TRUE(w > 0);
    if (!c || w <= 0 || !trace(w)) {
        test_daemon_stop(&d);
        TEST_SKIP("the worker cannot be traced here");
    }
    tsr_program_release(p);
    tsr_client_close(c);
    ASSERT_TRUE(test_daemon_log_wait(&d, "has not exited yet; reaped when it does", 1, 20000));
    /* The daemon idles while the zombie waits for its tracer. */
    double t0 = now_s(), c0 = test_loop_cpu_s(d.pid);
    usleep(1000000);
    double t1 = now_s(), c1 = test_loop_cpu_s(d.pid);
    ASSERT_TRUE(c0 >= 0 && c1 >= 0);
    if (c1 - c0 > 0.2 * (t1 - t0))
        fprintf(stderr, "daemon used %.2f s of CPU in %.2f s\n", c1 - c0, t1 - t0);
    ASSERT_TRUE(c1 - c0 <= 0.2 * (t1 - t0));
    /* It still serves: a new build starts a new worker. */
    tsr_program *p2 = NULL;
    tsr_client *c2 = start_worker(&p2);
    ASSERT_TRUE(c2 != NULL);
    long w2 = newest_worker(&d);
    ASSERT_TRUE(w2 > 0 && w2 != w);
    ASSERT_TRUE(exists(w));
    ASSERT_TRUE(reap_as_tracer(w));
    /* Handed back to the daemon, which reaps it. */
    bool gone = false;
    for (int k = 0; k < 500 && !(gone = !exists(w)); k++)
        usleep(10000);
    ASSERT_TRUE(gone);

    /* 2. Held when the daemon stops. */
    bool traced = w2 > 0 && trace(w2);
    ASSERT_TRUE(traced);
    tsr_program_release(p2);
    tsr_client_close(c2);
    double s0 = now_s();
    test_daemon_terminate(&d);
    double stopped = now_s() - s0;
    ASSERT_TRUE(stopped < 8.0);
    ASSERT_EQ(test_daemon_log_count(&d, "had not exited at stop"), traced ? 1 : 0);
    if (traced)
        ASSERT_TRUE(reap_as_tracer(w2));
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
