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
 * common dtype, and which has no storage, offset or strides. A kernel has
 * at most two scalar inputs, and only an operation without alpha two: the
 * second one's value (the later operand) travels in `alpha`, as an element
 * of the common dtype like the first.
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/layout.h"

#define TSR__KERNEL_MAX_OPERANDS 4

/* The operations, one per row of core/ops.def (which says what each
 * column means). COPY: out = in1 converted (the planner's copy_, clone,
 * contiguous, to); FILL: out = scalar, already in the output's dtype;
 * ADD: out = in1 + alpha * in2; SUB: the same with alpha already negated
 * (as a Python number, before its conversion), computed exactly as ADD;
 * DIV, DIV_TRUNC, DIV_FLOOR: true, truncating and floor division; the
 * others: the PyTorch function of their name. */
typedef enum tsr__kernel_op {
#define X(ENUM, wire, ...) TSR__KOP_##ENUM = wire,
#include "ops.def"
#undef X
    TSR__KOP_COUNT
} tsr__kernel_op;

/* Every row has its own wire number, 1 up to the last, with no gap. */
enum {
    TSR__KOP_ROWS = 0
#define X(...) +1
#include "ops.def"
#undef X
};
_Static_assert(TSR__KOP_ROWS + 1 == TSR__KOP_COUNT, "core/ops.def: wire numbers must run 1..n");

/* An operation's flags: ops.def's flags column, plus what its call and
 * dtype columns say. */
