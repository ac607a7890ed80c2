/* See log.h. A line is formatted whole and written with one write(2), so
 * lines from different moments never interleave. What a line quotes may
 * come from a client (its process name, a path it sent), so every line is
 * escaped on the way out: an admin watching the terminal or the journal
 * gets no escape sequences, and a client cannot forge a line. */
#include "daemon/log.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

static int log_level = TSR__LOG_INFO;
static tsr__log_limit *limits; /* every limit used so far, for tsr__log_flush */
static bool journal;           /* stderr is the journal: entries, not lines */

static const char *const event_ids[TSR__EV_COUNT] = {
#define TSR__EV_ID(name, id, doc) [TSR__EV_##name] = id,
    TSR__LOG_EVENTS(TSR__EV_ID)
#undef TSR__EV_ID
};

void tsr__log_set_level(int level)
{
    log_level = level;
}

void tsr__log_detect_journal(bool allowed)
{
    /* systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connects
     * stderr to; a stderr redirected since (a pipe, a file) is no journal. */
    const char *stream = getenv("JOURNAL_STREAM");
    struct stat st;
    unsigned long long dev, ino;
    char tail;
    journal = allowed && stream && sscanf(stream, "%llu:%llu%c", &dev, &ino, &tail) == 2 &&
              fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
              (unsigned long long)st.st_ino == ino;
}

bool tsr__log_to_journal(void)
{
    return journal;
}

/* The length of the well-formed UTF-8 sequence at p (n bytes left) that
 * is not a C1 control (U+0080..U+009F, which some terminals obey as
 * escapes); 0 when there is none. */
static size_t utf8_printable(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
    if (p[0] < 0xc2 || p[0] > 0xf4 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    /* Overlong forms, surrogates, past U+10FFFF, C1 controls. */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f) ||
        (p[0] == 0xc2 && p[1] < 0xa0))
        return 0;
    return len;
}

/* Copies text into out (cap bytes, no NUL) with what could drive a
 * terminal or forge a line written as escapes: control bytes (line breaks
 * included), DEL and bytes that are not printable UTF-8 as \xNN, a
 * backslash as \\ (so that an escape in the log always was one). Stops
 * before an escape that would not fit; returns the bytes written. */
static size_t escape(char *out, size_t cap, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t used = 0;
    for (size_t k = 0; k < len;) {
        size_t run = p[k] >= 0x80 ? utf8_printable(p + k, len - k) : 0;
        if (run == 0 && p[k] >= 0x20 && p[k] < 0x7f && p[k] != '\\')
            run = 1;
        if (run) {
            if (used + run > cap)
                break;
            memcpy(out + used, p + k, run);
            used += run;
            k += run;
            continue;
        }
        if (used + 4 > cap)
            break;
        if (p[k] == '\\') {
            out[used++] = '\\';
            out[used++] = '\\';
        } else {
            static const char hex[] = "0123456789abcdef";
            out[used++] = '\\';
            out[used++] = 'x';
            out[used++] = hex[p[k] >> 4];
            out[used++] = hex[p[k] & 15];
        }
        k++;
    }
    return used;
}

/* One journal entry: the escaped message and the fields the line has. A
 * journal that refuses it gets the plain line on stderr instead. */
static void write_entry(const tsr__log_fields *f, int priority, const char *message, size_t len)
{
    char fields[6][96], joined[2100];
    struct iovec iov[8];
    int n = 0;
    /* sd_journal_sendv takes each iovec as one whole field. */
    memcpy(joined, "MESSAGE=", 8);
    memcpy(joined + 8, message, len);
    iov[n++] = (struct iovec){.iov_base = joined, .iov_len = 8 + len};
    int k = 0;
#define FIELD(...)                                                                \
    do {                                                                          \
        int w = snprintf(fields[k], sizeof fields[k], __VA_ARGS__);               \
        iov[n++] = (struct iovec){.iov_base = fields[k++], .iov_len = (size_t)w}; \
    } while (0)
    FIELD("PRIORITY=%d", priority);
    FIELD("SYSLOG_IDENTIFIER=tesserad");
    if (f && f->event > TSR__EV_NONE && f->event < TSR__EV_COUNT)
        FIELD("MESSAGE_ID=%s", event_ids[f->event]);
    if (f && f->session)
        FIELD("SESSION=%" PRIu32, f->session);
    if (f && f->uid >= 0)
        FIELD("UID=%" PRId64, f->uid);
    if (f && f->pid >= 0)
        FIELD("PID=%" PRId64, f->pid);
#undef FIELD
    char device[96];
    if (f && f->device) {
        int w = snprintf(device, sizeof device, "DEVICE=");
        w += (int)escape(device + w, sizeof device - (size_t)w, f->device, strlen(f->device));
        iov[n++] = (struct iovec){.iov_base = device, .iov_len = (size_t)w};
    }
    if (sd_journal_sendv(iov, n) == 0)
        return;
    char line[2100];
    size_t m = (size_t)snprintf(line, sizeof line, "<%d>", priority);
    memcpy(line + m, message, len);
    m += len;
    line[m++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, m);
    (void)ignored;
}

TSR__PRINTF(3, 0)
static void write_line(const tsr__log_fields *f, int priority, const char *fmt, va_list ap)
{
    char text[2048], line[2048];
    int m = vsnprintf(text, sizeof text, fmt, ap);
    size_t len = m < 0 ? 0 : (size_t)m < sizeof text ? (size_t)m : sizeof text - 1;
    size_t n = (size_t)snprintf(line, sizeof line, "<%d>", priority);
    size_t body = n;
    n += escape(line + n, sizeof line - n - 1, text, len);
    if (journal) {
        write_entry(f, priority, line + body, n - body);
        return;
    }
    line[n++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, n);
    (void)ignored;
}

void tsr__log(int priority, const char *fmt, ...)
{
    if (priority > log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    write_line(NULL, priority, fmt, ap);
    va_end(ap);
}

void tsr__log_with(const tsr__log_fields *fields, int priority, const char *fmt, ...)
{
    if (priority > log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    write_line(fields, priority, fmt, ap);
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
    tsr__log(limit->priority, "%u similar message%s suppressed, the first: %s%s", limit->suppressed,
             limit->suppressed == 1 ? "" : "s", limit->sample, cut ? "..." : "");
    limit->suppressed = 0;
}

void tsr__log_limited(tsr__log_limit *limit, const tsr__log_fields *fields, int priority,
                      const char *fmt, ...)
{
    if (priority > log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (!limit) {
        write_line(fields, priority, fmt, ap);
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
        write_line(fields, priority, fmt, ap);
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
