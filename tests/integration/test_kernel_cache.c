/* The daemon's program cache: the first daemon builds a kernel's program
 * from source and saves it; a second daemon on the same cache directory
 * builds nothing; a cache file that was damaged is detected, rebuilt and
 * rewritten, and the kernel still computes the right values.
 *
 * And the cache trusts nothing for being in its directory: an entry
 * planted with another program's binary (sealed with the old format's
 * public checksum, or spliced from another entry with its seal) is
 * rebuilt, as is one that others may write; symbolic links at the
 * entries' names, or at the secret's, are never followed (their target
 * stays as it was, and the entries are rewritten as files); and a directory that its group or others may write
 * is refused, with a line in the log, while kernels still compute. A
 * device that works through copies builds in a context of the builder's
 * own and computes with the binary moved into its context. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
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
static int refused, refused_shared; /* the last daemon's log lines on a refused directory */
static int copied;                  /* ... saying that opencl:0 works through copies */
static int apart;                   /* ... of programs compiled in the builder's own context */

static int log_count(const char *needle)
{
    return test_daemon_log_count(&tsrd, needle);
}

/* Whether the daemon's log says that opencl:0 works through copies. */
static int opencl0_copies(void)
{
    char line[1024];
    int n = 0;
    FILE *f = fopen(tsrd.log, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "opencl:0: ") && strstr(line, "kernels copy operands in and out");
    if (f)
        fclose(f);
    return n;
}

/* ones(1000) + 2.5 on opencl:0, checked; the daemon is started and stopped
 * around it, and *built / *loaded / *damaged count what its log says. */
static void run_daemon_with(const char *const *args, int *built, int *loaded, int *damaged)
{
    *built = *loaded = *damaged = -1;
    if (test_daemon_start(&tsrd, args) != 0)
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
    refused = log_count("kernel cache directory refused");
    refused_shared = log_count("writable by its group or others");
    copied = opencl0_copies();
    apart = log_count(", compiled apart");
    ASSERT_EQ(test_daemon_stop(&tsrd), 0);
}

static void run_daemon(int *built, int *loaded, int *damaged)
{
    run_daemon_with(NULL, built, loaded, damaged);
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

/* The program files of the cache (at most 64), by name. */
static int list_entries(char names[][64], int cap)
{
    DIR *dir = opendir(cache_dir);
    int n = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir)) && n < cap) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "tessera-", 8) == 0 && len > 4 && len < 64 &&
            strcmp(e->d_name + len - 4, ".bin") == 0)
            snprintf(names[n++], 64, "%s", e->d_name);
    }
    if (dir)
        closedir(dir);
    return n;
}

static size_t read_entry(const char *name, unsigned char *buf, size_t cap)
{
    char path[600];
    int w = snprintf(path, sizeof path, "%s/%s", cache_dir, name);
    FILE *f = w > 0 && (size_t)w < sizeof path ? fopen(path, "rb") : NULL;
    size_t n = f ? fread(buf, 1, cap, f) : 0;
    if (f)
        fclose(f);
    return n;
}

static void write_entry(const char *name, const void *a, size_t na, const void *b, size_t nb)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", cache_dir, name);
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW);
    ASSERT_TRUE(fd >= 0);
    if (fd < 0)
        return;
    ASSERT_EQ(write(fd, a, na), (ssize_t)na);
    ASSERT_EQ(write(fd, b, nb), (ssize_t)nb);
    close(fd);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * UINT64_C(0x100000001b3);
    return h;
}

/* An entry's layout: magic, name hash, binary length (24 bytes), the
 * binary, a 16-byte seal. */
#define HEAD 24
#define SEAL 16
#define ENTRY_MAX (16u << 20)

/* Plants, at every entry's name, the next entry's binary: `legacy` as
 * the format before seals had it (magic, hash, length, FNV-1a checksum
 * of the binary: all public), else spliced under the entry's own header
 * with the other entry's seal. Returns how many. The last entry takes the
 * first one's binary as it was before the first was planted over (else,
 * with two entries, the second would get its own binary back). */
static int plant(bool legacy)
{
    static char names[64][64];
    static unsigned char a[ENTRY_MAX], b[ENTRY_MAX], first[ENTRY_MAX];
    int n = list_entries(names, 64), planted = 0;
    size_t nfirst = n >= 2 ? read_entry(names[0], first, sizeof first) : 0;
    for (int k = 0; k < n && n >= 2; k++) {
        size_t na = read_entry(names[k], a, sizeof a);
        size_t nb = k + 1 < n ? read_entry(names[k + 1], b, sizeof b) : nfirst;
        if (k + 1 == n)
            memcpy(b, first, nfirst);
        if (na <= HEAD + SEAL || nb <= HEAD + SEAL || na == sizeof a || nb == sizeof b)
            continue;
        uint64_t length = nb - HEAD - SEAL;
        if (legacy) {
            uint64_t head[4];
            memcpy(head, "TSRCLBIN", 8);
            memcpy(&head[1], a + 8, 8);
            head[2] = length;
            head[3] = fnv1a(b + HEAD, length);
            write_entry(names[k], head, sizeof head, b + HEAD, length);
        } else {
            memcpy(a + 16, &length, 8);
            write_entry(names[k], a, HEAD, b + HEAD, length + SEAL);
        }
        planted++;
    }
    return planted;
}

