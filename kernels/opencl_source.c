/* OpenCL C generation: one program per tsr__kernel_key.
 *
 * A program is the two embedded element headers followed by one kernel,
 * tsr_kernel, written out for its key: the index computation of its
 * shape, a load per input, the conversion from the input's dtype to the
 * common dtype (the rules of tsr__kernel_convert, expressed with
 * core/convert_scalar.h's functions), the operation from
 * kernels/scalar_ops.h in the common dtype's math type, and the
 * conversion of the result into the output's dtype. Values travel between
 * those steps as stored bits ("raw"), never through float arithmetic,
 * so NaN payloads survive exactly as on the host. */
#include "kernels/opencl_source.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "kernels/kernels.h"
#include "tessera/dtype.h"

/* ---- a bounded text builder ---------------------------------------------- */

typedef struct text {
    char *buf;
    size_t size, len; /* len counts what would have been written */
} text;

static void put(text *t, const char *fmt, ...) TSR__PRINTF(2, 3);
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = t->len < t->size ? t->buf + t->len : NULL;
    size_t room = t->len < t->size ? t->size - t->len : 0;
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static void put_raw(text *t, const char *s, size_t n)
{
    if (t->len < t->size) {
        size_t room = t->size - t->len - 1;
        memcpy(t->buf + t->len, s, n < room ? n : room);
        t->buf[t->len + (n < room ? n : room)] = '\0';
    }
    t->len += n;
}

/* ---- dtypes as OpenCL sees them ------------------------------------------- */

/* The storage type of one component, and the form a value of it is
 * decoded into: I (tsr__i64), U (tsr__u64), F (float32 bits), D (double). */
typedef struct cl_dtype {
    const char *store;
    char form;
    const char *decode; /* "$1" is the raw value */
    const char *encode; /* "$1": the form's value; NULL: bool, integers, bfloat16 */
} cl_dtype;

static const cl_dtype cl_types[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = {"uchar", 'I', "(tsr__i64)(($1) != 0)", NULL},
    [TSR_UINT8] = {"uchar", 'I', "(tsr__i64)($1)", NULL},
    [TSR_INT8] = {"uchar", 'I', "tsr__k_signed(tsr__k_i8_in($1))", NULL},
    [TSR_UINT16] = {"ushort", 'I', "(tsr__i64)($1)", NULL},
    [TSR_INT16] = {"ushort", 'I', "tsr__k_signed(tsr__k_i16_in($1))", NULL},
    [TSR_UINT32] = {"uint", 'I', "(tsr__i64)($1)", NULL},
    [TSR_INT32] = {"uint", 'I', "tsr__k_signed(tsr__k_i32_in($1))", NULL},
    [TSR_UINT64] = {"ulong", 'U', "($1)", NULL},
    [TSR_INT64] = {"ulong", 'I', "tsr__k_signed($1)", NULL},
    [TSR_FLOAT16] = {"ushort", 'F', "tsr__f16_to_f32($1)", "tsr__f32_to_f16($1, true)"},
    [TSR_BFLOAT16] = {"ushort", 'F', "tsr__bf16_to_f32($1)", NULL},
    [TSR_FLOAT32] = {"float", 'F', "tsr__float_bits($1)", "tsr__float_from_bits($1)"},
    [TSR_FLOAT64] = {"double", 'D', "($1)", "($1)"},
    [TSR_COMPLEX32] = {"ushort", 'F', "tsr__f16_to_f32($1)", "tsr__f32_to_f16($1, true)"},
    [TSR_COMPLEX64] = {"float", 'F', "tsr__float_bits($1)", "tsr__float_from_bits($1)"},
    [TSR_COMPLEX128] = {"double", 'D', "($1)", "($1)"},
    [TSR_FLOAT8_E4M3FN] = {"uchar", 'F', "tsr__e4m3fn_to_f32($1)", "tsr__f32_to_e4m3fn($1, false)"},
    [TSR_FLOAT8_E5M2] = {"uchar", 'F', "tsr__e5m2_to_f32($1)", "tsr__f32_to_e5m2($1)"},
    [TSR_FLOAT8_E4M3FNUZ] = {"uchar", 'F', "tsr__e4m3fnuz_to_f32($1)", "tsr__f32_to_e4m3fnuz($1)"},
    [TSR_FLOAT8_E5M2FNUZ] = {"uchar", 'F', "tsr__e5m2fnuz_to_f32($1)", "tsr__f32_to_e5m2fnuz($1)"},
    [TSR_FLOAT8_E8M0FNU] = {"uchar", 'F', "tsr__e8m0fnu_to_f32($1)", "tsr__f32_to_e8m0fnu($1)"},
    [TSR_FLOAT4_E2M1FN_X2] = {"uchar", 0, NULL, NULL},
};

