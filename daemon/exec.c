/* See exec.h. One executor per daemon, made at the first launch: the
 * backend's runtime (its driver) is loaded into the daemon only when a
 * client computes on a device, and never when discovery saw a driver
 * misbehave. */
#include "daemon/exec.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/error.h"
#include "daemon/lifetime.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/share.h"
#include "daemon/backend.h"
#include "kernels/cpu_exec.h"
#include "kernels/launch.h"
typedef struct tsr__exec_job {
    struct tsr__executor *x;         /* its executor */
    struct tsr__exec_job *next;      /* in its session's lane, then among the spare jobs */
    struct tsr__exec_job *done_next; /* on the finished stack (a job between pieces is on both) */
    /* among the jobs on the device (submitted, not retired) */
    struct tsr__exec_job *on_prev, *on_next;
    uint64_t submit_ns;       /* 0 until given to the driver */
    bool on_host;             /* given to a device that computes on this machine's CPUs */
    _Atomic uint64_t done_ns; /* 0 until the driver reported it finished */
    tsr__session *session;
    uint32_t queue, sequence;
    tsr__backend_program *program;
    uint32_t segments[TSR__KERNEL_MAX_OPERANDS]; /* of launch.buffers, resolved at enqueue */
    tsr__backend_launch launch;
    uint64_t next_piece; /* of launch.geometry's pieces: the first not given to the driver */
    bool resume;         /* handed back between two pieces, not finished */
    bool in_driver;      /* a piece is with the driver and more follow: the job stays at
                            the head of its lane, which waits for it */
    tsr_status status;
    char message[TSR__RING_QUEUE_MESSAGE];
    /* A user kernel's launch (tsr__exec_user_launch): it has no program
     * here; `user` starts it (or, given NULL, drops it). */
    tsr__exec_user_fn user;
    void *user_ctx;
    bool in_worker; /* given to its worker (counted in the session's in_worker) */
    /* Failed before the driver had it (its buffers could not be made),
     * and put back at the head of its lane to end in its turn: status and
     * message hold why. */
    bool failed_early;
    struct tsr__exec_job *user_next; /* among the session's user_first..user_last */
    bool user_ended; /* its end is known (status, message), waiting for those before */
    /* A matrix product (tsr__exec_gemm): the backend's gemm runs it, once
     * `program` (its device's generic program, which opens the device)
     * has settled; its three operands' segments are segments[0..2]. */
    bool is_gemm;
    tsr__backend_gemm gemm;
    /* A launch the backend runs as the host's own code (host_enqueue): it
     * has no program; `kernel` is what it computes. */
    bool is_host;
    tsr__kernel kernel;
} job;

/* A session's jobs for one device not yet given to the driver, in launch
 * order. */
typedef struct lane {
    struct lane *next; /* among the device's lanes */
    tsr__session *session;
    job *head, *tail;
} lane;

/* A device's waiting jobs: a lane per session that has any, served in
 * turn, one job at a time, while the driver holds fewer than DRIVER_DEPTH
 * of them. So a session that queues a thousand kernels delays another's
 * next kernel by a few of its own, not by all of them, and the jobs of a
 * session that ends or of a daemon that stops are still here to cancel. */
typedef struct fifo {
    lane *lanes;
    lane *turn;         /* the lane served next (NULL: the first) */
    unsigned submitted; /* given to the driver, not retired */
    bool held;          /* jobs queued while the executor was held */
} fifo;

/* Enough kernels in the driver's queue that it never waits for the loop
 * between two of them. */
#define DRIVER_DEPTH 8u

/* Takes a lane's head off it; a lane left empty goes. */
static void lane_pop(fifo *f, lane *l, lane *prev)
{
    l->head = l->head->next;
    if (l->head)
        return;
    if (f->turn == l)
        f->turn = l->next;
    if (prev)
        prev->next = l->next;
    else
        f->lanes = l->next;
    free(l);
}

/* Puts a job back at the head of its session's lane (a lane made anew
 * when it went). */
static tsr_status lane_push_front(fifo *f, job *j)
{
    lane *l = f->lanes;
    while (l && l->session != j->session)
        l = l->next;
    if (!l) {
        if (!(l = calloc(1, sizeof *l)))
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
        l->session = j->session;
        l->next = f->lanes;
        f->lanes = l;
        l->tail = j;
    }
    j->next = l->head;
    l->head = j;
    return TSR_OK;
}

/* The lane holding a session's jobs, and the one before it. */
static lane *lane_of(fifo *f, const tsr__session *s, lane **prev)
{
    *prev = NULL;
    for (lane *l = f->lanes; l; *prev = l, l = l->next)
        if (l->session == s)
            return l;
    return NULL;
}

/* A device's busy time: the union of the intervals from a kernel's
 * submission to the driver until the driver reports it finished, i.e. the
 * time its queue was not empty. Loop thread only; the driver's
 * thread writes nothing here but the job's done_ns. */
typedef struct busy {
    uint64_t total_ns;   /* retired intervals, merged */
    uint64_t covered_ns; /* the latest end counted in total_ns */
    job *first, *last;   /* submitted, not yet retired, oldest first */
} busy;

typedef struct tsr__executor {
    tsr__server *server;
    const tsr__backend *be; /* the registry's accelerator backend */
    tsr__backend_runtime *rt;
    uint64_t stream_bytes; /* outputs this large are stored around the caches */
    int notify_fd;
    tsr__watch *watch;
    fifo *fifos; /* one per accelerator */
    busy *busy;  /* one per accelerator */
    size_t count;
    _Atomic(job *) finished;
    /* Jobs given to devices that compute on this machine's CPUs and not
     * finished yet (the loop thread adds, the driver's thread takes). */
    atomic_uint on_host;
    /* Per device: when its generic programs were asked for (ns), 0 once
     * they are all built or loaded and that was logged. */
    uint64_t *generic_since;
    /* Retired jobs kept for the next launches (loop thread only): a job
     * is over a kilobyte, and allocating one per launch made glibc
     * consolidate its free lists each time, several percent of a small
     * launch's time. */
    job *spare;
    unsigned nspare;
    /* While held (tsr__exec_hold), queued jobs wait in their lanes for
     * tsr__exec_release instead of going to the driver at once. */
    bool hold;
    /* Launches per key, roughly (a slot per key hash; another key taking
     * the slot starts it again): a key launched often gets a program of
     * its own however small its launches. */
    struct {
        tsr__kernel_key key;
        uint32_t count;
    } often[256];
} executor;

#define SPARE_JOBS 64

/* Where compiled programs are kept: the configured directory, else
 * TESSERA_KERNEL_CACHE, else systemd's CacheDirectory, else the user's
 * cache directory; "" (the first of them set but empty) keeps them in
 * memory only. */
const char *tsr__exec_cache_dir(const tsr__server *server, char *buf, size_t n)
{
    const char *v;
    if (server->kernel_cache_dir[0])
        return server->kernel_cache_dir;
    if ((v = getenv("TESSERA_KERNEL_CACHE")) || (v = getenv("CACHE_DIRECTORY")))
        return v;
    if ((v = getenv("XDG_CACHE_HOME")) && v[0])
        snprintf(buf, n, "%s/tessera", v);
    else if ((v = getenv("HOME")) && v[0])
        snprintf(buf, n, "%s/.cache/tessera", v);
    else
        return "";
    return buf;
}

static void futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ---- completion ------------------------------------------------------- */

/* Publishes a finished job in its session's ring (any thread). */
static void raise_to(_Atomic uint32_t *word, uint32_t sequence)
{
    uint32_t seen = atomic_load(word);
    while ((int32_t)(sequence - seen) > 0 && !atomic_compare_exchange_weak(word, &seen, sequence))
        ;
}

/* Raises the ring's `completed` to the daemon's `finished`. The client
 * may write that word too: after a few tries the daemon's value is simply
 * stored, so that a client rewriting it cannot keep a completion thread
 * (every session's) spinning. Another thread may have raised `finished`
 * and stored it meanwhile: the store is repeated until `finished` stays
 * what was stored, so the word never ends below it (`finished` rises
 * only as the session's jobs finish, so this ends). */
static void raise_ring(_Atomic uint32_t *word, _Atomic uint32_t *finished)
{
    uint32_t seen = atomic_load(word);
    for (int tries = 0; tries < 64; tries++) {
        uint32_t want = atomic_load(finished);
        if ((int32_t)(want - seen) <= 0 || atomic_compare_exchange_weak(word, &seen, want))
            return;
    }
    uint32_t stored;
    do {
        stored = atomic_load(finished);
        atomic_store(word, stored);
    } while (atomic_load(finished) != stored);
}

static void publish(job *j)
{
    /* The daemon's own record first (the ring is the client's to scribble
     * on, so the daemon never trusts what it reads there). */
    _Atomic uint32_t *finished = &j->session->devices[j->queue].finished;
    raise_to(finished, j->sequence);
    tsr__ring *ring = j->session->ring;
    if (!ring || j->queue >= TSR__RING_QUEUES) /* no such job is queued (checked) */
        return;
    tsr__ring_queue *q = &ring->queues[j->queue];
    if (j->status != TSR_OK) {
        q->status = (int32_t)j->status;
        memcpy(q->message, j->message, sizeof q->message);
        atomic_fetch_add(&q->errors, 1u);
    }
    raise_ring(&q->completed, finished);
    if (atomic_load(&q->waiting))
        futex_wake_all(&q->completed);
}

