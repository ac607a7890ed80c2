/* The messages between tesserad and a kernel worker (a backend's worker
 * executable, e.g. opencl/worker.c), over a SOCK_SEQPACKET socketpair the
 * daemon made before it exec'd the worker. One message per packet; the
 * daemon sends descriptors with SCM_RIGHTS (a program's source, the
 * segments a launch touches), the worker none. The worker trusts the
 * daemon (its parent, which checked every client field first) but still
 * checks every size and index it reads; the daemon trusts nothing the
 * worker says beyond what a failed or finished request is, since the
 * worker runs the client's code.
 *
 * The daemon starts a worker as `WORKER serve FD DEVICE CACHE`: CACHE is
 * the directory of that uid's compiled programs ("" for none), a folder
 * of the daemon's program cache of its own per uid, so that a program
 * one user's compiler made is never loaded for another.
 *
 * The worker answers requests in order: BUILD with BUILT (and, where the
 * BUILT says so, LOADED after it), LAUNCH with DONE; RELEASE and FORGET
 * get no answer. Layouts are the same on both sides (same
 * build), so structs travel as they are. */
#ifndef TESSERA_DAEMON_WORKER_WIRE_H
#define TESSERA_DAEMON_WORKER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/protocol.h"

#define TSR__WORKER_KERNELS 16u /* kernels of one program, at most */

/* The worker's exit status when a kernel failed on the device: a GPU's
 * driver loses the whole context with a kernel that faults (an access out
 * of bounds), so the worker ends, as it does on a CPU device by its own
 * crash, and the daemon says why. */
#define TSR__WORKER_EXIT_KERNEL_FAILED 70
#define TSR__WORKER_MESSAGE 240u

enum {
    TSR__WORKER_BUILD = 1,
    TSR__WORKER_LAUNCH = 2,
    TSR__WORKER_RELEASE = 3,
    TSR__WORKER_FORGET = 4,
    TSR__WORKER_BUILT = 101,
    TSR__WORKER_DONE = 102,
    TSR__WORKER_LOADED = 103,
};

/* tsr__worker_built.flags */
#define TSR__WORKER_BUILT_CACHED 1u  /* the binary came from the disk cache */
#define TSR__WORKER_BUILT_LOADING 2u /* a success whose binary is still to come: LOADED follows */

/* Sent with one descriptor: a sealed memfd holding exactly source_bytes
 * of source. */
typedef struct tsr__worker_build {
    uint32_t op; /* TSR__WORKER_BUILD */
    uint32_t program;
    uint32_t build_ms; /* the compiler's wall-clock limit */
    uint32_t format;   /* TSR__WIRE_PROGRAM_FORMAT_* */
    uint64_t source_bytes;
    uint64_t build_memory; /* the compiler's address-space limit, bytes */
    char options[TSR__WIRE_PROGRAM_OPTIONS];
} tsr__worker_build;

typedef struct tsr__worker_kernel {
    char name[TSR__WIRE_KERNEL_NAME];
    uint32_t nargs, pad;
    tsr__wire_kernel_arg args[TSR__WIRE_KERNEL_ARGS];
} tsr__worker_kernel;

/* The answer to BUILD: a status, the log's end, and the kernels (only
 * nkernels of them travel). A program the compiler described is answered
 * as soon as it is built and described (flags TSR__WORKER_BUILT_LOADING):
 * its binary, which takes a driver such as PoCL longer to make than the
 * build itself, is loaded after, and LOADED says when it is (launches of
 * the program that reach the worker first wait for it). */
typedef struct tsr__worker_built {
    uint32_t op; /* TSR__WORKER_BUILT */
    uint32_t program;
    int32_t status; /* TSR_OK, else why it failed (the log says more) */
    uint32_t nkernels;
    uint32_t log_length;
    uint32_t flags; /* TSR__WORKER_BUILT_* */
    char log[TSR__WIRE_BUILD_LOG];
    tsr__worker_kernel kernels[TSR__WORKER_KERNELS];
} tsr__worker_built;

typedef struct tsr__worker_arg {
    uint32_t kind;    /* TSR__KARG_* */
    uint32_t size;    /* VALUE: bytes of value */
    uint32_t segment; /* GLOBAL, CONSTANT: which of the launch's segments */
    uint32_t pad;
    uint64_t segment_bytes; /* the segment's size, checked against the memfd */
    uint64_t offset;        /* GLOBAL, CONSTANT: bytes into the segment; LOCAL: bytes */
    uint64_t extent;        /* GLOBAL, CONSTANT: bytes from offset the kernel may touch */
    uint8_t value[16];
} tsr__worker_arg;

