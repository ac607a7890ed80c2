/* The daemon's top level: the listening socket and the admission of
 * connections, signals, the configuration in force, systemd's
 * notifications and the ring poller over the sessions with work (see
 * server.h). */
#include "daemon/server.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/admin.h"
#include "daemon/exec.h"
#include "daemon/log.h"
#include "daemon/procinfo.h"
#include "daemon/roster.h"
#include "daemon/session.h"
#include "daemon/user.h"

/* Every session needs a few descriptors plus one per segment. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* A socket file that nobody answers on is left over from a daemon that
 * died; one that answers belongs to a live daemon. */
static tsr_status claim_path(const struct sockaddr_un *addr)
{
    struct stat st;
    if (lstat(addr->sun_path, &st) < 0)
        return TSR_OK;
    if (!S_ISSOCK(st.st_mode))
        return tsr__fail(TSR_ERR_IO, "%s exists and is not a socket; not replacing it",
                         addr->sun_path);
    int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (probe < 0)
        return tsr__fail(TSR_ERR_IO, "socket: %s", strerror(errno));
    int live = connect(probe, (const struct sockaddr *)addr, sizeof *addr) == 0;
    close(probe);
    if (live)
        return tsr__fail(TSR_ERR_IO, "another tesserad is already listening on %s", addr->sun_path);
    if (unlink(addr->sun_path) < 0)
        return tsr__fail(TSR_ERR_IO, "cannot remove the stale socket %s: %s", addr->sun_path,
                         strerror(errno));
    tsr__log(TSR__LOG_NOTICE, "replaced the stale socket %s", addr->sun_path);
    return TSR_OK;
}

/* Gives the socket file its group and mode. It is created owner-only
 * (umask), so it is never more open than asked for, even for a moment. */
static tsr_status set_access(const char *path, const tsr__config *cfg)
{
    const tsr__config_value *group = &cfg->v[TSR__CONF_SOCKET_GROUP];
    if (group->text[0] && chown(path, (uid_t)-1, (gid_t)group->number) < 0)
        return tsr__fail(errno == EPERM ? TSR_ERR_PERMISSION : TSR_ERR_IO,
                         "cannot give %s to group %s (socket.group): %s", path, group->text,
                         strerror(errno));
    if (chmod(path, (mode_t)cfg->v[TSR__CONF_SOCKET_MODE].number) < 0)
        return tsr__fail(TSR_ERR_IO, "cannot set the mode of %s (socket.mode): %s", path,
                         strerror(errno));
    return TSR_OK;
}

/* The socket is bound under a temporary name beside the final one and
 * linked into place once it listens with its group and mode: whoever
 * sees the file can connect to it, and never meets a socket that refuses
 * connections (between bind() and listen()) or that has the wrong mode.
 * A path with no room for the suffix is bound in place. */
static tsr_status bind_socket(tsr__server *server, const tsr__config *cfg)
{
    const char *path = cfg->v[TSR__CONF_SOCKET_PATH].text;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (!path || !*path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "empty socket path");
    if (strlen(path) >= sizeof addr.sun_path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "socket path too long (%zu bytes, at most %zu): %s", strlen(path),
                         sizeof addr.sun_path - 1, path);
    memcpy(addr.sun_path, path, strlen(path) + 1);
    tsr_status st = claim_path(&addr);
    if (st != TSR_OK)
        return st;
    struct sockaddr_un temp = addr;
    int n = snprintf(temp.sun_path, sizeof temp.sun_path, "%s.%ld.new", path, (long)getpid());
    bool aside = n > 0 && (size_t)n < sizeof temp.sun_path;
    if (!aside)
        temp = addr;
    else
        unlink(temp.sun_path); /* left by a daemon of this pid that died here */
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "socket: %s", strerror(errno));
    mode_t old_mask = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&temp, sizeof temp);
    umask(old_mask);
    if (bound < 0 || listen(fd, 256) < 0) {
        int e = errno;
        if (bound == 0)
            unlink(temp.sun_path);
        close(fd);
        return tsr__fail(e == EACCES ? TSR_ERR_PERMISSION : TSR_ERR_IO, "cannot listen on %s: %s",
                         path, strerror(e));
    }
    st = set_access(temp.sun_path, cfg);
    if (st == TSR_OK && aside) {
        /* link() never replaces: a daemon that started beside this one
         * and got there first keeps the path. A file system without hard
         * links gets rename() (claim_path found the path free). */
        int linked = link(temp.sun_path, addr.sun_path), e = errno;
        if (linked < 0 && (e == EPERM || e == EOPNOTSUPP || e == ENOSYS) &&
            rename(temp.sun_path, addr.sun_path) == 0)
            linked = 0;
        else if (linked < 0)
            st = e == EEXIST
                     ? tsr__fail(TSR_ERR_IO, "another tesserad is already listening on %s", path)
                     : tsr__fail(TSR_ERR_IO, "cannot link the socket %s into place as %s: %s",
                                 temp.sun_path, path, strerror(e));
        unlink(temp.sun_path);
    }
    if (st != TSR_OK) {
        close(fd);
        if (!aside)
            unlink(temp.sun_path);
        return st;
    }
    server->listen_fd = fd;
    memcpy(server->socket_path, addr.sun_path, sizeof server->socket_path);
    return TSR_OK;
}