/* Hands a job the driver is done with to the event loop (any thread). */
static void hand_back(executor *x, job *j)
{
    job *top = atomic_load(&x->finished);
    do
        j->done_next = top;
    while (!atomic_compare_exchange_weak(&x->finished, &top, j));
    uint64_t one = 1;
    if (write(x->notify_fd, &one, sizeof one) < 0) {
        /* the counter is at its maximum: the loop is signalled already */
    }
}

static void stop_clock(executor *x, job *j)
{
    if (j->submit_ns)
        atomic_store(&j->done_ns, tsr__now_ns()); /* before the ring says so */
    if (j->on_host)
        atomic_fetch_sub(&x->on_host, 1u);
    j->on_host = false;
}

/* Hands a finished job, its status and message set, to the event loop
 * (any thread). */
static void finish_set(executor *x, job *j)
{
    stop_clock(x, j);
    publish(j);
    hand_back(x, j);
}

/* Hands a finished job to the event loop (any thread). */
static void finish(executor *x, job *j, tsr_status status, const char *message)
{
    j->status = status;
    snprintf(j->message, sizeof j->message, "%s", message ? message : "");
    finish_set(x, j);
}

/* A piece of a job is done: the job is finished after its last piece,
 * else it goes back to its lane for its next turn. */
static void on_kernel_done(void *ctx, tsr_status status, const char *message)
{
    job *j = ctx;
    if (status != TSR_OK || j->next_piece >= j->launch.geometry.pieces) {
        finish(j->x, j, status, message);
        return;
    }
    stop_clock(j->x, j);
    j->resume = true;
    hand_back(j->x, j);
}

/* Adds a submitted job's interval to its device's busy time and takes it
 * off the device's list. In-order queues finish jobs in submission order,
 * so merging each interval with the latest end counted so far is exact. */
static void busy_unlink(busy *b, job *j)
{
    if (j->on_prev)
        j->on_prev->on_next = j->on_next;
    else
        b->first = j->on_next;
    if (j->on_next)
        j->on_next->on_prev = j->on_prev;
    else
        b->last = j->on_prev;
}

/* Merges [submit, end] into a running total whose latest end is *covered. */
static uint64_t busy_merge(uint64_t submit, uint64_t end, uint64_t *covered)
{
    uint64_t start = submit > *covered ? submit : *covered;
    if (end > *covered)
        *covered = end;
    return end > start ? end - start : 0;
}

/* The time the job adds to its device's busy time is its session's too:
 * the sessions' shares add up to the device's. The driver's threads may
 * report an in-order queue's jobs out of order (one that finished first
 * reported last, under load), and merging a later job first would take
 * the earlier one's time out of the total that tsr__exec_busy_ns had
 * already shown: the jobs submitted before this one, finished with it
 * whether reported or not, are merged first, in submission order (their
 * own retirement then adds nothing). */
static void busy_retire(executor *x, job *j)
{
    busy *b = &x->busy[j->queue];
    uint64_t done = atomic_load(&j->done_ns);
    if (!done)
        done = tsr__now_ns();
    for (job *k = b->first; k && k != j; k = k->on_next) {
        uint64_t k_done = atomic_load(&k->done_ns);
        uint64_t added =
            busy_merge(k->submit_ns, k_done && k_done < done ? k_done : done, &b->covered_ns);
        b->total_ns += added;
        k->session->busy_ns += added;
    }
    uint64_t added = busy_merge(j->submit_ns, done, &b->covered_ns);
    b->total_ns += added;
    j->session->busy_ns += added;
    busy_unlink(b, j);
}

static void busy_submit(executor *x, job *j)
{
    busy *b = &x->busy[j->queue];
    j->on_prev = b->last;
    j->on_next = NULL;
    if (b->last)
        b->last->on_next = j;
    else
        b->first = j;
    b->last = j;
}

bool tsr__exec_on_host(const tsr__server *server)
{
    const executor *x = server->executor;
    return x && atomic_load_explicit(&x->on_host, memory_order_relaxed) > 0;
}

uint64_t tsr__exec_busy_ns(const tsr__server *server, uint32_t queue, uint64_t now_ns)
{
    const executor *x = server->executor;
    if (!x || queue >= x->count)
        return 0;
    const busy *b = &x->busy[queue];
    uint64_t total = b->total_ns, covered = b->covered_ns;
    /* Jobs not retired yet: those the driver finished count to their end
     * (a client may already have seen them complete), the first one still
     * running counts to now, and the rest wait behind it. */
    for (job *j = b->first; j; j = j->on_next) {
        uint64_t done = atomic_load(&j->done_ns);
        total += busy_merge(j->submit_ns, done ? done : now_ns, &covered);
        if (!done)
            break;
    }
    return total;
}

void tsr__exec_program_counts(const tsr__server *server, uint32_t queue, uint64_t *built,
                              uint64_t *loaded, uint32_t *pending)
{
    const executor *x = server->executor;
    *built = *loaded = 0;
    *pending = 0;
    if (x && queue < x->count && x->be->program_counts)
        x->be->program_counts(x->rt, queue, built, loaded, pending);
}

/* Keeps a job that is done with for the next launch, or frees it. */
static void spare_job(executor *x, job *j)
{
    if (x && x->nspare < SPARE_JOBS) {
        j->next = x->spare;
        x->spare = j;
        x->nspare++;
    } else {
        free(j);
    }
}

static void retire(job *j)
{
    tsr__session *s = j->session;
    executor *x = j->x;
    if (j->submit_ns && x) {
        busy_retire(x, j);
        x->fifos[j->queue].submitted--;
    }
    if (j->in_driver && x) { /* a piece failed: the rest will not run */
        lane *prev, *l = lane_of(&x->fifos[j->queue], s, &prev);
        if (l && l->head == j)
            lane_pop(&x->fifos[j->queue], l, prev);
    }
    if (j->in_worker)
        s->devices[j->queue].in_worker--;
    s->devices[j->queue].inflight--;
    s->inflight_total--;
    tsr__session_retired(s, j->queue, j->sequence);
    if (j->status != TSR_OK)
        tsr__log(TSR__LOG_INFO, "session %u: kernel %u on %s:%u: %s", s->id, j->sequence,
                 x ? x->be->name : "?", j->queue, j->message);
    spare_job(x, j);
    tsr__session_release(s); /* the job's reference */
}

/* ---- the device FIFOs --------------------------------------------------- */

static tsr_status resolve_buffers(executor *x, job *j)
{
    for (uint32_t b = 0; b < j->launch.nbuffers; b++) {
        tsr__segment *seg = tsr__session_segment(j->session, j->segments[b]);
        if (!seg)
            return tsr__fail(TSR_ERR_RUNTIME, "a kernel's memory segment is gone");
        if (!seg->device_buffer) {
            tsr_status st =
                x->be->buffer(x->rt, j->queue, seg->base, seg->bytes, &seg->device_buffer);
            if (st != TSR_OK)
                return st;
        }
        j->launch.buffers[b] = seg->device_buffer;
    }
    return TSR_OK;
}

static tsr_status resolve_gemm_buffers(executor *x, job *j)
{
    tsr__backend_launch *l = &j->launch;
    l->nbuffers = 3;
    tsr_status st = resolve_buffers(x, j);
    for (int b = 0; b < 3 && st == TSR_OK; b++)
        j->gemm.buffers[b] = l->buffers[b];
    return st;
}

/* "opencl:0: kernel add float32 <- float32, int32 (unit): built from
 * source in 412 ms" */
static void log_program(const executor *x, uint32_t queue, tsr__backend_program *p,
                        const char *made)
{
    const char *be = x->be->name;
    const tsr__kernel_key *k = x->be->program_key(p);
    if (k->entry == TSR__KENTRY_GENERIC || k->entry == TSR__KENTRY_REDUCE ||
        k->entry == TSR__KENTRY_GEMM) {
        tsr__log(TSR__LOG_INFO, "%s:%u: %s program %s: %s", be, queue,
                 k->entry == TSR__KENTRY_REDUCE ? "reduction"
                 : k->entry == TSR__KENTRY_GEMM ? "GEMM"
                                                : "generic",
                 k->common < TSR_DTYPE_COUNT ? tsr_dtype_name((tsr_dtype)k->common) : "?", made);
        return;
    }
    char types[96] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < k->noperands && i < TSR__KERNEL_MAX_OPERANDS; i++) {
        const char *name = k->dtypes[i] == TSR__KEY_SCALAR ? "scalar"
                           : k->dtypes[i] < TSR_DTYPE_COUNT
                               ? tsr_dtype_name((tsr_dtype)k->dtypes[i])
                               : "?";
        int n = snprintf(types + used, sizeof types - used, "%s%s",
                         i == 0   ? ""
                         : i == 1 ? " <- "
                                  : ", ",
                         name);
        if (n < 0 || (size_t)n >= sizeof types - used)
            break;
        used += (size_t)n;
    }
    const char *entry = tsr__kernel_entry_name(k->entry);
    tsr__log(TSR__LOG_INFO, "%s:%u: kernel %s %s (%s): %s", be, queue,
             tsr__kernel_op_info_of(k->op) ? tsr__kernel_ops[k->op].name : "?", types,
             entry ? entry : "?", made);
}

