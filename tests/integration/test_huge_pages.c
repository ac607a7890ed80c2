/* devices.huge_pages: on a device that computes in the shared segments
 * with the host's code (PoCL's CPU device), the daemon moves a segment
 * into huge pages before the first kernel that uses it, and its client
 * maps it where those pages fit whole. The kernel's own account of both
 * processes (/proc/PID/smaps: ShmemPmdMapped of the tessera-segment
 * mappings) says whether it happened; the values computed across the
 * move are checked. --huge-pages=off leaves the segments in small pages.
 * Skipped where this kernel cannot move shared memory (older than 6.1, or
 * shmem_enabled = deny: the probe below), or where opencl:0 does not
 * compute in host memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "support_daemon.h"
#include "test.h"

#define HUGE (2u << 20)
#define N (3 << 20) /* float32 elements: 12 MiB a tensor */

/* Whether this kernel collapses a memfd's pages (MADV_COLLAPSE, 25): an
 * aligned 2 MiB of a memfd, one page touched. */
static bool kernel_collapses(void)
{
    int fd = memfd_create("probe", MFD_CLOEXEC);
    bool ok = false;
    unsigned char *r = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, HUGE) == 0 &&
        (r = mmap(NULL, 2 * HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
        unsigned char *at = (unsigned char *)(((uintptr_t)r + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
        if (mmap(at, HUGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED) {
            at[0] = 1;
            ok = madvise(at, HUGE, 25) == 0;
        }
        munmap(r, 2 * HUGE);
    }
    if (fd >= 0)
        close(fd);
    return ok;
}

/* kB of ShmemPmdMapped over the tessera-segment mappings of a process. */
static long long segment_pmd_kb(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/smaps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    bool in = false;
    long long kb = 0, v;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = strstr(line, "tessera-segment") != NULL;
            continue;
        }
        if (in && sscanf(line, "ShmemPmdMapped: %lld kB", &v) == 1)
            kb += v;
    }
    fclose(f);
    return kb;
}

/* a + b on opencl:0 over data written by the client (so the move copies
 * pages that hold values); the sum read back through the mapping.
 * *daemon_kb and *client_kb: what each process has mapped whole after. */
static void add_on_device(test_daemon *d, long long *daemon_kb, long long *client_kb)
{
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    if (!c)
        exit(1);
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    ASSERT_TRUE(x && y);
    for (int64_t i = 0; i < N; i++) {
        x[i] = (float)i * 0.5f;
        y[i] = 3.0f - (float)i;
    }
    tsr_tensor_options o = {.has_device = true, .device = {TSR_DEVICE_OPENCL, 0}};
    int64_t n = N;
    tsr_tensor *a = NULL, *b = NULL, *sum = NULL;
    ASSERT_OK(tsr_tensor_from_data(c, 1, &n, TSR_FLOAT32, x, &o, &a));
    ASSERT_OK(tsr_tensor_from_data(c, 1, &n, TSR_FLOAT32, y, &o, &b));
    ASSERT_OK(tsr_add(a, b, tsr_scalar_int(1), &sum));
    ASSERT_OK(tsr_synchronize(c, o.device));
    float *s = NULL;
    ASSERT_OK(tsr_tensor_data_ptr(sum, (void **)&s));
    int64_t wrong = 0;
    for (int64_t i = 0; s && i < N; i++)
        wrong += s[i] != 3.0f - (float)i * 0.5f;
    ASSERT_EQ(wrong, 0);
    *daemon_kb = segment_pmd_kb((long)d->pid);
    *client_kb = segment_pmd_kb((long)getpid());
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_tensor_release(sum);
    tsr_client_close(c);
    free(x);
    free(y);
}

int main(void)
{
    if (!kernel_collapses())
        TEST_SKIP("this kernel does not move shared memory into huge pages (MADV_COLLAPSE)");
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    tsr_device_properties p;
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    tsr_client_close(c);
    if (!p.host_unified_memory) {
        test_daemon_stop(&d);
        TEST_SKIP("opencl:0 (%s) does not compute in host memory", p.name);
    }
    long long on_daemon = -1, on_client = -1;
    add_on_device(&d, &on_daemon, &on_client);
    printf("huge pages on: daemon %lld kB, client %lld kB mapped whole\n", on_daemon, on_client);
    /* Three 12 MiB tensors hold at least 15 whole huge pages between
     * them, whatever the allocator's segment sizes, and the client maps
     * whole what it touched after the move (the sum, 5 or more); a
     * machine short of free huge pages may give fewer, never none. */
    if (on_daemon == 0)
        test_daemon_dump_log(&d);
    ASSERT_TRUE(on_daemon >= HUGE / 1024);
    ASSERT_TRUE(on_client >= HUGE / 1024);
    ASSERT_EQ(test_daemon_stop(&d), 0);

    const char *off[] = {"--huge-pages=off", NULL};
    if (test_daemon_start(&d, off) != 0)
        return 1;
    add_on_device(&d, &on_daemon, &on_client);
    printf("huge pages off: daemon %lld kB, client %lld kB mapped whole\n", on_daemon, on_client);
    ASSERT_EQ(on_daemon, 0);
    ASSERT_EQ(on_client, 0);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
