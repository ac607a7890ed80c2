/* tessera-bench, the elementwise suite: Tessera's elementwise operations
 * against the memory bandwidth of the machine they run on.
 *
 * Each operation (the cases below) runs on 2^26-element tensors (2^22 with
 * --quick) on cpu and on opencl:0, and is set beside a STREAM-style add
 * (elementwise_bare.c) that moves the same bytes on the same number of
 * threads: the bytes an operation moves are its distinct input bytes read
 * plus its output bytes written, and both sides report those bytes per
 * second. Each sample of the operation is followed by one of the
 * baseline, and the row's ratio is the median of the pairs' ratios, so
 * that noise from the rest of the machine falls on both alike; when the
 * two together would hold more than MEMORY_BUDGET, the baseline runs after
 * the operation's tensors are gone (and the ratio is that of the medians).
 * Then the latency of a 1-element add on
 * opencl:0 against a bare OpenCL enqueue + finish plus one ring round trip,
 * and last, when a Python with torch is there, the same operations through
 * PyTorch (elementwise_torch.c), each of its samples also followed by a
 * STREAM sample: Tessera against PyTorch is then the ratio of their two
 * ratios to the memory's speed, each taken side by side.
 *
 * An operation that fails (one this libtessera cannot compute yet, say) is
 * reported, and its rows keep their baseline with no value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/daemon.h"
#include "bench/elementwise.h"
#include "tessera/tessera.h"

#define MEMORY_BUDGET (2ull << 30) /* tensors and STREAM arrays alive at once */
#define LATENCY_TARGET (1.0 / 1.5) /* small op <= 1.5 x (bare enqueue + finish + ring) */
#define MIB(bytes) ((double)(bytes) / (1024.0 * 1024.0))

/* The suite being run ("elementwise" or "unary"): its notes and rows. */
static const char *suite = "elementwise";

typedef struct ew_plan {
    int log2_n;        /* elements of the large tensors: 2^log2_n (even) */
    int64_t batch;     /* N of the N x 64 x 56 x 56 tensor of nchw_to_nhwc */
    int rounds;        /* turns of operation and baseline */
    int samples;       /* timed samples per turn */
    int reps;          /* operations per sample */
    int lat_rounds;    /* small_op_latency: turns of Tessera, bare OpenCL, ring */
    size_t lat_warmup; /* untimed calls before each turn */
    size_t lat_n;      /* timed calls per turn */
} ew_plan;

static const ew_plan full_plan = {
    .log2_n = 26,
    .batch = 64,
    .rounds = 3,
    .samples = 2,
    .reps = 2,
    .lat_rounds = 5,
    .lat_warmup = 200,
    .lat_n = 2000,
};
static const ew_plan quick_plan = {
    .log2_n = 22,
    .batch = 16,
    .rounds = 2,
    .samples = 1,
    .reps = 2,
    .lat_rounds = 2,
    .lat_warmup = 20,
    .lat_n = 200,
};

/* ---- The cases ---------------------------------------------------------- */

typedef enum ew_shape {
    SHAPE_FLAT,       /* a[n] op b[n] -> out[n] */
    SHAPE_TRANSPOSED, /* a[side, side].t() + b[side, side] -> out[side, side] */
    SHAPE_BROADCAST,  /* a[side, 1] + b[1, side] -> out[side, side] */
    SHAPE_NCHW,       /* a[batch, 64, 56, 56].contiguous(channels_last) */
    SHAPE_UNARY,      /* op(a[n]) -> out[n] */
    SHAPE_WHERE,      /* where(cond[n] (bool), a[n], b[n]) -> out[n] */
} ew_shape;

/* The first input's values: the ones and twos of the memory-bound cases
 * (whose loops do the same work for any value), or, for the functions
 * whose work depends on the value (a vector computes each of the ways
 * its lanes take), N(0, 1) samples as activations hold, and their
 * absolute values for log. PyTorch gets the same distribution. */
typedef enum ew_input {
    INPUT_CONSTANT,
    INPUT_NORMAL,
    INPUT_ABS_NORMAL,
} ew_input;

typedef struct ew_case {
    const char *name;
    const char *op; /* the operation's name (tsr_op_from_name); NULL: SHAPE_NCHW's copy */
    ew_shape shape;
    tsr_dtype a, b, out; /* b unused for SHAPE_UNARY, b and out for SHAPE_NCHW (float32) */
    stream_kind base;    /* the STREAM loop moving the same bytes */
    double target_cpu, target_opencl; /* against it (NAN: none) */
    double target_torch;              /* against PyTorch (NAN: none) */
    ew_input input;                   /* what `a` holds */
} ew_case;

