/* The tensor tables' checks (see support_tensor.h). Each row is one call
 * (or one chain of calls) made on the env's device; a row whose result
 * fields read "<Exception> | ERROR <message>" must fail with the status of
 * that exception and exactly that message. */
#include "support_tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/support_table.h"

/* The largest tensor the tables hold. */
#define MAX_ELEMS 4096

tsr_tensor_options tt_options(const tensor_env *env, tsr_dtype dtype)
{
    tsr_tensor_options o = {0};
    o.has_dtype = true;
    o.dtype = dtype;
    o.has_device = true;
    o.device = env->device;
    return o;
}

static bool has_data(const tsr_tensor *t)
{
    return tsr_tensor_device(t).type != TSR_DEVICE_META;
}

tsr_status tt_arange(const tensor_env *env, tsr_dtype dtype, int ndim, const int64_t *sizes,
                     tsr_tensor **out)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    if (n > MAX_ELEMS)
        return TSR_ERR_LIMIT;
    int64_t data[MAX_ELEMS];
    for (int64_t i = 0; i < n; i++)
        data[i] = i;
    tsr_tensor_options o = tt_options(env, dtype);
    return tsr_tensor_from_data(env->client, ndim, sizes, TSR_INT64, data, &o, out);
}

bool tt_values(const tsr_tensor *t, int64_t *values, int64_t max, int64_t *n)
{
    int64_t numel = tsr_tensor_numel(t);
    size_t nbytes = (size_t)tsr_tensor_nbytes(t);
    if (numel > max) {
        table_fail("%lld elements; at most %lld expected", (long long)numel, (long long)max);
        return false;
    }
    unsigned char *raw = malloc(nbytes ? nbytes : 1);
    if (raw == NULL) {
        table_fail("out of memory");
        return false;
    }
    tsr_status st = tsr_tensor_copy_to_host(t, raw, nbytes);
    if (st == TSR_OK)
        st = tsr_cast_buffer(raw, tsr_tensor_dtype(t), values, TSR_INT64, (size_t)numel);
    free(raw);
    if (st != TSR_OK) {
        table_fail("reading the values failed: %s %s", tsr_status_name(st), tsr_last_error());
        return false;
    }
    *n = numel;
    return true;
}

/* ---- Chains ------------------------------------------------------- */

static bool args_n(const char *args, int64_t *v, int n)
{
    int got;
    if (!table_int_args(args, v, NULL, n, &got) || got != n) {
        table_fail("expected %d arguments in \"%s\"", n, args);
        return false;
    }
    return true;
}

static tsr_status apply_step(tsr_tensor *t, const char *name, const char *args, tsr_tensor **out)
{
    int64_t v[TSR_MAX_DIMS + 2], w[TSR_MAX_DIMS + 2];
    bool present[4];
    int n, m;
    if (strcmp(name, "t") == 0)
        return tsr_tensor_t(t, out);
    if (strcmp(name, "transpose") == 0)
        return args_n(args, v, 2) ? tsr_tensor_transpose(t, v[0], v[1], out) : TSR_STATUS_COUNT;
    if (strcmp(name, "narrow") == 0)
        return args_n(args, v, 3) ? tsr_tensor_narrow(t, v[0], v[1], v[2], out) : TSR_STATUS_COUNT;
    if (strcmp(name, "select") == 0)
        return args_n(args, v, 2) ? tsr_tensor_select(t, v[0], v[1], out) : TSR_STATUS_COUNT;
    if (strcmp(name, "unsqueeze") == 0)
        return args_n(args, v, 1) ? tsr_tensor_unsqueeze(t, v[0], out) : TSR_STATUS_COUNT;
    if (strcmp(name, "squeeze") == 0)
        return args_n(args, v, 1) ? tsr_tensor_squeeze(t, v[0], out) : TSR_STATUS_COUNT;
    if (strcmp(name, "slice") == 0) {
        if (!table_int_args(args, v, present, 4, &n) || n != 4 || !present[0] || !present[3]) {
            table_fail("expected dim,start,end,step in \"%s\"", args);
            return TSR_STATUS_COUNT;
        }
        return tsr_tensor_slice(t, v[0], present[1], v[1], present[2], v[2], v[3], out);
    }
    if (strcmp(name, "as_strided") == 0) {
        const char *p = args;
        int64_t offset = -1; /* omitted: the tensor's own */
        if (!table_scan_list(&p, v, TSR_MAX_DIMS, &n) || *p++ != ',' ||
            !table_scan_list(&p, w, TSR_MAX_DIMS, &m) ||
            (*p == ',' && (p++, !table_scan_int(&p, &offset))) || *p != '\0' || n != m) {
            table_fail("malformed as_strided arguments \"%s\"", args);
            return TSR_STATUS_COUNT;
        }
        return tsr_tensor_as_strided(t, n, v, w, offset, out);
    }
    if (!table_ints(args, v, TSR_MAX_DIMS + 2, &n))
        return TSR_STATUS_COUNT;
    if (strcmp(name, "permute") == 0)
        return tsr_tensor_permute(t, v, n, out);
    if (strcmp(name, "expand") == 0)
        return tsr_tensor_expand(t, v, n, out);
    if (strcmp(name, "view") == 0)
        return tsr_tensor_view(t, v, n, out);
    if (strcmp(name, "reshape") == 0)
        return tsr_tensor_reshape(t, v, n, out);
    table_fail("unknown chain step \"%s\"", name);
    return TSR_STATUS_COUNT;
}

