/* Fuzz target: the daemon's request handling, behind the frame checks.
 *
 * Process-wide servers run detached (tsr__server_init_detached: no socket,
 * no discovery), one per entry of configs[], each over a registry made
 * here: cpu, two OpenCL devices (the second without fp64) and meta, with
 * kernels disabled (found.trusted false: LAUNCH and GEMM are checked in
 * full, then refused with their clear error, as no OpenCL runtime is
 * started). The
 * input's first byte picks the server; its configuration sets the memory
 * limits, the session caps and the per-session bounds small enough for a
 * short input to reach each of them. With TESSERA_FUZZ_DISCOVER=1 in the
 * environment the registries come from real discovery instead (PoCL where
 * it is installed), still with kernels disabled; inputs then replay
 * differently from machine to machine. TESSERA_FUZZ_TRACE=1 prints each
 * message and its outcome. Users and groups are fake_users.c's.
 *
 * The rest of the input is a sequence of messages to up to eight session
 * slots (several of one uid, of one group, and two administrators),
 * decoded structure-aware: sizes near the allocator's boundaries and the
 * caps, handles and segments mostly among those the daemon returned,
 * regions near the edges of their block or tiling it exactly, kernels over
 * live blocks. A slot's first message connects it, admitted or refused as
 * a connection is (tsr__server_open_detached). Each message goes through
 * tsr__session_serve_frame, the entry point of the socket and the ring,
 * over the transport the input picks; a session the daemon ends is ended
 * as the server would end it.
 *
 * After every message:
 *   - every reply passes the client's frame check;
 *   - a connection was refused exactly when the caps say so, and the
 *     server's count of sessions and handshakes per uid is the slots',
 *     within sessions.max, the per-uid caps and the administrators'
 *     reserve;
 *   - each allocator passes tsr__allocator_check, and every block the
 *     daemon handed out is still where it said, inside its segment and
 *     overlapping no other; what it counts as allocated is those blocks,
 *     no more than the server's bound on live allocations; no session
 *     holds more segments or client threads than its bounds;
 *   - each device's reserved bytes are the sum of the sessions' segments,
 *     within its capacity; the limits charged to each session, uid and
 *     group equal what those sessions reserve, within their limits;
 *   - the canaries hold: up to CANARY bytes on either side of each block,
 *     where no other block lies (nor one its session freed while imports
 *     still hold it), are painted when the block is handed out and must
 *     be untouched (no write outside a block).
 * EXPORT, IMPORT and REVOKE share blocks between the slots: keys come
 * mostly from EXPORT replies, sometimes with a bit flipped. An import
 * holds its exporter, which then may outlive its slot (ending): its
 * memory stays on the device and on its uid's and group's account, and
 * a block it freed while imported stays allocated until the last import
 * goes.
 * When the input ends every session ends, and nothing may stay reserved,
 * charged or counted. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/region.h"
#include "daemon/alloc.h"
#include "daemon/limits.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/server.h"
#include "daemon/session.h"
#include "fake_users.h"
#include "kernels/launch.h"
#include "fuzz.h"

#define SESSIONS 8
#define LIVE_MAX 2048 /* more than an input of 4096 bytes can allocate */
#define GUARDS_MAX 16384
#define CANARY 1024u
#define CANARY_BYTE 0xa5u

/* Checks and bookkeeping stay out of the coverage that steers libFuzzer:
 * they take the same branches whatever the daemon did, and their
 * comparisons were a third of the run time. */
#if defined(__clang__)
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

/* The session slots' peers: three sessions of uid 1000 and two of 1001,
 * each with a group of its own; 1002 shares 1000's group; root, and 1003
 * of tessera-admin (fake_users.c), both administrators, who may go beyond
 * the session caps. */
static const struct ucred peers[SESSIONS] = {
    {.uid = 1000, .gid = 100}, {.uid = 1000, .gid = 100},           {.uid = 1001, .gid = 101},
    {.uid = 1000, .gid = 100}, {.uid = 1002, .gid = 100},           {.uid = 1001, .gid = 101},
    {.uid = 0, .gid = 0},      {.uid = 1003, .gid = FAKE_ADMIN_GID}};

static bool peer_admin(int k)
{
    return peers[k].uid == 0 || peers[k].gid == FAKE_ADMIN_GID;
}

/* The daemon configurations an input chooses among with its first byte,
 * each a detached server of its own. 0 is the one inputs had before there
 * was a choice; the others bring a cap within reach of a short input:
 * the session caps (sessions.max and the per-uid ones), limits smaller
 * than a segment, a device that fills up before any limit, and the
 * per-session bounds on segments, client threads and live allocations,
 * and the per-uid and daemon-wide ones on segments, lowered (0 keeps the
 * daemon's own). */
typedef struct fuzz_config {
    uint32_t device_mib[2]; /* the two OpenCL devices; the second has no fp64 */
    const char *keys[8][2]; /* configuration keys and values, up to a NULL key */
    uint32_t max_segments, max_threads, max_allocations;
    uint32_t uid_segments, daemon_segments; /* the segments of one uid's sessions, of all */
} fuzz_config;

static const fuzz_config configs[] = {
    {{64, 16},
     {{"memory_limit.session", "24MiB"},
      {"memory_limit.uid_default", "40MiB"},
      {"devices.visible", "1,0"}},
     0,
     0,
     0,
     5,
     7},
    {{8, 4},
     {{"sessions.max", "4"},
      {"sessions.max_per_uid", "2"},
      {"sessions.max_handshakes_per_uid", "1"},
      {"memory_limit.session", "6MiB"}},
     0,
     4,
     32,
     0,
     0},
    {{8, 3},
     {{"memory_limit.daemon", "6MiB"},
      {"memory_limit.session", "40%"},
      {"memory_limit.uid_default", "4MiB"},
      {"memory_limit.uid.1001", "5MiB"},
      {"memory_limit.group.100", "5MiB"},
      {"devices.visible", "1,0"}},
     3,
     3,
     16,
     0,
     0},
    {{8, 2}, {{"sessions.max", "6"}, {"sessions.max_per_uid", "3"}}, 0, 0, 48, 0, 0},
    {{24, 24},
     {{"memory_limit.group.101", "8MiB"},
      {"memory_limit.uid.0", "2MiB"},
      {"sessions.max_handshakes_per_uid", "2"}},
     6,
     6,
     40,
     8,
     10},
    {{16, 16},
     {{"sessions.max", "1"}, {"sessions.max_per_uid", "1"}, {"devices.visible", "1"}},
     2,
     2,
     8,
     0,
     0},
};
#define CONFIGS (sizeof configs / sizeof configs[0])

typedef struct live_block {
    int session;
    uint64_t handle;
    uint32_t segment;
    uint64_t offset, size, segment_bytes;
} live_block;

typedef struct guard {
    int session;
    uint32_t segment;
    uint64_t start, end;
} guard;

static tsr__server servers[CONFIGS];
static bool servers_up;
static tsr__server *server; /* the one this input chose */
static tsr__session *sessions[SESSIONS];
static live_block live[LIVE_MAX];
static size_t live_count;
/* Blocks their session freed while imports held them: the daemon keeps
 * them allocated until the last import goes (tsr__memory_defer_shared),
 * and an importer may still write them, so no canary goes over them. */
static live_block held[LIVE_MAX];
static size_t held_count;
static guard guards[GUARDS_MAX];
static size_t guard_count;
static uint64_t freed_handles[16];  /* recently freed, to be sent again */
static tsr__wire_share_key keys[8]; /* from EXPORT replies, to import and revoke */
static size_t key_count;
/* Handles below 2^32 the daemon gave (imports, host blocks), newest first. */
static uint64_t imported[8];
static size_t imported_count;
static uint64_t request_id;
/* The elements FILLs may still write in this input. Without kernels the
 * daemon writes a fill an element at a time on the loop (with the
 * sanitizers, some 10 ns each): the runs drifted towards inputs that
 * filled whole blocks of many MiB, which then took most of the time. A
 * fill that would write more than is left is not sent; a refused one
 * (a region past its block by one element or one row, repeated elements:
 * the hang-fill-stride0 kind) always is, and a whole block of 1 MiB still
 * fills byte by byte, one of 16 MiB in 16-byte elements. */
