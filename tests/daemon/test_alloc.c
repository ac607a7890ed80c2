/* The caching sub-allocator, driven by a fake device: a table of the
 * segments it has created, with a capacity that makes it refuse. Every
 * scripted case asserts exact offsets, sizes, segment ids and stats; a
 * randomised run checks the internal invariants after every step. */
#include <stdbool.h>

#include "core/error.h"
#include "daemon/alloc.h"
#include "test.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define MAX_SEGMENTS (TSR__ALLOC_MAX_ALONE + 64)

typedef struct test_device {
    uint64_t capacity, used;
    uint32_t next_id;
    int id_step;       /* +1 by default; -1 hands out falling ids */
    tsr_status inject; /* when not TSR_OK, the next create fails with it */
    uint32_t ids[MAX_SEGMENTS];
    uint64_t bytes[MAX_SEGMENTS];
    int count; /* live segments */
    int creates, refusals, destroys, bad_destroys;
} test_device;

static tsr_status dev_create(void *ctx, uint64_t bytes, uint32_t *id)
{
    test_device *d = ctx;
    d->creates++;
    if (d->inject != TSR_OK) {
        tsr_status st = d->inject;
        d->inject = TSR_OK;
        d->refusals++;
        return tsr__fail(st, "test device: injected failure");
    }
    if (bytes > d->capacity - d->used || d->count == MAX_SEGMENTS) {
        d->refusals++;
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "test device full");
    }
    d->ids[d->count] = d->next_id;
    d->bytes[d->count] = bytes;
    d->count++;
    d->used += bytes;
    *id = d->next_id;
    d->next_id += (uint32_t)d->id_step;
    return TSR_OK;
}

static void dev_destroy(void *ctx, uint32_t id)
{
    test_device *d = ctx;
    d->destroys++;
    for (int i = 0; i < d->count; i++) {
        if (d->ids[i] == id) {
            d->used -= d->bytes[i];
            d->count--;
            d->ids[i] = d->ids[d->count];
            d->bytes[i] = d->bytes[d->count];
            return;
        }
    }
    d->bad_destroys++;
}

static uint64_t dev_free(void *ctx)
{
    const test_device *d = ctx;
    return d->capacity - d->used;
}

static bool dev_has(const test_device *d, uint32_t id)
{
    for (int i = 0; i < d->count; i++)
        if (d->ids[i] == id)
            return true;
    return false;
}

static const tsr__segment_ops dev_ops = {dev_create, dev_destroy};

/* A fresh device of `capacity` bytes and an allocator on it named `name`;
 * report_free decides whether the OOM message gets the device's free bytes. */
static tsr__allocator *make(test_device *d, const char *name, uint64_t capacity,
                            uint32_t max_allocations, bool report_free)
{
    *d = (test_device){.capacity = capacity, .next_id = 1, .id_step = 1};
    tsr__alloc_config config = {name, capacity, report_free ? dev_free : NULL, max_allocations,
                                NULL};
    tsr__allocator *a = NULL;
    ASSERT_OK(tsr__allocator_create(&dev_ops, d, &config, &a));
    return a;
}

static tsr__allocator *make_default(test_device *d)
{
    return make(d, "opencl:0", 1 * GiB, 0, true);
}

/* Allocates and checks the answer against the expected placement. */
#define ALLOC_AT(a, bytes, ref, seg, off, sz, seg_bytes, fresh) \
    do {                                                        \
        ASSERT_OK(tsr__alloc((a), (bytes), &(ref)));            \
        ASSERT_UEQ((ref).segment_id, (seg));                    \
        ASSERT_UEQ((ref).offset, (off));                        \
        ASSERT_UEQ((ref).size, (sz));                           \
        ASSERT_UEQ((ref).segment_bytes, (seg_bytes));           \
        ASSERT_EQ((ref).new_segment, (fresh));                  \
    } while (0)

#define FREE_OK(a, ref)                                        \
    do {                                                       \
        uint64_t test__freed = 0;                              \
        ASSERT_OK(tsr__free((a), (ref).handle, &test__freed)); \
        ASSERT_UEQ(test__freed, (ref).size);                   \
    } while (0)

#define ASSERT_CONSISTENT(a) ASSERT_OK(tsr__allocator_check(a))

/* The end of a test: the invariants still hold, and destroy releases all. */
static void check_and_destroy(tsr__allocator *a)
{
    ASSERT_CONSISTENT(a);
    tsr__allocator_destroy(a);
}

static tsr__alloc_stats stats_of(const tsr__allocator *a)
{
    tsr__alloc_stats s;
    tsr__allocator_stats(a, &s);
    return s;
}

/* clang-format off */
#define STATS_FIELDS(X)                                                                \
    X(allocated) X(reserved) X(active) X(peak_allocated) X(peak_reserved) X(requested) \
    X(allocations) X(frees) X(cache_hits) X(segments_created) X(segments_released)     \
    X(ooms) X(segments) X(live_blocks)
/* clang-format on */

static bool stats_equal(const tsr__alloc_stats *x, const tsr__alloc_stats *y)
{
    bool same = true;
#define TEST__SAME(f) same = same && x->f == y->f;
    STATS_FIELDS(TEST__SAME)
#undef TEST__SAME
    return same;
}

