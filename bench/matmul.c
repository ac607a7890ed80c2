/* tessera-bench, the matmul suite: Tessera's matrix products on the cpu
 * device and on opencl:0 against the BLAS of each called directly and
 * against PyTorch 1.13.
 *
 * Each case runs tsr_mm_out or tsr_bmm_out into a preallocated output
 * (PyTorch's out=) and reports GFLOP/s (2 m n k per matrix). On the cpu
 * it runs in this process, beside `openblas`: cblas_sgemm called by this
 * program on the same float32 data (for float16, on float32 operands of
 * the same shape and values; for bmm, one call per matrix), with
 * OpenBLAS's threads set to the suite's count. On opencl:0 (a daemon of
 * its own, or --socket's) each sample ends with tsr_synchronize, beside
 * `clblast`: CLBlast's Sgemm (SgemmStridedBatched for bmm) called by this
 * program on a context of its own on the same device (matmul_clblast.c),
 * on float32 buffers of the same shape and values.
 *
 * Samples come in pairs, each product followed by one of its baseline,
 * and a row's ratio is the median of the pairs' ratios, so that a busy
 * neighbour weighs on both sides alike. Against PyTorch the pairs are
 * direct: a sample of Tessera's product, then one of PyTorch's in a child
 * Python (elementwise_torch.c), whose median ratio is the row's; value
 * and baseline_value are the two sides' medians over the same pairs.
 *
 * PyTorch 1.13 has no float16 mm on the cpu ("addmm_impl_cpu_" not
 * implemented for 'Half'): a float16 product there is what a program
 * written for it does, its operands converted to float32, mm, and the
 * result converted back (torch's side of mm_f16 then, the run notes it). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "bench/elementwise.h"
#include "bench/matmul.h"
#include "tessera/tessera.h"

static const char suite[] = "matmul";

typedef struct mm_plan {
    int64_t side;  /* mm: side x side @ side x side */
    int64_t batch; /* bmm: batch x INNER x INNER */
    int samples;   /* pairs of samples of an mm */
    int bmm_samples;
} mm_plan;

#define INNER 32
static const mm_plan full_plan = {.side = 2048, .batch = 4096, .samples = 5, .bmm_samples = 15};
static const mm_plan quick_plan = {.side = 256, .batch = 256, .samples = 3, .bmm_samples = 3};

typedef struct mm_case {
    const char *name;
    bool batched;    /* bmm of batch x 32 x 32, else mm of side x side */
    bool transposed; /* the first operand is a.t(), a contiguous */
    tsr_dtype dtype;
    bool opencl;                      /* on opencl:0, else on the cpu */
    double target_blas, target_torch; /* against blas and torch; NAN: none */
    bool torch;                       /* PyTorch has a side (its case of the same name) */
} mm_case;

