/* Device lists and memory limits keyed on where a client runs, against a
 * real tesserad: clients started in a systemd unit or slice, or in a
 * cgroup, that a devices.visible.unit / memory_limit.unit / .slice /
 * .cgroup line names get that line's devices and memory; a client
 * elsewhere does not; `tessera ps` shows the unit.
 *
 *   config-cgroup
 * with TESSERA_TEST_DAEMON and TESSERA_TEST_CLI set, as for the
 * integration tests. It puts clients in place in one of two ways:
 *   - a cgroup v2 hierarchy it may write (root, with systemd not PID 1, as
 *     in a container or a build machine): it makes
 *     tsrtestPID.slice/job42.scope and the like there and moves each
 *     client into its cgroup (cgroup.procs) before the client says HELLO,
 *     and removes them at the end;
 *   - else, with systemd as PID 1, `systemd-run --scope --slice=...
 *     --unit=...` (the cgroup-path line is then not tried: systemd owns the
 *     tree).
 * It exits 77 (skipped) only where the machine allows neither.
 *
 * The test binary is its own client: `config-cgroup --client HOLD_MIB
 * MORE_MIB` prints its OpenCL device count ("opencl N"), then for opencl:0
 * the memory it is told ("total BYTES"), "holding" or "refused: MESSAGE"
 * for HOLD_MIB, "allocated" or "refused: MESSAGE" for MORE_MIB more, and
 * keeps what it holds until its standard input ends. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/support_config.h"
#include "support_daemon.h"
#include "test.h"

#define MiB (1024LL * 1024)

/* ---- the client --------------------------------------------------------- */

static tsr_status alloc_mib(tsr_client *c, int64_t mib, tsr_tensor **out)
{
    int64_t bytes = mib * MiB;
    tsr_tensor_options o = {.has_dtype = true,
                            .dtype = TSR_UINT8,
                            .has_device = true,
                            .device = {TSR_DEVICE_OPENCL, 0}};
    return tsr_tensor_zeros(c, 1, &bytes, &o, out);
}

static int client_main(int hold, int more)
{
    tsr_client *c;
    if (tsr_client_open(NULL, &c) != TSR_OK) {
        printf("open failed: %s\n", tsr_last_error());
        return 1;
    }
    int32_t n = -1;
    tsr_device_count(c, TSR_DEVICE_OPENCL, &n);
    printf("opencl %d\n", (int)n);
    tsr_tensor *held = NULL, *extra = NULL;
    tsr_device_properties p;
    if (n > 0 && tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p) == TSR_OK) {
        printf("total %llu\n", (unsigned long long)p.memory_bytes);
        if (alloc_mib(c, hold, &held) == TSR_OK)
            printf("holding\n");
        else
            printf("refused: %s\n", tsr_last_error());
        if (held && more > 0) {
            if (alloc_mib(c, more, &extra) == TSR_OK)
                printf("allocated\n");
            else
                printf("refused: %s\n", tsr_last_error());
        }
    }
    printf("done\n");
    fflush(stdout);
    while (getchar() != EOF)
        ;
    tsr_tensor_release(extra);
    tsr_tensor_release(held);
    tsr_client_close(c);
    return 0;
}

/* ---- places ------------------------------------------------------------- */

static char self_exe[4096];
static char mount_dir[1024]; /* a writable cgroup v2 hierarchy; "" with systemd-run */
static char slice[64];       /* tsrtestPID.slice */
static char base[1024];      /* the slice's cgroup path as /proc/PID/cgroup shows it */

/* A running client: its pid and the ends of its pipes. */
typedef struct client {
    pid_t pid;
    int in;    /* its standard input: closing it lets it end */
    FILE *out; /* what it prints */
    char text[4096];
} client;

/* The mount point of the first cgroup2 file system, "" when none. */
static void find_cgroup2(char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *dash = strstr(line, " - cgroup2 ");
        char mnt[1024];
        if (dash && sscanf(line, "%*s %*s %*s %*s %1023s", mnt) == 1) {
            snprintf(out, n, "%s", mnt);
            break;
        }
    }
    if (f)
        fclose(f);
}