/* The listening socket systemd passed (tesserad.socket), if any. Taken
 * before discovery forks, and made close-on-exec, so that no child holds
 * it. */
static tsr_status take_activated_socket(tsr__server *server)
{
    int n = sd_listen_fds(1);
    if (n < 0)
        return tsr__fail(TSR_ERR_IO, "sd_listen_fds: %s", strerror(-n));
    if (n == 0)
        return TSR_OK;
    int fd = SD_LISTEN_FDS_START;
    if (n > 1 || sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, NULL, 0) <= 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "systemd passed %d socket%s; tesserad takes one listening "
                         "SOCK_SEQPACKET Unix socket (ListenSequentialPacket=)",
                         n, n == 1 ? "" : "s");
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return tsr__fail(TSR_ERR_IO, "cannot set up the passed socket: %s", strerror(errno));
    struct sockaddr_un addr = {0};
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) == 0 && addr.sun_path[0])
        memcpy(server->socket_path, addr.sun_path, sizeof server->socket_path);
    else
        snprintf(server->socket_path, sizeof server->socket_path, "(passed by systemd)");
    server->listen_fd = fd;
    server->socket_activated = true;
    return TSR_OK;
}

/* ---- admission ------------------------------------------------------------ */

/* uid 0, or a member of tessera-admin: the users of the administration
 * messages (admin.h), who get TSR__SERVER_ADMIN_RESERVE sessions beyond
 * every cap so that `tessera ps` works however many sessions others hold.
 * Asked only of a connection that a cap would refuse. */
static bool peer_is_admin(int fd, const struct ucred *cred)
{
    return tsr__proc_peer_is_admin(fd, cred->uid, cred->gid, TSR__ADMIN_GROUP);
}

/* Why a session of `uid` would be over a session cap with `extra` more
 * sessions allowed under each, written into why; false when it is not. */
static bool over_session_cap(const tsr__server *server, const tsr__uid_sessions *u, uint32_t uid,
                             uint32_t extra, char *why, size_t n)
{
    if (server->session_count >= server->max_sessions + extra)
        snprintf(why, n, "tesserad has %u sessions open, its most (sessions.max = %u)",
                 server->session_count, server->max_sessions);
    else if (u && u->sessions >= server->max_sessions_uid + extra)
        snprintf(why, n, "too many sessions for uid %u: %u open (sessions.max_per_uid = %u)",
                 (unsigned)uid, u->sessions, server->max_sessions_uid);
    else
        return false;
    return true;
}

/* The same for the connections of `uid` still waiting for their HELLO. */
static bool over_handshake_cap(const tsr__server *server, const tsr__uid_sessions *u, uint32_t uid,
                               uint32_t extra, char *why, size_t n)
{
    if (!u || u->handshakes < server->max_handshakes_uid + extra)
        return false;
    snprintf(why, n,
             "too many connections of uid %u waiting for their handshake: %u "
             "(sessions.max_handshakes_per_uid = %u)",
             (unsigned)uid, u->handshakes, server->max_handshakes_uid);
    return true;
}

static void close_refusal(tsr__refusal *r)
{
    if (r->fd < 0)
        return;
    tsr__loop_unwatch(r->server->loop, r->watch);
    close(r->fd);
    r->fd = -1;
    r->watch = NULL;
}

