/* The reductions against PyTorch 1.13 (tests/ops/data/reduce.txt, written
 * by gen_reduce_cases.py; its docstring gives the format): every case
 * runs on the cpu through the public API and must give PyTorch's status
 * and message, or its dtype, sizes and values (bit for bit, or within the
 * case's tolerance where Tessera adds in another order), and, with
 * --meta, the same statuses, dtypes and sizes on meta tensors. The "acc"
 * rows compare float32 sum's error against an exact sum with PyTorch's
 * on the same data, and print both.
 *
 *   test_reduce_conformance FILE [--meta]
 * REDUCE_ONLY=<id> runs one case. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

#define MAX_FIELDS 16

static int failures, cases, printed;
static bool on_meta;

static void fail(const char *id, const char *fmt, const char *a, const char *b)
{
    failures++;
    if (printed++ < 30)
        fprintf(stderr, "%s: %s: got %s, want %s (last error: %s)\n", id, fmt, a, b,
                tsr_last_error());
}

static int split(char *line, char **fields)
{
    static char empty[] = "";
    for (int i = 0; i < MAX_FIELDS; i++)
        fields[i] = empty; /* fields past the line's are empty */
    int n = 0;
    char *p = line;
    while (n < MAX_FIELDS) {
        fields[n++] = p;
        char *sep = strstr(p, " | ");
        if (!sep)
            break;
        *sep = '\0';
        p = sep + 3;
    }
    return n;
}

