/*
 * catalog_mcp.c: what the MCP server offers besides tools: resources (the reference of
 * the PTC-Lisp run_lisp takes and of the query DSL run_query takes, for a model to read
 * before it writes a program) and prompts (the common questions about a repository,
 * each a message that tells the model which tools answer it).
 *
 * Design: the references are generated from the interpreter's builtin table
 * (qr_lisp_each_builtin) and the DSL's op table (qr_query_each_op), as run_query's tool
 * description already is, so they list what exists in this build. Prompts are a short
 * table of records (name, title, description, arguments, a template); a template's
 * {{name}} is replaced by the argument, or by its default. resources/list and
 * prompts/list are not paged: the lists are a handful of entries.
 *
 * Rejected: shipping the Markdown of docs/ inside the binary (they explain the CLI too, and drift
 * from the build is what generating avoids); prompts that call tools themselves (a
 * prompt is text for the model; the model then calls the tools).
 */
#include "mcp_int.h"

#include "quarry/query.h"

#include <string.h>

static qr_val kw(qr_arena *a, const char *k)
{
    return qr_kw_cstr(a, k);
}

static qr_val text_map(qr_arena *a, const char *const *kv, size_t n)
{
    qr_mapb m;
    qr_mapb_init(&m, a, n / 2);
    for (size_t i = 0; i + 1 < n; i += 2)
        if (kv[i + 1])
            qr_mapb_put(&m, kw(a, kv[i]), qr_str_cstr(a, kv[i + 1]));
    return qr_mapb_finish(&m, QR_T_MAP);
}

/* ---- resources ---- */

static void lisp_builtin(void *ud, const char *name, const char *args, const char *doc)
{
    qr_buf *b = ud;
    qr_buf_printf(b, "- `(%s%s%s)`: %s\n", name, args && args[0] ? " " : "", args ? args : "",
                  doc ? doc : "");
}

static void lisp_reference(qr_buf *b)
{
    qr_buf_puts(b,
                "# PTC-Lisp: the language of run_lisp\n\n"
                "A sandboxed subset of Clojure. A program is a sequence of forms; the value of "
                "the last one (or of `(return v)`) is the result. Tools are called as "
                "`(tool/NAME {:param value})` and return their results as data (vectors of "
                "maps with keyword keys); `data/KEY` reads the `data` argument. No files, "
                "network or processes; time, memory and steps are limited, and the time a "
                "program waits for its tools counts. `(println ...)` output comes back as "
                "`output`.\n\n"
                "Example: `(->> (tool/get_commits {:since \"1 month ago\"}) (map :author) "
                "frequencies (sort-by val >) (take 5))`\n\n## Builtins\n\n");
    qr_lisp_each_builtin(lisp_builtin, b);
}

static void query_op(void *ud, const char *name, const char *required, const char *optional,
                     const char *summary, const char *example)
{
    qr_buf *b = ud;
    qr_buf_printf(b, "- `%s` (%s%s%s): %s", name, required, optional[0] ? "; optional " : "",
                  optional, summary);
    if (example && example[0])
        qr_buf_printf(b, " Example: `%s`", example);
    qr_buf_putc(b, '\n');
}

static void query_reference(qr_buf *b)
{
    qr_buf_puts(b,
                "# The query DSL: the language of run_query\n\n"
                "A query is data (EDN, or the same as JSON with strings for keywords): "
                "`{:fetch [...] :transform [...] :return {...}}`.\n\n"
                "- `:fetch`: steps `{:tool :NAME :as :NAME :params {...}}`, each a tool call "
                "whose result is bound to its name.\n"
                "- `:transform`: steps `{:op OP :on :NAME :as :NAME ...}`, each reading bound "
                "names and binding a new one.\n"
                "- `:return`: `{:findings :NAME :summary \"text with {{count:NAME}}\"}`.\n\n"
                "The whole query is checked before it runs; every problem is reported with its "
                "path in the query and a hint.\n\n"
                "Example: `{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week "
                "ago\"}}] :transform [{:op :filter :on :commits :as :large :where [:> :files "
                "5]}] :return {:findings :large :summary \"{{count:large}} large "
                "commits\"}}`\n\n## Transform steps\n\n");
    qr_query_each_op(query_op, b);
}

static const struct {
    const char *uri, *name, *title, *description;
    void (*write)(qr_buf *b);
} resources[] = {
    {"quarry://reference/lisp", "lisp-reference", "PTC-Lisp reference",
     "the language run_lisp takes: how tools and data are reached, and every builtin with "
     "its arguments",
     lisp_reference},
    {"quarry://reference/query", "query-reference", "Query DSL reference",
     "the query language run_query takes: fetch, transform and return, and every transform "
     "step",
     query_reference},
};
#define NRESOURCES (sizeof resources / sizeof resources[0])

