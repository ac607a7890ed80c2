/* OpenCL discovery, the parent's side: fork the probe (probe.c), read its
 * message within the deadline, reap it, and turn whatever happened into a
 * device list or a note. This file never calls OpenCL, so no driver is
 * ever loaded into the caller: a driver that crashes, hangs or leaks does
 * so in the child only. */
#include "opencl/discover.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "opencl/wire.h"

/* In the child: die with the parent, drop the caller's signal handlers and
 * mask (so a crash ends the child by its signal, and a handler written for
 * the caller never runs here), probe, and leave with _exit: no atexit
 * handlers, stdio flushes or leak checks of the caller's run in the child. */
static _Noreturn void run_child(int fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
            old.sa_handler != SIG_IGN)
            signal(sig, SIG_DFL);
    }
    _exit(tsr__cl_probe(fd));
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What became of the child. */
enum outcome { CHILD_DONE, CHILD_TIMED_OUT, CHILD_OVERSIZED, CHILD_LOST };

/* Reads the child's message until EOF, the deadline, or more bytes than a
 * message can have. Returns CHILD_DONE at EOF. */
static enum outcome read_message(int fd, long long deadline, unsigned char *buf, size_t cap,
                                 size_t *len)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return CHILD_TIMED_OUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, (int)left);
        if (ready < 0 && errno != EINTR)
            return CHILD_LOST;
        if (ready <= 0)
            continue;
        ssize_t n = read(fd, buf + *len, cap - *len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return CHILD_LOST;
        if (n == 0)
            return CHILD_DONE;
        *len += (size_t)n;
        if (*len == cap)
            return CHILD_OVERSIZED;
    }
}

/* Reaps the child. After EOF it is normally exiting already, but it is
 * given only until the deadline: then it is killed. A child that did not
 * finish is killed at once. Either way no zombie is left. */
static enum outcome reap(pid_t pid, enum outcome outcome, long long deadline, int *status)
{
    while (outcome == CHILD_DONE) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return CHILD_DONE;
        /* Reaped elsewhere: the pid may be another process's by now, so
         * it must not be killed. */
        if (got < 0 && errno == ECHILD)
            return CHILD_LOST;
        if (now_ms() >= deadline)
            outcome = CHILD_TIMED_OUT;
        else
            nanosleep(&(struct timespec){.tv_nsec = 2 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        continue;
    return outcome;
}

/* The note for a child that did not deliver; "" when it did. */
static void describe_failure(enum outcome outcome, int status, int timeout_ms, char *note, size_t n)
{
    const char *why = "listing no OpenCL devices";
    if (outcome == CHILD_TIMED_OUT)
        snprintf(note, n, "OpenCL probe timed out after %d ms and was killed: %s", timeout_ms, why);
    else if (outcome == CHILD_OVERSIZED)
        snprintf(note, n, "OpenCL probe sent more than %zu bytes: %s", TSR__CL_WIRE_MAX, why);
    else if (outcome == CHILD_LOST)
        snprintf(note, n, "OpenCL probe could not be read or reaped: %s", why);
    else if (WIFSIGNALED(status))
        snprintf(note, n, "OpenCL probe crashed (signal %d, SIG%s): %s", WTERMSIG(status),
                 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?", why);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(note, n, "OpenCL probe exited with status %d: %s", WEXITSTATUS(status), why);
    else
        note[0] = '\0';
}

tsr_status tsr__cl_discover(int timeout_ms, tsr__cl_discovery *out)
{
    if (!out || timeout_ms <= 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr__cl_discover needs a result and a timeout above 0 ms (got %d)",
                         timeout_ms);
    /* One byte more than the largest message, to tell "too long" from "full". */
    size_t cap = TSR__CL_WIRE_MAX + 1;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for the OpenCL probe's message");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        free(buf);
        return tsr__fail(TSR_ERR_IO, "cannot create the OpenCL probe's pipe: %s", strerror(errno));
    }
    long long deadline = now_ms() + timeout_ms;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], parent);
    }
    int fork_errno = errno;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        free(buf);
        return tsr__fail(TSR_ERR_RUNTIME, "cannot fork the OpenCL probe: %s", strerror(fork_errno));
    }

    size_t len = 0;
    int status = 0;
    enum outcome outcome = read_message(fds[0], deadline, buf, cap, &len);
    close(fds[0]);
    outcome = reap(pid, outcome, deadline, &status);

    tsr__cl_discovery result = {.devices = NULL, .count = 0};
    describe_failure(outcome, status, timeout_ms, result.note, sizeof(result.note));
    tsr_status st = result.note[0] == '\0' ? tsr__cl_decode(buf, len, &result) : TSR_OK;
    free(buf);
    if (st == TSR_ERR_OUT_OF_MEMORY)
        return st;
    if (st != TSR_OK)
        snprintf(result.note, sizeof(result.note),
                 "OpenCL probe sent an invalid message (%s): listing no OpenCL devices",
                 tsr_last_error());
    *out = result;
    return TSR_OK;
}

void tsr__cl_discovery_free(tsr__cl_discovery *discovery)
{
    if (!discovery)
        return;
    free(discovery->devices);
    discovery->devices = NULL;
    discovery->count = 0;
}
