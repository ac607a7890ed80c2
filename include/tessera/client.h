/* The client side of the daemon: connections, the device registry, each
 * thread's current device, the default device, and memory statistics.
 *
 * A tsr_client is one session with tesserad. The daemon owns the device
 * ordinals and each client thread's current device (so `tessera ps` can show
 * it); the client caches what it reads. Everything here is thread-safe: a
 * client may be used by any number of threads at once, but closed only
 * when no other thread is inside a call on it. A process forked from the
 * one that opened it shares its socket and ring: every call there fails
 * (TSR_ERR_CONNECTION, "... open a client of its own"); the child opens
 * its own, and may close the inherited one, which tells the daemon
 * nothing.
 *
 * Devices seen through a client are numbered as the client sees them. The
 * session sees the devices the daemon's devices.visible lists, numbered
 * from 0 (by default all of them, numbered as the daemon does); with
 * TESSERA_VISIBLE_DEVICES=2,0 in the environment (or visible_devices in the
 * options), the client's opencl:0 is the session's opencl:2 and its
 * opencl:1 the session's opencl:0, and no other opencl device exists for
 * it, as CUDA_VISIBLE_DEVICES does. Only tsr_session_list and the
 * administration calls use the daemon's own ordinals. */
#ifndef TESSERA_CLIENT_H
#define TESSERA_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/device.h"
#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a system-wide daemon listens; $TESSERA_SOCKET overrides it. */
#define TSR_DEFAULT_SOCKET "/run/tessera/tesserad.sock"

typedef struct tsr_client tsr_client;

/* Zero-initialised options mean defaults. */
typedef struct tsr_client_options {
    const char *socket_path; /* NULL: $TESSERA_SOCKET, else TSR_DEFAULT_SOCKET */
    const char
        *visible_devices; /* NULL: $TESSERA_VISIBLE_DEVICES, else all; "2,0" remaps and restricts */
    const char *name;     /* shown by `tessera ps`; NULL: the program's name */
    int32_t timeout_ms;   /* how long a call may wait for a live daemon; 0: 10000 */
    uint64_t flags;       /* TSR_CLIENT_*; 0 for a session */
    uint64_t abi_reserved[7]; /* zero; room for later members (export.h) */
} tsr_client_options;

/* tsr_client_options.flags. MONITOR: a monitoring connection instead of a
 * session, for programs that only watch (`tessera ps`, `top`, exporters):
 * it may list devices and ask the tsr_admin_* and tsr_session_list
 * questions, nothing else (the rest fail with TSR_ERR_PROTOCOL, "ALLOC is
 * not served on a monitoring connection: open a session for it"). It holds
 * no memory, is not counted against the daemon's sessions.max (so it works
 * when that is reached; sessions.max_monitors bounds monitors), and is
 * not listed as a session. */
#define TSR_CLIENT_MONITOR (UINT64_C(1) << 0)

/* Connects to the daemon and starts a session: the handshake checks the
 * protocol version, reads the device registry and maps the session's
 * request ring. The caller owns *out and ends it with tsr_client_close.
 * Errors: TSR_ERR_CONNECTION when no daemon listens (the message names the
 * socket and says how to start one), TSR_ERR_PERMISSION when the socket
 * refuses this user, TSR_ERR_PROTOCOL on a version mismatch (both versions
 * named), TSR_ERR_INVALID_ARGUMENT for a bad TESSERA_VISIBLE_DEVICES. */
TSR_API tsr_status tsr_client_open(const tsr_client_options *options, tsr_client **out);

/* Gives up the caller's reference. The session ends, and the daemon frees
 * what it held, once no tensor made through this client is alive either.
 * NULL is accepted. */
TSR_API void tsr_client_close(tsr_client *client);

/* The daemon's number for this session (as `tessera ps` shows it). */
TSR_API uint32_t tsr_client_session_id(const tsr_client *client);

/* The negotiated protocol version. */
TSR_API uint32_t tsr_client_protocol_version(const tsr_client *client);

/* How a request travels: the shared-memory ring (the normal path) or the
 * socket. Exposed for benchmarks and diagnostics. */
typedef enum tsr_transport { TSR_TRANSPORT_RING, TSR_TRANSPORT_SOCKET } tsr_transport;

