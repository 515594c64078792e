/*
 * parse.c: the workflow language's parser: recursive descent over lex.c's tokens into
 * the tree of quarry/flow.h, allocated from one arena.
 *
 * Keywords are soft (a variable may be called `filter` or `on`): a word is a keyword
 * only where the grammar expects one and the next token agrees (`run agent`, `call llm`,
 * an assignment is a name followed by '=' or '.'). Constructs of other dialects (`match`,
 * `loop`, `on ... do`, policies...) get "unsupported construct 'match'" at their position
 * instead of a generic syntax error.
 *
 * Recovery: an error inside a declaration or a statement is reported (E0007) and the
 * parser skips to the end of that line and past any block it opens, then goes on, so one
 * run reports every independent error. Nesting is bounded (FLOW_MAX_NEST) for blocks and
 * for expressions, so no input can exhaust the C stack.
 */
#include "flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    flow_lex lx;
    flow_tok tok, peek;
    bool has_peek;
    int level; /* INDENTs consumed minus DEDENTs */
    int depth; /* expression / block nesting */
    bool failed; /* the current statement or declaration had an error */
    qr_arena *a;
    qr_flow_diags *d;
} parser;

static void advance(parser *p)
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

static const flow_tok *peek(parser *p)
{
    if (!p->has_peek) {
        p->peek = flow_lex_next(&p->lx);
        p->has_peek = true;
    }
    return &p->peek;
}

static bool is_word(const flow_tok *t, const char *w)
{
    return t->kind == T_NAME && !t->dollar && t->n == strlen(w) && !memcmp(t->s, w, t->n);
}

static bool is_op(const flow_tok *t, const char *op)
{
    return t->kind == T_OP && t->n == strlen(op) && !memcmp(t->s, op, t->n);
}

static const char *tok_desc(const flow_tok *t, char *buf, size_t cap)
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

static void error_at(parser *p, const flow_tok *t, const char *help, const char *what)
{
    if (p->failed)
        return;
    p->failed = true;
    char buf[64];
    qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", t->line, t->col, t->len, help,
                     "syntax error: expected %s, found %s", what, tok_desc(t, buf, sizeof buf));
}

static void unsupported(parser *p, const flow_tok *t, const char *help)
{
    if (p->failed)
        return;
    p->failed = true;
    qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", t->line, t->col, t->len, help,
                     "unsupported construct '%.*s'", (int)t->n, t->s);
}

static qr_flow_name name_of(const flow_tok *t)
{
    qr_flow_name n;
    n.s = t->s;
    n.n = t->n;
    n.pos.line = t->line;
    n.pos.col = t->col;
    n.pos.len = t->len;
    return n;
}

static qr_flow_pos pos_of(const flow_tok *t)
{
    qr_flow_pos q = {t->line, t->col, t->len};
    return q;
}

