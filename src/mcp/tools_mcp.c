/*
 * tools_mcp.c: the tools the MCP server serves: tools/list from the registry's own MCP
 * export, and tools/call through the registry's one call path (qr_tools_prepare, then
 * qr_tools_invoke), so a call from an MCP client is checked exactly as (tool/NAME {...})
 * in a Lisp program and `quarry tool` are, with the same messages. Also run_lisp and
 * run_query, which are tool records themselves, in a small registry of the server's own
 * (so their arguments are checked the same way), and the hosts: one per repository a
 * call names.
 *
 * Design: the list is built once, from qr_tools_export(QR_TOOLS_MCP) of the product
 * registry and of the server's own registry, read back as values and amended: tools that
 * read a repository get a `repo` parameter (taken out of the arguments before the call;
 * it selects the host), and every tool gets an outputSchema, since structuredContent must
 * be an object: a tool whose result schema is an object keeps it and returns its map as
 * is; any other result is wrapped as {"result": value} (with "omitted": N when a long
 * list was cut to max_rows, which the text says too). Clients of revisions before
 * 2025-06-18 get neither outputSchema nor structuredContent, which did not exist then.
 * Tool failures, bad arguments included, are results with isError true and the
 * registry's one-line message; an unknown tool or a malformed call is a JSON-RPC
 * Invalid Params error, as the 2025-11-25 tools page says. Pages of tools/list are cut
 * at page_size with an opaque cursor "p<offset>": the list never changes while the
 * server runs, so an offset is stable. run_query's description gets the transform ops
 * from the DSL's own table (qr_query_each_op), so a model sees the ops that exist.
 *
 * Capabilities (docs/capabilities.md): each worker's registries are restricted to what
 * the server was started with (reading only; --allow-write memory adds the memory
 * writes, --allow-exec repository code), so a tool held back is absent from the list and
 * refused wherever it is called from (tools/call, a program, a dwim line) with a message
 * naming the flag (qr_tools_set_cap_hint). The server's own tools carry the bits of every
 * tool they can reach, so their derived annotations are true; dwim comes as two records,
 * one whose validate runs (EXEC, with --allow-exec) and one whose validate is refused.
 *
 * Rejected: writing descriptors by hand (they would drift from `quarry tools --format
 * mcp`); a Lisp session kept across calls (definitions would make calls depend on earlier
 * ones, which the stateless 2026-07-28 revision forbids); one host for every repository
 * (each opens its repository and index once and keeps them, so a host per real path,
 * up to 16, least recently used closed first); sending a cut result without saying so.
 */
/* realpath */
#define _XOPEN_SOURCE 700
#include "mcp_int.h"

#include "quarry/dwim.h"
#include "quarry/query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a refusal says to allow a capability: the flags of `quarry mcp`. */
#define MCP_WRITE_HINT "start the server with --allow-write memory to allow it"
#define MCP_EXEC_HINT "start the server with --allow-exec to allow it"

/* What a handler of the server's own tools receives as its context. */
typedef struct call_ctx {
    qr_mcp_server *s;
    mcp_req *r;
    mcp_host *h;
} call_ctx;

/* ---- run_lisp ---- */

static qr_val arg(qr_arena *a, qr_val args, const char *name)
{
    qr_val v;
    return qr_map_lookup(args, qr_kw_cstr(a, name), &v) ? v : qr_nil();
}

/* Copies v into `to` through its JSON text (what the client gets anyway). */
static int copy_json(qr_arena *to, qr_arena *strings, qr_val v, qr_val *out, qr_buf *err)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print_json(&b, v, false);
    qr_read_error e;
    int rc = b.failed ? QR_ENOMEM
                      : (strings ? qr_json_read_split(to, strings, b.p, b.len, out, &e)
                                 : qr_json_read(to, b.p, b.len, out, &e));
    qr_buf_release(&b);
    if (rc != QR_OK)
        qr_buf_puts(err, "out of memory while copying a value");
    return rc;
}

/* A session for one program of a call: its tools are the worker's registry on the call's
 * host, and it runs for the call's request, so a cancellation stops the program and the
 * tools it calls, and those tools stop at the program's deadline too (time inside tools
 * counts against the program's limit). */
static qr_lisp_session *program_start(call_ctx *c, qr_req *req)
{
    qr_lisp_session *ls = qr_lisp_session_new(&c->s->cfg.limits);
    if (!ls)
        return NULL;
    qr_tools_set_ctx(c->r->w->tools, &c->h->host);
    qr_lisp_set_tools(ls, qr_tools_lisp_dispatch, c->r->w->tools);
    qr_lisp_set_req(ls, req);
    return ls;
}

static void program_end(call_ctx *c, qr_lisp_session *ls)
{
    (void)c;
    qr_lisp_session_free(ls);
}

/* The `offset` argument of a paged tool: 0 when absent; false (with a message) when it is
 * not a non-negative integer. */
static bool offset_arg(qr_arena *a, qr_val v, const char *tool, size_t *out, qr_buf *err)
{
    *out = 0;
    if (qr_is_nil(v))
        return true;
    if (v.t == QR_T_INT && v.i >= 0) {
        *out = (size_t)v.i;
        return true;
    }
    (void)a;
    qr_buf_printf(err,
                  "tool '%s': parameter 'offset' expects a non-negative integer (the "
                  "next_offset of the previous page), got ",
                  tool);
    mcp_describe(err, v);
    return false;
}

/* The paging fields of a cut or paged list: where this page starts, how many rows there
 * are, how many follow, and the offset of the next page. Nothing for a whole list. */
static void put_page(qr_mapb *m, qr_arena *a, const qr_tools_page *pg)
{
    if (!pg->offset && !pg->next)
        return;
    size_t after = pg->next ? pg->total - pg->next : 0;
    qr_mapb_put(m, qr_kw_cstr(a, "offset"), qr_int((int64_t)pg->offset));
    qr_mapb_put(m, qr_kw_cstr(a, "total"), qr_int((int64_t)pg->total));
    if (after)
        qr_mapb_put(m, qr_kw_cstr(a, "omitted"), qr_int((int64_t)after));
    if (pg->next)
        qr_mapb_put(m, qr_kw_cstr(a, "next_offset"), qr_int((int64_t)pg->next));
}

