/* A real tesserad and its configuration: --print-config against the
 * shipped sample, start-up errors, SIGHUP reloads that apply, keep or
 * refuse, command-line settings that outlive reloads, sd_notify messages
 * (READY, STATUS, WATCHDOG, RELOADING, STOPPING) and socket activation.
 *
 *   config-daemon PATH/TO/systemd/tesserad.conf
 * with TESSERA_TEST_DAEMON and TESSERA_TEST_CLI set, as for the
 * integration tests. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/support_config.h"
#include "support_daemon.h"
#include "test.h"

#define MiB (1024LL * 1024)

static char work[256];
static const char *sample_path;

static void write_file(const char *path, const char *text)
{
    if (!write_text(path, text)) {
        perror(path);
        exit(1);
    }
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static const char *in_work(const char *name)
{
    static char paths[8][320];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", work, name);
    return p;
}

static int count_in_file(const char *path, const char *needle)
{
    char *text = read_text(path);
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)) != NULL; p++)
        n++;
    free(text);
    return n;
}

/* Waits up to 10 s for a line containing needle in the log. */
static bool wait_log(const char *log, const char *needle)
{
    for (int waited = 0; waited < 10000; waited += 20) {
        if (count_in_file(log, needle) > 0)
            return true;
        sleep_ms(20);
    }
    fprintf(stderr, "the log %s never showed \"%s\"\n", log, needle);
    return false;
}

/* Runs a program; its stdout and stderr together into out. */
static int run_capture(const char *const *argv, char *out, size_t n)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* survives exec: a daemon that hangs is ended, and the test fails */
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while (used < n - 1 && (got = read(fds[0], out + used, n - 1 - used)) > 0)
        used += (size_t)got;
    out[used] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* opencl:0's memory as `tessera devices --json` reports it, -1 without
 * OpenCL devices, -2 when the command fails. */
static long long device_memory(void)
{
    static char out[65536];
    const char *args[] = {"devices", "--json", NULL};
    if (test_run_cli(out, sizeof out, args) != 0)
        return -2;
    const char *at = strstr(out, "\"memory_bytes\": ");
    return at ? strtoll(at + 16, NULL, 10) : -1;
}

static void test_print_config(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    static char out[65536];
    const char *plain[] = {exe, "--config", "/dev/null", "--print-config", NULL};
    ASSERT_EQ(run_capture(plain, out, sizeof out), 0);
    char *sample = read_text(sample_path);
    ASSERT_TRUE(sample != NULL);
    if (sample && strcmp(out, sample) != 0)
        fprintf(stderr, "tesserad --print-config differs from %s\n", sample_path);
    ASSERT_STREQ(out, sample);
    free(sample);

    const char *file = in_work("print.conf");
    write_file(file, "memory_limit.uid.0 = 1G\nlog.level = debug\n");
    const char *set[] = {
        exe, "--config", file, "--max-sessions", "7", "--set", "log.level=err", "--print-config",
        NULL};
    ASSERT_EQ(run_capture(set, out, sizeof out), 0);
    ASSERT_TRUE(strstr(out, "\nmemory_limit.uid.0 = 1G\n") != NULL);
    ASSERT_TRUE(strstr(out, "\nsessions.max = 7\n") != NULL);
    ASSERT_TRUE(strstr(out, "\nlog.level = err\n") != NULL);
    ASSERT_TRUE(strstr(out, "\n#socket.mode = 0660\n") != NULL);
}

/* The manual lists every option of the key table, as the sample file
 * (written from the table, see config-docs) names them: "# KEY (--OPTION): ". */