/* Skips to the end of the current line at this level, and past any block it opens. */
static void sync_line(parser *p)
{
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

static bool expect_op(parser *p, const char *op, const char *what)
{
    if (is_op(&p->tok, op)) {
        advance(p);
        return true;
    }
    error_at(p, &p->tok, NULL, what);
    return false;
}

static bool expect_nl(parser *p)
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

static bool expect_name(parser *p, const char *what, qr_flow_name *out)
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

static bool vpush(parser *p, vec *v, void *x)
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

static void *znew(parser *p, size_t n)
{
    return qr_arena_zalloc(p->a, n);
}

/* ---- expressions ---- */
static qr_flow_expr *parse_expr(parser *p);
static qr_flow_expr *flow_parse_additive(parser *p);

/* Words that continue an expression or a statement, so `run` before one is a variable. */
static bool is_continuation(const flow_tok *t)
{
    static const char *const words[] = {"contains", "and", "or", "where", "do", "to", "in",
                                        "with", "using", "not", NULL};
    for (int i = 0; words[i]; i++)
        if (is_word(t, words[i]))
            return true;
    return false;
}

/* Whether t can start an operand (so that a soft keyword before it is a keyword). */
static bool starts_operand(const flow_tok *t)
{
    if (t->kind == T_NAME || t->kind == T_NUM || t->kind == T_STR)
        return true;
    return is_op(t, "(") || is_op(t, "[") || is_op(t, "{") || is_op(t, "-") || is_op(t, ".");
}

/* Skips an unexpected indented block: the current token is its INDENT. */
static void skip_indented(parser *p)
{
    int in = p->level;
    advance(p);
    while (p->tok.kind != T_EOF && !(p->tok.kind == T_DEDENT && p->level == in + 1))
        advance(p);
    if (p->tok.kind == T_DEDENT)
        advance(p);
}

static qr_flow_expr *mkexpr(parser *p, qr_flow_expr_kind k, const flow_tok *t)
{
    qr_flow_expr *e = znew(p, sizeof *e);
    if (!e)
        return NULL;
    e->kind = k;
    e->pos = pos_of(t);
    return e;
}

static bool enter(parser *p)
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

/* An invocation after `run` or `call`: the current token is the verb. */
static qr_flow_expr *parse_invoke(parser *p)
{
    flow_tok verb = p->tok;
    advance(p);
    qr_flow_expr *e;
    if (is_word(&verb, "call")) {
        advance(p); /* llm */
        e = mkexpr(p, QR_FX_CALL_LLM, &verb);
        if (!e || !expect_name(p, "a prompt name after 'call llm'", &e->name))
            return NULL;
    } else if (is_word(&p->tok, "agent") && peek(p)->kind == T_NAME) {
        advance(p);
        e = mkexpr(p, QR_FX_RUN_AGENT, &verb);
        if (!e || !expect_name(p, "an agent name after 'run agent'", &e->name))
            return NULL;
    } else {
        e = mkexpr(p, QR_FX_RUN_FLOW, &verb);
        if (!e || !expect_name(p, "a flow name, or 'agent NAME', after 'run'", &e->name))
            return NULL;
    }
    if (is_word(&p->tok, "with")) {
        advance(p);
        e->a = parse_expr(p);
        if (!e->a)
            return NULL;
    }
    if (e->kind == QR_FX_CALL_LLM && is_word(&p->tok, "using")) {
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
        e->model = name_of(&p->tok);
        if (p->tok.kind == T_STR) {
            const char *s;
            size_t n;
            if (!flow_str_decode(p->a, &p->tok, &s, &n))
                return NULL;
            e->model.s = s;
            e->model.n = (uint32_t)n;
        }
        advance(p);
    }
    return e;
}

static qr_flow_expr *parse_atom(parser *p)
{
    flow_tok t = p->tok;
    qr_flow_expr *e = NULL;
    if (t.kind == T_NUM) {
        e = mkexpr(p, QR_FX_NUMBER, &t);
        if (e) {
            e->raw = t.s;
            e->rawn = t.n;
        }
        advance(p);
    } else if (t.kind == T_STR) {
        e = mkexpr(p, QR_FX_STRING, &t);
        if (!e || !flow_str_decode(p->a, &t, &e->s, &e->n))
            return NULL;
        e->raw = t.s;
        e->rawn = t.n;
        advance(p);
    } else if (t.kind == T_NAME) {
        if (!t.dollar && (is_word(&t, "true") || is_word(&t, "false"))) {
            e = mkexpr(p, QR_FX_BOOL, &t);
            if (e)
                e->op = is_word(&t, "true");
            advance(p);
        } else if (!t.dollar && (is_word(&t, "null") || is_word(&t, "none"))) {
            e = mkexpr(p, QR_FX_NULL, &t);
            advance(p);
        } else if (!t.dollar && (is_word(&t, "run") || is_word(&t, "call")) &&
                   peek(p)->kind == T_NAME && !is_continuation(peek(p)) &&
                   (is_word(&t, "run") || is_word(peek(p), "llm"))) {
            return parse_invoke(p);
        } else if (!t.dollar && is_word(&t, "filter") && starts_operand(peek(p))) {
            advance(p);
            e = mkexpr(p, QR_FX_FILTER, &t);
            if (!e)
                return NULL;
            /* the list: an additive expression, so that `where` ends it */
            e->a = flow_parse_additive(p);
            if (!e->a)
                return NULL;
            if (!is_word(&p->tok, "where")) {
                error_at(p, &p->tok, NULL, "'where' after 'filter LIST'");
                return NULL;
            }
            advance(p);
            e->b = parse_expr(p);
            if (!e->b)
                return NULL;
            return e;
        } else if (!t.dollar && peek(p)->kind == T_OP && is_op(peek(p), "(")) {
            e = mkexpr(p, QR_FX_CALL, &t);
            if (!e)
                return NULL;
            e->name = name_of(&t);
            advance(p);
            advance(p);
            vec args = {0};
            while (!is_op(&p->tok, ")")) {
                qr_flow_expr *x = parse_expr(p);
                if (!x || !vpush(p, &args, x))
                    return NULL;
                if (is_op(&p->tok, ","))
                    advance(p);
                else if (!is_op(&p->tok, ")")) {
                    error_at(p, &p->tok, NULL, "',' or ')' in the arguments");
                    return NULL;
                }
            }
            advance(p);
            e->items = (qr_flow_expr **)args.v;
            e->nitems = args.n;
        } else {
            e = mkexpr(p, QR_FX_NAME, &t);
            if (!e)
                return NULL;
            e->name = name_of(&t);
            e->dollar = t.dollar;
            advance(p);
        }
    } else if (is_op(&t, ".") && peek(p)->kind == T_NAME) {
        /* .field inside filter ... where */
        advance(p);
        e = mkexpr(p, QR_FX_FIELD, &t);
        if (!e)
            return NULL;
        const char *start = p->tok.s;
        const char *end = p->tok.s + p->tok.n;
        advance(p);
        while (is_op(&p->tok, ".") && peek(p)->kind == T_NAME && !peek(p)->dollar) {
            advance(p);
            end = p->tok.s + p->tok.n;
            advance(p);
        }
        e->name.s = start;
        e->name.n = (uint32_t)(end - start);
        e->name.pos = e->pos;
        e->name.pos.len = flow_cp_len(start, (size_t)(end - start)) + 1;
        e->pos.len = e->name.pos.len;
        return e;
    } else if (is_op(&t, "(")) {
        advance(p);
        e = mkexpr(p, QR_FX_PAREN, &t);
        if (!e)
            return NULL;
        e->a = parse_expr(p);
        if (!e->a || !expect_op(p, ")", "')'"))
            return NULL;
    } else if (is_op(&t, "[")) {
        advance(p);
        e = mkexpr(p, QR_FX_LIST, &t);
        if (!e)
            return NULL;
        vec items = {0};
        while (!is_op(&p->tok, "]")) {
            qr_flow_expr *x = parse_expr(p);
            if (!x || !vpush(p, &items, x))
                return NULL;
            if (is_op(&p->tok, ","))
                advance(p);
            else if (!is_op(&p->tok, "]")) {
                error_at(p, &p->tok, NULL, "',' or ']' in the list");
                return NULL;
            }
        }
        advance(p);
        e->items = (qr_flow_expr **)items.v;
        e->nitems = items.n;
    } else if (is_op(&t, "{")) {
        advance(p);
        e = mkexpr(p, QR_FX_OBJECT, &t);
        if (!e)
            return NULL;
        vec vals = {0};
        size_t nkeys = 0, capkeys = 0;
        qr_flow_name *keys = NULL;
        while (!is_op(&p->tok, "}")) {
            qr_flow_name k;
            if (p->tok.kind == T_NAME && !p->tok.dollar) {
                k = name_of(&p->tok);
            } else if (p->tok.kind == T_STR && !p->tok.triple) {
                k = name_of(&p->tok);
            } else {
                error_at(p, &p->tok, NULL, "a key in the object");
                return NULL;
            }
            advance(p);
            if (!expect_op(p, ":", "':' after the key"))
                return NULL;
            qr_flow_expr *x = parse_expr(p);
            if (!x || !vpush(p, &vals, x))
                return NULL;
            if (nkeys == capkeys) {
                size_t nc = capkeys ? capkeys * 2 : 4;
                qr_flow_name *nk = qr_arena_realloc(p->a, keys, capkeys * sizeof *nk,
                                                    nc * sizeof *nk);
                if (!nk)
                    return NULL;
                keys = nk;
                capkeys = nc;
            }
            keys[nkeys++] = k;
            if (is_op(&p->tok, ","))
                advance(p);
            else if (!is_op(&p->tok, "}")) {
                error_at(p, &p->tok, NULL, "',' or '}' in the object");
                return NULL;
            }
        }
        advance(p);
        e->items = (qr_flow_expr **)vals.v;
        e->keys = keys;
        e->nitems = vals.n;
    } else {
        error_at(p, &t, NULL, "an expression");
        return NULL;
    }
    /* property access */
    while (e && is_op(&p->tok, ".") && peek(p)->kind == T_NAME && !peek(p)->dollar) {
        flow_tok dot = p->tok;
        advance(p);
        qr_flow_expr *g = mkexpr(p, QR_FX_GET, &dot);
        if (!g)
            return NULL;
        g->a = e;
        g->name = name_of(&p->tok);
        g->pos = e->pos;
        advance(p);
        e = g;
    }
    return e;
}

static qr_flow_expr *binary(parser *p, const flow_tok *t, int op, qr_flow_expr *a,
                            qr_flow_expr *b)
{
    if (!a || !b)
        return NULL;
    qr_flow_expr *e = mkexpr(p, QR_FX_BINARY, t);
    if (!e)
        return NULL;
    e->op = op;
    e->a = a;
    e->b = b;
    e->pos = a->pos;
    return e;
}

static qr_flow_expr *parse_unary(parser *p)
{
    if (is_op(&p->tok, "-")) {
        flow_tok t = p->tok;
        advance(p);
        if (!enter(p))
            return NULL;
        qr_flow_expr *x = parse_unary(p);
        p->depth--;
        if (!x)
            return NULL;
        qr_flow_expr *e = mkexpr(p, QR_FX_UNARY, &t);
        if (e) {
            e->op = '-';
            e->a = x;
        }
        return e;
    }
    if (!enter(p))
        return NULL;
    qr_flow_expr *e = parse_atom(p);
    p->depth--;
    return e;
}

static qr_flow_expr *parse_mul(parser *p)
{
    qr_flow_expr *e = parse_unary(p);
    while (e && (is_op(&p->tok, "*") || is_op(&p->tok, "/") || is_op(&p->tok, "%"))) {
        flow_tok t = p->tok;
        int op = t.s[0] == '*' ? QR_FOP_MUL : t.s[0] == '/' ? QR_FOP_DIV : QR_FOP_MOD;
        advance(p);
        e = binary(p, &t, op, e, parse_unary(p));
    }
    return e;
}

static qr_flow_expr *flow_parse_additive(parser *p)
{
    qr_flow_expr *e = parse_mul(p);
    while (e && (is_op(&p->tok, "+") || is_op(&p->tok, "-"))) {
        flow_tok t = p->tok;
        advance(p);
        e = binary(p, &t, t.s[0] == '+' ? QR_FOP_ADD : QR_FOP_SUB, e, parse_mul(p));
    }
    return e;
}

static int cmp_op(const flow_tok *t)
{
    static const struct { const char *s; int op; } ops[] = {
        {"==", QR_FOP_EQ}, {"!=", QR_FOP_NE}, {"<", QR_FOP_LT}, {"<=", QR_FOP_LE},
        {">", QR_FOP_GT}, {">=", QR_FOP_GE}, {"~", QR_FOP_NORM_EQ},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (is_op(t, ops[i].s))
            return ops[i].op;
    if (is_word(t, "contains"))
        return QR_FOP_CONTAINS;
    return 0;
}

static qr_flow_expr *parse_cmp(parser *p)
{
    qr_flow_expr *e = flow_parse_additive(p);
    int op;
    while (e && (op = cmp_op(&p->tok))) {
        flow_tok t = p->tok;
        advance(p);
        e = binary(p, &t, op, e, flow_parse_additive(p));
    }
    return e;
}

static qr_flow_expr *parse_not(parser *p)
{
    if (is_word(&p->tok, "not") && starts_operand(peek(p))) {
        flow_tok t = p->tok;
        advance(p);
        if (!enter(p))
            return NULL;
        qr_flow_expr *x = parse_not(p);
        p->depth--;
        if (!x)
            return NULL;
        qr_flow_expr *e = mkexpr(p, QR_FX_UNARY, &t);
        if (e) {
            e->op = 'n';
            e->a = x;
        }
        return e;
    }
    return parse_cmp(p);
}

static qr_flow_expr *parse_and(parser *p)
{
    qr_flow_expr *e = parse_not(p);
    while (e && is_word(&p->tok, "and")) {
        flow_tok t = p->tok;
        advance(p);
        e = binary(p, &t, QR_FOP_AND, e, parse_not(p));
    }
    return e;
}

static qr_flow_expr *parse_expr(parser *p)
{
    if (!enter(p))
        return NULL;
    qr_flow_expr *e = parse_and(p);
    while (e && is_word(&p->tok, "or")) {
        flow_tok t = p->tok;
        advance(p);
        e = binary(p, &t, QR_FOP_OR, e, parse_and(p));
    }
    p->depth--;
    return e;
}

/* ---- statements ---- */
static const struct { const char *word; const char *help; } foreign[] = {
    {"match", "this dialect has no 'match'; use 'if CONDITION:' blocks"},
    {"loop", "this dialect loops with 'for x in LIST do ... end'"},
    {"while", "this dialect loops with 'for x in LIST do ... end'"},
    {"on", "this dialect has no event handlers ('on ... do'); write the steps in a flow"},
    {"policy", "this dialect has no policies; see docs/flow.md for what it has"},
    {"policies", "this dialect has no policies; see docs/flow.md for what it has"},
    {"retry", "retries happen on their own for 'expecting' prompts (at most 3)"},
    {"try", "this dialect has no exception handling; a failing step fails the run"},
    {"escalate", "this dialect has no escalation; return a value and decide in the caller"},
    {"handoff", "use 'delegate' or 'use' on the agent"},
    {"import", "a workflow is one file; this dialect has no imports"},
    {"include", "a workflow is one file; this dialect has no imports"},
    {"guardrail", "this dialect has no guardrails; see docs/flow.md for what it has"},
    {"guardrails", "this dialect has no guardrails; see docs/flow.md for what it has"},
    {"compaction", "this dialect has no compaction policy"},
    {"elif", "write a nested 'if' inside 'else:'"},
    {"format", "prompts are interpolated when used; 'format' is not supported"},
    {NULL, NULL},
};

static const char *foreign_help(const flow_tok *t)
{
    if (t->kind != T_NAME || t->dollar)
        return NULL;
    for (int i = 0; foreign[i].word; i++)
        if (is_word(t, foreign[i].word))
            return foreign[i].help;
    return NULL;
}

static qr_flow_stmt **parse_block(parser *p, size_t *n, bool until_end, uint32_t *last_line,
                                  const flow_tok *opener);

static qr_flow_stmt *mkstmt(parser *p, qr_flow_stmt_kind k, const flow_tok *t)
{
    qr_flow_stmt *s = znew(p, sizeof *s);
    if (!s)
        return NULL;
    s->kind = k;
    s->pos = pos_of(t);
    s->end_line = t->line;
    return s;
}

/* The path a.b.c of an assignment or push target. */
static bool parse_target(parser *p, qr_flow_stmt *s)
{
    vec v = {0};
    for (;;) {
        if (p->tok.kind != T_NAME) {
            error_at(p, &p->tok, NULL, "a variable name");
            return false;
        }
        qr_flow_name *nm = znew(p, sizeof *nm);
        if (!nm)
            return false;
        *nm = name_of(&p->tok);
        if (!vpush(p, &v, nm))
            return false;
        advance(p);
        if (!is_op(&p->tok, "."))
            break;
        advance(p);
    }
    s->target = znew(p, v.n * sizeof *s->target);
    if (!s->target)
        return false;
    for (size_t i = 0; i < v.n; i++)
        s->target[i] = *(qr_flow_name *)v.v[i];
    s->ntarget = v.n;
    return true;
}

static bool is_assignment(parser *p)
{
    if (p->tok.kind != T_NAME)
        return false;
    const flow_tok *n = peek(p);
    return is_op(n, "=") || is_op(n, ".");
}

static qr_flow_stmt *parse_stmt(parser *p)
{
    flow_tok t = p->tok;
    qr_flow_stmt *s = NULL;
    if (is_assignment(p)) {
        s = mkstmt(p, QR_FS_ASSIGN, &t);
        if (!s || !parse_target(p, s) || !expect_op(p, "=", "'=' in the assignment"))
            return NULL;
        s->e = parse_expr(p);
        if (!s->e)
            return NULL;
    } else if (is_word(&t, "for")) {
        advance(p);
        s = mkstmt(p, QR_FS_FOR, &t);
        if (!s)
            return NULL;
        s->target = znew(p, sizeof *s->target);
        if (!s->target || p->tok.kind != T_NAME) {
            error_at(p, &p->tok, NULL, "a variable after 'for'");
            return NULL;
        }
        s->target[0] = name_of(&p->tok);
        s->ntarget = 1;
        advance(p);
        if (!is_word(&p->tok, "in")) {
            error_at(p, &p->tok, NULL, "'in' after 'for VARIABLE'");
            return NULL;
        }
        advance(p);
        s->e = parse_expr(p);
        if (!s->e)
            return NULL;
        if (!is_word(&p->tok, "do")) {
            error_at(p, &p->tok, "write 'for x in LIST do', then the body, then 'end'",
                     "'do' after 'for x in LIST'");
            return NULL;
        }
        advance(p);
        s->body = parse_block(p, &s->nbody, true, &s->end_kw_line, &t);
        if (!s->body && p->failed)
            return NULL;
        s->end_line = s->end_kw_line;
        return s;
    } else if (is_word(&t, "parallel") && is_word(peek(p), "do")) {
        advance(p);
        advance(p);
        s = mkstmt(p, QR_FS_PARALLEL, &t);
        if (!s)
            return NULL;
        s->body = parse_block(p, &s->nbody, true, &s->end_kw_line, &t);
        if (!s->body && p->failed)
            return NULL;
        s->end_line = s->end_kw_line;
        return s;
    } else if (is_word(&t, "if")) {
        advance(p);
        s = mkstmt(p, QR_FS_IF, &t);
        if (!s)
            return NULL;
        s->e = parse_expr(p);
        if (!s->e)
            return NULL;
        if (!is_op(&p->tok, ":")) {
            error_at(p, &p->tok, "write 'if CONDITION:' and the block indented below",
                     "':' after the condition");
            return NULL;
        }
        advance(p);
        s->body = parse_block(p, &s->nbody, false, &s->end_kw_line, &t);
        if (!s->body && p->failed)
            return NULL;
        s->end_line = s->end_kw_line;
        if (is_word(&p->tok, "else") && peek(p)->kind == T_OP && is_op(peek(p), ":")) {
            flow_tok e = p->tok;
            advance(p);
            advance(p);
            s->orelse = parse_block(p, &s->norelse, false, &s->end_line, &e);
            if (!s->orelse && p->failed)
                return NULL;
        }
        return s;
    } else if (is_word(&t, "push")) {
        advance(p);
        s = mkstmt(p, QR_FS_PUSH, &t);
        if (!s)
            return NULL;
        s->e = parse_expr(p);
        if (!s->e)
            return NULL;
        if (!is_word(&p->tok, "to")) {
            error_at(p, &p->tok, NULL, "'to' after 'push VALUE'");
            return NULL;
        }
        advance(p);
        if (!parse_target(p, s))
            return NULL;
    } else if (is_word(&t, "return")) {
        advance(p);
        s = mkstmt(p, QR_FS_RETURN, &t);
        if (!s)
            return NULL;
        if (p->tok.kind != T_NL && p->tok.kind != T_EOF && p->tok.kind != T_DEDENT) {
            s->e = parse_expr(p);
            if (!s->e)
                return NULL;
        }
    } else if (is_word(&t, "log")) {
        advance(p);
        s = mkstmt(p, QR_FS_LOG, &t);
        if (!s)
            return NULL;
        s->e = parse_expr(p);
        if (!s->e)
            return NULL;
    } else if ((is_word(&t, "run") && peek(p)->kind == T_NAME && !is_continuation(peek(p))) ||
               (is_word(&t, "call") && is_word(peek(p), "llm"))) {
        s = mkstmt(p, QR_FS_EXPR, &t);
        if (!s)
            return NULL;
        s->e = parse_invoke(p);
        if (!s->e)
            return NULL;
    } else if (foreign_help(&t)) {
        unsupported(p, &t, foreign_help(&t));
        /* `on EVENT do ... end`, `loop do ... end`: skip the body and its `end` too */
        flow_tok last = t;
        while (p->tok.kind != T_NL && p->tok.kind != T_EOF && p->tok.kind != T_DEDENT) {
            last = p->tok;
            advance(p);
        }
        if (is_word(&last, "do") && p->tok.kind == T_NL) {
            advance(p);
            if (p->tok.kind == T_INDENT)
                skip_indented(p);
            if (is_word(&p->tok, "end")) {
                advance(p);
            }
        }
        return NULL;
    } else {
        error_at(p, &t,
                 "statements are assignments, run, call llm, for, if, parallel, push, "
                 "return and log",
                 "a statement");
        return NULL;
    }
    s->end_line = p->tok.line;
    if (p->tok.kind == T_NL || p->tok.kind == T_EOF)
        s->end_line = p->tok.line;
    if (!expect_nl(p))
        return NULL;
    return s;
}

/* A block after ':' or 'do': NL, INDENT, statements, DEDENT (then 'end' when until_end).
 * Returns the statements (NULL with *n == 0 when empty or on error: p->failed tells). */
static qr_flow_stmt **parse_block(parser *p, size_t *n, bool until_end, uint32_t *last_line,
                                  const flow_tok *opener)
{
    *n = 0;
    if (p->tok.kind != T_NL) {
        error_at(p, &p->tok, NULL, "end of line before the block");
        return NULL;
    }
    advance(p);
    bool indented = p->tok.kind == T_INDENT;
    if (!indented && !until_end) {
        error_at(p, &p->tok, "indent the block's lines under its first line",
                 "an indented block");
        return NULL;
    }
    if (!enter(p))
        return NULL;
    int level = p->level;
    if (indented) {
        advance(p);
        level = p->level;
    }
    vec v = {0};
    *last_line = opener->line;
    for (;;) {
        if (p->tok.kind == T_EOF || p->tok.kind == T_DEDENT)
            break;
        if (!indented && is_word(&p->tok, "end"))
            break;
        if (p->tok.kind == T_INDENT) {
            flow_tok t = p->tok;
            qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0008", t.line, 1, t.col > 1 ? t.col - 1 : 1,
                             "indent a line only after one that opens a block",
                             "unexpected indentation");
            skip_indented(p);
            continue;
        }
        p->failed = false;
        qr_flow_stmt *s = parse_stmt(p);
        if (!s) {
            if (p->lx.a->exhausted) {
                p->depth--;
                return NULL;
            }
            sync_line(p);
            p->failed = false;
            continue;
        }
        *last_line = s->end_line;
        vpush(p, &v, s);
    }
    if (indented && p->tok.kind == T_DEDENT && p->level == level)
        advance(p);
    p->depth--;
    if (until_end) {
        if (is_word(&p->tok, "end")) {
            *last_line = p->tok.line;
            advance(p);
            p->failed = false;
            expect_nl(p);
        } else {
            char what[80];
            snprintf(what, sizeof what, "'end' to close the '%.*s' of line %u",
                     (int)opener->n, opener->s, opener->line);
            p->failed = false;
            error_at(p, &p->tok, "close the block with 'end' at the indentation of its first line",
                     what);
        }
    }
    *n = v.n;
    if (!v.n)
        return NULL;
    return (qr_flow_stmt **)v.v;
}

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
            at.col = col;
            at.len = n ? flow_cp_len(s, n) : 1;
            error_at(p, &at, "write 'model NAME = PROVIDER/MODEL', e.g. anthropic/claude-sonnet",
                     "PROVIDER/MODEL after '='");
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
    d->stmts = parse_block(p, &d->nstmts, false, &last, &kw);
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
    /* optional `streetrace v1` first line */
    if (is_word(&p.tok, "streetrace") && p.tok.line == 1) {
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
        else if (foreign_help(&t))
            unsupported(&p, &t, foreign_help(&t));
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
