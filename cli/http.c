/* The head of an HTTP/1.x request (http.h): RFC 9112's request line and
 * field lines, no more than `tessera metrics --http` needs, each byte
 * checked against the grammar before it is believed. */
#include "cli/http.h"

#include <stdint.h>
#include <string.h>

#define OPENMETRICS "application/openmetrics-text"

/* RFC 9110's tchar: what a method or a field name is made of. */
static bool is_tchar(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool is_ows(unsigned char c)
{
    return c == ' ' || c == '\t';
}

/* A field value's byte: visible ASCII, obs-text, space or tab. */
static bool is_field_byte(unsigned char c)
{
    return (c >= 0x21 && c != 0x7f) || is_ows(c);
}

/* s[0, n) equals the lowercase `lower`, ignoring ASCII case. */
static bool same_word(const char *s, size_t n, const char *lower)
{
    if (strlen(lower) != n)
        return false;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)lower[k])
            return false;
    }
    return true;
}

/* [*s, *e) without optional whitespace at either end. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_ows((unsigned char)**s))
        (*s)++;
    while (*e > *s && is_ows((unsigned char)(*e)[-1]))
        (*e)--;
}

/* A qvalue above zero: "1", "0.5", ... (any digit after "0." that is not
 * 0); false for "0", "0.000" and anything malformed. */
static bool q_positive(const char *s, const char *e)
{
    if (s < e && *s == '1')
        return true;
    if (e - s < 3 || s[0] != '0' || s[1] != '.')
        return false;
    for (const char *p = s + 2; p < e; p++)
        if (*p < '0' || *p > '9')
            return false;
        else if (*p != '0')
            return true;
    return false;
}

/* One element of an Accept field, [s, e): whether it asks for OpenMetrics
 * 1.0.0 (or any version it does not name) with a q above 0. */
static bool element_asks(const char *s, const char *e)
{
    const char *semi = memchr(s, ';', (size_t)(e - s));
    const char *m_end = semi ? semi : e;
    const char *m = s;
    trim(&m, &m_end);
    if (!same_word(m, (size_t)(m_end - m), OPENMETRICS))
        return false;
    bool wanted = true;
    for (const char *p = semi; p && p < e;) {
        const char *next = memchr(p + 1, ';', (size_t)(e - p - 1));
        const char *ps = p + 1, *pe = next ? next : e;
        p = next;
        trim(&ps, &pe);
        const char *eq = memchr(ps, '=', (size_t)(pe - ps));
        if (!eq)
            continue;
        const char *ns = ps, *ne = eq, *vs = eq + 1, *ve = pe;
        trim(&ns, &ne);
        trim(&vs, &ve);
        if (ve - vs >= 2 && *vs == '"' && ve[-1] == '"')
            vs++, ve--;
        if (same_word(ns, (size_t)(ne - ns), "q"))
            wanted &= q_positive(vs, ve);
        else if (same_word(ns, (size_t)(ne - ns), "version"))
            wanted &= ve - vs == 5 && memcmp(vs, "1.0.0", 5) == 0;
    }
    return wanted;
}

/* An Accept field's value [s, e): whether an element asks for OpenMetrics. */
static bool accept_asks(const char *s, const char *e)
{
    while (s < e) {
        const char *comma = memchr(s, ',', (size_t)(e - s));
        const char *end = comma ? comma : e;
        if (element_asks(s, end))
            return true;
        s = comma ? comma + 1 : e;
    }
    return false;
}

/* The request line [s, e): 400 when it is not one, else the status it
 * earns (200, 405, 414 or 505) with the method and path in *req. */
static int request_line(const char *s, const char *e, cli_http_request *req)
{
    const char *sp1 = memchr(s, ' ', (size_t)(e - s));
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(e - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == s)
        return 400;
    for (const char *p = s; p < sp1; p++)
        if (!is_tchar((unsigned char)*p))
            return 400;
    const char *t = sp1 + 1, *v = sp2 + 1;
    if (t == sp2 || *t != '/')
        return 400;
    for (const char *p = t; p < sp2; p++)
        if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
            return 400;
    if (e - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
        v[7] < '0' || v[7] > '9')
        return 400;
    if (v[5] != '1' || (v[7] != '0' && v[7] != '1'))
        return 505;
    bool get = sp1 - s == 3 && memcmp(s, "GET", 3) == 0;
    req->head = sp1 - s == 4 && memcmp(s, "HEAD", 4) == 0;
    if (!get && !req->head)
        return 405;
    const char *q = memchr(t, '?', (size_t)(sp2 - t));
    size_t n = (size_t)((q ? q : sp2) - t);
    if (n >= sizeof req->path)
        return 414;
    memcpy(req->path, t, n);
    req->path[n] = '\0';
    return 200;
}

int cli_http_parse(const char *buf, size_t len, cli_http_request *req)
{
    cli_http_request r = {0};
    size_t avail = len < CLI_HTTP_HEAD_MAX ? len : CLI_HTTP_HEAD_MAX;
    int verdict = 0, fields = 0;
    for (size_t at = 0;;) {
        const char *nl = memchr(buf + at, '\n', avail - at);
        if (!nl)
            return len >= CLI_HTTP_HEAD_MAX ? 431 : 0;
        const char *s = buf + at, *e = nl;
        if (e > s && e[-1] == '\r')
            e--;
        at = (size_t)(nl - buf) + 1;
        if (memchr(s, '\r', (size_t)(e - s)) || memchr(s, '\0', (size_t)(e - s)))
            return 400;
        if (verdict == 0) {
            /* RFC 9112 lets a server skip empty lines before the request */
            if (e == s)
                continue;
            verdict = request_line(s, e, &r);
            if (verdict == 400)
                return 400;
            continue;
        }
        if (e == s) {
            r.length = at;
            if (verdict == 200)
                *req = r;
            return verdict;
        }
        if (++fields > CLI_HTTP_FIELDS)
            return 431;
        const char *colon = memchr(s, ':', (size_t)(e - s));
        if (!colon || colon == s)
            return 400; /* no name, or a folded line (it starts with a space) */
        for (const char *p = s; p < colon; p++)
            if (!is_tchar((unsigned char)*p))
                return 400;
        for (const char *p = colon + 1; p < e; p++)
            if (!is_field_byte((unsigned char)*p))
                return 400;
        const char *vs = colon + 1, *ve = e;
        trim(&vs, &ve);
        if (same_word(s, (size_t)(colon - s), "accept") && accept_asks(vs, ve))
            r.openmetrics = true;
    }
}

const char *cli_http_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 414:
        return "URI Too Long";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}
