/* top's frames laid out as lines (see top.h): the title, the status line,
 * each device's memory and busy bars, then the sessions in the chosen
 * order, their columns chosen to fit the width, and as many as fit the
 * height, the rest counted on a "+N more" line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/top.h"

const top_sort_key top_sort_keys[TOP_SORT_COUNT] = {
    [TOP_SORT_MEMORY] = {"memory", 'm'}, [TOP_SORT_BUSY] = {"busy", 'b'},
    [TOP_SORT_PID] = {"pid", 'p'},       [TOP_SORT_SESSION] = {"session", 's'},
    [TOP_SORT_NAME] = {"name", 'n'},
};

/* A frame being laid out: lines are written to a memory stream each. */
typedef struct layout {
    top_frame *f;
    const top_view *v;
    bool ok;
    FILE *out; /* the line being written */
    char *text;
    size_t size;
    size_t span_from, span_to;
    top_look span_look;
} layout;

static FILE *line_begin(layout *L)
{
    L->text = NULL;
    L->size = 0;
    L->span_from = L->span_to = 0;
    L->span_look = TOP_LOOK_PLAIN;
    L->out = L->ok ? open_memstream(&L->text, &L->size) : NULL;
    if (!L->out) {
        /* Out of memory: the layout fails, the writes go nowhere. */
        L->ok = false;
        L->out = fopen("/dev/null", "w");
        if (!L->out)
            abort();
    }
    return L->out;
}

/* The byte at which text passes `width` columns (a column per character:
 * what the line holds is ASCII but for names, which cli_table_text has
 * cut to their columns already). */
static size_t clip(const char *text, int width)
{
    size_t k = 0;
    for (int columns = 0; text[k]; k++) {
        if (((unsigned char)text[k] & 0xC0) == 0x80)
            continue;
        if (columns++ == width)
            break;
    }
    return k;
}

static void line_end(layout *L, top_look look)
{
    if (!L->out)
        return;
    fclose(L->out);
    L->out = NULL;
    if (!L->ok || !L->text) {
        free(L->text);
        L->ok = false;
        return;
    }
    top_frame *f = L->f;
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        top_line *grown = realloc(f->lines, cap * sizeof *grown);
        if (!grown) {
            free(L->text);
            L->ok = false;
            return;
        }
        f->lines = grown;
        f->cap = cap;
    }
    size_t end = clip(L->text, L->v->width);
    L->text[end] = '\0';
    f->lines[f->count++] = (top_line){.text = L->text,
                                      .look = look,
                                      .span_from = L->span_from < end ? L->span_from : end,
                                      .span_to = L->span_to < end ? L->span_to : end,
                                      .span_look = L->span_look};
    L->text = NULL;
}

static void text_line(layout *L, top_look look, const char *text)
{
    fputs(text, line_begin(L));
    line_end(L, look);
}

/* "[|||||     ]" of `width` characters, filled by fraction; the fill is
 * the line's span, its look by level. */
static void bar(layout *L, double fraction, int width)
{
    int inner = width > 2 ? width - 2 : 1, fill;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    fill = (int)(fraction * inner + 0.5);
    fputc('[', L->out);
    L->span_from = (size_t)ftell(L->out);
    for (int k = 0; k < inner; k++) {
        if (k == fill)
            L->span_to = (size_t)ftell(L->out);
        fputc(k < fill ? '|' : ' ', L->out);
    }
    if (fill >= inner)
        L->span_to = (size_t)ftell(L->out);
    fputc(']', L->out);
    L->span_look = fraction < 0.5 ? TOP_LOOK_LOW : fraction < 0.8 ? TOP_LOOK_MID : TOP_LOOK_HIGH;
}

/* The title: "tessera top" and its parts, in this order, each " - ..."
 * that fits the width. Narrow, the parts the least needed are left out
 * whole, never cut: the session count stays longest, then the clock, the
 * sort order, the help key, the refresh delay. */
