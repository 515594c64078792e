/*
 * parse.c: the SPARQL 1.1 parser. Recursive descent over the whole query and update
 * grammar (W3C SPARQL 1.1 Query, section 19; Update, section 3), producing the algebra
 * of section 18.2 directly: a group's elements are folded into Join, LeftJoin, Minus,
 * Extend and Filter as they are read, triples blocks become basic graph patterns, and
 * blank nodes in patterns become hidden variables.
 *
 * CONSTRUCT, DESCRIBE and every update form are parsed whole (so a broken one is a syntax
 * error) and recorded in the query's form; SERVICE is parsed and flagged. Whether a query
 * may run is decided afterwards from those facts (qr_sparql_check_readonly), never from
 * the first word of the text.
 *
 * Errors unwind with longjmp to qr_sparql_parse: everything is allocated from the query's
 * arena, so nothing leaks. Nesting depth is bounded (SQ_MAX_DEPTH).
 *
 * The parser is split: this file (prologue, patterns, triples, paths, SELECT, entry
 * points), parse_expr.c (expressions), parse_forms.c (the refused forms, parsed whole),
 * iri.c (IRI resolution), lex.c (tokens); parse_int.h holds what they share.
 *
 * Rejected: a parser generator (a build dependency, and its error messages are not ours);
 * checking read-only by keyword search (the anchor's approach, which both over- and
 * under-refuses).
 */
#include "parse_int.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>


void sqp_fail_at(parser *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    qr_utf8_clean(p->err->msg, sizeof p->err->msg);
    p->err->kind = QR_SPARQL_SYNTAX;
    sq_lex_position(&p->L, at, &p->err->line, &p->err->col);
    p->code = QR_EINVAL;
    longjmp(p->jb, 1);
}

void sqp_nomem(parser *p)
{
    snprintf(p->err->msg, sizeof p->err->msg, "out of memory while parsing the query");
    p->err->kind = QR_SPARQL_RUNTIME;
    p->code = QR_ENOMEM;
    longjmp(p->jb, 1);
}

void *sqp_pa(parser *p, size_t n)
{
    void *r = qr_arena_zalloc(p->a, n ? n : 1);
    if (!r)
        sqp_nomem(p);
    return r;
}

char *sqp_pdup(parser *p, const char *s, size_t n)
{
    char *r = qr_arena_strndup(p->a, s, n);
    if (!r)
        sqp_nomem(p);
    return r;
}

/* grows an arena array by doubling */
void *sqp_grow(parser *p, void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap * 2 : 8, bytes;
    if (!qr_size_mul(nc, elem, &bytes))
        sqp_nomem(p);
    void *r = sqp_pa(p, bytes);
    if (arr)
        memcpy(r, arr, *cap * elem);
    *cap = nc;
    return r;
}

/* ---- tokens ---- */
void sqp_next(parser *p)
{
    sqp_tick(p);
    if (sq_lex_next(&p->L, &p->tok) < 0)
        sqp_fail_at(p, p->L.err_at, "%s", p->L.err);
}

static const char *tok_text(parser *p, char *buf, size_t cap)
{
    const sq_token *t = &p->tok;
    if (t->kind == T_EOF)
        return "end of query";
    /* the current token's text: the lexer stands right after it */
    size_t n = p->L.i > t->at ? p->L.i - t->at : 0;
    if (n > cap - 1)
        n = cap - 1;
    if (n)
        memcpy(buf, p->L.s + t->at, n);
    buf[n] = 0;
    return buf;
}

static uint64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void sqp_tick(parser *p)
{
    if (!p->lim || (++p->ticks & 255))
        return;
    if (qr_stop_check(p->lim->stop)) {
        p->code = QR_ESTOPPED;
        p->err->kind = QR_SPARQL_LIMIT;
        snprintf(p->err->msg, sizeof p->err->msg, "the query was stopped while parsing");
        longjmp(p->jb, 1);
    }
    if (p->lim->timeout_ms && mono_ms() - p->t0_ms > p->lim->timeout_ms) {
        p->code = QR_ELIMIT;
        p->err->kind = QR_SPARQL_LIMIT;
        snprintf(p->err->msg, sizeof p->err->msg,
                 "time limit reached (%llu ms) while parsing the query: send a shorter query",
                 (unsigned long long)p->lim->timeout_ms);
        longjmp(p->jb, 1);
    }
}

void sqp_unexpected(parser *p, const char *expected)
{
    char buf[64];
    sqp_fail_at(p, p->tok.at, "unexpected '%s': expected %s", tok_text(p, buf, sizeof buf),
            expected);
    abort(); /* not reached */
}

bool sqp_is_word(parser *p, const char *w)
{
    return p->tok.kind == T_WORD && strlen(w) == p->tok.len && !strncasecmp(p->tok.s, w, p->tok.len);
}

bool sqp_accept_word(parser *p, const char *w)
{
    if (sqp_is_word(p, w)) {
        sqp_next(p);
        return true;
    }
    return false;
}

void sqp_expect_word(parser *p, const char *w)
{
    if (!sqp_accept_word(p, w)) {
        char e[64];
        snprintf(e, sizeof e, "'%s'", w);
        sqp_unexpected(p, e);
    }
}

bool sqp_accept(parser *p, int kind)
{
    if (p->tok.kind == kind) {
        sqp_next(p);
        return true;
    }
    return false;
}

void sqp_expect(parser *p, int kind)
{
    if (!sqp_accept(p, kind)) {
        char e[16];
        snprintf(e, sizeof e, "'%c'", kind);
        sqp_unexpected(p, e);
    }
}

void sqp_enter(parser *p)
{
    if (++p->depth > SQ_MAX_DEPTH)
        sqp_fail_at(p, p->tok.at, "query nests deeper than %d levels", SQ_MAX_DEPTH);
}

const char *sqp_iri_of_token(parser *p)
{
    if (p->tok.kind == T_IRI) {
        char *r = sq_resolve_iri(p->a, p->base, p->tok.s, p->tok.len);
        if (!r)
            sqp_nomem(p);
        sqp_next(p);
        return r;
    }
    if (p->tok.kind == T_PNAME) {
        size_t i;
        for (i = p->npfx; i-- > 0;)
            if (strlen(p->pfx[i]) == p->tok.plen && !memcmp(p->pfx[i], p->tok.s, p->tok.plen))
                break;
        if (i == (size_t)-1) {
            char buf[64];
            sqp_fail_at(p, p->tok.at, "unknown prefix '%.*s:' in '%s': declare it with PREFIX",
                    (int)(p->tok.plen > 40 ? 40 : p->tok.plen), p->tok.s,
                    tok_text(p, buf, sizeof buf));
        }
        size_t bn = strlen(p->pfx_iri[i]);
        char *r = sqp_pa(p, bn + p->tok.llen + 1);
        memcpy(r, p->pfx_iri[i], bn);
        size_t o = bn;
        for (size_t k = 0; k < p->tok.llen; k++) {
            char c = p->tok.local[k];
            if (c == '\\' && k + 1 < p->tok.llen)
                c = p->tok.local[++k];
            r[o++] = c;
        }
        r[o] = 0;
        sqp_next(p);
        return r;
    }
    sqp_unexpected(p, "an IRI");
}