/* A built-in job's TSR__PROGRAM_* state: its program's (one run as host
 * code needs none). */
static int job_state(const executor *x, const job *j)
{
    return j->is_host ? TSR__PROGRAM_READY : x->be->program_state(j->program);
}

/* Host launches of at most this many elements run at once on the loop
 * (host_run) while the device's driver has nothing of the executor's: a
 * turn of the driver's queue (a wake of its thread, a completion
 * callback, a wake of the loop) costs more than computing them, about
 * a microsecond on one core. */
#define RUN_NOW_MAX 4096

/* A host launch, run now or queued (see RUN_NOW_MAX); counted as
 * submitted by the caller (so submitted == 1: only this job). Run now,
 * it is finished before this returns, as the driver would have. */
static tsr_status host_submit(executor *x, job *j)
{
    uint32_t queue = j->queue;
    int64_t elements = 1;
    for (int32_t d = 0; d < j->kernel.ndim; d++)
        elements *= j->kernel.sizes[d];
    if (x->be->host_run && x->fifos[queue].submitted == 1 && j->launch.geometry.pieces <= 1 &&
        elements <= RUN_NOW_MAX) {
        bool ran = false;
        tsr_status st = x->be->host_run(x->rt, queue, &j->kernel, &j->launch, &ran);
        if (ran) {
            on_kernel_done(j, st, st == TSR_OK ? NULL : tsr_last_error());
            return TSR_OK;
        }
    }
    return x->be->host_enqueue(x->rt, queue, &j->kernel, &j->launch, on_kernel_done, j);
}

/* Whether the session has kernels on j's device other than j still
 * running (with the driver or its worker) or not yet retired: a job that
 * ends without running waits for them, or its end, published, would say
 * they had finished (and frees and imports put aside behind them would
 * go under them). */
static bool session_busy(const executor *x, const job *j)
{
    if (j->session->devices[j->queue].in_worker)
        return true;
    for (const job *d = x->busy[j->queue].first; d; d = d->on_next)
        if (d->session == j->session && d != j)
            return true;
    return false;
}

/* Gives a job whose program is settled to the driver, or ends it. */
static bool submit(executor *x, job *j, bool by_piece)
{
    uint32_t queue = j->queue;
    if (j->session->ending) {
        if (j->user)
            j->user(j->user_ctx, NULL);
        finish(x, j, TSR_ERR_CONNECTION, "the session ended before the kernel ran");
        return false;
    }
    if (j->failed_early) {
        finish_set(x, j);
        return false;
    }
    if (j->user) {
        /* A worker computing on this machine's CPUs counts as the driver
         * does: the loop does not spin while it runs (server.c). */
        j->on_host = x->be->on_host(x->rt, queue);
        if (j->on_host)
            atomic_fetch_add(&x->on_host, 1u);
        j->in_worker = true;
        tsr__session_device *sd = &j->session->devices[queue];
        sd->in_worker++;
        j->user_next = NULL;
        if (sd->user_last)
            sd->user_last->user_next = j;
        else
            sd->user_first = j;
        sd->user_last = j;
        j->user(j->user_ctx, (tsr__exec_user_job *)j); /* it reports through tsr__exec_user_done */
        return true;
    }
    int state = job_state(x, j);
    if (state == TSR__PROGRAM_FAILED) {
        finish(x, j, TSR_ERR_DEVICE, x->be->program_error(j->program));
        return false;
    }
    const char *made = j->is_host ? NULL : x->be->program_report(j->program);
    if (made)
        log_program(x, queue, j->program, made);
    tsr_status st = j->is_gemm ? resolve_gemm_buffers(x, j) : resolve_buffers(x, j);
    if (st == TSR_OK) {
        /* Counted before the enqueue: the driver may finish it at once. */
        j->submit_ns = tsr__now_ns();
        busy_submit(x, j);
        x->fifos[queue].submitted++;
        uint64_t pieces = j->launch.geometry.pieces ? j->launch.geometry.pieces : 1;
        j->launch.first_piece = j->next_piece;
        j->launch.piece_count = by_piece ? 1 : pieces - j->next_piece;
        j->next_piece += j->launch.piece_count;
        j->on_host = x->be->on_host(x->rt, queue);
        if (j->on_host)
            atomic_fetch_add(&x->on_host, 1u);
        st = j->is_gemm   ? x->be->gemm(x->rt, queue, &j->gemm, on_kernel_done, j)
             : j->is_host ? host_submit(x, j)
                          : x->be->enqueue(x->rt, queue, j->program, &j->launch, on_kernel_done, j);
        if (st != TSR_OK) {
            busy_unlink(&x->busy[queue], j);
            x->fifos[queue].submitted--;
            j->submit_ns = 0;
            if (j->on_host)
                atomic_fetch_sub(&x->on_host, 1u);
            j->on_host = false;
        }
    }
    if (st != TSR_OK && session_busy(x, j)) {
        /* Its buffers or its enqueue failed: it ends in its turn, at the
         * head of its lane, as the session's kernels before it still run
         * (publishing its end would say they had finished, and frees
         * behind them would happen under them). */
        j->status = st;
        snprintf(j->message, sizeof j->message, "%s", tsr_last_error());
        j->failed_early = true;
        if (j->in_driver) { /* its first piece: still the head */
            j->in_driver = false;
            return true;
        }
        if (lane_push_front(&x->fifos[queue], j) == TSR_OK)
            return true;
        j->failed_early = false; /* no memory to queue it: it ends now */
    }
    if (st != TSR_OK)
        finish(x, j, st, tsr_last_error());
    return st == TSR_OK;
}

/* A user kernel's launch can go (READY) once every earlier built-in launch
 * of its session on the device has finished: the driver's queue and the
 * worker's are two queues, so only that orders them. Earlier user
 * launches need not have: the worker's own queue is in order (and a
 * built-in launch waits for them, next_job). */
#define USER_IN_WORKER 8u

static int user_state(const executor *x, const job *j)
{
    /* A session's launches wait beyond USER_IN_WORKER in its worker: the
     * daemon sends without waiting (a worker that reads nothing must not
     * stall the loop), and a socket full of one session's launches would
     * end the worker for every session of the uid. */
    if (j->session->devices[j->queue].in_worker >= USER_IN_WORKER)
        return TSR__PROGRAM_PENDING;
    for (const job *d = x->busy[j->queue].first; d; d = d->on_next)
        if (d->session == j->session)
            return TSR__PROGRAM_PENDING;
    return TSR__PROGRAM_READY;
}

/* The next job to go from a device's lanes, starting at the lane whose
 * turn it is: the head of a lane that can go (its program settled, or its
 * session gone, and none of its pieces with the driver). A job that has
 * pieces left after this turn stays at the head of its lane, which waits
 * for it: a session's jobs never overtake one another. */
static job *next_job(const executor *x, fifo *f, bool by_piece)
{
    lane *start = f->turn ? f->turn : f->lanes, *l = start, *prev = NULL;
    if (!start)
        return NULL;
    lane_of(f, start->session, &prev);
    do {
        job *j = l->head;
        int state = j->user ? user_state(x, j) : job_state(x, j);
        if (!j->user && j->session->devices[j->queue].in_worker)
            state = TSR__PROGRAM_PENDING; /* behind the session's user kernels */
        /* One that will end without running waits for the session's
         * kernels still running (session_busy). */
        bool ends =
            j->session->ending || j->failed_early || (!j->user && state == TSR__PROGRAM_FAILED);
        if (ends && !j->in_driver && session_busy(x, j))
            state = TSR__PROGRAM_PENDING;
        else if (ends)
            state = TSR__PROGRAM_FAILED;
        if (!j->in_driver && state != TSR__PROGRAM_PENDING) {
            f->turn = l->next;
            uint64_t pieces = j->launch.geometry.pieces ? j->launch.geometry.pieces : 1;
            j->in_driver = by_piece && !j->session->ending && state == TSR__PROGRAM_READY &&
                           j->next_piece + 1 < pieces;
            if (!j->in_driver)
                lane_pop(f, l, prev);
            return j;
        }
        prev = l->next ? l : NULL;
        l = l->next ? l->next : f->lanes;
    } while (l != start);
    return NULL;
}

/* Gives the driver jobs of the device's lanes, in turn, up to its depth:
 * a piece per turn where a launch does not copy its operands in and out
 * (which it would do per enqueue). The jobs of ended sessions are ended. */
static void pump(executor *x, uint32_t queue)
{
    fifo *f = &x->fifos[queue];
    bool by_piece = !x->be->copies(x->rt, queue);
    job *j;
    while (f->submitted < DRIVER_DEPTH && (j = next_job(x, f, by_piece))) {
        if (!submit(x, j, by_piece) && j->in_driver) {
            /* ended instead: off its lane */
            lane *prev, *l = lane_of(f, j->session, &prev);
            j->in_driver = false;
            if (l && l->head == j)
                lane_pop(f, l, prev);
        }
    }
}

void tsr__exec_hold(tsr__server *server)
{
    executor *x = server->executor;
    if (x)
        x->hold = true;
}

