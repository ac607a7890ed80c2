/* The device-backend interface: what the daemon asks of the code that
 * drives one kind of accelerator (OpenCL today: opencl/backend.c), as one
 * table of function pointers. The daemon above it (registry, executor,
 * handlers) speaks of devices in these terms only; everything a backend's
 * API has (its types, handles, constants, headers, code generation) stays
 * behind the table.
 *
 * A backend's life in the daemon:
 *   discover   at start-up, before any thread: what devices there are,
 *              described neutrally (tsr__backend_device), plus a record of
 *              the backend's own that it alone reads (found->state);
 *   open       at the first launch on one of its devices: its runtime,
 *              which builds programs on a thread of its own and writes the
 *              daemon's notify eventfd after each build;
 *   programs   for kernel keys (kernels/launch.h), built in the background
 *              in the order of their priority, never waited for;
 *   buffers    over the sessions' memory segments;
 *   enqueue    a launch, whose completion the backend reports from any
 *              thread through a callback;
 *   close      at shutdown, after its queues have drained.
 * Device numbers are the backend's own (0 .. found->count - 1). Every
 * function but discover and the completion callbacks runs on the daemon's
 * event loop. Opaque types (tsr__backend_runtime, tsr__backend_program)
 * are each backend's own: it defines the structs in its code.
 *
 * Adding a backend: docs/architecture.md, "How to add a backend". */
#ifndef TESSERA_DAEMON_BACKEND_H
#define TESSERA_DAEMON_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/protocol.h"
#include "tessera/device.h"
#include "tessera/status.h"

typedef struct tsr__backend_runtime tsr__backend_runtime;
typedef struct tsr__backend_program tsr__backend_program;

#define TSR__BACKEND_TEXT 256

/* What kind of processor a device is. */
typedef enum tsr__device_kind {
    TSR__DEVICE_KIND_OTHER,
    TSR__DEVICE_KIND_CPU,
    TSR__DEVICE_KIND_GPU,
    TSR__DEVICE_KIND_ACCELERATOR,
} tsr__device_kind;

/* A device as discovery saw it, in terms every backend can fill. */
typedef struct tsr__backend_device {
    char name[TSR__BACKEND_TEXT], vendor[TSR__BACKEND_TEXT];
    char driver_version[TSR__BACKEND_TEXT];
    char api_version[TSR__BACKEND_TEXT]; /* the version of the API it speaks */
    char pci_bus_id[32];                 /* "0000:01:00.0" (lowercase hex) or "" */
    uint8_t uuid[16];                    /* valid when has_uuid */
    bool has_uuid;
    uint64_t memory_bytes, max_alloc_bytes, local_memory_bytes, max_work_group_size;
    uint32_t compute_units, max_clock_mhz, address_align_bits;
    tsr__device_kind kind;
    bool fp16, fp64;
    bool il_program;          /* its driver loads SPIR-V (spirv_requires) */
    bool host_unified_memory; /* its kernels address the host's memory: zero copy */
    bool little_endian, available;
    /* Served only (devices.memory = staged): where launches copy, each copy
     * in reads the host memory when it is queued, as some drivers do. */
    bool stage_copies;
    /* Served only (devices.host_code): where the device is this machine's
     * CPU and computes in host memory, its launches and products may run
     * as the host's own code (tsr__backend.host_enqueue). */
    bool host_code;
    /* Served only (devices.huge_pages): where host code runs, the
     * backend moves each segment of at least a huge page into huge pages
     * before the first kernel that uses it (kernels/hugemem.h). */
    bool huge_pages;
} tsr__backend_device;

/* What one discovery found. */
typedef struct tsr__backend_found {
    tsr__backend_device *devices; /* `count` of them, by the backend's ordinal */
    size_t count;
    bool trusted;   /* the driver behaved: the daemon may load it to compute */
    char note[512]; /* diagnostics for the log, "" if none */
    void *state;    /* the backend's own record of the devices */
} tsr__backend_found;

/* How soon a program is wanted: the builder takes them in this order,
 * first come first served within each. */
enum {
    TSR__BUILD_NOW,   /* a launch waits for it */
    TSR__BUILD_SOON,  /* a launch asked for it and runs on another program meanwhile */
    TSR__BUILD_AHEAD, /* built ahead of need */
};

enum { TSR__PROGRAM_PENDING, TSR__PROGRAM_READY, TSR__PROGRAM_FAILED };

