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

/* What a handler of the server's own tools receives as its context. */
typedef struct call_ctx {
    qr_mcp_server *s;
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

static int run_lisp_fn(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val program = arg(a, args, "program"), data = arg(a, args, "data");
    qr_lisp_session *ls = qr_lisp_session_new(&c->s->cfg.limits);
    if (!ls) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    qr_tools_set_ctx(c->s->tools, &c->h->host);
    qr_lisp_set_tools(ls, qr_tools_lisp_dispatch, c->s->tools);
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
            size_t omitted;
            v = qr_tools_cap_output(a, v, c->s->cfg.max_rows, &omitted);
            qr_mapb m;
            qr_mapb_init(&m, a, 3);
            qr_mapb_put(&m, qr_kw_cstr(a, "result"), v);
            if (res.output_len)
                qr_mapb_put(&m, qr_kw_cstr(a, "output"), qr_str_new(a, res.output, res.output_len));
            if (omitted)
                qr_mapb_put(&m, qr_kw_cstr(a, "omitted"), qr_int((int64_t)omitted));
            *out = qr_mapb_finish(&m, QR_T_MAP);
        }
    }
    qr_lisp_result_clear(&res);
    qr_lisp_session_free(ls);
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
              "anything), omitted: rows left out when a long list was cut}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"result\": {}, \"output\": "
                     "{\"type\": \"string\"}, \"omitted\": {\"type\": \"integer\"}}, "
                     "\"required\": [\"result\"]}",
    .handler = run_lisp_fn,
    .caps = QR_TOOL_READS_REPO,
};

/* ---- run_query ---- */

/* Cuts the :findings of a query's result (its rows, by the DSL's convention) to max_rows. */
static qr_val cut_findings(qr_arena *a, qr_val v, size_t max_rows, size_t *omitted)
{
    *omitted = 0;
    qr_val findings = arg(a, v, "findings");
    if (v.t != QR_T_MAP || !qr_is_seqcoll(findings))
        return qr_tools_cap_output(a, v, max_rows, omitted);
    qr_val cut = qr_tools_cap_output(a, findings, max_rows, omitted);
    return *omitted ? qr_map_assoc(a, v, qr_kw_cstr(a, "findings"), cut) : v;
}

static int run_query_fn(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val query = arg(a, args, "query"), text = arg(a, args, "text"), data = arg(a, args, "data");
    if (qr_is_nil(query) == qr_is_nil(text)) {
        qr_buf_puts(err, "give the query either as 'query' (a JSON object such as {\"fetch\": "
                         "[...], \"return\": {...}}) or as 'text' (the query as EDN or JSON "
                         "text), not both");
        return QR_EINVAL;
    }
    qr_lisp_session *ls = qr_lisp_session_new(&c->s->cfg.limits);
    if (!ls) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    qr_tools_set_ctx(c->s->tools, &c->h->host);
    qr_lisp_set_tools(ls, qr_tools_lisp_dispatch, c->s->tools);
    qr_query_opts opts;
    qr_query_opts_init(&opts, c->s->tools);
    opts.cache = c->s->qcache;
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
            size_t omitted;
            v = cut_findings(a, v, c->s->cfg.max_rows, &omitted);
            qr_mapb m;
            qr_mapb_init(&m, a, 3);
            qr_mapb_put(&m, qr_kw_cstr(a, "result"), v);
            if (res.output_len)
                qr_mapb_put(&m, qr_kw_cstr(a, "output"), qr_str_new(a, res.output, res.output_len));
            if (omitted)
                qr_mapb_put(&m, qr_kw_cstr(a, "omitted"), qr_int((int64_t)omitted));
            *out = qr_mapb_finish(&m, QR_T_MAP);
        }
    }
    qr_lisp_result_clear(&res);
done:
    qr_query_compiled_clear(&q);
    qr_lisp_session_free(ls);
    return rc;
}

static const qr_tool_param run_query_params[] = {
    {.name = "query",
     .type = QR_TOOL_OBJECT,
     .desc = "the query as a JSON object: {\"fetch\": [{\"tool\": \"get_commits\", \"as\": "
             "\"commits\", \"params\": {...}}], \"transform\": [{\"op\": \"filter\", "
             "\"on\": \"commits\", \"as\": \"big\", \"where\": [\">\", \"files\", 5]}], "
             "\"return\": {\"findings\": \"big\"}}"},
    {.name = "text",
     .type = QR_TOOL_STRING,
     .desc = "the query as EDN (or JSON) text, instead of 'query'"},
    {.name = "data",
     .type = QR_TOOL_OBJECT,
     .desc = "the context: names the query may use as bindings, and \"resolved\" values "
             "for {{resolved:key}}"},
    {.name = NULL},
};

