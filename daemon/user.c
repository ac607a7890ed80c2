/* See user.h. */
#include "daemon/user.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/ring.h"
#include "daemon/backend.h"
#include "daemon/exec.h"
#include "daemon/log.h"
#include "daemon/memory.h"
#include "daemon/share.h"
#include "daemon/worker_wire.h"

typedef struct worker worker;

/* A program as the daemon keeps it: what the client sent, and what the
 * worker said of its build. */
typedef struct tsr__user_program {
    struct tsr__user_program *next; /* among its session's */
    tsr__session *session;
    uint32_t id;    /* the session's number for it */
    uint32_t wid;   /* the worker's (daemon-wide) number for it */
    uint32_t queue; /* the accelerator's ordinal */
    worker *w;      /* NULL once its worker ended */
    uint32_t state; /* TSR__WIRE_PROGRAM_* */
    tsr_status status;
    char *source;
    uint64_t source_bytes, received;
    char options[TSR__WIRE_PROGRAM_OPTIONS];
    uint32_t format; /* TSR__WIRE_PROGRAM_FORMAT_* */
    char log[TSR__WIRE_BUILD_LOG];
    uint32_t log_length;
    uint32_t nkernels;
    tsr__worker_kernel *kernels;
} program;

/* A launch from its request until its worker reports it. */
typedef struct launch {
    struct launch *next; /* in its worker's backlog */
    tsr__session *s;
    worker *w;
    uint32_t wid;
    tsr__exec_user_job *job;
    uint32_t segments[TSR__WORKER_LAUNCH_FDS]; /* of the message's segments, by index (0: the
                                                  ring) */
    tsr__worker_launch msg;
} launch;

/* What a worker is busy with, in the order it will answer. */
typedef struct pending {
    struct pending *next;
    bool is_launch;
    bool loading;      /* a build answered, its LOADED still to come */
    uint32_t wid;      /* a build's program */
    launch *l;         /* a launch */
    uint64_t limit_ms; /* how long it may take once at the head */
} pending;

/* What one of a worker's segment slots holds (worker_wire.h): a
 * session's segment, or its ring (segment 0); session 0: nothing. */
typedef struct slot_record {
    uint32_t session, segment;
    uint64_t used; /* the launch that used it last */
} slot_record;

struct worker {
    worker *next;
    tsr__server *server;
    uid_t uid;
    uint32_t queue;
    pid_t pid;
    int fd, timer_fd;
    tsr__watch *watch, *timer_watch;
    pending *head, *tail;
    uint32_t queued; /* requests in head's list: sent, not answered */
    /* Launches whose turn came while WORKER_QUEUED were sent and not
     * answered (every session of the uid together), in order: sending
     * more would fill the socket, which ends the worker. */
    struct launch *backlog, *backlog_tail;
    uint32_t acked; /* the last launch whose answer was read */
    char why[160];  /* why it was killed, "" if it was not */
    slot_record slots[TSR__WORKER_SEGMENTS];
    uint64_t launches;
};

typedef struct late_exit late_exit;

typedef struct tsr__user_state {
    worker *workers;
    late_exit *late; /* killed workers not reaped yet */
    int late_fd;     /* the timer that looks for them, when late_watch */
    tsr__watch *late_watch;
    uint32_t builds;     /* builds the workers have not answered */
    uint64_t last_build; /* when the latest was handed over, ns (tsr__now_ns) */
    uint32_t next_wid;
    uint32_t next_launch;
    char path[PATH_MAX];
} state;

#define BUILD_SLACK_MS 5000 /* past the compiler's own limit, for the worker's part */
/* Launches sent to a worker and not answered, at most: the worker takes
 * 32 at a time (opencl/worker.c's INFLIGHT), and what it has not taken
 * waits in the socket's buffer, which a full one ends the worker for. */
#define WORKER_QUEUED 16u
/* What a build puts before a program's options: argument information,
 * for KERNEL_INFO and the checks at launch. */
#define BUILD_OPTIONS "-cl-kernel-arg-info "
#define BUILD_OPTIONS_ADDED (sizeof BUILD_OPTIONS - 1)

static void segment_released(tsr__session *s, uint32_t segment);

static state *state_of(tsr__server *server)
{
    if (!server->user && (server->user = calloc(1, sizeof(state))))
        server->segment_released = segment_released;
    return server->user;
}

static const char *device_name(const tsr__server *server, uint32_t queue, char *buf, size_t n)
{
    snprintf(buf, n, "%s:%u", server->registry.backend ? server->registry.backend->name : "?",
             (unsigned)queue);
    return buf;
}

/* ---- what the administration messages tell ------------------------------ */

/* The first milliseconds of a build do not count: one the worker finds
 * in its disk cache takes a few, and the request for its state that its
 * client makes when woken (build_ended) is answered sooner by a spinning
 * loop than by one it must wake. */
#define BUILD_SPIN_NS 5000000

bool tsr__user_building(const tsr__server *server)
{
    const state *st = server->user;
    return st && st->builds > 0 && tsr__now_ns() - st->last_build > BUILD_SPIN_NS;
}

uint32_t tsr__user_programs(const tsr__session *s, uint32_t queue)
{
    uint32_t n = 0;
    for (const program *p = s->programs; p; p = p->next)
        n += queue == UINT32_MAX || p->queue == queue;
    return n;
}

pid_t tsr__user_worker_pid(const tsr__server *server, uint32_t uid, uint32_t queue)
{
    const state *st = server->user;
    for (const worker *w = st ? st->workers : NULL; w; w = w->next)
        if (w->uid == (uid_t)uid && w->queue == queue)
            return w->pid;
    return 0;
}

void tsr__user_device_counts(const tsr__server *server, uint32_t queue, uint32_t *workers,
                             uint32_t *programs)
{
    const state *st = server->user;
    *workers = *programs = 0;
    for (const worker *w = st ? st->workers : NULL; w; w = w->next)
        *workers += w->queue == queue;
    for (const tsr__session *s = server->first; s; s = s->next)
        *programs += tsr__user_programs(s, queue);
}

/* ---- workers ------------------------------------------------------------ */

static void arm_ms(worker *w, uint64_t ms)
{
    struct itimerspec t = {0};
    t.it_value.tv_sec = (time_t)(ms / 1000);
    t.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
    timerfd_settime(w->timer_fd, 0, &t, NULL);
}

