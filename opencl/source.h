/* The OpenCL backend's code generator: the OpenCL C source of a program
 * for a kernel key that kernels/launch.h accepts, following the ABI
 * documented in core/kernel.h, and its name in the disk cache. The
 * runtime (opencl/runtime.h) calls it on a cache miss.
 *
 * The sources embed core/convert_scalar.h, kernels/scalar_ops.h and
 * opencl/helpers.cl as they were at build time (cmake/embed.cmake), so
 * nothing is read from disk at run time and the cpu device and every
 * OpenCL device run the same element code. Pure C: no I/O, no
 * allocation. */
#ifndef TESSERA_OPENCL_SOURCE_H
#define TESSERA_OPENCL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "tessera/status.h"

/* Writes the program's source, NUL-terminated, into buf (size bytes) and
 * its length (without the NUL) into *length, for a device with `caps`
 * (TSR__KCAP_*). When size is too small, returns TSR_ERR_BUFFER_TOO_SMALL
 * with *length set to what it needs and buf untouched beyond size;
 * tsr__opencl_source_max() is always enough. Other errors:
 * tsr__kernel_key_check's. */
tsr_status tsr__opencl_source(const tsr__kernel_key *key, unsigned caps, char *buf, size_t size,
                              size_t *length);
size_t tsr__opencl_source_max(void);

/* The on-disk cache name of a program: "tsr-" + the key's 8 bytes in hex
 * + "-" + a 64-bit FNV-1a hash of the source in hex (the runtime adds the
 * device and driver). TSR__OPENCL_NAME_MAX bytes always suffice;
 * TSR_ERR_BUFFER_TOO_SMALL otherwise. */
#define TSR__OPENCL_NAME_MAX 40
tsr_status tsr__opencl_cache_name(const tsr__kernel_key *key, const char *source, size_t length,
                                  char *buf, size_t size);

/* The embedded sources (generated at build time). */
extern const char tsr__ksrc_convert_scalar[];
extern const size_t tsr__ksrc_convert_scalar_len;
extern const char tsr__ksrc_scalar_ops[];
extern const size_t tsr__ksrc_scalar_ops_len;
extern const char tsr__ksrc_scalar_math[];
extern const size_t tsr__ksrc_scalar_math_len;
extern const char tsr__ksrc_scalar_trig[];
extern const size_t tsr__ksrc_scalar_trig_len;
extern const char tsr__ksrc_scalar_misc[];
extern const size_t tsr__ksrc_scalar_misc_len;
extern const char tsr__ksrc_helpers[];
extern const size_t tsr__ksrc_helpers_len;
extern const char tsr__ksrc_reduce_order[];
extern const size_t tsr__ksrc_reduce_order_len;
extern const char tsr__ksrc_reduce[];
extern const size_t tsr__ksrc_reduce_len;
extern const char tsr__ksrc_gemm[];
extern const size_t tsr__ksrc_gemm_len;

#endif /* TESSERA_OPENCL_SOURCE_H */
