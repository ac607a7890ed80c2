/* Conformance: memory formats and strides.
 *   data/layout_strides.txt     tsr_strides_for against torch.empty(sizes, memory_format=f)
 *   data/layout_contiguous.txt  tsr_is_contiguous (three formats, and preserve_format) and
 *                               tsr_is_non_overlapping_and_dense against torch
 *   data/layout_suggest.txt     tsr_suggest_memory_format against the layout PyTorch's pooling
 *                               picks for its output
 *   data/preserve.txt           tsr_preserve_strides against torch.empty_like */
#include <string.h>

#include "support_table.h"
#include "test.h"

static bool parse_format(const char *name, tsr_memory_format *out)
{
    if (tsr_memory_format_from_name(name, out) == TSR_OK)
        return true;
    table_fail("tsr_memory_format_from_name(\"%s\") failed: %s", name, tsr_last_error());
    return false;
}

static bool parse_geometry(const table_row *row, int64_t *sizes, int64_t *strides, int *ndim)
{
    int nstrides;
    if (!table_ints(row->fields[0], sizes, TSR_MAX_DIMS, ndim) ||
        !table_ints(row->fields[1], strides, TSR_MAX_DIMS, &nstrides))
        return false;
    if (nstrides != *ndim) {
        table_fail("sizes and strides differ in length");
        return false;
    }
    return true;
}

static void check_strides_for(void)
{
    table *t = table_load("data/layout_strides.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_memory_format format;
        int64_t sizes[TSR_MAX_DIMS], want[TSR_MAX_DIMS], got[TSR_MAX_DIMS];
        int ndim, nwant;
        if (!table_fields(row, 3, 3) || !parse_format(row->fields[0], &format) ||
            !table_ints(row->fields[1], sizes, TSR_MAX_DIMS, &ndim))
            continue;
        for (int i = 0; i < TSR_MAX_DIMS; i++)
            got[i] = -77;
        if (table_expect(tsr_strides_for(ndim, sizes, format, got), row->fields[2],
                         TSR_ERR_RUNTIME)) {
            if (table_ints(row->fields[2], want, TSR_MAX_DIMS, &nwant))
                table_expect_ints("strides", got, ndim, want, nwant);
        } else if (ndim > 0 && got[0] != -77) {
            table_fail("a failing tsr_strides_for wrote its output");
        }
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

static void check_contiguity(void)
{
    table *t = table_load("data/layout_contiguous.txt");
    TABLE_FOREACH(t, row)
    {
        int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
        int ndim;
        if (!table_fields(row, 6, 6) || !parse_geometry(row, sizes, strides, &ndim))
            continue;
        table_expect_bool("is_contiguous(contiguous_format)",
                          tsr_is_contiguous(ndim, sizes, strides, TSR_CONTIGUOUS_FORMAT),
                          row->fields[2]);
        table_expect_bool("is_contiguous(preserve_format)",
                          tsr_is_contiguous(ndim, sizes, strides, TSR_PRESERVE_FORMAT),
                          row->fields[2]);
        table_expect_bool("is_contiguous(channels_last)",
                          tsr_is_contiguous(ndim, sizes, strides, TSR_CHANNELS_LAST),
                          row->fields[3]);
        table_expect_bool("is_contiguous(channels_last_3d)",
                          tsr_is_contiguous(ndim, sizes, strides, TSR_CHANNELS_LAST_3D),
                          row->fields[4]);
        table_expect_bool("is_non_overlapping_and_dense",
                          tsr_is_non_overlapping_and_dense(ndim, sizes, strides), row->fields[5]);
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

static void check_suggest(void)
{
    table *t = table_load("data/layout_suggest.txt");
    TABLE_FOREACH(t, row)
    {
        int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
        int ndim;
        tsr_memory_format want;
        if (!table_fields(row, 3, 3) || !parse_geometry(row, sizes, strides, &ndim) ||
            !parse_format(row->fields[2], &want))
            continue;
        tsr_memory_format got = tsr_suggest_memory_format(ndim, sizes, strides, false);
        if (got != want)
            table_fail("tsr_suggest_memory_format gave %s", tsr_memory_format_name(got));
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

static void check_preserve(void)
{
    table *t = table_load("data/preserve.txt");
    TABLE_FOREACH(t, row)
    {
        int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS], want[TSR_MAX_DIMS], got[TSR_MAX_DIMS];
        int ndim, nwant;
        if (!table_fields(row, 3, 3) || !parse_geometry(row, sizes, strides, &ndim) ||
            !table_ints(row->fields[2], want, TSR_MAX_DIMS, &nwant))
            continue;
        tsr_status st = tsr_preserve_strides(ndim, sizes, strides, got);
        if (st != TSR_OK)
            table_fail("tsr_preserve_strides failed: %s \"%s\"", tsr_status_name(st),
                       tsr_last_error());
        else
            table_expect_ints("strides", got, ndim, want, nwant);
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
}

int main(void)
{
    check_strides_for();
    check_contiguity();
    check_suggest();
    check_preserve();
    TEST_DONE();
}
