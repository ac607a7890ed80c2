/* Internal: the wire protocol between libtessera and tesserad.
 *
 * Every message is a frame: a 24-byte header followed by a fixed-size,
 * little-endian payload whose layout the opcode decides. Frames travel over
 * the SOCK_SEQPACKET socket (one frame per packet; file descriptors ride
 * along with SCM_RIGHTS) or through the session's shared-memory request
 * ring (one frame per slot). Both sides validate every field of every frame
 * they receive with tsr__wire_check; the daemon trusts nothing a client
 * writes. docs/protocol.md is the reference for each message.
 *
 * The message table (TSR__WIRE_OPS) is the one list of messages: the
 * opcodes, payload sizes, where each may travel and the names used in logs
 * and docs all come from it. Structures are laid out with explicit padding
 * so that the C layout is the wire layout on every little-endian ABI (a
 * static_assert per structure checks the size). */
#ifndef TESSERA_CORE_PROTOCOL_H
#define TESSERA_CORE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h" /* same folder: the fuzz build has only include/ on its path */
#include "tessera/status.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Tessera wire protocol is laid out for little-endian hosts"
#endif

#define TSR__WIRE_MAGIC 0x31525354u /* "TSR1" */
#define TSR__WIRE_VERSION 7u        /* what this build speaks */
#define TSR__WIRE_VERSION_MIN \
    7u /* the oldest peer it accepts (7: ALLOC's flags, EXPORT of ALONE blocks only) */
#define TSR__WIRE_FRAME_MAX 4096u   /* header + payload, either transport */
#define TSR__WIRE_TEXT 64u          /* short names (commands, devices) */
#define TSR__WIRE_LONG_TEXT 256u    /* device descriptions */
#define TSR__WIRE_MESSAGE_MAX 1024u /* error text */
#define TSR__WIRE_SESSION_DEVICES 16u

/* Header flags. */
#define TSR__WIRE_REPLY 0x1u /* a reply to the request with the same id */
#define TSR__WIRE_ERROR 0x2u /* a reply carrying tsr__wire_error */
#define TSR__WIRE_FLAGS_KNOWN (TSR__WIRE_REPLY | TSR__WIRE_ERROR)

typedef struct tsr__wire_header {
    uint32_t magic;
    uint16_t version;
    uint16_t opcode;
    uint32_t flags;
    uint32_t length; /* payload bytes after the header */
    uint64_t request_id;
} tsr__wire_header;

/* A device on the wire: a tsr_device_type value and an index (-1: none). */
typedef struct tsr__wire_device {
    int32_t type;
    int32_t index;
} tsr__wire_device;

/* ---- Payloads ----------------------------------------------------------- */

typedef struct tsr__wire_empty {
    uint8_t unused[1]; /* never sent: empty payloads have length 0 */
} tsr__wire_empty;

typedef struct tsr__wire_error {
    int32_t status;  /* a tsr_status other than TSR_OK */
    uint32_t length; /* bytes of text that follow, no NUL */
    char text[TSR__WIRE_MESSAGE_MAX];
} tsr__wire_error;

typedef struct tsr__wire_hello {
    uint32_t version_min, version_max; /* what the client speaks */
    uint32_t pid;                      /* informational; SO_PEERCRED decides */
    uint32_t flags;                    /* TSR__WIRE_HELLO_*; every other bit must be 0 */
    char name[TSR__WIRE_TEXT];         /* shown by `tessera ps`; NUL-terminated */
} tsr__wire_hello;

/* HELLO flags. MONITOR: open a monitoring connection, not a session: it
 * may send only the messages marked TSR__WIRE_MONITOR in the table below
 * (queries), gets no ring, holds no memory, is not counted against
 * sessions.max (sessions.max_monitors bounds it instead), and is not
 * listed by SESSION_LIST or PROCESS_LIST. */
#define TSR__WIRE_HELLO_MONITOR 0x1u
#define TSR__WIRE_HELLO_FLAGS_KNOWN TSR__WIRE_HELLO_MONITOR

/* Sent with two descriptors: the ring's memfd and the doorbell eventfd;
 * to a monitoring connection with none, and ring_slots, ring_slot_size and
 * ring_bytes 0. */
typedef struct tsr__wire_welcome {
    uint32_t version; /* the version both will speak */
    uint32_t session_id;
    uint32_t device_count; /* entries of the registry (DEVICE_GET positions) */
    uint32_t ring_slots;
    uint32_t ring_slot_size;
    uint32_t pad;
    uint64_t ring_bytes;
} tsr__wire_welcome;

typedef struct tsr__wire_position {
    uint32_t position;
    uint32_t pad;
} tsr__wire_position;

/* One registry entry: cpu, each accelerator in ordinal order, then meta.
 * `device` names the device as the session numbers it; daemon_index, as
 * the daemon does (the administration messages' numbering). */
#define TSR__WIRE_INFO_DAEMON_INDEX 0x1u /* daemon_index is filled */
#define TSR__WIRE_INFO_LIMITED \
    0x2u /* memory_bytes is the asker's memory limit, below what \
                                            the daemon lends of the device */
