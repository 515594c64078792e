/*
 * lex.c: the workflow language's lexer. Indentation-sensitive, as Python's: at the start
 * of each logical line it compares the line's indentation with a stack of open levels
 * and emits INDENT or DEDENTs; NL ends a logical line; inside brackets newlines are
 * blanks. Blank and comment-only lines produce no tokens; comments are kept on the side
 * (with their line, column and whether they stand on their own line) for the formatter,
 * and blank lines are marked for it too.
 *
 * Indentation: spaces or tabs, not both. The first indented line decides; a line that
 * mixes them, or uses the other one, is an E0008 with its position (a tab counts 4 for
 * recovery). A line that dedents to no open level is an E0008 too. Nesting deeper than
 * FLOW_MAX_NEST levels is refused rather than grown without bound.
 *
 * Strings: "..." with backslash escapes on one line; """...""" and '''...''' verbatim
 * over lines. An unterminated one is an E0007 at its opening quote and ends the file.
 * Columns count code points, kept incrementally so a 10 MB line costs one pass.
 */
#include "flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t flow_cp_len(const char *s, size_t n)
{
    uint32_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            c++;
    return c;
}

void flow_lex_init(flow_lex *lx, qr_arena *a, const char *src, size_t n, qr_flow_diags *d)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->n = n;
    lx->line = 1;
    lx->col = 1;
    lx->nindent = 1;
    lx->at_line_start = true;
    lx->a = a;
    lx->diags = d;
    uint32_t lines = 1;
    for (const char *p = src, *e = src + n; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
        lines++;
    lx->nlines = lines;
    lx->blank = qr_arena_zalloc(a, (size_t)lines + 2);
}

void flow_lex_release(flow_lex *lx)
{
    (void)lx;
}

static int cur(const flow_lex *lx)
{
    return lx->pos < lx->n ? (unsigned char)lx->src[lx->pos] : -1;
}

static int at(const flow_lex *lx, size_t k)
{
    return lx->pos + k < lx->n ? (unsigned char)lx->src[lx->pos + k] : -1;
}

/* Advances one byte, keeping line and column. */
static void adv(flow_lex *lx)
{
    if (lx->pos >= lx->n)
        return;
    unsigned char c = (unsigned char)lx->src[lx->pos++];
    if (c == '\n') {
        lx->line++;
        lx->col = 1;
    } else if ((c & 0xC0) != 0x80) {
        lx->col++;
    }
}

static void add_comment(flow_lex *lx, bool own_line)
{
    size_t start = lx->pos;
    uint32_t line = lx->line, col = lx->col;
    while (cur(lx) != -1 && cur(lx) != '\n')
        adv(lx);
    size_t end = lx->pos;
    while (end > start && (lx->src[end - 1] == ' ' || lx->src[end - 1] == '\t' ||
                           lx->src[end - 1] == '\r'))
        end--;
    if (lx->ncomments == lx->capcomments) {
        size_t nc = lx->capcomments ? lx->capcomments * 2 : 16;
        qr_flow_comment *v = qr_arena_realloc(lx->a, lx->comments,
                                              lx->capcomments * sizeof *v, nc * sizeof *v);
        if (!v)
            return;
        lx->comments = v;
        lx->capcomments = nc;
    }
    qr_flow_comment *c = &lx->comments[lx->ncomments++];
    c->line = line;
    c->col = col;
    c->s = lx->src + start;
    c->n = end - start;
    c->own_line = own_line;
}

static flow_tok mk(flow_lex *lx, int kind, size_t start, uint32_t line, uint32_t col)
{
    flow_tok t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.s = lx->src + start;
    t.n = (uint32_t)(lx->pos - start);
    t.line = line;
    t.col = col;
    t.len = kind == T_NL || kind == T_EOF ? 1 : flow_cp_len(t.s, t.n);
    if (t.len == 0)
        t.len = 1;
    return t;
}

/* At the start of a line outside brackets: skips blank and comment-only lines, measures
 * the indentation of the next one and sets pending INDENT/DEDENTs. */
