/*
 * fuzz_http.c: libFuzzer harness for the HTTP/1.1 request head parser of the MCP server's
 * Streamable HTTP transport (src/mcp/http_parse.c), the checks of Host and Origin values,
 * the Accept-list matcher and the --http address parser. The input is what a client could
 * send on a connection; every prefix of it is parsed too (a head arrives in pieces), and
 * a complete head must keep every slice inside the input, say the same on every longer
 * prefix, and never claim more bytes than it was given. Nothing may crash or hang.
 */
#include "quarry/mcp.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const char *buf, size_t len, const char *p, size_t n)
{
    if (n && (p < buf || p + n > buf + len))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    qr_mcp_http_request r;
    int full = qr_mcp_http_parse_request(&r, buf, size);
    if (full == 1) {
        if (r.head_len > size || r.head_len > QR_MCP_HTTP_MAX_HEAD)
            abort();
        inside(buf, size, r.method, r.method_len);
        inside(buf, size, r.target, r.target_len);
        if (r.nheaders > QR_MCP_HTTP_MAX_HEADERS)
            abort();
        for (size_t i = 0; i < r.nheaders; i++) {
            const qr_mcp_http_header *h = &r.headers[i];
            inside(buf, size, h->name, h->name_len);
            inside(buf, size, h->value, h->value_len);
            qr_mcp_http_loopback_host(h->value, h->value_len);
            qr_mcp_http_loopback_origin(h->value, h->value_len);
            qr_mcp_http_header_has(h->value, h->value_len, "text/event-stream");
        }
        static const char *const names[] = {"host", "origin", "content-type", "accept",
                                            "mcp-session-id", "mcp-protocol-version"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            const char *v;
            size_t vl;
            size_t n = qr_mcp_http_header_get(&r, names[i], &v, &vl);
            if (n > r.nheaders || (n && !v))
                abort();
        }
        /* the head ended at head_len: any prefix holding it parses to the same */
        qr_mcp_http_request again;
        if (qr_mcp_http_parse_request(&again, buf, r.head_len) != 1 ||
            again.head_len != r.head_len || again.nheaders != r.nheaders)
            abort();
    }
    /* a head that arrives a byte at a time: a prefix is never complete when the whole
     * is not (up to the first 512 prefixes, to keep a run short) */
    for (size_t n = 0; n < size && n < 512; n++) {
        qr_mcp_http_request p;
        int k = qr_mcp_http_parse_request(&p, buf, n);
        if (k == 1 && full != 1)
            abort();
    }
    /* the --http address parser on the input as a string */
    char addr[128];
    size_t n = size < sizeof addr - 1 ? size : sizeof addr - 1;
    memcpy(addr, buf, n);
    addr[n] = '\0';
    qr_buf err;
    qr_buf_init(&err);
    qr_mcp_http_check_addr(addr, &err);
    qr_buf_release(&err);
    return 0;
}
