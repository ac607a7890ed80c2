/* Memory formats: fresh strides, contiguity verdicts, density, and the
 * strides preserve_format picks. Each function mirrors the corresponding
 * c10 computation, including its treatment of size-0 and size-1
 * dimensions, because programs observe those verdicts. */
#include "tessera/layout.h"

#include <string.h>

#include "core/error.h"

static const char *const layout_names[TSR_LAYOUT_COUNT] = {
    [TSR_STRIDED] = "strided",
    [TSR_SPARSE_COO] = "sparse_coo",
};

/* PyTorch layouts Tessera knows by name but does not implement. */
static const char *const other_layouts[] = {"sparse_csr", "sparse_csc", "sparse_bsr",
                                            "sparse_bsc", "_mkldnn",    "jagged"};

static const char *const format_names[TSR_MEMORY_FORMAT_COUNT] = {
    [TSR_CONTIGUOUS_FORMAT] = "contiguous_format",
    [TSR_CHANNELS_LAST] = "channels_last",
    [TSR_CHANNELS_LAST_3D] = "channels_last_3d",
    [TSR_PRESERVE_FORMAT] = "preserve_format",
};

const char *tsr_layout_name(tsr_layout layout)
{
    return (unsigned)layout < TSR_LAYOUT_COUNT ? layout_names[layout] : NULL;
}

static const char *strip_torch(const char *name)
{
    return strncmp(name, "torch.", 6) == 0 ? name + 6 : name;
}

tsr_status tsr_layout_from_name(const char *name, tsr_layout *out)
{
    if (name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "layout name must not be NULL");
    const char *bare = strip_torch(name);
    for (int i = 0; i < TSR_LAYOUT_COUNT; i++) {
        if (strcmp(bare, layout_names[i]) == 0) {
            *out = (tsr_layout)i;
            return TSR_OK;
        }
    }
    for (size_t i = 0; i < TSR__ARRAY_SIZE(other_layouts); i++)
        if (strcmp(bare, other_layouts[i]) == 0)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                             "layout %s is not supported (supported: strided, sparse_coo)", bare);
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid layout name: '%.200s'", name);
}

const char *tsr_memory_format_name(tsr_memory_format format)
{
    return (unsigned)format < TSR_MEMORY_FORMAT_COUNT ? format_names[format] : NULL;
}

tsr_status tsr_memory_format_from_name(const char *name, tsr_memory_format *out)
{
    if (name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "memory format name must not be NULL");
    const char *bare = strip_torch(name);
    if (strcmp(bare, "legacy_contiguous_format") == 0) {
        *out = TSR_CONTIGUOUS_FORMAT;
        return TSR_OK;
    }
    for (int i = 0; i < TSR_MEMORY_FORMAT_COUNT; i++) {
        if (strcmp(bare, format_names[i]) == 0) {
            *out = (tsr_memory_format)i;
            return TSR_OK;
        }
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid memory format name: '%.200s'", name);
}

static bool valid_ndim(int ndim)
{
    return ndim >= 0 && ndim <= TSR_MAX_DIMS;
}

/* Dimension orders from innermost to outermost for the channels-last
 * formats: C, W, H, N and C, W, H, D, N. */
static const int cl2d_order[4] = {1, 3, 2, 0};
static const int cl3d_order[5] = {1, 4, 3, 2, 0};

tsr_status tsr_strides_for(int ndim, const int64_t *sizes, tsr_memory_format format,
                           int64_t *strides)
{
    if (!valid_ndim(ndim) || (ndim > 0 && (sizes == NULL || strides == NULL)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "number of dimensions must be in [0, %d], got %d", TSR_MAX_DIMS, ndim);
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char text[TSR__DIMS_TEXT];
            return tsr__fail(
                TSR_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: %s",
                (long long)sizes[i], tsr__format_dims(text, sizeof(text), sizes, ndim));
        }
    }
    int64_t out[TSR_MAX_DIMS];
    const int *order = NULL;
    switch (format) {
    case TSR_CONTIGUOUS_FORMAT: {
        int64_t expected = 1;
        for (int i = ndim - 1; i >= 0; i--) {
            out[i] = expected;
            if (__builtin_mul_overflow(expected, sizes[i] > 1 ? sizes[i] : 1, &expected))
                return tsr__fail(TSR_ERR_OVERFLOW, "tensor size overflows int64");
        }
        break;
    }
    case TSR_CHANNELS_LAST:
        if (ndim != 4)
            return tsr__fail(TSR_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
        order = cl2d_order;
        break;
    case TSR_CHANNELS_LAST_3D:
        if (ndim != 5)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "required rank 5 tensor to use channels_last_3d format");
        order = cl3d_order;
        break;
    case TSR_PRESERVE_FORMAT:
        return tsr__fail(TSR_ERR_RUNTIME, "unsupported memory format Preserve");
    default:
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid memory format %d", (int)format);
    }
    if (order) {
        /* c10 multiplies by the raw sizes here, so a size-0 dimension zeroes
         * every stride outside it: (2,0,4,5) gives (0,1,0,0). */
        int64_t expected = 1;
        for (int k = 0; k < ndim; k++) {
            out[order[k]] = expected;
            if (__builtin_mul_overflow(expected, sizes[order[k]], &expected))
                return tsr__fail(TSR_ERR_OVERFLOW, "tensor size overflows int64");
        }
    }
    if (ndim > 0)
        memcpy(strides, out, sizeof(int64_t) * (size_t)ndim);
    return TSR_OK;
}

