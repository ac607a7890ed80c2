/* kernels: the elementwise operations of Tessera, written once.
 *
 * kernels/scalar_ops.h defines each operation on one element, for host C
 * and OpenCL C alike. This header is the host side: which dtypes each
 * operation computes in (with PyTorch's refusal for the others), how
 * alpha travels in a tsr__kernel, the element conversions the cpu loops
 * use between an operand's dtype and the common dtype, and the row loops
 * the cpu device runs (kernels/cpu_exec.c walks a planned kernel and
 * hands them rows). opencl/source.h generates the OpenCL side.
 *
 * Pure C: no I/O, no allocation. */
#ifndef TESSERA_KERNELS_KERNELS_H
#define TESSERA_KERNELS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "tessera/dtype.h"
#include "tessera/status.h"

/* The name PyTorch's dispatch reports an operation under (core/ops.def's
 * stub column): "add_stub" (add and sub), "mul_cpu", "div_cpu", ... */
const char *tsr__kernel_op_stub(tsr__kernel_op op);

/* Whether `op` computes in `common`: TSR_OK, or TSR_ERR_NOT_SUPPORTED with
 * PyTorch's "\"div_trunc_cpu\" not implemented for 'Bool'". COPY and FILL
 * take every dtype; the others the dtype families their row in
 * core/ops.def says Y to (PyTorch 1.13's: no bool or complex trunc/floor
 * division, no complex32 true division, ...). True division never sees an
 * integer common dtype: the planner promotes it to the default dtype
 * first. */
tsr_status tsr__kernel_check_compute(tsr__kernel_op op, tsr_dtype common);

/* The math type's bytes of one element of `common` (tsr__kernel.alpha's
 * form): integers and bool as an int64, float16/bfloat16/float32 as a
 * float, float64 as a double, complex32/complex64 as two floats,
 * complex128 as two doubles; little-endian, the rest zero. */
void tsr__kernel_alpha_from_element(tsr_dtype common, const void *element, uint8_t alpha[16]);

/* n contiguous elements of src_dtype -> dst_dtype with tsr_cast_buffer's
 * rules, except that every NaN reaching bfloat16 from float64 becomes
 * FFFF as from float32 (tsr_cast_buffer gives the last n % 16 elements of
 * a call 7FC0; an element's result must not depend on its position).
 * This is the conversion every kernel uses, on every device. Errors:
 * tsr_cast_buffer's. */
tsr_status tsr__kernel_convert(const void *src, tsr_dtype src_dtype, void *dst, tsr_dtype dst_dtype,
                               size_t n);

/* One row of an operation in the common dtype: n elements, each operand
 * at its own byte stride (0: the same element throughout), the output
 * first. `alpha` is tsr__kernel.alpha (ADD/SUB) and unused otherwise.
 * SUB computes in1 + alpha * in2 exactly as ADD does: the planner stores
 * -alpha for it, negated as a Python number before the conversion (as
 * PyTorch's sub calls add_stub with -alpha: an integer alpha negates to
 * (-a, +0) in a complex dtype, not (-a, -0)). Integer division stops
 * before the first zero divisor (as PyTorch's loop throws there) and sets
 * *bad. COPY copies elements of the common dtype (b unused); FILL writes
 * the element at `b` (a unused). `c` is the third input of an operation
 * that has one (where), and unused otherwise (strides[3] too). Returns the elements written: n, or the
 * index of the zero divisor. */
typedef int64_t (*tsr__kernel_row)(unsigned char *out, const unsigned char *a,
                                   const unsigned char *b, const unsigned char *c, int64_t n,
                                   const int64_t strides[4], const uint8_t *alpha, int *bad);

/* What a row's `alpha` argument points at: the kernel's alpha, or for a
 * REPLACE row (nan_to_num) its three numbers, the 32 bytes from `scalar`
 * (core/kernel.h). */
static inline const uint8_t *tsr__kernel_row_alpha(const tsr__kernel *k)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(k->op);
    return info && info->replace ? k->scalar : k->alpha;
}

/* The row loop of `op` in `common`, or NULL where tsr__kernel_check_compute
 * refuses it. */
tsr__kernel_row tsr__kernel_row_for(tsr__kernel_op op, tsr_dtype common);

#endif /* TESSERA_KERNELS_KERNELS_H */
