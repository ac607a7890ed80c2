/* OpenCL C generation: one program per tsr__kernel_key.
 *
 * A program is the two embedded element headers (with float16 helpers
 * of its own between them) followed by tsr_elem, one element written out
 * for the key: a load per input, the conversion from the input's dtype
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
    const char *suffix; /* the element functions' family: tsr__k_<elem>_<suffix> */
} cl_math;

/* Each operation's element function, by its base name (core/ops.def);
 * which dtypes it computes in is tsr__kernel_check_compute's answer. */
static const char *const cl_elems[TSR__KOP_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c) \
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
                  "(alpha.s0 != 0 ? (tsr__u64)1 : (tsr__u64)0)", "int"},
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

static tsr_status bad_key(const char *what, int value)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid kernel %s %d", what, value);
}

/* Operand k of a key: its dtype, or TSR__KEY_SCALAR. */
static bool key_is_scalar(const tsr__kernel_key *key, int k)
{
    return key->dtypes[k] == TSR__KEY_SCALAR;
}

/* The operands with storage of a key's kernels: the output, then each
 * input that is not a scalar. */
static int storage_of(const tsr__kernel_key *key, int *storage)
{
    int n = 0;
    for (int k = 0; k < key->noperands && k < TSR__KERNEL_MAX_OPERANDS; k++)
        if (k == 0 || !key_is_scalar(key, k))
            storage[n++] = k;
    return n;
}

static bool has_entry(const tsr__kernel_key *key, const int *storage, int nstorage, int entry);

static tsr_status fp64_missing(void)
{
    return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                     "this device has no float64 support (cl_khr_fp64): it cannot compute "
                     "with float64 or complex128");
}

/* A generic program's key: op 0, the entry, a common dtype, zeros. */
static tsr_status generic_key_check(const tsr__kernel_key *key, unsigned caps)
{
    if (key->op != 0 || key->noperands != 0 || key->reserved != 0)
        return bad_key("field of a generic program's key", key->op);
    for (int k = 0; k < TSR__KERNEL_MAX_OPERANDS; k++)
        if (key->dtypes[k] != 0)
            return bad_key("operand dtype of a generic program's key", key->dtypes[k]);
    if (!tsr_dtype_is_valid((tsr_dtype)key->common))
        return bad_key("common dtype", key->common);
    if (needs_fp64((tsr_dtype)key->common) && !(caps & TSR__OPENCL_CAP_FP64))
        return fp64_missing();
    return TSR_OK;
}