/* The refused connection's first frame: the refusal is its reply. */
static void on_refused(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    tsr__refusal *r = data;
    union {
        uint64_t align;
        uint8_t bytes[TSR__WIRE_FRAME_MAX + 1];
    } in;
    ssize_t n = recv(r->fd, in.bytes, sizeof in.bytes, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    tsr__wire_header h;
    if (n > 0 && tsr__wire_check(in.bytes, (size_t)n, TSR__WIRE_SOCKET, false, &h) == TSR_OK) {
        struct {
            tsr__wire_header h;
            tsr__wire_error err;
        } out;
        uint32_t len = tsr__wire_error_fill(&out.err, r->status, r->message);
        tsr__wire_header_init(&out.h, h.opcode, TSR__WIRE_REPLY | TSR__WIRE_ERROR, len,
                              h.request_id);
        ssize_t ignored = send(r->fd, &out, sizeof out.h + len, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)ignored;
    }
    close_refusal(r);
}

/* Turns a connection away with the reason as the reply to its first
 * frame. The refusal slots are few and reused oldest first, so a flood of
 * refused connections holds no more than TSR__SERVER_REFUSALS descriptors. */
static void refuse(tsr__server *server, int fd, tsr_status status, const char *why)
{
    tsr__refusal *r = &server->refusals[server->next_refusal++ % TSR__SERVER_REFUSALS];
    close_refusal(r);
    *r = (tsr__refusal){.server = server, .fd = fd, .status = status};
    snprintf(r->message, sizeof r->message, "%s", why);
    tsr_status st =
        tsr__loop_watch(server->loop, fd, EPOLLIN | EPOLLRDHUP, on_refused, r, &r->watch);
    if (st != TSR_OK) {
        close(fd);
        r->fd = -1;
    }
}

/* Whether a peer of `cred` (connected over fd; -1 for none) may connect
 * now: TSR_OK with its uid's row made, else TSR_ERR_LIMIT (too many of its
 * connections waiting for their handshake) or TSR_ERR_OUT_OF_MEMORY (no
 * room for the row), with the reason as the message. A connection over a
 * session cap (sessions.max and the per-uid cap) is let in all the same,
 * with the reason in `over` (else ""): it may open a monitoring connection
 * (which no session cap counts), and is told the reason if it asks for a
 * session. uid 0 and tessera-admin get TSR__SERVER_ADMIN_RESERVE beyond
 * every cap. */
static tsr_status admission(tsr__server *server, int fd, const struct ucred *cred, char *over,
                            size_t n)
{
    char why[sizeof server->refusals[0].message];
    tsr__uid_sessions *u = tsr__roster_uid(server, cred->uid);
    over[0] = '\0';
    if (over_handshake_cap(server, u, cred->uid, 0, why, sizeof why) &&
        (!peer_is_admin(fd, cred) ||
         over_handshake_cap(server, u, cred->uid, TSR__SERVER_ADMIN_RESERVE, why, sizeof why))) {
        TSR__LOG_LIMITED_WITH(&(tsr__log_fields){.event = TSR__EV_SESSION_REFUSED,
                                                 .uid = (int64_t)cred->uid,
                                                 .pid = (int64_t)cred->pid},
                              TSR__LOG_WARNING, "refused a connection of pid %d: %s",
                              (int)cred->pid, why);
        server->counters.sessions_refused++;
        return tsr__fail_text(TSR_ERR_LIMIT, why);
    }
    if (over_session_cap(server, u, cred->uid, 0, over, n) && peer_is_admin(fd, cred) &&
        !over_session_cap(server, u, cred->uid, TSR__SERVER_ADMIN_RESERVE, over, n))
        over[0] = '\0';
    if (!u && server->uid_count == server->uid_cap) {
        uint32_t cap = server->uid_cap ? server->uid_cap * 2 : 16;
        tsr__uid_sessions *grown = realloc(server->uids, cap * sizeof *grown);
        if (!grown) {
            TSR__LOG_LIMITED(TSR__LOG_WARNING, "refused a connection: out of memory");
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "tesserad is out of memory");
        }
        server->uids = grown;
        server->uid_cap = cap;
    }
    if (!u)
        server->uids[server->uid_count++] = (tsr__uid_sessions){.uid = cred->uid};
    return TSR_OK;
}

/* A session that failed to start: the row made for its uid goes unless
 * others of the uid hold it. */
static void not_started(tsr__server *server, uint32_t uid)
{
    if (!tsr__roster_uid(server, uid)->sessions)
        tsr__roster_count(server, uid, 0, 0);
}

/* Takes the connection as a session, or refuses it. */
static void admit(tsr__server *server, int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        TSR__LOG_LIMITED(TSR__LOG_WARNING, "cannot start a session: SO_PEERCRED: %s",
                         strerror(errno));
        close(fd);
        return;
    }
    char over[TSR__SESSION_REFUSAL_TEXT];
    tsr_status st = admission(server, fd, &cred, over, sizeof over);
    if (st != TSR_OK) {
        refuse(server, fd, st, tsr_last_error());
        return;
    }
    if (tsr__session_start(server, fd, &cred, over) != TSR_OK) {
        TSR__LOG_LIMITED(TSR__LOG_WARNING, "cannot start a session: %s", tsr_last_error());
        not_started(server, cred.uid);
    }
}

tsr_status tsr__server_open_detached(tsr__server *server, const struct ucred *cred,
                                     tsr__session **out)
{
    char over[TSR__SESSION_REFUSAL_TEXT];
    tsr_status st = admission(server, -1, cred, over, sizeof over);
    if (st == TSR_OK && over[0]) {
        not_started(server, cred->uid);
        return tsr__fail_text(TSR_ERR_LIMIT, over);
    }
    if (st == TSR_OK && (st = tsr__session_open_detached(server, cred, out)) != TSR_OK)
        not_started(server, cred->uid);
    return st;
}

/* Takes a timerfd's expiration count, so that it stops being readable. */
static void drain_timer(int fd)
{
    uint64_t expirations;
    ssize_t ignored = read(fd, &expirations, sizeof expirations);
    (void)ignored;
}

/* Stops listening for TSR__SERVER_ACCEPT_PAUSE_NS: accept4 failed with
 * the connection still pending, so the socket stays readable, and each
 * try would fail alike while the machine is short of file handles or
 * kernel memory (ENFILE, ENOMEM, ENOBUFS): without the pause the loop
 * would spin a CPU until then. Sessions already open are served
 * meanwhile. */