/* Every field of a's stats against an expected tsr__alloc_stats initialiser. */
#define TEST__FIELD(f) ASSERT_UEQ(test__got.f, test__want.f);
#define ASSERT_STATS(a, ...)                                                \
    do {                                                                    \
        tsr__alloc_stats test__want = __VA_ARGS__, test__got = stats_of(a); \
        STATS_FIELDS(TEST__FIELD)                                           \
    } while (0)

/* The info of the one segment with `id`; zeroed when there is none. */
static tsr__segment_info segment_info(const tsr__allocator *a, uint32_t id)
{
    static tsr__segment_info all[MAX_SEGMENTS];
    tsr__segment_info none = {0};
    size_t n = tsr__allocator_segments(a, all, MAX_SEGMENTS);
    for (size_t i = 0; i < n && i < MAX_SEGMENTS; i++)
        if (all[i].segment_id == id)
            return all[i];
    return none;
}

#define ASSERT_FREE_SHAPE(a, id, nfree, largest)                \
    do {                                                        \
        tsr__segment_info test__info = segment_info((a), (id)); \
        ASSERT_UEQ(test__info.free_blocks, (nfree));            \
        ASSERT_UEQ(test__info.largest_free, (largest));         \
    } while (0)

static void test_format_size(void)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0 bytes"},
        {1024, "1024 bytes"},
        {1025, "1.00 KiB"},
        {1536, "1.50 KiB"},
        {MiB, "1024.00 KiB"},
        {MiB + 1, "1.00 MiB"},
        {64 * MiB, "64.00 MiB"},
        {GiB, "1024.00 MiB"},
        {3 * GiB / 2, "1.50 GiB"},
        {UINT64_MAX, "17179869184.00 GiB"},
    };
    for (size_t i = 0; i < TSR__ARRAY_SIZE(cases); i++) {
        char buf[TSR__SIZE_TEXT];
        ASSERT_STREQ(tsr__format_size(buf, sizeof(buf), cases[i].bytes), cases[i].text);
    }
}

static void test_create_arguments(void)
{
    test_device d = {0};
    tsr__alloc_config config = {"opencl:0", GiB, NULL, 0, NULL};
    tsr__segment_ops half = {dev_create, NULL};
    tsr__allocator *a = NULL;
    const char *msg = "allocator: ops (with create and destroy), config, its device_name and "
                      "out must not be NULL";
    ASSERT_FAIL(tsr__allocator_create(NULL, &d, &config, &a), TSR_ERR_INVALID_ARGUMENT, msg);
    ASSERT_FAIL(tsr__allocator_create(&half, &d, &config, &a), TSR_ERR_INVALID_ARGUMENT, msg);
    ASSERT_FAIL(tsr__allocator_create(&dev_ops, &d, NULL, &a), TSR_ERR_INVALID_ARGUMENT, msg);
    ASSERT_FAIL(tsr__allocator_create(&dev_ops, &d, &config, NULL), TSR_ERR_INVALID_ARGUMENT, msg);
    config.device_name = NULL;
    ASSERT_FAIL(tsr__allocator_create(&dev_ops, &d, &config, &a), TSR_ERR_INVALID_ARGUMENT, msg);
    ASSERT_TRUE(a == NULL);
    tsr__allocator_destroy(NULL);
}

/* Small requests are rounded to 512 and carved from one 2 MiB segment in
 * address order. */
static void test_small_split_and_rounding(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref r[6];
    ALLOC_AT(a, 1000, r[0], 1, 0, 1024, 2 * MiB, true);
    ALLOC_AT(a, 1000, r[1], 1, 1024, 1024, 2 * MiB, false);
    ALLOC_AT(a, 1000, r[2], 1, 2048, 1024, 2 * MiB, false);
    ALLOC_AT(a, 0, r[3], 1, 3072, 512, 2 * MiB, false);
    ALLOC_AT(a, 512, r[4], 1, 3584, 512, 2 * MiB, false);
    ALLOC_AT(a, 513, r[5], 1, 4096, 1024, 2 * MiB, false);
    ASSERT_EQ(d.creates, 1);
    for (int i = 0; i < 6; i++) {
        ASSERT_TRUE(r[i].handle != 0);
        for (int j = 0; j < i; j++)
            ASSERT_TRUE(r[i].handle != r[j].handle);
    }
    ASSERT_STATS(a, {.allocated = 5120,
                     .reserved = 2 * MiB,
                     .active = 5120,
                     .peak_allocated = 5120,
                     .peak_reserved = 2 * MiB,
                     .requested = 3000 + 0 + 512 + 513,
                     .allocations = 6,
                     .cache_hits = 5,
                     .segments_created = 1,
                     .segments = 1,
                     .live_blocks = 6});
    ASSERT_FREE_SHAPE(a, 1, 1, 2 * MiB - 5120);
    check_and_destroy(a);
    ASSERT_EQ(d.count, 0);
}

