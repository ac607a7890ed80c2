/* `tessera`: the command-line front end. Dispatches to the subcommands of
 * the table below and owns the shared option scanning and messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tessera/tessera.h"

const cli_command *const cli_commands[] = {
    &cli_cmd_dtypes,
    &cli_cmd_promote,
    &cli_cmd_can_cast,
    &cli_cmd_result_type,
    &cli_cmd_device,
    &cli_cmd_devices,
    &cli_cmd_info,
    &cli_cmd_ps,
    &cli_cmd_top,
    &cli_cmd_topo,
    &cli_cmd_stats,
    &cli_cmd_version,
    NULL,
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
               "    tessera COMMAND [OPTIONS] [ARGUMENTS]\n"
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

void cli_print_manual(FILE *f, const cli_command *cmd)
{
    fprintf(f, "NAME\n    tessera %s - %s\n\n%s", cmd->name, cmd->summary, cmd->manual);
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

static bool is_negative_number(const char *a)
{
    return a[0] == '-' && ((a[1] >= '0' && a[1] <= '9') || a[1] == '.');
}

/* Finds a value option by name; returns its index or -1. */
static int value_index(const cli_args *args, const char *name, size_t len)
{
    for (int i = 0; args->value_names && args->value_names[i]; i++)
        if (strlen(args->value_names[i]) == len && strncmp(args->value_names[i], name, len) == 0)
            return i;
    return -1;
}

static int flag_index(const cli_args *args, const char *name)
{
    for (int i = 0; args->flag_names && args->flag_names[i]; i++)
        if (strcmp(args->flag_names[i], name) == 0)
            return i;
    return -1;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *args)
{
    bool options_done = false;
    args->npos = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (options_done || a[0] != '-' || a[1] == '\0' || is_negative_number(a)) {
            args->pos[args->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            args->help = true;
        } else if (strcmp(a, "--json") == 0) {
            args->json = true;
        } else if (a[1] == '-' && flag_index(args, a + 2) >= 0) {
            args->flags[flag_index(args, a + 2)] = true;
        } else if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int k = value_index(args, name, len);
            if (k < 0)
                return cli_usage_error(cmd, "unknown option '%s'", a);
            if (eq) {
                args->values[k] = eq + 1;
            } else if (i + 1 < argc) {
                args->values[k] = argv[++i];
            } else {
                return cli_usage_error(cmd, "option '--%s' needs a value", args->value_names[k]);
            }
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", a);
        }
    }
    return EXIT_OK;
}

static int run_version(int argc, char **argv)
{
    char *pos[1];
    cli_args args = {.pos = pos};
    if (argc > 2)
        return cli_usage_error(&cli_cmd_version, "takes no arguments");
    int rc = cli_parse(&cli_cmd_version, argc, argv, &args);
    if (rc != EXIT_OK)
        return rc;
    if (args.help) {
        cli_print_manual(stdout, &cli_cmd_version);
        return EXIT_OK;
    }
    if (args.json)
        printf("{\"version\": \"%s\"}\n", tsr_version_string());
    else
        printf("tessera %s\n", tsr_version_string());
    return EXIT_OK;
}

const cli_command cli_cmd_version = {
    "version", "print the version",
    "SYNOPSIS\n    tessera version [--json]\n\n"
    "DESCRIPTION\n    Prints the version of the Tessera tools and library.\n\n"
    "OPTIONS\n    --json    print {\"version\": \"X.Y.Z\"}\n\n"
    "EXIT STATUS\n    0.\n",
    run_version};

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        print_overview(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        name = "version";
    if (strcmp(name, "help") == 0) {
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
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        fprintf(stderr, "tessera: no such command '%s'; run 'tessera --help'\n", name);
        return EXIT_USAGE;
    }
    return cmd->run(argc - 1, argv + 1);
}
