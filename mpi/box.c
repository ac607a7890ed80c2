/* Box copies between contiguous row-major arrays: packing a shard's slice
 * for a peer, unpacking what a peer sent, cutting a slice out of a whole
 * tensor. The innermost dimensions that both arrays and the box cover
 * completely are merged into one memcpy run. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi/internal.h"

tsr_status tsr__global_fail(tsr_status status, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return tsr_error_set(status, text);
}

int64_t tsr__numel(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    return n;
}

const char *tsr__dims_text(char *buf, const int64_t *dims, int ndim)
{
    size_t len = 0, n = TSR__DIMS_TEXT_MAX;
    buf[0] = 0;
    len += (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < ndim && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld", d ? ", " : "", (long long)dims[d]);
    if (len < n)
        snprintf(buf + len, n - len, "]");
    return buf;
}

void tsr__box_copy(int ndim, const int64_t *box, size_t itemsize, void *dst,
                   const int64_t *dst_sizes, const int64_t *dst_off, const void *src,
                   const int64_t *src_sizes, const int64_t *src_off)
{
    if (tsr__numel(ndim, box) == 0)
        return;
    /* The run: the last dim of the box, times every inner dim that all
     * three cover whole. */
    int outer = ndim; /* dims [outer, ndim) form one run */
    size_t run = itemsize;
    while (outer > 0) {
        int d = outer - 1;
        run *= (size_t)box[d];
        outer = d;
        if (box[d] != dst_sizes[d] || box[d] != src_sizes[d])
            break;
    }
    int64_t dst_stride[TSR_MAX_DIMS], src_stride[TSR_MAX_DIMS];
    int64_t ds = (int64_t)itemsize, ss = (int64_t)itemsize;
    for (int d = ndim - 1; d >= 0; d--) {
        assert(dst_off[d] + box[d] <= dst_sizes[d] && src_off[d] + box[d] <= src_sizes[d]);
        dst_stride[d] = ds;
        src_stride[d] = ss;
        ds *= dst_sizes[d];
        ss *= src_sizes[d];
    }
    int64_t base_dst = 0, base_src = 0;
    for (int d = 0; d < ndim; d++) {
        base_dst += dst_off[d] * dst_stride[d];
        base_src += src_off[d] * src_stride[d];
    }
    int64_t idx[TSR_MAX_DIMS] = {0};
    for (;;) {
        int64_t o_dst = base_dst, o_src = base_src;
        for (int d = 0; d < outer; d++) {
            o_dst += idx[d] * dst_stride[d];
            o_src += idx[d] * src_stride[d];
        }
        memcpy((char *)dst + o_dst, (const char *)src + o_src, run);
        int d = outer - 1;
        while (d >= 0 && ++idx[d] == box[d])
            idx[d--] = 0;
        if (d < 0)
            return;
    }
}
