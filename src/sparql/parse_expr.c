/*
 * parse_expr.c: SPARQL expressions (17): operators by precedence, the builtin functions
 * by name with their arities, casts by XSD IRI, calls to unknown IRI functions (an error
 * when evaluated), aggregates (only where the grammar allows them: SELECT expressions,
 * HAVING, ORDER BY; never nested) and EXISTS / NOT EXISTS.
 */
#include "parse_int.h"

#include <stdio.h>
#include <string.h>

/* ---- expressions ---- */
static sq_expr *expr2(parser *p, int op, sq_expr *a, sq_expr *b)
{
    sq_expr *e = sqp_expr_new(p, op);
    e->args = sqp_pa(p, 2 * sizeof(sq_expr *));
    e->args[0] = a;
    e->args[1] = b;
    e->nargs = 2;
    return e;
}

typedef struct fn_def {
    const char *name;
    int fn;
    int min, max; /* max -1: any */
} fn_def;

static const fn_def fns[] = {
    {"STR", F_STR, 1, 1}, {"LANG", F_LANG, 1, 1}, {"LANGMATCHES", F_LANGMATCHES, 2, 2},
    {"DATATYPE", F_DATATYPE, 1, 1}, {"BOUND", F_BOUND, 1, 1}, {"IRI", F_IRI, 1, 1},
    {"URI", F_IRI, 1, 1}, {"BNODE", F_BNODE, 0, 1}, {"RAND", F_RAND, 0, 0},
    {"ABS", F_ABS, 1, 1}, {"CEIL", F_CEIL, 1, 1}, {"FLOOR", F_FLOOR, 1, 1},
    {"ROUND", F_ROUND, 1, 1}, {"CONCAT", F_CONCAT, 0, -1}, {"SUBSTR", F_SUBSTR, 2, 3},
    {"STRLEN", F_STRLEN, 1, 1}, {"REPLACE", F_REPLACE, 3, 4}, {"UCASE", F_UCASE, 1, 1},
    {"LCASE", F_LCASE, 1, 1}, {"ENCODE_FOR_URI", F_ENCODE_FOR_URI, 1, 1},
    {"CONTAINS", F_CONTAINS, 2, 2}, {"STRSTARTS", F_STRSTARTS, 2, 2},
    {"STRENDS", F_STRENDS, 2, 2}, {"STRBEFORE", F_STRBEFORE, 2, 2},
    {"STRAFTER", F_STRAFTER, 2, 2}, {"YEAR", F_YEAR, 1, 1}, {"MONTH", F_MONTH, 1, 1},
    {"DAY", F_DAY, 1, 1}, {"HOURS", F_HOURS, 1, 1}, {"MINUTES", F_MINUTES, 1, 1},
    {"SECONDS", F_SECONDS, 1, 1}, {"TIMEZONE", F_TIMEZONE, 1, 1}, {"TZ", F_TZ, 1, 1},
    {"NOW", F_NOW, 0, 0}, {"UUID", F_UUID, 0, 0}, {"STRUUID", F_STRUUID, 0, 0},
    {"MD5", F_MD5, 1, 1}, {"SHA1", F_SHA1, 1, 1}, {"SHA256", F_SHA256, 1, 1},
    {"SHA384", F_SHA384, 1, 1}, {"SHA512", F_SHA512, 1, 1}, {"COALESCE", F_COALESCE, 0, -1},
    {"IF", F_IF, 3, 3}, {"STRLANG", F_STRLANG, 2, 2}, {"STRDT", F_STRDT, 2, 2},
    {"sameTerm", F_SAMETERM, 2, 2}, {"isIRI", F_ISIRI, 1, 1}, {"isURI", F_ISIRI, 1, 1},
    {"isBLANK", F_ISBLANK, 1, 1}, {"isLITERAL", F_ISLITERAL, 1, 1},
    {"isNUMERIC", F_ISNUMERIC, 1, 1}, {"REGEX", F_REGEX, 2, 3},
};

static const char *const agg_names[] = {"COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE",
                                        "GROUP_CONCAT"};

