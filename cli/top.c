/* `tessera top`: a live view of the devices and sessions (top.h).
 *
 * On a terminal (stdout one, and no --once) frames are drawn through
 * ncurses every -d seconds; elsewhere they are written as plain text, a
 * blank line between two. Busy time is the change of the daemon's busy
 * counters between two samples over the time between them; the first
 * frame comes half a second after the first sample (sooner under a
 * shorter -d), so that it has one.
 *
 * The daemon may go away: a call that finds the connection lost turns the
 * frames into a status line, "tesserad is gone: reconnecting every ...",
 * and a new connection is tried every -d seconds (at most one) until one
 * works. Any other failure ends top with exit status 1, its message
 * printed after the screen has closed.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT raise a flag that ends the
 * loop as q does (exit status 0); SIGWINCH one that redraws at the new
 * size. Both are waited for, with the keys, in ppoll with the signals
 * unblocked there alone, so none is lost between a check and the wait. A
 * second stop signal, for a call that hangs, puts the terminal back from
 * the handler and ends top the default way. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/top.h"

#define FIRST_WINDOW_S 0.5
#define RETRY_MAX_S 1.0
#define PLAIN_WIDTH 80

static volatile sig_atomic_t stop, resized;

static void on_stop(int sig)
{
    if (stop) {
        top_screen_restore(); /* tcsetattr and write are async-signal-safe */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop = 1;
}

