/* Rows of named fields, as tables, CSV and JSON (fields.c).
 *
 * A command that prints rows (devices, ps) describes each of its columns
 * once, as a cli_field: the name that --query, the CSV header and the JSON
 * key use, the table's heading and width, a line for its manual, and a
 * function that reads the value out of a row. A cli_view is the columns one
 * run prints (the command's defaults, or those --query names) in the
 * format its options ask for; every value goes through the writers of
 * escape.c, so text from outside the command is escaped in every format.
 *
 * Units appear only in tables: bytes as "1.5 GiB" and shares as "12.5%",
 * unless --no-units asks for the plain numbers CSV and JSON always carry. */
#ifndef TESSERA_CLI_FIELDS_H
#define TESSERA_CLI_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"

typedef enum cli_cell_kind {
    CLI_CELL_NULL,    /* unknown or hidden: null in JSON, empty in CSV, "-" in tables */
    CLI_CELL_TEXT,    /* a string, escaped in every format */
    CLI_CELL_NUMBER,  /* an unsigned integer */
    CLI_CELL_BYTES,   /* a number of bytes */
    CLI_CELL_PERCENT, /* a share, 0 to 100, one decimal */
    CLI_CELL_BOOL,
} cli_cell_kind;

typedef struct cli_cell {
    cli_cell_kind kind;
    const char *text;  /* CLI_CELL_TEXT */
    uint64_t number;   /* CLI_CELL_NUMBER, CLI_CELL_BYTES; CLI_CELL_BOOL: 0 or 1 */
    double percent;    /* CLI_CELL_PERCENT */
    const char *shown; /* what a table shows instead of the value, or NULL */
    char buf[64];      /* room for a getter's text */
} cli_cell;

enum {
    CLI_FIELD_RIGHT = 1u << 0,  /* right-aligned in tables (numbers) */
    CLI_FIELD_HIDDEN = 1u << 1, /* a table column only: no --query name */
    CLI_FIELD_GROUP = 1u << 2,  /* a command's own (ps: per device; devices: live usage) */
};

typedef struct cli_field {
    const char *name;    /* --query name, CSV column and JSON key; "" ends a table */
    const char *heading; /* the table's */
    int width;           /* the table column's */
    unsigned flags;
    const char *help; /* one line of the manual's FIELDS section */
    void (*get)(const void *row, cli_cell *out);
} cli_field;

#define CLI_MAX_COLUMNS 64

typedef enum cli_format { CLI_FORMAT_TABLE, CLI_FORMAT_CSV, CLI_FORMAT_JSON } cli_format;

typedef struct cli_view {
    const cli_field *fields;
    int column[CLI_MAX_COLUMNS]; /* indices into fields */
    size_t columns;
    cli_format format;
    bool header, units;
    bool lines;           /* JSON: one document per line (JSON Lines, under --loop) */
    unsigned long rounds; /* rounds printed so far */
    size_t rows;          /* rows of this round */
} cli_view;

/* The columns of a run: those --query names, else `defaults` (a list of
 * field names as --query takes it; the table's when the format is a
 * table, else `data_defaults`), and the format and header and units
 * options. Returns -1, else EXIT_USAGE after saying what was wrong. */
int cli_view_init(cli_view *v, const cli_command *cmd, const cli_args *args, const char *defaults,
                  const char *data_defaults);
/* Whether the view shows a field that has `flag`. */
bool cli_view_has(const cli_view *v, unsigned flag);

/* A round: what goes before its rows (the blank line between two rounds
 * of a table, the header of a table or, once, of CSV, JSON's '['), each
 * row, and what goes after them. `cont`: a further row of the item the
 * row before showed (ps: another device of a session); a table leaves
 * its columns without CLI_FIELD_GROUP blank. */
void cli_view_begin(cli_view *v);
void cli_view_row(cli_view *v, const void *row, bool cont);
void cli_view_end(cli_view *v);

/* Writes `"key": value, ...` for the first `n` fields of `fields`, without
 * braces (for JSON objects a command builds around them). */
void cli_fields_json(const cli_field *fields, size_t n, const void *row);

/* Prints a command's FIELDS section (its manual, after OPTIONS). */
void cli_print_fields(FILE *f, const cli_field *fields);

/* Getters' helpers: text (NULL or "" as null), a number, bytes, a yes/no. */
void cli_cell_text(cli_cell *out, const char *s);
void cli_cell_number(cli_cell *out, uint64_t v);
void cli_cell_bytes(cli_cell *out, uint64_t v);
void cli_cell_bool(cli_cell *out, bool b);

#endif /* TESSERA_CLI_FIELDS_H */