/* tmpl with every "$1" replaced by a and "$2" by b (templates are table
 * data, not printf formats). */
static void subst(char *out, size_t n, const char *tmpl, const char *a, const char *b)
{
    size_t len = 0;
    for (const char *p = tmpl; *p && len + 1 < n; p++) {
        const char *with = p[0] == '$' && p[1] == '1' ? a : p[0] == '$' && p[1] == '2' ? b : NULL;
        if (with) {
            size_t w = strlen(with);
            w = w < n - 1 - len ? w : n - 1 - len;
            memcpy(out + len, with, w);
            len += w;
            p++;
        } else {
            out[len++] = *p;
        }
    }
    out[len] = '\0';
}

static void fill_in(char *out, size_t n, const char *tmpl, const char *v)
{
    subst(out, n, tmpl, v, "");
}

static bool is_complex(tsr_dtype d)
{
    return d == TSR_COMPLEX32 || d == TSR_COMPLEX64 || d == TSR_COMPLEX128;
}

static bool needs_fp64(tsr_dtype d)
{
    return d == TSR_FLOAT64 || d == TSR_COMPLEX128;
}

/* A value of a component in form `from`, as an expression in form `to`
 * (F or D; I and U are read directly by integer encoders). */
static void form_expr(char *out, size_t n, char from, char to, const char *v)
{
    if (from == to)
        snprintf(out, n, "%s", v);
    else if (to == 'F')
        snprintf(out, n, from == 'D' ? "tsr__double_to_f32(%s)" : "tsr__float_bits((float)(%s))",
                 v);
    else
        snprintf(out, n, from == 'F' ? "(double)tsr__float_from_bits(%s)" : "(double)(%s)", v);
}

/* Emits `dst = <v of component src_comp, converted to dst_comp>;`.
 * `vector_nan` selects bfloat16's FFFF NaN (float32/float64 sources). */
static void convert_component(text *t, const char *dst, tsr_dtype dst_comp, tsr_dtype src_comp,
                              const char *v, bool vector_nan)
{
    const cl_dtype *s = &cl_types[src_comp], *d = &cl_types[dst_comp];
    char dec[160], val[240];
    fill_in(dec, sizeof dec, s->decode, v);
    if (dst_comp == TSR_BOOL) {
        const char *nz = s->form == 'F'   ? "((($1) & 0x7FFFFFFFu) != 0)"
                         : s->form == 'D' ? "(($1) != 0.0)"
                                          : "(($1) != 0)";
        fill_in(val, sizeof val, nz, dec);
        put(t, "    %s = (uchar)%s;\n", dst, val);
        return;
    }
    if (d->form == 'I' || d->form == 'U') { /* integers keep low bits */
        if (s->form == 'I' || s->form == 'U') {
            put(t, "    %s = (%s)(tsr__u64)(%s);\n", dst, d->store, dec);
            return;
        }
        const char *fl = s->form == 'F' ? "float" : "double";
        char x[200];
        snprintf(x, sizeof x, s->form == 'F' ? "tsr__float_from_bits(%s)" : "%s", dec);
        if (dst_comp == TSR_UINT64)
            put(t, "    %s = tsr__%s_to_u64(%s);\n", dst, fl, x);
        else if (dst_comp == TSR_UINT8 || dst_comp == TSR_UINT32 || dst_comp == TSR_INT64)
            put(t, "    %s = (%s)(tsr__u64)tsr__%s_cvtt64(%s);\n", dst, d->store, fl, x);
        else
            put(t, "    %s = (%s)(tsr__u32)tsr__%s_cvtt32(%s);\n", dst, d->store, fl, x);
        return;
    }
    form_expr(val, sizeof val, s->form, d->form, dec);
    if (dst_comp == TSR_BFLOAT16) {
        put(t, "    %s = tsr__f32_to_bf16(%s, %s);\n", dst, val, vector_nan ? "true" : "false");
        return;
    }
    char enc[320];
    fill_in(enc, sizeof enc, d->encode, val);
    put(t, "    %s = %s;\n", dst, enc);
}

