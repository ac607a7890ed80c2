/* What a launch of a kernel is, whatever the device runs it: from a
 * planned tsr__kernel to the key of the program it needs, whether a
 * device can run that key, and how the launch walks its index space (the
 * NDRange and arguments of core/kernel.h's ABI). The daemon calls, per
 * LAUNCH:
 *
 *   tsr__kernel_key_of(&kernel, &key)        (also checks the kernel)
 *   tsr__kernel_key_check(&key, caps)        (what this device can run)
 *   tsr__kernel_launch_geometry(&kernel, units, stream, &geom)   the walk
 *
 * and a backend's code generator writes the program of a checked key
 * (opencl/source.h for OpenCL C), with the entries tsr__kernel_entry
 * names. Pure C: no I/O, no allocation. */
#ifndef TESSERA_KERNELS_LAUNCH_H
#define TESSERA_KERNELS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "tessera/dtype.h"
#include "tessera/status.h"

/* What a device offers (tsr__kernel_key_check, a backend's generator). */
#define TSR__KCAP_FP64 (1u << 0) /* float64 arithmetic */

/* kind.z's dtype byte for an operand a launch of a generic program does
 * not have (a fill's inputs, a copy's second); TSR__KEY_SCALAR marks a
 * scalar one. */
#define TSR__KGENERIC_NONE 0xfeu

/* Checks a kernel's fields (op, dtypes, operand count and flags, ndim,
 * non-negative sizes; not its handles or strides, which the daemon checks
 * against its allocations) and computes its key, whose entry is the walk
 * tsr__kernel_launch_geometry gives its layout (STRIDED when it has no
 * elements). Unused operand slots and `reserved` are zero. Errors:
 * TSR_ERR_INVALID_ARGUMENT naming the field, and tsr__kernel_key_check's. */
tsr_status tsr__kernel_key_of(const tsr__kernel *kernel, tsr__kernel_key *out);

/* Whether a device with `caps` can run `key`: TSR_ERR_INVALID_ARGUMENT
 * for a malformed key, TSR_ERR_NOT_SUPPORTED for an operation PyTorch
 * does not compute in that dtype (its message, as
 * tsr__kernel_check_compute) or float64/complex128 without
 * TSR__KCAP_FP64. */
tsr_status tsr__kernel_key_check(const tsr__kernel_key *key, unsigned caps);

/* The key of the generic program of `common` (core/kernel.h), which
 * tsr__kernel_key_check and the generators take like any other. */
tsr__kernel_key tsr__kernel_generic_key(tsr_dtype common);

/* The key of the reduction program of `common` (core/kernel.h, "A
 * reduction"), which tsr__kernel_key_check and the generators take like
 * any other; a reduction's own key names it in its entry. */
tsr__kernel_key tsr__kernel_reduce_key(tsr_dtype common);

/* The key of the GEMM program of `dtype` (core/kernel.h, "Matrix
 * products"): float16, bfloat16, uint8, int8, int16, int32 and int64
 * have one (tsr__kernel_gemm_has). */
tsr__kernel_key tsr__kernel_gemm_key(tsr_dtype dtype);
bool tsr__kernel_gemm_has(tsr_dtype dtype);

/* The operands a kernel of a valid `op` has: the output and its inputs,
 * and the positions of max/min with a dim (TSR__KOPF_INDICES). */
uint32_t tsr__kernel_operand_count(uint32_t op);

/* A reduction's output elements (the product of the sizes where operand
 * 0 has a stride or size at most 1) and the elements reduced into each
 * (the product of the others), saturated at UINT64_MAX. */
void tsr__kernel_reduce_counts(const tsr__kernel *kernel, uint64_t *outputs, uint64_t *each);

/* The `kind` argument of a launch of `kernel` on a generic program. */
void tsr__kernel_generic_kind(const tsr__kernel *kernel, uint32_t kind[4]);

/* How a launch of a checked kernel (numel > 0; a reduction: outputs > 0)
 * walks it: the arguments
 * after `status` and the NDRange of core/kernel.h's ABI. The walk is
 * UNIT when every operand with storage steps by one element along the
 * innermost dimension (or it has one element), BCAST1/BCAST2 when input 1
 * or 2 stands still there and the others step by one, STRIDED otherwise.
 * Blocks are long rows for the first three and tiles for STRIDED, halved
 * until `compute_units` (0: one) each get several work-items; the local
 * size is always 1 x 1 x 1, so that a device compiles one work-group
 * function per program. An output of at least `stream_bytes` (0: none)
 * is stored around the caches where the walk computes rows in chunks
 * (an input standing still, a fill). */
void tsr__kernel_launch_geometry(const tsr__kernel *kernel, uint32_t compute_units,
                                 uint64_t stream_bytes, tsr__kernel_geometry *out);

/* The entry that runs a launch of key's operation whose block.z (the
 * walk and its flags) is `block_z`: the walk's own loop where its
 * operands and dtypes have one, else STRIDED. (tsr__kernel_key_of puts
 * it in the key; key->entry is not read.) */
int tsr__kernel_entry(const tsr__kernel_key *key, uint32_t block_z);

/* "unit", "strided", ... for logs; NULL outside 0..TSR__KENTRY_COUNT-1. */
const char *tsr__kernel_entry_name(int entry);

/* For the generators. The operands with storage of a key's kernels: the
 * output, then each input that is not a scalar; returns their count. */
int tsr__kernel_key_storage(const tsr__kernel_key *key, int *storage);

/* The scalar inputs a kernel of `op` may have: one, or two for an
 * operation without alpha (the second's value travels in alpha's
 * bytes); and those `k` has. */
uint32_t tsr__kernel_scalar_max(uint32_t op);
uint32_t tsr__kernel_scalar_count(const tsr__kernel *k);
/* Whether the program divides integers, where a zero divisor leaves its
 * element unwritten and raises the status flag. */
bool tsr__kernel_key_checks_zero(const tsr__kernel_key *key);
/* Whether add/sub has loops of its own for alpha 1 and -1 where every
 * operand steps by one (TSR__KENTRY_UNIT_PLUS/MINUS). */
bool tsr__kernel_key_alpha_loops(const tsr__kernel_key *key);
/* Whether an operation's rows where every operand steps by one (the
 * UNIT walk) are computed a chunk at a time and stored around the caches
 * when the launch streams (TSR__KBLOCK_STREAM): every elementwise
 * operation but copy. */
bool tsr__kernel_unit_streams(uint32_t op);

#endif /* TESSERA_KERNELS_LAUNCH_H */