#define FILL_BUDGET (INT64_C(1) << 20)
static int64_t fill_budget;
static bool trace; /* TESSERA_FUZZ_TRACE=1: each message and its outcome on stderr */

/* ---- the servers ---------------------------------------------------------- */

static void fake_opencl(tsr__registry_device *d, int32_t index, uint64_t mib, bool fp64)
{
    memset(d, 0, sizeof *d);
    d->info.device = (tsr__wire_device){.type = TSR_DEVICE_OPENCL, .index = index};
    d->info.memory_bytes = d->capacity = mib << 20;
    d->info.compute_units = 2;
    d->info.max_work_group_size = 256;
    d->info.fp16 = 1;
    d->info.fp64 = fp64;
    d->info.host_unified_memory = 1;
    d->info.numa_node = -1;
    tsr__wire_text_set(d->info.name, sizeof d->info.name, "fuzz device");
    tsr__wire_text_set(d->info.vendor, sizeof d->info.vendor, "tessera");
    d->backend = tsr__backends[0];
    d->backend_index = (uint32_t)index;
    d->desc.memory_bytes = d->capacity;
    d->desc.host_unified_memory = true;
}

static void fake_host(tsr__registry_device *d, tsr_device_type type)
{
    memset(d, 0, sizeof *d);
    d->info.device = (tsr__wire_device){.type = type, .index = -1};
    d->info.numa_node = -1;
    d->info.host_unified_memory = 1;
    tsr__wire_text_set(d->info.name, sizeof d->info.name, type == TSR_DEVICE_CPU ? "host" : "meta");
}

static tsr_status make_registry(const fuzz_config *c, tsr__registry *reg)
{
    const char *discover = getenv("TESSERA_FUZZ_DISCOVER");
    if (discover && strcmp(discover, "1") == 0) {
        tsr__registry_options ro = {.memory_limit = (uint64_t)c->device_mib[0] << 20};
        tsr_status st = tsr__registry_build(&ro, reg);
        reg->found.trusted = false;
        return st;
    }
    size_t count = 4;
    tsr__registry_device *devices = calloc(count, sizeof *devices);
    if (!devices)
        abort();
    fake_host(&devices[0], TSR_DEVICE_CPU);
    fake_opencl(&devices[1], 0, c->device_mib[0], true);
    fake_opencl(&devices[2], 1, c->device_mib[1], false);
    fake_host(&devices[3], TSR_DEVICE_META);
    *reg = (tsr__registry){.devices = devices,
                           .count = count,
                           .accel_count = 2,
                           .accel_type = TSR_DEVICE_OPENCL,
                           .backend = tsr__backends[0],
                           .found = {.trusted = false}};
    return TSR_OK;
}

static void server_start(tsr__server *srv, const fuzz_config *c)
{
    tsr__config cfg;
    FUZZ_CHECK(tsr__config_init(&cfg, NULL) == TSR_OK);
    FUZZ_CHECK(tsr__config_set(&cfg, "fuzz", "log.level", "warning", NULL) == TSR_OK);
    tsr__registry reg;
    FUZZ_CHECK(make_registry(c, &reg) == TSR_OK);
    for (size_t i = 0; i < 8 && c->keys[i][0]; i++) {
        /* Discovery may find fewer devices than the list names. */
        if (strcmp(c->keys[i][0], "devices.visible") == 0 && reg.accel_count < 2)
            continue;
        FUZZ_CHECK(tsr__config_set(&cfg, "fuzz", c->keys[i][0], c->keys[i][1], NULL) == TSR_OK);
    }
    tsr__server_options options = {.config = &cfg};
    FUZZ_CHECK(tsr__server_init_detached(srv, &options, &reg) == TSR_OK);
    tsr__config_free(&cfg);
    if (c->max_segments)
        srv->session_max_segments = c->max_segments;
    if (c->uid_segments)
        srv->uid_max_segments = c->uid_segments;
    if (c->daemon_segments)
        srv->daemon_max_segments = c->daemon_segments;
    if (c->max_threads)
        srv->session_max_threads = c->max_threads;
    if (c->max_allocations)
        srv->session_max_allocations = c->max_allocations;
}

/* ---- the harness's view of what the daemon handed out -------------------- */

NO_COVERAGE static void forget_session(int k)
{
    size_t n = 0;
    for (size_t i = 0; i < live_count; i++)
        if (live[i].session != k)
            live[n++] = live[i];
    live_count = n;
    n = 0;
    for (size_t i = 0; i < held_count; i++)
        if (held[i].session != k)
            held[n++] = held[i];
    held_count = n;
    n = 0;
    for (size_t i = 0; i < guard_count; i++)
        if (guards[i].session != k)
            guards[n++] = guards[i];
    guard_count = n;
}

static void end_session(int k, const char *why)
{
    tsr__session_end(sessions[k], why);
    sessions[k] = NULL;
    forget_session(k);
}

static uint8_t *segment_base(int k, uint32_t id, uint64_t *bytes)
{
    tsr__segment *seg = tsr__session_segment(sessions[k], id);
    if (!seg)
        return NULL;
    *bytes = seg->bytes;
    return seg->base;
}

/* Whether the daemon still holds block b, freed while imported, where it
 * was: false once the last import let it go. */
NO_COVERAGE static bool still_held(const live_block *b)
{
    tsr__block_ref ref;
    return sessions[b->session] && tsr__session_find_block(sessions[b->session], b->handle, &ref) &&
           ref.segment_id == b->segment && ref.offset == b->offset && ref.size == b->size;
}

/* Forgets the held blocks the daemon has let go. */
NO_COVERAGE static void prune_held(void)
{
    for (size_t i = 0; i < held_count;)
        if (still_held(&held[i]))
            i++;
        else
            held[i] = held[--held_count];
}

NO_COVERAGE static bool meets(const live_block *b, int k, uint32_t segment, uint64_t start,
                              uint64_t end)
{
    return b->session == k && b->segment == segment && b->offset < end &&
           start < b->offset + b->size;
}

/* Whether [start, end) of a segment meets a live block, or one imports
 * still hold. */
NO_COVERAGE static bool meets_block(int k, uint32_t segment, uint64_t start, uint64_t end)
{
    for (size_t i = 0; i < live_count; i++)
        if (meets(&live[i], k, segment, start, end))
            return true;
    prune_held();
    for (size_t i = 0; i < held_count; i++)
        if (meets(&held[i], k, segment, start, end))
            return true;
    return false;
}

NO_COVERAGE static void add_guard(int k, uint32_t segment, uint64_t start, uint64_t end)
{
    uint64_t bytes;
    uint8_t *base = segment_base(k, segment, &bytes);
    if (!base || start >= end || guard_count == GUARDS_MAX || meets_block(k, segment, start, end))
        return;
    memset(base + start, CANARY_BYTE, end - start);
    guards[guard_count++] = (guard){.session = k, .segment = segment, .start = start, .end = end};
}

/* A block was handed out: guards it overlaps lose those bytes (a guard
 * never lies inside a block), and canaries go on both sides of it. */
NO_COVERAGE static void block_added(const live_block *b)
{
    for (size_t i = 0; i < guard_count;) {
        guard *g = &guards[i];
        if (g->session != b->session || g->segment != b->segment || g->end <= b->offset ||
            b->offset + b->size <= g->start) {
            i++;
            continue;
        }
        guard rest = *g;
        *g = guards[--guard_count];
        if (rest.start < b->offset && guard_count < GUARDS_MAX)
            guards[guard_count++] = (guard){rest.session, rest.segment, rest.start, b->offset};
        if (b->offset + b->size < rest.end && guard_count < GUARDS_MAX)
            guards[guard_count++] =
                (guard){rest.session, rest.segment, b->offset + b->size, rest.end};
    }
    uint64_t before = b->offset > CANARY ? b->offset - CANARY : 0;
    uint64_t after = b->offset + b->size + CANARY;
    if (after > b->segment_bytes)
        after = b->segment_bytes;
    /* Only bytes that no other block holds. */
    for (uint64_t at = before; at < b->offset; at += TSR__ALLOC_ROUND)
        add_guard(b->session, b->segment, at, at + TSR__ALLOC_ROUND);
    for (uint64_t at = b->offset + b->size; at < after; at += TSR__ALLOC_ROUND)
        add_guard(b->session, b->segment, at,
                  at + TSR__ALLOC_ROUND < after ? at + TSR__ALLOC_ROUND : after);
}