/* Emits the conversion of a value of dtype `src` held in variables
 * <sv>_re (and <sv>_im) into dtype `dst` in <dv>_re (and <dv>_im), which
 * the caller has declared with dst's storage type. */
static void convert_value(text *t, const char *dv, tsr_dtype dst, const char *sv, tsr_dtype src)
{
    char dre[32], dim[32], sre[32], sim[32];
    snprintf(dre, sizeof dre, "%s_re", dv);
    snprintf(dim, sizeof dim, "%s_im", dv);
    snprintf(sre, sizeof sre, "%s_re", sv);
    snprintf(sim, sizeof sim, "%s_im", sv);
    tsr_dtype sc = tsr_dtype_to_real(src), dc = tsr_dtype_to_real(dst);
    if (sc == dc) { /* same component type: the bits move unchanged */
        put(t, "    %s = %s;\n", dre, sre);
        if (is_complex(dst))
            put(t, "    %s = %s;\n", dim, is_complex(src) ? sim : "0");
        return;
    }
    bool vector_nan = src == TSR_FLOAT32 || src == TSR_FLOAT64;
    if (dst == TSR_BOOL && is_complex(src)) {
        put(t, "    {\n    uchar r_, i_;\n");
        convert_component(t, "r_", TSR_BOOL, sc, sre, false);
        convert_component(t, "i_", TSR_BOOL, sc, sim, false);
        put(t, "    %s = (uchar)(r_ | i_);\n    }\n", dre);
        return;
    }
    convert_component(t, dre, dc, sc, sre, vector_nan);
    if (!is_complex(dst))
        return;
    if (is_complex(src))
        convert_component(t, dim, dc, sc, sim, vector_nan);
    else
        put(t, "    %s = 0;\n", dim);
}

/* ---- the math of the common dtype ----------------------------------------- */

typedef struct cl_math {
    const char *type; /* math type */
    const char *in;   /* raw -> math: "$1" is the raw variable prefix */
    const char *out;  /* math -> raw statements: $1 the raw prefix, $2 the value */
    const char *alpha;
    const char *add, *mul, *div, *divt, *divf; /* function names; NULL: refused */
} cl_math;

#define INTEGER_MATH(in, out)                                                                 \
    {                                                                                         \
        "tsr__u64", in "($1_re)", "    $1_re = " out "($2);\n", "alpha.s0", "tsr__k_add_int", \
            "tsr__k_mul_int", NULL, "tsr__k_divt_int", "tsr__k_divf_int"                      \
    }
#define FLOAT_MATH(in, out, suffix)                                                      \
    {                                                                                    \
        "float", in "($1_re)", "    $1_re = " out "($2);\n", "as_float((uint)alpha.s0)", \
            "tsr__k_add_" suffix, "*", "/", "tsr__k_divt_" suffix, "tsr__k_divf_" suffix \
    }

