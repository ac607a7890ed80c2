/* Fast paths of the cpu device: loops specialised for the layouts and
 * dtypes that carry most of the traffic, each giving exactly the bits of
 * the generic loop it stands in for (kernels/cpu_loops.c and
 * tsr__kernel_convert).
 *
 * Where two NaNs meet in add, sub, mul or div, the first input's NaN
 * (quieted) is the result, as x86 gives its first source and as the
 * generic loops give it wherever they keep the operands in order (PyTorch
 * 1.13's float16 and bfloat16 loops do too). These loops say so
 * explicitly: C lets a compiler swap the operands of + and *, and GCC
 * does in some remainder loops of the generic code, whose NaN then
 * depends on the element's position.
 *
 *   - float16 and bfloat16 rows (add and sub with alpha +-1, mul, div),
 *     contiguous or with a scalar operand, converted to float32 in
 *     vectors (F16C for float16), computed in float32 and rounded once,
 *     NaNs given the bits of the scalar constructors (float16 s|7E00,
 *     bfloat16 7FC0);
 *   - unary rows of the floating dtypes (tsr__cpu_fast_unary), and
 *     those of float16 and bfloat16 as lookups in a table of every
 *     result (tsr__cpu_table_row);
 *   - float32 and float64 rows whose first input is a scalar (the row of
 *     a broadcast a[N, 1] + b[1, M]);
 *   - the same operations in float32 and float64 on contiguous or single-
 *     element inputs, stored around the caches as they are computed (the
 *     streamed rows of kernels/cpu_exec.c);
 *   - float32 rows with an int32 input, converted and computed in one
 *     pass;
 *   - float32 comparisons written straight into bools, and float32 where
 *     read straight from its bool condition (no float32 block between),
 *     and float32 relu and abs, stored around the caches as they are
 *     computed where the output streams;
 *   - conversions that the mixed-dtype blocks of kernels/cpu_exec.c and
 *     the reductions (kernels/cpu_reduce.c, cpu_reduce_ops.c) use
 *     (integers -> float32, int32 -> float64, bool and the integers ->
 *     int64, float16/bfloat16 <-> float32, float32 -> float64);
 *   - the transpose of a tile, which lets a transposed operand be read
 *     along its rows;
 *   - prefetches, and stores that go around the caches, for the walks of
 *     kernels/cpu_exec.c.
 *
 * Each returns false (or does nothing) where it does not apply, and the
 * caller then takes the generic loop. Tests turn the whole set off with
 * tsr__cpu_fast_enable(false) and compare. */
#ifndef TESSERA_KERNELS_CPU_FAST_H
#define TESSERA_KERNELS_CPU_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "kernels/kernels.h"
#include "tessera/dtype.h"

/* Whether the fast paths run (true unless turned off). Meant for tests:
 * switch it only while no operation runs. */
void tsr__cpu_fast_enable(bool on);
bool tsr__cpu_fast_enabled(void);

typedef enum tsr__cpu_fast_op {
    TSR__FAST_ADD, /* x + y (add with alpha 1, sub with alpha -1) */
    TSR__FAST_SUB, /* x - y (add with alpha -1, sub with alpha 1) */
    TSR__FAST_MUL,
    TSR__FAST_DIV, /* true division */
} tsr__cpu_fast_op;

/* The operator whose loops compute operation `op` in `common` with this
 * alpha (tsr__kernel.alpha), or -1: core/ops.def's `fast` column, with
 * add and sub taking ADD or SUB where alpha is 1 or -1. */
int tsr__cpu_fast_op_of(tsr__kernel_op op, tsr_dtype common, const uint8_t alpha[16]);

/* n elements of a float16 or bfloat16 row: o[i] = a[i * sa] op b[i * sb],
 * sa and sb 0 (a scalar) or 1, the output contiguous. False when this
 * machine or dtype has no fast loop. */
