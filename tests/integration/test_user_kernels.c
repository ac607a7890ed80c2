/* User kernels through a real daemon on opencl:0: a block reduction with
 * local memory and barriers gives the right sums; a tensor argument
 * starts at the tensor's storage offset; a wrong kind of argument fails
 * when it is set; a failed build carries the compiler's log; a user
 * kernel runs in order between built-in adds, and tensors used by launch
 * after launch, written by built-in ops between them, are read and
 * written afresh by each; a kernel that writes far
 * out of bounds or follows a garbage pointer ends only its own worker
 * (the daemon and another session's tensors are untouched, and the
 * session builds again); a kernel that never ends is stopped at
 * kernels.run_time_limit_ms; a program one process built comes from the
 * disk cache for another; the end of a build, built or failed, wakes
 * whoever sleeps on the session ring's builds_ended; a compiler over kernels.build_time_limit_ms, or
 * one that crashes short of kernels.build_memory (32 MiB beyond what the
 * driver maps), is a build error and the daemon goes on, and the limit
 * counts from what the driver maps; kernels.user = off refuses programs. Run as root, a
 * second user's kernels run in a worker of that user's uid, and its
 * crashing kernel leaves root's worker and tensors alone. */

#define NOBODY 65534
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <grp.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/protocol.h"
#include "core/ring.h"
#include "support_daemon.h"
#include "test.h"

static const tsr_device DEV = {TSR_DEVICE_OPENCL, 0};

static const char *REDUCE_SRC =
    "__kernel void block_sum(__global const float *in, __global float *out,\n"
    "                        __local float *scratch, uint n) {\n"
    "    uint lid = get_local_id(0), gid = get_global_id(0), size = get_local_size(0);\n"
    "    scratch[lid] = gid < n ? in[gid] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint s = size / 2; s > 0; s /= 2) {\n"
    "        if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0) out[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void iota(__global int *out) { out[get_global_id(0)] = (int)get_global_id(0); }\n"
    "__kernel void scale(__global float *out, __global const float *in, float k) {\n"
    "    size_t i = get_global_id(0); out[i] = in[i] * k;\n"
    "}\n";

static tsr_tensor *floats(tsr_client *c, int64_t n, const float *data)
{
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = DEV};
    tsr_tensor *t = NULL;
    int64_t sizes[1] = {n};
    if (data)
        tsr_tensor_from_data(c, 1, sizes, TSR_FLOAT32, data, &o, &t);
    else
        tsr_tensor_zeros(c, 1, sizes, &o, &t);
    return t;
}

static tsr_program *build(tsr_client *c, const char *src)
{
    tsr_program *p = NULL;
    if (tsr_program_create(c, DEV, src, NULL, &p) != TSR_OK)
        return NULL;
    if (tsr_program_wait(p) != TSR_OK) {
        tsr_program_release(p);
        return NULL;
    }
    return p;
}

static void check_reduction(tsr_client *c, tsr_program *p)
{
    enum { N = 4096, BLOCK = 64 };
    float *in = malloc(N * sizeof *in), want[N / BLOCK] = {0}, got[N / BLOCK];
    for (int i = 0; i < N; i++) {
        in[i] = (float)((i * 7) % 13) - 6.0f;
        want[i / BLOCK] += in[i];
    }
    tsr_tensor *x = floats(c, N, in), *y = floats(c, N / BLOCK, NULL);
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "block_sum", &k));
    ASSERT_EQ(tsr_kernel_num_args(k), 4);
    tsr_kernel_arg info;
    ASSERT_OK(tsr_kernel_arg_info(k, 2, &info));
    ASSERT_EQ(info.kind, TSR_KERNEL_ARG_LOCAL);
    ASSERT_STREQ(info.name, "scratch");
    ASSERT_OK(tsr_kernel_arg_info(k, 3, &info));
    ASSERT_EQ(info.kind, TSR_KERNEL_ARG_SCALAR);
    ASSERT_STREQ(info.type_name, "uint");
    ASSERT_EQ(info.size, 4);
    uint32_t n = N;
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, x));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, y));
    ASSERT_OK(tsr_kernel_set_arg_local(k, 2, BLOCK * sizeof(float)));
    ASSERT_OK(tsr_kernel_set_arg_scalar(k, 3, TSR_UINT32, &n));
    size_t global[1] = {N}, local[1] = {BLOCK};
    ASSERT_OK(tsr_kernel_launch(k, 1, global, local));
    ASSERT_OK(tsr_synchronize(c, DEV));
    ASSERT_OK(tsr_tensor_copy_to_host(y, got, sizeof got));
    int wrong = 0;
    for (int b = 0; b < N / BLOCK; b++)
        wrong += got[b] != want[b];
    ASSERT_EQ(wrong, 0);

    /* Wrong kinds fail when set. */
    double d = 1;
    ASSERT_FAIL(tsr_kernel_set_arg_tensor(k, 3, x), TSR_ERR_TYPE,
                "kernel block_sum: argument 3 (uint n) is a value (set it with "
                "tsr_kernel_set_arg_scalar), not a tensor");
    ASSERT_FAIL(tsr_kernel_set_arg_scalar(k, 3, TSR_FLOAT64, &d), TSR_ERR_TYPE,
                "kernel block_sum: argument 3 (uint n) does not take a float64");
    ASSERT_FAIL(tsr_kernel_set_arg_local(k, 0, 64), TSR_ERR_TYPE,
                "kernel block_sum: argument 0 (float* in) is a __global pointer (set it with "
                "tsr_kernel_set_arg_tensor), not a local memory size");
    ASSERT_FAIL(tsr_kernel_set_arg_scalar(k, 2, TSR_UINT32, &n), TSR_ERR_TYPE,
                "kernel block_sum: argument 2 (float* scratch) is a __local pointer (set it with "
                "tsr_kernel_set_arg_local), not a scalar");
    ASSERT_FAIL(tsr_kernel_set_arg_local(k, 4, 64), TSR_ERR_INDEX,
                "kernel block_sum takes 4 arguments: there is no argument 4");
    tsr_kernel *fresh = NULL;
    ASSERT_OK(tsr_kernel_create(p, "block_sum", &fresh));
    ASSERT_FAIL(tsr_kernel_launch(fresh, 1, global, local), TSR_ERR_INVALID_ARGUMENT,
                "kernel block_sum: argument 0 (in) is not set");
    ASSERT_FAIL(tsr_kernel_create(p, "nope", &fresh), TSR_ERR_INVALID_ARGUMENT, NULL);
    tsr_kernel_release(fresh);
    tsr_kernel_release(k);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    free(in);
}

/* A view's argument starts at its first element. */
static void check_offset(tsr_client *c, tsr_program *p)
{
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {16};
    tsr_tensor *base = NULL, *view = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, sizes, (tsr_scalar){.kind = TSR_INT64, .v.i = -1}, &o, &base));
    ASSERT_OK(tsr_tensor_narrow(base, 0, 5, 8, &view));
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "iota", &k));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, view));
    size_t global[1] = {8};
    ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    int32_t got[16];
    ASSERT_OK(tsr_tensor_copy_to_host(base, got, sizeof got));
    int wrong = 0;
    for (int i = 0; i < 16; i++)
        wrong += got[i] != (i >= 5 && i < 13 ? i - 5 : -1);
    ASSERT_EQ(wrong, 0);
    tsr_kernel_release(k);
    tsr_tensor_release(view);
    tsr_tensor_release(base);
}

/* add, then the user kernel reading its result, then add reading the
 * kernel's: large enough that any overtaking would show. */
static void check_order(tsr_client *c, tsr_program *p)
{
    enum { N = 1 << 20 };
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {N};
    tsr_tensor *a = NULL, *b = NULL, *s = floats(c, N, NULL), *d = NULL;
    tsr_scalar one = {.kind = TSR_INT64, .v.i = 1};
    ASSERT_OK(tsr_tensor_ones(c, 1, sizes, &o, &a));
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "scale", &k));
    for (int round = 0; round < 3; round++) {
        ASSERT_OK(tsr_add(a, a, one, &b)); /* 2 */
        float ten = 10;
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, s));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, b));
        ASSERT_OK(tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &ten));
        size_t global[1] = {N};
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL)); /* 20 */
        ASSERT_OK(tsr_add(s, a, one, &d));                /* 21 */
        float *got = malloc(N * sizeof *got);
        ASSERT_OK(tsr_tensor_copy_to_host(d, got, N * sizeof *got));
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += got[i] != 21.0f;
        ASSERT_EQ(wrong, 0);
        free(got);
        tsr_tensor_release(b);
        tsr_tensor_release(d);
        /* and the next round starts from zeros again */
        ASSERT_OK(tsr_tensor_fill_(s, (tsr_scalar){.kind = TSR_FLOAT64, .v.f = 0}));
    }
    tsr_kernel_release(k);
    tsr_tensor_release(a);
    tsr_tensor_release(s);
}

