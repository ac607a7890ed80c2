/* The op cases' runner (see support_ops.h). A row is parsed into an
 * ops_case (storages, operands, the call), built on the env's devices,
 * called once, and its ops_outcome compared with the row's answer and,
 * when there is a twin device, with the twin's outcome. */
#include "support_ops.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/support_table.h"

/* The operations are referenced weakly: a library that does not have them
 * all yet still links, and the cases that need a missing one fail with a
 * message naming it instead of the whole suite failing to build. */
#define OPS_FUNCTIONS(X)                                                                           \
    X(tsr_add)                                                                                     \
    X(tsr_add_out)                                                                                 \
    X(tsr_add_)                                                                                    \
    X(tsr_add_scalar)                                                                              \
    X(tsr_add_scalar_out)                                                                          \
    X(tsr_add_scalar_)                                                                             \
    X(tsr_sub)                                                                                     \
    X(tsr_sub_out)                                                                                 \
    X(tsr_sub_)                                                                                    \
    X(tsr_sub_scalar)                                                                              \
    X(tsr_sub_scalar_out)                                                                          \
    X(tsr_sub_scalar_)                                                                             \
    X(tsr_mul) X(tsr_mul_out) X(tsr_mul_) X(tsr_mul_scalar) X(tsr_mul_scalar_out)                  \
        X(tsr_mul_scalar_) X(tsr_div) X(tsr_div_out) X(tsr_div_) X(tsr_div_scalar)                 \
            X(tsr_div_scalar_out) X(tsr_div_scalar_) X(tsr_tensor_copy_) X(tsr_tensor_fill_)       \
                X(tsr_tensor_to) X(tsr_tensor_clone) X(tsr_tensor_contiguous) X(tsr_synchronize)   \
                    X(tsr_where) X(tsr_where_out) X(tsr_where_scalar) X(tsr_where_scalar_self) X(  \
                        tsr_where_scalars) X(tsr_clamp) X(tsr_clamp_out) X(tsr_clamp_) X(tsr_lerp) \
                        X(tsr_lerp_out) X(tsr_lerp_) X(tsr_lerp_scalar) X(tsr_lerp_scalar_out) X(  \
                            tsr_lerp_scalar_) X(tsr_addcmul) X(tsr_addcmul_out) X(tsr_addcmul_)    \
                            X(tsr_addcdiv) X(tsr_addcdiv_out) X(tsr_addcdiv_) X(tsr_clamp_scalar)  \
                                X(tsr_clamp_scalar_out) X(tsr_clamp_scalar_) X(tsr_gelu)           \
                                    X(tsr_gelu_out) X(tsr_gelu_) X(tsr_gelu_approximate_from_name) \
                                        X(tsr_pow) X(tsr_pow_out) X(tsr_pow_) X(tsr_pow_scalar)    \
                                            X(tsr_pow_scalar_out) X(tsr_pow_scalar_) X(            \
                                                tsr_pow_scalar_self) X(tsr_pow_scalar_self_out)    \
                                                X(tsr_round_decimals) X(tsr_round_decimals_out)    \
                                                    X(tsr_round_decimals_) X(tsr_nan_to_num)       \
                                                        X(tsr_nan_to_num_out) X(tsr_nan_to_num_)
/* The operations whose public functions the op table makes (api TENSOR):
 * tsr_<name>, tsr_<name>_out, tsr_<name>_. */
#define TENSOR_API_INTERNAL(name, X)
#define TENSOR_API_HAND(name, X)
/* reductions: tests/ops/test_reduce_conformance.c */
#define TENSOR_API_REDUCE(name, X)
#define TENSOR_API_REDUCE_DTYPE(name, X)
#define TENSOR_API_TENSOR(name, X) X(tsr_##name) X(tsr_##name##_out) X(tsr_##name##_)
#define TENSOR_API_UNARY TENSOR_API_TENSOR
#define TENSOR_API_SCALAR(name, X) \
    TENSOR_API_TENSOR(name, X)     \
    X(tsr_##name##_scalar) X(tsr_##name##_scalar_out) X(tsr_##name##_scalar_)
#define OPS_WEAK(f) extern __typeof__(f) f __attribute__((weak));
OPS_FUNCTIONS(OPS_WEAK)
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) \
    TENSOR_API_##api(name, OPS_WEAK)
#include "core/ops.def"
#undef X
#undef OPS_WEAK

bool ops_api_complete(void)
{
    bool complete = true;
#define OPS_PRESENT(f)                                \
    if (f == NULL) {                                  \
        fprintf(stderr, "libtessera lacks " #f "\n"); \
        complete = false;                             \
    }
    OPS_FUNCTIONS(OPS_PRESENT)
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) \
    TENSOR_API_##api(name, OPS_PRESENT)
#include "core/ops.def"
#undef X
#undef OPS_PRESENT
    return complete;
}

/* A missing operation: the call fails with a status no case expects. */
#define OPS_NEED(f)                                                     \
    do {                                                                \
        if (f == NULL) {                                                \
            snprintf(missing, sizeof(missing), "libtessera lacks " #f); \
            return TSR_STATUS_COUNT;                                    \
        }                                                               \
    } while (0)

static char missing[128];

#define MAX_BASES 8

typedef struct ops_base {
    tsr_dtype dtype;
    int64_t n;
    bool acc;
    unsigned char *bytes;
    size_t nbytes;
    tsr_tensor *t;
} ops_base;

typedef enum { OPND_NONE, OPND_VIEW, OPND_SCALAR } opnd_kind;

typedef struct ops_operand {
    opnd_kind kind;
    int base;
    int ndim;
    int64_t sizes[TSR_MAX_DIMS], strides[TSR_MAX_DIMS], offset;
    tsr_scalar scalar;
    const char *text;
    tsr_tensor *t;
} ops_operand;

typedef struct ops_case {
    const char *path;
    const table_row *row;
    const char *id, *op, *form, *arg;
    int nbases;
    bool mixed; /* some storages are on the accelerator */
    ops_base bases[MAX_BASES];
    ops_operand a, b, out;
    ops_operand third; /* written in the arg field: where's condition, clamp's max,
                          lerp's weight, addcmul's tensor2 */
    tsr_scalar value;  /* addcmul's and addcdiv's, after " & " in the arg field */
    char arg_operand[256];
} ops_case;

enum {
    F_ID,
    F_OP,
    F_FORM,
    F_ARG,
    F_BASES,
    F_A,
    F_B,
    F_OUT,
    F_KIND,
    F_DTYPE,
    F_SIZES,
    F_STRIDES,
    F_SAME,
    F_VALUES,
    F_AFTER,
    F_COUNT
};
#define F_STATUS F_DTYPE
#define F_MESSAGE F_SIZES

/* ---- Reporting ------------------------------------------------------- */

static struct {
    int printed_cases;
    int max_printed;
    const ops_case *current; /* whose header was printed */
    bool failed;
} report_state;

static void describe_operand(const ops_case *c, const ops_operand *o, char *buf, size_t n)
{
    if (o->kind == OPND_NONE) {
        snprintf(buf, n, "-");
    } else if (o->kind == OPND_SCALAR) {
        snprintf(buf, n, "%s", o->text + 2);
    } else {
        const ops_base *b = &c->bases[o->base];
        size_t used =
            (size_t)snprintf(buf, n, "%s%s[", b->acc ? "acc:" : "", tsr_dtype_name(b->dtype));
        for (int i = 0; i < o->ndim && used < n; i++)
            used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, i ? "," : "", o->sizes[i]);
        if (used < n)
            snprintf(buf + used, n - used, "]");
    }
}

