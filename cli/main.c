/* `tessera`: the command-line front end. Dispatches to the subcommands of
 * the table below and owns the shared option scanning and messages. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fields.h"
#include "tessera/tessera.h"

const cli_command *const cli_commands[] = {
    &cli_cmd_dtypes,  &cli_cmd_promote, &cli_cmd_can_cast, &cli_cmd_result_type, &cli_cmd_device,
    &cli_cmd_devices, &cli_cmd_info,    &cli_cmd_ps,       &cli_cmd_top,         &cli_cmd_topo,
    &cli_cmd_stats,   &cli_cmd_metrics, &cli_cmd_shares,   &cli_cmd_version,     NULL,
};
#define NCOMMANDS (sizeof(cli_commands) / sizeof(cli_commands[0]) - 1)

/* tessera help --roff TITLE SECTION: the manual on standard input (at
 * most 1 MiB) as a man(7) page. */
static int roff_from_stdin(int argc, char **argv)
{
    char *end = NULL;
    long section = argc == 5 ? strtol(argv[4], &end, 10) : 0;
    if (argc != 5 || !end || *end != '\0' || section < 1 || section > 9 || argv[3][0] == '\0' ||
        strlen(argv[3]) > 60) {
        fprintf(stderr, "tessera: usage: tessera help --roff TITLE SECTION < TEXT "
                        "(SECTION 1 to 9)\n");
        return EXIT_USAGE;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, stdin);
    if (ferror(stdin) || !feof(stdin)) {
        fprintf(stderr, "tessera: help --roff: %s\n",
                ferror(stdin) ? "cannot read standard input" : "the text is over 1 MiB");
        return EXIT_FAILED;
    }
    text[n] = '\0';
    cli_roff(stdout, argv[3], (int)section, text);
    return EXIT_OK;
}

static void print_overview(FILE *f)
{
    fprintf(f, "NAME\n"
               "    tessera - inspect Tessera's devices and tensor semantics\n\n"
               "SYNOPSIS\n"
               "    tessera [-s PATH] [-j | --csv] [--no-header] [--no-units] COMMAND\n"
               "            [OPTIONS] [ARGUMENTS]\n"
               "    tessera help [--man] [COMMAND]\n"
               "    tessera help --roff TITLE SECTION < TEXT\n"
               "    tessera --version\n\n"
               "DESCRIPTION\n"
               "    Tessera is a device runtime whose tensors behave as PyTorch's. Some\n"
               "    commands below answer questions about its semantics exactly as PyTorch\n"
               "    would, with PyTorch's error messages; devices, info, ps, top, topo and\n"
               "    stats ask the running daemon, tesserad, what it serves.\n\n"
               "COMMANDS\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "    %-13s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(f, "\n    Run 'tessera COMMAND --help' for a command's manual; 'tessera help --man\n"
               "    COMMAND' prints it as a man(7) page, and 'tessera help --man' this\n"
               "    overview. 'tessera help --roff TITLE SECTION' turns any manual in the\n"
               "    shape of these (tesserad --help, tessera-bench --help) read from\n"
               "    standard input into the page TITLE(SECTION).\n\n"
               "OPTIONS\n"
               "    Options go before the command name or after it, in the forms\n"
               "    --name=value, --name value and -x value; '--' ends them, and a\n"
               "    negative number is an argument, not an option. Before the command\n"
               "    name go the options many commands share: -s, --socket PATH; -j,\n"
               "    --json; --csv; --no-header; --no-units. A command refuses one it\n"
               "    does not take, and --json with --csv, as usage errors.\n\n"
               "EXIT STATUS\n"
               "    0 on success, 1 when the operation fails (where PyTorch raises an\n"
               "    error), 2 on a usage error.\n\n"
               "SEE ALSO\n"
               "    tesserad(8), tesserad.conf(5), tessera-bench(1), and tessera-COMMAND(1)\n"
               "    for each command above.\n");
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cli_commands[i]->name, name) == 0)
            return cli_commands[i];
    return NULL;
}