/* Scans dims in `order`, skipping size-1 dims; each other dim must have
 * the stride the dims before it imply. */
static bool dense_in_order(const int64_t *sizes, const int64_t *strides, const int *order, int n)
{
    int64_t expected = 1;
    bool overflowed = false;
    for (int k = 0; k < n; k++) {
        int d = order[k];
        if (sizes[d] == 1)
            continue;
        if (overflowed || strides[d] != expected)
            return false;
        overflowed = __builtin_mul_overflow(expected, sizes[d], &expected);
    }
    return true;
}

static bool contiguous_default(int ndim, const int64_t *sizes, const int64_t *strides)
{
    int order[TSR_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0)
            return true; /* numel == 0 */
        order[i] = ndim - 1 - i;
    }
    return dense_in_order(sizes, strides, order, ndim);
}

static bool has_negative(int ndim, const int64_t *sizes)
{
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0)
            return true;
    return false;
}

bool tsr_is_contiguous(int ndim, const int64_t *sizes, const int64_t *strides,
                       tsr_memory_format format)
{
    if (!valid_ndim(ndim) || (ndim > 0 && (sizes == NULL || strides == NULL)) ||
        has_negative(ndim, sizes))
        return false;
    switch (format) {
    case TSR_CONTIGUOUS_FORMAT:
    case TSR_PRESERVE_FORMAT:
        return contiguous_default(ndim, sizes, strides);
    case TSR_CHANNELS_LAST:
        return ndim == 4 && dense_in_order(sizes, strides, cl2d_order, 4);
    case TSR_CHANNELS_LAST_3D:
        return ndim == 5 && dense_in_order(sizes, strides, cl3d_order, 5);
    default:
        return false;
    }
}

/* c10's compute_non_overlapping_and_dense: sort dims by stride with
 * size<2 dims last, then the strides must be exactly the running products. */
