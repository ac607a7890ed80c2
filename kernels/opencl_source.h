/* The OpenCL side of kernels/: from a planned tsr__kernel to the key of
 * its program, and from a key to the program's OpenCL C source, following
 * the ABI documented in core/kernel.h. The daemon calls, per LAUNCH:
 *
 *   tsr__kernel_key_of(&kernel, &key)        (also checks the kernel)
 *   tsr__kernel_key_check(&key, caps)        (what this device can build)
 *   tsr__opencl_source(&key, caps, buf, size, &len)   on a cache miss
 *   tsr__opencl_cache_name(&key, buf, len, name, sizeof name)
 *   tsr__kernel_launch_geometry(&kernel, &geom)       the shape arguments
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
#include "tessera/status.h"

/* What a device offers (tsr__kernel_key_check, tsr__opencl_source). */
#define TSR__OPENCL_CAP_FP64 (1u << 0) /* cl_khr_fp64 */

/* The dtype byte of a scalar input in a key. */
#define TSR__KEY_SCALAR 0xffu

/* The shape a kernel's program is built for: LINEAR when it has at most
 * one dimension and every operand with storage has unit stride (or the
 * dimension has at most one element), TILE2 for any other one or two
 * dimensions, STRIDED from three. */
tsr__kernel_shape tsr__kernel_shape_of(const tsr__kernel *kernel);

/* Checks a kernel's fields (op, dtypes, operand count and flags, ndim,
 * non-negative sizes; not its handles or strides, which the daemon checks
 * against its allocations) and computes its key. Unused operand slots and
 * `reserved` are zero. Errors: TSR_ERR_INVALID_ARGUMENT naming the field,
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

/* The on-disk cache name of a program: "tsr-" + the key's 8 bytes in hex
 * + "-" + a 64-bit FNV-1a hash of the source in hex (the daemon adds the
 * device and driver). TSR__OPENCL_NAME_MAX bytes always suffice;
 * TSR_ERR_BUFFER_TOO_SMALL otherwise. */
#define TSR__OPENCL_NAME_MAX 40
tsr_status tsr__opencl_cache_name(const tsr__kernel_key *key, const char *source, size_t length,
                                  char *buf, size_t size);

/* The launch's shape arguments, in the order of core/kernel.h's ABI.
 * `nstorage` operands have storage (output first); strides are in
 * elements. LINEAR: n. TILE2: inner/outer strides per storage operand,
 * n_inner, n_outer (one dimension: n_outer 1, outer strides 0). STRIDED:
 * geom (ndim sizes, then ndim strides per storage operand, innermost
 * last), ndim, n. */
typedef struct tsr__kernel_geometry {
    tsr__kernel_shape shape;
    int nstorage;
    uint64_t n;
    uint64_t n_inner, n_outer;
    int64_t stride_inner[TSR__KERNEL_MAX_OPERANDS], stride_outer[TSR__KERNEL_MAX_OPERANDS];
    int32_t ndim;
    int64_t geom[TSR_MAX_DIMS * (1 + TSR__KERNEL_MAX_OPERANDS)];
    int geom_count;
} tsr__kernel_geometry;

void tsr__kernel_launch_geometry(const tsr__kernel *kernel, tsr__kernel_geometry *out);

/* The embedded headers (generated at build time). */
extern const char tsr__ksrc_convert_scalar[];
extern const size_t tsr__ksrc_convert_scalar_len;
extern const char tsr__ksrc_scalar_ops[];
extern const size_t tsr__ksrc_scalar_ops_len;

#endif /* TESSERA_KERNELS_OPENCL_SOURCE_H */
