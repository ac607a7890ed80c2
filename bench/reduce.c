/* tessera-bench, the reduce suite: Tessera's reductions on the cpu device
 * against a plain read of the same bytes and against PyTorch 1.13.
 *
 * Each case reduces 2^26 float32 (a flat tensor, or 8192x8192 along one
 * dim) into a preallocated output (PyTorch's out=), in this process, and
 * reports GB/s of input read (the outputs are at most 32 KiB). Its
 * baseline `stream_read` is elementwise_bare.c's STREAM-style read: a sum
 * of as many float32 in 8 vector accumulators, built at -O3, on the suite's
 * threads. Each sample of the reduction is followed by one of the read,
 * and the row's ratio is the median of the pairs' ratios. PyTorch then
 * runs the same reductions in the shared child Python
 * (elementwise_torch.c), each sample again followed by a read here:
 * Tessera against PyTorch is the ratio of both sides' paired ratios to
 * the read.
 *
 * The data are uniform in [0, 1) on both sides (not the same values: the
 * time of these reductions does not depend on them), so that amax and
 * argmax meet a new maximum now and then, as on real data. softmax_f32
 * (along the last dim of a (side/2) x (side/2) matrix, a quarter of the
 * bytes: GB/s of its input) makes its result each time on both sides
 * (torch.softmax has no out=); its only target is PyTorch's speed.
 *
 * The same cases then run on opencl:0 of a private daemon (or the one
 * --socket names), each sample a synchronize after its reductions,
 * beside the same read on the host, and against PyTorch's cpu numbers:
 * device "opencl:0", the same targets (PoCL runs the device on as many
 * threads as the cpu rows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "bench/elementwise.h"
#include "tessera/tessera.h"

static const char suite[] = "reduce";

typedef struct rd_plan {
    int64_t side; /* the flat cases have side * side elements */
    int samples;  /* pairs of samples */
    int reps;     /* reductions (and reads) per sample */
} rd_plan;

static const rd_plan full_plan = {.side = 8192, .samples = 7, .reps = 2};
static const rd_plan quick_plan = {.side = 1024, .samples = 3, .reps = 4};

typedef enum rd_op { RD_SUM, RD_AMAX, RD_ARGMAX, RD_SOFTMAX } rd_op;

typedef struct rd_case {
    const char *name;
    rd_op op;
    int dim; /* -1: a flat tensor reduced whole; else side x side along dim */
    double target_read, target_torch; /* NAN: none */
    int shrink;                       /* the side divided by 1 << shrink */
} rd_case;

