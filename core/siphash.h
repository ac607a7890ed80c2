/* Internal: SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed hash that
 * is a pseudo-random function of its 16-byte key: without the key, no one
 * can produce the value of a message. The OpenCL runtime seals its disk
 * cache entries with it, so that a file it did not write itself is never
 * loaded. Pure: no allocation, no I/O. */
#ifndef TESSERA_CORE_SIPHASH_H
#define TESSERA_CORE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define TSR__SIPHASH_KEY_BYTES 16

/* The 64-bit SipHash-2-4 of data[0..n) under key, as the reference
 * implementation's little-endian output read as a number. */
uint64_t tsr__siphash24(const uint8_t key[TSR__SIPHASH_KEY_BYTES], const void *data, size_t n);

/* FNV-1a, 64 bits, continuing from h (TSR__FNV_START to begin): an
 * unkeyed hash that names cache entries (which the seal above guards). */
#define TSR__FNV_START UINT64_C(0xcbf29ce484222325)
uint64_t tsr__fnv1a(uint64_t h, const void *data, size_t n);

#endif /* TESSERA_CORE_SIPHASH_H */