typedef struct tsr__wire_device_info {
    tsr__wire_device device;
    uint64_t memory_bytes;
    uint64_t max_work_group_size;
    uint32_t compute_units;
    int32_t numa_node; /* -1: unknown or several */
    uint8_t fp16, fp64, host_unified_memory;
    uint8_t flags;        /* TSR__WIRE_INFO_DAEMON_INDEX */
    int32_t daemon_index; /* with that flag: the daemon's ordinal of an accelerator, else -1 */
    char name[TSR__WIRE_LONG_TEXT];
    char vendor[TSR__WIRE_LONG_TEXT];
    char driver_version[TSR__WIRE_LONG_TEXT];
    char api_version[TSR__WIRE_LONG_TEXT];
    char cpuset[TSR__WIRE_LONG_TEXT];
    char pci_bus_id[32];
    char render_node[TSR__WIRE_TEXT];
    /* With TSR__WIRE_INFO_LIMITED: what the daemon lends all sessions of the
     * device, for an administrator (root, tessera-admin); else 0. */
    uint64_t device_memory_bytes;
} tsr__wire_device_info;

typedef struct tsr__wire_set_device {
    uint64_t thread_id;
    tsr__wire_device device;
} tsr__wire_set_device;

typedef struct tsr__wire_get_device {
    uint64_t thread_id;
    int32_t type;
    int32_t pad;
} tsr__wire_get_device;

typedef struct tsr__wire_alloc {
    tsr__wire_device device;
    uint64_t bytes;
    uint32_t flags; /* TSR__WIRE_ALLOC_* */
    uint32_t pad;   /* 0 */
} tsr__wire_alloc;

/* ALLOC flags. ALONE: a segment of the block's own, holding nothing else
 * ever, destroyed when the block is freed (what EXPORT takes). */
#define TSR__WIRE_ALLOC_ALONE 0x1u
#define TSR__WIRE_ALLOC_FLAGS_KNOWN TSR__WIRE_ALLOC_ALONE

#define TSR__WIRE_NEW_SEGMENT 0x1u
#define TSR__WIRE_SEGMENTS_RELEASED 0x2u /* making room released unused segments */
typedef struct tsr__wire_block {
    uint64_t handle;
    uint64_t offset; /* within the segment */
    uint64_t size;   /* bytes reserved for the caller */
    uint64_t segment_bytes;
    uint32_t segment_id;
    uint32_t flags; /* TSR__WIRE_NEW_SEGMENT: map it (SEGMENT_MAP);
                               TSR__WIRE_SEGMENTS_RELEASED: forget unused mappings */
} tsr__wire_block;

/* A strided region of one allocation (core/region.h), in elements. */
typedef struct tsr__wire_region {
    uint64_t handle;
    uint32_t itemsize;
    int32_t ndim;
    int64_t offset;
    int64_t sizes[25];
    int64_t strides[25];
} tsr__wire_region;

/* Writes one element's bytes (itemsize of value) at every element. */
typedef struct tsr__wire_fill {
    tsr__wire_region region;
    uint8_t value[16];
} tsr__wire_fill;

typedef struct tsr__wire_handle {
    uint64_t handle;
} tsr__wire_handle;

typedef struct tsr__wire_segment {
    uint32_t segment_id;
    uint32_t pad;
} tsr__wire_segment;

/* Sent with one descriptor: the segment's memfd. */
typedef struct tsr__wire_segment_info {
    uint64_t bytes;
    tsr__wire_device device;
} tsr__wire_segment_info;

typedef struct tsr__wire_memory_stats {
    uint64_t allocated, reserved, active, requested, peak_allocated, peak_reserved;
    uint64_t allocations, frees, cache_hits, ooms, segments;
    uint64_t device_capacity, device_free;
} tsr__wire_memory_stats;

typedef struct tsr__wire_bytes {
    uint64_t bytes;
} tsr__wire_bytes;

typedef struct tsr__wire_session_usage {
    tsr__wire_device device;
    uint64_t allocated;
    uint64_t reserved;
} tsr__wire_session_usage;

/* One session, for `tessera ps`. The cursor of SESSION_LIST is a session
 * id: the reply describes the first session with a larger id. */
typedef struct tsr__wire_session_info {
    uint32_t session_id;
    uint32_t pid, uid, gid;
    uint32_t more;        /* 1: sessions with larger ids exist */
    uint32_t usage_count; /* entries of usage in use */
    uint32_t threads;     /* client threads with a current device */
    uint32_t pad;
    uint64_t requests; /* served so far, ring and socket */
    uint64_t started_unix_ns;
    tsr__wire_device current_device; /* of the session's first thread */
    char command[TSR__WIRE_TEXT];    /* /proc/<pid>/comm */
    char name[TSR__WIRE_TEXT];       /* what the client called itself */
    tsr__wire_session_usage usage[TSR__WIRE_SESSION_DEVICES];
} tsr__wire_session_info;

