/*
 * parse_decl.c: the declarations of a workflow file (model, tool, schema, prompt, agent,
 * flow) and the file itself (an optional `streetrace v1` line, then declarations in any
 * order), over the helpers of parse_int.h; flows' statements are parse.c's. A bad line
 * inside a block is reported and skipped, so every independent error is found in one pass.
 */
#include "parse_int.h"

#include <stdlib.h>

/* ---- declarations ---- */
static qr_flow_decl *mkdecl(parser *p, qr_flow_decl_kind k, const flow_tok *t)
{
    qr_flow_decl *d = znew(p, sizeof *d);
    if (!d)
        return NULL;
    d->kind = k;
    d->pos = pos_of(t);
    d->end_line = t->line;
    return d;
}

static bool push_prop(parser *p, vec *props, qr_flow_prop *pr)
{
    qr_flow_prop *c = znew(p, sizeof *c);
    if (!c)
        return false;
    *c = *pr;
    return vpush(p, props, c);
}

static void finish_props(parser *p, qr_flow_decl *d, vec *props)
{
    d->props = znew(p, (props->n ? props->n : 1) * sizeof *d->props);
    if (!d->props)
        return;
    for (size_t i = 0; i < props->n; i++)
        d->props[i] = *(qr_flow_prop *)props->v[i];
    d->nprops = props->n;
}

/* The lines of an indented block of properties: calls fn for each line (current token
 * at its first word); fn returns false on an error (then the line is skipped). */
static bool parse_prop_block(parser *p, qr_flow_decl *d, const char *what,
                             bool (*fn)(parser *, qr_flow_decl *, vec *), vec *props)
{
    if (!expect_op(p, ":", what))
        return false;
    if (p->tok.kind != T_NL) {
        error_at(p, &p->tok, NULL, "end of line after ':'");
        return false;
    }
    advance(p);
    if (p->tok.kind != T_INDENT) {
        error_at(p, &p->tok, "indent the properties under the declaration",
                 "an indented block of properties");
        return false;
    }
    advance(p);
    int level = p->level;
    (void)level;
    while (p->tok.kind != T_EOF && p->tok.kind != T_DEDENT) {
        if (p->tok.kind == T_INDENT) {
            flow_tok t = p->tok;
            qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0008", t.line, 1, t.col > 1 ? t.col - 1 : 1,
                             "indent a line only after one that opens a block",
                             "unexpected indentation");
            skip_indented(p);
            continue;
        }
        p->failed = false;
        if (!fn(p, d, props)) {
            sync_line(p);
            continue;
        }
        d->end_line = p->tok.line;
        expect_nl(p);
        if (p->failed)
            sync_line(p);
    }
    if (p->tok.kind == T_DEDENT)
        advance(p);
    p->failed = false;
    return true;
}

static bool model_prop(parser *p, qr_flow_decl *d, vec *props)
{
    (void)d;
    qr_flow_prop pr;
    memset(&pr, 0, sizeof pr);
    pr.line = p->tok.line;
    if (p->tok.kind != T_NAME) {
        error_at(p, &p->tok, NULL, "a model property (provider, name, temperature, max_tokens)");
        return false;
    }
    pr.key = name_of(&p->tok);
    /* the ':' then the raw value */
    advance(p);
    if (!is_op(&p->tok, ":")) {
        error_at(p, &p->tok, NULL, "':' after the property");
        return false;
    }
    const char *s;
    uint32_t n, col;
    flow_lex_rest_of_line(&p->lx, &s, &n, &col);
    pr.raw = s;
    pr.rawn = n;
    pr.value = s;
    pr.valuen = n;
    if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
        pr.value = s + 1;
        pr.valuen = n - 2;
    }
    if (!n) {
        advance(p);
        error_at(p, &p->tok, NULL, "a value after ':'");
        return false;
    }
    advance(p);
    return push_prop(p, props, &pr);
}

