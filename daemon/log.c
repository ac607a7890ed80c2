/* See log.h. A line is formatted whole and written with one write(2), so
 * lines from different moments never interleave. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_level = TSR__LOG_INFO;
static tsr__log_limit *limits; /* every limit used so far, for tsr__log_flush */

void tsr__log_set_level(int level)
{
    log_level = level;
}

TSR__PRINTF(2, 0) static void write_line(int priority, const char *fmt, va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "<%d>", priority);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, len);
    (void)ignored;
}

void tsr__log(int priority, const char *fmt, ...)
{
    if (priority > log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    write_line(priority, fmt, ap);
    va_end(ap);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void report_suppressed(tsr__log_limit *limit)
{
    if (limit->suppressed == 0)
        return;
    bool cut = strlen(limit->sample) == sizeof limit->sample - 1;
    tsr__log(limit->priority, "%u similar message%s suppressed, the first: %s%s",
             limit->suppressed, limit->suppressed == 1 ? "" : "s", limit->sample, cut ? "..." : "");
    limit->suppressed = 0;
}

void tsr__log_limited(tsr__log_limit *limit, int priority, const char *fmt, ...)
{
    if (priority > log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (!limit) {
        write_line(priority, fmt, ap);
        va_end(ap);
        return;
    }
    if (!limit->registered) {
        limit->registered = true;
        limit->next = limits;
        limits = limit;
    }
    uint64_t now = now_ns();
    if (limit->printed == 0 || now - limit->window_start_ns >= TSR__LOG_WINDOW_NS) {
        report_suppressed(limit);
        limit->window_start_ns = now;
        limit->printed = 0;
    }
    if (limit->printed < TSR__LOG_BURST) {
        limit->printed++;
        write_line(priority, fmt, ap);
    } else {
        if (limit->suppressed++ == 0) {
            limit->priority = priority;
            vsnprintf(limit->sample, sizeof limit->sample, fmt, ap);
        }
    }
    va_end(ap);
}

void tsr__log_flush(void)
{
    for (tsr__log_limit *limit = limits; limit; limit = limit->next)
        report_suppressed(limit);
}
