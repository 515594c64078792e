/*
 * test_mcp.c: unit tests for the MCP server without a transport: the id scanner (ids at
 * the start, at the end, nested decoys, escapes, numbers, chunked input), and the server
 * driven message by message through a send hook that records what it sends: lifecycle,
 * answers to requests and silence for notifications, a cancellation seen by qr_mcp_peek
 * before the request starts and while it runs (through the poll hook), a call cancelled
 * while it waits for a worker (never answered, but its end reported), an oversized
 * message, a send that fails (the client is gone).
 */
#include "check.h"
#include "quarry/mcp.h"

#include <stdlib.h>

/* ---- id scanner ---- */

static const char *scan(const char *text, size_t chunk)
{
    static char out[200];
    qr_mcp_idscan sc;
    qr_mcp_idscan_init(&sc);
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i += chunk)
        qr_mcp_idscan_feed(&sc, text + i, n - i < chunk ? n - i : chunk);
    size_t len;
    const char *id = qr_mcp_idscan_result(&sc, &len);
    if (!id)
        return "(none)";
    snprintf(out, sizeof out, "%.*s", (int)len, id);
    return out;
}

static void test_idscan(void)
{
    for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
        CHECK_STR(scan("{\"id\":1,\"method\":\"ping\"}", chunk), "1");
        CHECK_STR(scan("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":\"abc\"}", chunk), "\"abc\"");
        CHECK_STR(scan(" { \"a\" : {\"id\":5, \"b\":[{\"id\":6}]}, \"s\": \"\\\"id\\\":7\", \"id\" "
                       ": -42 }",
                       chunk),
                  "-42");
        CHECK_STR(scan("{\"id\":\"a\\\"b\"}", chunk), "\"a\\\"b\"");
        CHECK_STR(scan("{\"method\":\"x\"}", chunk), "(none)");
        CHECK_STR(scan("{\"i\\u0064\":3}", chunk), "(none)");
        CHECK_STR(scan("{\"idx\":3,\"id\":4}", chunk), "4");
        CHECK_STR(scan("{\"id\":null}", chunk), "(none)");
        CHECK_STR(scan("{\"id\":{\"x\":1}}", chunk), "(none)");
        CHECK_STR(scan("[{\"id\":1}]", chunk), "(none)");
        CHECK_STR(scan("{\"id\":12", chunk), "12"); /* cut off after the number */
        CHECK_STR(scan("{\"id\":\"unterminated", chunk), "(none)");
    }
    char longid[400] = "{\"id\":\"";
    memset(longid + 7, 'x', 300);
    strcpy(longid + 307, "\"}");
    CHECK_STR(scan(longid, 7), "(none)"); /* too long to answer with */
}

/* ---- the server ---- */

typedef struct sink {
    qr_buf out; /* every message, one per line */
    int sent;
    int fail_after; /* the send after this many fails (-1: never) */
    int polls;
    qr_mcp_server *s;
    const char *during_poll; /* a message that "arrives" while a request runs */
    qr_buf ended; /* the ids of requests that ended without a response, one per line */
} sink;

static int sink_send(void *ud, const char *msg, size_t len, const char *req_id, bool final)
{
    sink *k = ud;
    if (!msg) { /* a request that ended without a response */
        if (final && req_id) {
            qr_buf_puts(&k->ended, req_id);
            qr_buf_putc(&k->ended, '\n');
        }
        return QR_OK;
    }
    if (k->fail_after >= 0 && k->sent >= k->fail_after)
        return QR_EIO;
    CHECK(memchr(msg, '\n', len) == NULL);
    qr_buf_append(&k->out, msg, len);
    qr_buf_putc(&k->out, '\n');
    k->sent++;
    return QR_OK;
}

static void sink_poll(void *ud)
{
    sink *k = ud;
    k->polls++;
    if (k->during_poll)
        qr_mcp_peek(k->s, k->during_poll, strlen(k->during_poll));
}

static int handle(qr_mcp_server *s, const char *msg)
{
    return qr_mcp_handle(s, msg, strlen(msg));
}

