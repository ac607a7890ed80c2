/* A session's device memory: its pools (one allocator per accelerator,
 * made on first use), their memfd segments (charged to the device's
 * capacity and the configured limits, NUMA-placed, released with their
 * pages punched out), handle lookup, and frees that wait behind the
 * session's kernels (a block a queued kernel may still touch is freed
 * when the executor retires the launches before it). Loop thread only.
 * It calls the allocator, the limits and the device's backend (to drop a
 * segment's device buffer), nothing above them. */
#ifndef TESSERA_DAEMON_MEMORY_H
#define TESSERA_DAEMON_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/session.h"

/* The pool of accelerator `dev` (a registry device with a backend),
 * with its allocator made on first use; `name` is the device as the
 * session names it, for the allocator's messages. TSR_ERR_INVALID_ARGUMENT
 * for cpu and meta, whose memory lives in the client. */
tsr_status tsr__memory_pool(tsr__session *session, tsr__registry_device *dev, const char *name,
                            tsr__device_pool **out);

/* The device's memory as the session is told it (DEVICE_GET, memory
 * statistics, out-of-memory messages). */
uint64_t tsr__memory_session_total(const tsr__session *session, const tsr__registry_device *dev);

/* What the session could still get of the pool's device: what every
 * session has left of it, or less when the session's limits leave less. */
uint64_t tsr__memory_available(const tsr__device_pool *pool);

/* The pool and block of a live allocation of this session (not one freed
 * behind kernels); NULL with an error set when there is none. */
tsr__device_pool *tsr__session_find_live(tsr__session *session, uint64_t handle,
                                         tsr__block_ref *block);
/* The same, freed-behind-kernels blocks included, setting no error. */
tsr__device_pool *tsr__session_find_block(tsr__session *session, uint64_t handle,
                                          tsr__block_ref *block);

tsr__segment *tsr__session_segment(tsr__session *session, uint32_t id);
/* Destroys every pool and segment of the session. */
void tsr__session_release_segments(tsr__session *session);

/* Whether kernels of the session may still touch memory of accelerator
 * `queue`: false when none is in flight, or when every one launched has
 * finished and only waits for the loop to retire it. */
bool tsr__memory_in_use(const tsr__session *session, uint32_t queue);

/* FREE: true when the block was put aside until the session's kernels on
 * `queue` are done, or (out of memory to remember it) kept until the
 * session ends: the caller must not free it now. */
bool tsr__memory_defer_free(tsr__session *session, uint32_t queue, uint64_t handle);
/* Whether `handle` is a block the session freed that waits for kernels. */
bool tsr__memory_freed(const tsr__session *session, uint64_t handle);
/* EMPTY_CACHE: the pool's unused segments released now (their bytes),
 * and those that the frees waiting behind the session's kernels leave
 * unused once those kernels are retired: a synchronize can return before
 * the daemon has retired them (a user kernel's worker publishes its end
 * itself), so a client that freed its tensors after one and then emptied
 * the cache would otherwise find their memory still held. */
uint64_t tsr__memory_empty_cache(tsr__session *session, tsr__device_pool *pool);
/* The executor retired the session's launches on `queue` up to
 * `sequence`: the frees put aside behind them happen now (and the cache
 * is emptied after them where EMPTY_CACHE asked for it meanwhile). */
void tsr__memory_retired(tsr__session *session, uint32_t queue, uint32_t sequence);

/* ---- Sharing (share.c keeps the records; these are their memory) ---- */

/* Makes the live block `handle` of the pool alone in its segment
 * (tsr__alloc_seal): what an export takes, as the importer gets the whole
 * segment's memfd. The memory around the block, other blocks' before, is
 * cleared (punched out of the memfd). TSR_ERR_RUNTIME when other live
 * blocks share the segment: the client moves the tensor to a block made
 * alone (ALLOC's ALONE) and exports that. */
tsr_status tsr__memory_seal(tsr__session *session, tsr__device_pool *pool, uint64_t handle,
                            tsr__block_ref *block);

/* The import of this session with `handle`, NULL when it is none. Imports
 * are found by tsr__session_find_live and _find_block like blocks of the
 * session, in its pool of their device. */
const tsr__import *tsr__memory_import(const tsr__session *session, uint64_t handle);
/* Adds a segment over the owner's segment `owner`, reached through this
 * session's descriptor fd (kept on success), as a new id of the session. */
tsr_status tsr__memory_add_foreign(tsr__session *session, const tsr__segment *owner, int fd,
                                   uint32_t *id);
/* Lets go of an imported segment: its device buffer and descriptor. */
void tsr__memory_drop_segment(tsr__session *session, uint32_t id);
/* FREE of a block imports still hold: it stays allocated (and is no
 * longer live for the session) until tsr__memory_unshare. False when
 * there was no memory to remember it. */
bool tsr__memory_defer_shared(tsr__session *session, uint64_t handle);
/* The last import of a block FREE put aside is gone: free it now, or
 * behind the session's kernels. */
void tsr__memory_unshare(tsr__session *session, uint64_t handle);

#endif /* TESSERA_DAEMON_MEMORY_H */
