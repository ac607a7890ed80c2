/* Internal: the one planner of every elementwise operation, PyTorch's
 * TensorIterator in C.
 *
 * plan.c turns (output, inputs) into a tsr__kernel: it checks what
 * TensorIterator checks, in its order (memory overlap, broadcasting,
 * result dtype, devices, the out= cast, the output's shape), allocates or
 * resizes the output with TensorIterator's layout choice, orders the
 * dimensions by the operands' strides and coalesces them. Then it runs
 * the kernel where the tensors live: kernels/cpu_exec.c on the cpu (and on the
 * host mapping of host-visible accelerator memory, for copies between
 * devices), the daemon for accelerators, nothing for meta. */
#ifndef TESSERA_LIBCLIENT_PLAN_H
#define TESSERA_LIBCLIENT_PLAN_H

#include <stdbool.h>

#include "core/kernel.h"
#include "libclient/tensor_internal.h"

/* How an operation gets its output. */
typedef enum tsr__out_mode {
    TSR__OUT_NEW,     /* allocate it (torch.add(a, b)) */
    TSR__OUT_GIVEN,   /* out= */
    TSR__OUT_INPLACE, /* the first input (a.add_(b)) */
} tsr__out_mode;

/* A planned kernel with what running it needs. */
typedef struct tsr__plan {
    tsr__kernel kernel;
    tsr_device device;                             /* cpu, meta, or an indexed accelerator */
    tsr_client *client;                            /* accelerators */
    unsigned char *host[TSR__KERNEL_MAX_OPERANDS]; /* storage bases on the host (cpu) */
    int64_t numel;
} tsr__plan;

/* Every computing operation of core/ops.def in all its forms. b is a
 * tensor, or NULL with b_scalar set (a Python number), or both NULL for
 * an operation of one input; alpha is add/sub's, or the Python number
 * of an operation that takes one (TSR__KOPF_VALUE: lerp's weight), NULL
 * otherwise.
 * mode NEW writes *result; GIVEN writes `out`; INPLACE writes `a` (out
 * must be a). */
tsr_status tsr__binary_op(tsr__kernel_op op, const tsr_tensor *a, const tsr_tensor *b,
                          const tsr_scalar *b_scalar, const tsr_scalar *alpha, tsr__out_mode mode,
                          tsr_tensor *out, tsr_tensor **result);

/* An operation of one input and three numbers (call REPLACE: nan_to_num),
 * the numbers as core/kernel.h lays them in `scalar` and `alpha` (32
 * bytes). Modes as tsr__binary_op's. */
tsr_status tsr__replace_op(tsr__kernel_op op, const tsr_tensor *a, const uint8_t numbers[32],
                           tsr__out_mode mode, tsr_tensor *out, tsr_tensor **result);

/* An operation of three inputs (where, clamp, lerp, addcmul, addcdiv): a
 * tensor, then each a tensor or NULL with its scalar set (a Python
 * number); input 1 is a condition tensor where the row says so. `value`
 * is the Python number of an operation that takes one (addcmul's value),
 * NULL otherwise. Modes as tsr__binary_op's. */
tsr_status tsr__ternary_op(tsr__kernel_op op, const tsr_tensor *a, const tsr_tensor *b,
                           const tsr_scalar *b_scalar, const tsr_tensor *c,
                           const tsr_scalar *c_scalar, const tsr_scalar *value, tsr__out_mode mode,
                           tsr_tensor *out, tsr_tensor **result);

/* dst.copy_(src), on any devices (see tessera/ops.h). */
tsr_status tsr__copy(tsr_tensor *dst, const tsr_tensor *src);

/* t.fill_(value). */
tsr_status tsr__fill(tsr_tensor *t, tsr_scalar value);

/* out= with no elements and the wrong shape takes fresh's storage and
 * geometry (a new tensor of the right shape); fresh is released. */
void tsr__plan_adopt_storage(tsr_tensor *out, tsr_tensor *fresh);

/* Orders dimensions as TensorIterator does and coalesces them: on entry
 * kernel->ndim, sizes and every operand's strides (in elements) in the
 * tensors' own order; on exit innermost last, merged where every operand
 * allows, size-1 dimensions gone. */
void tsr__plan_coalesce(tsr__kernel *kernel);

#endif /* TESSERA_LIBCLIENT_PLAN_H */