static void test_help(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    static char out[65536];
    const char *help[] = {exe, "--help", NULL};
    ASSERT_EQ(run_capture(help, out, sizeof out), 0);
    char *sample = read_text(sample_path);
    int options = 0;
    for (const char *p = sample; p && (p = strstr(p, " (--")) != NULL; p += 4) {
        char option[64], want[80];
        if (sscanf(p, " (--%63[a-z-]):", option) != 1)
            continue;
        snprintf(want, sizeof want, "\n    --%s ", option);
        if (!strstr(out, want))
            fprintf(stderr, "tesserad --help lacks --%s\n", option);
        ASSERT_TRUE(strstr(out, want) != NULL);
        options++;
    }
    ASSERT_TRUE(options >= 9);
    free(sample);
}

/* A socket the daemon binds itself gets socket.group and socket.mode. */
static void test_socket_access(void)
{
    char gid[32];
    snprintf(gid, sizeof gid, "%u", (unsigned)getgid());
    test_daemon d;
    const char *extra[] = {"--config", "/dev/null", "--socket-group", gid, "--socket-mode",
                           "0640",     NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    struct stat st;
    ASSERT_TRUE(stat(d.socket, &st) == 0);
    ASSERT_EQ(st.st_mode & 0777, 0640);
    ASSERT_EQ(st.st_gid, getgid());
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

static void test_start_errors(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    char out[4096], want[1024];
    const char *socket = in_work("never.sock");

    const char *missing = in_work("missing.conf");
    const char *a[] = {exe, "--foreground", "--config", missing, "--socket", socket, NULL};
    ASSERT_EQ(run_capture(a, out, sizeof out), 1);
    snprintf(want, sizeof want, "<3>cannot read %s: No such file or directory\n", missing);
    ASSERT_STREQ(out, want);

    const char *bad = in_work("bad.conf");
    write_file(bad, "# limits\nmemory_limit.uid_default = 1G\nmemory_limit.uid.0 = lots\n");
    const char *b[] = {exe, "--foreground", "--config", bad, "--socket", socket, NULL};
    ASSERT_EQ(run_capture(b, out, sizeof out), 1);
    snprintf(want, sizeof want,
             "<3>%s:3: memory_limit.uid.0: invalid size 'lots' (expected e.g. 4GiB or 50%%)\n",
             bad);
    ASSERT_STREQ(out, want);

    const char *c[] = {exe, "--memory-limit", "0", NULL};
    ASSERT_EQ(run_capture(c, out, sizeof out), 2);
    ASSERT_STREQ(out, "tesserad: --memory-limit: invalid size '0' (a limit is above 0; 'unlimited' "
                      "means none)\nTry 'tesserad --help' for more information.\n");
    const char *d[] = {exe, "--set", "log.level", NULL};
    ASSERT_EQ(run_capture(d, out, sizeof out), 2);
    ASSERT_STREQ(out, "tesserad: --set: expected KEY=VALUE, not 'log.level'\n"
                      "Try 'tesserad --help' for more information.\n");
    ASSERT_TRUE(access(socket, F_OK) != 0);
}

static int unix_socket(const char *path, int type, bool listening);

/* Starts tesserad --foreground on a socket path of the test's choosing,
 * its output into log; the caller stops it. */
static pid_t spawn_on(const char *socket, const char *log, const char *mode)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, STDERR_FILENO);
        dup2(out, STDOUT_FILENO);
        execl(exe, exe, "--foreground", "--config", "/dev/null", "--socket", socket,
              "--socket-mode", mode, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int stop_pid(pid_t pid)
{
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether the work directory holds a name containing needle. */
static bool work_has(const char *needle)
{
    DIR *dir = opendir(work);
    bool found = false;
    for (struct dirent *e; dir && !found && (e = readdir(dir)) != NULL;)
        found = strstr(e->d_name, needle) != NULL;
    if (dir)
        closedir(dir);
    return found;
}

/* Whether the daemon's temporary socket name is gone within a second: it
 * links the socket into place, then unlinks the temporary name, so a
 * watcher may see both for a moment. */
static bool temporary_gone(void)
{
    for (int k = 0; k < 1000 && work_has(".new"); k++)
        usleep(1000);
    return !work_has(".new");
}

/* The socket file: it appears only once it accepts connections, with its
 * mode; a second daemon on the same path is refused, a stale socket is
 * replaced, and anything else at the path is left alone. */
static void test_socket_path(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    char path[320], log[320], out[4096], want[1024];
    snprintf(path, sizeof path, "%s", in_work("own.sock"));
    snprintf(log, sizeof log, "%s", in_work("own.log"));

    /* Watched from the moment it exists, over several starts. */
    for (int round = 0; round < 8; round++) {
        pid_t pid = spawn_on(path, log, "0640");
        struct stat st;
        long spins = 0;
        while (lstat(path, &st) != 0 && spins < 200000000L) {
            spins++;
            if (spins % 4096 == 0 && waitpid(pid, NULL, WNOHANG) == pid)
                break;
        }
        ASSERT_TRUE(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
        ASSERT_EQ(st.st_mode & 0777, 0640);
        ASSERT_TRUE(test_can_connect(path));
        ASSERT_TRUE(temporary_gone());
        if (round == 0) {
            /* A second daemon on the same path. */
            const char *second[] = {exe,        "--foreground", "--config", "/dev/null",
                                    "--socket", path,           NULL};
            ASSERT_EQ(run_capture(second, out, sizeof out), 1);
            snprintf(want, sizeof want, "another tesserad is already listening on %s", path);
            ASSERT_TRUE(strstr(out, want) != NULL);
            ASSERT_TRUE(test_can_connect(path));
        }
        ASSERT_EQ(stop_pid(pid), 0);
        ASSERT_TRUE(access(path, F_OK) != 0);
    }

    /* A socket nobody listens on, as a killed daemon leaves it. */
    close(unix_socket(path, SOCK_SEQPACKET, false));
    ASSERT_FALSE(test_can_connect(path));
    pid_t pid = spawn_on(path, log, "0600");
    snprintf(want, sizeof want, "replaced the stale socket %s", path);
    ASSERT_TRUE(wait_log(log, want));
    ASSERT_TRUE(wait_log(log, "listening on"));
    ASSERT_TRUE(test_can_connect(path));
    ASSERT_EQ(stop_pid(pid), 0);

    /* A file that is not a socket. */
    write_file(path, "keep me\n");
    const char *refused[] = {exe, "--foreground", "--config", "/dev/null", "--socket", path, NULL};
    ASSERT_EQ(run_capture(refused, out, sizeof out), 1);
    snprintf(want, sizeof want, "%s exists and is not a socket; not replacing it", path);
    ASSERT_TRUE(strstr(out, want) != NULL);
    char *kept = read_text(path);
    ASSERT_STREQ(kept ? kept : "", "keep me\n");
    free(kept);
    unlink(path);
    unlink(log);
    ASSERT_FALSE(work_has(".new"));
}

/* SIGHUP and wait for the daemon's word that it reloaded. */
static bool reload(test_daemon *d, const char *file)
{
    char done[512];
    snprintf(done, sizeof done, "reloaded the configuration from %s", file);
    int before = count_in_file(d->log, done);
    kill(d->pid, SIGHUP);
    for (int waited = 0; waited < 10000; waited += 20) {
        if (count_in_file(d->log, done) > before)
            return true;
        sleep_ms(20);
    }
    fprintf(stderr, "no \"%s\" after SIGHUP\n", done);
    return false;
}

static void test_reload(void)
{
    const char *file = in_work("reload.conf");
    write_file(file, "memory_limit.daemon = 64M\n");
    test_daemon d;
    const char *extra[] = {"--config", file, NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    long long before = device_memory();
    bool opencl = before != -1;
    if (opencl)
        ASSERT_EQ(before, 64 * MiB);

    /* What can change does; what needs a restart is logged and kept. */
    write_file(file, "memory_limit.daemon = 32M\nlog.level = notice\nsessions.max = 1\n"
                     "socket.mode = 0600\ndevices.visible = 0, 5\n");
    ASSERT_TRUE(reload(&d, file));
    ASSERT_EQ(count_in_file(d.log, "reload: socket.mode changed from '0660' to '0600'; it takes "
                                   "effect when tesserad restarts"),
              1);
    ASSERT_TRUE(count_in_file(d.log, "devices.visible: opencl:5 does not exist") == 1);
    struct stat st;
    ASSERT_TRUE(stat(d.socket, &st) == 0 && (st.st_mode & 0777) == 0660);
    int connected = count_in_file(d.log, "connected");
    if (opencl)
        ASSERT_EQ(device_memory(), 32 * MiB);
    ASSERT_EQ(count_in_file(d.log, "connected"), connected); /* info is below notice now */

    /* sessions.max = 1: a second session is turned away, and told why;
     * root has a few sessions in reserve beyond it. Monitoring (the CLI)
     * is no session, and goes on working. */
    tsr_client *held[8] = {NULL};
    int opened = 0;
    tsr_status refused = TSR_OK;
    while (opened < 8 && (refused = tsr_client_open(NULL, &held[opened])) == TSR_OK)
        opened++;
    ASSERT_EQ(opened, getuid() == 0 ? 5 : 1);
    ASSERT_EQ(refused, TSR_ERR_LIMIT);
    ASSERT_TRUE(strstr(tsr_last_error(), "sessions open, its most (sessions.max = 1)") != NULL);
    if (opencl)
        ASSERT_EQ(device_memory(), 32 * MiB);
    ASSERT_TRUE(wait_log(d.log, "refused a session of pid"));
    for (int k = 0; k < opened; k++)
        tsr_client_close(held[k]);

    /* A bad file changes nothing. */
    write_file(file, "memory_limit.daemon = 16M\nthis is not a key line\n");
    kill(d.pid, SIGHUP);
    char want[512];
    snprintf(want, sizeof want,
             "<3>reload failed, keeping the running configuration: %s:2: expected 'key = value', "
             "got 'this is not a key line'",
             file);
    ASSERT_TRUE(wait_log(d.log, want));
    if (opencl)
        ASSERT_EQ(device_memory(), 32 * MiB);
    /* A --config file that went away is an error too. */
    unlink(file);
    kill(d.pid, SIGHUP);
    snprintf(want, sizeof want,
             "reload failed, keeping the running configuration: cannot read %s: No such file or "
             "directory",
             file);
    ASSERT_TRUE(wait_log(d.log, want));
    ASSERT_TRUE(test_daemon_alive(&d));
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

/* A limit line for a user the system does not know (one who left, a
 * directory service that is down) leaves that line out with a warning
 * naming it, at start and at reload; the daemon starts and serves. */
static void test_unknown_user(void)
{
    const char *file = in_work("departed.conf");
    write_file(file, "memory_limit.uid_default = 25%\n"
                     "memory_limit.uid.tsr-departed-user = 1G\n");
    test_daemon d;
    const char *extra[] = {"--config", file, NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    char want[512];
    snprintf(want, sizeof want,
             "<4>%s:2: memory_limit.uid.tsr-departed-user: no such user 'tsr-departed-user'; the "
             "line is left out until the user exists (SIGHUP reads it again)",
             file);
    ASSERT_EQ(count_in_file(d.log, want), 1);
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_client_close(c);
    /* A drop-in, read at reload, over the file. */
    char dropins[300], dropin[340];
    snprintf(dropins, sizeof dropins, "%s.d", file);
    snprintf(dropin, sizeof dropin, "%s/50-memory.conf", dropins);
    ASSERT_EQ(mkdir(dropins, 0755), 0);
    write_file(dropin, "memory_limit.daemon = 40M\n");
    write_file(file, "memory_limit.daemon = 64M\nmemory_limit.group.tsr-departed-group = 10%\n");
    ASSERT_TRUE(reload(&d, file));
    if (device_memory() != -1)
        ASSERT_EQ(device_memory(), 40 * MiB);
    unlink(dropin);
    rmdir(dropins);
    snprintf(want, sizeof want,
             "<4>%s:2: memory_limit.group.tsr-departed-group: no such group "
             "'tsr-departed-group'; the line is left out until the group exists (SIGHUP reads it "
             "again)",
             file);
    ASSERT_EQ(count_in_file(d.log, want), 1);
    ASSERT_TRUE(test_daemon_alive(&d));
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

/* A configuration path that is a FIFO is refused at once, at start and at
 * reload: opening one blocks until a writer comes, and the reload runs on
 * the loop thread. */
static void test_fifo_config(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    char out[4096], want[1024];
    const char *fifo = in_work("fifo.conf");
    unlink(fifo);
    ASSERT_TRUE(mkfifo(fifo, 0600) == 0);
    const char *a[] = {exe,        "--foreground",        "--config", fifo,
                       "--socket", in_work("never.sock"), NULL};
    ASSERT_EQ(run_capture(a, out, sizeof out), 1);
    snprintf(want, sizeof want, "<3>%s is a FIFO; the configuration must be a regular file\n",
             fifo);
    ASSERT_STREQ(out, want);
    unlink(fifo);

    const char *file = in_work("fifo-reload.conf");
    write_file(file, "log.level = info\n");
    test_daemon d;
    const char *extra[] = {"--config", file, NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    unlink(file);
    ASSERT_TRUE(mkfifo(file, 0600) == 0);
    kill(d.pid, SIGHUP);
    snprintf(want, sizeof want,
             "<3>reload failed, keeping the running configuration: %s is a FIFO; the "
             "configuration must be a regular file",
             file);
    ASSERT_TRUE(wait_log(d.log, want));
    /* The loop still serves. */
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_client_close(c);
    ASSERT_TRUE(test_daemon_alive(&d));
    ASSERT_EQ(test_daemon_stop(&d), 0);
    unlink(file);
}

/* Options beat the file, at start and at every reload. */
static void test_command_line_wins(void)
{
    const char *file = in_work("override.conf");
    write_file(file, "memory_limit.daemon = 64M\nsessions.max = 1\n");
    test_daemon d;
    const char *extra[] = {"--config", file,    "--memory-limit",    "48M", "--max-sessions",
                           "5",        "--set", "log.level=warning", NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    bool opencl = device_memory() != -1;
    if (opencl)
        ASSERT_EQ(device_memory(), 48 * MiB);
    write_file(file, "memory_limit.daemon = 16M\nsessions.max = 1\nlog.level = debug\n");
    kill(d.pid, SIGHUP);
    /* The reload's notice is below the command line's log level: wait for
     * its effect instead. */
    sleep_ms(300);
    if (opencl)
        ASSERT_EQ(device_memory(), 48 * MiB);
    tsr_client *a = NULL, *b = NULL;
    ASSERT_OK(tsr_client_open(NULL, &a));
    ASSERT_OK(tsr_client_open(NULL, &b));
    tsr_client_close(a);
    tsr_client_close(b);
    ASSERT_EQ(count_in_file(d.log, "connected"), 0);
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

/* ---- systemd ------------------------------------------------------------ */

static int unix_socket(const char *path, int type, bool listening)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ||
        (listening && listen(fd, 16) < 0)) {
        perror(path);
        exit(1);
    }
    return fd;
}

/* Reads notifications until one contains `want` (10 s at most). */
static bool expect_notify(int fd, const char *want)
{
    for (int waited = 0; waited < 10000;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) {
            waited += 100;
            continue;
        }
        char msg[1024];
        ssize_t got = recv(fd, msg, sizeof msg - 1, 0);
        if (got <= 0)
            continue;
        msg[got] = '\0';
        if (strstr(msg, want))
            return true;
    }
    fprintf(stderr, "no notification with \"%s\"\n", want);
    return false;
}

static void test_notify(void)
{
    const char *path = in_work("notify");
    int fd = unix_socket(path, SOCK_DGRAM, false);
    setenv("NOTIFY_SOCKET", path, 1);
    setenv("WATCHDOG_USEC", "200000", 1);
    test_daemon d;
    const char *extra[] = {"--config", "/dev/null", NULL};
    int started = test_daemon_start(&d, extra);
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    ASSERT_EQ(started, 0);
    if (started == 0) {
        ASSERT_TRUE(expect_notify(fd, "READY=1"));
        ASSERT_TRUE(expect_notify(fd, ", 0 sessions"));
        ASSERT_TRUE(expect_notify(fd, "WATCHDOG=1"));
        tsr_client *c = NULL;
        ASSERT_OK(tsr_client_open(NULL, &c));
        ASSERT_TRUE(expect_notify(fd, ", 1 session"));
        tsr_client_close(c);
        ASSERT_TRUE(expect_notify(fd, ", 0 sessions"));
        kill(d.pid, SIGHUP);
        ASSERT_TRUE(expect_notify(fd, "RELOADING=1"));
        ASSERT_TRUE(expect_notify(fd, "READY=1"));
        ASSERT_EQ(test_daemon_stop(&d), 0);
        ASSERT_TRUE(expect_notify(fd, "STOPPING=1"));
    }
    close(fd);
    unlink(path);
}

/* As systemd passes a socket: descriptor 3, LISTEN_FDS=1, LISTEN_PID. */
static void test_socket_activation(void)
{
    const char *exe = getenv("TESSERA_TEST_DAEMON");
    const char *path = in_work("activated.sock");
    const char *log = in_work("activated.log");
    const char *unused = in_work("unused.sock");
    char log_path[320], path_copy[320], unused_copy[320];
    snprintf(log_path, sizeof log_path, "%s", log);
    snprintf(path_copy, sizeof path_copy, "%s", path);
    snprintf(unused_copy, sizeof unused_copy, "%s", unused);
    int fd = unix_socket(path_copy, SOCK_SEQPACKET, true);
    pid_t pid = fork();
    if (pid == 0) {
        char me[32];
        snprintf(me, sizeof me, "%d", (int)getpid());
        setenv("LISTEN_FDS", "1", 1);
        setenv("LISTEN_PID", me, 1);
        int out = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, STDERR_FILENO);
        if (fd == 3)
            fcntl(fd, F_SETFD, 0);
        else
            dup2(fd, 3); /* the copy has no close-on-exec */
        execl(exe, exe, "--foreground", "--config", "/dev/null", "--socket", unused_copy,
              (char *)NULL);
        _exit(127);
    }
    close(fd);
    char want[400];
    snprintf(want, sizeof want, "listening on %s (socket passed by systemd)", path_copy);
    ASSERT_TRUE(wait_log(log_path, want));
    tsr_client *c = NULL;
    tsr_client_options o = {.socket_path = path_copy};
    ASSERT_OK(tsr_client_open(&o, &c));
    tsr_client_close(c);
    ASSERT_TRUE(access(unused_copy, F_OK) != 0);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The socket is systemd's: the daemon leaves it where it was. */
    ASSERT_TRUE(access(path_copy, F_OK) == 0);
    unlink(path_copy);
    unlink(log_path);
}

int main(int argc, char **argv)
{
    if (argc != 2 || !getenv("TESSERA_TEST_DAEMON") || !getenv("TESSERA_TEST_CLI")) {
        fprintf(stderr,
                "usage: TESSERA_TEST_DAEMON=... TESSERA_TEST_CLI=... config-daemon SAMPLE\n");
        return 2;
    }
    sample_path = argv[1];
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/tessera-config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("TESSERA_SOCKET");
    test_print_config();
    test_help();
    test_start_errors();
    test_socket_access();
    test_socket_path();
    test_reload();
    test_fifo_config();
    test_unknown_user();
    test_command_line_wins();
    test_notify();
    test_socket_activation();
    const char *names[] = {"print.conf", "bad.conf", "override.conf"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        unlink(in_work(names[k]));
    rmdir(work);
    TEST_DONE();
}