/* Segments a worker keeps open, by slot: the daemon decides what each
 * slot holds and passes a segment's memfd only when it puts the segment in
 * a slot, so that a launch over segments its worker has seen carries no
 * descriptor (each one passed cost both sides system calls and a wake-up's
 * worth of latency). A slot is reused, least recently used first, when a
 * launch needs it; when the daemon releases a segment (or the session
 * ends) it sends FORGET for the slots that hold it, at once. */
#define TSR__WORKER_SEGMENTS 64u

/* A launch names its distinct segments (those its tensors lie in, and,
 * where `ring` names it, the session's request ring) by the worker's
 * slots; bit j of `fresh` says that segment j comes with its memfd, the
 * message's descriptors in the order of those bits, to be kept in its slot
 * in place of what the slot held. The ring (core/ring.h): a launch that
 * succeeds is published there by the
 * worker itself, as the daemon would publish it (ring_queue's completed
 * raised to `sequence`, its waiter woken), so that the caller need not
 * wait for the daemon to hear of it. The ring is the client's own memory,
 * which the client may scribble on at will: what a worker of its uid
 * writes there can do nothing that the client could not, and the daemon
 * still publishes every launch when it hears of it (failures only from
 * the daemon, with their message). A session's launches may be with the
 * worker together, so the worker publishes none after a launch that
 * failed there until the daemon has read that answer (`acked`), else a
 * synchronize could return before the failure is in the ring. */
typedef struct tsr__worker_launch {
    uint32_t op; /* TSR__WORKER_LAUNCH */
    uint32_t launch;
    uint32_t program, kernel;
    uint32_t work_dim, nargs;
    uint32_t nsegments, ring; /* segments in all; which is the ring's (UINT32_MAX: none) */
    uint32_t slots[TSR__WIRE_KERNEL_ARGS + 1u]; /* each segment's slot */
    uint32_t ring_queue, sequence;
    uint32_t acked; /* the last launch whose answer the daemon had read when it sent this */
    uint32_t pad;
    uint64_t fresh; /* segments passed with their memfd, a bit each */
    uint64_t global[3], local[3];
    tsr__worker_arg args[TSR__WIRE_KERNEL_ARGS];
} tsr__worker_launch;

/* Segments (and so descriptors) of a launch, at most: its tensors' and
 * the ring. */
#define TSR__WORKER_LAUNCH_FDS (TSR__WIRE_KERNEL_ARGS + 1u)
_Static_assert(TSR__WORKER_LAUNCH_FDS <= 64u, "a launch's fresh segments are bits of a uint64_t");
_Static_assert(TSR__WORKER_LAUNCH_FDS <= TSR__WORKER_SEGMENTS,
               "a launch's segments fit in the worker's slots together");

typedef struct tsr__worker_done {
    uint32_t op; /* TSR__WORKER_DONE */
    uint32_t launch;
    int32_t status;
    uint32_t pad;
    char message[TSR__WORKER_MESSAGE];
} tsr__worker_done;

/* After a BUILT with TSR__WORKER_BUILT_LOADING: the program's binary is
 * loaded (status TSR_OK), or why not; then every launch of the program
 * fails with that message. */
typedef struct tsr__worker_loaded {
    uint32_t op; /* TSR__WORKER_LOADED */
    uint32_t program;
    int32_t status;
    uint32_t pad;
    char message[TSR__WORKER_MESSAGE];
} tsr__worker_loaded;

typedef struct tsr__worker_release {
    uint32_t op; /* TSR__WORKER_RELEASE */
    uint32_t program;
} tsr__worker_release;

/* Slots whose segments the daemon released, a bit each: the worker
 * unmaps them and closes their memfds (once no launch in flight can use
 * them). The daemon punched the segment's pages out, but a kernel that
 * wrote through a mapping the worker kept would fill them again, memory
 * that no limit charges, until the slot's next use. */
typedef struct tsr__worker_forget {
    uint32_t op; /* TSR__WORKER_FORGET */
    uint32_t pad;
    uint64_t slots;
} tsr__worker_forget;
_Static_assert(TSR__WORKER_SEGMENTS <= 64u, "FORGET's slots are bits of a uint64_t");

