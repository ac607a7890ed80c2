/* Two client processes (and two threads of one) share a daemon with two
 * OpenCL devices (PoCL's CPU driver twice, through POCL_DEVICES) and keep
 * independent current devices, which `tessera ps --json` reports; the
 * visible-devices map renumbers what a client sees. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

/* Child: its main thread picks opencl:1, tells the parent, waits for the
 * parent's word, and checks nothing changed meanwhile. */
static int child(int ready_fd, int go_fd)
{
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK)
        return 10;
    if (tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 1}) != TSR_OK)
        return 11;
    char byte = 1;
    if (write(ready_fd, &byte, 1) != 1 || read(go_fd, &byte, 1) != 1)
        return 12;
    tsr_device d;
    if (tsr_current_device(c, TSR_DEVICE_OPENCL, &d) != TSR_OK || d.index != 1)
        return 13;
    tsr_client_close(c);
    return 0;
}

typedef struct thread_arg {
    tsr_client *client;
    int32_t index, seen;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    tsr_device d = {-1, -1};
    if (tsr_set_device(a->client, (tsr_device){TSR_DEVICE_OPENCL, a->index}) == TSR_OK &&
        tsr_current_device(a->client, TSR_DEVICE_OPENCL, &d) == TSR_OK)
        a->seen = d.index;
    return NULL;
}

static int pid_device_in_ps(pid_t pid, const char *device)
{
    char out[16384], want[128];
    const char *args[] = {"ps", "--json", NULL};
    if (test_run_cli(out, sizeof out, args) != 0)
        return 0;
    snprintf(want, sizeof want, "\"pid\": %d, ", (int)pid);
    const char *at = strstr(out, want);
    if (!at)
        return 0;
    const char *dev = strstr(at, "\"current_device\": \"");
    return dev && strncmp(dev + 19, device, strlen(device)) == 0 && dev[19 + strlen(device)] == '"';
}

int main(void)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        return 1;
    int32_t n = 0;
    ASSERT_OK(tsr_device_count(c, TSR_DEVICE_OPENCL, &n));
    if (n < 2)
        TEST_SKIP("PoCL did not expose two devices with POCL_DEVICES (got %d)", (int)n);

    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child(ready[1], go[0]));
    char byte;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);

    /* This process stays on opencl:0 while the child sits on opencl:1. */
    tsr_device cur;
    ASSERT_OK(tsr_current_device(c, TSR_DEVICE_OPENCL, &cur));
    ASSERT_EQ(cur.index, 0);
    ASSERT_TRUE(pid_device_in_ps(pid, "opencl:1"));
    ASSERT_TRUE(pid_device_in_ps(getpid(), "opencl:0"));

    /* Threads of one process are independent too. */
    thread_arg a = {c, 1, -1}, b = {c, 0, -1};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_join(ta, NULL);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(tb, NULL);
    ASSERT_EQ(a.seen, 1);
    ASSERT_EQ(b.seen, 0);
    ASSERT_OK(tsr_current_device(c, TSR_DEVICE_OPENCL, &cur));
    ASSERT_EQ(cur.index, 0);

    /* An index-less device means the current one when allocating. */
    ASSERT_OK(tsr_set_device(c, (tsr_device){TSR_DEVICE_OPENCL, 1}));
    int64_t sizes[1] = {16};
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_OPENCL, -1}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, sizes, &o, &t));
    ASSERT_EQ(tsr_tensor_get_device(t), 1);
    tsr_tensor_release(t);
    ASSERT_TRUE(pid_device_in_ps(getpid(), "opencl:1"));

    byte = 1;
    ASSERT_EQ(write(go[1], &byte, 1), 1);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* TESSERA_VISIBLE_DEVICES=1,0: the client's opencl:0 is the daemon's 1. */
    tsr_client *v = NULL;
    tsr_client_options vo = {.visible_devices = "1,0"};
    ASSERT_OK(tsr_client_open(&vo, &v));
    if (v) {
        tsr_device_properties p;
        ASSERT_OK(tsr_device_get_properties(v, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
        ASSERT_EQ(p.daemon_index, 1);
        ASSERT_OK(tsr_set_device(v, (tsr_device){TSR_DEVICE_OPENCL, 0}));
        tsr_session_info s;
        bool found = false;
        uint32_t after = 0;
        /* the daemon records the physical device: opencl:1 */
        while (tsr_session_list(v, after, &s, &found) == TSR_OK && found &&
               s.session_id != tsr_client_session_id(v))
            after = s.session_id;
        ASSERT_TRUE(found);
        ASSERT_EQ(s.current_device.index, 1);
        tsr_client_close(v);
    }
    tsr_client_close(c);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
