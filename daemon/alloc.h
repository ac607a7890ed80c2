/* The daemon's caching sub-allocator: one instance per (session, device).
 *
 * It carves client allocations ("blocks") out of shared-memory segments
 * that the daemon creates and destroys through tsr__segment_ops; it never
 * does I/O itself. Freed blocks stay cached in their segment for reuse, as
 * in PyTorch's CUDA caching allocator:
 *   - requests are rounded up to a multiple of 512 bytes (0 bytes → 512);
 *   - a rounded size ≤ 1 MiB is "small" and comes from 2 MiB segments; a
 *     larger one comes from a 20 MiB segment when below 10 MiB, else from a
 *     segment of its size rounded up to 2 MiB;
 *   - a request takes the best-fitting cached free block of its pool
 *     (smallest size ≥ request, ties to the lowest (segment id, offset)),
 *     split when the rest is ≥ 512 bytes (small pool) or > 1 MiB (large);
 *   - a freed block merges with free neighbours of its segment;
 *   - an "alone" request (tsr__alloc_alone) gets a segment of its own, its
 *     rounded size rounded up again to TSR__ALLOC_ALONE_ROUND, wholly its
 *     block's: nothing else is ever carved from it, and freeing the block
 *     destroys it (what an export needs: its memfd shows the block only,
 *     then and later); tsr__alloc_seal makes a live block alone in the
 *     segment it has when no other live block is there, its free
 *     neighbours taken out of use for good;
 *   - when nothing fits, a segment is created; if the daemon refuses with
 *     TSR_ERR_OUT_OF_MEMORY, the fully-free cached segments are released and
 *     the creation retried once (only when something was released: with
 *     nothing given back the retry would ask for the same thing again).
 *
 * Invariants (checked by tsr__allocator_check): the blocks of a segment tile
 * it exactly in address order; no two neighbouring blocks are both free;
 * an alone segment holds one live block, and its free blocks (a sealed
 * segment's, below) are in no index;
 * every free block is in its pool's index and no live one is; every live
 * block owns one handle slot; the stats equal sums over blocks and segments.
 *
 * Not thread-safe: the daemon serialises the calls on one allocator. */
#ifndef TESSERA_DAEMON_ALLOC_H
#define TESSERA_DAEMON_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/status.h"

/* Block offsets and sizes are multiples of this. */
#define TSR__ALLOC_ROUND UINT64_C(512)
/* Largest rounded size served from the small pool. */
#define TSR__ALLOC_SMALL_SIZE (UINT64_C(1) << 20)
/* Segment size of the small pool. */
#define TSR__ALLOC_SMALL_SEGMENT (UINT64_C(2) << 20)
/* Large requests below TSR__ALLOC_MIN_LARGE share a segment of this size. */
#define TSR__ALLOC_LARGE_SEGMENT (UINT64_C(20) << 20)
#define TSR__ALLOC_MIN_LARGE (UINT64_C(10) << 20)
/* Larger requests get a segment of their size rounded up to this. */
#define TSR__ALLOC_ROUND_LARGE (UINT64_C(2) << 20)
/* Alone segments are a whole number of pages, and at most this many live
 * in one allocator: each is a descriptor and a mapping of the daemon's,
 * however small. */
#define TSR__ALLOC_ALONE_ROUND UINT64_C(4096)
#define TSR__ALLOC_MAX_ALONE 4096u
/* The largest request accepted (256 TiB); anything bigger is refused
 * before any size arithmetic. */
#define TSR__ALLOC_MAX_BYTES (UINT64_C(1) << 48)
/* The handle-table bound when the configuration gives 0. */
#define TSR__ALLOC_DEFAULT_MAX_ALLOCATIONS (UINT32_C(1) << 20)

typedef struct tsr__segment_ops {
    /* Create a segment of exactly `bytes` bytes and write its id (nonzero,
     * unique among this allocator's live segments, chosen by the daemon).
     * May fail (TSR_ERR_OUT_OF_MEMORY when the device is full,
     * TSR_ERR_LIMIT when a configured limit would be passed), with the
     * thread's message already set; after either, the allocator releases
     * its unused segments and tries once more, then reports PyTorch's
     * out-of-memory error (a limit's message appended to it). */
    tsr_status (*create)(void *ctx, uint64_t bytes, uint32_t *segment_id);
    /* Never fails. */
    void (*destroy)(void *ctx, uint32_t segment_id);
} tsr__segment_ops;

