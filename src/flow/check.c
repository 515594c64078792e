/*
 * check.c: the workflow language's checks before anything runs. One pass collects every
 * declaration and every variable any flow assigns into a hash table (keyed by kind and
 * name, so a 10 MB file checks in linear time); a second pass resolves each reference
 * against it and reports, with a position and a "did you mean" from qr_edit_distance:
 *
 *   E0001 undefined reference     E0002 variable never assigned    E0003 duplicate
 *   E0010 missing property        E0011 circular delegate/use      E0013 prompt without body
 *   E0014 conflicting modifiers   E0015 prompt reads an undefined variable
 *   E0016 a field its schema does not have (`x.fle`, x a Finding)
 *   W0002 agent with delegate and use       W0004 a builtin tool set quarry does not have
 *   W0003 a flow runs an agent (or calls a prompt) before a variable its prompts read can
 *         have been set: the seed's LSP goal, from `produces` and `$var` references.
 *
 * The namespace is flat (seed 001): a variable read anywhere is fine when some flow
 * assigns it anywhere, so E0002 is only for names nothing ever assigns. The ordering
 * warning is where order matters: it walks each entry flow in order, through the flows it
 * runs, with the set of variables that can have been set so far ("can": an assignment in
 * an `if` or a loop counts), bounded to a fixed number of statement visits.
 */
#include "flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const flow_tool_groups[] = {"git", "memory", "files", "quarry", NULL};
const char *const flow_files_tools[] = {"read_file", "search_files", "edit_file", NULL};

const char *flow_tool_group(const char *s, size_t *n)
{
    /* StreetRace's file tools are quarry's files group (docs/flow.md) */
    if (*n == 13 && !memcmp(s, "streetrace.fs", 13)) {
        *n = 5;
        return "files";
    }
    /* `builtin quarry.git` names the group git */
    size_t k = *n;
    if (k > 7 && !memcmp(s, "quarry.", 7)) {
        s += 7;
        k -= 7;
    }
    for (int i = 0; flow_tool_groups[i]; i++)
        if (strlen(flow_tool_groups[i]) == k && !memcmp(flow_tool_groups[i], s, k)) {
            *n = k;
            return flow_tool_groups[i];
        }
    return NULL;
}

const char *const *qr_flow_tool_groups(void)
{
    return flow_tool_groups;
}

bool flow_tool_group_known(const char *s, size_t n)
{
    return flow_tool_group(s, &n) != NULL;
}

bool flow_name_eq(qr_flow_name a, const char *s, size_t n)
{
    return a.n == n && !memcmp(a.s, s, n);
}

const char *qr_flow_decl_kind_name(qr_flow_decl_kind k)
{
    static const char *const names[] = {"model", "tool", "schema", "prompt", "agent", "flow"};
    return (unsigned)k < 6 ? names[k] : "?";
}

qr_flow_name qr_flow_decl_name(const qr_flow_decl *d)
{
    if (d->kind == QR_FD_AGENT && !d->name.n) {
        qr_flow_name n = d->name;
        n.s = "main";
        n.n = 4;
        n.pos = d->pos;
        return n;
    }
    return d->name;
}

const qr_flow_decl *qr_flow_find(const qr_flow_file *f, qr_flow_decl_kind kind, const char *s,
                                 size_t n)
{
    const qr_flow_decl *found = NULL;
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        if (d->kind == kind && flow_name_eq(qr_flow_decl_name(d), s, n)) {
            /* prompts: the one with the body */
            if (kind != QR_FD_PROMPT || d->has_body)
                return d;
            if (!found)
                found = d;
        }
    }
    return found;
}

/* $name, ${name}, $name.field, ${name.field} in a prompt body; $$ is a literal '$'. */
void flow_body_refs(const qr_flow_decl *p, flow_ref_fn fn, void *ud)
{
    const char *s = p->body;
    size_t n = p->bodyn;
    uint32_t line = p->body_pos.line;
    uint32_t col = p->body_pos.col + (p->body_raw && p->body_rawn >= 3 &&
                                              p->body_raw[1] == p->body_raw[0] ? 3 : 1);
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\n') {
            line++;
            col = 1;
            i++;
            continue;
        }
        if (c == '$' && i + 1 < n && s[i + 1] == '$') {
            i += 2;
            col += 2;
            continue;
        }
        if (c == '$' && i + 1 < n) {
            bool brace = s[i + 1] == '{';
            size_t j = i + 1 + brace;
            size_t st = j;
            if (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
                          s[j] == '_')) {
                while (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
                                 (s[j] >= '0' && s[j] <= '9') || s[j] == '_'))
                    j++;
                size_t name_end = j;
                /* .field.field (a dot followed by a name start) */
                while (j + 1 < n && s[j] == '.' &&
                       ((s[j + 1] >= 'a' && s[j + 1] <= 'z') ||
                        (s[j + 1] >= 'A' && s[j + 1] <= 'Z') || s[j + 1] == '_')) {
                    j++;
                    while (j < n && ((s[j] >= 'a' && s[j] <= 'z') ||
                                     (s[j] >= 'A' && s[j] <= 'Z') ||
                                     (s[j] >= '0' && s[j] <= '9') || s[j] == '_'))
                        j++;
                }
                bool ok = !brace || (j < n && s[j] == '}');
                if (ok) {
                    fn(ud, s + st, name_end - st, s + st, j - st, line, col);
                    size_t end = j + brace;
                    col += flow_cp_len(s + i, end - i);
                    i = end;
                    continue;
                }
            }
        }
        if (((unsigned char)c & 0xC0) != 0x80)
            col++;
        i++;
    }
}

/* ---- the table of names ---- */
enum { K_VAR = 6, K_PRODUCES = 7, K_SEEN = 8 };

typedef struct sym {
    const char *s;
    uint32_t n;
    int kind;
    const void *p;      /* the declaration (or the first statement assigning a variable) */
    qr_flow_pos pos;    /* where it is first defined */
} sym;

typedef struct symtab {
    sym *v;
    size_t cap, n;
} symtab;

static uint64_t sym_hash(const char *s, size_t n, int kind)
{
    return qr_hash_text(s, n) ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ULL);
}

