/* Sharing allocations between sessions: EXPORT, IMPORT and REVOKE, and
 * FREE, which must know of both.
 *
 * An export is a capability over a live allocation of its session and a
 * view of it: an id (the session's id and a count) and 128 random bits
 * from getrandom, both presented by IMPORT. An import is a segment of the
 * importer's own over the exporter's memfd (read-only when the export
 * says so) and a handle, found like a block of the importer's; it holds a
 * reference on the exporting session, so that the memory, charged to the
 * exporter's uid and group as before, stays while any import holds it,
 * even after the exporter's client exits (the session is then listed as
 * ending). A FREE of an exported block that imports still hold puts it
 * aside until the last goes; an import let go while the importer's
 * kernels may still read it waits for them. Loop thread only; it calls
 * the session's lifetime and memory, nothing above them. */
#ifndef TESSERA_DAEMON_SHARE_H
#define TESSERA_DAEMON_SHARE_H

#include "daemon/dispatch.h"

#define TSR__SHARE_MAX_EXPORTS 4096u /* live exports per session */
#define TSR__SHARE_MAX_IMPORTS 4096u /* live imports per session */

tsr_status tsr__share_export(tsr__request *r);
tsr_status tsr__share_import(tsr__request *r);
tsr_status tsr__share_revoke(tsr__request *r);
/* FREE of a block or an import of the session. */
tsr_status tsr__share_free(tsr__request *r);

/* The session's connection ended: its exports take no more imports, and
 * its imports are let go (behind its kernels). */
void tsr__share_session_end(struct tsr__session *session);

/* Whether the session's output `handle` may not be written (an import
 * of a read-only export); sets the error when so. */
bool tsr__share_read_only(struct tsr__session *session, uint64_t handle);

#endif /* TESSERA_DAEMON_SHARE_H */