tsr_status tt_apply_chain(tsr_tensor *t, const char *chain, tsr_tensor **out)
{
    tsr_tensor *cur = tsr_tensor_retain(t);
    if (strcmp(chain, "-") == 0) {
        *out = cur;
        return TSR_OK;
    }
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", chain);
    for (char *step = buf; step != NULL;) {
        char *next = strstr(step, " ; ");
        if (next) {
            *next = '\0';
            next += 3;
        }
        char *args = strchr(step, ' ');
        if (args)
            *args++ = '\0';
        tsr_tensor *r = NULL;
        tsr_status st = apply_step(cur, step, args ? args : "", &r);
        tsr_tensor_release(cur);
        if (st != TSR_OK)
            return st;
        cur = r;
        step = next;
    }
    *out = cur;
    return TSR_OK;
}

/* ---- Row outcomes --------------------------------------------------- */

/* A row's result starting at field `at`: "<Exception> | ERROR <msg>" must
 * be that failure (returns false); anything else must be success. */
static bool expect_outcome(const table_row *row, int at, tsr_status got)
{
    if (at + 1 < row->nfields && table_error_message(row->fields[at + 1])) {
        tsr_status want = table_status_of_exception(row->fields[at]);
        if (want == TSR_STATUS_COUNT)
            table_fail("unknown exception \"%s\"", row->fields[at]);
        else
            table_expect_error(got, want, table_error_message(row->fields[at + 1]));
        return false;
    }
    if (got != TSR_OK) {
        if (got != TSR_STATUS_COUNT)
            table_fail("failed with %s \"%s\"; expected success", tsr_status_name(got),
                       tsr_last_error());
        return false;
    }
    return true;
}

static bool optional_dtype(const char *field, tsr_dtype fallback, bool *given, tsr_dtype *out)
{
    *given = strcmp(field, "-") != 0;
    if (!*given) {
        *out = fallback;
        return true;
    }
    return table_dtype(field, out);
}

static bool parse_format(const char *field, bool *given, tsr_memory_format *out)
{
    *given = strcmp(field, "-") != 0;
    if (*given && tsr_memory_format_from_name(field, out) != TSR_OK) {
        table_fail("bad memory format \"%s\"", field);
        return false;
    }
    return true;
}