enum {
    TSR__KOPF_ALPHA = 1u << 0,        /* takes alpha (call ALPHA) */
    TSR__KOPF_NEGATE_ALPHA = 1u << 1, /* the planner negates alpha first (sub) */
    TSR__KOPF_INT_TO_FLOAT = 1u << 2, /* bool and integer operands meet in the default dtype */
    TSR__KOPF_ZERO_CHECK = 1u << 3,   /* an integer zero divisor fails (call CHECKED) */
    TSR__KOPF_BOOL_RESULT = 1u << 4,  /* the result is bool whatever the common dtype (the
                                         element function gives 0 or 1 in the common math
                                         type); out= takes any dtype */
    TSR__KOPF_NO_HALF = 1u << 5,      /* float16 is refused with the stub's message, where the
                                         other floating dtypes compute (PyTorch 1.13's cpu
                                         kernels of floor, sqrt, ...) */
    TSR__KOPF_BOOL_TO_LONG = 1u << 6, /* bool operands compute in int64 (square, which is
                                         PyTorch's pow(x, 2)) */
    TSR__KOPF_SAME_DTYPE = 1u << 13,  /* an out= or in-place output must have the common dtype:
                                         "Found dtype Float but expected BFloat16" */
    TSR__KOPF_WIDTH = 1u << 14,       /* the element function takes the common dtype's width in
                                         bits (call WIDTH: the shifts) */
    TSR__KOPF_CONDITION = 1u << 15,   /* input 1 is a condition (where): bool or uint8, no part
                                         in the common dtype; converted to it like any input, it
                                         is nonzero exactly where it was */
    TSR__KOPF_CPLX_LATER = 1u << 16,  /* complex64 and complex128 inputs, which PyTorch computes
                                         and Tessera does not yet, are refused up front:
                                         TSR_ERR_NOT_SUPPORTED "complex exp is not available
                                         yet" */
    /* The reductions (call REDUCE; "A reduction" below): */
    TSR__KOPF_REDUCE = 1u << 17,        /* a reduction (call REDUCE), no element function */
    TSR__KOPF_INT_TO_LONG = 1u << 18,   /* bool and integer inputs reduce in int64 unless dtype=
                                         or out= says otherwise (sum, prod, nansum) */
    TSR__KOPF_MEAN = 1u << 19,          /* the sum, rounded to the result dtype, divided by the
                                         count (converted to that dtype first, as PyTorch's
                                         div_ converts it); inputs must be floating or complex */
    TSR__KOPF_SKIP_NAN = 1u << 20,      /* NaN elements count as zero (nansum), and not at all in
                                         nanmean's count */
    TSR__KOPF_INDEX = 1u << 21,         /* the output holds int64 positions r (argmax, argmin) */
    TSR__KOPF_INDICES = 1u << 22,       /* a second output, operand 2, holds the int64 positions
                                         of the values in operand 0 (max/min with a dim) */
    TSR__KOPF_NONEMPTY = 1u << 23,      /* reducing an empty dimension is PyTorch's IndexError */
    TSR__KOPF_DTYPE_ARG = 1u << 24,     /* takes dtype= (sum, prod, mean, nansum, nanmean) */
    TSR__KOPF_ONE_DIM = 1u << 25,       /* takes one dim or none, not a list (prod, all, any,
                                         argmax, argmin, max, min) */
    TSR__KOPF_NO_BFLOAT16 = 1u << 26,   /* bfloat16 is refused too (prod, beside NO_HALF) */
    TSR__KOPF_VALUE = 1u << 27,         /* takes a Python number (lerp's weight, addcmul's value;
                                         call VALUE2 or VALUE3) in `alpha`, in the math type and
                                         not rounded to float16/bfloat16; no scalar input besides
                                         one zero-dim cpu tensor */
    TSR__KOPF_VALUE_FLOAT = 1u << 28,   /* bfloat16 takes the value as a float, not rounded to
                                         bfloat16 (lerp, addcmul, addcdiv) */
    TSR__KOPF_NUMBERS_ASIDE = 1u << 29, /* Python-number inputs are no operands of PyTorch's
                                           iterator (clamp's number bounds): they take no part in
                                           the shape and the output's layout */
    TSR__KOPF_REAL_RESULT = 1u << 30,   /* a complex common dtype gives a result of its real
                                           dtype (abs): the element function returns the value
                                           in the real part, which the output's conversion
                                           keeps; an out= may be any dtype that real dtype
                                           casts to, or the common dtype itself; in place on
                                           complex is refused as PyTorch refuses it */
    TSR__KOPF_MOVE = 1u << 7,           /* moves bytes, computes nothing (call MOVE: copy, fill) */
    TSR__KOPF_BOOL = 1u << 8,           /* computes in bool (column b) */
    TSR__KOPF_INT = 1u << 9,            /* in uint8, int8, int16, int32, int64 (i) */
    TSR__KOPF_FLOAT = 1u << 10,         /* in float16, bfloat16, float32, float64 (f) */
    TSR__KOPF_COMPLEX32 = 1u << 11,     /* in complex32 (h) */
    TSR__KOPF_COMPLEX = 1u << 12,       /* in complex64, complex128 (c) */
};
#define TSR__KOPF_CALL_MOVE TSR__KOPF_MOVE
#define TSR__KOPF_CALL_ALPHA TSR__KOPF_ALPHA
#define TSR__KOPF_CALL_PLAIN 0
#define TSR__KOPF_CALL_CHECKED TSR__KOPF_ZERO_CHECK
#define TSR__KOPF_CALL_UNARY 0
#define TSR__KOPF_CALL_WIDTH TSR__KOPF_WIDTH
#define TSR__KOPF_CALL_TERNARY 0
#define TSR__KOPF_CALL_VALUE1 TSR__KOPF_VALUE
#define TSR__KOPF_CALL_VALUE2 TSR__KOPF_VALUE
#define TSR__KOPF_CALL_VALUE3 TSR__KOPF_VALUE
#define TSR__KOPF_CALL_REDUCE TSR__KOPF_REDUCE
#define TSR__KOPF_CALL_REPLACE 0
/* Whether a row's call is REPLACE (tsr__kernel_op_info.replace). */
#define TSR__KREPLACE_MOVE 0
#define TSR__KREPLACE_ALPHA 0
#define TSR__KREPLACE_PLAIN 0
#define TSR__KREPLACE_CHECKED 0
#define TSR__KREPLACE_UNARY 0
#define TSR__KREPLACE_WIDTH 0
#define TSR__KREPLACE_TERNARY 0
#define TSR__KREPLACE_VALUE1 0
#define TSR__KREPLACE_VALUE2 0
#define TSR__KREPLACE_VALUE3 0
#define TSR__KREPLACE_REDUCE 0
#define TSR__KREPLACE_REPLACE 1
#define TSR__KOPF_IF_Y(bit) (bit)
#define TSR__KOPF_IF_N(bit) 0
/* The whole flags word of a row. */
#define TSR__KOPF_OF(call, flags, b, i, f, h, c)                           \
    ((flags) | TSR__KOPF_CALL_##call | TSR__KOPF_IF_##b(TSR__KOPF_BOOL) |  \
     TSR__KOPF_IF_##i(TSR__KOPF_INT) | TSR__KOPF_IF_##f(TSR__KOPF_FLOAT) | \
     TSR__KOPF_IF_##h(TSR__KOPF_COMPLEX32) | TSR__KOPF_IF_##c(TSR__KOPF_COMPLEX))

typedef struct tsr__kernel_op_info {
    const char *name;       /* "add" */
    const char *stub;       /* "add_stub" */
    uint32_t arity;         /* inputs: 0, 1, 2 or 3 */
    uint32_t flags;         /* TSR__KOPF_* */
    const char *no_bool;    /* bool inputs are refused up front with this message, or NULL */
    const char *no_complex; /* complex inputs are refused up front with this message, or NULL */
    bool replace;           /* call REPLACE: the element function takes three numbers from the
                               slots of `scalar` and `alpha` (tsr__kernel) */
} tsr__kernel_op_info;

/* Indexed by tsr__kernel_op; entry 0 is empty (no name). */
extern const tsr__kernel_op_info tsr__kernel_ops[TSR__KOP_COUNT];

/* The row of `op`, or NULL for a value that is no operation (off the
 * wire: check before use). */
static inline const tsr__kernel_op_info *tsr__kernel_op_info_of(uint32_t op)
{
    return op >= 1 && op < TSR__KOP_COUNT ? &tsr__kernel_ops[op] : (const tsr__kernel_op_info *)0;
}

static inline bool tsr__kernel_op_has(uint32_t op, uint32_t flag)
{
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(op);
    return info != (const tsr__kernel_op_info *)0 && (info->flags & flag) != 0;
}

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
    uint32_t noperands; /* output + inputs: 1 for FILL, 2 for COPY, 3 for the arithmetic,
                           4 for the ternary operations */
    int64_t sizes[TSR_MAX_DIMS];
    uint8_t scalar[16]; /* the scalar input's value in `common` (FILL: in the output dtype) */
    uint8_t alpha[16];  /* add/sub's alpha, little-endian, in common's math type: int64 for
                           bool and the integers, float32 for float16/bfloat16/float32 (already
                           rounded to the dtype), double for float64, two floats for
                           complex32/complex64, two doubles for complex128; in an operation
                           with a value (TSR__KOPF_VALUE), that number in the same math
                           type, converted as PyTorch's Scalar::to<T> converts it (with
                           TSR__KOPF_VALUE_FLOAT, bfloat16's is a float not rounded to
                           bfloat16); in any other operation, the
                           second scalar input's value, as `scalar` */
    tsr__kernel_operand operands[TSR__KERNEL_MAX_OPERANDS];
} tsr__kernel;
/* A REPLACE row (nan_to_num) has no scalar input: its three numbers, in
 * the common dtype's real math type (float for float16/bfloat16/float32,
 * double for float64), fill the 64-bit slots scalar[0..8), scalar[8..16)
 * and alpha[0..8) (a float in a slot's low four bytes, the rest zero):
 * the value for NaN, for +inf and for -inf. The cpu rows read them as
 * 32 bytes from `scalar`. */
