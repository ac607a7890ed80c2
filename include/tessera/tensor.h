/* Tensors: strided arrays of any of the 22 dtypes on a device, with
 * PyTorch's factory functions, attributes and views.
 *
 * A tsr_tensor is reference-counted (tsr_tensor_retain/release) and views
 * share their base's storage. Where the data lives:
 *   - cpu: in this process (64-byte aligned);
 *   - accelerators (opencl): in a daemon arena mapped into this process,
 *     so host-visible devices are read and written in place;
 *   - meta: nowhere; shapes, strides and dtypes only.
 * Creating accelerator tensors needs a client (tessera/client.h); cpu and
 * meta tensors accept a NULL client. A tensor keeps its client's session
 * alive until it is released.
 *
 * Functions that return a new tensor write *out only on success; the caller
 * owns it (one reference). Tensor arguments are borrowed. */
#ifndef TESSERA_TENSOR_H
#define TESSERA_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/client.h"
#include "tessera/device.h"
#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/geometry.h"
#include "tessera/layout.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_tensor tsr_tensor;

/* A Python number: its kind is TSR_BOOL, TSR_INT64, TSR_FLOAT64 or
 * TSR_COMPLEX128 (as tsr_operand's scalar kinds). */
typedef struct tsr_scalar {
    tsr_dtype kind;
    union {
        bool b;
        int64_t i;
        double f;
        double c[2]; /* real, imaginary */
    } v;
} tsr_scalar;

static inline tsr_scalar tsr_scalar_bool(bool b)
{
    tsr_scalar s;
    s.kind = TSR_BOOL;
    s.v.b = b;
    return s;
}
static inline tsr_scalar tsr_scalar_int(int64_t i)
{
    tsr_scalar s;
    s.kind = TSR_INT64;
    s.v.i = i;
    return s;
}
static inline tsr_scalar tsr_scalar_float(double f)
{
    tsr_scalar s;
    s.kind = TSR_FLOAT64;
    s.v.f = f;
    return s;
}
static inline tsr_scalar tsr_scalar_complex(double re, double im)
{
    tsr_scalar s;
    s.kind = TSR_COMPLEX128;
    s.v.c[0] = re;
    s.v.c[1] = im;
    return s;
}

/* Factory options. Zero-initialised means defaults: the default dtype (for
 * full, the fill value's kind), the default device (tessera/client.h),
 * strided layout, contiguous format (preserve format for *_like). A NULL
 * options pointer means the same. Every factory but empty_strided honours
 * a memory format (PyTorch's zeros/ones/full take none). */
typedef struct tsr_tensor_options {
    bool has_dtype;
    tsr_dtype dtype;
    bool has_device;
    tsr_device device;   /* an index-less accelerator device means the current one */
    tsr_layout layout;   /* TSR_STRIDED; TSR_SPARSE_COO is not supported by the factories */
    bool has_memory_format;
    tsr_memory_format memory_format;
    uint64_t abi_reserved[8]; /* zero; room for later members (export.h) */
} tsr_tensor_options;

/* ---- Factories ------------------------------------------------------ */

/* torch.empty(sizes, ...): uninitialised memory. Errors: TSR_ERR_RUNTIME
 * with PyTorch's text for negative sizes ("Trying to create tensor with
 * negative dimension -1: [2, -1]"), sizes whose byte count overflows
 * ("Storage size calculation overflowed with sizes=[...]"), preserve format
 * ("unsupported memory format Preserve"), channels_last ranks and a memory
 * format with a sparse layout ("memory format option is only supported by
 * strided tensors"); TSR_ERR_NOT_SUPPORTED for TSR_SPARSE_COO;
 * TSR_ERR_NO_DEVICE for a device that does not exist here;
 * TSR_ERR_INVALID_ARGUMENT for an accelerator device with a NULL client,
 * more than TSR_MAX_DIMS sizes or an invalid option; TSR_ERR_OUT_OF_MEMORY
 * from the device. */
TSR_API tsr_status tsr_tensor_empty(tsr_client *client, int ndim, const int64_t *sizes,
                                    const tsr_tensor_options *options, tsr_tensor **out);
/* torch.empty_strided: the given strides; the storage spans them. Negative
 * strides and overflowing extents are TSR_ERR_RUNTIME "Storage size
 * calculation overflowed with sizes=[2, 3] and strides=[-1, 1]", as in
 * PyTorch. memory_format must not be set (TSR_ERR_INVALID_ARGUMENT). */