/* An export seals its block alone in its segment and clears the rest of
 * it: the canaries there go. */
NO_COVERAGE static void drop_guards(int session, uint32_t segment)
{
    for (size_t i = 0; i < guard_count;)
        if (guards[i].session == session && guards[i].segment == segment)
            guards[i] = guards[--guard_count];
        else
            i++;
}

NO_COVERAGE static void check_guards(void)
{
    static uint8_t canary[TSR__ALLOC_ROUND]; /* a guard is at most this long */
    if (!canary[0])
        memset(canary, CANARY_BYTE, sizeof canary);
    for (size_t i = 0; i < guard_count;) {
        const guard *g = &guards[i];
        uint64_t bytes;
        const uint8_t *base = segment_base(g->session, g->segment, &bytes);
        if (!base) { /* the segment was released: its guards go with it */
            guards[i] = guards[--guard_count];
            continue;
        }
        FUZZ_CHECK(g->end <= bytes && g->end - g->start <= sizeof canary);
        if (memcmp(base + g->start, canary, g->end - g->start) != 0)
            for (uint64_t at = g->start; at < g->end; at++)
                if (base[at] != CANARY_BYTE) {
                    fprintf(stderr, "canary of session %d segment %u overwritten at byte %llu\n",
                            g->session, (unsigned)g->segment, (unsigned long long)at);
                    FUZZ_CHECK(base[at] == CANARY_BYTE);
                }
        i++;
    }
}

/* ---- invariants -------------------------------------------------------- */

/* A memory limit of the server's configuration in bytes on opencl:d
 * (UINT64_MAX: none). */
static uint64_t limit_of(const tsr__server *srv, size_t d, tsr__limit_scope scope, uint32_t id)
{
    const tsr__config *cfg = srv->config;
    tsr__limit limit = {TSR__LIMIT_NONE, 0};
    const tsr__config_id_limit *entry = NULL;
    if (scope == TSR__SCOPE_SESSION)
        limit = cfg->v[TSR__CONF_MEMORY_SESSION].limit;
    else if (scope == TSR__SCOPE_UID)
        limit = (entry = tsr__config_uid_limit(cfg, id))
                    ? entry->limit
                    : cfg->v[TSR__CONF_MEMORY_UID_DEFAULT].limit;
    else if ((entry = tsr__config_group_limit(cfg, id)))
        limit = entry->limit;
    return tsr__limit_bytes(limit, srv->device_total[d]);
}

/* The limits of each server's configuration, worked out once: per
 * device, the session's, and each slot's uid's and group's. */
typedef struct slot_limits {
    uint64_t session, uid[SESSIONS], gid[SESSIONS];
} slot_limits;
static slot_limits limits_of[CONFIGS][2];

static void note_limits(size_t i)
{
    for (size_t d = 0; d < servers[i].registry.accel_count && d < 2; d++) {
        slot_limits *l = &limits_of[i][d];
        l->session = limit_of(&servers[i], d, TSR__SCOPE_SESSION, 0);
        for (int k = 0; k < SESSIONS; k++) {
            l->uid[k] = limit_of(&servers[i], d, TSR__SCOPE_UID, peers[k].uid);
            l->gid[k] = limit_of(&servers[i], d, TSR__SCOPE_GROUP, peers[k].gid);
        }
    }
}

static const slot_limits *limits_now(size_t d)
{
    return &limits_of[server - servers][d < 2 ? d : 1];
}

static void servers_start(void)
{
    if (servers_up)
        return;
    for (size_t i = 0; i < CONFIGS; i++) {
        server_start(&servers[i], &configs[i]);
        note_limits(i);
    }
    const char *t = getenv("TESSERA_FUZZ_TRACE");
    trace = t && strcmp(t, "1") == 0;
    servers_up = true;
}

/* What session k's allocator on opencl:d reserves (0 before its first
 * allocation there). */
NO_COVERAGE static uint64_t session_reserved(int k, size_t d)
{
    tsr__session *s = sessions[k];
    if (!s || !s->devices || !s->devices[d].pool.allocator)
        return 0;
    tsr__alloc_stats a;
    tsr__allocator_stats(s->devices[d].pool.allocator, &a);
    return a.reserved;
}

/* One session's allocator on opencl:d against the blocks it handed out
 * and the segments behind them. */
NO_COVERAGE static void check_pool(int k, size_t d)
{
    tsr__session *s = sessions[k];
    uint64_t reserved = 0, segments = 0;
    tsr__device_pool *pool = s->devices ? &s->devices[d].pool : NULL;
    if (pool && pool->allocator) {
        tsr_status st = tsr__allocator_check(pool->allocator);
        if (st != TSR_OK)
            fprintf(stderr, "allocator of session %d on opencl:%zu: %s\n", k, d, tsr_last_error());
        FUZZ_CHECK(st == TSR_OK);
        tsr__alloc_stats a;
        tsr__allocator_stats(pool->allocator, &a);
        reserved = a.reserved;
        FUZZ_CHECK(a.allocated <= a.reserved && a.segments <= s->segment_count);
        FUZZ_CHECK(a.live_blocks <= server->session_max_allocations);
        /* What is allocated is the blocks the session was given. */
        uint64_t given = 0;
        uint32_t blocks = 0;
        for (size_t i = 0; i < live_count; i++) {
            const tsr__segment *seg = tsr__session_segment(s, live[i].segment);
            if (live[i].session == k && seg && seg->device == pool->device) {
                given += live[i].size;
                blocks++;
            }
        }
        /* ... and those it freed while imports hold them. */
        for (uint32_t i = 0; i < s->deferred_count; i++) {
            tsr__block_ref ref;
            if (s->deferred[i].shared &&
                tsr__lookup(pool->allocator, s->deferred[i].handle, &ref) == TSR_OK) {
                given += ref.size;
                blocks++;
            }
        }
        FUZZ_CHECK(given == a.allocated && blocks == a.live_blocks);
    }
    /* Imported segments are their exporter's memory. */
    for (uint32_t i = 0; i < s->segment_count; i++)
        if (s->segments[i].device == &server->registry.devices[1 + d] && !s->segments[i].foreign)
            segments += s->segments[i].bytes;
    FUZZ_CHECK(segments == reserved);
    FUZZ_CHECK(tsr__limits_use(server->limits, TSR__SCOPE_SESSION, s->id, (uint32_t)d) == reserved);
    FUZZ_CHECK(reserved <= limits_now(d)->session);
}

/* Memory on opencl:d: the device's reserved bytes are the sessions' sum
 * and within its capacity; what the limits charge each uid and group is
 * their sessions' sum, and within their limits. */
NO_COVERAGE static void check_device(size_t d)
{
    uint64_t reserved[SESSIONS], reserved_all = 0;
    for (int k = 0; k < SESSIONS; k++) {
        if (sessions[k])
            check_pool(k, d);
        reserved[k] = session_reserved(k, d);
        reserved_all += reserved[k];
    }
    /* Sessions whose slot ended while imports hold them: their memory
     * counts for their uid and group still. */
    uint64_t ending_uid[SESSIONS] = {0}, ending_gid[SESSIONS] = {0};
    for (tsr__session *s = server->first; s; s = s->next) {
        if (!s->ending || !s->devices || !s->devices[d].pool.allocator)
            continue;
        tsr__alloc_stats a;
        tsr__allocator_stats(s->devices[d].pool.allocator, &a);
        reserved_all += a.reserved;
        for (int k = 0; k < SESSIONS; k++) {
            ending_uid[k] += peers[k].uid == s->uid ? a.reserved : 0;
            ending_gid[k] += peers[k].gid == s->gid ? a.reserved : 0;
        }
    }
    FUZZ_CHECK(server->registry.devices[1 + d].reserved == reserved_all);
    FUZZ_CHECK(reserved_all <= server->registry.devices[1 + d].capacity);
    /* Each uid and group once: at the first slot that has it. */
    for (int k = 0; k < SESSIONS; k++) {
        uint64_t uid_sum = ending_uid[k], gid_sum = ending_gid[k];
        bool uid_first = true, gid_first = true;
        for (int j = 0; j < SESSIONS; j++) {
            uid_sum += peers[j].uid == peers[k].uid ? reserved[j] : 0;
            gid_sum += peers[j].gid == peers[k].gid ? reserved[j] : 0;
            uid_first &= j >= k || peers[j].uid != peers[k].uid;
            gid_first &= j >= k || peers[j].gid != peers[k].gid;
        }
        if (uid_first) {
            FUZZ_CHECK(tsr__limits_use(server->limits, TSR__SCOPE_UID, peers[k].uid, (uint32_t)d) ==
                       uid_sum);
            FUZZ_CHECK(uid_sum <= limits_now(d)->uid[k]);
        }
        if (gid_first) {
            FUZZ_CHECK(tsr__limits_use(server->limits, TSR__SCOPE_GROUP, peers[k].gid,
                                       (uint32_t)d) == gid_sum);
            FUZZ_CHECK(gid_sum <= limits_now(d)->gid[k]);
        }
    }
}

