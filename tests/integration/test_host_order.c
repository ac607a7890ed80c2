/* Host copies are ordered with the kernels queued before them, as
 * PyTorch's .cpu() is: a copy to the host right after an op, without
 * tsr_synchronize, sees the op's result; a copy from the host right after
 * a launch that reads the tensor leaves that launch's result alone; and a
 * copy into one column of a storage whose other column a kernel is
 * writing keeps the host's values, and so does a write through the raw
 * data pointer made while that kernel runs. All of it with the device computing in
 * the shared segments, then with devices.memory = copy (each kernel copies
 * its operands in and its output back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support_daemon.h"
#include "tessera/tessera.h"
#include "test.h"

#define N (INT64_C(1) << 22)

static const tsr_tensor_options on_opencl = {
    .has_device = true, .device = {TSR_DEVICE_OPENCL, 0}, .has_dtype = true, .dtype = TSR_FLOAT32};

/* How many of buf's n floats differ from want. */
static int64_t count_bad(const float *buf, int64_t n, float want)
{
    int64_t bad = 0;
    for (int64_t k = 0; k < n; k++)
        bad += buf[k] != want;
    return bad;
}

static void read_after_op(tsr_client *c, float *buf)
{
    tsr_tensor *a = NULL, *b = NULL, *r = NULL;
    int64_t n = N;
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(1.5), &on_opencl, &a));
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(2.0), &on_opencl, &b));
    for (int round = 0; round < 3 && a && b; round++) {
        ASSERT_OK(tsr_add(a, b, tsr_scalar_int(1), &r));
        if (!r)
            break;
        memset(buf, 0, (size_t)N * sizeof(float));
        ASSERT_OK(tsr_tensor_copy_to_host(r, buf, (size_t)N * sizeof(float)));
        ASSERT_EQ(count_bad(buf, N, 3.5f), 0);
        tsr_tensor_release(r);
        r = NULL;
    }
    tsr_tensor_release(a);
    tsr_tensor_release(b);
}

static void write_after_op(tsr_client *c, float *buf)
{
    tsr_tensor *a = NULL, *r = NULL;
    int64_t n = N;
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(1.0), &on_opencl, &a));
    for (int round = 0; round < 3 && a; round++) {
        ASSERT_OK(tsr_mul_scalar(a, tsr_scalar_float(3.0), &r));
        for (int64_t k = 0; k < N; k++)
            buf[k] = 100.0f;
        ASSERT_OK(tsr_tensor_copy_from_host(a, buf, (size_t)N * sizeof(float)));
        ASSERT_OK(tsr_synchronize(c, on_opencl.device));
        if (r) {
            ASSERT_OK(tsr_tensor_copy_to_host(r, buf, (size_t)N * sizeof(float)));
            ASSERT_EQ(count_bad(buf, N, 3.0f), 0);
        }
        /* the launch of the next round reads 1.0 again */
        for (int64_t k = 0; k < N; k++)
            buf[k] = 1.0f;
        ASSERT_OK(tsr_tensor_copy_from_host(a, buf, (size_t)N * sizeof(float)));
        tsr_tensor_release(r);
        r = NULL;
    }
    tsr_tensor_release(a);
}

/* A kernel writes column 0 of an N/2 x 2 storage while the host writes
 * column 1: the host's column survives the kernel's output coming back. */
static void write_beside_op(tsr_client *c, float *buf)
{
    tsr_tensor *pair = NULL, *col0 = NULL, *col1 = NULL, *src = NULL;
    int64_t sizes[2] = {N / 2, 2}, half = N / 2;
    ASSERT_OK(tsr_tensor_zeros(c, 2, sizes, &on_opencl, &pair));
    ASSERT_OK(tsr_tensor_full(c, 1, &half, tsr_scalar_float(4.0), &on_opencl, &src));
    if (!pair || !src)
        goto out;
    ASSERT_OK(tsr_tensor_select(pair, 1, 0, &col0));
    ASSERT_OK(tsr_tensor_select(pair, 1, 1, &col1));
    if (!col0 || !col1)
        goto out;
    ASSERT_OK(tsr_mul_scalar_out(src, tsr_scalar_float(2.0), col0));
    for (int64_t k = 0; k < half; k++)
        buf[k] = 7.0f;
    ASSERT_OK(tsr_tensor_copy_from_host(col1, buf, (size_t)half * sizeof(float)));
    ASSERT_OK(tsr_synchronize(c, on_opencl.device));
    ASSERT_OK(tsr_tensor_copy_to_host(col0, buf, (size_t)half * sizeof(float)));
    ASSERT_EQ(count_bad(buf, half, 8.0f), 0);
    ASSERT_OK(tsr_tensor_copy_to_host(col1, buf, (size_t)half * sizeof(float)));
    ASSERT_EQ(count_bad(buf, half, 7.0f), 0);
out:
    tsr_tensor_release(col0);
    tsr_tensor_release(col1);
    tsr_tensor_release(pair);
    tsr_tensor_release(src);
}

/* The same through tsr_tensor_data_ptr, which no wait orders: the host
 * writes column 1 while the kernel writing column 0 runs (after its
 * inputs went in, where the device's memory is its own). Only the
 * elements a kernel writes may change under it: the host's column
 * survives. */
static void raw_write_beside_op(tsr_client *c, float *buf)
{
    tsr_tensor *pair = NULL, *col0 = NULL, *src = NULL;
    int64_t sizes[2] = {N / 2, 2}, half = N / 2;
    ASSERT_OK(tsr_tensor_zeros(c, 2, sizes, &on_opencl, &pair));
    ASSERT_OK(tsr_tensor_full(c, 1, &half, tsr_scalar_float(4.0), &on_opencl, &src));
    void *p = NULL;
    if (pair && src)
        ASSERT_OK(tsr_tensor_data_ptr(pair, &p));
    if (p)
        ASSERT_OK(tsr_tensor_select(pair, 1, 0, &col0));
    float *data = p;
    for (int round = 0; round < 6 && col0; round++) {
        float mark = 10.0f + (float)round;
        ASSERT_OK(tsr_mul_scalar_out(src, tsr_scalar_float(2.0), col0));
        usleep(1000 * (useconds_t)(round % 3));
        for (int64_t k = 0; k < half; k++)
            data[2 * k + 1] = mark;
        ASSERT_OK(tsr_synchronize(c, on_opencl.device));
        ASSERT_OK(tsr_tensor_copy_to_host(pair, buf, (size_t)N * sizeof(float)));
        int64_t bad = 0;
        for (int64_t k = 0; k < half; k++)
            bad += buf[2 * k] != 8.0f || buf[2 * k + 1] != mark;
        ASSERT_EQ(bad, 0);
    }
    tsr_tensor_release(col0);
    tsr_tensor_release(pair);
    tsr_tensor_release(src);
}

static void run(const char *const *extra, float *buf)
{
    test_daemon d;
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (c) {
        read_after_op(c, buf);
        write_after_op(c, buf);
        write_beside_op(c, buf);
        raw_write_beside_op(c, buf);
        tsr_client_close(c);
    }
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

int main(void)
{
    float *buf = malloc((size_t)N * sizeof(float));
    ASSERT_TRUE(buf != NULL);
    if (!buf)
        TEST_DONE();
    run(NULL, buf);
    static const char *const copy[] = {"--device-memory", "copy", NULL};
    run(copy, buf);
    free(buf);
    TEST_DONE();
}
