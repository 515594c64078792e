/*
 * run_model.c: where flows meet models: prompt rendering ($var interpolation, late bound:
 * at the moment of use), `call llm` (one model call), `run agent` (a conversation in
 * which the model may call tools through the provider's function calling, for a bounded
 * number of turns), and `expecting Schema` (the reply parsed as JSON and checked against
 * the schema; a reply that fails is sent back with the reason, at most 3 times).
 *
 * Models: the file's `model` declarations choose the model name and the wire format
 * (`anthropic/...` speaks the Messages API, anything else the OpenAI-compatible one); the
 * endpoint and the key come from quarry's configuration (QUARRY_LLM_URL, ...), so a file
 * never holds a secret. Without declarations the configured model is used as is.
 *
 * Tools an agent names: a builtin group (quarry's registry, by the capabilities of each
 * tool: git reads the repository, memory the memory store), an MCP server (its
 * tools/list), and the agents it may `use` or `delegate` to, each offered as a tool
 * taking {"input": "..."}; a delegate's answer ends the agent's turn as its own.
 */
#define _GNU_SOURCE
#include "run_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROMPT_MAX_DEPTH 16
#define SCHEMA_RETRIES 3
#define TOOL_RESULT_MAX (32u << 10)

void flow_frame_release(flow_frame *fr)
{
    for (size_t i = 0; i < fr->nclients; i++)
        qr_llm_free(fr->clients[i].llm);
    free(fr->clients);
    fr->clients = NULL;
    fr->nclients = 0;
    free(fr->vars.v);
    fr->vars.v = NULL;
    fr->vars.cap = fr->vars.n = 0;
    qr_buf_release(&fr->err);
    qr_lisp_session_free(fr->lisp);
    fr->lisp = NULL;
}

/* ---- prompts ---- */
static int render(flow_frame *fr, const qr_flow_decl *p, uint32_t line, qr_buf *out, int depth);

typedef struct render_ctx {
    flow_frame *fr;
    const qr_flow_decl *p;
    uint32_t line;
    int depth;
    qr_buf *out;
    int rc;
} render_ctx;

int flow_render_prompt(flow_frame *fr, const qr_flow_decl *p, uint32_t line, qr_buf *out)
{
    if (!p->has_body)
        p = qr_flow_find(fr->run->f, QR_FD_PROMPT, p->name.s, p->name.n);
    return render(fr, p, line, out, 0);
}

/* Appends the value of $name.path. */
static int interpolate(render_ctx *c, const char *name, size_t n, const char *path, size_t pathn)
{
    flow_frame *fr = c->fr;
    qr_val v;
    if (flow_var_get(fr, name, n, &v)) {
        const char *s = path + n, *end = path + pathn;
        while (s < end && *s == '.') {
            s++;
            const char *dot = memchr(s, '.', (size_t)(end - s));
            size_t k = dot ? (size_t)(dot - s) : (size_t)(end - s);
            v = flow_field(fr->a, v, s, k);
            s += k;
        }
        return flow_print(fr, c->line, c->out, v, false);
    }
    const qr_flow_decl *p = qr_flow_find(fr->run->f, QR_FD_PROMPT, name, n);
    if (p && p->has_body) {
        if (c->depth + 1 >= PROMPT_MAX_DEPTH)
            return flow_fail(fr, c->line, "prompt '%.*s' includes itself (through $%.*s)",
                             (int)c->p->name.n, c->p->name.s, (int)n, name);
        return render(fr, p, c->line, c->out, c->depth + 1);
    }
    return flow_fail(fr, c->line, "prompt '%.*s' reads $%.*s, which is not set yet",
                     (int)c->p->name.n, c->p->name.s, (int)n, name);
}

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static int render(flow_frame *fr, const qr_flow_decl *p, uint32_t line, qr_buf *out, int depth)
{
    if (!p || !p->has_body)
        return flow_fail(fr, line, "prompt has no body");
    render_ctx c = {fr, p, line, depth, out, QR_OK};
    const char *s = p->body;
    size_t n = p->bodyn;
    for (size_t i = 0; i < n;) {
        if (s[i] == '$' && i + 1 < n && s[i + 1] == '$') {
            qr_buf_putc(out, '$');
            i += 2;
            continue;
        }
        if (s[i] == '$' && i + 1 < n) {
            bool brace = s[i + 1] == '{';
            size_t j = i + 1 + brace, st = j;
            if (j < n && name_start(s[j])) {
                while (j < n && name_char(s[j]))
                    j++;
                size_t name_end = j;
                while (j + 1 < n && s[j] == '.' && name_start(s[j + 1])) {
                    j++;
                    while (j < n && name_char(s[j]))
                        j++;
                }
                if (!brace || (j < n && s[j] == '}')) {
                    int rc = interpolate(&c, s + st, name_end - st, s + st, j - st);
                    if (rc)
                        return rc;
                    i = j + brace;
                    continue;
                }
            }
        }
        qr_buf_putc(out, s[i]);
        i++;
    }
    return out->failed ? flow_fail(fr, line, "out of memory rendering a prompt") : QR_OK;
}

