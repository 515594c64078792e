/*
 * fmt.c: `quarry flow fmt`: the canonical layout of a workflow file, printed from the
 * syntax tree. Four spaces a level; one space around binary operators and after commas;
 * `$` dropped from flow code; `T[]` written `list[T]`; a prompt's body on its declaration
 * line; one blank line around block declarations (schema, agent, flow, model blocks) and
 * at most one where the author left some. Strings, numbers and prompt bodies are printed
 * as written, so nothing a prompt says can change.
 *
 * Comments live beside the tree (the lexer keeps them with their lines): each is printed
 * before the first item that follows it, at that item's indentation, or after the item
 * on whose line it stood. That makes formatting idempotent: a formatted file has every
 * comment where formatting puts it.
 */
#include "flow_int.h"

#include <stdio.h>
#include <string.h>

typedef struct fmt {
    const qr_flow_file *f;
    qr_buf *out;
    size_t ci;        /* next comment to print */
    uint32_t last;    /* last source line printed (0: none yet) */
    bool block_start; /* nothing printed yet in the current block */
    uint32_t next_line; /* the line of the next declaration (UINT32_MAX: none) */
} fmt;

static void indent(fmt *m, int level)
{
    for (int i = 0; i < level; i++)
        qr_buf_puts(m->out, "    ");
}

static bool blank_between(const fmt *m, uint32_t a, uint32_t b)
{
    for (uint32_t l = a + 1; l < b && l <= m->f->nlines; l++)
        if (m->f->blank[l])
            return true;
    return false;
}

/* Prints the comments that stand before source line `line`, at `level`. force_blank:
 * a blank line goes before them (or before the item when there are none). */
static void comments_before(fmt *m, uint32_t line, int level, bool force_blank)
{
    bool first = true;
    while (m->ci < m->f->ncomments && m->f->comments[m->ci].line < line) {
        const qr_flow_comment *c = &m->f->comments[m->ci++];
        if (!m->block_start && ((first && force_blank) || (m->last && blank_between(m, m->last, c->line))))
            qr_buf_putc(m->out, '\n');
        first = false;
        indent(m, level);
        qr_buf_append(m->out, c->s, c->n);
        qr_buf_putc(m->out, '\n');
        m->last = c->line;
        m->block_start = false;
    }
    if (!m->block_start && ((first && force_blank) || (m->last && blank_between(m, m->last, line))))
        qr_buf_putc(m->out, '\n');
}

/* Trailing comments on source lines [from, to], then the newline. */
static void end_line(fmt *m, uint32_t from, uint32_t to)
{
    while (m->ci < m->f->ncomments && m->f->comments[m->ci].line >= from &&
           m->f->comments[m->ci].line <= to) {
        const qr_flow_comment *c = &m->f->comments[m->ci++];
        qr_buf_puts(m->out, "  ");
        qr_buf_append(m->out, c->s, c->n);
    }
    qr_buf_putc(m->out, '\n');
    m->last = to;
    m->block_start = false;
}

static void put_name(fmt *m, qr_flow_name n)
{
    qr_buf_append(m->out, n.s, n.n);
}

/* ---- expressions ---- */
const char *qr_flow_op_text(int op)
{
    static const char *const ops[] = {"?",  "or", "and", "==",       "!=", "<", "<=", ">",
                                      ">=", "contains", "~", "+", "-", "*", "/", "%"};
    return op > 0 && op <= QR_FOP_MOD ? ops[op] : "?";
}