static bool has(const sink *k, const char *text)
{
    return k->out.p && strstr(k->out.p, text) != NULL;
}

static qr_mcp_server *server_with(sink *k, size_t workers)
{
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.repo_dir = "/nonexistent/quarry-unit";
    cfg.max_message = 100;
    cfg.workers = workers;
    cfg.limits.timeout_ms = 5000; /* bounds the spinning program of test_cancel_queued */
    qr_mcp_server *s = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mcp_server_new(&cfg, &s, &err) == QR_OK);
    qr_buf_release(&err);
    memset(k, 0, sizeof *k);
    qr_buf_init(&k->out);
    qr_buf_init(&k->ended);
    k->fail_after = -1;
    k->s = s;
    qr_mcp_set_io(s, sink_send, sink_poll, k);
    return s;
}

static qr_mcp_server *server(sink *k)
{
    return server_with(k, QR_MCP_WORKERS);
}

static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                           "\"protocolVersion\":\"2025-06-18\"}}";

static void test_lifecycle(void)
{
    sink k;
    qr_mcp_server *s = server(&k);
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}") == QR_OK);
    CHECK(has(&k, "\"id\":1,\"error\":{\"code\":-32000"));
    CHECK(handle(s, init) == QR_OK);
    CHECK(has(&k, "\"protocolVersion\":\"2025-06-18\""));
    int before = k.sent;
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}") == QR_OK);
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\"}") == QR_OK);
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"bogus\",\"params\":7}") == QR_OK);
    CHECK(k.sent == before); /* notifications are never answered */
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}") == QR_OK);
    CHECK(has(&k, "\"id\":2,\"result\":{\"tools\":[{\"name\":\"get_commits\""));
    CHECK(k.polls == 0); /* only calls poll */
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"run_lisp\",\"arguments\":{\"program\":\"(* 6 7)\"}}}") == QR_OK);
    CHECK(has(
        &k,
        "\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":42}\"}],"
        "\"structuredContent\":{\"result\":42},\"isError\":false}"));
    CHECK(k.polls == 1);
    CHECK(qr_mcp_handle_oversized(s, 12345, "\"big\"", 5) == QR_OK);
    CHECK(has(&k, "\"id\":\"big\",\"error\":{\"code\":-32600"));
    CHECK(qr_mcp_handle_oversized(s, 12345, "{}", 2) == QR_OK); /* not an id: null */
    CHECK(has(&k, "\"id\":null,\"error\":{\"code\":-32600,\"message\":\"message of 12345 bytes"));
    qr_buf_release(&k.out);
    qr_buf_release(&k.ended);
    qr_mcp_server_free(s);
}

static void test_cancel(void)
{
    sink k;
    qr_mcp_server *s = server(&k);
    handle(s, init);
    /* seen before the request starts: it is not run */
    const char *cancel7 = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                          "\"requestId\":7}}";
    qr_mcp_peek(s, cancel7, strlen(cancel7));
    int before = k.sent;
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
              "\"run_lisp\",\"arguments\":{\"program\":\"1\"}}}");
    CHECK(k.sent == before);
    CHECK(k.polls == 0);
    /* arriving while it runs: the response is dropped */
    k.during_poll = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                    "\"requestId\":\"eight\"}}";
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":\"eight\",\"method\":\"tools/call\",\"params\":{"
              "\"name\":\"run_lisp\",\"arguments\":{\"program\":\"1\"}}}");
    CHECK(k.sent == before);
    CHECK(k.polls == 1);
    /* once only: the same id again is answered */
    k.during_poll = NULL;
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":\"eight\",\"method\":\"ping\"}");
    CHECK(k.sent == before + 1);
    qr_buf_release(&k.out);
    qr_buf_release(&k.ended);
    qr_mcp_server_free(s);
}

/* A call cancelled while it waits for a worker is never run nor answered, and the
 * transport is told it ended (over HTTP a connection waits for it: before, it waited
 * until the client gave up). */
