/* The administration messages (PROCESS_LIST, SESSION_STATS, DEVICE_STATUS,
 * TOPOLOGY, DAEMON_STATS, SHARE_LIST): what `tessera ps`, `top`, `info`,
 * `topo`, `stats`, `metrics` and `shares` ask.
 *
 * Who may see what: a session of uid 0, or of a member of the
 * `tessera-admin` group (primary or supplementary, from the connection's
 * credentials), sees every session in full; any other sees its own uid's
 * sessions in full and, of the others, only numbers (memory, threads,
 * requests, the current device): no pid, uid, command or cgroup.
 *
 * The handlers are entries of the dispatcher's table and take its request
 * (dispatch.h). */
#ifndef TESSERA_DAEMON_ADMIN_H
#define TESSERA_DAEMON_ADMIN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/protocol.h"
#include "daemon/dispatch.h"
#include "tessera/status.h"

#define TSR__ADMIN_GROUP "tessera-admin"

struct tsr__session;
struct tsr__server;

tsr_status tsr__admin_process_list(tsr__request *r);
tsr_status tsr__admin_session_stats(tsr__request *r);
tsr_status tsr__admin_device_status(tsr__request *r);
tsr_status tsr__admin_topology(tsr__request *r);
tsr_status tsr__admin_daemon_stats(tsr__request *r);
/* SHARE_LIST: every export is listed, with its size, device, flags and
 * the sessions holding imports of it; whose it is (uid) only as above. */
tsr_status tsr__admin_share_list(tsr__request *r);

/* The device `tessera ps` shows as a session's current one, by the
 * daemon's ordinal: that of the thread whose id is the pid (the main
 * thread), else of the first thread recorded, else the session's opencl:0
 * (cpu when the session sees no OpenCL device). Shared with SESSION_LIST. */
tsr__wire_device tsr__admin_shown_device(const struct tsr__session *session);

/* The session that said HELLO, open or ending, with the smallest id above
 * `cursor`, or NULL; *more: whether another such follows it. The cursor
 * walk of SESSION_LIST and PROCESS_LIST. */
const struct tsr__session *tsr__admin_session_after(const struct tsr__server *server,
                                                    uint32_t cursor, bool *more);

/* The rule above: whether an asker of uid `asker_uid` (`asker_admin`: uid 0
 * or in the admin group) may see who owns a session of `owner_uid`. */
bool tsr__admin_may_see(uint32_t asker_uid, bool asker_admin, uint32_t owner_uid);

#endif /* TESSERA_DAEMON_ADMIN_H */
