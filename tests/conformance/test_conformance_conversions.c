/* Conversion conformance: replays every table in data/conv_*.txt.
 *
 * The torch tables (made by gen_conversions.py with torch 1.13) hold
 * sections "@ <src> <dst> n=<n> [nan=scalar|vector] [complex_bool=real]"
 * followed by n lines "<src bits> <dst bits>" (complex: "re:im"). Each
 * section is one torch call on one contiguous tensor, so it is replayed as
 * one tsr_cast_buffer_ex call with the options the header names, and every
 * element is compared bit for bit, NaNs included: float16 NaNs under
 * TSR_NAN_BITS_SCALAR (torch 1.13's software routine), bfloat16 NaNs under
 * the default TSR_NAN_BITS_VECTOR (its AVX2 copy kernel), complex -> bool
 * under complex_to_bool_real_only (1.13 looks at the real part only).
 *
 * data/conv_float8_thresholds.txt (transcribed from the spec, as torch 1.13
 * has no float8) lists for each format the smallest positive float32 that
 * encodes to each code; every threshold T and T - 1, both signs, is
 * checked, with and without float8_e4m3fn saturation.
 *
 * The working directory is tests/conformance (CTest sets it). */
#include <dirent.h>

#include "test.h"

#define LINE_MAX_LEN 256
#define MAX_REPORTS 5

typedef struct reader {
    FILE *f;
    const char *path;
    long line_no;
    char line[LINE_MAX_LEN];
} reader;

/* The next line that is neither a comment nor blank; false at the end. */
static bool next_line(reader *r)
{
    while (fgets(r->line, sizeof r->line, r->f)) {
        r->line_no++;
        r->line[strcspn(r->line, "\r\n")] = '\0';
        if (r->line[0] != '#' && r->line[0] != '\0')
            return true;
    }
    return false;
}

