/* Boxing between every pair of SBP signatures, run under mpirun with 1, 2
 * and 4 ranks on cpu tensors: each rank builds its shard of a known logical
 * tensor, converts, and compares what it holds with the same computation
 * done on one rank (the logical tensor cut by the target's geometry). A
 * partial-sum result is checked by its sum (boxed back to broadcast) and,
 * where OneFlow fixes it, by each rank's addend. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "support_global.h"

/* OneFlow's addends where it fixes them: B -> P keeps the value at the
 * placement's first rank, S(i) -> P puts the slice in zeros. */
static void check_to_partial_layout(tsr_dtype dtype, int ndim, const int64_t *shape,
                                    const tsr_sbp *from)
{
    tsr_sbp ps = tsr_sbp_partial_sum();
    tsr_global_tensor *src = make_global(dtype, ndim, shape, world_list, from), *dst = NULL;
    ASSERT_EQ(tsr_global_tensor_to_global(src, world_list, &ps, &dst), TSR_OK);
    tsr_tensor *mine = dst ? tsr_global_tensor_to_local(dst) : NULL;
    double got[MAXN];
    tsr_tensor_options f64 = {.has_dtype = true, .dtype = TSR_FLOAT64};
    tsr_tensor *as64 = NULL;
    /* Compare as float64 values: copy through a float64 tensor. */
    if (mine && tsr_tensor_empty(NULL, ndim, shape, &f64, &as64) == TSR_OK &&
        tsr_tensor_copy_(as64, mine) == TSR_OK &&
        tsr_tensor_copy_to_host(as64, got, (size_t)tsr_tensor_nbytes(as64)) == TSR_OK) {
        int64_t sz[8], off[8], n = tsr_tensor_numel(mine);
        tsr_global_shard_geometry(ndim, shape, world_list, from, rank, sz, off);
        int wrong = 0;
        for (int64_t e = 0; e < n; e++) {
            int64_t rest = e, inside = 1;
            for (int d = ndim - 1; d >= 0; d--) {
                int64_t i = rest % shape[d];
                rest /= shape[d];
                inside &= i >= off[d] && i < off[d] + sz[d];
            }
            bool keeps = from->kind == TSR_SBP_BROADCAST ? rank == 0 : inside;
            wrong += got[e] != (keeps ? value_at(e) : 0);
        }
        ASSERT_EQ(wrong, 0);
    } else {
        ASSERT_TRUE(false);
    }
    tsr_tensor_release(as64);
    tsr_tensor_release(mine);
    tsr_global_tensor_release(dst);
    tsr_global_tensor_release(src);
}

static int sbp_list(int ndim, tsr_sbp *out)
{
    int n = 0;
    for (int d = 0; d < ndim; d++)
        out[n++] = tsr_sbp_split(d);
    out[n++] = tsr_sbp_broadcast();
    out[n++] = tsr_sbp_partial_sum();
    return n;
}

static const int64_t shapes[][3] = {{8, 4, 0}, {5, 3, 0}, {3, 5, 2}, {2, 1, 0}};
static const int shape_ndims[] = {2, 2, 3, 2};

/* Every pair on one 1-D rank list (the dedicated collectives). */
static void test_one_list(void)
{
    const tsr_dtype dtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_INT32, TSR_INT64};
    for (size_t t = 0; t < sizeof(dtypes) / sizeof(dtypes[0]); t++)
        for (size_t s = 0; s < sizeof(shape_ndims) / sizeof(shape_ndims[0]); s++) {
            tsr_sbp list[8];
            int n = sbp_list(shape_ndims[s], list);
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++)
                    box_pair(dtypes[t], shape_ndims[s], shapes[s], world_list, &list[a], world_list,
                             &list[b]);
            check_to_partial_layout(dtypes[t], shape_ndims[s], shapes[s], &list[n - 2]);
            for (int a = 0; a < n - 2; a++)
                check_to_partial_layout(dtypes[t], shape_ndims[s], shapes[s], &list[a]);
        }
    /* A dtype with no sum: every pair that moves bytes only. */
    tsr_sbp list[8];
    int n = sbp_list(3, list) - 1;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            box_pair(TSR_BOOL, 3, shapes[2], world_list, &list[a], world_list, &list[b]);
}