/* The same tensors in launch after launch, written between them by
 * built-in ops: a kernel reads what the last op wrote and the next op
 * what the kernel wrote (the worker keeps a buffer per tensor it was
 * given, over the segment's own bytes). More tensors than the worker
 * keeps buffers for in one segment, in turns, so that kept buffers are
 * replaced while others are in use. */
/* Launches end in launch order even when the daemon fails one itself:
 * nine slow launches (a tenth of a second or more each), eight of them
 * with the worker at once, then the program released, so that the ninth
 * fails when its turn comes. The synchronize that reports its failure
 * must find the eight done. */
static void check_failed_in_order(tsr_client *c)
{
    tsr_program *p = build(c, "__kernel void slow(__global float *p) {\n"
                              "    volatile __global float *v = p;\n"
                              "    for (int i = 0; i < 30000000; i++)\n"
                              "        v[1] = v[1] + 1.0f;\n"
                              "    p[0] += 1.0f;\n"
                              "}\n");
    ASSERT_TRUE(p != NULL);
    if (!p)
        return;
    tsr_tensor *t = floats(c, 2, NULL);
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "slow", &k));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, t));
    size_t global[1] = {1};
    for (int i = 0; i < 9; i++)
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    tsr_kernel_release(k);
    tsr_program_release(p);
    ASSERT_FAIL(tsr_synchronize(c, DEV), TSR_ERR_DEVICE,
                "the kernel's program was released before it ran");
    float got[2] = {-1, -1};
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, sizeof got));
    if (got[0] != 8.0f)
        fprintf(stderr, "the eight launches left %g\n", (double)got[0]);
    ASSERT_TRUE(got[0] == 8.0f);
    tsr_tensor_release(t);
}

static void check_reuse(tsr_client *c, tsr_program *p)
{
    enum { N = 1024, T = 12 };
    tsr_tensor *x[T], *whole[T], *s[T];
    for (int t = 0; t < T; t++) {
        /* s a view one element in: its address is not aligned as an
         * allocation's is */
        x[t] = floats(c, N, NULL);
        whole[t] = floats(c, N + 1, NULL);
        s[t] = NULL;
        ASSERT_TRUE(x[t] && whole[t]);
        ASSERT_OK(tsr_tensor_narrow(whole[t], 0, 1, N, &s[t]));
    }
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "scale", &k));
    float ten = 10, *got = malloc(N * sizeof *got);
    size_t global[1] = {N};
    int wrong = 0;
    for (int round = 1; round <= 3; round++) {
        for (int t = 0; t < T; t++) {
            /* x = round + t, s = 10 x, then s += 1 by a built-in add */
            ASSERT_OK(tsr_add_scalar_(x[t], tsr_scalar_int(1), tsr_scalar_int(1)));
            if (round == 1)
                ASSERT_OK(tsr_add_scalar_(x[t], tsr_scalar_int(t), tsr_scalar_int(1)));
            ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, s[t]));
            ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, x[t]));
            ASSERT_OK(tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &ten));
            ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
            ASSERT_OK(tsr_add_scalar_(s[t], tsr_scalar_int(1), tsr_scalar_int(1)));
        }
        for (int t = 0; t < T; t++) {
            ASSERT_OK(tsr_tensor_copy_to_host(s[t], got, N * sizeof *got));
            for (int i = 0; i < N; i++)
                wrong += got[i] != 10.0f * (float)(round + t) + 1.0f;
        }
    }
    ASSERT_EQ(wrong, 0);
    free(got);
    tsr_kernel_release(k);
    for (int t = 0; t < T; t++) {
        tsr_tensor_release(x[t]);
        tsr_tensor_release(s[t]);
        tsr_tensor_release(whole[t]);
    }
}

/* A tensor argument holds its memory: the caller's tensor released
 * between setting the argument and the launch, its block goes back to
 * the client's cache, and the next tensor of its size would take it and
 * get the launch's writes. */
static void check_arg_holds(tsr_client *c, tsr_program *p)
{
    enum { N = 1024 };
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {N};
    tsr_kernel *k = NULL;
    tsr_tensor *out = NULL, *other = NULL;
    ASSERT_OK(tsr_kernel_create(p, "iota", &k));
    ASSERT_OK(tsr_tensor_zeros(c, 1, sizes, &o, &out));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, out));
    tsr_tensor_release(out);
    ASSERT_OK(tsr_tensor_zeros(c, 1, sizes, &o, &other));
    size_t global[1] = {N};
    ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    ASSERT_OK(tsr_synchronize(c, DEV));
    int32_t got[N];
    ASSERT_OK(tsr_tensor_copy_to_host(other, got, sizeof got));
    int written = 0;
    for (int i = 0; i < N; i++)
        written += got[i] != 0;
    ASSERT_EQ(written, 0);
    tsr_tensor_release(other);
    tsr_kernel_release(k);
}

/* Launches over more segments than a worker keeps (daemon/worker_wire.h:
 * 64 slots), in two rounds: the second finds the first round's earliest
 * segments replaced by its latest, and the daemon passes them again in
 * place of others, some while launches over those are still in flight.
 * Each tensor lies in a segment of its own (10 MiB, the allocator's
 * smallest large segment; left empty but for its first elements, so they
 * hold no memory) and gets a value no other launch writes, so that a
 * launch given another tensor's segment shows. */
static void check_slots(tsr_client *c, tsr_program *p)
{
    enum { N = 256, T = 72 };
    const int64_t big[1] = {(10 << 20) / 4};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = DEV};
    tsr_tensor *whole[T], *s[T];
    float ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    tsr_tensor *x = floats(c, N, ones);
    ASSERT_TRUE(x != NULL);
    for (int t = 0; t < T; t++) {
        whole[t] = s[t] = NULL;
        ASSERT_OK(tsr_tensor_empty(c, 1, big, &o, &whole[t]));
        ASSERT_OK(tsr_tensor_narrow(whole[t], 0, 0, N, &s[t]));
    }
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "scale", &k));
    float *got = malloc(N * sizeof *got);
    size_t global[1] = {N};
    int wrong = 0;
    for (int round = 1; round <= 2; round++) {
        for (int t = 0; t < T; t++) {
            float value = (float)(round * 1000 + t);
            ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, s[t]));
            ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, x));
            ASSERT_OK(tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &value));
            ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
        }
        for (int t = 0; t < T; t++) {
            ASSERT_OK(tsr_tensor_copy_to_host(s[t], got, N * sizeof *got));
            for (int i = 0; i < N; i++)
                wrong += got[i] != (float)(round * 1000 + t);
        }
    }
    ASSERT_EQ(wrong, 0);
    free(got);
    tsr_kernel_release(k);
    tsr_tensor_release(x);
    for (int t = 0; t < T; t++) {
        tsr_tensor_release(s[t]);
        tsr_tensor_release(whole[t]);
    }
}

/* A launch the driver refuses (a work-group larger than PoCL's) fails at
 * the next synchronize (or launch), with the driver's reason, though the
 * launch after it succeeds and its worker publishes that one's end in the
 * ring; the error is told once, and the second launch's work is there. */