static bool tab_grow(symtab *t)
{
    size_t nc = t->cap ? t->cap * 2 : 64;
    sym *v = calloc(nc, sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < t->cap; i++)
        if (t->v[i].s) {
            size_t h = (size_t)sym_hash(t->v[i].s, t->v[i].n, t->v[i].kind) & (nc - 1);
            while (v[h].s)
                h = (h + 1) & (nc - 1);
            v[h] = t->v[i];
        }
    free(t->v);
    t->v = v;
    t->cap = nc;
    return true;
}

static sym *tab_get(const symtab *t, int kind, const char *s, size_t n)
{
    if (!t->cap)
        return NULL;
    size_t h = (size_t)sym_hash(s, n, kind) & (t->cap - 1);
    while (t->v[h].s) {
        if (t->v[h].kind == kind && t->v[h].n == n && !memcmp(t->v[h].s, s, n))
            return &t->v[h];
        h = (h + 1) & (t->cap - 1);
    }
    return NULL;
}

/* Adds (kind, name) unless present; returns the entry (the old one when present, with
 * *fresh false), or NULL when out of memory. */
static sym *tab_put(symtab *t, int kind, const char *s, size_t n, bool *fresh)
{
    sym *e = tab_get(t, kind, s, n);
    if (e) {
        *fresh = false;
        return e;
    }
    if ((t->n + 1) * 2 > t->cap && !tab_grow(t))
        return NULL;
    size_t h = (size_t)sym_hash(s, n, kind) & (t->cap - 1);
    while (t->v[h].s)
        h = (h + 1) & (t->cap - 1);
    t->v[h].s = s;
    t->v[h].n = (uint32_t)n;
    t->v[h].kind = kind;
    t->n++;
    *fresh = true;
    return &t->v[h];
}

typedef struct checker {
    const qr_flow_file *f;
    qr_flow_diags *d;
    symtab t;
    bool has_models;
    const qr_flow_decl *item; /* inside `filter L where`: the schema of L's items, or NULL */
    size_t visits; /* statement visits of the ordering walk */
    /* ordering warnings already given: (statement, variable) */
    const void **warned_at;
    const char **warned_name;
    size_t nwarned, capwarned;
} checker;

/* Fills help with "did you mean 'x'?" for the closest name of this kind, or leaves it
 * empty. Also considers extra (NULL-terminated) names. */
static void suggest(const checker *c, int kind, const char *s, size_t n,
                    const char *const *extra, char *help, size_t cap)
{
    help[0] = 0;
    size_t best = SIZE_MAX;
    const char *bs = NULL;
    size_t bn = 0;
    size_t limit = n <= 3 ? 1 : n <= 6 ? 2 : 3;
    for (size_t i = 0; i < c->t.cap; i++) {
        const sym *e = &c->t.v[i];
        if (!e->s || e->kind != kind)
            continue;
        size_t d = qr_edit_distance(s, n, e->s, e->n, QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (d <= limit && (d < best || (d == best && (e->n < bn || (e->n == bn &&
                                                                     memcmp(e->s, bs, bn) < 0))))) {
            best = d;
            bs = e->s;
            bn = e->n;
        }
    }
    for (int i = 0; extra && extra[i]; i++) {
        size_t d = qr_edit_distance(s, n, extra[i], strlen(extra[i]),
                                    QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (d <= limit && d < best) {
            best = d;
            bs = extra[i];
            bn = strlen(extra[i]);
        }
    }
    if (bs && bn < 200)
        snprintf(help, cap, "did you mean '%.*s'?", (int)bn, bs);
}

static void undefined(checker *c, int kind, qr_flow_name nm, const char *const *extra)
{
    char help[300];
    suggest(c, kind, nm.s, nm.n, extra, help, sizeof help);
    if (!help[0]) {
        /* the name exists as another kind: say so */
        static const char *const hint[] = {
            [QR_FD_AGENT] = "'%.*s' is an agent: write 'run agent %.*s'",
            [QR_FD_FLOW] = "'%.*s' is a flow: write 'run %.*s'",
            [QR_FD_PROMPT] = "'%.*s' is a prompt",
        };
        for (int k = QR_FD_MODEL; k <= QR_FD_FLOW; k++)
            if (k != kind && tab_get(&c->t, k, nm.s, nm.n) && k >= QR_FD_PROMPT &&
                nm.n < 100) {
                snprintf(help, sizeof help, hint[k], (int)nm.n, nm.s, (int)nm.n, nm.s);
                break;
            }
    }
    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0001", nm.pos.line, nm.pos.col, nm.pos.len,
                     help[0] ? help : NULL, "undefined %s '%.*s'",
                     kind == K_VAR ? "variable" : qr_flow_decl_kind_name((qr_flow_decl_kind)kind),
                     (int)nm.n, nm.s);
}

static bool resolve(checker *c, int kind, qr_flow_name nm)
{
    if (tab_get(&c->t, kind, nm.s, nm.n))
        return true;
    undefined(c, kind, nm, NULL);
    return false;
}

/* A name a flow or a prompt can read: a variable some flow assigns, an agent's produces,
 * a prompt, or input_prompt. */
static bool readable(const checker *c, const char *s, size_t n)
{
    return (n == 12 && !memcmp(s, "input_prompt", 12)) || tab_get(&c->t, K_VAR, s, n) ||
           tab_get(&c->t, K_PRODUCES, s, n) || tab_get(&c->t, QR_FD_PROMPT, s, n);
}

/* ---- pass 1: what is defined ---- */
static void define_var(checker *c, qr_flow_name nm, const void *stmt)
{
    bool fresh;
    sym *e = tab_put(&c->t, K_VAR, nm.s, nm.n, &fresh);
    if (e && fresh) {
        e->p = stmt;
        e->pos = nm.pos;
    }
}

static void collect_stmts(checker *c, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *s = v[i];
        if ((s->kind == QR_FS_ASSIGN || s->kind == QR_FS_PUSH || s->kind == QR_FS_FOR) &&
            s->ntarget)
            define_var(c, s->target[0], s);
        collect_stmts(c, s->body, s->nbody);
        collect_stmts(c, s->orelse, s->norelse);
    }
}

