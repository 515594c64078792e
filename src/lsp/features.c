/*
 * features.c: what the language server knows about a position in a workflow file, from
 * the document's syntax tree (the parser keeps every declaration that parsed, so most of
 * it works while the file has errors):
 *
 *   completion   by context: after `run agent` agents, after `call llm` prompts, after
 *                `run` flows, in an agent's `tools`/`instruction`/`prompt`/`use` lines
 *                the right kind, after `expecting` schemas, after `$` in a prompt body
 *                variables and prompts, after `x.` the fields of x's schema (inferred from
 *                `x = call llm P` with `P expecting S`, an agent's produces, filter),
 *                at the start of a line the keywords of where it is;
 *   hover        a prompt's body and modifiers, an agent's properties, a schema's fields,
 *                a flow's size, a model's or tool's value, where a variable is set;
 *   definition   the declaration of a name (a prompt's body, not its bare declaration),
 *                or the first assignment of a variable (or the agent that produces it);
 *   symbols      every declaration, schemas with their fields.
 */
#define _GNU_SOURCE /* memmem */
#include "lsp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool flow_name_is(qr_flow_name a, const char *s, size_t n)
{
    return a.n == n && !memcmp(a.s, s, n);
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The word around off: [*start, *end). */
static void word_at(const lsp_doc *d, size_t off, size_t *start, size_t *end)
{
    size_t a = off, b = off;
    while (a > 0 && word_char(d->text[a - 1]))
        a--;
    while (b < d->n && word_char(d->text[b]))
        b++;
    *start = a;
    *end = b;
}

static void put_name_range(qr_buf *out, const lsp_doc *d, qr_flow_name nm)
{
    lsp_range_cp(out, d, nm.pos.line, nm.pos.col, nm.pos.len);
}

/* ---- what a name is ---- */
typedef struct resolved {
    const qr_flow_decl *decl;      /* a declaration */
    const qr_flow_stmt *stmt;      /* the first statement assigning the variable */
    qr_flow_name var;              /* its name there */
    const qr_flow_decl *producer;  /* or the agent that produces it */
    qr_flow_name produces;
} resolved;

static const qr_flow_stmt *first_assign(qr_flow_stmt **v, size_t n, const char *s, size_t len,
                                        qr_flow_name *at)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *st = v[i];
        if ((st->kind == QR_FS_ASSIGN || st->kind == QR_FS_PUSH || st->kind == QR_FS_FOR) &&
            st->ntarget && flow_name_is(st->target[0], s, len)) {
            *at = st->target[0];
            return st;
        }
        const qr_flow_stmt *r = first_assign(st->body, st->nbody, s, len, at);
        if (!r)
            r = first_assign(st->orelse, st->norelse, s, len, at);
        if (r)
            return r;
    }
    return NULL;
}

static bool resolve(const lsp_doc *d, const char *s, size_t n, resolved *r)
{
    memset(r, 0, sizeof *r);
    const qr_flow_file *f = d->file;
    if (!f || !n)
        return false;
    static const qr_flow_decl_kind order[] = {QR_FD_PROMPT, QR_FD_AGENT, QR_FD_FLOW,
                                              QR_FD_SCHEMA, QR_FD_MODEL, QR_FD_TOOL};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const qr_flow_decl *decl = qr_flow_find(f, order[k], s, n);
        if (decl) {
            r->decl = decl;
            return true;
        }
    }
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *decl = f->decls[i];
        if (decl->kind == QR_FD_FLOW) {
            r->stmt = first_assign(decl->stmts, decl->nstmts, s, n, &r->var);
            if (r->stmt)
                return true;
        }
    }
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *decl = f->decls[i];
        for (size_t k = 0; decl->kind == QR_FD_AGENT && k < decl->nprops; k++)
            if (flow_name_is(decl->props[k].key, "produces", 8) && decl->props[k].nnames &&
                flow_name_is(decl->props[k].names[0], s, n)) {
                r->producer = decl;
                r->produces = decl->props[k].names[0];
                return true;
            }
    }
    return false;
}

