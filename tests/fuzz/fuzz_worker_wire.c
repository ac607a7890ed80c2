/* Fuzz target: the packets between tesserad and a kernel worker
 * (daemon/worker_wire.h), as each side reads the other's.
 *
 * The input's first byte picks the side. Bit 0 clear: the worker reading
 * a request, bits 2-7 the descriptors that came with it, bit 1 that more
 * were cut. Bit 0 set: the daemon reading an answer, bit 1 that it waits
 * for a launch's DONE, else bit 2 for a program's LOADED (else a build's
 * BUILT), and the next 4 bytes the launch's or program's number. The rest is the packet, as long as it is
 * (the receive buffer takes what fits, as recv does).
 *
 * Whatever a side accepts must hold what the code after it relies on:
 * the worker, slots and descriptors that agree and, in a launch that is in
 * bounds, every tensor's range inside its segment, one size per segment;
 * the daemon, a status of tsr_status, a log and every kernel's texts
 * NUL-terminated, counts in their bounds, and a success's kernels filling
 * the packet exactly. */
#include <stdlib.h>
#include <string.h>

#include "core/ring.h"
#include "daemon/worker_wire.h"
#include "fuzz.h"

static bool terminated(const char *text, size_t size)
{
    return memchr(text, '\0', size) != NULL;
}

static void check_request(tsr__worker_request *m, size_t len, bool cut, int nfds)
{
    uint32_t kind = tsr__worker_request_read(m, len, cut, nfds);
    if (kind == 0)
        return;
    FUZZ_CHECK(!cut && len <= sizeof *m && kind == m->op);
    if (kind == TSR__WORKER_BUILD) {
        FUZZ_CHECK(len == sizeof m->build && nfds == 1 && m->build.source_bytes > 0);
        FUZZ_CHECK(terminated(m->build.options, sizeof m->build.options));
        return;
    }
    if (kind == TSR__WORKER_RELEASE) {
        FUZZ_CHECK(len == sizeof m->release && nfds == 0);
        return;
    }
    if (kind == TSR__WORKER_FORGET) {
        FUZZ_CHECK(len == sizeof m->forget && nfds == 0);
        return;
    }
    FUZZ_CHECK(kind == TSR__WORKER_LAUNCH && len == sizeof m->launch);
    const tsr__worker_launch *l = &m->launch;
    FUZZ_CHECK(l->nsegments <= TSR__WORKER_LAUNCH_FDS);
    uint64_t slots = 0;
    int fresh = 0;
    for (uint32_t j = 0; j < l->nsegments; j++) {
        FUZZ_CHECK(l->slots[j] < TSR__WORKER_SEGMENTS && !(slots >> l->slots[j] & 1u));
        slots |= UINT64_C(1) << l->slots[j];
        fresh += (int)(l->fresh >> j & 1u);
    }
    FUZZ_CHECK(fresh == nfds && __builtin_popcountll(l->fresh) == nfds);
    if (!tsr__worker_launch_ok(l))
        return;
    FUZZ_CHECK(l->nargs <= TSR__WIRE_KERNEL_ARGS && l->work_dim >= 1 && l->work_dim <= 3);
    FUZZ_CHECK(l->ring == UINT32_MAX ||
               (l->ring < l->nsegments && l->ring_queue < TSR__RING_QUEUES));
    uint64_t bytes[TSR__WORKER_LAUNCH_FDS] = {0};
    for (uint32_t a = 0; a < l->nargs; a++) {
        const tsr__worker_arg *arg = &l->args[a];
        FUZZ_CHECK(arg->kind < TSR__KARG_KINDS);
        if (arg->kind == TSR__KARG_VALUE)
            FUZZ_CHECK(arg->size >= 1 && arg->size <= sizeof arg->value);
        if (arg->kind != TSR__KARG_GLOBAL && arg->kind != TSR__KARG_CONSTANT)
            continue;
        FUZZ_CHECK(arg->segment < l->nsegments && arg->segment != l->ring);
        unsigned __int128 end = (unsigned __int128)arg->offset + arg->extent;
        FUZZ_CHECK(end <= arg->segment_bytes);
        FUZZ_CHECK(!bytes[arg->segment] || bytes[arg->segment] == arg->segment_bytes);
        bytes[arg->segment] = arg->segment_bytes;
    }
}