int mcp_resources_list(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    qr_arena *a = r->a;
    qr_vecb vb;
    qr_vecb_init(&vb, a, NRESOURCES);
    for (size_t i = 0; i < NRESOURCES; i++) {
        const char *kv[] = {"uri",         resources[i].uri,         "name",
                            resources[i].name, "title",              resources[i].title,
                            "description", resources[i].description, "mimeType",
                            "text/markdown"};
        qr_vecb_push(&vb, text_map(a, kv, sizeof kv / sizeof kv[0]));
    }
    qr_mapb m;
    qr_mapb_init(&m, a, 1);
    qr_mapb_put(&m, kw(a, "resources"), qr_vecb_finish(&vb, QR_T_VEC));
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}

/* The server has no parameterized resources: an empty list, which is a valid answer, so
 * a client that lists templates after it sees the resources capability (the MCP
 * Inspector does) gets one rather than -32601. */
int mcp_resources_templates_list(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    qr_arena *a = r->a;
    qr_mapb m;
    qr_mapb_init(&m, a, 1);
    qr_mapb_put(&m, kw(a, "resourceTemplates"), qr_vec_from(a, QR_T_VEC, NULL, 0));
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}

int mcp_resources_read(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    qr_arena *a = r->a;
    qr_val uri = mcp_get(a, r->params, "uri");
    for (size_t i = 0; uri.t == QR_T_STR && i < NRESOURCES; i++) {
        if (strcmp(uri.s->data, resources[i].uri))
            continue;
        qr_buf b;
        qr_buf_init(&b);
        resources[i].write(&b);
        qr_mapb c;
        qr_mapb_init(&c, a, 3);
        qr_mapb_put(&c, kw(a, "uri"), uri);
        qr_mapb_put(&c, kw(a, "mimeType"), qr_str_cstr(a, "text/markdown"));
        qr_mapb_put(&c, kw(a, "text"), qr_str_new(a, b.p ? b.p : "", b.len));
        qr_buf_release(&b);
        qr_val item = qr_mapb_finish(&c, QR_T_MAP);
        qr_mapb m;
        qr_mapb_init(&m, a, 1);
        qr_mapb_put(&m, kw(a, "contents"), qr_vec_from(a, QR_T_VEC, &item, 1));
        r->result = qr_mapb_finish(&m, QR_T_MAP);
        return MCP_REPLY;
    }
    qr_buf d;
    qr_buf_init(&d);
    if (qr_is_nil(uri))
        qr_buf_puts(&d, "nothing");
    else
        mcp_describe(&d, uri);
    mcp_fail(r, RPC_RESOURCE_NOT_FOUND,
             "resources/read: unknown resource %s; resources/list lists them (%s, %s)",
             d.p ? d.p : "", resources[0].uri, resources[1].uri);
    qr_buf_release(&d);
    return MCP_FAIL;
}

/* ---- prompts ---- */

typedef struct prompt_arg {
    const char *name, *description, *def; /* def NULL: required */
} prompt_arg;

static const struct {
    const char *name, *title, *description;
    prompt_arg args[2];
    const char *text;
} prompts[] = {
    {"recent-commits",
     "Recent commits",
     "what was committed in a window, largest first",
     {{"since", "the start of the window, e.g. \"1 week ago\" or \"2024-05-01\"", "1 week ago"}},
     "List the commits since {{since}} with the get_commits tool (since: \"{{since}}\"), "
     "largest first by changed lines, and summarize what changed. If the result is cut to a "
     "page, fetch the next pages with offset, or count and rank in one run_lisp program."},
    {"top-contributors",
     "Top contributors",
     "who contributed most in a window, by commits and changed lines",
     {{"since", "the start of the window, e.g. \"1 month ago\"", "1 month ago"}},
     "Who contributed most since {{since}}? Use get_author_stats (since: \"{{since}}\") and "
     "rank the authors by commits, then by changed lines; name the top five with their "
     "numbers."},
    {"file-history",
     "History of a file",
     "the commits that changed one file, following renames",
     {{"path", "the file, relative to the repository's root", NULL}},
     "Tell the history of {{path}}: use get_file_history (path: \"{{path}}\") and summarize "
     "who changed it, when, and how much, including any renames."},
    {"hotspots",
     "Hotspots",
     "the files changed most often in a window, and by whom",
     {{"since", "the start of the window, e.g. \"3 months ago\"", "3 months ago"}},
     "Which files changed most often since {{since}}? Use get_file_stats (since: "
     "\"{{since}}\") and list the ten busiest files with their commits, changed lines and "
     "authors; say which look like hotspots worth a review."},
};
#define NPROMPTS (sizeof prompts / sizeof prompts[0])