tsr_status tsr__kernel_key_check(const tsr__kernel_key *key, unsigned caps)
{
    if (key == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel key must not be NULL");
    if (key->entry == TSR__KENTRY_GENERIC)
        return generic_key_check(key, caps);
    tsr__kernel_op op = (tsr__kernel_op)key->op;
    if (key->op == 0 || key->op >= TSR__KOP_COUNT)
        return bad_key("operation", key->op);
    if (!tsr_dtype_is_valid((tsr_dtype)key->common))
        return bad_key("common dtype", key->common);
    unsigned want = 1 + tsr__kernel_ops[op].arity;
    if (key->noperands != want)
        return bad_key("operand count", key->noperands);
    if (key->reserved != 0)
        return bad_key("reserved byte", key->reserved);
    if (key->entry >= TSR__KENTRY_COUNT)
        return bad_key("entry", key->entry);
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
        return fp64_missing();
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = storage_of(key, storage);
    if (!has_entry(key, storage, nstorage, key->entry))
        return bad_key("entry for these operands", key->entry);
    return TSR_OK;
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
    key.entry = TSR__KWALK_STRIDED;
    tsr_status st = tsr__kernel_key_check(&key, TSR__OPENCL_CAP_FP64);
    if (st != TSR_OK)
        return st;
    /* The walk depends on the layout alone, not on the device. An empty
     * launch has none (it runs nothing). tsr__opencl_entry only names
     * entries the checked key has, so the key needs no second check. */
    bool empty = false;
    for (int d = 0; d < k->ndim; d++)
        empty |= k->sizes[d] == 0;
    if (!empty) {
        tsr__kernel_geometry g;
        tsr__kernel_launch_geometry(k, 1, 0, &g);
        key.entry = (uint8_t)tsr__opencl_entry(&key, g.block[2]);
    }
    *out = key;
    return TSR_OK;
}

/* ---- launches ----------------------------------------------------------- */

/* The elements one work-item walks along rows that every operand steps
 * through by one (or stands still on): enough that starting a work-item
 * is noise beside them. */
#define ROW_ELEMENTS 16384u
/* A strided walk goes through a tile, so that the cache lines an operand
 * that runs across the rows touches are used up while they are still in
 * the first-level cache. (A transposed input of an operation is packed
 * instead: TSR__KPACK_*.) */
#define TILE_X 32u
#define TILE_Y 32u
/* Blocks are halved down to this many elements until every compute unit
 * has several work-items. */
#define MIN_BLOCK 256u
#define ITEMS_PER_UNIT 4u

/* What block.z says of add/sub's alpha in the floating dtypes whose add
 * special-cases 1 and -1 (float16, bfloat16, float32, float64; alpha
 * comes as float32 bits in the two reduced ones): those have loops of
 * their own (alpha_loops). */
static uint32_t alpha_class(const tsr__kernel *k)
{
    tsr_dtype c = (tsr_dtype)k->common;
    if (!tsr__kernel_op_has(k->op, TSR__KOPF_ALPHA) ||
        (c != TSR_FLOAT16 && c != TSR_BFLOAT16 && c != TSR_FLOAT32 && c != TSR_FLOAT64))
        return 0;
    uint64_t bits = 0, one = c == TSR_FLOAT64 ? UINT64_C(0x3FF0000000000000) : 0x3F800000u;
    uint64_t sign = c == TSR_FLOAT64 ? UINT64_C(0x8000000000000000) : 0x80000000u;
    memcpy(&bits, k->alpha, c == TSR_FLOAT64 ? 8 : 4);
    return bits == one            ? TSR__KBLOCK_ALPHA_ONE
           : bits == (one | sign) ? TSR__KBLOCK_ALPHA_MINUS_ONE
                                  : 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Whether the output steps by one along x. */
static bool out_unit(const tsr__kernel_geometry *g)
{
    return g->stride[0][0] == 1;
}

/* Whether every input with storage but `except` steps by one along x. */
static bool others_unit(const tsr__kernel_geometry *g, const tsr__kernel *k, uint32_t except)
{
    int q = 1;
    for (uint32_t i = 1; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        if (k->operands[i].flags & TSR__KOPERAND_SCALAR)
            continue;
        if (i != except && g->stride[q][0] != 1)
            return false;
        q++;
    }
    return true;
}

/* Splits the NDRange into pieces of at most TSR__KERNEL_PIECE_ITEMS
 * work-items and about TSR__KERNEL_PIECE_ELEMENTS elements: whole rows of
 * x first, then of y, then the outer index. */
static void launch_pieces(tsr__kernel_geometry *g)
{
    uint64_t room = TSR__KERNEL_PIECE_ELEMENTS / ((uint64_t)g->block[0] * g->block[1]);
    if (room == 0)
        room = 1;
    g->pieces = 1;
    for (int d = 0; d < 3; d++) {
        g->step[d] = min_u64(g->global[d], room);
        if (g->step[d] == 0)
            g->step[d] = 1;
        room /= g->step[d];
        if (room == 0)
            room = 1;
        g->pieces *= ceil_div(g->global[d], g->step[d]);
    }
}

void tsr__kernel_launch_geometry(const tsr__kernel *k, uint32_t compute_units,
                                 uint64_t stream_bytes, tsr__kernel_geometry *g)
{
    memset(g, 0, sizeof *g);
    int nd = k->ndim, outer = nd > 2 ? nd - 2 : 0;
    g->size[0] = nd >= 1 ? (uint64_t)k->sizes[nd - 1] : 1;
    g->size[1] = nd >= 2 ? (uint64_t)k->sizes[nd - 2] : 1;
    g->size[2] = 1;
    for (int d = 0; d < outer; d++)
        g->size[2] *= (uint64_t)k->sizes[d];
    if (outer >= 2)
        for (int d = 0; d < outer; d++)
            g->geom[d] = k->sizes[d];
    /* The walk: which operands step by one along x, which stand still,
     * which run along y instead (transposed). */
    bool unit = true;
    uint32_t still = 0, nstill = 0, across = 0, nacross = 0;
    int q = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->flags & TSR__KOPERAND_SCALAR)
            continue;
        int64_t *st = g->stride[q];
        st[0] = nd >= 1 ? o->strides[nd - 1] : 0;
        st[1] = nd >= 2 ? o->strides[nd - 2] : 0;
        st[2] = nd == 3 ? o->strides[0] : 0;
        if (outer >= 2)
            for (int d = 0; d < outer; d++)
                g->geom[outer * (1 + q) + d] = o->strides[d];
        if (st[0] == 0 && i > 0) {
            still = i;
            nstill++;
        } else if (st[0] != 1) {
            unit = false;
            if (i > 0 && st[1] == 1) {
                across = i;
                nacross++;
            }
        }
        q++;
    }
    g->nstorage = q;
    g->geom_count = outer >= 2 ? outer * (1 + q) : 0;
    /* A transposed input is packed where every other operand steps by one
     * along x: its stride along x is not 1, so `unit` only fails for it,
     * and nothing stands still. A copy packs too: NCHW -> NHWC of a
     * 64x64x56x56 float32 tensor on one PoCL thread ran about 20% faster
     * through the packed tile (8x8 transposes in registers) than through
     * the strided walk's element-by-element tile. */
    bool packs = nacross == 1 && nstill == 0 && g->size[1] > 1 &&
                 out_unit(g) && others_unit(g, k, across);
    uint32_t walk = g->size[0] <= 1 || (unit && nstill == 0) ? TSR__KWALK_UNIT
                    : unit && nstill == 1                    ? still
                    : packs                                  ? TSR__KWALK_PACK1 + across - 1
                                                             : TSR__KWALK_STRIDED;
    /* The block: long rows where the operands step through memory
     * together, tiles where one of them runs across. */
    uint64_t bx, by;
    if (walk == TSR__KWALK_PACK1 || walk == TSR__KWALK_PACK2) {
        size_t w = tsr_dtype_itemsize((tsr_dtype)k->operands[across].dtype);
        bx = min_u64(g->size[0], TSR__KPACK_X);
        by = min_u64(g->size[1], TSR__KPACK_BYTES / (TSR__KPACK_X * w));
    } else if (walk != TSR__KWALK_STRIDED || g->size[1] == 1) {
        bx = min_u64(g->size[0], ROW_ELEMENTS);
        by = min_u64(g->size[1], ROW_ELEMENTS / bx);
    } else {
        bx = min_u64(g->size[0], TILE_X);
        by = min_u64(g->size[1], bx < TILE_X ? ROW_ELEMENTS / bx : TILE_Y);
    }
    uint64_t want = (uint64_t)ITEMS_PER_UNIT * (compute_units ? compute_units : 1);
    while (ceil_div(g->size[0], bx) * ceil_div(g->size[1], by) * g->size[2] < want &&
           bx * by >= 2 * MIN_BLOCK) {
        if (by > 1)
            by = ceil_div(by, 2);
        else
            bx = ceil_div(bx, 2);
    }
    g->block[0] = (uint32_t)bx;
    g->block[1] = (uint32_t)by;
    g->block[2] = walk + (walk == TSR__KWALK_UNIT ? alpha_class(k) : 0);
    uint64_t out_bytes =
        g->size[0] * g->size[1] * g->size[2] * tsr_dtype_itemsize((tsr_dtype)k->operands[0].dtype);
    /* (A packed walk streams only the rows it has vectors for: see
     * vector_rows.) */
    bool chunks = walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_BCAST2 ||
                  walk == TSR__KWALK_PACK1 || walk == TSR__KWALK_PACK2 ||
                  (walk == TSR__KWALK_UNIT && k->op == TSR__KOP_FILL);
    if (chunks && stream_bytes > 0 && out_bytes >= stream_bytes)
        g->block[2] |= TSR__KBLOCK_STREAM;
    g->block[3] = (uint32_t)outer;
    g->global[0] = ceil_div(g->size[0], bx);
    g->global[1] = ceil_div(g->size[1], by);
    g->global[2] = g->size[2];
    g->local[0] = g->local[1] = g->local[2] = 1;
    launch_pieces(g);
}