void lsp_definition(qr_buf *out, const lsp_doc *d, size_t off)
{
    size_t a, b;
    word_at(d, off, &a, &b);
    resolved r;
    if (!resolve(d, d->text + a, b - a, &r)) {
        qr_buf_puts(out, "null");
        return;
    }
    qr_flow_name nm = r.decl ? qr_flow_decl_name(r.decl) : r.stmt ? r.var : r.produces;
    qr_buf_puts(out, "{\"uri\":");
    qr_buf_json_string(out, d->uri, strlen(d->uri));
    qr_buf_puts(out, ",\"range\":");
    put_name_range(out, d, nm);
    qr_buf_putc(out, '}');
}

/* ---- hover ---- */
static const qr_flow_prop *prop(const qr_flow_decl *d, const char *key)
{
    for (size_t i = 0; d && i < d->nprops; i++)
        if (flow_name_is(d->props[i].key, key, strlen(key)))
            return &d->props[i];
    return NULL;
}

static void type_text(qr_buf *out, const qr_flow_type *t)
{
    if (!t)
        return;
    static const char *const names[] = {"string", "int", "float", "bool", "", "", "any"};
    if (t->kind == QR_FT_LIST) {
        qr_buf_puts(out, "list[");
        type_text(out, t->elem);
        qr_buf_putc(out, ']');
    } else if (t->kind == QR_FT_REF) {
        qr_buf_append(out, t->ref.s, t->ref.n);
    } else {
        qr_buf_puts(out, names[t->kind]);
    }
    if (t->optional)
        qr_buf_putc(out, '?');
}

static void hover_decl(qr_buf *md, const lsp_doc *d, const qr_flow_decl *decl)
{
    qr_flow_name nm = qr_flow_decl_name(decl);
    qr_buf_printf(md, "**%s** `%.*s`", qr_flow_decl_kind_name(decl->kind), (int)nm.n, nm.s);
    switch (decl->kind) {
    case QR_FD_PROMPT:
        for (size_t i = 0; i < d->file->ndecls; i++) {
            const qr_flow_decl *p = d->file->decls[i];
            if (p->kind != QR_FD_PROMPT || !flow_name_is(p->name, nm.s, nm.n))
                continue;
            for (size_t k = 0; k < p->nprops; k++) {
                const qr_flow_prop *m = &p->props[k];
                if (flow_name_is(m->key, "expecting", 9))
                    qr_buf_printf(md, " expecting `%.*s%s`", (int)m->names[0].n, m->names[0].s,
                                  m->list ? "[]" : "");
                else
                    qr_buf_printf(md, " using model `%.*s`", (int)m->names[0].n, m->names[0].s);
            }
        }
        if (decl->has_body) {
            qr_buf_puts(md, "\n\n```\n");
            qr_buf_append(md, decl->body, decl->bodyn);
            qr_buf_puts(md, "\n```");
        } else {
            qr_buf_puts(md, "\n\n(declared without a body)");
        }
        break;
    case QR_FD_AGENT:
        qr_buf_puts(md, "\n");
        for (size_t i = 0; i < decl->nprops; i++) {
            const qr_flow_prop *p = &decl->props[i];
            qr_buf_printf(md, "\n- %.*s:", (int)p->key.n, p->key.s);
            if (p->raw && !p->nnames)
                qr_buf_printf(md, " %.*s", (int)p->valuen, p->value);
            for (size_t k = 0; k < p->nnames; k++)
                qr_buf_printf(md, "%s `%.*s`", k ? "," : "", (int)p->names[k].n, p->names[k].s);
        }
        break;
    case QR_FD_SCHEMA:
        qr_buf_puts(md, "\n");
        for (size_t i = 0; i < decl->nprops; i++) {
            qr_buf_printf(md, "\n- `%.*s`: ", (int)decl->props[i].key.n, decl->props[i].key.s);
            type_text(md, decl->props[i].type);
        }
        break;
    case QR_FD_FLOW:
        qr_buf_printf(md, "\n\n%zu statement%s (lines %u to %u)", decl->nstmts,
                      decl->nstmts == 1 ? "" : "s", decl->pos.line, decl->end_line);
        break;
    case QR_FD_MODEL:
    case QR_FD_TOOL:
        if (decl->raw)
            qr_buf_printf(md, " = %s`%.*s`", decl->kind == QR_FD_TOOL
                                                 ? (decl->mcp ? "mcp " : "builtin ")
                                                 : "",
                          (int)decl->valuen, decl->value);
        for (size_t i = 0; i < decl->nprops; i++)
            qr_buf_printf(md, "\n- %.*s: `%.*s`", (int)decl->props[i].key.n,
                          decl->props[i].key.s, (int)decl->props[i].valuen, decl->props[i].value);
        break;
    }
}