/* ---- schemas ---- */
static const qr_flow_prop *decl_prop(const qr_flow_decl *d, const char *key)
{
    for (size_t i = 0; d && i < d->nprops; i++)
        if (flow_name_eq(d->props[i].key, key, strlen(key)))
            return &d->props[i];
    return NULL;
}

/* The prompt's expecting modifier (from any of its declarations). */
static const qr_flow_prop *expecting_of(const qr_flow_file *f, const qr_flow_decl *p)
{
    for (size_t i = 0; p && i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        if (d->kind == QR_FD_PROMPT && flow_name_eq(d->name, p->name.s, p->name.n)) {
            const qr_flow_prop *e = decl_prop(d, "expecting");
            if (e)
                return e;
        }
    }
    return NULL;
}

static const qr_flow_prop *model_of(const qr_flow_file *f, const qr_flow_decl *p)
{
    for (size_t i = 0; p && i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        if (d->kind == QR_FD_PROMPT && flow_name_eq(d->name, p->name.s, p->name.n)) {
            const qr_flow_prop *e = decl_prop(d, "using");
            if (e)
                return e;
        }
    }
    return NULL;
}

static void describe_type(const qr_flow_file *f, const qr_flow_type *t, qr_buf *out, int depth);

static void describe_schema(const qr_flow_file *f, const qr_flow_decl *s, qr_buf *out, int depth)
{
    qr_buf_putc(out, '{');
    for (size_t i = 0; s && i < s->nprops; i++) {
        const qr_flow_prop *p = &s->props[i];
        if (i)
            qr_buf_puts(out, ", ");
        qr_buf_printf(out, "\"%.*s\": ", (int)p->key.n, p->key.s);
        describe_type(f, p->type, out, depth + 1);
    }
    qr_buf_putc(out, '}');
}

static void describe_type(const qr_flow_file *f, const qr_flow_type *t, qr_buf *out, int depth)
{
    if (!t)
        return;
    switch (t->kind) {
    case QR_FT_STRING: qr_buf_puts(out, "string"); break;
    case QR_FT_INT: qr_buf_puts(out, "integer"); break;
    case QR_FT_FLOAT: qr_buf_puts(out, "number"); break;
    case QR_FT_BOOL: qr_buf_puts(out, "boolean"); break;
    case QR_FT_ANY: qr_buf_puts(out, "any"); break;
    case QR_FT_LIST:
        qr_buf_putc(out, '[');
        describe_type(f, t->elem, out, depth);
        qr_buf_puts(out, ", ...]");
        break;
    case QR_FT_REF:
        if (depth > 4)
            qr_buf_printf(out, "%.*s", (int)t->ref.n, t->ref.s);
        else
            describe_schema(f, qr_flow_find(f, QR_FD_SCHEMA, t->ref.s, t->ref.n), out, depth);
        break;
    }
    if (t->optional)
        qr_buf_puts(out, " or null");
}

/* What is wrong with a reply: every problem, "; "-separated, so that one retry can fix
 * them all (at most WHY_MAX characters, then "and more"). */
