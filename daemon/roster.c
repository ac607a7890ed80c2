/* See roster.h. */
#include "daemon/roster.h"

#include <stdatomic.h>

#include "core/error.h"
#include "daemon/session.h"

tsr__uid_sessions *tsr__roster_uid(tsr__server *server, uint32_t uid)
{
    for (uint32_t k = 0; k < server->uid_count; k++)
        if (server->uids[k].uid == uid)
            return &server->uids[k];
    return NULL;
}

void tsr__roster_count(tsr__server *server, uint32_t uid, int sessions, int handshakes)
{
    tsr__uid_sessions *u = tsr__roster_uid(server, uid);
    if (!u) /* cannot happen: admission made the row */
        return;
    u->sessions = (uint32_t)((int64_t)u->sessions + sessions);
    u->handshakes = (uint32_t)((int64_t)u->handshakes + handshakes);
    if (u->sessions == 0 && u->segments == 0)
        *u = server->uids[--server->uid_count];
}

tsr_status tsr__roster_segment_take(tsr__server *server, uint32_t uid)
{
    if (!server) /* a session of no server (unit tests) */
        return TSR_OK;
    tsr__uid_sessions *u = tsr__roster_uid(server, uid);
    if (!u) /* cannot happen: a session's uid has a row */
        return tsr__fail(TSR_ERR_RUNTIME, "uid %u has no session", (unsigned)uid);
    if (u->segments >= server->uid_max_segments)
        return tsr__fail(TSR_ERR_LIMIT,
                         "the sessions of uid %u hold %u segments, the most one user's may (of "
                         "the %u tesserad can hold); free memory, or end sessions",
                         (unsigned)uid, (unsigned)u->segments,
                         (unsigned)server->daemon_max_segments);
    if (server->segment_total >= server->daemon_max_segments)
        return tsr__fail(TSR_ERR_LIMIT,
                         "tesserad holds %u segments, the most it can (its open-file limit and "
                         "vm.max_map_count bound them)",
                         (unsigned)server->segment_total);
    u->segments++;
    server->segment_total++;
    return TSR_OK;
}

void tsr__roster_segment_give(tsr__server *server, uint32_t uid)
{
    tsr__uid_sessions *u = server ? tsr__roster_uid(server, uid) : NULL;
    if (!u || u->segments == 0 || server->segment_total == 0)
        return; /* cannot happen */
    u->segments--;
    server->segment_total--;
    if (u->sessions == 0 && u->segments == 0)
        *u = server->uids[--server->uid_count];
}

void tsr__roster_ring_ready(tsr__server *server, tsr__session *s)
{
    if (s->ready || !s->ring || s->ending)
        return;
    s->ready = true;
    s->idle_passes = 0;
    s->ready_prev = NULL;
    s->ready_next = server->ready_first;
    if (server->ready_first)
        server->ready_first->ready_prev = s;
    server->ready_first = s;
    atomic_store(&s->ring->header.daemon_sleeping, 0u);
}

void tsr__roster_ring_drop(tsr__server *server, tsr__session *s)
{
    if (!s->ready)
        return;
    if (s->ready_prev)
        s->ready_prev->ready_next = s->ready_next;
    else
        server->ready_first = s->ready_next;
    if (s->ready_next)
        s->ready_next->ready_prev = s->ready_prev;
    s->ready_prev = s->ready_next = NULL;
    s->ready = false;
}

void tsr__roster_ring_park(tsr__session *s)
{
    atomic_store(&s->ring->header.daemon_sleeping, 1u);
}