static void test_cancel_queued(void)
{
    sink k;
    qr_mcp_server *s = server_with(&k, 1);
    CHECK(handle(s, init) == QR_OK);
    CHECK(qr_mcp_start_workers(s) == QR_OK);
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
              "\"run_lisp\",\"arguments\":{\"program\":\"(loop [i 0] (recur (inc i)))\"}}}");
    /* the only worker has the spinning call (or will take it first): this one queues */
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
              "\"run_lisp\",\"arguments\":{\"program\":\"(+ 1 1)\"}}}");
    handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
              "\"requestId\":2}}");
    handle(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
              "\"requestId\":1}}");
    qr_mcp_stop_workers(s, false);
    CHECK(k.ended.p && strstr(k.ended.p, "2\n") != NULL);
    CHECK(k.ended.p && strstr(k.ended.p, "1\n") != NULL);
    CHECK(!has(&k, "\"id\":2,"));
    CHECK(!has(&k, "\"id\":1,"));
    qr_buf_release(&k.out);
    qr_buf_release(&k.ended);
    qr_mcp_server_free(s);
}

static void test_gone(void)
{
    sink k;
    qr_mcp_server *s = server(&k);
    k.fail_after = 1;
    CHECK(handle(s, init) == QR_OK);
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}") == QR_EIO);
    CHECK(handle(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}") == QR_EIO);
    qr_buf_release(&k.out);
    qr_buf_release(&k.ended);
    qr_mcp_server_free(s);
}