static qr_flow_decl *parse_model(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_MODEL, &kw);
    if (!d || !expect_name(p, "a model name after 'model'", &d->name))
        return NULL;
    if (is_op(&p->tok, "=") && !p->has_peek) {
        const char *s;
        uint32_t n, col;
        flow_lex_rest_of_line(&p->lx, &s, &n, &col);
        d->raw = s;
        d->rawn = n;
        d->value = s;
        d->valuen = n;
        if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
            d->value = s + 1;
            d->valuen = n - 2;
        }
        flow_tok at = p->tok;
        advance(p);
        if (!n || !memchr(d->value, '/', d->valuen)) {
            /* the caret and the message both name what follows '=' */
            if (!p->failed) {
                p->failed = true;
                qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", at.line, n ? col : at.col,
                                 n ? flow_cp_len(s, n) : 1,
                                 "write 'model NAME = PROVIDER/MODEL', e.g. "
                                 "anthropic/claude-sonnet or openai/gpt-4o",
                                 n ? "syntax error: expected PROVIDER/MODEL after '=', found "
                                     "'%.*s', which names no provider"
                                   : "syntax error: expected PROVIDER/MODEL after '='%.*s",
                                 (int)(n > 60 ? 60 : n), s);
            }
            return NULL;
        }
        d->end_line = p->tok.line;
        expect_nl(p);
        return d;
    }
    if (is_op(&p->tok, ":")) {
        vec props = {0};
        d->block = true;
        if (!parse_prop_block(p, d, "':'", model_prop, &props))
            return NULL;
        finish_props(p, d, &props);
        return d;
    }
    error_at(p, &p->tok, NULL, "'=' or ':' after the model name");
    return NULL;
}

static qr_flow_decl *parse_tool(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_TOOL, &kw);
    if (!d || !expect_name(p, "a tool name after 'tool'", &d->name) ||
        !expect_op(p, "=", "'=' after the tool name"))
        return NULL;
    if (is_word(&p->tok, "builtin")) {
        advance(p);
        if (p->tok.kind != T_NAME) {
            error_at(p, &p->tok, NULL, "a tool set name after 'builtin'");
            return NULL;
        }
        const char *start = p->tok.s, *end = p->tok.s + p->tok.n;
        advance(p);
        while (is_op(&p->tok, ".") && peek(p)->kind == T_NAME) {
            advance(p);
            end = p->tok.s + p->tok.n;
            advance(p);
        }
        d->value = d->raw = start;
        d->valuen = d->rawn = (size_t)(end - start);
    } else if (is_word(&p->tok, "mcp")) {
        advance(p);
        if (p->tok.kind != T_STR) {
            error_at(p, &p->tok, NULL, "the server's URL or command as a string after 'mcp'");
            return NULL;
        }
        d->mcp = true;
        d->raw = p->tok.s;
        d->rawn = p->tok.n;
        if (!flow_str_decode(p->a, &p->tok, &d->value, &d->valuen))
            return NULL;
        advance(p);
        if (is_word(&p->tok, "with")) {
            advance(p);
            if (!is_word(&p->tok, "auth") || !is_word(peek(p), "bearer")) {
                error_at(p, &p->tok, NULL, "'auth bearer \"TOKEN\"' after 'with'");
                return NULL;
            }
            advance(p);
            advance(p);
            if (p->tok.kind != T_STR) {
                error_at(p, &p->tok, NULL, "the token as a string");
                return NULL;
            }
            d->auth_raw = p->tok.s;
            d->auth_rawn = p->tok.n;
            if (!flow_str_decode(p->a, &p->tok, &d->auth, &d->authn))
                return NULL;
            advance(p);
        }
    } else {
        error_at(p, &p->tok, "write 'tool NAME = builtin SET' or 'tool NAME = mcp \"URL\"'",
                 "'builtin' or 'mcp'");
        return NULL;
    }
    d->end_line = p->tok.line;
    if (!expect_nl(p))
        return NULL;
    return d;
}

static qr_flow_type *parse_type(parser *p)
{
    if (!enter(p))
        return NULL;
    qr_flow_type *t = znew(p, sizeof *t);
    if (!t) {
        p->depth--;
        return NULL;
    }
    if (p->tok.kind != T_NAME || p->tok.dollar) {
        error_at(p, &p->tok, "types are string, int, float, bool, list[T], a schema's name, "
                             "and T? for optional",
                 "a type");
        p->depth--;
        return NULL;
    }
    flow_tok w = p->tok;
    advance(p);
    if (is_word(&w, "list") && is_op(&p->tok, "[")) {
        advance(p);
        t->kind = QR_FT_LIST;
        t->elem = parse_type(p);
        if (!t->elem || !expect_op(p, "]", "']' after the list's item type")) {
            p->depth--;
            return NULL;
        }
    } else {
        if (is_word(&w, "string") || is_word(&w, "str"))
            t->kind = QR_FT_STRING;
        else if (is_word(&w, "int") || is_word(&w, "integer"))
            t->kind = QR_FT_INT;
        else if (is_word(&w, "float") || is_word(&w, "number"))
            t->kind = QR_FT_FLOAT;
        else if (is_word(&w, "bool") || is_word(&w, "boolean"))
            t->kind = QR_FT_BOOL;
        else if (is_word(&w, "any"))
            t->kind = QR_FT_ANY;
        else
            t->kind = QR_FT_REF;
        t->ref = name_of(&w);
    }
    /* T[] is list[T] */
    while (is_op(&p->tok, "[") && is_op(peek(p), "]")) {
        advance(p);
        advance(p);
        qr_flow_type *l = znew(p, sizeof *l);
        if (!l) {
            p->depth--;
            return NULL;
        }
        l->kind = QR_FT_LIST;
        l->elem = t;
        l->ref = t->ref;
        t = l;
    }
    if (is_op(&p->tok, "?")) {
        advance(p);
        t->optional = true;
    }
    p->depth--;
    return t;
}

