/* tessera-bench: what every suite shares.
 *
 * A suite is a function that measures something on this machine and adds
 * one row per measurement to a bench_results. Each row compares a value
 * with a baseline measured by the same run (or, for a baseline named
 * "limit", with a fixed bound the design sets), so that the ratio says how
 * Tessera fares against what the machine can do without it. main.c owns
 * the table of suites, the command line and the output. */
#ifndef TESSERA_BENCH_H
#define TESSERA_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Units: a rate (bigger is better) or a latency (smaller is better). */
#define BENCH_GBPS "GB/s"
#define BENCH_OPS "ops/s"
#define BENCH_US "us"
#define BENCH_MS "ms"
#define BENCH_S "s"
#define BENCH_PROGRAMS "programs" /* a count: fewer is better */
#define BENCH_GFLOPS "GFLOP/s"    /* 10^9 floating-point operations a second */

typedef struct bench_config {
    bool quick;              /* --quick: shorten everything (smoke tests) */
    bool pin;                /* false with --no-pin: leave placement to the scheduler */
    const char *socket_path; /* --socket: use this daemon; NULL: start one */
    int clients;             /* --clients: processes in the many-clients test */
    int threads;             /* --threads: threads of the elementwise suite's cpu work */
    bool torch;              /* false with --no-torch: no PyTorch comparison */
} bench_config;

typedef struct bench_row {
    const char *suite;
    char name[48];
    char device[32]; /* "" when the measurement names no device */
    int threads;     /* processes or threads taking part */
    double value;
    double p99; /* NAN when not measured */
    const char *unit;
    char baseline[48];
    double baseline_value;
    double baseline_p99; /* NAN when not measured */
    double target;       /* the ratio the design asks for; NAN: none */
    /* The median of the ratios of samples taken side by side (each sample
     * of the operation against the baseline's sample right after it);
     * 0 where value and baseline were not sampled in pairs. */
    double paired_ratio;
} bench_row;

typedef struct bench_results {
    bench_row *rows;
    size_t count, cap;
} bench_results;

/* Appends a row (copied); exits on out-of-memory. */
void bench_add(bench_results *r, const bench_row *row);
/* The same with the row's name, device (NULL: none) and baseline set. */
void bench_add_named(bench_results *r, bench_row row, const char *name, const char *device,
                     const char *baseline);
/* A cpu rate row of `suite` with no p99s: value in `unit` beside a
 * baseline measured in pairs with it (paired: the pairs' median ratio). */
void bench_add_cpu_rate(bench_results *r, const char *suite, const char *name, int threads,
                        const char *unit, double value, const char *baseline, double baseline_value,
                        double paired, double target);
/* Latencies compare as baseline / value, rates as value / baseline, so
 * that a bigger ratio is always better: paired_ratio where the two were
 * sampled in pairs, else the ratio of the medians. NAN when either side
 * is missing. */
double bench_ratio(const bench_row *row);
bool bench_is_latency(const bench_row *row);

/* A suite: returns 0 when it measured, nonzero after printing why not. */
typedef int (*bench_suite_fn)(const bench_config *config, bench_results *out);
int bench_suite_ipc(const bench_config *config, bench_results *out);
int bench_suite_elementwise(const bench_config *config, bench_results *out);
int bench_suite_unary(const bench_config *config, bench_results *out);
int bench_suite_cold(const bench_config *config, bench_results *out);
int bench_suite_matmul(const bench_config *config, bench_results *out);
int bench_suite_reduce(const bench_config *config, bench_results *out);
int bench_suite_global(const bench_config *config, bench_results *out);
int bench_suite_share(const bench_config *config, bench_results *out);
/* The share suite's Python rows (share_python.c), with the daemon at
 * socket_path. */
int bench_share_python(const bench_config *config, const char *socket_path, bench_results *out);
/* The Python the suites run children of: $TESSERA_BENCH_PYTHON, else
 * /usr/bin/python3. */
const char *bench_python_path(void);
int bench_suite_kernels(const bench_config *config, bench_results *out);

