/* The caching sub-allocator (see alloc.h for the rules and invariants).
 *
 * Data structures:
 *   - Each segment keeps its blocks in a doubly-linked list in address
 *     order, so splitting and merging with neighbours are O(1).
 *   - Each pool indexes its free blocks in an AVL tree ordered by
 *     (size, segment id, offset). Best fit is then one descent (the leftmost
 *     key ≥ (request, 0, 0)), and that order is exactly the tie rule, for
 *     any size: the large pool has no bounded set of sizes that
 *     segregated lists could cover, and lists would need a second ordering
 *     inside each class for the tie rule anyway. The tree is intrusive (the
 *     links live in the block), so indexing never allocates.
 *   - Handles index a slot table: slot = low 32 bits, the slot's generation
 *     = high 32 bits. Decoding is a bounds check and two compares, and never
 *     reads a freed block. Freed slots are reused LIFO (warm cache lines);
 *     the generation step on free keeps a reused slot's handle new.
 *   - Block records removed by merges are kept on a short spare list, so a
 *     steady alloc+free cycle (split, then merge back) calls no malloc.
 * Every allocation the call might need (spare block records, a handle
 * slot, a segment record) is obtained before any state changes, so a failed
 * malloc leaves the allocator as it was. */
#include "daemon/alloc.h"

#include <assert.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Spare block records kept beyond this are freed: a burst of merges should
 * not pin memory for ever. */
#define SPARE_MAX 256
#define NO_SLOT UINT32_MAX
/* A new segment's first block and a split remainder: at most two records. */
#define RECORDS_PER_ALLOC 2

struct segment;

typedef struct block {
    struct segment *seg;
    uint32_t seg_id; /* seg->id, kept here so tree descents touch one line per node */
    uint64_t offset, size;
    struct block *prev, *next; /* neighbours in the segment, address order */
    struct block *kid[2];      /* free-tree children, left and right (free blocks only) */
    uint64_t requested;        /* live blocks: the unrounded request */
    uint32_t slot;             /* live blocks: the handle slot */
    uint8_t kh[2];             /* free tree: heights of the kid[] subtrees */
    bool live;
} block;

typedef struct segment {
    uint32_t id;
    bool small;
    bool alone; /* one live block, never cached (tsr__alloc_alone, tsr__alloc_seal) */
    uint64_t bytes, allocated;
    uint32_t live;
    block *first;
    struct segment *prev, *next; /* the allocator's list, creation order */
} segment;

typedef struct slot {
    block *blk; /* NULL when free */
    uint32_t gen;
    uint32_t next_free;
} slot;

struct tsr__allocator {
    tsr__segment_ops ops;
    void *ctx;
    char *device_name;
    uint64_t capacity;
    uint64_t (*device_free)(void *ctx);
    uint64_t (*device_total)(void *ctx);
    uint32_t max_allocations;
    uint64_t seed;
    block *trees[2]; /* [small]: the free blocks of each pool */
    segment *seg_head, *seg_tail;
    slot *slots;
    uint32_t nslots, slot_cap, free_slot;
    block *spare; /* linked through ->next */
    uint32_t nspare;
    tsr__alloc_stats stats;
};

/* ---- sizes ------------------------------------------------------------ */

const char *tsr__format_size(char *buf, size_t n, uint64_t bytes)
{
    static const struct {
        uint64_t limit;
        double unit;
        const char *name;
    } scales[] = {
        {UINT64_C(1) << 20, 1024.0, "KiB"},
        {UINT64_C(1) << 30, 1048576.0, "MiB"},
        {UINT64_MAX, 1073741824.0, "GiB"},
    };
    if (bytes <= 1024) {
        snprintf(buf, n, "%" PRIu64 " bytes", bytes);
        return buf;
    }
    size_t i = 0;
    while (bytes > scales[i].limit)
        i++;
    snprintf(buf, n, "%.2f %s", (double)bytes / scales[i].unit, scales[i].name);
    return buf;
}

/* Rounds `value` up to a multiple of the power of two `unit`; false on
 * overflow. */
