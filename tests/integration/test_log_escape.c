/* The daemon's log quotes what clients send, and a client chooses its own
 * process name (prctl(PR_SET_NAME)), which the daemon logs when the
 * session opens. A client named with escape sequences, a line break that
 * tries to forge a line of its own, DEL and bytes that are not UTF-8 must
 * leave the log with no raw control byte but the line ends: every one
 * written as \xNN (daemon/log.c). */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

/* 14 bytes: /proc/PID/comm keeps 15. */
#define HOSTILE "\x1b[31m\n<0>x\x7f\xff\xc2\x9b"
#define HOSTILE_ESCAPED "(\\x1b[31m\\x0a<0>x\\x7f\\xff\\xc2\\x9b) connected"

/* The child: renames itself, opens a session and closes it. */
static int hostile_client(void)
{
    if (prctl(PR_SET_NAME, HOSTILE, 0, 0, 0) != 0)
        return 13;
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        return 14;
    tsr_client_close(c);
    return 0;
}

static void check_log(const test_daemon *d)
{
    FILE *f = fopen(d->log, "rb");
    ASSERT_TRUE(f != NULL);
    if (!f)
        return;
    static unsigned char log[1 << 20];
    size_t n = fread(log, 1, sizeof log, f);
    fclose(f);
    for (size_t k = 0; k < n; k++) {
        unsigned char b = log[k];
        if ((b < 0x20 && b != '\n') || b == 0x7f || b == 0xff) {
            fprintf(stderr, "raw byte 0x%02x at offset %zu of the log\n", b, k);
            test_daemon_dump_log(d);
            ASSERT_TRUE(false);
            return;
        }
    }
    /* The line break did not start a line of the client's. */
    log[n < sizeof log ? n : sizeof log - 1] = '\0';
    ASSERT_TRUE(strstr((const char *)log, "\n<0>x") == NULL);
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    pid_t kid = fork();
    if (kid == 0)
        _exit(hostile_client());
    int status = -1;
    ASSERT_EQ(waitpid(kid, &status, 0), kid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int waited = 0; waited < 5000 && test_daemon_log_count(&d, " ended (") == 0;
         waited += 20) {
        struct timespec ts = {.tv_nsec = 20000000L};
        nanosleep(&ts, NULL);
    }
    test_daemon_terminate(&d);
    check_log(&d);
    if (test_daemon_log_count(&d, HOSTILE_ESCAPED) != 1)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_log_count(&d, HOSTILE_ESCAPED), 1);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
