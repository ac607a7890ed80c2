/* Reader for the conformance tables in tests/conformance/data/, written by
 * gen_tables.py: one case per line, fields separated by " | ", lines that
 * start with '#' and blank lines ignored. Fields are taken byte for byte
 * (no trimming: a device string may start or end with a space).
 *
 * It also keeps the per-table verdict: a test opens a table, checks each
 * row between table_row_begin() and the next row, reports mismatches with
 * table_fail() (the first few are printed with the row's file and line),
 * and ends with table_finish(), which prints how many entries it checked.
 * Tests are single-threaded; the state is one global. */
#ifndef TESSERA_TESTS_SUPPORT_TABLE_H
#define TESSERA_TESTS_SUPPORT_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/tessera.h"

typedef struct table_row {
    int line; /* 1-based line number in the file */
    int nfields;
    char **fields;
} table_row;

typedef struct table {
    char *path;
    char *text; /* the file's bytes, split in place into fields */
    table_row *rows;
    int nrows;
} table;

/* Loads `path` (relative to the working directory). A missing or
 * unreadable file, or one without a single row, ends the test program
 * with exit status 1 and says why: a table that went missing must not
 * pass as "nothing to check". The caller owns the result (table_free). */
table *table_load(const char *path);
void table_free(table *t);

/* Every row of `t` in order, each begun with table_row_begin. */
#define TABLE_FOREACH(t, row)              \
    for (const table_row *row = (t)->rows; \
         row < (t)->rows + (t)->nrows && (table_row_begin((t), row), true); row++)

/* Starts checking `row` of `t`; the row counts as checked. */
void table_row_begin(const table *t, const table_row *row);
/* Marks the current row failed and prints what went wrong (printf
 * format), with the row, for the first rows that fail. */
void table_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reports a row whose field count is outside [min, max]; returns whether
 * it is inside. */
bool table_fields(const table_row *row, int min, int max);
/* Prints "<path>: N entries checked, M failed" and returns M. */
int table_finish(const table *t);

/* The message of an "ERROR <message>" field, else NULL. */
const char *table_error_message(const char *field);
/* The status of a "STATUS <TSR_ERR_...>" field, else TSR_STATUS_COUNT. */
tsr_status table_status_field(const char *field);
/* The status a Python exception of that class corresponds to
 * (IndexError -> TSR_ERR_INDEX, RuntimeError -> TSR_ERR_RUNTIME,
 * ValueError -> TSR_ERR_INVALID_ARGUMENT, TypeError -> TSR_ERR_TYPE);
 * TSR_STATUS_COUNT for anything else. */
tsr_status table_status_of_exception(const char *name);

/* Checks a call's outcome against an expected field: "ERROR <message>"
 * (the call must have failed with `error_status` and exactly that
 * message), "STATUS <TSR_...>" (failed with that status, any message), or
 * anything else (the call must have succeeded). Reports mismatches with
 * table_fail. Returns true when the call succeeded as it should, so that
 * the caller goes on to compare the values. */
bool table_expect(tsr_status got, const char *expected, tsr_status error_status);
/* The same with the expected failure given directly. */
void table_expect_error(tsr_status got, tsr_status status, const char *message);

/* Field parsers; each reports a malformed field with table_fail and
 * returns false. */
bool table_dtype(const char *name, tsr_dtype *out);
bool table_int(const char *text, int64_t *out);
bool table_bool(const char *text, bool *out);
/* "[2,3,4]" / "[]" into out[0..*n), at most `max` values. */
bool table_ints(const char *text, int64_t *out, int max, int *n);
/* Splits "a,b,c" (no brackets) of integers; "-" stands for an omitted
 * value and sets present[i] false (present may be NULL when none is). */
bool table_int_args(const char *text, int64_t *out, bool *present, int max, int *n);

/* Compares a boolean result with a "true"/"false" field; on mismatch
 * reports `what` and the value it returned. */
void table_expect_bool(const char *what, bool got, const char *want_text);

/* Lower-level scanners for composite fields: one decimal integer, or one
 * "[...]" list, at *p; advance *p past it. No report on failure. */
bool table_scan_int(const char **p, int64_t *out);
bool table_scan_list(const char **p, int64_t *out, int max, int *n);

/* Compares two int64 vectors; on mismatch reports `what` with both. */
bool table_expect_ints(const char *what, const int64_t *got, int ngot, const int64_t *want,
                       int nwant);

#endif /* TESSERA_TESTS_SUPPORT_TABLE_H */