static bool round_up(uint64_t value, uint64_t unit, uint64_t *out)
{
    uint64_t sum;
    if (__builtin_add_overflow(value, unit - 1, &sum))
        return false;
    *out = sum & ~(unit - 1);
    return true;
}

static uint64_t segment_size_for(uint64_t size, bool small)
{
    if (small)
        return TSR__ALLOC_SMALL_SEGMENT;
    if (size < TSR__ALLOC_MIN_LARGE)
        return TSR__ALLOC_LARGE_SEGMENT;
    uint64_t bytes = 0;
    bool ok = round_up(size, TSR__ALLOC_ROUND_LARGE, &bytes);
    assert(ok); /* size ≤ TSR__ALLOC_MAX_BYTES, far from overflow */
    (void)ok;
    return bytes;
}

/* Whether a block of `rest` bytes left over after a split is worth keeping:
 * in the large pool a small remainder would only fragment it. */
static bool should_split(uint64_t rest, bool small)
{
    return small ? rest >= TSR__ALLOC_ROUND : rest > TSR__ALLOC_SMALL_SIZE;
}

/* ---- free tree (AVL) ------------------------------------------------- */

static bool key_less(const block *x, const block *y)
{
    if (x->size != y->size)
        return x->size < y->size;
    if (x->seg_id != y->seg_id)
        return x->seg_id < y->seg_id;
    return x->offset < y->offset;
}

/* Children are indexed by side (0 left, 1 right) so that each mirrored
 * pair of AVL cases is one piece of code; the descents still branch on the
 * comparison and index with constants, because a child address computed
 * from the comparison stalls the next load (measured twice as slow in
 * steady state, where the branches predict perfectly). Each node keeps the heights of
 * both its subtrees rather than its own, so rebalancing on the way back up
 * reads only nodes on the search path: reading a sibling's height would
 * cost a cache miss per level. */
static uint8_t subtree_height(const block *b)
{
    return b ? (uint8_t)(1 + (b->kh[0] > b->kh[1] ? b->kh[0] : b->kh[1])) : 0;
}

/* Lifts b's child on side d into b's place (d = 0: a right rotation). */
static block *rotate(block *b, int d)
{
    block *c = b->kid[d];
    b->kid[d] = c->kid[!d];
    b->kh[d] = c->kh[!d];
    c->kid[!d] = b;
    c->kh[!d] = subtree_height(b);
    return c;
}

/* b's subtree heights are current; restores the AVL balance at b. */
static block *rebalance(block *b)
{
    int heavy = b->kh[1] > b->kh[0];
    if (b->kh[heavy] - b->kh[!heavy] <= 1)
        return b;
    block *c = b->kid[heavy];
    if (c->kh[!heavy] > c->kh[heavy]) { /* the inner grandchild is taller */
        b->kid[heavy] = rotate(c, !heavy);
        b->kh[heavy] = subtree_height(b->kid[heavy]);
    }
    return rotate(b, heavy);
}

static block *with_kid(block *b, int d, block *kid)
{
    b->kid[d] = kid;
    b->kh[d] = subtree_height(kid);
    return rebalance(b);
}

static block *tree_insert(block *root, block *b)
{
    if (root == NULL) {
        b->kid[0] = b->kid[1] = NULL;
        b->kh[0] = b->kh[1] = 0;
        return b;
    }
    if (key_less(b, root))
        return with_kid(root, 0, tree_insert(root->kid[0], b));
    return with_kid(root, 1, tree_insert(root->kid[1], b));
}

static block *tree_take_min(block *root, block **min)
{
    if (root->kid[0] == NULL) {
        *min = root;
        return root->kid[1];
    }
    return with_kid(root, 0, tree_take_min(root->kid[0], min));
}

/* Removes b, which must be in the tree; keys are unique, so the descent
 * finds exactly that node. */