typedef struct tsr__alloc_config {
    const char *device_name;             /* "opencl:0", for messages; copied */
    uint64_t device_capacity;            /* total bytes of the device, for the OOM message */
    uint64_t (*device_free)(void *ctx);  /* bytes the session could still get on the device,
                                           for the OOM message; may be NULL */
    uint32_t max_allocations;            /* live-allocation bound; 0 → the default */
    uint64_t (*device_total)(void *ctx); /* the device's total as the session is told it (its
                                            limits may make it less than device_capacity),
                                            for the OOM message; NULL: device_capacity */
} tsr__alloc_config;

/* What the client is told about an allocation. */
typedef struct tsr__block_ref {
    uint64_t handle; /* nonzero; (generation << 32 | slot), see tsr__free */
    uint32_t segment_id;
    uint64_t offset;        /* within the segment, a multiple of 512 */
    uint64_t size;          /* bytes reserved for the caller: the rounded request, or
                               more when the rest of a large block was too small to split */
    uint64_t segment_bytes; /* size of that segment */
    uint64_t requested;     /* the caller's request, unrounded: the bytes it uses */
    bool new_segment;       /* this call created the segment (the client must map it) */
    bool alone;             /* the segment is the block's alone (tsr__alloc_alone, or sealed
                               by tsr__alloc_seal) */
} tsr__block_ref;

typedef struct tsr__alloc_stats {
    /* Bytes. allocated: sum of the sizes (tsr__block_ref.size) of live
     * blocks. active: the same number; PyTorch tells the two apart only for
     * blocks freed while a stream still uses them, and there are no streams
     * here. reserved: sum of segment sizes. requested: sum of the sizes the
     * callers asked for, unrounded, over live blocks. peak_*: maxima since
     * creation or tsr__allocator_reset_peaks. */
    uint64_t allocated, reserved, active, peak_allocated, peak_reserved;
    uint64_t requested;
    /* Counters since creation. allocations/frees: successful calls;
     * cache_hits: allocations served without creating a segment;
     * segments_created/segments_released: successful create/destroy calls;
     * ooms: allocations refused for lack of device memory (the daemon's
     * refusal after the retry, or a request above TSR__ALLOC_MAX_BYTES);
     * a failed malloc of bookkeeping is not counted. */
    uint64_t allocations, frees, cache_hits, segments_created, segments_released, ooms;
    uint32_t segments, live_blocks; /* current counts */
    uint32_t alone_segments;        /* of the segments, those alone (made or sealed so) */
} tsr__alloc_stats;

/* One segment as tsr__allocator_segments reports it. */
typedef struct tsr__segment_info {
    uint32_t segment_id;
    uint64_t bytes;
    bool small_pool;
    bool alone;         /* made by tsr__alloc_alone, or sealed (its free blocks then
                           out of use for good) */
    uint64_t allocated; /* bytes of live blocks in it */
    uint32_t live_blocks;
    uint32_t free_blocks;  /* cached free blocks in it */
    uint64_t largest_free; /* largest of those, 0 when none */
} tsr__segment_info;

typedef struct tsr__allocator tsr__allocator;

/* ops (create and destroy), config and out must not be NULL, nor
 * config->device_name. `ctx` is passed to the callbacks and device_free. */
tsr_status tsr__allocator_create(const tsr__segment_ops *ops, void *ctx,
                                 const tsr__alloc_config *config, tsr__allocator **out);

/* Destroys every segment, live blocks included (the session ended), and frees
 * the allocator. NULL is accepted. */
void tsr__allocator_destroy(tsr__allocator *a);