static const cl_math cl_maths[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = {"tsr__u64", "tsr__k_b8_in($1_re)", "    $1_re = tsr__k_b8_out($2);\n",
                  "(alpha.s0 != 0 ? (tsr__u64)1 : (tsr__u64)0)", "tsr__k_add_int", "tsr__k_mul_int",
                  NULL, NULL, NULL},
    [TSR_UINT8] = INTEGER_MATH("tsr__k_u8_in", "tsr__k_u8_out"),
    [TSR_INT8] = INTEGER_MATH("tsr__k_i8_in", "tsr__k_i8_out"),
    [TSR_INT16] = INTEGER_MATH("tsr__k_i16_in", "tsr__k_i16_out"),
    [TSR_INT32] = INTEGER_MATH("tsr__k_i32_in", "tsr__k_i32_out"),
    [TSR_INT64] = INTEGER_MATH("tsr__k_i64_in", "tsr__k_i64_out"),
    [TSR_FLOAT16] = FLOAT_MATH("tsr__k_f16_in", "tsr__k_f16_out", "f16"),
    [TSR_BFLOAT16] = FLOAT_MATH("tsr__k_bf16_in", "tsr__k_bf16_out", "bf16"),
    [TSR_FLOAT32] = FLOAT_MATH("", "", "f32"),
    [TSR_FLOAT64] = {"double", "($1_re)", "    $1_re = $2;\n", "as_double(alpha.s0)",
                     "tsr__k_add_f64", "*", "/", "tsr__k_divt_f64", "tsr__k_divf_f64"},
    [TSR_COMPLEX32] = {"tsr__kc64", "tsr__k_c32_in($1_re, $1_im)",
                       "    $1_re = tsr__k_f16_out(($2).re);\n"
                       "    $1_im = tsr__k_f16_out(($2).im);\n",
                       "tsr__kc64_make(as_float((uint)alpha.s0), as_float((uint)(alpha.s0 >> 32)))",
                       "tsr__k_add_c32", "tsr__k_mul_c64", NULL, NULL, NULL},
    [TSR_COMPLEX64] = {"tsr__kc64", "tsr__kc64_make($1_re, $1_im)",
                       "    $1_re = ($2).re;\n    $1_im = ($2).im;\n",
                       "tsr__kc64_make(as_float((uint)alpha.s0), as_float((uint)(alpha.s0 >> 32)))",
                       "tsr__k_add_c64", "tsr__k_mul_c64", "tsr__k_div_c64", NULL, NULL},
    [TSR_COMPLEX128] = {"tsr__kc128", "tsr__kc128_make($1_re, $1_im)",
                        "    $1_re = ($2).re;\n    $1_im = ($2).im;\n",
                        "tsr__kc128_make(as_double(alpha.s0), as_double(alpha.s1))",
                        "tsr__k_add_c128", "tsr__k_mul_c128", "tsr__k_div_c128", NULL, NULL},
};

/* ---- keys ------------------------------------------------------------------ */

static tsr_status bad_key(const char *what, int value)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid kernel %s %d", what, value);
}

/* Operand k of a key: its dtype, or TSR__KEY_SCALAR. */
static bool key_is_scalar(const tsr__kernel_key *key, int k)
{
    return key->dtypes[k] == TSR__KEY_SCALAR;
}

