/* Unit tests of geometry: counts, spans, broadcasting and every view, with
 * the sizes, strides and offsets PyTorch 1.13 gives for
 * x = arange(24.).reshape(2, 3, 4). */
#include "test.h"

#define A(...) ((const int64_t[]){__VA_ARGS__})

static tsr_geometry base(void)
{
    tsr_geometry g;
    tsr_geometry_init(3, A(2, 3, 4), TSR_CONTIGUOUS_FORMAT, &g);
    return g;
}

static void expect(const tsr_geometry *g, int n, const int64_t *sizes, const int64_t *strides,
                   int64_t offset)
{
    ASSERT_EQ(g->ndim, n);
    for (int i = 0; i < n && i < g->ndim; i++) {
        ASSERT_EQ(g->sizes[i], sizes[i]);
        ASSERT_EQ(g->strides[i], strides[i]);
    }
    ASSERT_EQ(g->offset, offset);
}

static void views(void)
{
    tsr_geometry x = base(), v, w;
    ASSERT_OK(tsr_view_transpose(&x, 0, 2, &v));
    expect(&v, 3, A(4, 3, 2), A(1, 4, 12), 0);
    ASSERT_OK(tsr_view_transpose(&x, -2, -1, &v));
    expect(&v, 3, A(2, 4, 3), A(12, 1, 4), 0);
    ASSERT_OK(tsr_view_permute(&x, A(2, 0, 1), 3, &v));
    expect(&v, 3, A(4, 2, 3), A(1, 12, 4), 0);
    ASSERT_OK(tsr_view_select(&x, 0, 1, &v));
    expect(&v, 2, A(3, 4), A(4, 1), 12);
    ASSERT_OK(tsr_view_select(&x, 1, 1, &v));
    expect(&v, 2, A(2, 4), A(12, 1), 4);
    ASSERT_OK(tsr_view_select(&x, 2, 1, &v));
    expect(&v, 2, A(2, 3), A(12, 4), 1);
    ASSERT_OK(tsr_view_select(&x, 1, -1, &v));
    expect(&v, 2, A(2, 4), A(12, 1), 8);
    ASSERT_OK(tsr_view_select(&x, 0, 1, &v));
    ASSERT_OK(tsr_view_select(&v, 0, 2, &v));
    ASSERT_OK(tsr_view_select(&v, 0, 3, &v));
    expect(&v, 0, NULL, NULL, 23);
    ASSERT_TRUE(tsr_is_contiguous(v.ndim, v.sizes, v.strides, TSR_CONTIGUOUS_FORMAT));
    ASSERT_OK(tsr_view_slice(&x, 1, true, 1, true, 3, 1, &v));
    expect(&v, 3, A(2, 2, 4), A(12, 4, 1), 4);
    ASSERT_OK(tsr_view_slice(&x, 2, true, 1, false, 0, 2, &v));
    expect(&v, 3, A(2, 3, 2), A(12, 4, 2), 1);
    ASSERT_OK(tsr_view_slice(&x, -1, false, 0, false, 0, 3, &v));
    expect(&v, 3, A(2, 3, 2), A(12, 4, 3), 0);
    ASSERT_OK(tsr_view_slice(&x, 0, true, 1, false, 0, 1, &v));
    ASSERT_OK(tsr_view_slice(&v, 1, true, 2, false, 0, 1, &v));
    ASSERT_OK(tsr_view_slice(&v, 2, true, 3, false, 0, 1, &v));
    expect(&v, 3, A(1, 1, 1), A(12, 4, 1), 23);
    ASSERT_OK(tsr_view_slice(&x, 2, true, 1, true, 1, 1, &v));
    expect(&v, 3, A(2, 3, 0), A(12, 4, 1), 1);
    ASSERT_OK(tsr_view_slice(&x, 2, true, -10, true, 100, 1, &v)); /* clamped */
    expect(&v, 3, A(2, 3, 4), A(12, 4, 1), 0);
    ASSERT_FAIL(tsr_view_slice(&x, 2, false, 0, false, 0, -1, &v), TSR_ERR_INVALID_ARGUMENT,
                "step must be greater than zero");
    ASSERT_OK(tsr_view_narrow(&x, 2, 1, 2, &v));
    expect(&v, 3, A(2, 3, 2), A(12, 4, 1), 1);
    ASSERT_OK(tsr_view_narrow(&x, 0, 1, 1, &v));
    expect(&v, 3, A(1, 3, 4), A(12, 4, 1), 12);
    ASSERT_OK(tsr_view_narrow(&x, 2, 4, 0, &v)); /* start == size is valid */
    expect(&v, 3, A(2, 3, 0), A(12, 4, 1), 4);
    ASSERT_OK(tsr_view_unsqueeze(&x, 0, &v));
    expect(&v, 4, A(1, 2, 3, 4), A(24, 12, 4, 1), 0);
    ASSERT_OK(tsr_view_unsqueeze(&x, 1, &v));
    expect(&v, 4, A(2, 1, 3, 4), A(12, 12, 4, 1), 0);
    ASSERT_OK(tsr_view_unsqueeze(&x, 3, &v));
    expect(&v, 4, A(2, 3, 4, 1), A(12, 4, 1, 1), 0);
    ASSERT_OK(tsr_view_unsqueeze(&x, -1, &v));
    expect(&v, 4, A(2, 3, 4, 1), A(12, 4, 1, 1), 0);
    ASSERT_OK(tsr_view_transpose(&x, 0, 2, &v));
    ASSERT_OK(tsr_view_unsqueeze(&v, 1, &v));
    expect(&v, 4, A(4, 1, 3, 2), A(1, 12, 4, 12), 0);
    ASSERT_OK(tsr_view_squeeze(&v, 1, &w));
    expect(&w, 3, A(4, 3, 2), A(1, 4, 12), 0);
    ASSERT_OK(tsr_view_squeeze(&x, 0, &w)); /* size 2: unchanged */
    expect(&w, 3, A(2, 3, 4), A(12, 4, 1), 0);
    ASSERT_OK(tsr_view_view(&x, A(6, 4), 2, &v));
    expect(&v, 2, A(6, 4), A(4, 1), 0);
    ASSERT_OK(tsr_view_view(&x, A(-1, 8), 2, &v));
    expect(&v, 2, A(3, 8), A(8, 1), 0);
    ASSERT_OK(tsr_view_as_strided(&x, 2, A(2, 2), A(1, 2), 3, 24, 4, &v));
    expect(&v, 2, A(2, 2), A(1, 2), 3);
    ASSERT_OK(tsr_view_t(&v, &w));
    expect(&w, 2, A(2, 2), A(2, 1), 3);
}

