/* Geometry of strided tensors: counts, spans, broadcasting and views.
 *
 * Each view is a pure function from one tsr_geometry to another, with the
 * checks and messages of the ATen function of the same name (1.13 wording
 * where later releases reworded). Inputs are validated first (rank and
 * non-negative sizes); arithmetic on sizes and strides is overflow-checked.
 * Results are built in a local and copied out at the end, so `out` may be
 * the same object as `in` and is untouched on failure. */
#include "tessera/geometry.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define DIMS_TEXT TSR__DIMS_TEXT

static tsr_status check_ndim(int ndim)
{
    if (ndim < 0 || ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "number of dimensions must be in [0, %d], got %d", TSR_MAX_DIMS, ndim);
    return TSR_OK;
}

static tsr_status check_sizes(int ndim, const int64_t *sizes)
{
    tsr_status st = check_ndim(ndim);
    if (st != TSR_OK)
        return st;
    if (ndim > 0 && sizes == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "sizes must not be NULL");
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char text[DIMS_TEXT];
            return tsr__fail(
                TSR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                (long long)sizes[i], tsr__format_dims(text, sizeof(text), sizes, ndim));
        }
    }
    return TSR_OK;
}

static tsr_status check_geometry(const tsr_geometry *g, const void *out)
{
    if (g == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "geometry must not be NULL");
    return check_sizes(g->ndim, g->sizes);
}

tsr_status tsr_numel(int ndim, const int64_t *sizes, int64_t *out)
{
    tsr_status st = check_sizes(ndim, sizes);
    if (st != TSR_OK)
        return st;
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    int64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0) {
            *out = 0; /* a zero anywhere wins over an overflow elsewhere */
            return TSR_OK;
        }
        overflow |= __builtin_mul_overflow(n, sizes[i], &n);
    }
    if (overflow)
        return tsr__fail(TSR_ERR_OVERFLOW, "number of elements overflows int64");
    *out = n;
    return TSR_OK;
}

tsr_status tsr_nbytes(int ndim, const int64_t *sizes, tsr_dtype dtype, int64_t *out)
{
    if (!tsr_dtype_is_valid(dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)dtype);
    int64_t n;
    tsr_status st = tsr_numel(ndim, sizes, &n);
    if (st != TSR_OK)
        return st;
    if (__builtin_mul_overflow(n, (int64_t)tsr_dtype_itemsize(dtype), &n))
        return tsr__fail(TSR_ERR_OVERFLOW, "size in bytes overflows int64");
    *out = n;
    return TSR_OK;
}

tsr_status tsr_geometry_init(int ndim, const int64_t *sizes, tsr_memory_format format,
                             tsr_geometry *out)
{
    tsr_status st = check_sizes(ndim, sizes);
    if (st != TSR_OK)
        return st;
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    tsr_geometry g = {.ndim = ndim};
    st = tsr_strides_for(ndim, sizes, format, g.strides);
    if (st != TSR_OK)
        return st;
    if (ndim > 0)
        memcpy(g.sizes, sizes, sizeof(int64_t) * (size_t)ndim);
    *out = g;
    return TSR_OK;
}

tsr_status tsr_geometry_storage_span(const tsr_geometry *g, int64_t *out)
{
    tsr_status st = check_geometry(g, out);
    if (st != TSR_OK)
        return st;
    if (g->offset < 0)
        return tsr__fail(TSR_ERR_RUNTIME, "Tensor: invalid storage offset %lld",
                         (long long)g->offset);
    int64_t span = 1;
    for (int i = 0; i < g->ndim; i++) {
        if (g->sizes[i] == 0) {
            *out = 0;
            return TSR_OK;
        }
    }
    for (int i = 0; i < g->ndim; i++) {
        int64_t reach;
        if (g->strides[i] < 0)
            return tsr__fail(TSR_ERR_RUNTIME, "negative strides are not supported, got %lld",
                             (long long)g->strides[i]);
        if (__builtin_mul_overflow(g->sizes[i] - 1, g->strides[i], &reach) ||
            __builtin_add_overflow(span, reach, &span))
            return tsr__fail(TSR_ERR_OVERFLOW, "storage extent overflows int64");
    }
    if (__builtin_add_overflow(span, g->offset, &span))
        return tsr__fail(TSR_ERR_OVERFLOW, "storage extent overflows int64");
    *out = span;
    return TSR_OK;
}