#define WHY_MAX 1500

static void why_add(qr_buf *why, const char *fmt, ...)
{
    if (why->len >= WHY_MAX) {
        if (why->len < 9 || memcmp(why->p + why->len - 8, "and more", 8))
            qr_buf_puts(why, "; and more");
        return;
    }
    if (why->len)
        qr_buf_puts(why, "; ");
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(why, fmt, ap);
    va_end(ap);
}

/* Checks v against type t; appends each thing wrong at or under path to why. */
static bool check_type(const qr_flow_file *f, qr_arena *a, const qr_flow_type *t, qr_val v,
                       qr_buf *path, qr_buf *why, int depth);

static bool check_schema(const qr_flow_file *f, qr_arena *a, const qr_flow_decl *s, qr_val v,
                         qr_buf *path, qr_buf *why, int depth)
{
    if (v.t != QR_T_MAP) {
        qr_buf fields;
        qr_buf_init(&fields);
        for (size_t i = 0; s && i < s->nprops; i++)
            qr_buf_printf(&fields, "%s %.*s", i ? "," : "", (int)s->props[i].key.n,
                          s->props[i].key.s);
        why_add(why, "%s should be an object with fields%s", path->len ? path->p : "the reply",
                fields.p ? fields.p : "");
        qr_buf_release(&fields);
        return false;
    }
    bool all = true;
    for (size_t i = 0; s && i < s->nprops; i++) {
        const qr_flow_prop *p = &s->props[i];
        qr_val fv = flow_field(a, v, p->key.s, p->key.n);
        size_t mark = path->len;
        qr_buf_printf(path, "%s%.*s", path->len ? "." : "", (int)p->key.n, p->key.s);
        bool ok;
        if (qr_is_nil(fv) && !p->type->optional) {
            why_add(why, "field '%s' is missing", path->p);
            ok = false;
        } else {
            ok = check_type(f, a, p->type, fv, path, why, depth + 1);
        }
        path->len = mark;
        if (path->p)
            path->p[mark] = 0;
        all = all && ok;
    }
    return all;
}

static bool check_type(const qr_flow_file *f, qr_arena *a, const qr_flow_type *t, qr_val v,
                       qr_buf *path, qr_buf *why, int depth)
{
    const char *where = path->len ? path->p : "the reply";
    if (qr_is_nil(v) && t->optional)
        return true;
    if (depth > 32)
        return true;
    switch (t->kind) {
    case QR_FT_ANY: return true;
    case QR_FT_STRING:
        if (v.t == QR_T_STR)
            return true;
        why_add(why, "%s should be a string", where);
        return false;
    case QR_FT_INT:
        if (v.t == QR_T_INT || (v.t == QR_T_DOUBLE && v.d == (double)(int64_t)v.d))
            return true;
        why_add(why, "%s should be an integer", where);
        return false;
    case QR_FT_FLOAT:
        if (qr_is_number(v))
            return true;
        why_add(why, "%s should be a number", where);
        return false;
    case QR_FT_BOOL:
        if (v.t == QR_T_BOOL)
            return true;
        why_add(why, "%s should be true or false", where);
        return false;
    case QR_FT_LIST: {
        if (v.t != QR_T_VEC && v.t != QR_T_LIST) {
            why_add(why, "%s should be a list", where);
            return false;
        }
        bool all = true;
        for (size_t i = 0; i < qr_vec_len(v) && why->len < WHY_MAX; i++) {
            size_t mark = path->len;
            qr_buf_printf(path, "[%zu]", i);
            bool ok = check_type(f, a, t->elem, qr_vec_at(v, i), path, why, depth + 1);
            path->len = mark;
            if (path->p)
                path->p[mark] = 0;
            all = all && ok;
        }
        if (!all && why->len >= WHY_MAX)
            why_add(why, "and more");
        return all;
    }
    case QR_FT_REF:
        return check_schema(f, a, qr_flow_find(f, QR_FD_SCHEMA, t->ref.s, t->ref.n), v, path,
                            why, depth + 1);
    }
    return true;
}

