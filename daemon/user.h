/* User kernels: a client's own OpenCL C (PROGRAM_CREATE ... KERNEL_LAUNCH),
 * built and run outside the daemon.
 *
 * The daemon never loads a user's code. Each (uid, device) that builds a
 * program gets a kernel worker: the backend's worker executable
 * (daemon/backend.h, `worker`), exec'd with one end of a socketpair
 * (daemon/worker_wire.h), so it holds nothing of the daemon's memory and
 * maps only the segments of that uid's sessions that a launch passes it.
 * The worker compiles each program in a child of its own under
 * kernels.build_time_limit_ms and kernels.build_memory, and runs launches
 * one at a time, in order. A launch takes its place in its session's lane
 * of the device (exec.h, tsr__exec_user_launch): it starts when the
 * session's earlier kernels there have finished, and its later ones wait
 * for it. A worker that dies (a kernel's fault) or overruns
 * kernels.run_time_limit_ms (it is killed) fails its launches in flight
 * and breaks its programs, with a message naming why: that uid's sessions
 * on that device only. The next program of that uid starts a new worker.
 * Loop thread only. */
#ifndef TESSERA_DAEMON_USER_H
#define TESSERA_DAEMON_USER_H

#include "daemon/dispatch.h"
#include "daemon/session.h"

/* PROGRAM_CREATE on the pool of the device it names (handlers.c resolves
 * it). */
/* Whether kernels.user lets the session's uid run kernels: on; auto where
 * the daemon is root (workers run as their user) or the uid is its own. */
bool tsr__user_kernels_allowed(const tsr__session *session);
tsr_status tsr__user_program_create(tsr__request *r, const tsr__device_pool *pool);
tsr_status tsr__user_program_source(tsr__request *r);
tsr_status tsr__user_program_status(tsr__request *r);
tsr_status tsr__user_program_release(tsr__request *r);
tsr_status tsr__user_kernel_info(tsr__request *r);
tsr_status tsr__user_kernel_launch(tsr__request *r);

/* What the administration messages tell of user kernels (admin.c): the
 * programs session `s` holds on accelerator `queue`, or on every device
 * when `queue` is UINT32_MAX; the pid of the kernel worker of `uid` on
 * `queue`, 0 when none runs; and the workers running on `queue` and the
 * programs all sessions hold there. */
uint32_t tsr__user_programs(const tsr__session *s, uint32_t queue);
pid_t tsr__user_worker_pid(const tsr__server *server, uint32_t uid, uint32_t queue);
void tsr__user_device_counts(const tsr__server *server, uint32_t queue, uint32_t *workers,
                             uint32_t *programs);

/* Whether a worker has a build it has not answered, handed over more
 * than a few milliseconds ago (not one from the disk cache, then): its
 * compiler is at work on this machine's CPUs, whatever the device, so the
 * loop does not spin then (server.c), as while kernels run there. */
bool tsr__user_building(const tsr__server *server);

/* Drops the programs of a session whose connection ended. */
void tsr__user_session_end(tsr__session *s);

/* Daemon shutdown, before the executor's: ends every worker, failing
 * what they had not finished. */
void tsr__user_shutdown(tsr__server *server);

#endif /* TESSERA_DAEMON_USER_H */