/* The FIELDS section of a command that has --query goes before EXIT STATUS. */
void cli_print_manual(FILE *f, const cli_command *cmd)
{
    const char *exit_status = cmd->fields ? strstr(cmd->manual, "\nEXIT STATUS\n") : NULL;
    int head = exit_status ? (int)(exit_status - cmd->manual) + 1 : (int)strlen(cmd->manual);
    fprintf(f, "NAME\n    tessera %s - %s\n\n%.*s", cmd->name, cmd->summary, head, cmd->manual);
    if (exit_status) {
        cli_print_fields(f, cmd->fields);
        fputs(cmd->manual + head, f);
    }
}

int cli_fail(const char *msg)
{
    fprintf(stderr, "tessera: error: %s\n", msg);
    return EXIT_FAILED;
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tessera %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun 'tessera %s --help' for usage.\n", cmd->name);
    return EXIT_USAGE;
}

static const struct {
    const char *name;
    char letter;
    bool value;
} options[CLI_OPTION_COUNT] = {
#define CLI_OPTION_ROW(id, n, l, v) [CLI_OPT_##id] = {n, l, v},
    CLI_OPTIONS(CLI_OPTION_ROW)
#undef CLI_OPTION_ROW
};

/* getopt_long reports a long option by this code plus its number, so that
 * an error about it can name it even when it has a letter. */
#define LONG_CODE 256

const char *cli_option_name(cli_option o)
{
    return options[o].name;
}

static bool is_negative_number(const char *a)
{
    return a[0] == '-' && ((a[1] >= '0' && a[1] <= '9') || a[1] == '.');
}

/* "+" stops at the first argument that is not an option (the command
 * name, a positional argument); ":" reports a missing value as ':'. */
static void getopt_tables(char *letters, struct option *longs)
{
    size_t n = 0;
    letters[n++] = '+';
    letters[n++] = ':';
    for (int o = 0; o < CLI_OPTION_COUNT; o++) {
        longs[o] =
            (struct option){options[o].name, options[o].value ? required_argument : no_argument,
                            NULL, LONG_CODE + o};
        if (options[o].letter && !memchr(letters, options[o].letter, n)) {
            letters[n++] = options[o].letter;
            if (options[o].value)
                letters[n++] = ':';
        }
    }
    letters[n] = '\0';
    longs[CLI_OPTION_COUNT] = (struct option){NULL, 0, NULL, 0};
}

/* The option of a letter: the one the command takes where two share it
 * (cmd NULL: before the command name, the first). */
static int option_of_letter(const cli_command *cmd, int c)
{
    int first = -1;
    for (int o = 0; o < CLI_OPTION_COUNT; o++) {
        if (!options[o].letter || options[o].letter != c)
            continue;
        if (cmd && (cmd->options & (1u << o)))
            return o;
        if (first < 0)
            first = o;
    }
    return first;
}

/* Prints a usage error of the command `cmd`, or of tessera itself before
 * the command name (cmd NULL). */
static int usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage_error(const cli_command *cmd, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (cmd)
        return cli_usage_error(cmd, "%s", text);
    fprintf(stderr, "tessera: %s\nRun 'tessera --help' for usage.\n", text);
    return EXIT_USAGE;
}

/* What getopt_long refused: an unknown, ambiguous or misused option. */
static int option_error(const cli_command *cmd, int c, const char *arg)
{
    if (c == ':')
        return optopt >= LONG_CODE ? usage_error(cmd, "option '--%s' needs a value",
                                                 options[optopt - LONG_CODE].name)
                                   : usage_error(cmd, "option '-%c' needs a value", optopt);
    if (optopt >= LONG_CODE)
        return usage_error(cmd, "option '--%s' takes no value", options[optopt - LONG_CODE].name);
    if (optopt)
        return usage_error(cmd, "unknown option '-%c'", optopt);
    /* A long option: unknown, or the start of several. */
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int matches = 0;
    for (int o = 0; o < CLI_OPTION_COUNT; o++)
        matches += strncmp(options[o].name, name, len) == 0;
    return usage_error(cmd, "%s option '%s'", matches > 1 ? "ambiguous" : "unknown", arg);
}

/* Scans argv[1..argc-1] into args: options anywhere, positional arguments
 * in order, or, for the options before the command name (cmd NULL), up to
 * the first argument that is not an option. Returns -1 to go on, else the
 * exit status. Each call starts getopt afresh: it never stops inside a
 * group of letters ("-ja"). */
