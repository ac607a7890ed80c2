/* The transports: the socket and the request ring.
 *
 * Owns the wire between this process and tesserad. The socket carries one
 * request at a time (under sock_lock) and the descriptors that come with
 * replies; the ring serves any number of threads at once, one slot each.
 * Replies are checked like requests are in the daemon: a garbled reply is
 * a protocol error, never trusted.
 *
 * A daemon that dies is noticed by the socket hanging up: a thread waiting
 * on the ring sleeps in bounded steps and looks at the socket between them,
 * so every call returns TSR_ERR_CONNECTION within a fraction of a second
 * instead of hanging, and the client stays failed from then on (`dead`).
 *
 * A daemon that is only slow is another matter: a request the client
 * stopped waiting for is still served later. Its reply is reconciled when
 * it comes (a ring slot stays claimed until then; a late socket reply is
 * recognised by its older id): an allocation served that late is freed
 * at once, so that nothing stays charged to the session that the client
 * does not know of, and a launch queued that late is noted, so that a
 * synchronize waits for its kernel (it first waits for the late replies
 * still to come, on either transport).
 * This file calls nothing else of the connection. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/ring.h"
#include "kernels/hugemem.h"
#include "libclient/connection.h"

#define SPIN_PROBE_EVERY 64 /* waits between full-length spins (see wait_reply) */

uint64_t tsr__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

tsr_status tsr__daemon_gone(tsr_client *c)
{
    atomic_store(&c->dead, true);
    return tsr__fail(TSR_ERR_CONNECTION,
                     "the connection to tesserad was lost (the daemon stopped or was killed); "
                     "reconnect with tsr_client_open once it runs again");
}