static void check_refused_launch(tsr_client *c, tsr_program *p)
{
    enum { N = 1 << 16 };
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {N};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_full(c, 1, sizes, (tsr_scalar){.kind = TSR_INT64, .v.i = -1}, &o, &t));
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "iota", &k));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, t));
    size_t global[1] = {N}, local[1] = {N};
    ASSERT_OK(tsr_kernel_launch(k, 1, global, local));
    /* The failure may be in the ring before the second launch is asked
     * for: that launch then reports it (and is not queued). */
    tsr_status st = tsr_kernel_launch(k, 1, global, NULL);
    bool queued = st == TSR_OK;
    if (queued)
        st = tsr_synchronize(c, DEV);
    ASSERT_EQ(st, TSR_ERR_DEVICE);
    ASSERT_TRUE(
        strcmp(tsr_last_error(), "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE") == 0);
    if (!queued)
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    ASSERT_OK(tsr_synchronize(c, DEV));
    int32_t *got = malloc(N * sizeof *got);
    ASSERT_TRUE(got != NULL);
    ASSERT_OK(tsr_tensor_copy_to_host(t, got, N * sizeof *got));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != i;
    ASSERT_EQ(wrong, 0);
    free(got);
    tsr_kernel_release(k);
    tsr_tensor_release(t);
}

/* Two sessions of one uid share its worker, so their launches are there
 * together: each is answered in turn and published in its own session's
 * ring, and every one of them ran once. */
static void check_two_sessions(tsr_client *c, tsr_client *other)
{
    enum { N = 4096, ROUNDS = 50 };
    static const char *src = "__kernel void bump(__global int *y) { y[get_global_id(0)] += 1; }\n";
    tsr_client *clients[2] = {c, other};
    tsr_program *p[2] = {NULL, NULL};
    tsr_tensor *t[2] = {NULL, NULL};
    tsr_kernel *k[2] = {NULL, NULL};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {N};
    for (int s = 0; s < 2; s++) {
        p[s] = build(clients[s], src);
        ASSERT_TRUE(p[s] != NULL);
        ASSERT_OK(tsr_tensor_zeros(clients[s], 1, sizes, &o, &t[s]));
        ASSERT_OK(tsr_kernel_create(p[s], "bump", &k[s]));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k[s], 0, t[s]));
    }
    size_t global[1] = {N};
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < 2; s++)
            ASSERT_OK(tsr_kernel_launch(k[s], 1, global, NULL));
    int32_t *got = malloc(N * sizeof *got);
    ASSERT_TRUE(got != NULL);
    for (int s = 0; s < 2; s++) {
        ASSERT_OK(tsr_synchronize(clients[s], DEV));
        ASSERT_OK(tsr_tensor_copy_to_host(t[s], got, N * sizeof *got));
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += got[i] != ROUNDS;
        ASSERT_EQ(wrong, 0);
        tsr_kernel_release(k[s]);
        tsr_tensor_release(t[s]);
        tsr_program_release(p[s]);
    }
    free(got);
}

/* Many sessions of one uid share its worker, each with launches in it:
 * more than the worker takes at once and its socket holds. The daemon
 * holds back what would not fit, in order, and every launch runs once;
 * the worker was ended ("it took no more requests") when they were all
 * sent. */
static void check_many_sessions(void)
{
    enum { SESSIONS = 24, ROUNDS = 12 };
    static const char *src = "__kernel void slow(__global int *y, int spins) {\n"
                             "    int acc = 0;\n"
                             "    for (int i = 0; i < spins; i++) acc += i ^ y[1];\n"
                             "    if (acc == 123456789) y[1] = 1;\n"
                             "    y[0] += 1;\n"
                             "}\n";
    tsr_client *c[SESSIONS] = {NULL};
    tsr_program *p[SESSIONS] = {NULL};
    tsr_tensor *t[SESSIONS] = {NULL};
    tsr_kernel *k[SESSIONS] = {NULL};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {2};
    int32_t spins = 200000;
    for (int s = 0; s < SESSIONS; s++) {
        ASSERT_OK(tsr_client_open(NULL, &c[s]));
        p[s] = c[s] ? build(c[s], src) : NULL;
        ASSERT_TRUE(p[s] != NULL);
        if (!p[s])
            return;
        ASSERT_OK(tsr_tensor_zeros(c[s], 1, sizes, &o, &t[s]));
        ASSERT_OK(tsr_kernel_create(p[s], "slow", &k[s]));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k[s], 0, t[s]));
        ASSERT_OK(tsr_kernel_set_arg_scalar(k[s], 1, TSR_INT32, &spins));
    }
    size_t global[1] = {1};
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < SESSIONS; s++)
            ASSERT_OK(tsr_kernel_launch(k[s], 1, global, NULL));
    for (int s = 0; s < SESSIONS; s++) {
        int32_t got[2] = {-1, -1};
        ASSERT_OK(tsr_synchronize(c[s], DEV));
        ASSERT_OK(tsr_tensor_copy_to_host(t[s], got, sizeof got));
        ASSERT_EQ(got[0], ROUNDS);
        tsr_kernel_release(k[s]);
        tsr_tensor_release(t[s]);
        tsr_program_release(p[s]);
        tsr_client_close(c[s]);
    }
}

static void check_build_error(tsr_client *c)
{
    tsr_program *p = NULL;
    ASSERT_OK(tsr_program_create(
        c, DEV, "__kernel void f(__global int *p) { p[0] = undeclared_x; }", NULL, &p));
    ASSERT_EQ(tsr_program_wait(p), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_TRUE(strstr(tsr_last_error(), "the program did not build: ") == tsr_last_error());
    ASSERT_TRUE(strstr(tsr_last_error(), "undeclared_x") != NULL);
    ASSERT_TRUE(strstr(tsr_program_build_log(p), "error") != NULL);
    tsr_program_release(p);
}

/* A kernel that breaks its worker: the session's synchronize reports it,
 * the other session's tensor and the daemon are untouched, and a new
 * program runs. */
static void check_contained(test_daemon *d, tsr_client *c, tsr_client *other, const char *src)
{
    enum { N = 1024 };
    float data[N], got[N];
    for (int i = 0; i < N; i++)
        data[i] = (float)i * 0.5f;
    tsr_tensor *mine = floats(other, N, data);
    tsr_program *p = build(c, src);
    ASSERT_TRUE(p != NULL);
    if (!p)
        return;
    tsr_tensor *x = floats(c, 16, NULL);
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "bad", &k));
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, x));
    size_t global[1] = {1};
    ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    ASSERT_EQ(tsr_synchronize(c, DEV), TSR_ERR_DEVICE);
    ASSERT_TRUE(strstr(tsr_last_error(), "the kernel worker of uid ") != NULL);
    ASSERT_TRUE(strstr(tsr_last_error(), " on opencl:0 ended: ") != NULL);
    ASSERT_TRUE(test_daemon_alive(d));
    /* The broken program says why. */
    ASSERT_EQ(tsr_kernel_launch(k, 1, global, NULL), TSR_ERR_DEVICE);
    ASSERT_TRUE(strstr(tsr_last_error(), "cannot run: the kernel worker") != NULL);
    /* The other session's data and built-ins. */
    ASSERT_OK(tsr_tensor_copy_to_host(mine, got, sizeof got));
    ASSERT_EQ(memcmp(got, data, sizeof got), 0);
    tsr_tensor *sum = NULL;
    ASSERT_OK(tsr_add(mine, mine, (tsr_scalar){.kind = TSR_INT64, .v.i = 1}, &sum));
    ASSERT_OK(tsr_tensor_copy_to_host(sum, got, sizeof got));
    ASSERT_EQ(got[N - 1], (float)(N - 1));
    /* The session goes on: a new worker runs its next program. */
    tsr_program *again = build(c, REDUCE_SRC);
    ASSERT_TRUE(again != NULL);
    if (again)
        check_offset(c, again);
    tsr_program_release(again);
    tsr_tensor_release(sum);
    tsr_kernel_release(k);
    tsr_program_release(p);
    tsr_tensor_release(x);
    tsr_tensor_release(mine);
}

/* A process of its own builds `src` with `options` and runs it once. */
static int build_elsewhere(const char *src, const char *options)
{
    pid_t pid = fork();
    if (pid == 0) {
        tsr_client *c = NULL;
        tsr_program *p = NULL;
        if (tsr_client_open(NULL, &c) != TSR_OK ||
            tsr_program_create(c, DEV, src, options, &p) != TSR_OK || tsr_program_wait(p) != TSR_OK)
            _exit(10);
        tsr_program_release(p);
        tsr_client_close(c);
        _exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/* `body` after a comment no earlier run wrote: a source the disk cache
 * cannot have. */
static void unique_source(char *buf, size_t n, const char *body)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(buf, n, "/* %lld.%09ld %d */\n%s", (long long)now.tv_sec, now.tv_nsec, (int)getpid(),
             body);
}

/* `body` after a kernel whose name no earlier run wrote: a source that
 * neither the disk cache nor PoCL's own can have (PoCL keys its cache by
 * the preprocessed source, which has no comments). */
static void unique_code(char *buf, size_t n, const char *body)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(buf, n, "__kernel void stamp_%lld_%09ld_%d(__global int *a) { a[0] = 1; }\n%s",
             (long long)now.tv_sec, now.tv_nsec, (int)getpid(), body);
}

