/* Conformance: tsr_promote_types against torch.promote_types for every pair
 * of the 22 dtypes (data/promote.txt: the 169 classic pairs from PyTorch
 * 1.13, the rest from PyTorch 2.9's rules). Also checks that a failing call
 * leaves its out-parameter alone. */
#include "support_table.h"
#include "test.h"

int main(void)
{
    table *t = table_load("data/promote.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_dtype a, b, want;
        if (!table_fields(row, 3, 3) || !table_dtype(row->fields[0], &a) ||
            !table_dtype(row->fields[1], &b))
            continue;
        tsr_dtype got = TSR_DTYPE_COUNT;
        bool ok = table_expect(tsr_promote_types(a, b, &got), row->fields[2], TSR_ERR_RUNTIME);
        if (!ok) {
            if (got != TSR_DTYPE_COUNT)
                table_fail("a failing call wrote its out-parameter (%d)", (int)got);
            continue;
        }
        if (table_dtype(row->fields[2], &want) && got != want)
            table_fail("got %s", tsr_dtype_name(got));
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
    TEST_DONE();
}
