/* Manual pages in roff, made from the text --help prints, so that the two
 * never disagree: the pages in docs/man are this output (`tessera help --man
 * [COMMAND]`, and `tessera help --roff` for the daemon's, the
 * configuration file's and the benchmark's manuals), and a test checks that
 * they still are (tests/cli/check_man.sh, which also runs lexgrog on them).
 *
 * The help text has a shape the converter relies on: section names at the
 * left margin, text indented by four spaces, paragraphs separated by blank
 * lines. Under OPTIONS an entry starts at the margin of the text with its
 * option, and its description follows after two spaces or on deeper
 * indented lines; under KEYS every line at the margin is such an entry;
 * SYNOPSIS and EXAMPLES are kept line for line, and so is any other run of
 * lines indented deeper than the text. NAME says "name - summary", which
 * becomes the page's own name, "\-" and the summary, as whatis and
 * apropos read it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tessera/version.h"

#define MARGIN 4

/* Writes s (n bytes), escaped for roff; `dashes`: '-' as a minus sign. */
static void put_escaped(FILE *f, const char *s, size_t n, bool dashes)
{
    for (size_t k = 0; k < n; k++) {
        if (s[k] == '\\')
            fputs("\\e", f);
        else if (s[k] == '-' && dashes)
            fputs("\\-", f);
        else
            fputc(s[k], f);
    }
}

/* A text line: escaped, never starting with a control character. */
static void put_line(FILE *f, const char *s, bool dashes)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    put_escaped(f, s, strlen(s), dashes);
    fputc('\n', f);
}

static int indent_of(const char *line)
{
    int n = 0;
    while (line[n] == ' ')
        n++;
    return n;
}

static const char *text_of(const char *line)
{
    int n = indent_of(line);
    return line + (n < MARGIN ? n : MARGIN);
}

/* An OPTIONS entry: the term, then its description. */
static void put_option(FILE *f, char **lines, size_t n, size_t *k)
{
    const char *first = lines[*k] + MARGIN;
    const char *gap = strstr(first, "  ");
    size_t term = gap ? (size_t)(gap - first) : strlen(first);
    fputs(".TP\n.B ", f);
    put_escaped(f, first, term, true);
    fputc('\n', f);
    if (gap) {
        while (*gap == ' ')
            gap++;
        put_line(f, gap, false);
    }
    for (++*k; *k < n && indent_of(lines[*k]) > MARGIN; ++*k)
        put_line(f, lines[*k] + indent_of(lines[*k]), false);
}

static void put_verbatim(FILE *f, char **lines, size_t n, size_t *k, bool all)
{
    fputs(".nf\n", f);
    for (; *k < n && (all || indent_of(lines[*k]) > MARGIN); ++*k)
        put_line(f, text_of(lines[*k]), true);
    fputs(".fi\n", f);
}

/* The NAME section as man-db's indexers (lexgrog, whatis, apropos) read
 * it: the page's own name, " \- ", the summary. The help text says
 * "tessera ps - summary"; the page is tessera-ps. */
static void put_name(FILE *f, const char *title, char **lines, size_t n)
{
    const char *first = n ? text_of(lines[0]) : "";
    const char *dash = strstr(first, " - ");
    put_escaped(f, title, strlen(title), true);
    fputs(" \\- ", f);
    put_escaped(f, dash ? dash + 3 : first, strlen(dash ? dash + 3 : first), false);
    fputc('\n', f);
    for (size_t k = 1; k < n; k++)
        put_line(f, text_of(lines[k]), false);
}

/* One paragraph of a section. */
static void put_paragraph(FILE *f, const char *title, const char *section, char **lines, size_t n)
{
    bool verbatim = strcmp(section, "SYNOPSIS") == 0 || strcmp(section, "EXAMPLES") == 0;
    bool options = strcmp(section, "OPTIONS") == 0;
    /* tesserad.conf(5)'s keys and the fields of --query: every entry a term */
    bool keys = strcmp(section, "KEYS") == 0 || strcmp(section, "FIELDS") == 0;
    if (strcmp(section, "NAME") == 0) {
        put_name(f, title, lines, n);
        return;
    }
    size_t k = 0;
    if (verbatim) {
        put_verbatim(f, lines, n, &k, true);
        return;
    }
    while (k < n) {
        if ((options || keys) && indent_of(lines[k]) == MARGIN &&
            (keys || lines[k][MARGIN] == '-')) {
            put_option(f, lines, n, &k);
        } else if (indent_of(lines[k]) > MARGIN) {
            fputs(".RS\n", f);
            put_verbatim(f, lines, n, &k, false);
            fputs(".RE\n", f);
        } else {
            fputs(".PP\n", f);
            for (; k < n && indent_of(lines[k]) <= MARGIN && !(options && lines[k][MARGIN] == '-');
                 k++)
                put_line(f, text_of(lines[k]), false);
        }
    }
}

/* .TH: the title in capitals, the section, the date of this release and
 * the version (both fixed per release, so the pages in docs/man change
 * only with them). */
static void put_header(FILE *f, const char *title, int section)
{
    char upper[64];
    size_t t = 0;
    for (; title[t] && t + 1 < sizeof upper; t++)
        upper[t] = (char)toupper((unsigned char)title[t]);
    upper[t] = '\0';
    fprintf(f, ".\\\" Made by 'tessera help --man' from the --help text; edit that instead.\n"
               ".TH ");
    put_escaped(f, upper, strlen(upper), true);
    fprintf(f, " %d \"%s\" \"Tessera %s\" \"Tessera Manual\"\n", section, TSR_RELEASE_DATE,
            TSR_VERSION_STRING);
}

/* Splits text into lines in place, keeping empty ones. */
static size_t split_lines(char *text, char **lines, size_t cap)
{
    size_t n = 0;
    for (char *p = text; *p && n < cap;) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

void cli_roff(FILE *f, const char *title, int number, char *text)
{
    put_header(f, title, number);
    char *lines[1024];
    size_t n = split_lines(text, lines, 1024);
    char section[64] = "";
    for (size_t k = 0; k < n;) {
        if (lines[k][0] == '\0') {
            k++;
        } else if (lines[k][0] != ' ') {
            snprintf(section, sizeof section, "%s", lines[k]);
            fputs(".SH ", f);
            put_line(f, section, false);
            k++;
        } else {
            size_t end = k;
            while (end < n && lines[end][0] == ' ')
                end++;
            put_paragraph(f, title, section, lines + k, end - k);
            k = end;
        }
    }
}

void cli_print_roff(FILE *f, const cli_command *cmd)
{
    char *text = NULL, title[64];
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    if (!m)
        return;
    cli_print_manual(m, cmd);
    fclose(m);
    snprintf(title, sizeof title, "tessera-%s", cmd->name);
    cli_roff(f, title, 1, text);
    free(text);
}
