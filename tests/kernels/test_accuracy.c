/* The accuracy of kernels/scalar_math.h's functions (the host build of
 * the element code every device shares; the OpenCL build is held to it bit
 * for bit by the ops-opencl conformance run).
 *
 * The bound: every result is within 1 ulp of the correctly rounded one
 * (at most one step, in the ordering of the format's values, from it),
 * and the results IEEE 754 defines are exact.
 *
 * The reference is GNU MPFR: the function at 256 bits (MPFR rounds it
 * correctly), rounded once more to the format with the format's exponent
 * range and subnormals (mpfr_subnormalize), which is the correctly rounded
 * value unless the true one lies within 2^-256 of a midpoint. MPFR takes
 * microseconds a call, too slow for tens of millions of inputs in every
 * build, so a faster reference screens first and MPFR decides where the
 * screen cannot:
 *   float32: glibc's double function (error below a few ulps of double),
 *     rounded to float. That is the correctly rounded float unless the
 *     true value lies within the screen's error of a midpoint between two
 *     floats: where the double is within 2^-50 (relative) of one, MPFR
 *     decides.
 *   float64: glibc's long double function (x87's 64-bit significand),
 *     rounded to double, with MPFR deciding within 2^-62 of a midpoint
 *     (glibc's long double functions err by a few units of 2^-64).
 * MPFR also decides one input in every 256 on its own, and the test fails
 * if it ever disagrees with the screen (the screen is then not what this
 * comment says it is).
 *
 * float32 runs a stride of 1021 over all 2^32 bit patterns (about 4.2
 * million inputs per function, every exponent and sign met) unless
 * TSR_ACCURACY_EXHAUSTIVE=1 asks for all of them (TSR_ACCURACY_THREADS=n
 * spreads them over n threads); a function of two arguments runs 4 million
 * random pairs and its hard ones. float64 runs 4 million inputs per
 * function (16 million with TSR_ACCURACY_EXHAUSTIVE=1): random bit patterns over the whole range and each function's
 * hard regions (near 0, near overflow and underflow thresholds, subnormal
 * arguments and results, where the function saturates). The worst error
 * in ulps (against the reference, unrounded) is printed.
 * TSR_ACCURACY_ONLY=name runs one function's sweeps (cname: a complex
 * function's).
 *
 * The work comes in parts (the exact results; each function's float32
 * sweep, its float64 sweep; each complex function) that CTest runs as
 * shards side by side: `--shard K/N` runs the parts of shard K of N, and
 * `--shards K/N...` checks that the shards named take every part exactly
 * once (CTest's list of them, kernels-accuracy-shards). A part
 * left out still draws its random inputs, so every part checks the same
 * inputs in any shard (or with TSR_ACCURACY_ONLY) as in a whole run. */
#include <complex.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/scalar_ops.h"
#include "test.h"

/* x + yi with its parts as given (infinities and NaNs too): C11's CMPLX,
 * which clang's complex.h may lack; a complex type is laid out as an
 * array of its two parts (C11 6.2.5). */
static double complex cplx64(double x, double y)
{
    double parts[2] = {x, y};
    double complex z;
    memcpy(&z, parts, sizeof z);
    return z;
}

static float complex cplx32(float x, float y)
{
    float parts[2] = {x, y};
    float complex z;
    memcpy(&z, parts, sizeof z);
    return z;
}

/* A function under test: f32 and f64 (or f32_2 and f64_2 for two
 * arguments), its screening references ref_d and ref_l (ref_d2, ref_l2),
 * the MPFR function that decides (mp, mp2), and hard (hard2), which gives
 * four hard inputs for the float64 sweep at each call. */
typedef struct func {
    const char *name;
    float (*f32)(float);
    double (*f64)(double);
    float (*f32_2)(float, float);
    double (*f64_2)(double, double);
    double (*ref_d)(double);
    long double (*ref_l)(long double);
    double (*ref_d2)(double, double);
    long double (*ref_l2)(long double, long double);
    int (*mp)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
    int (*mp2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
    void (*hard)(double v[4]);
    void (*hard2)(double v[4][2]);
} func;

typedef struct stats {
    uint64_t count, inexact, decided, bad, screen_bad;
    double max_ulp;
    uint64_t worst_input, worst_input2;
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

/* The MPFR reference: fn at (x, y) to 256 bits in MPFR's full exponent
 * range, then rounded to `bits` bits with the exponent range [emin, emax]
 * of the format (MPFR's convention: 0.5 <= m < 1), subnormals included.
 * Returns the rounded value as a long double (exact: both formats fit)
 * and the 256-bit one in *wide (for the error in ulps). */
static long double mp_reference(const func *fn, double x, double y, int bits, mpfr_exp_t emin,
                                mpfr_exp_t emax, long double *wide)
{
    mpfr_t a, b, v, r;
    mpfr_inits2(256, a, b, v, (mpfr_ptr)0);
    mpfr_init2(r, bits);
    mpfr_set_d(a, x, MPFR_RNDN);
    mpfr_set_d(b, y, MPFR_RNDN);
    if (fn->mp2)
        fn->mp2(v, a, b, MPFR_RNDN);
    else
        fn->mp(v, a, MPFR_RNDN);
    *wide = mpfr_get_ld(v, MPFR_RNDN);
    int t = mpfr_set(r, v, MPFR_RNDN);
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    long double out = mpfr_get_ld(r, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clears(a, b, v, r, (mpfr_ptr)0);
    return out;
}

static void account(stats *s, uint64_t input, uint64_t input2, double err_ulp, int ok, int exact,
                    int decided)
{
    s->count++;
    s->inexact += !exact;
    s->decided += decided;
    if (!ok) {
        if (s->bad < 8)
            fprintf(stderr, "input 0x%llx 0x%llx: over 1 ulp (%.3f ulp)\n",
                    (unsigned long long)input, (unsigned long long)input2, err_ulp);
        s->bad++;
    }
    if (err_ulp > s->max_ulp) {
        s->max_ulp = err_ulp;
        s->worst_input = input;
        s->worst_input2 = input2;
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

/* One input of the float32 sweep: y is used by functions of two
 * arguments. `spot` asks MPFR to decide whatever the screen says. */
static void check_f(stats *s, const func *fn, float x, float y, int spot)
{
    float got = fn->f32_2 ? fn->f32_2(x, y) : fn->f32(x);
    long double ref = fn->f32_2 ? fn->ref_d2((double)x, (double)y) : fn->ref_d((double)x);
    float cr = (float)ref;
    int screened = !isnan(ref) && near_mid(ref, cr, other_f(cr, ref), 0x1p-50L);
    int decided = screened || spot;
    if (decided) {
        long double wide;
        float mp = (float)mp_reference(fn, x, y, 24, -148, 128, &wide);
        if (!screened && !(mp == cr || (isnan(mp) && isnan(cr)))) {
            fprintf(stderr, "%s float32 0x%x 0x%x: the screen gives %a, MPFR %a\n", fn->name,
                    tsr__float_bits(x), tsr__float_bits(y), (double)cr, (double)mp);
            s->screen_bad++;
        }
        cr = mp;
        ref = wide;
    }
    int ok = isnan(cr) ? isnan(got) : steps(order_f(got), order_f(cr)) <= 1;
    account(s, tsr__float_bits(x), tsr__float_bits(y), ulp_err_f(got, ref), ok,
            isnan(cr) ? 1 : got == cr, decided);
}

static void check_d(stats *s, const func *fn, double x, double y, int spot)
{
    double got = fn->f64_2 ? fn->f64_2(x, y) : fn->f64(x);
    long double ref =
        fn->f64_2 ? fn->ref_l2((long double)x, (long double)y) : fn->ref_l((long double)x);
    double cr = (double)ref;
    int screened = !isnan(ref) && near_mid(ref, cr, other_d(cr, ref), 0x1p-62L);
    int decided = screened || spot;
    if (decided) {
        long double wide;
        double mp = (double)mp_reference(fn, x, y, 53, -1073, 1024, &wide);
        if (!screened && !(mp == cr || (isnan(mp) && isnan(cr)))) {
            fprintf(stderr, "%s float64 %a %a: the screen gives %a, MPFR %a\n", fn->name, x, y, cr,
                    mp);
            s->screen_bad++;
        }
        cr = mp;
        ref = wide;
    }
    int ok = isnan(cr) ? isnan(got) : steps(order_d(got), order_d(cr)) <= 1;
    account(s, tsr__double_bits(x), tsr__double_bits(y), ulp_err_d(got, ref), ok,
            isnan(cr) ? 1 : got == cr, decided);
}

typedef struct job {
    const func *fn;
    uint64_t first, last, stride; /* bit patterns first, first + stride, ... <= last */
    stats s;
} job;

static void *run_f32(void *arg)
{
    job *j = arg;
    uint64_t n = 0;
    for (uint64_t u = j->first; u <= j->last; u += j->stride, n++) {
        float x = tsr__float_from_bits((uint32_t)u);
        check_f(&j->s, j->fn, x, 0.0f, n % 256 == 0);
    }
    mpfr_free_cache();
    return NULL;
}

static void merge(stats *into, const stats *s)
{
    into->count += s->count;
    into->inexact += s->inexact;
    into->decided += s->decided;
    into->bad += s->bad;
    into->screen_bad += s->screen_bad;
    if (s->max_ulp > into->max_ulp) {
        into->max_ulp = s->max_ulp;
        into->worst_input = s->worst_input;
        into->worst_input2 = s->worst_input2;
    }
}

static void report(const char *name, const char *type, const stats *s)
{
    char what[32], input[48];
    snprintf(what, sizeof(what), "%s %s", name, type);
    snprintf(input, sizeof(input), s->worst_input2 ? "0x%llx 0x%llx" : "0x%llx",
             (unsigned long long)s->worst_input, (unsigned long long)s->worst_input2);
    printf("%-14s %12llu inputs, max error %.4f ulp (input %s), %llu not correctly rounded, "
           "%llu decided by MPFR, %llu over 1 ulp\n",
           what, (unsigned long long)s->count, s->max_ulp, input, (unsigned long long)s->inexact,
           (unsigned long long)s->decided, (unsigned long long)s->bad);
    ASSERT_EQ(s->bad, 0);
    ASSERT_EQ(s->screen_bad, 0);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    return test_next_u64(&rng_state);
}

/* One function's float32 sweep; with `run` false, only the random
 * inputs it would check are drawn. */
static void float32_sweep(const func *fn, bool run)
{
    stats all = {0};
    if (fn->f32_2) { /* random pairs of bit patterns, then the hard ones */
        for (int i = 0; i < 3000000; i++) {
            uint64_t u = next_u64();
            if (run)
                check_f(&all, fn, tsr__float_from_bits((uint32_t)u),
                        tsr__float_from_bits((uint32_t)(u >> 32)), i % 256 == 0);
        }
        for (int i = 0; i < 250000; i++) {
            double v[4][2];
            fn->hard2(v);
            for (int k = 0; k < 4 && run; k++)
                check_f(&all, fn, (float)v[k][0], (float)v[k][1], (i * 4 + k) % 256 == 0);
        }
        if (run)
            report(fn->name, "float32", &all);
        return;
    }
    if (!run) /* a stride through the bit patterns: nothing random */
        return;
    const char *ex = getenv("TSR_ACCURACY_EXHAUSTIVE");
    const char *th = getenv("TSR_ACCURACY_THREADS");
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
    for (int t = 0; t < nthreads; t++) {
        if (nthreads > 1)
            pthread_join(tids[t], NULL);
        merge(&all, &jobs[t].s);
    }
    report(fn->name, "float32", &all);
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

static void hard_exp2(double v[4])
{
    v[0] = uniform(-1076, 1024);                           /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 80)); /* near 0 */
    v[2] = uniform(1020, 1024);                            /* overflow */
    v[3] = uniform(-1076, -1020);                          /* subnormal results */
}
static void hard_sinh(double v[4])
{
    v[0] = uniform(-711, 711);                               /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-40, 40);                                 /* both exponentials count */
    v[3] = uniform(705, 711);                                /* overflow, e^x / 2 */
}
static void hard_asinh(double v[4])
{
    v[0] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));   /* near 0, subnormal */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 40));     /* around a = a^3 / 6's edge */
    v[2] = ldexp(uniform(1, 2), (int)(next_u64() % 1024));     /* large */
    v[3] = ldexp(uniform(-1, 1), 20 + (int)(next_u64() % 15)); /* around log(2a)'s edge */
}
static void hard_acosh(double v[4])
{
    v[0] = 1.0 + ldexp(uniform(0, 1), -(int)(next_u64() % 60)); /* near 1 */
    v[1] = ldexp(uniform(1, 2), (int)(next_u64() % 1024));      /* large */
    v[2] = uniform(1, 4);
    v[3] = ldexp(uniform(1, 2), 20 + (int)(next_u64() % 15)); /* around log(2a)'s edge */
}
static void hard_atanh(double v[4])
{
    double one = next_u64() % 2 ? 1.0 : -1.0;
    v[0] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));          /* near 0, subnormal */
    v[1] = one - one * ldexp(uniform(0, 1), -(int)(next_u64() % 60)); /* near +-1 */
    v[2] = uniform(-1, 1);
    v[3] = ldexp(uniform(-1, 1), -20 - (int)(next_u64() % 15)); /* around a's edge */
}
static void hard_rsqrt(double v[4])
{
    v[0] = ldexp(uniform(1, 4), (int)(next_u64() % 2100) - 1076);     /* every exponent */
    v[1] = tsr__double_from_bits(next_u64() & 0x000FFFFFFFFFFFFFull); /* subnormal */
    v[2] = uniform(0.5, 4.0);
    v[3] = ldexp(uniform(0.5, 2), 128); /* where the scaling starts */
}
static void hard_hypot(double v[4][2])
{
    for (int k = 0; k < 4; k++) {
        int e = (int)(next_u64() % 2100) - 1076;
        v[k][0] = ldexp(uniform(-2, 2), e);
        /* the other one near (k 0, 1) or far below (2, 3) in exponent */
        int d = k < 2 ? (int)(next_u64() % 9) - 4 : -(int)(next_u64() % 80);
        v[k][1] = ldexp(uniform(-2, 2), e + d);
    }
    v[3][0] = ldexp(uniform(1, 2), 1023); /* overflow near */
    v[3][1] = ldexp(uniform(1, 2), 1022 - (int)(next_u64() % 60));
}

