/* Unit tests of the result-type operand syntax. */
#include "test.h"

static void good(const char *text, tsr_operand_kind kind, tsr_dtype dtype)
{
    tsr_operand op = {TSR_OPERAND_SCALAR, TSR_DTYPE_COUNT};
    ASSERT_OK(tsr_operand_parse(text, &op));
    if (op.kind != kind || op.dtype != dtype)
        fprintf(stderr, "  operand: '%s'\n", text);
    ASSERT_EQ(op.kind, kind);
    ASSERT_EQ(op.dtype, dtype);
}

static void bad(const char *text)
{
    tsr_operand op = {TSR_OPERAND_ZERO_DIM, TSR_INT16};
    tsr_status st = tsr_operand_parse(text, &op);
    if (st != TSR_ERR_INVALID_ARGUMENT)
        fprintf(stderr, "  operand: '%s'\n", text);
    ASSERT_EQ(st, TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(op.kind, TSR_OPERAND_ZERO_DIM);
}

int main(void)
{
    good("int32[2,3]", TSR_OPERAND_TENSOR, TSR_INT32);
    good("int32[2, 3]", TSR_OPERAND_TENSOR, TSR_INT32);
    good("torch.half[0]", TSR_OPERAND_TENSOR, TSR_FLOAT16);
    good("int64[]", TSR_OPERAND_ZERO_DIM, TSR_INT64);
    good("FloatTensor[]", TSR_OPERAND_ZERO_DIM, TSR_FLOAT32);
    good("uint16[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", TSR_OPERAND_TENSOR,
         TSR_UINT16);
    good("5", TSR_OPERAND_SCALAR, TSR_INT64);
    good("-3", TSR_OPERAND_SCALAR, TSR_INT64);
    good("+7", TSR_OPERAND_SCALAR, TSR_INT64);
    good("9223372036854775807", TSR_OPERAND_SCALAR, TSR_INT64);
    good("-9223372036854775808", TSR_OPERAND_SCALAR, TSR_INT64);
    good("00000000000000000000001", TSR_OPERAND_SCALAR, TSR_INT64);
    good("2.5", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good(".5", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("5.", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("1e3", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("-1.5E-7", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("9223372036854775808.0", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("inf", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("-Infinity", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("nan", TSR_OPERAND_SCALAR, TSR_FLOAT64);
    good("true", TSR_OPERAND_SCALAR, TSR_BOOL);
    good("False", TSR_OPERAND_SCALAR, TSR_BOOL);
    good("1+2j", TSR_OPERAND_SCALAR, TSR_COMPLEX128);
    good("2j", TSR_OPERAND_SCALAR, TSR_COMPLEX128);
    good("-1.5-0.5J", TSR_OPERAND_SCALAR, TSR_COMPLEX128);
    good("1e-3+2e+4j", TSR_OPERAND_SCALAR, TSR_COMPLEX128);
    good("inf+nanj", TSR_OPERAND_SCALAR, TSR_COMPLEX128);

    static const char *const bads[] = {
        "",
        "int32",
        "int32[",
        "int32]",
        "[2]",
        "int32[2,]",
        "int32[,2]",
        "int32[-1]",
        "int32[2]x",
        "int33[2]",
        "int32[a]",
        "int32[2 3]",
        "int32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",
        "int32[1234567890123456789]",
        "9223372036854775808",
        "-9223372036854775809",
        "1e",
        "1.2.3",
        "e5",
        ".",
        "-",
        "+",
        "j",
        "1+j",
        "1+2",
        "2jj",
        "TRUE",
        "yes",
        "0x10",
        "1_000",
        " 5",
        "5 ",
        "1+2j+3j",
        "nanx",
    };
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++)
        bad(bads[i]);
    char long_text[TSR_OPERAND_TEXT_MAX + 10];
    memset(long_text, '1', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    bad(long_text);
    tsr_operand op;
    ASSERT_FAIL(tsr_operand_parse("int33[2]", &op), TSR_ERR_INVALID_ARGUMENT,
                "invalid operand 'int33[2]': unknown dtype 'int33'");
    ASSERT_EQ(tsr_operand_parse(NULL, &op), TSR_ERR_INVALID_ARGUMENT);
    TEST_DONE();
}
