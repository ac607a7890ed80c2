/* An elementwise kernel, planned: what libclient's planner produces, what
 * the cpu loops run, what travels to the daemon in a LAUNCH request and
 * what the daemon checks again before it runs the OpenCL program that
 * kernels/ generates for it.
 *
 * The plan is already broadcast and coalesced: every operand is walked
 * over the same `ndim` sizes (innermost dimension last) with its own
 * strides, in elements of its own dtype; a broadcast dimension has stride
 * 0. Operand 0 is the output; operands 1.. are the inputs. An input may be
 * a scalar (TSR__KOPERAND_SCALAR: a Python number or a zero-dim cpu
 * tensor), whose value travels in `scalar` already converted to the
 * common dtype, and which has no storage, offset or strides.
 *
 * Values: every input is converted from its dtype to the common dtype (the
 * result_type), widened to the common dtype's math type (float32 for
 * float16/bfloat16, complex64 for complex32, itself otherwise), combined,
 * rounded back to the common dtype and converted to the output's dtype.
 *
 * The layout is fixed-size little-endian with no padding (the static
 * assertions in core/protocol.c hold it), so the struct is its own wire
 * form. */
#ifndef TESSERA_CORE_KERNEL_H
#define TESSERA_CORE_KERNEL_H

#include <stdint.h>

#include "tessera/layout.h"

#define TSR__KERNEL_MAX_OPERANDS 3

typedef enum tsr__kernel_op {
    TSR__KOP_COPY = 1,  /* out = in1 (converted); the planner's copy_, clone, contiguous, to */
    TSR__KOP_FILL = 2,  /* out = scalar (the value is already in the output's dtype); no inputs */
    TSR__KOP_ADD = 3,   /* out = in1 + alpha * in2 */
    TSR__KOP_SUB = 4,   /* out = in1 + alpha * in2 with alpha already negated (as a Python
                           number, before its conversion): computed exactly as ADD */
    TSR__KOP_MUL = 5,   /* out = in1 * in2 */
    TSR__KOP_DIV = 6,   /* true division */
    TSR__KOP_DIV_TRUNC = 7,
    TSR__KOP_DIV_FLOOR = 8,
    TSR__KOP_COUNT
} tsr__kernel_op;

enum {
    TSR__KOPERAND_SCALAR = 1u << 0,
};

typedef struct tsr__kernel_operand {
    uint32_t dtype;  /* tsr_dtype */
    uint32_t flags;  /* TSR__KOPERAND_* */
    uint64_t handle; /* the daemon's allocation handle (accelerators); 0 on cpu */
    int64_t offset;  /* elements from the start of the allocation to index 0 */
    int64_t strides[TSR_MAX_DIMS];
} tsr__kernel_operand;

typedef struct tsr__kernel {
    uint32_t op;        /* tsr__kernel_op */
    uint32_t common;    /* tsr_dtype the inputs meet in (FILL, COPY: the output's) */
    int32_t ndim;       /* 0..TSR_MAX_DIMS; 0 means one element */
    uint32_t noperands; /* output + inputs: 1 for FILL, 2 for COPY, 3 for the arithmetic */
    int64_t sizes[TSR_MAX_DIMS];
    uint8_t scalar[16]; /* the scalar input's value in `common` (FILL: in the output dtype) */
    uint8_t alpha[16];  /* add/sub's alpha, little-endian, in common's math type: int64 for
                           bool and the integers, float32 for float16/bfloat16/float32 (already
                           rounded to the dtype), double for float64, two floats for
                           complex32/complex64, two doubles for complex128 */
    tsr__kernel_operand operands[TSR__KERNEL_MAX_OPERANDS];
} tsr__kernel;

/* ---- The OpenCL program ABI (kernels/ generates, the daemon launches) ----
 *
 * One program per tsr__kernel_key, one kernel named "tsr_kernel" in it,
 * built with "-cl-fp32-correctly-rounded-divide-sqrt" where the device
 * supports it and never with fast-math flags (no contraction: the source
 * says #pragma OPENCL FP_CONTRACT OFF). Arguments, in order:
 *   for each operand with storage, output first:
 *     __global uchar *base, ulong offset_bytes
 *   ulong2 scalar   (the bytes of tsr__kernel.scalar, low half first)
 *   ulong2 alpha    (the bytes of tsr__kernel.alpha)
 *   __global int *status (the daemon zeroes it; a kernel that meets an
 *                   integer division by zero stores 1)
 *   then by shape:
 *     LINEAR: ulong n                  NDRange (n)
 *     TILE2:  for each operand with storage: long stride_inner, long stride_outer;
 *             ulong n_inner, ulong n_outer     NDRange (n_inner, n_outer)
 *     STRIDED: __global const long *geom, int ndim, ulong n   NDRange (n)
 *             geom = sizes[ndim] then, per operand with storage, strides[ndim]
 * Strides are in elements of the operand's dtype. */
typedef enum tsr__kernel_shape {
    TSR__KSHAPE_LINEAR = 0,  /* every operand with storage has unit stride over one dimension */
    TSR__KSHAPE_TILE2 = 1,   /* two dimensions, any strides */
    TSR__KSHAPE_STRIDED = 2, /* 3..TSR_MAX_DIMS dimensions */
} tsr__kernel_shape;

/* What a program is built for: two kernels with equal keys share it. */
typedef struct tsr__kernel_key {
    uint8_t op;
    uint8_t shape;
    uint8_t common;
    uint8_t noperands;
    uint8_t dtypes[TSR__KERNEL_MAX_OPERANDS]; /* 0xff: a scalar input */
    uint8_t reserved;
} tsr__kernel_key;

#endif /* TESSERA_CORE_KERNEL_H */
