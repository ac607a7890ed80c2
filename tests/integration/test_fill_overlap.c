/* Fills that would hold the daemon: through the public API, as users
 * write them.
 *
 *   - fill_ on a tensor that overlaps itself follows PyTorch 1.13, which
 *     fills it (torch.zeros(1).expand(4, 4).fill_(1) leaves the one
 *     element 1): on cpu and opencl, and a 1-element tensor expanded to
 *     2^23 x 2^23 is one element to write, not 2^46 (the daemon's OpenCL
 *     driver trapped on that launch, ending every session); add_ on it is
 *     still refused, as PyTorch refuses it;
 *   - tsr_tensor_ones of 256 MiB on opencl:0 is filled on the device, not
 *     on the daemon's event loop: another client's pings keep being
 *     answered meanwhile. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "support_daemon.h"
#include "test.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The one element, once the device's queue is done (ops.h). */
static float first_element(tsr_client *c, tsr_device device, const tsr_tensor *t)
{
    float v = -1.0f;
    if (device.type != TSR_DEVICE_CPU)
        ASSERT_OK(tsr_synchronize(c, device));
    ASSERT_OK(tsr_tensor_copy_to_host(t, &v, sizeof v));
    return v;
}

static void check_expanded_fill(tsr_client *c, tsr_device device)
{
    tsr_tensor_options o = {.has_device = true, .device = device};
    int64_t one[1] = {1};
    tsr_tensor *base = NULL, *wide = NULL, *huge = NULL;
    ASSERT_OK(tsr_tensor_zeros(c, 1, one, &o, &base));
    if (!base)
        return;
    int64_t four[2] = {4, 4}, vast[2] = {INT64_C(1) << 23, INT64_C(1) << 23};
    ASSERT_OK(tsr_tensor_expand(base, four, 2, &wide));
    ASSERT_OK(tsr_tensor_expand(base, vast, 2, &huge));
    if (!wide || !huge)
        return;
    ASSERT_OK(tsr_tensor_fill_(wide, tsr_scalar_float(1.0)));
    ASSERT_TRUE(first_element(c, device, base) == 1.0f);
    int64_t started = now_ms();
    ASSERT_OK(tsr_tensor_fill_(huge, tsr_scalar_float(5.0)));
    ASSERT_TRUE(first_element(c, device, base) == 5.0f);
    ASSERT_TRUE(now_ms() - started < 10000); /* one element: milliseconds */
    ASSERT_EQ(tsr_add_(wide, base, tsr_scalar_int(1)), TSR_ERR_RUNTIME);
    ASSERT_STREQ(tsr_last_error(),
                 "unsupported operation: more than one element of the written-to tensor refers "
                 "to a single memory location. Please clone() the tensor before performing the "
                 "operation.");
    tsr_tensor_release(huge);
    tsr_tensor_release(wide);
    tsr_tensor_release(base);
}

typedef struct pinger {
    tsr_client *client;
    atomic_bool stop;
    int64_t slowest_ms;
    int count, failed;
} pinger;

static void *ping_loop(void *arg)
{
    pinger *p = arg;
    while (!atomic_load(&p->stop)) {
        int64_t t = now_ms();
        p->failed += tsr_client_ping(p->client, TSR_TRANSPORT_SOCKET) != TSR_OK;
        if (now_ms() - t > p->slowest_ms)
            p->slowest_ms = now_ms() - t;
        p->count++;
        struct timespec ms = {.tv_nsec = 1000000};
        nanosleep(&ms, NULL);
    }
    return NULL;
}

static void check_large_ones(tsr_client *c, tsr_client *other)
{
    pinger p = {.client = other};
    atomic_init(&p.stop, false);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, ping_loop, &p), 0);
    tsr_tensor_options o = {.has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0},
                            .has_dtype = true,
                            .dtype = TSR_INT32};
    int64_t n[1] = {INT64_C(64) << 20}; /* 256 MiB of int32 */
    tsr_tensor *t = NULL;
    for (int round = 0; round < 2; round++) {
        ASSERT_OK(tsr_tensor_ones(c, 1, n, &o, &t));
        if (!t)
            break;
        ASSERT_OK(tsr_synchronize(c, o.device));
        tsr_tensor *last = NULL;
        ASSERT_OK(tsr_tensor_narrow(t, 0, n[0] - 1, 1, &last));
        int32_t v = 0;
        if (last)
            ASSERT_OK(tsr_tensor_copy_to_host(last, &v, sizeof v));
        ASSERT_EQ(v, 1);
        tsr_tensor_release(last);
        tsr_tensor_release(t);
        t = NULL;
    }
    atomic_store(&p.stop, true);
    pthread_join(thread, NULL);
    ASSERT_EQ(p.failed, 0);
    ASSERT_TRUE(p.count > 0);
    /* Generous: a fill on the loop held it for a second per gigabyte. */
    if (p.slowest_ms >= 1000)
        fprintf(stderr, "slowest ping during the fills: %lld ms\n", (long long)p.slowest_ms);
    ASSERT_TRUE(p.slowest_ms < 1000);
}

int main(void)
{
    static const char *const extra[] = {"--memory-limit", "320M", NULL};
    test_daemon d;
    if (test_daemon_start(&d, extra) != 0)
        return 1;
    tsr_client *c = NULL, *other = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_OK(tsr_client_open(NULL, &other));
    if (!c || !other)
        return 1;
    check_expanded_fill(c, (tsr_device){TSR_DEVICE_CPU, 0});
    int32_t opencl = 0;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &opencl));
    if (opencl > 0) {
        check_expanded_fill(c, (tsr_device){TSR_DEVICE_OPENCL, 0});
        check_large_ones(c, other);
    }
    tsr_client_close(other);
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    if (opencl == 0)
        TEST_SKIP("the daemon has no opencl device: checked on cpu only");
    TEST_DONE();
}