/* The second process to build a source gets the first one's binary. */
static void check_cache(test_daemon *d, tsr_client *c)
{
    char src[512];
    unique_source(src, sizeof src, "__kernel void one(__global int *p) { p[0] = 1; }\n");
    const char *hit = "built (from the disk cache)";
    int before = test_daemon_log_count(d, hit);
    tsr_program *p = build(c, src);
    ASSERT_TRUE(p != NULL);
    ASSERT_EQ(test_daemon_log_count(d, hit), before);
    ASSERT_EQ(build_elsewhere(src, NULL), 0);
    ASSERT_EQ(test_daemon_log_count(d, hit), before + 1);
    /* Other options are another program. */
    ASSERT_EQ(build_elsewhere(src, "-cl-fast-relaxed-math"), 0);
    ASSERT_EQ(test_daemon_log_count(d, hit), before + 1);
    tsr_program_release(p);
}

/* The payload of the last reply raw_call received. */
static union {
    uint64_t align;
    uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
} raw_frame;

/* One request on a raw session socket (test_raw_call): TSR_OK (its
 * reply's payload in raw_frame), or the error reply's status with its
 * text in message. */
static tsr_status raw_call(int fd, uint32_t opcode, const void *payload, uint32_t len,
                           char *message, size_t n)
{
    static uint64_t id = 1;
    return test_raw_call(fd, opcode, ++id, payload, len, raw_frame.bytes, sizeof raw_frame.bytes,
                         NULL, 0, message, n);
}

/* A session sends one program's source at a time. */
static void check_one_source(const test_daemon *d)
{
    int fd = test_raw_connect(d->socket);
    ASSERT_EQ(test_raw_hello(fd, NULL, 0), 1);
    tsr__wire_program_create create = {.device = {TSR_DEVICE_OPENCL, 0}, .source_bytes = 10};
    char message[1100] = "";
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &create, sizeof create, message, sizeof message),
              TSR_OK);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &create, sizeof create, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "program 1 is still receiving its source: send it (PROGRAM_SOURCE) or "
                          "release it first");
    tsr__wire_program_source chunk = {.program = 1, .length = 11, .offset = 0};
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_SOURCE, &chunk, sizeof chunk, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "PROGRAM_SOURCE: 11 bytes at 0 do not follow the 0 received of 10");
    tsr__wire_program release = {.program = 1};
    ASSERT_EQ(
        raw_call(fd, TSR__OP_PROGRAM_RELEASE, &release, sizeof release, message, sizeof message),
        TSR_OK);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &create, sizeof create, message, sizeof message),
              TSR_OK);
    /* Options that leave no room for the daemon's own are refused before
     * any source comes (and no worker starts for them). */
    tsr__wire_program_create wordy = {.device = {TSR_DEVICE_OPENCL, 0}, .source_bytes = 10};
    memset(wordy.options, 'x', 492);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &wordy, sizeof wordy, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "program options are too long (at most 491 bytes)");
    tsr__wire_program second = {.program = 2};
    ASSERT_EQ(
        raw_call(fd, TSR__OP_PROGRAM_RELEASE, &second, sizeof second, message, sizeof message),
        TSR_OK);
    wordy.options[491] = '\0';
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &wordy, sizeof wordy, message, sizeof message),
              TSR_OK);
    close(fd);
}

/* The daemon checks a launch itself, whatever the client checked. */
static void check_raw_launch(const test_daemon *d)
{
    static const char src[] = "__kernel void k(__global int *p, int v) { p[0] = v; }";
    int fd = test_raw_connect(d->socket);
    ASSERT_EQ(test_raw_hello(fd, NULL, 0), 1);
    char message[1100] = "";
    tsr__wire_program_create create = {.device = {TSR_DEVICE_OPENCL, 0},
                                       .source_bytes = sizeof src - 1};
    tsr__wire_program_source chunk = {.program = 1, .length = sizeof src - 1};
    memcpy(chunk.data, src, sizeof src - 1);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &create, sizeof create, message, sizeof message),
              TSR_OK);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_SOURCE, &chunk, sizeof chunk, message, sizeof message),
              TSR_OK);
    /* Built once KERNEL_INFO answers (within a minute). */
    tsr__wire_kernel_query q = {.program = 1, .name = "k"};
    bool built = false;
    for (int k = 0; k < 1200 && !built; k++) {
        built = raw_call(fd, TSR__OP_KERNEL_INFO, &q, sizeof q, message, sizeof message) == TSR_OK;
        if (!built)
            usleep(50000);
    }
    ASSERT_TRUE(built);
    tsr__wire_kernel_launch l = {.program = 1, .kernel = 0, .work_dim = 1, .nargs = 2};
    l.global[0] = 1;
    l.args[0] = (tsr__wire_kernel_value){.kind = TSR__KARG_VALUE, .size = 4};
    l.args[1] = (tsr__wire_kernel_value){.kind = TSR__KARG_VALUE, .size = 4};
    ASSERT_EQ(raw_call(fd, TSR__OP_KERNEL_LAUNCH, &l, sizeof l, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "argument 0 (p) takes a tensor (__global), not a scalar");
    l.args[0] = (tsr__wire_kernel_value){.kind = TSR__KARG_GLOBAL, .handle = 0x1234};
    ASSERT_EQ(raw_call(fd, TSR__OP_KERNEL_LAUNCH, &l, sizeof l, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    l.nargs = 3;
    ASSERT_EQ(raw_call(fd, TSR__OP_KERNEL_LAUNCH, &l, sizeof l, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "kernel k takes 2 arguments, not 3");
    l.nargs = 2;
    l.work_dim = 4;
    ASSERT_EQ(raw_call(fd, TSR__OP_KERNEL_LAUNCH, &l, sizeof l, message, sizeof message),
              TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(message, "work_dim must be 1, 2 or 3, not 4");
    close(fd);
}

/* Sleeps on the ring's builds_ended while it is `seen`, a minute at
 * most; what it holds then. */
static uint32_t builds_ended_after(tsr__ring *ring, uint32_t seen)
{
    _Atomic uint32_t *word = &ring->header.builds_ended;
    for (int k = 0; k < 600 && atomic_load(word) == seen; k++) {
        struct timespec step = {.tv_sec = 0, .tv_nsec = 100000000};
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &step, NULL, 0);
    }
    return atomic_load(word);
}

/* A raw session's program `id` from `src`; its state by PROGRAM_STATUS
 * once the ring says a build ended (tsr_program_wait sleeps the same
 * way), which must be the one the build ended in. */
static uint32_t state_when_woken(int fd, tsr__ring *ring, uint32_t id, const char *src)
{
    char message[1100] = "";
    uint32_t seen = atomic_load(&ring->header.builds_ended);
    tsr__wire_program_create create = {.device = {TSR_DEVICE_OPENCL, 0},
                                       .source_bytes = strlen(src)};
    tsr__wire_program_source chunk = {.program = id, .length = (uint32_t)strlen(src)};
    memcpy(chunk.data, src, strlen(src));
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_CREATE, &create, sizeof create, message, sizeof message),
              TSR_OK);
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_SOURCE, &chunk, sizeof chunk, message, sizeof message),
              TSR_OK);
    ASSERT_EQ(builds_ended_after(ring, seen), seen + 1);
    tsr__wire_program q = {.program = id};
    ASSERT_EQ(raw_call(fd, TSR__OP_PROGRAM_STATUS, &q, sizeof q, message, sizeof message), TSR_OK);
    tsr__wire_program_status status;
    memcpy(&status, raw_frame.bytes, sizeof status);
    return status.state;
}

/* The daemon raises the session ring's builds_ended, waking its sleepers,
 * when a build ends, built or failed, and only then. */