static void collect(checker *c)
{
    for (size_t i = 0; i < c->f->ndecls; i++) {
        const qr_flow_decl *d = c->f->decls[i];
        qr_flow_name nm = qr_flow_decl_name(d);
        bool fresh;
        sym *e = tab_put(&c->t, (int)d->kind, nm.s, nm.n, &fresh);
        if (!e)
            return;
        if (d->kind == QR_FD_MODEL)
            c->has_models = true;
        if (fresh) {
            e->p = d;
            e->pos = nm.pos;
        } else if (d->kind != QR_FD_PROMPT) {
            char help[120];
            snprintf(help, sizeof help, "the first definition is at line %u", e->pos.line);
            qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0003", nm.pos.line, nm.pos.col, nm.pos.len,
                             help, "duplicate definition of %s '%.*s'",
                             qr_flow_decl_kind_name(d->kind), (int)nm.n, nm.s);
        }
        if (d->kind == QR_FD_AGENT)
            for (size_t k = 0; k < d->nprops; k++)
                if (flow_name_eq(d->props[k].key, "produces", 8) && d->props[k].nnames) {
                    sym *pe = tab_put(&c->t, K_PRODUCES, d->props[k].names[0].s,
                                      d->props[k].names[0].n, &fresh);
                    if (pe && fresh) {
                        pe->p = d;
                        pe->pos = d->props[k].names[0].pos;
                    }
                }
        if (d->kind == QR_FD_FLOW)
            collect_stmts(c, d->stmts, d->nstmts);
    }
}

/* ---- pass 2: references ---- */

/* E0016: `x.fle` where x's schema (qr_flow_expr_schema) has no field fle: the value would
 * be null at run time. nm: the field's name (its first segment for `.a.b`). Never inlined:
 * its message buffers would sit in every frame of check_expr, which recurses once per
 * level of an expression (up to QR_FLOW_MAX_EXPR_HEIGHT), and overflow the stack. */
__attribute__((noinline)) static void check_field(checker *c, const qr_flow_decl *schema,
                                                  qr_flow_name nm)
{
    if (!schema)
        return;
    const char *dot = memchr(nm.s, '.', nm.n);
    if (dot) {
        nm.n = (uint32_t)(dot - nm.s);
        nm.pos.len = flow_cp_len(nm.s, nm.n);
    }
    for (size_t i = 0; i < schema->nprops; i++)
        if (flow_name_eq(schema->props[i].key, nm.s, nm.n))
            return;
    size_t k = 0;
    char help[300] = "";
    const char *best = NULL;
    size_t bestd = nm.n > 5 ? 3 : 2;
    for (size_t i = 0; i < schema->nprops; i++) {
        const qr_flow_name key = schema->props[i].key;
        size_t dd = qr_edit_distance(nm.s, nm.n, key.s, key.n, QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (dd < bestd) {
            bestd = dd;
            best = key.s;
            k = key.n;
        }
    }
    if (best)
        snprintf(help, sizeof help, "did you mean '%.*s'?", (int)k, best);
    else {
        qr_buf b;
        qr_buf_init(&b);
        for (size_t i = 0; i < schema->nprops && i < 12; i++)
            qr_buf_printf(&b, "%s%.*s", i ? ", " : "", (int)schema->props[i].key.n,
                          schema->props[i].key.s);
        snprintf(help, sizeof help, "its fields are %s", b.p ? b.p : "none");
        qr_buf_release(&b);
    }
    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0016", nm.pos.line, nm.pos.col, nm.pos.len, help,
                     "schema '%.*s' has no field '%.*s'", (int)schema->name.n, schema->name.s,
                     (int)nm.n, nm.s);
}

