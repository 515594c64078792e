/*
 * server.c: the protocol layer of the MCP server: one JSON-RPC 2.0 message at a time is
 * read, checked (jsonrpc "2.0", an id that is a string or an integer, a method that is a
 * string, params that are an object), dispatched through the method table, and answered
 * with a result or an error whose message says what to send instead. Also the lifecycle
 * (initialize with version negotiation, notifications/initialized), ping,
 * logging/setLevel with notifications/message, progress notifications, and the record of
 * cancelled requests.
 *
 * Design: the method table has one record per method (name, handler, flags, the
 * revisions it exists in), in the manner of Redis's command table, so the checks that
 * depend on the method (may it come before initialize? is it a notification? is it
 * part of the negotiated revision? should the transport be polled for a cancellation
 * before answering?) are data, and the stateless 2026-07-28 revision (server/discover,
 * no initialize, ping and logging/setLevel removed) is a matter of records and their
 * revision ranges. Notifications are never answered, even when malformed, as JSON-RPC
 * requires; a message whose id cannot be read is answered with id null. A request whose
 * cancellation arrived (qr_mcp_peek) is not answered, or not started when it had not
 * started. Every response is printed from values by the JSON printer, which escapes
 * control characters, so a message never holds a raw newline.
 *
 * Rejected: JSON-RPC batches (removed from MCP in 2025-06-18; clients of 2025-03-26 do not
 * send them in practice): a batch is answered with one Invalid Request error. Refusing
 * requests between the initialize response and notifications/initialized (clients that
 * pipeline them would fail for nothing). Answering an initialize for an unknown revision
 * with an error: the lifecycle says to answer with the newest revision the server has,
 * and let the client decide.
 */
#include "mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const qr_mcp_protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                "2024-11-05", NULL};

/* RFC 5424 severities, lowest first, as logging/setLevel names them */
static const char *const log_levels[] = {"debug", "info",     "notice", "warning",
                                         "error", "critical", "alert",  "emergency"};
#define NLEVELS (sizeof log_levels / sizeof log_levels[0])
#define LEVEL_INFO 1
#define LEVEL_WARNING 3

/* bytes one message may allocate while it is handled (its JSON, a tool's result) */
#define MESSAGE_ARENA_CAP ((size_t)2 << 30)

void qr_mcp_config_init(qr_mcp_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_message = QR_MCP_MAX_MESSAGE;
    c->page_size = QR_MCP_PAGE_SIZE;
    c->max_rows = QR_TOOLS_OUTPUT_ROWS;
    qr_lisp_limits_default(&c->limits);
    c->version = QR_VERSION;
    c->workers = QR_MCP_WORKERS;
}

uint64_t mcp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool mcp_since(const qr_mcp_server *s, const char *rev)
{
    return strcmp(s->version, rev) >= 0;
}

/* ---- values ---- */

qr_val mcp_get(qr_arena *a, qr_val map, const char *key)
{
    qr_val v;
    if (map.t == QR_T_MAP && qr_map_lookup(map, qr_kw_cstr(a, key), &v))
        return v;
    return qr_nil();
}

bool mcp_has(qr_arena *a, qr_val map, const char *key)
{
    qr_val v;
    return map.t == QR_T_MAP && qr_map_lookup(map, qr_kw_cstr(a, key), &v);
}

/* Whether any string or key in v (a parsed message: maps, vectors, strings) holds a NUL
 * byte. Such a string would be cut at the NUL wherever it becomes a C string (a method
 * or tool name, a log level, a repository path): "debug\u0000x" would pass as "debug".
 * The JSON reader bounds the depth, so the recursion is bounded too. */
static bool has_nul(qr_val v)
{
    switch (v.t) {
    case QR_T_STR: return memchr(v.s->data, 0, v.s->len) != NULL;
    case QR_T_KW:
    case QR_T_SYM: return memchr(v.sym->text, 0, v.sym->len) != NULL;
    case QR_T_VEC:
        for (size_t i = 0; i < qr_vec_len(v); i++)
            if (has_nul(qr_vec_at(v, i)))
                return true;
        return false;
    case QR_T_MAP:
        for (size_t i = 0; i < qr_map_len(v); i++)
            if (has_nul(qr_map_key_at(v, i)) || has_nul(qr_map_val_at(v, i)))
                return true;
        return false;
    default: return false;
    }
}

static bool is_str(qr_val v, const char *s)
{
    return v.t == QR_T_STR && !strcmp(v.s->data, s);
}

