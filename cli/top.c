/* `tessera top`: a live view of the devices and sessions, redrawn every
 * second, for an 80-column terminal over ssh as much as a local one.
 *
 * The terminal is put in non-canonical, no-echo mode so that a single 'q'
 * quits; it is restored however the command ends: 'q', the end of input,
 * an error, or SIGINT, SIGTERM, SIGHUP or SIGQUIT (the handler restores it
 * and then dies of the same signal). Busy time is the change of the
 * daemon's busy counter between two frames over the time between them. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/daemon.h"

#define MAX_DEVICES 64
#define FIRST_WINDOW_MS 500

static struct termios saved_termios;
static volatile sig_atomic_t termios_saved;

static const char leave_screen[] = "\033[?25h\033[?1049l";

static void restore_terminal(void)
{
    if (!termios_saved)
        return;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
    ssize_t ignored = write(STDOUT_FILENO, leave_screen, sizeof leave_screen - 1);
    (void)ignored;
    termios_saved = 0;
}

static void on_fatal_signal(int sig)
{
    restore_terminal(); /* tcsetattr and write are async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void enter_terminal(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t k = 0; k < sizeof signals / sizeof signals[0]; k++)
        signal(signals[k], on_fatal_signal);
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_termios) != 0)
        return;
    struct termios raw = saved_termios;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    termios_saved = 1;
    atexit(restore_terminal);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
    fputs("\033[?1049h\033[?25l", stdout); /* the alternate screen, no cursor */
}

static int terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col > 200 ? 200 : ws.ws_col;
    return 80;
}

typedef struct sample {
    int count;
    tsr_device_properties props[MAX_DEVICES];
    tsr_device_status status[MAX_DEVICES];
} sample;

static int take_sample(tsr_client *c, sample *s)
{
    int32_t n = cli_accelerator_count();
    s->count = n < MAX_DEVICES ? n : MAX_DEVICES;
    for (int k = 0; k < s->count; k++) {
        tsr_device d = cli_accelerator(k), on = cli_accelerator(cli_daemon_ordinal(k));
        if (tsr_device_get_properties(c, d, &s->props[k]) != TSR_OK ||
            tsr_admin_device_status(c, on, &s->status[k]) != TSR_OK)
            return cli_fail(tsr_last_error());
    }
    return -1;
}

/* "[|||||     ]" of `width` characters, filled by fraction. */
static void bar(double fraction, int width)
{
    int inner = width - 2, fill;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    fill = (int)(fraction * inner + 0.5);
    putchar('[');
    for (int k = 0; k < inner; k++)
        putchar(k < fill ? '|' : ' ');
    putchar(']');
}

static void print_devices(const sample *prev, const sample *now, int width)
{
    char dev[TSR_DEVICE_STR_MAX], used[32], cap[32];
    int bar_width = width - 32;
    for (int k = 0; k < now->count; k++) {
        const tsr_device_status *st = &now->status[k];
        printf("%-9s ", cli_device_name(now->props[k].device, dev, sizeof dev));
        cli_table_text(stdout, now->props[k].name, width - 11, false);
        putchar('\n');
        printf("  mem  ");
        bar(st->capacity ? (double)st->reserved / (double)st->capacity : 0, bar_width);
        printf(" %9s/%s\n", cli_bytes(st->reserved, used, sizeof used),
               cli_bytes(st->capacity, cap, sizeof cap));
        printf("  busy ");
        const tsr_device_status *was = k < prev->count ? &prev->status[k] : NULL;
        if (was && st->busy_sampled && st->now_ns > was->now_ns && st->busy_ns >= was->busy_ns) {
            double f = (double)(st->busy_ns - was->busy_ns) / (double)(st->now_ns - was->now_ns);
            bar(f, bar_width);
            printf(" %5.1f%%\n", f > 1 ? 100.0 : 100.0 * f);
        } else {
            bar(0, bar_width);
            printf("     -\n");
        }
    }
    if (now->count == 0)
        printf("(no accelerators: tensors can live on cpu and meta only)\n");
}

/* A session's busy share since the previous frame, as text: its busy time
 * then and now over the time between; "-" for a session new since. */
static const char *session_busy(const tsr_process_info *s, const tsr_process_info *was, size_t nwas,
                                uint64_t elapsed_ns, char *buf, size_t n)
{
    snprintf(buf, n, "-");
    for (size_t k = 0; k < nwas && elapsed_ns > 0; k++) {
        if (was[k].session_id != s->session_id || was[k].busy_ns > s->busy_ns)
            continue;
        double f = (double)(s->busy_ns - was[k].busy_ns) / (double)elapsed_ns;
        snprintf(buf, n, "%.1f%%", f > 1 ? 100.0 : 100.0 * f);
    }
    return buf;
}

