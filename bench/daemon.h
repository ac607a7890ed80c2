/* tessera-bench: a private tesserad on a temporary directory.
 *
 * bench_daemon_start runs tesserad --foreground --socket DIR/tesserad.sock
 * (its log in DIR/tesserad.log, shown if it fails to start) and returns once
 * a client can connect; the daemon is $TESSERA_DAEMON, else the tesserad
 * beside this program (../daemon/ in a build tree, ../sbin/ installed), else
 * tesserad in PATH. bench_daemon_stop ends it and removes the directory. */
#ifndef TESSERA_BENCH_DAEMON_H
#define TESSERA_BENCH_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bench_daemon {
    int pid;
    char dir[256];
    char socket[300];
    char log[300];
} bench_daemon;

/* Returns 0, or -1 after printing why (as "tessera-bench: SUITE: ..."). */
int bench_daemon_start(bench_daemon *d, const char *suite);
/* The same with one more command-line option for tesserad (NULL: none). */
int bench_daemon_start_with(bench_daemon *d, const char *suite, const char *option);
void bench_daemon_stop(bench_daemon *d);

/* Waits up to timeout_ns for the daemon's log to report that opencl:0's
 * generic programs are built (the kernel executor asks for them at the
 * first launch): how many and in how many seconds. True when every one
 * was built; false when some failed or by the deadline. */
bool bench_daemon_wait_generic(const bench_daemon *d, uint64_t timeout_ns, int *programs,
                               double *seconds);

#endif /* TESSERA_BENCH_DAEMON_H */