/* One launch of a READY program, arguments as core/kernel.h's ABI lists
 * them: the buffers of the operands with storage, output first, and the
 * walk that tsr__kernel_launch_geometry computed for them. */
typedef struct tsr__backend_launch {
    void *buffers[TSR__KERNEL_MAX_OPERANDS];
    uint64_t offsets[TSR__KERNEL_MAX_OPERANDS]; /* bytes */
    uint64_t extents[TSR__KERNEL_MAX_OPERANDS]; /* bytes from offsets[] that the operand spans */
    uint32_t nbuffers;
    bool check_status;  /* read the status flag back (integer division) */
    bool second_output; /* buffer 2 is written too (the positions of max/min with a dim) */
    bool generic;       /* a generic program's launch: `kind` follows the ABI's arguments,
                          and nbuffers is TSR__KGENERIC_SLOTS */
    uint32_t kind[4];
    uint8_t scalar[16], alpha[16];
    tsr__kernel_geometry geometry;
    /* The pieces of the geometry this enqueue runs: `piece_count` from
     * `first_piece` (0 and 0: all of them). */
    uint64_t first_piece, piece_count;
} tsr__backend_launch;

/* One matrix product for a backend's BLAS, row-major:
 *   C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b],  b < batch,
 * op(A) m x k, op(B) k x n, C m x n, every operand of `dtype`. Operand 0
 * is C, 1 A, 2 B: buffers, offsets (bytes to element (0, 0, 0), a whole
 * number of elements) and extents (the bytes from there that the operand
 * spans: what a device whose memory is its own copies in, and for C
 * back) as a launch's. ld: the step between rows of each stored matrix
 * (of A^T for a transposed A), bstride: between the matrices of the
 * batch, both in elements. alpha and beta in the dtype's math type as
 * tsr__kernel.alpha lays it out; beta_zero: C is not read (what it held,
 * a NaN included, does not reach the result). */
typedef struct tsr__backend_gemm {
    void *buffers[3];
    uint64_t offsets[3], extents[3];
    uint32_t dtype; /* tsr_dtype */
    uint64_t batch, m, n, k;
    uint64_t ld[3], bstride[3];
    bool trans_a, trans_b, beta_zero;
    uint8_t alpha[16], beta[16];
} tsr__backend_gemm;

/* Called once per enqueue from any thread when it has finished: TSR_OK,
 * or the failure and its text. */
typedef void (*tsr__backend_done_fn)(void *ctx, tsr_status status, const char *message);

typedef struct tsr__backend_config {
    const tsr__backend_found *found;
    /* found->devices as the daemon serves them (the configuration may
     * take host_unified_memory away: devices.memory = copy). */
    const tsr__backend_device *devices;
    const char *cache_dir; /* NULL or "": programs in memory only */
    int notify_fd;         /* an eventfd to write after each build */
} tsr__backend_config;

