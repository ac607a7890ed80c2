/* A daemon that cannot accept a connection: while the machine is out of
 * file handles or kernel memory, accept4 fails and the connection stays
 * pending, so the listening socket stays readable. The daemon must not
 * spin on it: it stops listening for a moment, serves its sessions
 * meanwhile, and listens again once accept4 works.
 *
 * Nothing here can make a machine run out of file handles for one
 * process, so the kernel fails the daemon's accept calls for the test:
 * a seccomp filter (installed here, inherited by the daemon) hands each
 * accept4 to this process, which answers ENOMEM or ENFILE while it
 * "fails", and lets the call through otherwise. Skipped (77) where the
 * kernel has no such filters (before Linux 5.5) or refuses them. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The error the daemon's accept calls get (0: they run). */
static atomic_int fail_with;
/* Accept calls seen while failing. */
static atomic_long failed_calls;
/* The kernel refused to let a call through. */
static atomic_bool no_continue;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef TEST_AUDIT_ARCH
/* accept and accept4 go to the listener whose descriptor this returns
 * (-1, errno set, where the kernel refuses). */
static int install_filter(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_accept4, 2, 0),
#ifdef __NR_accept
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_accept, 1, 0),
#else
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_accept4, 1, 0),
#endif
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    };
    struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        &prog);
}

/* Answers every accept call: the error of fail_with, or on with it. */
static void *supervise(void *arg)
{
    int fd = *(int *)arg;
    for (;;) {
        struct seccomp_notif req;
        memset(&req, 0, sizeof req);
        if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
            if (errno == EINTR || errno == ENOENT)
                continue;
            return NULL; /* the listener is closed */
        }
        struct seccomp_notif_resp resp = {.id = req.id};
        int err = atomic_load(&fail_with);
        if (err) {
            resp.error = -err;
            atomic_fetch_add(&failed_calls, 1);
        } else {
            resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        }
        if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno == EINVAL && !err) {
            /* a kernel without CONTINUE (before 5.5): the call fails
             * rather than waits, and main skips */
            atomic_store(&no_continue, true);
            resp = (struct seccomp_notif_resp){.id = req.id, .error = -ENOSYS};
            (void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        }
    }
}

/* Whether an accept goes through the filter and on: a connection to a
 * listening socket of this process's own, taken by accept4. */
static bool accept_continues(void)
{
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    socklen_t len = sizeof addr;
    int a = -1;
    if (l >= 0 && c >= 0 && bind(l, (struct sockaddr *)&addr, sizeof(sa_family_t)) == 0 &&
        listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&addr, &len) == 0 &&
        connect(c, (struct sockaddr *)&addr, len) == 0)
        a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    bool ok = a >= 0 && !atomic_load(&no_continue);
    if (a >= 0)
        close(a);
    if (c >= 0)
        close(c);
    if (l >= 0)
        close(l);
    return ok;
}
#endif

/* Whether a client can open a session, trying for up to 5 s. */
static bool client_opens(void)
{
    for (int k = 0; k < 50; k++) {
        tsr_client *c = NULL;
        if (tsr_client_open(NULL, &c) == TSR_OK) {
            tsr_client_close(c);
            return true;
        }
        usleep(100000);
    }
    return false;
}

/* One spell of failing accepts with `err`, the session `open` served
 * throughout: the daemon logs `message`, tries accept at most a few
 * dozen times a second with its loop near idle, and takes new clients
 * again once accept works. */
static void spell(const test_daemon *d, tsr_client *open, int err, const char *message)
{
    atomic_store(&failed_calls, 0);
    atomic_store(&fail_with, err);
    int pending = test_raw_connect(d->socket);
    ASSERT_TRUE(pending >= 0);
    ASSERT_TRUE(test_daemon_log_wait(d, message, 1, 10000));
    long c0 = atomic_load(&failed_calls);
    double t0 = now_s(), cpu0 = test_loop_cpu_s(d->pid);
    usleep(1000000);
    double t1 = now_s(), cpu1 = test_loop_cpu_s(d->pid);
    long calls = atomic_load(&failed_calls) - c0;
    fprintf(stderr, "%s: %ld accept calls and %.2f s of the loop's CPU in %.2f s\n", strerror(err),
            calls, cpu1 - cpu0, t1 - t0);
    /* a pause of 100 ms: about ten tries a second (two each where the
     * spare descriptor is spent first); spinning made hundreds of
     * thousands */
    ASSERT_TRUE(calls >= 3 && calls <= 40);
    ASSERT_TRUE(cpu0 >= 0 && cpu1 >= 0 && cpu1 - cpu0 <= 0.2 * (t1 - t0));
    /* sessions already open are served meanwhile */
    int32_t n = -1;
    ASSERT_OK(tsr_device_count(open, TSR_DEVICE_CPU, &n));
    ASSERT_EQ(n, 1);
    atomic_store(&fail_with, 0);
    ASSERT_TRUE(client_opens());
    if (pending >= 0)
        close(pending);
}

int main(void)
{
#ifndef TEST_AUDIT_ARCH
    TEST_SKIP("no seccomp architecture known for this build");
#else
    int listener = install_filter();
    if (listener < 0)
        TEST_SKIP("seccomp user notification is not available: %s", strerror(errno));
    pthread_t thread;
    if (pthread_create(&thread, NULL, supervise, &listener) != 0)
        TEST_SKIP("cannot start a thread");
    pthread_detach(thread);
    if (!accept_continues())
        TEST_SKIP("seccomp cannot let a call through here (Linux before 5.5)");

    test_daemon d;
    ASSERT_EQ(test_daemon_start(&d, NULL), 0);
    tsr_client *open = NULL;
    ASSERT_OK(tsr_client_open(NULL, &open));
    if (!open) {
        test_daemon_stop(&d);
        TEST_DONE();
    }
    spell(&d, open, ENOMEM, "accept: Cannot allocate memory; not accepting connections for 100 ms");
    /* ENFILE: the spare descriptor is spent first, and the machine's
     * table stays full */
    spell(&d, open, ENFILE,
          "accept: Too many open files in system; not accepting connections for 100 ms");
    tsr_client_close(open);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
#endif
}
