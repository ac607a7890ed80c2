/* See runtime.h. */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "opencl/runtime.h"
#include "opencl/errors.h"
#include "kernels/launch.h"
#include "kernels/reduce_order.h"

#include <CL/cl.h>
#include <clblast_c.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/siphash.h"
#include "kernels/cpu_exec.h"
#include "kernels/gemm.h"
#include "kernels/hugemem.h"
#include "opencl/cache.h"

#define PROGRAM_BUCKETS 256
/* The largest program source: a generic program holds every op of its
 * dtype (the embedded element code is above 230 KiB with pow's tables,
 * about 260 KiB with the complex functions), with room to grow. */
#define SOURCE_MAX (512u << 10)

enum { DEVICE_CLOSED, DEVICE_OPEN, DEVICE_FAILED };

/* The output span of a launch still queued on a device whose launches copy
 * (struct clrt_device's `returning`). */
typedef struct clrt_span {
    const void *buffer; /* its clrt_buffer, compared, never followed */
    uint64_t lo, hi;    /* bytes [lo, hi) */
    struct clrt_span *prev, *next;
} clrt_span;

typedef struct clrt_device {
    tsr__cl_device_info info;
    int state; /* builder thread only, until a program is READY */
    char error[256];
    cl_device_id id;
    cl_context context;
    cl_context build_context; /* where the builder compiles (build, below) */
    cl_platform_id platform;
    cl_command_queue queue;
    /* job_finished calls registered and not yet returned: the driver may
     * make one after clFinish has returned, and it hands the job to the
     * daemon's executor, which must outlive it (tsr__clrt_destroy) */
    atomic_uint callbacks;
    cl_command_queue warm_queue; /* the builder's, for warm_up */
    cl_mem no_status;            /* the status argument of kernels that never set it */
    cl_mem no_geom;              /* the geom argument of launches with at most three dimensions */
    char options[128];
    bool host_code; /* launches and products as native kernels of the host's code (below) */
    _Atomic uint64_t built, loaded; /* programs made for it (builder thread counts) */
    _Atomic uint32_t pending;       /* programs asked for and not yet built or failed */
    /* Where launches copy: the output spans of the launches queued and not
     * yet finished, whose results are still on their way back to the
     * segment (linked by the loop thread, unlinked by the completion
     * callbacks, under returning_lock). */
    pthread_mutex_t returning_lock;
    clrt_span *returning;
} clrt_device;

struct tsr__backend_program {
    tsr__clrt_program *next;        /* in its table bucket (loop thread) */
    tsr__clrt_program *next_queued; /* in the builder's queue (under the lock) */
    uint32_t ordinal;
    tsr__kernel_key key;
    _Atomic int state;
    bool queued;         /* in the builder's queue (under the lock) */
    int priority;        /* TSR__BUILD_* (under the lock once queued) */
    atomic_bool settled; /* READY or FAILED, and its binary stored: the builder is done */
    cl_program program;
    cl_kernel kernel;
    char error[512];
    char origin[96]; /* how it was made, for the log (builder thread, then read-only) */
    bool reported;   /* loop thread */
};

struct tsr__backend_runtime {
    clrt_device *devices;
    size_t count;
    tsr__kcache *cache;      /* NULL: programs are kept in memory only */
    char cache_refusal[512]; /* why a configured cache directory was refused */
    int notify_fd;
    tsr__clrt_source_fn source;
    tsr__clrt_program *table[PROGRAM_BUCKETS];

    pthread_t builder;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    tsr__clrt_program *queue_head, *queue_tail;
    bool stopping;
    char *source_buf; /* builder thread only */

    _Atomic uint64_t built, loaded, rejected, launches;
    _Atomic uint64_t huge_bytes; /* segment bytes moved into huge pages (run_host_huge) */
};

/* A segment's move into huge pages (queue_huge), shared by its buffer and
 * the native kernel that runs it: the kernel moves a huge page at a time
 * under `lock`, and stops once the buffer has let go (`released`: the
 * segment may be unmapped and its range reused from then on); `done` once
 * the kernel has run; the last of the two to be done with it frees it. */
typedef struct huge_move {
    pthread_mutex_t lock;
    bool released;
    atomic_bool done;
    atomic_int refs;
} huge_move;

/* What tsr__clrt_buffer hands out: the cl_mem and, where launches copy
 * (the device's memory is its own), the segment it mirrors. */
typedef struct clrt_buffer {
    cl_mem mem;
    unsigned char *host; /* NULL: mem is over the segment itself */
    unsigned char *base; /* the segment, in this process */
    huge_move *move;     /* its move into huge pages, NULL: none */
} clrt_buffer;

typedef struct clrt_job {
    cl_mem status_buffer, geom_buffer;
    cl_int status_value;
    bool check_status;
    uint32_t ordinal;
    clrt_device *device;
    clrt_span spans[2]; /* its outputs coming back, linked while `linked` */
    uint32_t linked;
    void *staged[TSR__KERNEL_MAX_OPERANDS]; /* copies of operands (stage_copies) */
    tsr__backend_done_fn done;
    void *ctx;
    /* a product run as a native kernel: its status and message */
    tsr_status host_status;
    char host_message[128];
} clrt_job;

/* ---- hashing ------------------------------------------------------------ */

static uint64_t text_hash(uint64_t h, const char *text)
{
    return tsr__fnv1a(h, text, strlen(text) + 1);
}

/* ---- devices (builder thread) -------------------------------------------- */