static block *tree_remove(block *root, block *b)
{
    assert(root != NULL);
    if (root == b) {
        if (b->kid[0] == NULL || b->kid[1] == NULL)
            return b->kid[0] ? b->kid[0] : b->kid[1];
        block *succ;
        block *right = tree_take_min(b->kid[1], &succ);
        succ->kid[0] = b->kid[0];
        succ->kh[0] = b->kh[0];
        return with_kid(succ, 1, right);
    }
    if (key_less(b, root))
        return with_kid(root, 0, tree_remove(root->kid[0], b));
    return with_kid(root, 1, tree_remove(root->kid[1], b));
}

/* The smallest block of at least `size` bytes; the leftmost on ties. */
static block *tree_best_fit(block *root, uint64_t size)
{
    block *best = NULL;
    while (root) {
        if (root->size >= size) {
            best = root;
            root = root->kid[0];
        } else {
            root = root->kid[1];
        }
    }
    return best;
}

static void index_free(tsr__allocator *a, block *b)
{
    a->trees[b->seg->small] = tree_insert(a->trees[b->seg->small], b);
}

static void unindex_free(tsr__allocator *a, block *b)
{
    a->trees[b->seg->small] = tree_remove(a->trees[b->seg->small], b);
}

/* ---- block records ---------------------------------------------------- */

static tsr_status no_memory(void)
{
    return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for allocator bookkeeping");
}

static tsr_status reserve_records(tsr__allocator *a, uint32_t n)
{
    while (a->nspare < n) {
        block *b = malloc(sizeof(*b));
        if (b == NULL)
            return no_memory();
        b->next = a->spare;
        a->spare = b;
        a->nspare++;
    }
    return TSR_OK;
}

static block *take_record(tsr__allocator *a)
{
    assert(a->spare != NULL);
    block *b = a->spare;
    a->spare = b->next;
    a->nspare--;
    return b; /* the caller initialises every field */
}

static void drop_record(tsr__allocator *a, block *b)
{
    if (a->nspare >= SPARE_MAX) {
        free(b);
        return;
    }
    b->next = a->spare;
    a->spare = b;
    a->nspare++;
}

/* ---- handle slots ----------------------------------------------------- */

/* splitmix64's output function: spreads nearby inputs over all bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Generations are never 0, so no handle is 0. */
static uint32_t next_generation(uint32_t gen)
{
    return gen + 1 ? gen + 1 : 1;
}

/* Makes sure tsr__alloc can take a slot without allocating. */
static tsr_status reserve_slot(tsr__allocator *a)
{
    if (a->free_slot != NO_SLOT || a->nslots < a->slot_cap)
        return TSR_OK;
    assert(a->nslots < a->max_allocations); /* the caller checked the limit */
    uint32_t cap = a->slot_cap ? a->slot_cap : 32;
    if (a->slot_cap && __builtin_mul_overflow(a->slot_cap, 2u, &cap))
        cap = a->max_allocations;
    if (cap > a->max_allocations)
        cap = a->max_allocations;
    size_t bytes;
    if (__builtin_mul_overflow((size_t)cap, sizeof(slot), &bytes))
        return no_memory();
    slot *grown = realloc(a->slots, bytes);
    if (grown == NULL)
        return no_memory();
    a->slots = grown;
    a->slot_cap = cap;
    return TSR_OK;
}

static uint32_t take_slot(tsr__allocator *a, block *b)
{
    uint32_t i = a->free_slot;
    if (i != NO_SLOT) {
        a->free_slot = a->slots[i].next_free;
    } else {
        assert(a->nslots < a->slot_cap);
        i = a->nslots++;
        /* A pseudo-random first generation per slot and allocator, so
         * that neighbouring slots' handles, and other sessions' handles,
         * do not line up. */
        uint32_t gen = (uint32_t)mix64(a->seed + i);
        a->slots[i].gen = gen ? gen : 1;
    }
    a->slots[i].blk = b;
    a->slots[i].next_free = NO_SLOT;
    return i;
}

static void release_slot(tsr__allocator *a, uint32_t i)
{
    a->slots[i].blk = NULL;
    a->slots[i].gen = next_generation(a->slots[i].gen);
    a->slots[i].next_free = a->free_slot;
    a->free_slot = i;
}

