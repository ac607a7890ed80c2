/* docs/protocol.md against the code: every message of TSR__WIRE_OPS has a
 * section headed "### NAME (opcode N)" whose summary line states the
 * transports and payload sizes the table gives, and a row in the overview
 * table; no section describes a message the table lacks; every status
 * code of TSR_STATUS_LIST is listed with its value; every place that
 * states the protocol version states TSR__WIRE_VERSION (and _MIN).
 *
 *   protocol-doc PATH/TO/docs/protocol.md */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/protocol.h"
#include "test.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
            size = fread(text, 1, (size_t)n, f);
            text[size] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* The line that is exactly `line`, or NULL. */
static const char *find_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return p;
    return NULL;
}

/* The section starting at `heading`, up to the next heading. */
static size_t section_length(const char *heading)
{
    const char *end = heading + 1;
    while ((end = strchr(end, '\n')) != NULL) {
        end++;
        if (*end == '#')
            break;
    }
    return end ? (size_t)(end - heading) : strlen(heading);
}

static void check_message(const char *doc, const char *name, uint32_t code)
{
    const tsr__wire_op_info *op = tsr__wire_op(code);
    ASSERT_TRUE(op != NULL && strcmp(op->name, name) == 0);
    if (!op)
        return;
    char want[256];
    snprintf(want, sizeof want, "### %s (opcode %u)", name, (unsigned)code);
    const char *heading = find_line(doc, want);
    if (!heading)
        fprintf(stderr, "docs/protocol.md has no heading \"%s\"\n", want);
    ASSERT_TRUE(heading != NULL);
    if (heading) {
        snprintf(want, sizeof want,
                 "Travels: %s. Request payload: %u bytes. Reply payload: %u bytes.",
                 (op->transports & TSR__WIRE_RING) ? "socket or ring" : "socket only",
                 (unsigned)op->request_size, (unsigned)op->reply_size);
        size_t len = section_length(heading);
        const char *line = find_line(heading, want);
        if (!line || line >= heading + len)
            fprintf(stderr, "the %s section lacks the line \"%s\"\n", name, want);
        ASSERT_TRUE(line != NULL && line < heading + len);
        /* Whether a monitoring connection may send it (HELLO's MONITOR). */
        const char *monitors = "A monitoring connection may send it.";
        line = find_line(heading, monitors);
        bool said = line && line < heading + len;
        if (said != ((op->transports & TSR__WIRE_MONITOR) != 0))
            fprintf(stderr, "the %s section %s the line \"%s\"\n", name,
                    said ? "wrongly has" : "lacks", monitors);
        ASSERT_EQ(said, (op->transports & TSR__WIRE_MONITOR) != 0);
    }
    snprintf(want, sizeof want, "| %u | `%s` | %u | %u", (unsigned)code, name,
             (unsigned)op->request_size, (unsigned)op->reply_size);
    if (!strstr(doc, want))
        fprintf(stderr, "the message table lacks a row starting \"%s\"\n", want);
    ASSERT_TRUE(strstr(doc, want) != NULL);
}

/* Every "### X (opcode N)" heading names a message of the table. */
static void check_no_stale_sections(const char *doc)
{
    for (const char *p = doc; (p = strstr(p, "\n### ")) != NULL; p++) {
        const char *open = strstr(p, " (opcode ");
        const char *eol = strchr(p + 1, '\n');
        if (!open || (eol && open > eol))
            continue;
        unsigned code = (unsigned)strtoul(open + 9, NULL, 10);
        const tsr__wire_op_info *op = tsr__wire_op(code);
        size_t name_len = (size_t)(open - (p + 5));
        bool known = op && strlen(op->name) == name_len && memcmp(op->name, p + 5, name_len) == 0;
        if (!known)
            fprintf(stderr, "docs/protocol.md describes a message the table lacks: %.*s\n",
                    (int)(eol ? eol - p - 1 : 40), p + 1);
        ASSERT_TRUE(known);
    }
}

static void check_status(const char *doc, const char *name, int value)
{
    char row[128];
    snprintf(row, sizeof row, "| %d | `%s` |", value, name);
    if (!strstr(doc, row))
        fprintf(stderr, "the status table lacks the row \"%s\"\n", row);
    ASSERT_TRUE(strstr(doc, row) != NULL);
}

/* The version as the page states it: on its own line near the top, in the
 * frame header's table, in the checks' table and in the ring header. */
static void check_versions(const char *doc)
{
    const unsigned v = TSR__WIRE_VERSION, min = TSR__WIRE_VERSION_MIN;
    char want[5][128];
    snprintf(want[0], sizeof want[0], "Protocol version: **%u** (`TSR__WIRE_VERSION`).", v);
    snprintf(want[1], sizeof want[1],
             "The oldest version either side accepts: **%u** (`TSR__WIRE_VERSION_MIN`).", min);
    snprintf(want[2], sizeof want[2], "the protocol version of the sender's build: %u |", v);
    snprintf(want[3], sizeof want[3], "within the receiver's range (%u to %u)", min, v);
    snprintf(want[4], sizeof want[4], "the protocol version (%u), written by the daemon |", v);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(doc, want[i]))
            fprintf(stderr, "docs/protocol.md lacks \"%s\"\n", want[i]);
        ASSERT_TRUE(strstr(doc, want[i]) != NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s docs/protocol.md\n", argv[0]);
        return 2;
    }
    char *doc = read_all(argv[1]);
    ASSERT_TRUE(doc != NULL);
    if (!doc)
        TEST_DONE();
#define CHECK_MESSAGE(op, code, req, rep, where, summary) check_message(doc, #op, code);
    TSR__WIRE_OPS(CHECK_MESSAGE)
#undef CHECK_MESSAGE
    check_no_stale_sections(doc);
#define CHECK_STATUS(name, value, text) check_status(doc, #name, value);
    TSR_STATUS_LIST(CHECK_STATUS)
#undef CHECK_STATUS
    check_versions(doc);
    free(doc);
    TEST_DONE();
}
