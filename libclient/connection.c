/* The connection layer: a session with tesserad (tessera/client.h).
 *
 * Owns the socket (handshake, registry reads, descriptor passing; one
 * request at a time under sock_lock), the request ring (any number of
 * threads at once, one slot each), the mapped segments, the cached device
 * registry and the visible-devices map. Replies are checked like requests
 * are in the daemon: a garbled reply is a protocol error, never trusted.
 *
 * A daemon that dies is noticed by the socket hanging up: a thread waiting
 * on the ring sleeps in bounded steps and looks at the socket between them,
 * so every call returns TSR_ERR_CONNECTION within a fraction of a second
 * instead of hanging, and the client stays failed from then on. Mapped
 * tensor data stays readable. */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/ring.h"
#include "libclient/client.h"

#define DEFAULT_TIMEOUT_MS 10000
#define SPIN_NS 20000         /* spin at most this long on a ring reply before sleeping */
#define SPIN_PROBE_EVERY 64   /* waits between full-length spins (see wait_reply) */
#define SLEEP_STEP_NS 50000000 /* then sleep in steps of 50 ms, checking the daemon */
#define MAX_VISIBLE 128

typedef struct client_segment {
    uint32_t id;
    int32_t queue; /* the device: the OpenCL ordinal the daemon gives this session */
    uint8_t *base;
    uint64_t bytes;
    uint32_t live; /* blocks of it this client holds, cached ones included */
} client_segment;

/* The block cache: freed small blocks kept for the next allocation of the
 * same rounded size on the same device, so that a steady allocate / free
 * cycle (a temporary per step, as training loops have) costs no round
 * trip at all. The daemon still counts them as allocated; the statistics
 * this library reports take them out again. */
#define CACHE_BLOCK_MAX (UINT64_C(1) << 20) /* blocks of the daemon's small pool */
#define CACHE_ROUND UINT64_C(512)           /* the daemon's rounding of small requests */
#define CACHE_BLOCKS 64
#define CACHE_BYTES_MAX (UINT64_C(8) << 20)

typedef struct cached_block {
    uint64_t handle;
    uint8_t *data;
    uint64_t key;   /* the rounded request it serves */
    uint64_t bytes; /* what was requested first (for the statistics) */
    int32_t queue;
} cached_block;

typedef struct cache_counts {
    uint64_t bytes, rounded, hits, frees;
} cache_counts;

struct tsr_client {
    _Atomic uint32_t refs;
    _Atomic bool dead;
    int fd;
    int doorbell_fd;
    uint32_t session_id, version;
    int32_t timeout_ms;
    tsr__ring *ring;
    _Atomic uint32_t spin_ns; /* how long wait_reply spins now */
    _Atomic uint64_t next_request;
    pthread_mutex_t sock_lock;

    tsr__wire_device_info *devices; /* the daemon's registry */
    uint32_t device_count;
    int32_t daemon_opencl;          /* OpenCL devices the daemon has */
    int32_t visible[MAX_VISIBLE];   /* client ordinal -> the daemon's ordinal for this session */
    int32_t visible_count;

    pthread_mutex_t seg_lock;
    client_segment *segments;
    uint32_t segment_count, segment_cap;

    /* Kernel queues, per queue record of the ring (the daemon's OpenCL
     * ordinal, which LAUNCH and FILL replies name): the newest launch this
     * client made and how many queue errors it has reported. */
    _Atomic uint32_t issued[TSR__RING_QUEUES];
    _Atomic uint32_t errors_seen[TSR__RING_QUEUES];
    /* The queue record of each OpenCL device by the session's ordinal, as
     * LAUNCH replies tell it; -1 until the first launch there. The two
     * numberings differ when tesserad's devices.visible renumbers devices
     * for its sessions. */
    _Atomic int32_t queue_of[MAX_VISIBLE];

    pthread_mutex_t cache_lock;
    cached_block cache[CACHE_BLOCKS];
    uint32_t cache_count;
    uint64_t cache_bytes;
    cache_counts counts[TSR__RING_QUEUES]; /* per queue: held now, hits and frees so far */
};

/* The calling thread's current OpenCL device, as last read or set. */
static _Thread_local struct {
    const tsr_client *client;
    uint32_t session_id;
    int32_t index; /* client numbering */
} current_cache;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static tsr_status daemon_gone(tsr_client *c)
{
    atomic_store(&c->dead, true);
    return tsr__fail(TSR_ERR_CONNECTION,
                     "the connection to tesserad was lost (the daemon stopped or was killed); "
                     "reconnect with tsr_client_open once it runs again");
}

/* Whether the daemon hung up (without consuming anything). */
static bool socket_hung_up(tsr_client *c)
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
        return tsr__fail(TSR_ERR_PROTOCOL, "reply to request %llu (opcode %u) where %llu was expected",
                         (unsigned long long)h.request_id, (unsigned)h.opcode,
                         (unsigned long long)id);
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
    if (send(c->fd, buf.bytes, sizeof h + request_size, MSG_NOSIGNAL) < 0)
        return daemon_gone(c);
    int want = nfds ? *nfds : 0;
    if (nfds)
        *nfds = 0;
    uint64_t deadline = now_ns() + (uint64_t)c->timeout_ms * 1000000u;
    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        uint64_t now = now_ns();
        if (now >= deadline)
            return tsr__fail(TSR_ERR_CONNECTION, "tesserad did not answer within %d ms",
                             (int)c->timeout_ms);
        int r = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        break;
    }
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = buf.bytes, .iov_len = sizeof buf.bytes};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0)
        return daemon_gone(c);
    int got[4], ngot = 0;
    for (struct cmsghdr *m = CMSG_FIRSTHDR(&msg); m; m = CMSG_NXTHDR(&msg, m)) {
        if (m->cmsg_level != SOL_SOCKET || m->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < count && ngot < 4; k++)
            memcpy(&got[ngot++], CMSG_DATA(m) + k * sizeof(int), sizeof(int));
    }
    tsr_status st = (msg.msg_flags & MSG_TRUNC)
                        ? tsr__fail(TSR_ERR_PROTOCOL, "oversized reply from tesserad")
                        : check_reply(c, buf.bytes, (size_t)n, opcode, id, TSR__WIRE_SOCKET, reply,
                                      reply_size);
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