static int parse_ints(const char *text, int64_t *out)
{
    int n = 0;
    const char *p = strchr(text, '[');
    if (!p)
        return -1;
    p++;
    while (*p && *p != ']') {
        char *end;
        out[n++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static size_t unhex(const char *hex, unsigned char *out, size_t max)
{
    size_t n = 0;
    while (hex[0] && hex[1] && n < max) {
        unsigned v;
        if (sscanf(hex, "%2x", &v) != 1)
            break;
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

static tsr_dtype dtype_of(const char *name)
{
    tsr_dtype d = TSR_NO_DTYPE;
    char buf[32];
    snprintf(buf, sizeof buf, "%s", name);
    char *sp = strchr(buf, ' ');
    if (sp)
        *sp = '\0';
    if (tsr_dtype_from_name(buf, &d) != TSR_OK)
        d = TSR_NO_DTYPE;
    return d;
}

static tsr_device device(void)
{
    tsr_device d = {on_meta ? TSR_DEVICE_META : TSR_DEVICE_CPU, -1};
    return d;
}

/* The input: base storage "dtype:n:hex" viewed as "[sizes] [strides] offset". */
static tsr_tensor *make_input(const char *base, const char *view)
{
    char name[32];
    const char *c1 = strchr(base, ':');
    snprintf(name, sizeof name, "%.*s", (int)(c1 - base), base);
    tsr_dtype dt = dtype_of(name);
    int64_t n = strtoll(c1 + 1, NULL, 10);
    const char *hex = strchr(c1 + 1, ':') + 1;
    size_t bytes = (size_t)n * tsr_dtype_itemsize(dt);
    unsigned char *data = malloc(bytes ? bytes : 1);
    unhex(hex, data, bytes);
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt, .has_device = true, .device = device()};
    tsr_tensor *storage = NULL, *v = NULL;
    int64_t len = n;
    if (tsr_tensor_from_data(NULL, 1, &len, dt, data, &o, &storage) != TSR_OK) {
        /* meta tensors hold no data: an empty meta storage of that size */
        if (tsr_tensor_empty(NULL, 1, &len, &o, &storage) != TSR_OK) {
            free(data);
            return NULL;
        }
    }
    free(data);
    int64_t sizes[32], strides[32];
    int nd = parse_ints(view, sizes);
    const char *second = strchr(strchr(view, ']') + 1, '[');
    parse_ints(second, strides);
    int64_t offset = strtoll(strchr(second, ']') + 1, NULL, 10);
    if (tsr_tensor_as_strided(storage, nd, sizes, strides, offset, &v) != TSR_OK)
        v = NULL;
    tsr_tensor_release(storage);
    return v;
}

/* "dtype [sizes] [strides]": zeros of that shape. */
static tsr_tensor *make_out(const char *spec)
{
    int64_t sizes[32];
    int nd = parse_ints(spec, sizes);
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = dtype_of(spec), .has_device = true, .device = device()};
    tsr_tensor *t = NULL;
    if (tsr_tensor_zeros(NULL, nd, sizes, &o, &t) != TSR_OK)
        return NULL;
    return t;
}

typedef tsr_status (*plain_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor **);
typedef tsr_status (*plain_out_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_tensor *);
typedef tsr_status (*dtype_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_dtype,
                               tsr_tensor **);
typedef tsr_status (*dtype_out_fn)(const tsr_tensor *, const int64_t *, int, bool, tsr_dtype,
                                   tsr_tensor *);

static const struct {
    const char *name;
    plain_fn plain;
    plain_out_fn plain_out;
    dtype_fn with_dtype;
    dtype_out_fn with_dtype_out;
} ops[] = {
    {"sum", NULL, NULL, tsr_sum, tsr_sum_out},
    {"prod", NULL, NULL, tsr_prod, tsr_prod_out},
    {"mean", NULL, NULL, tsr_mean, tsr_mean_out},
    {"nansum", NULL, NULL, tsr_nansum, tsr_nansum_out},
    {"nanmean", NULL, NULL, tsr_nanmean, tsr_nanmean_out},
    {"amax", tsr_amax, tsr_amax_out, NULL, NULL},
    {"amin", tsr_amin, tsr_amin_out, NULL, NULL},
    {"all", tsr_all, tsr_all_out, NULL, NULL},
    {"any", tsr_any, tsr_any_out, NULL, NULL},
    {"argmax", tsr_argmax, tsr_argmax_out, NULL, NULL},
    {"argmin", tsr_argmin, tsr_argmin_out, NULL, NULL},
};

/* The statistics and normalisations (data/reduce_more.txt): the op
 * field's parameter follows a colon (var:1, norm:inf). False when op is
 * none of them. */
static bool more_op(const char *op, const tsr_tensor *a, const int64_t *dims, int ndims,
                    bool keepdim, tsr_dtype dtype, tsr_tensor **r, tsr_status *st)
{
    char name[32];
    const char *colon = strchr(op, ':');
    size_t len = colon ? (size_t)(colon - op) : strlen(op);
    if (len >= sizeof name)
        return false;
    memcpy(name, op, len);
    name[len] = '\0';
    const char *param = colon ? colon + 1 : "";
    int64_t dim = ndims ? dims[0] : 0;
    if (strcmp(name, "var") == 0 || strcmp(name, "std") == 0)
        *st = (name[0] == 'v' ? tsr_var : tsr_std)(a, dims, ndims, strtoll(param, NULL, 10),
                                                   keepdim, r);
    else if (strcmp(name, "norm") == 0)
        *st = tsr_norm(a, strcmp(param, "inf") == 0 ? INFINITY : strtod(param, NULL), dims, ndims,
                       keepdim, r);
    else if (strcmp(name, "logsumexp") == 0)
        *st = tsr_logsumexp(a, dims, ndims, keepdim, r);
    else if (strcmp(name, "softmax") == 0)
        *st = tsr_softmax(a, dim, dtype, r);
    else if (strcmp(name, "log_softmax") == 0)
        *st = tsr_log_softmax(a, dim, dtype, r);
    else if (strcmp(name, "cumsum") == 0)
        *st = tsr_cumsum(a, dim, dtype, r);
    else
        return false;
    return true;
}

/* The value of element i of a result as doubles (complex: two). */
static void value_at(tsr_dtype dt, const unsigned char *p, double v[2])
{
    tsr_dtype real = tsr_dtype_is_complex(dt) ? tsr_dtype_to_real(dt) : dt;
    size_t w = tsr_dtype_itemsize(real);
    for (int part = 0; part < (tsr_dtype_is_complex(dt) ? 2 : 1); part++)
        tsr_cast_buffer(p + part * w, real, &v[part], TSR_FLOAT64, 1);
}

static bool same_value(tsr_dtype dt, const unsigned char *got, const unsigned char *want,
                       double tol)
{
    size_t w = tsr_dtype_itemsize(dt);
    if (!tsr_dtype_is_floating_point(dt) && !tsr_dtype_is_complex(dt))
        return memcmp(got, want, w) == 0;
    double g[2] = {0, 0}, e[2] = {0, 0};
    value_at(dt, got, g);
    value_at(dt, want, e);
    for (int part = 0; part < 2; part++) {
        if (isnan(e[part]) || isnan(g[part])) {
            if (isnan(e[part]) != isnan(g[part]))
                return false;
            continue;
        }
        if (isinf(e[part]) || isinf(g[part])) {
            if (g[part] != e[part])
                return false;
            continue;
        }
        if (fabs(g[part] - e[part]) > tol)
            return false;
    }
    return true;
}

static void check_result(const char *id, tsr_tensor *t, const char *dtype, const char *sizes,
                         double tol, const char *hex)
{
    char got[128], want[128];
    tsr_dtype dt = dtype_of(dtype);
    if (tsr_tensor_dtype(t) != dt) {
        fail(id, "dtype", tsr_dtype_name(tsr_tensor_dtype(t)), dtype);
        return;
    }
    int64_t ws[32];
    int nd = parse_ints(sizes, ws);
    if (tsr_tensor_ndim(t) != nd ||
        memcmp(tsr_tensor_sizes(t), ws, sizeof(int64_t) * (size_t)nd) != 0) {
        snprintf(got, sizeof got, "ndim %d", tsr_tensor_ndim(t));
        fail(id, "sizes", got, sizes);
        return;
    }
    if (on_meta)
        return;
    size_t nbytes = (size_t)tsr_tensor_nbytes(t), w = tsr_dtype_itemsize(dt);
    unsigned char *g = malloc(nbytes + 1), *e = malloc(nbytes + 1);
    tsr_tensor_copy_to_host(t, g, nbytes);
    if (unhex(hex, e, nbytes) != nbytes) {
        fail(id, "value count", "?", hex);
    } else {
        for (size_t i = 0; i < nbytes / (w ? w : 1); i++)
            if (!same_value(dt, g + i * w, e + i * w, tol)) {
                double gv[2] = {0, 0}, ev[2] = {0, 0};
                value_at(dt, g + i * w, gv);
                value_at(dt, e + i * w, ev);
                snprintf(got, sizeof got, "[%zu] %.17g%+.17gi", i, gv[0], gv[1]);
                snprintf(want, sizeof want, "%.17g%+.17gi (tol %g)", ev[0], ev[1], tol);
                fail(id, "value", got, want);
                break;
            }
    }
    free(g);
    free(e);
}

static void run_case(char **f, int nf)
{
    const char *id = f[0], *op = f[1], *form = f[2];
    cases++;
    int64_t dims[32];
    int ndims = 0;
    if (strcmp(f[3], "-") != 0) {
        char buf[128];
        snprintf(buf, sizeof buf, "[%s]", f[3]);
        ndims = parse_ints(buf, dims);
    }
    /* A dtype PyTorch's cpu kernel refuses is no error on meta, which
     * runs no kernel. */
    if (on_meta && strcmp(f[9], "err") == 0 && strcmp(f[10], "TSR_ERR_NOT_SUPPORTED") == 0) {
        cases--;
        return;
    }
    bool keepdim = strcmp(f[4], "1") == 0;
    tsr_dtype dtype = strcmp(f[5], "-") == 0 ? TSR_NO_DTYPE : dtype_of(f[5]);
    tsr_tensor *a = make_input(f[6], f[7]);
    if (!a) {
        fail(id, "input", tsr_last_error(), f[7]);
        return;
    }
    tsr_tensor *out = NULL, *out2 = NULL, *r = NULL, *r2 = NULL;
    bool is_out = strcmp(form, "out") == 0;
    if (is_out) {
        out = make_out(f[8]);
        const char *semi = strchr(f[8], ';');
        if (semi)
            out2 = make_out(semi + 1);
    }
    tsr_status st = TSR_STATUS_COUNT;
    bool pair = strcmp(op, "max") == 0 || strcmp(op, "min") == 0;
    if (pair) {
        bool max = op[1] == 'a';
        if (is_out)
            st = max ? tsr_max_dim_out(a, dims[0], keepdim, out, out2)
                     : tsr_min_dim_out(a, dims[0], keepdim, out, out2);
        else
            st = max ? tsr_max_dim(a, dims[0], keepdim, &r, &r2)
                     : tsr_min_dim(a, dims[0], keepdim, &r, &r2);
    } else if (!is_out && more_op(op, a, dims, ndims, keepdim, dtype, &r, &st)) {
        /* var, std, norm, logsumexp, softmax, log_softmax, cumsum */
    } else {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            if (strcmp(ops[i].name, op) != 0)
                continue;
            if (ops[i].plain)
                st = is_out ? ops[i].plain_out(a, dims, ndims, keepdim, out)
                            : ops[i].plain(a, dims, ndims, keepdim, &r);
            else
                st = is_out ? ops[i].with_dtype_out(a, dims, ndims, keepdim, dtype, out)
                            : ops[i].with_dtype(a, dims, ndims, keepdim, dtype, &r);
        }
    }
    if (strcmp(f[9], "err") == 0) {
        if (st == TSR_OK || strcmp(tsr_status_name(st), f[10]) != 0)
            fail(id, "status", tsr_status_name(st), f[10]);
        else if (strcmp(tsr_last_error(), f[11]) != 0)
            fail(id, "message", tsr_last_error(), f[11]);
    } else if (st != TSR_OK) {
        fail(id, "status", tsr_status_name(st), "TSR_OK");
    } else if (nf >= 15) {
        double tol = strtod(f[12], NULL);
        check_result(id, is_out ? out : r, f[10], f[11], tol, f[13]);
        if (pair)
            check_result(id, is_out ? out2 : r2, "int64", f[11], 0, f[14]);
    }
    tsr_tensor_release(a);
    tsr_tensor_release(out);
    tsr_tensor_release(out2);
    tsr_tensor_release(r);
    tsr_tensor_release(r2);
}

/* ---- accuracy ---------------------------------------------------------------- */

/* gen_reduce_cases.py's acc_values: float32 bits of mixed signs and
 * magnitudes from splitmix64. */
static void acc_values(int64_t n, uint64_t seed, uint32_t *out)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        s += 0x9E3779B97F4A7C15u;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        z ^= z >> 31;
        uint32_t sign = (uint32_t)(z >> 63) & 1, exp = 127 - 12 + (uint32_t)((z >> 40) % 25);
        out[i] = sign << 31 | exp << 23 | (uint32_t)(z & 0x7FFFFF);
    }
}

