/* See fields.h. */
#include "cli/fields.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/daemon.h"

static size_t field_count(const cli_field *fields)
{
    size_t n = 0;
    while (fields[n].name[0])
        n++;
    return n;
}

static int find_field(const cli_field *fields, const char *name, size_t len, bool hidden)
{
    for (size_t k = 0; fields[k].name[0]; k++)
        if (strlen(fields[k].name) == len && strncmp(fields[k].name, name, len) == 0 &&
            (hidden || !(fields[k].flags & CLI_FIELD_HIDDEN)))
            return (int)k;
    return -1;
}

static int unknown_field(const cli_command *cmd, const cli_field *fields, const char *name,
                         size_t len)
{
    char list[1024];
    size_t used = 0;
    for (size_t k = 0; fields[k].name[0] && used < sizeof list; k++)
        if (!(fields[k].flags & CLI_FIELD_HIDDEN))
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                     fields[k].name);
    return cli_usage_error(cmd, "unknown field '%.*s' in --query; the fields are: %s", (int)len,
                           name, list);
}

/* A comma-separated list of field names (spaces around a name are
 * allowed); `hidden`: the table-only fields count too (a command's own
 * defaults). */
static int parse_columns(cli_view *v, const cli_command *cmd, const char *text, bool hidden)
{
    v->columns = 0;
    for (const char *p = text;;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        if (len == 0)
            return cli_usage_error(cmd, "--query needs field names separated by commas, not '%s'",
                                   text);
        int k = find_field(v->fields, p, len, hidden);
        if (k < 0)
            return unknown_field(cmd, v->fields, p, len);
        for (size_t j = 0; j < v->columns; j++)
            if (v->column[j] == k)
                return cli_usage_error(cmd, "field '%.*s' is named twice in --query", (int)len, p);
        if (v->columns == CLI_MAX_COLUMNS)
            return cli_usage_error(cmd, "--query names more than %d fields", CLI_MAX_COLUMNS);
        v->column[v->columns++] = k;
        p += strcspn(p, ",");
        if (*p != ',')
            return -1;
        p++;
    }
}

int cli_view_init(cli_view *v, const cli_command *cmd, const cli_args *args, const char *defaults,
                  const char *data_defaults)
{
    *v = (cli_view){.fields = cmd->fields};
    v->format = cli_given(args, CLI_OPT_JSON)  ? CLI_FORMAT_JSON
                : cli_given(args, CLI_OPT_CSV) ? CLI_FORMAT_CSV
                                               : CLI_FORMAT_TABLE;
    v->header = !cli_given(args, CLI_OPT_NO_HEADER);
    v->units = !cli_given(args, CLI_OPT_NO_UNITS);
    v->lines = cli_given(args, CLI_OPT_LOOP);
    if (cli_given(args, CLI_OPT_QUERY))
        return parse_columns(v, cmd, args->value[CLI_OPT_QUERY], false);
    return parse_columns(v, cmd, v->format == CLI_FORMAT_TABLE ? defaults : data_defaults, true);
}

bool cli_view_has(const cli_view *v, unsigned flag)
{
    for (size_t k = 0; k < v->columns; k++)
        if (v->fields[v->column[k]].flags & flag)
            return true;
    return false;
}

void cli_cell_text(cli_cell *out, const char *s)
{
    if (s && *s) {
        out->kind = CLI_CELL_TEXT;
        out->text = s;
    }
}

void cli_cell_number(cli_cell *out, uint64_t v)
{
    out->kind = CLI_CELL_NUMBER;
    out->number = v;
}

void cli_cell_bytes(cli_cell *out, uint64_t v)
{
    out->kind = CLI_CELL_BYTES;
    out->number = v;
}

void cli_cell_bool(cli_cell *out, bool b)
{
    out->kind = CLI_CELL_BOOL;
    out->number = b;
}

static void get(const cli_field *f, const void *row, cli_cell *c)
{
    *c = (cli_cell){.kind = CLI_CELL_NULL};
    f->get(row, c);
}

static void json_value(const cli_cell *c)
{
    switch (c->kind) {
    case CLI_CELL_NULL:
        printf("null");
        break;
    case CLI_CELL_TEXT:
        json_string(stdout, c->text);
        break;
    case CLI_CELL_NUMBER:
    case CLI_CELL_BYTES:
        printf("%" PRIu64, c->number);
        break;
    case CLI_CELL_PERCENT:
        printf("%.1f", c->percent);
        break;
    case CLI_CELL_BOOL:
        printf("%s", c->number ? "true" : "false");
        break;
    }
}

static void json_member(const cli_field *f, const void *row, bool first)
{
    cli_cell c;
    get(f, row, &c);
    printf("%s\"%s\": ", first ? "" : ", ", f->name);
    json_value(&c);
}

