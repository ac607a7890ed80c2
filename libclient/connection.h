/* Internal: the state of a session with tesserad and the calls the
 * connection modules make into one another.
 *
 * The connection is six files, each with one job, and calls only go down
 * this list (a file calls those below it, never one above):
 *
 *   client.c     open and close, the handshake, the registry, ping
 *   stats.c      memory statistics, the session list
 *   queues.c     kernel queues: launch, fill, synchronize
 *   memory.c     segments, the block cache, allocate and free
 *   devices.c    the public device calls, resolving devices
 *   transport.c  the socket and the request ring
 *
 * The tensor layer sees none of this: it uses libclient/client.h. */
#ifndef TESSERA_LIBCLIENT_CONNECTION_H
#define TESSERA_LIBCLIENT_CONNECTION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/protocol.h"
#include "core/ring.h"
#include "libclient/client.h"

#define TSR__SPIN_NS 20000          /* spin at most this long on a reply before sleeping */
#define TSR__WAIT_SPIN_NS 100000    /* and this long on a kernel (tsr_synchronize) */
#define TSR__SLEEP_STEP_NS 50000000 /* then sleep in steps of 50 ms, checking the daemon */
#define TSR__MAX_VISIBLE 128
#define TSR__CACHE_BLOCKS 64

typedef struct tsr__client_segment {
    uint32_t id;
    int32_t queue; /* the device: the accelerator ordinal the daemon gives this session */
    uint8_t *base;
    uint64_t bytes;
    uint32_t live; /* blocks of it this client holds, cached ones included */
} tsr__client_segment;

typedef struct tsr__cached_block {
    uint64_t handle;
    uint8_t *data;
    uint64_t key;    /* the rounded request it serves */
    uint64_t bytes;  /* what was requested first (for the statistics) */
    int32_t queue;   /* the device, in the session's numbering */
    int32_t record;  /* the ring's queue record of its launches (queue_of), -1: none yet */
    uint32_t issued; /* the client's newest launch there when it was freed */
} tsr__cached_block;

typedef struct tsr__cache_counts {
    uint64_t bytes, rounded, hits, frees;
} tsr__cache_counts;

struct tsr_client {
    _Atomic uint32_t refs;
    _Atomic bool dead;
    /* The process that opened it, and tsr__fork_generation() then: a child
     * of a fork shares the socket and the ring with its parent, and must
     * not use them (tsr__forked). */
    int opener;
    uint32_t fork_generation;
    int fd;
    int doorbell_fd;
    uint32_t session_id, version;
    int32_t timeout_ms;
    tsr__ring *ring;
    _Atomic uint32_t spin_ns;      /* how long the ring transport spins now */
    _Atomic uint32_t wait_spin_ns; /* how long a wait for a kernel spins now (queues.c) */
    _Atomic uint64_t next_request;
    pthread_mutex_t sock_lock;
    /* transport.c: requests this client stopped waiting for (a timeout)
     * that the daemon may still serve. abandoned[k] is the request id
     * still posted in ring slot k (0: none), which stays claimed until its
     * reply is reconciled; socket_abandoned counts the socket requests
     * whose replies have not been read yet, and orphans are blocks of late
     * socket ALLOC replies waiting to be freed (both under sock_lock). */
    _Atomic uint64_t abandoned[TSR__RING_SLOTS];
    _Atomic uint32_t abandoned_count;
    _Atomic uint32_t socket_abandoned;
    uint64_t orphans[4];
    uint32_t orphan_count;

    tsr__wire_device_info *devices; /* the daemon's registry */
    uint32_t device_count;
    /* The type of every registry entry between cpu and meta, as the
     * daemon reports it; TSR_DEVICE_TYPE_COUNT when it has none. */
    tsr_device_type accelerator;
    int32_t daemon_accelerators;       /* devices of that type the daemon has */
    int32_t visible[TSR__MAX_VISIBLE]; /* client ordinal -> the daemon's ordinal for this session */
    int32_t visible_count;

    /* memory.c */
    pthread_mutex_t seg_lock;
    tsr__client_segment *segments;
    uint32_t segment_count, segment_cap;

    /* queues.c: per queue record of the ring (the daemon's accelerator
     * ordinal, which LAUNCH and FILL replies name), the newest launch this
     * client made and how many queue errors it has reported. */
    _Atomic uint32_t issued[TSR__RING_QUEUES];
    _Atomic uint32_t errors_seen[TSR__RING_QUEUES];
    /* The queue record of each accelerator by the session's ordinal, as
     * LAUNCH replies tell it; -1 until the first launch there. The two
     * numberings differ when tesserad's devices.visible renumbers devices
     * for its sessions. */
    _Atomic int32_t queue_of[TSR__MAX_VISIBLE];

    /* memory.c: the block cache */
    pthread_mutex_t cache_lock;
    tsr__cached_block cache[TSR__CACHE_BLOCKS];
    uint32_t cache_count;
    uint64_t cache_bytes;
    tsr__cache_counts counts[TSR__RING_QUEUES]; /* per queue: held now, hits and frees so far */
};

