/*
 * run_agent.c: `run agent X [with E]`: a conversation with tools. The agent's instruction
 * (rendered now, with the context as it is) is the system text; its input is E, or its
 * `prompt` rendered; the tools it names are offered through the provider's function
 * calling. Each turn the model either answers (the agent's result, checked against the
 * input prompt's `expecting` schema as `call llm` does) or calls tools, whose results go
 * back to it; after budget.max_turns turns without an answer the run fails.
 *
 * Tools: a builtin group of quarry's registry (chosen by each tool's capabilities, and
 * never one that writes or calls a model), the tools of an MCP server (started once per
 * run, over stdio), and the agents named by `use` (called like a tool: {"input": text},
 * their answer returned) or `delegate` (the same, but the delegate's answer is the
 * agent's answer). Registry tools and MCP servers are shared by parallel workers, so each
 * call holds the run's mutex; model calls do not.
 */
#define _GNU_SOURCE
#include "run_int.h"

#include "quarry/dwim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_RESULT_MAX (32u << 10)

typedef enum { TK_BUILTIN, TK_MCP, TK_AGENT, TK_FILES } tool_kind;

typedef struct agent_tool {
    char *name;
    tool_kind kind;
    const qr_tool *tool;       /* TK_BUILTIN */
    flow_mcp *mcp;             /* TK_MCP */
    const qr_flow_decl *agent; /* TK_AGENT */
    bool delegate;
    int files_op;              /* TK_FILES: index in flow_files_tools */
} agent_tool;

typedef struct toolset {
    agent_tool *v;
    size_t n, cap;
    qr_buf json; /* the neutral list offered to the model */
} toolset;

static void toolset_free(toolset *ts)
{
    for (size_t i = 0; i < ts->n; i++)
        free(ts->v[i].name);
    free(ts->v);
    qr_buf_release(&ts->json);
}

static bool has_tool(const toolset *ts, const char *name, size_t n)
{
    for (size_t i = 0; i < ts->n; i++)
        if (strlen(ts->v[i].name) == n && !memcmp(ts->v[i].name, name, n))
            return true;
    return false;
}

/* Adds a tool; its JSON entry (already without the name) is given as description and
 * schema text. */
static bool add_tool(toolset *ts, agent_tool t, const char *name, size_t n, const char *desc,
                     size_t descn, const char *schema, size_t schemalen)
{
    if (has_tool(ts, name, n))
        return true;
    if (ts->n == ts->cap) {
        size_t nc = ts->cap ? ts->cap * 2 : 16;
        agent_tool *v = realloc(ts->v, nc * sizeof *v);
        if (!v)
            return false;
        ts->v = v;
        ts->cap = nc;
    }
    t.name = strndup(name, n);
    if (!t.name)
        return false;
    ts->v[ts->n++] = t;
    qr_buf_puts(&ts->json, ts->n == 1 ? "[" : ",");
    qr_buf_puts(&ts->json, "{\"name\":");
    qr_buf_json_string(&ts->json, name, n);
    qr_buf_puts(&ts->json, ",\"description\":");
    qr_buf_json_string(&ts->json, desc, descn);
    qr_buf_puts(&ts->json, ",\"input_schema\":");
    qr_buf_append(&ts->json, schema, schemalen);
    qr_buf_putc(&ts->json, '}');
    return !ts->json.failed;
}

/* `${env:VAR}` and `${VAR}` in a tool's string replaced by the environment's value. Each
 * value put in is one of the run's secrets (the documented way to pass a key to a server),
 * so no error, trace line or result quoting the command or URL shows it. */
static void expand_env(flow_run *r, const char *s, size_t n, qr_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
            const char *close = memchr(s + i, '}', n - i);
            if (close) {
                const char *name = s + i + 2;
                size_t k = (size_t)(close - name);
                if (k > 4 && !memcmp(name, "env:", 4)) {
                    name += 4;
                    k -= 4;
                }
                char var[128];
                if (k < sizeof var) {
                    memcpy(var, name, k);
                    var[k] = 0;
                    const char *v = getenv(var);
                    if (v) {
                        qr_buf_puts(out, v);
                        flow_secret(r, v);
                    }
                    i = (size_t)(close - s);
                    continue;
                }
            }
        }
        qr_buf_putc(out, s[i]);
    }
}