void tsr__exec_release(tsr__server *server)
{
    executor *x = server->executor;
    if (!x || !x->hold)
        return;
    x->hold = false;
    for (size_t q = 0; q < x->count; q++) {
        if (x->fifos[q].held) {
            x->fifos[q].held = false;
            pump(x, (uint32_t)q);
        }
    }
}

/* Queues a job at the end of its session's lane. */
static tsr_status lane_push(fifo *f, job *j)
{
    lane *l = f->lanes, *last = NULL;
    for (; l && l->session != j->session; l = l->next)
        last = l;
    if (!l) {
        if (!(l = calloc(1, sizeof *l)))
            return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
        l->session = j->session;
        if (last)
            last->next = l;
        else
            f->lanes = l;
    }
    j->next = NULL;
    if (l->head)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
    return TSR_OK;
}

static bool needs_fp64(tsr_dtype d)
{
    return d == TSR_FLOAT64 || d == TSR_COMPLEX128;
}

/* The common dtypes, most used first: the order the generic programs are
 * built in (a launch that needs one still takes it out of turn). */
static const tsr_dtype generic_order[] = {
    TSR_FLOAT32,         TSR_INT64,           TSR_BOOL,
    TSR_FLOAT64,         TSR_INT32,           TSR_FLOAT16,
    TSR_BFLOAT16,        TSR_UINT8,           TSR_INT8,
    TSR_INT16,           TSR_COMPLEX64,       TSR_COMPLEX128,
    TSR_COMPLEX32,       TSR_UINT16,          TSR_UINT32,
    TSR_UINT64,          TSR_FLOAT8_E4M3FN,   TSR_FLOAT8_E5M2,
    TSR_FLOAT8_E4M3FNUZ, TSR_FLOAT8_E5M2FNUZ, TSR_FLOAT8_E8M0FNU,
    TSR_FLOAT4_E2M1FN_X2};
_Static_assert(sizeof generic_order / sizeof generic_order[0] == TSR_DTYPE_COUNT,
               "every dtype has a generic program");

static bool generic_wanted(tsr_dtype d, bool fp64)
{
    return fp64 || !needs_fp64(d);
}

/* Asks for every generic program of a device, so that the first launch
 * of any operation, dtypes and layout finds its program built. */
static void prepare_generic(executor *x, uint32_t queue, bool fp64)
{
    for (size_t k = 0; k < TSR_DTYPE_COUNT; k++) {
        if (!generic_wanted(generic_order[k], fp64))
            continue;
        tsr__kernel_key key = tsr__kernel_generic_key(generic_order[k]);
        x->be->program_get(x->rt, queue, &key, TSR__BUILD_AHEAD);
    }
    x->generic_since[queue] = tsr__now_ns();
}

/* Logs, once per device, that its generic programs are all there and the
 * builder is done with them. */
static void report_generic(executor *x, uint32_t queue)
{
    if (x->generic_since[queue] == 0)
        return;
    bool fp64 = x->server->registry.devices[queue + 1].info.fp64;
    int ready = 0, failed = 0;
    for (size_t k = 0; k < TSR_DTYPE_COUNT; k++) {
        if (!generic_wanted(generic_order[k], fp64))
            continue;
        tsr__kernel_key key = tsr__kernel_generic_key(generic_order[k]);
        tsr__backend_program *p = x->be->program_find(x->rt, queue, &key);
        if (!p || !x->be->program_settled(p))
            return;
        int state = x->be->program_state(p);
        ready += state == TSR__PROGRAM_READY;
        failed += state == TSR__PROGRAM_FAILED;
    }
    tsr__log(failed ? TSR__LOG_ERR : TSR__LOG_NOTICE,
             "%s:%u: generic programs ready: %d of %d in %.1f s", x->be->name, queue, ready,
             ready + failed, (double)(tsr__now_ns() - x->generic_since[queue]) / 1e9);
    x->generic_since[queue] = 0;
}

/* A job between two pieces: its piece's time counts as busy, and it waits
 * at the head of its lane for its next turn (or ends, when the daemon
 * stops: its lane is gone then). */
static void resume(executor *x, job *j)
{
    j->resume = false;
    j->in_driver = false;
    busy_retire(x, j);
    x->fifos[j->queue].submitted--;
    j->submit_ns = 0;
    atomic_store(&j->done_ns, 0);
    if (!x->rt)
        finish(x, j, TSR_ERR_CONNECTION, "the daemon stopped");
}

static void on_notify(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    executor *x = data;
    uint64_t count;
    if (read(x->notify_fd, &count, sizeof count) < 0) {
        /* nothing to read: another wake-up got there first */
    }
    job *list = atomic_exchange(&x->finished, NULL);
    job *ordered = NULL; /* oldest first */
    while (list) {
        job *next = list->done_next;
        list->done_next = ordered;
        ordered = list;
        list = next;
    }
    while (ordered) {
        job *next = ordered->done_next;
        if (ordered->resume)
            resume(x, ordered);
        else
            retire(ordered);
        ordered = next;
    }
    for (size_t q = 0; q < x->count; q++) {
        pump(x, (uint32_t)q);
        report_generic(x, (uint32_t)q);
    }
}

/* Outputs of at least this many bytes are stored around the caches by
 * the walks that write in chunks: half the last-level cache (they would
 * push out at least that much and not be there whole for the next reader
 * anyway), at least 4 MiB, or 16 MiB where the size is unknown. These are
 * the device's caches where the device is this cpu (PoCL); elsewhere the
 * stores are a hint. */
static uint64_t stream_bytes(void)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    uint64_t v = llc > 0 ? (uint64_t)llc / 2 : UINT64_C(16) << 20;
    return v < (UINT64_C(4) << 20) ? UINT64_C(4) << 20 : v;
}

/* ---- the executor ------------------------------------------------------ */

static tsr_status executor_get(tsr__server *server, executor **out)
{
    if (server->executor) {
        *out = server->executor;
        return TSR_OK;
    }
    tsr__registry *reg = &server->registry;
    if (!reg->backend || !reg->found.trusted)
        return tsr__fail(TSR_ERR_DEVICE,
                         "kernels are disabled: a %s driver misbehaved during discovery "
                         "(see tesserad's log)",
                         reg->backend ? reg->backend->name : "device");
    size_t n = reg->accel_count ? reg->accel_count : 1;
    executor *x = calloc(1, sizeof *x);
    tsr__backend_device *served = calloc(n, sizeof *served);
    if (x) {
        x->fifos = calloc(n, sizeof *x->fifos);
        x->busy = calloc(n, sizeof *x->busy);
        x->generic_since = calloc(n, sizeof *x->generic_since);
    }
    if (!x || !served || !x->fifos || !x->busy || !x->generic_since) {
        if (x) {
            free(x->fifos);
            free(x->busy);
            free(x->generic_since);
        }
        free(x);
        free(served);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory starting the kernel executor");
    }
    for (size_t k = 0; k < reg->accel_count; k++)
        served[k] = tsr__registry_accelerator(reg, k)->desc;
    x->server = server;
    x->be = reg->backend;
    x->stream_bytes = stream_bytes();
    x->count = reg->accel_count;
    atomic_init(&x->finished, NULL);
    x->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    tsr_status st = x->notify_fd < 0 ? tsr__fail(TSR_ERR_IO, "eventfd failed") : TSR_OK;
    char dir_buf[1024];
    const char *dir = tsr__exec_cache_dir(server, dir_buf, sizeof dir_buf);
    if (st == TSR_OK) {
        tsr__backend_config config = {
            .found = &reg->found, .devices = served, .cache_dir = dir, .notify_fd = x->notify_fd};
        st = x->be->open(&config, &x->rt);
    }
    free(served);
    if (st == TSR_OK)
        st = tsr__loop_watch(server->loop, x->notify_fd, EPOLLIN, on_notify, x, &x->watch);
    if (st != TSR_OK) {
        if (x->rt)
            x->be->close(x->rt);
        if (x->notify_fd >= 0)
            close(x->notify_fd);
        free(x->fifos);
        free(x->busy);
        free(x->generic_since);
        free(x);
        return st;
    }
    const char *refusal = x->be->cache_refusal(x->rt);
    if (refusal)
        tsr__log(TSR__LOG_ERR, "kernel cache directory refused, programs kept in memory only: %s",
                 refusal);
    tsr__log(TSR__LOG_INFO, "kernel executor started (program cache: %s)",
             dir[0] && !refusal ? dir : "memory only");
    for (size_t q = 0; q < x->count; q++)
        prepare_generic(x, (uint32_t)q, reg->devices[q + 1].info.fp64);
    server->executor = x;
    *out = x;
    return TSR_OK;
}

