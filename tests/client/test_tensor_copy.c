/* Host copies: copy_to_host and copy_from_host on many random views
 * (permuted, sliced with steps, narrowed, expanded, 0-dim, empty) of every
 * item size, against a naive element-by-element reference; then their
 * checks: buffer sizes, meta tensors, and writes into overlapping views. */
#include <string.h>

#include "client/support_tensor.h"
#include "test.h"

/* A small deterministic generator (xorshift), so failures replay. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static int64_t rnd(int64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int64_t)(rng_state % (uint64_t)n);
}

/* The naive reference: element i (row-major) of the view lives at
 * offset + sum(index[d] * stride[d]). */
static int64_t element_at(const tsr_geometry *g, int64_t i)
{
    int64_t at = g->offset;
    for (int d = g->ndim - 1; d >= 0; d--) {
        at += (i % g->sizes[d]) * g->strides[d];
        i /= g->sizes[d];
    }
    return at;
}

/* A random view of `base`: a few random view steps. Returns a new
 * reference (possibly to base itself). */
static tsr_tensor *random_view(tsr_tensor *base)
{
    tsr_tensor *cur = tsr_tensor_retain(base);
    int steps = (int)rnd(4);
    for (int s = 0; s < steps; s++) {
        int ndim = tsr_tensor_ndim(cur);
        tsr_tensor *next = NULL;
        tsr_status st = TSR_ERR_RUNTIME;
        int64_t d = ndim > 0 ? rnd(ndim) : 0, size = ndim > 0 ? tsr_tensor_sizes(cur)[d] : 0;
        switch (rnd(6)) {
        case 0:
            if (ndim > 1)
                st = tsr_tensor_transpose(cur, d, rnd(ndim), &next);
            break;
        case 1:
            if (ndim > 0)
                st = tsr_tensor_slice(cur, d, true, rnd(size + 1), true, rnd(size + 2), 1 + rnd(3),
                                      &next);
            break;
        case 2:
            if (ndim > 0 && size > 0)
                st = tsr_tensor_select(cur, d, rnd(size), &next);
            break;
        case 3:
            if (ndim < 5) {
                int64_t sizes[TSR_MAX_DIMS];
                sizes[0] = 1 + rnd(3);
                memcpy(sizes + 1, tsr_tensor_sizes(cur), sizeof(int64_t) * (size_t)ndim);
                st = tsr_tensor_expand(cur, sizes, ndim + 1, &next);
            }
            break;
        case 4:
            if (ndim > 0)
                st = tsr_tensor_narrow(cur, d, 0, size > 0 ? 1 + rnd(size) : 0, &next);
            break;
        default:
            st = tsr_tensor_unsqueeze(cur, ndim > 0 ? rnd(ndim + 1) : 0, &next);
            break;
        }
        if (st == TSR_OK) {
            tsr_tensor_release(cur);
            cur = next;
        }
    }
    return cur;
}

/* has_internal_overlap() == YES: an expanded dimension, in a view that
 * has elements at all (an empty view is "non-overlapping and dense"). */
static bool overlaps(const tsr_geometry *g)
{
    for (int d = 0; d < g->ndim; d++)
        if (g->sizes[d] == 0)
            return false;
    for (int d = 0; d < g->ndim; d++)
        if (g->strides[d] == 0 && g->sizes[d] > 1)
            return true;
    return false;
}

static void check_one(tsr_dtype dtype)
{
    const tensor_env cpu = {NULL, {TSR_DEVICE_CPU, -1}};
    size_t item = tsr_dtype_itemsize(dtype);
    int64_t sizes[TSR_MAX_DIMS];
    int ndim = (int)rnd(5);
    for (int d = 0; d < ndim; d++)
        sizes[d] = rnd(5);
    tsr_tensor_options o = tt_options(&cpu, dtype);
    tsr_tensor *base = NULL;
    if (tsr_tensor_empty(NULL, ndim, sizes, &o, &base) != TSR_OK) {
        ASSERT_OK(TSR_ERR_RUNTIME);
        return;
    }
    unsigned char *storage = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(base, (void **)&storage));
    size_t storage_bytes = (size_t)tsr_tensor_nbytes(base);
    for (size_t b = 0; b < storage_bytes; b++)
        storage[b] = (unsigned char)rnd(256);

    tsr_tensor *v = random_view(base);
    tsr_geometry g;
    tsr_tensor_geometry(v, &g);
    int64_t numel = tsr_tensor_numel(v);
    size_t nbytes = (size_t)numel * item;
    unsigned char *got = malloc(nbytes + 1), *want = malloc(nbytes + 1);
    for (int64_t i = 0; i < numel; i++)
        memcpy(want + i * (int64_t)item, storage + element_at(&g, i) * (int64_t)item, item);
    ASSERT_OK(tsr_tensor_copy_to_host(v, got, nbytes));
    ASSERT_TRUE(memcmp(got, want, nbytes) == 0);

    /* Writing: new values land where the reference says, nothing else
     * in the storage moves. */
    for (size_t b = 0; b < nbytes; b++)
        got[b] = (unsigned char)rnd(256);
    unsigned char *expected = malloc(storage_bytes + 1);
    memcpy(expected, storage, storage_bytes);
    for (int64_t i = 0; i < numel; i++)
        memcpy(expected + element_at(&g, i) * (int64_t)item, got + i * (int64_t)item, item);
    tsr_status st = tsr_tensor_copy_from_host(v, got, nbytes);
    if (overlaps(&g)) {
        ASSERT_FAIL(st, TSR_ERR_RUNTIME,
                    "unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
    } else {
        ASSERT_OK(st);
        ASSERT_TRUE(memcmp(storage, expected, storage_bytes) == 0);
    }
    free(expected);
    free(got);
    free(want);
    tsr_tensor_release(v);
    tsr_tensor_release(base);
}

