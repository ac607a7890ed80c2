/* core/matmul.c: the products' shape rules on their own (the conformance
 * tables in tests/matmul hold every message against PyTorch; these pin
 * torch.matmul's choice of product and result shapes, and the fold rule's
 * stride test, without a tensor). */
#include "core/dtype.h"
#include "core/matmul.h"
#include "test.h"

static tsr_geometry geom(int ndim, const int64_t *sizes)
{
    tsr_geometry g;
    tsr_geometry_init(ndim, sizes, TSR_CONTIGUOUS_FORMAT, &g);
    return g;
}

#define SIZES(...) ((const int64_t[]){__VA_ARGS__})

static void expect_plan(int da, const int64_t *sa, int db, const int64_t *sb, tsr__matmul_path path,
                        int ndim, const int64_t *shape)
{
    tsr_geometry a = geom(da, sa), b = geom(db, sb);
    tsr__matmul_plan p;
    ASSERT_OK(tsr__matmul_plan_for(&a, &b, &p));
    ASSERT_EQ(p.path, path);
    ASSERT_EQ(p.out_ndim, ndim);
    for (int i = 0; i < ndim && i < p.out_ndim; i++)
        ASSERT_EQ(p.out_sizes[i], shape[i]);
}

int main(void)
{
    expect_plan(1, SIZES(3), 1, SIZES(3), TSR__MATMUL_DOT, 0, NULL);
    expect_plan(2, SIZES(2, 3), 1, SIZES(3), TSR__MATMUL_MV, 1, SIZES(2));
    expect_plan(1, SIZES(3), 2, SIZES(3, 4), TSR__MATMUL_ROW_MM, 1, SIZES(4));
    expect_plan(2, SIZES(2, 3), 2, SIZES(3, 4), TSR__MATMUL_MM, 2, SIZES(2, 4));
    expect_plan(3, SIZES(5, 2, 3), 2, SIZES(3, 4), TSR__MATMUL_FOLD, 3, SIZES(5, 2, 4));
    expect_plan(3, SIZES(5, 2, 3), 1, SIZES(3), TSR__MATMUL_FOLD, 2, SIZES(5, 2));
    expect_plan(1, SIZES(3), 3, SIZES(5, 3, 4), TSR__MATMUL_FOLD_T, 2, SIZES(5, 4));
    expect_plan(2, SIZES(2, 3), 4, SIZES(6, 5, 3, 4), TSR__MATMUL_FOLD_T, 4, SIZES(6, 5, 2, 4));
    expect_plan(4, SIZES(2, 1, 3, 4), 3, SIZES(5, 4, 2), TSR__MATMUL_BATCH, 4, SIZES(2, 5, 3, 2));
    expect_plan(3, SIZES(2, 3, 4), 4, SIZES(7, 1, 4, 1), TSR__MATMUL_BATCH, 4, SIZES(7, 2, 3, 1));

    /* a batch of transposed matrices over whole-matrix batch steps goes
     * to bmm, as PyTorch's should_fold decides */
    tsr_geometry t = {.ndim = 3, .sizes = {2, 4, 3}, .strides = {12, 1, 4}};
    tsr_geometry m = geom(2, SIZES(3, 5));
    tsr__matmul_plan p;
    ASSERT_OK(tsr__matmul_plan_for(&t, &m, &p));
    ASSERT_EQ(p.path, TSR__MATMUL_BATCH);
    ASSERT_EQ(p.batch_ndim, 1);

    tsr_geometry z = {.ndim = 0}, a = geom(2, SIZES(2, 3)), b = geom(2, SIZES(4, 5));
    ASSERT_FAIL(tsr__matmul_plan_for(&z, &a, &p), TSR_ERR_RUNTIME,
                "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
    tsr_geometry c = geom(3, SIZES(2, 2, 3)), d = geom(3, SIZES(3, 3, 5));
    ASSERT_FAIL(tsr__matmul_plan_for(&c, &d, &p), TSR_ERR_RUNTIME,
                "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                "dimension 0");
    ASSERT_FAIL(tsr__matmul_check_mm(&a, &b), TSR_ERR_RUNTIME,
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    ASSERT_FAIL(tsr__matmul_check_bmm(&c, &d), TSR_ERR_RUNTIME,
                "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: "
                "[3, 3].");
    ASSERT_FAIL(tsr__matmul_check_mv(&z, &a), TSR_ERR_INDEX,
                "Dimension specified as 0 but tensor has no dimensions");
    ASSERT_STREQ(tsr__dtype_cpp_name(TSR_INT64), "long int");
    ASSERT_STREQ(tsr__dtype_cpp_name(TSR_BFLOAT16), "c10::BFloat16");
    TEST_DONE();
}
