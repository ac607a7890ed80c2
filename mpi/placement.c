/* Placements, SBP values and the shard geometry: the pure half of global
 * tensors. A placement owns a copy of its rank grid; it never changes after
 * creation, so it is shared by pointer and copied only when a tensor keeps
 * one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/internal.h"

struct tsr_placement {
    tsr_device_type type;
    int ndim;
    int64_t hierarchy[TSR_PLACEMENT_MAX_DIMS];
    int64_t size;
    int32_t ranks[]; /* size entries, row-major */
};

tsr_status tsr_placement_create(tsr_device_type type, int ndim, const int64_t *hierarchy,
                                const int32_t *ranks, tsr_placement **out)
{
    if (!out || !hierarchy || !ranks)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "placement: NULL argument");
    if (!tsr_device_type_is_parseable(type) || type == TSR_DEVICE_META)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "placement: invalid device type %d (meta and metal hold no data)",
                                (int)type);
    if (ndim < 1 || ndim > TSR_PLACEMENT_MAX_DIMS)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "placement: ranks must have 1 or %d dimensions, got %d",
                                TSR_PLACEMENT_MAX_DIMS, ndim);
    int64_t size = 1;
    for (int d = 0; d < ndim; d++) {
        if (hierarchy[d] < 1 || hierarchy[d] > INT32_MAX ||
            __builtin_mul_overflow(size, hierarchy[d], &size) || size > INT32_MAX)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                    "placement: dimension %d of the rank grid has size %lld "
                                    "(expected 1 to %d ranks in all)",
                                    d, (long long)hierarchy[d], INT32_MAX);
    }
    for (int64_t k = 0; k < size; k++) {
        if (ranks[k] < 0)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "placement: rank %d is negative",
                                    (int)ranks[k]);
        for (int64_t j = 0; j < k; j++)
            if (ranks[j] == ranks[k])
                return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                        "placement: rank %d appears more than once", (int)ranks[k]);
    }
    tsr_placement *p = malloc(sizeof(*p) + (size_t)size * sizeof(int32_t));
    if (!p)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "placement: out of memory");
    p->type = type;
    p->ndim = ndim;
    memcpy(p->hierarchy, hierarchy, (size_t)ndim * sizeof(int64_t));
    p->size = size;
    memcpy(p->ranks, ranks, (size_t)size * sizeof(int32_t));
    *out = p;
    return TSR_OK;
}

tsr_status tsr_placement_create_range(tsr_device_type type, int32_t nranks, tsr_placement **out)
{
    if (nranks < 1)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "placement: a placement needs at least one rank, got %d",
                                (int)nranks);
    int32_t *ranks = malloc((size_t)nranks * sizeof(int32_t));
    if (!ranks)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "placement: out of memory");
    for (int32_t r = 0; r < nranks; r++)
        ranks[r] = r;
    int64_t h = nranks;
    tsr_status st = tsr_placement_create(type, 1, &h, ranks, out);
    free(ranks);
    return st;
}

void tsr_placement_destroy(tsr_placement *placement)
{
    free(placement);
}

tsr_status tsr_placement_copy(const tsr_placement *placement, tsr_placement **out)
{
    size_t bytes = sizeof(*placement) + (size_t)placement->size * sizeof(int32_t);
    tsr_placement *p = malloc(bytes);
    if (!p)
        return tsr__global_fail(TSR_ERR_OUT_OF_MEMORY, "placement: out of memory");
    memcpy(p, placement, bytes);
    *out = p;
    return TSR_OK;
}

tsr_device_type tsr_placement_type(const tsr_placement *placement)
{
    return placement->type;
}

int tsr_placement_ndim(const tsr_placement *placement)
{
    return placement->ndim;
}

const int64_t *tsr_placement_hierarchy(const tsr_placement *placement)
{
    return placement->hierarchy;
}

int64_t tsr_placement_size(const tsr_placement *placement)
{
    return placement->size;
}

int32_t tsr_placement_rank(const tsr_placement *placement, int64_t k)
{
    return k >= 0 && k < placement->size ? placement->ranks[k] : -1;
}

int64_t tsr_placement_index_of(const tsr_placement *placement, int32_t rank)
{
    for (int64_t k = 0; k < placement->size; k++)
        if (placement->ranks[k] == rank)
            return k;
    return -1;
}

bool tsr_placement_equal(const tsr_placement *a, const tsr_placement *b)
{
    if (a->type != b->type || a->ndim != b->ndim || a->size != b->size)
        return false;
    return !memcmp(a->hierarchy, b->hierarchy, (size_t)a->ndim * sizeof(int64_t)) &&
           !memcmp(a->ranks, b->ranks, (size_t)a->size * sizeof(int32_t));
}

/* snprintf at buf + *len, within n bytes, counting what does not fit
 * (snprintf rules for the whole text). */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...) TSR__GLOBAL_PRINTF(4, 5);
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    char none[1];
    va_list ap;
    va_start(ap, fmt);
    int w = *len < n ? vsnprintf(buf + *len, n - *len, fmt, ap) : vsnprintf(none, 0, fmt, ap);
    va_end(ap);
    *len += w > 0 ? (size_t)w : 0;
}

