/* Internal to libtessera-mpi: its error helper and the box copies that
 * every redistribution is made of. Nothing here knows MPI. */
#ifndef TESSERA_MPI_INTERNAL_H
#define TESSERA_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/global.h"

#if defined(__GNUC__)
#define TSR__GLOBAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TSR__GLOBAL_PRINTF(a, b)
#endif

/* Formats the message into libtessera's per-thread slot (tsr_error_set)
 * and returns status, so a failure site is one statement. */
tsr_status tsr__global_fail(tsr_status status, const char *fmt, ...) TSR__GLOBAL_PRINTF(2, 3);

/* Copies the box of `box` sizes that starts at src_off in a contiguous
 * row-major array of src_sizes to dst_off in one of dst_sizes (ndim dims,
 * elements of itemsize bytes). The box must lie inside both (asserted).
 * A 0-dim array is one element. */
void tsr__box_copy(int ndim, const int64_t *box, size_t itemsize, void *dst,
                   const int64_t *dst_sizes, const int64_t *dst_off, const void *src,
                   const int64_t *src_sizes, const int64_t *src_off);

/* Product of sizes (1 for ndim 0). The callers' sizes come from tensors
 * that exist, so it cannot overflow. */
int64_t tsr__numel(int ndim, const int64_t *sizes);

/* "[2, 3]" into buf (TSR__DIMS_TEXT_MAX bytes, cut to fit); returns buf. */
#define TSR__DIMS_TEXT_MAX 256
const char *tsr__dims_text(char *buf, const int64_t *dims, int ndim);

#endif /* TESSERA_MPI_INTERNAL_H */
