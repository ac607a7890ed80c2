/* The accuracy of kernels/scalar_math.h's exp, log, expm1, log1p, tanh
 * and sigmoid (the host build of the element code every device shares;
 * the OpenCL build is held to it bit for bit by the ops-opencl
 * conformance run).
 *
 * The bound: every result is within 1 ulp of the correctly rounded one
 * (at most one step, in the ordering of the format's values, from it),
 * and the results IEEE 754 defines are exact.
 *
 * The references and why they decide that soundly:
 *   float32: glibc's functions in double, whose error is below 1 ulp
 *     of double (2^-52 relative; sigmoid's 1 / (1 + exp(-x)) below 1.25
 *     ulps), rounded to float. That rounding is the correctly rounded
 *     float unless the true value lies within the reference's error of a
 *     midpoint between two floats; where the double reference is that
 *     close (2^-50 relative, a wide margin), the reference is recomputed
 *     in long double (expl, logl, expm1l, log1pl, tanhl, 1 / (1 +
 *     expl(-x)): x87's 64-bit significand) and the test is repeated
 *     there.
 *   float64: the long double functions, rounded to double, with the same
 *     midpoint rule at 2^-61 relative (a few ulps of long double).
 * Where even the long double reference is that close to a midpoint, the
 * correctly rounded result is one of the two values beside it, and the
 * result must be one of those two (within 1 step of either).
 *
 * float32 runs a stride of 1021 over all 2^32 bit patterns (about 4.2
 * million inputs per function, every exponent and sign met) unless
 * TSR_EXP_LOG_EXHAUSTIVE=1 asks for all of them (TSR_EXP_LOG_THREADS=n
 * spreads them over n threads). float64 runs 16 million inputs per
 * function: random bit patterns over the whole range and the regions
 * where the functions are hard (near 0, near exp's overflow and
 * underflow thresholds, subnormal and near-1 arguments of log, near 0 and
 * near -1 for log1p, near 0 and expm1's saturation at -1, tanh's at 1,
 * sigmoid's subnormal results). The worst error in ulps (against the
 * reference, unrounded) is printed. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/scalar_ops.h"
#include "test.h"

/* The functions under test, their references and the inputs where they
 * are hard (for the float64 sweep). */
typedef struct func {
    const char *name;
    float (*f32)(float);
    double (*f64)(double);
    double (*ref_d)(double);
    long double (*ref_l)(long double);
    void (*hard)(double out[4]);
} func;

typedef struct stats {
    uint64_t count, inexact, ambiguous, bad;
    double max_ulp;
    uint64_t worst_input;
} stats;

/* The position of a float (double) in the order of the format's values:
 * consecutive values differ by 1, -0 and +0 by 1. */
static int64_t order_f(float x)
{
    uint32_t u = tsr__float_bits(x);
    return (u >> 31) ? -(int64_t)(u & 0x7FFFFFFFu) - 1 : (int64_t)u;
}
static int64_t order_d(double x)
{
    uint64_t u = tsr__double_bits(x);
    return (u >> 63) ? -(int64_t)(u & 0x7FFFFFFFFFFFFFFFull) - 1 : (int64_t)u;
}

static uint64_t steps(int64_t a, int64_t b)
{
    return a > b ? (uint64_t)(a - b) : (uint64_t)(b - a);
}

/* Whether a reference `ref` (rounded to `r` in the narrower format, whose
 * other neighbour of ref is `n`) is within rel * |ref| of their midpoint. */
static int near_mid(long double ref, long double r, long double n, long double rel)
{
    if (isinf(r) || isinf(n) || r == n)
        return isinf(r) && !isinf(ref) ? fabsl(ref - 0x1.ffffffffffffffffp+127L) <= rel * fabsl(ref)
                                       : 0;
    long double mid = (r + n) / 2;
    return fabsl(ref - mid) <= rel * fabsl(ref);
}

static float other_f(float r, long double ref)
{
    return (long double)r < ref ? nextafterf(r, INFINITY) : nextafterf(r, -INFINITY);
}
static double other_d(double r, long double ref)
{
    return (long double)r < ref ? nextafter(r, INFINITY) : nextafter(r, -INFINITY);
}

static void account(stats *s, uint64_t input, double err_ulp, int ok, int exact, int ambiguous)
{
    s->count++;
    s->inexact += !exact;
    s->ambiguous += ambiguous;
    if (!ok) {
        if (s->bad < 8)
            fprintf(stderr, "input 0x%llx: over 1 ulp (%.3f ulp)\n", (unsigned long long)input,
                    err_ulp);
        s->bad++;
    }
    if (err_ulp > s->max_ulp) {
        s->max_ulp = err_ulp;
        s->worst_input = input;
    }
}

