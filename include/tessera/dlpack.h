/* DLPack: handing tensors to other frameworks (NumPy, PyTorch, CuPy, ...)
 * and taking theirs, without copying, through DLPack's DLManagedTensor.
 *
 * This header is not included by <tessera/tessera.h>: it needs DLPack's
 * own <dlpack/dlpack.h> (Debian: libdlpack-dev), and programs that do not
 * exchange tensors should not need it. Include it beside tessera.h.
 *
 * Dtypes map as DLPack defines them: (u)int8..64 to kDLInt/kDLUInt,
 * float16/32/64 to kDLFloat, bfloat16 to kDLBfloat, complex32/64/128 to
 * kDLComplex with 32/64/128 bits (a compact pair of float16, float32,
 * float64, as PyTorch maps ComplexHalf), bool to kDLBool (code 6, 8 bits)
 * as DLPack 0.8 added it (DLPack 0.6 and the consumers built on it, NumPy
 * 1.24 and PyTorch 1.13, refuse bool; that is their error, not ours).
 * DLPack has no code for the float8 and float4 dtypes: exporting them is
 * TSR_ERR_NOT_SUPPORTED. Strides are always given, in elements.
 *
 * Devices: cpu tensors are kDLCPU, `data` the address of the first element
 * and byte_offset 0, as PyTorch and NumPy export (DLPack's 256-byte
 * alignment of `data` is kept by no CPU producer, and PyTorch 1.13 ignores
 * byte_offset on import). Accelerator tensors (opencl) are exported as
 * their device type, kDLOpenCL with the device's index, `data` standing
 * for the allocation (its host mapping, not a buffer object: clients never
 * see the driver's objects) and byte_offset the view's offset in bytes, as DLPack
 * asks of devices whose pointers are handles. Only Tessera can take such
 * a tensor back (it comes back as itself). On devices whose memory the
 * host shares (the daemon's arena is mapped in this process, and devices
 * such as PoCL's CPU device compute in it), TSR_DLPACK_HOST hands the
 * tensor over as host memory instead: kDLCPU, after waiting for every
 * kernel this client queued on the device. */
#ifndef TESSERA_DLPACK_H
#define TESSERA_DLPACK_H

#include <dlpack/dlpack.h>

#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack 0.8's kDLBool, which older dlpack.h headers lack. */
#define TSR_DLPACK_BOOL 6

/* Flags of tsr_tensor_to_dlpack. */
enum {
    /* Export an accelerator tensor whose memory the host shares as
     * kDLCPU host memory: first waits for the kernels this client queued
     * on its device (tsr_synchronize), and returns an error one of them
     * raised. A cpu tensor is exported as it is. A device the host cannot
     * address is TSR_ERR_NOT_SUPPORTED. After the call, the consumer's
     * accesses are its own to order with kernels queued later. */
    TSR_DLPACK_HOST = 1u << 0
};

/* Exports `tensor` without copying: *out describes its elements (sizes,
 * strides, offset, dtype and device as above) and holds a reference to
 * its storage, so the memory stays valid however the caller releases the
 * tensor. The caller owns *out and gives it up by calling
 * (*out)->deleter(*out) exactly once, or by passing it to a consumer that
 * will (tsr_tensor_from_dlpack, PyTorch's fromDLPack). Writes *out only on
 * success. Errors: TSR_ERR_INVALID_ARGUMENT for NULL arguments and unknown
 * flags; TSR_ERR_NOT_SUPPORTED for dtypes DLPack has no code for ("DLPack
 * has no type code for float8_e4m3fn") and memory the host cannot
 * address; TSR_ERR_RUNTIME "Cannot pack tensors on meta" (PyTorch's
 * words); with TSR_DLPACK_HOST, a queued kernel's error;
 * TSR_ERR_OUT_OF_MEMORY. */
TSR_API tsr_status tsr_tensor_to_dlpack(const tsr_tensor *tensor, unsigned flags,
                                        DLManagedTensor **out);

/* Imports a DLPack tensor without copying. On success the library owns
 * `managed`: *out (one reference, the caller's) views its memory, and
 * managed->deleter (when not NULL) is called exactly once, when the last
 * tensor viewing that memory is released (or at once, for a tensor that
 * comes back as itself). On failure nothing is taken: the caller still
 * owns `managed` and calls its deleter.
 *
 * kDLCPU memory becomes a cpu tensor at data + byte_offset, with the
 * given strides (NULL: row-major). kDLOpenCL tensors are accepted only
 * when this library exported them and `client` is their session; they
 * come back as the tensor exported (a view of the same storage). `client`
 * may be NULL for host memory. Errors: TSR_ERR_INVALID_ARGUMENT for NULL
 * arguments, a negative size, a NULL data pointer with elements, more
 * than TSR_MAX_DIMS dimensions, another session's tensor;
 * TSR_ERR_NOT_SUPPORTED for other device types, vector types (lanes > 1),
 * type codes and widths no Tessera dtype has ("DLPack type (code 2, bits
 * 8, lanes 1) has no Tessera dtype") and negative strides;
 * TSR_ERR_OVERFLOW for extents past INT64_MAX bytes. */
TSR_API tsr_status tsr_tensor_from_dlpack(tsr_client *client, DLManagedTensor *managed,
                                          tsr_tensor **out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DLPACK_H */
