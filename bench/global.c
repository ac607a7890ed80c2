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
        /* Containers often lack cross-memory attach: shared memory copies. */
        setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
        /* 4 ranks on fewer cores: a rank that waits gives its CPU to the
         * one it waits for instead of spinning through its time slice
         * (what Open MPI does by itself only when it counts the node as
         * oversubscribed). */
        setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
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
