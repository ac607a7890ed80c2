/* What the tests of operations on global tensors share: operands made
 * from the known logical tensors of support_global.h, the whole logical
 * tensor on one rank, and the check of a result against one rank's
 * computation. Static functions in a header, as support_global.h. */
#ifndef TESSERA_TESTS_GLOBAL_SUPPORT_OPS_H
#define TESSERA_TESTS_GLOBAL_SUPPORT_OPS_H

#include <math.h>

#include "support_global.h"

static const char *kind_text(tsr_sbp s)
{
    static char buf[4][32];
    static int next;
    char *b = buf[next++ % 4];
    tsr_sbp_repr(s, b, 32);
    return b;
}

/* An operand: the logical tensor of `seed` cut (with addends) for sbp. */
static tsr_global_tensor *operand(tsr_dtype dtype, int ndim, const int64_t *shape,
                                  const tsr_placement *p, const tsr_sbp *sbp, int seed)
{
    value_seed = seed;
    tsr_global_tensor *g = make_global(dtype, ndim, shape, p, sbp);
    value_seed = 0;
    return g;
}

/* The whole logical tensor of `seed`, on this rank alone. */
static tsr_tensor *whole(tsr_dtype dtype, int ndim, const int64_t *shape, int seed)
{
    value_seed = seed;
    tsr_sbp b = tsr_sbp_broadcast();
    tsr_tensor *t = expected_shard(dtype, ndim, shape, world_list, &b, 0);
    value_seed = 0;
    return t;
}

static tsr_tensor *as_f64(tsr_tensor *t)
{
    tsr_tensor_options f64 = {.has_dtype = true, .dtype = TSR_FLOAT64};
    tsr_tensor *out = NULL;
    if (tsr_tensor_empty(NULL, tsr_tensor_ndim(t), tsr_tensor_sizes(t), &f64, &out) ||
        tsr_tensor_copy_(out, t)) {
        tsr_tensor_release(out);
        return NULL;
    }
    return out;
}

/* The global result, boxed to B and taken whole, equals want: dtype, shape
 * and values (to a float32 rounding: partial quotients are summed after
 * dividing). */
static bool matches(const tsr_global_tensor *g, tsr_tensor *want, const char *what)
{
    tsr_sbp b = tsr_sbp_broadcast();
    tsr_global_tensor *gb = NULL;
    bool ok = false;
    if (tsr_global_tensor_to_global(g, world_list, &b, &gb) == TSR_OK) {
        tsr_tensor *got = tsr_global_tensor_to_local(gb);
        ok = tsr_tensor_dtype(got) == tsr_tensor_dtype(want) &&
             tsr_tensor_ndim(got) == tsr_tensor_ndim(want) &&
             !memcmp(tsr_tensor_sizes(got), tsr_tensor_sizes(want),
                     sizeof(int64_t) * (size_t)tsr_tensor_ndim(want));
        tsr_tensor *x = ok ? as_f64(got) : NULL, *y = ok ? as_f64(want) : NULL;
        double a[MAXN], c[MAXN];
        size_t n = x ? (size_t)tsr_tensor_nbytes(x) : 0;
        ok = x && y && !tsr_tensor_copy_to_host(x, a, n) && !tsr_tensor_copy_to_host(y, c, n);
        for (size_t e = 0; ok && e < n / 8; e++) {
            double diff = a[e] > c[e] ? a[e] - c[e] : c[e] - a[e], mag = c[e] < 0 ? -c[e] : c[e];
            ok = (isnan(a[e]) && isnan(c[e])) || diff <= 1e-6 * (1 + mag);
        }
        tsr_tensor_release(x);
        tsr_tensor_release(y);
        tsr_tensor_release(got);
    }
    tsr_global_tensor_release(gb);
    if (!ok)
        fprintf(stderr, "rank %d: %s: wrong result\n", rank, what);
    return ok;
}

/* One operand of a reference computation: the logical tensor of seed. */
typedef struct spec {
    tsr_dtype dtype;
    int ndim;
    const int64_t *shape;
    int seed;
} spec;

/* S(0), S(1), B and P: the 1-D signatures of a 2-D operand. */
static const tsr_sbp *four_sbps(void)
{
    static tsr_sbp list[4];
    list[0] = tsr_sbp_split(0);
    list[1] = tsr_sbp_split(1);
    list[2] = tsr_sbp_broadcast();
    list[3] = tsr_sbp_partial_sum();
    return list;
}

/* The world as a 1 x n grid: the same ranks as world_list, another
 * placement. */
static tsr_placement *world_as_grid(void)
{
    int64_t hg[2] = {1, world};
    int32_t rg[64];
    for (int k = 0; k < world; k++)
        rg[k] = k;
    tsr_placement *grid = NULL;
    return tsr_placement_create(TSR_DEVICE_CPU, 2, hg, rg, &grid) == TSR_OK ? grid : NULL;
}

/* The start of an op test: the environment, rank and world, and the
 * world's cpu placement; false (with a message) when MPI fails. */
static bool open_world(void)
{
    (void)box_pair; /* support_global.h's, for the boxing tests */
    if (tsr_global_env_open(NULL, &env) != TSR_OK ||
        tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &world_list) != TSR_OK) {
        fprintf(stderr, "global env: %s\n", tsr_last_error());
        return false;
    }
    rank = tsr_global_env_rank(env);
    world = tsr_global_env_world_size(env);
    return true;
}

#endif /* TESSERA_TESTS_GLOBAL_SUPPORT_OPS_H */
