/* Conformance: the view functions of geometry.h against PyTorch's tensor methods
 * (data/views.txt): transpose, t, permute, narrow, select, slicing, unsqueeze,
 * squeeze(dim), expand, view, reshape (view or copy) and as_strided, on
 * contiguous and non-contiguous inputs, with their errors. */
#include <string.h>

#include "support_table.h"
#include "test.h"

/* Returned by an op's argument parser for malformed arguments (already reported). */
#define BAD_ARGS TSR_STATUS_COUNT

typedef tsr_status (*view_fn)(const tsr_geometry *in, const char *args, tsr_geometry *out,
                              bool *copied);

static bool args_n(const char *args, int64_t *v, int n)
{
    int got;
    if (!table_int_args(args, v, NULL, n, &got))
        return false;
    if (got != n) {
        table_fail("expected %d arguments in \"%s\"", n, args);
        return false;
    }
    return true;
}

static tsr_status op_transpose(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t v[2];
    (void)c;
    return args_n(args, v, 2) ? tsr_view_transpose(in, v[0], v[1], out) : BAD_ARGS;
}

static tsr_status op_t(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    (void)args;
    (void)c;
    return tsr_view_t(in, out);
}

static tsr_status op_permute(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t dims[TSR_MAX_DIMS + 2];
    int n;
    (void)c;
    return table_ints(args, dims, TSR_MAX_DIMS + 2, &n) ? tsr_view_permute(in, dims, n, out)
                                                        : BAD_ARGS;
}

static tsr_status op_narrow(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t v[3];
    (void)c;
    return args_n(args, v, 3) ? tsr_view_narrow(in, v[0], v[1], v[2], out) : BAD_ARGS;
}

static tsr_status op_select(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t v[2];
    (void)c;
    return args_n(args, v, 2) ? tsr_view_select(in, v[0], v[1], out) : BAD_ARGS;
}

static tsr_status op_slice(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t v[4];
    bool present[4];
    int n;
    (void)c;
    if (!table_int_args(args, v, present, 4, &n) || n != 4 || !present[0] || !present[3]) {
        table_fail("expected dim,start,end,step in \"%s\"", args);
        return BAD_ARGS;
    }
    return tsr_view_slice(in, v[0], present[1], v[1], present[2], v[2], v[3], out);
}

static tsr_status op_unsqueeze(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t d;
    (void)c;
    return args_n(args, &d, 1) ? tsr_view_unsqueeze(in, d, out) : BAD_ARGS;
}

static tsr_status op_squeeze(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t d;
    (void)c;
    return args_n(args, &d, 1) ? tsr_view_squeeze(in, d, out) : BAD_ARGS;
}

static tsr_status op_expand(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t sizes[TSR_MAX_DIMS];
    int n;
    (void)c;
    return table_ints(args, sizes, TSR_MAX_DIMS, &n) ? tsr_view_expand(in, sizes, n, out)
                                                     : BAD_ARGS;
}

static tsr_status op_view(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t sizes[TSR_MAX_DIMS];
    int n;
    (void)c;
    return table_ints(args, sizes, TSR_MAX_DIMS, &n) ? tsr_view_view(in, sizes, n, out) : BAD_ARGS;
}

static tsr_status op_reshape(const tsr_geometry *in, const char *args, tsr_geometry *out, bool *c)
{
    int64_t sizes[TSR_MAX_DIMS];
    int n;
    return table_ints(args, sizes, TSR_MAX_DIMS, &n) ? tsr_view_reshape(in, sizes, n, out, c)
                                                     : BAD_ARGS;
}

/* "[sizes],[strides],offset,storage elements,itemsize" */
static tsr_status op_as_strided(const tsr_geometry *in, const char *args, tsr_geometry *out,
                                bool *c)
{
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS], rest[3];
    int nsizes, nstrides, nrest;
    const char *p = args;
    (void)c;
    if (!table_scan_list(&p, sizes, TSR_MAX_DIMS, &nsizes) || *p++ != ',' ||
        !table_scan_list(&p, strides, TSR_MAX_DIMS, &nstrides) || *p++ != ',' ||
        !table_int_args(p, rest, NULL, 3, &nrest) || nrest != 3) {
        table_fail("malformed as_strided arguments \"%s\"", args);
        return BAD_ARGS;
    }
    if (nsizes != nstrides) {
        table_fail("as_strided sizes and strides differ in length");
        return BAD_ARGS;
    }
    return tsr_view_as_strided(in, nsizes, sizes, strides, rest[0], rest[1], (size_t)rest[2], out);
}