/* rsqrt's references: 1 / sqrt(x), two roundings of the type (within an
 * ulp of it, inside the screens' margins); MPFR's keeps -0's sign in
 * the infinity, as 1 / sqrt(-0) does in IEEE 754. */
static double rsqrt_d(double x)
{
    return 1 / sqrt(x);
}
static long double rsqrt_l(long double x)
{
    return 1 / sqrtl(x);
}
static int rsqrt_mp(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    if (mpfr_zero_p(x)) {
        mpfr_set_inf(r, mpfr_signbit(x) ? -1 : 1);
        return 0;
    }
    return mpfr_rec_sqrt(r, x, rnd);
}

/* sin, cos and tan: their Cody-Waite range, near multiples of pi/2 (a
 * multiple of the double nearest pi/2, a few ulps off), huge arguments
 * (the reduction through 2/pi's bits), near 0 and subnormal. */
static void hard_sin(double v[4])
{
    double k = (double)(next_u64() % (1u << 20));
    v[0] = ldexp(uniform(-1, 1), (int)(next_u64() % 21));
    v[1] = k * 0x1.921fb54442d18p+0 + ldexp((double)(int)(next_u64() % 17) - 8, -52) * (k + 1);
    v[2] = ldexp(uniform(1, 2), 20 + (int)(next_u64() % 1004)) * (next_u64() & 1 ? -1 : 1);
    v[3] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));
}
/* asin and acos: the whole domain, near +-1, near 0 and subnormal, and
 * where |x| = 1/2 changes paths. */
static void hard_asin(double v[4])
{
    v[0] = uniform(-1, 1);
    v[1] = (1 - ldexp(uniform(0, 1), -(int)(next_u64() % 60))) * (next_u64() & 1 ? -1 : 1);
    v[2] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));
    v[3] = uniform(0.45, 0.55) * (next_u64() & 1 ? -1 : 1);
}
/* atan: around 1, near 0 and subnormal, large, and the reduction's
 * breakpoints (7/16, 11/16, 1 and their reciprocals). */
static void hard_atan(double v[4])
{
    v[0] = uniform(-3, 3);
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));
    v[2] = ldexp(uniform(1, 2), (int)(next_u64() % 1024)) * (next_u64() & 1 ? -1 : 1);
    v[3] = uniform(0.4, 0.72);
    if (next_u64() & 1)
        v[3] = 1 / v[3];
}
/* atan2: any quadrant, a tiny or huge quotient (the y / x shortcut and
 * pi/2), both subnormal, both huge, and |y| near |x| (pi/4). */
static void hard_atan2(double v[4][2])
{
    v[0][0] = uniform(-4, 4);
    v[0][1] = uniform(-4, 4);
    v[1][0] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100));
    v[1][1] = ldexp(uniform(-1, 1), (int)(next_u64() % 600) - 300);
    v[2][0] = ldexp(uniform(-1, 1), -1040 + (int)(next_u64() % 30));
    v[2][1] = ldexp(uniform(-1, 1), -1040 + (int)(next_u64() % 30));
    v[3][0] = ldexp(uniform(0.9, 1.1), 1000 + (int)(next_u64() % 20));
    v[3][1] =
        v[3][0] * (1 + ldexp(uniform(-1, 1), -(int)(next_u64() % 40))) * (next_u64() & 1 ? -1 : 1);
    if (next_u64() & 1)
        v[3][0] = -v[3][0];
}

/* pow: moderate bases and exponents; a base near 1 with a large exponent;
 * any base with an exponent that puts y log x anywhere from below the
 * subnormals to past overflow; negative bases with integer exponents;
 * subnormal bases. */
static void hard_pow(double v[4][2])
{
    v[0][0] = uniform(0, 4);
    v[0][1] = uniform(-60, 60);
    v[1][0] = 1 + ldexp(uniform(-1, 1), -(int)(next_u64() % 52) - 1);
    v[1][1] = uniform(-740, 740) / log(v[1][0]);
    v[2][0] = ldexp(uniform(0.5, 1), (int)(next_u64() % 2090) - 1060);
    v[2][1] = uniform(-760, 720) / log(v[2][0]);
    v[3][0] = -uniform(0.5, 3);
    v[3][1] = rint(uniform(-600, 600));
    if (next_u64() % 4 == 0) {
        v[3][0] = ldexp(uniform(-1, 1), -1030 - (int)(next_u64() % 40));
        v[3][1] = uniform(-1.2, 1.2);
    }
}

