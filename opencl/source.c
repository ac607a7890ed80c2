/* OpenCL C generation: one program per tsr__kernel_key.
 *
 * A program is the embedded element headers (core/convert_scalar.h, then
 * float16 helpers of its own, kernels/scalar_ops.h, kernels/scalar_math.h,
 * kernels/scalar_trig.h and kernels/scalar_misc.h) followed by tsr_elem, one element written
 * out for the key: a load per input, the conversion from the input's dtype
 * to the common dtype (the rules of tsr__kernel_convert, expressed with
 * core/convert_scalar.h's functions), the operation from
 * kernels/scalar_ops.h in the common dtype's math type, and the
 * conversion of the result into the output's dtype and its store. Values
 * travel between those steps as stored bits ("raw"), never through float
 * arithmetic, so NaN payloads survive exactly as on the host. Then the
 * kernel, tsr_kernel: each work-item walks a block of the index space
 * row by row, with one loop per walk (core/kernel.h), so that the loops
 * where operands step by one element or stand still compile to vector
 * code whatever the launch, and one program serves every layout. */
#include "opencl/source.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "kernels/cpu_reduce.h"
#include "kernels/reduce_order.h"
#include "kernels/kernels.h"
#include "kernels/launch.h"
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

/* Operand k of a key: its dtype, or TSR__KEY_SCALAR. */
static bool key_is_scalar(const tsr__kernel_key *key, int k)
{
    return key->dtypes[k] == TSR__KEY_SCALAR;
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
    const char *suffix; /* the element functions' family: tsr__k_<elem>_<suffix> */
} cl_math;

/* Each operation's element function, by its base name (core/ops.def);
 * which dtypes it computes in is tsr__kernel_check_compute's answer. */
