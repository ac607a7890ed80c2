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
 *   test_reduce_opencl [--daemon-option ...] FILE
 *                                (this file built with REDUCE_OPENCL; leading
 *                                arguments that begin with "--" go to the
 *                                daemon, such as --device-memory=copy)
 * REDUCE_ONLY=<id> runs one case.
 *
 * test_reduce_opencl starts a real daemon and runs every case on opencl:0
 * too: its status and message must be the cpu's, and its results the
 * cpu's bit for bit (as well as PyTorch's, as above); then reductions of
 * 2^20 and 2^22 elements (several shapes, dims and strided views, every
 * reduction, the common dtypes) must give the cpu's bits. Exit 77 when
 * the daemon sees no opencl device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"
#ifdef REDUCE_OPENCL
#include "integration/support_daemon.h"
#endif

#define MAX_FIELDS 16

static int failures, cases, printed, mismatches;
static bool on_meta;
/* opencl: the client, and whether this run puts inputs on opencl:0 */
static tsr_client *client;
static bool on_opencl;

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
    tsr_device d = {on_meta     ? TSR_DEVICE_META
                    : on_opencl ? TSR_DEVICE_OPENCL
                                : TSR_DEVICE_CPU,
                    on_opencl ? 0 : -1};
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
    if (tsr_tensor_from_data(client, 1, &len, dt, data, &o, &storage) != TSR_OK) {
        /* meta tensors hold no data: an empty meta storage of that size */
        if (tsr_tensor_empty(client, 1, &len, &o, &storage) != TSR_OK) {
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
    if (tsr_tensor_zeros(client, nd, sizes, &o, &t) != TSR_OK)
        return NULL;
    return t;
}

/* ---- opencl:0 against the cpu ------------------------------------------------ */

/* What one run of a case gave: its status and message, its results. */
typedef struct outcome {
    tsr_status st;
    char message[512];
    tsr_tensor *r, *r2;
} outcome;

static void outcome_release(outcome *o)
{
    tsr_tensor_release(o->r);
    tsr_tensor_release(o->r2);
}

/* Whether two results hold the same dtype, sizes and bytes. */
static bool same_bits(const tsr_tensor *a, const tsr_tensor *b)
{
    if (!a || !b)
        return a == b;
    if (tsr_tensor_dtype(a) != tsr_tensor_dtype(b) || tsr_tensor_ndim(a) != tsr_tensor_ndim(b) ||
        tsr_tensor_nbytes(a) != tsr_tensor_nbytes(b) ||
        memcmp(tsr_tensor_sizes(a), tsr_tensor_sizes(b),
               sizeof(int64_t) * (size_t)tsr_tensor_ndim(a)) != 0)
        return false;
    size_t n = (size_t)tsr_tensor_nbytes(a);
    unsigned char *x = malloc(n + 1), *y = malloc(n + 1);
    bool same = tsr_tensor_copy_to_host(a, x, n) == TSR_OK &&
                tsr_tensor_copy_to_host(b, y, n) == TSR_OK && memcmp(x, y, n) == 0;
    free(x);
    free(y);
    return same;
}

/* opencl:0's outcome against the cpu's: the same status, message and
 * bits. */
static void compare_devices(const char *id, const outcome *cl, const outcome *cpu)
{
    if (cl->st != cpu->st || (cl->st != TSR_OK && strcmp(cl->message, cpu->message) != 0)) {
        mismatches++;
        fail(id, "opencl:0 against cpu", cl->message, cpu->message);
    } else if (cl->st == TSR_OK && (!same_bits(cl->r, cpu->r) || !same_bits(cl->r2, cpu->r2))) {
        mismatches++;
        fail(id, "opencl:0 against cpu", "other bits", "the cpu's");
    }
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
 * field's parameter follows a colon (var:1, norm:inf); into `out` when
 * it is not NULL (out=), else into a new *r. False when op is none of
 * them. */
static bool more_op(const char *op, const tsr_tensor *a, const int64_t *dims, int ndims,
                    bool keepdim, tsr_dtype dtype, tsr_tensor *out, tsr_tensor **r, tsr_status *st)
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
    if (strcmp(name, "var") == 0 || strcmp(name, "std") == 0) {
        bool var = name[0] == 'v';
        int64_t c = strtoll(param, NULL, 10);
        *st = out   ? (var ? tsr_var_out : tsr_std_out)(a, dims, ndims, c, keepdim, out)
              : var ? tsr_var(a, dims, ndims, c, keepdim, r)
                    : tsr_std(a, dims, ndims, c, keepdim, r);
    } else if (strcmp(name, "norm") == 0) {
        double p = strcmp(param, "inf") == 0 ? INFINITY : strtod(param, NULL);
        *st = out ? tsr_norm_out(a, p, dims, ndims, keepdim, out)
                  : tsr_norm(a, p, dims, ndims, keepdim, r);
    } else if (strcmp(name, "logsumexp") == 0) {
        *st = out ? tsr_logsumexp_out(a, dims, ndims, keepdim, out)
                  : tsr_logsumexp(a, dims, ndims, keepdim, r);
    } else {
        static const struct {
            const char *name;
            tsr_status (*fn)(const tsr_tensor *, int64_t, tsr_dtype, tsr_tensor **);
            tsr_status (*out_fn)(const tsr_tensor *, int64_t, tsr_dtype, tsr_tensor *);
        } along[] = {{"softmax", tsr_softmax, tsr_softmax_out},
                     {"log_softmax", tsr_log_softmax, tsr_log_softmax_out},
                     {"cumsum", tsr_cumsum, tsr_cumsum_out}};
        size_t i = 0;
        while (i < sizeof along / sizeof along[0] && strcmp(along[i].name, name) != 0)
            i++;
        if (i == sizeof along / sizeof along[0])
            return false;
        *st = out ? along[i].out_fn(a, dim, dtype, out) : along[i].fn(a, dim, dtype, r);
    }
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

/* Runs case f on the current device into *o. */
static void run_once(char **f, outcome *o)
{
    const char *id = f[0], *op = f[1], *form = f[2];
    *o = (outcome){.st = TSR_STATUS_COUNT};
    int64_t dims[32];
    int ndims = 0;
    if (strcmp(f[3], "-") != 0) {
        char buf[128];
        snprintf(buf, sizeof buf, "[%s]", f[3]);
        ndims = parse_ints(buf, dims);
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
    } else if (more_op(op, a, dims, ndims, keepdim, dtype, out, &r, &st)) {
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
    o->st = st;
    if (st != TSR_OK)
        snprintf(o->message, sizeof o->message, "%s", tsr_last_error());
    o->r = is_out ? out : r;
    o->r2 = is_out ? out2 : r2;
    tsr_tensor_release(a);
    tsr_tensor_release(is_out ? r : out);
    tsr_tensor_release(is_out ? r2 : out2);
}

static void run_case(char **f, int nf)
{
    const char *id = f[0];
    /* A dtype PyTorch's cpu kernel refuses is no error on meta, which
     * runs no kernel. */
    if (on_meta && strcmp(f[9], "err") == 0 && strcmp(f[10], "TSR_ERR_NOT_SUPPORTED") == 0)
        return;
    cases++;
    outcome o;
    run_once(f, &o);
    bool pair = strcmp(f[1], "max") == 0 || strcmp(f[1], "min") == 0;
    if (strcmp(f[9], "err") == 0) {
        if (o.st == TSR_OK || strcmp(tsr_status_name(o.st), f[10]) != 0)
            fail(id, "status", tsr_status_name(o.st), f[10]);
        else if (strcmp(o.message, f[11]) != 0)
            fail(id, "message", o.message, f[11]);
    } else if (o.st != TSR_OK) {
        fail(id, "status", tsr_status_name(o.st), "TSR_OK");
    } else if (nf >= 15) {
        double tol = strtod(f[12], NULL);
        check_result(id, o.r, f[10], f[11], tol, f[13]);
        if (pair)
            check_result(id, o.r2, "int64", f[11], 0, f[14]);
    }
    if (on_opencl) {
        outcome c;
        on_opencl = false;
        run_once(f, &c);
        on_opencl = true;
        compare_devices(id, &o, &c);
        outcome_release(&c);
    }
    outcome_release(&o);
}

/* ---- accuracy ---------------------------------------------------------------- */

/* The next value of splitmix64 (gen_reduce_cases.py's). */
static uint64_t splitmix(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15u;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* gen_reduce_cases.py's acc_values: float32 bits of mixed signs and
 * magnitudes from splitmix64. */
static void acc_values(int64_t n, uint64_t seed, uint32_t *out)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = splitmix(&s);
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
        uint64_t z = splitmix(&st);
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

/* A new reference to t on the device of this run (a copy on opencl:0),
 * or NULL. */
static tsr_tensor *to_device(tsr_tensor *t)
{
    tsr_tensor *moved = NULL;
    tsr_tensor_options o = {.has_device = true, .device = device()};
    if (t && tsr_tensor_to(client, t, &o, false, &moved) != TSR_OK)
        moved = NULL;
    return moved;
}

/* The reduction named `op` of x over dims (no keepdim, no dtype=). */
static tsr_status reduce_by_name(const char *op, const tsr_tensor *x, const int64_t *dims,
                                 int ndims, tsr_tensor **r)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, op) == 0)
            return ops[i].plain ? ops[i].plain(x, dims, ndims, false, r)
                                : ops[i].with_dtype(x, dims, ndims, false, TSR_NO_DTYPE, r);
    return TSR_ERR_INVALID_ARGUMENT;
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
    tsr_tensor *x = NULL, *r = NULL, *on = to_device(flat);
    tsr_status st = TSR_STATUS_COUNT;
    if (on && tsr_tensor_view(on, sizes, nd, &x) == TSR_OK)
        st = reduce_by_name(op, x, dims, ndims, &r);
    char id[64];
    snprintf(id, sizeof id, "big %s %s %s", op, f[2], f[3]);
    if (st != TSR_OK)
        fail(id, "status", tsr_status_name(st), "TSR_OK");
    else
        check_result(id, r, f[6], f[7], strtod(f[8], NULL), f[9]);
    if (on_opencl && st == TSR_OK) {
        tsr_tensor *xc = NULL;
        outcome cl = {.st = TSR_OK, .r = r}, cpu = {.st = TSR_STATUS_COUNT};
        if (tsr_tensor_view(flat, sizes, nd, &xc) == TSR_OK)
            cpu.st = reduce_by_name(op, xc, dims, ndims, &cpu.r);
        compare_devices(id, &cl, &cpu);
        tsr_tensor_release(xc);
        outcome_release(&cpu);
    }
    tsr_tensor_release(flat);
    tsr_tensor_release(on);
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
    tsr_tensor *t = NULL, *r = NULL, *on = NULL;
    float ours = NAN;
    if (tsr_tensor_from_data(NULL, 1, &n, TSR_FLOAT32, bits, NULL, &t) == TSR_OK &&
        (on = to_device(t)) != NULL && tsr_sum(on, NULL, 0, false, TSR_NO_DTYPE, &r) == TSR_OK)
        tsr_tensor_copy_to_host(r, &ours, 4);
    if (on_opencl && r) {
        outcome cl = {.st = TSR_OK, .r = r}, cpu = {.st = TSR_STATUS_COUNT};
        cpu.st = tsr_sum(t, NULL, 0, false, TSR_NO_DTYPE, &cpu.r);
        compare_devices("acc", &cl, &cpu);
        outcome_release(&cpu);
    }
    tsr_tensor_release(on);
    double err_t = fabs((double)torch_sum - exact), err_o = fabs((double)ours - exact);
    printf("float32 sum of 2^%-2d elements: error %.3e (PyTorch 1.13: %.3e), exact %.9g\n",
           (int)round(log2((double)n)), err_o, err_t, exact);
    /* no worse than PyTorch, or within a unit in the last place of the
     * exact sum (a faithful rounding): the pairs of kernels/reduce_order.h
     * are each rounded once, so a sum PyTorch happens to round correctly
     * may come out a unit away */
    float fx = (float)fabs(exact);
    double ulp = (double)nextafterf(fx, INFINITY) - (double)fx;
    if (!(err_o <= err_t || err_o < ulp)) {
        char g[64], w[64];
        snprintf(g, sizeof g, "error %.6g", err_o);
        snprintf(w, sizeof w, "<= %.6g or < %.6g", err_t, ulp);
        fail("acc", "float32 sum error", g, w);
    }
    tsr_tensor_release(t);
    tsr_tensor_release(r);
    free(bits);
}

#ifdef REDUCE_OPENCL
/* ---- large reductions: opencl:0 against the cpu ------------------------------ */

/* n values for `dt` from splitmix64: mixed signs and magnitudes for
 * floating types (a NaN every 997th where `nans`), 1 + k / 65536 for
 * products, k in -128..127 for integers, as float64 for from_data. */
static double *large_values(int64_t n, uint64_t seed, bool near_one, bool nans)
{
    double *d = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = splitmix(&seed);
        double k = (double)((int64_t)(z % 256) - 128);
        d[i] = near_one ? 1 + k / 65536 : ldexp(k / 3, (int)((z >> 20) % 12) - 6);
        if (nans && i % 997 == 996)
            d[i] = NAN;
    }
    return d;
}

