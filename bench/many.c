/* tessera-bench: many client processes at once (see ipc.h).
 *
 * The children block on a pipe until every one of them is set up; the
 * parent then closes the pipe (all of them wake), sleeps for the duration
 * and raises a stop flag in shared memory, which each child reads after
 * every request. Each child writes its count into its own cache line. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/ipc.h"

#define SETUP_TIMEOUT_NS 60000000000ull

typedef struct many_slot {
    _Alignas(64) uint64_t ops;
    uint32_t ok;
} many_slot;

typedef struct many_shared {
    _Alignas(64) _Atomic uint32_t stop;
    _Alignas(64) _Atomic uint32_t ready;
    _Atomic uint32_t failed;
    many_slot slots[];
} many_shared;

static uint64_t children_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
        return 0;
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

static void child(int index, int start_fd, many_shared *sh, const many_body *body)
{
    void *state = body->setup(index, body->arg);
    if (!state) {
        atomic_fetch_add(&sh->failed, 1u);
        _exit(1);
    }
    atomic_fetch_add(&sh->ready, 1u);
    char byte;
    while (read(start_fd, &byte, 1) < 0 && errno == EINTR)
        ;
    uint64_t ops = 0;
    bool ok = true;
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        if (!body->op(state)) {
            ok = false;
            break;
        }
        ops++;
    }
    sh->slots[index].ops = ops;
    sh->slots[index].ok = ok;
    body->teardown(state);
    _exit(ok ? 0 : 1);
}

int many_run(int clients, uint64_t duration_ns, const many_body *body, int server_pid,
             many_result *out)
{
    int *pids = calloc((size_t)clients, sizeof *pids);
    int start[2];
    if (!pids || pipe(start) < 0) {
        bench_note("ipc", "cannot start client processes: %s", strerror(errno));
        free(pids);
        return -1;
    }
    size_t bytes = sizeof(many_shared) + (size_t)clients * sizeof(many_slot);
    many_shared *sh = bench_shared_alloc(bytes);
    int forked = 0, result = 0;
    uint64_t cpu_before = children_cpu_ns();
    for (; forked < clients; forked++) {
        int pid = bench_fork();
        if (pid < 0) {
            bench_note("ipc", "fork: %s", strerror(errno));
            result = -1;
            break;
        }
        if (pid == 0) {
            close(start[1]);
            child(forked, start[0], sh, body);
        }
        pids[forked] = pid;
    }
    close(start[0]);
    /* Wait until every child is set up (or one failed), then start them. */
    uint64_t deadline = bench_now_ns() + SETUP_TIMEOUT_NS;
    while (result == 0 && atomic_load(&sh->ready) < (uint32_t)clients) {
        if (atomic_load(&sh->failed)) {
            bench_note("ipc", "%u of %d client processes could not start", atomic_load(&sh->failed),
                       clients);
            result = -1;
        } else if (bench_now_ns() > deadline) {
            bench_note("ipc", "client processes did not start within 60 s");
            result = -1;
        } else {
            bench_sleep_ns(1000000);
        }
    }
    if (result != 0)
        atomic_store(&sh->stop, 1u); /* those already waiting stop at once */
    uint64_t server0 = 0, server1 = 0;
    bool server_cpu = server_pid > 0 && bench_process_cpu_ns(server_pid, &server0);
    uint64_t t0 = bench_now_ns();
    close(start[1]);
    if (result == 0)
        bench_sleep_ns(duration_ns);
    atomic_store(&sh->stop, 1u);
    uint64_t t1 = bench_now_ns();
    server_cpu = server_cpu && bench_process_cpu_ns(server_pid, &server1);
    int bad = 0;
    for (int k = 0; k < forked; k++)
        if (bench_wait(pids[k]) != 0)
            bad++;
    free(pids);
    if (result == 0 && bad) {
        bench_note("ipc", "%d of %d client processes failed", bad, clients);
        result = -1;
    }
    if (result == 0) {
        uint64_t total = 0, lo = UINT64_MAX, hi = 0;
        for (int k = 0; k < clients; k++) {
            uint64_t n = sh->slots[k].ops;
            total += n;
            lo = n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        double seconds = (double)(t1 - t0) / 1e9;
        *out = (many_result){.ops_per_s = (double)total / seconds,
                             .min_ops = lo,
                             .max_ops = hi,
                             .seconds = seconds,
                             .clients_cpu_ns = children_cpu_ns() - cpu_before,
                             .server_cpu_ns = server_cpu ? server1 - server0 : 0};
    }
    bench_shared_free(sh, bytes);
    return result;
}
