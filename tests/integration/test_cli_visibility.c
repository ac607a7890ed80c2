/* Who sees what: a client of another user (nobody) sees its own session in
 * full and only the numbers of root's; root sees both in full. The daemon
 * decides from the connection's credentials, so the test needs root to run
 * a client as another user; it is skipped otherwise. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test_cli_support.h"

#define NOBODY 65534

static char out[1 << 16];

static void become_nobody(void)
{
    if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
        _exit(126);
}

/* Holder 0 stays root, holder 1 becomes nobody. */
static void second_is_nobody(int k)
{
    if (k == 1)
        become_nobody();
}

/* `tessera ARGS` as uid `uid`, its stdout in `out`; returns its status. */
static int cli_as(uid_t uid, const char *a0, const char *a1)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (uid != 0)
            become_nobody();
        dup2(p[1], STDOUT_FILENO);
        close(p[0]);
        close(p[1]);
        const char *exe = getenv("TESSERA_TEST_CLI");
        execl(exe, exe, a0, a1, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t used = 0;
    for (ssize_t got;
         used + 1 < sizeof out && (got = read(p[0], out + used, sizeof out - 1 - used)) > 0;)
        used += (size_t)got;
    out[used] = '\0';
    close(p[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char nobody_view[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "root = [s for s in data if not s['visible']]\n"
    "mine = [s for s in data if s['visible']]\n"
    "assert len(root) == 1 and len(mine) == 1, data\n"
    "r, m = root[0], mine[0]\n"
    "assert m['pid'] == int(sys.argv[2]) and m['uid'] == 65534 and m['name'] == 'holder', m\n"
    "for k in ('pid', 'uid', 'gid', 'user', 'command', 'name', 'unit', 'cgroup',\n"
    "          'pid_namespace', 'started_unix_ns'):\n"
    "    assert r[k] is None, (k, r)\n"
    "assert r['memory'] == {'opencl:0': 1048576} and r['current_device'] == 'opencl:0', r\n";

static const char root_view[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "assert all(s['visible'] for s in data) and len(data) == 2, data\n"
    "assert {s['pid'] for s in data} == {int(sys.argv[1]), int(sys.argv[2])}, data\n"
    "assert {s['uid'] for s in data} == {0, 65534}, data\n";

static const char stats_view[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "assert len(data) == 2, data\n"
    "for s in data:\n"
    "    assert s['stats']['allocated_bytes.all.current'] == 1048576, s\n"
    "assert sorted(s['pid'] for s in data if s['pid']) == [int(sys.argv[2])], data\n";

static void check(const char *what, const char *script, const char *root_pid,
                  const char *nobody_pid)
{
    const char *args[] = {root_pid, nobody_pid, NULL};
    int rc = cli_python(script, out, args);
    if (rc != 0)
        fprintf(stderr, "%s: the check failed on:\n%s\n", what, out);
    ASSERT_EQ(rc, 0);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--hold") == 0)
        return cli_holder("holder", argv[2], argv[3]);
    if (geteuid() != 0)
        TEST_SKIP("running a client as another user needs root");
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the JSON back", PYTHON);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    /* Let nobody reach the socket and write its ready file. */
    ASSERT_EQ(chmod(d.dir, 0777), 0);
    ASSERT_EQ(chmod(d.socket, 0666), 0);
    char pid[2][16];
    pid_t kids[2];
    ASSERT_TRUE(cli_start_holders(d.dir, 2, second_is_nobody, kids, pid));
    ASSERT_EQ(cli_as(NOBODY, "ps", "--json"), 0);
    check("ps --json as nobody", nobody_view, pid[0], pid[1]);
    ASSERT_EQ(cli_as(0, "ps", "--json"), 0);
    check("ps --json as root", root_view, pid[0], pid[1]);
    ASSERT_EQ(cli_as(NOBODY, "stats", "--json"), 0);
    check("stats --json as nobody", stats_view, pid[0], pid[1]);
    ASSERT_EQ(cli_as(NOBODY, "ps", NULL), 0);
    ASSERT_TRUE(strstr(out, "(other user)") && strstr(out, pid[1]) && !strstr(out, pid[0]));
    ASSERT_EQ(cli_as(NOBODY, "top", "--once"), 0);
    ASSERT_TRUE(strstr(out, "(other user)") && strstr(out, "nobody"));
    ASSERT_TRUE(cli_stop_holders(d.dir, 2, kids));
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
