/* The cpu device's row loops: every (operation, compute dtype) pair that
 * PyTorch computes, instantiated from kernels/scalar_ops.h.
 *
 * A row has one stride per operand. The two layouts that matter for
 * speed, all operands contiguous and a contiguous pair with a broadcast
 * (or scalar) second input, get loops of their own over typed pointers,
 * which the compiler vectorises; anything else takes the strided loop.
 * The floating rows first try the loops of cpu_fast.c (float16 and
 * bfloat16 in vectors; float32 and float64 with a scalar first input;
 * contiguous unary rows, cpu_unary.c).
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

/* FAST: alpha is +1 (ONE) or -1, and PLUS_EXPR / MINUS_EXPR compute the
 * element with that alpha as a constant. Each sign has a loop of its own:
 * one loop choosing between x + y and x - y per element lets the compiler
 * turn the pair into x + (sign ? y : -y) (clang does), which flips the
 * sign of a NaN in y where the subtraction keeps it. */
#define ROW_CHECKED(fn, S, M, IN, OUT, AT, ALPHA, CHECK, FAST, ONE, PLUS_EXPR, MINUS_EXPR, EXPR) \
    static int64_t fn(unsigned char *o, const unsigned char *a, const unsigned char *b,          \
                      const unsigned char *c, int64_t n, const int64_t st[4],                    \
                      const uint8_t *alpha_bytes, int *bad)                                      \
    {                                                                                            \
        const AT alpha = ALPHA(alpha_bytes);                                                     \
        int bad_local = 0;                                                                       \
        (void)alpha, (void)c;                                                                    \
        if (CHECK) {                                                                             \
            int64_t all = n;                                                                     \
            n = before_zero(b, n, st[2], sizeof(S));                                             \
            bad_local = n < all;                                                                 \
        }                                                                                        \
        if (FAST && ONE) {                                                                       \
            LOOPS(S, M, IN, OUT, PLUS_EXPR)                                                      \
        } else if (FAST) {                                                                       \
            LOOPS(S, M, IN, OUT, MINUS_EXPR)                                                     \
        } else {                                                                                 \
            LOOPS(S, M, IN, OUT, EXPR)                                                           \
        }                                                                                        \
        if (bad_local)                                                                           \
            *bad = 1;                                                                            \
        return n;                                                                                \
    }

/* A row of three inputs (x, y, z from a, b, c; a value in `alpha`): a
 * loop of its own where every operand steps by one element, the strided
 * loop otherwise. */
#define ROW3(fn, S, M, IN, OUT, AT, ALPHA, EXPR)                                            \
    static int64_t fn(unsigned char *o, const unsigned char *a, const unsigned char *b,     \
                      const unsigned char *c, int64_t n, const int64_t st[4],               \
                      const uint8_t *alpha_bytes, int *bad)                                 \
    {                                                                                       \
        const AT alpha = ALPHA(alpha_bytes);                                                \
        (void)alpha, (void)bad;                                                             \
        if (st[0] == (int64_t)sizeof(S) && st[1] == (int64_t)sizeof(S) &&                   \
            st[2] == (int64_t)sizeof(S) && st[3] == (int64_t)sizeof(S)) {                   \
            S *po = (S *)o;                                                                 \
            const S *pa = (const S *)a, *pb = (const S *)b, *pc = (const S *)c;             \
            for (int64_t i = 0; i < n; i++) {                                               \
                M x = IN(pa[i]), y = IN(pb[i]), z = IN(pc[i]);                              \
                po[i] = OUT(EXPR);                                                          \
            }                                                                               \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) {                                               \
                M x = IN(*(const S *)(a + i * st[1])), y = IN(*(const S *)(b + i * st[2])), \
                  z = IN(*(const S *)(c + i * st[3]));                                      \
                *(S *)(o + i * st[0]) = OUT(EXPR);                                          \
            }                                                                               \
        }                                                                                   \
        return n;                                                                           \
    }

#define NO_ALPHA(p) ((void)(p), 0)
#define NEVER 0
#define UNIT(alpha) ((alpha) == 1 || (alpha) == -1)