/* The JSON text of v, NUL-terminated, in a. */
static const char *json_text(qr_arena *a, qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print_json(&b, v, false);
    const char *t = b.failed ? NULL : qr_arena_strndup(a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return t;
}

void mcp_describe(qr_buf *b, qr_val v)
{
    const char *type;
    switch (v.t) {
    case QR_T_NIL: qr_buf_puts(b, "null"); return;
    case QR_T_BOOL: qr_buf_puts(b, v.b ? "true" : "false"); return;
    case QR_T_INT: type = "integer"; break;
    case QR_T_DOUBLE: type = "number"; break;
    case QR_T_STR: type = "string"; break;
    case QR_T_MAP: type = "object"; break;
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_SET: type = "array"; break;
    default: type = qr_type_name((qr_type)v.t);
    }
    qr_buf text;
    qr_buf_init(&text);
    qr_print_json(&text, v, false);
    enum { MAX = 60 };
    size_t n = text.len <= MAX ? text.len : qr_utf8_offset(text.p, text.len, MAX - 3);
    qr_buf_printf(b, "%s ", type);
    qr_buf_append(b, text.p ? text.p : "", n);
    if (n < text.len)
        qr_buf_puts(b, "...");
    qr_buf_release(&text);
}

int mcp_fail(mcp_req *r, int code, const char *fmt, ...)
{
    r->err_code = code;
    qr_buf_reset(&r->err);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&r->err, fmt, ap);
    va_end(ap);
    return MCP_FAIL;
}

/* ---- sending ---- */

/* Sends one message, unless `unless` says its request was cancelled; the caller holds
 * out_mu. rel: the JSON text of the id of the request it answers (final) or reports on,
 * or NULL. */
static int send_locked(qr_mcp_server *s, qr_buf *b, const qr_stop *unless, const char *rel,
                       bool final)
{
    if (atomic_load(&s->io_failed))
        return QR_EIO;
    if (b->failed)
        return QR_ENOMEM;
    if (unless && atomic_load(&((qr_stop *)unless)->requested))
        return QR_OK;
    if (s->send && s->send(s->io_ud, b->p, b->len, rel, final) != QR_OK) {
        atomic_store(&s->io_failed, true);
        return QR_EIO;
    }
    return QR_OK;
}

static int send_buf_unless(qr_mcp_server *s, qr_buf *b, const qr_stop *unless, const char *rel,
                           bool final)
{
    pthread_mutex_lock(&s->out_mu);
    int rc = send_locked(s, b, unless, rel, final);
    pthread_mutex_unlock(&s->out_mu);
    return rc;
}

/* Sends the response to the request with this id (its JSON text is the message's rel). */
static int send_response(qr_mcp_server *s, qr_buf *b, qr_val id)
{
    char rel[160];
    qr_buf t;
    qr_buf_init(&t);
    qr_print_json(&t, id, false);
    snprintf(rel, sizeof rel, "%.*s", (int)t.len, t.p ? t.p : "null");
    qr_buf_release(&t);
    return send_buf_unless(s, b, NULL, rel, true);
}

static int send_result(qr_mcp_server *s, qr_val id, qr_val result)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    qr_print_json(&b, id, false);
    qr_buf_puts(&b, ",\"result\":");
    qr_print_json(&b, result, false);
    qr_buf_putc(&b, '}');
    int rc = send_response(s, &b, id);
    qr_buf_release(&b);
    return rc;
}

static int send_error(qr_mcp_server *s, qr_val id, int code, const char *msg, qr_val data)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    qr_print_json(&b, id, false);
    qr_buf_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
    qr_buf_json_string(&b, msg, strlen(msg));
    if (!qr_is_nil(data)) {
        qr_buf_puts(&b, ",\"data\":");
        qr_print_json(&b, data, false);
    }
    qr_buf_puts(&b, "}}");
    int rc = send_response(s, &b, id);
    qr_buf_release(&b);
    return rc;
}

int mcp_notify(qr_mcp_server *s, const char *method, qr_val params, const qr_stop *unless,
               const char *rel)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":");
    qr_buf_json_string(&b, method, strlen(method));
    qr_buf_puts(&b, ",\"params\":");
    qr_print_json(&b, params, false);
    qr_buf_putc(&b, '}');
    int rc = send_buf_unless(s, &b, unless, rel, false);
    qr_buf_release(&b);
    return rc;
}

static int level_index(const char *name)
{
    for (size_t i = 0; i < NLEVELS; i++)
        if (!strcmp(log_levels[i], name))
            return (int)i;
    return -1;
}

void mcp_log(qr_mcp_server *s, const char *level, const char *msg)
{
    int li = level_index(level);
    if (li >= LEVEL_WARNING && s->cfg.log)
        s->cfg.log(s->cfg.log_ud, msg);
    if (!s->initialized || li < atomic_load(&s->log_level))
        return;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb m;
    qr_mapb_init(&m, &a, 3);
    qr_mapb_put(&m, qr_kw_cstr(&a, "level"), qr_str_cstr(&a, level));
    qr_mapb_put(&m, qr_kw_cstr(&a, "logger"), qr_str_cstr(&a, "quarry"));
    qr_mapb_put(&m, qr_kw_cstr(&a, "data"), qr_str_cstr(&a, msg));
    qr_val params = qr_mapb_finish(&m, QR_T_MAP);
    if (!a.exhausted)
        mcp_notify(s, "notifications/message", params, NULL, NULL);
    qr_arena_release(&a);
}

/* ---- cancellation ---- */