static void line_start(flow_lex *lx)
{
    lx->at_line_start = false;
    for (;;) {
        uint32_t line = lx->line;
        size_t spaces = 0, tabs = 0, width = 0;
        size_t first_tab = 0, first_space = 0;
        uint32_t col0 = lx->col;
        while (cur(lx) == ' ' || cur(lx) == '\t') {
            if (cur(lx) == ' ') {
                if (!spaces)
                    first_space = lx->col;
                spaces++;
                width++;
            } else {
                if (!tabs)
                    first_tab = lx->col;
                tabs++;
                width += 4;
            }
            adv(lx);
        }
        (void)col0;
        int c = cur(lx);
        if (c == '\r' && at(lx, 1) == '\n')
            adv(lx), c = '\n';
        if (c == '\n' || c == -1 || c == '#') {
            if (c == '#')
                add_comment(lx, true);
            else if (line < lx->nlines + 1)
                lx->blank[line] = 1;
            if (cur(lx) == -1)
                return;
            adv(lx); /* the newline */
            continue;
        }
        if (spaces && tabs) {
            qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0008", line, 1,
                             (uint32_t)(spaces + tabs),
                             "indent with spaces only, or with tabs only",
                             "inconsistent indentation: tabs and spaces mixed");
        } else if (spaces || tabs) {
            char ch = tabs ? '\t' : ' ';
            if (!lx->indent_char)
                lx->indent_char = ch;
            else if (lx->indent_char != ch)
                qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0008", line,
                                 (uint32_t)(tabs ? first_tab : first_space),
                                 (uint32_t)(spaces + tabs),
                                 "indent every line the same way",
                                 "inconsistent indentation: this line is indented with %s, "
                                 "earlier lines with %s",
                                 tabs ? "tabs" : "spaces", tabs ? "spaces" : "tabs");
        }
        uint32_t top = lx->indent[lx->nindent - 1];
        if (width > top) {
            if (lx->nindent > FLOW_MAX_NEST) {
                qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0008", line, 1,
                                 (uint32_t)(spaces + tabs), NULL,
                                 "indentation nested more than %d levels deep",
                                 FLOW_MAX_NEST);
                return;
            }
            lx->indent[lx->nindent++] = (uint32_t)width;
            lx->pending = -1;
        } else if (width < top) {
            int k = 0;
            while (lx->nindent > 1 && lx->indent[lx->nindent - 1] > width) {
                lx->nindent--;
                k++;
            }
            if (lx->indent[lx->nindent - 1] != width) {
                qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0008", line, 1,
                                 (uint32_t)(spaces + tabs ? spaces + tabs : 1),
                                 "indent this line as deep as the block it belongs to",
                                 "inconsistent indentation: this line's indentation matches "
                                 "no enclosing block");
                /* take it as a level of its own, so that what follows parses */
                lx->indent[lx->nindent++] = (uint32_t)width;
                k--;
            }
            lx->pending = k;
        }
        return;
    }
}

static bool name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(int c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static flow_tok lex_string(flow_lex *lx)
{
    size_t start = lx->pos;
    uint32_t line = lx->line, col = lx->col;
    int q = cur(lx);
    if (at(lx, 1) == q && at(lx, 2) == q) {
        adv(lx), adv(lx), adv(lx);
        for (;;) {
            int c = cur(lx);
            if (c == -1) {
                qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0007", line, col, 3,
                                 q == '"' ? "close it with \"\"\"" : "close it with '''",
                                 "unterminated string: %c%c%c opened here is never closed",
                                 q, q, q);
                flow_tok t = mk(lx, T_STR, start, line, col);
                t.triple = true;
                t.n = 0; /* decoded as empty */
                t.s = lx->src + start;
                return t;
            }
            if (c == q && at(lx, 1) == q && at(lx, 2) == q) {
                adv(lx), adv(lx), adv(lx);
                break;
            }
            adv(lx);
        }
        flow_tok t = mk(lx, T_STR, start, line, col);
        t.triple = true;
        return t;
    }
    adv(lx);
    for (;;) {
        int c = cur(lx);
        if (c == -1 || c == '\n') {
            qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0007", line, col, 1,
                             "close it on the same line, or use \"\"\" for text over lines",
                             "unterminated string");
            flow_tok t = mk(lx, T_STR, start, line, col);
            t.n = 1; /* decoded as empty */
            return t;
        }
        if (c == '\\' && at(lx, 1) != -1 && at(lx, 1) != '\n') {
            adv(lx), adv(lx);
            continue;
        }
        adv(lx);
        if (c == q)
            break;
    }
    return mk(lx, T_STR, start, line, col);
}

