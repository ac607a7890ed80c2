/* A test-only OpenCL ICD that misbehaves the moment the ICD loader
 * enumerates it, so the tests can watch tsr__cl_discover survive a driver
 * that crashes (FIXTURE_ICD_CRASH: a store through a null pointer,
 * SIGSEGV), aborts (FIXTURE_ICD_ABORT: SIGABRT), ends the process
 * (FIXTURE_ICD_EXIT: _exit(42)) or hangs (FIXTURE_ICD_HANG: waits for
 * signals forever). It is a real ICD as ocl-icd loads one: a
 * library that exports clGetExtensionFunctionAddress, clIcdGetPlatformIDsKHR
 * and clGetPlatformInfo (ocl-icd skips an ICD that lacks any of them before
 * asking it for platforms), named by a .icd file in OCL_ICD_VENDORS. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OpenCL's types, spelled out: CL/cl.h declares clGetExtensionFunctionAddress
 * only for deprecated API levels. */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef struct _cl_platform_id *cl_platform_id;

cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                              cl_uint *num_platforms);
cl_int clGetPlatformInfo(cl_platform_id platform, cl_uint param, size_t size, void *value,
                         size_t *size_ret);
void *clGetExtensionFunctionAddress(const char *name);

static void misbehave(void)
{
#if defined(FIXTURE_ICD_CRASH)
    /* Volatile both ways, so the compiler neither drops the store nor turns it into a trap. */
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
#elif defined(FIXTURE_ICD_ABORT)
    abort();
#elif defined(FIXTURE_ICD_EXIT)
    _exit(42);
#elif defined(FIXTURE_ICD_HANG)
    for (;;)
        pause();
#else
#error "define FIXTURE_ICD_CRASH, _ABORT, _EXIT or _HANG"
#endif
}

cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                              cl_uint *num_platforms)
{
    (void)num_entries;
    (void)platforms;
    misbehave();
    if (num_platforms)
        *num_platforms = 0;
    return -1001; /* CL_PLATFORM_NOT_FOUND_KHR, should misbehave() return */
}

/* Never reached: there is no platform to ask about. */
cl_int clGetPlatformInfo(cl_platform_id platform, cl_uint param, size_t size, void *value,
                         size_t *size_ret)
{
    (void)platform;
    (void)param;
    (void)size;
    (void)value;
    (void)size_ret;
    return -32; /* CL_INVALID_PLATFORM */
}

void *clGetExtensionFunctionAddress(const char *name)
{
    if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)(uintptr_t)clIcdGetPlatformIDsKHR;
    if (strcmp(name, "clGetPlatformInfo") == 0)
        return (void *)(uintptr_t)clGetPlatformInfo;
    return NULL;
}