/* Other rank lists and 2-D grids: through the logical tensor. */
static void test_other_placements(void)
{
    int32_t rev[64], last = world - 1;
    for (int r = 0; r < world; r++)
        rev[r] = world - 1 - r;
    int64_t h = world, one = 1;
    tsr_placement *reversed = NULL, *single = NULL, *grid = NULL, *grid_rev = NULL;
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &h, rev, &reversed), TSR_OK);
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &one, &last, &single), TSR_OK);
    const tsr_placement *others[3] = {reversed, single, NULL};
    if (world == 4) {
        int64_t hg[2] = {2, 2};
        int32_t rg[4] = {0, 1, 2, 3};
        ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 2, hg, rg, &grid), TSR_OK);
        ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 2, hg, rev, &grid_rev), TSR_OK);
    }
    tsr_sbp list[8];
    int n = sbp_list(2, list);
    for (int o = 0; o < 2; o++)
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                box_pair(TSR_FLOAT32, 2, shapes[1], world_list, &list[a], others[o], &list[b]);
                box_pair(TSR_INT64, 2, shapes[1], others[o], &list[a], world_list, &list[b]);
            }
    /* A 0-dim tensor: only B and P apply. */
    static const int64_t scalar[1] = {0};
    tsr_sbp bp[2] = {tsr_sbp_broadcast(), tsr_sbp_partial_sum()};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            box_pair(TSR_FLOAT64, 0, scalar, world_list, &bp[a], world_list, &bp[b]);
            box_pair(TSR_INT32, 0, scalar, world_list, &bp[a], reversed, &bp[b]);
        }
    if (grid) {
        /* Every 2-D signature of a [5, 3] tensor, to and from 1-D. */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                tsr_sbp two[2] = {list[a], list[b]};
                box_pair(TSR_FLOAT64, 2, shapes[1], world_list, &list[0], grid, two);
                box_pair(TSR_INT32, 2, shapes[1], grid, two, world_list, &list[1]);
                tsr_sbp back[2] = {list[b], list[a]};
                box_pair(TSR_INT32, 2, shapes[1], grid, two, grid, back);
                /* The same signature on the grid's ranks reversed. */
                box_pair(TSR_INT32, 2, shapes[1], grid, two, grid_rev, two);
            }
    }
    tsr_placement_destroy(reversed);
    tsr_placement_destroy(single);
    tsr_placement_destroy(grid);
    tsr_placement_destroy(grid_rev);
}

static void test_errors(void)
{
    /* Shards that do not fit: every rank fails, naming the first. */
    tsr_sbp b = tsr_sbp_broadcast(), s0 = tsr_sbp_split(0), ps = tsr_sbp_partial_sum();
    int64_t sizes[2] = {rank == 1 ? 3 : 2, 2};
    tsr_tensor *t = NULL;
    ASSERT_EQ(tsr_tensor_zeros(NULL, 2, sizes, NULL, &t), TSR_OK);
    tsr_global_tensor *g = NULL;
    tsr_status st = tsr_global_tensor_from_local(env, t, world_list, &b, &g);
    if (world > 1) {
        ASSERT_EQ(st, TSR_ERR_RUNTIME);
        ASSERT_STREQ(tsr_last_error(), "to_global: rank 1's shard has shape [3, 2] but its part "
                                       "of the logical shape [2, 2] is [2, 2]");
    } else {
        ASSERT_EQ(st, TSR_OK);
    }
    tsr_global_tensor_release(g);
    g = NULL;
    /* Uneven splits must be OneFlow's: [1, 2] then [2, 2] is not [3, 2] cut. */
    sizes[0] = rank == 0 ? 1 : 2;
    tsr_tensor_release(t);
    ASSERT_EQ(tsr_tensor_zeros(NULL, 2, sizes, NULL, &t), TSR_OK);
    st = tsr_global_tensor_from_local(env, t, world_list, &s0, &g);
    ASSERT_EQ(st, world > 1 ? TSR_ERR_RUNTIME : TSR_OK);
    tsr_global_tensor_release(g);
    g = NULL;
    tsr_tensor_release(t);

    /* A partial sum of bools cannot be reduced; said before any message. */
    int64_t four = 4;
    tsr_tensor_options bo = {.has_dtype = true, .dtype = TSR_BOOL};
    ASSERT_EQ(tsr_tensor_ones(NULL, 1, &four, &bo, &t), TSR_OK);
    ASSERT_EQ(tsr_global_tensor_from_local(env, t, world_list, &ps, &g), TSR_OK);
    tsr_global_tensor *r = NULL;
    ASSERT_EQ(tsr_global_tensor_to_global(g, world_list, &b, &r), TSR_ERR_NOT_SUPPORTED);
    ASSERT_STREQ(tsr_last_error(), "partial_sum cannot be reduced for dtype bool (supported: "
                                   "float32, float64, int8, uint8, int16, int32, int64)");
    /* A rank the world does not have. */
    int32_t far = world;
    int64_t one = 1;
    tsr_placement *p = NULL;
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &one, &far, &p), TSR_OK);
    ASSERT_EQ(tsr_global_tensor_to_global(g, p, &b, &r), TSR_ERR_INVALID_ARGUMENT);
    tsr_placement_destroy(p);
    tsr_global_tensor_release(g);
    tsr_tensor_release(t);
}

