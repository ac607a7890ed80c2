/* The thread pool (see threadpool.h). A job is a range cut into chunks;
 * the caller and the workers take chunks from an atomic counter until none
 * is left, and the caller waits until the last chunk has finished and no
 * worker still holds the job. Workers sleep on a condition variable keyed
 * by a job generation number. */
#include "kernels/threadpool.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup.h"

#define MAX_THREADS 16

typedef struct job {
    tsr__range_fn fn;
    void *ctx;
    int64_t n, chunk, nchunks;
    int helpers; /* workers that may take part */
    atomic_llong next;
    atomic_llong done;
} job;

static struct {
    pthread_once_t once;
    int size; /* threads, the caller included */
    pthread_mutex_t lock;
    pthread_cond_t wake, finished;
    unsigned long generation;
    job *current;
    int active; /* workers inside the current job */
    atomic_flag busy;
} pool = {.once = PTHREAD_ONCE_INIT,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .finished = PTHREAD_COND_INITIALIZER,
          .busy = ATOMIC_FLAG_INIT};

/* Takes chunks until none is left; the thread finishing the last one
 * wakes the caller. */
static void work(job *j)
{
    for (;;) {
        int64_t c = atomic_fetch_add(&j->next, 1);
        if (c >= j->nchunks)
            return;
        int64_t begin = c * j->chunk, end = begin + j->chunk < j->n ? begin + j->chunk : j->n;
        j->fn(j->ctx, begin, end);
        if (atomic_fetch_add(&j->done, 1) + 1 == j->nchunks) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_broadcast(&pool.finished);
            pthread_mutex_unlock(&pool.lock);
        }
    }
}

static void *worker(void *arg)
{
    (void)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool.lock);
        while (pool.generation == seen)
            pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        job *j = pool.current;
        if (j && pool.active < j->helpers)
            pool.active++;
        else
            j = NULL;
        pthread_mutex_unlock(&pool.lock);
        if (!j)
            continue;
        work(j);
        pthread_mutex_lock(&pool.lock);
        if (--pool.active == 0)
            pthread_cond_broadcast(&pool.finished);
        pthread_mutex_unlock(&pool.lock);
    }
    return NULL;
}

/* Up to size - 1 bytes of a small file (a proc or cgroup file) into buf,
 * NUL-terminated; -1 when it cannot be read. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    ssize_t n = 0, r;
    while ((size_t)n + 1 < size && (r = read(fd, buf + n, size - 1 - (size_t)n)) > 0)
        n += r;
    close(fd);
    buf[n] = '\0';
    return n;
}

/* The smallest CPU limit of hierarchy `v` (mounted at `root`) from the
 * process's cgroup `self` up to the root: a parent's quota bounds its
 * children. 0 for none. A level whose files are missing or malformed
 * says nothing (a container may show part of the tree). */
static uint32_t cgroup_limit(tsr__cgroup_version v, const char *root, char *self)
{
    uint32_t limit = 0;
    for (;;) {
        char path[4096 + 64], a[64], b[64];
        const char *rel = strcmp(self, "/") == 0 ? "" : self;
        uint32_t cpus = 0;
        if (v == TSR__CGROUP_V2) {
            snprintf(path, sizeof path, "%s%s/cpu.max", root, rel);
            ssize_t n = read_small(path, a, sizeof a);
            if (n < 0 || tsr__cgroup_cpu_max(a, (size_t)n, &cpus) != TSR_OK)
                cpus = 0;
        } else {
            snprintf(path, sizeof path, "%s%s/cpu.cfs_quota_us", root, rel);
            ssize_t nq = read_small(path, a, sizeof a);
            snprintf(path, sizeof path, "%s%s/cpu.cfs_period_us", root, rel);
            ssize_t np = nq < 0 ? -1 : read_small(path, b, sizeof b);
            if (np < 0 || tsr__cgroup_cfs(a, (size_t)nq, b, (size_t)np, &cpus) != TSR_OK)
                cpus = 0;
        }
        if (cpus > 0 && (limit == 0 || cpus < limit))
            limit = cpus;
        char *slash = strrchr(self, '/');
        if (!slash || slash == self) {
            if (self[1] == '\0')
                return limit;
            self[1] = '\0'; /* the root last */
        } else {
            *slash = '\0';
        }
    }
}

