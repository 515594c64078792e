/*
 * sparql_int.h: what the files of the SPARQL engine share: terms, the store's layout, the
 * parsed query (already in SPARQL algebra), and the entry points between parser, store,
 * evaluator, expressions and result writers.
 */
#ifndef QUARRY_SPARQL_INT_H
#define QUARRY_SPARQL_INT_H

#include "quarry/sparql.h"

#include <stdint.h>

typedef uint32_t sq_id; /* dictionary id; 0 = none / unbound */

enum { SQ_IRI = 1, SQ_BLANK = 2, SQ_LIT = 3 };

/* A term. Literals: dt is the datatype IRI, NULL for a simple literal (xsd:string) and for
 * a language-tagged one (lang set). Strings are NUL-terminated. */
typedef struct sq_term {
    uint8_t kind; /* 0: none (UNDEF in VALUES) */
    uint32_t len;
    const char *lex;
    const char *dt;
    const char *lang;
} sq_term;

#define XSD "http://www.w3.org/2001/XMLSchema#"
#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

/* ---- store ---- */
typedef struct sq_quad {
    sq_id g, s, p, o;
} sq_quad;

enum { SQ_IX_SPO, SQ_IX_POS, SQ_IX_OSP, SQ_NIX };

struct qr_sparql_store {
    qr_arena strs;
    sq_term *terms; /* id -> term; terms[0] unused */
    size_t nterms, capterms;
    uint32_t *htab; /* open addressing: ids */
    size_t hcap;
    sq_quad *quads;
    size_t nquads, capquads;
    sq_quad *ix[SQ_NIX];
    bool dirty;
    sq_id *graphs; /* named graphs, sorted */
    size_t ngraphs;
    size_t bnode_seq;   /* fresh blank node labels while loading */
    size_t load_serial; /* each load scopes its blank node labels */
};

/* Looks up a term; 0 when absent. */
sq_id sq_dict_find(const qr_sparql_store *st, const sq_term *t);
/* Finds or adds a term (strings copied); 0 when out of memory. */
sq_id sq_dict_intern(qr_sparql_store *st, const sq_term *t);
static inline const sq_term *sq_dict_term(const qr_sparql_store *st, sq_id id)
{
    return &st->terms[id];
}
int sq_store_add_ids(qr_sparql_store *st, sq_id g, sq_id s, sq_id p, sq_id o);
/* Sorts the indexes when triples were added since the last call. */
int sq_store_index(qr_sparql_store *st);
/* The quads matching g (never 0 here: graph 0 is the default graph, a real id otherwise
 * is a named graph; use SQ_DEFAULT_G) and s, p, o (0 = any): [*lo, *hi) of the index
 * returned. */
#define SQ_DEFAULT_G 0xffffffffu
const sq_quad *sq_store_match(const qr_sparql_store *st, sq_id g, sq_id s, sq_id p, sq_id o,
                              size_t *n);

/* ---- query algebra ---- */
typedef struct sq_expr sq_expr;
typedef struct sq_node sq_node;
typedef struct sq_select sq_select;

typedef struct sq_slot {
    int var; /* >= 0: variable index; -1: constant t */
    sq_term t;
} sq_slot;

enum { P_LINK, P_INV, P_SEQ, P_ALT, P_STAR, P_PLUS, P_OPT, P_NEG };
typedef struct sq_path {
    int kind;
    sq_term iri; /* P_LINK */
    struct sq_path *a, *b;
    sq_term *neg; /* P_NEG: the IRIs, with neg_inv telling the inverse ones */
    bool *neg_inv;
    size_t nneg;
} sq_path;

typedef struct sq_triple {
    sq_slot s, p, o;
    sq_path *path; /* NULL: a plain triple pattern with predicate p */
} sq_triple;

enum {
    N_UNIT,
    N_BGP,
    N_JOIN,
    N_LEFTJOIN,
    N_FILTER,
    N_UNION,
    N_MINUS,
    N_GRAPH,
    N_EXTEND,
    N_VALUES,
    N_SUB,
    N_SERVICE,
};

