/* The daemon's log as an operator reads it: a session's end is one record
 * of what it did (how long, requests, kernels, busy time, peak memory), an
 * allocation refused at a limit is logged once per session and cause, and
 * under systemd (stderr is the journal, $JOURNAL_STREAM) every event is a
 * journal entry with its MESSAGE_ID and SESSION, UID, PID and DEVICE
 * fields. The journal part runs Debian's systemd-journald itself, in a
 * private mount namespace with a /run of its own, and reads what it stored
 * back with journalctl; it is skipped (77) where that cannot be done (not
 * root, no mount namespaces, no journald). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define JOURNALD "/lib/systemd/systemd-journald"
#define JOURNALCTL "journalctl"
#define MiB (1024LL * 1024)

/* memory_limit.session = 64M, in a file of its own. */
static char config[64];
static const char *args[] = {"--config", config, NULL};

static bool write_config(void)
{
    snprintf(config, sizeof config, "/tmp/tessera-journal-XXXXXX");
    int fd = mkstemp(config);
    static const char text[] = "memory_limit.session = 64M\n";
    bool ok = fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
    if (fd >= 0)
        close(fd);
    return ok;
}

/* A session that allocates 1 MiB on opencl:0, then asks twice for more
 * than memory_limit.session allows, runs a kernel and ends. Returns its
 * session id, 0 when there is no accelerator. */
static uint32_t run_session(void)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return 0;
    uint32_t id = tsr_client_session_id(c);
    int32_t n = 0;
    tsr_device_type accel;
    if (tsr_accelerator_type(c, &accel) != TSR_OK || tsr_device_count(c, accel, &n) != TSR_OK ||
        n == 0) {
        tsr_client_close(c);
        return 0;
    }
    tsr_tensor_options o = {.has_device = true, .device = {accel, 0}};
    int64_t small = MiB / 4, big = 512 * MiB / 4;
    tsr_tensor *t = NULL, *r = NULL, *refused = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, &small, &o, &t));
    ASSERT_EQ(tsr_tensor_empty(c, 1, &big, &o, &refused), TSR_ERR_OUT_OF_MEMORY);
    ASSERT_EQ(tsr_tensor_empty(c, 1, &big, &o, &refused), TSR_ERR_OUT_OF_MEMORY);
    ASSERT_OK(tsr_maximum(t, t, &r));
    ASSERT_OK(tsr_synchronize(c, o.device));
    tsr_tensor_release(r);
    tsr_tensor_release(t);
    tsr_client_close(c);
    return id;
}

/* Waits for the daemon's line about the session's end. */
static bool wait_ended(const test_daemon *d, uint32_t id)
{
    char want[64];
    snprintf(want, sizeof want, "session %u: pid %d ended", id, (int)getpid());
    for (int k = 0; k < 500; k++) {
        if (test_daemon_log_count(d, want) > 0)
            return true;
        usleep(10000);
    }
    return false;
}

