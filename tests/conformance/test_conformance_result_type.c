/* Conformance: tsr_result_type against torch.result_type (data/result_type.txt):
 * 1-4 operands (tensors, 0-dim tensors, Python scalars) under the default dtypes
 * float32, float64, float16 and bfloat16. Each row runs three ways: with the default
 * passed explicitly, with it set process-wide, and (operand by operand) through
 * tsr_operand_parse, whose reading of the text is checked too. */
#include <string.h>

#include "support_table.h"
#include "test.h"

#define MAX_OPERANDS 8

/* What tsr_operand_parse must make of an operand text, worked out from the text. */
static bool expected_operand(const char *text, tsr_operand *out)
{
    const char *bracket = strchr(text, '[');
    if (bracket) {
        char name[64];
        size_t n = (size_t)(bracket - text);
        if (n >= sizeof(name))
            return false;
        memcpy(name, text, n);
        name[n] = '\0';
        out->kind = strcmp(bracket, "[]") == 0 ? TSR_OPERAND_ZERO_DIM : TSR_OPERAND_TENSOR;
        return table_dtype(name, &out->dtype);
    }
    out->kind = TSR_OPERAND_SCALAR;
    size_t len = strlen(text);
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0 || strcmp(text, "True") == 0 ||
        strcmp(text, "False") == 0)
        out->dtype = TSR_BOOL;
    else if (len > 0 && text[len - 1] == 'j')
        out->dtype = TSR_COMPLEX128;
    else if (strpbrk(text, ".eEn")) /* 2.5, 1e3, inf, nan */
        out->dtype = TSR_FLOAT64;
    else
        out->dtype = TSR_INT64;
    return true;
}

int main(void)
{
    table *t = table_load("data/result_type.txt");
    int operands_checked = 0;
    TABLE_FOREACH(t, row)
    {
        if (!table_fields(row, 3, 2 + MAX_OPERANDS))
            continue;
        tsr_dtype def;
        if (!table_dtype(row->fields[0], &def))
            continue;
        size_t n = (size_t)row->nfields - 2;
        const char *expected = row->fields[row->nfields - 1];
        tsr_operand ops[MAX_OPERANDS];
        bool parsed = true;
        for (size_t i = 0; i < n && parsed; i++) {
            const char *text = row->fields[i + 1];
            tsr_operand want;
            if (!expected_operand(text, &want)) {
                parsed = false;
                break;
            }
            if (tsr_operand_parse(text, &ops[i]) != TSR_OK) {
                table_fail("tsr_operand_parse(\"%s\") failed: %s", text, tsr_last_error());
                parsed = false;
            } else if (ops[i].kind != want.kind || ops[i].dtype != want.dtype) {
                table_fail(
                    "tsr_operand_parse(\"%s\") gave kind %d dtype %s; expected kind %d dtype %s",
                    text, (int)ops[i].kind, tsr_dtype_name(ops[i].dtype), (int)want.kind,
                    tsr_dtype_name(want.dtype));
                parsed = false;
            }
            operands_checked++;
        }
        if (!parsed)
            continue;

        tsr_dtype want = TSR_DTYPE_COUNT;
        if (!table_error_message(expected) && !table_dtype(expected, &want))
            continue;

        tsr_dtype got = TSR_DTYPE_COUNT;
        if (table_expect(tsr_result_type_with_default(ops, n, def, &got), expected,
                         TSR_ERR_RUNTIME) &&
            got != want)
            table_fail("tsr_result_type_with_default gave %s", tsr_dtype_name(got));
        else if (table_error_message(expected) && got != TSR_DTYPE_COUNT)
            table_fail("a failing tsr_result_type_with_default wrote its out-parameter");

        if (tsr_set_default_dtype(def) != TSR_OK) {
            table_fail("tsr_set_default_dtype(%s) failed: %s", row->fields[0], tsr_last_error());
            continue;
        }
        got = TSR_DTYPE_COUNT;
        if (table_expect(tsr_result_type(ops, n, &got), expected, TSR_ERR_RUNTIME) && got != want)
            table_fail("tsr_result_type under default %s gave %s", row->fields[0],
                       tsr_dtype_name(got));
        ASSERT_OK(tsr_set_default_dtype(TSR_FLOAT32));
    }
    printf("%d operand texts parsed\n", operands_checked);
    ASSERT_EQ(table_finish(t), 0);
    ASSERT_EQ(tsr_get_default_dtype(), TSR_FLOAT32);
    table_free(t);
    TEST_DONE();
}
