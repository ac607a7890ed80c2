/* tessera-bench: a private tesserad for suites that need one (see daemon.h). */
#include "bench/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "tessera/tessera.h"

#define START_TIMEOUT_NS 60000000000ull /* discovery may probe OpenCL for a while */

/* The tesserad to run: $TESSERA_DAEMON, beside this program in a build tree
 * or an installation, else "tesserad" for execvp to find in PATH. */
static void find_daemon(char *out, size_t n)
{
    const char *env = getenv("TESSERA_DAEMON");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return;
    }
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            const char *beside[] = {"../daemon/tesserad", "../sbin/tesserad", "tesserad"};
            for (size_t k = 0; k < sizeof beside / sizeof beside[0]; k++) {
                int w = snprintf(out, n, "%s/%s", self, beside[k]);
                if (w > 0 && (size_t)w < n && access(out, X_OK) == 0)
                    return;
            }
        }
    }
    snprintf(out, n, "tesserad");
}

/* Whether a session can be opened (the daemon is up and answers). */
static bool answers(const char *path)
{
    tsr_client *c;
    tsr_client_options o = {.socket_path = path, .name = "tessera-bench", .timeout_ms = 1000};
    if (tsr_client_open(&o, &c) != TSR_OK)
        return false;
    tsr_client_close(c);
    return true;
}

static void dump_log(const bench_daemon *d)
{
    FILE *f = fopen(d->log, "re");
    if (!f)
        return;
    char buf[4096];
    size_t n;
    fprintf(stderr, "---- %s ----\n", d->log);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stderr);
    fprintf(stderr, "----\n");
    fclose(f);
}

static void remove_dir(const bench_daemon *d)
{
    unlink(d->socket);
    unlink(d->log);
    rmdir(d->dir);
}

/* Interrupted (^C reaches the daemon too, which stops by itself): the
 * daemon's directory goes, then this process, as the signal would end it.
 * unlink, rmdir, signal and raise are async-signal-safe. */
static const bench_daemon *running;

static void on_interrupt(int sig)
{
    if (running)
        remove_dir(running);
    signal(sig, SIG_DFL);
    raise(sig);
}

int bench_daemon_start(bench_daemon *d, const char *suite)
{
    return bench_daemon_start_with(d, suite, NULL);
}

int bench_daemon_start_with(bench_daemon *d, const char *suite, const char *option)
{
    *d = (bench_daemon){.pid = -1};
    char exe[PATH_MAX];
    find_daemon(exe, sizeof exe);
    const char *tmp = getenv("TMPDIR");
    snprintf(d->dir, sizeof d->dir, "%s/tessera-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d->dir)) {
        bench_note(suite, "cannot make a directory for tesserad (%s): %s", d->dir, strerror(errno));
        return -1;
    }
    snprintf(d->socket, sizeof d->socket, "%s/tesserad.sock", d->dir);
    snprintf(d->log, sizeof d->log, "%s/tesserad.log", d->dir);
    bench_note(suite, "starting %s --socket %s%s%s", exe, d->socket, option ? " " : "",
               option ? option : "");
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(suite, "fork: %s", strerror(errno));
        remove_dir(d);
        return -1;
    }
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        execlp(exe, exe, "--foreground", "--socket", d->socket, "--log-level", "notice", option,
               (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    d->pid = pid;
    running = d;
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    signal(SIGHUP, on_interrupt);
    uint64_t deadline = bench_now_ns() + START_TIMEOUT_NS;
    while (!answers(d->socket)) {
        int status;
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            d->pid = -1;
            bench_note(suite, "tesserad exited during start-up (set TESSERA_DAEMON to the tesserad "
                              "to use, or give --socket PATH of a running one)");
            dump_log(d);
            bench_daemon_stop(d);
            return -1;
        }
        if (bench_now_ns() > deadline) {
            bench_note(suite, "tesserad did not listen within 60 s");
            dump_log(d);
            bench_daemon_stop(d);
            return -1;
        }
        bench_sleep_ns(10000000);
    }
    return 0;
}

void bench_daemon_stop(bench_daemon *d)
{
    if (running == d) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        running = NULL;
    }
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        uint64_t deadline = bench_now_ns() + 10000000000ull;
        int status;
        while (waitpid(d->pid, &status, WNOHANG) != d->pid) {
            if (bench_now_ns() > deadline) {
                kill(d->pid, SIGKILL);
                waitpid(d->pid, &status, 0);
                break;
            }
            bench_sleep_ns(5000000);
        }
    }
    d->pid = -1;
    if (d->dir[0])
        remove_dir(d);
}

bool bench_daemon_wait_generic(const bench_daemon *d, uint64_t timeout_ns, int *programs,
                               double *seconds)
{
    uint64_t deadline = bench_now_ns() + timeout_ns;
    while (bench_now_ns() < deadline) {
        FILE *f = fopen(d->log, "re");
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            const char *at = strstr(line, "opencl:0: generic programs ready: ");
            int ready, of;
            if (at && sscanf(at, "opencl:0: generic programs ready: %d of %d in %lf s", &ready, &of,
                             seconds) == 3) {
                fclose(f);
                *programs = of;
                return ready == of;
            }
        }
        if (f)
            fclose(f);
        bench_sleep_ns(50000000);
    }
    return false;
}
