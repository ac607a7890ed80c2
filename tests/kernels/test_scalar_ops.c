/* kernels/scalar_ops.h against PyTorch 1.13: every line of
 * data/scalar_ops.txt (gen_scalar_ops.py) is one element op one element on
 * the cpu device, through the public API, compared bit for bit. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define LINE_MAX_LEN 512

static int hex_bytes(const char *hex, unsigned char *out, size_t max)
{
    size_t n = strlen(hex) / 2;
    if (n > max)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return (int)n;
}

/* Python's repr of alpha: 1, True, 0.5, (0.5-2j), '-'. */
static tsr_scalar parse_alpha(const char *s)
{
    if (strcmp(s, "True") == 0 || strcmp(s, "False") == 0)
        return tsr_scalar_bool(s[0] == 'T');
    if (strchr(s, 'j')) {
        double re = 0, im = 0;
        sscanf(s, "(%lf%lfj)", &re, &im);
        return tsr_scalar_complex(re, im);
    }
    if (strchr(s, '.') || strchr(s, 'e'))
        return tsr_scalar_float(strtod(s, NULL));
    if (s[0] == '\'')
        return tsr_scalar_int(1);
    return tsr_scalar_int(strtoll(s, NULL, 10));
}

/* The op table's tensor-only operations are called by name. */
#define RUN_INTERNAL(name)
#define RUN_HAND(name)
#define RUN_REDUCE(name)
#define RUN_REDUCE_DTYPE(name)
#define RUN_TENSOR(name)        \
    if (strcmp(op, #name) == 0) \
        return tsr_##name(a, b, r);
#define RUN_SCALAR RUN_TENSOR
#define RUN_UNARY(name)         \
    if (strcmp(op, #name) == 0) \
        return tsr_##name(a, r);

static tsr_status run(const char *op, const tsr_tensor *a, const tsr_tensor *b, tsr_scalar alpha,
                      tsr_tensor **r)
{
    if (strcmp(op, "add") == 0)
        return tsr_add(a, b, alpha, r);
    if (strcmp(op, "sub") == 0)
        return tsr_sub(a, b, alpha, r);
    if (strcmp(op, "mul") == 0)
        return tsr_mul(a, b, r);
    if (strcmp(op, "div") == 0)
        return tsr_div(a, b, TSR_ROUNDING_NONE, r);
    if (strcmp(op, "div_trunc") == 0)
        return tsr_div(a, b, TSR_ROUNDING_TRUNC, r);
    if (strcmp(op, "div_floor") == 0)
        return tsr_div(a, b, TSR_ROUNDING_FLOOR, r);
#define X(ENUM, wire, name, stub, arity, call, flags, elem, fast, api, ...) RUN_##api(name)
#include "core/ops.def"
#undef X
    fprintf(stderr, "unknown op \"%s\"\n", op);
    return TSR_STATUS_COUNT;
}

static int mismatches, max_print = 40;

/* Whether component bits (width 2, 4 or 8) hold a NaN. */
static bool is_nan_bits(const unsigned char *p, size_t w)
{
    uint64_t v = 0;
    memcpy(&v, p, w);
    if (w == 2)
        return (v & 0x7C00u) == 0x7C00u && (v & 0x3FFu) != 0;
    if (w == 4)
        return (v & 0x7F800000u) == 0x7F800000u && (v & 0x7FFFFFu) != 0;
    return (v & 0x7FF0000000000000u) == 0x7FF0000000000000u && (v & 0xFFFFFFFFFFFFFu) != 0;
}

/* Equal bits; for complex results a NaN matches any NaN. When two NaNs
 * meet in a complex product or quotient, which one's sign survives is how
 * x86's fused multiply-subtract orders its operands, which C's fma cannot
 * spell (docs/semantics.md); real results must match exactly. */
static bool same_result(tsr_dtype dt, const unsigned char *got, const unsigned char *want, int n)
{
    if (memcmp(got, want, (size_t)n) == 0)
        return true;
    if (!tsr_dtype_is_complex(dt))
        return false;
    size_t w = (size_t)n / 2;
    for (size_t part = 0; part < 2; part++) {
        const unsigned char *g = got + part * w, *e = want + part * w;
        if (memcmp(g, e, w) != 0 && !(is_nan_bits(g, w) && is_nan_bits(e, w)))
            return false;
    }
    return true;
}

static void check_line(char *line)
{
    char op[32], dt[32], al[64], ah[80], bh[80], rd[32], rest[LINE_MAX_LEN];
    if (sscanf(line, "%31s %31s %63s %79s %79s %31s %511[^\n]", op, dt, al, ah, bh, rd, rest) < 6)
        return;
    tsr_dtype dtype, rdtype = TSR_BOOL;
    unsigned char a[16], b[16], want[16];
    ASSERT_OK(tsr_dtype_from_name(dt, &dtype));
    bool err = strcmp(rd, "ERR") == 0;
    int n = 0;
    if (!err) {
        ASSERT_OK(tsr_dtype_from_name(rd, &rdtype));
        char *hex = rest;
        while (*hex == ' ')
            hex++;
        char *end = hex;
        while (isxdigit((unsigned char)*end))
            end++;
        *end = '\0';
        n = hex_bytes(hex, want, sizeof want);
    }
    int64_t one = 1;
    tsr_tensor *ta = NULL, *tb = NULL, *tr = NULL;
    if (hex_bytes(ah, a, sizeof a) < 0 || hex_bytes(bh, b, sizeof b) < 0)
        return;
    ASSERT_OK(tsr_tensor_from_data(NULL, 1, &one, dtype, a, NULL, &ta));
    ASSERT_OK(tsr_tensor_from_data(NULL, 1, &one, dtype, b, NULL, &tb));
    tsr_status st = run(op, ta, tb, parse_alpha(al), &tr);
    if (err) {
        if (st == TSR_OK || strcmp(tsr_last_error(), rest) != 0) {
            if (mismatches++ < max_print)
                fprintf(stderr, "%s\n  got %s \"%s\"\n", line, tsr_status_name(st),
                        tsr_last_error());
            test__failed++;
        } else {
            test__passed++;
        }
    } else if (st != TSR_OK) {
        if (mismatches++ < max_print)
            fprintf(stderr, "%s\n  failed: %s\n", line, tsr_last_error());
        test__failed++;
    } else {
        unsigned char got[16] = {0};
        ASSERT_EQ(tsr_tensor_dtype(tr), rdtype);
        ASSERT_OK(tsr_tensor_copy_to_host(tr, got, tsr_tensor_itemsize(tr)));
        if (!same_result(rdtype, got, want, n)) {
            if (mismatches++ < max_print) {
                fprintf(stderr, "%s\n  got ", line);
                for (int i = 0; i < n; i++)
                    fprintf(stderr, "%02x", got[i]);
                fprintf(stderr, "\n");
            }
            test__failed++;
        } else {
            test__passed++;
        }
    }
    tsr_tensor_release(ta);
    tsr_tensor_release(tb);
    tsr_tensor_release(tr);
}

int main(void)
{
    if (getenv("TSR_TEST_ALL"))
        max_print = 1 << 30;
    FILE *f = fopen("data/scalar_ops.txt", "r");
    if (!f)
        TEST_SKIP("data/scalar_ops.txt not found (run from tests/kernels)");
    char line[LINE_MAX_LEN];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '#' && line[0] != '\0')
            check_line(line);
    }
    fclose(f);
    if (mismatches > max_print)
        fprintf(stderr, "... %d mismatches in all\n", mismatches);
    TEST_DONE();
}
