/* Kernel queues: launches, fills and waiting for them (client.h).
 *
 * Owns this client's view of the ring's queue records: per record the
 * newest launch it issued (`issued`, only ever raised) and how many kernel
 * errors it has reported (`errors_seen`), and per accelerator of the
 * session the record its launches report in (`queue_of`, -1 until the
 * first). A kernel error is reported once, to the first thread that
 * launches or synchronizes on that device after it. Calls down to
 * devices.c and transport.c only. */
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/ring.h"
#include "libclient/connection.h"

void tsr__queues_init(tsr_client *c)
{
    for (int32_t k = 0; k < TSR__MAX_VISIBLE; k++)
        c->queue_of[k] = -1;
}

/* The queue record kernels on a device (the session's numbering) report
 * in, -1 while this client has launched or queued nothing there. */
static int32_t queue_of(tsr_client *c, tsr__wire_device wd)
{
    return wd.index >= 0 && wd.index < TSR__MAX_VISIBLE ? atomic_load(&c->queue_of[wd.index]) : -1;
}

/* A kernel error the daemon recorded on queue q and no thread of this
 * client has reported yet; reported once. */
static tsr_status queue_error(tsr_client *c, uint32_t q)
{
    tsr__ring_queue *rq = &c->ring->queues[q];
    uint32_t errors = atomic_load_explicit(&rq->errors, memory_order_acquire);
    uint32_t seen = atomic_load(&c->errors_seen[q]);
    if (errors == seen || !atomic_compare_exchange_strong(&c->errors_seen[q], &seen, errors))
        return TSR_OK;
    char message[TSR__RING_QUEUE_MESSAGE];
    memcpy(message, rq->message, sizeof message);
    message[sizeof message - 1] = '\0';
    int32_t status = rq->status;
    if (status <= TSR_OK || status >= TSR_STATUS_COUNT)
        status = TSR_ERR_DEVICE;
    return tsr__fail_text((tsr_status)status, message);
}

/* Notes a launch or a queued fill on a device: its queue record, for
 * tsr__client_synchronize, and its sequence. */
static void note_queued(tsr_client *c, tsr__wire_device wd, const tsr__wire_launched *l)
{
    if (wd.index >= 0 && wd.index < TSR__MAX_VISIBLE && l->queue < TSR__RING_QUEUES)
        atomic_store(&c->queue_of[wd.index], (int32_t)l->queue);
    tsr__note_launch(c, l);
}

/* After a launch or fill whose call stopped waiting for its reply (a
 * timeout): the daemon may queue it all the same, and the reply, when it
 * comes, raises `issued` (transport.c). Where it would be the device's
 * first, its queue record is known from the registry already (the
 * daemon's ordinal of the device), so that a synchronize finds it. */
static void note_unanswered(tsr_client *c, tsr__wire_device wd)
{
    if (atomic_load(&c->dead) || wd.index < 0 || wd.index >= TSR__MAX_VISIBLE ||
        (uint32_t)wd.index + 1 >= c->device_count)
        return;
    const tsr__wire_device_info *i = &c->devices[1 + wd.index];
    int32_t q = (i->flags & TSR__WIRE_INFO_DAEMON_INDEX) ? i->daemon_index : wd.index;
    int32_t none = -1;
    if (q >= 0 && q < (int32_t)TSR__RING_QUEUES)
        atomic_compare_exchange_strong(&c->queue_of[wd.index], &none, q);
}

static tsr_status wait_queue(tsr_client *c, uint32_t q, uint32_t target);

/* Before a launch on queue q (-1: none yet): with TSR__RING_CLIENT_DEPTH
 * of this client's kernels queued there, waits until half of them are
 * done, as a CUDA launch waits on a full launch queue (the daemon refuses
 * a session more than TSR__RING_MAX_QUEUED). */
static tsr_status room_on(tsr_client *c, int32_t q)
{
    if (q < 0)
        return TSR_OK;
    uint32_t issued = atomic_load(&c->issued[q]);
    uint32_t done = atomic_load_explicit(&c->ring->queues[q].completed, memory_order_acquire);
    if ((int32_t)(issued - done) < (int32_t)TSR__RING_CLIENT_DEPTH)
        return TSR_OK;
    return wait_queue(c, (uint32_t)q, issued - TSR__RING_CLIENT_DEPTH / 2);
}

tsr_status tsr__client_fill(tsr_client *c, tsr_device device, uint64_t handle,
                            const tsr__region *region, const void *value)
{
    tsr__wire_device wd = {0};
    tsr_status dst = tsr__forked(c); /* before room_on reads the parent's ring */
    if (dst == TSR_OK)
        dst = tsr__client_daemon_device(c, device, &wd);
    if (dst != TSR_OK)
        return dst;
    tsr__wire_fill req = {.region = {.handle = handle,
                                     .itemsize = region->itemsize,
                                     .ndim = region->ndim,
                                     .offset = region->offset}};
    if (region->itemsize > sizeof req.value || region->ndim < 0 || region->ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "invalid fill region");
    memcpy(req.region.sizes, region->sizes, (size_t)region->ndim * sizeof(int64_t));
    memcpy(req.region.strides, region->strides, (size_t)region->ndim * sizeof(int64_t));
    memcpy(req.value, value, region->itemsize);
    tsr__wire_launched launched;
    tsr_status st = room_on(c, queue_of(c, wd));
    if (st == TSR_OK)
        st = tsr__client_call(c, TSR__OP_FILL, &req, &launched);
    if (st == TSR_OK)
        note_queued(c, wd, &launched);
    else if (st == TSR_ERR_CONNECTION)
        note_unanswered(c, wd);
    return st;
}