static int run_lisp_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val program = arg(a, args, "program"), data = arg(a, args, "data");
    size_t offset;
    if (!offset_arg(a, arg(a, args, "offset"), "run_lisp", &offset, err))
        return QR_EINVAL;
    qr_lisp_session *ls = program_start(c, req);
    if (!ls) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    int rc = QR_OK;
    if (data.t == QR_T_MAP) {
        qr_val copy;
        rc = copy_json(qr_lisp_session_arena(ls), qr_lisp_session_text_arena(ls), data, &copy, err);
        if (rc != QR_OK) {
            qr_lisp_session_free(ls);
            return rc;
        }
        qr_lisp_set_data(ls, copy);
    }
    qr_lisp_result res;
    rc = qr_lisp_run(ls, program.s->data, program.s->len, &res);
    if (rc != QR_OK) {
        qr_buf_puts(err, qr_lisp_errkind_name(res.kind));
        if (res.line)
            qr_buf_printf(err, " at %u:%u", res.line, res.col);
        qr_buf_printf(err, ": %s", res.message);
        if (res.output_len) {
            size_t n = res.output_len > 2000 ? 2000 : res.output_len;
            qr_buf_puts(err, "; println output before it failed: ");
            qr_buf_append(err, res.output, n);
            if (n < res.output_len)
                qr_buf_puts(err, "...");
        }
    } else {
        qr_val v;
        rc = copy_json(a, NULL, res.value, &v, err);
        if (rc == QR_OK) {
            qr_tools_page pg;
            v = qr_tools_page_of(a, v, offset, c->s->cfg.max_rows, &pg);
            qr_mapb m;
            qr_mapb_init(&m, a, 6);
            qr_mapb_put(&m, qr_kw_cstr(a, "result"), v);
            if (res.output_len)
                qr_mapb_put(&m, qr_kw_cstr(a, "output"), qr_str_new(a, res.output, res.output_len));
            put_page(&m, a, &pg);
            *out = qr_mapb_finish(&m, QR_T_MAP);
        }
    }
    qr_lisp_result_clear(&res);
    program_end(c, ls);
    return rc;
}

static const qr_tool_param run_lisp_params[] = {
    {.name = "program",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "the program, in Clojure syntax; the value of its last form (or of (return v)) "
             "is the result"},
    {.name = "data",
     .type = QR_TOOL_OBJECT,
     .desc = "a JSON object the program reads as data/KEY, e.g. {\"paths\": [...]} as "
             "data/paths"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .has_min = true,
     .min = 0,
     .desc = "when the value is a list cut to a page: the row to start from (the "
             "next_offset of the previous page; the program runs again)"},
    {.name = NULL},
};

static const qr_tool run_lisp_tool = {
    .name = "run_lisp",
    .summary = "Run a PTC-Lisp program (a sandboxed subset of Clojure) that calls the other "
               "tools as (tool/NAME {:param value}) and filters, joins or aggregates their "
               "results in one step, e.g. (->> (tool/get_commits {:since \"1 month ago\"}) "
               "(map :author) frequencies). No file, network or process access; time and "
               "memory are limited.",
    .params = run_lisp_params,
    .result = "{result: the program's value as JSON, output: what println printed (when "
              "anything); when the value is a list cut to a page: offset, total, omitted "
              "(rows after this page) and next_offset (pass it as offset for the next page)}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"result\": {}, \"output\": "
                     "{\"type\": \"string\"}, \"offset\": {\"type\": \"integer\"}, \"total\": "
                     "{\"type\": \"integer\"}, \"omitted\": {\"type\": \"integer\"}, "
                     "\"next_offset\": {\"type\": \"integer\"}}, \"required\": [\"result\"]}",
    .handler = run_lisp_fn,
    .caps = QR_TOOL_READS_REPO,
    .title = "Run a PTC-Lisp program",
};

/* ---- run_query ---- */

/* One page of the :findings of a query's result (its rows, by the DSL's convention), or
 * of the result itself when it is a list. */
static qr_val page_findings(qr_arena *a, qr_val v, size_t offset, size_t max_rows,
                            qr_tools_page *pg)
{
    qr_val findings = v.t == QR_T_MAP ? arg(a, v, "findings") : qr_nil();
    if (!qr_is_seqcoll(findings))
        return qr_tools_page_of(a, v, offset, max_rows, pg);
    qr_val page = qr_tools_page_of(a, findings, offset, max_rows, pg);
    return pg->offset || pg->next ? qr_map_assoc(a, v, qr_kw_cstr(a, "findings"), page) : v;
}

static int run_query_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val query = arg(a, args, "query"), text = arg(a, args, "text"), data = arg(a, args, "data");
    size_t offset;
    if (!offset_arg(a, arg(a, args, "offset"), "run_query", &offset, err))
        return QR_EINVAL;
    if (qr_is_nil(query) == qr_is_nil(text)) {
        qr_buf_puts(err, "give the query either as 'query' (a JSON object such as {\"fetch\": "
                         "[...], \"return\": {...}}) or as 'text' (the query as EDN or JSON "
                         "text), not both");
        return QR_EINVAL;
    }
    qr_lisp_session *ls = program_start(c, req);
    if (!ls) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    qr_query_opts opts;
    qr_query_opts_init(&opts, c->r->w->tools);
    opts.cache = c->r->w->qcache;
    qr_query_compiled q = {0};
    int rc = QR_OK;
    if (data.t == QR_T_MAP) {
        rc = copy_json(qr_lisp_session_arena(ls), qr_lisp_session_text_arena(ls), data,
                       &opts.context, err);
        if (rc != QR_OK)
            goto done;
        qr_lisp_set_data(ls, opts.context);
    }
    qr_lisp_result res;
    bool ran;
    rc = qr_query_run(ls, &opts, qr_is_nil(query) ? text.s->data : NULL,
                      qr_is_nil(query) ? text.s->len : 0, query, true, &q, &res, &ran, err);
    if (!ran) {
        qr_buf_printf(err, "invalid query (%zu problem%s): ", q.nproblems,
                      q.nproblems == 1 ? "" : "s");
        qr_query_problems_text(&q, err);
        while (err->len && err->p[err->len - 1] == '\n')
            err->p[--err->len] = '\0';
        goto done;
    }
    if (rc == QR_OK) {
        qr_val v;
        rc = copy_json(a, NULL, res.value, &v, err);
        if (rc == QR_OK) {
            qr_tools_page pg;
            v = page_findings(a, v, offset, c->s->cfg.max_rows, &pg);
            qr_mapb m;
            qr_mapb_init(&m, a, 6);
            qr_mapb_put(&m, qr_kw_cstr(a, "result"), v);
            if (res.output_len)
                qr_mapb_put(&m, qr_kw_cstr(a, "output"), qr_str_new(a, res.output, res.output_len));
            put_page(&m, a, &pg);
            *out = qr_mapb_finish(&m, QR_T_MAP);
        }
    }
    qr_lisp_result_clear(&res);
