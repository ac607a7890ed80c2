/* Placements, SBP values and the shard geometry, with known answers; no
 * MPI run needed. */
#include "tessera/global.h"
#include "test.h"

static void check_repr(const tsr_placement *p, const char *want)
{
    char buf[256];
    size_t len = tsr_placement_repr(p, buf, sizeof(buf));
    ASSERT_STREQ(buf, want);
    ASSERT_EQ(len, strlen(want));
    /* snprintf rules: cut, NUL-terminated, full length returned. */
    char small[8];
    ASSERT_EQ(tsr_placement_repr(p, small, sizeof(small)), strlen(want));
    ASSERT_EQ(strlen(small), sizeof(small) - 1);
}

static void test_placements(void)
{
    tsr_placement *a = NULL, *b = NULL, *c = NULL, *g = NULL;
    ASSERT_EQ(tsr_placement_create_range(TSR_DEVICE_OPENCL, 4, &a), TSR_OK);
    check_repr(a, "oneflow.placement(type=\"opencl\", ranks=[0, 1, 2, 3])");
    ASSERT_EQ(tsr_placement_size(a), 4);
    ASSERT_EQ(tsr_placement_index_of(a, 2), 2);
    ASSERT_EQ(tsr_placement_index_of(a, 4), -1);

    int64_t h1 = 4, h2[2] = {2, 2};
    int32_t r[4] = {0, 1, 2, 3}, rev[4] = {3, 2, 1, 0};
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_OPENCL, 1, &h1, r, &b), TSR_OK);
    ASSERT_TRUE(tsr_placement_equal(a, b));
    tsr_placement_destroy(b);
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &h1, r, &b), TSR_OK);
    ASSERT_FALSE(tsr_placement_equal(a, b)); /* type differs */
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_OPENCL, 1, &h1, rev, &c), TSR_OK);
    ASSERT_FALSE(tsr_placement_equal(a, c)); /* order differs */
    check_repr(c, "oneflow.placement(type=\"opencl\", ranks=[3, 2, 1, 0])");
    ASSERT_EQ(tsr_placement_index_of(c, 3), 0);

    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 2, h2, r, &g), TSR_OK);
    check_repr(g, "oneflow.placement(type=\"cpu\", ranks=[[0, 1], [2, 3]])");
    ASSERT_FALSE(tsr_placement_equal(g, b)); /* same ranks, other grid */
    tsr_placement *g2 = NULL;
    ASSERT_EQ(tsr_placement_copy(g, &g2), TSR_OK);
    ASSERT_TRUE(tsr_placement_equal(g, g2));
    tsr_placement_destroy(g2);

    /* Refusals, with the offending value named. */
    tsr_placement *bad = NULL;
    int32_t dup[2] = {1, 1}, neg[2] = {0, -1};
    int64_t h = 2, h0 = 0, h3[3] = {1, 1, 2};
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &h, dup, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(tsr_last_error(), "placement: rank 1 appears more than once");
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &h, neg, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(tsr_last_error(), "placement: rank -1 is negative");
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 1, &h0, r, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 3, h3, r, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(tsr_last_error(), "placement: ranks must have 1 or 2 dimensions, got 3");
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_META, 1, &h, r, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(tsr_placement_create_range(TSR_DEVICE_CPU, 0, &bad), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_TRUE(bad == NULL);

    tsr_placement_destroy(a);
    tsr_placement_destroy(b);
    tsr_placement_destroy(c);
    tsr_placement_destroy(g);
    tsr_placement_destroy(NULL);
}