static uint64_t handle_of(const tsr__allocator *a, uint32_t i)
{
    return (uint64_t)a->slots[i].gen << 32 | i;
}

static block *find_live(const tsr__allocator *a, uint64_t handle)
{
    uint32_t i = (uint32_t)handle;
    if (i >= a->nslots || a->slots[i].gen != (uint32_t)(handle >> 32))
        return NULL;
    return a->slots[i].blk;
}

static tsr_status invalid_handle(uint64_t handle)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "invalid allocation handle 0x%016" PRIx64
                     " (not allocated by this session, or already freed)",
                     handle);
}

/* ---- stats ------------------------------------------------------------ */

static void raise_peak(uint64_t *peak, uint64_t value)
{
    if (value > *peak)
        *peak = value;
}

/* ---- segments --------------------------------------------------------- */

static void link_segment(tsr__allocator *a, segment *s)
{
    s->prev = a->seg_tail;
    s->next = NULL;
    if (a->seg_tail)
        a->seg_tail->next = s;
    else
        a->seg_head = s;
    a->seg_tail = s;
}

static void unlink_segment(tsr__allocator *a, segment *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        a->seg_head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        a->seg_tail = s->prev;
}

/* Unlinks s, gives it back to the daemon and frees its records; the blocks
 * must already be out of the free trees. */
static void release_segment(tsr__allocator *a, segment *s)
{
    unlink_segment(a, s);
    a->ops.destroy(a->ctx, s->id);
    for (block *b = s->first, *next; b; b = next) {
        next = b->next;
        drop_record(a, b);
    }
    a->stats.reserved -= s->bytes;
    a->stats.segments--;
    a->stats.alone_segments -= s->alone;
    a->stats.segments_released++;
    free(s);
}

uint64_t tsr__allocator_empty_cache(tsr__allocator *a)
{
    uint64_t released = 0;
    if (a == NULL)
        return 0;
    for (segment *s = a->seg_head, *next; s; s = next) {
        next = s->next;
        if (s->live != 0)
            continue;
        /* With no live block, merging has left exactly one free block. */
        assert(s->first->next == NULL && !s->first->live);
        unindex_free(a, s->first);
        released += s->bytes;
        release_segment(a, s);
    }
    return released;
}

/* PyTorch's out-of-memory message; `why` (the segment maker's reason when
 * it is more than a full device, e.g. a configured limit) is appended. */
static tsr_status out_of_memory(tsr__allocator *a, uint64_t tried, const char *why)
{
    char sizes[5][TSR__SIZE_TEXT];
    char free_part[TSR__SIZE_TEXT + 8] = "";
    if (a->device_free)
        snprintf(free_part, sizeof(free_part), "%s free; ",
                 tsr__format_size(sizes[4], sizeof(sizes[4]), a->device_free(a->ctx)));
    a->stats.ooms++;
    return tsr__fail(TSR_ERR_OUT_OF_MEMORY,
                     "%s out of memory. Tried to allocate %s (%s; %s total capacity; %s already "
                     "allocated by this session; %s%s reserved in total by this session)%s%s",
                     a->device_name, tsr__format_size(sizes[0], sizeof(sizes[0]), tried),
                     a->device_name,
                     tsr__format_size(sizes[1], sizeof(sizes[1]),
                                      a->device_total ? a->device_total(a->ctx) : a->capacity),
                     tsr__format_size(sizes[2], sizeof(sizes[2]), a->stats.allocated), free_part,
                     tsr__format_size(sizes[3], sizeof(sizes[3]), a->stats.reserved),
                     why && why[0] ? ": " : "", why ? why : "");
}

/* Creates a segment of `bytes` and returns its single free block (not
 * indexed). Needs one spare record. */