bool sqp_at_iri(parser *p)
{
    return p->tok.kind == T_IRI || p->tok.kind == T_PNAME;
}

sq_term sqp_iri_term(const char *s)
{
    sq_term t = {0};
    t.kind = SQ_IRI;
    t.lex = s;
    t.len = (uint32_t)strlen(s);
    return t;
}

/* ---- variables ---- */
static int var_add(parser *p, const char *name, size_t n);

static void scope_rehash(parser *p, scope *s)
{
    size_t cap = s->hcap ? s->hcap * 2 : 64;
    s->ht = sqp_pa(p, cap * sizeof(uint32_t));
    memset(s->ht, 0, cap * sizeof(uint32_t));
    s->hcap = cap;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = qr_hash_bytes(s->names[i], strlen(s->names[i])) & (cap - 1);
        while (s->ht[k])
            k = (k + 1) & (cap - 1);
        s->ht[k] = (uint32_t)(i + 1);
    }
}

int sqp_var_index(parser *p, const char *name, size_t n)
{
    scope *s = p->sc;
    sqp_tick(p);
    if (s->hcap) {
        size_t k = qr_hash_bytes(name, n) & (s->hcap - 1);
        for (uint32_t j; (j = s->ht[k]); k = (k + 1) & (s->hcap - 1)) {
            const char *nm = s->names[j - 1];
            if (strlen(nm) == n && !memcmp(nm, name, n))
                return s->idx[j - 1];
        }
    } else {
        for (size_t i = 0; i < s->n; i++)
            if (strlen(s->names[i]) == n && !memcmp(s->names[i], name, n))
                return s->idx[i];
    }
    return var_add(p, name, n);
}

static int var_add(parser *p, const char *name, size_t n)
{
    if (p->q->nvars >= SQ_MAX_VARS)
        sqp_fail_at(p, p->tok.at, "query has more than %d variables", SQ_MAX_VARS);
    p->q->var_names = sqp_grow(p, p->q->var_names, &p->cap_vars, p->q->nvars, sizeof(char *));
    int idx = (int)p->q->nvars++;
    p->q->var_names[idx] = sqp_pdup(p, name, n);
    scope *s = p->sc;
    if (s->n == s->cap) {
        size_t c1 = s->cap, c2 = s->cap;
        s->names = sqp_grow(p, s->names, &c1, s->n, sizeof(char *));
        s->idx = sqp_grow(p, s->idx, &c2, s->n, sizeof(int));
        s->cap = c1;
    }
    s->names[s->n] = p->q->var_names[idx];
    s->idx[s->n++] = idx;
    if (s->n * 2 > s->hcap && s->n >= 16) {
        scope_rehash(p, s); /* all names, the new one included */
    } else if (s->hcap) {
        size_t k = qr_hash_bytes(name, n) & (s->hcap - 1);
        while (s->ht[k])
            k = (k + 1) & (s->hcap - 1);
        s->ht[k] = (uint32_t)s->n;
    }
    return idx;
}

static int fresh_var(parser *p)
{
    char buf[32];
    /* '#' cannot occur in a blank node label, so no name the query writes is this one:
     * it is added without the scope's linear lookup (a 10K-item collection made 20K fresh
     * variables, each looked up among all the others: seconds of parsing) */
    snprintf(buf, sizeof buf, "_:#anon%zu", p->anon++);
    return var_add(p, buf, strlen(buf));
}

static bool hidden_var(const char *name)
{
    return name[0] == '_';
}

static int bnode_var(parser *p, const char *label, size_t n, size_t at)
{
    if (p->no_bnodes)
        sqp_fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
    char *name = sqp_pa(p, n + 3);
    name[0] = '_';
    name[1] = ':';
    memcpy(name + 2, label, n);
    for (size_t i = 0; i < p->nbn; i++)
        if (!strcmp(p->bn[i].label, name)) {
            if (p->bn[i].serial != p->bgp_serial && !p->in_template)
                sqp_fail_at(p, at, "blank node label '_:%.*s' is used in two basic graph patterns",
                        (int)(n > 40 ? 40 : n), label);
            return sqp_var_index(p, name, n + 2);
        }
    p->bn = sqp_grow(p, p->bn, &p->capbn, p->nbn, sizeof(bnode_use));
    p->bn[p->nbn].label = name;
    p->bn[p->nbn++].serial = p->bgp_serial;
    return sqp_var_index(p, name, n + 2);
}

/* ---- literals ---- */
char *sqp_unescape_string(parser *p, const char *s, size_t n, size_t *outn)
{
    char *r = sqp_pa(p, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[++i];
            switch (c) {
            case 't': r[o++] = '\t'; break;
            case 'b': r[o++] = '\b'; break;
            case 'n': r[o++] = '\n'; break;
            case 'r': r[o++] = '\r'; break;
            case 'f': r[o++] = '\f'; break;
            default: r[o++] = c; break;
            }
        } else {
            r[o++] = s[i];
        }
    }
    r[o] = 0;
    *outn = o;
    return r;
}

static sq_term parse_rdf_literal(parser *p)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    size_t n;
    t.lex = sqp_unescape_string(p, p->tok.s, p->tok.len, &n);
    t.len = (uint32_t)n;
    sqp_next(p);
    if (p->tok.kind == T_LANG) {
        char *l = sqp_pdup(p, p->tok.s, p->tok.len);
        for (char *c = l; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        t.lang = l;
        sqp_next(p);
    } else if (sqp_accept(p, T_DTYPE)) {
        t.dt = sqp_iri_of_token(p);
        if (!strcmp(t.dt, XSD "string"))
            t.dt = NULL;
    }
    return t;
}

static sq_term numeric_term(parser *p, bool neg)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    char *s = sqp_pa(p, p->tok.len + 2);
    size_t o = 0;
    if (neg)
        s[o++] = '-';
    memcpy(s + o, p->tok.s, p->tok.len);
    t.lex = s;
    t.len = (uint32_t)(o + p->tok.len);
    t.dt = p->tok.kind == T_INTEGER ? XSD "integer" : p->tok.kind == T_DECIMAL ? XSD "decimal"
                                                                               : XSD "double";
    sqp_next(p);
    return t;
}

