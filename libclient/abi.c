/* The sizes of the public structs, fixed for good (tessera/export.h).
 *
 * A program compiled against any earlier header passes and receives
 * structs of these sizes, so none may change: a member added to a struct
 * takes words from its abi_reserved, and a change that moves its end
 * fails to build here. The figures are for LP64 targets (pointers and
 * size_t of 8 bytes), the only ones libtessera is built for today. */
#include <stddef.h>
#include <stdint.h>

#include "tessera/tessera.h"

/* X(struct, its size, where its reserved words start) */
#define TSR__ABI_STRUCTS(X)              \
    X(tsr_client_options, 96, 40)        \
    X(tsr_device_properties, 1488, 1440) \
    X(tsr_memory_stats, 168, 104)        \
    X(tsr_session_info, 632, 568)        \
    X(tsr_process_info, 1416, 1408)      \
    X(tsr_allocator_stats, 208, 160)     \
    X(tsr_device_status, 712, 680)       \
    X(tsr_topology_row, 336, 272)        \
    X(tsr_daemon_stats, 152, 88)         \
    X(tsr_cast_options, 80, 16)          \
    X(tsr_tensor_options, 96, 32)        \
    X(tsr_export_options, 64, 16)        \
    X(tsr_share_info, 144, 112)          \
    X(tsr_kernel_arg, 104, 72)

#if UINTPTR_MAX == UINT64_MAX
#define TSR__ABI_CHECK(type, size, reserved_at)                                                \
    _Static_assert(sizeof(type) == (size), #type " changed size: take the new member's room "  \
                                                 "from abi_reserved");                         \
    _Static_assert(offsetof(type, abi_reserved) + sizeof(((type *)0)->abi_reserved) == (size), \
                   #type ": abi_reserved must stay its last member");                          \
    _Static_assert(offsetof(type, abi_reserved) >= (reserved_at),                              \
                   #type ": abi_reserved may only shrink");
TSR__ABI_STRUCTS(TSR__ABI_CHECK)
#endif

typedef int tsr__abi_checked;
