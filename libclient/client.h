/* Internal: what the tensor layer needs from the connection layer.
 *
 * The connection (libclient/connection.h lists its files) owns tsr_client:
 * the socket, the request ring, the mapped segments, the device registry
 * cache; tensor code reaches the daemon only through these calls. Devices here are numbered as the client sees them
 * (after TESSERA_VISIBLE_DEVICES). */
#ifndef TESSERA_LIBCLIENT_CLIENT_H
#define TESSERA_LIBCLIENT_CLIENT_H

#include <stdint.h>

#include "core/kernel.h"
#include "core/region.h"
#include "tessera/client.h"

/* Takes / drops a reference that keeps the session (and its mappings) alive
 * past tsr_client_close. */
void tsr__client_retain(tsr_client *client);
void tsr__client_release(tsr_client *client);

/* Turns a device given by the caller into the concrete device memory is
 * allocated on: an index-less accelerator device becomes the calling
 * thread's current device; the index is checked against what exists.
 * cpu and meta come back index-less. Errors: TSR_ERR_NO_DEVICE (the message
 * names what exists), TSR_ERR_INVALID_ARGUMENT for an accelerator device
 * with client == NULL. client may be NULL for cpu and meta. */
tsr_status tsr__client_resolve_device(tsr_client *client, tsr_device device, tsr_device *out);

/* Whether the host can address the device's memory through the mapping. */
bool tsr__client_host_visible(tsr_client *client, tsr_device device);

/* Allocates nbytes (0 allowed) on a resolved accelerator device, `alone`
 * in a segment of its own (ALLOC's ALONE: what an export takes; never
 * from or to the block cache); *data is
 * the host address of the block in this process, *handle the daemon's
 * handle for it. *in_use: a block this client freed whose kernels may not
 * have finished (from its cache): kernels queued after are ordered after
 * them, but the host must synchronize before it writes the block itself.
 * Errors: TSR_ERR_OUT_OF_MEMORY (the daemon's message),
 * TSR_ERR_CONNECTION. */
tsr_status tsr__client_alloc(tsr_client *client, tsr_device device, uint64_t nbytes, bool alone,
                             void **data, uint64_t *handle, bool *in_use);
/* Has the daemon write the element `value` (region->itemsize bytes) at
 * every element of `region` of the block `handle` on `device`: fills of
 * memory the host may not address go through here. The daemon may queue
 * the fill as a kernel on the device: tsr__client_synchronize waits for it
 * as for a launch. Errors: the daemon's, TSR_ERR_CONNECTION. */
tsr_status tsr__client_fill(tsr_client *client, tsr_device device, uint64_t handle,
                            const tsr__region *region, const void *value);

/* Returns a block of nbytes (as allocated) at `data`: small blocks stay in
 * this library's cache for the next allocation of their size, the rest go
 * back to the daemon. Failures (daemon gone) are ignored: the session's end
 * frees everything anyway. A block that was `shared` (exported to other
 * processes, libclient/share.c) always goes back to the daemon, which
 * keeps it for its importers: this process must not reuse it. A block
 * `alone` in its segment (made or sealed so for an export) goes back too,
 * and its segment's mapping with it: the daemon destroys the segment. */
void tsr__client_free(tsr_client *client, tsr_device device, uint64_t handle, uint64_t nbytes,
                      void *data, bool shared, bool alone);

/* Queues a planned kernel on a resolved accelerator device: the operands'
 * handles are daemon allocations of this client, their offsets and strides
 * in elements. Returns once the daemon has accepted (checked) it; the
 * kernel runs asynchronously. An error a previous kernel on the device met
 * is reported here first. */
tsr_status tsr__client_launch(tsr_client *client, tsr_device device, const tsr__kernel *kernel);
/* The same for any request whose reply names a queued launch
 * (tsr__wire_launched): LAUNCH, KERNEL_LAUNCH. */
tsr_status tsr__client_launch_op(tsr_client *client, tsr_device device, uint32_t opcode,
                                 const void *request);
/* Waits for every kernel this client queued on the device; reports the
 * first error one of them met. */
tsr_status tsr__client_synchronize(tsr_client *client, tsr_device device);

/* One request of the protocol table and its reply, by the transport the
 * table prefers; request and reply are the opcode's payloads (empty ones
 * may be NULL). Errors: the daemon's error reply, TSR_ERR_CONNECTION,
 * TSR_ERR_PROTOCOL. */
tsr_status tsr__client_call(tsr_client *client, uint32_t opcode, const void *request, void *reply);

#endif /* TESSERA_LIBCLIENT_CLIENT_H */
