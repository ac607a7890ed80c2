/* Reductions have the same bits on 1, 2 and 16 threads, and are the
 * order kernels/reduce_order.h defines. Built with REDUCE_OPENCL (the
 * ops-reduce-threads-opencl tests), the same reductions also run on
 * opencl:0 of a daemon started with this program's arguments (say
 * --device-memory=staged, where opencl/reduce.cl's programs compute
 * them) and must give the cpu's bits and the order's.
 *
 * Each thread count runs in a child process (TESSERA_NUM_THREADS is read
 * once per process) that computes a set of reductions large enough for
 * every way the cpu cuts the work (rows, columns, blocks of chunks) and
 * sends the result bytes back through a pipe; the parent compares them.
 * The 1-thread results of float32 sum are also checked against a plain
 * transcription of the documented order (chunks, lanes, halving fold,
 * pairwise chunk tree, two-sum). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/reduce_order.h"
#include "tessera/tessera.h"
#ifdef REDUCE_OPENCL
#include "integration/support_daemon.h"
#endif

#define N1 256
#define N0 6144 /* 1.5 chunks: rows of the reduction straddle chunks */

static float values[N1 * N0];
#define HALF (N1 * N0 / 2)

/* Random signs and magnitudes 2^-10 .. 2^10; fifteen in sixteen of the
 * second half's values the negation of the first half's at the same
 * place. A compensated sum of values that do not cancel comes out
 * correctly rounded in almost any order; where most cancel, the rounding
 * of the error terms shows in the result, so that its bits tell the
 * order. */
static void fill(void)
{
    uint64_t s = 0x5EED;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t z = (uint32_t)(s >> 33);
        uint32_t bits = (z & 1u) << 31 | (127u - 10 + (z >> 1) % 21) << 23 | (z >> 9 & 0x7FFFFFu);
        memcpy(&values[i], &bits, 4);
        if (i >= HALF && i % 16 != 0)
            values[i] = -values[i - HALF];
    }
}

typedef struct job {
    const char *what;
    tsr_dtype dtype;
    int ndim;
    int64_t sizes[2];
    int64_t strides[2]; /* {0, 0}: a view of the values, row-major */
    int ndims;
    int64_t dims[2];
} job;

/* The float32 sums come first (check_order). */
static const job jobs[] = {
    {"sum f32 all (blocks)", TSR_FLOAT32, 1, {N1 * N0}, {0, 0}, 0, {0}},
    {"sum f32 dim 1 (rows)", TSR_FLOAT32, 2, {N1, N0}, {0, 0}, 1, {1}},
    {"sum f32 dim 0 (columns)", TSR_FLOAT32, 2, {N0, N1}, {0, 0}, 1, {0}},
    {"sum f32 dim 1 of a transpose", TSR_FLOAT32, 2, {N1, N0}, {1, N1}, 1, {1}},
    {"sum f32 dim 1 of [N/4, 4] (gathered)", TSR_FLOAT32, 2, {N1 * N0 / 4, 4}, {0, 0}, 1, {1}},
    /* columns whose rows are no whole number of lanes, nor the outputs of
     * vectors; and more outputs than one block of the walk (rows HALF
     * apart in both, so that their values cancel) */
    {"sum f32 dim 0 of 4095 x 383", TSR_FLOAT32, 2, {4095, 383}, {384, 1}, 1, {0}},
    {"sum f32 dim 0 of 500 x 2500", TSR_FLOAT32, 2, {500, 2500}, {3072, 1}, 1, {0}},
    /* more outputs than the widest block of the walk, which 16 threads
     * share out in narrower ones; rows overlapping, 8192 rows (two
     * chunks) apart cancelling */
    {"sum f32 dim 0 of 8300 x 8200", TSR_FLOAT32, 2, {8300, 8200}, {96, 1}, 1, {0}},
    {"mean f16 dim 1 of [N/48, 48]", TSR_FLOAT16, 2, {N1 * N0 / 48, 48}, {0, 0}, 1, {1}},
    {"sum f16 all", TSR_FLOAT16, 1, {N1 * N0}, {0, 0}, 0, {0}},
    {"mean bf16 dim 0", TSR_BFLOAT16, 2, {N0, N1}, {0, 0}, 1, {0}},
    {"sum f64 all", TSR_FLOAT64, 1, {N1 * N0}, {0, 0}, 0, {0}},
    {"prod f64 dim 1", TSR_FLOAT64, 2, {N1, N0}, {0, 0}, 1, {1}},
    {"amax f32 all", TSR_FLOAT32, 1, {N1 * N0}, {0, 0}, 0, {0}},
    {"argmax f32 dim 0", TSR_FLOAT32, 2, {N1, N0}, {0, 0}, 1, {0}},
};
#define FLOAT32_SUMS 8
#define NJOBS (sizeof jobs / sizeof jobs[0])

