/* Internal: byte sizes as people write them ("64M", "2GiB", "4096").
 * Used by tesserad's options and the configuration file. */
#ifndef TESSERA_CORE_UNITS_H
#define TESSERA_CORE_UNITS_H

#include <stdint.h>

#include "tessera/status.h"

/* Parses a decimal count with an optional binary suffix: K, M, G, T, each
 * optionally followed by "iB" or "B" (all powers of 1024; "B" alone is
 * bytes). No sign, no spaces, no fractions. TSR_ERR_INVALID_ARGUMENT with
 * the text quoted, TSR_ERR_OVERFLOW past 2^64 - 1. */
tsr_status tsr__parse_size(const char *text, uint64_t *out);

#endif /* TESSERA_CORE_UNITS_H */