/* The timer times the request at the head of the queue; none: it is off
 * (or, set by worker_idle_check, counts an idle worker's last moments). */
static void arm(worker *w)
{
    arm_ms(w, w->head ? w->head->limit_ms : 0);
}

static void push(worker *w, pending *p)
{
    w->queued++;
    p->next = NULL;
    if (w->tail)
        w->tail->next = p;
    else
        w->head = p;
    w->tail = p;
    if (w->head == p)
        arm(w);
}

static pending *pop(worker *w)
{
    pending *p = w->head;
    if (p) {
        w->queued--;
        w->head = p->next;
        if (!w->head)
            w->tail = NULL;
        arm(w);
    }
    return p;
}

/* The program a worker's answer names: wids are unique among the
 * daemon's live programs (tsr__user_program_create skips those in use). */
static program *program_by_wid(tsr__server *server, uint32_t wid)
{
    for (tsr__session *s = server->first; s; s = s->next)
        for (program *p = s->programs; p; p = p->next)
            if (p->wid == wid)
                return p;
    return NULL;
}

/* The same among one session's programs: a launch's, which must never
 * reach another session's program (and its uid's worker). */
static program *session_program_by_wid(tsr__session *s, uint32_t wid)
{
    for (program *p = s->programs; p; p = p->next)
        if (p->wid == wid)
            return p;
    return NULL;
}

/* Tells a session's client that one of its builds ended: its ring's
 * builds_ended raised, whoever sleeps on it in tsr_program_wait woken
 * (core/ring.h). A build is rare enough to wake unasked. */
static void build_ended(tsr__session *s)
{
    if (!s->ring)
        return;
    atomic_fetch_add(&s->ring->header.builds_ended, 1u);
    syscall(SYS_futex, (uint32_t *)&s->ring->header.builds_ended, FUTEX_WAKE, INT_MAX, NULL, NULL,
            0);
}

static void worker_close(worker *w, const char *why, bool idle);

/* Ends a worker: what it had not answered fails with `why`, its programs
 * break, and it is reaped. */
static void worker_end(worker *w, const char *why)
{
    worker_close(w, why, false);
}

/* Whether a worker has nothing to do: nothing to answer, no program. */
static bool worker_idle(const worker *w)
{
    if (w->head)
        return false;
    for (const tsr__session *s = w->server->first; s; s = s->next)
        for (const program *p = s->programs; p; p = p->next)
            if (p->w == w)
                return false;
    return true;
}

/* A worker with nothing to do is stopped after kernels.worker_idle_ms, so
 * that an idle uid holds no process, context or memory while the next
 * program of a uid that is busy (a job's next process) finds its worker
 * and its context ready. */
static void worker_idle_check(worker *w)
{
    if (worker_idle(w))
        arm_ms(w, w->server->config->v[TSR__CONF_WORKER_IDLE].number);
}

/* A killed worker that has not exited yet. Its pidfd would not do to
 * wait for it: a worker runs as its user, who may trace it, and the
 * zombie of a traced process is the tracer's to reap first, readable on
 * the pidfd long before the daemon may reap it. A timer looks for all of
 * them instead, every LATE_EXIT_MS, and stops when none is left. */
struct late_exit {
    late_exit *next;
    pid_t pid;
};

#define LATE_EXIT_MS 100

static void late_timer_set(state *st, bool on)
{
    struct itimerspec t = {0};
    if (on) {
        t.it_value.tv_nsec = LATE_EXIT_MS * 1000000L;
        t.it_interval = t.it_value;
    }
    timerfd_settime(st->late_fd, 0, &t, NULL);
}

/* Reaps, without waiting, the late exits that have ended; whether any
 * is left. */
static bool reap_late(state *st)
{
    for (late_exit **at = &st->late; *at;) {
        late_exit *e = *at;
        pid_t got = waitpid(e->pid, NULL, WNOHANG);
        if (got == e->pid || (got < 0 && errno != EINTR)) {
            *at = e->next;
            free(e);
        } else {
            at = &e->next;
        }
    }
    return st->late != NULL;
}

static void on_late_timer(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    state *st = data;
    uint64_t ticks;
    if (read(st->late_fd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
        return;
    if (!reap_late(st))
        late_timer_set(st, false);
}

/* Waits up to `ms` for a process sent SIGKILL to exit and reaps it into
 * *wstatus; whether it did. */
static bool wait_killed(pid_t pid, int *wstatus, int ms)
{
    for (int k = 0; k < ms * 10; k++) {
        pid_t got = waitpid(pid, wstatus, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR))
            return got == pid;
        if (got == 0)
            usleep(100);
    }
    return false;
}

/* Reaps a worker sent SIGKILL, into *wstatus, without blocking the loop
 * on it: a process of the user's may be slow to exit, or held in its
 * exit by a tracer of the user's. It gets up to 20 ms; after that it is
 * reaped when it exits (false, *wstatus untouched). */
static bool reap_killed(tsr__server *server, pid_t pid, int *wstatus)
{
    if (wait_killed(pid, wstatus, 20))
        return true;
    state *st = server->user;
    late_exit *e = calloc(1, sizeof *e);
    if (e && !st->late_watch) {
        st->late_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (st->late_fd >= 0 && tsr__loop_watch(server->loop, st->late_fd, EPOLLIN, on_late_timer,
                                                st, &st->late_watch) != TSR_OK) {
            close(st->late_fd);
            st->late_watch = NULL;
        }
    }
    if (e && st->late_watch) {
        e->pid = pid;
        e->next = st->late;
        st->late = e;
        late_timer_set(st, true);
        tsr__log(TSR__LOG_INFO, "kernel worker pid %ld has not exited yet; reaped when it does",
                 (long)pid);
        return false;
    }
    /* No timer: it stays a zombie until the daemon exits. */
    tsr__log(TSR__LOG_WARNING, "kernel worker pid %ld did not exit at once; not waiting for it",
             (long)pid);
    free(e);
    return false;
}

static void worker_close(worker *w, const char *why, bool idle)
{
    tsr__server *server = w->server;
    state *st = server->user;
    char dev[64], text[512];
    device_name(server, w->queue, dev, sizeof dev);
    kill(w->pid, SIGKILL);
    int wstatus = 0;
    (void)reap_killed(server, w->pid, &wstatus);
    if (!why) {
        if (w->why[0])
            why = w->why;
        else if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) != SIGKILL)
            why = strsignal(WTERMSIG(wstatus));
        else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == TSR__WORKER_EXIT_KERNEL_FAILED)
            why = "a kernel failed on the device (an access out of bounds, say), which loses "
                  "the device's context";
        else
            why = "it exited";
    }
    snprintf(text, sizeof text, "the kernel worker of uid %u on %s %s: %s", (unsigned)w->uid, dev,
             idle ? "stopped" : "ended", why);
    tsr__log(idle ? TSR__LOG_INFO : TSR__LOG_NOTICE, "%s", text);
    tsr__loop_unwatch(server->loop, w->watch);
    tsr__loop_unwatch(server->loop, w->timer_watch);
    close(w->fd);
    close(w->timer_fd);
    for (pending *p; (p = w->head);) {
        w->head = p->next;
        if (p->is_launch) {
            tsr__exec_user_done(p->l->job, TSR_ERR_DEVICE, text);
            free(p->l);
        } else {
            st->builds--;
        }
        free(p);
    }
    for (launch *l; (l = w->backlog);) { /* after those sent: in order */
        w->backlog = l->next;
        tsr__exec_user_done(l->job, TSR_ERR_DEVICE, text);
        free(l);
    }
    for (tsr__session *s = server->first; s; s = s->next)
        for (program *p = s->programs; p; p = p->next)
            if (p->w == w) {
                p->w = NULL;
                if (p->state != TSR__WIRE_PROGRAM_BROKEN) {
                    p->state = TSR__WIRE_PROGRAM_BROKEN;
                    p->status = TSR_ERR_DEVICE;
                    snprintf(p->log, sizeof p->log, "%s", text);
                    p->log_length = (uint32_t)strlen(p->log);
                    build_ended(s);
                }
            }
    for (worker **at = &st->workers; *at; at = &(*at)->next)
        if (*at == w) {
            *at = w->next;
            break;
        }
    free(w);
}

