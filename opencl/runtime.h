/* Internal: the daemon's OpenCL runtime. Contexts, in-order queues,
 * programs built from kernels/ source and cached in memory and on disk,
 * buffers over session segments, and kernel launches that report their
 * completion through a callback.
 *
 * Memory. A device whose memory the host addresses (host-unified memory,
 * as discovery reported it) gets buffers over the segments themselves
 * (CL_MEM_USE_HOST_PTR): zero copy. Any other device gets a buffer of its
 * own per segment, and the segment stays the tensors' home: each launch
 * first copies its operands' spans in (the output's too, whose elements
 * the kernel may leave unwritten, such as strided gaps), runs, and copies
 * back the output's elements (the whole span when it is dense, else the
 * box of rows they form: a strided output's gaps may be written by the
 * host meanwhile) before it reports completion. Between launches the
 * segment is always current, so whatever the host does with it (clients'
 * copies, the daemon's fills) needs no step of its own.
 *
 * Threads. Everything but the build runs on the caller's thread (the
 * daemon's event loop), which is the only one to set kernel arguments and
 * enqueue. Devices are opened and programs built on the runtime's own
 * builder thread, because an OpenCL compiler takes hundreds of
 * milliseconds and the event loop must never wait: a program is PENDING
 * until the builder sets it READY or FAILED and writes the notify eventfd.
 * A device of its own memory compiles in a second context, the
 * builder's, and gets the binary: a driver may hold a context's calls
 * while it compiles for it (NVIDIA's does).
 * Completion callbacks run on the driver's threads.
 *
 * The disk cache (opencl/cache.h) keeps one file per program, named by a
 * hash of the device's name, vendor, driver version, build options and
 * source, and sealed with a keyed hash under a secret of the daemon's. A
 * directory that others could write is refused (the daemon runs with its
 * programs in memory only); a file that does not check out, or that the
 * driver refuses, is rebuilt from source and rewritten, never trusted. */
#ifndef TESSERA_OPENCL_RUNTIME_H
#define TESSERA_OPENCL_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "daemon/backend.h"
#include "opencl/discover.h"
#include "tessera/status.h"

/* The backend interface's opaque types are this runtime's (runtime.c
 * defines them). */
typedef struct tsr__backend_runtime tsr__clrt;
typedef struct tsr__backend_program tsr__clrt_program;

/* Writes the OpenCL C source of a key into buf (cap bytes, NUL-terminated)
 * and returns its length, or 0 when the key has no program (the reason is
 * the thread's last error). A return >= cap means "too small". */
typedef size_t (*tsr__clrt_source_fn)(const tsr__kernel_key *key, bool fp64, char *buf, size_t cap);

typedef struct tsr__clrt_config {
    const tsr__cl_device_info *devices; /* by ordinal, as discovery listed them */
    size_t count;
    const char *cache_dir; /* NULL or "": no disk cache; created when missing */
    int notify_fd;         /* an eventfd the builder writes after each build */
    tsr__clrt_source_fn source;
} tsr__clrt_config;

/* Starts the builder thread; opens no device yet. */
tsr_status tsr__clrt_create(const tsr__clrt_config *config, tsr__clrt **out);
/* Waits for every queue to drain, stops the builder and frees everything. */
void tsr__clrt_destroy(tsr__clrt *rt);

/* The program of `key` on device `ordinal`, queued for building on first
 * request with `priority` (TSR__BUILD_*); asked again with a more urgent
 * one while still queued, it moves up. Never blocks. NULL only when
 * memory runs out (error set). */
tsr__clrt_program *tsr__clrt_program_get(tsr__clrt *rt, uint32_t ordinal,
                                         const tsr__kernel_key *key, int priority);
/* The program of `key` if it was ever requested, else NULL; queues
 * nothing. */
tsr__clrt_program *tsr__clrt_program_find(tsr__clrt *rt, uint32_t ordinal,
                                          const tsr__kernel_key *key);
int tsr__clrt_program_state(const tsr__clrt_program *program);
/* Whether the builder is done with a program: READY or FAILED, and its
 * binary written to the disk cache. (A driver may compile a program's
 * kernels again for its binary, after READY, and one that compiles holds
 * back the launches of kernels it has not seen yet: PoCL does.) */
bool tsr__clrt_program_settled(const tsr__clrt_program *program);
/* Why a FAILED program failed, with the build log's start. */
const char *tsr__clrt_program_error(const tsr__clrt_program *program);