int mcp_prompts_list(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    qr_arena *a = r->a;
    qr_vecb vb;
    qr_vecb_init(&vb, a, NPROMPTS);
    for (size_t i = 0; i < NPROMPTS; i++) {
        qr_vecb args;
        qr_vecb_init(&args, a, 2);
        for (size_t k = 0; k < 2 && prompts[i].args[k].name; k++) {
            const prompt_arg *pa = &prompts[i].args[k];
            qr_mapb am;
            qr_mapb_init(&am, a, 3);
            qr_mapb_put(&am, kw(a, "name"), qr_str_cstr(a, pa->name));
            qr_mapb_put(&am, kw(a, "description"), qr_str_cstr(a, pa->description));
            qr_mapb_put(&am, kw(a, "required"), qr_bool(pa->def == NULL));
            qr_vecb_push(&args, qr_mapb_finish(&am, QR_T_MAP));
        }
        qr_mapb m;
        qr_mapb_init(&m, a, 4);
        qr_mapb_put(&m, kw(a, "name"), qr_str_cstr(a, prompts[i].name));
        qr_mapb_put(&m, kw(a, "title"), qr_str_cstr(a, prompts[i].title));
        qr_mapb_put(&m, kw(a, "description"), qr_str_cstr(a, prompts[i].description));
        qr_mapb_put(&m, kw(a, "arguments"), qr_vecb_finish(&args, QR_T_VEC));
        qr_vecb_push(&vb, qr_mapb_finish(&m, QR_T_MAP));
    }
    qr_mapb m;
    qr_mapb_init(&m, a, 1);
    qr_mapb_put(&m, kw(a, "prompts"), qr_vecb_finish(&vb, QR_T_VEC));
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}

int mcp_prompts_get(qr_mcp_server *s, mcp_req *r)
{
    (void)s;
    qr_arena *a = r->a;
    qr_val name = mcp_get(a, r->params, "name"), args = mcp_get(a, r->params, "arguments");
    size_t i = 0;
    while (i < NPROMPTS && !(name.t == QR_T_STR && !strcmp(name.s->data, prompts[i].name)))
        i++;
    if (i == NPROMPTS) {
        qr_buf d;
        qr_buf_init(&d);
        if (qr_is_nil(name))
            qr_buf_puts(&d, "nothing");
        else
            mcp_describe(&d, name);
        qr_buf_puts(&d, "; prompts:");
        for (size_t k = 0; k < NPROMPTS; k++)
            qr_buf_printf(&d, "%s %s", k ? "," : "", prompts[k].name);
        mcp_fail(r, RPC_INVALID_PARAMS, "prompts/get: unknown prompt %s", d.p ? d.p : "");
        qr_buf_release(&d);
        return MCP_FAIL;
    }
    /* the argument values, checked: strings, required ones present */
    const char *vals[2] = {NULL, NULL};
    for (size_t k = 0; k < 2 && prompts[i].args[k].name; k++) {
        const prompt_arg *pa = &prompts[i].args[k];
        qr_val v = mcp_get(a, args, pa->name);
        if (v.t == QR_T_STR && v.s->len && v.s->len <= 300)
            vals[k] = v.s->data;
        else if (qr_is_nil(v) && pa->def)
            vals[k] = pa->def;
        else
            return mcp_fail(r, RPC_INVALID_PARAMS,
                            "prompts/get '%s': argument '%s' must be a string of 1 to 300 "
                            "bytes (%s)%s",
                            prompts[i].name, pa->name, pa->description,
                            qr_is_nil(v) ? ", and it is required" : "");
    }
    qr_buf b;
    qr_buf_init(&b);
    for (const char *p = prompts[i].text; *p;) {
        const char *open = strstr(p, "{{");
        if (!open) {
            qr_buf_puts(&b, p);
            break;
        }
        qr_buf_append(&b, p, (size_t)(open - p));
        const char *close = strstr(open, "}}");
        size_t n = (size_t)(close - open - 2);
        for (size_t k = 0; k < 2 && prompts[i].args[k].name; k++)
            if (strlen(prompts[i].args[k].name) == n && !memcmp(open + 2, prompts[i].args[k].name, n))
                qr_buf_puts(&b, vals[k]);
        p = close + 2;
    }
    const char *ckv[] = {"type", "text", "text", b.p ? b.p : ""};
    qr_val content = text_map(a, ckv, 4);
    qr_buf_release(&b);
    qr_mapb msg;
    qr_mapb_init(&msg, a, 2);
    qr_mapb_put(&msg, kw(a, "role"), qr_str_cstr(a, "user"));
    qr_mapb_put(&msg, kw(a, "content"), content);
    qr_val mv = qr_mapb_finish(&msg, QR_T_MAP);
    qr_mapb m;
    qr_mapb_init(&m, a, 2);
    qr_mapb_put(&m, kw(a, "description"), qr_str_cstr(a, prompts[i].description));
    qr_mapb_put(&m, kw(a, "messages"), qr_vec_from(a, QR_T_VEC, &mv, 1));
    r->result = qr_mapb_finish(&m, QR_T_MAP);
    return MCP_REPLY;
}
