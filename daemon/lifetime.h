/* A session's lifetime: its references and its final release. The
 * connection holds one until tsr__session_end, each kernel in flight one
 * until the executor retires it; the last release takes the session off
 * the server's list and frees what it holds (segments through memory.c,
 * its imports, its ring and descriptors). An import of another session's
 * allocation (share.h) holds a reference on that session. Below both the session's connection code and
 * the executor, so neither calls the other for it. Loop thread only. */
#ifndef TESSERA_DAEMON_LIFETIME_H
#define TESSERA_DAEMON_LIFETIME_H

#include "daemon/session.h"

/* Takes a reference (the loop thread only); returns the session. */
tsr__session *tsr__session_retain(tsr__session *session);
/* Drops one; the last takes the session off the server's list and
 * releases its segments, ring and memory. Returns NULL. */
tsr__session *tsr__session_release(tsr__session *session);

/* Lets go of the session's import at `index` (share.h): its segment, the
 * count on the export, the exported block when its owner freed it and
 * this was the last import, and the reference on the owner (which may
 * release the owner). */
void tsr__session_drop_import(tsr__session *session, uint32_t index);

/* The executor retired the session's launches on `queue` up to
 * `sequence`: the frees and imports let go behind them happen now
 * (memory.h's tsr__memory_retired, then the imports). */
void tsr__session_retired(tsr__session *session, uint32_t queue, uint32_t sequence);

#endif /* TESSERA_DAEMON_LIFETIME_H */