static void expand(void)
{
    tsr_geometry y, z, s, v;
    tsr_geometry_init(2, A(3, 1), TSR_CONTIGUOUS_FORMAT, &y);
    ASSERT_OK(tsr_view_expand(&y, A(3, 4), 2, &v));
    expect(&v, 2, A(3, 4), A(1, 0), 0);
    ASSERT_OK(tsr_view_expand(&y, A(2, 3, 4), 3, &v));
    expect(&v, 3, A(2, 3, 4), A(0, 1, 0), 0);
    tsr_geometry_init(1, A(4), TSR_CONTIGUOUS_FORMAT, &z);
    ASSERT_OK(tsr_view_expand(&z, A(3, 4), 2, &v));
    expect(&v, 2, A(3, 4), A(0, 1), 0);
    ASSERT_OK(tsr_view_expand(&z, A(1, 4), 2, &v));
    expect(&v, 2, A(1, 4), A(4, 1), 0);
    ASSERT_OK(tsr_view_expand(&z, A(1, 1, 4), 3, &v));
    expect(&v, 3, A(1, 1, 4), A(4, 4, 1), 0);
    ASSERT_OK(tsr_view_expand(&z, A(2, 1, 4), 3, &v));
    expect(&v, 3, A(2, 1, 4), A(0, 4, 1), 0);
    ASSERT_OK(tsr_view_expand(&z, A(2, -1), 2, &v));
    expect(&v, 2, A(2, 4), A(0, 1), 0);
    tsr_geometry_init(0, NULL, TSR_CONTIGUOUS_FORMAT, &s);
    ASSERT_OK(tsr_view_expand(&s, A(2, 3), 2, &v));
    expect(&v, 2, A(2, 3), A(0, 0), 0);
    ASSERT_FAIL(tsr_view_expand(&z, A(4, 3), 2, &v), TSR_ERR_RUNTIME,
                "The expanded size of the tensor (3) must match the existing size (4) at "
                "non-singleton dimension 1.  Target sizes: [4, 3].  Tensor sizes: [4]");
    ASSERT_FAIL(tsr_view_expand(&z, A(-1, 4), 2, &v), TSR_ERR_RUNTIME,
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                "dimension 0");
    tsr_geometry_init(2, A(2, 3), TSR_CONTIGUOUS_FORMAT, &y);
    ASSERT_FAIL(tsr_view_expand(&y, A(3), 1, &v), TSR_ERR_RUNTIME,
                "expand(Tensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be "
                "greater or equal to the number of dimensions in the tensor (2)");
}

