/* The daemon's log: one line per event on stderr, each starting with a
 * syslog priority prefix ("<6>") that journald turns into the entry's
 * priority, so the same output reads well on a terminal and in the journal. */
#ifndef TESSERA_DAEMON_LOG_H
#define TESSERA_DAEMON_LOG_H

#include "core/error.h"

enum {
    TSR__LOG_ERR = 3,
    TSR__LOG_WARNING = 4,
    TSR__LOG_NOTICE = 5,
    TSR__LOG_INFO = 6,
    TSR__LOG_DEBUG = 7
};

/* Messages above this priority are dropped (default TSR__LOG_INFO). */
void tsr__log_set_level(int level);
void tsr__log(int priority, const char *fmt, ...) TSR__PRINTF(2, 3);

#endif /* TESSERA_DAEMON_LOG_H */