/* An empty session list answers with session_id 0. */

/* LAUNCH's request is a tsr__kernel (core/kernel.h) as it stands; the reply
 * names the launch: its sequence number on the device's queue of this
 * session (0: nothing to run, e.g. no elements) and the device's slot in the
 * ring's queue records. */
typedef struct tsr__wire_launched {
    uint32_t sequence;
    uint32_t queue; /* index into tsr__ring.queues */
} tsr__wire_launched;

/* ---- Sharing between processes (daemon/share.c) --------------------------
 * EXPORT makes a capability over a live allocation of the session and a
 * view of it (the region, in elements of dtype); IMPORT presents it and
 * gets the same memory (a segment of the importer's own, with the memfd)
 * and the view back; REVOKE refuses later imports of it. */
#define TSR__WIRE_EXPORT_READ_ONLY 0x1u /* importers map it read-only; no kernel writes it */
#define TSR__WIRE_EXPORT_UID 0x2u       /* allow_uid may import it too */
#define TSR__WIRE_EXPORT_GID 0x4u       /* sessions of group allow_gid may import it too */
/* A new block of host memory (for cpu tensors): region.handle 0, a uint8
 * region of one dimension, its size the bytes; the reply carries the
 * block's memfd, and its handle is the low half of the key's id. */
#define TSR__WIRE_EXPORT_HOST 0x8u
#define TSR__WIRE_EXPORT_FLAGS_KNOWN                                            \
    (TSR__WIRE_EXPORT_READ_ONLY | TSR__WIRE_EXPORT_UID | TSR__WIRE_EXPORT_GID | \
     TSR__WIRE_EXPORT_HOST)

typedef struct tsr__wire_export {
    tsr__wire_region region; /* handle: the allocation; itemsize: dtype's */
    int32_t dtype;           /* a tsr_dtype */
    uint32_t flags;          /* TSR__WIRE_EXPORT_* */
    uint32_t allow_uid, allow_gid;
} tsr__wire_export;

/* The capability: an id and 128 random bits; both must match. */
typedef struct tsr__wire_share_key {
    uint64_t id;
    uint8_t secret[16];
} tsr__wire_share_key;

/* IMPORT's reply, with one descriptor (the memfd, opened read-only for a
 * read-only export): the block (handle for FREE, in segment_id of the
 * importer's session, offset and size within it) and the exported view. */
typedef struct tsr__wire_imported {
    uint64_t handle;
    uint64_t offset;
    uint64_t size;
    uint64_t segment_bytes;
    uint32_t segment_id;
    uint32_t flags; /* the export's TSR__WIRE_EXPORT_* */
    tsr__wire_device device;
    int32_t dtype;
    uint32_t owner_uid; /* whose memory it is */
    tsr__wire_region region;
} tsr__wire_imported;

/* SHARE_LIST: one export after a cursor (an export id), as the asker may
 * see it; id 0: no more. */
#define TSR__WIRE_SHARE_REVOKED 0x100u  /* REVOKE refused later imports */
#define TSR__WIRE_SHARE_RELEASED 0x200u /* its session freed it or ended: imports hold it */
#define TSR__WIRE_SHARE_MORE 0x400u     /* exports with larger ids exist */
#define TSR__WIRE_SHARE_VISIBLE 0x800u  /* the asker may see whose it is: uid is filled */
#define TSR__WIRE_SHARE_HOLDERS 16u
typedef struct tsr__wire_share_info {
    uint64_t id;
    uint32_t session_id;     /* the exporting session */
    uint32_t flags;          /* the export's TSR__WIRE_EXPORT_* and TSR__WIRE_SHARE_* */
    uint32_t uid;            /* the exporter's (visible only; else TSR__WIRE_ID_HIDDEN) */
    uint32_t imports;        /* live imports of it */
    tsr__wire_device device; /* the daemon's ordinal */
    uint64_t bytes;          /* the block's size */
    uint32_t holder_count;   /* entries of holders in use */
    uint32_t pad;
    uint32_t holders[TSR__WIRE_SHARE_HOLDERS]; /* sessions holding imports of it, each once */
} tsr__wire_share_info;
/* ---- User kernels (daemon/user.c) ----------------------------------------
 * A client's own OpenCL C, built and run by a worker process of its uid
 * and device, never inside the daemon (docs/architecture.md, "User
 * kernels"). A program is created with its length and options, its source
 * follows in PROGRAM_SOURCE frames in order, and the build starts when the
 * last byte arrives. */
#define TSR__WIRE_PROGRAM_OPTIONS 512u /* build options, NUL-terminated */
#define TSR__WIRE_SOURCE_CHUNK 3968u   /* source bytes per PROGRAM_SOURCE frame, at most */
#define TSR__WIRE_BUILD_LOG 3072u      /* of the compiler's log, in PROGRAM_STATUS */
#define TSR__WIRE_KERNEL_NAME 64u
#define TSR__WIRE_KERNEL_ARGS 32u /* arguments of one kernel, at most */
#define TSR__WIRE_ARG_TEXT 28u    /* an argument's name or type name */