static void pause_listening(tsr__server *server)
{
    struct itimerspec when = {.it_value = {.tv_nsec = (long)TSR__SERVER_ACCEPT_PAUSE_NS}};
    if (server->accept_fd < 0 || timerfd_settime(server->accept_fd, 0, &when, NULL) < 0)
        return;
    tsr__loop_unwatch(server->loop, server->listen_watch);
    server->listen_watch = NULL;
}

static void on_listen(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    tsr__server *server = data;
    for (int k = 0; k < 64; k++) {
        int fd = accept4(server->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && server->spare_fd >= 0) {
            /* Out of descriptors: the pending connection would keep the
             * socket readable forever. Spend the spare one to take it and
             * turn it away. */
            close(server->spare_fd);
            fd = accept4(server->listen_fd, NULL, NULL, SOCK_CLOEXEC);
            int err = errno;
            if (fd >= 0)
                close(fd);
            server->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                TSR__LOG_LIMITED(TSR__LOG_WARNING,
                                 "refused a connection: the daemon is out of file descriptors");
                continue;
            }
            errno = err; /* the machine's table may be full: see below */
        }
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                return;
            TSR__LOG_LIMITED(TSR__LOG_WARNING, "accept: %s; not accepting connections for %llu ms",
                             strerror(errno),
                             (unsigned long long)(TSR__SERVER_ACCEPT_PAUSE_NS / 1000000u));
            pause_listening(server);
            return;
        }
        admit(server, fd);
    }
}

/* The pause is over: listening resumes (the spare descriptor taken again
 * if it could not be then), or the pause starts over. */
static void on_accept_timer(tsr__loop *loop, uint32_t events, void *data)
{
    (void)events;
    tsr__server *server = data;
    drain_timer(server->accept_fd);
    if (server->spare_fd < 0)
        server->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (server->listen_watch == NULL && tsr__loop_watch(loop, server->listen_fd, EPOLLIN, on_listen,
                                                        server, &server->listen_watch) != TSR_OK) {
        TSR__LOG_LIMITED(TSR__LOG_WARNING, "cannot listen again yet: %s", tsr_last_error());
        pause_listening(server);
    }
}

static void on_signal(tsr__loop *loop, uint32_t events, void *data)
{
    (void)events;
    tsr__server *server = data;
    struct signalfd_siginfo si;
    while (read(server->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
            tsr__log_with(&(tsr__log_fields){.event = TSR__EV_STOPPING, .uid = -1, .pid = -1},
                          TSR__LOG_NOTICE, "%s: stopping", strsignal((int)si.ssi_signo));
            tsr__loop_stop(loop);
        } else if (si.ssi_signo == SIGHUP) {
            tsr__server_reload(server);
        }
    }
}

/* ---- systemd: status and watchdog --------------------------------------- */

static void send_status(tsr__server *server)
{
    size_t devices = server->registry.accel_count;
    sd_notifyf(0, "STATUS=%zu %s device%s, %u session%s", devices, server->registry.backend->name,
               devices == 1 ? "" : "s", server->session_count,
               server->session_count == 1 ? "" : "s");
    server->status_sent_ns = tsr__now_ns();
    server->status_sessions = server->session_count;
}

/* The session count changed: tell systemd now, or when a second has
 * passed since the last update. */
static void status_changed(tsr__server *server)
{
    if (!server->notify || server->status_armed)
        return;
    uint64_t now = tsr__now_ns();
    if (now - server->status_sent_ns >= TSR__SERVER_STATUS_NS || server->status_fd < 0) {
        send_status(server);
        return;
    }
    uint64_t wait = server->status_sent_ns + TSR__SERVER_STATUS_NS - now;
    struct itimerspec when = {.it_value = {.tv_sec = (time_t)(wait / 1000000000u),
                                           .tv_nsec = (long)(wait % 1000000000u)}};
    if (timerfd_settime(server->status_fd, 0, &when, NULL) == 0)
        server->status_armed = true;
    else
        send_status(server);
}

static void on_status_timer(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    tsr__server *server = data;
    drain_timer(server->status_fd);
    server->status_armed = false;
    if (server->session_count != server->status_sessions)
        send_status(server);
}

static void on_watchdog(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    tsr__server *server = data;
    drain_timer(server->watchdog_fd);
    sd_notify(0, "WATCHDOG=1");
}

/* A timerfd watched by the loop; period_ns 0 makes a one-shot timer that
 * starts disarmed. */
static tsr_status start_timer(tsr__server *server, uint64_t period_ns, tsr__loop_fn fn, int *fd,
                              tsr__watch **watch)
{
    *fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (*fd < 0)
        return tsr__fail(TSR_ERR_IO, "timerfd_create: %s", strerror(errno));
    struct timespec period = {.tv_sec = (time_t)(period_ns / 1000000000u),
                              .tv_nsec = (long)(period_ns % 1000000000u)};
    struct itimerspec every = {.it_interval = period, .it_value = period};
    if (period_ns && timerfd_settime(*fd, 0, &every, NULL) < 0)
        return tsr__fail(TSR_ERR_IO, "timerfd_settime: %s", strerror(errno));
    return tsr__loop_watch(server->loop, *fd, EPOLLIN, fn, server, watch);
}