/* ---- the program ------------------------------------------------------------ */

/* OpenCL-only helpers, between the two embedded headers.
 *
 * float16 conversions that vectorise. Where the compiler has _Float16 and
 * the device F16C (x86), the conversions are the hardware's: widening is
 * exact and quiets a NaN as tsr__f16_to_f32 does, and narrowing rounds to
 * nearest even as tsr__f32_to_f16 does for every value but NaN (F16C
 * ignores the subnormal flush flags). Elsewhere the encoder rounds with
 * one float addition where the result is subnormal (0.5f's ulp is
 * float16's smallest subnormal, and the sum is a normal float32 whether
 * or not the device flushes subnormal operands, which round to zero
 * anyway) and with integer RNE above, branch-free. Either way a NaN is
 * spelled out. tests/kernels checks every code and every rounding
 * boundary against the host routines. scalar_ops.h's float16 arithmetic
 * is redirected to them.
 *
 * The NaN of a real operation. Where x86-64 computes it (the reference:
 * docs/semantics.md), a NaN first input comes out quieted, else a NaN
 * second input, else an invalid operation gives the default NaN, whose
 * sign is set. A compiler that vectorises may reorder the operands of
 * + and * and rewrite a - b as a + -b, which changes those bits, so the
 * result's NaN is spelled out from the inputs.
 *
 * Stores around the caches (the rows of chunked walks, when the launch
 * asks for it): whole aligned lines, fenced before the work-item ends. */