tsr_status tsr_broadcast_shapes(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b,
                                int *out_ndim, int64_t *out)
{
    tsr_status st = check_sizes(ndim_a, a);
    if (st == TSR_OK)
        st = check_sizes(ndim_b, b);
    if (st != TSR_OK)
        return st;
    if (out_ndim == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    int ndim = ndim_a > ndim_b ? ndim_a : ndim_b;
    int64_t result[TSR_MAX_DIMS];
    for (int i = ndim - 1; i >= 0; i--) {
        int offset = ndim - 1 - i, da = ndim_a - 1 - offset, db = ndim_b - 1 - offset;
        int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return tsr__fail(
                TSR_ERR_RUNTIME,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                "non-singleton dimension %d",
                (long long)sa, (long long)sb, i);
        result[i] = sa == 1 ? sb : sa;
    }
    *out_ndim = ndim;
    if (ndim > 0)
        memcpy(out, result, sizeof(int64_t) * (size_t)ndim);
    return TSR_OK;
}

/* c10's maybe_wrap_dim over a range of `range` dims (0-dim wraps as 1). */
/* PyTorch's maybe_wrap_dim over any int64 range: narrow wraps its start
 * with it against a size, which need not fit an int. */
static tsr_status wrap64(int64_t dim, int64_t range, int64_t *out)
{
    if (range <= 0)
        range = 1;
    int64_t lo = -range, hi = range - 1;
    if (dim < lo || dim > hi)
        return tsr__fail(TSR_ERR_INDEX,
                         "Dimension out of range (expected to be in range of [%lld, %lld], but got "
                         "%lld)",
                         (long long)lo, (long long)hi, (long long)dim);
    *out = dim < 0 ? dim + range : dim;
    return TSR_OK;
}

/* A dim against a rank (at most TSR_MAX_DIMS, so the result fits). */
static tsr_status wrap(int64_t dim, int64_t range, int *out)
{
    int64_t d = 0;
    tsr_status st = wrap64(dim, range, &d);
    if (st == TSR_OK)
        *out = (int)d;
    return st;
}

tsr_status tsr_wrap_dim(int64_t dim, int ndim, int *out)
{
    tsr_status st = check_ndim(ndim);
    if (st != TSR_OK)
        return st;
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    return wrap(dim, ndim, out);
}

tsr_status tsr_view_transpose(const tsr_geometry *in, int64_t dim0, int64_t dim1, tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    int d0 = 0, d1 = 0;
    if (st == TSR_OK)
        st = wrap(dim0, in->ndim, &d0);
    if (st == TSR_OK)
        st = wrap(dim1, in->ndim, &d1);
    if (st != TSR_OK)
        return st;
    tsr_geometry g = *in;
    if (g.ndim > 0) {
        g.sizes[d0] = in->sizes[d1];
        g.sizes[d1] = in->sizes[d0];
        g.strides[d0] = in->strides[d1];
        g.strides[d1] = in->strides[d0];
    }
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_t(const tsr_geometry *in, tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st != TSR_OK)
        return st;
    if (in->ndim > 2)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "t() expects a tensor with <= 2 dimensions, but self is %dD", in->ndim);
    return tsr_view_transpose(in, 0, in->ndim < 2 ? 0 : 1, out);
}

tsr_status tsr_view_permute(const tsr_geometry *in, const int64_t *dims, int ndims,
                            tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st != TSR_OK)
        return st;
    if (ndims != in->ndim || (ndims > 0 && dims == NULL))
        return tsr__fail(
            TSR_ERR_RUNTIME,
            "permute(sparse_coo): number of dimensions in the tensor input does not "
            "match the length of the desired ordering of dimensions i.e. input.dim() = "
            "%d is not equal to len(dims) = %d",
            in->ndim, ndims);
    tsr_geometry g = *in;
    bool seen[TSR_MAX_DIMS] = {false};
    for (int i = 0; i < ndims; i++) {
        int d = 0;
        st = wrap(dims[i], in->ndim, &d);
        if (st != TSR_OK)
            return st;
        if (seen[d])
            return tsr__fail(TSR_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        g.sizes[i] = in->sizes[d];
        g.strides[i] = in->strides[d];
    }
    *out = g;
    return TSR_OK;
}