bool tsr__cpu_fast_reduced(tsr_dtype dtype, tsr__cpu_fast_op op, uint16_t *o, const uint16_t *a,
                           int64_t sa, const uint16_t *b, int64_t sb, int64_t n);

/* n elements of a float32 or float64 row whose first input is one
 * element: o[i] = *x op b[i], o and b contiguous. False for other
 * dtypes. */
bool tsr__cpu_fast_scalar_first(tsr_dtype dtype, tsr__cpu_fast_op op, void *o, const void *x,
                                const void *b, int64_t n);

/* n elements of a float32 or float64 row o[i] = a[i * sa] op b[i * sb],
 * sa and sb 1 or 0 (one element), not both 0, o contiguous, stored
 * around the caches (call tsr__cpu_stream_fence before anyone reads it):
 * the bits of the loops that store normally, the first input's NaN
 * (quieted) where two meet. False for other dtypes or strides, or where
 * this machine has no such stores. */
bool tsr__cpu_fast_stream_op(tsr_dtype dtype, tsr__cpu_fast_op op, void *o, const void *a,
                             int64_t sa, const void *b, int64_t sb, int64_t n);

/* n elements of a float32 row with int32 and float32 inputs (one of
 * each): o[i] = float(a[i * sa]) op float(b[i * sb]), sa and sb 0 or 1,
 * o contiguous; the bits of converting the int32 input in blocks and
 * running the float32 loop. False for any other pair of dtypes. */
bool tsr__cpu_fast_mixed(tsr__cpu_fast_op op, float *o, const void *a, tsr_dtype a_dtype,
                         int64_t sa, const void *b, tsr_dtype b_dtype, int64_t sb, int64_t n);

/* n elements of a float32 comparison (eq, ne, lt, le, gt, ge) into
 * bools: o[i] = a[i * sa] op b[i * sb], sa and sb 0 (a scalar) or 1, o
 * contiguous; 1 where it holds, 0 where not (a NaN compares as C's
 * operators have it), the bits of the float32 row converted to bool.
 * With `stream` the output goes around the caches (call
 * tsr__cpu_stream_fence before anyone reads it). False for any other
 * operation or dtype, or without AVX2. */
bool tsr__cpu_fast_compare(tsr__kernel_op op, tsr_dtype dtype, uint8_t *o, const void *a,
                           int64_t sa, const void *b, int64_t sb, int64_t n, bool stream);

/* n contiguous elements of a float32 where with a bool condition:
 * o[i] = c[i] != 0 ? a[i] : b[i], the elements moved unchanged (NaNs
 * included); `stream` as for tsr__cpu_fast_compare. False for other
 * dtypes or without AVX2. */
bool tsr__cpu_fast_where(tsr_dtype dtype, void *o, const uint8_t *c, const void *a, const void *b,
                         int64_t n, bool stream);

/* n contiguous elements of unary operation `op` (core/ops.def's UNARY
 * rows) computed in `dtype`, float16, bfloat16, float32 or float64 (the
 * row loops' storage): o[i] = op(a[i]) with the generic row's bits. On a
 * cpu with AVX2, FMA and F16C (cpu_unary.c): exp, log, tanh and sigmoid
 * of float32 and bfloat16 in vectors, every other such row as the
 * generic loop compiled with those instructions (fmaf one instruction
 * instead of a call). False elsewhere. */
bool tsr__cpu_fast_unary(tsr__kernel_op op, tsr_dtype dtype, void *o, const void *a, int64_t n);

/* Whether a float16 or bfloat16 row of `op` may be read from a table
 * (cpu_table.c): an operation of one input and no parameter (call UNARY
 * in core/ops.def) of the floating family whose result has the input's
 * dtype (not isnan's bools), in a dtype it computes in (not float16
 * where the row says NO_HALF). */
bool tsr__cpu_table_covers(tsr__kernel_op op, tsr_dtype dtype);