typedef struct large_case {
    const char *op;
    tsr_dtype dtype;
    int ndim;
    int64_t sizes[3];
    bool transposed; /* the last two dimensions swapped: a strided view */
    int64_t step;    /* every step-th element of the storage (a strided view), or 1 */
    int ndims;
    int64_t dims[2];
} large_case;

/* What a case's values hold besides large_values' mix. */
typedef enum large_extra {
    LARGE_PLAIN,
    LARGE_NANS, /* NaNs among them (always for nansum and co) */
    /* a sum over dim 0 whose value depends on the order: each chunk's
     * rows 0 and 1 +3e38, rows 8 and 9 -3e38, the rest 0. The lanes'
     * fold (0 with 8, 1 with 9) makes +0 of each chunk, and so of every
     * sum; another pairing (0 with 1) overflows and makes NaN. */
    LARGE_OVERFLOW,
} large_extra;

static void run_large_extra(const large_case *c, large_extra extra)
{
    int64_t n = 1;
    for (int d = 0; d < c->ndim; d++)
        n *= c->sizes[d];
    int64_t total = n * c->step;
    bool nans = extra == LARGE_NANS || strncmp(c->op, "nan", 3) == 0;
    double *v = large_values(total, (uint64_t)total + c->dtype, strcmp(c->op, "prod") == 0, nans);
    for (int64_t i = 0; extra == LARGE_OVERFLOW && i < total; i++) {
        int64_t r = i / (total / c->sizes[0]) % 4096;
        v[i] = r == 0 || r == 1 ? 3e38 : r == 8 || r == 9 ? -3e38 : 0;
    }
    tsr_tensor_options o = {.has_dtype = true, .dtype = c->dtype};
    tsr_tensor *flat = NULL, *x[2] = {NULL, NULL};
    outcome got[2] = {{.st = TSR_STATUS_COUNT}, {.st = TSR_STATUS_COUNT}};
    char id[128];
    snprintf(id, sizeof id, "large %s %s [%lld,%lld,%lld]%s step %lld dims %d%s", c->op,
             tsr_dtype_name(c->dtype), (long long)c->sizes[0],
             (long long)(c->ndim > 1 ? c->sizes[1] : 0), (long long)(c->ndim > 2 ? c->sizes[2] : 0),
             c->transposed ? " transposed" : "", (long long)c->step, c->ndims,
             extra == LARGE_NANS       ? " nans"
             : extra == LARGE_OVERFLOW ? " overflow"
                                       : "");
    cases++;
    if (tsr_tensor_from_data(NULL, 1, &total, TSR_FLOAT64, v, &o, &flat) == TSR_OK) {
        for (int k = 0; k < 2; k++) { /* 0: opencl:0, 1: cpu */
            on_opencl = k == 0;
            tsr_tensor *on = to_device(flat);
            int64_t sizes[3], strides[3], s = c->step;
            for (int d = c->ndim - 1; d >= 0; d--) {
                sizes[d] = c->sizes[d];
                strides[d] = s;
                s *= c->sizes[d];
            }
            if (c->transposed) { /* sizes [.., b, a] over a storage of [.., a, b] */
                int a = c->ndim - 2, b = c->ndim - 1;
                int64_t t = sizes[a];
                sizes[a] = sizes[b], sizes[b] = t;
                strides[b] = c->step * sizes[a];
                strides[a] = c->step;
            }
            if (on && tsr_tensor_as_strided(on, c->ndim, sizes, strides, 0, &x[k]) == TSR_OK) {
                bool pair = strcmp(c->op, "max") == 0 || strcmp(c->op, "min") == 0;
                got[k].st = pair ? (c->op[1] == 'a' ? tsr_max_dim : tsr_min_dim)(
                                       x[k], c->dims[0], false, &got[k].r, &got[k].r2)
                                 : reduce_by_name(c->op, x[k], c->dims, c->ndims, &got[k].r);
                if (got[k].st != TSR_OK)
                    snprintf(got[k].message, sizeof got[k].message, "%s", tsr_last_error());
            }
            tsr_tensor_release(on);
        }
        on_opencl = true;
    }
    if (got[1].st != TSR_OK)
        fail(id, "cpu status", tsr_status_name(got[1].st), "TSR_OK");
    else
        compare_devices(id, &got[0], &got[1]);
    if (got[1].st == TSR_OK && extra == LARGE_OVERFLOW) { /* the order's answer */
        int64_t m = c->sizes[1];
        float *sums = calloc((size_t)m, sizeof *sums);
        bool zero =
            sums && tsr_tensor_copy_to_host(got[1].r, sums, (size_t)m * sizeof *sums) == TSR_OK;
        for (int64_t i = 0; zero && i < m; i++)
            zero = sums[i] == 0 && !signbit(sums[i]);
        if (!zero)
            fail(id, "cpu sums", "other values", "+0 everywhere");
        free(sums);
    }
    for (int k = 0; k < 2; k++) {
        outcome_release(&got[k]);
        tsr_tensor_release(x[k]);
    }
    tsr_tensor_release(flat);
    free(v);
}

