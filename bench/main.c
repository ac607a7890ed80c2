/* tessera-bench: Tessera's benchmark program. main() reads the command
 * line, runs the chosen suites from the table below and prints their rows
 * as a table or as JSON. Each suite lives in its own file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tessera/version.h"

typedef struct bench_suite {
    const char *name;
    const char *summary;
    bench_suite_fn run;
} bench_suite;

/* Every suite, in the order `tessera-bench` with no SUITE runs them. */
static const bench_suite suites[] = {
    {"ipc", "round trips, allocation and many clients against bare IPC", bench_suite_ipc},
    {"elementwise", "elementwise operations against memory bandwidth, OpenCL and PyTorch",
     bench_suite_elementwise},
    {"unary", "relu, abs, lt, where against a copy; exp, log, tanh, sigmoid, gelu against PyTorch",
     bench_suite_unary},
    {"matmul", "mm, bmm and float16 mm on cpu and opencl:0 against OpenBLAS, CLBlast and PyTorch",
     bench_suite_matmul},
    {"reduce", "sum, amax, argmax on cpu and opencl:0 against a plain read and PyTorch",
     bench_suite_reduce},
    {"cold", "a daemon on empty program caches: ready, programs, first launches", bench_suite_cold},
    {"global", "global tensors on 4 MPI ranks: boxing and add against bare MPI collectives",
     bench_suite_global},
    {"kernels", "user kernels on opencl:0 against the built-in operations; a cached program",
     bench_suite_kernels},
    {"share", "a 1 GiB tensor exported to another process against passing a bare memfd",
     bench_suite_share},
};
#define SUITE_COUNT (sizeof suites / sizeof suites[0])

