/* See lifetime.h. */
#include "daemon/lifetime.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon/memory.h"
#include "daemon/server.h"

tsr__session *tsr__session_retain(tsr__session *s)
{
    s->refs++;
    return s;
}

static void session_unlink(tsr__server *server, tsr__session *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        server->first = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        server->last = s->prev;
    s->prev = s->next = NULL;
}

tsr__session *tsr__session_release(tsr__session *s)
{
    if (!s || --s->refs > 0)
        return NULL;
    session_unlink(s->server, s);
    tsr__session_release_segments(s);
    if (s->doorbell_fd >= 0)
        close(s->doorbell_fd);
    if (s->ring_fd >= 0)
        close(s->ring_fd);
    if (s->ring)
        munmap(s->ring, sizeof *s->ring);
    free(s->threads);
    free(s->deferred);
    free(s->visible);
    free(s->owner);
    free(s);
    return NULL;
}
