/* tsr_elementwise and the operation lookup: every computing row of the
 * op table by name and number, and one call through the entry point per
 * arity and output form, against known answers (the conformance tables
 * check the operations themselves). */
#include <math.h>

#include "test.h"

static tsr_tensor *floats(int64_t n, const float *values)
{
    tsr_tensor_options o = {0};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_from_data(NULL, 1, &n, TSR_FLOAT32, values, &o, &t));
    return t;
}

static void read_back(const tsr_tensor *t, void *buf, size_t n)
{
    ASSERT_OK(tsr_tensor_copy_to_host(t, buf, n));
}

int main(void)
{
    tsr_op op = 0, add = 0;
    ASSERT_OK(tsr_op_from_name("isnan", &op));
    ASSERT_EQ(tsr_op_arity(op), 1);
    ASSERT_STREQ(tsr_op_name(op), "isnan");
    ASSERT_OK(tsr_op_from_name("add", &add));
    ASSERT_EQ(add, 3); /* the wire number, stable */
    ASSERT_EQ(tsr_op_arity(add), 2);
    ASSERT_FAIL(tsr_op_from_name("copy", &op), TSR_ERR_INVALID_ARGUMENT,
                "no elementwise operation is named \"copy\"");
    ASSERT_TRUE(tsr_op_name(0) == NULL && tsr_op_name(1) == NULL && tsr_op_name(100000) == NULL);
    ASSERT_EQ(tsr_op_arity(2), -1);

    const float xv[3] = {NAN, 1.5f, -2.0f}, yv[3] = {1.0f, 2.0f, 3.0f};
    tsr_tensor *x = floats(3, xv), *y = floats(3, yv), *r = NULL;
    const tsr_tensor *one[1] = {x}, *two[2] = {x, y};

    ASSERT_OK(tsr_op_from_name("isnan", &op));
    ASSERT_OK(tsr_elementwise(op, one, 1, NULL, &r));
    unsigned char b[3];
    ASSERT_EQ(tsr_tensor_dtype(r), TSR_BOOL);
    read_back(r, b, sizeof b);
    ASSERT_TRUE(b[0] == 1 && b[1] == 0 && b[2] == 0);
    tsr_tensor_release(r);
    r = NULL;
    ASSERT_FAIL(tsr_elementwise(op, two, 2, NULL, &r), TSR_ERR_INVALID_ARGUMENT,
                "isnan takes 1 input tensors, not 2");

    /* add with alpha 1, into an out= tensor */
    float sum[3];
    tsr_tensor *out = floats(3, yv);
    ASSERT_OK(tsr_elementwise(add, two, 2, out, NULL));
    read_back(out, sum, sizeof sum);
    ASSERT_TRUE(isnan(sum[0]) && sum[1] == 3.5f && sum[2] == 1.0f);

    /* a comparison, its bool result */
    ASSERT_OK(tsr_op_from_name("lt", &op));
    ASSERT_OK(tsr_elementwise(op, two, 2, NULL, &r));
    read_back(r, b, sizeof b);
    ASSERT_TRUE(b[0] == 0 && b[1] == 1 && b[2] == 1);
    tsr_tensor_release(r);

    tsr_tensor_release(out);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    TEST_DONE();
}
