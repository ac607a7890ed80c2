/* Unit tests of the dtype table: names, aliases, legacy names, sizes and
 * predicates, against the values PyTorch 2.9 documents. */
#include "test.h"

static void names(void)
{
    static const struct {
        const char *name;
        tsr_dtype d;
    } cases[] = {
        {"float32", TSR_FLOAT32},
        {"float", TSR_FLOAT32},
        {"torch.float", TSR_FLOAT32},
        {"torch.float32", TSR_FLOAT32},
        {"double", TSR_FLOAT64},
        {"half", TSR_FLOAT16},
        {"torch.half", TSR_FLOAT16},
        {"cfloat", TSR_COMPLEX64},
        {"cdouble", TSR_COMPLEX128},
        {"chalf", TSR_COMPLEX32},
        {"short", TSR_INT16},
        {"int", TSR_INT32},
        {"long", TSR_INT64},
        {"bool", TSR_BOOL},
        {"bfloat16", TSR_BFLOAT16},
        {"uint16", TSR_UINT16},
        {"float8_e4m3fn", TSR_FLOAT8_E4M3FN},
        {"torch.float8_e8m0fnu", TSR_FLOAT8_E8M0FNU},
        {"float4_e2m1fn_x2", TSR_FLOAT4_E2M1FN_X2},
        {"FloatTensor", TSR_FLOAT32},
        {"torch.FloatTensor", TSR_FLOAT32},
        {"torch.cuda.ByteTensor", TSR_UINT8},
        {"torch.sparse.DoubleTensor", TSR_FLOAT64},
        {"torch.cuda.sparse.LongTensor", TSR_INT64},
        {"torch.BoolTensor", TSR_BOOL},
        {"torch.ComplexFloatTensor", TSR_COMPLEX64},
        {"torch.CharTensor", TSR_INT8},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tsr_dtype d = TSR_DTYPE_COUNT;
        ASSERT_OK(tsr_dtype_from_name(cases[i].name, &d));
        ASSERT_EQ(d, cases[i].d);
    }
    static const char *const bad[] = {"Float",
                                      "float33",
                                      "torch.",
                                      "",
                                      "byte",
                                      "char",
                                      "torch.torch.float",
                                      "FloatTensors",
                                      "Tensor",
                                      "qint8",
                                      "torch.cuda.Tensor",
                                      " float"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tsr_dtype d = TSR_INT8;
        ASSERT_EQ(tsr_dtype_from_name(bad[i], &d), TSR_ERR_TYPE);
        ASSERT_EQ(d, TSR_INT8); /* untouched on failure */
    }
    tsr_dtype d;
    ASSERT_FAIL(tsr_dtype_from_name("float33", &d), TSR_ERR_TYPE, "invalid dtype name: 'float33'");
    ASSERT_EQ(tsr_dtype_from_name(NULL, &d), TSR_ERR_INVALID_ARGUMENT);
    /* every canonical name and alias maps back to its dtype */
    for (int i = 0; i < TSR_DTYPE_COUNT; i++) {
        ASSERT_OK(tsr_dtype_from_name(tsr_dtype_name((tsr_dtype)i), &d));
        ASSERT_EQ(d, i);
        if (tsr_dtype_alias((tsr_dtype)i)) {
            ASSERT_OK(tsr_dtype_from_name(tsr_dtype_alias((tsr_dtype)i), &d));
            ASSERT_EQ(d, i);
        }
    }
}

