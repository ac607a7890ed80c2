/* Sessions: their life cycle and their two transports (see session.h).
 *
 * Socket frames are read one packet at a time with room for one byte more
 * than the largest frame, so an oversized packet shows up as MSG_TRUNC; a
 * client that sends descriptors, a truncated or malformed frame, or that
 * does not read its replies, loses its session and nothing else. Ring
 * slots are copied out of shared memory before they are looked at. */
#include "daemon/session.h"
#include "daemon/user.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/dispatch.h"
#include "daemon/lifetime.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/roster.h"
#include "daemon/share.h"

/* Replies and requests are staged in 8-byte-aligned buffers. */
typedef union frame_buffer {
    uint64_t align;
    uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
} frame_buffer;

static void read_comm(pid_t pid, char *out, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    tsr__wire_text_set(out, n, "?");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[TSR__WIRE_TEXT];
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return;
    /* The kernel ends the name with a line break; a name may hold one of
     * its own (prctl), which is the client's and stays (the log escapes
     * it). */
    if (buf[got - 1] == '\n')
        got--;
    buf[got] = '\0';
    tsr__wire_text_set(out, n, buf);
}

static void on_socket(tsr__loop *loop, uint32_t events, void *data);

/* A connection that has not said HELLO in time holds a descriptor and a
 * session slot for nothing: it goes. */
static void on_hello_timer(tsr__loop *loop, uint32_t events, void *data)
{
    (void)events;
    tsr__session *s = data;
    tsr__loop_unwatch(loop, s->hello_watch);
    s->hello_watch = NULL;
    close(s->hello_timer);
    s->hello_timer = -1;
    if (s->version == 0) {
        char why[64];
        snprintf(why, sizeof why, "no handshake within %d s", TSR__SESSION_HELLO_SECONDS);
        tsr__session_end(s, why);
    }
}

/* A new session of the peer `cred` over `fd` (-1: none), not yet on the
 * server's list. */
static tsr__session *session_new(tsr__server *server, int fd, const struct ucred *cred)
{
    tsr__session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    *s = (tsr__session){.server = server,
                        .id = ++server->next_session_id,
                        .fd = fd,
                        .pid = cred->pid,
                        .uid = cred->uid,
                        .gid = cred->gid,
                        .started_unix_ns =
                            (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
                        .ring_fd = -1,
                        .doorbell_fd = -1,
                        .hello_timer = -1,
                        .refs = 1};
    read_comm(cred->pid, s->command, sizeof s->command);
    return s;
}

static void session_link(tsr__server *server, tsr__session *s)
{
    s->prev = server->last;
    if (server->last)
        server->last->next = s;
    else
        server->first = s;
    server->last = s;
    server->session_count++;
    tsr__roster_count(server, s->uid, 1, 1);
}

tsr_status tsr__session_open_detached(tsr__server *server, const struct ucred *cred,
                                      tsr__session **out)
{
    tsr__session *s = session_new(server, -1, cred);
    if (!s)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory starting a session");
    session_link(server, s);
    *out = s;
    return TSR_OK;
}

tsr_status tsr__session_start(tsr__server *server, int fd, const struct ucred *cred,
                              const char *over_cap)
{
    tsr__session *s = session_new(server, fd, cred);
    if (!s) {
        close(fd);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory starting a session");
    }
    snprintf(s->over_cap, sizeof s->over_cap, "%s", over_cap);
    tsr_status st =
        tsr__loop_watch(server->loop, fd, EPOLLIN | EPOLLRDHUP, on_socket, s, &s->watch);
    if (st != TSR_OK) {
        close(fd);
        free(s);
        return st;
    }
    struct itimerspec due = {.it_value = {.tv_sec = TSR__SESSION_HELLO_SECONDS}};
    s->hello_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->hello_timer < 0 || timerfd_settime(s->hello_timer, 0, &due, NULL) < 0 ||
        tsr__loop_watch(server->loop, s->hello_timer, EPOLLIN, on_hello_timer, s,
                        &s->hello_watch) != TSR_OK) {
        int e = errno;
        tsr__loop_unwatch(server->loop, s->watch);
        if (s->hello_timer >= 0)
            close(s->hello_timer);
        close(fd);
        free(s);
        return tsr__fail(TSR_ERR_IO, "cannot start a session's handshake timer: %s", strerror(e));
    }
    session_link(server, s);
    return TSR_OK;
}

