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
 * Rejected: a parser generator (a build dependency, and its error messages are not ours);
 * checking read-only by keyword search (the anchor's approach, which both over- and
 * under-refuses).
 */
#include "sparql_int.h"
#include "sparql_lex.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SQ_MAX_DEPTH 200
#define SQ_MAX_VARS 100000

typedef struct scope {
    struct scope *up;
    const char **names;
    int *idx;
    size_t n, cap;
} scope;

typedef struct bnode_use {
    const char *label;
    size_t serial;
} bnode_use;

typedef struct parser {
    qr_sparql_query *q;
    qr_arena *a;
    sq_lexer L;
    sq_token tok;
    jmp_buf jb;
    qr_sparql_error *err;
    int code;
    char *base;
    const char **pfx;
    char **pfx_iri;
    size_t npfx, cappfx;
    scope *sc;
    int depth;
    sq_select *agg_sel; /* where aggregates go; NULL where they are not allowed */
    bool in_agg;
    size_t bgp_serial;
    bnode_use *bn;
    size_t nbn, capbn;
    bool no_vars, no_bnodes, in_template;
    size_t anon;
    size_t cap_vars;
} parser;

static void fail_at(parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(parser *p, size_t at, const char *fmt, ...)
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

static void nomem(parser *p)
{
    snprintf(p->err->msg, sizeof p->err->msg, "out of memory while parsing the query");
    p->err->kind = QR_SPARQL_RUNTIME;
    p->code = QR_ENOMEM;
    longjmp(p->jb, 1);
}

static void *pa(parser *p, size_t n)
{
    void *r = qr_arena_zalloc(p->a, n ? n : 1);
    if (!r)
        nomem(p);
    return r;
}

static char *pdup(parser *p, const char *s, size_t n)
{
    char *r = qr_arena_strndup(p->a, s, n);
    if (!r)
        nomem(p);
    return r;
}

/* grows an arena array by doubling */
static void *grow(parser *p, void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap * 2 : 8, bytes;
    if (!qr_size_mul(nc, elem, &bytes))
        nomem(p);
    void *r = pa(p, bytes);
    if (arr)
        memcpy(r, arr, *cap * elem);
    *cap = nc;
    return r;
}

/* ---- tokens ---- */
static void next(parser *p)
{
    if (sq_lex_next(&p->L, &p->tok) < 0)
        fail_at(p, p->L.err_at, "%s", p->L.err);
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

static void unexpected(parser *p, const char *expected) __attribute__((noreturn));
static void unexpected(parser *p, const char *expected)
{
    char buf[64];
    fail_at(p, p->tok.at, "unexpected '%s': expected %s", tok_text(p, buf, sizeof buf),
            expected);
    abort(); /* not reached */
}

static bool is_word(parser *p, const char *w)
{
    return p->tok.kind == T_WORD && strlen(w) == p->tok.len && !strncasecmp(p->tok.s, w, p->tok.len);
}

static bool accept_word(parser *p, const char *w)
{
    if (is_word(p, w)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_word(parser *p, const char *w)
{
    if (!accept_word(p, w)) {
        char e[64];
        snprintf(e, sizeof e, "'%s'", w);
        unexpected(p, e);
    }
}

static bool accept(parser *p, int kind)
{
    if (p->tok.kind == kind) {
        next(p);
        return true;
    }
    return false;
}

static void expect(parser *p, int kind)
{
    if (!accept(p, kind)) {
        char e[16];
        snprintf(e, sizeof e, "'%c'", kind);
        unexpected(p, e);
    }
}

static void enter(parser *p)
{
    if (++p->depth > SQ_MAX_DEPTH)
        fail_at(p, p->tok.at, "query nests deeper than %d levels", SQ_MAX_DEPTH);
}

/* ---- IRIs ---- */
static void remove_dots(char *out, size_t *n)
{
    /* RFC 3986 5.2.4 over out[0..*n) in place */
    char *in = out;
    size_t len = *n, o = 0, i = 0;
    char *buf = in;
    while (i < len) {
        if (!strncmp(buf + i, "../", 3) && i + 3 <= len) {
            i += 3;
        } else if (!strncmp(buf + i, "./", 2) && i + 2 <= len) {
            i += 2;
        } else if (i + 3 <= len && !strncmp(buf + i, "/./", 3)) {
            i += 2;
        } else if (i + 2 == len && !strncmp(buf + i, "/.", 2)) {
            buf[i + 1] = '/';
            i += 1;
        } else if (i + 4 <= len && !strncmp(buf + i, "/../", 4)) {
            i += 3;
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (i + 3 == len && !strncmp(buf + i, "/..", 3)) {
            i += 2;
            buf[i] = '/';
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if ((i + 1 == len && buf[i] == '.') || (i + 2 == len && !strncmp(buf + i, "..", 2))) {
            break;
        } else {
            do {
                out[o++] = buf[i++];
            } while (i < len && buf[i] != '/');
        }
    }
    *n = o;
}

static bool has_scheme(const char *s, size_t n)
{
    if (!n || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return true;
        if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return false;
    }
    return false;
}

char *sq_resolve_iri(qr_arena *a, const char *base, const char *r, size_t rn)
{
    if (!base || has_scheme(r, rn))
        return qr_arena_strndup(a, r, rn);
    size_t bn = strlen(base);
    size_t cap = bn + rn + 4;
    char *out = qr_arena_alloc(a, cap);
    if (!out)
        return NULL;
    /* split the base: scheme, authority, path, query */
    const char *colon = strchr(base, ':');
    size_t scheme_end = colon ? (size_t)(colon - base) + 1 : 0;
    size_t auth_end = scheme_end;
    if (bn >= scheme_end + 2 && base[scheme_end] == '/' && base[scheme_end + 1] == '/') {
        auth_end = scheme_end + 2;
        while (auth_end < bn && base[auth_end] != '/' && base[auth_end] != '?' &&
               base[auth_end] != '#')
            auth_end++;
    }
    size_t path_end = auth_end;
    while (path_end < bn && base[path_end] != '?' && base[path_end] != '#')
        path_end++;
    size_t query_end = path_end;
    while (query_end < bn && base[query_end] != '#')
        query_end++;
    size_t o = 0;
    if (rn >= 2 && r[0] == '/' && r[1] == '/') {
        memcpy(out, base, scheme_end);
        o = scheme_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else if (rn == 0) {
        memcpy(out, base, query_end);
        o = query_end;
    } else if (r[0] == '#') {
        memcpy(out, base, query_end);
        o = query_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else if (r[0] == '?') {
        memcpy(out, base, path_end);
        o = path_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else {
        memcpy(out, base, auth_end);
        o = auth_end;
        size_t pstart = o;
        if (r[0] == '/') {
            memcpy(out + o, r, rn);
            o += rn;
        } else {
            /* merge: base path up to its last '/' */
            size_t last = path_end;
            while (last > auth_end && base[last - 1] != '/')
                last--;
            if (last == auth_end && auth_end > scheme_end) {
                out[o++] = '/';
            } else {
                memcpy(out + o, base + auth_end, last - auth_end);
                o += last - auth_end;
            }
            memcpy(out + o, r, rn);
            o += rn;
        }
        /* remove dot segments from the path part (stop at ? or #) */
        size_t pe = pstart;
        while (pe < o && out[pe] != '?' && out[pe] != '#')
            pe++;
        size_t plen = pe - pstart, tail = o - pe;
        char *tmp = qr_arena_alloc(a, tail + 1);
        if (!tmp)
            return NULL;
        memcpy(tmp, out + pe, tail);
        remove_dots(out + pstart, &plen);
        memcpy(out + pstart + plen, tmp, tail);
        o = pstart + plen + tail;
    }
    out[o] = 0;
    return out;
}

static const char *iri_of_token(parser *p)
{
    if (p->tok.kind == T_IRI) {
        char *r = sq_resolve_iri(p->a, p->base, p->tok.s, p->tok.len);
        if (!r)
            nomem(p);
        next(p);
        return r;
    }
    if (p->tok.kind == T_PNAME) {
        size_t i;
        for (i = p->npfx; i-- > 0;)
            if (strlen(p->pfx[i]) == p->tok.plen && !memcmp(p->pfx[i], p->tok.s, p->tok.plen))
                break;
        if (i == (size_t)-1) {
            char buf[64];
            fail_at(p, p->tok.at, "unknown prefix '%.*s:' in '%s': declare it with PREFIX",
                    (int)(p->tok.plen > 40 ? 40 : p->tok.plen), p->tok.s,
                    tok_text(p, buf, sizeof buf));
        }
        size_t bn = strlen(p->pfx_iri[i]);
        char *r = pa(p, bn + p->tok.llen + 1);
        memcpy(r, p->pfx_iri[i], bn);
        size_t o = bn;
        for (size_t k = 0; k < p->tok.llen; k++) {
            char c = p->tok.local[k];
            if (c == '\\' && k + 1 < p->tok.llen)
                c = p->tok.local[++k];
            r[o++] = c;
        }
        r[o] = 0;
        next(p);
        return r;
    }
    unexpected(p, "an IRI");
}

static bool at_iri(parser *p)
{
    return p->tok.kind == T_IRI || p->tok.kind == T_PNAME;
}

static sq_term iri_term(const char *s)
{
    sq_term t = {0};
    t.kind = SQ_IRI;
    t.lex = s;
    t.len = (uint32_t)strlen(s);
    return t;
}

/* ---- variables ---- */
static int var_index(parser *p, const char *name, size_t n)
{
    for (size_t i = 0; i < p->sc->n; i++)
        if (strlen(p->sc->names[i]) == n && !memcmp(p->sc->names[i], name, n))
            return p->sc->idx[i];
    if (p->q->nvars >= SQ_MAX_VARS)
        fail_at(p, p->tok.at, "query has more than %d variables", SQ_MAX_VARS);
    p->q->var_names = grow(p, p->q->var_names, &p->cap_vars, p->q->nvars, sizeof(char *));
    int idx = (int)p->q->nvars++;
    p->q->var_names[idx] = pdup(p, name, n);
    scope *s = p->sc;
    if (s->n == s->cap) {
        size_t c1 = s->cap, c2 = s->cap;
        s->names = grow(p, s->names, &c1, s->n, sizeof(char *));
        s->idx = grow(p, s->idx, &c2, s->n, sizeof(int));
        s->cap = c1;
    }
    s->names[s->n] = p->q->var_names[idx];
    s->idx[s->n++] = idx;
    return idx;
}

static int fresh_var(parser *p)
{
    char buf[32];
    snprintf(buf, sizeof buf, "_:_anon%zu", p->anon++);
    return var_index(p, buf, strlen(buf));
}

static bool hidden_var(const char *name)
{
    return name[0] == '_';
}

static int bnode_var(parser *p, const char *label, size_t n, size_t at)
{
    if (p->no_bnodes)
        fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
    char *name = pa(p, n + 3);
    name[0] = '_';
    name[1] = ':';
    memcpy(name + 2, label, n);
    for (size_t i = 0; i < p->nbn; i++)
        if (!strcmp(p->bn[i].label, name)) {
            if (p->bn[i].serial != p->bgp_serial && !p->in_template)
                fail_at(p, at, "blank node label '_:%.*s' is used in two basic graph patterns",
                        (int)(n > 40 ? 40 : n), label);
            return var_index(p, name, n + 2);
        }
    p->bn = grow(p, p->bn, &p->capbn, p->nbn, sizeof(bnode_use));
    p->bn[p->nbn].label = name;
    p->bn[p->nbn++].serial = p->bgp_serial;
    return var_index(p, name, n + 2);
}

/* ---- literals ---- */
static char *unescape_string(parser *p, const char *s, size_t n, size_t *outn)
{
    char *r = pa(p, n + 1);
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
    t.lex = unescape_string(p, p->tok.s, p->tok.len, &n);
    t.len = (uint32_t)n;
    next(p);
    if (p->tok.kind == T_LANG) {
        char *l = pdup(p, p->tok.s, p->tok.len);
        for (char *c = l; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        t.lang = l;
        next(p);
    } else if (accept(p, T_DTYPE)) {
        t.dt = iri_of_token(p);
        if (!strcmp(t.dt, XSD "string"))
            t.dt = NULL;
    }
    return t;
}

static sq_term numeric_term(parser *p, bool neg)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    char *s = pa(p, p->tok.len + 2);
    size_t o = 0;
    if (neg)
        s[o++] = '-';
    memcpy(s + o, p->tok.s, p->tok.len);
    t.lex = s;
    t.len = (uint32_t)(o + p->tok.len);
    t.dt = p->tok.kind == T_INTEGER ? XSD "integer" : p->tok.kind == T_DECIMAL ? XSD "decimal"
                                                                               : XSD "double";
    next(p);
    return t;
}

static bool at_number(parser *p)
{
    return p->tok.kind == T_INTEGER || p->tok.kind == T_DECIMAL || p->tok.kind == T_DOUBLE;
}

/* a constant term: iri, literal, number (signed), boolean; false if none here */
static bool parse_constant(parser *p, sq_term *t)
{
    if (at_iri(p)) {
        *t = iri_term(iri_of_token(p));
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
        next(p);
        if (!at_number(p))
            unexpected(p, "a number after the sign");
        *t = numeric_term(p, neg);
        return true;
    }
    if (is_word(p, "true") || is_word(p, "false")) {
        memset(t, 0, sizeof *t);
        t->kind = SQ_LIT;
        t->lex = is_word(p, "true") ? "true" : "false";
        t->len = (uint32_t)strlen(t->lex);
        t->dt = XSD "boolean";
        next(p);
        return true;
    }
    return false;
}

/* ---- node constructors ---- */
static sq_node *node(parser *p, int kind)
{
    sq_node *n = pa(p, sizeof *n);
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

static sq_expr *expr_new(parser *p, int op)
{
    sq_expr *e = pa(p, sizeof *e);
    e->op = op;
    e->var = -1;
    e->agg = -1;
    return e;
}

static sq_expr *expr2(parser *p, int op, sq_expr *a, sq_expr *b)
{
    sq_expr *e = expr_new(p, op);
    e->args = pa(p, 2 * sizeof(sq_expr *));
    e->args[0] = a;
    e->args[1] = b;
    e->nargs = 2;
    return e;
}

/* ---- in-scope variables of a pattern (18.2.1) ---- */
typedef struct varset {
    int *v;
    size_t n, cap;
} varset;

static void vs_add(parser *p, varset *s, int v)
{
    if (v < 0 || hidden_var(p->q->var_names[v]))
        return;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == v)
            return;
    s->v = grow(p, s->v, &s->cap, s->n, sizeof(int));
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
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == v)
            return true;
    return false;
}

/* ---- expressions ---- */
static sq_expr *parse_expr(parser *p);
static sq_node *parse_group(parser *p);
static sq_select *parse_subselect(parser *p);

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
    if (!accept(p, T_NIL)) {
        expect(p, '(');
        if (p->tok.kind != ')') {
            for (;;) {
                args = grow(p, args, &cap, n, sizeof *args);
                args[n++] = parse_expr(p);
                if (!accept(p, ','))
                    break;
            }
        }
        expect(p, ')');
    }
    if ((int)n < min || (max >= 0 && (int)n > max)) {
        if (min == max)
            fail_at(p, at, "function '%s' takes %d argument%s, got %zu", name, min,
                    min == 1 ? "" : "s", n);
        fail_at(p, at, "function '%s' takes %d to %d arguments, got %zu", name, min, max, n);
    }
    e->args = args;
    e->nargs = n;
    return e;
}

static sq_expr *parse_aggregate(parser *p, int fn)
{
    size_t at = p->tok.at;
    if (!p->agg_sel || p->in_agg)
        fail_at(p, at, "aggregate '%s' is not allowed here: aggregates go in SELECT "
                       "expressions, HAVING and ORDER BY, and do not nest",
                agg_names[fn]);
    next(p);
    sq_agg g = {0};
    g.fn = fn;
    expect(p, '(');
    if (accept_word(p, "DISTINCT"))
        g.distinct = true;
    p->in_agg = true;
    if (fn == AG_COUNT && accept(p, '*')) {
        g.star = true;
    } else {
        g.arg = parse_expr(p);
    }
    if (fn == AG_GROUP_CONCAT && accept(p, ';')) {
        expect_word(p, "SEPARATOR");
        expect(p, '=');
        if (p->tok.kind != T_STR)
            unexpected(p, "a string after SEPARATOR =");
        size_t n;
        g.sep = unescape_string(p, p->tok.s, p->tok.len, &n);
        next(p);
    }
    p->in_agg = false;
    expect(p, ')');
    sq_select *s = p->agg_sel;
    size_t cap = s->naggs; /* grows one at a time: aggregates are few */
    sq_agg *na = pa(p, (cap + 1) * sizeof *na);
    if (s->naggs)
        memcpy(na, s->aggs, s->naggs * sizeof *na);
    na[s->naggs] = g;
    s->aggs = na;
    sq_expr *e = expr_new(p, E_AGG);
    e->agg = (int)s->naggs++;
    s->grouped = true;
    return e;
}

static sq_expr *parse_primary(parser *p)
{
    sq_expr *e;
    if (accept(p, '(')) {
        e = parse_expr(p);
        expect(p, ')');
        return e;
    }
    if (p->tok.kind == T_VAR) {
        e = expr_new(p, E_VAR);
        e->var = var_index(p, p->tok.s, p->tok.len);
        next(p);
        return e;
    }
    if (at_iri(p)) {
        const char *iri = iri_of_token(p);
        if (p->tok.kind == '(' || p->tok.kind == T_NIL) {
            bool cast = !strncmp(iri, XSD, strlen(XSD)) &&
                        (!strcmp(iri + strlen(XSD), "string") ||
                         !strcmp(iri + strlen(XSD), "integer") ||
                         !strcmp(iri + strlen(XSD), "decimal") ||
                         !strcmp(iri + strlen(XSD), "float") ||
                         !strcmp(iri + strlen(XSD), "double") ||
                         !strcmp(iri + strlen(XSD), "boolean") ||
                         !strcmp(iri + strlen(XSD), "dateTime"));
            e = expr_new(p, cast ? E_CAST : E_CALL);
            e->t = iri_term(iri);
            if (!cast && accept(p, T_NIL))
                return e;
            if (!cast) {
                expect(p, '(');
                accept_word(p, "DISTINCT");
                sq_expr **args = NULL;
                size_t n = 0, cap = 0;
                if (p->tok.kind != ')')
                    for (;;) {
                        args = grow(p, args, &cap, n, sizeof *args);
                        args[n++] = parse_expr(p);
                        if (!accept(p, ','))
                            break;
                    }
                expect(p, ')');
                e->args = args;
                e->nargs = n;
                return e;
            }
            return parse_arglist(p, e, 1, 1, iri);
        }
        e = expr_new(p, E_CONST);
        e->t = iri_term(iri);
        return e;
    }
    sq_term t;
    if (p->tok.kind != '+' && p->tok.kind != '-' && parse_constant(p, &t)) {
        e = expr_new(p, E_CONST);
        e->t = t;
        return e;
    }
    if (p->tok.kind == T_WORD) {
        size_t at = p->tok.at;
        if (is_word(p, "NOT")) {
            next(p);
            if (!is_word(p, "EXISTS"))
                unexpected(p, "EXISTS after NOT");
        }
        bool negated = at != p->tok.at;
        if (accept_word(p, "EXISTS")) {
            e = expr_new(p, negated ? E_NOTEXISTS : E_EXISTS);
            sq_select *save = p->agg_sel;
            p->agg_sel = NULL;
            e->pat = parse_group(p);
            p->agg_sel = save;
            return e;
        }
        for (int i = 0; i < (int)(sizeof agg_names / sizeof agg_names[0]); i++)
            if (is_word(p, agg_names[i]))
                return parse_aggregate(p, i);
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            if (is_word(p, fns[i].name)) {
                next(p);
                e = expr_new(p, E_FUNC);
                e->fn = fns[i].fn;
                if (e->fn == F_BOUND) {
                    expect(p, '(');
                    if (p->tok.kind != T_VAR)
                        unexpected(p, "a variable in BOUND()");
                    sq_expr *v = expr_new(p, E_VAR);
                    v->var = var_index(p, p->tok.s, p->tok.len);
                    next(p);
                    expect(p, ')');
                    e->args = pa(p, sizeof(sq_expr *));
                    e->args[0] = v;
                    e->nargs = 1;
                    return e;
                }
                return parse_arglist(p, e, fns[i].min, fns[i].max, fns[i].name);
            }
        }
    }
    unexpected(p, "an expression");
}

static sq_expr *parse_unary(parser *p)
{
    enter(p);
    sq_expr *e;
    if (accept(p, '!')) {
        e = expr_new(p, E_NOT);
        e->args = pa(p, sizeof(sq_expr *));
        e->args[0] = parse_unary(p);
        e->nargs = 1;
    } else if (p->tok.kind == '-' || p->tok.kind == '+') {
        int op = p->tok.kind == '-' ? E_NEG : E_POS;
        next(p);
        e = expr_new(p, op);
        e->args = pa(p, sizeof(sq_expr *));
        e->args[0] = parse_unary(p);
        e->nargs = 1;
    } else {
        e = parse_primary(p);
    }
    p->depth--;
    return e;
}

static sq_expr *parse_mul(parser *p)
{
    sq_expr *e = parse_unary(p);
    while (p->tok.kind == '*' || p->tok.kind == '/') {
        int op = p->tok.kind == '*' ? E_MUL : E_DIV;
        next(p);
        e = expr2(p, op, e, parse_unary(p));
    }
    return e;
}

static sq_expr *parse_add(parser *p)
{
    sq_expr *e = parse_mul(p);
    while (p->tok.kind == '+' || p->tok.kind == '-') {
        int op = p->tok.kind == '+' ? E_ADD : E_SUB;
        next(p);
        e = expr2(p, op, e, parse_mul(p));
    }
    return e;
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
        next(p);
        return expr2(p, op, e, parse_add(p));
    }
    bool neg = false;
    if (is_word(p, "NOT")) {
        next(p);
        if (!is_word(p, "IN"))
            unexpected(p, "IN after NOT");
        neg = true;
    }
    if (accept_word(p, "IN")) {
        sq_expr *in = expr_new(p, neg ? E_NOTIN : E_IN);
        sq_expr **args = pa(p, sizeof *args);
        size_t n = 1, cap = 1;
        args[0] = e;
        if (!accept(p, T_NIL)) {
            expect(p, '(');
            for (;;) {
                args = grow(p, args, &cap, n, sizeof *args);
                args[n++] = parse_expr(p);
                if (!accept(p, ','))
                    break;
            }
            expect(p, ')');
        }
        in->args = args;
        in->nargs = n;
        return in;
    }
    return e;
}

static sq_expr *parse_and(parser *p)
{
    sq_expr *e = parse_relational(p);
    while (accept(p, T_AND))
        e = expr2(p, E_AND, e, parse_relational(p));
    return e;
}

static sq_expr *parse_expr(parser *p)
{
    enter(p);
    sq_expr *e = parse_and(p);
    while (accept(p, T_OR))
        e = expr2(p, E_OR, e, parse_and(p));
    p->depth--;
    return e;
}

/* Constraint: BrackettedExpression | BuiltInCall | FunctionCall */
static sq_expr *parse_constraint(parser *p)
{
    if (p->tok.kind == '(' || p->tok.kind == T_WORD || at_iri(p))
        return parse_primary(p);
    unexpected(p, "a bracketted expression or a function call");
}

/* ---- triples and paths ---- */
typedef struct tlist {
    sq_triple *t;
    size_t n, cap;
} tlist;

static void add_triple(parser *p, tlist *tl, sq_slot s, sq_slot pr, sq_path *path, sq_slot o)
{
    tl->t = grow(p, tl->t, &tl->cap, tl->n, sizeof(sq_triple));
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
    sq_path *x = pa(p, sizeof *x);
    x->kind = kind;
    return x;
}

static sq_path *parse_path(parser *p);

static void parse_neg_one(parser *p, sq_path *x, size_t *cap)
{
    bool inv = accept(p, '^');
    sq_term t;
    if (accept_word(p, "a"))
        t = iri_term(RDF_NS "type");
    else
        t = iri_term(iri_of_token(p));
    size_t c1 = *cap, c2 = *cap;
    x->neg = grow(p, x->neg, &c1, x->nneg, sizeof(sq_term));
    x->neg_inv = grow(p, x->neg_inv, &c2, x->nneg, sizeof(bool));
    *cap = c1;
    x->neg[x->nneg] = t;
    x->neg_inv[x->nneg++] = inv;
}

static sq_path *parse_path_primary(parser *p)
{
    if (accept_word(p, "a")) {
        sq_path *x = path_new(p, P_LINK);
        x->iri = iri_term(RDF_NS "type");
        return x;
    }
    if (at_iri(p)) {
        sq_path *x = path_new(p, P_LINK);
        x->iri = iri_term(iri_of_token(p));
        return x;
    }
    if (accept(p, '!')) {
        sq_path *x = path_new(p, P_NEG);
        size_t cap = 0;
        if (accept(p, '(')) {
            if (p->tok.kind != ')') {
                for (;;) {
                    parse_neg_one(p, x, &cap);
                    if (!accept(p, '|'))
                        break;
                }
            }
            expect(p, ')');
        } else if (accept(p, T_NIL)) {
            /* !() matches every predicate */
        } else {
            parse_neg_one(p, x, &cap);
        }
        return x;
    }
    if (accept(p, '(')) {
        sq_path *x = parse_path(p);
        expect(p, ')');
        return x;
    }
    unexpected(p, "a property path");
}

static sq_path *parse_path_elt(parser *p)
{
    enter(p);
    bool inv = accept(p, '^');
    sq_path *x = parse_path_primary(p);
    for (;;) {
        int k = p->tok.kind == '*' ? P_STAR : p->tok.kind == '+' ? P_PLUS
                                            : p->tok.kind == '?' ? P_OPT : -1;
        if (k < 0)
            break;
        next(p);
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
    while (accept(p, '/')) {
        sq_path *m = path_new(p, P_SEQ);
        m->a = x;
        m->b = parse_path_elt(p);
        x = m;
    }
    return x;
}

static sq_path *parse_path(parser *p)
{
    enter(p);
    sq_path *x = parse_path_seq(p);
    while (accept(p, '|')) {
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
        fail_at(p, p->tok.at, "variables are not allowed in INSERT DATA or DELETE DATA");
    int v = var_index(p, p->tok.s, p->tok.len);
    next(p);
    return var_slot(v);
}

static void parse_object_list(parser *p, tlist *tl, sq_slot s, sq_slot pr, sq_path *path)
{
    for (;;) {
        sq_slot o = parse_node(p, tl);
        add_triple(p, tl, s, pr, path, o);
        if (!accept(p, ','))
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
        if (!accept(p, ';'))
            break;
        while (accept(p, ';'))
            ;
        if (p->tok.kind != T_VAR && !at_iri(p) && !is_word(p, "a") && p->tok.kind != '^' &&
            p->tok.kind != '!' && p->tok.kind != '(')
            break;
    }
}

static sq_slot parse_node(parser *p, tlist *tl)
{
    enter(p);
    sq_slot r;
    size_t at = p->tok.at;
    if (p->tok.kind == T_VAR) {
        r = parse_var_slot(p);
    } else if (p->tok.kind == T_BNODE) {
        r = var_slot(bnode_var(p, p->tok.s, p->tok.len, at));
        next(p);
    } else if (p->tok.kind == T_ANON) {
        if (p->no_bnodes)
            fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
        next(p);
        r = var_slot(fresh_var(p));
    } else if (p->tok.kind == T_NIL) {
        next(p);
        r = const_slot(iri_term(RDF_NS "nil"));
    } else if (accept(p, '[')) {
        if (p->no_bnodes)
            fail_at(p, at, "blank nodes are not allowed in DELETE data or templates");
        r = var_slot(fresh_var(p));
        parse_property_list(p, tl, r);
        expect(p, ']');
    } else if (accept(p, '(')) {
        /* a collection: rdf:first/rdf:rest chain */
        r = var_slot(fresh_var(p));
        sq_slot cur = r;
        bool first = true;
        while (p->tok.kind != ')') {
            if (p->tok.kind == T_EOF)
                unexpected(p, "')' to close the collection");
            if (!first) {
                sq_slot nx = var_slot(fresh_var(p));
                add_triple(p, tl, cur, const_slot(iri_term(RDF_NS "rest")), NULL, nx);
                cur = nx;
            }
            sq_slot item = parse_node(p, tl);
            add_triple(p, tl, cur, const_slot(iri_term(RDF_NS "first")), NULL, item);
            first = false;
        }
        next(p);
        add_triple(p, tl, cur, const_slot(iri_term(RDF_NS "rest")), NULL,
                   const_slot(iri_term(RDF_NS "nil")));
    } else {
        sq_term t;
        if (!parse_constant(p, &t))
            unexpected(p, "a variable, IRI, literal or blank node");
        r = const_slot(t);
    }
    p->depth--;
    return r;
}

static bool at_triples_start(parser *p)
{
    int k = p->tok.kind;
    return k == T_VAR || k == T_IRI || k == T_PNAME || k == T_BNODE || k == T_ANON ||
           k == T_NIL || k == '[' || k == '(' || k == T_STR || k == T_INTEGER ||
           k == T_DECIMAL || k == T_DOUBLE || k == '+' || k == '-' || is_word(p, "true") ||
           is_word(p, "false");
}

/* TriplesSameSubjectPath ( '.' TriplesSameSubjectPath? )* */
static void parse_triples_block(parser *p, tlist *tl)
{
    for (;;) {
        bool bnode_list = p->tok.kind == '[' || p->tok.kind == '(';
        sq_slot s = parse_node(p, tl);
        if (bnode_list && (p->tok.kind == '.' || p->tok.kind == '}')) {
            /* [ :p :o ] alone is a complete triples block */
        } else {
            parse_property_list(p, tl, s);
        }
        if (!accept(p, '.'))
            break;
        if (!at_triples_start(p))
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
        n->vvars = pa(p, sizeof(int));
        n->vvars[0] = var_index(p, p->tok.s, p->tok.len);
        n->nvvars = 1;
        next(p);
    } else if (accept(p, T_NIL)) {
    } else {
        expect(p, '(');
        while (p->tok.kind == T_VAR) {
            n->vvars = grow(p, n->vvars, &capv, n->nvvars, sizeof(int));
            int v = var_index(p, p->tok.s, p->tok.len);
            for (size_t i = 0; i < n->nvvars; i++)
                if (n->vvars[i] == v)
                    fail_at(p, p->tok.at, "variable '?%s' appears twice in VALUES",
                            p->q->var_names[v]);
            n->vvars[n->nvvars++] = v;
            next(p);
        }
        expect(p, ')');
    }
    expect(p, '{');
    size_t capr = 0;
    while (p->tok.kind != '}') {
        size_t k = n->nvvars;
        if (!single) {
            if (accept(p, T_NIL)) {
                if (k)
                    fail_at(p, p->tok.at, "a VALUES row has 0 values for %zu variables", k);
                size_t need = (n->nvrows + 1) * (k ? k : 1);
                (void)need;
                n->nvrows++;
                continue;
            }
            expect(p, '(');
        }
        size_t need;
        if (!qr_size_mul(n->nvrows + 1, k, &need))
            nomem(p);
        if (need > capr) {
            size_t nc = capr ? capr * 2 : 16;
            while (nc < need)
                nc *= 2;
            sq_term *nv = pa(p, nc * sizeof(sq_term));
            if (n->vals)
                memcpy(n->vals, n->vals, 0);
            if (n->vals)
                memcpy(nv, n->vals, capr * sizeof(sq_term));
            n->vals = nv;
            capr = nc;
        }
        for (size_t i = 0; i < k; i++) {
            sq_term t = {0};
            if (accept_word(p, "UNDEF")) {
                t.kind = 0;
            } else if (!parse_constant(p, &t)) {
                unexpected(p, "a value or UNDEF in VALUES");
            }
            n->vals[n->nvrows * k + i] = t;
        }
        n->nvrows++;
        if (!single)
            expect(p, ')');
    }
    next(p);
    return n;
}

static sq_node *parse_group_or_union(parser *p)
{
    sq_node *a = parse_group(p);
    while (accept_word(p, "UNION")) {
        sq_node *u = node(p, N_UNION);
        u->a = a;
        u->b = parse_group(p);
        a = u;
    }
    return a;
}

static sq_slot parse_var_or_iri(parser *p)
{
    if (p->tok.kind == T_VAR) {
        int v = var_index(p, p->tok.s, p->tok.len);
        next(p);
        return var_slot(v);
    }
    return const_slot(iri_term(iri_of_token(p)));
}

static sq_node *parse_group(parser *p)
{
    enter(p);
    expect(p, '{');
    if (is_word(p, "SELECT")) {
        sq_node *n = node(p, N_SUB);
        n->sub = parse_subselect(p);
        expect(p, '}');
        p->depth--;
        return n;
    }
    sq_node *g = node(p, N_UNIT);
    sq_expr **filters = NULL;
    size_t nf = 0, capf = 0;
    tlist tl = {0};
    p->bgp_serial++;
    for (;;) {
        if (accept(p, '}'))
            break;
        if (at_triples_start(p)) {
            parse_triples_block(p, &tl);
            continue;
        }
        if (is_word(p, "FILTER")) {
            next(p);
            filters = grow(p, filters, &capf, nf, sizeof *filters);
            filters[nf++] = parse_constraint(p);
            accept(p, '.');
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
        if (accept_word(p, "OPTIONAL")) {
            sq_node *a = parse_group(p);
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
        } else if (accept_word(p, "MINUS")) {
            sq_node *m = node(p, N_MINUS);
            m->a = g;
            m->b = parse_group(p);
            g = m;
        } else if (accept_word(p, "GRAPH")) {
            sq_node *gr = node(p, N_GRAPH);
            gr->graph = parse_var_or_iri(p);
            gr->a = parse_group(p);
            g = join(p, g, gr);
        } else if (accept_word(p, "SERVICE")) {
            accept_word(p, "SILENT");
            sq_node *sv = node(p, N_SERVICE);
            sv->graph = parse_var_or_iri(p);
            sv->a = parse_group(p);
            p->q->has_service = true;
            g = join(p, g, sv);
        } else if (is_word(p, "BIND")) {
            size_t at = p->tok.at;
            next(p);
            expect(p, '(');
            sq_expr *e = parse_expr(p);
            expect_word(p, "AS");
            if (p->tok.kind != T_VAR)
                unexpected(p, "a variable after AS");
            int v = var_index(p, p->tok.s, p->tok.len);
            next(p);
            expect(p, ')');
            varset vs = {0};
            node_vars(p, g, &vs);
            if (vs_has(&vs, v))
                fail_at(p, at, "BIND assigns '?%s', which is already bound in the group "
                               "before it",
                        p->q->var_names[v]);
            sq_node *x = node(p, N_EXTEND);
            x->a = g;
            x->var = v;
            x->expr = e;
            g = x;
        } else if (accept_word(p, "VALUES")) {
            g = join(p, g, parse_values_block(p));
        } else if (p->tok.kind == '{') {
            g = join(p, g, parse_group_or_union(p));
        } else {
            unexpected(p, "a triple pattern, FILTER, OPTIONAL, MINUS, GRAPH, SERVICE, BIND, "
                          "VALUES, '{' or '}'");
        }
        accept(p, '.');
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
            fail_at(p, at, "variable '?%s' is used outside an aggregate but is not grouped",
                    p->q->var_names[e->var]);
        return;
    }
    if (e->op == E_AGG || e->op == E_EXISTS || e->op == E_NOTEXISTS)
        return;
    for (size_t i = 0; i < e->nargs; i++)
        check_grouped_expr(p, s, e->args[i], ok, at);
}

static void parse_solution_modifiers(parser *p, sq_select *s)
{
    if (accept_word(p, "GROUP")) {
        expect_word(p, "BY");
        size_t cap = 0, cap2 = 0;
        for (;;) {
            sq_expr *e;
            int as = -1;
            if (p->tok.kind == T_VAR) {
                e = expr_new(p, E_VAR);
                e->var = var_index(p, p->tok.s, p->tok.len);
                next(p);
            } else if (accept(p, '(')) {
                e = parse_expr(p);
                if (accept_word(p, "AS")) {
                    if (p->tok.kind != T_VAR)
                        unexpected(p, "a variable after AS");
                    as = var_index(p, p->tok.s, p->tok.len);
                    next(p);
                }
                expect(p, ')');
            } else if ((p->tok.kind == T_WORD && !is_word(p, "HAVING") && !is_word(p, "ORDER") &&
                        !is_word(p, "LIMIT") && !is_word(p, "OFFSET") &&
                        !is_word(p, "VALUES")) ||
                       at_iri(p)) {
                e = parse_primary(p);
            } else {
                break;
            }
            s->group = grow(p, s->group, &cap, s->ngroup, sizeof *s->group);
            s->group_as = grow(p, s->group_as, &cap2, s->ngroup, sizeof(int));
            s->group[s->ngroup] = e;
            s->group_as[s->ngroup++] = as;
        }
        if (!s->ngroup)
            unexpected(p, "a group condition");
        s->grouped = true;
    }
    sq_select *save = p->agg_sel;
    p->agg_sel = s;
    if (accept_word(p, "HAVING")) {
        size_t cap = 0;
        do {
            s->having = grow(p, s->having, &cap, s->nhaving, sizeof *s->having);
            s->having[s->nhaving++] = parse_constraint(p);
        } while (p->tok.kind == '(' || at_iri(p) ||
                 (p->tok.kind == T_WORD && !is_word(p, "ORDER") && !is_word(p, "LIMIT") &&
                  !is_word(p, "OFFSET") && !is_word(p, "VALUES")));
        s->grouped = true;
    }
    if (accept_word(p, "ORDER")) {
        expect_word(p, "BY");
        size_t cap = 0, cap2 = 0;
        for (;;) {
            bool desc = false;
            sq_expr *e;
            if (is_word(p, "ASC") || is_word(p, "DESC")) {
                desc = is_word(p, "DESC");
                next(p);
                if (p->tok.kind != '(')
                    unexpected(p, "'(' after ASC or DESC");
                e = parse_primary(p);
            } else if (p->tok.kind == T_VAR) {
                e = expr_new(p, E_VAR);
                e->var = var_index(p, p->tok.s, p->tok.len);
                next(p);
            } else if (p->tok.kind == '(' || (p->tok.kind == T_WORD && !is_word(p, "LIMIT") &&
                                              !is_word(p, "OFFSET") && !is_word(p, "VALUES")) ||
                       at_iri(p)) {
                e = parse_constraint(p);
            } else {
                break;
            }
            s->order = grow(p, s->order, &cap, s->norder, sizeof *s->order);
            s->desc = grow(p, s->desc, &cap2, s->norder, sizeof(bool));
            s->order[s->norder] = e;
            s->desc[s->norder++] = desc;
        }
        if (!s->norder)
            unexpected(p, "an order condition");
    }
    p->agg_sel = save;
    for (int round = 0; round < 2; round++) {
        if (s->limit < 0 && accept_word(p, "LIMIT")) {
            if (p->tok.kind != T_INTEGER)
                unexpected(p, "an integer after LIMIT");
            s->limit = strtoll(p->tok.s, NULL, 10);
            next(p);
        } else if (s->offset == 0 && accept_word(p, "OFFSET")) {
            if (p->tok.kind != T_INTEGER)
                unexpected(p, "an integer after OFFSET");
            s->offset = strtoll(p->tok.s, NULL, 10);
            next(p);
        }
    }
}

static void parse_dataset(parser *p)
{
    while (accept_word(p, "FROM")) {
        bool named = accept_word(p, "NAMED");
        sq_term t = iri_term(iri_of_token(p));
        qr_sparql_query *q = p->q;
        if (named) {
            sq_term *n = pa(p, (q->nfrom_named + 1) * sizeof *n);
            if (q->nfrom_named)
                memcpy(n, q->from_named, q->nfrom_named * sizeof *n);
            n[q->nfrom_named++] = t;
            q->from_named = n;
        } else {
            sq_term *n = pa(p, (q->nfrom + 1) * sizeof *n);
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
    if (accept_word(p, "DISTINCT"))
        s->distinct = true;
    else if (accept_word(p, "REDUCED"))
        s->reduced = true;
    size_t cap = 0, cap2 = 0;
    size_t *proj_at = NULL;
    size_t capat = 0;
    if (accept(p, '*')) {
        s->star = true;
    } else {
        sq_select *save = p->agg_sel;
        p->agg_sel = s;
        for (;;) {
            int v;
            sq_expr *e = NULL;
            size_t at = p->tok.at;
            if (p->tok.kind == T_VAR) {
                v = var_index(p, p->tok.s, p->tok.len);
                next(p);
            } else if (accept(p, '(')) {
                e = parse_expr(p);
                expect_word(p, "AS");
                if (p->tok.kind != T_VAR)
                    unexpected(p, "a variable after AS");
                v = var_index(p, p->tok.s, p->tok.len);
                next(p);
                expect(p, ')');
            } else {
                break;
            }
            for (size_t i = 0; i < s->nproj; i++)
                if (s->proj_var[i] == v && (e || s->proj_expr[i]))
                    fail_at(p, at, "variable '?%s' is projected twice", p->q->var_names[v]);
            s->proj_var = grow(p, s->proj_var, &cap, s->nproj, sizeof(int));
            s->proj_expr = grow(p, s->proj_expr, &cap2, s->nproj, sizeof(sq_expr *));
            proj_at = grow(p, proj_at, &capat, s->nproj, sizeof(size_t));
            proj_at[s->nproj] = at;
            s->proj_var[s->nproj] = v;
            s->proj_expr[s->nproj++] = e;
        }
        p->agg_sel = save;
        if (!s->nproj)
            unexpected(p, "variables, '(expression AS ?var)' or '*' after SELECT");
    }
    if (top)
        parse_dataset(p);
    else if (is_word(p, "FROM"))
        fail_at(p, p->tok.at, "a subquery cannot have FROM");
    accept_word(p, "WHERE");
    if (p->tok.kind != '{')
        unexpected(p, "'{' to start the WHERE clause");
    s->where = parse_group(p);
    parse_solution_modifiers(p, s);
    /* checks */
    varset inscope = {0};
    node_vars(p, s->where, &inscope);
    if (s->star && s->grouped)
        fail_at(p, sel_at, "SELECT * cannot be used with GROUP BY or aggregates");
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
                    fail_at(p, proj_at[i],
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
            fail_at(p, proj_at[i], "'?%s' is already bound in the WHERE clause: choose another "
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

static sq_select *select_new(parser *p, int form)
{
    sq_select *s = pa(p, sizeof *s);
    s->form = form;
    s->limit = -1;
    return s;
}

static sq_select *parse_subselect(parser *p)
{
    enter(p);
    expect_word(p, "SELECT");
    scope *inner = pa(p, sizeof *inner);
    inner->up = p->sc;
    p->sc = inner;
    sq_select *save_agg = p->agg_sel;
    bool save_in = p->in_agg;
    p->in_agg = false;
    sq_select *s = select_new(p, QR_SPARQL_SELECT);
    parse_select_rest(p, s, false);
    if (accept_word(p, "VALUES"))
        s->values = parse_values_block(p);
    p->sc = inner->up;
    p->agg_sel = save_agg;
    p->in_agg = save_in;
    if (s->star) {
        s->nproj = s->nscope;
        s->proj_var = s->scope_vars;
        s->proj_expr = pa(p, (s->nproj ? s->nproj : 1) * sizeof(sq_expr *));
        s->star = false;
    }
    s->proj_outer = pa(p, (s->nproj ? s->nproj : 1) * sizeof(int));
    for (size_t i = 0; i < s->nproj; i++) {
        const char *name = p->q->var_names[s->proj_var[i]];
        s->proj_outer[i] = var_index(p, name, strlen(name));
    }
    p->depth--;
    return s;
}

/* ---- CONSTRUCT, DESCRIBE and updates: parsed whole, then refused ---- */
static void parse_quads_body(parser *p, tlist *tl);
static void parse_quads(parser *p, tlist *tl)
{
    bool save = p->in_template;
    p->in_template = true;
    parse_quads_body(p, tl);
    p->in_template = save;
}

static void parse_quads_body(parser *p, tlist *tl)
{
    expect(p, '{');
    for (;;) {
        if (accept(p, '}'))
            break;
        if (accept_word(p, "GRAPH")) {
            if (p->tok.kind == T_VAR && p->no_vars)
                fail_at(p, p->tok.at, "variables are not allowed in INSERT DATA or DELETE DATA");
            parse_var_or_iri(p);
            expect(p, '{');
            if (p->tok.kind != '}')
                parse_triples_block(p, tl);
            expect(p, '}');
            accept(p, '.');
            continue;
        }
        if (!at_triples_start(p))
            unexpected(p, "triples, GRAPH or '}'");
        parse_triples_block(p, tl);
    }
}

static void check_template(parser *p, tlist *tl, size_t at)
{
    for (size_t i = 0; i < tl->n; i++)
        if (tl->t[i].path)
            fail_at(p, at, "property paths are not allowed in a template");
}

static void parse_construct(parser *p)
{
    size_t at = p->tok.at;
    sq_select *s = select_new(p, QR_SPARQL_CONSTRUCT);
    tlist tl = {0};
    if (p->tok.kind == '{') {
        parse_quads(p, &tl);
        check_template(p, &tl, at);
        parse_dataset(p);
        accept_word(p, "WHERE");
        s->where = parse_group(p);
    } else {
        parse_dataset(p);
        expect_word(p, "WHERE");
        expect(p, '{');
        if (p->tok.kind != '}')
            parse_triples_block(p, &tl);
        check_template(p, &tl, at);
        expect(p, '}');
    }
    parse_solution_modifiers(p, s);
    p->q->top = s;
}

static void parse_describe(parser *p)
{
    sq_select *s = select_new(p, QR_SPARQL_DESCRIBE);
    if (!accept(p, '*')) {
        bool any = false;
        while (p->tok.kind == T_VAR || at_iri(p)) {
            parse_var_or_iri(p);
            any = true;
        }
        if (!any)
            unexpected(p, "variables, IRIs or '*' after DESCRIBE");
    }
    parse_dataset(p);
    if (accept_word(p, "WHERE") || p->tok.kind == '{')
        s->where = parse_group(p);
    parse_solution_modifiers(p, s);
    p->q->top = s;
}

static void parse_graph_ref(parser *p, bool all)
{
    if (accept_word(p, "GRAPH")) {
        iri_of_token(p);
        return;
    }
    if (accept_word(p, "DEFAULT"))
        return;
    if (all && (accept_word(p, "NAMED") || accept_word(p, "ALL")))
        return;
    if (!all && at_iri(p)) {
        iri_of_token(p);
        return;
    }
    unexpected(p, all ? "GRAPH <iri>, DEFAULT, NAMED or ALL" : "DEFAULT, GRAPH <iri> or <iri>");
}

static const char *parse_update1(parser *p)
{
    const char *name;
    if (accept_word(p, "LOAD")) {
        accept_word(p, "SILENT");
        iri_of_token(p);
        if (accept_word(p, "INTO")) {
            expect_word(p, "GRAPH");
            iri_of_token(p);
        }
        return "LOAD";
    }
    if (is_word(p, "CLEAR") || is_word(p, "DROP")) {
        name = is_word(p, "CLEAR") ? "CLEAR" : "DROP";
        next(p);
        accept_word(p, "SILENT");
        parse_graph_ref(p, true);
        return name;
    }
    if (accept_word(p, "CREATE")) {
        accept_word(p, "SILENT");
        expect_word(p, "GRAPH");
        iri_of_token(p);
        return "CREATE";
    }
    if (is_word(p, "ADD") || is_word(p, "MOVE") || is_word(p, "COPY")) {
        name = is_word(p, "ADD") ? "ADD" : is_word(p, "MOVE") ? "MOVE" : "COPY";
        next(p);
        accept_word(p, "SILENT");
        parse_graph_ref(p, false);
        expect_word(p, "TO");
        parse_graph_ref(p, false);
        return name;
    }
    tlist tl = {0};
    bool with = false;
    if (accept_word(p, "WITH")) {
        iri_of_token(p);
        with = true;
    }
    if (accept_word(p, "INSERT")) {
        if (!with && accept_word(p, "DATA")) {
            /* blank node labels of INSERT DATA are scoped to the whole request: one used
             * by two operations is an error (a fresh serial per operation) */
            p->no_vars = true;
            p->bgp_serial++;
            parse_quads_body(p, &tl);
            p->no_vars = false;
            return "INSERT DATA";
        }
        parse_quads(p, &tl);
        name = "INSERT";
    } else if (accept_word(p, "DELETE")) {
        if (!with && accept_word(p, "DATA")) {
            p->no_vars = p->no_bnodes = true;
            parse_quads(p, &tl);
            p->no_vars = p->no_bnodes = false;
            return "DELETE DATA";
        }
        if (!with && accept_word(p, "WHERE")) {
            p->no_bnodes = true;
            parse_quads(p, &tl);
            p->no_bnodes = false;
            return "DELETE WHERE";
        }
        p->no_bnodes = true;
        parse_quads(p, &tl);
        p->no_bnodes = false;
        name = "DELETE";
        if (accept_word(p, "INSERT"))
            parse_quads(p, &tl);
    } else {
        unexpected(p, "SELECT, ASK, CONSTRUCT, DESCRIBE or an update operation");
    }
    while (accept_word(p, "USING")) {
        accept_word(p, "NAMED");
        iri_of_token(p);
    }
    expect_word(p, "WHERE");
    parse_group(p);
    return name;
}

static void parse_prologue(parser *p)
{
    for (;;) {
        if (accept_word(p, "BASE")) {
            if (p->tok.kind != T_IRI)
                unexpected(p, "an IRI after BASE");
            p->base = (char *)iri_of_token(p);
        } else if (accept_word(p, "PREFIX")) {
            if (p->tok.kind != T_PNAME || p->tok.llen)
                unexpected(p, "a prefix such as 'ex:' after PREFIX");
            const char *name = pdup(p, p->tok.s, p->tok.plen);
            next(p);
            if (p->tok.kind != T_IRI)
                unexpected(p, "an IRI after the prefix name");
            const char *iri = iri_of_token(p);
            size_t c1 = p->cappfx, c2 = p->cappfx;
            p->pfx = grow(p, p->pfx, &c1, p->npfx, sizeof(char *));
            p->pfx_iri = grow(p, p->pfx_iri, &c2, p->npfx, sizeof(char *));
            p->cappfx = c1;
            p->pfx[p->npfx] = name;
            p->pfx_iri[p->npfx++] = (char *)iri;
        } else {
            break;
        }
    }
}

static bool at_update_word(parser *p)
{
    static const char *const w[] = {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE",
                                    "ADD", "MOVE", "COPY", "WITH"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (is_word(p, w[i]))
            return true;
    return false;
}

static void parse_update_request(parser *p)
{
    p->q->form = QR_SPARQL_UPDATE;
    for (;;) {
        if (p->tok.kind == T_EOF)
            break;
        const char *name = parse_update1(p);
        if (!p->q->update_name)
            p->q->update_name = name;
        if (!accept(p, ';'))
            break;
        parse_prologue(p);
    }
    if (!p->q->update_name)
        p->q->update_name = "an empty request";
}

static void parse_query(parser *p)
{
    parse_prologue(p);
    scope *top = pa(p, sizeof *top);
    p->sc = top;
    if (accept_word(p, "SELECT")) {
        sq_select *s = select_new(p, QR_SPARQL_SELECT);
        parse_select_rest(p, s, true);
        p->q->form = QR_SPARQL_SELECT;
        p->q->top = s;
    } else if (accept_word(p, "ASK")) {
        sq_select *s = select_new(p, QR_SPARQL_ASK);
        parse_dataset(p);
        accept_word(p, "WHERE");
        s->where = parse_group(p);
        parse_solution_modifiers(p, s);
        p->q->form = QR_SPARQL_ASK;
        p->q->top = s;
    } else if (accept_word(p, "CONSTRUCT")) {
        p->q->form = QR_SPARQL_CONSTRUCT;
        parse_construct(p);
    } else if (accept_word(p, "DESCRIBE")) {
        p->q->form = QR_SPARQL_DESCRIBE;
        parse_describe(p);
    } else if (at_update_word(p) || p->tok.kind == T_EOF) {
        parse_update_request(p);
        if (p->tok.kind != T_EOF)
            unexpected(p, "';' or the end of the update");
        return;
    } else {
        unexpected(p, "SELECT, ASK, CONSTRUCT, DESCRIBE, PREFIX or BASE");
    }
    if (accept_word(p, "VALUES")) {
        sq_node *v = parse_values_block(p);
        if (p->q->top)
            p->q->top->values = v;
    }
    if (p->tok.kind != T_EOF)
        unexpected(p, "the end of the query");
}

int qr_sparql_parse(const char *text, size_t len, const char *base, qr_sparql_query **out,
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
        nomem(p);
    p->L.s = text;
    p->L.n = len;
    if (rc)
        fail_at(p, 0, "%s", emsg);
    if (!qr_utf8_valid(s, n))
        fail_at(p, 0, "the query is not valid UTF-8");
    p->L.s = s;
    p->L.n = n;
    if (base)
        p->base = pdup(p, base, strlen(base));
    next(p);
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
    int rc = qr_sparql_parse(text, len, base, out, err);
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