static sq_expr *parse_arglist(parser *p, sq_expr *e, int min, int max, const char *name)
{
    size_t at = p->tok.at;
    sq_expr **args = NULL;
    size_t n = 0, cap = 0;
    if (!sqp_accept(p, T_NIL)) {
        sqp_expect(p, '(');
        if (p->tok.kind != ')') {
            for (;;) {
                args = sqp_grow(p, args, &cap, n, sizeof *args);
                args[n++] = sqp_parse_expr(p);
                if (!sqp_accept(p, ','))
                    break;
            }
        }
        sqp_expect(p, ')');
    }
    if ((int)n < min || (max >= 0 && (int)n > max)) {
        if (min == max)
            sqp_fail_at(p, at, "function '%s' takes %d argument%s, got %zu", name, min,
                    min == 1 ? "" : "s", n);
        sqp_fail_at(p, at, "function '%s' takes %d to %d arguments, got %zu", name, min, max, n);
    }
    e->args = args;
    e->nargs = n;
    return e;
}

static sq_expr *parse_aggregate(parser *p, int fn)
{
    size_t at = p->tok.at;
    if (!p->agg_sel || p->in_agg)
        sqp_fail_at(p, at, "aggregate '%s' is not allowed here: aggregates go in SELECT "
                       "expressions, HAVING and ORDER BY, and do not nest",
                agg_names[fn]);
    sqp_next(p);
    sq_agg g = {0};
    g.fn = fn;
    sqp_expect(p, '(');
    if (sqp_accept_word(p, "DISTINCT"))
        g.distinct = true;
    p->in_agg = true;
    if (fn == AG_COUNT && sqp_accept(p, '*')) {
        g.star = true;
    } else {
        g.arg = sqp_parse_expr(p);
    }
    if (fn == AG_GROUP_CONCAT && sqp_accept(p, ';')) {
        sqp_expect_word(p, "SEPARATOR");
        sqp_expect(p, '=');
        if (p->tok.kind != T_STR)
            sqp_unexpected(p, "a string after SEPARATOR =");
        size_t n;
        g.sep = sqp_unescape_string(p, p->tok.s, p->tok.len, &n);
        sqp_next(p);
    }
    p->in_agg = false;
    sqp_expect(p, ')');
    sq_select *s = p->agg_sel;
    size_t cap = s->naggs; /* grows one at a time: aggregates are few */
    sq_agg *na = sqp_pa(p, (cap + 1) * sizeof *na);
    if (s->naggs)
        memcpy(na, s->aggs, s->naggs * sizeof *na);
    na[s->naggs] = g;
    s->aggs = na;
    sq_expr *e = sqp_expr_new(p, E_AGG);
    e->agg = (int)s->naggs++;
    s->grouped = true;
    return e;
}

