/* See procinfo.h. */
#include "daemon/procinfo.h"

#include "core/cgroup.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

/* The line of /proc/PID/<file> that starts with `key`, without the key. */
static bool proc_line(pid_t pid, const char *file, const char *key, char *out, size_t n)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool found = false;
    size_t klen = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(out, n, "%s", line + klen);
        found = true;
    }
    fclose(f);
    return found;
}

void tsr__proc_read_ids(pid_t pid, tsr__proc_ids *out)
{
    memset(out, 0, sizeof *out);
    char text[512];
    if (!proc_line(pid, "status", "NSpid:", text, sizeof text))
        return;
    char *p = text, *end;
    for (unsigned long v; out->levels < TSR__PROC_NS_LEVELS; p = end) {
        v = strtoul(p, &end, 10);
        if (end == p)
            break;
        out->pid[out->levels++] = (uint32_t)v;
    }
    if (out->levels == 0)
        return;
    /* The innermost namespace, then its ancestors up to the daemon's. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    for (uint32_t level = out->levels; fd >= 0 && level-- > 0;) {
        struct stat st;
        if (fstat(fd, &st) == 0)
            out->ns[level] = (uint64_t)st.st_ino;
        int parent = level > 0 ? ioctl(fd, NS_GET_PARENT) : -1;
        close(fd);
        fd = parent;
    }
    if (fd >= 0)
        close(fd);
}

bool tsr__proc_pid_seen_by(const tsr__proc_ids *target, const tsr__proc_ids *viewer, uint32_t *pid)
{
    if (target->levels == 0 || viewer->levels == 0)
        return false;
    uint32_t level = viewer->levels - 1;
    if (level == 0) { /* the viewer shares the daemon's namespace */
        *pid = target->pid[0];
        return true;
    }
    if (viewer->ns[level] == 0)
        return false;
    if (level < target->levels && target->ns[level] == viewer->ns[level]) {
        *pid = target->pid[level];
        return true;
    }
    /* A namespace the target lives in, at the viewer's depth, that is not
     * the viewer's: the target is invisible to it. Not known: cannot tell. */
    if (level < target->levels && target->ns[level] == 0)
        return false;
    *pid = 0;
    return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && memcmp(s + n - k, suffix, k) == 0;
}

void tsr__proc_unit_of(const char *cgroup, char *unit, size_t unit_size)
{
    static const char *const kinds[] = {".service", ".scope", ".socket", ".mount", ".swap"};
    if (unit_size == 0)
        return;
    unit[0] = '\0';
    for (const char *p = cgroup; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (ends_with(p, n, kinds[k]))
                snprintf(unit, unit_size, "%.*s", (int)n, p);
        p += n;
    }
}

void tsr__proc_cgroup(pid_t pid, char *cgroup, size_t cgroup_size, char *unit, size_t unit_size)
{
    char path[1024];
    if (!proc_line(pid, "cgroup", "0::", path, sizeof path) &&
        !proc_line(pid, "cgroup", "1:name=systemd:", path, sizeof path))
        path[0] = '\0';
    snprintf(cgroup, cgroup_size, "%s", path);
    tsr__proc_unit_of(path, unit, unit_size);
}

/* The innermost component of `cgroup` that ends in `suffix` and fits
 * `size` whole, else "". */
static void innermost(const char *cgroup, const char *suffix, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *p = cgroup; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (ends_with(p, n, suffix))
            snprintf(out, size, "%.*s", (int)(n < size ? n : 0), p);
        p += n;
    }
}

void tsr__proc_place_parse(const char *text, size_t len, tsr__proc_place *out)
{
    memset(out, 0, sizeof *out);
    /* One byte more than kept: a path that fills it is too long. */
    char path[sizeof out->cgroup + 1];
    if (tsr__cgroup_path(text, len, TSR__CGROUP_V2, path, sizeof path) != TSR_OK ||
        strlen(path) >= sizeof out->cgroup)
        return;
    memcpy(out->cgroup, path, strlen(path) + 1);
    char unit[sizeof out->unit + 1];
    tsr__proc_unit_of(out->cgroup, unit, sizeof unit);
    if (strlen(unit) < sizeof out->unit)
        memcpy(out->unit, unit, strlen(unit) + 1);
    innermost(out->cgroup, ".slice", out->slice, sizeof out->slice);
}

void tsr__proc_read_place(pid_t pid, tsr__proc_place *out)
{
    memset(out, 0, sizeof *out);
    char path[64], text[16384];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = 0;
    ssize_t got;
    while (len < sizeof text && (got = read(fd, text + len, sizeof text - len)) > 0)
        len += (size_t)got;
    close(fd);
    if (len < sizeof text) /* else larger than any the kernel writes: unknown */
        tsr__proc_place_parse(text, len, out);
}

void tsr__proc_read_owner(pid_t pid, tsr__proc_owner *out)
{
    tsr__proc_read_ids(pid, &out->ids);
    tsr__proc_cgroup(pid, out->cgroup, sizeof out->cgroup, out->unit, sizeof out->unit);
}

bool tsr__proc_peer_in_group(int fd, gid_t peer_gid, gid_t gid)
{
    if (peer_gid == gid)
        return true;
    gid_t groups[256];
    socklen_t len = sizeof groups;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0)
        return false;
    for (size_t k = 0; k < len / sizeof groups[0]; k++)
        if (groups[k] == gid)
            return true;
    return false;
}

bool tsr__proc_peer_is_admin(int fd, uid_t uid, gid_t gid, const char *group)
{
    if (uid == 0)
        return true;
    struct group g, *found = NULL;
    char buf[4096];
    return getgrnam_r(group, &g, buf, sizeof buf, &found) == 0 && found &&
           tsr__proc_peer_in_group(fd, gid, found->gr_gid);
}
