/* The operator's forms of the daemon commands, against a real daemon with
 * one client that holds 1 MiB on opencl:0 and names itself (its process
 * and its session) with bytes that are not UTF-8: global options before
 * the command (--socket, with $TESSERA_SOCKET pointing nowhere), --query
 * with --csv, --no-header and --no-units giving exactly the numbers the
 * library reports, ps's NAME column, and --loop with --count giving
 * exactly that many rounds in each format (JSON Lines read back by
 * Python). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "test.h"
#include "test_cli_support.h"

#define NAME "q\xff\xfe"           /* the holder's process and session name */
#define NAME_ESCAPED "q\\xff\\xfe" /* as tables and CSV show it */

static char out[1 << 16];
static const char *sock;

#define cli(...) cli_run_on(out, sizeof out, sock, __VA_ARGS__)

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void check_devices(tsr_client *c)
{
    tsr_device_properties p;
    tsr_device_status st;
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    ASSERT_OK(tsr_admin_device_status(c, (tsr_device){TSR_DEVICE_OPENCL, p.daemon_index}, &st));
    ASSERT_TRUE(strpbrk(p.name, ",\"\\") == NULL); /* printed as it is in CSV */
    ASSERT_TRUE(st.reserved >= CLI_HOLD_BYTES && st.capacity > st.reserved);
    char want[512];
    snprintf(want, sizeof want, "0,%s,%llu,%llu\n", p.name, (unsigned long long)st.capacity,
             (unsigned long long)st.reserved);
    ASSERT_EQ(cli("devices", "--query", "index,name,memory_total,memory_used", "--csv",
                  "--no-header", "--no-units", NULL),
              0);
    ASSERT_STREQ(out, want);
    /* The same, the options before the command, --query=, short forms. */
    ASSERT_EQ(cli("--csv", "--no-header", "devices", "-q", "index,name,memory_total,memory_used",
                  "--no-units", NULL),
              0);
    ASSERT_STREQ(out, want);
    snprintf(want, sizeof want, "memory_total,memory_free,sessions\n%llu,%llu,%u\n",
             (unsigned long long)st.capacity, (unsigned long long)(st.capacity - st.reserved),
             st.sessions);
    ASSERT_EQ(cli("devices", "--csv", "--query=memory_total,memory_free,sessions", NULL), 0);
    ASSERT_STREQ(out, want);
    /* JSON: objects with just those keys, in that order. */
    snprintf(want, sizeof want, "[\n  {\"index\": 0, \"memory_total\": %llu}\n]\n",
             (unsigned long long)st.capacity);
    ASSERT_EQ(cli("-j", "devices", "-q", "index,memory_total", NULL), 0);
    ASSERT_STREQ(out, want);
    /* A table: the heading, and units unless --no-units. */
    ASSERT_EQ(cli("devices", "-q", "device,memory_used", NULL), 0);
    ASSERT_TRUE(strncmp(out, "DEVICE     MEMORY USED\nopencl:0   ", 33) == 0);
    ASSERT_TRUE(strstr(out, " MiB\n") != NULL);
    snprintf(want, sizeof want, "opencl:0   %11llu\n", (unsigned long long)st.reserved);
    ASSERT_EQ(cli("devices", "-q", "device,memory_used", "--no-units", "--no-header", NULL), 0);
    ASSERT_STREQ(out, want);
}

static const char ps_json[] = "import json, sys\n"
                              "data = json.load(sys.stdin)\n"
                              "assert data == [{'pid': int(sys.argv[1]), 'name': 'q\\xff\\xfe',\n"
                              "                 'command': 'q\\xff\\xfe', 'allocated': 1048576}],"
                              " data\n";