static void check_build_wake(const test_daemon *d)
{
    int fd = test_raw_connect(d->socket), ring_fd = -1;
    ASSERT_EQ(test_raw_hello_ring(fd, NULL, 0, &ring_fd), 1);
    ASSERT_TRUE(ring_fd >= 0);
    tsr__ring *ring = mmap(NULL, sizeof *ring, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
    ASSERT_TRUE(ring != MAP_FAILED);
    if (ring == MAP_FAILED)
        return;
    ASSERT_EQ(atomic_load(&ring->header.builds_ended), 0u);
    char src[512];
    unique_source(src, sizeof src, "__kernel void k(__global int *p) { p[0] = 7; }\n");
    ASSERT_EQ(state_when_woken(fd, ring, 1, src), (uint32_t)TSR__WIRE_PROGRAM_BUILT);
    ASSERT_EQ(state_when_woken(fd, ring, 2, "__kernel void k(__global int *p) { p[0] = nope; }"),
              (uint32_t)TSR__WIRE_PROGRAM_BROKEN);
    ASSERT_EQ(atomic_load(&ring->header.builds_ended), 2u);
    munmap(ring, sizeof *ring);
    close(ring_fd);
    close(fd);
}

/* The uid of a process, from /proc; -1 when it is gone. */
static long proc_uid(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    long uid = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Uid: %ld", &uid) == 1)
            break;
    if (f)
        fclose(f);
    return uid;
}

/* The pid the daemon logged for the worker of `uid`, or -1. */
static long worker_pid(const test_daemon *d, unsigned uid)
{
    char want[96], line[1024];
    snprintf(want, sizeof want, "kernel worker of uid %u on opencl:0 started (pid ", uid);
    FILE *f = fopen(d->log, "r");
    long pid = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, want);
        if (at)
            pid = strtol(at + strlen(want), NULL, 10);
    }
    if (f)
        fclose(f);
    return pid;
}

/* How many descriptors of process `pid` are `link` (readlink of
 * /proc/PID/fd/N, e.g. "socket:[123]"), where link is not NULL, and open
 * the file of inode `ino`, where ino is not 0. */
static int fds_where(long pid, const char *link, unsigned long ino)
{
    char dir[64], path[600], got[128];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = link ? readlink(path, got, sizeof got - 1) : 0;
        struct stat st;
        if (len < 0 || (ino && (stat(path, &st) != 0 || (unsigned long)st.st_ino != ino)))
            continue;
        got[len] = '\0';
        n += !link || strcmp(got, link) == 0;
    }
    if (d)
        closedir(d);
    return n;
}

static int fds_to(long pid, const char *link)
{
    return fds_where(pid, link, 0);
}

/* The compilers of `worker` once they have exec'd (argv[1] "build"):
 * between its fork and its exec a child still holds what the worker
 * holds. Their pids go to pids (up to max); returns how many there are. */
static int compilers_of(long worker, long *pids, int max)
{
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        long pid = strtol(e->d_name, NULL, 10);
        char stat[600], line[512];
        snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
        FILE *f = pid > 0 ? fopen(stat, "r") : NULL;
        long ppid = -1;
        if (f && fgets(line, sizeof line, f)) {
            const char *end = strrchr(line, ')');
            if (end)
                sscanf(end + 1, " %*c %ld", &ppid);
        }
        if (f)
            fclose(f);
        char cmd[600], args[256] = "";
        snprintf(cmd, sizeof cmd, "/proc/%ld/cmdline", pid);
        FILE *cf = ppid == worker ? fopen(cmd, "r") : NULL;
        size_t got = cf ? fread(args, 1, sizeof args - 1, cf) : 0;
        if (cf)
            fclose(cf);
        size_t first = strnlen(args, got);
        if (first + 1 < got && strcmp(args + first + 1, "build") == 0 && n++ < max)
            pids[n - 1] = pid;
    }
    if (d)
        closedir(d);
    return n < max ? n : max;
}

/* The compilers of `worker`, waiting up to 10 s (a loaded machine) for
 * the one it keeps between builds. */
static int compilers_waited(long worker, long *pids, int max)
{
    int n = 0;
    for (int tries = 0; tries < 500 && !n; tries++)
        if (!(n = compilers_of(worker, pids, max)))
            usleep(20000);
    return n;
}

/* The worker's socket to the daemon is its fd 3 and nothing else's: not
 * a second descriptor of the worker's (the daemon's fork left one above
 * 10 open across exec), nor one of its compilers' (which run the user's
 * source), the one it keeps between builds included. */
static void check_worker_socket(long worker)
{
    char path[64], link[128];
    snprintf(path, sizeof path, "/proc/%ld/fd/3", worker);
    ssize_t len = readlink(path, link, sizeof link - 1);
    ASSERT_TRUE(len > 0);
    if (len <= 0)
        return;
    link[len] = '\0';
    ASSERT_TRUE(strncmp(link, "socket:", 7) == 0);
    ASSERT_EQ(fds_to(worker, link), 1);
    long pids[8];
    int compilers = compilers_waited(worker, pids, 8);
    ASSERT_TRUE(compilers > 0); /* the compiler it keeps */
    for (int k = 0; k < compilers; k++)
        ASSERT_EQ(fds_to(pids[k], link), 0);
}

/* The address space process `pid` maps, in bytes (0: gone). */
static uint64_t mapped_bytes(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/statm", pid);
    FILE *f = fopen(path, "r");
    unsigned long long pages = 0;
    if (f && fscanf(f, "%llu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Whether process `pid` has ended, all its threads (its parent can
 * reap it): gone, or a zombie with no thread left but its first (whose
 * zombie shows while the others still end). */
static bool proc_ended(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    bool zombie = false, alone = false;
    while (fgets(line, sizeof line, f)) {
        zombie |= strncmp(line, "State:\tZ", 8) == 0;
        alone |= strcmp(line, "Threads:\t1\n") == 0;
    }
    fclose(f);
    return zombie && alone;
}

/* The worker's compiler serves one build after another, a failed one
 * among them; one that died while it waited for a job (killed from
 * outside) is replaced at the next build, which succeeds. */
static void check_compiler_reuse(const test_daemon *d, tsr_client *c)
{
    long worker = worker_pid(d, (unsigned)getuid());
    long first[8], then[8];
    char src[512];
    unique_code(src, sizeof src, "__kernel void twice(__global int *p) { p[0] *= 2; }\n");
    tsr_program *p = build(c, src);
    ASSERT_TRUE(p != NULL);
    tsr_program_release(p);
    ASSERT_EQ(compilers_waited(worker, first, 8), 1);
    check_build_error(c);
    unique_source(src, sizeof src, "__kernel void thrice(__global int *p) { p[0] *= 3; }\n");
    p = build(c, src);
    ASSERT_TRUE(p != NULL);
    tsr_program_release(p);
    ASSERT_EQ(compilers_of(worker, then, 8), 1);
    ASSERT_EQ(then[0], first[0]);

    ASSERT_EQ(kill((pid_t)first[0], SIGKILL), 0);
    /* (A build that comes while it is still ending fails, as it would
     * with a compiler killed during the build.) */
    for (int k = 0; k < 500 && !proc_ended(first[0]); k++)
        usleep(10000);
    ASSERT_TRUE(proc_ended(first[0]));
    unique_source(src, sizeof src, "__kernel void quad(__global float *p) { p[0] *= 4.0f; }\n");
    p = build(c, src);
    ASSERT_TRUE(p != NULL);
    if (!p)
        fprintf(stderr, "after the compiler was killed: %s\n", tsr_last_error());
    tsr_kernel *k = NULL;
    float four[1] = {2.0f}, got[1] = {0};
    tsr_tensor *t = floats(c, 1, four);
    ASSERT_TRUE(t != NULL);
    if (p && t) {
        ASSERT_OK(tsr_kernel_create(p, "quad", &k));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, t));
        size_t global[1] = {1};
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
        ASSERT_OK(tsr_tensor_copy_to_host(t, got, sizeof got));
        ASSERT_EQ(got[0], 8.0f);
    }
    tsr_kernel_release(k);
    tsr_tensor_release(t);
    tsr_program_release(p);
    ASSERT_EQ(compilers_waited(worker, then, 8), 1);
    ASSERT_TRUE(then[0] != first[0]);
}

