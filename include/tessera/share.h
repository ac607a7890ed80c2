/* Sharing tensors between processes.
 *
 * tsr_tensor_export turns an accelerator tensor into a handle: a
 * capability of 128 random bits (from getrandom) and an id, which another
 * process passes to tsr_tensor_import to get a tensor over the same
 * memory (no copy; the same dtype, sizes, strides and storage offset).
 * Handles travel by any means: tsr_export_handle_str writes their fixed
 * text form (for a pipe, a file, an environment variable) and
 * tsr_export_handle_parse reads it back, strictly.
 *
 * Lifetime: the memory lives while any session holds it: the exporter
 * (until it releases the tensor or its client ends) and each import
 * (until its last view is released). The exporter may exit first; until
 * the last import goes, its memory stays charged to the exporter's uid
 * and group, and `tessera ps` lists its session as ending. A handle can
 * be imported only while the exporter still holds the tensor.
 *
 * Access: by default only processes of the exporter's uid may import; an
 * export may name one more uid and one group (primary or supplementary)
 * allowed to import it, and may be read-only: the importer's mapping is
 * made from a read-only descriptor (a write through it faults), and the
 * daemon refuses kernels and fills that would write it
 * (TSR_ERR_PERMISSION). tsr_export_revoke refuses every later import;
 * imports made before stay valid until released.
 *
 * What an importer sees: the tensor's memory and nothing else of the
 * exporter's, then or later. A device tensor's memory is alone in its
 * shared-memory segment from its first export on. One with no other live
 * tensor in its segment (usually a large one) is exported where it is,
 * and the rest of that segment stays reserved to it until it is freed.
 * One among others (small tensors share segments) moves first: a copy on
 * the device, which needs room for a second copy while it runs; the
 * tensor and its views follow, as share_memory_ moves a cpu tensor. A
 * DLPack export made before keeps the old memory; a pointer from
 * tsr_tensor_data_ptr taken before does not (the library may give that
 * memory to the next tensor). No other thread may use the tensor during
 * that first export.
 *
 * Ordering: tsr_tensor_export waits for the kernels the exporting client
 * queued on the tensor's device, so an importer sees every write made
 * before the export. Writes made after it (by either side) are ordered
 * by the writer: tsr_synchronize (or a host copy, which waits) on the
 * writer's side, then any message to the other process.
 *
 * Devices: tensors on accelerators the host shares memory with (PoCL,
 * integrated GPUs) are shared in place. On a device with memory of its
 * own the daemon's host mirror of the memory is what is shared, and it is
 * current whenever no kernel is in flight: each kernel copies its
 * operands in and its output back. A cpu tensor lives in the process's
 * own memory until tsr_tensor_share_memory_ moves it to a memfd the
 * daemon made (torch's share_memory_()); then it is exported and
 * imported like the others, as a cpu tensor on both sides. Its pages
 * are charged by the kernel to the memory cgroup of the process that
 * first wrote them (the exporter, as it copies the elements in), not to
 * tesserad's device limits, and stay while any mapping or the daemon's
 * descriptor does. A tensor imported read-only is mapped read-only: the
 * library refuses to write it (TSR_ERR_PERMISSION), and a write through
 * its data pointer faults. */
#ifndef TESSERA_SHARE_H
#define TESSERA_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/client.h"
#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A capability: passed by value, never changes. */
typedef struct tsr_export_handle {
    uint64_t id;
    uint8_t secret[16];
} tsr_export_handle;

/* "tsr-export-1-" 16 lowercase hex digits (the id), "-", 32 (the secret):
 * 62 characters and a NUL. */
#define TSR_EXPORT_HANDLE_STR_MAX 63

/* tsr_export_options.flags */
#define TSR_EXPORT_READ_ONLY (UINT64_C(1) << 0) /* importers may not write it */
#define TSR_EXPORT_ALLOW_UID (UINT64_C(1) << 1) /* allow_uid may import it too */
#define TSR_EXPORT_ALLOW_GID (UINT64_C(1) << 2) /* members of allow_gid may import it too */

typedef struct tsr_export_options {
    uint64_t flags; /* TSR_EXPORT_*; 0: read-write, the exporter's uid only */
    uint32_t allow_uid;
    uint32_t allow_gid;
    uint64_t abi_reserved[6]; /* zero; room for later members (export.h) */
} tsr_export_options;

