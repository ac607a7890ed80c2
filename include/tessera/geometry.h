/* Geometry: element counts, byte sizes, broadcasting, and views as pure
 * functions over (sizes, strides, storage offset). A view never copies
 * data; these functions compute the view's geometry and check it, so that
 * the client library and the daemon apply one set of rules.
 *
 * All counts are in elements; byte sizes multiply by the dtype's itemsize.
 * Every size computed from input is overflow-checked. Outputs are written
 * only on success, and an output may alias the input. */
#ifndef TESSERA_GEOMETRY_H
#define TESSERA_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/layout.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of a strided tensor over its storage. */
typedef struct tsr_geometry {
    int32_t ndim;
    int64_t sizes[TSR_MAX_DIMS];
    int64_t strides[TSR_MAX_DIMS];
    int64_t offset; /* storage offset, in elements */
} tsr_geometry;

/* Product of the sizes (1 for ndim 0). TSR_ERR_OVERFLOW past INT64_MAX,
 * TSR_ERR_RUNTIME for a negative size, TSR_ERR_INVALID_ARGUMENT for bad
 * ndim. */
TSR_API tsr_status tsr_numel(int ndim, const int64_t *sizes, int64_t *out);
/* numel * itemsize(dtype), overflow-checked. */
TSR_API tsr_status tsr_nbytes(int ndim, const int64_t *sizes, tsr_dtype dtype, int64_t *out);

/* A fresh tensor's geometry in `format` (offset 0); errors as
 * tsr_strides_for. */
TSR_API tsr_status tsr_geometry_init(int ndim, const int64_t *sizes, tsr_memory_format format,
                                     tsr_geometry *out);

/* The number of storage elements a view needs: 0 when it has no elements,
 * else offset + sum((size-1) * stride) + 1. Negative strides or offset are
 * TSR_ERR_RUNTIME; overflow TSR_ERR_OVERFLOW. */
TSR_API tsr_status tsr_geometry_storage_span(const tsr_geometry *g, int64_t *out);

/* Broadcasts two shapes (torch.broadcast_shapes of two). Mismatch is
 * TSR_ERR_RUNTIME "The size of tensor a (3) must match the size of tensor
 * b (2) at non-singleton dimension 1". `out` has room for TSR_MAX_DIMS. */
TSR_API tsr_status tsr_broadcast_shapes(int ndim_a, const int64_t *a, int ndim_b,
                                        const int64_t *b, int *out_ndim, int64_t *out);

/* Wraps a possibly negative dim for a tensor of `ndim` dimensions
 * (0-dim tensors accept -1 and 0). TSR_ERR_INDEX "Dimension out of range
 * (expected to be in range of [-3, 2], but got 3)". */
TSR_API tsr_status tsr_wrap_dim(int64_t dim, int ndim, int *out);

/* The views. Each has the semantics and the error messages of the tensor
 * method of the same name in PyTorch. */
TSR_API tsr_status tsr_view_transpose(const tsr_geometry *in, int64_t dim0, int64_t dim1,
                                      tsr_geometry *out);
/* tensor.t(): ndim <= 2 only ("t() expects a tensor with <= 2 dimensions,
 * but self is 3D"). */
TSR_API tsr_status tsr_view_t(const tsr_geometry *in, tsr_geometry *out);
TSR_API tsr_status tsr_view_permute(const tsr_geometry *in, const int64_t *dims, int ndims,
                                    tsr_geometry *out);
TSR_API tsr_status tsr_view_narrow(const tsr_geometry *in, int64_t dim, int64_t start,
                                   int64_t length, tsr_geometry *out);
TSR_API tsr_status tsr_view_select(const tsr_geometry *in, int64_t dim, int64_t index,
                                   tsr_geometry *out);
/* Python slicing x[:, start:end:step] on one dimension; start/end are
 * clamped like Python's; has_start/has_end false means omitted. step must
 * be positive ("step must be greater than zero"). */
TSR_API tsr_status tsr_view_slice(const tsr_geometry *in, int64_t dim, bool has_start,
                                  int64_t start, bool has_end, int64_t end, int64_t step,
                                  tsr_geometry *out);
TSR_API tsr_status tsr_view_unsqueeze(const tsr_geometry *in, int64_t dim, tsr_geometry *out);
/* squeeze(dim): removes dim when its size is 1, else returns the input. */
TSR_API tsr_status tsr_view_squeeze(const tsr_geometry *in, int64_t dim, tsr_geometry *out);
/* expand(sizes): -1 keeps a size; new leading dims get stride 0. With
 * fewer sizes than dimensions the message reads "expand(Tensor{[2, 3]},
 * size=[3]): ..." where PyTorch names the legacy type
 * ("torch.FloatTensor{...}"): geometry knows no dtype. */
TSR_API tsr_status tsr_view_expand(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                                   tsr_geometry *out);
/* as_strided(sizes, strides, offset) over a storage of `storage_elems`
 * elements of `itemsize` bytes: the new geometry must stay inside it
 * (PyTorch's setStorage message). */
TSR_API tsr_status tsr_view_as_strided(const tsr_geometry *in, int ndim, const int64_t *sizes,
                                       const int64_t *strides, int64_t offset,
                                       int64_t storage_elems, size_t itemsize,
                                       tsr_geometry *out);
/* view(sizes): one size may be -1. Fails when the strides do not allow a
 * view ("view size is not compatible with input tensor's size and stride
 * (at least one dimension spans across two contiguous subspaces). Use
 * .reshape(...) instead."). */
TSR_API tsr_status tsr_view_view(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                                 tsr_geometry *out);
/* reshape(sizes): the view when one exists (*copied = false), otherwise
 * the contiguous geometry of a copy at offset 0 (*copied = true). */
TSR_API tsr_status tsr_view_reshape(const tsr_geometry *in, const int64_t *sizes, int nsizes,
                                    tsr_geometry *out, bool *copied);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_GEOMETRY_H */
