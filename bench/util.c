/* tessera-bench helpers: rows, samples, clocks, progress and children. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"

static void out_of_memory(void)
{
    fprintf(stderr, "tessera-bench: out of memory\n");
    exit(1);
}

/* Room for one more of count items of `size` bytes: items, or a larger
 * copy of them (*cap updated). */
static void *grow(void *items, size_t count, size_t *cap, size_t size)
{
    if (count < *cap)
        return items;
    size_t more = *cap ? *cap * 2 : 64;
    void *p = realloc(items, more * size);
    if (!p)
        out_of_memory();
    *cap = more;
    return p;
}

void bench_add(bench_results *r, const bench_row *row)
{
    r->rows = grow(r->rows, r->count, &r->cap, sizeof *r->rows);
    r->rows[r->count++] = *row;
}

void bench_add_named(bench_results *r, bench_row row, const char *name, const char *device,
                     const char *baseline)
{
    snprintf(row.name, sizeof row.name, "%s", name);
    snprintf(row.device, sizeof row.device, "%.*s", (int)sizeof row.device - 1,
             device ? device : "");
    snprintf(row.baseline, sizeof row.baseline, "%s", baseline);
    bench_add(r, &row);
}

void bench_add_cpu_rate(bench_results *r, const char *suite, const char *name, int threads,
                        const char *unit, double value, const char *baseline, double baseline_value,
                        double paired, double target)
{
    bench_add_named(r,
                    (bench_row){.suite = suite,
                                .threads = threads,
                                .value = value,
                                .p99 = NAN,
                                .unit = unit,
                                .baseline_value = baseline_value,
                                .baseline_p99 = NAN,
                                .target = target,
                                .paired_ratio = paired},
                    name, "cpu", baseline);
}

bool bench_is_latency(const bench_row *row)
{
    return strcmp(row->unit, BENCH_US) == 0 || strcmp(row->unit, BENCH_MS) == 0 ||
           strcmp(row->unit, BENCH_S) == 0 || strcmp(row->unit, BENCH_PROGRAMS) == 0;
}

double bench_ratio(const bench_row *row)
{
    if (!(row->value > 0) || !(row->baseline_value > 0))
        return NAN;
    if (row->paired_ratio > 0)
        return row->paired_ratio;
    return bench_is_latency(row) ? row->baseline_value / row->value
                                 : row->value / row->baseline_value;
}

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

void bench_samples_add(bench_samples *s, double ns)
{
    s->v = grow(s->v, s->count, &s->cap, sizeof *s->v);
    s->v[s->count++] = ns;
}

int bench_time_ops(bool (*op)(void *arg), void *arg, size_t warmup, size_t n, bench_samples *out)
{
    for (size_t k = 0; k < warmup; k++)
        if (!op(arg))
            return -1;
    uint64_t t = bench_now_ns();
    for (size_t k = 0; k < n; k++) {
        if (!op(arg))
            return -1;
        uint64_t now = bench_now_ns();
        bench_samples_add(out, (double)(now - t));
        t = now;
    }
    return 0;
}

void bench_samples_free(bench_samples *s)
{
    free(s->v);
    *s = (bench_samples){0};
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(bench_samples *s, double q)
{
    if (!s->count)
        return NAN;
    qsort(s->v, s->count, sizeof *s->v, compare_double);
    /* The nearest rank: the smallest sample with at least q of them at or below it. */
    size_t rank = (size_t)ceil(q * (double)s->count);
    return s->v[rank ? rank - 1 : 0];
}

void bench_note(const char *suite, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tessera-bench: %s: %s\n", suite, line);
}

void *bench_shared_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        out_of_memory();
    return p;
}

void bench_shared_free(void *p, size_t bytes)
{
    munmap(p, bytes);
}

int bench_fork(void)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
    }
    return (int)pid;
}

int bench_wait(int pid)
{
    int status;
    while (waitpid((pid_t)pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

bool bench_process_cpu_ns(int pid, uint64_t *out)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* After the command (which may hold spaces and parentheses): the
     * state is field 3, utime and stime are fields 14 and 15. */
    char *p = strrchr(buf, ')');
    unsigned long long utime, stime;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                     &stime) != 2)
        return false;
    long hz = sysconf(_SC_CLK_TCK);
    *out = (utime + stime) * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
    return true;
}

