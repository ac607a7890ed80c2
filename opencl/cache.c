/* See cache.h. An entry is a header (magic, name, binary length), the
 * driver's binary, and two SipHash-2-4 values of header and binary, under
 * the secret's two halves (a 128-bit seal). */
#include "opencl/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/siphash.h"

#define ENTRY_MAGIC "TSRCLBN2" /* "TSRCLBIN" entries, sealed with a public checksum, are rejected */
#define SECRET_NAME "tessera-cache.key"
#define SECRET_BYTES (2 * TSR__SIPHASH_KEY_BYTES)
#define BINARY_MAX (UINT64_C(1) << 30)

struct tsr__kcache {
    int dir; /* O_DIRECTORY descriptor, checked once at open */
    uint8_t secret[SECRET_BYTES];
};

typedef struct entry_header {
    char magic[8];
    uint64_t name, length;
} entry_header;

typedef struct entry_seal {
    uint64_t tag[2];
} entry_seal;

/* Writable by someone besides the owner. */
static bool shared_write(const struct stat *st)
{
    return (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* Opens one component of the cache's path below `at`, creating it (mode
 * 0700) when missing. A symbolic link is followed only when the daemon's
 * user or root owns it: no one else can point it elsewhere. */
static int open_component(int at, const char *name, const char *path)
{
    bool created = mkdirat(at, name, 0700) == 0;
    if (!created && errno != EEXIST) {
        tsr__fail(TSR_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && !created) {
        struct stat link;
        if (fstatat(at, name, &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode)) {
            if (link.st_uid != geteuid() && link.st_uid != 0) {
                tsr__fail(TSR_ERR_PERMISSION,
                          "%s is a symbolic link of uid %u, neither the daemon's (%u) nor root's",
                          path, (unsigned)link.st_uid, (unsigned)geteuid());
                return -1;
            }
            fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        } else {
            errno = ENOTDIR;
        }
    }
    if (fd < 0) {
        tsr__fail(TSR_ERR_IO, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (created && (fstat(fd, &st) != 0 || st.st_uid != geteuid())) {
        close(fd); /* replaced between mkdirat and openat */
        tsr__fail(TSR_ERR_PERMISSION, "%s changed hands while it was being created", path);
        return -1;
    }
    return fd;
}

/* mkdir -p from descriptors; the last directory must be the daemon
 * user's and writable by no one else. */
static int open_directory(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        tsr__fail(TSR_ERR_INVALID_ARGUMENT, "the kernel cache path is empty or too long");
        return -1;
    }
    memcpy(buf, path, n + 1);
    int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        tsr__fail(TSR_ERR_IO, "cannot open the kernel cache's first directory: %s",
                  strerror(errno));
        return -1;
    }
    for (char *name = buf, *end; fd >= 0 && *name; name = end) {
        end = name + strcspn(name, "/");
        bool last = *end == '\0';
        *end = '\0';
        if (name[0] && strcmp(name, ".") != 0) {
            int next = open_component(fd, name, path);
            close(fd);
            fd = next;
        }
        if (!last)
            *end++ = '/';
    }
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0) {
        tsr__fail(TSR_ERR_IO, "cannot stat %s: %s", path, strerror(errno));
    } else if (fd >= 0 && st.st_uid != geteuid()) {
        tsr__fail(TSR_ERR_PERMISSION, "%s belongs to uid %u, not to the daemon's user (%u)", path,
                  (unsigned)st.st_uid, (unsigned)geteuid());
    } else if (fd >= 0 && shared_write(&st)) {
        tsr__fail(TSR_ERR_PERMISSION,
                  "%s is writable by its group or others (mode %03o): anyone who can write "
                  "there could have the daemon run their code",
                  path, (unsigned)(st.st_mode & 0777));
    } else {
        return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Runs `io` until n bytes have passed (EINTR retried); false on an
 * error or an early end. */
static bool whole(ssize_t (*io)(int fd, void *buf, size_t n), int fd, void *buf, size_t n)
{
    for (size_t at = 0; at < n;) {
        ssize_t done = io(fd, (char *)buf + at, n - at);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return false;
        at += (size_t)done;
    }
    return true;
}

static ssize_t write_some(int fd, void *buf, size_t n)
{
    return write(fd, buf, n);
}

static ssize_t random_some(int fd, void *buf, size_t n)
{
    (void)fd;
    return getrandom(buf, n, 0);
}

static bool read_all(int fd, void *buf, size_t n)
{
    return whole(read, fd, buf, n);
}

static bool write_all(int fd, const void *buf, size_t n)
{
    return whole(write_some, fd, (void *)buf, n);
}

static bool random_bytes(void *buf, size_t n)
{
    return whole(random_some, -1, buf, n);
}

/* Opens `name` in dir for reading: a regular file of the daemon's user
 * that no one else may write, `size` bytes long (0: any); else -1. */
static int open_private(int dir, const char *name, off_t size, struct stat *st)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
        shared_write(st) || (size && st->st_size != size)) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* Reads the secret, or draws and saves one: written under a temporary
 * name, then linked to its own (link refuses to replace, so when two
 * daemons race, both end up with the one that was linked first). */
static bool load_secret(tsr__kcache *c, const char *path)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        struct stat st;
        int fd = open_private(c->dir, SECRET_NAME, 0, &st);
        if (fd >= 0) {
            bool ok = st.st_size == SECRET_BYTES && (st.st_mode & 077) == 0 &&
                      read_all(fd, c->secret, SECRET_BYTES);
            close(fd);
            if (!ok)
                tsr__fail(TSR_ERR_PERMISSION,
                          "%s/" SECRET_NAME " is not a %d-byte file readable by the daemon's "
                          "user only",
                          path, SECRET_BYTES);
            return ok;
        }
        if (errno != ENOENT) {
            tsr__fail(TSR_ERR_PERMISSION,
                      "%s/" SECRET_NAME " is not the daemon user's own file: %s", path,
                      strerror(errno));
            return false;
        }
        uint64_t salt;
        char tmp[64];
        if (!random_bytes(c->secret, SECRET_BYTES) || !random_bytes(&salt, sizeof salt)) {
            tsr__fail(TSR_ERR_IO, "getrandom failed: %s", strerror(errno));
            return false;
        }
        snprintf(tmp, sizeof tmp, SECRET_NAME ".%016llx.tmp", (unsigned long long)salt);
        fd = openat(c->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            tsr__fail(TSR_ERR_IO, "cannot create a file in %s: %s", path, strerror(errno));
            return false;
        }
        bool written = write_all(fd, c->secret, SECRET_BYTES);
        written = close(fd) == 0 && written;
        bool linked = written && linkat(c->dir, tmp, c->dir, SECRET_NAME, 0) == 0;
        int link_errno = errno;
        unlinkat(c->dir, tmp, 0);
        if (linked)
            return true;
        if (!written || link_errno != EEXIST) {
            tsr__fail(TSR_ERR_IO, "cannot save %s/" SECRET_NAME ": %s", path,
                      strerror(written ? link_errno : EIO));
            return false;
        }
        /* another daemon saved its secret first: use that one */
    }
    tsr__fail(TSR_ERR_IO, "cannot settle on a secret in %s", path);
    return false;
}