done:
    qr_query_compiled_clear(&q);
    program_end(c, ls);
    return rc;
}

static const qr_tool_param run_query_params[] = {
    {.name = "query",
     .type = QR_TOOL_OBJECT,
     .desc = "the query as a JSON object: {\"fetch\": [{\"tool\": \"get_commits\", \"as\": "
             "\"commits\", \"params\": {...}}], \"transform\": [{\"op\": \"filter\", "
             "\"on\": \"commits\", \"as\": \"big\", \"where\": [\">\", \"files\", 5]}], "
             "\"return\": {\"findings\": \"big\"}}",
     .alt = "text"},
    {.name = "text",
     .type = QR_TOOL_STRING,
     .desc = "the query as EDN (or JSON) text, instead of 'query'",
     .alt = "query"},
    {.name = "data",
     .type = QR_TOOL_OBJECT,
     .desc = "the context: names the query may use as bindings, and \"resolved\" values "
             "for {{resolved:key}}"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .has_min = true,
     .min = 0,
     .desc = "when the findings are cut to a page: the row to start from (the next_offset "
             "of the previous page; the query runs again)"},
    {.name = NULL},
};

static const qr_tool run_query_tool = {
    .name = "run_query",
    .summary = "Run a query in quarry's query DSL: fetch with tools, then filter, sort, "
               "group, join and aggregate with declarative steps, and return findings and a "
               "summary. It is checked before it runs: every problem comes with its path in "
               "the query and a hint.",
    .params = run_query_params,
    .result = "{result: what the query's return section builds, output: what println "
              "printed; a page of findings adds offset, total, omitted and next_offset}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"result\": {\"type\": "
                     "\"object\"}, \"output\": {\"type\": \"string\"}, \"offset\": "
                     "{\"type\": \"integer\"}, \"total\": {\"type\": \"integer\"}, "
                     "\"omitted\": {\"type\": \"integer\"}, \"next_offset\": {\"type\": "
                     "\"integer\"}}, \"required\": [\"result\"]}",
    .handler = run_query_fn,
    .caps = QR_TOOL_READS_REPO,
    .title = "Run a query",
};

/* ---- dwim: one terse line (seed 003), the token-cheap alternative to many schemas ---- */

static int dwim_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val line = arg(a, args, "line");
    char *root = qr_dwim_find_root(c->h->dir ? c->h->dir : ".", err);
    if (!root)
        return QR_EINVAL;
    qr_tools_set_ctx(c->r->w->tools, &c->h->host);
    /* read-only: fix is refused (an MCP client edits files with its own tools) */
    qr_dwim_ctx d = {.host = &c->h->host, .tools = c->r->w->tools, .root = root, .req = req};
    qr_dwim_lookup lk;
    qr_dwim_lookup_init(&lk, &d);
    qr_arena pa;
    qr_arena_init(&pa, 16u << 20);
    qr_dwim_intent in;
    qr_buf text;
    qr_buf_init(&text);
    /* a line runs under the server's time limit of a program: a grep, or a check command
     * (with --allow-exec) that never ends, stops there and its processes are killed */
    qr_req_saved deadline = qr_req_narrow(req, c->s->cfg.limits.timeout_ms);
    int rc = qr_dwim_parse(&lk, line.s->data, line.s->len, &pa, &in);
    /* a line that starts with the name of a tool this server holds back is refused as a
     * direct call would be: naming the flag that allows it */
    const qr_tool *held = rc == QR_OK ? in.refused : NULL;
    if (held) {
        qr_buf_printf(err, "tool '%s': ", held->name);
        qr_tools_explain_refused(c->r->w->tools, held, err);
        rc = QR_EINVAL;
    } else if (rc == QR_OK && in.confidence < 0.85) {
        qr_buf_printf(err, "unclear (%s %.2f): %s%s%s", qr_dwim_band(in.confidence),
                      in.confidence, in.verb == QR_DWIM_TOOL ? in.tool : qr_dwim_verb_name(in.verb),
                      in.target ? " " : "", in.target ? in.target : "");
        for (size_t i = 0; i < in.nalts; i++)
            qr_buf_printf(err, "; or %s (%.2f)",
                          in.alts[i].verb == QR_DWIM_TOOL ? in.alts[i].tool
                                                         : qr_dwim_verb_name(in.alts[i].verb),
                          in.alts[i].confidence);
        qr_buf_puts(err, "; write e.g. skeleton PATH, expand SYMBOL, read FILE:A-B, grep 'RE'");
        rc = QR_EINVAL;
    } else if (rc == QR_OK && in.verb == QR_DWIM_VALIDATE &&
               !(qr_tools_allowed(c->r->w->own) & QR_TOOL_EXEC)) {
        /* validate runs the repository's check command or make: code the repository
         * chose, which a client must have allowed when it started the server */
        qr_buf_puts(err, "'validate' runs the repository's check command (or make -k), and "
                         "this server does not run repository code: " MCP_EXEC_HINT);
        rc = QR_EINVAL;
    } else if (rc == QR_OK) {
        rc = qr_dwim_run(&d, &in, &text, err);
        if (rc == QR_OK)
            *out = qr_str_new(a, text.p ? text.p : "", text.len);
    }
    qr_buf_release(&text);
    qr_arena_release(&pa);
    qr_req_restore(req, deadline);
    free(root);
    return rc;
}

static const qr_tool_param dwim_params[] = {
    {.name = "line",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "one terse line: skeleton PATH | expand SYMBOL (name, file.c:name, struct name) "
             "| read FILE[:A-B] | grep 'REGEX' | callers|callees|references SYMBOL | deps "
             "FILE | validate | any tool's name with key=value parameters"},
    {.name = NULL},
};

