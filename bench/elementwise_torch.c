/* tessera-bench, elementwise suite: the same operations through PyTorch.
 *
 * A child Python runs the script below, which builds the suite's tensors
 * on torch's cpu device with torch.set_num_threads(threads) and times them
 * with time.perf_counter, one request at a time, so that the suite can
 * set each sample beside a STREAM sample of its own, as it does Tessera's.
 * It prints one JSON object per line:
 *   {"torch": VERSION}             first, when torch imports
 *   {"missing": MESSAGE}           alone, when torch does not import
 * and reads one request per line, answering each:
 *   case NAME   {"ready": NAME}, or {"error": MESSAGE} when torch refused
 *               the operation (its tensors are made and it runs once)
 *   sample      {"seconds": S}: seconds per operation over `reps` of them
 *   drop        {"dropped": NAME}: the case's tensors are freed
 * End of input ends it. The names and shapes must stay those of
 * elementwise.c's cases (both suites'; relu runs as clamp_min, which is
 * how PyTorch 1.13 computes it, so that it can write into an out=). A
 * suite with cases of its own (matmul.c) passes them as Python source
 * (torch_request.cases), run with `torch` and the dict `cases` in scope
 * after the ones here are made. The inputs of the transcendental cases
 * are N(0, 1) samples (their absolute values for log), as elementwise.c
 * makes them. */
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
    "    threads, n, side, batch, reps = (int(v) for v in sys.argv[1:6])\n"
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
    "    def unary(dtype):\n"
    "        return lambda: (torch.ones(n, dtype=dtype), torch.empty(n, dtype=dtype))\n"
    "\n"
    "    def normal(dtype, positive=False):\n"
    "        def make():\n"
    "            x = torch.randn(n, generator=torch.Generator().manual_seed(0))\n"
    "            return ((x.abs() if positive else x).to(dtype), torch.empty(n, dtype=dtype))\n"
    "        return make\n"
    "\n"
    "    def into(fn):\n"
    "        return lambda t: fn(*t[:-1], out=t[-1])\n"
    "\n"
    "    cases = {\n"
    "        'add_f32': (flat(f32, f32), add),\n"
    "        'add_i32_f32': (flat(torch.int32, f32), add),\n"
    "        'add_f16': (flat(torch.float16, torch.float16), add),\n"
    "        'add_bf16': (flat(torch.bfloat16, torch.bfloat16), add),\n"
    "        'add_f64': (flat(torch.float64, torch.float64), add),\n"
    "        'add_transposed': (lambda: (torch.ones(side, side).t(),\n"
    "                                    torch.full((side, side), 2.0),\n"
    "                                    torch.empty(side, side)), add),\n"
    "        'add_broadcast': (lambda: (torch.ones(side, 1), torch.full((1, side), 2.0),\n"
    "                                   torch.empty(side, side)), add),\n"
    "        'nchw_to_nhwc': (lambda: (torch.ones(batch, 64, 56, 56),), channels_last),\n"
    "        'relu_f32': (unary(f32), lambda t: torch.clamp_min(t[0], 0, out=t[1])),\n"
    "        'abs_f32': (unary(f32), into(torch.abs)),\n"
    "        'lt_f32': (lambda: (torch.ones(n), torch.full((n,), 2.0),\n"
    "                            torch.empty(n, dtype=torch.bool)), into(torch.lt)),\n"
    "        'where_f32': (lambda: (torch.ones(n, dtype=torch.bool), torch.ones(n),\n"
    "                               torch.full((n,), 2.0), torch.empty(n)), into(torch.where)),\n"
    "        'exp_f32': (normal(f32), into(torch.exp)),\n"
    "        'log_f32': (normal(f32, True), into(torch.log)),\n"
    "        'tanh_f32': (normal(f32), into(torch.tanh)),\n"
    "        'sigmoid_f32': (normal(f32), into(torch.sigmoid)),\n"
    "        'gelu_f32': (normal(f32), into(torch._C._nn.gelu)),\n"
    "        'exp_f16': (normal(torch.float16), into(torch.exp)),\n"
    "        'exp_bf16': (normal(torch.bfloat16), into(torch.exp)),\n"
    "    }\n"
    "    if len(sys.argv) > 6:\n"
    "        exec(sys.argv[6], {'torch': torch, 'cases': cases})\n"
    "    name, t, op = None, None, None\n"
    "    for line in sys.stdin:\n"
    "        words = line.split()\n"
    "        try:\n"
    "            if words[:1] == ['case'] and len(words) == 2:\n"
    "                name, t = words[1], None\n"
    "                make, op = cases[name]\n"
    "                t = make()\n"
    "                op(t)\n"
    "                emit({'ready': name})\n"
    "            elif words == ['sample'] and t is not None:\n"
    "                start = time.perf_counter()\n"
    "                for _ in range(reps):\n"
    "                    op(t)\n"
    "                emit({'seconds': (time.perf_counter() - start) / reps})\n"
    "            elif words == ['drop']:\n"
    "                t = None\n"
    "                emit({'dropped': name})\n"
    "            else:\n"
    "                emit({'error': 'bad request: %s' % line.strip()})\n"
    "        except Exception as e:\n"
    "            t = None\n"
    "            emit({'error': '%s: %s' % (type(e).__name__, e)})\n"
    "\n"
    "main()\n";

