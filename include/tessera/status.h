/* Tessera status codes and the per-thread error message.
 *
 * Every function that can fail returns a tsr_status; TSR_OK is zero. On
 * failure the calling thread's message (tsr_last_error) is set in the same
 * step. Messages are worded as PyTorch words the same error where PyTorch
 * has one, so that programs and people moving between the two see the same
 * text. */
#ifndef TESSERA_STATUS_H
#define TESSERA_STATUS_H

#include <stddef.h>

#include "tessera/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, "short description"). One list drives the enum, the names
 * returned by tsr_status_name and the documentation. */
#define TSR_STATUS_LIST(X)                                                   \
    X(TSR_OK, 0, "success")                                                  \
    X(TSR_ERR_INVALID_ARGUMENT, 1, "invalid argument (a ValueError)")        \
    X(TSR_ERR_TYPE, 2, "wrong type (a TypeError)")                           \
    X(TSR_ERR_RUNTIME, 3, "operation not valid here (a RuntimeError)")       \
    X(TSR_ERR_INDEX, 4, "index or dimension out of range (an IndexError)")   \
    X(TSR_ERR_OVERFLOW, 5, "arithmetic overflow in a size or value")         \
    X(TSR_ERR_NOT_SUPPORTED, 6, "not supported for this dtype or device")    \
    X(TSR_ERR_OUT_OF_MEMORY, 7, "out of memory")                             \
    X(TSR_ERR_NO_DEVICE, 8, "no such device")                                \
    X(TSR_ERR_DEVICE, 9, "device or driver failure")                         \
    X(TSR_ERR_CONNECTION, 10, "cannot reach the daemon")                     \
    X(TSR_ERR_PROTOCOL, 11, "malformed or unexpected message")               \
    X(TSR_ERR_PERMISSION, 12, "permission denied")                           \
    X(TSR_ERR_LIMIT, 13, "a configured limit was reached")                   \
    X(TSR_ERR_IO, 14, "input/output error")                                  \
    X(TSR_ERR_BUFFER_TOO_SMALL, 15, "output buffer too small")

typedef enum tsr_status {
#define TSR__STATUS_ENUM(name, value, text) name = value,
    TSR_STATUS_LIST(TSR__STATUS_ENUM)
#undef TSR__STATUS_ENUM
    TSR_STATUS_COUNT
} tsr_status;

/* The calling thread's message for its last failure. Never NULL: "" when no
 * call on this thread has failed. The string is owned by the library and
 * stays valid until the next failing call on the same thread. */
TSR_API const char *tsr_last_error(void);

/* Sets the calling thread's message to `text` (NULL: "", cut to 1023 bytes)
 * and returns `status`: libraries built on libtessera (libtessera-mpi)
 * report their failures through the same slot, so tsr_last_error reads
 * them. */
TSR_API tsr_status tsr_error_set(tsr_status status, const char *text);

/* The enum name of a status ("TSR_ERR_TYPE"), or "TSR_ERR_UNKNOWN" for a
 * value outside the list. Static storage. */
TSR_API const char *tsr_status_name(tsr_status status);

/* A one-line description of a status, static storage. */
TSR_API const char *tsr_status_text(tsr_status status);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_STATUS_H */
