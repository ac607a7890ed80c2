/* The client against a real daemon: handshake, the device registry,
 * current devices, visible devices, both transports, and allocations that
 * are written through the mapping and read back. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

static void check_registry(tsr_client *c)
{
    int32_t n = -1;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    ASSERT_TRUE(n >= 1); /* PoCL's CPU device at least */
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_CPU, &n));
    ASSERT_EQ(n, 1);
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_META, &n));
    ASSERT_EQ(n, 1);
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_CUDA, &n));
    ASSERT_EQ(n, 0);

    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    ASSERT_EQ(p.device.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(p.device.index, 0);
    ASSERT_EQ(p.daemon_index, 0);
    ASSERT_TRUE(p.name[0] != '\0');
    ASSERT_TRUE(p.memory_bytes > 0);
    ASSERT_TRUE(p.compute_units > 0);
    ASSERT_TRUE(strncmp(p.api_version, "OpenCL ", 7) == 0);

    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_CPU, -1}, &p));
    ASSERT_EQ(p.compute_units, sysconf(_SC_NPROCESSORS_ONLN));
    ASSERT_EQ(p.device.index, -1);

    ASSERT_FAIL(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_CUDA, 0}, &p),
                TSR_ERR_NO_DEVICE, NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), "no cuda devices here (this machine has: cpu, opencl:0") !=
                NULL);
    ASSERT_FAIL(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 99}, &p),
                TSR_ERR_NO_DEVICE, NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), "invalid device ordinal: opencl:99 does not exist") !=
                NULL);

    tsr_device_type acc;
    ASSERT_OK(tsr_accelerator_type(c, &acc));
    ASSERT_EQ(acc, TSR_DEVICE_OPENCL);
    tsr_device d;
    ASSERT_OK(tsr_device_from_index(c, 3, &d));
    ASSERT_EQ(d.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(d.index, 3);
    ASSERT_FAIL(tsr_device_from_index(c, -1, &d), TSR_ERR_RUNTIME,
                "Device index must not be negative");
}

static void check_current_device(tsr_client *c)
{
    tsr_device d;
    ASSERT_OK(tsr_current_device(c, TSR_DEVICE_OPENCL, &d));
    ASSERT_EQ(d.index, 0);
    ASSERT_OK(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 0}));
    ASSERT_FAIL(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 1}), TSR_ERR_NO_DEVICE, NULL);
    ASSERT_FAIL(tsr_set_device(c, (tsr_device){TSR_DEVICE_MPS, 0}), TSR_ERR_NO_DEVICE, NULL);
    ASSERT_OK(tsr_current_device(c, TSR_DEVICE_CPU, &d));
    ASSERT_EQ(d.type, TSR_DEVICE_CPU);
    ASSERT_EQ(d.index, -1);
}

static void check_transports(tsr_client *c)
{
    for (int k = 0; k < 100; k++) {
        ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_RING));
        ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_SOCKET));
    }
    /* Idle long enough for the daemon to go to sleep: the doorbell wakes it. */
    usleep(200000);
    ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_RING));
}

static void check_tensors(tsr_client *c)
{
    int64_t sizes[2] = {3, 4};
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_FLOAT32,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 2, sizes, &o, &t));
    if (!t)
        return;
    ASSERT_EQ(tsr_tensor_get_device(t), 0);
    ASSERT_EQ(tsr_tensor_strides(t)[0], 4);
    ASSERT_EQ(tsr_tensor_strides(t)[1], 1);
    float *data = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(t, (void **)&data));
    for (int k = 0; k < 12; k++)
        data[k] = (float)k * 0.5f;
    tsr_tensor *tt = NULL;
    ASSERT_OK(tsr_tensor_t(t, &tt));
    float back[12];
    ASSERT_OK(tsr_tensor_copy_to_host(tt, back, sizeof back));
    /* t() of a 3x4 read in row-major order: back[i*3+j] = data[j*4+i] */
    int bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            bad += back[i * 3 + j] != (float)(j * 4 + i) * 0.5f;
    ASSERT_EQ(bad, 0);

    tsr_memory_stats m;
    ASSERT_OK(tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &m));
    ASSERT_EQ(m.allocated, 512); /* 48 bytes round up to 512 */
    ASSERT_EQ(m.reserved, 2 << 20);
    ASSERT_EQ(m.segments, 1);
    tsr_tensor_release(tt);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &m));
    ASSERT_EQ(m.allocated, 0);
    ASSERT_EQ(m.reserved, 2 << 20);
    uint64_t released = 0;
    ASSERT_OK(tsr_memory_empty_cache(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &released));
    ASSERT_EQ(released, 2 << 20);
    ASSERT_FAIL(tsr_memory_get_stats(c, (tsr_device){TSR_DEVICE_CPU, -1}, &m),
                TSR_ERR_INVALID_ARGUMENT, NULL);
}

/* Reductions of opencl tensors run on opencl:0 (test_reduce_opencl holds
 * them to the cpu's bits); out= must be on the input's device. */