static bool open_device(clrt_device *d)
{
    if (d->state != DEVICE_CLOSED)
        return d->state == DEVICE_OPEN;
    d->state = DEVICE_FAILED;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err != CL_SUCCESS || d->info.platform_index >= np) {
        snprintf(d->error, sizeof d->error, "OpenCL platform %u is gone (clGetPlatformIDs: %d)",
                 d->info.platform_index, err);
        return false;
    }
    cl_platform_id *platforms = calloc(np, sizeof *platforms);
    cl_device_id *ids = NULL;
    cl_uint nd = 0;
    if (!platforms || clGetPlatformIDs(np, platforms, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platforms[d->info.platform_index], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) !=
            CL_SUCCESS ||
        d->info.device_index >= nd || !(ids = calloc(nd, sizeof *ids)) ||
        clGetDeviceIDs(platforms[d->info.platform_index], CL_DEVICE_TYPE_ALL, nd, ids, NULL) !=
            CL_SUCCESS) {
        snprintf(d->error, sizeof d->error, "OpenCL device %u of platform %u is gone",
                 d->info.device_index, d->info.platform_index);
        free(platforms);
        free(ids);
        return false;
    }
    cl_platform_id platform = platforms[d->info.platform_index];
    d->id = ids[d->info.device_index];
    free(platforms);
    free(ids);
    char name[TSR__CL_TEXT] = "";
    clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    if (strcmp(name, d->info.name) != 0) {
        snprintf(d->error, sizeof d->error,
                 "the OpenCL device list changed since discovery (found \"%.60s\" where \"%.60s\" "
                 "was)",
                 name, d->info.name);
        return false;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    d->context = clCreateContext(props, 1, &d->id, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        d->queue = clCreateCommandQueue(d->context, d->id, 0, &err);
    if (err == CL_SUCCESS)
        d->warm_queue = clCreateCommandQueue(d->context, d->id, 0, &err);
    d->platform = platform;
    /* A device of its own memory (a GPU) compiles in a context of the
     * builder's own, made at its first build from source (build, below):
     * a GPU's context holds device memory, and a daemon whose programs
     * all come from the disk cache needs none. PoCL's compiles in the
     * device's context, whose calls it does not hold meanwhile, and went
     * a third slower through a binary and a second context. */
    d->build_context = d->info.host_unified_memory ? d->context : NULL;
    if (err == CL_SUCCESS)
        d->no_status = clCreateBuffer(d->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    if (err == CL_SUCCESS)
        d->no_geom = clCreateBuffer(d->context, CL_MEM_READ_ONLY, sizeof(cl_long), NULL, &err);
    if (err != CL_SUCCESS) {
        char code[TSR__CL_ERROR_NAME_MAX];
        snprintf(d->error, sizeof d->error, "cannot open %.200s: %s", d->info.name,
                 tsr__cl_error_name(err, code, sizeof code));
        return false;
    }
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(d->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    snprintf(d->options, sizeof d->options, "%s",
             (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? "-cl-fp32-correctly-rounded-divide-sqrt"
                                                        : "");
    cl_device_exec_capabilities exec = 0;
    clGetDeviceInfo(d->id, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof exec, &exec, NULL);
    d->host_code = d->host_code && d->info.host_unified_memory &&
                   (d->info.cl_device_type & CL_DEVICE_TYPE_CPU) && (exec & CL_EXEC_NATIVE_KERNEL);
    d->state = DEVICE_OPEN;
    return true;
}

/* ---- programs (builder thread) ------------------------------------------- */

static void build_log(clrt_device *d, tsr__clrt_program *p, const char *what, cl_int err)
{
    char name[TSR__CL_ERROR_NAME_MAX];
    int n = snprintf(p->error, sizeof p->error, "%s on %.200s failed (%s)", what, d->info.name,
                     tsr__cl_error_name(err, name, sizeof name));
    if (p->program && n > 0 && (size_t)n + 3 < sizeof p->error) {
        size_t used = (size_t)n;
        memcpy(p->error + used, ": ", 3);
        used += 2;
        clGetProgramBuildInfo(p->program, d->id, CL_PROGRAM_BUILD_LOG, sizeof p->error - used - 1,
                              p->error + used, NULL);
        p->error[sizeof p->error - 1] = '\0';
    }
}

static bool make_kernel(tsr__clrt_program *p)
{
    cl_int err;
    p->kernel = clCreateKernel(p->program, "tsr_kernel", &err);
    return err == CL_SUCCESS;
}

static void drop_program(tsr__clrt_program *p)
{
    if (p->kernel)
        clReleaseKernel(p->kernel);
    if (p->program)
        clReleaseProgram(p->program);
    p->kernel = NULL;
    p->program = NULL;
}

/* p's program from a binary of its device, with its kernel; false (p
 * holds nothing) where the driver refuses it. */
static bool from_binary(clrt_device *d, tsr__clrt_program *p, const unsigned char *binary,
                        size_t length, cl_int *err)
{
    const unsigned char *bins[1] = {binary};
    cl_int bin_status = CL_SUCCESS;
    p->program = clCreateProgramWithBinary(d->context, 1, &d->id, &length, bins, &bin_status, err);
    if (*err == CL_SUCCESS && bin_status != CL_SUCCESS)
        *err = bin_status;
    if (*err == CL_SUCCESS)
        *err = clBuildProgram(p->program, 1, &d->id, d->options, NULL, NULL);
    if (*err == CL_SUCCESS && !make_kernel(p))
        *err = CL_INVALID_KERNEL_NAME;
    if (*err != CL_SUCCESS)
        drop_program(p);
    return *err == CL_SUCCESS;
}

/* A built program's binary (malloc'd), or NULL. */
static unsigned char *binary_of(cl_program program, size_t *length)
{
    *length = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *length, length, NULL) !=
            CL_SUCCESS ||
        *length == 0)
        return NULL;
    unsigned char *binary = malloc(*length);
    unsigned char *bins[1] = {binary};
    if (binary &&
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(binary);
        binary = NULL;
    }
    return binary;
}

/* Moves p, built in the builder's context, into its device's through
 * its binary; false (p holds nothing, *err why) where that fails. */
static bool move_into_device(clrt_device *d, tsr__clrt_program *p, cl_int *err)
{
    size_t length;
    unsigned char *binary = binary_of(p->program, &length);
    drop_program(p);
    *err = CL_INVALID_PROGRAM_EXECUTABLE;
    bool ok = binary && from_binary(d, p, binary, length, err);
    free(binary);
    return ok;
}

/* Loads p from the disk cache; false (counted as rejected when a file was
 * there) means "build from source". */
static bool cache_load(tsr__clrt *rt, clrt_device *d, tsr__clrt_program *p, uint64_t hash)
{
    unsigned char *binary = NULL;
    size_t length = 0;
    int found = tsr__kcache_load(rt->cache, hash, &binary, &length);
    if (found == TSR__KCACHE_MISSING)
        return false;
    cl_int err;
    bool ok = found == TSR__KCACHE_FOUND && from_binary(d, p, binary, length, &err);
    free(binary);
    if (!ok)
        atomic_fetch_add(&rt->rejected, 1);
    return ok;
}

/* Saves p's binary; a failure only costs the next start a build. */
static void cache_store(tsr__clrt *rt, tsr__clrt_program *p, uint64_t hash)
{
    size_t length;
    unsigned char *binary = binary_of(p->program, &length);
    if (binary)
        tsr__kcache_store(rt->cache, hash, binary, length);
    free(binary);
}

#define SET_ARG(value)                                               \
    do {                                                             \
        if (err == CL_SUCCESS)                                       \
            err = clSetKernelArg(k, arg++, sizeof(value), &(value)); \
    } while (0)

/* Runs p's kernel once over nothing (sizes of zero: every work-item
 * returns at once) on the builder's own queue. A driver that compiles a
 * kernel for its launch shape at the first launch (PoCL, for the local
 * size) does so here, so that the first real launch finds it compiled.
 * Every launch has a local size of 1 x 1 x 1 (core/kernel.h). False when
 * the driver refused it; the program is still usable. */
static cl_int gemm_args(cl_kernel k, cl_mem c, cl_mem a, cl_mem b, const cl_long4 v[4], cl_long2 ab,
                        cl_uint4 mode);

static bool warm_up(clrt_device *d, tsr__clrt_program *p)
{
    const tsr__kernel_key *key = &p->key;
    if (key->entry == TSR__KENTRY_GEMM) { /* shape 0: every work-item returns */
        static const cl_long4 none[4];
        size_t one[3] = {1, 1, 1};
        cl_int err = gemm_args(p->kernel, d->no_status, d->no_status, d->no_status, none,
                               (cl_long2){{0}}, (cl_uint4){{0}});
        if (err == CL_SUCCESS)
            err =
                clEnqueueNDRangeKernel(d->warm_queue, p->kernel, 3, NULL, one, one, 0, NULL, NULL);
        return err == CL_SUCCESS && clFinish(d->warm_queue) == CL_SUCCESS;
    }
    cl_uint nstorage = 1;
    bool generic = key->entry == TSR__KENTRY_GENERIC || key->entry == TSR__KENTRY_REDUCE;
    if (generic)
        nstorage = TSR__KGENERIC_SLOTS;
    else
        for (int k = 1; k < key->noperands && k < TSR__KERNEL_MAX_OPERANDS; k++)
            nstorage += key->dtypes[k] != TSR__KEY_SCALAR;
    cl_kernel k = p->kernel;
    cl_uint arg = 0;
    cl_int err = CL_SUCCESS;
    cl_ulong zero = 0;
    cl_ulong2 zero2 = {{0}};
    cl_ulong4 zero4 = {{0}};
    cl_uint4 block = {{1, 1, 0, 0}}, kind = {{0}};
    cl_long4 stride = {{0}};
    for (cl_uint b = 0; b < nstorage; b++) {
        SET_ARG(d->no_status);
        SET_ARG(zero);
    }
    SET_ARG(zero2);
    SET_ARG(zero2);
    SET_ARG(d->no_status);
    SET_ARG(zero4);
    SET_ARG(block);
    for (cl_uint b = 0; b < nstorage; b++)
        SET_ARG(stride);
    SET_ARG(d->no_geom);
    if (generic)
        SET_ARG(kind);
    size_t one[3] = {1, 1, 1};
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(d->warm_queue, k, 3, NULL, one, one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(d->warm_queue);
    return err == CL_SUCCESS;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Builds p, or loads it from the disk cache; true when it was built and
 * its binary should go to the cache (*hash names the file). */
static bool build(tsr__clrt *rt, tsr__clrt_program *p, uint64_t *hash_out)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clrt_device *d = &rt->devices[p->ordinal];
    if (!open_device(d)) {
        snprintf(p->error, sizeof p->error, "%s", d->error);
        atomic_store(&p->state, TSR__PROGRAM_FAILED);
        return false;
    }
    size_t n = rt->source(&p->key, d->info.fp64, rt->source_buf, SOURCE_MAX);
    if (n == 0 || n >= SOURCE_MAX) {
        snprintf(p->error, sizeof p->error, "no kernel for this operation: %s",
                 n ? "source too long" : tsr_last_error());
        atomic_store(&p->state, TSR__PROGRAM_FAILED);
        return false;
    }
    uint64_t hash = text_hash(TSR__FNV_START, d->info.name);
    hash = text_hash(hash, d->info.vendor);
    hash = text_hash(hash, d->info.driver_version);
    hash = text_hash(hash, d->options);
    hash = tsr__fnv1a(hash, rt->source_buf, n);
    uint64_t rejected = atomic_load(&rt->rejected);
    if (rt->cache && cache_load(rt, d, p, hash)) {
        warm_up(d, p);
        snprintf(p->origin, sizeof p->origin, "loaded from the disk cache in %.1f ms",
                 ms_since(&t0));
        atomic_fetch_add(&rt->loaded, 1);
        atomic_fetch_add(&d->loaded, 1);
        atomic_store(&p->state, TSR__PROGRAM_READY);
        return false;
    }
    /* Compiled in the builder's context, then, where that is a context
     * of its own, loaded from its binary into the device's: NVIDIA's
     * driver holds every call of a context while it compiles for that
     * context (an H200: a small blocking write on the loop's context
     * waited 0.5 s behind a generic program's 1.6 s build, 45 s behind
     * the reduction program's 58 s), and none of another's (0 ms);
     * loading the binary took 1-15 ms. */
    cl_int err = CL_SUCCESS;
    char name[TSR__CL_ERROR_NAME_MAX];
    const char *text = rt->source_buf;
    if (!d->build_context) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform,
                                         0};
        d->build_context = clCreateContext(props, 1, &d->id, NULL, NULL, &err);
    }
    if (d->build_context)
        p->program = clCreateProgramWithSource(d->build_context, 1, &text, &n, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(p->program, 1, &d->id, d->options, NULL, NULL);
    if (err != CL_SUCCESS) {
        build_log(d, p, "building a kernel program", err);
        drop_program(p);
        atomic_store(&p->state, TSR__PROGRAM_FAILED);
        return false;
    }
    bool apart = d->build_context != d->context;
    if (apart ? !move_into_device(d, p, &err) : !make_kernel(p)) {
        if (apart)
            snprintf(p->error, sizeof p->error,
                     "loading a kernel program built on %.200s into its context failed (%s)",
                     d->info.name, tsr__cl_error_name(err, name, sizeof name));
        else
            build_log(d, p, "building a kernel program", CL_INVALID_KERNEL_NAME);
        drop_program(p);
        atomic_store(&p->state, TSR__PROGRAM_FAILED);
        return false;
    }
    warm_up(d, p);
    atomic_fetch_add(&rt->built, 1);
    atomic_fetch_add(&d->built, 1);
    snprintf(p->origin, sizeof p->origin, "built from source in %.0f ms%s%s", ms_since(&t0),
             apart ? ", compiled apart" : "",
             atomic_load(&rt->rejected) != rejected ? " (its disk cache file was corrupt or stale)"
                                                    : "");
    atomic_store(&p->state, TSR__PROGRAM_READY);
    *hash_out = hash;
    return rt->cache != NULL;
}

/* Wakes the event loop (an eventfd only refuses at its maximum count,
 * when it is signalled already). */
static void notify(tsr__clrt *rt)
{
    uint64_t one = 1;
    if (write(rt->notify_fd, &one, sizeof one) < 0) {
        /* already signalled */
    }
}

static void *builder_main(void *arg)
{
    tsr__clrt *rt = arg;
    pthread_mutex_lock(&rt->lock);
    for (;;) {
        while (!rt->queue_head && !rt->stopping)
            pthread_cond_wait(&rt->wake, &rt->lock);
        if (rt->stopping)
            break;
        tsr__clrt_program *p = rt->queue_head;
        rt->queue_head = p->next_queued;
        if (!rt->queue_head)
            rt->queue_tail = NULL;
        p->queued = false;
        p->next_queued = NULL;
        pthread_mutex_unlock(&rt->lock);
        uint64_t hash = 0;
        bool store = build(rt, p, &hash);
        atomic_fetch_sub(&rt->devices[p->ordinal].pending, 1);
        /* Whatever the loop reads after a wake-up is in place before it:
         * `settled` before the wake-up that may be the program's last. */
        if (!store)
            atomic_store(&p->settled, true);
        notify(rt);
        /* The binary goes to the disk cache once the program is READY:
         * a driver that compiles its kernels when asked for the binary
         * (PoCL) does so while the first launch runs, not before it. */
        if (store) {
            cache_store(rt, p, hash);
            atomic_store(&p->settled, true);
            notify(rt);
        }
        pthread_mutex_lock(&rt->lock);
    }
    pthread_mutex_unlock(&rt->lock);
    return NULL;
}

/* ---- the interface --------------------------------------------------------- */

static void free_runtime(tsr__clrt *rt)
{
    for (size_t k = 0; k < rt->count; k++)
        pthread_mutex_destroy(&rt->devices[k].returning_lock);
    pthread_mutex_destroy(&rt->lock);
    pthread_cond_destroy(&rt->wake);
    free(rt->devices);
    free(rt->source_buf);
    tsr__kcache_close(rt->cache);
    free(rt);
}

tsr_status tsr__clrt_create(const tsr__clrt_config *config, tsr__clrt **out)
{
    tsr__clrt *rt = calloc(1, sizeof *rt);
    if (!rt)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory creating the OpenCL runtime");
    rt->count = config->count;
    rt->notify_fd = config->notify_fd;
    rt->source = config->source;
    rt->devices = calloc(config->count ? config->count : 1, sizeof *rt->devices);
    rt->source_buf = malloc(SOURCE_MAX);
    if (!rt->devices || !rt->source_buf) {
        free(rt->devices);
        free(rt->source_buf);
        free(rt);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory creating the OpenCL runtime");
    }
    for (size_t k = 0; k < config->count; k++) {
        rt->devices[k].info = config->devices[k];
        rt->devices[k].host_code = config->devices[k].host_code; /* and what open_device finds */
        pthread_mutex_init(&rt->devices[k].returning_lock, NULL);
    }
    /* A directory that fails the checks costs every start its builds,
     * never the daemon its kernels. */
    if (config->cache_dir && config->cache_dir[0] &&
        tsr__kcache_open(config->cache_dir, &rt->cache) != TSR_OK)
        snprintf(rt->cache_refusal, sizeof rt->cache_refusal, "%s", tsr_last_error());
    pthread_mutex_init(&rt->lock, NULL);
    pthread_cond_init(&rt->wake, NULL);
    int e = pthread_create(&rt->builder, NULL, builder_main, rt);
    if (e != 0) {
        free_runtime(rt);
        return tsr__fail(TSR_ERR_IO, "cannot start the kernel builder thread: %s", strerror(e));
    }
    *out = rt;
    return TSR_OK;
}

void tsr__clrt_destroy(tsr__clrt *rt)
{
    if (!rt)
        return;
    pthread_mutex_lock(&rt->lock);
    rt->stopping = true;
    pthread_cond_signal(&rt->wake);
    pthread_mutex_unlock(&rt->lock);
    pthread_join(rt->builder, NULL);
    for (size_t k = 0; k < rt->count; k++)
        if (rt->devices[k].queue)
            clFinish(rt->devices[k].queue);
    /* clFinish returns once the commands are complete; their completion
     * callbacks may still be running on the driver's threads (seen with
     * PoCL: one handed its job to an executor freed meanwhile). */
    for (size_t k = 0, waits = 0; k < rt->count; k++)
        while (atomic_load(&rt->devices[k].callbacks) != 0 && waits++ < 50000) /* 5 s at most */
            nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    for (size_t b = 0; b < PROGRAM_BUCKETS; b++) {
        for (tsr__clrt_program *p = rt->table[b], *next; p; p = next) {
            next = p->next;
            drop_program(p);
            free(p);
        }
    }
    for (size_t k = 0; k < rt->count; k++) {
        clrt_device *d = &rt->devices[k];
        if (d->no_status)
            clReleaseMemObject(d->no_status);
        if (d->no_geom)
            clReleaseMemObject(d->no_geom);
        if (d->queue)
            clReleaseCommandQueue(d->queue);
        if (d->warm_queue)
            clReleaseCommandQueue(d->warm_queue);
        if (d->context)
            clReleaseContext(d->context);
        if (d->build_context && d->build_context != d->context)
            clReleaseContext(d->build_context);
    }
    free_runtime(rt);
}

static tsr__clrt_program **bucket_of(tsr__clrt *rt, uint32_t ordinal, const tsr__kernel_key *key)
{
    uint64_t h = tsr__fnv1a(tsr__fnv1a(TSR__FNV_START, &ordinal, sizeof ordinal), key, sizeof *key);
    return &rt->table[h % PROGRAM_BUCKETS];
}

tsr__clrt_program *tsr__clrt_program_find(tsr__clrt *rt, uint32_t ordinal,
                                          const tsr__kernel_key *key)
{
    for (tsr__clrt_program *p = *bucket_of(rt, ordinal, key); p; p = p->next)
        if (p->ordinal == ordinal && memcmp(&p->key, key, sizeof *key) == 0)
            return p;
    return NULL;
}

/* The builder's queue is in order of priority, first come first served
 * within one. Under the lock. */
static void enqueue_build(tsr__clrt *rt, tsr__clrt_program *p)
{
    tsr__clrt_program **at = &rt->queue_head;
    while (*at && (*at)->priority <= p->priority)
        at = &(*at)->next_queued;
    p->next_queued = *at;
    *at = p;
    if (!p->next_queued)
        rt->queue_tail = p;
    p->queued = true;
}

static void dequeue_build(tsr__clrt *rt, tsr__clrt_program *p)
{
    tsr__clrt_program **at = &rt->queue_head, *prev = NULL;
    while (*at && *at != p) {
        prev = *at;
        at = &(*at)->next_queued;
    }
    if (!*at)
        return;
    *at = p->next_queued;
    if (rt->queue_tail == p)
        rt->queue_tail = prev;
    p->next_queued = NULL;
    p->queued = false;
}

tsr__clrt_program *tsr__clrt_program_get(tsr__clrt *rt, uint32_t ordinal,
                                         const tsr__kernel_key *key, int priority)
{
    tsr__clrt_program *p = tsr__clrt_program_find(rt, ordinal, key);
    if (p) {
        if (priority < p->priority && atomic_load(&p->state) == TSR__PROGRAM_PENDING) {
            pthread_mutex_lock(&rt->lock);
            if (p->queued) {
                dequeue_build(rt, p);
                p->priority = priority;
                enqueue_build(rt, p);
            }
            pthread_mutex_unlock(&rt->lock);
        }
        return p;
    }
    tsr__clrt_program **bucket = bucket_of(rt, ordinal, key);
    p = calloc(1, sizeof *p);
    if (!p) {
        tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a kernel program");
        return NULL;
    }
    p->ordinal = ordinal;
    p->key = *key;
    p->priority = priority;
    atomic_init(&p->state, TSR__PROGRAM_PENDING);
    p->next = *bucket;
    *bucket = p;
    if (ordinal >= rt->count) {
        snprintf(p->error, sizeof p->error, "no OpenCL device %u", (unsigned)ordinal);
        atomic_store(&p->state, TSR__PROGRAM_FAILED);
        return p;
    }
    atomic_fetch_add(&rt->devices[ordinal].pending, 1);
    pthread_mutex_lock(&rt->lock);
    enqueue_build(rt, p);
    pthread_cond_signal(&rt->wake);
    pthread_mutex_unlock(&rt->lock);
    return p;
}

int tsr__clrt_program_state(const tsr__clrt_program *p)
{
    return atomic_load_explicit(&p->state, memory_order_acquire);
}

bool tsr__clrt_program_settled(const tsr__clrt_program *p)
{
    return atomic_load_explicit(&p->settled, memory_order_acquire);
}

const char *tsr__clrt_program_error(const tsr__clrt_program *p)
{
    return p->error;
}

const tsr__kernel_key *tsr__clrt_program_key(const tsr__clrt_program *p)
{
    return &p->key;
}

const char *tsr__clrt_program_report(tsr__clrt_program *p)
{
    if (p->reported || tsr__clrt_program_state(p) != TSR__PROGRAM_READY)
        return NULL;
    p->reported = true;
    return p->origin;
}

void tsr__clrt_program_counts(const tsr__clrt *rt, uint32_t ordinal, uint64_t *built,
                              uint64_t *loaded, uint32_t *pending)
{
    *built = *loaded = 0;
    *pending = 0;
    if (ordinal < rt->count) {
        *built = atomic_load(&rt->devices[ordinal].built);
        *loaded = atomic_load(&rt->devices[ordinal].loaded);
        *pending = atomic_load(&rt->devices[ordinal].pending);
    }
}

const char *tsr__clrt_cache_refusal(const tsr__clrt *rt)
{
    return rt->cache_refusal[0] ? rt->cache_refusal : NULL;
}

void tsr__clrt_get_stats(tsr__clrt *rt, tsr__clrt_stats *out)
{
    *out = (tsr__clrt_stats){.built = atomic_load(&rt->built),
                             .loaded = atomic_load(&rt->loaded),
                             .rejected = atomic_load(&rt->rejected),
                             .launches = atomic_load(&rt->launches),
                             .huge_bytes = atomic_load(&rt->huge_bytes)};
}

/* A segment's move into huge pages (devices.huge_pages, kernels/hugemem.h),
 * a native kernel queued before the first kernel that uses the segment,
 * so that the loop thread never waits for it and the kernels that follow
 * find it done. The buffer in the memory list keeps its cl_mem alive;
 * the segment is addressed through `base` (see native_mem). Its
 * huge_move keeps it off a segment released meanwhile (a launch that
 * failed before it was queued, an import let go): the daemon unmaps the
 * segment, punches a hole in it and may map another at the same address
 * once the buffer is released, and the move would read the hole back in
 * or collapse the other's pages. Launches run at once wait for it
 * (tsr__clrt_host_run), since nothing else would keep the segment alive
 * until it has run. */
typedef struct host_huge {
    tsr__clrt *rt;
    huge_move *move;
    unsigned char *base;
    uint64_t bytes;
    void *seen;
} host_huge;

static void move_drop(huge_move *m)
{
    if (atomic_fetch_sub(&m->refs, 1) == 1) {
        pthread_mutex_destroy(&m->lock);
        free(m);
    }
}

static void CL_CALLBACK run_host_huge(void *data)
{
    host_huge *h = data; /* the driver's copy */
    uint64_t huge = tsr__huge_page_bytes();
    uintptr_t first = ((uintptr_t)h->base + huge - 1) / huge * huge;
    uintptr_t end = (uintptr_t)h->base + h->bytes;
    uint64_t moved = 0;
    bool go = true;
    for (uintptr_t p = first; go && end >= p + huge; p += huge) {
        pthread_mutex_lock(&h->move->lock);
        go = !h->move->released;
        if (go) {
            uint64_t n = tsr__huge_collapse((void *)p, huge);
            moved += n;
            /* EAGAIN (a page busy for a moment) skips one; any other
             * failure (no huge page free) would meet the rest too. */
            go = n || errno == EAGAIN;
        }
        pthread_mutex_unlock(&h->move->lock);
    }
    atomic_fetch_add(&h->rt->huge_bytes, moved);
    atomic_store_explicit(&h->move->done, true, memory_order_release);
    move_drop(h->move);
}

static void queue_huge(tsr__clrt *rt, clrt_device *d, clrt_buffer *b, uint64_t bytes)
{
    if (!d->host_code || !d->info.huge_pages || bytes < tsr__huge_page_bytes())
        return;
    huge_move *m = calloc(1, sizeof *m);
    if (!m || pthread_mutex_init(&m->lock, NULL) != 0) {
        free(m);
        return; /* the segment stays in small pages */
    }
    atomic_init(&m->refs, 2);
    host_huge h = {.rt = rt, .move = m, .base = b->base, .bytes = bytes};
    const void *at = &h.seen;
    if (clEnqueueNativeKernel(d->queue, run_host_huge, &h, sizeof h, 1, &b->mem, &at, 0, NULL,
                              NULL) != CL_SUCCESS) {
        pthread_mutex_destroy(&m->lock);
        free(m);
        return;
    }
    b->move = m;
}

/* Whether the buffer's move into huge pages, if any, has run. */
static bool moved(const clrt_buffer *b)
{
    return !b->move || atomic_load_explicit(&b->move->done, memory_order_acquire);
}

tsr_status tsr__clrt_buffer(tsr__clrt *rt, uint32_t ordinal, void *host, uint64_t bytes, void **out)
{
    if (ordinal >= rt->count || rt->devices[ordinal].state != DEVICE_OPEN)
        return tsr__fail(TSR_ERR_DEVICE, "OpenCL device %u is not open", (unsigned)ordinal);
    clrt_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory wrapping a segment");
    bool copies = tsr__clrt_copies(rt, ordinal);
    cl_int err;
    b->mem = clCreateBuffer(rt->devices[ordinal].context,
                            CL_MEM_READ_WRITE | (copies ? 0 : CL_MEM_USE_HOST_PTR), bytes,
                            copies ? NULL : host, &err);
    if (err != CL_SUCCESS) {
        char name[TSR__CL_ERROR_NAME_MAX];
        free(b);
        return tsr__fail(err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                 err == CL_INVALID_BUFFER_SIZE
                             ? TSR_ERR_OUT_OF_MEMORY
                             : TSR_ERR_DEVICE,
                         "cannot %s a %llu-byte segment for %.200s: %s",
                         copies ? "make a device buffer for" : "wrap", (unsigned long long)bytes,
                         rt->devices[ordinal].info.name,
                         tsr__cl_error_name(err, name, sizeof name));
    }
    b->host = copies ? host : NULL;
    b->base = host;
    queue_huge(rt, &rt->devices[ordinal], b, bytes);
    *out = b;
    return TSR_OK;
}

void tsr__clrt_buffer_release(void *buffer)
{
    clrt_buffer *b = buffer;
    if (b) {
        if (b->move) { /* after this its move touches no more of the segment */
            pthread_mutex_lock(&b->move->lock);
            b->move->released = true;
            pthread_mutex_unlock(&b->move->lock);
            move_drop(b->move);
        }
        clReleaseMemObject(b->mem);
        free(b);
    }
}

bool tsr__clrt_copies(const tsr__clrt *rt, uint32_t ordinal)
{
    return ordinal < rt->count && !rt->devices[ordinal].info.host_unified_memory;
}

/* ---- copies in and out ---------------------------------------------------
 * Where a device's memory is its own, a launch copies its operands' spans
 * from the segment into the device buffer, runs, and copies its output's
 * span back, all queued without blocking. OpenCL lets a driver read the
 * host memory of a queued write at any time until it completes, and some
 * read it when it is queued (NVIDIA's stages pageable memory then): a
 * launch queued right behind one whose output it reads would copy in the
 * segment as it was before that output came back, over the right bytes
 * already in the device buffer. So each launch's output span is listed
 * until its copy back has finished, and a span that lies inside a listed
 * one is not copied in at all: the device buffer holds it as the queue
 * will have left it. A span that only overlaps one waits for the queue to
 * drain (rare: a launch reading part of an output and part of what was
 * around it), after which the segment is current. */

static void unlink_spans(clrt_job *job)
{
    if (!job->linked)
        return;
    clrt_device *d = job->device;
    pthread_mutex_lock(&d->returning_lock);
    for (uint32_t i = 0; i < job->linked; i++) {
        clrt_span *s = &job->spans[i];
        if (s->prev)
            s->prev->next = s->next;
        else
            d->returning = s->next;
        if (s->next)
            s->next->prev = s->prev;
    }
    pthread_mutex_unlock(&d->returning_lock);
    job->linked = 0;
}

static void link_span(clrt_job *job, const void *buffer, uint64_t lo, uint64_t bytes)
{
    clrt_device *d = job->device;
    clrt_span *s = &job->spans[job->linked++];
    *s = (clrt_span){.buffer = buffer, .lo = lo, .hi = lo + bytes};
    pthread_mutex_lock(&d->returning_lock);
    s->next = d->returning;
    if (s->next)
        s->next->prev = s;
    d->returning = s;
    pthread_mutex_unlock(&d->returning_lock);
}

enum { SPAN_IN_SEGMENT, SPAN_ON_DEVICE, SPAN_MIXED };

/* Where the current bytes of [lo, hi) of a buffer are. */
static int span_state(clrt_device *d, const void *buffer, uint64_t lo, uint64_t hi)
{
    int state = SPAN_IN_SEGMENT;
    pthread_mutex_lock(&d->returning_lock);
    for (const clrt_span *s = d->returning; s && state != SPAN_MIXED; s = s->next) {
        if (s->buffer != buffer || s->hi <= lo || hi <= s->lo)
            continue;
        state = s->lo <= lo && hi <= s->hi ? SPAN_ON_DEVICE : SPAN_MIXED;
    }
    pthread_mutex_unlock(&d->returning_lock);
    return state;
}

static void free_staged(clrt_job *job)
{
    for (int b = 0; b < TSR__KERNEL_MAX_OPERANDS; b++)
        free(job->staged[b]);
}

static void CL_CALLBACK job_finished(cl_event event, cl_int status, void *data)
{
    clrt_job *job = data;
    clrt_device *d = job->device;
    unlink_spans(job);
    free_staged(job);
    tsr_status st = TSR_OK;
    char message[160] = "";
    if (status < 0) {
        st = TSR_ERR_DEVICE;
        char name[TSR__CL_ERROR_NAME_MAX];
        snprintf(message, sizeof message, "a kernel failed on opencl:%u (%s)",
                 (unsigned)job->ordinal, tsr__cl_error_name(status, name, sizeof name));
    } else if (job->check_status && job->status_value != 0) {
        st = TSR_ERR_RUNTIME;
        snprintf(message, sizeof message, "ZeroDivisionError");
    } else if (job->host_status != TSR_OK) {
        st = job->host_status;
        snprintf(message, sizeof message, "%s", job->host_message);
    }
    clReleaseEvent(event);
    if (job->status_buffer)
        clReleaseMemObject(job->status_buffer);
    if (job->geom_buffer)
        clReleaseMemObject(job->geom_buffer);
    job->done(job->ctx, st, message);
    free(job);
    atomic_fetch_sub(&d->callbacks, 1u);
}

bool tsr__clrt_on_host(const tsr__clrt *rt, uint32_t ordinal)
{
    return ordinal < rt->count && (rt->devices[ordinal].info.cl_device_type & CL_DEVICE_TYPE_CPU);
}

bool tsr__clrt_host_code(const tsr__clrt *rt, uint32_t ordinal)
{
    return ordinal < rt->count && rt->devices[ordinal].state == DEVICE_OPEN &&
           rt->devices[ordinal].host_code;
}

uint32_t tsr__clrt_compute_units(const tsr__clrt *rt, uint32_t ordinal)
{
    return ordinal < rt->count ? rt->devices[ordinal].info.compute_units : 0;
}

/* The elements a launch's output covers, as OpenCL's rectangle copies
 * see them: runs of `region[0]` bytes, region[1] of them `pitch[0]`
 * apart, in region[2] slices `pitch[1]` apart. False when they are not
 * such a box (more than three dimensions, or a layout the rectangle rules
 * refuse): the caller then copies the whole span. The element size is the
 * span's bytes over its elements (the span runs from the first element to
 * one past the last, strides being non-negative). */
static bool output_box(const tsr__backend_launch *l, size_t region[3], size_t pitch[2])
{
    const tsr__kernel_geometry *g = &l->geometry;
    if (g->block[3] >= 2)
        return false; /* outer dimensions in geom[] */
    uint64_t sizes[3], strides[3], span = 1;
    int n = 0;
    for (int d = 0; d < 3; d++) {
        if (g->size[d] == 0)
            return false;
        if (g->size[d] == 1)
            continue;
        if (g->stride[0][d] <= 0)
            return false;
        sizes[n] = g->size[d];
        strides[n] = (uint64_t)g->stride[0][d];
        span += (sizes[n] - 1) * strides[n];
        n++;
    }
    uint64_t item = l->extents[0] / span;
    if (item == 0 || item > 16 || item * span != l->extents[0])
        return false;
    for (int i = 1; i < n; i++) /* by stride, smallest first */
        for (int j = i; j > 0 && strides[j] < strides[j - 1]; j--) {
            uint64_t s = sizes[j], t = strides[j];
            sizes[j] = sizes[j - 1], strides[j] = strides[j - 1];
            sizes[j - 1] = s, strides[j - 1] = t;
        }
    /* Dimensions that continue the run merge into it. */
    uint64_t run = item;
    int first = 0;
    while (first < n && strides[first] * item == run)
        run *= sizes[first++];
    region[0] = (size_t)run;
    region[1] = region[2] = 1;
    pitch[0] = pitch[1] = 0;
    for (int d = first; d < n; d++) {
        if (d - first >= 2)
            return false;
        region[1 + d - first] = (size_t)sizes[d];
        pitch[d - first] = (size_t)(strides[d] * item);
    }
    if (pitch[0] == 0)
        pitch[0] = region[0];
    if (pitch[1] == 0)
        pitch[1] = region[1] * pitch[0];
    /* OpenCL's rules for a rectangle's pitches */
    return pitch[0] >= region[0] && pitch[1] >= region[1] * pitch[0] && pitch[1] % pitch[0] == 0;
}

/* Enqueues the kernel over pieces [first, end) of its NDRange, numbered
 * x fastest (global offsets `step` apart; the kernel reads get_global_id,
 * which counts the offset in). The queue is in order: the last piece's
 * event ends them all. */
static cl_int enqueue_pieces(cl_command_queue queue, cl_kernel k, const tsr__kernel_geometry *g,
                             const size_t *global, const size_t *local, uint64_t first,
                             uint64_t end, cl_event *event)
{
    size_t step[3], count[3];
    for (int i = 0; i < 3; i++) {
        step[i] = g->step[i] ? (size_t)g->step[i] : global[i];
        count[i] = step[i] ? (global[i] + step[i] - 1) / step[i] : 0;
    }
    cl_int err = CL_SUCCESS;
    for (uint64_t p = first; p < end && err == CL_SUCCESS; p++) {
        uint64_t index[3] = {p % count[0], p / count[0] % count[1], p / count[0] / count[1]};
        size_t at[3], n[3];
        for (int i = 0; i < 3; i++) {
            at[i] = (size_t)index[i] * step[i];
            n[i] = global[i] - at[i] < step[i] ? global[i] - at[i] : step[i];
        }
        err =
            clEnqueueNDRangeKernel(queue, k, 3, at, n, local, 0, NULL, p + 1 == end ? event : NULL);
    }
    return err;
}

/* Queues the copies in of a launch's operand spans (see "copies in and
 * out" above): each span of a buffer over a segment that no launch still
 * queued leaves on the device, once even when named twice. */
static cl_int copy_in(clrt_device *d, clrt_job *job, void *const *buffers, const uint64_t *offsets,
                      const uint64_t *extents, uint32_t n)
{
    cl_int err = CL_SUCCESS;
    bool drained = false;
    for (uint32_t b = 0; b < n && err == CL_SUCCESS; b++) {
        const clrt_buffer *buf = buffers[b];
        bool again = false; /* an in-place operation names one span twice */
        for (uint32_t e = 0; e < b; e++)
            again |=
                buffers[e] == buffers[b] && offsets[e] == offsets[b] && extents[e] == extents[b];
        if (!buf->host || extents[b] == 0 || again)
            continue;
        uint64_t lo = offsets[b], bytes = extents[b];
        int state = drained ? SPAN_IN_SEGMENT : span_state(d, buf, lo, lo + bytes);
        if (state == SPAN_ON_DEVICE)
            continue;
        if (state == SPAN_MIXED) {
            err = clFinish(d->queue);
            drained = true;
        }
        const void *from = buf->host + lo;
        if (err == CL_SUCCESS && d->info.stage_copies) {
            job->staged[b] = malloc((size_t)bytes);
            if (!job->staged[b])
                err = CL_OUT_OF_HOST_MEMORY;
            else
                from = memcpy(job->staged[b], from, (size_t)bytes);
        }
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(d->queue, buf->mem, CL_FALSE, (size_t)lo, (size_t)bytes,
                                       from, 0, NULL, NULL);
    }
    return err;
}

/* Queues the copy back of an output span, as a box of rows where `box`
 * says so (region[0] < bytes), else whole; the span stays listed until
 * the job finishes. *event becomes the copy's event. */
static cl_int copy_back(clrt_device *d, clrt_job *job, const clrt_buffer *out, uint64_t lo,
                        uint64_t bytes, bool box, const size_t region[3], const size_t pitch[2],
                        cl_event *event)
{
    cl_event read = NULL;
    cl_int err;
    link_span(job, out, lo, bytes);
    if (box && region[0] < bytes) {
        size_t origin[3] = {(size_t)lo, 0, 0};
        err =
            clEnqueueReadBufferRect(d->queue, out->mem, CL_FALSE, origin, origin, region, pitch[0],
                                    pitch[1], pitch[0], pitch[1], out->host, 0, NULL, &read);
    } else {
        err = clEnqueueReadBuffer(d->queue, out->mem, CL_FALSE, (size_t)lo, (size_t)bytes,
                                  out->host + lo, 0, NULL, &read);
    }
    if (*event)
        clReleaseEvent(*event);
    *event = read;
    return err;
}

/* Ends a job whose enqueue failed: what was enqueued runs to its end
 * before the job's buffers go. */
static tsr_status enqueue_failed(clrt_device *d, clrt_job *job, cl_event event, cl_int err,
                                 const char *what)
{
    if (event)
        clReleaseEvent(event);
    clFinish(d->queue);
    unlink_spans(job);
    free_staged(job);
    if (job->status_buffer)
        clReleaseMemObject(job->status_buffer);
    if (job->geom_buffer)
        clReleaseMemObject(job->geom_buffer);
    free(job);
    char name[TSR__CL_ERROR_NAME_MAX];
    return tsr__fail(err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES
                         ? TSR_ERR_OUT_OF_MEMORY
                         : TSR_ERR_DEVICE,
                     "cannot queue %s on %.200s: %s", what, d->info.name,
                     tsr__cl_error_name(err, name, sizeof name));
}

/* The end of every enqueue: the job's completion on its last event, the
 * queue flushed and the launch counted; or, where err says a step
 * failed, nothing left queued for the job. */
static tsr_status enqueued(tsr__clrt *rt, clrt_device *d, clrt_job *job, cl_event event, cl_int err,
                           const char *what)
{
    if (err == CL_SUCCESS) {
        atomic_fetch_add(&d->callbacks, 1u);
        err = clSetEventCallback(event, CL_COMPLETE, job_finished, job);
        if (err != CL_SUCCESS)
            atomic_fetch_sub(&d->callbacks, 1u);
    }
    if (err != CL_SUCCESS)
        return enqueue_failed(d, job, event, err, what);
    clFlush(d->queue);
    atomic_fetch_add(&rt->launches, 1);
    return TSR_OK;
}

tsr_status tsr__clrt_enqueue(tsr__clrt *rt, uint32_t ordinal, tsr__clrt_program *p,
                             const tsr__backend_launch *l, tsr__backend_done_fn done, void *ctx)
{
    clrt_device *d = &rt->devices[ordinal];
    clrt_job *job = calloc(1, sizeof *job);
    if (!job)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
    *job = (clrt_job){
        .check_status = l->check_status, .ordinal = ordinal, .device = d, .done = done, .ctx = ctx};
    cl_kernel k = p->kernel;
    cl_uint arg = 0;
    cl_int err = CL_SUCCESS;
    for (uint32_t b = 0; b < l->nbuffers; b++) {
        cl_mem m = ((const clrt_buffer *)l->buffers[b])->mem;
        cl_ulong off = l->offsets[b];
        SET_ARG(m);
        SET_ARG(off);
    }
    cl_ulong2 scalar, alpha;
    memcpy(&scalar, l->scalar, sizeof scalar);
    memcpy(&alpha, l->alpha, sizeof alpha);
    SET_ARG(scalar);
    SET_ARG(alpha);
    const tsr__kernel_geometry *g = &l->geometry;
    /* A reduction in two phases (core/kernel.h) leaves its nodes in a
     * scratch buffer that takes the status argument's place. */
    bool phased = p->key.entry == TSR__KENTRY_REDUCE && g->size[2] > 1;
    cl_mem status = d->no_status;
    if (l->check_status && err == CL_SUCCESS) {
        cl_int zero = 0;
        job->status_buffer = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                            sizeof zero, &zero, &err);
        status = job->status_buffer;
    } else if (phased && err == CL_SUCCESS) {
        job->status_buffer =
            clCreateBuffer(d->context, CL_MEM_READ_WRITE,
                           (size_t)(g->size[0] * g->size[2]) * TSR__RED_SLOT_BYTES, NULL, &err);
        status = job->status_buffer;
    }
    SET_ARG(status);
    cl_ulong4 size;
    cl_uint4 block;
    for (int i = 0; i < 4; i++) {
        size.s[i] = g->size[i];
        block.s[i] = g->block[i];
    }
    SET_ARG(size);
    cl_uint block_arg = arg;
    if (phased)
        block.s[2] = 1;
    SET_ARG(block);
    for (uint32_t b = 0; b < l->nbuffers; b++) {
        cl_long4 stride;
        for (int i = 0; i < 4; i++)
            stride.s[i] = g->stride[b][i];
        SET_ARG(stride);
    }
    cl_mem geom = d->no_geom;
    if (g->geom_count > 0 && err == CL_SUCCESS) {
        job->geom_buffer =
            clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           (size_t)g->geom_count * sizeof g->geom[0], (void *)g->geom, &err);
        geom = job->geom_buffer;
    }
    SET_ARG(geom);
    if (l->generic) {
        cl_uint4 kind;
        for (int i = 0; i < 4; i++)
            kind.s[i] = l->kind[i];
        SET_ARG(kind);
    }
    size_t global[3], local[3];
    for (int i = 0; i < 3; i++) {
        global[i] = (size_t)g->global[i];
        local[i] = (size_t)g->local[i];
    }
    /* Where the device's memory is its own, the operands' spans go in
     * first, unless a launch still queued leaves them on the device (see
     * "copies in and out" above), and the output's span comes back last:
     * the completion callback then sees the segment current. */
    if (err == CL_SUCCESS)
        err = copy_in(d, job, l->buffers, l->offsets, l->extents, l->nbuffers);
    cl_event event = NULL;
    if (err == CL_SUCCESS)
        err = enqueue_pieces(d->queue, k, g, global, local, l->first_piece,
                             l->piece_count ? l->first_piece + l->piece_count
                                            : (g->pieces ? g->pieces : 1),
                             phased ? NULL : &event);
    if (err == CL_SUCCESS && phased) { /* phase 2: a work-item per output merges its nodes */
        block.s[2] = 2;
        size_t outputs[3] = {(size_t)g->size[0], 1, 1};
        err = clSetKernelArg(k, block_arg, sizeof block, &block);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(d->queue, k, 3, NULL, outputs, local, 0, NULL, &event);
    }
    if (err == CL_SUCCESS && l->check_status) {
        cl_event read = NULL;
        err = clEnqueueReadBuffer(d->queue, job->status_buffer, CL_FALSE, 0, sizeof(cl_int),
                                  &job->status_value, 0, NULL, &read);
        clReleaseEvent(event);
        event = read;
    }
    const clrt_buffer *out = l->nbuffers > 0 ? l->buffers[0] : NULL;
    /* Only the elements the kernel wrote come back: a strided output's
     * gaps belong to others (another view, another process sharing the
     * memory) who may write them while the kernel runs. */
    size_t region[3], pitch[2];
    if (err == CL_SUCCESS && out && out->host && l->extents[0] > 0) {
        bool box = output_box(l, region, pitch);
        err = copy_back(d, job, out, l->offsets[0], l->extents[0], box, region, pitch, &event);
    }
    /* a second output (a reduction's positions) comes back whole */
    const clrt_buffer *out2 = l->second_output && l->nbuffers > 2 ? l->buffers[2] : NULL;
    if (err == CL_SUCCESS && out2 && out2->host && l->extents[2] > 0)
        err = copy_back(d, job, out2, l->offsets[2], l->extents[2], false, NULL, NULL, &event);
    return enqueued(rt, d, job, event, err, "a kernel");
}

