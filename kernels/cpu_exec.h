/* Internal: whole kernels on the host. libtessera's cpu device runs its
 * launches here, and so does the daemon on a device that is this
 * machine's own CPU computing in host memory (an OpenCL CPU device with
 * native kernels: opencl/runtime.c), so both give the same bits by
 * construction.
 *
 * host[k] is operand k's storage base (the operands' element offsets are
 * applied here; a scalar operand's is ignored). `threads` bounds the
 * threads of kernels/threadpool.h the work is cut for, the caller
 * included (0: all of the pool's). */
#ifndef TESSERA_KERNELS_CPU_EXEC_H
#define TESSERA_KERNELS_CPU_EXEC_H

#include "core/kernel.h"
#include "tessera/status.h"

/* An elementwise kernel (any op of core/ops.def without
 * TSR__KOPF_REDUCE, FILL and COPY included). Integer division by zero is
 * TSR_ERR_RUNTIME "ZeroDivisionError" (elements before it may be written,
 * as in PyTorch). */
tsr_status tsr__host_elementwise(const tsr__kernel *k,
                                 unsigned char *const host[TSR__KERNEL_MAX_OPERANDS], int threads);

/* A reduction (TSR__KOPF_REDUCE), as kernels/cpu_reduce.h walks it. */
tsr_status tsr__host_reduce(const tsr__kernel *k, unsigned char *const host[TSR__KERNEL_MAX_OPERANDS],
                            int threads);

#endif /* TESSERA_KERNELS_CPU_EXEC_H */