static const mm_case cases[] = {
    {"mm_f32", false, false, TSR_FLOAT32, false, 0.9, 1.0, true},
    {"bmm_f32", true, false, TSR_FLOAT32, false, NAN, 1.0, true},
    {"mm_f16", false, false, TSR_FLOAT16, false, NAN, 1.0, true},
    {"mm_f16_transposed", false, true, TSR_FLOAT16, false, NAN, NAN, false},
    {"mm_f32", false, false, TSR_FLOAT32, true, 0.9, 1.0, true},
    {"bmm_f32", true, false, TSR_FLOAT32, true, NAN, 1.0, true},
    {"mm_f16", false, false, TSR_FLOAT16, true, NAN, 1.0, true},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* PyTorch's side of the cases that have one (the names above), S and B
 * the sizes of the run: filled in by bench_suite_matmul. mm_f16_via_f32
 * is a float16 product where torch has none. */
static const char torch_source[] =
    "S, B, K = %lld, %lld, %d\n"
    "def mats(dtype, *shape):\n"
    "    return lambda: (torch.full(shape, 1.0, dtype=dtype),\n"
    "                    torch.full(shape, 0.5, dtype=dtype), torch.empty(shape, dtype=dtype))\n"
    "def mm(t):\n"
    "    torch.mm(t[0], t[1], out=t[2])\n"
    "def bmm(t):\n"
    "    torch.bmm(t[0], t[1], out=t[2])\n"
    "def via_f32(t):\n"
    "    t[2].copy_(torch.mm(t[0].float(), t[1].float()))\n"
    "cases['mm_f32'] = (mats(torch.float32, S, S), mm)\n"
    "cases['bmm_f32'] = (mats(torch.float32, B, K, K), bmm)\n"
    "cases['mm_f16'] = (mats(torch.float16, S, S), mm)\n"
    "cases['mm_f16_via_f32'] = (mats(torch.float16, S, S), via_f32)\n";

/* What a run measures with: its torch child (NULL: none), opencl:0's
 * client (NULL: none) and the device's name. */
typedef struct mm_run {
    const mm_plan *plan;
    torch_child *torch;
    tsr_client *client;
    char device_name[256];
} mm_run;

/* ---- One case ------------------------------------------------------------ */

typedef struct mm_operands {
    const mm_case *c;
    int64_t batch, n;   /* batch matrices of n x n */
    tsr_client *client; /* opencl:0's, or NULL on the cpu */
    tsr_tensor *a, *b, *out;
    /* cblas_sgemm's: float32 operands (the tensors' own data for a float32
     * case on the cpu) and an output of its own; opencl: CLBlast's. */
    float *ra, *rb, *rc;
    bool own_inputs;
    bench_clblast *clblast;
} mm_operands;

static double flops(const mm_operands *o)
{
    return 2.0 * (double)o->batch * (double)o->n * (double)o->n * (double)o->n;
}

static void free_operands(mm_operands *o)
{
    tsr_tensor_release(o->a);
    tsr_tensor_release(o->b);
    tsr_tensor_release(o->out);
    if (o->own_inputs) {
        free(o->ra);
        free(o->rb);
    }
    free(o->rc);
    bench_clblast_close(o->clblast);
    o->a = o->b = o->out = NULL;
    o->ra = o->rb = o->rc = NULL;
    o->clblast = NULL;
}

static tsr_status full_tensor(const mm_operands *o, int ndim, const int64_t *sizes, double v,
                              tsr_tensor **out)
{
    tsr_tensor_options opt = {.has_dtype = true, .dtype = o->c->dtype};
    if (o->client) {
        opt.has_device = true;
        opt.device = (tsr_device){TSR_DEVICE_OPENCL, 0};
    }
    return tsr_tensor_full(o->client, ndim, sizes, tsr_scalar_float(v), &opt, out);
}

/* cblas_sgemm's float32 operands with the tensors' values. */
static bool openblas_operands(mm_operands *o)
{
    size_t count = (size_t)(o->batch * o->n * o->n);
    o->own_inputs = o->c->dtype != TSR_FLOAT32;
    if (o->own_inputs) {
        o->ra = malloc(count * sizeof(float));
        o->rb = malloc(count * sizeof(float));
        for (size_t k = 0; o->ra && o->rb && k < count; k++) {
            o->ra[k] = 1.0f;
            o->rb[k] = 0.5f;
        }
    } else {
        void *pa = NULL, *pb = NULL;
        (void)tsr_tensor_data_ptr(o->a, &pa);
        (void)tsr_tensor_data_ptr(o->b, &pb);
        o->ra = pa;
        o->rb = pb;
    }
    o->rc = malloc(count * sizeof(float));
    return o->ra && o->rb && o->rc;
}

/* a filled with 1, b with 0.5 (the transposed case's a is the view a.t()
 * of a contiguous matrix), an empty output; the baseline's operands with
 * the same values. False, noted, when something is missing. */
static bool make_operands(mm_operands *o, const mm_run *run)
{
    const mm_case *c = o->c;
    int64_t sizes[3] = {o->batch, o->n, o->n};
    int ndim = c->batched ? 3 : 2;
    const int64_t *s = c->batched ? sizes : sizes + 1;
    tsr_status st = full_tensor(o, ndim, s, 1.0, &o->a);
    if (st == TSR_OK && c->transposed) {
        tsr_tensor *base = o->a;
        st = tsr_tensor_t(base, &o->a);
        tsr_tensor_release(base);
        if (st != TSR_OK)
            o->a = NULL;
    }
    if (st == TSR_OK)
        st = full_tensor(o, ndim, s, 0.5, &o->b);
    if (st == TSR_OK)
        st = full_tensor(o, ndim, s, 0.0, &o->out);
    if (st != TSR_OK) {
        bench_note(suite, "%s: cannot make its tensors: %s", c->name, tsr_last_error());
        free_operands(o);
        return false;
    }
    bool ok = o->client ? bench_clblast_open(run->device_name, suite, o->batch, o->n, c->transposed,
                                             &o->clblast) == 0
                        : openblas_operands(o);
    if (!ok) {
        if (!o->client)
            bench_note(suite, "%s: out of memory for cblas_sgemm's operands", c->name);
        free_operands(o);
    }
    return ok;
}

static bool tessera_run(mm_operands *o)
{
    tsr_status st =
        o->c->batched ? tsr_bmm_out(o->a, o->b, o->out) : tsr_mm_out(o->a, o->b, o->out);
    if (st == TSR_OK && o->client)
        st = tsr_synchronize(o->client, (tsr_device){TSR_DEVICE_OPENCL, 0});
    return st == TSR_OK;
}

/* The same products through cblas_sgemm, row-major, a transposed where
 * the case's is. */
static void openblas_run(const mm_operands *o)
{
    int n = (int)o->n;
    size_t mat = (size_t)n * (size_t)n;
    CBLAS_TRANSPOSE ta = o->c->transposed ? CblasTrans : CblasNoTrans;
    for (int64_t i = 0; i < o->batch; i++)
        cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0f, o->ra + (size_t)i * mat, n,
                    o->rb + (size_t)i * mat, n, 0.0f, o->rc + (size_t)i * mat, n);
}