void tsr__exec_shutdown(tsr__server *server)
{
    executor *x = server->executor;
    if (!x)
        return;
    /* Builds still pending are abandoned: their jobs end with an error. */
    x->be->close(x->rt); /* drains every queue first */
    x->rt = NULL;
    for (size_t q = 0; q < x->count; q++) {
        for (lane *l = x->fifos[q].lanes, *after; l; l = after) {
            after = l->next;
            for (job *j = l->head, *next; j; j = next) {
                next = j->next;
                if (j->user)
                    j->user(j->user_ctx, NULL);
                if (!j->in_driver) /* else it is handed back between two pieces */
                    finish(x, j, TSR_ERR_CONNECTION, "the daemon stopped");
            }
            free(l);
        }
        x->fifos[q] = (fifo){0};
    }
    x->count = 0;
    while (atomic_load(&x->finished)) /* jobs between pieces end in a second round */
        on_notify(NULL, 0, x);
    tsr__loop_unwatch(x->server->loop, x->watch);
    close(x->notify_fd);
    while (x->spare) {
        job *j = x->spare;
        x->spare = j->next;
        free(j);
    }
    free(x->fifos);
    free(x->busy);
    free(x->generic_since);
    free(x);
    server->executor = NULL;
}

/* ---- checks ------------------------------------------------------------ */

static tsr_status check_kernel(const tsr__kernel *k)
{
    if (k->op < TSR__KOP_COPY || k->op >= TSR__KOP_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: unknown kernel operation %u", k->op);
    if (k->noperands != tsr__kernel_operand_count(k->op))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: operation %u takes %u operands, not %u",
                         k->op, tsr__kernel_operand_count(k->op), k->noperands);
    if (k->ndim < 0 || k->ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: %d dimensions (at most %d)", k->ndim,
                         TSR_MAX_DIMS);
    if (k->common >= TSR_DTYPE_COUNT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: unknown dtype %u", k->common);
    unsigned scalars = 0;
    for (uint32_t i = 0; i < k->noperands; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        if (o->dtype >= TSR_DTYPE_COUNT || (o->flags & ~(uint32_t)TSR__KOPERAND_SCALAR))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: operand %u: unknown dtype or flags",
                             i);
        if (o->flags & TSR__KOPERAND_SCALAR) {
            if (i == 0 || k->op == TSR__KOP_COPY)
                return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: operand %u cannot be a scalar",
                                 i);
            scalars++;
        }
    }
    if (scalars > tsr__kernel_scalar_max(k->op))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "LAUNCH: operation %u takes at most %u scalar operands, not %u", k->op,
                         tsr__kernel_scalar_max(k->op), scalars);
    return TSR_OK;
}

/* ---- programs ------------------------------------------------------------ */

/* Launches of at least this many elements get a program of their own
 * key, built in the background; smaller ones gain too little from its
 * vector loops to pay for the build (about a second on a CPU device). */
#define SPECIALISE_ELEMENTS (INT64_C(1) << 16)

/* ... or at least this many times. */
#define SPECIALISE_LAUNCHES 256u

/* Whether the launch of `key` is the SPECIALISE_LAUNCHES-th of its key,
 * roughly. */
static bool launched_often(executor *x, uint32_t queue, const tsr__kernel_key *key)
{
    uint64_t h = queue * UINT64_C(0x9E3779B97F4A7C15);
    const uint8_t *b = (const uint8_t *)key;
    for (size_t i = 0; i < sizeof *key; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001B3);
    size_t slot = (size_t)(h >> 56) % (sizeof x->often / sizeof x->often[0]);
    if (memcmp(&x->often[slot].key, key, sizeof *key) != 0) {
        x->often[slot].key = *key;
        x->often[slot].count = 0;
    }
    return ++x->often[slot].count == SPECIALISE_LAUNCHES;
}

static int64_t elements_of(const tsr__kernel *k)
{
    int64_t n = 1;
    for (int32_t d = 0; d < k->ndim; d++)
        n *= k->sizes[d]; /* checked for overflow by tsr__exec_launch */
    return n;
}

/* The program a launch runs: its key's own when that is ready, else the
 * generic program of its common dtype (core/kernel.h), which every device
 * builds ahead of need. A large launch, or a key launched often, asks
 * for its own program in the background, for the launches after it. */
static tsr__backend_program *program_for(executor *x, uint32_t queue, const tsr__kernel *k,
                                         const tsr__kernel_key *key, bool *generic)
{
    if (key->entry == TSR__KENTRY_REDUCE) {
        /* built at the first reduction of its dtype: few programs need them */
        tsr__kernel_key any = tsr__kernel_reduce_key((tsr_dtype)key->common);
        *generic = true;
        return x->be->program_get(x->rt, queue, &any, TSR__BUILD_NOW);
    }
    tsr__backend_program *own = x->be->program_find(x->rt, queue, key);
    if (own && x->be->program_state(own) == TSR__PROGRAM_READY) {
        *generic = false;
        return own;
    }
    if (!own && (elements_of(k) >= SPECIALISE_ELEMENTS || launched_often(x, queue, key)) &&
        !x->be->program_get(x->rt, queue, key, TSR__BUILD_SOON))
        return NULL;
    tsr__kernel_key any = tsr__kernel_generic_key((tsr_dtype)key->common);
    *generic = true;
    return x->be->program_get(x->rt, queue, &any, TSR__BUILD_NOW);
}

/* ---- the interface ------------------------------------------------------ */

/* A launch is enqueued in at most this many pieces (core/kernel.h), each
 * a turn of the loop: 2^42 elements of work, more than any output block
 * the daemon lends holds once (what a launch computes is bounded by it:
 * take_out_repeats). */
#define MAX_PIECES (UINT64_C(1) << 20)

static tsr_status new_job(executor *x, tsr__session *s, uint32_t queue, job **out);
static tsr_status queue_job(executor *x, job *j, tsr__wire_launched *out);

static tsr_status enqueue_job(tsr__session *s, const tsr__kernel *k, uint32_t queue,
                              const uint32_t *segments, const uint64_t *byte_offsets,
                              const uint64_t *extents, tsr__wire_launched *out)
{
    tsr__kernel_key key;
    tsr_status st = tsr__kernel_key_of(k, &key);
    if (st == TSR_OK)
        st = tsr__kernel_key_check(&key,
                                   s->devices[queue].pool.device->info.fp64 ? TSR__KCAP_FP64 : 0);
    executor *x = NULL;
    if (st == TSR_OK)
        st = executor_get(s->server, &x);
    if (st != TSR_OK)
        return st;
    /* On a device that runs host code, the launch needs no program (and
     * gives the same bits as one: which it takes may change as the device
     * opens). An integer division stays on its program, which computes
     * every element a zero divisor leaves (the host's walk stops at the
     * first, as the cpu device's does). */
    bool zero_check = (tsr__kernel_ops[k->op].flags & TSR__KOPF_ZERO_CHECK) &&
                      !tsr_dtype_is_floating_point((tsr_dtype)k->common) &&
                      !tsr_dtype_is_complex((tsr_dtype)k->common);
    bool host = x->be->host_code && x->be->host_code(x->rt, queue) && !zero_check;
    bool generic = false;
    tsr__backend_program *program = host ? NULL : program_for(x, queue, k, &key, &generic);
    if (!host && !program)
        return TSR_ERR_OUT_OF_MEMORY;
    if (!host && x->be->program_state(program) == TSR__PROGRAM_FAILED)
        return tsr__fail(TSR_ERR_DEVICE, "%s", x->be->program_error(program));
    job *j = NULL;
    if ((st = new_job(x, s, queue, &j)) != TSR_OK)
        return st;
    j->program = program;
    j->is_host = host;
    if (host)
        j->kernel = *k;
    tsr__backend_launch *l = &j->launch;
    l->check_status = zero_check;
    l->second_output = tsr__kernel_op_has(k->op, TSR__KOPF_INDICES);
    memcpy(l->scalar, k->scalar, sizeof l->scalar);
    memcpy(l->alpha, k->alpha, sizeof l->alpha);
    /* The walk comes from the checked kernel alone: it visits exactly the
     * elements of the index space whose regions were checked. */
    if (host) { /* pieces of the host's walk, a turn each */
        int dim;
        int64_t rows;
        l->geometry.pieces = tsr__host_pieces(k, &dim, &rows);
    } else {
        tsr__kernel_launch_geometry(k, x->be->compute_units(x->rt, queue), x->stream_bytes,
                                    &l->geometry);
    }
    if (l->geometry.pieces > MAX_PIECES) {
        tsr_status refused =
            tsr__fail(TSR_ERR_NOT_SUPPORTED,
                      "LAUNCH: %llu pieces of work are more than one launch may take (%llu)",
                      (unsigned long long)l->geometry.pieces, (unsigned long long)MAX_PIECES);
        spare_job(x, j);
        return refused;
    }
    for (uint32_t i = 0; i < k->noperands; i++) {
        if (k->operands[i].flags & TSR__KOPERAND_SCALAR)
            continue;
        uint32_t b = l->nbuffers++;
        j->segments[b] = segments[i];
        l->offsets[b] = byte_offsets[i];
        l->extents[b] = extents[i];
    }
    if (generic) {
        /* The generic kernel has every slot: the ones past the operands
         * repeat the output's buffer, with no span and zero strides. */
        l->generic = true;
        tsr__kernel_generic_kind(k, l->kind);
        for (uint32_t b = l->nbuffers; b < TSR__KGENERIC_SLOTS; b++)
            j->segments[b] = segments[0];
        l->nbuffers = TSR__KGENERIC_SLOTS;
    }
    return queue_job(x, j, out);
}

