/* Internal to libtessera-mpi: the global tensor record and the shard
 * helpers that tensor.c gives the redistributions in boxing.c. */
#ifndef TESSERA_MPI_GLOBAL_INTERNAL_H
#define TESSERA_MPI_GLOBAL_INTERNAL_H

#include "mpi/env.h"
#include "tessera/ops.h"

struct tsr_global_tensor {
    tsr_global_env *env; /* borrowed: outlives its tensors */
    tsr_dtype dtype;
    int ndim;
    int64_t sizes[TSR_MAX_DIMS];
    tsr_placement *placement; /* owned copy */
    tsr_sbp sbp[TSR_PLACEMENT_MAX_DIMS];
    int64_t index;     /* this rank's position in the placement, -1 outside */
    tsr_tensor *local; /* the shard; an empty 1-D tensor outside */
};

/* A shard's bytes, contiguous and row-major: in place (after a
 * synchronize for accelerators) or a copy that *owned holds (free it). */
tsr_status tsr__shard_read(tsr_global_env *env, tsr_tensor *t, const void **data, void **owned);

/* A new shard and host memory to write it through: the tensor's own, or a
 * staging buffer that tsr__shard_finish copies in. */
typedef struct tsr__shard_out {
    tsr_tensor *tensor;
    void *host;
    bool staged;
} tsr__shard_out;
tsr_status tsr__shard_new(tsr_global_env *env, tsr_device device, tsr_dtype dtype, int ndim,
                          const int64_t *sizes, bool zero, tsr__shard_out *out);
/* Ends a tsr__shard_new: on st == TSR_OK the shard goes to *result, else
 * it is released and st returned. */
tsr_status tsr__shard_finish(tsr__shard_out *out, tsr_status st, tsr_tensor **result);
/* t itself (one more reference) when it is on device, else a copy there. */
tsr_status tsr__shard_to_device(tsr_global_env *env, tsr_tensor *t, tsr_device device,
                                tsr_tensor **out);

/* A record with no shard yet (the placement is copied). */
tsr_status tsr__global_new(tsr_global_env *env, tsr_dtype dtype, int ndim, const int64_t *sizes,
                           const tsr_placement *placement, const tsr_sbp *sbp,
                           tsr_global_tensor **out);
/* The empty shard of a rank outside the placement. */
tsr_status tsr__global_set_empty(tsr_global_tensor *g);
/* The checks every rank answers alike: the sbp against ndim, the ranks
 * against the world, and this rank's device for the placement's type. */
tsr_status tsr__placement_check(const tsr_global_env *env, const tsr_placement *placement,
                                const tsr_sbp *sbp, int ndim, tsr_device *device);

#endif /* TESSERA_MPI_GLOBAL_INTERNAL_H */
