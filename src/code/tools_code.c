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
 * Rejected: fifteen tools (the schema would cost a model more than the answers).
 */
#include "graph_int.h"

#include "quarry/tools.h"

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

static int query_codebase_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
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
