/* tessera-bench, elementwise suite: the bare baselines (elementwise.h).
 *
 * The STREAM loops are what a C compiler makes of c[i] = a[i] + b[i],
 * c[i] = a[i] and a sum of a[i] (the reduce suite's plain read) at -O3
 * (this file's build options), split into one
 * contiguous share per thread as an elementwise kernel splits its work. The OpenCL baseline is the
 * cheapest thing a program can ask of the device: one work item, enqueued
 * and waited for. */
#define CL_TARGET_OPENCL_VERSION 120

#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/elementwise.h"

/* ---- STREAM add, copy and read ---------------------------------------- */

#define STREAM_ALIGN 4096

typedef struct stream_share {
    const stream_arrays *s;
    size_t begin, end;
    bool init; /* write the arrays instead of adding */
    float sum; /* STREAM_READ's result */
} stream_share;

/* What the read loops summed, kept so that the compiler keeps the loops. */
static volatile float read_sink;

static void add_range(const float *restrict a, const float *restrict b, float *restrict c,
                      size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        c[i] = a[i] + b[i];
}

static void copy_range(const float *restrict a, float *restrict c, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        c[i] = a[i];
}

/* The sum of a[begin..end) in 8 independent vectors (GCC's vector
 * extension; a plain loop is not vectorised without -ffast-math, and one
 * with an array of accumulators becomes chains of dependent adds slower
 * than the memory): a plain read at the memory's speed. Built twice, as
 * STREAM is built for the machine: 8 vectors of 4 floats for the
 * baseline, 8 of 8 (256-bit loads, two cache lines an iteration) where
 * the CPU has AVX2. */
typedef float read_vec __attribute__((vector_size(16)));
typedef float read_vec2 __attribute__((vector_size(32)));

#define READ_RANGE(NAME, ATTR, VT)                                            \
    static ATTR float NAME(const float *restrict a, size_t begin, size_t end) \
    {                                                                         \
        enum { W = sizeof(VT) / sizeof(float) };                              \
        VT acc[8] = {{0}};                                                    \
        size_t i = begin;                                                     \
        for (; i + 8 * W <= end; i += 8 * W)                                  \
            for (int j = 0; j < 8; j++) {                                     \
                VT v;                                                         \
                memcpy(&v, a + i + W * j, sizeof v);                          \
                acc[j] += v;                                                  \
            }                                                                 \
        float sum = 0;                                                        \
        for (; i < end; i++)                                                  \
            sum += a[i];                                                      \
        for (int j = 0; j < 8; j++)                                           \
            for (int k = 0; k < W; k++)                                       \
                sum += acc[j][k];                                             \
        return sum;                                                           \
    }
READ_RANGE(read_range_base, , read_vec)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
READ_RANGE(read_range_avx2, __attribute__((target("avx2"))), read_vec2)
#endif

static float read_range(const float *restrict a, size_t begin, size_t end)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2"))
        return read_range_avx2(a, begin, end);
#endif
    return read_range_base(a, begin, end);
}

static void init_range(float *restrict a, float *restrict b, float *restrict c, size_t begin,
                       size_t end)
{
    for (size_t i = begin; i < end; i++) {
        a[i] = 1.0f;
        if (b)
            b[i] = 2.0f;
        if (c)
            c[i] = 0.0f;
    }
}

static void *run_share(void *arg)
{
    stream_share *sh = arg;
    if (sh->init)
        init_range(sh->s->a, sh->s->b, sh->s->c, sh->begin, sh->end);
    else if (sh->s->kind == STREAM_READ)
        sh->sum = read_range(sh->s->a, sh->begin, sh->end);
    else if (sh->s->kind == STREAM_COPY)
        copy_range(sh->s->a, sh->s->c, sh->begin, sh->end);
    else
        add_range(sh->s->a, sh->s->b, sh->s->c, sh->begin, sh->end);
    return NULL;
}

/* Every thread's share once: threads 1.. on new threads, share 0 on this
 * one. */
