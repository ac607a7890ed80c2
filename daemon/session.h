/* Sessions: one per client connection.
 *
 * A session owns its socket, its request ring and doorbell, the current
 * device of each client thread, one caching allocator per device and the
 * memfd segments behind them. Everything a session holds is released when
 * it ends, whether the client said goodbye, crashed or was killed, or sent
 * a malformed frame. Requests arrive through the socket or the ring and go
 * through one dispatcher (handlers.c) after tsr__wire_check.
 *
 * A session is reference counted: its connection holds one reference and
 * every kernel in flight (exec.c) one more. When the connection ends the
 * session is `ending`: its socket, timers and ring watch are gone and it
 * serves nothing, but it stays on the server's list, holding its memory,
 * until the last reference goes; then it leaves the list and is freed.
 * Only the loop thread takes or drops references. */
#ifndef TESSERA_DAEMON_SESSION_H
#define TESSERA_DAEMON_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "core/protocol.h"
#include "core/ring.h"
#include "daemon/alloc.h"
#include "daemon/procinfo.h"
#include "daemon/server.h"

#define TSR__SESSION_MAX_THREADS 4096
#define TSR__SESSION_MAX_SEGMENTS 16384
/* Kernels (launches, fills, product pieces, user kernels) queued and not
 * yet retired: each is a job of over a kilobyte of the daemon's. */
#define TSR__SESSION_MAX_QUEUED TSR__RING_MAX_QUEUED
#define TSR__SESSION_HELLO_SECONDS 10 /* a connection must say HELLO within this */
#define TSR__SESSION_REFUSAL_TEXT 192 /* a session cap's reason (the server's refusal text) */

typedef struct tsr__thread_device {
    uint64_t thread_id;
    int32_t opencl_index; /* the thread's current opencl device, by registry ordinal */
} tsr__thread_device;

typedef struct tsr__segment {
    uint32_t id;
    int fd;
    void *base; /* the daemon's mapping */
    uint64_t bytes;
    tsr__registry_device *device;
    void *device_buffer; /* the device's buffer over base, made at its first kernel (exec.c) */
    /* Another session's segment this one imported (share.c): fd is this
     * session's own descriptor of it, base the owner's mapping; the owner
     * charges and releases the memory, but for `charged`: on a device with
     * memory of its own, this session's device buffer over it, charged to
     * this session (device, session, uid and group limits). */
    bool foreign, charged;
} tsr__segment;

/* An allocation the session exported (share.c): the capability's id and
 * secret, the block and the view importers get, who may import it, and
 * how many imports hold it now. Kept until the block is freed and the
 * last import is released. */
typedef struct tsr__export {
    uint64_t id;
    uint8_t secret[16];
    uint64_t handle; /* the block */
    uint32_t flags;  /* TSR__WIRE_EXPORT_* */
    uint32_t allow_uid, allow_gid;
    int32_t dtype;
    tsr__wire_region region;
    uint32_t imports; /* live imports of it, in any session */
    /* A block of host memory (cpu tensors): its memfd (this export's own
     * descriptor) and size; -1 for a device block. */
    int host_fd;
    uint64_t host_bytes;
    bool revoked;
    bool freed; /* its session freed the block (or ended): no new imports */
} tsr__export;

/* A block of another session that this one imported: its handle here
 * (below 2^32, which no allocator handle is), the segment of this session
 * that maps it (0 for host memory, which the daemon does not map), and the
 * owner, whom the import holds a reference on. */
typedef struct tsr__import {
    uint64_t handle;
    uint32_t segment_id;
    uint32_t ordinal; /* the accelerator's registry ordinal */
    uint64_t offset, size;
    bool read_only;
    tsr__session *owner;
    uint64_t export_id;
    int host_fd; /* of host memory: the descriptor handed over; -1 for a device block */
} tsr__import;

/* A FREE that waits for the session's kernels on a device (memory.c). */
typedef struct tsr__deferred_free {
    uint64_t handle;
    bool shared;       /* freed by the session while imports hold it: waits for them, not kernels */
    uint32_t queue;    /* the accelerator's ordinal */
    uint32_t sequence; /* freed once the launch with this sequence is done */
} tsr__deferred_free;

/* What a device's allocator needs to reach back to its session. */
typedef struct tsr__device_pool {
    tsr__session *session;
    tsr__registry_device *device;
    uint32_t ordinal; /* the device's registry ordinal among the accelerators */
    tsr__allocator *allocator;
} tsr__device_pool;

/* What a session has on one accelerator: its memory (memory.c) and its
 * kernels (exec.c). */
typedef struct tsr__session_device {
    tsr__device_pool pool;     /* pool.allocator is NULL until the first allocation */
    uint32_t launch_seq;       /* the last launch's sequence */
    _Atomic uint32_t finished; /* the newest finished launch (driver threads) */
    uint32_t inflight;         /* launches not yet retired */
    uint32_t in_worker;        /* user kernels' launches given to its worker, not retired */
    bool empty_pending;        /* EMPTY_CACHE came while frees waited behind kernels */
    /* Those of them not yet finished, oldest first (exec.c's jobs): they
     * finish in that order, whoever ends them. */
    struct tsr__exec_job *user_first, *user_last;
} tsr__session_device;