void cli_fields_json(const cli_field *fields, size_t n, const void *row)
{
    for (size_t k = 0; k < n; k++)
        json_member(&fields[k], row, k == 0);
}

static void csv_value(const cli_cell *c)
{
    if (c->kind == CLI_CELL_TEXT)
        cli_csv_field(stdout, c->text);
    else if (c->kind == CLI_CELL_BOOL)
        printf("%s", c->number ? "true" : "false");
    else if (c->kind != CLI_CELL_NULL)
        json_value(c); /* the same digits */
}

/* A table cell's text: the value, with units unless --no-units. */
static const char *table_text(const cli_view *v, const cli_cell *c, char *buf, size_t n)
{
    if (c->shown)
        return c->shown;
    switch (c->kind) {
    case CLI_CELL_NULL:
        return "-";
    case CLI_CELL_TEXT:
        return c->text;
    case CLI_CELL_BYTES:
        if (v->units)
            return cli_bytes(c->number, buf, n);
        /* fall through */
    case CLI_CELL_NUMBER:
        snprintf(buf, n, "%" PRIu64, c->number);
        return buf;
    case CLI_CELL_PERCENT:
        snprintf(buf, n, v->units ? "%.1f%%" : "%.1f", c->percent);
        return buf;
    case CLI_CELL_BOOL:
        return c->number ? "yes" : "no";
    }
    return "?";
}

/* One table cell: numbers right-aligned and never cut; text cut to the
 * column's width and padded, but for the last column, which is neither. */
static void table_cell(const cli_field *f, const char *s, bool last)
{
    int len = (int)strlen(s);
    if ((f->flags & CLI_FIELD_RIGHT) && len < f->width)
        printf("%*s", f->width - len, "");
    if (last || (f->flags & CLI_FIELD_RIGHT))
        cli_table_text(stdout, s, -1, false);
    else
        cli_table_text(stdout, s, f->width, true);
}

void cli_view_begin(cli_view *v)
{
    v->rows = 0;
    if (v->format == CLI_FORMAT_JSON) {
        putchar('[');
        return;
    }
    if (v->format == CLI_FORMAT_TABLE && v->rounds > 0)
        putchar('\n');
    if (!v->header || (v->format == CLI_FORMAT_CSV && v->rounds > 0))
        return;
    for (size_t k = 0; k < v->columns; k++) {
        const cli_field *f = &v->fields[v->column[k]];
        if (v->format == CLI_FORMAT_CSV) {
            printf("%s%s", k ? "," : "", f->name);
        } else {
            if (k)
                putchar(' ');
            table_cell(f, f->heading, k + 1 == v->columns);
        }
    }
    putchar('\n');
}

void cli_view_row(cli_view *v, const void *row, bool cont)
{
    if (v->format == CLI_FORMAT_JSON) {
        /* [{...}, {...}] on one line, else an object a line */
        printf("%s%s{", v->rows ? "," : "", v->lines ? (v->rows ? " " : "") : "\n  ");
        for (size_t k = 0; k < v->columns; k++)
            json_member(&v->fields[v->column[k]], row, k == 0);
        putchar('}');
        v->rows++;
        return;
    }
    for (size_t k = 0; k < v->columns; k++) {
        const cli_field *f = &v->fields[v->column[k]];
        cli_cell c;
        char buf[64];
        if (cont && !(f->flags & CLI_FIELD_GROUP))
            c = (cli_cell){.kind = CLI_CELL_NULL, .shown = ""};
        else
            get(f, row, &c);
        if (v->format == CLI_FORMAT_CSV) {
            if (k)
                putchar(',');
            csv_value(&c);
        } else {
            if (k)
                putchar(' ');
            table_cell(f, table_text(v, &c, buf, sizeof buf), k + 1 == v->columns);
        }
    }
    putchar('\n');
    v->rows++;
}

void cli_view_end(cli_view *v)
{
    if (v->format == CLI_FORMAT_JSON)
        printf("%s]\n", v->rows && !v->lines ? "\n" : "");
    v->rounds++;
    fflush(stdout);
}

/* Writes `text` from column `col` on, wrapped at 79 columns, each further
 * line indented to `indent`. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, word, f);
        col += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

void cli_print_fields(FILE *f, const cli_field *fields)
{
    fprintf(f, "FIELDS\n");
    for (size_t k = 0; k < field_count(fields); k++) {
        if (fields[k].flags & CLI_FIELD_HIDDEN)
            continue;
        int col = fprintf(f, "    %-19s  ", fields[k].name);
        wrap(f, fields[k].help, col, 4 + 19 + 2);
    }
    fputc('\n', f);
}