static void test_sbp(void)
{
    char buf[128];
    tsr_sbp_repr(tsr_sbp_split(0), buf, sizeof(buf));
    ASSERT_STREQ(buf, "oneflow.sbp.split(dim=0)");
    tsr_sbp_repr(tsr_sbp_broadcast(), buf, sizeof(buf));
    ASSERT_STREQ(buf, "oneflow.sbp.broadcast");
    tsr_sbp_repr(tsr_sbp_partial_sum(), buf, sizeof(buf));
    ASSERT_STREQ(buf, "oneflow.sbp.partial_sum");
    tsr_sbp one[1] = {tsr_sbp_split(1)};
    tsr_sbp_tuple_repr(one, 1, buf, sizeof(buf));
    ASSERT_STREQ(buf, "(oneflow.sbp.split(dim=1),)");
    tsr_sbp two[2] = {tsr_sbp_broadcast(), tsr_sbp_partial_sum()};
    ASSERT_EQ(tsr_sbp_tuple_repr(two, 2, buf, sizeof(buf)),
              strlen("(oneflow.sbp.broadcast, oneflow.sbp.partial_sum)"));
    ASSERT_STREQ(buf, "(oneflow.sbp.broadcast, oneflow.sbp.partial_sum)");
    ASSERT_TRUE(tsr_sbp_equal(tsr_sbp_split(1), tsr_sbp_split(1)));
    ASSERT_FALSE(tsr_sbp_equal(tsr_sbp_split(0), tsr_sbp_split(1)));
    ASSERT_FALSE(tsr_sbp_equal(tsr_sbp_broadcast(), tsr_sbp_partial_sum()));
}

/* Shard sizes along dim 0 of a [n] tensor split over k ranks, as a list. */
static void check_split(int64_t n, int k, const int64_t *want_sizes, const int64_t *want_offs)
{
    tsr_placement *p;
    ASSERT_EQ(tsr_placement_create_range(TSR_DEVICE_CPU, k, &p), TSR_OK);
    tsr_sbp s = tsr_sbp_split(0);
    for (int r = 0; r < k; r++) {
        int64_t sz = -1, off = -1;
        ASSERT_EQ(tsr_global_shard_geometry(1, &n, p, &s, r, &sz, &off), TSR_OK);
        ASSERT_EQ(sz, want_sizes[r]);
        ASSERT_EQ(off, want_offs[r]);
    }
    tsr_placement_destroy(p);
}

static void test_geometry_1d(void)
{
    check_split(5, 2, (int64_t[]){3, 2}, (int64_t[]){0, 3});
    check_split(10, 4, (int64_t[]){3, 3, 2, 2}, (int64_t[]){0, 3, 6, 8});
    check_split(2, 4, (int64_t[]){1, 1, 0, 0}, (int64_t[]){0, 1, 2, 2});
    check_split(8, 4, (int64_t[]){2, 2, 2, 2}, (int64_t[]){0, 2, 4, 6});
    check_split(0, 3, (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, 0});

    tsr_placement *p;
    ASSERT_EQ(tsr_placement_create_range(TSR_DEVICE_CPU, 3, &p), TSR_OK);
    int64_t shape[3] = {4, 7, 2}, sz[3], off[3];
    tsr_sbp s1 = tsr_sbp_split(1), b = tsr_sbp_broadcast(), ps = tsr_sbp_partial_sum();
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &s1, 2, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 4 && sz[1] == 2 && sz[2] == 2 && off[0] == 0 && off[1] == 5 &&
                off[2] == 0);
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &b, 1, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 4 && sz[1] == 7 && sz[2] == 2 && off[1] == 0);
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &ps, 0, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 4 && sz[1] == 7 && sz[2] == 2);

    tsr_sbp s3 = tsr_sbp_split(3), sneg = tsr_sbp_split(-1);
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &s3, 0, sz, off), TSR_ERR_INDEX);
    ASSERT_STREQ(tsr_last_error(), "sbp[0]: split dim 3 is out of range for a tensor of 3 "
                                   "dimensions (expected 0 to 2)");
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &sneg, 0, sz, off), TSR_ERR_INDEX);
    ASSERT_EQ(tsr_global_shard_geometry(3, shape, p, &s1, 3, sz, off), TSR_ERR_INDEX);
    ASSERT_EQ(tsr_global_shard_geometry(0, NULL, p, &b, 0, sz, off), TSR_OK); /* a scalar */
    ASSERT_EQ(tsr_global_shard_geometry(0, NULL, p, &s1, 0, sz, off), TSR_ERR_INDEX);
    tsr_placement_destroy(p);
}