/* Shards of at least 1 MiB come from the environment's pool: a P -> B
 * and then S(0) -> B three times each, every result checked and released
 * before the next, so the later ones reuse the earlier ones' blocks (and
 * the staging buffers' when the split is uneven). Element k of the
 * logical tensor is k % 1000, each rank's addend its share of it. */
static void test_pooled(void)
{
    const int64_t n = (INT64_C(1) << 19) + 3; /* 2 MiB and uneven over 2 and 4 */
    const tsr_sbp sbps[2] = {tsr_sbp_partial_sum(), tsr_sbp_split(0)};
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32};
    for (int s = 0; s < 2; s++) {
        int64_t sz[1], off[1];
        ASSERT_OK(tsr_global_shard_geometry(1, &n, world_list, &sbps[s], rank, sz, off));
        float *mine = malloc((size_t)sz[0] * sizeof(float));
        for (int64_t k = 0; mine && k < sz[0]; k++) {
            float v = (float)((k + off[0]) % 1000);
            mine[k] = s == 0 ? (rank == 0 ? v - (float)(world - 1) : 1.0f) : v;
        }
        tsr_tensor *local = NULL;
        ASSERT_OK(tsr_tensor_from_data(NULL, 1, sz, TSR_FLOAT32, mine, &f32, &local));
        free(mine);
        tsr_global_tensor *g = NULL;
        ASSERT_OK(tsr_global_tensor_from_local(env, local, world_list, &sbps[s], &g));
        tsr_tensor_release(local);
        for (int round = 0; g && round < 3; round++) {
            tsr_sbp b = tsr_sbp_broadcast();
            tsr_global_tensor *r = NULL;
            ASSERT_OK(tsr_global_tensor_to_global(g, world_list, &b, &r));
            tsr_tensor *whole = r ? tsr_global_tensor_to_local(r) : NULL;
            float *got = malloc((size_t)n * sizeof(float));
            ASSERT_TRUE(whole && got &&
                        tsr_tensor_copy_to_host(whole, got, (size_t)n * sizeof(float)) == TSR_OK);
            int64_t wrong = 0;
            for (int64_t k = 0; got && k < n; k++)
                wrong += got[k] != (float)(k % 1000);
            ASSERT_EQ(wrong, 0);
            free(got);
            tsr_tensor_release(whole);
            tsr_global_tensor_release(r);
        }
        tsr_global_tensor_release(g);
    }
}

#if !defined(__SANITIZE_ADDRESS__)
/* The address space this process maps, in bytes. */
static uint64_t mapped_bytes(void)
{
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%llu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}
#endif

