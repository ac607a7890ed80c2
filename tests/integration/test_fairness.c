/* Sessions shared between users, against a real daemon:
 *
 *   - sessions.max_per_uid: a user's sessions beyond it are refused, and
 *     the client is told so through tsr_last_error;
 *   - sessions.max_handshakes_per_uid: so are connections beyond it that
 *     wait to say HELLO;
 *   - sessions.max: with every session taken by other users, uid 0 still
 *     opens one and `tessera ps` works;
 *   - a flood of refused connections is logged under a rate limit.
 *
 * The users are processes that this test, as root, forks and gives uids
 * of their own; without root it is skipped. */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "support_daemon.h"
#include "test.h"

#define BURST 10 /* log.h's TSR__LOG_BURST */

static test_daemon tsrd;

/* What a user process reports: how many sessions it opened, and how the
 * one after them ended. */
typedef struct report {
    int opened;
    int status;
    char message[512];
} report;

typedef struct user {
    pid_t pid;
    int release; /* closing it lets the process exit */
    report r;
} user;

static bool become(uid_t uid)
{
    return setgroups(0, NULL) == 0 && setgid(uid) == 0 && setuid(uid) == 0;
}

/* Starts a process of `uid` that opens `sessions` sessions through the
 * library and `silent` connections that never say HELLO, then tries one
 * more session, reports, and holds all of them until released. */
static bool user_start(user *u, uid_t uid, int sessions, int silent)
{
    int up[2], down[2];
    if (pipe(up) < 0 || pipe(down) < 0)
        return false;
    u->pid = fork();
    if (u->pid == 0) {
        /* Other users' release pipes too, or they would never see EOF. */
        for (int fd = 3; fd < 1024; fd++)
            if (fd != up[1] && fd != down[0])
                close(fd);
        report r = {.status = -1};
        if (become(uid)) {
            for (int k = 0; k < sessions; k++) {
                tsr_client *c = NULL;
                if (tsr_client_open(NULL, &c) == TSR_OK)
                    r.opened++;
            }
            for (int k = 0; k < silent; k++)
                if (test_raw_connect(tsrd.socket) >= 0)
                    r.opened++;
            tsr_client *extra = NULL;
            r.status = tsr_client_open(NULL, &extra);
            snprintf(r.message, sizeof r.message, "%s", tsr_last_error());
        }
        ssize_t ignored = write(up[1], &r, sizeof r);
        (void)ignored;
        char byte;
        ignored = read(down[0], &byte, 1);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    u->release = down[1];
    bool ok = read(up[0], &u->r, sizeof u->r) == (ssize_t)sizeof u->r;
    close(up[0]);
    if (!ok)
        fprintf(stderr, "user %u reported nothing\n", (unsigned)uid);
    return ok;
}

static void user_stop(user *u)
{
    close(u->release);
    int status;
    waitpid(u->pid, &status, 0);
}

static void expect_refused(const user *u, const char *why)
{
    ASSERT_EQ(u->r.status, TSR_ERR_LIMIT);
    if (!strstr(u->r.message, why))
        fprintf(stderr, "refused with \"%s\", expected \"%s\"\n", u->r.message, why);
    ASSERT_TRUE(strstr(u->r.message, why) != NULL);
}

static void check_caps(void)
{
    user a, b, c;
    /* A user at sessions.max_per_uid. */
    ASSERT_TRUE(user_start(&a, 65534, 4, 0));
    ASSERT_EQ(a.r.opened, 4);
    expect_refused(&a, "too many sessions for uid 65534: 4 open (sessions.max_per_uid = 4)");
    /* A user with connections that say nothing. */
    ASSERT_TRUE(user_start(&b, 65533, 0, 2));
    ASSERT_EQ(b.r.opened, 2);
    expect_refused(&b, "too many connections of uid 65533 waiting for their handshake: 2 "
                       "(sessions.max_handshakes_per_uid = 2)");
    /* The last two sessions of sessions.max go to a third user. */
    ASSERT_TRUE(user_start(&c, 65532, 2, 0));
    ASSERT_EQ(c.r.opened, 2);
    expect_refused(&c, "tesserad has 8 sessions open, its most (sessions.max = 8)");

    /* root still gets in, and sees every session. */
    tsr_client *root = NULL;
    ASSERT_OK(tsr_client_open(NULL, &root));
    static char out[65536];
    const char *ps[] = {"ps", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    tsr_client_close(root);
    /* Refused at the door for its handshakes (b), at HELLO for the
     * session caps (a, c). */
    ASSERT_EQ(test_daemon_log_count(&tsrd, "refused a connection of pid"), 1);
    ASSERT_EQ(test_daemon_log_count(&tsrd, "refused a session of pid"), 2);

    /* A flood of refused connections: each is told why, a few are logged. */
    user_stop(&b);
    user_stop(&c);
    user d;
    ASSERT_TRUE(user_start(&d, 65531, 4, 0));
    ASSERT_EQ(d.r.opened, 4);
    expect_refused(&d, "(sessions.max = 8)");
    int flood = 0;
    for (int k = 0; k < 100; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            int fd = -1;
            char message[256] = "";
            _exit(become(65531) && (fd = test_raw_connect(tsrd.socket)) >= 0 &&
                          test_raw_hello(fd, message, sizeof message) == 0 &&
                          strstr(message, "(sessions.max = 8)")
                      ? 0
                      : 1);
        }
        int status;
        waitpid(pid, &status, 0);
        flood += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    ASSERT_EQ(flood, 100);
    int lines = test_daemon_log_count(&tsrd, "refused a session of pid");
    if (lines > 2 * BURST)
        test_daemon_dump_log(&tsrd);
    ASSERT_TRUE(lines <= 2 * BURST);
    user_stop(&a);
    user_stop(&d);
}

int main(void)
{
    if (getuid() != 0) {
        fprintf(stderr, "skipped: the users of this test are made with setuid (run as root)\n");
        return 77;
    }
    static const char *const extra[] = {"--socket-mode",
                                        "0666",
                                        "--max-sessions",
                                        "8",
                                        "--set",
                                        "sessions.max_per_uid=4",
                                        "--set",
                                        "sessions.max_handshakes_per_uid=2",
                                        NULL};
    if (test_daemon_start(&tsrd, extra) != 0)
        return 1;
    chmod(tsrd.dir, 0755); /* the other users reach the socket */
    pid_t probe = fork();
    if (probe == 0)
        _exit(become(65534) && test_can_connect(tsrd.socket) ? 0 : 1);
    int status;
    waitpid(probe, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "skipped: another user cannot reach %s (a private TMPDIR?)\n", tsrd.socket);
        test_daemon_stop(&tsrd);
        return 77;
    }
    check_caps();
    ASSERT_TRUE(test_daemon_alive(&tsrd));
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
    TEST_DONE();
}