static tsr_status socket_call(tsr_client *c, uint32_t opcode, const void *request,
                              uint32_t request_size, void *reply, uint32_t reply_size, int *fds,
                              int *nfds)
{
    if (atomic_load(&c->dead))
        return daemon_gone(c);
    pthread_mutex_lock(&c->sock_lock);
    tsr_status st =
        socket_call_locked(c, opcode, request, request_size, reply, reply_size, fds, nfds);
    pthread_mutex_unlock(&c->sock_lock);
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
        tsr__ring_slot *slot = &c->ring->slots[(start + k) % TSR__RING_SLOTS];
        uint32_t expect = TSR__SLOT_FREE;
        if (atomic_load_explicit(&slot->state, memory_order_relaxed) == TSR__SLOT_FREE &&
            atomic_compare_exchange_strong(&slot->state, &expect, TSR__SLOT_CLAIMED))
            return slot;
    }
    return NULL;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
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
 * 2 us (up to SPIN_NS), one that needs the futex halves it, and every
 * SPIN_PROBE_EVERY-th wait of a thread spins the full SPIN_NS, to notice
 * when spinning pays again (and, when this thread shares a CPU with the
 * daemon, to let the scheduler see two runnable tasks there and separate
 * them). Clients that outnumber the CPUs soon sleep at once and leave the
 * CPUs to the daemon: 64 clients always spinning 20 us on 2 CPUs left it
 * 0.15 of a CPU and under half the requests per second of a bare epoll
 * server. */
static tsr_status wait_reply(tsr_client *c, tsr__ring_slot *slot)
{
    static _Thread_local uint32_t waits;
    uint64_t start = now_ns();
    uint32_t spin_ns = atomic_load_explicit(&c->spin_ns, memory_order_relaxed);
    uint64_t limit = waits++ % SPIN_PROBE_EVERY == 0 ? SPIN_NS : spin_ns;
    for (unsigned spin = 0; limit > 0; spin++) {
        if (atomic_load_explicit(&slot->state, memory_order_acquire) == TSR__SLOT_REPLY) {
            uint32_t grown = 4 * spin_ns + 2000;
            set_spin(c, spin_ns, grown < SPIN_NS ? grown : SPIN_NS);
            return TSR_OK;
        }
        cpu_relax();
        if ((spin & 15) == 15 && now_ns() - start > limit)
            break;
    }
    set_spin(c, spin_ns, spin_ns / 2);
    uint64_t deadline = start + (uint64_t)c->timeout_ms * 1000000u;
    atomic_store(&slot->client_waiting, 1u);
    tsr_status st = TSR_OK;
    for (;;) {
        uint32_t state = atomic_load(&slot->state);
        if (state == TSR__SLOT_REPLY)
            break;
        struct timespec step = {.tv_sec = 0, .tv_nsec = SLEEP_STEP_NS};
        long r = syscall(SYS_futex, (uint32_t *)&slot->state, FUTEX_WAIT, state, &step, NULL, 0);
        if (r == 0 || errno == EAGAIN || errno == EINTR)
            continue;
        if (socket_hung_up(c)) {
            st = daemon_gone(c);
            break;
        }
        if (now_ns() > deadline) {
            st = tsr__fail(TSR_ERR_CONNECTION, "tesserad did not answer within %d ms",
                           (int)c->timeout_ms);
            break;
        }
    }
    atomic_store(&slot->client_waiting, 0u);
    return st;
}

static tsr_status ring_call(tsr_client *c, uint32_t opcode, const void *request,
                            uint32_t request_size, void *reply, uint32_t reply_size)
{
    if (atomic_load(&c->dead))
        return daemon_gone(c);
    tsr__ring_slot *slot = claim_slot(c);
    if (!slot) /* more threads in flight than slots: take the socket */
        return socket_call(c, opcode, request, request_size, reply, reply_size, NULL, NULL);
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
            return daemon_gone(c);
    }
    tsr_status st = wait_reply(c, slot);
    if (st != TSR_OK)
        return st; /* the slot stays claimed: the client is finished anyway */
    union {
        uint64_t align;
        uint8_t bytes[TSR__RING_FRAME_MAX];
    } buf;
    uint32_t len = slot->frame_len;
    if (len > TSR__RING_FRAME_MAX)
        len = TSR__RING_FRAME_MAX;
    memcpy(buf.bytes, slot->frame, len);
    atomic_store_explicit(&slot->state, TSR__SLOT_FREE, memory_order_release);
    return check_reply(c, buf.bytes, len, opcode, id, TSR__WIRE_RING, reply, reply_size);
}

/* A request by whichever transport its table entry prefers. */
static tsr_status call(tsr_client *c, uint32_t opcode, const void *request, void *reply)
{
    const tsr__wire_op_info *op = tsr__wire_op(opcode);
    if (op->transports & TSR__WIRE_RING)
        return ring_call(c, opcode, request, op->request_size, reply, op->reply_size);
    return socket_call(c, opcode, request, op->request_size, reply, op->reply_size, NULL, NULL);
}

/* ---- Opening and closing --------------------------------------------- */

