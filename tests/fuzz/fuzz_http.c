/* Fuzz target: the HTTP request parser of `tessera metrics --http`
 * (cli/http.h), which reads whatever a peer of the metrics socket sends.
 *
 * The input is the bytes read so far. The answer is one of the statuses
 * the parser documents; an accepted head has a path that begins with '/'
 * and fits, ends with a line feed within the input and the head limit,
 * and parses the same when the input is cut right after it. */
#include <string.h>

#include "fuzz.h"

#include "cli/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cli_http_request req, again;
    memset(&req, 0x55, sizeof req);
    int status = cli_http_parse((const char *)data, size, &req);
    FUZZ_CHECK(status == 0 || status == 200 || status == 400 || status == 405 || status == 414 ||
               status == 431 || status == 505);
    FUZZ_CHECK(status != 0 || size < CLI_HTTP_HEAD_MAX);
    if (status != 200)
        return 0;
    size_t n = strnlen(req.path, sizeof req.path);
    FUZZ_CHECK(n < sizeof req.path && req.path[0] == '/');
    FUZZ_CHECK(req.length > 0 && req.length <= size && req.length <= CLI_HTTP_HEAD_MAX);
    FUZZ_CHECK(data[req.length - 1] == '\n');
    FUZZ_CHECK(cli_http_parse((const char *)data, req.length, &again) == 200);
    FUZZ_CHECK(strcmp(again.path, req.path) == 0 && again.head == req.head &&
               again.openmetrics == req.openmetrics && again.length == req.length);
    return 0;
}