/* A build's answer, read (tsr__worker_built_read) in place. Whether the
 * worker said that a LOADED follows (it sends one for every success it
 * answered so, whatever the daemon makes of the rest). */
static bool on_built(worker *w, tsr__worker_built *b, size_t got)
{
    bool loading = b->status == TSR_OK && (b->flags & TSR__WORKER_BUILT_LOADING);
    program *p = program_by_wid(w->server, b->program);
    if (!p || p->w != w) {
        tsr__worker_release rel = {.op = TSR__WORKER_RELEASE, .program = b->program};
        send(w->fd, &rel, sizeof rel, MSG_NOSIGNAL | MSG_DONTWAIT);
        return loading;
    }
    p->status = (tsr_status)tsr__worker_built_read(b, got);
    memcpy(p->log, b->log, b->log_length + 1);
    p->log_length = b->log_length;
    uint32_t n = b->nkernels;
    if (p->status == TSR_OK && n && !(p->kernels = calloc(n, sizeof *p->kernels)))
        p->status = tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    if (p->status == TSR_OK) {
        memcpy(p->kernels, b->kernels, n * sizeof *p->kernels);
        p->nkernels = n;
        p->state = TSR__WIRE_PROGRAM_BUILT;
        tsr__log(TSR__LOG_INFO, "session %u: program %u built%s", p->session->id, p->id,
                 b->flags & TSR__WORKER_BUILT_CACHED ? " (from the disk cache)" : "");
    } else {
        p->state = TSR__WIRE_PROGRAM_BROKEN;
    }
    build_ended(p->session);
    return loading;
}

/* The end of a build answered before its binary was loaded: the worker
 * fails the program's launches itself where the load failed. */
static void on_loaded(worker *w, tsr__worker_loaded *l)
{
    tsr_status status = (tsr_status)tsr__worker_loaded_read(l);
    const program *p = program_by_wid(w->server, l->program);
    if (status != TSR_OK && p && p->w == w)
        tsr__log(TSR__LOG_NOTICE, "session %u: program %u could not be loaded: %s", p->session->id,
                 p->id, l->message);
}

static bool launch_now(launch *l);

static void on_worker(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    worker *w = data;
    static tsr__worker_answer msg;
    /* MSG_TRUNC: the packet's whole length, so a longer one is refused. */
    ssize_t got = recv(w->fd, &msg, sizeof msg, MSG_DONTWAIT | MSG_TRUNC);
    if (got < 0 && (errno == EAGAIN || errno == EINTR) && !(events & (EPOLLHUP | EPOLLERR)))
        return;
    pending *p = got > 0 ? w->head : NULL;
    uint32_t owed = !p             ? 0
                    : p->is_launch ? TSR__WORKER_DONE
                    : p->loading   ? TSR__WORKER_LOADED
                                   : TSR__WORKER_BUILT;
    if (!p ||
        !tsr__worker_answer_ok(&msg, (size_t)got, owed, p->is_launch ? p->l->msg.launch : p->wid)) {
        worker_end(w, got > 0 ? "it sent a malformed answer" : NULL);
        return;
    }
    if (owed == TSR__WORKER_BUILT && on_built(w, &msg.built, (size_t)got)) {
        /* Its binary still to load: the build keeps its place, and its
         * time limit, until LOADED. The session goes on meanwhile. */
        p->loading = true;
        tsr__exec_settle(w->server);
        return;
    }
    pop(w);
    if (p->is_launch) {
        w->acked = p->l->msg.launch;
        tsr_status status = (tsr_status)tsr__worker_done_read(&msg.done);
        tsr__exec_user_done(p->l->job, status, msg.done.message);
        free(p->l);
    } else {
        w->server->user->builds--;
        if (owed == TSR__WORKER_LOADED)
            on_loaded(w, &msg.loaded);
    }
    free(p);
    worker_idle_check(w);
    tsr__server *server = w->server;
    /* What the backlog holds goes while there is room: one for this
     * answer, more where launches end without being sent (their program
     * released, their session gone). Sending may end the worker. */
    while (w->backlog && w->queued < WORKER_QUEUED) {
        launch *next = w->backlog;
        w->backlog = next->next;
        if (!launch_now(next))
            break;
    }
    /* The session's next launch goes now, not after another round of the
     * loop (its client may be waiting to hand it over already). */
    tsr__exec_settle(server);
}