typedef struct tsr__wire_program_create {
    tsr__wire_device device;
    uint64_t source_bytes; /* 1 .. kernels.max_source_bytes */
    char options[TSR__WIRE_PROGRAM_OPTIONS];
    uint32_t format; /* TSR__WIRE_PROGRAM_FORMAT_* */
    uint32_t pad;
} tsr__wire_program_create;

#define TSR__WIRE_PROGRAM_FORMAT_OPENCL_C 0u /* OpenCL C source text */
#define TSR__WIRE_PROGRAM_FORMAT_SPIRV 1u    /* a SPIR-V module (daemon/backend.h) */

typedef struct tsr__wire_program {
    uint32_t program; /* the session's program id, nonzero */
    uint32_t pad;
} tsr__wire_program;

typedef struct tsr__wire_program_source {
    uint32_t program;
    uint32_t length; /* bytes of data used: 1 .. TSR__WIRE_SOURCE_CHUNK */
    uint64_t offset; /* must be the number of bytes received so far */
    char data[TSR__WIRE_SOURCE_CHUNK];
} tsr__wire_program_source;

enum {
    TSR__WIRE_PROGRAM_RECEIVING, /* waiting for source */
    TSR__WIRE_PROGRAM_BUILDING,
    TSR__WIRE_PROGRAM_BUILT,
    TSR__WIRE_PROGRAM_BROKEN, /* the build failed, or its worker ended: `status` says */
};

typedef struct tsr__wire_program_status {
    uint32_t state;        /* TSR__WIRE_PROGRAM_* */
    int32_t status;        /* BROKEN: the tsr_status of the failure */
    uint32_t kernel_count; /* BUILT: kernels in the program */
    uint32_t log_length;   /* bytes of log used (the log's end when it was longer) */
    char log[TSR__WIRE_BUILD_LOG];
} tsr__wire_program_status;

typedef struct tsr__wire_kernel_query {
    uint32_t program;
    uint32_t pad;
    char name[TSR__WIRE_KERNEL_NAME]; /* NUL-terminated */
} tsr__wire_kernel_query;

/* What an argument takes. */
enum {
    TSR__KARG_GLOBAL,   /* __global pointer: a tensor */
    TSR__KARG_CONSTANT, /* __constant pointer: a tensor */
    TSR__KARG_LOCAL,    /* __local pointer: a size in bytes */
    TSR__KARG_VALUE,    /* by value: a scalar of `size` bytes */
    TSR__KARG_KINDS,
};

typedef struct tsr__wire_kernel_arg {
    uint32_t kind; /* TSR__KARG_* */
    uint32_t size; /* VALUE: its bytes (1 .. 16); else 0 */
    char type[TSR__WIRE_ARG_TEXT];
    char name[TSR__WIRE_ARG_TEXT];
} tsr__wire_kernel_arg;

typedef struct tsr__wire_kernel_info {
    uint32_t kernel; /* its index in the program, for KERNEL_LAUNCH */
    uint32_t nargs;
    tsr__wire_kernel_arg args[TSR__WIRE_KERNEL_ARGS];
} tsr__wire_kernel_info;

typedef struct tsr__wire_kernel_value {
    uint32_t kind;   /* what the argument takes (TSR__KARG_*) */
    uint32_t size;   /* VALUE: bytes of value; LOCAL: 0 (bytes is the size) */
    uint64_t handle; /* GLOBAL, CONSTANT: the block */
    uint64_t bytes;  /* GLOBAL, CONSTANT: the byte offset into the block; LOCAL: bytes */
    uint8_t value[16];
} tsr__wire_kernel_value;

typedef struct tsr__wire_kernel_launch {
    uint32_t program, kernel;
    uint32_t work_dim; /* 1 .. 3 */
    uint32_t nargs;    /* must be the kernel's */
    uint64_t global[3];
    uint64_t local[3]; /* all 0: the driver picks */
    tsr__wire_kernel_value args[TSR__WIRE_KERNEL_ARGS];
} tsr__wire_kernel_launch;

/* ---- Matrix products (daemon/exec.c) --------------------------------------
 * GEMM queues one matrix product on the device of its operands, in order
 * with the session's launches there, computed by the device's BLAS
 * (CLBlast on opencl devices; float16, bfloat16 and the integers through
 * the device's GEMM program, core/kernel.h):
 *   C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b],  b < batch,
 * row-major, op(A) m x k and op(B) k x n. Operand 0 is C, 1 A, 2 B; each
 * is an allocation of the session (or one it imported) with, in elements
 * of `dtype`, the offset of its element (0, 0, 0), the step between its
 * stored rows (ld: rows of A^T for a transposed A, which is stored k x m)
 * and between its matrices (bstride). The daemon checks every operand's
 * region (batch x rows x cols with strides bstride, ld, 1) against its
 * allocation, C writable, distinct from A's and B's allocations and not
 * overlapping itself, ld at least the stored row's length, and the dtype
 * one the device computes products in. alpha and beta are in the dtype's
 * math type as tsr__kernel.alpha lays them out. The reply is LAUNCH's. */