/* n elements of such a row, out[i] = op(in[i]) at the byte strides
 * st[0] (output) and st[1] (input), from the table of (op, dtype): the
 * results of `generic`, the operation's generic row loop (or of the
 * vector row of tsr__cpu_fast_unary that stands in for it), over all
 * 65536 inputs, computed once on first need. False, nothing written,
 * where the fast paths are off, the row is not covered, or the table is
 * not there: it is filled by the row that brings the elements computed
 * without it to 65536, and until then the caller computes; and kept
 * only where a lookup is faster than the row (timed then, once), else
 * the caller computes for good. */
bool tsr__cpu_table_row(tsr__kernel_op op, tsr_dtype dtype, tsr__kernel_row generic,
                        unsigned char *o, const unsigned char *a, int64_t n, const int64_t st[4]);

/* Whether the table of (op, dtype) has been filled and kept (for
 * tests). */
bool tsr__cpu_table_ready(tsr__kernel_op op, tsr_dtype dtype);

/* Tables filled while this is on are kept however fast the row was, so
 * that tests can read every one. Off by default. */
void tsr__cpu_table_keep_all(bool on);

/* n contiguous elements of float32 relu or abs (with AVX2), or of a
 * float32 vector row of cpu_unary.c (exp, log, tanh, sigmoid, silu, gelu
 * in both forms; with AVX2, FMA and F16C), o[i] = op(a[i]) with the
 * generic row's bits, for a long output: relu's and abs' stored around
 * the caches as they are computed (call tsr__cpu_stream_fence before
 * anyone reads them), the vector rows' plainly (cpu_unary.c says why).
 * False for other operations or dtypes, or on other cpus. */
bool tsr__cpu_fast_stream_unary(tsr__kernel_op op, tsr_dtype dtype, void *o, const void *a,
                                int64_t n);

/* cpu_unary.c's rows, [op][family] (float16, bfloat16, float32,
 * float64), NULL where it has none: compiled for AVX2, FMA and F16C, to
 * be called only through tsr__cpu_fast_unary. */
#define TSR__CPU_UNARY_FAMILIES 4
typedef void (*tsr__cpu_unary_fn)(void *o, const void *a, int64_t n);
extern const tsr__cpu_unary_fn tsr__cpu_unary_scalar[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES];
extern const tsr__cpu_unary_fn tsr__cpu_unary_vector[TSR__KOP_COUNT][TSR__CPU_UNARY_FAMILIES];

/* tsr__kernel_convert of n contiguous elements for the pairs listed
 * above; false for any other pair (nothing written). */
bool tsr__cpu_fast_convert(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                           size_t n);

/* dst[r * dst_row + c] = src[c * src_row + r] for r < rows, c < cols:
 * elements of `width` bytes (1, 2, 4, 8 or 16), row strides in elements.
 * The two must not overlap. */
void tsr__cpu_transpose(unsigned char *dst, int64_t dst_row, const unsigned char *src,
                        int64_t src_row, int64_t rows, int64_t cols, size_t width);

/* Asks for the cache lines of [p, p + bytes) to be loaded (a hint). */
void tsr__cpu_prefetch(const unsigned char *p, size_t bytes);

/* Whether non-temporal stores exist here; without them
 * tsr__cpu_stream_store is a memcpy. */
bool tsr__cpu_stream_available(void);

/* The output size from which the cpu device stores around the caches:
 * 0 (the default) lets kernels/cpu_exec.c choose from the cache sizes;
 * tests set it low to run the path on small tensors. */
void tsr__cpu_stream_threshold_set(int64_t bytes);
int64_t tsr__cpu_stream_threshold(void);

/* memcpy of `bytes` bytes (no overlap) whose whole cache lines at dst go
 * to memory without passing through the caches (non-temporal stores),
 * for outputs too large to stay there. Such stores are weakly ordered:
 * the thread calls tsr__cpu_stream_fence before anyone else may read. */
void tsr__cpu_stream_store(unsigned char *dst, const unsigned char *src, size_t bytes);
void tsr__cpu_stream_fence(void);

#endif /* TESSERA_KERNELS_CPU_FAST_H */
