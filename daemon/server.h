/* The daemon's state: the listening socket, the device registry, the
 * sessions, the configuration in force and the memory limits, and the
 * event loop that owns them all (no locks: only the loop thread touches
 * any of it). Signals arrive through a signalfd: SIGTERM and SIGINT stop,
 * SIGHUP reloads the configuration. Under systemd the server takes the
 * socket it is passed (socket activation), reports its state with
 * sd_notify (READY, STATUS with device and session counts, RELOADING,
 * STOPPING) and feeds the watchdog from the loop. */
#ifndef TESSERA_DAEMON_SERVER_H
#define TESSERA_DAEMON_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "daemon/config.h"
#include "daemon/limits.h"
#include "daemon/loop.h"
#include "daemon/registry.h"
#include "tessera/status.h"

typedef struct tsr__session tsr__session;

typedef struct tsr__server_options {
    const tsr__config *config;    /* the configuration to start with (copied) */
    const tsr__config *overrides; /* the command line's keys, applied over the file again on
                                     every reload (copied); NULL: none */
    const char *config_path;      /* the file SIGHUP reads again; NULL: none */
    bool config_required;         /* given by --config: missing is an error */
} tsr__server_options;

/* A user's share of the sessions: those open and, among them, those still
 * waiting for their HELLO; and the segments its sessions hold, ending
 * ones included (the row stays while it holds any). */
typedef struct tsr__uid_sessions {
    uint32_t uid, sessions, handshakes, segments;
} tsr__uid_sessions;

/* A connection turned away, held until it sends its first frame so that
 * the refusal can be the reply to it (a client reads the reply to its
 * HELLO, not a frame sent before it asked), then closed. */
typedef struct tsr__refusal {
    struct tsr__server *server;
    int fd;
    tsr__watch *watch;
    tsr_status status;
    char message[192];
} tsr__refusal;

#define TSR__SERVER_REFUSALS 32      /* refused connections held at once; the oldest goes first */
#define TSR__SERVER_ADMIN_RESERVE 4  /* sessions uid 0 and tessera-admin may have beyond a cap */
#define TSR__SERVER_PARK_PASSES 1024 /* poller passes without work before a ring is parked */

typedef struct tsr__server {
    tsr__loop *loop;
    tsr__registry registry;
    struct tsr__executor *executor; /* exec.c's, made at the first launch */
    struct tsr__user_state *user;   /* user.c's kernel workers, made at the first program */
    /* What memory.c calls when it releases a session's segment: user.c's,
     * set with its state, so that the kernel workers let go of the
     * segment (a hook, since user.c calls memory.c); NULL: none. */
    void (*segment_released)(struct tsr__session *session, uint32_t segment_id);
    char kernel_cache_dir[1024]; /* cache.dir as configured; "": the default */
    int listen_fd;
    int signal_fd;
    int spare_fd; /* kept open to turn connections away when out of descriptors */
    /* A one-shot timer: listening resumes when it fires, after accept4
     * failed for want of something the whole machine is short of
     * (TSR__SERVER_ACCEPT_PAUSE_NS); listen_watch is NULL meanwhile. */
    int accept_fd;
    tsr__watch *listen_watch, *signal_watch, *accept_watch;
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    bool socket_activated; /* systemd passed listen_fd: the socket file is not ours */
    /* Every session, open or ending (session.h), in session-id order; ids
     * only grow, so a new session never takes the id of one still listed.
     * session_count and the caps count open sessions only: an ending one
     * has no connection (its client is gone or done), and the kernels
     * that keep it are few (the executor cancels those the driver has
     * not taken), while the memory it holds stays charged to its uid,
     * group and device until it is released. */
    tsr__session *first, *last;
    uint32_t next_session_id;
    uint32_t session_count, max_sessions;
    /* Open sessions per uid (sessions.max_per_uid, .max_handshakes_per_uid),
     * one row per uid with a session, in no order. */
    uint32_t max_sessions_uid, max_handshakes_uid;
    /* Monitoring connections (HELLO's MONITOR flag): counted here only,
     * against sessions.max_monitors. */
    uint32_t monitor_count, max_monitors;
    /* Counted since start, for DAEMON_STATS (the loop thread's). */
    struct tsr__server_counters {
        uint64_t started_unix_ns, started_ns;
        uint64_t sessions_opened, sessions_refused;
        uint64_t monitors_opened, monitors_refused;
        uint64_t oom_refusals, limit_refusals;
        uint64_t reloads, reload_failures;
    } counters;
    tsr__uid_sessions *uids;
    uint32_t uid_count, uid_cap;
    /* What one session may hold: segments, client threads with a current
     * device, live allocations on each device. Start-up sets
     * TSR__SESSION_MAX_SEGMENTS, TSR__SESSION_MAX_THREADS and
     * TSR__ALLOC_DEFAULT_MAX_ALLOCATIONS; the dispatcher fuzzer lowers them
     * on its detached servers to reach them. */
    uint32_t session_max_segments, session_max_threads, session_max_allocations;
    /* Segments every session together, and one uid's sessions together,
     * may hold (roster.c): each is a descriptor and a mapping of the
     * daemon's, so that no user's sessions can take the descriptors and
     * mappings the daemon and the other users need. Start-up sizes them
     * from the open-file limit and vm.max_map_count; segment_total counts
     * those held. */
    uint32_t daemon_max_segments, uid_max_segments, segment_total;
    tsr__refusal refusals[TSR__SERVER_REFUSALS];
    uint32_t next_refusal;

    /* The ring poller serves only the sessions on this list: those whose
     * doorbell rang and that have had work in the last
     * TSR__SERVER_PARK_PASSES passes. Every other ring is parked: its
     * daemon_sleeping flag is set, so its client rings the doorbell
     * eventfd when it posts, which puts the session back on the list. Idle
     * sessions cost the loop nothing. passes and rings_polled count the
     * poller's work (logged at exit). */
    tsr__session *ready_first;
    uint64_t passes, rings_polled;
    int exit_code;

    /* The configuration in force, and what reloads start from. */
    tsr__config *config;
    tsr__config *overrides;
    char *config_path;
    bool config_required;
    /* Memory limits per uid, group and session (limits.h); device_total[k]
     * is opencl:k's memory as discovered, before memory_limit.daemon. */
    tsr__limits *limits;
    uint64_t *device_total;
    /* The registry's OpenCL ordinals that sessions starting now see, in
     * the order they number them: a new session's opencl:k is the
     * registry's opencl:visible[k] (devices.visible). Room for every
     * OpenCL device; each session keeps a copy from its HELLO. */
    int32_t *visible;
    uint32_t visible_count;

    /* systemd: the watchdog timer, and STATUS= updates held back to one
     * per TSR__SERVER_STATUS_NS. */
    bool notify;
    int watchdog_fd, status_fd;
    tsr__watch *watchdog_watch, *status_watch;
    uint64_t status_sent_ns;
    uint32_t status_sessions;
    bool status_armed;
} tsr__server;