struct sq_node {
    int kind;
    sq_node *a, *b;
    sq_triple *tp; /* N_BGP */
    size_t ntp;
    sq_expr **exprs; /* N_FILTER, N_LEFTJOIN */
    size_t nexprs;
    int var; /* N_EXTEND */
    sq_expr *expr;
    sq_slot graph; /* N_GRAPH */
    int *vvars;    /* N_VALUES */
    size_t nvvars, nvrows;
    sq_term *vals; /* nvrows * nvvars, kind 0 = UNDEF */
    sq_select *sub;
};

enum {
    E_VAR,
    E_CONST,
    E_OR,
    E_AND,
    E_EQ,
    E_NE,
    E_LT,
    E_GT,
    E_LE,
    E_GE,
    E_ADD,
    E_SUB,
    E_MUL,
    E_DIV,
    E_NOT,
    E_NEG,
    E_POS,
    E_IN,
    E_NOTIN,
    E_FUNC, /* builtin fn */
    E_CAST, /* t.lex = datatype IRI */
    E_CALL, /* unknown IRI function: always an error */
    E_EXISTS,
    E_NOTEXISTS,
    E_AGG, /* agg = index into the select's aggregates */
    E_ARITH, /* a chain a op1 b op2 c ...: ops[i] (E_ADD..E_DIV) joins args[i] to the left */
};

struct sq_expr {
    int op;
    int var;
    sq_term t;
    sq_expr **args;
    size_t nargs;
    int fn;
    sq_node *pat;
    int agg;
    unsigned char *ops; /* E_ARITH: nargs entries, ops[0] unused */
};

enum { AG_COUNT, AG_SUM, AG_MIN, AG_MAX, AG_AVG, AG_SAMPLE, AG_GROUP_CONCAT };
typedef struct sq_agg {
    int fn;
    bool distinct, star;
    sq_expr *arg;
    const char *sep;
} sq_agg;

struct sq_select {
    int form;
    sq_node *where;
    bool distinct, reduced, star;
    size_t nproj;
    int *proj_var;
    int *proj_outer; /* subqueries: the outer scope's index of each projected variable */
    sq_expr **proj_expr; /* NULL entry: plain variable */
    sq_expr **group;
    int *group_as;
    size_t ngroup;
    sq_expr **having;
    size_t nhaving;
    sq_agg *aggs;
    size_t naggs;
    bool grouped;
    sq_expr **order;
    bool *desc;
    size_t norder;
    int64_t limit, offset;
    sq_node *values;
    int *scope_vars; /* for SELECT *: the visible variables in order of appearance */
    size_t nscope;
};

struct qr_sparql_query {
    qr_arena a;
    int form;
    const char *update_name;
    const char *base;
    bool has_service;
    sq_select *top;
    char **var_names;
    size_t nvars;
    sq_term *from, *from_named;
    size_t nfrom, nfrom_named;
};

/* the builtin functions (parse.c names them, expr.c runs them) */
enum {
    F_STR, F_LANG, F_LANGMATCHES, F_DATATYPE, F_BOUND, F_IRI, F_BNODE, F_RAND, F_ABS, F_CEIL,
    F_FLOOR, F_ROUND, F_CONCAT, F_SUBSTR, F_STRLEN, F_REPLACE, F_UCASE, F_LCASE,
    F_ENCODE_FOR_URI, F_CONTAINS, F_STRSTARTS, F_STRENDS, F_STRBEFORE, F_STRAFTER, F_YEAR,
    F_MONTH, F_DAY, F_HOURS, F_MINUTES, F_SECONDS, F_TIMEZONE, F_TZ, F_NOW, F_UUID, F_STRUUID,
    F_MD5, F_SHA1, F_SHA256, F_SHA384, F_SHA512, F_COALESCE, F_IF, F_STRLANG, F_STRDT,
    F_SAMETERM, F_ISIRI, F_ISBLANK, F_ISLITERAL, F_ISNUMERIC, F_REGEX, F_NFUNCS
};

