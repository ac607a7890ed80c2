/* `tessera ps` numbers pids as the caller's pid namespace does: a client
 * started in a new pid namespace (unshare --pid --fork --map-root-user)
 * is shown with its namespace's pid to a `tessera ps` run inside that
 * namespace and with the host's pid to one run outside, and a host
 * process has no pid (null) inside. Skipped where unshare is missing or
 * not permitted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test_cli_support.h"

static char out[1 << 16];

/* The shell run inside the namespace: start the holder, wait until it
 * holds memory, run `tessera ps --json` there, then wait for the host to
 * look before letting the holder go. The namespace keeps the host's
 * /proc, where LeakSanitizer would look its threads up by namespace pid
 * and abort when no such host pid exists, so leak checks are off in here
 * (the same code is leak-checked by the other cli tests). */
static const char inner_script[] =
    "export ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\"\n"
    "\"$0\" --hold \"$1/ready\" \"$1/release\" &\n"
    "i=0; while [ ! -s \"$1/ready\" ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done\n"
    "\"$2\" ps --json > \"$1/inner.json.tmp\" && mv \"$1/inner.json.tmp\" \"$1/inner.json\"\n"
    "wait\n";

/* Inside: the holder has the pid it wrote; the host's client none. */
static const char inner_view[] =
    "import json, sys\n"
    "data = json.load(open(sys.argv[1]))\n"
    "holder = [s for s in data if s['name'] == 'pidns-holder']\n"
    "host = [s for s in data if s['name'] == 'pidns-host']\n"
    "assert len(holder) == 1 and len(host) == 1, data\n"
    "assert holder[0]['pid'] == int(sys.argv[2]), (holder, sys.argv)\n"
    "assert host[0]['pid'] is None and host[0]['visible'], host\n"
    "assert holder[0]['pid_namespace'] != host[0]['pid_namespace'], data\n";

/* Outside: the holder's host pid, whose innermost NSpid is the pid it
 * wrote; the host client's own pid. */
static const char host_view[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "holder = [s for s in data if s['name'] == 'pidns-holder'][0]\n"
    "host = [s for s in data if s['name'] == 'pidns-host'][0]\n"
    "assert host['pid'] == int(sys.argv[2]), host\n"
    "nspid = [l for l in open('/proc/%d/status' % holder['pid']) if l.startswith('NSpid:')][0]\n"
    "assert nspid.split()[1:] == [str(holder['pid']), sys.argv[1]], (nspid, holder)\n";

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--hold") == 0)
        return cli_holder("pidns-holder", argv[2], argv[3]);
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the JSON back", PYTHON);
    if (system("unshare --pid --fork --map-root-user true >/dev/null 2>&1") != 0)
        TEST_SKIP("unshare --pid --fork --map-root-user is not permitted here");
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    tsr_client *host;
    tsr_client_options o = {.name = "pidns-host"};
    ASSERT_OK(tsr_client_open(&o, &host));
    char self[512], path[600], ready[600], release[600], my_pid[16], ns_pid[16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    pid_t kid = fork();
    if (kid == 0) {
        execlp("unshare", "unshare", "--pid", "--fork", "--map-root-user", "/bin/sh", "-c",
               inner_script, self, d.dir, getenv("TESSERA_TEST_CLI"), (char *)NULL);
        _exit(127);
    }
    snprintf(path, sizeof path, "%s/inner.json", d.dir);
    snprintf(ready, sizeof ready, "%s/ready", d.dir);
    snprintf(release, sizeof release, "%s/release", d.dir);
    ASSERT_TRUE(cli_wait_file(path));
    snprintf(ns_pid, sizeof ns_pid, "%d", cli_read_pid(ready));
    snprintf(my_pid, sizeof my_pid, "%d", (int)getpid());
    const char *inner_args[] = {path, ns_pid, NULL};
    ASSERT_EQ(cli_python(inner_view, "", inner_args), 0);
    const char *ps[] = {"ps", "--json", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, ps), 0);
    const char *host_args[] = {ns_pid, my_pid, NULL};
    int rc = cli_python(host_view, out, host_args);
    if (rc != 0)
        fprintf(stderr, "host view:\n%s\n", out);
    ASSERT_EQ(rc, 0);
    FILE *f = fopen(release, "w");
    if (f)
        fclose(f);
    int status = -1;
    waitpid(kid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tsr_client_close(host);
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
