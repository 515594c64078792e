/*
 * server.c: `quarry lsp`: the transport (JSON-RPC 2.0 messages with Content-Length
 * headers on stdio), the lifecycle (initialize, initialized, shutdown, exit), the store
 * of open documents (full text sync: didOpen, didChange, didClose) and the dispatch of
 * requests to features.c. Every change re-parses and re-checks the document and publishes
 * its diagnostics (the checker's codes, messages and help; positions in UTF-16).
 *
 * Bounds: a message is at most QR_JSONRPC_MAX_MESSAGE (16 MiB, framed by the shared reader
 * of quarry/jsonrpc.h: a larger one, or a header with a missing, duplicated or
 * conflicting Content-Length, is answered with a parse error and reading goes on at the
 * next frame) and its JSON nests at most as deep as the reader allows; a request that is not understood gets a JSON-RPC error, never a crash; requests
 * before initialize get ServerNotInitialized (-32002).
 *
 * Rejected: incremental sync (flow files are small, and re-checking a whole file takes
 * well under a millisecond per thousand lines); a separate thread for checking.
 */
#define _GNU_SOURCE
#include "lsp_int.h"
#include "quarry/jsonrpc.h"
#include "quarry/lsp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- positions ---- */
static void index_lines(lsp_doc *d)
{
    free(d->lines);
    size_t count = 1;
    for (size_t i = 0; i < d->n; i++)
        count += d->text[i] == '\n';
    d->lines = malloc(count * sizeof *d->lines);
    d->nlines = 0;
    if (!d->lines)
        return;
    d->lines[d->nlines++] = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->text[i] == '\n')
            d->lines[d->nlines++] = i + 1;
}

static size_t line_end(const lsp_doc *d, uint32_t line)
{
    size_t e = line + 1 < d->nlines ? d->lines[line + 1] - 1 : d->n;
    if (e > d->lines[line] && d->text[e - 1] == '\r')
        e--;
    return e;
}

size_t lsp_offset(const lsp_doc *d, uint32_t line, uint32_t ch)
{
    if (!d->nlines)
        return 0;
    if (line >= d->nlines)
        return d->n;
    size_t off = d->lines[line], end = line_end(d, line);
    uint32_t units = 0;
    while (off < end && units < ch) {
        uint32_t cp;
        size_t k = qr_utf8_decode(d->text + off, end - off, &cp);
        units += cp >= 0x10000 ? 2 : 1;
        off += k;
    }
    return off;
}

