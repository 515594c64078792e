/*
 * sparql_lex.h: the tokenizer's interface (lex.c), used by the parser only.
 */
#ifndef QUARRY_SPARQL_LEX_H
#define QUARRY_SPARQL_LEX_H

#include "quarry/base.h"

enum {
    T_EOF = 256,
    T_IRI,     /* <...>: s/len without the brackets */
    T_PNAME,   /* prefix:local: s/plen the prefix, local/llen the local part */
    T_BNODE,   /* _:label: s/len the label */
    T_VAR,     /* ?name or $name: s/len the name */
    T_LANG,    /* @tag: s/len the tag */
    T_INTEGER, /* digits */
    T_DECIMAL,
    T_DOUBLE,
    T_STR,  /* s/len the raw body, escapes not yet replaced */
    T_NIL,  /* () */
    T_ANON, /* [] */
    T_WORD, /* a bare word: keyword, function name, 'a', true, false */
    T_LE,
    T_GE,
    T_NE,
    T_AND,
    T_OR,
    T_DTYPE, /* ^^ */
};

typedef struct sq_token {
    int kind; /* one of the above, or the character itself for punctuation */
    const char *s;
    size_t len;
    size_t plen;
    const char *local;
    size_t llen;
    size_t at; /* byte offset in the text */
} sq_token;

typedef struct sq_lexer {
    const char *s;
    size_t n, i;
    size_t err_at;
    char err[200];
} sq_lexer;

/* Replaces \u and \U escapes of the whole text (into an arena copy). */
int sq_unescape_codepoints(qr_arena *a, const char *s, size_t n, char **out, size_t *outn,
                           char *err, size_t errcap);
/* 0 with *t set, or -1 with L->err. */
int sq_lex_next(sq_lexer *L, sq_token *t);
void sq_lex_position(const sq_lexer *L, size_t at, uint32_t *line, uint32_t *col);

#endif