#define F32 TSR_FLOAT32
static const ew_case elementwise_cases[] = {
    {"add_f32", "add", SHAPE_FLAT, F32, F32, F32, STREAM_ADD, 0.9, 0.85, 1.0, INPUT_CONSTANT},
    {"add_i32_f32", "add", SHAPE_FLAT, TSR_INT32, F32, F32, STREAM_ADD, 0.8, 0.8, 1.0,
     INPUT_CONSTANT},
    {"add_f16", "add", SHAPE_FLAT, TSR_FLOAT16, TSR_FLOAT16, TSR_FLOAT16, STREAM_ADD, 0.7, 0.7, 1.0,
     INPUT_CONSTANT},
    {"add_bf16", "add", SHAPE_FLAT, TSR_BFLOAT16, TSR_BFLOAT16, TSR_BFLOAT16, STREAM_ADD, 0.7, 0.7,
     1.0, INPUT_CONSTANT},
    {"add_f64", "add", SHAPE_FLAT, TSR_FLOAT64, TSR_FLOAT64, TSR_FLOAT64, STREAM_ADD, NAN, NAN, 1.0,
     INPUT_CONSTANT},
    {"add_transposed", "add", SHAPE_TRANSPOSED, F32, F32, F32, STREAM_ADD, 0.45, 0.45, 1.0,
     INPUT_CONSTANT},
    {"add_broadcast", "add", SHAPE_BROADCAST, F32, F32, F32, STREAM_ADD, 0.7, 0.7, 1.0,
     INPUT_CONSTANT},
    {"nchw_to_nhwc", NULL, SHAPE_NCHW, F32, F32, F32, STREAM_ADD, 0.28, 0.28, 1.0, INPUT_CONSTANT},
};

/* Memory-bound operations against a copy of their bytes; the
 * transcendental ones, which compute more than they move, against
 * PyTorch on the same threads (float16 and bfloat16 at twice its speed:
 * PyTorch 1.13 computes them one element at a time). */
static const ew_case unary_cases[] = {
    {"relu_f32", "relu", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, 0.85, 0.85, NAN, INPUT_CONSTANT},
    {"abs_f32", "abs", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, 0.85, 0.85, NAN, INPUT_CONSTANT},
    {"lt_f32", "lt", SHAPE_FLAT, F32, F32, TSR_BOOL, STREAM_COPY, 0.85, 0.85, NAN, INPUT_CONSTANT},
    {"where_f32", "where", SHAPE_WHERE, F32, F32, F32, STREAM_COPY, 0.85, 0.85, NAN,
     INPUT_CONSTANT},
    {"exp_f32", "exp", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, NAN, NAN, 1.0, INPUT_NORMAL},
    {"log_f32", "log", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, NAN, NAN, 1.0, INPUT_ABS_NORMAL},
    {"tanh_f32", "tanh", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, NAN, NAN, 1.0, INPUT_NORMAL},
    {"sigmoid_f32", "sigmoid", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, NAN, NAN, 1.0,
     INPUT_NORMAL},
    {"gelu_f32", "gelu", SHAPE_UNARY, F32, F32, F32, STREAM_COPY, NAN, NAN, 1.0, INPUT_NORMAL},
    {"exp_f16", "exp", SHAPE_UNARY, TSR_FLOAT16, TSR_FLOAT16, TSR_FLOAT16, STREAM_COPY, NAN, NAN,
     2.0, INPUT_NORMAL},
    {"exp_bf16", "exp", SHAPE_UNARY, TSR_BFLOAT16, TSR_BFLOAT16, TSR_BFLOAT16, STREAM_COPY, NAN,
     NAN, 2.0, INPUT_NORMAL},
};
#undef F32
#define MAX_CASES 16
_Static_assert(sizeof elementwise_cases / sizeof elementwise_cases[0] <= MAX_CASES &&
                   sizeof unary_cases / sizeof unary_cases[0] <= MAX_CASES,
               "a suite has more cases than its results hold");

typedef struct ew_sizes {
    int64_t n, side, batch;
} ew_sizes;

/* The bytes one operation moves: its distinct input bytes and its output. */
static uint64_t case_bytes(const ew_case *c, const ew_sizes *z)
{
    uint64_t a = tsr_dtype_itemsize(c->a), b = tsr_dtype_itemsize(c->b);
    uint64_t out = tsr_dtype_itemsize(c->out);
    switch (c->shape) {
    case SHAPE_FLAT:
    case SHAPE_TRANSPOSED:
        return (uint64_t)z->n * (a + b + out);
    case SHAPE_BROADCAST:
        return (uint64_t)z->side * (a + b) + (uint64_t)z->n * out;
    case SHAPE_NCHW:
        return 2 * (uint64_t)z->batch * 64 * 56 * 56 * a;
    case SHAPE_UNARY:
        return (uint64_t)z->n * (a + out);
    case SHAPE_WHERE:
        return (uint64_t)z->n * (1 + a + b + out);
    }
    return 0;
}

/* ---- One case on one device ------------------------------------------- */

typedef struct ew_operands {
    const ew_case *c;
    tsr_op op; /* c->op's number */
    tsr_client *client;
    tsr_device device;
    tsr_tensor *cond, *a, *b, *out;
} ew_operands;

