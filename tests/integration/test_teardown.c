/* A closed client leaves nothing behind: every mutex libtessera
 * initialises for a session is destroyed when the session closes. The
 * test interposes pthread_mutex_init and pthread_mutex_destroy (the
 * library reaches them through the dynamic linker, so this program's
 * definitions win) and counts the calls made between open and close. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "support_daemon.h"
#include "test.h"

static _Atomic int inits, destroys;

__attribute__((visibility("default"))) int pthread_mutex_init(pthread_mutex_t *m,
                                                              const pthread_mutexattr_t *a)
{
    static int (*real)(pthread_mutex_t *, const pthread_mutexattr_t *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_mutex_init");
    atomic_fetch_add(&inits, 1);
    return real(m, a);
}

__attribute__((visibility("default"))) int pthread_mutex_destroy(pthread_mutex_t *m)
{
    static int (*real)(pthread_mutex_t *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_mutex_destroy");
    atomic_fetch_add(&destroys, 1);
    return real(m);
}

int main(void)
{
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    int inits_before = atomic_load(&inits), destroys_before = atomic_load(&destroys);
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_OK(tsr_client_ping(c, TSR_TRANSPORT_RING));
    tsr_client_close(c);
    int opened = atomic_load(&inits) - inits_before;
    ASSERT_TRUE(opened > 0);
    ASSERT_EQ(atomic_load(&destroys) - destroys_before, opened);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
