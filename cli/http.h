/* The head of an HTTP/1.x request, as `tessera metrics --http` reads one
 * from the connection a socket unit hands it: the only input of the
 * command that comes from the network, so it is parsed here, purely and
 * bounded (tests/fuzz/fuzz_http.c), before anything acts on it.
 *
 * What is taken: a request line of a token method, an origin-form target
 * ("/metrics", a query after '?' ignored) and HTTP/1.0 or HTTP/1.1, lines
 * ended by CRLF or a bare LF; then header fields "name: value", at most
 * CLI_HTTP_FIELDS of them, until an empty line. Of the fields only Accept
 * is read: a media range application/openmetrics-text with a q above 0
 * and no version other than 1.0.0 asks for OpenMetrics. A body is never
 * read (GET and HEAD have none). */
#ifndef TESSERA_CLI_HTTP_H
#define TESSERA_CLI_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_HTTP_HEAD_MAX 8192 /* bytes of a request's head */
#define CLI_HTTP_FIELDS 64     /* header fields */
#define CLI_HTTP_PATH_MAX 128  /* bytes of the target's path, its NUL included */

typedef struct cli_http_request {
    bool head;                    /* HEAD: the answer carries no body */
    bool openmetrics;             /* Accept asks for OpenMetrics text */
    char path[CLI_HTTP_PATH_MAX]; /* the target without its query */
    size_t length;                /* bytes of the head, its empty line included */
} cli_http_request;

/* Reads the head at the start of buf[0, len). Returns 0 while it is
 * incomplete (no empty line yet, and fewer than CLI_HTTP_HEAD_MAX bytes),
 * else the HTTP status to answer with: 200 with *req filled in; 400 a
 * malformed head; 405 a method other than GET and HEAD; 414 a path of
 * CLI_HTTP_PATH_MAX bytes or more; 431 a head of CLI_HTTP_HEAD_MAX bytes
 * or more, or over CLI_HTTP_FIELDS fields; 505 an HTTP version other than
 * 1.0 and 1.1. *req is written only for 200. */
int cli_http_parse(const char *buf, size_t len, cli_http_request *req);

/* The reason phrase of a status cli_http_parse or the command answers with
 * ("Not Found"), "Error" for any other. */
const char *cli_http_reason(int status);

#endif /* TESSERA_CLI_HTTP_H */
