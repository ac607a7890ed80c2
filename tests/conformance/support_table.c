/* The table reader and the per-table verdict (see support_table.h). The
 * whole file is read into memory and split in place, so lines of any
 * length work; CRLF line ends are accepted. */
#include "support_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many failing rows are printed in full per table; the rest are
 * counted. TABLE_MAX_PRINTED in the environment changes it. */
static int printed_failures(void)
{
    const char *env = getenv("TABLE_MAX_PRINTED");
    return env && *env ? atoi(env) : 40;
}

static struct {
    const table *table;
    const table_row *row;
    int checked;
    int failed;
    bool row_failed;
} state;

static void die(const char *path, const char *why)
{
    fprintf(stderr, "conformance table %s: %s\n", path, why);
    exit(1);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "conformance table %s: cannot open: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        die(path, "out of memory");
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                die(path, "out of memory");
            buf = grown;
        }
    }
    if (ferror(f))
        die(path, "read error");
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Splits one line (NUL-terminated, no line end) into its fields. */
static void split_fields(table_row *row, char *line, const char *path)
{
    int cap = 1;
    for (const char *p = line; (p = strstr(p, " | ")) != NULL; p += 3)
        cap++;
    row->fields = malloc(sizeof(char *) * (size_t)cap);
    if (!row->fields)
        die(path, "out of memory");
    row->nfields = 0;
    char *p = line;
    for (;;) {
        row->fields[row->nfields++] = p;
        char *sep = strstr(p, " | ");
        if (!sep)
            break;
        *sep = '\0';
        p = sep + 3;
    }
}

table *table_load(const char *path)
{
    table *t = calloc(1, sizeof(*t));
    if (!t)
        die(path, "out of memory");
    t->path = strdup(path);
    size_t len;
    t->text = read_file(path, &len);
    if (memchr(t->text, '\0', len))
        die(path, "contains a NUL byte");

    int cap = 0;
    for (size_t i = 0; i < len; i++)
        cap += t->text[i] == '\n';
    t->rows = calloc((size_t)cap + 1, sizeof(table_row));
    if (!t->rows || !t->path)
        die(path, "out of memory");

    char *line = t->text;
    int lineno = 0;
    while (*line) {
        lineno++;
        char *end = strchr(line, '\n');
        char *next = end ? end + 1 : line + strlen(line);
        if (end)
            *end = '\0';
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        if (n > 0 && line[0] != '#') {
            table_row *row = &t->rows[t->nrows++];
            row->line = lineno;
            split_fields(row, line, path);
        }
        line = next;
    }
    if (t->nrows == 0)
        die(path, "has no rows (regenerate with gen_tables.py)");
    state.table = NULL;
    return t;
}

void table_free(table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows; i++)
        free(t->rows[i].fields);
    free(t->rows);
    free(t->text);
    free(t->path);
    free(t);
}

void table_row_begin(const table *t, const table_row *row)
{
    if (state.table != t) {
        state.table = t;
        state.checked = 0;
        state.failed = 0;
    }
    state.row = row;
    state.row_failed = false;
    state.checked++;
}

