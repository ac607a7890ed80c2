/* The operand syntax of `tessera result-type`: "int32[2,3]", "int64[]",
 * "5", "2.5", "true", "1+2j". Only the operand's kind and dtype matter to
 * result_type, so numbers are checked for shape, not converted. The input
 * is untrusted (command lines, fuzzers): every read stays inside the NUL-
 * terminated string and TSR_OPERAND_TEXT_MAX bytes. */
#include <string.h>

#include "core/error.h"
#include "tessera/dtype.h"
#include "tessera/layout.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t skip_digits(const char *s, size_t i, size_t n)
{
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

static bool equals_nocase(const char *s, size_t n, const char *word)
{
    size_t len = strlen(word);
    if (n != len)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return false;
    }
    return true;
}

/* Is s[0..n) a real number? *is_float tells a float from an integer. */
static bool scan_real(const char *s, size_t n, bool *is_float)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (equals_nocase(s + i, n - i, "inf") || equals_nocase(s + i, n - i, "infinity") ||
        equals_nocase(s + i, n - i, "nan")) {
        *is_float = true;
        return true;
    }
    size_t int_start = i;
    i = skip_digits(s, i, n);
    size_t int_digits = i - int_start, frac_digits = 0;
    bool fl = false;
    if (i < n && s[i] == '.') {
        fl = true;
        size_t f = i + 1;
        i = skip_digits(s, f, n);
        frac_digits = i - f;
    }
    if (int_digits + frac_digits == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        fl = true;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e = i;
        i = skip_digits(s, i, n);
        if (i == e)
            return false;
    }
    if (i != n)
        return false;
    if (!fl) {
        /* an integer scalar is an int64 wrapped number: it must fit */
        size_t d = int_start;
        while (d + 1 < n && s[d] == '0')
            d++;
        size_t digits = n - d;
        const char *limit = s[0] == '-' ? "9223372036854775808" : "9223372036854775807";
        if (digits > 19 || (digits == 19 && strncmp(s + d, limit, 19) > 0))
            return false;
    }
    *is_float = fl;
    return true;
}

/* "a+bj", "bj", "a-bj" with a and b real numbers. */
static bool scan_complex(const char *s, size_t n)
{
    if (n < 2 || (s[n - 1] != 'j' && s[n - 1] != 'J'))
        return false;
    n--;
    bool fl;
    if (scan_real(s, n, &fl))
        return true;
    for (size_t i = n - 1; i > 0; i--) {
        if ((s[i] == '+' || s[i] == '-') && s[i - 1] != 'e' && s[i - 1] != 'E')
            return scan_real(s, i, &fl) && scan_real(s + i, n - i, &fl);
    }
    return false;
}

static tsr_status bad_operand(const char *text)
{
    return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                     "invalid operand '%.100s': expected a tensor such as int32[2,3] or int64[], "
                     "or a scalar such as 5, 2.5, true or 1+2j",
                     text);
}

/* "dtype[d0,d1,...]": writes the kind (dimensioned or zero-dim) and dtype. */
static tsr_status parse_tensor(const char *text, size_t n, const char *bracket, tsr_operand *out)
{
    char name[TSR_OPERAND_TEXT_MAX];
    size_t name_len = (size_t)(bracket - text);
    if (name_len == 0 || text[n - 1] != ']')
        return bad_operand(text);
    memcpy(name, text, name_len);
    name[name_len] = '\0';
    tsr_dtype dtype;
    if (tsr_dtype_from_name(name, &dtype) != TSR_OK)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid operand '%.100s': unknown dtype '%.60s'", text, name);
    size_t i = name_len + 1, end = n - 1;
    int ndim = 0;
    while (i < end) {
        while (i < end && text[i] == ' ')
            i++;
        size_t start = i;
        i = skip_digits(text, i, end);
        if (i == start || i - start > 18)
            return bad_operand(text);
        ndim++;
        while (i < end && text[i] == ' ')
            i++;
        if (i < end) {
            if (text[i] != ',' || i + 1 == end)
                return bad_operand(text);
            i++;
        }
    }
    if (ndim > TSR_MAX_DIMS)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "invalid operand '%.100s': more than %d dimensions", text, TSR_MAX_DIMS);
    out->kind = ndim ? TSR_OPERAND_TENSOR : TSR_OPERAND_ZERO_DIM;
    out->dtype = dtype;
    return TSR_OK;
}

tsr_status tsr_operand_parse(const char *text, tsr_operand *out)
{
    if (text == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "operand text must not be NULL");
    size_t n = strnlen(text, TSR_OPERAND_TEXT_MAX);
    if (n == 0 || n >= TSR_OPERAND_TEXT_MAX)
        return bad_operand(text);
    tsr_operand op = {.kind = TSR_OPERAND_SCALAR};
    const char *bracket = memchr(text, '[', n);
    bool fl;
    if (bracket) {
        tsr_status st = parse_tensor(text, n, bracket, &op);
        if (st != TSR_OK)
            return st;
    } else if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0 ||
               strcmp(text, "True") == 0 || strcmp(text, "False") == 0) {
        op.dtype = TSR_BOOL;
    } else if (scan_real(text, n, &fl)) {
        op.dtype = fl ? TSR_FLOAT64 : TSR_INT64;
    } else if (scan_complex(text, n)) {
        op.dtype = TSR_COMPLEX128;
    } else {
        return bad_operand(text);
    }
    *out = op;
    return TSR_OK;
}