static bool at_number(parser *p)
{
    return p->tok.kind == T_INTEGER || p->tok.kind == T_DECIMAL || p->tok.kind == T_DOUBLE;
}

/* a constant term: iri, literal, number (signed), boolean; false if none here */
bool sqp_parse_constant(parser *p, sq_term *t)
{
    if (sqp_at_iri(p)) {
        *t = sqp_iri_term(sqp_iri_of_token(p));
        return true;
    }
    if (p->tok.kind == T_STR) {
        *t = parse_rdf_literal(p);
        return true;
    }
    if (at_number(p)) {
        *t = numeric_term(p, false);
        return true;
    }
    if (p->tok.kind == '+' || p->tok.kind == '-') {
        bool neg = p->tok.kind == '-';
        sqp_next(p);
        if (!at_number(p))
            sqp_unexpected(p, "a number after the sign");
        *t = numeric_term(p, neg);
        return true;
    }
    if (sqp_is_word(p, "true") || sqp_is_word(p, "false")) {
        memset(t, 0, sizeof *t);
        t->kind = SQ_LIT;
        t->lex = sqp_is_word(p, "true") ? "true" : "false";
        t->len = (uint32_t)strlen(t->lex);
        t->dt = XSD "boolean";
        sqp_next(p);
        return true;
    }
    return false;
}

/* ---- node constructors ---- */
static sq_node *node(parser *p, int kind)
{
    sq_node *n = sqp_pa(p, sizeof *n);
    n->kind = kind;
    n->var = -1;
    return n;
}

static sq_node *join(parser *p, sq_node *a, sq_node *b)
{
    if (a->kind == N_UNIT)
        return b;
    if (b->kind == N_UNIT)
        return a;
    sq_node *n = node(p, N_JOIN);
    n->a = a;
    n->b = b;
    return n;
}

sq_expr *sqp_expr_new(parser *p, int op)
{
    sq_expr *e = sqp_pa(p, sizeof *e);
    e->op = op;
    e->var = -1;
    e->agg = -1;
    return e;
}


static sq_select *parse_subselect(parser *p);

/* ---- in-scope variables of a pattern (18.2.1) ---- */
/* a set of variables in order of first addition, with a membership array by index */
typedef struct varset {
    int *v;
    size_t n, cap;
    unsigned char *in;
    size_t incap;
} varset;

static void vs_add(parser *p, varset *s, int v)
{
    if (v < 0 || hidden_var(p->q->var_names[v]))
        return;
    if ((size_t)v < s->incap && s->in[v])
        return;
    if ((size_t)v >= s->incap) {
        size_t nc = s->incap ? s->incap : 64;
        while (nc <= (size_t)v)
            nc *= 2;
        unsigned char *in = sqp_pa(p, nc);
        memset(in, 0, nc);
        if (s->incap)
            memcpy(in, s->in, s->incap);
        s->in = in;
        s->incap = nc;
    }
    s->in[v] = 1;
    s->v = sqp_grow(p, s->v, &s->cap, s->n, sizeof(int));
    s->v[s->n++] = v;
}

static void node_vars(parser *p, const sq_node *n, varset *s)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_BGP:
        for (size_t i = 0; i < n->ntp; i++) {
            vs_add(p, s, n->tp[i].s.var);
            if (!n->tp[i].path)
                vs_add(p, s, n->tp[i].p.var);
            vs_add(p, s, n->tp[i].o.var);
        }
        break;
    case N_JOIN:
    case N_LEFTJOIN:
    case N_UNION:
        node_vars(p, n->a, s);
        node_vars(p, n->b, s);
        break;
    case N_FILTER:
    case N_MINUS:
        node_vars(p, n->a, s);
        break;
    case N_GRAPH:
    case N_SERVICE:
        vs_add(p, s, n->graph.var);
        node_vars(p, n->a, s);
        break;
    case N_EXTEND:
        node_vars(p, n->a, s);
        vs_add(p, s, n->var);
        break;
    case N_VALUES:
        for (size_t i = 0; i < n->nvvars; i++)
            vs_add(p, s, n->vvars[i]);
        break;
    case N_SUB:
        for (size_t i = 0; i < n->sub->nproj; i++)
            vs_add(p, s, n->sub->proj_outer[i]);
        break;
    default:
        break;
    }
}

static bool vs_has(const varset *s, int v)
{
    return v >= 0 && (size_t)v < s->incap && s->in[v];
}

/* ---- triples and paths ---- */

static void add_triple(parser *p, tlist *tl, sq_slot s, sq_slot pr, sq_path *path, sq_slot o)
{
    tl->t = sqp_grow(p, tl->t, &tl->cap, tl->n, sizeof(sq_triple));
    sq_triple *t = &tl->t[tl->n++];
    t->s = s;
    t->p = pr;
    t->o = o;
    t->path = path;
}

static sq_slot var_slot(int v)
{
    sq_slot s = {0};
    s.var = v;
    return s;
}

static sq_slot const_slot(sq_term t)
{
    sq_slot s = {0};
    s.var = -1;
    s.t = t;
    return s;
}

static sq_slot parse_node(parser *p, tlist *tl);

static sq_path *path_new(parser *p, int kind)
{
    sq_path *x = sqp_pa(p, sizeof *x);
    x->kind = kind;
    return x;
}

static sq_path *parse_path(parser *p);

static void parse_neg_one(parser *p, sq_path *x, size_t *cap)
{
    bool inv = sqp_accept(p, '^');
    sq_term t;
    if (sqp_accept_word(p, "a"))
        t = sqp_iri_term(RDF_NS "type");
    else
        t = sqp_iri_term(sqp_iri_of_token(p));
    size_t c1 = *cap, c2 = *cap;
    x->neg = sqp_grow(p, x->neg, &c1, x->nneg, sizeof(sq_term));
    x->neg_inv = sqp_grow(p, x->neg_inv, &c2, x->nneg, sizeof(bool));
    *cap = c1;
    x->neg[x->nneg] = t;
    x->neg_inv[x->nneg++] = inv;
}