static const rd_case cases[] = {
    {"sum_f32", RD_SUM, -1, 0.85, 1.0, 0},      {"amax_f32", RD_AMAX, -1, 0.85, 1.0, 0},
    {"sum_inner", RD_SUM, 1, 0.7, 1.0, 0},      {"sum_outer", RD_SUM, 0, 0.7, 1.0, 0},
    {"argmax_f32", RD_ARGMAX, -1, 0.7, 1.0, 0}, {"softmax_f32", RD_SOFTMAX, 1, NAN, 1.0, 1},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* PyTorch's side of the cases (the names above), N and S the sizes of the
 * run: filled in by bench_suite_reduce(). A flat tensor reduced along its
 * one dim is the whole reduction, and what out= takes in 1.13. */
static const char torch_source[] =
    "N, S = %lld, %lld\n"
    "g = torch.Generator().manual_seed(0)\n"
    "def flat(dtype=torch.float32):\n"
    "    return lambda: (torch.rand(N, generator=g), torch.empty((), dtype=dtype))\n"
    "def square():\n"
    "    return lambda: (torch.rand(S, S, generator=g), torch.empty(S))\n"
    "def along(fn, dim):\n"
    "    return lambda t: fn(t[0], dim, out=t[1])\n"
    "cases['sum_f32'] = (flat(), along(torch.sum, 0))\n"
    "cases['amax_f32'] = (flat(), along(torch.amax, 0))\n"
    "cases['sum_inner'] = (square(), along(torch.sum, 1))\n"
    "cases['sum_outer'] = (square(), along(torch.sum, 0))\n"
    "cases['argmax_f32'] = (flat(torch.int64), along(torch.argmax, 0))\n"
    "cases['softmax_f32'] = (lambda: (torch.rand(S // 2, S // 2, generator=g),),\n"
    "                        lambda t: torch.softmax(t[0], -1))\n";

/* ---- One case ------------------------------------------------------------ */

typedef struct rd_operands {
    const rd_case *c;
    tsr_tensor *a, *out;
    int64_t count;      /* elements of a */
    tsr_client *client; /* opencl:0's, or NULL on the cpu */
} rd_operands;

static void free_operands(rd_operands *o)
{
    tsr_tensor_release(o->a);
    tsr_tensor_release(o->out);
    o->a = o->out = NULL;
}

/* a, filled with uniform values in [0, 1), and the output. False, noted,
 * when they cannot be made. */
static bool make_operands(const rd_case *c, const rd_plan *plan, rd_operands *o)
{
    int64_t side = plan->side >> c->shrink;
    *o = (rd_operands){.c = c, .count = side * side};
    int64_t flat[1] = {o->count}, square[2] = {side, side};
    tsr_tensor_options in = {.has_dtype = true, .dtype = TSR_FLOAT32};
    tsr_tensor_options res = {.has_dtype = true,
                              .dtype = c->op == RD_ARGMAX ? TSR_INT64 : TSR_FLOAT32};
    tsr_status st = c->dim < 0 ? tsr_tensor_empty(NULL, 1, flat, &in, &o->a)
                               : tsr_tensor_empty(NULL, 2, square, &in, &o->a);
    if (st == TSR_OK && c->op != RD_SOFTMAX)
        st = tsr_tensor_empty(NULL, c->dim < 0 ? 0 : 1, &side, &res, &o->out);
    void *p = NULL;
    if (st == TSR_OK)
        st = tsr_tensor_data_ptr(o->a, &p);
    if (st != TSR_OK) {
        bench_note(suite, "%s: cannot make its tensors: %s", c->name, tsr_last_error());
        free_operands(o);
        return false;
    }
    float *v = p;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int64_t k = 0; k < o->count; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        v[k] = (float)(x >> 40) * 0x1p-24f;
    }
    return true;
}

/* The operands moved to opencl:0 of `client`. False, noted, when they
 * cannot be. */
static bool to_opencl(tsr_client *client, rd_operands *o)
{
    tsr_tensor_options cl = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *a = NULL, *out = NULL;
    if (tsr_tensor_to(client, o->a, &cl, false, &a) != TSR_OK ||
        (o->out && tsr_tensor_to(client, o->out, &cl, false, &out) != TSR_OK)) {
        bench_note(suite, "%s: cannot make its tensors on opencl:0: %s", o->c->name,
                   tsr_last_error());
        tsr_tensor_release(a);
        free_operands(o);
        return false;
    }
    free_operands(o);
    o->a = a;
    o->out = out;
    o->client = client;
    return true;
}

static bool tessera_run(const rd_operands *o)
{
    int64_t dim = o->c->dim;
    int ndims = dim < 0 ? 0 : 1;
    switch (o->c->op) {
    case RD_SUM:
        return tsr_sum_out(o->a, &dim, ndims, false, TSR_NO_DTYPE, o->out) == TSR_OK;
    case RD_AMAX:
        return tsr_amax_out(o->a, &dim, ndims, false, o->out) == TSR_OK;
    case RD_ARGMAX:
        return tsr_argmax_out(o->a, &dim, ndims, false, o->out) == TSR_OK;
    case RD_SOFTMAX: {
        tsr_tensor *r = NULL;
        bool ok = tsr_softmax(o->a, dim, TSR_NO_DTYPE, &r) == TSR_OK;
        tsr_tensor_release(r);
        return ok;
    }
    }
    return false;
}

/* GB/s of `reps` runs of each. */
static bool tessera_sample(const rd_operands *o, int reps, double *gbps)
{
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++)
        if (!tessera_run(o))
            return false;
    if (o->client && tsr_synchronize(o->client, (tsr_device){TSR_DEVICE_OPENCL, 0}) != TSR_OK)
        return false;
    *gbps = (double)reps * (double)o->count * sizeof(float) / (double)(bench_now_ns() - t0);
    return true;
}

/* Read passes timed, and those run again (stalls: elementwise_bare.c). */
static int read_passes, read_retaken;