static bool dense_any_order(int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (ndim == 1)
        return sizes[0] < 2 || strides[0] == 1;
    int perm[TSR_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        perm[i] = i;
    for (int i = 1; i < ndim; i++) { /* insertion sort: small, and stable */
        int d = perm[i], j = i - 1;
        while (j >= 0) {
            int p = perm[j];
            bool d_before_p =
                sizes[p] < 2 ? sizes[d] >= 2 : (sizes[d] >= 2 && strides[d] < strides[p]);
            if (!d_before_p)
                break;
            perm[j + 1] = p;
            j--;
        }
        perm[j + 1] = d;
    }
    int64_t required = 1;
    for (int i = 0; i < ndim; i++) {
        int64_t size = sizes[perm[i]];
        if (size < 2)
            return true;
        if (strides[perm[i]] != required)
            return false;
        if (__builtin_mul_overflow(required, size, &required))
            return false;
    }
    return true;
}

bool tsr_is_non_overlapping_and_dense(int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (!valid_ndim(ndim) || (ndim > 0 && (sizes == NULL || strides == NULL)) ||
        has_negative(ndim, sizes))
        return false;
    if (contiguous_default(ndim, sizes, strides))
        return true;
    if (ndim == 4 && dense_in_order(sizes, strides, cl2d_order, 4))
        return true;
    if (ndim == 5 && dense_in_order(sizes, strides, cl3d_order, 5))
        return true;
    return dense_any_order(ndim, sizes, strides);
}

/* -1: dim a is inner to b (stop), 1: swap, 0: ambiguous (keep scanning). */
static int infer_order(const int64_t *sizes, const int64_t *strides, int a, int b)
{
    if (strides[a] == 0 || strides[b] == 0)
        return 0;
    if (strides[a] < strides[b])
        return -1;
    if (strides[a] > strides[b])
        return 1;
    return sizes[a] > sizes[b] ? 1 : 0;
}

tsr_status tsr_preserve_strides(int ndim, const int64_t *sizes, const int64_t *strides,
                                int64_t *out)
{
    if (!valid_ndim(ndim) || (ndim > 0 && (sizes == NULL || strides == NULL || out == NULL)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "number of dimensions must be in [0, %d], got %d", TSR_MAX_DIMS, ndim);
    if (has_negative(ndim, sizes))
        return tsr__fail(TSR_ERR_RUNTIME, "sizes must be non-negative");
    if (tsr_is_non_overlapping_and_dense(ndim, sizes, strides)) {
        if (ndim > 0)
            memmove(out, strides, sizeof(int64_t) * (size_t)ndim);
        return TSR_OK;
    }
    /* infer_dense_strides: innermost first, insertion sort by stride. */
    int perm[TSR_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = infer_order(sizes, strides, perm[d0], perm[d1]);
            if (c > 0) {
                int t = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = t;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
    int64_t result[TSR_MAX_DIMS], stride = 1;
    for (int i = 0; i < ndim; i++) {
        result[perm[i]] = stride;
        if (sizes[perm[i]] > 1 && __builtin_mul_overflow(stride, sizes[perm[i]], &stride))
            return tsr__fail(TSR_ERR_OVERFLOW, "tensor size overflows int64");
    }
    if (ndim > 0)
        memcpy(out, result, sizeof(int64_t) * (size_t)ndim);
    return TSR_OK;
}

/* c10's is_channels_last_strides_{2d,3d}. */
static bool strides_like(const int64_t *sizes, const int64_t *strides, const int *order, int n)
{
    if (strides[1] == 0)
        return false;
    int64_t min = 0;
    for (int k = 0; k < n; k++) {
        int d = order[k];
        if (sizes[d] == 0 || strides[d] < min)
            return false;
        if (d == 0 && min == strides[1])
            return false; /* ambiguous N111 cases fall back to contiguous */
        min = strides[d];
        if (sizes[d] > 1 && __builtin_mul_overflow(min, sizes[d], &min))
            return false;
    }
    return true;
}

tsr_memory_format tsr_suggest_memory_format(int ndim, const int64_t *sizes, const int64_t *strides,
                                            bool exact)
{
    if ((ndim != 4 && ndim != 5) || sizes == NULL || strides == NULL || has_negative(ndim, sizes))
        return TSR_CONTIGUOUS_FORMAT;
    tsr_memory_format f = ndim == 4 ? TSR_CHANNELS_LAST : TSR_CHANNELS_LAST_3D;
    if (!strides_like(sizes, strides, ndim == 4 ? cl2d_order : cl3d_order, ndim))
        return TSR_CONTIGUOUS_FORMAT;
    if (exact) {
        int64_t fresh[5];
        if (tsr_strides_for(ndim, sizes, f, fresh) != TSR_OK ||
            memcmp(fresh, strides, sizeof(int64_t) * (size_t)ndim) != 0)
            return TSR_CONTIGUOUS_FORMAT;
    }
    return f;
}