bool tsr__socket_hung_up(tsr_client *c)
{
    struct pollfd p = {.fd = c->fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

/* ---- The socket transport -------------------------------------------- */

static tsr_status check_reply(tsr_client *c, const uint8_t *frame, size_t len, uint32_t opcode,
                              uint64_t id, uint32_t transport, void *reply, uint32_t reply_size)
{
    (void)c;
    tsr__wire_header h;
    if (tsr__wire_check(frame, len, transport, true, &h) != TSR_OK)
        return TSR_ERR_PROTOCOL;
    if (h.opcode != opcode || h.request_id != id)
        return tsr__fail(
            TSR_ERR_PROTOCOL, "reply to request %llu (opcode %u) where %llu was expected",
            (unsigned long long)h.request_id, (unsigned)h.opcode, (unsigned long long)id);
    if (h.flags & TSR__WIRE_ERROR)
        return tsr__wire_error_raise(frame + sizeof h, h.length);
    if (h.length != reply_size)
        return tsr__fail(TSR_ERR_PROTOCOL, "reply of %u bytes where %u were expected",
                         (unsigned)h.length, (unsigned)reply_size);
    if (reply_size)
        memcpy(reply, frame + sizeof h, reply_size);
    return TSR_OK;
}

static void close_fds(const int *fds, int n)
{
    for (int k = 0; k < n; k++)
        close(fds[k]);
}

/* Whether the opcode's reply names a queued launch (tsr__wire_launched). */
static bool replies_launched(uint32_t opcode)
{
    switch (opcode) {
#define LAUNCHED(name, code, req, rep, where, doc) \
    case code:                                     \
        return _Generic((rep *)0, tsr__wire_launched * : true, default : false);
        TSR__WIRE_OPS(LAUNCHED)
#undef LAUNCHED
    }
    return false;
}

/* Settles the reply to a request an earlier call gave up on. A launch
 * it queued runs all the same: its sequence is noted for the
 * synchronizes to come (connection.h). A successful ALLOC's block is
 * returned (0 for anything else): nobody holds it, and the caller frees
 * it. */
static uint64_t settle_late(tsr_client *c, const uint8_t *frame, size_t len, uint32_t transport)
{
    tsr__wire_header h;
    if (tsr__wire_check(frame, len, transport, true, &h) != TSR_OK || (h.flags & TSR__WIRE_ERROR))
        return 0;
    tsr__wire_launched l;
    if (replies_launched(h.opcode) && h.length == sizeof l) {
        memcpy(&l, frame + sizeof h, sizeof l);
        tsr__note_launch(c, &l);
    }
    tsr__wire_block b;
    if (h.opcode != TSR__OP_ALLOC || h.length != sizeof b)
        return 0;
    memcpy(&b, frame + sizeof h, sizeof b);
    return b.handle;
}

static void free_orphan(tsr_client *c, uint64_t handle)
{
    tsr__wire_handle req = {.handle = handle};
    if (handle && !atomic_load(&c->dead))
        tsr__client_call(c, TSR__OP_FREE, &req, NULL);
}

/* Lets the socket go, then frees the blocks of the late ALLOC replies read
 * under it (through the ring or, with sock_lock let go, the socket). */
static void unlock_socket(tsr_client *c)
{
    uint64_t orphans[sizeof c->orphans / sizeof c->orphans[0]];
    uint32_t orphan_count = c->orphan_count;
    memcpy(orphans, c->orphans, orphan_count * sizeof orphans[0]);
    c->orphan_count = 0;
    pthread_mutex_unlock(&c->sock_lock);
    for (uint32_t k = 0; k < orphan_count; k++)
        free_orphan(c, orphans[k]);
}

/* One frame read from the socket: its length, whether it was longer than
 * the buffer, and the descriptors that came with it (those past four are
 * closed; descriptors_lost: the kernel dropped some for want of room). */
typedef struct socket_frame {
    size_t len;
    bool truncated, descriptors_lost;
    int fds[4];
    int nfds;
} socket_frame;

/* Reads the next frame, waiting until deadline (ns) for it. Errors:
 * TSR_ERR_CONNECTION (no frame by then; the daemon is gone). */
static tsr_status read_frame(tsr_client *c, uint64_t deadline, uint8_t *bytes, size_t cap,
                             socket_frame *f)
{
    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        uint64_t now = tsr__now_ns();
        if (now >= deadline)
            return tsr__fail(TSR_ERR_CONNECTION, "tesserad did not answer within %d ms",
                             (int)c->timeout_ms);
        uint64_t ms = (deadline - now) / 1000000u + 1;
        int r = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
        if (r < 0 && errno != EINTR)
            return tsr__fail(TSR_ERR_CONNECTION, "waiting for tesserad: poll: %s", strerror(errno));
        if (r > 0)
            break;
    }
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = bytes, .iov_len = cap};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n;
    do
        n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return tsr__daemon_gone(c);
    f->len = (size_t)n;
    f->truncated = (msg.msg_flags & MSG_TRUNC) != 0;
    f->descriptors_lost = (msg.msg_flags & MSG_CTRUNC) != 0;
    f->nfds = 0;
    for (struct cmsghdr *m = CMSG_FIRSTHDR(&msg); m; m = CMSG_NXTHDR(&msg, m)) {
        if (m->cmsg_level != SOL_SOCKET || m->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < count; k++) {
            int fd;
            memcpy(&fd, CMSG_DATA(m) + k * sizeof(int), sizeof(int));
            if (f->nfds < 4)
                f->fds[f->nfds++] = fd;
            else
                close(fd);
        }
    }
    return TSR_OK;
}

/* A late socket reply: settled, and its block kept for freeing once the
 * socket is let go. Caller holds sock_lock. */
static void take_late(tsr_client *c, const uint8_t *frame, const socket_frame *f)
{
    close_fds(f->fds, f->nfds);
    if (atomic_load(&c->socket_abandoned))
        atomic_fetch_sub(&c->socket_abandoned, 1u);
    if (f->truncated)
        return;
    uint64_t orphan = settle_late(c, frame, f->len, TSR__WIRE_SOCKET);
    if (orphan && c->orphan_count < sizeof c->orphans / sizeof c->orphans[0])
        c->orphans[c->orphan_count++] = orphan;
}

/* One request and its reply over the socket. Descriptors that come with
 * the reply go to fds (up to *nfds, which is updated); extra ones are
 * closed. Caller holds sock_lock. */