/* The session is open: its uid's handshake counts it no more, its ring
 * starts parked (the client will ring the doorbell eventfd when it first
 * posts), and it enters the log (with the unit it said HELLO from, which
 * the unit-keyed lines of the configuration look at). A connection that never gets here is
 * logged only when it ends, and under a rate limit. */
static void opened(tsr__session *s)
{
    if (s->monitor) { /* on_hello has moved its counts already */
        tsr__log(TSR__LOG_DEBUG, "monitor %u: pid %d uid %u (%s) connected", s->id, (int)s->pid,
                 (unsigned)s->uid, s->command);
        return;
    }
    tsr__roster_count(s->server, s->uid, 0, -1);
    s->server->counters.sessions_opened++;
    tsr__roster_ring_park(s);
    tsr__log_with(&(tsr__log_fields){.event = TSR__EV_SESSION_OPENED,
                                     .session = s->id,
                                     .uid = (int64_t)s->uid,
                                     .pid = (int64_t)s->pid},
                  TSR__LOG_INFO, "session %u: pid %d uid %u (%s) connected%s%s", s->id, (int)s->pid,
                  (unsigned)s->uid, s->command, s->place.unit[0] ? " in " : "", s->place.unit);
}

/* The end of a connection that never said HELLO is logged under a rate
 * limit per reason (approximately: reasons that hash alike share one), as
 * a client can open such connections by the thousand. */
static tsr__log_limit *cause_limit(const char *why)
{
    static tsr__log_limit limits[64];
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (const char *p = why; *p; p++)
        hash = (hash ^ (uint8_t)*p) * 16777619u;
    return &limits[hash % 64];
}

/* What an opened session did, for its end's record: how long it was
 * open, its requests and kernels, its busy time and the most memory it
 * held on each device. */
static void session_record(const tsr__session *s, char *out, size_t n)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    uint64_t open_ns = now_ns > s->started_unix_ns ? now_ns - s->started_unix_ns : 0;
    int used =
        snprintf(out, n, "; open %.3f s, %llu requests, %llu kernels, busy %.3f s, peak reserved",
                 (double)open_ns / 1e9, (unsigned long long)s->requests,
                 (unsigned long long)s->launches, (double)s->busy_ns / 1e9);
    bool any = false;
    const tsr__registry *reg = &s->server->registry;
    for (size_t k = 0; s->devices && k < reg->accel_count && used > 0 && (size_t)used < n; k++) {
        if (!s->devices[k].pool.allocator)
            continue;
        tsr__alloc_stats one;
        tsr__allocator_stats(s->devices[k].pool.allocator, &one);
        char name[TSR_DEVICE_STR_MAX];
        tsr_device_str((tsr_device){(tsr_device_type)reg->accel_type, (int32_t)k}, name,
                       sizeof name);
        used += snprintf(out + used, n - (size_t)used, "%s %llu bytes on %s", any ? "," : "",
                         (unsigned long long)one.peak_reserved, name);
        any = true;
    }
    if (!any && used > 0 && (size_t)used < n)
        snprintf(out + used, n - (size_t)used, " none");
}

