/* The matrix-product cases from PyTorch (data/<family>.txt, written by
 * gen_matmul_cases.py, whose docstring gives the format) run through the
 * public API on the cpu and meta devices: each row's storages are built
 * with tsr_tensor_from_data (meta: tsr_tensor_empty), its operands as
 * as_strided views of them, one call is made (mm, bmm, matmul, dot, mv,
 * outer, addmm; new, out= or addmm_), and the outcome is compared with
 * PyTorch's: the status and the exact message, or the result's dtype and
 * sizes, contiguity (new results) and every value, exactly or within the
 * row's tolerance.
 *
 * Built with MATMUL_OPENCL (test_matmul_opencl), the same rows run on
 * opencl:0 in a real daemon (arguments before the files go to it, such
 * as --device-memory=staged): every row but the meta ones (counted as
 * skipped), every dtype the cpu computes in, within the same tolerances
 * (the device sums floating-point products in another order than
 * OpenBLAS; integer products are exact on both).
 *
 * Usage: test_matmul_conformance data/<family>.txt ...
 *        test_matmul_opencl [daemon arguments] data/<family>.txt ... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/support_table.h"
#include "tessera/tessera.h"
#ifdef MATMUL_OPENCL
#include "integration/support_daemon.h"
#endif

/* Tensors are built on opencl:0 (MATMUL_OPENCL). */
static bool on_opencl;
static int skipped;
static tsr_client *client; /* opencl's; NULL on cpu */

#define MAX_BASES 8

enum { F_ID, F_OP, F_FORM, F_SCALARS, F_DEVICE, F_BASES, F_A, F_B, F_C, F_OUT, F_KIND };
enum { F_DTYPE = F_KIND + 1, F_SIZES, F_TOL, F_VALUES, F_OK_COUNT };
enum { F_STATUS = F_KIND + 1, F_MESSAGE, F_ERR_COUNT };

typedef struct built {
    int nbases;
    tsr_tensor *bases[MAX_BASES];
    tsr_tensor *a, *b, *c, *out;
} built;

static void built_free(built *bt)
{
    for (int i = 0; i < bt->nbases; i++)
        tsr_tensor_release(bt->bases[i]);
    tsr_tensor_release(bt->a);
    tsr_tensor_release(bt->b);
    tsr_tensor_release(bt->c);
    tsr_tensor_release(bt->out);
}

static int hex_digit(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* len hex digits into a malloc'ed buffer (at least one byte). */
static unsigned char *parse_hex(const char *p, size_t len, size_t *n)
{
    unsigned char *buf = calloc(len / 2 + 1, 1);
    if (buf == NULL || len % 2)
        goto bad;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            goto bad;
        buf[i] = (unsigned char)(hi << 4 | lo);
    }
    *n = len / 2;
    return buf;
bad:
    free(buf);
    table_fail("malformed hex");
    return NULL;
}

/* "dtype:n:hex;..." into tensors on the device. */
static bool build_bases(const char *text, bool meta, built *bt)
{
    while (*text) {
        char name[32];
        const char *colon = strchr(text, ':');
        if (!colon || colon - text >= (long)sizeof name || bt->nbases == MAX_BASES) {
            table_fail("malformed bases");
            return false;
        }
        memcpy(name, text, (size_t)(colon - text));
        name[colon - text] = '\0';
        tsr_dtype dt;
        if (!table_dtype(name, &dt))
            return false;
        char *end;
        int64_t n = strtoll(colon + 1, &end, 10);
        const char *hex = end + 1, *stop = strchr(hex, ';');
        size_t len = stop ? (size_t)(stop - hex) : strlen(hex), nbytes = 0;
        unsigned char *bytes = parse_hex(hex, len, &nbytes);
        if (bytes == NULL)
            return false;
        tsr_tensor_options o = {.has_dtype = true, .dtype = dt};
        tsr_status st;
        if (on_opencl) {
            o.has_device = true;
            o.device = (tsr_device){TSR_DEVICE_OPENCL, 0};
        }
        if (meta) {
            o.has_device = true;
            o.device = (tsr_device){TSR_DEVICE_META, -1};
            st = tsr_tensor_empty(NULL, 1, &n, &o, &bt->bases[bt->nbases]);
        } else {
            st = tsr_tensor_from_data(client, 1, &n, dt, bytes, &o, &bt->bases[bt->nbases]);
        }
        free(bytes);
        if (st != TSR_OK) {
            table_fail("building base %d: %s", bt->nbases, tsr_last_error());
            return false;
        }
        bt->nbases++;
        text = stop ? stop + 1 : hex + len;
    }
    return true;
}