/* got's distance from ref in ulps of the format at ref (the spacing of
 * the values around got). */
static double ulp_err_f(float got, long double ref)
{
    if (isnan(got) || isnan(ref))
        return isnan(got) && isnan(ref) ? 0 : 1e9;
    if (isinf(got) || isinf(ref))
        return (long double)got == ref ? 0
                                       : (isinf(got) && fabsl(ref) > 0x1.fffffep127L ? 0.5 : 1e9);
    float a = fabsf(got);
    float ulp = nextafterf(a, INFINITY) - a;
    return (double)(fabsl((long double)got - ref) / ulp);
}
static double ulp_err_d(double got, long double ref)
{
    if (isnan(got) || isnan(ref))
        return isnan(got) && isnan(ref) ? 0 : 1e9;
    if (isinf(got) || isinf(ref))
        return (long double)got == ref
                   ? 0
                   : (isinf(got) && fabsl(ref) > 0x1.fffffffffffffp1023L ? 0.5 : 1e9);
    double a = fabs(got);
    double ulp = nextafter(a, INFINITY) - a;
    return (double)(fabsl((long double)got - ref) / ulp);
}

static void check_f(stats *s, uint32_t u, const func *fn)
{
    float x = tsr__float_from_bits(u);
    float got = fn->f32(x);
    long double ref = fn->ref_d((double)x);
    float cr = (float)ref;
    int ambiguous = 0;
    if (!isnan(ref) && near_mid(ref, cr, other_f(cr, ref), 0x1p-50L)) {
        ref = fn->ref_l((long double)x);
        cr = (float)ref;
        ambiguous = near_mid(ref, cr, other_f(cr, ref), 0x1p-61L);
    }
    int ok;
    if (isnan(cr))
        ok = isnan(got);
    else if (ambiguous)
        ok = got == cr || got == other_f(cr, ref);
    else
        ok = steps(order_f(got), order_f(cr)) <= 1;
    account(s, u, ulp_err_f(got, ref), ok, isnan(cr) ? 1 : got == cr, ambiguous);
}

static void check_d(stats *s, uint64_t u, const func *fn)
{
    double x = tsr__double_from_bits(u);
    double got = fn->f64(x);
    long double ref = fn->ref_l((long double)x);
    double cr = (double)ref;
    int ambiguous = !isnan(ref) && near_mid(ref, cr, other_d(cr, ref), 0x1p-61L);
    int ok;
    if (isnan(cr))
        ok = isnan(got);
    else if (ambiguous)
        ok = got == cr || got == other_d(cr, ref);
    else
        ok = steps(order_d(got), order_d(cr)) <= 1;
    account(s, u, ulp_err_d(got, ref), ok, isnan(cr) ? 1 : got == cr, ambiguous);
}

typedef struct job {
    const func *fn;
    uint64_t first, last, stride; /* bit patterns first, first + stride, ... <= last */
    stats s;
} job;

static void *run_f32(void *arg)
{
    job *j = arg;
    for (uint64_t u = j->first; u <= j->last; u += j->stride)
        check_f(&j->s, (uint32_t)u, j->fn);
    return NULL;
}

static void merge(stats *into, const stats *s)
{
    into->count += s->count;
    into->inexact += s->inexact;
    into->ambiguous += s->ambiguous;
    into->bad += s->bad;
    if (s->max_ulp > into->max_ulp) {
        into->max_ulp = s->max_ulp;
        into->worst_input = s->worst_input;
    }
}

static void report(const char *name, const char *type, const stats *s)
{
    char what[32];
    snprintf(what, sizeof(what), "%s %s", name, type);
    printf("%-14s %12llu inputs, max error %.4f ulp (input 0x%llx), %llu not correctly rounded, "
           "%llu near a midpoint, %llu over 1 ulp\n",
           what, (unsigned long long)s->count, s->max_ulp, (unsigned long long)s->worst_input,
           (unsigned long long)s->inexact, (unsigned long long)s->ambiguous,
           (unsigned long long)s->bad);
    ASSERT_EQ(s->bad, 0);
}

static void float32_sweep(const func *fn)
{
    const char *ex = getenv("TSR_EXP_LOG_EXHAUSTIVE");
    const char *th = getenv("TSR_EXP_LOG_THREADS");
    int exhaustive = ex && strcmp(ex, "1") == 0;
    int nthreads = th ? atoi(th) : 1;
    if (nthreads < 1 || nthreads > 256)
        nthreads = 1;
    uint64_t stride = exhaustive ? 1 : 1021;
    job jobs[256];
    pthread_t tids[256];
    uint64_t total = (UINT64_C(1) << 32) / stride, per = total / (uint64_t)nthreads + 1;
    for (int t = 0; t < nthreads; t++) {
        uint64_t first = (uint64_t)t * per * stride, last = first + (per - 1) * stride;
        if (last > UINT32_MAX)
            last = UINT32_MAX;
        jobs[t] = (job){.fn = fn, .first = first, .last = last, .stride = stride};
        if (nthreads == 1)
            run_f32(&jobs[t]);
        else
            pthread_create(&tids[t], NULL, run_f32, &jobs[t]);
    }
    stats all = {0};
    for (int t = 0; t < nthreads; t++) {
        if (nthreads > 1)
            pthread_join(tids[t], NULL);
        merge(&all, &jobs[t].s);
    }
    report(fn->name, "float32", &all);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    return test_next_u64(&rng_state);
}
/* A uniform double in [lo, hi). */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53;
}