/* Two records of one tool: the server serves dwim_exec_tool when it may run repository
 * code (--allow-exec), else dwim_tool, whose validate is refused; each record's bits say
 * what its calls can do, so the annotations derived from them are true either way. */
static const qr_tool dwim_tool = {
    .name = "dwim",
    .summary = "Run one terse line on the repository (outline a file, show a symbol's "
               "body, read lines, grep, call graph, or any tool); lines it is not sure of "
               "are answered with the readings it sees. 'validate' (the build check) runs "
               "only when the server was started with --allow-exec.",
    .params = dwim_params,
    .result = "the verb's text, with line numbers",
    .handler = dwim_fn,
    .caps = QR_TOOL_READS_REPO,
};

static const qr_tool dwim_exec_tool = {
    .name = "dwim",
    .summary = "Run one terse line on the repository (outline a file, show a symbol's "
               "body, read lines, grep, call graph, build check, or any tool); lines it is "
               "not sure of are answered with the readings it sees. 'validate' runs the "
               "repository's check command (or make -k).",
    .params = dwim_params,
    .result = "the verb's text, with line numbers",
    .handler = dwim_fn,
    .caps = QR_TOOL_READS_REPO | QR_TOOL_EXEC,
};

/* The server's own tools, served after the registry's; mcp_worker_init picks one dwim. */
const qr_tool *const qr_mcp_own_tools[] = {
    &run_lisp_tool,
    &run_query_tool,
    &dwim_tool,
    &dwim_exec_tool,
    NULL,
};

/* ---- hosts ---- */

static void host_warn(void *ud, const char *msg)
{
    mcp_log(ud, "warning", msg);
}

/* Progress of a host's long work as notifications/progress for the request's token. The
 * value keeps increasing across the several rounds of one request (a program that calls
 * several tools), and is sent at most every 100 ms, except the last of a round. */
static void host_progress(void *ud, const char *what, size_t done, size_t total)
{
    mcp_req *s = ud; /* the request's progress state */
    if (!s->has_progress)
        return;
    if (done < s->progress_round_done)
        s->progress_base += (double)s->progress_round_total;
    s->progress_round_done = done;
    s->progress_round_total = total;
    double value = s->progress_base + (double)done, all = s->progress_base + (double)total;
    uint64_t now = mcp_now_ms();
    if (value <= s->progress_last || (done < total && now - s->progress_at_ms < 100))
        return;
    s->progress_last = value;
    s->progress_at_ms = now;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb m;
    qr_mapb_init(&m, &a, 4);
    qr_mapb_put(&m, qr_kw_cstr(&a, "progressToken"), s->progress_token);
    /* whole numbers of commits, however they add up */
    qr_mapb_put(&m, qr_kw_cstr(&a, "progress"), qr_int((int64_t)value));
    qr_mapb_put(&m, qr_kw_cstr(&a, "total"), qr_int((int64_t)all));
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %zu of %zu commits", what, done, total);
    qr_mapb_put(&m, qr_kw_cstr(&a, "message"), qr_str_cstr(&a, msg));
    qr_val params = qr_mapb_finish(&m, QR_T_MAP);
    if (!a.exhausted)
        mcp_notify(s->s, "notifications/progress", params, &s->req.stop, s->id_text);
    qr_arena_release(&a);
}

static char *dup_str(const char *p)
{
    if (!p)
        return NULL;
    size_t n = strlen(p);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, p, n + 1);
    return d;
}

static void host_open(mcp_worker *w, mcp_host *h, char *key, char *dir)
{
    h->key = key;
    h->dir = dir;
    qr_host_init(&h->host, dir);
    if (w->s->cfg.memory_path)
        h->host.mem.memory_path = w->s->cfg.memory_path;
    h->host.git.no_index = w->s->cfg.no_index;
    h->host.git.warn = host_warn;
    h->host.git.warn_ud = w->s;
    h->in_use = true;
    h->last_used = ++w->tick;
}

static void host_close(mcp_host *h)
{
    if (!h->in_use)
        return;
    qr_host_release(&h->host);
    free(h->key);
    free(h->dir);
    memset(h, 0, sizeof *h);
}

/* The host for a call: the default one (slot 0) when repo is nil or names the same
 * directory, else the one for repo's real path, opened when new. */
static int host_for(mcp_worker *w, const char *tool, qr_val repo, mcp_host **out, qr_buf *err)
{
    mcp_host *def = &w->hosts[0];
    if (qr_is_nil(repo)) {
        *out = def;
        return QR_OK;
    }
    if (repo.t != QR_T_STR || repo.s->len == 0) {
        qr_buf_printf(err,
                      "tool '%s': parameter 'repo' expects a directory inside a git repository "
                      "(a string), got ",
                      tool);
        mcp_describe(err, repo);
        return QR_EINVAL;
    }
    char *key = realpath(repo.s->data, NULL);
    if (!key) {
        /* the same words as for a directory that is no repository (repo.c): a program
         * must not learn from the message whether a path exists */
        qr_buf_printf(err,
                      "tool '%s': not a git repository: '%.300s%s' (nor any parent directory); "
                      "run inside a repository or give --repo DIR",
                      tool, repo.s->data, repo.s->len > 300 ? "..." : "");
        return QR_EINVAL;
    }
    if (def->key && !strcmp(def->key, key)) {
        free(key);
        *out = def;
        return QR_OK;
    }
    mcp_host *slot = NULL;
    for (size_t i = 1; i < MCP_MAX_HOSTS; i++) {
        mcp_host *h = &w->hosts[i];
        if (h->in_use && !strcmp(h->key, key)) {
            free(key);
            h->last_used = ++w->tick;
            *out = h;
            return QR_OK;
        }
        if (!h->in_use && !slot)
            slot = h;
    }
    if (!slot) { /* every slot taken: close the least recently used */
        slot = &w->hosts[1];
        for (size_t i = 2; i < MCP_MAX_HOSTS; i++)
            if (w->hosts[i].last_used < slot->last_used)
                slot = &w->hosts[i];
        host_close(slot);
    }
    char *dir = dup_str(key);
    if (!dir) {
        free(key);
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    host_open(w, slot, key, dir);
    *out = slot;
    return QR_OK;
}

/* ---- the list ---- */

static qr_val kw(qr_arena *a, const char *k)
{
    return qr_kw_cstr(a, k);
}

static qr_val int_schema(qr_arena *a, const char *desc)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "integer"));
    qr_mapb_put(&m, kw(a, "description"), qr_str_cstr(a, desc));
    return qr_mapb_finish(&m, QR_T_MAP);
}