/* The CPUs this process may run on: its affinity mask (taskset, a
 * cpuset), bounded by its cgroup's CPU bandwidth (systemd's CPUQuota=, a
 * container's --cpus=), in whichever cgroup version the machine runs. */
static long usable_cpus(void)
{
    long n = 0;
    for (int bits = 1024; bits <= 65536 && n == 0; bits *= 4) {
        cpu_set_t *set = CPU_ALLOC(bits);
        if (!set)
            break;
        size_t size = CPU_ALLOC_SIZE(bits);
        if (sched_getaffinity(0, size, set) == 0)
            n = CPU_COUNT_S(size, set);
        CPU_FREE(set);
    }
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    char text[4096], self[4096];
    ssize_t len = read_small("/proc/self/cgroup", text, sizeof text);
    uint32_t limit = 0;
    if (len > 0 && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 &&
        tsr__cgroup_path(text, (size_t)len, TSR__CGROUP_V2, self, sizeof self) == TSR_OK)
        limit = cgroup_limit(TSR__CGROUP_V2, "/sys/fs/cgroup", self);
    static const char *const v1_roots[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
    for (size_t k = 0; k < 2 && limit == 0 && len > 0; k++) {
        if (access(v1_roots[k], F_OK) == 0 &&
            tsr__cgroup_path(text, (size_t)len, TSR__CGROUP_V1, self, sizeof self) == TSR_OK)
            limit = cgroup_limit(TSR__CGROUP_V1, v1_roots[k], self);
    }
    if (limit > 0 && (long)limit < n)
        n = (long)limit;
    return n;
}

/* TESSERA_NUM_THREADS when it is a positive number, else the usable
 * CPUs; at most MAX_THREADS. */
static int configured_threads(void)
{
    const char *env = getenv("TESSERA_NUM_THREADS");
    long n = 0;
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end != '\0')
            n = 0;
    }
    if (n <= 0)
        n = usable_cpus();
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void start(void)
{
    pool.size = configured_threads();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int started = 1;
    for (int i = 1; i < pool.size; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) == 0)
            started++;
    }
    pthread_attr_destroy(&attr);
    pool.size = started;
}

int tsr__threadpool_size(void)
{
    pthread_once(&pool.once, start);
    return pool.size;
}

void tsr__parallel_for(int64_t n, int64_t grain, tsr__range_fn fn, void *ctx)
{
    tsr__parallel_for_on(0, n, grain, fn, ctx);
}

void tsr__parallel_for_on(int limit, int64_t n, int64_t grain, tsr__range_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int threads = n > grain ? tsr__threadpool_size() : 1;
    if (limit > 0 && limit < threads)
        threads = limit;
    if (threads == 1 || atomic_flag_test_and_set(&pool.busy)) {
        fn(ctx, 0, n);
        return;
    }
    /* A few chunks per thread evens out uneven speeds. */
    int64_t chunk = (n + 4 * threads - 1) / (4 * threads);
    chunk = chunk < grain ? grain : chunk;
    job j = {.fn = fn,
             .ctx = ctx,
             .n = n,
             .chunk = chunk,
             .nchunks = (n + chunk - 1) / chunk,
             .helpers = threads - 1};
    atomic_init(&j.next, 0);
    atomic_init(&j.done, 0);
    pthread_mutex_lock(&pool.lock);
    pool.current = &j;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    work(&j);
    /* j lives on this stack: wait for every chunk and for every worker
     * that picked the job up to have let go of it. */
    pthread_mutex_lock(&pool.lock);
    pool.current = NULL;
    while (atomic_load(&j.done) < j.nchunks || pool.active > 0)
        pthread_cond_wait(&pool.finished, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    atomic_flag_clear(&pool.busy);
}
