/* The kernels suite: user kernels (tessera/kernel.h) on opencl:0 against
 * the built-in operations of the same run.
 *
 *   user_saxpy      y = a * x + y over 2^26 float32 (2^22 with --quick), a
 *                   kernel of the suite's own, in GB/s (12 bytes an
 *                   element), beside add_f32, the built-in y += x over the
 *                   same tensors, sampled in pairs; target 0.95.
 *   user_latency    a 1-element user kernel's launch and its synchronize,
 *                   beside small_op_latency, a 1-element built-in add_ and
 *                   its synchronize, in turns; target 1 / 1.2.
 *   program_cached  from tsr_program_create to built for a program another
 *                   process built before (the disk cache), in a process of
 *                   its own; against a limit of 5 ms.
 *   program_build   from tsr_program_create to built for a source nobody
 *                   built before (compiled, in the worker's compiler
 *                   child), beside bare_build, clCreateProgramWithSource
 *                   and clBuildProgram of the same kernels (a source of
 *                   its own, so neither finds a cache) on a context the
 *                   bench keeps from one build to the next, in turns;
 *                   target 1 / 1.1.
 *
 * A user kernel runs in a worker process of the caller's uid, so its
 * launch travels one more hop than a built-in one (daemon/user.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "bench/elementwise.h"
#include "tessera/tessera.h"

static const char *const suite = "kernels";

#define SAXPY_TARGET 0.95
#define LATENCY_TARGET (1.0 / 1.2)
#define CACHED_LIMIT_MS 5.0
#define BUILD_TARGET (1.0 / 1.1)

static const char *SOURCE =
    "__kernel void saxpy(__global float *y, __global const float *x, float a) {\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void one(__global float *y) { y[0] += 1.0f; }\n";

typedef struct kn_plan {
    int log2_n, rounds, reps;
    size_t lat_warmup, lat_n;
    int lat_rounds, cached_reps, build_pairs;
} kn_plan;

static const kn_plan full_plan = {.log2_n = 26,
                                  .rounds = 8,
                                  .reps = 2,
                                  .lat_warmup = 200,
                                  .lat_n = 1000,
                                  .lat_rounds = 5,
                                  .cached_reps = 5,
                                  .build_pairs = 5};
static const kn_plan quick_plan = {.log2_n = 22,
                                   .rounds = 3,
                                   .reps = 2,
                                   .lat_warmup = 20,
                                   .lat_n = 100,
                                   .lat_rounds = 2,
                                   .cached_reps = 2,
                                   .build_pairs = 2};

typedef struct kn_state {
    tsr_client *client;
    tsr_device device;
    tsr_tensor *x, *y, *small;
    tsr_kernel *saxpy, *one;
} kn_state;

static bool sync_ok(kn_state *s)
{
    return tsr_synchronize(s->client, s->device) == TSR_OK;
}

/* `reps` launches of one side and their wait, in ns. */
static bool time_side(kn_state *s, bool user, int reps, double *ns)
{
    size_t global[1] = {(size_t)tsr_tensor_numel(s->y)};
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++) {
        tsr_status st = user ? tsr_kernel_launch(s->saxpy, 1, global, NULL)
                             : tsr_add_(s->y, s->x, tsr_scalar_int(1));
        if (st != TSR_OK)
            return false;
    }
    if (!sync_ok(s))
        return false;
    *ns = (double)(bench_now_ns() - t0) / reps;
    return true;
}

static void measure_saxpy(kn_state *s, const kn_plan *plan, const char *dev, bench_results *out)
{
    double bytes = 12.0 * (double)tsr_tensor_numel(s->y);
    bench_pairs pairs = {0};
    bool ok = true;
    double warm;
    ok = time_side(s, true, 1, &warm) && time_side(s, false, 1, &warm);
    for (int r = 0; ok && r < plan->rounds; r++) {
        double user_ns, add_ns;
        ok = time_side(s, true, plan->reps, &user_ns) && time_side(s, false, plan->reps, &add_ns);
        if (ok)
            bench_pairs_add(&pairs, bytes / user_ns, bytes / add_ns);
    }
    if (!ok)
        bench_note(suite, "user_saxpy failed: %s", tsr_last_error());
    bench_paired p = bench_pairs_finish(&pairs, ok);
    if (!p.ok)
        return;
    bench_row row = {.suite = suite,
                     .threads = 1,
                     .value = p.value,
                     .p99 = NAN,
                     .unit = BENCH_GBPS,
                     .baseline_value = p.reference,
                     .baseline_p99 = NAN,
                     .target = SAXPY_TARGET,
                     .paired_ratio = p.paired};
    bench_add_named(out, row, "user_saxpy", dev, "add_f32");
}

typedef struct small_call {
    kn_state *s;
    bool user;
} small_call;

static bool small_op(void *arg)
{
    small_call *c = arg;
    size_t global[1] = {1};
    tsr_status st = c->user ? tsr_kernel_launch(c->s->one, 1, global, NULL)
                            : tsr_add_(c->s->small, c->s->small, tsr_scalar_int(1));
    return st == TSR_OK && sync_ok(c->s);
}