/* Pool choice, segment sizes, and the large pool's split rule. */
static void test_pools_and_segment_sizes(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref r;
    ALLOC_AT(a, MiB, r, 1, 0, MiB, 2 * MiB, true); /* largest small */
    /* A 1 MiB rest is not split off a large block: the caller gets it. */
    ALLOC_AT(a, 15 * MiB, r, 2, 0, 16 * MiB, 16 * MiB, true);
    ALLOC_AT(a, 11 * MiB, r, 3, 0, 12 * MiB, 12 * MiB, true);
    ALLOC_AT(a, 10 * MiB, r, 4, 0, 10 * MiB, 10 * MiB, true);
    ALLOC_AT(a, MiB + 1, r, 5, 0, MiB + 512, 20 * MiB, true); /* smallest large */
    /* Below 10 MiB: from the rest of segment 5, split (9 MiB stay). */
    ALLOC_AT(a, 10 * MiB - 512, r, 5, MiB + 512, 10 * MiB - 512, 20 * MiB, false);
    /* A small request never takes large-pool space. */
    ALLOC_AT(a, 1000, r, 1, MiB, 1024, 2 * MiB, false);
    /* 8 MiB + 512 from the last 9 MiB of segment 5: the rest, 1 MiB - 512,
     * is too small to split off, so the caller gets all 9 MiB. */
    ALLOC_AT(a, 8 * MiB + 512, r, 5, 11 * MiB, 9 * MiB, 20 * MiB, false);
    tsr__alloc_stats s = stats_of(a);
    ASSERT_UEQ(s.reserved, (2 + 20 + 16 + 12 + 10) * MiB);
    ASSERT_UEQ(s.segments, 5);
    ASSERT_UEQ(s.segments_created, 5);
    ASSERT_UEQ(s.allocated, MiB + (MiB + 512) + 16 * MiB + 12 * MiB + 10 * MiB + (10 * MiB - 512) +
                                1024 + 9 * MiB);
    tsr__segment_info info[8];
    ASSERT_UEQ(tsr__allocator_segments(a, info, 2), 5);
    ASSERT_UEQ(info[0].segment_id, 1);
    ASSERT_TRUE(info[0].small_pool);
    ASSERT_UEQ(info[0].live_blocks, 2);
    ASSERT_UEQ(info[0].allocated, MiB + 1024);
    ASSERT_UEQ(info[1].segment_id, 2);
    ASSERT_FALSE(info[1].small_pool);
    ASSERT_UEQ(info[1].bytes, 16 * MiB);
    ASSERT_UEQ(info[1].free_blocks, 0);
    ASSERT_UEQ(info[1].allocated, 16 * MiB);
    ASSERT_FREE_SHAPE(a, 5, 0, 0);
    ASSERT_UEQ(segment_info(a, 5).allocated, 20 * MiB);
    ASSERT_UEQ(tsr__allocator_segments(a, NULL, 0), 5);
    check_and_destroy(a);
    ASSERT_EQ(d.destroys, 5);
    ASSERT_EQ(d.bad_destroys, 0);
}

static void test_cache_hit(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref r1, r2;
    ALLOC_AT(a, 4096, r1, 1, 0, 4096, 2 * MiB, true);
    FREE_OK(a, r1);
    ASSERT_UEQ(stats_of(a).allocated, 0);
    ALLOC_AT(a, 4000, r2, 1, 0, 4096, 2 * MiB, false);
    ASSERT_TRUE(r2.handle != r1.handle);
    ASSERT_EQ(d.creates, 1);
    ASSERT_STATS(a, {.allocated = 4096,
                     .reserved = 2 * MiB,
                     .active = 4096,
                     .peak_allocated = 4096,
                     .peak_reserved = 2 * MiB,
                     .requested = 4000,
                     .allocations = 2,
                     .frees = 1,
                     .cache_hits = 1,
                     .segments_created = 1,
                     .segments = 1,
                     .live_blocks = 1});
    check_and_destroy(a);
}

static void test_coalescing(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref q[4], big;
    for (int i = 0; i < 4; i++)
        ALLOC_AT(a, 512 * KiB, q[i], 1, (uint64_t)i * 512 * KiB, 512 * KiB, 2 * MiB, i == 0);
    ASSERT_FREE_SHAPE(a, 1, 0, 0);
    FREE_OK(a, q[0]);
    FREE_OK(a, q[2]);
    ASSERT_FREE_SHAPE(a, 1, 2, 512 * KiB);
    ASSERT_CONSISTENT(a);
    FREE_OK(a, q[1]); /* joins both neighbours */
    ASSERT_FREE_SHAPE(a, 1, 1, 3 * 512 * KiB);
    ASSERT_CONSISTENT(a);
    ALLOC_AT(a, MiB, big, 1, 0, MiB, 2 * MiB, false);
    ASSERT_FREE_SHAPE(a, 1, 1, 512 * KiB);
    FREE_OK(a, q[3]); /* joins the left neighbour only */
    ASSERT_FREE_SHAPE(a, 1, 1, MiB);
    FREE_OK(a, big); /* joins the right neighbour only */
    ASSERT_FREE_SHAPE(a, 1, 1, 2 * MiB);
    ASSERT_CONSISTENT(a);
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 2 * MiB);
    ASSERT_EQ(d.creates, 1);
    ASSERT_EQ(d.destroys, 1);
    tsr__allocator_destroy(a);
}

