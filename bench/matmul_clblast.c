/* tessera-bench, the matmul suite's CLBlast baseline (matmul.h). */
#define CL_TARGET_OPENCL_VERSION 120
#include "bench/matmul.h"

#include <CL/cl.h>
#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "bench/elementwise.h"

struct bench_clblast {
    const char *suite;
    cl_context context;
    cl_command_queue queue;
    cl_mem a, b, c;
    size_t batch, n;
    bool transposed;
};

void bench_clblast_close(bench_clblast *b)
{
    if (!b)
        return;
    cl_mem mems[3] = {b->a, b->b, b->c};
    for (int k = 0; k < 3; k++)
        if (mems[k])
            clReleaseMemObject(mems[k]);
    if (b->queue)
        clReleaseCommandQueue(b->queue);
    if (b->context)
        clReleaseContext(b->context);
    free(b);
}

static cl_mem filled(bench_clblast *b, size_t count, float v, cl_int *err)
{
    float *host = malloc(count * sizeof *host);
    if (!host) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        host[i] = v;
    cl_mem m = clCreateBuffer(b->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              count * sizeof *host, host, err);
    free(host);
    return m;
}

int bench_clblast_open(const char *device_name, const char *suite, int64_t batch, int64_t n,
                       bool transposed, bench_clblast **out)
{
    *out = NULL;
    void *found = NULL;
    if (bare_opencl_find_device(device_name, suite, &found) != 0)
        return -1;
    cl_device_id device = found;
    bench_clblast *b = calloc(1, sizeof *b);
    if (!b) {
        bench_note(suite, "CLBlast: out of memory");
        return -1;
    }
    *b = (bench_clblast){
        .suite = suite, .batch = (size_t)batch, .n = (size_t)n, .transposed = transposed};
    cl_int err = CL_SUCCESS;
    size_t count = b->batch * b->n * b->n;
    b->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (b->context)
        b->queue = clCreateCommandQueue(b->context, device, 0, &err);
    if (b->queue)
        b->a = filled(b, count, 1.0f, &err);
    if (b->a)
        b->b = filled(b, count, 0.5f, &err);
    if (b->b)
        b->c = filled(b, count, 0.0f, &err);
    if (!b->c) {
        bench_note(suite, "CLBlast: cannot make its context and buffers (OpenCL error %d)",
                   (int)err);
        bench_clblast_close(b);
        return -1;
    }
    if (isnan(bench_clblast_sample(b))) {
        bench_clblast_close(b);
        return -1;
    }
    *out = b;
    return 0;
}

double bench_clblast_sample(bench_clblast *b)
{
    size_t n = b->n, mat = n * n;
    CLBlastTranspose ta = b->transposed ? CLBlastTransposeYes : CLBlastTransposeNo;
    uint64_t t0 = bench_now_ns();
    CLBlastStatusCode st =
        b->batch == 1
            ? CLBlastSgemm(CLBlastLayoutRowMajor, ta, CLBlastTransposeNo, n, n, n, 1.0f, b->a, 0, n,
                           b->b, 0, n, 0.0f, b->c, 0, n, &b->queue, NULL)
            : CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, CLBlastTransposeNo, n, n, n,
                                         1.0f, b->a, 0, n, mat, b->b, 0, n, mat, 0.0f, b->c, 0, n,
                                         mat, b->batch, &b->queue, NULL);
    cl_int err = st == CLBlastSuccess ? clFinish(b->queue) : CL_SUCCESS;
    uint64_t ns = bench_now_ns() - t0;
    if (st != CLBlastSuccess || err != CL_SUCCESS) {
        bench_note(b->suite, "CLBlast: Sgemm failed (status %d, OpenCL error %d)", (int)st,
                   (int)err);
        return NAN;
    }
    return 2.0 * (double)b->batch * (double)mat * (double)n / (double)ns;
}