static void check_expr(checker *c, const qr_flow_expr *e, bool in_filter)
{
    while (e) {
        switch (e->kind) {
        case QR_FX_NAME:
            if (!readable(c, e->name.s, e->name.n)) {
                char help[300];
                suggest(c, K_VAR, e->name.s, e->name.n, NULL, help, sizeof help);
                if (!help[0])
                    suggest(c, K_PRODUCES, e->name.s, e->name.n, NULL, help, sizeof help);
                if (!help[0])
                    snprintf(help, sizeof help, "assign it in a flow ('%.*s = ...'), or "
                                                "name it in an agent's 'produces'",
                             (int)(e->name.n < 60 ? e->name.n : 60), e->name.s);
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0002", e->name.pos.line,
                                 e->name.pos.col, e->name.pos.len, help,
                                 "variable '%.*s' is read but never assigned", (int)e->name.n,
                                 e->name.s);
            }
            return;
        case QR_FX_FIELD:
            if (!in_filter)
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0007", e->pos.line, e->pos.col,
                                 e->pos.len, "write 'filter LIST where .field ...'",
                                 "'.%.*s' is only meaningful inside 'filter ... where'",
                                 (int)e->name.n, e->name.s);
            else {
                /* `.a.b`: each segment against the schema of the part before it */
                qr_flow_expr pre = *e;
                const char *end = e->name.s + e->name.n;
                for (const char *seg = e->name.s; seg < end;) {
                    const char *dot = memchr(seg, '.', (size_t)(end - seg));
                    qr_flow_name nm = e->name;
                    nm.s = seg;
                    nm.n = (uint32_t)((dot ? dot : end) - seg);
                    nm.pos.col = e->name.pos.col + flow_cp_len(e->name.s, (size_t)(seg - e->name.s));
                    nm.pos.len = flow_cp_len(nm.s, nm.n);
                    size_t pren = (size_t)(seg - e->name.s); /* `a.` before `b` */
                    pre.name.n = pren ? (uint32_t)(pren - 1) : 0;
                    const qr_flow_decl *sc =
                        pren ? qr_flow_expr_schema(c->f, &pre, c->item, true) : c->item;
                    if (!sc)
                        break;
                    size_t before = c->d->n;
                    check_field(c, sc, nm);
                    if (c->d->n != before || !dot)
                        break;
                    seg = dot + 1;
                }
            }
            return;
        case QR_FX_LIST:
        case QR_FX_OBJECT:
            for (size_t i = 0; i < e->nitems; i++)
                check_expr(c, e->items[i], in_filter);
            return;
        case QR_FX_CALL: {
            const qr_flow_builtin *b = qr_flow_builtin_find(e->name.s, e->name.n);
            if (!b) {
                const char *names[40];
                int k = 0;
                for (const qr_flow_builtin *x = qr_flow_builtins(); x->name && k < 39; x++)
                    names[k++] = x->name;
                names[k] = NULL;
                char help[300];
                suggest(c, -1, e->name.s, e->name.n, names, help, sizeof help);
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0001", e->name.pos.line,
                                 e->name.pos.col, e->name.pos.len,
                                 help[0] ? help : "see docs/flow.md for the functions",
                                 "undefined function '%.*s'", (int)e->name.n, e->name.s);
            } else if ((int)e->nitems < b->min_args || (int)e->nitems > b->max_args) {
                char help[160], takes[64];
                snprintf(help, sizeof help, "usage: %s", b->usage);
                if (b->min_args == b->max_args)
                    snprintf(takes, sizeof takes, "%d argument%s", b->min_args,
                             b->min_args == 1 ? "" : "s");
                else
                    snprintf(takes, sizeof takes, "%d to %d arguments", b->min_args,
                             b->max_args);
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0007", e->name.pos.line,
                                 e->name.pos.col, e->name.pos.len, help,
                                 "function '%s' takes %s, not %zu", b->name, takes, e->nitems);
            }
            for (size_t i = 0; i < e->nitems; i++)
                check_expr(c, e->items[i], in_filter);
            return;
        }
        case QR_FX_FILTER: {
            check_expr(c, e->a, in_filter);
            const qr_flow_decl *saved = c->item;
            c->item = qr_flow_expr_schema(c->f, e->a, saved, true);
            check_expr(c, e->b, true);
            c->item = saved;
            return;
        }
        case QR_FX_RUN_AGENT: {
            sym *ag = tab_get(&c->t, QR_FD_AGENT, e->name.s, e->name.n);
            if (!ag)
                undefined(c, QR_FD_AGENT, e->name, NULL);
            else if (!e->a) {
                const qr_flow_decl *d = ag->p;
                bool has_prompt = false;
                for (size_t k = 0; k < d->nprops; k++)
                    if (flow_name_eq(d->props[k].key, "prompt", 6))
                        has_prompt = true;
                if (!has_prompt)
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0010", e->name.pos.line,
                                     e->name.pos.col, e->name.pos.len,
                                     "give the agent a 'prompt' property, or its input here "
                                     "with 'with INPUT'",
                                     "agent '%.*s' has no 'prompt': 'run agent' needs 'with'",
                                     (int)e->name.n, e->name.s);
            }
            e = e->a;
            continue;
        }
        case QR_FX_RUN_FLOW:
            if (!tab_get(&c->t, QR_FD_FLOW, e->name.s, e->name.n))
                undefined(c, QR_FD_FLOW, e->name, NULL);
            e = e->a;
            continue;
        case QR_FX_CALL_LLM:
            if (!tab_get(&c->t, QR_FD_PROMPT, e->name.s, e->name.n))
                undefined(c, QR_FD_PROMPT, e->name, NULL);
            if (e->model.n && !tab_get(&c->t, QR_FD_MODEL, e->model.s, e->model.n) &&
                (c->has_models || !flow_name_eq(e->model, "main", 4)))
                undefined(c, QR_FD_MODEL, e->model, NULL);
            e = e->a;
            continue;
        case QR_FX_GET:
            check_field(c, qr_flow_expr_schema(c->f, e->a, c->item, true), e->name);
            e = e->a;
            continue;
        case QR_FX_UNARY:
        case QR_FX_PAREN:
            e = e->a;
            continue;
        case QR_FX_BINARY:
            /* a chain of operators (`1 - 1 - ...`, up to QR_FLOW_MAX_EXPR_HEIGHT) is one
             * deep side: walk it in this loop and recurse only into the shallower side, so
             * the stack stays shallow however long the chain (diagnostics are sorted by
             * position afterwards, so the order of the walk does not show) */
            if (e->a && e->b && e->a->height > e->b->height) {
                check_expr(c, e->b, in_filter);
                e = e->a;
            } else {
                check_expr(c, e->a, in_filter);
                e = e->b;
            }
            continue;
        default:
            return;
        }
    }
}

static void check_stmts(checker *c, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *s = v[i];
        check_expr(c, s->e, false);
        if (s->kind == QR_FS_ASSIGN && s->ntarget > 1 && !readable(c, s->target[0].s,
                                                                   s->target[0].n))
            qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0002", s->target[0].pos.line,
                             s->target[0].pos.col, s->target[0].pos.len, NULL,
                             "variable '%.*s' is read but never assigned",
                             (int)s->target[0].n, s->target[0].s);
        check_stmts(c, s->body, s->nbody);
        check_stmts(c, s->orelse, s->norelse);
        if (s->kind == QR_FS_PARALLEL)
            for (size_t k = 0; k < s->nbody; k++) {
                const qr_flow_stmt *b = s->body[k];
                bool ok = (b->kind == QR_FS_EXPR || b->kind == QR_FS_ASSIGN) && b->e &&
                          (b->e->kind == QR_FX_RUN_AGENT || b->e->kind == QR_FX_CALL_LLM ||
                           b->e->kind == QR_FX_RUN_FLOW);
                if (!ok)
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0007", b->pos.line, b->pos.col,
                                     b->pos.len,
                                     "a parallel block holds 'run agent', 'call llm' and 'run' "
                                     "statements, with or without an assignment",
                                     "this statement cannot run in 'parallel do'");
            }
    }
}

/* ---- prompts: merging declarations ---- */
typedef struct refctx {
    checker *c;
    const qr_flow_decl *prompt;
} refctx;