/* The slots' open sessions of uid (those of every uid when all), and how
 * many of them have not said HELLO. */
NO_COVERAGE static uint32_t open_sessions(bool all, uint32_t uid, uint32_t *handshakes)
{
    uint32_t n = 0, h = 0;
    for (int k = 0; k < SESSIONS; k++)
        if (sessions[k] && !sessions[k]->monitor && (all || peers[k].uid == uid)) {
            n++;
            h += sessions[k]->version == 0;
        }
    if (handshakes)
        *handshakes = h;
    return n;
}

/* Whether the caps turn a new session of slot k away, as the daemon
 * admits connections (server.c): sessions.max, then the uid's sessions,
 * then its handshakes, with TSR__SERVER_ADMIN_RESERVE more for an
 * administrator. */
NO_COVERAGE static bool over_caps(int k)
{
    uint32_t handshakes, mine = open_sessions(false, peers[k].uid, &handshakes);
    uint32_t all = open_sessions(true, 0, NULL);
    uint32_t extra = peer_admin(k) ? TSR__SERVER_ADMIN_RESERVE : 0;
    return all >= server->max_sessions + extra || mine >= server->max_sessions_uid + extra ||
           handshakes >= server->max_handshakes_uid + extra;
}

/* The server's count of sessions, and of those on their handshake, per
 * uid are the slots'; each within its caps; monitors count apart. */
NO_COVERAGE static void check_sessions(void)
{
    FUZZ_CHECK(server->session_count == open_sessions(true, 0, NULL));
    uint32_t monitors = 0;
    for (int k = 0; k < SESSIONS; k++)
        monitors += sessions[k] && sessions[k]->monitor;
    FUZZ_CHECK(server->monitor_count == monitors);
    FUZZ_CHECK(monitors <= server->max_monitors + TSR__SERVER_ADMIN_RESERVE);
    FUZZ_CHECK(server->session_count <= server->max_sessions + TSR__SERVER_ADMIN_RESERVE);
    uint32_t rows = 0, total = 0;
    for (int k = 0; k < SESSIONS; k++) {
        uint32_t handshakes, mine = open_sessions(false, peers[k].uid, &handshakes);
        const tsr__uid_sessions *row = NULL;
        for (uint32_t i = 0; i < server->uid_count; i++)
            if (server->uids[i].uid == peers[k].uid) {
                FUZZ_CHECK(!row); /* one row per uid */
                row = &server->uids[i];
            }
        /* A uid's segments are its sessions', ending ones included; its
         * row stays while it holds any. */
        uint32_t segments = 0;
        for (tsr__session *s = server->first; s; s = s->next)
            segments += s->uid == peers[k].uid ? s->segment_count : 0;
        FUZZ_CHECK(row ? row->segments == segments : segments == 0);
        FUZZ_CHECK(segments <= server->uid_max_segments);
        FUZZ_CHECK(mine ? row && row->sessions == mine && row->handshakes == handshakes
                        : !row || row->segments);
        uint32_t extra = peer_admin(k) ? TSR__SERVER_ADMIN_RESERVE : 0;
        FUZZ_CHECK(mine <= server->max_sessions_uid + extra);
        FUZZ_CHECK(handshakes <= server->max_handshakes_uid + extra);
        if (sessions[k]) {
            FUZZ_CHECK(sessions[k]->thread_count <= server->session_max_threads);
            FUZZ_CHECK(sessions[k]->segment_count <= server->session_max_segments);
        }
        bool first_of_uid = true;
        for (int j = 0; j < k; j++)
            first_of_uid &= peers[j].uid != peers[k].uid;
        rows += first_of_uid && (mine || segments);
        total += first_of_uid ? segments : 0;
    }
    FUZZ_CHECK(server->uid_count == rows);
    FUZZ_CHECK(server->segment_total == total);
    FUZZ_CHECK(total <= server->daemon_max_segments);
}

NO_COVERAGE static void check_invariants(void)
{
    check_sessions();
    for (size_t d = 0; d < server->registry.accel_count; d++)
        check_device(d);
    /* Every block handed out is where it was (alone: note_alloc checked
     * that it met no other when it came). */
    for (size_t i = 0; i < live_count; i++) {
        const live_block *b = &live[i];
        tsr__block_ref ref;
        FUZZ_CHECK(tsr__session_find_block(sessions[b->session], b->handle, &ref) != NULL);
        FUZZ_CHECK(ref.segment_id == b->segment && ref.offset == b->offset && ref.size == b->size);
        uint64_t bytes;
        FUZZ_CHECK(segment_base(b->session, b->segment, &bytes) && b->offset + b->size <= bytes);
    }
    check_guards();
}

/* ---- decoding ------------------------------------------------------------ */

static uint32_t fuzz_u32(fuzz_reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | fuzz_u8(r);
    return v;
}

static uint64_t fuzz_u64(fuzz_reader *r)
{
    return (uint64_t)fuzz_u32(r) << 32 | fuzz_u32(r);
}

/* Allocation sizes for session k: mostly around the allocator's
 * boundaries and the caps of the server's configuration (the devices'
 * capacities, the limits, what is left under them). */
static uint64_t fuzz_size(fuzz_reader *r, int k)
{
    const tsr__registry_device *dev = &server->registry.devices[1];
    const tsr__registry_device *dev1 = server->registry.accel_count > 1 ? dev + 1 : dev;
    tsr__limits_who who = {
        .uid = peers[k].uid, .gid = peers[k].gid, .session = sessions[k] ? sessions[k]->id : 0};
    const uint64_t marks[16] = {0,
                                1,
                                TSR__ALLOC_ROUND,
                                TSR__ALLOC_SMALL_SIZE,
                                TSR__ALLOC_SMALL_SEGMENT,
                                TSR__ALLOC_MIN_LARGE,
                                TSR__ALLOC_LARGE_SEGMENT,
                                dev1->capacity,
                                limits_now(0)->session,
                                dev->capacity,
                                TSR__ALLOC_MAX_BYTES,
                                limits_now(0)->uid[k],
                                dev->capacity - dev->reserved,
                                dev1->capacity - dev1->reserved,
                                TSR__ALLOC_MIN_LARGE - TSR__ALLOC_ROUND,
                                tsr__limits_available(server->limits, who, 0)};
    uint8_t t = fuzz_u8(r);
    switch (t >> 6) {
    case 0:
        return (uint64_t)t * 64 + fuzz_u8(r);
    case 1:
        return (uint64_t)(t & 63) << 14 | (uint64_t)fuzz_u8(r) << 6;
    case 2: {
        uint64_t mark = marks[t & 15];
        int64_t delta = (int8_t)fuzz_u8(r);
        return (t & 16) ? mark + (uint64_t)delta : mark;
    }
    default:
        return fuzz_u64(r);
    }
}

