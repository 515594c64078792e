/*
 * parse.c: the workflow language's parser: recursive descent over lex.c's tokens into
 * the tree of quarry/flow.h, allocated from one arena. This file holds expressions,
 * statements and blocks; parse_decl.c the declarations and the file; parse_int.h what
 * they share.
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
#include "parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- expressions ---- */
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


static qr_flow_expr *mkexpr(parser *p, qr_flow_expr_kind k, const flow_tok *t)
{
    qr_flow_expr *e = znew(p, sizeof *e);
    if (!e)
        return NULL;
    e->kind = k;
    e->pos = pos_of(t);
    e->height = 1;
    return e;
}

/* Sets e's height from its operands' once they are attached. Chains of operators and of
 * `.field` are built in loops, not by recursion, so brackets (FLOW_MAX_NEST) do not bound
 * them: the height does, for every walk of the tree (checker, formatter, runtime). */
static qr_flow_expr *sized(parser *p, qr_flow_expr *e)
{
    if (!e)
        return NULL;
    uint32_t h = 0;
    if (e->a && e->a->height > h)
        h = e->a->height;
    if (e->b && e->b->height > h)
        h = e->b->height;
    for (size_t i = 0; i < e->nitems; i++)
        if (e->items[i] && e->items[i]->height > h)
            h = e->items[i]->height;
    e->height = h + 1;
    if (e->height > QR_FLOW_MAX_EXPR_HEIGHT) {
        if (!p->failed) {
            p->failed = true;
            qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", e->pos.line, e->pos.col, e->pos.len,
                             "split it: assign parts to variables first",
                             "expression nested deeper than %d levels", QR_FLOW_MAX_EXPR_HEIGHT);
        }
        return NULL;
    }
    return e;
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
    } else if (is_word(&p->tok, "agent") && !is_word(&verb, "call") &&
               (peek(p)->kind == T_NL || peek(p)->kind == T_EOF || peek(p)->kind == T_DEDENT ||
                is_word(peek(p), "with"))) {
        advance(p);
        error_at(p, &p->tok, "write 'run agent NAME', NAME an agent of this file",
                 "an agent name after 'run agent'");
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
        e->a = flow_parse_expr(p);
        if (!e->a)
            return NULL;
    }
    if (e->kind == QR_FX_RUN_AGENT && is_word(&p->tok, "history")) {
        unsupported(p, &p->tok, "this dialect has no conversation histories; pass what the "
                                "agent needs with 'with'");
        return NULL;
    }
    if (is_op(&p->tok, ",") && is_word(peek(p), "on")) {
        advance(p);
        unsupported(p, &p->tok, "this dialect has no escalation handlers ('on escalate')");
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
    return sized(p, e);
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
        } else if (!t.dollar && is_word(&t, "initial") && is_word(peek(p), "user")) {
            /* StreetRace's `initial user prompt` */
            if (!p->failed) {
                p->failed = true;
                qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", t.line, t.col, t.len,
                                 "the run's input is the variable input_prompt",
                                 "unsupported construct 'initial user prompt'");
            }
            return NULL;
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
            e->b = flow_parse_expr(p);
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
                qr_flow_expr *x = flow_parse_expr(p);
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
        e->a = flow_parse_expr(p);
        if (!e->a || !expect_op(p, ")", "')'"))
            return NULL;
    } else if (is_op(&t, "[")) {
        advance(p);
        e = mkexpr(p, QR_FX_LIST, &t);
        if (!e)
            return NULL;
        vec items = {0};
        while (!is_op(&p->tok, "]")) {
            qr_flow_expr *x = flow_parse_expr(p);
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
            qr_flow_expr *x = flow_parse_expr(p);
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
    e = sized(p, e);
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
        e = sized(p, g);
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
    return sized(p, e);
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
        return sized(p, e);
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
        return sized(p, e);
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

qr_flow_expr *flow_parse_expr(parser *p)
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
    {"after", "this dialect has no event handlers ('after ... do'); write the steps in a flow"},
    {"timeout", "this dialect has no timeout policies; the run's budget (--max-time-ms) bounds it"},
    {"history", "this dialect has no conversation histories; pass what an agent needs with 'with'"},
    {"notify", "this dialect has no notifications; 'log' writes a line to stderr"},
    {NULL, NULL},
};

/* Reports a construct of another dialect at t (the current token) and skips its line;
 * for `on EVENT do ... end`, `loop do ... end`, `match X` with its cases and `end`, also
 * its body and its `end`, so the `end` is not reported again. Leaves the parser at the
 * end of that line. */
void flow_skip_foreign(parser *p, const flow_tok *t, const char *help)
{
    unsupported(p, t, help);
    flow_tok last = *t;
    while (p->tok.kind != T_NL && p->tok.kind != T_EOF && p->tok.kind != T_DEDENT) {
        last = p->tok;
        advance(p);
    }
    (void)last;
    /* the block the line opens (`do`, `:`, or none as after `match EXPR`), then its `end` */
    bool block = p->tok.kind == T_NL && peek(p)->kind == T_INDENT;
    if (block) {
        advance(p);
        skip_indented(p);
    } else if (is_word(&last, "do") && p->tok.kind == T_NL && is_word(peek(p), "end")) {
        advance(p);
    } else {
        return; /* at the line's end: the caller's sync_line goes on from there */
    }
    if (is_word(&p->tok, "end")) {
        advance(p);
        if (p->tok.kind == T_NL)
            advance(p);
    }
    p->synced = true; /* at the next line already */
}

const char *flow_foreign_help(const flow_tok *t)
{
    if (t->kind != T_NAME || t->dollar)
        return NULL;
    for (int i = 0; foreign[i].word; i++)
        if (is_word(t, foreign[i].word))
            return foreign[i].help;
    return NULL;
}


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
        s->e = flow_parse_expr(p);
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
        s->e = flow_parse_expr(p);
        if (!s->e)
            return NULL;
        if (!is_word(&p->tok, "do")) {
            error_at(p, &p->tok, "write 'for x in LIST do', then the body, then 'end'",
                     "'do' after 'for x in LIST'");
            return NULL;
        }
        advance(p);
        s->body = flow_parse_block(p, &s->nbody, true, &s->end_kw_line, &t);
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
        s->body = flow_parse_block(p, &s->nbody, true, &s->end_kw_line, &t);
        if (!s->body && p->failed)
            return NULL;
        s->end_line = s->end_kw_line;
        return s;
    } else if (is_word(&t, "if")) {
        advance(p);
        s = mkstmt(p, QR_FS_IF, &t);
        if (!s)
            return NULL;
        s->e = flow_parse_expr(p);
        if (!s->e)
            return NULL;
        if (!is_op(&p->tok, ":")) {
            error_at(p, &p->tok, "write 'if CONDITION:' and the block indented below",
                     "':' after the condition");
            return NULL;
        }
        advance(p);
        s->body = flow_parse_block(p, &s->nbody, false, &s->end_kw_line, &t);
        if (!s->body && p->failed)
            return NULL;
        s->end_line = s->end_kw_line;
        if (is_word(&p->tok, "else") && peek(p)->kind == T_OP && is_op(peek(p), ":")) {
            flow_tok e = p->tok;
            advance(p);
            advance(p);
            s->orelse = flow_parse_block(p, &s->norelse, false, &s->end_line, &e);
            if (!s->orelse && p->failed)
                return NULL;
        }
        return s;
    } else if (is_word(&t, "push")) {
        advance(p);
        s = mkstmt(p, QR_FS_PUSH, &t);
        if (!s)
            return NULL;
        s->e = flow_parse_expr(p);
        if (!s->e)
            return NULL;
        if (is_word(&p->tok, "as")) {
            if (!p->failed) {
                p->failed = true;
                qr_flow_diag_add(p->d, QR_FLOW_ERROR, "E0007", p->tok.line, p->tok.col,
                                 p->tok.len, "this dialect has no conversation roles; write "
                                             "'push VALUE to LIST'",
                                 "unsupported construct 'push ... as ROLE'");
            }
            return NULL;
        }
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
            s->e = flow_parse_expr(p);
            if (!s->e)
                return NULL;
        }
    } else if (is_word(&t, "log")) {
        advance(p);
        s = mkstmt(p, QR_FS_LOG, &t);
        if (!s)
            return NULL;
        s->e = flow_parse_expr(p);
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
    } else if (is_word(&t, "parallel") && is_op(peek(p), ":")) {
        advance(p);
        error_at(p, &p->tok, "write 'parallel do', the statements indented below, then 'end'",
                 "'do' after 'parallel'");
        return NULL;
    } else if (flow_foreign_help(&t)) {
        flow_skip_foreign(p, &t, flow_foreign_help(&t));
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
qr_flow_stmt **flow_parse_block(parser *p, size_t *n, bool until_end, uint32_t *last_line,
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