/* ---- matrix products (CLBlast) --------------------------------------------
 * CLBlast's GEMM enqueues its kernels on the queue it is given and hands
 * back the last one's event, so a product takes its place among the
 * session's launches like one of them: its operands' spans go in first
 * where the device's memory is its own, C's rows come back last, and the
 * event's callback ends the job. CLBlast compiles and tunes its kernels
 * per device and dtype at their first use (it keeps them in a cache of its
 * own for the process), on the daemon's thread: a first product of a
 * dtype takes that time. */

#define GEMM_CALL(fn, alpha, beta)                                                                \
    (g->batch == 1                                                                                \
         ? fn(CLBlastLayoutRowMajor, ta, tb, m, n, k, alpha, a, off[1], g->ld[1], b, off[2],      \
              g->ld[2], beta, c, off[0], g->ld[0], &d->queue, event)                              \
         : fn##StridedBatched(CLBlastLayoutRowMajor, ta, tb, m, n, k, alpha, a, off[1], g->ld[1], \
                              g->bstride[1], b, off[2], g->ld[2], g->bstride[2], beta, c, off[0], \
                              g->ld[0], g->bstride[0], batch, &d->queue, event))

static CLBlastStatusCode gemm_call(clrt_device *d, const tsr__backend_gemm *g, const size_t off[3],
                                   cl_event *event)
{
    CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastTranspose tb = g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k, batch = (size_t)g->batch;
    cl_mem c = ((const clrt_buffer *)g->buffers[0])->mem;
    cl_mem a = ((const clrt_buffer *)g->buffers[1])->mem;
    cl_mem b = ((const clrt_buffer *)g->buffers[2])->mem;
    switch (g->dtype) {
    case TSR_FLOAT32: {
        float alpha, beta;
        memcpy(&alpha, g->alpha, sizeof alpha);
        memcpy(&beta, g->beta, sizeof beta);
        return GEMM_CALL(CLBlastSgemm, alpha, beta);
    }
    case TSR_FLOAT64: {
        double alpha, beta;
        memcpy(&alpha, g->alpha, sizeof alpha);
        memcpy(&beta, g->beta, sizeof beta);
        return GEMM_CALL(CLBlastDgemm, alpha, beta);
    }
    case TSR_COMPLEX64: {
        cl_float2 alpha, beta;
        memcpy(&alpha, g->alpha, sizeof alpha);
        memcpy(&beta, g->beta, sizeof beta);
        return GEMM_CALL(CLBlastCgemm, alpha, beta);
    }
    default: {
        cl_double2 alpha, beta;
        memcpy(&alpha, g->alpha, sizeof alpha);
        memcpy(&beta, g->beta, sizeof beta);
        return GEMM_CALL(CLBlastZgemm, alpha, beta);
    }
    }
}