#define TSR__WIRE_GEMM_TRANS_A 0x1u   /* A is stored k x m */
#define TSR__WIRE_GEMM_TRANS_B 0x2u   /* B is stored n x k */
#define TSR__WIRE_GEMM_BETA_ZERO 0x4u /* C is not read (beta is 0) */
typedef struct tsr__wire_gemm {
    uint32_t dtype; /* tsr_dtype */
    uint32_t flags; /* TSR__WIRE_GEMM_* */
    int64_t batch, m, n, k;
    uint64_t handles[3];
    int64_t offsets[3], ld[3], bstride[3];
    uint8_t alpha[16], beta[16];
} tsr__wire_gemm;

/* ---- Administration (daemon/admin.c) --------------------------------------
 * What `tessera ps`, `top`, `info`, `topo` and `stats` ask. Devices are the
 * daemon's ordinals, whatever the asking client's visible devices are. */

#define TSR__WIRE_PROCESS_MORE 0x1u /* sessions with larger ids exist */
#define TSR__WIRE_PROCESS_VISIBLE \
    0x2u                            /* the asker may see who it is: the fields marked
                                          "visible only" are filled */
#define TSR__WIRE_PROCESS_SELF 0x4u /* the asking session itself */
#define TSR__WIRE_PROCESS_PID_KNOWN \
    0x8u /* pid is the process's pid in the asker's pid
                                            namespace (0 there when not) */
/* Its connection is over; kernels in flight keep it, and its memory, until
 * they finish. */
#define TSR__WIRE_PROCESS_ENDING 0x10u
#define TSR__WIRE_ID_HIDDEN 0xffffffffu /* uid and gid of a session the asker may not see */
#define TSR__WIRE_CGROUP_TEXT 512u

typedef struct tsr__wire_process_usage {
    tsr__wire_device device;
    uint64_t allocated;
    uint64_t reserved;
    uint64_t limit; /* the most the session may reserve on the device */
} tsr__wire_process_usage;

/* One session, for `tessera ps` and `top`. The cursor (SESSION_LIST's) is a
 * session id: the reply describes the first session with a larger id, open
 * or ending; an empty list answers with session_id 0. */
typedef struct tsr__wire_process {
    uint32_t session_id;
    uint32_t flags;       /* TSR__WIRE_PROCESS_* */
    uint32_t pid;         /* visible only; in the asker's pid namespace */
    uint32_t uid, gid;    /* visible only; else TSR__WIRE_ID_HIDDEN */
    uint32_t threads;     /* client threads with a current device */
    uint32_t usage_count; /* entries of usage in use */
    uint32_t kernels;     /* launches not yet retired: queued or running */
    uint64_t requests;    /* served so far */
    uint64_t started_unix_ns;
    uint64_t pid_namespace; /* visible only; inode of its pid namespace, 0 unknown */
    tsr__wire_device current_device;
    char command[TSR__WIRE_TEXT];       /* visible only; /proc/PID/comm */
    char name[TSR__WIRE_TEXT];          /* visible only; the HELLO name */
    char unit[128];                     /* visible only; systemd unit, "" none */
    char cgroup[TSR__WIRE_CGROUP_TEXT]; /* visible only; cgroup v2 path, "" unknown */
    tsr__wire_process_usage usage[TSR__WIRE_SESSION_DEVICES];
    uint64_t busy_ns;  /* device time its kernels took: each device's busy time (the time
                          its queue was not empty) goes to the session whose kernel kept it
                          busy, so the sessions' shares add up to the device's */
    uint64_t launches; /* kernels and fills it has queued on devices */
    /* User kernels (daemon/user.h): the programs it holds, on every
     * device, and the kernels.* limits in force for it. max_programs is 0
     * where kernels.user is off. */
    uint32_t programs;
    uint32_t max_programs;        /* kernels.max_programs */
    uint64_t max_source_bytes;    /* kernels.max_source_bytes */
    uint64_t build_memory;        /* kernels.build_memory */
    uint32_t build_time_limit_ms; /* kernels.build_time_limit_ms */
    uint32_t run_time_limit_ms;   /* kernels.run_time_limit_ms */
} tsr__wire_process;

typedef struct tsr__wire_stats_request {
    uint32_t session_id; /* 0: the asking session */
    uint32_t pad;
    tsr__wire_device device;
} tsr__wire_stats_request;

/* A session's allocator on one device, everything PyTorch's memory_stats()
 * reports that has a meaning here. Bytes unless named a count. */