static sq_path *parse_path_primary(parser *p)
{
    if (sqp_accept_word(p, "a")) {
        sq_path *x = path_new(p, P_LINK);
        x->iri = sqp_iri_term(RDF_NS "type");
        return x;
    }
    if (sqp_at_iri(p)) {
        sq_path *x = path_new(p, P_LINK);
        x->iri = sqp_iri_term(sqp_iri_of_token(p));
        return x;
    }
    if (sqp_accept(p, '!')) {
        sq_path *x = path_new(p, P_NEG);
        size_t cap = 0;
        if (sqp_accept(p, '(')) {
            if (p->tok.kind != ')') {
                for (;;) {
                    parse_neg_one(p, x, &cap);
                    if (!sqp_accept(p, '|'))
                        break;
                }
            }
            sqp_expect(p, ')');
        } else if (sqp_accept(p, T_NIL)) {
            /* !() matches every predicate */
        } else {
            parse_neg_one(p, x, &cap);
        }
        return x;
    }
    if (sqp_accept(p, '(')) {
        sq_path *x = parse_path(p);
        sqp_expect(p, ')');
        return x;
    }
    sqp_unexpected(p, "a property path");
}

static sq_path *parse_path_elt(parser *p)
{
    sqp_enter(p);
    bool inv = sqp_accept(p, '^');
    sq_path *x = parse_path_primary(p);
    for (;;) {
        int k = p->tok.kind == '*' ? P_STAR : p->tok.kind == '+' ? P_PLUS
                                            : p->tok.kind == '?' ? P_OPT : -1;
        if (k < 0)
            break;
        sqp_next(p);
        sq_path *m = path_new(p, k);
        m->a = x;
        x = m;
        break;
    }
    if (inv) {
        sq_path *m = path_new(p, P_INV);
        m->a = x;
        x = m;
    }
    p->depth--;
    return x;
}

static sq_path *parse_path_seq(parser *p)
{
    sq_path *x = parse_path_elt(p);
    while (sqp_accept(p, '/')) {
        sq_path *m = path_new(p, P_SEQ);
        m->a = x;
        m->b = parse_path_elt(p);
        x = m;
    }
    return x;
}

static sq_path *parse_path(parser *p)
{
    sqp_enter(p);
    sq_path *x = parse_path_seq(p);
    while (sqp_accept(p, '|')) {
        sq_path *m = path_new(p, P_ALT);
        m->a = x;
        m->b = parse_path_seq(p);
        x = m;
    }
    p->depth--;
    return x;
}

static sq_slot parse_var_slot(parser *p)
{
    if (p->no_vars)
        sqp_fail_at(p, p->tok.at, "variables are not allowed in INSERT DATA or DELETE DATA");
    int v = sqp_var_index(p, p->tok.s, p->tok.len);
    sqp_next(p);
    return var_slot(v);
}

static void parse_object_list(parser *p, tlist *tl, sq_slot s, sq_slot pr, sq_path *path)
{
    for (;;) {
        sq_slot o = parse_node(p, tl);
        add_triple(p, tl, s, pr, path, o);
        if (!sqp_accept(p, ','))
            break;
    }
}

/* verb (path or var) then objects, ';'-separated */
static void parse_property_list(parser *p, tlist *tl, sq_slot s)
{
    for (;;) {
        sq_slot pr = {0};
        sq_path *path = NULL;
        if (p->tok.kind == T_VAR) {
            pr = parse_var_slot(p);
        } else {
            path = parse_path(p);
            if (path->kind == P_LINK) {
                pr = const_slot(path->iri);
                path = NULL;
            } else {
                pr.var = -1;
            }
        }
        parse_object_list(p, tl, s, pr, path);
        if (!sqp_accept(p, ';'))
            break;
        while (sqp_accept(p, ';'))
            ;
        if (p->tok.kind != T_VAR && !sqp_at_iri(p) && !sqp_is_word(p, "a") && p->tok.kind != '^' &&
            p->tok.kind != '!' && p->tok.kind != '(')
            break;
    }
}

static sq_slot parse_node(parser *p, tlist *tl)
{
    sqp_enter(p);
    sq_slot r;
    size_t at = p->tok.at;
    if (p->tok.kind == T_VAR) {
        r = parse_var_slot(p);
    } else if (p->tok.kind == T_BNODE) {
        r = var_slot(bnode_var(p, p->tok.s, p->tok.len, at));
        sqp_next(p);
    } else if (p->tok.kind == T_ANON) {
        if (p->no_bnodes)
            sqp_fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
        sqp_next(p);
        r = var_slot(fresh_var(p));
    } else if (p->tok.kind == T_NIL) {
        sqp_next(p);
        r = const_slot(sqp_iri_term(RDF_NS "nil"));
    } else if (sqp_accept(p, '[')) {
        if (p->no_bnodes)
            sqp_fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
        r = var_slot(fresh_var(p));
        parse_property_list(p, tl, r);
        sqp_expect(p, ']');
    } else if (sqp_accept(p, '(')) {
        /* a collection: rdf:first/rdf:rest chain */
        r = var_slot(fresh_var(p));
        sq_slot cur = r;
        bool first = true;
        while (p->tok.kind != ')') {
            if (p->tok.kind == T_EOF)
                sqp_unexpected(p, "')' to close the collection");
            if (!first) {
                sq_slot nx = var_slot(fresh_var(p));
                add_triple(p, tl, cur, const_slot(sqp_iri_term(RDF_NS "rest")), NULL, nx);
                cur = nx;
            }
            sq_slot item = parse_node(p, tl);
            add_triple(p, tl, cur, const_slot(sqp_iri_term(RDF_NS "first")), NULL, item);
            first = false;
        }
        sqp_next(p);
        add_triple(p, tl, cur, const_slot(sqp_iri_term(RDF_NS "rest")), NULL,
                   const_slot(sqp_iri_term(RDF_NS "nil")));
    } else {
        sq_term t;
        if (!sqp_parse_constant(p, &t))
            sqp_unexpected(p, "a variable, IRI, literal or blank node");
        r = const_slot(t);
    }
    p->depth--;
    return r;
}

bool sqp_at_triples_start(parser *p)
{
    int k = p->tok.kind;
    return k == T_VAR || k == T_IRI || k == T_PNAME || k == T_BNODE || k == T_ANON ||
           k == T_NIL || k == '[' || k == '(' || k == T_STR || k == T_INTEGER ||
           k == T_DECIMAL || k == T_DOUBLE || k == '+' || k == '-' || sqp_is_word(p, "true") ||
           sqp_is_word(p, "false");
}

/* TriplesSameSubjectPath ( '.' TriplesSameSubjectPath? )* */
void sqp_parse_triples_block(parser *p, tlist *tl)
{
    for (;;) {
        bool bnode_list = p->tok.kind == '[' || p->tok.kind == '(';
        sq_slot s = parse_node(p, tl);
        if (bnode_list && (p->tok.kind == '.' || p->tok.kind == '}')) {
            /* [ :p :o ] alone is a complete triples block */
        } else {
            parse_property_list(p, tl, s);
        }
        if (!sqp_accept(p, '.'))
            break;
        if (!sqp_at_triples_start(p))
            break;
    }
}