static bool take_cancelled(qr_mcp_server *s, const char *id)
{
    if (!id)
        return false;
    for (size_t i = 0; i < MCP_CANCEL_RING; i++)
        if (s->cancelled[i] && !strcmp(s->cancelled[i], id)) {
            free(s->cancelled[i]);
            s->cancelled[i] = NULL;
            return true;
        }
    return false;
}

static void note_cancelled(qr_mcp_server *s, const char *id)
{
    for (size_t i = 0; i < MCP_CANCEL_RING; i++)
        if (s->cancelled[i] && !strcmp(s->cancelled[i], id))
            return;
    size_t n = strlen(id);
    char *copy = malloc(n + 1);
    if (!copy)
        return; /* a cancellation is advice: losing one only costs an unused answer */
    memcpy(copy, id, n + 1);
    free(s->cancelled[s->cancel_next]);
    s->cancelled[s->cancel_next] = copy;
    s->cancel_next = (s->cancel_next + 1) % MCP_CANCEL_RING;
}

static bool contains(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, k))
            return true;
    return false;
}

void qr_mcp_peek(qr_mcp_server *s, const char *msg, size_t len)
{
    if (!contains(msg, len, "notifications/cancelled"))
        return;
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val m;
    qr_read_error e;
    if (qr_json_read(&a, msg, len, &m, &e) == QR_OK && m.t == QR_T_MAP && !mcp_has(&a, m, "id") &&
        is_str(mcp_get(&a, m, "method"), "notifications/cancelled")) {
        qr_val rid = mcp_get(&a, mcp_get(&a, m, "params"), "requestId");
        const char *text = (rid.t == QR_T_STR || rid.t == QR_T_INT) ? json_text(&a, rid) : NULL;
        if (text)
            note_cancelled(s, text);
    }
    qr_arena_release(&a);
}

/* ---- methods ---- */

static qr_val map_of(qr_arena *a, const char *k1, qr_val v1, const char *k2, qr_val v2)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    if (k1)
        qr_mapb_put(&m, qr_kw_cstr(a, k1), v1);
    if (k2)
        qr_mapb_put(&m, qr_kw_cstr(a, k2), v2);
    return qr_mapb_finish(&m, QR_T_MAP);
}

/* The instructions: how the tools fit together, and the names of the tools this server
 * serves (from its list, so they cannot drift from tools/list). */
static const char instructions[] =
    "quarry answers questions about a git repository and an agent's memory. History: "
    "commits, authors, file churn and line counts of any window (the get_* tools). Code: "
    "the repository's code as a graph of files, functions, types, calls and includes "
    "(query_codebase; sparql_query for SPARQL over it; search_codebase for a question in "
    "plain words). Memory: a store of notes with types, weights, tags and links, read with "
    "a pipeline of stages (memory_query, memory_get; the memory tools that write are served "
    "only when the server was started with --allow-write memory). dwim takes one terse line "
    "(skeleton FILE, expand SYMBOL, read FILE:A-B, grep 'RE', callers SYMBOL) and answers "
    "in few tokens. Call one tool for one question; to filter, join or aggregate across "
    "calls, send one run_query query or one run_lisp program that calls the tools as "
    "(tool/NAME {...}), and get back only what you need. Every tool works on the repository "
    "the server was started in, or on the one named by its `repo` argument. Results that "
    "are lists come a page at a time: a cut result gives the total and a next_offset to "
    "pass as `offset` for the next page; or aggregate in run_query or run_lisp.";

static qr_val instructions_text(qr_mcp_server *s, qr_arena *a)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, instructions);
    qr_buf_puts(&b, " Tools served:");
    for (size_t i = 0; i < s->nlist; i++)
        qr_buf_printf(&b, "%s %s", i ? "," : "", s->list[i].tool->name);
    qr_buf_putc(&b, '.');
    qr_val v = qr_str_new(a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return v;
}

static int m_initialize(qr_mcp_server *s, mcp_req *r)
{
    qr_arena *a = r->a;
    if (s->initialized)
        return mcp_fail(r, RPC_INVALID_REQUEST,
                        "already initialized with protocol %s: initialize is sent once, as the "
                        "first request",
                        s->version);
    qr_val pv = mcp_get(a, r->params, "protocolVersion");
    if (pv.t != QR_T_STR)
        return mcp_fail(r, RPC_INVALID_PARAMS,
                        "initialize needs params.protocolVersion, a string such as \"%s\"",
                        QR_MCP_PROTOCOL_VERSION);
    /* the client's revision when the server has it, else the newest the server has */
    const char *chosen = QR_MCP_PROTOCOL_VERSION;
    for (const char *const *v = qr_mcp_protocol_versions; *v; v++)
        if (!strcmp(pv.s->data, *v))
            chosen = *v;
    snprintf(s->version, sizeof s->version, "%s", chosen);
    s->initialized = true;

    qr_mapb cm;
    qr_mapb_init(&cm, a, 4);
    qr_mapb_put(&cm, qr_kw_cstr(a, "tools"),
                map_of(a, "listChanged", qr_bool(false), NULL, qr_nil()));
    qr_mapb_put(&cm, qr_kw_cstr(a, "resources"), qr_map_empty());
    qr_mapb_put(&cm, qr_kw_cstr(a, "prompts"), qr_map_empty());
    qr_mapb_put(&cm, qr_kw_cstr(a, "logging"), qr_map_empty());
    qr_val caps = qr_mapb_finish(&cm, QR_T_MAP);
    qr_val info =
        map_of(a, "name", qr_str_cstr(a, "quarry"), "version", qr_str_cstr(a, s->cfg.version));
    qr_mapb m;
    qr_mapb_init(&m, a, 4);
    qr_mapb_put(&m, qr_kw_cstr(a, "protocolVersion"), qr_str_cstr(a, chosen));
    qr_mapb_put(&m, qr_kw_cstr(a, "capabilities"), caps);
    qr_mapb_put(&m, qr_kw_cstr(a, "serverInfo"), info);
    qr_mapb_put(&m, qr_kw_cstr(a, "instructions"), instructions_text(s, a));
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}