typedef struct tsr__wire_session_stats {
    uint64_t allocated, peak_allocated;
    uint64_t reserved, peak_reserved;
    uint64_t active, peak_active;
    uint64_t inactive_split;        /* free bytes in segments that hold live blocks */
    uint64_t inactive_split_blocks; /* count of those free blocks */
    uint64_t requested;
    uint64_t live_blocks;                         /* count */
    uint64_t allocations, frees;                  /* counts since the allocator was made */
    uint64_t segments;                            /* count, now */
    uint64_t segments_created, segments_released; /* counts */
    uint64_t cache_hits, ooms;                    /* counts */
    uint64_t limit; /* the most the session may reserve on the device */
    /* User kernels: the programs the session holds on the device, and the
     * kernel worker of its uid there (TSR__WIRE_STATS_WORKER_*): worker_pid
     * is in the asker's pid namespace, shown only to who may see the
     * session (0 otherwise, or when that namespace does not hold it). */
    uint32_t programs;
    uint32_t worker_flags;
    uint32_t worker_pid;
    uint32_t pad;
} tsr__wire_session_stats;

#define TSR__WIRE_STATS_WORKER_RUNNING 0x1u   /* the uid's worker on the device runs */
#define TSR__WIRE_STATS_WORKER_PID_KNOWN 0x2u /* worker_pid is its pid, as the asker sees it */

#define TSR__WIRE_DEVICE_BUSY_SAMPLED 0x1u /* busy_ns is measured (set by every daemon since v2) */
#define TSR__WIRE_DEVICE_AVAILABLE 0x2u    /* the driver reports it available */
#define TSR__WIRE_DEVICE_HAS_UUID 0x4u
#define TSR__WIRE_DEVICE_LITTLE_ENDIAN 0x8u

/* What kind of processor a device is, whichever backend serves it. */
typedef enum tsr__wire_device_kind {
    TSR__WIRE_KIND_OTHER = 0, /* none of the below, or no backend's device (cpu, meta) */
    TSR__WIRE_KIND_CPU,       /* computes on the host's processors */
    TSR__WIRE_KIND_GPU,
    TSR__WIRE_KIND_ACCELERATOR, /* a dedicated accelerator that is no GPU */
    TSR__WIRE_KIND_COUNT
} tsr__wire_device_kind;

#define TSR__WIRE_BACKEND_TEXT 16u /* a backend's name, "opencl" */

/* The live state of a device (the request names it), and what its
 * backend's discovery saw beyond DEVICE_GET's answer: first in terms every
 * backend has, then, apart, the details only the backend named in
 * backend_name has. cpu and meta have no backend: all of that is zero. */
typedef struct tsr__wire_device_status {
    tsr__wire_device device;
    uint64_t capacity;  /* what the daemon lends all sessions */
    uint64_t reserved;  /* what sessions hold in segments now */
    uint64_t allocated; /* what their live allocations take */
    uint64_t busy_ns;   /* time it had kernels submitted and not finished, since start */
    uint64_t now_ns;    /* the daemon's monotonic clock when it answered */
    uint64_t max_alloc_bytes, local_memory_bytes;
    uint32_t sessions; /* sessions holding memory on it */
    uint32_t flags;    /* TSR__WIRE_DEVICE_* */
    uint32_t kind;     /* tsr__wire_device_kind */
    uint32_t max_clock_mhz, mem_base_addr_align_bits;
    uint32_t pad;
    uint8_t uuid[16];
    char backend_name[TSR__WIRE_BACKEND_TEXT]; /* the backend serving it: "opencl" */
    char platform_name[TSR__WIRE_LONG_TEXT];   /* the driver platform it is found through */
    /* The backend's own details, read as backend_name defines them. With
     * "opencl": the device-type bits OpenCL reports, the positions of its
     * platform and of the device in OpenCL's enumeration, and its OpenCL C
     * version. */
    struct {
        uint64_t type_bits;
        uint32_t platform_index, device_index;
        char language_version[TSR__WIRE_LONG_TEXT];
    } backend;
    uint64_t launches;         /* kernels and fills queued on it since the daemon started */
    uint64_t programs_built;   /* programs its backend compiled from source for it */
    uint64_t programs_loaded;  /* programs it took from the disk cache instead */
    uint32_t kernel_workers;   /* user-kernel worker processes running for it (one per uid) */
    uint32_t user_programs;    /* user programs that sessions hold on it */
    uint32_t programs_pending; /* kernel programs asked for and still being built or loaded */
    uint32_t pad2;
} tsr__wire_device_status;

/* The daemon's own counters, since it started (DAEMON_STATS). */
typedef struct tsr__wire_daemon_stats {
    uint64_t started_unix_ns;
    uint64_t uptime_ns;
    uint64_t sessions_opened;  /* HELLO succeeded */
    uint64_t sessions_refused; /* turned away at a session or handshake cap */
    uint64_t monitors_opened;
    uint64_t monitors_refused; /* over sessions.max_monitors */
    uint64_t oom_refusals;     /* allocations refused: the device was full */
    uint64_t limit_refusals;   /* allocations refused at a memory limit */
    uint64_t reloads;          /* configuration reloads that took effect */
    uint64_t reload_failures;  /* reloads refused, the running configuration kept */
    uint32_t sessions;         /* open now */
    uint32_t monitors;         /* open now */
} tsr__wire_daemon_stats;