/* The MCP server of a `tool X = mcp "..."` declaration, started on first use. */
static flow_mcp *mcp_for(flow_frame *fr, const qr_flow_decl *d, uint32_t line)
{
    flow_run *r = fr->run;
    for (size_t i = 0; i < r->nmcp; i++)
        if (r->mcp_decl[i] == d)
            return r->mcp[i];
    qr_buf url;
    qr_buf_init(&url);
    expand_env(r, d->value, d->valuen, &url);
    const char *u = url.p ? url.p : "";
    flow_mcp *m = NULL;
    const char *cmd = u;
    if (!strncmp(cmd, "stdio://", 8))
        cmd += 8;
    else if (!strncmp(cmd, "stdio:", 6))
        cmd += 6;
    qr_buf err, token;
    qr_buf_init(&err);
    qr_buf_init(&token);
    if (d->auth)
        expand_env(r, d->auth, d->authn, &token);
    if (token.p)
        flow_secret(r, token.p);
    bool http = !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8);
    int src = http ? flow_mcp_start_http(u, d->auth ? (token.p ? token.p : "") : NULL, &m, &err)
                   : flow_mcp_start(cmd, &m, &err);
    qr_buf_release(&token);
    if (src != QR_OK) {
        flow_fail(fr, line, "tool '%.*s': %s", (int)d->name.n, d->name.s,
                  err.p ? err.p : "cannot start the MCP server");
        m = NULL;
    } else {
        flow_mcp **nm = realloc(r->mcp, (r->nmcp + 1) * sizeof *nm);
        const qr_flow_decl **nd = nm ? realloc(r->mcp_decl, (r->nmcp + 1) * sizeof *nd) : NULL;
        if (nm)
            r->mcp = nm;
        if (nd)
            r->mcp_decl = nd;
        if (!nm || !nd) {
            flow_mcp_stop(m);
            m = NULL;
            flow_fail(fr, line, "out of memory");
        } else {
            r->mcp[r->nmcp] = m;
            r->mcp_decl[r->nmcp++] = d;
        }
    }
    qr_buf_release(&err);
    qr_buf_release(&url);
    return m;
}

/* The registry tools of a group: git, memory, quarry (all). */
static bool in_group(const qr_tool *t, const char *g, size_t n)
{
    if (t->caps & (QR_TOOL_WRITES | QR_TOOL_MODEL))
        return false;
    if (n > 7 && !memcmp(g, "quarry.", 7)) {
        g += 7;
        n -= 7;
    }
    if (n == 6 && !memcmp(g, "quarry", 6))
        return true;
    if (n == 3 && !memcmp(g, "git", 3))
        return (t->caps & QR_TOOL_READS_REPO) != 0;
    if (n == 6 && !memcmp(g, "memory", 6))
        return (t->caps & QR_TOOL_READS_MEMORY) != 0;
    return false;
}

/* Whether a tool called name is wanted: every one when only is NULL, else that one. */
static bool wanted(const char *name, size_t n, const char *only, size_t onlyn)
{
    return !only || (n == onlyn && !memcmp(name, only, n));
}

/* The files group: DWIM's read, grep and fix (src/dwim) on the run's working tree, the
 * edit only when the run may write files. */