static int scan(const cli_command *cmd, int argc, char **argv, cli_args *args)
{
    char letters[2 + 2 * CLI_OPTION_COUNT + 1];
    struct option longs[CLI_OPTION_COUNT + 1];
    getopt_tables(letters, longs);
    opterr = 0;
    optind = 1;
    bool inside_group = false;
    while (optind < argc) {
        char *a = argv[optind];
        if (!inside_group) {
            if (strcmp(a, "--") == 0 && cmd) {
                for (optind++; optind < argc; optind++)
                    args->pos[args->npos++] = argv[optind];
                break;
            }
            if (a[0] != '-' || a[1] == '\0' || is_negative_number(a)) {
                if (!cmd)
                    break; /* the command name */
                args->pos[args->npos++] = a;
                optind++;
                continue;
            }
        }
        int before = optind;
        int c = getopt_long(argc, argv, letters, longs, NULL);
        if (c == -1)
            break;
        inside_group = optind == before;
        if (c == '?' || c == ':')
            return option_error(cmd, c, argv[optind - 1]);
        int o = c >= LONG_CODE ? c - LONG_CODE : option_of_letter(cmd, c);
        args->given |= 1u << o;
        if (options[o].value)
            args->value[o] = optarg;
    }
    return -1;
}

/* --loop SECONDS: a decimal number above 0, at most a day. */
static int parse_loop(const cli_command *cmd, const char *text, double *out)
{
    char *end = NULL;
    double v = strspn(text, "0123456789.") == strlen(text) ? strtod(text, &end) : 0;
    if (!end || end == text || *end || !(v > 0 && v <= 86400))
        return cli_usage_error(cmd,
                               "--loop takes a number of seconds above 0 and at most 86400, "
                               "not '%s'",
                               text);
    *out = v;
    return -1;
}

/* --count N: 1 to 1000000000 rounds. */
static int parse_count(const cli_command *cmd, const char *text, unsigned long *out)
{
    char *end = NULL;
    unsigned long v = strspn(text, "0123456789") == strlen(text) ? strtoul(text, &end, 10) : 0;
    if (!end || end == text || *end || v == 0 || v > 1000000000ul)
        return cli_usage_error(cmd,
                               "--count takes a number of rounds from 1 to 1000000000, not "
                               "'%s'",
                               text);
    *out = v;
    return -1;
}

/* The checks every command's line gets, in this order: conflicting
 * formats, options the command does not take, the number of positional
 * arguments, and the values of --loop and --count. */
static int check_args(const cli_command *cmd, cli_args *args)
{
    if (cli_given(args, CLI_OPT_JSON) && cli_given(args, CLI_OPT_CSV))
        return cli_usage_error(cmd, "--json and --csv conflict: choose one output format");
    unsigned refused = args->given & ~(cmd->options | CLI_OPT(HELP));
    for (int o = 0; o < CLI_OPTION_COUNT; o++)
        if (refused & (1u << o))
            return cli_usage_error(cmd, "option '--%s' does not apply to this command",
                                   options[o].name);
    if (args->npos > cmd->max_args && cmd->min_args == cmd->max_args && cmd->max_args > 0)
        return cli_usage_error(cmd, "expects %d argument%s, got %d", cmd->max_args,
                               cmd->max_args == 1 ? "" : "s", args->npos);
    if (args->npos > cmd->max_args)
        return cli_usage_error(cmd, "unexpected argument '%s'", args->pos[cmd->max_args]);
    if (args->npos < cmd->min_args)
        return cli_usage_error(cmd, "expects %s%d argument%s, got %d",
                               cmd->min_args == cmd->max_args ? "" : "at least ", cmd->min_args,
                               cmd->min_args == 1 ? "" : "s", args->npos);
    if (cli_given(args, CLI_OPT_COUNT) && !cli_given(args, CLI_OPT_LOOP))
        return cli_usage_error(cmd, "--count needs --loop");
    int rc = -1;
    if (cli_given(args, CLI_OPT_LOOP))
        rc = parse_loop(cmd, args->value[CLI_OPT_LOOP], &args->loop_seconds);
    if (rc < 0 && cli_given(args, CLI_OPT_COUNT))
        rc = parse_count(cmd, args->value[CLI_OPT_COUNT], &args->count);
    return rc;
}