/* With REDUCE_OPENCL, after the cpu's results: opencl:0 of `client`. */
static tsr_client *client;

static tsr_status run_job(const job *j, tsr_tensor **r)
{
    tsr_tensor_options o = {.has_dtype = true, .dtype = j->dtype};
    tsr_tensor *t = NULL, *v = NULL;
    int64_t flat = N1 * N0;
    tsr_status st = tsr_tensor_from_data(NULL, 1, &flat, TSR_FLOAT32, values, &o, &t);
    if (st != TSR_OK)
        return st;
    if (client) {
        tsr_tensor *on = NULL;
        tsr_tensor_options to = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
        st = tsr_tensor_to(client, t, &to, false, &on);
        tsr_tensor_release(t);
        if (st != TSR_OK)
            return st;
        t = on;
    }
    if (j->strides[0] != 0) {
        st = tsr_tensor_as_strided(t, j->ndim, j->sizes, j->strides, 0, &v);
    } else {
        st = tsr_tensor_view(t, j->sizes, j->ndim, &v);
    }
    tsr_tensor_release(t);
    if (st != TSR_OK)
        return st;
    if (strncmp(j->what, "prod", 4) == 0) {
        /* values near 1, so that a product of 6144 stays finite */
        tsr_scalar k = {.kind = TSR_FLOAT64, .v.f = 1.0 / 4096};
        tsr_tensor *w = NULL;
        if ((st = tsr_mul_scalar(v, k, &w)) == TSR_OK) {
            tsr_tensor_release(v);
            tsr_scalar one = {.kind = TSR_FLOAT64, .v.f = 1.0};
            st = tsr_add_scalar(w, one, one, &v);
            tsr_tensor_release(w);
        }
        if (st != TSR_OK)
            return st;
        st = tsr_prod(v, j->dims, j->ndims, false, TSR_NO_DTYPE, r);
    } else if (strncmp(j->what, "mean", 4) == 0) {
        st = tsr_mean(v, j->dims, j->ndims, false, TSR_NO_DTYPE, r);
    } else if (strncmp(j->what, "amax", 4) == 0) {
        st = tsr_amax(v, j->dims, j->ndims, false, r);
    } else if (strncmp(j->what, "argmax", 6) == 0) {
        st = tsr_argmax(v, j->dims, j->ndims, false, r);
    } else {
        st = tsr_sum(v, j->dims, j->ndims, false, TSR_NO_DTYPE, r);
    }
    tsr_tensor_release(v);
    return st;
}

/* Writes every job's result (its size in 8 bytes, then its bytes) to fd;
 * 0, or 2 when a job failed, 4 when the write did. */
