/* Element conversions between dtypes with PyTorch's copy_ semantics,
 * bit for bit (PyTorch 2.9 on x86-64 CPUs with AVX2 by default).
 *
 * What a conversion does, in short:
 *   - same dtype: the bytes are copied (NaN payloads, bool bytes and
 *     float4 pairs included);
 *   - every reduced type (float16, bfloat16, the float8s) is reached from
 *     float32 with round-to-nearest-even: a float64 or integer source is
 *     rounded to float32 first, so it is rounded twice; decoding a reduced
 *     type is exact;
 *   - floating -> integer truncates toward zero as x86's cvtt instructions
 *     do, with their out-of-range value (INT32_MIN / INT64_MIN) for NaN,
 *     infinities and out-of-range inputs, then keeps the low bits: int8,
 *     int16 and uint16 through 32 bits, uint8 and uint32 through 64 bits
 *     (so 300.0 -> int8 44, -1.0 -> uint8 255, NaN -> 0); uint64 follows
 *     GCC's scalar code (-1.0 -> 2^64-1, NaN -> 2^63);
 *   - integer -> integer keeps the low bits; anything -> bool is != 0
 *     (NaN is true); a bool source reads any nonzero byte as true;
 *   - complex -> real takes the real part; real -> complex gives (x, +0);
 *     complex -> bool is (real != 0 || imag != 0); complex32's parts are
 *     float16;
 *   - float8_e4m3fn overflow and +-inf give NaN (PyTorch 2.1 - 2.11);
 *     float4_e2m1fn_x2 has no casts at all.
 * Options below select the variants other PyTorch versions and paths
 * produce. All of this is host-side and needs no device. */
#ifndef TESSERA_CONVERT_H
#define TESSERA_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which NaN bit patterns float16 and bfloat16 encoders produce. Only NaN
 * results differ between the two; every other result is identical. */
typedef enum tsr_nan_bits {
    /* PyTorch 2.9's contiguous CPU copy on x86 with AVX2 (the default):
     *   -> float16: sign and top payload bits kept, quiet bit set, as the
     *      F16C instruction does (7FFFFFFF -> 7FFF, FFC00000 -> FE00);
     *   float32 -> bfloat16: FFFF for every NaN (the vectorised kernel);
     *   float64 -> bfloat16: FFFF in the first n - n % 16 elements of the
     *      call and 7FC0 in the rest, as the AVX2 kernel's scalar tail does;
     *   any other source -> bfloat16: 7FC0. */
    TSR_NAN_BITS_VECTOR = 0,
    /* c10's scalar constructors (PyTorch <= 2.0 for float16, non-contiguous
     * or broadcast copies, fill_): float16 s|7E00 (sign kept, payload
     * dropped), bfloat16 7FC0 (sign and payload dropped). */
    TSR_NAN_BITS_SCALAR = 1,
    TSR_NAN_BITS_COUNT
} tsr_nan_bits;

/* Conversion variants. A zero-initialised struct
 * (tsr_cast_options opts = {0};) selects the defaults. */
typedef struct tsr_cast_options {
    /* float8_e4m3fn only: finite overflow and +-inf give +-448 (code
     * 7E|s) as in PyTorch >= 2.12, instead of NaN (7F|s) as in 2.9. NaN
     * stays NaN. No other format saturates in any PyTorch version. */
    bool saturate_float8;
    /* NaN bit patterns of float16/bfloat16 results (see tsr_nan_bits). */
    tsr_nan_bits nan_bits;
    /* complex -> bool looks at the real part only, as PyTorch <= 2.2 did
     * (1.13: (0+1j) -> False). Default: real != 0 || imag != 0. */
    bool complex_to_bool_real_only;
    uint64_t abi_reserved[8]; /* zero; room for later members (export.h) */
} tsr_cast_options;

/* Converts n contiguous elements of src_dtype at src into dst_dtype at dst
 * with the default options; the same as tsr_cast_buffer_ex(..., NULL).
 *
 * The caller owns both buffers; src holds n * itemsize(src_dtype) bytes,
 * dst room for n * itemsize(dst_dtype). Neither needs any alignment. The
 * buffers must not partially overlap; dst == src is allowed when the two
 * dtypes have the same item size (an in-place conversion). n == 0 does
 * nothing and accepts NULL pointers. Every check comes before the first
 * write, so dst is untouched when the call fails.
 *
 * Returns TSR_OK, or:
 *   TSR_ERR_INVALID_ARGUMENT  a NULL buffer with n > 0, an invalid dtype,
 *                             partially overlapping buffers, or an option
 *                             out of range;
 *   TSR_ERR_OVERFLOW          n * itemsize does not fit in size_t;
 *   TSR_ERR_NOT_SUPPORTED     float4_e2m1fn_x2 to or from another dtype:
 *       "copy_() does not support casting Float4_e2m1fn_x2 to different
 *       types (from Float to Float4_e2m1fn_x2)". */
TSR_API tsr_status tsr_cast_buffer(const void *src, tsr_dtype src_dtype, void *dst,
                                   tsr_dtype dst_dtype, size_t n);

/* tsr_cast_buffer with explicit options. opts is read only during the
 * call and may be NULL (the defaults). Same ownership and status codes. */
TSR_API tsr_status tsr_cast_buffer_ex(const void *src, tsr_dtype src_dtype, void *dst,
                                      tsr_dtype dst_dtype, size_t n, const tsr_cast_options *opts);

/* Scalar helpers. These follow c10's scalar constructors, i.e.
 * TSR_NAN_BITS_SCALAR: a NaN becomes float16 s|7E00 and bfloat16 7FC0.
 * Use tsr_cast_buffer_ex for the copy kernels' NaN bits. Decoders are
 * exact; a float16 NaN decodes with its payload and the quiet bit set. */
TSR_API uint16_t tsr_float_to_half(float x);
TSR_API float tsr_half_to_float(uint16_t h);
TSR_API uint16_t tsr_float_to_bfloat16(float x);
TSR_API float tsr_bfloat16_to_float(uint16_t b);

/* float32 -> a float8 code. fmt is one of TSR_FLOAT8_E4M3FN,
 * TSR_FLOAT8_E5M2, TSR_FLOAT8_E4M3FNUZ, TSR_FLOAT8_E5M2FNUZ,
 * TSR_FLOAT8_E8M0FNU; any other dtype returns 0. `saturate` matters for
 * float8_e4m3fn only (see tsr_cast_options.saturate_float8). */
TSR_API uint8_t tsr_float_to_float8(float x, tsr_dtype fmt, bool saturate);

/* A float8 code -> float32, exact. NaN codes give PyTorch's decoded bits:
 * e4m3fn s|7FF00000, e5m2 as float16, fnuz and e8m0fnu 7F800001 (a
 * signalling NaN pattern). e8m0fnu code 00 is 2^-127 (there is no zero).
 * Any other fmt returns a quiet NaN (7FC00000). */
TSR_API float tsr_float8_to_float(uint8_t code, tsr_dtype fmt);

/* One float4_e2m1fn value (the low nibble of `nibble`; the high nibble is
 * ignored) -> float32: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives
 * (nibble 8 is -0.0). A float4_e2m1fn_x2 byte holds element 0 in its low
 * nibble and element 1 in its high nibble. For printing: PyTorch has no
 * casts for this type. */
TSR_API float tsr_float4_to_float(uint8_t nibble);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_CONVERT_H */
