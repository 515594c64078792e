/*
 * flow_int.h: what the workflow language's files share inside src/flow: the lexer's
 * tokens (lex.c, used by parse.c), the names of builtins, and the run-time helpers.
 */
#ifndef QUARRY_FLOW_INT_H
#define QUARRY_FLOW_INT_H

#include "quarry/flow.h"

enum {
    T_EOF = 0,
    T_NL,
    T_INDENT,
    T_DEDENT,
    T_NAME,
    T_STR,
    T_NUM,
    T_OP,
};

typedef struct flow_tok {
    int kind;
    const char *s; /* the token's text in the source (strings: quotes included) */
    uint32_t n;
    uint32_t line, col, len;
    bool dollar; /* NAME written $x */
    bool triple; /* STR written """...""" or '''...''' */
} flow_tok;

/* Deepest indentation (blocks inside blocks) and expression nesting the parser accepts. */
#define FLOW_MAX_NEST 100

typedef struct flow_lex {
    const char *src;
    size_t n, pos;
    uint32_t line, col;
    uint32_t indent[FLOW_MAX_NEST + 1];
    int nindent;          /* entries in indent (indent[0] = 0) */
    int pending;          /* > 0: DEDENTs to emit; < 0: an INDENT to emit */
    int depth;            /* open brackets */
    bool at_line_start;
    bool line_has_tokens; /* a token was emitted on this logical line */
    char indent_char;     /* ' ' or '\t' once the first indented line is seen */
    qr_arena *a;
    qr_flow_diags *diags;
    qr_flow_comment *comments;
    size_t ncomments, capcomments;
    uint8_t *blank;
    uint32_t nlines;
} flow_lex;

void flow_lex_init(flow_lex *lx, qr_arena *a, const char *src, size_t n, qr_flow_diags *d);
void flow_lex_release(flow_lex *lx);
flow_tok flow_lex_next(flow_lex *lx);
/* The rest of the current line from the lexer's position, blanks and a trailing comment
 * cut (a '#' inside quotes is kept). The next token is then the line's NL. */
void flow_lex_rest_of_line(flow_lex *lx, const char **s, uint32_t *n, uint32_t *col);
/* Decodes a string token's text (escapes; triple-quoted taken verbatim) into the arena. */
bool flow_str_decode(qr_arena *a, const flow_tok *t, const char **s, size_t *n);

/* Code points in s[0..n). */
uint32_t flow_cp_len(const char *s, size_t n);

/* Builtin tool groups `tools NAME` may name without a `tool` declaration. */
extern const char *const flow_tool_groups[];
bool flow_tool_group_known(const char *s, size_t n);
/* The group a set name stands for: "quarry.git" is "git", StreetRace's "streetrace.fs" is
 * "files"; *n is updated. NULL when it names no group. */
const char *flow_tool_group(const char *s, size_t *n);
/* The tools of the files group, the edit last (offered only when the run may write). */
extern const char *const flow_files_tools[];

/* $name references in a prompt body: calls fn for each (name: the first segment; the
 * line/col of the '$' within the file, given the body's start). */
typedef void (*flow_ref_fn)(void *ud, const char *name, size_t n, const char *path,
                            size_t pathn, uint32_t line, uint32_t col);
void flow_body_refs(const qr_flow_decl *p, flow_ref_fn fn, void *ud);

bool flow_name_eq(qr_flow_name a, const char *s, size_t n);

#endif