/* "v<k> [sizes] [strides] offset" into a view; "-" leaves *out NULL. */
static bool build_view(const char *text, built *bt, tsr_tensor **out)
{
    if (strcmp(text, "-") == 0)
        return true;
    const char *p = text + 1;
    int64_t k, offset, sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS];
    int nsizes, nstrides;
    if (text[0] != 'v' || !table_scan_int(&p, &k) || *p++ != ' ' ||
        !table_scan_list(&p, sizes, TSR_MAX_DIMS, &nsizes) || *p++ != ' ' ||
        !table_scan_list(&p, strides, TSR_MAX_DIMS, &nstrides) || *p++ != ' ' ||
        !table_scan_int(&p, &offset) || nsizes != nstrides || k < 0 || k >= bt->nbases) {
        table_fail("malformed view \"%s\"", text);
        return false;
    }
    if (tsr_tensor_as_strided(bt->bases[k], nsizes, sizes, strides, offset, out) != TSR_OK) {
        table_fail("as_strided \"%s\": %s", text, tsr_last_error());
        return false;
    }
    return true;
}

static bool parse_scalar(const char *text, tsr_scalar *s)
{
    char *end = NULL;
    switch (text[0]) {
    case 'b':
        *s = tsr_scalar_bool(text[2] == '1');
        return true;
    case 'i':
        *s = tsr_scalar_int(strtoll(text + 2, &end, 10));
        return true;
    case 'f':
        *s = tsr_scalar_float(strtod(text + 2, &end));
        return true;
    case 'c': {
        double re = strtod(text + 2, &end);
        *s = tsr_scalar_complex(re, strtod(end + 1, NULL));
        return true;
    }
    }
    table_fail("malformed scalar \"%s\"", text);
    return false;
}

/* The call a row names; *result is set for the new forms. */
static tsr_status call(const char *op, const char *form, const tsr_scalar *sc, built *bt,
                       tsr_tensor **result)
{
    bool out = strcmp(form, "out") == 0;
    static const struct {
        const char *name;
        tsr_status (*fresh)(const tsr_tensor *, const tsr_tensor *, tsr_tensor **);
        tsr_status (*into)(const tsr_tensor *, const tsr_tensor *, tsr_tensor *);
    } binary[] = {
        {"mm", tsr_mm, tsr_mm_out},
        {"bmm", tsr_bmm, tsr_bmm_out},
        {"matmul", tsr_matmul, tsr_matmul_out},
        {"dot", tsr_dot, tsr_dot_out},
        {"mv", tsr_mv, tsr_mv_out},
        {"outer", tsr_outer, tsr_outer_out},
    };
    for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++)
        if (strcmp(op, binary[i].name) == 0)
            return out ? binary[i].into(bt->a, bt->b, bt->out)
                       : binary[i].fresh(bt->a, bt->b, result);
    if (strcmp(op, "addmm") == 0) {
        if (strcmp(form, "inplace") == 0)
            return tsr_addmm_(bt->c, bt->a, bt->b, sc[0], sc[1]);
        return out ? tsr_addmm_out(bt->c, bt->a, bt->b, sc[0], sc[1], bt->out)
                   : tsr_addmm(bt->c, bt->a, bt->b, sc[0], sc[1], result);
    }
    table_fail("unknown op \"%s\"", op);
    return TSR_STATUS_COUNT;
}

/* Element i of a buffer of dtype dt as up to two doubles; false for the
 * integer dtypes (compared bit for bit). */