typedef struct tsr__backend {
    const char *name;            /* "opencl": logs, device status */
    tsr_device_type device_type; /* the type its devices have */

    /* Lists the devices without risking the daemon (a driver that
     * crashes or hangs costs its devices, with a note, not the process);
     * only a resource failure is an error. The caller is single-threaded. */
    tsr_status (*discover)(int timeout_ms, tsr__backend_found *out);
    void (*forget)(tsr__backend_found *found);
    /* What only the backend knows of a device's status: the platform's
     * name and tsr__wire_device_status's `backend` part. */
    void (*describe)(const tsr__backend_found *found, uint32_t device,
                     tsr__wire_device_status *out);

    tsr_status (*open)(const tsr__backend_config *config, tsr__backend_runtime **out);
    /* Waits for every queue to drain, then frees everything. */
    void (*close)(tsr__backend_runtime *rt);
    /* Why the configured program cache was refused, or NULL. */
    const char *(*cache_refusal)(const tsr__backend_runtime *rt);

    /* The program of a checked key (kernels/launch.h), queued for
     * building on first request with `priority`; asked again more
     * urgently while queued, it moves up. NULL only when memory runs out. */
    tsr__backend_program *(*program_get)(tsr__backend_runtime *rt, uint32_t device,
                                         const tsr__kernel_key *key, int priority);
    /* The program of a key if it was ever asked for, else NULL. */
    tsr__backend_program *(*program_find)(tsr__backend_runtime *rt, uint32_t device,
                                          const tsr__kernel_key *key);
    int (*program_state)(const tsr__backend_program *p); /* TSR__PROGRAM_* */
    /* READY or FAILED and the builder done with it (its binary stored). */
    bool (*program_settled)(const tsr__backend_program *p);
    const char *(*program_error)(const tsr__backend_program *p);
    /* Once per READY program, how it was made, for the log; else NULL. */
    const char *(*program_report)(tsr__backend_program *p);
    const tsr__kernel_key *(*program_key)(const tsr__backend_program *p);
    /* Programs made for a device so far: compiled from source, and taken
     * from the disk cache instead; and the programs asked for that are
     * still being made (queued or building). */
    void (*program_counts)(const tsr__backend_runtime *rt, uint32_t device, uint64_t *built,
                           uint64_t *loaded, uint32_t *pending);

    /* A buffer of `device` over a segment of `bytes` at `host`. */
    tsr_status (*buffer)(tsr__backend_runtime *rt, uint32_t device, void *host, uint64_t bytes,
                         void **out);
    void (*buffer_release)(void *buffer);

    uint32_t (*compute_units)(const tsr__backend_runtime *rt, uint32_t device);
    /* Whether launches copy their operands in and out (the device's
     * memory is not the host's). */
    bool (*copies)(const tsr__backend_runtime *rt, uint32_t device);
    /* Whether the device computes on this machine's own CPUs. */
    bool (*on_host)(const tsr__backend_runtime *rt, uint32_t device);
    /* Enqueues a launch (elements > 0); on failure nothing was enqueued
     * and `done` is not called. */
    tsr_status (*enqueue)(tsr__backend_runtime *rt, uint32_t device, tsr__backend_program *p,
                          const tsr__backend_launch *launch, tsr__backend_done_fn done, void *ctx);
    /* Enqueues a matrix product (batch, m and n > 0) on the device's queue,
     * in order with its launches; NULL where the backend has no BLAS. On
     * failure nothing was enqueued and `done` is not called; a dtype the
     * backend's BLAS lacks is TSR_ERR_NOT_SUPPORTED. */
    tsr_status (*gemm)(tsr__backend_runtime *rt, uint32_t device, const tsr__backend_gemm *gemm,
                       tsr__backend_done_fn done, void *ctx);
    /* Where the device is this machine's CPU and computes in host memory
     * (and devices.host_code allows it), a launch may run as the host's
     * own code (kernels/cpu_exec.h) in the device's queue, in order with
     * its other work: host_code says whether the open device does (false
     * while it is not open yet; NULL: never), host_enqueue enqueues one.
     * `kernel` is the checked kernel; its non-scalar operands are the
     * launch's buffers in order, at the launch's offsets, which hold their
     * element offsets; its pieces are tsr__host_pieces' (kernels/
     * cpu_exec.h). No program is needed; the bits are the programs'.
     * On failure nothing was enqueued and `done` is not called. */
    bool (*host_code)(const tsr__backend_runtime *rt, uint32_t device);
    tsr_status (*host_enqueue)(tsr__backend_runtime *rt, uint32_t device, const tsr__kernel *kernel,
                               const tsr__backend_launch *launch, tsr__backend_done_fn done,
                               void *ctx);
    /* The same launch run now, whole, on the calling thread (the loop),
     * for launches so small that a turn of the device's queue costs more
     * than the work; the executor asks only while it has nothing of the
     * device in the driver, so nothing runs out of order. Returns the
     * launch's status with *ran true; or, with *ran false, declines and
     * does nothing where the driver holds work of the backend's own that
     * must come first (OpenCL: a segment's move into huge pages), and the
     * executor queues the launch. NULL: never. */
    tsr_status (*host_run)(tsr__backend_runtime *rt, uint32_t device, const tsr__kernel *kernel,
                           const tsr__backend_launch *launch, bool *ran);

    /* User kernels (daemon/user.c) never run in the daemon: the backend's
     * worker executable (daemon/worker_wire.h) runs them, one process per
     * uid and device. `worker` is its file name (NULL: no user kernels);
     * worker_device writes the argument that names a device to it. */
    const char *worker;
    /* What a device's driver must report to load SPIR-V (its il_program
     * flag): the name errors give it. */
    const char *spirv_requires;
    bool (*worker_device)(const tsr__backend_found *found, uint32_t device, char *buf, size_t n);
} tsr__backend;

/* The backends built in, in the order their devices are listed; NULL
 * ends the list (daemon/backends.c). */
extern const tsr__backend *const tsr__backends[];

/* The built-in backend whose devices have `type`, or NULL. */
const tsr__backend *tsr__backend_of_type(tsr_device_type type);

#endif /* TESSERA_DAEMON_BACKEND_H */