/* The legacy type name a tensor of `dtype` on env's device reports. */
static void expect_type(const tsr_tensor *t, const char *want)
{
    char got[64];
    tsr_tensor_type(t, got, sizeof(got));
    if (strcmp(want, "-") != 0 && tsr_tensor_device(t).type == TSR_DEVICE_CPU &&
        strcmp(got, want) != 0)
        table_fail("type() \"%s\"; expected \"%s\"", got, want);
    char own[64];
    tsr_device d = tsr_tensor_device(t);
    tsr_tensor_type_name(tsr_tensor_dtype(t), d.type, false, own, sizeof(own));
    if (strcmp(got, own) != 0)
        table_fail("type() \"%s\"; tsr_tensor_type_name says \"%s\"", got, own);
}

/* ---- factories.txt -------------------------------------------------- */

/* The device a row asks for: '-' is the env's (for cpu, the default). */
static bool row_device(const tensor_env *env, const char *field, tsr_tensor_options *o)
{
    if (strcmp(field, "-") == 0) {
        o->has_device = env->device.type != TSR_DEVICE_CPU;
        o->device = env->device;
        return true;
    }
    o->has_device = true;
    if (tsr_device_parse(field, &o->device) != TSR_OK) {
        table_fail("bad device \"%s\"", field);
        return false;
    }
    return true;
}

static tsr_status call_factory(const char *op, tsr_client *client, int ndim, const int64_t *sizes,
                               const tsr_tensor_options *o, tsr_tensor **out)
{
    if (strcmp(op, "empty") == 0)
        return tsr_tensor_empty(client, ndim, sizes, o, out);
    if (strcmp(op, "zeros") == 0)
        return tsr_tensor_zeros(client, ndim, sizes, o, out);
    if (strcmp(op, "ones") == 0)
        return tsr_tensor_ones(client, ndim, sizes, o, out);
    table_fail("unknown factory \"%s\"", op);
    return TSR_STATUS_COUNT;
}

static void check_factory_result(const tensor_env *env, const table_row *row, const tsr_tensor *t,
                                 tsr_dtype dtype)
{
    int64_t strides[TSR_MAX_DIMS], numel, nbytes, get_device;
    int nstrides;
    if (!table_fields(row, 12, 12) ||
        !table_ints(row->fields[5], strides, TSR_MAX_DIMS, &nstrides) ||
        !table_int(row->fields[6], &numel) || !table_int(row->fields[7], &nbytes) ||
        !table_int(row->fields[10], &get_device))
        return;
    table_expect_ints("strides", tsr_tensor_strides(t), tsr_tensor_ndim(t), strides, nstrides);
    if (tsr_tensor_numel(t) != numel || tsr_tensor_nbytes(t) != nbytes)
        table_fail("numel %lld, nbytes %lld", (long long)tsr_tensor_numel(t),
                   (long long)tsr_tensor_nbytes(t));
    if (tsr_tensor_dtype(t) != dtype || tsr_tensor_layout(t) != TSR_STRIDED ||
        tsr_tensor_storage_offset(t) != 0)
        table_fail("dtype %s, layout %d, offset %lld", tsr_dtype_name(tsr_tensor_dtype(t)),
                   (int)tsr_tensor_layout(t), (long long)tsr_tensor_storage_offset(t));
    char contig[8];
    snprintf(contig, sizeof(contig), "%d,%d,%d", tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT),
             tsr_tensor_is_contiguous(t, TSR_CHANNELS_LAST),
             tsr_tensor_is_contiguous(t, TSR_CHANNELS_LAST_3D));
    if (strcmp(contig, row->fields[8]) != 0)
        table_fail("is_contiguous %s", contig);
    expect_type(t, row->fields[9]);
    char device[TSR_DEVICE_STR_MAX];
    tsr_device d = tsr_tensor_device(t);
    tsr_device_str(d, device, sizeof(device));
    /* On the env's accelerator the device is the current one, indexed;
     * cpu and meta never carry an index. */
    bool on_env = strcmp(row->fields[2], "-") == 0 && env->device.type != TSR_DEVICE_CPU;
    bool host = d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META;
    if (on_env ? (d.type != env->device.type || (host ? d.index != -1 : d.index < 0) ||
                  tsr_tensor_get_device(t) != d.index)
               : (strcmp(device, row->fields[11]) != 0 || tsr_tensor_get_device(t) != get_device))
        table_fail("device %s, get_device %lld", device, (long long)tsr_tensor_get_device(t));
}