/* ---- graph patterns ---- */
static sq_node *parse_values_block(parser *p)
{
    sq_node *n = node(p, N_VALUES);
    size_t capv = 0;
    bool single = false;
    if (p->tok.kind == T_VAR) {
        single = true;
        n->vvars = sqp_pa(p, sizeof(int));
        n->vvars[0] = sqp_var_index(p, p->tok.s, p->tok.len);
        n->nvvars = 1;
        sqp_next(p);
    } else if (sqp_accept(p, T_NIL)) {
    } else {
        sqp_expect(p, '(');
        while (p->tok.kind == T_VAR) {
            n->vvars = sqp_grow(p, n->vvars, &capv, n->nvvars, sizeof(int));
            int v = sqp_var_index(p, p->tok.s, p->tok.len);
            for (size_t i = 0; i < n->nvvars; i++)
                if (n->vvars[i] == v)
                    sqp_fail_at(p, p->tok.at, "variable '?%s' appears twice in VALUES",
                            p->q->var_names[v]);
            n->vvars[n->nvvars++] = v;
            sqp_next(p);
        }
        sqp_expect(p, ')');
    }
    sqp_expect(p, '{');
    size_t capr = 0;
    while (p->tok.kind != '}') {
        size_t k = n->nvvars;
        if (!single) {
            if (sqp_accept(p, T_NIL)) {
                if (k)
                    sqp_fail_at(p, p->tok.at, "a VALUES row has 0 values for %zu variables", k);
                n->nvrows++;
                continue;
            }
            sqp_expect(p, '(');
        }
        size_t need;
        if (!qr_size_mul(n->nvrows + 1, k, &need))
            sqp_nomem(p);
        if (need > capr) {
            size_t nc = capr ? capr * 2 : 16;
            while (nc < need)
                nc *= 2;
            sq_term *nv = sqp_pa(p, nc * sizeof(sq_term));
            if (n->vals)
                memcpy(nv, n->vals, capr * sizeof(sq_term));
            n->vals = nv;
            capr = nc;
        }
        for (size_t i = 0; i < k; i++) {
            sq_term t = {0};
            if (sqp_accept_word(p, "UNDEF")) {
                t.kind = 0;
            } else if (!sqp_parse_constant(p, &t)) {
                sqp_unexpected(p, "a value or UNDEF in VALUES");
            }
            n->vals[n->nvrows * k + i] = t;
        }
        n->nvrows++;
        if (!single)
            sqp_expect(p, ')');
    }
    sqp_next(p);
    return n;
}

static sq_node *parse_group_or_union(parser *p)
{
    sq_node *a = sqp_parse_group(p);
    while (sqp_accept_word(p, "UNION")) {
        sq_node *u = node(p, N_UNION);
        u->a = a;
        u->b = sqp_parse_group(p);
        a = u;
    }
    return a;
}

sq_slot sqp_parse_var_or_iri(parser *p)
{
    if (p->tok.kind == T_VAR) {
        int v = sqp_var_index(p, p->tok.s, p->tok.len);
        sqp_next(p);
        return var_slot(v);
    }
    return const_slot(sqp_iri_term(sqp_iri_of_token(p)));
}

sq_node *sqp_parse_group(parser *p)
{
    sqp_enter(p);
    sqp_expect(p, '{');
    if (sqp_is_word(p, "SELECT")) {
        sq_node *n = node(p, N_SUB);
        n->sub = parse_subselect(p);
        sqp_expect(p, '}');
        p->depth--;
        return n;
    }
    sq_node *g = node(p, N_UNIT);
    sq_expr **filters = NULL;
    size_t nf = 0, capf = 0;
    tlist tl = {0};
    p->bgp_serial++;
    for (;;) {
        if (sqp_accept(p, '}'))
            break;
        if (sqp_at_triples_start(p)) {
            sqp_parse_triples_block(p, &tl);
            continue;
        }
        if (sqp_is_word(p, "FILTER")) {
            sqp_next(p);
            filters = sqp_grow(p, filters, &capf, nf, sizeof *filters);
            filters[nf++] = sqp_parse_constraint(p);
            sqp_accept(p, '.');
            continue;
        }
        if (tl.n) {
            sq_node *b = node(p, N_BGP);
            b->tp = tl.t;
            b->ntp = tl.n;
            g = join(p, g, b);
            memset(&tl, 0, sizeof tl);
        }
        p->bgp_serial++;
        if (sqp_accept_word(p, "OPTIONAL")) {
            sq_node *a = sqp_parse_group(p);
            sq_node *lj = node(p, N_LEFTJOIN);
            lj->a = g;
            if (a->kind == N_FILTER) {
                lj->b = a->a;
                lj->exprs = a->exprs;
                lj->nexprs = a->nexprs;
            } else {
                lj->b = a;
            }
            g = lj;
        } else if (sqp_accept_word(p, "MINUS")) {
            sq_node *m = node(p, N_MINUS);
            m->a = g;
            m->b = sqp_parse_group(p);
            g = m;
        } else if (sqp_accept_word(p, "GRAPH")) {
            sq_node *gr = node(p, N_GRAPH);
            gr->graph = sqp_parse_var_or_iri(p);
            gr->a = sqp_parse_group(p);
            g = join(p, g, gr);
        } else if (sqp_accept_word(p, "SERVICE")) {
            sqp_accept_word(p, "SILENT");
            sq_node *sv = node(p, N_SERVICE);
            sv->graph = sqp_parse_var_or_iri(p);
            sv->a = sqp_parse_group(p);
            p->q->has_service = true;
            g = join(p, g, sv);
        } else if (sqp_is_word(p, "BIND")) {
            size_t at = p->tok.at;
            sqp_next(p);
            sqp_expect(p, '(');
            sq_expr *e = sqp_parse_expr(p);
            sqp_expect_word(p, "AS");
            if (p->tok.kind != T_VAR)
                sqp_unexpected(p, "a variable after AS");
            int v = sqp_var_index(p, p->tok.s, p->tok.len);
            sqp_next(p);
            sqp_expect(p, ')');
            varset vs = {0};
            node_vars(p, g, &vs);
            if (vs_has(&vs, v))
                sqp_fail_at(p, at, "BIND assigns '?%s', which is already bound in the group "
                               "before it",
                        p->q->var_names[v]);
            sq_node *x = node(p, N_EXTEND);
            x->a = g;
            x->var = v;
            x->expr = e;
            g = x;
        } else if (sqp_accept_word(p, "VALUES")) {
            g = join(p, g, parse_values_block(p));
        } else if (p->tok.kind == '{') {
            g = join(p, g, parse_group_or_union(p));
        } else {
            sqp_unexpected(p, "a triple pattern, FILTER, OPTIONAL, MINUS, GRAPH, SERVICE, BIND, "
                          "VALUES, '{' or '}'");
        }
        sqp_accept(p, '.');
        p->bgp_serial++;
    }
    if (tl.n) {
        sq_node *b = node(p, N_BGP);
        b->tp = tl.t;
        b->ntp = tl.n;
        g = join(p, g, b);
    }
    if (nf) {
        sq_node *f = node(p, N_FILTER);
        f->a = g;
        f->exprs = filters;
        f->nexprs = nf;
        g = f;
    }
    p->depth--;
    return g;
}

