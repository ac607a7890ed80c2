/* How many threads the cpu device computes on (tsr_get_num_threads):
 * TESSERA_NUM_THREADS when set, else the CPUs the process may use, its
 * affinity mask bounded by its control group's CPU quota. Each case runs
 * in a child process, because the pool is sized once per process: the
 * child narrows its affinity or joins a cgroup with a quota first. The
 * cgroup cases need a writable cgroup hierarchy with the cpu controller
 * (root on this machine kind, v1 or v2); without one they are left out,
 * said so, and the affinity cases still run. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* The pool's size in a child that first ran setup(arg): its exit code. */
static int threads_in_child(void (*setup)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setup)
            setup(arg);
        _exit(tsr_get_num_threads());
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void pin_to(const void *arg)
{
    const cpu_set_t *set = arg;
    if (sched_setaffinity(0, sizeof *set, set) != 0)
        _exit(200);
}

static void set_env(const void *arg)
{
    setenv("TESSERA_NUM_THREADS", arg, 1);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

typedef struct cgroup {
    char dir[256];
    int v2; /* 1: cgroup v2 (cpu.max), 0: v1 (cpu.cfs_quota_us) */
} cgroup;

/* A fresh cgroup under a writable hierarchy with the cpu controller. */
static int cgroup_make(cgroup *g)
{
    struct stat st;
    if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
        snprintf(g->dir, sizeof g->dir, "/sys/fs/cgroup/tessera-test-%d", (int)getpid());
        g->v2 = 1;
        /* the cpu controller must be on for the root's children */
        write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpu");
    } else {
        const char *root = stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &st) == 0
                               ? "/sys/fs/cgroup/cpu"
                               : "/sys/fs/cgroup/cpu,cpuacct";
        snprintf(g->dir, sizeof g->dir, "%s/tessera-test-%d", root, (int)getpid());
        g->v2 = 0;
    }
    if (mkdir(g->dir, 0755) != 0)
        return -1;
    char path[300];
    snprintf(path, sizeof path, "%s/%s", g->dir, g->v2 ? "cpu.max" : "cpu.cfs_quota_us");
    if (access(path, W_OK) != 0) {
        rmdir(g->dir);
        return -1;
    }
    return 0;
}

/* Sets the cgroup's quota to `quota` per 100 ms. */
static int cgroup_quota(const cgroup *g, long quota)
{
    char path[300], text[64];
    if (g->v2) {
        snprintf(path, sizeof path, "%s/cpu.max", g->dir);
        snprintf(text, sizeof text, "%ld 100000", quota);
        return write_file(path, text);
    }
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", g->dir);
    if (write_file(path, "100000") != 0)
        return -1;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", g->dir);
    snprintf(text, sizeof text, "%ld", quota);
    return write_file(path, text);
}

static void join(const void *arg)
{
    const cgroup *g = arg;
    char path[300], pid[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", g->dir);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (write_file(path, pid) != 0)
        _exit(201);
}

int main(void)
{
    unsetenv("TESSERA_NUM_THREADS");
    cpu_set_t all;
    CPU_ZERO(&all);
    ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    int usable = CPU_COUNT(&all);
    int whole = usable < 16 ? usable : 16;

    /* The usable CPUs, capped at 16, and exactly what an affinity mask of
     * one CPU (the first we have) leaves. */
    ASSERT_EQ(threads_in_child(NULL, NULL), whole);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    ASSERT_EQ(threads_in_child(pin_to, &one), 1);

    /* TESSERA_NUM_THREADS wins, whatever the mask; nonsense is ignored. */
    ASSERT_EQ(threads_in_child(set_env, "3"), 3);
    ASSERT_EQ(threads_in_child(set_env, "40"), 16);
    ASSERT_EQ(threads_in_child(set_env, "two"), whole);
    ASSERT_EQ(threads_in_child(set_env, "0"), whole);
    ASSERT_EQ(threads_in_child(set_env, "-4"), whole);

    /* A CPU quota: half a CPU is one thread, one and a half two (where the
     * mask allows two). */
    cgroup g;
    if (geteuid() != 0 || cgroup_make(&g) != 0) {
        printf("note: no writable cgroup with the cpu controller (%s): quota cases left out\n",
               geteuid() != 0 ? "not root" : strerror(errno));
    } else if (cgroup_quota(&g, 50000) != 0 || threads_in_child(join, &g) == 201) {
        printf("note: cannot set a quota on or join %s: quota cases left out\n", g.dir);
        rmdir(g.dir);
    } else {
        ASSERT_EQ(cgroup_quota(&g, 50000), 0);
        ASSERT_EQ(threads_in_child(join, &g), 1);
        ASSERT_EQ(cgroup_quota(&g, 150000), 0);
        ASSERT_EQ(threads_in_child(join, &g), whole < 2 ? whole : 2);
        ASSERT_EQ(cgroup_quota(&g, 100000 * 64L), 0);
        ASSERT_EQ(threads_in_child(join, &g), whole);
        if (rmdir(g.dir) != 0)
            printf("note: cannot remove %s: %s\n", g.dir, strerror(errno));
    }
    TEST_DONE();
}