void lsp_hover(qr_buf *out, const lsp_doc *d, size_t off)
{
    size_t a, b;
    word_at(d, off, &a, &b);
    resolved r;
    if (!resolve(d, d->text + a, b - a, &r)) {
        qr_buf_puts(out, "null");
        return;
    }
    qr_buf md;
    qr_buf_init(&md);
    if (r.decl)
        hover_decl(&md, d, r.decl);
    else if (r.stmt)
        qr_buf_printf(&md, "**variable** `%.*s`, first set at line %u", (int)r.var.n, r.var.s,
                      r.var.pos.line);
    else {
        qr_flow_name an = qr_flow_decl_name(r.producer);
        qr_buf_printf(&md, "**variable** `%.*s`, produced by agent `%.*s`", (int)r.produces.n,
                      r.produces.s, (int)an.n, an.s);
    }
    qr_buf_puts(out, "{\"contents\":{\"kind\":\"markdown\",\"value\":");
    qr_buf_json_string(out, md.p ? md.p : "", md.len);
    qr_buf_puts(out, "},\"range\":{\"start\":");
    uint32_t l, c;
    lsp_position(d, a, &l, &c);
    qr_buf_printf(out, "{\"line\":%u,\"character\":%u},\"end\":", l, c);
    lsp_position(d, b, &l, &c);
    qr_buf_printf(out, "{\"line\":%u,\"character\":%u}}}", l, c);
    qr_buf_release(&md);
}

/* ---- document symbols ---- */
static int symbol_kind(qr_flow_decl_kind k)
{
    switch (k) {
    case QR_FD_MODEL: return 14; /* Constant */
    case QR_FD_TOOL: return 2;   /* Module */
    case QR_FD_SCHEMA: return 23; /* Struct */
    case QR_FD_PROMPT: return 15; /* String */
    case QR_FD_AGENT: return 5;  /* Class */
    case QR_FD_FLOW: return 12;  /* Function */
    }
    return 13;
}

