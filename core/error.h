/* Internal: setting the calling thread's error message.
 *
 * tsr__fail formats the message into a thread-local buffer and returns the
 * status, so a failure site is one statement:
 *     return tsr__fail(TSR_ERR_TYPE, "invalid dtype name: '%s'", name);
 * Messages longer than TSR__ERROR_MAX are cut. Nothing is allocated. */
#ifndef TESSERA_CORE_ERROR_H
#define TESSERA_CORE_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/status.h"

#define TSR__ERROR_MAX 1024

#if defined(__GNUC__)
#define TSR__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TSR__PRINTF(a, b)
#endif

tsr_status tsr__fail(tsr_status status, const char *fmt, ...) TSR__PRINTF(2, 3);
/* Copies an existing message (from the wire, say) verbatim. */
tsr_status tsr__fail_text(tsr_status status, const char *text);

/* Formats dims as PyTorch prints an IntArrayRef, "[2, 3, 4]", into buf
 * (cut to fit) and returns buf. */
#define TSR__DIMS_TEXT 512
const char *tsr__format_dims(char *buf, size_t n, const int64_t *dims, int count);

#define TSR__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Whether a caller's struct left its reserved words zero, as the ABI
 * (tessera/export.h) asks of every struct the library reads. */
static inline bool tsr__abi_reserved_zero(const uint64_t *words, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (words[k])
            return false;
    return true;
}

#endif /* TESSERA_CORE_ERROR_H */
