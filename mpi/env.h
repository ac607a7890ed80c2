/* Internal to libtessera-mpi: the environment's state and the MPI helpers
 * the redistributions share. */
#ifndef TESSERA_MPI_ENV_H
#define TESSERA_MPI_ENV_H

#include <mpi.h>
#include <stdio.h>

#include "mpi/internal.h"

struct tsr_global_env {
    MPI_Comm world; /* a duplicate of MPI_COMM_WORLD, errors return */
    int rank, size, local_rank;
    bool finalize; /* we initialised MPI */
    tsr_client *client;
    bool has_device_index;
    int32_t device_index;
};

/* TSR_ERR_RUNTIME "<what> failed: <MPI's text for code>". */
tsr_status tsr__mpi_fail(int code, const char *what);
/* The MPI type partial sums of dtype are reduced in, or
 * TSR_ERR_NOT_SUPPORTED naming the dtypes that have one. */
tsr_status tsr__sum_type(tsr_dtype dtype, MPI_Datatype *out);
/* Whether tsr__sum_type has a type for dtype (sets no error). */
bool tsr__summable(tsr_dtype dtype);

#endif /* TESSERA_MPI_ENV_H */