/* Whether the session may queue `more` kernels. */
static tsr_status room_for(const tsr__session *s, uint64_t more)
{
    if (more <= TSR__SESSION_MAX_QUEUED && s->inflight_total + more <= TSR__SESSION_MAX_QUEUED)
        return TSR_OK;
    return tsr__fail(TSR_ERR_LIMIT,
                     "too many kernels queued in one session (%u): wait for some first "
                     "(synchronize)",
                     TSR__SESSION_MAX_QUEUED);
}

/* A job for a launch of the session on `queue`: TSR_ERR_LIMIT past
 * TSR__SESSION_MAX_QUEUED, TSR_ERR_OUT_OF_MEMORY. */
static tsr_status new_job(executor *x, tsr__session *s, uint32_t queue, job **out)
{
    tsr_status st = room_for(s, 1);
    if (st != TSR_OK)
        return st;
    job *j = x->spare;
    if (j) {
        x->spare = j->next;
        x->nspare--;
        memset(j, 0, sizeof *j);
    } else if (!(j = calloc(1, sizeof *j))) {
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
    }
    j->x = x;
    j->session = s;
    j->queue = queue;
    *out = j;
    return TSR_OK;
}

/* Puts a new job at the end of its session's lane with the next sequence
 * number, and names it in *out. */
static tsr_status queue_job(executor *x, job *j, tsr__wire_launched *out)
{
    tsr__session *s = j->session;
    uint32_t queue = j->queue;
    tsr_status st = lane_push(&x->fifos[queue], j);
    if (st != TSR_OK) {
        spare_job(x, j);
        return st;
    }
    j->sequence = ++s->devices[queue].launch_seq;
    if (j->sequence == 0) /* 0 means "nothing launched" */
        j->sequence = ++s->devices[queue].launch_seq;
    s->devices[queue].inflight++;
    s->inflight_total++;
    s->launches++;
    s->server->registry.devices[queue + 1].launches++;
    tsr__session_retain(s); /* released when the job retires */
    *out = (tsr__wire_launched){.sequence = j->sequence, .queue = queue};
    if (x->hold)
        x->fifos[queue].held = true;
    else
        pump(x, queue);
    return TSR_OK;
}

tsr_status tsr__exec_user_launch(tsr__session *s, uint32_t queue, tsr__exec_user_fn start,
                                 void *ctx, tsr__wire_launched *out)
{
    /* The ring has a queue for each of the first TSR__RING_QUEUES devices
     * (its end is published there, as a built-in kernel's is). */
    if (queue >= TSR__RING_QUEUES)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "kernels run on the first %u devices of a type only; device %u is past "
                         "them",
                         TSR__RING_QUEUES, (unsigned)queue);
    executor *x = NULL;
    tsr_status st = executor_get(s->server, &x);
    if (st != TSR_OK)
        return st;
    job *j = NULL;
    if ((st = new_job(x, s, queue, &j)) != TSR_OK)
        return st;
    j->user = start;
    j->user_ctx = ctx;
    return queue_job(x, j, out);
}

/* A user launch's end, from its worker's answer (in launch order) or
 * from the daemon (user.c, when it cannot send it: it may have earlier
 * launches still with the worker). The session's launches finish in
 * launch order all the same: one published ahead of an earlier one would
 * raise the session's `finished` past kernels still running, and their
 * memory could be freed under them. */
void tsr__exec_user_done(tsr__exec_user_job *job_handle, tsr_status status, const char *message)
{
    job *j = (job *)job_handle;
    j->status = status;
    snprintf(j->message, sizeof j->message, "%s", message ? message : "");
    j->user_ended = true;
    tsr__session_device *sd = &j->session->devices[j->queue];
    while (sd->user_first && sd->user_first->user_ended) {
        job *first = sd->user_first;
        sd->user_first = first->user_next;
        if (!sd->user_first)
            sd->user_last = NULL;
        finish_set(first->x, first);
    }
}

uint32_t tsr__exec_user_sequence(const tsr__exec_user_job *job_handle)
{
    return ((const job *)job_handle)->sequence;
}

void tsr__exec_settle(tsr__server *server)
{
    if (server->executor)
        on_notify(NULL, 0, server->executor);
}

/* Elements one output of a reduction may reduce, where its input's
 * allocation holds fewer (a stride-0 input along a reduced dimension):
 * each output is one work-item's loop, which no piece can cut short. */
#define REDUCE_REPEAT_MAX (INT64_C(1) << 26)

/* A reduction repeats nothing that can be taken out (its input's
 * elements along a reduced dimension of stride 0 all count), so it is
 * bounded instead: no more outputs than its output's allocation holds
 * (its output's stride-0 dimensions are the reduced ones: the others
 * would overlap it), and no more elements per output than its input's
 * allocation holds, or REDUCE_REPEAT_MAX. */
static tsr_status reduce_bounds(const tsr__kernel *k, uint64_t out_room, uint64_t in_block)
{
    uint64_t outputs, each;
    tsr__kernel_reduce_counts(k, &outputs, &each);
    if (outputs > out_room)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "LAUNCH: the output overlaps itself: %llu elements computed into an "
                         "allocation of %llu",
                         (unsigned long long)outputs, (unsigned long long)out_room);
    uint64_t in_room = in_block / tsr_dtype_itemsize((tsr_dtype)k->operands[1].dtype);
    if (each > in_room && each > (uint64_t)REDUCE_REPEAT_MAX)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "LAUNCH: a reduction of %llu elements into each output, from an "
                         "allocation of %llu",
                         (unsigned long long)each, (unsigned long long)in_room);
    return TSR_OK;
}

/* Takes out of a checked launch the work that repeats itself, so that
 * what runs is bounded by the memory it writes. A fill writes the set of
 * elements its output names (tsr__region_distinct); any other launch
 * drops the dimensions along which every operand stands still (each step
 * would compute the same values into the same places), and is refused
 * when it still computes more elements than its output block holds: its
 * output would overlap itself, which no client computes (PyTorch refuses
 * it) and which only a hostile request sends, such as 2^46 elements of
 * stride 0 that once took the OpenCL driver down with the daemon. */
static tsr_status take_out_repeats(tsr__kernel *k, uint64_t out_block, uint64_t in_block)
{
    tsr__kernel_operand *o = &k->operands[0];
    tsr__region g = {
        .itemsize = tsr_dtype_itemsize((tsr_dtype)o->dtype), .ndim = k->ndim, .offset = o->offset};
    if (tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE))
        return reduce_bounds(k, out_block / g.itemsize, in_block);
    if (k->op == TSR__KOP_FILL) {
        memcpy(g.sizes, k->sizes, sizeof g.sizes);
        memcpy(g.strides, o->strides, sizeof g.strides);
        tsr_status st = tsr__region_distinct(&g, out_block);
        if (st != TSR_OK)
            return st;
        k->ndim = g.ndim;
        memcpy(k->sizes, g.sizes, sizeof k->sizes);
        memcpy(o->strides, g.strides, sizeof o->strides);
        return TSR_OK;
    }
    for (int32_t d = 0; d < k->ndim; d++) {
        bool still = true;
        for (uint32_t i = 0; i < k->noperands; i++)
            still &=
                (k->operands[i].flags & TSR__KOPERAND_SCALAR) || k->operands[i].strides[d] == 0;
        if (still)
            k->sizes[d] = 1;
    }
    uint64_t room = out_block / g.itemsize;
    if ((uint64_t)elements_of(k) > room)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "LAUNCH: the output overlaps itself: %lld elements computed into an "
                         "allocation of %llu",
                         (long long)elements_of(k), (unsigned long long)room);
    return TSR_OK;
}