/* A tensor on the operands' device, filled with `fill` where it is not
 * negative. fill_ writes it where it lives: a large tensor on opencl:0
 * never passes through this process. */
static tsr_status make(ew_operands *o, tsr_dtype dtype, int ndim, const int64_t *sizes,
                       int64_t fill, tsr_tensor **out)
{
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = dtype, .has_device = true, .device = o->device};
    tsr_status st = tsr_tensor_empty(o->client, ndim, sizes, &opt, out);
    if (st != TSR_OK || fill < 0)
        return st;
    if ((st = tsr_tensor_fill_(*out, tsr_scalar_int(fill))) != TSR_OK) {
        tsr_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

/* Releases the tensors once nothing queued uses them, and gives their
 * memory back to the device. */
static void release_operands(ew_operands *o)
{
    bool opencl = o->device.type == TSR_DEVICE_OPENCL;
    if (opencl)
        tsr_synchronize(o->client, o->device);
    tsr_tensor_release(o->cond);
    tsr_tensor_release(o->a);
    tsr_tensor_release(o->b);
    tsr_tensor_release(o->out);
    o->cond = o->a = o->b = o->out = NULL;
    if (opencl)
        tsr_memory_empty_cache(o->client, o->device, NULL);
}

/* PERIOD samples of N(0, 1) (Box-Muller over a fixed xorshift stream;
 * |x| where `positive`), repeated through t's n elements: copied from
 * the host in float32, then converted on the device for another dtype.
 * PERIOD vectors' worth of lanes is far more than a branch predictor
 * learns, so each vector's mix of ways is as good as random. */
static bool synchronize(ew_operands *o);

#define PERIOD 65536
static tsr_status fill_normal(ew_operands *o, tsr_tensor *t, int64_t n, bool positive)
{
    float *h = malloc((size_t)n * sizeof(float));
    if (!h)
        return TSR_ERR_OUT_OF_MEMORY;
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (int64_t i = 0; i < n && i < PERIOD; i += 2) {
        double u[2];
        for (int j = 0; j < 2; j++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            u[j] = ((double)(s >> 11) + 1.0) / 9007199254740992.0; /* (0, 1] */
        }
        double r = sqrt(-2.0 * log(u[0])), a = 6.283185307179586 * u[1];
        h[i] = (float)(r * cos(a));
        if (i + 1 < n)
            h[i + 1] = (float)(r * sin(a));
    }
    for (int64_t i = 0; i < n && i < PERIOD; i++)
        h[i] = positive ? fabsf(h[i]) : h[i];
    for (int64_t i = PERIOD; i < n; i += PERIOD)
        memcpy(h + i, h, (size_t)(n - i < PERIOD ? n - i : PERIOD) * sizeof(float));
    tsr_tensor *f = t;
    tsr_status st = TSR_OK;
    if (tsr_tensor_dtype(t) != TSR_FLOAT32)
        st = make(o, TSR_FLOAT32, 1, &n, -1, &f);
    if (st == TSR_OK)
        st = tsr_tensor_copy_from_host(f, h, (size_t)n * sizeof(float));
    if (st == TSR_OK && f != t)
        st = tsr_tensor_copy_(t, f);
    if (f != t) {
        if (st == TSR_OK)
            st = synchronize(o) ? TSR_OK : TSR_ERR_RUNTIME;
        tsr_tensor_release(f);
    }
    free(h);
    return st;
}
#undef PERIOD

/* Inputs filled with 1 and 2 (a condition with true), or the first
 * with N(0, 1) samples (ew_input); an empty output. */
static tsr_status make_operands(ew_operands *o, const ew_sizes *z)
{
    const ew_case *c = o->c;
    int64_t flat[1] = {z->n}, square[2] = {z->side, z->side};
    int64_t column[2] = {z->side, 1}, row[2] = {1, z->side};
    int64_t nchw[4] = {z->batch, 64, 56, 56};
    const int64_t *a_sizes = flat, *b_sizes = flat, *out_sizes = flat;
    int ndim = 1;
    tsr_status st = TSR_OK;
    switch (c->shape) {
    case SHAPE_FLAT:
    case SHAPE_UNARY:
        break;
    case SHAPE_WHERE:
        st = make(o, TSR_BOOL, 1, flat, 1, &o->cond);
        break;
    case SHAPE_TRANSPOSED:
        a_sizes = b_sizes = out_sizes = square;
        ndim = 2;
        break;
    case SHAPE_BROADCAST:
        a_sizes = column;
        b_sizes = row;
        out_sizes = square;
        ndim = 2;
        break;
    case SHAPE_NCHW:
        return make(o, c->a, 4, nchw, 1, &o->a);
    }
    if (st == TSR_OK)
        st = make(o, c->a, ndim, a_sizes, 1, &o->a);
    if (st == TSR_OK && c->input != INPUT_CONSTANT)
        st = fill_normal(o, o->a, z->n, c->input == INPUT_ABS_NORMAL);
    if (st == TSR_OK && c->shape == SHAPE_TRANSPOSED) {
        tsr_tensor *base = o->a, *view = NULL;
        st = tsr_tensor_t(base, &view);
        tsr_tensor_release(base);
        o->a = st == TSR_OK ? view : NULL;
    }
    if (st == TSR_OK && c->shape != SHAPE_UNARY)
        st = make(o, c->b, ndim, b_sizes, 2, &o->b);
    if (st == TSR_OK)
        st = make(o, c->out, ndim, out_sizes, -1, &o->out);
    if (st != TSR_OK)
        release_operands(o);
    return st;
}

/* One operation into the output (add's own function, the others through
 * tsr_elementwise), or a channels_last copy made and released
 * (contiguous() makes a new tensor each time, as PyTorch's does). */
static bool run_once(ew_operands *o)
{
    switch (o->c->shape) {
    case SHAPE_NCHW: {
        tsr_tensor *r;
        if (tsr_tensor_contiguous(o->a, TSR_CHANNELS_LAST, &r) != TSR_OK)
            return false;
        tsr_tensor_release(r);
        return true;
    }
    case SHAPE_UNARY: {
        const tsr_tensor *in[1] = {o->a};
        return tsr_elementwise(o->op, in, 1, o->out, NULL) == TSR_OK;
    }
    case SHAPE_WHERE: {
        const tsr_tensor *in[3] = {o->cond, o->a, o->b};
        return tsr_elementwise(o->op, in, 3, o->out, NULL) == TSR_OK;
    }
    default:
        break;
    }
    if (strcmp(o->c->op, "add") == 0)
        return tsr_add_out(o->a, o->b, tsr_scalar_int(1), o->out) == TSR_OK;
    const tsr_tensor *in[2] = {o->a, o->b};
    return tsr_elementwise(o->op, in, 2, o->out, NULL) == TSR_OK;
}

static bool synchronize(ew_operands *o)
{
    return o->device.type == TSR_DEVICE_CPU || tsr_synchronize(o->client, o->device) == TSR_OK;
}

/* Seconds per operation over `reps` of them, queued and then waited for. */
static bool time_op(ew_operands *o, int reps, double *seconds)
{
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++)
        if (!run_once(o))
            return false;
    if (!synchronize(o))
        return false;
    *seconds = (double)(bench_now_ns() - t0) / 1e9 / reps;
    return true;
}