static const struct {
    const char *name;
    view_fn fn;
} ops[] = {
    {"transpose", op_transpose}, {"t", op_t},
    {"permute", op_permute},     {"narrow", op_narrow},
    {"select", op_select},       {"slice", op_slice},
    {"unsqueeze", op_unsqueeze}, {"squeeze", op_squeeze},
    {"expand", op_expand},       {"view", op_view},
    {"reshape", op_reshape},     {"as_strided", op_as_strided},
};

static view_fn find_op(const char *name)
{
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i].name, name) == 0)
            return ops[i].fn;
    table_fail("unknown op \"%s\"", name);
    return NULL;
}

static bool parse_input(const table_row *row, tsr_geometry *g)
{
    int nstrides;
    int64_t offset;
    memset(g, 0, sizeof(*g));
    if (!table_ints(row->fields[0], g->sizes, TSR_MAX_DIMS, &g->ndim) ||
        !table_ints(row->fields[1], g->strides, TSR_MAX_DIMS, &nstrides) ||
        !table_int(row->fields[2], &offset))
        return false;
    if (nstrides != g->ndim) {
        table_fail("sizes and strides differ in length");
        return false;
    }
    g->offset = offset;
    return true;
}

/* Tessera's one documented rewording of a view message (docs/semantics.md): PyTorch's
 * expand error names the legacy tensor type ("expand(torch.FloatTensor{[2, 3]}, ...");
 * the geometry functions know no dtype and say "expand(Tensor{[2, 3]}, ...". */
static const char *tessera_wording(const char *msg, char *buf, size_t n)
{
    static const char torch_prefix[] = "expand(torch.FloatTensor{";
    if (strncmp(msg, torch_prefix, sizeof(torch_prefix) - 1) != 0)
        return msg;
    snprintf(buf, n, "expand(Tensor{%s", msg + sizeof(torch_prefix) - 1);
    return buf;
}

static void check_result(const table_row *row, const tsr_geometry *out, bool copied,
                         bool is_reshape)
{
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS], offset;
    int nsizes, nstrides;
    if (!table_fields(row, is_reshape ? 9 : 8, is_reshape ? 9 : 8) ||
        !table_ints(row->fields[5], sizes, TSR_MAX_DIMS, &nsizes) ||
        !table_ints(row->fields[6], strides, TSR_MAX_DIMS, &nstrides) ||
        !table_int(row->fields[7], &offset))
        return;
    table_expect_ints("sizes", out->sizes, out->ndim, sizes, nsizes);
    table_expect_ints("strides", out->strides, out->ndim, strides, nstrides);
    if (out->offset != offset)
        table_fail("offset %lld", (long long)out->offset);
    if (is_reshape) {
        const char *want = row->fields[8];
        if (strcmp(want, copied ? "copy" : "view") != 0)
            table_fail("reshape %s; expected %s", copied ? "copied" : "made a view", want);
    }
}

int main(void)
{
    table *t = table_load("data/views.txt");
    TABLE_FOREACH(t, row)
    {
        tsr_geometry in, out, before;
        if (!table_fields(row, 7, 9) || !parse_input(row, &in))
            continue;
        view_fn fn = find_op(row->fields[3]);
        if (!fn)
            continue;
        memset(&out, 0x5a, sizeof(out));
        before = out;
        bool copied = false;
        tsr_status st = fn(&in, row->fields[4], &out, &copied);
        if (st == BAD_ARGS)
            continue;
        const char *msg = table_error_message(row->fields[row->nfields - 1]);
        if (msg) {
            tsr_status want = table_status_of_exception(row->fields[5]);
            if (row->nfields != 7 || want == TSR_STATUS_COUNT) {
                table_fail("malformed error row");
                continue;
            }
            char adapted[1024];
            table_expect_error(st, want, tessera_wording(msg, adapted, sizeof(adapted)));
            if (memcmp(&out, &before, sizeof(out)) != 0)
                table_fail("a failing call wrote its output");
            continue;
        }
        if (!table_expect(st, row->fields[5], TSR_ERR_RUNTIME))
            continue;
        check_result(row, &out, copied, strcmp(row->fields[3], "reshape") == 0);
    }
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
    TEST_DONE();
}
