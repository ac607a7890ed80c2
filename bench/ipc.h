/* tessera-bench, ipc suite: the bare baselines and the many-clients
 * harness that ipc.c sets beside Tessera's own numbers. */
#ifndef TESSERA_BENCH_IPC_H
#define TESSERA_BENCH_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

/* Bytes in an empty request or reply: the wire header Tessera sends for a
 * PING, so the bare socket baselines move the same amount. */
#define IPC_FRAME_BYTES 24

/* ---- Bare baselines (ipc_bare.c) ------------------------------------- */

/* Round trips with a fork'd child, which runs on peer_cpu (-1: where the
 * scheduler puts it): `warmup` untimed, then `n` timed, each added to `out`
 * in nanoseconds. Return 0, or -1 after printing why. */
int bare_spin_shm(int peer_cpu, size_t warmup, size_t n, bench_samples *out);
int bare_seqpacket(int peer_cpu, size_t warmup, size_t n, bench_samples *out);
/* malloc(bytes) + free, timed in batches of per_batch (one call pair is
 * shorter than a clock read): adds `batches` per-pair averages to `out`. */
void bare_malloc_free(size_t bytes, size_t batches, size_t per_batch, bench_samples *out);

/* ---- Many client processes (many.c) ----------------------------------- */

/* What each client process does. setup runs in the child before the
 * start (NULL: failed); op is one request (false: failed); teardown ends
 * the child's state. */
typedef struct many_body {
    void *(*setup)(int index, void *arg);
    bool (*op)(void *state);
    void (*teardown)(void *state);
    void *arg;
} many_body;

typedef struct many_result {
    double ops_per_s;          /* all clients together */
    uint64_t min_ops, max_ops; /* the slowest and fastest client */
    double seconds;            /* between start and stop */
    uint64_t clients_cpu_ns;   /* CPU time the client processes used */
    uint64_t server_cpu_ns;    /* ... and the server meanwhile; 0: unknown */
} many_result;

/* Forks `clients` processes, waits until all are set up, lets them run op
 * as fast as they can for duration_ns and counts; server_pid (or -1) is
 * the process serving them, whose CPU time is measured meanwhile. Returns
 * 0, or -1 after printing why. */
int many_run(int clients, uint64_t duration_ns, const many_body *body, int server_pid,
             many_result *out);

/* The bare counterpart of many Tessera clients: one single-threaded epoll
 * echo server process and `clients` processes ping-ponging IPC_FRAME_BYTES
 * with it over SOCK_SEQPACKET socketpairs. */
int bare_epoll_clients(int clients, uint64_t duration_ns, many_result *out);

#endif /* TESSERA_BENCH_IPC_H */