static void title(layout *L, const top_snapshot *s)
{
    const top_view *v = L->v;
    enum { SESSIONS, CLOCK, SORT, HELP, EVERY, PARTS };
    static const int order[PARTS] = {CLOCK, SESSIONS, SORT, EVERY, HELP}; /* as shown */
    char part[PARTS][96] = {{0}};
    time_t t = time(NULL);
    struct tm tm;
    strftime(part[CLOCK], sizeof part[CLOCK], "%H:%M:%S", localtime_r(&t, &tm));
    if (s->connected) {
        size_t ending = 0;
        for (size_t k = 0; k < s->nsessions; k++)
            ending += s->sessions[k].ending;
        int n = snprintf(part[SESSIONS], sizeof part[SESSIONS], "%zu session%s", s->nsessions,
                         s->nsessions == 1 ? "" : "s");
        if (ending && n > 0)
            snprintf(part[SESSIONS] + n, sizeof part[SESSIONS] - (size_t)n, " (%zu ending)",
                     ending);
    }
    snprintf(part[SORT], sizeof part[SORT], "sort: %s%s", top_sort_keys[v->sort].name,
             v->reverse ? ", reversed" : "");
    snprintf(part[EVERY], sizeof part[EVERY], "every %g s", v->delay);
    if (v->keys)
        snprintf(part[HELP], sizeof part[HELP], "h: help");
    /* Most needed first (the enum's order), each kept when it still fits. */
    static const char head[] = "tessera top";
    size_t used = sizeof head - 1;
    bool keep[PARTS] = {false};
    for (int k = 0; k < PARTS; k++) {
        size_t n = part[k][0] ? strlen(part[k]) + 3 : 0;
        if (n && (v->width <= 0 || used + n <= (size_t)v->width)) {
            keep[k] = true;
            used += n;
        }
    }
    FILE *o = line_begin(L);
    fputs(head, o);
    for (int k = 0; k < PARTS; k++)
        if (keep[order[k]])
            fprintf(o, " - %s", part[order[k]]);
    line_end(L, TOP_LOOK_TITLE);
}

static void devices(layout *L, const top_snapshot *s)
{
    char dev[TSR_DEVICE_STR_MAX], used[32], cap[32];
    int width = L->v->width, bar_width = width - 32 > 4 ? width - 32 : 4;
    const top_devices *now = s->now;
    for (int k = 0; k < now->count; k++) {
        const tsr_device_status *st = &now->status[k];
        FILE *o = line_begin(L);
        fprintf(o, "%-9s ", cli_device_name(now->props[k].device, dev, sizeof dev));
        cli_table_text(o, now->props[k].name, width - 10 > 1 ? width - 10 : 1, false);
        line_end(L, TOP_LOOK_PLAIN);
        o = line_begin(L);
        fputs("  mem  ", o);
        bar(L, st->capacity ? (double)st->reserved / (double)st->capacity : 0, bar_width);
        fprintf(o, " %9s/%s", cli_bytes(st->reserved, used, sizeof used),
                cli_bytes(st->capacity, cap, sizeof cap));
        line_end(L, TOP_LOOK_PLAIN);
        o = line_begin(L);
        fputs("  busy ", o);
        const tsr_device_status *was = s->was && k < s->was->count ? &s->was->status[k] : NULL;
        if (was && st->busy_sampled && st->now_ns > was->now_ns && st->busy_ns >= was->busy_ns) {
            double f = (double)(st->busy_ns - was->busy_ns) / (double)(st->now_ns - was->now_ns);
            bar(L, f, bar_width);
            fprintf(o, " %5.1f%%", f > 1 ? 100.0 : 100.0 * f);
        } else {
            bar(L, 0, bar_width);
            fputs("     -", o);
        }
        line_end(L, TOP_LOOK_PLAIN);
    }
    if (now->count == 0)
        text_line(L, TOP_LOOK_PLAIN, "(no accelerators: tensors can live on cpu and meta only)");
}

/* A session row's values. */
typedef struct row {
    const tsr_process_info *s;
    uint64_t allocated, reserved;
    double busy; /* share since the previous frame; < 0: unknown */
} row;

/* The session's busy share since the previous list: its busy time then and
 * now over the time between; unknown for a session new since. */
static double busy_share(const tsr_process_info *s, const top_snapshot *snap)
{
    for (size_t k = 0; k < snap->nprevious && snap->elapsed_ns > 0; k++) {
        const tsr_process_info *was = &snap->previous[k];
        if (was->session_id != s->session_id || was->busy_ns > s->busy_ns)
            continue;
        double f = (double)(s->busy_ns - was->busy_ns) / (double)snap->elapsed_ns;
        return f > 1 ? 1 : f;
    }
    return -1;
}

static top_sort sort_by;
static bool sort_reversed;