static tsr_status new_segment(tsr__allocator *a, uint64_t bytes, bool small, block **out)
{
    segment *s = malloc(sizeof(*s));
    if (s == NULL)
        return no_memory();
    uint32_t id = 0;
    tsr_status st = a->ops.create(a->ctx, bytes, &id);
    /* Out of memory (the device is full) or past a configured limit
     * (TSR_ERR_LIMIT from the segment maker): what this session caches may
     * be what is missing. Either way the caller sees PyTorch's
     * out-of-memory error, with the limit's own text after it. */
    if ((st == TSR_ERR_OUT_OF_MEMORY || st == TSR_ERR_LIMIT) && tsr__allocator_empty_cache(a) > 0)
        st = a->ops.create(a->ctx, bytes, &id);
    if (st != TSR_OK) {
        free(s);
        if (st == TSR_ERR_LIMIT) {
            char why[TSR__ERROR_MAX];
            snprintf(why, sizeof why, "%s", tsr_last_error());
            return out_of_memory(a, bytes, why);
        }
        return st == TSR_ERR_OUT_OF_MEMORY ? out_of_memory(a, bytes, NULL) : st;
    }
    assert(id != 0);
    *s = (segment){.id = id, .small = small, .bytes = bytes};
    block *b = take_record(a);
    *b = (block){.seg = s, .seg_id = id, .offset = 0, .size = bytes};
    s->first = b;
    link_segment(a, s);
    a->stats.reserved += bytes;
    a->stats.segments++;
    a->stats.segments_created++;
    raise_peak(&a->stats.peak_reserved, a->stats.reserved);
    *out = b;
    return TSR_OK;
}

/* ---- the interface ---------------------------------------------------- */

tsr_status tsr__allocator_create(const tsr__segment_ops *ops, void *ctx,
                                 const tsr__alloc_config *config, tsr__allocator **out)
{
    if (ops == NULL || ops->create == NULL || ops->destroy == NULL || config == NULL ||
        config->device_name == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "allocator: ops (with create and destroy), config, its device_name "
                         "and out must not be NULL");
    tsr__allocator *a = calloc(1, sizeof(*a));
    char *name = strdup(config->device_name);
    if (a == NULL || name == NULL) {
        free(a);
        free(name);
        return no_memory();
    }
    static _Atomic uint64_t instances;
    a->ops = *ops;
    a->ctx = ctx;
    a->device_name = name;
    a->capacity = config->device_capacity;
    a->device_total = config->device_total;
    a->device_free = config->device_free;
    a->max_allocations =
        config->max_allocations ? config->max_allocations : TSR__ALLOC_DEFAULT_MAX_ALLOCATIONS;
    /* Different for every allocator of the process (the counter) and
     * unlikely to repeat across processes (the address, under ASLR). */
    a->seed = mix64(atomic_fetch_add(&instances, 1) ^ mix64((uint64_t)(uintptr_t)a));
    a->free_slot = NO_SLOT;
    *out = a;
    return TSR_OK;
}

void tsr__allocator_destroy(tsr__allocator *a)
{
    if (a == NULL)
        return;
    a->trees[0] = a->trees[1] = NULL; /* every record goes with its segment */
    while (a->seg_head)
        release_segment(a, a->seg_head);
    while (a->spare) {
        block *b = a->spare;
        a->spare = b->next;
        free(b);
    }
    free(a->slots);
    free(a->device_name);
    free(a);
}

static void describe(const tsr__allocator *a, const block *b, bool new_segment, tsr__block_ref *out)
{
    *out = (tsr__block_ref){
        .handle = handle_of(a, b->slot),
        .segment_id = b->seg->id,
        .offset = b->offset,
        .size = b->size,
        .segment_bytes = b->seg->bytes,
        .requested = b->requested,
        .new_segment = new_segment,
        .alone = b->seg->alone,
    };
}