int tt_check_factories(const tensor_env *env, const char *path)
{
    table *tab = table_load(path);
    TABLE_FOREACH(tab, row)
    {
        if (!table_fields(row, 7, 12))
            continue;
        tsr_tensor_options o = {0};
        int64_t sizes[TSR_MAX_DIMS];
        int ndim;
        if (!optional_dtype(row->fields[1], tsr_get_default_dtype(), &o.has_dtype, &o.dtype) ||
            !row_device(env, row->fields[2], &o) ||
            !parse_format(row->fields[3], &o.has_memory_format, &o.memory_format) ||
            !table_ints(row->fields[4], sizes, TSR_MAX_DIMS, &ndim))
            continue;
        tsr_tensor *t = NULL;
        tsr_status st = call_factory(row->fields[0], env->client, ndim, sizes, &o, &t);
        if (expect_outcome(row, 5, st))
            check_factory_result(env, row, t, o.dtype);
        else if (st != TSR_OK && t != NULL)
            table_fail("a failing factory wrote its output");
        tsr_tensor_release(t);
    }
    int failed = table_finish(tab);
    table_free(tab);
    return failed;
}

/* ---- like.txt ------------------------------------------------------- */

static tsr_status call_like(const char *op, const tsr_tensor *like, const tsr_tensor_options *o,
                            tsr_tensor **out)
{
    if (strcmp(op, "empty_like") == 0)
        return tsr_tensor_empty_like(like, o, out);
    if (strcmp(op, "zeros_like") == 0)
        return tsr_tensor_zeros_like(like, o, out);
    if (strcmp(op, "ones_like") == 0)
        return tsr_tensor_ones_like(like, o, out);
    table_fail("unknown like op \"%s\"", op);
    return TSR_STATUS_COUNT;
}

int tt_check_like(const tensor_env *env, const char *path)
{
    table *tab = table_load(path);
    TABLE_FOREACH(tab, row)
    {
        if (!table_fields(row, 6, 7))
            continue;
        int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
        int ndim, nstrides;
        tsr_tensor_options in = tt_options(env, TSR_INT16), o = {0};
        if (!table_ints(row->fields[0], sizes, TSR_MAX_DIMS, &ndim) ||
            !parse_format(row->fields[1], &in.has_memory_format, &in.memory_format) ||
            !parse_format(row->fields[4], &o.has_memory_format, &o.memory_format))
            continue;
        tsr_tensor *base = NULL, *input = NULL, *r = NULL;
        tsr_status st = tsr_tensor_empty(env->client, ndim, sizes, &in, &base);
        if (st == TSR_OK)
            st = tt_apply_chain(base, row->fields[2], &input);
        if (st != TSR_OK) {
            table_fail("making the input failed: %s", tsr_last_error());
        } else {
            st = call_like(row->fields[3], input, &o, &r);
            if (expect_outcome(row, 5, st) &&
                table_ints(row->fields[5], strides, TSR_MAX_DIMS, &nstrides)) {
                table_expect_ints("strides", tsr_tensor_strides(r), tsr_tensor_ndim(r), strides,
                                  nstrides);
                table_expect_ints("sizes", tsr_tensor_sizes(r), tsr_tensor_ndim(r),
                                  tsr_tensor_sizes(input), tsr_tensor_ndim(input));
                if (tsr_tensor_dtype(r) != TSR_INT16 ||
                    !tsr_device_equal(tsr_tensor_device(r), tsr_tensor_device(input)) ||
                    tsr_tensor_shares_storage(r, input))
                    table_fail("the result does not follow its input's dtype and device");
            }
        }
        tsr_tensor_release(r);
        tsr_tensor_release(input);
        tsr_tensor_release(base);
    }
    int failed = table_finish(tab);
    table_free(tab);
    return failed;
}

/* ---- views.txt ------------------------------------------------------ */