/* GFLOP/s of one call of each. */
static bool tessera_sample(mm_operands *o, double *gflops)
{
    uint64_t t0 = bench_now_ns();
    if (!tessera_run(o))
        return false;
    *gflops = flops(o) / (double)(bench_now_ns() - t0);
    return true;
}

static double blas_sample(const mm_operands *o)
{
    if (o->clblast)
        return bench_clblast_sample(o->clblast);
    uint64_t t0 = bench_now_ns();
    openblas_run(o);
    return flops(o) / (double)(bench_now_ns() - t0);
}

/* Tessera's product beside its BLAS (res->ok false, noted, when the
 * product failed; the reference is measured all the same). */
static void measure_blas(mm_operands *o, int samples, bool ok, bench_paired *res)
{
    const mm_case *c = o->c;
    bench_pairs p = {0};
    for (int k = 0; k < samples; k++) {
        double v = NAN;
        if (ok && !tessera_sample(o, &v)) {
            bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
            ok = false;
        }
        double ref = blas_sample(o);
        if (isnan(ref))
            break;
        if (ok)
            bench_pairs_add(&p, v, ref);
        else
            bench_samples_add(&p.reference, ref);
    }
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s%s: %.2f GFLOP/s (best %.2f), %s %.2f", c->name,
                   c->opencl ? " on opencl:0" : "", res->value, res->best,
                   c->opencl ? "CLBlast's Sgemm" : "cblas_sgemm", res->reference);
}

/* Tessera's product beside PyTorch's, sample by sample. False, noted,
 * when torch refused it. */
static bool measure_torch(mm_operands *o, int samples, torch_child *child, const char *name,
                          bench_paired *res)
{
    *res = (bench_paired){.value = NAN, .best = NAN, .reference = NAN};
    if (!torch_case(child, name))
        return false;
    bench_pairs p = {0};
    bool ok = true;
    for (int k = 0; k < samples && ok; k++) {
        double v = NAN, sec = 0;
        ok = tessera_sample(o, &v) && torch_sample(child, &sec);
        if (ok)
            bench_pairs_add(&p, v, flops(o) / sec / 1e9);
    }
    torch_drop(child);
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s%s: %.2f GFLOP/s, torch (%s) %.2f", o->c->name,
                   o->c->opencl ? " on opencl:0" : "", res->value, name, res->reference);
    return res->ok;
}

static void add_row(bench_results *out, const mm_case *c, int threads, const bench_paired *r,
                    const char *baseline, double target)
{
    bench_add_named(out,
                    (bench_row){.suite = suite,
                                .threads = threads,
                                .value = r->value,
                                .p99 = NAN,
                                .unit = BENCH_GFLOPS,
                                .baseline_value = r->reference,
                                .baseline_p99 = NAN,
                                .target = target,
                                .paired_ratio = r->ok ? r->paired : 0},
                    c->name, c->opencl ? "opencl:0" : "cpu", baseline);
}