/* Exports `tensor` (an accelerator tensor, or a cpu tensor in shared
 * memory; options NULL: the defaults) after waiting for the kernels its
 * client queued on its device. Each call makes a new handle. Errors:
 * TSR_ERR_NOT_SUPPORTED for meta tensors, cpu tensors in the process's
 * own memory and imported tensors, TSR_ERR_INVALID_ARGUMENT for unknown
 * flags or reserved words that are not zero, the daemon's. */
TSR_API tsr_status tsr_tensor_export(const tsr_tensor *tensor, const tsr_export_options *options,
                                     tsr_export_handle *out);

/* Moves a cpu tensor's storage into shared memory tesserad hands out, as
 * torch's share_memory_() does: the elements are copied once, and every
 * tensor viewing the storage uses the new memory from then on (a data
 * pointer taken before is stale; do not call it while another thread
 * uses the tensor). The memory is a memfd the daemon made for this
 * client's session; tsr_tensor_export can then share it. Nothing to do
 * for accelerator tensors (their memory is tesserad's already) and for
 * cpu tensors already shared. TSR_ERR_NOT_SUPPORTED for memory the
 * library does not own (a DLPack import). */
TSR_API tsr_status tsr_tensor_share_memory_(tsr_client *client, tsr_tensor *tensor);

/* Whether the tensor's memory can be shared with other processes as it
 * is: accelerator memory, cpu memory moved to shared memory, imports. */
TSR_API bool tsr_tensor_is_shared(const tsr_tensor *tensor);

/* A tensor over the memory `handle` names, in this client's session, on
 * the device as this client numbers it. Errors: TSR_ERR_INVALID_ARGUMENT
 * for a handle the daemon did not issue or whose tensor was released
 * (the same message for both), TSR_ERR_PERMISSION for an export revoked
 * or not shared with this uid, TSR_ERR_NO_DEVICE for a device this client
 * does not see, TSR_ERR_PROTOCOL for a reply that fails a check. */
TSR_API tsr_status tsr_tensor_import(tsr_client *client, const tsr_export_handle *handle,
                                     tsr_tensor **out);

/* Refuses every later import of the export (the exporter's uid, or an
 * administrator). Imports made before stay valid. */
TSR_API tsr_status tsr_export_revoke(tsr_client *client, const tsr_export_handle *handle);

/* Writes the handle's text form into buf (n bytes, cut and terminated
 * when short); returns its length, 62, as snprintf does. */
TSR_API size_t tsr_export_handle_str(const tsr_export_handle *handle, char *buf, size_t n);

/* Reads the text form, exactly: the prefix, lowercase hex digits of the
 * right counts, nothing before or after. TSR_ERR_INVALID_ARGUMENT
 * otherwise (the message says where it fails). */
TSR_API tsr_status tsr_export_handle_parse(const char *text, tsr_export_handle *out);

/* One export, as tsr_admin_share_list tells it (`tessera shares`). */
#define TSR_SHARE_HOLDERS 16
typedef struct tsr_share_info {
    uint64_t id;         /* the handle's id (never its secret) */
    uint32_t session_id; /* the exporting session ('tessera ps' lists it) */
    uint32_t uid;        /* the exporter's uid; UINT32_MAX when the asker may not see it */
    tsr_device device;   /* the daemon's ordinal, as 'tessera devices' lists it */
    uint64_t bytes;      /* the exported block's size */
    uint32_t imports;    /* live imports of it, in any session */
    bool read_only;
    bool revoked;          /* later imports are refused */
    bool released;         /* its exporter freed it or ended: only imports hold it now */
    uint32_t holder_count; /* entries of holders in use */
    uint32_t holders[TSR_SHARE_HOLDERS]; /* sessions holding imports of it */
    uint64_t abi_reserved[4];            /* zero; room for later members (export.h) */
} tsr_share_info;

/* The export with the smallest id above `after` (0: the first) and
 * whether more follow; TSR_ERR_INDEX when there is none. Every export is
 * listed; who made it (uid) is told to root, to members of tessera-admin
 * and to its own uid, as tsr_admin_session_list tells it. A monitoring
 * connection may ask. */
TSR_API tsr_status tsr_admin_share_list(tsr_client *client, uint64_t after, tsr_share_info *out,
                                        bool *more);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_SHARE_H */
