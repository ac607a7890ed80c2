/* `tessera metrics` against a real daemon with one client that holds 1 MiB
 * on opencl:0 and names itself with bytes that are not UTF-8: the samples
 * carry exactly the numbers the library reports (the device's capacity
 * and reservation, the client's allocation under its escaped name), the
 * text passes `promtool check metrics` (Debian's prometheus package), the
 * OpenMetrics form names counters and units as that format does, and
 * --http answers a request given on standard input. */
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "test.h"
#include "test_cli_support.h"

#define NAME "m\xff\xfe"
#define NAME_LABEL "m\\\\xff\\\\xfe" /* the label value's text: m\\xff\\xfe */
#define PROMTOOL "/usr/bin/promtool"

static char out[1 << 17];
static const char *sock;

#define cli(...) cli_run_on(out, sizeof out, sock, __VA_ARGS__)

/* Whether `line` is one whole line of out. */
static bool has_line(const char *line)
{
    size_t n = strlen(line);
    for (const char *p = strstr(out, line); p; p = strstr(p + 1, line))
        if ((p == out || p[-1] == '\n') && p[n] == '\n')
            return true;
    fprintf(stderr, "no line: %s\n", line);
    return false;
}

/* Whether a line of out begins with `start`, holds `middle` and ends with
 * `end`. */
static bool line_with(const char *start, const char *middle, const char *end)
{
    for (const char *p = strstr(out, start); p; p = strstr(p + 1, start)) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p), e = strlen(end);
        char line[2048];
        if ((p != out && p[-1] != '\n') || len >= sizeof line || len < e)
            continue;
        memcpy(line, p, len);
        line[len] = '\0';
        if (strstr(line, middle) && strcmp(line + len - e, end) == 0)
            return true;
    }
    fprintf(stderr, "no line %s...%s...%s\n", start, middle, end);
    return false;
}

/* promtool check metrics on out: its exit status. */
static int promtool(const char *dir)
{
    char path[512], cmd[1200];
    snprintf(path, sizeof path, "%s/metrics.txt", dir);
    if (!cli_write_file(path, out))
        return -1;
    snprintf(cmd, sizeof cmd, "%s check metrics < '%s' >&2", PROMTOOL, path);
    return system(cmd);
}

static void check_text(const char *dir, const char *pid, uint32_t uid)
{
    tsr_client *c = NULL;
    tsr_device_properties p;
    tsr_device_status st;
    tsr_daemon_stats ds;
    ASSERT_OK(tsr_client_open(NULL, &c));
    ASSERT_OK(tsr_device_get_properties(c, (tsr_device){TSR_DEVICE_OPENCL, 0}, &p));
    ASSERT_OK(tsr_admin_device_status(c, (tsr_device){TSR_DEVICE_OPENCL, p.daemon_index}, &st));
    ASSERT_OK(tsr_admin_daemon_stats(c, &ds));
    tsr_client_close(c);

    ASSERT_EQ(cli("metrics", NULL), 0);
    char want[1024];
    snprintf(want, sizeof want,
             "tessera_device_memory_capacity_bytes{device=\"opencl:0\"} %" PRIu64, st.capacity);
    ASSERT_TRUE(has_line(want));
    snprintf(want, sizeof want,
             "tessera_device_memory_reserved_bytes{device=\"opencl:0\"} %" PRIu64, st.reserved);
    ASSERT_TRUE(has_line(want));
    ASSERT_TRUE(has_line("tessera_sessions{state=\"open\"} 1"));
    ASSERT_TRUE(has_line("tessera_sessions{state=\"ending\"} 0"));
    ASSERT_TRUE(has_line("# TYPE tessera_device_busy_seconds_total counter"));
    snprintf(want, sizeof want,
             "tessera_device_kernels_launched_total{device=\"opencl:0\"} %" PRIu64, st.launches);
    ASSERT_TRUE(has_line(want));
    snprintf(want, sizeof want, "tessera_daemon_sessions_opened_total %" PRIu64,
             ds.sessions_opened);
    ASSERT_TRUE(has_line(want));
    ASSERT_TRUE(has_line("tessera_daemon_sessions_refused_total 0"));
    ASSERT_TRUE(has_line("tessera_daemon_monitors 1"));
    ASSERT_TRUE(has_line("tessera_daemon_reloads_total 0"));
    /* The holder, under its escaped name; its user as getpwuid names it. */
    char user[64];
    snprintf(user, sizeof user, "%u", uid);
    const struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(user, sizeof user, "%s", pw->pw_name);
    char who[512];
    int n = snprintf(who, sizeof who,
                     "pid=\"%s\",uid=\"%u\",user=\"%s\",name=\"" NAME_LABEL
                     "\",command=\"" NAME_LABEL "\"",
                     pid, uid, user);
    ASSERT_TRUE(n > 0 && (size_t)n < sizeof who);
    snprintf(want, sizeof want, ",device=\"opencl:0\"} %d", CLI_HOLD_BYTES);
    ASSERT_TRUE(line_with("tessera_session_memory_allocated_bytes{session=\"", who, want));
    ASSERT_TRUE(line_with("tessera_session_kernels{session=\"", who, "} 0"));
    ASSERT_TRUE(line_with("tessera_session_kernels_launched_total{session=\"", who, "} 0"));
    ASSERT_TRUE(line_with("tessera_session_busy_seconds_total{session=\"", who, "} 0.000000000"));
    if (access(PROMTOOL, X_OK) == 0)
        ASSERT_EQ(promtool(dir), 0);
    else
        fprintf(stderr, "note: %s is missing (Debian package prometheus): not checked\n", PROMTOOL);

    ASSERT_EQ(cli("metrics", "--openmetrics", NULL), 0);
    size_t len = strlen(out);
    ASSERT_TRUE(len > 6 && strcmp(out + len - 6, "# EOF\n") == 0);
    ASSERT_TRUE(has_line("# TYPE tessera_device_busy_seconds counter"));
    ASSERT_TRUE(has_line("# UNIT tessera_device_busy_seconds seconds"));
    ASSERT_TRUE(has_line("# UNIT tessera_device_memory_capacity_bytes bytes"));
    ASSERT_TRUE(strstr(out, "\ntessera_device_busy_seconds_total{device=\"opencl:0\"} ") != NULL);
    ASSERT_TRUE(cli_python_ok("metrics --openmetrics UTF-8",
                              "import sys; sys.stdin.buffer.read().decode('utf-8')", out, NULL));
    ASSERT_EQ(cli("metrics", "--http", "--openmetrics", NULL), 2);
}