static void fail(const ops_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(const ops_case *c, const char *fmt, ...)
{
    if (!report_state.failed) {
        report_state.failed = true;
        report_state.printed_cases++;
    }
    if (report_state.printed_cases > report_state.max_printed)
        return;
    if (report_state.current != c) {
        report_state.current = c;
        char a[96], b[96], out[96];
        describe_operand(c, &c->a, a, sizeof(a));
        describe_operand(c, &c->b, b, sizeof(b));
        describe_operand(c, &c->out, out, sizeof(out));
        fprintf(stderr, "%s:%d: case %s: %s %s %s | a %s | b %s | out %s\n", c->path, c->row->line,
                c->id, c->op, c->form, c->arg, a, b, out);
    }
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "    %s\n", line);
}

/* ---- Parsing ---------------------------------------------------------- */

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* Decodes `len` hex digits; *out is malloc'ed (at least one byte). */
static bool parse_hex(const char *p, size_t len, unsigned char **out, size_t *n)
{
    if (len % 2)
        return false;
    unsigned char *buf = malloc(len / 2 + 1);
    if (!buf)
        return false;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(buf);
            return false;
        }
        buf[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = buf;
    *n = len / 2;
    return true;
}

static bool parse_dtype(const char *p, size_t len, tsr_dtype *out)
{
    char name[48];
    if (len >= sizeof(name))
        return false;
    memcpy(name, p, len);
    name[len] = '\0';
    return tsr_dtype_from_name(name, out) == TSR_OK;
}

/* "[@]dtype:n:hex;..." */
static bool parse_bases(ops_case *c, const char *text)
{
    const char *p = text;
    while (*p) {
        if (c->nbases == MAX_BASES)
            return false;
        ops_base *b = &c->bases[c->nbases++];
        b->acc = *p == '@';
        c->mixed |= b->acc;
        p += b->acc;
        const char *colon = strchr(p, ':');
        if (!colon || !parse_dtype(p, (size_t)(colon - p), &b->dtype))
            return false;
        p = colon + 1;
        if (!table_scan_int(&p, &b->n) || *p++ != ':')
            return false;
        size_t len = strcspn(p, ";");
        if (!parse_hex(p, len, &b->bytes, &b->nbytes) ||
            b->nbytes != (size_t)b->n * tsr_dtype_itemsize(b->dtype))
            return false;
        p += len;
        if (*p == ';')
            p++;
    }
    return true;
}

static bool parse_scalar(const char *text, tsr_scalar *out)
{
    char *end = NULL;
    if (strcmp(text, "b:0") == 0 || strcmp(text, "b:1") == 0) {
        *out = tsr_scalar_bool(text[2] == '1');
        return true;
    }
    if (strncmp(text, "i:", 2) == 0) {
        *out = tsr_scalar_int(strtoll(text + 2, &end, 10));
    } else if (strncmp(text, "f:", 2) == 0) {
        *out = tsr_scalar_float(strtod(text + 2, &end));
    } else if (strncmp(text, "c:", 2) == 0) {
        double re = strtod(text + 2, &end);
        if (*end != ',')
            return false;
        *out = tsr_scalar_complex(re, strtod(end + 1, &end));
    }
    return end != NULL && *end == '\0';
}

/* "v<k> [sizes] [strides] offset", "s <scalar>" or "-". */
static bool parse_operand(const ops_case *c, const char *text, ops_operand *o)
{
    o->text = text;
    if (strcmp(text, "-") == 0) {
        o->kind = OPND_NONE;
        return true;
    }
    if (strncmp(text, "s ", 2) == 0) {
        o->kind = OPND_SCALAR;
        return parse_scalar(text + 2, &o->scalar);
    }
    const char *p = text;
    int64_t k;
    int nstrides;
    o->kind = OPND_VIEW;
    if (*p++ != 'v' || !table_scan_int(&p, &k) || k < 0 || k >= c->nbases || *p++ != ' ' ||
        !table_scan_list(&p, o->sizes, TSR_MAX_DIMS, &o->ndim) || *p++ != ' ' ||
        !table_scan_list(&p, o->strides, TSR_MAX_DIMS, &nstrides) || *p++ != ' ' ||
        !table_scan_int(&p, &o->offset) || *p != '\0' || nstrides != o->ndim)
        return false;
    o->base = (int)k;
    return true;
}

static bool is_addc(const char *op)
{
    return strcmp(op, "addcmul") == 0 || strcmp(op, "addcdiv") == 0;
}

/* The third operand in the arg field (where, clamp, lerp; addcmul and
 * addcdiv with " & <value>" after it). */
static bool parse_third(ops_case *c)
{
    if (is_addc(c->op)) {
        const char *amp = strstr(c->arg, " & ");
        size_t n = amp ? (size_t)(amp - c->arg) : 0;
        if (!amp || n >= sizeof c->arg_operand || !parse_scalar(amp + 3, &c->value))
            return false;
        memcpy(c->arg_operand, c->arg, n);
        c->arg_operand[n] = '\0';
        return parse_operand(c, c->arg_operand, &c->third);
    }
    if (strcmp(c->op, "where") != 0 && strcmp(c->op, "clamp") != 0 &&
        strcmp(c->op, "clamp_scalar") != 0 && strcmp(c->op, "lerp") != 0)
        return true;
    return parse_operand(c, c->arg, &c->third);
}

static bool parse_case(ops_case *c, const char *path, const table_row *row)
{
    memset(c, 0, sizeof(*c));
    c->path = path;
    c->row = row;
    c->id = c->op = c->form = c->arg = "?";
    if (row->nfields < F_KIND + 1)
        return false;
    c->id = row->fields[F_ID];
    c->op = row->fields[F_OP];
    c->form = row->fields[F_FORM];
    c->arg = row->fields[F_ARG];
    c->third.kind = OPND_NONE;
    return parse_bases(c, row->fields[F_BASES]) && parse_operand(c, row->fields[F_A], &c->a) &&
           parse_operand(c, row->fields[F_B], &c->b) &&
           parse_operand(c, row->fields[F_OUT], &c->out) && parse_third(c);
}

static void free_case(ops_case *c)
{
    ops_operand *ops[] = {&c->a, &c->b, &c->out, &c->third};
    for (int i = 0; i < 4; i++)
        tsr_tensor_release(ops[i]->t);
    for (int i = 0; i < c->nbases; i++) {
        tsr_tensor_release(c->bases[i].t);
        free(c->bases[i].bytes);
    }
}

/* ---- Building ---------------------------------------------------------- */

static tsr_device base_device(const ops_env *env, const ops_case *c, const ops_base *b)
{
    if (b->acc)
        return env->acc;
    return c->mixed ? (tsr_device){TSR_DEVICE_CPU, -1} : env->device;
}

static tsr_status build(const ops_env *env, ops_case *c)
{
    for (int i = 0; i < c->nbases; i++) {
        ops_base *b = &c->bases[i];
        tsr_tensor_options o = {0};
        o.has_dtype = true;
        o.dtype = b->dtype;
        o.has_device = true;
        o.device = base_device(env, c, b);
        tsr_status st =
            o.device.type == TSR_DEVICE_META
                ? tsr_tensor_empty(env->client, 1, &b->n, &o, &b->t)
                : tsr_tensor_from_data(env->client, 1, &b->n, b->dtype, b->bytes, &o, &b->t);
        if (st != TSR_OK)
            return st;
    }
    ops_operand *ops[] = {&c->a, &c->b, &c->out, &c->third};
    for (int i = 0; i < 4; i++) {
        ops_operand *o = ops[i];
        if (o->kind != OPND_VIEW)
            continue;
        tsr_status st = tsr_tensor_as_strided(c->bases[o->base].t, o->ndim, o->sizes, o->strides,
                                              o->offset, &o->t);
        if (st != TSR_OK)
            return st;
    }
    return TSR_OK;
}

