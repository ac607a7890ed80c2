/* What the commands that ask the daemon share (devices, info, ps, top,
 * topo, stats): connecting, formatting sizes, CSV fields, user names and
 * device arguments. They see devices as the daemon numbers them, whatever
 * TESSERA_VISIBLE_DEVICES says (an administrator's view, as nvidia-smi's). */
#ifndef TESSERA_CLI_DAEMON_H
#define TESSERA_CLI_DAEMON_H

#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "tessera/tessera.h"

/* The --socket paragraph of every such manual page. */
#define CLI_SOCKET_HELP                                                                           \
    "    --socket PATH  the daemon's socket (default: $TESSERA_SOCKET, else\n"                     \
    "                   " TSR_DEFAULT_SOCKET ")\n"
#define CLI_DAEMON_EXIT                                                                           \
    "EXIT STATUS\n"                                                                               \
    "    0 on success; 1 when the daemon cannot be reached or refuses; 2 on a\n"                    \
    "    usage error.\n\n"

/* Parses argv with args (whose flag_names the caller sets; --socket is
 * added here), prints the manual for --help, refuses more than max_pos
 * positional arguments, and connects. Returns -1 to go on with *out open,
 * else the exit status. */
int cli_connect(const cli_command *cmd, int argc, char **argv, cli_args *args, int max_pos,
                tsr_client **out);

/* "15.6 GiB", "512 B" */
const char *cli_bytes(uint64_t bytes, char *buf, size_t n);
/* An RFC 4180 field: quoted when it holds a comma, quote or line break. */
void cli_csv_field(FILE *f, const char *s);
/* The name of a uid, else its number. */
const char *cli_user_name(uint32_t uid, char *buf, size_t n);
/* "opencl:0" */
const char *cli_device_name(tsr_device d, char *buf, size_t n);
/* A device argument as the daemon numbers it (cpu, meta, opencl:N, N). */
int cli_device_arg(const cli_command *cmd, const char *text, tsr_device *out);
/* A JSON string, or null for NULL or "". */
void cli_json_text(const char *s);

/* The keys `tessera devices --json` prints for a device, without braces
 * (daemon_cmds.c; `info` prints them too). */
void cli_print_device_json_fields(const tsr_device_properties *p);

/* The caller's rows of `ps`, `top` and `stats`: every session but the
 * command's own, in id order. *out is malloc'ed; the caller frees it.
 * Returns -1 on success, else the exit status (the error printed). */
int cli_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count);

#endif /* TESSERA_CLI_DAEMON_H */