void lsp_symbols(qr_buf *out, const lsp_doc *d)
{
    qr_buf_putc(out, '[');
    for (size_t i = 0; d->file && i < d->file->ndecls; i++) {
        const qr_flow_decl *decl = d->file->decls[i];
        qr_flow_name nm = qr_flow_decl_name(decl);
        if (i)
            qr_buf_putc(out, ',');
        qr_buf_puts(out, "{\"name\":");
        qr_buf_json_string(out, nm.s, nm.n);
        qr_buf_printf(out, ",\"detail\":\"%s\",\"kind\":%d,\"range\":",
                      qr_flow_decl_kind_name(decl->kind), symbol_kind(decl->kind));
        /* from the keyword to the end of the declaration's last line */
        size_t a = lsp_offset_cp(d, decl->pos.line, decl->pos.col);
        uint32_t last = decl->end_line > decl->pos.line ? decl->end_line : decl->pos.line;
        size_t b = last < d->nlines ? d->lines[last] - 1 : d->n;
        if (b < a)
            b = a;
        uint32_t l1, c1, l2, c2;
        lsp_position(d, a, &l1, &c1);
        lsp_position(d, b, &l2, &c2);
        qr_buf_printf(out, "{\"start\":{\"line\":%u,\"character\":%u},\"end\":{\"line\":%u,"
                           "\"character\":%u}}",
                      l1, c1, l2, c2);
        qr_buf_puts(out, ",\"selectionRange\":");
        put_name_range(out, d, nm);
        if (decl->kind == QR_FD_SCHEMA && decl->nprops) {
            qr_buf_puts(out, ",\"children\":[");
            for (size_t k = 0; k < decl->nprops; k++) {
                const qr_flow_prop *p = &decl->props[k];
                if (k)
                    qr_buf_putc(out, ',');
                qr_buf_puts(out, "{\"name\":");
                qr_buf_json_string(out, p->key.s, p->key.n);
                qr_buf_puts(out, ",\"detail\":");
                qr_buf t;
                qr_buf_init(&t);
                type_text(&t, p->type);
                qr_buf_json_string(out, t.p ? t.p : "", t.len);
                qr_buf_release(&t);
                qr_buf_puts(out, ",\"kind\":8,\"range\":");
                put_name_range(out, d, p->key);
                qr_buf_puts(out, ",\"selectionRange\":");
                put_name_range(out, d, p->key);
                qr_buf_putc(out, '}');
            }
            qr_buf_putc(out, ']');
        }
        qr_buf_putc(out, '}');
    }
    qr_buf_putc(out, ']');
}

/* ---- completion ---- */
typedef struct items {
    qr_buf *out;
    size_t n;
    const char *prefix;
    size_t prefixn;
} items;

/* CompletionItemKind: Keyword 14, Variable 6, Class 7, Function 3, Text 1, Field 5,
 * Struct 22, Module 9, Constant 21, Snippet 15 */
static void item(items *it, const char *label, size_t n, int kind, const char *detail)
{
    if (n < it->prefixn || memcmp(label, it->prefix, it->prefixn))
        return;
    /* no duplicates: a name assigned twice is offered once */
    qr_buf *o = it->out;
    qr_buf probe;
    qr_buf_init(&probe);
    qr_buf_puts(&probe, "{\"label\":");
    qr_buf_json_string(&probe, label, n);
    qr_buf_putc(&probe, ',');
    bool dup = o->p && probe.p && memmem(o->p, o->len, probe.p, probe.len);
    if (!dup) {
        qr_buf_puts(o, it->n++ ? "," : "");
        qr_buf_append(o, probe.p, probe.len);
        qr_buf_printf(o, "\"kind\":%d", kind);
        if (detail) {
            qr_buf_puts(o, ",\"detail\":");
            qr_buf_json_string(o, detail, strlen(detail));
        }
        qr_buf_putc(o, '}');
    }
    qr_buf_release(&probe);
}

static void decls_of(items *it, const lsp_doc *d, qr_flow_decl_kind k, int kind)
{
    for (size_t i = 0; d->file && i < d->file->ndecls; i++)
        if (d->file->decls[i]->kind == k) {
            qr_flow_name nm = qr_flow_decl_name(d->file->decls[i]);
            item(it, nm.s, nm.n, kind, qr_flow_decl_kind_name(k));
        }
}

static void vars_in(items *it, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *s = v[i];
        if ((s->kind == QR_FS_ASSIGN || s->kind == QR_FS_PUSH || s->kind == QR_FS_FOR) &&
            s->ntarget)
            item(it, s->target[0].s, s->target[0].n, 6, "variable");
        vars_in(it, s->body, s->nbody);
        vars_in(it, s->orelse, s->norelse);
    }
}