static int m_ping(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    r->result = qr_map_empty();
    return MCP_REPLY;
}

static int m_set_level(qr_mcp_server *s, mcp_req *r)
{
    qr_val level = mcp_get(r->a, r->params, "level");
    int li = level.t == QR_T_STR ? level_index(level.s->data) : -1;
    if (li < 0) {
        qr_buf d;
        qr_buf_init(&d);
        if (level.t == QR_T_NIL)
            qr_buf_puts(&d, "nothing");
        else
            mcp_describe(&d, level);
        mcp_fail(r, RPC_INVALID_PARAMS,
                 "logging/setLevel: params.level must be one of debug, info, notice, warning, "
                 "error, critical, alert, emergency; got %s",
                 d.p ? d.p : "");
        qr_buf_release(&d);
        return MCP_FAIL;
    }
    atomic_store(&s->log_level, li);
    r->result = qr_map_empty();
    return MCP_REPLY;
}

static int n_initialized(qr_mcp_server *s, mcp_req *r)
{
    /* The client is ready. The server sends no requests, so it has nothing it waited
     * for; requests that came before this were answered anyway. */
    (void)s;
    (void)r;
    return MCP_SILENT;
}

static void req_free(mcp_req *r);
static void req_finish(qr_mcp_server *s, mcp_req *r, int out);

/* Cancels the request whose id has the JSON text id: a queued one is dropped, a running
 * one is told to stop (its request cancelled: its program, tools and loops stop) and gets no
 * response. Takes the server's lock. */
static void cancel_in_flight(qr_mcp_server *s, const char *id)
{
    mcp_req *dropped = NULL;
    pthread_mutex_lock(&s->mu);
    for (mcp_req **pp = &s->q_head; *pp; pp = &(*pp)->next)
        if ((*pp)->id_text && !strcmp((*pp)->id_text, id)) {
            dropped = *pp;
            *pp = dropped->next;
            if (s->q_tail == dropped) {
                s->q_tail = NULL;
                for (mcp_req *q = s->q_head; q; q = q->next)
                    s->q_tail = q;
            }
            s->q_len--;
            break;
        }
    for (size_t i = 0; !dropped && i < s->nworkers; i++) {
        mcp_req *cur = s->workers[i].cur;
        if (!cur || !cur->id_text || strcmp(cur->id_text, id))
            continue;
        cur->cancelled = true;
        /* under the transport's lock: no progress notification is sent after this */
        pthread_mutex_lock(&s->out_mu);
        qr_req_cancel(&cur->req);
        pthread_mutex_unlock(&s->out_mu);
    }
    pthread_mutex_unlock(&s->mu);
    if (dropped) {
        /* no response (the specification: a cancelled request SHOULD NOT be answered),
         * but the transport is told the request ended: over HTTP, a connection waits for
         * it and is closed (202 with no body, or the event stream ends) */
        mcp_log(s, "debug", "a request was cancelled before it started");
        req_finish(s, dropped, MCP_SILENT);
    }
}

static int n_cancelled(qr_mcp_server *s, mcp_req *r)
{
    /* With the pool running, the request it names is queued or running on a worker: it
     * is dropped or stopped here. Without it, cancellations take effect when the
     * transport peeks at them while a request runs (qr_mcp_peek); met here in turn, the
     * request it names has been answered already, or never was sent: "MAY ignore" in
     * the spec. */
    qr_val rid = mcp_get(r->a, r->params, "requestId");
    const char *text = (rid.t == QR_T_STR || rid.t == QR_T_INT) ? json_text(r->a, rid) : NULL;
    if (text && s->pool)
        cancel_in_flight(s, text);
    return MCP_SILENT;
}

enum {
    M_NOTIFICATION = 1u << 0, /* a notification: never answered */
    M_ANYTIME = 1u << 1,      /* accepted before initialize */
    M_SLOW = 1u << 2,         /* may run long: poll the transport before answering */
};

typedef struct mcp_method {
    const char *name;
    int (*fn)(qr_mcp_server *s, mcp_req *r);
    unsigned flags;
    /* the protocol revisions the method belongs to (inclusive; NULL: open-ended) */
    const char *since, *until;
} mcp_method;