static int add_files(flow_frame *fr, toolset *ts, const char *only, size_t onlyn, uint32_t line)
{
    static const char *const desc[] = {
        "Read lines of a file of the repository's working tree, numbered (at most 200 at "
        "once: give start and end for more).",
        "Search the files of the repository (tracked and untracked, not ignored) for a "
        "regular expression (PCRE2); gives file:line: text for each match, at most 50.",
        "Edit a file of the repository: replace the lines `search` (whole lines, exactly as "
        "they are in the file, found once) by `replace`. Read the file first.",
    };
    static const char *const schema[] = {
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":"
        "\"the file, from the repository's top\"},\"start\":{\"type\":\"integer\",\"description\":"
        "\"the first line (1-based; default 1)\"},\"end\":{\"type\":\"integer\",\"description\":"
        "\"the last line (default: 199 after start)\"}},\"required\":[\"path\"]}",
        "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\",\"description\":"
        "\"a regular expression (PCRE2)\"}},\"required\":[\"pattern\"]}",
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":"
        "\"the file, from the repository's top\"},\"search\":{\"type\":\"string\",\"description\":"
        "\"the lines to replace, exactly as in the file\"},\"replace\":{\"type\":\"string\","
        "\"description\":\"the new lines\"}},\"required\":[\"path\",\"search\",\"replace\"]}",
    };
    const qr_flow_run_opts *o = fr->run->o;
    if (!o->root)
        return flow_fail(fr, line, "tool group 'files': this run has no working tree");
    bool any = false;
    for (int i = 0; flow_files_tools[i]; i++) {
        const char *name = flow_files_tools[i];
        if (!wanted(name, strlen(name), only, onlyn))
            continue;
        if (i == 2 && !o->write_files) {
            if (only)
                return flow_fail(fr, line, "edit_file changes files: run with --allow-write "
                                           "files");
            continue; /* a tool that writes is offered only with the permission */
        }
        agent_tool at = {.kind = TK_FILES, .files_op = i};
        if (!add_tool(ts, at, name, strlen(name), desc[i], strlen(desc[i]), schema[i],
                      strlen(schema[i])))
            return flow_fail(fr, line, "out of memory");
        any = true;
    }
    if (only && !any)
        return flow_fail(fr, line, "the group 'files' has no tool '%.*s' (it has read_file, "
                                   "search_files, edit_file)", (int)onlyn, only);
    return QR_OK;
}

static int add_group(flow_frame *fr, toolset *ts, const char *g, size_t n, uint32_t line,
                     const char *only, size_t onlyn)
{
    size_t gn = n;
    const char *canon = flow_tool_group(g, &gn);
    if (canon && !strcmp(canon, "files"))
        return add_files(fr, ts, only, onlyn, line);
    qr_tools *reg = fr->run->o->tools;
    if (!reg)
        return flow_fail(fr, line, "tool group '%.*s': no tool registry in this run", (int)n, g);
    qr_arena a;
    qr_arena_init(&a, 0);
    int rc = QR_OK;
    for (size_t i = 0; i < qr_tools_count(reg) && !rc; i++) {
        const qr_tool *t = qr_tools_at(reg, i);
        if (!qr_tools_usable(reg, t) || !in_group(t, g, n) ||
            !wanted(t->name, strlen(t->name), only, onlyn))
            continue;
        qr_buf desc, schema;
        qr_buf_init(&desc);
        qr_buf_init(&schema);
        qr_tool_description(t, &desc);
        qr_print_json(&schema, qr_tool_input_schema(t, &a), false);
        agent_tool at = {.kind = TK_BUILTIN, .tool = t};
        if (!add_tool(ts, at, t->name, strlen(t->name), desc.p ? desc.p : "", desc.len,
                      schema.p ? schema.p : "{}", schema.len ? schema.len : 2))
            rc = flow_fail(fr, line, "out of memory");
        qr_buf_release(&desc);
        qr_buf_release(&schema);
    }
    qr_arena_release(&a);
    if (!rc && only && !has_tool(ts, only, onlyn))
        rc = flow_fail(fr, line, "the group '%.*s' offers no tool '%.*s'", (int)n, g, (int)onlyn,
                       only);
    return rc;
}

