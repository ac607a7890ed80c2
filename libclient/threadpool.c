/* The thread pool (see threadpool.h). A job is a range cut into chunks;
 * the caller and the workers take chunks from an atomic counter until none
 * is left, and the caller waits until the last chunk has finished and no
 * worker still holds the job. Workers sleep on a condition variable keyed
 * by a job generation number. */
#include "libclient/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 16

typedef struct job {
    tsr__range_fn fn;
    void *ctx;
    int64_t n, chunk, nchunks;
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
        if (j)
            pool.active++;
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
        n = sysconf(_SC_NPROCESSORS_ONLN);
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
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int threads = n > grain ? tsr__threadpool_size() : 1;
    if (threads == 1 || atomic_flag_test_and_set(&pool.busy)) {
        fn(ctx, 0, n);
        return;
    }
    /* A few chunks per thread evens out uneven speeds. */
    int64_t chunk = (n + 4 * threads - 1) / (4 * threads);
    chunk = chunk < grain ? grain : chunk;
    job j = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk, .nchunks = (n + chunk - 1) / chunk};
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
