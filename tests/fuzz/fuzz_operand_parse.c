/* Fuzz target: operand texts ("int32[2,3]", "int64[]", "2.5", "1+2j") and
 * result_type over what they parse to.
 *
 * The input is up to 8 operands, one per line. Each parse must either
 * give a well-formed operand or fail with a message and leave its output
 * alone; result_type over the parsed operands must give a valid dtype or
 * fail the same way, agree with the explicit-default form, give a single
 * tensor's own dtype back, and not depend on the order of two operands. */
#include "fuzz.h"

#define MAX_OPERANDS 8

static bool parse_operand(const char *text, tsr_operand *out)
{
    tsr_operand op = {TSR_OPERAND_SCALAR, TSR_DTYPE_COUNT};
    tsr_status st = tsr_operand_parse(text, &op);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(op.kind == TSR_OPERAND_SCALAR && op.dtype == TSR_DTYPE_COUNT);
        return false;
    }
    FUZZ_CHECK(op.kind == TSR_OPERAND_TENSOR || op.kind == TSR_OPERAND_ZERO_DIM ||
               op.kind == TSR_OPERAND_SCALAR);
    FUZZ_CHECK(tsr_dtype_is_valid(op.dtype));
    if (op.kind == TSR_OPERAND_SCALAR)
        FUZZ_CHECK(op.dtype == TSR_BOOL || op.dtype == TSR_INT64 || op.dtype == TSR_FLOAT64 ||
                   op.dtype == TSR_COMPLEX128);
    *out = op;
    return true;
}

/* result_type's own contract; returns its status and writes *out on
 * success. */
static tsr_status result_type(const tsr_operand *ops, size_t n, tsr_dtype *out)
{
    tsr_dtype r = TSR_DTYPE_COUNT;
    tsr_status st = tsr_result_type(ops, n, &r);
    tsr_dtype again = TSR_DTYPE_COUNT;
    tsr_status st_again = tsr_result_type_with_default(ops, n, tsr_get_default_dtype(), &again);
    FUZZ_CHECK(st == st_again);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(r == TSR_DTYPE_COUNT);
        return st;
    }
    FUZZ_CHECK(tsr_dtype_is_valid(r) && again == r);
    *out = r;
    return st;
}

static void check_single(const tsr_operand *op)
{
    tsr_dtype r = TSR_DTYPE_COUNT;
    tsr_status st = result_type(op, 1, &r);
    if (op->kind != TSR_OPERAND_SCALAR) {
        FUZZ_CHECK(st == TSR_OK && r == op->dtype);
        return;
    }
    FUZZ_CHECK(st == TSR_OK);
    switch (tsr_dtype_category_of(op->dtype)) {
    case TSR_CATEGORY_BOOL:
        FUZZ_CHECK(r == TSR_BOOL);
        break;
    case TSR_CATEGORY_INTEGRAL:
        FUZZ_CHECK(r == TSR_INT64);
        break;
    case TSR_CATEGORY_FLOATING:
        FUZZ_CHECK(r == tsr_get_default_dtype());
        break;
    case TSR_CATEGORY_COMPLEX:
        FUZZ_CHECK(r == tsr_get_default_complex_dtype());
        break;
    }
}

static void check_pair(const tsr_operand *ops)
{
    const tsr_operand swapped[2] = {ops[1], ops[0]};
    tsr_dtype r = TSR_DTYPE_COUNT, r_swapped = TSR_DTYPE_COUNT;
    tsr_status st = result_type(ops, 2, &r);
    tsr_status st_swapped = result_type(swapped, 2, &r_swapped);
    FUZZ_CHECK(st == st_swapped && r == r_swapped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_cstring(data, size);
    tsr_operand ops[MAX_OPERANDS];
    size_t n = 0;
    char *line = text;
    for (int i = 0; i < MAX_OPERANDS && line; i++) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (parse_operand(line, &ops[n]))
            n++;
        line = next;
    }

    if (n == 1)
        check_single(&ops[0]);
    else if (n == 2)
        check_pair(ops);
    else if (n > 2) {
        tsr_dtype r;
        result_type(ops, n, &r);
    }

    /* No operands at all is an argument error, not a crash. */
    tsr_dtype r = TSR_DTYPE_COUNT;
    FUZZ_CHECK(tsr_result_type(ops, 0, &r) != TSR_OK && r == TSR_DTYPE_COUNT);
    free(text);
    return 0;
}