/* ---- the rows of every operation, from core/ops.def ----------------------
 *
 * One row function per (operation, compute dtype) that the operation's
 * dtype columns allow, named row_<ENUM>_<dtype>, calling the element
 * function tsr__k_<elem>_<math> as its `call` column says. Alpha +-1 runs
 * the element function with a constant alpha, which the compiler folds
 * into a plain sum or difference (the same bits: scalar_ops.h's add
 * special-cases those alphas too). */

#define IF_Y(...) __VA_ARGS__
#define IF_N(...)
#define PICK_Y(x) x
#define PICK_N(x) NULL

/* A family's storage: S, math type M, IN/OUT, alpha's type and decoder,
 * and whether alpha +-1 takes the folded loop. */
#define FAMILY_b8 uint8_t, uint64_t, tsr__k_b8_in, tsr__k_b8_out, uint64_t, alpha_int, b8
#define FAMILY_u8 uint8_t, uint64_t, tsr__k_u8_in, tsr__k_u8_out, uint64_t, alpha_int, int
#define FAMILY_i8 uint8_t, uint64_t, tsr__k_i8_in, tsr__k_i8_out, uint64_t, alpha_int, int
#define FAMILY_i16 uint16_t, uint64_t, tsr__k_i16_in, tsr__k_i16_out, uint64_t, alpha_int, int
#define FAMILY_i32 uint32_t, uint64_t, tsr__k_i32_in, tsr__k_i32_out, uint64_t, alpha_int, int
#define FAMILY_i64 uint64_t, uint64_t, tsr__k_i64_in, tsr__k_i64_out, uint64_t, alpha_int, int
#define FAMILY_f16 uint16_t, float, tsr__k_f16_in, tsr__k_f16_out, float, alpha_float, f16
#define FAMILY_bf16 uint16_t, float, tsr__k_bf16_in, tsr__k_bf16_out, float, alpha_float, bf16
#define FAMILY_f32 float, float, f32_in, SAME, float, alpha_float, f32
#define FAMILY_f64 double, double, SAME, SAME, double, alpha_double, f64
#define FAMILY_c32 c32_store, tsr__kc64, c32_in, c32_out, tsr__kc64, alpha_c64, c32
#define FAMILY_c64 tsr__kc64, tsr__kc64, SAME, SAME, tsr__kc64, alpha_c64, c64
#define FAMILY_c128 tsr__kc128, tsr__kc128, SAME, SAME, tsr__kc128, alpha_c128, c128

/* Alpha +-1 folds where alpha is a real number; complex rows keep the
 * general loop (their alpha 1 is 1 + 0i, whose zero part matters). */
#define UNIT_int(alpha) ((alpha) == 1 || (alpha) == (uint64_t)0 - 1)
#define UNIT_b8 UNIT_int
#define UNIT_f16 UNIT
#define UNIT_bf16 UNIT
#define UNIT_f32 UNIT
#define UNIT_f64 UNIT
#define UNIT_c32(alpha) NEVER
#define UNIT_c64(alpha) NEVER
#define UNIT_c128(alpha) NEVER

/* The element expression of each call kind; CHECKED divides by zero only
 * in the integer math (`int`). */
#define CALL_ALPHA(fn, math, AT, S) fn(x, y, alpha)
#define CALL_PLAIN(fn, math, AT, S) fn(x, y)
#define CALL_UNARY(fn, math, AT, S) fn(x)
#define CALL_CHECKED(fn, math, AT, S) CHECKED_##math(fn)
#define CALL_WIDTH(fn, math, AT, S) fn(x, y, (int)(8 * sizeof(S)))
#define CALL_VALUE1(fn, math, AT, S) fn(x, alpha)
#define CALL_VALUE2(fn, math, AT, S) fn(x, y, alpha)
/* REPLACE's three numbers, from the 64-bit slots its `alpha_bytes`
 * (tsr__kernel_row_alpha: the kernel's scalar, then alpha) holds. */