/* WATCHDOG=1 from the loop itself at half systemd's WatchdogSec=, so a
 * loop that hangs gets the daemon restarted; STATUS= updates on a timer. */
static tsr_status start_systemd_timers(tsr__server *server)
{
    server->notify = getenv("NOTIFY_SOCKET") != NULL;
    if (!server->notify)
        return TSR_OK;
    uint64_t usec = 0;
    tsr_status st =
        start_timer(server, 0, on_status_timer, &server->status_fd, &server->status_watch);
    if (st == TSR_OK && sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
        st = start_timer(server, usec * 1000u / 2, on_watchdog, &server->watchdog_fd,
                         &server->watchdog_watch);
        if (st == TSR_OK)
            tsr__log(TSR__LOG_DEBUG, "watchdog: every %llu ms", (unsigned long long)(usec / 2000));
    }
    return st;
}

/* ---- the ring poller ------------------------------------------------------ */

/* Parks the ring unless a request came meanwhile: the flag is set before
 * the doorbell is read again, and the client bumps the doorbell before it
 * reads the flag (both sequentially consistent), so either the daemon sees
 * the post here or the client sees the flag and rings the eventfd. Returns
 * whether the ring has work and stays. */
static bool park(tsr__server *server, tsr__session *s)
{
    tsr__roster_ring_park(s);
    if (atomic_load(&s->ring->header.doorbell) != s->doorbell_seen) {
        atomic_store(&s->ring->header.daemon_sleeping, 0u);
        s->idle_passes = 0;
        return true;
    }
    tsr__roster_ring_drop(server, s);
    return false;
}

static unsigned serve_rings(void *data)
{
    tsr__server *server = data;
    unsigned served = 0;
    server->passes++;
    /* Replies first, the pass's kernels to the driver after them. */
    tsr__exec_hold(server);
    for (tsr__session *s = server->ready_first, *next; s; s = next) {
        next = s->ready_next;
        /* Serving may end the session (a malformed frame) and free it,
         * but only when it returns non-zero. */
        uint32_t idle = s->idle_passes;
        s->idle_passes = 0;
        server->rings_polled++;
        unsigned n = tsr__session_serve_ring(s);
        served += n;
        if (n == 0 && (s->idle_passes = idle + 1) >= TSR__SERVER_PARK_PASSES)
            park(server, s);
    }
    tsr__exec_release(server);
    /* Sessions come and go in callbacks all over the loop; every pass
     * through the loop comes here. */
    if (server->session_count != server->status_sessions)
        status_changed(server);
    return served;
}

/* Before the loop sleeps every ring is parked; after it, the doorbells
 * that rang have put theirs back (tsr__roster_ring_ready). */
static bool arm_rings(void *data, bool sleeping)
{
    tsr__server *server = data;
    bool pending = false;
    for (tsr__session *s = server->ready_first, *next; sleeping && s; s = next) {
        next = s->ready_next;
        pending |= park(server, s);
    }
    return pending;
}

/* The loop does not spin while kernels run on this machine's CPUs: with
 * PoCL's CPU device, a spinning loop thread would hold a CPU that a worker
 * needs (on a 2-CPU machine a small kernel took half as long again). Nor
 * while a user program compiles past its first milliseconds
 * (tsr__user_building): the compiler works on this machine's CPUs, and
 * when clients still asked for a build's state every millisecond the spin
 * after each answer took the daemon 17-25 ms of CPU a build on a loaded
 * 2-CPU machine, against 35-58 ms for the compiler itself. */
static bool kernels_on_host(void *data)
{
    return tsr__exec_on_host(data) || tsr__user_building(data);
}

/* ---- the configuration in force ----------------------------------------- */

/* What the daemon lends of each device: memory_limit.daemon, applied to
 * the registry (clients see it as the device's memory) and the limits. */
static tsr_status apply_capacities(tsr__server *server, const tsr__config *cfg)
{
    size_t n = server->registry.accel_count;
    uint64_t *capacity = calloc(n ? n : 1, sizeof *capacity);
    if (!capacity)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    tsr__limit limit = cfg->v[TSR__CONF_MEMORY_DAEMON].limit;
    for (size_t k = 0; k < n; k++) {
        tsr__registry_device *d = &server->registry.devices[1 + k];
        uint64_t lend = tsr__limit_bytes(limit, server->device_total[k]);
        capacity[k] = lend < server->device_total[k] ? lend : server->device_total[k];
        bool changed = d->capacity != capacity[k];
        d->capacity = capacity[k];
        d->info.memory_bytes = capacity[k];
        if (changed && lend < server->device_total[k])
            tsr__log(TSR__LOG_INFO, "%s:%zu: lending %llu MiB of %llu MiB (memory_limit.daemon)",
                     server->registry.backend->name, k, (unsigned long long)(capacity[k] >> 20),
                     (unsigned long long)(server->device_total[k] >> 20));
    }
    tsr_status st = tsr__limits_set_devices(server->limits, server->registry.backend->name, n,
                                            server->device_total, capacity);
    free(capacity);
    return st;
}