static int by_number(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static uint64_t shown_pid(const tsr_process_info *s)
{
    /* Sessions whose pid is not shown sort after every pid. */
    return s->visible && s->pid_known && s->pid ? s->pid : UINT64_MAX;
}

/* Memory and busy share largest first, the others in ascending order;
 * ties in session order. */
static int compare_rows(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    int c = 0;
    switch (sort_by) {
    case TOP_SORT_MEMORY:
        c = -by_number(a->allocated, b->allocated);
        if (c == 0)
            c = -by_number(a->reserved, b->reserved);
        break;
    case TOP_SORT_BUSY:
        c = a->busy > b->busy ? -1 : a->busy < b->busy;
        break;
    case TOP_SORT_PID:
        c = by_number(shown_pid(a->s), shown_pid(b->s));
        break;
    case TOP_SORT_NAME:
        c = strcmp(a->s->name, b->s->name);
        break;
    case TOP_SORT_SESSION:
    case TOP_SORT_COUNT:
        break;
    }
    if (c == 0)
        c = by_number(a->s->session_id, b->s->session_id);
    return sort_reversed ? -c : c;
}

/* The session columns, in the order shown; `drop`: the order in which
 * they leave a narrow terminal (1 first, 0 never). NAME and COMMAND take
 * what is left over too; COMMAND first narrows to COMMAND_MIN (a process
 * name has at most 15 characters) before the columns from DROP_LATE on
 * leave. */
enum {
    COL_SID,
    COL_PID,
    COL_USER,
    COL_DEVICE,
    COL_ALLOC,
    COL_RES,
    COL_BUSY,
    COL_NAME,
    COL_CMD,
    NCOL
};
static const struct {
    const char *title;
    int width;
    bool right;
    int drop;
} columns[NCOL] = {
    [COL_SID] = {"SID", 5, true, 0},          [COL_PID] = {"PID", 7, true, 8},
    [COL_USER] = {"USER", 8, false, 3},       [COL_DEVICE] = {"DEVICE", 9, false, 2},
    [COL_ALLOC] = {"ALLOCATED", 10, true, 6}, [COL_RES] = {"RESERVED", 10, true, 1},
    [COL_BUSY] = {"BUSY", 6, true, 5},        [COL_NAME] = {"NAME", 9, false, 7},
    [COL_CMD] = {"COMMAND", 15, false, 4},
};
#define NAME_MAX_WIDTH 16
#define COMMAND_MIN 8
#define DROP_LATE 4

/* The columns that fit a width: which, how wide, and the last shown. */
typedef struct column_fit {
    bool shown[NCOL];
    int widths[NCOL];
    int last;
} column_fit;

/* Drops the columns of levels from..to while the line, `used` columns
 * wide, is wider than width; returns its width then. (A local count, not
 * one through a pointer: gcc 12 -O2 lost the updates of an int *used here
 * to its loop optimisations.) */
static int drop_columns(column_fit *f, int used, int width, int from, int to)
{
    for (int drop = from; drop <= to; drop++) {
        if (used <= width)
            break;
        for (int c = 0; c < NCOL; c++)
            if (f->shown[c] && columns[c].drop == drop) {
                f->shown[c] = false;
                used -= f->widths[c] + 1;
            }
    }
    return used;
}

static void fit_columns(int width, column_fit *f)
{
    int used = -1;
    for (int c = 0; c < NCOL; c++) {
        f->shown[c] = true;
        f->widths[c] = columns[c].width;
        used += f->widths[c] + 1;
    }
    used = drop_columns(f, used, width, 1, DROP_LATE - 1);
    if (used > width) {
        int less = f->widths[COL_CMD] - COMMAND_MIN < used - width
                       ? f->widths[COL_CMD] - COMMAND_MIN
                       : used - width;
        f->widths[COL_CMD] -= less;
        used -= less;
    }
    used = drop_columns(f, used, width, DROP_LATE, 8);
    int extra = width - used;
    if (extra > 0 && f->shown[COL_NAME]) {
        int room = NAME_MAX_WIDTH - f->widths[COL_NAME];
        int more = extra < room ? extra : room;
        f->widths[COL_NAME] += more;
        extra -= more;
    }
    if (extra > 0 && f->shown[COL_CMD])
        f->widths[COL_CMD] += extra;
    f->last = NCOL - 1;
    while (f->last > 0 && !f->shown[f->last])
        f->last--;
}

static void header(layout *L, const column_fit *f)
{
    FILE *o = line_begin(L);
    const char *gap = "";
    for (int c = 0; c < NCOL; c++) {
        if (!f->shown[c])
            continue;
        int w = columns[c].right ? f->widths[c] : c == f->last ? 0 : -f->widths[c];
        fprintf(o, "%s%*s", gap, w, columns[c].title);
        gap = " ";
    }
    line_end(L, TOP_LOOK_HEADER);
}

static void session_line(layout *L, const row *r, const column_fit *f)
{
    const tsr_process_info *s = r->s;
    char text[64], dev[TSR_DEVICE_STR_MAX];
    FILE *o = line_begin(L);
    const char *gap = "";
    for (int c = 0; c < NCOL; c++) {
        if (!f->shown[c])
            continue;
        fputs(gap, o);
        gap = " ";
        int w = f->widths[c];
        bool pad = c != f->last;
        snprintf(text, sizeof text, "-");
        switch (c) {
        case COL_SID:
            snprintf(text, sizeof text, "%" PRIu32, s->session_id);
            break;
        case COL_PID:
            if (s->visible && s->pid_known && s->pid)
                snprintf(text, sizeof text, "%" PRIu32, s->pid);
            break;
        case COL_USER:
            cli_table_text(o, s->visible ? cli_user_name(s->uid, text, sizeof text) : "-", w, pad);
            continue;
        case COL_DEVICE:
            cli_table_text(o, cli_shown_device(s->current_device, dev, sizeof dev), w, pad);
            continue;
        case COL_ALLOC:
            cli_bytes(r->allocated, text, sizeof text);
            break;
        case COL_RES:
            cli_bytes(r->reserved, text, sizeof text);
            break;
        case COL_BUSY:
            if (r->busy >= 0)
                snprintf(text, sizeof text, "%.1f%%", 100.0 * r->busy);
            break;
        case COL_NAME:
            cli_table_text(o, s->name[0] ? s->name : "-", w, pad);
            continue;
        case COL_CMD:
            /* A client gone while its kernels finish: it still holds the device. */
            if (s->ending) {
                fputs("(ending) ", o);
                w = w > 10 ? w - 9 : 1;
            }
            cli_table_text(o, s->visible ? s->command : "(other user)", w, pad);
            continue;
        }
        fprintf(o, "%*s", columns[c].right ? w : -w, text);
    }
    line_end(L, TOP_LOOK_PLAIN);
}

static void sessions(layout *L, const top_snapshot *s)
{
    const top_view *v = L->v;
    column_fit cols;
    fit_columns(v->width, &cols);
    text_line(L, TOP_LOOK_PLAIN, "");
    header(L, &cols);
    if (s->nsessions == 0) {
        text_line(L, TOP_LOOK_PLAIN, "(no client sessions)");
        return;
    }
    row *rows = calloc(s->nsessions, sizeof *rows);
    if (!rows) {
        L->ok = false;
        return;
    }
    for (size_t k = 0; k < s->nsessions; k++) {
        const tsr_process_info *p = &s->sessions[k];
        rows[k] = (row){.s = p, .busy = busy_share(p, s)};
        for (uint32_t u = 0; u < p->usage_count; u++) {
            rows[k].allocated += p->usage[u].allocated;
            rows[k].reserved += p->usage[u].reserved;
        }
    }
    sort_by = v->sort;
    sort_reversed = v->reverse;
    qsort(rows, s->nsessions, sizeof *rows, compare_rows);
    /* The rows that fit below, the last of them the count of the others. */
    size_t fit = s->nsessions;
    if (v->rows > 0) {
        size_t room = (size_t)v->rows > L->f->count ? (size_t)v->rows - L->f->count : 0;
        fit = room >= s->nsessions ? s->nsessions : room > 0 ? room - 1 : 0;
    }
    for (size_t k = 0; k < fit; k++)
        session_line(L, &rows[k], &cols);
    if (fit < s->nsessions) {
        fprintf(line_begin(L), "+%zu more", s->nsessions - fit);
        line_end(L, TOP_LOOK_PLAIN);
    }
    free(rows);
}

static void help(layout *L)
{
    char text[128];
    text_line(L, TOP_LOOK_PLAIN, "Keys:");
    for (int k = 0; k < TOP_SORT_COUNT; k++) {
        bool largest = k == TOP_SORT_MEMORY || k == TOP_SORT_BUSY;
        snprintf(text, sizeof text, "  %c       sort by %s%s", top_sort_keys[k].key,
                 top_sort_keys[k].name, largest ? ", largest first" : "");
        text_line(L, TOP_LOOK_PLAIN, text);
    }
    text_line(L, TOP_LOOK_PLAIN, "          (the current order's key again reverses it)");
    text_line(L, TOP_LOOK_PLAIN, "  h, ?    this help");
    text_line(L, TOP_LOOK_PLAIN, "  q       quit");
    text_line(L, TOP_LOOK_PLAIN, "");
    text_line(L, TOP_LOOK_PLAIN, "Any key goes back.");
}

void top_frame_free(top_frame *f)
{
    for (size_t k = 0; k < f->count; k++)
        free(f->lines[k].text);
    free(f->lines);
    *f = (top_frame){0};
}

bool top_layout(top_frame *f, const top_snapshot *s, const top_view *v)
{
    top_frame_free(f);
    layout L = {.f = f, .v = v, .ok = true};
    title(&L, s);
    text_line(&L, s->status[0] ? TOP_LOOK_ALERT : TOP_LOOK_PLAIN, s->status);
    if (v->help)
        help(&L);
    else if (s->connected) {
        devices(&L, s);
        sessions(&L, s);
    }
    if (!L.ok)
        return false;
    /* What does not fit the height (a terminal too small for the devices). */
    while (v->rows > 0 && f->count > (size_t)v->rows)
        free(f->lines[--f->count].text);
    return true;
}