static int add_mcp(flow_frame *fr, toolset *ts, const qr_flow_decl *d, uint32_t line,
                   const char *only, size_t onlyn)
{
    pthread_mutex_lock(&fr->run->lock);
    flow_mcp *m = mcp_for(fr, d, line);
    qr_buf list, err;
    qr_buf_init(&list);
    qr_buf_init(&err);
    int rc = m ? flow_mcp_tools(m, &list, &err) : QR_ERUNTIME;
    pthread_mutex_unlock(&fr->run->lock);
    if (m && rc)
        flow_fail(fr, line, "tool '%.*s': %s", (int)d->name.n, d->name.s,
                  err.p ? err.p : "tools/list failed");
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    qr_read_error re;
    if (!rc && qr_json_read(&a, list.p ? list.p : "[]", list.len ? list.len : 2, &v, &re) == QR_OK &&
        v.t == QR_T_VEC) {
        for (size_t i = 0; i < qr_vec_len(v) && !rc; i++) {
            qr_val t = qr_vec_at(v, i);
            qr_val name = flow_field(&a, t, "name", 4), desc = flow_field(&a, t, "description", 11),
                   schema = flow_field(&a, t, "input_schema", 12);
            if (name.t != QR_T_STR || !wanted(name.s->data, name.s->len, only, onlyn))
                continue;
            qr_buf sj;
            qr_buf_init(&sj);
            if (qr_is_nil(schema))
                qr_buf_puts(&sj, "{\"type\":\"object\"}");
            else
                qr_print_json(&sj, schema, false);
            agent_tool at = {.kind = TK_MCP, .mcp = m};
            if (!add_tool(ts, at, name.s->data, name.s->len,
                          desc.t == QR_T_STR ? desc.s->data : "",
                          desc.t == QR_T_STR ? desc.s->len : 0, sj.p, sj.len))
                rc = flow_fail(fr, line, "out of memory");
            qr_buf_release(&sj);
        }
    }
    qr_arena_release(&a);
    qr_buf_release(&list);
    qr_buf_release(&err);
    if (!rc && only && !has_tool(ts, only, onlyn))
        rc = flow_fail(fr, line, "the MCP server '%.*s' has no tool '%.*s'", (int)d->name.n,
                       d->name.s, (int)onlyn, only);
    return rc;
}

static int build_tools(flow_frame *fr, const qr_flow_decl *ag, toolset *ts, uint32_t line)
{
    const qr_flow_file *f = fr->run->f;
    for (size_t i = 0; i < ag->nprops; i++) {
        const qr_flow_prop *p = &ag->props[i];
        bool use = flow_name_eq(p->key, "use", 3), del = flow_name_eq(p->key, "delegate", 8);
        if (!flow_name_eq(p->key, "tools", 5) && !use && !del)
            continue;
        for (size_t k = 0; k < p->nnames; k++) {
            qr_flow_name nm = p->names[k];
            int rc = QR_OK;
            if (use || del) {
                const qr_flow_decl *other = qr_flow_find(f, QR_FD_AGENT, nm.s, nm.n);
                if (!other)
                    return flow_fail(fr, line, "undefined agent '%.*s'", (int)nm.n, nm.s);
                const char *desc = "";
                size_t descn = 0;
                for (size_t j = 0; j < other->nprops; j++)
                    if (flow_name_eq(other->props[j].key, "description", 11)) {
                        desc = other->props[j].value;
                        descn = other->props[j].valuen;
                    }
                qr_buf d;
                qr_buf_init(&d);
                qr_buf_printf(&d, "%s the agent '%.*s'%s%.*s", del ? "Hand the task over to"
                                                                  : "Ask",
                              (int)nm.n, nm.s, descn ? ": " : "", (int)descn, desc);
                static const char schema[] =
                    "{\"type\":\"object\",\"properties\":{\"input\":{\"type\":\"string\","
                    "\"description\":\"what the agent should do\"}},\"required\":[\"input\"]}";
                agent_tool at = {.kind = TK_AGENT, .agent = other, .delegate = del};
                if (!add_tool(ts, at, nm.s, nm.n, d.p, d.len, schema, sizeof schema - 1))
                    rc = flow_fail(fr, line, "out of memory");
                qr_buf_release(&d);
            } else {
                /* `tools repo.dwim`: only the tool dwim of the set repo */
                const char *only = NULL;
                size_t onlyn = 0;
                const char *dot = memchr(nm.s, '.', nm.n);
                if (dot && !flow_tool_group_known(nm.s, nm.n)) {
                    only = dot + 1;
                    onlyn = (size_t)(nm.s + nm.n - only);
                    nm.n = (uint32_t)(dot - nm.s);
                }
                const qr_flow_decl *td = qr_flow_find(f, QR_FD_TOOL, nm.s, nm.n);
                if (td && td->mcp)
                    rc = add_mcp(fr, ts, td, line, only, onlyn);
                else if (td)
                    rc = add_group(fr, ts, td->value, td->valuen, line, only, onlyn);
                else
                    rc = add_group(fr, ts, nm.s, nm.n, line, only, onlyn);
            }
            if (rc)
                return rc;
        }
    }
    if (ts->n)
        qr_buf_putc(&ts->json, ']');
    return ts->json.failed ? flow_fail(fr, line, "out of memory") : QR_OK;
}

