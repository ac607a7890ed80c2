/* Shared by the fuzz targets: turning the fuzzer's bytes into the C
 * strings and integers the API takes, and the invariant check.
 *
 * A failed FUZZ_CHECK prints where and why, then aborts, which both
 * libFuzzer and the corpus replay under CTest report as a crash. */
#ifndef TESSERA_TESTS_FUZZ_H
#define TESSERA_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n  last error: %s\n", __FILE__, __LINE__, \
                    #cond, tsr_last_error());                                                      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A failing call must leave a message behind. */
#define FUZZ_CHECK_FAILED(status) FUZZ_CHECK((status) != TSR_OK && tsr_last_error()[0] != '\0')

/* A NUL-terminated heap copy of the input (the API takes C strings); the
 * caller frees it. Embedded NULs simply end the string early. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A cursor over the input; reads past the end give zeros. */
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size, pos;
} fuzz_reader;

static inline uint8_t fuzz_u8(fuzz_reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static inline bool fuzz_empty(const fuzz_reader *r)
{
    return r->pos >= r->size;
}

/* Mostly small values, which is where the interesting shapes are, and now
 * and then a negative, huge or raw 64-bit one for the error paths. */
static inline int64_t fuzz_i64(fuzz_reader *r)
{
    uint8_t t = fuzz_u8(r);
    if (!(t & 0x80))
        return t & 7;
    switch ((t >> 4) & 7) {
    case 0:
        return -(int64_t)(t & 15) - 1;
    case 1: {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = (v << 8) | fuzz_u8(r);
        return (int64_t)v;
    }
    case 2:
        return INT64_MAX - (t & 15);
    case 3:
        return INT64_MIN + (t & 15);
    default:
        return (int64_t)(t & 15) * 16 + fuzz_u8(r) % 16;
    }
}

#endif /* TESSERA_TESTS_FUZZ_H */
