/* Internal: the host's small thread pool, one per process: libtessera's
 * cpu device, and the daemon's host runs on a device that is this
 * machine's CPU (kernels/cpu_exec.h).
 *
 * Workers are started on first use (TESSERA_NUM_THREADS of them in all,
 * counting the caller; default the CPUs the process may use, as
 * tsr_get_num_threads says, at most 16) and sleep
 * between jobs. One job runs at a time; a caller that finds the pool busy
 * (another thread's job, or a job calling back into the pool) runs its
 * job alone, so nothing ever waits on itself. */
#ifndef TESSERA_KERNELS_THREADPOOL_H
#define TESSERA_KERNELS_THREADPOOL_H

#include <stdint.h>

/* fn(ctx, begin, end) over disjoint ranges covering [0, n), each at least
 * `grain` long (but the last); returns when all have run. */
typedef void (*tsr__range_fn)(void *ctx, int64_t begin, int64_t end);
void tsr__parallel_for(int64_t n, int64_t grain, tsr__range_fn fn, void *ctx);

/* The same on at most `threads` threads, the caller included (0: all of
 * the pool's). */
void tsr__parallel_for_on(int threads, int64_t n, int64_t grain, tsr__range_fn fn, void *ctx);

/* Threads a job can use (the caller included). */
int tsr__threadpool_size(void);

#endif /* TESSERA_KERNELS_THREADPOOL_H */
