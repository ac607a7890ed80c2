/* Unit tests of memory formats: fresh strides, is_contiguous per format,
 * non-overlapping-and-dense, preserve_format strides and
 * suggest_memory_format, with the examples PyTorch 1.13 was seen to give. */
#include "test.h"

#define A(...) ((const int64_t[]){__VA_ARGS__})

static void expect_strides(int n, const int64_t *sizes, tsr_memory_format f, const int64_t *want)
{
    int64_t got[TSR_MAX_DIMS];
    ASSERT_OK(tsr_strides_for(n, sizes, f, got));
    for (int i = 0; i < n; i++)
        ASSERT_EQ(got[i], want[i]);
}

static void fresh_strides(void)
{
    expect_strides(4, A(2, 3, 4, 5), TSR_CONTIGUOUS_FORMAT, A(60, 20, 5, 1));
    expect_strides(4, A(2, 0, 4, 5), TSR_CONTIGUOUS_FORMAT, A(20, 20, 5, 1));
    expect_strides(2, A(0, 3), TSR_CONTIGUOUS_FORMAT, A(3, 1));
    expect_strides(3, A(3, 0, 2), TSR_CONTIGUOUS_FORMAT, A(2, 2, 1));
    expect_strides(4, A(2, 3, 4, 5), TSR_CHANNELS_LAST, A(60, 1, 15, 3));
    expect_strides(4, A(2, 0, 4, 5), TSR_CHANNELS_LAST, A(0, 1, 0, 0));
    expect_strides(4, A(0, 3, 4, 5), TSR_CHANNELS_LAST, A(60, 1, 15, 3));
    expect_strides(4, A(2, 3, 0, 5), TSR_CHANNELS_LAST, A(0, 1, 15, 3));
    expect_strides(4, A(2, 3, 4, 0), TSR_CHANNELS_LAST, A(0, 1, 0, 3));
    expect_strides(4, A(2, 1, 4, 5), TSR_CHANNELS_LAST, A(20, 1, 5, 1));
    expect_strides(4, A(2, 3, 1, 1), TSR_CHANNELS_LAST, A(3, 1, 3, 3));
    expect_strides(4, A(2, 1, 3, 1), TSR_CHANNELS_LAST, A(3, 1, 1, 1));
    expect_strides(4, A(2, 1, 1, 1), TSR_CHANNELS_LAST, A(1, 1, 1, 1));
    expect_strides(5, A(2, 3, 4, 5, 6), TSR_CHANNELS_LAST_3D, A(360, 1, 90, 18, 3));
    expect_strides(5, A(2, 0, 4, 5, 6), TSR_CHANNELS_LAST_3D, A(0, 1, 0, 0, 0));
    int64_t s[5];
    ASSERT_OK(tsr_strides_for(0, NULL, TSR_CONTIGUOUS_FORMAT, s));
    ASSERT_FAIL(tsr_strides_for(3, A(3, 4, 5), TSR_CHANNELS_LAST, s), TSR_ERR_RUNTIME,
                "required rank 4 tensor to use channels_last format");
    ASSERT_FAIL(tsr_strides_for(4, A(3, 4, 5, 6), TSR_CHANNELS_LAST_3D, s), TSR_ERR_RUNTIME,
                "required rank 5 tensor to use channels_last_3d format");
    ASSERT_FAIL(tsr_strides_for(2, A(3, 4), TSR_PRESERVE_FORMAT, s), TSR_ERR_RUNTIME,
                "unsupported memory format Preserve");
    ASSERT_EQ(tsr_strides_for(2, A(3, -4), TSR_CONTIGUOUS_FORMAT, s), TSR_ERR_RUNTIME);
    ASSERT_EQ(tsr_strides_for(3, A(INT64_MAX / 2, 4, 5), TSR_CONTIGUOUS_FORMAT, s),
              TSR_ERR_OVERFLOW);
    ASSERT_EQ(tsr_strides_for(26, A(1), TSR_CONTIGUOUS_FORMAT, s), TSR_ERR_INVALID_ARGUMENT);
}

