/* The boxing tests' known answers, shared by the cpu and opencl runs:
 * a logical tensor of small integers, each rank's shard of it as one rank
 * computes it alone, and the check that a global tensor holds it. Static
 * functions in a header, so that their assertions count in the test that
 * includes it (test.h keeps its counters per program file). */
#ifndef TESSERA_TESTS_GLOBAL_SUPPORT_H
#define TESSERA_TESTS_GLOBAL_SUPPORT_H

#include <mpi.h>

#include "tessera/global.h"
#include "test.h"

static tsr_global_env *env;
static int rank, world;
/* Where shards are made: cpu by default, or an opencl device of client. */
static tsr_client *shard_client;
static tsr_device shard_device = {TSR_DEVICE_CPU, -1};

#define MAXN 256

/* Which logical tensor value_at gives: 0 the boxing tests' own, other
 * positive seeds the op tests' further operands, a negative seed one with
 * no zeros (divisors). */
static int value_seed;

/* Integer-valued, so every sum is exact in every dtype. */
static double value_at(int64_t flat)
{
    if (value_seed < 0)
        return (double)((flat * 5 - value_seed) % 11) + 1;
    return (double)((flat * 7 + value_seed * 5) % 23) - 5;
}

/* Partial position c's share when it is not the last: -1, 0 or 1, its
 * pattern depending on the seed too. */
static double share(int64_t flat, int64_t c)
{
    int64_t scale = value_seed > 0 ? value_seed : 1;
    return (double)(((flat + c) * scale + value_seed * value_seed) % 3) - 1;
}

/* The addend of partial position c of n: small integers that add up to v. */
static double addend(double v, int64_t flat, int64_t c, int64_t n)
{
    if (c < n - 1)
        return share(flat, c);
    double rest = v;
    for (int64_t q = 0; q < n - 1; q++)
        rest -= share(flat, q);
    return rest;
}

static void grid_coord(const tsr_placement *p, int64_t index, int64_t *coord)
{
    const int64_t *h = tsr_placement_hierarchy(p);
    for (int a = tsr_placement_ndim(p) - 1; a >= 0; a--) {
        coord[a] = index % h[a];
        index /= h[a];
    }
}

/* The shard of `index` as one rank computes it alone: the geometry's box of
 * the logical tensor; along a partial grid dimension, its addend. */
static tsr_tensor *expected_shard(tsr_dtype dtype, int ndim, const int64_t *shape,
                                  const tsr_placement *p, const tsr_sbp *sbp, int64_t index)
{
    int64_t sz[8], off[8], coord[2];
    if (tsr_global_shard_geometry(ndim, shape, p, sbp, index, sz, off))
        return NULL;
    grid_coord(p, index, coord);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sz[d];
    double buf[MAXN];
    for (int64_t e = 0; e < n; e++) {
        int64_t rest = e, flat = 0, scale = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            flat += (rest % sz[d] + off[d]) * scale;
            rest /= sz[d];
            scale *= shape[d];
        }
        double v = value_at(flat);
        for (int a = 0; a < tsr_placement_ndim(p); a++)
            if (sbp[a].kind == TSR_SBP_PARTIAL_SUM)
                v = addend(v, flat, coord[a], tsr_placement_hierarchy(p)[a]);
        buf[e] = dtype == TSR_BOOL ? (v != 0) : v;
    }
    tsr_tensor_options opt = {
        .has_dtype = true, .dtype = dtype, .has_device = true, .device = shard_device};
    tsr_tensor *t = NULL;
    tsr_tensor_from_data(shard_client, ndim, sz, TSR_FLOAT64, buf, &opt, &t);
    return t;
}

static bool same_bytes(tsr_tensor *a, tsr_tensor *b)
{
    if (!a || !b || tsr_tensor_nbytes(a) != tsr_tensor_nbytes(b) ||
        tsr_tensor_ndim(a) != tsr_tensor_ndim(b) ||
        memcmp(tsr_tensor_sizes(a), tsr_tensor_sizes(b), sizeof(int64_t) * tsr_tensor_ndim(a)))
        return false;
    char x[MAXN * 8], y[MAXN * 8];
    size_t n = (size_t)tsr_tensor_nbytes(a);
    return !tsr_tensor_copy_to_host(a, x, n) && !tsr_tensor_copy_to_host(b, y, n) &&
           !memcmp(x, y, n);
}

static tsr_placement *world_list;

