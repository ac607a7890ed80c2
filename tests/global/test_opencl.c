/* Global tensors on opencl shards, under mpirun: rank 0 starts one real
 * tesserad, every rank is a client of it and takes the opencl device of
 * its local rank, and the collectives move the shards' memory in place
 * (the daemon's arena mapped in each client). Also cpu <-> opencl
 * placements of the same ranks, the device each shard lands on, and
 * elementwise operations (tensor and Python-number operands) computed on
 * the opencl shards against the cpu's result. */
#include <mpi.h>
#include <time.h>

#include "integration/support_daemon.h"
#include "support_ops.h"
#include "tessera/ops.h"

static void every_pair(int ndim, const int64_t *shape, tsr_placement *cpu_list)
{
    tsr_sbp list[8];
    int n = 0;
    for (int d = 0; d < ndim; d++)
        list[n++] = tsr_sbp_split(d);
    list[n++] = tsr_sbp_broadcast();
    list[n++] = tsr_sbp_partial_sum();
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            box_pair(TSR_FLOAT32, ndim, shape, world_list, &list[a], world_list, &list[b]);
    /* To cpu shards on the same ranks, and back. */
    tsr_device keep = shard_device;
    for (int a = 0; a < n; a++) {
        box_pair(TSR_INT64, ndim, shape, world_list, &list[a], cpu_list, &list[n - 2]);
        shard_device = (tsr_device){TSR_DEVICE_CPU, -1};
        box_pair(TSR_INT64, ndim, shape, cpu_list, &list[a], world_list, &list[0]);
        shard_device = keep;
    }
}

/* The whole logical tensor of seed on the cpu (the reference's side). */
static tsr_tensor *whole_on_cpu(int seed)
{
    static const int64_t shape[2] = {5, 3};
    tsr_device keep = shard_device;
    shard_device = (tsr_device){TSR_DEVICE_CPU, -1};
    tsr_tensor *t = whole(TSR_FLOAT32, 2, shape, seed);
    shard_device = keep;
    return t;
}

/* x + y, x * 2 and x - 0.5 from each signature of x (y the next one):
 * the shards are computed on this rank's opencl device, and the result
 * equals the cpu's on the whole tensors. */