static void measure_case(const mm_case *c, const mm_run *run, int threads, bench_results *out)
{
    mm_operands o = {.c = c, .client = c->opencl ? run->client : NULL};
    o.batch = c->batched ? run->plan->batch : 1;
    o.n = c->batched ? INNER : run->plan->side;
    if (!make_operands(&o, run))
        return;
    bench_note(suite, "%s%s: %lld x %lldx%lld %s%s, %.2f GFLOP per product", c->name,
               c->opencl ? " on opencl:0" : "", (long long)o.batch, (long long)o.n, (long long)o.n,
               tsr_dtype_name(c->dtype), c->transposed ? ", the first operand transposed" : "",
               flops(&o) / 1e9);
    bool ok = tessera_run(&o); /* the first run touches the output's pages */
    if (!ok)
        bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
    (void)blas_sample(&o);
    int samples = c->batched ? run->plan->bmm_samples : run->plan->samples;
    if (c->opencl) /* PoCL's CLBlast takes seconds a product at full size */
        samples = samples > 3 ? 3 : samples;
    bench_paired r;
    measure_blas(&o, samples, ok, &r);
    if (!isnan(r.reference))
        add_row(out, c, threads, &r, c->opencl ? "clblast" : "openblas", c->target_blas);
    if (ok && r.ok && c->torch && run->torch) {
        bench_paired t;
        bool done = measure_torch(&o, samples, run->torch, c->name, &t);
        if (!done && c->dtype == TSR_FLOAT16) {
            bench_note(suite,
                       "%s: torch %s has no float16 mm on the cpu (above): its side converts "
                       "the operands to float32, multiplies and converts back",
                       c->name, torch_version(run->torch));
            done = measure_torch(&o, samples, run->torch, "mm_f16_via_f32", &t);
        }
        if (done)
            add_row(out, c, threads, &t, "torch", c->target_torch);
    }
    free_operands(&o);
}

/* ---- The suite ------------------------------------------------------------- */

/* opencl:0 of a private daemon (or config's): its client and device name
 * in *run; false, noted, without one. */
static bool open_opencl(const bench_config *config, bench_daemon *d, mm_run *run)
{
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(d, suite) != 0)
            return false;
        socket_path = d->socket;
    }
    tsr_client_options co = {.socket_path = socket_path, .name = "tessera-bench"};
    int32_t count = 0;
    tsr_device_properties props;
    if (tsr_client_open(&co, &run->client) != TSR_OK ||
        tsr_device_count(run->client, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0 ||
        tsr_device_get_properties(run->client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) !=
            TSR_OK) {
        bench_note(suite, "no opencl:0 (%s): its rows are left out",
                   run->client && count == 0 ? "the daemon sees no OpenCL device"
                                             : tsr_last_error());
        tsr_client_close(run->client);
        run->client = NULL;
        return false;
    }
    snprintf(run->device_name, sizeof run->device_name, "%s", props.name);
    return true;
}

int bench_suite_matmul(const bench_config *config, bench_results *out)
{
    mm_run run = {.plan = config->quick ? &quick_plan : &full_plan};
    int threads = config->threads > 0 ? config->threads : 1;
    bench_pin pin;
    bench_place(&pin, config, threads, suite);
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    /* The cpu device's pool (and with it the OpenBLAS threads of
     * libtessera's products), this program's cblas_sgemm, PyTorch's
     * OpenBLAS and PoCL's CPU device (the daemon's and this program's
     * CLBlast context) all on `threads`. */
    bench_set_threads(config, suite, threads);
    setenv("OPENBLAS_NUM_THREADS", n, 1);
    openblas_set_num_threads(threads);
    if (tsr_get_num_threads() != threads)
        bench_note(suite, "the cpu device already runs on %d threads, not %d",
                   tsr_get_num_threads(), threads);

    if (config->torch) {
        char source[sizeof torch_source + 64];
        snprintf(source, sizeof source, torch_source, (long long)run.plan->side,
                 (long long)run.plan->batch, INNER);
        torch_request req = {
            .threads = threads, .n = 1, .side = 1, .batch = 1, .reps = 1, .cases = source};
        if (torch_open(&req, suite, &run.torch) == 0)
            bench_note(suite, "torch %s", torch_version(run.torch));
        else
            run.torch = NULL;
    }
    /* the cpu's cases before a daemon is there to take CPU time */
    for (size_t k = 0; k < CASE_COUNT; k++)
        if (!cases[k].opencl)
            measure_case(&cases[k], &run, threads, out);
    bench_daemon d = {.pid = -1};
    if (open_opencl(config, &d, &run))
        for (size_t k = 0; k < CASE_COUNT; k++)
            if (cases[k].opencl)
                measure_case(&cases[k], &run, threads, out);
    tsr_client_close(run.client);
    if (d.pid > 0)
        bench_daemon_stop(&d);
    if (run.torch)
        torch_close(run.torch);
    bench_unpin(&pin);
    return 0;
}
