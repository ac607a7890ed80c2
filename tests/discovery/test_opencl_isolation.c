/* OpenCL drivers that crash, abort, exit or hang while they are enumerated do not
 * take the caller down. Each fixture ICD (fixture_icd.c; paths in argv) is
 * named by a .icd file in a fresh directory that OCL_ICD_VENDORS points
 * to; tsr__cl_discover must return TSR_OK within its deadline (plus a
 * margin), list no devices, name what happened in the note, and leave no
 * child behind. An empty vendors directory is "no OpenCL platform". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opencl/discover.h"
#include "test.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct vendors {
    char dir[64], icd[128];
};

/* A vendors directory naming `library`, or an empty one when it is NULL. */
static void make_vendors(struct vendors *v, const char *library)
{
    snprintf(v->dir, sizeof(v->dir), "/tmp/tessera-icd-XXXXXX");
    v->icd[0] = '\0';
    if (!mkdtemp(v->dir)) {
        perror("mkdtemp");
        exit(1);
    }
    if (library) {
        snprintf(v->icd, sizeof(v->icd), "%s/fixture.icd", v->dir);
        FILE *f = fopen(v->icd, "w");
        if (!f || fprintf(f, "%s\n", library) < 0 || fclose(f) != 0) {
            perror(v->icd);
            exit(1);
        }
    }
    setenv("OCL_ICD_VENDORS", v->dir, 1);
}

static void remove_vendors(const struct vendors *v)
{
    if (v->icd[0])
        unlink(v->icd);
    rmdir(v->dir);
}

/* One discovery against `library`: its note must contain `want`, and it must
 * return within max_ms. */
static void expect_no_devices(const char *library, int timeout_ms, const char *want,
                              long long min_ms, long long max_ms)
{
    struct vendors v;
    make_vendors(&v, library);
    tsr__cl_discovery d;
    memset(&d, 0xab, sizeof(d));
    long long start = now_ms();
    ASSERT_OK(tsr__cl_discover(timeout_ms, &d));
    long long took = now_ms() - start;
    printf("%s: %lld ms, note \"%s\"\n", library ? library : "(empty vendors directory)", took,
           d.note);
    ASSERT_EQ(d.count, 0);
    ASSERT_TRUE(d.devices == NULL);
    ASSERT_TRUE(strstr(d.note, want) != NULL);
    ASSERT_TRUE(took >= min_ms && took <= max_ms);
    /* No zombie, no straggler: the call reaped its child. */
    ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
    ASSERT_EQ(errno, ECHILD);
    tsr__cl_discovery_free(&d);
    remove_vendors(&v);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s CRASH_ICD ABORT_ICD EXIT_ICD HANG_ICD\n", argv[0]);
        return 1;
    }
    const char *crash = argv[1], *abort_icd = argv[2], *exit_icd = argv[3], *hang = argv[4];

    /* Deadlines are generous where the child ends by itself: sanitizer builds
     * start slowly. The hang must cost the deadline and not much more. */
    expect_no_devices(crash, 30000,
                      "OpenCL probe crashed (signal 11, SIGSEGV): listing no OpenCL devices", 0,
                      20000);
    expect_no_devices(abort_icd, 30000, "OpenCL probe crashed (signal 6, SIGABRT)", 0, 20000);
    expect_no_devices(exit_icd, 30000, "OpenCL probe exited with status 42", 0, 20000);
    expect_no_devices(hang, 1500, "OpenCL probe timed out after 1500 ms and was killed", 1500,
                      1500 + 2000);
    expect_no_devices(NULL, 30000, "no OpenCL platform (-1001)", 0, 20000);

    /* A refused call leaves the result as it was. */
    tsr__cl_discovery d = {.count = 7};
    ASSERT_FAIL(tsr__cl_discover(0, &d), TSR_ERR_INVALID_ARGUMENT,
                "tsr__cl_discover needs a result and a timeout above 0 ms (got 0)");
    ASSERT_EQ(d.count, 7);
    ASSERT_FAIL(tsr__cl_discover(1000, NULL), TSR_ERR_INVALID_ARGUMENT, NULL);
    TEST_DONE();
}