void tsr__session_end(tsr__session *s, const char *why)
{
    if (s->ending) /* NEVER: nothing of an ending session is watched */
        return;
    tsr__server *server = s->server;
    tsr__alloc_stats total = {0};
    for (size_t k = 0; s->devices && k < server->registry.accel_count; k++) {
        if (!s->devices[k].pool.allocator)
            continue;
        tsr__alloc_stats one;
        tsr__allocator_stats(s->devices[k].pool.allocator, &one);
        total.allocated += one.allocated;
        total.reserved += one.reserved;
    }
    tsr__share_session_end(s);
    /* Each kernel in flight holds a reference, and so does each import of
     * an export of it. */
    bool busy = s->inflight_total > 0 || s->export_count > 0;
    tsr__log_fields fields = {.event = TSR__EV_SESSION_ENDED,
                              .session = s->id,
                              .uid = (int64_t)s->uid,
                              .pid = (int64_t)s->pid};
    if (s->monitor) {
        tsr__log(TSR__LOG_DEBUG, "monitor %u: pid %d ended (%s)", s->id, (int)s->pid, why);
        server->monitor_count--;
    } else {
        char record[512] = "";
        if (s->version)
            session_record(s, record, sizeof record);
        tsr__log_limited(s->version ? NULL : cause_limit(why), &fields, TSR__LOG_INFO,
                         "session %u: pid %d ended (%s); released %llu bytes in use, %llu "
                         "reserved%s%s",
                         s->id, (int)s->pid, why, (unsigned long long)total.allocated,
                         (unsigned long long)total.reserved,
                         s->export_count > 0 ? " once other sessions release their imports of it"
                         : s->inflight_total > 0 ? " once its kernels finish"
                                                 : "",
                         record);
        tsr__roster_count(server, s->uid, -1, s->version ? 0 : -1);
        server->session_count--;
    }
    tsr__roster_ring_drop(server, s);
    tsr__user_session_end(s);
    tsr__loop_unwatch(server->loop, s->watch);
    tsr__loop_unwatch(server->loop, s->doorbell_watch);
    tsr__loop_unwatch(server->loop, s->hello_watch);
    s->watch = s->doorbell_watch = s->hello_watch = NULL;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (s->hello_timer >= 0)
        close(s->hello_timer);
    s->hello_timer = -1;
    s->ending = true;
    /* Listed as ending until its kernels are done: what /proc says of the
     * client now, while its pid is still its own. */
    if (busy && (s->owner = calloc(1, sizeof *s->owner)))
        tsr__proc_read_owner(s->pid, s->owner);
    tsr__session_release(s); /* the connection's reference */
}

/* Sends one frame, with up to two descriptors. Returns NULL, or why it
 * could not be sent, as a session's end reason. */
static const char *send_frame(tsr__session *s, const uint8_t *frame, uint32_t len, const int *fds,
                              int nfds)
{
    struct iovec iov = {.iov_base = (void *)frame, .iov_len = len};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    ssize_t sent = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent == (ssize_t)len)
        return NULL;
    /* A full socket buffer is a client that does not read; the others are
     * a client that went away before its reply (killed, or closed). */
    if (sent >= 0)
        return "a reply could not be sent whole";
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
        return "the client does not read its replies";
    if (errno == EPIPE)
        return "the client closed the connection before its reply";
    if (errno == ECONNRESET)
        return "the client reset the connection before its reply";
    static char why[96];
    snprintf(why, sizeof why, "cannot send a reply: %s", strerror(errno));
    return why;
}

/* Reads and serves one packet. Returns false when there is nothing more to
 * read now or the session ended (*ended says which). */
static bool serve_packet(tsr__session *s, bool *ended)
{
    frame_buffer in, out;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(8 * sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = in.bytes, .iov_len = sizeof in.bytes};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n = recvmsg(s->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return false;
    const char *why = NULL;
    char reason[TSR__ERROR_MAX + 64];
    bool had_fds = false;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < count; k++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
            close(fd);
        }
        had_fds = true;
    }
    if (n < 0)
        why = strerror(errno);
    else if (n == 0)
        why = "disconnected";
    else if (had_fds || (msg.msg_flags & MSG_CTRUNC))
        why = "malformed frame: the client sent descriptors";
    else if (msg.msg_flags & MSG_TRUNC)
        why = "malformed frame: larger than a frame may be";
    if (why) {
        tsr__session_end(s, why);
        *ended = true;
        return false;
    }
    uint32_t out_len = 0;
    int fds[2];
    int nfds = 0;
    tsr__session_served served = tsr__session_serve_frame(s, in.bytes, (size_t)n, TSR__WIRE_SOCKET,
                                                          out.bytes, &out_len, fds, &nfds);
    if (served == TSR__SERVED_MALFORMED) {
        snprintf(reason, sizeof reason, "malformed frame: %s", tsr_last_error());
        tsr__session_end(s, reason);
        *ended = true;
        return false;
    }
    const char *unsent = send_frame(s, out.bytes, out_len, fds, nfds);
    if (unsent || served == TSR__SERVED_END) {
        tsr__session_end(s, unsent ? unsent : "handshake refused");
        *ended = true;
        return false;
    }
    return true;
}