static tsr_status connect_socket(const char *path, int *out)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "socket path too long: %s", path);
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tsr__fail(TSR_ERR_CONNECTION, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
        *out = fd;
        return TSR_OK;
    }
    int e = errno;
    close(fd);
    if (e == EACCES || e == EPERM)
        return tsr__fail(TSR_ERR_PERMISSION,
                         "cannot connect to tesserad at %s: %s (is this user in the socket's group?)",
                         path, strerror(e));
    return tsr__fail(TSR_ERR_CONNECTION,
                     "cannot connect to tesserad at %s: %s; start the daemon with `tesserad "
                     "--socket %s`, or set TESSERA_SOCKET to the socket of a running one",
                     path, strerror(e), path);
}

/* "2,0": client ordinal k is the daemon's visible[k]. */
static tsr_status parse_visible(tsr_client *c, const char *text)
{
    if (!text) {
        c->visible_count = c->daemon_opencl < MAX_VISIBLE ? c->daemon_opencl : MAX_VISIBLE;
        for (int32_t k = 0; k < c->visible_count; k++)
            c->visible[k] = k;
        return TSR_OK;
    }
    const char *p = text;
    c->visible_count = 0;
    while (*p) {
        if (*p < '0' || *p > '9')
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': expected device ordinals separated "
                             "by commas, such as 2,0",
                             text);
        long v = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if ((v = v * 10 + (*p - '0')) > 100000)
                break;
        if (v >= c->daemon_opencl)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': opencl:%ld does not exist (tesserad "
                             "has %d OpenCL devices)",
                             text, v, (int)c->daemon_opencl);
        for (int32_t k = 0; k < c->visible_count; k++)
            if (c->visible[k] == v)
                return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                                 "TESSERA_VISIBLE_DEVICES='%.64s': device %ld is listed twice",
                                 text, v);
        if (c->visible_count == MAX_VISIBLE)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "TESSERA_VISIBLE_DEVICES: too many entries");
        c->visible[c->visible_count++] = (int32_t)v;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "TESSERA_VISIBLE_DEVICES='%.64s': expected device ordinals separated "
                             "by commas, such as 2,0",
                             text);
    }
    return TSR_OK;
}

static tsr_status handshake(tsr_client *c, const char *name)
{
    tsr__wire_hello hello = {.version_min = TSR__WIRE_VERSION_MIN,
                             .version_max = TSR__WIRE_VERSION,
                             .pid = (uint32_t)getpid()};
    char comm[TSR__WIRE_TEXT] = "";
    if (!name) {
        FILE *f = fopen("/proc/self/comm", "re");
        if (f) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        name = comm;
    }
    tsr__wire_text_set(hello.name, sizeof hello.name, name);
    tsr__wire_welcome welcome;
    int fds[2];
    int nfds = 2;
    tsr_status st = socket_call(c, TSR__OP_HELLO, &hello, sizeof hello, &welcome, sizeof welcome,
                                fds, &nfds);
    if (st != TSR_OK)
        return st;
    c->doorbell_fd = fds[1];
    if (welcome.ring_bytes != sizeof(tsr__ring) || welcome.ring_slots != TSR__RING_SLOTS ||
        welcome.ring_slot_size != TSR__RING_SLOT_SIZE || welcome.device_count < 2 ||
        welcome.device_count > 4096) {
        close(fds[0]);
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad offered a ring or registry this client cannot use");
    }
    void *ring = mmap(NULL, sizeof(tsr__ring), PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    close(fds[0]);
    if (ring == MAP_FAILED)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot map the request ring: %s", strerror(errno));
    c->ring = ring;
    c->session_id = welcome.session_id;
    c->version = welcome.version;
    c->device_count = welcome.device_count;
    return TSR_OK;
}

static tsr_status read_registry(tsr_client *c)
{
    c->devices = calloc(c->device_count, sizeof *c->devices);
    if (!c->devices)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t k = 0; k < c->device_count; k++) {
        tsr__wire_position pos = {.position = k};
        tsr__wire_device_info *d = &c->devices[k];
        tsr_status st = call(c, TSR__OP_DEVICE_GET, &pos, d);
        if (st != TSR_OK)
            return st;
        if (!tsr__wire_text_ok(d->name, sizeof d->name) ||
            !tsr__wire_text_ok(d->vendor, sizeof d->vendor) ||
            !tsr__wire_text_ok(d->driver_version, sizeof d->driver_version) ||
            !tsr__wire_text_ok(d->api_version, sizeof d->api_version) ||
            !tsr__wire_text_ok(d->cpuset, sizeof d->cpuset) ||
            !tsr__wire_text_ok(d->pci_bus_id, sizeof d->pci_bus_id) ||
            !tsr__wire_text_ok(d->render_node, sizeof d->render_node))
            return tsr__fail(TSR_ERR_PROTOCOL, "garbled device entry %u from tesserad", (unsigned)k);
        if (d->device.type == TSR_DEVICE_OPENCL) {
            if (d->device.index != c->daemon_opencl)
                return tsr__fail(TSR_ERR_PROTOCOL, "device entries out of order");
            if ((d->flags & TSR__WIRE_INFO_DAEMON_INDEX) && d->daemon_index < 0)
                return tsr__fail(TSR_ERR_PROTOCOL, "garbled device entry %u from tesserad",
                                 (unsigned)k);
            c->daemon_opencl++;
        }
    }
    return TSR_OK;
}

static void client_free(tsr_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->doorbell_fd >= 0)
        close(c->doorbell_fd);
    if (c->ring)
        munmap(c->ring, sizeof(tsr__ring));
    for (uint32_t k = 0; k < c->segment_count; k++)
        munmap(c->segments[k].base, c->segments[k].bytes);
    free(c->segments);
    free(c->devices);
    pthread_mutex_destroy(&c->sock_lock);
    pthread_mutex_destroy(&c->seg_lock);
    pthread_mutex_destroy(&c->cache_lock);
    free(c);
}