TSR_API tsr_status tsr_tensor_empty_strided(tsr_client *client, int ndim, const int64_t *sizes,
                                            const int64_t *strides,
                                            const tsr_tensor_options *options, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_zeros(tsr_client *client, int ndim, const int64_t *sizes,
                                    const tsr_tensor_options *options, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_ones(tsr_client *client, int ndim, const int64_t *sizes,
                                   const tsr_tensor_options *options, tsr_tensor **out);
/* torch.full: without a dtype the fill value's kind decides (bool → bool,
 * integer → int64, floating → default dtype, complex → default complex).
 * The value is converted as fill_ does (c10's Scalar::to<T>()): a value
 * outside the dtype's range, NaN or infinity into a type without them, or a
 * nonzero imaginary part into a real type is TSR_ERR_RUNTIME "value cannot
 * be converted to type int8_t without overflow" (bool takes anything;
 * negative integers wrap into unsigned types when their magnitude fits);
 * anything else converts with tsr_cast_buffer's rules and c10's scalar NaN
 * bits. float4_e2m1fn_x2 has no conversions: zeros and ones (0x22, 1.0 in
 * both nibbles) fill it, full fails with tsr_cast_buffer's
 * TSR_ERR_NOT_SUPPORTED. */
TSR_API tsr_status tsr_tensor_full(tsr_client *client, int ndim, const int64_t *sizes,
                                   tsr_scalar value, const tsr_tensor_options *options,
                                   tsr_tensor **out);
/* A tensor holding a copy of `data`: numel elements of src_dtype in
 * row-major order, converted to options->dtype (default: src_dtype) with
 * tsr_cast_buffer's rules. */
TSR_API tsr_status tsr_tensor_from_data(tsr_client *client, int ndim, const int64_t *sizes,
                                        tsr_dtype src_dtype, const void *data,
                                        const tsr_tensor_options *options, tsr_tensor **out);
/* empty_like / zeros_like / ones_like / full_like: dtype, device and (under
 * the default preserve format) strides follow `like`; options override.
 * The default device does not apply. Accelerator memory is reached through
 * `like`'s client, so an accelerator device for a cpu or meta `like` is
 * TSR_ERR_INVALID_ARGUMENT (no client). */
TSR_API tsr_status tsr_tensor_empty_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                         tsr_tensor **out);
TSR_API tsr_status tsr_tensor_zeros_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                         tsr_tensor **out);
TSR_API tsr_status tsr_tensor_ones_like(const tsr_tensor *like, const tsr_tensor_options *options,
                                        tsr_tensor **out);
TSR_API tsr_status tsr_tensor_full_like(const tsr_tensor *like, tsr_scalar value,
                                        const tsr_tensor_options *options, tsr_tensor **out);

/* ---- Lifetime ------------------------------------------------------- */

TSR_API tsr_tensor *tsr_tensor_retain(tsr_tensor *tensor);   /* returns tensor; NULL ok */
TSR_API void tsr_tensor_release(tsr_tensor *tensor);         /* NULL ok */

/* ---- Attributes (never fail on a valid tensor) ---------------------- */

TSR_API tsr_dtype tsr_tensor_dtype(const tsr_tensor *tensor);
TSR_API tsr_device tsr_tensor_device(const tsr_tensor *tensor); /* cpu and meta: index -1 */
TSR_API int64_t tsr_tensor_get_device(const tsr_tensor *tensor); /* index; -1 for cpu and meta */
TSR_API tsr_layout tsr_tensor_layout(const tsr_tensor *tensor);
TSR_API int tsr_tensor_ndim(const tsr_tensor *tensor);
TSR_API const int64_t *tsr_tensor_sizes(const tsr_tensor *tensor);   /* ndim entries, valid while alive */
TSR_API const int64_t *tsr_tensor_strides(const tsr_tensor *tensor); /* ndim entries, in elements */
TSR_API int64_t tsr_tensor_storage_offset(const tsr_tensor *tensor); /* elements */
TSR_API int64_t tsr_tensor_numel(const tsr_tensor *tensor);
TSR_API int64_t tsr_tensor_nbytes(const tsr_tensor *tensor);         /* numel * itemsize */
TSR_API size_t tsr_tensor_itemsize(const tsr_tensor *tensor);
TSR_API bool tsr_tensor_is_contiguous(const tsr_tensor *tensor, tsr_memory_format format);
TSR_API void tsr_tensor_geometry(const tsr_tensor *tensor, tsr_geometry *out);
/* size(dim) / stride(dim) with negative dims wrapped; TSR_ERR_INDEX with
 * PyTorch's "Dimension out of range (expected to be in range of [-2, 1],
 * but got 2)", and for a 0-dim tensor "Dimension specified as 0 but tensor
 * has no dimensions". */
TSR_API tsr_status tsr_tensor_size(const tsr_tensor *tensor, int64_t dim, int64_t *out);
TSR_API tsr_status tsr_tensor_stride(const tsr_tensor *tensor, int64_t dim, int64_t *out);
/* tensor.type(): "torch.FloatTensor", "torch.opencl.FloatTensor". */
TSR_API size_t tsr_tensor_type(const tsr_tensor *tensor, char *buf, size_t n);
/* Whether two tensors view the same storage. */
TSR_API bool tsr_tensor_shares_storage(const tsr_tensor *a, const tsr_tensor *b);

