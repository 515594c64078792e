/*
 * tools_code.c: the query_codebase tool (seed 004, tier 1): its registry record and the
 * handler that finds the graph in the host (quarry/host.h), opening the code index and
 * assembling the graph of the ref asked for on first use (indexing the blobs it lacks),
 * then hands the checked arguments to qr_code_query.
 *
 * Design: one tool with a query_type, as the seed chose (fewer tools, less schema in a
 * model's prompt); the parameters are the union of what the types take, each saying which
 * types read it. The graph is kept in the host for its life (one command, one Lisp
 * session, one MCP connection) and assembled again when another ref is asked for.
 *
 * With `repos` the query goes to each named repository's graph on the team database
 * (QUARRY_DATABASE_URL: the files its last `quarry code index` recorded, the rows of their
 * blobs), and the rows are joined, each naming its :repo, as the git tools do.
 *
 * Rejected: fifteen tools (the schema would cost a model more than the answers).
 */
#include "graph_int.h"

#include "quarry/tools.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const match_values[] = {"glob", "regex", "fuzzy", NULL};
static const char *const visibility_values[] = {"public", "private", "all", NULL};
static const char *const direction_values[] = {"callers", "callees", "both", NULL};
static const char *const kind_values[] = {"function", "declaration", "struct",   "union",
                                          "enum",     "enumerator",  "typedef",  "member",
                                          "macro",    "variable",    NULL};

