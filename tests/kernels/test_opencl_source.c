/* The OpenCL generator through the real ICD loader:
 *   1. every program the conformance set needs (each arithmetic op x each
 *      compute dtype x each shape, with tensor and scalar inputs and a
 *      converting output; copy between every dtype pair; fill of every
 *      dtype) builds, in batches that share the embedded headers;
 *   2. a selection runs on the first OpenCL device and matches the cpu
 *      row loops (kernels/cpu_loops.c) bit for bit, and an integer
 *      division by zero raises the status flag.
 * Skips (77) when there is no OpenCL platform. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/kernels.h"
#include "kernels/opencl_source.h"
#include "test.h"

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;
static unsigned caps;

static const tsr_dtype computes[] = {TSR_BOOL,      TSR_UINT8,   TSR_INT8,      TSR_INT16,
                                     TSR_INT32,     TSR_INT64,   TSR_FLOAT16,   TSR_BFLOAT16,
                                     TSR_FLOAT32,   TSR_FLOAT64, TSR_COMPLEX32, TSR_COMPLEX64,
                                     TSR_COMPLEX128};
static const tsr__kernel_op arith[] = {TSR__KOP_ADD, TSR__KOP_SUB,       TSR__KOP_MUL,
                                       TSR__KOP_DIV, TSR__KOP_DIV_TRUNC, TSR__KOP_DIV_FLOOR};

/* ---- building in batches ------------------------------------------------ */

#define BATCH 40
static char *batch_src;
static size_t batch_len, batch_cap;
static int batch_count, built, build_failures;
static char one_src[1 << 17];

static void append(const char *s, size_t n)
{
    if (batch_len + n + 1 > batch_cap) {
        batch_cap = (batch_len + n + 1) * 2;
        batch_src = realloc(batch_src, batch_cap);
    }
    memcpy(batch_src + batch_len, s, n);
    batch_len += n;
    batch_src[batch_len] = '\0';
}

static cl_program build(const char *src, const char *what)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(p, 1, &dev, "-cl-fp32-correctly-rounded-divide-sqrt", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "build of %s failed (%d):\n%.4000s\n", what, err, log);
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static void flush_batch(void)
{
    if (batch_count == 0)
        return;
    cl_program p = build(batch_src, "a batch");
    if (p) {
        built += batch_count;
        clReleaseProgram(p);
    } else {
        build_failures += batch_count;
    }
    batch_len = 0;
    batch_count = 0;
}

/* Adds the key's program to the batch: the headers once, the kernel
 * renamed. */
static void add_key(const tsr__kernel_key *key)
{
    size_t len;
    if (tsr__opencl_source(key, caps, one_src, sizeof one_src, &len) != TSR_OK) {
        fprintf(stderr, "no source for op %d common %d: %s\n", key->op, key->common,
                tsr_last_error());
        build_failures++;
        return;
    }
    char *kernel = strstr(one_src, "__kernel void tsr_kernel(");
    ASSERT_TRUE(kernel != NULL);
    if (batch_count == 0)
        append(one_src, (size_t)(kernel - one_src));
    char name[64];
    snprintf(name, sizeof name, "__kernel void tsr_kernel_%d(", batch_count);
    append(name, strlen(name));
    const char *rest = kernel + strlen("__kernel void tsr_kernel(");
    append(rest, strlen(rest));
    if (++batch_count == BATCH)
        flush_batch();
}

static tsr__kernel_key copy_key(tsr_dtype dst, tsr_dtype src)
{
    tsr__kernel_key key = {.op = TSR__KOP_COPY,
                           .shape = TSR__KSHAPE_LINEAR,
                           .common = (uint8_t)dst,
                           .noperands = 2,
                           .dtypes = {(uint8_t)dst, (uint8_t)src}};
    return key;
}

static bool wanted(const tsr__kernel_key *key)
{
    return tsr__kernel_key_check(key, caps) == TSR_OK;
}