static void body_ref(void *ud, const char *name, size_t n, const char *path, size_t pathn,
                     uint32_t line, uint32_t col)
{
    refctx *r = ud;
    (void)path;
    if (readable(r->c, name, n))
        return;
    if (n > 4 && !memcmp(name, "env", 3))
        return;
    char help[300];
    suggest(r->c, K_VAR, name, n, NULL, help, sizeof help);
    if (!help[0])
        suggest(r->c, QR_FD_PROMPT, name, n, NULL, help, sizeof help);
    if (!help[0])
        snprintf(help, sizeof help, "assign '%.*s' in a flow, name it in an agent's "
                                    "'produces', or define a prompt of that name",
                 (int)(n < 60 ? n : 60), name);
    qr_flow_diag_add(r->c->d, QR_FLOW_ERROR, "E0015", line, col,
                     flow_cp_len(path, pathn) + 1, help,
                     "prompt '%.*s' references '$%.*s', which nothing defines",
                     (int)r->prompt->name.n, r->prompt->name.s, (int)n, name);
}

static void check_prompts(checker *c)
{
    for (size_t i = 0; i < c->t.cap; i++) {
        const sym *e = &c->t.v[i];
        if (!e->s || e->kind != QR_FD_PROMPT)
            continue;
        const qr_flow_decl *body = NULL;
        const qr_flow_prop *expecting = NULL, *using = NULL;
        const qr_flow_decl *first = e->p;
        /* every declaration of this name (in file order) */
        for (size_t k = 0; k < c->f->ndecls; k++) {
            const qr_flow_decl *d = c->f->decls[k];
            if (d->kind != QR_FD_PROMPT || !flow_name_eq(d->name, e->s, e->n))
                continue;
            if (d->has_body) {
                if (body)
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0003", d->name.pos.line,
                                     d->name.pos.col, d->name.pos.len, NULL,
                                     "duplicate definition of prompt '%.*s': its body is "
                                     "also given at line %u",
                                     (int)e->n, e->s, body->name.pos.line);
                else
                    body = d;
            }
            for (size_t m = 0; m < d->nprops; m++) {
                const qr_flow_prop *pr = &d->props[m];
                bool exp = flow_name_eq(pr->key, "expecting", 9);
                const qr_flow_prop **slot = exp ? &expecting : &using;
                if (!pr->nnames)
                    continue;
                if (exp && !tab_get(&c->t, QR_FD_SCHEMA, pr->names[0].s, pr->names[0].n))
                    undefined(c, QR_FD_SCHEMA, pr->names[0], NULL);
                if (!exp && !tab_get(&c->t, QR_FD_MODEL, pr->names[0].s, pr->names[0].n) &&
                    (c->has_models || !flow_name_eq(pr->names[0], "main", 4)))
                    undefined(c, QR_FD_MODEL, pr->names[0], NULL);
                if (!*slot) {
                    *slot = pr;
                } else if (!flow_name_eq((*slot)->names[0], pr->names[0].s, pr->names[0].n) ||
                           (*slot)->list != pr->list) {
                    char help[160];
                    snprintf(help, sizeof help, "the other is at line %u; keep one",
                             (*slot)->line);
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0014", pr->key.pos.line,
                                     pr->key.pos.col, pr->key.pos.len, help,
                                     "conflicting modifiers of prompt '%.*s': '%s %.*s%s' and "
                                     "'%s %.*s%s'",
                                     (int)e->n, e->s, exp ? "expecting" : "using model",
                                     (int)(*slot)->names[0].n, (*slot)->names[0].s,
                                     (*slot)->list ? "[]" : "", exp ? "expecting" : "using model",
                                     (int)pr->names[0].n, pr->names[0].s, pr->list ? "[]" : "");
                }
            }
        }
        if (!body) {
            qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0013", first->name.pos.line,
                             first->name.pos.col, first->name.pos.len,
                             "define it: prompt NAME: \"\"\"text\"\"\"",
                             "prompt '%.*s' is declared but has no body", (int)e->n, e->s);
            continue;
        }
        refctx r = {c, body};
        flow_body_refs(body, body_ref, &r);
    }
}

/* ---- agents ---- */
static const qr_flow_prop *prop(const qr_flow_decl *d, const char *key)
{
    for (size_t i = 0; i < d->nprops; i++)
        if (flow_name_eq(d->props[i].key, key, strlen(key)))
            return &d->props[i];
    return NULL;
}

static void check_agents(checker *c)
{
    for (size_t i = 0; i < c->f->ndecls; i++) {
        const qr_flow_decl *d = c->f->decls[i];
        if (d->kind != QR_FD_AGENT)
            continue;
        qr_flow_name nm = qr_flow_decl_name(d);
        for (size_t k = 0; k < d->nprops; k++) {
            const qr_flow_prop *pr = &d->props[k];
            for (size_t j = 0; j < k; j++)
                if (flow_name_eq(d->props[j].key, pr->key.s, pr->key.n)) {
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0003", pr->key.pos.line,
                                     pr->key.pos.col, pr->key.pos.len, NULL,
                                     "duplicate property '%.*s' of agent '%.*s'",
                                     (int)pr->key.n, pr->key.s, (int)nm.n, nm.s);
                    break;
                }
            for (size_t j = 0; j < pr->nnames; j++) {
                qr_flow_name x = pr->names[j];
                if (flow_name_eq(pr->key, "tools", 5)) {
                    /* `tools repo.dwim`: one tool of the set `repo` (a declared tool) */
                    const char *dot = memchr(x.s, '.', x.n);
                    qr_flow_name set = x;
                    if (dot && !flow_tool_group_known(x.s, x.n)) {
                        set.n = (uint32_t)(dot - x.s);
                        set.pos.len = flow_cp_len(set.s, set.n);
                    }
                    if (!tab_get(&c->t, QR_FD_TOOL, set.s, set.n) &&
                        !flow_tool_group_known(set.s, set.n))
                        undefined(c, QR_FD_TOOL, set, flow_tool_groups);
                } else if (flow_name_eq(pr->key, "instruction", 11) ||
                           flow_name_eq(pr->key, "prompt", 6)) {
                    resolve(c, QR_FD_PROMPT, x);
                } else if (flow_name_eq(pr->key, "delegate", 8) ||
                           flow_name_eq(pr->key, "use", 3)) {
                    resolve(c, QR_FD_AGENT, x);
                }
            }
        }
        if (!prop(d, "instruction"))
            qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0010", nm.pos.line, nm.pos.col,
                             d->name.n ? nm.pos.len : 5,
                             "add a line 'instruction PROMPT_NAME' (its system prompt)",
                             "agent '%.*s' has no 'instruction'", (int)nm.n, nm.s);
        const qr_flow_prop *del = prop(d, "delegate"), *use = prop(d, "use");
        if (del && use)
            qr_flow_diag_add(c->d, QR_FLOW_WARNING, "W0002", use->key.pos.line,
                             use->key.pos.col, use->key.pos.len,
                             "delegate hands the conversation over; use calls agents as tools: "
                             "pick one",
                             "agent '%.*s' has both 'delegate' and 'use'", (int)nm.n, nm.s);
    }
}