static tsr__wire_device fuzz_device(fuzz_reader *r)
{
    uint8_t t = fuzz_u8(r);
    switch (t & 7) {
    case 0:
    case 1:
    case 2:
    case 3:
        return (tsr__wire_device){.type = TSR_DEVICE_OPENCL, .index = t & 1};
    case 4:
        return (tsr__wire_device){.type = TSR_DEVICE_CPU, .index = (t >> 3 & 1) ? 0 : -1};
    case 5:
        return (tsr__wire_device){.type = TSR_DEVICE_META, .index = (int32_t)(t >> 3 & 3) - 1};
    case 6:
        return (tsr__wire_device){.type = TSR_DEVICE_OPENCL, .index = (int32_t)(t >> 3) - 8};
    default:
        return (tsr__wire_device){.type = (int32_t)fuzz_u32(r), .index = (int32_t)fuzz_u32(r)};
    }
}

/* A handle: mostly a live one of this session, else another session's, a
 * freed one, or any number. */
static const live_block *pick_live(fuzz_reader *r, int k, uint8_t t)
{
    size_t mine = 0;
    for (size_t i = 0; i < live_count; i++)
        mine += live[i].session == k;
    if (!mine)
        return NULL;
    size_t want = t % mine;
    for (size_t i = 0; i < live_count; i++)
        if (live[i].session == k && want-- == 0)
            return &live[i];
    (void)r;
    return NULL;
}

static uint64_t fuzz_handle(fuzz_reader *r, int k, const live_block **block)
{
    uint8_t t = fuzz_u8(r);
    *block = NULL;
    switch (t >> 5) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4: {
        const live_block *b = pick_live(r, k, t);
        if (b) {
            *block = b;
            return b->handle;
        }
        return live_count ? live[t % live_count].handle : 0;
    }
    case 5:
        return live_count ? live[t % live_count].handle : freed_handles[t & 15];
    case 6:
        /* now and then an import's (newest first), of any session */
        if ((t & 16) && imported_count)
            return imported[(t & 7) % imported_count];
        return freed_handles[t & 15];
    default:
        return fuzz_u64(r);
    }
}

/* Element counts and offsets: small, or reaching the edge of the block. */
static int64_t fuzz_extent(fuzz_reader *r, uint64_t items)
{
    uint8_t t = fuzz_u8(r);
    if (t < 0xc0)
        return t & 15;
    switch (t & 3) {
    case 0:
        return (int64_t)items;
    case 1:
        return (int64_t)items - 1;
    case 2:
        return (int64_t)items + 1;
    default:
        return fuzz_i64(r);
    }
}

static uint32_t fuzz_itemsize(fuzz_reader *r)
{
    static const uint32_t sizes[8] = {1, 2, 4, 8, 16, 1, 4, 3};
    uint8_t t = fuzz_u8(r);
    return t < 0xf8 ? sizes[t & 7] : fuzz_u32(r);
}

/* A region of ndim dimensions that tiles the block's items exactly,
 * contiguous, or misses its end by one element or one row either way: the
 * largest regions the region check lets through, and the least it
 * refuses. Trailing dimensions are small powers of two that divide what is
 * left (items is a multiple of 32 for any itemsize up to 16). */
static void fuzz_tiles(fuzz_reader *r, uint64_t items, int32_t ndim, int64_t *offset,
                       int64_t *sizes, int64_t *strides)
{
    uint64_t rest = items, stride = 1;
    for (int32_t d = ndim - 1; d > 0; d--) {
        uint64_t size = UINT64_C(1) << (fuzz_u8(r) & 3);
        if (rest % size)
            size = 1;
        sizes[d] = (int64_t)size;
        strides[d] = (int64_t)stride;
        stride *= size;
        rest /= size;
    }
    sizes[0] = (int64_t)rest;
    strides[0] = (int64_t)stride;
    *offset = 0;
    switch (fuzz_u8(r) & 3) {
    case 1: /* a row past the end */
        sizes[0]++;
        break;
    case 2: /* an element past the end */
        *offset = 1;
        break;
    case 3: /* up to the end, from the second row */
        sizes[0]--;
        *offset = (int64_t)stride;
        break;
    default:
        break;
    }
}

/* A region over a block: ndim, sizes, strides and offset in elements. */
static void fuzz_region(fuzz_reader *r, uint64_t block_bytes, uint32_t itemsize, int32_t *ndim,
                        int64_t *offset, int64_t *sizes, int64_t *strides)
{
    uint64_t items = itemsize ? block_bytes / itemsize : 0;
    uint8_t t = fuzz_u8(r);
    if ((t & 0xf0) == 0xe0) {
        *ndim = 1 + (t & 7);
        fuzz_tiles(r, items, *ndim, offset, sizes, strides);
        return;
    }
    *ndim = t < 0xf0 ? (int32_t)(t % 5) : (int32_t)(t & 15) * 2 - 6; /* up to 24, and some bad */
    *offset = (t & 0x80) ? fuzz_extent(r, items) : 0;
    int64_t stride = 1;
    for (int32_t d = *ndim - 1; d >= 0 && d < TSR_MAX_DIMS; d--) {
        sizes[d] = fuzz_extent(r, items);
        uint8_t how = fuzz_u8(r);
        strides[d] = how < 0xa0 ? stride : how < 0xe0 ? (int64_t)(how & 7) : fuzz_i64(r);
        if (sizes[d] > 0 && !__builtin_mul_overflow(stride, sizes[d], &stride))
            continue;
        stride = 1;
    }
}

/* ---- messages ------------------------------------------------------------ */

typedef union payload {
    uint64_t align;
    uint8_t bytes[TSR__WIRE_FRAME_MAX];
    tsr__wire_hello hello;
    tsr__wire_position position;
    tsr__wire_set_device set_device;
    tsr__wire_get_device get_device;
    tsr__wire_alloc alloc;
    tsr__wire_handle handle;
    tsr__wire_segment segment;
    tsr__wire_device device;
    tsr__wire_fill fill;
    tsr__kernel kernel;
    tsr__wire_stats_request stats;
    tsr__wire_export export_;
    tsr__wire_share_key key;
    tsr__wire_program_create program_create;
    tsr__wire_program_source program_source;
    tsr__wire_program program;
    tsr__wire_kernel_query kernel_query;
    tsr__wire_kernel_launch kernel_launch;
    tsr__wire_gemm gemm;
} payload;

/* User kernels' messages (daemon/user.c): programs 1..4 of the session
 * (0 is never one), sources of up to 8 KiB in chunks at the offsets the
 * daemon expects, now and then elsewhere. No worker starts here: the
 * detached server's devices have no backend record to name one by, so a
 * complete source breaks its program instead. */
static void build_user(fuzz_reader *r, uint32_t opcode, payload *p)
{
    uint32_t program = fuzz_u8(r) % 5u;
    switch (opcode) {
    case TSR__OP_PROGRAM_CREATE:
        p->program_create.device = (tsr__wire_device){TSR_DEVICE_OPENCL, fuzz_u8(r) % 3};
        p->program_create.source_bytes = (uint64_t)fuzz_u8(r) * 32u + fuzz_u8(r) % 32u;
        if (fuzz_u8(r) >= 0xf0)
            p->program_create.source_bytes = fuzz_u32(r) * (uint64_t)fuzz_u32(r);
        memset(p->program_create.options, 'O', fuzz_u8(r) % 8u);
        break;
    case TSR__OP_PROGRAM_SOURCE: {
        p->program_source.program = program;
        p->program_source.length = (uint32_t)fuzz_u8(r) * 16u + fuzz_u8(r) % 16u;
        uint8_t at = fuzz_u8(r);
        p->program_source.offset = at < 0xf0 ? (uint64_t)at * 4096u : fuzz_u32(r);
        memset(p->program_source.data, 'x', sizeof p->program_source.data);
        break;
    }
    case TSR__OP_KERNEL_INFO:
        p->kernel_query.program = program;
        p->kernel_query.name[0] = 'k';
        break;
    case TSR__OP_KERNEL_LAUNCH:
        p->kernel_launch.program = program;
        p->kernel_launch.kernel = fuzz_u8(r) % 2u;
        p->kernel_launch.work_dim = fuzz_u8(r) % 4u;
        p->kernel_launch.nargs = fuzz_u8(r) % 3u;
        p->kernel_launch.global[0] = fuzz_u8(r);
        break;
    default: /* PROGRAM_STATUS, PROGRAM_RELEASE */
        p->program.program = program;
        break;
    }
}