#define CALL_REPLACE(fn, math, AT, S) \
    fn(x, SLOT_##math(alpha_bytes), SLOT_##math(alpha_bytes + 8), SLOT_##math(alpha_bytes + 16))
#define SLOT_int alpha_int
#define SLOT_b8 alpha_int
#define SLOT_f16 alpha_float
#define SLOT_bf16 alpha_float
#define SLOT_f32 alpha_float
#define SLOT_f64 alpha_double
#define CHECKED_int(fn) fn(x, y, &bad_local)
#define CHECKED_b8(fn) fn(x, y, &bad_local)
#define CHECKED_f16(fn) fn(x, y)
#define CHECKED_bf16(fn) fn(x, y)
#define CHECKED_f32(fn) fn(x, y)
#define CHECKED_f64(fn) fn(x, y)
#define CHECKED_c32(fn) fn(x, y)
#define CHECKED_c64(fn) fn(x, y)
#define CHECKED_c128(fn) fn(x, y)
#define ZERO_CHECK_ALPHA(math) 0
#define ZERO_CHECK_PLAIN(math) 0
#define ZERO_CHECK_UNARY(math) 0
#define ZERO_CHECK_WIDTH(math) 0
#define ZERO_CHECK_VALUE1(math) 0
#define ZERO_CHECK_VALUE2(math) 0
#define ZERO_CHECK_REPLACE(math) 0
#define ZERO_CHECK_CHECKED(math) ZERO_CHECK_##math
#define ZERO_CHECK_int 1
#define ZERO_CHECK_b8 1
#define ZERO_CHECK_f16 0
#define ZERO_CHECK_bf16 0
#define ZERO_CHECK_f32 0
#define ZERO_CHECK_f64 0
#define ZERO_CHECK_c32 0
#define ZERO_CHECK_c64 0
#define ZERO_CHECK_c128 0
#define FOLD_ALPHA(math) UNIT_##math(alpha)
#define FOLD_PLAIN(math) NEVER
#define FOLD_UNARY(math) NEVER
#define FOLD_CHECKED(math) NEVER
#define FOLD_WIDTH(math) NEVER
#define FOLD_VALUE1(math) NEVER
#define FOLD_VALUE2(math) NEVER
#define FOLD_REPLACE(math) NEVER
/* Whether the folded alpha is +1 rather than -1 (real families only). */
#define ONE_ALPHA(math) ONE_##math
#define ONE_PLAIN(math) NEVER
#define ONE_UNARY(math) NEVER
#define ONE_CHECKED(math) NEVER
#define ONE_WIDTH(math) NEVER
#define ONE_VALUE1(math) NEVER
#define ONE_VALUE2(math) NEVER
#define ONE_REPLACE(math) NEVER
#define ONE_int (alpha == 1)
#define ONE_b8 ONE_int
#define ONE_f16 ONE_int
#define ONE_bf16 ONE_int
#define ONE_f32 ONE_int
#define ONE_f64 ONE_int
#define ONE_c32 NEVER
#define ONE_c64 NEVER
#define ONE_c128 NEVER
/* What a folded loop computes: the element function with alpha as the
 * constant `sign` (real families), else the general expression. */
#define FOLDED_ALPHA(fn, math, AT, S, sign) FOLDED_##math(fn, AT, sign)
#define FOLDED_PLAIN(fn, math, AT, S, sign) CALL_PLAIN(fn, math, AT, S)
#define FOLDED_UNARY(fn, math, AT, S, sign) CALL_UNARY(fn, math, AT, S)
#define FOLDED_CHECKED(fn, math, AT, S, sign) CALL_CHECKED(fn, math, AT, S)
#define FOLDED_WIDTH(fn, math, AT, S, sign) CALL_WIDTH(fn, math, AT, S)
#define FOLDED_VALUE1(fn, math, AT, S, sign) CALL_VALUE1(fn, math, AT, S)
#define FOLDED_VALUE2(fn, math, AT, S, sign) CALL_VALUE2(fn, math, AT, S)
#define FOLDED_REPLACE(fn, math, AT, S, sign) CALL_REPLACE(fn, math, AT, S)
#define FOLDED_REAL(fn, AT, sign) fn(x, y, (AT)(sign))
#define FOLDED_int FOLDED_REAL
#define FOLDED_b8 FOLDED_REAL
#define FOLDED_f16 FOLDED_REAL
#define FOLDED_bf16 FOLDED_REAL
#define FOLDED_f32 FOLDED_REAL
#define FOLDED_f64 FOLDED_REAL
#define FOLDED_c32(fn, AT, sign) fn(x, y, alpha)
#define FOLDED_c64(fn, AT, sign) fn(x, y, alpha)
#define FOLDED_c128(fn, AT, sign) fn(x, y, alpha)

#define ROW_OF(fn, call, elem, family) ROW_OF_(fn, call, elem, FAMILY_##family)
#define ROW_OF_(fn, call, elem, ...) ROW_OF__(fn, call, elem, __VA_ARGS__)
#define ROW_OF__(fn, call, elem, S, M, IN, OUT, AT, ALPHA, math)                          \
    ROW_CHECKED(fn, S, M, IN, OUT, AT, ALPHA, ZERO_CHECK_##call(math), FOLD_##call(math), \
                ONE_##call(math), FOLDED_##call(tsr__k_##elem##_##math, math, AT, S, 1),  \
                FOLDED_##call(tsr__k_##elem##_##math, math, AT, S, -1),                   \
                CALL_##call(tsr__k_##elem##_##math, math, AT, S))

/* Every row of one operation, in the families its columns allow. */
#define ROWS_MOVE(ENUM, call, elem, b, i, f, h, c)
#define ROWS_ALPHA ROWS_COMPUTED
#define ROWS_PLAIN ROWS_COMPUTED
#define ROWS_CHECKED ROWS_COMPUTED
#define ROWS_UNARY ROWS_COMPUTED
#define ROWS_WIDTH ROWS_COMPUTED
#define ROWS_VALUE1 ROWS_COMPUTED
#define ROWS_VALUE2 ROWS_COMPUTED
#define ROWS_REPLACE ROWS_COMPUTED
#define ROWS_REDUCE(ENUM, call, elem, b, i, f, h, c) /* libclient/reduce_cpu.c */
/* The element call of three inputs: where and clamp take x, y, z;
 * addcmul and addcdiv a value besides. */
#define CALL3_TERNARY(fn) fn(x, y, z)
#define CALL3_VALUE3(fn) fn(x, y, z, alpha)
#define ROW3_OF(fn, call, elem, family) ROW3_OF_(fn, call, elem, FAMILY_##family)
#define ROW3_OF_(fn, call, elem, ...) ROW3_OF__(fn, call, elem, __VA_ARGS__)
#define ROW3_OF__(fn, call, elem, S, M, IN, OUT, AT, ALPHA, math) \
    ROW3(fn, S, M, IN, OUT, AT, ALPHA, CALL3_##call(tsr__k_##elem##_##math))
#define ROWS_VALUE3 ROWS_TERNARY
#define ROWS_TERNARY(ENUM, call, elem, b, i, f, h, c)                                             \
    IF_##b(ROW3_OF(row_##ENUM##_b8, call, elem, b8)) IF_##i(                                      \
        ROW3_OF(row_##ENUM##_u8, call, elem, u8) ROW3_OF(row_##ENUM##_i8, call, elem, i8)         \
            ROW3_OF(row_##ENUM##_i16, call, elem, i16) ROW3_OF(row_##ENUM##_i32, call, elem, i32) \
                ROW3_OF(row_##ENUM##_i64, call, elem, i64))                                       \
        IF_##f(ROW3_OF(row_##ENUM##_f16, call, elem, f16)                                         \
                   ROW3_OF(row_##ENUM##_bf16, call, elem, bf16)                                   \
                       ROW3_OF(row_##ENUM##_f32, call, elem, f32)                                 \
                           ROW3_OF(row_##ENUM##_f64, call, elem, f64))                            \
            IF_##h(ROW3_OF(row_##ENUM##_c32, call, elem, c32))                                    \
                IF_##c(ROW3_OF(row_##ENUM##_c64, call, elem, c64)                                 \
                           ROW3_OF(row_##ENUM##_c128, call, elem, c128))
#define ROWS_COMPUTED(ENUM, call, elem, b, i, f, h, c)                                          \
    IF_##b(ROW_OF(row_##ENUM##_b8, call, elem, b8)) IF_##i(                                     \
        ROW_OF(row_##ENUM##_u8, call, elem, u8) ROW_OF(row_##ENUM##_i8, call, elem, i8)         \
            ROW_OF(row_##ENUM##_i16, call, elem, i16) ROW_OF(row_##ENUM##_i32, call, elem, i32) \
                ROW_OF(row_##ENUM##_i64, call, elem, i64))                                      \
        IF_##f(ROW_OF(row_##ENUM##_f16, call, elem, f16)                                        \
                   ROW_OF(row_##ENUM##_bf16, call, elem, bf16)                                  \
                       ROW_OF(row_##ENUM##_f32, call, elem, f32)                                \
                           ROW_OF(row_##ENUM##_f64, call, elem, f64))                           \
            IF_##h(ROW_OF(row_##ENUM##_c32, call, elem, c32))                                   \
                IF_##c(ROW_OF(row_##ENUM##_c64, call, elem, c64)                                \
                           ROW_OF(row_##ENUM##_c128, call, elem, c128))

#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    ROWS_##call(ENUM, call, elem, b, i, f, h, c)
#include "core/ops.def"
#undef X

/* float16 and bfloat16 rows try the vector loops of cpu_fast.c first, and
 * float32 and float64 rows theirs for a scalar first input, wherever the
 * operation's `fast` column names the loops' operator. */
static bool reduced_layout(const int64_t st[4])
{
    return st[0] == 2 && (st[1] == 0 || st[1] == 2) && (st[2] == 0 || st[2] == 2);
}

#define REDUCED_FAST(name, DT, OP)                                                               \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               const unsigned char *c, int64_t n, const int64_t st[4],           \
                               const uint8_t *alpha_bytes, int *bad)                             \
    {                                                                                            \
        int fop = tsr__cpu_fast_op_of(OP, DT, alpha_bytes);                                      \
        if (fop >= 0 && reduced_layout(st) &&                                                    \
            tsr__cpu_fast_reduced(DT, (tsr__cpu_fast_op)fop, (uint16_t *)o, (const uint16_t *)a, \
                                  st[1] / 2, (const uint16_t *)b, st[2] / 2, n))                 \
            return n;                                                                            \
        return name(o, a, b, c, n, st, alpha_bytes, bad);                                        \
    }

/* The row of a broadcast a[N, 1] + b[1, M], whose first input is one
 * element, which the loops above leave to the strided loop. */
#define SCALAR_FIRST_FAST(name, S, DT, OP)                                                       \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               const unsigned char *c, int64_t n, const int64_t st[4],           \
                               const uint8_t *alpha_bytes, int *bad)                             \
    {                                                                                            \
        int fop = tsr__cpu_fast_op_of(OP, DT, alpha_bytes);                                      \
        if (fop >= 0 && st[0] == (int64_t)sizeof(S) && st[1] == 0 &&                             \
            st[2] == (int64_t)sizeof(S) &&                                                       \
            tsr__cpu_fast_scalar_first(DT, (tsr__cpu_fast_op)fop, o, a, b, n))                   \
            return n;                                                                            \
        return name(o, a, b, c, n, st, alpha_bytes, bad);                                        \
    }

/* A unary row of a floating family whose operands are contiguous: the
 * loops of cpu_unary.c where the machine has them. */
#define UNARY_FAST(name, S, DT, OP)                                                              \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               const unsigned char *c, int64_t n, const int64_t st[4],           \
                               const uint8_t *alpha_bytes, int *bad)                             \
    {                                                                                            \
        if (st[0] == (int64_t)sizeof(S) && st[1] == (int64_t)sizeof(S) &&                        \
            tsr__cpu_fast_unary(OP, DT, o, a, n))                                                \
            return n;                                                                            \
        return name(o, a, b, c, n, st, alpha_bytes, bad);                                        \
    }
#define IF_CALL_UNARY(...) __VA_ARGS__
#define IF_CALL_MOVE(...)
#define IF_CALL_ALPHA(...)
#define IF_CALL_PLAIN(...)
#define IF_CALL_CHECKED(...)
#define IF_CALL_WIDTH(...)
#define IF_CALL_TERNARY(...)
#define IF_CALL_VALUE1(...)
#define IF_CALL_VALUE2(...)
#define IF_CALL_VALUE3(...)
#define IF_CALL_REDUCE(...)
#define IF_CALL_REPLACE(...)

/* float16 and bfloat16: the table of every result first (cpu_table.c),
 * at any stride. */
#define UNARY_FAST16(name, DT, OP)                                                               \
    static int64_t name##_fast(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                               const unsigned char *c, int64_t n, const int64_t st[4],           \
                               const uint8_t *alpha_bytes, int *bad)                             \
    {                                                                                            \
        if (tsr__cpu_table_row(OP, DT, name, o, a, n, st) ||                                     \
            (st[0] == 2 && st[1] == 2 && tsr__cpu_fast_unary(OP, DT, o, a, n)))                  \
            return n;                                                                            \
        return name(o, a, b, c, n, st, alpha_bytes, bad);                                        \
    }
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    IF_CALL_##call(                                                                        \
        IF_##f(UNARY_FAST16(row_##ENUM##_f16, TSR_FLOAT16, TSR__KOP_##ENUM)                \
                   UNARY_FAST16(row_##ENUM##_bf16, TSR_BFLOAT16, TSR__KOP_##ENUM)          \
                       UNARY_FAST(row_##ENUM##_f32, float, TSR_FLOAT32, TSR__KOP_##ENUM)   \
                           UNARY_FAST(row_##ENUM##_f64, double, TSR_FLOAT64, TSR__KOP_##ENUM)))
#include "core/ops.def"
#undef X

#define IF_FAST_NONE(...)
#define IF_FAST_ALPHA(...) __VA_ARGS__
#define IF_FAST_MUL(...) __VA_ARGS__
#define IF_FAST_DIV(...) __VA_ARGS__
#define FAST_NAME_NONE(name) name
#define FAST_NAME_ALPHA(name) name##_fast
#define FAST_NAME_MUL(name) name##_fast
#define FAST_NAME_DIV(name) name##_fast
#define FAST_NAME_UNARY(name) name##_fast

#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    IF_##f(IF_FAST_##fast(                                                                 \
        REDUCED_FAST(row_##ENUM##_f16, TSR_FLOAT16, TSR__KOP_##ENUM)                       \
            REDUCED_FAST(row_##ENUM##_bf16, TSR_BFLOAT16, TSR__KOP_##ENUM)                 \
                SCALAR_FIRST_FAST(row_##ENUM##_f32, float, TSR_FLOAT32, TSR__KOP_##ENUM)   \
                    SCALAR_FIRST_FAST(row_##ENUM##_f64, double, TSR_FLOAT64, TSR__KOP_##ENUM)))
#include "core/ops.def"
#undef X

/* ---- copy and fill: elements moved as bytes of their width --------------- */

typedef struct bytes16 {
    uint64_t lo, hi;
} bytes16;

#define MOVE_ROWS(width, T)                                                                       \
    static int64_t copy_##width(unsigned char *o, const unsigned char *a, const unsigned char *b, \
                                const unsigned char *c, int64_t n, const int64_t st[4],           \
                                const uint8_t *alpha, int *bad)                                   \
    {                                                                                             \
        (void)b, (void)c, (void)alpha, (void)bad;                                                 \
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
                                const unsigned char *c, int64_t n, const int64_t st[4],           \
                                const uint8_t *alpha, int *bad)                                   \
    {                                                                                             \
        (void)a, (void)c, (void)alpha, (void)bad;                                                 \
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

#define TABLE_MOVE(ENUM, fast, b, i, f, h, c)
#define TABLE_ALPHA TABLE_COMPUTED
#define TABLE_PLAIN TABLE_COMPUTED
#define TABLE_CHECKED TABLE_COMPUTED
#define TABLE_UNARY(ENUM, fast, b, i, f, h, c) TABLE_COMPUTED(ENUM, UNARY, b, i, f, h, c)
#define TABLE_WIDTH TABLE_COMPUTED
#define TABLE_TERNARY TABLE_COMPUTED
#define TABLE_VALUE1 TABLE_COMPUTED
#define TABLE_VALUE2 TABLE_COMPUTED
#define TABLE_VALUE3 TABLE_COMPUTED
#define TABLE_REPLACE TABLE_COMPUTED
#define TABLE_REDUCE(ENUM, fast, b, i, f, h, c)
#define TABLE_COMPUTED(ENUM, fast, b, i, f, h, c)                       \
    [TSR__KOP_##ENUM] = {                                               \
        [TSR_BOOL] = PICK_##b(row_##ENUM##_b8),                         \
        [TSR_UINT8] = PICK_##i(row_##ENUM##_u8),                        \
        [TSR_INT8] = PICK_##i(row_##ENUM##_i8),                         \
        [TSR_INT16] = PICK_##i(row_##ENUM##_i16),                       \
        [TSR_INT32] = PICK_##i(row_##ENUM##_i32),                       \
        [TSR_INT64] = PICK_##i(row_##ENUM##_i64),                       \
        [TSR_FLOAT16] = PICK_##f(FAST_NAME_##fast(row_##ENUM##_f16)),   \
        [TSR_BFLOAT16] = PICK_##f(FAST_NAME_##fast(row_##ENUM##_bf16)), \
        [TSR_FLOAT32] = PICK_##f(FAST_NAME_##fast(row_##ENUM##_f32)),   \
        [TSR_FLOAT64] = PICK_##f(FAST_NAME_##fast(row_##ENUM##_f64)),   \
        [TSR_COMPLEX32] = PICK_##h(row_##ENUM##_c32),                   \
        [TSR_COMPLEX64] = PICK_##c(row_##ENUM##_c64),                   \
        [TSR_COMPLEX128] = PICK_##c(row_##ENUM##_c128),                 \
    },

static const tsr__kernel_row computed_rows[TSR__KOP_COUNT][TSR_DTYPE_COUNT] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    TABLE_##call(ENUM, fast, b, i, f, h, c)
#include "core/ops.def"
#undef X
};

/* copy and fill: by the element's width. */
#define MOVES_MOVE(ENUM, elem) \
    [TSR__KOP_##ENUM] = {      \
        [1] = elem##_1, [2] = elem##_2, [4] = elem##_4, [8] = elem##_8, [16] = elem##_16},
#define MOVES_ALPHA(ENUM, elem)
#define MOVES_PLAIN(ENUM, elem)
#define MOVES_CHECKED(ENUM, elem)
#define MOVES_UNARY(ENUM, elem)
#define MOVES_WIDTH(ENUM, elem)
#define MOVES_TERNARY(ENUM, elem)
#define MOVES_VALUE1(ENUM, elem)
#define MOVES_VALUE2(ENUM, elem)
#define MOVES_VALUE3(ENUM, elem)
#define MOVES_REPLACE(ENUM, elem)
#define MOVES_REDUCE(ENUM, elem)

static const tsr__kernel_row move_rows[TSR__KOP_COUNT][17] = {
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, b, i, f, h, c, ...) \
    MOVES_##call(ENUM, elem)
#include "core/ops.def"
#undef X
};

tsr__kernel_row tsr__kernel_row_for(tsr__kernel_op op, tsr_dtype common)
{
    if (!tsr_dtype_is_valid(common) || tsr__kernel_op_info_of(op) == NULL)
        return NULL;
    size_t w = tsr_dtype_itemsize(common);
    if (w < 17 && move_rows[op][w] != NULL)
        return move_rows[op][w];
    if (common == TSR_FLOAT16 && tsr__kernel_op_has(op, TSR__KOPF_NO_HALF))
        return NULL;
    return computed_rows[op][common];
}

const char *tsr__kernel_op_stub(tsr__kernel_op op)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    return info ? info->stub : "unknown_op";
}

tsr_status tsr__kernel_check_compute(tsr__kernel_op op, tsr_dtype common)
{
    if (tsr__kernel_op_info_of(op) == NULL)
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