/* Holes of 3K, 1K, 2K, 1K between live blocks; each request must take the
 * smallest hole that fits, the lowest offset on ties. */
static void test_best_fit(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    static const uint64_t sizes[8] = {3072, 512, 1024, 512, 2048, 512, 1024, 512};
    tsr__block_ref r[8], x;
    uint64_t off = 0;
    for (int i = 0; i < 8; i++) {
        ALLOC_AT(a, sizes[i], r[i], 1, off, sizes[i], 2 * MiB, i == 0);
        off += sizes[i];
    }
    for (int i = 0; i < 8; i += 2)
        FREE_OK(a, r[i]);
    ALLOC_AT(a, 1500, x, 1, 5120, 1536, 2 * MiB, false); /* the 2K hole */
    ALLOC_AT(a, 1000, x, 1, 3584, 1024, 2 * MiB, false); /* first of two 1K holes */
    ALLOC_AT(a, 1024, x, 1, 7680, 1024, 2 * MiB, false); /* the other */
    ALLOC_AT(a, 512, x, 1, 6656, 512, 2 * MiB, false);   /* rest of the 2K hole */
    ALLOC_AT(a, 2048, x, 1, 0, 2048, 2 * MiB, false);    /* the 3K hole */
    ALLOC_AT(a, 1024, x, 1, 2048, 1024, 2 * MiB, false); /* its rest */
    ALLOC_AT(a, 3072, x, 1, 9216, 3072, 2 * MiB, false); /* the tail */
    check_and_destroy(a);
}

/* Equal holes in two segments: the lower segment id wins even when it was
 * created later and its hole lies at a higher offset. */
static void test_best_fit_ties_across_segments(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    d.next_id = 100;
    d.id_step = -1;
    tsr__block_ref x, y, z, p, q, w;
    ALLOC_AT(a, MiB, x, 100, 0, MiB, 2 * MiB, true);
    ALLOC_AT(a, MiB - 1024, y, 100, MiB, MiB - 1024, 2 * MiB, false);
    ALLOC_AT(a, 1024, z, 100, 2 * MiB - 1024, 1024, 2 * MiB, false);
    ALLOC_AT(a, 1024, p, 99, 0, 1024, 2 * MiB, true);
    ALLOC_AT(a, MiB, q, 99, 1024, MiB, 2 * MiB, false);
    ALLOC_AT(a, MiB - 1024, w, 99, MiB + 1024, MiB - 1024, 2 * MiB, false);
    FREE_OK(a, z);
    FREE_OK(a, p);
    ALLOC_AT(a, 1000, x, 99, 0, 1024, 2 * MiB, false);
    ALLOC_AT(a, 1000, x, 100, 2 * MiB - 1024, 1024, 2 * MiB, false);
    check_and_destroy(a);
}

static void test_empty_cache(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref r1, r2, r3, r4;
    ALLOC_AT(a, MiB, r1, 1, 0, MiB, 2 * MiB, true);
    ALLOC_AT(a, MiB, r2, 1, MiB, MiB, 2 * MiB, false);
    ALLOC_AT(a, MiB, r3, 2, 0, MiB, 2 * MiB, true);
    ALLOC_AT(a, 20 * MiB, r4, 3, 0, 20 * MiB, 20 * MiB, true);
    FREE_OK(a, r3);
    FREE_OK(a, r4);
    FREE_OK(a, r2); /* segment 1 keeps r1 */
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 22 * MiB);
    ASSERT_EQ(d.destroys, 2);
    ASSERT_EQ(d.count, 1);
    ASSERT_TRUE(dev_has(&d, 1));
    ASSERT_STATS(a, {.allocated = MiB,
                     .reserved = 2 * MiB,
                     .active = MiB,
                     .peak_allocated = 23 * MiB,
                     .peak_reserved = 24 * MiB,
                     .requested = MiB,
                     .allocations = 4,
                     .frees = 3,
                     .cache_hits = 1,
                     .segments_created = 3,
                     .segments_released = 2,
                     .segments = 1,
                     .live_blocks = 1});
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 0);
    ASSERT_CONSISTENT(a);
    FREE_OK(a, r1);
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 2 * MiB);
    ASSERT_EQ(d.count, 0);
    ASSERT_UEQ(stats_of(a).reserved, 0);
    check_and_destroy(a);
    ASSERT_EQ(d.destroys, 3);
}