static bool schema_field(parser *p, qr_flow_decl *d, vec *props)
{
    (void)d;
    qr_flow_prop pr;
    memset(&pr, 0, sizeof pr);
    pr.line = p->tok.line;
    if (!expect_name(p, "a field name", &pr.key) || !expect_op(p, ":", "':' after the field"))
        return false;
    const char *start = p->tok.s;
    pr.type = parse_type(p);
    if (!pr.type)
        return false;
    (void)start;
    return push_prop(p, props, &pr);
}

static qr_flow_decl *parse_schema(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_SCHEMA, &kw);
    if (!d || !expect_name(p, "a schema name after 'schema'", &d->name))
        return NULL;
    vec props = {0};
    if (!parse_prop_block(p, d, "':' after the schema name", schema_field, &props))
        return NULL;
    finish_props(p, d, &props);
    return d;
}

static qr_flow_decl *parse_prompt(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_PROMPT, &kw);
    if (!d || !expect_name(p, "a prompt name after 'prompt'", &d->name))
        return NULL;
    vec mods = {0};
    for (;;) {
        qr_flow_prop pr;
        memset(&pr, 0, sizeof pr);
        pr.line = p->tok.line;
        if (is_word(&p->tok, "expecting")) {
            pr.key = name_of(&p->tok);
            advance(p);
            pr.names = znew(p, sizeof *pr.names);
            if (!pr.names || !expect_name(p, "a schema name after 'expecting'", pr.names))
                return NULL;
            pr.nnames = 1;
            if (is_op(&p->tok, "[")) {
                advance(p);
                if (!expect_op(p, "]", "']' (a list of the schema is written Schema[])"))
                    return NULL;
                pr.list = true;
            }
        } else if (is_word(&p->tok, "using")) {
            pr.key = name_of(&p->tok);
            advance(p);
            if (!is_word(&p->tok, "model")) {
                error_at(p, &p->tok, NULL, "'model' after 'using'");
                return NULL;
            }
            advance(p);
            if (p->tok.kind != T_STR && p->tok.kind != T_NAME) {
                error_at(p, &p->tok, NULL, "a model name after 'using model'");
                return NULL;
            }
            pr.names = znew(p, sizeof *pr.names);
            if (!pr.names)
                return NULL;
            pr.names[0] = name_of(&p->tok);
            pr.raw = p->tok.s;
            pr.rawn = p->tok.n;
            if (p->tok.kind == T_STR) {
                if (!flow_str_decode(p->a, &p->tok, &pr.value, &pr.valuen))
                    return NULL;
                pr.names[0].s = pr.value;
                pr.names[0].n = (uint32_t)pr.valuen;
            }
            pr.nnames = 1;
            advance(p);
        } else {
            break;
        }
        if (!push_prop(p, &mods, &pr))
            return NULL;
    }
    finish_props(p, d, &mods);
    if (is_op(&p->tok, ":")) {
        advance(p);
        bool block = false;
        if (p->tok.kind == T_NL && peek(p)->kind == T_INDENT) {
            advance(p);
            advance(p);
            block = true;
        }
        if (p->tok.kind != T_STR) {
            error_at(p, &p->tok, "write the body as \"\"\"text\"\"\" after ':'",
                     "the prompt's body");
            return NULL;
        }
        d->has_body = true;
        d->body_raw = p->tok.s;
        d->body_rawn = p->tok.n;
        d->body_pos = pos_of(&p->tok);
        d->body_line = p->tok.line;
        if (!flow_str_decode(p->a, &p->tok, &d->body, &d->bodyn))
            return NULL;
        advance(p);
        d->end_line = p->tok.line;
        if (!expect_nl(p))
            return NULL;
        if (!block && p->tok.kind == T_INDENT && is_word(peek(p), "escalate")) {
            /* StreetRace's escalation clause under a prompt's body */
            advance(p);
            flow_tok esc = p->tok;
            unsupported(p, &esc, "this dialect has no escalation; return a value and decide "
                                 "in the caller");
            while (p->tok.kind != T_EOF && p->tok.kind != T_DEDENT)
                advance(p);
            if (p->tok.kind == T_DEDENT)
                advance(p);
            return d; /* the prompt itself stands: the declarations after it are read on */
        }
        if (block) {
            if (p->tok.kind != T_DEDENT) {
                error_at(p, &p->tok, NULL, "the end of the prompt's block after its body");
                return NULL;
            }
            advance(p);
        }
        return d;
    }
    if (p->tok.kind != T_NL && p->tok.kind != T_EOF) {
        error_at(p, &p->tok, "modifiers are 'expecting SCHEMA', 'expecting SCHEMA[]' and "
                             "'using model \"NAME\"'; a body follows ':'",
                 "a modifier, ':' or end of line");
        return NULL;
    }
    d->end_line = p->tok.line;
    expect_nl(p);
    return d;
}

