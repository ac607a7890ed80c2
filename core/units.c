/* See units.h. */
#include "core/units.h"

#include <string.h>

#include "core/error.h"

static const struct {
    const char *suffix;
    unsigned shift;
} suffixes[] = {
    {"", 0},    {"B", 0},    {"K", 10},   {"KB", 10},  {"KiB", 10}, {"M", 20},
    {"MB", 20}, {"MiB", 20}, {"G", 30},   {"GB", 30},  {"GiB", 30}, {"T", 40},
    {"TB", 40}, {"TiB", 40},
};

tsr_status tsr__parse_size(const char *text, uint64_t *out)
{
    if (!text)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "missing size");
    const char *p = text;
    uint64_t value = 0;
    if (*p < '0' || *p > '9')
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid size '%.64s': expected a number of bytes such as 4096, 64M or 2GiB",
                         text);
    for (; *p >= '0' && *p <= '9'; p++) {
        if (__builtin_mul_overflow(value, 10u, &value) ||
            __builtin_add_overflow(value, (uint64_t)(*p - '0'), &value))
            return tsr__fail(TSR_ERR_OVERFLOW, "size '%.64s' is too large", text);
    }
    for (size_t k = 0; k < TSR__ARRAY_SIZE(suffixes); k++) {
        if (strcmp(p, suffixes[k].suffix) != 0)
            continue;
        if (suffixes[k].shift && value > (UINT64_MAX >> suffixes[k].shift))
            return tsr__fail(TSR_ERR_OVERFLOW, "size '%.64s' is too large", text);
        *out = value << suffixes[k].shift;
        return TSR_OK;
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "invalid size '%.64s': unknown unit '%.16s' (use K, M, G or T)", text, p);
}