/* Cycles through delegate/use: depth-first with colours; a back edge is a cycle. */
static void agent_cycles(checker *c)
{
    size_t n = c->f->ndecls;
    uint8_t *colour = calloc(n ? n : 1, 1);
    size_t *stack = calloc(n ? n : 1, sizeof *stack); /* decl index */
    size_t *edge = calloc(n ? n : 1, sizeof *edge);   /* next (prop, name) to visit, flattened */
    if (!colour || !stack || !edge)
        goto done;
    for (size_t root = 0; root < n; root++) {
        const qr_flow_decl *rd = c->f->decls[root];
        if (rd->kind != QR_FD_AGENT || colour[root])
            continue;
        size_t sp = 0;
        stack[sp] = root;
        edge[sp] = 0;
        colour[root] = 1;
        sp++;
        while (sp) {
            size_t top = stack[sp - 1];
            const qr_flow_decl *d = c->f->decls[top];
            /* the edge-th reference among delegate/use names */
            size_t k = edge[sp - 1]++, seen = 0;
            const qr_flow_name *ref = NULL;
            for (size_t i = 0; i < d->nprops && !ref; i++) {
                const qr_flow_prop *pr = &d->props[i];
                if (!flow_name_eq(pr->key, "delegate", 8) && !flow_name_eq(pr->key, "use", 3))
                    continue;
                if (k < seen + pr->nnames)
                    ref = &pr->names[k - seen];
                seen += pr->nnames;
            }
            if (!ref) {
                colour[top] = 2;
                sp--;
                continue;
            }
            sym *t = tab_get(&c->t, QR_FD_AGENT, ref->s, ref->n);
            if (!t)
                continue;
            size_t to = 0;
            while (to < n && c->f->decls[to] != t->p)
                to++;
            if (to == n)
                continue;
            if (colour[to] == 1) {
                /* the cycle: from `to` on the stack up to top */
                qr_buf path;
                qr_buf_init(&path);
                size_t from = 0;
                while (from < sp && stack[from] != to)
                    from++;
                for (size_t i = from; i < sp; i++) {
                    qr_flow_name an = qr_flow_decl_name(c->f->decls[stack[i]]);
                    qr_buf_printf(&path, "%.*s -> ", (int)(an.n < 60 ? an.n : 60), an.s);
                }
                qr_buf_printf(&path, "%.*s", (int)(ref->n < 60 ? ref->n : 60), ref->s);
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0011", ref->pos.line, ref->pos.col,
                                 ref->pos.len, "an agent cannot delegate to or use itself, "
                                               "directly or through others",
                                 "circular delegate/use: %s", path.p ? path.p : "");
                qr_buf_release(&path);
                continue;
            }
            if (colour[to] == 0) {
                colour[to] = 1;
                stack[sp] = to;
                edge[sp] = 0;
                sp++;
            }
        }
    }
done:
    free(colour);
    free(stack);
    free(edge);
}

/* W0004: a builtin tool set quarry does not have (files written for other runtimes name
 * theirs): the agents using it get no tools from it. */
static void check_tools(checker *c)
{
    for (size_t i = 0; i < c->f->ndecls; i++) {
        const qr_flow_decl *d = c->f->decls[i];
        if (d->kind != QR_FD_TOOL || d->mcp || flow_tool_group_known(d->value, d->valuen))
            continue;
        qr_flow_diag_add(c->d, QR_FLOW_WARNING, "W0004", d->name.pos.line, d->name.pos.col,
                         d->name.pos.len,
                         "quarry's builtin sets are quarry.git, quarry.memory, quarry.files "
                         "(streetrace.fs) and quarry (git and memory)",
                         "unknown builtin tool set '%.*s': agents get no tools from '%.*s'",
                         (int)(d->valuen < 80 ? d->valuen : 80), d->value, (int)d->name.n,
                         d->name.s);
    }
}

static void check_schemas(checker *c)
{
    for (size_t i = 0; i < c->f->ndecls; i++) {
        const qr_flow_decl *d = c->f->decls[i];
        if (d->kind != QR_FD_SCHEMA)
            continue;
        for (size_t k = 0; k < d->nprops; k++) {
            const qr_flow_prop *pr = &d->props[k];
            for (size_t j = 0; j < k; j++)
                if (flow_name_eq(d->props[j].key, pr->key.s, pr->key.n)) {
                    qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0003", pr->key.pos.line,
                                     pr->key.pos.col, pr->key.pos.len, NULL,
                                     "duplicate field '%.*s' of schema '%.*s'", (int)pr->key.n,
                                     pr->key.s, (int)d->name.n, d->name.s);
                    break;
                }
            const qr_flow_type *t = pr->type;
            while (t && t->kind == QR_FT_LIST)
                t = t->elem;
            if (t && t->kind == QR_FT_REF && !tab_get(&c->t, QR_FD_SCHEMA, t->ref.s, t->ref.n)) {
                static const char *const types[] = {"string", "int", "float", "bool", "list",
                                                    "any", NULL};
                char help[300];
                suggest(c, QR_FD_SCHEMA, t->ref.s, t->ref.n, types, help, sizeof help);
                qr_flow_diag_add(c->d, QR_FLOW_ERROR, "E0001", t->ref.pos.line, t->ref.pos.col,
                                 t->ref.pos.len,
                                 help[0] ? help : "types are string, int, float, bool, "
                                                  "list[T], T? and schema names",
                                 "undefined schema '%.*s'", (int)t->ref.n, t->ref.s);
            }
        }
    }
}

/* ---- W0003: an agent runs before what its prompts read can have been set ---- */
#define ORDER_MAX_VISITS 1000000

