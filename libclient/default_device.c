/* The default device of factory functions (torch.set_default_device and
 * `with torch.device(d):`): a process-wide value and, over it, a stack of
 * scopes per thread. The innermost pushed scope wins, then the process-wide
 * value, then cpu.
 *
 * The process-wide value is one atomic word, so readers on any thread never
 * lock; each thread's stack is its own (thread-local), as Python's device
 * contexts are per thread. */
#include <stdatomic.h>
#include <stdint.h>

#include "core/error.h"
#include "tessera/client.h"

/* 0: none set; else bit 63 | type << 32 | (uint32_t)index. */
static _Atomic uint64_t process_default;

static _Thread_local tsr_device scope_stack[TSR_DEFAULT_DEVICE_DEPTH];
static _Thread_local int scope_depth;

#define SET_BIT (UINT64_C(1) << 63)

static tsr_status check_device(tsr_device d)
{
    if ((unsigned)d.type >= TSR_DEVICE_TYPE_COUNT || d.index < -1 || d.index > TSR_DEVICE_INDEX_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid device (type %d, index %d)",
                         (int)d.type, (int)d.index);
    return TSR_OK;
}

tsr_status tsr_set_default_device(const tsr_device *device)
{
    if (device == NULL) {
        atomic_store(&process_default, 0);
        return TSR_OK;
    }
    tsr_status st = check_device(*device);
    if (st != TSR_OK)
        return st;
    atomic_store(&process_default,
                 SET_BIT | (uint64_t)device->type << 32 | (uint32_t)device->index);
    return TSR_OK;
}

tsr_status tsr_get_default_device(tsr_client *client, tsr_device *out)
{
    if (out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "output must not be NULL");
    tsr_device d = {TSR_DEVICE_CPU, -1};
    uint64_t word = atomic_load(&process_default);
    if (scope_depth > 0)
        d = scope_stack[scope_depth - 1];
    else if (word & SET_BIT)
        d = (tsr_device){(tsr_device_type)((word >> 32) & 0xff), (int32_t)(uint32_t)word};
    /* get_default_device answers an index-less accelerator with the
     * current device (torch.tensor([]).device); cpu and meta keep none. */
    if (client != NULL && d.index < 0 && d.type != TSR_DEVICE_CPU && d.type != TSR_DEVICE_META)
        return tsr_current_device(client, d.type, out);
    *out = d;
    return TSR_OK;
}

tsr_status tsr_default_device_push(tsr_device device)
{
    tsr_status st = check_device(device);
    if (st != TSR_OK)
        return st;
    if (scope_depth >= TSR_DEFAULT_DEVICE_DEPTH)
        return tsr__fail(TSR_ERR_LIMIT, "default device scopes nest at most %d deep on a thread",
                         TSR_DEFAULT_DEVICE_DEPTH);
    scope_stack[scope_depth++] = device;
    return TSR_OK;
}

tsr_status tsr_default_device_pop(void)
{
    if (scope_depth == 0)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "tsr_default_device_pop: no default device scope is open on this thread");
    scope_depth--;
    return TSR_OK;
}
