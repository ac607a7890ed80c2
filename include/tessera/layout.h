/* Layouts, memory formats, stride construction and contiguity, as PyTorch
 * decides them. Pure functions over (ndim, sizes, strides); no allocation.
 * Sizes and strides are counted in elements. */
#ifndef TESSERA_LAYOUT_H
#define TESSERA_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most dimensions a tensor may have. PyTorch's own kernels stop at 25 too. */
#define TSR_MAX_DIMS 25

typedef enum tsr_layout { TSR_STRIDED, TSR_SPARSE_COO, TSR_LAYOUT_COUNT } tsr_layout;

typedef enum tsr_memory_format {
    TSR_CONTIGUOUS_FORMAT,
    TSR_CHANNELS_LAST,
    TSR_CHANNELS_LAST_3D,
    TSR_PRESERVE_FORMAT,
    TSR_MEMORY_FORMAT_COUNT
} tsr_memory_format;

/* "strided", "sparse_coo" (Python: torch.strided); NULL when invalid. */
TSR_API const char *tsr_layout_name(tsr_layout layout);
/* Accepts the name with or without "torch."; other PyTorch layouts
 * (sparse_csr, ...) are TSR_ERR_NOT_SUPPORTED, anything else
 * TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_layout_from_name(const char *name, tsr_layout *out);
/* "contiguous_format", "channels_last", "channels_last_3d",
 * "preserve_format"; NULL when invalid. */
TSR_API const char *tsr_memory_format_name(tsr_memory_format format);
/* Accepts those names with or without "torch.", and
 * "legacy_contiguous_format" (an alias of contiguous_format). */
TSR_API tsr_status tsr_memory_format_from_name(const char *name, tsr_memory_format *out);

/* Strides of a fresh tensor of these sizes in `format` (torch.empty(...,
 * memory_format=format)). channels_last needs ndim 4, channels_last_3d
 * ndim 5 (TSR_ERR_RUNTIME "required rank 4 tensor to use channels_last
 * format"); preserve_format is TSR_ERR_RUNTIME "unsupported memory format
 * Preserve"; a negative size is TSR_ERR_RUNTIME; ndim outside
 * [0, TSR_MAX_DIMS] is TSR_ERR_INVALID_ARGUMENT; overflow is
 * TSR_ERR_OVERFLOW. Writes strides[0..ndim) only on success. */
TSR_API tsr_status tsr_strides_for(int ndim, const int64_t *sizes, tsr_memory_format format,
                                   int64_t *strides);

/* tensor.is_contiguous(memory_format=format), exactly as PyTorch computes
 * it, size-0 and size-1 dimensions included. preserve_format answers as
 * contiguous_format does. */
TSR_API bool tsr_is_contiguous(int ndim, const int64_t *sizes, const int64_t *strides,
                               tsr_memory_format format);

/* PyTorch's is_non_overlapping_and_dense. */
TSR_API bool tsr_is_non_overlapping_and_dense(int ndim, const int64_t *sizes,
                                              const int64_t *strides);

/* The strides empty_like / clone / to pick under preserve_format: the
 * input's own strides when they are non-overlapping and dense, otherwise
 * dense strides in the same order (PyTorch's infer_dense_strides). Writes
 * out[0..ndim) only on success; fails only for bad ndim or overflow. */
TSR_API tsr_status tsr_preserve_strides(int ndim, const int64_t *sizes, const int64_t *strides,
                                        int64_t *out);

/* suggest_memory_format: channels_last for rank-4 tensors whose strides
 * look like channels_last, channels_last_3d likewise for rank 5, else
 * contiguous_format. With `exact`, the strides must also equal the fresh
 * strides of that format. */
TSR_API tsr_memory_format tsr_suggest_memory_format(int ndim, const int64_t *sizes,
                                                    const int64_t *strides, bool exact);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_LAYOUT_H */