static const char cl_helpers[] =
    "#if defined(__F16C__) && defined(__FLT16_MAX__)\n"
    "typedef union {\n"
    "    tsr__u16 u;\n"
    "    _Float16 h;\n"
    "} tsr__cl_half;\n"
    "\n"
    "static inline tsr__u32 tsr__cl_f16_to_f32(tsr__u16 x)\n"
    "{\n"
    "    tsr__cl_half v;\n"
    "    v.u = x;\n"
    "    return tsr__float_bits((float)v.h);\n"
    "}\n"
    "\n"
    "static inline tsr__u16 tsr__cl_f32_round_f16(tsr__u32 t)\n"
    "{\n"
    "    tsr__cl_half v;\n"
    "    v.h = (_Float16)tsr__float_from_bits(t);\n"
    "    return v.u;\n"
    "}\n"
    "#define tsr__f16_to_f32 tsr__cl_f16_to_f32\n"
    "#else\n"
    "static inline tsr__u16 tsr__cl_f32_round_f16(tsr__u32 t)\n"
    "{\n"
    "    tsr__u32 a = t & TSR__F32_ABS;\n"
    "    tsr__u32 normal = (a - (112u << 23) + 0xFFFu + ((a >> 13) & 1u)) >> 13;\n"
    "    tsr__u32 sub = tsr__float_bits(tsr__float_from_bits(a) + 0.5f) - 0x3F000000u;\n"
    "    tsr__u32 c = a < 0x38800000u ? sub : normal;\n"
    "    c = a >= 0x47800000u ? 0x7C00u : c;\n"
    "    return (tsr__u16)(((t >> 16) & 0x8000u) | c);\n"
    "}\n"
    "#endif\n"
    "\n"
    "static inline tsr__u16 tsr__cl_f32_to_f16(tsr__u32 t, bool f16c_nan)\n"
    "{\n"
    "    tsr__u32 a = t & TSR__F32_ABS;\n"
    "    tsr__u32 nan = ((t >> 16) & 0x8000u) | 0x7E00u | (f16c_nan ? (a >> 13) & 0x1FFu : 0u);\n"
    "    return a > TSR__F32_INF ? (tsr__u16)nan : tsr__cl_f32_round_f16(t);\n"
    "}\n"
    "#define tsr__f32_to_f16 tsr__cl_f32_to_f16\n"
    "\n"
    "static inline float tsr__cl_nan_f32(float m, float x, float y)\n"
    "{\n"
    "    uint n = isnan(x) ? as_uint(x) | 0x00400000u\n"
    "             : isnan(y) ? as_uint(y) | 0x00400000u : 0xFFC00000u;\n"
    "    return isnan(m) ? as_float(n) : m;\n"
    "}\n"
    "\n"
    "#ifdef TSR_CONV_HAVE_DOUBLE\n"
    "static inline double tsr__cl_nan_f64(double m, double x, double y)\n"
    "{\n"
    "    ulong n = isnan(x) ? as_ulong(x) | 0x0008000000000000UL\n"
    "              : isnan(y) ? as_ulong(y) | 0x0008000000000000UL : 0xFFF8000000000000UL;\n"
    "    return isnan(m) ? as_double(n) : m;\n"
    "}\n"
    "#endif\n"
    "\n"
    "#ifdef __clang__\n"
    "#define TSR__CL_STREAM(v, p) __builtin_nontemporal_store(v, p)\n"
    "#else\n"
    "#define TSR__CL_STREAM(v, p) (*(p) = (v))\n"
    "#endif\n"
    "#if defined(__clang__) && defined(__x86_64__)\n"
    "#define TSR__CL_PREFETCH(p) __builtin_prefetch((p), 0, 3)\n"
    "#define TSR__CL_STREAM_END(stream) \\\n"
    "    do { \\\n"
    "        if (stream) \\\n"
    "            __builtin_ia32_sfence(); \\\n"
    "    } while (0)\n"
    "#else\n"
    "#define TSR__CL_PREFETCH(p) (void)(p)\n"
    "#define TSR__CL_STREAM_END(stream) (void)(stream)\n"
    "#endif\n";

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