tsr_status tsr__kernel_key_check(const tsr__kernel_key *key, unsigned caps)
{
    if (key == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel key must not be NULL");
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    if (key->op == 0 || key->op >= TSR__KOP_COUNT)
        return bad_key("operation", key->op);
    if (key->shape > TSR__KSHAPE_STRIDED)
        return bad_key("shape", key->shape);
    if (!tsr_dtype_is_valid((tsr_dtype)key->common))
        return bad_key("common dtype", key->common);
    unsigned want = op == TSR__KOP_FILL ? 1 : op == TSR__KOP_COPY ? 2 : 3;
    if (key->noperands != want)
        return bad_key("operand count", key->noperands);
    if (key->reserved != 0)
        return bad_key("reserved byte", key->reserved);
    tsr_dtype common = (tsr_dtype)key->common;
    bool fp64 = needs_fp64(common);
    for (int k = 0; k < TSR__KERNEL_MAX_OPERANDS; k++) {
        uint8_t d = key->dtypes[k];
        if (k >= (int)want) {
            if (d != 0)
                return bad_key("unused operand dtype", d);
            continue;
        }
        if (d == TSR__KEY_SCALAR && k > 0)
            continue;
        if (!tsr_dtype_is_valid((tsr_dtype)d))
            return bad_key("operand dtype", d);
        fp64 |= needs_fp64((tsr_dtype)d);
        if ((d == TSR_FLOAT4_E2M1FN_X2) != (common == TSR_FLOAT4_E2M1FN_X2) && op != TSR__KOP_FILL)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                             "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                             "(from %s to %s)",
                             tsr_dtype_message_name((tsr_dtype)d), tsr_dtype_message_name(common));
    }
    if ((op == TSR__KOP_FILL || op == TSR__KOP_COPY) && key->dtypes[0] != common)
        return bad_key("output dtype of a copy", key->dtypes[0]);
    tsr_status st = tsr__kernel_check_compute(op, common);
    if (st != TSR_OK)
        return st;
    if (fp64 && !(caps & TSR__OPENCL_CAP_FP64))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "this device has no float64 support (cl_khr_fp64): it cannot compute "
                         "with float64 or complex128");
    return TSR_OK;
}

tsr__kernel_shape tsr__kernel_shape_of(const tsr__kernel *k)
{
    if (k->ndim >= 3)
        return TSR__KSHAPE_STRIDED;
    if (k->ndim == 0)
        return TSR__KSHAPE_LINEAR;
    if (k->ndim == 2)
        return TSR__KSHAPE_TILE2;
    bool unit = true;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++)
        if (!(k->operands[i].flags & TSR__KOPERAND_SCALAR))
            unit &= k->operands[i].strides[0] == 1;
    return unit || k->sizes[0] <= 1 ? TSR__KSHAPE_LINEAR : TSR__KSHAPE_TILE2;
}

tsr_status tsr__kernel_key_of(const tsr__kernel *k, tsr__kernel_key *out)
{
    if (k == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel and key must not be NULL");
    if (k->ndim < 0 || k->ndim > TSR_MAX_DIMS)
        return bad_key("ndim", k->ndim);
    if (k->noperands < 1 || k->noperands > TSR__KERNEL_MAX_OPERANDS)
        return bad_key("operand count", (int)k->noperands);
    for (int d = 0; d < k->ndim; d++)
        if (k->sizes[d] < 0)
            return bad_key("size", (int)k->sizes[d]);
    if (k->op > 0xff || k->common > 0xff)
        return bad_key("operation or dtype", (int)k->op);
    tsr__kernel_key key = {
        .op = (uint8_t)k->op,
        .shape = (uint8_t)tsr__kernel_shape_of(k),
        .common = (uint8_t)k->common,
        .noperands = (uint8_t)k->noperands,
    };
    for (uint32_t i = 0; i < k->noperands; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & ~(uint32_t)TSR__KOPERAND_SCALAR)
            return bad_key("operand flags", (int)o->flags);
        if ((o->flags & TSR__KOPERAND_SCALAR) && i == 0)
            return bad_key("output flags", (int)o->flags);
        if (!(o->flags & TSR__KOPERAND_SCALAR) && o->dtype >= TSR_DTYPE_COUNT)
            return bad_key("operand dtype", (int)o->dtype);
        key.dtypes[i] = o->flags & TSR__KOPERAND_SCALAR ? TSR__KEY_SCALAR : (uint8_t)o->dtype;
    }
    tsr_status st = tsr__kernel_key_check(&key, TSR__OPENCL_CAP_FP64);
    if (st != TSR_OK)
        return st;
    *out = key;
    return TSR_OK;
}