void bench_pin_to(bench_pin *p, int pid, int cpu)
{
    *p = (bench_pin){.pid = pid};
    if (cpu < 0 || sched_getaffinity(pid, sizeof p->saved, &p->saved) < 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    p->pinned = sched_setaffinity(pid, sizeof one, &one) == 0;
}

void bench_unpin(bench_pin *p)
{
    if (p->pinned)
        sched_setaffinity(p->pid, sizeof p->saved, &p->saved);
    p->pinned = false;
}

void bench_place(bench_pin *p, const bench_config *config, int count, const char *suite)
{
    *p = (bench_pin){.pid = 0};
    cpu_set_t last;
    if (!config->pin || count < 1 || sched_getaffinity(0, sizeof p->saved, &p->saved) < 0)
        return;
    CPU_ZERO(&last);
    int low = -1, high = -1, found = 0;
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0 && found < count; cpu--)
        if (CPU_ISSET(cpu, &p->saved)) {
            CPU_SET(cpu, &last);
            high = found++ ? high : cpu;
            low = cpu;
        }
    if (found < count || CPU_COUNT(&p->saved) == count)
        return; /* fewer CPUs than threads, or no choice to make */
    p->pinned = sched_setaffinity(0, sizeof last, &last) == 0;
    if (!p->pinned || !suite)
        return;
    if (count == 1)
        bench_note(suite, "measures on CPU %d (the daemon it starts and PyTorch too)", low);
    else
        bench_note(suite,
                   "measures on CPUs %d-%d, those allowed among them (the daemon it starts "
                   "and PyTorch too)",
                   low, high);
}

void bench_unpin_process(const bench_pin *p, int pid)
{
    if (!p->pinned || pid <= 0)
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    if (!dir)
        return;
    for (struct dirent *e; (e = readdir(dir));) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end == '\0' && tid > 0)
            sched_setaffinity((pid_t)tid, sizeof p->saved, &p->saved);
    }
    closedir(dir);
}

bool bench_two_cpus(int cpus[2])
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0 || CPU_COUNT(&set) < 2)
        return false;
    for (int cpu = 0, found = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
        if (CPU_ISSET(cpu, &set))
            cpus[found++] = cpu;
    return true;
}

void bench_pairs_add(bench_pairs *p, double value, double reference)
{
    bench_samples_add(&p->value, value);
    bench_samples_add(&p->reference, reference);
    bench_samples_add(&p->ratio, value / reference);
    if (value > p->best)
        p->best = value;
}

bench_paired bench_pairs_finish(bench_pairs *p, bool ok)
{
    bench_paired r = {.ok = ok && p->value.count > 0, .value = NAN, .best = NAN};
    r.reference = bench_quantile(&p->reference, 0.5);
    if (r.ok) {
        r.value = bench_quantile(&p->value, 0.5);
        r.best = p->best;
        r.paired = bench_quantile(&p->ratio, 0.5);
    }
    bench_samples_free(&p->value);
    bench_samples_free(&p->reference);
    bench_samples_free(&p->ratio);
    return r;
}

double bench_paired_over(const bench_paired *a, const bench_paired *b)
{
    return a->ok && b->ok && a->paired > 0 && b->paired > 0 ? a->paired / b->paired : 0;
}

void bench_set_threads(const bench_config *config, const char *suite, int threads)
{
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    setenv("TESSERA_NUM_THREADS", n, 1);
    const char *pocl = getenv("POCL_MAX_PTHREAD_COUNT");
    if (config->socket_path)
        bench_note(suite, "opencl:0 runs on as many threads as the daemon at %s gives it",
                   config->socket_path);
    else if (pocl && *pocl && strcmp(pocl, n) != 0)
        bench_note(suite,
                   "POCL_MAX_PTHREAD_COUNT=%s is kept: PoCL's devices run on that many "
                   "threads",
                   pocl);
    else
        setenv("POCL_MAX_PTHREAD_COUNT", n, 1);
}