static void check_view_result(const table_row *row, const tsr_tensor *base, const tsr_tensor *t)
{
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS], offset, want[MAX_ELEMS], got[MAX_ELEMS];
    int nsizes, nstrides, nwant;
    if (!table_fields(row, 9, 9) || !table_ints(row->fields[3], sizes, TSR_MAX_DIMS, &nsizes) ||
        !table_ints(row->fields[4], strides, TSR_MAX_DIMS, &nstrides) ||
        !table_int(row->fields[5], &offset) || !table_ints(row->fields[8], want, MAX_ELEMS, &nwant))
        return;
    table_expect_ints("sizes", tsr_tensor_sizes(t), tsr_tensor_ndim(t), sizes, nsizes);
    table_expect_ints("strides", tsr_tensor_strides(t), tsr_tensor_ndim(t), strides, nstrides);
    if (tsr_tensor_storage_offset(t) != offset)
        table_fail("storage offset %lld", (long long)tsr_tensor_storage_offset(t));
    table_expect_bool("is_contiguous", tsr_tensor_is_contiguous(t, TSR_CONTIGUOUS_FORMAT),
                      row->fields[6]);
    table_expect_bool("shares storage", tsr_tensor_shares_storage(t, base), row->fields[7]);
    if (tsr_tensor_dtype(t) != tsr_tensor_dtype(base) ||
        !tsr_device_equal(tsr_tensor_device(t), tsr_tensor_device(base)))
        table_fail("the view changed dtype or device");
    int64_t n;
    if (has_data(t) && tt_values(t, got, MAX_ELEMS, &n))
        table_expect_ints("values", got, (int)n, want, nwant);
}

int tt_check_views(const tensor_env *env, const char *path)
{
    table *tab = table_load(path);
    TABLE_FOREACH(tab, row)
    {
        if (!table_fields(row, 5, 9))
            continue;
        /* "cpu:<dtype>" and "meta:<dtype>" rows keep their device. */
        tensor_env e = *env;
        const char *dtype_name = row->fields[0], *colon = strchr(dtype_name, ':');
        if (colon != NULL) {
            char device[16];
            snprintf(device, sizeof(device), "%.*s", (int)(colon - dtype_name), dtype_name);
            if (tsr_device_parse(device, &e.device) != TSR_OK) {
                table_fail("bad device \"%s\"", device);
                continue;
            }
            e.client = NULL;
            dtype_name = colon + 1;
        }
        tsr_dtype dtype;
        int64_t sizes[TSR_MAX_DIMS];
        int ndim;
        if (!table_dtype(dtype_name, &dtype) ||
            !table_ints(row->fields[1], sizes, TSR_MAX_DIMS, &ndim))
            continue;
        tsr_tensor *base = NULL, *t = NULL;
        tsr_status st = tt_arange(&e, dtype, ndim, sizes, &base);
        if (st != TSR_OK) {
            table_fail("making the input failed: %s", tsr_last_error());
            continue;
        }
        st = tt_apply_chain(base, row->fields[2], &t);
        if (expect_outcome(row, 3, st))
            check_view_result(row, base, t);
        tsr_tensor_release(t);
        tsr_tensor_release(base);
    }
    int failed = table_finish(tab);
    table_free(tab);
    return failed;
}

/* ---- fill.txt ------------------------------------------------------- */

static bool parse_value(const char *text, tsr_scalar *out)
{
    char *end = NULL;
    if (strcmp(text, "b:True") == 0 || strcmp(text, "b:False") == 0) {
        *out = tsr_scalar_bool(text[2] == 'T');
        return true;
    }
    if (strncmp(text, "i:", 2) == 0) {
        *out = tsr_scalar_int(strtoll(text + 2, &end, 10));
    } else if (strncmp(text, "f:", 2) == 0) {
        *out = tsr_scalar_float(strtod(text + 2, &end));
    } else if (strncmp(text, "c:", 2) == 0) {
        double re = strtod(text + 2, &end);
        if (*end == ',')
            *out = tsr_scalar_complex(re, strtod(end + 1, &end));
    }
    if (end == NULL || *end != '\0') {
        table_fail("bad value \"%s\"", text);
        return false;
    }
    return true;
}

