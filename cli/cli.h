/* The `tessera` command: shared declarations.
 *
 * Every subcommand is one row of the command table in main.c: its name,
 * a one-line summary, a manual page (the text --help prints, and the
 * source of docs/man), and the function that runs it. Subcommands print
 * results on stdout and errors on stderr as "tessera: error: ...".
 * Exit status: 0 success, 1 the operation failed (PyTorch would raise),
 * 2 bad usage. */
#ifndef TESSERA_CLI_H
#define TESSERA_CLI_H

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *manual; /* SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES */
    int (*run)(int argc, char **argv);
} cli_command;

/* Option scanning shared by the subcommands: "--json", "-h/--help" and
 * "--name=value" / "--name value". Positional arguments are left in argv
 * order in `pos`. An argument that starts with '-' followed by a digit or
 * '.' is positional (a negative number), and "--" ends the options. */
typedef struct cli_args {
    bool json;
    bool help;
    int npos;
    char **pos;
    /* value options a command accepts, by name without the dashes */
    const char *const *value_names;
    const char **values; /* parallel to value_names, NULL when absent */
    /* boolean options a command accepts ("csv", "once", ...) */
    const char *const *flag_names;
    bool *flags; /* parallel to flag_names */
} cli_args;

/* Returns EXIT_OK, or EXIT_USAGE after printing what was wrong. */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *args);

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

/* Writes a command's manual page in roff (man(7)) to f (man.c). */
void cli_print_roff(FILE *f, const cli_command *cmd);
/* Writes `text`, a manual in the shape of every --help text here, as the
 * man(7) page `title`(`section`); text is cut into lines in place. */
void cli_roff(FILE *f, const char *title, int section, char *text);

/* The command table (main.c), NULL-terminated. */
extern const cli_command *const cli_commands[];

extern const cli_command cli_cmd_dtypes, cli_cmd_promote, cli_cmd_can_cast, cli_cmd_result_type,
    cli_cmd_device, cli_cmd_version, cli_cmd_devices, cli_cmd_ps, cli_cmd_info, cli_cmd_top,
    cli_cmd_topo, cli_cmd_stats;

#endif /* TESSERA_CLI_H */