struct tsr__session {
    tsr__server *server;
    tsr__session *prev, *next;
    uint32_t id;
    int fd;
    tsr__watch *watch;
    pid_t pid;
    uid_t uid;
    gid_t gid;
    char command[TSR__WIRE_TEXT];
    char name[TSR__WIRE_TEXT];
    uint64_t started_unix_ns;
    uint64_t requests;
    uint64_t launches; /* kernels queued (exec.c) */
    uint64_t busy_ns;  /* its share of its devices' busy time (exec.c) */
    uint32_t version;  /* 0 until HELLO */
    bool admin;        /* root or tessera-admin: decided at HELLO */
    /* A monitoring connection (HELLO's MONITOR flag): queries only, no
     * ring, counted under sessions.max_monitors and under no session cap,
     * listed nowhere. */
    bool monitor;
    /* Why the connection came in over a session cap (sessions.max, the
     * per-uid cap), else "": it may open only a monitoring connection, and
     * a HELLO for a session is answered with this. */
    char over_cap[TSR__SESSION_REFUSAL_TEXT];
    /* Why its last allocation failed, for the daemon's counters: a memory
     * limit (true) or a full device (false). */
    bool refused_at_limit;
    /* The limit's scope (tsr__limit_scope) when refused_at_limit; which
     * refusals it has had logged: bit 1 << scope for a limit's, bit 8 for
     * a full device's. */
    uint32_t refused_scope;
    uint32_t refusals_logged;
    int hello_timer; /* ends the session if HELLO does not come in time */
    tsr__watch *hello_watch;
    /* References: the connection's (until it ends) and one per kernel in
     * flight. `ending`: the connection is over, kernels keep the rest.
     * `owner`: what /proc said of the client then, as its pid may name
     * another process later (NULL: not kept). */
    uint32_t refs;
    bool ending;
    tsr__proc_owner *owner;

    tsr__ring *ring;
    int ring_fd, doorbell_fd;
    tsr__watch *doorbell_watch;
    uint32_t doorbell_seen;
    /* On the server's list of rings with work (server.h): the links, and
     * the poller passes since the ring last had work. */
    bool ready;
    tsr__session *ready_prev, *ready_next;
    uint32_t idle_passes;

    /* The OpenCL devices the session sees, fixed at HELLO from the
     * server's devices.visible (a reload changes only later sessions): its
     * opencl:k is the registry's opencl:visible[k]. Everything the session
     * keeps per device (memory, threads' current devices, kernels) is
     * by registry ordinal; handlers.c translates what crosses the wire. */
    int32_t *visible;
    uint32_t visible_count;
    /* Where the client ran when it said HELLO (procinfo.h): what the
     * devices.visible.* and memory_limit.* lines keyed on a unit, slice
     * or cgroup look at, for the session's whole life. */
    tsr__proc_place place;

    tsr__thread_device *threads;
    uint32_t thread_count;

    /* One per accelerator, by registry ordinal, made at the first
     * allocation (memory.c); NULL before. */
    tsr__session_device *devices;
    tsr__segment *segments;
    uint32_t segment_count, segment_cap, next_segment_id;

    /* Kernels (exec.c): the launches not yet retired on every device, and
     * the frees waiting behind them. */
    uint32_t inflight_total;
    /* User programs (user.c), newest first. */
    struct tsr__user_program *programs;
    uint32_t program_count, next_program;
    tsr__deferred_free *deferred;
    uint32_t deferred_count, deferred_cap;

    /* Sharing (share.c): what it exported, what it imported. */
    tsr__export *exports;
    uint32_t export_count, export_cap;
    tsr__import *imports;
    uint32_t import_count, import_cap;
};

/* The session's place as the configuration and the limits take it. */
static inline tsr__place tsr__session_place(const tsr__session *s)
{
    return (tsr__place){.cgroup = s->place.cgroup, .unit = s->place.unit, .slice = s->place.slice};
}

/* Whose memory the session's charges are (limits.h). */
static inline tsr__limits_who tsr__session_who(const tsr__session *s)
{
    return (tsr__limits_who){
        .uid = s->uid, .gid = s->gid, .session = s->id, .place = tsr__session_place(s)};
}

/* Takes a freshly accepted connection of the peer `cred`, admitted by the
 * server (its uid has a row); `over_cap` is "" or why a session of it
 * would be over a session cap (tsr__session.over_cap). On failure the fd
 * is closed. */
tsr_status tsr__session_start(tsr__server *server, int fd, const struct ucred *cred,
                              const char *over_cap);
/* Ends the session's connection (once; an ending session is left as it
 * is): closes its socket and timers, takes its ring off the poller and
 * its count off the server's, then drops the connection's reference, so
 * everything it holds is released at once or, kernels in flight, after
 * its last kernel. */
void tsr__session_end(tsr__session *session, const char *why);

/* A session with no connection, ring watch or handshake timer, for
 * serving frames in this process (tsr__server_init_detached); ended with
 * tsr__session_end like any other. */
tsr_status tsr__session_open_detached(tsr__server *server, const struct ucred *cred,
                                      tsr__session **out);

typedef enum tsr__session_served {
    TSR__SERVED_KEEP,      /* replied; the session goes on */
    TSR__SERVED_END,       /* replied; the session must end once the reply is sent */
    TSR__SERVED_MALFORMED, /* no reply: the frame fails tsr__wire_check (message set) */
} tsr__session_served;

/* One received frame, as either transport delivers it: checked with
 * tsr__wire_check, then dispatched (tsr__session_handle), logging the
 * session's opening when this was its HELLO. The socket and ring paths and
 * the dispatcher fuzzer all come through here; the caller sends the reply
 * and ends the session when told to. */
tsr__session_served tsr__session_serve_frame(tsr__session *s, const uint8_t *frame, size_t len,
                                             uint32_t transport, uint8_t *reply,
                                             uint32_t *reply_len, int *fds, int *nfds);

/* Serves the ring's pending requests; returns how many. */
unsigned tsr__session_serve_ring(tsr__session *session);

#endif /* TESSERA_DAEMON_SESSION_H */