static void make_writable(int fd, off_t size)
{
    (void)size;
    ASSERT_EQ(fchmod(fd, 0666), 0);
}

/* Replaces every entry (or, with `secret`, the secret) by a symbolic link
 * to `target`. Returns how many. */
static int link_entries(const char *target, bool secret)
{
    static char names[64][64];
    int n = secret ? 1 : list_entries(names, 64);
    if (secret)
        snprintf(names[0], 64, "tessera-cache.key");
    for (int k = 0; k < n; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%.63s", cache_dir, names[k]);
        ASSERT_EQ(unlink(path), 0);
        ASSERT_EQ(symlink(target, path), 0);
    }
    return n;
}

static void check_target(const char *target)
{
    char text[64] = {0};
    FILE *f = fopen(target, "rb");
    ASSERT_TRUE(f != NULL);
    if (f) {
        ASSERT_EQ(fread(text, 1, sizeof text - 1, f), 9);
        fclose(f);
    }
    ASSERT_TRUE(strcmp(text, "precious\n") == 0);
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
    if (!copied)             /* PoCL's CPU device, say */
        ASSERT_EQ(apart, 0); /* compiles in its own context */

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

    /* Another program's binary at an entry's name, under the old public
     * checksum or spliced with a genuine seal; then entries others may
     * write: all rebuilt, and the kernel computes its own values. */
    for (int k = 0; k < 3; k++) {
        ASSERT_TRUE(k < 2 ? plant(k == 0) >= 2 : damage_cache(make_writable) >= 1);
        run_daemon(&built, &loaded, &damaged);
        ASSERT_TRUE(built >= 1);
        ASSERT_EQ(damaged, built);
        run_daemon(&built, &loaded, &damaged);
        ASSERT_EQ(built, 0);
    }

    /* Links at the entries' names: not followed, replaced by files. */
    char target[300];
    snprintf(target, sizeof target, "%s.target", cache_dir);
    FILE *f = fopen(target, "w");
    ASSERT_TRUE(f != NULL);
    if (f) {
        fputs("precious\n", f);
        fclose(f);
    }
    ASSERT_TRUE(link_entries(target, false) >= 1);
    run_daemon(&built, &loaded, &damaged);
    ASSERT_TRUE(built >= 1);
    ASSERT_EQ(damaged, built);
    check_target(target);
    static char names[64][64];
    int n = list_entries(names, 64), rewritten = 0;
    for (int k = 0; k < n; k++) {
        char path[600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%.63s", cache_dir, names[k]);
        ASSERT_EQ(lstat(path, &st), 0);
        ASSERT_TRUE(S_ISLNK(st.st_mode) || (st.st_mode & 077) == 0);
        rewritten += S_ISREG(st.st_mode);
    }
    ASSERT_TRUE(rewritten >= 1); /* a program whose build the stop cut short keeps its link */

    /* A link at the secret's name: the directory is refused. */
    link_entries(target, true);
    run_daemon(&built, &loaded, &damaged);
    ASSERT_EQ(refused, 1);
    ASSERT_TRUE(built >= 1);
    ASSERT_EQ(loaded, 0);
    check_target(target);
    ASSERT_EQ(unlink(target), 0);

    /* A directory its group may write: refused, kernels still compute,
     * nothing is read from it or written to it. */
    char secret[600];
    snprintf(secret, sizeof secret, "%s/tessera-cache.key", cache_dir);
    ASSERT_EQ(unlink(secret), 0);
    ASSERT_EQ(chmod(cache_dir, 0770), 0);
    run_daemon(&built, &loaded, &damaged);
    ASSERT_EQ(refused, 1);
    ASSERT_EQ(refused_shared, 1);
    ASSERT_TRUE(built >= 1);
    ASSERT_EQ(loaded, 0);
    ASSERT_EQ(damaged, 0);
    ASSERT_EQ(access(secret, F_OK), -1);
    ASSERT_EQ(chmod(cache_dir, 0700), 0);

    /* A device of its own memory (here PoCL's, told to work so) compiles
     * in a context of the builder's own and loads the binary into the
     * device's: the kernel computes, and the binary is what the cache
     * keeps for the next daemon. */
    remove_tree();
    ASSERT_EQ(mkdir(cache_dir, 0700), 0);
    const char *const copy[] = {"--device-memory=copy", NULL};
    run_daemon_with(copy, &built, &loaded, &damaged);
    ASSERT_EQ(copied, 1);
    ASSERT_TRUE(built >= 1);
    ASSERT_EQ(apart, built);
    ASSERT_EQ(loaded, 0);
    run_daemon_with(copy, &built, &loaded, &damaged);
    ASSERT_EQ(built, 0);
    ASSERT_TRUE(loaded >= 1);
    remove_tree();
    TEST_DONE();
}
