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
 * limited call site belongs to the loop thread.
 *
 * Under systemd, when $JOURNAL_STREAM names the file that stderr is (the
 * journal's own check), lines go to the journal as entries instead, with
 * PRIORITY and SYSLOG_IDENTIFIER, and the structured fields a line has
 * (tsr__log_event: MESSAGE_ID for the kinds of event below, SESSION, UID,
 * PID, DEVICE), so `journalctl MESSAGE_ID=... SESSION=4` finds them; on a
 * terminal or a file the same events are the plain lines. */
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

/* The events an operator looks for, each with its journal MESSAGE_ID (128
 * random bits, fixed for good): one row each. */
#define TSR__LOG_EVENTS(X)                                                            \
    X(STARTED, "8ad9d5d4c8414474ab8c03893578dde2", "the daemon listens")              \
    X(STOPPING, "525cd71a888949739ed892a265f98245", "the daemon stops on a signal")   \
    X(SESSION_OPENED, "61272d3acd5a47eb8374b438bfddae00", "a session opened")         \
    X(SESSION_ENDED, "c968ba3984f94135a9ababa15d9cc578",                              \
      "a session ended: its duration, requests, kernels, busy time, peak memory")     \
    X(SESSION_REFUSED, "4145a3c3609f417ca3a216395b9b44a7",                            \
      "a connection or session refused at a cap")                                     \
    X(LIMIT_REFUSED, "2990663b1dc54c48974872118d44934c",                              \
      "an allocation refused at a memory limit or a full device (once per session)")  \
    X(RELOADED, "e0b71068b9534367997be8d66ea7e787", "the configuration was reloaded") \
    X(RELOAD_FAILED, "9bcf6c23725e49179ae6c9802d0ce0b6",                              \
      "a reload was refused, the running configuration kept")

typedef enum tsr__log_event_id {
    TSR__EV_NONE,
#define TSR__EV_ENUM(name, id, doc) TSR__EV_##name,
    TSR__LOG_EVENTS(TSR__EV_ENUM)
#undef TSR__EV_ENUM
        TSR__EV_COUNT
} tsr__log_event_id;

/* A line's structured fields: an event kind (or NONE), and the session,
 * uid, pid and device it concerns (0, -1, -1, NULL: none). */
typedef struct tsr__log_fields {
    tsr__log_event_id event;
    uint32_t session;
    int64_t uid, pid;
    const char *device;
} tsr__log_fields;

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
/* Whether stderr is the journal ($JOURNAL_STREAM), decided now: lines
 * then go to the journal as entries (tests pass false to force text). */
void tsr__log_detect_journal(bool allowed);
/* Whether lines go to the journal. */
bool tsr__log_to_journal(void);
void tsr__log(int priority, const char *fmt, ...) TSR__PRINTF(2, 3);
/* tsr__log with structured fields (NULL: none). */
void tsr__log_with(const tsr__log_fields *fields, int priority, const char *fmt, ...)
    TSR__PRINTF(3, 4);
/* tsr__log_with under `limit` (see the file header); NULL: none. */
void tsr__log_limited(tsr__log_limit *limit, const tsr__log_fields *fields, int priority,
                      const char *fmt, ...) TSR__PRINTF(4, 5);
/* Prints the "suppressed" line of every limit that dropped lines since its
 * last one. */
void tsr__log_flush(void);

#define TSR__LOG_LIMITED(priority, ...)                              \
    do {                                                             \
        static tsr__log_limit site_limit_;                           \
        tsr__log_limited(&site_limit_, NULL, priority, __VA_ARGS__); \
    } while (0)
/* The same with structured fields. */
#define TSR__LOG_LIMITED_WITH(fields, priority, ...)                   \
    do {                                                               \
        static tsr__log_limit site_limit_;                             \
        tsr__log_limited(&site_limit_, fields, priority, __VA_ARGS__); \
    } while (0)

#endif /* TESSERA_DAEMON_LOG_H */