/* sizes, strides -> (contiguous, channels_last) */
static void contiguity(void)
{
    static const struct {
        int n;
        int64_t sizes[5], strides[5];
        bool contig, cl, cl3d;
    } rows[] = {
        {4, {2, 3, 4, 5}, {60, 20, 5, 1}, 1, 0, 0},
        {4, {2, 3, 4, 5}, {60, 1, 15, 3}, 0, 1, 0},
        {4, {1, 3, 4, 5}, {999, 1, 15, 3}, 0, 1, 0},
        {4, {2, 1, 4, 5}, {20, 7, 5, 1}, 1, 1, 0},
        {4, {2, 3, 1, 1}, {3, 1, 99, 99}, 1, 1, 0},
        {4, {2, 3, 4, 1}, {12, 1, 3, 999}, 0, 1, 0},
        {4, {2, 1, 4, 5}, {60, 20, 5, 1}, 0, 0, 0},
        {3, {2, 1, 3}, {3, 99, 1}, 1, 0, 0},
        {2, {3, 1}, {1, 1}, 1, 0, 0},
        {2, {2, 3}, {1, 2}, 0, 0, 0},
        {3, {2, 0, 3}, {7, 8, 9}, 1, 0, 0},
        {1, {1}, {5}, 1, 0, 0},
        {4, {2, 0, 4, 5}, {20, 20, 5, 1}, 1, 0, 0},
        {4, {2, 0, 4, 5}, {0, 1, 0, 0}, 1, 1, 0},
        {5, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}, 0, 0, 1},
        {4, {2, 3, 1, 1}, {3, 1, 1, 1}, 1, 1, 0},
        {4, {2, 3, 1, 1}, {3, 1, 3, 3}, 1, 1, 0},
        {4, {1, 1, 1, 1}, {1, 1, 1, 1}, 1, 1, 0},
        {4, {2, 1, 3, 1}, {3, 3, 1, 1}, 1, 1, 0},
        {2, {3, 4}, {4, 1}, 1, 0, 0},
        {0, {0}, {0}, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const int64_t *sz = rows[i].sizes, *st = rows[i].strides;
        ASSERT_EQ(tsr_is_contiguous(rows[i].n, sz, st, TSR_CONTIGUOUS_FORMAT), rows[i].contig);
        ASSERT_EQ(tsr_is_contiguous(rows[i].n, sz, st, TSR_PRESERVE_FORMAT), rows[i].contig);
        ASSERT_EQ(tsr_is_contiguous(rows[i].n, sz, st, TSR_CHANNELS_LAST), rows[i].cl);
        ASSERT_EQ(tsr_is_contiguous(rows[i].n, sz, st, TSR_CHANNELS_LAST_3D), rows[i].cl3d);
    }
}