static void hard_exp(double v[4])
{
    v[0] = uniform(-746, 710);                             /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 80)); /* near 0 */
    v[2] = uniform(705, 710);                              /* overflow */
    v[3] = uniform(-746, -705);                            /* underflow */
}
static void hard_log(double v[4])
{
    v[0] = tsr__double_from_bits(next_u64() & 0x000FFFFFFFFFFFFFull); /* subnormal */
    v[1] = 1.0 + uniform(-0x1p-4, 0x1p-4);                            /* near 1 */
    v[2] = 1.0 + ldexp(uniform(-1, 1), -20 - (int)(next_u64() % 33)); /* nearer */
    v[3] = uniform(0.5, 4.0);
}
static void hard_expm1(double v[4])
{
    v[0] = uniform(-40, 710);                                /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-3, 3);                                   /* k = -4 ... 4 */
    v[3] = uniform(-40, -30);                                /* saturation at -1 */
}
static void hard_log1p(double v[4])
{
    v[0] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));     /* near 0, subnormal */
    v[1] = -1.0 + ldexp(uniform(0, 1), -(int)(next_u64() % 60)); /* near -1 */
    v[2] = uniform(-0.5, 2.0);                                   /* reduction edges */
    v[3] = ldexp(uniform(1, 2), (int)(next_u64() % 1024));       /* large */
}

static void hard_tanh(double v[4])
{
    v[0] = uniform(-25, 25);                                 /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-1, 1);                                   /* expm1(-2|x|) near 0 */
    v[3] = uniform(17, 21);                                  /* where it reaches 1 */
}
static void hard_sigmoid(double v[4])
{
    v[0] = uniform(-80, 40);                                 /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-750, -700);                              /* subnormal results */
    v[3] = uniform(-78, -74);                                /* where exp takes over */
}

/* sigmoid's references: 1 / (1 + exp(-x)), within a few ulps of the type
 * it is computed in (glibc's exp, one addition, one division), far
 * inside the margins above. */
static double sigmoid_d(double x)
{
    return 1 / (1 + exp(-x));
}
static long double sigmoid_l(long double x)
{
    return 1 / (1 + expl(-x));
}

static void float64_sweep(const func *fn)
{
    stats s = {0};
    const int n = 2000000;
    for (int i = 0; i < 4 * n; i++) /* any bit pattern: NaNs, infinities, both signs */
        check_d(&s, next_u64(), fn);
    for (int i = 0; i < n; i++) {
        double v[4];
        fn->hard(v);
        for (int k = 0; k < 4; k++)
            check_d(&s, tsr__double_bits(v[k]), fn);
    }
    report(fn->name, "float64", &s);
}