static void on_timer(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop;
    (void)events;
    worker *w = data;
    uint64_t ticks;
    if (read(w->timer_fd, &ticks, sizeof ticks) != sizeof ticks)
        return;
    if (!w->head) {
        if (worker_idle(w))
            worker_close(w, "no programs left", true);
        return;
    }
    snprintf(w->why, sizeof w->why, "%s ran past its time limit (%s, %llu ms) and was stopped",
             w->head->is_launch ? "a kernel" : "a build",
             w->head->is_launch ? "kernels.run_time_limit_ms" : "kernels.build_time_limit_ms",
             (unsigned long long)w->head->limit_ms);
    worker_end(w, NULL);
}

/* The worker executable: beside tesserad's own (a build tree), else in
 * libexec. */
static const char *worker_path(state *st, const char *name)
{
    if (st->path[0])
        return st->path;
    char self[PATH_MAX - 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            int len = snprintf(st->path, sizeof st->path, "%s/%.60s", self, name);
            if (len > 0 && (size_t)len < sizeof st->path && access(st->path, X_OK) == 0)
                return st->path;
        }
    }
#ifdef TSR_LIBEXECDIR
    snprintf(st->path, sizeof st->path, "%s/tessera/%s", TSR_LIBEXECDIR, name);
#else
    snprintf(st->path, sizeof st->path, "/usr/libexec/tessera/%s", name);
#endif
    return st->path;
}

/* The folder of a uid's compiled programs, `<cache>/user/<uid>`, made
 * when missing and given to `uid` when the worker is to run as that uid;
 * an open descriptor of it, or -1 (no disk cache: programs are
 * compiled every time). */
static int user_cache_dir(tsr__server *server, uid_t uid, gid_t gid, bool drop)
{
    char buf[1024], path[1200];
    const char *dir = tsr__exec_cache_dir(server, buf, sizeof buf);
    if (!dir[0] || dir[0] != '/')
        return -1;
    snprintf(path, sizeof path, "%s", dir);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/user", dir);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/user/%u", dir, (unsigned)uid);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || (st.st_uid != geteuid() && st.st_uid != uid) ||
                    (drop && st.st_uid != uid && fchown(fd, uid, gid) != 0))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The environment of a worker that runs as another uid than the daemon:
 * the daemon's, with the driver's own cache in the uid's folder (the
 * daemon user's home is not that uid's). NULL-terminated, malloc'd. */
static char **worker_environment(bool with_cache)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t used = 0;
    for (size_t k = 0; k < n; k++)
        if (strncmp(environ[k], "POCL_CACHE_DIR=", 15) != 0)
            env[used++] = environ[k];
    if (with_cache)
        env[used++] = "POCL_CACHE_DIR=/proc/self/fd/4/driver";
    return env;
}

static tsr_status worker_start(tsr__server *server, uid_t uid, gid_t gid, uint32_t queue,
                               worker **out)
{
    state *st = state_of(server);
    const tsr__registry *reg = &server->registry;
    const tsr__backend *be = reg->backend;
    char where[64], fdtext[16], cache[32] = "";
    if (!st)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
    if (!be || !be->worker || !be->worker_device ||
        !be->worker_device(&reg->found, queue, where, sizeof where))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "this device's backend runs no user kernels");
    const char *path = worker_path(st, be->worker);
    if (access(path, X_OK) != 0)
        return tsr__fail(TSR_ERR_NOT_SUPPORTED, "user kernels need %s, which is not installed",
                         path);
    worker *w = calloc(1, sizeof *w);
    int sv[2] = {-1, -1};
    if (!w || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        free(w);
        return tsr__fail(TSR_ERR_IO, "could not start a kernel worker: %s", strerror(errno));
    }
    w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    snprintf(fdtext, sizeof fdtext, "%d", 3);
    /* A root daemon runs each uid's worker as that uid: what a kernel that
     * took over its worker could do is what its user can. */
    bool drop = geteuid() == 0 && uid != 0;
    int cache_fd = user_cache_dir(server, uid, gid, drop);
    if (cache_fd >= 0)
        snprintf(cache, sizeof cache, "/proc/self/fd/4");
    char **env = drop ? worker_environment(cache_fd >= 0) : NULL;
    char *argv[] = {(char *)path, "serve", fdtext, where, cache, NULL};
    extern char **environ;
    pid_t parent = getpid();
    pid_t pid = w->timer_fd >= 0 && (!drop || env) ? fork() : -1;
    if (pid == 0) {
        /* Only async-signal-safe calls until exec: the daemon has threads.
         * The copies above 10 close at exec; 3 and 4 (dup2) stay. */
        int sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10),
            dir = cache_fd >= 0 ? fcntl(cache_fd, F_DUPFD_CLOEXEC, 10) : -1;
        if (sock < 0 || dup2(sock, 3) < 0 || (cache_fd >= 0 && (dir < 0 || dup2(dir, 4) < 0)))
            _exit(127);
        /* Nothing else goes to the worker, not even a descriptor a driver
         * or library of the daemon opened without O_CLOEXEC (a device
         * node: the daemon's context). Kernels before 5.9 have no
         * close_range; there the exec closes the daemon's own. */
        (void)close_range(cache_fd >= 0 ? 5 : 4, ~0U, 0);
        if (drop && (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0))
            _exit(126);
        /* It dies with the daemon: set after the change of uid, which
         * clears it, and checked against a daemon gone meanwhile. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(125);
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        execve(path, argv, drop ? env : environ);
        _exit(127);
    }
    free(env);
    if (cache_fd >= 0)
        close(cache_fd);
    close(sv[1]);
    tsr_status s = TSR_OK;
    if (pid < 0)
        s = tsr__fail(TSR_ERR_IO, "could not start a kernel worker: %s", strerror(errno));
    w->server = server;
    w->uid = uid;
    w->queue = queue;
    w->pid = pid;
    w->fd = sv[0];
    if (s == TSR_OK)
        s = tsr__loop_watch(server->loop, w->fd, EPOLLIN, on_worker, w, &w->watch);
    if (s == TSR_OK)
        s = tsr__loop_watch(server->loop, w->timer_fd, EPOLLIN, on_timer, w, &w->timer_watch);
    if (s != TSR_OK) {
        if (pid > 0) {
            /* not waited for on the loop: reap_killed's reasons */
            int wstatus;
            kill(pid, SIGKILL);
            (void)reap_killed(server, pid, &wstatus);
        }
        if (w->watch)
            tsr__loop_unwatch(server->loop, w->watch);
        close(w->fd);
        if (w->timer_fd >= 0)
            close(w->timer_fd);
        free(w);
        return s;
    }
    w->next = st->workers;
    st->workers = w;
    char dev[64];
    tsr__log(TSR__LOG_INFO, "kernel worker of uid %u on %s started (pid %d)", (unsigned)uid,
             device_name(server, queue, dev, sizeof dev), (int)pid);
    *out = w;
    return TSR_OK;
}

