/* The request dispatcher (handlers.c): one checked request frame in, its
 * reply out, through a table of handlers by message type. The request
 * type is shared here so that handlers in other files (admin.c) take the
 * same one. Loop thread only. */
#ifndef TESSERA_DAEMON_DISPATCH_H
#define TESSERA_DAEMON_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/protocol.h"
#include "tessera/status.h"

struct tsr__session;

/* One request being handled: its session, payload and reply payload (both
 * checked for size by tsr__wire_check), descriptors to pass with the
 * reply, and whether the session must end once the reply is sent. */
typedef struct tsr__request {
    struct tsr__session *s;
    const void *in;
    void *out;
    int *fds;
    int *nfds;
    bool end_session;
} tsr__request;

typedef tsr_status (*tsr__handler_fn)(tsr__request *r);

/* Dispatches one checked request frame. Writes the reply frame (error
 * replies included) into reply (8-byte aligned, TSR__WIRE_FRAME_MAX
 * bytes), its length into *reply_len, and the descriptors to pass with it
 * into fds[0..*nfds) (at most 2; they stay owned by the session). Returns
 * false when the session must end once the reply is sent. */
bool tsr__session_handle(struct tsr__session *session, const tsr__wire_header *header,
                         const uint8_t *payload, uint32_t transport, uint8_t *reply,
                         uint32_t *reply_len, int *fds, int *nfds);

#endif /* TESSERA_DAEMON_DISPATCH_H */