/* {"type":"object","properties":{"result": inner, "offset": ..., "total": ...,
 * "omitted": ..., "next_offset": ...},"required":["result"]} */
static qr_val wrapper_schema(qr_arena *a, qr_val inner)
{
    qr_mapb props;
    qr_mapb_init(&props, a, 5);
    qr_mapb_put(&props, kw(a, "result"), inner);
    qr_mapb_put(&props, kw(a, "offset"),
                int_schema(a, "when the list is cut to a page: the row this page starts at"));
    qr_mapb_put(&props, kw(a, "total"),
                int_schema(a, "when the list is cut to a page: how many rows there are"));
    qr_mapb_put(&props, kw(a, "omitted"),
                int_schema(a, "how many rows follow this page"));
    qr_mapb_put(&props, kw(a, "next_offset"),
                int_schema(a, "the offset of the next page: call again with the same "
                              "arguments and this offset"));
    qr_val req = qr_vec_from(a, QR_T_VEC, (qr_val[]){qr_str_cstr(a, "result")}, 1);
    qr_mapb m;
    qr_mapb_init(&m, a, 3);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "object"));
    qr_mapb_put(&m, kw(a, "properties"), qr_mapb_finish(&props, QR_T_MAP));
    qr_mapb_put(&m, kw(a, "required"), req);
    return qr_mapb_finish(&m, QR_T_MAP);
}

static qr_val offset_schema(qr_arena *a)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 3);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "integer"));
    qr_mapb_put(&m, kw(a, "minimum"), qr_int(0));
    qr_mapb_put(&m, kw(a, "description"),
                qr_str_cstr(a, "the first row to return when the list is longer than a page: "
                               "the next_offset of the previous page (default 0)"));
    return qr_mapb_finish(&m, QR_T_MAP);
}

static qr_val repo_schema(qr_arena *a)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "string"));
    qr_mapb_put(&m, kw(a, "description"),
                qr_str_cstr(a, "the repository to work on: a directory inside it (absolute, "
                               "or relative to where the server started); default: the "
                               "server's repository"));
    return qr_mapb_finish(&m, QR_T_MAP);
}