/* STREAM passes timed in this suite, and those run again (stalls). */
static int stream_passes, stream_retaken;

static bool time_stream(const stream_arrays *s, int reps, double *seconds)
{
    stream_passes += reps;
    return stream_time(s, reps, seconds, &stream_retaken);
}

/* `samples` samples of the baseline, as GB/s; false when it failed. */
static bool stream_turn(const stream_arrays *s, const ew_plan *plan, bench_samples *out)
{
    for (int k = 0; k < plan->samples; k++) {
        double sec;
        if (!time_stream(s, plan->reps, &sec)) {
            bench_note(suite, "%s: cannot start its threads", stream_name(s->kind));
            return false;
        }
        bench_samples_add(out, (double)stream_bytes(s) / sec / 1e9);
    }
    return true;
}

typedef struct ew_result {
    bool measured; /* the case ran on this device (value may still be NAN) */
    double value;  /* GB/s, NAN when the operation failed */
    double baseline;
    double paired; /* the median ratio of side-by-side samples; 0: none */
} ew_result;

/* Samples of an operation (GB/s), of the STREAM baseline, and the ratios
 * of those taken side by side: what the rest of a shared machine takes
 * from the memory at one moment then weighs on both sides of a ratio. */
typedef struct ew_pairs {
    bench_samples values, baselines, ratios;
} ew_pairs;

/* Adds a sample of the operation and, when `s` is given, a STREAM sample
 * taken right after it, paired with it. False (noted) when the STREAM
 * threads could not start: the caller pairs no more. */
static bool pair_add(ew_pairs *p, double gbps, const stream_arrays *s, int reps)
{
    bench_samples_add(&p->values, gbps);
    if (!s)
        return true;
    double sec;
    if (!time_stream(s, reps, &sec)) {
        bench_note(suite, "%s: cannot start its threads", stream_name(s->kind));
        return false;
    }
    double base = (double)stream_bytes(s) / sec / 1e9;
    bench_samples_add(&p->baselines, base);
    bench_samples_add(&p->ratios, gbps / base);
    return true;
}

/* The medians into *res (the value only when the operation ran to the
 * end, the paired ratio only when every sample was paired); frees p. */
static void pairs_finish(ew_pairs *p, bool ok, ew_result *res)
{
    if (ok) {
        res->value = bench_quantile(&p->values, 0.5);
        if (p->ratios.count == p->values.count)
            res->paired = bench_quantile(&p->ratios, 0.5);
    }
    res->baseline = bench_quantile(&p->baselines, 0.5);
    bench_samples_free(&p->values);
    bench_samples_free(&p->baselines);
    bench_samples_free(&p->ratios);
}

