/* The cpu device's row loops: every (operation, compute dtype) pair that
 * PyTorch computes, instantiated from kernels/scalar_ops.h.
 *
 * A row has one stride per operand. The two layouts that matter for
 * speed, all operands contiguous and a contiguous pair with a broadcast
 * (or scalar) second input, get loops of their own over typed pointers,
 * which the compiler vectorises; anything else takes the strided loop.
 * The floating rows first try the loops of cpu_fast.c (float16 and
 * bfloat16 in vectors; float32 and float64 with a scalar first input).
 * add and sub test alpha once per row, so that the common alpha = +-1
 * runs as a plain sum instead of a fused multiply-add per element. */
#include <string.h>

#include "core/error.h"
#include "kernels/cpu_fast.h"
#include "kernels/kernels.h"
#include "kernels/scalar_ops.h"
#include "tessera/convert.h"

/* ---- storage of the compute dtypes ------------------------------------- */

typedef struct c32_store {
    uint16_t re, im;
} c32_store;

static inline c32_store c32_out(tsr__kc64 z)
{
    c32_store s = {tsr__k_f16_out(z.re), tsr__k_f16_out(z.im)};
    return s;
}
static inline tsr__kc64 c32_in(c32_store s)
{
    return tsr__k_c32_in(s.re, s.im);
}

#define SAME(x) (x)
static inline float f32_in(float x)
{
    return x;
}

/* ---- alpha, decoded once per row ---------------------------------------- */