static const char usage_text[] =
    "NAME\n"
    "    tessera-bench - measure Tessera against what the machine does without it\n"
    "\n"
    "SYNOPSIS\n"
    "    tessera-bench [SUITE...] [--json] [--quick] [--socket PATH] [--clients N]\n"
    "                  [--threads N] [--no-torch] [--no-pin]\n"
    "    tessera-bench --list | --help | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    Runs the named benchmark suites (all of them when none is named) on this\n"
    "    machine and prints one row per measurement. Every row sets a value\n"
    "    beside a baseline that the same run measured the same way without\n"
    "    Tessera (a bare socket ping-pong, malloc, ...), so the numbers mean\n"
    "    something on any machine. Progress lines go to standard error.\n"
    "\n"
    "    Suites:\n"
    "      ipc   Starts a private tesserad (unless --socket names one) and\n"
    "            measures the median round trip of an empty request through\n"
    "            the shared-memory ring (ring_rtt) and through the socket\n"
    "            (socket_rtt), a cached 1 KiB allocation and free on opencl:0\n"
    "            (alloc_free), and the aggregate requests per second of 64\n"
    "            client processes pinging through their rings at once\n"
    "            (clients64). Baselines: two processes ping-ponging on one\n"
    "            spinning shared cache line (bare_spin_shm) or over a\n"
    "            SOCK_SEQPACKET socketpair (bare_seqpacket); malloc and free\n"
    "            of the same size (malloc_free); an epoll echo server with as\n"
    "            many SOCK_SEQPACKET client processes (bare_epoll_seqpacket).\n"
    "            About 10 s; --quick about 1 s.\n"
    "\n"
    "      elementwise\n"
    "            Starts a private tesserad (unless --socket names one) and\n"
    "            measures, on cpu and on opencl:0, the bandwidth (bytes read\n"
    "            and written per second) of elementwise operations on 2^26-\n"
    "            element tensors: float32 add (add_f32), int32 + float32\n"
    "            (add_i32_f32), float16, bfloat16 and float64 add (add_f16,\n"
    "            add_bf16, add_f64), add with a transposed input\n"
    "            (add_transposed), an N x 1 + 1 x M broadcast (add_broadcast)\n"
    "            and the channels_last contiguous() of a 64x64x56x56 float32\n"
    "            tensor (nchw_to_nhwc); then the latency of a 1-element add and\n"
    "            its tsr_synchronize on opencl:0 (small_op_latency). Baselines:\n"
    "            a STREAM add loop moving the same bytes on the same threads\n"
    "            (stream_add); one OpenCL kernel enqueue + clFinish on the same\n"
    "            device, alone and plus one ring round trip\n"
    "            (bare_enqueue_finish, bare_enqueue_finish+ring_rtt); and the\n"
    "            same operations in PyTorch on the cpu (torch) when\n"
    "            /usr/bin/python3 (or $TESSERA_BENCH_PYTHON) imports torch.\n"
    "            Needs about 2 GiB of memory, 1.5 GiB of it lent by the daemon\n"
    "            on opencl:0. About 2 minutes; --quick (2^22 elements) about\n"
    "            15 s. The rows are of the steady state: a private daemon\n"
    "            whose program cache is empty first builds opencl:0's\n"
    "            generic programs (once per machine; cold measures that),\n"
    "            and the suite waits for them before it measures (not with\n"
    "            --quick); each operation's own program, which the daemon\n"
    "            makes in the background at its first launch, is waited for\n"
    "            the same way (tessera info's programs_pending).\n"
    "\n"
    "      unary As elementwise, one input (or a comparison, or where) into an\n"
    "            output of 2^26 elements: relu, abs, lt (two float32 inputs,\n"
    "            a bool result) and where (a bool condition, two float32\n"
    "            inputs) against a STREAM copy moving the same bytes\n"
    "            (stream_copy; targets 0.85), and exp, log, tanh, sigmoid and\n"
    "            gelu in float32, exp in float16 and bfloat16, against PyTorch\n"
    "            (targets 1, and 2 for float16 and bfloat16), these on N(0, 1)\n"
    "            samples (log: their absolute values). An operation this\n"
    "            libtessera does not have yet (or PyTorch refuses: 1.13 has no\n"
    "            float16 exp on the cpu) keeps its row with no value. About 3\n"
    "            minutes; --quick about 20 s.\n"
    "\n"
    "      matmul\n"
    "            Matrix products into a preallocated output, in GFLOP/s, on the\n"
    "            cpu device (in this process) and on opencl:0 (a daemon of its\n"
    "            own, started after the cpu rows): float32 mm of 2048x2048\n"
    "            matrices (mm_f32; targets 0.9 against openblas or clblast, 1\n"
    "            against torch), bmm of 4096 x 32x32 (bmm_f32; target 1\n"
    "            against torch), float16 mm of 2048x2048 (mm_f16; target 1\n"
    "            against torch) and on the cpu the same with the first operand\n"
    "            transposed (mm_f16_transposed). Baselines: cblas_sgemm (cpu,\n"
    "            openblas) or CLBlast's Sgemm on a context of this program's on\n"
    "            opencl:0's device (clblast), called directly on float32 data of\n"
    "            the same shape and values, each sample beside one of\n"
    "            Tessera's; and the same products in PyTorch on its cpu\n"
    "            (torch), each of its samples beside one of Tessera's. PyTorch\n"
    "            1.13 has no float16 mm on the cpu: torch's side of mm_f16 then\n"
    "            converts to float32, multiplies and converts back (noted).\n"
    "            About 2 minutes on the cpu, several more on a CPU OpenCL\n"
    "            device; --quick (256x256 and 256 x 32x32) about 20 s.\n"
    "\n"
    "      reduce\n"
    "            Reductions on the cpu device, in this process, into a\n"
    "            preallocated output, in GB/s of input read: the sum and the\n"
    "            amax of 2^26 float32 (sum_f32, amax_f32; targets 0.85\n"
    "            against stream_read), the sum of an 8192x8192 float32\n"
    "            tensor along dim 1 and along dim 0 (sum_inner, sum_outer;\n"
    "            0.7) and the argmax of 2^26 float32 (argmax_f32; 0.7), each\n"
    "            also against torch (target 1). Baselines: a STREAM-style\n"
    "            read of as many bytes, a sum in 8 vector accumulators at -O3\n"
    "            (stream_read), each sample beside one of Tessera's; and the\n"
    "            same reductions in PyTorch (torch), each of its samples\n"
    "            beside a read, the ratio being that of both sides' ratios to\n"
    "            it. Then the same cases on opencl:0 of a private daemon (or\n"
    "            --socket's), each sample a synchronize after its\n"
    "            reductions, against stream_read and torch, with the same\n"
    "            targets. softmax_f32: softmax along the last dim of a\n"
    "            4096x4096 float32 matrix against torch (target 1). About a\n"
    "            minute; --quick (2^20 elements) about 10 s.\n"
    "\n"
    "      cold  Starts a private tesserad on empty program caches (Tessera's\n"
    "            and PoCL's, in a temporary directory; --socket is not used)\n"
    "            and measures what a new machine's first user meets: ms from\n"
    "            the start to READY=1 (cold_ready, limit 1000); s to build\n"
    "            every generic program of opencl:0 after the first launch\n"
    "            (cold_build_all, limit 120) and how many there are\n"
    "            (cold_programs: what every launch of the test suite runs\n"
    "            on); then the slowest first launch with its synchronize over\n"
    "            every operation family, dtype class and walk\n"
    "            (cold_first_launch, ms, limit 50). About a minute on a\n"
    "            2-core machine.\n"
    "\n"
    "      global\n"
    "            Global tensors (libtessera-mpi) on 4 ranks of this machine\n"
    "            (mpiexec -n 4 --oversubscribe, one thread each, the cpu\n"
    "            device), in GB/s of the logical tensor, each sample the\n"
    "            slowest rank's time, 11 to 41 pairs of the operation and\n"
    "            its baseline in alternating order (the median ratio):\n"
    "            P -> B of 2^24 float32 (boxing_p_to_b; target 0.9 against\n"
    "            mpi_allreduce, an MPI_Allreduce of as many floats), S(0) ->\n"
    "            B (boxing_s0_to_b; 0.9 against mpi_allgather), S(0) -> S(1)\n"
    "            of 4096x4096 (boxing_s0_to_s1; 0.8 against mpi_alltoall,\n"
    "            the blocks packed by hand and one MPI_Alltoall) and S(0) +\n"
    "            S(0) (global_add; 0.91 against local_add, tsr_add on the\n"
    "            shard's size alone). Needs Open MPI's mpiexec in PATH and\n"
    "            tessera-bench-global (built with libtessera-mpi) beside this\n"
    "            program or in ../libexec/tessera. One to two minutes on a\n"
    "            loaded 2-core machine; --quick (2^18 elements) a few seconds.\n"
    "\n"
    "      kernels\n"
    "            User kernels (tessera/kernel.h) on opencl:0 beside the\n"
    "            built-in operations of the same run: y = a * x + y over 2^26\n"
    "            float32, a kernel of the suite's own, in GB/s (user_saxpy;\n"
    "            target 0.95 against add_f32, y += x, sampled in pairs); a\n"
    "            1-element user kernel and its synchronize (user_latency, us;\n"
    "            target 1/1.2 against small_op_latency, a 1-element add_\n"
    "            and its synchronize); ms from tsr_program_create to built\n"
    "            for a program another process built (program_cached, limit\n"
    "            5); ms from tsr_program_create to built for a source nobody\n"
    "            built (program_build; target 1/1.1 against bare_build,\n"
    "            clBuildProgram of the same kernels on a context the bench\n"
    "            keeps, in turns). About 30 s; --quick (2^22 elements) about\n"
    "            10 s.\n"
    "      share Starts a private tesserad (unless --socket names one) and\n"
    "            measures the median time to hand a written 1 GiB float32\n"
    "            tensor on opencl:0 to another process: tsr_tensor_export here\n"
    "            plus tsr_tensor_import (the request, the descriptor, the\n"
    "            mmap) there, in microseconds (export_import_1gib), against\n"
    "            a 1 GiB memfd sent with SCM_RIGHTS and mapped by the other\n"
    "            process (bare_memfd_pass). Fails when the daemon's resident\n"
    "            memory grows by half the tensor (it would be copying). 50\n"
    "            hand-overs; --quick 5. Then the tessera Python package\n"
    "            against C on the same daemon: c = a + b on two 2^24-element\n"
    "            float32 opencl:0 tensors and a synchronize, in GB/s\n"
    "            (python_add; target 0.9 against c_add, tsr_add from this\n"
    "            program), and the same on 1 element, in us (python_latency;\n"
    "            target 1/2 against c_small_op_latency). The Python is\n"
    "            $TESSERA_BENCH_PYTHON, else /usr/bin/python3, with the build\n"
    "            tree's package ($TESSERA_BENCH_PYTHONPATH overrides it); the\n"
    "            two rows are skipped with a note when it does not import.\n"
    "            --quick: 2^20 elements.\n"
    "\n"
    "    The daemon is found as $TESSERA_DAEMON, else next to tessera-bench in a\n"
    "    build tree (../daemon/tesserad) or an installation (../sbin/tesserad),\n"
    "    else as tesserad in PATH.\n"
    "\n"
    "OPTIONS\n"
    "    --json\n"
    "        Print a JSON array instead of the table (see OUTPUT).\n"
    "    --quick\n"
    "        Fewer samples and shorter runs (a few seconds in all): for smoke\n"
    "        tests; the numbers are noisier.\n"
    "    --socket PATH\n"
    "        Measure the tesserad listening on PATH instead of starting one.\n"
    "    --clients N\n"
    "        Client processes in the many-clients test (1 to 256, default 64);\n"
    "        its row is named clientsN.\n"
    "    --threads N\n"
    "        Threads of the elementwise, unary, matmul and reduce suites (1 to\n"
    "        16, default 1): each sets TESSERA_NUM_THREADS (the cpu device's pool)\n"
    "        and, for a daemon it starts, POCL_MAX_PTHREAD_COUNT (PoCL's CPU\n"
    "        device) to N unless it is set, and runs its baseline and PyTorch\n"
    "        on N threads too. matmul also sets OpenBLAS's threads (its own\n"
    "        and, through OPENBLAS_NUM_THREADS, PyTorch's) to N.\n"
    "    --no-torch\n"
    "        Leave out the PyTorch comparison of the elementwise, unary,\n"
    "        matmul and reduce suites.\n"
    "    --no-pin\n"
    "        Leave where processes run to the scheduler. By default each latency\n"
    "        pair (this program and the daemon it started, or a baseline's two\n"
    "        processes) runs on two different CPUs, the first two it may use: the\n"
    "        scheduler otherwise sometimes puts a pair on one CPU, which makes a\n"
    "        socket round trip several times faster and a spinning one slower,\n"
    "        and the comparison a coin toss. The elementwise, unary, reduce and\n"
    "        matmul suites run everything they measure (this program, the\n"
    "        daemon it starts, PyTorch) on the same CPUs, the last --threads\n"
    "        it may use: the CPUs of a virtual machine can differ in speed,\n"
    "        and a ratio of two sides on different CPUs measures that. The\n"
    "        many-clients tests and small_op_latency are not pinned. With\n"
    "        --socket only this program is pinned.\n"
    "    --list\n"
    "        Print the suites, one per line, and exit.\n"
    "    -h, --help\n"
    "        Print this text and exit.\n"
    "    --version\n"
    "        Print the version and exit.\n"
    "\n"
    "OUTPUT\n"
    "    A table with a row per measurement, or with --json an array of objects\n"
    "    with these keys:\n"
    "      suite           the suite (\"ipc\", \"elementwise\", \"unary\",\n"
    "                      \"matmul\", \"reduce\", \"cold\", \"global\",\n"
    "                      \"kernels\", \"share\")\n"
    "      name            what was measured (\"ring_rtt\", \"add_f32\", ...)\n"
    "      device          the device it used (\"opencl:0\"), or null\n"
    "      threads         processes or threads taking part\n"
    "      value, p99      the median and the 99th percentile (p99 is null\n"
    "                      for rates); value is null when the operation\n"
    "                      failed (the reason is printed) and only its\n"
    "                      baseline was measured\n"
    "      unit            \"us\", \"ms\" or \"s\" (latencies), \"programs\" (a\n"
    "                      count: fewer is better), \"ops/s\", \"GB/s\" or\n"
    "                      \"GFLOP/s\" (rates)\n"
    "      baseline        what the value is compared with; \"limit\" is a\n"
    "                      fixed bound from the design, not a measurement\n"
    "      baseline_value, baseline_p99\n"
    "                      the baseline's median and 99th percentile\n"
    "      ratio           value / baseline_value for rates and\n"
    "                      baseline_value / value for latencies: bigger is\n"
    "                      better, 1 is par. Where the two were sampled side\n"
    "                      by side (elementwise, unary, matmul, reduce), the\n"
    "                      median of\n"
    "                      the pairs' ratios instead, which a busy neighbour\n"
    "                      on a shared machine moves less; against torch, the\n"
    "                      ratio of both sides' such ratios to the STREAM loop\n"
    "                      (matmul: pairs of Tessera's and torch's samples)\n"
    "      paired          whether ratio comes from pairs of samples\n"
    "      target          the ratio the design asks for, or null\n"
    "      meets_target    ratio >= target, or null without a target\n"
    "    Targets are reported, never enforced: a missed target does not\n"
    "    change the exit status.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 every suite ran; 1 a suite could not run (the reason is printed,\n"
    "    and the rows measured so far still are); 2 bad command line.\n"
    "\n"
    "ENVIRONMENT\n"
    "    TESSERA_DAEMON   the tesserad to start.\n"
    "    TESSERA_BENCH_GLOBAL\n"
    "                     the global suite's tessera-bench-global.\n"
    "    TESSERA_BENCH_PYTHON\n"
    "                     the Python of the PyTorch comparison and of the\n"
    "                     share suite's Python rows (default /usr/bin/python3).\n"
    "    TESSERA_BENCH_PYTHONPATH\n"
    "                     where the share suite's Python finds the tessera\n"
    "                     package (default: the build tree's python/; empty:\n"
    "                     Python's own path, an installed package).\n"
    "\n"
    "EXAMPLES\n"
    "    tessera-bench\n"
    "    tessera-bench ipc --json | jq '.[] | select(.meets_target == false)'\n"
    "    tessera-bench ipc --socket /run/tessera/tesserad.sock --clients 8\n"
    "    tessera-bench elementwise --threads 2\n";

