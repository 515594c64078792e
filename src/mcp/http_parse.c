/*
 * http_parse.c: the HTTP/1.1 request head parser of the MCP server's Streamable HTTP
 * transport (http.c), and the checks of the addresses a request names: its Host and
 * Origin must be loopback ones (the transport's defence against DNS rebinding).
 *
 * Design: one pass over the bytes received so far, with no allocation: the request line
 * and each header are slices of the caller's buffer. The grammar is RFC 9112's, strictly:
 * a method is a token, the target has no spaces or control characters, the version is
 * HTTP/1.0 or HTTP/1.1, a header name is a token followed at once by ':', a value holds
 * no control characters other than tab. A line may end with CRLF or a bare LF (RFC 9112
 * allows recipients to accept it). Everything a request smuggler relies on is refused:
 * folded header lines, whitespace before the colon, Content-Length with anything but
 * digits or given twice with different values, Content-Length beside Transfer-Encoding.
 * Limits: the head is at most QR_MCP_HTTP_MAX_HEAD bytes and QR_MCP_HTTP_MAX_HEADERS headers
 * (431 beyond), the target at most QR_MCP_HTTP_MAX_TARGET bytes (414 beyond).
 *
 * Rejected: a general-purpose HTTP library (none in Debian that is small and embeddable
 * without an event loop of its own; the transport needs a fraction of HTTP/1.1).
 */
#include "quarry/mcp.h"

#include <string.h>