/* devices.visible against the devices that exist; its unit, slice and
 * cgroup lines are checked the same way (warnings only: each session
 * takes its list at HELLO, handlers.c). */
static void apply_visible(tsr__server *server, const tsr__config *cfg)
{
    const tsr__config_value *v = &cfg->v[TSR__CONF_VISIBLE_DEVICES];
    server->visible_count =
        tsr__registry_visible_list(&server->registry, v->all_devices, v->device_count, v->devices,
                                   server->visible, "devices.visible", "");
    size_t n = server->registry.accel_count;
    int32_t *scratch = calloc(n ? n : 1, sizeof *scratch);
    for (size_t k = 0; scratch && k < cfg->match_count; k++) {
        const tsr__config_match *m = &cfg->matches[k];
        const tsr__config_key *key = tsr__config_key_at(m->key);
        if (m->key == TSR__CONF_VISIBLE_UNIT || m->key == TSR__CONF_VISIBLE_SLICE ||
            m->key == TSR__CONF_VISIBLE_CGROUP)
            tsr__registry_visible_list(&server->registry, m->all_devices, m->device_count,
                                       m->devices, scratch, key->name, m->pattern);
    }
    free(scratch);
}

/* Everything that may change while the daemon runs. */
static tsr_status apply_live(tsr__server *server, const tsr__config *cfg)
{
    tsr_status st = tsr__limits_set_rules(server->limits, cfg);
    if (st == TSR_OK)
        st = apply_capacities(server, cfg);
    if (st != TSR_OK)
        return st;
    tsr__log_set_level((int)cfg->v[TSR__CONF_LOG_LEVEL].number);
    server->max_sessions = (uint32_t)cfg->v[TSR__CONF_MAX_SESSIONS].number;
    server->max_sessions_uid = (uint32_t)cfg->v[TSR__CONF_MAX_SESSIONS_UID].number;
    server->max_handshakes_uid = (uint32_t)cfg->v[TSR__CONF_MAX_HANDSHAKES_UID].number;
    server->max_monitors = (uint32_t)cfg->v[TSR__CONF_MAX_MONITORS].number;
    apply_visible(server, cfg);
    return TSR_OK;
}

void tsr__server_log_notes(const tsr__config *cfg)
{
    for (unsigned k = 0; k < cfg->note_count; k++)
        tsr__log(TSR__LOG_WARNING, "%s", cfg->notes[k]);
    if (cfg->notes_dropped)
        tsr__log(TSR__LOG_WARNING, "and %u more such lines left out", cfg->notes_dropped);
}

/* The file again, with the command line over it. */
static tsr_status read_config(const tsr__server *server, tsr__config *next)
{
    tsr_status st = tsr__config_init(next, NULL);
    if (st == TSR_OK && server->config_path)
        st = tsr__config_load(next, server->config_path, !server->config_required, NULL, NULL);
    if (st == TSR_OK && server->overrides)
        st = tsr__config_merge(next, server->overrides);
    return st;
}

/* Keys that need a restart keep their running value; each change is
 * logged once per reload. */
static void keep_restart_keys(const tsr__server *server, tsr__config *next)
{
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        if (!key->restart || tsr__config_equal(server->config, next, (tsr__config_key_id)k))
            continue;
        tsr__log(TSR__LOG_NOTICE,
                 "reload: %s changed from '%s' to '%s'; it takes effect when "
                 "tesserad restarts",
                 key->name, tsr__config_text(server->config, k), tsr__config_text(next, k));
        next->v[k] = server->config->v[k];
    }
}

tsr_status tsr__server_reload(tsr__server *server)
{
    if (server->notify)
        sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
                   (unsigned long long)(tsr__now_ns() / 1000u));
    tsr__config *next = calloc(1, sizeof *next);
    tsr_status st = next ? read_config(server, next)
                         : tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory reloading");
    bool applied = false; /* some of next may be in force: undo on failure */
    if (st == TSR_OK) {
        keep_restart_keys(server, next);
        applied = true;
        st = apply_live(server, next);
    }
    if (st != TSR_OK) {
        server->counters.reload_failures++;
        tsr__log_with(&(tsr__log_fields){.event = TSR__EV_RELOAD_FAILED, .uid = -1, .pid = -1},
                      TSR__LOG_ERR, "reload failed, keeping the running configuration: %s",
                      tsr_last_error());
        tsr__config_free(next);
        free(next);
        if (applied && apply_live(server, server->config) != TSR_OK)
            tsr__log(TSR__LOG_ERR, "cannot restore the running configuration: %s",
                     tsr_last_error());
    } else {
        server->counters.reloads++;
        tsr__config_free(server->config);
        free(server->config);
        server->config = next;
        tsr__server_log_notes(next);
        tsr__log_with(&(tsr__log_fields){.event = TSR__EV_RELOADED, .uid = -1, .pid = -1},
                      TSR__LOG_NOTICE, "reloaded the configuration%s%s",
                      server->config_path ? " from " : "",
                      server->config_path ? server->config_path : "");
    }
    if (server->notify) {
        sd_notify(0, "READY=1");
        send_status(server);
    }
    return st;
}