/* The host address of the element at the storage offset (data_ptr()).
 * Valid while the tensor lives. Unlike the library's own host copies,
 * accesses through it are not ordered with kernels: kernels queued on an
 * accelerator may still read or write that memory, so call
 * tsr_synchronize on the tensor's device before reading or writing there,
 * and launch nothing that uses the tensor while writing. Errors:
 * TSR_ERR_RUNTIME "Cannot access data pointer of Tensor that doesn't have
 * storage" for meta tensors; TSR_ERR_NOT_SUPPORTED for devices whose
 * memory the host cannot address. */
TSR_API tsr_status tsr_tensor_data_ptr(const tsr_tensor *tensor, void **out);

/* ---- Views (share storage; PyTorch's rules and messages) ------------ */

/* expand's message for too few sizes names the tensor as PyTorch does:
 * "expand(torch.FloatTensor{[2, 3]}, size=[3]): ..." ("CPUBoolType",
 * "MetaFloatType" where PyTorch has no legacy name for it). */

TSR_API tsr_status tsr_tensor_transpose(const tsr_tensor *t, int64_t dim0, int64_t dim1, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_t(const tsr_tensor *t, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_permute(const tsr_tensor *t, const int64_t *dims, int ndims, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_narrow(const tsr_tensor *t, int64_t dim, int64_t start, int64_t length,
                                     tsr_tensor **out);
TSR_API tsr_status tsr_tensor_select(const tsr_tensor *t, int64_t dim, int64_t index, tsr_tensor **out);
/* t[..., start:end:step, ...] on `dim`; has_start/has_end false mean omitted. */
TSR_API tsr_status tsr_tensor_slice(const tsr_tensor *t, int64_t dim, bool has_start, int64_t start,
                                    bool has_end, int64_t end, int64_t step, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_unsqueeze(const tsr_tensor *t, int64_t dim, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_squeeze(const tsr_tensor *t, int64_t dim, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_expand(const tsr_tensor *t, const int64_t *sizes, int nsizes, tsr_tensor **out);
/* as_strided(sizes, strides, offset): offset < 0 keeps the tensor's own. The
 * view must stay inside the storage ("setStorage: sizes [..], strides [..],
 * storage offset .., and itemsize .. requiring a storage size of .. are out of
 * bounds for storage of size .."). */
TSR_API tsr_status tsr_tensor_as_strided(const tsr_tensor *t, int ndim, const int64_t *sizes,
                                         const int64_t *strides, int64_t offset, tsr_tensor **out);
TSR_API tsr_status tsr_tensor_view(const tsr_tensor *t, const int64_t *sizes, int nsizes, tsr_tensor **out);
/* A view when the strides allow one, else a contiguous copy (same device). */
TSR_API tsr_status tsr_tensor_reshape(const tsr_tensor *t, const int64_t *sizes, int nsizes, tsr_tensor **out);

/* ---- Host copies ---------------------------------------------------- */

/* Both copies are ordered with kernels, as PyTorch's .cpu() and copy_ from
 * the host are: on an accelerator they first wait for the kernels this
 * client queued on the tensor's device, so a copy to the host sees what
 * they wrote and a copy from the host changes nothing they read or write.
 * An error one of those kernels raised is returned instead (its status
 * and message), once. Only tsr_tensor_data_ptr's address is the caller's
 * to order (tsr_synchronize). */

/* Copies the elements, in row-major order of the tensor's sizes and in its
 * dtype, to `dst` (nbytes must be tsr_tensor_nbytes). Works for any strides.
 * Errors: TSR_ERR_INVALID_ARGUMENT for a size mismatch, TSR_ERR_RUNTIME for
 * meta tensors ("Cannot copy out of meta tensor; no data!"), a queued
 * kernel's error, TSR_ERR_CONNECTION when the daemon is gone. */
TSR_API tsr_status tsr_tensor_copy_to_host(const tsr_tensor *tensor, void *dst, size_t nbytes);
/* The reverse: writes the tensor's elements from `src` (meta: "Cannot copy
 * into meta tensor; no data!"). A tensor whose elements overlap in memory
 * (expanded: a dimension of size > 1 with stride 0) is refused as copy_
 * refuses it (TSR_ERR_RUNTIME "unsupported operation: more than one element
 * of the written-to tensor refers to a single memory location. Please
 * clone() the tensor before performing the operation."); overlap PyTorch
 * cannot prove (as_strided windows) is written in row-major order. */
TSR_API tsr_status tsr_tensor_copy_from_host(tsr_tensor *tensor, const void *src, size_t nbytes);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TENSOR_H */