static bool is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool ieq(const char *a, size_t n, const char *b)
{
    if (strlen(b) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

/* The end of the line starting at p (the index of its '\n'), or -1 when the buffer ends
 * first. */
static long line_end(const char *buf, size_t pos, size_t len)
{
    const char *nl = memchr(buf + pos, '\n', len - pos);
    return nl ? (long)(nl - buf) : -1;
}

static int parse_length(qr_mcp_http_request *r, const char *v, size_t n)
{
    if (!n || n > 15)
        return -400;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -400;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (r->has_length && r->content_length != x)
        return -400;
    r->has_length = true;
    r->content_length = x;
    return 0;
}

int qr_mcp_http_parse_request(qr_mcp_http_request *r, const char *buf, size_t len)
{
    memset(r, 0, sizeof *r);
    size_t scan = len < QR_MCP_HTTP_MAX_HEAD ? len : QR_MCP_HTTP_MAX_HEAD;
    /* the request line */
    long e = line_end(buf, 0, scan);
    if (e < 0)
        return len >= QR_MCP_HTTP_MAX_HEAD ? -431 : 0;
    size_t end = (size_t)e;
    if (end && buf[end - 1] == '\r')
        end--;
    size_t i = 0;
    while (i < end && is_tchar((unsigned char)buf[i]))
        i++;
    if (!i || i >= end || buf[i] != ' ')
        return -400;
    r->method = buf;
    r->method_len = i;
    size_t t = ++i;
    while (i < end && buf[i] != ' ') {
        unsigned char c = (unsigned char)buf[i];
        if (c <= 0x20 || c == 0x7f)
            return -400;
        i++;
    }
    if (i == t || i >= end)
        return -400;
    if (i - t > QR_MCP_HTTP_MAX_TARGET)
        return -414;
    r->target = buf + t;
    r->target_len = i - t;
    i++;
    /* HTTP/d.d: 1.0 and 1.1 (a later 1.x is served as 1.1); 2 to 9 are not served */
    const char *ver = buf + i;
    if (end - i != 8 || memcmp(ver, "HTTP/", 5) || ver[5] < '0' || ver[5] > '9' ||
        ver[6] != '.' || ver[7] < '0' || ver[7] > '9')
        return -400;
    if (ver[5] != '1')
        return ver[5] == '0' ? -400 : -505;
    r->minor = ver[7] == '0' ? 0 : 1;
    /* the headers, up to the empty line */
    size_t pos = (size_t)e + 1;
    for (;;) {
        e = line_end(buf, pos, scan);
        if (e < 0)
            return len >= QR_MCP_HTTP_MAX_HEAD ? -431 : 0;
        end = (size_t)e;
        if (end > pos && buf[end - 1] == '\r')
            end--;
        if (end == pos) {
            r->head_len = (size_t)e + 1;
            break;
        }
        if (buf[pos] == ' ' || buf[pos] == '\t')
            return -400; /* obsolete line folding */
        size_t k = pos;
        while (k < end && is_tchar((unsigned char)buf[k]))
            k++;
        if (k == pos || k >= end || buf[k] != ':')
            return -400;
        if (r->nheaders == QR_MCP_HTTP_MAX_HEADERS)
            return -431;
        qr_mcp_http_header *h = &r->headers[r->nheaders++];
        h->name = buf + pos;
        h->name_len = k - pos;
        size_t v = k + 1, ve = end;
        while (v < ve && (buf[v] == ' ' || buf[v] == '\t'))
            v++;
        while (ve > v && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
            ve--;
        for (size_t j = v; j < ve; j++) {
            unsigned char c = (unsigned char)buf[j];
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                return -400;
        }
        h->value = buf + v;
        h->value_len = ve - v;
        if (ieq(h->name, h->name_len, "content-length")) {
            if (parse_length(r, h->value, h->value_len) < 0)
                return -400;
        } else if (ieq(h->name, h->name_len, "transfer-encoding")) {
            r->has_transfer_encoding = true;
        }
        pos = (size_t)e + 1;
    }
    if (r->has_length && r->has_transfer_encoding)
        return -400;
    return 1;
}

size_t qr_mcp_http_header_get(const qr_mcp_http_request *r, const char *name, const char **value,
                          size_t *len)
{
    size_t count = 0;
    *value = NULL;
    *len = 0;
    for (size_t i = 0; i < r->nheaders; i++)
        if (ieq(r->headers[i].name, r->headers[i].name_len, name)) {
            if (!count++) {
                *value = r->headers[i].value;
                *len = r->headers[i].value_len;
            }
        }
    return count;
}

bool qr_mcp_http_header_has(const char *value, size_t len, const char *token)
{
    /* a comma-separated list of tokens with parameters ("text/event-stream;q=1") */
    size_t i = 0;
    while (i < len) {
        while (i < len && (value[i] == ' ' || value[i] == '\t' || value[i] == ','))
            i++;
        size_t s = i;
        while (i < len && value[i] != ',' && value[i] != ';' && value[i] != ' ')
            i++;
        if (ieq(value + s, i - s, token))
            return true;
        while (i < len && value[i] != ',')
            i++;
    }
    return false;
}

/* "localhost", "127.a.b.c" or "[::1]" at p[0..n), case-insensitively. */
static bool loopback_name(const char *p, size_t n)
{
    if (ieq(p, n, "localhost") || ieq(p, n, "[::1]"))
        return true;
    if (n < 9 || memcmp(p, "127.", 4))
        return false;
    int parts = 2, digits = 0, value = 0; /* "127." is the first part */
    for (size_t i = 4; i < n; i++) {
        if (p[i] == '.') {
            if (!digits)
                return false;
            parts++;
            digits = value = 0;
        } else if (p[i] >= '0' && p[i] <= '9' && digits < 3) {
            value = value * 10 + (p[i] - '0');
            digits++;
            if (value > 255)
                return false;
        } else {
            return false;
        }
    }
    return parts == 4 && digits;
}

/* host[:port] where host is a loopback name and port is digits. */
static bool loopback_authority(const char *p, size_t n)
{
    size_t h = n;
    if (n && p[0] == '[') {
        const char *close = memchr(p, ']', n);
        if (!close)
            return false;
        h = (size_t)(close - p) + 1;
    } else {
        const char *colon = memchr(p, ':', n);
        if (colon)
            h = (size_t)(colon - p);
    }
    if (h < n) {
        if (p[h] != ':' || h + 1 == n || n - h - 1 > 5)
            return false;
        for (size_t i = h + 1; i < n; i++)
            if (p[i] < '0' || p[i] > '9')
                return false;
    }
    return loopback_name(p, h);
}

bool qr_mcp_http_loopback_host(const char *v, size_t n)
{
    return loopback_authority(v, n);
}

bool qr_mcp_http_loopback_origin(const char *v, size_t n)
{
    size_t skip;
    if (n > 7 && ieq(v, 7, "http://"))
        skip = 7;
    else if (n > 8 && ieq(v, 8, "https://"))
        skip = 8;
    else
        return false; /* "null" (a sandboxed page, a file) and anything else */
    if (v[n - 1] == '/')
        n--;
    return loopback_authority(v + skip, n - skip);
}