static void check_ps(const char *pid)
{
    char want[512];
    /* --socket before the command; $TESSERA_SOCKET leads nowhere. */
    ASSERT_EQ(cli("ps", NULL), 0);
    ASSERT_TRUE(strstr(out, " NAME ") && strstr(out, " COMMAND "));
    snprintf(want, sizeof want, " %s ", pid);
    ASSERT_TRUE(strstr(out, want) && strstr(out, NAME_ESCAPED));
    snprintf(want, sizeof want, "%s,%s,opencl:0,1048576\n", pid, NAME_ESCAPED);
    ASSERT_EQ(cli("ps", "--query", "pid,name,device,allocated", "--csv", "--no-header", NULL), 0);
    ASSERT_STREQ(out, want);
    /* No field of a device: a row per session. */
    snprintf(want, sizeof want, "name,pid\n%s,%s\n", NAME_ESCAPED, pid);
    ASSERT_EQ(cli("--csv", "ps", "-q", "name,pid", NULL), 0);
    ASSERT_STREQ(out, want);
    ASSERT_EQ(cli("ps", "--json", "-q", "pid,name,command,allocated", NULL), 0);
    const char *args[] = {pid, NULL};
    ASSERT_TRUE(cli_python_ok("ps --json --query", ps_json, out, args));
    ASSERT_TRUE(cli_python_ok("ps --json --query UTF-8",
                              "import sys; sys.stdin.buffer.read().decode('utf-8')", out, NULL));
    /* The default CSV has the name, then the later launches and busy_ms,
     * then the user programs and the kernels.* limits (the defaults). */
    ASSERT_EQ(cli("ps", "--csv", NULL), 0);
    ASSERT_TRUE(strstr(out,
                       ",state,kernels,name,launches,busy_ms,programs,max_programs,"
                       "max_source_bytes,build_memory,build_time_limit_ms,run_time_limit_ms\n") !=
                NULL);
    snprintf(want, sizeof want, ",open,0,%s,0,0,0,64,1048576,8589934592,60000,60000\n",
             NAME_ESCAPED);
    ASSERT_TRUE(strstr(out, want) != NULL);
    /* Bytes with and without units in tables. */
    ASSERT_EQ(cli("ps", "-q", "pid,allocated", NULL), 0);
    ASSERT_TRUE(strstr(out, "  1.0 MiB\n") != NULL);
    snprintf(want, sizeof want, "%7s    1048576\n", pid);
    ASSERT_EQ(cli("ps", "-q", "pid,allocated", "--no-units", "--no-header", NULL), 0);
    ASSERT_STREQ(out, want);
}

static const char json_lines[] = "import json, sys\n"
                                 "lines = sys.stdin.read().split('\\n')\n"
                                 "assert lines[-1] == '' and len(lines) == 4, lines\n"
                                 "for line in lines[:3]:\n"
                                 "    doc = json.loads(line)\n"
                                 "    assert isinstance(doc, list) and len(doc) == 1, doc\n"
                                 "    assert doc[0]['name'] == 'q\\xff\\xfe', doc\n";

static void check_loops(const char *pid)
{
    ASSERT_EQ(cli("devices", "--loop", "0.1", "--count", "3", "--csv", "-q", "index,memory_used",
                  "--no-units", NULL),
              0);
    ASSERT_EQ(count_lines(out), 4);
    ASSERT_TRUE(strncmp(out, "index,memory_used\n0,", 20) == 0);
    ASSERT_TRUE(strstr(out + 1, "index") == NULL); /* the header once */
    ASSERT_EQ(cli("devices", "-l", "0.1", "-c", "3", "--csv", "--no-header", "-q", "index", NULL),
              0);
    ASSERT_STREQ(out, "0\n0\n0\n");
    ASSERT_EQ(cli("ps", "-l", "0.1", "-c", "3", "--json", NULL), 0);
    ASSERT_TRUE(cli_python_ok("ps --loop --json", json_lines, out, NULL));
    ASSERT_EQ(cli("--json", "ps", "-l", ".1", "-c", "3", "-q", "pid,name", NULL), 0);
    ASSERT_TRUE(cli_python_ok("ps --loop --json --query", json_lines, out, NULL));
    ASSERT_TRUE(strstr(out, "[{\"pid\": ") == out);
    /* A table: the heading every round, a blank line between rounds. */
    ASSERT_EQ(cli("ps", "-q", "pid", "-l", "0.1", "-c", "3", NULL), 0);
    char want[128];
    snprintf(want, sizeof want, "    PID\n%7s\n\n    PID\n%7s\n\n    PID\n%7s\n", pid, pid, pid);
    ASSERT_STREQ(out, want);
    ASSERT_EQ(cli("stats", "--loop", "0.1", "--count", "2", "--json", NULL), 0);
    ASSERT_EQ(count_lines(out), 2);
    ASSERT_EQ(cli("stats", "--no-units", NULL), 0);
    ASSERT_TRUE(strstr(out, "allocated_bytes.all.current") && strstr(out, "1048576") &&
                !strstr(out, "MiB"));
}

int main(int argc, char **argv)
{
    int holder = cli_holder_mode(argc, argv, NAME);
    if (holder >= 0)
        return holder;
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the JSON back", PYTHON);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    sock = d.socket;
    char pid[1][16];
    pid_t kids[1];
    ASSERT_TRUE(cli_start_holders(d.dir, 1, NULL, kids, pid));
    tsr_client *c = NULL;
    ASSERT_OK(tsr_client_open(NULL, &c));
    /* From here on only --socket finds the daemon. */
    setenv("TESSERA_SOCKET", "/nonexistent/tesserad.sock", 1);
    if (c) {
        check_devices(c);
        tsr_client_close(c);
    }
    check_ps(pid[0]);
    check_loops(pid[0]);
    const char *no_socket[] = {"ps", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, no_socket), 1);

    ASSERT_TRUE(cli_stop_holders(d.dir, 1, kids));
    if (test__failed)
        test_daemon_dump_log(&d);
    setenv("TESSERA_SOCKET", d.socket, 1);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