/* Once per READY program, how it was made ("built from source in 412 ms",
 * "loaded from the disk cache in 2.1 ms", ...); NULL afterwards and
 * before. Loop thread only. */
const char *tsr__clrt_program_report(tsr__clrt_program *program);
const tsr__kernel_key *tsr__clrt_program_key(const tsr__clrt_program *program);

/* Counters, for the benchmark and the tests: programs built from source,
 * loaded from the disk cache, and disk-cache files found corrupt or stale. */
typedef struct tsr__clrt_stats {
    uint64_t built, loaded, rejected, launches;
    uint64_t huge_bytes; /* segment bytes moved into huge pages (devices.huge_pages) */
} tsr__clrt_stats;
void tsr__clrt_get_stats(tsr__clrt *rt, tsr__clrt_stats *out);
/* Programs made for one device: built from source, loaded from the cache;
 * and those asked for and still waiting for the builder or in its hands. */
void tsr__clrt_program_counts(const tsr__clrt *rt, uint32_t ordinal, uint64_t *built,
                              uint64_t *loaded, uint32_t *pending);
/* Why the configured disk cache directory was refused (the runtime keeps
 * its programs in memory only), or NULL. */
const char *tsr__clrt_cache_refusal(const tsr__clrt *rt);

/* A buffer of device `ordinal` for the segment at `host` (see Memory
 * above); only after a program of that device is READY (the device is
 * open). */
tsr_status tsr__clrt_buffer(tsr__clrt *rt, uint32_t ordinal, void *host, uint64_t bytes,
                            void **out);
void tsr__clrt_buffer_release(void *buffer);

/* Enqueues a launch (elements > 0) and flushes the queue. On failure
 * nothing was enqueued and `done` is not called. The device's compute
 * units, for tsr__kernel_launch_geometry: tsr__clrt_compute_units. */
uint32_t tsr__clrt_compute_units(const tsr__clrt *rt, uint32_t ordinal);
/* Whether launches on the device copy their operands in and out (its
 * memory is not the host's; see Memory above). */
bool tsr__clrt_copies(const tsr__clrt *rt, uint32_t ordinal);
/* Whether the device computes on this machine's own CPUs (a CPU device
 * such as PoCL's): its kernels need the CPUs the daemon's threads use. */
bool tsr__clrt_on_host(const tsr__clrt *rt, uint32_t ordinal);
/* Whether the open device runs launches and matrix products as native
 * kernels through the host's own code (kernels/cpu_exec.h and
 * kernels/gemm.c; see tsr__clrt_host_enqueue and tsr__clrt_gemm): a CPU
 * device in host-unified memory whose driver runs native kernels, where
 * its info's host_code allows it. */
bool tsr__clrt_host_code(const tsr__clrt *rt, uint32_t ordinal);
/* A launch as a native kernel of the host's code (daemon/backend.h's
 * host_enqueue), on a device where tsr__clrt_host_code holds: `kernel` is
 * the checked kernel, whose non-scalar operands are the launch's buffers
 * in order at its offsets (their element offsets already in them); the
 * launch's pieces are those of tsr__host_pieces (0 and 0: all). */
tsr_status tsr__clrt_host_enqueue(tsr__clrt *rt, uint32_t ordinal, const tsr__kernel *kernel,
                                  const tsr__backend_launch *launch, tsr__backend_done_fn done,
                                  void *ctx);
/* The same launch, whole, on the calling thread now (backend.h's
 * host_run): its status, *ran true; or nothing done, *ran false, while a
 * buffer's move into huge pages waits in the device's queue. */
tsr_status tsr__clrt_host_run(tsr__clrt *rt, uint32_t ordinal, const tsr__kernel *kernel,
                              const tsr__backend_launch *launch, bool *ran);
tsr_status tsr__clrt_enqueue(tsr__clrt *rt, uint32_t ordinal, tsr__clrt_program *program,
                             const tsr__backend_launch *launch, tsr__backend_done_fn done,
                             void *ctx);
/* A matrix product through CLBlast (daemon/backend.h's gemm): float32,
 * float64, complex64 and complex128 on the device's in-order queue, its
 * operands copied in and C back where launches copy, completion through
 * `done` as a launch's. The device must be open (a program was built). */
tsr_status tsr__clrt_gemm(tsr__clrt *rt, uint32_t ordinal, const tsr__backend_gemm *gemm,
                          tsr__backend_done_fn done, void *ctx);

#endif /* TESSERA_OPENCL_RUNTIME_H */
