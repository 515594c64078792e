/*
 * test_lsp.c: the language server through its C entry point: a whole session written to
 * its input (framed messages), the output read back and split into messages. Checks the
 * lifecycle (requests before initialize refused, exit status after shutdown or not),
 * positions in UTF-16 code units (a line with an emoji, two units, and a tab), the
 * diagnostics' ranges, completion (the flow functions from the runtime's table too),
 * definition, and garbage framing. The full protocol is
 * exercised by a real client in tests/lsp/client_test.mjs.
 */
#include "check.h"
#include "quarry/lsp.h"
#include "quarry/value.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void frame(qr_buf *b, const char *json)
{
    qr_buf_printf(b, "Content-Length: %zu\r\n\r\n%s", strlen(json), json);
}

/* Runs a session; returns the exit status and the output in out. */
static int session(const qr_buf *in, qr_buf *out)
{
    FILE *fi = tmpfile(), *fo = tmpfile();
    if (!fi || !fo)
        abort();
    fwrite(in->p, 1, in->len, fi);
    fflush(fi);
    lseek(fileno(fi), 0, SEEK_SET);
    int rc = qr_lsp_serve(fileno(fi), fileno(fo));
    lseek(fileno(fo), 0, SEEK_SET);
    char buf[65536];
    ssize_t n;
    while ((n = read(fileno(fo), buf, sizeof buf)) > 0)
        qr_buf_append(out, buf, (size_t)n);
    fclose(fi);
    fclose(fo);
    return rc;
}

static void test_session(void)
{
    /* line 2 (0-based) holds an emoji (2 UTF-16 units) and a tab before the bad agent name */
    const char *doc = "prompt i: \\\"\\\"\\\"x\\\"\\\"\\\"\\nagent a:\\n    instruction i\\n    "
                      "description \\\"\xf0\x9f\x98\x80\\\"\\n    prompt i\\n"
                      "flow main:\\n    x = \\\"\xf0\x9f\x98\x80\\\" + \\\"\\t\\\"\\n"
                      "    y = run agent b\\n    return x\\n";
    qr_buf in, out;
    qr_buf_init(&in);
    qr_buf_init(&out);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"textDocument/hover\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    qr_buf open;
    qr_buf_init(&open);
    qr_buf_printf(&open, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":"
                         "{\"textDocument\":{\"uri\":\"file:///t.flow\",\"text\":\"%s\"}}}", doc);
    frame(&in, open.p);
    qr_buf_release(&open);
    /* definition of x at `return x`; completion after `run agent ` */
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/definition\",\"params\":"
               "{\"textDocument\":{\"uri\":\"file:///t.flow\"},\"position\":{\"line\":8,\"character\":11}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/completion\",\"params\":"
               "{\"textDocument\":{\"uri\":\"file:///t.flow\"},\"position\":{\"line\":7,\"character\":18}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    CHECK(session(&in, &out) == 0);
    const char *o = out.p ? out.p : "";
    CHECK(strstr(o, "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32002") != NULL);
    CHECK(strstr(o, "\"positionEncoding\":\"utf-16\"") != NULL);
    /* E0001 at `b` on line 7: "    y = run agent b" -> character 18 */
    CHECK(strstr(o, "{\"range\":{\"start\":{\"line\":7,\"character\":18},\"end\":{\"line\":7,"
                    "\"character\":19}},\"severity\":1,\"code\":\"E0001\"") != NULL);
    /* x is first set on line 6 at character 4 */
    CHECK(strstr(o, "\"id\":2,\"result\":{\"uri\":\"file:///t.flow\",\"range\":{\"start\":"
                    "{\"line\":6,\"character\":4},\"end\":{\"line\":6,\"character\":5}}}") != NULL);
    CHECK(strstr(o, "\"id\":3,\"result\":{\"isIncomplete\":false,\"items\":[{\"label\":\"a\","
                    "\"kind\":7,\"detail\":\"agent\"}]}") != NULL);
    CHECK(strstr(o, "\"id\":4,\"result\":null") != NULL);
    qr_buf_release(&in);
    qr_buf_release(&out);
}

