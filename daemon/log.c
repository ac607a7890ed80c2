/* See log.h. A line is formatted whole and written with one write(2), so
 * lines from different moments never interleave. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int log_level = TSR__LOG_INFO;

void tsr__log_set_level(int level)
{
    log_level = level;
}

void tsr__log(int priority, const char *fmt, ...)
{
    if (priority > log_level)
        return;
    char line[2048];
    int n = snprintf(line, sizeof line, "<%d>", priority);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, len);
    (void)ignored;
}