static void run_large_case(const large_case *c)
{
    run_large_extra(c, LARGE_PLAIN);
}

static void run_large(void)
{
    static const char *const all_ops[] = {"sum",  "mean", "nansum", "nanmean", "prod",
                                          "amax", "amin", "argmax", "argmin",  "all",
                                          "any",  "max",  "min"};
    static const tsr_dtype more[] = {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT64,  TSR_INT32,
                                     TSR_UINT8,   TSR_BOOL,     TSR_COMPLEX64};
    const int64_t M = INT64_C(1) << 20;
    /* float32: every reduction over 2^20 (whole, a strided view, along
     * each dim of a matrix and of its transposed view); sums of 2^22 */
    for (size_t i = 0; i < sizeof all_ops / sizeof all_ops[0]; i++) {
        const char *op = all_ops[i];
        bool one = strcmp(op, "prod") == 0 || strcmp(op, "all") == 0 || strcmp(op, "any") == 0 ||
                   strncmp(op, "arg", 3) == 0 || strcmp(op, "max") == 0 || strcmp(op, "min") == 0;
        if (strcmp(op, "max") != 0 && strcmp(op, "min") != 0)
            run_large_case(&(large_case){op, TSR_FLOAT32, 1, {M}, false, 1, 0, {0}});
        run_large_case(&(large_case){op, TSR_FLOAT32, 1, {M}, false, 3, 1, {0}});
        for (int64_t d = 0; d < 2; d++) {
            run_large_case(&(large_case){op, TSR_FLOAT32, 2, {1024, 1024}, false, 1, 1, {d}});
            run_large_case(&(large_case){op, TSR_FLOAT32, 2, {512, 2048}, true, 1, 1, {d}});
        }
        if (!one)
            run_large_case(&(large_case){op, TSR_FLOAT32, 3, {64, 128, 128}, false, 1, 2, {0, 2}});
    }
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 1, {4 * M}, false, 1, 0, {0}});
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 2, {2048, 2048}, true, 1, 1, {1}});
    run_large_case(&(large_case){"mean", TSR_FLOAT32, 3, {16, 512, 512}, false, 1, 2, {0, 2}});
    /* sums over dim 0 (the devices' column walk): groups of 64 columns
     * and the rest, over several chunks, in float32 and float64; over
     * dims 0 and 1 of a strided view */
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 2, {9000, 130}, false, 1, 1, {0}});
    run_large_case(&(large_case){"mean", TSR_FLOAT64, 2, {9000, 130}, false, 1, 1, {0}});
    run_large_case(&(large_case){"sum", TSR_FLOAT64, 2, {1024, 1024}, false, 1, 1, {0}});
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 3, {40, 300, 200}, false, 1, 2, {0, 1}});
    /* wide column walks: 1024 outputs a work-item where there are
     * enough (a chunk of 20 rows, lanes of one and two rows), several
     * chunks over 256 of them; sums that only the order's pairing of the
     * lanes and chunks keeps finite */
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 2, {20, 16384}, false, 1, 1, {0}});
    run_large_case(&(large_case){"mean", TSR_FLOAT64, 2, {20, 16384}, false, 1, 1, {0}});
    run_large_case(&(large_case){"sum", TSR_FLOAT32, 3, {4100, 2, 1024}, false, 1, 1, {0}});
    run_large_extra(&(large_case){"sum", TSR_FLOAT32, 2, {32, 8192}, false, 1, 1, {0}},
                    LARGE_OVERFLOW);
    run_large_extra(&(large_case){"sum", TSR_FLOAT32, 2, {8210, 130}, false, 1, 1, {0}},
                    LARGE_OVERFLOW);
    /* positions of the first best among NaNs (the vector scan's two
     * chains and their lanes each meet several) */
    run_large_extra(&(large_case){"argmax", TSR_FLOAT32, 1, {M}, false, 1, 0, {0}}, LARGE_NANS);
    run_large_extra(&(large_case){"argmin", TSR_FLOAT64, 2, {1024, 1024}, false, 1, 1, {1}},
                    LARGE_NANS);
    run_large_extra(&(large_case){"argmax", TSR_FLOAT32, 2, {64, 33 * 16}, false, 1, 1, {1}},
                    LARGE_NANS);
    /* the other dtypes: their sums, extremes and positions */
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        tsr_dtype dt = more[i];
        bool real = dt != TSR_COMPLEX64;
        const char *ops_of[] = {"sum", real ? "amax" : "prod", real ? "argmin" : "mean",
                                dt == TSR_BOOL ? "all" : "prod"};
        for (size_t k = 0; k < sizeof ops_of / sizeof ops_of[0]; k++) {
            if ((dt == TSR_FLOAT16 || dt == TSR_BFLOAT16) && strcmp(ops_of[k], "prod") == 0)
                continue; /* PyTorch 1.13 has no such cpu kernel */
            if (dt == TSR_BOOL && strcmp(ops_of[k], "argmin") == 0)
                continue;
            run_large_case(&(large_case){ops_of[k], dt, 1, {4 * M}, false, 1, 0, {0}});
            run_large_case(&(large_case){ops_of[k], dt, 2, {1024, 1024}, true, 1, 1, {0}});
            run_large_case(&(large_case){ops_of[k], dt, 2, {1024, 1024}, false, 2, 1, {1}});
        }
    }
}
#endif