static void build_launch(fuzz_reader *r, int k, tsr__kernel *kn)
{
    uint8_t t = fuzz_u8(r);
    kn->op = t < 0xf0 ? 1u + t % (TSR__KOP_COUNT - 1) : fuzz_u32(r);
    const tsr__kernel_op_info *info = tsr__kernel_op_info_of(kn->op);
    kn->noperands = info ? tsr__kernel_operand_count(kn->op) : 3;
    if (fuzz_u8(r) >= 0xf0)
        kn->noperands = fuzz_u8(r) % 6;
    uint8_t d = fuzz_u8(r);
    kn->common = d < 0xf0 ? d % TSR_DTYPE_COUNT : fuzz_u32(r);
    const live_block *first = pick_live(r, k, fuzz_u8(r));
    uint64_t bytes = first ? first->size : 4096;
    int64_t offset;
    fuzz_region(r, bytes, (uint32_t)tsr_dtype_itemsize((tsr_dtype)kn->common), &kn->ndim, &offset,
                kn->sizes, kn->operands[0].strides);
    for (uint32_t i = 0; i < kn->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        tsr__kernel_operand *o = &kn->operands[i];
        uint8_t how = fuzz_u8(r);
        o->dtype = how < 0xf0
                       ? (i == 0 || (how & 1) ? kn->common : (uint32_t)(how >> 1) % TSR_DTYPE_COUNT)
                       : fuzz_u32(r);
        o->flags = i > 0 && (how & 0x80) && how < 0xf0 ? TSR__KOPERAND_SCALAR : 0;
        const live_block *b = NULL;
        o->handle = i == 0 && first ? first->handle : fuzz_handle(r, k, &b);
        o->offset = i == 0 ? offset : fuzz_extent(r, bytes);
        if (i > 0)
            for (int32_t j = 0; j < kn->ndim && j < TSR_MAX_DIMS; j++)
                o->strides[j] = (how & 2) ? kn->operands[0].strides[j] : fuzz_extent(r, 4);
    }
    for (int i = 0; i < 16; i++)
        kn->scalar[i] = fuzz_u8(r);
}

/* A matrix product: small shapes (now and then any), operands mostly
 * live blocks with leading dimensions at or just past their rows' length
 * and offsets and batch strides near their blocks' ends, any dtype and
 * flags now and then. */
static void build_gemm(fuzz_reader *r, int k, tsr__wire_gemm *g)
{
    uint8_t t = fuzz_u8(r);
    g->dtype = t < 0xf0 ? t % TSR_DTYPE_COUNT : fuzz_u32(r);
    t = fuzz_u8(r);
    g->flags = t < 0xf0 ? t & 7u : fuzz_u32(r);
    int64_t *dims[4] = {&g->batch, &g->m, &g->n, &g->k};
    for (int i = 0; i < 4; i++) {
        t = fuzz_u8(r);
        *dims[i] = t < 0xf8 ? t % 9 : (int64_t)fuzz_u64(r);
    }
    bool ta = g->flags & TSR__WIRE_GEMM_TRANS_A, tb = g->flags & TSR__WIRE_GEMM_TRANS_B;
    int64_t cols[3] = {g->n, ta ? g->m : g->k, tb ? g->k : g->n};
    uint64_t item = g->dtype < TSR_DTYPE_COUNT ? tsr_dtype_itemsize((tsr_dtype)g->dtype) : 4;
    for (int i = 0; i < 3; i++) {
        const live_block *b = NULL;
        g->handles[i] = fuzz_handle(r, k, &b);
        uint64_t items = (b ? b->size : 4096) / (item ? item : 1);
        t = fuzz_u8(r);
        g->ld[i] = t < 0xf0 ? (int64_t)((uint64_t)cols[i] + t % 3) : (int64_t)fuzz_u64(r);
        g->offsets[i] = fuzz_extent(r, items);
        g->bstride[i] = fuzz_extent(r, items);
    }
    for (int i = 0; i < 16; i++) {
        g->alpha[i] = fuzz_u8(r);
        g->beta[i] = fuzz_u8(r);
    }
}

/* Builds the payload of `opcode` for session k into p; returns its length. */
static uint32_t build(fuzz_reader *r, int k, uint32_t opcode, payload *p, uint64_t *fill_handle)
{
    const tsr__wire_op_info *op = tsr__wire_op(opcode);
    const live_block *b = NULL;
    switch (opcode) {
    case TSR__OP_HELLO: {
        uint8_t t = fuzz_u8(r);
        p->hello.version_min = t < 0xf0 ? TSR__WIRE_VERSION_MIN : fuzz_u32(r);
        p->hello.version_max = t < 0xf0 ? TSR__WIRE_VERSION : fuzz_u32(r);
        p->hello.flags = (t & 0xf8) == 0xe8   ? fuzz_u32(r)
                         : (t & 0xf8) == 0xd8 ? TSR__WIRE_HELLO_MONITOR
                                              : 0;
        size_t len = fuzz_u8(r) % (sizeof p->hello.name + 1);
        for (size_t i = 0; i < len; i++)
            p->hello.name[i] = (char)fuzz_u8(r);
        break;
    }
    case TSR__OP_DEVICE_GET:
        p->position.position = fuzz_u8(r) % 6;
        break;
    case TSR__OP_SET_DEVICE:
        p->set_device.thread_id = fuzz_u8(r) % 8;
        p->set_device.device = fuzz_device(r);
        break;
    case TSR__OP_GET_DEVICE:
        p->get_device.thread_id = fuzz_u8(r) % 8;
        p->get_device.type = fuzz_device(r).type;
        break;
    case TSR__OP_ALLOC: {
        p->alloc.device = fuzz_device(r);
        p->alloc.bytes = fuzz_size(r, k);
        uint8_t t = fuzz_u8(r);
        p->alloc.flags = t < 0x30 ? TSR__WIRE_ALLOC_ALONE : t < 0x38 ? fuzz_u32(r) : 0;
        p->alloc.pad = t == 0xff ? fuzz_u32(r) : 0;
        break;
    }
    case TSR__OP_FREE:
        p->handle.handle = fuzz_handle(r, k, &b);
        break;
    case TSR__OP_SEGMENT_MAP: {
        uint8_t t = fuzz_u8(r);
        p->segment.segment_id = t < 0xc0 && live_count ? live[t % live_count].segment : t & 31;
        break;
    }
    case TSR__OP_MEMORY_STATS:
    case TSR__OP_EMPTY_CACHE:
    case TSR__OP_DEVICE_STATUS:
    case TSR__OP_TOPOLOGY:
        p->device = fuzz_device(r);
        break;
    case TSR__OP_SESSION_LIST:
    case TSR__OP_PROCESS_LIST:
        p->segment.segment_id = fuzz_u8(r) % 8;
        break;
    case TSR__OP_SESSION_STATS: {
        uint8_t t = fuzz_u8(r);
        tsr__session *other = sessions[t % SESSIONS];
        p->stats.session_id = t < 0x80 ? 0 : other ? other->id : t;
        p->stats.device = fuzz_device(r);
        break;
    }
    case TSR__OP_FILL: {
        tsr__wire_region *g = &p->fill.region;
        g->handle = fuzz_handle(r, k, &b);
        g->itemsize = fuzz_itemsize(r);
        fuzz_region(r, b ? b->size : 4096, g->itemsize, &g->ndim, &g->offset, g->sizes, g->strides);
        for (int i = 0; i < 16; i++)
            p->fill.value[i] = fuzz_u8(r);
        *fill_handle = b ? b->handle : 0;
        break;
    }
    case TSR__OP_LAUNCH:
        build_launch(r, k, &p->kernel);
        break;
    case TSR__OP_GEMM:
        build_gemm(r, k, &p->gemm);
        break;
    case TSR__OP_EXPORT: {
        tsr__wire_export *e = &p->export_;
        e->region.handle = fuzz_handle(r, k, &b);
        uint8_t t = fuzz_u8(r);
        e->dtype = t < 0xf0 ? t % TSR_DTYPE_COUNT : (int32_t)fuzz_u32(r);
        e->region.itemsize = t < 0xe0 && e->dtype >= 0 && e->dtype < TSR_DTYPE_COUNT
                                 ? (uint32_t)tsr_dtype_itemsize((tsr_dtype)e->dtype)
                                 : fuzz_itemsize(r);
        fuzz_region(r, b ? b->size : 4096, e->region.itemsize, &e->region.ndim, &e->region.offset,
                    e->region.sizes, e->region.strides);
        t = fuzz_u8(r);
        e->flags = t < 0xf0 ? t & TSR__WIRE_EXPORT_FLAGS_KNOWN : fuzz_u32(r);
        e->allow_uid = peers[fuzz_u8(r) % SESSIONS].uid;
        e->allow_gid = peers[fuzz_u8(r) % SESSIONS].gid;
        break;
    }
    case TSR__OP_SHARE_LIST: {
        uint8_t t = fuzz_u8(r);
        p->handle.handle = key_count && t < 0xc0 ? keys[t % key_count].id - (t & 1) : t;
        break;
    }
    case TSR__OP_IMPORT:
    case TSR__OP_REVOKE: {
        uint8_t t = fuzz_u8(r);
        if (key_count)
            p->key = keys[t % key_count];
        if (t >= 0xe0 || !key_count) /* a guess */
            p->key.secret[t & 15] ^= (uint8_t)(1u << (t & 7));
        if (t >= 0xf8)
            p->key.id = fuzz_u32(r);
        break;
    }
    case TSR__OP_PROGRAM_CREATE:
    case TSR__OP_PROGRAM_SOURCE:
    case TSR__OP_PROGRAM_STATUS:
    case TSR__OP_PROGRAM_RELEASE:
    case TSR__OP_KERNEL_INFO:
    case TSR__OP_KERNEL_LAUNCH:
        build_user(r, opcode, p);
        break;
    default:
        break;
    }
    return op ? op->request_size : 0;
}