static const char *const cl_elems[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    [TSR__KOP_##ENUM] = #elem,
#include "core/ops.def"
#undef X
};

#define INTEGER_MATH(in, out)                                                     \
    {                                                                             \
        "tsr__u64", in "($1_re)", "    $1_re = " out "($2);\n", "alpha.s0", "int" \
    }
#define FLOAT_MATH(in, out, suffix)                                                             \
    {                                                                                           \
        "float", in "($1_re)", "    $1_re = " out "($2);\n", "as_float((uint)alpha.s0)", suffix \
    }

static const cl_math cl_maths[TSR_DTYPE_COUNT] = {
    [TSR_BOOL] = {"tsr__u64", "tsr__k_b8_in($1_re)", "    $1_re = tsr__k_b8_out($2);\n",
                  "(alpha.s0 != 0 ? (tsr__u64)1 : (tsr__u64)0)", "b8"},
    [TSR_UINT8] = INTEGER_MATH("tsr__k_u8_in", "tsr__k_u8_out"),
    [TSR_INT8] = INTEGER_MATH("tsr__k_i8_in", "tsr__k_i8_out"),
    [TSR_INT16] = INTEGER_MATH("tsr__k_i16_in", "tsr__k_i16_out"),
    [TSR_INT32] = INTEGER_MATH("tsr__k_i32_in", "tsr__k_i32_out"),
    [TSR_INT64] = INTEGER_MATH("tsr__k_i64_in", "tsr__k_i64_out"),
    [TSR_FLOAT16] = FLOAT_MATH("tsr__k_f16_in", "tsr__k_f16_out", "f16"),
    [TSR_BFLOAT16] = FLOAT_MATH("tsr__k_bf16_in", "tsr__k_bf16_out", "bf16"),
    [TSR_FLOAT32] = FLOAT_MATH("", "", "f32"),
    [TSR_FLOAT64] = {"double", "($1_re)", "    $1_re = $2;\n", "as_double(alpha.s0)", "f64"},
    [TSR_COMPLEX32] = {"tsr__kc64", "tsr__k_c32_in($1_re, $1_im)",
                       "    $1_re = tsr__k_f16_out(($2).re);\n"
                       "    $1_im = tsr__k_f16_out(($2).im);\n",
                       "tsr__kc64_make(as_float((uint)alpha.s0), as_float((uint)(alpha.s0 >> 32)))",
                       "c32"},
    [TSR_COMPLEX64] = {"tsr__kc64", "tsr__kc64_make($1_re, $1_im)",
                       "    $1_re = ($2).re;\n    $1_im = ($2).im;\n",
                       "tsr__kc64_make(as_float((uint)alpha.s0), as_float((uint)(alpha.s0 >> 32)))",
                       "c64"},
    [TSR_COMPLEX128] = {"tsr__kc128", "tsr__kc128_make($1_re, $1_im)",
                        "    $1_re = ($2).re;\n    $1_im = ($2).im;\n",
                        "tsr__kc128_make(as_double(alpha.s0), as_double(alpha.s1))", "c128"},
};

/* ---- keys ------------------------------------------------------------------ */

/* ---- the program ------------------------------------------------------------ */

/* The OpenCL C helpers (opencl/helpers.cl, embedded at build time). */

/* Declares input k (operand k of the key) as raw `v<k>` from the
 * element function's argument `in<k>` (a vector of two when complex). */
static void emit_load(text *t, const tsr__kernel_key *key, int k)
{
    tsr_dtype d = (tsr_dtype)key->dtypes[k];
    const char *st = cl_types[d].store;
    if (is_complex(d))
        put(t, "    %s v%d_re = in%d.s0, v%d_im = in%d.s1;\n", st, k, k, k, k);
    else
        put(t, "    %s v%d_re = in%d, v%d_im = 0;\n", st, k, k, k);
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

/* The type a kernel loads or stores one element of operand k as: its
 * storage type, or a vector of two for a complex dtype (real part
 * first). */
static void elem_type(const tsr__kernel_key *key, int k, char *buf, size_t n)
{
    tsr_dtype d = (tsr_dtype)key->dtypes[k];
    snprintf(buf, n, "%s%s", cl_types[d].store, is_complex(d) ? "2" : "");
}

static void out_type(const tsr__kernel_key *key, char *buf, size_t n)
{
    elem_type(key, 0, buf, n);
}

/* The body: inputs to the common dtype, the operation, the result into
 * the output's dtype as raw `r`. An integer division by zero raises *bad
 * and writes nothing: a zero-dim divisor holding 0 leaves the output as
 * the cpu leaves it (untouched). */
static void emit_compute(text *t, const tsr__kernel_key *key)
{
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    tsr_dtype common = (tsr_dtype)key->common, out = (tsr_dtype)key->dtypes[0];
    const char *cst = cl_types[common].store;
    if (op == TSR__KOP_FILL) {
        emit_scalar(t, "r", common, "scalar");
        return;
    }
    int scalars = 0;
    for (int k = 1; k < key->noperands; k++) {
        char name[8], cname[8];
        snprintf(name, sizeof name, "v%d", k);
        snprintf(cname, sizeof cname, "c%d", k);
        if (key_is_scalar(key, k)) {
            /* the first scalar input in `scalar`, a second in `alpha` */
            emit_scalar(t, cname, common, scalars++ ? "alpha" : "scalar");
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
        char x[96], y[96], z[96], e[512], stmt[600];
        subst(x, sizeof x, m->in, "c1", "");
        subst(y, sizeof y, m->in, "c2", "");
        subst(z, sizeof z, m->in, "c3", "");
        /* The operation's element function in this family (the key was
         * checked: the operation computes in `common`). */
        char fn[48];
        snprintf(fn, sizeof fn, "tsr__k_%s_%s", cl_elems[op], m->suffix);
        bool alpha = tsr__kernel_op_has(op, TSR__KOPF_ALPHA);
        bool zero_check = tsr__kernel_key_checks_zero(key);
        /* add/sub's NaN is spelled out (but bfloat16 results spell every
         * NaN 7FC0): see opencl/helpers.cl */
        bool real = (strcmp(m->type, "float") == 0 || strcmp(m->type, "double") == 0) &&
                    common != TSR_BFLOAT16 && alpha;
        if (real) { /* the inputs by name, for the NaN below */
            put(t, "    %s x1 = %s, x2 = %s;\n", m->type, x, y);
            snprintf(x, sizeof x, "x1");
            snprintf(y, sizeof y, "x2");
        }
        if (alpha) {
            put(t, "    %s a = %s;\n", m->type, m->alpha); /* SUB: -alpha, negated by the planner */
            snprintf(e, sizeof e, "%s(%s, %s, a)", fn, x, y);
        } else if (tsr__kernel_op_has(op, TSR__KOPF_VALUE)) {
            put(t, "    %s v = %s;\n", m->type, m->alpha); /* lerp's weight, addcmul's value */
            if (tsr__kernel_ops[op].arity == 3)
                snprintf(e, sizeof e, "%s(%s, %s, %s, v)", fn, x, y, z);
            else if (tsr__kernel_ops[op].arity == 1)
                snprintf(e, sizeof e, "%s(%s, v)", fn, x);
            else
                snprintf(e, sizeof e, "%s(%s, %s, v)", fn, x, y);
        } else if (tsr__kernel_ops[op].replace) {
            /* nan_to_num's numbers in the slots of scalar and alpha */
            static const char *const slots[3] = {"scalar.s0", "scalar.s1", "alpha.s0"};
            bool f64 = strcmp(m->type, "double") == 0, f32 = strcmp(m->type, "float") == 0;
            char n[3][32];
            for (int q = 0; q < 3; q++)
                snprintf(n[q], sizeof n[q],
                         f64   ? "as_double(%s)"
                         : f32 ? "as_float((uint)%s)"
                               : "(%s)",
                         slots[q]);
            snprintf(e, sizeof e, "%s(%s, %s, %s, %s)", fn, x, n[0], n[1], n[2]);
        } else if (zero_check) {
            put(t, "    int zero = 0;\n");
            snprintf(e, sizeof e, "%s(%s, %s, &zero)", fn, x, y);
        } else if (tsr__kernel_op_has(op, TSR__KOPF_WIDTH)) {
            snprintf(e, sizeof e, "%s(%s, %s, %u)", fn, x, y,
                     (unsigned)(8 * tsr_dtype_itemsize(common)));
        } else if (tsr__kernel_ops[op].arity == 1) {
            snprintf(e, sizeof e, "%s(%s)", fn, x);
        } else if (tsr__kernel_ops[op].arity == 3) {
            snprintf(e, sizeof e, "%s(%s, %s, %s)", fn, x, y, z);
        } else {
            snprintf(e, sizeof e, "%s(%s, %s)", fn, x, y);
        }
        put(t, "    %s m = %s;\n", m->type, e);
        if (real)
            put(t, "    if (spell_nan)\n        m = tsr__cl_nan_%s(m, x1, x2);\n",
                strcmp(m->type, "float") == 0 ? "f32" : "f64");
        if (zero_check) {
            char ot[16];
            out_type(key, ot, sizeof ot);
            put(t, "    if (zero) {\n        *bad = 1;\n        return (%s)0;\n    }\n", ot);
        }
        subst(stmt, sizeof stmt, m->out, "q", "m");
        put(t, "%s", stmt);
    }
    put(t, "    %s r_re, r_im;\n", cl_types[out].store);
    convert_value(t, "r", out, "q", common);
}

/* tsr_elem: one element from the element in<k> of each input k with
 * storage; returns the output's bits. */
static void emit_element(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                         const char *name)
{
    char ot[16];
    out_type(key, ot, sizeof ot);
    put(t, "static inline __attribute__((always_inline)) %s %s(", ot, name);
    for (int q = 1; q < nstorage; q++) {
        char it[16];
        elem_type(key, storage[q], it, sizeof it);
        put(t, "%s in%d, ", it, storage[q]);
    }
    put(t, "ulong2 scalar, ulong2 alpha, bool spell_nan, __private int *bad)\n{\n");
    put(t, "    (void)scalar;\n    (void)alpha;\n    (void)spell_nan;\n    (void)bad;\n");
    emit_compute(t, key);
    if (is_complex((tsr_dtype)key->dtypes[0]))
        put(t, "    return (%s)(r_re, r_im);\n}\n\n", ot);
    else
        put(t, "    (void)r_im;\n    return r_re;\n}\n\n");
}

/* alpha 1 and -1 as the element function takes alpha. */
static void alpha_value(const tsr__kernel_key *key, int sign, char *buf, size_t n)
{
    if (key->common == TSR_FLOAT64)
        snprintf(buf, n, "(ulong2)(0x%cFF0000000000000UL, 0)", sign > 0 ? '3' : 'B');
    else
        snprintf(buf, n, "(ulong2)(0x%cF800000UL, 0)", sign > 0 ? '3' : 'B');
}

/* Whether the walk's rows are computed a chunk at a time into private
 * memory and then stored, around the caches when the launch says so:
 * where the output is nearly all the traffic (an input standing still,
 * or a fill), whose stores would otherwise first read every line they
 * write; and an operation's streaming rows, whose output is a half or a
 * third of it (tsr__kernel_unit_streams: only when the launch streams,
 * else directly). A packed tile's short rows do better stored directly
 * (measured). */
static bool chunked(const tsr__kernel_key *key, int walk)
{
    return walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_BCAST2 ||
           (walk == TSR__KWALK_UNIT &&
            (key->op == TSR__KOP_FILL || tsr__kernel_unit_streams(key->op)));
}

/* Bytes of a row's chunk: sixteen cache lines. */
#define CHUNK_BYTES 1024
/* Packed blocks run down bands of PACK_BAND blocks (see emit_entry). */
#define PACK_BAND 8u

/* The inputs' elements at `at` of row j, in each walk. */
static void emit_args(text *t, const int *storage, int nstorage, int walk, const char *at)
{
    for (int q = 1; q < nstorage; q++) {
        int k = storage[q];
        if (walk == TSR__KWALK_STRIDED)
            put(t, "p%d[f%d + (long)(%s) * st%d.x], ", k, k, at, k);
        else if (k == walk)
            put(t, "p%d[f%d], ", k, k);
        else if (k == walk - TSR__KWALK_PACK1 + 1)
            put(t, "tile[j * %u + (%s)], ", TSR__KPACK_X, at);
        else
            put(t, "p%d[f%d + (long)(%s)], ", k, k, at);
    }
}

/* Whether the operation's element function is a long run of float
 * arithmetic (kernels/scalar_math.h and scalar_trig.h: the unary rows of
 * core/ops.def that compute integers in float, and gelu, silu), whose
 * vector loop keeps its many temporaries in registers only at the
 * device's own width, one vector at a time. */
static bool long_element(const tsr__kernel_key *key)
{
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    return (tsr__kernel_ops[op].arity == 1 && tsr__kernel_op_has(op, TSR__KOPF_INT_TO_FLOAT)) ||
           op == TSR__KOP_GELU || op == TSR__KOP_GELU_TANH || op == TSR__KOP_SILU;
}

/* The vectoriser's pragma for a row loop: float32 rows go sixteen wide,
 * two at a time (measured: PoCL's default of eight loses 8% on a
 * streaming add), but for a long element function, whose sixteen-wide
 * loop spilled half its registers on an AVX2 device (sigmoid: twice the
 * instructions, half the speed on one PoCL thread). */
static const char *vectorise(const tsr__kernel_key *key)
{
    if (long_element(key))
        return "#pragma clang loop vectorize(assume_safety) interleave_count(1)\n";
    return key->common == TSR_FLOAT32
               ? "#pragma clang loop vectorize(assume_safety) vectorize_width(16) "
                 "interleave_count(2)\n"
               : "#pragma clang loop vectorize(assume_safety)\n";
}

/* Row j of a block: `ni` elements from the row's first ones, f<k>, in
 * walk `walk`, with add/sub's alpha `alpha`. */
static void emit_row(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                     int walk, const char *alpha)
{
    char ot[16];
    out_type(key, ot, sizeof ot);
    /* a loop that knows alpha computes add/sub as written */
    const char *spell = strcmp(alpha, "alpha") == 0 ? "true" : "false";
    if (walk == TSR__KWALK_STRIDED) {
        put(t, "#pragma clang loop vectorize(disable)\n"
               "            for (ulong i = 0; i < ni; i++) {\n");
        if (tsr__kernel_key_checks_zero(key)) {
            put(t, "                int zero = 0;\n                %s v = tsr_elem(", ot);
            emit_args(t, storage, nstorage, walk, "i");
            put(t,
                "scalar, %s, %s, &zero);\n"
                "                if (zero)\n                    bad = 1;\n"
                "                else\n                    p0[f0 + (long)i * st0.x] = v;\n",
                alpha, spell);
        } else {
            put(t, "                p0[f0 + (long)i * st0.x] = tsr_elem(");
            emit_args(t, storage, nstorage, walk, "i");
            put(t, "scalar, %s, %s, &bad);\n", alpha, spell);
        }
        put(t, "            }\n");
        return;
    }
    /* an operation's streaming rows go through the chunks only to stream */
    bool unit = walk == TSR__KWALK_UNIT && tsr__kernel_unit_streams(key->op);
    if (!chunked(key, walk) || unit) {
        if (unit)
            put(t, "            if (!stream) {\n");
        put(t,
            "%s            for (ulong i = 0; i < ni; i++)\n                p0[f0 + (long)i] = "
            "tsr_elem(",
            vectorise(key));
        emit_args(t, storage, nstorage, walk, "i");
        put(t, "scalar, %s, %s, &bad);\n", alpha, spell);
        if (!unit)
            return;
        put(t, "                continue;\n            }\n");
    }
    size_t w = tsr_dtype_itemsize((tsr_dtype)key->dtypes[0]);
    /* The first chunk of a streamed row ends where the output's lines
     * begin, so that the others go out in whole lines. */
    put(t, "            __global %s *q0 = p0 + f0;\n", ot);
    put(t,
        "            for (ulong i = 0; i < ni;) {\n"
        "                ulong m = min(ni - i, (ulong)%zu);\n"
        "                ulong mis = (ulong)(q0 + i) & 63;\n"
        "                if (stream && mis != 0 && mis %% %zu == 0)\n"
        "                    m = min(m, (64 - mis) / %zu);\n",
        CHUNK_BYTES / w, w, w);
    put(t,
        "%s                for (ulong u = 0; u < m; u++)\n                    buf[u] = tsr_elem(",
        vectorise(key));
    emit_args(t, storage, nstorage, walk, "i + u");
    put(t, "scalar, %s, %s, &bad);\n", alpha, spell);
    put(t,
        "                if (stream && m == %zu && mis == 0) {\n"
        "                    for (int v = 0; v < %d; v++)\n"
        "                        TSR__CL_STREAM(vload16(v, (__private const uint *)buf),\n"
        "                                       (__global uint16 *)(q0 + i) + v);\n"
        "                } else {\n"
        "#pragma clang loop vectorize(assume_safety)\n"
        "                    for (ulong u = 0; u < m; u++)\n"
        "                        q0[i + u] = buf[u];\n"
        "                }\n"
        "                i += m;\n"
        "            }\n",
        CHUNK_BYTES / w, CHUNK_BYTES / 64);
}

/* Whether a packed walk's rows also come as whole vectors stored around
 * the caches: float32 and float64 add, sub, mul and true division with
 * every operand in the common dtype. A packed tile's rows are short (two
 * to four cache lines), and stored through the caches each first reads
 * the lines it writes; around them, written from whole vectors, the
 * kernel kept its speed where the same launch otherwise lost up to half
 * of it from one run to the next (measured on PoCL, float32 add with a
 * transposed 8192 x 8192 input: 7.5-9.2 GB/s against 4.2-8.8). Written
 * from private memory instead, as the chunked walks do, the rows cost a
 * fifth more. The element function stays the scalar one's: a + b, a - b,
 * a * b and a / b are IEEE operations that give the same bits one lane
 * at a time or sixteen, and add's general alpha spells its NaN out as
 * tsr__cl_nan_f32/_f64 do. */
static bool vector_rows(const tsr__kernel_key *key, int walk)
{
    tsr_dtype c = (tsr_dtype)key->common;
    bool op = key->op == TSR__KOP_ADD || key->op == TSR__KOP_SUB || key->op == TSR__KOP_MUL ||
              key->op == TSR__KOP_DIV;
    return (walk == TSR__KWALK_PACK1 || walk == TSR__KWALK_PACK2) && op &&
           (c == TSR_FLOAT32 || c == TSR_FLOAT64) && key->noperands == 3 && key->dtypes[0] == c &&
           key->dtypes[1] == c && key->dtypes[2] == c;
}

/* Row j of a packed block as whole vectors, stored around the caches:
 * taken when the launch streams, the block is TSR__KPACK_X wide and the
 * row starts on a cache line (else the scalar row below runs). */
static void emit_vector_row(text *t, const tsr__kernel_key *key, int walk)
{
    bool f32 = key->common == TSR_FLOAT32;
    const char *st = f32 ? "float" : "double", *vt = f32 ? "float16" : "double8";
    const char *ut = f32 ? "uint16" : "ulong8", *n = f32 ? "16" : "8";
    int lanes = f32 ? 16 : 8, k = walk - TSR__KWALK_PACK1 + 1;
    char src[2][48];
    for (int i = 1; i <= 2; i++) {
        if (i == k)
            snprintf(src[i - 1], sizeof src[i - 1], "tile + j * %u", TSR__KPACK_X);
        else
            snprintf(src[i - 1], sizeof src[i - 1], "p%d + f%d", i, i);
    }
    put(t,
        "            if (vector_rows && ((ulong)(p0 + f0) & 63) == 0) {\n"
        "                for (int v = 0; v < %d; v++) {\n"
        "                    %s x = vload%s(v, %s), y = vload%s(v, %s), m;\n",
        TSR__KPACK_X / lanes, vt, n, src[0], n, src[1]);
    if (key->op == TSR__KOP_MUL || key->op == TSR__KOP_DIV) {
        put(t, "                    m = x %s y;\n", key->op == TSR__KOP_MUL ? "*" : "/");
    } else {
        put(t,
            "                    if (va == (%s)1)\n"
            "                        m = x + y;\n"
            "                    else if (va == (%s)-1)\n"
            "                        m = x - y;\n"
            "                    else {\n"
            "                        m = fma((%s)va, y, x);\n"
            "                        %s q = select(select((%s)%s, as_%s(y) | %s, "
            "as_%s(isnan(y))),\n"
            "                                      as_%s(x) | %s, as_%s(isnan(x)));\n"
            "                        m = select(m, as_%s(q), isnan(m));\n"
            "                    }\n",
            st, st, vt, ut, ut, f32 ? "0xFFC00000u" : "0xFFF8000000000000UL", ut,
            f32 ? "0x00400000u" : "0x0008000000000000UL", ut, ut,
            f32 ? "0x00400000u" : "0x0008000000000000UL", ut, vt);
    }
    put(t,
        "                    TSR__CL_STREAM(m, (__global %s *)(p0 + f0) + v);\n"
        "                }\n"
        "                continue;\n"
        "            }\n",
        vt);
}

/* Row j of a packed block asks for what the next block down its band
 * (the next work-group, on a CPU device: emit_entry) reads: a share of the
 * packed input's lines block.y elements further along its rows, spread
 * over the block's rows so that all of them are asked for by its end, and
 * row j + block.y of every other input. One thread of a CPU device is
 * otherwise bound by memory latency here: the inputs are read in runs too
 * short (a block's width) and too many at once (a block's rows) for the
 * hardware to see them coming. In a 8192^2 float32 add with a transposed
 * input on one PoCL thread the kernel ran about 15% faster with both
 * kinds asked for (float64 about 45%), and slower with either alone. */
static void emit_prefetch(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                          int walk)
{
    int k = walk - TSR__KWALK_PACK1 + 1;
    unsigned lines = TSR__KPACK_BYTES / 64, per_row = TSR__KPACK_BYTES / TSR__KPACK_X / 64;
    /* (`per`: the packed input's lines asked for in each row.) */
    put(t,
        "            if (ahead) {\n"
        "                for (uint u = (uint)j * per, end = min(u + per, %uu); u < end; u++)\n"
        "                    TSR__CL_PREFETCH((__global const uchar *)(p%d + e%d + (long)(u / %u) "
        "* "
        "st%d.x + (long)block.y * st%d.y) + (u %% %u) * 64);\n",
        lines, k, k, per_row, k, k, per_row);
    for (int q = 1; q < nstorage; q++) {
        int op = storage[q];
        if (op == k)
            continue;
        size_t bytes = TSR__KPACK_X * tsr_dtype_itemsize((tsr_dtype)key->dtypes[op]);
        for (size_t b = 0; b < bytes; b += 64)
            put(t,
                "                TSR__CL_PREFETCH((__global const uchar *)(p%d + f%d + "
                "(long)block.y * st%d.y) + %zu);\n",
                op, op, op, b);
    }
    put(t, "            }\n");
}

static void emit_rows(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                      int walk, const char *alpha, bool vectors);

/* The rows of a block in one walk: first the packed input's tile, read
 * along its own rows (the tile's columns) into private memory, when the
 * walk packs one. */
static void emit_walk(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                      int walk, const char *alpha)
{
    if (walk >= TSR__KWALK_PACK1) {
        int k = walk - TSR__KWALK_PACK1 + 1;
        char it[16];
        elem_type(key, k, it, sizeof it);
        size_t w = tsr_dtype_itemsize((tsr_dtype)key->dtypes[k]);
        put(t, "        __private %s tile[%zu];\n", it, (size_t)TSR__KPACK_BYTES / w);
        const char *word = w == 1   ? "uchar"
                           : w == 2 ? "ushort"
                           : w == 4 ? "uint"
                           : w == 8 ? "ulong"
                                    : NULL;
        if (word) {
            /* Blocks of 8 x 8: eight runs of the input's rows, transposed
             * in registers (three rounds of pairwise interleaving). */
            put(t,
                "        if ((ni & 7) == 0 && (nj & 7) == 0 && st%d.y == 1) {\n"
                "            for (ulong i = 0; i < ni; i += 8)\n"
                "                for (ulong j = 0; j < nj; j += 8) {\n"
                "                    __global const %s *s = (__global const %s *)p%d + e%d + "
                "(long)i * st%d.x + (long)j;\n",
                k, word, word, k, k, k);
            for (int r = 0; r < 8; r++)
                put(t, "                    %s8 r%d = vload8(0, s + %d * st%d.x);\n", word, r, r,
                    k);
            for (int r = 0; r < 8; r += 2)
                put(t,
                    "                    %s8 a%d = (%s8)(r%d.s0, r%d.s0, r%d.s1, r%d.s1, r%d.s4, "
                    "r%d.s4, r%d.s5, r%d.s5);\n"
                    "                    %s8 a%d = (%s8)(r%d.s2, r%d.s2, r%d.s3, r%d.s3, r%d.s6, "
                    "r%d.s6, r%d.s7, r%d.s7);\n",
                    word, r, word, r, r + 1, r, r + 1, r, r + 1, r, r + 1, word, r + 1, word, r,
                    r + 1, r, r + 1, r, r + 1, r, r + 1);
            for (int r = 0; r < 8; r += 4)
                for (int h = 0; h < 2; h++)
                    put(t,
                        "                    %s8 b%d = (%s8)(a%d.s0, a%d.s1, a%d.s0, a%d.s1, "
                        "a%d.s4, a%d.s5, a%d.s4, a%d.s5);\n"
                        "                    %s8 b%d = (%s8)(a%d.s2, a%d.s3, a%d.s2, a%d.s3, "
                        "a%d.s6, a%d.s7, a%d.s6, a%d.s7);\n",
                        word, r + 2 * h, word, r + h, r + h, r + h + 2, r + h + 2, r + h, r + h,
                        r + h + 2, r + h + 2, word, r + 2 * h + 1, word, r + h, r + h, r + h + 2,
                        r + h + 2, r + h, r + h, r + h + 2, r + h + 2);
            put(t, "                    __private %s *d = (__private %s *)tile + j * %u + i;\n",
                word, word, TSR__KPACK_X);
            for (int c = 0; c < 8; c++)
                put(t, "                    vstore8((%s8)(b%d.%s, b%d.%s), 0, d + %d * %u);\n",
                    word, c & 3, c < 4 ? "lo" : "hi", (c & 3) + 4, c < 4 ? "lo" : "hi", c,
                    TSR__KPACK_X);
            put(t, "                }\n"
                   "        } else {\n");
        } else {
            put(t, "        {\n");
        }
        put(t,
            "        for (ulong j = 0; j < nj; j++) {\n"
            "            long g = e%d + (long)j * st%d.y;\n"
            "#pragma clang loop vectorize(disable)\n"
            "            for (ulong i = 0; i < ni; i++)\n"
            "                tile[j * %u + i] = p%d[g + (long)i * st%d.x];\n"
            "        }\n"
            "        }\n",
            k, k, TSR__KPACK_X, k, k);
    }
    if (chunked(key, walk)) {
        char ot[16];
        out_type(key, ot, sizeof ot);
        put(t, "        __private %s buf[%zu];\n", ot,
            CHUNK_BYTES / tsr_dtype_itemsize((tsr_dtype)key->dtypes[0]));
    }
    bool vectors = vector_rows(key, walk);
    if (vectors) {
        put(t, "        bool vector_rows = stream && ni == %u;\n", TSR__KPACK_X);
        if (key->op == TSR__KOP_ADD || key->op == TSR__KOP_SUB)
            put(t, "        %s va = %s;\n", key->common == TSR_FLOAT32 ? "float" : "double",
                key->common == TSR_FLOAT32 ? "as_float((uint)alpha.s0)" : "as_double(alpha.s0)");
    }
    if (walk >= TSR__KWALK_PACK1)
        put(t,
            "        bool ahead = j0 + block.y < size.y;\n"
            "        uint per = (%uu + block.y - 1) / block.y;\n",
            TSR__KPACK_BYTES / 64);
    if (walk != TSR__KWALK_STRIDED && walk != TSR__KWALK_UNIT && strcmp(alpha, "alpha") == 0 &&
        tsr__kernel_key_alpha_loops(key)) {
        /* add/sub's rows for alpha 1 and -1 as well, picked per launch:
         * a loop that knows alpha computes a + b or a - b (the UNIT walk
         * has entries of its own for them, see core/kernel.h). With alpha
         * left open a float32 row costs a blend and a NaN test per
         * element, which one CPU thread could not hide behind the memory:
         * an 8192 x 8192 add of a column and a row ran at 7.8 GB/s on one
         * PoCL thread, against 13-15 for a STREAM add. */
        bool f64 = key->common == TSR_FLOAT64;
        char plus[48], minus[48];
        alpha_value(key, 1, plus, sizeof plus);
        alpha_value(key, -1, minus, sizeof minus);
        put(t, "        %s bits = (%s)alpha.s0;\n", f64 ? "ulong" : "uint", f64 ? "ulong" : "uint");
        put(t, "        if (bits == %s) {\n", f64 ? "0x3FF0000000000000UL" : "0x3F800000u");
        emit_rows(t, key, storage, nstorage, walk, plus, vectors);
        put(t, "        } else if (bits == %s) {\n", f64 ? "0xBFF0000000000000UL" : "0xBF800000u");
        emit_rows(t, key, storage, nstorage, walk, minus, vectors);
        put(t, "        } else {\n");
        emit_rows(t, key, storage, nstorage, walk, alpha, vectors);
        put(t, "        }\n");
        return;
    }
    emit_rows(t, key, storage, nstorage, walk, alpha, vectors);
}

/* The row loop of a block (emit_walk), with add/sub's alpha `alpha`. */
static void emit_rows(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                      int walk, const char *alpha, bool vectors)
{
    put(t, "        for (ulong j = 0; j < nj; j++) {\n");
    for (int q = 0; q < nstorage; q++)
        put(t, "            long f%d = e%d + (long)j * st%d.y;\n", storage[q], storage[q],
            storage[q]);
    for (int q = 0; q < nstorage; q++)
        put(t, "            (void)f%d;\n", storage[q]);
    if (walk >= TSR__KWALK_PACK1)
        emit_prefetch(t, key, storage, nstorage, walk);
    if (vectors)
        emit_vector_row(t, key, walk);
    emit_row(t, key, storage, nstorage, walk, alpha);
    put(t, "        }\n");
}

/* The kernel: the ABI's arguments, the work-item's block, and its rows in
 * the entry's walk. A vector loop for every walk but STRIDED, which takes
 * the scalar loop; float16/32/64 add/sub's alpha 1 and -1 have a UNIT loop
 * each. */
static void emit_entry(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                       int entry)
{
    put(t, "__kernel void tsr_kernel(");
    for (int q = 0; q < nstorage; q++)
        put(t, "__global uchar *base%d, ulong off%d, ", storage[q], storage[q]);
    put(t, "ulong2 scalar, ulong2 alpha, __global int *status, ulong4 size, uint4 block, ");
    for (int q = 0; q < nstorage; q++)
        put(t, "long4 st%d, ", storage[q]);
    put(t, "__global const long *geom)\n{\n");
    if (entry == TSR__KWALK_PACK1 || entry == TSR__KWALK_PACK2) {
        /* The blocks in bands of PACK_BAND rows of blocks, each band
         * walked down its columns: a CPU device runs work-groups in the
         * order of their ids, and along rows of blocks every block reads
         * 64 new pages of the transposed input (a row of it per column),
         * one page walk each where shared memory comes in 4 KiB pages (no
         * transparent huge pages for shmem by default). Down a band a
         * page of the transposed input serves PACK_BAND blocks, and the
         * output's and the other input's 2 x 512 pages stay in the
         * second-level TLB (1,536 or more entries on the x86 cores of
         * the last years). 8192^2 float32 add with a transposed input on
         * one PoCL thread of an AMD EPYC: 0.42-0.45 of a STREAM add
         * against 0.22-0.23 along the rows (a loaded machine). The grid
         * is the whole launch's, counted from size and block: a launch
         * runs in pieces (core/kernel.h), and get_global_size is one
         * piece's, over which the bands would not add up (a piece of a
         * band's last rows divided by zero). The renumbering is one
         * permutation of the whole grid, so every block is run once
         * however the pieces cut the bands. */
        put(t, "    ulong gx = get_global_id(0), gy = get_global_id(1);\n");
        {
            put(t,
                "    {\n"
                "        ulong nx = (size.x + block.x - 1) / block.x;\n"
                "        ulong ny = (size.y + block.y - 1) / block.y;\n"
                "        ulong at = gy * nx + gx, band = at / (nx * %uu);\n"
                "        ulong h = min((ulong)%uu, ny - band * %uu), w = at - band * nx * %uu;\n"
                "        gx = w / h;\n"
                "        gy = band * %uu + w %% h;\n"
                "    }\n",
                PACK_BAND, PACK_BAND, PACK_BAND, PACK_BAND, PACK_BAND);
        }
        put(t, "    ulong i0 = gx * block.x, j0 = gy * block.y;\n"
               "    ulong r = get_global_id(2);\n");
    } else {
        put(t, "    ulong i0 = get_global_id(0) * block.x, j0 = get_global_id(1) * block.y;\n"
               "    ulong r = get_global_id(2);\n");
    }
    put(t, "    if (i0 >= size.x || j0 >= size.y || r >= size.z)\n"
           "        return;\n"
           "    ulong ni = min((ulong)block.x, size.x - i0), nj = min((ulong)block.y, size.y - "
           "j0);\n");
    for (int q = 0; q < nstorage; q++)
        put(t, "    long e%d = (long)i0 * st%d.x + (long)j0 * st%d.y;\n", storage[q], storage[q],
            storage[q]);
    /* The outer index: one dimension by value, more through geom. */
    put(t, "    if (block.w == 1) {\n");
    for (int q = 0; q < nstorage; q++)
        put(t, "        e%d += (long)r * st%d.z;\n", storage[q], storage[q]);
    put(t, "    } else if (block.w > 1) {\n"
           "        int outer = (int)block.w;\n"
           "        ulong rest = r;\n"
           "        for (int d = outer - 1; d >= 0; d--) {\n"
           "            ulong n = (ulong)geom[d];\n"
           "            long at = (long)(rest %% n);\n"
           "            rest /= n;\n");
    for (int q = 0; q < nstorage; q++)
        put(t, "            e%d += at * geom[outer * %d + d];\n", storage[q], q + 1);
    put(t, "        }\n    }\n");
    for (int q = 0; q < nstorage; q++) {
        char et[16];
        elem_type(key, storage[q], et, sizeof et);
        put(t, "    __global %s%s *p%d = (__global %s%s *)(base%d + off%d);\n",
            q == 0 ? "" : "const ", et, storage[q], q == 0 ? "" : "const ", et, storage[q],
            storage[q]);
    }
    put(t,
        "    bool stream = (block.z & %d) != 0;\n"
        "    (void)stream;\n"
        "    int bad = 0;\n"
        "    {\n",
        TSR__KBLOCK_STREAM);
    if (entry == TSR__KENTRY_UNIT_PLUS || entry == TSR__KENTRY_UNIT_MINUS) {
        char value[48];
        alpha_value(key, entry == TSR__KENTRY_UNIT_PLUS ? 1 : -1, value, sizeof value);
        emit_walk(t, key, storage, nstorage, TSR__KWALK_UNIT, value);
    } else {
        emit_walk(t, key, storage, nstorage, entry, "alpha");
    }
    put(t, "    }\n"
           "    TSR__CL_STREAM_END(stream);\n"
           "    if (bad)\n        *status = 1;\n}\n\n");
}

/* ---- the generic program of a common dtype ---------------------------------
 *
 * core/kernel.h describes it. It is made of the same parts as a key's own
 * program, so both give the same bits: each operation's element function
 * is emit_element's for a key whose operands are all in the common dtype,
 * and the conversions on the way in and out are convert_value's, one
 * case per dtype. */

/* Whether a kernel converts between `d` and `common`: float4_e2m1fn_x2
 * only to itself, the float64 dtypes only on devices that have them. */
static bool generic_converts(tsr_dtype common, tsr_dtype d, unsigned caps)
{
    if ((d == TSR_FLOAT4_E2M1FN_X2) != (common == TSR_FLOAT4_E2M1FN_X2))
        return false;
    return !needs_fp64(d) || (caps & TSR__KCAP_FP64);
}

/* The operations computing in `common`, as keys whose operands are all in
 * it: the ones whose element functions the generic program holds. */
static bool generic_op_key(tsr__kernel_op op, tsr_dtype common, tsr__kernel_key *key)
{
    if (tsr__kernel_check_compute(op, common) != TSR_OK)
        return false;
    uint8_t n = (uint8_t)(1 + tsr__kernel_ops[op].arity);
    *key = (tsr__kernel_key){
        .op = (uint8_t)op, .entry = TSR__KWALK_STRIDED, .common = (uint8_t)common, .noperands = n};
    for (uint8_t k = 0; k < n; k++)
        key->dtypes[k] = (uint8_t)common;
    return true;
}

/* tsr_g_load: element i of dtype d at p, in the common dtype (raw). */
static void emit_generic_load(text *t, tsr_dtype common, const char *et, unsigned caps)
{
    const char *cst = cl_types[common].store;
    put(t,
        "static inline %s tsr_g_load(uint d, __global const uchar *p, long i)\n{\n"
        "    %s c_re = 0, c_im = 0;\n    (void)c_im;\n    switch (d) {\n",
        et, cst);
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        if (!generic_converts(common, (tsr_dtype)d, caps))
            continue;
        const char *st = cl_types[d].store;
        put(t, "    case %d: {\n", d);
        if (is_complex((tsr_dtype)d))
            put(t,
                "    %s v_re = ((__global const %s *)p)[2 * i], v_im = ((__global const %s *)p)[2 "
                "* i + 1];\n",
                st, st, st);
        else
            put(t, "    %s v_re = ((__global const %s *)p)[i], v_im = 0;\n", st, st);
        put(t, "    (void)v_im;\n");
        convert_value(t, "c", common, "v", (tsr_dtype)d);
        put(t, "    break;\n    }\n");
    }
    put(t, "    }\n");
    if (is_complex(common))
        put(t, "    return (%s)(c_re, c_im);\n}\n\n", et);
    else
        put(t, "    return c_re;\n}\n\n");
}

/* tsr_g_store: the common dtype's raw q into element i of dtype d at p. */
static void emit_generic_store(text *t, tsr_dtype common, const char *et, unsigned caps)
{
    const char *cst = cl_types[common].store;
    put(t, "static inline void tsr_g_store(uint d, __global uchar *p, long i, %s q)\n{\n", et);
    if (is_complex(common))
        put(t, "    %s q_re = q.s0, q_im = q.s1;\n", cst);
    else
        put(t, "    %s q_re = q, q_im = 0;\n", cst);
    put(t, "    (void)q_im;\n    switch (d) {\n");
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        if (!generic_converts(common, (tsr_dtype)d, caps))
            continue;
        const char *st = cl_types[d].store;
        put(t, "    case %d: {\n    %s r_re = 0, r_im = 0;\n    (void)r_im;\n", d, st);
        convert_value(t, "r", (tsr_dtype)d, "q", common);
        if (is_complex((tsr_dtype)d))
            put(t,
                "    ((__global %s *)p)[2 * i] = r_re;\n"
                "    ((__global %s *)p)[2 * i + 1] = r_im;\n",
                st, st);
        else
            put(t, "    ((__global %s *)p)[i] = r_re;\n", st);
        put(t, "    break;\n    }\n");
    }
    put(t, "    }\n}\n\n");
}

/* The kernel: the prologue of emit_entry for four slots, the operands'
 * slots and dtypes from `kind`, and the STRIDED walk with one switch on
 * the operation per element. */
static void emit_generic_kernel(text *t, tsr_dtype common, const char *et)
{
    put(t, "__kernel void tsr_kernel(");
    for (int q = 0; q < TSR__KGENERIC_SLOTS; q++)
        put(t, "__global uchar *base%d, ulong off%d, ", q, q);
    put(t, "ulong2 scalar, ulong2 alpha, __global int *status, ulong4 size, uint4 block, ");
    for (int q = 0; q < TSR__KGENERIC_SLOTS; q++)
        put(t, "long4 st%d, ", q);
    put(t, "__global const long *geom, uint4 kind)\n{\n");
    put(t, "    ulong i0 = get_global_id(0) * block.x, j0 = get_global_id(1) * block.y;\n"
           "    ulong r = get_global_id(2);\n"
           "    if (i0 >= size.x || j0 >= size.y || r >= size.z)\n"
           "        return;\n"
           "    ulong ni = min((ulong)block.x, size.x - i0), nj = min((ulong)block.y, size.y - "
           "j0);\n"
           "    int ns = (int)kind.w;\n");
    for (int q = 0; q < TSR__KGENERIC_SLOTS; q++)
        put(t, "    long e%d = (long)i0 * st%d.x + (long)j0 * st%d.y + (long)r * st%d.z;\n", q, q,
            q, q);
    /* Past three dimensions st.z is 0 and geom holds the outer ones; it
     * has no strides for the slots past the launch's operands. */
    put(t, "    if (block.w > 1) {\n"
           "        int outer = (int)block.w;\n"
           "        ulong rest = r;\n"
           "        for (int d = outer - 1; d >= 0; d--) {\n"
           "            ulong n = (ulong)geom[d];\n"
           "            long at = (long)(rest %% n);\n"
           "            rest /= n;\n"
           "            e0 += at * geom[outer + d];\n");
    for (int q = 1; q < TSR__KGENERIC_SLOTS; q++)
        put(t, "            if (ns > %d)\n                e%d += at * geom[outer * %d + d];\n", q,
            q, q + 1);
    put(t, "        }\n    }\n");
    /* The inputs with storage take the slots after the output's, in
     * order: an input behind a scalar one takes an earlier slot. */
    put(t,
        "    uint op = kind.x, d0 = kind.y, d1 = kind.z & 0xffu, d2 = (kind.z >> 8) & 0xffu,\n"
        "         d3 = (kind.z >> 16) & 0xffu;\n"
        "    __global uchar *p0 = base0 + off0;\n"
        "    __global const uchar *s1 = base1 + off1, *s2 = base2 + off2, *s3 = base3 + off3;\n"
        "    __global const uchar *p1 = s1, *p2 = s2, *p3 = s3;\n"
        "    long g1 = e1, g2 = e2, g3 = e3, x1 = st1.x, y1 = st1.y, x2 = st2.x, y2 = st2.y,\n"
        "         x3 = st3.x, y3 = st3.y;\n"
        "    uint q2 = 1u + (d1 != %uu), q3 = q2 + (d2 != %uu);\n"
        "    if (q2 == 1u) {\n"
        "        p2 = s1;\n        g2 = e1;\n        x2 = st1.x;\n        y2 = st1.y;\n    }\n"
        "    if (q3 == 1u) {\n"
        "        p3 = s1;\n        g3 = e1;\n        x3 = st1.x;\n        y3 = st1.y;\n"
        "    } else if (q3 == 2u) {\n"
        "        p3 = s2;\n        g3 = e2;\n        x3 = st2.x;\n        y3 = st2.y;\n    }\n",
        TSR__KEY_SCALAR, TSR__KEY_SCALAR);
    /* The first scalar input's value is in `scalar`, a second's in
     * `alpha` (core/kernel.h). */
    emit_scalar(t, "s", common, "scalar");
    emit_scalar(t, "t", common, "alpha");
    if (is_complex(common))
        put(t, "    %s sv = (%s)(s_re, s_im), tv = (%s)(t_re, t_im);\n", et, et, et);
    else
        put(t, "    %s sv = s_re, tv = t_re;\n", et);
    put(t,
        "    %s sv2 = d1 == %uu ? tv : sv, sv3 = d1 == %uu || d2 == %uu ? tv : sv;\n"
        "    (void)sv2;\n    (void)sv3;\n",
        et, TSR__KEY_SCALAR, TSR__KEY_SCALAR, TSR__KEY_SCALAR);
    put(t,
        "    int bad = 0;\n"
        "    for (ulong j = 0; j < nj; j++) {\n"
        "        long f0 = e0 + (long)j * st0.y, f1 = g1 + (long)j * y1, f2 = g2 + (long)j * y2,\n"
        "             f3 = g3 + (long)j * y3;\n"
        "#pragma clang loop vectorize(disable)\n"
        "        for (ulong i = 0; i < ni; i++) {\n"
        "            %s a1 = sv, a2 = sv2, a3 = sv3, v = sv;\n"
        "            if (d1 < %uu)\n"
        "                a1 = tsr_g_load(d1, p1, f1 + (long)i * x1);\n"
        "            if (d2 < %uu)\n"
        "                a2 = tsr_g_load(d2, p2, f2 + (long)i * x2);\n"
        "            if (d3 < %uu)\n"
        "                a3 = tsr_g_load(d3, p3, f3 + (long)i * x3);\n"
        "            (void)a1;\n            (void)a2;\n            (void)a3;\n"
        "            int zero = 0;\n"
        "            switch (op) {\n",
        et, TSR__KGENERIC_NONE, TSR__KGENERIC_NONE, TSR__KGENERIC_NONE);
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        tsr__kernel_key key;
        if (!generic_op_key((tsr__kernel_op)op, common, &key))
            continue;
        const char *args = key.noperands == 4   ? "a1, a2, a3, "
                           : key.noperands == 3 ? "a1, a2, "
                           : key.noperands == 2 ? "a1, "
                                                : "";
        put(t,
            "            case %d:\n"
            "                v = tsr_g%d(%sscalar, alpha, true, &zero);\n"
            "                break;\n",
            op, op, args);
    }
    put(t, "            default: /* the daemon sends none */\n"
           "                zero = 2;\n"
           "            }\n"
           "            if (zero == 1)\n"
           "                bad = 1;\n"
           "            else if (zero == 0)\n"
           "                tsr_g_store(d0, p0, f0 + (long)i * st0.x, v);\n"
           "        }\n"
           "    }\n"
           "    if (bad)\n        *status = 1;\n}\n");
}

