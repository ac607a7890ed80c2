/* Products on opencl:0 larger than one GEMM piece (daemon/exec.c runs a
 * product in pieces of at most devices.matmul_piece multiply-adds: bands
 * of C's rows, or groups of whole matrices of a batch), each against the
 * cpu's product of the same values (small integers: every sum is exact in
 * float32, so the two are equal bit for bit whatever the order): an mm of
 * seven bands (the last one short), the first operand transposed (its
 * band is a run of columns), a bmm of a matrix in four bands, a bmm of
 * four whole matrices a piece, and an int32 mm through the GEMM program.
 * The daemon runs with pieces of 2^26 multiply-adds, and each product
 * must queue exactly its pieces on the device (its launch count); a
 * second run (matmul-opencl-pieces-staged) gives the device memory of its
 * own, so that each piece copies its own spans. */
#include <stdlib.h>

#include "integration/support_daemon.h"
#include "test.h"

static tsr_client *client;

#define PIECE (INT64_C(1) << 26)

/* Kernels queued on opencl:0 since the daemon started. Asked only with
 * nothing queued: CLBlast compiles its kernels at their first use in the
 * daemon's loop (tens of seconds on PoCL with empty caches), which keeps
 * a question waiting past the client's 10 s, while a synchronize has no
 * deadline. */
static uint64_t launches(void)
{
    tsr_device_status st;
    ASSERT_OK(tsr_admin_device_status(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &st));
    return st.launches;
}

/* The pieces of a product of batch matrices of m x n by k. */
static uint64_t pieces(int64_t batch, int64_t m, int64_t n, int64_t k)
{
    int64_t per_matrix = m * n * k;
    if (per_matrix <= PIECE) {
        int64_t nb = PIECE / per_matrix;
        return (uint64_t)((batch + nb - 1) / nb);
    }
    int64_t nr = PIECE / (n * k);
    return (uint64_t)(batch * ((m + nr - 1) / nr));
}

/* A cpu tensor of small integers (-8..8) in dtype dt, and the same on
 * opencl:0. */
static void filled(tsr_dtype dt, int ndim, const int64_t *sizes, uint64_t seed, tsr_tensor **cpu,
                   tsr_tensor **dev)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= sizes[i];
    int64_t *v = malloc(sizeof *v * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        v[i] = (int64_t)(test_next_u64(&seed) % 17) - 8;
    tsr_tensor_options o = {.has_dtype = true, .dtype = dt};
    ASSERT_OK(tsr_tensor_from_data(NULL, ndim, sizes, TSR_INT64, v, &o, cpu));
    free(v);
    tsr_tensor_options cl = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    ASSERT_OK(tsr_tensor_to(client, *cpu, &cl, false, dev));
}

/* The device's result, brought back, equals the cpu's bit for bit. */
static void same(const tsr_tensor *want, const tsr_tensor *got_dev)
{
    size_t bytes = (size_t)tsr_tensor_numel(want) * tsr_dtype_itemsize(tsr_tensor_dtype(want));
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    tsr_tensor *got = NULL;
    tsr_tensor_options host = {.has_device = true, .device = {TSR_DEVICE_CPU, -1}};
    ASSERT_OK(tsr_tensor_to(NULL, got_dev, &host, false, &got));
    ASSERT_OK(tsr_tensor_copy_to_host(want, a, bytes));
    ASSERT_OK(tsr_tensor_copy_to_host(got, b, bytes));
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++)
        bad += a[i] != b[i];
    ASSERT_EQ(bad, 0);
    tsr_tensor_release(got);
    free(a);
    free(b);
}

/* mm of m x k by k x n, the first operand transposed (a view of a k x m
 * tensor) where asked. */
static void check_mm(tsr_dtype dt, int64_t m, int64_t n, int64_t k, bool transposed)
{
    tsr_tensor *a, *da, *b, *db, *want, *got;
    int64_t as[2] = {transposed ? k : m, transposed ? m : k}, bs[2] = {k, n};
    filled(dt, 2, as, 1, &a, &da);
    filled(dt, 2, bs, 2, &b, &db);
    if (transposed) {
        tsr_tensor *t;
        ASSERT_OK(tsr_tensor_t(a, &t));
        tsr_tensor_release(a);
        a = t;
        ASSERT_OK(tsr_tensor_t(da, &t));
        tsr_tensor_release(da);
        da = t;
    }
    ASSERT_OK(tsr_mm(a, b, &want));
    uint64_t before = launches();
    ASSERT_OK(tsr_mm(da, db, &got));
    ASSERT_OK(tsr_synchronize(client, (tsr_device){TSR_DEVICE_OPENCL, 0}));
    ASSERT_UEQ(launches() - before, pieces(1, m, n, k));
    same(want, got);
    tsr_tensor *ts[] = {a, da, b, db, want, got};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        tsr_tensor_release(ts[i]);
}

static void check_bmm(int64_t batch, int64_t m, int64_t n, int64_t k)
{
    tsr_tensor *a, *da, *b, *db, *want, *got;
    int64_t as[3] = {batch, m, k}, bs[3] = {batch, k, n};
    filled(TSR_FLOAT32, 3, as, 3, &a, &da);
    filled(TSR_FLOAT32, 3, bs, 4, &b, &db);
    ASSERT_OK(tsr_bmm(a, b, &want));
    uint64_t before = launches();
    ASSERT_OK(tsr_bmm(da, db, &got));
    ASSERT_OK(tsr_synchronize(client, (tsr_device){TSR_DEVICE_OPENCL, 0}));
    ASSERT_UEQ(launches() - before, pieces(batch, m, n, k));
    same(want, got);
    tsr_tensor *ts[] = {a, da, b, db, want, got};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        tsr_tensor_release(ts[i]);
}

/* argv[1], where given, goes to the daemon too (--device-memory=staged:
 * each piece's spans copied in and C's band back, computed by CLBlast
 * and the GEMM program instead of the host's OpenBLAS). */
int main(int argc, char **argv)
{
    test_daemon daemon;
    const char *const small[] = {"--set", "devices.matmul_piece=67108864",
                                 argc > 1 ? argv[1] : NULL, NULL};
    if (test_daemon_start(&daemon, small) != 0)
        return 1;
    int32_t count = 0;
    if (tsr_client_open(NULL, &client) != TSR_OK ||
        tsr_device_count(client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        tsr_client_close(client);
        test_daemon_stop(&daemon);
        TEST_SKIP("the daemon sees no opencl device");
    }
    check_mm(TSR_FLOAT32, 1024, 1024, 384, false); /* bands of 170 rows, the last 104 */
    check_mm(TSR_FLOAT32, 1000, 1024, 384, true);  /* A's band is a run of its columns */
    check_bmm(3, 512, 512, 1024);                  /* 2^28 each: 4 bands of each */
    check_bmm(5, 128, 128, 1024);                  /* 2^24 each: 4 matrices a piece, then 1 */
    check_mm(TSR_INT32, 520, 512, 1024, false);    /* the GEMM program, 5 bands */
    tsr_client_close(client);
    ASSERT_EQ(test_daemon_stop(&daemon), 0);
    TEST_DONE();
}
