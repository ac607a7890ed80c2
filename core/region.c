/* See region.h. */
#include "core/region.h"

#include "core/error.h"

tsr_status tsr__region_check(const tsr__region *r, uint64_t block_bytes, uint64_t *span_bytes)
{
    uint32_t s = r->itemsize;
    if (s != 1 && s != 2 && s != 4 && s != 8 && s != 16)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid item size %u", (unsigned)s);
    if (r->ndim < 0 || r->ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid number of dimensions %d", (int)r->ndim);
    if (r->offset < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "negative storage offset %lld",
                         (long long)r->offset);
    /* The last element is at offset + sum((size_k - 1) * stride_k). */
    uint64_t last = (uint64_t)r->offset;
    for (int k = 0; k < r->ndim; k++) {
        if (r->sizes[k] < 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "negative size %lld in dimension %d",
                             (long long)r->sizes[k], k);
        if (r->strides[k] < 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "negative stride %lld in dimension %d",
                             (long long)r->strides[k], k);
        if (r->sizes[k] == 0) {
            if (span_bytes)
                *span_bytes = 0;
            return TSR_OK;
        }
    }
    for (int k = 0; k < r->ndim; k++) {
        uint64_t step;
        if (__builtin_mul_overflow((uint64_t)(r->sizes[k] - 1), (uint64_t)r->strides[k], &step) ||
            __builtin_add_overflow(last, step, &last))
            return tsr__fail(TSR_ERR_OVERFLOW, "region overflows: the strides reach past 2^64 elements");
    }
    uint64_t end;
    if (__builtin_add_overflow(last, 1u, &end) || __builtin_mul_overflow(end, (uint64_t)s, &end))
        return tsr__fail(TSR_ERR_OVERFLOW, "region overflows: past 2^64 bytes");
    if (end > block_bytes)
        return tsr__fail(TSR_ERR_INDEX,
                         "region out of bounds: it reaches byte %llu of a %llu-byte allocation",
                         (unsigned long long)end, (unsigned long long)block_bytes);
    if (span_bytes)
        *span_bytes = end;
    return TSR_OK;
}

tsr_status tsr__region_distinct(tsr__region *r, uint64_t block_bytes)
{
    int64_t size[TSR_MAX_DIMS], stride[TSR_MAX_DIMS];
    int n = 0;
    for (int k = 0; k < r->ndim; k++) {
        if (r->sizes[k] == 0)
            return TSR_OK; /* empty: nothing is written */
        if (r->sizes[k] == 1 || r->strides[k] == 0)
            continue;
        int at = n++; /* insertion by stride, smallest first */
        for (; at > 0 && stride[at - 1] > r->strides[k]; at--) {
            size[at] = size[at - 1];
            stride[at] = stride[at - 1];
        }
        size[at] = r->sizes[k];
        stride[at] = r->strides[k];
    }
    /* The checked region ends inside the block, so no sum of its steps
     * overflows. `extent` is one past the farthest element so far. */
    int m = 0;
    int64_t extent = 1;
    for (int k = 0; k < n; k++) {
        int64_t reach = (size[k] - 1) * stride[k];
        if (m == 1 && stride[k] < extent && stride[k] % stride[0] == 0) {
            /* Steps of a multiple of the progression's stride, no longer
             * than it: the copies overlap or abut, their union is one
             * longer progression. */
            size[0] += (size[k] - 1) * (stride[k] / stride[0]);
        } else {
            size[m] = size[k];
            stride[m] = stride[k];
            m++;
        }
        extent += reach;
    }
    uint64_t count = 1;
    for (int k = 0; k < m; k++)
        if (__builtin_mul_overflow(count, (uint64_t)size[k], &count))
            count = UINT64_MAX;
    uint64_t room = block_bytes / r->itemsize;
    if (count > room)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "region overlaps itself: %llu elements in an allocation of %llu",
                         (unsigned long long)count, (unsigned long long)room);
    r->ndim = m;
    for (int k = 0; k < m; k++) {
        r->sizes[k] = size[m - 1 - k];
        r->strides[k] = stride[m - 1 - k];
    }
    for (int k = m; k < TSR_MAX_DIMS; k++)
        r->sizes[k] = r->strides[k] = 0;
    return TSR_OK;
}
