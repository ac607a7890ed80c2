/* Kernel execution: LAUNCH requests checked, queued per device and run
 * through the device's backend (daemon/backend.h), asynchronously.
 *
 * Each device has a FIFO of jobs per session (a lane), in launch order;
 * the lanes take turns, one job each, while the device's in-order
 * queue holds fewer than a few jobs. A turn runs one piece of a job
 * (core/kernel.h: a few milliseconds of work); a job with pieces left
 * stays at the head of its lane for its next turn. A job waits at the head of its lane
 * until its program is built (builds happen on the runtime's thread); so a
 * session's kernels run in the order it launched them, and a session that
 * queues many kernels, or waits for a build, holds up another by a few
 * kernels at most. Jobs not yet given to the driver are cancelled when
 * their session ends or the daemon stops. When a
 * kernel finishes, the driver's thread publishes it in the session's ring
 * (tsr__ring_queue: completed sequence, errors) and wakes a waiting
 * client, then hands the job back to the event loop through an eventfd,
 * which retires it: frees that were deferred behind it happen then. Each
 * job holds a reference to its session (session.h) from its launch until
 * it retires, so a session that ended while kernels were in flight is
 * released after its last one.
 *
 * Memory in flight stays put: a FREE of a block while the session has
 * kernels queued on its device is deferred until they finish, so no
 * segment a kernel reads or writes is ever unmapped under it. */
#ifndef TESSERA_DAEMON_EXEC_H
#define TESSERA_DAEMON_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/protocol.h"
#include "core/region.h"
#include "daemon/session.h"

/* Checks a kernel from the session and queues it; *out names the launch
 * (sequence 0 when there is nothing to run). */
tsr_status tsr__exec_launch(tsr__session *s, const tsr__kernel *kernel, tsr__wire_launched *out);

/* Checks a matrix product (GEMM, core/protocol.h) from the session and
 * queues it in the session's lane like a launch, for the backend's gemm;
 * *out names it (sequence 0 when C has no elements). */
tsr_status tsr__exec_gemm(tsr__session *s, const tsr__wire_gemm *gemm, tsr__wire_launched *out);

/* FILL of a checked region of a block on accelerator `queue`, reduced
 * by tsr__region_distinct: a small one is written at once when the session
 * has no kernel in flight there; a large one, or one behind kernels in
 * flight, is queued as a fill kernel (*out names it), so the event loop
 * never spends long on a fill. */
tsr_status tsr__exec_fill(tsr__session *s, uint32_t queue, uint64_t handle, uint8_t *host,
                          const tsr__region *region, const uint8_t *value, tsr__wire_launched *out);

/* A user kernel's launch (daemon/user.c), as the executor holds it. */
typedef struct tsr__exec_user_job tsr__exec_user_job;
/* Starts a user kernel's launch (job non-NULL): it must end, now or later,
 * with tsr__exec_user_done(job, ...); or drops it (job NULL: its session
 * ended or the daemon stops before it started). Loop thread. */
typedef void (*tsr__exec_user_fn)(void *ctx, tsr__exec_user_job *job);

/* Queues a user kernel's launch in the session's lane on accelerator
 * `queue`, in order with its other launches: `start` is called once every
 * earlier launch of the session there has finished, and the lane's later
 * launches wait until tsr__exec_user_done. *out names it as LAUNCH's
 * reply does; its completion and error reach the session's ring as a
 * built-in kernel's do. */
tsr_status tsr__exec_user_launch(tsr__session *s, uint32_t queue, tsr__exec_user_fn start,
                                 void *ctx, tsr__wire_launched *out);
/* The user kernel's launch ended (TSR_OK, or the error its session's next
 * synchronize reports). Loop thread. */
void tsr__exec_user_done(tsr__exec_user_job *job, tsr_status status, const char *message);

/* The sequence number of a user kernel's launch on its queue (what its
 * session's ring says of it once it is done). */
uint32_t tsr__exec_user_sequence(const tsr__exec_user_job *job);

/* Retires the finished jobs and gives the devices their next ones now,
 * rather than at the loop's next round: for a caller in the loop thread
 * that just reported a user launch done, outside any executor call (not
 * from a tsr__exec_user_fn). */
void tsr__exec_settle(tsr__server *server);

/* Where compiled programs are kept on disk: the configured directory,
 * else TESSERA_KERNEL_CACHE, else systemd's CacheDirectory, else the
 * user's cache directory (buf holds it then); "": in memory only. */
const char *tsr__exec_cache_dir(const tsr__server *server, char *buf, size_t n);

/* Accelerator `queue`'s busy time since the executor started, in ns:
 * how long its queue held a kernel the driver had not finished (0 before
 * the first launch). Exact: measured at each submission and completion. */
uint64_t tsr__exec_busy_ns(const tsr__server *server, uint32_t queue, uint64_t now_ns);

/* Programs the device's backend has made for it: compiled, and loaded
 * from the disk cache (0 and 0 before the first launch); and those it is
 * still making (asked for, queued or building). */
void tsr__exec_program_counts(const tsr__server *server, uint32_t queue, uint64_t *built,
                              uint64_t *loaded, uint32_t *pending);

/* Whether kernels are running on a device that computes on this machine's
 * CPUs (PoCL's CPU device): the event loop then sleeps instead of spinning,
 * so as not to take a CPU from them. Any thread. */
bool tsr__exec_on_host(const tsr__server *server);

/* Between the two, kernels that requests queue wait in their lanes, and
 * go to the driver at tsr__exec_release: the event loop holds the
 * executor while it serves a pass of rings, so that the replies go out
 * before the driver's enqueues (tens of microseconds on PoCL, whose
 * worker thread then also competes with the loop for a CPU) and a
 * client waits for its kernel, not for its reply. Loop thread only. */
void tsr__exec_hold(tsr__server *server);
void tsr__exec_release(tsr__server *server);

/* Daemon shutdown: waits for every queue, retires every job (dropping the
 * last references of sessions that outlived their connection) and closes
 * the runtime. */
void tsr__exec_shutdown(tsr__server *server);

#endif /* TESSERA_DAEMON_EXEC_H */