void tsr__kernel_launch_geometry(const tsr__kernel *k, tsr__kernel_geometry *g)
{
    memset(g, 0, sizeof *g);
    g->shape = tsr__kernel_shape_of(k);
    g->ndim = k->ndim;
    uint64_t n = 1;
    for (int d = 0; d < k->ndim; d++)
        n *= (uint64_t)k->sizes[d];
    g->n = n;
    int q = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & TSR__KOPERAND_SCALAR)
            continue;
        if (k->ndim >= 1)
            g->stride_inner[q] = o->strides[k->ndim - 1];
        if (k->ndim >= 2)
            g->stride_outer[q] = o->strides[k->ndim - 2];
        for (int d = 0; d < k->ndim; d++)
            g->geom[k->ndim * (1 + q) + d] = o->strides[d];
        q++;
    }
    for (int d = 0; d < k->ndim; d++)
        g->geom[d] = k->sizes[d];
    g->nstorage = q;
    g->geom_count = k->ndim * (1 + q);
    g->n_inner = k->ndim >= 1 ? (uint64_t)k->sizes[k->ndim - 1] : 1;
    g->n_outer = k->ndim >= 2 ? (uint64_t)k->sizes[k->ndim - 2] : 1;
}

/* ---- the program ------------------------------------------------------------ */

/* Declares and loads input k (operand k of the key) as raw `v<k>`. */
static void emit_load(text *t, const tsr__kernel_key *key, int k)
{
    tsr_dtype d = (tsr_dtype)key->dtypes[k];
    const char *st = cl_types[d].store;
    put(t, "    __global const %s *p%d = (__global const %s *)(base%d + off%d);\n", st, k, st, k,
        k);
    if (is_complex(d))
        put(t, "    %s v%d_re = p%d[2 * e%d], v%d_im = p%d[2 * e%d + 1];\n", st, k, k, k, k, k, k);
    else
        put(t, "    %s v%d_re = p%d[e%d], v%d_im = 0;\n", st, k, k, k, k);
    put(t, "    (void)v%d_im;\n", k);
}

/* Declares raw `name` of dtype d from the ulong2 `src` (scalar's bytes). */
static void emit_scalar(text *t, const char *name, tsr_dtype d, const char *src)
{
    const char *st = cl_types[d].store;
    size_t w = tsr_dtype_itemsize(tsr_dtype_to_real(d));
    if (d == TSR_FLOAT32 || d == TSR_COMPLEX64)
        put(t, "    float %s_re = as_float((uint)%s.s0), %s_im = as_float((uint)(%s.s0 >> 32));\n",
            name, src, name, src);
    else if (d == TSR_FLOAT64 || d == TSR_COMPLEX128)
        put(t, "    double %s_re = as_double(%s.s0), %s_im = as_double(%s.s1);\n", name, src, name,
            src);
    else if (w == 8)
        put(t, "    %s %s_re = %s.s0, %s_im = %s.s1;\n", st, name, src, name, src);
    else
        put(t, "    %s %s_re = (%s)%s.s0, %s_im = (%s)(%s.s0 >> %u);\n", st, name, st, src, name,
            st, src, (unsigned)(8 * w));
    put(t, "    (void)%s_im;\n", name);
}

static void emit_index(text *t, const tsr__kernel_key *key, const int *storage, int nstorage)
{
    switch ((tsr__kernel_shape)key->shape) {
    case TSR__KSHAPE_LINEAR:
        put(t, "    size_t i = get_global_id(0);\n    if (i >= n)\n        return;\n");
        for (int q = 0; q < nstorage; q++)
            put(t, "    long e%d = (long)i;\n", storage[q]);
        break;
    case TSR__KSHAPE_TILE2:
        put(t, "    size_t i = get_global_id(0), j = get_global_id(1);\n"
               "    if (i >= n_inner || j >= n_outer)\n        return;\n");
        for (int q = 0; q < nstorage; q++)
            put(t, "    long e%d = (long)i * s%d_inner + (long)j * s%d_outer;\n", storage[q],
                storage[q], storage[q]);
        break;
    case TSR__KSHAPE_STRIDED:
        put(t, "    size_t i = get_global_id(0);\n    if (i >= n)\n        return;\n");
        for (int q = 0; q < nstorage; q++)
            put(t, "    long e%d = 0;\n", storage[q]);
        put(t, "    ulong rest = i;\n    for (int d = ndim - 1; d >= 0; d--) {\n"
               "        long size = geom[d];\n        long at = (long)(rest %% (ulong)size);\n"
               "        rest /= (ulong)size;\n");
        for (int q = 0; q < nstorage; q++)
            put(t, "        e%d += at * geom[ndim * %d + d];\n", storage[q], q + 1);
        put(t, "    }\n");
        break;
    }
}

