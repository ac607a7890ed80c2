/* Many idle sessions against a real daemon: a thousand sessions that say
 * HELLO and nothing more, beside clients that work through their rings.
 *
 *   - the working clients are served, over the ring and the socket, and so
 *     is a client that was idle all along when it posts again;
 *   - the ring poller serves only rings with work: at exit the daemon logs
 *     how many passes it made and how many rings it polled in them, and an
 *     idle session costs no polls (before, every pass polled every ring).
 *
 * No timings: those belong to bench/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define IDLE 1000
#define PINGS 20000

static test_daemon tsrd;

/* Each idle session holds a descriptor here and four in the daemon. */
static bool raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur >= 5 * IDLE + 64;
}

/* "ring poller: P passes polled R rings" from the log of the stopped daemon. */
static bool poller_counts(const test_daemon *d, unsigned long long *passes,
                          unsigned long long *rings)
{
    FILE *f = fopen(d->log, "r");
    char line[512];
    bool found = false;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "ring poller: ");
        if (at && sscanf(at, "ring poller: %llu passes polled %llu rings", passes, rings) == 2)
            found = true;
    }
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    if (!raise_fd_limit()) {
        fprintf(stderr, "skipped: %d sessions need more descriptors than RLIMIT_NOFILE allows\n",
                IDLE);
        return 77;
    }
    if (test_daemon_start(&tsrd, NULL) != 0)
        return 1;
    /* Opened first, idle while the others come and work, then used. */
    tsr_client *sleeper = NULL;
    ASSERT_OK(tsr_client_open(NULL, &sleeper));
    ASSERT_OK(tsr_client_ping(sleeper, TSR_TRANSPORT_RING));

    static int idle[IDLE];
    int opened = 0;
    for (int k = 0; k < IDLE; k++) {
        idle[k] = test_raw_connect(tsrd.socket);
        opened += idle[k] >= 0 && test_raw_hello(idle[k], NULL, 0) == 1;
    }
    ASSERT_EQ(opened, IDLE);

    tsr_client *worker = NULL;
    ASSERT_OK(tsr_client_open(NULL, &worker));
    int ok = 0;
    for (int k = 0; k < PINGS; k++)
        ok += tsr_client_ping(worker, k % 100 == 0 ? TSR_TRANSPORT_SOCKET : TSR_TRANSPORT_RING) ==
              TSR_OK;
    ASSERT_EQ(ok, PINGS);
    ASSERT_OK(tsr_client_ping(sleeper, TSR_TRANSPORT_RING));
    ASSERT_OK(tsr_client_ping(sleeper, TSR_TRANSPORT_SOCKET));
    tsr_client_close(worker);
    tsr_client_close(sleeper);
    for (int k = 0; k < IDLE; k++)
        close(idle[k]);

    test_daemon_terminate(&tsrd);
    unsigned long long passes = 0, rings = 0;
    ASSERT_TRUE(poller_counts(&tsrd, &passes, &rings));
    fprintf(stderr, "ring poller: %llu passes, %llu rings polled\n", passes, rings);
    /* Every ring request takes a pass; a pass polls the working ring and
     * the few that had work just before. Polling the idle sessions would
     * take a thousand per pass. */
    ASSERT_TRUE(passes >= PINGS / 2);
    ASSERT_TRUE(rings <= 4 * passes);
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
    TEST_DONE();
}
