/* The two files written from the key table must match it: the key
 * reference in docs/configuration.md (between its BEGIN and END markers)
 * and the sample configuration systemd/tesserad.conf.
 *
 *   config-docs DOC SAMPLE            check both
 *   config-docs --write DOC SAMPLE    rewrite both from the table */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/support_config.h"
#include "daemon/config.h"
#include "test.h"

#define BEGIN_MARK \
    "<!-- BEGIN keys: written by tests/config/config-docs --write from daemon/config.c -->\n"
#define END_MARK "<!-- END keys -->\n"

static char *reference(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tsr__config_write_reference(out);
    fclose(out);
    return text;
}

static char *sample(void)
{
    tsr__config none;
    tsr__config_clear(&none);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tsr__config_write(out, &none);
    fclose(out);
    return text;
}

/* doc with its generated section replaced by `section`; NULL when the
 * markers are missing. */
static char *with_section(const char *doc, const char *section)
{
    const char *begin = strstr(doc, BEGIN_MARK);
    const char *end = begin ? strstr(begin, END_MARK) : NULL;
    if (!end)
        return NULL;
    begin += strlen(BEGIN_MARK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fprintf(out, "%.*s%s%s", (int)(begin - doc), doc, section, end);
    fclose(out);
    return text;
}

static void check_same(const char *path, const char *have, const char *want)
{
    if (have && strcmp(have, want) == 0) {
        ASSERT_TRUE(true);
        return;
    }
    fprintf(stderr,
            "%s does not match the key table in daemon/config.c; it should read:\n%s\n"
            "(config-docs --write DOC SAMPLE rewrites it)\n",
            path, want);
    ASSERT_TRUE(false);
}

int main(int argc, char **argv)
{
    bool write = argc == 4 && strcmp(argv[1], "--write") == 0;
    if (argc != 3 && !write) {
        fprintf(stderr, "usage: config-docs [--write] DOC SAMPLE\n");
        return 2;
    }
    const char *doc_path = argv[argc - 2], *sample_path = argv[argc - 1];
    char *doc = read_text(doc_path), *ref = reference(), *want_sample = sample();
    char *want_doc = doc ? with_section(doc, ref) : NULL;
    if (!want_doc) {
        fprintf(stderr, "%s: missing, or without the lines\n%s...\n%s", doc_path, BEGIN_MARK,
                END_MARK);
        return 1;
    }
    if (write) {
        if (!write_text(doc_path, want_doc) || !write_text(sample_path, want_sample)) {
            perror("config-docs: writing");
            return 1;
        }
        printf("wrote %s and %s\n", doc_path, sample_path);
        return 0;
    }
    check_same(doc_path, doc, want_doc);
    char *have_sample = read_text(sample_path);
    check_same(sample_path, have_sample, want_sample);
    /* Each key's heading is there once. */
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        char heading[128];
        snprintf(heading, sizeof heading, "\n### `%s%s`\n", key->name,
                 key->suffix ? key->suffix : "");
        const char *at = strstr(doc, heading);
        ASSERT_TRUE(at != NULL && strstr(at + 1, heading) == NULL);
    }
    free(have_sample);
    free(doc);
    free(ref);
    free(want_sample);
    free(want_doc);
    TEST_DONE();
}