static void ops_on_opencl(void)
{
    static const int64_t shape[2] = {5, 3};
    const tsr_sbp *l = four_sbps();
    tsr_op add, mul, sub;
    ASSERT_EQ(tsr_op_from_name("add", &add), TSR_OK);
    ASSERT_EQ(tsr_op_from_name("mul", &mul), TSR_OK);
    ASSERT_EQ(tsr_op_from_name("sub", &sub), TSR_OK);
    const tsr_scalar two[2] = {tsr_scalar_int(0), tsr_scalar_int(2)},
                     half[2] = {tsr_scalar_int(0), tsr_scalar_float(0.5)};
    tsr_tensor *wx = whole_on_cpu(1), *wy = whole_on_cpu(2), *want[3] = {NULL, NULL, NULL};
    ASSERT_EQ(tsr_add(wx, wy, tsr_scalar_int(1), &want[0]), TSR_OK);
    ASSERT_EQ(tsr_mul_scalar(wx, two[1], &want[1]), TSR_OK);
    ASSERT_EQ(tsr_sub_scalar(wx, half[1], tsr_scalar_int(1), &want[2]), TSR_OK);
    for (int a = 0; a < 4; a++) {
        tsr_global_tensor *x = operand(TSR_FLOAT32, 2, shape, world_list, &l[a], 1);
        tsr_global_tensor *y = operand(TSR_FLOAT32, 2, shape, world_list, &l[(a + 1) % 4], 2);
        const tsr_global_tensor *xy[2] = {x, y}, *xn[2] = {x, NULL};
        tsr_global_tensor *r[3] = {NULL, NULL, NULL};
        ASSERT_EQ(tsr_global_elementwise(add, xy, 2, &r[0]), TSR_OK);
        ASSERT_EQ(tsr_global_elementwise_scalar(mul, xn, two, 2, &r[1]), TSR_OK);
        ASSERT_EQ(tsr_global_elementwise_scalar(sub, xn, half, 2, &r[2]), TSR_OK);
        const char *what[3] = {"opencl x + y", "opencl x * 2", "opencl x - 0.5"};
        for (int k = 0; k < 3; k++) {
            tsr_tensor *mine = r[k] ? tsr_global_tensor_to_local(r[k]) : NULL;
            ASSERT_TRUE(mine && tsr_device_equal(tsr_tensor_device(mine), shard_device));
            ASSERT_TRUE(r[k] && matches(r[k], want[k], what[k]));
            tsr_tensor_release(mine);
            tsr_global_tensor_release(r[k]);
        }
        tsr_global_tensor_release(y);
        tsr_global_tensor_release(x);
    }
    for (int k = 0; k < 3; k++)
        tsr_tensor_release(want[k]);
    tsr_tensor_release(wy);
    tsr_tensor_release(wx);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    test_daemon d;
    char sock[sizeof(d.socket)] = "";
    int up = 1;
    if (rank == 0) {
        up = test_daemon_start(&d, NULL) == 0;
        if (up)
            snprintf(sock, sizeof(sock), "%s", d.socket);
    }
    MPI_Bcast(&up, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(sock, (int)sizeof(sock), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!up) {
        fprintf(stderr, "rank %d: no daemon\n", rank);
        MPI_Finalize();
        return 1;
    }
    tsr_client_options co = {.socket_path = sock};
    int ok = tsr_client_open(&co, &shard_client) == TSR_OK, all = 0;
    if (!ok)
        fprintf(stderr, "rank %d: client: %s\n", rank, tsr_last_error());
    int32_t count = 0;
    ok = ok && tsr_device_count(shard_client, TSR_DEVICE_OPENCL, &count) == TSR_OK && count > 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        /* No opencl device here: skipped on every rank. */
        tsr_client_close(shard_client);
        if (rank == 0)
            test_daemon_stop(&d);
        MPI_Finalize();
        return 77;
    }
    tsr_global_env_options eo = {.client = shard_client};
    ASSERT_EQ(tsr_global_env_open(&eo, &env), TSR_OK);
    world = tsr_global_env_world_size(env);
    ASSERT_EQ(tsr_global_env_device(env, TSR_DEVICE_OPENCL, &shard_device), TSR_OK);
    ASSERT_EQ(shard_device.index, tsr_global_env_local_rank(env) % count);
    tsr_placement *cpu_list = NULL;
    ASSERT_EQ(tsr_global_env_all_device_placement(env, TSR_DEVICE_OPENCL, &world_list), TSR_OK);
    ASSERT_EQ(tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &cpu_list), TSR_OK);
    char repr[128];
    tsr_placement_repr(world_list, repr, sizeof(repr));
    ASSERT_TRUE(strncmp(repr, "oneflow.placement(type=\"opencl\", ranks=[0", 41) == 0);

    static const int64_t shape2[2] = {5, 3}, shape3[3] = {3, 5, 2};
    every_pair(2, shape2, cpu_list);
    every_pair(3, shape3, cpu_list);
    ops_on_opencl();

    /* A shard given on cpu lands on this rank's opencl device. */
    int64_t sizes[1] = {4};
    tsr_tensor *t = NULL, *local = NULL;
    tsr_global_tensor *g = NULL;
    tsr_sbp b = tsr_sbp_broadcast();
    ASSERT_EQ(tsr_tensor_ones(NULL, 1, sizes, NULL, &t), TSR_OK);
    ASSERT_EQ(tsr_global_tensor_from_local(env, t, world_list, &b, &g), TSR_OK);
    if (g) {
        local = tsr_global_tensor_to_local(g);
        ASSERT_TRUE(tsr_device_equal(tsr_tensor_device(local), shard_device));
        /* Host-shared: what the collectives read and write in place. */
        void *ptr = NULL;
        ASSERT_EQ(tsr_tensor_data_ptr(local, &ptr), TSR_OK);
    }
    tsr_tensor_release(local);
    tsr_global_tensor_release(g);
    tsr_tensor_release(t);

    /* One rank whose device is missing (rank 1 asks for opencl:99) fails
     * with its own message; the others fail at once with theirs, not
     * after the rendezvous's timeout, and the world goes on. */
    if (world > 1) {
        tsr_global_env *odd = NULL;
        tsr_global_env_options oo = {.client = shard_client,
                                     .has_device_index = rank == 1,
                                     .device_index = 99,
                                     .timeout_ms = 60000};
        ASSERT_EQ(tsr_global_env_open(&oo, &odd), TSR_OK);
        ASSERT_EQ(tsr_tensor_ones(NULL, 1, sizes, NULL, &t), TSR_OK);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tsr_status st = odd ? tsr_global_tensor_from_local(odd, t, world_list, &b, &g) : TSR_OK;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ASSERT_EQ(st, rank == 1 ? TSR_ERR_NO_DEVICE : TSR_ERR_RUNTIME);
        char want[128];
        snprintf(want, sizeof want, "rank 1: opencl:99 does not exist (%d opencl devices)",
                 (int)count);
        ASSERT_STREQ(tsr_last_error(),
                     rank == 1 ? want : "to_global: another rank failed (its error says why)");
        ASSERT_TRUE(t1.tv_sec - t0.tv_sec < 30);
        ASSERT_EQ(tsr_global_tensor_from_local(env, t, world_list, &b, &g), TSR_OK);
        tsr_global_tensor_release(g);
        tsr_tensor_release(t);
        tsr_global_env_close(odd);
    }

    (void)finish; /* the cpu tests' start and end; this one also runs the daemon */
    (void)open_world;
    (void)world_as_grid;
    (void)kind_text;
    tsr_placement_destroy(world_list);
    tsr_placement_destroy(cpu_list);
    tsr_global_env_close(env);
    tsr_client_close(shard_client);
    int failed = test__failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d passed, %d failed\n", rank, world, test__passed, test__failed);
    if (rank == 0 && (test_daemon_stop(&d) != 0 || any))
        test_daemon_dump_log(&d);
    MPI_Finalize();
    return any ? 1 : 0;
}