/* A FILL that succeeded wrote its value at its first and last elements. */
NO_COVERAGE static void check_fill(int k, uint64_t handle, const tsr__wire_fill *f)
{
    const live_block *b = NULL;
    for (size_t i = 0; i < live_count; i++)
        if (live[i].session == k && live[i].handle == handle)
            b = &live[i];
    if (!b)
        return;
    const tsr__wire_region *g = &f->region;
    uint64_t first = (uint64_t)g->offset, last = first;
    for (int32_t d = 0; d < g->ndim; d++) {
        if (g->sizes[d] == 0)
            return;
        last += (uint64_t)(g->sizes[d] - 1) * (uint64_t)g->strides[d];
    }
    uint64_t bytes;
    const uint8_t *base = segment_base(k, b->segment, &bytes) + b->offset;
    FUZZ_CHECK((last + 1) * g->itemsize <= b->size);
    FUZZ_CHECK(memcmp(base + first * g->itemsize, f->value, g->itemsize) == 0);
    FUZZ_CHECK(memcmp(base + last * g->itemsize, f->value, g->itemsize) == 0);
}

NO_COVERAGE static void note_alloc(int k, const tsr__wire_alloc *in, const tsr__wire_block *out)
{
    FUZZ_CHECK(out->handle != 0 && out->offset % TSR__ALLOC_ROUND == 0);
    FUZZ_CHECK(out->size >= in->bytes && out->size % TSR__ALLOC_ROUND == 0);
    FUZZ_CHECK(out->offset + out->size <= out->segment_bytes);
    /* ALONE: all of a new segment. */
    FUZZ_CHECK(!(in->flags & TSR__WIRE_ALLOC_ALONE) ||
               (out->offset == 0 && out->size == out->segment_bytes &&
                (out->flags & TSR__WIRE_NEW_SEGMENT)));
    uint64_t bytes;
    FUZZ_CHECK(segment_base(k, out->segment_id, &bytes) && bytes == out->segment_bytes);
    for (size_t i = 0; i < live_count; i++) {
        const live_block *b = &live[i];
        FUZZ_CHECK(b->session != k || b->handle != out->handle);
        FUZZ_CHECK(b->session != k || b->segment != out->segment_id ||
                   b->offset >= out->offset + out->size || out->offset >= b->offset + b->size);
    }
    FUZZ_CHECK(live_count < LIVE_MAX);
    live[live_count] = (live_block){.session = k,
                                    .handle = out->handle,
                                    .segment = out->segment_id,
                                    .offset = out->offset,
                                    .size = out->size,
                                    .segment_bytes = out->segment_bytes};
    block_added(&live[live_count++]);
}

NO_COVERAGE static void note_free(int k, uint64_t handle, bool ok)
{
    for (size_t i = 0; i < live_count; i++) {
        if (live[i].session != k || live[i].handle != handle)
            continue;
        /* No kernel ever runs here, so a live block frees at once. */
        FUZZ_CHECK(ok);
        memmove(&freed_handles[1], &freed_handles[0],
                sizeof freed_handles - sizeof freed_handles[0]);
        freed_handles[0] = handle;
        /* Imports may hold it still: then it stays where it was. */
        if (still_held(&live[i]) && held_count < LIVE_MAX)
            held[held_count++] = live[i];
        live[i] = live[--live_count];
        return;
    }
}

/* Replies that name devices name them as the session numbers them
 * (devices.visible), and tell what the daemon holds. */
NO_COVERAGE static void check_reply(int k, uint32_t opcode, const payload *in, const uint8_t *out)
{
    tsr__session *s = sessions[k];
    if (opcode == TSR__OP_SEGMENT_MAP) {
        tsr__wire_segment_info info;
        memcpy(&info, out, sizeof info);
        const tsr__segment *seg = tsr__session_segment(s, in->segment.segment_id);
        FUZZ_CHECK(seg && info.bytes == seg->bytes && info.device.type == TSR_DEVICE_OPENCL);
        FUZZ_CHECK(info.device.index >= 0 && (uint32_t)info.device.index < s->visible_count);
        FUZZ_CHECK(s->visible[info.device.index] == seg->device->info.device.index);
    } else if (opcode == TSR__OP_MEMORY_STATS) {
        tsr__wire_memory_stats m;
        memcpy(&m, out, sizeof m);
        FUZZ_CHECK(in->device.type == TSR_DEVICE_OPENCL && in->device.index >= 0 &&
                   (uint32_t)in->device.index < s->visible_count);
        tsr__alloc_stats a;
        tsr__allocator_stats(s->devices[s->visible[in->device.index]].pool.allocator, &a);
        FUZZ_CHECK(m.allocated == a.allocated && m.reserved == a.reserved &&
                   m.segments == a.segments);
        FUZZ_CHECK(m.reserved <= m.device_capacity);
    } else if (opcode == TSR__OP_IMPORT) {
        /* An import: a handle below 2^32 of this session, over host memory
         * (no segment) or a segment of its own that holds the block. */
        tsr__wire_imported m;
        memcpy(&m, out, sizeof m);
        FUZZ_CHECK(m.handle != 0 && !(m.handle >> 32) && tsr__memory_import(s, m.handle));
        FUZZ_CHECK(m.region.handle == m.handle && m.size > 0 &&
                   m.offset + m.size <= m.segment_bytes);
        const tsr__segment *seg = tsr__session_segment(s, m.segment_id);
        if (m.device.type == TSR_DEVICE_CPU)
            FUZZ_CHECK(m.segment_id == 0 && m.offset == 0 && (m.flags & TSR__WIRE_EXPORT_HOST));
        else
            FUZZ_CHECK(seg && seg->foreign && seg->bytes == m.segment_bytes &&
                       m.device.index >= 0 && (uint32_t)m.device.index < s->visible_count &&
                       s->visible[m.device.index] == seg->device->info.device.index);
    } else if (opcode == TSR__OP_SHARE_LIST) {
        tsr__wire_share_info m;
        memcpy(&m, out, sizeof m);
        FUZZ_CHECK(m.id == 0 || m.id > in->handle.handle);
        FUZZ_CHECK(m.holder_count <= TSR__WIRE_SHARE_HOLDERS && m.holder_count <= m.imports);
    }
}

/* Whether a message may go, as far as fill_budget goes (taking its share
 * when it is a FILL the daemon would carry out): the daemon's own checks
 * say what it would write. */