/* Appends the descriptors of every usable tool of reg to the list. */
static int add_tools(qr_mcp_server *s, const qr_tools *reg, bool own, qr_buf *err)
{
    qr_arena *a = &s->list_arena;
    qr_buf text;
    qr_buf_init(&text);
    int rc = qr_tools_export(reg, QR_TOOLS_MCP, false, &text);
    qr_val all;
    qr_read_error e;
    if (rc == QR_OK && qr_json_read(a, text.p, text.len, &all, &e) != QR_OK)
        rc = QR_ENOMEM;
    qr_buf_release(&text);
    if (rc != QR_OK)
        return rc;
    size_t n = qr_vec_len(all);
    mcp_tool *list = realloc(s->list, (s->nlist + n) * sizeof *list);
    if (!list)
        return QR_ENOMEM;
    s->list = list;
    for (size_t i = 0; i < n; i++) {
        qr_val d = qr_vec_at(all, i);
        qr_val name = mcp_get(a, d, "name");
        const qr_tool *t =
            name.t == QR_T_STR ? qr_tools_find(reg, name.s->data, name.s->len) : NULL;
        if (!t) {
            qr_buf_puts(err, "a tool of the MCP export is not in its registry");
            return QR_EINVAL;
        }
        for (size_t k = 0; k < s->nlist; k++)
            if (!strcmp(s->list[k].tool->name, t->name)) {
                qr_buf_printf(err, "two tools are named '%s'", t->name);
                return QR_EINVAL;
            }
        mcp_tool *mt = &s->list[s->nlist++];
        memset(mt, 0, sizeof *mt);
        mt->tool = t;
        mt->own = own;
        qr_val in = mcp_get(a, d, "inputSchema"), props = mcp_get(a, in, "properties");
        if ((t->caps & QR_TOOL_READS_REPO) && !mcp_has(a, props, "repo")) {
            props = qr_map_assoc(a, props, kw(a, "repo"), repo_schema(a));
            in = qr_map_assoc(a, in, kw(a, "properties"), props);
            d = qr_map_assoc(a, d, kw(a, "inputSchema"), in);
            mt->repo_arg = true;
        }
        if (!mcp_has(a, d, "outputSchema")) {
            qr_val inner = qr_map_empty();
            if (t->result_schema)
                qr_json_read(a, t->result_schema, strlen(t->result_schema), &inner, &e);
            d = qr_map_assoc(a, d, kw(a, "outputSchema"), wrapper_schema(a, inner));
            mt->wrapped = true;
        }
        /* a result that may be a list is served a page at a time: the client asks for the
         * next with `offset` (the server's own tools take it as a parameter of theirs) */
        qr_val rtype = mcp_get(a, mcp_get(a, mcp_get(a, mcp_get(a, d, "outputSchema"),
                                                     "properties"),
                                          "result"),
                               "type");
        bool object_result = rtype.t == QR_T_STR && !strcmp(rtype.s->data, "object");
        if (mt->wrapped && !object_result && !mcp_has(a, props, "offset")) {
            in = mcp_get(a, d, "inputSchema");
            props = qr_map_assoc(a, mcp_get(a, in, "properties"), kw(a, "offset"),
                                 offset_schema(a));
            in = qr_map_assoc(a, in, kw(a, "properties"), props);
            d = qr_map_assoc(a, d, kw(a, "inputSchema"), in);
            mt->offset_arg = true;
        }
        mt->desc = d;
        mt->desc_legacy = qr_map_dissoc(a, d, kw(a, "outputSchema"));
    }
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

/* One transform op of the DSL: its name and keys ("sort (:on :by; :order)"), and with
 * `full` what it does. */
typedef struct op_list {
    qr_buf *b;
    bool full;
    size_t n;
} op_list;

static void describe_op(void *ud, const char *name, const char *required, const char *optional,
                        const char *summary, const char *example)
{
    (void)example;
    op_list *l = ud;
    if (l->full)
        qr_buf_printf(l->b, "\n- %s (%s%s%s): %s", name, required,
                      optional[0] ? "; optional " : "", optional, summary);
    else
        qr_buf_printf(l->b, "%s%s (%s%s%s)", l->n ? ", " : "", name, required,
                      optional[0] ? "; " : "", optional);
    l->n++;
}

/* run_query's descriptions, with the transform ops from the DSL's own table, so the model
 * sees the ops that exist: the tool's description names each op with its keys (within
 * the 1,024 characters the OpenAI API takes), and the description of its `text`
 * parameter says what each does (the same as the resource quarry://reference/query). */
static void amend_run_query(qr_mcp_server *s)
{
    qr_arena *a = &s->list_arena;
    for (size_t i = 0; i < s->nlist; i++) {
        mcp_tool *mt = &s->list[i];
        if (!mt->own || strcmp(mt->tool->name, "run_query"))
            continue;
        qr_buf b;
        qr_buf_init(&b);
        qr_tool_description(mt->tool, &b);
        qr_buf_puts(&b, "\n\nA query (EDN; in JSON the same, keywords as strings): "
                        "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week "
                        "ago\"}}] :transform [{:op :filter :on :commits :as :large :where [:> "
                        ":files 5]}] :return {:findings :large :summary \"{{count:large}} large "
                        "commits\"}}.\n\nSteps, each {:op OP :as NAME ...} (optional keys after "
                        "';'; 'text' says what each does): ");
        op_list l = {&b, false, 0};
        qr_query_each_op(describe_op, &l);
        qr_buf_putc(&b, '.');
        qr_tools_fit_description(&b, 0, QR_TOOLS_DESCRIPTION_MAX);
        qr_val d = qr_str_new(a, b.p ? b.p : "", b.len);
        /* the text parameter: what each op does */
        qr_val in = mcp_get(a, mt->desc, "inputSchema"), props = mcp_get(a, in, "properties");
        qr_val text = mcp_get(a, props, "text"), tdesc = mcp_get(a, text, "description");
        if (text.t == QR_T_MAP && tdesc.t == QR_T_STR) {
            qr_buf_reset(&b);
            qr_buf_append(&b, tdesc.s->data, tdesc.s->len);
            qr_buf_puts(&b, ". The transform steps:");
            op_list full = {&b, true, 0};
            qr_query_each_op(describe_op, &full);
            text = qr_map_assoc(a, text, kw(a, "description"), qr_str_new(a, b.p, b.len));
            props = qr_map_assoc(a, props, kw(a, "text"), text);
            in = qr_map_assoc(a, in, kw(a, "properties"), props);
        }
        qr_buf_release(&b);
        mt->desc = qr_map_assoc(a, qr_map_assoc(a, mt->desc, kw(a, "description"), d),
                                kw(a, "inputSchema"), in);
        mt->desc_legacy = qr_map_assoc(a, qr_map_assoc(a, mt->desc_legacy, kw(a, "description"), d),
                                       kw(a, "inputSchema"), in);
    }
}

int mcp_worker_init(qr_mcp_server *s, mcp_worker *w)
{
    w->s = s;
    w->tools = qr_tools_default();
    w->own = qr_tools_new();
    w->qcache = qr_query_cache_new(64);
    if (!w->tools || !w->own || !w->qcache)
        return QR_ENOMEM;
    /* what the server may do beyond reading: the registries' own capability mask, so
     * tools/list (the export lists usable tools only), tools/call and every tool a
     * program or a dwim line calls are held to it alike */
    uint32_t keep = QR_TOOL_ALL_CAPS;
    if (!s->cfg.allow_write_memory)
        keep &= ~(uint32_t)(QR_TOOL_WRITES | QR_TOOL_DESTROYS | QR_TOOL_CUMULATIVE);
    if (!s->cfg.allow_exec)
        keep &= ~(uint32_t)QR_TOOL_EXEC;
    qr_tools *regs[] = {w->tools, w->own};
    for (size_t i = 0; i < 2; i++) {
        qr_tools_restrict(regs[i], keep);
        qr_tools_set_cap_hint(regs[i], QR_TOOL_WRITES, MCP_WRITE_HINT);
        qr_tools_set_cap_hint(regs[i], QR_TOOL_DESTROYS, MCP_WRITE_HINT);
        qr_tools_set_cap_hint(regs[i], QR_TOOL_CUMULATIVE, MCP_WRITE_HINT);
        qr_tools_set_cap_hint(regs[i], QR_TOOL_EXEC, MCP_EXEC_HINT);
    }
    /* run_lisp, run_query and dwim call the product tools: each can do whatever a tool it
     * can reach does, so its record carries their bits (a program that may add a note is
     * no read-only tool), and the annotations derived from it say so */
    uint32_t reach = 0;
    for (size_t i = 0; i < qr_tools_count(w->tools); i++)
        if (qr_tools_usable(w->tools, qr_tools_at(w->tools, i)))
            reach |= qr_tools_at(w->tools, i)->caps;
    size_t nrec = 0;
    for (const qr_tool *const *t = qr_mcp_own_tools; *t; t++) {
        if (*t == (s->cfg.allow_exec ? &dwim_tool : &dwim_exec_tool))
            continue;
        if (nrec == sizeof w->own_records / sizeof w->own_records[0])
            return QR_EINVAL;
        qr_tool *rec = &w->own_records[nrec++];
        *rec = **t;
        rec->caps |= reach;
        if (qr_tools_add(w->own, rec) != QR_OK)
            return QR_EINVAL;
    }
    char *dir = NULL;
    if (s->cfg.repo_dir && !(dir = dup_str(s->cfg.repo_dir)))
        return QR_ENOMEM;
    /* the default host's key is its real path when it has one, so a call naming the same
     * directory shares it; a directory that does not exist fails on the first call */
    host_open(w, &w->hosts[0], realpath(s->cfg.repo_dir ? s->cfg.repo_dir : ".", NULL), dir);
    return QR_OK;
}

void mcp_worker_release(mcp_worker *w)
{
    for (size_t i = 0; i < MCP_MAX_HOSTS; i++)
        host_close(&w->hosts[i]);
    qr_tools_free(w->tools);
    qr_tools_free(w->own);
    w->tools = w->own = NULL;
    if (w->qcache)
        qr_query_cache_free(w->qcache);
    w->qcache = NULL;
}

int mcp_tools_init(qr_mcp_server *s, qr_buf *err)
{
    for (size_t i = 0; i < s->nworkers; i++) {
        int rc = mcp_worker_init(s, &s->workers[i]);
        if (rc == QR_EINVAL)
            qr_buf_printf(err, "a tool of the server: %s", qr_tools_error(s->workers[i].own));
        if (rc != QR_OK)
            return rc;
    }
    mcp_worker *w = &s->workers[0];
    int rc = add_tools(s, w->tools, false, err);
    if (rc == QR_OK)
        rc = add_tools(s, w->own, true, err);
    if (rc != QR_OK)
        return rc;
    amend_run_query(s);
    return s->list_arena.exhausted ? QR_ENOMEM : QR_OK;
}

void mcp_tools_release(qr_mcp_server *s)
{
    for (size_t i = 0; s->workers && i < s->nworkers; i++)
        mcp_worker_release(&s->workers[i]);
    free(s->list);
    s->list = NULL;
    s->nlist = 0;
}

int mcp_tools_list(qr_mcp_server *s, mcp_req *r)
{
    qr_arena *a = r->a;
    qr_val cursor = mcp_get(a, r->params, "cursor");
    size_t from = 0;
    if (!qr_is_nil(cursor)) {
        bool ok = cursor.t == QR_T_STR && cursor.s->data[0] == 'p' && cursor.s->len > 1 &&
                  cursor.s->len < 12;
        for (size_t i = 1; ok && i < cursor.s->len; i++) {
            char c = cursor.s->data[i];
            ok = c >= '0' && c <= '9';
            from = from * 10 + (size_t)(c - '0');
        }
        if (!ok || from >= s->nlist) {
            qr_buf d;
            qr_buf_init(&d);
            mcp_describe(&d, cursor);
            mcp_fail(r, RPC_INVALID_PARAMS,
                     "tools/list: invalid cursor %s; pass the nextCursor of the previous page, "
                     "or no cursor for the first page",
                     d.p ? d.p : "");
            qr_buf_release(&d);
            return MCP_FAIL;
        }
    }
    size_t to = from + s->cfg.page_size < s->nlist ? from + s->cfg.page_size : s->nlist;
    bool modern = mcp_since(s, "2025-06-18");
    qr_vecb vb;
    qr_vecb_init(&vb, a, to - from);
    for (size_t i = from; i < to; i++)
        qr_vecb_push(&vb, modern ? s->list[i].desc : s->list[i].desc_legacy);
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "tools"), qr_vecb_finish(&vb, QR_T_VEC));
    if (to < s->nlist) {
        char next[32];
        snprintf(next, sizeof next, "p%zu", to);
        qr_mapb_put(&m, kw(a, "nextCursor"), qr_str_cstr(a, next));
    }
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}