int main(int argc, char **argv)
{
#ifdef REDUCE_OPENCL
    const char *extra[9] = {0};
    int nextra = 0;
    while (argc > 2 && strncmp(argv[1], "--", 2) == 0 && nextra < 8) {
        extra[nextra++] = argv[1];
        argv++;
        argc--;
    }
#endif
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
#ifdef REDUCE_OPENCL
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_daemon daemon;
    int32_t count = 0;
    if (test_daemon_start(&daemon, nextra ? extra : NULL) != 0)
        return 1;
    if (tsr_client_open(NULL, &client) != TSR_OK ||
        tsr_device_count(client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        printf("skipped: the daemon sees no opencl device (%s)\n", tsr_last_error());
        tsr_client_close(client);
        test_daemon_stop(&daemon);
        fclose(fp);
        return 77;
    }
    tsr_device_properties props;
    bool copy = nextra > 0 && (strcmp(extra[0], "--device-memory=copy") == 0 ||
                               strcmp(extra[0], "--device-memory=staged") == 0);
    if (tsr_device_get_properties(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) != TSR_OK ||
        (copy && props.host_unified_memory)) {
        fprintf(stderr, "opencl:0 is not served as asked: %s\n", tsr_last_error());
        failures++;
    }
    printf("opencl:0: %s\n", props.host_unified_memory ? "zero copy" : "through copies");
    on_opencl = true;
#endif
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
#ifdef REDUCE_OPENCL
    if (!only)
        run_large();
    tsr_client_close(client);
    if (test_daemon_stop(&daemon) != 0) {
        fprintf(stderr, "the daemon did not exit cleanly\n");
        failures++;
    }
#endif
    printf("%s%s: %d cases, %d failed (%d where opencl:0 and cpu differ)\n", argv[1],
           on_meta     ? " (meta)"
           : on_opencl ? " (opencl:0)"
                       : "",
           cases, failures, mismatches);
    return failures ? 1 : 0;
}
