/* Devices: every device type name PyTorch's parser knows, device strings
 * ("cuda:1"), their str and repr forms, and equality.
 *
 * A tsr_device is a plain value: a type and an index, -1 meaning "no index"
 * (the current device of that type, resolved when memory is allocated). */
#ifndef TESSERA_DEVICE_H
#define TESSERA_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/dtype.h"
#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The numbering follows c10::DeviceType so that values carry over. */
typedef enum tsr_device_type {
    TSR_DEVICE_CPU,
    TSR_DEVICE_CUDA,
    TSR_DEVICE_MKLDNN,
    TSR_DEVICE_OPENGL,
    TSR_DEVICE_OPENCL,
    TSR_DEVICE_IDEEP,
    TSR_DEVICE_HIP,
    TSR_DEVICE_FPGA,
    TSR_DEVICE_MAIA,
    TSR_DEVICE_XLA,
    TSR_DEVICE_VULKAN,
    TSR_DEVICE_METAL,
    TSR_DEVICE_XPU,
    TSR_DEVICE_MPS,
    TSR_DEVICE_META,
    TSR_DEVICE_HPU,
    TSR_DEVICE_VE,
    TSR_DEVICE_LAZY,
    TSR_DEVICE_IPU,
    TSR_DEVICE_MTIA,
    TSR_DEVICE_PRIVATEUSEONE,
    TSR_DEVICE_TYPE_COUNT
} tsr_device_type;

typedef struct tsr_device {
    tsr_device_type type;
    int32_t index; /* -1: none */
} tsr_device;

/* Largest index a device string may carry. PyTorch stores indices in an
 * int8 and silently wraps larger ones ('cuda:128' becomes index -128);
 * Tessera refuses them instead. */
#define TSR_DEVICE_INDEX_MAX 127

/* Longest text tsr_device_str / tsr_device_repr produce, NUL included. */
#define TSR_DEVICE_STR_MAX 64

/* The lower-case name of a type ("cuda", "privateuseone"); NULL for an
 * invalid value. */
TSR_API const char *tsr_device_type_name(tsr_device_type type);
/* True for the types a device string may name (all but metal). */
TSR_API bool tsr_device_type_is_parseable(tsr_device_type type);
/* Looks up a type by its exact lower-case name. Writes *out only on
 * success; failure is TSR_ERR_RUNTIME with PyTorch's "Expected one of ...
 * device type at start of device string: <name>". */
TSR_API tsr_status tsr_device_type_from_name(const char *name, tsr_device_type *out);

/* Parses a device string exactly as torch.device(str) does: "cpu", "cuda:0",
 * "opencl:3". Writes *out only on success. Errors (TSR_ERR_RUNTIME, with
 * PyTorch's text): "Device string must not be empty", "Invalid device
 * string: '<s>'", "Could not parse device index '<i>' in device string
 * '<s>'", "Expected one of <list> device type at start of device string:
 * <name>"; an index above TSR_DEVICE_INDEX_MAX is TSR_ERR_INVALID_ARGUMENT.
 * A NULL string is TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_device_parse(const char *text, tsr_device *out);

/* How the index argument of torch.device(type, index) was given. */
typedef enum tsr_index_arg {
    TSR_INDEX_OMITTED, /* torch.device("cuda:1"): the string may carry an index */
    TSR_INDEX_NONE,    /* torch.device("cuda", None): no index, none in the string */
    TSR_INDEX_GIVEN    /* torch.device("cuda", 1) */
} tsr_index_arg;

/* torch.device(type, index). The type text is parsed as by
 * tsr_device_parse. Errors (TSR_ERR_RUNTIME, PyTorch's text): "Device index
 * must not be negative" for a given index < 0; "type (string) must not
 * include an index because index was passed explicitly: <s>" when the text
 * carries an index and `how` is not TSR_INDEX_OMITTED; an index above
 * TSR_DEVICE_INDEX_MAX is TSR_ERR_INVALID_ARGUMENT. Writes *out only on
 * success. */
TSR_API tsr_status tsr_device_make(const char *type_text, tsr_index_arg how, int64_t index,
                                   tsr_device *out);

/* A device from an index alone on a machine whose accelerator type is
 * `accelerator` (TSR_DEVICE_TYPE_COUNT when the machine has none): fails
 * with TSR_ERR_RUNTIME "Cannot access accelerator device when none is
 * available." in that case, and with "Device index must not be negative"
 * for a negative index. */
TSR_API tsr_status tsr_device_for_accelerator(tsr_device_type accelerator, int64_t index,
                                              tsr_device *out);

/* str(device): "cuda:1", "cpu". Returns the full length; writes at most n
 * bytes including the NUL (snprintf rules). */
TSR_API size_t tsr_device_str(tsr_device device, char *buf, size_t n);
/* repr(device): "device(type='cuda', index=1)", "device(type='cpu')". */
TSR_API size_t tsr_device_repr(tsr_device device, char *buf, size_t n);
/* Same type and same index (cuda != cuda:0, as in PyTorch). */
TSR_API bool tsr_device_equal(tsr_device a, tsr_device b);

/* The comma-separated list of parseable type names in PyTorch's order, as
 * the parser's error message prints it. Static storage. */
TSR_API const char *tsr_device_type_list(void);

/* Legacy tensor type name, as tensor.type() prints it: "torch.FloatTensor",
 * "torch.cuda.LongTensor", "torch.sparse.DoubleTensor" (sparse: true for a
 * sparse layout). Types with no legacy prefix of their own use
 * "torch.<type>.". Returns the full length (snprintf rules). */
TSR_API size_t tsr_tensor_type_name(tsr_dtype dtype, tsr_device_type type, bool sparse,
                                    char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_DEVICE_H */
