/* A session's lifetime: its references and its final release. The
 * connection holds one until tsr__session_end, each kernel in flight one
 * until the executor retires it; the last release takes the session off
 * the server's list and frees what it holds (segments through memory.c,
 * its ring and descriptors). Below both the session's connection code and
 * the executor, so neither calls the other for it. Loop thread only. */
#ifndef TESSERA_DAEMON_LIFETIME_H
#define TESSERA_DAEMON_LIFETIME_H

#include "daemon/session.h"

/* Takes a reference (the loop thread only); returns the session. */
tsr__session *tsr__session_retain(tsr__session *session);
/* Drops one; the last takes the session off the server's list and
 * releases its segments, ring and memory. Returns NULL. */
tsr__session *tsr__session_release(tsr__session *session);

#endif /* TESSERA_DAEMON_LIFETIME_H */
