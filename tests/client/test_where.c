/* tsr_where's answers where PyTorch 1.13 has none to copy or where
 * Tessera answers otherwise on purpose, and where through the generic
 * entry point (the conformance table data/where.txt holds PyTorch's own
 * cases): an out= of another dtype than the result's, which 1.13's cpu
 * loop meets with an internal assertion; a wrong input count; a
 * condition that is not bool. */
#include <math.h>
#include <string.h>

#include "test.h"

static tsr_tensor *of(tsr_dtype dtype, int64_t n, const void *values)
{
    tsr_tensor_options o = {0};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, 1, &n, dtype, values, &o, &t));
    return t;
}

int main(void)
{
    const unsigned char mask[4] = {1, 0, 2, 0};
    const float xv[4] = {1.5f, NAN, -0.0f, 4.0f};
    const int32_t yv[4] = {-1, -2, -3, -4};
    tsr_tensor *cond = of(TSR_BOOL, 4, mask), *x = of(TSR_FLOAT32, 4, xv),
               *y = of(TSR_INT32, 4, yv), *bytes = of(TSR_UINT8, 4, mask);

    /* through tsr_elementwise: (cond, a, b), float32 from float32 and int32 */
    tsr_op op = 0;
    ASSERT_OK(tsr_op_from_name("where", &op));
    ASSERT_EQ(op, 48); /* the wire number, stable */
    ASSERT_EQ(tsr_op_arity(op), 3);
    const tsr_tensor *three[3] = {cond, x, y}, *two[2] = {cond, x};
    tsr_tensor *r = NULL;
    ASSERT_OK(tsr_elementwise(op, three, 3, NULL, &r));
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_FLOAT32);
    float got[4];
    ASSERT_OK(tsr_tensor_copy_to_host(r, got, sizeof got));
    ASSERT_TRUE(got[0] == 1.5f && got[1] == -2.0f && got[2] == 0.0f && signbit(got[2]) &&
                got[3] == -4.0f);
    tsr_tensor_release(r);
    r = NULL;
    ASSERT_FAIL(tsr_elementwise(op, two, 2, NULL, &r), TSR_ERR_INVALID_ARGUMENT,
                "where takes 3 input tensors, not 2");

    /* a uint8 condition: nonzero is true (2 included) */
    ASSERT_OK(tsr_where(bytes, x, y, &r));
    ASSERT_OK(tsr_tensor_copy_to_host(r, got, sizeof got));
    ASSERT_TRUE(got[0] == 1.5f && got[1] == -2.0f && signbit(got[2]) && got[3] == -4.0f);
    tsr_tensor_release(r);
    r = NULL;

    /* the condition must be bool (or uint8) */
    ASSERT_FAIL(tsr_where(y, x, y, &r), TSR_ERR_RUNTIME,
                "where expected condition to be a boolean tensor, but got a tensor with dtype Int");
    ASSERT_FAIL(tsr_where_scalars(x, tsr_scalar_float(1.0), tsr_scalar_float(0.0), &r),
                TSR_ERR_RUNTIME,
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                "Float");

    /* out= must have the result's dtype: PyTorch 1.13 trips an internal
     * assertion there, Tessera names the dtypes */
    const double zeros[4] = {0};
    tsr_tensor *wide = of(TSR_FLOAT64, 4, zeros);
    ASSERT_FAIL(tsr_where_out(cond, x, y, wide), TSR_ERR_RUNTIME,
                "Found dtype Double but expected Float");
    double untouched[4];
    ASSERT_OK(tsr_tensor_copy_to_host(wide, untouched, sizeof untouched));
    ASSERT_TRUE(memcmp(untouched, zeros, sizeof zeros) == 0);

    /* Python numbers: both (int64 from two ints), one out of its dtype's range */
    ASSERT_OK(tsr_where_scalars(cond, tsr_scalar_int(7), tsr_scalar_int(-7), &r));
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_INT64);
    int64_t iv[4];
    ASSERT_OK(tsr_tensor_copy_to_host(r, iv, sizeof iv));
    ASSERT_TRUE(iv[0] == 7 && iv[1] == -7 && iv[2] == 7 && iv[3] == -7);
    tsr_tensor_release(r);
    r = NULL;
    ASSERT_FAIL(tsr_where_scalar(cond, y, tsr_scalar_int(INT64_C(1) << 40), &r), TSR_ERR_RUNTIME,
                "value cannot be converted to type int without overflow");
    ASSERT_FAIL(tsr_where_scalar(cond, NULL, tsr_scalar_int(1), &r), TSR_ERR_INVALID_ARGUMENT,
                "tensor arguments must not be NULL");

    tsr_tensor_release(wide);
    tsr_tensor_release(bytes);
    tsr_tensor_release(cond);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    TEST_DONE();
}