static tsr_status alloc_block(tsr__allocator *a, uint64_t bytes, bool alone, tsr__block_ref *out)
{
    if (a == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr__alloc: allocator and out must not be NULL");
    if (bytes > TSR__ALLOC_MAX_BYTES) {
        char want[TSR__SIZE_TEXT];
        a->stats.ooms++;
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY,
                         "%s out of memory. Tried to allocate %s; the largest allocation "
                         "supported is %" PRIu64 " bytes",
                         a->device_name, tsr__format_size(want, sizeof(want), bytes),
                         TSR__ALLOC_MAX_BYTES);
    }
    uint64_t size = 0;
    bool ok = round_up(bytes ? bytes : 1, TSR__ALLOC_ROUND, &size);
    assert(ok);
    (void)ok;
    if (a->stats.live_blocks >= a->max_allocations)
        return tsr__fail(TSR_ERR_LIMIT, "too many live allocations (%" PRIu32 ")",
                         a->max_allocations);
    if (alone && a->stats.alone_segments >= TSR__ALLOC_MAX_ALONE)
        return tsr__fail(TSR_ERR_LIMIT, "too many allocations alone in their segments (%u)",
                         TSR__ALLOC_MAX_ALONE);
    tsr_status st = reserve_slot(a);
    if (st == TSR_OK)
        st = reserve_records(a, RECORDS_PER_ALLOC);
    if (st != TSR_OK)
        return st;

    bool small = !alone && size <= TSR__ALLOC_SMALL_SIZE;
    block *b = alone ? NULL : tree_best_fit(a->trees[small], size);
    bool created = b == NULL;
    if (alone) {
        ok = round_up(size, TSR__ALLOC_ALONE_ROUND, &size);
        assert(ok);
        if ((st = new_segment(a, size, false, &b)) != TSR_OK)
            return st;
        b->seg->alone = true;
        a->stats.alone_segments++;
    } else if (created) {
        st = new_segment(a, segment_size_for(size, small), small, &b);
        if (st != TSR_OK)
            return st;
    } else {
        unindex_free(a, b);
    }
    uint64_t rest = b->size - size;
    if (!alone && should_split(rest, small)) {
        block *r = take_record(a);
        *r = (block){.seg = b->seg,
                     .seg_id = b->seg_id,
                     .offset = b->offset + size,
                     .size = rest,
                     .prev = b,
                     .next = b->next};
        if (b->next)
            b->next->prev = r;
        b->next = r;
        b->size = size;
        index_free(a, r);
    }
    b->live = true;
    b->requested = bytes;
    b->slot = take_slot(a, b);
    b->seg->live++;
    b->seg->allocated += b->size;

    tsr__alloc_stats *s = &a->stats;
    s->allocated += b->size;
    s->requested += bytes;
    s->live_blocks++;
    s->allocations++;
    s->cache_hits += !created;
    raise_peak(&s->peak_allocated, s->allocated);
    describe(a, b, created, out);
    return TSR_OK;
}

tsr_status tsr__alloc(tsr__allocator *a, uint64_t bytes, tsr__block_ref *out)
{
    return alloc_block(a, bytes, false, out);
}

tsr_status tsr__alloc_alone(tsr__allocator *a, uint64_t bytes, tsr__block_ref *out)
{
    return alloc_block(a, bytes, true, out);
}

tsr_status tsr__alloc_seal(tsr__allocator *a, uint64_t handle, tsr__block_ref *out)
{
    block *b = find_live(a, handle);
    if (b == NULL)
        return invalid_handle(handle);
    segment *s = b->seg;
    if (!s->alone && s->live != 1)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "allocation 0x%016" PRIx64 " shares its segment with %" PRIu32
                         " other live allocations",
                         handle, s->live - 1);
    if (!s->alone && a->stats.alone_segments >= TSR__ALLOC_MAX_ALONE)
        return tsr__fail(TSR_ERR_LIMIT, "too many allocations alone in their segments (%u)",
                         TSR__ALLOC_MAX_ALONE);
    if (!s->alone) {
        for (block *f = s->first; f; f = f->next)
            if (!f->live)
                unindex_free(a, f);
        s->alone = true;
        a->stats.alone_segments++;
    }
    describe(a, b, false, out);
    return TSR_OK;
}

/* Folds `right` into its left neighbour `left`; neither is in a free tree. */
static void join(tsr__allocator *a, block *left, block *right)
{
    left->size += right->size;
    left->next = right->next;
    if (right->next)
        right->next->prev = left;
    drop_record(a, right);
}

