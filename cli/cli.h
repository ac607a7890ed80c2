/* The `tessera` command: shared declarations.
 *
 * Every subcommand is one row of the command table in main.c: its name,
 * a one-line summary, a manual page (the text --help prints, and the
 * source of docs/man), the options and number of arguments it takes, and
 * the function that runs it on its parsed command line. Subcommands print
 * results on stdout and errors on stderr as "tessera: error: ...".
 * Exit status: 0 success, 1 the operation failed (PyTorch would raise),
 * 2 bad usage. */
#ifndef TESSERA_CLI_H
#define TESSERA_CLI_H

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Every option of every command, once: its name, its short letter (0 for
 * none), whether it takes a value, and a description of what follows it.
 * main.c parses them all with getopt_long; a command lists those it takes
 * in its row of the command table. Two options may share a letter when no
 * command takes both and both take a value (or neither): the letter is
 * the one the command takes (-d is stats' --device and top's --delay). */
#define CLI_OPTIONS(X)                         \
    X(HELP, "help", 'h', false)                \
    X(VERSION, "version", 'V', false)          \
    X(JSON, "json", 'j', false)                \
    X(CSV, "csv", 0, false)                    \
    X(NO_HEADER, "no-header", 0, false)        \
    X(NO_UNITS, "no-units", 0, false)          \
    X(SOCKET, "socket", 's', true)             \
    X(QUERY, "query", 'q', true)               \
    X(LOOP, "loop", 'l', true)                 \
    X(COUNT, "count", 'c', true)               \
    X(ALL, "all", 'a', false)                  \
    X(DEVICE, "device", 'd', true)             \
    X(ONCE, "once", 0, false)                  \
    X(POLICY, "policy", 0, true)               \
    X(DEFAULT_DTYPE, "default-dtype", 0, true) \
    X(OPENMETRICS, "openmetrics", 0, false)    \
    X(HTTP, "http", 0, false)                  \
    X(DELAY, "delay", 'd', true)               \
    X(SORT, "sort", 'o', true)                 \
    X(ITERATIONS, "iterations", 'n', true)

typedef enum cli_option {
#define CLI_OPTION_ENUM(id, name, letter, value) CLI_OPT_##id,
    CLI_OPTIONS(CLI_OPTION_ENUM)
#undef CLI_OPTION_ENUM
        CLI_OPTION_COUNT
} cli_option;

#define CLI_OPT(id) (1u << CLI_OPT_##id)
/* The options that may come before the command name too. */
#define CLI_GLOBAL_OPTIONS \
    (CLI_OPT(SOCKET) | CLI_OPT(JSON) | CLI_OPT(CSV) | CLI_OPT(NO_HEADER) | CLI_OPT(NO_UNITS))
/* The options of the commands that print rows (devices, ps). */
#define CLI_ROW_OPTIONS \
    (CLI_OPT(JSON) | CLI_OPT(CSV) | CLI_OPT(NO_HEADER) | CLI_OPT(NO_UNITS) | CLI_OPT(QUERY))
#define CLI_LOOP_OPTIONS (CLI_OPT(LOOP) | CLI_OPT(COUNT))

/* A command line, parsed (main.c): the options given, before or after the
 * command name, the values of those that take one (the last given wins),
 * and the positional arguments in order. Negative numbers ("-1", "-.5",
 * "-1.5-2j") are positional, and "--" ends the options. */
typedef struct cli_args {
    unsigned given; /* CLI_OPT bits */
    const char *value[CLI_OPTION_COUNT];
    int npos;
    char **pos;
    double loop_seconds; /* --loop; 0 without */
    unsigned long count; /* --count; 0 without */
} cli_args;

static inline bool cli_given(const cli_args *args, cli_option o)
{
    return (args->given >> o) & 1u;
}

struct cli_field;

typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *manual; /* SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES */
    unsigned options;   /* the CLI_OPT bits it takes, besides --help */
    int min_args, max_args;
    int (*run)(const cli_args *args);
    /* The --query fields of a command that has them, ended by an empty
     * name: listed in a FIELDS section of its manual (fields.h). */
    const struct cli_field *fields;
} cli_command;

/* The long name of an option ("json"). */
const char *cli_option_name(cli_option o);

/* Prints "tessera: error: <msg>" on stderr and returns EXIT_FAILED. */
int cli_fail(const char *msg);
/* Prints a usage error naming the command and returns EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints a command's manual page. */
void cli_print_manual(FILE *f, const cli_command *cmd);

/* Strings from outside the command (process and session names, cgroups,
 * drivers' strings), one writer per output format (escape.c): control
 * characters and invalid UTF-8 are escaped, valid UTF-8 passes.
 * json_string: a JSON string with \u00NN escapes, or null for NULL.
 * cli_csv_field: an RFC 4180 field with \xNN escapes (and \\), quoted
 * when it holds a comma or a quote; nothing for NULL.
 * cli_table_text: \xNN escapes (and \\) cut to `width` columns (width < 0:
 * no limit), padded with spaces to `width` when `pad`; "" for NULL. */
void json_string(FILE *f, const char *s);
void cli_csv_field(FILE *f, const char *s);
void cli_table_text(FILE *f, const char *s, int width, bool pad);
/* cli_label_value: the inside of a Prometheus or OpenMetrics label value
 * (\\, \" escaped; what may not pass as the text \xNN); "" for NULL. */
void cli_label_value(FILE *f, const char *s);

/* Writes a command's manual page in roff (man(7)) to f (man.c). */
void cli_print_roff(FILE *f, const cli_command *cmd);
/* Writes `text`, a manual in the shape of every --help text here, as the
 * man(7) page `title`(`section`); text is cut into lines in place. */
void cli_roff(FILE *f, const char *title, int section, char *text);

/* The command table (main.c), NULL-terminated. */
extern const cli_command *const cli_commands[];

extern const cli_command cli_cmd_dtypes, cli_cmd_promote, cli_cmd_can_cast, cli_cmd_result_type,
    cli_cmd_device, cli_cmd_version, cli_cmd_devices, cli_cmd_ps, cli_cmd_info, cli_cmd_top,
    cli_cmd_topo, cli_cmd_stats, cli_cmd_metrics, cli_cmd_shares;

#endif /* TESSERA_CLI_H */