/* One empty request and its reply. TSR_ERR_CONNECTION when the daemon is
 * gone. */
TSR_API tsr_status tsr_client_ping(tsr_client *client, tsr_transport transport);

/* ---- The device registry -------------------------------------------- */

#define TSR_DEVICE_TEXT_MAX 256

typedef struct tsr_device_properties {
    tsr_device device;    /* as this client numbers it */
    int32_t daemon_index; /* opencl: the daemon's own ordinal of the device,
                                                   which the session lists and the
                                                   administration calls use; -1 for cpu
                                                   and meta */
    char name[TSR_DEVICE_TEXT_MAX];
    char vendor[TSR_DEVICE_TEXT_MAX];
    char driver_version[TSR_DEVICE_TEXT_MAX];
    char api_version[TSR_DEVICE_TEXT_MAX]; /* "OpenCL 1.2 pocl 3.1 ..."; "" for cpu and meta */
    uint64_t memory_bytes;                 /* what allocations may use; 0 for meta */
    uint32_t compute_units;
    uint64_t max_work_group_size;
    bool fp16, fp64;
    bool host_unified_memory; /* kernels work in the shared segments (zero copy); false: each
                                 kernel copies its operands in and its output back */
    int32_t numa_node;        /* -1: unknown or several */
    char cpuset[TSR_DEVICE_TEXT_MAX]; /* CPUs local to the device, "0-1"; "" unknown */
    char pci_bus_id[32];              /* "0000:01:00.0"; "" unknown */
    char render_node[64];             /* "/dev/dri/renderD128"; "" none */
    /* memory_bytes is this client's memory limit (memory_limit.uid, .group,
     * .session, .unit, .slice or .cgroup of the daemon's configuration), below what the daemon
     * lends of the device; device_memory_bytes is then that, for
     * administrators (root, tessera-admin), else 0. */
    bool memory_limited;
    uint64_t device_memory_bytes;
    uint64_t abi_reserved[6]; /* zero; room for later members (export.h) */
} tsr_device_properties;

/* How many devices of a type this client sees: 1 for cpu and meta, the
 * visible accelerators for the type the daemon serves (opencl today; see
 * tsr_accelerator_type), 0 for types this machine does not back (cuda,
 * mps, ...). Errors: TSR_ERR_INVALID_ARGUMENT for a bad type. */
TSR_API tsr_status tsr_device_count(tsr_client *client, tsr_device_type type, int32_t *out);

/* The properties of one device; an index-less device means the calling
 * thread's current device of that type. Errors: TSR_ERR_NO_DEVICE when the
 * type has no devices here or the index is out of range (the message names
 * the devices that exist). */
TSR_API tsr_status tsr_device_get_properties(tsr_client *client, tsr_device device,
                                             tsr_device_properties *out);

/* The machine's accelerator type: the device type of the accelerators the
 * daemon's registry lists (one type per daemon; opencl with today's
 * backends), when this client sees any. TSR_ERR_RUNTIME "Cannot access
 * accelerator device when none is available." otherwise. */
TSR_API tsr_status tsr_accelerator_type(tsr_client *client, tsr_device_type *out);

/* torch.device(index): the accelerator type with that index (no range
 * check, as in PyTorch). Errors as tsr_device_for_accelerator. */
TSR_API tsr_status tsr_device_from_index(tsr_client *client, int64_t index, tsr_device *out);

/* ---- Current device (per client thread, held by the daemon) --------- */

/* Makes `device` the calling thread's current device of its type. cpu and
 * meta have a single device and accept only an index-less device or index
 * 0. Errors: TSR_ERR_NO_DEVICE for an index out of range or a type with no
 * devices here, TSR_ERR_CONNECTION when the daemon is gone. */
TSR_API tsr_status tsr_set_device(tsr_client *client, tsr_device device);

/* The calling thread's current device of `type` (index 0 until set); cpu
 * and meta answer an index-less device. Errors as tsr_set_device. */
TSR_API tsr_status tsr_current_device(tsr_client *client, tsr_device_type type, tsr_device *out);

/* ---- Default device (factory functions only) ------------------------ */

/* torch.set_default_device: the process-wide device that factory functions
 * (empty, zeros, ones, full, from_data) use when given none. NULL removes
 * it. Not applied to *_like functions or to views. */