tsr_status tsr_client_open(const tsr_client_options *options, tsr_client **out)
{
    tsr_client_options o = options ? *options : (tsr_client_options){0};
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_client_open: out is NULL");
    const char *path = o.socket_path;
    if (!path)
        path = getenv("TESSERA_SOCKET");
    if (!path || !*path)
        path = TSR_DEFAULT_SOCKET;
    if (o.timeout_ms < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "negative timeout_ms");
    tsr_client *c = calloc(1, sizeof *c);
    if (!c)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    c->refs = 1;
    c->fd = c->doorbell_fd = -1;
    c->timeout_ms = o.timeout_ms ? o.timeout_ms : DEFAULT_TIMEOUT_MS;
    c->spin_ns = SPIN_NS;
    c->next_request = 1;
    for (int32_t k = 0; k < MAX_VISIBLE; k++)
        c->queue_of[k] = -1;
    pthread_mutex_init(&c->sock_lock, NULL);
    pthread_mutex_init(&c->seg_lock, NULL);
    pthread_mutex_init(&c->cache_lock, NULL);
    tsr_status st = connect_socket(path, &c->fd);
    if (st == TSR_OK)
        st = handshake(c, o.name);
    if (st == TSR_OK)
        st = read_registry(c);
    if (st == TSR_OK)
        st = parse_visible(c, o.visible_devices ? o.visible_devices
                                                : getenv("TESSERA_VISIBLE_DEVICES"));
    if (st != TSR_OK) {
        client_free(c);
        return st;
    }
    *out = c;
    return TSR_OK;
}

void tsr__client_retain(tsr_client *c)
{
    atomic_fetch_add(&c->refs, 1u);
}

void tsr__client_release(tsr_client *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1u) == 1)
        client_free(c);
}

void tsr_client_close(tsr_client *c)
{
    tsr__client_release(c);
}

uint32_t tsr_client_session_id(const tsr_client *c)
{
    return c ? c->session_id : 0;
}

uint32_t tsr_client_protocol_version(const tsr_client *c)
{
    return c ? c->version : 0;
}

tsr_status tsr_client_ping(tsr_client *c, tsr_transport transport)
{
    if (!c)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_client_ping: client is NULL");
    if (transport == TSR_TRANSPORT_RING)
        return ring_call(c, TSR__OP_PING, NULL, 0, NULL, 0);
    if (transport == TSR_TRANSPORT_SOCKET)
        return socket_call(c, TSR__OP_PING, NULL, 0, NULL, 0, NULL, NULL);
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid transport %d", (int)transport);
}

/* ---- Devices --------------------------------------------------------- */

/* "cpu, opencl:0, meta" as this client sees them. */
static const char *client_devices(const tsr_client *c, char *buf, size_t n)
{
    int used = snprintf(buf, n, "cpu");
    for (int32_t k = 0; k < c->visible_count && used > 0 && (size_t)used < n; k++)
        used += snprintf(buf + used, n - (size_t)used, ", opencl:%d", (int)k);
    if (used > 0 && (size_t)used < n)
        snprintf(buf + used, n - (size_t)used, ", meta");
    return buf;
}

/* The argument checks the device calls share: a valid type and, where
 * `args_ok` says so, no NULL pointers. */
static tsr_status check_call(tsr_device_type type, bool args_ok, const char *fn)
{
    if ((unsigned)type >= TSR_DEVICE_TYPE_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid device type %d", (int)type);
    if (!args_ok)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
    return TSR_OK;
}

static tsr_status no_such_device(const tsr_client *c, tsr_device d)
{
    char have[512], name[TSR_DEVICE_STR_MAX];
    tsr_device_str(d, name, sizeof name);
    if (!c)
        return tsr__fail(TSR_ERR_NO_DEVICE,
                         "no %s devices without a connection to tesserad (only cpu and meta); "
                         "open one with tsr_client_open",
                         tsr_device_type_name(d.type));
    if (d.type != TSR_DEVICE_OPENCL || c->visible_count == 0)
        return tsr__fail(TSR_ERR_NO_DEVICE, "no %s devices here (this machine has: %s)",
                         tsr_device_type_name(d.type), client_devices(c, have, sizeof have));
    return tsr__fail(TSR_ERR_NO_DEVICE, "invalid device ordinal: %s does not exist (this client sees: %s)",
                     name, client_devices(c, have, sizeof have));
}

tsr_status tsr_device_count(tsr_client *c, tsr_device_type type, int32_t *out)
{
    tsr_status st = check_call(type, c && out, "tsr_device_count");
    if (st != TSR_OK)
        return st;
    *out = type == TSR_DEVICE_CPU || type == TSR_DEVICE_META ? 1
           : type == TSR_DEVICE_OPENCL                       ? c->visible_count
                                                              : 0;
    return TSR_OK;
}

tsr_status tsr_current_device(tsr_client *c, tsr_device_type type, tsr_device *out)
{
    tsr_status st = check_call(type, c && out, "tsr_current_device");
    if (st != TSR_OK)
        return st;
    if (type == TSR_DEVICE_CPU || type == TSR_DEVICE_META) {
        *out = (tsr_device){type, -1};
        return TSR_OK;
    }
    if (type != TSR_DEVICE_OPENCL || c->visible_count == 0)
        return no_such_device(c, (tsr_device){type, -1});
    if (current_cache.client != c || current_cache.session_id != c->session_id) {
        tsr__wire_get_device req = {.thread_id = (uint64_t)gettid(), .type = TSR_DEVICE_OPENCL};
        tsr__wire_device rep;
        st = call(c, TSR__OP_GET_DEVICE, &req, &rep);
        if (st != TSR_OK)
            return st;
        int32_t index = 0;
        for (int32_t k = 0; k < c->visible_count; k++)
            if (c->visible[k] == rep.index)
                index = k;
        current_cache.client = c;
        current_cache.session_id = c->session_id;
        current_cache.index = index;
    }
    *out = (tsr_device){TSR_DEVICE_OPENCL, current_cache.index};
    return TSR_OK;
}

tsr_status tsr_set_device(tsr_client *c, tsr_device d)
{
    tsr_status st = check_call(d.type, c != NULL, "tsr_set_device");
    if (st != TSR_OK)
        return st;
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META) {
        if (d.index > 0)
            return no_such_device(c, d);
        return TSR_OK;
    }
    if (d.type != TSR_DEVICE_OPENCL || d.index < 0 || d.index >= c->visible_count)
        return no_such_device(c, d);
    tsr__wire_set_device req = {.thread_id = (uint64_t)gettid(),
                                .device = {.type = TSR_DEVICE_OPENCL, .index = c->visible[d.index]}};
    st = call(c, TSR__OP_SET_DEVICE, &req, NULL);
    if (st != TSR_OK)
        return st;
    current_cache.client = c;
    current_cache.session_id = c->session_id;
    current_cache.index = d.index;
    return TSR_OK;
}

