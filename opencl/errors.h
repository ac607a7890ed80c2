/* Internal: the names of OpenCL's error codes, for messages that say
 * CL_OUT_OF_RESOURCES rather than -5. */
#ifndef TESSERA_OPENCL_ERRORS_H
#define TESSERA_OPENCL_ERRORS_H

#include <stddef.h>

/* "CL_OUT_OF_RESOURCES" for -5; for a code the table does not know (a
 * vendor's extension), "OpenCL error <code>" written into buf (n bytes)
 * and returned. */
const char *tsr__cl_error_name(int code, char *buf, size_t n);

/* Room for any name or fallback tsr__cl_error_name writes. */
#define TSR__CL_ERROR_NAME_MAX 48

#endif /* TESSERA_OPENCL_ERRORS_H */