/* Parses the command's own part of the line (argv[0] is its name) on top
 * of the options given before it, prints the manual for --help, checks
 * the line and runs the command. */
static int run_command(const cli_command *cmd, int argc, char **argv, cli_args *args)
{
    int rc = scan(cmd, argc, argv, args);
    if (rc >= 0)
        return rc;
    if (cli_given(args, CLI_OPT_HELP)) {
        cli_print_manual(stdout, cmd);
        return EXIT_OK;
    }
    rc = check_args(cmd, args);
    return rc >= 0 ? rc : cmd->run(args);
}

static int run_version(const cli_args *args)
{
    if (cli_given(args, CLI_OPT_JSON))
        printf("{\"version\": \"%s\"}\n", tsr_version_string());
    else
        printf("tessera %s\n", tsr_version_string());
    return EXIT_OK;
}

const cli_command cli_cmd_version = {
    "version",
    "print the version",
    "SYNOPSIS\n    tessera version [--json]\n    tessera --version [--json]\n\n"
    "DESCRIPTION\n    Prints the version of the Tessera tools and library.\n\n"
    "OPTIONS\n    -j, --json     print {\"version\": \"X.Y.Z\"}\n\n"
    "EXIT STATUS\n    0; 2 on a usage error.\n",
    CLI_OPT(JSON),
    0,
    0,
    run_version,
    NULL};

/* tessera help [--man [COMMAND] | COMMAND | --roff TITLE SECTION]; argv[1]
 * is "help". */
static int run_help(int argc, char **argv)
{
    if (argc < 3) {
        print_overview(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[2], "--roff") == 0)
        return roff_from_stdin(argc, argv);
    if (strcmp(argv[2], "--man") == 0 && argc == 3) {
        char *text = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&text, &size);
        if (!m)
            return cli_fail("out of memory");
        print_overview(m);
        fclose(m);
        cli_roff(stdout, "tessera", 1, text);
        free(text);
        return EXIT_OK;
    }
    bool roff = strcmp(argv[2], "--man") == 0 && argc > 3;
    const cli_command *cmd = find_command(argv[roff ? 3 : 2]);
    if (!cmd) {
        fprintf(stderr, "tessera: no such command '%s'; run 'tessera --help'\n",
                argv[roff ? 3 : 2]);
        return EXIT_USAGE;
    }
    if (roff)
        cli_print_roff(stdout, cmd);
    else
        cli_print_manual(stdout, cmd);
    return EXIT_OK;
}

/* The command line after the program's name, parsed into *args. */
static int run(int argc, char **argv, cli_args *args)
{
    /* The options before the command name. */
    int rc = scan(NULL, argc, argv, args);
    if (rc >= 0)
        return rc;
    int first = optind;
    if (cli_given(args, CLI_OPT_HELP)) {
        print_overview(stdout);
        return EXIT_OK;
    }
    unsigned misplaced = args->given & ~(CLI_GLOBAL_OPTIONS | CLI_OPT(VERSION));
    for (int o = 0; o < CLI_OPTION_COUNT; o++)
        if (misplaced & (1u << o))
            return usage_error(NULL, "option '--%s' goes after the command name", options[o].name);
    if (cli_given(args, CLI_OPT_VERSION)) {
        /* tessera --version ...: the version command; argv[first - 1] is
         * skipped as a command's name would be. */
        args->given &= ~CLI_OPT(VERSION);
        return run_command(&cli_cmd_version, argc - first + 1, argv + first - 1, args);
    }
    if (first >= argc)
        return usage_error(NULL, "a command is needed after the options");
    const char *name = argv[first];
    if (strcmp(name, "help") == 0) {
        if (args->given)
            return usage_error(NULL, "'help' takes no options before it");
        return run_help(argc - first + 1, argv + first - 1);
    }
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        fprintf(stderr, "tessera: no such command '%s'; run 'tessera --help'\n", name);
        return EXIT_USAGE;
    }
    return run_command(cmd, argc - first, argv + first, args);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    cli_args args = {.pos = calloc((size_t)argc, sizeof(char *))};
    if (!args.pos)
        return cli_fail("out of memory");
    int rc = run(argc, argv, &args);
    free(args.pos);
    return rc;
}
