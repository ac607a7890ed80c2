/* Internal: the layout of a session's shared-memory request ring.
 *
 * The daemon creates the ring (a memfd) for each session and passes it in
 * the HELLO reply together with an eventfd, the doorbell. The ring holds a
 * header and TSR__RING_SLOTS slots; one slot carries one request frame and
 * then its reply frame (protocol.h), so a client thread's round trip is:
 *
 *   client: FREE -> CLAIMED (compare-and-swap), write frame,
 *           store REQUEST, bump doorbell; if daemon_sleeping, write the
 *           eventfd. Spin on state for a bounded time, then set
 *           client_waiting and futex-wait on state.
 *   daemon: REQUEST -> SERVING (compare-and-swap), copy the frame out and
 *           check it like a socket frame, write the reply frame, store
 *           REPLY; if client_waiting, futex-wake state.
 *   client: read the reply, store FREE.
 *
 * The daemon spins over its rings while requests keep coming and, before
 * sleeping in epoll, sets daemon_sleeping and re-reads the doorbell (both
 * sequentially consistent, so a request posted meanwhile is never missed).
 * Idle clients and an idle daemon therefore use no CPU, and a busy pair
 * exchanges requests without a system call.
 *
 * The client writes all of this memory and may scribble on it at will: the
 * daemon reads only slots it moved to SERVING, copies the frame before
 * looking at it, and bounds every length. Futex calls name the shared
 * mapping (no FUTEX_PRIVATE_FLAG), since two processes wait on it. */
#ifndef TESSERA_CORE_RING_H
#define TESSERA_CORE_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/protocol.h"

#define TSR__RING_MAGIC 0x474e4952u /* "RING" */
#define TSR__RING_SLOTS 32u
#define TSR__RING_SLOT_SIZE 2048u
#define TSR__RING_SLOT_HEAD 16u /* the frame starts in the state's cache line */
#define TSR__RING_FRAME_MAX (TSR__RING_SLOT_SIZE - TSR__RING_SLOT_HEAD)

enum tsr__ring_state {
    TSR__SLOT_FREE,
    TSR__SLOT_CLAIMED, /* a client thread is writing its request */
    TSR__SLOT_REQUEST, /* posted, waiting for the daemon */
    TSR__SLOT_SERVING, /* the daemon took it */
    TSR__SLOT_REPLY    /* the reply is in the slot */
};

typedef struct tsr__ring_header {
    uint32_t magic, version, slot_count, slot_size;
    _Atomic uint32_t doorbell;        /* bumped by clients after each post */
    _Atomic uint32_t daemon_sleeping; /* 1: write the eventfd after posting */
    /* Raised by the daemon each time one of the session's program builds
     * ends (built, failed, or its worker gone), every waiter then woken:
     * the futex word tsr_program_wait sleeps on between asking. */
    _Atomic uint32_t builds_ended;
    uint8_t pad[36];
} tsr__ring_header;

typedef struct tsr__ring_slot {
    _Atomic uint32_t state;          /* enum tsr__ring_state; the futex word */
    _Atomic uint32_t client_waiting; /* 1: the client sleeps on state */
    uint32_t frame_len;
    uint8_t pad[TSR__RING_SLOT_HEAD - 12];
    uint8_t frame[TSR__RING_FRAME_MAX];
} tsr__ring_slot;

/* The session's kernel queue on one device, written by the daemon only
 * (from the driver's completion threads): how far the queue got and the
 * last error a kernel met. The client waits on `completed` and compares
 * `errors` with the count it has already reported. */
#define TSR__RING_QUEUES 16u /* OpenCL devices with kernel queues */
#define TSR__RING_QUEUE_MESSAGE 240u
/* A session may have at most this many kernels queued and not finished
 * on all its devices together (the daemon refuses more: TSR_ERR_LIMIT);
 * the reference client waits while its share of one device (4096) is
 * queued there, as a CUDA launch blocks on a full launch queue, so that
 * launches alone never reach the limit. One product may still: its
 * pieces are each a kernel. */
#define TSR__RING_MAX_QUEUED 65536u
#define TSR__RING_CLIENT_DEPTH (TSR__RING_MAX_QUEUED / TSR__RING_QUEUES)
typedef struct tsr__ring_queue {
    _Atomic uint32_t completed; /* sequence of the last finished launch; the futex word */
    _Atomic uint32_t waiting;   /* client threads sleeping on completed */
    _Atomic uint32_t errors;    /* launches that failed so far */
    int32_t status;             /* the last failure's tsr_status */
    char message[TSR__RING_QUEUE_MESSAGE]; /* and its text, NUL-terminated */
} tsr__ring_queue;

typedef struct tsr__ring {
    tsr__ring_header header;
    tsr__ring_slot slots[TSR__RING_SLOTS];
    tsr__ring_queue queues[TSR__RING_QUEUES];
} tsr__ring;

_Static_assert(sizeof(tsr__ring_queue) == 256, "a queue record is four cache lines");

_Static_assert(sizeof(tsr__ring_header) == 64, "ring header is one cache line");
_Static_assert(sizeof(tsr__ring_slot) == TSR__RING_SLOT_SIZE, "slot size");
_Static_assert(sizeof(tsr__wire_header) + sizeof(tsr__wire_error) <= TSR__RING_FRAME_MAX,
               "an error reply must fit in a slot");
#define TSR__RING_FITS(op, code, req, rep, where, doc)                                   \
    _Static_assert(!((where)&TSR__WIRE_RING) ||                                          \
                       (sizeof(tsr__wire_header) + sizeof(req) <= TSR__RING_FRAME_MAX && \
                        sizeof(tsr__wire_header) + sizeof(rep) <= TSR__RING_FRAME_MAX),  \
                   #op " must fit in a ring slot");
TSR__WIRE_OPS(TSR__RING_FITS)
#undef TSR__RING_FITS

#endif /* TESSERA_CORE_RING_H */