static bool run_all(const stream_arrays *s, bool init)
{
    enum { MAX_THREADS = 256 };
    stream_share shares[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int t = s->threads < 1 ? 1 : s->threads > MAX_THREADS ? MAX_THREADS : s->threads;
    /* Shares of whole cache lines (16 floats), the last taking the rest. */
    size_t per = (s->n / (size_t)t) & ~(size_t)15;
    for (int k = 0; k < t; k++)
        shares[k] = (stream_share){.s = s,
                                   .begin = (size_t)k * per,
                                   .end = k == t - 1 ? s->n : (size_t)(k + 1) * per,
                                   .init = init};
    int started = 1;
    bool ok = true;
    for (; started < t; started++) {
        if (pthread_create(&ids[started], NULL, run_share, &shares[started]) != 0) {
            ok = false;
            break;
        }
    }
    run_share(&shares[0]);
    float sum = shares[0].sum;
    for (int k = 1; k < started; k++) {
        pthread_join(ids[k], NULL);
        sum += shares[k].sum;
    }
    read_sink = sum;
    return ok;
}

const char *stream_name(stream_kind kind)
{
    return kind == STREAM_READ ? "stream_read" : kind == STREAM_COPY ? "stream_copy" : "stream_add";
}

/* The arrays a loop of this kind reads and writes. */
static unsigned stream_arrays_of(stream_kind kind)
{
    return kind == STREAM_READ ? 1 : kind == STREAM_COPY ? 2 : 3;
}

/* Stalls. On the development machine, a virtual machine, a pass of the
 * loop now and then takes 10-25 times as long as the others (1-3 GB/s
 * against 25-30), all of it user time on one CPU, with no page fault,
 * context switch, huge-page collapse, TLB-flush interrupt or stolen time
 * that the guest sees, and alike with the loops built for AVX2: once on
 * the first pass over arrays just allocated and written (500 against 19
 * ms for a copy of 2 x 256 MiB), then in spells of up to a second or so,
 * in this suite only while the cpu device's operations alternate with
 * the loop in one process. Sampled as they came, one to four of a cpu
 * case's six baseline samples read so, and the median with them. So
 * stream_init runs the loop untimed until a pass takes no longer than
 * 1.2 times the one before it (at most SETTLE_RUNS), and stream_time
 * runs a pass again where it took more than STREAM_STALL times the
 * fastest of those, at most as many times as it was asked for passes: a
 * shorter spell is left out, a longer one still shows (the suites note
 * how many passes ran again). */
#define SETTLE_RUNS 8
#define STREAM_STALL 3

static bool settle(stream_arrays *s)
{
    uint64_t last = 0;
    for (int k = 0; k < SETTLE_RUNS; k++) {
        uint64_t t0 = bench_now_ns();
        if (!run_all(s, false))
            return false;
        uint64_t t = bench_now_ns() - t0;
        if (k == 0 || t < s->pass_ns)
            s->pass_ns = t;
        if (k > 0 && t * 5 <= last * 6)
            break;
        last = t;
    }
    return true;
}

bool stream_time(const stream_arrays *s, int reps, double *seconds, int *retaken)
{
    uint64_t total = 0;
    int again = 0;
    for (int k = 0; k < reps;) {
        uint64_t t0 = bench_now_ns();
        if (!run_all(s, false))
            return false;
        uint64_t t = bench_now_ns() - t0;
        if (t > STREAM_STALL * s->pass_ns && again < reps) {
            again++;
            continue;
        }
        total += t;
        k++;
    }
    *seconds = (double)total / 1e9 / (reps > 0 ? reps : 1);
    if (retaken)
        *retaken += again;
    return true;
}

int stream_init(stream_arrays *s, stream_kind kind, uint64_t bytes, int threads, const char *suite)
{
    *s = (stream_arrays){.threads = threads, .kind = kind};
    unsigned arrays = stream_arrays_of(kind);
    s->n = (size_t)(bytes / (arrays * sizeof(float)));
    if (s->n < 16)
        s->n = 16;
    size_t each = (s->n * sizeof(float) + STREAM_ALIGN - 1) / STREAM_ALIGN * STREAM_ALIGN;
    s->a = aligned_alloc(STREAM_ALIGN, each);
    s->b = kind == STREAM_ADD ? aligned_alloc(STREAM_ALIGN, each) : NULL;
    s->c = kind != STREAM_READ ? aligned_alloc(STREAM_ALIGN, each) : NULL;
    if (!s->a || (kind == STREAM_ADD && !s->b) || (kind != STREAM_READ && !s->c)) {
        bench_note(suite, "%s: cannot allocate %u x %zu MiB", stream_name(kind), arrays,
                   each >> 20);
        stream_free(s);
        return -1;
    }
    if (!run_all(s, true) || !settle(s)) {
        bench_note(suite, "%s: cannot start %d threads", stream_name(kind), threads);
        stream_free(s);
        return -1;
    }
    return 0;
}

uint64_t stream_bytes(const stream_arrays *s)
{
    return stream_arrays_of(s->kind) * sizeof(float) * (uint64_t)s->n;
}

void stream_free(stream_arrays *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
    *s = (stream_arrays){0};
}

/* ---- Bare OpenCL ------------------------------------------------------ */

struct bare_opencl {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem buffers[3];
};

static const char bare_source[] =
    "__kernel void add1(__global float *c, __global const float *a, __global const float *b)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

int bare_opencl_find_device(const char *name, const char *suite, void **out)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) {
        bench_note(suite, "bare OpenCL: no OpenCL platform");
        return -1;
    }
    bool have_first = false;
    cl_device_id first = NULL;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 16; d++) {
            char dev_name[256] = "";
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dev_name - 1, dev_name, NULL);
            if (strcmp(dev_name, name) == 0) {
                *out = (void *)devices[d];
                return 0;
            }
            if (!have_first) {
                first = devices[d];
                have_first = true;
            }
        }
    }
    if (!have_first) {
        bench_note(suite, "bare OpenCL: no OpenCL device");
        return -1;
    }
    bench_note(suite, "bare OpenCL: no device is named \"%s\"; using the first one", name);
    *out = (void *)first;
    return 0;
}

