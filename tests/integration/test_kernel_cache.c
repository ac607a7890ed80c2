/* The daemon's program cache: the first daemon builds a kernel's program
 * from source and saves it; a second daemon on the same cache directory
 * builds nothing; a cache file that was damaged is detected, rebuilt and
 * rewritten, and the kernel still computes the right values. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support_daemon.h"
#include "tessera/tessera.h"
#include "test.h"

static test_daemon tsrd;
static char cache_dir[256];

static int log_count(const char *needle)
{
    return test_daemon_log_count(&tsrd, needle);
}

/* ones(1000) + 2.5 on opencl:0, checked; the daemon is started and stopped
 * around it, and *built / *loaded / *damaged count what its log says. */
static void run_daemon(int *built, int *loaded, int *damaged)
{
    *built = *loaded = *damaged = -1;
    if (test_daemon_start(&tsrd, NULL) != 0)
        return;
    tsr_client *c = NULL;
    ASSERT_EQ(tsr_client_open(NULL, &c), TSR_OK);
    tsr_tensor *t = NULL, *r = NULL;
    int64_t n = 1000;
    tsr_tensor_options o = {.has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0},
                            .has_dtype = true,
                            .dtype = TSR_FLOAT32};
    ASSERT_EQ(tsr_tensor_ones(c, 1, &n, &o, &t), TSR_OK);
    ASSERT_EQ(tsr_add_scalar(t, tsr_scalar_float(2.5), tsr_scalar_int(1), &r), TSR_OK);
    ASSERT_EQ(tsr_synchronize(c, (tsr_device){TSR_DEVICE_OPENCL, 0}), TSR_OK);
    float out[1000];
    if (r) {
        ASSERT_EQ(tsr_tensor_copy_to_host(r, out, sizeof out), TSR_OK);
        int bad = 0;
        for (int k = 0; k < 1000; k++)
            bad += out[k] != 3.5f;
        ASSERT_EQ(bad, 0);
    }
    tsr_tensor_release(r);
    tsr_tensor_release(t);
    tsr_client_close(c);
    *built = log_count("built from source");
    *loaded = log_count("loaded from the disk cache");
    *damaged = log_count("its disk cache file was corrupt or stale");
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
}

/* Applies `damage` to every program file of the cache; returns how many. */
static int damage_cache(void (*damage)(int fd, off_t size))
{
    DIR *dir = opendir(cache_dir);
    if (!dir)
        return 0;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "tessera-", 8) != 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        int fd = open(path, O_RDWR);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 64) {
            damage(fd, st.st_size);
            files++;
        }
        if (fd >= 0)
            close(fd);
    }
    closedir(dir);
    return files;
}

static void flip_middle(int fd, off_t size)
{
    unsigned char b;
    if (pread(fd, &b, 1, size / 2) == 1) {
        b ^= 0x5a;
        ASSERT_EQ(pwrite(fd, &b, 1, size / 2), 1);
    }
}

static void cut_short(int fd, off_t size)
{
    ASSERT_EQ(ftruncate(fd, size / 3), 0);
}

static void remove_tree(void)
{
    DIR *dir = opendir(cache_dir);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (dir)
        closedir(dir);
    rmdir(cache_dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/tessera-cache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("TESSERA_KERNEL_CACHE", cache_dir, 1);
    int built, loaded, damaged;

    /* A cold cache: programs are built from source and saved. */
    run_daemon(&built, &loaded, &damaged);
    ASSERT_TRUE(built >= 1);
    ASSERT_EQ(loaded, 0);

    /* A warm cache: nothing is built. */
    run_daemon(&built, &loaded, &damaged);
    ASSERT_EQ(built, 0);
    ASSERT_TRUE(loaded >= 1);

    /* A flipped byte, then a file cut short: detected, rebuilt, rewritten. */
    void (*damages[])(int, off_t) = {flip_middle, cut_short};
    for (size_t k = 0; k < 2; k++) {
        ASSERT_TRUE(damage_cache(damages[k]) >= 1);
        run_daemon(&built, &loaded, &damaged);
        ASSERT_TRUE(built >= 1);
        ASSERT_EQ(damaged, built);
        run_daemon(&built, &loaded, &damaged);
        ASSERT_EQ(built, 0);
    }
    remove_tree();
    TEST_DONE();
}