/* A string argument of a files tool (NULL when absent or not a string). */
static const char *files_arg(flow_frame *fr, qr_val args, const char *k)
{
    qr_val v = flow_field(fr->a, args, k, strlen(k));
    return v.t == QR_T_STR ? v.s->data : NULL;
}

/* A files tool: the DWIM verb (read, grep, fix) run on the run's working tree. Returns
 * whether it failed; its text (or its error) goes to out. */
static bool files_call(flow_frame *fr, int op, qr_val args, qr_buf *out)
{
    const qr_flow_run_opts *o = fr->run->o;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_ctx c;
    memset(&c, 0, sizeof c);
    c.host = o->host;
    c.root = o->root;
    c.write = o->write_files && op == 2;
    c.req = fr->run->req;
    qr_dwim_intent in;
    memset(&in, 0, sizeof in);
    in.params = qr_map_empty();
    in.confidence = 1;
    const char *path = files_arg(fr, args, "path");
    qr_buf content, err;
    qr_buf_init(&content);
    qr_buf_init(&err);
    bool bad = false;
    if (op == 0) {
        in.verb = QR_DWIM_READ;
        in.params = qr_map_assoc(&a, in.params, qr_kw_cstr(&a, "path"),
                                 qr_str_cstr(&a, path ? path : ""));
        qr_val st = flow_field(fr->a, args, "start", 5), en = flow_field(fr->a, args, "end", 3);
        if (st.t == QR_T_INT)
            in.params = qr_map_assoc(&a, in.params, qr_kw_cstr(&a, "start"), st);
        if (en.t == QR_T_INT)
            in.params = qr_map_assoc(&a, in.params, qr_kw_cstr(&a, "end"), en);
        bad = !path;
    } else if (op == 1) {
        in.verb = QR_DWIM_GREP;
        in.target = files_arg(fr, args, "pattern");
        bad = !in.target;
    } else {
        in.verb = QR_DWIM_FIX;
        in.target = path;
        const char *se = files_arg(fr, args, "search"), *re = files_arg(fr, args, "replace");
        bad = !path || !se || !re;
        if (!bad) {
            /* a SEARCH/REPLACE block, each side ending with a newline */
            size_t sn = strlen(se), rn = strlen(re);
            qr_buf_printf(&content, "<<<<<<< SEARCH\n%s%s=======\n%s%s>>>>>>> REPLACE\n", se,
                          sn && se[sn - 1] != '\n' ? "\n" : "", re,
                          rn && re[rn - 1] != '\n' ? "\n" : "");
            in.content = content.p;
        }
    }
    int rc = QR_EINVAL;
    if (bad)
        qr_buf_printf(out, "error: %s needs %s", flow_files_tools[op],
                      op == 0 ? "path" : op == 1 ? "pattern" : "path, search and replace");
    else if (content.failed)
        qr_buf_puts(out, "error: out of memory");
    else if ((rc = qr_dwim_run(&c, &in, out, &err)) != QR_OK)
        qr_buf_printf(out, "error: %s", err.p ? err.p : "the tool failed");
    qr_buf_release(&content);
    qr_buf_release(&err);
    qr_arena_release(&a);
    return rc != QR_OK;
}