/* tessera metrics --http with `request` on its standard input. */
static int http(const char *dir, const char *request)
{
    char path[512], cmd[1600];
    snprintf(path, sizeof path, "%s/request.txt", dir);
    if (!cli_write_file(path, request))
        return -1;
    snprintf(path, sizeof path, "%s/response.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' metrics --http --socket '%s' < '%s/request.txt' > '%s'",
             getenv("TESSERA_TEST_CLI"), sock, dir, path);
    int rc = system(cmd);
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        fclose(f);
    }
    return rc;
}

static void check_http(const char *dir)
{
    ASSERT_EQ(http(dir, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    ASSERT_TRUE(strncmp(out,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
                        "charset=utf-8\r\nContent-Length: ",
                        strlen("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
                               "charset=utf-8\r\nContent-Length: ")) == 0);
    const char *length = strstr(out, "\r\nContent-Length: ");
    const char *body = strstr(out, "\r\n\r\n");
    ASSERT_TRUE(length != NULL && body != NULL);
    if (length && body) {
        ASSERT_EQ(strtoul(length + 18, NULL, 10), (unsigned long)strlen(body + 4));
        ASSERT_TRUE(strncmp(body + 4, "# HELP tessera_build_info ", 26) == 0);
    }
    ASSERT_EQ(http(dir, "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text; "
                        "version=1.0.0\r\n\r\n"),
              0);
    ASSERT_TRUE(strstr(out, "Content-Type: application/openmetrics-text; version=1.0.0; "
                            "charset=utf-8\r\n") != NULL);
    ASSERT_TRUE(strlen(out) > 6 && strcmp(out + strlen(out) - 6, "# EOF\n") == 0);
    ASSERT_EQ(http(dir, "HEAD /metrics HTTP/1.0\r\n\r\n"), 0);
    ASSERT_TRUE(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
    ASSERT_TRUE(strlen(out) > 4 && strcmp(out + strlen(out) - 4, "\r\n\r\n") == 0);
    ASSERT_TRUE(http(dir, "GET / HTTP/1.1\r\n\r\n") != 0);
    ASSERT_TRUE(strncmp(out, "HTTP/1.1 404 Not Found\r\n", 24) == 0);
    ASSERT_TRUE(http(dir, "DELETE /metrics HTTP/1.1\r\n\r\n") != 0);
    ASSERT_TRUE(strncmp(out, "HTTP/1.1 405 Method Not Allowed\r\n", 33) == 0);
    ASSERT_TRUE(strstr(out, "\r\nAllow: GET, HEAD\r\n") != NULL);
    ASSERT_TRUE(http(dir, "GET /metrics\r\n\r\n") != 0);
    ASSERT_TRUE(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
    /* The peer closed before a whole head: nothing is answered. */
    ASSERT_TRUE(http(dir, "GET /metrics HTTP/1.1\r\n") != 0);
    ASSERT_STREQ(out, "");
}

int main(int argc, char **argv)
{
    int holder = cli_holder_mode(argc, argv, NAME);
    if (holder >= 0)
        return holder;
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the text back", PYTHON);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    sock = d.socket;
    char pid[1][16];
    pid_t kids[1];
    ASSERT_TRUE(cli_start_holders(d.dir, 1, NULL, kids, pid));
    check_text(d.dir, pid[0], (uint32_t)getuid());
    check_http(d.dir);
    ASSERT_TRUE(cli_stop_holders(d.dir, 1, kids));
    /* No daemon: an error and status 1, or 503 over HTTP. */
    const char *args[] = {"--socket", "/nonexistent/tesserad.sock", "metrics", NULL};
    ASSERT_EQ(test_run_cli(out, sizeof out, args), 1);
    sock = "/nonexistent/tesserad.sock";
    ASSERT_TRUE(http(d.dir, "GET /metrics HTTP/1.1\r\n\r\n") != 0);
    ASSERT_TRUE(strncmp(out, "HTTP/1.1 503 Service Unavailable\r\n", 34) == 0);
    ASSERT_TRUE(strstr(out, "\r\n\r\n503 Service Unavailable: cannot connect to tesserad") != NULL);
    static const char *const made[] = {"metrics.txt", "request.txt", "response.txt"};
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", d.dir, made[k]);
        unlink(path);
    }
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