sq_expr *sqp_parse_primary(parser *p)
{
    sq_expr *e;
    if (sqp_accept(p, '(')) {
        e = sqp_parse_expr(p);
        sqp_expect(p, ')');
        return e;
    }
    if (p->tok.kind == T_VAR) {
        e = sqp_expr_new(p, E_VAR);
        e->var = sqp_var_index(p, p->tok.s, p->tok.len);
        sqp_next(p);
        return e;
    }
    if (sqp_at_iri(p)) {
        const char *iri = sqp_iri_of_token(p);
        if (p->tok.kind == '(' || p->tok.kind == T_NIL) {
            bool cast = !strncmp(iri, XSD, strlen(XSD)) &&
                        (!strcmp(iri + strlen(XSD), "string") ||
                         !strcmp(iri + strlen(XSD), "integer") ||
                         !strcmp(iri + strlen(XSD), "decimal") ||
                         !strcmp(iri + strlen(XSD), "float") ||
                         !strcmp(iri + strlen(XSD), "double") ||
                         !strcmp(iri + strlen(XSD), "boolean") ||
                         !strcmp(iri + strlen(XSD), "dateTime"));
            e = sqp_expr_new(p, cast ? E_CAST : E_CALL);
            e->t = sqp_iri_term(iri);
            if (!cast && sqp_accept(p, T_NIL))
                return e;
            if (!cast) {
                sqp_expect(p, '(');
                sqp_accept_word(p, "DISTINCT");
                sq_expr **args = NULL;
                size_t n = 0, cap = 0;
                if (p->tok.kind != ')')
                    for (;;) {
                        args = sqp_grow(p, args, &cap, n, sizeof *args);
                        args[n++] = sqp_parse_expr(p);
                        if (!sqp_accept(p, ','))
                            break;
                    }
                sqp_expect(p, ')');
                e->args = args;
                e->nargs = n;
                return e;
            }
            return parse_arglist(p, e, 1, 1, iri);
        }
        e = sqp_expr_new(p, E_CONST);
        e->t = sqp_iri_term(iri);
        return e;
    }
    sq_term t;
    if (p->tok.kind != '+' && p->tok.kind != '-' && sqp_parse_constant(p, &t)) {
        e = sqp_expr_new(p, E_CONST);
        e->t = t;
        return e;
    }
    if (p->tok.kind == T_WORD) {
        size_t at = p->tok.at;
        if (sqp_is_word(p, "NOT")) {
            sqp_next(p);
            if (!sqp_is_word(p, "EXISTS"))
                sqp_unexpected(p, "EXISTS after NOT");
        }
        bool negated = at != p->tok.at;
        if (sqp_accept_word(p, "EXISTS")) {
            e = sqp_expr_new(p, negated ? E_NOTEXISTS : E_EXISTS);
            sq_select *save = p->agg_sel;
            p->agg_sel = NULL;
            e->pat = sqp_parse_group(p);
            p->agg_sel = save;
            return e;
        }
        for (int i = 0; i < (int)(sizeof agg_names / sizeof agg_names[0]); i++)
            if (sqp_is_word(p, agg_names[i]))
                return parse_aggregate(p, i);
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            if (sqp_is_word(p, fns[i].name)) {
                sqp_next(p);
                e = sqp_expr_new(p, E_FUNC);
                e->fn = fns[i].fn;
                if (e->fn == F_BOUND) {
                    sqp_expect(p, '(');
                    if (p->tok.kind != T_VAR)
                        sqp_unexpected(p, "a variable in BOUND()");
                    sq_expr *v = sqp_expr_new(p, E_VAR);
                    v->var = sqp_var_index(p, p->tok.s, p->tok.len);
                    sqp_next(p);
                    sqp_expect(p, ')');
                    e->args = sqp_pa(p, sizeof(sq_expr *));
                    e->args[0] = v;
                    e->nargs = 1;
                    return e;
                }
                return parse_arglist(p, e, fns[i].min, fns[i].max, fns[i].name);
            }
        }
    }
    sqp_unexpected(p, "an expression");
}

static sq_expr *parse_unary(parser *p)
{
    sqp_enter(p);
    sq_expr *e;
    if (sqp_accept(p, '!')) {
        e = sqp_expr_new(p, E_NOT);
        e->args = sqp_pa(p, sizeof(sq_expr *));
        e->args[0] = parse_unary(p);
        e->nargs = 1;
    } else if (p->tok.kind == '-' || p->tok.kind == '+') {
        int op = p->tok.kind == '-' ? E_NEG : E_POS;
        sqp_next(p);
        e = sqp_expr_new(p, op);
        e->args = sqp_pa(p, sizeof(sq_expr *));
        e->args[0] = parse_unary(p);
        e->nargs = 1;
    } else {
        e = sqp_parse_primary(p);
    }
    p->depth--;
    return e;
}

/* One left-associative level: operands from `sub`, tokens t1/t2 for ops op1/op2. A chain
 * is one E_ARITH node holding all its operands, not a left-deep tree: a 20K-term `1+1+...`
 * would make every walker (the evaluator, the grouping check) recurse 20K frames deep. */