static void build_all(void)
{
    int refused = 0;
    for (size_t o = 0; o < TSR__ARRAY_SIZE(arith); o++)
        for (size_t c = 0; c < TSR__ARRAY_SIZE(computes); c++)
            for (int shape = 0; shape <= TSR__KSHAPE_STRIDED; shape++)
                for (int variant = 0; variant < 3; variant++) {
                    tsr_dtype common = computes[c];
                    /* tensor inputs; a scalar second input; float32 inputs
                     * converted in and the result converted to float64 */
                    tsr__kernel_key key = {
                        .op = (uint8_t)arith[o],
                        .shape = (uint8_t)shape,
                        .common = (uint8_t)common,
                        .noperands = 3,
                        .dtypes = {(uint8_t)common, (uint8_t)common, (uint8_t)common}};
                    if (variant == 1)
                        key.dtypes[2] = TSR__KEY_SCALAR;
                    if (variant == 2)
                        key.dtypes[0] = TSR_FLOAT64, key.dtypes[1] = TSR_INT16;
                    if (wanted(&key))
                        add_key(&key);
                    else
                        refused++;
                }
    for (int d = 0; d < TSR_DTYPE_COUNT; d++) {
        for (int s = 0; s < TSR_DTYPE_COUNT; s++) {
            tsr__kernel_key key = copy_key((tsr_dtype)d, (tsr_dtype)s);
            if (wanted(&key))
                add_key(&key);
        }
        tsr__kernel_key fill = {.op = TSR__KOP_FILL,
                                .shape = TSR__KSHAPE_STRIDED,
                                .common = (uint8_t)d,
                                .noperands = 1,
                                .dtypes = {(uint8_t)d}};
        ASSERT_TRUE(wanted(&fill));
        add_key(&fill);
    }
    flush_batch();
    printf("built %d kernels (%d failed, %d keys refused as PyTorch refuses them)\n", built,
           build_failures, refused);
    ASSERT_EQ(build_failures, 0);
}

/* ---- running against the cpu loops ----------------------------------------- */

#define N 256

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Element bits worth testing: random bits (NaNs, infinities, subnormals
 * included) and small integers. */
static void fill_values(tsr_dtype d, unsigned char *p, size_t n, bool nonzero)
{
    size_t w = tsr_dtype_itemsize(d);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[2] = {next(), next()};
        if (i % 3 == 0) { /* small integers keep division interesting */
            int64_t k = (int64_t)(v[0] % 13) - 6;
            v[0] = (uint64_t)k;
            tsr_cast_buffer(&k, TSR_INT64, v, d, 1);
        }
        if (d == TSR_BOOL)
            v[0] &= 1;
        memcpy(p + i * w, v, w);
        if (nonzero && (d == TSR_BOOL || tsr_dtype_is_integral(d))) {
            bool zero = true;
            for (size_t b = 0; b < w; b++)
                zero &= p[i * w + b] == 0;
            if (zero)
                p[i * w] = 1;
        }
    }
}

static cl_mem buffer(size_t bytes, const void *data)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, (void *)data, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    return m;
}