static int cl_failed(const char *suite, const char *what, cl_int err, bare_opencl *b)
{
    bench_note(suite, "bare OpenCL: %s failed (error %d)", what, (int)err);
    bare_opencl_close(b);
    return -1;
}

int bare_opencl_open(const char *device_name, const char *suite, bare_opencl **out)
{
    *out = NULL;
    cl_device_id device;
    if (bare_opencl_find_device(device_name, suite, (void **)&device) != 0)
        return -1;
    bare_opencl *b = calloc(1, sizeof *b);
    if (!b) {
        bench_note(suite, "bare OpenCL: out of memory");
        return -1;
    }
    cl_int err = CL_SUCCESS;
    b->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!b->context)
        return cl_failed(suite, "clCreateContext", err, b);
    b->queue = clCreateCommandQueue(b->context, device, 0, &err);
    if (!b->queue)
        return cl_failed(suite, "clCreateCommandQueue", err, b);
    const char *src = bare_source;
    b->program = clCreateProgramWithSource(b->context, 1, &src, NULL, &err);
    if (!b->program)
        return cl_failed(suite, "clCreateProgramWithSource", err, b);
    err = clBuildProgram(b->program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS)
        return cl_failed(suite, "clBuildProgram", err, b);
    b->kernel = clCreateKernel(b->program, "add1", &err);
    if (!b->kernel)
        return cl_failed(suite, "clCreateKernel", err, b);
    static const float ones[1] = {1.0f};
    for (int k = 0; k < 3; k++) {
        b->buffers[k] = clCreateBuffer(b->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                       sizeof ones, (void *)ones, &err);
        if (!b->buffers[k])
            return cl_failed(suite, "clCreateBuffer", err, b);
        err = clSetKernelArg(b->kernel, (cl_uint)k, sizeof(cl_mem), &b->buffers[k]);
        if (err != CL_SUCCESS)
            return cl_failed(suite, "clSetKernelArg", err, b);
    }
    *out = b;
    return 0;
}

bool bare_opencl_run(void *arg)
{
    bare_opencl *b = arg;
    size_t global = 1;
    return clEnqueueNDRangeKernel(b->queue, b->kernel, 1, NULL, &global, NULL, 0, NULL, NULL) ==
               CL_SUCCESS &&
           clFinish(b->queue) == CL_SUCCESS;
}

void bare_opencl_close(bare_opencl *b)
{
    if (!b)
        return;
    for (int k = 0; k < 3; k++)
        if (b->buffers[k])
            clReleaseMemObject(b->buffers[k]);
    if (b->kernel)
        clReleaseKernel(b->kernel);
    if (b->program)
        clReleaseProgram(b->program);
    if (b->queue)
        clReleaseCommandQueue(b->queue);
    if (b->context)
        clReleaseContext(b->context);
    free(b);
}

/* The context of bare_opencl_build's device, kept from one build to the
 * next as a program that builds several would keep it: PoCL, for one,
 * builds in a fifth of the time on a context that has built before (its
 * built-in library stays loaded while a context is open). */
static struct {
    cl_device_id device;
    cl_context context;
} build_ctx;

int bare_opencl_build(const char *device_name, const char *suite, const char *source, double *ms)
{
    cl_device_id device;
    if (bare_opencl_find_device(device_name, suite, (void **)&device) != 0)
        return -1;
    cl_int err = CL_SUCCESS;
    if (build_ctx.context && build_ctx.device != device)
        bare_opencl_build_end();
    if (!build_ctx.context) {
        build_ctx.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
        build_ctx.device = device;
    }
    if (!build_ctx.context) {
        bench_note(suite, "bare OpenCL: clCreateContext failed (error %d)", (int)err);
        return -1;
    }
    uint64_t t0 = bench_now_ns();
    cl_program program = clCreateProgramWithSource(build_ctx.context, 1, &source, NULL, &err);
    if (program)
        err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    *ms = (double)(bench_now_ns() - t0) / 1e6;
    if (program)
        clReleaseProgram(program);
    if (err != CL_SUCCESS) {
        bench_note(suite, "bare OpenCL: clBuildProgram failed (error %d)", (int)err);
        return -1;
    }
    return 0;
}

void bare_opencl_build_end(void)
{
    if (build_ctx.context)
        clReleaseContext(build_ctx.context);
    build_ctx.context = NULL;
    build_ctx.device = NULL;
}