static int write_results(int fd)
{
    for (size_t i = 0; i < NJOBS; i++) {
        tsr_tensor *r = NULL;
        if (run_job(&jobs[i], &r) != TSR_OK) {
            fprintf(stderr, "%s: %s\n", jobs[i].what, tsr_last_error());
            return 2;
        }
        size_t n = (size_t)tsr_tensor_nbytes(r);
        unsigned char *b = malloc(n);
        tsr_status st = b ? tsr_tensor_copy_to_host(r, b, n) : TSR_ERR_OUT_OF_MEMORY;
        tsr_tensor_release(r);
        uint64_t n64 = n;
        if (st != TSR_OK) {
            fprintf(stderr, "%s: the result's bytes: %s\n", jobs[i].what, tsr_last_error());
            free(b);
            return 2;
        }
        if (write(fd, &n64, 8) != 8 || write(fd, b, n) != (ssize_t)n) {
            free(b);
            return 4;
        }
        free(b);
    }
    return 0;
}

/* Every job's result bytes, for `threads` threads, from a child (on
 * opencl:0 of `client` when threads is NULL). */
static unsigned char *results(const char *threads, size_t *len)
{
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (threads) {
            setenv("TESSERA_NUM_THREADS", threads, 1);
            if (tsr_get_num_threads() != atoi(threads))
                _exit(3);
        } else if (tsr_client_open(NULL, &client) != TSR_OK) {
            fprintf(stderr, "cannot open a session: %s\n", tsr_last_error());
            _exit(5);
        }
        int rc = write_results(fd[1]);
        tsr_client_close(client);
        _exit(rc);
    }
    close(fd[1]);
    size_t cap = 1 << 20, got = 0;
    unsigned char *buf = malloc(cap);
    ssize_t k;
    while ((k = read(fd[0], buf + got, cap - got)) > 0) {
        got += (size_t)k;
        if (got == cap)
            buf = realloc(buf, cap *= 2);
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child with %s threads failed (status %d)\n",
                threads ? threads : "opencl:0", status);
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

/* ---- the order, transcribed --------------------------------------------- */

typedef struct acc {
    float s, e;
} acc;

static acc merge(acc a, acc b)
{
    TSR__RED_TWO_SUM_MERGE(a.s, a.e, b.s, b.e, float);
    return a;
}

static acc chunk(const float *x, int64_t stride, int64_t n)
{
    acc lane[TSR__RED_LANES] = {{0, 0}};
    /* a lane's elements two at a time: i and i + LANES, i % (2 LANES) < LANES */
    for (int64_t i = 0; i < n; i++) {
        if (i % (2 * TSR__RED_LANES) >= TSR__RED_LANES)
            continue;
        float v = x[i * stride];
        if (i + TSR__RED_LANES < n)
            v = v + x[(i + TSR__RED_LANES) * stride];
        TSR__RED_TWO_SUM_ADD(lane[i % TSR__RED_LANES].s, lane[i % TSR__RED_LANES].e, v, float);
    }
    TSR__RED_FOLD_LANES(lane, merge);
    return lane[0];
}

/* tree(c, n): chunks c .. c+n-1 of x (R elements at `stride`). */
static acc tree(const float *x, int64_t stride, int64_t R, int64_t c, int64_t n)
{
    if (n == 1) {
        int64_t r0 = c * TSR__RED_CHUNK;
        int64_t m = R - r0 < TSR__RED_CHUNK ? R - r0 : TSR__RED_CHUNK;
        return chunk(x + r0 * stride, stride, m);
    }
    int64_t p = TSR__RED_SPLIT(n);
    return merge(tree(x, stride, R, c, p), tree(x, stride, R, c + p, n - p));
}

static float reference_sum(const float *x, int64_t stride, int64_t R)
{
    acc a = tree(x, stride, R, 0, (R + TSR__RED_CHUNK - 1) / TSR__RED_CHUNK);
    return TSR__RED_TWO_SUM_VALUE(a.s, a.e);
}