static void expr(fmt *m, const qr_flow_expr *e)
{
    if (!e)
        return;
    qr_buf *o = m->out;
    switch (e->kind) {
    case QR_FX_NAME: put_name(m, e->name); break;
    case QR_FX_FIELD:
        qr_buf_putc(o, '.');
        put_name(m, e->name);
        break;
    case QR_FX_STRING:
    case QR_FX_NUMBER: qr_buf_append(o, e->raw, e->rawn); break;
    case QR_FX_BOOL: qr_buf_puts(o, e->op ? "true" : "false"); break;
    case QR_FX_NULL: qr_buf_puts(o, "null"); break;
    case QR_FX_LIST:
        qr_buf_putc(o, '[');
        for (size_t i = 0; i < e->nitems; i++) {
            if (i)
                qr_buf_puts(o, ", ");
            expr(m, e->items[i]);
        }
        qr_buf_putc(o, ']');
        break;
    case QR_FX_OBJECT:
        qr_buf_putc(o, '{');
        for (size_t i = 0; i < e->nitems; i++) {
            qr_buf_puts(o, i ? ", " : " ");
            put_name(m, e->keys[i]);
            qr_buf_puts(o, ": ");
            expr(m, e->items[i]);
        }
        qr_buf_puts(o, e->nitems ? " }" : "}");
        break;
    case QR_FX_GET:
        expr(m, e->a);
        qr_buf_putc(o, '.');
        put_name(m, e->name);
        break;
    case QR_FX_CALL:
        put_name(m, e->name);
        qr_buf_putc(o, '(');
        for (size_t i = 0; i < e->nitems; i++) {
            if (i)
                qr_buf_puts(o, ", ");
            expr(m, e->items[i]);
        }
        qr_buf_putc(o, ')');
        break;
    case QR_FX_UNARY:
        qr_buf_puts(o, e->op == '-' ? "-" : "not ");
        expr(m, e->a);
        break;
    case QR_FX_BINARY:
        expr(m, e->a);
        qr_buf_printf(o, " %s ", qr_flow_op_text(e->op));
        expr(m, e->b);
        break;
    case QR_FX_FILTER:
        qr_buf_puts(o, "filter ");
        expr(m, e->a);
        qr_buf_puts(o, " where ");
        expr(m, e->b);
        break;
    case QR_FX_PAREN:
        qr_buf_putc(o, '(');
        expr(m, e->a);
        qr_buf_putc(o, ')');
        break;
    case QR_FX_RUN_AGENT:
    case QR_FX_RUN_FLOW:
    case QR_FX_CALL_LLM:
        qr_buf_puts(o, e->kind == QR_FX_RUN_AGENT ? "run agent "
                       : e->kind == QR_FX_RUN_FLOW ? "run "
                                                   : "call llm ");
        put_name(m, e->name);
        if (e->a) {
            qr_buf_puts(o, " with ");
            expr(m, e->a);
        }
        if (e->model.n) {
            qr_buf_puts(o, " using model ");
            qr_buf_json_string(o, e->model.s, e->model.n);
        }
        break;
    }
}

/* ---- statements ---- */
static void stmts(fmt *m, qr_flow_stmt **v, size_t n, int level);

static void path(fmt *m, const qr_flow_stmt *s)
{
    for (size_t i = 0; i < s->ntarget; i++) {
        if (i)
            qr_buf_putc(m->out, '.');
        put_name(m, s->target[i]);
    }
}

/* A nested block, then the comments that end it (before `end`, or before the next line at
 * the enclosing level). */
static void block(fmt *m, qr_flow_stmt **v, size_t n, int level, uint32_t until)
{
    m->block_start = true;
    stmts(m, v, n, level);
    /* comments inside the block after its last statement */
    while (m->ci < m->f->ncomments && m->f->comments[m->ci].line < until &&
           m->f->comments[m->ci].own_line && m->f->comments[m->ci].col > (uint32_t)(level - 1) * 4 + 1) {
        comments_before(m, m->f->comments[m->ci].line + 1, level, false);
    }
    m->block_start = false;
}