static bool same_ref(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int qr__code_host_graph(void *ctx, const qr_stop *stop, const char *ref, qr_code_graph **out,
                        qr_buf *err)
{
    qr_code_ctx *h = ctx;
    if (!h) {
        qr_buf_puts(err, "no repository: the tool registry has no host (qr_tools_set_ctx)");
        return QR_EINVAL;
    }
    if (h->graph && same_ref(h->graph_ref, ref)) {
        *out = h->graph;
        return QR_OK;
    }
    if (!h->code) {
        int rc = qr_code_open(h->repo_dir ? h->repo_dir : ".", &h->code, err);
        if (rc != QR_OK)
            return rc;
    }
    qr_code_graph_free(h->graph);
    free(h->graph_ref);
    h->graph = NULL;
    h->graph_ref = NULL;
    qr_code_opts o = {
        .ref = ref, .progress = h->progress, .progress_ud = h->progress_ud, .stop = stop};
    int rc = qr_code_load(h->code, &o, &h->graph, err);
    if (rc != QR_OK)
        return rc;
    if (ref && !(h->graph_ref = strdup(ref))) {
        qr_code_graph_free(h->graph);
        h->graph = NULL;
        return QR_ENOMEM;
    }
    *out = h->graph;
    return QR_OK;
}

void qr_code_ctx_release(qr_code_ctx *c)
{
    qr_code_graph_free(c->graph);
    qr_code_close(c->code);
    free(c->graph_ref);
    c->graph = NULL;
    c->code = NULL;
    c->graph_ref = NULL;
}

/* ---- across repositories: the team database's code graph ---- */

static bool arg_of(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

static int64_t int_arg(qr_val args, qr_arena *a, const char *name, int64_t def)
{
    qr_val v;
    return arg_of(args, a, name, &v) && v.t == QR_T_INT ? v.i : def;
}

/* row with :repo first */
static qr_val with_repo(qr_arena *a, qr_val row, const char *repo)
{
    qr_mapb mb;
    qr_mapb_init(&mb, a, qr_map_len(row) + 1);
    qr_mapb_put(&mb, qr_kw_cstr(a, "repo"), qr_str_cstr(a, repo));
    for (size_t k = 0; k < qr_map_len(row); k++)
        qr_mapb_put(&mb, qr_map_key_at(row, k), qr_map_val_at(row, k));
    return qr_mapb_finish(&mb, QR_T_MAP);
}

/* The repositories asked for (names from a), checked against what the database holds. */
static int repos_asked(qr_code *c, qr_val repos, qr_arena *a, const char ***out, size_t *n,
                       qr_buf *err)
{
    if (!qr_is_seqcoll(repos) || qr_vec_len(repos) == 0) {
        qr_buf_puts(err, "parameter 'repos': give a list of repository names, or [\"all\"]");
        return QR_EINVAL;
    }
    const char **have;
    size_t nhave;
    int rc = qr_code_shared_repos(c, a, &have, &nhave, err);
    if (rc != QR_OK)
        return rc;
    *out = qr_arena_zalloc(a, (qr_vec_len(repos) + nhave + 1) * sizeof **out);
    if (!*out)
        return QR_ENOMEM;
    *n = 0;
    for (size_t i = 0; i < qr_vec_len(repos); i++) {
        qr_val v = qr_vec_at(repos, i);
        if (v.t != QR_T_STR) {
            qr_buf_puts(err, "parameter 'repos': each item is a repository name (a string), "
                             "or \"all\"");
            return QR_EINVAL;
        }
        if (!strcmp(v.s->data, "all")) {
            for (size_t k = 0; k < nhave; k++)
                (*out)[k] = have[k];
            *n = nhave;
            return QR_OK;
        }
        size_t k = 0;
        while (k < nhave && strcmp(have[k], v.s->data))
            k++;
        if (k == nhave) {
            qr_buf_printf(err, "no repository '%s' in the shared code index; it has: ",
                          v.s->data);
            for (size_t j = 0; j < nhave; j++)
                qr_buf_printf(err, "%s%s", j ? ", " : "", have[j]);
            if (!nhave)
                qr_buf_puts(err, "none (run 'quarry code index' with QUARRY_DATABASE_URL set)");
            return QR_EINVAL;
        }
        bool dup = false;
        for (size_t j = 0; j < *n; j++)
            dup |= !strcmp((*out)[j], have[k]);
        if (!dup)
            (*out)[(*n)++] = have[k];
    }
    return QR_OK;
}

/* One repository asked: its graph assembled from its listing on the team database, fn
 * asked of it, its rows pushed (each with :repo) and its total added. A miss (QR_EINVAL
 * from fn) adds nothing and keeps the first one's message in miss. */
static int ask_one(const char *local, qr_req *req, const char *name, qr_code_repo_fn fn,
                   void *ud, int64_t want, qr_arena *a, qr_vecb *rows, int64_t *total,
                   qr_buf *miss, qr_buf *err)
{
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    qr_code_listing ls;
    int rc = qr_code_open_shared(local, &c, err);
    if (rc == QR_OK && (rc = qr_code_shared_listing(c, name, a, &ls, err)) == 1) {
        qr_buf_printf(err, "repository '%s' left the shared code index", name);
        rc = QR_EINVAL;
    }
    qr_code_opts o = {.listing = &ls, .stop = &req->stop};
    if (rc == QR_OK)
        rc = qr_code_load(c, &o, &g, err);
    qr_buf qerr;
    qr_buf_init(&qerr);
    qr_vecb mine;
    qr_vecb_init(&mine, a, 16);
    if (rc == QR_OK)
        rc = fn(ud, req, &ls, g, want, a, &mine, total, &qerr);
    if (rc == QR_EINVAL && qerr.len) {
        if (!miss->len)
            qr_buf_printf(miss, "%s: %s", name, qerr.p);
        rc = QR_OK;
    } else if (rc == QR_OK) {
        qr_val list = qr_vecb_finish(&mine, QR_T_VEC);
        for (size_t i = 0; i < qr_vec_len(list); i++) {
            qr_val r = qr_vec_at(list, i);
            qr_vecb_push(rows, r.t == QR_T_MAP ? with_repo(a, r, name) : r);
        }
    } else if (qerr.len) {
        qr_buf_append(err, qerr.p, qerr.len);
    }
    qr_buf_release(&qerr);
    qr_code_graph_free(g);
    qr_code_close(c);
    return rc;
}

int qr_code_ask_repos(const char *local, qr_req *req, qr_val repos, int64_t offset,
                      int64_t limit, qr_code_repo_fn fn, void *ud, qr_arena *a,
                      qr_code_across *out, qr_buf *err)
{
    qr_code *c = NULL;
    int rc = qr_code_open_shared(local, &c, err);
    const char **names = NULL;
    size_t n = 0;
    if (rc == QR_OK)
        rc = repos_asked(c, repos, a, &names, &n, err);
    qr_code_close(c);
    if (rc != QR_OK)
        return rc;
    /* each repository is asked for its first offset + limit rows */
    int64_t want = limit < 0 ? INT64_MAX : offset + limit;
    qr_vecb rows;
    qr_vecb_init(&rows, a, 16);
    int64_t total = 0;
    qr_buf miss;
    qr_buf_init(&miss);
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        if (qr_stop_check(&req->stop)) {
            qr_stop_fail(&req->stop, err);
            rc = QR_ESTOPPED;
            break;
        }
        rc = ask_one(local, req, names[i], fn, ud, want, a, &rows, &total, &miss, err);
    }
    if (rc == QR_OK && total == 0 && miss.len) {
        qr_buf_append(err, miss.p, miss.len); /* found in none: the first repository's why */
        rc = QR_EINVAL;
    }
    qr_buf_release(&miss);
    if (rc != QR_OK)
        return rc;
    qr_val all = qr_vecb_finish(&rows, QR_T_VEC);
    size_t from = (size_t)offset < qr_vec_len(all) ? (size_t)offset : qr_vec_len(all);
    size_t to = limit < 0 || from + (size_t)limit > qr_vec_len(all) ? qr_vec_len(all)
                                                                    : from + (size_t)limit;
    qr_vecb names_v;
    qr_vecb_init(&names_v, a, n);
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&names_v, qr_str_cstr(a, names[i]));
    out->repos = qr_vecb_finish(&names_v, QR_T_VEC);
    out->rows = qr_vec_slice(a, all, from, to);
    out->total = total;
    out->next_offset = (int64_t)to < total ? (int64_t)to : -1;
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

/* query_codebase of one repository: the query with offset 0 and limit want */
static int query_one(void *ud, qr_req *req, const qr_code_listing *ls, qr_code_graph *g,
                     int64_t want, qr_arena *a, qr_vecb *rows, int64_t *total, qr_buf *err)
{
    (void)ls;
    qr_val args = qr_map_dissoc(a, *(const qr_val *)ud, qr_kw_cstr(a, "repos"));
    args = qr_map_assoc(a, args, qr_kw_cstr(a, "offset"), qr_int(0));
    args = qr_map_assoc(a, args, qr_kw_cstr(a, "limit"), qr_int(want));
    qr_val res;
    int rc = qr_code_query(g, &req->stop, args, a, &res, err);
    if (rc != QR_OK)
        return rc;
    qr_val list;
    if (res.t == QR_T_MAP && qr_map_get(res, qr_kw_cstr(a, "results"), &list) &&
        qr_is_seqcoll(list)) {
        for (size_t i = 0; i < qr_vec_len(list); i++)
            qr_vecb_push(rows, qr_vec_at(list, i));
        *total += int_arg(res, a, "total", (int64_t)qr_vec_len(list));
    } else if (res.t == QR_T_MAP) {
        qr_vecb_push(rows, res);
        *total += 1;
    }
    return QR_OK;
}

/* query_codebase with `repos`: the query asked of each repository's graph as its last
 * `quarry code index` recorded it on the team database, the rows joined (each naming its
 * :repo, repositories in the order asked, or by name for "all") and paged as one list. */
static int query_repos(qr_code_ctx *h, qr_req *req, qr_val args, qr_val repos, qr_arena *a,
                       qr_val *out, qr_buf *err)
{
    qr_val v;
    if (arg_of(args, a, "ref", &v)) {
        qr_buf_puts(err, "parameter 'ref': with 'repos' each repository's graph is the one its "
                         "last 'quarry code index' recorded; leave 'ref' out");
        return QR_EINVAL;
    }
    int64_t offset = int_arg(args, a, "offset", 0), limit = int_arg(args, a, "limit", 50);
    qr_code_across x;
    int rc = qr_code_ask_repos(h ? h->repo_dir : NULL, req, repos, offset, limit, query_one,
                               &args, a, &x, err);
    if (rc != QR_OK)
        return rc;
    qr_val qt = qr_nil();
    arg_of(args, a, "query_type", &qt);
    qr_mapb mb;
    qr_mapb_init(&mb, a, 8);
    qr_mapb_put(&mb, qr_kw_cstr(a, "query_type"), qt);
    qr_mapb_put(&mb, qr_kw_cstr(a, "repos"), x.repos);
    qr_mapb_put(&mb, qr_kw_cstr(a, "total"), qr_int(x.total));
    qr_mapb_put(&mb, qr_kw_cstr(a, "offset"), qr_int(offset));
    qr_mapb_put(&mb, qr_kw_cstr(a, "limit"), qr_int(limit));
    qr_mapb_put(&mb, qr_kw_cstr(a, "next_offset"),
                x.next_offset >= 0 ? qr_int(x.next_offset) : qr_nil());
    qr_mapb_put(&mb, qr_kw_cstr(a, "results"), x.rows);
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static int query_codebase_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    qr_val repos;
    if (arg_of(args, a, "repos", &repos)) /* across repositories: the team database */
        return query_repos(ctx, req, args, repos, a, out, err);
    const char *ref = NULL;
    qr_val v;
    if (args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, "ref"), &v) && v.t == QR_T_STR)
        ref = v.s->data;
    qr_code_graph *g;
    int rc = qr__code_host_graph(ctx, &req->stop, ref, &g, err);
    if (rc != QR_OK)
        return rc;
    return qr_code_query(g, &req->stop, args, a, out, err);
}