tsr_status tsr__kcache_open(const char *dir, tsr__kcache **out)
{
    tsr__kcache *c = calloc(1, sizeof *c);
    if (!c)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory opening the kernel cache");
    c->dir = open_directory(dir);
    if (c->dir < 0 || !load_secret(c, dir)) {
        tsr_status st = c->dir < 0 ? TSR_ERR_PERMISSION : TSR_ERR_IO;
        tsr__kcache_close(c); /* keeps the thread's message */
        return st;
    }
    *out = c;
    return TSR_OK;
}

void tsr__kcache_close(tsr__kcache *cache)
{
    if (!cache)
        return;
    if (cache->dir >= 0)
        close(cache->dir);
    memset(cache->secret, 0, sizeof cache->secret);
    free(cache);
}

static entry_seal seal(const tsr__kcache *c, const unsigned char *data, size_t n)
{
    entry_seal s = {{tsr__siphash24(c->secret, data, n),
                     tsr__siphash24(c->secret + TSR__SIPHASH_KEY_BYTES, data, n)}};
    return s;
}

static void entry_name(uint64_t name, char *out, size_t n)
{
    snprintf(out, n, "tessera-%016llx.bin", (unsigned long long)name);
}

int tsr__kcache_load(tsr__kcache *cache, uint64_t name, unsigned char **binary, size_t *length)
{
    char file[64];
    entry_name(name, file, sizeof file);
    struct stat st;
    int fd = open_private(cache->dir, file, 0, &st);
    if (fd < 0)
        return errno == ENOENT ? TSR__KCACHE_MISSING : TSR__KCACHE_REJECTED;
    const size_t frame = sizeof(entry_header) + sizeof(entry_seal);
    unsigned char *data = NULL;
    entry_header h;
    entry_seal s, want;
    bool ok = (uint64_t)st.st_size > frame && (uint64_t)st.st_size - frame < BINARY_MAX &&
              (data = malloc((size_t)st.st_size)) != NULL && read_all(fd, data, (size_t)st.st_size);
    close(fd);
    if (ok) {
        size_t sealed = (size_t)st.st_size - sizeof s;
        memcpy(&h, data, sizeof h);
        memcpy(&s, data + sealed, sizeof s);
        want = seal(cache, data, sealed);
        /* no early exit: the time taken says nothing about the seal */
        uint64_t diff = (s.tag[0] ^ want.tag[0]) | (s.tag[1] ^ want.tag[1]);
        ok = diff == 0 && memcmp(h.magic, ENTRY_MAGIC, 8) == 0 && h.name == name &&
             h.length == sealed - sizeof h;
    }
    if (!ok) {
        free(data);
        return TSR__KCACHE_REJECTED;
    }
    memmove(data, data + sizeof h, h.length);
    *binary = data;
    *length = h.length;
    return TSR__KCACHE_FOUND;
}

void tsr__kcache_store(tsr__kcache *cache, uint64_t name, const unsigned char *binary,
                       size_t length)
{
    size_t sealed = sizeof(entry_header) + length;
    if (length == 0 || length >= BINARY_MAX)
        return;
    unsigned char *data = malloc(sealed + sizeof(entry_seal));
    uint64_t salt;
    if (!data || !random_bytes(&salt, sizeof salt)) {
        free(data);
        return;
    }
    entry_header h = {.name = name, .length = length};
    memcpy(h.magic, ENTRY_MAGIC, 8);
    memcpy(data, &h, sizeof h);
    memcpy(data + sizeof h, binary, length);
    entry_seal s = seal(cache, data, sealed);
    memcpy(data + sealed, &s, sizeof s);
    char file[64], tmp[96];
    entry_name(name, file, sizeof file);
    snprintf(tmp, sizeof tmp, "%s.%016llx.tmp", file, (unsigned long long)salt);
    int fd = openat(cache->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        bool ok = write_all(fd, data, sealed + sizeof s);
        ok = close(fd) == 0 && ok;
        /* rename replaces whatever is at the entry's name, a link
         * included, without following it */
        if (!ok || renameat(cache->dir, tmp, cache->dir, file) != 0)
            unlinkat(cache->dir, tmp, 0);
    }
    free(data);
}