static void print_sessions(const tsr_process_info *list, size_t n, const tsr_process_info *was,
                           size_t nwas, uint64_t elapsed_ns, int width)
{
    char pid[16], user[64], dev[TSR_DEVICE_STR_MAX], a[32], r[32], busy[16];
    int command_width = width - 63 > 8 ? width - 63 : 8;
    printf("\n%5s %7s %-8s %-9s %10s %10s %6s %s\n", "SID", "PID", "USER", "DEVICE", "ALLOCATED",
           "RESERVED", "BUSY", "COMMAND");
    for (size_t k = 0; k < n; k++) {
        const tsr_process_info *s = &list[k];
        uint64_t alloc = 0, res = 0;
        for (uint32_t u = 0; u < s->usage_count; u++) {
            alloc += s->usage[u].allocated;
            res += s->usage[u].reserved;
        }
        snprintf(pid, sizeof pid, "-");
        if (s->visible && s->pid_known && s->pid)
            snprintf(pid, sizeof pid, "%" PRIu32, s->pid);
        printf("%5" PRIu32 " %7s %-8.8s %-9s %10s %10s %6s ", s->session_id, pid,
               s->visible ? cli_user_name(s->uid, user, sizeof user) : "-",
               cli_shown_device(s->current_device, dev, sizeof dev), cli_bytes(alloc, a, sizeof a),
               cli_bytes(res, r, sizeof r),
               session_busy(s, was, nwas, elapsed_ns, busy, sizeof busy));
        /* A client gone while its kernels finish: it still holds the device. */
        int room = command_width;
        if (s->ending) {
            room -= printf("(ending) ");
            room = room > 1 ? room : 1;
        }
        cli_table_text(stdout, s->visible ? s->command : "(other user)", room, false);
        putchar('\n');
    }
    if (n == 0)
        printf("(no client sessions)\n");
}

static int draw(tsr_client *c, const sample *prev, const sample *now, bool interactive)
{
    /* The previous frame's sessions, for their busy shares. */
    static tsr_process_info *was;
    static size_t nwas;
    static uint64_t was_ns;
    tsr_process_info *list = NULL;
    size_t n = 0;
    int rc = cli_list_sessions(c, &list, &n);
    if (rc >= 0)
        return rc;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    int width = interactive ? terminal_width() : 80;
    char clock[16];
    time_t t = time(NULL);
    strftime(clock, sizeof clock, "%H:%M:%S", localtime(&t));
    if (interactive)
        fputs("\033[H\033[2J", stdout);
    size_t ending = 0;
    for (size_t k = 0; k < n; k++)
        ending += list[k].ending;
    printf("tessera top - %s - %zu session%s", clock, n, n == 1 ? "" : "s");
    if (ending)
        printf(" (%zu ending)", ending);
    printf("%s\n\n", interactive ? " - q quits" : "");
    print_devices(prev, now, width);
    print_sessions(list, n, was, nwas, was ? now_ns - was_ns : 0, width);
    fflush(stdout);
    free(was);
    was = list;
    nwas = n;
    was_ns = now_ns;
    return -1;
}

/* Waits up to ms for a key; true when it was 'q' or input ended. */
static bool wait_for_quit(int ms, bool keys)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    if (!keys) {
        poll(NULL, 0, ms);
        return false;
    }
    if (poll(&p, 1, ms) <= 0)
        return false;
    char buf[64];
    ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
    if (got == 0)
        return true;
    return got > 0 && (memchr(buf, 'q', (size_t)got) || memchr(buf, 'Q', (size_t)got));
}

static int run_top(const cli_args *args)
{
    bool once = cli_given(args, CLI_OPT_ONCE);
    tsr_client *c = NULL;
    int rc = cli_connect(args, &c);
    if (rc >= 0)
        return rc;
    sample *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    if (!a || !b)
        rc = cli_fail("out of memory");
    bool keys = !once && isatty(STDIN_FILENO);
    if (rc < 0)
        rc = take_sample(c, a);
    if (rc < 0 && !once)
        enter_terminal();
    /* The first frame measures busy time over a short window. */
    bool quit = rc >= 0 || wait_for_quit(FIRST_WINDOW_MS, keys);
    while (!quit) {
        rc = take_sample(c, b);
        if (rc < 0)
            rc = draw(c, a, b, !once);
        if (rc >= 0 || once)
            break;
        sample *t = a;
        a = b;
        b = t;
        quit = wait_for_quit(1000, keys);
    }
    restore_terminal();
    free(a);
    free(b);
    tsr_client_close(c);
    return rc >= 0 ? rc : EXIT_OK;
}

const cli_command cli_cmd_top = {
    "top",
    "a live view of devices and sessions",
    "SYNOPSIS\n    tessera top [--once] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Shows, redrawn every second, each accelerator with a bar of its\n"
    "    memory held by sessions (reserved, out of what the daemon lends) and a\n"
    "    bar of its busy time (the share of the last interval during which the\n"
    "    device had a kernel submitted and not yet finished, as the daemon\n"
    "    measures at each submission and completion), then one line per client\n"
    "    session:\n"
    "    its number, pid, user, current device and memory, as 'tessera ps'\n"
    "    shows them and with the same visibility rule, and its busy share\n"
    "    (BUSY: the device time its kernels took over the last interval; the\n"
    "    sessions' shares of a device add up to its busy bar). Press q to quit;\n"
    "    the terminal is restored on exit and on SIGINT, SIGTERM, SIGHUP and\n"
    "    SIGQUIT. The layout fits an 80-column terminal and uses only the\n"
    "    ANSI escapes every terminal emulator knows, so it works over ssh.\n\n" CLI_DEVICE_NAMES
    "OPTIONS\n"
    "    --once         print one frame (busy time measured over half a\n"
    "                   second) without escape sequences, and exit: for\n"
    "                   scripts and logs\n" CLI_SOCKET_HELP "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera top\n"
    "    watch -n 5 tessera top --once\n",
    CLI_OPT(ONCE) | CLI_OPT(SOCKET),
    0,
    0,
    run_top,
    NULL};