/* gen_reduce_cases.py's big_values: k / 16 (k in -128..127) for floating
 * dtypes, k for integers, 1 + k / 4096 for products, as float64 (or
 * int64) values converted into `dt` by tsr_tensor_from_data. */
static tsr_tensor *big_values(int64_t n, uint64_t seed, tsr_dtype dt, bool near_one)
{
    int parts = tsr_dtype_is_complex(dt) ? 2 : 1;
    bool real = tsr_dtype_is_floating_point(dt) || tsr_dtype_is_complex(dt);
    double *d = malloc(sizeof(double) * (size_t)(n * parts));
    int64_t *k = malloc(sizeof(int64_t) * (size_t)(n * parts));
    uint64_t st = seed;
    for (int64_t i = 0; i < n * parts; i++) {
        st += 0x9E3779B97F4A7C15u;
        uint64_t z = st;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        z ^= z >> 31;
        k[i] = (int64_t)((z >> 40) % 256) - 128;
        d[i] = near_one ? 1 + (double)k[i] / 4096 : (double)k[i] / 16;
    }
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt};
    tsr_tensor *t = NULL;
    tsr_status st2;
    if (!real)
        st2 = tsr_tensor_from_data(NULL, 1, &n, TSR_INT64, k, &o, &t);
    else if (parts == 2)
        st2 = tsr_tensor_from_data(NULL, 1, &n, TSR_COMPLEX128, d, &o, &t);
    else
        st2 = tsr_tensor_from_data(NULL, 1, &n, TSR_FLOAT64, d, &o, &t);
    free(d);
    free(k);
    return st2 == TSR_OK ? t : NULL;
}