#if !defined(__SANITIZE_ADDRESS__) /* a sanitizer's shadow is terabytes of address space */
/* Holds rank 1's address space to what it maps plus 8 MiB (short) or
 * gives it back. */
static void rank1_short(bool short_of, struct rlimit *was)
{
    if (rank != 1)
        return;
    if (!short_of) {
        ASSERT_EQ(setrlimit(RLIMIT_AS, was), 0);
        return;
    }
    ASSERT_EQ(getrlimit(RLIMIT_AS, was), 0);
    struct rlimit tight = {(rlim_t)(mapped_bytes() + (8u << 20)), was->rlim_max};
    ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
}

/* Rank 1 failed (st, r) and every other rank failed with `others`. */
static void failed_alike(tsr_status st, const tsr_global_tensor *r, const char *why,
                         const char *others)
{
    ASSERT_TRUE(st != TSR_OK && r == NULL);
    if (rank != 1)
        ASSERT_STREQ(why, others);
}
#endif

/* One rank that cannot make its new shard (its address space held to
 * what it maps, plus 8 MiB, against a 32 MiB shard) fails with its own
 * error, and every other fails too rather than waiting in the S(0) ->
 * S(1) all-to-all for it for ever; then the world boxes again. The same
 * for an operation whose own part fails on rank 1 only (its result's
 * shard; no input moves): the others would go on to their next
 * collective without it. */
static void test_one_rank_short(void)
{
#if !defined(__SANITIZE_ADDRESS__)
    if (world < 2)
        return;
    const int64_t n[2] = {INT64_C(1) << 18, 64}; /* 64 MiB of float32 */
    tsr_sbp s0 = tsr_sbp_split(0), s1 = tsr_sbp_split(1);
    int64_t sz[2], off[2];
    ASSERT_OK(tsr_global_shard_geometry(2, n, world_list, &s0, rank, sz, off));
    tsr_tensor_options f32 = {.has_dtype = true, .dtype = TSR_FLOAT32};
    tsr_tensor *local = NULL;
    ASSERT_OK(tsr_tensor_ones(NULL, 2, sz, &f32, &local));
    tsr_global_tensor *g = NULL, *r = NULL;
    ASSERT_OK(tsr_global_tensor_from_local(env, local, world_list, &s0, &g));
    tsr_tensor_release(local);
    struct rlimit was;
    char why[512];
    rank1_short(true, &was);
    tsr_status st = tsr_global_tensor_to_global(g, world_list, &s1, &r);
    snprintf(why, sizeof why, "%s", tsr_last_error());
    rank1_short(false, &was);
    failed_alike(st, r, why, "to_global: another rank failed (its error says why)");
    ASSERT_OK(tsr_global_tensor_to_global(g, world_list, &s1, &r));
    tsr_global_tensor_release(r);
    r = NULL;

    tsr_op add;
    ASSERT_OK(tsr_op_from_name("add", &add));
    const tsr_global_tensor *in[2] = {g, g};
    rank1_short(true, &was);
    st = tsr_global_elementwise(add, in, 2, &r);
    snprintf(why, sizeof why, "%s", tsr_last_error());
    rank1_short(false, &was);
    failed_alike(st, r, why, "global add: another rank failed (its error says why)");
    ASSERT_OK(tsr_global_elementwise(add, in, 2, &r));
    tsr_global_tensor_release(r);
    tsr_global_tensor_release(g);
#endif
}

int main(void)
{
    /* Without Open MPI's variable the local rank comes from a
     * shared-memory split of the world: the same number on one machine. */
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int want_local = lr ? atoi(lr) : -1;
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (tsr_global_env_open(NULL, &env) != TSR_OK) {
        fprintf(stderr, "global env: %s\n", tsr_last_error());
        return 1;
    }
    rank = tsr_global_env_rank(env);
    world = tsr_global_env_world_size(env);
    if (want_local >= 0)
        ASSERT_EQ(tsr_global_env_local_rank(env), want_local);
    if (tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &world_list) != TSR_OK)
        return 1;
    test_one_list();
    test_other_placements();
    test_errors();
    test_pooled();
    test_one_rank_short();
    return finish();
}
