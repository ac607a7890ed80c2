/* The event loop's spin, driven by a scripted ring poller. After a request
 * is served the loop keeps polling the rings for a while (it reads the
 * clock only every few rounds, so a spin is many polls) before it arms the
 * rings and sleeps; while the poller says quiet (kernels running on this
 * machine's CPUs), it arms and sleeps right after serving, with no poll in
 * between. Either way the request is served and the loop wakes for the
 * next one. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "daemon/loop.h"
#include "test.h"

typedef struct probe {
    tsr__loop *loop;
    int kick_fd, stop_fd;
    atomic_int pending;          /* requests the next serve() will take */
    atomic_uint served;          /* requests served */
    atomic_uint polls_since;     /* serve() calls that found nothing since the last request */
    atomic_uint sleeps;          /* arm(true) calls */
    atomic_uint polls_at_sleep;  /* polls_since when the loop last armed to sleep */
    atomic_bool quiet;
} probe;

static unsigned serve(void *data)
{
    probe *p = data;
    int want = atomic_load(&p->pending);
    while (want > 0 && !atomic_compare_exchange_weak(&p->pending, &want, want - 1))
        ;
    if (want > 0) {
        atomic_store(&p->polls_since, 0u);
        atomic_fetch_add(&p->served, 1u);
        return 1;
    }
    atomic_fetch_add(&p->polls_since, 1u);
    return 0;
}

static bool arm(void *data, bool sleeping)
{
    probe *p = data;
    if (!sleeping)
        return false;
    atomic_store(&p->polls_at_sleep, atomic_load(&p->polls_since));
    atomic_fetch_add(&p->sleeps, 1u);
    return atomic_load(&p->pending) > 0;
}

static bool quiet(void *data)
{
    return atomic_load(&((probe *)data)->quiet);
}

static void drain(int fd)
{
    uint64_t v;
    while (read(fd, &v, sizeof v) < 0 && errno == EINTR)
        ;
}

static void on_kick(tsr__loop *loop, uint32_t events, void *data)
{
    (void)loop, (void)events;
    drain(((probe *)data)->kick_fd);
}

static void on_stop(tsr__loop *loop, uint32_t events, void *data)
{
    (void)events;
    drain(((probe *)data)->stop_fd);
    tsr__loop_stop(loop);
}

static void *run(void *data)
{
    probe *p = data;
    return (void *)(intptr_t)tsr__loop_run(p->loop);
}

static void poke(int fd)
{
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    (void)n;
}

/* Waits (up to 10 s) until the loop has armed to sleep more than `sleeps`
 * times; false on timeout. */
static bool wait_sleep(probe *p, unsigned sleeps)
{
    for (int k = 0; k < 100000; k++) {
        if (atomic_load(&p->sleeps) > sleeps)
            return true;
        nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    }
    return false;
}

/* One request: queue it, wake the loop, wait until it sleeps again.
 * Returns how many empty polls came between serving it and sleeping, or
 * -1 when the loop did not serve it or did not go back to sleep. */
static long one_request(probe *p)
{
    unsigned sleeps = atomic_load(&p->sleeps), served = atomic_load(&p->served);
    atomic_store(&p->pending, 1);
    poke(p->kick_fd);
    /* The loop was asleep (armed) before the kick, so the next time it
     * arms comes after it served the request. */
    if (!wait_sleep(p, sleeps) || atomic_load(&p->served) != served + 1)
        return -1;
    return (long)atomic_load(&p->polls_at_sleep);
}

/* The most polls between a request and the sleep after it, over ten
 * requests (each of them served). */
static long most_polls(probe *p)
{
    long most = -1;
    for (int k = 0; k < 10; k++) {
        long polls = one_request(p);
        ASSERT_TRUE(polls >= 0);
        if (polls > most)
            most = polls;
    }
    return most;
}

int main(void)
{
    probe p = {.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC),
               .stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)};
    ASSERT_TRUE(p.kick_fd >= 0 && p.stop_fd >= 0);
    ASSERT_OK(tsr__loop_create(&p.loop));
    tsr__watch *kick, *stop;
    ASSERT_OK(tsr__loop_watch(p.loop, p.kick_fd, EPOLLIN, on_kick, &p, &kick));
    ASSERT_OK(tsr__loop_watch(p.loop, p.stop_fd, EPOLLIN, on_stop, &p, &stop));
    tsr__loop_set_poller(p.loop,
                         &(tsr__loop_poller){.serve = serve, .arm = arm, .quiet = quiet, .data = &p});
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, run, &p), 0);
    /* With nothing to do it goes to sleep at once. */
    ASSERT_TRUE(wait_sleep(&p, 0));

    /* Spinning: requests are served, and between one and the sleep after
     * it the loop polls again (at least once a round until it reads the
     * clock; a trial can come up short only when this thread is preempted
     * for the whole spin, so the best of ten counts). */
    ASSERT_TRUE(most_polls(&p) >= 2);

    /* Quiet: every request is served, and the loop sleeps right after it
     * with no poll in between. */
    atomic_store(&p.quiet, true);
    for (int k = 0; k < 10; k++)
        ASSERT_EQ(one_request(&p), 0);

    /* Quiet no longer: it spins again. */
    atomic_store(&p.quiet, false);
    ASSERT_TRUE(most_polls(&p) >= 2);
    ASSERT_EQ(atomic_load(&p.served), 30);

    poke(p.stop_fd);
    void *result;
    ASSERT_EQ(pthread_join(thread, &result), 0);
    ASSERT_EQ((intptr_t)result, TSR_OK);
    tsr__loop_unwatch(p.loop, kick);
    tsr__loop_unwatch(p.loop, stop);
    tsr__loop_destroy(p.loop);
    close(p.kick_fd);
    close(p.stop_fd);
    TEST_DONE();
}