static void run_big(char **f)
{
    if (on_meta)
        return;
    cases++;
    const char *op = f[1];
    tsr_dtype dt = dtype_of(f[2]);
    int64_t sizes[32], dims[32];
    int nd = parse_ints(f[3], sizes), ndims = 0;
    if (strcmp(f[4], "-") != 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "[%s]", f[4]);
        ndims = parse_ints(buf, dims);
    }
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= sizes[d];
    tsr_tensor *flat = big_values(n, strtoull(f[5], NULL, 10), dt, strcmp(op, "prod") == 0);
    tsr_tensor *x = NULL, *r = NULL;
    tsr_status st = TSR_STATUS_COUNT;
    if (flat && tsr_tensor_view(flat, sizes, nd, &x) == TSR_OK) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(ops[i].name, op) == 0)
                st = ops[i].plain ? ops[i].plain(x, dims, ndims, false, &r)
                                  : ops[i].with_dtype(x, dims, ndims, false, TSR_NO_DTYPE, &r);
    }
    char id[64];
    snprintf(id, sizeof id, "big %s %s %s", op, f[2], f[3]);
    if (st != TSR_OK)
        fail(id, "status", tsr_status_name(st), "TSR_OK");
    else
        check_result(id, r, f[6], f[7], strtod(f[8], NULL), f[9]);
    tsr_tensor_release(flat);
    tsr_tensor_release(x);
    tsr_tensor_release(r);
}