static void check_reductions(tsr_client *c)
{
    int64_t sizes[2] = {3, 4}, dim = 1;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_FLOAT32,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL, *r = NULL, *i = NULL, *cpu = NULL;
    ASSERT_OK(tsr_tensor_ones(c, 2, sizes, &o, &t));
    ASSERT_OK(tsr_tensor_zeros(NULL, 2, sizes, NULL, &cpu));
    if (!t || !cpu)
        return;
    ASSERT_OK(tsr_sum(t, &dim, 1, false, TSR_NO_DTYPE, &r));
    float got[3] = {0, 0, 0};
    if (r) {
        ASSERT_OK(tsr_tensor_copy_to_host(r, got, sizeof got));
        ASSERT_TRUE(got[0] == 4.0f && got[1] == 4.0f && got[2] == 4.0f);
    }
    tsr_tensor_release(r);
    r = NULL;
    ASSERT_OK(tsr_max_dim(t, 0, true, &r, &i));
    tsr_tensor_release(r);
    tsr_tensor_release(i);
    r = i = NULL;
    ASSERT_FAIL(tsr_mean_out(cpu, NULL, 0, false, TSR_NO_DTYPE, t), TSR_ERR_RUNTIME,
                "Expected all tensors to be on the same device, but found at least two devices, "
                "cpu and opencl:0!");
    tsr_tensor_release(cpu);
    tsr_tensor_release(t);
}

static void check_visible(const char *socket)
{
    tsr_client *c = NULL;
    tsr_client_options o = {.socket_path = socket, .visible_devices = ""};
    ASSERT_OK(tsr_client_open(&o, &c));
    int32_t n = -1;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    ASSERT_EQ(n, 0);
    tsr_device_type acc;
    ASSERT_FAIL(tsr_accelerator_type(c, &acc), TSR_ERR_RUNTIME,
                "Cannot access accelerator device when none is available.");
    tsr_client_close(c);
    o.visible_devices = "0";
    ASSERT_OK(tsr_client_open(&o, &c));
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    ASSERT_EQ(n, 1);
    tsr_client_close(c);
    const char *bad[] = {"x", "0,", "0,0", "1x", "999", "-1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        o.visible_devices = bad[k];
        c = NULL;
        ASSERT_FAIL(tsr_client_open(&o, &c), TSR_ERR_INVALID_ARGUMENT, NULL);
        ASSERT_TRUE(c == NULL);
    }
}

/* A child of a fork shares its parent's socket and ring: it may not use
 * the parent's client (its replies would be the parent's), and opens one
 * of its own; the parent's goes on. Exit codes name the failing step. */
static void check_fork(tsr_client *c)
{
    int64_t n = 4;
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL, *cached = NULL;
    ASSERT_OK(tsr_tensor_ones(c, 1, &n, &o, &t));
    ASSERT_OK(tsr_tensor_ones(c, 1, &n, &o, &cached));
    ASSERT_OK(tsr_synchronize(c, o.device));
    tsr_tensor_release(cached); /* its block waits in the parent's cache */
    pid_t pid = fork();
    if (pid == 0) {
        int code = 0;
        tsr_client *own = NULL;
        tsr_tensor *u = NULL;
        if (tsr_client_ping(c, TSR_TRANSPORT_RING) != TSR_ERR_CONNECTION ||
            !strstr(tsr_last_error(), "open a client of its own"))
            code = 10;
        else if (tsr_client_ping(c, TSR_TRANSPORT_SOCKET) != TSR_ERR_CONNECTION)
            code = 11;
        else if (tsr_add_(t, t, tsr_scalar_int(1)) != TSR_ERR_CONNECTION)
            code = 12;
        else if (tsr_synchronize(c, o.device) != TSR_ERR_CONNECTION)
            code = 13;
        else if (tsr_tensor_zeros(c, 1, &n, &o, &u) != TSR_ERR_CONNECTION) /* not from the cache */
            code = 15;
        else if (tsr_client_open(NULL, &own) != TSR_OK ||
                 tsr_client_ping(own, TSR_TRANSPORT_RING) != TSR_OK ||
                 tsr_tensor_ones(own, 1, &n, &o, &u) != TSR_OK)
            code = 14;
        tsr_tensor_release(u);
        tsr_tensor_release(t); /* the parent's: given back by no one here */
        tsr_client_close(own);
        tsr_client_close(c);
        _exit(code);
    }
    int status = -1;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_RING));
    ASSERT_OK(tsr_add_(t, t, tsr_scalar_int(1)));
    float back[4] = {0};
    ASSERT_OK(tsr_tensor_copy_to_host(t, back, sizeof back));
    ASSERT_TRUE(back[0] == 2.0f && back[3] == 2.0f);
    tsr_tensor_release(t);
}

int main(void)
{
    tsr_client *c = NULL;
    tsr_client_options none = {.socket_path = "/nonexistent/tessera.sock"};
    ASSERT_FAIL(tsr_client_open(&none, &c), TSR_ERR_CONNECTION, NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), "start the daemon with `tesserad --socket "
                                         "/nonexistent/tessera.sock`") != NULL);

    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c)); /* finds it through TESSERA_SOCKET */
    if (c) {
        ASSERT_EQ(tsr_client_protocol_version(c), 7);
        ASSERT_TRUE(tsr_client_session_id(c) > 0);
        check_registry(c);
        check_current_device(c);
        check_transports(c);
        check_tensors(c);
        check_reductions(c);
        check_fork(c);
        tsr_client_close(c);
    }
    check_visible(d.socket);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
