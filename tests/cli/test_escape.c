/* cli/escape.c's writers, case by case: what passes (ASCII, valid
 * UTF-8 of every length), what is escaped (C0, DEL, C1, and each kind of
 * invalid UTF-8: stray continuation, overlong, surrogate, past U+10FFFF,
 * cut short), CSV's quoting, metrics' label values, and how tables cut
 * text to a width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "test.h"

static const struct {
    const char *in, *json, *csv, *table, *label;
} cases[] = {
    {"plain", "\"plain\"", "plain", "plain", "plain"},
    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
    {"a\x1b[2Jb\n\t\x7f", "\"a\\u001b[2Jb\\u000a\\u0009\\u007f\"", "a\\x1b[2Jb\\x0a\\x09\\x7f",
     "a\\x1b[2Jb\\x0a\\x09\\x7f", "a\\\\x1b[2Jb\\\\x0a\\\\x09\\\\x7f"},
    {"\302\2331m", "\"\\u009b1m\"", "\\xc2\\x9b1m", "\\xc2\\x9b1m",
     "\\\\xc2\\\\x9b1m"}, /* C1 CSI */
    {"\xff\x80", "\"\\u00ff\\u0080\"", "\\xff\\x80", "\\xff\\x80", "\\\\xff\\\\x80"},
    {"\xc0\xaf", "\"\\u00c0\\u00af\"", "\\xc0\\xaf", "\\xc0\\xaf",
     "\\\\xc0\\\\xaf"}, /* overlong '/' */
    {"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "\\xed\\xa0\\x80", "\\xed\\xa0\\x80",
     "\\\\xed\\\\xa0\\\\x80"}, /* surrogate */
    {"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"", "\\xf4\\x90\\x80\\x80",
     "\\xf4\\x90\\x80\\x80", "\\\\xf4\\\\x90\\\\x80\\\\x80"}, /* past U+10FFFF */
    {"\xe2\x82", "\"\\u00e2\\u0082\"", "\\xe2\\x82", "\\xe2\\x82",
     "\\\\xe2\\\\x82"}, /* cut short */
    {"a\\b\"c", "\"a\\\\b\\\"c\"", "\"a\\\\b\"\"c\"", "a\\\\b\"c", "a\\\\b\\\"c"},
    {"x,y", "\"x,y\"", "\"x,y\"", "x,y", "x,y"},
};

static char *capture(void (*write)(FILE *, const char *), const char *in)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    write(f, in);
    fclose(f);
    return text;
}

/* The width the table writer below cuts and pads to; -1: no limit. */
static int table_width = -1;

static void table_all(FILE *f, const char *s)
{
    cli_table_text(f, s, table_width, table_width >= 0);
}

int main(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *json = capture(json_string, cases[k].in);
        char *csv = capture(cli_csv_field, cases[k].in);
        char *table = capture(table_all, cases[k].in);
        char *label = capture(cli_label_value, cases[k].in);
        ASSERT_STREQ(json, cases[k].json);
        ASSERT_STREQ(csv, cases[k].csv);
        ASSERT_STREQ(table, cases[k].table);
        ASSERT_STREQ(label, cases[k].label);
        free(json);
        free(csv);
        free(table);
        free(label);
    }
    char *null_json = capture(json_string, NULL);
    ASSERT_STREQ(null_json, "null");
    free(null_json);

    /* Cut at whole characters and escapes, then padded to the width. */
    static const struct {
        int width;
        const char *in, *out;
    } cuts[] = {
        {5, "ab\033cd", "ab   "},
        {6, "ab\033cd", "ab\\x1b"},
        {3, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9"},
        {4, "a", "a   "},
    };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        table_width = cuts[k].width;
        char *table = capture(table_all, cuts[k].in);
        ASSERT_STREQ(table, cuts[k].out);
        free(table);
    }
    TEST_DONE();
}