/* Reserves `bytes` (see the rules above). Errors, state unchanged except
 * that an OOM may have released fully-free segments first:
 *   TSR_ERR_OUT_OF_MEMORY for a request above TSR__ALLOC_MAX_BYTES:
 *     "<device> out of memory. Tried to allocate <S>; the largest allocation
 *     supported is 281474976710656 bytes" with <S> in tsr__format_size's
 *     form;
 *   TSR_ERR_OUT_OF_MEMORY when the daemon refuses the segment even after the
 *     cache is released:
 *     "<device> out of memory. Tried to allocate <A> (<device>; <C> total
 *     capacity; <L> already allocated by this session; <F> free; <R>
 *     reserved in total by this session)"
 *     where <A> is the size of the segment that was refused (as PyTorch
 *     reports the size it asked the driver for, not the request), <C> the
 *     configured capacity, <L> stats.allocated, <F> device_free(ctx) (the
 *     "<F> free; " part is left out when device_free is NULL) and <R>
 *     stats.reserved, all after the release, each in tsr__format_size's
 *     form. Example: "opencl:0 out of memory. Tried to allocate 20.00 MiB
 *     (opencl:0; 24.00 MiB total capacity; 17.00 MiB already allocated by
 *     this session; 6.00 MiB free; 18.00 MiB reserved in total by this
 *     session)";
 *   any other failure of ops->create, unchanged (its status and message);
 *   TSR_ERR_LIMIT "too many live allocations (<max_allocations>)";
 *   TSR_ERR_OUT_OF_MEMORY "out of memory for allocator bookkeeping" when
 *     malloc fails. */
tsr_status tsr__alloc(tsr__allocator *a, uint64_t bytes, tsr__block_ref *out);

/* The same, in a new segment of the block's own (see the rules above): no
 * cached block serves it, and tsr__free of it destroys the segment. Its
 * size is the segment's. The same errors, the out-of-memory one naming
 * the segment's size, and TSR_ERR_LIMIT "too many allocations alone in
 * their segments (4096)" past TSR__ALLOC_MAX_ALONE. */
tsr_status tsr__alloc_alone(tsr__allocator *a, uint64_t bytes, tsr__block_ref *out);

/* Makes the live block `handle` alone in its segment (see the rules
 * above) and describes it; nothing to do when it is already. The caller
 * clears the memory around what it uses ([0, offset) and [offset +
 * requested, segment_bytes)): it was other blocks' and an importer may
 * see it. The segment's free blocks stay reserved until the block goes.
 * Errors: tsr__free's for a handle not live; TSR_ERR_RUNTIME
 * "allocation 0x<handle> shares its segment with N other live
 * allocations"; tsr__alloc_alone's TSR_ERR_LIMIT past
 * TSR__ALLOC_MAX_ALONE; nothing changes. */
tsr_status tsr__alloc_seal(tsr__allocator *a, uint64_t handle, tsr__block_ref *out);

/* Frees a live block; writes its size to *freed_bytes (NULL allowed). An
 * alone block's segment is destroyed with it (ops->destroy). A
 * handle that is not live in this allocator (never issued, from another
 * allocator, already freed) is refused in O(1) with TSR_ERR_INVALID_ARGUMENT
 * "invalid allocation handle 0x<16 hex digits> (not allocated by this
 * session, or already freed)" and nothing changes. Each slot's generation
 * starts at a per-allocator pseudo-random value and steps on every free, so
 * a freed handle comes back only after 2^32 reuses of its slot. */
tsr_status tsr__free(tsr__allocator *a, uint64_t handle, uint64_t *freed_bytes);

/* Describes a live block (new_segment is false), with tsr__free's error. */
tsr_status tsr__lookup(const tsr__allocator *a, uint64_t handle, tsr__block_ref *out);

/* Destroys every segment with no live block; returns the bytes released. */
uint64_t tsr__allocator_empty_cache(tsr__allocator *a);

void tsr__allocator_stats(const tsr__allocator *a, tsr__alloc_stats *out);

/* Sets the peaks to the current values. */
void tsr__allocator_reset_peaks(tsr__allocator *a);

/* Writes up to `cap` segments, oldest first, to out (NULL when cap is 0) and
 * returns how many segments there are. */
size_t tsr__allocator_segments(const tsr__allocator *a, tsr__segment_info *out, size_t cap);

/* Checks every invariant listed at the top; O(blocks + slots). TSR_OK, or
 * TSR_ERR_RUNTIME naming the first broken one. For tests and debugging. */
tsr_status tsr__allocator_check(const tsr__allocator *a);

/* PyTorch's format_size into buf (cut to fit) and returns buf:
 * "<n> bytes" up to 1024, then "%.2f KiB" up to 1 MiB, "%.2f MiB" up to
 * 1 GiB, "%.2f GiB" above (so 1048576 is "1024.00 KiB"). */
#define TSR__SIZE_TEXT 32
const char *tsr__format_size(char *buf, size_t n, uint64_t bytes);

#endif /* TESSERA_DAEMON_ALLOC_H */