/* ---- start and stop ------------------------------------------------------ */

static tsr_status copy_config(const tsr__config *src, tsr__config **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory copying the configuration");
    if (src)
        return tsr__config_copy(*out, src);
    tsr__config_clear(*out);
    return TSR_OK;
}

static tsr_status adopt_config(tsr__server *server, const tsr__server_options *options)
{
    tsr_status st = copy_config(options->config, &server->config);
    if (st == TSR_OK)
        st = copy_config(options->overrides, &server->overrides);
    if (st == TSR_OK && options->config_path &&
        !(server->config_path = strdup(options->config_path)))
        st = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    server->config_required = options->config_required;
    return st;
}

/* Discovery (or the registry given, taken over), then what the
 * configuration asks of the devices found. */
static tsr_status build_devices(tsr__server *server, tsr__registry *given)
{
    const tsr__config *cfg = server->config;
    tsr__registry_options ro = {
        .probe_timeout_ms = (int)cfg->v[TSR__CONF_PROBE_TIMEOUT].number,
        .copy_memory = cfg->v[TSR__CONF_DEVICE_MEMORY].number != TSR__DEVICE_MEMORY_AUTO,
        .stage_copies = cfg->v[TSR__CONF_DEVICE_MEMORY].number == TSR__DEVICE_MEMORY_STAGED,
        .host_code = cfg->v[TSR__CONF_HOST_CODE].number != 0,
        .huge_pages = cfg->v[TSR__CONF_HUGE_PAGES].number != 0};
    tsr_status st = TSR_OK;
    if (given) {
        server->registry = *given;
        *given = (tsr__registry){0};
    } else {
        st = tsr__registry_build(&ro, &server->registry);
    }
    if (st != TSR_OK)
        return st;
    size_t n = server->registry.accel_count;
    server->device_total = calloc(n ? n : 1, sizeof *server->device_total);
    server->visible = calloc(n ? n : 1, sizeof *server->visible);
    if (!server->device_total || !server->visible)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t k = 0; k < n; k++)
        server->device_total[k] = server->registry.devices[1 + k].info.memory_bytes;
    st = tsr__limits_create(&server->limits);
    return st == TSR_OK ? apply_live(server, cfg) : st;
}

static tsr_status start_listening(tsr__server *server, const sigset_t *mask)
{
    tsr_status st = tsr__loop_create(&server->loop);
    if (st == TSR_OK && !server->socket_activated)
        st = bind_socket(server, server->config);
    if (st == TSR_OK) {
        server->signal_fd = signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (server->signal_fd < 0)
            st = tsr__fail(TSR_ERR_IO, "signalfd: %s", strerror(errno));
    }
    if (st == TSR_OK)
        st = tsr__loop_watch(server->loop, server->listen_fd, EPOLLIN, on_listen, server,
                             &server->listen_watch);
    if (st == TSR_OK)
        st = tsr__loop_watch(server->loop, server->signal_fd, EPOLLIN, on_signal, server,
                             &server->signal_watch);
    if (st == TSR_OK)
        st = start_timer(server, 0, on_accept_timer, &server->accept_fd, &server->accept_watch);
    if (st == TSR_OK)
        st = start_systemd_timers(server);
    return st;
}

/* How many segments the daemon, and one uid's sessions, may hold
 * (server.h): each takes a descriptor and a mapping, so half of the
 * open-file limit and half of vm.max_map_count (the rest is for the
 * sessions' sockets and rings, the drivers, libraries and threads), and
 * half of that for one uid. */
static void size_segments(tsr__server *server)
{
    uint64_t maps = 65530; /* Linux's default */
    unsigned long long value = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
    if (f && fscanf(f, "%llu", &value) == 1 && value > 0)
        maps = value;
    if (f)
        fclose(f);
    struct rlimit rl;
    uint64_t fds = UINT64_C(1) << 20;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        fds = rl.rlim_cur;
    uint64_t most = maps / 2 < fds / 2 ? maps / 2 : fds / 2;
    most = most < 64 ? 64 : most > UINT32_MAX ? UINT32_MAX : most;
    server->daemon_max_segments = (uint32_t)most;
    server->uid_max_segments = (uint32_t)(most / 2);
}