/* An accelerator runs an operation it has not seen on its generic
 * program while the one specialised to it is built in the background
 * (seconds on a CPU device with an empty cache, once per machine: the
 * daemon keeps it on disk). The first run (which also touches the memory
 * for the first time) asks for that program; then the daemon is asked
 * until it has no program left to make for the device (its generic ones
 * included, which it makes when it opens the device), at most
 * WARM_WAIT_NS (not with --quick, `patient` false: a smoke test of the
 * suite). Then the operation repeats for at least WARM_NS and three runs,
 * or until a run takes under a third of the first one's time (its own
 * program has taken over): the device's threads settle in the meantime
 * (one or two runs measured 10-30% below the steady state on PoCL). */
#define WARM_WAIT_NS 120000000000ull
#define WARM_POLL_NS 20000000ull
#define WARM_NS 3000000000ull

static bool warm_up(ew_operands *o, bool patient)
{
    if (o->device.type == TSR_DEVICE_CPU)
        return true;
    uint64_t start = bench_now_ns();
    tsr_device_status st;
    while (patient && tsr_admin_device_status(o->client, o->device, &st) == TSR_OK &&
           st.programs_pending > 0 && bench_now_ns() - start < WARM_WAIT_NS)
        nanosleep(&(struct timespec){.tv_nsec = WARM_POLL_NS}, NULL);
    start = bench_now_ns();
    double first = 0, sec;
    for (int n = 0;; n++) {
        if (!time_op(o, 1, &sec))
            return false;
        if (n == 0)
            first = sec;
        else if (sec < first / 3 || (n >= 2 && bench_now_ns() - start >= WARM_NS))
            return true;
    }
}

/* Measures one case on one device into *res; notes what failed. */
static void measure_case(const ew_case *c, tsr_client *client, tsr_device device,
                         const ew_plan *plan, const ew_sizes *z, int threads, ew_result *res)
{
    char dev[TSR_DEVICE_STR_MAX];
    tsr_device_str(device, dev, sizeof dev);
    uint64_t bytes = case_bytes(c, z);
    bench_note(suite, "%s on %s: %.0f MiB moved per operation", c->name, dev, MIB(bytes));
    *res = (ew_result){.measured = true, .value = NAN, .baseline = NAN};

    ew_operands o = {.c = c, .client = client, .device = device};
    bool op_ok = false;
    if (c->op && tsr_op_from_name(c->op, &o.op) != TSR_OK) {
        if (device.type == TSR_DEVICE_CPU) /* once a case */
            bench_note(suite, "%s: this libtessera has no operation '%s' yet", c->name, c->op);
    } else if (make_operands(&o, z) != TSR_OK) {
        bench_note(suite, "%s on %s: cannot make its tensors (%.0f MiB): %s%s", c->name, dev,
                   MIB(bytes), tsr_last_error(),
                   device.type == TSR_DEVICE_CPU ? ""
                                                 : " (a daemon must lend this much: see "
                                                   "tesserad --memory-limit)");
    } else if (!run_once(&o) || !synchronize(&o) || !warm_up(&o, plan != &quick_plan)) {
        bench_note(suite, "%s on %s failed: %s", c->name, dev, tsr_last_error());
        release_operands(&o);
    } else {
        op_ok = true;
    }

    /* The baseline's arrays now when both fit in the budget, else later. */
    stream_arrays s = {0};
    bool together = op_ok && 2 * bytes <= MEMORY_BUDGET;
    bool have_stream = together && stream_init(&s, c->base, bytes, threads, suite) == 0;
    /* Each sample of the operation is followed by one of the baseline. */
    ew_pairs p = {0};
    for (int r = 0; r < plan->rounds && op_ok; r++) {
        for (int k = 0; k < plan->samples && op_ok; k++) {
            double sec;
            if (!time_op(&o, plan->reps, &sec)) {
                bench_note(suite, "%s on %s failed: %s", c->name, dev, tsr_last_error());
                op_ok = false;
                break;
            }
            if (!pair_add(&p, (double)bytes / sec / 1e9, have_stream ? &s : NULL, plan->reps))
                have_stream = false;
        }
    }
    release_operands(&o);
    if (!together) {
        have_stream = stream_init(&s, c->base, bytes, threads, suite) == 0;
        for (int r = 0; r < plan->rounds && have_stream; r++)
            if (!stream_turn(&s, plan, &p.baselines))
                have_stream = false;
    }
    stream_free(&s);
    pairs_finish(&p, op_ok, res);
}

/* The case through PyTorch in `child`, each sample followed by a STREAM
 * sample as in measure_case: value is torch's GB/s, paired the median of
 * the pairs' ratios (0 where the two do not fit in memory together).
 * False, noted, when torch could not run it. */