static tsr_status worker_for(tsr__session *s, uint32_t queue, worker **out)
{
    state *st = state_of(s->server);
    for (worker *w = st ? st->workers : NULL; w; w = w->next)
        if (w->uid == s->uid && w->queue == queue) {
            *out = w;
            return TSR_OK;
        }
    return worker_start(s->server, s->uid, s->gid, queue, out);
}

/* Sends a message with descriptors; a worker that cannot take it ends. */
static bool worker_send(worker *w, const void *msg, size_t len, const int *fds, uint32_t nfds)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * TSR__WORKER_LAUNCH_FDS)];
    } control;
    struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        mh.msg_control = control.buf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    return sendmsg(w->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len;
}

/* Tells a worker to let go of `slots` (a bit per slot: worker_wire.h's
 * FORGET). A worker whose socket takes no more is killed, its end then
 * seen on the loop as any worker's: ending it here could reenter the
 * caller (a session's end, a segment's release). */
static void worker_forget(worker *w, uint64_t slots)
{
    tsr__worker_forget m = {.op = TSR__WORKER_FORGET, .slots = slots};
    if (slots && !worker_send(w, &m, sizeof m, NULL, 0) && w->pid > 0)
        kill(w->pid, SIGKILL);
}

/* The slots of w that hold session `id`'s segment `segment` (every
 * segment of the session and its ring where `all`), emptied. */
static uint64_t slots_of(worker *w, uint32_t id, uint32_t segment, bool all)
{
    uint64_t gone = 0;
    for (uint32_t k = 0; k < TSR__WORKER_SEGMENTS; k++)
        if (w->slots[k].session == id && (all || w->slots[k].segment == segment)) {
            w->slots[k] = (slot_record){0};
            gone |= UINT64_C(1) << k;
        }
    return gone;
}

/* server->segment_released: the workers of s's uid that hold the segment
 * let go of it. */
static void segment_released(tsr__session *s, uint32_t segment)
{
    state *st = s->server->user;
    for (worker *w = st ? st->workers : NULL; w; w = w->next)
        if (w->uid == s->uid)
            worker_forget(w, slots_of(w, s->id, segment, false));
}

/* ---- programs ----------------------------------------------------------- */

static program *session_program(tsr__session *s, uint32_t id)
{
    for (program *p = s->programs; p; p = p->next)
        if (p->id == id)
            return p;
    tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u is not one of this session's", (unsigned)id);
    return NULL;
}

static void program_free(program *p)
{
    if (p->w) {
        tsr__worker_release rel = {.op = TSR__WORKER_RELEASE, .program = p->wid};
        worker_send(p->w, &rel, sizeof rel, NULL, 0);
    }
    free(p->source);
    free(p->kernels);
    free(p);
}

static uint64_t config_number(const tsr__session *s, tsr__config_key_id key)
{
    return s->server->config->v[key].number;
}

bool tsr__user_kernels_allowed(const tsr__session *s)
{
    uint64_t mode = config_number(s, TSR__CONF_USER_KERNELS);
    return mode == 1 ||
           (mode == TSR__USER_KERNELS_AUTO && (geteuid() == 0 || s->uid == (uid_t)geteuid()));
}

tsr_status tsr__user_program_create(tsr__request *r, const tsr__device_pool *pool)
{
    const tsr__wire_program_create *in = r->in;
    tsr__session *s = r->s;
    if (!config_number(s, TSR__CONF_USER_KERNELS))
        return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                         "user kernels are turned off on this daemon (kernels.user = off)");
    /* A kernel that takes over its worker acts as the worker's uid: one
     * that would run as the daemon's user, for another user, waits for
     * the administrator's word (kernels.user = on). */
    if (!tsr__user_kernels_allowed(s))
        return tsr__fail(TSR_ERR_PERMISSION,
                         "user kernels of uid %u are refused: this tesserad runs as uid %u, not "
                         "root, so they would run as its user, not yours (kernels.user = auto; "
                         "on allows it where the machine's users trust each other)",
                         (unsigned)s->uid, (unsigned)geteuid());
    if (!tsr__wire_text_ok(in->options, sizeof in->options))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program options are not NUL-terminated");
    /* Checked before any source comes: the worker gets them after the
     * options the daemon always adds (build). */
    if (strlen(in->options) + BUILD_OPTIONS_ADDED >= sizeof(((tsr__worker_build *)0)->options))
        return tsr__fail(
            TSR_ERR_INVALID_ARGUMENT, "program options are too long (at most %u bytes)",
            (unsigned)(sizeof(((tsr__worker_build *)0)->options) - BUILD_OPTIONS_ADDED - 1));
    if (in->format > TSR__WIRE_PROGRAM_FORMAT_SPIRV)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "unknown program format %u",
                         (unsigned)in->format);
    if (in->format == TSR__WIRE_PROGRAM_FORMAT_SPIRV) {
        char dev[64];
        const tsr__backend *be = s->server->registry.backend;
        if (!pool->device->desc.il_program)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED,
                             "%s cannot build SPIR-V programs: its driver does not report the %s",
                             device_name(s->server, pool->ordinal, dev, sizeof dev),
                             be && be->spirv_requires ? be->spirv_requires : "support for SPIR-V");
        if (in->source_bytes < 20 || in->source_bytes % 4 != 0)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "a SPIR-V module is a whole number of 4-byte words, at least its "
                             "5-word header, not %llu bytes",
                             (unsigned long long)in->source_bytes);
    }
    uint64_t max_source = config_number(s, TSR__CONF_MAX_SOURCE);
    if (in->source_bytes == 0 || in->source_bytes > max_source)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "a program's source must be 1 to %llu bytes (kernels.max_source_bytes), "
                         "not %llu",
                         (unsigned long long)max_source, (unsigned long long)in->source_bytes);
    /* One source in flight at a time: what a session makes the daemon
     * hold for sources it has not finished sending is one source's
     * bytes, not kernels.max_programs of them. */
    for (const program *q = s->programs; q; q = q->next)
        if (q->state == TSR__WIRE_PROGRAM_RECEIVING)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "program %u is still receiving its source: send it (PROGRAM_SOURCE) "
                             "or release it first",
                             (unsigned)q->id);
    if (s->program_count >= config_number(s, TSR__CONF_MAX_PROGRAMS))
        return tsr__fail(TSR_ERR_LIMIT,
                         "this session holds %u programs, the most it may (kernels.max_programs)",
                         (unsigned)s->program_count);
    state *us = state_of(s->server);
    program *p = us ? calloc(1, sizeof *p) : NULL;
    if (p)
        p->source = malloc(in->source_bytes);
    if (!p || !p->source) {
        free(p);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for a program's source");
    }
    p->session = s;
    p->id = ++s->next_program;
    /* After 2^32 programs the numbers come round: skip 0 and those of
     * programs still alive, so that every answer finds its own. */
    do {
        if (!++us->next_wid)
            us->next_wid = 1;
    } while (program_by_wid(s->server, us->next_wid));
    p->wid = us->next_wid;
    p->queue = pool->ordinal;
    p->state = TSR__WIRE_PROGRAM_RECEIVING;
    p->source_bytes = in->source_bytes;
    p->format = in->format;
    memcpy(p->options, in->options, sizeof p->options);
    p->next = s->programs;
    s->programs = p;
    s->program_count++;
    *(tsr__wire_program *)r->out = (tsr__wire_program){.program = p->id};
    return TSR_OK;
}

