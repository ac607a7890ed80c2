/* `tessera top`, in three parts: top.c runs the command (options, the
 * connection and its reconnection, the samples, the timing of frames and
 * the signals), top_frame.c lays a frame out as lines of text for a given
 * width and height, and top_screen.c shows frames: through ncurses on a
 * terminal, as plain text elsewhere. */
#ifndef TESSERA_CLI_TOP_H
#define TESSERA_CLI_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/daemon.h"

#define TOP_MAX_DEVICES 64

/* The accelerators at one moment: their properties and the daemon's status. */
typedef struct top_devices {
    int count;
    tsr_device_properties props[TOP_MAX_DEVICES];
    tsr_device_status status[TOP_MAX_DEVICES];
} top_devices;

/* What a frame shows: the latest sample and the one before it (busy time
 * is the change between the two), or only a status line while the daemon
 * is away. */
typedef struct top_snapshot {
    bool connected;
    char status[640];             /* the status line; "" for none */
    const top_devices *now, *was; /* was: NULL before a second sample */
    const tsr_process_info *sessions, *previous;
    size_t nsessions, nprevious;
    uint64_t elapsed_ns; /* between the two session lists; 0: no previous */
} top_snapshot;

/* The orders of the session rows, and the key of each. */
typedef enum top_sort {
    TOP_SORT_MEMORY,
    TOP_SORT_BUSY,
    TOP_SORT_PID,
    TOP_SORT_SESSION,
    TOP_SORT_NAME,
    TOP_SORT_COUNT
} top_sort;

typedef struct top_sort_key {
    const char *name; /* as -o/--sort takes it, and the title shows it */
    char key;
} top_sort_key;
extern const top_sort_key top_sort_keys[TOP_SORT_COUNT];

/* How to lay a frame out. */
typedef struct top_view {
    int width; /* columns */
    int rows;  /* lines; 0: as many as it takes */
    top_sort sort;
    bool reverse; /* the sort key's order turned round */
    bool help;    /* the key list instead of the sessions */
    bool keys;    /* keys work: the title says how to get help */
    double delay; /* seconds between frames, for the title */
    double retry; /* seconds between reconnection attempts */
} top_view;

/* What part of a line looks like: the whole line or a span of it. */
typedef enum top_look {
    TOP_LOOK_PLAIN,
    TOP_LOOK_TITLE,  /* bold */
    TOP_LOOK_HEADER, /* reversed */
    TOP_LOOK_ALERT,  /* the status line: red and bold in colour, else bold */
    TOP_LOOK_LOW,    /* a bar's fill below half */
    TOP_LOOK_MID,    /* from half to four fifths */
    TOP_LOOK_HIGH,   /* from four fifths */
} top_look;

typedef struct top_line {
    char *text; /* UTF-8, no control characters, at most width columns */
    top_look look;
    size_t span_from, span_to; /* bytes of text shown in span_look */
    top_look span_look;
} top_line;

typedef struct top_frame {
    top_line *lines;
    size_t count, cap;
} top_frame;

/* Lays out s for v into f (emptied first). False when out of memory. */
bool top_layout(top_frame *f, const top_snapshot *s, const top_view *v);
void top_frame_free(top_frame *f);

/* The screen (top_screen.c). top_screen_open takes the terminal: ncurses
 * on stdout, keys from stdin when it is a terminal, colour unless NO_COLOR
 * is set and not empty or the terminal has none. False when ncurses cannot
 * (no terminfo entry for $TERM): the message is in *why. */
bool top_screen_open(char *why, size_t n);
/* The size of the terminal now (after a SIGWINCH, what it has become). */
void top_screen_size(int *width, int *rows);
/* Draws a frame laid out for the screen's size. */
void top_screen_draw(const top_frame *f);
/* The next key pressed, or -1 when none is waiting. */
int top_screen_key(void);
/* Gives the terminal back: the alternate screen closed, modes restored. */
void top_screen_close(void);
/* The terminal put back from a signal handler (async-signal-safe): modes,
 * the alternate screen left, the cursor shown. Nothing when not open. */
void top_screen_restore(void);

/* Writes a frame as plain text: its lines, no escape sequences. */
void top_plain_draw(const top_frame *f);

#endif /* TESSERA_CLI_TOP_H */
