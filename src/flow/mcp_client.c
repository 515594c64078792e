/*
 * mcp_client.c: quarry as a Model Context Protocol client, for `tool X = mcp "stdio:CMD"`.
 * The server is started with /bin/sh -c CMD by quarry/proc.h (its own process group, a
 * scrubbed environment: a key it needs is passed in CMD with ${env:VAR}); its stdin and
 * stdout are one end of a socket pair (so a server that dies makes writes fail with EPIPE
 * instead of killing quarry with SIGPIPE: send with MSG_NOSIGNAL), its stderr goes to
 * /dev/null. Messages
 * are JSON-RPC 2.0, one a line (the stdio transport, framed by quarry/jsonrpc.h):
 * initialize (protocol 2025-11-25), notifications/initialized, tools/list (following
 * nextCursor), tools/call. Anything the server sends that is not the answer awaited
 * (notifications, its own requests) is skipped. Every wait is bounded (30 s a message)
 * and a message is at most QR_JSONRPC_MAX_MESSAGE (16 MiB): a larger one is dropped, and
 * fails the request when it was the answer awaited.
 *
 * Streamable HTTP (`mcp "https://..."`, optionally `with auth bearer "TOKEN"`): each
 * message is POSTed (qr_http_post, on the model client's libcurl) with Accept:
 * application/json, text/event-stream; the answer is a JSON body or an SSE stream whose
 * events carry the messages; the session id the server gives at initialize
 * (Mcp-Session-Id) and the protocol version go with every later request. The server's
 * own GET stream (server-initiated messages) is not opened: tools need none of it.
 */
#define _GNU_SOURCE
#include "run_int.h"
#include "quarry/jsonrpc.h"
#include "quarry/llm.h"
#include "quarry/proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MCP_WAIT_MS 30000

struct flow_mcp {
    bool http;
    char *url, *token;
    char session[256];
    qr_proc proc; /* a stdio server (quarry/proc.h) */
    int fd;       /* proc's socket: its stdin and stdout */
    qr_jsonrpc_reader rd; /* the server's messages */
    long next_id;
    qr_buf tools; /* the neutral tool list, once fetched */
    bool have_tools;
};

static int send_line(flow_mcp *m, const qr_buf *msg, qr_buf *err)
{
    if (qr_jsonrpc_write(m->fd, QR_JSONRPC_LINES, msg->p, msg->len) != QR_OK) {
        qr_buf_printf(err, "cannot write to the MCP server: %s", strerror(errno));
        return QR_EIO;
    }
    return QR_OK;
}

/* Reads messages until the answer to request id, parsed into *v (in a). */
static int read_answer(flow_mcp *m, qr_arena *a, long id, qr_val *v, qr_buf *err)
{
    for (;;) {
        const char *line;
        size_t n;
        int rc = qr_jsonrpc_read(&m->rd, MCP_WAIT_MS, NULL, &line, &n);
        if (rc == QR_ELIMIT) {
            char want[32];
            snprintf(want, sizeof want, "%ld", id);
            if (m->rd.has_id && !strcmp(m->rd.id, want)) {
                qr_buf_printf(err, "the MCP server sent an answer of %zu bytes, over the limit "
                                   "of %u bytes",
                              m->rd.bad_len, QR_JSONRPC_MAX_MESSAGE);
                return QR_EIO;
            }
            continue; /* something else too large: skipped */
        }
        if (rc == QR_EIO && m->rd.eof && !m->rd.read_errno) {
            qr_buf_puts(err, "the MCP server closed the connection");
            return QR_EIO;
        }
        if (rc == QR_EIO && !m->rd.eof) {
            qr_buf_printf(err, "the MCP server did not answer within %d s", MCP_WAIT_MS / 1000);
            return QR_EIO;
        }
        if (rc != QR_OK) {
            qr_buf_printf(err, "reading from the MCP server: %s", m->rd.error);
            return rc;
        }
        qr_read_error re;
        if (qr_json_read(a, line, n, v, &re) != QR_OK || v->t != QR_T_MAP)
            continue; /* not a message: skip */
        qr_val vid = flow_field(a, *v, "id", 2);
        if (vid.t == QR_T_INT && vid.i == id)
            return QR_OK;
        /* a notification or the server's own request */
    }
}