static void run_accuracy(char **f)
{
    if (on_meta)
        return;
    cases++;
    int64_t n = strtoll(f[1], NULL, 10);
    uint64_t seed = strtoull(f[2], NULL, 10);
    unsigned char tb[4], eb[8];
    unhex(f[3], tb, 4);
    unhex(f[4], eb, 8);
    float torch_sum;
    double exact;
    memcpy(&torch_sum, tb, 4);
    memcpy(&exact, eb, 8);
    uint32_t *bits = malloc((size_t)n * 4);
    acc_values(n, seed, bits);
    tsr_tensor *t = NULL, *r = NULL;
    float ours = NAN;
    if (tsr_tensor_from_data(NULL, 1, &n, TSR_FLOAT32, bits, NULL, &t) == TSR_OK &&
        tsr_sum(t, NULL, 0, false, TSR_NO_DTYPE, &r) == TSR_OK)
        tsr_tensor_copy_to_host(r, &ours, 4);
    double err_t = fabs((double)torch_sum - exact), err_o = fabs((double)ours - exact);
    printf("float32 sum of 2^%-2d elements: error %.3e (PyTorch 1.13: %.3e), exact %.9g\n",
           (int)round(log2((double)n)), err_o, err_t, exact);
    if (!(err_o <= err_t)) {
        char g[64], w[64];
        snprintf(g, sizeof g, "error %.6g", err_o);
        snprintf(w, sizeof w, "<= %.6g", err_t);
        fail("acc", "float32 sum error", g, w);
    }
    tsr_tensor_release(t);
    tsr_tensor_release(r);
    free(bits);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [--meta]\n", argv[0]);
        return 2;
    }
    on_meta = argc > 2 && strcmp(argv[2], "--meta") == 0;
    FILE *fp = fopen(argv[1], "r");
    if (!fp) {
        perror(argv[1]);
        return 1;
    }
    const char *only = getenv("REDUCE_ONLY");
    size_t cap = 1 << 20;
    char *line = malloc(cap);
    while (fgets(line, (int)cap, fp)) {
        size_t len = strlen(line);
        while (len == cap - 1 && line[len - 1] != '\n') {
            cap *= 2;
            line = realloc(line, cap);
            if (!fgets(line + len, (int)(cap - len), fp))
                break;
            len = strlen(line);
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (len && line[len - 1] == '\n')
            line[len - 1] = '\0';
        char *f[MAX_FIELDS] = {0};
        int nf = split(line, f);
        if (strcmp(f[0], "acc") == 0) {
            run_accuracy(f);
            continue;
        }
        if (strcmp(f[0], "big") == 0) {
            if (nf >= 10)
                run_big(f);
            continue;
        }
        if (only && strcmp(only, f[0]) != 0)
            continue;
        if (nf < 12) {
            fail(f[0], "line", "too few fields", "12");
            continue;
        }
        run_case(f, nf);
    }
    free(line);
    fclose(fp);
    printf("%s%s: %d cases, %d failed\n", argv[1], on_meta ? " (meta)" : "", cases, failures);
    return failures ? 1 : 0;
}