/* The reply's JSON: the text itself, or inside a ``` fence, or from its first { or [. */
static int reply_json(qr_arena *a, const char *s, size_t n, qr_val *out, qr_buf *why)
{
    const char *fence = memmem(s, n, "```", 3);
    if (fence) {
        const char *body = memchr(fence, '\n', (size_t)(s + n - fence));
        const char *close = body ? memmem(body, (size_t)(s + n - body), "```", 3) : NULL;
        if (body && close) {
            s = body + 1;
            n = (size_t)(close - s);
        }
    }
    qr_read_error err;
    if (qr_json_read(a, s, n, out, &err) == QR_OK)
        return QR_OK;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '{' || s[i] == '[') {
            char close = s[i] == '{' ? '}' : ']';
            for (size_t k = n; k > i; k--)
                if (s[k - 1] == close && qr_json_read(a, s + i, k - i, out, &err) == QR_OK)
                    return QR_OK;
            break;
        }
    qr_json_read(a, s, n, out, &err);
    qr_buf_printf(why, "the reply is not JSON: %s at %u:%u", err.msg, err.line, err.col);
    return QR_EINVAL;
}

/* ---- model clients ---- */
qr_llm *flow_client_for(flow_frame *fr, const qr_flow_decl *model, uint32_t line)
{
    for (size_t i = 0; i < fr->nclients; i++)
        if (fr->clients[i].model == model)
            return fr->clients[i].llm;
    const qr_llm_config *base = fr->run->o->llm;
    qr_llm_config c;
    qr_llm_config_init(&c);
    if (base) {
        c = *base; /* borrowed strings: qr_llm_new copies the config */
    }
    char name[256] = "", provider[64] = "";
    if (model) {
        const char *v = model->value;
        size_t n = model->valuen;
        if (model->block) {
            const qr_flow_prop *pv = decl_prop(model, "provider"), *nm = decl_prop(model, "name");
            if (pv)
                snprintf(provider, sizeof provider, "%.*s", (int)pv->valuen, pv->value);
            if (nm)
                snprintf(name, sizeof name, "%.*s", (int)nm->valuen, nm->value);
            const qr_flow_prop *mt = decl_prop(model, "max_tokens");
            if (mt)
                c.max_tokens = (uint32_t)strtoul(mt->value, NULL, 10);
        } else if (v) {
            const char *slash = memchr(v, '/', n);
            if (slash) {
                snprintf(provider, sizeof provider, "%.*s", (int)(slash - v), v);
                snprintf(name, sizeof name, "%.*s", (int)(v + n - slash - 1), slash + 1);
            }
        }
        if (!strcmp(provider, "anthropic"))
            c.provider = QR_LLM_ANTHROPIC;
        else if (provider[0])
            c.provider = QR_LLM_OPENAI;
        if (name[0])
            c.model = name;
        if (!c.max_tokens)
            c.max_tokens = 2048;
    }
    if (!qr_llm_configured(&c)) {
        flow_fail(fr, line, "no model configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL (or "
                            "[llm] url and model in ~/.config/quarry/config.toml)");
        return NULL;
    }
    qr_llm *l = qr_llm_new(&c);
    flow_client *nc = realloc(fr->clients, (fr->nclients + 1) * sizeof *nc);
    if (!l || !nc) {
        qr_llm_free(l);
        if (nc)
            fr->clients = nc;
        flow_fail(fr, line, "out of memory making a model client");
        return NULL;
    }
    fr->clients = nc;
    flow_secret(fr->run, qr_llm_api_key(l));
    nc[fr->nclients].model = model;
    nc[fr->nclients].llm = l;
    fr->nclients++;
    return l;
}