TSR_API tsr_status tsr_set_default_device(const tsr_device *device);

/* torch.get_default_device: the innermost pushed device of this thread,
 * else the process-wide one, else cpu. An index-less accelerator device is
 * answered with the current device's index when a client is given (client
 * may be NULL: the index stays -1). */
TSR_API tsr_status tsr_get_default_device(tsr_client *client, tsr_device *out);

/* `with torch.device(d):` in C. push makes `device` the calling thread's
 * default until the matching pop; scopes nest (depth TSR_DEFAULT_DEVICE_DEPTH).
 * Errors: TSR_ERR_LIMIT when too deep; pop with nothing pushed is
 * TSR_ERR_RUNTIME. */
#define TSR_DEFAULT_DEVICE_DEPTH 64
TSR_API tsr_status tsr_default_device_push(tsr_device device);
TSR_API tsr_status tsr_default_device_pop(void);

/* ---- Memory --------------------------------------------------------- */

/* This session's memory on one device, as PyTorch's memory_stats names it.
 * Bytes unless named a count. */
typedef struct tsr_memory_stats {
    uint64_t allocated; /* held by live allocations (rounded sizes) */
    uint64_t reserved;  /* held in segments, cached blocks included */
    uint64_t active;    /* = allocated: there are no streams */
    uint64_t requested; /* what the callers asked for */
    uint64_t peak_allocated, peak_reserved;
    uint64_t allocations, frees, cache_hits, ooms; /* counts */
    uint64_t segments;                             /* count */
    uint64_t device_capacity; /* the device's memory as this session is told it: what
                                 the daemon lends, or the session's limit when less
                                 (as tsr_device_properties.memory_bytes) */
    uint64_t device_free;     /* what this session could still get of it now */
    uint64_t abi_reserved[8]; /* zero; room for later members (export.h) */
} tsr_memory_stats;

/* The library keeps up to 64 freed blocks of at most 1 MiB (8 MiB in all)
 * for the next allocation of the same size on the same device, so that
 * such an allocation costs no request to the daemon. These statistics
 * count them as free (allocated, active, requested; a reused block counts
 * in `requested` with the size first asked for it) and count their reuse
 * as allocations, frees and cache hits; the daemon's view (`tessera ps`)
 * counts them as held by the session, and so do the peaks. Errors:
 * TSR_ERR_NO_DEVICE for a device that does not exist;
 * TSR_ERR_INVALID_ARGUMENT for cpu and meta, whose memory the daemon does
 * not manage. */
TSR_API tsr_status tsr_memory_get_stats(tsr_client *client, tsr_device device,
                                        tsr_memory_stats *out);

/* Returns this session's cached, unused memory on `device` to the device
 * (torch.cuda.empty_cache): the library's cached blocks, then every
 * segment without a live block; *released_bytes (NULL allowed) is the
 * segment bytes released now. Blocks freed while kernels that use them
 * may still run (a synchronize can return before the daemon has heard
 * that a user kernel ended) are freed when those kernels are done, and
 * the segments they leave unused are released then. */
TSR_API tsr_status tsr_memory_empty_cache(tsr_client *client, tsr_device device,
                                          uint64_t *released_bytes);

/* ---- Sessions (what `tessera ps` shows) ----------------------------- */

#define TSR_SESSION_DEVICES 16

typedef struct tsr_session_usage {
    tsr_device device;  /* the daemon's numbering */
    uint64_t allocated; /* bytes in live allocations */
    uint64_t reserved;  /* bytes in segments, cache included */
} tsr_session_usage;

/* One session as the caller may see it. A session of another uid is shown
 * in full only to a caller that is root or in the `tessera-admin` group;
 * to anyone else it has pid 0, uid and gid 0xffffffff (TSR_ID_HIDDEN),
 * an empty command and name and started_unix_ns 0, and only its numbers
 * (threads, requests, current device, memory) are filled. */