/* ---- SELECT and its modifiers ---- */
static void check_grouped_expr(parser *p, sq_select *s, const sq_expr *e, const varset *ok,
                               size_t at)
{
    if (!e)
        return;
    if (e->op == E_VAR) {
        if (!vs_has(ok, e->var))
            sqp_fail_at(p, at, "variable '?%s' is used outside an aggregate but is not grouped",
                    p->q->var_names[e->var]);
        return;
    }
    if (e->op == E_AGG || e->op == E_EXISTS || e->op == E_NOTEXISTS)
        return;
    for (size_t i = 0; i < e->nargs; i++)
        check_grouped_expr(p, s, e->args[i], ok, at);
}

void sqp_parse_solution_modifiers(parser *p, sq_select *s)
{
    if (sqp_accept_word(p, "GROUP")) {
        sqp_expect_word(p, "BY");
        size_t cap = 0, cap2 = 0;
        for (;;) {
            sq_expr *e;
            int as = -1;
            if (p->tok.kind == T_VAR) {
                e = sqp_expr_new(p, E_VAR);
                e->var = sqp_var_index(p, p->tok.s, p->tok.len);
                sqp_next(p);
            } else if (sqp_accept(p, '(')) {
                e = sqp_parse_expr(p);
                if (sqp_accept_word(p, "AS")) {
                    if (p->tok.kind != T_VAR)
                        sqp_unexpected(p, "a variable after AS");
                    as = sqp_var_index(p, p->tok.s, p->tok.len);
                    sqp_next(p);
                }
                sqp_expect(p, ')');
            } else if ((p->tok.kind == T_WORD && !sqp_is_word(p, "HAVING") && !sqp_is_word(p, "ORDER") &&
                        !sqp_is_word(p, "LIMIT") && !sqp_is_word(p, "OFFSET") &&
                        !sqp_is_word(p, "VALUES")) ||
                       sqp_at_iri(p)) {
                e = sqp_parse_primary(p);
            } else {
                break;
            }
            s->group = sqp_grow(p, s->group, &cap, s->ngroup, sizeof *s->group);
            s->group_as = sqp_grow(p, s->group_as, &cap2, s->ngroup, sizeof(int));
            s->group[s->ngroup] = e;
            s->group_as[s->ngroup++] = as;
        }
        if (!s->ngroup)
            sqp_unexpected(p, "a group condition");
        s->grouped = true;
    }
    sq_select *save = p->agg_sel;
    p->agg_sel = s;
    if (sqp_accept_word(p, "HAVING")) {
        size_t cap = 0;
        do {
            s->having = sqp_grow(p, s->having, &cap, s->nhaving, sizeof *s->having);
            s->having[s->nhaving++] = sqp_parse_constraint(p);
        } while (p->tok.kind == '(' || sqp_at_iri(p) ||
                 (p->tok.kind == T_WORD && !sqp_is_word(p, "ORDER") && !sqp_is_word(p, "LIMIT") &&
                  !sqp_is_word(p, "OFFSET") && !sqp_is_word(p, "VALUES")));
        s->grouped = true;
    }
    if (sqp_accept_word(p, "ORDER")) {
        sqp_expect_word(p, "BY");
        size_t cap = 0, cap2 = 0;
        for (;;) {
            bool desc = false;
            sq_expr *e;
            if (sqp_is_word(p, "ASC") || sqp_is_word(p, "DESC")) {
                desc = sqp_is_word(p, "DESC");
                sqp_next(p);
                if (p->tok.kind != '(')
                    sqp_unexpected(p, "'(' after ASC or DESC");
                e = sqp_parse_primary(p);
            } else if (p->tok.kind == T_VAR) {
                e = sqp_expr_new(p, E_VAR);
                e->var = sqp_var_index(p, p->tok.s, p->tok.len);
                sqp_next(p);
            } else if (p->tok.kind == '(' || (p->tok.kind == T_WORD && !sqp_is_word(p, "LIMIT") &&
                                              !sqp_is_word(p, "OFFSET") && !sqp_is_word(p, "VALUES")) ||
                       sqp_at_iri(p)) {
                e = sqp_parse_constraint(p);
            } else {
                break;
            }
            s->order = sqp_grow(p, s->order, &cap, s->norder, sizeof *s->order);
            s->desc = sqp_grow(p, s->desc, &cap2, s->norder, sizeof(bool));
            s->order[s->norder] = e;
            s->desc[s->norder++] = desc;
        }
        if (!s->norder)
            sqp_unexpected(p, "an order condition");
    }
    p->agg_sel = save;
    for (int round = 0; round < 2; round++) {
        if (s->limit < 0 && sqp_accept_word(p, "LIMIT")) {
            if (p->tok.kind != T_INTEGER)
                sqp_unexpected(p, "an integer after LIMIT");
            s->limit = strtoll(p->tok.s, NULL, 10);
            sqp_next(p);
        } else if (s->offset == 0 && sqp_accept_word(p, "OFFSET")) {
            if (p->tok.kind != T_INTEGER)
                sqp_unexpected(p, "an integer after OFFSET");
            s->offset = strtoll(p->tok.s, NULL, 10);
            sqp_next(p);
        }
    }
}

void sqp_parse_dataset(parser *p)
{
    while (sqp_accept_word(p, "FROM")) {
        bool named = sqp_accept_word(p, "NAMED");
        sq_term t = sqp_iri_term(sqp_iri_of_token(p));
        qr_sparql_query *q = p->q;
        if (named) {
            sq_term *n = sqp_pa(p, (q->nfrom_named + 1) * sizeof *n);
            if (q->nfrom_named)
                memcpy(n, q->from_named, q->nfrom_named * sizeof *n);
            n[q->nfrom_named++] = t;
            q->from_named = n;
        } else {
            sq_term *n = sqp_pa(p, (q->nfrom + 1) * sizeof *n);
            if (q->nfrom)
                memcpy(n, q->from, q->nfrom * sizeof *n);
            n[q->nfrom++] = t;
            q->from = n;
        }
    }
}