/* Runs one tool call; the result's text (cut) goes to out. *final: a delegate answered. */
static int call_tool(flow_frame *fr, const toolset *ts, const char *name, size_t namen,
                     qr_val args, uint32_t line, qr_buf *out, bool *final)
{
    const agent_tool *t = NULL;
    for (size_t i = 0; i < ts->n && !t; i++)
        if (strlen(ts->v[i].name) == namen && !memcmp(ts->v[i].name, name, namen))
            t = &ts->v[i];
    double t0 = flow_now_ms();
    int rc = QR_OK;
    bool failed = false;
    qr_buf args_json;
    qr_buf_init(&args_json);
    qr_print_json(&args_json, args, false);
    if (!t) {
        qr_buf_printf(out, "error: there is no tool '%.*s'", (int)namen, name);
        failed = true;
    } else if (args.t != QR_T_MAP) {
        qr_buf_puts(out, "error: the arguments must be a JSON object");
        failed = true;
    } else if (t->kind == TK_BUILTIN) {
        /* a tool's result may take at most what is left of the run's memory budget */
        size_t used = atomic_load(&fr->run->mem_used), max = fr->run->b.max_memory;
        qr_arena a;
        qr_arena_init(&a, used < max ? max - used : 1);
        qr_val res;
        qr_buf err;
        qr_buf_init(&err);
        pthread_mutex_lock(&fr->run->lock);
        int trc = qr_tools_call(fr->run->o->tools, t->tool->name, fr->run->req, flow_copy(&a, args), &a,
                                &res, &err);
        pthread_mutex_unlock(&fr->run->lock);
        if (trc) {
            qr_buf_printf(out, "error: %s", err.p ? err.p : "the tool failed");
            failed = true;
        } else {
            size_t omitted = 0;
            qr_val shown = qr_tools_cap_output(&a, res, QR_TOOLS_OUTPUT_ROWS, &omitted);
            qr_print_json(out, shown, false);
            if (omitted)
                qr_buf_printf(out, "\n(%zu more rows not shown)", omitted);
        }
        qr_buf_release(&err);
        qr_arena_release(&a);
    } else if (t->kind == TK_FILES) {
        pthread_mutex_lock(&fr->run->lock); /* fix refreshes the shared code graph */
        failed = files_call(fr, t->files_op, args, out);
        pthread_mutex_unlock(&fr->run->lock);
    } else if (t->kind == TK_MCP) {
        qr_buf err;
        qr_buf_init(&err);
        bool is_error = false;
        pthread_mutex_lock(&fr->run->lock);
        int mrc = flow_mcp_call(t->mcp, t->name, args_json.p ? args_json.p : "{}", args_json.len,
                                out, &is_error, &err);
        pthread_mutex_unlock(&fr->run->lock);
        if (mrc) {
            qr_buf_printf(out, "error: %s", err.p ? err.p : "the MCP server failed");
            failed = true;
        } else if (is_error) {
            failed = true;
        }
        qr_buf_release(&err);
    } else {
        qr_val input = flow_field(fr->a, args, "input", 5);
        qr_buf in;
        qr_buf_init(&in);
        qr_val v;
        rc = flow_print(fr, line, &in, input, false);
        if (!rc)
            rc = flow_run_agent(fr, t->agent, NULL, in.p ? in.p : "", in.len, line, &v);
        if (!rc)
            rc = flow_print(fr, line, out, v, false);
        if (!rc)
            *final = t->delegate;
        qr_buf_release(&in);
    }
    flow_scrub(fr->run, out); /* a server may echo its bearer token, a tool the key */
    if (out->len > TOOL_RESULT_MAX) {
        size_t cut = qr_utf8_offset(out->p, TOOL_RESULT_MAX, SIZE_MAX);
        (void)cut;
        size_t k = TOOL_RESULT_MAX;
        while (k > 0 && ((unsigned char)out->p[k] & 0xC0) == 0x80)
            k--;
        out->len = k;
        out->p[k] = 0;
        qr_buf_puts(out, "\n(cut: the result is longer)");
    }
    qr_buf tr;
    qr_buf_init(&tr);
    qr_buf_puts(&tr, "{\"event\":\"tool\",\"name\":");
    qr_buf_json_string(&tr, name, namen);
    qr_buf_puts(&tr, ",\"arguments\":");
    qr_buf_append(&tr, args_json.p ? args_json.p : "null", args_json.p ? args_json.len : 4);
    qr_buf_puts(&tr, ",\"result\":");
    qr_buf_json_string(&tr, out->p ? out->p : "", out->len < 2000 ? out->len : 2000);
    qr_buf_printf(&tr, ",\"error\":%s,\"ms\":%.1f}", failed ? "true" : "false",
                  flow_now_ms() - t0);
    flow_trace(fr->run, &tr);
    qr_buf_release(&tr);
    qr_buf_release(&args_json);
    return rc;
}

