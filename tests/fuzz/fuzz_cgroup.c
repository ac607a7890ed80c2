/* Fuzz target: the control-group parsers (core/cgroup.h), which read
 * files a container may fill with anything.
 *
 * The input's first byte picks a parser (and for tsr__cgroup_path the
 * hierarchy and the buffer's size); the rest is the file's text, for
 * tsr__cgroup_cfs split at its first NUL into the quota and period files.
 * An accepted path is absolute, NUL-terminated, fits the buffer and has
 * no "." or ".." component; an accepted limit is 0 (none) or the quota
 * over the period rounded up; a refusal sets a message and leaves the
 * result alone. */
#include <string.h>

#include "fuzz.h"

#include "core/cgroup.h"

static void check_path(const char *text, size_t len, tsr__cgroup_version v, size_t size)
{
    char buf[300];
    memset(buf, 'x', sizeof buf);
    tsr_status st = tsr__cgroup_path(text, len, v, buf, size);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        return;
    }
    size_t n = strnlen(buf, size);
    FUZZ_CHECK(n < size && buf[0] == '/');
    FUZZ_CHECK(strstr(buf, "/../") == NULL && strstr(buf, "/./") == NULL &&
               strstr(buf, "//") == NULL);
    FUZZ_CHECK(n < 3 || strcmp(buf + n - 3, "/..") != 0);
    FUZZ_CHECK(memchr(text, ':', len) != NULL);
}

static void check_limit(tsr_status st, uint32_t cpus)
{
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(cpus == 12345);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    uint8_t pick = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    uint32_t cpus = 12345;
    switch (pick % 4) {
    case 0:
    case 1:
        check_path(text, len, pick % 4 == 0 ? TSR__CGROUP_V2 : TSR__CGROUP_V1,
                   1 + (size_t)(pick >> 2) * 4);
        break;
    case 2:
        check_limit(tsr__cgroup_cpu_max(text, len, &cpus), cpus);
        break;
    default: {
        const char *nul = memchr(text, '\0', len);
        size_t qn = nul ? (size_t)(nul - text) : len;
        const char *period = nul ? nul + 1 : text + len;
        check_limit(tsr__cgroup_cfs(text, qn, period, len - qn - (nul != NULL), &cpus), cpus);
        break;
    }
    }
    return 0;
}
