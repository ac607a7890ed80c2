/* Host memory that boxing reuses: the blocks of cpu shards and of the
 * staging buffers the collectives pack into. A program that boxes in a
 * loop frees a result and asks for one of the same size right after;
 * fresh memory of that size comes from the kernel unmapped, and every
 * page of it faults (and is zeroed) on first touch, which for tens of
 * MiB costs about as much as copying them. The pool keeps a few freed
 * blocks of at least TSR__POOL_MIN bytes and hands one out again to a
 * request of exactly its size.
 *
 * A cpu shard on a pooled block is a tsr_tensor made through DLPack
 * (tsr_tensor_from_dlpack) whose deleter gives the block back. Tensors
 * may outlive the environment and be released on any thread, so the pool
 * counts its users (the environment and every block out) under a lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mpi/global_internal.h"
#include "tessera/dlpack.h"

#define KEEP 4                      /* blocks kept for reuse */
#define HUGE_PAGE ((size_t)2 << 20) /* alignment of large blocks */

struct tsr__pool {
    pthread_mutex_t lock;
    int users;
    bool closed; /* the environment has gone: keep nothing more */
    int nkept;
    struct {
        void *block;
        size_t bytes;
    } kept[KEEP];
};

tsr__pool *tsr__pool_new(void)
{
    tsr__pool *p = calloc(1, sizeof(*p));
    if (p && pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (p)
        p->users = 1;
    return p;
}

/* Drops one user under the lock; the last one frees the pool. */
static void unlock_and_drop(tsr__pool *p)
{
    bool last = --p->users == 0;
    pthread_mutex_unlock(&p->lock);
    if (!last)
        return;
    for (int k = 0; k < p->nkept; k++)
        free(p->kept[k].block);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void tsr__pool_close(tsr__pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->closed = true;
    unlock_and_drop(p);
}

void *tsr__pool_get(tsr__pool *p, size_t bytes)
{
    if (bytes >= TSR__POOL_MIN) {
        pthread_mutex_lock(&p->lock);
        for (int k = 0; k < p->nkept; k++)
            if (p->kept[k].bytes == bytes) {
                void *block = p->kept[k].block;
                p->kept[k] = p->kept[--p->nkept];
                p->users++;
                pthread_mutex_unlock(&p->lock);
                return block;
            }
        p->users++;
        pthread_mutex_unlock(&p->lock);
    }
    /* Large blocks on huge pages where the kernel gives them (advice only). */
    size_t align = bytes >= 2 * HUGE_PAGE ? HUGE_PAGE : 64;
    size_t rounded = (bytes + align - 1) / align * align;
    void *block = aligned_alloc(align, rounded ? rounded : align);
    if (block && align == HUGE_PAGE)
        (void)madvise(block, rounded, MADV_HUGEPAGE);
    if (!block && bytes >= TSR__POOL_MIN) {
        pthread_mutex_lock(&p->lock);
        unlock_and_drop(p);
    }
    return block;
}

void tsr__pool_put(tsr__pool *p, void *block, size_t bytes)
{
    if (!block)
        return;
    if (bytes < TSR__POOL_MIN) {
        free(block);
        return;
    }
    pthread_mutex_lock(&p->lock);
    if (!p->closed && p->nkept < KEEP) {
        p->kept[p->nkept].block = block;
        p->kept[p->nkept].bytes = bytes;
        p->nkept++;
        block = NULL;
    }
    unlock_and_drop(p);
    free(block);
}

/* A pooled block lent to a tensor: DLPack's record, and where it goes back. */
typedef struct lease {
    DLManagedTensor managed;
    tsr__pool *pool;
    size_t bytes;
    int64_t shape[TSR_MAX_DIMS];
} lease;

static void lease_end(DLManagedTensor *m)
{
    lease *l = m->manager_ctx;
    tsr__pool_put(l->pool, m->dl_tensor.data, l->bytes);
    free(l);
}

/* DLPack's code for dtype, read off an empty cpu tensor's export (the
 * table is libtessera's); false for dtypes DLPack has no code for. */
static bool dl_dtype(tsr_dtype dtype, DLDataType *out)
{
    tsr_tensor_options opt = {.has_dtype = true, .dtype = dtype};
    int64_t zero = 0;
    tsr_tensor *t = NULL;
    DLManagedTensor *m = NULL;
    bool ok = tsr_tensor_empty(NULL, 1, &zero, &opt, &t) == TSR_OK &&
              tsr_tensor_to_dlpack(t, 0, &m) == TSR_OK;
    if (ok) {
        *out = m->dl_tensor.dtype;
        m->deleter(m);
    }
    tsr_tensor_release(t);
    return ok;
}

tsr_status tsr__pool_tensor(tsr__pool *p, tsr_dtype dtype, int ndim, const int64_t *sizes,
                            tsr_tensor **out)
{
    size_t bytes = (size_t)tsr__numel(ndim, sizes) * tsr_dtype_itemsize(dtype);
    DLDataType code;
    tsr_tensor_options opt = {.has_dtype = true, .dtype = dtype};
    if (bytes < TSR__POOL_MIN || !dl_dtype(dtype, &code))
        return tsr_tensor_empty(NULL, ndim, sizes, &opt, out);
    lease *l = calloc(1, sizeof(*l));
    void *block = l ? tsr__pool_get(p, bytes) : NULL;
    if (!block) {
        free(l);
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "global tensor: out of memory for %zu bytes",
                                bytes);
    }
    l->pool = p;
    l->bytes = bytes;
    memcpy(l->shape, sizes, (size_t)ndim * sizeof(int64_t));
    l->managed.dl_tensor = (DLTensor){
        .data = block, .device = {kDLCPU, 0}, .ndim = ndim, .dtype = code, .shape = l->shape};
    l->managed.manager_ctx = l;
    l->managed.deleter = lease_end;
    tsr_status st = tsr_tensor_from_dlpack(NULL, &l->managed, out);
    if (st)
        lease_end(&l->managed);
    return st;
}