void lsp_position(const lsp_doc *d, size_t off, uint32_t *line, uint32_t *ch)
{
    if (off > d->n)
        off = d->n;
    size_t lo = 0, hi = d->nlines ? d->nlines - 1 : 0;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (d->lines[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    *line = (uint32_t)lo;
    uint32_t units = 0;
    size_t p = d->nlines ? d->lines[lo] : 0;
    while (p < off) {
        uint32_t cp;
        size_t k = qr_utf8_decode(d->text + p, off - p, &cp);
        units += cp >= 0x10000 ? 2 : 1;
        p += k;
    }
    *ch = units;
}

size_t lsp_offset_cp(const lsp_doc *d, uint32_t line, uint32_t col)
{
    if (!d->nlines || !line)
        return 0;
    if (line > d->nlines)
        return d->n;
    size_t off = d->lines[line - 1], end = line_end(d, line - 1);
    for (uint32_t c = 1; c < col && off < end; c++) {
        uint32_t cp;
        off += qr_utf8_decode(d->text + off, end - off, &cp);
    }
    return off;
}

static void put_pos(qr_buf *out, const lsp_doc *d, size_t off)
{
    uint32_t l, c;
    lsp_position(d, off, &l, &c);
    qr_buf_printf(out, "{\"line\":%u,\"character\":%u}", l, c);
}

void lsp_range_cp(qr_buf *out, const lsp_doc *d, uint32_t line, uint32_t col, uint32_t len)
{
    size_t a = lsp_offset_cp(d, line, col);
    size_t b = a;
    for (uint32_t i = 0; i < len && b < d->n && d->text[b] != '\n'; i++) {
        uint32_t cp;
        b += qr_utf8_decode(d->text + b, d->n - b, &cp);
    }
    qr_buf_puts(out, "{\"start\":");
    put_pos(out, d, a);
    qr_buf_puts(out, ",\"end\":");
    put_pos(out, d, b);
    qr_buf_putc(out, '}');
}

/* ---- documents ---- */
typedef struct server {
    int in, out;
    lsp_doc **docs;
    size_t ndocs;
    bool initialized, shutdown;
    qr_jsonrpc_reader rd;
} server;

static lsp_doc *find_doc(server *s, const char *uri, size_t n)
{
    for (size_t i = 0; i < s->ndocs; i++)
        if (strlen(s->docs[i]->uri) == n && !memcmp(s->docs[i]->uri, uri, n))
            return s->docs[i];
    return NULL;
}

static void doc_free(lsp_doc *d)
{
    if (!d)
        return;
    free(d->uri);
    free(d->text);
    free(d->lines);
    qr_arena_release(&d->arena);
    qr_flow_diags_clear(&d->diags);
    free(d);
}

static void doc_set_text(lsp_doc *d, const char *text, size_t n)
{
    char *t = malloc(n + 1);
    if (!t)
        return;
    memcpy(t, text, n);
    t[n] = 0;
    free(d->text);
    d->text = t;
    d->n = n;
    index_lines(d);
    qr_arena_release(&d->arena);
    qr_arena_init(&d->arena, 512u << 20);
    qr_flow_diags_clear(&d->diags);
    qr_flow_diags_init(&d->diags);
    d->file = NULL;
    qr_flow_check_text(&d->arena, d->text, d->n, &d->file, &d->diags);
}

/* ---- output ---- */
static void send_msg(server *s, const qr_buf *body)
{
    qr_jsonrpc_write(s->out, QR_JSONRPC_HEADERS, body->p ? body->p : "", body->len);
}

static void put_id(qr_buf *b, qr_val id)
{
    if (id.t == QR_T_INT)
        qr_buf_printf(b, "%lld", (long long)id.i);
    else if (id.t == QR_T_STR)
        qr_buf_json_string(b, id.s->data, id.s->len);
    else
        qr_buf_puts(b, "null");
}

static void reply(server *s, qr_val id, const char *result, size_t n)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    put_id(&b, id);
    qr_buf_puts(&b, ",\"result\":");
    qr_buf_append(&b, result, n);
    qr_buf_putc(&b, '}');
    send_msg(s, &b);
    qr_buf_release(&b);
}

static void reply_error(server *s, qr_val id, int code, const char *msg)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    put_id(&b, id);
    qr_buf_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
    qr_buf_json_string(&b, msg, strlen(msg));
    qr_buf_puts(&b, "}}");
    send_msg(s, &b);
    qr_buf_release(&b);
}

static void publish(server *s, const lsp_doc *d)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\","
                    "\"params\":{\"uri\":");
    qr_buf_json_string(&b, d->uri, strlen(d->uri));
    qr_buf_puts(&b, ",\"diagnostics\":[");
    for (size_t i = 0; i < d->diags.n; i++) {
        const qr_flow_diag *g = &d->diags.v[i];
        if (i)
            qr_buf_putc(&b, ',');
        qr_buf_puts(&b, "{\"range\":");
        lsp_range_cp(&b, d, g->line, g->col, g->len);
        qr_buf_printf(&b, ",\"severity\":%d,\"code\":\"%s\",\"source\":\"quarry\",\"message\":",
                      g->severity == QR_FLOW_ERROR ? 1 : 2, g->code);
        qr_buf msg;
        qr_buf_init(&msg);
        qr_buf_puts(&msg, g->message);
        if (g->help)
            qr_buf_printf(&msg, "\nhelp: %s", g->help);
        qr_buf_json_string(&b, msg.p, msg.len);
        qr_buf_release(&msg);
        qr_buf_putc(&b, '}');
    }
    qr_buf_puts(&b, "]}}");
    send_msg(s, &b);
    qr_buf_release(&b);
}

static qr_val field(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    if (m.t == QR_T_MAP && qr_map_lookup(m, qr_kw(a, k, strlen(k)), &v))
        return v;
    return qr_nil();
}

static bool str_is(qr_val v, const char *s)
{
    return v.t == QR_T_STR && v.s->len == strlen(s) && !memcmp(v.s->data, s, v.s->len);
}

