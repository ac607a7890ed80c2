/* Unit tests of promotion, result_type, the casting rules and the default
 * dtype: the worked examples of PyTorch's documentation and of the
 * specification (the full tables are in the conformance suite). */
#include "test.h"

static tsr_dtype dt(const char *name)
{
    tsr_dtype d = TSR_DTYPE_COUNT;
    if (tsr_dtype_from_name(name, &d) != TSR_OK)
        fprintf(stderr, "bad dtype name in test: %s\n", name);
    return d;
}

static void promote(void)
{
    static const char *const ok[][3] = {
        {"uint8", "int8", "int16"},
        {"bool", "uint8", "uint8"},
        {"bool", "int8", "int8"},
        {"int64", "float16", "float16"},
        {"float", "int", "float"},
        {"int", "uint8", "int32"},
        {"float16", "bfloat16", "float32"},
        {"bfloat16", "complex32", "complex64"},
        {"complex32", "float64", "complex128"},
        {"float32", "complex32", "complex64"},
        {"uint16", "float32", "float32"},
        {"float16", "uint64", "float16"},
        {"uint32", "uint32", "uint32"},
        {"float8_e5m2", "float8_e5m2", "float8_e5m2"},
        {"float4_e2m1fn_x2", "float4_e2m1fn_x2", "float4_e2m1fn_x2"},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        tsr_dtype r = TSR_DTYPE_COUNT;
        ASSERT_OK(tsr_promote_types(dt(ok[i][0]), dt(ok[i][1]), &r));
        ASSERT_EQ(r, dt(ok[i][2]));
        ASSERT_OK(tsr_promote_types(dt(ok[i][1]), dt(ok[i][0]), &r));
        ASSERT_EQ(r, dt(ok[i][2]));
    }
    tsr_dtype r = TSR_INT8;
    ASSERT_FAIL(tsr_promote_types(TSR_FLOAT8_E4M3FN, TSR_FLOAT32, &r), TSR_ERR_RUNTIME,
                "Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn "
                "and Float");
    ASSERT_FAIL(tsr_promote_types(TSR_BFLOAT16, TSR_FLOAT8_E4M3FN, &r), TSR_ERR_RUNTIME,
                "Promotion for Float8 Types is not supported, attempted to promote BFloat16 and "
                "Float8_e4m3fn");
    ASSERT_FAIL(tsr_promote_types(TSR_UINT16, TSR_INT64, &r), TSR_ERR_RUNTIME,
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                "UInt16 and Long");
    ASSERT_FAIL(tsr_promote_types(TSR_UINT16, TSR_COMPLEX64, &r), TSR_ERR_RUNTIME,
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                "UInt16 and ComplexFloat");
    ASSERT_FAIL(tsr_promote_types(TSR_FLOAT4_E2M1FN_X2, TSR_FLOAT32, &r), TSR_ERR_RUNTIME,
                "Promotion for shell dtypes is not defined, attempted to promote Float4_e2m1fn_x2 "
                "and Float");
    ASSERT_EQ(r, TSR_INT8);
    ASSERT_EQ(tsr_promote_types(TSR_DTYPE_COUNT, TSR_INT8, &r), TSR_ERR_INVALID_ARGUMENT);
}