static void test_oom(void)
{
    test_device d;
    tsr__allocator *a = make(&d, "opencl:0", 24 * MiB, 0, true);
    tsr__block_ref r, big, small;
    /* A cached 12 MiB segment is released to make room, then the retry
     * succeeds. */
    ALLOC_AT(a, 11 * MiB, r, 1, 0, 12 * MiB, 12 * MiB, true);
    FREE_OK(a, r);
    ALLOC_AT(a, 15 * MiB, big, 2, 0, 16 * MiB, 16 * MiB, true);
    ASSERT_EQ(d.creates, 3);
    ASSERT_EQ(d.refusals, 1);
    ASSERT_EQ(d.destroys, 1);
    ASSERT_FALSE(dev_has(&d, 1));
    ASSERT_STATS(a, {.allocated = 16 * MiB,
                     .reserved = 16 * MiB,
                     .active = 16 * MiB,
                     .peak_allocated = 16 * MiB,
                     .peak_reserved = 16 * MiB,
                     .requested = 15 * MiB,
                     .allocations = 2,
                     .frees = 1,
                     .segments_created = 2,
                     .segments_released = 1,
                     .segments = 1,
                     .live_blocks = 1});

    /* Nothing cached to release: one refusal, no retry, the full message,
     * and nothing changed but the OOM count. */
    ALLOC_AT(a, MiB, small, 3, 0, MiB, 2 * MiB, true);
    tsr__alloc_stats before = stats_of(a);
    int creates = d.creates;
    ASSERT_FAIL(tsr__alloc(a, 8 * MiB, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 20.00 MiB (opencl:0; 24.00 MiB total "
                "capacity; 17.00 MiB already allocated by this session; 6.00 MiB free; 18.00 MiB "
                "reserved in total by this session)");
    ASSERT_EQ(d.creates, creates + 1);
    tsr__alloc_stats after = stats_of(a);
    before.ooms++;
    ASSERT_TRUE(stats_equal(&after, &before));
    ASSERT_CONSISTENT(a);

    /* Release, retry, refused again: the message tells the state after the
     * release. */
    FREE_OK(a, big);
    ASSERT_FAIL(tsr__alloc(a, 30 * MiB, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 30.00 MiB (opencl:0; 24.00 MiB total "
                "capacity; 1024.00 KiB already allocated by this session; 22.00 MiB free; 2.00 MiB "
                "reserved in total by this session)");
    ASSERT_EQ(d.creates, creates + 3);
    ASSERT_UEQ(stats_of(a).ooms, 2);
    ASSERT_UEQ(stats_of(a).segments, 1);
    ASSERT_CONSISTENT(a);

    /* Other failures of create pass through untouched, without a release. */
    ALLOC_AT(a, 11 * MiB, r, 4, 0, 12 * MiB, 12 * MiB, true);
    FREE_OK(a, r);
    d.inject = TSR_ERR_IO;
    ASSERT_FAIL(tsr__alloc(a, 16 * MiB, &r), TSR_ERR_IO, "test device: injected failure");
    ASSERT_TRUE(dev_has(&d, 4));
    ASSERT_UEQ(stats_of(a).ooms, 2);

    /* 256 TiB is still asked for; one byte more is refused up front. */
    creates = d.creates;
    ASSERT_FAIL(tsr__alloc(a, UINT64_C(1) << 48, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 262144.00 GiB (opencl:0; 24.00 MiB "
                "total capacity; 1024.00 KiB already allocated by this session; 22.00 MiB free; "
                "2.00 MiB reserved in total by this session)");
    ASSERT_EQ(d.creates, creates + 2); /* the cached 12 MiB went, then a retry */
    ASSERT_FAIL(tsr__alloc(a, (UINT64_C(1) << 48) + 1, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 262144.00 GiB; the largest allocation "
                "supported is 281474976710656 bytes");
    ASSERT_FAIL(tsr__alloc(a, UINT64_MAX, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:0 out of memory. Tried to allocate 17179869184.00 GiB; the largest "
                "allocation supported is 281474976710656 bytes");
    ASSERT_EQ(d.creates, creates + 2);
    ASSERT_UEQ(stats_of(a).ooms, 5);
    check_and_destroy(a);

    /* Without device_free the "free" part is left out. */
    a = make(&d, "opencl:1", 2 * MiB, 0, false);
    ALLOC_AT(a, MiB, r, 1, 0, MiB, 2 * MiB, true);
    ASSERT_FAIL(tsr__alloc(a, 3 * MiB, &r), TSR_ERR_OUT_OF_MEMORY,
                "opencl:1 out of memory. Tried to allocate 20.00 MiB (opencl:1; 2.00 MiB total "
                "capacity; 1024.00 KiB already allocated by this session; 2.00 MiB reserved in "
                "total by this session)");
    tsr__allocator_destroy(a);
}

#define ASSERT_BAD_HANDLE(call, handle_text)               \
    ASSERT_FAIL(call, TSR_ERR_INVALID_ARGUMENT,            \
                "invalid allocation handle 0x" handle_text \
                " (not allocated by this session, or already freed)")

static void test_handles(void)
{
    test_device d, e;
    tsr__allocator *a = make_default(&d);
    tsr__allocator *b = make_default(&e);
    tsr__block_ref r, r2, other, seen;
    ALLOC_AT(a, 1000, r, 1, 0, 1024, 2 * MiB, true);
    ASSERT_OK(tsr__lookup(a, r.handle, &seen));
    ASSERT_UEQ(seen.handle, r.handle);
    ASSERT_UEQ(seen.segment_id, 1);
    ASSERT_UEQ(seen.offset, 0);
    ASSERT_UEQ(seen.size, 1024);
    ASSERT_UEQ(seen.segment_bytes, 2 * MiB);
    ASSERT_FALSE(seen.new_segment);

    tsr__alloc_stats before = stats_of(a);
    uint64_t freed = 77;
    ASSERT_BAD_HANDLE(tsr__free(a, 0, &freed), "0000000000000000");
    ASSERT_BAD_HANDLE(tsr__free(a, UINT64_MAX, &freed), "ffffffffffffffff");
    ASSERT_FAIL(tsr__free(a, r.handle ^ (UINT64_C(1) << 32), &freed), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(tsr__free(a, r.handle + 1, &freed), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(tsr__lookup(a, r.handle + 1, &seen), TSR_ERR_INVALID_ARGUMENT, NULL);
    /* Another session's first handle is at the same slot, with another
     * generation. */
    ALLOC_AT(b, 1000, other, 1, 0, 1024, 2 * MiB, true);
    ASSERT_UEQ((uint32_t)other.handle, (uint32_t)r.handle);
    ASSERT_FAIL(tsr__free(a, other.handle, &freed), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_UEQ(freed, 77);
    tsr__alloc_stats after = stats_of(a);
    ASSERT_TRUE(stats_equal(&before, &after));

    FREE_OK(a, r);
    before = stats_of(a);
    ASSERT_FAIL(tsr__free(a, r.handle, NULL), TSR_ERR_INVALID_ARGUMENT, NULL); /* double free */
    ASSERT_FAIL(tsr__lookup(a, r.handle, &seen), TSR_ERR_INVALID_ARGUMENT, NULL);
    after = stats_of(a);
    ASSERT_TRUE(stats_equal(&before, &after));
    ASSERT_CONSISTENT(a);

    /* The slot is reused at once under a new generation: the stale handle
     * stays dead and does not reach the new block. */
    ALLOC_AT(a, 1000, r2, 1, 0, 1024, 2 * MiB, false);
    ASSERT_UEQ((uint32_t)r2.handle, (uint32_t)r.handle);
    ASSERT_TRUE(r2.handle != r.handle);
    ASSERT_FAIL(tsr__free(a, r.handle, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_OK(tsr__lookup(a, r2.handle, &seen));
    ASSERT_OK(tsr__free(a, r2.handle, NULL));
    ASSERT_CONSISTENT(a);
    ASSERT_OK(tsr__free(b, other.handle, NULL));
    tsr__allocator_destroy(b);
    tsr__allocator_destroy(a);
}

static void test_allocation_limit(void)
{
    test_device d;
    tsr__allocator *a = make(&d, "opencl:0", GiB, 3, true);
    tsr__block_ref r[3], x;
    for (int i = 0; i < 3; i++)
        ALLOC_AT(a, 512, r[i], 1, (uint64_t)i * 512, 512, 2 * MiB, i == 0);
    ASSERT_FAIL(tsr__alloc(a, 512, &x), TSR_ERR_LIMIT, "too many live allocations (3)");
    ASSERT_UEQ(stats_of(a).allocations, 3);
    FREE_OK(a, r[1]);
    ALLOC_AT(a, 100, x, 1, 512, 512, 2 * MiB, false);
    ASSERT_FAIL(tsr__alloc(a, 20 * MiB, &x), TSR_ERR_LIMIT, "too many live allocations (3)");
    ASSERT_EQ(d.creates, 1);
    check_and_destroy(a);
}

/* Every stat after a scripted sequence. */
static void test_stats_script(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref ra, rb, rc, rd;
    ALLOC_AT(a, 1000, ra, 1, 0, 1024, 2 * MiB, true);
    ALLOC_AT(a, 3 * MiB, rb, 2, 0, 3 * MiB, 20 * MiB, true);
    ALLOC_AT(a, 100, rc, 1, 1024, 512, 2 * MiB, false);
    FREE_OK(a, rb);
    ALLOC_AT(a, 2 * MiB, rd, 2, 0, 2 * MiB, 20 * MiB, false);
    FREE_OK(a, ra);
    ASSERT_STATS(a, {.allocated = 512 + 2 * MiB,
                     .reserved = 22 * MiB,
                     .active = 512 + 2 * MiB,
                     .peak_allocated = 1536 + 3 * MiB,
                     .peak_reserved = 22 * MiB,
                     .requested = 100 + 2 * MiB,
                     .allocations = 4,
                     .frees = 2,
                     .cache_hits = 2,
                     .segments_created = 2,
                     .segments = 2,
                     .live_blocks = 2});

    tsr__allocator_reset_peaks(a);
    ASSERT_UEQ(stats_of(a).peak_allocated, 512 + 2 * MiB);
    ASSERT_UEQ(stats_of(a).peak_reserved, 22 * MiB);
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 0);
    FREE_OK(a, rc);
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 2 * MiB);
    ASSERT_STATS(a, {.allocated = 2 * MiB,
                     .reserved = 20 * MiB,
                     .active = 2 * MiB,
                     .peak_allocated = 512 + 2 * MiB,
                     .peak_reserved = 22 * MiB,
                     .requested = 2 * MiB,
                     .allocations = 4,
                     .frees = 3,
                     .cache_hits = 2,
                     .segments_created = 2,
                     .segments_released = 1,
                     .segments = 1,
                     .live_blocks = 1});
    check_and_destroy(a);
}

static void test_destroy_releases_live_segments(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref r;
    ALLOC_AT(a, 1000, r, 1, 0, 1024, 2 * MiB, true);
    ALLOC_AT(a, 5 * MiB, r, 2, 0, 5 * MiB, 20 * MiB, true);
    ALLOC_AT(a, 64 * MiB, r, 3, 0, 64 * MiB, 64 * MiB, true);
    FREE_OK(a, r);
    ASSERT_EQ(d.count, 3);
    tsr__allocator_destroy(a);
    ASSERT_EQ(d.count, 0);
    ASSERT_EQ(d.destroys, 3);
    ASSERT_EQ(d.bad_destroys, 0);
    ASSERT_UEQ(d.used, 0);
}

/* An alone block has a segment of its own, pages rounded, that nothing
 * else uses and that goes with it; a block with no other live one in its
 * segment is sealed alone there, its free neighbours out of use; one
 * among others is refused. */
static void test_alone_and_seal(void)
{
    test_device d;
    tsr__allocator *a = make_default(&d);
    tsr__block_ref al, empty, x, y, again;
    ASSERT_OK(tsr__alloc_alone(a, 5000, &al));
    ASSERT_UEQ(al.segment_id, 1);
    ASSERT_UEQ(al.offset, 0);
    ASSERT_UEQ(al.size, 8192);
    ASSERT_UEQ(al.segment_bytes, 8192);
    ASSERT_TRUE(al.new_segment && al.alone);
    ASSERT_OK(tsr__alloc_alone(a, 0, &empty));
    ASSERT_UEQ(empty.segment_id, 2);
    ASSERT_UEQ(empty.size, 4096);
    ALLOC_AT(a, 1000, x, 3, 0, 1024, 2 * MiB, true);
    ASSERT_FALSE(x.alone);
    ALLOC_AT(a, 1000, y, 3, 1024, 1024, 2 * MiB, false);
    ASSERT_EQ(tsr__alloc_seal(a, x.handle, &again), TSR_ERR_RUNTIME);
    char want[128];
    snprintf(want, sizeof want,
             "allocation 0x%016llx shares its segment with 1 other live allocations",
             (unsigned long long)x.handle);
    ASSERT_STREQ(tsr_last_error(), want);
    ASSERT_CONSISTENT(a);
    FREE_OK(a, y);
    ASSERT_OK(tsr__alloc_seal(a, x.handle, &again));
    ASSERT_TRUE(again.alone && !again.new_segment);
    ASSERT_UEQ(again.segment_id, 3);
    ASSERT_UEQ(again.offset, 0);
    ASSERT_UEQ(again.size, 1024);
    ASSERT_OK(tsr__alloc_seal(a, x.handle, &again)); /* already */
    ASSERT_TRUE(again.alone);
    ASSERT_OK(tsr__alloc_seal(a, al.handle, &again));
    ASSERT_CONSISTENT(a);
    ASSERT_FREE_SHAPE(a, 3, 1, 2 * MiB - 1024);
    ASSERT_TRUE(segment_info(a, 3).alone && segment_info(a, 1).alone);
    /* Nothing else comes from them, and emptying the cache keeps them. */
    ALLOC_AT(a, 1000, y, 4, 0, 1024, 2 * MiB, true);
    ASSERT_UEQ(tsr__allocator_empty_cache(a), 0);
    ASSERT_EQ(tsr__alloc_seal(a, UINT64_C(0xdeadbeef00000001), &again), TSR_ERR_INVALID_ARGUMENT);
    /* Each goes with its block. */
    int destroys = d.destroys;
    FREE_OK(a, al);
    FREE_OK(a, x);
    FREE_OK(a, empty);
    ASSERT_EQ(d.destroys, destroys + 3);
    ASSERT_FALSE(dev_has(&d, 1) || dev_has(&d, 2) || dev_has(&d, 3));
    FREE_OK(a, y); /* cached, as ever */
    ASSERT_TRUE(dev_has(&d, 4));
    ASSERT_STATS(a, {.reserved = 2 * MiB,
                     .peak_allocated = 8192 + 4096 + 2048,
                     .peak_reserved = 8192 + 4096 + 4 * MiB,
                     .allocations = 5,
                     .frees = 5,
                     .cache_hits = 1, /* y beside x */
                     .segments_created = 4,
                     .segments_released = 3,
                     .segments = 1});
    /* Each is a descriptor and a mapping of the daemon's: at most
     * TSR__ALLOC_MAX_ALONE live, sealed ones included. */
    static tsr__block_ref many[TSR__ALLOC_MAX_ALONE];
    for (uint32_t k = 0; k < TSR__ALLOC_MAX_ALONE - 1; k++)
        ASSERT_OK(tsr__alloc_alone(a, 1, &many[k]));
    ALLOC_AT(a, 100, x, 4, 0, 512, 2 * MiB, false); /* y's cached segment */
    ASSERT_OK(tsr__alloc_seal(a, x.handle, &again));
    ASSERT_UEQ(stats_of(a).alone_segments, TSR__ALLOC_MAX_ALONE);
    ASSERT_EQ(tsr__alloc_alone(a, 1, &again), TSR_ERR_LIMIT);
    ASSERT_STREQ(tsr_last_error(), "too many allocations alone in their segments (4096)");
    tsr__block_ref lone;
    ASSERT_OK(tsr__alloc(a, 100, &lone)); /* alone in a new segment, but past the cap */
    ASSERT_EQ(tsr__alloc_seal(a, lone.handle, &again), TSR_ERR_LIMIT);
    ASSERT_OK(tsr__alloc_seal(a, x.handle, &again)); /* sealed already: nothing to refuse */
    FREE_OK(a, lone);
    FREE_OK(a, x);
    ASSERT_OK(tsr__alloc_alone(a, 1, &many[TSR__ALLOC_MAX_ALONE - 1]));
    for (uint32_t k = 0; k < TSR__ALLOC_MAX_ALONE; k++)
        FREE_OK(a, many[k]);
    ASSERT_UEQ(stats_of(a).alone_segments, 0);
    check_and_destroy(a);
    ASSERT_EQ(d.bad_destroys, 0);
}

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A request size: mostly small, some medium, a few large. */
static uint64_t random_size(void)
{
    uint64_t pick = rng() % 100;
    if (pick < 70)
        return rng() % (64 * KiB);
    if (pick < 92)
        return 64 * KiB + rng() % (1536 * KiB);
    return 1 + rng() % (24 * MiB);
}

#define STRESS_LIVE 1500
#define STRESS_STEPS 20000

static void test_random_stress(void)
{
    test_device d;
    tsr__allocator *a = make(&d, "opencl:0", 160 * MiB, 0, true);
    static tsr__block_ref live[STRESS_LIVE];
    int n = 0, failures = 0, ooms = 0, seals = 0;
    for (int step = 0; step < STRESS_STEPS; step++) {
        uint64_t roll = rng() % 100;
        if (n == 0 || (n < STRESS_LIVE && roll < 55)) {
            uint64_t bytes = random_size();
            tsr__block_ref r;
            bool alone = roll < 3;
            tsr_status st = alone ? tsr__alloc_alone(a, bytes, &r) : tsr__alloc(a, bytes, &r);
            if (st == TSR_ERR_OUT_OF_MEMORY) {
                ooms++;
            } else if (st != TSR_OK || r.offset % 512 || r.size < bytes ||
                       r.offset + r.size > r.segment_bytes || !dev_has(&d, r.segment_id) ||
                       r.alone != alone || (alone && r.size != r.segment_bytes)) {
                failures++;
            } else {
                live[n++] = r;
            }
        } else if (roll < 60) { /* sealed where no other live block is */
            int i = (int)(rng() % (uint64_t)n);
            tsr__block_ref r;
            tsr_status st = tsr__alloc_seal(a, live[i].handle, &r);
            if (st == TSR_OK ? !r.alone || r.offset != live[i].offset : st != TSR_ERR_RUNTIME)
                failures++;
            seals += st == TSR_OK;
        } else {
            int i = (int)(rng() % (uint64_t)n);
            tsr__block_ref seen;
            uint64_t freed = 0;
            if (tsr__lookup(a, live[i].handle, &seen) != TSR_OK || seen.offset != live[i].offset ||
                seen.segment_id != live[i].segment_id ||
                tsr__free(a, live[i].handle, &freed) != TSR_OK || freed != live[i].size)
                failures++;
            live[i] = live[--n];
        }
        if (step % 2000 == 1999)
            tsr__allocator_empty_cache(a);
        tsr__alloc_stats s = stats_of(a);
        if (tsr__allocator_check(a) != TSR_OK || s.reserved != d.used ||
            s.segments != (uint32_t)d.count || s.live_blocks != (uint32_t)n) {
            failures++;
            fprintf(stderr, "step %d: %s\n", step, tsr_last_error());
            break;
        }
    }
    ASSERT_EQ(failures, 0);
    tsr__alloc_stats s = stats_of(a);
    ASSERT_UEQ(s.ooms, (uint64_t)ooms);
    /* The run reaches every path: the device filled up, cache released. */
    ASSERT_TRUE(ooms > 0);
    ASSERT_TRUE(s.segments_released > 0);
    ASSERT_TRUE(s.cache_hits > s.segments_created);
    ASSERT_TRUE(seals > 0);
    while (n > 0)
        ASSERT_OK(tsr__free(a, live[--n].handle, NULL));
    ASSERT_UEQ(stats_of(a).allocated, 0);
    ASSERT_UEQ(stats_of(a).requested, 0);
    ASSERT_CONSISTENT(a);
    tsr__allocator_empty_cache(a);
    ASSERT_EQ(d.count, 0);
    ASSERT_UEQ(stats_of(a).reserved, 0);
    check_and_destroy(a);
    ASSERT_EQ(d.bad_destroys, 0);
}

int main(void)
{
    test_format_size();
    test_create_arguments();
    test_small_split_and_rounding();
    test_pools_and_segment_sizes();
    test_cache_hit();
    test_coalescing();
    test_best_fit();
    test_best_fit_ties_across_segments();
    test_empty_cache();
    test_oom();
    test_handles();
    test_allocation_limit();
    test_stats_script();
    test_destroy_releases_live_segments();
    test_alone_and_seal();
    test_random_stress();
    TEST_DONE();
}
