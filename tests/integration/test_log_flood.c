/* The daemon's log under a flood, against a real daemon:
 *
 *   - connections that never say HELLO are logged under a rate limit, the
 *     lines dropped counted in one line;
 *   - a client that goes away before its reply is logged as such, not as
 *     one that does not read its replies. */
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "support_daemon.h"
#include "test.h"

#define BURST 10 /* log.h's TSR__LOG_BURST */

static test_daemon tsrd;

/* A client that sends a request and closes its end before the reply. */
static void check_vanished_client(void)
{
    int fd = test_raw_connect(tsrd.socket);
    ASSERT_TRUE(fd >= 0);
    ASSERT_EQ(test_raw_hello(fd, NULL, 0), 1);
    tsr__wire_header h = {.magic = TSR__WIRE_MAGIC,
                          .version = TSR__WIRE_VERSION,
                          .opcode = TSR__OP_PING,
                          .request_id = 2};
    /* Shut for reading first, so that the daemon cannot have replied
     * before the client was gone, whatever the order of events. */
    ASSERT_EQ(shutdown(fd, SHUT_RD), 0);
    ASSERT_TRUE(send(fd, &h, sizeof h, MSG_NOSIGNAL) == (ssize_t)sizeof h);
    close(fd);
    for (int waited = 0; waited < 5000; waited += 20) {
        if (test_daemon_log_count(&tsrd, "ended (the client closed the connection before its "
                                         "reply)") > 0)
            break;
        struct timespec ts = {.tv_nsec = 20000000L};
        nanosleep(&ts, NULL);
    }
    ASSERT_EQ(test_daemon_log_count(&tsrd, "the client closed the connection before its reply"),
              1);
    ASSERT_EQ(test_daemon_log_count(&tsrd, "the client does not read its replies"), 0);
}

/* 300 connections that never say HELLO end after 10 s; the log holds a
 * few of them and a count of the rest. */
static void check_silent_flood(void)
{
    test_daemon d;
    const char *const extra[] = {"--set", "sessions.max_handshakes_per_uid=1000", NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    enum { SILENT = 300 };
    static int fds[SILENT];
    int opened = 0;
    for (int k = 0; k < SILENT; k++)
        if ((fds[k] = test_raw_connect(d.socket)) >= 0)
            opened++;
    ASSERT_EQ(opened, SILENT);
    int closed = 0;
    for (int k = 0; k < SILENT; k++) {
        struct pollfd p = {.fd = fds[k], .events = POLLIN};
        closed += fds[k] >= 0 && poll(&p, 1, 15000) == 1;
        close(fds[k]);
    }
    ASSERT_EQ(closed, SILENT);
    test_daemon_terminate(&d);
    int lines = test_daemon_log_count(&d, "no handshake within 10 s");
    if (lines > 2 * BURST + 2)
        test_daemon_dump_log(&d);
    ASSERT_TRUE(lines <= 2 * BURST + 2);
    ASSERT_TRUE(test_daemon_log_count(&d, "similar messages suppressed") >= 1);
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

int main(void)
{
    if (test_daemon_start(&tsrd, NULL) != 0)
        return 1;
    check_vanished_client();
    ASSERT_TRUE(test_daemon_alive(&tsrd));
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
    check_silent_flood();
    TEST_DONE();
}
