/* The share suite's Python rows: what the tessera Python package costs
 * over the C API for the same work on opencl:0, measured in one run.
 *
 * python_add: c = a + b on two 2^24-element float32 tensors (--quick:
 * 2^20) and tessera.opencl.synchronize(), in GB/s of the 3 tensors'
 * bytes, against c_add: tsr_add and tsr_synchronize from C (target 0.9).
 * python_latency: the same on two 1-element tensors, in microseconds,
 * against c_small_op_latency (target 1/2: at most twice C's time). Each
 * result is released after its sample, outside the timing, on both sides.
 *
 * The Python side is a child /usr/bin/python3 ($TESSERA_BENCH_PYTHON)
 * running the script below with the package of the build tree
 * (TSR_BENCH_PYTHONPATH, or $TESSERA_BENCH_PYTHONPATH; an installed
 * package otherwise) on the suite's daemon ($TESSERA_SOCKET). It prints
 * "ready" (or "missing MESSAGE" when the package does not import or sees
 * no opencl device: the rows are skipped with that note), then answers
 * each request "add REPS" or "latency REPS" with a warm-up, REPS lines
 * "NAME SECONDS" and "end". C and Python take ROUNDS turns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "tessera/tessera.h"

#define SUITE "share"
#define ROUNDS 5 /* turns of C and Python */

#ifndef TSR_BENCH_PYTHONPATH
#define TSR_BENCH_PYTHONPATH ""
#endif

static const char script[] = "import sys, time\n"
                             "try:\n"
                             "    import tessera\n"
                             "    if not tessera.opencl.is_available():\n"
                             "        raise RuntimeError('no opencl device')\n"
                             "except Exception as e:\n"
                             "    print('missing %s: %s' % (type(e).__name__, e), flush=True)\n"
                             "    sys.exit()\n"
                             "n = int(sys.argv[1])\n"
                             "sync = tessera.opencl.synchronize\n"
                             "a = tessera.ones(n, device='opencl:0')\n"
                             "b = tessera.full((n,), 2.0, device='opencl:0')\n"
                             "operands = {'add': (a, b), 'latency': (a[:1], b[:1])}\n"
                             "print('ready', flush=True)\n"
                             "for line in sys.stdin:\n"
                             "    name, reps = line.split()\n"
                             "    x, y = operands[name]\n"
                             "    c = x + y\n"
                             "    sync()\n"
                             "    for _ in range(int(reps)):\n"
                             "        c = None\n"
                             "        start = time.perf_counter()\n"
                             "        c = x + y\n"
                             "        sync()\n"
                             "        print(name, time.perf_counter() - start)\n"
                             "    c = None\n"
                             "    print('end', flush=True)\n";

/* From C: reps samples of tsr_add + tsr_synchronize over the first n
 * elements of a and b, in nanoseconds. */
static int measure_c(tsr_client *c, tsr_tensor *a, tsr_tensor *b, int64_t n, int reps,
                     bench_samples *s)
{
    tsr_tensor *x = NULL, *y = NULL, *out = NULL;
    int result = -1;
    if (tsr_tensor_narrow(a, 0, 0, n, &x) != TSR_OK || tsr_tensor_narrow(b, 0, 0, n, &y) != TSR_OK)
        goto done;
    for (int k = -1; k < reps; k++) { /* k = -1: the warm-up */
        uint64_t t0 = bench_now_ns();
        if (tsr_add(x, y, tsr_scalar_int(1), &out) != TSR_OK ||
            tsr_synchronize(c, tsr_tensor_device(x)) != TSR_OK)
            goto done;
        double ns = (double)(bench_now_ns() - t0);
        tsr_tensor_release(out);
        out = NULL;
        if (k >= 0)
            bench_samples_add(s, ns);
    }
    result = 0;
done:
    if (result != 0)
        bench_note(SUITE, "c_add: %s", tsr_last_error());
    tsr_tensor_release(out);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    return result;
}

/* The Python child: its pid and pipes. */
typedef struct py_child {
    int pid;
    FILE *to, *from;
} py_child;

/* Starts the child and reads its first line: 0 when it is ready, 1
 * (noted) when the package is missing, -1 on failure. */
static int py_start(const char *socket_path, int64_t n, py_child *p)
{
    *p = (py_child){.pid = -1};
    const char *python = bench_python_path();
    if (access(python, X_OK) != 0) {
        bench_note(SUITE, "no Python rows: %s: %s", python, strerror(errno));
        return 1;
    }
    const char *dir = getenv("TESSERA_BENCH_PYTHONPATH");
    if (!dir)
        dir = TSR_BENCH_PYTHONPATH;
    int down[2], up[2];
    if (pipe(down) != 0)
        return -1;
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        return -1;
    }
    char count[24];
    snprintf(count, sizeof count, "%lld", (long long)n);
    p->pid = bench_fork();
    if (p->pid == 0) {
        if (dup2(down[0], STDIN_FILENO) < 0 || dup2(up[1], STDOUT_FILENO) < 0)
            _exit(127);
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        if (*dir)
            setenv("PYTHONPATH", dir, 1);
        setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
        setenv("TESSERA_SOCKET", socket_path, 1);
        execl(python, python, "-c", script, count, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    p->to = p->pid > 0 ? fdopen(down[1], "w") : NULL;
    p->from = p->pid > 0 ? fdopen(up[0], "r") : NULL;
    if (!p->to)
        close(down[1]);
    if (!p->from)
        close(up[0]);
    char line[512] = "";
    if (!p->to || !p->from || !fgets(line, sizeof line, p->from))
        return -1;
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "missing ", 8) == 0) {
        bench_note(SUITE, "no Python rows: the tessera package (%s, PYTHONPATH %s): %s", python,
                   *dir ? dir : "unset", line + 8);
        return 1;
    }
    return strcmp(line, "ready") == 0 ? 0 : -1;
}