/* sigmoid's references: 1 / (1 + exp(-x)), within a few ulps of the type
 * it is computed in (glibc's exp, one addition, one division), far
 * inside the screens' margins; MPFR's carries 64 guard bits through the
 * same three steps. */
static double sigmoid_d(double x)
{
    return 1 / (1 + exp(-x));
}
static long double sigmoid_l(long double x)
{
    return 1 / (1 + expl(-x));
}
static int sigmoid_mp(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(r) + 64);
    mpfr_neg(t, x, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    int ternary = mpfr_ui_div(r, 1, t, rnd);
    mpfr_clear(t);
    return ternary;
}

static void hard_erf(double v[4])
{
    v[0] = uniform(-7, 7);                                   /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(0.4, 3.2);                                /* the rows of x */
    v[3] = uniform(5.5, 6.5);                                /* where it reaches 1 */
}
static void hard_erfc(double v[4])
{
    v[0] = uniform(-7, 28);                                  /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(2.9, 27);                                 /* the rows of 1/x */
    v[3] = uniform(26, 27.6);                                /* subnormal results */
}
static void hard_gelu(double v[4])
{
    v[0] = uniform(-40, 10);                                 /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-39, -30);                                /* subnormal results */
    v[3] = uniform(-9, 5); /* the table's rows (-3 to 4), its edges, erfc's paths */
}
static void hard_gelu_tanh(double v[4])
{
    v[0] = uniform(-30, 10);                                 /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-22, -18);                                /* subnormal results */
    v[3] = uniform(-1100, 1100);                             /* where 2u passes its ends */
}
static void hard_silu(double v[4])
{
    v[0] = uniform(-760, 40);                                /* the whole range */
    v[1] = ldexp(uniform(-1, 1), -(int)(next_u64() % 1100)); /* near 0, subnormal */
    v[2] = uniform(-755, -700);                              /* subnormal results */
    v[3] = uniform(-78, -74);                                /* where exp takes over */
}

/* gelu's references: x/2 erfc(-x/sqrt2). Rounding -x/sqrt2 would cost
 * up to x^2 of its ulps in erfc far below 0, so its rounding error yl is
 * put back to first order (erfc(y + yl) = erfc(y) - yl 2/sqrt(pi)
 * e^(-y^2)): a few units of 2^-64 in long double, the double screen that
 * rounded. MPFR's carries 64 guard bits. NaN at -inf, as the kernel and
 * PyTorch give (MPFR: -inf * erfc(+inf) = -inf * 0). */
/* The constants in long double and what they leave out (from mpmath). */
#define SQRT1_2_L 0.7071067811865475244008443621048490392848L
#define SQRT1_2_LO 1.895032558893257079655062e-20L
#define TWO_SQRTPI_L 1.128379167095512573896158903121545171688L
static long double gelu_l(long double x)
{
    if (isinf(x))
        return x > 0 ? x : NAN;
    long double y = -x * SQRT1_2_L;
    long double yl = fmal(-x, SQRT1_2_L, -y) - x * SQRT1_2_LO;
    long double r = x / 2 * erfcl(y);
    return fmal(-x / 2, yl * TWO_SQRTPI_L * expl(-y * y), r);
}
static double gelu_d(double x)
{
    return (double)gelu_l(x);
}
static int gelu_mp(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(r) + 64);
    mpfr_sqrt_ui(t, 2, MPFR_RNDN);
    mpfr_div(t, x, t, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_erfc(t, t, MPFR_RNDN);
    mpfr_mul(t, t, x, MPFR_RNDN);
    int ternary = mpfr_div_ui(r, t, 2, rnd);
    mpfr_clear(t);
    return ternary;
}

/* gelu's tanh form, x/2 (1 + tanh(u)) = x sigmoid(2u) with u = sqrt(2/pi)
 * (x + 0.044715 x^3): 2u in long double is off by about |2u| of its
 * ulps, which sigmoid turns into as much relative error far below 0, so
 * 2u is taken in two words (exact products, 2 sqrt(2/pi) and its product
 * with 0.044715 in two words each) and the low word put back to first
 * order: sigmoid(v + vl) = s (1 + vl (1 - s)). Far from 0 the result is
 * x or x * 0 (and NaN at -inf, as the kernel and PyTorch). */