/* ---- calls ---- */

static qr_val text_item(qr_arena *a, const char *text, size_t n)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "text"));
    qr_mapb_put(&m, kw(a, "text"), qr_str_new(a, text, n));
    return qr_mapb_finish(&m, QR_T_MAP);
}

static qr_val tool_error(qr_arena *a, const qr_buf *msg)
{
    const char *text = msg->p && msg->len ? msg->p : "the tool failed";
    qr_val item = text_item(a, text, strlen(text));
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "content"), qr_vec_from(a, QR_T_VEC, &item, 1));
    qr_mapb_put(&m, kw(a, "isError"), qr_bool(true));
    return qr_mapb_finish(&m, QR_T_MAP);
}

static size_t int_field(qr_arena *a, qr_val map, const char *key)
{
    qr_val v = mcp_get(a, map, key);
    return v.t == QR_T_INT && v.i > 0 ? (size_t)v.i : 0;
}

static qr_val tool_result(qr_mcp_server *s, const mcp_tool *mt, qr_arena *a, qr_val v,
                          size_t offset)
{
    qr_val structured = v;
    if (mt->wrapped || v.t != QR_T_MAP) {
        qr_tools_page pg;
        v = qr_tools_page_of(a, v, offset, s->cfg.max_rows, &pg);
        qr_mapb w;
        qr_mapb_init(&w, a, 5);
        qr_mapb_put(&w, kw(a, "result"), v);
        put_page(&w, a, &pg);
        structured = qr_mapb_finish(&w, QR_T_MAP);
    }
    /* the paging fields, whoever cut the list (run_lisp and run_query cut their own) */
    size_t next = int_field(a, structured, "next_offset"), total = int_field(a, structured, "total");
    size_t from = int_field(a, structured, "offset");
    qr_buf text;
    qr_buf_init(&text);
    qr_print_json(&text, structured, false);
    qr_vecb content;
    qr_vecb_init(&content, a, 2);
    qr_vecb_push(&content, text_item(a, text.p ? text.p : "", text.len));
    if (next) {
        /* the line a model reads: which rows it has, and how to get the rest */
        qr_buf_reset(&text);
        qr_buf_printf(&text,
                      "Rows %zu to %zu of %zu are shown; %zu more row%s left out. For the next "
                      "page, call %s again with the same arguments and \"offset\": %zu; or "
                      "filter and aggregate in run_lisp to get what you need in one result.",
                      from + 1, next, total, total - next,
                      total - next == 1 ? " was" : "s were", mt->tool->name, next);
        qr_vecb_push(&content, text_item(a, text.p, text.len));
    } else if (from && total) {
        qr_buf_reset(&text);
        qr_buf_printf(&text, "Rows %zu to %zu of %zu are shown: the last page.", from + 1, total,
                      total);
        qr_vecb_push(&content, text_item(a, text.p, text.len));
    }
    qr_buf_release(&text);
    qr_mapb m;
    qr_mapb_init(&m, a, 3);
    qr_mapb_put(&m, kw(a, "content"), qr_vecb_finish(&content, QR_T_VEC));
    if (mcp_since(s, "2025-06-18"))
        qr_mapb_put(&m, kw(a, "structuredContent"), structured);
    qr_mapb_put(&m, kw(a, "isError"), qr_bool(false));
    return qr_mapb_finish(&m, QR_T_MAP);
}

static const mcp_tool *find_listed(const qr_mcp_server *s, const char *name)
{
    for (size_t i = 0; i < s->nlist; i++)
        if (!strcmp(s->list[i].tool->name, name))
            return &s->list[i];
    return NULL;
}