_Static_assert(offsetof(tsr__kernel, alpha) == offsetof(tsr__kernel, scalar) + 16,
               "alpha follows scalar");

/* ---- A reduction ----
 *
 * A reduction (a row of call REDUCE) is a tsr__kernel like any other,
 * over the sizes of its input:
 *   operands[0]  the output (for argmax/argmin: its int64 positions), with
 *                stride 0 along every reduced dimension and its own
 *                strides along the kept ones;
 *   operands[1]  the input, walking every dimension;
 *   operands[2]  max/min with a dim only (TSR__KOPF_INDICES, noperands
 *                3): the int64 positions, stride 0 where operand 0 has;
 *   common       the dtype the elements are converted to before they
 *                combine: the result's dtype for sum, prod, mean,
 *                nansum, nanmean (dtype= or out= may choose it; float16
 *                and bfloat16 accumulate in float, kernels/reduce_order.h),
 *                bool for all and any (every input element is first made
 *                0 or 1), the input's for the others.
 * A dimension is reduced exactly where operand 0 has stride 0 and size
 * above 1 (an output never overlaps itself: the planner refuses one that
 * does), and the reduced dimensions appear in the descriptor in their
 * logical order, outer first: r, the logical index that
 * kernels/reduce_order.h's order and argmax's positions count, is
 * row-major over them in descriptor order, whatever their strides. The
 * planner (libclient/reduce.c) puts the kept dimensions first (sorted by
 * the input's strides, merged where every operand allows), then the
 * reduced ones (merged only where the input's strides keep r row-major).
 * Every address a reduction touches is an ordinary operand element of
 * that index space, so the daemon's region checks hold for it unchanged.
 *
 * On a device a reduction runs on the reduction program of its common
 * dtype: its key has op 0, entry TSR__KENTRY_REDUCE, the common dtype
 * and nothing else, and its one kernel takes the generic programs'
 * arguments (below: four slots, `kind`) with another meaning for the
 * geometry:
 *   size   x: the output elements (the kept dimensions' product), y: R,
 *          the elements reduced into each; z: 1, or G >= 2, the nodes of
 *          each output's chunk tree that work-items of their own reduce
 *          (below); w: the chunks of a node (a power of two, at least
 *          TSR__RED_BLOCK_CHUNKS)
 *   block  x: the outputs one work-item computes (1 with nodes), y: the
 *          kept dimensions, z: the phase (0; with nodes the backend
 *          launches phase 1 then phase 2), w: the reduced dimensions
 *   geom   the sizes of the kept dimensions then of the reduced ones (each
 *          group in descriptor order), then for each slot with storage
 *          its strides in the same order
 *   stride unused (zero)
 * NDRange (ceil(size.x / block.x), 1, 1); work-item p computes outputs
 * p * block.x .. (row-major over the kept dimensions), each in
 * kernels/reduce_order.h's order, so that every device gives the cpu's
 * bits. Where a few outputs reduce many elements (fewer outputs than the
 * device has compute units to keep busy), the launch is one piece of two
 * enqueues of the same kernel: phase 1 over NDRange (size.x * G, 1, 1),
 * work-item p reducing node p % G of output p / G (size.w chunks from
 * chunk (p % G) * size.w, a node of the chunk tree) into slot p of a
 * scratch buffer of TSR__RED_SLOT_BYTES per slot that takes the status
 * argument's place; phase 2 over (size.x, 1, 1), merging each output's G
 * slots by the same binary counter: the one-pass bits. */

