/* Internal view of the dtype table, shared by the core's modules. */
#ifndef TESSERA_CORE_DTYPE_H
#define TESSERA_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/dtype.h"

typedef struct tsr__dtype_info {
    const char *name;         /* canonical Python name: "float32" */
    const char *message_name; /* c10 toString: "Float" */
    const char *alias;        /* "float", or NULL */
    const char *abbr;         /* "f32" */
    uint8_t itemsize;
    tsr_dtype_category category;
    bool is_signed;
    bool shell;
    int8_t classic; /* index into the 13x13 promotion table, -1 if none */
} tsr__dtype_info;

extern const tsr__dtype_info tsr__dtypes[TSR_DTYPE_COUNT];

static inline bool tsr__dtype_valid(tsr_dtype d)
{
    return (unsigned)d < TSR_DTYPE_COUNT;
}

/* c10's name of a dtype's C++ type, as PyTorch's "Expected out tensor to
 * have dtype float, but got double instead" prints it ("long int",
 * "c10::Half"); "?" for no dtype. */
const char *tsr__dtype_cpp_name(tsr_dtype d);

#endif /* TESSERA_CORE_DTYPE_H */
