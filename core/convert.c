/* convert: tsr_cast_buffer and the scalar helpers of tessera/convert.h.
 *
 * The element rules live in core/convert_scalar.h, shared with the OpenCL
 * kernels; this file only routes data through them. A cast runs in blocks:
 * a block of source elements is loaded into one of four intermediate forms
 * (int64, uint64, float32 bits, double), converted to the form the
 * destination's component type needs (float32 bits for every float type up
 * to float32, double for float64, any form for integers and bool), encoded
 * into destination bit patterns and written. Because a whole block is
 * read before any of it is written, dst == src with equal item sizes is a
 * safe in-place conversion. Buffers are accessed with memcpy, so neither
 * needs to be aligned. */
#include "tessera/convert.h"

#include <string.h>

#include "core/convert_scalar.h"
#include "core/dtype.h"
#include "core/error.h"

#define BLOCK 256

/* The AVX2 double -> bfloat16 kernel converts 16 elements per step and
 * leaves the remainder to the scalar constructor (see TSR_NAN_BITS_VECTOR). */
#define BF16_DOUBLE_VECTOR 16

typedef enum form { FORM_I64, FORM_U64, FORM_F32, FORM_F64 } form;

typedef union column {
    int64_t i[BLOCK];
    uint64_t u[BLOCK];
    uint32_t f[BLOCK]; /* float32 bit patterns */
    double d[BLOCK];
} column;

typedef struct block {
    form form;
    bool has_im; /* a complex source; im is meaningless otherwise */
    column re, im;
} block;

/* What one call needs to know besides the dtypes. */
typedef struct cast_ctx {
    bool f16c_nan;
    bool saturate;
    bool real_only_bool;
    size_t bf16_vector_end; /* elements before this index get FFFF NaNs */
} cast_ctx;

/* ---- float8 dispatch, shared by the block loops and the scalar API ----- */

static inline uint32_t float8_decode(tsr_dtype fmt, uint8_t c)
{
    switch (fmt) {
    case TSR_FLOAT8_E4M3FN:
        return tsr__e4m3fn_to_f32(c);
    case TSR_FLOAT8_E5M2:
        return tsr__e5m2_to_f32(c);
    case TSR_FLOAT8_E4M3FNUZ:
        return tsr__e4m3fnuz_to_f32(c);
    case TSR_FLOAT8_E5M2FNUZ:
        return tsr__e5m2fnuz_to_f32(c);
    case TSR_FLOAT8_E8M0FNU:
        return tsr__e8m0fnu_to_f32(c);
    default:
        return 0x7FC00000u;
    }
}

static inline uint8_t float8_encode(tsr_dtype fmt, uint32_t t, bool saturate)
{
    switch (fmt) {
    case TSR_FLOAT8_E4M3FN:
        return tsr__f32_to_e4m3fn(t, saturate);
    case TSR_FLOAT8_E5M2:
        return tsr__f32_to_e5m2(t);
    case TSR_FLOAT8_E4M3FNUZ:
        return tsr__f32_to_e4m3fnuz(t);
    case TSR_FLOAT8_E5M2FNUZ:
        return tsr__f32_to_e5m2fnuz(t);
    case TSR_FLOAT8_E8M0FNU:
        return tsr__f32_to_e8m0fnu(t);
    default:
        return 0;
    }
}

/* ---- loading ------------------------------------------------------------ */

/* Element k of type T (a real dtype, or one part of a complex pair). */
#define LOAD_REAL(T, frm, expr)                       \
    do {                                              \
        b->form = frm;                                \
        for (size_t k = 0; k < n; k++) {              \
            T v;                                      \
            memcpy(&v, p + k * sizeof(T), sizeof(T)); \
            expr;                                     \
        }                                             \
    } while (0)
#define LOAD_PAIR(T, frm, field, decode)           \
    do {                                           \
        b->form = frm;                             \
        b->has_im = true;                          \
        for (size_t k = 0; k < n; k++) {           \
            T v[2];                                \
            memcpy(v, p + k * sizeof v, sizeof v); \
            b->re.field[k] = decode(v[0]);         \
            b->im.field[k] = decode(v[1]);         \
        }                                          \
    } while (0)
#define SAME(x) (x)