static void stmt(fmt *m, const qr_flow_stmt *s, int level)
{
    qr_buf *o = m->out;
    indent(m, level);
    switch (s->kind) {
    case QR_FS_ASSIGN:
        path(m, s);
        qr_buf_puts(o, " = ");
        expr(m, s->e);
        end_line(m, s->pos.line, s->end_line);
        return;
    case QR_FS_EXPR:
        expr(m, s->e);
        end_line(m, s->pos.line, s->end_line);
        return;
    case QR_FS_PUSH:
        qr_buf_puts(o, "push ");
        expr(m, s->e);
        qr_buf_puts(o, " to ");
        path(m, s);
        end_line(m, s->pos.line, s->end_line);
        return;
    case QR_FS_RETURN:
        qr_buf_puts(o, s->e ? "return " : "return");
        expr(m, s->e);
        end_line(m, s->pos.line, s->end_line);
        return;
    case QR_FS_LOG:
        qr_buf_puts(o, "log ");
        expr(m, s->e);
        end_line(m, s->pos.line, s->end_line);
        return;
    case QR_FS_FOR:
    case QR_FS_PARALLEL: {
        uint32_t first = s->nbody ? s->body[0]->pos.line : s->end_kw_line;
        if (s->kind == QR_FS_FOR) {
            qr_buf_puts(o, "for ");
            put_name(m, s->target[0]);
            qr_buf_puts(o, " in ");
            expr(m, s->e);
            qr_buf_puts(o, " do");
        } else {
            qr_buf_puts(o, "parallel do");
        }
        end_line(m, s->pos.line, first > s->pos.line ? first - 1 : s->pos.line);
        block(m, s->body, s->nbody, level + 1, s->end_kw_line);
        comments_before(m, s->end_kw_line, level + 1, false);
        indent(m, level);
        qr_buf_puts(o, "end");
        end_line(m, s->end_kw_line, s->end_kw_line);
        return;
    }
    case QR_FS_IF: {
        qr_buf_puts(o, "if ");
        expr(m, s->e);
        qr_buf_putc(o, ':');
        uint32_t first = s->nbody ? s->body[0]->pos.line : s->pos.line + 1;
        end_line(m, s->pos.line, first - 1);
        uint32_t until = s->norelse ? s->orelse[0]->pos.line - 1 : s->end_line + 1;
        block(m, s->body, s->nbody, level + 1, until);
        if (s->norelse) {
            /* `else:` stands on the line before its first statement, or earlier */
            uint32_t else_line = s->end_kw_line + 1;
            comments_before(m, else_line, level, false);
            indent(m, level);
            qr_buf_puts(o, "else:");
            end_line(m, else_line, s->orelse[0]->pos.line - 1);
            block(m, s->orelse, s->norelse, level + 1, s->end_line + 1);
        }
        return;
    }
    }
}

static void stmts(fmt *m, qr_flow_stmt **v, size_t n, int level)
{
    for (size_t i = 0; i < n; i++) {
        comments_before(m, v[i]->pos.line, level, false);
        stmt(m, v[i], level);
    }
}

/* ---- declarations ---- */
static bool is_block(const qr_flow_decl *d)
{
    return d->kind == QR_FD_SCHEMA || d->kind == QR_FD_AGENT || d->kind == QR_FD_FLOW ||
           (d->kind == QR_FD_MODEL && d->block);
}

static void type(fmt *m, const qr_flow_type *t)
{
    switch (t->kind) {
    case QR_FT_STRING: qr_buf_puts(m->out, "string"); break;
    case QR_FT_INT: qr_buf_puts(m->out, "int"); break;
    case QR_FT_FLOAT: qr_buf_puts(m->out, "float"); break;
    case QR_FT_BOOL: qr_buf_puts(m->out, "bool"); break;
    case QR_FT_ANY: qr_buf_puts(m->out, "any"); break;
    case QR_FT_REF: put_name(m, t->ref); break;
    case QR_FT_LIST:
        qr_buf_puts(m->out, "list[");
        type(m, t->elem);
        qr_buf_putc(m->out, ']');
        break;
    }
    if (t->optional)
        qr_buf_putc(m->out, '?');
}

static void props(fmt *m, const qr_flow_decl *d)
{
    m->block_start = true;
    for (size_t i = 0; i < d->nprops; i++) {
        const qr_flow_prop *p = &d->props[i];
        comments_before(m, p->line, 1, false);
        indent(m, 1);
        put_name(m, p->key);
        if (d->kind == QR_FD_MODEL) {
            qr_buf_puts(m->out, ": ");
            qr_buf_append(m->out, p->raw, p->rawn);
        } else if (d->kind == QR_FD_SCHEMA) {
            qr_buf_puts(m->out, ": ");
            type(m, p->type);
        } else if (p->raw) { /* description */
            qr_buf_putc(m->out, ' ');
            qr_buf_append(m->out, p->raw, p->rawn);
        } else {
            for (size_t k = 0; k < p->nnames; k++) {
                qr_buf_puts(m->out, k ? ", " : " ");
                put_name(m, p->names[k]);
            }
        }
        end_line(m, p->line, p->line);
    }
    m->block_start = false;
}