/* What `tessera ps`, `stats` and `info` tell of user kernels (the
 * administration messages): session c holds program p, the only one, on
 * opencl:0; the other session none; uid's worker runs there. */
static void check_reporting(const test_daemon *d, tsr_client *c)
{
    uint32_t mine = 0, theirs = 0;
    tsr_process_info info, other_info = {0};
    bool found = true;
    for (uint32_t after = 0; found; after = info.session_id) {
        ASSERT_OK(tsr_admin_session_list(c, after, &info, &found));
        if (!found)
            break;
        if (info.self) {
            mine = info.session_id;
            ASSERT_EQ(info.programs, 1u);
            ASSERT_EQ(info.max_programs, 64u);                   /* the default */
            ASSERT_EQ(info.max_source_bytes, (uint64_t)1 << 20); /* 1MiB */
            ASSERT_EQ(info.build_memory, (uint64_t)8 << 30);     /* 8GiB */
            ASSERT_EQ(info.build_time_limit_ms, 60000u);
            ASSERT_EQ(info.run_time_limit_ms, 8000u); /* as set */
        } else {
            theirs = info.session_id;
            other_info = info;
        }
    }
    ASSERT_TRUE(mine != 0 && theirs != 0);
    ASSERT_EQ(other_info.programs, 0u);
    ASSERT_EQ(other_info.max_programs, 64u);

    long pid = worker_pid(d, (unsigned)getuid());
    ASSERT_TRUE(pid > 0);
    tsr_allocator_stats st;
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    ASSERT_EQ(st.programs, 1u);
    ASSERT_TRUE(st.worker_running && st.worker_pid_known);
    ASSERT_EQ((long)st.worker_pid, pid);
    ASSERT_OK(tsr_admin_session_stats(c, theirs, DEV, &st));
    ASSERT_EQ(st.programs, 0u);
    ASSERT_TRUE(st.worker_running); /* the same uid's worker */
    ASSERT_EQ((long)st.worker_pid, pid);
    tsr_device_status ds;
    ASSERT_OK(tsr_admin_device_status(c, DEV, &ds));
    ASSERT_EQ(ds.kernel_workers, 1u);
    ASSERT_EQ(ds.user_programs, 1u);

    /* The same through the command's columns. */
    char out[8192], want[128], sid[16];
    const char *ps[] = {"ps",
                        "--csv",
                        "--no-header",
                        "-q",
                        "session,programs,max_programs,max_source_bytes,build_memory,"
                        "build_time_limit_ms,run_time_limit_ms",
                        NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    snprintf(want, sizeof want, "%u,1,64,1048576,8589934592,60000,8000\n", mine);
    ASSERT_TRUE(strstr(out, want) != NULL);
    snprintf(want, sizeof want, "%u,0,64,1048576,8589934592,60000,8000\n", theirs);
    ASSERT_TRUE(strstr(out, want) != NULL);
    const char *psj[] = {"ps", "--json", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, psj), 0);
    ASSERT_TRUE(strstr(out, "\"programs\": 1, \"max_programs\": 64, \"max_source_bytes\": "
                            "1048576, \"build_memory\": 8589934592, \"build_time_limit_ms\": "
                            "60000, \"run_time_limit_ms\": 8000}") != NULL);
    snprintf(sid, sizeof sid, "%u", mine);
    const char *stats[] = {"stats", sid, "--device", "opencl:0", "--json", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, stats), 0);
    snprintf(want, sizeof want, "\"programs\": 1, \"worker\": true, \"worker_pid\": %ld}", pid);
    ASSERT_TRUE(strstr(out, want) != NULL);
    const char *devs[] = {
        "devices", "--csv", "--no-header", "-q", "device,kernel_workers,user_programs", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, devs), 0);
    ASSERT_TRUE(strstr(out, "opencl:0,1,1\n") != NULL);
}

/* SPIR-V: on a device whose driver reports no cl_khr_il_program (PoCL's
 * CPU device), a clear refusal naming the extension; where it does, a
 * module that is not whole words is refused. */
static void check_spirv(tsr_client *c)
{
    /* A SPIR-V header: magic, version 1.0, generator, bound, schema. */
    static const uint32_t header[5] = {0x07230203u, 0x00010000u, 0, 1, 0};
    tsr_program *p = NULL;
    tsr_status st = tsr_program_create_spirv(c, DEV, header, sizeof header, NULL, &p);
    if (st == TSR_ERR_NOT_SUPPORTED) {
        ASSERT_STREQ(tsr_last_error(), "opencl:0 cannot build SPIR-V programs: its driver does "
                                       "not report the cl_khr_il_program extension");
        ASSERT_TRUE(p == NULL);
        return;
    }
    ASSERT_OK(st);
    tsr_program_release(p);
    ASSERT_FAIL(tsr_program_create_spirv(c, DEV, header, 18, NULL, &p), TSR_ERR_INVALID_ARGUMENT,
                "a SPIR-V module is a whole number of 4-byte words, at least its 5-word header, "
                "not 18 bytes");
}

/* The second user: runs a kernel (exit 0 when its result is right),
 * waits for the parent's word, then runs one that crashes its worker
 * (exit 0 when the synchronize reports it). */
static int nobody(int ready_fd, int go_fd)
{
    if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
        return 10;
    tsr_client *c = NULL;
    tsr_program *p = NULL, *bad = NULL;
    tsr_kernel *k = NULL, *kb = NULL;
    char src[4096];
    unique_source(src, sizeof src, REDUCE_SRC);
    if (tsr_client_open(NULL, &c) != TSR_OK || !(p = build(c, src)) ||
        tsr_kernel_create(p, "iota", &k) != TSR_OK)
        return 11;
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_INT32, .has_device = true, .device = DEV};
    int64_t sizes[1] = {64};
    tsr_tensor *t = NULL;
    int32_t got[64];
    size_t global[1] = {64};
    if (tsr_tensor_zeros(c, 1, sizes, &o, &t) != TSR_OK ||
        tsr_kernel_set_arg_tensor(k, 0, t) != TSR_OK || tsr_kernel_launch(k, 1, global, NULL) ||
        tsr_tensor_copy_to_host(t, got, sizeof got) != TSR_OK || got[63] != 63)
        return 12;
    char byte = 1;
    if (write(ready_fd, &byte, 1) != 1 || read(go_fd, &byte, 1) != 1)
        return 13;
    if (!(bad = build(c, "__kernel void bad(__global int *p) { p[(1L << 40)] = 1; }")) ||
        tsr_kernel_create(bad, "bad", &kb) != TSR_OK || tsr_kernel_set_arg_tensor(kb, 0, t) ||
        tsr_kernel_launch(kb, 1, global, NULL) != TSR_OK)
        return 14;
    if (tsr_synchronize(c, DEV) != TSR_ERR_DEVICE ||
        !strstr(tsr_last_error(), "the kernel worker of uid 65534 on opencl:0 ended: "))
        return 15;
    return 0;
}

static void check_two_users(test_daemon *d, tsr_client *c)
{
    if (geteuid() != 0) {
        printf("two users: skipped (needs root to become a second user)\n");
        return;
    }
    ASSERT_EQ(chmod(d->dir, 0711), 0);
    /* root's own worker, and a tensor it wrote. */
    tsr_program *p = build(c, REDUCE_SRC);
    ASSERT_TRUE(p != NULL);
    check_offset(c, p);
    long root_worker = worker_pid(d, 0);
    ASSERT_TRUE(root_worker > 0);
    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(nobody(ready[1], go[0]));
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    long other = worker_pid(d, NOBODY);
    ASSERT_TRUE(other > 0 && other != root_worker);
    ASSERT_EQ(proc_uid(other), NOBODY);
    ASSERT_EQ(proc_uid(root_worker), 0);
    check_worker_socket(other);
    ASSERT_EQ(write(go[1], &byte, 1), 1);
    int status = -1;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    /* Root's worker is the same process, and runs on. */
    ASSERT_EQ(worker_pid(d, 0), root_worker);
    ASSERT_EQ(proc_uid(root_worker), 0);
    check_offset(c, p);
    /* Its last program gone, root's worker stops. */
    const char *stopped = "kernel worker of uid 0 on opencl:0 stopped: no programs left";
    int stops = test_daemon_log_count(d, stopped);
    tsr_program_release(p);
    for (int k = 0; k < 100 && test_daemon_log_count(d, stopped) == stops; k++)
        usleep(50000); /* kernels.worker_idle_ms is 200 here */
    ASSERT_EQ(test_daemon_log_count(d, stopped), stops + 1);
    ASSERT_EQ(proc_uid(root_worker), -1);
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
}

