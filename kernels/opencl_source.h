/* The OpenCL side of kernels/: from a planned tsr__kernel to the key of
 * its program, and from a key to the program's OpenCL C source, following
 * the ABI documented in core/kernel.h. The daemon calls, per LAUNCH:
 *
 *   tsr__kernel_key_of(&kernel, &key)        (also checks the kernel)
 *   tsr__kernel_key_check(&key, caps)        (what this device can build)
 *   tsr__opencl_source(&key, caps, buf, size, &len)   on a cache miss
 *   tsr__opencl_cache_name(&key, buf, len, name, sizeof name)
 *   tsr__kernel_launch_geometry(&kernel, units, stream, &geom)   the walk
 *
 * The sources embed core/convert_scalar.h and kernels/scalar_ops.h as
 * they were at build time (kernels/embed.cmake), so nothing is read from
 * disk at run time and the cpu device and every OpenCL device run the
 * same element code. Pure C: no I/O, no allocation. */
#ifndef TESSERA_KERNELS_OPENCL_SOURCE_H
#define TESSERA_KERNELS_OPENCL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "tessera/dtype.h"
#include "tessera/status.h"

/* What a device offers (tsr__kernel_key_check, tsr__opencl_source). */
#define TSR__OPENCL_CAP_FP64 (1u << 0) /* cl_khr_fp64 */


/* Checks a kernel's fields (op, dtypes, operand count and flags, ndim,
 * non-negative sizes; not its handles or strides, which the daemon checks
 * against its allocations) and computes its key, whose entry is the walk
 * tsr__kernel_launch_geometry gives its layout (STRIDED when it has no
 * elements). Unused operand slots and `reserved` are zero. Errors: TSR_ERR_INVALID_ARGUMENT naming the field,
 * and tsr__kernel_key_check's. */
tsr_status tsr__kernel_key_of(const tsr__kernel *kernel, tsr__kernel_key *out);

/* Whether a program can be generated for `key` on a device with `caps`:
 * TSR_ERR_INVALID_ARGUMENT for a malformed key, TSR_ERR_NOT_SUPPORTED for
 * an operation PyTorch does not compute in that dtype (its message, as
 * tsr__kernel_check_compute) or float64/complex128 without
 * TSR__OPENCL_CAP_FP64. */
tsr_status tsr__kernel_key_check(const tsr__kernel_key *key, unsigned caps);

/* Writes the program's source, NUL-terminated, into buf (size bytes) and
 * its length (without the NUL) into *length. When size is too small,
 * returns TSR_ERR_BUFFER_TOO_SMALL with *length set to what it needs and
 * buf untouched beyond size; tsr__opencl_source_max() is always enough.
 * Other errors: tsr__kernel_key_check's. */
tsr_status tsr__opencl_source(const tsr__kernel_key *key, unsigned caps, char *buf, size_t size,
                              size_t *length);
size_t tsr__opencl_source_max(void);

/* The key of the generic program of `common` (core/kernel.h), which
 * tsr__kernel_key_check and tsr__opencl_source take like any other. */
tsr__kernel_key tsr__kernel_generic_key(tsr_dtype common);

/* The `kind` argument of a launch of `kernel` on a generic program. */
void tsr__kernel_generic_kind(const tsr__kernel *kernel, uint32_t kind[4]);

/* The on-disk cache name of a program: "tsr-" + the key's 8 bytes in hex
 * + "-" + a 64-bit FNV-1a hash of the source in hex (the daemon adds the
 * device and driver). TSR__OPENCL_NAME_MAX bytes always suffice;
 * TSR_ERR_BUFFER_TOO_SMALL otherwise. */
#define TSR__OPENCL_NAME_MAX 40
tsr_status tsr__opencl_cache_name(const tsr__kernel_key *key, const char *source, size_t length,
                                  char *buf, size_t size);

/* How a launch of a checked kernel (numel > 0) walks it: the arguments
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
int tsr__opencl_entry(const tsr__kernel_key *key, uint32_t block_z);

/* "unit", "strided", ... for logs; NULL outside 0..TSR__KENTRY_COUNT-1. */
const char *tsr__opencl_entry_name(int entry);

/* The embedded headers (generated at build time). */
extern const char tsr__ksrc_convert_scalar[];
extern const size_t tsr__ksrc_convert_scalar_len;
extern const char tsr__ksrc_scalar_ops[];
extern const size_t tsr__ksrc_scalar_ops_len;

#endif /* TESSERA_KERNELS_OPENCL_SOURCE_H */