/* ---- The OpenCL program ABI (kernels/ generates, the daemon launches) ----
 *
 * One program per tsr__kernel_key, one kernel named "tsr_kernel" in it,
 * built with "-cl-fp32-correctly-rounded-divide-sqrt" where the device
 * supports it and never with fast-math flags (no contraction: the source
 * says #pragma OPENCL FP_CONTRACT OFF). The key names the walk (its
 * entry, below): every program of an operation and its dtypes has the
 * same arguments, in order:
 *   for each operand with storage, output first:
 *     __global uchar *base, ulong offset_bytes
 *   ulong2 scalar   (the bytes of tsr__kernel.scalar, low half first)
 *   ulong2 alpha    (the bytes of tsr__kernel.alpha)
 *   __global int *status (the daemon zeroes it; a kernel that meets an
 *                   integer division by zero stores 1)
 *   ulong4 size     x: the innermost dimension's size, y: the next one's
 *                   (1 when there is none), z: the product of all the
 *                   others (1 when there are none), w: 0
 *   uint4 block     x, y: the elements of those two dimensions each
 *                   work-item walks (a block of x by y); z: the walk
 *                   (tsr__kernel_walk) plus the TSR__KBLOCK_* flags;
 *                   w: the dimensions behind z (ndim - 2, or 0)
 *   for each operand with storage: long4 stride
 *                   x, y: along the two innermost dimensions; z: along the
 *                   third when there are exactly three (else 0)
 *   __global const long *geom
 *                   from four dimensions: the sizes of dimensions
 *                   0..ndim-3, then for each operand with storage its
 *                   strides there; never read with fewer
 * NDRange (ceil(size.x / block.x), ceil(size.y / block.y), size.z),
 * work-item (p, q, r) taking the block at (p * block.x, q * block.y) of
 * the r-th outer index (dimensions 0..ndim-3, row-major); every
 * work-item past an edge, where the global size was rounded up to the
 * local size, does nothing. Strides are in elements of the operand's
 * dtype. The kernel touches exactly the elements of the index space
 * (sizes, strides, offsets), so a kernel the daemon checked stays inside
 * its operands' regions whatever the walk. */