flow_tok flow_lex_next(flow_lex *lx)
{
    for (;;) {
        if (lx->pending > 0) {
            lx->pending--;
            return mk(lx, T_DEDENT, lx->pos, lx->line, lx->col);
        }
        if (lx->pending < 0) {
            lx->pending = 0;
            return mk(lx, T_INDENT, lx->pos, lx->line, lx->col);
        }
        if (lx->at_line_start && lx->depth == 0) {
            line_start(lx);
            if (lx->pending)
                continue;
        }
        while (cur(lx) == ' ' || cur(lx) == '\t' || cur(lx) == '\r' ||
               (lx->depth > 0 && cur(lx) == '\n'))
            adv(lx);
        int c = cur(lx);
        uint32_t line = lx->line, col = lx->col;
        size_t start = lx->pos;
        if (c == '#') {
            add_comment(lx, false);
            continue;
        }
        if (c == -1) {
            if (lx->line_has_tokens) {
                lx->line_has_tokens = false;
                return mk(lx, T_NL, start, line, col);
            }
            if (lx->nindent > 1) {
                lx->nindent--;
                return mk(lx, T_DEDENT, start, line, col);
            }
            return mk(lx, T_EOF, start, line, col);
        }
        if (c == '\n') {
            adv(lx);
            lx->at_line_start = true;
            if (lx->line_has_tokens) {
                lx->line_has_tokens = false;
                return mk(lx, T_NL, start, line, col);
            }
            continue;
        }
        lx->line_has_tokens = true;
        if (name_start(c) || (c == '$' && name_start(at(lx, 1)))) {
            bool dollar = c == '$';
            if (dollar)
                adv(lx);
            size_t s0 = lx->pos;
            while (name_char(cur(lx)))
                adv(lx);
            flow_tok t = mk(lx, T_NAME, s0, line, col);
            t.dollar = dollar;
            return t;
        }
        if (c >= '0' && c <= '9') {
            while (cur(lx) >= '0' && cur(lx) <= '9')
                adv(lx);
            if (cur(lx) == '.' && at(lx, 1) >= '0' && at(lx, 1) <= '9') {
                adv(lx);
                while (cur(lx) >= '0' && cur(lx) <= '9')
                    adv(lx);
            }
            return mk(lx, T_NUM, start, line, col);
        }
        if (c == '"' || c == '\'') {
            if (c == '\'' && !(at(lx, 1) == '\'' && at(lx, 2) == '\'')) {
                /* single quotes only as ''' */
            } else {
                return lex_string(lx);
            }
        }
        static const char *const two[] = {"==", "!=", "<=", ">=", NULL};
        for (int i = 0; two[i]; i++)
            if (c == two[i][0] && at(lx, 1) == two[i][1]) {
                adv(lx), adv(lx);
                return mk(lx, T_OP, start, line, col);
            }
        if (c && strchr("=<>+-*/%~()[]{},:.?", c)) {
            if (c == '(' || c == '[' || c == '{')
                lx->depth++;
            else if ((c == ')' || c == ']' || c == '}') && lx->depth > 0)
                lx->depth--;
            adv(lx);
            return mk(lx, T_OP, start, line, col);
        }
        /* anything else: one diagnostic, then skip the character */
        char shown[8];
        uint32_t cp;
        size_t k = qr_utf8_decode(lx->src + lx->pos, lx->n - lx->pos, &cp);
        if (k == 1)
            qr_char_shown(c, shown);
        else {
            memcpy(shown, lx->src + lx->pos, k);
            shown[k] = 0;
        }
        qr_flow_diag_add(lx->diags, QR_FLOW_ERROR, "E0007", line, col, 1, NULL,
                         "unexpected character '%s'", shown);
        for (size_t i = 0; i < k; i++)
            adv(lx);
    }
}

void flow_lex_rest_of_line(flow_lex *lx, const char **s, uint32_t *n, uint32_t *col)
{
    while (cur(lx) == ' ' || cur(lx) == '\t')
        adv(lx);
    size_t start = lx->pos;
    *col = lx->col;
    char q = 0;
    while (cur(lx) != -1 && cur(lx) != '\n') {
        int c = cur(lx);
        if (q) {
            if (c == '\\')
                adv(lx);
            else if (c == q)
                q = 0;
        } else if (c == '"' || c == '\'') {
            q = (char)c;
        } else if (c == '#') {
            break;
        }
        adv(lx);
    }
    size_t end = lx->pos;
    while (end > start && (lx->src[end - 1] == ' ' || lx->src[end - 1] == '\t' ||
                           lx->src[end - 1] == '\r'))
        end--;
    *s = lx->src + start;
    *n = (uint32_t)(end - start);
    if (end > start)
        lx->line_has_tokens = true;
}

bool flow_str_decode(qr_arena *a, const flow_tok *t, const char **s, size_t *n)
{
    if (t->triple) {
        if (t->n < 6) {
            *s = "";
            *n = 0;
            return true;
        }
        *s = t->s + 3;
        *n = t->n - 6;
        return true;
    }
    if (t->n < 2) {
        *s = "";
        *n = 0;
        return true;
    }
    const char *p = t->s + 1, *e = t->s + t->n - 1;
    char *out = qr_arena_alloc(a, (size_t)(e - p) + 1);
    if (!out)
        return false;
    size_t k = 0;
    while (p < e) {
        char c = *p++;
        if (c != '\\' || p >= e) {
            out[k++] = c;
            continue;
        }
        c = *p++;
        switch (c) {
        case 'n': out[k++] = '\n'; break;
        case 't': out[k++] = '\t'; break;
        case 'r': out[k++] = '\r'; break;
        case '0': out[k++] = '\0'; break;
        case 'u': {
            uint32_t cp = 0;
            int i = 0;
            for (; i < 4 && p < e; i++, p++) {
                char h = *p;
                int v = h >= '0' && h <= '9' ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0)
                    break;
                cp = cp * 16 + (uint32_t)v;
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0xFFFD;
            k += qr_utf8_encode(cp, out + k);
            break;
        }
        default: out[k++] = c; break;
        }
    }
    out[k] = 0;
    *s = out;
    *n = k;
    return true;
}