/* Notes a queued launch's sequence on its queue record (`issued`, only
 * ever raised; threads race, so the max is kept). From its reply, or from
 * a late one (transport.c): a launch whose call gave up waiting still
 * runs, and a synchronize must wait for it. */
static inline void tsr__note_launch(tsr_client *c, const tsr__wire_launched *l)
{
    if (l->sequence == 0 || l->queue >= TSR__RING_QUEUES)
        return;
    _Atomic uint32_t *issued = &c->issued[l->queue];
    uint32_t seen = atomic_load(issued);
    while ((int32_t)(l->sequence - seen) > 0 &&
           !atomic_compare_exchange_weak(issued, &seen, l->sequence))
        ;
}

static inline void tsr__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- transport.c ---- */

uint64_t tsr__now_ns(void);
/* How many forks this process descends through since the library first
 * watched (pthread_atfork, registered by the first call). */
uint32_t tsr__fork_generation(void);
/* TSR_ERR_CONNECTION when `client` was opened before a fork that made
 * this process (its socket and ring are the parent's), else TSR_OK. */
tsr_status tsr__forked(const tsr_client *client);
/* The same question, setting no error. */
bool tsr__is_forked(const tsr_client *client);
/* Marks the client failed for good; returns TSR_ERR_CONNECTION. */
tsr_status tsr__daemon_gone(tsr_client *client);
/* Whether the daemon hung up (without consuming anything). */
bool tsr__socket_hung_up(tsr_client *client);
/* For a wait that sleeps in futex steps: true once a step
 * (TSR__SLEEP_STEP_NS) has passed since *checked (which then moves on),
 * whatever woke the futex: a signal every few milliseconds (a profiler's)
 * or a word that keeps changing must not keep a wait from looking for a
 * dead daemon or its deadline. */
static inline bool tsr__step_passed(uint64_t *checked)
{
    uint64_t now = tsr__now_ns();
    if (now - *checked < TSR__SLEEP_STEP_NS)
        return false;
    *checked = now;
    return true;
}
/* One request and its reply over the socket. Descriptors that come with
 * the reply go to fds (exactly *nfds are expected; it is set to how many
 * came); the caller owns them on success. TSR_ERR_LIMIT when this process
 * had no room for them (the kernel dropped them): the reply is written
 * all the same, so that the caller can give back what it names. */
tsr_status tsr__socket_call(tsr_client *client, uint32_t opcode, const void *request,
                            uint32_t request_size, void *reply, uint32_t reply_size, int *fds,
                            int *nfds);
/* One request and its reply through a ring slot (the socket when every
 * slot is taken). */
tsr_status tsr__ring_call(tsr_client *client, uint32_t opcode, const void *request,
                          uint32_t request_size, void *reply, uint32_t reply_size);

/* Waits until the daemon has answered every request this client stopped
 * waiting for (a timeout), on the socket and on the ring, and settles
 * their replies: a
 * synchronize then knows of every launch the daemon queued. Errors:
 * TSR_ERR_CONNECTION (the daemon is gone). */
tsr_status tsr__transport_settle(tsr_client *client);

/* Maps `bytes` of a memfd the daemon passed, read-write and shared, after
 * checking that the file is at least that long and sealed against
 * shrinking (so no access through the mapping can fault). The caller
 * keeps fd. Errors: TSR_ERR_PROTOCOL (the file fails a check),
 * TSR_ERR_OUT_OF_MEMORY (mmap failed). */
tsr_status tsr__map_shared(int fd, uint64_t bytes, const char *what, void **out);
/* The same for `bytes` from `offset` (a multiple of the page size),
 * read-only unless `writable`. */
tsr_status tsr__map_shared_range(int fd, uint64_t offset, uint64_t bytes, bool writable,
                                 const char *what, void **out);

/* ---- devices.c ---- */

/* The daemon's name for a device of the caller's: resolved (an index-less
 * accelerator becomes the thread's current one) and renumbered to the
 * session's ordinals. cpu and meta are refused: the daemon holds no memory
 * of theirs. Errors: TSR_ERR_INVALID_ARGUMENT, TSR_ERR_NO_DEVICE. */
tsr_status tsr__client_daemon_device(tsr_client *client, tsr_device device, tsr__wire_device *out);

/* ---- memory.c ---- */

void tsr__memory_init(tsr_client *client);
/* Unmaps every segment and frees what memory.c holds; the client is
 * going away. */
void tsr__memory_fini(tsr_client *client);
/* What the block cache holds of queue q, and its hits and frees so far. */
tsr__cache_counts tsr__memory_cache_counts(tsr_client *client, int32_t queue);

/* ---- queues.c ---- */

void tsr__queues_init(tsr_client *client);

#endif /* TESSERA_LIBCLIENT_CONNECTION_H */
