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

/* The same for a piece of a launch of `whole` elements (tsr__host_piece):
 * how its output is stored follows the whole launch's size (a long
 * output goes around the caches, piece after piece). */
tsr_status tsr__host_elementwise_part(const tsr__kernel *k,
                                      unsigned char *const host[TSR__KERNEL_MAX_OPERANDS],
                                      int threads, int64_t whole);

/* Where a host run is cut into pieces (the daemon gives a device's queue
 * one piece of a long launch per turn): an elementwise kernel along its
 * outermost dimension of more than one element, in runs of *rows
 * indices holding about TSR__KERNEL_PIECE_ELEMENTS elements (at least
 * one index). Returns the number of pieces, 1 where nothing is cut (a
 * reduction runs whole: a piece of its outputs would read its input in
 * shorter runs). */
uint64_t tsr__host_pieces(const tsr__kernel *k, int *dim, int64_t *rows);

/* Piece `index` of such a cut: k over indices [index * rows, ...) of
 * `dim`, its operands' element offsets moved there. */
void tsr__host_piece(const tsr__kernel *k, int dim, int64_t rows, uint64_t index,
                     tsr__kernel *piece);

/* A reduction (TSR__KOPF_REDUCE), as kernels/cpu_reduce.h walks it. */
tsr_status tsr__host_reduce(const tsr__kernel *k, unsigned char *const host[TSR__KERNEL_MAX_OPERANDS],
                            int threads);

#endif /* TESSERA_KERNELS_CPU_EXEC_H */
