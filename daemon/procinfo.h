/* What /proc says about a client process, for the administration
 * messages (admin.c): the pid it has in each pid namespace it lives in,
 * those namespaces, its cgroup and systemd unit, and whether a connected
 * peer belongs to a group.
 *
 * Read when asked, not when the session starts: the process is alive while
 * its connection is (it holds the socket), and its cgroup may change. A
 * session that outlives its connection (kernels in flight) keeps what was
 * read when the connection ended (tsr__proc_owner), since the pid may
 * name another process by the time anyone asks. Every reader degrades to
 * "unknown" when /proc refuses (another user's process and a daemon
 * without CAP_SYS_PTRACE): nothing here fails. */
#ifndef TESSERA_DAEMON_PROCINFO_H
#define TESSERA_DAEMON_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TSR__PROC_NS_LEVELS 32 /* the kernel nests pid namespaces 32 deep at most */

/* A process's pids, outermost namespace (the daemon's /proc's) first, as
 * /proc/PID/status's NSpid line lists them, and the inode of the pid
 * namespace each lives in (0 where unknown). */
typedef struct tsr__proc_ids {
    uint32_t levels; /* 0: unknown (the process is gone) */
    uint32_t pid[TSR__PROC_NS_LEVELS];
    uint64_t ns[TSR__PROC_NS_LEVELS];
} tsr__proc_ids;

void tsr__proc_read_ids(pid_t pid, tsr__proc_ids *out);

/* The pid `target` has in the pid namespace `viewer` lives in. Returns
 * false when that cannot be told (namespaces unknown); else true, with *pid
 * 0 when the target is not in the viewer's namespace or below it. */
bool tsr__proc_pid_seen_by(const tsr__proc_ids *target, const tsr__proc_ids *viewer, uint32_t *pid);

/* The cgroup v2 path of a process ("/system.slice/foo.service"; the
 * name=systemd hierarchy's on a v1-only machine), "" when unknown, and its
 * systemd unit: the innermost path element naming a unit (".service",
 * ".scope", ...), "" when none. Both cut to fit. */
void tsr__proc_cgroup(pid_t pid, char *cgroup, size_t cgroup_size, char *unit, size_t unit_size);

/* What the administration messages tell of a client process, read once. */
typedef struct tsr__proc_owner {
    tsr__proc_ids ids;
    char cgroup[512]; /* the sizes of the wire's fields (core/protocol.h) */
    char unit[128];
} tsr__proc_owner;

void tsr__proc_read_owner(pid_t pid, tsr__proc_owner *out);

/* The unit in a cgroup path, as above (exposed for tests). */
void tsr__proc_unit_of(const char *cgroup, char *unit, size_t unit_size);

/* Where a client runs, read once when it says HELLO for the limits and
 * device lists keyed on it (config.h's tsr__place; the session keeps it,
 * whatever the process does later). The cgroup is the "0::" line of
 * /proc/PID/cgroup, as seen from the daemon's cgroup namespace; the file
 * is the client's to shape (a process in its own cgroup namespace, a
 * container's mounts), so it is checked as core/cgroup.h checks it: one
 * unified-hierarchy line, an absolute path of plain components without
 * control bytes. A path that fails, or is too long to keep whole, is
 * unknown (""), never cut, so that no prefix or glob matches a part of it.
 * The unit is the path's innermost unit component as tsr__proc_unit_of
 * finds it, the slice its innermost component ending in ".slice"; each ""
 * when there is none or it does not fit. The pid is the connection's
 * SO_PEERCRED pid: the process holds the socket while it says HELLO. */
typedef struct tsr__proc_place {
    char cgroup[512]; /* the wire's size (core/protocol.h) */
    char unit[256];   /* systemd's longest unit name, 255 bytes */
    char slice[256];
} tsr__proc_place;

void tsr__proc_read_place(pid_t pid, tsr__proc_place *out);
/* The place of the text of a /proc/PID/cgroup file (exposed for tests). */
void tsr__proc_place_parse(const char *text, size_t len, tsr__proc_place *out);

/* Whether the peer of a connected Unix socket has `gid` as its primary
 * group (`peer_gid`) or among its supplementary groups (SO_PEERGROUPS). */
bool tsr__proc_peer_in_group(int fd, gid_t peer_gid, gid_t gid);

/* Whether the peer (uid, gid) of a connected Unix socket is root or a
 * member of `group`. Reads the group database: asked once per connection
 * (at its HELLO, or when a cap would refuse it), never per request. */
bool tsr__proc_peer_is_admin(int fd, uid_t uid, gid_t gid, const char *group);

#endif /* TESSERA_DAEMON_PROCINFO_H */