static bool measure_torch(const ew_case *c, torch_child *child, const ew_plan *plan,
                          const ew_sizes *z, int threads, ew_result *res)
{
    uint64_t bytes = case_bytes(c, z);
    *res = (ew_result){.measured = true, .value = NAN, .baseline = NAN};
    if (!torch_case(child, c->name))
        return false;
    stream_arrays s = {0};
    bool have_stream =
        2 * bytes <= MEMORY_BUDGET && stream_init(&s, c->base, bytes, threads, suite) == 0;
    ew_pairs p = {0};
    bool ok = true;
    for (int k = 0; k < plan->rounds * plan->samples && ok; k++) {
        double sec;
        ok = torch_sample(child, &sec);
        if (ok && !pair_add(&p, (double)bytes / sec / 1e9, have_stream ? &s : NULL, plan->reps))
            have_stream = false;
    }
    torch_drop(child);
    stream_free(&s);
    pairs_finish(&p, ok, res);
    return ok;
}

/* ---- small_op_latency --------------------------------------------------- */

typedef struct small_op {
    tsr_client *client;
    tsr_device device;
    tsr_tensor *a, *b;
} small_op;

/* A 1-element add on the device and the wait for it; the result is
 * released after the clock is read. */
static bool small_add(small_op *s, double *ns)
{
    tsr_tensor *r;
    uint64_t t0 = bench_now_ns();
    if (tsr_add(s->a, s->b, tsr_scalar_int(1), &r) != TSR_OK)
        return false;
    tsr_status st = tsr_synchronize(s->client, s->device);
    *ns = (double)(bench_now_ns() - t0);
    tsr_tensor_release(r);
    return st == TSR_OK;
}

static bool small_turn(small_op *s, size_t warmup, size_t n, bench_samples *out)
{
    for (size_t k = 0; k < warmup + n; k++) {
        double ns;
        if (!small_add(s, &ns))
            return false;
        if (k >= warmup)
            bench_samples_add(out, ns);
    }
    return true;
}

/* Appends the samples of `from` to `to` and frees `from`. */
static void samples_move(bench_samples *to, bench_samples *from)
{
    for (size_t k = 0; k < from->count; k++)
        bench_samples_add(to, from->v[k]);
    bench_samples_free(from);
}

static bool ring_ping(void *client)
{
    return tsr_client_ping(client, TSR_TRANSPORT_RING) == TSR_OK;
}

/* Adds `row` (its numbers filled in) under this suite with these names. */
static void add_named(bench_results *out, bench_row row, const char *name, const char *device,
                      const char *baseline)
{
    row.suite = suite;
    bench_add_named(out, row, name, device, baseline);
}

/* A bandwidth row: GB/s against a baseline's GB/s (paired: the median
 * ratio of side-by-side samples, 0 where they were not paired). */
static void add_rate(bench_results *out, const char *name, const char *device, int threads,
                     double value, const char *baseline, double baseline_value, double paired,
                     double target)
{
    add_named(out,
              (bench_row){.threads = threads,
                          .value = value,
                          .p99 = NAN,
                          .unit = BENCH_GBPS,
                          .baseline_value = baseline_value,
                          .baseline_p99 = NAN,
                          .target = target,
                          .paired_ratio = paired},
              name, device, baseline);
}

static double us(bench_samples *s, double q)
{
    return bench_quantile(s, q) / 1000.0;
}