/* ---- Helpers (util.c) ------------------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);
void bench_sleep_ns(uint64_t ns);

/* A growing list of samples in nanoseconds. */
typedef struct bench_samples {
    double *v;
    size_t count, cap;
} bench_samples;

void bench_samples_add(bench_samples *s, double ns);
/* Runs op(arg) `warmup` times untimed, then `n` times adding each call's
 * duration to `out` (one clock read per call). Returns 0, or -1 as soon as
 * op returns false. */
int bench_time_ops(bool (*op)(void *arg), void *arg, size_t warmup, size_t n, bench_samples *out);
void bench_samples_free(bench_samples *s);
/* The q-quantile (0.5: the median) in nanoseconds; sorts the samples. NAN
 * when there are none. */
double bench_quantile(bench_samples *s, double q);

/* Samples of one side each beside a baseline sample taken right after it
 * (rates): a busy neighbour then weighs on both alike. */
typedef struct bench_pairs {
    bench_samples value, reference, ratio;
    double best;
} bench_pairs;

void bench_pairs_add(bench_pairs *p, double value, double reference);

typedef struct bench_paired {
    bool ok;            /* the side measured (ok given to bench_pairs_finish, and samples) */
    double value, best; /* its median and best sample */
    double reference;   /* the baseline's median beside it */
    double paired;      /* the median of value / reference over the pairs */
} bench_paired;

/* The medians (NAN where missing); frees the samples. */
bench_paired bench_pairs_finish(bench_pairs *p, bool ok);
/* One side's paired ratio over another's (Tessera's and PyTorch's, each
 * against the same baseline); 0 when either is missing. */
double bench_paired_over(const bench_paired *a, const bench_paired *b);

/* TESSERA_NUM_THREADS for the library's cpu pool and, with a daemon of
 * the suite's own, POCL_MAX_PTHREAD_COUNT for PoCL's CPU device (unless
 * already set, noted): the operations then run on `threads` threads. */
void bench_set_threads(const bench_config *config, const char *suite, int threads);

/* A progress or error line on stderr: "tessera-bench: SUITE: ...". */
void bench_note(const char *suite, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Memory shared with forked children (zeroed); exits on failure. */
void *bench_shared_alloc(size_t bytes);
void bench_shared_free(void *p, size_t bytes);
/* fork() for a benchmark child: the child dies with its parent. Returns
 * as fork() does. */
int bench_fork(void);
/* Waits for a child; returns its exit status, or 128+N when a signal N
 * killed it. */
int bench_wait(int pid);

/* The CPU time (user + system) a process has used so far (from /proc, so
 * in clock ticks: 10 ms steps). False when it cannot be read. */
bool bench_process_cpu_ns(int pid, uint64_t *out);

/* Process placement. bench_pin_to pins process pid (0: this one) to one
 * CPU, remembering its former CPUs in *p (cpu < 0: does nothing);
 * bench_unpin gives them back. */
typedef struct bench_pin {
    int pid;
    bool pinned;
    cpu_set_t saved;
} bench_pin;
void bench_pin_to(bench_pin *p, int pid, int cpu);
void bench_unpin(bench_pin *p);
/* Pins this thread, and so what it starts from then on (the daemon, its
 * workers, PyTorch, the cpu device's pool), to the last `count` CPUs it
 * may run on, noting it under `suite`; bench_unpin gives the former CPUs
 * back. Nothing without config->pin, or where there is no choice. The
 * bandwidth suites measure every side of a ratio this way on the same
 * CPUs: the CPUs of a virtual machine can differ in speed (one ran the
 * same loop 12-25% slower than the other on a two-CPU test machine),
 * and a ratio of two sides the scheduler put on different CPUs measured
 * that difference. */
void bench_place(bench_pin *p, const bench_config *config, int count, const char *suite);
/* Gives every thread of process pid (one started while p was in place)
 * the CPUs p saved. */
void bench_unpin_process(const bench_pin *p, int pid);
/* The first two CPUs this process may run on, or false when it may use
 * only one. */
bool bench_two_cpus(int cpus[2]);

/* Spins politely: a pause instruction. */
static inline void bench_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif /* TESSERA_BENCH_H */
