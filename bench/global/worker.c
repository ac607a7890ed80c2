/* tessera-bench-global: the measurements of tessera-bench's global suite,
 * one process per rank under mpiexec (bench/global.c starts it; it is no
 * command of its own). Everything runs on the cpu device, one thread per
 * rank (TESSERA_NUM_THREADS=1), so that 4 ranks on a small machine do not
 * fight over its CPUs more than MPI's own baselines do.
 *
 * Each row times an operation on global tensors against the bare MPI
 * collective (or local operation) that does the same work, in pairs: a
 * barrier, one call, the slowest rank's time (an all-reduce of the
 * times), then the same for the other, the operation first in every other
 * pair and the baseline first in the rest. With 4 ranks on fewer cores
 * (oversubscribed: Open MPI then yields the CPU while it waits) one
 * sample is at the scheduler's mercy, so a row takes at
 * least 11 pairs and more, up to 41, while they have taken under 30 s (3
 * to 5 with --quick). The rate is bytes of the logical tensor per second,
 * and the row's ratio the median of the pairs' ratios:
 *   boxing_p_to_b    P -> B of a [N] float32 tensor; mpi_allreduce: an
 *                    MPI_Allreduce (sum) of N floats.
 *   boxing_s0_to_b   S(0) -> B of [N]; mpi_allgather: MPI_Allgather of the
 *                    shards (N / ranks floats each).
 *   boxing_s0_to_s1  S(0) -> S(1) of [R, R] (R * R = N); mpi_alltoall: each
 *                    rank packs the blocks it sends (the local transposes)
 *                    and one MPI_Alltoall moves them.
 *   global_add       S(0) + S(0) -> S(0) of [N] (tsr_global_elementwise);
 *                    local_add: tsr_add on two local tensors of the
 *                    shard's size, a new result each time as the global
 *                    add makes one (per-rank time, the slowest rank's).
 * N is 2^24 floats (64 MiB), 2^18 with --quick. Rank 0 prints one line per
 * row:
 *   row NAME VALUE BASELINE BASELINE_VALUE PAIRED_RATIO TARGET
 * and a line "error TEXT" for a measurement that failed. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench/bench.h"
#include "tessera/global.h"
#include "tessera/tessera.h"

static int rank, world;

/* The slowest rank's seconds since t0 (collective). */
static double slowest(double t0)
{
    double mine = MPI_Wtime() - t0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

typedef struct measure {
    bool (*op)(void *arg);
    bool (*base)(void *arg);
    void *arg;
} measure;

/* How many pairs a row samples: at least min_pairs, then more until the
 * pairs' measured seconds pass budget_s or max_pairs are in. */
typedef struct sampling {
    int min_pairs, max_pairs;
    double budget_s;
} sampling;

/* One timed call from a barrier: the slowest rank's seconds (the same on
 * every rank); *good: whether every rank's call succeeded. */
static double timed(bool (*fn)(void *), void *arg, int *good)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int mine = fn(arg), all = 0;
    double t = slowest(t0);
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    *good = all;
    return t;
}

/* Pairs of (operation, baseline), each call timed from a barrier, the two
 * in alternating order (operation first in even pairs, baseline first in
 * odd ones) so that whatever the first call of a pair pays (a neighbour's
 * burst, caches the other call left) falls on both sides alike. Every
 * rank sees the same times, so every rank stops after the same pair.
 * Prints the row on rank 0. bytes: of the logical tensor. */
static void run_row(const char *name, const char *baseline, const measure *m, double bytes,
                    const sampling *plan, double target)
{
    bench_pairs pairs = {0};
    bool ok = true;
    double spent = 0;
    for (int s = -1; ok && s < plan->max_pairs; s++) { /* s = -1: a warm-up pair */
        if (s >= plan->min_pairs && spent > plan->budget_s)
            break;
        int good_op = 1, good_base = 1;
        double t_op, t_base;
        if (s % 2 == 0) {
            t_op = timed(m->op, m->arg, &good_op);
            t_base = timed(m->base, m->arg, &good_base);
        } else {
            t_base = timed(m->base, m->arg, &good_base);
            t_op = timed(m->op, m->arg, &good_op);
        }
        ok = good_op && good_base;
        if (s >= 0 && ok) {
            bench_pairs_add(&pairs, bytes / t_op / 1e9, bytes / t_base / 1e9);
            spent += t_op + t_base;
        }
    }
    bench_paired r = bench_pairs_finish(&pairs, ok);
    if (rank == 0 && !ok)
        printf("error %s: %s\n", name, tsr_last_error());
    if (rank == 0 && ok)
        printf("row %s %.6g %s %.6g %.6g %.3g\n", name, r.value, baseline, r.reference, r.paired,
               target);
    fflush(stdout);
}