/* Whether the program divides integers, where a zero divisor leaves its
 * element unwritten (and which no vector unit computes anyway). */
static bool checks_zero(const tsr__kernel_key *key)
{
    return tsr__kernel_op_has(key->op, TSR__KOPF_ZERO_CHECK) &&
           strcmp(cl_maths[key->common].type, "tsr__u64") == 0;
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
        /* The operation's element function in this family (the key was
         * checked: the operation computes in `common`). */
        char fn[48];
        snprintf(fn, sizeof fn, "tsr__k_%s_%s", cl_elems[op], m->suffix);
        bool alpha = tsr__kernel_op_has(op, TSR__KOPF_ALPHA);
        bool zero_check = checks_zero(key);
        /* add/sub's NaN is spelled out (but bfloat16 results spell every
         * NaN 7FC0): see cl_helpers */
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
        } else if (zero_check) {
            put(t, "    int zero = 0;\n");
            snprintf(e, sizeof e, "%s(%s, %s, &zero)", fn, x, y);
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

/* Whether add/sub gets loops of its own for alpha 1 and -1 where every
 * operand steps by one: in the floating dtypes whose add special-cases
 * them (scalar_ops.h), which a vector loop that does not know alpha
 * computes all of (three paths, one of them the reduced dtypes' rounding
 * of alpha * b) before it picks one. Knowing alpha, those loops compute
 * a + b or a - b as written and need no NaN spelled out (cl_helpers;
 * bfloat16's encoder writes every NaN as 7FC0 anyway). */
static bool alpha_loops(const tsr__kernel_key *key)
{
    tsr_dtype c = (tsr_dtype)key->common;
    return tsr__kernel_op_has(key->op, TSR__KOPF_ALPHA) &&
           (c == TSR_FLOAT16 || c == TSR_BFLOAT16 || c == TSR_FLOAT32 || c == TSR_FLOAT64);
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
 * write. Rows where every input streams too do better stored directly,
 * and so do a packed tile's short rows (measured). */
static bool chunked(const tsr__kernel_key *key, int walk)
{
    return walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_BCAST2 ||
           (walk == TSR__KWALK_UNIT && key->op == TSR__KOP_FILL);
}

/* Bytes of a row's chunk: sixteen cache lines. */
#define CHUNK_BYTES 1024

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

/* The vectoriser's pragma for a row loop: float32 rows go sixteen wide,
 * two at a time (measured: PoCL's default of eight loses 8% on a
 * streaming add). */
static const char *vectorise(const tsr__kernel_key *key)
{
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
        if (checks_zero(key)) {
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
    if (!chunked(key, walk)) {
        put(t,
            "%s            for (ulong i = 0; i < ni; i++)\n                p0[f0 + (long)i] = "
            "tsr_elem(",
            vectorise(key));
        emit_args(t, storage, nstorage, walk, "i");
        put(t, "scalar, %s, %s, &bad);\n", alpha, spell);
        return;
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
            "                        %s q = select(select((%s)%s, as_%s(y) | %s, as_%s(isnan(y))),\n"
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

/* Row j of a packed block asks for what the next block along x (the
 * next work-group, on a CPU device) reads: a share of the packed input's
 * next KPACK_X rows, spread over the block's rows so that all of them are
 * asked for by its end, and the next KPACK_X elements of this row of
 * every other input. One thread of a CPU device is otherwise bound by
 * memory latency here: the inputs are read in runs too short (a block's
 * width) and too many at once (a block's rows) for the hardware to see
 * them coming. In a 8192^2 float32 add with a transposed input on one
 * PoCL thread the kernel ran about 15% faster with both kinds asked
 * for (float64 about 45%), and slower with either alone. */
static void emit_prefetch(text *t, const tsr__kernel_key *key, const int *storage, int nstorage,
                          int walk)
{
    int k = walk - TSR__KWALK_PACK1 + 1;
    unsigned lines = TSR__KPACK_BYTES / 64, per_row = TSR__KPACK_BYTES / TSR__KPACK_X / 64;
    /* (`per`: the packed input's lines asked for in each row.) */
    put(t,
        "            if (ahead) {\n"
        "                for (uint u = (uint)j * per, end = min(u + per, %uu); u < end; u++)\n"
        "                    TSR__CL_PREFETCH((__global const uchar *)(p%d + e%d + (long)(%u + u / "
        "%u) * st%d.x) + (u %% %u) * 64);\n",
        lines, k, k, TSR__KPACK_X, per_row, k, per_row);
    for (int q = 1; q < nstorage; q++) {
        int op = storage[q];
        if (op == k)
            continue;
        size_t bytes = TSR__KPACK_X * tsr_dtype_itemsize((tsr_dtype)key->dtypes[op]);
        for (size_t b = 0; b < bytes; b += 64)
            put(t, "                TSR__CL_PREFETCH((__global const uchar *)(p%d + f%d + %u) + %zu);\n",
                op, op, TSR__KPACK_X, b);
    }
    put(t, "            }\n");
}

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
            "        bool ahead = i0 + %u <= size.x;\n"
            "        uint per = (%uu + block.y - 1) / block.y;\n",
            2 * TSR__KPACK_X, TSR__KPACK_BYTES / 64);
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

/* Whether a program has the walk: the standing-still and packed ones
 * need their input to have storage; an integer division has the scalar
 * walk only (no vector unit divides integers, and a zero divisor leaves
 * its element unwritten, which chunks would not). */
static bool has_walk(const tsr__kernel_key *key, const int *storage, int nstorage, int walk)
{
    if (checks_zero(key))
        return walk == TSR__KWALK_STRIDED;
    int k = walk == TSR__KWALK_BCAST1 || walk == TSR__KWALK_PACK1   ? 1
            : walk == TSR__KWALK_BCAST2 || walk == TSR__KWALK_PACK2 ? 2
                                                                    : 0;
    for (int q = 1; q < nstorage; q++)
        if (storage[q] == k)
            return true;
    return k == 0;
}

static const char *const entry_names[TSR__KENTRY_COUNT] = {
    [TSR__KWALK_UNIT] = "unit",
    [TSR__KWALK_BCAST1] = "bcast1",
    [TSR__KWALK_BCAST2] = "bcast2",
    [TSR__KWALK_STRIDED] = "strided",
    [TSR__KWALK_PACK1] = "pack1",
    [TSR__KWALK_PACK2] = "pack2",
    [TSR__KENTRY_UNIT_PLUS] = "unit, alpha 1",
    [TSR__KENTRY_UNIT_MINUS] = "unit, alpha -1",
    [TSR__KENTRY_GENERIC] = "generic",
};

/* Whether a key's program has the entry. */
static bool has_entry(const tsr__kernel_key *key, const int *storage, int nstorage, int entry)
{
    if (entry == TSR__KENTRY_UNIT_PLUS || entry == TSR__KENTRY_UNIT_MINUS)
        return alpha_loops(key) && has_walk(key, storage, nstorage, TSR__KWALK_UNIT);
    return entry == TSR__KWALK_STRIDED || has_walk(key, storage, nstorage, entry);
}

int tsr__opencl_entry(const tsr__kernel_key *key, uint32_t block_z)
{
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = storage_of(key, storage);
    uint32_t walk = block_z & (TSR__KBLOCK_ALPHA_ONE - 1);
    if (walk == TSR__KWALK_UNIT && (block_z & TSR__KBLOCK_ALPHA_ONE) &&
        has_entry(key, storage, nstorage, TSR__KENTRY_UNIT_PLUS))
        return TSR__KENTRY_UNIT_PLUS;
    if (walk == TSR__KWALK_UNIT && (block_z & TSR__KBLOCK_ALPHA_MINUS_ONE) &&
        has_entry(key, storage, nstorage, TSR__KENTRY_UNIT_MINUS))
        return TSR__KENTRY_UNIT_MINUS;
    if (walk < TSR__KWALK_COUNT && has_entry(key, storage, nstorage, (int)walk))
        return (int)walk;
    return TSR__KWALK_STRIDED;
}

const char *tsr__opencl_entry_name(int entry)
{
    return entry >= 0 && entry < TSR__KENTRY_COUNT ? entry_names[entry] : NULL;
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
    put(t, "    ulong i0 = get_global_id(0) * block.x, j0 = get_global_id(1) * block.y;\n"
           "    ulong r = get_global_id(2);\n"
           "    if (i0 >= size.x || j0 >= size.y || r >= size.z)\n"
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

/* Input and output dtype bytes of kind.z for an operand a launch does not
 * have (a fill's inputs, a copy's second). */
#define GENERIC_NONE 0xfeu

/* Whether a kernel converts between `d` and `common`: float4_e2m1fn_x2
 * only to itself, the float64 dtypes only on devices that have them. */
static bool generic_converts(tsr_dtype common, tsr_dtype d, unsigned caps)
{
    if ((d == TSR_FLOAT4_E2M1FN_X2) != (common == TSR_FLOAT4_E2M1FN_X2))
        return false;
    return !needs_fp64(d) || (caps & TSR__OPENCL_CAP_FP64);
}

/* The operations computing in `common`, as keys whose operands are all in
 * it: the ones whose element functions the generic program holds. */
static bool generic_op_key(tsr__kernel_op op, tsr_dtype common, tsr__kernel_key *key)
{
    if (tsr__kernel_check_compute(op, common) != TSR_OK)
        return false;
    uint8_t n = (uint8_t)(1 + tsr__kernel_ops[op].arity);
    *key = (tsr__kernel_key){.op = (uint8_t)op,
                             .entry = TSR__KWALK_STRIDED,
                             .common = (uint8_t)common,
                             .noperands = n};
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

/* The kernel: the prologue of emit_entry for three slots, the operands'
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
        put(t, "    long e%d = (long)i0 * st%d.x + (long)j0 * st%d.y + (long)r * st%d.z;\n", q, q, q,
            q);
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
        put(t, "            if (ns > %d)\n                e%d += at * geom[outer * %d + d];\n", q, q,
            q + 1);
    put(t, "        }\n    }\n");
    put(t,
        "    uint op = kind.x, d0 = kind.y, d1 = kind.z & 0xffu, d2 = (kind.z >> 8) & 0xffu;\n"
        "    __global uchar *p0 = base0 + off0;\n"
        "    __global const uchar *p1 = base1 + off1, *p2 = base2 + off2;\n"
        "    long g1 = e1, g2 = e2, x1 = st1.x, y1 = st1.y, x2 = st2.x, y2 = st2.y;\n"
        "    if (d1 == %uu) { /* input 2 has the first input slot */\n"
        "        p2 = p1;\n        g2 = e1;\n        x2 = x1;\n        y2 = y1;\n    }\n",
        TSR__KEY_SCALAR);
    emit_scalar(t, "s", common, "scalar");
    if (is_complex(common))
        put(t, "    %s sv = (%s)(s_re, s_im);\n", et, et);
    else
        put(t, "    %s sv = s_re;\n", et);
    put(t,
        "    int bad = 0;\n"
        "    for (ulong j = 0; j < nj; j++) {\n"
        "        long f0 = e0 + (long)j * st0.y, f1 = g1 + (long)j * y1, f2 = g2 + (long)j * y2;\n"
        "#pragma clang loop vectorize(disable)\n"
        "        for (ulong i = 0; i < ni; i++) {\n"
        "            %s a1 = sv, a2 = sv, v = sv;\n"
        "            if (d1 < %uu)\n"
        "                a1 = tsr_g_load(d1, p1, f1 + (long)i * x1);\n"
        "            if (d2 < %uu)\n"
        "                a2 = tsr_g_load(d2, p2, f2 + (long)i * x2);\n"
        "            (void)a1;\n            (void)a2;\n"
        "            int zero = 0;\n"
        "            switch (op) {\n",
        et, GENERIC_NONE, GENERIC_NONE);
    for (int op = 1; op < TSR__KOP_COUNT; op++) {
        tsr__kernel_key key;
        if (!generic_op_key((tsr__kernel_op)op, common, &key))
            continue;
        const char *args = key.noperands == 3 ? "a1, a2, " : key.noperands == 2 ? "a1, " : "";
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
        int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = storage_of(&key, storage);
        char name[16];
        snprintf(name, sizeof name, "tsr_g%d", op);
        emit_element(t, &key, storage, nstorage, name);
    }
    emit_generic_load(t, common, et, caps);
    emit_generic_store(t, common, et, caps);
    emit_generic_kernel(t, common, et);
}

tsr_status tsr__opencl_source(const tsr__kernel_key *key, unsigned caps, char *buf, size_t size,
                              size_t *length)
{
    tsr_status st = tsr__kernel_key_check(key, caps);
    if (st != TSR_OK)
        return st;
    if (length == NULL || (buf == NULL && size > 0))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "source buffer and length must not be NULL");
    int storage[TSR__KERNEL_MAX_OPERANDS], nstorage = storage_of(key, storage);
    text t = {buf, size, 0};
    put(&t, "/* tessera elementwise kernel: op %u, common %s */\n", key->op,
        tsr_dtype_name((tsr_dtype)key->common));
    put(&t, "#pragma OPENCL FP_CONTRACT OFF\n");
    /* A loop the vectoriser declines (integer division, say) runs as it
     * is: that is no news for the build log. */
    put(&t, "#pragma clang diagnostic ignored \"-Wpass-failed\"\n");
    /* Sixteen-wide vectors go to the builtins PoCL inlines: the note that
     * their calling convention differs without AVX-512 (AVX2 machines)
     * concerns calls that never happen. */
    put(&t, "#pragma clang diagnostic ignored \"-Wpsabi\"\n");
    if (caps & TSR__OPENCL_CAP_FP64)
        put(&t, "#define TSR_CONV_HAVE_DOUBLE 1\n");
    put_raw(&t, tsr__ksrc_convert_scalar, tsr__ksrc_convert_scalar_len);
    put(&t, "\n");
    put_raw(&t, cl_helpers, sizeof cl_helpers - 1);
    put_raw(&t, tsr__ksrc_scalar_ops, tsr__ksrc_scalar_ops_len);
    put(&t, "\n");
    if (key->entry == TSR__KENTRY_GENERIC) {
        emit_generic(&t, (tsr_dtype)key->common, caps);
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
    return tsr__ksrc_convert_scalar_len + sizeof cl_helpers + tsr__ksrc_scalar_ops_len + (160u << 10);
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

tsr__kernel_key tsr__kernel_generic_key(tsr_dtype common)
{
    return (tsr__kernel_key){.entry = TSR__KENTRY_GENERIC, .common = (uint8_t)common};
}

void tsr__kernel_generic_kind(const tsr__kernel *k, uint32_t kind[4])
{
    uint32_t in[2] = {GENERIC_NONE, GENERIC_NONE}, storage = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        bool scalar = (k->operands[i].flags & TSR__KOPERAND_SCALAR) != 0;
        storage += !scalar;
        if (i > 0)
            in[i - 1] = scalar ? TSR__KEY_SCALAR : k->operands[i].dtype & 0xffu;
    }
    kind[0] = k->op;
    kind[1] = k->operands[0].dtype;
    kind[2] = in[0] | in[1] << 8;
    kind[3] = storage;
}