static void decl(fmt *m, const qr_flow_decl *d)
{
    qr_buf *o = m->out;
    switch (d->kind) {
    case QR_FD_MODEL:
        qr_buf_puts(o, "model ");
        put_name(m, d->name);
        if (d->block) {
            qr_buf_putc(o, ':');
            end_line(m, d->pos.line, d->pos.line);
            props(m, d);
        } else {
            qr_buf_puts(o, " = ");
            qr_buf_append(o, d->raw, d->rawn);
            end_line(m, d->pos.line, d->end_line);
        }
        return;
    case QR_FD_TOOL:
        qr_buf_puts(o, "tool ");
        put_name(m, d->name);
        qr_buf_puts(o, d->mcp ? " = mcp " : " = builtin ");
        qr_buf_append(o, d->raw, d->rawn);
        if (d->auth_raw) {
            qr_buf_puts(o, " with auth bearer ");
            qr_buf_append(o, d->auth_raw, d->auth_rawn);
        }
        end_line(m, d->pos.line, d->end_line);
        return;
    case QR_FD_SCHEMA:
        qr_buf_puts(o, "schema ");
        put_name(m, d->name);
        qr_buf_putc(o, ':');
        end_line(m, d->pos.line, d->pos.line);
        props(m, d);
        return;
    case QR_FD_PROMPT:
        qr_buf_puts(o, "prompt ");
        put_name(m, d->name);
        for (size_t i = 0; i < d->nprops; i++) {
            const qr_flow_prop *p = &d->props[i];
            if (flow_name_eq(p->key, "expecting", 9)) {
                qr_buf_puts(o, " expecting ");
                put_name(m, p->names[0]);
                if (p->list)
                    qr_buf_puts(o, "[]");
            } else {
                qr_buf_puts(o, " using model ");
                qr_buf_json_string(o, p->names[0].s, p->names[0].n);
            }
        }
        if (d->has_body) {
            qr_buf_puts(o, ": ");
            qr_buf_append(o, d->body_raw, d->body_rawn);
        }
        /* comments on the declaration's first line, and on the body's last */
        end_line(m, d->pos.line, d->end_line);
        return;
    case QR_FD_AGENT:
        qr_buf_puts(o, "agent");
        if (d->name.n) {
            qr_buf_putc(o, ' ');
            put_name(m, d->name);
        }
        qr_buf_putc(o, ':');
        end_line(m, d->pos.line, d->pos.line);
        props(m, d);
        return;
    case QR_FD_FLOW:
        qr_buf_puts(o, "flow ");
        put_name(m, d->name);
        qr_buf_putc(o, ':');
        end_line(m, d->pos.line, d->pos.line);
        block(m, d->stmts, d->nstmts, 1, m->next_line);
        return;
    }
}

int qr_flow_format(const qr_flow_file *f, qr_buf *out)
{
    fmt m;
    memset(&m, 0, sizeof m);
    m.f = f;
    m.out = out;
    m.block_start = true;
    if (f->header) {
        comments_before(&m, f->header_line, 0, false);
        qr_buf_append(out, f->header, f->headern);
        end_line(&m, f->header_line, f->header_line);
    }
    const qr_flow_decl *prev = NULL;
    for (size_t i = 0; i < f->ndecls; i++) {
        const qr_flow_decl *d = f->decls[i];
        bool force = (prev && (is_block(prev) || is_block(d))) || (!prev && f->header);
        comments_before(&m, d->pos.line, 0, force);
        m.next_line = i + 1 < f->ndecls ? f->decls[i + 1]->pos.line : UINT32_MAX;
        decl(&m, d);
        prev = d;
    }
    if (m.ci < f->ncomments) {
        /* comments after the last declaration: keep the blank line before them */
        uint32_t first = f->comments[m.ci].line;
        comments_before(&m, first, 0, prev && is_block(prev));
        m.last = 0;
        while (m.ci < f->ncomments) {
            const qr_flow_comment *c = &f->comments[m.ci++];
            if (m.last && blank_between(&m, m.last, c->line))
                qr_buf_putc(out, '\n');
            qr_buf_append(out, c->s, c->n);
            qr_buf_putc(out, '\n');
            m.last = c->line;
        }
    }
    return out->failed ? QR_ENOMEM : QR_OK;
}