/* The HTTP transport's head parser, header lookups and loopback checks. */
static void test_http_parse(void)
{
    qr_mcp_http_request r;
    const char ok[] = "POST /mcp?a=b HTTP/1.1\r\nHost: 127.0.0.1:80\r\ncontent-length:  12 \r\n"
                      "Accept: application/json, text/event-stream;q=0.9\r\n\r\n{\"x\":1}";
    CHECK(qr_mcp_http_parse_request(&r, ok, strlen(ok)) == 1);
    CHECK(r.method_len == 4 && !memcmp(r.method, "POST", 4));
    CHECK(r.target_len == 8 && !memcmp(r.target, "/mcp?a=b", 8));
    CHECK(r.minor == 1 && r.nheaders == 3 && r.has_length && r.content_length == 12);
    CHECK(r.head_len == strlen(ok) - 7);
    const char *v;
    size_t vl;
    CHECK(qr_mcp_http_header_get(&r, "HOST", &v, &vl) == 1 && vl == 12);
    CHECK(qr_mcp_http_header_get(&r, "origin", &v, &vl) == 0 && !v);
    CHECK(qr_mcp_http_header_get(&r, "accept", &v, &vl) == 1);
    CHECK(qr_mcp_http_header_has(v, vl, "text/event-stream"));
    CHECK(qr_mcp_http_header_has(v, vl, "APPLICATION/JSON"));
    CHECK(!qr_mcp_http_header_has(v, vl, "text/html"));
    /* incomplete, then each refusal */
    CHECK(qr_mcp_http_parse_request(&r, ok, 30) == 0);
    CHECK(qr_mcp_http_parse_request(&r, "", 0) == 0);
    static const struct {
        const char *in;
        int want;
    } bad[] = {
        {"GARBAGE\r\n\r\n", -400},
        {"GET  /mcp HTTP/1.1\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nHost : x\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nContent-Length: +1\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", -400},
        {"GET /mcp HTTP/1.1\r\nX: a\x01b\r\n\r\n", -400},
        {"GET /mcp HTTP/2.0\r\n\r\n", -505},
        {"GET /mcp HTTP/0.9\r\n\r\n", -400},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(qr_mcp_http_parse_request(&r, bad[i].in, strlen(bad[i].in)) == bad[i].want);
    CHECK(qr_mcp_http_parse_request(&r, "GET /mcp HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", 59) == 1);
    /* limits: a head past 16 KiB, more than 64 headers, a long target */
    size_t big = QR_MCP_HTTP_MAX_HEAD + 10;
    char *b = malloc(big);
    CHECK(b != NULL);
    if (b) {
        memset(b, 'a', big);
        memcpy(b, "GET /mcp HTTP/1.1\r\nX: ", 22);
        CHECK(qr_mcp_http_parse_request(&r, b, big) == -431);
        memset(b, 'a', big);
        memcpy(b, "GET /", 5);
        memcpy(b + 3000, " HTTP/1.1\r\n\r\n", 13);
        CHECK(qr_mcp_http_parse_request(&r, b, 3013) == -414);
        size_t n = 0;
        n += (size_t)snprintf(b, big, "GET / HTTP/1.1\r\n");
        for (int i = 0; i < 65; i++)
            n += (size_t)snprintf(b + n, big - n, "X%d: y\r\n", i);
        n += (size_t)snprintf(b + n, big - n, "\r\n");
        CHECK(qr_mcp_http_parse_request(&r, b, n) == -431);
        free(b);
    }
    /* loopback names */
    static const char *const hosts_ok[] = {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1",
                                           "[::1]", "[::1]:65535", "127.255.0.9"};
    static const char *const hosts_bad[] = {"", "evil.example", "127.0.0.1.evil.example",
                                            "localhost.evil", "128.0.0.1", "127.0.0.256",
                                            "127.0.0", "[::2]", "127.0.0.1:", "127.0.0.1:x",
                                            "[::1]x", "127.0.0.1:123456"};
    for (size_t i = 0; i < sizeof hosts_ok / sizeof hosts_ok[0]; i++)
        CHECK(qr_mcp_http_loopback_host(hosts_ok[i], strlen(hosts_ok[i])));
    for (size_t i = 0; i < sizeof hosts_bad / sizeof hosts_bad[0]; i++)
        CHECK(!qr_mcp_http_loopback_host(hosts_bad[i], strlen(hosts_bad[i])));
    static const char *const origins_ok[] = {"http://localhost:3000", "https://127.0.0.1",
                                             "http://[::1]:8080", "HTTP://LOCALHOST/"};
    static const char *const origins_bad[] = {"null", "http://evil.example", "file://",
                                              "http://localhost.evil.example",
                                              "http://localhost:3000/path", "localhost"};
    for (size_t i = 0; i < sizeof origins_ok / sizeof origins_ok[0]; i++)
        CHECK(qr_mcp_http_loopback_origin(origins_ok[i], strlen(origins_ok[i])));
    for (size_t i = 0; i < sizeof origins_bad / sizeof origins_bad[0]; i++)
        CHECK(!qr_mcp_http_loopback_origin(origins_bad[i], strlen(origins_bad[i])));
    /* bind addresses */
    qr_buf e;
    qr_buf_init(&e);
    CHECK(qr_mcp_http_check_addr("127.0.0.1:0", &e) == QR_OK);
    CHECK(qr_mcp_http_check_addr("localhost:8765", &e) == QR_OK);
    CHECK(qr_mcp_http_check_addr("[::1]:1", &e) == QR_OK);
    CHECK(qr_mcp_http_check_addr("0.0.0.0:80", &e) == QR_EINVAL);
    CHECK(e.p && strstr(e.p, "'0.0.0.0:80' is not a loopback address"));
    CHECK(qr_mcp_http_check_addr("[::]:80", &e) == QR_EINVAL);
    CHECK(qr_mcp_http_check_addr("10.0.0.1:80", &e) == QR_EINVAL);
    CHECK(qr_mcp_http_check_addr("127.0.0.1", &e) == QR_EINVAL);
    CHECK(qr_mcp_http_check_addr("127.0.0.1:65536", &e) == QR_EINVAL);
    CHECK(qr_mcp_http_check_addr(":80", &e) == QR_EINVAL);
    qr_buf_release(&e);
}

int main(void)
{
    test_idscan();
    test_lifecycle();
    test_cancel();
    test_cancel_queued();
    test_gone();
    test_http_parse();
    CHECK_DONE();
}
