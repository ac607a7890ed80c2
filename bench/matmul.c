/* tessera-bench, the matmul suite: Tessera's matrix products on the cpu
 * device against OpenBLAS called directly and against PyTorch 1.13.
 *
 * Each case runs tsr_mm_out or tsr_bmm_out into a preallocated output
 * (PyTorch's out=), in this process, and reports GFLOP/s (2 m n k per
 * matrix). Its baseline `openblas` is cblas_sgemm called by this program
 * on the same float32 data (for float16, on float32 operands of the same
 * shape and values; for bmm, one call per matrix), with OpenBLAS's threads
 * set to the suite's count. Each sample of the product is followed by one
 * of cblas_sgemm, and the row's ratio is the median of the pairs' ratios,
 * so that a busy neighbour weighs on both sides alike. PyTorch then runs
 * the same products in a child Python (elementwise_torch.c), each sample
 * again followed by one of cblas_sgemm here: Tessera against PyTorch is
 * the ratio of the two sides' paired ratios to OpenBLAS.
 *
 * PyTorch 1.13 has no float16 mm on the cpu: mm_f16 then has no `torch`
 * row (the reason is noted), and is set beside torch's float32 mm instead
 * (`torch_f32`, no target). opencl:0 has no matrix products yet: its rows
 * (and the CLBlast baseline) are left out. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/elementwise.h"
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
    double target_openblas, target_torch; /* NAN: none */
} mm_case;