static int check_order(const unsigned char *one)
{
    int bad = 0;
    const unsigned char *p = one;
    for (size_t i = 0; i < FLOAT32_SUMS; i++) {
        const job *j = &jobs[i];
        uint64_t n;
        memcpy(&n, p, 8);
        const float *got = (const float *)(p + 8);
        /* the reduced dimension r and the kept one k, at their strides */
        int r = j->ndims ? (int)j->dims[0] : 0, k = 1 - r;
        int64_t st[2] = {j->strides[0], j->strides[1]};
        if (st[0] == 0) {
            st[0] = j->ndim == 2 ? j->sizes[1] : 1;
            st[1] = 1;
        }
        for (uint64_t o = 0; o < n / 4; o++) {
            float want = j->ndims == 0 ? reference_sum(values, 1, j->sizes[0])
                                       : reference_sum(values + o * st[k], st[r], j->sizes[r]);
            if (memcmp(&got[o], &want, 4) != 0) {
                if (bad++ < 5)
                    fprintf(stderr, "%s: output %llu is %.9g, the order gives %.9g\n", j->what,
                            (unsigned long long)o, got[o], want);
            }
        }
        p += 8 + n;
    }
    return bad;
}

#ifndef REDUCE_OPENCL
/* argmax/argmin/amax/amin against a plain scan, on data full of ties,
 * NaNs and signed zeros, every length through a few chunks of lanes
 * (the vector loops keep a position per lane), then lengths of several
 * chunks (the host scans the two halves of a row side by side): there
 * also with the extremes planted in both halves (the first must win) and
 * a lone NaN in the second half. */
static int check_extremes(void)
{
    static const float pool[] = {1.0f, 2.0f, 2.0f, -3.0f, 0.0f, -0.0f, NAN, INFINITY, -INFINITY};
    static const int64_t longer[] = {TSR__RED_CHUNK * 2, TSR__RED_CHUNK * 2 + 5, TSR__RED_CHUNK * 3,
                                     TSR__RED_CHUNK * 5 + 100};
    static float x[TSR__RED_CHUNK * 6];
    uint64_t st = 42;
    int bad = 0;
    for (int64_t n = 1, l = 0; l < 4; n += (n < 40 ? 1 : 37)) {
        if (n > 300)
            n = longer[l++];
        for (int trial = 0; trial < 6; trial++) {
            for (int64_t i = 0; i < n; i++) {
                st = st * 6364136223846793005u + 1442695040888963407u;
                uint32_t z = (uint32_t)(st >> 33);
                /* NaN rarely, so that the other rules show */
                x[i] = pool[z % (trial == 0 || trial >= 4 ? 6 : sizeof pool / sizeof pool[0])];
            }
            if (trial == 4) {
                x[n / 4] = x[n - n / 4 - 1] = INFINITY;
                x[n / 2] = x[n - 1] = -INFINITY;
            } else if (trial == 5) {
                x[n - n / 4 - 1] = NAN;
            }
            for (int max = 0; max < 2; max++) {
                int64_t want = 0;
                for (int64_t i = 1; i < n; i++) {
                    float v = x[i], b = x[want];
                    if (b == b && (v != v || (max ? v > b : v < b)))
                        want = i;
                }
                tsr_tensor *t = NULL, *r = NULL, *a = NULL;
                int64_t got = -1;
                float gv = 0;
                tsr_tensor_from_data(NULL, 1, &n, TSR_FLOAT32, x, NULL, &t);
                if ((max ? tsr_argmax(t, NULL, 0, false, &r) : tsr_argmin(t, NULL, 0, false, &r)) ==
                        TSR_OK &&
                    (max ? tsr_amax(t, NULL, 0, false, &a) : tsr_amin(t, NULL, 0, false, &a)) ==
                        TSR_OK) {
                    tsr_tensor_copy_to_host(r, &got, 8);
                    tsr_tensor_copy_to_host(a, &gv, 4);
                }
                float wv = x[want];
                bool value_ok = (gv != gv && wv != wv) || gv == wv;
                if (got != want || !value_ok) {
                    if (bad++ < 5)
                        fprintf(stderr, "arg%s of %lld elements: %lld (%g), want %lld (%g)\n",
                                max ? "max" : "min", (long long)n, (long long)got, gv,
                                (long long)want, wv);
                }
                tsr_tensor_release(t);
                tsr_tensor_release(r);
                tsr_tensor_release(a);
            }
        }
    }
    return bad;
}
#endif