static bool as_doubles(tsr_dtype dt, const unsigned char *p, size_t i, double v[2])
{
    v[1] = 0;
    switch (dt) {
    case TSR_FLOAT16: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        v[0] = tsr_half_to_float(h);
        return true;
    }
    case TSR_BFLOAT16: {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        v[0] = tsr_bfloat16_to_float(h);
        return true;
    }
    case TSR_FLOAT32:
    case TSR_COMPLEX64: {
        float f[2];
        memcpy(f, p + tsr_dtype_itemsize(dt) * i, tsr_dtype_itemsize(dt));
        v[0] = f[0];
        v[1] = dt == TSR_COMPLEX64 ? f[1] : 0;
        return true;
    }
    case TSR_FLOAT64:
    case TSR_COMPLEX128:
        memcpy(v, p + tsr_dtype_itemsize(dt) * i, tsr_dtype_itemsize(dt));
        return true;
    default:
        return false;
    }
}

static bool close_enough(double got, double want, double rtol, double atol)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got))
        return got == want;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

static void compare_values(const tsr_tensor *r, const char *tol, const char *hex)
{
    size_t n = 0, nbytes = (size_t)tsr_tensor_nbytes(r);
    unsigned char *want = parse_hex(hex, strlen(hex), &n);
    unsigned char *got = malloc(nbytes + 1);
    if (want == NULL || got == NULL || n != nbytes) {
        table_fail("expected %zu value bytes, the result has %zu", n, nbytes);
        goto out_free;
    }
    if (tsr_tensor_copy_to_host(r, got, nbytes) != TSR_OK) {
        table_fail("copy_to_host: %s", tsr_last_error());
        goto out_free;
    }
    bool exact = strcmp(tol, "exact") == 0;
    double rtol = 0, atol = 0;
    if (!exact)
        rtol = strtod(tol, NULL), atol = strtod(strchr(tol, ',') + 1, NULL);
    tsr_dtype dt = tsr_tensor_dtype(r);
    size_t isz = tsr_dtype_itemsize(dt);
    for (size_t i = 0; i < nbytes / isz; i++) {
        double g[2], w[2];
        bool floating = as_doubles(dt, got, i, g) && as_doubles(dt, want, i, w);
        bool same = memcmp(got + i * isz, want + i * isz, isz) == 0;
        if (floating && exact)
            same = same || (close_enough(g[0], w[0], 0, 0) && close_enough(g[1], w[1], 0, 0));
        else if (floating)
            same = close_enough(g[0], w[0], rtol, atol) && close_enough(g[1], w[1], rtol, atol);
        if (!same) {
            if (floating)
                table_fail("element %zu: got (%.17g, %.17g), expected (%.17g, %.17g) (%s)", i, g[0],
                           g[1], w[0], w[1], tol);
            else
                table_fail("element %zu differs (integer bytes)", i);
            break;
        }
    }
out_free:
    free(want);
    free(got);
}

static void check_ok(const table_row *row, const tsr_tensor *r, bool fresh)
{
    const char *const *f = (const char *const *)row->fields;
    tsr_dtype want;
    int64_t sizes[TSR_MAX_DIMS];
    int nsizes;
    if (!table_dtype(f[F_DTYPE], &want) || !table_ints(f[F_SIZES], sizes, TSR_MAX_DIMS, &nsizes))
        return;
    if (tsr_tensor_dtype(r) != want)
        table_fail("dtype %s, expected %s", tsr_dtype_name(tsr_tensor_dtype(r)), f[F_DTYPE]);
    if (!table_expect_ints("sizes", tsr_tensor_sizes(r), tsr_tensor_ndim(r), sizes, nsizes))
        return;
    if (fresh && !tsr_tensor_is_contiguous(r, TSR_CONTIGUOUS_FORMAT))
        table_fail("a new result that is not contiguous");
    if (strcmp(f[F_VALUES], "-") != 0 && tsr_tensor_dtype(r) == want)
        compare_values(r, f[F_TOL], f[F_VALUES]);
}