tsr__session_served tsr__session_serve_frame(tsr__session *s, const uint8_t *frame, size_t len,
                                             uint32_t transport, uint8_t *reply,
                                             uint32_t *reply_len, int *fds, int *nfds)
{
    tsr__wire_header h;
    *reply_len = 0;
    *nfds = 0;
    if (tsr__wire_check(frame, len, transport, false, &h) != TSR_OK)
        return TSR__SERVED_MALFORMED;
    bool was_open = s->version != 0;
    bool keep =
        tsr__session_handle(s, &h, frame + sizeof h, transport, reply, reply_len, fds, nfds);
    if (!was_open && s->version)
        opened(s);
    return keep ? TSR__SERVED_KEEP : TSR__SERVED_END;
}

static void on_socket(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    tsr__session *s = data;
    bool ended = false;
    /* A few packets per wake-up, so one chatty client cannot starve others. */
    for (int k = 0; k < 16 && serve_packet(s, &ended); k++)
        ;
    if (!ended && (events & (EPOLLHUP | EPOLLERR)) && !(events & EPOLLIN))
        tsr__session_end(s, "disconnected");
}

static void wake_client(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

unsigned tsr__session_serve_ring(tsr__session *s)
{
    tsr__ring *ring = s->ring;
    if (!ring)
        return 0;
    uint32_t bell = atomic_load(&ring->header.doorbell);
    if (bell == s->doorbell_seen)
        return 0;
    s->doorbell_seen = bell;
    unsigned served = 0;
    for (uint32_t k = 0; k < TSR__RING_SLOTS; k++) {
        tsr__ring_slot *slot = &ring->slots[k];
        uint32_t expect = TSR__SLOT_REQUEST;
        if (atomic_load_explicit(&slot->state, memory_order_relaxed) != TSR__SLOT_REQUEST ||
            !atomic_compare_exchange_strong(&slot->state, &expect, TSR__SLOT_SERVING))
            continue;
        frame_buffer in, out;
        uint32_t len = *(volatile uint32_t *)&slot->frame_len;
        if (len > TSR__RING_FRAME_MAX) {
            tsr__fail(TSR_ERR_PROTOCOL, "ring frame of %u bytes", (unsigned)len);
        } else {
            memcpy(in.bytes, slot->frame, len);
            uint32_t out_len = 0;
            int fds[2], nfds = 0;
            tsr__session_served result = tsr__session_serve_frame(s, in.bytes, len, TSR__WIRE_RING,
                                                                  out.bytes, &out_len, fds, &nfds);
            if (result != TSR__SERVED_MALFORMED) {
                bool keep = result == TSR__SERVED_KEEP;
                memcpy(slot->frame, out.bytes, out_len);
                slot->frame_len = out_len;
                atomic_store(&slot->state, TSR__SLOT_REPLY);
                if (atomic_load(&slot->client_waiting))
                    wake_client(&slot->state);
                served++;
                if (keep)
                    continue;
            }
        }
        char reason[TSR__ERROR_MAX + 64];
        snprintf(reason, sizeof reason, "malformed ring frame: %s", tsr_last_error());
        tsr__session_end(s, reason);
        return served + 1;
    }
    return served;
}