/* ---- products through the GEMM program ------------------------------------
 * float16, bfloat16 and the integers have no CLBlast routine that gives
 * the cpu's results: float16/bfloat16 are widened to float32 scratch on
 * the device, multiplied by Sgemm and rounded once (as the cpu computes
 * them: PyTorch's float32 accumulation, never Hgemm's half sums), and the
 * integers run the GEMM program's own product (core/kernel.h, "Matrix
 * products"; opencl/gemm.cl). The scratch buffers are released as soon as
 * their commands are queued: OpenCL keeps them until those have run. */

static cl_int gemm_args(cl_kernel k, cl_mem c, cl_mem a, cl_mem b, const cl_long4 v[4], cl_long2 ab,
                        cl_uint4 mode)
{
    cl_uint arg = 0;
    cl_int err = CL_SUCCESS;
    SET_ARG(c);
    SET_ARG(a);
    SET_ARG(b);
    for (int i = 0; i < 4; i++)
        SET_ARG(v[i]);
    SET_ARG(ab);
    SET_ARG(mode);
    return err;
}

/* Queues the GEMM program's kernel over `range`, local size 1 x 1 x 1 as
 * every launch (warm_up compiled it for that); *event becomes its event. */
static cl_int gemm_kernel(clrt_device *d, cl_kernel k, cl_mem c, cl_mem a, cl_mem b,
                          const cl_long4 v[4], cl_long2 ab, cl_uint4 mode, const size_t range[3],
                          cl_event *event)
{
    size_t one[3] = {1, 1, 1};
    cl_event e = NULL;
    cl_int err = gemm_args(k, c, a, b, v, ab, mode);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(d->queue, k, 3, NULL, range, one, 0, NULL, &e);
    if (e) {
        if (*event)
            clReleaseEvent(*event);
        *event = e;
    }
    return err;
}