/* How two devices are connected, as `nvidia-smi topo -m` names it. */
typedef enum tsr__wire_link {
    TSR__LINK_UNKNOWN = 0, /* no PCI location for one of them */
    TSR__LINK_SELF,        /* X */
    TSR__LINK_PIX,         /* through one PCI bridge */
    TSR__LINK_PXB,         /* through several PCI bridges, no host bridge */
    TSR__LINK_PHB,         /* through a PCI host bridge */
    TSR__LINK_NODE,        /* between host bridges of one NUMA node */
    TSR__LINK_SYS,         /* between NUMA nodes */
    TSR__LINK_COUNT
} tsr__wire_link;

#define TSR__WIRE_TOPOLOGY_DEVICES 64u

/* One row of the device matrix: how the accelerator the request names
 * reaches each accelerator (links[k]: to the daemon's accelerator k, a
 * tsr__wire_link). */
typedef struct tsr__wire_topology {
    tsr__wire_device device;
    uint32_t count;      /* accelerators, entries of links in use */
    uint32_t numa_nodes; /* of the machine */
    uint8_t links[TSR__WIRE_TOPOLOGY_DEVICES];
} tsr__wire_topology;

/* ---- The message table ---------------------------------------------------
 * X(NAME, opcode, request payload, reply payload, transports, summary)
 * transports: SOCKET, RING (ring or socket); and MONITOR: a monitoring
 * connection may send it too (HELLO flags above). */
#define TSR__WIRE_SOCKET 0x1u
#define TSR__WIRE_RING 0x2u
#define TSR__WIRE_MONITOR 0x4u
#define TSR__WIRE_OPS(X)                                                                          \
    X(HELLO, 1, tsr__wire_hello, tsr__wire_welcome, TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,         \
      "open a session: version handshake; the reply carries the ring and doorbell")               \
    X(PING, 2, tsr__wire_empty, tsr__wire_empty,                                                  \
      TSR__WIRE_SOCKET | TSR__WIRE_RING | TSR__WIRE_MONITOR, "an empty round trip")               \
    X(DEVICE_GET, 3, tsr__wire_position, tsr__wire_device_info,                                   \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR, "one entry of the device registry")                   \
    X(SET_DEVICE, 4, tsr__wire_set_device, tsr__wire_empty, TSR__WIRE_SOCKET | TSR__WIRE_RING,    \
      "set a client thread's current device of a type")                                           \
    X(GET_DEVICE, 5, tsr__wire_get_device, tsr__wire_device, TSR__WIRE_SOCKET | TSR__WIRE_RING,   \
      "a client thread's current device of a type")                                               \
    X(ALLOC, 6, tsr__wire_alloc, tsr__wire_block, TSR__WIRE_SOCKET | TSR__WIRE_RING,              \
      "allocate device memory in a session segment")                                              \
    X(FREE, 7, tsr__wire_handle, tsr__wire_empty, TSR__WIRE_SOCKET | TSR__WIRE_RING,              \
      "free an allocation")                                                                       \
    X(SEGMENT_MAP, 8, tsr__wire_segment, tsr__wire_segment_info, TSR__WIRE_SOCKET,                \
      "receive a segment's memfd to map")                                                         \
    X(MEMORY_STATS, 9, tsr__wire_device, tsr__wire_memory_stats,                                  \
      TSR__WIRE_SOCKET | TSR__WIRE_RING, "the session's memory statistics on a device")           \
    X(EMPTY_CACHE, 10, tsr__wire_device, tsr__wire_bytes, TSR__WIRE_SOCKET | TSR__WIRE_RING,      \
      "release the session's unused cached segments on a device")                                 \
    X(SESSION_LIST, 11, tsr__wire_segment, tsr__wire_session_info,                                \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR, "one session after a cursor (tessera ps)")            \
    X(FILL, 12, tsr__wire_fill, tsr__wire_launched, TSR__WIRE_SOCKET | TSR__WIRE_RING,            \
      "fill a strided region of an allocation with one element's bytes")                          \
    X(LAUNCH, 13, tsr__kernel, tsr__wire_launched, TSR__WIRE_SOCKET | TSR__WIRE_RING,             \
      "queue an elementwise kernel on the device of its operands")                                \
    X(PROCESS_LIST, 14, tsr__wire_segment, tsr__wire_process,                                     \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,                                                       \
      "one session after a cursor, as the asker may see it (tessera ps, top)")                    \
    X(SESSION_STATS, 15, tsr__wire_stats_request, tsr__wire_session_stats,                        \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,                                                       \
      "a session's allocator statistics on a device (tessera stats)")                             \
    X(DEVICE_STATUS, 16, tsr__wire_device, tsr__wire_device_status,                               \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,                                                       \
      "a registry entry's memory in use, busy time and discovery details (tessera info, top)")    \
    X(TOPOLOGY, 17, tsr__wire_device, tsr__wire_topology, TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,   \
      "how one OpenCL device reaches every other (tessera topo)")                                 \
    X(DAEMON_STATS, 18, tsr__wire_empty, tsr__wire_daemon_stats,                                  \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,                                                       \
      "the daemon's own counters: sessions opened and refused, refusals, reloads (metrics)")      \
    X(EXPORT, 19, tsr__wire_export, tsr__wire_share_key, TSR__WIRE_SOCKET,                        \
      "make an allocation importable by other processes: a capability handle")                    \
    X(IMPORT, 20, tsr__wire_share_key, tsr__wire_imported, TSR__WIRE_SOCKET,                      \
      "map another session's exported allocation; the reply carries its memfd")                   \
    X(REVOKE, 21, tsr__wire_share_key, tsr__wire_empty, TSR__WIRE_SOCKET,                         \
      "refuse every later import of an export")                                                   \
    X(SHARE_LIST, 22, tsr__wire_handle, tsr__wire_share_info,                                     \
      TSR__WIRE_SOCKET | TSR__WIRE_MONITOR,                                                       \
      "one export after a cursor and the sessions holding it (tessera shares)")                   \
    X(PROGRAM_CREATE, 23, tsr__wire_program_create, tsr__wire_program, TSR__WIRE_SOCKET,          \
      "a user program on a device: its options and length (the source follows)")                  \
    X(PROGRAM_SOURCE, 24, tsr__wire_program_source, tsr__wire_empty, TSR__WIRE_SOCKET,            \
      "the next bytes of a program's source; the build starts after the last")                    \
    X(PROGRAM_STATUS, 25, tsr__wire_program, tsr__wire_program_status, TSR__WIRE_SOCKET,          \
      "a program's state and build log")                                                          \
    X(PROGRAM_RELEASE, 26, tsr__wire_program, tsr__wire_empty, TSR__WIRE_SOCKET | TSR__WIRE_RING, \
      "drops a program")                                                                          \
    X(KERNEL_INFO, 27, tsr__wire_kernel_query, tsr__wire_kernel_info, TSR__WIRE_SOCKET,           \
      "a built program's kernel by name, with its arguments")                                     \
    X(KERNEL_LAUNCH, 28, tsr__wire_kernel_launch, tsr__wire_launched,                             \
      TSR__WIRE_SOCKET | TSR__WIRE_RING, "queues a user kernel on the session's device queue")    \
    X(GEMM, 29, tsr__wire_gemm, tsr__wire_launched, TSR__WIRE_SOCKET | TSR__WIRE_RING,            \
      "queues a matrix product on the device of its operands")

