/*
 * infer.c: what a workflow file says about the shape of a value: the schema of a
 * variable (from `x = call llm P` where P is `expecting S`, `x = run agent A` or A
 * `produces x` where A's prompt expects S, `x = filter y where ...`, `for x in y`, `x = y`)
 * and of an expression (`x.field` when the field is of a schema type). One place for this
 * knowledge: the checker's field check (E0016) and the language server's completion of
 * `x.` both ask here.
 */
#include "flow_int.h"

#include <string.h>

#define INFER_DEPTH 8

static const qr_flow_prop *decl_prop(const qr_flow_decl *d, const char *key)
{
    for (size_t i = 0; d && i < d->nprops; i++)
        if (flow_name_eq(d->props[i].key, key, strlen(key)))
            return &d->props[i];
    return NULL;
}

/* The schema a prompt is `expecting` (merged declarations: the first that says). */
static const qr_flow_decl *prompt_schema(const qr_flow_file *f, qr_flow_name p)
{
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        if (d->kind != QR_FD_PROMPT || !flow_name_eq(d->name, p.s, p.n))
            continue;
        const qr_flow_prop *e = decl_prop(d, "expecting");
        if (e && e->nnames)
            return qr_flow_find(f, QR_FD_SCHEMA, e->names[0].s, e->names[0].n);
    }
    return NULL;
}

static const qr_flow_decl *agent_schema(const qr_flow_file *f, const qr_flow_decl *ag)
{
    const qr_flow_prop *p = decl_prop(ag, "prompt");
    return p && p->nnames ? prompt_schema(f, p->names[0]) : NULL;
}

/* The statements that set the variable s (x = ..., for x in, push ... to x), the first in
 * *first; returns how many. */
static size_t setters(qr_flow_stmt **v, size_t n, const char *s, size_t len,
                      const qr_flow_stmt **first)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *st = v[i];
        if ((st->kind == QR_FS_ASSIGN || st->kind == QR_FS_PUSH || st->kind == QR_FS_FOR) &&
            st->ntarget && flow_name_eq(st->target[0], s, len) &&
            !(st->kind == QR_FS_ASSIGN && st->ntarget > 1)) {
            if (!count++ && first)
                *first = st;
        }
        count += setters(st->body, st->nbody, s, len, count ? NULL : first);
        count += setters(st->orelse, st->norelse, s, len, count ? NULL : first);
    }
    return count;
}

static const qr_flow_decl *var_schema(const qr_flow_file *f, const char *s, size_t n,
                                      bool only_one, int depth);

static const qr_flow_decl *expr_schema(const qr_flow_file *f, const qr_flow_expr *e,
                                       const qr_flow_decl *item, bool only_one, int depth)
{
    while (e && e->kind == QR_FX_PAREN)
        e = e->a;
    if (!e || depth > INFER_DEPTH)
        return NULL;
    switch (e->kind) {
    case QR_FX_CALL_LLM: return prompt_schema(f, e->name);
    case QR_FX_RUN_AGENT: {
        const qr_flow_decl *ag = qr_flow_find(f, QR_FD_AGENT, e->name.s, e->name.n);
        return ag ? agent_schema(f, ag) : NULL;
    }
    case QR_FX_FILTER: return expr_schema(f, e->a, item, only_one, depth + 1);
    case QR_FX_NAME: return var_schema(f, e->name.s, e->name.n, only_one, depth + 1);
    case QR_FX_GET:
    case QR_FX_FIELD: {
        const qr_flow_decl *s = e->kind == QR_FX_GET
                                    ? expr_schema(f, e->a, item, only_one, depth + 1)
                                    : item;
        const char *name = e->name.s;
        size_t n = e->name.n;
        /* FIELD holds the dotted text `.a.b`: follow each segment */
        while (s && n) {
            const char *dot = e->kind == QR_FX_FIELD ? memchr(name, '.', n) : NULL;
            size_t seg = dot ? (size_t)(dot - name) : n;
            const qr_flow_type *t = NULL;
            for (size_t i = 0; i < s->nprops && !t; i++)
                if (flow_name_eq(s->props[i].key, name, seg))
                    t = s->props[i].type;
            while (t && t->kind == QR_FT_LIST)
                t = t->elem;
            s = t && t->kind == QR_FT_REF ? qr_flow_find(f, QR_FD_SCHEMA, t->ref.s, t->ref.n)
                                          : NULL;
            if (!dot)
                break;
            name = dot + 1;
            n -= seg + 1;
        }
        return s;
    }
    default: return NULL;
    }
}

static const qr_flow_decl *var_schema(const qr_flow_file *f, const char *s, size_t n,
                                      bool only_one, int depth)
{
    if (!f || !n || depth > INFER_DEPTH)
        return NULL;
    const qr_flow_stmt *first = NULL;
    size_t count = 0;
    for (size_t i = 0; i < f->ndecls; i++)
        if (f->decls[i]->kind == QR_FD_FLOW)
            count += setters(f->decls[i]->stmts, f->decls[i]->nstmts, s, n,
                             first ? NULL : &first);
    const qr_flow_decl *producer = NULL;
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_prop *p = f->decls[i]->kind == QR_FD_AGENT
                                    ? decl_prop(f->decls[i], "produces")
                                    : NULL;
        if (p && p->nnames && flow_name_eq(p->names[0], s, n)) {
            if (!producer)
                producer = f->decls[i];
            count++;
        }
    }
    if (only_one && count != 1)
        return NULL; /* set in several places: its shape may differ */
    if (first) {
        if (first->kind == QR_FS_PUSH)
            return NULL;
        return expr_schema(f, first->e, NULL, only_one, depth + 1);
    }
    return producer ? agent_schema(f, producer) : NULL;
}

const qr_flow_decl *qr_flow_var_schema(const qr_flow_file *f, const char *s, size_t n,
                                       bool only_one)
{
    return var_schema(f, s, n, only_one, 0);
}

const qr_flow_decl *qr_flow_expr_schema(const qr_flow_file *f, const qr_flow_expr *e,
                                        const qr_flow_decl *item, bool only_one)
{
    return f ? expr_schema(f, e, item, only_one, 0) : NULL;
}