static const char *const agent_props[] = {"tools", "instruction", "prompt", "produces",
                                          "description", "delegate", "use", NULL};

static bool agent_prop(parser *p, qr_flow_decl *d, vec *props)
{
    (void)d;
    qr_flow_prop pr;
    memset(&pr, 0, sizeof pr);
    pr.line = p->tok.line;
    flow_tok k = p->tok;
    int which = -1;
    for (int i = 0; agent_props[i]; i++)
        if (is_word(&k, agent_props[i]))
            which = i;
    if (which < 0 && k.kind == T_NAME && !k.dollar &&
        (flow_foreign_help(&k) || is_word(&k, "retry") || is_word(&k, "history"))) {
        /* a property of another dialect: `retry`, `timeout`, `history`, `on ... do` */
        flow_skip_foreign(p, &k, flow_foreign_help(&k));
        return false;
    }
    if (which < 0) {
        const char *best = NULL;
        size_t bestd = 3;
        for (int i = 0; agent_props[i] && k.kind == T_NAME; i++) {
            size_t dd = qr_edit_distance(k.s, k.n, agent_props[i], strlen(agent_props[i]),
                                         QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
            if (dd < bestd) {
                bestd = dd;
                best = agent_props[i];
            }
        }
        char help[160];
        if (best)
            snprintf(help, sizeof help, "did you mean '%s'?", best);
        else
            snprintf(help, sizeof help, "an agent's properties are tools, instruction, prompt, "
                                        "produces, description, delegate and use");
        if (k.kind == T_NAME) {
            p->failed = true;
            qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", k.line, k.col, k.len, help,
                             "unknown agent property '%.*s'", (int)k.n, k.s);
        } else {
            error_at(p, &k, help, "an agent property");
        }
        return false;
    }
    pr.key = name_of(&k);
    advance(p);
    if (which == 4) { /* description "TEXT" */
        if (p->tok.kind != T_STR) {
            error_at(p, &p->tok, NULL, "a string after 'description'");
            return false;
        }
        pr.raw = p->tok.s;
        pr.rawn = p->tok.n;
        if (!flow_str_decode(p->a, &p->tok, &pr.value, &pr.valuen))
            return false;
        advance(p);
        return push_prop(p, props, &pr);
    }
    bool list = which == 0 || which == 5 || which == 6;
    vec names = {0};
    for (;;) {
        qr_flow_name *nm = znew(p, sizeof *nm);
        if (!nm || !expect_name(p, list ? "a name in the list" : "a name", nm) ||
            !vpush(p, &names, nm))
            return false;
        /* `tools repo.dwim`: one tool of a declared tool set (the name keeps its dots) */
        while (which == 0 && is_op(&p->tok, ".") && peek(p)->kind == T_NAME &&
               p->tok.s == nm->s + nm->n) {
            advance(p);
            nm->n = (uint32_t)(p->tok.s + p->tok.n - nm->s);
            nm->pos.len = flow_cp_len(nm->s, nm->n);
            advance(p);
        }
        if (list && p->tok.kind == T_NAME) {
            char help[160];
            snprintf(help, sizeof help, "separate the names with commas: '%.*s %.*s, %.*s'",
                     (int)k.n, k.s, (int)(nm->n > 40 ? 40 : nm->n), nm->s,
                     (int)(p->tok.n > 40 ? 40 : p->tok.n), p->tok.s);
            error_at(p, &p->tok, help, "',' or end of line");
            return false;
        }
        if (!list || !is_op(&p->tok, ","))
            break;
        advance(p);
    }
    pr.names = znew(p, names.n * sizeof *pr.names);
    if (!pr.names)
        return false;
    for (size_t i = 0; i < names.n; i++)
        pr.names[i] = *(qr_flow_name *)names.v[i];
    pr.nnames = names.n;
    return push_prop(p, props, &pr);
}