static void emit_signature(text *t, const tsr__kernel_key *key, const int *storage, int nstorage)
{
    put(t, "__kernel void tsr_kernel(");
    for (int q = 0; q < nstorage; q++)
        put(t, "__global uchar *base%d, ulong off%d, ", storage[q], storage[q]);
    put(t, "ulong2 scalar, ulong2 alpha, __global int *status");
    switch ((tsr__kernel_shape)key->shape) {
    case TSR__KSHAPE_LINEAR:
        put(t, ", ulong n");
        break;
    case TSR__KSHAPE_TILE2:
        for (int q = 0; q < nstorage; q++)
            put(t, ", long s%d_inner, long s%d_outer", storage[q], storage[q]);
        put(t, ", ulong n_inner, ulong n_outer");
        break;
    case TSR__KSHAPE_STRIDED:
        put(t, ", __global const long *geom, int ndim, ulong n");
        break;
    }
    put(t, ")\n{\n");
}

/* The body: inputs to the common dtype, the operation, the result into
 * the output's dtype as raw `r`. */
static void emit_compute(text *t, const tsr__kernel_key *key)
{
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    tsr_dtype common = (tsr_dtype)key->common, out = (tsr_dtype)key->dtypes[0];
    const char *cst = cl_types[common].store;
    if (op == TSR__KOP_FILL) {
        emit_scalar(t, "r", common, "scalar");
        return;
    }
    for (int k = 1; k < key->noperands; k++) {
        char name[8], cname[8];
        snprintf(name, sizeof name, "v%d", k);
        snprintf(cname, sizeof cname, "c%d", k);
        if (key_is_scalar(key, k)) {
            emit_scalar(t, cname, common, "scalar");
            continue;
        }
        emit_load(t, key, k);
        put(t, "    %s %s_re, %s_im;\n", cst, cname, cname);
        convert_value(t, cname, common, name, (tsr_dtype)key->dtypes[k]);
    }
    put(t, "    %s q_re, q_im;\n    (void)q_im;\n", cst);
    if (op == TSR__KOP_COPY) {
        put(t, "    q_re = c1_re;\n    q_im = c1_im;\n");
    } else {
        const cl_math *m = &cl_maths[common];
        char x[96], y[96], e[512], stmt[600];
        subst(x, sizeof x, m->in, "c1", "");
        subst(y, sizeof y, m->in, "c2", "");
        const char *fn = op == TSR__KOP_ADD || op == TSR__KOP_SUB ? m->add
                         : op == TSR__KOP_MUL                     ? m->mul
                         : op == TSR__KOP_DIV                     ? m->div
                         : op == TSR__KOP_DIV_TRUNC               ? m->divt
                                                                  : m->divf;
        put(t, "    int bad = 0;\n    (void)bad;\n");
        if (op == TSR__KOP_ADD || op == TSR__KOP_SUB) {
            put(t, "    %s a = %s;\n", m->type, m->alpha); /* SUB: -alpha, negated by the planner */
            snprintf(e, sizeof e, "%s(%s, %s, a)", fn, x, y);
        } else if (strcmp(fn, "*") == 0 || strcmp(fn, "/") == 0) {
            snprintf(e, sizeof e, "(%s) %s (%s)", x, fn, y);
        } else if (op == TSR__KOP_DIV_TRUNC || op == TSR__KOP_DIV_FLOOR) {
            snprintf(e, sizeof e, "%s(%s, %s%s)", fn, x, y,
                     strcmp(m->type, "tsr__u64") == 0 ? ", &bad" : "");
        } else {
            snprintf(e, sizeof e, "%s(%s, %s)", fn, x, y);
        }
        put(t, "    %s m = %s;\n", m->type, e);
        subst(stmt, sizeof stmt, m->out, "q", "m");
        put(t, "%s", stmt);
        /* A zero divisor writes nothing: a zero-dim divisor holding 0 leaves
         * the output as the cpu leaves it (untouched). */
        put(t, "    if (bad) {\n        *status = 1;\n        return;\n    }\n");
    }
    put(t, "    %s r_re, r_im;\n", cl_types[out].store);
    convert_value(t, "r", out, "q", common);
}

