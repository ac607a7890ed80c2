/* `tessera shares`: the tensors sessions exported to other processes and
 * who holds them, as a table, JSON or CSV (tessera/share.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/daemon.h"
#include "cli/fields.h"

#define SHARE(row) ((const tsr_share_info *)(row))

static void get_id(const void *row, cli_cell *out)
{
    snprintf(out->buf, sizeof out->buf, "%016" PRIx64, SHARE(row)->id);
    cli_cell_text(out, out->buf);
}

static void get_session(const void *row, cli_cell *out)
{
    cli_cell_number(out, SHARE(row)->session_id);
}

static void get_uid(const void *row, cli_cell *out)
{
    if (SHARE(row)->uid != UINT32_MAX)
        cli_cell_number(out, SHARE(row)->uid);
}

static void get_user(const void *row, cli_cell *out)
{
    if (SHARE(row)->uid != UINT32_MAX)
        cli_cell_text(out, cli_user_name(SHARE(row)->uid, out->buf, sizeof out->buf));
}

static void get_device(const void *row, cli_cell *out)
{
    cli_cell_text(out, cli_shown_device(SHARE(row)->device, out->buf, sizeof out->buf));
}

static void get_bytes(const void *row, cli_cell *out)
{
    cli_cell_bytes(out, SHARE(row)->bytes);
}

static void get_access(const void *row, cli_cell *out)
{
    cli_cell_text(out, SHARE(row)->read_only ? "read-only" : "read-write");
}

/* released: only imports hold it; revoked: no more imports; else open. */
static void get_state(const void *row, cli_cell *out)
{
    const tsr_share_info *s = SHARE(row);
    cli_cell_text(out, s->released ? "released" : s->revoked ? "revoked" : "open");
}

static void get_imports(const void *row, cli_cell *out)
{
    cli_cell_number(out, SHARE(row)->imports);
}

/* "4,7": the sessions holding imports of it. */
static void get_holders(const void *row, cli_cell *out)
{
    const tsr_share_info *s = SHARE(row);
    size_t used = 0;
    out->buf[0] = '\0';
    for (uint32_t k = 0; k < s->holder_count && used < sizeof out->buf; k++)
        used += (size_t)snprintf(out->buf + used, sizeof out->buf - used, "%s%" PRIu32,
                                 k ? "," : "", s->holders[k]);
    cli_cell_text(out, out->buf);
}

#define RIGHT CLI_FIELD_RIGHT

static const cli_field share_fields[] = {
    {"id", "EXPORT", 16, 0, "the export's id (its handle's first part; never the secret)", get_id},
    {"session", "SID", 5, RIGHT, "the exporting session ('tessera ps' lists it)", get_session},
    {"uid", "UID", 6, RIGHT, "the exporter's uid", get_uid},
    {"user", "USER", 8, 0, "the name of its uid", get_user},
    {"device", "DEVICE", 9, 0, "the device the tensor's memory is on", get_device},
    {"bytes", "BYTES", 10, RIGHT, "the size of the exported block", get_bytes},
    {"access", "ACCESS", 10, 0, "read-write, or read-only for importers", get_access},
    {"state", "STATE", 8, 0,
     "open; revoked (no more imports); released (its exporter let go: imports hold it)", get_state},
    {"imports", "IMPORTS", 7, RIGHT, "live imports of it", get_imports},
    {"holders", "HELD BY", 16, 0, "the sessions holding imports of it", get_holders},
    {"", NULL, 0, 0, NULL, NULL},
};

static const char share_table[] = "id,session,user,device,bytes,access,state,imports,holders";
static const char share_data[] = "id,session,uid,user,device,bytes,access,state,imports,holders";

static int shares_round(tsr_client *c, const cli_args *args, void *state)
{
    (void)args;
    cli_view *v = state;
    cli_view_begin(v);
    uint64_t after = 0;
    for (bool more = true; more;) {
        tsr_share_info s;
        tsr_status st = tsr_admin_share_list(c, after, &s, &more);
        if (st == TSR_ERR_INDEX)
            break;
        if (st != TSR_OK)
            return cli_fail(tsr_last_error());
        cli_view_row(v, &s, false);
        after = s.id;
    }
    cli_view_end(v);
    return -1;
}

static int run_shares(const cli_args *args)
{
    cli_view v;
    int rc = cli_view_init(&v, &cli_cmd_shares, args, share_table, share_data);
    return rc >= 0 ? rc : cli_rounds(args, shares_round, &v);
}

const cli_command cli_cmd_shares = {
    "shares",
    "list the tensors exported to other processes and who holds them",
    "SYNOPSIS\n"
    "    tessera shares [-j | --csv] [--no-header] [--no-units] [-q FIELD,...]\n"
    "                   [-l SECONDS [-c N]] [-s PATH]\n\n"
    "DESCRIPTION\n"
    "    Lists the exports of tesserad's sessions (tsr_tensor_export), one row\n"
    "    each: its id, the exporting session and its user, the device and\n"
    "    size of the memory, whether importers may write it, its state, and\n"
    "    the sessions holding imports of it (numbers 'tessera ps' lists).\n\n"
    "    An export is 'open' while its exporter holds the tensor and imports\n"
    "    are still taken, 'revoked' when tsr_export_revoke refused later\n"
    "    imports, and 'released' once the exporter freed the tensor or ended\n"
    "    while imports still hold it: the memory then stays, counted for the\n"
    "    exporter's uid (whose session 'tessera ps' shows as ending), until\n"
    "    the last import is released.\n\n"
    "    Every export is listed; its user is shown to root, to members of\n"
    "    the group tessera-admin and to the exporter's own uid only.\n\n" CLI_DEVICE_NAMES
        CLI_ESCAPE_HELP "OPTIONS\n"
    "    -j, --json     print an array of objects with the keys id, session,\n"
    "                   uid, user, device, bytes, access, state, imports and\n"
    "                   holders (null where not visible)\n"
    "    --csv          print a header line, then one line per export with the\n"
    "                   same columns\n" CLI_ROW_OPTIONS_HELP CLI_LOOP_HELP CLI_SOCKET_HELP
    "\n" CLI_DAEMON_EXIT "EXAMPLES\n"
    "    tessera shares\n"
    "    tessera shares --json | jq '.[] | select(.state == \"released\")'\n",
    CLI_ROW_OPTIONS | CLI_LOOP_OPTIONS | CLI_OPT(SOCKET),
    0,
    0,
    run_shares,
    share_fields};
