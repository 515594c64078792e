/*
 * tools_sparql.c: the `sparql_query` tool (seed 004, tier 3): a read-only SPARQL 1.1
 * query (SELECT or ASK) over the graph of the tool's context, with limits (time, memory)
 * and a paged row cap: at most `limit` rows come back (default 100) from `offset`, and a
 * cut result says how to get the next page. The query is checked when the call is
 * validated (syntax, refusals), so a model sees "read-only: INSERT DATA is an update"
 * before anything runs.
 *
 * The graph: the code graph of the host's repository (its working tree, as RDF under the
 * vocabulary of docs/sparql.md), or the RDF files of $QUARRY_SPARQL_DATA when set; built
 * once on first use and kept for the life of the context.
 *
 * With `repos` the query runs over each named repository's code graph on the team database
 * (QUARRY_DATABASE_URL), one at a time, and the rows are joined and paged as one list,
 * each naming its repo (qr_code_ask_repos: the path query_codebase's `repos` takes too).
 *
 * Values come back as plain data: IRIs and strings as strings, blank nodes as "_:label",
 * integers, decimals and doubles as numbers, booleans as booleans; unbound variables are
 * absent from their row.
 */
#include "quarry/code.h"
#include "quarry/date.h"
#include "quarry/sparql.h"
#include "quarry/tools.h"
#include "quarry/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XSD_NS "http://www.w3.org/2001/XMLSchema#"

void qr_sparql_ctx_release(qr_sparql_ctx *c)
{
    qr_sparql_store_free(c->store);
    c->store = NULL;
}

static int check_query(const char *s, size_t n, qr_buf *err)
{
    qr_sparql_query *q;
    qr_sparql_error e;
    if (qr_sparql_prepare(s, n, NULL, &q, &e)) {
        if (e.line)
            qr_buf_printf(err, "%s at %u:%u: %s",
                          e.kind == QR_SPARQL_REFUSED ? "refused" : "syntax error", e.line, e.col,
                          e.msg);
        else
            qr_buf_printf(err, "%s: %s", e.kind == QR_SPARQL_REFUSED ? "refused" : "syntax error",
                          e.msg);
        return QR_EINVAL;
    }
    qr_sparql_query_free(q);
    return QR_OK;
}