void table_fail(const char *fmt, ...)
{
    if (!state.row_failed) {
        state.row_failed = true;
        state.failed++;
        if (state.failed <= printed_failures() && state.table && state.row) {
            fprintf(stderr, "%s:%d:", state.table->path, state.row->line);
            for (int i = 0; i < state.row->nfields; i++)
                fprintf(stderr, "%s%s", i ? " | " : " ", state.row->fields[i]);
            fprintf(stderr, "\n");
        }
    }
    if (state.failed <= printed_failures()) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "    ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

bool table_fields(const table_row *row, int min, int max)
{
    if (row->nfields >= min && row->nfields <= max)
        return true;
    table_fail("%d fields; expected %d to %d", row->nfields, min, max);
    return false;
}

int table_finish(const table *t)
{
    int checked = state.table == t ? state.checked : 0;
    int failed = state.table == t ? state.failed : 0;
    if (failed > printed_failures())
        fprintf(stderr, "%s: %d more failing rows not shown\n", t->path,
                failed - printed_failures());
    printf("%s: %d entries checked, %d failed\n", t->path, checked, failed);
    if (checked == 0) {
        fprintf(stderr, "%s: no entry was checked\n", t->path);
        return 1;
    }
    return failed;
}

const char *table_error_message(const char *field)
{
    return strncmp(field, "ERROR ", 6) == 0 ? field + 6 : NULL;
}

tsr_status table_status_field(const char *field)
{
    if (strncmp(field, "STATUS ", 7) != 0)
        return TSR_STATUS_COUNT;
    for (int s = 0; s < TSR_STATUS_COUNT; s++)
        if (strcmp(field + 7, tsr_status_name((tsr_status)s)) == 0)
            return (tsr_status)s;
    return TSR_STATUS_COUNT;
}

tsr_status table_status_of_exception(const char *name)
{
    static const struct {
        const char *name;
        tsr_status status;
    } map[] = {
        {"IndexError", TSR_ERR_INDEX},
        {"RuntimeError", TSR_ERR_RUNTIME},
        {"ValueError", TSR_ERR_INVALID_ARGUMENT},
        {"TypeError", TSR_ERR_TYPE},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(name, map[i].name) == 0)
            return map[i].status;
    return TSR_STATUS_COUNT;
}

void table_expect_error(tsr_status got, tsr_status status, const char *message)
{
    if (got == TSR_OK) {
        table_fail("succeeded; expected %s \"%s\"", tsr_status_name(status),
                   message ? message : "(any message)");
    } else if (got != status) {
        table_fail("failed with %s \"%s\"; expected %s \"%s\"", tsr_status_name(got),
                   tsr_last_error(), tsr_status_name(status), message ? message : "(any message)");
    } else if (message && strcmp(tsr_last_error(), message) != 0) {
        table_fail("message \"%s\"; expected \"%s\"", tsr_last_error(), message);
    }
}

bool table_expect(tsr_status got, const char *expected, tsr_status error_status)
{
    const char *msg = table_error_message(expected);
    if (msg) {
        table_expect_error(got, error_status, msg);
        return false;
    }
    tsr_status status = table_status_field(expected);
    if (status != TSR_STATUS_COUNT) {
        table_expect_error(got, status, NULL);
        return false;
    }
    if (strncmp(expected, "STATUS ", 7) == 0) {
        table_fail("unknown status in \"%s\"", expected);
        return false;
    }
    if (got != TSR_OK) {
        table_fail("failed with %s \"%s\"; expected success", tsr_status_name(got),
                   tsr_last_error());
        return false;
    }
    return true;
}

bool table_dtype(const char *name, tsr_dtype *out)
{
    if (tsr_dtype_from_name(name, out) == TSR_OK)
        return true;
    table_fail("tsr_dtype_from_name(\"%s\") failed: %s", name, tsr_last_error());
    return false;
}

bool table_scan_int(const char **p, int64_t *out)
{
    const char *s = *p;
    if (!(*s == '-' || (*s >= '0' && *s <= '9')))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || (end - s == 1 && *s == '-'))
        return false;
    *out = (int64_t)v;
    *p = end;
    return true;
}

bool table_int(const char *text, int64_t *out)
{
    const char *p = text;
    int64_t v;
    if (!table_scan_int(&p, &v) || *p != '\0') {
        table_fail("malformed integer \"%s\"", text);
        return false;
    }
    *out = v;
    return true;
}

bool table_bool(const char *text, bool *out)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        *out = text[0] == 't';
        return true;
    }
    table_fail("malformed boolean \"%s\"", text);
    return false;
}

void table_expect_bool(const char *what, bool got, const char *want_text)
{
    bool want;
    if (table_bool(want_text, &want) && got != want)
        table_fail("%s returned %s", what, got ? "true" : "false");
}

bool table_scan_list(const char **p, int64_t *out, int max, int *n)
{
    const char *s = *p;
    int count = 0;
    if (*s++ != '[')
        return false;
    if (*s == ']') {
        *n = 0;
        *p = s + 1;
        return true;
    }
    for (;;) {
        if (count == max || !table_scan_int(&s, &out[count]))
            return false;
        count++;
        if (*s == ']')
            break;
        if (*s++ != ',')
            return false;
    }
    *n = count;
    *p = s + 1;
    return true;
}

bool table_ints(const char *text, int64_t *out, int max, int *n)
{
    const char *p = text;
    if (!table_scan_list(&p, out, max, n) || *p != '\0') {
        table_fail("malformed list \"%s\"", text);
        return false;
    }
    return true;
}

bool table_int_args(const char *text, int64_t *out, bool *present, int max, int *n)
{
    const char *p = text;
    int count = 0;
    for (;;) {
        if (count == max)
            goto bad;
        if (*p == '-' && (p[1] == ',' || p[1] == '\0')) {
            if (!present)
                goto bad;
            present[count] = false;
            out[count] = 0;
            p++;
        } else {
            if (!table_scan_int(&p, &out[count]))
                goto bad;
            if (present)
                present[count] = true;
        }
        count++;
        if (*p == '\0')
            break;
        if (*p++ != ',')
            goto bad;
    }
    *n = count;
    return true;
bad:
    table_fail("malformed arguments \"%s\"", text);
    return false;
}

static void format_ints(char *buf, size_t size, const int64_t *v, int n)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? "," : "", v[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

bool table_expect_ints(const char *what, const int64_t *got, int ngot, const int64_t *want,
                       int nwant)
{
    bool same = ngot == nwant;
    for (int i = 0; same && i < ngot; i++)
        same = got[i] == want[i];
    if (!same) {
        char g[512], w[512];
        format_ints(g, sizeof(g), got, ngot);
        format_ints(w, sizeof(w), want, nwant);
        table_fail("%s: got %s, expected %s", what, g, w);
    }
    return same;
}