typedef struct order {
    checker *c;
    symtab set;                /* variables that can have been set so far */
    symtab walked;             /* flows already walked from this entry */
    const qr_flow_decl *stack[FLOW_MAX_NEST]; /* flows being walked */
    int nstack;
} order;

typedef struct needctx {
    order *o;
    const qr_flow_stmt *stmt;
    const qr_flow_expr *call;
    const qr_flow_decl *prompt; /* the prompt whose body is being read */
    const qr_flow_decl *seen[16];
    int nseen;
} needctx;

static bool warned(checker *c, const void *at, const char *name, size_t n)
{
    for (size_t i = 0; i < c->nwarned; i++)
        if (c->warned_at[i] == at && strlen(c->warned_name[i]) == n &&
            !memcmp(c->warned_name[i], name, n))
            return true;
    if (c->nwarned == c->capwarned) {
        size_t nc = c->capwarned ? c->capwarned * 2 : 8;
        const void **a = realloc(c->warned_at, nc * sizeof *a);
        if (!a)
            return true;
        c->warned_at = a;
        const char **b = realloc(c->warned_name, nc * sizeof *b);
        if (!b)
            return true;
        c->warned_name = b;
        c->capwarned = nc;
    }
    char *copy = strndup(name, n);
    if (!copy)
        return true;
    c->warned_at[c->nwarned] = at;
    c->warned_name[c->nwarned++] = copy;
    return false;
}

static void needs_prompt(needctx *nc, const qr_flow_decl *p);

static void need_ref(void *ud, const char *name, size_t n, const char *path, size_t pathn,
                     uint32_t line, uint32_t col)
{
    needctx *nc = ud;
    checker *c = nc->o->c;
    (void)path, (void)pathn, (void)line, (void)col;
    if (tab_get(&nc->o->set, 0, name, n) || (n == 12 && !memcmp(name, "input_prompt", 12)))
        return;
    bool assigned = tab_get(&c->t, K_VAR, name, n) || tab_get(&c->t, K_PRODUCES, name, n);
    sym *pr = tab_get(&c->t, QR_FD_PROMPT, name, n);
    if (pr && !assigned) {
        const qr_flow_decl *d = qr_flow_find(c->f, QR_FD_PROMPT, name, n);
        if (d)
            needs_prompt(nc, d);
        return;
    }
    if (!assigned || warned(c, nc->call, name, n))
        return;
    const sym *v = tab_get(&c->t, K_VAR, name, n);
    if (!v)
        v = tab_get(&c->t, K_PRODUCES, name, n);
    const qr_flow_expr *e = nc->call;
    char help[300];
    snprintf(help, sizeof help, "prompt '%.*s' reads $%.*s, which is first set at line %u",
             (int)(nc->prompt->name.n < 60 ? nc->prompt->name.n : 60), nc->prompt->name.s,
             (int)(n < 60 ? n : 60), name, v->pos.line);
    qr_flow_diag_add(c->d, QR_FLOW_WARNING, "W0003", e->name.pos.line, e->name.pos.col,
                     e->name.pos.len, help, "%s '%.*s' %s before '%.*s' can have been set",
                     e->kind == QR_FX_RUN_AGENT ? "agent" : "prompt", (int)e->name.n,
                     e->name.s, e->kind == QR_FX_RUN_AGENT ? "runs" : "is called", (int)n, name);
}

static void needs_prompt(needctx *nc, const qr_flow_decl *p)
{
    if (!p || !p->has_body)
        p = p ? qr_flow_find(nc->o->c->f, QR_FD_PROMPT, p->name.s, p->name.n) : NULL;
    if (!p || !p->has_body)
        return;
    for (int i = 0; i < nc->nseen; i++)
        if (nc->seen[i] == p)
            return;
    if (nc->nseen == 16)
        return;
    nc->seen[nc->nseen++] = p;
    const qr_flow_decl *outer = nc->prompt;
    nc->prompt = p;
    flow_body_refs(p, need_ref, nc);
    nc->prompt = outer;
}

static void needs_named(needctx *nc, const char *s, size_t n)
{
    const qr_flow_decl *p = qr_flow_find(nc->o->c->f, QR_FD_PROMPT, s, n);
    if (p)
        needs_prompt(nc, p);
}

static void order_set(order *o, const char *s, size_t n)
{
    bool fresh;
    tab_put(&o->set, 0, s, n, &fresh);
}

static void order_stmts(order *o, qr_flow_stmt **v, size_t n);
static void order_invoke(order *o, const qr_flow_stmt *s, const qr_flow_expr *e, bool check);

/* Adds every variable the statements set (a flow's effect, without checking it again). */
static void order_assigned(order *o, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *s = v[i];
        if ((s->kind == QR_FS_ASSIGN || s->kind == QR_FS_PUSH || s->kind == QR_FS_FOR) &&
            s->ntarget)
            order_set(o, s->target[0].s, s->target[0].n);
        if (s->e && s->kind == QR_FS_EXPR && s->e->kind == QR_FX_RUN_AGENT)
            order_invoke(o, s, s->e, false);
        order_assigned(o, s->body, s->nbody);
        order_assigned(o, s->orelse, s->norelse);
    }
}

/* Checks an invocation's needs against the set, then adds what it sets; run FLOW walks
 * the flow. out: the variable it assigns (NULL for a statement). */