static void measure_latency(kn_state *s, const kn_plan *plan, const char *dev, bench_results *out)
{
    bench_samples user = {0}, builtin = {0}, ratios = {0};
    small_call u = {.s = s, .user = true}, b = {.s = s, .user = false};
    bool ok = true;
    for (int r = 0; ok && r < plan->lat_rounds; r++) {
        bench_samples ur = {0}, br = {0};
        ok = bench_time_ops(small_op, &u, plan->lat_warmup, plan->lat_n, &ur) == 0 &&
             bench_time_ops(small_op, &b, plan->lat_warmup, plan->lat_n, &br) == 0;
        if (ok)
            bench_samples_add(&ratios, bench_quantile(&br, 0.5) / bench_quantile(&ur, 0.5));
        for (size_t k = 0; k < ur.count; k++)
            bench_samples_add(&user, ur.v[k]);
        for (size_t k = 0; k < br.count; k++)
            bench_samples_add(&builtin, br.v[k]);
        bench_samples_free(&ur);
        bench_samples_free(&br);
    }
    if (!ok)
        bench_note(suite, "user_latency failed: %s", tsr_last_error());
    else {
        bench_row row = {.suite = suite,
                         .threads = 1,
                         .value = bench_quantile(&user, 0.5) / 1000.0,
                         .p99 = bench_quantile(&user, 0.99) / 1000.0,
                         .unit = BENCH_US,
                         .baseline_value = bench_quantile(&builtin, 0.5) / 1000.0,
                         .baseline_p99 = bench_quantile(&builtin, 0.99) / 1000.0,
                         .target = LATENCY_TARGET,
                         .paired_ratio = bench_quantile(&ratios, 0.5)};
        bench_add_named(out, row, "user_latency", dev, "small_op_latency");
    }
    bench_samples_free(&user);
    bench_samples_free(&builtin);
    bench_samples_free(&ratios);
}

/* In a child: a client of its own creates `source` and waits for it; the
 * time from create to built into *ms (shared memory). */
static int cached_child(const char *socket_path, tsr_device dev, const char *source, double *ms)
{
    tsr_client *c = NULL;
    tsr_client_options o = {.socket_path = socket_path, .name = "tessera-bench"};
    tsr_program *p = NULL;
    if (tsr_client_open(&o, &c) != TSR_OK)
        return 1;
    uint64_t t0 = bench_now_ns();
    int rc = tsr_program_create(c, dev, source, NULL, &p) == TSR_OK && tsr_program_wait(p) == TSR_OK
                 ? 0
                 : 2;
    *ms = (double)(bench_now_ns() - t0) / 1e6;
    tsr_program_release(p);
    tsr_client_close(c);
    return rc;
}

static void measure_cached(const char *socket_path, tsr_device dev, const kn_plan *plan,
                           const char *source, const char *dev_name, bench_results *out)
{
    double *ms = bench_shared_alloc(sizeof *ms);
    bench_samples samples = {0};
    for (int r = 0; r < plan->cached_reps; r++) {
        int pid = bench_fork();
        if (pid == 0)
            _exit(cached_child(socket_path, dev, source, ms));
        if (pid < 0 || bench_wait(pid) != 0) {
            bench_note(suite, "program_cached: the child failed");
            break;
        }
        bench_samples_add(&samples, *ms * 1e6);
    }
    if (samples.count == (size_t)plan->cached_reps) {
        bench_row row = {.suite = suite,
                         .threads = 1,
                         .value = bench_quantile(&samples, 0.5) / 1e6,
                         .p99 = NAN,
                         .unit = BENCH_MS,
                         .baseline_value = CACHED_LIMIT_MS,
                         .baseline_p99 = NAN,
                         .target = 1.0};
        bench_add_named(out, row, "program_cached", dev_name, "limit");
    }
    bench_samples_free(&samples);
    bench_shared_free(ms, sizeof *ms);
}

/* SOURCE after a kernel whose name no build before this one had: no
 * cache of the daemon's, its worker's or the driver's knows it. (A comment
 * would not do: PoCL keys its cache by the preprocessed source, so a
 * program that differs only in comments is served from it, in a tenth of
 * a real build's time.) */
static void unique_source(char *buf, size_t n, const char *side, int k)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(buf, n, "__kernel void stamp_%s_%d_%d_%lld_%09ld(__global int *a) { a[0] = 1; }\n%s",
             side, (int)getpid(), k + 1, (long long)now.tv_sec, now.tv_nsec, SOURCE);
}

