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

static tsr__export *export_of(tsr__session *owner, uint64_t id, uint32_t *index)
{
    for (uint32_t k = 0; k < owner->export_count; k++)
        if (owner->exports[k].id == id) {
            *index = k;
            return &owner->exports[k];
        }
    return NULL;
}

void tsr__session_drop_import(tsr__session *s, uint32_t index)
{
    tsr__import imp = s->imports[index];
    s->imports[index] = s->imports[--s->import_count];
    tsr__memory_drop_segment(s, imp.segment_id);
    if (imp.host_fd >= 0)
        close(imp.host_fd);
    tsr__session *owner = imp.owner;
    uint32_t at;
    tsr__export *e = export_of(owner, imp.export_id, &at);
    if (e && e->imports > 0 && --e->imports == 0 && e->freed) {
        /* Nobody holds it through this export any more: the record goes,
         * and the block too (if its owner freed it; an ending owner's
         * goes with the owner) unless another export of it still has
         * imports (a block may be exported more than once). */
        uint64_t handle = e->handle;
        if (e->host_fd >= 0)
            close(e->host_fd);
        owner->exports[at] = owner->exports[--owner->export_count];
        bool held = false;
        for (uint32_t k = 0; k < owner->export_count && !held; k++)
            held = owner->exports[k].handle == handle;
        if (!held)
            tsr__memory_unshare(owner, handle);
    }
    tsr__session_release(owner);
}

void tsr__session_retired(tsr__session *s, uint32_t queue, uint32_t sequence)
{
    tsr__memory_retired(s, queue, sequence);
    for (uint32_t k = 0; k < s->deferred_count;) {
        tsr__deferred_free d = s->deferred[k];
        if (d.shared || (d.handle >> 32) || d.queue != queue ||
            (int32_t)(d.sequence - sequence) > 0) {
            k++;
            continue;
        }
        s->deferred[k] = s->deferred[--s->deferred_count];
        for (uint32_t i = 0; i < s->import_count; i++)
            if (s->imports[i].handle == d.handle) {
                /* Its owner may go with it, and with the owner an import
                 * of one of this session's blocks, which changes
                 * s->deferred: look again from the start. */
                tsr__session_drop_import(s, i);
                k = 0;
                break;
            }
    }
}

tsr__session *tsr__session_release(tsr__session *s)
{
    if (!s || --s->refs > 0)
        return NULL;
    /* Its imports hold their owners; each may be the owner's last. */
    while (s->import_count > 0)
        tsr__session_drop_import(s, s->import_count - 1);
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
    for (uint32_t k = 0; k < s->export_count; k++)
        if (s->exports[k].host_fd >= 0)
            close(s->exports[k].host_fd);
    free(s->exports);
    free(s->imports);
    free(s->visible);
    free(s->owner);
    free(s);
    return NULL;
}
