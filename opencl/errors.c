/* The names of OpenCL's error codes: one list, indexed by the header's own
 * values, so no number is written here by hand. */
#include "opencl/errors.h"

#include <stdio.h>

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#define TSR__CL_ERRORS(X)                                                                    \
    X(CL_DEVICE_NOT_FOUND)                                                                   \
    X(CL_DEVICE_NOT_AVAILABLE)                                                               \
    X(CL_COMPILER_NOT_AVAILABLE)                                                             \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE)                                                      \
    X(CL_OUT_OF_RESOURCES)                                                                   \
    X(CL_OUT_OF_HOST_MEMORY)                                                                 \
    X(CL_PROFILING_INFO_NOT_AVAILABLE)                                                       \
    X(CL_MEM_COPY_OVERLAP)                                                                   \
    X(CL_IMAGE_FORMAT_MISMATCH)                                                              \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED)                                                         \
    X(CL_BUILD_PROGRAM_FAILURE)                                                              \
    X(CL_MAP_FAILURE)                                                                        \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET)                                                       \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                                          \
    X(CL_COMPILE_PROGRAM_FAILURE)                                                            \
    X(CL_LINKER_NOT_AVAILABLE)                                                               \
    X(CL_LINK_PROGRAM_FAILURE)                                                               \
    X(CL_DEVICE_PARTITION_FAILED)                                                            \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)                                                      \
    X(CL_INVALID_VALUE)                                                                      \
    X(CL_INVALID_DEVICE_TYPE)                                                                \
    X(CL_INVALID_PLATFORM)                                                                   \
    X(CL_INVALID_DEVICE)                                                                     \
    X(CL_INVALID_CONTEXT)                                                                    \
    X(CL_INVALID_QUEUE_PROPERTIES)                                                           \
    X(CL_INVALID_COMMAND_QUEUE)                                                              \
    X(CL_INVALID_HOST_PTR)                                                                   \
    X(CL_INVALID_MEM_OBJECT)                                                                 \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)                                                    \
    X(CL_INVALID_IMAGE_SIZE)                                                                 \
    X(CL_INVALID_SAMPLER)                                                                    \
    X(CL_INVALID_BINARY)                                                                     \
    X(CL_INVALID_BUILD_OPTIONS)                                                              \
    X(CL_INVALID_PROGRAM)                                                                    \
    X(CL_INVALID_PROGRAM_EXECUTABLE)                                                         \
    X(CL_INVALID_KERNEL_NAME)                                                                \
    X(CL_INVALID_KERNEL_DEFINITION)                                                          \
    X(CL_INVALID_KERNEL)                                                                     \
    X(CL_INVALID_ARG_INDEX)                                                                  \
    X(CL_INVALID_ARG_VALUE)                                                                  \
    X(CL_INVALID_ARG_SIZE)                                                                   \
    X(CL_INVALID_KERNEL_ARGS)                                                                \
    X(CL_INVALID_WORK_DIMENSION)                                                             \
    X(CL_INVALID_WORK_GROUP_SIZE)                                                            \
    X(CL_INVALID_WORK_ITEM_SIZE)                                                             \
    X(CL_INVALID_GLOBAL_OFFSET)                                                              \
    X(CL_INVALID_EVENT_WAIT_LIST)                                                            \
    X(CL_INVALID_EVENT)                                                                      \
    X(CL_INVALID_OPERATION)                                                                  \
    X(CL_INVALID_GL_OBJECT)                                                                  \
    X(CL_INVALID_BUFFER_SIZE)                                                                \
    X(CL_INVALID_MIP_LEVEL)                                                                  \
    X(CL_INVALID_GLOBAL_WORK_SIZE)                                                           \
    X(CL_INVALID_PROPERTY)                                                                   \
    X(CL_INVALID_IMAGE_DESCRIPTOR)                                                           \
    X(CL_INVALID_COMPILER_OPTIONS)                                                           \
    X(CL_INVALID_LINKER_OPTIONS)                                                             \
    X(CL_INVALID_DEVICE_PARTITION_COUNT)                                                     \
    X(CL_INVALID_PIPE_SIZE)                                                                  \
    X(CL_INVALID_DEVICE_QUEUE)                                                               \
    X(CL_INVALID_SPEC_ID)                                                                    \
    X(CL_MAX_SIZE_RESTRICTION_EXCEEDED)

#define TSR__CL_ERROR_NAME(code) [-(code)] = #code,
static const char *const names[] = {TSR__CL_ERRORS(TSR__CL_ERROR_NAME)};
#define TSR__CL_ERROR_FITS(code)                                                             \
    _Static_assert((code) < 0 && sizeof #code <= TSR__CL_ERROR_NAME_MAX, #code " fits");
TSR__CL_ERRORS(TSR__CL_ERROR_FITS)

const char *tsr__cl_error_name(int code, char *buf, size_t n)
{
    if (code < 0 && -(long)code < (long)(sizeof names / sizeof names[0]) && names[-code])
        return names[-code];
    snprintf(buf, n, "OpenCL error %d", code);
    return buf;
}