/* What each side receives into: one packet, read whole (a longer one is
 * malformed, never cut to fit). */
typedef union tsr__worker_request {
    uint32_t op;
    tsr__worker_build build;
    tsr__worker_launch launch;
    tsr__worker_release release;
    tsr__worker_forget forget;
} tsr__worker_request;

typedef union tsr__worker_answer {
    uint32_t op;
    tsr__worker_built built;
    tsr__worker_done done;
    tsr__worker_loaded loaded;
} tsr__worker_answer;

/* The layouts tests/fuzz/gen_worker_wire_corpus.py writes its seeds in. */
_Static_assert(sizeof(tsr__worker_build) == 544, "BUILD's layout");
_Static_assert(sizeof(tsr__worker_launch) == 2032 && offsetof(tsr__worker_launch, fresh) == 184,
               "LAUNCH's layout");
_Static_assert(sizeof(tsr__worker_release) == 8, "RELEASE's layout");
_Static_assert(sizeof(tsr__worker_forget) == 16, "FORGET's layout");
_Static_assert(sizeof(tsr__worker_built) == 37016 && offsetof(tsr__worker_built, kernels) == 3096,
               "BUILT's layout");
_Static_assert(sizeof(tsr__worker_done) == 256, "DONE's layout");
_Static_assert(sizeof(tsr__worker_loaded) == 256, "LOADED's layout");

/* ---- Reading a packet (daemon/worker_wire.c) ----------------------------
 * Pure functions over a received packet, shared by both sides and the
 * fuzz target `worker_wire`: what they accept is all that the worker's
 * and the daemon's code that follows may rely on. */

/* The worker's side: which request the packet in *m is (TSR__WORKER_BUILD,
 * _LAUNCH, _RELEASE, _FORGET), or 0 where it is none the daemon sends: `len` is the
 * packet's whole length, `cut` says its descriptors did not all fit, and
 * `nfds` came with it. A BUILD has its options NUL-terminated here; a
 * LAUNCH has passed tsr__worker_launch_segments_ok (its slots and
 * descriptors agree: else the worker's slots would no longer be what the
 * daemon believes, so 0 ends the worker). */
uint32_t tsr__worker_request_read(tsr__worker_request *m, size_t len, bool cut, int nfds);

/* Whether a launch's segments are as the daemon sends them: as many
 * descriptors as fresh segments, each segment in a slot of its own. */
bool tsr__worker_launch_segments_ok(const tsr__worker_launch *l, int nfds);

/* Whether a launch's fields are in their bounds: its sizes, work
 * dimensions, ring, and every argument's kind and, for a tensor, its
 * segment (a launch's own, not its ring) and its range inside the
 * segment's bytes, which every argument in that segment gives alike.
 * A launch that is not is answered as malformed. */
bool tsr__worker_launch_ok(const tsr__worker_launch *l);

/* The daemon's side: whether the packet in *m (len: its whole length) is
 * the answer the worker owes next, `op` of `id`: DONE of a launch, BUILT
 * or LOADED of a program. */
bool tsr__worker_answer_ok(const tsr__worker_answer *m, size_t len, uint32_t op, uint32_t id);

/* A DONE as the daemon may pass it on: its status (one of tsr_status,
 * else TSR_ERR_DEVICE), its message NUL-terminated. */
int32_t tsr__worker_done_read(tsr__worker_done *d);

/* A LOADED, likewise. */
int32_t tsr__worker_loaded_read(tsr__worker_loaded *l);

/* A BUILT of `len` bytes as the daemon may keep it: its status as
 * tsr__worker_done_read gives it, and TSR_ERR_DEVICE for a success whose
 * kernels do not fill the packet exactly; log_length the length of the
 * log, now NUL-terminated; on success nkernels at most
 * TSR__WORKER_KERNELS, each kernel's texts NUL-terminated, its nargs at
 * most TSR__WIRE_KERNEL_ARGS (else 0), each argument of a known kind and
 * a value of at most 16 bytes (else a value of 0 bytes, which a launch
 * refuses); on failure nkernels 0. */
int32_t tsr__worker_built_read(tsr__worker_built *b, size_t len);

#endif /* TESSERA_DAEMON_WORKER_WIRE_H */