/* The body after SELECT: projection, dataset (top level), WHERE, modifiers, and the checks
 * on grouping and projection. */
static void parse_select_rest(parser *p, sq_select *s, bool top)
{
    size_t sel_at = p->tok.at;
    if (sqp_accept_word(p, "DISTINCT"))
        s->distinct = true;
    else if (sqp_accept_word(p, "REDUCED"))
        s->reduced = true;
    size_t cap = 0, cap2 = 0;
    size_t *proj_at = NULL;
    size_t capat = 0;
    if (sqp_accept(p, '*')) {
        s->star = true;
    } else {
        sq_select *save = p->agg_sel;
        p->agg_sel = s;
        varset seen = {0}, seen_expr = {0}; /* projected so far; projected with AS */
        for (;;) {
            int v;
            sq_expr *e = NULL;
            size_t at = p->tok.at;
            if (p->tok.kind == T_VAR) {
                v = sqp_var_index(p, p->tok.s, p->tok.len);
                sqp_next(p);
            } else if (sqp_accept(p, '(')) {
                e = sqp_parse_expr(p);
                sqp_expect_word(p, "AS");
                if (p->tok.kind != T_VAR)
                    sqp_unexpected(p, "a variable after AS");
                v = sqp_var_index(p, p->tok.s, p->tok.len);
                sqp_next(p);
                sqp_expect(p, ')');
            } else {
                break;
            }
            if (vs_has(&seen, v) && (e || vs_has(&seen_expr, v)))
                sqp_fail_at(p, at, "variable '?%s' is projected twice", p->q->var_names[v]);
            vs_add(p, &seen, v);
            if (e)
                vs_add(p, &seen_expr, v);
            s->proj_var = sqp_grow(p, s->proj_var, &cap, s->nproj, sizeof(int));
            s->proj_expr = sqp_grow(p, s->proj_expr, &cap2, s->nproj, sizeof(sq_expr *));
            proj_at = sqp_grow(p, proj_at, &capat, s->nproj, sizeof(size_t));
            proj_at[s->nproj] = at;
            s->proj_var[s->nproj] = v;
            s->proj_expr[s->nproj++] = e;
        }
        p->agg_sel = save;
        if (!s->nproj)
            sqp_unexpected(p, "variables, '(expression AS ?var)' or '*' after SELECT");
    }
    if (top)
        sqp_parse_dataset(p);
    else if (sqp_is_word(p, "FROM"))
        sqp_fail_at(p, p->tok.at, "a subquery cannot have FROM");
    sqp_accept_word(p, "WHERE");
    if (p->tok.kind != '{')
        sqp_unexpected(p, "'{' to start the WHERE clause");
    s->where = sqp_parse_group(p);
    sqp_parse_solution_modifiers(p, s);
    /* checks */
    varset inscope = {0};
    node_vars(p, s->where, &inscope);
    if (s->star && s->grouped)
        sqp_fail_at(p, sel_at, "SELECT * cannot be used with GROUP BY or aggregates");
    if (s->grouped) {
        varset ok = {0};
        for (size_t i = 0; i < s->ngroup; i++) {
            if (s->group_as[i] >= 0)
                vs_add(p, &ok, s->group_as[i]);
            else if (s->group[i]->op == E_VAR)
                vs_add(p, &ok, s->group[i]->var);
        }
        for (size_t i = 0; i < s->nproj; i++) {
            if (!s->proj_expr[i]) {
                if (!vs_has(&ok, s->proj_var[i]))
                    sqp_fail_at(p, proj_at[i],
                            "variable '?%s' is projected but is not grouped: group by it or "
                            "use an aggregate such as SAMPLE(?%s)",
                            p->q->var_names[s->proj_var[i]], p->q->var_names[s->proj_var[i]]);
            } else {
                check_grouped_expr(p, s, s->proj_expr[i], &ok, proj_at[i]);
                vs_add(p, &ok, s->proj_var[i]);
            }
        }
    }
    for (size_t i = 0; i < s->nproj; i++) {
        if (s->proj_expr[i] && vs_has(&inscope, s->proj_var[i]))
            sqp_fail_at(p, proj_at[i], "'?%s' is already bound in the WHERE clause: choose another "
                                   "name after AS",
                    p->q->var_names[s->proj_var[i]]);
        if (s->proj_expr[i])
            vs_add(p, &inscope, s->proj_var[i]);
    }
    if (s->star) {
        s->scope_vars = inscope.v;
        s->nscope = inscope.n;
    }
}

sq_select *sqp_select_new(parser *p, int form)
{
    sq_select *s = sqp_pa(p, sizeof *s);
    s->form = form;
    s->limit = -1;
    return s;
}

static sq_select *parse_subselect(parser *p)
{
    sqp_enter(p);
    sqp_expect_word(p, "SELECT");
    scope *inner = sqp_pa(p, sizeof *inner);
    inner->up = p->sc;
    p->sc = inner;
    sq_select *save_agg = p->agg_sel;
    bool save_in = p->in_agg;
    p->in_agg = false;
    sq_select *s = sqp_select_new(p, QR_SPARQL_SELECT);
    parse_select_rest(p, s, false);
    if (sqp_accept_word(p, "VALUES"))
        s->values = parse_values_block(p);
    p->sc = inner->up;
    p->agg_sel = save_agg;
    p->in_agg = save_in;
    if (s->star) {
        s->nproj = s->nscope;
        s->proj_var = s->scope_vars;
        s->proj_expr = sqp_pa(p, (s->nproj ? s->nproj : 1) * sizeof(sq_expr *));
        s->star = false;
    }
    s->proj_outer = sqp_pa(p, (s->nproj ? s->nproj : 1) * sizeof(int));
    for (size_t i = 0; i < s->nproj; i++) {
        const char *name = p->q->var_names[s->proj_var[i]];
        s->proj_outer[i] = sqp_var_index(p, name, strlen(name));
    }
    p->depth--;
    return s;
}