/* POSTs one message over Streamable HTTP. For a request (id != 0), *found receives the
 * answer with that id: the JSON body, or the data of one of the SSE events. */
static int http_post(flow_mcp *m, const qr_buf *msg, qr_arena *a, long id, qr_val *found,
                     qr_buf *err)
{
    char auth[600] = "", sess[300] = "";
    const char *hdrs[6];
    int k = 0;
    hdrs[k++] = "Content-Type: application/json";
    hdrs[k++] = "Accept: application/json, text/event-stream";
    hdrs[k++] = "MCP-Protocol-Version: 2025-11-25";
    if (m->token && *m->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", m->token);
        hdrs[k++] = auth;
    }
    if (m->session[0]) {
        snprintf(sess, sizeof sess, "Mcp-Session-Id: %s", m->session);
        hdrs[k++] = sess;
    }
    hdrs[k] = NULL;
    qr_http_reply r;
    qr_http_reply_init(&r);
    int rc = qr_http_post(m->url, hdrs, msg->p, msg->len, MCP_WAIT_MS, &r);
    if (rc) {
        qr_buf_puts(err, r.error);
    } else if (r.status == 401 || r.status == 403) {
        qr_buf_printf(err, "the MCP server at %s refused the credentials (HTTP %d)", m->url,
                      r.status);
        rc = QR_EIO;
    } else if (r.status < 200 || r.status >= 300) {
        qr_buf_printf(err, "the MCP server at %s answered HTTP %d", m->url, r.status);
        rc = QR_EIO;
    } else {
        char v[256];
        if (qr_http_header(&r, "Mcp-Session-Id", v, sizeof v) && !m->session[0])
            snprintf(m->session, sizeof m->session, "%s", v);
        char ct[128] = "";
        qr_http_header(&r, "Content-Type", ct, sizeof ct);
        /* the messages: the body, or each SSE event's data lines */
        const char *p = r.body.p ? r.body.p : "", *end = p + r.body.len;
        bool sse = strstr(ct, "text/event-stream") != NULL;
        qr_buf data;
        qr_buf_init(&data);
        while (id && p <= end && found->t == QR_T_NIL) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            if (n && p[n - 1] == '\r')
                n--;
            bool last = !nl;
            if (!sse) {
                qr_buf_append(&data, r.body.p ? r.body.p : "", r.body.len);
                last = true;
            } else if (n >= 5 && !memcmp(p, "data:", 5)) {
                size_t off = p[5] == ' ' ? 6 : 5;
                if (data.len)
                    qr_buf_putc(&data, '\n');
                qr_buf_append(&data, p + off, n - off);
            }
            if ((!sse || n == 0 || last) && data.len) {
                qr_val v2;
                qr_read_error re;
                if (qr_json_read(a, data.p, data.len, &v2, &re) == QR_OK && v2.t == QR_T_MAP) {
                    qr_val vid = flow_field(a, v2, "id", 2);
                    if (vid.t == QR_T_INT && vid.i == id)
                        *found = v2;
                }
                qr_buf_reset(&data);
            }
            if (last || !sse)
                break;
            p = nl + 1;
        }
        qr_buf_release(&data);
        if (id && found->t == QR_T_NIL) {
            qr_buf_printf(err, "the MCP server at %s sent no answer to request %ld", m->url, id);
            rc = QR_EIO;
        }
    }
    qr_http_reply_clear(&r);
    return rc;
}

/* Sends a request and waits for its answer; *result is its "result" (in a). */
static int request(flow_mcp *m, qr_arena *a, const char *method, const char *params,
                   qr_val *result, qr_buf *err)
{
    long id = ++m->next_id;
    qr_buf msg;
    qr_buf_init(&msg);
    qr_buf_printf(&msg, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\"", id, method);
    if (params)
        qr_buf_printf(&msg, ",\"params\":%s", params);
    qr_buf_putc(&msg, '}');
    if (m->http) {
        qr_val v = qr_nil();
        int hrc = http_post(m, &msg, a, id, &v, err);
        qr_buf_release(&msg);
        if (hrc)
            return hrc;
        qr_val e = flow_field(a, v, "error", 5);
        if (!qr_is_nil(e)) {
            qr_buf_printf(err, "%s failed: ", method);
            flow_stringify(err, flow_field(a, e, "message", 7));
            return QR_EIO;
        }
        *result = flow_field(a, v, "result", 6);
        return QR_OK;
    }
    int rc = send_line(m, &msg, err);
    qr_buf_release(&msg);
    qr_val v;
    if (!rc && !(rc = read_answer(m, a, id, &v, err))) {
        qr_val e = flow_field(a, v, "error", 5);
        if (!qr_is_nil(e)) {
            qr_buf_printf(err, "%s failed: ", method);
            flow_stringify(err, flow_field(a, e, "message", 7));
            return QR_EIO;
        }
        *result = flow_field(a, v, "result", 6);
    }
    return rc;
}