/* Runs one listed tool for request r (its worker and arena) under req: takes the
 * server's own arguments (`repo`, `offset`) out of args, picks the host, checks the
 * arguments and runs the handler. The handler's code, its value in *out. */
static int run_listed(qr_mcp_server *s, mcp_req *r, const mcp_tool *mt, qr_val args,
                      qr_req *req, qr_val *out, size_t *offset, qr_buf *err)
{
    qr_arena *a = r->a;
    qr_val repo = qr_nil(), offset_v = qr_nil();
    if (mt->repo_arg && args.t == QR_T_MAP) {
        repo = mcp_get(a, args, "repo");
        args = qr_map_dissoc(a, args, kw(a, "repo"));
        args = qr_map_dissoc(a, args, qr_str_cstr(a, "repo"));
    }
    if (mt->offset_arg && args.t == QR_T_MAP) {
        offset_v = mcp_get(a, args, "offset");
        args = qr_map_dissoc(a, args, kw(a, "offset"));
        args = qr_map_dissoc(a, args, qr_str_cstr(a, "offset"));
    }
    mcp_worker *w = r->w;
    mcp_host *h;
    *offset = 0;
    int rc = offset_arg(a, offset_v, mt->tool->name, offset, err) ? QR_OK : QR_EINVAL;
    if (rc == QR_OK)
        rc = host_for(w, mt->tool->name, repo, &h, err);
    if (rc == QR_OK) {
        call_ctx cc = {s, r, h};
        const qr_tools *reg = mt->own ? w->own : w->tools;
        qr_tools_set_ctx(w->tools, &h->host);
        qr_tools_set_ctx(w->own, &cc);
        h->host.git.progress = host_progress;
        h->host.git.progress_ud = r;
        const qr_tool *t;
        qr_val norm;
        rc = qr_tools_prepare(reg, mt->tool->name, args, a, &t, &norm, err);
        if (rc == QR_OK)
            rc = qr_tools_invoke(reg, t, req, norm, a, out, err);
        h->host.git.progress = NULL;
        h->host.git.progress_ud = NULL;
        qr_tools_set_ctx(w->own, NULL);
    }
    return rc;
}

int qr_mcp_call(qr_mcp_server *s, const char *name, qr_val args, qr_req *req, qr_arena *a,
                qr_val *out, qr_buf *err)
{
    const mcp_tool *mt = find_listed(s, name);
    mcp_worker *w = &s->workers[0];
    if (!mt) {
        qr_tools *regs[] = {w->tools, w->own};
        const qr_tool *held = NULL;
        for (size_t i = 0; i < 2 && !held; i++)
            if ((held = qr_tools_find(regs[i], name, strlen(name)))) {
                qr_buf_printf(err, "tool '%s': ", held->name);
                qr_tools_explain_refused(regs[i], held, err);
            }
        if (!held) {
            qr_tools_explain_unknown(w->tools, name, err);
            for (size_t i = 0; i < s->nlist; i++)
                if (s->list[i].own)
                    qr_buf_printf(err, ", %s", s->list[i].tool->name);
        }
        return QR_EINVAL;
    }
    mcp_req *r = calloc(1, sizeof *r);
    if (!r)
        return QR_ENOMEM;
    r->s = s;
    r->a = a;
    r->w = w;
    size_t offset;
    int rc = run_listed(s, r, mt, args, req, out, &offset, err);
    free(r);
    return rc;
}

int mcp_tools_call(qr_mcp_server *s, mcp_req *r)
{
    qr_arena *a = r->a;
    qr_val name = mcp_get(a, r->params, "name"), args = mcp_get(a, r->params, "arguments");
    if (name.t != QR_T_STR)
        return mcp_fail(r, RPC_INVALID_PARAMS,
                        "tools/call needs params.name, the name of a tool (tools/list lists "
                        "them)");
    if (!qr_is_nil(args) && args.t != QR_T_MAP) {
        qr_buf d;
        qr_buf_init(&d);
        mcp_describe(&d, args);
        mcp_fail(r, RPC_INVALID_PARAMS,
                 "tools/call: params.arguments must be an object of the tool's parameters, "
                 "got %s",
                 d.p ? d.p : "");
        qr_buf_release(&d);
        return MCP_FAIL;
    }
    const mcp_tool *mt = find_listed(s, name.s->data);
    const qr_tool *held = NULL;
    const qr_tools *held_reg = NULL;
    if (!mt) {
        /* a tool this server holds back (it writes or executes): a tool error that names
         * the flag, so a model can tell the person what to allow */
        qr_tools *regs[] = {r->w->tools, r->w->own};
        for (size_t i = 0; i < 2 && !held; i++)
            if ((held = qr_tools_find(regs[i], name.s->data, name.s->len)))
                held_reg = regs[i];
    }
    if (!mt && held && !qr_tools_usable(held_reg, held)) {
        qr_buf m;
        qr_buf_init(&m);
        qr_buf_printf(&m, "tool '%s': ", held->name);
        qr_tools_explain_refused(held_reg, held, &m);
        r->result = tool_error(a, &m);
        qr_buf_release(&m);
        mcp_log(s, "debug", "tools/call refused: the tool needs a capability not allowed");
        return MCP_REPLY;
    }
    if (!mt) {
        qr_buf m;
        qr_buf_init(&m);
        qr_tools_explain_unknown(r->w->tools, name.s->data, &m);
        for (size_t i = 0; i < s->nlist; i++)
            if (s->list[i].own)
                qr_buf_printf(&m, ", %s", s->list[i].tool->name);
        mcp_fail(r, RPC_INVALID_PARAMS, "%s", m.p ? m.p : "unknown tool");
        qr_buf_release(&m);
        return MCP_FAIL;
    }
    qr_buf err;
    qr_buf_init(&err);
    size_t offset = 0;
    qr_val out = qr_nil();
    uint64_t t0 = mcp_now_ms();
    int rc = run_listed(s, r, mt, args, &r->req, &out, &offset, &err);
    char line[200];
    snprintf(line, sizeof line, "tools/call %s: %s in %llu ms", mt->tool->name,
             rc == QR_OK ? "ok" : "failed", (unsigned long long)(mcp_now_ms() - t0));
    mcp_log(s, "debug", line);
    r->result = rc == QR_OK ? tool_result(s, mt, a, out, offset) : tool_error(a, &err);
    qr_buf_release(&err);
    return MCP_REPLY;
}