static void order_invoke(order *o, const qr_flow_stmt *s, const qr_flow_expr *e, bool check)
{
    checker *c = o->c;
    needctx nc;
    memset(&nc, 0, sizeof nc);
    nc.o = o;
    nc.stmt = s;
    nc.call = e;
    if (e->kind == QR_FX_RUN_AGENT) {
        sym *ag = tab_get(&c->t, QR_FD_AGENT, e->name.s, e->name.n);
        if (!ag)
            return;
        const qr_flow_decl *d = ag->p;
        if (check) {
            const qr_flow_prop *ins = prop(d, "instruction"), *pp = prop(d, "prompt");
            if (ins && ins->nnames)
                needs_named(&nc, ins->names[0].s, ins->names[0].n);
            if (e->a && e->a->kind == QR_FX_NAME && !tab_get(&c->t, K_VAR, e->a->name.s,
                                                             e->a->name.n))
                needs_named(&nc, e->a->name.s, e->a->name.n);
            else if (!e->a && pp && pp->nnames)
                needs_named(&nc, pp->names[0].s, pp->names[0].n);
        }
        const qr_flow_prop *prod = prop(d, "produces");
        if (s && s->kind == QR_FS_EXPR && prod && prod->nnames)
            order_set(o, prod->names[0].s, prod->names[0].n);
    } else if (e->kind == QR_FX_CALL_LLM) {
        if (check) {
            needs_named(&nc, e->name.s, e->name.n);
            if (e->a && e->a->kind == QR_FX_NAME &&
                !tab_get(&c->t, K_VAR, e->a->name.s, e->a->name.n))
                needs_named(&nc, e->a->name.s, e->a->name.n);
        }
    } else if (e->kind == QR_FX_RUN_FLOW) {
        sym *fl = tab_get(&c->t, QR_FD_FLOW, e->name.s, e->name.n);
        if (!fl || o->nstack >= FLOW_MAX_NEST)
            return;
        for (int i = 0; i < o->nstack; i++)
            if (o->stack[i] == fl->p)
                return;
        const qr_flow_decl *d = fl->p;
        bool fresh = true;
        tab_put(&o->walked, 0, d->name.s, d->name.n, &fresh);
        if (!fresh) {
            /* walked once in this entry already: what it sets is all it adds now (the
             * set only grows), so the walk stays linear in the file */
            order_assigned(o, d->stmts, d->nstmts);
            return;
        }
        o->stack[o->nstack++] = d;
        order_stmts(o, d->stmts, d->nstmts);
        o->nstack--;
    }
}

static void order_stmts(order *o, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (++o->c->visits > ORDER_MAX_VISITS)
            return;
        const qr_flow_stmt *s = v[i];
        switch (s->kind) {
        case QR_FS_ASSIGN:
        case QR_FS_EXPR:
            if (s->e && (s->e->kind == QR_FX_RUN_AGENT || s->e->kind == QR_FX_CALL_LLM ||
                         s->e->kind == QR_FX_RUN_FLOW))
                order_invoke(o, s, s->e, true);
            if (s->kind == QR_FS_ASSIGN)
                order_set(o, s->target[0].s, s->target[0].n);
            break;
        case QR_FS_PUSH:
            order_set(o, s->target[0].s, s->target[0].n);
            break;
        case QR_FS_FOR:
            order_set(o, s->target[0].s, s->target[0].n);
            order_stmts(o, s->body, s->nbody);
            break;
        case QR_FS_IF:
            order_stmts(o, s->body, s->nbody);
            order_stmts(o, s->orelse, s->norelse);
            break;
        case QR_FS_PARALLEL:
            /* siblings run at the same time: none sees what another sets */
            for (size_t k = 0; k < s->nbody; k++)
                if (s->body[k]->e && s->body[k]->e->kind != QR_FX_RUN_FLOW)
                    order_invoke(o, NULL, s->body[k]->e, true);
            for (size_t k = 0; k < s->nbody; k++) {
                const qr_flow_stmt *b = s->body[k];
                if (b->e && (b->e->kind == QR_FX_RUN_AGENT || b->e->kind == QR_FX_RUN_FLOW))
                    order_invoke(o, b, b->e, false);
                if (b->kind == QR_FS_ASSIGN)
                    order_set(o, b->target[0].s, b->target[0].n);
            }
            break;
        default:
            break;
        }
    }
}

/* Flows run by some other flow. */
static void mark_called(checker *c, qr_flow_stmt **v, size_t n, symtab *called)
{
    for (size_t i = 0; i < n; i++) {
        const qr_flow_stmt *s = v[i];
        const qr_flow_expr *e = s->e;
        while (e && e->kind != QR_FX_RUN_FLOW && (e->kind == QR_FX_PAREN))
            e = e->a;
        if (e && e->kind == QR_FX_RUN_FLOW) {
            bool fresh;
            tab_put(called, 0, e->name.s, e->name.n, &fresh);
        }
        mark_called(c, s->body, s->nbody, called);
    }
}

static void check_order(checker *c)
{
    symtab called = {0};
    for (size_t i = 0; i < c->f->ndecls; i++)
        if (c->f->decls[i]->kind == QR_FD_FLOW)
            mark_called(c, c->f->decls[i]->stmts, c->f->decls[i]->nstmts, &called);
    /* entry flows: main, and every flow no other flow runs */
    for (size_t i = 0; i < c->f->ndecls; i++) {
        const qr_flow_decl *d = c->f->decls[i];
        if (d->kind != QR_FD_FLOW)
            continue;
        if (tab_get(&called, 0, d->name.s, d->name.n) && !flow_name_eq(d->name, "main", 4))
            continue;
        order o;
        memset(&o, 0, sizeof o);
        o.c = c;
        o.stack[o.nstack++] = d;
        order_stmts(&o, d->stmts, d->nstmts);
        free(o.set.v);
        free(o.walked.v);
    }
    free(called.v);
}

int qr_flow_check(const qr_flow_file *f, qr_flow_diags *diags)
{
    checker c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.d = diags;
    collect(&c);
    check_schemas(&c);
    check_tools(&c);
    check_prompts(&c);
    check_agents(&c);
    agent_cycles(&c);
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        if (d->kind == QR_FD_FLOW)
            check_stmts(&c, d->stmts, d->nstmts);
    }
    if (!diags->errors)
        check_order(&c);
    for (size_t i = 0; i < c.nwarned; i++)
        free((void *)c.warned_name[i]);
    free(c.warned_at);
    free(c.warned_name);
    free(c.t.v);
    return QR_OK;
}

int qr_flow_check_text(qr_arena *a, const char *src, size_t n, qr_flow_file **out,
                       qr_flow_diags *diags)
{
    qr_flow_file *f = NULL;
    int rc = qr_flow_parse(a, src, n, &f, diags);
    /* semantic checks only on a file that parsed: a declaration dropped by a syntax error
     * would make every name it defines look undefined */
    if (rc == QR_OK && !diags->errors)
        rc = qr_flow_check(f, diags);
    qr_flow_diags_sort(diags);
    if (out)
        *out = f;
    return rc;
}