/* The model a call uses: `using model` on the call, else the prompt's, else `main`. */
const qr_flow_decl *flow_pick_model(flow_frame *fr, const qr_flow_name *call_model,
                                      const qr_flow_decl *prompt)
{
    const qr_flow_file *f = fr->run->f;
    if (call_model && call_model->n)
        return qr_flow_find(f, QR_FD_MODEL, call_model->s, call_model->n);
    const qr_flow_prop *u = model_of(f, prompt);
    if (u && u->nnames)
        return qr_flow_find(f, QR_FD_MODEL, u->names[0].s, u->names[0].n);
    const qr_flow_decl *m = qr_flow_find(f, QR_FD_MODEL, "main", 4);
    if (m)
        return m;
    for (size_t i = 0; i < f->ndecls; i++)
        if (f->decls[i]->kind == QR_FD_MODEL)
            return f->decls[i];
    return NULL;
}

/* One model call, through the one model turn: the flow's own budget of calls and tokens
 * first, then the turn (the request's stop and budget, the shared trace events, the one
 * token count). */
int flow_complete(flow_frame *fr, qr_llm *l, const char *what, const qr_llm_request *req,
                    uint32_t line, qr_llm_response *resp)
{
    int rc = flow_budget_check(fr, line);
    if (rc)
        return rc;
    qr_turn_ctx c = {.llm = l, .req = fr->run->req, .trace = fr->run->trace, .source = "flow"};
    rc = qr_turn_call(&c, what, 0, req, resp);
    flow_budget_add(fr->run, &resp->usage);
    if (rc)
        return flow_fail(fr, line, "%s: %s", what, resp->error);
    return QR_OK;
}

static char *keep(convo *c, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    char **no = realloc(c->owned, (c->nowned + 1) * sizeof *no);
    if (!no) {
        free(d);
        return NULL;
    }
    c->owned = no;
    c->owned[c->nowned++] = d;
    return d;
}

bool flow_convo_add(convo *c, const char *role, const char *s, size_t n, const char *calls,
                    size_t callsn, const char *call_id)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 8;
        qr_llm_message *m = realloc(c->m, nc * sizeof *m);
        if (!m)
            return false;
        c->m = m;
        c->cap = nc;
    }
    qr_llm_message *m = &c->m[c->n];
    memset(m, 0, sizeof *m);
    m->role = role;
    m->content = keep(c, s ? s : "", s ? n : 0);
    m->len = s ? n : 0;
    if (calls) {
        m->tool_calls = keep(c, calls, callsn);
        m->tool_calls_len = callsn;
    }
    if (call_id)
        m->tool_call_id = keep(c, call_id, strlen(call_id));
    if (!m->content || (calls && !m->tool_calls) || (call_id && !m->tool_call_id))
        return false;
    c->n++;
    return true;
}