static void variables(items *it, const lsp_doc *d)
{
    item(it, "input_prompt", 12, 6, "the run's input");
    for (size_t i = 0; d->file && i < d->file->ndecls; i++) {
        const qr_flow_decl *decl = d->file->decls[i];
        if (decl->kind == QR_FD_FLOW)
            vars_in(it, decl->stmts, decl->nstmts);
        const qr_flow_prop *p = decl->kind == QR_FD_AGENT ? prop(decl, "produces") : NULL;
        if (p && p->nnames)
            item(it, p->names[0].s, p->names[0].n, 6, "produced by an agent");
    }
}

/* The schema of a variable: src/flow/infer.c's, which the checker's field check (E0016)
 * uses too; here the first setting counts even when there are others. */
static const qr_flow_decl *schema_of_var(const lsp_doc *d, const char *s, size_t n, int depth)
{
    (void)depth;
    resolved r;
    if (!d->file || (resolve(d, s, n, &r) && r.decl))
        return NULL; /* a declaration's name, not a variable */
    return qr_flow_var_schema(d->file, s, n, false);
}

static void fields(items *it, const lsp_doc *d, const qr_flow_decl *schema)
{
    for (size_t i = 0; d->file && i < d->file->ndecls; i++) {
        const qr_flow_decl *s = d->file->decls[i];
        if (s->kind != QR_FD_SCHEMA || (schema && s != schema))
            continue;
        for (size_t k = 0; k < s->nprops; k++) {
            char detail[160];
            snprintf(detail, sizeof detail, "field of %.*s", (int)s->name.n, s->name.s);
            item(it, s->props[k].key.s, s->props[k].key.n, 5, detail);
        }
    }
}

static const char *const flow_keywords[] = {"run", "call", "for", "if", "else", "parallel",
                                            "push", "return", "log", "filter", "end", NULL};
static const char *const decl_keywords[] = {"model", "tool", "schema", "prompt", "agent",
                                            "flow", NULL};
static const char *const agent_keywords[] = {"tools", "instruction", "prompt", "produces",
                                             "description", "delegate", "use", NULL};

/* Does the text before the word (on its line) end with `kw` (words separated by blanks)? */
static bool after(const char *line, size_t n, const char *kw)
{
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    size_t k = strlen(kw);
    if (n < k || memcmp(line + n - k, kw, k))
        return false;
    return n == k || !word_char(line[n - k - 1]);
}

/* The declaration whose lines hold off. */
static const qr_flow_decl *decl_at(const lsp_doc *d, size_t off)
{
    uint32_t l, c;
    lsp_position(d, off, &l, &c);
    l++;
    const qr_flow_decl *best = NULL;
    for (size_t i = 0; d->file && i < d->file->ndecls; i++) {
        const qr_flow_decl *decl = d->file->decls[i];
        if (decl->pos.line <= l)
            best = decl;
    }
    return best;
}

