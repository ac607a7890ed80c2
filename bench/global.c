/* tessera-bench, the global suite: boxing and an elementwise add of global
 * tensors (libtessera-mpi) on 4 ranks of this machine against the bare MPI
 * collectives that move the same bytes. The measurements run in
 * tessera-bench-global (bench/global/worker.c, which says what each row
 * times) under mpiexec -n 4 --oversubscribe; this suite starts it, reads
 * the rows rank 0 prints and adds them. It needs Open MPI's mpiexec in
 * PATH and the worker beside this program (a build tree) or in
 * ../libexec/tessera (an installation), or $TESSERA_BENCH_GLOBAL. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench/bench.h"

static const char suite[] = "global";
#define RANKS 4

/* The worker: $TESSERA_BENCH_GLOBAL, else beside this program or in an
 * installation's libexec; false when none is there. */
static bool find_worker(char *out, size_t n)
{
    const char *env = getenv("TESSERA_BENCH_GLOBAL");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return access(out, X_OK) == 0;
    }
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return false;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return false;
    *slash = '\0';
    const char *beside[] = {"tessera-bench-global", "../libexec/tessera/tessera-bench-global"};
    for (size_t k = 0; k < sizeof beside / sizeof beside[0]; k++) {
        int w = snprintf(out, n, "%s/%s", self, beside[k]);
        if (w > 0 && (size_t)w < n && access(out, X_OK) == 0)
            return true;
    }
    return false;
}

/* Whether one process may read another's memory as Open MPI's shared
 * memory transport does (process_vm_readv): Yama's ptrace_scope must be 0
 * (ranks are siblings, not descendants), and the call must work on a
 * child (a seccomp filter may forbid it). */
static bool cross_memory_attach(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    int fds[2];
    if (scope != 0 || pipe(fds) != 0)
        return false;
    static volatile long probe = 42;
    int pid = bench_fork();
    if (pid == 0) { /* waits until the parent closes its end */
        char c;
        close(fds[1]);
        ssize_t r = read(fds[0], &c, 1);
        _exit(r < 0);
    }
    close(fds[0]);
    long got = 0;
    struct iovec mine = {&got, sizeof got}, theirs = {(void *)&probe, sizeof probe};
    bool ok = pid > 0 && process_vm_readv(pid, &mine, 1, &theirs, 1, 0) == (ssize_t)sizeof got &&
              got == 42;
    close(fds[1]);
    if (pid > 0)
        bench_wait(pid);
    return ok;
}

/* One "row NAME VALUE BASELINE BASELINE_VALUE PAIRED TARGET" line. */
static bool parse_row(const char *line, bench_results *out)
{
    char name[48], baseline[48];
    double value, base, paired, target;
    if (sscanf(line, "row %47s %lf %47s %lf %lf %lf", name, &value, baseline, &base, &paired,
               &target) != 6 ||
        !(value > 0) || !(base > 0))
        return false;
    bench_add_cpu_rate(out, suite, name, RANKS, BENCH_GBPS, value, baseline, base, paired, target);
    return true;
}

int bench_suite_global(const bench_config *config, bench_results *out)
{
    char worker[PATH_MAX];
    if (!find_worker(worker, sizeof worker)) {
        bench_note(suite, "tessera-bench-global not found beside tessera-bench (built with "
                          "libtessera-mpi only; set TESSERA_BENCH_GLOBAL to it)");
        return 1;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        bench_note(suite, "pipe: %s", strerror(errno));
        return 1;
    }
    bench_note(suite, "%d ranks under mpiexec: boxing P->B, S(0)->B, S(0)->S(1), add%s", RANKS,
               config->quick ? " (quick)" : "");
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(suite, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return 1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        /* Large messages move in one copy where a rank may read another's
         * memory (cross-memory attach, Open MPI's default); where it may
         * not (containers often forbid it), through shared-memory
         * fragments, each a hand-off between two ranks that on an
         * oversubscribed machine waits for the scheduler. Open MPI yields
         * the CPU while it waits by itself when it runs more ranks than
         * cores (--oversubscribe sets mpi_yield_when_idle). */
        if (!cross_memory_attach())
            setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
        const char *argv[12];
        int k = 0;
        argv[k++] = "mpiexec";
        argv[k++] = "-n";
        argv[k++] = "4";
        argv[k++] = "--oversubscribe";
        if (geteuid() == 0)
            argv[k++] = "--allow-run-as-root";
        argv[k++] = worker;
        if (config->quick)
            argv[k++] = "--quick";
        argv[k] = NULL;
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "tessera-bench: global: mpiexec: %s (Open MPI's openmpi-bin)\n",
                strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[512];
    int rows = 0, errors = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (parse_row(line, out))
            rows++;
        else if (strncmp(line, "error ", 6) == 0 && ++errors)
            bench_note(suite, "%s", line + 6);
    }
    if (f)
        fclose(f);
    else
        close(fds[0]);
    int status = bench_wait(pid);
    if (status != 0 || rows == 0) {
        bench_note(suite, "mpiexec exited with status %d after %d rows", status, rows);
        return 1;
    }
    return errors ? 1 : 0;
}