static void check_row(const table_row *row)
{
    const char *const *f = (const char *const *)row->fields;
    bool ok = row->nfields > F_KIND && strcmp(f[F_KIND], "ok") == 0;
    if (!table_fields(row, ok ? F_OK_COUNT : F_ERR_COUNT, ok ? F_OK_COUNT : F_ERR_COUNT))
        return;
    built bt = {0};
    tsr_scalar sc[2] = {tsr_scalar_int(1), tsr_scalar_int(1)};
    if (strcmp(f[F_SCALARS], "-") != 0) {
        const char *semi = strchr(f[F_SCALARS], ';');
        if (!semi || !parse_scalar(f[F_SCALARS], &sc[0]) || !parse_scalar(semi + 1, &sc[1]))
            return;
    }
    bool meta = strcmp(f[F_DEVICE], "meta") == 0;
    if (on_opencl && meta) {
        skipped++;
        return;
    }
    if (!build_bases(f[F_BASES], meta, &bt) || !build_view(f[F_A], &bt, &bt.a) ||
        !build_view(f[F_B], &bt, &bt.b) || !build_view(f[F_C], &bt, &bt.c) ||
        !build_view(f[F_OUT], &bt, &bt.out))
        goto out_free;
    tsr_tensor *result = NULL;
    tsr_status st = call(f[F_OP], f[F_FORM], sc, &bt, &result);
    if (!ok) {
        tsr_status want = table_status_of_exception(f[F_STATUS]);
        if (want == TSR_STATUS_COUNT) {
            char field[64];
            snprintf(field, sizeof field, "STATUS %s", f[F_STATUS]);
            want = table_status_field(field);
        }
        /* a device's tensor types name it: torch.opencl.FloatTensor */
        char message[1024];
        const char *type = on_opencl ? strstr(f[F_MESSAGE], "(torch.") : NULL;
        snprintf(message, sizeof message, "%s", f[F_MESSAGE]);
        if (type && strlen(f[F_MESSAGE]) + 8 < sizeof message)
            snprintf(message + (type - f[F_MESSAGE]),
                     sizeof message - (size_t)(type - f[F_MESSAGE]), "(torch.opencl.%s", type + 7);
        table_expect_error(st, want, message);
    } else if (st != TSR_OK) {
        table_fail("failed with %s: %s", tsr_status_name(st), tsr_last_error());
    } else {
        const tsr_tensor *r = strcmp(f[F_FORM], "out") == 0       ? bt.out
                              : strcmp(f[F_FORM], "inplace") == 0 ? bt.c
                                                                  : result;
        check_ok(row, r, r == result);
    }
    tsr_tensor_release(result);
out_free:
    built_free(&bt);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: %s data/<family>.txt ...\n", argv[0]);
        return 2;
    }
    int failed = 0, first = 1;
#ifdef MATMUL_OPENCL
    const char *extra[8];
    int nextra = 0;
    while (first < argc && strncmp(argv[first], "--", 2) == 0 && nextra < 7)
        extra[nextra++] = argv[first++];
    extra[nextra] = NULL;
    test_daemon daemon;
    if (test_daemon_start(&daemon, nextra ? extra : NULL) != 0)
        return 1;
    int32_t count = 0;
    if (tsr_client_open(NULL, &client) != TSR_OK ||
        tsr_device_count(client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        printf("skipped: the daemon sees no opencl device (%s)\n", tsr_last_error());
        tsr_client_close(client);
        test_daemon_stop(&daemon);
        return 77;
    }
    tsr_device_properties props;
    if (tsr_device_get_properties(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) != TSR_OK ||
        (nextra > 0 && props.host_unified_memory)) {
        fprintf(stderr, "opencl:0 is not served as asked: %s\n", tsr_last_error());
        failed++;
    }
    printf("opencl:0: %s\n", props.host_unified_memory ? "zero copy" : "through copies");
    on_opencl = true;
#endif
    for (int i = first; i < argc; i++) {
        table *t = table_load(argv[i]);
        TABLE_FOREACH(t, row)
        check_row(row);
        failed += table_finish(t);
        table_free(t);
    }
    if (on_opencl)
        printf("%d meta rows skipped\n", skipped);
#ifdef MATMUL_OPENCL
    tsr_client_close(client);
    if (test_daemon_stop(&daemon) != 0) {
        fprintf(stderr, "the daemon did not stop cleanly\n");
        failed++;
    }
#endif
    return failed ? 1 : 0;
}