#define APPEND(...) append(buf, n, &len, __VA_ARGS__)

size_t tsr_placement_repr(const tsr_placement *placement, char *buf, size_t n)
{
    size_t len = 0;
    APPEND("oneflow.placement(type=\"%s\", ranks=", tsr_device_type_name(placement->type));
    int64_t row = placement->ndim == 2 ? placement->hierarchy[1] : placement->size;
    if (placement->ndim == 2)
        APPEND("[");
    for (int64_t k = 0; k < placement->size; k++) {
        if (k % row == 0)
            APPEND("%s[", k ? ", " : "");
        APPEND("%s%d", k % row ? ", " : "", (int)placement->ranks[k]);
        if (k % row == row - 1)
            APPEND("]");
    }
    if (placement->ndim == 2)
        APPEND("]");
    APPEND(")");
    return len;
}

bool tsr_sbp_equal(tsr_sbp a, tsr_sbp b)
{
    return a.kind == b.kind && (a.kind != TSR_SBP_SPLIT || a.dim == b.dim);
}

size_t tsr_sbp_repr(tsr_sbp sbp, char *buf, size_t n)
{
    size_t len = 0;
    switch (sbp.kind) {
    case TSR_SBP_SPLIT:
        APPEND("oneflow.sbp.split(dim=%d)", (int)sbp.dim);
        break;
    case TSR_SBP_BROADCAST:
        APPEND("oneflow.sbp.broadcast");
        break;
    case TSR_SBP_PARTIAL_SUM:
        APPEND("oneflow.sbp.partial_sum");
        break;
    default:
        APPEND("oneflow.sbp.sbp(invalid=%d)", (int)sbp.kind);
    }
    return len;
}

size_t tsr_sbp_tuple_repr(const tsr_sbp *sbp, int count, char *buf, size_t n)
{
    size_t len = 0;
    APPEND("(");
    for (int k = 0; k < count; k++) {
        if (k)
            APPEND(", ");
        len += len < n ? tsr_sbp_repr(sbp[k], buf + len, n - len) : tsr_sbp_repr(sbp[k], NULL, 0);
    }
    APPEND(count == 1 ? ",)" : ")");
    return len;
}

tsr_status tsr_sbp_check(const tsr_placement *placement, const tsr_sbp *sbp, int ndim)
{
    if (!placement || !sbp)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "sbp: NULL argument");
    for (int k = 0; k < placement->ndim; k++) {
        if (sbp[k].kind != TSR_SBP_SPLIT && sbp[k].kind != TSR_SBP_BROADCAST &&
            sbp[k].kind != TSR_SBP_PARTIAL_SUM)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT, "sbp[%d]: unknown kind %d", k,
                                    (int)sbp[k].kind);
        if (sbp[k].kind == TSR_SBP_SPLIT && (sbp[k].dim < 0 || sbp[k].dim >= ndim))
            return tsr__global_fail(TSR_ERR_INDEX,
                                    "sbp[%d]: split dim %d is out of range for a tensor of %d "
                                    "dimensions (expected 0 to %d)",
                                    k, (int)sbp[k].dim, ndim, ndim - 1);
    }
    return TSR_OK;
}

tsr_status tsr_global_shard_geometry(int ndim, const int64_t *shape, const tsr_placement *placement,
                                     const tsr_sbp *sbp, int64_t index, int64_t *sizes,
                                     int64_t *offsets)
{
    if (ndim < 0 || ndim > TSR_MAX_DIMS)
        return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                "shard geometry: %d dimensions (at most %d)", ndim, TSR_MAX_DIMS);
    tsr_status st = tsr_sbp_check(placement, sbp, ndim);
    if (st)
        return st;
    if (index < 0 || index >= placement->size)
        return tsr__global_fail(TSR_ERR_INDEX,
                                "shard geometry: index %lld is outside a placement of %lld ranks",
                                (long long)index, (long long)placement->size);
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return tsr__global_fail(TSR_ERR_INVALID_ARGUMENT,
                                    "shard geometry: negative size %lld in dim %d",
                                    (long long)shape[d], d);
        sz[d] = shape[d];
        off[d] = 0;
    }
    /* The grid coordinate of `index`, row-major; each split dimension of
     * the grid cuts the range the earlier ones left. */
    int64_t coord[TSR_PLACEMENT_MAX_DIMS], rest = index;
    for (int a = placement->ndim - 1; a >= 0; a--) {
        coord[a] = rest % placement->hierarchy[a];
        rest /= placement->hierarchy[a];
    }
    for (int a = 0; a < placement->ndim; a++) {
        if (sbp[a].kind != TSR_SBP_SPLIT)
            continue;
        int d = sbp[a].dim;
        int64_t parts = placement->hierarchy[a], c = coord[a];
        int64_t base = sz[d] / parts, extra = sz[d] % parts;
        off[d] += c * base + (c < extra ? c : extra);
        sz[d] = base + (c < extra ? 1 : 0);
    }
    memcpy(sizes, sz, (size_t)ndim * sizeof(int64_t));
    memcpy(offsets, off, (size_t)ndim * sizeof(int64_t));
    return TSR_OK;
}
