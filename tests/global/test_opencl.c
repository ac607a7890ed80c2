/* Global tensors on opencl shards, under mpirun: rank 0 starts one real
 * tesserad, every rank is a client of it and takes the opencl device of
 * its local rank, and the collectives move the shards' memory in place
 * (the daemon's arena mapped in each client). Also cpu <-> opencl
 * placements of the same ranks, and the device each shard lands on. */
#include <mpi.h>

#include "integration/support_daemon.h"
#include "support_global.h"
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

    (void)finish; /* the cpu tests' end; this one also stops the daemon */
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