typedef enum tsr__kernel_walk {
    TSR__KWALK_UNIT = 0,    /* every operand with storage has stride 1 along x */
    TSR__KWALK_BCAST1 = 1,  /* input 1 has stride 0 along x, the others 1 */
    TSR__KWALK_BCAST2 = 2,  /* input 2 has stride 0 along x, the others 1 */
    TSR__KWALK_STRIDED = 3, /* any strides */
    TSR__KWALK_PACK1 = 4,   /* input 1 runs along y (a transposed input), the others have
                               stride 1 along x: input 1's block is first copied into
                               private memory along its own rows */
    TSR__KWALK_PACK2 = 5,   /* the same for input 2 */
    TSR__KWALK_COUNT
} tsr__kernel_walk;

/* The kernel a program has (its entry, in the key): one of the walks, or
 * for float16/bfloat16/float32/float64 add and sub a UNIT loop for
 * alpha 1 or -1. STRIDED
 * runs any launch; a key names another entry only where its operands
 * allow that walk (kernels/launch.h, tsr__kernel_entry). A
 * program per walk, not one holding every walk: a device that compiles
 * kernels when it hands out a program binary (PoCL) would compile them
 * all. */
enum {
    TSR__KENTRY_UNIT_PLUS = TSR__KWALK_COUNT,
    TSR__KENTRY_UNIT_MINUS,
    TSR__KENTRY_GENERIC, /* the generic program of a common dtype (below) */
    TSR__KENTRY_REDUCE,  /* the reduction program of a common dtype ("A reduction") */
    TSR__KENTRY_GEMM,    /* a dtype's matrix-product helpers ("Matrix products") */
    TSR__KENTRY_COUNT
};

/* ---- Matrix products ----
 *
 * A device's BLAS (CLBlast on opencl) computes float32, float64,
 * complex64 and complex128 products itself. For float16, bfloat16 and
 * the integer dtypes a device has one GEMM program per dtype: its key has
 * op 0, entry TSR__KENTRY_GEMM, the dtype, and nothing else. Its one
 * kernel (opencl/gemm.cl) takes
 *   C, A, B         three buffers
 *   long4 off, ld, bs   each operand's offset, row step and matrix step
 *                   in elements: x C, y A, z B
 *   long4 shape     x batch, y m, z n, w k
 *   long2 ab        alpha and beta as int64 (integer products)
 *   uint4 mode      x: what it does (TSR__KGEMM_*), y: TSR__KGEMM_TRANS_A |
 *                   TRANS_B | BETA_ZERO
 * over the NDRange opencl/gemm.cl describes for each mode. */
enum {
    TSR__KGEMM_PRODUCT, /* integers: C = alpha * op(A) @ op(B) + beta * C, wrapping */
    TSR__KGEMM_WIDEN,   /* C (float32, batch x m x n packed) = A (the dtype) */
    TSR__KGEMM_NARROW,  /* C (the dtype) = A (float32, batch x m x n packed), rounded once */
};
#define TSR__KGEMM_TRANS_A 0x1u
#define TSR__KGEMM_TRANS_B 0x2u
#define TSR__KGEMM_BETA_ZERO 0x4u
/* The integer product's tile of C per work-item: rows x columns. */
#define TSR__KGEMM_TILE_M 4
#define TSR__KGEMM_TILE_N 8

/* ---- The generic programs ----
 *
 * A device has one generic program per common dtype: its key has op 0,
 * entry TSR__KENTRY_GENERIC, the common dtype, and nothing else. Its one
 * kernel runs every operation computing in that dtype, reading and
 * writing every dtype that converts to and from it, in the STRIDED walk,
 * with the operation and the dtypes given at run time. So a launch needs
 * no program of its own: it runs at once on the generic program, while
 * a program specialised to its key (its walk's vector loops, no run-time
 * dispatch) is built in the background for launches large enough to
 * gain from it, and takes over when ready.
 *
 * Its arguments are the ABI's above for four operands with storage
 * (slots past the launch's operands with storage repeat the output's
 * buffer with zero strides and are never read), then
 *   uint4 kind      x: the operation; y: the output's dtype; z: input 1's
 *                   dtype | input 2's << 8 | input 3's << 16
 *                   (TSR__KEY_SCALAR for a scalar, TSR__KGENERIC_NONE for
 *                   none); w: the operands with storage. Inputs with
 *                   storage take the slots after the output's in order;
 *                   the first scalar input reads `scalar`, a second one
 *                   `alpha`. */