typedef struct flat_case {
    tsr_global_env *env;
    tsr_placement *placement;
    tsr_global_tensor *in, *in2;
    tsr_sbp to;
    int64_t n, shard;
    float *send, *recv;
    tsr_tensor *a, *b; /* global_add's local baseline */
} flat_case;

static bool box_once(void *arg)
{
    flat_case *c = arg;
    tsr_global_tensor *r = NULL;
    bool ok = tsr_global_tensor_to_global(c->in, c->placement, &c->to, &r) == TSR_OK;
    tsr_global_tensor_release(r);
    return ok;
}

static bool allreduce_once(void *arg)
{
    flat_case *c = arg;
    return MPI_Allreduce(c->send, c->recv, (int)c->n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) ==
           MPI_SUCCESS;
}

static bool allgather_once(void *arg)
{
    flat_case *c = arg;
    return MPI_Allgather(c->send, (int)c->shard, MPI_FLOAT, c->recv, (int)c->shard, MPI_FLOAT,
                         MPI_COMM_WORLD) == MPI_SUCCESS;
}

static bool add_once(void *arg)
{
    flat_case *c = arg;
    const tsr_global_tensor *in[2] = {c->in, c->in2};
    tsr_op add;
    tsr_global_tensor *r = NULL;
    bool ok =
        tsr_op_from_name("add", &add) == TSR_OK && tsr_global_elementwise(add, in, 2, &r) == TSR_OK;
    tsr_global_tensor_release(r);
    return ok;
}

static bool local_add_once(void *arg)
{
    flat_case *c = arg;
    tsr_tensor *r = NULL;
    bool ok = tsr_add(c->a, c->b, tsr_scalar_int(1), &r) == TSR_OK;
    tsr_tensor_release(r);
    return ok;
}

/* A global tensor of `ndim` sizes with signature sbp, every element of
 * this rank's shard 1 (its shape from tsr_global_shard_geometry). */
static tsr_global_tensor *make(flat_case *c, int ndim, const int64_t *sizes, tsr_sbp sbp)
{
    int64_t sz[TSR_MAX_DIMS], off[TSR_MAX_DIMS];
    tsr_tensor *local = NULL;
    tsr_global_tensor *g = NULL;
    int64_t index = tsr_placement_index_of(c->placement, rank);
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32};
    if (tsr_global_shard_geometry(ndim, sizes, c->placement, &sbp, index, sz, off) ||
        tsr_tensor_full(NULL, ndim, sz, tsr_scalar_float(1), &f32, &local) ||
        tsr_global_tensor_from_local(c->env, local, c->placement, &sbp, &g))
        g = NULL;
    tsr_tensor_release(local);
    return g;
}

/* n floats of 1 for the bare baselines, in memory like a cpu tensor's
 * (libtessera's allocator): large blocks aligned to 2 MiB and advised
 * onto huge pages, which MPI's single-copy transport pins and reads
 * faster than small pages. free() releases it. */