/* A server that holds nothing yet. */
static void server_clear(tsr__server *server)
{
    *server = (tsr__server){.listen_fd = -1,
                            .signal_fd = -1,
                            .watchdog_fd = -1,
                            .status_fd = -1,
                            .spare_fd = -1,
                            .accept_fd = -1,
                            .session_max_segments = TSR__SESSION_MAX_SEGMENTS,
                            .session_max_threads = TSR__SESSION_MAX_THREADS,
                            .session_max_allocations = TSR__ALLOC_DEFAULT_MAX_ALLOCATIONS};
    size_segments(server);
    for (uint32_t k = 0; k < TSR__SERVER_REFUSALS; k++)
        server->refusals[k].fd = -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    server->counters.started_unix_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    server->counters.started_ns = tsr__now_ns();
}

tsr_status tsr__server_init(tsr__server *server, const tsr__server_options *options)
{
    server_clear(server);
    server->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    raise_fd_limit();
    size_segments(server);
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    tsr_status st = take_activated_socket(server);
    if (st == TSR_OK)
        st = adopt_config(server, options);
    if (st == TSR_OK) {
        const tsr__config *cfg = server->config;
        tsr__log_set_level((int)cfg->v[TSR__CONF_LOG_LEVEL].number);
        if (cfg->v[TSR__CONF_CACHE_DIR].set)
            snprintf(server->kernel_cache_dir, sizeof server->kernel_cache_dir, "%s",
                     cfg->v[TSR__CONF_CACHE_DIR].text);
        st = build_devices(server, NULL);
    }
    if (st == TSR_OK)
        st = start_listening(server, &mask);
    if (st != TSR_OK) {
        tsr__server_fini(server);
        return st;
    }
    tsr__loop_set_poller(server->loop, &(tsr__loop_poller){.serve = serve_rings,
                                                           .arm = arm_rings,
                                                           .quiet = kernels_on_host,
                                                           .data = server});
    return TSR_OK;
}

tsr_status tsr__server_init_detached(tsr__server *server, const tsr__server_options *options,
                                     tsr__registry *registry)
{
    server_clear(server);
    tsr_status st = adopt_config(server, options);
    if (st == TSR_OK)
        st = build_devices(server, registry);
    if (st == TSR_OK)
        st = tsr__loop_create(&server->loop);
    if (st != TSR_OK)
        tsr__server_fini(server);
    return st;
}

tsr_status tsr__server_run(tsr__server *server)
{
    tsr__log_with(&(tsr__log_fields){.event = TSR__EV_STARTED, .uid = -1, .pid = -1},
                  TSR__LOG_NOTICE, "listening on %s%s", server->socket_path,
                  server->socket_activated ? " (socket passed by systemd)" : "");
    if (server->notify)
        send_status(server);
    return tsr__loop_run(server->loop);
}

static void close_watched(tsr__server *server, int *fd, tsr__watch **watch)
{
    if (server->loop)
        tsr__loop_unwatch(server->loop, *watch);
    *watch = NULL;
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void tsr__server_fini(tsr__server *server)
{
    /* Ending a session may free it (no kernels in flight), and others
     * with it (an ended exporter that only its imports kept), so each
     * round starts from the list's head; the ending ones stay listed
     * until tsr__exec_shutdown retires their kernels. */
    for (;;) {
        tsr__session *s = server->first;
        while (s && s->ending)
            s = s->next;
        if (!s)
            break;
        tsr__session_end(s, "the daemon is stopping");
    }
    for (uint32_t k = 0; k < TSR__SERVER_REFUSALS; k++)
        close_refusal(&server->refusals[k]);
    if (server->passes)
        tsr__log(TSR__LOG_INFO, "ring poller: %llu passes polled %llu rings",
                 (unsigned long long)server->passes, (unsigned long long)server->rings_polled);
    tsr__log_flush();
    /* User kernels' workers end first: what they run fails. Then kernels
     * still queued finish (or fail), and sessions that outlived their
     * connection behind them are released. */
    tsr__user_shutdown(server);
    tsr__exec_shutdown(server);
    assert(server->first == NULL);
    bool unlink_socket = server->listen_fd >= 0 && !server->socket_activated;
    close_watched(server, &server->listen_fd, &server->listen_watch);
    if (unlink_socket)
        unlink(server->socket_path);
    close_watched(server, &server->signal_fd, &server->signal_watch);
    close_watched(server, &server->watchdog_fd, &server->watchdog_watch);
    close_watched(server, &server->status_fd, &server->status_watch);
    close_watched(server, &server->accept_fd, &server->accept_watch);
    if (server->spare_fd >= 0)
        close(server->spare_fd);
    tsr__loop_destroy(server->loop);
    tsr__registry_free(&server->registry);
    tsr__limits_destroy(server->limits);
    free(server->device_total);
    free(server->visible);
    free(server->uids);
    tsr__config_free(server->config);
    tsr__config_free(server->overrides);
    free(server->config);
    free(server->overrides);
    free(server->config_path);
    server->spare_fd = -1;
    server->loop = NULL;
    server->limits = NULL;
    server->device_total = NULL;
    server->visible = NULL;
    server->uids = NULL;
    server->uid_count = server->uid_cap = 0;
    server->config = server->overrides = NULL;
    server->config_path = NULL;
}