static tsr_status socket_call_locked(tsr_client *c, uint32_t opcode, const void *request,
                                     uint32_t request_size, void *reply, uint32_t reply_size,
                                     int *fds, int *nfds)
{
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
    } buf;
    uint64_t id = atomic_fetch_add(&c->next_request, 1);
    tsr__wire_header h;
    tsr__wire_header_init(&h, opcode, 0, request_size, id);
    memcpy(buf.bytes, &h, sizeof h);
    if (request_size)
        memcpy(buf.bytes + sizeof h, request, request_size);
    ssize_t sent;
    do
        sent = send(c->fd, buf.bytes, sizeof h + request_size, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return tsr__daemon_gone(c);
    int want = nfds ? *nfds : 0;
    if (nfds)
        *nfds = 0;
    uint64_t deadline = tsr__now_ns() + (uint64_t)c->timeout_ms * 1000000u;
    socket_frame f;
    tsr_status st;
    for (;;) {
        st = read_frame(c, deadline, buf.bytes, sizeof buf.bytes, &f);
        if (st != TSR_OK) {
            if (!atomic_load(&c->dead)) /* the daemon may still answer it */
                atomic_fetch_add(&c->socket_abandoned, 1u);
            return st;
        }
        tsr__wire_header late;
        if (f.truncated || f.len < sizeof late ||
            (memcpy(&late, buf.bytes, sizeof late), late.request_id >= id))
            break;
        /* The reply to a request an earlier call gave up on. */
        take_late(c, buf.bytes, &f);
    }
    int *got = f.fds, ngot = f.nfds;
    st = f.truncated
             ? tsr__fail(TSR_ERR_PROTOCOL, "oversized reply from tesserad")
             : check_reply(c, buf.bytes, f.len, opcode, id, TSR__WIRE_SOCKET, reply, reply_size);
    /* The kernel drops passed descriptors that this process has no room
     * for: the reply is there (the caller may give back what it names),
     * its descriptors are not. */
    if (st == TSR_OK && f.descriptors_lost) {
        close_fds(got, ngot);
        return tsr__fail(TSR_ERR_LIMIT,
                         "tesserad's reply to %s lost its descriptors: this process has no room "
                         "for more (RLIMIT_NOFILE)",
                         tsr__wire_op(opcode)->name);
    }
    if (st != TSR_OK || ngot != want) {
        close_fds(got, ngot);
        if (st == TSR_OK)
            st = tsr__fail(TSR_ERR_PROTOCOL, "reply with %d descriptors where %d were expected",
                           ngot, want);
        return st;
    }
    if (ngot) {
        memcpy(fds, got, (size_t)ngot * sizeof(int));
        *nfds = ngot;
    }
    return TSR_OK;
}

/* Bumped in each child a fork makes; registered at the first call. */
static atomic_uint forks;

static void on_fork_child(void)
{
    atomic_fetch_add(&forks, 1u);
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
}

uint32_t tsr__fork_generation(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    return atomic_load_explicit(&forks, memory_order_relaxed);
}

bool tsr__is_forked(const tsr_client *c)
{
    return c->fork_generation != atomic_load_explicit(&forks, memory_order_relaxed);
}

tsr_status tsr__forked(const tsr_client *c)
{
    if (!tsr__is_forked(c))
        return TSR_OK;
    return tsr__fail(TSR_ERR_CONNECTION,
                     "this client was opened by process %d, and this process was forked from "
                     "it: its connection to tesserad is the parent's; open a client of its own "
                     "(tsr_client_open)",
                     c->opener);
}

tsr_status tsr__socket_call(tsr_client *c, uint32_t opcode, const void *request,
                            uint32_t request_size, void *reply, uint32_t reply_size, int *fds,
                            int *nfds)
{
    tsr_status st = tsr__forked(c);
    if (st != TSR_OK)
        return st;
    if (atomic_load(&c->dead))
        return tsr__daemon_gone(c);
    pthread_mutex_lock(&c->sock_lock);
    st = socket_call_locked(c, opcode, request, request_size, reply, reply_size, fds, nfds);
    unlock_socket(c);
    return st;
}