static void emit_generic(text *t, tsr_dtype common, unsigned caps)
{
    char et[16];
    snprintf(et, sizeof et, "%s%s", cl_types[common].store, is_complex(common) ? "2" : "");
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        tsr__kernel_key key;
        if (!generic_op_key((tsr__kernel_op)op, common, &key))
            continue;
        int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = tsr__kernel_key_storage(&key, storage);
        char name[16];
        snprintf(name, sizeof name, "tsr_g%d", op);
        emit_element(t, &key, storage, nstorage, name);
    }
    emit_generic_load(t, common, et, caps);
    emit_generic_store(t, common, et, caps);
    emit_generic_kernel(t, common, et);
}

/* ---- the reduction program of a common dtype --------------------------------
 *
 * core/kernel.h, "A reduction", describes it; opencl/reduce.cl holds its
 * walk and combines, after kernels/reduce_order.h. What varies with the
 * dtype is written here: the math type and its family, the conversions
 * between the stored dtype and the math type (the same as the generic
 * program's and the cpu's), and the switch over the reductions that
 * compute in the dtype (the cpu's: tsr__reduce_ops_for). */

static const char *const cl_combines[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, ...) [TSR__KOP_##ENUM] = #elem,
#include "core/ops.def"
#undef X
};

/* reduce.cl reads rows of float32 and float64 in vectors of 16, one
 * accumulator lane a component. */
