/* The user and group database the dispatcher fuzzer's daemon sees, in
 * place of the system's: the daemon looks names up when it refuses an
 * allocation over a uid's or group's limit, and looks for tessera-admin
 * when it admits a session over a cap and answers the administration
 * messages.
 *
 * These definitions take the place of the C library's for the whole
 * program (the executable's symbols come first). Two reasons: an input
 * then replays alike on every machine (a tessera-admin group here or not,
 * users named or not), and a lookup costs nothing, where the system's went
 * through NSS (nss-systemd opened some twenty files per call and took a
 * seventh of the fuzzer's time). The uids and gids are fuzz_dispatch.c's
 * peers; any other id or name is unknown (0 with *result NULL, as the C
 * library says "not found"). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fake_users.h"

struct entry {
    uint32_t id;
    const char *name;
};

static const struct entry
    users[] = {{0, "root"}, {1000, "ada"}, {1001, "bob"}, {1002, "cy"}, {1003, "dee"}},
    groups[] = {{0, "root"}, {100, "users"}, {101, "staff"}, {FAKE_ADMIN_GID, "tessera-admin"}};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Copies name into buf (the caller's scratch), or ERANGE. */
static int place(const char *name, char *buf, size_t n, char **out)
{
    size_t len = strlen(name) + 1;
    if (len + 1 > n)
        return ERANGE;
    memcpy(buf, name, len);
    buf[len] = '\0'; /* an empty password / member list */
    *out = buf;
    return 0;
}

static int fill_user(size_t k, struct passwd *pw, char *buf, size_t n, struct passwd **result)
{
    memset(pw, 0, sizeof *pw);
    int e = place(users[k].name, buf, n, &pw->pw_name);
    if (e)
        return e;
    pw->pw_passwd = pw->pw_dir = pw->pw_shell = pw->pw_gecos = buf + strlen(buf) + 1;
    pw->pw_uid = users[k].id;
    pw->pw_gid = users[k].id == 0 ? 0 : 100;
    *result = pw;
    return 0;
}

static int fill_group(size_t k, struct group *gr, char *buf, size_t n, struct group **result)
{
    static char *no_members[] = {NULL};
    memset(gr, 0, sizeof *gr);
    int e = place(groups[k].name, buf, n, &gr->gr_name);
    if (e)
        return e;
    gr->gr_passwd = buf + strlen(buf) + 1;
    gr->gr_gid = groups[k].id;
    gr->gr_mem = no_members;
    *result = gr;
    return 0;
}

/* The row of a table naming `name`, else of id `id`; -1 when none. */
static int find(const struct entry *table, size_t n, uint32_t id, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (name ? strcmp(table[k].name, name) == 0 : table[k].id == id)
            return (int)k;
    return -1;
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n, struct passwd **result)
{
    int k = find(users, COUNT(users), uid, NULL);
    *result = NULL;
    return k < 0 ? 0 : fill_user((size_t)k, pw, buf, n, result);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n, struct passwd **result)
{
    int k = find(users, COUNT(users), 0, name);
    *result = NULL;
    return k < 0 ? 0 : fill_user((size_t)k, pw, buf, n, result);
}

int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t n, struct group **result)
{
    int k = find(groups, COUNT(groups), gid, NULL);
    *result = NULL;
    return k < 0 ? 0 : fill_group((size_t)k, gr, buf, n, result);
}

int getgrnam_r(const char *name, struct group *gr, char *buf, size_t n, struct group **result)
{
    int k = find(groups, COUNT(groups), 0, name);
    *result = NULL;
    return k < 0 ? 0 : fill_group((size_t)k, gr, buf, n, result);
}