/* How many descriptors of `pid` are `link`, once they are `most` or
 * fewer (the worker reads FORGET on its own time), or after 2 s. */
static int fds_settled(long pid, const char *link, int most)
{
    int n = fds_to(pid, link);
    for (int wait = 0; wait < 200 && n > most; wait++) {
        usleep(10000);
        n = fds_to(pid, link);
    }
    return n;
}

/* The inode of the file mapped at addr in this process (a segment's
 * memfd), 0 if none is. */
static unsigned long mapped_inode(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long ino = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi, off, inode;
        char perms[8], dev[16];
        if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &lo, &hi, perms, &off, dev, &inode) == 6 &&
            (uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
            ino = inode;
            break;
        }
    }
    if (f)
        fclose(f);
    return ino;
}

/* The session's statistics on DEV once at most `live` of its blocks are
 * (a free waits in the daemon until it has read the worker's answer for
 * the kernels before it, which a synchronize does not wait for). */
static tsr_allocator_stats stats_settled(tsr_client *c, uint64_t live)
{
    tsr_allocator_stats st = {0};
    for (int wait = 0; wait < 200; wait++) {
        ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
        if (st.live_blocks <= live)
            break;
        usleep(10000);
    }
    return st;
}

/* The worker lets go of a segment the daemon released, and of an ended
 * session's segments and ring (FORGET, daemon/worker_wire.h): it keeps
 * neither their descriptors nor their mappings, through which a kernel
 * could fill their punched-out pages again. */
static void check_forget(const test_daemon *d, tsr_client *c, tsr_program *p)
{
    enum { N = 256, T = 4 };
    const char *seg = "/memfd:tessera-segment (deleted)", *ring = "/memfd:tessera-ring (deleted)";
    long pid = worker_pid(d, (unsigned)getuid());
    ASSERT_TRUE(pid > 0);
    tsr_allocator_stats st = stats_settled(c, UINT64_MAX);
    ASSERT_OK(tsr_memory_empty_cache(c, DEV, NULL));
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    uint64_t live = st.live_blocks, segments = st.segments;
    int before = fds_settled(pid, seg, (int)segments), rings = fds_settled(pid, ring, 1);
    ASSERT_TRUE(before <= (int)segments && rings == 1); /* c's ring */

    const int64_t big[1] = {(12 << 20) / 4}; /* a segment each */
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = DEV};
    tsr_tensor *t[T], *x = floats(c, N, NULL);
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_kernel_create(p, "scale", &k));
    size_t global[1] = {N};
    float one = 1.0f;
    for (int j = 0; j < T; j++) {
        t[j] = NULL;
        ASSERT_OK(tsr_tensor_empty(c, 1, big, &o, &t[j]));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, t[j]));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, x));
        ASSERT_OK(tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &one));
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    }
    ASSERT_OK(tsr_synchronize(c, DEV));
    /* The worker holds each of their segments (by inode: a count against
     * `before` would race with FORGETs still on their way for segments
     * released above). */
    for (int j = 0; j < T; j++) {
        void *at = NULL;
        ASSERT_OK(tsr_tensor_data_ptr(t[j], &at));
        unsigned long ino = mapped_inode(at);
        ASSERT_TRUE(ino != 0 && fds_where(pid, NULL, ino) > 0);
    }
    for (int j = 0; j < T; j++)
        tsr_tensor_release(t[j]);
    stats_settled(c, live + 2);                      /* x, and t[T - 1], which k's argument holds */
    ASSERT_OK(tsr_memory_empty_cache(c, DEV, NULL)); /* three segments released */
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    ASSERT_TRUE(st.segments <= segments + 2);
    ASSERT_TRUE(fds_settled(pid, seg, (int)st.segments) <= (int)st.segments);

    /* A session of its own, ended: its segments and its ring go. */
    tsr_client *third = NULL;
    ASSERT_OK(tsr_client_open(NULL, &third));
    tsr_program *q = build(third, REDUCE_SRC);
    tsr_tensor *y = floats(third, N, NULL), *z = floats(third, N, NULL);
    tsr_kernel *kq = NULL;
    ASSERT_TRUE(q && y && z);
    ASSERT_OK(tsr_kernel_create(q, "scale", &kq));
    ASSERT_OK(tsr_kernel_set_arg_tensor(kq, 0, y));
    ASSERT_OK(tsr_kernel_set_arg_tensor(kq, 1, z));
    ASSERT_OK(tsr_kernel_set_arg_scalar(kq, 2, TSR_FLOAT32, &one));
    ASSERT_OK(tsr_kernel_launch(kq, 1, global, NULL));
    ASSERT_OK(tsr_synchronize(third, DEV));
    ASSERT_EQ(fds_to(pid, ring), 2);
    ASSERT_TRUE(fds_to(pid, seg) > (int)st.segments);
    tsr_kernel_release(kq);
    tsr_tensor_release(y);
    tsr_tensor_release(z);
    tsr_program_release(q);
    tsr_client_close(third);
    ASSERT_EQ(fds_settled(pid, ring, 1), 1);
    ASSERT_TRUE(fds_settled(pid, seg, (int)st.segments) <= (int)st.segments);
    tsr_kernel_release(k);
    tsr_tensor_release(x);
}

/* A tensor freed while a kernel still runs on it, then the cache emptied
 * at once: the daemon frees the block when the kernel is done, and
 * releases its segment then (tsr__memory_empty_cache), as it would have
 * had the kernel ended first. */
static void check_empty_behind(tsr_client *c)
{
    tsr_program *p = build(c, "__kernel void slow(__global float *p, uint n) {\n"
                              "    float a = p[0];\n"
                              "    for (uint i = 0; i < n; i++)\n"
                              "        a = a * 0.999999f + 1.0f;\n"
                              "    p[0] = a;\n"
                              "}\n");
    ASSERT_TRUE(p != NULL);
    if (!p)
        return;
    ASSERT_OK(tsr_memory_empty_cache(c, DEV, NULL));
    tsr_allocator_stats st;
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    uint64_t segments = st.segments;
    const int64_t big[1] = {(12 << 20) / 4}; /* a segment of its own */
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = DEV};
    tsr_tensor *t = NULL;
    tsr_kernel *k = NULL;
    ASSERT_OK(tsr_tensor_zeros(c, 1, big, &o, &t));
    ASSERT_OK(tsr_kernel_create(p, "slow", &k));
    uint32_t n = 400000000u; /* about a second of dependent steps */
    size_t global[1] = {1};
    ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, t));
    ASSERT_OK(tsr_kernel_set_arg_scalar(k, 1, TSR_UINT32, &n));
    ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
    tsr_kernel_release(k);
    tsr_tensor_release(t);
    ASSERT_OK(tsr_memory_empty_cache(c, DEV, NULL));
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    ASSERT_EQ(st.segments, segments + 1); /* the kernel still runs */
    ASSERT_OK(tsr_synchronize(c, DEV));
    for (int wait = 0; wait < 200 && st.segments > segments; wait++) {
        usleep(10000);
        ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &st));
    }
    ASSERT_EQ(st.segments, segments);
    tsr_program_release(p);
}