/* The global tensor holds the logical tensor: its shards are the expected
 * ones (partial sums: boxed to broadcast first), ranks outside hold none. */
static bool holds_logical(const tsr_global_tensor *g, const char *what)
{
    const tsr_placement *p = tsr_global_tensor_placement(g);
    const tsr_sbp *sbp = tsr_global_tensor_sbp(g);
    bool partial = false;
    for (int a = 0; a < tsr_placement_ndim(p); a++)
        partial |= sbp[a].kind == TSR_SBP_PARTIAL_SUM;
    bool ok;
    if (partial) {
        tsr_global_tensor *b = NULL;
        tsr_sbp bc = tsr_sbp_broadcast();
        ok =
            tsr_global_tensor_to_global(g, world_list, &bc, &b) == TSR_OK && holds_logical(b, what);
        tsr_global_tensor_release(b);
        return ok;
    }
    int64_t index = tsr_placement_index_of(p, rank);
    tsr_tensor *mine = tsr_global_tensor_to_local(g);
    if (index < 0) {
        ok = tsr_tensor_numel(mine) == 0;
    } else {
        tsr_tensor *want = expected_shard(tsr_global_tensor_dtype(g), tsr_global_tensor_ndim(g),
                                          tsr_global_tensor_sizes(g), p, sbp, index);
        ok = same_bytes(mine, want);
        tsr_tensor_release(want);
    }
    tsr_tensor_release(mine);
    if (!ok)
        fprintf(stderr, "rank %d: %s: wrong shard\n", rank, what);
    return ok;
}

static tsr_global_tensor *make_global(tsr_dtype dtype, int ndim, const int64_t *shape,
                                      const tsr_placement *p, const tsr_sbp *sbp)
{
    int64_t index = tsr_placement_index_of(p, rank);
    tsr_tensor *local = index >= 0 ? expected_shard(dtype, ndim, shape, p, sbp, index) : NULL;
    tsr_global_tensor *g = NULL;
    tsr_status st = tsr_global_tensor_from_local(env, local, p, sbp, &g);
    tsr_tensor_release(local);
    if (st)
        fprintf(stderr, "rank %d: to_global failed: %s\n", rank, tsr_last_error());
    return g;
}

static void describe(char *buf, size_t n, const tsr_placement *p, const tsr_sbp *sbp)
{
    size_t len = tsr_placement_repr(p, buf, n);
    if (len < n)
        tsr_sbp_tuple_repr(sbp, tsr_placement_ndim(p), buf + len, n - len);
}

/* from -> to for one logical tensor, then the checks above. */
static void box_pair(tsr_dtype dtype, int ndim, const int64_t *shape, const tsr_placement *pa,
                     const tsr_sbp *sa, const tsr_placement *pb, const tsr_sbp *sb)
{
    char what[512], from[240], to[240];
    describe(from, sizeof(from), pa, sa);
    describe(to, sizeof(to), pb, sb);
    snprintf(what, sizeof(what), "%s [%lld...] ndim %d: %s -> %s", tsr_dtype_name(dtype),
             (long long)shape[0], ndim, from, to);
    tsr_global_tensor *src = make_global(dtype, ndim, shape, pa, sa), *dst = NULL;
    ASSERT_TRUE(src != NULL);
    if (!src)
        return;
    ASSERT_TRUE(holds_logical(src, what));
    tsr_status st = tsr_global_tensor_to_global(src, pb, sb, &dst);
    if (st)
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, tsr_last_error());
    ASSERT_EQ(st, TSR_OK);
    if (dst) {
        ASSERT_TRUE(holds_logical(dst, what));
        ASSERT_TRUE(tsr_placement_equal(tsr_global_tensor_placement(dst), pb));
        ASSERT_EQ(tsr_global_tensor_ndim(dst), ndim);
        ASSERT_EQ(memcmp(tsr_global_tensor_sizes(dst), shape, (size_t)ndim * 8), 0);
    }
    tsr_global_tensor_release(dst);
    tsr_global_tensor_release(src);
}

/* The end of a test program: every rank's counts, and a failure on any
 * rank fails all (mpirun reports the first non-zero exit). */
static int finish(void)
{
    tsr_placement_destroy(world_list);
    int failed = test__failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: %d passed, %d failed\n", rank, world, test__passed, test__failed);
    tsr_global_env_close(env);
    return any ? 1 : 0;
}

#endif /* TESSERA_TESTS_GLOBAL_SUPPORT_H */