/* Hands a received program to its worker. */
static tsr_status build(tsr__session *s, program *p)
{
    worker *w = NULL;
    tsr_status st = worker_for(s, p->queue, &w);
    if (st != TSR_OK)
        return st;
    int fd = memfd_create("tessera-source", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return tsr__fail(TSR_ERR_IO, "memfd_create failed: %s", strerror(errno));
    bool ok = true;
    for (uint64_t done = 0; ok && done < p->source_bytes;) {
        ssize_t n = write(fd, p->source + done, p->source_bytes - done);
        ok = n > 0;
        done += ok ? (uint64_t)n : 0;
    }
    ok = ok && lseek(fd, 0, SEEK_SET) == 0 &&
         fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0;
    /* The options the daemon always adds: argument information, for
     * KERNEL_INFO and the checks at launch. */
    tsr__worker_build msg = {.op = TSR__WORKER_BUILD,
                             .program = p->wid,
                             .build_ms = (uint32_t)config_number(s, TSR__CONF_BUILD_TIME),
                             .format = p->format,
                             .source_bytes = p->source_bytes,
                             .build_memory = config_number(s, TSR__CONF_BUILD_MEMORY)};
    int used = snprintf(msg.options, sizeof msg.options, BUILD_OPTIONS "%s", p->options);
    pending *q = ok && used > 0 && (size_t)used < sizeof msg.options ? calloc(1, sizeof *q) : NULL;
    if (!q) { /* the options were checked at PROGRAM_CREATE */
        close(fd);
        worker_idle_check(w); /* a worker started for this build alone stops in time */
        return tsr__fail(TSR_ERR_IO, "could not pass a program's source to its worker");
    }
    if (!worker_send(w, &msg, sizeof msg, &fd, 1)) {
        close(fd);
        free(q);
        worker_end(w, "it took no more requests");
        return tsr__fail(TSR_ERR_DEVICE, "the kernel worker took no more requests");
    }
    close(fd);
    q->wid = p->wid;
    q->limit_ms = msg.build_ms + BUILD_SLACK_MS;
    push(w, q);
    s->server->user->builds++;
    s->server->user->last_build = tsr__now_ns();
    p->w = w;
    p->state = TSR__WIRE_PROGRAM_BUILDING;
    free(p->source);
    p->source = NULL;
    return TSR_OK;
}

tsr_status tsr__user_program_source(tsr__request *r)
{
    const tsr__wire_program_source *in = r->in;
    program *p = session_program(r->s, in->program);
    if (!p)
        return TSR_ERR_INVALID_ARGUMENT;
    if (p->state != TSR__WIRE_PROGRAM_RECEIVING)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u has all its source already",
                         (unsigned)p->id);
    if (in->length == 0 || in->length > TSR__WIRE_SOURCE_CHUNK || in->offset != p->received ||
        in->length > p->source_bytes - p->received)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "PROGRAM_SOURCE: %u bytes at %llu do not follow the %llu received of "
                         "%llu",
                         (unsigned)in->length, (unsigned long long)in->offset,
                         (unsigned long long)p->received, (unsigned long long)p->source_bytes);
    memcpy(p->source + p->received, in->data, in->length);
    p->received += in->length;
    if (p->received < p->source_bytes)
        return TSR_OK;
    static const uint8_t spirv_magic[2][4] = {{0x03, 0x02, 0x23, 0x07}, {0x07, 0x23, 0x02, 0x03}};
    tsr_status st = p->format == TSR__WIRE_PROGRAM_FORMAT_SPIRV &&
                            memcmp(p->source, spirv_magic[0], 4) != 0 &&
                            memcmp(p->source, spirv_magic[1], 4) != 0
                        ? tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                                    "the program is no SPIR-V module (its first word is not the "
                                    "magic number 0x07230203)")
                        : build(r->s, p);
    if (st != TSR_OK) {
        p->state = TSR__WIRE_PROGRAM_BROKEN;
        p->status = st;
        snprintf(p->log, sizeof p->log, "%s", tsr_last_error());
        p->log_length = (uint32_t)strlen(p->log);
        free(p->source); /* a broken program keeps its log, not its source */
        p->source = NULL;
    }
    return st;
}

tsr_status tsr__user_program_status(tsr__request *r)
{
    program *p = session_program(r->s, ((const tsr__wire_program *)r->in)->program);
    if (!p)
        return TSR_ERR_INVALID_ARGUMENT;
    tsr__wire_program_status *out = r->out;
    memset(out, 0, sizeof *out);
    out->state = p->state;
    out->status = p->state == TSR__WIRE_PROGRAM_BROKEN ? (int32_t)p->status : TSR_OK;
    out->kernel_count = p->nkernels;
    out->log_length = p->log_length;
    memcpy(out->log, p->log, p->log_length);
    return TSR_OK;
}