/* ---- The ring transport ---------------------------------------------- */

static tsr__ring_slot *claim_slot(tsr_client *c)
{
    /* Threads start looking at different slots. The id is read once per
     * thread (gettid is a system call; a forked child keeps its parent's
     * value, which is only a hint). */
    static _Thread_local uint32_t tid;
    if (!tid)
        tid = (uint32_t)gettid();
    uint32_t start = tid % TSR__RING_SLOTS;
    for (uint32_t k = 0; k < TSR__RING_SLOTS; k++) {
        uint32_t at = (start + k) % TSR__RING_SLOTS;
        tsr__ring_slot *slot = &c->ring->slots[at];
        uint32_t expect = TSR__SLOT_FREE;
        /* An abandoned slot is the late reply's, whatever the daemon wrote
         * in its state: reconcile frees it. */
        if (atomic_load_explicit(&c->abandoned[at], memory_order_relaxed) == 0 &&
            atomic_load_explicit(&slot->state, memory_order_relaxed) == TSR__SLOT_FREE &&
            atomic_compare_exchange_strong(&slot->state, &expect, TSR__SLOT_CLAIMED))
            return slot;
    }
    return NULL;
}

/* Sets how long wait_reply spins, writing only a change. */
static void set_spin(tsr_client *c, uint32_t old, uint32_t spin_ns)
{
    if (spin_ns != old)
        atomic_store_explicit(&c->spin_ns, spin_ns, memory_order_relaxed);
}

/* Waits for the daemon to answer in `slot`: spin, then sleep on the futex
 * in bounded steps, looking at the socket between them.
 *
 * Spinning pays only while the daemon has a CPU of its own, so its length
 * adapts: a reply that comes while spinning makes it 4 times longer plus
 * 2 us (up to TSR__SPIN_NS), one that needs the futex halves it, and every
 * SPIN_PROBE_EVERY-th wait of a thread spins the full TSR__SPIN_NS, to notice
 * when spinning pays again (and, when this thread shares a CPU with the
 * daemon, to let the scheduler see two runnable tasks there and separate
 * them). Clients that outnumber the CPUs soon sleep at once and leave the
 * CPUs to the daemon: 64 clients always spinning 20 us on 2 CPUs left it
 * 0.15 of a CPU and under half the requests per second of a bare epoll
 * server. */
static tsr_status wait_reply(tsr_client *c, tsr__ring_slot *slot)
{
    static _Thread_local uint32_t waits;
    uint64_t start = tsr__now_ns();
    uint32_t spin_ns = atomic_load_explicit(&c->spin_ns, memory_order_relaxed);
    uint64_t limit = waits++ % SPIN_PROBE_EVERY == 0 ? TSR__SPIN_NS : spin_ns;
    for (unsigned spin = 0; limit > 0; spin++) {
        if (atomic_load_explicit(&slot->state, memory_order_acquire) == TSR__SLOT_REPLY) {
            uint32_t grown = 4 * spin_ns + 2000;
            set_spin(c, spin_ns, grown < TSR__SPIN_NS ? grown : TSR__SPIN_NS);
            return TSR_OK;
        }
        tsr__cpu_relax();
        if ((spin & 15) == 15 && tsr__now_ns() - start > limit)
            break;
    }
    set_spin(c, spin_ns, spin_ns / 2);
    uint64_t deadline = start + (uint64_t)c->timeout_ms * 1000000u;
    atomic_store(&slot->client_waiting, 1u);
    tsr_status st = TSR_OK;
    uint64_t checked = tsr__now_ns();
    for (;;) {
        uint32_t state = atomic_load(&slot->state);
        if (state == TSR__SLOT_REPLY)
            break;
        struct timespec step = {.tv_sec = 0, .tv_nsec = TSR__SLEEP_STEP_NS};
        syscall(SYS_futex, (uint32_t *)&slot->state, FUTEX_WAIT, state, &step, NULL, 0);
        if (!tsr__step_passed(&checked))
            continue;
        if (tsr__socket_hung_up(c)) {
            st = tsr__daemon_gone(c);
            break;
        }
        if (tsr__now_ns() > deadline) {
            st = tsr__fail(TSR_ERR_CONNECTION, "tesserad did not answer within %d ms",
                           (int)c->timeout_ms);
            break;
        }
    }
    atomic_store(&slot->client_waiting, 0u);
    return st;
}