const char *bench_python_path(void)
{
    const char *python = getenv("TESSERA_BENCH_PYTHON");
    return python && *python ? python : DEFAULT_PYTHON;
}

struct torch_child {
    int pid;
    FILE *to, *from; /* its standard input and output */
    const char *suite;
    char version[64];
};

const char *torch_version(const torch_child *c)
{
    return c->version;
}

/* The child's next line into `line` (the rest of an overlong one is
 * dropped); false at its end. */
static bool read_line(torch_child *c, char *line, size_t n)
{
    if (!fgets(line, (int)n, c->from))
        return false;
    bool whole = strchr(line, '\n') != NULL;
    line[strcspn(line, "\n")] = '\0';
    char rest[256];
    while (!whole && fgets(rest, sizeof rest, c->from))
        whole = strchr(rest, '\n') != NULL;
    return true;
}

/* Sends one request and reads its answer; false (noted) when the child
 * is gone or the answer is an error. */
static bool request(torch_child *c, const char *what, char *answer, size_t n)
{
    if (fprintf(c->to, "%s\n", what) < 0 || fflush(c->to) != 0 || !read_line(c, answer, n)) {
        bench_note(c->suite, "torch: the child Python is gone (at \"%s\")", what);
        return false;
    }
    int at = -1;
    if (sscanf(answer, "{\"error\": %n", &at) == 0 && at > 0) {
        bench_note(c->suite, "torch: %s: %s", what, answer + at);
        return false;
    }
    return true;
}

bool torch_case(torch_child *c, const char *name)
{
    char what[64], answer[512], ready[48];
    snprintf(what, sizeof what, "case %s", name);
    if (!request(c, what, answer, sizeof answer))
        return false;
    if (sscanf(answer, "{\"ready\": \"%47[^\"]\"}", ready) != 1 || strcmp(ready, name) != 0) {
        bench_note(c->suite, "torch: unexpected answer to \"%s\": %s", what, answer);
        return false;
    }
    return true;
}

bool torch_sample(torch_child *c, double *seconds)
{
    char answer[512];
    if (!request(c, "sample", answer, sizeof answer))
        return false;
    if (sscanf(answer, "{\"seconds\": %lf}", seconds) != 1 || !(*seconds > 0)) {
        bench_note(c->suite, "torch: unexpected answer to \"sample\": %s", answer);
        return false;
    }
    return true;
}

void torch_drop(torch_child *c)
{
    char answer[512];
    (void)request(c, "drop", answer, sizeof answer);
}

void torch_close(torch_child *c)
{
    if (!c)
        return;
    if (c->to)
        fclose(c->to);
    if (c->from)
        fclose(c->from);
    if (c->pid > 0)
        bench_wait(c->pid);
    free(c);
}

int torch_open(const torch_request *req, const char *suite, torch_child **out)
{
    *out = NULL;
    const char *python = bench_python_path();
    if (access(python, X_OK) != 0) {
        bench_note(suite, "no PyTorch comparison: %s: %s", python, strerror(errno));
        return -1;
    }
    char args[5][24];
    snprintf(args[0], sizeof args[0], "%d", req->threads);
    snprintf(args[1], sizeof args[1], "%lld", (long long)req->n);
    snprintf(args[2], sizeof args[2], "%lld", (long long)req->side);
    snprintf(args[3], sizeof args[3], "%lld", (long long)req->batch);
    snprintf(args[4], sizeof args[4], "%d", req->reps);

    int down[2], up[2];
    if (pipe(down) < 0) {
        bench_note(suite, "no PyTorch comparison: pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe(up) < 0) {
        bench_note(suite, "no PyTorch comparison: pipe: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        return -1;
    }
    bench_note(suite, "the same operations through PyTorch (%s)", python);
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(suite, "no PyTorch comparison: fork: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        return -1;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        if (dup2(down[0], STDIN_FILENO) < 0 || dup2(up[1], STDOUT_FILENO) < 0)
            _exit(127);
        close(down[0]);
        close(up[1]);
        execl(python, python, "-c", script, args[0], args[1], args[2], args[3], args[4], req->cases,
              (char *)NULL); /* a NULL cases ends the list there */
        fprintf(stderr, "tessera-bench: %s: cannot run %s: %s\n", suite, python, strerror(errno));
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    FILE *to = fdopen(down[1], "w"), *from = to ? fdopen(up[0], "r") : NULL;
    torch_child *c = from ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        bench_note(suite, "no PyTorch comparison: out of memory");
        if (to)
            fclose(to); /* the child sees the end of its input and exits */
        else
            close(down[1]);
        if (from)
            fclose(from);
        else
            close(up[0]);
        bench_wait(pid);
        return -1;
    }
    *c = (torch_child){.pid = pid, .to = to, .from = from, .suite = suite};
    char line[1024];
    int at = -1;
    if (!read_line(c, line, sizeof line)) {
        bench_note(suite, "no PyTorch comparison: %s said nothing", python);
    } else if (sscanf(line, "{\"torch\": \"%63[^\"]\"}", c->version) == 1) {
        *out = c;
        return 0;
    } else if (sscanf(line, "{\"missing\": %n", &at) == 0 && at > 0) {
        bench_note(suite, "no PyTorch comparison: %s cannot import torch (%s)", python, line + at);
    } else {
        bench_note(suite, "no PyTorch comparison: unexpected output: %s", line);
    }
    torch_close(c);
    return -1;
}