static void can_cast(void)
{
    ASSERT_TRUE(tsr_can_cast(TSR_FLOAT64, TSR_FLOAT32));
    ASSERT_FALSE(tsr_can_cast(TSR_FLOAT32, TSR_INT32));
    ASSERT_FALSE(tsr_can_cast(TSR_INT64, TSR_BOOL));
    ASSERT_TRUE(tsr_can_cast(TSR_BOOL, TSR_UINT8));
    ASSERT_FALSE(tsr_can_cast(TSR_COMPLEX64, TSR_FLOAT64));
    ASSERT_TRUE(tsr_can_cast(TSR_INT8, TSR_COMPLEX32));
    ASSERT_FALSE(tsr_can_cast(TSR_FLOAT8_E4M3FN, TSR_UINT16));
    ASSERT_TRUE(tsr_can_cast(TSR_UINT64, TSR_FLOAT8_E5M2));

    /* OneFlow's documented examples: "a *= b" casts b's dtype into a's */
    static const struct {
        tsr_dtype out, in;
        bool allowed;
    } oneflow[] = {
        {TSR_FLOAT32, TSR_FLOAT32, true}, {TSR_FLOAT32, TSR_INT32, true},
        {TSR_FLOAT32, TSR_UINT8, true},   {TSR_FLOAT32, TSR_BOOL, true},
        {TSR_INT32, TSR_UINT8, true},     {TSR_FLOAT32, TSR_FLOAT64, false},
        {TSR_INT32, TSR_FLOAT32, false},  {TSR_INT32, TSR_INT64, false},
        {TSR_UINT8, TSR_INT32, false},    {TSR_BOOL, TSR_INT32, false},
        {TSR_BOOL, TSR_UINT8, false},
    };
    for (size_t i = 0; i < sizeof(oneflow) / sizeof(oneflow[0]); i++)
        ASSERT_EQ(tsr_can_cast_policy(oneflow[i].in, oneflow[i].out, TSR_CAST_ONEFLOW),
                  oneflow[i].allowed);

    /* NumPy spot checks (the conformance suite has numpy's full table) */
    ASSERT_TRUE(tsr_can_cast_policy(TSR_INT64, TSR_FLOAT64, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_INT32, TSR_FLOAT32, TSR_CAST_SAFE));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_INT8, TSR_FLOAT16, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_INT8, TSR_UINT8, TSR_CAST_SAME_KIND));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_UINT8, TSR_INT8, TSR_CAST_SAME_KIND));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_FLOAT64, TSR_FLOAT16, TSR_CAST_SAME_KIND));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_FLOAT16, TSR_INT64, TSR_CAST_SAME_KIND));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_INT32, TSR_INT64, TSR_CAST_NO));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_COMPLEX128, TSR_BOOL, TSR_CAST_UNSAFE));
    /* extensions beyond NumPy's dtypes: every value must survive */
    ASSERT_TRUE(tsr_can_cast_policy(TSR_FLOAT8_E4M3FN, TSR_FLOAT16, TSR_CAST_SAFE));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_FLOAT8_E5M2, TSR_BFLOAT16, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_FLOAT8_E8M0FNU, TSR_FLOAT16, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_FLOAT16, TSR_BFLOAT16, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_BFLOAT16, TSR_FLOAT16, TSR_CAST_SAFE));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_BFLOAT16, TSR_COMPLEX64, TSR_CAST_SAFE));
    ASSERT_TRUE(tsr_can_cast_policy(TSR_UINT8, TSR_BFLOAT16, TSR_CAST_SAFE));
    ASSERT_FALSE(tsr_can_cast_policy(TSR_FLOAT8_E5M2, TSR_FLOAT8_E5M2FNUZ, TSR_CAST_SAFE));

    tsr_cast_policy p;
    ASSERT_OK(tsr_cast_policy_from_name("same_kind", &p));
    ASSERT_EQ(p, TSR_CAST_SAME_KIND);
    ASSERT_EQ(tsr_cast_policy_from_name("sometimes", &p), TSR_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < TSR_CAST_POLICY_COUNT; i++) {
        ASSERT_OK(tsr_cast_policy_from_name(tsr_cast_policy_name((tsr_cast_policy)i), &p));
        ASSERT_EQ(p, i);
    }
}

static void output_cast(void)
{
    ASSERT_FAIL(tsr_check_output_cast(TSR_FLOAT32, TSR_INT32, TSR_CAST_PYTORCH), TSR_ERR_RUNTIME,
                "result type Float can't be cast to the desired output type Int");
    ASSERT_FAIL(tsr_check_output_cast(TSR_INT64, TSR_BOOL, TSR_CAST_PYTORCH), TSR_ERR_RUNTIME,
                "result type Long can't be cast to the desired output type Bool");
    ASSERT_FAIL(tsr_check_output_cast(TSR_COMPLEX64, TSR_FLOAT32, TSR_CAST_PYTORCH),
                TSR_ERR_RUNTIME,
                "result type ComplexFloat can't be cast to the desired output type Float");
    ASSERT_FAIL(tsr_check_output_cast(TSR_UINT8, TSR_BOOL, TSR_CAST_PYTORCH), TSR_ERR_RUNTIME,
                "result type Byte can't be cast to the desired output type Bool");
    ASSERT_OK(tsr_check_output_cast(TSR_INT64, TSR_INT32, TSR_CAST_PYTORCH));
    ASSERT_OK(tsr_check_output_cast(TSR_FLOAT64, TSR_FLOAT16, TSR_CAST_PYTORCH));
    ASSERT_FAIL(tsr_check_output_cast(TSR_FLOAT64, TSR_FLOAT32, TSR_CAST_ONEFLOW), TSR_ERR_RUNTIME,
                "result type Double can't be cast to the desired output type Float");
}