tsr_status tsr__user_program_release(tsr__request *r)
{
    uint32_t id = ((const tsr__wire_program *)r->in)->program;
    tsr__session *s = r->s;
    for (program **at = &s->programs; *at; at = &(*at)->next)
        if ((*at)->id == id) {
            program *p = *at;
            worker *w = p->w;
            *at = p->next;
            s->program_count--;
            program_free(p);
            if (w)
                worker_idle_check(w);
            return TSR_OK;
        }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u is not one of this session's",
                     (unsigned)id);
}

static tsr_status built_program(tsr__session *s, uint32_t id, program **out)
{
    program *p = session_program(s, id);
    if (!p)
        return TSR_ERR_INVALID_ARGUMENT;
    if (p->state == TSR__WIRE_PROGRAM_BROKEN)
        return tsr__fail(p->status, "program %u cannot run: %s", (unsigned)id, p->log);
    if (p->state != TSR__WIRE_PROGRAM_BUILT)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u is not built yet", (unsigned)id);
    *out = p;
    return TSR_OK;
}

tsr_status tsr__user_kernel_info(tsr__request *r)
{
    const tsr__wire_kernel_query *in = r->in;
    program *p = NULL;
    tsr_status st = built_program(r->s, in->program, &p);
    if (st != TSR_OK)
        return st;
    if (!tsr__wire_text_ok(in->name, sizeof in->name))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "a kernel name is not NUL-terminated");
    for (uint32_t k = 0; k < p->nkernels; k++) {
        if (strcmp(p->kernels[k].name, in->name) != 0)
            continue;
        tsr__wire_kernel_info *out = r->out;
        memset(out, 0, sizeof *out);
        out->kernel = k;
        out->nargs = p->kernels[k].nargs;
        memcpy(out->args, p->kernels[k].args, sizeof out->args);
        return TSR_OK;
    }
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u has no kernel named '%s'",
                     (unsigned)p->id, in->name);
}

static const char *kind_name(uint32_t kind)
{
    static const char *names[] = {"a tensor (__global)", "a tensor (__constant)",
                                  "a local memory size (__local)", "a scalar"};
    return kind < TSR__KARG_KINDS ? names[kind] : "?";
}

/* The worker's slot for a session's segment (0: its ring): the one that
 * holds it, else an empty one or the least recently used of those no
 * other segment of this launch uses (w->launches counts this one), which
 * then gets it (*fresh: its memfd goes with the message). */
static uint32_t worker_slot(worker *w, uint32_t session, uint32_t segment, bool *fresh)
{
    uint32_t pick = 0;
    for (uint32_t k = 0; k < TSR__WORKER_SEGMENTS; k++) {
        if (w->slots[k].session == session && w->slots[k].segment == segment) {
            w->slots[k].used = w->launches;
            *fresh = false;
            return k;
        }
        if (w->slots[k].used < w->slots[pick].used)
            pick = k;
    }
    w->slots[pick].session = session;
    w->slots[pick].segment = segment;
    w->slots[pick].used = w->launches;
    *fresh = true;
    return pick;
}

/* Sends a launch to its program's worker, or ends it; false when the
 * worker was ended (freed) meanwhile. */
static bool launch_now(launch *l)
{
    tsr__exec_user_job *job = l->job;
    program *p = session_program_by_wid(l->s, l->wid);
    worker *w = p ? p->w : NULL;
    if (!w) {
        tsr__exec_user_done(job, TSR_ERR_DEVICE,
                            p ? p->log : "the kernel's program was released before it ran");
        free(l);
        return true;
    }
    /* The session's ring, for the worker to publish the launch's end in
     * (worker_wire.h), is one more segment: 0. */
    l->msg.ring = UINT32_MAX;
    if (l->s->ring && l->s->ring_fd >= 0 && p->queue < TSR__RING_QUEUES) {
        l->segments[l->msg.nsegments] = 0;
        l->msg.ring = l->msg.nsegments++;
        l->msg.ring_queue = p->queue;
        l->msg.sequence = tsr__exec_user_sequence(job);
    }
    int all[TSR__WORKER_LAUNCH_FDS], fds[TSR__WORKER_LAUNCH_FDS];
    for (uint32_t f = 0; f < l->msg.nsegments; f++) {
        tsr__segment *seg = l->segments[f] ? tsr__session_segment(l->s, l->segments[f]) : NULL;
        if (l->segments[f] && !seg) {
            tsr__exec_user_done(job, TSR_ERR_RUNTIME, "a kernel's memory segment is gone");
            free(l);
            return true;
        }
        all[f] = seg ? seg->fd : l->s->ring_fd;
    }
    pending *q = calloc(1, sizeof *q);
    if (!q) {
        tsr__exec_user_done(job, TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
        free(l);
        return true;
    }
    /* Only now, when nothing can fail before the message is sent (else the
     * worker ends), does the daemon's record of the worker's slots change. */
    uint32_t nfds = 0;
    l->msg.fresh = 0;
    w->launches++;
    for (uint32_t f = 0; f < l->msg.nsegments; f++) {
        bool fresh;
        l->msg.slots[f] = worker_slot(w, l->s->id, l->segments[f], &fresh);
        if (fresh) {
            l->msg.fresh |= UINT64_C(1) << f;
            fds[nfds++] = all[f];
        }
    }
    state *st = l->s->server->user;
    l->msg.launch = ++st->next_launch;
    l->msg.acked = w->acked;
    if (!worker_send(w, &l->msg, sizeof l->msg, fds, nfds)) {
        free(q);
        tsr__exec_user_done(job, TSR_ERR_DEVICE, "the kernel worker took no more requests");
        free(l);
        worker_end(w, "it took no more requests");
        return false;
    }
    q->is_launch = true;
    q->l = l;
    q->limit_ms = config_number(l->s, TSR__CONF_RUN_TIME);
    l->w = w;
    push(w, q);
    return true;
}

/* Starts a launch whose turn came (exec.c), or drops it. */
static void start_launch(void *ctx, tsr__exec_user_job *job)
{
    launch *l = ctx;
    if (!job) {
        free(l);
        return;
    }
    l->job = job;
    program *p = session_program_by_wid(l->s, l->wid);
    worker *w = p ? p->w : NULL;
    if (w && (w->queued >= WORKER_QUEUED || w->backlog)) { /* waits its turn (on_worker) */
        l->next = NULL;
        if (w->backlog)
            w->backlog_tail->next = l;
        else
            w->backlog = l;
        w->backlog_tail = l;
        return;
    }
    launch_now(l);
}

/* Checks one argument against what the kernel takes and writes it into
 * the worker's message. */
static tsr_status launch_arg(tsr__session *s, const tsr__wire_kernel_arg *want,
                             const tsr__wire_kernel_value *v, uint32_t a, uint32_t queue, launch *l)
{
    tsr__worker_arg *out = &l->msg.args[a];
    if (v->kind != want->kind)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "argument %u (%s) takes %s, not %s", (unsigned)a,
                         want->name, kind_name(want->kind), kind_name(v->kind));
    out->kind = v->kind;
    if (v->kind == TSR__KARG_VALUE) {
        if (want->size == 0)
            return tsr__fail(TSR_ERR_NOT_SUPPORTED, "argument %u (%s): type %s is not supported",
                             (unsigned)a, want->name, want->type);
        if (v->size != want->size)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "argument %u (%s) is a %s of %u bytes, not %u", (unsigned)a,
                             want->name, want->type, (unsigned)want->size, (unsigned)v->size);
        out->size = v->size;
        memcpy(out->value, v->value, sizeof out->value);
        return TSR_OK;
    }
    if (v->kind == TSR__KARG_LOCAL) {
        if (v->bytes == 0 || v->bytes > (UINT64_C(1) << 30))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "argument %u (%s): a local memory size must be 1 byte to 1 GiB",
                             (unsigned)a, want->name);
        out->offset = v->bytes;
        return TSR_OK;
    }
    tsr__block_ref b;
    tsr__device_pool *pool = tsr__session_find_live(s, v->handle, &b);
    if (!pool)
        return TSR_ERR_INVALID_ARGUMENT;
    if (pool->ordinal != queue)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "argument %u (%s): the tensor is on another device than the program",
                         (unsigned)a, want->name);
    /* The worker maps its arguments writable, and a kernel's pointer
     * writes whatever its address space says: no read-only memory there. */
    if (tsr__share_read_only(s, v->handle))
        return tsr__fail(TSR_ERR_PERMISSION,
                         "argument %u (%s): the tensor was imported read-only (its exporter "
                         "shared it so): a user kernel may not take it",
                         (unsigned)a, want->name);
    if (v->bytes > b.size)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "argument %u (%s): offset %llu is past its allocation of %llu bytes",
                         (unsigned)a, want->name, (unsigned long long)v->bytes,
                         (unsigned long long)b.size);
    uint32_t f = 0;
    while (f < l->msg.nsegments && l->segments[f] != b.segment_id)
        f++;
    if (f == l->msg.nsegments)
        l->segments[l->msg.nsegments++] = b.segment_id;
    out->segment = f;
    out->segment_bytes = b.segment_bytes;
    out->offset = b.offset + v->bytes;
    out->extent = b.size - v->bytes;
    return TSR_OK;
}

