/* The operations commands against a real daemon with two client sessions
 * that hold memory on opencl:0: ps (table, JSON, CSV), devices --csv, info,
 * topo, stats and top --once, their JSON and CSV read back with Python's
 * parsers, and their usage errors. The daemon limits each session to
 * 100 MiB, which ps and stats report as the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test_cli_support.h"

static char out[1 << 16];

/* Runs the command; returns its exit status, output in `out`. */
static int cli(const char *a0, const char *a1, const char *a2, const char *a3)
{
    const char *args[] = {a0, a1, a2, a3, NULL};
    return test_run_cli(out, sizeof out, args);
}

/* Checks `out` with a Python script that reads it on stdin; argv[1] and
 * argv[2] are the holders' pids. */
static void check_py(const char *what, const char *script, const char *pid1, const char *pid2)
{
    const char *args[] = {pid1, pid2, NULL};
    ASSERT_TRUE(cli_python_ok(what, script, out, args));
}

static const char ps_json[] =
    "import json, sys, pwd, os\n"
    "data = json.load(sys.stdin)\n"
    "by_pid = {s['pid']: s for s in data}\n"
    "for p in sys.argv[1:3]:\n"
    "    s = by_pid[int(p)]\n"
    "    assert s['visible'] is True and s['uid'] == os.getuid(), s\n"
    "    assert s['user'] == pwd.getpwuid(os.getuid()).pw_name, s\n"
    "    assert s['command'] == 'integration-cli' and s['name'].startswith('holder'), s\n"
    "    assert s['memory'] == {'opencl:0': 1048576}, s\n"
    "    assert s['reserved']['opencl:0'] >= 1048576, s\n"
    "    assert s['limit']['opencl:0'] == 100 << 20, s  # memory_limit.session\n"
    "    assert s['current_device'] == 'opencl:0' and isinstance(s['session'], int), s\n"
    "    assert s['state'] == 'open' and s['kernels'] == 0, s\n"
    "    assert s['launches'] == 0 and s['busy_ms'] == 0, s\n"
    "    assert s['programs'] == 0 and s['max_programs'] == 64, s  # kernels.max_programs\n"
    "    assert set(s) >= {'gid', 'unit', 'cgroup', 'pid_namespace', 'threads', 'requests',\n"
    "                      'started_unix_ns'}, s\n"
    "assert all(s['name'] != 'tessera' for s in data)\n";

static const char ps_csv[] =
    "import csv, sys\n"
    "rows = list(csv.DictReader(sys.stdin))\n"
    "assert rows and list(rows[0]) == ['session', 'pid', 'uid', 'user', 'command', 'unit',\n"
    "    'cgroup', 'current_device', 'device', 'allocated', 'reserved', 'limit', 'state',\n"
    "    'kernels', 'name', 'launches', 'busy_ms', 'programs', 'max_programs',\n"
    "    'max_source_bytes', 'build_memory', 'build_time_limit_ms', 'run_time_limit_ms'], rows\n"
    "by_pid = {r['pid']: r for r in rows}\n"
    "for p in sys.argv[1:3]:\n"
    "    r = by_pid[p]\n"
    "    assert r['device'] == 'opencl:0' and r['allocated'] == '1048576', r\n"
    "    assert r['state'] == 'open' and r['kernels'] == '0' and r['name'] == 'holder', r\n"
    "    assert int(r['reserved']) >= 1048576 and int(r['limit']) > 0, r\n";

static const char devices_csv[] =
    "import csv, sys\n"
    "rows = list(csv.DictReader(sys.stdin))\n"
    "assert [r['device'] for r in rows] == ['cpu', 'opencl:0', 'meta'], rows\n"
    "assert int(rows[1]['memory_bytes']) > 0 and rows[1]['type'] == 'opencl', rows\n";

static const char info_json[] =
    "import json, sys\n"
    "d = json.load(sys.stdin)\n"
    "assert d['device'] == 'opencl:0' and d['links'] == {'opencl:0': 'X'}, d\n"
    "assert d['allocated_bytes'] >= 2 * 1048576 and d['sessions'] >= 2, d\n"
    "assert d['reserved_bytes'] >= d['allocated_bytes'] and d['capacity_bytes'] > 0, d\n"
    "assert d['max_alloc_bytes'] > 0 and d['backend'] == 'opencl' and d['platform_name'], d\n"
    "assert isinstance(d['available'], bool) and isinstance(d['little_endian'], bool), d\n"
    "cl = d['opencl']\n"
    "assert cl['language_version'].startswith('OpenCL C'), d\n"
    "assert isinstance(cl['platform_index'], int) and isinstance(cl['device_index'], int), d\n"
    "# the kind is the type bits' most telling one\n"
    "bits = cl['type_bits']\n"
    "kind = 'gpu' if bits & 4 else 'cpu' if bits & 2 else 'accelerator' if bits & 8 else 'other'\n"
    "assert d['kind'] == kind, d\n";

static const char topo_json[] = "import json, sys\n"
                                "t = json.load(sys.stdin)\n"
                                "assert t['numa_nodes'] >= 1 and len(t['devices']) == 1, t\n"
                                "d = t['devices'][0]\n"
                                "assert d['device'] == 'opencl:0' and d['links'] == {'opencl:0': "
                                "'X'} and d['cpu_affinity'], t\n";

