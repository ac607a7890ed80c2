/* See worker_wire.h: the checks each side makes of a packet from the
 * other. The worker believes the daemon but bounds every index and size
 * it will use; the daemon believes nothing of a worker, which runs a
 * user's code, beyond a status and texts it has bounded here. Compiled
 * into tesserad and into each backend's worker executable. */
#include "daemon/worker_wire.h"

#include <string.h>

#include "core/ring.h"

/* ---- the worker's side -------------------------------------------------- */

uint32_t tsr__worker_request_read(tsr__worker_request *m, size_t len, bool cut, int nfds)
{
    if (cut || len < sizeof m->op || len > sizeof *m)
        return 0;
    switch (m->op) {
    case TSR__WORKER_BUILD:
        if (len != sizeof m->build || nfds != 1 || m->build.source_bytes == 0 ||
            m->build.format > TSR__WIRE_PROGRAM_FORMAT_SPIRV)
            return 0;
        m->build.options[sizeof m->build.options - 1] = '\0';
        return TSR__WORKER_BUILD;
    case TSR__WORKER_LAUNCH:
        return len == sizeof m->launch && tsr__worker_launch_segments_ok(&m->launch, nfds)
                   ? TSR__WORKER_LAUNCH
                   : 0;
    case TSR__WORKER_RELEASE:
        return len == sizeof m->release && nfds == 0 ? TSR__WORKER_RELEASE : 0;
    case TSR__WORKER_FORGET:
        return len == sizeof m->forget && nfds == 0 ? TSR__WORKER_FORGET : 0;
    default:
        return 0;
    }
}

bool tsr__worker_launch_segments_ok(const tsr__worker_launch *l, int nfds)
{
    if (l->nsegments > TSR__WORKER_LAUNCH_FDS ||
        (l->nsegments < 64 && (l->fresh >> l->nsegments) != 0) ||
        __builtin_popcountll(l->fresh) != nfds)
        return false;
    uint64_t seen = 0;
    for (uint32_t j = 0; j < l->nsegments; j++) {
        if (l->slots[j] >= TSR__WORKER_SEGMENTS || (seen >> l->slots[j] & 1u))
            return false;
        seen |= UINT64_C(1) << l->slots[j];
    }
    return true;
}

/* A tensor argument: in one of the launch's segments other than its ring,
 * its range inside the segment's bytes (no sum that can wrap). */
static bool tensor_ok(const tsr__worker_launch *l, const tsr__worker_arg *arg)
{
    if (arg->segment >= l->nsegments || arg->segment == l->ring ||
        arg->offset > arg->segment_bytes || arg->extent > arg->segment_bytes - arg->offset)
        return false;
    for (uint32_t a = 0; a < l->nargs; a++) {
        const tsr__worker_arg *other = &l->args[a];
        if ((other->kind == TSR__KARG_GLOBAL || other->kind == TSR__KARG_CONSTANT) &&
            other->segment == arg->segment && other->segment_bytes != arg->segment_bytes)
            return false;
    }
    return true;
}

bool tsr__worker_launch_ok(const tsr__worker_launch *l)
{
    if (l->nargs > TSR__WIRE_KERNEL_ARGS || l->work_dim < 1 || l->work_dim > 3 ||
        l->nsegments > TSR__WORKER_LAUNCH_FDS ||
        (l->ring != UINT32_MAX && (l->ring >= l->nsegments || l->ring_queue >= TSR__RING_QUEUES)))
        return false;
    for (uint32_t d = 0; d < l->work_dim; d++)
        if (l->global[d] == 0 || l->global[d] > (UINT64_C(1) << 40) || l->local[d] > l->global[d])
            return false;
    for (uint32_t a = 0; a < l->nargs; a++) {
        const tsr__worker_arg *arg = &l->args[a];
        bool ok = false;
        switch (arg->kind) {
        case TSR__KARG_GLOBAL:
        case TSR__KARG_CONSTANT:
            ok = tensor_ok(l, arg);
            break;
        case TSR__KARG_LOCAL:
            ok = arg->offset >= 1 && arg->offset <= (UINT64_C(1) << 30);
            break;
        case TSR__KARG_VALUE:
            ok = arg->size >= 1 && arg->size <= sizeof arg->value;
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* ---- the daemon's side -------------------------------------------------- */

bool tsr__worker_answer_ok(const tsr__worker_answer *m, size_t len, uint32_t op, uint32_t id)
{
    if (len < sizeof m->op || len > sizeof *m || m->op != op)
        return false;
    switch (op) {
    case TSR__WORKER_DONE:
        return len == sizeof m->done && m->done.launch == id;
    case TSR__WORKER_BUILT:
        return len >= offsetof(tsr__worker_built, kernels) && m->built.program == id;
    case TSR__WORKER_LOADED:
        return len == sizeof m->loaded && m->loaded.program == id;
    default:
        return false;
    }
}

int32_t tsr__worker_done_read(tsr__worker_done *d)
{
    d->message[sizeof d->message - 1] = '\0';
    if (d->status < TSR_OK || d->status >= TSR_STATUS_COUNT)
        d->status = TSR_ERR_DEVICE;
    return d->status;
}

int32_t tsr__worker_loaded_read(tsr__worker_loaded *l)
{
    l->message[sizeof l->message - 1] = '\0';
    if (l->status < TSR_OK || l->status >= TSR_STATUS_COUNT)
        l->status = TSR_ERR_DEVICE;
    return l->status;
}

static void kernel_read(tsr__worker_kernel *k)
{
    k->name[sizeof k->name - 1] = '\0';
    if (k->nargs > TSR__WIRE_KERNEL_ARGS)
        k->nargs = 0;
    for (uint32_t a = 0; a < TSR__WIRE_KERNEL_ARGS; a++) {
        tsr__wire_kernel_arg *arg = &k->args[a];
        arg->type[sizeof arg->type - 1] = arg->name[sizeof arg->name - 1] = '\0';
        if (arg->kind >= TSR__KARG_KINDS || arg->size > 16)
            arg->kind = TSR__KARG_VALUE, arg->size = 0;
    }
}

int32_t tsr__worker_built_read(tsr__worker_built *b, size_t len)
{
    uint32_t n = b->nkernels <= TSR__WORKER_KERNELS ? b->nkernels : 0;
    size_t want = offsetof(tsr__worker_built, kernels) + n * sizeof b->kernels[0];
    if (b->status == TSR_OK && len != want)
        b->status = TSR_ERR_DEVICE;
    else if (b->status < TSR_OK || b->status >= TSR_STATUS_COUNT)
        b->status = TSR_ERR_DEVICE;
    uint32_t log = b->log_length < sizeof b->log ? b->log_length : sizeof b->log - 1;
    b->log[log] = '\0';
    b->log_length = (uint32_t)strlen(b->log);
    b->nkernels = b->status == TSR_OK ? n : 0;
    for (uint32_t k = 0; k < b->nkernels; k++)
        kernel_read(&b->kernels[k]);
    return b->status;
}