static bool read_sample(const stream_arrays *s, int reps, double *gbps)
{
    double sec;
    read_passes += reps;
    if (!stream_time(s, reps, &sec, &read_retaken)) {
        bench_note(suite, "%s: cannot start its threads", stream_name(s->kind));
        return false;
    }
    *gbps = (double)stream_bytes(s) / sec / 1e9;
    return true;
}

/* Tessera's reduction (on opencl:0 of `client`, else on the cpu) beside
 * the read: *res (ok false, noted, when the reduction failed; the read is
 * measured all the same). The first run, not timed, builds what it
 * needs. */
static void measure_case(const rd_case *c, const rd_plan *plan, const stream_arrays *s,
                         tsr_client *client, bench_paired *res)
{
    rd_operands o;
    *res = (bench_paired){.value = NAN, .best = NAN, .reference = NAN};
    if (!make_operands(c, plan, &o) || (client && !to_opencl(client, &o)))
        return;
    double first;
    bool ok = tessera_sample(&o, 1, &first);
    if (!ok)
        bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
    bench_pairs p = {0};
    for (int k = 0; k < plan->samples; k++) {
        double v = NAN, ref;
        if (ok && !tessera_sample(&o, plan->reps, &v)) {
            bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
            ok = false;
        }
        if (!read_sample(s, plan->reps, &ref))
            break;
        if (ok)
            bench_pairs_add(&p, v, ref);
        else
            bench_samples_add(&p.reference, ref);
    }
    free_operands(&o);
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s%s: %.2f GB/s (best %.2f), stream_read %.2f", c->name,
                   client ? " on opencl:0" : "", res->value, res->best, res->reference);
}

/* PyTorch's reduction in `child`, each sample beside a read here. False,
 * noted, when torch refused it. */
static bool measure_torch(const rd_case *c, const rd_plan *plan, const stream_arrays *s,
                          torch_child *child, bench_paired *res)
{
    *res = (bench_paired){.value = NAN, .best = NAN, .reference = NAN};
    if (!torch_case(child, c->name))
        return false;
    int64_t side = plan->side >> c->shrink;
    double bytes = (double)(side * side) * sizeof(float);
    bool ok = true;
    bench_pairs p = {0};
    for (int k = 0; k < plan->samples && ok; k++) {
        double sec, ref;
        ok = torch_sample(child, &sec) && read_sample(s, plan->reps, &ref);
        if (ok)
            bench_pairs_add(&p, bytes / sec / 1e9, ref);
    }
    torch_drop(child);
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s through torch: %.2f GB/s (best %.2f), stream_read %.2f", c->name,
                   res->value, res->best, res->reference);
    return res->ok;
}

static void add_row(bench_results *out, const char *name, int threads, double value,
                    const char *baseline, double baseline_value, double paired, double target)
{
    bench_add_cpu_rate(out, suite, name, threads, BENCH_GBPS, value, baseline, baseline_value,
                       paired, target);
}

/* A row of device opencl:0 (value against baseline). */
static void add_opencl_row(bench_results *out, const char *name, int threads, double value,
                           const char *baseline, double baseline_value, double paired,
                           double target)
{
    bench_add_named(out,
                    (bench_row){.suite = suite,
                                .threads = threads,
                                .value = value,
                                .p99 = NAN,
                                .unit = BENCH_GBPS,
                                .baseline_value = baseline_value,
                                .baseline_p99 = NAN,
                                .target = target,
                                .paired_ratio = paired},
                    name, "opencl:0", baseline);
}

/* The cases on opencl:0 of a private daemon (or config's), beside the
 * read, and against PyTorch's cpu numbers in `torch` (ok false where
 * there are none), in rows of device "opencl:0". */
