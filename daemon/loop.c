/* See loop.h. Watches are heap objects named by epoll's data pointer; an
 * unwatched one is only marked dead and freed after the batch of events
 * that may still name it has been dispatched. */
#include "daemon/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"

#define LOOP_BATCH 64
#define SPIN_EPOLL_EVERY 32 /* spin rounds between non-blocking epoll looks */
#define CLOCK_EVERY 64      /* spin rounds between clock readings */

struct tsr__watch {
    int fd;
    bool dead;
    tsr__loop_fn fn;
    void *data;
    tsr__watch *next_dead;
};

struct tsr__loop {
    int epfd;
    bool stop;
    tsr__loop_poller poller;
    tsr__watch *dead;
};

uint64_t tsr__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

tsr_status tsr__loop_create(tsr__loop **out)
{
    tsr__loop *loop = calloc(1, sizeof *loop);
    if (!loop)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory creating the event loop");
    loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (loop->epfd < 0) {
        int e = errno;
        free(loop);
        return tsr__fail(TSR_ERR_IO, "epoll_create1: %s", strerror(e));
    }
    *out = loop;
    return TSR_OK;
}

void tsr__loop_reap(tsr__loop *loop)
{
    while (loop->dead) {
        tsr__watch *w = loop->dead;
        loop->dead = w->next_dead;
        free(w);
    }
}

void tsr__loop_destroy(tsr__loop *loop)
{
    if (!loop)
        return;
    tsr__loop_reap(loop);
    close(loop->epfd);
    free(loop);
}

tsr_status tsr__loop_watch(tsr__loop *loop, int fd, uint32_t events, tsr__loop_fn fn, void *data,
                           tsr__watch **out)
{
    tsr__watch *w = calloc(1, sizeof *w);
    if (!w)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory watching descriptor %d", fd);
    *w = (tsr__watch){.fd = fd, .fn = fn, .data = data};
    struct epoll_event ev = {.events = events, .data.ptr = w};
    if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int e = errno;
        free(w);
        return tsr__fail(TSR_ERR_IO, "epoll_ctl(ADD, %d): %s", fd, strerror(e));
    }
    if (out)
        *out = w;
    return TSR_OK;
}

void tsr__loop_unwatch(tsr__loop *loop, tsr__watch *w)
{
    if (!w || w->dead)
        return;
    epoll_ctl(loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    w->dead = true;
    w->next_dead = loop->dead;
    loop->dead = w;
}

void tsr__loop_set_poller(tsr__loop *loop, const tsr__loop_poller *poller)
{
    loop->poller = *poller;
}

void tsr__loop_stop(tsr__loop *loop)
{
    loop->stop = true;
}

static tsr_status dispatch(tsr__loop *loop, int timeout_ms, int *count)
{
    struct epoll_event events[LOOP_BATCH];
    int n = epoll_wait(loop->epfd, events, LOOP_BATCH, timeout_ms);
    if (n < 0) {
        if (errno == EINTR) {
            *count = 0;
            return TSR_OK;
        }
        return tsr__fail(TSR_ERR_IO, "epoll_wait: %s", strerror(errno));
    }
    for (int i = 0; i < n; i++) {
        tsr__watch *w = events[i].data.ptr;
        if (!w->dead)
            w->fn(loop, events[i].events, w->data);
    }
    tsr__loop_reap(loop);
    *count = n;
    return TSR_OK;
}

static unsigned poll_rings(tsr__loop *loop)
{
    return loop->poller.serve ? loop->poller.serve(loop->poller.data) : 0;
}

tsr_status tsr__loop_run(tsr__loop *loop)
{
    /* While spinning the clock is read once every CLOCK_EVERY rounds (a
     * virtual machine's clock_gettime can cost more than a ring poll), and
     * a round that served requests only notes it: the next reading then
     * extends the spin. */
    uint64_t spin_until = 0;
    unsigned round = 0;
    bool busy = false;
    loop->stop = false;
    while (!loop->stop) {
        int timeout = 0;
        bool armed = false;
        round++;
        /* A spin that would take a CPU from running kernels ends now. */
        if (spin_until != 0 && loop->poller.quiet && loop->poller.quiet(loop->poller.data)) {
            spin_until = 0;
            busy = false;
        }
        if (spin_until != 0 && round % CLOCK_EVERY != 0) {
            if (round % SPIN_EPOLL_EVERY != 0) {
                busy |= poll_rings(loop) != 0;
                continue;
            }
        } else {
            uint64_t now = tsr__now_ns();
            if (busy) {
                spin_until = now + TSR__LOOP_SPIN_NS;
                busy = false;
            }
            if (now >= spin_until) {
                /* Going to sleep: tell the rings first, then look once more. */
                spin_until = 0;
                armed = true;
                timeout = -1;
                if (loop->poller.arm && loop->poller.arm(loop->poller.data, true))
                    timeout = 0;
            }
        }
        int n;
        tsr_status st = dispatch(loop, timeout, &n);
        if (armed && loop->poller.arm)
            loop->poller.arm(loop->poller.data, false);
        if (st != TSR_OK)
            return st;
        if (poll_rings(loop) || (n > 0 && armed)) {
            if (spin_until == 0)
                spin_until = tsr__now_ns() + TSR__LOOP_SPIN_NS;
            else
                busy = true;
        }
    }
    return TSR_OK;
}