/* Runs a LINEAR program for `key` over n elements; returns the status. */
static int run_linear(const tsr__kernel_key *key, unsigned char *out, const unsigned char *in1,
                      const unsigned char *in2, const uint8_t scalar[16], const uint8_t alpha[16],
                      size_t n)
{
    size_t len;
    ASSERT_OK(tsr__opencl_source(key, caps, one_src, sizeof one_src, &len));
    cl_program p = build(one_src, "a kernel to run");
    if (!p)
        return -1;
    cl_int err;
    cl_kernel k = clCreateKernel(p, "tsr_kernel", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const unsigned char *ins[2] = {in1, in2};
    cl_mem mems[3] = {NULL, NULL, NULL};
    size_t out_bytes = n * tsr_dtype_itemsize((tsr_dtype)key->dtypes[0]);
    mems[0] = buffer(out_bytes, NULL);
    cl_uint arg = 0;
    cl_ulong zero = 0;
    clSetKernelArg(k, arg++, sizeof(cl_mem), &mems[0]);
    clSetKernelArg(k, arg++, sizeof zero, &zero);
    for (int i = 1; i < key->noperands; i++) {
        if (key->dtypes[i] == TSR__KEY_SCALAR)
            continue;
        mems[i] = buffer(n * tsr_dtype_itemsize((tsr_dtype)key->dtypes[i]), ins[i - 1]);
        clSetKernelArg(k, arg++, sizeof(cl_mem), &mems[i]);
        clSetKernelArg(k, arg++, sizeof zero, &zero);
    }
    cl_ulong2 s, a;
    memcpy(&s, scalar, 16);
    memcpy(&a, alpha, 16);
    int status_host = 0;
    cl_mem status = buffer(sizeof(int), &status_host);
    cl_ulong count = n;
    clSetKernelArg(k, arg++, sizeof s, &s);
    clSetKernelArg(k, arg++, sizeof a, &a);
    clSetKernelArg(k, arg++, sizeof(cl_mem), &status);
    ASSERT_EQ(clSetKernelArg(k, arg++, sizeof count, &count), CL_SUCCESS);
    size_t global = n;
    ASSERT_EQ(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    clEnqueueReadBuffer(queue, mems[0], CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, status, CL_TRUE, 0, sizeof(int), &status_host, 0, NULL, NULL);
    for (int i = 0; i < 3; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    clReleaseMemObject(status);
    clReleaseKernel(k);
    clReleaseProgram(p);
    return status_host;
}

/* Equal bits; in complex results two NaNs match (see test_scalar_ops.c). */
static bool same_bits(tsr_dtype d, const unsigned char *x, const unsigned char *y)
{
    size_t w = tsr_dtype_itemsize(d);
    if (memcmp(x, y, w) == 0)
        return true;
    if (!tsr_dtype_is_complex(d))
        return false;
    tsr_dtype part = tsr_dtype_to_real(d);
    for (size_t h = 0; h < 2; h++) {
        float fx, fy;
        unsigned char bx[8] = {0}, by[8] = {0};
        tsr_cast_buffer(x + h * w / 2, part, bx, TSR_FLOAT32, 1);
        tsr_cast_buffer(y + h * w / 2, part, by, TSR_FLOAT32, 1);
        memcpy(&fx, bx, 4);
        memcpy(&fy, by, 4);
        if (memcmp(x + h * w / 2, y + h * w / 2, w / 2) != 0 && !(fx != fx && fy != fy))
            return false;
    }
    return true;
}

static void compare(const char *what, tsr_dtype d, const unsigned char *got,
                    const unsigned char *want, size_t n)
{
    size_t w = tsr_dtype_itemsize(d), bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!same_bits(d, got + i * w, want + i * w) && bad++ < 3) {
            fprintf(stderr, "%s [%zu]: got ", what, i);
            for (size_t b = 0; b < w; b++)
                fprintf(stderr, "%02x", got[i * w + b]);
            fprintf(stderr, " want ");
            for (size_t b = 0; b < w; b++)
                fprintf(stderr, "%02x", want[i * w + b]);
            fprintf(stderr, "\n");
        }
    ASSERT_EQ(bad, 0);
}

static void run_arith(void)
{
    static unsigned char a[N * 16], b[N * 16], got[N * 16], want[N * 16];
    for (size_t o = 0; o < TSR__ARRAY_SIZE(arith); o++)
        for (size_t c = 0; c < TSR__ARRAY_SIZE(computes); c++) {
            tsr_dtype d = computes[c];
            tsr__kernel_op op = arith[o];
            tsr__kernel_key key = {.op = (uint8_t)op,
                                   .shape = TSR__KSHAPE_LINEAR,
                                   .common = (uint8_t)d,
                                   .noperands = 3,
                                   .dtypes = {(uint8_t)d, (uint8_t)d, (uint8_t)d}};
            if (!wanted(&key))
                continue;
            fill_values(d, a, N, false);
            fill_values(d, b, N, true);
            uint8_t alpha[16], scalar[16] = {0}, element[16] = {0};
            int64_t two = op == TSR__KOP_SUB ? -2 : 2;
            tsr_cast_buffer(&two, TSR_INT64, element, d == TSR_BOOL ? TSR_INT64 : d, 1);
            tsr__kernel_alpha_from_element(d, element, alpha);
            if (d == TSR_BOOL)
                alpha[0] = 1;
            int64_t st[3];
            for (int k = 0; k < 3; k++)
                st[k] = (int64_t)tsr_dtype_itemsize(d);
            int bad = 0;
            tsr__kernel_row_for(op, d)(want, a, b, N, st, alpha, &bad);
            int status = run_linear(&key, got, a, b, scalar, alpha, N);
            char what[64];
            snprintf(what, sizeof what, "%s %s", tsr__kernel_op_stub(op), tsr_dtype_name(d));
            compare(what, d, got, want, N);
            ASSERT_EQ(status, 0);
        }
}

static void run_copies(void)
{
    static unsigned char src[N * 16], got[N * 16], want[N * 16];
    for (int d = 0; d < TSR_DTYPE_COUNT; d++)
        for (int s = 0; s < TSR_DTYPE_COUNT; s++) {
            tsr__kernel_key key = copy_key((tsr_dtype)d, (tsr_dtype)s);
            if (!wanted(&key))
                continue;
            fill_values((tsr_dtype)s, src, N, false);
            uint8_t none[16] = {0};
            ASSERT_OK(tsr__kernel_convert(src, (tsr_dtype)s, want, (tsr_dtype)d, N));
            run_linear(&key, got, src, NULL, none, none, N);
            char what[64];
            snprintf(what, sizeof what, "copy %s <- %s", tsr_dtype_name((tsr_dtype)d),
                     tsr_dtype_name((tsr_dtype)s));
            compare(what, (tsr_dtype)d, got, want, N);
        }
}

/* Integer division by zero: the flag goes up; the cpu stops before the
 * zero divisor (the elements before it agree). */
static void run_zero_division(void)
{
    int32_t a[4] = {7, INT32_MIN, 5, -7}, b[4] = {2, -1, -2, 0}, got[4], want[4] = {0};
    tsr__kernel_key key = {.op = TSR__KOP_DIV_FLOOR,
                           .shape = TSR__KSHAPE_LINEAR,
                           .common = TSR_INT32,
                           .noperands = 3,
                           .dtypes = {TSR_INT32, TSR_INT32, TSR_INT32}};
    uint8_t none[16] = {0};
    int64_t st[3] = {4, 4, 4};
    int bad = 0;
    int64_t done = tsr__kernel_row_for(TSR__KOP_DIV_FLOOR,
                                       TSR_INT32)((unsigned char *)want, (const unsigned char *)a,
                                                  (const unsigned char *)b, 4, st, none, &bad);
    ASSERT_EQ(bad, 1);
    ASSERT_EQ(done, 3);
    ASSERT_EQ(run_linear(&key, (unsigned char *)got, (unsigned char *)a, (unsigned char *)b, none,
                         none, 4),
              1);
    ASSERT_EQ(memcmp(got, want, 3 * sizeof *got), 0);
    ASSERT_EQ(got[0], 3);
    ASSERT_EQ(got[1], INT32_MIN);
    ASSERT_EQ(got[2], -3);
}

int main(void)
{
    cl_platform_id platform;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0)
        TEST_SKIP("no OpenCL platform");
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        TEST_SKIP("no OpenCL device");
    char ext[4096] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    caps = strstr(ext, "cl_khr_fp64") ? TSR__OPENCL_CAP_FP64 : 0;
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue = clCreateCommandQueue(ctx, dev, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);

    /* a key the device cannot build is refused with a reason */
    tsr__kernel_key f64 = {.op = TSR__KOP_ADD,
                           .common = TSR_FLOAT64,
                           .noperands = 3,
                           .dtypes = {TSR_FLOAT64, TSR_FLOAT64, TSR_FLOAT64}};
    ASSERT_FAIL(tsr__kernel_key_check(&f64, 0), TSR_ERR_NOT_SUPPORTED, NULL);
    tsr__kernel_key bad = {.op = TSR__KOP_DIV_TRUNC, .common = TSR_BOOL, .noperands = 3};
    ASSERT_FAIL(tsr__kernel_key_check(&bad, caps), TSR_ERR_NOT_SUPPORTED,
                "\"div_trunc_cpu\" not implemented for 'Bool'");
    char name[TSR__OPENCL_NAME_MAX];
    ASSERT_OK(tsr__opencl_cache_name(&f64, "x", 1, name, sizeof name));
    ASSERT_EQ(strncmp(name, "tsr-0300", 8), 0);

    build_all();
    run_arith();
    run_copies();
    run_zero_division();
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    free(batch_src);
    TEST_DONE();
}
