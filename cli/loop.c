/* --loop: a command's rounds, every so many seconds, until interrupted.
 *
 * Like `nvidia-smi -l`, a loop outlives the daemon: a round that cannot
 * reach it prints the error on stderr, and the next round connects again.
 * SIGINT and SIGTERM end the loop between rounds, with exit status 0; the
 * handler only raises a flag, and the wait between rounds runs with the
 * signals unblocked in ppoll alone, so that one arriving at any time ends
 * the wait at once and none is lost. Calls into the library restart after
 * the handler (SA_RESTART); a second signal, for a round that hangs, ends
 * the command the default way. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "cli/daemon.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    if (stop) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop = 1;
}

static void catch_stop_signals(sigset_t *set)
{
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits until `until` (CLOCK_MONOTONIC seconds) or a stop signal. */
static void wait_until(double until, const sigset_t *signals)
{
    sigset_t old;
    sigprocmask(SIG_BLOCK, signals, &old);
    for (double left; !stop && (left = until - now_s()) > 0;) {
        struct timespec ts = {.tv_sec = (time_t)left,
                              .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
        if (ppoll(NULL, 0, &ts, &old) < 0 && errno != EINTR)
            break;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int cli_rounds(const cli_args *args, cli_round_fn round, void *state)
{
    tsr_client *c = NULL;
    int rc = cli_connect(args, &c);
    if (!cli_given(args, CLI_OPT_LOOP)) {
        if (rc < 0)
            rc = round(c, args, state);
        tsr_client_close(c);
        return rc >= 0 ? rc : EXIT_OK;
    }
    sigset_t signals;
    catch_stop_signals(&signals);
    bool failed = false;
    double next = now_s();
    for (unsigned long k = 0; !stop && (args->count == 0 || k < args->count); k++) {
        if (k > 0) {
            /* Rounds start loop_seconds apart, or right after one that
             * took longer. */
            next += args->loop_seconds;
            if (next < now_s())
                next = now_s();
            wait_until(next, &signals);
            if (stop)
                break;
            if (!c)
                rc = cli_connect(args, &c);
        }
        if (rc < 0)
            rc = round(c, args, state);
        fflush(stdout);
        if (rc >= 0) {
            failed = true;
            tsr_client_close(c);
            c = NULL;
        }
        rc = -1;
    }
    tsr_client_close(c);
    return stop || !failed ? EXIT_OK : EXIT_FAILED;
}