tsr_status tsr__exec_launch(tsr__session *s, const tsr__kernel *request, tsr__wire_launched *out)
{
    tsr__kernel kernel = *request, *k = &kernel;
    tsr_status st = check_kernel(k);
    if (st != TSR_OK)
        return st;
    int64_t numel = 1;
    for (int32_t d = 0; d < k->ndim; d++) {
        if (k->sizes[d] < 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "LAUNCH: negative size %lld",
                             (long long)k->sizes[d]);
        if (__builtin_mul_overflow(numel, k->sizes[d], &numel))
            return tsr__fail(TSR_ERR_OVERFLOW, "LAUNCH: the element count overflows");
    }
    const tsr__device_pool *pool = NULL;
    uint32_t segments[TSR__KERNEL_MAX_OPERANDS] = {0};
    uint64_t byte_offsets[TSR__KERNEL_MAX_OPERANDS] = {0};
    uint64_t extents[TSR__KERNEL_MAX_OPERANDS] = {0};
    uint64_t out_block = 0, in_block = 0;
    bool reduce = tsr__kernel_op_has(k->op, TSR__KOPF_REDUCE);
    bool fp64 = needs_fp64((tsr_dtype)k->common);
    for (uint32_t i = 0; i < k->noperands; i++) {
        const tsr__kernel_operand *o = &k->operands[i];
        fp64 |= needs_fp64((tsr_dtype)o->dtype);
        if (o->flags & TSR__KOPERAND_SCALAR)
            continue;
        tsr__block_ref b;
        const tsr__device_pool *p = tsr__session_find_live(s, o->handle, &b);
        if (!p)
            return TSR_ERR_INVALID_ARGUMENT;
        /* The output, and a reduction's positions, are written. */
        if ((i == 0 || (reduce && i == 2)) && tsr__share_read_only(s, o->handle))
            return TSR_ERR_PERMISSION;
        if (pool && p != pool)
            return tsr__fail(TSR_ERR_RUNTIME,
                             "Expected all tensors to be on the same device, but found at least "
                             "two devices, %s:%d and %s:%d!",
                             pool->device->backend->name, (int)pool->ordinal,
                             p->device->backend->name, (int)p->ordinal);
        pool = p;
        tsr__region g = {.itemsize = tsr_dtype_itemsize((tsr_dtype)o->dtype),
                         .ndim = k->ndim,
                         .offset = o->offset};
        memcpy(g.sizes, k->sizes, sizeof g.sizes);
        memcpy(g.strides, o->strides, sizeof g.strides);
        /* A reduction's outputs are written at every kept index, even
         * where a reduced dimension is empty, and only there. */
        for (int32_t d = 0; reduce && i != 1 && d < k->ndim; d++)
            if (k->operands[0].strides[d] == 0 && k->sizes[d] != 1)
                g.sizes[d] = 1;
        uint64_t span;
        st = tsr__region_check(&g, b.size, &span);
        if (st != TSR_OK)
            return st;
        if (i == 0)
            out_block = b.size;
        if (i == 1)
            in_block = b.size;
        segments[i] = b.segment_id;
        byte_offsets[i] = b.offset + (uint64_t)o->offset * g.itemsize;
        /* the bytes from its first element to one past its last */
        uint64_t first = (uint64_t)o->offset * g.itemsize;
        extents[i] = span > first ? span - first : 0;
    }
    int queue = (int)pool->ordinal;
    if (queue >= (int)TSR__RING_QUEUES)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "kernels run on the first %u devices of a type only; %s:%d is past them",
                         TSR__RING_QUEUES, pool->device->backend->name, queue);
    if (fp64 && !pool->device->info.fp64)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "%s:%d has no double precision, so it cannot compute "
                         "with float64 or complex128",
                         pool->device->backend->name, queue);
    /* A reduction of empty dimensions still writes its identity into
     * every output. */
    uint64_t outputs = (uint64_t)numel, each;
    if (reduce)
        tsr__kernel_reduce_counts(k, &outputs, &each);
    if (outputs == 0) {
        *out = (tsr__wire_launched){.sequence = 0, .queue = (uint32_t)queue};
        return TSR_OK;
    }
    /* The regions checked above hold for what is left: it names a subset
     * of their elements. */
    if ((st = take_out_repeats(k, out_block, in_block)) != TSR_OK)
        return st;
    return enqueue_job(s, k, (uint32_t)queue, segments, byte_offsets, extents, out);
}

/* ---- matrix products ------------------------------------------------------ */

/* The device's BLAS computes these; float16, bfloat16 and the integers
 * go through its GEMM program (core/kernel.h, "Matrix products"). */
static bool gemm_blas_dtype(uint32_t dtype)
{
    return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_COMPLEX64 ||
           dtype == TSR_COMPLEX128;
}

static bool gemm_dtype(uint32_t dtype)
{
    return gemm_blas_dtype(dtype) || tsr__kernel_gemm_has((tsr_dtype)dtype);
}

/* Checks one GEMM operand's region (batch x rows x cols, strides bstride,
 * ld, 1) against its allocation; its pool, segment, byte offset and span
 * come back. */
static tsr_status gemm_operand(tsr__session *s, const tsr__wire_gemm *g, int i, int64_t rows,
                               int64_t cols, const tsr__device_pool **pool, uint32_t *segment,
                               uint64_t *byte_offset, uint64_t *extent)
{
    static const char *const names[3] = {"C", "A", "B"};
    if (g->ld[i] < (cols > 1 ? cols : 1) || g->bstride[i] < 0 || g->offsets[i] < 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "GEMM: %s's leading dimension %lld is below its rows' %lld elements, or "
                         "a stride or offset is negative",
                         names[i], (long long)g->ld[i], (long long)cols);
    tsr__block_ref b;
    const tsr__device_pool *p = tsr__session_find_live(s, g->handles[i], &b);
    if (!p)
        return TSR_ERR_INVALID_ARGUMENT;
    if (*pool && p != *pool)
        return tsr__fail(TSR_ERR_RUNTIME,
                         "Expected all tensors to be on the same device, but found at least two "
                         "devices, %s:%d and %s:%d!",
                         (*pool)->device->backend->name, (int)(*pool)->ordinal,
                         p->device->backend->name, (int)p->ordinal);
    *pool = p;
    tsr__region r = {.itemsize = tsr_dtype_itemsize((tsr_dtype)g->dtype),
                     .ndim = 3,
                     .offset = g->offsets[i],
                     .sizes = {g->batch, rows, cols},
                     .strides = {g->bstride[i], g->ld[i], 1}};
    uint64_t span;
    tsr_status st = tsr__region_check(&r, b.size, &span);
    if (st != TSR_OK)
        return st;
    uint64_t first = (uint64_t)g->offsets[i] * r.itemsize;
    *segment = b.segment_id;
    *byte_offset = b.offset + first;
    *extent = span > first ? span - first : 0;
    return TSR_OK;
}

/* A product runs in pieces of at most devices.matmul_piece multiply-adds
 * (whole matrices of its batch, or bands of C's rows where one matrix is
 * more), each a job of its own in the session's lane: between two pieces
 * the device's queue takes other sessions' work, so that no product holds
 * it for long. auto: GEMM_PIECE, 2^30 (a few milliseconds on a GPU, about
 * two seconds for CLBlast on one thread of PoCL's CPU device, where
 * thinner bands cost CLBlast a third of its speed), and GEMM_PIECE_HOST,
 * 2^32, on a device that runs products as the host's code (backend
 * host_code: OpenBLAS on the driver's threads, a quarter of a second on
 * one thread of an AMD EPYC). There each band packs all of B again, and
 * thin bands also cost OpenBLAS's own blocking: a float32 product of
 * 2048 x 2048 in eight bands of 256 rows ran at 32-33 GFLOP/s on one
 * thread of a first-generation EPYC, in two bands or one call 35-37, as
 * PyTorch's one call does. */
#define GEMM_PIECE (UINT64_C(1) << 30)
#define GEMM_PIECE_HOST (UINT64_C(1) << 32)

/* The backend's request for matrices b0.. and rows r0.. of a checked
 * product (at most nb and nr of them): each operand's first byte in its
 * segment (base: its allocation's element 0 there) and the bytes its
 * piece spans, all inside the region checked for the whole. */
static void gemm_piece(const tsr__wire_gemm *g, size_t item, const uint64_t base[3], int64_t b0,
                       int64_t nb, int64_t r0, int64_t nr, tsr__backend_gemm *bg)
{
    bool ta = g->flags & TSR__WIRE_GEMM_TRANS_A, tb = g->flags & TSR__WIRE_GEMM_TRANS_B;
    nb = g->batch - b0 < nb ? g->batch - b0 : nb;
    nr = g->m - r0 < nr ? g->m - r0 : nr;
    /* stored rows x cols of each operand's piece, and its first element */
    int64_t rows[3] = {nr, ta ? g->k : nr, tb ? g->n : g->k};
    int64_t cols[3] = {g->n, ta ? nr : g->k, tb ? g->k : g->n};
    int64_t first[3] = {r0 * g->ld[0], ta ? r0 : r0 * g->ld[1], 0};
    *bg = (tsr__backend_gemm){.dtype = g->dtype,
                              .batch = (uint64_t)nb,
                              .m = (uint64_t)nr,
                              .n = (uint64_t)g->n,
                              .k = (uint64_t)g->k,
                              .trans_a = ta,
                              .trans_b = tb,
                              .beta_zero = g->flags & TSR__WIRE_GEMM_BETA_ZERO};
    memcpy(bg->alpha, g->alpha, sizeof bg->alpha);
    memcpy(bg->beta, g->beta, sizeof bg->beta);
    for (int i = 0; i < 3; i++) {
        uint64_t at = (uint64_t)(g->offsets[i] + b0 * g->bstride[i] + first[i]);
        uint64_t span = (uint64_t)((nb - 1) * g->bstride[i] + (rows[i] - 1) * g->ld[i] + cols[i]);
        bg->offsets[i] = base[i] + at * item;
        bg->extents[i] = span * item;
        bg->ld[i] = (uint64_t)g->ld[i];
        bg->bstride[i] = (uint64_t)g->bstride[i];
    }
}