tsr_status tsr__free(tsr__allocator *a, uint64_t handle, uint64_t *freed_bytes)
{
    if (a == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr__free: allocator must not be NULL");
    block *b = find_live(a, handle);
    if (b == NULL)
        return invalid_handle(handle);
    uint64_t size = b->size;
    release_slot(a, b->slot);
    b->live = false;
    b->seg->live--;
    b->seg->allocated -= size;
    a->stats.allocated -= size;
    a->stats.requested -= b->requested;
    a->stats.live_blocks--;
    a->stats.frees++;
    if (freed_bytes)
        *freed_bytes = size;
    if (b->seg->alone) { /* never cached: nothing else may ever see its memory */
        release_segment(a, b->seg);
        return TSR_OK;
    }

    block *next = b->next, *prev = b->prev;
    if (next && !next->live) {
        unindex_free(a, next);
        join(a, b, next);
    }
    if (prev && !prev->live) {
        unindex_free(a, prev);
        join(a, prev, b);
        b = prev;
    }
    index_free(a, b);
    return TSR_OK;
}

tsr_status tsr__lookup(const tsr__allocator *a, uint64_t handle, tsr__block_ref *out)
{
    if (a == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tsr__lookup: allocator and out must not be NULL");
    const block *b = find_live(a, handle);
    if (b == NULL)
        return invalid_handle(handle);
    describe(a, b, false, out);
    return TSR_OK;
}

void tsr__allocator_stats(const tsr__allocator *a, tsr__alloc_stats *out)
{
    *out = a->stats;
    out->active = out->allocated;
}

void tsr__allocator_reset_peaks(tsr__allocator *a)
{
    a->stats.peak_allocated = a->stats.allocated;
    a->stats.peak_reserved = a->stats.reserved;
}

size_t tsr__allocator_segments(const tsr__allocator *a, tsr__segment_info *out, size_t cap)
{
    size_t n = 0;
    for (const segment *s = a->seg_head; s; s = s->next, n++) {
        if (n >= cap)
            continue;
        tsr__segment_info info = {.segment_id = s->id,
                                  .bytes = s->bytes,
                                  .small_pool = s->small,
                                  .alone = s->alone,
                                  .allocated = s->allocated,
                                  .live_blocks = s->live};
        for (const block *b = s->first; b; b = b->next) {
            if (b->live)
                continue;
            info.free_blocks++;
            raise_peak(&info.largest_free, b->size);
        }
        out[n] = info;
    }
    return n;
}

/* ---- invariant checker ------------------------------------------------ */

typedef struct check_state {
    const block *last; /* in-order predecessor */
    uint64_t count;
} check_state;

/* Walks one free tree in order; returns the subtree height, or -1 after
 * setting the message. */
static int check_tree(const block *b, bool small, check_state *cs)
{
    if (b == NULL)
        return 0;
    int l = check_tree(b->kid[0], small, cs);
    if (l < 0)
        return -1;
    if (b->live || b->seg->small != small) {
        tsr__fail(TSR_ERR_RUNTIME, "free tree holds a %s block of the other pool or a live one",
                  small ? "small" : "large");
        return -1;
    }
    if (cs->last && !key_less(cs->last, b)) {
        tsr__fail(TSR_ERR_RUNTIME, "free tree out of order at segment %" PRIu32 " offset %" PRIu64,
                  b->seg->id, b->offset);
        return -1;
    }
    cs->last = b;
    cs->count++;
    int r = check_tree(b->kid[1], small, cs);
    if (r < 0)
        return -1;
    if (b->kh[0] != l || b->kh[1] != r || l - r > 1 || r - l > 1) {
        tsr__fail(TSR_ERR_RUNTIME,
                  "free tree unbalanced or height wrong at segment %" PRIu32 " offset %" PRIu64,
                  b->seg->id, b->offset);
        return -1;
    }
    return 1 + (l > r ? l : r);
}

/* Walks one segment's blocks, adding its free blocks to free_count and its
 * live blocks into sums. */
static tsr_status check_segment(const tsr__allocator *a, const segment *s, uint64_t free_count[2],
                                tsr__alloc_stats *sums)
{
    uint64_t end = 0, allocated = 0;
    uint32_t live = 0;
    const block *prev = NULL;
    for (const block *b = s->first; b; prev = b, b = b->next) {
        if (b->seg != s || b->seg_id != s->id || b->prev != prev || b->offset != end ||
            b->size == 0 || b->size % TSR__ALLOC_ROUND != 0)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "segment %" PRIu32 ": block at %" PRIu64 " breaks the tiling", s->id,
                             b->offset);
        if (prev && !prev->live && !b->live)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "segment %" PRIu32 ": free blocks at %" PRIu64 " and %" PRIu64
                             " are not merged",
                             s->id, prev->offset, b->offset);
        end += b->size;
        if (!b->live) {
            free_count[s->small] += !s->alone; /* a sealed segment's are not indexed */
            continue;
        }
        if (b->slot >= a->nslots || a->slots[b->slot].blk != b)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "segment %" PRIu32 ": live block at %" PRIu64 " has no slot", s->id,
                             b->offset);
        live++;
        allocated += b->size;
        sums->requested += b->requested;
    }
    if (s->alone && live != 1)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "segment %" PRIu32 ": alone, with %" PRIu32 " live blocks", s->id, live);
    if (end != s->bytes || live != s->live || allocated != s->allocated)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "segment %" PRIu32 ": blocks cover %" PRIu64 " of %" PRIu64
                         " bytes, %" PRIu32 " live (recorded %" PRIu32 ")",
                         s->id, end, s->bytes, live, s->live);
    sums->allocated += allocated;
    sums->live_blocks += live;
    sums->reserved += s->bytes;
    sums->segments++;
    sums->alone_segments += s->alone;
    return TSR_OK;
}