typedef struct tsr_session_info {
    uint32_t session_id;
    uint32_t pid, uid, gid;    /* from the connection's credentials; see above */
    char command[64];          /* the process's name (/proc/PID/comm); "" when hidden */
    char name[64];             /* what the client called itself; "" when hidden */
    tsr_device current_device; /* of its main thread, else the first device it
                                    sees (daemon numbering); cpu when it sees none */
    uint32_t threads;          /* threads that chose a device */
    uint64_t requests;         /* served so far */
    uint64_t started_unix_ns;  /* 0 when hidden */
    uint32_t usage_count;
    tsr_session_usage usage[TSR_SESSION_DEVICES]; /* devices it holds memory on */
    uint64_t abi_reserved[8];                     /* zero; room for later members (export.h) */
} tsr_session_info;

/* The open session with the smallest id above `after` (0 starts the
 * list): *found false when there is none. Every session is listed, this
 * one included, under the rule of who sees what described at
 * tsr_session_info (the same as tsr_admin_session_list's). */
TSR_API tsr_status tsr_session_list(tsr_client *client, uint32_t after, tsr_session_info *out,
                                    bool *found);

/* ==== Administration ===================================================
 * What the `tessera` command shows (ps, top, info, topo, stats). Devices
 * here, asked about and answered, are numbered by the daemon's own
 * ordinals, not as this client sees them (the daemon's devices.visible and
 * TESSERA_VISIBLE_DEVICES both renumber): tsr_device_properties'
 * daemon_index translates a device this client sees. The daemon decides what each caller may
 * see from the connection's credentials: uid 0 and members of the
 * `tessera-admin` group see every session in full; anyone else sees its
 * own uid's sessions in full and only the numbers of the others. */

#define TSR_ID_HIDDEN UINT32_MAX /* uid or gid of a session the caller may not see */

typedef struct tsr_process_usage {
    tsr_device device;  /* the daemon's numbering */
    uint64_t allocated; /* bytes in live allocations */
    uint64_t reserved;  /* bytes in segments, cache included */
    uint64_t limit;     /* the most the session may reserve on the device */
} tsr_process_usage;

typedef struct tsr_process_info {
    uint32_t session_id;
    bool visible;           /* false: another user's session; only the numbers are filled */
    bool self;              /* the calling session */
    bool pid_known;         /* pid is the process's pid in the caller's pid namespace */
    uint32_t pid;           /* as the caller's pid namespace numbers it; 0: not in it or unknown */
    uint32_t uid, gid;      /* TSR_ID_HIDDEN when not visible */
    uint64_t pid_namespace; /* inode of the process's pid namespace; 0 unknown */
    char command[64];       /* /proc/PID/comm; "" when not visible */
    char name[64];          /* what the client called itself */
    char unit[128];         /* systemd unit, "" none or not visible */
    char cgroup[512];       /* cgroup v2 path, "" unknown or not visible */
    tsr_device current_device; /* of its main thread */
    uint32_t threads;          /* threads that chose a device */
    uint64_t requests;         /* served so far */
    uint64_t started_unix_ns;  /* 0 when not visible */
    uint32_t usage_count;
    tsr_process_usage usage[TSR_SESSION_DEVICES]; /* devices it holds memory on */
    /* Launches queued or running, not yet finished; and whether the
     * connection is over (the client exited or closed it) while some still
     * run: the session stays listed, with its memory, until they are done. */
    uint32_t kernels;
    bool ending;
    /* Kernels it has queued on devices so far, and its share of their busy
     * time: each device's busy time (see tsr_device_status) goes to the
     * session whose kernel kept it busy, so the shares of all sessions add
     * up to the device's. */
    uint64_t launches;
    uint64_t busy_ns;
    /* User kernels (kernel.h): the programs it holds, on every device,
     * and the kernels.* limits of the daemon's configuration in force for
     * it. max_programs is 0 where kernels.user is off. */
    uint32_t programs;
    uint32_t max_programs;        /* kernels.max_programs */
    uint64_t max_source_bytes;    /* kernels.max_source_bytes */
    uint64_t build_memory;        /* kernels.build_memory */
    uint32_t build_time_limit_ms; /* kernels.build_time_limit_ms */
    uint32_t run_time_limit_ms;   /* kernels.run_time_limit_ms */
    uint64_t abi_reserved[1];     /* zero; room for later members (export.h) */
} tsr_process_info;

/* The session with the smallest id above `after` (0 starts the list), as
 * the caller may see it: *found false when there is none. Open sessions
 * are listed, this one too (self), and so are ending ones: a session whose
 * client went away while its kernels ran, which holds its memory until
 * the last of them is done. Errors: TSR_ERR_INVALID_ARGUMENT for NULL
 * arguments, TSR_ERR_CONNECTION, TSR_ERR_PROTOCOL. */