/* Moves the offset by `steps` strides of dim d, overflow-checked. */
static tsr_status advance(tsr_geometry *g, int d, int64_t steps)
{
    int64_t delta;
    if (__builtin_mul_overflow(steps, g->strides[d], &delta) ||
        __builtin_add_overflow(g->offset, delta, &g->offset))
        return tsr__fail(TSR_ERR_OVERFLOW, "storage offset overflows int64");
    return TSR_OK;
}

/* The common start of narrow, select and slice: a valid geometry with at
 * least one dimension (else `status` with "<op>() cannot be applied to a
 * 0-dim tensor."), and `dim` wrapped into *d. */
static tsr_status dim_of(const tsr_geometry *in, const tsr_geometry *out, int64_t dim,
                         const char *op, tsr_status status, int *d)
{
    tsr_status st = check_geometry(in, out);
    if (st != TSR_OK)
        return st;
    if (in->ndim == 0)
        return tsr__fail(status, "%s() cannot be applied to a 0-dim tensor.", op);
    return wrap(dim, in->ndim, d);
}

tsr_status tsr_view_narrow(const tsr_geometry *in, int64_t dim, int64_t start, int64_t length,
                           tsr_geometry *out)
{
    int d = 0;
    tsr_status st = dim_of(in, out, dim, "narrow", TSR_ERR_RUNTIME, &d);
    if (st != TSR_OK)
        return st;
    int64_t size = in->sizes[d];
    if (start != size) { /* start == size is a valid empty narrow */
        if ((st = wrap64(start, size, &start)) != TSR_OK)
            return st;
    }
    if (length < 0 || start > size - length)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                         (long long)start, (long long)length, (long long)size);
    tsr_geometry g = *in;
    if ((st = advance(&g, d, start)) != TSR_OK)
        return st;
    g.sizes[d] = length;
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_select(const tsr_geometry *in, int64_t dim, int64_t index, tsr_geometry *out)
{
    int d = 0;
    tsr_status st = dim_of(in, out, dim, "select", TSR_ERR_INDEX, &d);
    if (st != TSR_OK)
        return st;
    int64_t size = in->sizes[d];
    if (index < -size || index >= size) {
        char text[DIMS_TEXT];
        return tsr__fail(TSR_ERR_INDEX,
                         "select(): index %lld out of range for tensor of size %s at dimension %d",
                         (long long)index,
                         tsr__format_dims(text, sizeof(text), in->sizes, in->ndim), d);
    }
    tsr_geometry g = *in;
    if ((st = advance(&g, d, index < 0 ? index + size : index)) != TSR_OK)
        return st;
    for (int i = d; i + 1 < g.ndim; i++) {
        g.sizes[i] = g.sizes[i + 1];
        g.strides[i] = g.strides[i + 1];
    }
    g.ndim--;
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_slice(const tsr_geometry *in, int64_t dim, bool has_start, int64_t start,
                          bool has_end, int64_t end, int64_t step, tsr_geometry *out)
{
    int d = 0;
    tsr_status st = dim_of(in, out, dim, "slice", TSR_ERR_INDEX, &d);
    if (st != TSR_OK)
        return st;
    if (step <= 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "step must be greater than zero");
    int64_t size = in->sizes[d];
    int64_t s = has_start ? start : 0, e = has_end ? end : INT64_MAX;
    if (s < 0)
        s += size;
    if (e < 0)
        e += size;
    s = s < 0 ? 0 : (s > size ? size : s);
    e = e < s ? s : (e > size ? size : e);
    tsr_geometry g = *in;
    if ((st = advance(&g, d, s)) != TSR_OK)
        return st;
    if (__builtin_mul_overflow(g.strides[d], step, &g.strides[d]))
        return tsr__fail(TSR_ERR_OVERFLOW, "stride overflows int64");
    int64_t len = e - s;
    g.sizes[d] = len / step + (len % step != 0);
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_unsqueeze(const tsr_geometry *in, int64_t dim, tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st != TSR_OK)
        return st;
    int d = 0;
    if ((st = wrap(dim, in->ndim + 1, &d)) != TSR_OK)
        return st;
    if (in->ndim >= TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "a tensor has at most %d dimensions",
                         TSR_MAX_DIMS);
    tsr_geometry g = *in;
    int64_t stride = 1;
    if (d < in->ndim && __builtin_mul_overflow(in->sizes[d], in->strides[d], &stride))
        return tsr__fail(TSR_ERR_OVERFLOW, "stride overflows int64");
    for (int i = in->ndim; i > d; i--) {
        g.sizes[i] = in->sizes[i - 1];
        g.strides[i] = in->strides[i - 1];
    }
    g.sizes[d] = 1;
    g.strides[d] = stride;
    g.ndim = in->ndim + 1;
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_squeeze(const tsr_geometry *in, int64_t dim, tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st != TSR_OK)
        return st;
    int d = 0;
    if ((st = wrap(dim, in->ndim, &d)) != TSR_OK)
        return st;
    tsr_geometry g = *in;
    if (in->ndim > 0 && in->sizes[d] == 1) {
        for (int i = d; i + 1 < in->ndim; i++) {
            g.sizes[i] = in->sizes[i + 1];
            g.strides[i] = in->strides[i + 1];
        }
        g.ndim--;
    }
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_expand(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                           tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st == TSR_OK)
        st = check_ndim(nsizes);
    if (st != TSR_OK)
        return st;
    if (nsizes > 0 && sizes == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "sizes must not be NULL");
    char t1[DIMS_TEXT], t2[DIMS_TEXT];
    if (nsizes < in->ndim)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "expand(Tensor{%s}, size=%s): the number of sizes provided (%d) must be "
                         "greater or equal to the number of dimensions in the tensor (%d)",
                         tsr__format_dims(t1, sizeof(t1), in->sizes, in->ndim),
                         tsr__format_dims(t2, sizeof(t2), sizes, nsizes), nsizes, in->ndim);
    tsr_geometry g = {.ndim = nsizes, .offset = in->offset};
    for (int i = nsizes - 1; i >= 0; i--) {
        int offset = nsizes - 1 - i, d = in->ndim - 1 - offset;
        int64_t size = d >= 0 ? in->sizes[d] : 1, stride;
        if (d >= 0)
            stride = in->strides[d];
        else if (i == nsizes - 1)
            stride = 1;
        else if (__builtin_mul_overflow(g.sizes[i + 1], g.strides[i + 1], &stride))
            return tsr__fail(TSR_ERR_OVERFLOW, "stride overflows int64");
        int64_t target = sizes[i];
        if (target == -1) {
            if (d < 0)
                return tsr__fail(TSR_ERR_RUNTIME,
                                 "The expanded size of the tensor (-1) isn't allowed in a leading, "
                                 "non-existing dimension %d",
                                 i);
            target = size;
        }
        if (size != target) {
            if (size != 1)
                return tsr__fail(TSR_ERR_RUNTIME,
                                 "The expanded size of the tensor (%lld) must match the existing "
                                 "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                                 "Tensor sizes: %s",
                                 (long long)target, (long long)size, i,
                                 tsr__format_dims(t1, sizeof(t1), sizes, nsizes),
                                 tsr__format_dims(t2, sizeof(t2), in->sizes, in->ndim));
            if (target < 0)
                return tsr__fail(
                    TSR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                    (long long)target, tsr__format_dims(t1, sizeof(t1), sizes, nsizes));
            size = target;
            stride = 0;
        }
        g.sizes[i] = size;
        g.strides[i] = stride;
    }
    int64_t numel;
    if (tsr_numel(g.ndim, g.sizes, &numel) != TSR_OK)
        return tsr__fail(TSR_ERR_RUNTIME, "numel: integer multiplication overflow");
    *out = g;
    return TSR_OK;
}

