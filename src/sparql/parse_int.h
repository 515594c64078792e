/*
 * parse_int.h: what the parser's files share (parse.c: the prologue, graph patterns,
 * triples, paths, SELECT and the entry points; parse_expr.c: expressions and functions;
 * parse_forms.c: CONSTRUCT, DESCRIBE and updates, parsed whole to be refused): the parser
 * state and its helpers, prefixed sqp_. Errors longjmp to qr_sparql_parse.
 */
#ifndef QUARRY_SPARQL_PARSE_INT_H
#define QUARRY_SPARQL_PARSE_INT_H

#include "sparql_int.h"
#include "sparql_lex.h"

#include <setjmp.h>

#define SQ_MAX_DEPTH 200
#define SQ_MAX_VARS 100000

typedef struct scope {
    struct scope *up;
    const char **names;
    int *idx;
    size_t n, cap;
    uint32_t *ht; /* open addressing over names (position + 1; 0 empty): lookup is O(1),
                   * so 100,000 variables parse in linear time */
    size_t hcap;
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
    const qr_sparql_limits *lim; /* the budget parsing runs under (NULL: none) */
    uint64_t ticks;
    uint64_t t0_ms;
} parser;
/* one unit of parsing work: reads the clock and the stop every 256 calls */
void sqp_tick(parser *p);

typedef struct tlist {
    sq_triple *t;
    size_t n, cap;
} tlist;

void sqp_fail_at(parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void sqp_nomem(parser *p) __attribute__((noreturn));
void *sqp_pa(parser *p, size_t n);
char *sqp_pdup(parser *p, const char *s, size_t n);
void *sqp_grow(parser *p, void *arr, size_t *cap, size_t n, size_t elem);
void sqp_next(parser *p);
void sqp_unexpected(parser *p, const char *expected) __attribute__((noreturn));
bool sqp_is_word(parser *p, const char *w);
bool sqp_accept_word(parser *p, const char *w);
void sqp_expect_word(parser *p, const char *w);
bool sqp_accept(parser *p, int kind);
void sqp_expect(parser *p, int kind);
void sqp_enter(parser *p);
const char *sqp_iri_of_token(parser *p);
bool sqp_at_iri(parser *p);
sq_term sqp_iri_term(const char *s);
int sqp_var_index(parser *p, const char *name, size_t n);
char *sqp_unescape_string(parser *p, const char *s, size_t n, size_t *outn);
bool sqp_parse_constant(parser *p, sq_term *t);
sq_expr *sqp_expr_new(parser *p, int op);
bool sqp_at_triples_start(parser *p);
void sqp_parse_triples_block(parser *p, tlist *tl);
sq_slot sqp_parse_var_or_iri(parser *p);
sq_node *sqp_parse_group(parser *p);
void sqp_parse_solution_modifiers(parser *p, sq_select *s);
void sqp_parse_dataset(parser *p);
sq_select *sqp_select_new(parser *p, int form);
void sqp_parse_prologue(parser *p);
/* parse_expr.c */
sq_expr *sqp_parse_primary(parser *p);
sq_expr *sqp_parse_expr(parser *p);
sq_expr *sqp_parse_constraint(parser *p);
/* parse_forms.c */
void sqp_parse_construct(parser *p);
void sqp_parse_describe(parser *p);
bool sqp_at_update_word(parser *p);
void sqp_parse_update_request(parser *p);

#endif
