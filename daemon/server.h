/* The daemon's state: the listening socket, the device registry, the
 * sessions, and the event loop that owns them all (no locks: only the loop
 * thread touches any of it). */
#ifndef TESSERA_DAEMON_SERVER_H
#define TESSERA_DAEMON_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "daemon/loop.h"
#include "daemon/registry.h"

typedef struct tsr__session tsr__session;

typedef struct tsr__server_options {
    const char *socket_path;
    uint64_t memory_limit;   /* per device, 0: the device's own size */
    uint32_t max_sessions;   /* 0: default */
    int probe_timeout_ms;
} tsr__server_options;

typedef struct tsr__server {
    tsr__loop *loop;
    tsr__registry registry;
    int listen_fd;
    int signal_fd;
    int spare_fd; /* kept open to turn connections away when out of descriptors */
    tsr__watch *listen_watch, *signal_watch;
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    tsr__session *first, *last; /* in session-id order */
    uint32_t next_session_id;
    uint32_t session_count, max_sessions;
    int exit_code;
} tsr__server;

/* Discovers devices, binds the socket (its directory must exist; a stale
 * socket file left by a dead daemon is replaced, a live daemon's is not)
 * and sets up signal handling (SIGTERM/SIGINT stop, SIGPIPE ignored). */
tsr_status tsr__server_init(tsr__server *server, const tsr__server_options *options);
/* Serves until SIGTERM or SIGINT. */
tsr_status tsr__server_run(tsr__server *server);
/* Ends every session, unlinks the socket, frees everything. */
void tsr__server_fini(tsr__server *server);

#endif /* TESSERA_DAEMON_SERVER_H */