static const qr_tool_param query_codebase_params[] = {
    {.name = "query_type",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "what to ask: find_file, list_files, find_function, list_functions, "
             "get_dependencies, get_call_graph, find_struct, list_structs, find_type, "
             "find_macro, find_references, search_by_name, get_skeleton, get_definition, "
             "get_index_stats",
     .enum_values = qr__code_query_types},
    {.name = "name",
     .type = QR_TOOL_STRING,
     .desc = "the symbol (function, struct, type, macro) or, for find_file, the file name"},
    {.name = "file",
     .type = QR_TOOL_STRING,
     .desc = "a repository path (get_skeleton, get_dependencies), or a path prefix, bare "
             "file name or glob that restricts the other types"},
    {.name = "site_file",
     .type = QR_TOOL_STRING,
     .desc = "get_call_graph: only the calls written in files under this path prefix, bare "
             "file name or glob (where the callers are); `file` picks the function by where "
             "it is defined"},
    {.name = "pattern",
     .type = QR_TOOL_STRING,
     .desc = "search_by_name and the list_* types: a name pattern, read as `match` says"},
    {.name = "match",
     .type = QR_TOOL_STRING,
     .def = "\"glob\"",
     .desc = "how pattern matches names: glob (* and ?), regex (PCRE2), fuzzy (its "
             "letters in order, best first)",
     .enum_values = match_values},
    {.name = "kind",
     .type = QR_TOOL_STRING,
     .desc = "search_by_name, get_definition: only symbols of this kind",
     .enum_values = kind_values},
    {.name = "visibility",
     .type = QR_TOOL_STRING,
     .def = "\"all\"",
     .desc = "list_functions: public (external linkage), private (static) or all",
     .enum_values = visibility_values},
    {.name = "direction",
     .type = QR_TOOL_STRING,
     .def = "\"both\"",
     .desc = "get_call_graph: callers, callees or both",
     .enum_values = direction_values},
    {.name = "depth",
     .type = QR_TOOL_INTEGER,
     .def = "1",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 64,
     .desc = "get_call_graph, get_dependencies: how many steps to follow"},
    {.name = "reverse",
     .type = QR_TOOL_BOOLEAN,
     .def = "false",
     .desc = "get_dependencies: the files that include `file` instead of what it includes"},
    {.name = "include_inactive",
     .type = QR_TOOL_BOOLEAN,
     .def = "true",
     .desc = "keep code under #if 0 or #ifdef of a macro nothing defines (marked "
             ":inactive); false leaves it out"},
    {.name = "ref",
     .type = QR_TOOL_STRING,
     .desc = "a commit, branch or tag; none: the working tree with its uncommitted changes"},
    {.name = "repos",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .desc = "ask these repositories of the shared code index instead of this one: their "
             "names, or [\"all\"]; each row then names its :repo (needs QUARRY_DATABASE_URL; "
             "each repository as its last `quarry code index` recorded it, without ref)",
     .brief = "other repositories of the shared code index (names, or [\"all\"]); rows get :repo"},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .def = "50",
     .has_min = true,
     .min = 0,
     .desc = "rows per page"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .def = "0",
     .has_min = true,
     .min = 0,
     .desc = "rows to skip (the :next_offset of the previous page)"},
    {.name = NULL},
};

static const qr_tool query_codebase_tool = {
    .name = "query_codebase",
    .summary = "Ask the code graph of the repository (C and C++ parsed exactly; other "
               "languages' definitions by ctags): files, functions, structs, types, macros, "
               "includes, call graphs, references, outlines and definitions.",
    .params = query_codebase_params,
    .result = "a map: lists under :results with :total :offset :limit :next_offset (nil on "
              "the last page); symbols as {:kind :name :file :line :end_line ...}; "
              "get_definition adds :text; get_index_stats gives counts",
    .result_schema = "{\"type\": \"object\", \"properties\": {"
                     "\"query_type\": {\"type\": \"string\"}, \"total\": {\"type\": \"integer\"}, "
                     "\"offset\": {\"type\": \"integer\"}, \"limit\": {\"type\": \"integer\"}, "
                     "\"next_offset\": {\"type\": [\"integer\", \"null\"]}, "
                     "\"results\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}}}}",
    .handler = query_codebase_fn,
    .caps = QR_TOOL_READS_REPO,
};

const qr_tool *const qr_code_tools[] = {
    &query_codebase_tool,
    NULL,
};
