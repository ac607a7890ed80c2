/* Configured memory limits: a session's limit is what its client is told
 * the device holds, an allocation past it fails with PyTorch's
 * out-of-memory error followed by the limit's own words, and another
 * session is unaffected. */
#include <string.h>

#include "support_daemon.h"
#include "test.h"

#define MiB (1ll << 20)

static tsr_status alloc_bytes(tsr_client *c, int64_t bytes, tsr_tensor **out)
{
    tsr_tensor_options o = {.has_dtype = true, .dtype = TSR_UINT8, .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    return tsr_tensor_empty(c, 1, &bytes, &o, out);
}

int main(void)
{
    const char *args[] = {"--memory-limit", "256M", "--set", "memory_limit.session=32MiB", NULL};
    test_daemon d;
    if (test_daemon_start(&d, args) != 0)
        return 1;
    tsr_client *a = NULL, *b = NULL;
    ASSERT_OK(tsr_client_open(NULL, &a));
    ASSERT_OK(tsr_client_open(NULL, &b));
    if (!a || !b)
        return 1;
    tsr_device dev = {TSR_DEVICE_OPENCL, 0};
    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(a, dev, &p));
    ASSERT_EQ(p.memory_bytes, 32 * MiB);

    tsr_tensor *first = NULL, *second = NULL, *other = NULL;
    ASSERT_OK(alloc_bytes(a, 20 * MiB, &first)); /* a 20 MiB segment */
    ASSERT_FAIL(alloc_bytes(a, 20 * MiB, &second), TSR_ERR_OUT_OF_MEMORY, NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), "opencl:0 out of memory. Tried to allocate 20.00 MiB") ==
                tsr_last_error());
    ASSERT_TRUE(strstr(tsr_last_error(),
                       ": memory limit per session on opencl:0 reached: 20 MiB in use + 20 MiB "
                       "requested > limit 32 MiB") != NULL);
    /* PyTorch's part speaks of the device as the session is told it: 32 MiB
     * in all, 12 MiB of it still to be had. */
    ASSERT_TRUE(strstr(tsr_last_error(), "(opencl:0; 32.00 MiB total capacity; 20.00 MiB already "
                                         "allocated by this session; 12.00 MiB free; ") != NULL);
    tsr_memory_stats ms;
    ASSERT_OK(tsr_memory_get_stats(a, dev, &ms));
    ASSERT_EQ(ms.device_capacity, 32 * MiB);
    /* The other session has a limit of its own, and works. */
    ASSERT_OK(alloc_bytes(b, 20 * MiB, &other));
    ASSERT_OK(tsr_client_ping(b, TSR_TRANSPORT_RING));
    /* What the limit refused fits once the first block is given back. */
    tsr_tensor_release(first);
    ASSERT_OK(tsr_memory_empty_cache(a, dev, NULL));
    ASSERT_OK(alloc_bytes(a, 20 * MiB, &second));

    tsr_tensor_release(second);
    tsr_tensor_release(other);
    tsr_client_close(a);
    tsr_client_close(b);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
