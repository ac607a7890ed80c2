/* The daemon's top level: the listening socket, signals and the ring
 * poller over all sessions (see server.h). */
#include "daemon/server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/log.h"
#include "daemon/session.h"

#define DEFAULT_MAX_SESSIONS 4096

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
        return tsr__fail(TSR_ERR_IO, "another tesserad is already listening on %s",
                         addr->sun_path);
    if (unlink(addr->sun_path) < 0)
        return tsr__fail(TSR_ERR_IO, "cannot remove the stale socket %s: %s", addr->sun_path,
                         strerror(errno));
    tsr__log(TSR__LOG_NOTICE, "replaced the stale socket %s", addr->sun_path);
    return TSR_OK;
}

static tsr_status bind_socket(tsr__server *server, const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (!path || !*path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "empty socket path");
    if (strlen(path) >= sizeof addr.sun_path)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "socket path too long (%zu bytes, at most %zu): %s",
                         strlen(path), sizeof addr.sun_path - 1, path);
    memcpy(addr.sun_path, path, strlen(path) + 1);
    tsr_status st = claim_path(&addr);
    if (st != TSR_OK)
        return st;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 256) < 0) {
        int e = errno;
        close(fd);
        return tsr__fail(e == EACCES ? TSR_ERR_PERMISSION : TSR_ERR_IO, "cannot listen on %s: %s",
                         path, strerror(e));
    }
    server->listen_fd = fd;
    memcpy(server->socket_path, addr.sun_path, sizeof server->socket_path);
    return TSR_OK;
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
            if (fd >= 0)
                close(fd);
            server->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            tsr__log(TSR__LOG_WARNING, "refused a connection: the daemon is out of file descriptors");
            continue;
        }
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                tsr__log(TSR__LOG_WARNING, "accept: %s", strerror(errno));
            return;
        }
        if (server->session_count >= server->max_sessions) {
            tsr__log(TSR__LOG_WARNING, "refusing a connection: %u sessions already open",
                     server->session_count);
            close(fd);
            continue;
        }
        if (tsr__session_start(server, fd) != TSR_OK)
            tsr__log(TSR__LOG_WARNING, "cannot start a session: %s", tsr_last_error());
    }
}

static void on_signal(tsr__loop *loop, uint32_t events, void *data)
{
    (void)events;
    tsr__server *server = data;
    struct signalfd_siginfo si;
    while (read(server->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
            tsr__log(TSR__LOG_NOTICE, "%s: stopping", strsignal((int)si.ssi_signo));
            tsr__loop_stop(loop);
        }
    }
}

static unsigned serve_rings(void *data)
{
    tsr__server *server = data;
    unsigned served = 0;
    for (tsr__session *s = server->first, *next; s; s = next) {
        next = s->next;
        served += tsr__session_serve_ring(s);
    }
    return served;
}

static bool arm_rings(void *data, bool sleeping)
{
    tsr__server *server = data;
    bool pending = false;
    for (tsr__session *s = server->first; s; s = s->next) {
        if (!s->ring)
            continue;
        atomic_store(&s->ring->header.daemon_sleeping, sleeping ? 1u : 0u);
        if (sleeping && atomic_load(&s->ring->header.doorbell) != s->doorbell_seen)
            pending = true;
    }
    return pending;
}

tsr_status tsr__server_init(tsr__server *server, const tsr__server_options *options)
{
    *server = (tsr__server){.listen_fd = -1, .signal_fd = -1};
    server->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    server->max_sessions = options->max_sessions ? options->max_sessions : DEFAULT_MAX_SESSIONS;
    raise_fd_limit();
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    tsr__registry_options ro = {.memory_limit = options->memory_limit,
                                .probe_timeout_ms = options->probe_timeout_ms};
    tsr_status st = tsr__registry_build(&ro, &server->registry);
    if (st != TSR_OK)
        return st;
    st = tsr__loop_create(&server->loop);
    if (st == TSR_OK)
        st = bind_socket(server, options->socket_path);
    if (st == TSR_OK) {
        server->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (server->signal_fd < 0)
            st = tsr__fail(TSR_ERR_IO, "signalfd: %s", strerror(errno));
    }
    if (st == TSR_OK)
        st = tsr__loop_watch(server->loop, server->listen_fd, EPOLLIN, on_listen, server,
                             &server->listen_watch);
    if (st == TSR_OK)
        st = tsr__loop_watch(server->loop, server->signal_fd, EPOLLIN, on_signal, server,
                             &server->signal_watch);
    if (st != TSR_OK) {
        tsr__server_fini(server);
        return st;
    }
    tsr__loop_set_poller(server->loop, &(tsr__loop_poller){.serve = serve_rings,
                                                          .arm = arm_rings,
                                                          .data = server});
    return TSR_OK;
}

tsr_status tsr__server_run(tsr__server *server)
{
    tsr__log(TSR__LOG_NOTICE, "listening on %s", server->socket_path);
    return tsr__loop_run(server->loop);
}

void tsr__server_fini(tsr__server *server)
{
    while (server->first)
        tsr__session_end(server->first, "the daemon is stopping");
    if (server->loop) {
        tsr__loop_unwatch(server->loop, server->listen_watch);
        tsr__loop_unwatch(server->loop, server->signal_watch);
    }
    if (server->listen_fd >= 0) {
        close(server->listen_fd);
        unlink(server->socket_path);
    }
    if (server->signal_fd >= 0)
        close(server->signal_fd);
    if (server->spare_fd >= 0)
        close(server->spare_fd);
    tsr__loop_destroy(server->loop);
    tsr__registry_free(&server->registry);
    server->listen_fd = server->signal_fd = server->spare_fd = -1;
    server->loop = NULL;
}