static void test_utf16(void)
{
    /* a diagnostic after an emoji: the column counts the emoji as two units */
    qr_buf in, out;
    qr_buf_init(&in);
    qr_buf_init(&out);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
               "{\"uri\":\"u\",\"text\":\"flow main:\\n    x = \\\"\\ud83d\\ude00\\\" + nope\\n\"}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    CHECK(session(&in, &out) == 1); /* exit without shutdown */
    /* `    x = "😀" + nope`: nope starts at code point 14 (0-based), UTF-16 unit 15 */
    CHECK(strstr(out.p ? out.p : "", "{\"range\":{\"start\":{\"line\":1,\"character\":15},\"end\":"
                                     "{\"line\":1,\"character\":19}},\"severity\":1,\"code\":"
                                     "\"E0002\"") != NULL);
    qr_buf_release(&in);
    qr_buf_release(&out);
}

static void test_function_completion(void)
{
    /* after `=`, the flow functions from the runtime's table, with usage and doc */
    qr_buf in, out;
    qr_buf_init(&in);
    qr_buf_init(&out);
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
               "{\"uri\":\"u\",\"text\":\"flow main:\\n    z = le\\n    return z\\n\"}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/completion\",\"params\":"
               "{\"textDocument\":{\"uri\":\"u\"},\"position\":{\"line\":1,\"character\":10}}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    CHECK(session(&in, &out) == 0);
    const char *o = out.p ? out.p : "";
    CHECK(strstr(o, "\"id\":2,\"result\":{\"isIncomplete\":false,\"items\":[{\"label\":\"len\","
                    "\"kind\":3,\"detail\":\"len(x): characters of a string, items of a list, "
                    "entries of an object; 0 for null\"}]}") != NULL);
    if (!strstr(o, "\"label\":\"len\""))
        fprintf(stderr, "completion: %s\n", o);
    qr_buf_release(&in);
    qr_buf_release(&out);
}

static void test_garbage(void)
{
    qr_buf in, out;
    qr_buf_init(&in);
    qr_buf_init(&out);
    qr_buf_puts(&in, "Content-Length: 3\r\n\r\n{{{Content-Length: x\r\n\r\nnothing");
    CHECK(session(&in, &out) == 1);
    CHECK(strstr(out.p ? out.p : "", "-32700") != NULL);
    qr_buf_release(&in);
    qr_buf_release(&out);
}

/* The framing shared with MCP (quarry/jsonrpc.h): a message over the 16 MiB cap and a
 * header with two Content-Length fields each cost one parse error, and the session goes
 * on with the next frame. */
static void test_cap_and_bad_header(void)
{
    qr_buf in, out;
    qr_buf_init(&in);
    qr_buf_init(&out);
    size_t big = (16u << 20) + 10;
    qr_buf_printf(&in, "Content-Length: %zu\r\n\r\n{\"id\":7,\"x\":\"", big);
    char *fill = malloc(big);
    CHECK(fill != NULL);
    if (!fill)
        return;
    memset(fill, 'a', big);
    qr_buf_append(&in, fill, big - strlen("{\"id\":7,\"x\":\"") - 2);
    free(fill);
    qr_buf_puts(&in, "\"}");
    qr_buf_puts(&in, "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
    frame(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    CHECK(session(&in, &out) == 0);
    const char *o = out.p ? out.p : "";
    CHECK(strstr(o, "over the limit of 16777216 bytes") != NULL);
    /* the oversized request is answered under its own id */
    CHECK(strstr(o, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32700") != NULL);
    CHECK(strstr(o, "duplicated Content-Length") != NULL);
    CHECK(strstr(o, "\"id\":1,\"result\":{\"capabilities\"") != NULL);
    CHECK(strstr(o, "\"id\":2,\"result\":null") != NULL);
    qr_buf_release(&in);
    qr_buf_release(&out);
}

int main(void)
{
    test_session();
    test_utf16();
    test_function_completion();
    test_garbage();
    test_cap_and_bad_header();
    CHECK_DONE();
}