/* The stateless 2026-07-28 revision removes initialize, its notification, ping and
 * logging/setLevel (their `until`) and adds server/discover. */
static const mcp_method methods[] = {
    {"initialize", m_initialize, M_ANYTIME, "2024-11-05", "2025-11-25"},
    {"notifications/initialized", n_initialized, M_NOTIFICATION, "2024-11-05", "2025-11-25"},
    {"ping", m_ping, M_ANYTIME, "2024-11-05", "2025-11-25"},
    {"tools/list", mcp_tools_list, 0, "2024-11-05", NULL},
    {"tools/call", mcp_tools_call, M_SLOW, "2024-11-05", NULL},
    {"resources/list", mcp_resources_list, 0, "2024-11-05", NULL},
    {"resources/read", mcp_resources_read, 0, "2024-11-05", NULL},
    {"resources/templates/list", mcp_resources_templates_list, 0, "2024-11-05", NULL},
    {"prompts/list", mcp_prompts_list, 0, "2024-11-05", NULL},
    {"prompts/get", mcp_prompts_get, 0, "2024-11-05", NULL},
    {"logging/setLevel", m_set_level, 0, "2024-11-05", "2025-11-25"},
    {"notifications/cancelled", n_cancelled, M_NOTIFICATION | M_ANYTIME, "2024-11-05", NULL},
};

static const mcp_method *find_method(const char *name)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(methods[i].name, name))
            return &methods[i];
    return NULL;
}

/* ---- one message ---- */

static void drop(qr_mcp_server *s, const char *why, const char *method)
{
    char line[300];
    snprintf(line, sizeof line, "ignored a notification%s%.100s%s: %s", method ? " '" : "",
             method ? method : "", method ? "'" : "", why);
    mcp_log(s, "debug", line);
}

