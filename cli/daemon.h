/* What the commands that ask the daemon share (devices, info, ps, top,
 * topo, stats): connecting, formatting sizes, CSV fields, user names and
 * device arguments.
 *
 * Devices are named as a client program opened now would name them: the
 * numbering of the command's own session, which the daemon's
 * devices.visible decides (TESSERA_VISIBLE_DEVICES is ignored). The
 * administration messages name devices by the daemon's ordinals instead,
 * so a device argument is translated on the way out and every device in a
 * reply on the way back, through the map cli_connect reads. A device the
 * command's session does not see (one a session opened before a reload
 * still uses) is shown by the daemon's ordinal with a star: opencl:3*. */
#ifndef TESSERA_CLI_DAEMON_H
#define TESSERA_CLI_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "tessera/tessera.h"

/* The --socket paragraph of every such manual page. */
#define CLI_SOCKET_HELP                                                        \
    "    -s, --socket PATH\n"                                                  \
    "                   the daemon's socket (default: $TESSERA_SOCKET, else\n" \
    "                   " TSR_DEFAULT_SOCKET ")\n"
/* The paragraph on device names of the commands that show sessions. */
#define CLI_DEVICE_NAMES                                                          \
    "    Devices are named as 'tessera devices' lists them: by the ordinals a\n"  \
    "    client program opened now gets. A device such a program does not see\n"  \
    "    (a session opened before a reload of the daemon's devices.visible may\n" \
    "    still use one) is named by the daemon's ordinal and a star, as\n"        \
    "    opencl:3*.\n\n"
/* The paragraph on text from outside the command (escape.c). */
#define CLI_ESCAPE_HELP                                                           \
    "    Text from outside the command (process and session names, units,\n"      \
    "    cgroups, the drivers' strings) is escaped in every format, so that\n"    \
    "    the output is valid UTF-8 with no control character but the line\n"      \
    "    breaks: in tables and CSV a control character or a byte that is not\n"   \
    "    UTF-8 becomes \\xNN and a backslash \\\\; in JSON such a character or\n" \
    "    byte becomes \\u00NN (the byte 0xNN reads as the character U+00NN,\n"    \
    "    not U+FFFD).\n\n"
/* The options of the commands that print rows (devices, ps). */
#define CLI_ROW_OPTIONS_HELP                                                    \
    "    --no-header    leave out the header line of the table or CSV\n"        \
    "    --no-units     bytes as plain integers and shares as plain numbers\n"  \
    "                   in the table too (CSV and JSON never carry units)\n"    \
    "    -q, --query FIELD,...\n"                                               \
    "                   print only these FIELDS (below), in this order: the\n"  \
    "                   table's columns, the CSV's, or the keys of each JSON\n" \
    "                   object; an unknown field is a usage error that lists\n" \
    "                   them\n"
/* --loop and --count. */
#define CLI_LOOP_HELP                                                           \
    "    -l, --loop SECONDS\n"                                                  \
    "                   print again every SECONDS (a decimal number above 0,\n" \
    "                   at most 86400) until SIGINT or SIGTERM, which end it\n" \
    "                   with exit status 0: tables and text with a blank\n"     \
    "                   line between rounds, CSV with its header once, JSON\n"  \
    "                   as JSON Lines (each round one document on one line).\n" \
    "                   A round that cannot reach the daemon says so on\n"      \
    "                   standard error, and the next round tries again\n"       \
    "    -c, --count N  stop after N rounds of --loop; the exit status is\n"    \
    "                   then 1 when a round failed\n"
#define CLI_DAEMON_EXIT                                                          \
    "EXIT STATUS\n"                                                              \
    "    0 on success; 1 when the daemon cannot be reached or refuses; 2 on a\n" \
    "    usage error.\n\n"

/* Connects to the daemon (--socket, else $TESSERA_SOCKET, else the
 * default) and reads which accelerator type it serves and its ordinal of
 * each accelerator the session sees. Returns -1 to go on with *out open,
 * else the exit status after printing the error. */
int cli_connect(const cli_args *args, tsr_client **out);
/* cli_connect, printing nothing: TSR_OK with *out open, else the status
 * of the call that failed, its message in tsr_last_error() (top's
 * reconnection shows it in its own status line). */
tsr_status cli_try_connect(const cli_args *args, tsr_client **out);

/* One round of a command: prints what it shows now. Returns -1, else the
 * exit status after printing the error (the session is then closed and
 * the next round opens another). */
typedef int (*cli_round_fn)(tsr_client *c, const cli_args *args, void *state);
/* Runs `round` once on a session of its own; under --loop, every
 * loop_seconds until SIGINT or SIGTERM (exit status 0), or --count rounds
 * (0 when each round succeeded, else 1). A round that fails (the daemon
 * gone, say) says so on stderr and the loop goes on; a second SIGINT or
 * SIGTERM ends a round that hangs (loop.c). */
int cli_rounds(const cli_args *args, cli_round_fn round, void *state);

/* "15.6 GiB", "512 B" */
const char *cli_bytes(uint64_t bytes, char *buf, size_t n);
/* The name of a uid, else its number. */
const char *cli_user_name(uint32_t uid, char *buf, size_t n);
/* "opencl:0": a device as the command's session numbers it. */
const char *cli_device_name(tsr_device d, char *buf, size_t n);
/* A device the daemon names by its ordinal (in an administration reply),
 * as the command names it: "opencl:0", or "opencl:3*" when the session
 * does not see the daemon's opencl:3. */
const char *cli_shown_device(tsr_device daemon_device, char *buf, size_t n);
/* The daemon's own name of a device the session sees ("opencl:3"); "-"
 * for cpu and meta, which it does not number. */
const char *cli_daemon_name(const tsr_device_properties *p, char *buf, size_t n);
/* A device argument (cpu, meta, opencl:N, or N for the accelerator N), in
 * the session's numbering. */
int cli_device_arg(const cli_command *cmd, const char *text, tsr_device *out);
/* The daemon's name of a device the session names, for the administration
 * calls. Returns -1, else the exit status after saying the device does
 * not exist. */
int cli_daemon_device(tsr_client *c, tsr_device d, tsr_device *out);
/* The accelerators the session sees (all of the one type the daemon
 * serves, opencl today), its accelerator k, whether a device is of that
 * type, and the daemon's ordinal of its accelerator k (-1 for k out of
 * range). */
int32_t cli_accelerator_count(void);
tsr_device cli_accelerator(int32_t k);
const char *cli_accelerator_name(int32_t k, char *buf, size_t n); /* "opencl:0" */
bool cli_is_accelerator(tsr_device d);
int32_t cli_daemon_ordinal(int32_t k);
/* A JSON string, or null for NULL or "". */
void cli_json_text(const char *s);

/* The keys `tessera devices --json` prints for a device, without braces
 * (daemon_cmds.c; `info` prints them too). */
void cli_print_device_json_fields(const tsr_device_properties *p);

/* The caller's rows of `ps`, `top` and `stats`: every session but the
 * command's own, in id order. *out is malloc'ed; the caller frees it.
 * Returns -1 on success, else the exit status (the error printed). */
int cli_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count);
/* cli_list_sessions, printing nothing: TSR_OK, else the status of the call
 * that failed (its message in tsr_last_error()) or TSR_ERR_OUT_OF_MEMORY. */
tsr_status cli_try_list_sessions(tsr_client *c, tsr_process_info **out, size_t *count);

#endif /* TESSERA_CLI_DAEMON_H */