TSR_API tsr_status tsr_admin_session_list(tsr_client *client, uint32_t after, tsr_process_info *out,
                                          bool *found);

/* A session's allocator on one device, as PyTorch's memory_stats() names
 * its entries. Bytes unless named a count. */
typedef struct tsr_allocator_stats {
    uint64_t allocated, peak_allocated;           /* allocated_bytes.all.current / .peak */
    uint64_t reserved, peak_reserved;             /* reserved_bytes.all.* */
    uint64_t active, peak_active;                 /* active_bytes.all.* (= allocated: no streams) */
    uint64_t inactive_split;                      /* inactive_split_bytes.all.current */
    uint64_t inactive_split_blocks;               /* inactive_split.all.current (count) */
    uint64_t requested;                           /* requested_bytes.all.current */
    uint64_t live_blocks;                         /* allocation.all.current (count) */
    uint64_t allocations, frees;                  /* allocation.all.allocated / .freed (counts) */
    uint64_t segments;                            /* segment.all.current (count) */
    uint64_t segments_created, segments_released; /* num_device_alloc / num_device_free */
    uint64_t cache_hits;                          /* allocations served from the cache (count) */
    uint64_t ooms;                                /* num_ooms */
    uint64_t limit;                               /* the most the session may reserve */
    /* User kernels (kernel.h): the programs the session holds on the
     * device, and whether the kernel worker of its uid runs there, with
     * its pid as the caller's pid namespace numbers it (worker_pid_known;
     * 0 when not: another user's session to a caller who may not see it,
     * or a worker outside the caller's namespace). */
    uint32_t programs;
    uint32_t worker_pid;
    bool worker_running;
    bool worker_pid_known;
    uint64_t abi_reserved[6]; /* zero; room for later members (export.h) */
} tsr_allocator_stats;

/* Statistics of session `session_id` (0: the calling one) on an
 * accelerator; all zero but the limit when the session never allocated there.
 * Errors: TSR_ERR_INVALID_ARGUMENT for no such open session, or for cpu and
 * meta, whose memory the daemon does not manage; TSR_ERR_NO_DEVICE. */
TSR_API tsr_status tsr_admin_session_stats(tsr_client *client, uint32_t session_id,
                                           tsr_device device, tsr_allocator_stats *out);

/* What kind of processor a device is, whichever backend serves it. */
typedef enum tsr_device_kind {
    TSR_DEVICE_KIND_OTHER, /* none of the below, or not reported (cpu and meta) */
    TSR_DEVICE_KIND_CPU,   /* computes on the host's processors */
    TSR_DEVICE_KIND_GPU,
    TSR_DEVICE_KIND_ACCELERATOR /* a dedicated accelerator that is no GPU */
} tsr_device_kind;

#define TSR_BACKEND_NAME_MAX 16

typedef struct tsr_device_status {
    tsr_device device;
    uint64_t capacity;  /* what the daemon lends all sessions */
    uint64_t reserved;  /* held in segments by every session now */
    uint64_t allocated; /* in their live allocations */
    uint32_t sessions;  /* sessions holding memory on it */
    bool busy_sampled;  /* busy_ns is measured (always, with this daemon) */
    uint64_t busy_ns;   /* time the device had kernels submitted and not finished,
                            since the daemon's first launch; compare two calls:
                            (busy_ns delta) / (now_ns delta) */
    uint64_t now_ns;    /* the daemon's monotonic clock */
    /* What the discovery of the backend serving the device saw, in terms
     * every backend has (0, false and "" for cpu and meta, which no
     * backend serves). */
    uint64_t max_alloc_bytes;    /* the largest single allocation */
    uint64_t local_memory_bytes; /* memory a work-group shares */
    tsr_device_kind kind;
    uint32_t max_clock_mhz, mem_base_addr_align_bits;
    bool available, little_endian, has_uuid;
    uint8_t uuid[16];
    char backend_name[TSR_BACKEND_NAME_MAX]; /* the backend serving it: "opencl" */
    char platform_name[TSR_DEVICE_TEXT_MAX]; /* the driver platform it is found through */
    /* Backend-specific: details only the backend named in backend_name
     * has, read as that backend defines them. With "opencl": the device
     * type bits OpenCL reports (2 cpu, 4 gpu, 8 accelerator, ...), the
     * positions of its platform and of the device in OpenCL's enumeration,
     * and the OpenCL C version. */
    struct {
        uint64_t type_bits;
        uint32_t platform_index, device_index;
        char language_version[TSR_DEVICE_TEXT_MAX];
    } backend;
    uint64_t launches;        /* kernels queued on it since the daemon started */
    uint64_t programs_built;  /* programs compiled from source for it */
    uint64_t programs_loaded; /* programs taken from the daemon's disk cache instead */
    uint32_t kernel_workers;  /* user-kernel workers running for it (one per uid, kernel.h) */
    uint32_t user_programs;   /* user programs the sessions hold on it */
    /* Kernel programs asked for and not yet made (waiting for the
     * daemon's builder or being built or loaded from the disk cache):
     * launches meanwhile run on the device's generic programs. */
    uint32_t programs_pending;
    uint32_t abi_pad;         /* zero */
    uint64_t abi_reserved[3]; /* zero; room for later members (export.h) */
} tsr_device_status;