static int handle_message(qr_mcp_server *s, qr_val m, mcp_req *r)
{
    qr_arena *a = r->a;
    qr_buf d;
    qr_buf_init(&d);
    int out = MCP_SILENT;
    if (m.t == QR_T_VEC) {
        out = mcp_fail(r, RPC_INVALID_REQUEST,
                       "batches (JSON arrays of messages) are not supported: send each message "
                       "as its own line");
        goto done;
    }
    if (m.t != QR_T_MAP) {
        mcp_describe(&d, m);
        out = mcp_fail(r, RPC_INVALID_REQUEST, "a message must be a JSON object, got %s",
                       d.p ? d.p : "");
        goto done;
    }
    bool has_id = mcp_has(a, m, "id");
    qr_val id = mcp_get(a, m, "id");
    if (has_id && id.t != QR_T_STR && id.t != QR_T_INT) {
        mcp_describe(&d, id);
        out = mcp_fail(r, RPC_INVALID_REQUEST,
                       "the request id must be a string or an integer, got %s", d.p ? d.p : "");
        goto done;
    }
    r->id = id;
    qr_val jsonrpc = mcp_get(a, m, "jsonrpc");
    qr_val method = mcp_get(a, m, "method");
    if (!is_str(jsonrpc, "2.0")) {
        if (mcp_has(a, m, "jsonrpc"))
            mcp_describe(&d, jsonrpc);
        else
            qr_buf_puts(&d, "nothing");
        if (!has_id) {
            drop(s, "'jsonrpc' is not \"2.0\"", method.t == QR_T_STR ? method.s->data : NULL);
            goto done;
        }
        out = mcp_fail(r, RPC_INVALID_REQUEST, "'jsonrpc' must be \"2.0\", got %s", d.p ? d.p : "");
        goto done;
    }
    if (!mcp_has(a, m, "method")) {
        if (mcp_has(a, m, "result") || mcp_has(a, m, "error"))
            goto done; /* a response: this server sends no requests to answer */
        if (!has_id) {
            drop(s, "it has neither 'method' nor 'id'", NULL);
            goto done;
        }
        out = mcp_fail(r, RPC_INVALID_REQUEST, "the request has no 'method'");
        goto done;
    }
    if (method.t != QR_T_STR) {
        mcp_describe(&d, method);
        if (!has_id) {
            drop(s, "'method' is not a string", NULL);
            goto done;
        }
        out = mcp_fail(r, RPC_INVALID_REQUEST, "'method' must be a string, got %s", d.p ? d.p : "");
        goto done;
    }
    /* refused, not cut: a NUL anywhere in a message is refused before any string of it
     * is used (the one place every name, level and path passes) */
    if (has_nul(m)) {
        if (!has_id) {
            drop(s, "a string holds a NUL character", NULL);
            goto done;
        }
        out = mcp_fail(r, RPC_INVALID_PARAMS,
                       "a string in the message holds a NUL character (\\u0000); quarry "
                       "refuses such strings rather than cut them: remove it");
        goto done;
    }
    const char *name = method.s->data;
    qr_val params = mcp_get(a, m, "params");
    if (!qr_is_nil(params) && params.t != QR_T_MAP) {
        mcp_describe(&d, params);
        if (!has_id) {
            drop(s, "'params' is not an object", name);
            goto done;
        }
        out = mcp_fail(r, RPC_INVALID_PARAMS, "'params' of '%.100s' must be an object, got %s",
                       name, d.p ? d.p : "");
        goto done;
    }
    r->params = params;
    const mcp_method *rec = find_method(name);
    if (!rec) {
        if (!has_id) {
            drop(s, "unknown method", name);
            goto done;
        }
        /* the methods it answers, from the method table */
        qr_buf_reset(&d);
        for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
            if (!(methods[i].flags & M_NOTIFICATION))
                qr_buf_printf(&d, "%s%s", d.len ? ", " : "", methods[i].name);
        out = mcp_fail(r, RPC_METHOD_NOT_FOUND,
                       "unknown method '%.100s'; this server speaks MCP %s (%s)", name,
                       QR_MCP_PROTOCOL_VERSION, d.p ? d.p : "");
        goto done;
    }
    if ((rec->flags & M_NOTIFICATION) && has_id) {
        out = mcp_fail(r, RPC_INVALID_REQUEST, "'%s' is a notification: send it without an id",
                       rec->name);
        goto done;
    }
    if (!(rec->flags & M_NOTIFICATION) && !has_id) {
        drop(s, "a request needs an id to be answered", name);
        goto done;
    }
    if (!s->initialized && !(rec->flags & M_ANYTIME)) {
        if (!has_id) {
            drop(s, "it came before initialize", name);
            goto done;
        }
        out = mcp_fail(r, RPC_NOT_INITIALIZED,
                       "server not initialized: send 'initialize' first (protocolVersion \"%s\"), "
                       "then 'notifications/initialized'",
                       QR_MCP_PROTOCOL_VERSION);
        goto done;
    }
    if (s->initialized && ((rec->since && strcmp(s->version, rec->since) < 0) ||
                           (rec->until && strcmp(s->version, rec->until) > 0))) {
        if (!has_id)
            goto done;
        out =
            mcp_fail(r, RPC_METHOD_NOT_FOUND, "'%s' is not part of MCP %s", rec->name, s->version);
        goto done;
    }
    r->rec = rec;
    if (has_id) {
        r->id_text = json_text(a, id);
        if (strcmp(name, "initialize") && take_cancelled(s, r->id_text)) {
            mcp_log(s, "debug", "a request was cancelled before it started");
            out = MCP_SILENT;
            goto done;
        }
        qr_val token = mcp_get(a, mcp_get(a, params, "_meta"), "progressToken");
        if (token.t == QR_T_STR || token.t == QR_T_INT) {
            r->progress_token = token;
            r->has_progress = true;
        }
    }
    if (has_id && (rec->flags & M_SLOW) && s->pool) {
        out = MCP_DEFER; /* a worker runs it */
        goto done;
    }
    r->w = &s->workers[0];
    out = rec->fn(s, r);
    if (has_id && (rec->flags & M_SLOW) && s->poll)
        s->poll(s->io_ud);
    if (has_id && strcmp(name, "initialize") && take_cancelled(s, r->id_text)) {
        mcp_log(s, "debug", "a request was cancelled; its response was dropped");
        out = MCP_SILENT;
    }
done:
    qr_buf_release(&d);
    return out;
}

static mcp_req *req_new(qr_mcp_server *s)
{
    mcp_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->s = s;
    qr_arena_init(&r->arena, MESSAGE_ARENA_CAP);
    r->a = &r->arena;
    r->id = r->params = r->result = r->err_data = qr_nil();
    r->progress_token = qr_nil();
    r->progress_last = -1;
    qr_buf_init(&r->err);
    qr_req_init(&r->req, NULL);
    return r;
}

static void req_free(mcp_req *r)
{
    qr_buf_release(&r->err);
    qr_arena_release(&r->arena);
    free(r);
}

/* Sends what the handler left (a result, an error, or nothing) and frees the request. */
static void req_finish(qr_mcp_server *s, mcp_req *r, int out)
{
    if (out == MCP_REPLY && r->a->exhausted)
        out = mcp_fail(r, RPC_INTERNAL_ERROR, "out of memory while building the response");
    if (out == MCP_REPLY) {
        send_result(s, r->id, r->result);
    } else if (out == MCP_FAIL) {
        send_error(s, r->id, r->err_code, r->err.p ? r->err.p : "error", r->err_data);
    } else if (r->id_text && s->send) {
        /* a request that ends without a response (cancelled): the transport may be
         * holding a connection open for it */
        pthread_mutex_lock(&s->out_mu);
        if (!atomic_load(&s->io_failed))
            s->send(s->io_ud, NULL, 0, r->id_text, true);
        pthread_mutex_unlock(&s->out_mu);
    }
    req_free(r);
}

