/* Segments are counted across a user's sessions, not per session only.
 * Each segment is a descriptor and a mapping of tesserad's; a user who
 * opens many sessions must not take every descriptor the daemon has (it
 * could then accept no connection and make no segment for anybody). The
 * daemon runs here with an open-file limit of 512, so that it may hold 256
 * segments, one user's sessions 128 of them. */
#include <string.h>
#include <sys/resource.h>

#include "support_daemon.h"
#include "test.h"

#define MiB (1ll << 20)
#define FILES 512
#define UID_SEGMENTS (FILES / 2 / 2)

static const char *const cap_message =
    "hold 128 segments, the most one user's may (of the 256 tesserad can hold)";

/* 12 MiB: a segment of its own each (no pool segment takes it), and past
 * what the library's block cache keeps. */
static tsr_status allocate(tsr_client *c, tsr_tensor **out)
{
    int64_t bytes = 12 * MiB;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_UINT8,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    return tsr_tensor_empty(c, 1, &bytes, &o, out);
}

/* An allocation refused at the user's share, with PyTorch's
 * out-of-memory error and the cap's words after it. */
#define ASSERT_CAPPED(call)                                         \
    do {                                                            \
        ASSERT_EQ((call), TSR_ERR_OUT_OF_MEMORY);                   \
        ASSERT_TRUE(strstr(tsr_last_error(), cap_message) != NULL); \
    } while (0)

int main(void)
{
    struct rlimit files = {.rlim_cur = FILES, .rlim_max = FILES};
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &files), 0);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *a = NULL, *b = NULL;
    ASSERT_OK(tsr_client_open(NULL, &a));
    ASSERT_OK(tsr_client_open(NULL, &b));
    if (!a || !b)
        return 1;
    int32_t n = 0;
    ASSERT_OK(tsr_device_count(a, TSR_DEVICE_OPENCL, &n));
    if (n == 0) {
        tsr_client_close(a);
        tsr_client_close(b);
        test_daemon_stop(&d);
        TEST_SKIP("the daemon has no opencl device");
    }

    /* One session takes the user's whole share, and is told why. */
    static tsr_tensor *held[UID_SEGMENTS + 1];
    int count = 0;
    tsr_status st = TSR_OK;
    while (count <= UID_SEGMENTS && (st = allocate(a, &held[count])) == TSR_OK)
        count++;
    ASSERT_EQ(count, UID_SEGMENTS);
    /* A limit is PyTorch's out-of-memory error, with the limit's words. */
    ASSERT_EQ(st, TSR_ERR_OUT_OF_MEMORY);
    ASSERT_TRUE(strstr(tsr_last_error(), cap_message) != NULL);

    /* The user's other session is refused as well... */
    tsr_tensor *t = NULL;
    ASSERT_CAPPED(allocate(b, &t));
    ASSERT_TRUE(t == NULL);
    /* ...until the first gives a segment back (a freed block stays in its
     * session's cache until emptied, as PyTorch's does). */
    tsr_tensor_release(held[--count]);
    ASSERT_OK(tsr_memory_empty_cache(a, (tsr_device){TSR_DEVICE_OPENCL, 0}, NULL));
    ASSERT_OK(allocate(b, &t));
    ASSERT_CAPPED(allocate(a, &held[count]));

    /* The daemon still has descriptors: a new session opens and works. */
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_SOCKET));
    tsr_client_close(c);

    /* What a session frees, and ends with, goes back to the user's share. */
    while (count > 0)
        tsr_tensor_release(held[--count]);
    tsr_client_close(a);
    tsr_tensor *more[8] = {0};
    for (int k = 0; k < 8; k++)
        ASSERT_OK(allocate(b, &more[k]));
    for (int k = 0; k < 8; k++)
        tsr_tensor_release(more[k]);
    tsr_tensor_release(t);
    tsr_client_close(b);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
