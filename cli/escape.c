/* Text from outside the command, as each output format shows it.
 *
 * Process names (which a client sets with prctl), session names, cgroups
 * and drivers' strings reach an administrator's terminal and scripts
 * through `ps`, `top`, `stats` and the listings. Nothing in them may move
 * the cursor, retitle the window or break a parser, so every such string
 * is printed through one of the writers below. Each walks the text
 * one character at a time: valid UTF-8 that is not a control character
 * passes through; a control character (C0, DEL or C1) or a byte that does
 * not start a valid UTF-8 sequence is escaped, as \xNN per byte in tables,
 * `top` and CSV (a backslash as \\), as \u00NN in JSON (an invalid byte as
 * the character of the same number), and as the text \xNN in metrics'
 * label values. docs/cli.md says the same. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cli/cli.h"

/* The character starting at p (not at the terminating NUL): its length in
 * bytes, and whether it may be printed as it is. A byte that starts no
 * valid sequence (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, cut short) is one character of length 1 that
 * may not. Controls are U+0000-U+001F, U+007F and U+0080-U+009F. */
static size_t next_char(const unsigned char *p, bool *printable)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c < 0x80) {
        *printable = c >= 0x20 && c != 0x7f;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        *printable = false;
        return 1;
    }
    bool valid = p[1] >= lo && p[1] <= hi;
    for (size_t k = 2; valid && k < len; k++)
        valid = p[k] >= 0x80 && p[k] <= 0xbf;
    if (!valid) {
        *printable = false;
        return 1;
    }
    *printable = !(c == 0xc2 && p[1] <= 0x9f); /* C1 controls */
    return len;
}

/* s with " and \ after a backslash, and what may not pass escaped: as
 * \u00NN in JSON (a C0 control or an invalid byte is p[0], a C1 control
 * p[1]); as the text \xNN in a metrics label value, whose format knows no
 * such escape (its backslash escaped in turn: the exposition formats
 * escape only \, " and the line feed, and a scrape that meets invalid
 * UTF-8 fails whole). */
static void write_backslashed(FILE *f, const char *s, bool json)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        bool printable;
        size_t len = next_char(p, &printable);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (printable)
            fwrite(p, 1, len, f);
        else if (json)
            fprintf(f, "\\u%04x", len == 2 ? p[1] : p[0]);
        else
            for (size_t k = 0; k < len; k++)
                fprintf(f, "\\\\x%02x", p[k]);
        p += len;
    }
}

void json_string(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    write_backslashed(f, s, true);
    fputc('"', f);
}

/* s with \xNN escapes and \\, and with each quote doubled when `quotes`
 * (inside a CSV field's quotes): at most `width` columns of it (width < 0:
 * all), each character counting one column and each escape its length; an
 * escape is never cut. Returns the columns written. */
static int write_escaped(FILE *f, const char *s, int width, bool quotes)
{
    int used = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        bool printable;
        size_t len = next_char(p, &printable);
        bool doubled = *p == '\\' || (quotes && *p == '"');
        int cols = doubled ? 2 : printable ? 1 : 4 * (int)len;
        if (width >= 0 && used + cols > width)
            break;
        if (doubled)
            fprintf(f, "%c%c", *p, *p);
        else if (printable)
            fwrite(p, 1, len, f);
        else
            for (size_t k = 0; k < len; k++)
                fprintf(f, "\\x%02x", p[k]);
        used += cols;
        p += len;
    }
    return used;
}

void cli_table_text(FILE *f, const char *s, int width, bool pad)
{
    int used = write_escaped(f, s ? s : "", width, false);
    if (pad && width > used)
        fprintf(f, "%*s", width - used, "");
}

void cli_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    /* Escaping leaves no line break; a comma or a quote still needs the
     * RFC 4180 quotes. */
    bool quoted = strpbrk(s, ",\"") != NULL;
    if (quoted)
        fputc('"', f);
    write_escaped(f, s, -1, quoted);
    if (quoted)
        fputc('"', f);
}

void cli_label_value(FILE *f, const char *s)
{
    write_backslashed(f, s ? s : "", false);
}