/* Queues a call for the workers; answers at once when the queue is full. */
/* Whether a request with the JSON text id is queued or running (under the server's lock). */
static bool id_in_flight(const qr_mcp_server *s, const char *id)
{
    if (!id)
        return false;
    for (const mcp_req *q = s->q_head; q; q = q->next)
        if (q->id_text && !strcmp(q->id_text, id))
            return true;
    for (size_t i = 0; i < s->nworkers; i++) {
        const mcp_req *cur = s->workers[i].cur;
        if (cur && cur->id_text && !strcmp(cur->id_text, id))
            return true;
    }
    return false;
}

static void enqueue(qr_mcp_server *s, mcp_req *r)
{
    pthread_mutex_lock(&s->mu);
    /* JSON-RPC: an id names one request in flight; a second one with it would make a cancel
     * or an answer ambiguous, so it is refused */
    bool dup = id_in_flight(s, r->id_text);
    bool full = !dup && s->q_len >= MCP_MAX_QUEUE;
    if (!full && !dup) {
        r->next = NULL;
        if (s->q_tail)
            s->q_tail->next = r;
        else
            s->q_head = r;
        s->q_tail = r;
        s->q_len++;
        pthread_cond_signal(&s->work_cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (dup)
        req_finish(s, r,
                   mcp_fail(r, RPC_INVALID_REQUEST,
                            "request id %s is already in use by a request in flight; give "
                            "each request its own id",
                            r->id_text));
    else if (full)
        req_finish(s, r,
                   mcp_fail(r, RPC_INTERNAL_ERROR,
                            "the server is busy: %d calls are waiting for one of its %zu "
                            "workers; wait for answers before sending more",
                            MCP_MAX_QUEUE, s->nworkers));
}

static void *worker_main(void *arg)
{
    mcp_worker *w = arg;
    qr_mcp_server *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->q_head && !s->stopping)
            pthread_cond_wait(&s->work_cv, &s->mu);
        if (!s->q_head)
            break;
        mcp_req *r = s->q_head;
        s->q_head = r->next;
        if (!s->q_head)
            s->q_tail = NULL;
        s->q_len--;
        s->busy++;
        w->cur = r;
        pthread_mutex_unlock(&s->mu);

        r->w = w;
        int out = r->rec->fn(s, r);

        pthread_mutex_lock(&s->mu);
        w->cur = NULL;
        bool cancelled = r->cancelled;
        pthread_mutex_unlock(&s->mu);
        if (cancelled) {
            mcp_log(s, "debug", "a request was cancelled; its response was dropped");
            out = MCP_SILENT;
        }
        req_finish(s, r, out);
        pthread_mutex_lock(&s->mu);
        s->busy--;
        pthread_cond_broadcast(&s->idle_cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int qr_mcp_start_workers(qr_mcp_server *s)
{
    if (s->pool)
        return QR_OK;
    s->stopping = false;
    size_t started = 0;
    for (size_t i = 0; i < s->nworkers; i++) {
        if (pthread_create(&s->workers[i].thread, NULL, worker_main, &s->workers[i]) != 0)
            break;
        s->workers[i].started = true;
        started++;
    }
    if (!started)
        return QR_ENOMEM;
    s->pool = true;
    return QR_OK;
}

void qr_mcp_stop_workers(qr_mcp_server *s, bool abandon)
{
    if (!s->pool)
        return;
    pthread_mutex_lock(&s->mu);
    if (abandon) {
        /* the client is gone: nothing queued will be answered, and what runs stops */
        while (s->q_head) {
            mcp_req *r = s->q_head;
            s->q_head = r->next;
            req_free(r);
        }
        s->q_tail = NULL;
        s->q_len = 0;
        for (size_t i = 0; i < s->nworkers; i++) {
            mcp_req *cur = s->workers[i].cur;
            if (!cur)
                continue;
            cur->cancelled = true;
            qr_req_cancel(&cur->req);
        }
    }
    while (s->q_head || s->busy)
        pthread_cond_wait(&s->idle_cv, &s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < s->nworkers; i++)
        if (s->workers[i].started) {
            pthread_join(s->workers[i].thread, NULL);
            s->workers[i].started = false;
        }
    s->pool = false;
}

size_t mcp_parse_cap(size_t len)
{
    size_t cap = MCP_PARSE_ARENA_MIN;
    if (len < (MESSAGE_ARENA_CAP - cap) / MCP_PARSE_ARENA_FACTOR)
        cap += len * MCP_PARSE_ARENA_FACTOR;
    else
        cap = MESSAGE_ARENA_CAP;
    return cap;
}

int mcp_read_message(qr_arena *a, const char *msg, size_t len, qr_val *m, qr_read_error *e)
{
    /* reading is held to a cap proportional to the message, so what a message may cost
     * is known before it is read; what its handler builds has the whole request cap */
    size_t cap = a->cap;
    a->cap = mcp_parse_cap(len);
    int rc = qr_json_read(a, msg, len, m, e);
    a->cap = cap;
    return rc;
}

void mcp_message_arena_init(qr_arena *a)
{
    qr_arena_init(a, MESSAGE_ARENA_CAP);
}

/* Handles a message read (rc, m, e: what mcp_read_message gave) into r's arena. */
static int handle_read(qr_mcp_server *s, mcp_req *r, int rc, qr_val m, const qr_read_error *e,
                       size_t len);

int qr_mcp_handle(qr_mcp_server *s, const char *msg, size_t len)
{
    if (atomic_load(&s->io_failed))
        return QR_EIO;
    mcp_req *r = req_new(s);
    if (!r)
        return QR_ENOMEM;
    qr_val m;
    qr_read_error e;
    int rc = mcp_read_message(r->a, msg, len, &m, &e);
    return handle_read(s, r, rc, m, &e, len);
}

int mcp_handle_read(qr_mcp_server *s, qr_arena *a, int rc, qr_val m, const qr_read_error *e,
                    size_t len)
{
    if (atomic_load(&s->io_failed)) {
        qr_arena_release(a);
        return QR_EIO;
    }
    mcp_req *r = req_new(s);
    if (!r) {
        qr_arena_release(a);
        return QR_ENOMEM;
    }
    qr_arena_release(&r->arena);
    r->arena = *a; /* the values point into its chunks, not into the struct */
    qr_arena_init(a, 0);
    return handle_read(s, r, rc, m, e, len);
}

static int handle_read(qr_mcp_server *s, mcp_req *r, int rc, qr_val m, const qr_read_error *e,
                       size_t len)
{
    int out;
    if (rc == QR_ENOMEM)
        out = mcp_fail(r, RPC_INTERNAL_ERROR, "out of memory reading a message of %zu bytes", len);
    else if (rc != QR_OK)
        out = mcp_fail(r, RPC_PARSE_ERROR,
                       "parse error at %u:%u: %s; send one JSON-RPC message per line", e->line,
                       e->col, e->msg);
    else
        out = handle_message(s, m, r);
    if (out == MCP_DEFER)
        enqueue(s, r);
    else
        req_finish(s, r, out);
    return atomic_load(&s->io_failed) ? QR_EIO : QR_OK;
}

int qr_mcp_handle_oversized(qr_mcp_server *s, size_t len, const char *id_json, size_t id_len)
{
    qr_arena a;
    qr_arena_init(&a, 1u << 20);
    qr_val id = qr_nil();
    qr_read_error e;
    if (id_json && (qr_json_read(&a, id_json, id_len, &id, &e) != QR_OK ||
                    (id.t != QR_T_STR && id.t != QR_T_INT)))
        id = qr_nil();
    qr_buf msg;
    qr_buf_init(&msg);
    qr_buf_printf(&msg,
                  "message of %zu bytes is larger than the limit of %zu bytes (quarry mcp "
                  "--max-message); send large data in smaller pieces",
                  len, s->cfg.max_message);
    qr_val data =
        map_of(&a, "size", qr_int((int64_t)len), "limit", qr_int((int64_t)s->cfg.max_message));
    send_error(s, id, RPC_INVALID_REQUEST, msg.p ? msg.p : "message too large", data);
    qr_buf_release(&msg);
    qr_arena_release(&a);
    return atomic_load(&s->io_failed) ? QR_EIO : QR_OK;
}

/* ---- the server object ---- */

int qr_mcp_server_new(const qr_mcp_config *c, qr_mcp_server **out, qr_buf *err)
{
    *out = NULL;
    qr_mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return QR_ENOMEM;
    s->cfg = *c;
    if (!s->cfg.max_message)
        s->cfg.max_message = QR_MCP_MAX_MESSAGE;
    if (!s->cfg.page_size)
        s->cfg.page_size = QR_MCP_PAGE_SIZE;
    if (!s->cfg.version)
        s->cfg.version = QR_VERSION;
    snprintf(s->version, sizeof s->version, "%s", QR_MCP_PROTOCOL_VERSION);
    atomic_init(&s->log_level, LEVEL_INFO);
    atomic_init(&s->io_failed, false);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->out_mu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->idle_cv, NULL);
    qr_arena_init(&s->list_arena, 0);
    s->nworkers = s->cfg.workers ? s->cfg.workers : 1;
    if (s->nworkers > MCP_MAX_WORKERS)
        s->nworkers = MCP_MAX_WORKERS;
    s->workers = calloc(s->nworkers, sizeof *s->workers);
    if (!s->workers) {
        qr_mcp_server_free(s);
        return QR_ENOMEM;
    }
    int rc = mcp_tools_init(s, err);
    if (rc != QR_OK) {
        qr_mcp_server_free(s);
        return rc;
    }
    *out = s;
    return QR_OK;
}

void qr_mcp_server_free(qr_mcp_server *s)
{
    if (!s)
        return;
    qr_mcp_stop_workers(s, true);
    mcp_tools_release(s);
    for (size_t i = 0; i < MCP_CANCEL_RING; i++)
        free(s->cancelled[i]);
    qr_arena_release(&s->list_arena);
    free(s->workers);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->out_mu);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->idle_cv);
    free(s);
}

void qr_mcp_set_io(qr_mcp_server *s, qr_mcp_send_fn send, qr_mcp_poll_fn poll, void *ud)
{
    s->send = send;
    s->poll = poll;
    s->io_ud = ud;
    atomic_store(&s->io_failed, false);
}
