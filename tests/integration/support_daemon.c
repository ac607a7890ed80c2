/* See support_daemon.h. */
#include "support_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

bool test_can_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return false;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int test_daemon_start(test_daemon *d, const char *const *extra)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    if (!exe) {
        fprintf(stderr, "TESSERA_TEST_DAEMON is not set\n");
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(d->dir, sizeof d->dir, "%s/tessera-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d->dir)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(d->socket, sizeof d->socket, "%s/tesserad.sock", d->dir);
    snprintf(d->log, sizeof d->log, "%s/tesserad.log", d->dir);
    const char *argv[32] = {exe, "--foreground", "--socket", d->socket};
    int argc = 4;
    for (int k = 0; extra && extra[k] && argc < 30; k++)
        argv[argc++] = extra[k];
    argv[argc] = NULL;
    d->pid = fork();
    if (d->pid < 0)
        return -1;
    if (d->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a crashed test */
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            dup2(fd, STDOUT_FILENO);
        }
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    setenv("TESSERA_SOCKET", d->socket, 1);
    for (int waited = 0; waited < 30000; waited += 10) {
        if (test_can_connect(d->socket))
            return 0;
        if (!test_daemon_alive(d)) {
            fprintf(stderr, "tesserad exited during start-up\n");
            test_daemon_dump_log(d);
            return -1;
        }
        sleep_ms(10);
    }
    fprintf(stderr, "tesserad did not listen within 30 s\n");
    test_daemon_dump_log(d);
    return -1;
}

bool test_daemon_alive(test_daemon *d)
{
    if (d->pid <= 0)
        return false;
    int status;
    pid_t r = waitpid(d->pid, &status, WNOHANG);
    if (r == d->pid) {
        d->pid = -status - 1; /* remember how it ended */
        return false;
    }
    return r == 0;
}

static void remove_dir(test_daemon *d)
{
    char path[400];
    const char *names[] = {"tesserad.sock", "tesserad.log"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", d->dir, names[k]);
        unlink(path);
    }
    rmdir(d->dir);
}

static int decode(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

int test_daemon_stop(test_daemon *d)
{
    int result = -1;
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        for (int waited = 0; waited < 10000; waited += 10) {
            int status;
            if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
                result = decode(status);
                break;
            }
            sleep_ms(10);
        }
        if (result == -1) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, NULL, 0);
        }
    } else if (d->pid < -0) {
        result = decode(-d->pid - 1);
    }
    if (result != 0)
        test_daemon_dump_log(d);
    remove_dir(d);
    d->pid = 0;
    return result;
}

void test_daemon_kill(test_daemon *d)
{
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        int status;
        waitpid(d->pid, &status, 0);
        d->pid = -status - 1;
    }
}

void test_daemon_dump_log(const test_daemon *d)
{
    FILE *f = fopen(d->log, "r");
    if (!f)
        return;
    char line[1024];
    fprintf(stderr, "---- %s ----\n", d->log);
    while (fgets(line, sizeof line, f))
        fputs(line, stderr);
    fprintf(stderr, "----\n");
    fclose(f);
}

int test_daemon_log_count(const test_daemon *d, const char *needle)
{
    FILE *f = fopen(d->log, "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f))
        found += strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

int test_run_cli(char *out, size_t n, const char *const *args)
{
    const char *exe = getenv("TESSERA_TEST_CLI");
    if (!exe)
        return -1;
    int pipefd[2];
    if (pipe(pipefd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[32] = {exe};
        int argc = 1;
        for (int k = 0; args[k] && argc < 31; k++)
            argv[argc++] = args[k];
        argv[argc] = NULL;
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    size_t used = 0;
    for (;;) {
        ssize_t got = read(pipefd[0], out + used, n - 1 - used);
        if (got <= 0)
            break;
        used += (size_t)got;
        if (used == n - 1)
            break;
    }
    out[used] = '\0';
    close(pipefd[0]);
    int status;
    waitpid(pid, &status, 0);
    return decode(status);
}