#define TSR__KGENERIC_SLOTS 4

/* block.z: the walk, and flags: add/sub's alpha is 1 or -1 in a dtype
 * whose programs have loops of their own for it (float16/32/64), and the
 * output is large enough to be stored around the caches (the highest). */
#define TSR__KBLOCK_ALPHA_ONE 16
#define TSR__KBLOCK_ALPHA_MINUS_ONE 32
#define TSR__KBLOCK_STREAM 64

/* A packed block: at most TSR__KPACK_X elements along x, and at most
 * TSR__KPACK_BYTES of the packed input in all (the kernel's private
 * tile): a float32 tile of 64 x 64, whose packed input is read in runs
 * of 256 bytes and the others in runs of 64 elements that the next
 * work-item continues. On one PoCL thread, float32 add with a transposed
 * 8192 x 8192 input, the square tile ran at 0.55-0.61 of a STREAM add on
 * an AMD EPYC (AVX2), where 32 x 128 ran at 0.30-0.46 and 16 x 256,
 * 128 x 128 or 64 x 128 at 0.32-0.48: the device's memory is in 4 KiB
 * pages (shared memory), and the square tile asks for the fewest pages
 * per byte it moves. */
#define TSR__KPACK_X 64u
#define TSR__KPACK_BYTES 16384u

/* A launch's arguments after `status`, and its NDRange: what
 * tsr__kernel_launch_geometry (kernels/launch.h) makes of a
 * checked kernel. `nstorage` operands have storage, output first, in
 * operand order; `geom` holds `geom_count` values (none up to three
 * dimensions). */
typedef struct tsr__kernel_geometry {
    int32_t nstorage;
    int32_t geom_count;
    uint64_t size[4];
    uint32_t block[4];
    int64_t stride[TSR__KERNEL_MAX_OPERANDS][4];
    int64_t geom[(TSR_MAX_DIMS - 2) * (1 + TSR__KERNEL_MAX_OPERANDS)];
    uint64_t global[3], local[3];
    /* The launch is enqueued in pieces of at most `step` work-items per
     * dimension, `pieces` in all, at global offsets `step` apart: no one
     * enqueue asks a driver for more than it can count
     * (TSR__KERNEL_PIECE_ITEMS), nor for much more than
     * TSR__KERNEL_PIECE_ELEMENTS elements of work, so that a launch holds
     * the device for a bounded time before another session's turn. */
    uint64_t step[3];
    uint64_t pieces;
} tsr__kernel_geometry;

/* The most work-items one enqueue of a launch covers, in all and along
 * any dimension: 2^30 fits the 32-bit size_t of the smallest devices, and
 * the work-group counters of drivers that compute in 32 bits (PoCL
 * trapped on a launch of 2^46 work-items). */
#define TSR__KERNEL_PIECE_ITEMS (UINT64_C(1) << 30)
/* The elements of work a piece aims at: 4 Mi, a few milliseconds of a
 * memory-bound kernel on a CPU device, far less on a GPU. A piece has at
 * least one work-item, and so up to a block (TSR__KPACK_BYTES or 16 Ki
 * elements) more. */
#define TSR__KERNEL_PIECE_ELEMENTS (UINT64_C(1) << 22)

/* The dtype byte of a scalar input in a key. */
#define TSR__KEY_SCALAR 0xffu

/* What a program is built for: two kernels with equal keys share it. */
typedef struct tsr__kernel_key {
    uint8_t op;
    uint8_t entry; /* the walk its one kernel runs: TSR__KENTRY_* */
    uint8_t common;
    uint8_t noperands;
    uint8_t dtypes[TSR__KERNEL_MAX_OPERANDS]; /* 0xff: a scalar input; 0 past noperands */
} tsr__kernel_key;
_Static_assert(sizeof(tsr__kernel_key) == 8, "a kernel key is eight bytes");

#endif /* TESSERA_CORE_KERNEL_H */
