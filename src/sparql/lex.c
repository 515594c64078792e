/*
 * lex.c: the SPARQL 1.1 tokenizer. Codepoint escapes (\uXXXX, \UXXXXXXXX) are replaced
 * before tokenizing, as the specification (19.2) says, so an update cannot hide behind
 * them. '<' is an IRI when an IRIREF can be read from it and the less-than operator
 * otherwise; '?' is a variable when a name follows, else the path modifier. Signs are
 * always operators: the parser folds them into numeric literals where a term is expected.
 */
#include "sparql_lex.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int sq_unescape_codepoints(qr_arena *a, const char *s, size_t n, char **out, size_t *outn,
                           char *err, size_t errcap)
{
    size_t cap;
    if (!qr_size_add(n, 1, &cap))
        return QR_ENOMEM;
    char *d = qr_arena_alloc(a, cap);
    if (!d)
        return QR_ENOMEM;
    size_t j = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
            size_t k = s[i + 1] == 'u' ? 4 : 8;
            if (i + 2 + k > n) {
                snprintf(err, errcap, "bad escape '\\%c': expected %zu hex digits", s[i + 1], k);
                return QR_EINVAL;
            }
            uint32_t cp = 0;
            for (size_t m = 0; m < k; m++) {
                int h = hexval((unsigned char)s[i + 2 + m]);
                if (h < 0) {
                    snprintf(err, errcap, "bad escape '\\%c': expected %zu hex digits",
                             s[i + 1], k);
                    return QR_EINVAL;
                }
                cp = cp * 16 + (uint32_t)h;
            }
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0) {
                snprintf(err, errcap, "bad escape: code point U+%04X is not allowed", cp);
                return QR_EINVAL;
            }
            j += qr_utf8_encode(cp, d + j);
            i += 2 + k;
        } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
            d[j++] = '\\';
            d[j++] = '\\';
            i += 2;
        } else {
            d[j++] = s[i++];
        }
    }
    d[j] = 0;
    *out = d;
    *outn = j;
    return QR_OK;
}