tsr_status tsr__client_resolve_device(tsr_client *c, tsr_device d, tsr_device *out)
{
    tsr_status st = check_call(d.type, out != NULL, "tsr__client_resolve_device");
    if (st != TSR_OK)
        return st;
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META) {
        *out = (tsr_device){d.type, -1};
        return TSR_OK;
    }
    if (!c && d.type == TSR_DEVICE_OPENCL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "opencl memory is served by tesserad: pass the tsr_client from "
                         "tsr_client_open");
    if (!c || d.type != TSR_DEVICE_OPENCL)
        return no_such_device(c, d);
    if (d.index < 0) {
        st = tsr_current_device(c, TSR_DEVICE_OPENCL, &d);
        if (st != TSR_OK)
            return st;
    }
    if (d.index >= c->visible_count)
        return no_such_device(c, d);
    *out = d;
    return TSR_OK;
}

/* The daemon's registry entry for a device as this client numbers it. */
static const tsr__wire_device_info *entry_of(const tsr_client *c, tsr_device d)
{
    if (d.type == TSR_DEVICE_CPU)
        return &c->devices[0];
    if (d.type == TSR_DEVICE_META)
        return &c->devices[c->device_count - 1];
    return &c->devices[1 + c->visible[d.index]];
}

tsr_status tsr_device_get_properties(tsr_client *c, tsr_device d, tsr_device_properties *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_device_get_properties: NULL argument");
    tsr_status st = tsr__client_resolve_device(c, d, &d);
    if (st != TSR_OK)
        return st;
    const tsr__wire_device_info *i = entry_of(c, d);
    /* A daemon that does not send its ordinal numbers devices as the
     * session does. */
    int32_t daemon_index = -1;
    if (i->device.type == TSR_DEVICE_OPENCL)
        daemon_index = (i->flags & TSR__WIRE_INFO_DAEMON_INDEX) ? i->daemon_index : i->device.index;
    tsr_device_properties p = {.device = d,
                               .daemon_index = daemon_index,
                               .memory_bytes = i->memory_bytes,
                               .compute_units = i->compute_units,
                               .max_work_group_size = i->max_work_group_size,
                               .fp16 = i->fp16,
                               .fp64 = i->fp64,
                               .host_unified_memory = i->host_unified_memory,
                               .numa_node = i->numa_node};
    tsr__wire_text_set(p.name, sizeof p.name, i->name);
    tsr__wire_text_set(p.vendor, sizeof p.vendor, i->vendor);
    tsr__wire_text_set(p.driver_version, sizeof p.driver_version, i->driver_version);
    tsr__wire_text_set(p.api_version, sizeof p.api_version, i->api_version);
    tsr__wire_text_set(p.cpuset, sizeof p.cpuset, i->cpuset);
    tsr__wire_text_set(p.pci_bus_id, sizeof p.pci_bus_id, i->pci_bus_id);
    tsr__wire_text_set(p.render_node, sizeof p.render_node, i->render_node);
    *out = p;
    return TSR_OK;
}

tsr_status tsr_accelerator_type(tsr_client *c, tsr_device_type *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_accelerator_type: NULL argument");
    if (c->visible_count == 0)
        return tsr__fail(TSR_ERR_RUNTIME, "Cannot access accelerator device when none is available.");
    *out = TSR_DEVICE_OPENCL;
    return TSR_OK;
}

tsr_status tsr_device_from_index(tsr_client *c, int64_t index, tsr_device *out)
{
    if (!c || !out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_device_from_index: NULL argument");
    return tsr_device_for_accelerator(c->visible_count ? TSR_DEVICE_OPENCL : TSR_DEVICE_TYPE_COUNT,
                                      index, out);
}

bool tsr__client_host_visible(tsr_client *c, tsr_device d)
{
    if (d.type == TSR_DEVICE_CPU)
        return true;
    if (!c || d.type != TSR_DEVICE_OPENCL || d.index < 0 || d.index >= c->visible_count)
        return false;
    /* Every segment is a host mapping; devices that cannot address it
     * directly will get explicit copies through the daemon. */
    return true;
}

/* ---- Memory ---------------------------------------------------------- */

static tsr_status opencl_device(tsr_client *c, tsr_device d, tsr__wire_device *out)
{
    if (!c)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "NULL client");
    if (d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_META)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "tesserad manages no memory of %s: its tensors live in this process",
                         tsr_device_type_name(d.type));
    tsr_status st = tsr__client_resolve_device(c, d, &d);
    if (st != TSR_OK)
        return st;
    *out = (tsr__wire_device){.type = TSR_DEVICE_OPENCL, .index = c->visible[d.index]};
    return TSR_OK;
}

