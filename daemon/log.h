/* The daemon's log: one line per event on stderr, each starting with a
 * syslog priority prefix ("<6>") that journald turns into the entry's
 * priority, so the same output reads well on a terminal and in the journal.
 * Lines quote what clients send (process names, paths), so each is escaped
 * as it is written: control bytes (newlines too), DEL and bytes that are
 * not printable UTF-8 become \xNN and a backslash \\; one event is always
 * one line, and nothing in it reaches the terminal as a control.
 *
 * Lines that a client can cause over and over (refused connections,
 * connections that never say HELLO) go through a rate limit per call site:
 * TSR__LOG_LIMITED prints at most TSR__LOG_BURST of them per
 * TSR__LOG_WINDOW_NS, and the next line after a window in which some were
 * dropped is preceded by one "N similar messages suppressed" line, as is
 * the daemon's exit (tsr__log_flush). The limits are not locked: a
 * limited call site belongs to the loop thread. */
#ifndef TESSERA_DAEMON_LOG_H
#define TESSERA_DAEMON_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

enum {
    TSR__LOG_ERR = 3,
    TSR__LOG_WARNING = 4,
    TSR__LOG_NOTICE = 5,
    TSR__LOG_INFO = 6,
    TSR__LOG_DEBUG = 7
};

#define TSR__LOG_BURST 10
#define TSR__LOG_WINDOW_NS UINT64_C(5000000000) /* 5 s */

/* One call site's rate limit; zero-initialised, it registers itself with
 * tsr__log_flush at its first use. */
typedef struct tsr__log_limit {
    uint64_t window_start_ns;
    uint32_t printed, suppressed;
    int priority;    /* of the dropped lines, for the "suppressed" one */
    char sample[96]; /* the start of the first dropped line */
    bool registered;
    struct tsr__log_limit *next;
} tsr__log_limit;

/* Messages above this priority are dropped (default TSR__LOG_INFO). */
void tsr__log_set_level(int level);
void tsr__log(int priority, const char *fmt, ...) TSR__PRINTF(2, 3);
/* tsr__log under `limit` (see the file header); NULL: none. */
void tsr__log_limited(tsr__log_limit *limit, int priority, const char *fmt, ...)
    TSR__PRINTF(3, 4);
/* Prints the "suppressed" line of every limit that dropped lines since its
 * last one. */
void tsr__log_flush(void);

#define TSR__LOG_LIMITED(priority, ...)                                                         \
    do {                                                                                        \
        static tsr__log_limit site_limit_;                                                      \
        tsr__log_limited(&site_limit_, priority, __VA_ARGS__);                                  \
    } while (0)

#endif /* TESSERA_DAEMON_LOG_H */
