/*
 * fuzz_mcp.c: libFuzzer harness for the MCP server's message handling: the input is a
 * session, one message per line, handed to a fresh server (each line first shown to
 * qr_mcp_peek, as the stdio transport does with input that arrives during a call, and
 * to the id scanner, as it does with a message over the size limit). Whatever comes in,
 * every message the server sends must be one JSON object on one line that reads back,
 * and nothing may crash, leak or hang. Tools run on a directory that is not a repository,
 * with short program limits, so a session costs milliseconds.
 */
#include "quarry/mcp.h"
#include "mcp_check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.repo_dir = "/nonexistent/quarry-fuzz";
    cfg.no_index = true;
    cfg.max_message = 1u << 16;
    cfg.page_size = 2;
    cfg.max_rows = 3;
    cfg.limits.timeout_ms = 50;
    cfg.limits.max_memory = 8u << 20;
    cfg.limits.max_steps = 200000;
    qr_mcp_server *s;
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mcp_server_new(&cfg, &s, &err) != QR_OK)
        abort();
    qr_buf_release(&err);
    qr_mcp_set_io(s, check_send, NULL, NULL);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        qr_mcp_idscan sc;
        qr_mcp_idscan_init(&sc);
        qr_mcp_idscan_feed(&sc, p, n);
        size_t idlen;
        const char *id = qr_mcp_idscan_result(&sc, &idlen);
        if (n > cfg.max_message) {
            qr_mcp_handle_oversized(s, n, id, idlen);
        } else {
            qr_mcp_peek(s, p, n);
            qr_mcp_handle(s, p, n);
        }
        p += n + 1;
    }
    qr_mcp_server_free(s);
    return 0;
}