static void properties(void)
{
    static const struct {
        tsr_dtype d;
        const char *msg;
        size_t size;
        bool fp, cx, sg, shell;
    } rows[] = {
        {TSR_BOOL, "Bool", 1, 0, 0, 0, 0},
        {TSR_UINT8, "Byte", 1, 0, 0, 0, 0},
        {TSR_INT8, "Char", 1, 0, 0, 1, 0},
        {TSR_UINT16, "UInt16", 2, 0, 0, 0, 1},
        {TSR_INT16, "Short", 2, 0, 0, 1, 0},
        {TSR_UINT32, "UInt32", 4, 0, 0, 0, 1},
        {TSR_INT32, "Int", 4, 0, 0, 1, 0},
        {TSR_UINT64, "UInt64", 8, 0, 0, 0, 1},
        {TSR_INT64, "Long", 8, 0, 0, 1, 0},
        {TSR_FLOAT16, "Half", 2, 1, 0, 1, 0},
        {TSR_BFLOAT16, "BFloat16", 2, 1, 0, 1, 0},
        {TSR_FLOAT32, "Float", 4, 1, 0, 1, 0},
        {TSR_FLOAT64, "Double", 8, 1, 0, 1, 0},
        {TSR_COMPLEX32, "ComplexHalf", 4, 0, 1, 1, 0},
        {TSR_COMPLEX64, "ComplexFloat", 8, 0, 1, 1, 0},
        {TSR_COMPLEX128, "ComplexDouble", 16, 0, 1, 1, 0},
        {TSR_FLOAT8_E4M3FN, "Float8_e4m3fn", 1, 1, 0, 1, 1},
        {TSR_FLOAT8_E5M2, "Float8_e5m2", 1, 1, 0, 1, 1},
        {TSR_FLOAT8_E4M3FNUZ, "Float8_e4m3fnuz", 1, 1, 0, 1, 1},
        {TSR_FLOAT8_E5M2FNUZ, "Float8_e5m2fnuz", 1, 1, 0, 1, 1},
        {TSR_FLOAT8_E8M0FNU, "Float8_e8m0fnu", 1, 1, 0, 0, 1},
        {TSR_FLOAT4_E2M1FN_X2, "Float4_e2m1fn_x2", 1, 1, 0, 1, 1},
    };
    ASSERT_EQ(sizeof(rows) / sizeof(rows[0]), TSR_DTYPE_COUNT);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        tsr_dtype d = rows[i].d;
        ASSERT_STREQ(tsr_dtype_message_name(d), rows[i].msg);
        ASSERT_EQ(tsr_dtype_itemsize(d), rows[i].size);
        ASSERT_EQ(tsr_dtype_is_floating_point(d), rows[i].fp);
        ASSERT_EQ(tsr_dtype_is_complex(d), rows[i].cx);
        ASSERT_EQ(tsr_dtype_is_signed(d), rows[i].sg);
        ASSERT_EQ(tsr_dtype_is_shell(d), rows[i].shell);
    }
    ASSERT_FALSE(tsr_dtype_is_valid(TSR_DTYPE_COUNT));
    ASSERT_TRUE(tsr_dtype_name(TSR_DTYPE_COUNT) == NULL);
    ASSERT_EQ(tsr_dtype_itemsize((tsr_dtype)-1), 0);
    ASSERT_STREQ(tsr_dtype_abbr(TSR_BFLOAT16), "bf16");
    ASSERT_STREQ(tsr_dtype_abbr(TSR_FLOAT4_E2M1FN_X2), "f4e2m1fnx2");
}

static void complex_partners(void)
{
    tsr_dtype d;
    ASSERT_EQ(tsr_dtype_to_real(TSR_COMPLEX32), TSR_FLOAT16);
    ASSERT_EQ(tsr_dtype_to_real(TSR_COMPLEX128), TSR_FLOAT64);
    ASSERT_EQ(tsr_dtype_to_real(TSR_INT8), TSR_INT8);
    ASSERT_OK(tsr_dtype_to_complex(TSR_BFLOAT16, &d));
    ASSERT_EQ(d, TSR_COMPLEX64);
    ASSERT_OK(tsr_dtype_to_complex(TSR_FLOAT16, &d));
    ASSERT_EQ(d, TSR_COMPLEX32);
    ASSERT_FAIL(tsr_dtype_to_complex(TSR_INT32, &d), TSR_ERR_RUNTIME,
                "Unknown Complex ScalarType for Int");
    ASSERT_FAIL(tsr_dtype_to_complex(TSR_FLOAT8_E5M2, &d), TSR_ERR_RUNTIME,
                "Unknown Complex ScalarType for Float8_e5m2");
}

static void legacy_names(void)
{
    char buf[64];
    tsr_tensor_type_name(TSR_FLOAT32, TSR_DEVICE_CPU, false, buf, sizeof(buf));
    ASSERT_STREQ(buf, "torch.FloatTensor");
    tsr_tensor_type_name(TSR_UINT8, TSR_DEVICE_CUDA, false, buf, sizeof(buf));
    ASSERT_STREQ(buf, "torch.cuda.ByteTensor");
    tsr_tensor_type_name(TSR_FLOAT64, TSR_DEVICE_CPU, true, buf, sizeof(buf));
    ASSERT_STREQ(buf, "torch.sparse.DoubleTensor");
    tsr_tensor_type_name(TSR_INT64, TSR_DEVICE_OPENCL, false, buf, sizeof(buf));
    ASSERT_STREQ(buf, "torch.opencl.LongTensor");
    /* snprintf rules: the full length comes back even when cut */
    ASSERT_EQ(tsr_tensor_type_name(TSR_FLOAT32, TSR_DEVICE_CPU, false, buf, 6), 17);
    ASSERT_STREQ(buf, "torch");
}

int main(void)
{
    names();
    properties();
    complex_partners();
    legacy_names();
    TEST_DONE();
}
