/* Integration-test support: a real tesserad on a private socket directory.
 *
 * test_daemon_start spawns $TESSERA_TEST_DAEMON --foreground --socket
 * DIR/tesserad.sock (plus extra arguments), its log in DIR/tesserad.log,
 * and returns once a client can connect. TESSERA_SOCKET is set to the
 * socket, so child processes and the tessera command find it. */
#ifndef TESSERA_TESTS_SUPPORT_DAEMON_H
#define TESSERA_TESTS_SUPPORT_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

#include "tessera/tessera.h"

typedef struct test_daemon {
    pid_t pid;
    char dir[256];
    char socket[320];
    char log[320];
} test_daemon;

/* extra: NULL-terminated arguments, or NULL. Returns 0 on success. */
int test_daemon_start(test_daemon *d, const char *const *extra);
/* SIGTERM, wait; returns the exit status (-1 when it did not exit by
 * itself within 10 s, 128+N when killed by signal N). Removes the
 * directory. */
int test_daemon_stop(test_daemon *d);
/* SIGTERM and wait, as test_daemon_stop does, but the directory and the
 * log stay (test_daemon_stop then returns the exit status and cleans up). */
void test_daemon_terminate(test_daemon *d);
/* SIGKILL and reap (the directory stays for test_daemon_stop's cleanup). */
void test_daemon_kill(test_daemon *d);
/* Whether a SOCK_SEQPACKET connection to path succeeds now. */
bool test_can_connect(const char *path);
/* A blocking SOCK_SEQPACKET connection to path (the caller closes it), or
 * -1. */
int test_raw_connect(const char *path);
/* Says HELLO on a raw connection as libtessera does (request id 1) and
 * reads the reply: 1 when the session opened (the ring and doorbell
 * descriptors that came with it are closed), 0 when it was refused (the
 * error's text into message, up to n-1 bytes), -1 when the connection
 * failed. */
int test_raw_hello(int fd, char *message, size_t n);
/* The same, keeping the ring's memfd (the first descriptor) in *ring when
 * the session opened (-1 when none came); the caller closes it. */
int test_raw_hello_ring(int fd, char *message, size_t n, int *ring);
/* One request (opcode, request_id, payload of len bytes) on a raw
 * connection and its reply: TSR_OK with the reply's payload in reply (up
 * to cap bytes) and the descriptors that came with it in fds (up to
 * nfds, the rest closed; -1 where none came), or the error reply's status
 * with its text in message (n bytes; its descriptors closed), or
 * TSR_ERR_CONNECTION with message empty when the connection failed. */
tsr_status test_raw_call(int fd, uint32_t opcode, uint64_t request_id, const void *payload,
                         uint32_t len, void *reply, size_t cap, int *fds, int nfds, char *message,
                         size_t n);
/* Whether the daemon process is still running. */
bool test_daemon_alive(test_daemon *d);
/* Prints the daemon's log to stderr (for failures). */
void test_daemon_dump_log(const test_daemon *d);
/* The lines of the daemon's log that hold `needle` (0 without a log). */
int test_daemon_log_count(const test_daemon *d, const char *needle);

/* Waits up to timeout_ms for `needle` to appear in the log `count` times
 * (checking every 10 ms); whether it did. */
bool test_daemon_log_wait(const test_daemon *d, const char *needle, int count, int timeout_ms);

/* utime + stime of process pid's main thread, in seconds (a daemon's:
 * its loop, not the threads that may build its programs meanwhile); -1
 * when it cannot be read. */
double test_loop_cpu_s(pid_t pid);

/* Runs `$TESSERA_TEST_CLI args...` and captures its stdout (up to n-1
 * bytes, NUL-terminated). Returns its exit status. */
int test_run_cli(char *out, size_t n, const char *const *args);

#endif /* TESSERA_TESTS_SUPPORT_DAEMON_H */