tsr_status tsr__user_kernel_launch(tsr__request *r)
{
    const tsr__wire_kernel_launch *in = r->in;
    tsr__session *s = r->s;
    program *p = NULL;
    tsr_status st = built_program(s, in->program, &p);
    if (st != TSR_OK)
        return st;
    if (in->kernel >= p->nkernels)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "program %u has no kernel %u", (unsigned)p->id,
                         (unsigned)in->kernel);
    const tsr__worker_kernel *k = &p->kernels[in->kernel];
    if (in->nargs != k->nargs)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "kernel %s takes %u arguments, not %u", k->name,
                         (unsigned)k->nargs, (unsigned)in->nargs);
    if (in->work_dim < 1 || in->work_dim > 3)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "work_dim must be 1, 2 or 3, not %u",
                         (unsigned)in->work_dim);
    bool any_local = false, all_local = true;
    for (uint32_t d = 0; d < in->work_dim; d++) {
        if (in->global[d] == 0 || in->global[d] > (UINT64_C(1) << 40))
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "global size %u must be 1 to 2^40, not %llu",
                             (unsigned)d, (unsigned long long)in->global[d]);
        any_local |= in->local[d] != 0;
        all_local &= in->local[d] != 0 && in->global[d] % in->local[d] == 0;
    }
    if (any_local && !all_local)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "each local size must be nonzero and divide its global size");
    launch *l = calloc(1, sizeof *l);
    if (!l)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory queueing a kernel");
    l->s = s;
    l->wid = p->wid;
    l->msg = (tsr__worker_launch){.op = TSR__WORKER_LAUNCH,
                                  .program = p->wid,
                                  .kernel = in->kernel,
                                  .work_dim = in->work_dim,
                                  .nargs = in->nargs};
    for (uint32_t d = 0; d < in->work_dim; d++) {
        l->msg.global[d] = in->global[d];
        l->msg.local[d] = in->local[d];
    }
    for (uint32_t a = 0; a < in->nargs && st == TSR_OK; a++)
        st = launch_arg(s, &k->args[a], &in->args[a], a, p->queue, l);
    if (st == TSR_OK)
        st = tsr__exec_user_launch(s, p->queue, start_launch, l, r->out);
    if (st != TSR_OK)
        free(l);
    return st;
}

void tsr__user_session_end(tsr__session *s)
{
    while (s->programs) {
        program *p = s->programs;
        s->programs = p->next;
        program_free(p);
    }
    s->program_count = 0;
    state *st = s->server->user;
    for (worker *w = st ? st->workers : NULL, *next; w; w = next) {
        next = w->next;
        if (w->uid != s->uid)
            continue;
        /* Its slots are free for others, and the worker lets go of
         * what they held (its segments are released with it). */
        worker_forget(w, slots_of(w, s->id, 0, true));
        worker_idle_check(w);
    }
}

void tsr__user_shutdown(tsr__server *server)
{
    state *st = server->user;
    if (!st)
        return;
    while (st->workers)
        worker_end(st->workers, "the daemon is stopping");
    /* The loop runs no more: a killed worker gets a last second to exit
     * (a busy machine may take that long to tear down its memory), and
     * is left to init after that. */
    for (int k = 0; k < 1000 && reap_late(st); k++)
        usleep(1000);
    while (st->late) {
        late_exit *e = st->late;
        st->late = e->next;
        tsr__log(TSR__LOG_WARNING, "kernel worker pid %ld had not exited at stop", (long)e->pid);
        free(e);
    }
    if (st->late_watch) {
        tsr__loop_unwatch(server->loop, st->late_watch);
        close(st->late_fd);
    }
    free(st);
    server->user = NULL;
}