static void on_resize(int sig)
{
    (void)sig;
    resized = 1;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

static void catch_signals(sigset_t *set)
{
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigemptyset(set);
    for (size_t k = 0; k < NSTOP; k++) {
        sigaddset(set, stop_signals[k]);
        sigaction(stop_signals[k], &sa, NULL);
    }
    sa.sa_handler = on_resize;
    sigaddset(set, SIGWINCH);
    sigaction(SIGWINCH, &sa, NULL);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Everything one run of top keeps. */
typedef struct top_run {
    const cli_args *args;
    bool interactive, keys;
    top_view view;
    tsr_client *c; /* NULL while the daemon is away */
    /* The latest sample and the one before it, with their session lists. */
    top_devices *now, *was, *spare;
    bool have_was;
    tsr_process_info *sessions, *previous;
    size_t nsessions, nprevious;
    double sessions_s, previous_s;
    char status[640];
    char error[1024]; /* what ended top, printed once the screen is closed */
    top_frame frame;
    bool quit;
} top_run;

static tsr_status sample_devices(tsr_client *c, top_devices *d)
{
    int32_t n = cli_accelerator_count();
    d->count = n < TOP_MAX_DEVICES ? n : TOP_MAX_DEVICES;
    for (int k = 0; k < d->count; k++) {
        tsr_device on = cli_accelerator(cli_daemon_ordinal(k));
        tsr_status st = tsr_device_get_properties(c, cli_accelerator(k), &d->props[k]);
        if (st == TSR_OK)
            st = tsr_admin_device_status(c, on, &d->status[k]);
        if (st != TSR_OK)
            return st;
    }
    return TSR_OK;
}

/* A new sample: the latest becomes the previous one. */
static tsr_status take_sample(top_run *r)
{
    tsr_process_info *list = NULL;
    size_t n = 0;
    tsr_status st = sample_devices(r->c, r->spare);
    if (st == TSR_OK)
        st = cli_try_list_sessions(r->c, &list, &n);
    if (st != TSR_OK)
        return st;
    top_devices *t = r->was;
    r->was = r->now;
    r->now = r->spare;
    r->spare = t;
    r->have_was = r->sessions_s > 0;
    free(r->previous);
    r->previous = r->sessions;
    r->nprevious = r->nsessions;
    r->previous_s = r->sessions_s;
    r->sessions = list;
    r->nsessions = n;
    r->sessions_s = now_s();
    return TSR_OK;
}

/* Forgets the samples of a connection that is over. */
static void forget_samples(top_run *r)
{
    free(r->sessions);
    free(r->previous);
    r->sessions = r->previous = NULL;
    r->nsessions = r->nprevious = 0;
    r->sessions_s = r->previous_s = 0;
    r->have_was = false;
}

/* What the library says of a failed connection, shortened for the status
 * line: the system's reason ("connection refused") from "cannot connect
 * to tesserad at PATH: Connection refused; start ...", else the message
 * up to its first semicolon. */
static void short_reason(const char *message, char *out, size_t n)
{
    static const char connect_prefix[] = "cannot connect to tesserad at ";
    const char *from = message;
    if (strncmp(message, connect_prefix, sizeof connect_prefix - 1) == 0) {
        const char *colon = strstr(message + sizeof connect_prefix - 1, ": ");
        if (colon)
            from = colon + 2;
    } else if (strstr(message, "connection to tesserad was lost")) {
        from = "the connection was lost";
    }
    size_t len = strcspn(from, ";");
    snprintf(out, n, "%.*s", (int)len, from);
    if (out[0] >= 'A' && out[0] <= 'Z')
        out[0] = (char)(out[0] - 'A' + 'a');
}

static void set_gone(top_run *r, const char *message)
{
    char reason[512];
    short_reason(message, reason, sizeof reason);
    snprintf(r->status, sizeof r->status, "tesserad is gone: reconnecting every %g s (%s)",
             r->view.retry, reason);
}

/* The daemon went away: the connection closed, the status line set; a
 * plain run says so on stderr too, once. */
static void lost(top_run *r, const char *message)
{
    char text[1024];
    snprintf(text, sizeof text, "%s", message);
    tsr_client_close(r->c);
    r->c = NULL;
    forget_samples(r);
    set_gone(r, text);
    if (!r->interactive)
        cli_fail(text);
}

/* Lays out and shows a frame of what top has now. False when out of memory. */
static bool draw(top_run *r, bool first)
{
    top_snapshot s = {.connected = r->c != NULL,
                      .now = r->now,
                      .was = r->have_was ? r->was : NULL,
                      .sessions = r->sessions,
                      .nsessions = r->nsessions,
                      .previous = r->previous,
                      .nprevious = r->nprevious,
                      .elapsed_ns = r->previous_s > 0 && r->sessions_s > r->previous_s
                                        ? (uint64_t)((r->sessions_s - r->previous_s) * 1e9)
                                        : 0};
    snprintf(s.status, sizeof s.status, "%s", r->status);
    top_view v = r->view;
    if (r->interactive)
        top_screen_size(&v.width, &v.rows);
    if (!top_layout(&r->frame, &s, &v)) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return false;
    }
    if (r->interactive) {
        top_screen_draw(&r->frame);
    } else {
        if (!first)
            putchar('\n');
        top_plain_draw(&r->frame);
    }
    return true;
}

/* A key pressed: true when the frame should be drawn again. */
static bool on_key(top_run *r, int key)
{
    top_view *v = &r->view;
    if (key == 'q' || key == 'Q') {
        r->quit = true;
        return false;
    }
    if (v->help) {
        v->help = false;
        return true;
    }
    if (key == 'h' || key == '?') {
        v->help = true;
        return true;
    }
    for (int k = 0; k < TOP_SORT_COUNT; k++) {
        if (key != top_sort_keys[k].key)
            continue;
        v->reverse = v->sort == (top_sort)k ? !v->reverse : false;
        v->sort = (top_sort)k;
        return true;
    }
    return false;
}

/* Waits until `until` (CLOCK_MONOTONIC seconds), a stop signal or q,
 * answering keys and resizes meanwhile. False when top should end. */
static bool wait_until(top_run *r, double until, const sigset_t *signals)
{
    sigset_t old;
    sigprocmask(SIG_BLOCK, signals, &old);
    for (double left; !stop && !r->quit && (left = until - now_s()) > 0;) {
        if (resized) {
            resized = 0;
            if (r->interactive && !draw(r, false))
                break;
            continue;
        }
        struct timespec ts = {.tv_sec = (time_t)left,
                              .tv_nsec = (long)((left - (double)(time_t)left) * 1e9)};
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        int ready = ppoll(&p, r->keys ? 1 : 0, &ts, &old);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
            r->keys = false; /* the terminal went away; the signals remain */
        bool again = false;
        for (int key; (key = top_screen_key()) >= 0 && !r->quit;)
            again |= on_key(r, key);
        if (again && !r->quit && !draw(r, false))
            break;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return !stop && !r->quit && !r->error[0];
}

/* -d SECONDS: a decimal number above 0 and at most 3600, as top's. */
static int parse_delay(const char *text, double *out)
{
    char *end = NULL;
    size_t digits = strspn(text, "0123456789.");
    const char *dot = strchr(text, '.');
    double v =
        digits == strlen(text) && (!dot || !strchr(dot + 1, '.')) && strpbrk(text, "0123456789")
            ? strtod(text, &end)
            : 0;
    if (!end || end == text || *end || !(v > 0 && v <= 3600))
        return cli_usage_error(&cli_cmd_top,
                               "--delay takes a number of seconds above 0 and at most 3600, "
                               "not '%s'",
                               text);
    *out = v;
    return -1;
}

/* -n N: 1 to 1000000000 frames. */
static int parse_iterations(const char *text, unsigned long *out)
{
    char *end = NULL;
    unsigned long v = strspn(text, "0123456789") == strlen(text) ? strtoul(text, &end, 10) : 0;
    if (!end || end == text || *end || v == 0 || v > 1000000000ul)
        return cli_usage_error(&cli_cmd_top,
                               "--iterations takes a number of frames from 1 to 1000000000, "
                               "not '%s'",
                               text);
    *out = v;
    return -1;
}

static int parse_sort(const char *text, top_sort *out)
{
    for (int k = 0; k < TOP_SORT_COUNT; k++)
        if (strcmp(text, top_sort_keys[k].name) == 0) {
            *out = (top_sort)k;
            return -1;
        }
    return cli_usage_error(&cli_cmd_top,
                           "--sort takes memory, busy, pid, session or name, not '%s'", text);
}

static int parse_options(const cli_args *args, top_view *v, unsigned long *iterations)
{
    bool once = cli_given(args, CLI_OPT_ONCE);
    int rc = -1;
    v->delay = 1;
    v->sort = TOP_SORT_MEMORY;
    if (once && cli_given(args, CLI_OPT_ITERATIONS))
        return cli_usage_error(&cli_cmd_top, "--once and --iterations conflict: choose one");
    if (cli_given(args, CLI_OPT_DELAY))
        rc = parse_delay(args->value[CLI_OPT_DELAY], &v->delay);
    if (rc < 0 && cli_given(args, CLI_OPT_ITERATIONS))
        rc = parse_iterations(args->value[CLI_OPT_ITERATIONS], iterations);
    if (rc < 0 && cli_given(args, CLI_OPT_SORT))
        rc = parse_sort(args->value[CLI_OPT_SORT], &v->sort);
    if (once)
        *iterations = 1;
    v->retry = v->delay < RETRY_MAX_S ? v->delay : RETRY_MAX_S;
    return rc;
}

/* One frame after another until q, a stop signal, the last of -n frames,
 * or a failure that is not the daemon's absence. Returns the exit status
 * (-1: 0); r->error holds the failure's message. */
static int frames(top_run *r, unsigned long iterations, const sigset_t *signals)
{
    double window = r->view.delay < FIRST_WINDOW_S ? r->view.delay : FIRST_WINDOW_S;
    double next = now_s() + window;
    bool failed = false;
    for (unsigned long k = 0; iterations == 0 || k < iterations; k++) {
        if (!wait_until(r, next, signals))
            break;
        tsr_status st = TSR_OK;
        if (!r->c && cli_try_connect(r->args, &r->c) == TSR_OK) {
            r->status[0] = '\0';
        } else if (!r->c) {
            set_gone(r, tsr_last_error());
        }
        if (r->c && (st = take_sample(r)) == TSR_ERR_CONNECTION) {
            lost(r, tsr_last_error());
        } else if (st != TSR_OK) {
            snprintf(r->error, sizeof r->error, "%s", tsr_last_error());
            return EXIT_FAILED;
        }
        failed |= r->c == NULL;
        if (!draw(r, k == 0))
            return EXIT_FAILED;
        /* Frames start -d apart, or right after one that took longer. */
        next += r->c ? r->view.delay : r->view.retry;
        if (next < now_s())
            next = now_s();
    }
    return iterations && failed ? EXIT_FAILED : -1;
}

static int run_top(const cli_args *args)
{
    top_run r = {.args = args};
    unsigned long iterations = 0;
    int rc = parse_options(args, &r.view, &iterations);
    if (rc >= 0)
        return rc;
    r.interactive = !cli_given(args, CLI_OPT_ONCE) && isatty(STDOUT_FILENO);
    r.keys = r.interactive && isatty(STDIN_FILENO);
    r.view.keys = r.keys;
    r.view.width = PLAIN_WIDTH;
    r.now = calloc(1, sizeof *r.now);
    r.was = calloc(1, sizeof *r.was);
    r.spare = calloc(1, sizeof *r.spare);
    if (!r.now || !r.was || !r.spare)
        rc = cli_fail("out of memory");
    if (rc < 0)
        rc = cli_connect(args, &r.c);
    if (rc < 0 && take_sample(&r) != TSR_OK)
        rc = cli_fail(tsr_last_error());
    sigset_t signals;
    char why[256];
    if (rc < 0) {
        catch_signals(&signals);
        if (r.interactive && !top_screen_open(why, sizeof why))
            rc = cli_fail(why);
    }
    if (rc < 0)
        rc = frames(&r, iterations, &signals);
    top_screen_close();
    if (r.error[0])
        rc = cli_fail(r.error);
    tsr_client_close(r.c);
    forget_samples(&r);
    top_frame_free(&r.frame);
    free(r.now);
    free(r.was);
    free(r.spare);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_top = {
    "top",
    "a live view of devices and sessions",
    "SYNOPSIS\n"
    "    tessera top [-d SECONDS] [-o FIELD] [-n N | --once] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Shows each accelerator with a bar of its memory held by sessions\n"
    "    (reserved, out of what the daemon lends) and a bar of its busy time\n"
    "    (the share of the last interval during which the device had a kernel\n"
    "    submitted and not yet finished, as the daemon measures at each\n"
    "    submission and completion), then one line per client session: its\n"
    "    number, pid, user, current device, memory allocated and reserved,\n"
    "    busy share (BUSY: the device time its kernels took over the last\n"
    "    interval; the sessions' shares of a device add up to its busy bar),\n"
    "    the name the client gave itself and its command, as 'tessera ps'\n"
    "    shows them and with the same visibility rule. The first frame comes\n"
    "    half a second after the start, so that it has busy times; the next\n"
    "    every -d seconds.\n\n"
    "    On a terminal (standard output one, and no --once) top takes the\n"
    "    screen through ncurses: the title and the device bars stay at the\n"
    "    top, the sessions fill the rows below in the chosen order, and those\n"
    "    that do not fit are counted on a last line, \"+N more\". Columns leave\n"
    "    a narrow terminal in this order: RESERVED (shown from 88 columns),\n"
    "    DEVICE, USER; then COMMAND narrows from 15 columns to 8, and COMMAND,\n"
    "    BUSY, ALLOCATED, NAME and PID leave; no line wraps. A resize (SIGWINCH)\n"
    "    redraws at the new size. The bars are coloured by level (green below\n"
    "    half, yellow below four fifths, red above) unless the terminal has\n"
    "    no colour or NO_COLOR is set and not empty. The terminal is given\n"
    "    back on q and on SIGINT, SIGTERM, SIGHUP and SIGQUIT, and an error\n"
    "    that ends top is printed after the screen has closed.\n\n"
    "    Anywhere else (a pipe, a file) and under --once, frames are plain\n"
    "    text 80 columns wide, every session on its line, no escape sequence\n"
    "    and no terminal set-up, a blank line between two frames.\n\n"
    "    When the daemon goes away (a restart, say), top keeps running: the\n"
    "    frames show a status line, \"tesserad is gone: reconnecting every 1 s\n"
    "    (connection refused)\", a new connection is tried every -d seconds (at\n"
    "    most 1), and the devices and sessions come back with the daemon. A\n"
    "    plain run also says so on standard error, once each time. top asks\n"
    "    on a monitoring connection: it is no session and never shows in the\n"
    "    list.\n\n" CLI_DEVICE_NAMES CLI_ESCAPE_HELP "KEYS\n"
    "    m              sort by memory allocated, largest first (the default)\n"
    "    b              sort by busy share, largest first\n"
    "    p              sort by pid\n"
    "    s              sort by session number\n"
    "    n              sort by name\n"
    "    the same key   again: the order reversed\n"
    "    h, ?           the list of keys; any key goes back\n"
    "    q              quit, with exit status 0\n\n"
    "OPTIONS\n"
    "    -d, --delay SECONDS\n"
    "                   the time between frames (a decimal number above 0, at\n"
    "                   most 3600; default 1)\n"
    "    -o, --sort FIELD\n"
    "                   the order of the sessions at the start: memory, busy,\n"
    "                   pid, session or name (the keys m, b, p, s, n)\n"
    "    -n, --iterations N\n"
    "                   stop after N frames (1 to 1000000000)\n"
    "    --once         one plain frame, even on a terminal, and exit: for\n"
    "                   scripts and logs\n" CLI_SOCKET_HELP "\n"
    "EXIT STATUS\n"
    "    0 when q, a signal or the last of -n frames ends it; 1 when the daemon\n"
    "    cannot be reached at the start, when a call fails otherwise than by\n"
    "    the daemon's absence, or when one of -n frames (or --once's) found\n"
    "    the daemon gone; 2 on a usage error.\n\n"
    "EXAMPLES\n"
    "    tessera top\n"
    "    tessera top -d 0.5 -o busy\n"
    "    tessera top -n 10 -d 5 > top.log\n"
    "    tessera top --once | grep worker\n",
    CLI_OPT(ONCE) | CLI_OPT(SOCKET) | CLI_OPT(DELAY) | CLI_OPT(SORT) | CLI_OPT(ITERATIONS),
    0,
    0,
    run_top,
    NULL};