static bool arg_get(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

static int64_t arg_int(qr_val args, qr_arena *a, const char *name, int64_t def)
{
    qr_val v;
    if (!arg_get(args, a, name, &v))
        return def;
    return v.t == QR_T_INT ? v.i : v.t == QR_T_DOUBLE ? (int64_t)v.d : def;
}

static int load(qr_sparql_ctx *c, const qr_stop *stop, qr_buf *err);

int qr_sparql_ctx_store(qr_sparql_ctx *c, qr_sparql_store **out, qr_buf *err)
{
    int rc = load(c, NULL, err);
    *out = rc ? NULL : c->store;
    return rc;
}

static int load(qr_sparql_ctx *c, const qr_stop *stop, qr_buf *err)
{
    if (c->store)
        return QR_OK;
    if (!c->data_paths || !c->data_paths[0]) {
        qr_code_ctx *cc = c->code;
        if (!cc) {
            qr_buf_puts(err, "no graph to query: set QUARRY_SPARQL_DATA to N-Triples or Turtle "
                             "files (separated by ':'), or run in a repository");
            return QR_EINVAL;
        }
        /* the code graph of the working tree, shared with query_codebase */
        if (!cc->graph || cc->graph_ref) {
            int rc;
            if (!cc->code &&
                (rc = qr_code_open(cc->repo_dir ? cc->repo_dir : ".", &cc->code, err)) != QR_OK)
                return rc;
            qr_code_graph_free(cc->graph);
            free(cc->graph_ref);
            cc->graph = NULL;
            cc->graph_ref = NULL;
            qr_code_opts o = {
                .progress = cc->progress, .progress_ud = cc->progress_ud, .stop = stop};
            if ((rc = qr_code_load(cc->code, &o, &cc->graph, err)) != QR_OK)
                return rc;
        }
        c->store = qr_sparql_store_new();
        if (!c->store)
            return QR_ENOMEM;
        int rc = qr_sparql_load_code_graph(c->store, cc->graph);
        if (rc)
            qr_sparql_ctx_release(c);
        return rc;
    }
    c->store = qr_sparql_store_new();
    if (!c->store)
        return QR_ENOMEM;
    char *paths = strdup(c->data_paths);
    if (!paths) {
        qr_sparql_ctx_release(c);
        return QR_ENOMEM;
    }
    int rc = QR_OK;
    for (char *p = paths, *next; p && rc == QR_OK; p = next) {
        next = strchr(p, ':');
        if (next)
            *next++ = 0;
        if (!*p)
            continue;
        qr_sparql_error e;
        rc = qr_sparql_store_load_file(c->store, p, NULL, NULL, &e);
        if (rc)
            qr_buf_puts(err, e.msg);
    }
    free(paths);
    if (rc)
        qr_sparql_ctx_release(c);
    return rc;
}

static qr_val term_value(qr_arena *a, const qr_sparql_term *t)
{
    if (t->kind == QR_SPARQL_BLANK) {
        char *s = qr_arena_alloc(a, t->len + 3);
        if (!s)
            return qr_nil();
        memcpy(s, "_:", 2);
        memcpy(s + 2, t->lex, t->len);
        return qr_str_new(a, s, t->len + 2);
    }
    if (t->kind == QR_SPARQL_LITERAL && t->datatype &&
        !strncmp(t->datatype, XSD_NS, sizeof XSD_NS - 1)) {
        const char *l = t->datatype + sizeof XSD_NS - 1;
        char *end;
        if (!strcmp(l, "integer") || !strcmp(l, "int") || !strcmp(l, "long")) {
            long long v = strtoll(t->lex, &end, 10);
            if (*end == 0)
                return qr_int(v);
        } else if (!strcmp(l, "decimal") || !strcmp(l, "double") || !strcmp(l, "float")) {
            double d = strtod(t->lex, &end);
            if (*end == 0)
                return qr_double(d);
        } else if (!strcmp(l, "boolean")) {
            return qr_bool(!strcmp(t->lex, "true") || !strcmp(t->lex, "1"));
        }
    }
    return qr_str_new(a, t->lex, t->len);
}

int qr_sparql_result_page(const qr_sparql_result *r, size_t offset, size_t limit, qr_arena *a,
                          qr_val *out, qr_buf *err)
{
    int rc = QR_OK;
    qr_mapb mbs;
    qr_mapb_init(&mbs, a, 8);
    qr_mapb *mb = &mbs;
    if (qr_sparql_result_is_ask(r)) {
        qr_mapb_put(mb, qr_kw_cstr(a, "boolean"), qr_bool(qr_sparql_result_boolean(r)));
        *out = qr_mapb_finish(mb, QR_T_MAP);
        return QR_OK;
    }
    size_t nv = qr_sparql_result_nvars(r), n = qr_sparql_result_nrows(r);
    qr_vecb vars_b, rows_b;
    qr_vecb_init(&vars_b, a, nv);
    qr_vecb *vars = &vars_b;
    qr_val *keys = qr_arena_alloc(a, (nv + 1) * sizeof(qr_val));
    if (!keys)
        return QR_ENOMEM;
    for (size_t j = 0; j < nv; j++) {
        const char *name = qr_sparql_result_var(r, j);
        qr_vecb_push(vars, qr_str_new(a, name, strlen(name)));
        keys[j] = qr_kw_cstr(a, name);
    }
    size_t from = offset < n ? offset : n;
    size_t to = from + limit < n ? from + limit : n;
    qr_vecb_init(&rows_b, a, to - from);
    qr_vecb *rows = &rows_b;
    qr_mapb rbs;
    qr_mapb_init(&rbs, a, nv);
    qr_mapb *rb = &rbs;
    for (size_t i = from; i < to; i++) {
        for (size_t j = 0; j < nv; j++) {
            qr_sparql_term t;
            if (qr_sparql_result_get(r, i, j, &t))
                qr_mapb_put(rb, keys[j], term_value(a, &t));
        }
        qr_vecb_push(rows, qr_mapb_finish(rb, QR_T_MAP));
        qr_mapb_reuse(rb);
    }
    qr_mapb_put(mb, qr_kw_cstr(a, "vars"), qr_vecb_finish(vars, QR_T_VEC));
    qr_mapb_put(mb, qr_kw_cstr(a, "rows"), qr_vecb_finish(rows, QR_T_VEC));
    qr_mapb_put(mb, qr_kw_cstr(a, "total"), qr_int((int64_t)n));
    qr_mapb_put(mb, qr_kw_cstr(a, "truncated"), qr_bool(to < n));
    if (to < n) {
        char hint[200];
        snprintf(hint, sizeof hint,
                 "showing rows %zu to %zu of %zu; call again with offset %zu for the next "
                 "page, or narrow the query (ORDER BY, LIMIT)",
                 from, to, n, to);
        qr_mapb_put(mb, qr_kw_cstr(a, "next_offset"), qr_int((int64_t)to));
        qr_mapb_put(mb, qr_kw_cstr(a, "hint"), qr_str_new(a, hint, strlen(hint)));
    }
    *out = qr_mapb_finish(mb, QR_T_MAP);
    if (a->exhausted) {
        qr_buf_puts(err, "the result does not fit in the memory limit; lower 'limit'");
        rc = QR_ENOMEM;
    }
    return rc;
}

/* Runs q over st with the context's limits, the call's timeout and the request's stop
 * and memory budget. */
static int exec_limited(qr_sparql_ctx *c, qr_req *req, qr_sparql_store *st,
                        const qr_sparql_query *q, int64_t timeout, qr_sparql_result **r,
                        qr_buf *err)
{
    qr_sparql_limits lim = c->limits;
    lim.timeout_ms = (uint64_t)timeout;
    lim.stop = &req->stop;
    lim.now = qr_clock_now();
    /* the engine's own cap, or the request's memory budget when smaller (a Lisp program's
     * --max-memory, a flow's budget) */
    lim.max_memory = qr_req_memory_cap(req, lim.max_memory ? lim.max_memory : (size_t)256 << 20);
    qr_sparql_error e;
    int rc = qr_sparql_exec(st, q, &lim, r, &e);
    if (rc != QR_OK)
        qr_buf_puts(err, e.msg);
    return rc;
}

/* ---- across repositories (`repos`): each repository's code graph of the team database
 * as RDF, the query run over each, the rows joined by qr_code_ask_repos ---- */
typedef struct across {
    qr_sparql_ctx *c;
    const qr_sparql_query *q;
    int64_t timeout;
    qr_val vars; /* the first answer's :vars (nil until then) */
    bool ask, any;
} across;

static int ask_one_repo(void *ud, qr_req *req, const qr_code_listing *ls, qr_code_graph *g,
                        int64_t want, qr_arena *a, qr_vecb *rows, int64_t *total, qr_buf *err)
{
    (void)ls;
    across *x = ud;
    qr_sparql_store *st = qr_sparql_store_new();
    if (!st)
        return QR_ENOMEM;
    qr_sparql_result *r = NULL;
    int rc = qr_sparql_load_code_graph(st, g);
    if (rc == QR_OK)
        rc = exec_limited(x->c, req, st, x->q, x->timeout, &r, err);
    if (rc == QR_OK && qr_sparql_result_is_ask(r)) {
        bool b = qr_sparql_result_boolean(r);
        qr_mapb mb;
        qr_mapb_init(&mb, a, 1);
        qr_mapb_put(&mb, qr_kw_cstr(a, "boolean"), qr_bool(b));
        qr_vecb_push(rows, qr_mapb_finish(&mb, QR_T_MAP));
        *total += 1;
        x->ask = true;
        x->any |= b;
    } else if (rc == QR_OK) {
        size_t n = qr_sparql_result_nrows(r);
        qr_val page, v;
        rc = qr_sparql_result_page(r, 0, want < 0 || (uint64_t)want > n ? n : (size_t)want, a,
                                   &page, err);
        if (rc == QR_OK && qr_map_get(page, qr_kw_cstr(a, "rows"), &v))
            for (size_t i = 0; i < qr_vec_len(v); i++)
                qr_vecb_push(rows, qr_vec_at(v, i));
        if (rc == QR_OK && qr_is_nil(x->vars) && qr_map_get(page, qr_kw_cstr(a, "vars"), &v))
            x->vars = v;
        *total += (int64_t)n;
    }
    qr_sparql_result_free(r);
    qr_sparql_store_free(st);
    return rc;
}

static int query_repos(qr_sparql_ctx *c, qr_req *req, const qr_sparql_query *q, qr_val repos,
                       int64_t offset, int64_t limit, int64_t timeout, qr_arena *a,
                       qr_val *out, qr_buf *err)
{
    if (c->data_paths && c->data_paths[0]) {
        qr_buf_puts(err, "parameter 'repos': it asks the code graphs of the shared code index, "
                         "and QUARRY_SPARQL_DATA names RDF files instead; unset one of them");
        return QR_EINVAL;
    }
    across x = {.c = c, .q = q, .timeout = timeout, .vars = qr_nil()};
    qr_code_across res;
    int rc = qr_code_ask_repos(c->code ? c->code->repo_dir : NULL, req, repos, offset, limit,
                               ask_one_repo, &x, a, &res, err);
    if (rc != QR_OK)
        return rc;
    qr_vecb vars;
    qr_vecb_init(&vars, a, 4);
    qr_vecb_push(&vars, qr_str_cstr(a, "repo"));
    if (x.ask)
        qr_vecb_push(&vars, qr_str_cstr(a, "boolean"));
    for (size_t i = 0; !x.ask && !qr_is_nil(x.vars) && i < qr_vec_len(x.vars); i++)
        qr_vecb_push(&vars, qr_vec_at(x.vars, i));
    qr_mapb mb;
    qr_mapb_init(&mb, a, 8);
    qr_mapb_put(&mb, qr_kw_cstr(a, "repos"), res.repos);
    if (x.ask)
        qr_mapb_put(&mb, qr_kw_cstr(a, "boolean"), qr_bool(x.any));
    qr_mapb_put(&mb, qr_kw_cstr(a, "vars"), qr_vecb_finish(&vars, QR_T_VEC));
    qr_mapb_put(&mb, qr_kw_cstr(a, "rows"), res.rows);
    qr_mapb_put(&mb, qr_kw_cstr(a, "total"), qr_int(res.total));
    qr_mapb_put(&mb, qr_kw_cstr(a, "truncated"), qr_bool(res.next_offset >= 0));
    if (res.next_offset >= 0) {
        char hint[200];
        snprintf(hint, sizeof hint,
                 "showing rows %lld to %lld of %lld; call again with offset %lld for the next "
                 "page, or narrow the query (ORDER BY, LIMIT)",
                 (long long)offset, (long long)res.next_offset, (long long)res.total,
                 (long long)res.next_offset);
        qr_mapb_put(&mb, qr_kw_cstr(a, "next_offset"), qr_int(res.next_offset));
        qr_mapb_put(&mb, qr_kw_cstr(a, "hint"), qr_str_new(a, hint, strlen(hint)));
    }
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static int sparql_query_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    qr_sparql_ctx *c = ctx;
    qr_val qv, repos;
    if (!arg_get(args, a, "query", &qv) || qv.t != QR_T_STR) {
        qr_buf_puts(err, "parameter 'query' must be a string");
        return QR_EINVAL;
    }
    int64_t limit = arg_int(args, a, "limit", 100);
    int64_t offset = arg_int(args, a, "offset", 0);
    int64_t timeout = arg_int(args, a, "timeout_ms", 10000);
    qr_sparql_query *q = NULL;
    qr_sparql_result *r = NULL;
    qr_sparql_error e;
    /* the call's time budget and stop cover parsing too */
    qr_sparql_limits plim = {.timeout_ms = (uint64_t)timeout, .stop = &req->stop};
    int rc = qr_sparql_prepare_limited(qv.s->data, qv.s->len, NULL, &plim, &q, &e);
    if (rc) {
        qr_buf_printf(err, "%s: %s",
                      e.kind == QR_SPARQL_REFUSED ? "refused"
                      : e.kind == QR_SPARQL_LIMIT ? "limit"
                                                  : "syntax error",
                      e.msg);
        return rc;
    }
    if (arg_get(args, a, "repos", &repos)) { /* across repositories: the team database */
        rc = query_repos(c, req, q, repos, offset, limit, timeout, a, out, err);
        goto done;
    }
    if ((rc = load(c, &req->stop, err)) != QR_OK)
        goto done;
    if ((rc = exec_limited(c, req, c->store, q, timeout, &r, err)) != QR_OK)
        goto done;
    rc = qr_sparql_result_page(r, (size_t)offset, (size_t)limit, a, out, err);
done:
    qr_sparql_result_free(r);
    qr_sparql_query_free(q);
    return rc;
}

static const qr_tool_param sparql_query_params[] = {
    {.name = "query",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "a SPARQL 1.1 SELECT or ASK query (PREFIX and BASE allowed; updates, CONSTRUCT, "
             "DESCRIBE and SERVICE are refused)",
     .check = check_query},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .def = "100",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 10000,
     .desc = "at most this many rows come back (a page)"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .def = "0",
     .has_min = true,
     .min = 0,
     .desc = "the first row of the page (the previous call's next_offset)"},
    {.name = "timeout_ms",
     .type = QR_TOOL_INTEGER,
     .def = "10000",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 120000,
     .desc = "stop the evaluation after this many milliseconds"},
    {.name = "repos",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .desc = "run the query over each of these repositories of the shared code index "
             "instead of this one: their names, or [\"all\"]; each row then names its ?repo "
             "(needs QUARRY_DATABASE_URL; each repository as its last `quarry code index` "
             "recorded it)",
     .brief = "other repositories of the shared code index (names, or [\"all\"]); rows get repo"},
    {.name = NULL},
};

static const qr_tool sparql_query_tool = {
    .name = "sparql_query",
    .summary = "Run a read-only SPARQL 1.1 query (SELECT or ASK) over the code graph as RDF "
               "(functions, files, calls, includes, types: vocabulary in docs/sparql.md); "
               "rows come back a page at a time.",
    .params = sparql_query_params,
    .result = "{:vars [names] :rows [{var value}] :total N :truncated bool (+ :next_offset "
              ":hint when cut)}, or {:boolean b} for ASK",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"vars\": {\"type\": \"array\", "
                     "\"items\": {\"type\": \"string\"}}, \"rows\": {\"type\": \"array\", "
                     "\"items\": {\"type\": \"object\"}}, \"total\": {\"type\": \"integer\"}, "
                     "\"truncated\": {\"type\": \"boolean\"}, \"next_offset\": {\"type\": "
                     "\"integer\"}, \"hint\": {\"type\": \"string\"}, \"boolean\": {\"type\": "
                     "\"boolean\"}}}",
    .handler = sparql_query_fn,
    .caps = QR_TOOL_READS_REPO,
};

const qr_tool *const qr_sparql_tools[] = {&sparql_query_tool, NULL};
