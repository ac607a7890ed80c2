/* Compile-time and run-time version of Tessera. */
#ifndef TESSERA_VERSION_H
#define TESSERA_VERSION_H

#include "tessera/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_VERSION_MAJOR 0
#define TSR_VERSION_MINOR 1
#define TSR_VERSION_PATCH 0
#define TSR_VERSION_STRING "0.1.0"
/* One integer that compares in release order: 0x00MMmmpp. */
#define TSR_VERSION_NUMBER                                                   \
    ((TSR_VERSION_MAJOR << 16) | (TSR_VERSION_MINOR << 8) | TSR_VERSION_PATCH)

/* The version of the library actually loaded, as TSR_VERSION_NUMBER. */
TSR_API unsigned tsr_version(void);
/* The same as a string ("0.1.0"), static storage. */
TSR_API const char *tsr_version_string(void);
/* "tessera 0.1.0": the library's name and the version it was built as. */
TSR_API const char *tsr_build_info(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_VERSION_H */
