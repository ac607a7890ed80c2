/* Control-group parsers (cgroup.h). */
#include "core/cgroup.h"

#include <stdbool.h>
#include <string.h>

#include "core/error.h"

/* The line of text starting at `at` (up to a newline or the end). */
static size_t line_end(const char *text, size_t len, size_t at)
{
    while (at < len && text[at] != '\n')
        at++;
    return at;
}

/* Whether the comma-separated list [s, s + n) has `name` as an item. */
static bool list_has(const char *s, size_t n, const char *name)
{
    size_t w = strlen(name);
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        if (j - i == w && memcmp(s + i, name, w) == 0)
            return true;
        i = j + 1;
    }
    return false;
}

/* Whether [p, p + n) is an absolute path of plain components: no ".",
 * "..", empty component (but the root itself) or control byte. */
static bool clean_path(const char *p, size_t n)
{
    if (n == 0 || p[0] != '/')
        return false;
    if (n == 1)
        return true;
    for (size_t i = 1; i <= n;) {
        size_t j = i;
        while (j < n && p[j] != '/') {
            if ((unsigned char)p[j] < 0x20 || p[j] == 0x7f)
                return false;
            j++;
        }
        size_t c = j - i;
        if (c == 0 || (c == 1 && p[i] == '.') || (c == 2 && p[i] == '.' && p[i + 1] == '.'))
            return false;
        i = j + 1;
    }
    return true;
}

tsr_status tsr__cgroup_path(const char *text, size_t len, tsr__cgroup_version version, char *buf,
                            size_t size)
{
    if ((text == NULL && len > 0) || buf == NULL || size == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cgroup path: NULL text or buffer");
    buf[0] = '\0';
    for (size_t at = 0; at < len;) {
        size_t end = line_end(text, len, at);
        const char *c1 = memchr(text + at, ':', end - at);
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(text + end - (c1 + 1))) : NULL;
        if (!c1 || !c2)
            return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                             "/proc/self/cgroup: a line without ID:CONTROLLERS:PATH");
        const char *id = text + at, *ctl = c1 + 1, *path = c2 + 1;
        size_t id_len = (size_t)(c1 - id), ctl_len = (size_t)(c2 - ctl);
        size_t path_len = (size_t)(text + end - path);
        bool match = version == TSR__CGROUP_V2
                         ? id_len == 1 && id[0] == '0' && ctl_len == 0
                         : !(id_len == 1 && id[0] == '0') && list_has(ctl, ctl_len, "cpu");
        if (match) {
            if (!clean_path(path, path_len))
                return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                                 "/proc/self/cgroup: the cgroup path is not a clean absolute path");
            if (path_len >= size)
                return tsr__fail(TSR_ERR_BUFFER_TOO_SMALL, "/proc/self/cgroup: a path of %zu bytes",
                                 path_len);
            memcpy(buf, path, path_len);
            buf[path_len] = '\0';
            return TSR_OK;
        }
        at = end + 1;
    }
    return tsr__fail(TSR_ERR_NOT_SUPPORTED, "this process is in no cgroup %s hierarchy%s",
                     version == TSR__CGROUP_V2 ? "v2" : "v1",
                     version == TSR__CGROUP_V2 ? "" : " with the cpu controller");
}

uint32_t tsr__cgroup_cpus(uint64_t quota, uint64_t period)
{
    if (period == 0)
        return 0;
    uint64_t n = quota / period + (quota % period != 0);
    return n == 0 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* A decimal of 1 to 19 digits (no sign, no leading zero but "0") from
 * [s, s + n): the whole range, or false. */
static bool decimal(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 19 || (n > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* The text without its one final newline (the kernel ends every value
 * with one; a file without it is taken as it is). */
static size_t trimmed(const char *text, size_t len)
{
    return len > 0 && text[len - 1] == '\n' ? len - 1 : len;
}

tsr_status tsr__cgroup_cpu_max(const char *text, size_t len, uint32_t *cpus)
{
    if ((text == NULL && len > 0) || cpus == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cpu.max: NULL text or result");
    len = trimmed(text, len);
    const char *space = len ? memchr(text, ' ', len) : NULL;
    uint64_t quota = 0, period = 0;
    if (!space || !decimal(space + 1, (size_t)(text + len - (space + 1)), &period) || period == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cpu.max: not \"QUOTA PERIOD\"");
    size_t qn = (size_t)(space - text);
    if (qn == 3 && memcmp(text, "max", 3) == 0) {
        *cpus = 0;
        return TSR_OK;
    }
    if (!decimal(text, qn, &quota))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "cpu.max: a quota that is neither max nor a number");
    *cpus = tsr__cgroup_cpus(quota, period);
    return TSR_OK;
}

tsr_status tsr__cgroup_cfs(const char *quota, size_t quota_len, const char *period,
                           size_t period_len, uint32_t *cpus)
{
    if ((quota == NULL && quota_len > 0) || (period == NULL && period_len > 0) || cpus == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cpu.cfs_quota_us: NULL text or result");
    quota_len = trimmed(quota, quota_len);
    period_len = trimmed(period, period_len);
    uint64_t q = 0, p = 0;
    if (!decimal(period, period_len, &p) || p == 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cpu.cfs_period_us: not a positive number");
    if (quota_len == 2 && memcmp(quota, "-1", 2) == 0) {
        *cpus = 0;
        return TSR_OK;
    }
    if (!decimal(quota, quota_len, &q))
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "cpu.cfs_quota_us: neither -1 nor a number");
    *cpus = tsr__cgroup_cpus(q, p);
    return TSR_OK;
}
