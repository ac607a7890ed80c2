/* SESSION_LIST (tsr_session_list) applies PROCESS_LIST's rule of who sees
 * whose sessions: a client of another user (nobody) sees its own user's
 * sessions in full and, of root's, only the numbers; root sees everything.
 * The daemon decides from the connection's credentials, so running a
 * client as another user needs root; the test is skipped otherwise. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define NOBODY 65534
#define HIDDEN 0xffffffffu
#define ROOT_BYTES 1048576
#define NOBODY_BYTES 524288

static tsr_tensor *hold(tsr_client *c, int64_t bytes)
{
    int64_t n = bytes;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_UINT8,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    ASSERT_OK(tsr_tensor_empty(c, 1, &n, &o, &t));
    return t;
}

/* Session `id` as `c` is shown it; false when it is not listed. */
static bool row_of(tsr_client *c, uint32_t id, tsr_session_info *row)
{
    bool found = false;
    for (uint32_t after = 0; tsr_session_list(c, after, row, &found) == TSR_OK && found;
         after = row->session_id)
        if (row->session_id == id)
            return true;
    return false;
}

/* A session shown in full, of `uid`, process `pid`, named `name`. */
static void check_full(const tsr_session_info *row, uint32_t uid, pid_t pid, const char *name)
{
    ASSERT_EQ(row->uid, uid);
    ASSERT_EQ(row->gid, uid); /* root's group is 0, nobody's 65534 */
    ASSERT_EQ(row->pid, pid);
    ASSERT_STREQ(row->name, name);
    ASSERT_TRUE(row->command[0] != '\0');
    ASSERT_TRUE(row->started_unix_ns > 0);
}

/* Another user's session: numbers only. */
static void check_numbers_only(const tsr_session_info *row, uint64_t bytes)
{
    ASSERT_UEQ(row->uid, HIDDEN);
    ASSERT_UEQ(row->gid, HIDDEN);
    ASSERT_EQ(row->pid, 0);
    ASSERT_STREQ(row->command, "");
    ASSERT_STREQ(row->name, "");
    ASSERT_EQ(row->started_unix_ns, 0);
    ASSERT_TRUE(row->requests > 0);
    ASSERT_EQ(row->current_device.type, TSR_DEVICE_OPENCL);
    ASSERT_EQ(row->usage_count, 1);
    ASSERT_EQ(row->usage[0].allocated, bytes);
}

/* As nobody: two sessions of its own, which see each other in full, and
 * root's, of which they see numbers. Tells the parent its session ids and
 * waits for its word before letting go. Returns the failures. */
static int as_nobody(uint32_t root_id, int ready_fd, int go_fd)
{
    if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
        return 100;
    tsr_client *a = NULL, *b = NULL;
    tsr_client_options oa = {.name = "nobody-a"}, ob = {.name = "nobody-b"};
    ASSERT_OK(tsr_client_open(&oa, &a));
    ASSERT_OK(tsr_client_open(&ob, &b));
    if (!a || !b)
        return 101;
    tsr_tensor *t = hold(a, NOBODY_BYTES);
    tsr_session_info row;
    ASSERT_TRUE(row_of(b, tsr_client_session_id(a), &row));
    check_full(&row, NOBODY, getpid(), "nobody-a");
    ASSERT_EQ(row.usage_count, 1);
    ASSERT_EQ(row.usage[0].allocated, NOBODY_BYTES);
    ASSERT_TRUE(row_of(a, root_id, &row));
    check_numbers_only(&row, ROOT_BYTES);

    uint32_t ids[2] = {tsr_client_session_id(a), tsr_client_session_id(b)};
    char byte;
    if (write(ready_fd, ids, sizeof ids) != (ssize_t)sizeof ids || read(go_fd, &byte, 1) != 1)
        return 102;
    tsr_tensor_release(t);
    tsr_client_close(b);
    tsr_client_close(a);
    return test__failed;
}

int main(void)
{
    if (geteuid() != 0)
        TEST_SKIP("running a client as another user needs root");
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    /* Let nobody reach the socket. */
    ASSERT_EQ(chmod(d.dir, 0755), 0);
    ASSERT_EQ(chmod(d.socket, 0666), 0);
    tsr_client *root = NULL;
    tsr_client_options o = {.name = "root-holder"};
    ASSERT_OK(tsr_client_open(&o, &root));
    if (!root)
        return 1;
    int32_t n = 0;
    ASSERT_OK(tsr_device_count(root, TSR_DEVICE_OPENCL, &n));
    if (n == 0) {
        tsr_client_close(root);
        test_daemon_stop(&d);
        TEST_SKIP("no OpenCL device to hold memory on");
    }
    tsr_tensor *t = hold(root, ROOT_BYTES);

    int ready[2], go[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(go), 0);
    pid_t kid = fork();
    if (kid == 0)
        _exit(as_nobody(tsr_client_session_id(root), ready[1], go[0]));
    close(ready[1]);
    close(go[0]);
    uint32_t ids[2] = {0, 0};
    ASSERT_EQ(read(ready[0], ids, sizeof ids), (ssize_t)sizeof ids);

    /* Root sees nobody's sessions in full, and its own. */
    tsr_session_info row;
    ASSERT_TRUE(ids[0] != 0 && row_of(root, ids[0], &row));
    check_full(&row, NOBODY, kid, "nobody-a");
    ASSERT_EQ(row.usage_count, 1);
    ASSERT_EQ(row.usage[0].allocated, NOBODY_BYTES);
    ASSERT_TRUE(ids[1] != 0 && row_of(root, ids[1], &row));
    check_full(&row, NOBODY, kid, "nobody-b");
    ASSERT_TRUE(row_of(root, tsr_client_session_id(root), &row));
    check_full(&row, 0, getpid(), "root-holder");

    char byte = 1;
    ASSERT_EQ(write(go[1], &byte, 1), 1);
    int status = -1;
    waitpid(kid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    close(ready[0]);
    close(go[1]);
    tsr_tensor_release(t);
    tsr_client_close(root);
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