static void load_block(tsr_dtype dt, const unsigned char *p, size_t n, block *b)
{
    b->has_im = false;
    switch (dt) {
    case TSR_BOOL:
        LOAD_REAL(uint8_t, FORM_I64, b->re.i[k] = v != 0);
        break;
    case TSR_UINT8:
        LOAD_REAL(uint8_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_INT8:
        LOAD_REAL(int8_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_UINT16:
        LOAD_REAL(uint16_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_INT16:
        LOAD_REAL(int16_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_UINT32:
        LOAD_REAL(uint32_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_INT32:
        LOAD_REAL(int32_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_UINT64:
        LOAD_REAL(uint64_t, FORM_U64, b->re.u[k] = v);
        break;
    case TSR_INT64:
        LOAD_REAL(int64_t, FORM_I64, b->re.i[k] = v);
        break;
    case TSR_FLOAT16:
        LOAD_REAL(uint16_t, FORM_F32, b->re.f[k] = tsr__f16_to_f32(v));
        break;
    case TSR_BFLOAT16:
        LOAD_REAL(uint16_t, FORM_F32, b->re.f[k] = tsr__bf16_to_f32(v));
        break;
    case TSR_FLOAT32:
        LOAD_REAL(uint32_t, FORM_F32, b->re.f[k] = v);
        break;
    case TSR_FLOAT64:
        LOAD_REAL(double, FORM_F64, b->re.d[k] = v);
        break;
    case TSR_COMPLEX32:
        LOAD_PAIR(uint16_t, FORM_F32, f, tsr__f16_to_f32);
        break;
    case TSR_COMPLEX64:
        LOAD_PAIR(uint32_t, FORM_F32, f, SAME);
        break;
    case TSR_COMPLEX128:
        LOAD_PAIR(double, FORM_F64, d, SAME);
        break;
    case TSR_FLOAT8_E4M3FN:
    case TSR_FLOAT8_E5M2:
    case TSR_FLOAT8_E4M3FNUZ:
    case TSR_FLOAT8_E5M2FNUZ:
    case TSR_FLOAT8_E8M0FNU:
        LOAD_REAL(uint8_t, FORM_F32, b->re.f[k] = float8_decode(dt, v));
        break;
    case TSR_FLOAT4_E2M1FN_X2: /* same-dtype copies only, never loaded */
    case TSR_DTYPE_COUNT:
        break;
    }
}

/* ---- changing form ------------------------------------------------------ */

/* One loop per source form: the form is fixed for a whole block. */
#define EACH(stmt)                     \
    do {                               \
        for (size_t k = 0; k < n; k++) \
            stmt;                      \
    } while (0)

static void column_to_f32(form from, const column *in, column *out, size_t n)
{
    switch (from) {
    case FORM_I64:
        EACH(out->f[k] = tsr__float_bits((float)in->i[k]));
        break;
    case FORM_U64:
        EACH(out->f[k] = tsr__float_bits((float)in->u[k]));
        break;
    case FORM_F32:
        EACH(out->f[k] = in->f[k]);
        break;
    case FORM_F64:
        EACH(out->f[k] = tsr__double_to_f32(in->d[k]));
        break;
    }
}

static void column_to_f64(form from, const column *in, column *out, size_t n)
{
    switch (from) {
    case FORM_I64:
        EACH(out->d[k] = (double)in->i[k]);
        break;
    case FORM_U64:
        EACH(out->d[k] = (double)in->u[k]);
        break;
    case FORM_F32: /* widening quiets a signalling NaN, as x86 does */
        EACH(out->d[k] = (double)tsr__float_from_bits(in->f[k]));
        break;
    case FORM_F64:
        EACH(out->d[k] = in->d[k]);
        break;
    }
}

/* Brings b into `want` (FORM_F32 or FORM_F64), using scratch when b is
 * in another form. Returns the block that is in the wanted form. */
static const block *block_as(const block *b, form want, block *scratch, size_t n)
{
    if (b->form == want)
        return b;
    void (*convert)(form, const column *, column *, size_t) =
        want == FORM_F32 ? column_to_f32 : column_to_f64;
    convert(b->form, &b->re, &scratch->re, n);
    if (b->has_im)
        convert(b->form, &b->im, &scratch->im, n);
    scratch->form = want;
    scratch->has_im = b->has_im;
    return scratch;
}

/* ---- encoding ----------------------------------------------------------- */

static inline bool nonzero(form frm, const column *c, size_t k)
{
    switch (frm) {
    case FORM_F32:
        return (c->f[k] & TSR__F32_ABS) != 0;
    case FORM_F64:
        return c->d[k] != 0.0; /* NaN compares unequal: true */
    default:
        return c->u[k] != 0;
    }
}

/* Integer destinations: bits of the x86 conversion whose low bytes the
 * destination keeps (see convert_scalar.h); integer sources already are. */
#define FLOAT_TO_INT(F, x)                   \
    (u64    ? tsr__##F##_to_u64(x)           \
     : wide ? (uint64_t)tsr__##F##_cvtt64(x) \
            : (uint64_t)(uint32_t)tsr__##F##_cvtt32(x))

static void encode_int(tsr_dtype dt, form frm, const column *c, size_t n, uint64_t *out)
{
    bool u64 = dt == TSR_UINT64;
    bool wide = dt == TSR_UINT8 || dt == TSR_UINT32 || dt == TSR_INT64;
    switch (frm) {
    case FORM_I64:
    case FORM_U64:
        EACH(out[k] = c->u[k]);
        break;
    case FORM_F32:
        EACH(out[k] = FLOAT_TO_INT(float, tsr__float_from_bits(c->f[k])));
        break;
    case FORM_F64:
        EACH(out[k] = FLOAT_TO_INT(double, c->d[k]));
        break;
    }
}

/* The form a destination component type is encoded from; FORM_I64 stands
 * for "any form" (integers and bool read every form directly). */
static form form_for(tsr_dtype comp)
{
    if (comp == TSR_FLOAT64)
        return FORM_F64;
    if (tsr_dtype_is_floating_point(comp))
        return FORM_F32;
    return FORM_I64;
}

/* Encodes one column (re or im) of b, already in form_for(comp), into
 * destination bit patterns. `base` is the index of b's first element in
 * the whole call (for the bfloat16 vector/tail split). */
static void encode_column(tsr_dtype comp, const block *b, const column *c, size_t n,
                          const cast_ctx *cx, size_t base, uint64_t *out)
{
    switch (comp) {
    case TSR_BOOL:
        EACH(out[k] = nonzero(b->form, c, k) ||
                      (b->has_im && !cx->real_only_bool && nonzero(b->form, &b->im, k)));
        break;
    case TSR_FLOAT16:
        EACH(out[k] = tsr__f32_to_f16(c->f[k], cx->f16c_nan));
        break;
    case TSR_BFLOAT16:
        EACH(out[k] = tsr__f32_to_bf16(c->f[k], base + k < cx->bf16_vector_end));
        break;
    case TSR_FLOAT32:
        EACH(out[k] = c->f[k]);
        break;
    case TSR_FLOAT64:
        EACH(out[k] = tsr__double_bits(c->d[k]));
        break;
    default:
        if (tsr_dtype_is_float8(comp)) {
            EACH(out[k] = float8_encode(comp, c->f[k], cx->saturate));
        } else {
            encode_int(comp, b->form, c, n, out);
        }
        break;
    }
}

/* Writes the low `width` bytes of bits[k] at q + k * stride. */
#define WRITE_LANE(T)                         \
    EACH({                                    \
        T v = (T)bits[k];                     \
        memcpy(q + k * stride, &v, sizeof v); \
    })

static void write_lane(unsigned char *q, size_t stride, size_t width, const uint64_t *bits,
                       size_t n)
{
    switch (width) {
    case 1:
        WRITE_LANE(uint8_t);
        break;
    case 2:
        WRITE_LANE(uint16_t);
        break;
    case 4:
        WRITE_LANE(uint32_t);
        break;
    default:
        WRITE_LANE(uint64_t);
        break;
    }
}

static void store_block(tsr_dtype dt, const block *b, size_t n, const cast_ctx *cx, size_t base,
                        unsigned char *q)
{
    tsr_dtype comp = tsr_dtype_to_real(dt);
    bool complex_dst = comp != dt;
    block scratch;
    form want = form_for(comp);
    const block *src = want == FORM_I64 ? b : block_as(b, want, &scratch, n);
    size_t width = tsr_dtype_itemsize(comp);
    size_t stride = tsr_dtype_itemsize(dt);
    uint64_t bits[BLOCK];

    encode_column(comp, src, &src->re, n, cx, base, bits);
    write_lane(q, stride, width, bits, n);
    if (!complex_dst)
        return;
    if (src->has_im)
        encode_column(comp, src, &src->im, n, cx, base, bits);
    else
        memset(bits, 0, n * sizeof bits[0]); /* +0.0 in every component type */
    write_lane(q + width, stride, width, bits, n);
}

/* ---- the public entry points -------------------------------------------- */

/* real <-> complex of the same component type (float16 and complex32,
 * say): PyTorch moves the component without converting it, so even a
 * signalling NaN's bits survive; the imaginary part written is +0. */
static void copy_component(const unsigned char *p, size_t src_size, unsigned char *q,
                           size_t dst_size, size_t width, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        memcpy(q + k * dst_size, p + k * src_size, width);
        if (dst_size > width)
            memset(q + k * dst_size + width, 0, width);
    }
}

static tsr_status check_cast(const void *src, tsr_dtype src_dtype, const void *dst,
                             tsr_dtype dst_dtype, size_t n, const tsr_cast_options *opts)
{
    if (!tsr__dtype_valid(src_dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)src_dtype);
    if (!tsr__dtype_valid(dst_dtype))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)dst_dtype);
    if (opts && !tsr__abi_reserved_zero(opts->abi_reserved, TSR__ARRAY_SIZE(opts->abi_reserved)))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr_cast_options has reserved words set: zero-initialise it");
    if (opts && (unsigned)opts->nan_bits >= TSR_NAN_BITS_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid NaN bits mode %d", (int)opts->nan_bits);
    if (src_dtype != dst_dtype &&
        (src_dtype == TSR_FLOAT4_E2M1FN_X2 || dst_dtype == TSR_FLOAT4_E2M1FN_X2))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "copy_() does not support casting Float4_e2m1fn_x2 to different types "
                         "(from %s to %s)",
                         tsr_dtype_message_name(src_dtype), tsr_dtype_message_name(dst_dtype));
    if (n == 0)
        return TSR_OK;
    if (!src || !dst)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s buffer is NULL (n = %zu)",
                         src ? "destination" : "source", n);

    size_t src_size = tsr_dtype_itemsize(src_dtype), dst_size = tsr_dtype_itemsize(dst_dtype);
    size_t src_bytes, dst_bytes;
    if (__builtin_mul_overflow(n, src_size, &src_bytes) ||
        __builtin_mul_overflow(n, dst_size, &dst_bytes))
        return tsr__fail(TSR_ERR_OVERFLOW, "%zu elements overflow the buffer size", n);
    uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;
    bool overlap = s < d + dst_bytes && d < s + src_bytes;
    if (overlap && !(s == d && src_size == dst_size))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "source and destination buffers partially overlap");
    return TSR_OK;
}

tsr_status tsr_cast_buffer_ex(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                              size_t n, const tsr_cast_options *opts)
{
    tsr_status st = check_cast(src, src_dtype, dst, dst_dtype, n, opts);
    if (st != TSR_OK || n == 0)
        return st;

    const unsigned char *p = src;
    unsigned char *q = dst;
    size_t src_size = tsr_dtype_itemsize(src_dtype), dst_size = tsr_dtype_itemsize(dst_dtype);
    if (src_dtype == dst_dtype) {
        if (p != q)
            memcpy(q, p, n * src_size);
        return TSR_OK;
    }
    tsr_dtype src_comp = tsr_dtype_to_real(src_dtype), dst_comp = tsr_dtype_to_real(dst_dtype);
    if (src_comp == dst_comp) {
        copy_component(p, src_size, q, dst_size, tsr_dtype_itemsize(src_comp), n);
        return TSR_OK;
    }

    static const tsr_cast_options defaults;
    if (!opts)
        opts = &defaults;
    bool vector = opts->nan_bits == TSR_NAN_BITS_VECTOR;
    cast_ctx cx = {
        .f16c_nan = vector,
        .saturate = opts->saturate_float8,
        .real_only_bool = opts->complex_to_bool_real_only,
        .bf16_vector_end = !vector                    ? 0
                           : src_dtype == TSR_FLOAT32 ? n
                           : src_dtype == TSR_FLOAT64 ? n - n % BF16_DOUBLE_VECTOR
                                                      : 0,
    };
    block b;
    for (size_t base = 0; base < n; base += BLOCK) {
        size_t m = n - base < BLOCK ? n - base : BLOCK;
        load_block(src_dtype, p + base * src_size, m, &b);
        store_block(dst_dtype, &b, m, &cx, base, q + base * dst_size);
    }
    return TSR_OK;
}

tsr_status tsr_cast_buffer(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                           size_t n)
{
    return tsr_cast_buffer_ex(src, src_dtype, dst, dst_dtype, n, NULL);
}

uint16_t tsr_float_to_half(float x)
{
    return tsr__f32_to_f16(tsr__float_bits(x), false);
}

float tsr_half_to_float(uint16_t h)
{
    return tsr__float_from_bits(tsr__f16_to_f32(h));
}

uint16_t tsr_float_to_bfloat16(float x)
{
    return tsr__f32_to_bf16(tsr__float_bits(x), false);
}

float tsr_bfloat16_to_float(uint16_t b)
{
    return tsr__float_from_bits(tsr__bf16_to_f32(b));
}

uint8_t tsr_float_to_float8(float x, tsr_dtype fmt, bool saturate)
{
    return float8_encode(fmt, tsr__float_bits(x), saturate);
}

float tsr_float8_to_float(uint8_t code, tsr_dtype fmt)
{
    return tsr__float_from_bits(float8_decode(fmt, code));
}

float tsr_float4_to_float(uint8_t nibble)
{
    return tsr__float_from_bits(tsr__e2m1_to_f32(nibble));
}