static void measure_opencl(const bench_config *config, const rd_plan *plan, const stream_arrays *s,
                           int threads, const bench_paired *torch, bench_results *out)
{
    bench_daemon d = {.pid = -1};
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(&d, suite) != 0)
            return;
        socket_path = d.socket;
    }
    tsr_client *client = NULL;
    tsr_client_options co = {.socket_path = socket_path, .name = "tessera-bench"};
    int32_t count = 0;
    bench_paired res[CASE_COUNT];
    if (tsr_client_open(&co, &client) != TSR_OK ||
        tsr_device_count(client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0) {
        bench_note(suite, "no opencl:0 (%s): its rows are left out",
                   client ? "the daemon sees no OpenCL device" : tsr_last_error());
    } else {
        for (size_t k = 0; k < CASE_COUNT; k++) {
            const rd_case *c = &cases[k];
            bench_paired *r = &res[k];
            measure_case(c, plan, s, client, r);
            if (!isnan(r->reference))
                add_opencl_row(out, c->name, threads, r->value, stream_name(s->kind), r->reference,
                               r->ok ? r->paired : 0, c->target_read);
        }
        for (size_t k = 0; k < CASE_COUNT; k++)
            if (torch[k].ok && !isnan(res[k].reference))
                add_opencl_row(out, cases[k].name, threads, res[k].value, "torch", torch[k].value,
                               bench_paired_over(&res[k], &torch[k]), cases[k].target_torch);
    }
    tsr_client_close(client);
    if (d.pid > 0)
        bench_daemon_stop(&d);
}

/* ---- The suite ------------------------------------------------------------- */

int bench_suite_reduce(const bench_config *config, bench_results *out)
{
    const rd_plan *plan = config->quick ? &quick_plan : &full_plan;
    int threads = config->threads > 0 ? config->threads : 1;
    bench_pin pin;
    bench_place(&pin, config, threads, suite);
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    setenv("TESSERA_NUM_THREADS", n, 1);
    if (tsr_get_num_threads() != threads)
        bench_note(suite, "the cpu device already runs on %d threads, not %d",
                   tsr_get_num_threads(), threads);
    /* PoCL's CPU device on as many threads as the cpu rows (a private
     * daemon inherits it) */
    const char *pocl = getenv("POCL_MAX_PTHREAD_COUNT");
    if (!config->socket_path && !(pocl && *pocl))
        setenv("POCL_MAX_PTHREAD_COUNT", n, 1);

    uint64_t bytes = (uint64_t)(plan->side * plan->side) * sizeof(float);
    stream_arrays s;
    if (stream_init(&s, STREAM_READ, bytes, threads, suite) != 0) {
        bench_unpin(&pin);
        return 1;
    }
    bench_note(suite, "%lld float32 (%llu MiB) per reduction, %d x %d per sample",
               (long long)(plan->side * plan->side), (unsigned long long)(bytes >> 20),
               plan->samples, plan->reps);

    bench_paired results[CASE_COUNT];
    for (size_t k = 0; k < CASE_COUNT; k++) {
        const rd_case *c = &cases[k];
        bench_paired *r = &results[k];
        measure_case(c, plan, &s, NULL, r);
        if (!isnan(r->reference))
            add_row(out, c->name, threads, r->value, stream_name(s.kind), r->reference,
                    r->ok ? r->paired : 0, c->target_read);
    }

    bench_paired torch[CASE_COUNT];
    for (size_t k = 0; k < CASE_COUNT; k++)
        torch[k] = (bench_paired){.value = NAN, .best = NAN, .reference = NAN};
    torch_child *child = NULL;
    char source[sizeof torch_source + 64];
    snprintf(source, sizeof source, torch_source, (long long)(plan->side * plan->side),
             (long long)plan->side);
    torch_request req = {
        .threads = threads, .n = 1, .side = 1, .batch = 1, .reps = plan->reps, .cases = source};
    if (config->torch && torch_open(&req, suite, &child) == 0) {
        bench_note(suite, "torch %s", torch_version(child));
        for (size_t k = 0; k < CASE_COUNT; k++) {
            const rd_case *c = &cases[k];
            bench_paired *t = &torch[k];
            if (measure_torch(c, plan, &s, child, t))
                add_row(out, c->name, threads, results[k].value, "torch", t->value,
                        bench_paired_over(&results[k], t), c->target_torch);
        }
        torch_close(child);
    }
    measure_opencl(config, plan, &s, threads, torch, out);
    stream_free(&s);
    if (read_retaken > 0)
        bench_note(suite, "%d of %d read passes ran again, stalled (see elementwise_bare.c)",
                   read_retaken, read_passes);
    bench_unpin(&pin);
    return 0;
}