static void errors(void)
{
    tsr_geometry x = base(), v = base();
    tsr_geometry s;
    tsr_geometry_init(0, NULL, TSR_CONTIGUOUS_FORMAT, &s);
    ASSERT_FAIL(tsr_view_transpose(&x, 0, 3, &v), TSR_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    ASSERT_FAIL(tsr_view_select(&x, 1, 3, &v), TSR_ERR_INDEX,
                "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1");
    ASSERT_FAIL(tsr_view_select(&x, -1, -5, &v), TSR_ERR_INDEX,
                "select(): index -5 out of range for tensor of size [2, 3, 4] at dimension 2");
    ASSERT_FAIL(tsr_view_select(&s, 0, 0, &v), TSR_ERR_INDEX,
                "select() cannot be applied to a 0-dim tensor.");
    ASSERT_FAIL(tsr_view_narrow(&x, 2, 3, 2, &v), TSR_ERR_RUNTIME,
                "start (3) + length (2) exceeds dimension size (4).");
    ASSERT_FAIL(tsr_view_narrow(&x, 2, 5, 1, &v), TSR_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-4, 3], but got 5)");
    ASSERT_FAIL(tsr_view_narrow(&s, 0, 0, 0, &v), TSR_ERR_RUNTIME,
                "narrow() cannot be applied to a 0-dim tensor.");
    /* A start wrapped against a size past INT_MAX (PyTorch 1.13 on a meta
     * tensor of [2^32, 2]). */
    tsr_geometry big;
    tsr_geometry_init(2, A(INT64_C(1) << 32, 2), TSR_CONTIGUOUS_FORMAT, &big);
    ASSERT_FAIL(tsr_view_narrow(&big, 0, -1, 5, &v), TSR_ERR_RUNTIME,
                "start (4294967295) + length (5) exceeds dimension size (4294967296).");
    ASSERT_OK(tsr_view_narrow(&big, 0, -2, 2, &v));
    ASSERT_EQ(v.offset, INT64_C(8589934588));
    ASSERT_EQ(v.sizes[0], 2);
    ASSERT_EQ(v.sizes[1], 2);
    ASSERT_FAIL(tsr_view_t(&x, &v), TSR_ERR_RUNTIME,
                "t() expects a tensor with <= 2 dimensions, but self is 3D");
    ASSERT_FAIL(tsr_view_permute(&x, A(0, 1), 2, &v), TSR_ERR_RUNTIME,
                "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                "length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to "
                "len(dims) = 2");
    ASSERT_FAIL(tsr_view_permute(&x, A(0, 1, 1), 3, &v), TSR_ERR_RUNTIME,
                "permute(): duplicate dims are not allowed.");
    ASSERT_FAIL(tsr_view_view(&x, A(5, 5), 2, &v), TSR_ERR_RUNTIME,
                "shape '[5, 5]' is invalid for input of size 24");
    ASSERT_FAIL(tsr_view_view(&x, A(-1, -1), 2, &v), TSR_ERR_RUNTIME,
                "only one dimension can be inferred");
    ASSERT_FAIL(tsr_view_view(&x, A(-2, 12), 2, &v), TSR_ERR_RUNTIME, "invalid shape dimension -2");
    tsr_geometry t;
    ASSERT_OK(tsr_view_transpose(&x, 0, 2, &t));
    ASSERT_FAIL(tsr_view_view(&t, A(24), 1, &v), TSR_ERR_RUNTIME,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    bool copied = false;
    ASSERT_OK(tsr_view_reshape(&t, A(24), 1, &v, &copied));
    ASSERT_TRUE(copied);
    expect(&v, 1, A(24), A(1), 0);
    ASSERT_OK(tsr_view_reshape(&x, A(4, 6), 2, &v, &copied));
    ASSERT_FALSE(copied);
    ASSERT_FAIL(tsr_view_as_strided(&x, 2, A(2, 2), A(1, 2), 3, 5, 4, &v), TSR_ERR_RUNTIME,
                "setStorage: sizes [2, 2], strides [1, 2], storage offset 3, and itemsize 4 "
                "requiring a storage size of 28 are out of bounds for storage of size 20");
    ASSERT_FAIL(tsr_view_as_strided(&x, 1, A(2), A(-1), 3, 24, 4, &v), TSR_ERR_RUNTIME,
                "as_strided: Negative strides are not supported at the moment, got strides: [-1]");
    /* Zero strides fit the storage; the element count must fit int64
     * (PyTorch 1.13: t.as_strided((2**62, 5), (0, 0)) on one float64). */
    ASSERT_FAIL(tsr_view_as_strided(&x, 2, A(INT64_C(1) << 62, 5), A(0, 0), 0, 1, 8, &v),
                TSR_ERR_RUNTIME, "numel: integer multiplication overflow");
    ASSERT_FAIL(tsr_view_as_strided(&x, 1, A(2), A(1), -1, 24, 4, &v), TSR_ERR_RUNTIME,
                "Tensor: invalid storage offset -1");
    /* failures leave the output untouched */
    expect(&v, 2, A(4, 6), A(6, 1), 0);
    /* hostile geometry: huge strides must not overflow silently */
    tsr_geometry h = {.ndim = 2, .sizes = {3, 4}, .strides = {INT64_MAX / 2, 1}};
    int64_t span;
    ASSERT_EQ(tsr_geometry_storage_span(&h, &span), TSR_ERR_OVERFLOW);
    ASSERT_FAIL(tsr_view_view(&h, A(12), 1, &v), TSR_ERR_RUNTIME,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    h.ndim = 26;
    ASSERT_EQ(tsr_view_transpose(&h, 0, 1, &v), TSR_ERR_INVALID_ARGUMENT);
}

static void counts(void)
{
    int64_t n;
    ASSERT_OK(tsr_numel(3, A(2, 3, 4), &n));
    ASSERT_EQ(n, 24);
    ASSERT_OK(tsr_numel(0, NULL, &n));
    ASSERT_EQ(n, 1);
    ASSERT_OK(tsr_numel(3, A(INT64_MAX, INT64_MAX, 0), &n));
    ASSERT_EQ(n, 0);
    ASSERT_EQ(tsr_numel(2, A(INT64_MAX, 2), &n), TSR_ERR_OVERFLOW);
    ASSERT_EQ(tsr_numel(2, A(3, -1), &n), TSR_ERR_RUNTIME);
    ASSERT_OK(tsr_nbytes(2, A(3, 5), TSR_COMPLEX128, &n));
    ASSERT_EQ(n, 240);
    ASSERT_EQ(tsr_nbytes(1, A(INT64_MAX / 8), TSR_COMPLEX128, &n), TSR_ERR_OVERFLOW);
    tsr_geometry x = base(), v;
    ASSERT_OK(tsr_geometry_storage_span(&x, &n));
    ASSERT_EQ(n, 24);
    ASSERT_OK(tsr_view_select(&x, 2, 3, &v));
    ASSERT_OK(tsr_geometry_storage_span(&v, &n));
    ASSERT_EQ(n, 24);
    ASSERT_OK(tsr_view_slice(&x, 2, true, 1, true, 1, 1, &v));
    ASSERT_OK(tsr_geometry_storage_span(&v, &n));
    ASSERT_EQ(n, 0);
}

static void broadcasting(void)
{
    int nd;
    int64_t out[TSR_MAX_DIMS];
    ASSERT_OK(tsr_broadcast_shapes(2, A(3, 1), 1, A(4), &nd, out));
    ASSERT_EQ(nd, 2);
    ASSERT_EQ(out[0], 3);
    ASSERT_EQ(out[1], 4);
    ASSERT_OK(tsr_broadcast_shapes(3, A(1, 0, 1), 2, A(1, 5), &nd, out));
    ASSERT_EQ(nd, 3);
    ASSERT_EQ(out[1], 0);
    ASSERT_EQ(out[2], 5);
    ASSERT_OK(tsr_broadcast_shapes(0, NULL, 2, A(2, 3), &nd, out));
    ASSERT_EQ(nd, 2);
    ASSERT_FAIL(tsr_broadcast_shapes(1, A(3), 2, A(2, 2), &nd, out), TSR_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                "dimension 1");
    int d;
    ASSERT_OK(tsr_wrap_dim(-1, 0, &d));
    ASSERT_EQ(d, 0);
    ASSERT_FAIL(tsr_wrap_dim(1, 0, &d), TSR_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

int main(void)
{
    views();
    expand();
    errors();
    counts();
    broadcasting();
    TEST_DONE();
}