static float *filled(int64_t n)
{
    size_t bytes = (size_t)n * sizeof(float), huge = (size_t)2 << 20;
    size_t align = bytes >= 2 * huge ? huge : 64;
    float *p = aligned_alloc(align, (bytes + align - 1) / align * align);
    if (p && align == huge)
        (void)madvise(p, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
    for (int64_t k = 0; p && k < n; k++)
        p[k] = 1.0f;
    return p;
}

typedef struct square_case {
    flat_case *c;
    int64_t side, rows; /* side x side; rows per rank */
    float *shard, *packed, *recv;
} square_case;

static bool square_box_once(void *arg)
{
    return box_once(((square_case *)arg)->c);
}

/* S(0) -> S(1) by hand: the block for rank q is this rank's rows and q's
 * columns, packed, then one all-to-all. */
static bool alltoall_once(void *arg)
{
    square_case *s = arg;
    int64_t cols = s->side / world;
    for (int q = 0; q < world; q++)
        for (int64_t r = 0; r < s->rows; r++)
            memcpy(s->packed + ((int64_t)q * s->rows + r) * cols,
                   s->shard + r * s->side + (int64_t)q * cols, (size_t)cols * sizeof(float));
    return MPI_Alltoall(s->packed, (int)(s->rows * cols), MPI_FLOAT, s->recv, (int)(s->rows * cols),
                        MPI_FLOAT, MPI_COMM_WORLD) == MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    setenv("TESSERA_NUM_THREADS", "1", 1);
    tsr_global_env *env = NULL;
    if (tsr_global_env_open(NULL, &env) != TSR_OK) {
        fprintf(stderr, "tessera-bench-global: %s\n", tsr_last_error());
        return 1;
    }
    rank = tsr_global_env_rank(env);
    world = tsr_global_env_world_size(env);
    sampling plan = quick ? (sampling){3, 5, 2.0} : (sampling){11, 41, 30.0};
    int64_t n = quick ? INT64_C(1) << 18 : INT64_C(1) << 24, side = quick ? 512 : 4096;
    flat_case c = {.env = env, .n = n, .shard = n / world};
    tsr_status st = tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &c.placement);
    c.send = filled(n);
    c.recv = filled(n);
    int rc = 1;
    if (st || !c.send || !c.recv || n % world || side % world) {
        fprintf(stderr, "tessera-bench-global: cannot set up %d ranks: %s\n", world,
                st ? tsr_last_error() : "out of memory or sizes not divisible");
        goto done;
    }

    c.in = make(&c, 1, &n, tsr_sbp_partial_sum());
    c.to = tsr_sbp_broadcast();
    run_row("boxing_p_to_b", "mpi_allreduce", &(measure){box_once, allreduce_once, &c},
            (double)n * 4, &plan, 0.9);
    tsr_global_tensor_release(c.in);

    c.in = make(&c, 1, &n, tsr_sbp_split(0));
    run_row("boxing_s0_to_b", "mpi_allgather", &(measure){box_once, allgather_once, &c},
            (double)n * 4, &plan, 0.9);

    c.in2 = make(&c, 1, &n, tsr_sbp_split(0));
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32};
    tsr_tensor_full(NULL, 1, &c.shard, tsr_scalar_float(1), &f32, &c.a);
    tsr_tensor_full(NULL, 1, &c.shard, tsr_scalar_float(2), &f32, &c.b);
    run_row("global_add", "local_add", &(measure){add_once, local_add_once, &c}, (double)n * 12,
            &plan, 1 / 1.1);
    tsr_global_tensor_release(c.in);
    tsr_global_tensor_release(c.in2);
    c.in2 = NULL;

    int64_t sq[2] = {side, side};
    c.in = make(&c, 2, sq, tsr_sbp_split(0));
    c.to = tsr_sbp_split(1);
    square_case s = {.c = &c, .side = side, .rows = side / world};
    s.shard = filled(s.rows * side);
    s.packed = filled(s.rows * side);
    s.recv = filled(s.rows * side);
    if (s.shard && s.packed && s.recv)
        run_row("boxing_s0_to_s1", "mpi_alltoall", &(measure){square_box_once, alltoall_once, &s},
                (double)side * side * 4, &plan, 0.8);
    tsr_global_tensor_release(c.in);
    free(s.shard);
    free(s.packed);
    free(s.recv);
    rc = 0;
done:
    tsr_tensor_release(c.a);
    tsr_tensor_release(c.b);
    free(c.send);
    free(c.recv);
    tsr_placement_destroy(c.placement);
    tsr_global_env_close(env);
    return rc;
}