/* The host address of a segment, mapping it on first sight, for a new
 * block in it (counted live). */
static tsr_status segment_base(tsr_client *c, uint32_t id, int32_t queue, uint64_t bytes,
                               uint8_t **out)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count; k++) {
        if (c->segments[k].id == id) {
            *out = c->segments[k].base;
            c->segments[k].live++;
            pthread_mutex_unlock(&c->seg_lock);
            return TSR_OK;
        }
    }
    tsr_status st = TSR_OK;
    if (c->segment_count == c->segment_cap) {
        uint32_t cap = c->segment_cap ? c->segment_cap * 2 : 16;
        client_segment *grown = realloc(c->segments, cap * sizeof *grown);
        if (!grown)
            st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
        else {
            c->segments = grown;
            c->segment_cap = cap;
        }
    }
    tsr__wire_segment req = {.segment_id = id};
    tsr__wire_segment_info info;
    int fd = -1, nfds = 1;
    if (st == TSR_OK)
        st = socket_call(c, TSR__OP_SEGMENT_MAP, &req, sizeof req, &info, sizeof info, &fd, &nfds);
    if (st == TSR_OK && info.bytes != bytes) {
        close(fd);
        st = tsr__fail(TSR_ERR_PROTOCOL, "segment %u is %llu bytes, not %llu", (unsigned)id,
                       (unsigned long long)info.bytes, (unsigned long long)bytes);
    }
    if (st == TSR_OK) {
        void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        int e = errno;
        close(fd);
        if (base == MAP_FAILED)
            st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "cannot map a %llu-byte segment: %s",
                           (unsigned long long)bytes, strerror(e));
        else {
            c->segments[c->segment_count++] =
                (client_segment){.id = id, .queue = queue, .base = base, .bytes = bytes, .live = 1};
            *out = base;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
    return st;
}