int main(void)
{
    test_daemon d;
    /* A kernel's first launch includes the driver's code generation for
     * it (PoCL's), seconds on a loaded machine: the limit leaves room. */
    const char *args[] = {"--set", "kernels.run_time_limit_ms=8000", "--set", "socket.mode=0666",
                          "--set", "kernels.worker_idle_ms=200",     NULL};
    if (test_daemon_start(&d, args) != 0)
        return 1;
    tsr_client *c = NULL, *other = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_OK(tsr_client_open(NULL, &other));
    if (!c || !other)
        return 1;
    int32_t n = 0;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    if (n < 1)
        TEST_SKIP("no OpenCL device");

    tsr_program *p = build(c, REDUCE_SRC);
    ASSERT_TRUE(p != NULL);
    if (!p) {
        test_daemon_dump_log(&d);
        TEST_DONE();
    }
    check_reporting(&d, c);
    /* What the worker's compiler maps between builds: the driver,
     * started, and what its builds left (more than a fresh compiler maps
     * before its first job). A source of its own: a build from the disk
     * cache starts none. */
    char own[2048];
    unique_source(own, sizeof own, REDUCE_SRC);
    tsr_program_release(build(c, own));
    /* The newest compiler (one, unless another ended and is not reaped
     * yet): one that is gone before it settles is looked for again. */
    uint64_t driver_maps = 0;
    for (int round = 0; round < 10 && driver_maps == 0; round++) {
        long pids[8], spare = -1;
        int ncomp = compilers_waited(worker_pid(&d, (unsigned)getuid()), pids, 8);
        for (int k = 0; k < ncomp; k++)
            if (pids[k] > spare && mapped_bytes(pids[k]) > 0)
                spare = pids[k];
        if (spare <= 0) {
            usleep(100000);
            continue;
        }
        driver_maps = mapped_bytes(spare);
        /* settled once it has kept its size for half a second */
        for (int k = 0, same = 0; k < 400 && same < 10 && driver_maps > 0; k++) {
            usleep(50000);
            uint64_t now = mapped_bytes(spare);
            same = now == driver_maps ? same + 1 : 0;
            driver_maps = now;
        }
    }
    ASSERT_TRUE(driver_maps > 0);
    check_spirv(c);
    check_reduction(c, p);
    check_offset(c, p);
    check_order(c, p);
    check_failed_in_order(c);
    check_reuse(c, p);
    check_arg_holds(c, p);
    check_slots(c, p);
    check_forget(&d, c, p);
    check_empty_behind(c);
    check_refused_launch(c, p);
    check_two_sessions(c, other);
    check_many_sessions();
    check_build_error(c);
    check_compiler_reuse(&d, c);
    check_cache(&d, c);
    check_one_source(&d);
    check_raw_launch(&d);
    check_build_wake(&d);
    tsr_program_release(p);

    check_contained(&d, c, other,
                    "__kernel void bad(__global float *p) { p[(1L << 40) + get_global_id(0)] = 1; "
                    "p[-(1L << 41)] = 2; }");
    check_contained(&d, c, other,
                    "__kernel void bad(__global float *p) {\n"
                    "    __global float *g = (__global float *)(0x10UL + (ulong)p[0]);\n"
                    "    g[0] = 3;\n"
                    "}");
    check_contained(&d, c, other,
                    "__kernel void bad(__global float *p) {\n"
                    "    volatile __global float *v = p;\n"
                    "    while (v[0] != 12345.0f) { v[1] = v[1] + 1.0f; }\n"
                    "}");
    check_two_users(&d, c);
    ASSERT_TRUE(test_daemon_log_count(&d, " on opencl:0 ended: a kernel "
                                          "ran past its time limit (kernels.run_time_limit_ms, "
                                          "8000 ms)") >= 1);
    tsr_client_close(other);
    tsr_client_close(c);
    int rc = test_daemon_stop(&d);
    ASSERT_EQ(rc, 0);

    /* A compiler over its time limit, and user kernels turned off. */
    const char *tight[] = {"--set", "kernels.build_time_limit_ms=1", NULL};
    if (test_daemon_start(&d, tight) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_program *slow = NULL;
    char fresh[2048];
    unique_source(fresh, sizeof fresh, REDUCE_SRC);
    ASSERT_OK(tsr_program_create(c, DEV, fresh, NULL, &slow));
    ASSERT_FAIL(tsr_program_wait(slow), TSR_ERR_LIMIT,
                "the program did not build: the kernel compiler ran past its time limit "
                "(kernels.build_time_limit_ms, 1 ms) and was stopped");
    tsr_program_release(slow);
    tsr_tensor *t = floats(c, 4, NULL);
    ASSERT_TRUE(t != NULL);
    tsr_tensor_release(t);
    ASSERT_TRUE(test_daemon_alive(&d));
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);

#if !defined(__SANITIZE_ADDRESS__) /* a sanitized compiler has no memory limit */
    /* kernels.build_memory counts from what the compiler maps as the
     * build starts (a GPU's driver maps as much as the device has memory):
     * what a compiler that has built maps is enough for a fresh
     * compiler's first build, although it is less than all that build
     * maps (PoCL's here: about 380 MiB at its start, 375 MiB more for the
     * build, 490 MiB after it). */
    char room[64];
    snprintf(room, sizeof room, "kernels.build_memory=%lluKiB",
             (unsigned long long)(driver_maps / 1024));
    const char *roomy[] = {"--set", room, NULL};
    if (test_daemon_start(&d, roomy) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c));
    unique_code(fresh, sizeof fresh, REDUCE_SRC);
    slow = build(c, fresh);
    ASSERT_TRUE(slow != NULL);
    if (!slow)
        fprintf(stderr, "with %s: %s\n", room, tsr_last_error());
    tsr_program_release(slow);
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);

    /* A compiler short of memory crashes, or cannot even start: a build
     * error that says so, and the daemon goes on. Where the build itself
     * fits (PoCL's cache serves this source, built above) and only the
     * binary's code generation does not, the program is built and its
     * launches fail, saying so. */
    const char *small[] = {"--set", "kernels.build_memory=32MiB", NULL};
    if (test_daemon_start(&d, small) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c));
    unique_source(fresh, sizeof fresh, REDUCE_SRC);
    ASSERT_OK(tsr_program_create(c, DEV, fresh, NULL, &slow));
    tsr_status built = tsr_program_wait(slow);
    if (built == TSR_OK) {
        tsr_tensor *in = floats(c, 4, NULL), *out = floats(c, 4, NULL);
        tsr_kernel *k = NULL;
        float two = 2.0f;
        size_t global[1] = {4};
        ASSERT_TRUE(in != NULL && out != NULL);
        ASSERT_OK(tsr_kernel_create(slow, "scale", &k));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 0, out));
        ASSERT_OK(tsr_kernel_set_arg_tensor(k, 1, in));
        ASSERT_OK(tsr_kernel_set_arg_scalar(k, 2, TSR_FLOAT32, &two));
        ASSERT_OK(tsr_kernel_launch(k, 1, global, NULL));
        ASSERT_EQ(tsr_synchronize(c, DEV), TSR_ERR_DEVICE);
        ASSERT_TRUE(strstr(tsr_last_error(), "the kernel compiler ") != NULL);
        if (!strstr(tsr_last_error(), "the kernel compiler "))
            fprintf(stderr, "the launch: %s\n", tsr_last_error());
        ASSERT_EQ(test_daemon_log_count(&d, "could not be loaded: the kernel compiler "), 1);
        fprintf(stderr, "with 32 MiB: built, its binary not made\n");
        tsr_kernel_release(k);
        tsr_tensor_release(in);
        tsr_tensor_release(out);
    } else {
        ASSERT_EQ(built, TSR_ERR_DEVICE);
        ASSERT_TRUE(strncmp(tsr_last_error(), "the program did not build: the kernel compiler ",
                            strlen("the program did not build: the kernel compiler ")) == 0);
    }
    tsr_program_release(slow);
    t = floats(c, 4, NULL);
    ASSERT_TRUE(t != NULL);
    tsr_tensor_release(t);
    ASSERT_TRUE(test_daemon_alive(&d));
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
#endif

    const char *off[] = {"--set", "kernels.user=off", NULL};
    if (test_daemon_start(&d, off) != 0)
        return 1;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_FAIL(tsr_program_create(c, DEV, REDUCE_SRC, NULL, &slow), TSR_ERR_NOT_SUPPORTED,
                "user kernels are turned off on this daemon (kernels.user = off)");
    tsr_allocator_stats none;
    ASSERT_OK(tsr_admin_session_stats(c, 0, DEV, &none));
    ASSERT_TRUE(none.programs == 0 && !none.worker_running && none.worker_pid == 0);
    tsr_process_info self;
    bool listed;
    ASSERT_OK(tsr_admin_session_list(c, 0, &self, &listed));
    ASSERT_TRUE(listed && self.self);
    ASSERT_EQ(self.max_programs, 0u); /* kernels.user = off */
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
