/* The per-thread error slot behind tsr_last_error, and the status table.
 * A fixed thread-local buffer: no allocation, nothing to free at thread
 * exit, and a message stays valid until the same thread fails again. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tessera/version.h"

static _Thread_local char last_error[TSR__ERROR_MAX];

tsr_status tsr__fail(tsr_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return status;
}

tsr_status tsr__fail_text(tsr_status status, const char *text)
{
    snprintf(last_error, sizeof(last_error), "%s", text ? text : "");
    return status;
}

tsr_status tsr_error_set(tsr_status status, const char *text)
{
    return tsr__fail_text(status, text);
}

const char *tsr_last_error(void)
{
    return last_error;
}

static const struct {
    const char *name;
    const char *text;
} status_table[] = {
#define TSR__STATUS_ROW(name, value, text) [value] = {#name, text},
    TSR_STATUS_LIST(TSR__STATUS_ROW)
#undef TSR__STATUS_ROW
};
_Static_assert(TSR__ARRAY_SIZE(status_table) == TSR_STATUS_COUNT, "status table size");

const char *tsr_status_name(tsr_status status)
{
    if ((unsigned)status >= TSR_STATUS_COUNT)
        return "TSR_ERR_UNKNOWN";
    return status_table[status].name;
}

const char *tsr_status_text(tsr_status status)
{
    if ((unsigned)status >= TSR_STATUS_COUNT)
        return "unknown status";
    return status_table[status].text;
}

unsigned tsr_version(void)
{
    return TSR_VERSION_NUMBER;
}

const char *tsr_version_string(void)
{
    return TSR_VERSION_STRING;
}

const char *tsr__format_dims(char *buf, size_t n, const int64_t *dims, int count)
{
    if (n == 0)
        return buf;
    size_t used = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "", (long long)dims[i]);
    if (used < n)
        snprintf(buf + used, n - used, "]");
    return buf;
}