static const char capabilities[] =
    "{\"capabilities\":{\"positionEncoding\":\"utf-16\",\"textDocumentSync\":{\"openClose\":true,"
    "\"change\":1},\"completionProvider\":{\"triggerCharacters\":[\"$\",\".\",\" \"]},"
    "\"hoverProvider\":true,\"definitionProvider\":true,\"documentSymbolProvider\":true,"
    "\"documentFormattingProvider\":true},\"serverInfo\":{\"name\":\"quarry\",\"version\":\"" QR_VERSION
    "\"}}";

static void formatting(qr_buf *out, const lsp_doc *d)
{
    bool syntax = false;
    for (size_t i = 0; i < d->diags.n; i++)
        if (!strcmp(d->diags.v[i].code, "E0007") || !strcmp(d->diags.v[i].code, "E0008"))
            syntax = true;
    if (syntax || !d->file) {
        qr_buf_puts(out, "null");
        return;
    }
    qr_buf f;
    qr_buf_init(&f);
    qr_flow_format(d->file, &f);
    if (f.len == d->n && (!f.len || !memcmp(f.p, d->text, f.len))) {
        qr_buf_puts(out, "[]");
    } else {
        qr_buf_puts(out, "[{\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":");
        put_pos(out, d, d->n);
        qr_buf_puts(out, "},\"newText\":");
        qr_buf_json_string(out, f.p ? f.p : "", f.len);
        qr_buf_puts(out, "}]");
    }
    qr_buf_release(&f);
}

/* Handles one message; returns false after `exit`. */
static bool handle(server *s, const char *body, size_t n, int *status)
{
    qr_arena a;
    qr_arena_init(&a, 256u << 20);
    qr_val msg;
    qr_read_error re;
    bool go_on = true;
    if (qr_json_read(&a, body, n, &msg, &re) != QR_OK || msg.t != QR_T_MAP) {
        reply_error(s, qr_nil(), -32700, "parse error: the message is not a JSON object");
        goto done;
    }
    qr_val id = field(&a, msg, "id"), method = field(&a, msg, "method");
    qr_val params = field(&a, msg, "params");
    qr_val tmp;
    bool is_request = qr_map_lookup(msg, qr_kw(&a, "id", 2), &tmp);
    if (method.t != QR_T_STR) {
        if (is_request && qr_is_nil(field(&a, msg, "result")) && qr_is_nil(field(&a, msg, "error")))
            reply_error(s, id, -32600, "invalid request: no method");
        goto done; /* a response to something we never asked: ignore */
    }
    if (str_is(method, "exit")) {
        *status = s->shutdown ? 0 : 1;
        go_on = false;
        goto done;
    }
    if (str_is(method, "initialize")) {
        s->initialized = true;
        reply(s, id, capabilities, sizeof capabilities - 1);
        goto done;
    }
    if (!s->initialized) {
        if (is_request)
            reply_error(s, id, -32002, "the server is not initialized");
        goto done;
    }
    if (str_is(method, "initialized") || str_is(method, "$/cancelRequest") ||
        str_is(method, "$/setTrace") || str_is(method, "workspace/didChangeConfiguration"))
        goto done;
    if (str_is(method, "shutdown")) {
        s->shutdown = true;
        reply(s, id, "null", 4);
        goto done;
    }
    qr_val td = field(&a, params, "textDocument");
    qr_val uri = field(&a, td, "uri");
    if (str_is(method, "textDocument/didOpen") || str_is(method, "textDocument/didChange")) {
        qr_val text = field(&a, td, "text");
        if (str_is(method, "textDocument/didChange")) {
            qr_val changes = field(&a, params, "contentChanges");
            text = qr_nil();
            if (changes.t == QR_T_VEC && qr_vec_len(changes))
                text = field(&a, qr_vec_at(changes, qr_vec_len(changes) - 1), "text");
        }
        if (uri.t != QR_T_STR || text.t != QR_T_STR)
            goto done;
        lsp_doc *d = find_doc(s, uri.s->data, uri.s->len);
        if (!d) {
            d = calloc(1, sizeof *d);
            lsp_doc **nd = d ? realloc(s->docs, (s->ndocs + 1) * sizeof *nd) : NULL;
            if (!d || !nd) {
                free(d);
                goto done;
            }
            s->docs = nd;
            d->uri = strndup(uri.s->data, uri.s->len);
            qr_arena_init(&d->arena, 0);
            qr_flow_diags_init(&d->diags);
            s->docs[s->ndocs++] = d;
        }
        doc_set_text(d, text.s->data, text.s->len);
        publish(s, d);
        goto done;
    }
    if (str_is(method, "textDocument/didClose")) {
        for (size_t i = 0; uri.t == QR_T_STR && i < s->ndocs; i++)
            if (strlen(s->docs[i]->uri) == uri.s->len &&
                !memcmp(s->docs[i]->uri, uri.s->data, uri.s->len)) {
                /* clear its diagnostics, then forget it */
                lsp_doc *d = s->docs[i];
                qr_flow_diags_clear(&d->diags);
                qr_flow_diags_init(&d->diags);
                publish(s, d);
                doc_free(d);
                s->docs[i] = s->docs[--s->ndocs];
                break;
            }
        goto done;
    }
    if (str_is(method, "textDocument/didSave"))
        goto done;
    if (!is_request)
        goto done; /* unknown notifications are ignored */
    {
        lsp_doc *d = uri.t == QR_T_STR ? find_doc(s, uri.s->data, uri.s->len) : NULL;
        bool known = str_is(method, "textDocument/completion") ||
                     str_is(method, "textDocument/hover") ||
                     str_is(method, "textDocument/definition") ||
                     str_is(method, "textDocument/documentSymbol") ||
                     str_is(method, "textDocument/formatting");
        if (!known) {
            char m[200];
            snprintf(m, sizeof m, "method not found: %.*s",
                     (int)(method.s->len < 120 ? method.s->len : 120), method.s->data);
            qr_utf8_clean(m, sizeof m);
            reply_error(s, id, -32601, m);
            goto done;
        }
        if (!d) {
            reply_error(s, id, -32602, "unknown document: open it first (textDocument/didOpen)");
            goto done;
        }
        qr_val pos = field(&a, params, "position");
        qr_val pl = field(&a, pos, "line"), pc = field(&a, pos, "character");
        size_t off = lsp_offset(d, pl.t == QR_T_INT && pl.i >= 0 ? (uint32_t)pl.i : 0,
                                pc.t == QR_T_INT && pc.i >= 0 ? (uint32_t)pc.i : 0);
        qr_buf out;
        qr_buf_init(&out);
        if (str_is(method, "textDocument/completion"))
            lsp_completion(&out, d, off);
        else if (str_is(method, "textDocument/hover"))
            lsp_hover(&out, d, off);
        else if (str_is(method, "textDocument/definition"))
            lsp_definition(&out, d, off);
        else if (str_is(method, "textDocument/documentSymbol"))
            lsp_symbols(&out, d);
        else
            formatting(&out, d);
        reply(s, id, out.p ? out.p : "null", out.p ? out.len : 4);
        qr_buf_release(&out);
    }
done:
    qr_arena_release(&a);
    return go_on;
}

int qr_lsp_serve(int in_fd, int out_fd)
{
    server s;
    memset(&s, 0, sizeof s);
    s.in = in_fd;
    s.out = out_fd;
    if (qr_jsonrpc_reader_init(&s.rd, in_fd, QR_JSONRPC_HEADERS, 0) != QR_OK)
        return 1;
    int status = 1;
    for (;;) {
        const char *body;
        size_t len;
        int rc = qr_jsonrpc_read(&s.rd, -1, NULL, &body, &len);
        if (rc == QR_ELIMIT || rc == QR_EINVAL) {
            char msg[256];
            snprintf(msg, sizeof msg, "parse error: %s", s.rd.error);
            /* a message too big to read whole still names its id: the client's request gets
             * its answer, not one to id null that it never waits for */
            qr_arena ida;
            qr_arena_init(&ida, 4096);
            qr_val id = qr_nil();
            qr_read_error ie;
            if (!s.rd.has_id || qr_json_read(&ida, s.rd.id, s.rd.idlen, &id, &ie) != QR_OK)
                id = qr_nil();
            reply_error(&s, id, -32700, msg);
            qr_arena_release(&ida);
            continue;
        }
        if (rc != QR_OK)
            break;
        if (!handle(&s, body, len, &status))
            break;
    }
    for (size_t i = 0; i < s.ndocs; i++)
        doc_free(s.docs[i]);
    free(s.docs);
    qr_jsonrpc_reader_release(&s.rd);
    return status;
}