_Static_assert(TSR__RED_LANES == 16, "reduce.cl's vectors are the lanes");

/* The conversions and NaN rule of the math type (reduce.cl's head). */
static void emit_reduce_math(text *t, tsr_dtype common, const char *et)
{
    const cl_math *m = &cl_maths[common];
    const char *st = cl_types[common].store;
    bool cplx = is_complex(common), real = !cplx && tsr_dtype_is_floating_point(common);
    const char *comp = common == TSR_COMPLEX128 || common == TSR_FLOAT64 ? "double" : "float";
    char in[96], out[160];
    fill_in(in, sizeof in, m->in, "v");
    subst(out, sizeof out, m->out, "r", "m");
    put(t, "#define TSR_R_INT %d\n#define TSR_R_REAL %d\n#define TSR_R_CPLX %d\n", !cplx && !real,
        real, cplx);
    put(t, "typedef %s tsr_r_x;\n", m->type);
    /* float32 and float64 are their own math type: their rows are read
     * in vectors of TSR__RED_LANES, one lane a component (reduce.cl) */
    bool vec = common == TSR_FLOAT32 || common == TSR_FLOAT64;
    put(t, "#define TSR_R_VEC %d\n", vec);
    if (vec)
        put(t, "typedef %s16 tsr_r_v;\ntypedef %s16 tsr_r_vi;\n", comp,
            common == TSR_FLOAT64 ? "long" : "int");
    put(t, "static inline tsr_r_x tsr_r_in(%s q)\n{\n", et);
    if (cplx)
        put(t, "    %s v_re = q.s0, v_im = q.s1;\n", st);
    else
        put(t, "    %s v_re = q, v_im = 0;\n", st);
    put(t, "    (void)v_im;\n    return %s;\n}\n\n", in);
    put(t,
        "static inline %s tsr_r_out(tsr_r_x m)\n{\n    %s r_re = 0, r_im = 0;\n    (void)r_im;\n%s",
        et, st, out);
    if (cplx)
        put(t, "    return (%s)(r_re, r_im);\n}\n\n", et);
    else
        put(t, "    return r_re;\n}\n\n");
    put(t,
        "static inline tsr_r_x tsr_r_load(uint d, __global const uchar *p, long i)\n{\n"
        "    __global const %s *q = (__global const %s *)p;\n",
        st, st);
    if (cplx)
        put(t, "    if (d == %du)\n        return tsr_r_in((%s)(q[2 * i], q[2 * i + 1]));\n",
            common, et);
    else
        put(t, "    if (d == %du)\n        return tsr_r_in(q[i]);\n", common);
    put(t, "    return tsr_r_in(tsr_g_load(d, p, i));\n}\n\n");
    /* the common dtype's own elements, read as they are */
    put(t, "#define TSR_R_COMMON %du\n", common);
    put(t,
        "static inline tsr_r_x tsr_r_load_same(__global const uchar *p, long i)\n{\n"
        "    __global const %s *q = (__global const %s *)p;\n",
        st, st);
    if (cplx)
        put(t, "    return tsr_r_in((%s)(q[2 * i], q[2 * i + 1]));\n}\n\n", et);
    else
        put(t, "    return tsr_r_in(q[i]);\n}\n\n");
    const char *qnan = comp[0] == 'd' ? "as_double(0x7FF8000000000000UL)" : "as_float(0x7FC00000u)";
    put(t, "static inline %s tsr_r_quiet1(%s v)\n{\n    return v != v ? %s : v;\n}\n\n", comp, comp,
        qnan);
    if (cplx) {
        const char *z = common == TSR_COMPLEX128 ? "tsr__kc128" : "tsr__kc64";
        put(t, "#define TSR_R_CMAKE %s_make\n#define TSR_R_CMUL %s_mul\n", z, z);
        put(t, "static inline tsr_r_x tsr_r_quiet(tsr_r_x m)\n{\n"
               "    return TSR_R_CMAKE(tsr_r_quiet1(m.re), tsr_r_quiet1(m.im));\n}\n\n");
        put(t,
            "static inline tsr_r_x tsr_r_div(tsr_r_x m, long n)\n{\n"
            "    return %s_div(m, TSR_R_CMAKE((%s)n, 0));\n}\n\n",
            z, comp);
    } else if (real) {
        /* the count as the dtype holds it (PyTorch's div_ converts it) */
        const char *round = common == TSR_FLOAT16    ? "tsr__k_f16_in(tsr__k_f16_out(c))"
                            : common == TSR_BFLOAT16 ? "tsr__k_bf16_in(tsr__k_bf16_out(c))"
                                                     : "c";
        put(t,
            "static inline tsr_r_x tsr_r_quiet(tsr_r_x m)\n{\n    return tsr_r_quiet1(m);\n}\n\n");
        put(t,
            "static inline tsr_r_x tsr_r_div(tsr_r_x m, long n)\n{\n"
            "    %s c = (%s)n;\n    return m / (%s);\n}\n\n",
            comp, comp, round);
    } else {
        put(t, "static inline tsr_r_x tsr_r_quiet(tsr_r_x m)\n{\n    return m;\n}\n\n");
        put(t, "static inline tsr_r_x tsr_r_div(tsr_r_x m, long n)\n{\n"
               "    (void)n;\n    return m;\n}\n\n");
    }
}