static void test_random_views(void)
{
    static const tsr_dtype dtypes[] = {TSR_UINT8,   TSR_FLOAT16,    TSR_INT32,
                                       TSR_FLOAT64, TSR_COMPLEX128, TSR_FLOAT4_E2M1FN_X2};
    for (int round = 0; round < 400; round++)
        for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
            check_one(dtypes[i]);
}

static void test_checks(void)
{
    const int64_t sizes[2] = {2, 3};
    tsr_tensor *t = NULL, *e = NULL, *m = NULL, *lap = NULL;
    ASSERT_OK(tsr_tensor_zeros(NULL, 2, sizes, NULL, &t));
    float buf[6];
    ASSERT_FAIL(tsr_tensor_copy_to_host(t, buf, 20), TSR_ERR_INVALID_ARGUMENT,
                "the host buffer has 20 bytes but the tensor's 6 elements of float32 take 24");
    ASSERT_FAIL(tsr_tensor_copy_from_host(t, buf, 28), TSR_ERR_INVALID_ARGUMENT,
                "the host buffer has 28 bytes but the tensor's 6 elements of float32 take 24");
    ASSERT_FAIL(tsr_tensor_copy_to_host(t, NULL, 24), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr_tensor_copy_to_host(NULL, buf, 24), TSR_ERR_INVALID_ARGUMENT, NULL);

    /* Overlap PyTorch cannot prove ("too hard") is written, as copy_ does. */
    const int64_t win[2] = {2, 2}, step[2] = {1, 1};
    ASSERT_OK(tsr_tensor_as_strided(t, 2, win, step, 0, &lap));
    const float four[4] = {1, 2, 3, 4};
    ASSERT_OK(tsr_tensor_copy_from_host(lap, four, sizeof(four)));
    tsr_tensor_release(lap);

    const int64_t wide[3] = {4, 2, 3};
    ASSERT_OK(tsr_tensor_expand(t, wide, 3, &e));
    float big[24];
    ASSERT_OK(tsr_tensor_copy_to_host(e, big, sizeof(big)));
    ASSERT_FAIL(tsr_tensor_copy_from_host(e, big, sizeof(big)), TSR_ERR_RUNTIME,
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
    tsr_tensor_release(e);

    tsr_tensor_options o = {0};
    o.has_device = true;
    o.device = (tsr_device){TSR_DEVICE_META, -1};
    ASSERT_OK(tsr_tensor_ones(NULL, 2, sizes, &o, &m));
    ASSERT_FAIL(tsr_tensor_copy_to_host(m, buf, sizeof(buf)), TSR_ERR_RUNTIME,
                "Cannot copy out of meta tensor; no data!");
    ASSERT_FAIL(tsr_tensor_copy_from_host(m, buf, sizeof(buf)), TSR_ERR_RUNTIME,
                "Cannot copy into meta tensor; no data!");
    tsr_tensor_release(m);

    /* Empty tensors copy nothing, and need no buffer. */
    const int64_t none[2] = {0, 3};
    ASSERT_OK(tsr_tensor_empty(NULL, 2, none, NULL, &e));
    ASSERT_OK(tsr_tensor_copy_to_host(e, NULL, 0));
    ASSERT_OK(tsr_tensor_copy_from_host(e, NULL, 0));
    tsr_tensor_release(e);
    tsr_tensor_release(t);
}

int main(void)
{
    test_random_views();
    test_checks();
    TEST_DONE();
}