tsr_status tsr__client_launch(tsr_client *c, tsr_device d, const tsr__kernel *kernel)
{
    return tsr__client_launch_op(c, d, TSR__OP_LAUNCH, kernel);
}

tsr_status tsr__client_launch_op(tsr_client *c, tsr_device d, uint32_t opcode, const void *request)
{
    tsr__wire_device wd = {0};
    tsr_status st = tsr__forked(c); /* before room_on reads the parent's ring */
    if (st == TSR_OK)
        st = tsr__client_daemon_device(c, d, &wd);
    if (st != TSR_OK)
        return st;
    int32_t q = queue_of(c, wd);
    if (q >= 0 && (st = queue_error(c, (uint32_t)q)) != TSR_OK)
        return st;
    if ((st = room_on(c, q)) != TSR_OK)
        return st;
    tsr__wire_launched launched;
    st = tsr__client_call(c, opcode, request, &launched);
    if (st == TSR_ERR_CONNECTION)
        note_unanswered(c, wd);
    if (st != TSR_OK)
        return st;
    note_queued(c, wd, &launched);
    return TSR_OK;
}

/* Waits until queue q has completed `target`: a spin, then futex sleeps
 * in steps that look for a dead daemon. No deadline: a kernel may run as
 * long as it needs.
 *
 * The spin adapts as the ring transport's does (transport.c): a kernel
 * that completes while the caller spins makes the next spin 4 times
 * longer plus 2 us, up to TSR__WAIT_SPIN_NS, one that needs the futex
 * halves it, and every WAIT_PROBE_EVERY-th wait spins the full length.
 * A small kernel on PoCL's CPU device completes 10-30 us after its
 * launch, behind the driver's hand-off to its worker thread; a wait that
 * sleeps then pays the futex wake-up of an idle CPU on top (on a 2-CPU
 * virtual machine a 1-element add and its synchronize took 30-45 us
 * with a fixed 20 us spin, 22-29 us spinning up to 100 us), while
 * kernels that run for milliseconds soon leave the caller sleeping at
 * once. */
#define WAIT_PROBE_EVERY 64

static tsr_status wait_queue(tsr_client *c, uint32_t q, uint32_t target)
{
    static _Thread_local uint32_t waits;
    tsr__ring_queue *rq = &c->ring->queues[q];
    uint64_t start = tsr__now_ns();
    uint32_t spin_ns = atomic_load_explicit(&c->wait_spin_ns, memory_order_relaxed);
    uint64_t limit = waits++ % WAIT_PROBE_EVERY == 0 ? TSR__WAIT_SPIN_NS : spin_ns;
    for (unsigned spin = 0; limit > 0; spin++) {
        if ((int32_t)(atomic_load_explicit(&rq->completed, memory_order_acquire) - target) >= 0) {
            uint32_t grown = 4 * spin_ns + 2000;
            grown = grown < TSR__WAIT_SPIN_NS ? grown : TSR__WAIT_SPIN_NS;
            if (grown != spin_ns)
                atomic_store_explicit(&c->wait_spin_ns, grown, memory_order_relaxed);
            return TSR_OK;
        }
        tsr__cpu_relax();
        if ((spin & 15) == 15 && tsr__now_ns() - start > limit)
            break;
    }
    if (spin_ns / 2 != spin_ns)
        atomic_store_explicit(&c->wait_spin_ns, spin_ns / 2, memory_order_relaxed);
    tsr_status st = TSR_OK;
    atomic_fetch_add(&rq->waiting, 1u); /* a count: other threads may wait on q too */
    uint64_t checked = tsr__now_ns();
    for (;;) {
        uint32_t done = atomic_load(&rq->completed);
        if ((int32_t)(done - target) >= 0)
            break;
        struct timespec step = {.tv_sec = 0, .tv_nsec = TSR__SLEEP_STEP_NS};
        syscall(SYS_futex, (uint32_t *)&rq->completed, FUTEX_WAIT, done, &step, NULL, 0);
        if (atomic_load(&c->dead) || (tsr__step_passed(&checked) && tsr__socket_hung_up(c))) {
            st = tsr__daemon_gone(c);
            break;
        }
    }
    atomic_fetch_sub(&rq->waiting, 1u);
    return st;
}

tsr_status tsr__client_synchronize(tsr_client *c, tsr_device d)
{
    tsr__wire_device wd = {0};
    tsr_status st = tsr__forked(c); /* the ring's queues are the parent's */
    if (st == TSR_OK)
        st = tsr__client_daemon_device(c, d, &wd);
    /* Launches whose calls gave up waiting may have been queued since. */
    if (st == TSR_OK)
        st = tsr__transport_settle(c);
    int32_t record = st == TSR_OK ? queue_of(c, wd) : -1;
    if (record < 0)
        return st;
    uint32_t q = (uint32_t)record;
    uint32_t target = atomic_load(&c->issued[q]);
    if (target != 0 && (st = wait_queue(c, q, target)) != TSR_OK)
        return st;
    return queue_error(c, q);
}
