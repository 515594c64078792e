/*
 * num.h: exact values of xsd:integer (and the types derived from it) and xsd:decimal, as
 * a GMP integer m and a decimal scale s (the value is m / 10^s), for the arithmetic and
 * comparisons that must never round (num.c).
 */
#ifndef QUARRY_SPARQL_NUM_H
#define QUARRY_SPARQL_NUM_H

#include "sparql_int.h"

#include <gmp.h>

typedef struct sq_dec {
    mpz_t m;
    unsigned long scale;
} sq_dec;

/* Decimal division keeps at least this many digits after the point, and at least this
 * many significant digits (XML Schema: at least 18 for xsd:decimal). */
#define SQ_DEC_DIGITS 18

void sq_dec_init(sq_dec *d);
void sq_dec_clear(sq_dec *d);
/* d (initialized) = the value of an integer or decimal literal t; false when t is not
 * one or its lexical form is invalid. */
bool sq_dec_set_term(sq_dec *d, const sq_term *t);
/* d = the integer or decimal lexical form s[0..n) (blanks around it allowed) */
bool sq_dec_set_lex(sq_dec *d, const char *s, size_t n);
int sq_dec_cmp(const sq_dec *a, const sq_dec *b);
/* r = a op b for op E_ADD, E_SUB, E_MUL, E_DIV; false on division by zero. r may not
 * alias a or b. Division truncates after max(SQ_DEC_DIGITS, what 18 significant digits
 * need) digits, as Oxigraph's does after 18. */
bool sq_dec_op(sq_dec *r, int op, const sq_dec *a, const sq_dec *b);
/* r = floor, ceil or round-half-up (XPath fn:round) of a at scale 0 (fn: F_FLOOR ...) */
void sq_dec_round(sq_dec *r, int fn, const sq_dec *a);
/* The canonical lexical form as a term: xsd:integer (the value must be whole) or
 * xsd:decimal ("1.0", "-0.5", no exponent). kind 0 when out of memory. */
sq_term sq_dec_term(qr_arena *a, const sq_dec *d, bool integer);
/* the canonical lexical form alone (arena), for STR and casts to xsd:string */
char *sq_dec_lex(qr_arena *a, const sq_dec *d, bool integer, size_t *n);

#endif