static int usage_error(const char *what, const char *detail)
{
    fprintf(stderr, "tessera-bench: %s%s\n", what, detail);
    fprintf(stderr, "Try 'tessera-bench --help' for more information.\n");
    return 2;
}

/* argv[*k] is option `name`, as "NAME VALUE" or "NAME=VALUE": *value is
 * its value (NULL when none follows) and *k moves past it. False when
 * argv[*k] is something else. */
static bool option_value(const char *name, int argc, char **argv, int *k, const char **value)
{
    const char *a = argv[*k];
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0 || (a[len] != '\0' && a[len] != '='))
        return false;
    *value = a[len] == '=' ? a + len + 1 : (*k + 1 < argc ? argv[++*k] : NULL);
    return true;
}

/* Option `name`'s value v as a whole number from 1 to max: 0, or 2 after
 * the usage error. */
static int count_value(const char *name, const char *v, long max, int *out)
{
    char what[80];
    if (!v) {
        snprintf(what, sizeof what, "%s needs a number", name);
        return usage_error(what, "");
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > max) {
        snprintf(what, sizeof what, "%s: expected a number from 1 to %ld, not ", name, max);
        return usage_error(what, v);
    }
    *out = (int)n;
    return 0;
}

/* ---- Output ------------------------------------------------------------ */

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void json_number(double v)
{
    if (isfinite(v))
        printf("%.6g", v);
    else
        fputs("null", stdout);
}