static bool write_text_to(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* The cgroup `rel` (below the test's slice) in the hierarchy. */
static const char *cgroup_dir(const char *rel)
{
    static char path[2][2048];
    static int next;
    char *p = path[next++ % 2];
    snprintf(p, sizeof path[0], "%s/%s%s%s", mount_dir, slice, rel[0] ? "/" : "", rel);
    return p;
}

/* Starts `self --client HOLD MORE` in cgroup `rel` (below the slice: a
 * scope such as "job42.scope", or a deeper path), or where the test runs
 * when rel is NULL. With systemd-run, rel names the scope. */
static bool start_client(client *c, const char *rel, int hold, int more)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
        return false;
    /* Its cgroup and those above it, below the slice. */
    for (size_t k = 0; rel && mount_dir[0] && k <= strlen(rel); k++) {
        char part[256];
        if (rel[k] != '/' && rel[k] != '\0')
            continue;
        snprintf(part, sizeof part, "%.*s", (int)k, rel);
        if (mkdir(cgroup_dir(part), 0755) < 0 && errno != EEXIST)
            return false;
    }
    char hold_text[16], more_text[16];
    snprintf(hold_text, sizeof hold_text, "%d", hold);
    snprintf(more_text, sizeof more_text, "%d", more);
    c->pid = fork();
    if (c->pid == 0) {
        alarm(60);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        if (rel && mount_dir[0]) {
            char procs[2200], pid[16];
            snprintf(procs, sizeof procs, "%s/cgroup.procs", cgroup_dir(rel));
            snprintf(pid, sizeof pid, "%d", (int)getpid());
            if (!write_text_to(procs, pid)) {
                printf("cannot join %s: %s\n", procs, strerror(errno));
                _exit(1);
            }
        }
        if (rel && !mount_dir[0]) {
            char unit[256], slice_arg[128];
            snprintf(unit, sizeof unit, "--unit=%.*s", (int)(strcspn(rel, ".")), rel);
            snprintf(slice_arg, sizeof slice_arg, "--slice=%s", slice);
            /* Not root: the user's own service manager starts the scope. */
            const char *manager = geteuid() == 0 ? "--system" : "--user";
            execlp("systemd-run", "systemd-run", manager, "--scope", "--quiet", "--collect",
                   slice_arg, unit, "--", self_exe, "--client", hold_text, more_text, (char *)NULL);
            _exit(127);
        }
        execl(self_exe, self_exe, "--client", hold_text, more_text, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->in = in[1];
    c->out = fdopen(out[0], "r");
    c->text[0] = '\0';
    /* Up to its "done" line. */
    char line[1024];
    while (c->out && fgets(line, sizeof line, c->out)) {
        strncat(c->text, line, sizeof c->text - strlen(c->text) - 1);
        if (strcmp(line, "done\n") == 0)
            break;
    }
    return c->pid > 0;
}

static void end_client(client *c)
{
    close(c->in);
    if (c->out)
        fclose(c->out);
    int status;
    waitpid(c->pid, &status, 0);
}

static bool has(const client *c, const char *needle)
{
    if (strstr(c->text, needle))
        return true;
    fprintf(stderr, "the client printed:\n%s(without \"%s\")\n", c->text, needle);
    return false;
}

static long long total_of(const client *c)
{
    const char *at = strstr(c->text, "total ");
    return at ? atoll(at + 6) : -1;
}

static void remove_cgroups(void)
{
    if (!mount_dir[0])
        return;
    static const char *const dirs[] = {
        "deep/inner",    "deep",          "job42.scope",    "job1.scope",  "job2.scope",
        "hidden1.scope", "hidden2.scope", "hidden11.scope", "probe.scope", ""};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++)
        for (int tries = 0; tries < 50 && rmdir(cgroup_dir(dirs[k])) < 0 && errno == EBUSY; tries++)
            usleep(20000);
}

/* Whether the test may make cgroups of its own: the slice and a probe
 * scope made, a child moved into it and seen there by /proc. Sets base to
 * the slice's path as /proc shows it. */
static bool cgroups_writable(void)
{
    find_cgroup2(mount_dir, sizeof mount_dir);
    if (!mount_dir[0] || mkdir(cgroup_dir(""), 0755) < 0)
        return false;
    if (mkdir(cgroup_dir("probe.scope"), 0755) < 0)
        return false;
    int go[2];
    if (pipe(go) < 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        char procs[2200], text[16];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", cgroup_dir("probe.scope"));
        snprintf(text, sizeof text, "%d", (int)getpid());
        char ok = write_text_to(procs, text) ? 'y' : 'n';
        if (write(go[1], &ok, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char ok = 'n';
    close(go[1]);
    if (read(go[0], &ok, 1) != 1)
        ok = 'n';
    close(go[0]);
    char path[64], text[4096] = "";
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    char *got = read_text(path);
    if (got) {
        snprintf(text, sizeof text, "%s", got);
        free(got);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char *line = strstr(text, "0::/");
    char *end = line ? strstr(line, "/probe.scope\n") : NULL;
    if (ok != 'y' || !end)
        return false;
    snprintf(base, sizeof base, "%.*s", (int)(end - line - 3), line + 3);
    return true;
}

static bool systemd_scopes(void)
{
    char *comm = read_text("/proc/1/comm");
    bool systemd = comm && strcmp(comm, "systemd\n") == 0;
    free(comm);
    if (!systemd || system("systemd-run --version >/dev/null 2>&1") != 0)
        return false;
    mount_dir[0] = '\0';
    return true;
}

/* ---- the test ------------------------------------------------------------ */

static void test_places(const char *work)
{
    char conf[512], text[4096];
    snprintf(conf, sizeof conf, "%s/places.conf", work);
    int len = snprintf(text, sizeof text,
                       "devices.visible.unit.hidden*.scope = none\n"
                       "memory_limit.unit.job*.scope = 48MiB\n"
                       "memory_limit.slice.%s = 64MiB\n",
                       slice);
    if (mount_dir[0])
        snprintf(text + len, sizeof text - (size_t)len, "memory_limit.cgroup.%s/deep = 16MiB\n",
                 base);
    if (!write_text(conf, text)) {
        perror(conf);
        exit(1);
    }
    test_daemon d;
    const char *extra[] = {"--config", conf, NULL};
    if (test_daemon_start(&d, extra) != 0) {
        ASSERT_TRUE(false);
        return;
    }

    /* Outside the slice: the device whole, no limit. */
    client out;
    ASSERT_TRUE(start_client(&out, NULL, 4, 40));
    bool opencl = !strstr(out.text, "opencl 0\n");
    char every[32]; /* "opencl N\n": every device */
    snprintf(every, sizeof every, "%.*s", (int)(strcspn(out.text, "\n") + 1), out.text);
    long long whole = total_of(&out);
    if (opencl) {
        ASSERT_TRUE(has(&out, "holding\nallocated\n"));
        ASSERT_TRUE(whole > 64 * MiB);
    } else {
        fprintf(stderr, "no OpenCL device here: only the device lists are checked\n");
    }
    end_client(&out);

    /* job42.scope: its unit's 48 MiB is what it is told, and what it
     * gets (20 MiB for 4, then 40 more would be 60). */
    client job;
    ASSERT_TRUE(start_client(&job, "job42.scope", 4, 40));
    if (opencl) {
        ASSERT_EQ(total_of(&job), 48 * MiB);
        ASSERT_TRUE(has(&job, "holding\nrefused: "));
        ASSERT_TRUE(has(&job, "memory limit of unit job42.scope on opencl:0 reached"));
    }
    ASSERT_EQ(test_daemon_log_count(&d, "(config-cgroup) connected in job42.scope"), 1);
    end_client(&job);

    /* hidden1.scope: no OpenCL device at all, as a device devices.visible
     * leaves out. */
    client hidden;
    ASSERT_TRUE(start_client(&hidden, "hidden1.scope", 4, 0));
    ASSERT_TRUE(has(&hidden, "opencl 0\n"));
    end_client(&hidden);

    /* The slice's 64 MiB for job1 and job2 together: 20 + 20 held, 26 more
     * fits job2's unit (46 of 48) but not the slice (66 of 64). tessera
     * ps shows where each runs. */
    client job1, job2;
    ASSERT_TRUE(start_client(&job1, "job1.scope", 4, 0));
    ASSERT_TRUE(start_client(&job2, "job2.scope", 4, 26));
    if (opencl) {
        ASSERT_TRUE(has(&job1, "holding\n"));
        ASSERT_TRUE(has(&job2, "holding\nrefused: "));
        char want[256];
        snprintf(want, sizeof want, "memory limit of slice %s on opencl:0 reached", slice);
        ASSERT_TRUE(has(&job2, want));
    }
    static char ps[65536];
    const char *args[] = {"ps", "-q", "unit", "--csv", "--no-header", NULL};
    ASSERT_EQ(test_run_cli(ps, sizeof ps, args), 0);
    ASSERT_TRUE(strstr(ps, "job1.scope\n") && strstr(ps, "job2.scope\n"));
    if (opencl) {
        /* Each shows its unit's limit as the most it may reserve. */
        const char *limits[] = {"ps",          "-q",         "unit,limit", "--csv",
                                "--no-header", "--no-units", NULL};
        ASSERT_EQ(test_run_cli(ps, sizeof ps, limits), 0);
        ASSERT_TRUE(strstr(ps, "job1.scope,50331648\n") && strstr(ps, "job2.scope,50331648\n"));
        if (!strstr(ps, "job1.scope,50331648\n"))
            fprintf(stderr, "tessera ps said:\n%s", ps);
    }
    end_client(&job2);
    end_client(&job1);

    /* A cgroup below SLICE/deep, in no unit: the cgroup line's 16 MiB,
     * too little for a first 20 MiB segment. */
    if (mount_dir[0]) {
        client deep;
        ASSERT_TRUE(start_client(&deep, "deep/inner", 4, 0));
        if (opencl) {
            ASSERT_EQ(total_of(&deep), 16 * MiB);
            char want[1200];
            snprintf(want, sizeof want, "memory limit of cgroup %s/deep on opencl:0 reached", base);
            ASSERT_TRUE(has(&deep, "total 16777216\nrefused: "));
            ASSERT_TRUE(has(&deep, want));
        }
        end_client(&deep);
    }
    /* A reload changes the lists of sessions that start after it; the
     * most specific glob wins (a new scope name each: systemd may not
     * have let go of hidden1.scope yet). */
    int reloads = test_daemon_log_count(&d, "reloaded the configuration from");
    len = snprintf(text, sizeof text,
                   "devices.visible.unit.hidden1*.scope = all\n"
                   "devices.visible.unit.hidden*.scope = none\n");
    ASSERT_TRUE(write_text(conf, text));
    kill(d.pid, SIGHUP);
    for (int waited = 0;
         waited < 10000 && test_daemon_log_count(&d, "reloaded the configuration from") == reloads;
         waited += 20)
        usleep(20000);
    client again, other;
    ASSERT_TRUE(start_client(&again, "hidden11.scope", 4, 0));
    ASSERT_TRUE(start_client(&other, "hidden2.scope", 4, 0));
    ASSERT_TRUE(has(&again, every));
    ASSERT_TRUE(has(&other, "opencl 0\n"));
    end_client(&other);
    end_client(&again);

    ASSERT_TRUE(test_daemon_alive(&d));
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--client") == 0)
        return client_main(atoi(argv[2]), atoi(argv[3]));
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n <= 0)
        return 1;
    self_exe[n] = '\0';
    snprintf(slice, sizeof slice, "tsrtest%d.slice", (int)getpid());
    if (!cgroups_writable()) {
        remove_cgroups();
        if (!systemd_scopes()) {
            fprintf(stderr, "skipped: no writable cgroup v2 hierarchy and no systemd as PID 1 "
                            "to start scopes\n");
            return 77;
        }
        snprintf(base, sizeof base, "/%s", slice);
    }
    char work[] = "/tmp/tsr-cgroup-XXXXXX";
    if (!mkdtemp(work))
        return 1;
    test_places(work);
    remove_cgroups();
    char conf[600];
    snprintf(conf, sizeof conf, "%s/places.conf", work);
    unlink(conf);
    rmdir(work);
    TEST_DONE();
}