/* Takes the reply of a slot's frame into buf (clamped to the frame size)
 * and frees the slot. */
static uint32_t take_reply(tsr__ring_slot *slot, uint8_t *buf)
{
    uint32_t len = slot->frame_len;
    if (len > TSR__RING_FRAME_MAX)
        len = TSR__RING_FRAME_MAX;
    memcpy(buf, slot->frame, len);
    atomic_store_explicit(&slot->state, TSR__SLOT_FREE, memory_order_release);
    return len;
}

/* Settles the abandoned slots whose late reply has come: frees the slot,
 * and the block when the reply is a successful allocation. One load when
 * there are none. */
static void reconcile(tsr_client *c)
{
    if (atomic_load_explicit(&c->abandoned_count, memory_order_relaxed) == 0)
        return;
    for (uint32_t k = 0; k < TSR__RING_SLOTS; k++) {
        uint64_t id = atomic_load(&c->abandoned[k]);
        tsr__ring_slot *slot = &c->ring->slots[k];
        if (id == 0 ||
            atomic_load_explicit(&slot->state, memory_order_acquire) != TSR__SLOT_REPLY ||
            !atomic_compare_exchange_strong(&c->abandoned[k], &id, 0))
            continue;
        union {
            uint64_t align;
            uint8_t bytes[TSR__RING_FRAME_MAX];
        } buf;
        uint32_t len = take_reply(slot, buf.bytes);
        atomic_fetch_sub(&c->abandoned_count, 1u);
        /* Only the abandoned request's own reply names a block nobody
         * holds. */
        tsr__wire_header h;
        if (len >= sizeof h && (memcpy(&h, buf.bytes, sizeof h), h.request_id == id))
            free_orphan(c, settle_late(c, buf.bytes, len, TSR__WIRE_RING));
    }
}

/* Reads the replies to the socket requests this client gave up on (every
 * frame is one while sock_lock is held between requests), until the
 * daemon has answered them all or is gone. */
static tsr_status settle_socket(tsr_client *c)
{
    if (atomic_load(&c->socket_abandoned) == 0)
        return TSR_OK;
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
    } buf;
    tsr_status st = TSR_OK;
    pthread_mutex_lock(&c->sock_lock);
    while (st == TSR_OK && atomic_load(&c->socket_abandoned) > 0) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN | POLLRDHUP};
        int r = poll(&p, 1, 100);
        socket_frame f;
        if (atomic_load(&c->dead))
            st = tsr__daemon_gone(c);
        else if (r > 0 && (p.revents & POLLIN))
            st = read_frame(c, UINT64_MAX, buf.bytes, sizeof buf.bytes, &f);
        else if (r > 0)
            st = tsr__daemon_gone(c); /* hung up, nothing left to read */
        else
            continue;
        if (st == TSR_OK)
            take_late(c, buf.bytes, &f);
    }
    unlock_socket(c);
    return st;
}

tsr_status tsr__transport_settle(tsr_client *c)
{
    tsr_status st = settle_socket(c);
    if (st != TSR_OK)
        return st;
    uint64_t checked = tsr__now_ns();
    for (;;) {
        reconcile(c);
        if (atomic_load(&c->abandoned_count) == 0)
            return TSR_OK;
        if (atomic_load(&c->dead) || (tsr__step_passed(&checked) && tsr__socket_hung_up(c)))
            return tsr__daemon_gone(c);
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 100000};
        nanosleep(&pause, NULL);
    }
}