typedef enum tsr__wire_op {
#define TSR__WIRE_ENUM(name, code, req, rep, where, doc) TSR__OP_##name = code,
    TSR__WIRE_OPS(TSR__WIRE_ENUM)
#undef TSR__WIRE_ENUM
        TSR__OP_MAX
} tsr__wire_opcode;

typedef struct tsr__wire_op_info {
    const char *name;      /* "ALLOC" */
    uint32_t request_size; /* payload bytes, 0 for empty */
    uint32_t reply_size;
    uint32_t transports;
    const char *summary;
} tsr__wire_op_info;

/* The table entry of an opcode, NULL for an unknown one. */
const tsr__wire_op_info *tsr__wire_op(uint32_t opcode);

/* Checks a received frame of `len` bytes: header magic, version, known
 * opcode and flags, length matching both the frame and the opcode's
 * payload size (an error reply's text may be shorter than its maximum),
 * and, for `transport`, that the opcode may travel that way. `expect_reply`
 * selects which payload size applies. On success *header holds the decoded
 * header. Failures are TSR_ERR_PROTOCOL with the reason. */
tsr_status tsr__wire_check(const void *frame, size_t len, uint32_t transport, bool expect_reply,
                           tsr__wire_header *header);

/* Writes a header for `opcode` with `payload_len`. */
void tsr__wire_header_init(tsr__wire_header *header, uint32_t opcode, uint32_t flags,
                           uint32_t payload_len, uint64_t request_id);

/* The payload size on the wire of an error reply carrying `text_len` bytes. */
uint32_t tsr__wire_error_size(uint32_t text_len);

/* Fills *err from a status and message (cut to fit). Returns its wire size. */
uint32_t tsr__wire_error_fill(tsr__wire_error *err, tsr_status status, const char *message);

/* Validates a received error payload and sets the calling thread's error
 * from it; returns the status it carries (TSR_ERR_PROTOCOL when garbled). */
tsr_status tsr__wire_error_raise(const void *payload, uint32_t len);

/* Whether a fixed text field is NUL-terminated within its size. */
bool tsr__wire_text_ok(const char *field, size_t size);

/* Copies a C string into a fixed text field, cut to fit, NUL-padded. */
void tsr__wire_text_set(char *field, size_t size, const char *text);

#endif /* TESSERA_CORE_PROTOCOL_H */