static int agent_loop(flow_frame *fr, const qr_flow_decl *ag, const qr_flow_decl *input_prompt,
                      const char *system, size_t systemn, const char *user, size_t usern,
                      const qr_flow_prop *exp, const toolset *ts, uint32_t line, qr_val *out)
{
    qr_flow_name an = qr_flow_decl_name(ag);
    qr_llm *l = flow_client_for(fr, flow_pick_model(fr, NULL, input_prompt), line);
    if (!l)
        return QR_ERUNTIME;
    char what[160];
    snprintf(what, sizeof what, "agent %.*s", (int)(an.n < 100 ? an.n : 100), an.s);
    convo c = {0};
    qr_buf u;
    qr_buf_init(&u);
    qr_buf_append(&u, user, usern);
    flow_schema_instruction(fr->run->f, exp, &u);
    int rc = flow_convo_add(&c, "user", u.p ? u.p : "", u.len, NULL, 0, NULL)
                 ? QR_OK
                 : flow_fail(fr, line, "out of memory");
    qr_buf_release(&u);
    const char *tools = ts->n ? ts->json.p : NULL;
    size_t toolsn = ts->n ? ts->json.len : 0;
    qr_llm_response resp = {0};
    uint32_t turns = fr->run->b.max_turns;
    bool done = false;
    for (uint32_t turn = 0; !rc && !done; turn++) {
        if (turn >= turns) {
            rc = flow_fail(fr, line, "agent '%.*s' did not answer within %u turns", (int)an.n,
                           an.s, turns);
            break;
        }
        qr_llm_request req = {.system = systemn ? system : NULL, .system_len = systemn,
                              .messages = c.m, .nmessages = c.n, .tools = tools,
                              .tools_len = toolsn};
        qr_llm_response_clear(&resp);
        rc = flow_complete(fr, l, what, &req, line, &resp);
        if (rc)
            break;
        if (!resp.tool_calls) {
            rc = flow_finish_reply(fr, l, what, systemn ? system : NULL, systemn, &c, tools,
                                   toolsn, exp, &resp, line, out);
            done = true;
            break;
        }
        qr_val calls;
        qr_read_error re;
        if (qr_json_read(fr->a, resp.tool_calls, resp.tool_calls_len, &calls, &re) != QR_OK ||
            calls.t != QR_T_VEC) {
            rc = flow_fail(fr, line, "%s: unreadable tool calls", what);
            break;
        }
        if (!flow_convo_add(&c, "assistant", resp.text, resp.len, resp.tool_calls,
                            resp.tool_calls_len, NULL)) {
            rc = flow_fail(fr, line, "out of memory");
            break;
        }
        for (size_t i = 0; i < qr_vec_len(calls) && !rc && !done; i++) {
            qr_val call = qr_vec_at(calls, i);
            qr_val id = flow_field(fr->a, call, "id", 2), name = flow_field(fr->a, call, "name", 4);
            qr_val args = flow_field(fr->a, call, "arguments", 9);
            qr_buf result;
            qr_buf_init(&result);
            bool final = false;
            char idbuf[128] = "";
            if (id.t == QR_T_STR)
                snprintf(idbuf, sizeof idbuf, "%.*s", (int)(id.s->len < 127 ? id.s->len : 127),
                         id.s->data);
            rc = call_tool(fr, ts, name.t == QR_T_STR ? name.s->data : "",
                           name.t == QR_T_STR ? name.s->len : 0, args, line, &result, &final);
            if (!rc && final) {
                *out = qr_str_new(fr->a, result.p ? result.p : "", result.len);
                done = true;
            } else if (!rc && !flow_convo_add(&c, "tool", result.p ? result.p : "", result.len,
                                              NULL, 0, idbuf)) {
                rc = flow_fail(fr, line, "out of memory");
            }
            qr_buf_release(&result);
        }
    }
    qr_llm_response_clear(&resp);
    flow_convo_free(&c);
    return rc;
}