/* One round of the child's samples of `name`. */
static int py_round(py_child *p, const char *name, int reps, bench_samples *s)
{
    char line[512];
    if (fprintf(p->to, "%s %d\n", name, reps) < 0 || fflush(p->to) != 0)
        return -1;
    size_t want = s->count + (size_t)reps;
    while (fgets(line, sizeof line, p->from) && strcmp(line, "end\n") != 0) {
        double seconds;
        char got[16];
        if (sscanf(line, "%15s %lf", got, &seconds) == 2 && strcmp(got, name) == 0)
            bench_samples_add(s, seconds * 1e9);
    }
    return s->count == want ? 0 : -1;
}

static void py_stop(py_child *p)
{
    if (p->to)
        fclose(p->to);
    if (p->from)
        fclose(p->from);
    if (p->pid > 0)
        bench_wait(p->pid);
}

int bench_share_python(const bench_config *config, const char *socket_path, bench_results *out)
{
    int64_t n = config->quick ? INT64_C(1) << 20 : INT64_C(1) << 24;
    int add_reps = config->quick ? 5 : 40, latency_reps = config->quick ? 50 : 500;
    tsr_client_options o = {.socket_path = socket_path, .name = "tessera-bench c_add"};
    tsr_client *c;
    if (tsr_client_open(&o, &c) != TSR_OK) {
        bench_note(SUITE, "%s", tsr_last_error());
        return -1;
    }
    tsr_tensor_options to = {.has_dtype = true,
                             .dtype = TSR_FLOAT32,
                             .has_device = true,
                             .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *a = NULL, *b = NULL;
    bench_samples c_add = {0}, c_latency = {0}, py_add = {0}, py_latency = {0};
    bench_note(SUITE, "a + b on %lld float32 elements and on 1, from C and from Python",
               (long long)n);
    int result = -1;
    py_child child = {.pid = -1};
    if (tsr_tensor_full(c, 1, &n, tsr_scalar_float(1), &to, &a) != TSR_OK ||
        tsr_tensor_full(c, 1, &n, tsr_scalar_float(2), &to, &b) != TSR_OK)
        bench_note(SUITE, "c_add: %s", tsr_last_error());
    else
        result = py_start(socket_path, n, &child);
    /* C and Python take turns, so that the machine's noise and the
     * daemon's programs built in the background fall on both alike. */
    for (int r = 0; r < ROUNDS && result == 0; r++)
        if (measure_c(c, a, b, n, add_reps / ROUNDS, &c_add) != 0 ||
            py_round(&child, "add", add_reps / ROUNDS, &py_add) != 0 ||
            measure_c(c, a, b, 1, latency_reps / ROUNDS, &c_latency) != 0 ||
            py_round(&child, "latency", latency_reps / ROUNDS, &py_latency) != 0)
            result = -1;
    if (result == -1)
        bench_note(SUITE, "the Python rows failed (%zu and %zu Python samples)", py_add.count,
                   py_latency.count);
    py_stop(&child);
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_client_close(c);
    if (result == 0) {
        double bytes = 3.0 * 4.0 * (double)n; /* GB/s: bytes per ns */
        bench_row add = {.suite = SUITE,
                         .threads = 1,
                         .value = bytes / bench_quantile(&py_add, 0.5),
                         .p99 = NAN,
                         .unit = BENCH_GBPS,
                         .baseline_value = bytes / bench_quantile(&c_add, 0.5),
                         .baseline_p99 = NAN,
                         .target = 0.9};
        bench_add_named(out, add, "python_add", "opencl:0", "c_add");
        bench_row latency = {.suite = SUITE,
                             .threads = 1,
                             .value = bench_quantile(&py_latency, 0.5) / 1e3,
                             .p99 = bench_quantile(&py_latency, 0.99) / 1e3,
                             .unit = BENCH_US,
                             .baseline_value = bench_quantile(&c_latency, 0.5) / 1e3,
                             .baseline_p99 = bench_quantile(&c_latency, 0.99) / 1e3,
                             .target = 0.5};
        bench_add_named(out, latency, "python_latency", "opencl:0", "c_small_op_latency");
    }
    bench_samples_free(&c_add);
    bench_samples_free(&c_latency);
    bench_samples_free(&py_add);
    bench_samples_free(&py_latency);
    return result < 0 ? -1 : 0;
}