static cl_mem gemm_operand_mem(const tsr__backend_gemm *g, int i)
{
    return ((const clrt_buffer *)g->buffers[i])->mem;
}

static cl_int int_product(clrt_device *d, cl_kernel k, const tsr__backend_gemm *g,
                          const size_t off[3], cl_event *event)
{
    cl_long4 v[4] = {
        {{(cl_long)off[0], (cl_long)off[1], (cl_long)off[2], 0}},
        {{(cl_long)g->ld[0], (cl_long)g->ld[1], (cl_long)g->ld[2], 0}},
        {{(cl_long)g->bstride[0], (cl_long)g->bstride[1], (cl_long)g->bstride[2], 0}},
        {{(cl_long)g->batch, (cl_long)g->m, (cl_long)g->n, (cl_long)g->k}},
    };
    cl_long2 ab;
    memcpy(&ab.s[0], g->alpha, 8);
    memcpy(&ab.s[1], g->beta, 8);
    cl_uint flags = (g->trans_a ? TSR__KGEMM_TRANS_A : 0) | (g->trans_b ? TSR__KGEMM_TRANS_B : 0) |
                    (g->beta_zero ? TSR__KGEMM_BETA_ZERO : 0);
    size_t range[3] = {(size_t)((g->n + TSR__KGEMM_TILE_N - 1) / TSR__KGEMM_TILE_N),
                       (size_t)((g->m + TSR__KGEMM_TILE_M - 1) / TSR__KGEMM_TILE_M),
                       (size_t)g->batch};
    return gemm_kernel(d, k, gemm_operand_mem(g, 0), gemm_operand_mem(g, 1), gemm_operand_mem(g, 2),
                       v, ab, (cl_uint4){{TSR__KGEMM_PRODUCT, flags, 0, 0}}, range, event);
}