static bool parse_hex(const char *text, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 16)
        return false;
    for (size_t k = 0; k < len; k++) {
        char c = text[k];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

/* One element "hex" or "hex:hex" (complex) into `out`, component by
 * component (little-endian, as the host stores them). */
static bool parse_element(const char *text, size_t len, tsr_dtype dt, unsigned char *out)
{
    size_t comp = tsr_dtype_itemsize(tsr_dtype_to_real(dt));
    int parts = tsr_dtype_is_complex(dt) ? 2 : 1;
    for (int p = 0; p < parts; p++) {
        size_t width = 2 * comp;
        uint64_t v;
        if (len < width || !parse_hex(text, width, &v))
            return false;
        memcpy(out + (size_t)p * comp, &v, comp);
        text += width;
        len -= width;
        if (p + 1 < parts) {
            if (len == 0 || *text != ':')
                return false;
            text++;
            len--;
        }
    }
    return len == 0;
}

/* As the tables write it: the value of the bytes, complex as "re:im". */
static void print_element(const unsigned char *at, tsr_dtype dt)
{
    size_t comp = tsr_dtype_itemsize(tsr_dtype_to_real(dt));
    int parts = tsr_dtype_is_complex(dt) ? 2 : 1;
    for (int p = 0; p < parts; p++) {
        for (size_t k = comp; k-- > 0;)
            fprintf(stderr, "%02X", at[(size_t)p * comp + k]);
        if (p + 1 < parts)
            fputc(':', stderr);
    }
}

typedef struct section {
    tsr_dtype src, dst;
    size_t n;
    tsr_cast_options opts;
} section;

static bool parse_header(reader *r, section *s)
{
    char src[64], dst[64], rest[LINE_MAX_LEN] = "";
    unsigned long n;
    if (sscanf(r->line, "@ %63s %63s n=%lu %255[^\n]", src, dst, &n, rest) < 3 ||
        tsr_dtype_from_name(src, &s->src) != TSR_OK || tsr_dtype_from_name(dst, &s->dst) != TSR_OK)
        return false;
    s->n = n;
    memset(&s->opts, 0, sizeof s->opts);
    for (char *tok = strtok(rest, " "); tok; tok = strtok(NULL, " ")) {
        if (strcmp(tok, "nan=scalar") == 0)
            s->opts.nan_bits = TSR_NAN_BITS_SCALAR;
        else if (strcmp(tok, "nan=vector") == 0)
            s->opts.nan_bits = TSR_NAN_BITS_VECTOR;
        else if (strcmp(tok, "complex_bool=real") == 0)
            s->opts.complex_to_bool_real_only = true;
        else
            return false;
    }
    return true;
}

/* Reads one section's rows and replays it; returns the elements checked,
 * or -1 when the table is malformed. */
static long replay_section(reader *r, const section *s)
{
    size_t in_size = tsr_dtype_itemsize(s->src), out_size = tsr_dtype_itemsize(s->dst);
    unsigned char *src = calloc(s->n, in_size), *want = calloc(s->n, out_size);
    unsigned char *got = calloc(s->n, out_size);
    long *lines = calloc(s->n, sizeof *lines);
    long result = -1;
    if (!src || !want || !got || !lines)
        goto out_free;
    for (size_t k = 0; k < s->n; k++) {
        if (!next_line(r))
            goto out_free;
        const char *space = strchr(r->line, ' ');
        if (!space ||
            !parse_element(r->line, (size_t)(space - r->line), s->src, src + k * in_size) ||
            !parse_element(space + 1, strlen(space + 1), s->dst, want + k * out_size))
            goto out_free;
        lines[k] = r->line_no;
    }

    ASSERT_OK(tsr_cast_buffer_ex(src, s->src, got, s->dst, s->n, &s->opts));
    long mismatches = 0;
    for (size_t k = 0; k < s->n; k++) {
        if (memcmp(got + k * out_size, want + k * out_size, out_size) == 0)
            continue;
        if (mismatches++ < MAX_REPORTS) {
            fprintf(stderr, "%s:%ld: %s -> %s: ", r->path, lines[k], tsr_dtype_name(s->src),
                    tsr_dtype_name(s->dst));
            print_element(src + k * in_size, s->src);
            fprintf(stderr, " gave ");
            print_element(got + k * out_size, s->dst);
            fprintf(stderr, ", torch gave ");
            print_element(want + k * out_size, s->dst);
            fprintf(stderr, "\n");
        }
    }
    ASSERT_EQ(mismatches, 0);
    result = (long)s->n;
out_free:
    free(src);
    free(want);
    free(got);
    free(lines);
    return result;
}

static void replay_table(const char *path, long *sections, long *elements)
{
    reader r = {.f = fopen(path, "r"), .path = path};
    if (!r.f) {
        TEST__REPORT("cannot open %s", path);
        return;
    }
    while (next_line(&r)) {
        section s;
        long checked = -1;
        if (parse_header(&r, &s))
            checked = replay_section(&r, &s);
        if (checked < 0) {
            TEST__REPORT("%s:%ld: malformed table near \"%s\"", path, r.line_no, r.line);
            break;
        }
        (*sections)++;
        *elements += checked;
    }
    fclose(r.f);
}

/* ---- float8 thresholds ---------------------------------------------------- */

static uint8_t negated(tsr_dtype fmt, uint8_t code)
{
    bool fnuz = fmt == TSR_FLOAT8_E4M3FNUZ || fmt == TSR_FLOAT8_E5M2FNUZ;
    if (fnuz && (code == 0 || code == 0x80))
        return code; /* no -0; NaN has no sign */
    return code | 0x80;
}

/* Checks one format's rows: code[k] is produced from thr[k] upward. */
static long check_thresholds(tsr_dtype fmt, bool saturate, const uint8_t *code, const uint32_t *thr,
                             size_t rows)
{
    enum { MAX_INPUTS = 6 * 130 };
    float in[MAX_INPUTS];
    uint8_t want[MAX_INPUTS], got[MAX_INPUTS];
    size_t n = 0;
    for (size_t k = 0; k < rows; k++) {
        uint32_t t[3] = {thr[k], thr[k] | 0x80000000u, k > 0 ? thr[k] - 1 : 0};
        uint8_t c[3] = {code[k], negated(fmt, code[k]), k > 0 ? code[k - 1] : code[0]};
        for (int j = 0; j < 3; j++) {
            memcpy(&in[n], &t[j], 4);
            want[n++] = c[j];
        }
        if (k > 0) { /* T - 1 negated */
            uint32_t neg = (thr[k] - 1) | 0x80000000u;
            memcpy(&in[n], &neg, 4);
            want[n++] = negated(fmt, code[k - 1]);
        }
    }
    /* past the last threshold: FLT_MAX and +inf give the last code */
    const uint32_t top[2] = {0x7F7FFFFFu, 0x7F800000u};
    for (int j = 0; j < 2; j++) {
        memcpy(&in[n], &top[j], 4);
        want[n++] = code[rows - 1];
    }

    tsr_cast_options opts = {.saturate_float8 = saturate};
    ASSERT_OK(tsr_cast_buffer_ex(in, TSR_FLOAT32, got, fmt, n, &opts));
    long mismatches = 0;
    for (size_t k = 0; k < n; k++) {
        uint8_t scalar = tsr_float_to_float8(in[k], fmt, saturate);
        if ((got[k] != want[k] || scalar != want[k]) && mismatches++ < MAX_REPORTS) {
            uint32_t bits;
            memcpy(&bits, &in[k], 4);
            fprintf(stderr, "%s%s: %08X gave %02X (scalar %02X), spec says %02X\n",
                    tsr_dtype_name(fmt), saturate ? " saturating" : "", (unsigned)bits, got[k],
                    scalar, want[k]);
        }
    }
    ASSERT_EQ(mismatches, 0);
    return (long)n;
}

static void replay_thresholds(const char *path, long *sections, long *elements)
{
    reader r = {.f = fopen(path, "r"), .path = path};
    if (!r.f) {
        TEST__REPORT("cannot open %s", path);
        return;
    }
    bool ok = true;
    while (ok && next_line(&r)) {
        char name[64];
        int saturate;
        unsigned long n;
        tsr_dtype fmt;
        uint8_t code[256];
        uint32_t thr[256];
        size_t rows = 0;
        ok = sscanf(r.line, "@ %63s saturate=%d n=%lu", name, &saturate, &n) == 3 &&
             tsr_dtype_from_name(name, &fmt) == TSR_OK && n <= 256;
        for (unsigned long k = 0; ok && k < n; k++) {
            unsigned c;
            char t[16];
            uint64_t v;
            ok = next_line(&r) && sscanf(r.line, "%2x %15s", &c, t) == 2;
            if (!ok || strcmp(t, "-") == 0)
                continue; /* a code no positive input produces */
            ok = parse_hex(t, strlen(t), &v);
            code[rows] = (uint8_t)c;
            thr[rows++] = (uint32_t)v;
        }
        if (ok && rows > 0) {
            *elements += check_thresholds(fmt, saturate != 0, code, thr, rows);
            (*sections)++;
        }
    }
    if (!ok)
        TEST__REPORT("%s:%ld: malformed table near \"%s\"", path, r.line_no, r.line);
    fclose(r.f);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    DIR *dir = opendir("data");
    if (!dir) {
        TEST__REPORT("%s", "cannot open data/ (run from tests/conformance)");
        TEST_DONE();
    }
    char *names[64];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL && count < 64;) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "conv_", 5) == 0 && len > 4 &&
            strcmp(e->d_name + len - 4, ".txt") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], by_name);
    ASSERT_TRUE(count >= 2);

    long total_sections = 0, total_elements = 0;
    for (size_t k = 0; k < count; k++) {
        char path[300];
        long sections = 0, elements = 0;
        snprintf(path, sizeof path, "data/%s", names[k]);
        if (strcmp(names[k], "conv_float8_thresholds.txt") == 0)
            replay_thresholds(path, &sections, &elements);
        else
            replay_table(path, &sections, &elements);
        printf("%-32s %4ld sections %8ld elements\n", names[k], sections, elements);
        total_sections += sections;
        total_elements += elements;
        free(names[k]);
    }
    printf("checked %ld elements in %ld sections\n", total_elements, total_sections);
    TEST_DONE();
}