tsr_status tsr__exec_gemm(tsr__session *s, const tsr__wire_gemm *g, tsr__wire_launched *out)
{
    const uint32_t known =
        TSR__WIRE_GEMM_TRANS_A | TSR__WIRE_GEMM_TRANS_B | TSR__WIRE_GEMM_BETA_ZERO;
    if (g->dtype >= TSR_DTYPE_COUNT || (g->flags & ~known))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "GEMM: unknown dtype or flags");
    if (g->batch < 0 || g->m < 0 || g->n < 0 || g->k < 1)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "GEMM: batch, m and n must not be negative and k must be positive");
    if (g->handles[0] == g->handles[1] || g->handles[0] == g->handles[2])
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "GEMM: C must be an allocation apart from A's and B's");
    bool ta = g->flags & TSR__WIRE_GEMM_TRANS_A, tb = g->flags & TSR__WIRE_GEMM_TRANS_B;
    int64_t rows[3] = {g->m, ta ? g->k : g->m, tb ? g->n : g->k};
    int64_t cols[3] = {g->n, ta ? g->m : g->k, tb ? g->k : g->n};
    const tsr__device_pool *pool = NULL;
    uint32_t segments[3];
    uint64_t offsets[3], extents[3];
    for (int i = 0; i < 3; i++) {
        tsr_status st =
            gemm_operand(s, g, i, rows[i], cols[i], &pool, &segments[i], &offsets[i], &extents[i]);
        if (st != TSR_OK)
            return st;
    }
    if (tsr__share_read_only(s, g->handles[0]))
        return TSR_ERR_PERMISSION;
    /* C's elements are distinct: its rows do not overlap, nor its matrices */
    if (g->batch > 1 && g->m > 0 && g->bstride[0] < g->m * g->ld[0])
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "GEMM: C's matrices overlap");
    int queue = (int)pool->ordinal;
    const char *be = pool->device->backend->name;
    if (queue >= (int)TSR__RING_QUEUES)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "kernels run on the first %u devices of a type only; %s:%d is past them",
                         TSR__RING_QUEUES, be, queue);
    if (!gemm_dtype(g->dtype) || !pool->device->backend->gemm)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "matrix products in %s are not available on %s devices yet",
                         tsr_dtype_name((tsr_dtype)g->dtype), be);
    if (needs_fp64((tsr_dtype)g->dtype) && !pool->device->info.fp64)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "%s:%d has no double precision, so it cannot compute "
                         "with float64 or complex128",
                         be, queue);
    if (g->batch == 0 || g->m == 0 || g->n == 0) {
        *out = (tsr__wire_launched){.sequence = 0, .queue = (uint32_t)queue};
        return TSR_OK;
    }
    executor *x = NULL;
    tsr_status st = executor_get(s->server, &x);
    if (st != TSR_OK)
        return st;
    /* The generic program of its dtype, or the GEMM program that computes
     * it: its device is open once it has settled, and a device that
     * cannot build it fails the product too. */
    tsr__kernel_key any = gemm_blas_dtype(g->dtype) ? tsr__kernel_generic_key((tsr_dtype)g->dtype)
                                                    : tsr__kernel_gemm_key((tsr_dtype)g->dtype);
    tsr__backend_program *program =
        x->be->program_get(x->rt, (uint32_t)queue, &any, TSR__BUILD_NOW);
    if (!program)
        return TSR_ERR_OUT_OF_MEMORY;
    /* in pieces: whole matrices of the batch, or bands of C's rows */
    uint64_t most = s->server->config->v[TSR__CONF_MATMUL_PIECE].number;
    if (most == TSR__MATMUL_PIECE_AUTO)
        most = x->be->host_code && x->be->host_code(x->rt, (uint32_t)queue) ? GEMM_PIECE_HOST
                                                                            : GEMM_PIECE;
    uint64_t per_row, per_matrix = UINT64_MAX;
    if (__builtin_mul_overflow((uint64_t)g->n, (uint64_t)g->k, &per_row))
        per_row = UINT64_MAX;
    else if (__builtin_mul_overflow(per_row, (uint64_t)g->m, &per_matrix))
        per_matrix = UINT64_MAX;
    int64_t nb = per_matrix <= most ? (int64_t)(most / per_matrix) : 1;
    int64_t nr = per_matrix <= most ? g->m : (int64_t)(most / per_row);
    nr = nr < 1 ? 1 : nr;
    /* Every piece is a job: all of them fit, or none is queued. */
    uint64_t pieces;
    if (__builtin_mul_overflow((uint64_t)((g->batch + nb - 1) / nb),
                               (uint64_t)((g->m + nr - 1) / nr), &pieces))
        pieces = UINT64_MAX;
    if ((st = room_for(s, pieces)) != TSR_OK)
        return st;
    size_t item = tsr_dtype_itemsize((tsr_dtype)g->dtype);
    uint64_t base[3]; /* each allocation's element 0 in its segment, bytes */
    for (int i = 0; i < 3; i++)
        base[i] = offsets[i] - (uint64_t)g->offsets[i] * item;
    for (int64_t b0 = 0; b0 < g->batch; b0 += nb)
        for (int64_t r0 = 0; r0 < g->m; r0 += nr) {
            job *j = NULL;
            if ((st = new_job(x, s, (uint32_t)queue, &j)) != TSR_OK)
                return st;
            j->program = program;
            j->is_gemm = true;
            gemm_piece(g, item, base, b0, nb, r0, nr, &j->gemm);
            for (int i = 0; i < 3; i++) {
                j->segments[i] = segments[i];
                j->launch.offsets[i] = j->gemm.offsets[i];
                j->launch.extents[i] = j->gemm.extents[i];
            }
            if ((st = queue_job(x, j, out)) != TSR_OK)
                return st;
        }
    return TSR_OK;
}

/* Writes `value` at every element of a checked region, innermost
 * dimension in a tight loop. */
static void fill_region(uint8_t *base, const tsr__region *g, const uint8_t *value)
{
    int64_t index[TSR_MAX_DIMS] = {0};
    size_t item = g->itemsize;
    int inner = g->ndim - 1;
    int64_t count = inner >= 0 ? g->sizes[inner] : 1;
    int64_t step = inner >= 0 ? g->strides[inner] : 0;
    for (;;) {
        int64_t at = g->offset;
        for (int k = 0; k < inner; k++)
            at += index[k] * g->strides[k];
        for (int64_t i = 0; i < count; i++)
            memcpy(base + (size_t)(at + i * step) * item, value, item);
        int k = inner - 1;
        for (; k >= 0; k--) {
            if (++index[k] < g->sizes[k])
                break;
            index[k] = 0;
        }
        if (k < 0)
            return;
    }
}

/* Fills of at most this many elements are written on the loop thread
 * when nothing of the session is running on the device: well under a
 * millisecond even an element at a time, and sooner than a kernel's round
 * trip. Larger ones run on the device as fill kernels, in turn with the
 * session's launches, so no fill holds the loop longer than that. */
#define INLINE_FILL_ELEMENTS (INT64_C(1) << 16)

static int64_t region_elements(const tsr__region *g)
{
    int64_t n = 1;
    for (int32_t d = 0; d < g->ndim; d++)
        n *= g->sizes[d]; /* at most the block's elements: tsr__region_distinct */
    return n;
}

/* Queues a fill of a region of `width`-byte elements as a kernel. Any
 * integer dtype of the element's width writes its bytes unchanged; a
 * 16-byte element is two 8-byte halves, each filled by a launch of its
 * own, so no device needs double precision to fill complex128. */
static tsr_status fill_kernel(tsr__session *s, uint64_t handle, const tsr__region *g,
                              const uint8_t *value, tsr__wire_launched *out)
{
    static const tsr_dtype by_width[9] = {
        [1] = TSR_UINT8, [2] = TSR_INT16, [4] = TSR_INT32, [8] = TSR_INT64};
    uint32_t width = g->itemsize == 16 ? 8 : g->itemsize;
    uint32_t parts = g->itemsize / width;
    if (width > 8 || by_width[width] == 0 || g->itemsize % width)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "FILL: an element of %u bytes", g->itemsize);
    tsr_dtype dtype = by_width[width];
    for (uint32_t part = 0; part < parts; part++) {
        tsr__kernel k = {.op = TSR__KOP_FILL, .common = dtype, .ndim = g->ndim, .noperands = 1};
        memcpy(k.sizes, g->sizes, sizeof k.sizes);
        memcpy(k.scalar, value + part * width, width);
        tsr__kernel_operand *o = &k.operands[0];
        *o = (tsr__kernel_operand){
            .dtype = dtype, .handle = handle, .offset = g->offset * parts + part};
        for (int32_t d = 0; d < g->ndim; d++)
            o->strides[d] = g->strides[d] * parts;
        tsr_status st = tsr__exec_launch(s, &k, out);
        if (st != TSR_OK)
            return st;
    }
    return TSR_OK;
}

tsr_status tsr__exec_fill(tsr__session *s, uint32_t queue, uint64_t handle, uint8_t *host,
                          const tsr__region *g, const uint8_t *value, tsr__wire_launched *out)
{
    *out = (tsr__wire_launched){.sequence = 0, .queue = queue};
    executor *x = NULL;
    if (!tsr__memory_in_use(s, queue) && region_elements(g) <= INLINE_FILL_ELEMENTS) {
        fill_region(host, g, value);
        return TSR_OK;
    }
    if (!tsr__memory_in_use(s, queue) && executor_get(s->server, &x) != TSR_OK) {
        /* Kernels are disabled (a driver misbehaved): nothing but the loop
         * can write it, and nothing of the session can be queued before. */
        tsr__log(TSR__LOG_DEBUG, "session %u: a fill of %lld elements runs on the loop: %s", s->id,
                 (long long)region_elements(g), tsr_last_error());
        fill_region(host, g, value);
        return TSR_OK;
    }
    return fill_kernel(s, handle, g, value, out);
}