static const char stats_json[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "by_pid = {s['pid']: s for s in data}\n"
    "for p in sys.argv[1:3]:\n"
    "    s = by_pid[int(p)]['stats']\n"
    "    assert by_pid[int(p)]['device'] == 'opencl:0', s\n"
    "    assert s['allocated_bytes.all.current'] == 1048576, s\n"
    "    assert s['allocated_bytes.all.peak'] >= 1048576, s\n"
    "    assert s['active_bytes.all.current'] == 1048576, s\n"
    "    assert s['reserved_bytes.all.current'] >= 1048576, s\n"
    "    assert s['allocation.all.current'] == 1 and s['allocation.all.allocated'] >= 1, s\n"
    "    assert s['segment.all.current'] == 1 and s['num_device_alloc'] == 1, s\n"
    "    assert s['num_ooms'] == 0 and s['limit_bytes'] == 100 << 20, s\n"
    "    assert s['inactive_split_bytes.all.current'] == s['reserved_bytes.all.current'] - "
    "1048576\n";

/* The session number of the holder with pid `pid`, from ps --json. */
static int session_of(const char *pid)
{
    char want[64];
    cli("ps", "--json", NULL, NULL);
    snprintf(want, sizeof want, "\"pid\": %s,", pid);
    const char *at = strstr(out, want);
    while (at && at > out && strncmp(at, "{\"session\": ", 12) != 0)
        at--;
    return at ? atoi(at + 12) : -1;
}

static void check_tables(const char *pid1, const char *pid2)
{
    ASSERT_EQ(cli("ps", NULL, NULL, NULL), 0);
    ASSERT_TRUE(strstr(out, "SID") && strstr(out, pid1) && strstr(out, pid2));
    ASSERT_TRUE(strstr(out, "integration-cl") && strstr(out, "1.0 MiB"));
    ASSERT_EQ(cli("info", "opencl:0", NULL, NULL), 0);
    ASSERT_TRUE(strstr(out, "allocated by sessions") && strstr(out, "\n  backend  ") &&
                strstr(out, "\n  kind  "));
    /* The backend's own details come last, under its name. */
    const char *own = strstr(out, "\n  opencl\n    language version   ");
    ASSERT_TRUE(own && strstr(own, "OpenCL C ") && strstr(own, "\n    type bits  ") &&
                strstr(own, "\n    device index  "));
    ASSERT_EQ(cli("topo", NULL, NULL, NULL), 0);
    ASSERT_TRUE(strstr(out, "CPU AFFINITY") && strstr(out, "Legend"));
    ASSERT_EQ(cli("top", "--once", NULL, NULL), 0);
    ASSERT_TRUE(strstr(out, "opencl:0") && strstr(out, "busy") && strstr(out, "mem"));
    ASSERT_TRUE(strstr(out, pid1) && strstr(out, pid2) && !strstr(out, "\033"));
    for (const char *line = out; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        ASSERT_TRUE(len <= 80);
        line += len + (nl != NULL);
    }
    char sid[16];
    snprintf(sid, sizeof sid, "%d", session_of(pid1));
    ASSERT_EQ(cli("stats", sid, NULL, NULL), 0);
    ASSERT_TRUE(strstr(out, "allocated_bytes.all.current") && strstr(out, "1048576"));
    ASSERT_TRUE(strstr(out, pid1) && !strstr(out, pid2));
}

static void check_usage_errors(void)
{
    ASSERT_EQ(cli("info", NULL, NULL, NULL), 2);
    ASSERT_EQ(cli("info", "nonsense:x", NULL, NULL), 2);
    ASSERT_EQ(cli("info", "opencl:9", NULL, NULL), 1);
    ASSERT_EQ(cli("ps", "extra", NULL, NULL), 2);
    ASSERT_EQ(cli("top", "--bogus", NULL, NULL), 2);
    ASSERT_EQ(cli("stats", "notanumber", NULL, NULL), 2);
    ASSERT_EQ(cli("stats", "99999", NULL, NULL), 1);
    const char *const cmds[] = {"info", "ps", "top", "topo", "stats", "devices"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        ASSERT_EQ(cli(cmds[k], "--help", NULL, NULL), 0);
        ASSERT_TRUE(strstr(out, "SYNOPSIS") && strstr(out, "--socket PATH"));
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--hold") == 0)
        return cli_holder("holder", argv[2], argv[3]);
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the JSON and CSV back", PYTHON);
    test_daemon d;
    const char *const limit[] = {"--set", "memory_limit.session=100MiB", NULL};
    if (test_daemon_start(&d, limit) != 0)
        return 1;
    char pid[2][16];
    pid_t kids[2];
    ASSERT_TRUE(cli_start_holders(d.dir, 2, NULL, kids, pid));
    for (int k = 0; k < 2; k++)
        ASSERT_EQ(atoi(pid[k]), kids[k]);
    ASSERT_EQ(cli("ps", "--json", NULL, NULL), 0);
    check_py("ps --json", ps_json, pid[0], pid[1]);
    ASSERT_EQ(cli("ps", "--csv", NULL, NULL), 0);
    check_py("ps --csv", ps_csv, pid[0], pid[1]);
    ASSERT_EQ(cli("devices", "--csv", "--all", NULL), 0);
    check_py("devices --csv", devices_csv, pid[0], pid[1]);
    ASSERT_EQ(cli("info", "opencl:0", "--json", NULL), 0);
    check_py("info --json", info_json, pid[0], pid[1]);
    ASSERT_EQ(cli("topo", "--json", NULL, NULL), 0);
    check_py("topo --json", topo_json, pid[0], pid[1]);
    ASSERT_EQ(cli("stats", "--json", NULL, NULL), 0);
    check_py("stats --json", stats_json, pid[0], pid[1]);
    check_tables(pid[0], pid[1]);
    check_usage_errors();
    ASSERT_TRUE(cli_stop_holders(d.dir, 2, kids));
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