static void expect_element_bytes(const tsr_tensor *t, const char *want_hex)
{
    unsigned char raw[3 * 16];
    size_t item = tsr_tensor_itemsize(t);
    if (tsr_tensor_numel(t) != 3 || tsr_tensor_copy_to_host(t, raw, 3 * item) != TSR_OK) {
        table_fail("reading the elements failed: %s", tsr_last_error());
        return;
    }
    for (int e = 0; e < 3; e++) {
        char hex[40] = "";
        for (size_t b = 0; b < item; b++)
            snprintf(hex + 2 * b, 3, "%02x", raw[e * item + b]);
        if (strcmp(hex, want_hex) != 0) {
            table_fail("element %d is %s", e, hex);
            return;
        }
    }
}

int tt_check_fill(const tensor_env *env, const char *path)
{
    table *tab = table_load(path);
    TABLE_FOREACH(tab, row)
    {
        if (!table_fields(row, 5, 5))
            continue;
        tsr_tensor_options o = tt_options(env, TSR_FLOAT32);
        tsr_scalar value = tsr_scalar_int(0);
        tsr_dtype want_dtype;
        if (!optional_dtype(row->fields[1], TSR_FLOAT32, &o.has_dtype, &o.dtype) ||
            (strcmp(row->fields[2], "-") != 0 && !parse_value(row->fields[2], &value)))
            continue;
        const int64_t sizes[1] = {3};
        tsr_tensor *t = NULL;
        tsr_status st = strcmp(row->fields[0], "full") == 0
                            ? tsr_tensor_full(env->client, 1, sizes, value, &o, &t)
                            : call_factory(row->fields[0], env->client, 1, sizes, &o, &t);
        if (expect_outcome(row, 3, st) && table_dtype(row->fields[3], &want_dtype)) {
            if (tsr_tensor_dtype(t) != want_dtype)
                table_fail("dtype %s", tsr_dtype_name(tsr_tensor_dtype(t)));
            else if (has_data(t))
                expect_element_bytes(t, row->fields[4]);
        }
        tsr_tensor_release(t);
    }
    int failed = table_finish(tab);
    table_free(tab);
    return failed;
}

/* ---- dims.txt ------------------------------------------------------- */

int tt_check_dims(const tensor_env *env, const char *path)
{
    table *tab = table_load(path);
    TABLE_FOREACH(tab, row)
    {
        int64_t sizes[TSR_MAX_DIMS], dim, want;
        int ndim;
        if (!table_fields(row, 4, 5) || !table_ints(row->fields[0], sizes, TSR_MAX_DIMS, &ndim) ||
            !table_int(row->fields[2], &dim))
            continue;
        tsr_tensor_options o = tt_options(env, TSR_FLOAT32);
        tsr_tensor *t = NULL;
        if (tsr_tensor_empty(env->client, ndim, sizes, &o, &t) != TSR_OK) {
            table_fail("empty failed: %s", tsr_last_error());
            continue;
        }
        int64_t got = -12345;
        tsr_status st = strcmp(row->fields[1], "size") == 0 ? tsr_tensor_size(t, dim, &got)
                                                            : tsr_tensor_stride(t, dim, &got);
        if (expect_outcome(row, 3, st) && table_int(row->fields[3], &want) && got != want)
            table_fail("got %lld", (long long)got);
        if (st != TSR_OK && got != -12345)
            table_fail("a failing call wrote its output");
        tsr_tensor_release(t);
    }
    int failed = table_finish(tab);
    table_free(tab);
    return failed;
}

int tt_run_tables(const tensor_env *env, const char *data_dir)
{
    static const struct {
        const char *name;
        int (*check)(const tensor_env *, const char *);
    } tables[] = {
        {"factories.txt", tt_check_factories}, {"like.txt", tt_check_like},
        {"views.txt", tt_check_views},         {"fill.txt", tt_check_fill},
        {"dims.txt", tt_check_dims},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", data_dir, tables[i].name);
        failed += tables[i].check(env, path);
    }
    return failed;
}