/* tsr_r_one: output element (e0, e2) of reduction `op`; tsr_r_cols_op:
 * the reductions whose value is tsr_r_sum's. */
static void emit_reduce_switch(text *t, tsr_dtype common)
{
    put(t, "static int tsr_r_cols_op(uint op)\n{\n    switch (op) {\n");
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        uint32_t f = tsr__kernel_ops[op].flags;
        if (tsr__reduce_computes((uint32_t)op, common) && !(f & TSR__KOPF_SKIP_NAN) &&
            strcmp(cl_combines[op], "sum") == 0)
            put(t, "    case %d:\n", op);
    }
    put(t, "        return 1;\n    default:\n        return 0;\n    }\n}\n\n");
    put(t, "static void tsr_r_one(uint op, tsr_r_src *src, const tsr_r_task *task, uint d0,\n"
           "                      __global uchar *p0, long e0, __global uchar *p2, long e2)\n{\n"
           "    tsr_r_x v;\n    long at = 0, count = (long)task->R;\n    (void)p2;\n"
           "    (void)e2;\n    (void)at;\n    (void)count;\n    switch (op) {\n");
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        uint32_t f = tsr__kernel_ops[op].flags;
        bool arg = (f & (TSR__KOPF_INDEX | TSR__KOPF_INDICES)) != 0;
        bool nancount = (f & TSR__KOPF_SKIP_NAN) && (f & TSR__KOPF_MEAN);
        if (!tsr__reduce_computes((uint32_t)op, common))
            continue;
        const char *c = cl_combines[op];
        put(t, "    case %d:\n", op);
        if (f & TSR__KOPF_SKIP_NAN)
            put(t, "        src->skip = 1;\n");
        /* phase 1: a node into its slot; 2: the nodes' merge; 0: whole */
        put(t, "        if (task->phase == 1) {\n");
        if (arg)
            put(t, "            tsr_r_scan_%s_node(src, task->R, task->r0, task->slots);\n", c);
        else
            put(t, "            tsr_r_%s_node(src, task->R, task->slots);\n", c);
        put(t, "            break;\n        }\n");
        if (arg)
            put(t,
                "        v = task->phase == 2 ? tsr_r_scan_%s_nodes(task->slots, task->G, &at)\n"
                "                             : tsr_r_scan_%s(src, task->R, &at);\n",
                c, c);
        else
            put(t,
                "        v = task->phase == 2 ? tsr_r_%s_nodes(task->slots, task->G)\n"
                "                             : tsr_r_%s(src, task->R);\n",
                c, c);
        if (nancount)
            put(t, "        count = task->phase == 2 ? tsr_r_count_nodes(task->slots, task->G)\n"
                   "                                 : src->nonnan;\n");
        if (f & TSR__KOPF_MEAN)
            put(t, "        v = tsr_r_mean(v, count);\n");
        if (f & TSR__KOPF_INDEX)
            put(t, "        ((__global long *)p0)[e0] = at;\n");
        else
            put(t, "        tsr_g_store(d0, p0, e0, tsr_r_out(tsr_r_quiet(v)));\n");
        if (f & TSR__KOPF_INDICES)
            put(t, "        ((__global long *)p2)[e2] = at;\n");
        put(t, "        break;\n");
    }
    put(t, "    default: /* the daemon sends none */\n        break;\n    }\n}\n");
}