static void default_dtype(void)
{
    ASSERT_EQ(tsr_get_default_dtype(), TSR_FLOAT32);
    ASSERT_EQ(tsr_get_default_complex_dtype(), TSR_COMPLEX64);
    ASSERT_FAIL(tsr_set_default_dtype(TSR_INT32), TSR_ERR_TYPE,
                "only floating-point types are supported as the default type");
    ASSERT_FAIL(tsr_set_default_dtype(TSR_COMPLEX64), TSR_ERR_TYPE,
                "only floating-point types are supported as the default type");
    ASSERT_EQ(tsr_set_default_dtype(TSR_FLOAT8_E4M3FN), TSR_ERR_TYPE);
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT16));
    ASSERT_EQ(tsr_get_default_complex_dtype(), TSR_COMPLEX32);
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT64));
    ASSERT_EQ(tsr_get_default_complex_dtype(), TSR_COMPLEX128);
    ASSERT_OK(tsr_set_default_dtype(TSR_BFLOAT16));
    ASSERT_EQ(tsr_get_default_complex_dtype(), TSR_COMPLEX64);
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT32));
}

/* "operand operand ... -> expected" with an optional default dtype */
static void check_result(const char *dflt, const char *const *ops, size_t n, const char *want)
{
    tsr_operand parsed[8];
    for (size_t i = 0; i < n; i++)
        ASSERT_OK(tsr_operand_parse(ops[i], &parsed[i]));
    tsr_dtype r = TSR_DTYPE_COUNT;
    ASSERT_OK(tsr_result_type_with_default(parsed, n, dt(dflt), &r));
    if (r < TSR_DTYPE_COUNT && strcmp(tsr_dtype_name(r), want) != 0)
        fprintf(stderr, "  case: %s %s%s\n", ops[0], n > 1 ? ops[1] : "", n > 2 ? " ..." : "");
    ASSERT_STREQ(tsr_dtype_name(r), want);
}

