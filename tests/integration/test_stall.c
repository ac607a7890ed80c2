/* A daemon that stalls past the client's timeout: the request the client
 * gave up on is still posted and is served once the daemon runs again. An
 * allocation served that late must not stay charged to the session behind
 * the client's back: the client frees it as soon as it sees the reply. A
 * fill queued that late runs all the same: tsr_synchronize must wait for
 * it, whether it is the device's first kernel or a later one, and whether
 * it went through the ring or (every ring slot taken) the socket. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ring.h"
#include "support_daemon.h"
#include "test.h"

#define MiB (1ll << 20)

static uint64_t allocated(tsr_client *c)
{
    tsr_memory_stats m = {0};
    if (tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &m) != TSR_OK)
        return UINT64_MAX;
    return m.allocated;
}

static void *ping_ring(void *client)
{
    /* Fails (the daemon is stopped), and leaves its slot taken. */
    return (void *)(intptr_t)tsr_client_ping(client, TSR_TRANSPORT_RING);
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client_options o = {.timeout_ms = 1000};
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(&o, &c));
    if (!c)
        return 1;
    int32_t n = 0;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    if (n == 0) {
        tsr_client_close(c);
        test_daemon_stop(&d);
        TEST_SKIP("the daemon has no opencl device");
    }
    /* Larger than the library's block cache takes, so that every
     * allocation and free reaches the daemon. */
    int64_t bytes = 4 * MiB;
    tsr_tensor_options to = {.has_dtype = true,
                             .dtype = TSR_UINT8,
                             .has_device = true,
                             .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, &bytes, &to, &t));
    tsr_tensor_release(t);
    t = NULL;
    uint64_t before = allocated(c);

    ASSERT_EQ(kill(d.pid, SIGSTOP), 0);
    ASSERT_FAIL(tsr_tensor_empty(c, 1, &bytes, &to, &t), TSR_ERR_CONNECTION,
                "tesserad did not answer within 1000 ms");
    ASSERT_TRUE(t == NULL);
    ASSERT_EQ(kill(d.pid, SIGCONT), 0);

    /* The daemon now serves the abandoned allocation; the client's next
     * requests must find the reply and give the block back. */
    uint64_t now = UINT64_MAX;
    for (int k = 0; k < 250 && now != before; k++) {
        ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_RING));
        now = allocated(c);
        if (now != before)
            usleep(20000);
    }
    ASSERT_UEQ(now, before);

    /* Fills the client gave up on: the first kernel on the device, then a
     * later one. 128 MiB each, so that the daemon takes a while over them
     * after it wakes. */
    int64_t count = 32 * MiB;
    tsr_tensor_options io = {.has_dtype = true,
                             .dtype = TSR_INT32,
                             .has_device = true,
                             .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *u = NULL;
    int32_t *data = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, &count, &io, &u));
    ASSERT_OK(tsr_tensor_data_ptr(u, (void **)&data));
    memset(data, 0, (size_t)count * sizeof *data);
    for (int32_t value = 3; value <= 5; value += 2) {
        ASSERT_EQ(kill(d.pid, SIGSTOP), 0);
        ASSERT_FAIL(tsr_tensor_fill_(u, tsr_scalar_int(value)), TSR_ERR_CONNECTION,
                    "tesserad did not answer within 1000 ms");
        ASSERT_EQ(kill(d.pid, SIGCONT), 0);
        ASSERT_OK(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, 0}));
        int64_t wrong = 0;
        for (int64_t k = 0; k < count; k++)
            wrong += data[k] != value;
        ASSERT_EQ(wrong, 0);
    }

    /* A fill that goes through the socket: every ring slot is held by a
     * request given up on, so the call takes the socket, and gives up
     * too. A fill queued before it keeps the device busy meanwhile, so
     * that a synchronize that knew only of that one would return while
     * the late fill still runs. */
    ASSERT_OK(tsr_tensor_fill_(u, tsr_scalar_int(9)));
    ASSERT_EQ(kill(d.pid, SIGSTOP), 0);
    pthread_t pings[TSR__RING_SLOTS];
    for (uint32_t k = 0; k < TSR__RING_SLOTS; k++)
        ASSERT_EQ(pthread_create(&pings[k], NULL, ping_ring, c), 0);
    for (uint32_t k = 0; k < TSR__RING_SLOTS; k++) {
        void *st = NULL;
        pthread_join(pings[k], &st);
        ASSERT_EQ((int)(intptr_t)st, TSR_ERR_CONNECTION);
    }
    ASSERT_FAIL(tsr_tensor_fill_(u, tsr_scalar_int(7)), TSR_ERR_CONNECTION,
                "tesserad did not answer within 1000 ms");
    ASSERT_EQ(kill(d.pid, SIGCONT), 0);
    ASSERT_OK(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, 0}));
    int64_t wrong = 0;
    for (int64_t k = count - 1; k >= 0; k--)
        wrong += data[k] != 7;
    ASSERT_EQ(wrong, 0);
    tsr_tensor_release(u);

    /* The client goes on working. */
    ASSERT_OK(tsr_tensor_empty(c, 1, &bytes, &to, &t));
    tsr_tensor_release(t);
    ASSERT_UEQ(allocated(c), before);
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