static void emit_store(text *t, const tsr__kernel_key *key)
{
    tsr_dtype out = (tsr_dtype)key->dtypes[0];
    const char *st = cl_types[out].store;
    put(t, "    __global %s *p0 = (__global %s *)(base0 + off0);\n", st, st);
    if (is_complex(out))
        put(t, "    p0[2 * e0] = r_re;\n    p0[2 * e0 + 1] = r_im;\n");
    else
        put(t, "    p0[e0] = r_re;\n    (void)r_im;\n");
}

tsr_status tsr__opencl_source(const tsr__kernel_key *key, unsigned caps, char *buf, size_t size,
                              size_t *length)
{
    tsr_status st = tsr__kernel_key_check(key, caps);
    if (st != TSR_OK)
        return st;
    if (length == NULL || (buf == NULL && size > 0))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "source buffer and length must not be NULL");
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = 0;
    for (int k = 0; k < key->noperands; k++)
        if (k == 0 || !key_is_scalar(key, k))
            storage[nstorage++] = k;
    text t = {buf, size, 0};
    put(&t, "/* tessera elementwise kernel: op %u, shape %u, common %s */\n", key->op, key->shape,
        tsr_dtype_name((tsr_dtype)key->common));
    put(&t, "#pragma OPENCL FP_CONTRACT OFF\n");
    if (caps & TSR__OPENCL_CAP_FP64)
        put(&t, "#define TSR_CONV_HAVE_DOUBLE 1\n");
    put_raw(&t, tsr__ksrc_convert_scalar, tsr__ksrc_convert_scalar_len);
    put_raw(&t, tsr__ksrc_scalar_ops, tsr__ksrc_scalar_ops_len);
    put(&t, "\n");
    emit_signature(&t, key, storage, nstorage);
    put(&t, "    (void)scalar;\n    (void)alpha;\n    (void)status;\n");
    emit_index(&t, key, storage, nstorage);
    emit_compute(&t, key);
    emit_store(&t, key);
    put(&t, "}\n");
    *length = t.len;
    if (t.len >= size)
        return tsr__fail(TSR_ERR_BUFFER_TOO_SMALL,
                         "the kernel source needs %zu bytes, the buffer has %zu", t.len + 1, size);
    return TSR_OK;
}

size_t tsr__opencl_source_max(void)
{
    return tsr__ksrc_convert_scalar_len + tsr__ksrc_scalar_ops_len + 8192;
}

tsr_status tsr__opencl_cache_name(const tsr__kernel_key *key, const char *source, size_t length,
                                  char *buf, size_t size)
{
    if (key == NULL || (source == NULL && length > 0) || buf == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "key, source and buffer must not be NULL");
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < length; i++)
        h = (h ^ (unsigned char)source[i]) * 0x100000001b3u;
    const uint8_t *k = (const uint8_t *)key;
    int n = snprintf(buf, size, "tsr-%02x%02x%02x%02x%02x%02x%02x%02x-%016llx", k[0], k[1], k[2],
                     k[3], k[4], k[5], k[6], k[7], (unsigned long long)h);
    if (n < 0 || (size_t)n >= size)
        return tsr__fail(TSR_ERR_BUFFER_TOO_SMALL, "the cache name needs %d bytes", n + 1);
    return TSR_OK;
}
