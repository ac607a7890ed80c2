/* Internal to libtessera-mpi: the environment's state and the MPI helpers
 * the redistributions share. */
#ifndef TESSERA_MPI_ENV_H
#define TESSERA_MPI_ENV_H

#include <mpi.h>
#include <stdio.h>

#include "mpi/internal.h"

/* Host memory boxing reuses (mpi/pool.c). */
typedef struct tsr__pool tsr__pool;
/* The smallest block the pool keeps: below it, fresh memory is cheap. */
#define TSR__POOL_MIN ((size_t)1 << 20)
/* A pool with one user (the environment); NULL when out of memory. */
tsr__pool *tsr__pool_new(void);
/* The environment lets go: the pool keeps nothing more and goes with its
 * last block. NULL ok. */
void tsr__pool_close(tsr__pool *pool);
/* A block of `bytes` (one that was given back at that size, else a new
 * one); NULL when out of memory. Give it back with tsr__pool_put. */
void *tsr__pool_get(tsr__pool *pool, size_t bytes);
void tsr__pool_put(tsr__pool *pool, void *block, size_t bytes); /* NULL block ok */
/* A new cpu tensor (contiguous, not zeroed) on a pooled block, which
 * goes back when the tensor's storage is released; small tensors and
 * dtypes DLPack cannot describe get ordinary memory. */
tsr_status tsr__pool_tensor(tsr__pool *pool, tsr_dtype dtype, int ndim, const int64_t *sizes,
                            tsr_tensor **out);

/* How many rank lists keep their communicator (tsr__list_comm). */
#define TSR__COMM_CACHE 8

struct tsr_global_env {
    MPI_Comm world; /* a duplicate of MPI_COMM_WORLD, errors return */
    int rank, size, local_rank;
    bool finalize; /* we initialised MPI */
    tsr_client *client;
    bool has_device_index;
    int32_t device_index;
    double timeout_s;   /* rendezvous: 0 for no limit */
    bool broken;        /* a rendezvous timed out */
    char broken_at[48]; /* the call where it did */
    /* The communicators of the rank lists boxing has used, in the order
     * of first use: every rank makes the same calls in the same order,
     * so every rank's cache holds the same lists (MPI_COMM_NULL where
     * this rank is not on the list). */
    struct {
        tsr_placement *placement;
        MPI_Comm comm;
    } comms[TSR__COMM_CACHE];
    int ncomms;
    tsr__pool *pool;
};

/* TSR_ERR_RUNTIME "<what> failed: <MPI's text for code>". */
tsr_status tsr__mpi_fail(int code, const char *what);
/* The MPI type partial sums of dtype are reduced in, or
 * TSR_ERR_NOT_SUPPORTED naming the dtypes that have one. */
tsr_status tsr__sum_type(tsr_dtype dtype, MPI_Datatype *out);
/* The communicator of a 1-D placement's ranks, in its order (collective
 * over the world on first use; MPI_COMM_NULL on ranks outside it). Kept
 * by the environment: the caller must not free it. */
tsr_status tsr__list_comm(tsr_global_env *env, const tsr_placement *placement, MPI_Comm *out);
/* Meets the other ranks before a collective call `what` ("to_global"):
 * TSR_OK once all of them have, else TSR_ERR_RUNTIME after the timeout or
 * when an earlier one timed out. */
tsr_status tsr__rendezvous(tsr_global_env *env, const char *what);
/* Every rank of comm's st, agreed before a collective that a rank whose
 * own work failed would not enter (collective over comm): st where it
 * failed here, else TSR_ERR_RUNTIME "<what>: another rank failed ..."
 * where it failed elsewhere, else TSR_OK. Without it the ranks that had
 * succeeded would wait in the collective for ever. It waits at most the
 * environment's timeout, as the rendezvous does (a stuck rank), and fails
 * at once in a broken world. */
tsr_status tsr__agree(tsr_global_env *env, MPI_Comm comm, tsr_status st, const char *what);
/* Whether tsr__sum_type has a type for dtype (sets no error). */
bool tsr__summable(tsr_dtype dtype);

#endif /* TESSERA_MPI_ENV_H */