static void emit_reduce(text *t, tsr_dtype common, unsigned caps)
{
    char et[16];
    snprintf(et, sizeof et, "%s%s", cl_types[common].store, is_complex(common) ? "2" : "");
    emit_generic_load(t, common, et, caps);
    emit_generic_store(t, common, et, caps);
    emit_reduce_math(t, common, et);
    put_raw(t, tsr__ksrc_reduce_order, tsr__ksrc_reduce_order_len);
    put(t, "\n");
    put_raw(t, tsr__ksrc_reduce, tsr__ksrc_reduce_len);
    put(t, "\n");
    emit_reduce_switch(t, common);
}

/* The GEMM program of a dtype: float16 and bfloat16 move through the
 * float32 generic program's conversions, integers name their C type. */
static void emit_gemm(text *t, tsr_dtype dtype, unsigned caps)
{
    static const char *const ints[TSR_DTYPE_COUNT][2] = {
        [TSR_UINT8] = {"uchar", "(uchar)(v)"},
        [TSR_INT8] = {"char", "as_char((uchar)(v))"},
        [TSR_INT16] = {"short", "as_short((ushort)(v))"},
        [TSR_INT32] = {"int", "as_int((uint)(v))"},
        [TSR_INT64] = {"long", "as_long(v)"},
    };
    put(t,
        "#define TSR__KGEMM_PRODUCT %d\n#define TSR__KGEMM_WIDEN %d\n#define TSR__KGEMM_NARROW "
        "%d\n",
        TSR__KGEMM_PRODUCT, TSR__KGEMM_WIDEN, TSR__KGEMM_NARROW);
    put(t, "#define TSR__KGEMM_TRANS_A %uu\n#define TSR__KGEMM_TRANS_B %uu\n", TSR__KGEMM_TRANS_A,
        TSR__KGEMM_TRANS_B);
    put(t,
        "#define TSR__KGEMM_BETA_ZERO %uu\n#define TSR__KGEMM_TILE_M %d\n#define TSR__KGEMM_TILE_N "
        "%d\n",
        TSR__KGEMM_BETA_ZERO, TSR__KGEMM_TILE_M, TSR__KGEMM_TILE_N);
    if (ints[dtype][0]) {
        put(t, "#define TSR_GEMM_INT 1\ntypedef %s tsr_gemm_t;\n#define TSR_GEMM_NARROW(v) %s\n",
            ints[dtype][0], ints[dtype][1]);
    } else {
        put(t, "#define TSR_GEMM_REDUCED 1\n#define TSR_GEMM_DTYPE %du\n", (int)dtype);
        emit_generic_load(t, TSR_FLOAT32, "float", caps);
        emit_generic_store(t, TSR_FLOAT32, "float", caps);
    }
    put_raw(t, tsr__ksrc_gemm, tsr__ksrc_gemm_len);
    put(t, "\n");
}