static inline uint64_t alpha_int(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline float alpha_float(const uint8_t *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline double alpha_double(const uint8_t *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline tsr__kc64 alpha_c64(const uint8_t *p)
{
    tsr__kc64 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline tsr__kc128 alpha_c128(const uint8_t *p)
{
    tsr__kc128 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- the row template ----------------------------------------------------
 * S: storage type, M: math type, IN/OUT: storage <-> math, EXPR: the
 * result from x, y, alpha (and bad). FAST/FAST_EXPR: a row-wide condition
 * on alpha under which FAST_EXPR gives the same bits more cheaply. */
#define LOOPS(S, M, IN, OUT, E)                                                            \
    if (st[0] == (int64_t)sizeof(S) && st[1] == (int64_t)sizeof(S) &&                      \
        st[2] == (int64_t)sizeof(S)) {                                                     \
        S *po = (S *)o;                                                                    \
        const S *pa = (const S *)a, *pb = (const S *)b;                                    \
        for (int64_t i = 0; i < n; i++) {                                                  \
            M x = IN(pa[i]), y = IN(pb[i]);                                                \
            (void)x, (void)y;                                                              \
            po[i] = OUT(E);                                                                \
        }                                                                                  \
    } else if (st[0] == (int64_t)sizeof(S) && st[1] == (int64_t)sizeof(S) && st[2] == 0) { \
        S *po = (S *)o;                                                                    \
        const S *pa = (const S *)a;                                                        \
        const M y = IN(*(const S *)b);                                                     \
        (void)y;                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                  \
            M x = IN(pa[i]);                                                               \
            (void)x;                                                                       \
            po[i] = OUT(E);                                                                \
        }                                                                                  \
    } else {                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                  \
            M x = IN(*(const S *)(a + i * st[1])), y = IN(*(const S *)(b + i * st[2]));    \
            (void)x, (void)y;                                                              \
            *(S *)(o + i * st[0]) = OUT(E);                                                \
        }                                                                                  \
    }

/* Integer division stops before the first zero divisor, as PyTorch's
 * loop throws there: the elements before it are written, the rest not. */
static int64_t before_zero(const unsigned char *b, int64_t n, int64_t stride, size_t width)
{
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *p = b + i * stride;
        unsigned char any = 0;
        for (size_t k = 0; k < width; k++)
            any |= p[k];
        if (!any)
            return i;
    }
    return n;
}

#define ROW_CHECKED(fn, S, M, IN, OUT, AT, ALPHA, CHECK, FAST, FAST_EXPR, EXPR)                    \
    static int64_t fn(unsigned char *o, const unsigned char *a, const unsigned char *b, int64_t n, \
                      const int64_t st[3], const uint8_t *alpha_bytes, int *bad)                   \
    {                                                                                              \
        const AT alpha = ALPHA(alpha_bytes);                                                       \
        int bad_local = 0;                                                                         \
        (void)alpha;                                                                               \
        if (CHECK) {                                                                               \
            int64_t all = n;                                                                       \
            n = before_zero(b, n, st[2], sizeof(S));                                               \
            bad_local = n < all;                                                                   \
        }                                                                                          \
        if (FAST) {                                                                                \
            LOOPS(S, M, IN, OUT, FAST_EXPR)                                                        \
        } else {                                                                                   \
            LOOPS(S, M, IN, OUT, EXPR)                                                             \
        }                                                                                          \
        if (bad_local)                                                                             \
            *bad = 1;                                                                              \
        return n;                                                                                  \
    }
#define ROW(fn, S, M, IN, OUT, AT, ALPHA, FAST, FAST_EXPR, EXPR) \
    ROW_CHECKED(fn, S, M, IN, OUT, AT, ALPHA, 0, FAST, FAST_EXPR, EXPR)

#define NO_ALPHA(p) ((void)(p), 0)
#define NEVER 0
#define UNIT(alpha) ((alpha) == 1 || (alpha) == -1)

/* Integers and bool: one family per storage width. */
#define INT_ROWS(name, S, IN, OUT)                                                              \
    ROW(add_##name, S, uint64_t, IN, OUT, uint64_t, alpha_int, alpha == 1, x + y,               \
        tsr__k_add_int(x, y, alpha))                                                            \
    ROW(sub_##name, S, uint64_t, IN, OUT, uint64_t, alpha_int, alpha == 0 - (uint64_t)1, x - y, \
        tsr__k_add_int(x, y, alpha))                                                            \
    ROW(mul_##name, S, uint64_t, IN, OUT, int, NO_ALPHA, NEVER, 0, tsr__k_mul_int(x, y))        \
    ROW_CHECKED(divt_##name, S, uint64_t, IN, OUT, int, NO_ALPHA, 1, NEVER, 0,                  \
                tsr__k_divt_int(x, y, &bad_local))                                              \
    ROW_CHECKED(divf_##name, S, uint64_t, IN, OUT, int, NO_ALPHA, 1, NEVER, 0,                  \
                tsr__k_divf_int(x, y, &bad_local))

INT_ROWS(u8, uint8_t, tsr__k_u8_in, tsr__k_u8_out)
INT_ROWS(i8, uint8_t, tsr__k_i8_in, tsr__k_i8_out)
INT_ROWS(i16, uint16_t, tsr__k_i16_in, tsr__k_i16_out)
INT_ROWS(i32, uint32_t, tsr__k_i32_in, tsr__k_i32_out)
INT_ROWS(i64, uint64_t, tsr__k_i64_in, tsr__k_i64_out)

/* bool: the sum is "nonzero"; alpha is 0 or 1. */
ROW(add_b8, uint8_t, uint64_t, tsr__k_b8_in, tsr__k_b8_out, uint64_t, alpha_int, NEVER, 0,
    tsr__k_add_int(x, y, alpha != 0))
ROW(mul_b8, uint8_t, uint64_t, tsr__k_b8_in, tsr__k_b8_out, int, NO_ALPHA, NEVER, 0, x *y)

/* Real floating types: add/sub share one expression, alpha negated for sub. */
#define PLUS_OR_MINUS(x, y) (alpha == 1 ? (x) + (y) : (x) - (y))
#define FLOAT_ROWS(name, S, M, IN, OUT, AT, ALPHA, NEG, ADD, DIVT, DIVF)                          \
    ROW(add_##name, S, M, IN, OUT, AT, ALPHA, UNIT(alpha), PLUS_OR_MINUS(x, y), ADD(x, y, alpha)) \
    ROW(sub_##name, S, M, IN, OUT, AT, NEG, UNIT(alpha), PLUS_OR_MINUS(x, y), ADD(x, y, alpha))   \
    ROW(mul_##name, S, M, IN, OUT, int, NO_ALPHA, NEVER, 0, x *y)                                 \
    ROW(div_##name, S, M, IN, OUT, int, NO_ALPHA, NEVER, 0, x / y)                                \
    ROW(divt_##name, S, M, IN, OUT, int, NO_ALPHA, NEVER, 0, DIVT(x, y))                          \
    ROW(divf_##name, S, M, IN, OUT, int, NO_ALPHA, NEVER, 0, DIVF(x, y))

FLOAT_ROWS(f16, uint16_t, float, tsr__k_f16_in, tsr__k_f16_out, float, alpha_float, alpha_float,
           tsr__k_add_f16, tsr__k_divt_f16, tsr__k_divf_f16)
FLOAT_ROWS(bf16, uint16_t, float, tsr__k_bf16_in, tsr__k_bf16_out, float, alpha_float, alpha_float,
           tsr__k_add_bf16, tsr__k_divt_bf16, tsr__k_divf_bf16)
FLOAT_ROWS(f32, float, float, f32_in, SAME, float, alpha_float, alpha_float, tsr__k_add_f32,
           tsr__k_divt_f32, tsr__k_divf_f32)
FLOAT_ROWS(f64, double, double, SAME, SAME, double, alpha_double, alpha_double, tsr__k_add_f64,
           tsr__k_divt_f64, tsr__k_divf_f64)

/* float16 and bfloat16 try the vector loops of cpu_fast.c first: add
 * and sub with a unit alpha, mul and div, on rows whose output is
 * contiguous and whose inputs are contiguous or scalars. */
static bool reduced_layout(const int64_t st[3])
{
    return st[0] == 2 && (st[1] == 0 || st[1] == 2) && (st[2] == 0 || st[2] == 2);
}

#define REDUCED_FAST(name, DT, ALPHA_OP)                                                         \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               int64_t n, const int64_t st[3], const uint8_t *alpha_bytes,       \
                               int *bad)                                                         \
    {                                                                                            \
        int fop = ALPHA_OP;                                                                      \
        if (fop >= 0 && reduced_layout(st) &&                                                    \
            tsr__cpu_fast_reduced(DT, (tsr__cpu_fast_op)fop, (uint16_t *)o, (const uint16_t *)a, \
                                  st[1] / 2, (const uint16_t *)b, st[2] / 2, n))                 \
            return n;                                                                            \
        return name(o, a, b, n, st, alpha_bytes, bad);                                           \
    }

/* The plain sum or difference that a unit alpha makes, or -1. */
static int unit_alpha_op(const uint8_t *alpha_bytes)
{
    float alpha = alpha_float(alpha_bytes);
    return alpha == 1 ? TSR__FAST_ADD : alpha == -1 ? TSR__FAST_SUB : -1;
}

#define REDUCED_FAST_ROWS(name, DT)                                  \
    REDUCED_FAST(add_##name, DT, unit_alpha_op(alpha_bytes))         \
    REDUCED_FAST(sub_##name, DT, unit_alpha_op(alpha_bytes))         \
    REDUCED_FAST(mul_##name, DT, ((void)alpha_bytes, TSR__FAST_MUL)) \
    REDUCED_FAST(div_##name, DT, ((void)alpha_bytes, TSR__FAST_DIV))

REDUCED_FAST_ROWS(f16, TSR_FLOAT16)
REDUCED_FAST_ROWS(bf16, TSR_BFLOAT16)

/* float32 and float64: the row of a broadcast a[N, 1] + b[1, M], whose
 * first input is one element, which the loops above leave to the strided
 * loop. */
#define SCALAR_FIRST_FAST(name, S, DT, ALPHA_OP)                                                 \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               int64_t n, const int64_t st[3], const uint8_t *alpha_bytes,       \
                               int *bad)                                                         \
    {                                                                                            \
        int fop = ALPHA_OP;                                                                      \
        if (fop >= 0 && st[0] == (int64_t)sizeof(S) && st[1] == 0 &&                             \
            st[2] == (int64_t)sizeof(S) &&                                                       \
            tsr__cpu_fast_scalar_first(DT, (tsr__cpu_fast_op)fop, o, a, b, n))                   \
            return n;                                                                            \
        return name(o, a, b, n, st, alpha_bytes, bad);                                           \
    }

static int unit_alpha_op_f64(const uint8_t *alpha_bytes)
{
    double alpha = alpha_double(alpha_bytes);
    return alpha == 1 ? TSR__FAST_ADD : alpha == -1 ? TSR__FAST_SUB : -1;
}

SCALAR_FIRST_FAST(add_f32, float, TSR_FLOAT32, unit_alpha_op(alpha_bytes))
SCALAR_FIRST_FAST(sub_f32, float, TSR_FLOAT32, unit_alpha_op(alpha_bytes))
SCALAR_FIRST_FAST(mul_f32, float, TSR_FLOAT32, ((void)alpha_bytes, TSR__FAST_MUL))
SCALAR_FIRST_FAST(div_f32, float, TSR_FLOAT32, ((void)alpha_bytes, TSR__FAST_DIV))
SCALAR_FIRST_FAST(add_f64, double, TSR_FLOAT64, unit_alpha_op_f64(alpha_bytes))
SCALAR_FIRST_FAST(sub_f64, double, TSR_FLOAT64, unit_alpha_op_f64(alpha_bytes))
SCALAR_FIRST_FAST(mul_f64, double, TSR_FLOAT64, ((void)alpha_bytes, TSR__FAST_MUL))
SCALAR_FIRST_FAST(div_f64, double, TSR_FLOAT64, ((void)alpha_bytes, TSR__FAST_DIV))

/* Complex types. */

ROW(add_c32, c32_store, tsr__kc64, c32_in, c32_out, tsr__kc64, alpha_c64, NEVER, x,
    tsr__k_add_c32(x, y, alpha))
ROW(sub_c32, c32_store, tsr__kc64, c32_in, c32_out, tsr__kc64, alpha_c64, NEVER, x,
    tsr__k_add_c32(x, y, alpha))
ROW(mul_c32, c32_store, tsr__kc64, c32_in, c32_out, int, NO_ALPHA, NEVER, x, tsr__k_mul_c64(x, y))

#define COMPLEX_ROWS(name, S, ALPHA, NEG, ADD, MUL, DIV)                    \
    ROW(add_##name, S, S, SAME, SAME, S, ALPHA, NEVER, x, ADD(x, y, alpha)) \
    ROW(sub_##name, S, S, SAME, SAME, S, NEG, NEVER, x, ADD(x, y, alpha))   \
    ROW(mul_##name, S, S, SAME, SAME, int, NO_ALPHA, NEVER, x, MUL(x, y))   \
    ROW(div_##name, S, S, SAME, SAME, int, NO_ALPHA, NEVER, x, DIV(x, y))

COMPLEX_ROWS(c64, tsr__kc64, alpha_c64, alpha_c64, tsr__k_add_c64, tsr__k_mul_c64, tsr__k_div_c64)
COMPLEX_ROWS(c128, tsr__kc128, alpha_c128, alpha_c128, tsr__k_add_c128, tsr__k_mul_c128,
             tsr__k_div_c128)

/* ---- copy and fill: elements moved as bytes of their width --------------- */

typedef struct bytes16 {
    uint64_t lo, hi;
} bytes16;

#define MOVE_ROWS(width, T)                                                                       \
    static int64_t copy_##width(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                                int64_t n, const int64_t st[3], const uint8_t *alpha, int *bad)   \
    {                                                                                             \
        (void)b, (void)alpha, (void)bad;                                                          \
        if (st[0] == width && st[1] == width) {                                                   \
            memmove(o, a, (size_t)n *width);                                                      \
            return n;                                                                             \
        }                                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                         \
            T v;                                                                                  \
            memcpy(&v, a + i * st[1], width);                                                     \
            memcpy(o + i * st[0], &v, width);                                                     \
        }                                                                                         \
        return n;                                                                                 \
    }                                                                                             \
    static int64_t fill_##width(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                                int64_t n, const int64_t st[3], const uint8_t *alpha, int *bad)   \
    {                                                                                             \
        (void)a, (void)alpha, (void)bad;                                                          \
        T v;                                                                                      \
        memcpy(&v, b, width);                                                                     \
        if (st[0] == width) {                                                                     \
            T *po = (T *)o;                                                                       \
            for (int64_t i = 0; i < n; i++)                                                       \
                po[i] = v;                                                                        \
            return n;                                                                             \
        }                                                                                         \
        for (int64_t i = 0; i < n; i++)                                                           \
            memcpy(o + i * st[0], &v, width);                                                     \
        return n;                                                                                 \
    }

MOVE_ROWS(1, uint8_t)
MOVE_ROWS(2, uint16_t)
MOVE_ROWS(4, uint32_t)
MOVE_ROWS(8, uint64_t)
MOVE_ROWS(16, bytes16)

/* ---- the tables ----------------------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_DIVT, OP_DIVF, ARITH_COUNT };

static const tsr__kernel_row arith_rows[TSR_DTYPE_COUNT][ARITH_COUNT] = {
    [TSR_BOOL] = {add_b8, NULL, mul_b8, NULL, NULL, NULL},
    [TSR_UINT8] = {add_u8, sub_u8, mul_u8, NULL, divt_u8, divf_u8},
    [TSR_INT8] = {add_i8, sub_i8, mul_i8, NULL, divt_i8, divf_i8},
    [TSR_INT16] = {add_i16, sub_i16, mul_i16, NULL, divt_i16, divf_i16},
    [TSR_INT32] = {add_i32, sub_i32, mul_i32, NULL, divt_i32, divf_i32},
    [TSR_INT64] = {add_i64, sub_i64, mul_i64, NULL, divt_i64, divf_i64},
    [TSR_FLOAT16] = {add_f16_fast, sub_f16_fast, mul_f16_fast, div_f16_fast, divt_f16, divf_f16},
    [TSR_BFLOAT16] = {add_bf16_fast, sub_bf16_fast, mul_bf16_fast, div_bf16_fast, divt_bf16,
                      divf_bf16},
    [TSR_FLOAT32] = {add_f32_fast, sub_f32_fast, mul_f32_fast, div_f32_fast, divt_f32, divf_f32},
    [TSR_FLOAT64] = {add_f64_fast, sub_f64_fast, mul_f64_fast, div_f64_fast, divt_f64, divf_f64},
    [TSR_COMPLEX32] = {add_c32, sub_c32, mul_c32, NULL, NULL, NULL},
    [TSR_COMPLEX64] = {add_c64, sub_c64, mul_c64, div_c64, NULL, NULL},
    [TSR_COMPLEX128] = {add_c128, sub_c128, mul_c128, div_c128, NULL, NULL},
};

static int arith_index(tsr__kernel_op op)
{
    switch (op) {
    case TSR__KOP_ADD:
        return OP_ADD;
    case TSR__KOP_SUB:
        return OP_SUB;
    case TSR__KOP_MUL:
        return OP_MUL;
    case TSR__KOP_DIV:
        return OP_DIV;
    case TSR__KOP_DIV_TRUNC:
        return OP_DIVT;
    case TSR__KOP_DIV_FLOOR:
        return OP_DIVF;
    default:
        return -1;
    }
}

tsr__kernel_row tsr__kernel_row_for(tsr__kernel_op op, tsr_dtype common)
{
    if (!tsr_dtype_is_valid(common))
        return NULL;
    if (op == TSR__KOP_COPY || op == TSR__KOP_FILL) {
        static const tsr__kernel_row copies[17] = {
            [1] = copy_1, [2] = copy_2, [4] = copy_4, [8] = copy_8, [16] = copy_16};
        static const tsr__kernel_row fills[17] = {
            [1] = fill_1, [2] = fill_2, [4] = fill_4, [8] = fill_8, [16] = fill_16};
        size_t w = tsr_dtype_itemsize(common);
        return op == TSR__KOP_COPY ? copies[w] : fills[w];
    }
    int k = arith_index(op);
    return k < 0 ? NULL : arith_rows[common][k];
}

const char *tsr__kernel_op_stub(tsr__kernel_op op)
{
    static const char *const stubs[TSR__KOP_COUNT] = {
        [TSR__KOP_COPY] = "copy_",
        [TSR__KOP_FILL] = "fill_",
        [TSR__KOP_ADD] = "add_stub",
        [TSR__KOP_SUB] = "add_stub",
        [TSR__KOP_MUL] = "mul_cpu",
        [TSR__KOP_DIV] = "div_cpu",
        [TSR__KOP_DIV_TRUNC] = "div_trunc_cpu",
        [TSR__KOP_DIV_FLOOR] = "div_floor_cpu",
    };
    return (unsigned)op < TSR__KOP_COUNT && stubs[op] ? stubs[op] : "unknown_op";
}

tsr_status tsr__kernel_check_compute(tsr__kernel_op op, tsr_dtype common)
{
    if ((unsigned)op >= TSR__KOP_COUNT || op == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid kernel operation %d", (int)op);
    if (!tsr_dtype_is_valid(common))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value %d", (int)common);
    if (tsr__kernel_row_for(op, common) != NULL)
        return TSR_OK;
    return tsr__fail(TSR_ERR_NOT_SUPPORTED, "\"%s\" not implemented for '%s'",
                     tsr__kernel_op_stub(op), tsr_dtype_message_name(common));
}

void tsr__kernel_alpha_from_element(tsr_dtype common, const void *element, uint8_t alpha[16])
{
    const uint8_t *p = element;
    memset(alpha, 0, 16);
    switch (common) {
    case TSR_BOOL:
    case TSR_UINT8: {
        uint64_t v = common == TSR_BOOL ? p[0] != 0 : p[0];
        memcpy(alpha, &v, 8);
        break;
    }
    case TSR_INT8: {
        uint64_t v = tsr__k_i8_in(p[0]);
        memcpy(alpha, &v, 8);
        break;
    }
    case TSR_INT16:
    case TSR_INT32: {
        uint64_t v;
        uint16_t h;
        uint32_t w;
        if (common == TSR_INT16) {
            memcpy(&h, p, 2);
            v = tsr__k_i16_in(h);
        } else {
            memcpy(&w, p, 4);
            v = tsr__k_i32_in(w);
        }
        memcpy(alpha, &v, 8);
        break;
    }
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
    case TSR_COMPLEX32:
        for (int part = 0; part < (common == TSR_COMPLEX32 ? 2 : 1); part++) {
            uint16_t h;
            memcpy(&h, p + 2 * part, 2);
            float f = common == TSR_BFLOAT16 ? tsr__k_bf16_in(h) : tsr__k_f16_in(h);
            memcpy(alpha + 4 * part, &f, 4);
        }
        break;
    default: /* int64, float32, float64, complex64, complex128: already the math type */
        memcpy(alpha, p, tsr_dtype_itemsize(common) <= 16 ? tsr_dtype_itemsize(common) : 16);
        break;
    }
}

/* float64 -> bfloat16 goes through float32 in blocks, so that every NaN
 * takes the float32 kernel's FFFF (the rounding is the same: float64 ->
 * float32 -> bfloat16 is how tsr_cast_buffer rounds too). */
tsr_status tsr__kernel_convert(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                               size_t n)
{
    if (src_dtype != TSR_FLOAT64 || dst_dtype != TSR_BFLOAT16)
        return tsr_cast_buffer(src, src_dtype, dst, dst_dtype, n);
    const unsigned char *p = src;
    unsigned char *q = dst;
    float tmp[256];
    for (size_t done = 0; done < n;) {
        size_t m = n - done < 256 ? n - done : 256;
        tsr_status st = tsr_cast_buffer(p + done * 8, TSR_FLOAT64, tmp, TSR_FLOAT32, m);
        if (st == TSR_OK)
            st = tsr_cast_buffer(tmp, TSR_FLOAT32, q + done * 2, TSR_BFLOAT16, m);
        if (st != TSR_OK)
            return st;
        done += m;
    }
    return TSR_OK;
}