/* Operand i (batch x rows x cols as stored, at element off) into or out
 * of its float32 scratch (packed). */
static cl_int gemm_move(clrt_device *d, cl_kernel k, const tsr__backend_gemm *g, int i, size_t off,
                        uint64_t rows, uint64_t cols, cl_mem scratch, bool narrow, cl_event *event)
{
    int at = narrow ? 0 : 1; /* NARROW reads its place from off.x, WIDEN from off.y */
    cl_long4 v[4] = {{{0}}, {{0}}, {{0}}, {{(cl_long)g->batch, (cl_long)rows, (cl_long)cols, 0}}};
    v[0].s[at] = (cl_long)off;
    v[1].s[at] = (cl_long)g->ld[i];
    v[2].s[at] = (cl_long)g->bstride[i];
    size_t range[3] = {(size_t)rows, (size_t)g->batch, 1};
    cl_mem mem = gemm_operand_mem(g, i);
    cl_uint4 mode = {{narrow ? TSR__KGEMM_NARROW : TSR__KGEMM_WIDEN, 0, 0, 0}};
    return narrow ? gemm_kernel(d, k, mem, scratch, scratch, v, (cl_long2){{0}}, mode, range, event)
                  : gemm_kernel(d, k, scratch, mem, mem, v, (cl_long2){{0}}, mode, range, event);
}

