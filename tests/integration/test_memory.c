/* Device memory is shared by all sessions: an allocation larger than what
 * is left fails with a clear out-of-memory error for that request only,
 * while other sessions (and smaller requests) keep working. */
#include <stdio.h>
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

/* Segments mapped into this process (both sessions of the test). */
static int mapped_segments(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "tessera-segment") != NULL;
    fclose(f);
    return n;
}

/* A block freed to the client's cache while a kernel still reads it:
 * zeros that take it write it only after that kernel. The kernel, a
 * float64 power of 128Ki elements, takes milliseconds; zeros come at
 * once. */
static void zeros_after_kernels(tsr_client *c)
{
    enum { N = 1 << 17 };
    const int64_t n = N;
    tsr_tensor_options o = {.has_dtype = true, .dtype = TSR_FLOAT64, .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *x = NULL, *y = NULL, *z = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, &n, tsr_scalar_float(2.0), &o, &x));
    ASSERT_OK(tsr_synchronize(c, o.device));
    ASSERT_OK(tsr_pow_scalar(x, tsr_scalar_float(3.0), &y)); /* reads x */
    tsr_tensor_release(x);                                   /* to the cache */
    ASSERT_OK(tsr_tensor_zeros(c, 1, &n, &o, &z));           /* x's block again */
    static double got[N];
    ASSERT_OK(tsr_tensor_copy_to_host(y, got, sizeof got));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != 8.0;
    ASSERT_EQ(wrong, 0);
    ASSERT_OK(tsr_tensor_copy_to_host(z, got, sizeof got));
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != 0.0;
    ASSERT_EQ(wrong, 0);
    tsr_tensor_release(y);
    tsr_tensor_release(z);
}

int main(void)
{
    const char *args[] = {"--memory-limit", "64M", NULL};
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
    ASSERT_EQ(p.memory_bytes, 64 * MiB);

    tsr_tensor *big = NULL, *too_big = NULL, *small = NULL, *retry = NULL;
    ASSERT_OK(alloc_bytes(a, 40 * MiB, &big)); /* a 40 MiB segment */
    ASSERT_FAIL(alloc_bytes(b, 30 * MiB, &too_big), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 30.00 MiB (opencl:0; 64.00 MiB total "
                "capacity; 0 bytes already allocated by this session; 24.00 MiB free; 0 bytes "
                "reserved in total by this session)");
    ASSERT_TRUE(too_big == NULL);
    /* Smaller requests of the same session, and the other session, go on. */
    ASSERT_OK(alloc_bytes(b, 4 * MiB, &small)); /* a 20 MiB segment */
    ASSERT_OK(tsr_client_ping(a, TSR_TRANSPORT_RING));
    float *data = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(big, (void **)&data));
    memset(data, 0x5a, 40 * MiB);

    tsr_memory_stats m;
    ASSERT_OK(tsr_memory_get_stats(b, dev, &m));
    ASSERT_EQ(m.ooms, 1);
    ASSERT_EQ(m.allocated, 4 * MiB);
    ASSERT_EQ(m.reserved, 20 * MiB);
    ASSERT_EQ(m.device_free, 4 * MiB);

    /* Once the first session gives its memory back, the request fits. */
    tsr_tensor_release(big);
    uint64_t released = 0;
    int mapped = mapped_segments();
    ASSERT_OK(tsr_memory_empty_cache(a, dev, &released));
    ASSERT_EQ(released, 40 * MiB);
    ASSERT_EQ(mapped_segments(), mapped - 1);
    ASSERT_OK(alloc_bytes(b, 30 * MiB, &retry));
    ASSERT_OK(tsr_memory_get_stats(b, dev, &m));
    ASSERT_EQ(m.device_free, 14 * MiB);

    /* Sizes no device has are refused without harm. */
    tsr_tensor *huge = NULL;
    ASSERT_FAIL(alloc_bytes(b, 1ll << 50, &huge), TSR_ERR_OUT_OF_MEMORY, NULL);
    int64_t sizes[2] = {1ll << 40, 1ll << 40};
    tsr_tensor_options o = {.has_dtype = true, .dtype = TSR_FLOAT64, .has_device = true,
                            .device = dev};
    ASSERT_FAIL(tsr_tensor_empty(b, 2, sizes, &o, &huge), TSR_ERR_RUNTIME,
                "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]");
    ASSERT_OK(tsr_client_ping(b, TSR_TRANSPORT_RING));

    /* Session a holds nothing now, and maps nothing: empty_cache dropped
     * the mapping of the segment it released. A small block it frees waits
     * in the library and comes back, at the same address, for the next
     * allocation of its size, without a request; the statistics count it
     * as free meanwhile. empty_cache gives it back and unmaps again. */
    int before = mapped_segments();
    tsr_memory_stats s0, s1, s2;
    ASSERT_OK(tsr_memory_get_stats(a, dev, &s0));
    ASSERT_EQ(s0.allocated, 0);
    tsr_tensor *t1 = NULL, *t2 = NULL;
    void *p1 = NULL, *p2 = NULL;
    ASSERT_OK(alloc_bytes(a, 4000, &t1));
    ASSERT_EQ(mapped_segments(), before + 1);
    ASSERT_OK(tsr_tensor_data_ptr(t1, &p1));
    tsr_tensor_release(t1);
    ASSERT_OK(tsr_memory_get_stats(a, dev, &s1));
    ASSERT_EQ(s1.allocated, 0);
    ASSERT_EQ(s1.frees, s0.frees + 1);
    ASSERT_EQ(s1.reserved, 2 * MiB);
    ASSERT_OK(alloc_bytes(a, 3600, &t2)); /* rounds to the same 4096 */
    ASSERT_OK(tsr_tensor_data_ptr(t2, &p2));
    ASSERT_TRUE(p1 == p2);
    ASSERT_OK(tsr_memory_get_stats(a, dev, &s2));
    ASSERT_EQ(s2.allocated, 4096);
    ASSERT_EQ(s2.requested, 4000); /* a reused block keeps its first request */
    ASSERT_EQ(s2.allocations, s0.allocations + 2);
    ASSERT_EQ(s2.cache_hits, s1.cache_hits + 1);
    tsr_tensor_release(t2);
    ASSERT_OK(tsr_memory_empty_cache(a, dev, &released));
    ASSERT_EQ(released, 2 * MiB);
    ASSERT_EQ(mapped_segments(), before);
    ASSERT_OK(tsr_memory_get_stats(a, dev, &s0));
    ASSERT_EQ(s0.allocated, 0);
    ASSERT_EQ(s0.reserved, 0);

    tsr_tensor_release(small);
    tsr_tensor_release(retry);
    zeros_after_kernels(a);
    tsr_client_close(a);
    tsr_client_close(b);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
