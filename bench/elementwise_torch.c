/* tessera-bench, elementwise suite: the same operations through PyTorch.
 *
 * A child Python runs the script below, which builds the suite's tensors
 * on torch's cpu device with torch.set_num_threads(threads), times each
 * operation with time.perf_counter and prints one JSON object per line:
 *   {"torch": VERSION}                      first, when torch imports
 *   {"name": NAME, "seconds": S}            the median seconds per operation
 *   {"name": NAME, "error": MESSAGE}        an operation torch refused
 *   {"missing": MESSAGE}                    alone, when torch does not import
 * The names and shapes must stay those of elementwise.c's cases. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/elementwise.h"

#define DEFAULT_PYTHON "/usr/bin/python3"

static const char script[] =
    "import json, sys, time\n"
    "\n"
    "def emit(obj):\n"
    "    print(json.dumps(obj), flush=True)\n"
    "\n"
    "def main():\n"
    "    threads, n, side, batch, samples, reps = (int(v) for v in sys.argv[1:7])\n"
    "    try:\n"
    "        import torch\n"
    "    except Exception as e:\n"
    "        emit({'missing': '%s: %s' % (type(e).__name__, e)})\n"
    "        return\n"
    "    torch.set_num_threads(threads)\n"
    "    emit({'torch': torch.__version__})\n"
    "    f32 = torch.float32\n"
    "\n"
    "    def flat(da, db):\n"
    "        return lambda: (torch.ones(n, dtype=da), torch.full((n,), 2, dtype=db),\n"
    "                        torch.empty(n, dtype=torch.promote_types(da, db)))\n"
    "\n"
    "    def add(t):\n"
    "        torch.add(t[0], t[1], out=t[2])\n"
    "\n"
    "    def channels_last(t):\n"
    "        t[0].contiguous(memory_format=torch.channels_last)\n"
    "\n"
    "    cases = [\n"
    "        ('add_f32', flat(f32, f32), add),\n"
    "        ('add_i32_f32', flat(torch.int32, f32), add),\n"
    "        ('add_f16', flat(torch.float16, torch.float16), add),\n"
    "        ('add_bf16', flat(torch.bfloat16, torch.bfloat16), add),\n"
    "        ('add_f64', flat(torch.float64, torch.float64), add),\n"
    "        ('add_transposed', lambda: (torch.ones(side, side).t(),\n"
    "                                    torch.full((side, side), 2.0),\n"
    "                                    torch.empty(side, side)), add),\n"
    "        ('add_broadcast', lambda: (torch.ones(side, 1), torch.full((1, side), 2.0),\n"
    "                                   torch.empty(side, side)), add),\n"
    "        ('nchw_to_nhwc', lambda: (torch.ones(batch, 64, 56, 56),), channels_last),\n"
    "    ]\n"
    "    for name, make, op in cases:\n"
    "        try:\n"
    "            t = make()\n"
    "            op(t)\n"
    "            times = []\n"
    "            for _ in range(samples):\n"
    "                start = time.perf_counter()\n"
    "                for _ in range(reps):\n"
    "                    op(t)\n"
    "                times.append((time.perf_counter() - start) / reps)\n"
    "            del t\n"
    "            times.sort()\n"
    "            emit({'name': name, 'seconds': times[(len(times) - 1) // 2]})\n"
    "        except Exception as e:\n"
    "            emit({'name': name, 'error': '%s: %s' % (type(e).__name__, e)})\n"
    "\n"
    "main()\n";

/* $TESSERA_BENCH_PYTHON, else the system's Python. */
static const char *python_path(void)
{
    const char *python = getenv("TESSERA_BENCH_PYTHON");
    return python && *python ? python : DEFAULT_PYTHON;
}

const torch_result *torch_find(const torch_results *r, const char *name)
{
    for (size_t k = 0; k < r->count; k++)
        if (strcmp(r->r[k].name, name) == 0)
            return &r->r[k];
    return NULL;
}

/* One line of the script's output into *out; notes what it cannot use. */
static void parse_line(char *line, const char *suite, torch_results *out, bool *missing)
{
    line[strcspn(line, "\n")] = '\0';
    char name[48];
    double seconds;
    int at = -1;
    if (sscanf(line, "{\"torch\": \"%63[^\"]\"}", out->version) == 1)
        return;
    if (sscanf(line, "{\"missing\": %n", &at) == 0 && at > 0) {
        bench_note(suite, "no PyTorch comparison: %s cannot import torch (%s)", python_path(),
                   line + at);
        *missing = true;
        return;
    }
    if (sscanf(line, "{\"name\": \"%47[^\"]\", \"seconds\": %lf}", name, &seconds) == 2) {
        if (out->count < TORCH_MAX_RESULTS) {
            torch_result *r = &out->r[out->count++];
            snprintf(r->name, sizeof r->name, "%s", name);
            r->seconds = seconds > 0 ? seconds : NAN;
        }
        return;
    }
    at = -1;
    if (sscanf(line, "{\"name\": \"%47[^\"]\", \"error\": %n", name, &at) == 1 && at > 0) {
        bench_note(suite, "torch: %s failed: %s", name, line + at);
        return;
    }
    bench_note(suite, "torch: unexpected output: %s", line);
}

int torch_measure(const torch_request *req, const char *suite, torch_results *out)
{
    *out = (torch_results){0};
    const char *python = python_path();
    if (access(python, X_OK) != 0) {
        bench_note(suite, "no PyTorch comparison: %s: %s", python, strerror(errno));
        return -1;
    }
    char args[6][24];
    snprintf(args[0], sizeof args[0], "%d", req->threads);
    snprintf(args[1], sizeof args[1], "%lld", (long long)req->n);
    snprintf(args[2], sizeof args[2], "%lld", (long long)req->side);
    snprintf(args[3], sizeof args[3], "%lld", (long long)req->batch);
    snprintf(args[4], sizeof args[4], "%d", req->samples);
    snprintf(args[5], sizeof args[5], "%d", req->reps);

    int fds[2];
    if (pipe(fds) < 0) {
        bench_note(suite, "no PyTorch comparison: pipe: %s", strerror(errno));
        return -1;
    }
    bench_note(suite, "the same operations through PyTorch (%s)", python);
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(suite, "no PyTorch comparison: fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(127);
        close(fds[1]);
        execl(python, python, "-c", script, args[0], args[1], args[2], args[3], args[4], args[5],
              (char *)NULL);
        fprintf(stderr, "tessera-bench: %s: cannot run %s: %s\n", suite, python, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    if (!f) {
        close(fds[0]);
        bench_wait(pid);
        bench_note(suite, "no PyTorch comparison: fdopen: %s", strerror(errno));
        return -1;
    }
    bool missing = false;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        bool whole = strchr(line, '\n') != NULL;
        parse_line(line, suite, out, &missing);
        /* The rest of an overlong line is dropped. */
        while (!whole && fgets(line, sizeof line, f))
            whole = strchr(line, '\n') != NULL;
    }
    fclose(f);
    int status = bench_wait(pid);
    if (missing)
        return -1;
    if (status != 0 || !out->version[0]) {
        bench_note(suite, "no PyTorch comparison: %s exited with status %d", python, status);
        return -1;
    }
    return 0;
}