static qr_flow_decl *parse_agent(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_AGENT, &kw);
    if (!d)
        return NULL;
    if (p->tok.kind == T_NAME && !p->tok.dollar) {
        d->name = name_of(&p->tok);
        advance(p);
    }
    vec props = {0};
    if (!parse_prop_block(p, d, d->name.n ? "':' after the agent's name" : "a name or ':'",
                          agent_prop, &props))
        return NULL;
    finish_props(p, d, &props);
    return d;
}

static qr_flow_decl *parse_flow(parser *p)
{
    flow_tok kw = p->tok;
    advance(p);
    qr_flow_decl *d = mkdecl(p, QR_FD_FLOW, &kw);
    if (!d || !expect_name(p, "a flow name after 'flow'", &d->name))
        return NULL;
    if (p->tok.kind == T_NAME) {
        error_at(p, &p->tok, "flows read their inputs from the shared context; remove the "
                             "parameters",
                 "':' (flows take no parameters)");
        return NULL;
    }
    if (!expect_op(p, ":", "':' after the flow's name"))
        return NULL;
    uint32_t last = kw.line;
    d->stmts = flow_parse_block(p, &d->nstmts, false, &last, &kw);
    d->end_line = last;
    if (!d->stmts && p->failed)
        return NULL;
    return d;
}

int qr_flow_parse(qr_arena *a, const char *src, size_t n, qr_flow_file **out,
                  qr_flow_diags *diags)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.d = diags;
    flow_lex_init(&p.lx, a, src, n, diags);
    qr_flow_file *f = qr_arena_zalloc(a, sizeof *f);
    if (!f || !p.lx.blank)
        return QR_ENOMEM;
    f->src = src;
    f->n = n;
    p.tok = flow_lex_next(&p.lx);
    /* an optional `streetrace v1` line, before any declaration: the lexer has skipped the
     * comments and blank lines that may come first */
    if (is_word(&p.tok, "streetrace")) {
        f->header_line = p.tok.line;
        const char *s;
        uint32_t len, col;
        flow_lex_rest_of_line(&p.lx, &s, &len, &col);
        f->header = p.tok.s;
        f->headern = (size_t)(s + len - p.tok.s);
        advance(&p);
        expect_nl(&p);
    }
    vec decls = {0};
    while (p.tok.kind != T_EOF) {
        p.failed = false;
        if (a->exhausted)
            break;
        flow_tok t = p.tok;
        qr_flow_decl *d = NULL;
        if (t.kind == T_NL || t.kind == T_DEDENT) {
            advance(&p);
            continue;
        }
        if (t.kind == T_INDENT) {
            qr_flow_diag_add(diags, QR_FLOW_ERROR, "E0008", t.line, 1, t.col > 1 ? t.col - 1 : 1,
                             "declarations start at the beginning of the line",
                             "unexpected indentation");
            skip_indented(&p);
            continue;
        }
        if (is_word(&t, "model"))
            d = parse_model(&p);
        else if (is_word(&t, "tool"))
            d = parse_tool(&p);
        else if (is_word(&t, "schema"))
            d = parse_schema(&p);
        else if (is_word(&t, "prompt"))
            d = parse_prompt(&p);
        else if (is_word(&t, "agent"))
            d = parse_agent(&p);
        else if (is_word(&t, "flow"))
            d = parse_flow(&p);
        else if (flow_foreign_help(&t))
            flow_skip_foreign(&p, &t, flow_foreign_help(&t));
        else
            error_at(&p, &t, "a file holds model, tool, schema, prompt, agent and flow "
                             "declarations",
                     "a declaration");
        if (d) {
            if (!vpush(&p, &decls, d))
                break;
        } else {
            sync_line(&p);
        }
    }
    f->decls = (qr_flow_decl **)decls.v;
    f->ndecls = decls.n;
    f->comments = p.lx.comments;
    f->ncomments = p.lx.ncomments;
    f->blank = p.lx.blank;
    f->nlines = p.lx.nlines;
    *out = f;
    flow_lex_release(&p.lx);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}