void sqp_parse_prologue(parser *p)
{
    for (;;) {
        if (sqp_accept_word(p, "BASE")) {
            if (p->tok.kind != T_IRI)
                sqp_unexpected(p, "an IRI after BASE");
            p->base = (char *)sqp_iri_of_token(p);
        } else if (sqp_accept_word(p, "PREFIX")) {
            if (p->tok.kind != T_PNAME || p->tok.llen)
                sqp_unexpected(p, "a prefix such as 'ex:' after PREFIX");
            const char *name = sqp_pdup(p, p->tok.s, p->tok.plen);
            sqp_next(p);
            if (p->tok.kind != T_IRI)
                sqp_unexpected(p, "an IRI after the prefix name");
            const char *iri = sqp_iri_of_token(p);
            size_t c1 = p->cappfx, c2 = p->cappfx;
            p->pfx = sqp_grow(p, p->pfx, &c1, p->npfx, sizeof(char *));
            p->pfx_iri = sqp_grow(p, p->pfx_iri, &c2, p->npfx, sizeof(char *));
            p->cappfx = c1;
            p->pfx[p->npfx] = name;
            p->pfx_iri[p->npfx++] = (char *)iri;
        } else {
            break;
        }
    }
}

static void parse_query(parser *p)
{
    sqp_parse_prologue(p);
    scope *top = sqp_pa(p, sizeof *top);
    p->sc = top;
    if (sqp_accept_word(p, "SELECT")) {
        sq_select *s = sqp_select_new(p, QR_SPARQL_SELECT);
        parse_select_rest(p, s, true);
        p->q->form = QR_SPARQL_SELECT;
        p->q->top = s;
    } else if (sqp_accept_word(p, "ASK")) {
        sq_select *s = sqp_select_new(p, QR_SPARQL_ASK);
        sqp_parse_dataset(p);
        sqp_accept_word(p, "WHERE");
        s->where = sqp_parse_group(p);
        sqp_parse_solution_modifiers(p, s);
        p->q->form = QR_SPARQL_ASK;
        p->q->top = s;
    } else if (sqp_accept_word(p, "CONSTRUCT")) {
        p->q->form = QR_SPARQL_CONSTRUCT;
        sqp_parse_construct(p);
    } else if (sqp_accept_word(p, "DESCRIBE")) {
        p->q->form = QR_SPARQL_DESCRIBE;
        sqp_parse_describe(p);
    } else if (sqp_at_update_word(p) || p->tok.kind == T_EOF) {
        sqp_parse_update_request(p);
        if (p->tok.kind != T_EOF)
            sqp_unexpected(p, "';' or the end of the update");
        return;
    } else {
        sqp_unexpected(p, "SELECT, ASK, CONSTRUCT, DESCRIBE, PREFIX or BASE");
    }
    if (sqp_accept_word(p, "VALUES")) {
        sq_node *v = parse_values_block(p);
        if (p->q->top)
            p->q->top->values = v;
    }
    if (p->tok.kind != T_EOF)
        sqp_unexpected(p, "the end of the query");
}

static int parse_limited(const char *text, size_t len, const char *base,
                         const qr_sparql_limits *lim, qr_sparql_query **out,
                         qr_sparql_error *err);

int qr_sparql_parse(const char *text, size_t len, const char *base, qr_sparql_query **out,
                    qr_sparql_error *err)
{
    return parse_limited(text, len, base, NULL, out, err);
}

static int parse_limited(const char *text, size_t len, const char *base,
                         const qr_sparql_limits *lim, qr_sparql_query **out,
                         qr_sparql_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    qr_sparql_query *q = calloc(1, sizeof *q);
    if (!q)
        return QR_ENOMEM;
    qr_arena_init(&q->a, 0);
    parser *p = calloc(1, sizeof *p);
    if (!p) {
        free(q);
        return QR_ENOMEM;
    }
    p->q = q;
    p->a = &q->a;
    p->err = err;
    p->lim = lim && (lim->timeout_ms || lim->stop) ? lim : NULL;
    p->t0_ms = mono_ms();
    if (setjmp(p->jb)) {
        int code = p->code;
        free(p);
        qr_sparql_query_free(q);
        return code;
    }
    char *s;
    size_t n;
    char emsg[128];
    int rc = sq_unescape_codepoints(p->a, text, len, &s, &n, emsg, sizeof emsg);
    if (rc == QR_ENOMEM)
        sqp_nomem(p);
    p->L.s = text;
    p->L.n = len;
    if (rc)
        sqp_fail_at(p, 0, "%s", emsg);
    if (!qr_utf8_valid(s, n))
        sqp_fail_at(p, 0, "the query is not valid UTF-8");
    p->L.s = s;
    p->L.n = n;
    if (base)
        p->base = sqp_pdup(p, base, strlen(base));
    sqp_next(p);
    parse_query(p);
    q->base = p->base;
    free(p);
    *out = q;
    return QR_OK;
}

qr_sparql_form qr_sparql_query_form(const qr_sparql_query *q)
{
    return (qr_sparql_form)q->form;
}

int qr_sparql_check_readonly(const qr_sparql_query *q, qr_sparql_error *err)
{
    memset(err, 0, sizeof *err);
    err->kind = QR_SPARQL_REFUSED;
    switch (q->form) {
    case QR_SPARQL_UPDATE:
        snprintf(err->msg, sizeof err->msg, "read-only: %s is an update", q->update_name);
        return QR_EINVAL;
    case QR_SPARQL_CONSTRUCT:
        snprintf(err->msg, sizeof err->msg,
                 "CONSTRUCT is not supported: quarry runs SELECT and ASK queries only");
        return QR_EINVAL;
    case QR_SPARQL_DESCRIBE:
        snprintf(err->msg, sizeof err->msg,
                 "DESCRIBE is not supported: quarry runs SELECT and ASK queries only");
        return QR_EINVAL;
    default:
        break;
    }
    if (q->has_service) {
        snprintf(err->msg, sizeof err->msg,
                 "SERVICE is not supported: quarry makes no network requests (federated "
                 "queries are refused)");
        return QR_EINVAL;
    }
    err->kind = QR_SPARQL_NONE;
    return QR_OK;
}

int qr_sparql_prepare(const char *text, size_t len, const char *base, qr_sparql_query **out,
                      qr_sparql_error *err)
{
    return qr_sparql_prepare_limited(text, len, base, NULL, out, err);
}

int qr_sparql_prepare_limited(const char *text, size_t len, const char *base,
                              const qr_sparql_limits *lim, qr_sparql_query **out,
                              qr_sparql_error *err)
{
    int rc = parse_limited(text, len, base, lim, out, err);
    if (rc)
        return rc;
    rc = qr_sparql_check_readonly(*out, err);
    if (rc) {
        qr_sparql_query_free(*out);
        *out = NULL;
    }
    return rc;
}

void qr_sparql_query_free(qr_sparql_query *q)
{
    if (!q)
        return;
    qr_arena_release(&q->a);
    free(q);
}