static void check_answer(tsr__worker_answer *m, size_t len, uint32_t op, uint32_t id)
{
    if (!tsr__worker_answer_ok(m, len, op, id))
        return;
    FUZZ_CHECK(len <= sizeof *m && m->op == op);
    if (op == TSR__WORKER_LOADED) {
        FUZZ_CHECK(len == sizeof m->loaded && m->loaded.program == id);
        int32_t status = tsr__worker_loaded_read(&m->loaded);
        FUZZ_CHECK(status >= TSR_OK && status < TSR_STATUS_COUNT && status == m->loaded.status);
        FUZZ_CHECK(terminated(m->loaded.message, sizeof m->loaded.message));
        return;
    }
    if (op == TSR__WORKER_DONE) {
        FUZZ_CHECK(m->op == TSR__WORKER_DONE && len == sizeof m->done && m->done.launch == id);
        int32_t status = tsr__worker_done_read(&m->done);
        FUZZ_CHECK(status >= TSR_OK && status < TSR_STATUS_COUNT && status == m->done.status);
        FUZZ_CHECK(terminated(m->done.message, sizeof m->done.message));
        return;
    }
    FUZZ_CHECK(m->op == TSR__WORKER_BUILT && m->built.program == id);
    tsr__worker_built *b = &m->built;
    int32_t status = tsr__worker_built_read(b, len);
    FUZZ_CHECK(status >= TSR_OK && status < TSR_STATUS_COUNT && status == b->status);
    FUZZ_CHECK(b->log_length < sizeof b->log && strlen(b->log) == b->log_length);
    FUZZ_CHECK(b->nkernels <= TSR__WORKER_KERNELS);
    if (status != TSR_OK) {
        FUZZ_CHECK(b->nkernels == 0);
        return;
    }
    FUZZ_CHECK(len == offsetof(tsr__worker_built, kernels) + b->nkernels * sizeof b->kernels[0]);
    for (uint32_t k = 0; k < b->nkernels; k++) {
        const tsr__worker_kernel *kernel = &b->kernels[k];
        FUZZ_CHECK(terminated(kernel->name, sizeof kernel->name));
        FUZZ_CHECK(kernel->nargs <= TSR__WIRE_KERNEL_ARGS);
        for (uint32_t a = 0; a < TSR__WIRE_KERNEL_ARGS; a++) {
            const tsr__wire_kernel_arg *arg = &kernel->args[a];
            FUZZ_CHECK(arg->kind < TSR__KARG_KINDS && arg->size <= 16);
            FUZZ_CHECK(terminated(arg->type, sizeof arg->type));
            FUZZ_CHECK(terminated(arg->name, sizeof arg->name));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t how = data[0];
    data++, size--;
    uint32_t id = 0;
    if (how & 1u) {
        if (size < sizeof id)
            return 0;
        memcpy(&id, data, sizeof id);
        data += sizeof id, size -= sizeof id;
    }
    /* A receive buffer as each side has one: what fits of the packet,
     * zeros after it (a static buffer's state before its first packet). */
    union {
        tsr__worker_request request;
        tsr__worker_answer answer;
    } *buf = calloc(1, sizeof *buf);
    if (!buf)
        return 0;
    size_t room = how & 1u ? sizeof buf->answer : sizeof buf->request;
    memcpy(buf, data, size < room ? size : room);
    if (how & 1u)
        check_answer(&buf->answer, size,
                     how & 2u   ? TSR__WORKER_DONE
                     : how & 4u ? TSR__WORKER_LOADED
                                : TSR__WORKER_BUILT,
                     id);
    else
        check_request(&buf->request, size, how & 2u, how >> 2);
    free(buf);
    return 0;
}