static const mm_case cases[] = {
    {"mm_f32", false, false, TSR_FLOAT32, 0.9, 1.0},
    {"bmm_f32", true, false, TSR_FLOAT32, NAN, 1.0},
    {"mm_f16", false, false, TSR_FLOAT16, NAN, 1.0},
    {"mm_f16_transposed", false, true, TSR_FLOAT16, NAN, NAN},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* PyTorch's side of the cases that have one (the names above), S and B
 * the sizes of the run: filled in by torch_cases(). */
static const char torch_source[] =
    "S, B, K = %lld, %lld, %d\n"
    "def mats(dtype, *shape):\n"
    "    return lambda: (torch.full(shape, 1.0, dtype=dtype),\n"
    "                    torch.full(shape, 0.5, dtype=dtype), torch.empty(shape, dtype=dtype))\n"
    "def mm(t):\n"
    "    torch.mm(t[0], t[1], out=t[2])\n"
    "def bmm(t):\n"
    "    torch.bmm(t[0], t[1], out=t[2])\n"
    "cases['mm_f32'] = (mats(torch.float32, S, S), mm)\n"
    "cases['bmm_f32'] = (mats(torch.float32, B, K, K), bmm)\n"
    "cases['mm_f16'] = (mats(torch.float16, S, S), mm)\n";

/* ---- One case ------------------------------------------------------------ */

typedef struct mm_operands {
    const mm_case *c;
    int64_t batch, n; /* batch matrices of n x n */
    tsr_tensor *a, *b, *out;
    /* cblas_sgemm's: float32 operands (the tensors' own data for a float32
     * case) and an output of its own. */
    float *ra, *rb, *rc;
    bool own_inputs;
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
    o->a = o->b = o->out = NULL;
    o->ra = o->rb = o->rc = NULL;
}

static tsr_status full_tensor(int ndim, const int64_t *sizes, tsr_dtype dtype, double v,
                              tsr_tensor **out)
{
    tsr_tensor_options opt = {.has_dtype = true, .dtype = dtype};
    return tsr_tensor_full(NULL, ndim, sizes, tsr_scalar_float(v), &opt, out);
}

/* a filled with 1, b with 0.5 (the transposed case's a is the view a.t()
 * of a contiguous matrix), an empty output; cblas_sgemm's float32
 * operands with the same values. False, noted, when something is
 * missing. */
static bool make_operands(mm_operands *o)
{
    const mm_case *c = o->c;
    int64_t sizes[3] = {o->batch, o->n, o->n};
    int ndim = c->batched ? 3 : 2;
    const int64_t *s = c->batched ? sizes : sizes + 1;
    tsr_tensor_options opt = {.has_dtype = true, .dtype = c->dtype};
    tsr_status st = full_tensor(ndim, s, c->dtype, 1.0, &o->a);
    if (st == TSR_OK && c->transposed) {
        tsr_tensor *base = o->a;
        st = tsr_tensor_t(base, &o->a);
        tsr_tensor_release(base);
        if (st != TSR_OK)
            o->a = NULL;
    }
    if (st == TSR_OK)
        st = full_tensor(ndim, s, c->dtype, 0.5, &o->b);
    if (st == TSR_OK)
        st = tsr_tensor_empty(NULL, ndim, s, &opt, &o->out);
    if (st != TSR_OK) {
        bench_note(suite, "%s: cannot make its tensors: %s", c->name, tsr_last_error());
        free_operands(o);
        return false;
    }
    size_t count = (size_t)(o->batch * o->n * o->n);
    o->own_inputs = c->dtype != TSR_FLOAT32;
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
    if (!o->ra || !o->rb || !o->rc) {
        bench_note(suite, "%s: out of memory for cblas_sgemm's operands", c->name);
        free_operands(o);
        return false;
    }
    return true;
}

static bool tessera_run(mm_operands *o)
{
    tsr_status st =
        o->c->batched ? tsr_bmm_out(o->a, o->b, o->out) : tsr_mm_out(o->a, o->b, o->out);
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

static double openblas_sample(const mm_operands *o)
{
    uint64_t t0 = bench_now_ns();
    openblas_run(o);
    return flops(o) / (double)(bench_now_ns() - t0);
}

typedef bench_paired mm_result;

static void case_sizes(const mm_case *c, const mm_plan *plan, mm_operands *o)
{
    o->c = c;
    o->batch = c->batched ? plan->batch : 1;
    o->n = c->batched ? INNER : plan->side;
}

/* Tessera's product beside cblas_sgemm: *res (ok false, noted, when the
 * product failed; the reference is measured all the same). */
static void measure_case(const mm_case *c, const mm_plan *plan, mm_result *res)
{
    mm_operands o = {0};
    case_sizes(c, plan, &o);
    *res = (mm_result){.value = NAN, .best = NAN, .reference = NAN};
    if (!make_operands(&o))
        return;
    bench_note(suite, "%s: %lld x %lldx%lld %s%s, %.2f GFLOP per product", c->name,
               (long long)o.batch, (long long)o.n, (long long)o.n, tsr_dtype_name(c->dtype),
               c->transposed ? ", the first operand transposed" : "", flops(&o) / 1e9);
    bool ok = tessera_run(&o); /* the first run touches the output's pages */
    if (!ok)
        bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
    openblas_run(&o);
    int samples = c->batched ? plan->bmm_samples : plan->samples;
    bench_pairs p = {0};
    for (int k = 0; k < samples; k++) {
        double v = NAN;
        if (ok && !tessera_sample(&o, &v)) {
            bench_note(suite, "%s failed: %s", c->name, tsr_last_error());
            ok = false;
        }
        double ref = openblas_sample(&o);
        if (ok)
            bench_pairs_add(&p, v, ref);
        else
            bench_samples_add(&p.reference, ref);
    }
    free_operands(&o);
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s: %.2f GFLOP/s (best %.2f), cblas_sgemm %.2f", c->name, res->value,
                   res->best, res->reference);
}

/* PyTorch's product in `child`, each sample beside a cblas_sgemm sample
 * of the same shape in this process. False, noted, when torch refused
 * it. */
static bool measure_torch(const mm_case *c, const mm_plan *plan, torch_child *child, mm_result *res)
{
    mm_operands o = {0};
    case_sizes(c, plan, &o);
    *res = (mm_result){.value = NAN, .best = NAN, .reference = NAN};
    /* The reference is float32 whatever the case: cblas_sgemm of the shape. */
    mm_case f32 = *c;
    f32.dtype = TSR_FLOAT32;
    o.c = &f32;
    if (!torch_case(child, c->name))
        return false;
    bool ok = make_operands(&o);
    int samples = c->batched ? plan->bmm_samples : plan->samples;
    bench_pairs p = {0};
    for (int k = 0; k < samples && ok; k++) {
        double sec;
        ok = torch_sample(child, &sec);
        if (ok)
            bench_pairs_add(&p, flops(&o) / sec / 1e9, openblas_sample(&o));
    }
    torch_drop(child);
    free_operands(&o);
    *res = bench_pairs_finish(&p, ok);
    if (res->ok)
        bench_note(suite, "%s through torch: %.2f GFLOP/s (best %.2f), cblas_sgemm %.2f", c->name,
                   res->value, res->best, res->reference);
    return res->ok;
}

/* ---- Rows ------------------------------------------------------------------ */

static void add_row(bench_results *out, const char *name, int threads, double value,
                    const char *baseline, double baseline_value, double paired, double target)
{
    bench_add_cpu_rate(out, suite, name, threads, BENCH_GFLOPS, value, baseline, baseline_value,
                       paired, target);
}

/* ---- The suite ------------------------------------------------------------- */

int bench_suite_matmul(const bench_config *config, bench_results *out)
{
    const mm_plan *plan = config->quick ? &quick_plan : &full_plan;
    int threads = config->threads > 0 ? config->threads : 1;
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    /* The cpu device's pool (and with it the OpenBLAS threads of
     * libtessera's products), this program's cblas_sgemm and PyTorch's
     * OpenBLAS all on `threads`. */
    setenv("TESSERA_NUM_THREADS", n, 1);
    setenv("OPENBLAS_NUM_THREADS", n, 1);
    openblas_set_num_threads(threads);
    if (tsr_get_num_threads() != threads)
        bench_note(suite, "the cpu device already runs on %d threads, not %d",
                   tsr_get_num_threads(), threads);
    bench_note(suite, "opencl:0 has no matrix products yet: its rows are left out");

    mm_result results[CASE_COUNT];
    for (size_t k = 0; k < CASE_COUNT; k++) {
        const mm_case *c = &cases[k];
        mm_result *r = &results[k];
        measure_case(c, plan, r);
        if (!isnan(r->reference))
            add_row(out, c->name, threads, r->value, "openblas", r->reference,
                    r->ok ? r->paired : 0, c->target_openblas);
    }

    if (!config->torch)
        return 0;
    char source[sizeof torch_source + 64];
    snprintf(source, sizeof source, torch_source, (long long)plan->side, (long long)plan->batch,
             INNER);
    torch_request req = {
        .threads = threads, .n = 1, .side = 1, .batch = 1, .reps = 1, .cases = source};
    torch_child *child;
    if (torch_open(&req, suite, &child) != 0)
        return 0;
    bench_note(suite, "torch %s", torch_version(child));
    mm_result torch_f32 = {.value = NAN};
    for (size_t k = 0; k < CASE_COUNT; k++) {
        const mm_case *c = &cases[k];
        if (c->transposed)
            continue; /* Tessera's own measure: no PyTorch side */
        mm_result t;
        bool ok = measure_torch(c, plan, child, &t);
        if (strcmp(c->name, "mm_f32") == 0)
            torch_f32 = t;
        const mm_result *r = &results[k];
        if (ok) {
            add_row(out, c->name, threads, r->value, "torch", t.value, bench_paired_over(r, &t),
                    c->target_torch);
        } else if (c->dtype != TSR_FLOAT32 && torch_f32.ok) {
            /* PyTorch 1.13 has no such product on the cpu: beside its
             * float32 one, for information. */
            bench_note(suite, "%s: no torch row (torch %s refuses it, above); torch_f32 instead",
                       c->name, torch_version(child));
            add_row(out, c->name, threads, r->value, "torch_f32", torch_f32.value,
                    bench_paired_over(r, &torch_f32), NAN);
        }
    }
    torch_close(child);
    return 0;
}
