/*
 * parse_int.h: what the two halves of the workflow language's parser share: the parser's
 * state, the token helpers and error recovery (inline here), and the entry points of
 * parse.c (expressions, statements, blocks) that parse_decl.c (declarations, the file)
 * calls. See parse.c for the design.
 */
#ifndef QUARRY_FLOW_PARSE_INT_H
#define QUARRY_FLOW_PARSE_INT_H

#include "flow_int.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
    flow_lex lx;
    flow_tok tok, peek;
    bool has_peek;
    int level; /* INDENTs consumed minus DEDENTs */
    int depth; /* expression / block nesting */
    bool failed; /* the current statement or declaration had an error */
    bool synced; /* an error's line and block are skipped already: sync_line does nothing */
    qr_arena *a;
    qr_flow_diags *d;
} parser;

static inline void advance(parser *p)
{
    if (p->tok.kind == T_INDENT)
        p->level++;
    else if (p->tok.kind == T_DEDENT)
        p->level--;
    if (p->has_peek) {
        p->tok = p->peek;
        p->has_peek = false;
    } else {
        p->tok = flow_lex_next(&p->lx);
    }
}

static inline const flow_tok *peek(parser *p)
{
    if (!p->has_peek) {
        p->peek = flow_lex_next(&p->lx);
        p->has_peek = true;
    }
    return &p->peek;
}

static inline bool is_word(const flow_tok *t, const char *w)
{
    return t->kind == T_NAME && !t->dollar && t->n == strlen(w) && !memcmp(t->s, w, t->n);
}

static inline bool is_op(const flow_tok *t, const char *op)
{
    return t->kind == T_OP && t->n == strlen(op) && !memcmp(t->s, op, t->n);
}

static inline const char *tok_desc(const flow_tok *t, char *buf, size_t cap)
{
    switch (t->kind) {
    case T_EOF: return "end of input";
    case T_NL: return "end of line";
    case T_INDENT: return "an indented block";
    case T_DEDENT: return "the end of the block";
    case T_STR: return "a string";
    case T_NUM: return "a number";
    default: break;
    }
    size_t n = t->n < 40 ? t->n : 40;
    snprintf(buf, cap, "'%s%.*s'", t->dollar ? "$" : "", (int)n, t->s);
    return buf;
}

static inline void error_at(parser *p, const flow_tok *t, const char *help, const char *what)
{
    if (p->failed)
        return;
    p->failed = true;
    char buf[64];
    qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", t->line, t->col, t->len, help,
                     "syntax error: expected %s, found %s", what, tok_desc(t, buf, sizeof buf));
}

static inline void unsupported(parser *p, const flow_tok *t, const char *help)
{
    if (p->failed)
        return;
    p->failed = true;
    qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", t->line, t->col, t->len, help,
                     "unsupported construct '%.*s'", (int)t->n, t->s);
}

static inline qr_flow_name name_of(const flow_tok *t)
{
    qr_flow_name n;
    n.s = t->s;
    n.n = t->n;
    n.pos.line = t->line;
    n.pos.col = t->col;
    n.pos.len = t->len;
    return n;
}

static inline qr_flow_pos pos_of(const flow_tok *t)
{
    qr_flow_pos q = {t->line, t->col, t->len};
    return q;
}

/* Skips to the end of the current line at this level, and past any block it opens. */
static inline void sync_line(parser *p)
{
    if (p->synced) {
        p->synced = false;
        return;
    }
    int level = p->level;
    while (p->tok.kind != T_EOF) {
        if (p->tok.kind == T_NL && p->level == level) {
            advance(p);
            while (p->tok.kind == T_INDENT) { /* the block the bad line opened */
                int inner = p->level;
                advance(p);
                while (p->tok.kind != T_EOF && !(p->tok.kind == T_DEDENT && p->level == inner + 1))
                    advance(p);
                if (p->tok.kind == T_DEDENT)
                    advance(p);
            }
            return;
        }
        if (p->tok.kind == T_DEDENT && p->level == level)
            return;
        advance(p);
    }
}

static inline bool expect_op(parser *p, const char *op, const char *what)
{
    if (is_op(&p->tok, op)) {
        advance(p);
        return true;
    }
    error_at(p, &p->tok, NULL, what);
    return false;
}

static inline bool expect_nl(parser *p)
{
    if (p->tok.kind == T_NL) {
        advance(p);
        return true;
    }
    if (p->tok.kind == T_EOF || p->tok.kind == T_DEDENT)
        return true;
    error_at(p, &p->tok, NULL, "end of line");
    return false;
}

static inline bool expect_name(parser *p, const char *what, qr_flow_name *out)
{
    if (p->tok.kind == T_NAME && !p->tok.dollar) {
        *out = name_of(&p->tok);
        advance(p);
        return true;
    }
    error_at(p, &p->tok, NULL, what);
    return false;
}

/* ---- growable arrays in the arena ---- */
typedef struct vec {
    void **v;
    size_t n, cap;
} vec;

static inline bool vpush(parser *p, vec *v, void *x)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 4;
        void **nv = qr_arena_realloc(p->a, v->v, v->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv)
            return false;
        v->v = nv;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return true;
}

static inline void *znew(parser *p, size_t n)
{
    return qr_arena_zalloc(p->a, n);
}


/* Skips an unexpected indented block: the current token is its INDENT. */
static inline void skip_indented(parser *p)
{
    int in = p->level;
    advance(p);
    while (p->tok.kind != T_EOF && !(p->tok.kind == T_DEDENT && p->level == in + 1))
        advance(p);
    if (p->tok.kind == T_DEDENT)
        advance(p);
}

static inline bool enter(parser *p)
{
    if (++p->depth > FLOW_MAX_NEST) {
        if (!p->failed) {
            p->failed = true;
            qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", p->tok.line, p->tok.col, p->tok.len,
                             NULL, "nesting too deep (more than %d levels)", FLOW_MAX_NEST);
        }
        p->depth--;
        return false;
    }
    return true;
}

/* ---- parse.c ---- */
qr_flow_expr *flow_parse_expr(parser *p);
/* The help for a construct of another dialect (`match`, `loop`...), or NULL. */
const char *flow_foreign_help(const flow_tok *t);
/* Reports the construct at t as unsupported and skips it (with its `do ... end` body). */
void flow_skip_foreign(parser *p, const flow_tok *t, const char *help);
/* A block after ':' or 'do' (then `end` when until_end); see parse.c. */
qr_flow_stmt **flow_parse_block(parser *p, size_t *n, bool until_end, uint32_t *last_line,
                                const flow_tok *opener);

#endif
