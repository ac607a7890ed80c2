/* Conformance: casting rules.
 *   data/can_cast.txt     tsr_can_cast (and the "pytorch" policy) against torch.can_cast
 *   data/cast_policy.txt  tsr_can_cast_policy: NumPy's modes against numpy.can_cast, OneFlow's
 *                         rule (seed 004) and PyTorch's
 *   data/output_cast.txt  tsr_check_output_cast against the errors of torch's in-place / out= ops
 * and, for every policy row, that tsr_check_output_cast agrees with the policy and words its
 * refusal as PyTorch does. */
#include <stdio.h>

#include "support_table.h"
#include "test.h"

static bool parse_pair(const table_row *row, int first, tsr_dtype *from, tsr_dtype *to)
{
    return table_dtype(row->fields[first], from) && table_dtype(row->fields[first + 1], to);
}

static void check_can_cast(void)
{
    table *t = table_load("data/can_cast.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_dtype from, to;
        if (!table_fields(row, 3, 3) || !parse_pair(row, 0, &from, &to))
            continue;
        table_expect_bool("tsr_can_cast", tsr_can_cast(from, to), row->fields[2]);
        table_expect_bool("tsr_can_cast_policy(pytorch)",
                          tsr_can_cast_policy(from, to, TSR_CAST_PYTORCH), row->fields[2]);
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

/* The refusal message tsr_check_output_cast must give. */
static void cast_message(char *buf, size_t n, tsr_dtype common, tsr_dtype out)
{
    snprintf(buf, n, "result type %s can't be cast to the desired output type %s",
             tsr_dtype_message_name(common), tsr_dtype_message_name(out));
}

static void check_policies(void)
{
    table *t = table_load("data/cast_policy.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_dtype from, to;
        tsr_cast_policy policy;
        if (!table_fields(row, 4, 4))
            continue;
        if (tsr_cast_policy_from_name(row->fields[0], &policy) != TSR_OK) {
            table_fail("tsr_cast_policy_from_name(\"%s\") failed: %s", row->fields[0],
                       tsr_last_error());
            continue;
        }
        if (!parse_pair(row, 1, &from, &to))
            continue;
        bool want;
        if (!table_bool(row->fields[3], &want))
            continue;
        table_expect_bool("tsr_can_cast_policy", tsr_can_cast_policy(from, to, policy),
                          row->fields[3]);
        tsr_status st = tsr_check_output_cast(from, to, policy);
        if (want && st != TSR_OK) {
            table_fail("tsr_check_output_cast refused an allowed cast: %s \"%s\"",
                       tsr_status_name(st), tsr_last_error());
        } else if (!want) {
            char msg[256];
            cast_message(msg, sizeof(msg), from, to);
            table_expect_error(st, TSR_ERR_RUNTIME, msg);
        }
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

static void check_output_cast(void)
{
    table *t = table_load("data/output_cast.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_dtype common, out;
        if (!table_fields(row, 3, 3) || !parse_pair(row, 0, &common, &out))
            continue;
        table_expect(tsr_check_output_cast(common, out, TSR_CAST_PYTORCH), row->fields[2],
                     TSR_ERR_RUNTIME);
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

int main(void)
{
    check_can_cast();
    check_policies();
    check_output_cast();
    TEST_DONE();
}