static const qr_tool run_query_tool = {
    .name = "run_query",
    .summary = "Run a query in quarry's query DSL: fetch with tools, then filter, sort, "
               "group, join and aggregate with declarative steps, and return findings and a "
               "summary. The query is checked before it runs, and every problem is reported "
               "with its path in the query and a hint.",
    .params = run_query_params,
    .result = "{result: what the query's return section builds (findings cut to a number of "
              "rows), output: what println printed (when anything), omitted: findings left "
              "out}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"result\": {\"type\": "
                     "\"object\"}, \"output\": {\"type\": \"string\"}, \"omitted\": "
                     "{\"type\": \"integer\"}}, \"required\": [\"result\"]}",
    .handler = run_query_fn,
    .caps = QR_TOOL_READS_REPO,
};

/* ---- dwim: one terse line (seed 003), the token-cheap alternative to many schemas ---- */

static int dwim_fn(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    call_ctx *c = ctx;
    qr_val line = arg(a, args, "line");
    char *root = qr_dwim_find_root(c->h->dir ? c->h->dir : ".", err);
    if (!root)
        return QR_EINVAL;
    qr_tools_set_ctx(c->s->tools, &c->h->host);
    /* read-only: fix is refused (an MCP client edits files with its own tools) */
    qr_dwim_ctx d = {.host = &c->h->host, .tools = c->s->tools, .root = root};
    qr_dwim_lookup lk;
    qr_dwim_lookup_init(&lk, &d);
    qr_arena pa;
    qr_arena_init(&pa, 16u << 20);
    qr_dwim_intent in;
    qr_buf text;
    qr_buf_init(&text);
    int rc = qr_dwim_parse(&lk, line.s->data, line.s->len, &pa, &in);
    if (rc == QR_OK && in.confidence < 0.85) {
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
    } else if (rc == QR_OK) {
        rc = qr_dwim_run(&d, &in, &text, err);
        if (rc == QR_OK)
            *out = qr_str_new(a, text.p ? text.p : "", text.len);
    }
    qr_buf_release(&text);
    qr_arena_release(&pa);
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

static const qr_tool dwim_tool = {
    .name = "dwim",
    .summary = "Run one terse line on the repository (outline a file, show a symbol's "
               "body, read lines, grep, call graph, build check, or any tool); lines it is "
               "not sure of are answered with the readings it sees.",
    .params = dwim_params,
    .result = "the verb's text, with line numbers",
    .handler = dwim_fn,
    .caps = QR_TOOL_READS_REPO,
};

/* The server's own tools, served after the registry's. */
static const qr_tool *const own_tools[] = {
    &run_lisp_tool,
    &run_query_tool,
    &dwim_tool,
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
    qr_mcp_server *s = ud;
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
        mcp_notify(s, "notifications/progress", params);
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

static void host_open(qr_mcp_server *s, mcp_host *h, char *key, char *dir)
{
    h->key = key;
    h->dir = dir;
    qr_host_init(&h->host, dir);
    if (s->cfg.memory_path)
        h->host.mem.memory_path = s->cfg.memory_path;
    h->host.git.no_index = s->cfg.no_index;
    h->host.git.warn = host_warn;
    h->host.git.warn_ud = s;
    h->in_use = true;
    h->last_used = ++s->tick;
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
static int host_for(qr_mcp_server *s, const char *tool, qr_val repo, mcp_host **out, qr_buf *err)
{
    mcp_host *def = &s->hosts[0];
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
        qr_buf_printf(err, "tool '%s': repository directory '%s' cannot be used: %s", tool,
                      repo.s->data, strerror(errno));
        return QR_EINVAL;
    }
    if (def->key && !strcmp(def->key, key)) {
        free(key);
        *out = def;
        return QR_OK;
    }
    mcp_host *slot = NULL;
    for (size_t i = 1; i < MCP_MAX_HOSTS; i++) {
        mcp_host *h = &s->hosts[i];
        if (h->in_use && !strcmp(h->key, key)) {
            free(key);
            h->last_used = ++s->tick;
            *out = h;
            return QR_OK;
        }
        if (!h->in_use && !slot)
            slot = h;
    }
    if (!slot) { /* every slot taken: close the least recently used */
        slot = &s->hosts[1];
        for (size_t i = 2; i < MCP_MAX_HOSTS; i++)
            if (s->hosts[i].last_used < slot->last_used)
                slot = &s->hosts[i];
        host_close(slot);
    }
    char *dir = dup_str(key);
    if (!dir) {
        free(key);
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    host_open(s, slot, key, dir);
    *out = slot;
    return QR_OK;
}

/* ---- the list ---- */

static qr_val kw(qr_arena *a, const char *k)
{
    return qr_kw_cstr(a, k);
}

/* {"type":"object","properties":{"result": inner, "omitted": ...},"required":["result"]} */
static qr_val wrapper_schema(qr_arena *a, qr_val inner)
{
    qr_mapb om;
    qr_mapb_init(&om, a, 2);
    qr_mapb_put(&om, kw(a, "type"), qr_str_cstr(a, "integer"));
    qr_mapb_put(&om, kw(a, "description"),
                qr_str_cstr(a, "how many rows of result were left out when it was cut"));
    qr_mapb props;
    qr_mapb_init(&props, a, 2);
    qr_mapb_put(&props, kw(a, "result"), inner);
    qr_mapb_put(&props, kw(a, "omitted"), qr_mapb_finish(&om, QR_T_MAP));
    qr_val req = qr_vec_from(a, QR_T_VEC, (qr_val[]){qr_str_cstr(a, "result")}, 1);
    qr_mapb m;
    qr_mapb_init(&m, a, 3);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "object"));
    qr_mapb_put(&m, kw(a, "properties"), qr_mapb_finish(&props, QR_T_MAP));
    qr_mapb_put(&m, kw(a, "required"), req);
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
static int add_tools(qr_mcp_server *s, const qr_tools *reg, qr_buf *err)
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
        mt->reg = reg;
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
        mt->desc = d;
        mt->desc_legacy = qr_map_dissoc(a, d, kw(a, "outputSchema"));
    }
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static void describe_op(void *ud, const char *name, const char *required, const char *optional,
                        const char *summary, const char *example)
{
    (void)example;
    qr_buf *b = ud;
    qr_buf_printf(b, "\n- %s (%s%s%s): %s", name, required, optional[0] ? "; optional " : "",
                  optional, summary);
}

/* run_query's description, with the transform ops from the DSL's own table, so the model
 * sees the ops that exist. */
static void amend_run_query(qr_mcp_server *s)
{
    qr_arena *a = &s->list_arena;
    for (size_t i = 0; i < s->nlist; i++) {
        mcp_tool *mt = &s->list[i];
        if (mt->reg != s->own || strcmp(mt->tool->name, "run_query"))
            continue;
        qr_buf b;
        qr_buf_init(&b);
        qr_tool_description(mt->tool, &b);
        qr_buf_puts(&b, "\n\nA query (EDN; in JSON the same with strings for keywords): "
                        "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week "
                        "ago\"}}] :transform [{:op :filter :on :commits :as :large :where [:> "
                        ":files 5]}] :return {:findings :large :summary \"{{count:large}} large "
                        "commits\"}}. Transform steps, each {:op OP :as NAME ...}:");
        qr_query_each_op(describe_op, &b);
        qr_val d = qr_str_new(a, b.p ? b.p : "", b.len);
        qr_buf_release(&b);
        mt->desc = qr_map_assoc(a, mt->desc, kw(a, "description"), d);
        mt->desc_legacy = qr_map_assoc(a, mt->desc_legacy, kw(a, "description"), d);
    }
}

int mcp_tools_init(qr_mcp_server *s, qr_buf *err)
{
    s->tools = qr_tools_default();
    s->own = qr_tools_new();
    s->qcache = qr_query_cache_new(64);
    if (!s->tools || !s->own || !s->qcache)
        return QR_ENOMEM;
    for (const qr_tool *const *t = own_tools; *t; t++)
        if (qr_tools_add(s->own, *t) != QR_OK) {
            qr_buf_printf(err, "tool '%s': %s", (*t)->name, qr_tools_error(s->own));
            return QR_EINVAL;
        }
    int rc = add_tools(s, s->tools, err);
    if (rc == QR_OK)
        rc = add_tools(s, s->own, err);
    if (rc != QR_OK)
        return rc;
    amend_run_query(s);
    if (s->list_arena.exhausted)
        return QR_ENOMEM;
    char *dir = NULL;
    if (s->cfg.repo_dir && !(dir = dup_str(s->cfg.repo_dir)))
        return QR_ENOMEM;
    /* the default host's key is its real path when it has one, so a call naming the same
     * directory shares it; a directory that does not exist fails on the first call */
    host_open(s, &s->hosts[0], realpath(s->cfg.repo_dir ? s->cfg.repo_dir : ".", NULL), dir);
    return QR_OK;
}

void mcp_tools_release(qr_mcp_server *s)
{
    for (size_t i = 0; i < MCP_MAX_HOSTS; i++)
        host_close(&s->hosts[i]);
    free(s->list);
    s->list = NULL;
    s->nlist = 0;
    qr_tools_free(s->tools);
    qr_tools_free(s->own);
    s->tools = s->own = NULL;
    if (s->qcache)
        qr_query_cache_free(s->qcache);
    s->qcache = NULL;
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

static qr_val tool_result(qr_mcp_server *s, const mcp_tool *mt, qr_arena *a, qr_val v)
{
    size_t omitted = 0, shown = 0;
    v = qr_tools_cap_output(a, v, s->cfg.max_rows, &omitted);
    qr_val structured = v;
    if (mt->wrapped || v.t != QR_T_MAP) {
        qr_mapb w;
        qr_mapb_init(&w, a, 2);
        qr_mapb_put(&w, kw(a, "result"), v);
        if (omitted)
            qr_mapb_put(&w, kw(a, "omitted"), qr_int((int64_t)omitted));
        structured = qr_mapb_finish(&w, QR_T_MAP);
    } else {
        qr_val o = mcp_get(a, v, "omitted"); /* run_lisp cuts its own result */
        if (o.t == QR_T_INT)
            omitted = (size_t)o.i;
    }
    qr_val inner = mcp_get(a, structured, "result");
    if (qr_is_seqcoll(inner))
        shown = qr_vec_len(inner);
    qr_buf text;
    qr_buf_init(&text);
    qr_print_json(&text, structured, false);
    qr_vecb content;
    qr_vecb_init(&content, a, 2);
    qr_vecb_push(&content, text_item(a, text.p ? text.p : "", text.len));
    if (omitted) {
        qr_buf_reset(&text);
        qr_buf_printf(&text,
                      "%zu more row%s left out: the first %zu are shown. Pass 'limit', or "
                      "filter and aggregate in run_lisp to get what you need in one result.",
                      omitted, omitted == 1 ? " was" : "s were", shown);
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
    if (!mt) {
        qr_buf m;
        qr_buf_init(&m);
        qr_tools_explain_unknown(s->tools, name.s->data, &m);
        for (size_t i = 0; i < s->nlist; i++)
            if (s->list[i].reg == s->own)
                qr_buf_printf(&m, ", %s", s->list[i].tool->name);
        mcp_fail(r, RPC_INVALID_PARAMS, "%s", m.p ? m.p : "unknown tool");
        qr_buf_release(&m);
        return MCP_FAIL;
    }
    qr_buf err;
    qr_buf_init(&err);
    qr_val repo = qr_nil();
    if (mt->repo_arg && args.t == QR_T_MAP) {
        repo = mcp_get(a, args, "repo");
        args = qr_map_dissoc(a, args, kw(a, "repo"));
        args = qr_map_dissoc(a, args, qr_str_cstr(a, "repo"));
    }
    mcp_host *h;
    int rc = host_for(s, mt->tool->name, repo, &h, &err);
    qr_val out = qr_nil();
    uint64_t t0 = mcp_now_ms();
    if (rc == QR_OK) {
        call_ctx cc = {s, h};
        qr_tools_set_ctx(s->tools, &h->host);
        qr_tools_set_ctx(s->own, &cc);
        h->host.git.progress = host_progress;
        h->host.git.progress_ud = s;
        const qr_tool *t;
        qr_val norm;
        rc = qr_tools_prepare(mt->reg, mt->tool->name, args, a, &t, &norm, &err);
        if (rc == QR_OK)
            rc = qr_tools_invoke(mt->reg, t, norm, a, &out, &err);
        h->host.git.progress = NULL;
        h->host.git.progress_ud = NULL;
        qr_tools_set_ctx(s->own, NULL);
    }
    char line[200];
    snprintf(line, sizeof line, "tools/call %s: %s in %llu ms", mt->tool->name,
             rc == QR_OK ? "ok" : "failed", (unsigned long long)(mcp_now_ms() - t0));
    mcp_log(s, "debug", line);
    r->result = rc == QR_OK ? tool_result(s, mt, a, out) : tool_error(a, &err);
    qr_buf_release(&err);
    return MCP_REPLY;
}