/* ---- Calling ------------------------------------------------------------ */

/* The arithmetic in one shape: alpha (add, sub) or the rounding mode
 * (div) travel in the arith_call. The result is *result for the new form;
 * the other forms write their output operand. */
typedef struct arith_call {
    const ops_case *c;
    tsr_scalar alpha;
    tsr_rounding_mode mode;
} arith_call;

/* call_<name>: the six functions of one op; the variadic part is the
 * op's extra argument, with its leading comma, or nothing. */
#define ARITH_CALLS(name, ...)                                                                 \
    static tsr_status call_##name(const arith_call *k, tsr_tensor **result)                    \
    {                                                                                          \
        const ops_case *c = k->c;                                                              \
        bool scalar = c->b.kind == OPND_SCALAR;                                                \
        if (strcmp(c->form, "new") == 0) {                                                     \
            OPS_NEED(tsr_##name);                                                              \
            OPS_NEED(tsr_##name##_scalar);                                                     \
            return scalar ? tsr_##name##_scalar(c->a.t, c->b.scalar __VA_ARGS__, result)       \
                          : tsr_##name(c->a.t, c->b.t __VA_ARGS__, result);                    \
        }                                                                                      \
        if (strcmp(c->form, "out") == 0) {                                                     \
            OPS_NEED(tsr_##name##_out);                                                        \
            OPS_NEED(tsr_##name##_scalar_out);                                                 \
            return scalar ? tsr_##name##_scalar_out(c->a.t, c->b.scalar __VA_ARGS__, c->out.t) \
                          : tsr_##name##_out(c->a.t, c->b.t __VA_ARGS__, c->out.t);            \
        }                                                                                      \
        OPS_NEED(tsr_##name##_);                                                               \
        OPS_NEED(tsr_##name##_scalar_);                                                        \
        return scalar ? tsr_##name##_scalar_(c->a.t, c->b.scalar __VA_ARGS__)                  \
                      : tsr_##name##_(c->a.t, c->b.t __VA_ARGS__);                             \
    }

ARITH_CALLS(add, , k->alpha)
ARITH_CALLS(sub, , k->alpha)
ARITH_CALLS(mul, )
ARITH_CALLS(div, , k->mode)

/* call_<name> of the op table's tensor-only operations: their three
 * forms, no Python-number operand. */
#define TENSOR_CALLS(name)                                                       \
    static tsr_status call_##name(const arith_call *k, tsr_tensor **result)      \
    {                                                                            \
        const ops_case *c = k->c;                                                \
        if (c->b.kind == OPND_SCALAR) {                                          \
            snprintf(missing, sizeof(missing), #name " takes no Python number"); \
            return TSR_STATUS_COUNT;                                             \
        }                                                                        \
        if (strcmp(c->form, "new") == 0) {                                       \
            OPS_NEED(tsr_##name);                                                \
            return tsr_##name(c->a.t, c->b.t, result);                           \
        }                                                                        \
        if (strcmp(c->form, "out") == 0) {                                       \
            OPS_NEED(tsr_##name##_out);                                          \
            return tsr_##name##_out(c->a.t, c->b.t, c->out.t);                   \
        }                                                                        \
        OPS_NEED(tsr_##name##_);                                                 \
        return tsr_##name##_(c->a.t, c->b.t);                                    \
    }
/* call_<name> of the op table's operations of one input. */
#define UNARY_CALLS(name)                                                   \
    static tsr_status call_##name(const arith_call *k, tsr_tensor **result) \
    {                                                                       \
        const ops_case *c = k->c;                                           \
        if (strcmp(c->form, "new") == 0) {                                  \
            OPS_NEED(tsr_##name);                                           \
            return tsr_##name(c->a.t, result);                              \
        }                                                                   \
        if (strcmp(c->form, "out") == 0) {                                  \
            OPS_NEED(tsr_##name##_out);                                     \
            return tsr_##name##_out(c->a.t, c->out.t);                      \
        }                                                                   \
        OPS_NEED(tsr_##name##_);                                            \
        return tsr_##name##_(c->a.t);                                       \
    }
#define TENSOR_CALLS_INTERNAL(name)
#define TENSOR_CALLS_HAND(name)
#define TENSOR_CALLS_REDUCE(name)
#define TENSOR_CALLS_REDUCE_DTYPE(name)
#define TENSOR_CALLS_TENSOR(name) TENSOR_CALLS(name)
#define TENSOR_CALLS_SCALAR(name) ARITH_CALLS(name, )
#define TENSOR_CALLS_UNARY(name) UNARY_CALLS(name)
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) TENSOR_CALLS_##api(name)
#include "core/ops.def"
#undef X

#define TENSOR_ENTRY_INTERNAL(name)
#define TENSOR_ENTRY_HAND(name)
#define TENSOR_ENTRY_REDUCE(name)
#define TENSOR_ENTRY_REDUCE_DTYPE(name)
#define TENSOR_ENTRY_TENSOR(name) {#name, call_##name},
#define TENSOR_ENTRY_SCALAR TENSOR_ENTRY_TENSOR
#define TENSOR_ENTRY_UNARY TENSOR_ENTRY_TENSOR

static const struct {
    const char *name;
    tsr_status (*call)(const arith_call *, tsr_tensor **);
} arith_ops[] = {
    {"add", call_add},
    {"sub", call_sub},
    {"mul", call_mul},
    {"div", call_div},
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) TENSOR_ENTRY_##api(name)
#include "core/ops.def"
#undef X
};

static bool parse_mode(const char *text, tsr_rounding_mode *out)
{
    static const char *const names[] = {"none", "trunc", "floor"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (tsr_rounding_mode)i;
            return true;
        }
    return false;
}

/* torch.where(cond, a, b) in its forms: tensors, and Python numbers
 * for a, b or both (no out= there, as in PyTorch 1.13). */
static tsr_status call_where(const ops_case *c, tsr_tensor **result)
{
    bool sa = c->a.kind == OPND_SCALAR, sb = c->b.kind == OPND_SCALAR;
    if (c->third.kind != OPND_VIEW) {
        snprintf(missing, sizeof(missing), "where takes a condition tensor");
        return TSR_STATUS_COUNT;
    }
    if (strcmp(c->form, "out") == 0) {
        OPS_NEED(tsr_where_out);
        if (sa || sb) {
            snprintf(missing, sizeof(missing), "where's out= takes tensors only");
            return TSR_STATUS_COUNT;
        }
        return tsr_where_out(c->third.t, c->a.t, c->b.t, c->out.t);
    }
    if (strcmp(c->form, "new") != 0) {
        snprintf(missing, sizeof(missing), "where has no in-place form");
        return TSR_STATUS_COUNT;
    }
    OPS_NEED(tsr_where);
    OPS_NEED(tsr_where_scalar);
    OPS_NEED(tsr_where_scalar_self);
    OPS_NEED(tsr_where_scalars);
    if (sa && sb)
        return tsr_where_scalars(c->third.t, c->a.scalar, c->b.scalar, result);
    if (sa)
        return tsr_where_scalar_self(c->third.t, c->a.scalar, c->b.t, result);
    if (sb)
        return tsr_where_scalar(c->third.t, c->a.t, c->b.scalar, result);
    return tsr_where(c->third.t, c->a.t, c->b.t, result);
}

/* torch.clamp(a, min=b, max=third) with tensor bounds, '-' for none. */
static tsr_status call_clamp(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_clamp);
    OPS_NEED(tsr_clamp_out);
    OPS_NEED(tsr_clamp_);
    if (c->b.kind == OPND_SCALAR || c->third.kind == OPND_SCALAR) {
        snprintf(missing, sizeof(missing), "clamp's bounds are tensors here");
        return TSR_STATUS_COUNT;
    }
    const tsr_tensor *lo = c->b.t, *hi = c->third.t;
    if (strcmp(c->form, "out") == 0)
        return tsr_clamp_out(c->a.t, lo, hi, c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return tsr_clamp_(c->a.t, lo, hi);
    return tsr_clamp(c->a.t, lo, hi, result);
}

/* torch.nn.functional.gelu(a, approximate=arg) in its three forms
 * (torch._C._nn.gelu's out= and gelu_); the name is parsed by the
 * library, so a bad one is its error. */
static tsr_status call_gelu(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_gelu);
    OPS_NEED(tsr_gelu_out);
    OPS_NEED(tsr_gelu_);
    OPS_NEED(tsr_gelu_approximate_from_name);
    tsr_gelu_approximate approximate;
    tsr_status st = tsr_gelu_approximate_from_name(c->arg, &approximate);
    if (st != TSR_OK)
        return st;
    if (strcmp(c->form, "out") == 0)
        return tsr_gelu_out(c->a.t, approximate, c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return tsr_gelu_(c->a.t, approximate);
    return tsr_gelu(c->a.t, approximate, result);
}

/* torch.round(a, decimals=arg), arg "i:<decimals>". */
static tsr_status call_round_decimals(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_round_decimals);
    OPS_NEED(tsr_round_decimals_out);
    OPS_NEED(tsr_round_decimals_);
    tsr_scalar d;
    if (!parse_scalar(c->arg, &d) || d.kind != TSR_INT64) {
        snprintf(missing, sizeof(missing), "malformed decimals \"%s\"", c->arg);
        return TSR_STATUS_COUNT;
    }
    if (strcmp(c->form, "out") == 0)
        return tsr_round_decimals_out(c->a.t, d.v.i, c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return tsr_round_decimals_(c->a.t, d.v.i);
    return tsr_round_decimals(c->a.t, d.v.i, result);
}

/* torch.nan_to_num(a, nan, posinf, neginf), arg "<nan>,<posinf>,<neginf>"
 * (each "f:<hex>", or '-' for None). */
static tsr_status call_nan_to_num(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_nan_to_num);
    OPS_NEED(tsr_nan_to_num_out);
    OPS_NEED(tsr_nan_to_num_);
    double v[3];
    const double *p[3] = {NULL, NULL, NULL};
    char text[128];
    snprintf(text, sizeof text, "%s", c->arg);
    char *save = NULL, *field = strtok_r(text, ",", &save);
    for (int k = 0; k < 3; k++, field = strtok_r(NULL, ",", &save)) {
        tsr_scalar x;
        if (field && strcmp(field, "-") == 0)
            continue;
        if (!field || !parse_scalar(field, &x) || x.kind != TSR_FLOAT64) {
            snprintf(missing, sizeof(missing), "malformed numbers \"%s\"", c->arg);
            return TSR_STATUS_COUNT;
        }
        v[k] = x.v.f;
        p[k] = &v[k];
    }
    if (strcmp(c->form, "out") == 0)
        return tsr_nan_to_num_out(c->a.t, p[0], p[1], p[2], c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return tsr_nan_to_num_(c->a.t, p[0], p[1], p[2]);
    return tsr_nan_to_num(c->a.t, p[0], p[1], p[2], result);
}

/* torch.clamp(a, min=b, max=third) with Python-number bounds, '-' for
 * none. */
static tsr_status call_clamp_scalar(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_clamp_scalar);
    OPS_NEED(tsr_clamp_scalar_out);
    OPS_NEED(tsr_clamp_scalar_);
    if (c->b.kind == OPND_VIEW || c->third.kind == OPND_VIEW) {
        snprintf(missing, sizeof(missing), "clamp_scalar's bounds are Python numbers");
        return TSR_STATUS_COUNT;
    }
    const tsr_scalar *lo = c->b.kind == OPND_SCALAR ? &c->b.scalar : NULL;
    const tsr_scalar *hi = c->third.kind == OPND_SCALAR ? &c->third.scalar : NULL;
    if (strcmp(c->form, "out") == 0)
        return tsr_clamp_scalar_out(c->a.t, lo, hi, c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return tsr_clamp_scalar_(c->a.t, lo, hi);
    return tsr_clamp_scalar(c->a.t, lo, hi, result);
}

/* torch.lerp(a, b, weight=third): a tensor or a Python number. */
static tsr_status call_lerp(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_lerp);
    OPS_NEED(tsr_lerp_out);
    OPS_NEED(tsr_lerp_);
    OPS_NEED(tsr_lerp_scalar);
    OPS_NEED(tsr_lerp_scalar_out);
    OPS_NEED(tsr_lerp_scalar_);
    bool number = c->third.kind == OPND_SCALAR;
    tsr_scalar w = c->third.scalar;
    const tsr_tensor *wt = c->third.t;
    if (strcmp(c->form, "out") == 0)
        return number ? tsr_lerp_scalar_out(c->a.t, c->b.t, w, c->out.t)
                      : tsr_lerp_out(c->a.t, c->b.t, wt, c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return number ? tsr_lerp_scalar_(c->a.t, c->b.t, w) : tsr_lerp_(c->a.t, c->b.t, wt);
    return number ? tsr_lerp_scalar(c->a.t, c->b.t, w, result)
                  : tsr_lerp(c->a.t, c->b.t, wt, result);
}

/* torch.addcmul / torch.addcdiv(a, b, third, value=value). */
static tsr_status call_addc(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_addcmul);
    OPS_NEED(tsr_addcmul_out);
    OPS_NEED(tsr_addcmul_);
    OPS_NEED(tsr_addcdiv);
    OPS_NEED(tsr_addcdiv_out);
    OPS_NEED(tsr_addcdiv_);
    bool mul = strcmp(c->op, "addcmul") == 0;
    if (strcmp(c->form, "out") == 0)
        return (mul ? tsr_addcmul_out : tsr_addcdiv_out)(c->a.t, c->b.t, c->third.t, c->value,
                                                         c->out.t);
    if (strcmp(c->form, "inplace") == 0)
        return (mul ? tsr_addcmul_ : tsr_addcdiv_)(c->a.t, c->b.t, c->third.t, c->value);
    return (mul ? tsr_addcmul : tsr_addcdiv)(c->a.t, c->b.t, c->third.t, c->value, result);
}

/* torch.pow(a, b): tensors, a tensor and a Python-number exponent, or a
 * Python-number base and a tensor (no in-place form). */
static tsr_status call_pow(const ops_case *c, tsr_tensor **result)
{
    OPS_NEED(tsr_pow);
    OPS_NEED(tsr_pow_out);
    OPS_NEED(tsr_pow_);
    OPS_NEED(tsr_pow_scalar);
    OPS_NEED(tsr_pow_scalar_out);
    OPS_NEED(tsr_pow_scalar_);
    OPS_NEED(tsr_pow_scalar_self);
    OPS_NEED(tsr_pow_scalar_self_out);
    bool out = strcmp(c->form, "out") == 0, inplace = strcmp(c->form, "inplace") == 0;
    if (c->a.kind == OPND_SCALAR) {
        if (inplace) {
            snprintf(missing, sizeof(missing), "pow of a Python number has no in-place form");
            return TSR_STATUS_COUNT;
        }
        return out ? tsr_pow_scalar_self_out(c->a.scalar, c->b.t, c->out.t)
                   : tsr_pow_scalar_self(c->a.scalar, c->b.t, result);
    }
    if (c->b.kind == OPND_SCALAR)
        return out       ? tsr_pow_scalar_out(c->a.t, c->b.scalar, c->out.t)
               : inplace ? tsr_pow_scalar_(c->a.t, c->b.scalar)
                         : tsr_pow_scalar(c->a.t, c->b.scalar, result);
    return out       ? tsr_pow_out(c->a.t, c->b.t, c->out.t)
           : inplace ? tsr_pow_(c->a.t, c->b.t)
                     : tsr_pow(c->a.t, c->b.t, result);
}

/* The call of the copy family; *result as for the arithmetic. */
static tsr_status call_other(const ops_case *c, tsr_tensor **result)
{
    tsr_memory_format fmt;
    if (strcmp(c->op, "copy_") == 0) {
        OPS_NEED(tsr_tensor_copy_);
        return tsr_tensor_copy_(c->a.t, c->b.t);
    }
    if (strcmp(c->op, "fill_") == 0) {
        OPS_NEED(tsr_tensor_fill_);
        return tsr_tensor_fill_(c->a.t, c->b.scalar);
    }
    if (strcmp(c->op, "to") == 0) {
        OPS_NEED(tsr_tensor_to);
        tsr_tensor_options o = {0};
        o.has_dtype = true;
        if (tsr_dtype_from_name(c->arg, &o.dtype) != TSR_OK)
            return TSR_STATUS_COUNT;
        return tsr_tensor_to(NULL, c->a.t, &o, false, result);
    }
    if (tsr_memory_format_from_name(c->arg, &fmt) != TSR_OK)
        return TSR_STATUS_COUNT;
    if (strcmp(c->op, "clone") == 0) {
        OPS_NEED(tsr_tensor_clone);
        return tsr_tensor_clone(c->a.t, fmt, result);
    }
    if (strcmp(c->op, "contiguous") == 0) {
        OPS_NEED(tsr_tensor_contiguous);
        return tsr_tensor_contiguous(c->a.t, fmt, result);
    }
    return TSR_STATUS_COUNT;
}

/* Makes the case's call; *written is the tensor that holds the result
 * (a new one goes to *fresh, which the caller releases). */
static tsr_status call_case(const ops_case *c, tsr_tensor **fresh, const tsr_tensor **written)
{
    for (size_t i = 0; i < sizeof(arith_ops) / sizeof(arith_ops[0]); i++) {
        if (strcmp(c->op, arith_ops[i].name) != 0)
            continue;
        arith_call k = {c, tsr_scalar_int(1), TSR_ROUNDING_NONE};
        if ((strcmp(c->op, "div") == 0 && !parse_mode(c->arg, &k.mode)) ||
            (strcmp(c->arg, "-") != 0 && strcmp(c->op, "div") != 0 &&
             !parse_scalar(c->arg, &k.alpha))) {
            snprintf(missing, sizeof(missing), "malformed argument \"%s\"", c->arg);
            return TSR_STATUS_COUNT;
        }
        tsr_status st = arith_ops[i].call(&k, fresh);
        *written = strcmp(c->form, "new") == 0   ? *fresh
                   : strcmp(c->form, "out") == 0 ? c->out.t
                                                 : c->a.t;
        return st;
    }
    if (strcmp(c->op, "where") == 0 || strcmp(c->op, "clamp") == 0 ||
        strcmp(c->op, "clamp_scalar") == 0 || strcmp(c->op, "lerp") == 0 || is_addc(c->op) ||
        strcmp(c->op, "gelu") == 0 || strcmp(c->op, "pow") == 0 ||
        strcmp(c->op, "round_decimals") == 0 || strcmp(c->op, "nan_to_num") == 0) {
        tsr_status st = c->op[0] == 'w'                      ? call_where(c, fresh)
                        : c->op[0] == 'r'                    ? call_round_decimals(c, fresh)
                        : c->op[0] == 'n'                    ? call_nan_to_num(c, fresh)
                        : c->op[0] == 'p'                    ? call_pow(c, fresh)
                        : strcmp(c->op, "clamp_scalar") == 0 ? call_clamp_scalar(c, fresh)
                        : c->op[0] == 'c'                    ? call_clamp(c, fresh)
                        : c->op[0] == 'l'                    ? call_lerp(c, fresh)
                        : c->op[0] == 'g'                    ? call_gelu(c, fresh)
                                                             : call_addc(c, fresh);
        *written = strcmp(c->form, "new") == 0   ? *fresh
                   : strcmp(c->form, "out") == 0 ? c->out.t
                                                 : c->a.t;
        return st;
    }
    tsr_status st = call_other(c, fresh);
    *written = *fresh ? *fresh : c->a.t;
    if (st == TSR_STATUS_COUNT && !missing[0])
        snprintf(missing, sizeof(missing), "unknown op \"%s\" or argument \"%s\"", c->op, c->arg);
    return st;
}

/* ---- Running ----------------------------------------------------------- */

void ops_outcome_free(ops_outcome *o)
{
    free(o->values);
    free(o->after);
    o->values = o->after = NULL;
}

static bool has_data(const tsr_tensor *t)
{
    return tsr_tensor_device(t).type != TSR_DEVICE_META;
}

static bool read_all(const tsr_tensor *t, unsigned char **out, size_t *n)
{
    size_t nbytes = (size_t)tsr_tensor_nbytes(t);
    unsigned char *buf = malloc(nbytes ? nbytes : 1);
    if (!buf || tsr_tensor_copy_to_host(t, buf, nbytes) != TSR_OK) {
        free(buf);
        return false;
    }
    *out = buf;
    *n = nbytes;
    return true;
}

/* The storage the written operand views, or -1. */
static int written_base(const ops_case *c)
{
    if (strcmp(c->form, "out") == 0)
        return c->out.kind == OPND_VIEW ? c->out.base : -1;
    bool in_place = strcmp(c->form, "inplace") == 0 || strcmp(c->op, "copy_") == 0 ||
                    strcmp(c->op, "fill_") == 0;
    return in_place && c->a.kind == OPND_VIEW ? c->a.base : -1;
}

/* Every storage but the written one must hold what it held. */
static void check_untouched(const ops_case *c, ops_outcome *o, int written)
{
    for (int i = 0; i < c->nbases && !o->trouble[0]; i++) {
        const ops_base *b = &c->bases[i];
        unsigned char *now = NULL;
        size_t n = 0;
        if (i == written || !has_data(b->t))
            continue;
        if (!read_all(b->t, &now, &n))
            snprintf(o->trouble, sizeof(o->trouble), "reading storage %d failed: %s", i,
                     tsr_last_error());
        else if (n != b->nbytes || memcmp(now, b->bytes, n) != 0)
            snprintf(o->trouble, sizeof(o->trouble), "storage %d changed %s", i,
                     written < 0 && o->status != TSR_OK ? "although the call failed"
                                                        : "(the call does not write it)");
        free(now);
    }
}

static void run_case(const ops_env *env, ops_case *c, ops_outcome *o)
{
    memset(o, 0, sizeof(*o));
    o->same = -1;
    missing[0] = '\0';
    tsr_status st = build(env, c);
    if (st != TSR_OK) {
        snprintf(o->trouble, sizeof(o->trouble), "building the operands failed: %s %s",
                 tsr_status_name(st), tsr_last_error());
        return;
    }
    tsr_tensor *fresh = NULL;
    const tsr_tensor *written = NULL;
    o->status = call_case(c, &fresh, &written);
    snprintf(o->message, sizeof(o->message), "%s",
             o->status == TSR_STATUS_COUNT ? missing
             : o->status == TSR_OK         ? ""
                                           : tsr_last_error());
    if (o->status == TSR_OK && written == NULL)
        snprintf(o->trouble, sizeof(o->trouble), "the call succeeded without a result");
    /* An error inside a queued kernel is the call's error, reported late
     * (by tsr_synchronize); a synchronisation after a failed call must
     * have nothing left to report. */
    bool accelerated = env->client && (env->device.type == TSR_DEVICE_OPENCL || c->mixed);
    if (accelerated && tsr_synchronize && o->status != TSR_STATUS_COUNT) {
        tsr_status sync = tsr_synchronize(env->client, env->acc);
        if (sync != TSR_OK && o->status == TSR_OK) {
            o->status = sync;
            snprintf(o->message, sizeof(o->message), "%s", tsr_last_error());
        } else if (sync != TSR_OK) {
            snprintf(o->trouble, sizeof(o->trouble), "tsr_synchronize after the failed call: %s %s",
                     tsr_status_name(sync), tsr_last_error());
        }
    }
    if (o->status == TSR_OK && written && !o->trouble[0]) {
        o->dtype = tsr_tensor_dtype(written);
        o->ndim = tsr_tensor_ndim(written);
        memcpy(o->sizes, tsr_tensor_sizes(written), sizeof(int64_t) * (size_t)o->ndim);
        memcpy(o->strides, tsr_tensor_strides(written), sizeof(int64_t) * (size_t)o->ndim);
        o->same = fresh != NULL && fresh == c->a.t;
        tsr_device want = c->mixed ? env->acc : env->device;
        if (!tsr_device_equal(tsr_tensor_device(written), want))
            snprintf(o->trouble, sizeof(o->trouble), "the result is on the wrong device");
        else if (has_data(written) && !(o->has_values = read_all(written, &o->values, &o->nvalues)))
            snprintf(o->trouble, sizeof(o->trouble), "reading the result failed: %s",
                     tsr_last_error());
    }
    int wb = written_base(c);
    if (o->status == TSR_OK && wb >= 0 && has_data(c->bases[wb].t) && !o->trouble[0] &&
        !(o->has_after = read_all(c->bases[wb].t, &o->after, &o->nafter)))
        snprintf(o->trouble, sizeof(o->trouble), "reading the written storage failed: %s",
                 tsr_last_error());
    if (o->status != TSR_STATUS_COUNT)
        check_untouched(c, o, o->status == TSR_OK ? wb : -1);
    tsr_tensor_release(fresh); /* for "itself", the extra reference */
}

/* ---- Comparing ------------------------------------------------------------ */

/* Floating components: their size in bytes, and whether they are
 * float16 (true) or bfloat16 (false) when 2 bytes. */
static int float_component(tsr_dtype d, bool *half)
{
    *half = d == TSR_FLOAT16 || d == TSR_COMPLEX32;
    switch (d) {
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
    case TSR_COMPLEX32:
        return 2;
    case TSR_FLOAT32:
    case TSR_COMPLEX64:
        return 4;
    case TSR_FLOAT64:
    case TSR_COMPLEX128:
        return 8;
    default:
        return 0;
    }
}

static bool is_nan(const unsigned char *p, int size, bool half)
{
    uint64_t v = 0;
    for (int i = size - 1; i >= 0; i--)
        v = v << 8 | p[i];
    switch (size) {
    case 2:
        return half ? (v & 0x7C00) == 0x7C00 && (v & 0x3FF) : (v & 0x7F80) == 0x7F80 && (v & 0x7F);
    case 4:
        return (v & 0x7F800000u) == 0x7F800000u && (v & 0x7FFFFFu);
    default:
        return (v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (v & 0xFFFFFFFFFFFFFull);
    }
}

static void hex_of(const unsigned char *p, size_t n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n && 2 * i + 3 <= size; i++)
        snprintf(buf + 2 * i, 3, "%02x", p[i]);
}

/* A readable value next to the bits (through the library's conversion). */
static void value_text(const unsigned char *p, tsr_dtype d, char *buf, size_t size)
{
    double c[2] = {0, 0};
    bool complex = tsr_dtype_is_complex(d);
    if (tsr_dtype_is_shell(d) ||
        tsr_cast_buffer(p, d, c, complex ? TSR_COMPLEX128 : TSR_FLOAT64, 1) != TSR_OK)
        snprintf(buf, size, "?");
    else if (complex)
        snprintf(buf, size, "(%.17g%+.17gj)", c[0], c[1]);
    else
        snprintf(buf, size, "%.17g", c[0]);
}

/* The operations whose results are not exact (exp, log, expm1, log1p,
 * sigmoid, tanh, exp2 ... hypot, erf, erfc, gelu, silu, the trigonometric
 * functions): their values may differ from PyTorch's by `ulps` steps of
 * the values of the dtype the result is computed in (both are within
 * about 1 ulp of the correctly rounded result, by different algorithms).
 * Every other value, and every comparison of two devices, is bit for
 * bit. */
static const struct {
    const char *op;
    int ulps;
} tolerances[] = {{"exp", 2},   {"log", 2},   {"expm1", 2}, {"log1p", 2}, {"sigmoid", 2},
                  {"tanh", 2},  {"exp2", 2},  {"log2", 2},  {"log10", 2}, {"sinh", 2},
                  {"cosh", 2},  {"asinh", 2}, {"acosh", 2}, {"atanh", 2}, {"rsqrt", 2},
                  {"hypot", 2}, {"erf", 2},   {"erfc", 2},  {"gelu", 2},  {"silu", 2},
                  {"sin", 2},   {"cos", 2},   {"tan", 2},   {"asin", 2},  {"acos", 2},
                  {"atan", 2},  {"atan2", 2}, {"pow", 2}};

/* Their complex results: each part within COMPLEX_ULPS steps of
 * PyTorch's, or the number named here (PyTorch takes glibc's complex
 * functions, a few ulps from the true value per part, tanh's up to about
 * 6; gen_ops_cases.py takes its answers where they are within 2 (4) of
 * the true value, and has the same numbers). */
#define COMPLEX_ULPS 5
static const struct {
    const char *op;
    int ulps;
} complex_tolerances[] = {{"tanh", 10}, {"tan", 10}};

typedef struct tolerance {
    int ulps;          /* 0: bit for bit */
    tsr_dtype compute; /* the dtype the op computed in */
} tolerance;

/* A case's tolerance: its op's, in the input's dtype, or in the default
 * float32 for integer and bool inputs (which these ops promote); a
 * complex result's (of dtype `result`), or a complex input's, per part in
 * the parts' dtype. */
/* Exact in the reals, a hypot in complex (abs; sgn divides by it): a
 * complex input takes COMPLEX_ULPS, gen_ops_cases.py's COMPLEX_INEXACT. */
static const char *const complex_inexact[] = {"abs", "sgn"};

/* Whether operand o is a complex tensor or a complex number. */
static bool operand_complex(const ops_case *c, const ops_operand *o)
{
    if (o->kind == OPND_VIEW)
        return tsr_dtype_is_complex(c->bases[o->base].dtype);
    return o->kind == OPND_SCALAR && tsr_dtype_is_complex(o->scalar.kind);
}

static tolerance case_tolerance(const ops_case *c, tsr_dtype result)
{
    tolerance tol = {0, TSR_FLOAT32};
    for (size_t i = 0; i < sizeof(tolerances) / sizeof(tolerances[0]); i++)
        if (strcmp(c->op, tolerances[i].op) == 0)
            tol.ulps = tolerances[i].ulps;
    for (size_t i = 0; i < sizeof(complex_inexact) / sizeof(complex_inexact[0]); i++)
        if (strcmp(c->op, complex_inexact[i]) == 0 && c->a.kind == OPND_VIEW &&
            tsr_dtype_is_complex(c->bases[c->a.base].dtype))
            tol.ulps = COMPLEX_ULPS;
    if (tol.ulps && c->a.kind == OPND_VIEW &&
        tsr_dtype_is_floating_point(c->bases[c->a.base].dtype))
        tol.compute = c->bases[c->a.base].dtype;
    /* Complex arithmetic (a complex input; a real result of it, as
     * abs's), not a real result written into a complex out=. */
    bool complex_a = operand_complex(c, &c->a);
    if (tol.ulps && (complex_a || (tsr_dtype_is_complex(result) && operand_complex(c, &c->b)))) {
        tsr_dtype z = tsr_dtype_is_complex(result) ? result : c->bases[c->a.base].dtype;
        tol.ulps = COMPLEX_ULPS;
        tol.compute = z == TSR_COMPLEX128 ? TSR_FLOAT64 : TSR_FLOAT32;
        for (size_t i = 0; i < sizeof(complex_tolerances) / sizeof(complex_tolerances[0]); i++)
            if (strcmp(c->op, complex_tolerances[i].op) == 0)
                tol.ulps = complex_tolerances[i].ulps;
    }
    return tol;
}

/* The magnitude bits of value v in the floating dtype d (NaN aside),
 * and whether it is negative. */
static uint64_t magnitude_in(tsr_dtype d, double v, bool *negative)
{
    *negative = signbit(v) != 0;
    v = fabs(v);
    if (d == TSR_FLOAT64) {
        uint64_t u;
        memcpy(&u, &v, sizeof(u));
        return u;
    }
    unsigned char e[4] = {0};
    if (tsr_cast_buffer(&v, TSR_FLOAT64, e, d, 1) != TSR_OK)
        return UINT64_MAX;
    return d == TSR_FLOAT32
               ? (uint64_t)e[0] | (uint64_t)e[1] << 8 | (uint64_t)e[2] << 16 | (uint64_t)e[3] << 24
               : (uint64_t)e[0] | (uint64_t)e[1] << 8;
}

/* Whether two floating components (`comp` bytes, of the component dtype
 * cd) are within tol's steps of each other, counted in their own dtype or
 * in the computation's, whichever is less: an out= narrower than the
 * computation rounds two close results at most a step apart, a wider
 * one holds them as they were. */
static bool within(const unsigned char *w, const unsigned char *g, tsr_dtype cd, tolerance tol)
{
    double v[2];
    if (tsr_cast_buffer(w, cd, &v[0], TSR_FLOAT64, 1) != TSR_OK ||
        tsr_cast_buffer(g, cd, &v[1], TSR_FLOAT64, 1) != TSR_OK)
        return false;
    tsr_dtype in[2] = {cd, tol.compute};
    for (int k = 0; k < 2; k++) {
        bool nw, ng;
        uint64_t mw = magnitude_in(in[k], v[0], &nw), mg = magnitude_in(in[k], v[1], &ng);
        if (nw == ng && mw != UINT64_MAX && mg != UINT64_MAX &&
            (mw > mg ? mw - mg : mg - mw) <= (uint64_t)tol.ulps)
            return true;
    }
    return false;
}

/* A complex dtype's component dtype; d itself otherwise. */
static tsr_dtype component_dtype(tsr_dtype d)
{
    return d == TSR_COMPLEX32    ? TSR_FLOAT16
           : d == TSR_COMPLEX64  ? TSR_FLOAT32
           : d == TSR_COMPLEX128 ? TSR_FLOAT64
                                 : d;
}

/* Compares two element arrays of dtype d, bit for bit or within tol; on a
 * difference reports `what` with up to four differing elements. */
static bool compare_values(const ops_case *c, const char *what, tsr_dtype d,
                           const unsigned char *want, size_t nwant, const unsigned char *got,
                           size_t ngot, const char *who, tolerance tol)
{
    size_t item = tsr_dtype_itemsize(d);
    if (nwant != ngot) {
        fail(c, "%s: %zu bytes; expected %zu", what, ngot, nwant);
        return false;
    }
    bool half;
    int comp = float_component(d, &half);
    int shown = 0;
    size_t differing = 0;
    for (size_t e = 0; item && e < nwant / item; e++) {
        const unsigned char *w = want + e * item, *g = got + e * item;
        bool same = true;
        if (comp) {
            for (size_t k = 0; k < item; k += (size_t)comp) {
                bool wn = is_nan(w + k, comp, half), gn = is_nan(g + k, comp, half);
                if (wn || gn)
                    same &= wn == gn;
                else if (memcmp(w + k, g + k, (size_t)comp) != 0)
                    same &= tol.ulps > 0 && within(w + k, g + k, component_dtype(d), tol);
            }
        } else {
            same = memcmp(w, g, item) == 0;
        }
        if (same)
            continue;
        differing++;
        if (shown++ < 4) {
            char wh[40], gh[40], wv[80], gv[80];
            hex_of(w, item, wh, sizeof(wh));
            hex_of(g, item, gh, sizeof(gh));
            value_text(w, d, wv, sizeof(wv));
            value_text(g, d, gv, sizeof(gv));
            fail(c, "%s element %zu (%s): %s 0x%s %s, expected 0x%s %s", what, e, tsr_dtype_name(d),
                 who, gh, gv, wh, wv);
        }
    }
    if (differing > 4)
        fail(c, "%s: %zu of %zu elements differ", what, differing, nwant / (item ? item : 1));
    return differing == 0;
}

static void format_ints(const int64_t *v, int n, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? "," : "", v[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

static void compare_ints(const ops_case *c, const char *what, const int64_t *got, int ngot,
                         const char *want)
{
    int64_t v[TSR_MAX_DIMS];
    int n;
    const char *p = want;
    if (!table_scan_list(&p, v, TSR_MAX_DIMS, &n) || *p) {
        fail(c, "malformed %s \"%s\"", what, want);
        return;
    }
    if (n == ngot && memcmp(v, got, sizeof(int64_t) * (size_t)n) == 0)
        return;
    char buf[160];
    format_ints(got, ngot, buf, sizeof(buf));
    fail(c, "%s %s, expected %s", what, buf, want);
}

static tsr_status status_named(const char *name)
{
    if (strncmp(name, "TSR_", 4) == 0) {
        for (int s = 0; s < TSR_STATUS_COUNT; s++)
            if (strcmp(name, tsr_status_name((tsr_status)s)) == 0)
                return (tsr_status)s;
        return TSR_STATUS_COUNT;
    }
    return table_status_of_exception(name);
}

/* "{acc}" in an expected message stands for env->acc_name. */
static void expected_message(const ops_env *env, const char *text, char *buf, size_t size)
{
    const char *mark = strstr(text, "{acc}");
    if (mark)
        snprintf(buf, size, "%.*s%s%s", (int)(mark - text), text, env->acc_name, mark + 5);
    else
        snprintf(buf, size, "%s", text);
}

static void compare_expected(const ops_env *env, const ops_case *c, const ops_outcome *o)
{
    const table_row *r = c->row;
    const char *kind = r->fields[F_KIND];
    if (o->trouble[0])
        fail(c, "%s", o->trouble);
    if (strcmp(kind, "err") == 0 && r->nfields == F_MESSAGE + 1) {
        tsr_status want = status_named(r->fields[F_STATUS]);
        char msg[1024];
        expected_message(env, r->fields[F_MESSAGE], msg, sizeof(msg));
        if (o->status != want)
            fail(c, "%s \"%s\"; expected %s \"%s\"",
                 o->status == TSR_STATUS_COUNT ? "not called" : tsr_status_name(o->status),
                 o->message, tsr_status_name(want), msg);
        else if (strcmp(msg, "*") != 0 && strcmp(o->message, msg) != 0)
            fail(c, "message \"%s\"\n    expected \"%s\"", o->message, msg);
        return;
    }
    if (strcmp(kind, "ok") != 0 || r->nfields != F_COUNT) {
        fail(c, "malformed expectation");
        return;
    }
    if (o->status != TSR_OK) {
        fail(c, "%s \"%s\"; expected success",
             o->status == TSR_STATUS_COUNT ? "not called" : tsr_status_name(o->status), o->message);
        return;
    }
    if (o->trouble[0])
        return;
    tsr_dtype want;
    if (!parse_dtype(r->fields[F_DTYPE], strlen(r->fields[F_DTYPE]), &want)) {
        fail(c, "malformed dtype \"%s\"", r->fields[F_DTYPE]);
        return;
    }
    if (o->dtype != want) {
        fail(c, "dtype %s, expected %s", tsr_dtype_name(o->dtype), tsr_dtype_name(want));
        return;
    }
    compare_ints(c, "sizes", o->sizes, o->ndim, r->fields[F_SIZES]);
    compare_ints(c, "strides", o->strides, o->ndim, r->fields[F_STRIDES]);
    if (strcmp(r->fields[F_SAME], "-") != 0 && o->same != (r->fields[F_SAME][0] == '1'))
        fail(c, "%s",
             o->same ? "returned its input itself; expected a new tensor"
                     : "returned a new tensor; expected its input itself");
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (o->has_values) {
        const char *h = r->fields[F_VALUES];
        if (!parse_hex(h, strlen(h), &bytes, &n))
            fail(c, "malformed values");
        else
            compare_values(c, "value", want, bytes, n, o->values, o->nvalues, "got",
                           case_tolerance(c, want));
        free(bytes);
    }
    const char *after = r->fields[F_AFTER];
    if (o->has_after && strcmp(after, "-") != 0) {
        int wb = written_base(c);
        if (!parse_hex(after, strlen(after), &bytes, &n))
            fail(c, "malformed storage");
        else
            compare_values(c, "written storage", c->bases[wb].dtype, bytes, n, o->after, o->nafter,
                           "got", case_tolerance(c, c->bases[wb].dtype));
        free(bytes);
    }
}

/* The twin's outcome must be the same, bit for bit (NaN payloads aside). */
static void compare_twins(const ops_case *c, const ops_outcome *o, const ops_outcome *t,
                          const char *who)
{
    if (o->status != t->status || strcmp(o->message, t->message) != 0) {
        fail(c, "%s: %s \"%s\", the other device %s \"%s\"", who, tsr_status_name(o->status),
             o->message, tsr_status_name(t->status), t->message);
        return;
    }
    if (o->status != TSR_OK || o->trouble[0] || t->trouble[0])
        return;
    char a[160], b[160];
    format_ints(o->strides, o->ndim, a, sizeof(a));
    format_ints(t->strides, t->ndim, b, sizeof(b));
    if (o->dtype != t->dtype || o->ndim != t->ndim || strcmp(a, b) != 0 ||
        memcmp(o->sizes, t->sizes, sizeof(int64_t) * (size_t)o->ndim) != 0 || o->same != t->same)
        fail(c, "%s: %s %s, the other device %s %s", who, tsr_dtype_name(o->dtype), a,
             tsr_dtype_name(t->dtype), b);
    else if (o->has_values && t->has_values)
        compare_values(c, who, o->dtype, t->values, t->nvalues, o->values, o->nvalues,
                       "this device", (tolerance){0, TSR_FLOAT32});
}

/* Whether a passing case had to run a kernel (not a view or "itself"). */
static bool launches(const ops_case *c, const ops_outcome *o)
{
    int64_t n = 1;
    for (int i = 0; i < o->ndim; i++)
        n *= o->sizes[i];
    return o->status == TSR_OK && o->same != 1 && n > 0 &&
           strcmp(c->row->fields[F_KIND], "ok") == 0;
}

/* One row: run, compare, and with a twin compare the two devices. Returns
 * whether the case failed; *skipped when OPS_ONLY names another case. */
static bool check_row(const ops_env *env, const ops_env *twin, const char *path,
                      const table_row *row, ops_stats *stats, bool *skipped)
{
    const char *only = getenv("OPS_ONLY");
    ops_case c, tc;
    ops_outcome o, t;
    report_state.failed = false;
    report_state.current = NULL;
    *skipped = false;
    if (!parse_case(&c, path, row)) {
        fail(&c, "malformed case");
        free_case(&c);
        return true;
    }
    if (only && *only && strcmp(only, c.id) != 0) {
        *skipped = true;
        free_case(&c);
        return false;
    }
    if (getenv("OPS_TRACE") && *getenv("OPS_TRACE"))
        fprintf(stderr, "%s:%d: %s\n", path, row->line, c.id);
    run_case(env, &c, &o);
    compare_expected(env, &c, &o);
    bool unavailable = o.status == TSR_ERR_NOT_SUPPORTED &&
                       strstr(o.message, "kernels on accelerators are not available") != NULL;
    if (twin && !c.mixed) {
        parse_case(&tc, path, row);
        run_case(twin, &tc, &t);
        bool before = report_state.failed;
        report_state.failed = false;
        compare_twins(&c, &o, &t, "devices disagree");
        stats->device_mismatches += report_state.failed;
        report_state.failed |= before;
        ops_outcome_free(&t);
        free_case(&tc);
    }
    if (!report_state.failed && launches(&c, &o))
        stats->launched_ok++;
    stats->unavailable += report_state.failed && unavailable;
    ops_outcome_free(&o);
    free_case(&c);
    return report_state.failed;
}

void ops_check_file(const ops_env *env, const ops_env *twin, const char *path, ops_stats *stats)
{
    const char *max = getenv("OPS_MAX_PRINTED");
    report_state.max_printed = max && *max ? atoi(max) : 30;
    report_state.printed_cases = 0;
    table *tab = table_load(path);
    int failed = 0, cases = 0;
    for (int i = 0; i < tab->nrows; i++) {
        bool skipped;
        failed += check_row(env, twin, path, &tab->rows[i], stats, &skipped);
        cases += !skipped;
    }
    if (report_state.printed_cases > report_state.max_printed)
        fprintf(stderr, "%s: %d more failing cases not shown (OPS_MAX_PRINTED)\n", path,
                report_state.printed_cases - report_state.max_printed);
    printf("%s: %d cases, %d passed, %d failed\n", path, cases, cases - failed, failed);
    stats->cases += cases;
    stats->passed += cases - failed;
    stats->failed += failed;
    table_free(tab);
}