#define GELU_A_L 1.595769121605730711759784239737527473903L
#define GELU_A_LO 5.351177755720478292013163e-20L
#define GELU_B_L 0.07135481627260024877633875227986354099559L
#define GELU_B_LO -8.750062144008984958247768e-22L
static long double gelu_tanh_l(long double x)
{
    if (isinf(x))
        return x > 0 ? x : NAN;
    if (fabsl(x) > 1e4L) /* x, or x * 0 (2u is beyond -1e11) */
        return x > 0 ? x : x * 0;
    long double x2 = x * x, x2l = fmal(x, x, -x2);
    long double x3 = x2 * x, x3l = fmal(x2, x, -x3) + x2l * x;
    long double a = GELU_A_L * x, b = GELU_B_L * x3;
    long double v = a + b;
    long double bb = v - a;
    long double vl = (a - (v - bb)) + (b - bb) + fmal(GELU_A_L, x, -a) + GELU_A_LO * x +
                     fmal(GELU_B_L, x3, -b) + GELU_B_L * x3l + GELU_B_LO * x3;
    long double e = expl(v < 0 ? v : -v), s = v < 0 ? e / (1 + e) : 1 / (1 + e);
    long double r = x * s;
    return fmal(r, vl * (1 - s), r);
}
static double gelu_tanh_d(double x)
{
    return (double)gelu_tanh_l(x);
}
static int gelu_tanh_mp(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_t t, u;
    mpfr_inits2(mpfr_get_prec(r) + 64, t, u, (mpfr_ptr)0);
    mpfr_set_str(u, "0.044715", 10, MPFR_RNDN);
    mpfr_pow_ui(t, x, 3, MPFR_RNDN);
    mpfr_mul(t, t, u, MPFR_RNDN);
    mpfr_add(t, t, x, MPFR_RNDN);
    mpfr_const_pi(u, MPFR_RNDN);
    mpfr_ui_div(u, 2, u, MPFR_RNDN);
    mpfr_sqrt(u, u, MPFR_RNDN);
    mpfr_mul(t, t, u, MPFR_RNDN);
    mpfr_mul_si(t, t, -2, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    int ternary = mpfr_div(r, x, t, rnd);
    mpfr_clears(t, u, (mpfr_ptr)0);
    return ternary;
}

/* silu's references: x / (1 + exp(-x)) as sigmoid's. */
static long double silu_l(long double x)
{
    return x / (1 + expl(-x));
}
static double silu_d(double x)
{
    return (double)silu_l(x);
}
static int silu_mp(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(r) + 64);
    mpfr_neg(t, x, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    int ternary = mpfr_div(r, x, t, rnd);
    mpfr_clear(t);
    return ternary;
}

/* One function's float64 sweep; with `run` false, only its random
 * inputs are drawn. */
static void float64_sweep(const func *fn, bool run)
{
    stats s = {0};
    const char *ex = getenv("TSR_ACCURACY_EXHAUSTIVE");
    const int n = ex && strcmp(ex, "1") == 0 ? 2000000 : 500000;
    for (int i = 0; i < 4 * n; i++) { /* any bit pattern: NaNs, infinities, both signs */
        uint64_t u = next_u64();
        double y = fn->f64_2 ? tsr__double_from_bits(next_u64()) : 0;
        if (run)
            check_d(&s, fn, tsr__double_from_bits(u), y, i % 256 == 0);
    }
    for (int i = 0; i < n; i++) {
        double v[4], v2[4][2];
        if (fn->f64_2)
            fn->hard2(v2);
        else
            fn->hard(v);
        for (int k = 0; k < 4 && run; k++)
            check_d(&s, fn, fn->f64_2 ? v2[k][0] : v[k], fn->f64_2 ? v2[k][1] : 0,
                    (i * 4 + k) % 256 == 0);
    }
    if (run)
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

#define NAN_FD2(name, x, y)                                           \
    ASSERT_TRUE(isnan(tsr__k_##name##_f32((float)(x), (float)(y))) && \
                isnan(tsr__k_##name##_f64(x, y)))
#define EXACT2_FD(name, y, x, want)                                                      \
    do {                                                                                 \
        ASSERT_UEQ(tsr__float_bits(tsr__k_##name##_f32((float)(y), (float)(x))),         \
                   tsr__float_bits((float)(want)));                                      \
        ASSERT_UEQ(tsr__double_bits(tsr__k_##name##_f64(y, x)), tsr__double_bits(want)); \
    } while (0)

/* The trigonometric functions' IEEE-defined results; pi and its
 * fractions correctly rounded in each type (PI_F, PI_D). */
#define PI_F 0x1.921fb6p+1f
#define PI_D 0x1.921fb54442d18p+1
static void trig_exact_results(void)
{
    static const double zeros[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074};
    for (int i = 0; i < 4; i++) {
        EXACT_FD(sin, zeros[i], zeros[i]);
        EXACT_FD(tan, zeros[i], zeros[i]);
        EXACT_FD(asin, zeros[i], zeros[i]);
        EXACT_FD(atan, zeros[i], zeros[i]);
        EXACT_FD(cos, zeros[i], 1.0);
    }
    EXACT_F(tsr__k_sin_f32, -0x1p-149f, -0x1p-149f);
    EXACT_F(tsr__k_tan_f32, 0x1p-149f, 0x1p-149f);
    EXACT_FD(acos, 1.0, 0.0);
    EXACT_F(tsr__k_acos_f32, -1.0f, PI_F);
    EXACT_D(tsr__k_acos_f64, -1.0, PI_D);
    EXACT_F(tsr__k_asin_f32, -1.0f, -PI_F / 2);
    EXACT_D(tsr__k_asin_f64, -1.0, -PI_D / 2);
    EXACT_F(tsr__k_atan_f32, INFINITY, PI_F / 2);
    EXACT_D(tsr__k_atan_f64, -INFINITY, -PI_D / 2);
    EXACT_F(tsr__k_atan_f32, 1.0f, PI_F / 4);
    EXACT_D(tsr__k_atan_f64, -1.0, -PI_D / 4);
    static const double nans[] = {INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 3; i++) {
        NAN_FD(sin, nans[i]);
        NAN_FD(cos, nans[i]);
        NAN_FD(tan, nans[i]);
    }
    NAN_FD(asin, 1.5);
    NAN_FD(asin, -INFINITY);
    NAN_FD(acos, -1.0000001);
    NAN_FD(acos, INFINITY);
    NAN_FD(asin, NAN);
    NAN_FD(acos, NAN);
    NAN_FD(atan, NAN);
    /* atan2 at zeros and infinities (C11 F.10.1.4), signs kept */
    EXACT2_FD(atan2, 0.0, 0.0, 0.0);
    EXACT2_FD(atan2, -0.0, 0.0, -0.0);
    EXACT2_FD(atan2, 0.0, -0.0, PI_D);
    EXACT2_FD(atan2, -0.0, -0.0, -PI_D);
    EXACT2_FD(atan2, -0.0, -2.0, -PI_D);
    EXACT2_FD(atan2, 0.0, 3.0, 0.0);
    EXACT2_FD(atan2, 2.0, 0.0, PI_D / 2);
    EXACT2_FD(atan2, -2.0, -0.0, -PI_D / 2);
    EXACT2_FD(atan2, INFINITY, INFINITY, PI_D / 4);
    EXACT2_FD(atan2, -INFINITY, -INFINITY, -0x1.2d97c7f3321d2p+1);
    EXACT2_FD(atan2, INFINITY, 5.0, PI_D / 2);
    EXACT2_FD(atan2, 5.0, -INFINITY, PI_D);
    EXACT2_FD(atan2, -5.0, INFINITY, -0.0);
    EXACT2_FD(atan2, 1.0, 1.0, PI_D / 4);
    ASSERT_UEQ(tsr__float_bits(tsr__k_atan2_f32(-INFINITY, -INFINITY)),
               tsr__float_bits(-0x1.2d97c8p+1f));
    ASSERT_TRUE(isnan(tsr__k_atan2_f64(NAN, 1.0)) && isnan(tsr__k_atan2_f32(1.0f, NAN)));
}

/* pow's special values (C11 F.10.4.4) and powers whose results are
 * exact numbers (the kernel's error stays far below half an ulp). */
static void pow_exact_results(void)
{
    const double any[] = {0.0, -0.0, 1.5, -3.0, INFINITY, -INFINITY, NAN, 0x1p-1074};
    for (int i = 0; i < 8; i++) {
        EXACT2_FD(pow, any[i], 0.0, 1.0);
        EXACT2_FD(pow, any[i], -0.0, 1.0);
        EXACT2_FD(pow, 1.0, any[i], 1.0);
    }
    EXACT2_FD(pow, -1.0, INFINITY, 1.0);
    EXACT2_FD(pow, -1.0, -INFINITY, 1.0);
    EXACT2_FD(pow, 0.0, -3.0, INFINITY);
    EXACT2_FD(pow, -0.0, -3.0, -INFINITY);
    EXACT2_FD(pow, -0.0, -2.0, INFINITY);
    EXACT2_FD(pow, -0.0, -0.5, INFINITY);
    EXACT2_FD(pow, -0.0, -INFINITY, INFINITY);
    EXACT2_FD(pow, -0.0, 3.0, -0.0);
    EXACT2_FD(pow, -0.0, 2.0, 0.0);
    EXACT2_FD(pow, -0.0, 0.5, 0.0);
    EXACT2_FD(pow, 0.0, INFINITY, 0.0);
    EXACT2_FD(pow, 0.5, -INFINITY, INFINITY);
    EXACT2_FD(pow, -0.5, INFINITY, 0.0);
    EXACT2_FD(pow, 2.0, -INFINITY, 0.0);
    EXACT2_FD(pow, -2.0, INFINITY, INFINITY);
    EXACT2_FD(pow, -INFINITY, -3.0, -0.0);
    EXACT2_FD(pow, -INFINITY, -2.0, 0.0);
    EXACT2_FD(pow, -INFINITY, 3.0, -INFINITY);
    EXACT2_FD(pow, -INFINITY, 0.5, INFINITY);
    EXACT2_FD(pow, INFINITY, -0.5, 0.0);
    EXACT2_FD(pow, INFINITY, 2.0, INFINITY);
    EXACT2_FD(pow, 2.0, 10.0, 1024.0);
    EXACT2_FD(pow, 10.0, 10.0, 1e10);
    EXACT2_FD(pow, -2.0, 3.0, -8.0);
    EXACT2_FD(pow, -2.0, -2.0, 0.25);
    EXACT2_FD(pow, 0.5, 3.0, 0.125);
    EXACT2_FD(pow, 16.0, 0.25, 2.0);
    EXACT2_FD(pow, 2.0, -149.0, 0x1p-149);
    EXACT2_FD(pow, -3.0, 5.0, -243.0);
    EXACT2_FD(pow, 3.0, 1e300, INFINITY);
    EXACT2_FD(pow, -3.0, 1e300, INFINITY);
    EXACT2_FD(pow, 0.25, 1e300, 0.0);
    NAN_FD2(pow, -2.0, 0.5);
    NAN_FD2(pow, NAN, 2.0);
    NAN_FD2(pow, 2.0, NAN);
    NAN_FD2(pow, -1.0, NAN);
}

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
    EXACT_FD(exp2, 0.0, 1.0);
    EXACT_FD(exp2, -0.0, 1.0);
    EXACT_FD(exp2, 3.0, 8.0);
    EXACT_FD(exp2, -3.0, 0.125);
    EXACT_FD(exp2, -INFINITY, 0.0);
    EXACT_FD(exp2, INFINITY, INFINITY);
    EXACT_F(tsr__k_exp2_f32, -149.0f, 0x1p-149f);
    EXACT_D(tsr__k_exp2_f64, -1074.0, 0x1p-1074);
    EXACT_F(tsr__k_exp2_f32, 128.0f, (float)INFINITY);
    EXACT_D(tsr__k_exp2_f64, 1024.0, (double)INFINITY);
    EXACT_FD(log2, 1.0, 0.0);
    EXACT_FD(log2, 8.0, 3.0);
    EXACT_FD(log2, 0.125, -3.0);
    EXACT_F(tsr__k_log2_f32, 0x1p-149f, -149.0f);
    EXACT_D(tsr__k_log2_f64, 0x1p-1074, -1074.0);
    EXACT_FD(log2, 0.0, -INFINITY);
    EXACT_FD(log2, -0.0, -INFINITY);
    EXACT_FD(log2, INFINITY, INFINITY);
    EXACT_FD(log10, 1.0, 0.0);
    EXACT_FD(log10, 1000.0, 3.0);
    EXACT_FD(log10, 0.0, -INFINITY);
    EXACT_FD(log10, INFINITY, INFINITY);
    NAN_FD(exp2, NAN);
    NAN_FD(log2, NAN);
    NAN_FD(log2, -1.0);
    NAN_FD(log10, -INFINITY);
    EXACT_FD(sinh, 0.0, 0.0);
    EXACT_FD(sinh, -0.0, -0.0);
    EXACT_FD(sinh, INFINITY, INFINITY);
    EXACT_FD(sinh, -INFINITY, -INFINITY);
    EXACT_FD(cosh, 0.0, 1.0);
    EXACT_FD(cosh, -0.0, 1.0);
    EXACT_FD(cosh, -INFINITY, INFINITY);
    EXACT_FD(asinh, -0.0, -0.0);
    EXACT_FD(asinh, -INFINITY, -INFINITY);
    EXACT_FD(acosh, 1.0, 0.0);
    EXACT_FD(acosh, INFINITY, INFINITY);
    EXACT_FD(atanh, -0.0, -0.0);
    EXACT_FD(atanh, 1.0, INFINITY);
    EXACT_FD(atanh, -1.0, -INFINITY);
    EXACT_F(tsr__k_sinh_f32, -0x1p-149f, -0x1p-149f);
    EXACT_D(tsr__k_asinh_f64, 0x1p-1074, 0x1p-1074);
    EXACT_D(tsr__k_atanh_f64, -0x1p-1074, -0x1p-1074);
    NAN_FD(sinh, NAN);
    NAN_FD(cosh, NAN);
    NAN_FD(asinh, NAN);
    NAN_FD(acosh, 0.5);
    NAN_FD(acosh, -INFINITY);
    NAN_FD(atanh, 1.5);
    NAN_FD(atanh, -INFINITY);
    EXACT_FD(rsqrt, 0.0, INFINITY);
    EXACT_FD(rsqrt, -0.0, -INFINITY);
    EXACT_FD(rsqrt, INFINITY, 0.0);
    EXACT_FD(rsqrt, 4.0, 0.5);
    EXACT_F(tsr__k_rsqrt_f32, 0x1p-148f, 0x1p74f);
    EXACT_D(tsr__k_rsqrt_f64, 0x1p-1074, 0x1p537);
    NAN_FD(rsqrt, -1.0);
    NAN_FD(rsqrt, NAN);
    ASSERT_UEQ(tsr__float_bits(tsr__k_hypot_f32(NAN, -INFINITY)), tsr__float_bits(INFINITY));
    ASSERT_UEQ(tsr__double_bits(tsr__k_hypot_f64(-INFINITY, NAN)), tsr__double_bits(INFINITY));
    ASSERT_UEQ(tsr__float_bits(tsr__k_hypot_f32(-0.0f, -0.0f)), 0);
    ASSERT_UEQ(tsr__double_bits(tsr__k_hypot_f64(-3.0, 4.0)), tsr__double_bits(5.0));
    ASSERT_UEQ(tsr__double_bits(tsr__k_hypot_f64(-0x1p-1074, 0.0)), tsr__double_bits(0x1p-1074));
    ASSERT_TRUE(isnan(tsr__k_hypot_f32(NAN, 1.0f)) && isnan(tsr__k_hypot_f64(0.0, NAN)));
    EXACT_FD(erf, 0.0, 0.0);
    EXACT_FD(erf, -0.0, -0.0);
    EXACT_FD(erf, INFINITY, 1.0);
    EXACT_FD(erf, -INFINITY, -1.0);
    EXACT_FD(erfc, 0.0, 1.0);
    EXACT_FD(erfc, -0.0, 1.0);
    EXACT_FD(erfc, INFINITY, 0.0);
    EXACT_FD(erfc, -INFINITY, 2.0);
    EXACT_F(tsr__k_erf_f32, -0x1p-149f, -0x1p-149f);
    EXACT_D(tsr__k_erf_f64, 0x1p-1074, 0x1p-1074);
    NAN_FD(erf, NAN);
    NAN_FD(erfc, NAN);
    /* gelu, its tanh form and silu: +-0 and +inf kept, NaN at -inf (as
     * PyTorch 1.13) */
    EXACT_FD(gelu, 0.0, 0.0);
    EXACT_FD(gelu, -0.0, -0.0);
    EXACT_FD(gelu, INFINITY, INFINITY);
    EXACT_FD(gelut, 0.0, 0.0);
    EXACT_FD(gelut, -0.0, -0.0);
    EXACT_FD(gelut, INFINITY, INFINITY);
    EXACT_FD(silu, 0.0, 0.0);
    EXACT_FD(silu, -0.0, -0.0);
    EXACT_FD(silu, INFINITY, INFINITY);
    NAN_FD(gelu, NAN);
    NAN_FD(gelu, -INFINITY);
    NAN_FD(gelut, NAN);
    NAN_FD(gelut, -INFINITY);
    NAN_FD(silu, NAN);
    NAN_FD(silu, -INFINITY);
    trig_exact_results();
    pow_exact_results();
}

static const func funcs[] = {
    {.name = "exp",
     .f32 = tsr__k_exp_f32,
     .f64 = tsr__k_exp_f64,
     .ref_d = exp,
     .ref_l = expl,
     .mp = mpfr_exp,
     .hard = hard_exp},
    {.name = "log",
     .f32 = tsr__k_log_f32,
     .f64 = tsr__k_log_f64,
     .ref_d = log,
     .ref_l = logl,
     .mp = mpfr_log,
     .hard = hard_log},
    {.name = "expm1",
     .f32 = tsr__k_expm1_f32,
     .f64 = tsr__k_expm1_f64,
     .ref_d = expm1,
     .ref_l = expm1l,
     .mp = mpfr_expm1,
     .hard = hard_expm1},
    {.name = "log1p",
     .f32 = tsr__k_log1p_f32,
     .f64 = tsr__k_log1p_f64,
     .ref_d = log1p,
     .ref_l = log1pl,
     .mp = mpfr_log1p,
     .hard = hard_log1p},
    {.name = "tanh",
     .f32 = tsr__k_tanh_f32,
     .f64 = tsr__k_tanh_f64,
     .ref_d = tanh,
     .ref_l = tanhl,
     .mp = mpfr_tanh,
     .hard = hard_tanh},
    {.name = "sigmoid",
     .f32 = tsr__k_sigmoid_f32,
     .f64 = tsr__k_sigmoid_f64,
     .ref_d = sigmoid_d,
     .ref_l = sigmoid_l,
     .mp = sigmoid_mp,
     .hard = hard_sigmoid},
    {.name = "exp2",
     .f32 = tsr__k_exp2_f32,
     .f64 = tsr__k_exp2_f64,
     .ref_d = exp2,
     .ref_l = exp2l,
     .mp = mpfr_exp2,
     .hard = hard_exp2},
    {.name = "log2",
     .f32 = tsr__k_log2_f32,
     .f64 = tsr__k_log2_f64,
     .ref_d = log2,
     .ref_l = log2l,
     .mp = mpfr_log2,
     .hard = hard_log},
    {.name = "log10",
     .f32 = tsr__k_log10_f32,
     .f64 = tsr__k_log10_f64,
     .ref_d = log10,
     .ref_l = log10l,
     .mp = mpfr_log10,
     .hard = hard_log},
    {.name = "sinh",
     .f32 = tsr__k_sinh_f32,
     .f64 = tsr__k_sinh_f64,
     .ref_d = sinh,
     .ref_l = sinhl,
     .mp = mpfr_sinh,
     .hard = hard_sinh},
    {.name = "cosh",
     .f32 = tsr__k_cosh_f32,
     .f64 = tsr__k_cosh_f64,
     .ref_d = cosh,
     .ref_l = coshl,
     .mp = mpfr_cosh,
     .hard = hard_sinh},
    {.name = "asinh",
     .f32 = tsr__k_asinh_f32,
     .f64 = tsr__k_asinh_f64,
     .ref_d = asinh,
     .ref_l = asinhl,
     .mp = mpfr_asinh,
     .hard = hard_asinh},
    {.name = "acosh",
     .f32 = tsr__k_acosh_f32,
     .f64 = tsr__k_acosh_f64,
     .ref_d = acosh,
     .ref_l = acoshl,
     .mp = mpfr_acosh,
     .hard = hard_acosh},
    {.name = "atanh",
     .f32 = tsr__k_atanh_f32,
     .f64 = tsr__k_atanh_f64,
     .ref_d = atanh,
     .ref_l = atanhl,
     .mp = mpfr_atanh,
     .hard = hard_atanh},
    {.name = "rsqrt",
     .f32 = tsr__k_rsqrt_f32,
     .f64 = tsr__k_rsqrt_f64,
     .ref_d = rsqrt_d,
     .ref_l = rsqrt_l,
     .mp = rsqrt_mp,
     .hard = hard_rsqrt},
    {.name = "hypot",
     .f32_2 = tsr__k_hypot_f32,
     .f64_2 = tsr__k_hypot_f64,
     .ref_d2 = hypot,
     .ref_l2 = hypotl,
     .mp2 = mpfr_hypot,
     .hard2 = hard_hypot},
    {.name = "erf",
     .f32 = tsr__k_erf_f32,
     .f64 = tsr__k_erf_f64,
     .ref_d = erf,
     .ref_l = erfl,
     .mp = mpfr_erf,
     .hard = hard_erf},
    {.name = "erfc",
     .f32 = tsr__k_erfc_f32,
     .f64 = tsr__k_erfc_f64,
     .ref_d = erfc,
     .ref_l = erfcl,
     .mp = mpfr_erfc,
     .hard = hard_erfc},
    {.name = "gelu",
     .f32 = tsr__k_gelu_f32,
     .f64 = tsr__k_gelu_f64,
     .ref_d = gelu_d,
     .ref_l = gelu_l,
     .mp = gelu_mp,
     .hard = hard_gelu},
    {.name = "gelu_tanh",
     .f32 = tsr__k_gelut_f32,
     .f64 = tsr__k_gelut_f64,
     .ref_d = gelu_tanh_d,
     .ref_l = gelu_tanh_l,
     .mp = gelu_tanh_mp,
     .hard = hard_gelu_tanh},
    {.name = "silu",
     .f32 = tsr__k_silu_f32,
     .f64 = tsr__k_silu_f64,
     .ref_d = silu_d,
     .ref_l = silu_l,
     .mp = silu_mp,
     .hard = hard_silu},
    {.name = "sin",
     .f32 = tsr__k_sin_f32,
     .f64 = tsr__k_sin_f64,
     .ref_d = sin,
     .ref_l = sinl,
     .mp = mpfr_sin,
     .hard = hard_sin},
    {.name = "cos",
     .f32 = tsr__k_cos_f32,
     .f64 = tsr__k_cos_f64,
     .ref_d = cos,
     .ref_l = cosl,
     .mp = mpfr_cos,
     .hard = hard_sin},
    {.name = "tan",
     .f32 = tsr__k_tan_f32,
     .f64 = tsr__k_tan_f64,
     .ref_d = tan,
     .ref_l = tanl,
     .mp = mpfr_tan,
     .hard = hard_sin},
    {.name = "asin",
     .f32 = tsr__k_asin_f32,
     .f64 = tsr__k_asin_f64,
     .ref_d = asin,
     .ref_l = asinl,
     .mp = mpfr_asin,
     .hard = hard_asin},
    {.name = "acos",
     .f32 = tsr__k_acos_f32,
     .f64 = tsr__k_acos_f64,
     .ref_d = acos,
     .ref_l = acosl,
     .mp = mpfr_acos,
     .hard = hard_asin},
    {.name = "atan",
     .f32 = tsr__k_atan_f32,
     .f64 = tsr__k_atan_f64,
     .ref_d = atan,
     .ref_l = atanl,
     .mp = mpfr_atan,
     .hard = hard_atan},
    {.name = "atan2",
     .f32_2 = tsr__k_atan2_f32,
     .f64_2 = tsr__k_atan2_f64,
     .ref_d2 = atan2,
     .ref_l2 = atan2l,
     .mp2 = mpfr_atan2,
     .hard2 = hard_atan2},
    {.name = "pow",
     .f32_2 = tsr__k_pow_f32,
     .f64_2 = tsr__k_pow_f64,
     .ref_d2 = pow,
     .ref_l2 = powl,
     .mp2 = mpfr_pow,
     .hard2 = hard_pow},
};

/* ---- complex functions ---------------------------------------------------
 *
 * The complex inverse functions and pow of kernels/scalar_trig.h, part by
 * part, against a reference computed here with MPFR at 640 bits from
 * their definitions (no MPC on the build machines): with a = |x|, b = |y|,
 *   asinh(a + bi) = log(w + sqrt(w^2 + 1)) for w = a + bi (the first
 *     quadrant, where no branch cut is near), the signs of x and y put
 *     back (asinh is odd and real on the real axis);
 *   atanh(z) = (log(1 + z) - log(1 - z)) / 2 off its cuts;
 *   acosh(z) = 2 log(sqrt((z + 1) / 2) + sqrt((z - 1) / 2)) (Kahan's form,
 *     right on both sides of its cut);
 *   asin z = -i asinh(iz), acos z = pi/2 - asin z, atan z = -i atanh(iz);
 *   x^y = exp(y (log|x| + i arg x)).
 * Complex log and sqrt are the principal ones, from hypot, atan2 and real
 * square roots. The arguments are random: parts of random sign and
 * magnitude 2^-20 to 2^20 (every fourth a part near 0, 1 or the other
 * part's size), and for pow a base with parts up to 4 and an exponent with
 * parts up to 3 (plus real bases and exponents), where |y log x| stays
 * below about 50. The error of each part is counted in ulps of that part
 * (against the 640-bit value; pow's against 1/8 of |x^y| where the part
 * is smaller); the worst per function and type is printed and held to
 * the bound docs/semantics.md states (5 ulps; pow 2.5). The special
 * values (zero, infinite and NaN parts, and 1, -1, 2, 1/2 among them) are
 * held to the host's glibc functions (casinh ... cpow) bit for bit, NaN
 * payloads and NaN signs aside: those are the values C99's Annex G and
 * glibc give and Tessera follows. */

#define CPLX_PREC 640

typedef struct cnum {
    mpfr_t re, im;
} cnum;

static void c_init(cnum *z)
{
    mpfr_inits2(CPLX_PREC, z->re, z->im, (mpfr_ptr)0);
}
static void c_clear(cnum *z)
{
    mpfr_clears(z->re, z->im, (mpfr_ptr)0);
}
/* r = log z (principal). */
static void c_log(cnum *r, const cnum *z)
{
    mpfr_t h;
    mpfr_init2(h, CPLX_PREC);
    mpfr_hypot(h, z->re, z->im, MPFR_RNDN);
    mpfr_atan2(r->im, z->im, z->re, MPFR_RNDN);
    mpfr_log(r->re, h, MPFR_RNDN);
    mpfr_clear(h);
}
/* r = sqrt z (principal): sqrt((|z| + |x|) / 2) for one part, y / 2 over
 * it for the other. */
static void c_sqrt(cnum *r, const cnum *z)
{
    mpfr_t h, s, t;
    mpfr_inits2(CPLX_PREC, h, s, t, (mpfr_ptr)0);
    mpfr_hypot(h, z->re, z->im, MPFR_RNDN);
    mpfr_abs(t, z->re, MPFR_RNDN);
    mpfr_add(s, h, t, MPFR_RNDN);
    mpfr_div_2ui(s, s, 1, MPFR_RNDN);
    mpfr_sqrt(s, s, MPFR_RNDN); /* the larger part */
    mpfr_div(t, z->im, s, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    if (mpfr_sgn(z->re) >= 0) {
        mpfr_set(r->re, s, MPFR_RNDN);
        mpfr_set(r->im, t, MPFR_RNDN);
    } else {
        mpfr_abs(r->re, t, MPFR_RNDN);
        mpfr_setsign(r->im, s, mpfr_signbit(z->im), MPFR_RNDN);
    }
    mpfr_clears(h, s, t, (mpfr_ptr)0);
}
static void c_mul(cnum *r, const cnum *a, const cnum *b)
{
    mpfr_t p, q, re;
    mpfr_inits2(CPLX_PREC, p, q, re, (mpfr_ptr)0);
    mpfr_mul(p, a->re, b->re, MPFR_RNDN);
    mpfr_mul(q, a->im, b->im, MPFR_RNDN);
    mpfr_sub(re, p, q, MPFR_RNDN);
    mpfr_mul(p, a->re, b->im, MPFR_RNDN);
    mpfr_mul(q, a->im, b->re, MPFR_RNDN);
    mpfr_add(r->im, p, q, MPFR_RNDN);
    mpfr_set(r->re, re, MPFR_RNDN);
    mpfr_clears(p, q, re, (mpfr_ptr)0);
}

enum { C_ASINH, C_ACOSH, C_ATANH, C_ASIN, C_ACOS, C_ATAN, C_POW };

/* The reference of function f at x (and y for pow) in *r. */
static void c_reference(int f, double xr, double xi, double yr, double yi, cnum *r)
{
    cnum z, w, t;
    c_init(&z);
    c_init(&w);
    c_init(&t);
    int sre = 0, sim = 0;
    if (f == C_ASIN || f == C_ACOS || f == C_ATAN) { /* w = iz */
        mpfr_set_d(z.re, -xi, MPFR_RNDN);
        mpfr_set_d(z.im, xr, MPFR_RNDN);
    } else {
        mpfr_set_d(z.re, xr, MPFR_RNDN);
        mpfr_set_d(z.im, xi, MPFR_RNDN);
    }
    if (f == C_ASINH || f == C_ASIN || f == C_ACOS) {
        sre = mpfr_signbit(z.re);
        sim = mpfr_signbit(z.im);
        mpfr_abs(z.re, z.re, MPFR_RNDN);
        mpfr_abs(z.im, z.im, MPFR_RNDN);
        c_mul(&w, &z, &z);
        mpfr_add_ui(w.re, w.re, 1, MPFR_RNDN);
        c_sqrt(&t, &w);
        mpfr_add(t.re, t.re, z.re, MPFR_RNDN);
        mpfr_add(t.im, t.im, z.im, MPFR_RNDN);
        c_log(r, &t);
        mpfr_setsign(r->re, r->re, sre, MPFR_RNDN);
        mpfr_setsign(r->im, r->im, sim, MPFR_RNDN);
    } else if (f == C_ATANH || f == C_ATAN) {
        mpfr_add_ui(w.re, z.re, 1, MPFR_RNDN);
        mpfr_set(w.im, z.im, MPFR_RNDN);
        c_log(&t, &w);
        mpfr_ui_sub(w.re, 1, z.re, MPFR_RNDN);
        mpfr_neg(w.im, z.im, MPFR_RNDN);
        c_log(&w, &w);
        mpfr_sub(r->re, t.re, w.re, MPFR_RNDN);
        mpfr_sub(r->im, t.im, w.im, MPFR_RNDN);
        mpfr_div_2ui(r->re, r->re, 1, MPFR_RNDN);
        mpfr_div_2ui(r->im, r->im, 1, MPFR_RNDN);
    } else if (f == C_ACOSH) {
        cnum u;
        c_init(&u);
        mpfr_add_ui(w.re, z.re, 1, MPFR_RNDN);
        mpfr_set(w.im, z.im, MPFR_RNDN);
        mpfr_div_2ui(w.re, w.re, 1, MPFR_RNDN);
        mpfr_div_2ui(w.im, w.im, 1, MPFR_RNDN);
        c_sqrt(&t, &w);
        mpfr_sub_ui(w.re, z.re, 1, MPFR_RNDN);
        mpfr_set(w.im, z.im, MPFR_RNDN);
        mpfr_div_2ui(w.re, w.re, 1, MPFR_RNDN);
        mpfr_div_2ui(w.im, w.im, 1, MPFR_RNDN);
        c_sqrt(&u, &w);
        mpfr_add(t.re, t.re, u.re, MPFR_RNDN);
        mpfr_add(t.im, t.im, u.im, MPFR_RNDN);
        c_log(r, &t);
        mpfr_mul_2ui(r->re, r->re, 1, MPFR_RNDN);
        mpfr_mul_2ui(r->im, r->im, 1, MPFR_RNDN);
        c_clear(&u);
    } else { /* pow */
        cnum e;
        c_init(&e);
        mpfr_set_d(e.re, yr, MPFR_RNDN);
        mpfr_set_d(e.im, yi, MPFR_RNDN);
        c_log(&t, &z);
        c_mul(&w, &e, &t);
        mpfr_exp(t.re, w.re, MPFR_RNDN);
        mpfr_sin_cos(r->im, r->re, w.im, MPFR_RNDN);
        mpfr_mul(r->re, r->re, t.re, MPFR_RNDN);
        mpfr_mul(r->im, r->im, t.re, MPFR_RNDN);
        c_clear(&e);
    }
    if (f == C_ASIN || f == C_ACOS || f == C_ATAN) { /* -i r */
        mpfr_swap(r->re, r->im);
        mpfr_neg(r->im, r->im, MPFR_RNDN);
    }
    if (f == C_ACOS) { /* pi/2 - asin */
        mpfr_const_pi(t.re, MPFR_RNDN);
        mpfr_div_2ui(t.re, t.re, 1, MPFR_RNDN);
        mpfr_sub(r->re, t.re, r->re, MPFR_RNDN);
        mpfr_neg(r->im, r->im, MPFR_RNDN);
    }
    c_clear(&z);
    c_clear(&w);
    c_clear(&t);
}

/* got's distance from the reference v in ulps of the format at v (mant
 * bits of significand; emin the least normal's exponent, in MPFR's
 * convention), or at `floor` where v is smaller (pow's parts: an angle
 * near a multiple of pi/2 makes one part small beside the other, and its
 * error, from the angle's, is counted against 1/8 of |x^y|). */
static double c_ulps(double got, mpfr_srcptr v, int mant, int emin, mpfr_srcptr floor)
{
    /* a part that is 0 (or below the reference's own rounding, where the
     * formula's terms cancel exactly) must come out 0 */
    if (mpfr_zero_p(v) || mpfr_get_exp(v) < 100 - CPLX_PREC)
        return got == 0 ? 0 : 1e9;
    if (isnan(got) || isinf(got))
        return 1e9;
    mpfr_t d;
    mpfr_init2(d, CPLX_PREC);
    mpfr_set_d(d, got, MPFR_RNDN);
    mpfr_sub(d, d, v, MPFR_RNDN);
    long e = mpfr_get_exp(v); /* v = m 2^e, 1/2 <= m < 1 */
    if (floor && mpfr_cmpabs(v, floor) < 0)
        e = mpfr_get_exp(floor);
    if (e < emin)
        e = emin; /* subnormal: the spacing of the least normals */
    mpfr_mul_2si(d, d, mant - e, MPFR_RNDN);
    double u = fabs(mpfr_get_d(d, MPFR_RNDN));
    mpfr_clear(d);
    return u;
}

static double c_part(void)
{
    double m = ldexp(1.0 + (double)(next_u64() >> 12) * 0x1p-52, (int)(next_u64() % 41) - 20);
    switch (next_u64() % 16) {
    case 0:
        m = ldexp(1.0, (int)(next_u64() % 20) - 30) * (double)(next_u64() % 7);
        break;
    case 1:
        m = 1.0 + ldexp((double)(next_u64() % 1000), -(int)(next_u64() % 50) - 10);
        break;
    case 2:
        m = 1.0 - ldexp((double)(next_u64() % 1000), -(int)(next_u64() % 50) - 10);
        break;
    default:
        break;
    }
    return (next_u64() & 1) ? -m : m;
}

typedef struct cfunc {
    const char *name;
    int id;
    tsr__kc64 (*f32)(tsr__kc64);
    tsr__kc128 (*f64)(tsr__kc128);
    float complex (*ref32)(float complex);
    double complex (*ref64)(double complex);
    double bound32, bound64; /* ulps per part, docs/semantics.md */
} cfunc;

/* One complex function's random arguments; with `run` false, only
 * drawn. */
static void complex_sweep(const cfunc *fn, int n, bool run)
{
    double worst[2][2] = {{0, 0}, {0, 0}};
    cnum r;
    c_init(&r);
    mpfr_t fl;
    mpfr_init2(fl, 64);
    for (int i = 0; i < n; i++) {
        double xr = c_part(), xi = c_part(), yr = 0, yi = 0;
        if (fn->id == C_POW) {
            xr = uniform(-4, 4);
            xi = next_u64() % 4 ? uniform(-4, 4) : 0;
            yr = uniform(-3, 3);
            yi = next_u64() % 4 ? uniform(-3, 3) : 0;
        }
        if (!run)
            continue;
        if ((fabs(xr) == 1 && xi == 0) || (fabs(xi) == 1 && xr == 0) || (float)xr == 0 ||
            fabs((float)xr) == 1 || fabs((float)xi) == 1)
            continue;     /* the branch points and poles: among the special values */
        if (i % 2 == 1) { /* float32's turn: the same kind of argument, rounded */
            float fr = (float)xr, fi = (float)xi, gr = (float)yr, gi = (float)yi;
            tsr__kc64 got = fn->id == C_POW
                                ? tsr__k_pow_c64(tsr__kc64_make(fr, fi), tsr__kc64_make(gr, gi))
                                : fn->f32(tsr__kc64_make(fr, fi));
            c_reference(fn->id, fr, fi, gr, gi, &r);
            mpfr_hypot(fl, r.re, r.im, MPFR_RNDN);
            mpfr_div_2ui(fl, fl, 3, MPFR_RNDN);
            mpfr_srcptr floor = fn->id == C_POW ? fl : NULL;
            double e0 = c_ulps(got.re, r.re, 24, -125, floor);
            double e1 = c_ulps(got.im, r.im, 24, -125, floor);
            worst[0][0] = e0 > worst[0][0] ? e0 : worst[0][0];
            worst[0][1] = e1 > worst[0][1] ? e1 : worst[0][1];
            if (e0 > fn->bound32 || e1 > fn->bound32)
                fprintf(stderr, "%s complex64 (%a, %a) (%a, %a): %.2f, %.2f ulps\n", fn->name, fr,
                        fi, gr, gi, e0, e1);
            continue;
        }
        tsr__kc128 got = fn->id == C_POW
                             ? tsr__k_pow_c128(tsr__kc128_make(xr, xi), tsr__kc128_make(yr, yi))
                             : fn->f64(tsr__kc128_make(xr, xi));
        c_reference(fn->id, xr, xi, yr, yi, &r);
        mpfr_hypot(fl, r.re, r.im, MPFR_RNDN);
        mpfr_div_2ui(fl, fl, 3, MPFR_RNDN);
        mpfr_srcptr floor = fn->id == C_POW ? fl : NULL;
        double e0 = c_ulps(got.re, r.re, 53, -1021, floor);
        double e1 = c_ulps(got.im, r.im, 53, -1021, floor);
        worst[1][0] = e0 > worst[1][0] ? e0 : worst[1][0];
        worst[1][1] = e1 > worst[1][1] ? e1 : worst[1][1];
        if (e0 > fn->bound64 || e1 > fn->bound64)
            fprintf(stderr, "%s complex128 (%a, %a) (%a, %a): %.2f, %.2f ulps\n", fn->name, xr, xi,
                    yr, yi, e0, e1);
    }
    c_clear(&r);
    mpfr_clear(fl);
    if (!run)
        return;
    printf("%-6s complex64  max error %.3f ulp (real), %.3f ulp (imaginary) in %d arguments\n",
           fn->name, worst[0][0], worst[0][1], n / 2);
    printf("%-6s complex128 max error %.3f ulp (real), %.3f ulp (imaginary) in %d arguments\n",
           fn->name, worst[1][0], worst[1][1], n / 2);
    ASSERT_TRUE(worst[0][0] <= fn->bound32 && worst[0][1] <= fn->bound32);
    ASSERT_TRUE(worst[1][0] <= fn->bound64 && worst[1][1] <= fn->bound64);
}

/* Bit for bit with glibc where a part is 0, +-inf, NaN (NaN's sign and
 * payload aside), and at 1, -1, 2, 1/2 among them. */
static int c_same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static void complex_specials(const cfunc *fn)
{
    static const double parts[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, INFINITY, -INFINITY, NAN};
    enum { NP = sizeof(parts) / sizeof(parts[0]) };
    int bad = 0;
    volatile double vol = 0; /* keeps the compiler from folding glibc's calls */
    for (int i = 0; i < NP; i++)
        for (int j = 0; j < NP; j++) {
            double xr = parts[i] + vol, xi = parts[j] + vol;
            if (xr == 0)
                xr = parts[i]; /* (+ vol would make -0 into +0) */
            if (xi == 0)
                xi = parts[j];
            if (fn->id == C_POW) {
                for (int k = 0; k < NP * NP; k++) {
                    double yr = parts[k / NP], yi = parts[k % NP];
                    double complex g = cpow(cplx64(xr, xi), cplx64(yr, yi));
                    tsr__kc128 t =
                        tsr__k_pow_c128(tsr__kc128_make(xr, xi), tsr__kc128_make(yr, yi));
                    int special = !isfinite(xr) || !isfinite(xi) || !isfinite(yr) ||
                                  !isfinite(yi) || (xr == 0 && xi == 0) || (yr == 0 && yi == 0);
                    if (special && !(c_same(t.re, creal(g)) && c_same(t.im, cimag(g))) && bad++ < 8)
                        fprintf(stderr, "pow (%g, %g)^(%g, %g): (%g, %g), glibc (%g, %g)\n", xr, xi,
                                yr, yi, t.re, t.im, creal(g), cimag(g));
                }
                continue;
            }
            double complex g = fn->ref64(cplx64(xr, xi));
            tsr__kc128 t = fn->f64(tsr__kc128_make(xr, xi));
            float complex gf = fn->ref32(cplx32((float)xr, (float)xi));
            tsr__kc64 tf = fn->f32(tsr__kc64_make((float)xr, (float)xi));
            int special = !isfinite(xr) || !isfinite(xi) || xr == 0 || xi == 0;
            if (!special)
                continue;
            if (!(c_same(t.re, creal(g)) && c_same(t.im, cimag(g))) && bad++ < 8)
                fprintf(stderr, "%s complex128 (%g, %g): (%g, %g), glibc (%g, %g)\n", fn->name, xr,
                        xi, t.re, t.im, creal(g), cimag(g));
            if (!(c_same(tf.re, crealf(gf)) && c_same(tf.im, cimagf(gf))) && bad++ < 8)
                fprintf(stderr, "%s complex64 (%g, %g): (%g, %g), glibc (%g, %g)\n", fn->name, xr,
                        xi, tf.re, tf.im, crealf(gf), cimagf(gf));
        }
    ASSERT_EQ(bad, 0);
}

static const cfunc cfuncs[] = {
    {"asinh", C_ASINH, tsr__k_asinh_c64, tsr__k_asinh_c128, casinhf, casinh, 5, 5},
    {"acosh", C_ACOSH, tsr__k_acosh_c64, tsr__k_acosh_c128, cacoshf, cacosh, 5, 5},
    {"atanh", C_ATANH, tsr__k_atanh_c64, tsr__k_atanh_c128, catanhf, catanh, 5, 5},
    {"asin", C_ASIN, tsr__k_asin_c64, tsr__k_asin_c128, casinf, casin, 5, 5},
    {"acos", C_ACOS, tsr__k_acos_c64, tsr__k_acos_c128, cacosf, cacos, 5, 5},
    {"atan", C_ATAN, tsr__k_atan_c64, tsr__k_atan_c128, catanf, catan, 5, 5},
    {"pow", C_POW, NULL, NULL, NULL, NULL, 2.5, 2.5},
};

/* ---- parts and shards -----------------------------------------------------
 *
 * The parts in the order a whole run takes them: the exact results, every
 * function's float32 sweep, every function's float64 sweep, every complex
 * function. A shard's parts are chosen by their rough cost (seconds of a
 * whole run on a loaded two-core machine; a part not named costs what its
 * kind does), the costliest first, each to the shard with the least so far:
 * what a shard holds depends only on the parts and N. */

enum {
    NFUNCS = sizeof(funcs) / sizeof(funcs[0]),
    NCFUNCS = sizeof(cfuncs) / sizeof(cfuncs[0]),
    NPARTS = 1 + 2 * NFUNCS + NCFUNCS,
    SHARDS_MAX = 64
};

/* Part p's name: "exact", "<function> float32", "<function> float64" or
 * "c<function>". */
static void part_name(int p, char *out, size_t cap)
{
    if (p == 0)
        snprintf(out, cap, "exact");
    else if (p <= 2 * NFUNCS)
        snprintf(out, cap, "%s %s", funcs[(p - 1) % NFUNCS].name,
                 p <= NFUNCS ? "float32" : "float64");
    else
        snprintf(out, cap, "c%s", cfuncs[p - 1 - 2 * NFUNCS].name);
}

static double part_cost(int p)
{
    static const struct {
        const char *part;
        double cost;
    } costly[] = {{"gelu float64", 77}, {"erfc float64", 45},      {"gelu_tanh float64", 22},
                  {"gelu float32", 21}, {"gelu_tanh float32", 19}, {"pow float64", 10},
                  {"exact", 1}};
    char name[48];
    part_name(p, name, sizeof name);
    for (size_t i = 0; i < sizeof(costly) / sizeof(costly[0]); i++)
        if (strcmp(name, costly[i].part) == 0)
            return costly[i].cost;
    return p <= NFUNCS ? 1.6 : p <= 2 * NFUNCS ? 3 : 7;
}

/* The shard (of n) that takes each part. */
static void assign_shards(int n, int shard_of[NPARTS])
{
    double load[SHARDS_MAX] = {0};
    bool placed[NPARTS] = {false};
    for (int k = 0; k < NPARTS; k++) {
        int p = -1;
        for (int q = 0; q < NPARTS; q++) /* the costliest left; the first of equals */
            if (!placed[q] && (p < 0 || part_cost(q) > part_cost(p)))
                p = q;
        int least = 0;
        for (int s = 1; s < n; s++)
            if (load[s] < load[least])
                least = s;
        placed[p] = true;
        shard_of[p] = least;
        load[least] += part_cost(p);
    }
}

/* "K/N" with 0 <= K < N <= SHARDS_MAX. */
static bool parse_shard(const char *arg, int *k, int *n)
{
    char *end;
    long kk = strtol(arg, &end, 10);
    if (end == arg || *end != '/')
        return false;
    const char *rest = end + 1;
    long nn = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || nn < 1 || nn > SHARDS_MAX || kk < 0 || kk >= nn)
        return false;
    *k = (int)kk;
    *n = (int)nn;
    return true;
}

/* --shards K/N...: the shards CTest runs (argv) must take every part
 * exactly once between them; prints which takes each. */
static void check_shards(int argc, char **argv)
{
    int taken[NPARTS] = {0};
    for (int a = 0; a < argc; a++) {
        int k, n, shard_of[NPARTS];
        if (!parse_shard(argv[a], &k, &n)) {
            fprintf(stderr, "not a shard K/N: \"%s\"\n", argv[a]);
            ASSERT_TRUE(false);
            continue;
        }
        assign_shards(n, shard_of);
        for (int p = 0; p < NPARTS; p++)
            if (shard_of[p] == k) {
                char name[48];
                part_name(p, name, sizeof name);
                printf("%-20s shard %s\n", name, argv[a]);
                taken[p]++;
            }
    }
    for (int p = 0; p < NPARTS; p++) {
        if (taken[p] != 1) {
            char name[48];
            part_name(p, name, sizeof name);
            fprintf(stderr, "part %s is taken by %d shards\n", name, taken[p]);
        }
        ASSERT_EQ(taken[p], 1);
    }
}

/* The parts of shard `shard` of `nshards` (TSR_ACCURACY_ONLY: of them,
 * the exact results and that function's). */
int main(int argc, char **argv)
{
    int shard = 0, nshards = 1;
    if (argc >= 2 && strcmp(argv[1], "--shards") == 0) {
        check_shards(argc - 2, argv + 2);
        TEST_DONE();
    }
    if (argc != 1 &&
        !(argc == 3 && strcmp(argv[1], "--shard") == 0 && parse_shard(argv[2], &shard, &nshards))) {
        fprintf(stderr, "usage: %s [--shard K/N | --shards K/N...] (N at most %d)\n", argv[0],
                SHARDS_MAX);
        return 2;
    }
    int shard_of[NPARTS];
    assign_shards(nshards, shard_of);
    const char *only = getenv("TSR_ACCURACY_ONLY");
    bool run[NPARTS];
    for (int p = 0; p < NPARTS; p++) {
        char name[48] = ""; /* as TSR_ACCURACY_ONLY names it */
        if (p > 2 * NFUNCS)
            part_name(p, name, sizeof name); /* "c<function>" */
        else if (p > 0)
            snprintf(name, sizeof name, "%s", funcs[(p - 1) % NFUNCS].name);
        run[p] = shard_of[p] == shard && (!only || p == 0 || strcmp(only, name) == 0);
    }
    if (run[0])
        exact_results();
    for (int i = 0; i < NFUNCS; i++)
        float32_sweep(&funcs[i], run[1 + i]);
    for (int i = 0; i < NFUNCS; i++)
        float64_sweep(&funcs[i], run[1 + NFUNCS + i]);
    int n = getenv("TSR_ACCURACY_EXHAUSTIVE") ? 400000 : 40000;
    for (int i = 0; i < NCFUNCS; i++) {
        if (run[1 + 2 * NFUNCS + i])
            complex_specials(&cfuncs[i]);
        complex_sweep(&cfuncs[i], n, run[1 + 2 * NFUNCS + i]);
    }
    mpfr_free_cache();
    TEST_DONE();
}