/* The live state of a device. Errors: TSR_ERR_NO_DEVICE. */
TSR_API tsr_status tsr_admin_device_status(tsr_client *client, tsr_device device,
                                           tsr_device_status *out);

/* The daemon's own counters, since it started: what `tessera metrics`
 * exports beside the devices and sessions. Anyone may ask. */
typedef struct tsr_daemon_stats {
    uint64_t started_unix_ns;
    uint64_t uptime_ns;
    uint64_t sessions_opened;  /* sessions that said HELLO */
    uint64_t sessions_refused; /* turned away at sessions.max or a per-uid cap */
    uint64_t monitors_opened;  /* monitoring connections (TSR_CLIENT_MONITOR) */
    uint64_t monitors_refused; /* turned away at sessions.max_monitors */
    uint64_t oom_refusals;     /* allocations refused because the device was full */
    uint64_t limit_refusals;   /* allocations refused at a configured memory limit */
    uint64_t reloads;          /* configuration reloads that took effect */
    uint64_t reload_failures;  /* reloads refused (the running configuration stayed) */
    uint32_t sessions;         /* open now, handshakes included */
    uint32_t monitors;         /* monitoring connections open now */
    uint64_t abi_reserved[8];  /* zero; room for later members (export.h) */
} tsr_daemon_stats;

/* The daemon's counters. Errors: TSR_ERR_INVALID_ARGUMENT, TSR_ERR_CONNECTION,
 * TSR_ERR_PROTOCOL. */
TSR_API tsr_status tsr_admin_daemon_stats(tsr_client *client, tsr_daemon_stats *out);

/* How two devices are connected, as `nvidia-smi topo -m` names it. */
typedef enum tsr_link {
    TSR_LINK_UNKNOWN, /* "-": no PCI location for one of them */
    TSR_LINK_SELF,    /* "X" */
    TSR_LINK_PIX,     /* at most one PCI bridge (switch) on each side */
    TSR_LINK_PXB,     /* several PCI bridges, no host bridge */
    TSR_LINK_PHB,     /* through a PCI host bridge */
    TSR_LINK_NODE,    /* between host bridges of one NUMA node */
    TSR_LINK_SYS      /* between NUMA nodes */
} tsr_link;

#define TSR_TOPOLOGY_DEVICES 64

typedef struct tsr_topology_row {
    tsr_device device;
    uint32_t count;                       /* accelerators: entries of links */
    uint32_t numa_nodes;                  /* of the machine */
    tsr_link links[TSR_TOPOLOGY_DEVICES]; /* links[k]: to the daemon's accelerator k */
    uint64_t abi_reserved[8];             /* zero; room for later members (export.h) */
} tsr_topology_row;

/* One row of the device matrix (an accelerator). Errors:
 * TSR_ERR_NO_DEVICE, TSR_ERR_INVALID_ARGUMENT for cpu and meta. */
TSR_API tsr_status tsr_admin_topology_row(tsr_client *client, tsr_device device,
                                          tsr_topology_row *out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_CLIENT_H */