static void measure_latency(tsr_client *client, tsr_device device, const ew_plan *plan,
                            bench_results *out)
{
    char dev[TSR_DEVICE_STR_MAX];
    tsr_device_str(device, dev, sizeof dev);
    bench_note(suite, "small_op_latency on %s: a 1-element add and its synchronize", dev);
    tsr_device_properties props;
    bare_opencl *bare = NULL;
    if (tsr_device_get_properties(client, device, &props) != TSR_OK)
        bench_note(suite, "small_op_latency: %s", tsr_last_error());
    else
        bare_opencl_open(props.name, suite, &bare);

    small_op s = {.client = client, .device = device};
    static const int64_t one[1] = {1};
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = TSR_FLOAT32, .has_device = true, .device = device};
    bool op_ok = false;
    if (tsr_tensor_full(client, 1, one, tsr_scalar_int(1), &opt, &s.a) != TSR_OK ||
        tsr_tensor_full(client, 1, one, tsr_scalar_int(2), &opt, &s.b) != TSR_OK)
        bench_note(suite, "small_op_latency: cannot make its tensors: %s", tsr_last_error());
    else
        op_ok = true;

    /* Each round's three turns give a ratio of their medians as well: the
     * pair's ratio, in which the load of the rest of a shared machine at
     * that moment weighs on both sides. */
    bench_samples tessera = {0}, bare_s = {0}, ring = {0}, ratios = {0};
    bool ring_ok = true;
    for (int r = 0; r < plan->lat_rounds; r++) {
        bench_samples t_round = {0}, b_round = {0}, r_round = {0};
        if (op_ok && !small_turn(&s, plan->lat_warmup, plan->lat_n, &t_round)) {
            bench_note(suite, "small_op_latency failed: %s", tsr_last_error());
            op_ok = false;
        }
        if (bare &&
            bench_time_ops(bare_opencl_run, bare, plan->lat_warmup, plan->lat_n, &b_round) != 0) {
            bench_note(suite, "small_op_latency: the bare OpenCL enqueue failed");
            bare_opencl_close(bare);
            bare = NULL;
        }
        if (ring_ok &&
            bench_time_ops(ring_ping, client, plan->lat_warmup, plan->lat_n, &r_round) != 0) {
            bench_note(suite, "small_op_latency: ring ping failed: %s", tsr_last_error());
            ring_ok = false;
        }
        if (op_ok && bare && ring_ok)
            bench_samples_add(&ratios,
                              (bench_quantile(&b_round, 0.5) + bench_quantile(&r_round, 0.5)) /
                                  bench_quantile(&t_round, 0.5));
        samples_move(&tessera, &t_round);
        samples_move(&bare_s, &b_round);
        samples_move(&ring, &r_round);
    }
    tsr_tensor_release(s.a);
    tsr_tensor_release(s.b);
    bare_opencl_close(bare);

    bench_row row = {.threads = 1,
                     .value = op_ok ? us(&tessera, 0.5) : NAN,
                     .p99 = op_ok ? us(&tessera, 0.99) : NAN,
                     .unit = BENCH_US};
    if (bare_s.count && ring.count) {
        row.baseline_value = us(&bare_s, 0.5) + us(&ring, 0.5);
        row.baseline_p99 = NAN;
        row.target = LATENCY_TARGET;
        row.paired_ratio =
            ratios.count == (size_t)plan->lat_rounds ? bench_quantile(&ratios, 0.5) : 0;
        add_named(out, row, "small_op_latency", dev, "bare_enqueue_finish+ring_rtt");
        row.paired_ratio = 0;
    }
    if (bare_s.count) {
        row.baseline_value = us(&bare_s, 0.5);
        row.baseline_p99 = us(&bare_s, 0.99);
        row.target = NAN;
        add_named(out, row, "small_op_latency", dev, "bare_enqueue_finish");
    }
    if (ring.count)
        bench_note(suite, "small_op_latency: ring round trip %.3f us (p99 %.3f us)", us(&ring, 0.5),
                   us(&ring, 0.99));
    bench_samples_free(&tessera);
    bench_samples_free(&bare_s);
    bench_samples_free(&ring);
    bench_samples_free(&ratios);
}

/* What the measurements held at most: this process's resident memory and
 * the session's memory on opencl:0 (what a daemon must lend). */
static void report_memory(tsr_client *client, bool opencl)
{
    struct rusage ru;
    tsr_memory_stats st;
    char device_part[96] = "";
    if (opencl && tsr_memory_get_stats(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &st) == TSR_OK)
        snprintf(device_part, sizeof device_part, "; on opencl:0 at most %.0f MiB reserved",
                 MIB(st.peak_reserved));
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        bench_note(suite, "memory: this process at most %.0f MiB resident%s",
                   (double)ru.ru_maxrss / 1024.0, device_part);
}

/* ---- The suite ------------------------------------------------------------ */

/* A private daemon on a machine whose program cache is empty builds all of
 * opencl:0's generic programs after the first launch, and the program of
 * each measured operation's own is built only after them (a minute and
 * more on a slow CPU device): the rows here are of the steady state (cold
 * measures the way there), so they wait for the generic programs first
 * (not with --quick, a smoke test of the suite). */
#define GENERIC_TIMEOUT_NS (900ull * 1000000000ull)

static void wait_generic(tsr_client *client, const bench_daemon *d)
{
    tsr_tensor *t = NULL;
    int64_t one = 1;
    tsr_tensor_options to = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    if (tsr_tensor_ones(client, 1, &one, &to, &t) != TSR_OK ||
        tsr_add_(t, t, tsr_scalar_int(1)) != TSR_OK ||
        tsr_synchronize(client, to.device) != TSR_OK) {
        bench_note(suite, "the first launch on opencl:0 failed: %s", tsr_last_error());
        tsr_tensor_release(t);
        return;
    }
    tsr_tensor_release(t);
    int programs = 0;
    double seconds = 0;
    if (bench_daemon_wait_generic(d, 500000000ull, &programs, &seconds))
        return;
    bench_note(suite, "waiting for opencl:0's generic programs (built once per machine)");
    if (bench_daemon_wait_generic(d, GENERIC_TIMEOUT_NS, &programs, &seconds))
        bench_note(suite, "opencl:0's %d generic programs were built in %.1f s", programs, seconds);
    else
        bench_note(suite, "opencl:0's generic programs were not all built (see %s)", d->log);
}

/* A suite of cases, each on cpu and opencl:0 beside its STREAM loop and
 * PyTorch; elementwise adds the small-op latency. */
typedef struct ew_suite {
    const char *name;
    const ew_case *cases;
    size_t count;
    bool latency;
} ew_suite;

