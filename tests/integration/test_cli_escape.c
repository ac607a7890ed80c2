/* A client's bytes never reach the terminal raw: a client renames itself
 * (prctl(PR_SET_NAME), which is what `ps` shows as its command) and its
 * session to text with escape sequences (cursor home, a window title with
 * its BEL), a byte that is not UTF-8, a C1 control and CSV's comma and
 * quote. Every output of `ps`, `top` and `stats` must hold no control byte
 * but the line breaks, decode as UTF-8, and give the name back as
 * docs/cli.md says: exact in JSON (the invalid byte as U+00FF), escaped
 * as \xNN in tables and CSV. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "test.h"
#include "test_cli_support.h"

/* 14 bytes: /proc/PID/comm keeps 15. */
#define HOSTILE "\x1b[H\x1b]0;x\x07\xff\xc2\x9b,\""
#define HOSTILE_ESCAPED "\\x1b[H\\x1b]0;x\\x07\\xff\\xc2\\x9b,\""

static char out[1 << 16];

/* No control byte but the line break; and the whole of it UTF-8. */
static void check_clean(const char *what)
{
    for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f) {
            fprintf(stderr, "%s: raw control byte 0x%02x at offset %td in:\n%s\n", what, *p,
                    (const char *)p - out, out);
            ASSERT_TRUE(false);
            return;
        }
    }
    ASSERT_TRUE(
        cli_python_ok(what, "import sys; sys.stdin.buffer.read().decode('utf-8')", out, NULL));
}

static const char json_check[] =
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "want = '\\x1b[H\\x1b]0;x\\x07\\xff\\x9b,\"'\n"
    "assert len(data) == 1, data\n"
    "assert data[0]['command'] == want and data[0]['name'] == want, data\n";

static const char csv_check[] = "import csv, sys\n"
                                "rows = list(csv.DictReader(sys.stdin))\n"
                                "assert len(rows) == 1, rows\n"
                                "assert rows[0]['command'] == sys.argv[1], rows\n";

static void run(const char *what, const char *a0, const char *a1)
{
    const char *args[] = {a0, a1, NULL};
    out[0] = '\0';
    ASSERT_EQ(test_run_cli(out, sizeof out, args), 0);
    check_clean(what);
}

int main(int argc, char **argv)
{
    /* Named after exec, which names the process after its file, and
     * before the session opens, when the daemon reads the name. */
    int holder = cli_holder_mode(argc, argv, HOSTILE);
    if (holder >= 0)
        return holder;
    if (access(PYTHON, X_OK) != 0)
        TEST_SKIP("%s is needed to read the JSON and CSV back", PYTHON);
    test_daemon d;
    if (test_daemon_start(&d, NULL) != 0)
        return 1;
    char pid[1][16];
    pid_t kids[1];
    ASSERT_TRUE(cli_start_holders(d.dir, 1, NULL, kids, pid));

    run("ps", "ps", NULL);
    ASSERT_TRUE(strstr(out, "\\x1b[H\\x1b]0;x ") != NULL); /* cut to 15 columns */
    run("ps --json", "ps", "--json");
    ASSERT_TRUE(cli_python_ok("ps --json", json_check, out, NULL));
    run("ps --csv", "ps", "--csv");
    const char *csv_args[] = {HOSTILE_ESCAPED, NULL};
    ASSERT_TRUE(cli_python_ok("ps --csv", csv_check, out, csv_args));
    run("top --once", "top", "--once");
    ASSERT_TRUE(strstr(out, "\\x1b[H\\x1b]0;x") != NULL);
    run("stats", "stats", NULL);
    ASSERT_TRUE(strstr(out, HOSTILE_ESCAPED) != NULL);
    run("stats --json", "stats", "--json");

    ASSERT_TRUE(cli_stop_holders(d.dir, 1, kids));
    if (test__failed)
        test_daemon_dump_log(&d);
    ASSERT_EQ(test_daemon_stop(&d), 0);
    TEST_DONE();
}