static void density(void)
{
    static const struct {
        int n;
        int64_t sizes[4], strides[4];
        bool nod;
    } rows[] = {
        {1, {5}, {2}, 0},
        {1, {1}, {7}, 1},
        {1, {0}, {3}, 1},
        {2, {3, 4}, {1, 3}, 1},
        {2, {3, 4}, {1, 4}, 0},
        {2, {3, 4}, {5, 1}, 0},
        {2, {3, 4}, {0, 1}, 0},
        {2, {2, 2}, {1, 1}, 0},
        {3, {2, 3, 4}, {1, 2, 6}, 1},
        {3, {2, 3, 4}, {12, 1, 3}, 1},
        {2, {3, 1}, {1, 100}, 1},
        {1, {4}, {0}, 0},
        {4, {2, 3, 4, 5}, {1, 2, 6, 24}, 1},
        {0, {0}, {0}, 1},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_EQ(tsr_is_non_overlapping_and_dense(rows[i].n, rows[i].sizes, rows[i].strides),
                  rows[i].nod);
}

static void expect_preserve(int n, const int64_t *sizes, const int64_t *strides,
                            const int64_t *want)
{
    int64_t got[TSR_MAX_DIMS];
    ASSERT_OK(tsr_preserve_strides(n, sizes, strides, got));
    for (int i = 0; i < n; i++)
        ASSERT_EQ(got[i], want[i]);
}

static void preserve(void)
{
    expect_preserve(4, A(2, 4, 5, 3), A(60, 5, 1, 20), A(60, 5, 1, 20));
    expect_preserve(2, A(4, 3), A(1, 4), A(1, 4));
    expect_preserve(3, A(2, 3, 2), A(12, 4, 2), A(6, 2, 1));
    expect_preserve(2, A(4, 2), A(1, 8), A(1, 4));
    expect_preserve(4, A(2, 3, 4, 3), A(72, 1, 18, 6), A(36, 1, 9, 3));
    expect_preserve(2, A(3, 4), A(1, 0), A(4, 1));
    expect_preserve(2, A(3, 4), A(0, 1), A(4, 1));
    expect_preserve(5, A(6, 5, 4, 3, 2), A(6, 0, 120, 0, 1), A(6, 36, 180, 2, 1));
    expect_preserve(2, A(4, 3), A(5, 1), A(3, 1));
    expect_preserve(0, NULL, NULL, NULL);
    /* the output may alias the input */
    int64_t st[3] = {12, 4, 2};
    ASSERT_OK(tsr_preserve_strides(3, A(2, 3, 2), st, st));
    ASSERT_EQ(st[0], 6);
    ASSERT_EQ(st[2], 1);
}

static void suggest(void)
{
    static const struct {
        int64_t sizes[4], strides[4];
        tsr_memory_format want;
    } rows[] = {
        {{2, 3, 4, 5}, {60, 1, 15, 3}, TSR_CHANNELS_LAST},
        {{2, 3, 4, 5}, {60, 20, 5, 1}, TSR_CONTIGUOUS_FORMAT},
        {{2, 1, 4, 5}, {20, 1, 5, 1}, TSR_CHANNELS_LAST},
        {{2, 1, 4, 5}, {20, 20, 5, 1}, TSR_CONTIGUOUS_FORMAT},
        {{2, 3, 1, 1}, {3, 1, 3, 3}, TSR_CHANNELS_LAST},
        {{2, 3, 1, 1}, {3, 1, 1, 1}, TSR_CONTIGUOUS_FORMAT},
        {{2, 1, 1, 1}, {1, 1, 1, 1}, TSR_CONTIGUOUS_FORMAT},
        {{2, 3, 4, 1}, {12, 1, 3, 3}, TSR_CHANNELS_LAST},
        {{2, 3, 4, 1}, {12, 4, 1, 1}, TSR_CONTIGUOUS_FORMAT},
        {{2, 3, 4, 5}, {120, 1, 30, 3}, TSR_CHANNELS_LAST},
        {{2, 3, 4, 5}, {1, 2, 6, 24}, TSR_CONTIGUOUS_FORMAT},
        {{2, 3, 4, 5}, {60, 0, 15, 3}, TSR_CONTIGUOUS_FORMAT},
        {{1, 1, 4, 1}, {4, 1, 1, 1}, TSR_CHANNELS_LAST},
        {{1, 1, 4, 1}, {4, 4, 1, 1}, TSR_CONTIGUOUS_FORMAT},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_EQ(tsr_suggest_memory_format(4, rows[i].sizes, rows[i].strides, false),
                  rows[i].want);
    /* exact: (120,1,30,3) looks channels-last but is not its fresh layout */
    ASSERT_EQ(tsr_suggest_memory_format(4, A(2, 3, 4, 5), A(120, 1, 30, 3), true),
              TSR_CONTIGUOUS_FORMAT);
    ASSERT_EQ(tsr_suggest_memory_format(5, A(2, 3, 4, 5, 6), A(360, 1, 90, 18, 3), true),
              TSR_CHANNELS_LAST_3D);
    ASSERT_EQ(tsr_suggest_memory_format(3, A(2, 3, 4), A(1, 2, 6), false), TSR_CONTIGUOUS_FORMAT);
}

static void names(void)
{
    tsr_memory_format f;
    tsr_layout l;
    ASSERT_OK(tsr_memory_format_from_name("torch.channels_last", &f));
    ASSERT_EQ(f, TSR_CHANNELS_LAST);
    ASSERT_OK(tsr_memory_format_from_name("legacy_contiguous_format", &f));
    ASSERT_EQ(f, TSR_CONTIGUOUS_FORMAT);
    ASSERT_EQ(tsr_memory_format_from_name("channels_first", &f), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_OK(tsr_layout_from_name("torch.sparse_coo", &l));
    ASSERT_EQ(l, TSR_SPARSE_COO);
    ASSERT_EQ(tsr_layout_from_name("sparse_csr", &l), TSR_ERR_NOT_SUPPORTED);
    ASSERT_EQ(tsr_layout_from_name("dense", &l), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_STREQ(tsr_memory_format_name(TSR_PRESERVE_FORMAT), "preserve_format");
    ASSERT_STREQ(tsr_layout_name(TSR_STRIDED), "strided");
}

int main(void)
{
    fresh_strides();
    contiguity();
    density();
    preserve();
    suggest();
    names();
    TEST_DONE();
}