void lsp_completion(qr_buf *out, const lsp_doc *d, size_t off)
{
    size_t a, b;
    word_at(d, off, &a, &b);
    items it = {out, 0, d->text + a, off - a};
    qr_buf_puts(out, "{\"isIncomplete\":false,\"items\":[");
    uint32_t l, c;
    lsp_position(d, a, &l, &c);
    size_t ls = l < d->nlines ? d->lines[l] : 0;
    const char *line = d->text + ls;
    size_t before = a - ls; /* bytes of the line before the word */
    const qr_flow_decl *in = decl_at(d, a);
    /* inside a prompt's body: $ offers variables and prompts */
    bool in_body = false;
    for (size_t i = 0; d->file && i < d->file->ndecls; i++) {
        const qr_flow_decl *p = d->file->decls[i];
        if (p->kind == QR_FD_PROMPT && p->body_raw) {
            size_t s = (size_t)(p->body_raw - d->text), e = s + p->body_rawn;
            if (a > s && a < e)
                in_body = true;
        }
    }
    /* an unterminated body: the line has an odd number of """ before the word */
    if (in_body || (a > 0 && (d->text[a - 1] == '$' || (a > 1 && d->text[a - 1] == '{' &&
                                                         d->text[a - 2] == '$')))) {
        if (a > 0 && (d->text[a - 1] == '$' || d->text[a - 1] == '{')) {
            variables(&it, d);
            decls_of(&it, d, QR_FD_PROMPT, 1);
        }
    } else if (a > 0 && d->text[a - 1] == '.') {
        /* x.field, or .field inside filter ... where */
        size_t e = a - 1, s = e;
        while (s > ls && word_char(d->text[s - 1]))
            s--;
        const qr_flow_decl *schema = NULL;
        if (s < e) {
            schema = schema_of_var(d, d->text + s, e - s, 0);
        } else {
            /* `filter NAME where .`: NAME's schema */
            const char *w = memmem(line, before, "filter ", 7);
            if (w) {
                const char *nm = w + 7;
                size_t k = 0;
                while (nm + k < line + before && word_char(nm[k]))
                    k++;
                schema = k ? schema_of_var(d, nm, k, 0) : NULL;
            }
        }
        fields(&it, d, schema);
    } else if (after(line, before, "run agent") || after(line, before, "delegate") ||
               after(line, before, "use") ||
               (in && in->kind == QR_FD_AGENT &&
                (memmem(line, before, "delegate ", 9) || memmem(line, before, "use ", 4)) &&
                after(line, before, ","))) {
        decls_of(&it, d, QR_FD_AGENT, 7);
    } else if (after(line, before, "call llm") || after(line, before, "instruction") ||
               (in && in->kind == QR_FD_AGENT && after(line, before, "prompt"))) {
        decls_of(&it, d, QR_FD_PROMPT, 1);
    } else if (after(line, before, "run")) {
        item(&it, "agent", 5, 14, "run agent NAME");
        decls_of(&it, d, QR_FD_FLOW, 3);
    } else if (after(line, before, "expecting")) {
        decls_of(&it, d, QR_FD_SCHEMA, 22);
    } else if (after(line, before, "tools") ||
               (in && in->kind == QR_FD_AGENT && memmem(line, before, "tools", 5) &&
                after(line, before, ","))) {
        decls_of(&it, d, QR_FD_TOOL, 9);
        const char *const *groups = qr_flow_tool_groups(); /* the checker's list */
        for (int i = 0; groups[i]; i++)
            item(&it, groups[i], strlen(groups[i]), 9, "quarry's builtin tools");
    } else if (after(line, before, "with") || after(line, before, "=") ||
               after(line, before, "in") || after(line, before, "return") ||
               after(line, before, "log") || after(line, before, "push") ||
               after(line, before, "if") || after(line, before, "filter")) {
        variables(&it, d);
        decls_of(&it, d, QR_FD_PROMPT, 1);
        static const char *const exprs[] = {"run", "call", "filter", "not", "true", "false",
                                            "null", NULL};
        for (int i = 0; exprs[i]; i++)
            item(&it, exprs[i], strlen(exprs[i]), 14, NULL);
        /* the functions, from the flow runtime's table of builtins */
        for (const qr_flow_builtin *fb = qr_flow_builtins(); fb->name; fb++) {
            char detail[200];
            snprintf(detail, sizeof detail, "%s: %s", fb->usage, fb->doc);
            item(&it, fb->name, strlen(fb->name), 3, detail);
        }
    } else {
        bool top = before == 0;
        const char *const *kw = top ? decl_keywords
                                : in && in->kind == QR_FD_AGENT ? agent_keywords
                                                                : flow_keywords;
        for (int i = 0; kw[i]; i++)
            item(&it, kw[i], strlen(kw[i]), 14, NULL);
        if (!top && (!in || in->kind == QR_FD_FLOW))
            variables(&it, d);
    }
    qr_buf_puts(out, "]}");
}