#ifdef REDUCE_OPENCL
/* A daemon with `extra` arguments whose opencl:0 the children reach (its
 * socket in TESSERA_SOCKET); 77 where it has none, 1 where it did not
 * start, else 0. */
static int start_daemon(test_daemon *d, const char *const *extra)
{
    if (test_daemon_start(d, extra) != 0)
        return 1;
    tsr_client *c = NULL;
    int32_t count = 0;
    tsr_device_properties props;
    if (tsr_client_open(NULL, &c) != TSR_OK ||
        tsr_device_count(c, TSR_DEVICE_OPENCL, &count) != TSR_OK || count == 0 ||
        tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &props) != TSR_OK) {
        printf("skipped: the daemon serves no opencl:0 (%s)\n", tsr_last_error());
        tsr_client_close(c);
        test_daemon_stop(d);
        return 77;
    }
    printf("opencl:0: %s\n", props.host_unified_memory ? "zero copy" : "through copies");
    tsr_client_close(c); /* the children open their own */
    return 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    fill();
    test_daemon daemon;
    int rc = start_daemon(&daemon, (const char *const *)argv + 1);
    if (rc != 0)
        return rc;
    size_t len1 = 0, lencl = 0;
    unsigned char *r1 = results("1", &len1), *rcl = results(NULL, &lencl);
    int failed = 0;
    if (!r1 || !rcl || len1 != lencl) {
        failed = 1;
    } else {
        const unsigned char *p1 = r1, *pcl = rcl;
        for (size_t i = 0; i < NJOBS; i++) {
            uint64_t n;
            memcpy(&n, p1, 8);
            bool same = memcmp(p1, pcl, 8 + n) == 0;
            printf("%-32s %8llu bytes: %s\n", jobs[i].what, (unsigned long long)n,
                   same ? "same bits on cpu and opencl:0" : "DIFFERENT");
            failed += !same;
            p1 += 8 + n;
            pcl += 8 + n;
        }
        int off = check_order(rcl);
        printf("opencl:0's float32 sums against the order transcribed: %s\n",
               off ? "DIFFERENT" : "same bits");
        failed += off != 0;
    }
    free(r1);
    free(rcl);
    if (failed)
        test_daemon_dump_log(&daemon);
    if (test_daemon_stop(&daemon) != 0) {
        fprintf(stderr, "the daemon did not exit cleanly\n");
        failed++;
    }
    printf("%s\n", failed ? "FAILED" : "passed");
    return failed ? 1 : 0;
}
#else
int main(void)
{
    fill();
    size_t len1 = 0, len2 = 0, len16 = 0;
    unsigned char *r1 = results("1", &len1), *r2 = results("2", &len2),
                  *r16 = results("16", &len16);
    int failed = 0;
    if (!r1 || !r2 || !r16) {
        failed = 1;
    } else {
        const unsigned char *p1 = r1, *p2 = r2, *p16 = r16;
        for (size_t i = 0; i < NJOBS; i++) {
            uint64_t n;
            memcpy(&n, p1, 8);
            bool same = len1 == len2 && len1 == len16 && memcmp(p1, p2, 8 + n) == 0 &&
                        memcmp(p1, p16, 8 + n) == 0;
            printf("%-32s %8llu bytes: %s\n", jobs[i].what, (unsigned long long)n,
                   same ? "same bits on 1, 2 and 16 threads" : "DIFFERENT");
            failed += !same;
            p1 += 8 + n;
            p2 += 8 + n;
            p16 += 8 + n;
        }
        int off = check_order(r1);
        printf("float32 sums against the order transcribed: %s\n", off ? "DIFFERENT" : "same bits");
        failed += off != 0;
    }
    int ext = check_extremes();
    printf("argmax, argmin, amax, amin against a plain scan: %s\n", ext ? "DIFFERENT" : "same");
    failed += ext != 0;
    free(r1);
    free(r2);
    free(r16);
    printf("%s\n", failed ? "FAILED" : "passed");
    return failed ? 1 : 0;
}
#endif