static void check_text(void)
{
    test_daemon d;
    if (test_daemon_start(&d, args) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    uint32_t id = run_session();
    if (id) {
        ASSERT_TRUE(wait_ended(&d, id));
        char want[256];
        /* One refusal line for the two refusals. */
        snprintf(want, sizeof want,
                 "session %u: pid %d: an allocation of %lld bytes on opencl:0 "
                 "refused (",
                 id, (int)getpid(), 512 * MiB);
        ASSERT_EQ(test_daemon_log_count(&d, want), 1);
        ASSERT_EQ(test_daemon_log_count(&d, "further refusals of this session for "
                                            "memory_limit.session are not logged"),
                  1);
        /* The record: 1 MiB held at most (its 2 MiB segment), one kernel. */
        snprintf(want, sizeof want, "requests, 1 kernels, busy ");
        ASSERT_EQ(test_daemon_log_count(&d, want), 1);
        ASSERT_EQ(test_daemon_log_count(&d, "peak reserved 2097152 bytes on opencl:0"), 1);
        /* tessera devices marks the limit as one, and shows root the
         * device's own memory beside it. */
        static char out[4096];
        const char *query[] = {
            "devices", "-q",          "device,memory_bytes,memory_limited,device_memory_bytes",
            "--csv",   "--no-header", "--no-units",
            NULL};
        ASSERT_EQ(test_run_cli(out, sizeof out, query), 0);
        const char prefix[] = "opencl:0,67108864,true,";
        ASSERT_TRUE(strncmp(out, prefix, sizeof prefix - 1) == 0);
        ASSERT_TRUE(strtoull(out + sizeof prefix - 1, NULL, 10) > 64 * MiB);
        const char *table[] = {"devices", "-q", "device,memory_bytes", NULL};
        ASSERT_EQ(test_run_cli(out, sizeof out, table), 0);
        ASSERT_TRUE(strstr(out, " 64.0 MiB*\n") != NULL);
        ASSERT_TRUE(strstr(out, "\n* your memory limit on the device (memory_limit.* of "
                                "tesserad's configuration): the device has ") != NULL);
    }
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

/* The entries journalctl shows of the directory, as JSON lines. */
static char *journal_json(void)
{
    FILE *p = popen(JOURNALCTL " -D /run/log/journal --no-pager -o json SYSLOG_IDENTIFIER=tesserad"
                               " 2>/dev/null",
                    "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 20, used = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + used, 1, cap - used - 1, p)) > 0)
        used += got;
    pclose(p);
    if (text)
        text[used] = '\0';
    return text;
}

/* Whether one line of the JSON holds every needle. */
static bool entry_with(const char *json, const char *const *needles)
{
    for (const char *line = json; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        bool all = true;
        for (int k = 0; needles[k] && all; k++) {
            const char *at = memmem(line, len, needles[k], strlen(needles[k]));
            all = at != NULL;
        }
        if (all)
            return true;
        line = eol ? eol + 1 : NULL;
    }
    return false;
}

static int journal_child(void)
{
    /* A /run of its own for a journald of its own. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0) {
        fprintf(stderr, "skipped: cannot mount a private /run: %s\n", strerror(errno));
        return 77;
    }
    mkdir("/run/systemd", 0755);
    mkdir("/run/log", 0755);
    mkdir("/run/log/journal", 0755);
    pid_t journald = fork();
    if (journald == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execl(JOURNALD, JOURNALD, (char *)NULL);
        _exit(127);
    }
    struct stat st;
    for (int k = 0; k < 500 && stat("/run/systemd/journal/socket", &st) != 0; k++)
        usleep(10000);
    if (stat("/run/systemd/journal/socket", &st) != 0) {
        fprintf(stderr, "skipped: systemd-journald did not start\n");
        kill(journald, SIGKILL);
        return 77;
    }
    setenv("TESSERA_TEST_JOURNAL", "1", 1);
    test_daemon d;
    if (test_daemon_start(&d, args) != 0)
        return 1;
    uint32_t id = run_session();
    /* The events go to the journal, not to stderr. */
    test_daemon_terminate(&d);
    ASSERT_EQ(test_daemon_log_count(&d, "listening on"), 0);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    char session[32], pid[32];
    snprintf(session, sizeof session, "\"SESSION\":\"%u\"", id);
    snprintf(pid, sizeof pid, "\"PID\":\"%d\"", (int)getpid());
    const char *started[] = {"\"MESSAGE_ID\":\"8ad9d5d4c8414474ab8c03893578dde2\"",
                             "\"PRIORITY\":\"5\"", "listening on", NULL};
    const char *stopping[] = {"\"MESSAGE_ID\":\"525cd71a888949739ed892a265f98245\"",
                              "Terminated: stopping", NULL};
    const char *opened[] = {"\"MESSAGE_ID\":\"61272d3acd5a47eb8374b438bfddae00\"", session,
                            "\"UID\":\"0\"", pid, NULL};
    const char *ended[] = {"\"MESSAGE_ID\":\"c968ba3984f94135a9ababa15d9cc578\"",
                           session,
                           pid,
                           "\"PRIORITY\":\"6\"",
                           "1 kernels, busy ",
                           NULL};
    const char *refused[] = {"\"MESSAGE_ID\":\"2990663b1dc54c48974872118d44934c\"", session,
                             "\"DEVICE\":\"opencl:0\"", "\"PRIORITY\":\"4\"", NULL};
    char *json = NULL;
    /* journald stores what it received in its own time. */
    for (int k = 0; k < 100; k++) {
        free(json);
        json = journal_json();
        if (json && entry_with(json, stopping))
            break;
        usleep(50000);
    }
    ASSERT_TRUE(json != NULL);
    if (json) {
        ASSERT_TRUE(entry_with(json, started));
        ASSERT_TRUE(entry_with(json, stopping));
        if (id) {
            ASSERT_TRUE(entry_with(json, opened));
            ASSERT_TRUE(entry_with(json, ended));
            ASSERT_TRUE(entry_with(json, refused));
        }
        if (test__failed)
            fprintf(stderr, "---- the journal ----\n%s", json);
    }
    free(json);
    kill(journald, SIGTERM);
    waitpid(journald, NULL, 0);
    return test__failed ? 1 : 0;
}

static int check_journal(void)
{
    if (getuid() != 0 || access(JOURNALD, X_OK) != 0) {
        fprintf(stderr, "skipped: the journal part needs root and %s\n", JOURNALD);
        return 77;
    }
    pid_t child = fork();
    if (child == 0) {
        if (unshare(CLONE_NEWNS) != 0) {
            fprintf(stderr, "skipped: no mount namespace: %s\n", strerror(errno));
            _exit(77);
        }
        _exit(journal_child());
    }
    int status = -1;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
    if (!write_config()) {
        perror("the configuration file");
        return 1;
    }
    check_text();
    int journal = check_journal();
    unlink(config);
    if (journal == 1)
        ASSERT_TRUE(false);
    if (test__failed)
        return 1;
    if (journal == 77)
        return 77; /* the text part passed; say the journal part did not run */
    TEST_DONE();
}