void flow_convo_free(convo *c)
{
    for (size_t i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    free(c->owned);
    free(c->m);
}

/* Checks a final reply against the expecting schema; on failure asks again (at most
 * SCHEMA_RETRIES times). out: the parsed value, or the text when there is no schema. */
int flow_finish_reply(flow_frame *fr, qr_llm *l, const char *what, const char *system,
                        size_t systemn, convo *c, const char *tools, size_t toolsn,
                        const qr_flow_prop *exp, qr_llm_response *resp, uint32_t line,
                        qr_val *out)
{
    const qr_flow_file *f = fr->run->f;
    for (int attempt = 0;; attempt++) {
        if (!exp) {
            *out = qr_str_new(fr->a, resp->text ? resp->text : "", resp->len);
            return QR_OK;
        }
        qr_buf why, path;
        qr_buf_init(&why);
        qr_buf_init(&path);
        qr_val v;
        bool ok = reply_json(fr->a, resp->text ? resp->text : "", resp->len, &v, &why) == QR_OK;
        if (ok) {
            qr_flow_type t;
            memset(&t, 0, sizeof t);
            t.kind = QR_FT_REF;
            t.ref = exp->names[0];
            qr_flow_type lt;
            memset(&lt, 0, sizeof lt);
            lt.kind = QR_FT_LIST;
            lt.elem = &t;
            ok = check_type(f, fr->a, exp->list ? &lt : &t, v, &path, &why, 0);
        }
        qr_buf_release(&path);
        if (ok) {
            qr_buf_release(&why);
            *out = v;
            return QR_OK;
        }
        if (attempt >= SCHEMA_RETRIES) {
            int rc = flow_fail(fr, line, "%s: the reply does not match '%.*s%s' after %d "
                                         "retries: %s",
                               what, (int)exp->names[0].n, exp->names[0].s,
                               exp->list ? "[]" : "", SCHEMA_RETRIES, why.p ? why.p : "");
            qr_buf_release(&why);
            return rc;
        }
        /* send the reply back with what is wrong */
        qr_buf again;
        qr_buf_init(&again);
        qr_buf_printf(&again, "Your reply is not valid: %s. Reply again with only the JSON.",
                      why.p ? why.p : "");
        qr_buf_release(&why);
        bool added = flow_convo_add(c, "assistant", resp->text, resp->len, NULL, 0, NULL) &&
                     flow_convo_add(c, "user", again.p, again.len, NULL, 0, NULL);
        qr_buf_release(&again);
        if (!added)
            return flow_fail(fr, line, "out of memory");
        qr_llm_response_clear(resp);
        qr_llm_request req = {.system = system, .system_len = systemn, .messages = c->m,
                              .nmessages = c->n, .tools = tools, .tools_len = toolsn};
        int rc = flow_complete(fr, l, what, &req, line, resp);
        if (rc)
            return rc;
    }
}

/* "Reply with only JSON: ..." for a schema. */
void flow_schema_instruction(const qr_flow_file *f, const qr_flow_prop *exp, qr_buf *out)
{
    if (!exp)
        return;
    qr_buf_puts(out, "\n\nReply with only JSON, no other text: ");
    qr_flow_type t;
    memset(&t, 0, sizeof t);
    t.kind = QR_FT_REF;
    t.ref = exp->names[0];
    if (exp->list)
        qr_buf_puts(out, "a JSON array of objects, each ");
    else
        qr_buf_puts(out, "a JSON object ");
    describe_type(f, &t, out, 0);
}

int flow_call_llm(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    const qr_flow_file *f = fr->run->f;
    uint32_t line = e->pos.line;
    const qr_flow_decl *p = qr_flow_find(f, QR_FD_PROMPT, e->name.s, e->name.n);
    if (!p)
        return flow_fail(fr, line, "undefined prompt '%.*s'", (int)e->name.n, e->name.s);
    qr_llm *l = flow_client_for(fr, flow_pick_model(fr, &e->model, p), line);
    if (!l)
        return QR_ERUNTIME;
    qr_buf body, input;
    qr_buf_init(&body);
    qr_buf_init(&input);
    int rc = flow_render_prompt(fr, p, line, &body);
    const qr_flow_prop *exp = expecting_of(f, p);
    bool with = e->a != NULL;
    if (!rc && with) {
        qr_val v;
        rc = flow_eval_expr(fr, e->a, &v);
        if (!rc)
            rc = flow_print(fr, line, &input, v, false);
    }
    convo c = {0};
    qr_llm_response resp = {0};
    char what[160];
    snprintf(what, sizeof what, "call llm %.*s", (int)(e->name.n < 100 ? e->name.n : 100),
             e->name.s);
    if (!rc) {
        /* without `with` the prompt is the message; with it, the prompt is the system
         * text and the value the message */
        qr_buf *msg = with ? &input : &body;
        flow_schema_instruction(f, exp, msg);
        if (!flow_convo_add(&c, "user", msg->p ? msg->p : "", msg->len, NULL, 0, NULL))
            rc = flow_fail(fr, line, "out of memory");
    }
    if (!rc) {
        qr_llm_request req = {.system = with ? body.p : NULL, .system_len = with ? body.len : 0,
                              .messages = c.m, .nmessages = c.n};
        rc = flow_complete(fr, l, what, &req, line, &resp);
        if (!rc)
            rc = flow_finish_reply(fr, l, what, with ? body.p : NULL, with ? body.len : 0, &c, NULL,
                              0, exp, &resp, line, out);
    }
    qr_llm_response_clear(&resp);
    flow_convo_free(&c);
    qr_buf_release(&body);
    qr_buf_release(&input);
    return rc;
}