int flow_run_agent(flow_frame *fr, const qr_flow_decl *ag, const qr_flow_expr *with,
                   const char *input, size_t inputn, uint32_t line, qr_val *out)
{
    const qr_flow_file *f = fr->run->f;
    qr_flow_name an = qr_flow_decl_name(ag);
    if (fr->depth >= 32)
        return flow_fail(fr, line, "agents nested more than 32 deep");
    const qr_flow_decl *ins = NULL, *pr = NULL;
    for (size_t i = 0; i < ag->nprops; i++) {
        const qr_flow_prop *p = &ag->props[i];
        if (flow_name_eq(p->key, "instruction", 11) && p->nnames)
            ins = qr_flow_find(f, QR_FD_PROMPT, p->names[0].s, p->names[0].n);
        if (flow_name_eq(p->key, "prompt", 6) && p->nnames)
            pr = qr_flow_find(f, QR_FD_PROMPT, p->names[0].s, p->names[0].n);
    }
    qr_buf system, user;
    qr_buf_init(&system);
    qr_buf_init(&user);
    int rc = QR_OK;
    if (ins)
        rc = flow_render_prompt(fr, ins, line, &system);
    /* the input: `with E`, a caller's text (use/delegate, entry), or the agent's prompt */
    const qr_flow_decl *input_prompt = NULL;
    if (!rc && with) {
        if (with->kind == QR_FX_NAME) {
            qr_val tmp;
            if (!flow_var_get(fr, with->name.s, with->name.n, &tmp))
                input_prompt = qr_flow_find(f, QR_FD_PROMPT, with->name.s, with->name.n);
        }
        qr_val v;
        rc = flow_eval_expr(fr, with, &v);
        if (!rc)
            rc = flow_print(fr, line, &user, v, false);
    } else if (!rc && input && (!pr || fr->depth > 0)) {
        qr_buf_append(&user, input, inputn);
    } else if (!rc && pr) {
        input_prompt = pr;
        rc = flow_render_prompt(fr, pr, line, &user);
    } else if (!rc) {
        rc = flow_fail(fr, line, "agent '%.*s' has no 'prompt': give it its input with 'with'",
                       (int)an.n, an.s);
    }
    const qr_flow_prop *exp = NULL;
    if (input_prompt)
        for (size_t i = 0; i < f->ndecls && !exp; i++) {
            const qr_flow_decl *d = f->decls[i];
            if (d->kind == QR_FD_PROMPT && flow_name_eq(d->name, input_prompt->name.s,
                                                        input_prompt->name.n))
                for (size_t k = 0; k < d->nprops; k++)
                    if (flow_name_eq(d->props[k].key, "expecting", 9))
                        exp = &d->props[k];
        }
    toolset ts;
    memset(&ts, 0, sizeof ts);
    qr_buf_init(&ts.json);
    if (!rc)
        rc = build_tools(fr, ag, &ts, line);
    if (!rc) {
        fr->depth++;
        rc = agent_loop(fr, ag, input_prompt, system.p ? system.p : "", system.len,
                        user.p ? user.p : "", user.len, exp, &ts, line, out);
        fr->depth--;
    }
    toolset_free(&ts);
    qr_buf_release(&system);
    qr_buf_release(&user);
    return rc;
}