#define EXACT_F(fn, x, want) ASSERT_UEQ(tsr__float_bits(fn(x)), tsr__float_bits(want))
#define EXACT_D(fn, x, want) ASSERT_UEQ(tsr__double_bits(fn(x)), tsr__double_bits(want))
/* The same in both types, for the functions added later. */
#define EXACT_FD(name, x, want)                                    \
    do {                                                           \
        EXACT_F(tsr__k_##name##_f32, (float)(x), (float)(want));   \
        EXACT_D(tsr__k_##name##_f64, (double)(x), (double)(want)); \
    } while (0)
#define NAN_FD(name, x) \
    ASSERT_TRUE(isnan(tsr__k_##name##_f32((float)(x))) && isnan(tsr__k_##name##_f64(x)))

static void exact_results(void)
{
    EXACT_F(tsr__k_exp_f32, 0.0f, 1.0f);
    EXACT_F(tsr__k_exp_f32, -0.0f, 1.0f);
    EXACT_F(tsr__k_exp_f32, -INFINITY, 0.0f);
    EXACT_F(tsr__k_exp_f32, INFINITY, (float)INFINITY);
    EXACT_F(tsr__k_log_f32, 1.0f, 0.0f);
    EXACT_F(tsr__k_log_f32, 0.0f, -(float)INFINITY);
    EXACT_F(tsr__k_log_f32, -0.0f, -(float)INFINITY);
    EXACT_F(tsr__k_log_f32, INFINITY, (float)INFINITY);
    ASSERT_TRUE(isnan(tsr__k_log_f32(-1.0f)));
    ASSERT_TRUE(isnan(tsr__k_log_f32(-INFINITY)));
    ASSERT_TRUE(isnan(tsr__k_log_f32(-0x1p-149f)));
    ASSERT_TRUE(isnan(tsr__k_log_f32(NAN)));
    ASSERT_TRUE(isnan(tsr__k_exp_f32(NAN)));
    EXACT_D(tsr__k_exp_f64, 0.0, 1.0);
    EXACT_D(tsr__k_exp_f64, -0.0, 1.0);
    EXACT_D(tsr__k_exp_f64, -INFINITY, 0.0);
    EXACT_D(tsr__k_exp_f64, INFINITY, (double)INFINITY);
    EXACT_D(tsr__k_log_f64, 1.0, 0.0);
    EXACT_D(tsr__k_log_f64, 0.0, -(double)INFINITY);
    EXACT_D(tsr__k_log_f64, -0.0, -(double)INFINITY);
    EXACT_D(tsr__k_log_f64, INFINITY, (double)INFINITY);
    ASSERT_TRUE(isnan(tsr__k_log_f64(-1.0)));
    ASSERT_TRUE(isnan(tsr__k_log_f64(-INFINITY)));
    ASSERT_TRUE(isnan(tsr__k_log_f64(-0x1p-1074)));
    ASSERT_TRUE(isnan(tsr__k_log_f64(NAN)));
    ASSERT_TRUE(isnan(tsr__k_exp_f64(NAN)));
    EXACT_FD(expm1, 0.0, 0.0);
    EXACT_FD(expm1, -0.0, -0.0);
    EXACT_FD(expm1, -INFINITY, -1.0);
    EXACT_FD(expm1, INFINITY, INFINITY);
    EXACT_FD(log1p, 0.0, 0.0);
    EXACT_FD(log1p, -0.0, -0.0);
    EXACT_FD(log1p, -1.0, -INFINITY);
    EXACT_FD(log1p, INFINITY, INFINITY);
    EXACT_F(tsr__k_expm1_f32, -0x1p-149f, -0x1p-149f);
    EXACT_D(tsr__k_expm1_f64, 0x1p-1074, 0x1p-1074);
    EXACT_F(tsr__k_log1p_f32, 0x1p-149f, 0x1p-149f);
    EXACT_D(tsr__k_log1p_f64, -0x1p-1074, -0x1p-1074);
    NAN_FD(expm1, NAN);
    NAN_FD(log1p, NAN);
    NAN_FD(log1p, -1.5);
    NAN_FD(log1p, -INFINITY);
    EXACT_FD(tanh, 0.0, 0.0);
    EXACT_FD(tanh, -0.0, -0.0);
    EXACT_FD(tanh, INFINITY, 1.0);
    EXACT_FD(tanh, -INFINITY, -1.0);
    EXACT_FD(sigmoid, 0.0, 0.5);
    EXACT_FD(sigmoid, -0.0, 0.5);
    EXACT_FD(sigmoid, INFINITY, 1.0);
    EXACT_FD(sigmoid, -INFINITY, 0.0);
    EXACT_F(tsr__k_tanh_f32, -0x1p-149f, -0x1p-149f);
    EXACT_D(tsr__k_tanh_f64, 0x1p-1074, 0x1p-1074);
    NAN_FD(tanh, NAN);
    NAN_FD(sigmoid, NAN);
}

static const func funcs[] = {
    {"exp", tsr__k_exp_f32, tsr__k_exp_f64, exp, expl, hard_exp},
    {"log", tsr__k_log_f32, tsr__k_log_f64, log, logl, hard_log},
    {"expm1", tsr__k_expm1_f32, tsr__k_expm1_f64, expm1, expm1l, hard_expm1},
    {"log1p", tsr__k_log1p_f32, tsr__k_log1p_f64, log1p, log1pl, hard_log1p},
    {"tanh", tsr__k_tanh_f32, tsr__k_tanh_f64, tanh, tanhl, hard_tanh},
    {"sigmoid", tsr__k_sigmoid_f32, tsr__k_sigmoid_f64, sigmoid_d, sigmoid_l, hard_sigmoid},
};

int main(void)
{
    /* TSR_EXP_LOG_ONLY=name runs one function's sweeps. */
    const char *only = getenv("TSR_EXP_LOG_ONLY");
    exact_results();
    for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (!only || strcmp(only, funcs[i].name) == 0)
            float32_sweep(&funcs[i]);
    for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (!only || strcmp(only, funcs[i].name) == 0)
            float64_sweep(&funcs[i]);
    TEST_DONE();
}