static void test_geometry_2d(void)
{
    /* ranks=[[0, 1, 2], [3, 4, 5]]: grid rows split first, then columns. */
    tsr_placement *p;
    int64_t h[2] = {2, 3};
    int32_t r[6] = {0, 1, 2, 3, 4, 5};
    ASSERT_EQ(tsr_placement_create(TSR_DEVICE_CPU, 2, h, r, &p), TSR_OK);
    int64_t shape[2] = {5, 7}, sz[2], off[2];

    /* (S(0), S(1)): rows 3 + 2, columns 3 + 2 + 2. */
    tsr_sbp s01[2] = {tsr_sbp_split(0), tsr_sbp_split(1)};
    ASSERT_EQ(tsr_global_shard_geometry(2, shape, p, s01, 5, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 2 && sz[1] == 2 && off[0] == 3 && off[1] == 5);
    ASSERT_EQ(tsr_global_shard_geometry(2, shape, p, s01, 1, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 3 && sz[1] == 2 && off[0] == 0 && off[1] == 3);

    /* (S(1), S(1)): 7 -> 4 + 3, then each over 3: 4 -> 2,1,1 and 3 -> 1,1,1. */
    tsr_sbp s11[2] = {tsr_sbp_split(1), tsr_sbp_split(1)};
    int64_t want_sz[6] = {2, 1, 1, 1, 1, 1}, want_off[6] = {0, 2, 3, 4, 5, 6};
    for (int k = 0; k < 6; k++) {
        ASSERT_EQ(tsr_global_shard_geometry(2, shape, p, s11, k, sz, off), TSR_OK);
        ASSERT_EQ(sz[1], want_sz[k]);
        ASSERT_EQ(off[1], want_off[k]);
        ASSERT_EQ(sz[0], 5);
    }

    /* (B, S(0)): every grid row holds the same column split of dim 0. */
    tsr_sbp bs[2] = {tsr_sbp_broadcast(), tsr_sbp_split(0)};
    ASSERT_EQ(tsr_global_shard_geometry(2, shape, p, bs, 4, sz, off), TSR_OK);
    ASSERT_TRUE(sz[0] == 2 && off[0] == 2 && sz[1] == 7);
    tsr_placement_destroy(p);
}

/* OneFlow's oneflow.placement(type="opencl", ranks=[...]) takes the type
 * by name: the name gives the type, and the repr gives the name back. */
static void test_oneflow_names(void)
{
    const char *names[2] = {"cpu", "opencl"};
    for (int k = 0; k < 2; k++) {
        tsr_device_type type;
        ASSERT_EQ(tsr_device_type_from_name(names[k], &type), TSR_OK);
        int64_t h[2] = {2, 2};
        int32_t r[4] = {0, 1, 2, 3};
        tsr_placement *p = NULL;
        ASSERT_EQ(tsr_placement_create(type, 2, h, r, &p), TSR_OK);
        char want[96];
        snprintf(want, sizeof(want), "oneflow.placement(type=\"%s\", ranks=[[0, 1], [2, 3]])",
                 names[k]);
        check_repr(p, want);
        ASSERT_STREQ(tsr_device_type_name(tsr_placement_type(p)), names[k]);
        tsr_placement_destroy(p);
    }
    tsr_device_type none;
    ASSERT_EQ(tsr_device_type_from_name("nodevice", &none), TSR_ERR_RUNTIME);
}

int main(void)
{
    test_placements();
    test_oneflow_names();
    test_sbp();
    test_geometry_1d();
    test_geometry_2d();
    TEST_DONE();
}