/* ---- evaluation context (eval.c), used by expr.c ---- */
typedef struct sq_ctx sq_ctx;
/* Evaluates e on row (NULL-terminated values by variable index) into *out. Returns 0, or
 * -1 for an expression error (unbound, type error), or a negative QR_E* with the context's
 * error set for a limit. */
int sq_expr_eval(sq_ctx *c, const sq_expr *e, const sq_id *row, sq_term *out);
/* Effective boolean value: 1 true, 0 false, -1 error. */
int sq_ebv(const sq_term *t);
/* RDF term comparisons (term.c). */
int sq_term_equal(const sq_term *a, const sq_term *b); /* 1, 0, -1 type error */
int sq_term_less(const sq_term *a, const sq_term *b, int *lt); /* 0 or -1 error */
int sq_term_order(const sq_term *a, const sq_term *b); /* ORDER BY total order */
bool sq_term_same(const sq_term *a, const sq_term *b);
/* numeric type rank: 0 not numeric, 1 integer, 2 decimal, 3 float, 4 double */
int sq_numeric_rank(const sq_term *t);
bool sq_numeric_value(const sq_term *t, double *d, int64_t *i, int *rank);
bool sq_is_string_lit(const sq_term *t); /* simple, xsd:string or language-tagged */
bool sq_lex_valid(const sq_term *t);      /* lexical form valid for its (known) datatype */

/* expr.c needs these from eval.c */
qr_arena *sq_ctx_arena(sq_ctx *c);
qr_sparql_store *sq_ctx_store(sq_ctx *c);
int sq_ctx_exists(sq_ctx *c, const sq_node *pat, const sq_id *row, bool *found);
int64_t sq_ctx_now(sq_ctx *c);
int sq_ctx_tick(sq_ctx *c);
sq_id sq_ctx_intern(sq_ctx *c, const sq_term *t);
/* About to hold n more bytes outside the arena (a string being built, a new term): ends
 * the evaluation with the memory limit error when the cap would be passed. */
void sq_ctx_reserve(sq_ctx *c, size_t n);
bool sq_ctx_over(sq_ctx *c, size_t n); /* would n more bytes pass the cap? */
const sq_term *sq_ctx_term(sq_ctx *c, sq_id id);
int sq_ctx_agg_value(sq_ctx *c, int agg, sq_term *out);
uint64_t sq_ctx_bnode_serial(sq_ctx *c);
const char *sq_ctx_base(sq_ctx *c);
/* RFC 3986 resolution of r[0..rn) against base (NULL: r as is), in arena a */
char *sq_resolve_iri(qr_arena *a, const char *base, const char *r, size_t rn);
const sq_id *sq_ctx_outer(sq_ctx *c);
/* Ends the evaluation with an error of this kind (a query mistake found while running,
 * such as an invalid regular expression, or a limit); never returns. */
void sq_ctx_fail(sq_ctx *c, qr_sparql_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* PCRE2 limits per match call (expr.c) */
#define SQ_REGEX_MATCH_LIMIT 1000000
#define SQ_REGEX_DEPTH_LIMIT 10000

/* formatting helpers (term.c) for computed numerics; lex in arena a */
sq_term sq_make_int(qr_arena *a, int64_t v);
sq_term sq_make_double(qr_arena *a, double v, const char *dt);
sq_term sq_make_bool(bool v);
sq_term sq_make_str(qr_arena *a, const char *s, size_t n, const char *dt, const char *lang);

/* ---- results ---- */
struct qr_sparql_result {
    const qr_sparql_store *st;
    bool ask, boolean;
    size_t nvars;
    char **vars;
    size_t nrows;
    sq_id *rows; /* nrows * nvars */
};

#endif