/* ---- character classes (PN_CHARS_BASE and friends, over code points) ---- */
static bool pn_base(uint32_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0xD6) ||
           (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) || (c >= 0x370 && c <= 0x37D) ||
           (c >= 0x37F && c <= 0x1FFF) || (c >= 0x200C && c <= 0x200D) ||
           (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) ||
           (c >= 0x3001 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) ||
           (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
}
static bool pn_u(uint32_t c)
{
    return pn_base(c) || c == '_';
}
static bool pn_chars(uint32_t c)
{
    return pn_u(c) || c == '-' || (c >= '0' && c <= '9') || c == 0xB7 ||
           (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}
static bool varname_char(uint32_t c)
{
    return pn_u(c) || (c >= '0' && c <= '9') || c == 0xB7 || (c >= 0x300 && c <= 0x36F) ||
           (c >= 0x203F && c <= 0x2040);
}

static uint32_t cp_at(const sq_lexer *L, size_t i, size_t *w)
{
    if (i >= L->n) {
        *w = 0;
        return 0;
    }
    uint32_t c;
    *w = qr_utf8_decode(L->s + i, L->n - i, &c);
    return c;
}

static int lex_fail(sq_lexer *L, size_t at, const char *fmt, const char *arg)
{
    L->err_at = at;
    snprintf(L->err, sizeof L->err, fmt, arg);
    return -1;
}

static void skip_ws(sq_lexer *L)
{
    for (;;) {
        while (L->i < L->n && (L->s[L->i] == ' ' || L->s[L->i] == '\t' || L->s[L->i] == '\n' ||
                               L->s[L->i] == '\r'))
            L->i++;
        if (L->i < L->n && L->s[L->i] == '#') {
            while (L->i < L->n && L->s[L->i] != '\n')
                L->i++;
            continue;
        }
        break;
    }
}

static bool try_iri(sq_lexer *L, sq_token *t)
{
    size_t i = L->i + 1;
    while (i < L->n) {
        unsigned char c = (unsigned char)L->s[i];
        if (c == '>') {
            t->kind = T_IRI;
            t->s = L->s + L->i + 1;
            t->len = i - L->i - 1;
            L->i = i + 1;
            return true;
        }
        if (c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' ||
            c == '`' || c == '\\')
            return false;
        i++;
    }
    return false;
}

/* PN_PREFIX? ':' PN_LOCAL? or a bare word (keyword) */
static int lex_name(sq_lexer *L, sq_token *t)
{
    size_t start = L->i, w;
    size_t i = start;
    uint32_t c = cp_at(L, i, &w);
    /* prefix part */
    if (pn_base(c)) {
        i += w;
        size_t last_ok = i;
        for (;;) {
            c = cp_at(L, i, &w);
            if (w && (pn_chars(c) || c == '.')) {
                i += w;
                if (c != '.')
                    last_ok = i;
            } else {
                break;
            }
        }
        i = last_ok;
    }
    if (i < L->n && L->s[i] == ':') {
        t->kind = T_PNAME;
        t->s = L->s + start;
        t->plen = i - start;
        i++;
        /* local part */
        size_t lstart = i, last_ok = i;
        bool first = true;
        for (;;) {
            c = cp_at(L, i, &w);
            if (!w)
                break;
            if (c == '%') {
                if (i + 2 < L->n + 0 && hexval((unsigned char)L->s[i + 1]) >= 0 &&
                    hexval((unsigned char)L->s[i + 2]) >= 0) {
                    i += 3;
                    last_ok = i;
                    first = false;
                    continue;
                }
                return lex_fail(L, i, "bad percent escape in prefixed name%s", "");
            }
            if (c == '\\') {
                if (i + 1 < L->n && strchr("_~.-!$&'()*+,;=/?#@%", L->s[i + 1])) {
                    i += 2;
                    last_ok = i;
                    first = false;
                    continue;
                }
                return lex_fail(L, i, "bad escape in prefixed name%s", "");
            }
            bool ok = first ? (pn_u(c) || c == ':' || (c >= '0' && c <= '9'))
                            : (pn_chars(c) || c == '.' || c == ':');
            if (!ok)
                break;
            i += w;
            if (c != '.')
                last_ok = i;
            first = false;
        }
        i = last_ok;
        t->local = L->s + lstart;
        t->llen = i - lstart;
        t->len = i - start;
        L->i = i;
        return 0;
    }
    if (i == start) {
        char what[64];
        size_t cw;
        uint32_t cp = cp_at(L, start, &cw);
        if (cp == 0xFFFD && cw == 1)
            snprintf(what, sizeof what, "byte 0x%02X (not UTF-8)", (unsigned char)L->s[start]);
        else
            snprintf(what, sizeof what, "character U+%04X '%.*s'", (unsigned)cp, (int)cw,
                     L->s + start);
        return lex_fail(L, start, "unexpected %s", what);
    }
    /* a bare word: keywords are ASCII letters, digits and '_' */
    i = start;
    while (i < L->n && (isalnum((unsigned char)L->s[i]) || L->s[i] == '_'))
        i++;
    t->kind = T_WORD;
    t->s = L->s + start;
    t->len = i - start;
    L->i = i;
    return 0;
}

static int lex_string(sq_lexer *L, sq_token *t)
{
    char q = L->s[L->i];
    bool longq = L->i + 2 < L->n && L->s[L->i + 1] == q && L->s[L->i + 2] == q;
    size_t i = L->i + (longq ? 3 : 1);
    size_t start = i;
    for (;;) {
        if (i >= L->n)
            return lex_fail(L, L->i, "unterminated string%s", "");
        char c = L->s[i];
        if (c == '\\') {
            if (i + 1 >= L->n || !strchr("tbnrf\"'\\", L->s[i + 1]))
                return lex_fail(L, i, "bad escape in string%s", "");
            i += 2;
            continue;
        }
        if (longq) {
            if (c == q && i + 2 < L->n && L->s[i + 1] == q && L->s[i + 2] == q) {
                /* up to two more quotes may belong to the string */
                while (i + 3 < L->n && L->s[i + 3] == q)
                    i++;
                t->kind = T_STR;
                t->s = L->s + start;
                t->len = i - start;
                L->i = i + 3;
                return 0;
            }
        } else {
            if (c == q) {
                t->kind = T_STR;
                t->s = L->s + start;
                t->len = i - start;
                L->i = i + 1;
                return 0;
            }
            if (c == '\n' || c == '\r')
                return lex_fail(L, i, "newline in a short string%s", "");
        }
        i++;
    }
}

int sq_lex_next(sq_lexer *L, sq_token *t)
{
    memset(t, 0, sizeof *t);
    skip_ws(L);
    t->at = L->i;
    if (L->i >= L->n) {
        t->kind = T_EOF;
        return 0;
    }
    const char *s = L->s;
    char c = s[L->i];
    size_t w;
    /* bytes that print as nothing or as '?' are named, so the user can find them */
    unsigned char u = (unsigned char)c;
    if (u == 0xEF && L->i + 2 < L->n && (unsigned char)s[L->i + 1] == 0xBB &&
        (unsigned char)s[L->i + 2] == 0xBF)
        return lex_fail(L, L->i, "unexpected byte order mark (U+FEFF, bytes EF BB BF)%s: "
                                 "save the query as UTF-8 without a BOM", "");
    if (u < 0x20 || u == 0x7F) {
        char what[96];
        snprintf(what, sizeof what, u ? "control byte 0x%02X" : "NUL byte (0x%02X)", u);
        return lex_fail(L, L->i, "unexpected %s: remove it from the query", what);
    }
    switch (c) {
    case '<':
        if (try_iri(L, t))
            return 0;
        if (L->i + 1 < L->n && s[L->i + 1] == '=') {
            t->kind = T_LE;
            L->i += 2;
        } else {
            t->kind = '<';
            L->i++;
        }
        return 0;
    case '>':
        if (L->i + 1 < L->n && s[L->i + 1] == '=') {
            t->kind = T_GE;
            L->i += 2;
        } else {
            t->kind = '>';
            L->i++;
        }
        return 0;
    case '!':
        if (L->i + 1 < L->n && s[L->i + 1] == '=') {
            t->kind = T_NE;
            L->i += 2;
        } else {
            t->kind = '!';
            L->i++;
        }
        return 0;
    case '&':
        if (L->i + 1 < L->n && s[L->i + 1] == '&') {
            t->kind = T_AND;
            L->i += 2;
            return 0;
        }
        return lex_fail(L, L->i, "unexpected character '&'%s", "");
    case '|':
        if (L->i + 1 < L->n && s[L->i + 1] == '|') {
            t->kind = T_OR;
            L->i += 2;
        } else {
            t->kind = '|';
            L->i++;
        }
        return 0;
    case '^':
        if (L->i + 1 < L->n && s[L->i + 1] == '^') {
            t->kind = T_DTYPE;
            L->i += 2;
        } else {
            t->kind = '^';
            L->i++;
        }
        return 0;
    case '(': {
        size_t j = L->i + 1;
        while (j < L->n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
            j++;
        if (j < L->n && s[j] == ')') {
            t->kind = T_NIL;
            L->i = j + 1;
            return 0;
        }
        t->kind = '(';
        L->i++;
        return 0;
    }
    case '[': {
        size_t j = L->i + 1;
        while (j < L->n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
            j++;
        if (j < L->n && s[j] == ']') {
            t->kind = T_ANON;
            L->i = j + 1;
            return 0;
        }
        t->kind = '[';
        L->i++;
        return 0;
    }
    case ')': case ']': case '{': case '}': case ',': case ';': case '*': case '+': case '-':
    case '/': case '=':
        t->kind = c;
        L->i++;
        return 0;
    case '.':
        if (L->i + 1 < L->n && isdigit((unsigned char)s[L->i + 1]))
            break; /* a decimal */
        t->kind = '.';
        L->i++;
        return 0;
    case '?':
    case '$': {
        uint32_t cp = cp_at(L, L->i + 1, &w);
        if (w && varname_char(cp)) {
            size_t j = L->i + 1;
            for (;;) {
                cp = cp_at(L, j, &w);
                if (!w || !varname_char(cp))
                    break;
                j += w;
            }
            t->kind = T_VAR;
            t->s = s + L->i + 1;
            t->len = j - L->i - 1;
            L->i = j;
            return 0;
        }
        if (c == '$')
            return lex_fail(L, L->i, "'$' must start a variable name%s", "");
        t->kind = '?';
        L->i++;
        return 0;
    }
    case '"':
    case '\'':
        return lex_string(L, t);
    case '@': {
        size_t j = L->i + 1;
        while (j < L->n && isalpha((unsigned char)s[j]))
            j++;
        if (j == L->i + 1)
            return lex_fail(L, L->i, "'@' must start a language tag%s", "");
        while (j + 1 < L->n && s[j] == '-' && isalnum((unsigned char)s[j + 1])) {
            j++;
            while (j < L->n && isalnum((unsigned char)s[j]))
                j++;
        }
        t->kind = T_LANG;
        t->s = s + L->i + 1;
        t->len = j - L->i - 1;
        L->i = j;
        return 0;
    }
    case '_':
        if (L->i + 1 < L->n && s[L->i + 1] == ':') {
            size_t j = L->i + 2;
            uint32_t cp = cp_at(L, j, &w);
            if (!w || !(pn_u(cp) || (cp >= '0' && cp <= '9')))
                return lex_fail(L, L->i, "bad blank node label%s", "");
            j += w;
            size_t last_ok = j;
            for (;;) {
                cp = cp_at(L, j, &w);
                if (!w || !(pn_chars(cp) || cp == '.'))
                    break;
                j += w;
                if (cp != '.')
                    last_ok = j;
            }
            t->kind = T_BNODE;
            t->s = s + L->i + 2;
            t->len = last_ok - L->i - 2;
            L->i = last_ok;
            return 0;
        }
        break;
    default:
        break;
    }
    if (isdigit((unsigned char)c) || c == '.') {
        size_t j = L->i;
        bool dot = false, exp = false;
        while (j < L->n && isdigit((unsigned char)s[j]))
            j++;
        if (j < L->n && s[j] == '.' &&
            (j + 1 < L->n && (isdigit((unsigned char)s[j + 1]) || s[j + 1] == 'e' ||
                              s[j + 1] == 'E'))) {
            dot = true;
            j++;
            while (j < L->n && isdigit((unsigned char)s[j]))
                j++;
        }
        if (j < L->n && (s[j] == 'e' || s[j] == 'E')) {
            size_t k = j + 1;
            if (k < L->n && (s[k] == '+' || s[k] == '-'))
                k++;
            if (k < L->n && isdigit((unsigned char)s[k])) {
                exp = true;
                j = k;
                while (j < L->n && isdigit((unsigned char)s[j]))
                    j++;
            }
        }
        if (dot && !exp && s[j - 1] == '.')
            return lex_fail(L, L->i, "bad number%s", "");
        t->kind = exp ? T_DOUBLE : dot ? T_DECIMAL : T_INTEGER;
        t->s = s + L->i;
        t->len = j - L->i;
        L->i = j;
        return 0;
    }
    return lex_name(L, t);
}

void sq_lex_position(const sq_lexer *L, size_t at, uint32_t *line, uint32_t *col)
{
    uint32_t ln = 1, cl = 1;
    for (size_t i = 0; i < at && i < L->n; i++) {
        if (L->s[i] == '\n') {
            ln++;
            cl = 1;
        } else if (((unsigned char)L->s[i] & 0xC0) != 0x80) {
            cl++;
        }
    }
    *line = ln;
    *col = cl;
}
