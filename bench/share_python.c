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
 * "ready", then one "add SECONDS" line per sample and one "latency
 * SECONDS" line per sample; or one "missing MESSAGE" line when the
 * package does not import or sees no opencl device, and the rows are
 * skipped with that note. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "tessera/tessera.h"

#define SUITE "share"

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
                             "n, add_reps, latency_reps = (int(v) for v in sys.argv[1:4])\n"
                             "sync = tessera.opencl.synchronize\n"
                             "\n"
                             "def run(a, b, reps, name):\n"
                             "    c = a + b\n"
                             "    sync()\n"
                             "    for _ in range(reps):\n"
                             "        c = None\n"
                             "        start = time.perf_counter()\n"
                             "        c = a + b\n"
                             "        sync()\n"
                             "        print(name, time.perf_counter() - start)\n"
                             "\n"
                             "a = tessera.ones(n, device='opencl:0')\n"
                             "b = tessera.full((n,), 2.0, device='opencl:0')\n"
                             "print('ready', flush=True)\n"
                             "run(a, b, add_reps, 'add')\n"
                             "run(a[:1], b[:1], latency_reps, 'latency')\n"
                             "sys.stdout.flush()\n";

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

/* The child's samples; 1 (noted) when the package is missing, -1 on
 * failure. */
static int measure_python(const char *socket_path, int64_t n, int add_reps, int latency_reps,
                          bench_samples *add, bench_samples *latency)
{
    const char *python = bench_python_path();
    if (access(python, X_OK) != 0) {
        bench_note(SUITE, "no Python rows: %s: %s", python, strerror(errno));
        return 1;
    }
    const char *dir = getenv("TESSERA_BENCH_PYTHONPATH");
    if (!dir)
        dir = TSR_BENCH_PYTHONPATH;
    int up[2];
    if (pipe(up) != 0)
        return -1;
    char args[3][24];
    snprintf(args[0], sizeof args[0], "%lld", (long long)n);
    snprintf(args[1], sizeof args[1], "%d", add_reps);
    snprintf(args[2], sizeof args[2], "%d", latency_reps);
    int pid = bench_fork();
    if (pid == 0) {
        close(up[0]);
        if (dup2(up[1], STDOUT_FILENO) < 0)
            _exit(127);
        if (*dir)
            setenv("PYTHONPATH", dir, 1);
        setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
        setenv("TESSERA_SOCKET", socket_path, 1);
        execl(python, python, "-c", script, args[0], args[1], args[2], (char *)NULL);
        _exit(127);
    }
    close(up[1]);
    FILE *from = pid > 0 ? fdopen(up[0], "r") : NULL;
    if (!from) {
        close(up[0]);
        if (pid > 0)
            bench_wait(pid);
        return -1;
    }
    char line[512];
    int result = -1;
    while (fgets(line, sizeof line, from)) {
        line[strcspn(line, "\n")] = '\0';
        double seconds;
        if (strncmp(line, "missing ", 8) == 0) {
            bench_note(SUITE, "no Python rows: the tessera package (%s, PYTHONPATH %s): %s", python,
                       *dir ? dir : "unset", line + 8);
            result = 1;
        } else if (strcmp(line, "ready") == 0) {
            result = 0;
        } else if (sscanf(line, "add %lf", &seconds) == 1) {
            bench_samples_add(add, seconds * 1e9);
        } else if (sscanf(line, "latency %lf", &seconds) == 1) {
            bench_samples_add(latency, seconds * 1e9);
        }
    }
    fclose(from);
    int status = bench_wait(pid);
    if (result == 0 &&
        (status != 0 || add->count != (size_t)add_reps || latency->count != (size_t)latency_reps)) {
        bench_note(SUITE, "the Python child failed (exit %d, %zu of %d and %zu of %d samples)",
                   status, add->count, add_reps, latency->count, latency_reps);
        result = -1;
    }
    return result;
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
    if (tsr_tensor_full(c, 1, &n, tsr_scalar_float(1), &to, &a) != TSR_OK ||
        tsr_tensor_full(c, 1, &n, tsr_scalar_float(2), &to, &b) != TSR_OK)
        bench_note(SUITE, "c_add: %s", tsr_last_error());
    else if (measure_c(c, a, b, n, add_reps, &c_add) == 0 &&
             measure_c(c, a, b, 1, latency_reps, &c_latency) == 0)
        result = measure_python(socket_path, n, add_reps, latency_reps, &py_add, &py_latency);
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