static sq_expr *binary_level(parser *p, sq_expr *(*sub)(parser *), int t1, int op1, int t2,
                             int op2)
{
    sq_expr *e = sub(p);
    if (p->tok.kind != t1 && p->tok.kind != t2)
        return e;
    sq_expr **args = NULL;
    unsigned char *ops = NULL;
    size_t n = 0, cap = 0, cap2 = 0;
    args = sqp_grow(p, args, &cap, n, sizeof *args);
    ops = sqp_grow(p, ops, &cap2, n, sizeof *ops);
    args[n] = e;
    ops[n++] = 0;
    while (p->tok.kind == t1 || p->tok.kind == t2) {
        int op = p->tok.kind == t1 ? op1 : op2;
        sqp_next(p);
        sq_expr *b = sub(p);
        args = sqp_grow(p, args, &cap, n, sizeof *args);
        ops = sqp_grow(p, ops, &cap2, n, sizeof *ops);
        args[n] = b;
        ops[n++] = (unsigned char)op;
    }
    sq_expr *chain = sqp_expr_new(p, E_ARITH);
    chain->args = args;
    chain->ops = ops;
    chain->nargs = n;
    return chain;
}

/* `a || b || c` and `a && b && c` as one node with all operands (see binary_level) */
static sq_expr *logic_level(parser *p, sq_expr *(*sub)(parser *), int tok, int op)
{
    sq_expr *e = sub(p);
    if (p->tok.kind != tok)
        return e;
    sq_expr **args = NULL;
    size_t n = 0, cap = 0;
    args = sqp_grow(p, args, &cap, n, sizeof *args);
    args[n++] = e;
    while (sqp_accept(p, tok)) {
        sq_expr *b = sub(p);
        args = sqp_grow(p, args, &cap, n, sizeof *args);
        args[n++] = b;
    }
    sq_expr *chain = sqp_expr_new(p, op);
    chain->args = args;
    chain->nargs = n;
    return chain;
}

static sq_expr *parse_mul(parser *p)
{
    return binary_level(p, parse_unary, '*', E_MUL, '/', E_DIV);
}

static sq_expr *parse_add(parser *p)
{
    return binary_level(p, parse_mul, '+', E_ADD, '-', E_SUB);
}

static sq_expr *parse_relational(parser *p)
{
    sq_expr *e = parse_add(p);
    int op = -1;
    switch (p->tok.kind) {
    case '=': op = E_EQ; break;
    case T_NE: op = E_NE; break;
    case '<': op = E_LT; break;
    case '>': op = E_GT; break;
    case T_LE: op = E_LE; break;
    case T_GE: op = E_GE; break;
    default: break;
    }
    if (op >= 0) {
        sqp_next(p);
        return expr2(p, op, e, parse_add(p));
    }
    bool neg = false;
    if (sqp_is_word(p, "NOT")) {
        sqp_next(p);
        if (!sqp_is_word(p, "IN"))
            sqp_unexpected(p, "IN after NOT");
        neg = true;
    }
    if (sqp_accept_word(p, "IN")) {
        sq_expr *in = sqp_expr_new(p, neg ? E_NOTIN : E_IN);
        sq_expr **args = sqp_pa(p, sizeof *args);
        size_t n = 1, cap = 1;
        args[0] = e;
        if (!sqp_accept(p, T_NIL)) {
            sqp_expect(p, '(');
            for (;;) {
                args = sqp_grow(p, args, &cap, n, sizeof *args);
                args[n++] = sqp_parse_expr(p);
                if (!sqp_accept(p, ','))
                    break;
            }
            sqp_expect(p, ')');
        }
        in->args = args;
        in->nargs = n;
        return in;
    }
    return e;
}

static sq_expr *parse_and(parser *p)
{
    return logic_level(p, parse_relational, T_AND, E_AND);
}

sq_expr *sqp_parse_expr(parser *p)
{
    sqp_enter(p);
    sq_expr *e = logic_level(p, parse_and, T_OR, E_OR);
    p->depth--;
    return e;
}

/* Constraint: BrackettedExpression | BuiltInCall | FunctionCall */
sq_expr *sqp_parse_constraint(parser *p)
{
    if (p->tok.kind == '(' || p->tok.kind == T_WORD || sqp_at_iri(p))
        return sqp_parse_primary(p);
    sqp_unexpected(p, "a bracketted expression or a function call");
}

