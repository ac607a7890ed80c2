/* See support_daemon.h. */
#include "support_daemon.h"

#include "core/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

int test_raw_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return -1;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

bool test_can_connect(const char *path)
{
    int fd = test_raw_connect(path);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

int test_raw_hello(int fd, char *message, size_t n)
{
    return test_raw_hello_ring(fd, message, n, NULL);
}

tsr_status test_raw_call(int fd, uint32_t opcode, uint64_t request_id, const void *payload,
                         uint32_t len, void *reply, size_t cap, int *fds, int nfds, char *message,
                         size_t n)
{
    for (int k = 0; k < nfds; k++)
        fds[k] = -1;
    if (message && n)
        message[0] = '\0';
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
    } f;
    tsr__wire_header h = {.magic = TSR__WIRE_MAGIC,
                          .version = TSR__WIRE_VERSION,
                          .opcode = (uint16_t)opcode,
                          .length = len,
                          .request_id = request_id};
    if (len > sizeof f.bytes - sizeof h)
        return TSR_ERR_INVALID_ARGUMENT;
    memcpy(f.bytes, &h, sizeof h);
    memcpy(f.bytes + sizeof h, payload, len);
    if (send(fd, f.bytes, sizeof h + len, MSG_NOSIGNAL) < 0)
        return TSR_ERR_CONNECTION;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = f.bytes, .iov_len = sizeof f.bytes};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t got = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    int kept = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); got > 0 && c; c = CMSG_NXTHDR(&msg, c))
        for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
            int passed;
            memcpy(&passed, CMSG_DATA(c) + k * sizeof(int), sizeof passed);
            if (kept < nfds)
                fds[kept++] = passed;
            else
                close(passed);
        }
    if (got < (ssize_t)sizeof h)
        return TSR_ERR_CONNECTION;
    memcpy(&h, f.bytes, sizeof h);
    size_t body = (size_t)got - sizeof h;
    if (!(h.flags & TSR__WIRE_ERROR)) {
        if (reply)
            memcpy(reply, f.bytes + sizeof h, body < cap ? body : cap);
        return TSR_OK;
    }
    for (int k = 0; k < kept; k++) {
        close(fds[k]);
        fds[k] = -1;
    }
    tsr__wire_error err = {0};
    memcpy(&err, f.bytes + sizeof h, body < sizeof err ? body : sizeof err);
    if (message && n)
        snprintf(message, n, "%.*s",
                 (int)(err.length < TSR__WIRE_MESSAGE_MAX ? err.length : TSR__WIRE_MESSAGE_MAX),
                 err.text);
    return err.status != TSR_OK ? (tsr_status)err.status : TSR_ERR_PROTOCOL;
}

int test_raw_hello_ring(int fd, char *message, size_t n, int *ring)
{
    tsr__wire_hello hello = {.version_min = TSR__WIRE_VERSION_MIN,
                             .version_max = TSR__WIRE_VERSION,
                             .pid = (uint32_t)getpid(),
                             .name = "raw"};
    int fds[1];
    char why[TSR__WIRE_MESSAGE_MAX + 1] = "";
    tsr_status st = test_raw_call(fd, TSR__OP_HELLO, 1, &hello, sizeof hello, NULL, 0, fds,
                                  ring ? 1 : 0, why, sizeof why);
    if (ring)
        *ring = st == TSR_OK ? fds[0] : -1;
    if (message && n)
        snprintf(message, n, "%s", why);
    /* a refusal carries its reason; a connection that failed, none */
    return st == TSR_OK ? 1 : why[0] ? 0 : -1;
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
        /* As systemd starts a service whose stderr is the journal: the
         * variable names the stream (here the log file) stderr is. */
        struct stat st;
        char stream[64];
        unsetenv("JOURNAL_STREAM");
        if (getenv("TESSERA_TEST_JOURNAL") && fd >= 0 && fstat(fd, &st) == 0) {
            snprintf(stream, sizeof stream, "%llu:%llu", (unsigned long long)st.st_dev,
                     (unsigned long long)st.st_ino);
            setenv("JOURNAL_STREAM", stream, 1);
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

void test_daemon_terminate(test_daemon *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGTERM);
    for (int waited = 0; waited < 10000; waited += 10) {
        int status;
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            d->pid = -status - 1;
            return;
        }
        sleep_ms(10);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0; /* test_daemon_stop's -1 */
}

int test_daemon_stop(test_daemon *d)
{
    test_daemon_terminate(d);
    int result = d->pid < 0 ? decode(-d->pid - 1) : -1;
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

bool test_daemon_log_wait(const test_daemon *d, const char *needle, int count, int timeout_ms)
{
    for (int waited = 0;; waited += 10) {
        if (test_daemon_log_count(d, needle) >= count)
            return true;
        if (waited >= timeout_ms)
            return false;
        usleep(10000);
    }
}

double test_loop_cpu_s(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)pid, (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* fields 14 and 15, counted after the command's closing parenthesis */
    const char *p = strrchr(buf, ')');
    unsigned long long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
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
