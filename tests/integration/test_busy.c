/* A device's busy time (DEVICE_STATUS, what `tessera top` draws) is
 * measured, not sampled: it stays exactly still while nothing runs, and
 * while a client's kernels run it grows by about the time they took, never
 * by more than the time that passed. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static tsr_device_status status_of(tsr_client *c, tsr_device dev)
{
    tsr_device_status st = {0};
    ASSERT_OK(tsr_admin_device_status(c, dev, &st));
    ASSERT_TRUE(st.busy_sampled == (dev.type == TSR_DEVICE_OPENCL));
    return st;
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return 1;
    tsr_device dev = {TSR_DEVICE_OPENCL, 0};

    /* Nothing launched yet: no busy time at all, and none accrues. */
    tsr_device_status s0 = status_of(c, dev);
    ASSERT_UEQ(s0.busy_ns, 0);
    usleep(20000);
    ASSERT_UEQ(status_of(c, dev).busy_ns, 0);

    int64_t n = 1 << 22;
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true,
                              .device = dev};
    tsr_tensor *a = NULL, *b = NULL, *out = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(1.5), &f32, &a));
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(2.0), &f32, &b));
    ASSERT_OK(tsr_tensor_empty(c, 1, &n, &f32, &out));
    /* Once, so the program is built before anything is timed (a build is
     * not busy time). */
    ASSERT_OK(tsr_add_out(a, b, tsr_scalar_int(1), out));
    ASSERT_OK(tsr_synchronize(c, dev));

    tsr_device_status before = status_of(c, dev);
    ASSERT_TRUE(before.busy_ns > 0);
    uint64_t t0 = now_ns();
    for (int k = 0; k < 16; k++)
        ASSERT_OK(tsr_add_out(a, b, tsr_scalar_int(1), out));
    ASSERT_OK(tsr_synchronize(c, dev));
    uint64_t elapsed = now_ns() - t0;
    tsr_device_status after = status_of(c, dev);
    uint64_t busy = after.busy_ns - before.busy_ns;
    fprintf(stderr, "16 adds of 2^22 float32: %.2f ms on the client's clock, %.2f ms busy\n",
            (double)elapsed / 1e6, (double)busy / 1e6);
    ASSERT_TRUE(busy <= after.now_ns - before.now_ns);
    /* From the first submission to the last completion the queue was never
     * empty; what the client saw beyond that is requests and wake-ups. */
    ASSERT_TRUE(busy * 2 >= elapsed);

    /* Idle again: the counter does not move by a single nanosecond. */
    usleep(20000);
    tsr_device_status idle = status_of(c, dev);
    ASSERT_UEQ(idle.busy_ns, after.busy_ns);
    ASSERT_TRUE(idle.now_ns > after.now_ns);

    /* The cpu device has no queue in the daemon. */
    ASSERT_UEQ(status_of(c, (tsr_device){TSR_DEVICE_CPU, -1}).busy_ns, 0);

    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_tensor_release(out);
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