tsr_status tsr__opencl_source(const tsr__kernel_key *key, unsigned caps, char *buf, size_t size,
                              size_t *length)
{
    tsr_status st = tsr__kernel_key_check(key, caps);
    if (st != TSR_OK)
        return st;
    if (length == NULL || (buf == NULL && size > 0))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "source buffer and length must not be NULL");
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = tsr__kernel_key_storage(key, storage);
    text t = {buf, size, 0};
    put(&t, "/* tessera elementwise kernel: op %u, common %s */\n", key->op,
        tsr_dtype_name((tsr_dtype)key->common));
    put(&t, "#pragma OPENCL FP_CONTRACT OFF\n");
    /* Compilers that know fewer warning groups than PoCL's (NVIDIA's
     * knows no -Wpsabi) pass over the two below without a word. */
    put(&t, "#pragma clang diagnostic ignored \"-Wunknown-warning-option\"\n");
    /* A loop the vectoriser declines (integer division, say) runs as it
     * is: that is no news for the build log. */
    put(&t, "#pragma clang diagnostic ignored \"-Wpass-failed\"\n");
    /* Sixteen-wide vectors go to the builtins PoCL inlines: the note that
     * their calling convention differs without AVX-512 (AVX2 machines)
     * concerns calls that never happen. */
    put(&t, "#pragma clang diagnostic ignored \"-Wpsabi\"\n");
    if (caps & TSR__KCAP_FP64)
        put(&t, "#define TSR_CONV_HAVE_DOUBLE 1\n");
    /* a key's own loops vectorise: table rows are picked, not loaded */
    if (key->entry < TSR__KENTRY_GENERIC)
        put(&t, "#define TSR_PICK_ROWS 1\n");
    put_raw(&t, tsr__ksrc_convert_scalar, tsr__ksrc_convert_scalar_len);
    put(&t, "\n");
    put_raw(&t, tsr__ksrc_helpers, tsr__ksrc_helpers_len);
    put_raw(&t, tsr__ksrc_scalar_ops, tsr__ksrc_scalar_ops_len);
    put(&t, "\n");
    put_raw(&t, tsr__ksrc_scalar_math, tsr__ksrc_scalar_math_len);
    put(&t, "\n");
    put_raw(&t, tsr__ksrc_scalar_trig, tsr__ksrc_scalar_trig_len);
    put(&t, "\n");
    put_raw(&t, tsr__ksrc_scalar_misc, tsr__ksrc_scalar_misc_len);
    put(&t, "\n");
    if (key->entry == TSR__KENTRY_GENERIC) {
        emit_generic(&t, (tsr_dtype)key->common, caps);
    } else if (key->entry == TSR__KENTRY_REDUCE) {
        emit_reduce(&t, (tsr_dtype)key->common, caps);
    } else if (key->entry == TSR__KENTRY_GEMM) {
        emit_gemm(&t, (tsr_dtype)key->common, caps);
    } else {
        emit_element(&t, key, storage, nstorage, "tsr_elem");
        emit_entry(&t, key, storage, nstorage, key->entry);
    }
    *length = t.len;
    if (t.len >= size)
        return tsr__fail(TSR_ERR_BUFFER_TOO_SMALL,
                         "the kernel source needs %zu bytes, the buffer has %zu", t.len + 1, size);
    return TSR_OK;
}

size_t tsr__opencl_source_max(void)
{
    return tsr__ksrc_convert_scalar_len + tsr__ksrc_helpers_len + tsr__ksrc_scalar_ops_len +
           tsr__ksrc_scalar_math_len + tsr__ksrc_scalar_trig_len + tsr__ksrc_scalar_misc_len +
           tsr__ksrc_reduce_order_len + tsr__ksrc_reduce_len + tsr__ksrc_gemm_len + (160u << 10);
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