tsr_status tsr__ring_call(tsr_client *c, uint32_t opcode, const void *request,
                          uint32_t request_size, void *reply, uint32_t reply_size)
{
    tsr_status forked = tsr__forked(c);
    if (forked != TSR_OK)
        return forked;
    if (atomic_load(&c->dead))
        return tsr__daemon_gone(c);
    reconcile(c);
    tsr__ring_slot *slot = claim_slot(c);
    if (!slot) /* more threads in flight than slots: take the socket */
        return tsr__socket_call(c, opcode, request, request_size, reply, reply_size, NULL, NULL);
    uint64_t id = atomic_fetch_add(&c->next_request, 1);
    tsr__wire_header h;
    tsr__wire_header_init(&h, opcode, 0, request_size, id);
    memcpy(slot->frame, &h, sizeof h);
    if (request_size)
        memcpy(slot->frame + sizeof h, request, request_size);
    slot->frame_len = (uint32_t)sizeof h + request_size;
    atomic_store(&slot->state, TSR__SLOT_REQUEST);
    atomic_fetch_add(&c->ring->header.doorbell, 1u);
    if (atomic_load(&c->ring->header.daemon_sleeping)) {
        uint64_t one = 1;
        if (write(c->doorbell_fd, &one, sizeof one) < 0 && errno != EAGAIN)
            return tsr__daemon_gone(c);
    }
    tsr_status st = wait_reply(c, slot);
    if (st != TSR_OK) {
        /* The slot stays claimed: the daemon may still answer in it. A
         * dead daemon never will, and a dead client makes no more calls. */
        if (!atomic_load(&c->dead)) {
            atomic_store(&c->abandoned[slot - c->ring->slots], id);
            atomic_fetch_add(&c->abandoned_count, 1u);
        }
        return st;
    }
    union {
        uint64_t align;
        uint8_t bytes[TSR__RING_FRAME_MAX];
    } buf;
    uint32_t len = take_reply(slot, buf.bytes);
    return check_reply(c, buf.bytes, len, opcode, id, TSR__WIRE_RING, reply, reply_size);
}

/* A request by whichever transport its table entry prefers. */
tsr_status tsr__client_call(tsr_client *c, uint32_t opcode, const void *request, void *reply)
{
    const tsr__wire_op_info *op = tsr__wire_op(opcode);
    if ((op->transports & TSR__WIRE_RING) && c->ring) /* monitors have none */
        return tsr__ring_call(c, opcode, request, op->request_size, reply, op->reply_size);
    return tsr__socket_call(c, opcode, request, op->request_size, reply, op->reply_size, NULL,
                            NULL);
}

tsr_status tsr__map_shared(int fd, uint64_t bytes, const char *what, void **out)
{
    return tsr__map_shared_range(fd, 0, bytes, true, what, out);
}

tsr_status tsr__map_shared_range(int fd, uint64_t offset, uint64_t bytes, bool writable,
                                 const char *what, void **out)
{
    /* A file shorter than the mapping, or one that may still shrink, turns
     * a later access into SIGBUS: the daemon seals what it hands over, so
     * anything else did not come from a daemon this library can trust. */
    struct stat st;
    if (fstat(fd, &st) < 0)
        return tsr__fail(TSR_ERR_PROTOCOL, "cannot inspect the %s tesserad passed: %s", what,
                         strerror(errno));
    uint64_t end = UINT64_MAX;
    if (st.st_size < 0 || __builtin_add_overflow(offset, bytes, &end) || (uint64_t)st.st_size < end)
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "tesserad passed a %s of %lld bytes where %llu were expected; refusing "
                         "to map it",
                         what, (long long)st.st_size, (unsigned long long)end);
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK))
        return tsr__fail(TSR_ERR_PROTOCOL,
                         "tesserad passed a %s that is not sealed against shrinking; refusing to "
                         "map it",
                         what);
    void *p = tsr__mmap_shared(fd, offset, bytes, PROT_READ | (writable ? PROT_WRITE : 0), 0);
    if (p == MAP_FAILED)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot map the %s: %s", what, strerror(errno));
    *out = p;
    return TSR_OK;
}