/* float16 and bfloat16: *cs is CLBlast's status where Sgemm refused. */
static cl_int reduced_product(clrt_device *d, cl_kernel k, const tsr__backend_gemm *g,
                              const size_t off[3], cl_event *event, CLBlastStatusCode *cs)
{
    uint64_t rows[3] = {g->m, g->trans_a ? g->k : g->m, g->trans_b ? g->n : g->k};
    uint64_t cols[3] = {g->n, g->trans_a ? g->m : g->k, g->trans_b ? g->k : g->n};
    cl_mem scratch[3] = {NULL, NULL, NULL};
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++) {
        uint64_t bytes;
        if (__builtin_mul_overflow(g->batch, rows[i] * cols[i], &bytes) ||
            __builtin_mul_overflow(bytes, (uint64_t)sizeof(float), &bytes) || bytes > SIZE_MAX)
            err = CL_INVALID_BUFFER_SIZE;
        else
            scratch[i] = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &err);
    }
    for (int i = 1; i < 3 && err == CL_SUCCESS; i++)
        err = gemm_move(d, k, g, i, off[i], rows[i], cols[i], scratch[i], false, event);
    if (err == CL_SUCCESS && !g->beta_zero)
        err = gemm_move(d, k, g, 0, off[0], rows[0], cols[0], scratch[0], false, event);
    if (err == CL_SUCCESS) {
        float alpha, beta = 0;
        memcpy(&alpha, g->alpha, sizeof alpha);
        if (!g->beta_zero)
            memcpy(&beta, g->beta, sizeof beta);
        CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
        CLBlastTranspose tb = g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
        size_t m = (size_t)g->m, n = (size_t)g->n, kk = (size_t)g->k, batch = (size_t)g->batch;
        size_t sa = (size_t)(rows[1] * cols[1]), sb = (size_t)(rows[2] * cols[2]), sc = m * n;
        cl_event e = NULL;
        *cs = batch == 1 ? CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, m, n, kk, alpha, scratch[1],
                                        0, (size_t)cols[1], scratch[2], 0, (size_t)cols[2], beta,
                                        scratch[0], 0, n, &d->queue, &e)
                         : CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, m, n, kk,
                                                      alpha, scratch[1], 0, (size_t)cols[1], sa,
                                                      scratch[2], 0, (size_t)cols[2], sb, beta,
                                                      scratch[0], 0, n, sc, batch, &d->queue, &e);
        if (e) {
            if (*event)
                clReleaseEvent(*event);
            *event = e;
        }
        if (*cs != CLBlastSuccess)
            err = CL_INVALID_OPERATION;
    }
    if (err == CL_SUCCESS)
        err = gemm_move(d, k, g, 0, off[0], rows[0], cols[0], scratch[0], true, event);
    for (int i = 0; i < 3; i++)
        if (scratch[i])
            clReleaseMemObject(scratch[i]);
    return err;
}

/* C's rows as a box for the copy back: n elements per row, m rows ld
 * apart, batch matrices bstride apart where they lie in that order. */
static bool gemm_box(const tsr__backend_gemm *g, size_t item, size_t region[3], size_t pitch[2])
{
    region[0] = (size_t)g->n * item;
    region[1] = (size_t)g->m;
    region[2] = (size_t)g->batch;
    pitch[0] = (size_t)g->ld[0] * item;
    pitch[1] = g->batch > 1 ? (size_t)g->bstride[0] * item : region[1] * pitch[0];
    return pitch[0] >= region[0] && pitch[1] >= region[1] * pitch[0] && pitch[1] % pitch[0] == 0;
}

/* ---- host code on a device that is the host's CPU ---------------------------
 * Where the device is the CPU this process runs on and computes in the
 * segments themselves (PoCL's CPU device, host-unified memory), products,
 * elementwise launches and reductions are native kernels
 * (clEnqueueNativeKernel) that run the cpu device's own code on one of the
 * driver's threads, in their place in the queue: kernels/gemm.c (OpenBLAS
 * for the floating dtypes, float16 and bfloat16 through float32, the
 * integers exact) and kernels/cpu_exec.h (the cpu's walk with its vector
 * rows and non-temporal stores). They give the cpu's bits, which are the
 * programs' bits too (the element code is written once), and need no
 * program. CLBlast's kernels compiled for such a device reach about a
 * hundredth of OpenBLAS's speed on the same cores, and PoCL's code for
 * the elementwise walks 0.6 to 0.9 of the cpu's on an AMD EPYC (AVX2).
 * OpenBLAS's threads, and the pool's threads a launch takes, are the
 * device's compute units.
 *
 * Each distinct buffer goes once in the kernel's memory list, so that the
 * driver orders the kernel against the others that use it. The driver
 * writes the buffers' addresses into the argument block's `seen` slots,
 * but the kernel addresses the segments through their own bases
 * (clrt_buffer.base), which on such a device are the memory the driver
 * computes in (CL_MEM_USE_HOST_PTR): PoCL 3.1 was seen to fill the slots
 * of a list of three buffers in another order than the list's. */

typedef struct native_mems {
    cl_mem mem[TSR__KERNEL_MAX_OPERANDS];
    const void *at[TSR__KERNEL_MAX_OPERANDS]; /* slots in the argument block */
    cl_uint count;
} native_mems;

/* Puts buffer b in the list once, its slot the next of `seen`; returns
 * the segment's base. */
static unsigned char *native_mem(native_mems *m, void **seen, const void *buffer)
{
    const clrt_buffer *b = buffer;
    cl_uint j = 0;
    while (j < m->count && m->mem[j] != b->mem)
        j++;
    if (j == m->count && m->count < TSR__KERNEL_MAX_OPERANDS) {
        m->mem[m->count] = b->mem;
        m->at[m->count] = &seen[m->count];
        m->count++;
    }
    return b->base;
}

static void host_failed(clrt_job *job, tsr_status st)
{
    if (st != TSR_OK) {
        job->host_status = st;
        snprintf(job->host_message, sizeof job->host_message, "%s", tsr_last_error());
    }
}

typedef struct host_product {
    clrt_job *job;
    tsr__gemm_args args;
    tsr__mat mat[3]; /* C's, A's and B's, at their addresses */
    int threads;
    void *seen[TSR__KERNEL_MAX_OPERANDS];
} host_product;

static void CL_CALLBACK run_host_product(void *data)
{
    host_product *h = data; /* the driver's copy */
    tsr__gemm_threads threads = {.pool_size = 1, .blas_threads = h->threads};
    host_failed(h->job, tsr__gemm(&h->args, &h->mat[1], &h->mat[2], &h->mat[0], &threads));
}

/* Operand i of g as the host's matrices, at `base` + its offset: stored
 * rows x cols, read transposed where g says so. */
static tsr__mat host_mat(const tsr__backend_gemm *g, int i, unsigned char *base)
{
    bool trans = (i == 1 && g->trans_a) || (i == 2 && g->trans_b);
    int64_t ld = (int64_t)g->ld[i];
    return (tsr__mat){.data = base + g->offsets[i],
                      .bstride = (int64_t)g->bstride[i],
                      .rs = trans ? 1 : ld,
                      .cs = trans ? ld : 1};
}

static bool host_product_fits(const clrt_device *d, const tsr__backend_gemm *g)
{
    return d->host_code && tsr__gemm_supports((tsr_dtype)g->dtype);
}