/* PyTorch's computeStorageNbytes message, also used for negative sizes. */
static tsr_status storage_overflow(const int64_t *sizes, const int64_t *strides, int ndim)
{
    char t1[DIMS_TEXT], t2[DIMS_TEXT];
    return tsr__fail(TSR_ERR_RUNTIME,
                     "Storage size calculation overflowed with sizes=%s and strides=%s",
                     tsr__format_dims(t1, sizeof(t1), sizes, ndim),
                     tsr__format_dims(t2, sizeof(t2), strides, ndim));
}

tsr_status tsr_view_as_strided(const tsr_geometry *in, int ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset, int64_t storage_elems,
                               size_t itemsize, tsr_geometry *out)
{
    tsr_status st = check_geometry(in, out);
    if (st == TSR_OK)
        st = check_ndim(ndim);
    if (st != TSR_OK)
        return st;
    if (ndim > 0 && (sizes == NULL || strides == NULL))
        return tsr__fail(TSR_ERR_RUNTIME, "mismatch in length of strides and shape");
    char t1[DIMS_TEXT], t2[DIMS_TEXT];
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0)
            return storage_overflow(sizes, strides, ndim);
    for (int i = 0; i < ndim; i++)
        if (strides[i] < 0)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "as_strided: Negative strides are not supported at the moment, got "
                             "strides: %s",
                             tsr__format_dims(t1, sizeof(t1), strides, ndim));
    if (storage_elems < 0 || itemsize == 0 || itemsize > 64)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid storage description");
    tsr_geometry g = {.ndim = ndim, .offset = offset};
    if (ndim > 0) {
        memcpy(g.sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(g.strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    /* PyTorch's checkInBoundsForStorage, in bytes; an empty view fits any
     * storage. The offset check comes after it, as in setStrided. */
    g.offset = 0;
    int64_t span, need, have, off_bytes, isz = (int64_t)itemsize;
    if (tsr_geometry_storage_span(&g, &span) != TSR_OK)
        return storage_overflow(sizes, strides, ndim);
    g.offset = offset;
    if (span > 0) {
        if (__builtin_mul_overflow(span, isz, &need) ||
            __builtin_mul_overflow(offset, isz, &off_bytes) ||
            __builtin_add_overflow(need, off_bytes, &need) ||
            __builtin_mul_overflow(storage_elems, isz, &have))
            return storage_overflow(sizes, strides, ndim);
        if (need > have)
            return tsr__fail(
                TSR_ERR_RUNTIME,
                "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize "
                "%zu requiring a storage size of %lld are out of bounds for storage of "
                "size %lld",
                tsr__format_dims(t1, sizeof(t1), sizes, ndim),
                tsr__format_dims(t2, sizeof(t2), strides, ndim), (long long)offset, itemsize,
                (long long)need, (long long)have);
    }
    if (offset < 0)
        return tsr__fail(TSR_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
    /* Zero strides fit any element count in the storage: the count itself
     * must fit int64 (PyTorch's refresh_numel, last). */
    int64_t numel;
    if (tsr_numel(ndim, g.sizes, &numel) != TSR_OK)
        return tsr__fail(TSR_ERR_RUNTIME, "numel: integer multiplication overflow");
    *out = g;
    return TSR_OK;
}

/* infer_size: resolves one -1 against numel and checks the total. */
static tsr_status infer_shape(const int64_t *shape, int n, int64_t numel, int64_t *res)
{
    int64_t newsize = 1;
    int infer = -1;
    char text[DIMS_TEXT];
    bool overflow = false;
    for (int i = 0; i < n; i++) {
        res[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0)
                return tsr__fail(TSR_ERR_RUNTIME, "only one dimension can be inferred");
            infer = i;
        } else if (shape[i] >= 0) {
            overflow |= __builtin_mul_overflow(newsize, shape[i], &newsize);
        } else {
            return tsr__fail(TSR_ERR_RUNTIME, "invalid shape dimension %lld", (long long)shape[i]);
        }
    }
    if (!overflow && (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0))) {
        if (infer >= 0) {
            if (newsize == 0)
                return tsr__fail(TSR_ERR_RUNTIME,
                                 "cannot reshape tensor of 0 elements into shape %s because the "
                                 "unspecified dimension size -1 can be any value and is ambiguous",
                                 tsr__format_dims(text, sizeof(text), shape, n));
            res[infer] = numel / newsize;
        }
        return TSR_OK;
    }
    return tsr__fail(TSR_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld",
                     tsr__format_dims(text, sizeof(text), shape, n), (long long)numel);
}

/* ATen's computeStride: strides for viewing (old sizes, strides) as
 * `shape` without copying. Returns 1 when a view exists, 0 when the memory
 * does not allow one, -1 (error set) on overflow. */
static int compute_view_strides(const tsr_geometry *in, int64_t numel, const int64_t *shape, int n,
                                int64_t *res)
{
    const int64_t *os = in->sizes, *ost = in->strides;
    int on = in->ndim;
    if (on == 0) {
        for (int i = 0; i < n; i++)
            res[i] = 1;
        return 1;
    }
    if (numel == 0 && on == n && memcmp(os, shape, sizeof(int64_t) * (size_t)n) == 0) {
        memcpy(res, ost, sizeof(int64_t) * (size_t)n);
        return 1;
    }
    if (numel == 0)
        return tsr_strides_for(n, shape, TSR_CONTIGUOUS_FORMAT, res) == TSR_OK ? 1 : -1;
    int view_d = n - 1;
    int64_t chunk_base = ost[on - 1], tensor_numel = 1, view_numel = 1, chunk_end;
    /* tensor_numel and view_numel never exceed numel; products with a
     * stride may overflow for hostile strides and then cannot match. */
    for (int td = on - 1; td >= 0; td--) {
        tensor_numel *= os[td];
        if (td == 0 ||
            (os[td - 1] != 1 && (__builtin_mul_overflow(tensor_numel, chunk_base, &chunk_end) ||
                                 ost[td - 1] != chunk_end))) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                if (__builtin_mul_overflow(view_numel, chunk_base, &res[view_d])) {
                    tsr__fail(TSR_ERR_OVERFLOW, "stride overflows int64");
                    return -1;
                }
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return 0;
            if (td > 0) {
                chunk_base = ost[td - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

static tsr_status view_or_reshape(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                                  tsr_geometry *out, bool *copied)
{
    tsr_status st = check_geometry(in, out);
    if (st == TSR_OK)
        st = check_ndim(nsizes);
    if (st != TSR_OK)
        return st;
    if (nsizes > 0 && sizes == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "sizes must not be NULL");
    int64_t numel;
    if ((st = tsr_numel(in->ndim, in->sizes, &numel)) != TSR_OK)
        return st;
    tsr_geometry g = {.ndim = nsizes, .offset = in->offset};
    if ((st = infer_shape(sizes, nsizes, numel, g.sizes)) != TSR_OK)
        return st;
    int viewable = compute_view_strides(in, numel, g.sizes, nsizes, g.strides);
    if (viewable < 0)
        return TSR_ERR_OVERFLOW;
    if (viewable) {
        if (copied)
            *copied = false;
    } else if (copied) {
        g.offset = 0;
        if ((st = tsr_strides_for(nsizes, g.sizes, TSR_CONTIGUOUS_FORMAT, g.strides)) != TSR_OK)
            return st;
        *copied = true;
    } else {
        return tsr__fail(
            TSR_ERR_RUNTIME,
            "view size is not compatible with input tensor's size and stride (at least "
            "one dimension spans across two contiguous subspaces). Use .reshape(...) "
            "instead.");
    }
    *out = g;
    return TSR_OK;
}

tsr_status tsr_view_view(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                         tsr_geometry *out)
{
    return view_or_reshape(in, sizes, nsizes, out, NULL);
}

tsr_status tsr_view_reshape(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                            tsr_geometry *out, bool *copied)
{
    bool local;
    return view_or_reshape(in, sizes, nsizes, out, copied ? copied : &local);
}
