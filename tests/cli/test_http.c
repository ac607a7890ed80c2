/* cli/http.c's request parser, case by case: requests Prometheus and curl
 * send, what each status answers (400, 405, 414, 431, 505), heads that are
 * not complete yet, and which Accept fields ask for OpenMetrics. */
#include <stdio.h>
#include <string.h>

#include "cli/http.h"
#include "test.h"

#define PROMETHEUS_ACCEPT                                                              \
    "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;" \
    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"

static const struct {
    const char *head;
    int status;
    const char *path; /* for 200 */
    bool head_method, openmetrics;
} cases[] = {
    {"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9477\r\nUser-Agent: "
     "Prometheus/2.42.0\r\n" PROMETHEUS_ACCEPT
     "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
     200, "/metrics", false, true},
    {"GET /metrics HTTP/1.1\r\nHost: localhost\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
     200, "/metrics", false, false},
    {"HEAD /metrics?name[]=x HTTP/1.0\n\n", 200, "/metrics", true, false},
    {"\r\nGET / HTTP/1.1\r\n\r\n", 200, "/", false, false}, /* an empty line before */
    {"GET /metrics HTTP/1.1\r\naccept:APPLICATION/OPENMETRICS-TEXT\r\n\r\n", 200, "/metrics", false,
     true},
    {"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text; q=0\r\n\r\n", 200, "/metrics",
     false, false},
    {"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=0.0.1\r\n\r\n", 200,
     "/metrics", false, false},
    {"GET /metrics HTTP/1.1\r\nAccept: text/plain, application/openmetrics-text;q=0.001\r\n\r\n",
     200, "/metrics", false, true},
    {"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=\"1.0.0\"\r\n\r\n", 200,
     "/metrics", false, true},
    {"GET /metrics HTTP/1.1\r\nX-A: b\r\nAccept: application/openmetrics-texts\r\n\r\n", 200,
     "/metrics", false, false},
    /* incomplete: no empty line yet */
    {"GET /metrics HTTP/1.1\r\nHost: x\r\n", 0, NULL, false, false},
    {"GET /metr", 0, NULL, false, false},
    {"", 0, NULL, false, false},
    /* refused */
    {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, NULL, false, false},
    {"get /metrics HTTP/1.1\r\n\r\n", 405, NULL, false, false},
    {"GET /metrics HTTP/2.0\r\n\r\n", 505, NULL, false, false},
    {"GET /metrics HTTP/0.9\r\n\r\n", 505, NULL, false, false},
    {"GET /metrics\r\n\r\n", 400, NULL, false, false},
    {"GET  /metrics HTTP/1.1\r\n\r\n", 400, NULL, false, false},
    {"GET http://x/metrics HTTP/1.1\r\n\r\n", 400, NULL, false, false},
    {"GET /met rics HTTP/1.1\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1 \r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\nHost x\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\nHo st: x\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\nA: b\x01\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\nA: b\rc\r\n\r\n", 400, NULL, false, false},
    {"G\xc3\xa9T /metrics HTTP/1.1\r\n\r\n", 400, NULL, false, false},
    {"GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n", 400, NULL, false, false},
};

int main(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cli_http_request req;
        memset(&req, 0x55, sizeof req);
        size_t len = strlen(cases[k].head);
        int status = cli_http_parse(cases[k].head, len, &req);
        if (status != cases[k].status)
            fprintf(stderr, "case %zu: %d, not %d\n", k, status, cases[k].status);
        ASSERT_EQ(status, cases[k].status);
        if (status != 200)
            continue;
        ASSERT_STREQ(req.path, cases[k].path);
        ASSERT_EQ(req.head, cases[k].head_method);
        ASSERT_EQ(req.openmetrics, cases[k].openmetrics);
        ASSERT_EQ(req.length, len);
        /* Bytes after the head (a body, the next request) are not read. */
        char more[1024];
        snprintf(more, sizeof more, "%sGARBAGE", cases[k].head);
        ASSERT_EQ(cli_http_parse(more, strlen(more), &req), 200);
        ASSERT_EQ(req.length, len);
    }

    /* Limits: the path, the head, the fields. */
    static char big[CLI_HTTP_HEAD_MAX + 64];
    cli_http_request req;
    snprintf(big, sizeof big, "GET /%0*d HTTP/1.1\r\n\r\n", CLI_HTTP_PATH_MAX - 2, 0);
    ASSERT_EQ(cli_http_parse(big, strlen(big), &req), 200); /* 127 bytes and its NUL */
    ASSERT_EQ(strlen(req.path), (size_t)CLI_HTTP_PATH_MAX - 1);
    snprintf(big, sizeof big, "GET /%0*d HTTP/1.1\r\n\r\n", CLI_HTTP_PATH_MAX - 1, 0);
    ASSERT_EQ(cli_http_parse(big, strlen(big), &req), 414);
    memset(big, 'a', sizeof big);
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    ASSERT_EQ(cli_http_parse(big, CLI_HTTP_HEAD_MAX - 1, &req), 0);
    ASSERT_EQ(cli_http_parse(big, CLI_HTTP_HEAD_MAX, &req), 431);
    ASSERT_EQ(cli_http_parse(big, sizeof big, &req), 431);
    size_t n = (size_t)snprintf(big, sizeof big, "GET / HTTP/1.1\r\n");
    for (int k = 0; k < CLI_HTTP_FIELDS; k++)
        n += (size_t)snprintf(big + n, sizeof big - n, "F%d: v\r\n", k);
    snprintf(big + n, sizeof big - n, "\r\n");
    ASSERT_EQ(cli_http_parse(big, strlen(big), &req), 200);
    snprintf(big + n, sizeof big - n, "G: v\r\n\r\n");
    ASSERT_EQ(cli_http_parse(big, strlen(big), &req), 431);

    ASSERT_STREQ(cli_http_reason(404), "Not Found");
    ASSERT_STREQ(cli_http_reason(431), "Request Header Fields Too Large");
    ASSERT_STREQ(cli_http_reason(999), "Error");
    TEST_DONE();
}