/* A block of `data` goes back: one live block fewer in its segment. */
static void segment_drop(tsr_client *c, const uint8_t *data)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count; k++) {
        client_segment *seg = &c->segments[k];
        if (data >= seg->base && data < seg->base + seg->bytes) {
            if (seg->live)
                seg->live--;
            break;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
}

/* Unmaps the segments of `queue` that hold no block of this client: the
 * daemon released them (EMPTY_CACHE, or an allocation that had to make
 * room). One it still has is simply mapped again when a block in it comes
 * back. */
static void segments_forget(tsr_client *c, int32_t queue)
{
    pthread_mutex_lock(&c->seg_lock);
    for (uint32_t k = 0; k < c->segment_count;) {
        client_segment *seg = &c->segments[k];
        if (seg->queue == queue && seg->live == 0) {
            munmap(seg->base, seg->bytes);
            *seg = c->segments[--c->segment_count];
        } else {
            k++;
        }
    }
    pthread_mutex_unlock(&c->seg_lock);
}

static uint64_t cache_key(uint64_t nbytes)
{
    if (nbytes > CACHE_BLOCK_MAX)
        return 0;
    uint64_t key = (nbytes + CACHE_ROUND - 1) / CACHE_ROUND * CACHE_ROUND;
    return key ? key : CACHE_ROUND;
}

static bool cache_take(tsr_client *c, int32_t queue, uint64_t nbytes, void **data, uint64_t *handle)
{
    uint64_t key = cache_key(nbytes);
    if (!key || queue >= (int32_t)TSR__RING_QUEUES)
        return false;
    bool hit = false;
    pthread_mutex_lock(&c->cache_lock);
    for (uint32_t k = c->cache_count; k-- > 0;) { /* newest first: warm in the caches */
        cached_block *b = &c->cache[k];
        if (b->queue != queue || b->key != key)
            continue;
        *data = b->data;
        *handle = b->handle;
        c->cache_bytes -= key;
        cache_counts *n = &c->counts[queue];
        n->bytes -= b->bytes;
        n->rounded -= key;
        n->hits++;
        memmove(b, b + 1, (c->cache_count - k - 1) * sizeof *b);
        c->cache_count--;
        hit = true;
        break;
    }
    pthread_mutex_unlock(&c->cache_lock);
    return hit;
}

static bool cache_put(tsr_client *c, int32_t queue, uint64_t nbytes, void *data, uint64_t handle)
{
    uint64_t key = cache_key(nbytes);
    if (!key || queue >= (int32_t)TSR__RING_QUEUES || atomic_load(&c->dead))
        return false;
    bool kept = false;
    pthread_mutex_lock(&c->cache_lock);
    if (c->cache_count < CACHE_BLOCKS && c->cache_bytes + key <= CACHE_BYTES_MAX) {
        c->cache[c->cache_count++] = (cached_block){
            .handle = handle, .data = data, .key = key, .bytes = nbytes, .queue = queue};
        c->cache_bytes += key;
        cache_counts *n = &c->counts[queue];
        n->bytes += nbytes;
        n->rounded += key;
        n->frees++;
        kept = true;
    }
    pthread_mutex_unlock(&c->cache_lock);
    return kept;
}

static void free_block(tsr_client *c, uint64_t handle)
{
    tsr__wire_handle req = {.handle = handle};
    if (!atomic_load(&c->dead))
        call(c, TSR__OP_FREE, &req, NULL);
}

/* Gives the daemon back every cached block of `queue`. */
static void cache_flush(tsr_client *c, int32_t queue)
{
    for (;;) {
        cached_block b = {0};
        pthread_mutex_lock(&c->cache_lock);
        for (uint32_t k = 0; k < c->cache_count; k++) {
            if (c->cache[k].queue != queue)
                continue;
            b = c->cache[k];
            c->cache_bytes -= b.key;
            cache_counts *n = &c->counts[queue];
            n->bytes -= b.bytes;
            n->rounded -= b.key;
            n->frees--; /* it is freed for real now, and counted by the daemon */
            c->cache[k] = c->cache[--c->cache_count];
            break;
        }
        pthread_mutex_unlock(&c->cache_lock);
        if (!b.handle)
            return;
        free_block(c, b.handle);
        segment_drop(c, b.data);
    }
}

tsr_status tsr__client_alloc(tsr_client *c, tsr_device d, uint64_t nbytes, void **data,
                             uint64_t *handle)
{
    tsr__wire_alloc req = {.bytes = nbytes};
    tsr_status st = opencl_device(c, d, &req.device);
    if (st != TSR_OK)
        return st;
    if (cache_take(c, req.device.index, nbytes, data, handle))
        return TSR_OK;
    tsr__wire_block b;
    st = call(c, TSR__OP_ALLOC, &req, &b);
    if (st == TSR_ERR_OUT_OF_MEMORY && c->cache_count) {
        /* What this client keeps for reuse may be what the device lacks. */
        cache_flush(c, req.device.index);
        st = call(c, TSR__OP_ALLOC, &req, &b);
    }
    if (st != TSR_OK)
        return st;
    uint64_t end;
    if (__builtin_add_overflow(b.offset, b.size, &end) || end > b.segment_bytes || b.size < nbytes)
        return tsr__fail(TSR_ERR_PROTOCOL, "tesserad returned a block outside its segment");
    if (b.flags & TSR__WIRE_SEGMENTS_RELEASED)
        segments_forget(c, req.device.index);
    uint8_t *base = NULL;
    st = segment_base(c, b.segment_id, req.device.index, b.segment_bytes, &base);
    if (st != TSR_OK) {
        free_block(c, b.handle);
        return st;
    }
    *data = base + b.offset;
    *handle = b.handle;
    return TSR_OK;
}

/* Remembers the newest launch on a queue (threads race: keep the max). */
static void note_launch(tsr_client *c, const tsr__wire_launched *l)
{
    if (l->sequence == 0 || l->queue >= TSR__RING_QUEUES)
        return;
    _Atomic uint32_t *issued = &c->issued[l->queue];
    uint32_t seen = atomic_load(issued);
    while ((int32_t)(l->sequence - seen) > 0 &&
           !atomic_compare_exchange_weak(issued, &seen, l->sequence))
        ;
}

/* The queue record kernels on a device (the session's numbering) report
 * in, -1 while this client has launched nothing there: then nothing of its
 * own can be queued there either (FILL queues only behind launches). */
static int32_t queue_of(tsr_client *c, tsr__wire_device wd)
{
    return wd.index >= 0 && wd.index < MAX_VISIBLE ? atomic_load(&c->queue_of[wd.index]) : -1;
}

/* A kernel error the daemon recorded on queue q and no thread of this
 * client has reported yet; reported once. */
static tsr_status queue_error(tsr_client *c, uint32_t q)
{
    tsr__ring_queue *rq = &c->ring->queues[q];
    uint32_t errors = atomic_load_explicit(&rq->errors, memory_order_acquire);
    uint32_t seen = atomic_load(&c->errors_seen[q]);
    if (errors == seen || !atomic_compare_exchange_strong(&c->errors_seen[q], &seen, errors))
        return TSR_OK;
    char message[TSR__RING_QUEUE_MESSAGE];
    memcpy(message, rq->message, sizeof message);
    message[sizeof message - 1] = '\0';
    int32_t status = rq->status;
    if (status <= TSR_OK || status >= TSR_STATUS_COUNT)
        status = TSR_ERR_DEVICE;
    return tsr__fail_text((tsr_status)status, message);
}

tsr_status tsr__client_fill(tsr_client *c, uint64_t handle, const tsr__region *region,
                            const void *value)
{
    tsr__wire_fill req = {.region = {.handle = handle,
                                     .itemsize = region->itemsize,
                                     .ndim = region->ndim,
                                     .offset = region->offset}};
    if (region->itemsize > sizeof req.value || region->ndim < 0 || region->ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid fill region");
    memcpy(req.region.sizes, region->sizes, (size_t)region->ndim * sizeof(int64_t));
    memcpy(req.region.strides, region->strides, (size_t)region->ndim * sizeof(int64_t));
    memcpy(req.value, value, region->itemsize);
    tsr__wire_launched launched;
    tsr_status st = call(c, TSR__OP_FILL, &req, &launched);
    if (st == TSR_OK)
        note_launch(c, &launched);
    return st;
}

tsr_status tsr__client_launch(tsr_client *c, tsr_device d, const tsr__kernel *kernel)
{
    tsr__wire_device wd = {0};
    tsr_status st = opencl_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    int32_t q = queue_of(c, wd);
    if (q >= 0 && (st = queue_error(c, (uint32_t)q)) != TSR_OK)
        return st;
    tsr__wire_launched launched;
    st = call(c, TSR__OP_LAUNCH, kernel, &launched);
    if (st != TSR_OK)
        return st;
    if (wd.index < MAX_VISIBLE && launched.queue < TSR__RING_QUEUES)
        atomic_store(&c->queue_of[wd.index], (int32_t)launched.queue);
    note_launch(c, &launched);
    return TSR_OK;
}

/* Waits until queue q has completed `target`: a short spin (a small kernel
 * finishes within it), then futex sleeps in steps that look for a dead
 * daemon. No deadline: a kernel may run as long as it needs. */
static tsr_status wait_queue(tsr_client *c, uint32_t q, uint32_t target)
{
    tsr__ring_queue *rq = &c->ring->queues[q];
    uint64_t start = now_ns();
    for (unsigned spin = 0;; spin++) {
        if ((int32_t)(atomic_load_explicit(&rq->completed, memory_order_acquire) - target) >= 0)
            return TSR_OK;
        cpu_relax();
        if ((spin & 15) == 15 && now_ns() - start > SPIN_NS)
            break;
    }
    tsr_status st = TSR_OK;
    atomic_store(&rq->waiting, 1u);
    for (;;) {
        uint32_t done = atomic_load(&rq->completed);
        if ((int32_t)(done - target) >= 0)
            break;
        struct timespec step = {.tv_sec = 0, .tv_nsec = SLEEP_STEP_NS};
        long r = syscall(SYS_futex, (uint32_t *)&rq->completed, FUTEX_WAIT, done, &step, NULL, 0);
        if ((r != 0 && errno == ETIMEDOUT && socket_hung_up(c)) || atomic_load(&c->dead)) {
            st = daemon_gone(c);
            break;
        }
    }
    atomic_store(&rq->waiting, 0u);
    return st;
}

tsr_status tsr__client_synchronize(tsr_client *c, tsr_device d)
{
    tsr__wire_device wd = {0};
    tsr_status st = opencl_device(c, d, &wd);
    int32_t record = st == TSR_OK ? queue_of(c, wd) : -1;
    if (record < 0)
        return st;
    uint32_t q = (uint32_t)record;
    uint32_t target = atomic_load(&c->issued[q]);
    if (target != 0 && (st = wait_queue(c, q, target)) != TSR_OK)
        return st;
    return queue_error(c, q);
}

void tsr__client_free(tsr_client *c, tsr_device d, uint64_t handle, uint64_t nbytes, void *data)
{
    tsr__wire_device wd = {0};
    if (opencl_device(c, d, &wd) == TSR_OK && cache_put(c, wd.index, nbytes, data, handle))
        return;
    free_block(c, handle);
    segment_drop(c, data);
}

tsr_status tsr_memory_get_stats(tsr_client *c, tsr_device d, tsr_memory_stats *out)
{
    tsr__wire_device wd = {0};
    tsr_status st = opencl_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    if (!out)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_memory_get_stats: out is NULL");
    tsr__wire_memory_stats m;
    st = call(c, TSR__OP_MEMORY_STATS, &wd, &m);
    if (st != TSR_OK)
        return st;
    if (wd.index < (int32_t)TSR__RING_QUEUES) {
        /* Blocks in this library's cache are free to the program, though
         * the daemon still counts them as handed out. */
        pthread_mutex_lock(&c->cache_lock);
        cache_counts n = c->counts[wd.index];
        pthread_mutex_unlock(&c->cache_lock);
        m.allocated -= n.rounded < m.allocated ? n.rounded : m.allocated;
        m.active -= n.rounded < m.active ? n.rounded : m.active;
        m.requested -= n.bytes < m.requested ? n.bytes : m.requested;
        m.allocations += n.hits;
        m.frees += n.frees;
        m.cache_hits += n.hits;
    }
    *out = (tsr_memory_stats){.allocated = m.allocated,
                              .reserved = m.reserved,
                              .active = m.active,
                              .requested = m.requested,
                              .peak_allocated = m.peak_allocated,
                              .peak_reserved = m.peak_reserved,
                              .allocations = m.allocations,
                              .frees = m.frees,
                              .cache_hits = m.cache_hits,
                              .ooms = m.ooms,
                              .segments = m.segments,
                              .device_capacity = m.device_capacity,
                              .device_free = m.device_free};
    return TSR_OK;
}

tsr_status tsr_memory_empty_cache(tsr_client *c, tsr_device d, uint64_t *released_bytes)
{
    tsr__wire_device wd = {0};
    tsr_status st = opencl_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    cache_flush(c, wd.index);
    tsr__wire_bytes rep;
    st = call(c, TSR__OP_EMPTY_CACHE, &wd, &rep);
    if (st == TSR_OK)
        segments_forget(c, wd.index);
    if (st == TSR_OK && released_bytes)
        *released_bytes = rep.bytes;
    return st;
}

/* ---- Sessions (tessera ps) -------------------------------------------- */

tsr_status tsr_session_list(tsr_client *c, uint32_t after, tsr_session_info *out, bool *found)
{
    if (!c || !out || !found)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_session_list: NULL argument");
    tsr__wire_segment req = {.segment_id = after};
    tsr__wire_session_info w;
    tsr_status st = call(c, TSR__OP_SESSION_LIST, &req, &w);
    if (st != TSR_OK)
        return st;
    if (w.session_id == 0) {
        *found = false;
        return TSR_OK;
    }
    if (w.session_id <= after || w.usage_count > TSR__WIRE_SESSION_DEVICES ||
        !tsr__wire_text_ok(w.command, sizeof w.command) || !tsr__wire_text_ok(w.name, sizeof w.name))
        return tsr__fail(TSR_ERR_PROTOCOL, "garbled session entry from tesserad");
    tsr_session_info i = {.session_id = w.session_id,
                          .pid = w.pid,
                          .uid = w.uid,
                          .gid = w.gid,
                          .threads = w.threads,
                          .requests = w.requests,
                          .started_unix_ns = w.started_unix_ns,
                          .current_device = {(tsr_device_type)w.current_device.type,
                                             w.current_device.index},
                          .usage_count = w.usage_count};
    memcpy(i.command, w.command, sizeof i.command);
    memcpy(i.name, w.name, sizeof i.name);
    for (uint32_t k = 0; k < w.usage_count; k++)
        i.usage[k] = (tsr_session_usage){
            .device = {(tsr_device_type)w.usage[k].device.type, w.usage[k].device.index},
            .allocated = w.usage[k].allocated,
            .reserved = w.usage[k].reserved};
    *out = i;
    *found = true;
    return TSR_OK;
}

/* ---- For the rest of the library (client.h) ------------------------------ */

tsr_status tsr__client_call(tsr_client *c, uint32_t opcode, const void *request, void *reply)
{
    return call(c, opcode, request, reply);
}
