/* Internal: strided regions of an allocation, as requests name them.
 *
 * A region is (itemsize, ndim, sizes, strides, offset) over one block of
 * device memory: element i0..in-1 lives at byte
 * (offset + sum(i_k * stride_k)) * itemsize from the block's start. The
 * daemon checks every region a client sends before touching memory:
 * tsr__region_check proves, with overflow-safe arithmetic, that every
 * element of the region lies inside the block. */
#ifndef TESSERA_CORE_REGION_H
#define TESSERA_CORE_REGION_H

#include <stdint.h>

#include "tessera/layout.h"
#include "tessera/status.h"

typedef struct tsr__region {
    uint32_t itemsize; /* 1, 2, 4, 8 or 16 */
    int32_t ndim;      /* 0 .. TSR_MAX_DIMS */
    int64_t offset;    /* elements */
    int64_t sizes[TSR_MAX_DIMS];
    int64_t strides[TSR_MAX_DIMS]; /* elements, >= 0 */
} tsr__region;

/* Checks a region against a block of block_bytes bytes. On success
 * *span_bytes (may be NULL) is one past the last byte it touches (0 for an
 * empty region). Errors: TSR_ERR_INVALID_ARGUMENT for a bad itemsize, ndim,
 * negative size, stride or offset; TSR_ERR_OVERFLOW when the arithmetic
 * overflows; TSR_ERR_INDEX when an element falls outside the block. */
tsr_status tsr__region_check(const tsr__region *region, uint64_t block_bytes, uint64_t *span_bytes);

/* Rewrites a region that passed tsr__region_check against the same block
 * into one naming the same set of elements, each as few times as it can:
 * dimensions of size 1 or stride 0 go, the others are ordered by stride
 * (largest first), and a dimension whose steps land inside the one below
 * it merges with it where the two make one arithmetic progression. What a
 * fill writes is then bounded by the block, whatever the request's element
 * count (2^62 repeats of one element are one element). A region that
 * still names more elements than the block holds must repeat some:
 * TSR_ERR_INVALID_ARGUMENT, and the region is left as it was. */
tsr_status tsr__region_distinct(tsr__region *region, uint64_t block_bytes);

#endif /* TESSERA_CORE_REGION_H */