#define TSR__SERVER_STATUS_NS UINT64_C(1000000000)
#define TSR__SERVER_ACCEPT_PAUSE_NS UINT64_C(100000000)

/* Discovers devices, takes the socket systemd passed or binds its own (its
 * directory must exist; a stale socket file left by a dead daemon is
 * replaced, a live daemon's is not; socket.group and socket.mode are
 * applied), applies the configuration and sets up signal handling
 * (SIGTERM/SIGINT stop, SIGHUP reloads, SIGPIPE ignored). */
tsr_status tsr__server_init(tsr__server *server, const tsr__server_options *options);
/* A server with no socket, signals, systemd or discovery: `registry` is
 * taken over (left empty) in place of the devices found, and the
 * configuration applied as tsr__server_init applies it. Requests reach it
 * through tsr__session_open_detached and tsr__session_serve_frame, in this
 * process: the dispatcher fuzzer (tests/fuzz/fuzz_dispatch.c) runs the
 * daemon's request handling so. tsr__server_fini ends it. */
tsr_status tsr__server_init_detached(tsr__server *server, const tsr__server_options *options,
                                     tsr__registry *registry);
/* A session of the peer `cred` on a detached server, admitted as a
 * connection is (sessions.max and the per-uid caps, with uid 0 and
 * tessera-admin's reserve): TSR_ERR_LIMIT with the reason a refused client
 * is told, TSR_ERR_OUT_OF_MEMORY. Ended with tsr__session_end. */
tsr_status tsr__server_open_detached(tsr__server *server, const struct ucred *cred,
                                     tsr__session **out);
/* Serves until SIGTERM or SIGINT. */
tsr_status tsr__server_run(tsr__server *server);
/* Ends every session, unlinks the socket (unless systemd owns it), frees
 * everything. */
void tsr__server_fini(tsr__server *server);

/* Reads the configuration file again (what SIGHUP does) and applies what
 * can change while running: memory limits, log level, sessions.max and
 * the per-uid caps, devices.visible for new sessions. Keys whose change needs a restart
 * keep their running value, with a notice in the log. A file with an error
 * changes nothing: the error is logged and returned. */
tsr_status tsr__server_reload(tsr__server *server);

/* Logs, as warnings, the lines a configuration left out (cfg->notes). */
void tsr__server_log_notes(const tsr__config *cfg);

#endif /* TESSERA_DAEMON_SERVER_H */