tsr_status tsr__allocator_check(const tsr__allocator *a)
{
    tsr__alloc_stats sums = {0};
    uint64_t free_count[2] = {0, 0};
    for (const segment *s = a->seg_head; s; s = s->next) {
        if (s->next ? s->next->prev != s : a->seg_tail != s)
            return tsr__fail(TSR_ERR_RUNTIME, "segment list broken at %" PRIu32, s->id);
        tsr_status st = check_segment(a, s, free_count, &sums);
        if (st != TSR_OK)
            return st;
    }
    for (int small = 0; small < 2; small++) {
        check_state cs = {NULL, 0};
        if (check_tree(a->trees[small], small, &cs) < 0)
            return TSR_ERR_RUNTIME;
        if (cs.count != free_count[small])
            return tsr__fail(TSR_ERR_RUNTIME,
                             "%s pool: %" PRIu64 " blocks indexed, %" PRIu64 " free",
                             small ? "small" : "large", cs.count, free_count[small]);
    }
    uint32_t used = 0, unused = 0;
    for (uint32_t i = 0; i < a->nslots; i++)
        used += a->slots[i].blk != NULL;
    for (uint32_t i = a->free_slot; i != NO_SLOT && unused <= a->nslots; i = a->slots[i].next_free)
        unused++;
    if (used != sums.live_blocks || used + unused != a->nslots)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "handle table: %" PRIu32 " used + %" PRIu32 " free of %" PRIu32
                         " slots, %" PRIu32 " live blocks",
                         used, unused, a->nslots, sums.live_blocks);
    const tsr__alloc_stats *s = &a->stats;
    if (s->allocated != sums.allocated || s->reserved != sums.reserved ||
        s->requested != sums.requested || s->segments != sums.segments ||
        s->live_blocks != sums.live_blocks || s->alone_segments != sums.alone_segments ||
        s->peak_allocated < s->allocated || s->peak_reserved < s->reserved)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "stats differ from the blocks: allocated %" PRIu64 "/%" PRIu64
                         ", reserved %" PRIu64 "/%" PRIu64 ", requested %" PRIu64 "/%" PRIu64
                         ", segments %" PRIu32 "/%" PRIu32 ", live %" PRIu32 "/%" PRIu32,
                         s->allocated, sums.allocated, s->reserved, sums.reserved, s->requested,
                         sums.requested, s->segments, sums.segments, s->live_blocks,
                         sums.live_blocks);
    return TSR_OK;
}
