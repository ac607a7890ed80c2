/* The daemon's event loop: one epoll set, one thread, callbacks per file
 * descriptor, plus a poller for the shared-memory rings.
 *
 * While the poller keeps finding requests, the loop spins over it (and
 * looks at epoll without blocking every few rounds), so a busy client's
 * requests are served with no system call. After TSR__LOOP_SPIN_NS without
 * work it arms the poller's sleep flags and blocks in epoll_wait; clients
 * then ring the doorbell eventfd. An idle daemon therefore uses no CPU.
 * Nor does it spin while the poller says the CPUs are better left to
 * others (kernels running on them). */
#ifndef TESSERA_DAEMON_LOOP_H
#define TESSERA_DAEMON_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/status.h"

#define TSR__LOOP_SPIN_NS 50000 /* 50 us */

typedef struct tsr__loop tsr__loop;
typedef struct tsr__watch tsr__watch;

/* Called with the epoll events of the watched descriptor. */
typedef void (*tsr__loop_fn)(tsr__loop *loop, uint32_t events, void *data);

/* The ring poller: serve(data) returns how many requests it served;
 * arm(data, true) tells every ring that the daemon is about to sleep and
 * returns true when work arrived meanwhile; arm(data, false) clears that;
 * quiet(data), when set, returns true while the loop should sleep rather
 * than spin (asked every round, so it must be cheap). */
typedef struct tsr__loop_poller {
    unsigned (*serve)(void *data);
    bool (*arm)(void *data, bool sleeping);
    bool (*quiet)(void *data);
    void *data;
} tsr__loop_poller;

tsr_status tsr__loop_create(tsr__loop **out);
void tsr__loop_destroy(tsr__loop *loop);
/* Frees the watches removed since the loop last dispatched (it does so
 * itself on every pass): for a loop that is never run, such as a detached
 * server's (server.h). */
void tsr__loop_reap(tsr__loop *loop);

/* Watches fd for `events` (EPOLLIN, ...). The watch lives until
 * tsr__loop_unwatch, which may be called from any callback, its own
 * included. */
tsr_status tsr__loop_watch(tsr__loop *loop, int fd, uint32_t events, tsr__loop_fn fn, void *data,
                           tsr__watch **out);
void tsr__loop_unwatch(tsr__loop *loop, tsr__watch *watch);

void tsr__loop_set_poller(tsr__loop *loop, const tsr__loop_poller *poller);

/* Runs until tsr__loop_stop. Returns TSR_OK, or an error when epoll fails. */
tsr_status tsr__loop_run(tsr__loop *loop);
void tsr__loop_stop(tsr__loop *loop);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tsr__now_ns(void);

#endif /* TESSERA_DAEMON_LOOP_H */