/* `, "key": value` for the fields after the first. */
static void json_string_field(const char *key, const char *s)
{
    printf(", \"%s\": ", key);
    if (s)
        json_string(s);
    else
        fputs("null", stdout);
}

static void json_number_field(const char *key, double v)
{
    printf(", \"%s\": ", key);
    json_number(v);
}

static bool has_target(const bench_row *row, bool *met)
{
    double ratio = bench_ratio(row);
    if (isnan(row->target) || isnan(ratio))
        return false;
    *met = ratio >= row->target;
    return true;
}

static void print_json(const bench_results *r)
{
    fputs("[", stdout);
    for (size_t k = 0; k < r->count; k++) {
        const bench_row *row = &r->rows[k];
        bool met;
        fputs(k ? ",\n  {\"suite\": " : "\n  {\"suite\": ", stdout);
        json_string(row->suite);
        json_string_field("name", row->name);
        json_string_field("device", row->device[0] ? row->device : NULL);
        json_number_field("threads", row->threads);
        json_number_field("value", row->value);
        json_number_field("p99", row->p99);
        json_string_field("unit", row->unit);
        json_string_field("baseline", row->baseline);
        json_number_field("baseline_value", row->baseline_value);
        json_number_field("baseline_p99", row->baseline_p99);
        json_number_field("ratio", bench_ratio(row));
        printf(", \"paired\": %s", row->paired_ratio > 0 ? "true" : "false");
        json_number_field("target", row->target);
        printf(", \"meets_target\": %s}", !has_target(row, &met) ? "null" : met ? "true" : "false");
    }
    fputs(r->count ? "\n]\n" : "]\n", stdout);
}