static void result_type(void)
{
    /* the worked examples of PyTorch's type promotion documentation */
    static const char *const cases[][4] = {
        {"int64[2]", "5", "int64"},
        {"int64[2]", "5.0", "float32"},
        {"int64[2]", "True", "int64"},
        {"int64[2]", "1j", "complex64"},
        {"uint8[2]", "1000", "uint8"},
        {"uint8[2]", "-1", "uint8"},
        {"bool[2]", "5", "int64"},
        {"bool[2]", "5.5", "float32"},
        {"bool[2]", "True", "bool"},
        {"bool[2]", "1j", "complex64"},
        {"float16[2]", "5.5", "float16"},
        {"bfloat16[2]", "5.5", "bfloat16"},
        {"float16[2]", "1j", "complex32"},
        {"bfloat16[2]", "1j", "complex64"},
        {"float64[2]", "1j", "complex128"},
        {"int32[2]", "int64[]", "int32"},
        {"int32[2]", "float64[]", "float64"},
        {"float16[2]", "float64[]", "float16"},
        {"float32[2]", "complex128[]", "complex64"},
        {"float16[2]", "complex128[]", "complex32"},
        {"bfloat16[2]", "complex128[]", "complex64"},
        {"int32[2]", "complex128[]", "complex128"},
        {"uint8[2]", "int8[]", "uint8"},
        {"int8[2]", "uint8[]", "int8"},
        {"bool[2]", "int8[]", "int8"},
        {"bool[2]", "float16[]", "float16"},
        {"int32[]", "int64[]", "int64"},
        {"int32[]", "5", "int32"},
        {"int32[]", "5.0", "float32"},
        {"float16[]", "5.0", "float16"},
        {"bool[]", "5", "int64"},
        {"uint8[]", "int8[]", "int16"},
        {"int8[2]", "uint8[2]", "int16"},
        {"float16[2]", "bfloat16[2]", "float32"},
        {"int64[0]", "float64[]", "float64"},
        {"5", "5", "int64"},
        {"5", "5.0", "float32"},
        {"True", "False", "bool"},
        {"5", "1j", "complex64"},
        {"complex64[]", "float64[2]", "complex128"},
        {"complex32[]", "float64[2]", "complex128"},
        {"complex32[2]", "float32[2]", "complex64"},
        {"complex32[2]", "float64[]", "complex32"},
        {"complex64[2]", "complex128[]", "complex64"},
        {"complex128[2]", "complex64[]", "complex128"},
        {"float32[2]", "bool[]", "float32"},
        {"int16[2]", "bool[]", "int16"},
        {"float16[2]", "int64[]", "float16"},
        {"uint8[2]", "float64[]", "float64"},
        {"uint16[2]", "5", "uint16"},
        {"uint16[2]", "1.5", "float32"},
        {"float8_e4m3fn[2]", "2.0", "float8_e4m3fn"},
        {"float8_e4m3fn[2]", "float32[]", "float8_e4m3fn"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_result("float32", cases[i], 2, cases[i][2]);
    static const char *const f64[][3] = {
        {"int64[2]", "5.0", "float64"},    {"int32[2]", "1j", "complex128"},
        {"float32[2]", "5.0", "float32"},  {"5", "1j", "complex128"},
        {"float16[2]", "1j", "complex32"},
    };
    for (size_t i = 0; i < sizeof(f64) / sizeof(f64[0]); i++)
        check_result("float64", f64[i], 2, f64[i][2]);
    static const char *const f16c[] = {"int32[2]", "1j"};
    check_result("float16", f16c, 2, "complex32");
    check_result("bfloat16", f16c, 2, "complex64");
    static const char *const bf[] = {"int32[2]", "1.5"};
    check_result("bfloat16", bf, 2, "bfloat16");
    /* the 0-dim float64 and the complex scalar combine first (complex128),
     * then beat the dimensioned int16 by category */
    static const char *const many[] = {"int8[3]", "uint8[3]", "float64[]", "1j"};
    check_result("float32", many, 4, "complex128");
    static const char *const one[] = {"2.5"};
    check_result("float64", one, 1, "float64");

    tsr_operand ops[2];
    tsr_dtype r = TSR_INT8;
    ASSERT_OK(tsr_operand_parse("uint16[2]", &ops[0]));
    ASSERT_OK(tsr_operand_parse("int16[2]", &ops[1]));
    ASSERT_FAIL(tsr_result_type(ops, 2, &r), TSR_ERR_RUNTIME,
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                "UInt16 and Short");
    ASSERT_OK(tsr_operand_parse("float8_e4m3fn[2]", &ops[0]));
    ASSERT_OK(tsr_operand_parse("1j", &ops[1]));
    ASSERT_FAIL(tsr_result_type(ops, 2, &r), TSR_ERR_RUNTIME,
                "Unknown Complex ScalarType for Float8_e4m3fn");
    ASSERT_OK(tsr_operand_parse("int64[2]", &ops[0]));
    ASSERT_OK(tsr_operand_parse("float8_e5m2[]", &ops[1]));
    ASSERT_FAIL(tsr_result_type(ops, 2, &r), TSR_ERR_RUNTIME,
                "Promotion for Float8 Types is not supported, attempted to promote Long and "
                "Float8_e5m2");
    ASSERT_EQ(r, TSR_INT8);
    ASSERT_EQ(tsr_result_type(ops, 0, &r), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(tsr_result_type(NULL, 2, &r), TSR_ERR_INVALID_ARGUMENT);
    /* the process-wide default is what tsr_result_type reads */
    ASSERT_OK(tsr_operand_parse("5.0", &ops[0]));
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT64));
    ASSERT_OK(tsr_result_type(ops, 1, &r));
    ASSERT_EQ(r, TSR_FLOAT64);
    ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT32));
}

int main(void)
{
    promote();
    can_cast();
    output_cast();
    default_dtype();
    result_type();
    TEST_DONE();
}
