/* The server's roster of sessions, below the sessions themselves: how
 * many sessions and unfinished handshakes each uid holds (what the per-uid
 * caps count) and their segments, and which rings the poller serves (the ready list; a ring
 * with no work for a while is parked and its doorbell wakes it). Session,
 * handler and server code all keep it, so it calls none of them. Loop
 * thread only. */
#ifndef TESSERA_DAEMON_ROSTER_H
#define TESSERA_DAEMON_ROSTER_H

#include <stdint.h>

#include "daemon/server.h"

/* The uid's row, or NULL. */
tsr__uid_sessions *tsr__roster_uid(tsr__server *server, uint32_t uid);

/* A session of `uid` starts (sessions +1, handshakes +1), says HELLO
 * (handshakes -1) or ends (sessions -1, and handshakes -1 before HELLO).
 * The uid's row exists from the admission of its connection on. */
void tsr__roster_count(tsr__server *server, uint32_t uid, int sessions, int handshakes);

/* A session of `uid` makes a segment (its own or an import's
 * descriptor): TSR_ERR_LIMIT, saying why, where the uid's sessions or all
 * sessions hold their most already (server.h). Each taken one is given
 * back when the segment goes, after its session has ended too. */
tsr_status tsr__roster_segment_take(tsr__server *server, uint32_t uid);
void tsr__roster_segment_give(tsr__server *server, uint32_t uid);

/* The session's doorbell rang: its ring goes on the poller's list. */
void tsr__roster_ring_ready(tsr__server *server, tsr__session *session);
/* The session ends: off the list. */
void tsr__roster_ring_drop(tsr__server *server, tsr__session *session);
/* The session's ring starts parked (called before its client has it). */
void tsr__roster_ring_park(tsr__session *session);

#endif /* TESSERA_DAEMON_ROSTER_H */