static int run_suite(const ew_suite *def, const bench_config *config, bench_results *out)
{
    suite = def->name;
    const ew_plan *plan = config->quick ? &quick_plan : &full_plan;
    int threads = config->threads > 0 ? config->threads : 1;
    bench_set_threads(config, suite, threads);
    bench_pin pin;
    bench_place(&pin, config, threads, suite);

    bench_daemon d = {.pid = -1};
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(&d, suite) != 0) {
            bench_unpin(&pin);
            return 1;
        }
        socket_path = d.socket;
    }
    tsr_client *client;
    tsr_client_options co = {.socket_path = socket_path, .name = "tessera-bench"};
    if (tsr_client_open(&co, &client) != TSR_OK) {
        bench_note(suite, "%s", tsr_last_error());
        if (d.pid > 0)
            bench_daemon_stop(&d);
        bench_unpin(&pin);
        return 1;
    }
    int32_t opencl_count = 0;
    bool opencl =
        tsr_device_count(client, TSR_DEVICE_OPENCL, &opencl_count) == TSR_OK && opencl_count > 0;
    tsr_device_properties props;
    if (!opencl)
        bench_note(suite, "no OpenCL device: the opencl:0 rows and small_op_latency are left out");
    else if (tsr_device_get_properties(client, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) ==
             TSR_OK)
        bench_note(suite, "opencl:0 is %s, %u compute units (%s)", props.name, props.compute_units,
                   props.api_version);
    if (opencl && d.pid > 0 && !config->quick)
        wait_generic(client, &d);

    const tsr_device devices[2] = {{.type = TSR_DEVICE_CPU, .index = -1},
                                   {.type = TSR_DEVICE_OPENCL, .index = 0}};
    const int device_count = opencl ? 2 : 1;
    ew_sizes z = {.n = (int64_t)1 << plan->log2_n,
                  .side = (int64_t)1 << (plan->log2_n / 2),
                  .batch = plan->batch};
    ew_result results[MAX_CASES][2] = {{{0}}};
    for (size_t k = 0; k < def->count; k++) {
        const ew_case *c = &def->cases[k];
        for (int d_ix = 0; d_ix < device_count; d_ix++) {
            ew_result *res = &results[k][d_ix];
            measure_case(c, client, devices[d_ix], plan, &z, threads, res);
            char dev[TSR_DEVICE_STR_MAX];
            tsr_device_str(devices[d_ix], dev, sizeof dev);
            if (!isnan(res->baseline))
                add_rate(out, c->name, dev, threads, res->value, stream_name(c->base),
                         res->baseline, res->paired, d_ix == 0 ? c->target_cpu : c->target_opencl);
        }
    }
    if (opencl && def->latency) {
        /* The latency is of two processes on CPUs of the scheduler's
         * choosing, as a user's would be. */
        bench_unpin_process(&pin, d.pid);
        bench_unpin(&pin);
        measure_latency(client, devices[1], plan, out);
        bench_place(&pin, config, threads, NULL);
    }
    report_memory(client, opencl);
    if (stream_retaken > 0)
        bench_note(suite, "%d of %d STREAM passes ran again, stalled (see elementwise_bare.c)",
                   stream_retaken, stream_passes);
    tsr_client_close(client);
    if (d.pid > 0)
        bench_daemon_stop(&d);

    if (config->torch) {
        torch_request req = {
            .threads = threads, .n = z.n, .side = z.side, .batch = z.batch, .reps = plan->reps};
        torch_child *child;
        if (torch_open(&req, suite, &child) == 0) {
            bench_note(suite, "torch %s", torch_version(child));
            for (size_t k = 0; k < def->count; k++) {
                const ew_case *c = &def->cases[k];
                ew_result t;
                if (!measure_torch(c, child, plan, &z, threads, &t))
                    continue;
                for (int d_ix = 0; d_ix < device_count; d_ix++) {
                    const ew_result *r = &results[k][d_ix];
                    if (!r->measured)
                        continue;
                    /* Each side's ratio to the STREAM samples beside it. */
                    double paired = r->paired > 0 && t.paired > 0 ? r->paired / t.paired : 0;
                    char dev[TSR_DEVICE_STR_MAX];
                    tsr_device_str(devices[d_ix], dev, sizeof dev);
                    add_rate(out, c->name, dev, threads, r->value, "torch", t.value, paired,
                             c->target_torch);
                }
            }
            torch_close(child);
        }
    }
    bench_unpin(&pin);
    return 0;
}

int bench_suite_elementwise(const bench_config *config, bench_results *out)
{
    static const ew_suite def = {"elementwise", elementwise_cases,
                                 sizeof elementwise_cases / sizeof elementwise_cases[0], true};
    return run_suite(&def, config, out);
}

int bench_suite_unary(const bench_config *config, bench_results *out)
{
    static const ew_suite def = {"unary", unary_cases, sizeof unary_cases / sizeof unary_cases[0],
                                 false};
    return run_suite(&def, config, out);
}