static void measure_build(kn_state *s, const kn_plan *plan, const char *dev, bench_results *out)
{
    tsr_device_properties props;
    if (tsr_device_get_properties(s->client, s->device, &props) != TSR_OK) {
        bench_note(suite, "program_build: %s", tsr_last_error());
        return;
    }
    bench_samples tessera = {0}, bare = {0}, ratios = {0};
    bool ok = true;
    char source[1024];
    /* The first pair is not counted: the bench's first clBuildProgram
     * loads the driver's compiler into this process, once. */
    for (int k = -1; ok && k < plan->build_pairs; k++) {
        tsr_program *p = NULL;
        unique_source(source, sizeof source, "build", k);
        uint64_t t0 = bench_now_ns();
        ok = tsr_program_create(s->client, s->device, source, NULL, &p) == TSR_OK &&
             tsr_program_wait(p) == TSR_OK;
        double t_ms = (double)(bench_now_ns() - t0) / 1e6;
        if (!ok)
            bench_note(suite, "program_build failed: %s", tsr_last_error());
        tsr_program_release(p);
        double b_ms = 0;
        /* Each side alone: the worker starts its next compiler after a
         * build, which would otherwise share the processors with the bare
         * build. */
        usleep(500000);
        unique_source(source, sizeof source, "bare", k);
        ok = ok && bare_opencl_build(props.name, suite, source, &b_ms) == 0;
        if (ok && k >= 0) {
            bench_samples_add(&tessera, t_ms * 1e6);
            bench_samples_add(&bare, b_ms * 1e6);
            bench_samples_add(&ratios, b_ms / t_ms);
        }
    }
    bare_opencl_build_end();
    if (ok) {
        bench_row row = {.suite = suite,
                         .threads = 1,
                         .value = bench_quantile(&tessera, 0.5) / 1e6,
                         .p99 = NAN,
                         .unit = BENCH_MS,
                         .baseline_value = bench_quantile(&bare, 0.5) / 1e6,
                         .baseline_p99 = NAN,
                         .target = BUILD_TARGET,
                         .paired_ratio = bench_quantile(&ratios, 0.5)};
        bench_add_named(out, row, "program_build", dev, "bare_build");
    }
    bench_samples_free(&tessera);
    bench_samples_free(&bare);
    bench_samples_free(&ratios);
}

int bench_suite_kernels(const bench_config *config, bench_results *out)
{
    const kn_plan *plan = config->quick ? &quick_plan : &full_plan;
    bench_daemon d;
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(&d, suite) != 0)
            return 1;
        socket_path = d.socket;
    }
    kn_state s = {.device = {TSR_DEVICE_OPENCL, 0}};
    tsr_client_options co = {.socket_path = socket_path, .name = "tessera-bench"};
    tsr_program *p = NULL;
    int rc = 1;
    int32_t count = 0;
    char dev[TSR_DEVICE_STR_MAX];
    tsr_device_str(s.device, dev, sizeof dev);
    /* A source no earlier run built: the first build here compiles, the
     * children's come from the disk cache. */
    char source[1024];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(source, sizeof source, "/* tessera-bench %lld.%09ld */\n%s", (long long)now.tv_sec,
             now.tv_nsec, SOURCE);
    if (tsr_client_open(&co, &s.client) != TSR_OK) {
        bench_note(suite, "cannot connect: %s", tsr_last_error());
        goto out;
    }
    if (tsr_device_count(s.client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        bench_note(suite, "no OpenCL device: nothing measured");
        rc = 0;
        goto out;
    }
    int64_t n = (int64_t)1 << plan->log2_n, one = 1;
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = s.device};
    float a = 0.5f;
    if (tsr_tensor_full(s.client, 1, &n, tsr_scalar_int(1), &o, &s.x) != TSR_OK ||
        tsr_tensor_full(s.client, 1, &n, tsr_scalar_int(2), &o, &s.y) != TSR_OK ||
        tsr_tensor_full(s.client, 1, &one, tsr_scalar_int(0), &o, &s.small) != TSR_OK ||
        tsr_program_create(s.client, s.device, source, NULL, &p) != TSR_OK ||
        tsr_program_wait(p) != TSR_OK || tsr_kernel_create(p, "saxpy", &s.saxpy) != TSR_OK ||
        tsr_kernel_create(p, "one", &s.one) != TSR_OK ||
        tsr_kernel_set_arg_tensor(s.saxpy, 0, s.y) != TSR_OK ||
        tsr_kernel_set_arg_tensor(s.saxpy, 1, s.x) != TSR_OK ||
        tsr_kernel_set_arg_scalar(s.saxpy, 2, TSR_FLOAT32, &a) != TSR_OK ||
        tsr_kernel_set_arg_tensor(s.one, 0, s.small) != TSR_OK) {
        bench_note(suite, "cannot set up: %s", tsr_last_error());
        goto out;
    }
    bench_note(suite, "user_saxpy and add_f32 over %lld float32 on %s", (long long)n, dev);
    measure_saxpy(&s, plan, dev, out);
    measure_latency(&s, plan, dev, out);
    measure_cached(socket_path, s.device, plan, source, dev, out);
    measure_build(&s, plan, dev, out);
    rc = 0;
out:
    tsr_kernel_release(s.saxpy);
    tsr_kernel_release(s.one);
    tsr_program_release(p);
    tsr_tensor_release(s.x);
    tsr_tensor_release(s.y);
    tsr_tensor_release(s.small);
    tsr_client_close(s.client);
    if (!config->socket_path)
        bench_daemon_stop(&d);
    return rc;
}
