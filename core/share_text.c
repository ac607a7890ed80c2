/* The text form of export handles (tessera/share.h): pure, no I/O. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "tessera/share.h"

#define PREFIX "tsr-export-1-"

size_t tsr_export_handle_str(const tsr_export_handle *h, char *buf, size_t n)
{
    char text[TSR_EXPORT_HANDLE_STR_MAX + 1];
    int used = snprintf(text, sizeof text, PREFIX "%016llx-", (unsigned long long)h->id);
    for (int k = 0; k < 16; k++)
        used += snprintf(text + used, sizeof text - (size_t)used, "%02x", h->secret[k]);
    if (n > 0) {
        size_t keep = (size_t)used < n ? (size_t)used : n - 1;
        memcpy(buf, text, keep);
        buf[keep] = '\0';
    }
    return (size_t)used;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* `count` lowercase hex digits at text into bytes, most significant first. */
static const char *hex_digits(const char *text, size_t count, uint8_t *bytes)
{
    for (size_t k = 0; k < count; k++) {
        int v = hex_value(text[k]);
        if (v < 0)
            return text + k;
        if (k % 2 == 0)
            bytes[k / 2] = (uint8_t)(v << 4);
        else
            bytes[k / 2] |= (uint8_t)v;
    }
    return NULL;
}

tsr_status tsr_export_handle_parse(const char *text, tsr_export_handle *out)
{
    if (text == NULL || out == NULL)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT, "tsr_export_handle_parse: NULL argument");
    size_t len = strnlen(text, TSR_EXPORT_HANDLE_STR_MAX + 1);
    size_t plen = sizeof PREFIX - 1;
    if (len < plen || memcmp(text, PREFIX, plen) != 0)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "not an export handle: it must start with \"" PREFIX "\"");
    if (len != TSR_EXPORT_HANDLE_STR_MAX - 1)
        return tsr__fail(
            TSR_ERR_INVALID_ARGUMENT, "not an export handle: %s characters where %d are expected",
            len > TSR_EXPORT_HANDLE_STR_MAX - 1 ? "more" : "fewer", TSR_EXPORT_HANDLE_STR_MAX - 1);
    uint8_t id[8], secret[16];
    const char *bad = hex_digits(text + plen, 16, id);
    if (!bad && text[plen + 16] != '-')
        bad = text + plen + 16;
    if (!bad)
        bad = hex_digits(text + plen + 17, 32, secret);
    if (bad)
        return tsr__fail(TSR_ERR_INVALID_ARGUMENT,
                         "not an export handle: unexpected character at position %d (lowercase "
                         "hexadecimal digits and one '-' follow the prefix)",
                         (int)(bad - text));
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v = v << 8 | id[k];
    out->id = v;
    memcpy(out->secret, secret, sizeof secret);
    return TSR_OK;
}