/* A value as the table shows it: latencies with 3 decimals, rates whole. */
static void format_value(char *buf, size_t n, double v, const bench_row *row)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else if (bench_is_latency(row))
        snprintf(buf, n, "%.3f", v);
    else if (strcmp(row->unit, BENCH_OPS) == 0)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.2f", v);
}

static int widest(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

static void print_table(const bench_results *r)
{
    if (!r->count)
        return;
    /* The text columns as wide as their longest entry. */
    int ws = 6, wn = 12, wb = 20;
    for (size_t k = 0; k < r->count; k++) {
        ws = widest(ws, r->rows[k].suite);
        wn = widest(wn, r->rows[k].name);
        wb = widest(wb, r->rows[k].baseline);
    }
    printf("%-*s %-*s %-9s %4s %12s %9s %-5s  %-*s %12s %9s  %8s %7s %s\n", ws, "SUITE", wn, "NAME",
           "DEVICE", "THR", "VALUE", "P99", "UNIT", wb, "BASELINE", "BASE VALUE", "BASE P99",
           "RATIO", "TARGET", "MET");
    for (size_t k = 0; k < r->count; k++) {
        const bench_row *row = &r->rows[k];
        char value[32], p99[32], base[32], base_p99[32], ratio[32], target[32];
        format_value(value, sizeof value, row->value, row);
        format_value(p99, sizeof p99, row->p99, row);
        format_value(base, sizeof base, row->baseline_value, row);
        format_value(base_p99, sizeof base_p99, row->baseline_p99, row);
        double q = bench_ratio(row);
        if (isfinite(q))
            snprintf(ratio, sizeof ratio, "%.2fx", q);
        else
            snprintf(ratio, sizeof ratio, "-");
        if (isfinite(row->target))
            snprintf(target, sizeof target, ">=%.3gx", row->target);
        else
            snprintf(target, sizeof target, "-");
        bool met;
        const char *verdict = !has_target(row, &met) ? "-" : met ? "yes" : "NO";
        printf("%-*s %-*s %-9s %4d %12s %9s %-5s  %-*s %12s %9s  %8s %7s %s\n", ws, row->suite, wn,
               row->name, row->device[0] ? row->device : "-", row->threads, value, p99, row->unit,
               wb, row->baseline, base, base_p99, ratio, target, verdict);
    }
}

/* ---- The command line -------------------------------------------------- */

int main(int argc, char **argv)
{
    bench_config config = {.clients = 64, .pin = true, .threads = 1, .torch = true};
    bool json = false;
    bool chosen[SUITE_COUNT] = {false};
    bool any_chosen = false;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("tessera-bench %s\n", tsr_version_string());
            return 0;
        } else if (strcmp(a, "--list") == 0) {
            for (size_t s = 0; s < SUITE_COUNT; s++)
                printf("%-12s %s\n", suites[s].name, suites[s].summary);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--quick") == 0) {
            config.quick = true;
        } else if (strcmp(a, "--no-torch") == 0) {
            config.torch = false;
        } else if (option_value("--threads", argc, argv, &k, &v)) {
            if (count_value("--threads", v, 16, &config.threads) != 0)
                return 2;
        } else if (strcmp(a, "--no-pin") == 0) {
            config.pin = false;
        } else if (option_value("--socket", argc, argv, &k, &v)) {
            if (!v || !*v)
                return usage_error("--socket needs a PATH", "");
            config.socket_path = v;
        } else if (option_value("--clients", argc, argv, &k, &v)) {
            if (count_value("--clients", v, 256, &config.clients) != 0)
                return 2;
        } else if (a[0] == '-') {
            return usage_error("unknown option ", a);
        } else {
            size_t s = 0;
            while (s < SUITE_COUNT && strcmp(suites[s].name, a) != 0)
                s++;
            if (s == SUITE_COUNT) {
                char known[256] = "";
                for (size_t t = 0; t < SUITE_COUNT; t++)
                    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                             t ? ", " : "", suites[t].name);
                fprintf(stderr, "tessera-bench: unknown suite '%s' (suites: %s)\n", a, known);
                fprintf(stderr, "Try 'tessera-bench --help' for more information.\n");
                return 2;
            }
            chosen[s] = any_chosen = true;
        }
    }

    bench_results results = {0};
    int status = 0;
    for (size_t s = 0; s < SUITE_COUNT; s++) {
        if (any_chosen && !chosen[s])
            continue;
        if (suites[s].run(&config, &results) != 0)
            status = 1;
    }
    if (json)
        print_json(&results);
    else
        print_table(&results);
    free(results.rows);
    return status;
}
