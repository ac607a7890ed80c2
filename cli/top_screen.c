/* top's output: frames through ncurses on a terminal (the alternate
 * screen, no cursor, cbreak without echo, colour where the terminal has it
 * and NO_COLOR does not say otherwise), or as plain text anywhere else.
 *
 * ncurses installs no signal handler here: top.c has its own for SIGWINCH
 * (and for the signals that end it) before the screen opens, so the new
 * size is read from the terminal itself (top_screen_size) and the stop
 * signals end the loop, which closes the screen in order. For a second
 * stop signal, while a call to the daemon hangs, top_screen_restore puts
 * the terminal back from a signal handler: the modes saved before ncurses
 * changed them, and the terminal's own strings to leave the alternate
 * screen and show the cursor, copied when it opened. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/top.h"

static SCREEN *screen;
static bool colour;
static struct termios saved_modes;
static bool modes_saved;
static char leave_strings[128];
static size_t leave_length;

enum { PAIR_LOW = 1, PAIR_MID, PAIR_HIGH };

/* Copies a terminfo string for top_screen_restore, when it has one. */
static void keep_string(const char *capability)
{
    char *s = tigetstr(capability);
    if (!s || s == (char *)-1)
        return;
    size_t n = strlen(s);
    if (leave_length + n < sizeof leave_strings) {
        memcpy(leave_strings + leave_length, s, n);
        leave_length += n;
    }
}

bool top_screen_open(char *why, size_t n)
{
    const char *term = getenv("TERM");
    if (!term || !*term) {
        snprintf(why, n, "TERM is not set: cannot drive the terminal (try --once, or a pipe)");
        return false;
    }
    modes_saved = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_modes) == 0;
    /* Names and device strings in UTF-8; numbers stay in the C locale. */
    setlocale(LC_CTYPE, "");
    screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        snprintf(why, n, "cannot drive the terminal '%s': no terminfo entry for it", term);
        return false;
    }
    set_term(screen);
    keep_string("rmcup");
    keep_string("cnorm");
    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    scrollok(stdscr, FALSE);
    curs_set(0);
    const char *no_color = getenv("NO_COLOR");
    colour = !(no_color && *no_color) && has_colors();
    if (colour) {
        start_color();
        use_default_colors();
        init_pair(PAIR_LOW, COLOR_GREEN, -1);
        init_pair(PAIR_MID, COLOR_YELLOW, -1);
        init_pair(PAIR_HIGH, COLOR_RED, -1);
    }
    return true;
}

void top_screen_size(int *width, int *rows)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0 &&
        (ws.ws_col != COLS || ws.ws_row != LINES))
        resizeterm(ws.ws_row, ws.ws_col);
    *width = COLS;
    *rows = LINES;
}

static attr_t look_attr(top_look look)
{
    switch (look) {
    case TOP_LOOK_TITLE:
        return A_BOLD;
    case TOP_LOOK_HEADER:
        return A_REVERSE;
    case TOP_LOOK_ALERT:
        return A_BOLD | (colour ? COLOR_PAIR(PAIR_HIGH) : 0);
    case TOP_LOOK_LOW:
        return colour ? COLOR_PAIR(PAIR_LOW) : A_NORMAL;
    case TOP_LOOK_MID:
        return colour ? COLOR_PAIR(PAIR_MID) : A_NORMAL;
    case TOP_LOOK_HIGH:
        return colour ? COLOR_PAIR(PAIR_HIGH) : A_BOLD;
    case TOP_LOOK_PLAIN:
        break;
    }
    return A_NORMAL;
}

void top_screen_draw(const top_frame *f)
{
    erase();
    for (size_t y = 0; y < f->count && y < (size_t)LINES; y++) {
        const top_line *l = &f->lines[y];
        attr_t look = look_attr(l->look);
        move((int)y, 0);
        attrset(look);
        addnstr(l->text, (int)l->span_from);
        attrset(look_attr(l->span_look));
        addnstr(l->text + l->span_from, (int)(l->span_to - l->span_from));
        attrset(look);
        addstr(l->text + l->span_to);
    }
    attrset(A_NORMAL);
    refresh();
}

int top_screen_key(void)
{
    int key = getch();
    return key == ERR ? -1 : key;
}

void top_screen_close(void)
{
    if (!screen)
        return;
    endwin();
    delscreen(screen);
    screen = NULL;
    modes_saved = false;
}

void top_screen_restore(void)
{
    if (!screen)
        return;
    if (modes_saved)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_modes);
    ssize_t ignored = write(STDOUT_FILENO, leave_strings, leave_length);
    (void)ignored;
}

void top_plain_draw(const top_frame *f)
{
    for (size_t k = 0; k < f->count; k++) {
        fputs(f->lines[k].text, stdout);
        putchar('\n');
    }
    fflush(stdout);
}