static tsr_status run_product(tsr__clrt *rt, clrt_device *d, uint32_t ordinal,
                              const tsr__backend_gemm *g, tsr__backend_done_fn done, void *ctx)
{
    clrt_job *job = calloc(1, sizeof *job);
    if (!job)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a matrix product");
    *job = (clrt_job){.ordinal = ordinal, .device = d, .done = done, .ctx = ctx};
    host_product h = {.job = job,
                      .args = {.dtype = (tsr_dtype)g->dtype,
                               .batch = (int64_t)g->batch,
                               .m = (int64_t)g->m,
                               .n = (int64_t)g->n,
                               .k = (int64_t)g->k,
                               .beta_zero = g->beta_zero},
                      .threads = d->info.compute_units ? (int)d->info.compute_units : 1};
    memcpy(h.args.alpha, g->alpha, sizeof h.args.alpha);
    memcpy(h.args.beta, g->beta, sizeof h.args.beta);
    native_mems m = {.count = 0};
    for (int i = 0; i < 3; i++)
        h.mat[i] = host_mat(g, i, native_mem(&m, h.seen, g->buffers[i]));
    cl_event event = NULL;
    cl_int err = clEnqueueNativeKernel(d->queue, run_host_product, &h, sizeof h, m.count, m.mem,
                                       m.at, 0, NULL, &event);
    return enqueued(rt, d, job, event, err, "a matrix product");
}

typedef struct host_launch {
    clrt_job *job;
    tsr__kernel kernel; /* its operands' element offsets are in `host` */
    unsigned char *host[TSR__KERNEL_MAX_OPERANDS];
    int threads;
    uint64_t first, count; /* the pieces to run (tsr__host_pieces) */
    void *seen[TSR__KERNEL_MAX_OPERANDS];
} host_launch;

static void CL_CALLBACK run_host_launch(void *data)
{
    host_launch *h = data; /* the driver's copy */
    if (tsr__kernel_op_has(h->kernel.op, TSR__KOPF_REDUCE)) {
        host_failed(h->job, tsr__host_reduce(&h->kernel, h->host, h->threads));
        return;
    }
    int dim;
    int64_t rows;
    tsr__host_pieces(&h->kernel, &dim, &rows);
    int64_t whole = 1;
    for (int d = 0; d < h->kernel.ndim; d++)
        whole *= h->kernel.sizes[d];
    tsr_status st = TSR_OK;
    for (uint64_t p = h->first; p < h->first + h->count && st == TSR_OK; p++) {
        tsr__kernel piece;
        tsr__host_piece(&h->kernel, dim, rows, p, &piece);
        st = tsr__host_elementwise_part(&piece, h->host, h->threads, whole);
    }
    host_failed(h->job, st);
}

/* A host launch's operands in the segments: `at` the kernel with its
 * operands' offsets in host[] instead, each buffer also put in m's
 * memory list for a native kernel (m NULL: none). False where the
 * launch has fewer buffers than the kernel's operands. */
static bool host_operands(const tsr__kernel *kernel, const tsr__backend_launch *launch,
                          tsr__kernel *at, unsigned char *host[TSR__KERNEL_MAX_OPERANDS],
                          native_mems *m, void **seen)
{
    *at = *kernel;
    uint32_t b = 0;
    for (uint32_t i = 0; i < kernel->noperands; i++) {
        if (kernel->operands[i].flags & TSR__KOPERAND_SCALAR)
            continue;
        if (b >= launch->nbuffers)
            return false;
        const clrt_buffer *buf = launch->buffers[b];
        host[i] = (m ? native_mem(m, seen, buf) : buf->base) + launch->offsets[b];
        at->operands[i].offset = 0;
        b++;
    }
    return true;
}

tsr_status tsr__clrt_host_enqueue(tsr__clrt *rt, uint32_t ordinal, const tsr__kernel *kernel,
                                  const tsr__backend_launch *launch, tsr__backend_done_fn done,
                                  void *ctx)
{
    if (!tsr__clrt_host_code(rt, ordinal) || kernel->noperands > TSR__KERNEL_MAX_OPERANDS)
        return tsr__fail(TSR_ERR_DEVICE, "OpenCL device %u runs no host code", (unsigned)ordinal);
    clrt_device *d = &rt->devices[ordinal];
    host_launch *h = calloc(1, sizeof *h);
    clrt_job *job = calloc(1, sizeof *job);
    if (!h || !job) {
        free(h);
        free(job);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
    }
    *job = (clrt_job){.ordinal = ordinal, .device = d, .done = done, .ctx = ctx};
    h->job = job;
    h->threads = d->info.compute_units ? (int)d->info.compute_units : 1;
    int dim;
    int64_t rows;
    uint64_t pieces = tsr__host_pieces(kernel, &dim, &rows);
    h->first = launch->piece_count ? launch->first_piece : 0;
    h->count = launch->piece_count ? launch->piece_count : pieces;
    native_mems m = {.count = 0};
    const char *bad = h->first > pieces || h->count > pieces - h->first
                          ? "a host launch's pieces are out of range"
                      : !host_operands(kernel, launch, &h->kernel, h->host, &m, h->seen)
                          ? "a host launch lacks a buffer"
                          : NULL;
    if (bad) {
        free(h);
        free(job);
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s", bad);
    }
    cl_event event = NULL;
    cl_int err = clEnqueueNativeKernel(d->queue, run_host_launch, h, sizeof *h, m.count, m.mem,
                                       m.at, 0, NULL, &event);
    free(h); /* the driver copied it */
    return enqueued(rt, d, job, event, err, "a kernel");
}

tsr_status tsr__clrt_host_run(tsr__clrt *rt, uint32_t ordinal, const tsr__kernel *kernel,
                              const tsr__backend_launch *launch, bool *ran)
{
    /* A move into huge pages still queued goes first: queued behind it,
     * the launch keeps its segment alive until the move has run. */
    *ran = false;
    for (uint32_t b = 0; b < launch->nbuffers; b++)
        if (launch->buffers[b] && !moved(launch->buffers[b]))
            return TSR_OK;
    *ran = true;
    if (!tsr__clrt_host_code(rt, ordinal) || kernel->noperands > TSR__KERNEL_MAX_OPERANDS)
        return tsr__fail(TSR_ERR_DEVICE, "OpenCL device %u runs no host code", (unsigned)ordinal);
    tsr__kernel at;
    unsigned char *host[TSR__KERNEL_MAX_OPERANDS] = {NULL};
    if (!host_operands(kernel, launch, &at, host, NULL, NULL))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "a host launch lacks a buffer");
    atomic_fetch_add(&rt->launches, 1);
    return tsr__kernel_op_has(at.op, TSR__KOPF_REDUCE) ? tsr__host_reduce(&at, host, 1)
                                                       : tsr__host_elementwise(&at, host, 1);
}

tsr_status tsr__clrt_gemm(tsr__clrt *rt, uint32_t ordinal, const tsr__backend_gemm *g,
                          tsr__backend_done_fn done, void *ctx)
{
    if (ordinal >= rt->count || rt->devices[ordinal].state != DEVICE_OPEN)
        return tsr__fail(TSR_ERR_DEVICE, "OpenCL device %u is not open", (unsigned)ordinal);
    if (host_product_fits(&rt->devices[ordinal], g))
        return run_product(rt, &rt->devices[ordinal], ordinal, g, done, ctx);
    tsr_dtype dt = (tsr_dtype)g->dtype;
    bool blas =
        dt == TSR_FLOAT32 || dt == TSR_FLOAT64 || dt == TSR_COMPLEX64 || dt == TSR_COMPLEX128;
    if (!blas && !tsr__kernel_gemm_has(dt))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "matrix products in %s on opencl devices are not "
                         "available",
                         tsr_dtype_name(dt));
    /* the GEMM program of the dtype, which the daemon had built first */
    cl_kernel helper = NULL;
    if (!blas) {
        tsr__kernel_key key = tsr__kernel_gemm_key(dt);
        tsr__clrt_program *p = tsr__clrt_program_find(rt, ordinal, &key);
        if (!p || tsr__clrt_program_state(p) != TSR__PROGRAM_READY)
            return tsr__fail(TSR_ERR_DEVICE, "the GEMM program of %s on OpenCL device %u: %s",
                             tsr_dtype_name(dt), (unsigned)ordinal,
                             p ? tsr__clrt_program_error(p) : "never requested");
        helper = p->kernel;
    }
    size_t item = tsr_dtype_itemsize(dt), off[3];
    for (int i = 0; i < 3; i++) {
        if (g->offsets[i] % item)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "a matrix product's operand %d is not aligned to its elements", i);
        off[i] = (size_t)(g->offsets[i] / item);
    }
    clrt_device *d = &rt->devices[ordinal];
    clrt_job *job = calloc(1, sizeof *job);
    if (!job)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a matrix product");
    *job = (clrt_job){.ordinal = ordinal, .device = d, .done = done, .ctx = ctx};
    /* C goes in where it is read, and where its rows do not make a box
     * (the whole span comes back then, gaps included). CLBlast reads no C
     * where beta is 0: a NaN there does not reach the result
     * (kernels-opencl-gemm holds it to that). */
    size_t region[3], pitch[2];
    bool box = gemm_box(g, item, region, pitch);
    uint64_t extents[3] = {g->beta_zero && box ? 0 : g->extents[0], g->extents[1], g->extents[2]};
    cl_int err = copy_in(d, job, g->buffers, g->offsets, extents, 3);
    cl_event event = NULL;
    if (err == CL_SUCCESS) {
        CLBlastStatusCode cs = CLBlastSuccess;
        if (blas)
            cs = gemm_call(d, g, off, &event);
        else if (tsr_dtype_is_floating_point(dt))
            err = reduced_product(d, helper, g, off, &event, &cs);
        else
            err = int_product(d, helper, g, off, &event);
        if (cs != CLBlastSuccess) { /* its codes below -1000 are its own */
            enqueue_failed(d, job, event, CL_INVALID_OPERATION, "a matrix product");
            return tsr__fail(TSR_ERR_DEVICE,
                             "CLBlast refused a matrix product on %.200s: "
                             "status %d",
                             d->info.name, (int)cs);
        }
    }
    const clrt_buffer *out = g->buffers[0];
    if (err == CL_SUCCESS && out->host && g->extents[0] > 0)
        err = copy_back(d, job, out, g->offsets[0], g->extents[0], box, region, pitch, &event);
    return enqueued(rt, d, job, event, err, "a matrix product");
}