/* initialize, then notifications/initialized */
static int handshake(flow_mcp *m, qr_buf *err)
{
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val res;
    int rc = request(m, &a,
                     "initialize",
                     "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                     "\"clientInfo\":{\"name\":\"quarry\",\"version\":\"" QR_VERSION "\"}}",
                     &res, err);
    if (!rc) {
        qr_buf note;
        qr_buf_init(&note);
        qr_buf_puts(&note, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        if (m->http) {
            qr_val none = qr_nil();
            rc = http_post(m, &note, &a, 0, &none, err);
        } else {
            rc = send_line(m, &note, err);
        }
        qr_buf_release(&note);
    }
    qr_arena_release(&a);
    return rc;
}

int flow_mcp_start_http(const char *url, const char *token, flow_mcp **out, qr_buf *err)
{
    *out = NULL;
    flow_mcp *m = calloc(1, sizeof *m);
    if (!m)
        return QR_ENOMEM;
    m->http = true;
    m->fd = -1;
    m->url = strdup(url);
    m->token = token ? strdup(token) : NULL;
    qr_buf_init(&m->tools);
    int rc = !m->url || (token && !m->token) ? QR_ENOMEM : handshake(m, err);
    if (rc) {
        flow_mcp_stop(m);
        return rc;
    }
    *out = m;
    return QR_OK;
}

/* What a stdio server gets of quarry's environment besides quarry/proc.h's allow-list:
 * quarry's own settings that hold no secret. A server that needs a key is handed it in
 * the command with ${env:VAR}. */
static const char *const server_env[] = {"QUARRY_NOW",     "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                                         "XDG_CACHE_HOME", "XDG_DATA_HOME",   NULL};

int flow_mcp_start(const char *cmd, flow_mcp **out, qr_buf *err)
{
    *out = NULL;
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    qr_proc_opts o = {.argv = argv, .env_pass = server_env, .in = QR_PROC_SOCKET,
                      .out = QR_PROC_SOCKET, .err = QR_PROC_NULL};
    qr_proc p;
    qr_buf why;
    qr_buf_init(&why);
    int rc = qr_proc_start(&p, &o, &why);
    if (rc != QR_OK) {
        qr_buf_printf(err, "cannot start the MCP server: %s", why.p ? why.p : "");
        qr_buf_release(&why);
        return rc;
    }
    qr_buf_release(&why);
    flow_mcp *m = calloc(1, sizeof *m);
    if (!m) {
        qr_proc_end(&p, 0);
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    m->proc = p;
    m->fd = p.in;
    qr_buf_init(&m->tools);
    rc = qr_jsonrpc_reader_init(&m->rd, m->fd, QR_JSONRPC_LINES, 0);
    if (!rc)
        rc = handshake(m, err);
    if (rc) {
        qr_buf tmp;
        qr_buf_init(&tmp);
        qr_buf_printf(&tmp, "MCP server '%s': %s", cmd, err->p ? err->p : "failed to start");
        qr_buf_reset(err);
        qr_buf_append(err, tmp.p, tmp.len);
        qr_buf_release(&tmp);
        flow_mcp_stop(m);
        return rc;
    }
    *out = m;
    return QR_OK;
}

void flow_mcp_stop(flow_mcp *m)
{
    if (!m)
        return;
    if (m->http) {
        free(m->url);
        free(m->token);
    } else {
        /* closing its stdin ends a well-behaved server; then TERM, then KILL (its group) */
        qr_proc_end(&m->proc, 500);
    }
    qr_jsonrpc_reader_release(&m->rd);
    qr_buf_release(&m->tools);
    free(m);
}

int flow_mcp_tools(flow_mcp *m, qr_buf *out, qr_buf *err)
{
    if (m->have_tools) {
        qr_buf_append(out, m->tools.p ? m->tools.p : "[]", m->tools.p ? m->tools.len : 2);
        return QR_OK;
    }
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_buf list;
    qr_buf_init(&list);
    qr_buf_putc(&list, '[');
    size_t count = 0;
    int rc = QR_OK;
    char cursor[512] = "";
    for (int page = 0; page < 100; page++) {
        qr_buf params;
        qr_buf_init(&params);
        if (cursor[0]) {
            qr_buf_puts(&params, "{\"cursor\":");
            qr_buf_json_string(&params, cursor, strlen(cursor));
            qr_buf_putc(&params, '}');
        } else {
            qr_buf_puts(&params, "{}");
        }
        qr_val res;
        rc = request(m, &a, "tools/list", params.p, &res, err);
        qr_buf_release(&params);
        if (rc)
            break;
        qr_val tools = flow_field(&a, res, "tools", 5);
        for (size_t i = 0; tools.t == QR_T_VEC && i < qr_vec_len(tools); i++) {
            qr_val t = qr_vec_at(tools, i);
            qr_val name = flow_field(&a, t, "name", 4);
            if (name.t != QR_T_STR)
                continue;
            if (count++)
                qr_buf_putc(&list, ',');
            qr_buf_puts(&list, "{\"name\":");
            qr_buf_json_string(&list, name.s->data, name.s->len);
            qr_buf_puts(&list, ",\"description\":");
            qr_buf desc;
            qr_buf_init(&desc);
            flow_stringify(&desc, flow_field(&a, t, "description", 11));
            qr_buf_json_string(&list, desc.p ? desc.p : "", desc.len);
            qr_buf_release(&desc);
            qr_buf_puts(&list, ",\"input_schema\":");
            qr_val schema = flow_field(&a, t, "inputSchema", 11);
            if (schema.t == QR_T_MAP)
                qr_print_json(&list, schema, false);
            else
                qr_buf_puts(&list, "{\"type\":\"object\"}");
            qr_buf_putc(&list, '}');
        }
        qr_val next = flow_field(&a, res, "nextCursor", 10);
        if (next.t != QR_T_STR || !next.s->len || next.s->len >= sizeof cursor)
            break;
        memcpy(cursor, next.s->data, next.s->len);
        cursor[next.s->len] = 0;
    }
    qr_buf_putc(&list, ']');
    if (!rc) {
        qr_buf_append(&m->tools, list.p, list.len);
        m->have_tools = true;
        qr_buf_append(out, list.p, list.len);
    }
    qr_buf_release(&list);
    qr_arena_release(&a);
    return rc;
}

int flow_mcp_call(flow_mcp *m, const char *name, const char *args_json, size_t argsn,
                  qr_buf *text, bool *is_error, qr_buf *err)
{
    qr_arena a;
    qr_arena_init(&a, 256u << 20);
    qr_buf params;
    qr_buf_init(&params);
    qr_buf_puts(&params, "{\"name\":");
    qr_buf_json_string(&params, name, strlen(name));
    qr_buf_puts(&params, ",\"arguments\":");
    qr_buf_append(&params, args_json, argsn);
    qr_buf_putc(&params, '}');
    qr_val res;
    int rc = request(m, &a, "tools/call", params.p, &res, err);
    qr_buf_release(&params);
    if (!rc) {
        qr_val content = flow_field(&a, res, "content", 7);
        qr_val iserr = flow_field(&a, res, "isError", 7);
        *is_error = iserr.t == QR_T_BOOL && iserr.b;
        for (size_t i = 0; content.t == QR_T_VEC && i < qr_vec_len(content); i++) {
            qr_val c = qr_vec_at(content, i);
            qr_val t = flow_field(&a, c, "text", 4);
            if (t.t == QR_T_STR) {
                if (text->len)
                    qr_buf_putc(text, '\n');
                qr_buf_append(text, t.s->data, t.s->len);
            }
        }
        if (!text->len) {
            qr_val sc = flow_field(&a, res, "structuredContent", 17);
            if (!qr_is_nil(sc))
                qr_print_json(text, sc, false);
        }
    }
    qr_arena_release(&a);
    return rc;
}