NO_COVERAGE static bool fill_within_budget(int k, uint32_t opcode, uint32_t len,
                                           const tsr__wire_fill *f)
{
    tsr__block_ref b;
    if (opcode != TSR__OP_FILL || len != sizeof *f ||
        !tsr__session_find_block(sessions[k], f->region.handle, &b))
        return true;
    tsr__region g = {
        .itemsize = f->region.itemsize, .ndim = f->region.ndim, .offset = f->region.offset};
    memcpy(g.sizes, f->region.sizes, sizeof g.sizes);
    memcpy(g.strides, f->region.strides, sizeof g.strides);
    uint64_t span;
    if (tsr__region_check(&g, b.size, &span) != TSR_OK || span == 0 ||
        tsr__region_distinct(&g, b.size) != TSR_OK)
        return true;
    int64_t elements = 1;
    for (int32_t d = 0; d < g.ndim; d++)
        elements *= g.sizes[d]; /* at most the block's: tsr__region_distinct */
    if (elements > fill_budget) {
        if (trace)
            fprintf(stderr, "session %d: FILL of %lld elements not sent (%lld left)\n", k,
                    (long long)elements, (long long)fill_budget);
        return false;
    }
    fill_budget -= elements;
    return true;
}

/* One message to session k. */
static void message(fuzz_reader *r)
{
    uint8_t t = fuzz_u8(r);
    int k = t >> 5;
    bool refused = false;
    if (!sessions[k]) {
        /* The slot's client connects: the caps admit it or turn it away,
         * and then its message goes no further. */
        refused = over_caps(k);
        tsr_status st = tsr__server_open_detached(server, &peers[k], &sessions[k]);
        if (trace && st != TSR_OK)
            fprintf(stderr, "session %d: refused: %s\n", k, tsr_last_error());
        FUZZ_CHECK(refused ? st == TSR_ERR_LIMIT && !sessions[k] : st == TSR_OK && sessions[k]);
    }
    tsr__session *s = sessions[k];
    /* Most messages after the first are not HELLO, which comes first. */
    uint32_t opcode = 1u + (t & 15);
    if ((t & 15) == 15)
        opcode = 1u + fuzz_u8(r) % (TSR__OP_MAX - 1u);
    if ((!s || s->version == 0) && !(t & 0x10))
        opcode = TSR__OP_HELLO;
    uint8_t how = fuzz_u8(r);
    uint32_t transport = (how & 7) == 7 ? TSR__WIRE_RING : TSR__WIRE_SOCKET;
    payload p;
    memset(&p, 0, sizeof p);
    uint64_t fill_handle = 0;
    uint32_t len = build(r, k, opcode, &p, &fill_handle);
    if ((how & 0xe0) == 0xe0) /* now and then a wrong length */
        len = (len + (uint32_t)fuzz_u8(r) - 128u) % (TSR__WIRE_FRAME_MAX - 24u);
    if (refused || !fill_within_budget(k, opcode, len, &p.fill))
        return;
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX];
    } frame, reply;
    tsr__wire_header h;
    tsr__wire_header_init(&h, opcode, 0, len, ++request_id);
    memcpy(frame.bytes, &h, sizeof h);
    memcpy(frame.bytes + sizeof h, p.bytes, len);
    uint32_t reply_len = 0;
    int fds[2], nfds = 0;
    tsr__session_served served = tsr__session_serve_frame(s, frame.bytes, sizeof h + len, transport,
                                                          reply.bytes, &reply_len, fds, &nfds);
    if (served == TSR__SERVED_MALFORMED) {
        FUZZ_CHECK(tsr_last_error()[0] != '\0');
        if (trace)
            fprintf(stderr, "session %d: malformed: %s\n", k, tsr_last_error());
        end_session(k, "malformed frame");
        return;
    }
    /* The reply is one the client accepts, with the descriptors its
     * message carries. */
    tsr__wire_header rh;
    FUZZ_CHECK(tsr__wire_check(reply.bytes, reply_len, TSR__WIRE_SOCKET, true, &rh) == TSR_OK);
    FUZZ_CHECK(rh.opcode == opcode && rh.request_id == request_id);
    bool ok = !(rh.flags & TSR__WIRE_ERROR);
    FUZZ_CHECK(ok || tsr__wire_error_raise(reply.bytes + sizeof rh, rh.length) != TSR_OK);
    if (trace)
        fprintf(stderr, "session %d: %s%s -> %s\n", k, tsr__wire_op(opcode)->name,
                transport == TSR__WIRE_RING ? " (ring)" : "", ok ? "ok" : tsr_last_error());
    /* A monitor's HELLO carries no ring. */
    bool monitor = sessions[k] && sessions[k]->monitor;
    FUZZ_CHECK(nfds == (!ok                             ? 0
                        : opcode == TSR__OP_HELLO       ? (monitor ? 0 : 2)
                        : opcode == TSR__OP_SEGMENT_MAP ? 1
                        : opcode == TSR__OP_IMPORT      ? 1
                        : opcode == TSR__OP_EXPORT ? (p.export_.flags & TSR__WIRE_EXPORT_HOST) != 0
                                                   : 0));
    /* A monitor is served its queries and nothing else. */
    FUZZ_CHECK(!ok || !monitor || (tsr__wire_op(opcode)->transports & TSR__WIRE_MONITOR));
    for (int i = 0; i < nfds; i++)
        FUZZ_CHECK(fcntl(fds[i], F_GETFD) >= 0);
    if (ok)
        check_reply(k, opcode, &p, reply.bytes + sizeof rh);
    if (ok && opcode == TSR__OP_ALLOC)
        note_alloc(k, &p.alloc, (const tsr__wire_block *)(reply.bytes + sizeof rh));
    if (opcode == TSR__OP_FREE)
        note_free(k, p.handle.handle, ok);
    if (ok && opcode == TSR__OP_FILL && fill_handle)
        check_fill(k, fill_handle, &p.fill);
    if (ok && opcode == TSR__OP_EXPORT && !(p.export_.flags & TSR__WIRE_EXPORT_HOST))
        for (size_t i = 0; i < live_count; i++)
            if (live[i].session == k && live[i].handle == p.export_.region.handle)
                drop_guards(k, live[i].segment);
    if (ok && opcode == TSR__OP_EXPORT) {
        memmove(&keys[1], &keys[0], sizeof keys - sizeof keys[0]);
        memcpy(&keys[0], reply.bytes + sizeof rh, sizeof keys[0]);
        key_count += key_count < 8;
    }
    if (ok && opcode == TSR__OP_EXPORT && (p.export_.flags & TSR__WIRE_EXPORT_HOST)) {
        memmove(&imported[1], &imported[0], sizeof imported - sizeof imported[0]);
        imported[0] = (uint32_t)keys[0].id; /* a new host block's handle */
        imported_count += imported_count < 8;
    }
    if (ok && opcode == TSR__OP_IMPORT) {
        memmove(&imported[1], &imported[0], sizeof imported - sizeof imported[0]);
        memcpy(&imported[0], reply.bytes + sizeof rh, sizeof imported[0]); /* its handle */
        imported_count += imported_count < 8;
    }
    if (served == TSR__SERVED_END)
        end_session(k, "handshake refused");
    else if ((how & 0x1e) == 0x1e) /* the client goes away */
        end_session(k, "disconnected");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    servers_start();
    server = &servers[data[0] % CONFIGS];
    memset(freed_handles, 0, sizeof freed_handles);
    key_count = imported_count = 0;
    fill_budget = FILL_BUDGET;
    fuzz_reader r = {.data = data + 1, .size = size - 1};
    while (!fuzz_empty(&r)) {
        message(&r);
        check_invariants();
    }
    for (int k = 0; k < SESSIONS; k++)
        if (sessions[k])
            end_session(k, "the input ended");
    check_invariants();
    for (size_t d = 0; d < server->registry.accel_count; d++) {
        FUZZ_CHECK(server->registry.devices[1 + d].reserved == 0);
        for (int k = 0; k < SESSIONS; k++)
            FUZZ_CHECK(tsr__limits_use(server->limits, TSR__SCOPE_UID, peers[k].uid, (uint32_t)d) ==
                       0);
    }
    FUZZ_CHECK(server->first == NULL && server->session_count == 0 && server->uid_count == 0);
    tsr__loop_reap(server->loop); /* the sessions' watches: this loop never runs */
    live_count = guard_count = held_count = 0;
    return 0;
}
