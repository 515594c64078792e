/*
 * toml.c: a TOML 1.0 reader that builds quarry values (see quarry/toml.h).
 *
 * Design: one pass over the text with a cursor, no tokenizer. Tables can be reopened
 * (a [header] below its implicit parent, dotted keys adding to a table, [[arrays]] that
 * grow), so the document is first read into a small mutable tree of nodes in the arena,
 * and turned into immutable maps and vectors once at the end. Each table node keeps its
 * children in a qr_mapb (insertion order plus a hash index), so a key is found in O(1)
 * and the whole read is linear in the input. A node remembers how its table came to be
 * (implicitly, by a [header], by dotted keys in one section) and where, which is what the
 * redefinition rules need and what the error messages quote ("first defined at line 3").
 * Inline tables and arrays are complete once written: they become plain values (leaves)
 * as soon as they are read, so nothing can reach into them later.
 * The input is checked for valid UTF-8 first, so the rest of the reader can treat every
 * byte >= 0x80 as part of a valid character. Recursion (arrays, inline tables, building
 * the values) is bounded by QR_TOML_MAX_DEPTH.
 *
 * With QR_TOML_NO_TEXT (settings files, whose error may reach a log or a model) a message
 * names the position and what was expected but quotes no text of the document: show()
 * gives "..." and found() a class ("a letter or digit") except for ASCII punctuation.
 *
 * Rejected: building values directly (maps are immutable, and TOML lets later lines add
 * to earlier tables, which would mean copying maps on every reopened table); an
 * intermediate token list (twice the memory and no simpler); parsing date-times into
 * numbers (quarry only passes them on, so they stay strings holding their exact text).
 */
#include "quarry/toml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the node tree ---- */
enum { N_TABLE, N_AOT, N_LEAF };
enum { H_IMPLICIT, H_HEADER, H_DOTTED };

typedef struct tnode {
    uint8_t kind;     /* N_* */
    uint8_t how;      /* tables: H_* */
    uint16_t depth;   /* nesting of the value this node becomes; the root map is 1 */
    uint32_t section; /* H_DOTTED tables: the section whose dotted keys made them */
    size_t pos;       /* where it was defined (for "first defined at line N") */
    qr_mapb kids;     /* tables: key string -> node (as qr_val.p) */
    struct tnode *first, *last, *next; /* arrays of tables: elements, and their chain */
    qr_val v;         /* leaves */
    const char *what; /* leaves: "an integer", "an inline table", ... */
} tnode;

/* One part of a dotted key. */
typedef struct tkey {
    qr_val s;
    size_t start, end; /* its text in the source */
} tkey;

/* A key has at most one part per nesting level below the root. */
#define KEY_MAX QR_TOML_MAX_DEPTH

typedef struct tr {
    qr_arena *a;
    const char *s;
    size_t n, i;
    qr_read_error *err;
    qr_buf tmp;          /* the text of the string being read */
    uint32_t section;    /* current section: a [header], or an inline table */
    uint32_t nsections;  /* sections opened so far */
    tkey keys[KEY_MAX];  /* the key being read */
    qr_mapb mb[QR_TOML_MAX_DEPTH + 2]; /* map builders for finishing, one per depth */
    bool mb_ready[QR_TOML_MAX_DEPTH + 2];
    bool no_text; /* QR_TOML_NO_TEXT: messages quote no text of the document */
} tr;

/* ---- positions and messages ---- */
static void line_col(const tr *r, size_t pos, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;
    size_t k = r->n >= 3 && memcmp(r->s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; /* a BOM */
    for (; k < pos && k < r->n; k++) {
        if (r->s[k] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)r->s[k] & 0xc0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static uint32_t line_of(const tr *r, size_t pos)
{
    uint32_t l, c;
    line_col(r, pos, &l, &c);
    return l;
}

static int fail_code(tr *r, size_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_code(tr *r, size_t pos, int code, const char *fmt, ...)
{
    if (r->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
        va_end(ap);
        line_col(r, pos, &r->err->line, &r->err->col);
    }
    return code;
}

#define fail(r, pos, ...) fail_code(r, pos, QR_EINVAL, __VA_ARGS__)

static int too_deep(tr *r, size_t pos)
{
    return fail_code(r, pos, QR_ELIMIT,
                     "document nests deeper than %d levels of tables and arrays: flatten it",
                     QR_TOML_MAX_DEPTH);
}

/* Source text s[start..end) for a message: at most 60 bytes, cut at a character. */
typedef struct shown {
    char t[72];
} shown;

static shown show(const tr *r, size_t start, size_t end)
{
    shown o;
    if (r->no_text) {
        strcpy(o.t, "...");
        return o;
    }
    size_t len = end - start, cut = len;
    if (cut > 60) {
        cut = 60;
        while (cut > 0 && ((unsigned char)r->s[start + cut] & 0xc0) == 0x80)
            cut--;
    }
    memcpy(o.t, r->s + start, cut);
    strcpy(o.t + cut, cut < len ? "..." : "");
    return o;
}

/* What sits at pos, for "found ..." in messages. */
static shown found(const tr *r, size_t pos)
{
    shown o;
    if (pos >= r->n) {
        strcpy(o.t, "end of input");
        return o;
    }
    unsigned char c = (unsigned char)r->s[pos];
    if (c == '\n' || (c == '\r' && pos + 1 < r->n && r->s[pos + 1] == '\n'))
        strcpy(o.t, "end of line");
    else if (c == '\t')
        strcpy(o.t, "a tab");
    else if (r->no_text && c < 0x80 && (c < 0x20 || c == 0x7f))
        strcpy(o.t, "a control character");
    else if (r->no_text && !(c >= 0x20 && c < 0x7f && !isalnum(c)))
        strcpy(o.t, c < 0x80 ? "a letter or digit" : "a non-ASCII character");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(o.t, sizeof o.t, "'%c'", c);
    else if (c < 0x80)
        snprintf(o.t, sizeof o.t, "control character 0x%02x", c);
    else {
        uint32_t cp;
        size_t k = qr_utf8_decode(r->s + pos, r->n - pos, &cp);
        snprintf(o.t, sizeof o.t, "'%.*s' (U+%04X)", (int)k, r->s + pos, (unsigned)cp);
    }
    return o;
}

/* Offset of the first byte that is not valid UTF-8, or n. Rejects overlong forms,
 * surrogates and code points past U+10FFFF. */
static size_t utf8_bad(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            need = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0)
                lo = 0xa0;
            else if (c == 0xed)
                hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0)
                lo = 0x90;
            else if (c == 0xf4)
                hi = 0x8f;
        } else
            return i;
        if (n - i <= need)
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
        i += need + 1;
    }
    return n;
}

/* ---- nodes ---- */
static qr_val node_ref(tnode *t)
{
    qr_val v = {.t = QR_T_INT};
    v.p = t;
    return v;
}

static tnode *node_new(tr *r, int kind, size_t depth, size_t pos)
{
    tnode *t = qr_arena_zalloc(r->a, sizeof *t);
    if (!t)
        return NULL;
    t->kind = (uint8_t)kind;
    t->depth = (uint16_t)depth;
    t->pos = pos;
    return t;
}

static tnode *kid(tnode *t, qr_val key)
{
    qr_val *slot = qr_mapb_slot(&t->kids, key); /* NULL while t has no children */
    return slot ? (tnode *)slot->p : NULL;
}

/* Adds child c to table t under key (the key is known to be new). Tables get their
 * child map on the first child: many tables are empty or hold only sub-tables' parents. */
static void put_kid(tr *r, tnode *t, qr_val key, tnode *c)
{
    if (!t->kids.buf)
        qr_mapb_init(&t->kids, r->a, 4);
    qr_mapb_put(&t->kids, key, node_ref(c));
}

/* Adds a new child table (or array of tables) of t under key; NULL on exhaustion. */
static tnode *add_kid(tr *r, tnode *t, const tkey *k, int kind, int how)
{
    tnode *c = node_new(r, kind, (size_t)t->depth + 1, k->start);
    if (!c)
        return NULL;
    c->how = (uint8_t)how;
    c->section = r->section;
    put_kid(r, t, k->s, c);
    return r->a->exhausted ? NULL : c;
}

static int oom(tr *r)
{
    (void)r;
    return QR_ENOMEM;
}

/* ---- whitespace, comments, line ends ---- */
static void skip_ws(tr *r)
{
    while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t'))
        r->i++;
}

static bool at_newline(const tr *r)
{
    return r->i < r->n &&
           (r->s[r->i] == '\n' || (r->s[r->i] == '\r' && r->i + 1 < r->n && r->s[r->i + 1] == '\n'));
}

static void eat_newline(tr *r)
{
    r->i += r->s[r->i] == '\r' ? 2 : 1;
}

/* At '#': skips the comment up to (not including) its line end. */
static int comment(tr *r)
{
    for (r->i++; r->i < r->n; r->i++) {
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '\n' || (c == '\r' && at_newline(r)))
            return QR_OK;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail(r, r->i, "control character 0x%02x in a comment: remove it", c);
    }
    return QR_OK;
}

/* After a key/value pair or a header: spaces, an optional comment, then a line end. */
static int line_end(tr *r, const char *after)
{
    skip_ws(r);
    if (r->i < r->n && r->s[r->i] == '#') {
        int rc = comment(r);
        if (rc)
            return rc;
    }
    if (r->i >= r->n)
        return QR_OK;
    if (at_newline(r)) {
        eat_newline(r);
        return QR_OK;
    }
    if (r->s[r->i] == '\r')
        return fail(r, r->i, "carriage return not followed by a newline: end lines with "
                             "'\\n' or '\\r\\n'");
    return fail(r, r->i, "unexpected %s after %s: expected a newline or a '#' comment",
                found(r, r->i).t, after);
}

/* Inside arrays: spaces, newlines and comments. */
static int skip_array_space(tr *r)
{
    for (;;) {
        skip_ws(r);
        if (r->i >= r->n)
            return QR_OK;
        if (at_newline(r)) {
            eat_newline(r);
        } else if (r->s[r->i] == '#') {
            int rc = comment(r);
            if (rc)
                return rc;
        } else {
            return QR_OK;
        }
    }
}

/* ---- strings ---- */
static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* At the letter of a \u or \U escape; appends the character. */
static int unicode_escape(tr *r, int ndig)
{
    size_t at = r->i - 1; /* the backslash */
    r->i++;
    uint32_t cp = 0;
    for (int k = 0; k < ndig; k++, r->i++) {
        int h = r->i < r->n ? hexval(r->s[r->i]) : -1;
        if (h < 0)
            return fail(r, at, "invalid escape: '\\%c' takes exactly %d hex digits, found %s",
                        ndig == 4 ? 'u' : 'U', ndig, found(r, r->i).t);
        cp = cp * 16 + (uint32_t)h;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return fail(r, at, "invalid escape '%s': not a unicode scalar value (surrogates "
                           "and code points past 10FFFF are not allowed)",
                    show(r, at, r->i).t);
    char u[4];
    qr_buf_append(&r->tmp, u, qr_utf8_encode(cp, u));
    return QR_OK;
}

/* At a backslash in a basic string; appends what it stands for. */
static int escape(tr *r, bool multi)
{
    size_t at = r->i++;
    if (r->i >= r->n)
        return fail(r, at, "unterminated string: input ends after '\\'");
    char e = r->s[r->i], ch;
    switch (e) {
    case 'b': ch = '\b'; break;
    case 't': ch = '\t'; break;
    case 'n': ch = '\n'; break;
    case 'f': ch = '\f'; break;
    case 'r': ch = '\r'; break;
    case '"': ch = '"'; break;
    case '\\': ch = '\\'; break;
    case 'u': return unicode_escape(r, 4);
    case 'U': return unicode_escape(r, 8);
    default:
        if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
            /* line-ending backslash: drop the line end and the blanks after it */
            skip_ws(r);
            if (!at_newline(r))
                return fail(r, at, "invalid escape: a '\\' followed by spaces must end the "
                                   "line (it joins the next line); write '\\\\' for a "
                                   "backslash");
            for (;;) {
                skip_ws(r);
                if (!at_newline(r))
                    break;
                eat_newline(r);
            }
            return QR_OK;
        }
        return fail(r, at, "invalid escape: '\\' followed by %s; valid escapes are \\b \\t "
                           "\\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX (or use a 'literal string')",
                    found(r, r->i).t);
    }
    qr_buf_append(&r->tmp, &ch, 1);
    r->i++;
    return QR_OK;
}

/* At the opening quote (' or "), of a single- or triple-quoted string; reads the text
 * into r->tmp and leaves the cursor after the closing quote. */
static int string_body(tr *r, bool multi)
{
    size_t open = r->i;
    char q = r->s[r->i];
    bool basic = q == '"';
    r->i += multi ? 3 : 1;
    qr_buf_reset(&r->tmp);
    if (multi && at_newline(r)) /* a newline right after the opening quotes is dropped */
        eat_newline(r);
    size_t start = r->i;
    for (;;) {
        if (r->i >= r->n)
            return fail(r, open, "unterminated string: no closing %s before the end of input",
                        multi ? (basic ? "'\"\"\"'" : "\"'''\"") : (basic ? "'\"'" : "\"'\""));
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == (unsigned char)q) {
            if (!multi) {
                qr_buf_append(&r->tmp, r->s + start, r->i - start);
                r->i++;
                break;
            }
            size_t run = 0;
            while (r->i + run < r->n && r->s[r->i + run] == q)
                run++;
            if (run < 3) {
                r->i += run;
                continue;
            }
            if (run > 5)
                return fail(r, r->i + 5, "too many quotes: at most two %c may stand right "
                                         "before the closing %c%c%c; escape the others",
                            q, q, q, q);
            qr_buf_append(&r->tmp, r->s + start, r->i + run - 3 - start);
            r->i += run;
            break;
        }
        if (c == '\\' && basic) {
            qr_buf_append(&r->tmp, r->s + start, r->i - start);
            int rc = escape(r, multi);
            if (rc)
                return rc;
            start = r->i;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (!multi || (c == '\r' && !at_newline(r))) {
                if (c == '\r' && !at_newline(r))
                    return fail(r, r->i, "carriage return not followed by a newline in a "
                                         "string: write it as '\\r'");
                return fail(r, r->i, "unterminated string: newline before the closing %s; "
                                     "use %s for multi-line strings",
                            basic ? "'\"'" : "\"'\"", basic ? "'\"\"\"'" : "\"'''\"");
            }
            if (c == '\r') { /* CRLF is read as LF */
                qr_buf_append(&r->tmp, r->s + start, r->i - start);
                r->i++;
                start = r->i;
            }
            r->i++;
            continue;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail(r, r->i, "control character 0x%02x in a string: write it as "
                                 "'\\u%04x' in a \"basic string\"",
                        c, c);
        r->i++;
    }
    return r->tmp.failed ? QR_ENOMEM : QR_OK;
}

static bool triple(const tr *r)
{
    char q = r->s[r->i];
    return r->n - r->i >= 3 && r->s[r->i + 1] == q && r->s[r->i + 2] == q;
}

/* ---- keys ---- */
static bool bare_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* Reads a (dotted) key into r->keys; *nk parts. Leaves the cursor after the key and the
 * spaces that follow it. */
static int read_key(tr *r, size_t *nk)
{
    size_t k = 0;
    for (;;) {
        size_t st = r->i;
        if (k == KEY_MAX)
            return too_deep(r, st);
        char c = r->i < r->n ? r->s[r->i] : 0;
        qr_val s;
        if (r->i < r->n && bare_char(c)) {
            while (r->i < r->n && bare_char(r->s[r->i]))
                r->i++;
            s = qr_str_new(r->a, r->s + st, r->i - st);
        } else if (c == '"' || c == '\'') {
            if (triple(r))
                return fail(r, st, "a multi-line string cannot be a key: quote a key once, "
                                   "as \"key\" or 'key'");
            int rc = string_body(r, false);
            if (rc)
                return rc;
            s = qr_str_new(r->a, r->tmp.p ? r->tmp.p : "", r->tmp.len);
        } else {
            return fail(r, st, "expected a key, found %s: bare keys use A-Z a-z 0-9 _ -, "
                               "quote any other key (\"key\")",
                        found(r, st).t);
        }
        if (r->a->exhausted)
            return oom(r);
        r->keys[k].s = s;
        r->keys[k].start = st;
        r->keys[k].end = r->i;
        k++;
        skip_ws(r);
        if (r->i < r->n && r->s[r->i] == '.') {
            r->i++;
            skip_ws(r);
            continue;
        }
        *nk = k;
        return QR_OK;
    }
}

/* The text of keys[0..k] (through part k). */
static shown key_text(const tr *r, size_t k)
{
    return show(r, r->keys[0].start, r->keys[k].end);
}

/* ---- values ---- */
static int value(tr *r, size_t depth, qr_val *out, const char **what);
static int finish(tr *r, tnode *t, qr_val *out);

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool token_char(char c)
{
    return bare_char(c) || c == '+' || c == '.' || c == ':';
}

/* Runs of digits with single underscores between them. Returns the end of the run, or
 * NULL (with *bad_us set when an underscore is misplaced). */
static const char *digit_run(const char *p, const char *e, int base, bool *bad_us)
{
    const char *st = p;
    for (;;) {
        if (p >= e || hexval(*p) < 0 || hexval(*p) >= base)
            return p == st ? NULL : p;
        p++;
        if (p < e && *p == '_') {
            if (p + 1 >= e || hexval(p[1]) < 0 || hexval(p[1]) >= base) {
                *bad_us = true;
                return NULL;
            }
            p++;
        }
    }
}

static bool dd(const char *p, int ndig)
{
    for (int k = 0; k < ndig; k++)
        if (!is_digit(p[k]))
            return false;
    return true;
}

static int num_at(const char *p, int ndig)
{
    int v = 0;
    for (int k = 0; k < ndig; k++)
        v = v * 10 + (p[k] - '0');
    return v;
}

/* HH:MM:SS(.fraction)? at p; returns its length or 0. */
static size_t time_part(const char *p, const char *e)
{
    if (e - p < 8 || !dd(p, 2) || p[2] != ':' || !dd(p + 3, 2) || p[5] != ':' || !dd(p + 6, 2))
        return 0;
    if (num_at(p, 2) > 23 || num_at(p + 3, 2) > 59 || num_at(p + 6, 2) > 60)
        return 0;
    const char *q = p + 8;
    if (q < e && *q == '.') {
        q++;
        if (q >= e || !is_digit(*q))
            return 0;
        while (q < e && is_digit(*q))
            q++;
    }
    return (size_t)(q - p);
}

static bool valid_datetime(const char *p, const char *e)
{
    if (e - p >= 3 && p[2] == ':') /* local time */
        return time_part(p, e) == (size_t)(e - p);
    if (e - p < 10 || !dd(p, 4) || p[4] != '-' || !dd(p + 5, 2) || p[7] != '-' || !dd(p + 8, 2))
        return false;
    int y = num_at(p, 4), m = num_at(p + 5, 2), d = num_at(p + 8, 2);
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return false;
    if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return false;
    p += 10;
    if (p == e)
        return true; /* local date */
    if (*p != 'T' && *p != 't' && *p != ' ')
        return false;
    p++;
    size_t tl = time_part(p, e);
    if (!tl)
        return false;
    p += tl;
    if (p == e)
        return true; /* local date-time */
    if ((*p == 'Z' || *p == 'z') && p + 1 == e)
        return true;
    if ((*p == '+' || *p == '-') && e - p == 6 && dd(p + 1, 2) && p[3] == ':' && dd(p + 4, 2))
        return num_at(p + 1, 2) <= 23 && num_at(p + 4, 2) <= 59;
    return false;
}

/* A number, boolean or date-time: the token s[st..end). */
static int scalar(tr *r, size_t st, size_t end, qr_val *out, const char **what)
{
    const char *t = r->s + st, *e = r->s + end;
    size_t len = end - st;
    shown tok = show(r, st, end);
    if (len == 4 && memcmp(t, "true", 4) == 0) {
        *out = qr_bool(true);
        *what = "a boolean";
        return QR_OK;
    }
    if (len == 5 && memcmp(t, "false", 5) == 0) {
        *out = qr_bool(false);
        *what = "a boolean";
        return QR_OK;
    }
    if ((len >= 5 && dd(t, 4) && t[4] == '-') || (len >= 3 && dd(t, 2) && t[2] == ':')) {
        if (!valid_datetime(t, e))
            return fail(r, st, "invalid date-time '%s': expected RFC 3339 like "
                               "1979-05-27T07:32:00Z, 1979-05-27 or 07:32:00, with a real "
                               "date and time",
                        tok.t);
        *out = qr_str_new(r->a, t, len);
        *what = "a date-time";
        return r->a->exhausted ? oom(r) : QR_OK;
    }
    const char *p = t;
    bool neg = false, sign = false;
    if (p < e && (*p == '+' || *p == '-')) {
        sign = true;
        neg = *p == '-';
        p++;
    }
    *what = "a float";
    if (e - p == 3 && (memcmp(p, "inf", 3) == 0 || memcmp(p, "nan", 3) == 0)) {
        double d = p[0] == 'i' ? INFINITY : NAN;
        *out = qr_double(neg ? -d : d);
        return QR_OK;
    }
    if (p == e || !is_digit(*p)) {
        if ((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z'))
            return fail(r, st, "invalid value '%s': strings must be quoted (\"%s\"); "
                               "booleans are true and false",
                        tok.t, tok.t);
        return fail(r, st, "invalid number '%s': expected digits like 42, -3.14, 1e6 or 0xff",
                    tok.t);
    }
    bool bad_us = false;
    if (e - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b')) {
        int base = p[1] == 'x' ? 16 : p[1] == 'o' ? 8 : 2;
        const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
        if (sign)
            return fail(r, st, "invalid number '%s': a %s integer takes no sign", tok.t, name);
        const char *q = digit_run(p + 2, e, base, &bad_us);
        if (!q || q != e)
            return fail(r, st, "invalid %s integer '%s': %s", name, tok.t,
                        bad_us ? "each '_' must stand between two digits"
                        : base == 16 ? "expected digits 0-9 a-f after '0x'"
                        : base == 8  ? "expected digits 0-7 after '0o'"
                                     : "expected digits 0-1 after '0b'");
        uint64_t v = 0;
        for (q = p + 2; q < e; q++) {
            if (*q == '_')
                continue;
            uint64_t dgt = (uint64_t)hexval(*q);
            if (v > ((uint64_t)INT64_MAX - dgt) / (uint64_t)base)
                return fail(r, st, "integer '%s' out of range: integers must fit in 64 bits "
                                   "(at most 0x7fffffffffffffff)",
                            tok.t);
            v = v * (uint64_t)base + dgt;
        }
        *out = qr_int((int64_t)v);
        *what = "an integer";
        return QR_OK;
    }
    const char *ie = digit_run(p, e, 10, &bad_us);
    bool is_float = false;
    const char *q = ie;
    if (q && q < e && *q == '.') {
        is_float = true;
        q = digit_run(q + 1, e, 10, &bad_us);
        if (!q && !bad_us)
            return fail(r, st, "invalid float '%s': a '.' must have digits on both sides "
                               "(write 1.0, 0.5)",
                        tok.t);
    }
    if (q && q < e && (*q == 'e' || *q == 'E')) {
        is_float = true;
        q++;
        if (q < e && (*q == '+' || *q == '-'))
            q++;
        q = digit_run(q, e, 10, &bad_us);
        if (!q && !bad_us)
            return fail(r, st, "invalid float '%s': expected digits in the exponent", tok.t);
    }
    if (bad_us)
        return fail(r, st, "invalid number '%s': each '_' must stand between two digits",
                    tok.t);
    if (!q || q != e)
        return fail(r, st, "invalid number '%s': expected digits like 42, -3.14, 1e6 or 0xff",
                    tok.t);
    if (p[0] == '0' && ie - p > 1)
        return fail(r, st, "invalid number '%s': leading zeros are not allowed (use 0o for "
                           "octal)",
                    tok.t);
    if (!is_float) {
        uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (q = p; q < e; q++) {
            if (*q == '_')
                continue;
            uint64_t dgt = (uint64_t)(*q - '0');
            if (v > (lim - dgt) / 10)
                return fail(r, st, "integer '%s' out of range: integers must fit in 64 bits "
                                   "(-9223372036854775808 to 9223372036854775807)",
                            tok.t);
            v = v * 10 + dgt;
        }
        *out = qr_int(neg ? (int64_t)(0 - v) : (int64_t)v);
        *what = "an integer";
        return QR_OK;
    }
    qr_buf_reset(&r->tmp);
    for (q = t; q < e; q++)
        if (*q != '_')
            qr_buf_putc(&r->tmp, *q);
    if (r->tmp.failed)
        return oom(r);
    errno = 0;
    double d = strtod(r->tmp.p, NULL);
    if (errno == ERANGE && isinf(d))
        return fail(r, st, "float '%s' out of range: the largest float is about 1.8e308",
                    tok.t);
    *out = qr_double(d);
    return QR_OK;
}

/* At '['. Elements are values of depth `depth + 1`. */
static int array(tr *r, size_t depth, qr_val *out)
{
    size_t open = r->i++;
    qr_vecb vb;
    qr_vecb_init(&vb, r->a, 0);
    int rc;
    for (;;) {
        if ((rc = skip_array_space(r)))
            return rc;
        if (r->i >= r->n)
            return fail(r, open, "unterminated array: no closing ']' before the end of input");
        if (r->s[r->i] == ']')
            break;
        qr_val v;
        const char *what;
        if ((rc = value(r, depth + 1, &v, &what)))
            return rc;
        qr_vecb_push(&vb, v);
        if (r->a->exhausted)
            return oom(r);
        if ((rc = skip_array_space(r)))
            return rc;
        if (r->i < r->n && r->s[r->i] == ',') {
            r->i++;
            continue;
        }
        if (r->i < r->n && r->s[r->i] == ']')
            break;
        if (r->i >= r->n)
            return fail(r, open, "unterminated array: no closing ']' before the end of input");
        return fail(r, r->i, "expected ',' or ']' in array, found %s", found(r, r->i).t);
    }
    r->i++;
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return r->a->exhausted ? oom(r) : QR_OK;
}

static int keyval(tr *r, tnode *table);

/* At '{'. The table is of depth `depth`. */
static int inline_table(tr *r, size_t depth, qr_val *out)
{
    size_t open = r->i++;
    tnode *t = node_new(r, N_TABLE, depth, open);
    if (!t)
        return oom(r);
    uint32_t saved = r->section;
    r->section = ++r->nsections;
    int rc;
    skip_ws(r);
    if (r->i < r->n && r->s[r->i] == '}') {
        r->i++;
    } else {
        for (;;) {
            skip_ws(r);
            if (r->i < r->n && r->s[r->i] == '}')
                return fail(r, r->i, "trailing comma in inline table: remove the ',' before "
                                     "'}'");
            if (r->i >= r->n || at_newline(r))
                return fail(r, r->i, "unterminated inline table: an inline table must close "
                                     "with '}' on the line it opens; use a [table] for longer "
                                     "ones");
            if ((rc = keyval(r, t)))
                return rc;
            skip_ws(r);
            if (r->i < r->n && r->s[r->i] == ',') {
                r->i++;
                continue;
            }
            if (r->i < r->n && r->s[r->i] == '}') {
                r->i++;
                break;
            }
            if (r->i >= r->n || at_newline(r))
                return fail(r, r->i, "unterminated inline table: an inline table must close "
                                     "with '}' on the line it opens; use a [table] for longer "
                                     "ones");
            return fail(r, r->i, "expected ',' or '}' in inline table, found %s",
                        found(r, r->i).t);
        }
    }
    r->section = saved;
    return finish(r, t, out);
}

/* A value whose collections (if it is one) sit at nesting depth `depth`. */
static int value(tr *r, size_t depth, qr_val *out, const char **what)
{
    if (r->i >= r->n || at_newline(r) || r->s[r->i] == '#')
        return fail(r, r->i, "missing value: expected a string, number, boolean, date-time, "
                             "array or inline table on the same line, found %s",
                    found(r, r->i).t);
    char c = r->s[r->i];
    int rc;
    if (c == '"' || c == '\'') {
        if ((rc = string_body(r, triple(r))))
            return rc;
        *out = qr_str_new(r->a, r->tmp.p ? r->tmp.p : "", r->tmp.len);
        *what = "a string";
        return r->a->exhausted ? oom(r) : QR_OK;
    }
    if (c == '[' || c == '{') {
        if (depth > QR_TOML_MAX_DEPTH)
            return too_deep(r, r->i);
        *what = c == '[' ? "an array" : "an inline table";
        return c == '[' ? array(r, depth, out) : inline_table(r, depth, out);
    }
    size_t st = r->i;
    while (r->i < r->n && token_char(r->s[r->i]))
        r->i++;
    /* a date and a time may be separated by a space */
    if (r->i - st == 10 && dd(r->s + st, 4) && r->s[st + 4] == '-' && r->n - r->i >= 4 &&
        r->s[r->i] == ' ' && dd(r->s + r->i + 1, 2) && r->s[r->i + 3] == ':') {
        r->i++;
        while (r->i < r->n && token_char(r->s[r->i]))
            r->i++;
    }
    if (r->i == st)
        return fail(r, st, "expected a value, found %s: a string, number, boolean, "
                           "date-time, array or inline table",
                    found(r, st).t);
    return scalar(r, st, r->i, out, what);
}

/* ---- tables ---- */

/* Describes why node c (reached as keys[0..k]) cannot hold sub-keys. */
static int not_a_table(tr *r, size_t k, const tnode *c)
{
    uint32_t line = line_of(r, c->pos);
    size_t at = r->keys[k].start;
    if (c->kind == N_AOT)
        return fail(r, at, "cannot add keys to '%s' here: it is an array of tables (line %u); "
                           "put them under a [[%s]] or [%s.sub] header",
                    key_text(r, k).t, line, key_text(r, k).t, key_text(r, k).t);
    if (strcmp(c->what, "an inline table") == 0)
        return fail(r, at, "cannot extend '%s': it is an inline table (line %u), complete "
                           "once written; move the key inside its braces",
                    key_text(r, k).t, line);
    return fail(r, at, "cannot use '%s' as a table: it already holds %s (line %u)",
                key_text(r, k).t, c->what, line);
}

/* At a key in `table`: reads `key = value` and stores it. */
static int keyval(tr *r, tnode *table)
{
    size_t nk;
    int rc = read_key(r, &nk);
    if (rc)
        return rc;
    size_t key_end = r->keys[nk - 1].end;
    /* walk (and make) the tables the dotted parts name */
    tnode *t = table;
    for (size_t k = 0; k + 1 < nk; k++) {
        tnode *c = kid(t, r->keys[k].s);
        if (!c) {
            if ((size_t)t->depth + 1 > QR_TOML_MAX_DEPTH)
                return too_deep(r, r->keys[k].start);
            if (!(c = add_kid(r, t, &r->keys[k], N_TABLE, H_DOTTED)))
                return oom(r);
        } else if (c->kind != N_TABLE) {
            return not_a_table(r, k, c);
        } else if (c->how == H_HEADER) {
            return fail(r, r->keys[k].start,
                        "cannot add '%s' with dotted keys: table '%s' has its own [header] "
                        "(line %u); write the key under it",
                        key_text(r, nk - 1).t, key_text(r, k).t, line_of(r, c->pos));
        } else if (c->how == H_DOTTED && c->section != r->section) {
            return fail(r, r->keys[k].start,
                        "cannot add '%s': table '%s' was completed with dotted keys at line %u",
                        key_text(r, nk - 1).t, key_text(r, k).t, line_of(r, c->pos));
        } else if (c->how == H_IMPLICIT) {
            c->how = H_DOTTED;
            c->section = r->section;
        }
        t = c;
    }
    const tkey *last = &r->keys[nk - 1];
    tnode *old = kid(t, last->s);
    if (old)
        return fail(r, r->keys[0].start, "duplicate key '%s': already defined at line %u; a "
                                         "key is set once per table",
                    key_text(r, nk - 1).t, line_of(r, old->pos));
    if (r->a->exhausted)
        return oom(r);
    qr_val keyv = last->s;
    size_t keypos = r->keys[0].start;
    skip_ws(r);
    if (r->i >= r->n || r->s[r->i] != '=')
        return fail(r, r->i, "expected '=' after key '%s', found %s", show(r, keypos, key_end).t,
                    found(r, r->i).t);
    r->i++;
    skip_ws(r);
    tnode *leaf = node_new(r, N_LEAF, (size_t)t->depth + 1, keypos);
    if (!leaf)
        return oom(r);
    if ((rc = value(r, (size_t)t->depth + 1, &leaf->v, &leaf->what)))
        return rc;
    put_kid(r, t, keyv, leaf);
    return r->a->exhausted ? oom(r) : QR_OK;
}

/* At '['. Reads a [table] or [[array of tables]] header; *cur becomes its table. */
static int header(tr *r, tnode *root, tnode **cur)
{
    bool aot = r->n - r->i >= 2 && r->s[r->i + 1] == '[';
    r->i += aot ? 2 : 1;
    skip_ws(r);
    size_t nk;
    int rc = read_key(r, &nk);
    if (rc)
        return rc;
    if (r->i >= r->n || r->s[r->i] != ']' || (aot && (r->n - r->i < 2 || r->s[r->i + 1] != ']'))) {
        size_t at = r->i + (r->i < r->n && r->s[r->i] == ']');
        return fail(r, at, "expected '%s' to close the header of '%s', found %s", aot ? "]]" : "]",
                    key_text(r, nk - 1).t, found(r, at).t);
    }
    r->i += aot ? 2 : 1;
    shown name = key_text(r, nk - 1);
    tnode *t = root;
    for (size_t k = 0; k + 1 < nk; k++) {
        tnode *c = kid(t, r->keys[k].s);
        if (!c) {
            if ((size_t)t->depth + 1 > QR_TOML_MAX_DEPTH)
                return too_deep(r, r->keys[k].start);
            if (!(c = add_kid(r, t, &r->keys[k], N_TABLE, H_IMPLICIT)))
                return oom(r);
        } else if (c->kind == N_AOT) {
            c = c->last;
        } else if (c->kind != N_TABLE) {
            return not_a_table(r, k, c);
        }
        t = c;
    }
    const tkey *last = &r->keys[nk - 1];
    tnode *c = kid(t, last->s);
    size_t at = r->keys[0].start;
    r->section = ++r->nsections;
    if (!aot) {
        if (!c) {
            if ((size_t)t->depth + 1 > QR_TOML_MAX_DEPTH)
                return too_deep(r, last->start);
            if (!(c = add_kid(r, t, last, N_TABLE, H_HEADER)))
                return oom(r);
        } else if (c->kind == N_AOT) {
            return fail(r, at, "cannot define table '%s': it is an array of tables (line %u); "
                               "use [[%s]] to add an element",
                        name.t, line_of(r, c->pos), name.t);
        } else if (c->kind != N_TABLE) {
            return fail(r, at, "cannot define table '%s': the key already holds %s (line %u)",
                        name.t, c->what, line_of(r, c->pos));
        } else if (c->how == H_HEADER) {
            return fail(r, at, "table '%s' defined twice: first at line %u; a table has one "
                               "[header]",
                        name.t, line_of(r, c->pos));
        } else if (c->how == H_DOTTED) {
            return fail(r, at, "table '%s' already defined with dotted keys at line %u: add "
                               "its keys there, or use [%s.sub] for a sub-table",
                        name.t, line_of(r, c->pos), name.t);
        } else {
            c->how = H_HEADER;
            c->pos = at;
        }
        *cur = c;
        return QR_OK;
    }
    if (!c) {
        if ((size_t)t->depth + 2 > QR_TOML_MAX_DEPTH)
            return too_deep(r, last->start);
        if (!(c = add_kid(r, t, last, N_AOT, H_HEADER)))
            return oom(r);
        c->pos = at;
    } else if (c->kind == N_TABLE) {
        return fail(r, at, "cannot define array of tables '%s': '%s' is already a table "
                           "(line %u)",
                    name.t, name.t, line_of(r, c->pos));
    } else if (c->kind == N_LEAF) {
        if (strcmp(c->what, "an array") == 0)
            return fail(r, at, "cannot append to '%s' with [[%s]]: it is a static array "
                               "(line %u), complete once written",
                        name.t, name.t, line_of(r, c->pos));
        return fail(r, at, "cannot define array of tables '%s': the key already holds %s "
                           "(line %u)",
                    name.t, c->what, line_of(r, c->pos));
    }
    tnode *e = node_new(r, N_TABLE, (size_t)c->depth + 1, at);
    if (!e)
        return oom(r);
    e->how = H_HEADER;
    if (c->last)
        c->last->next = e;
    else
        c->first = e;
    c->last = e;
    *cur = e;
    return QR_OK;
}

/* ---- building the values ---- */
static int finish(tr *r, tnode *t, qr_val *out)
{
    if (t->kind == N_LEAF) {
        *out = t->v;
        return QR_OK;
    }
    int rc;
    if (t->kind == N_AOT) {
        qr_vecb vb;
        qr_vecb_init(&vb, r->a, 0);
        for (tnode *e = t->first; e; e = e->next) {
            qr_val v;
            if ((rc = finish(r, e, &v)))
                return rc;
            qr_vecb_push(&vb, v);
        }
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return r->a->exhausted ? oom(r) : QR_OK;
    }
    /* the children are finished first: a map builder per depth is then free to reuse */
    const qr_mbuf *kb = t->kids.buf;
    uint32_t nkids = kb ? kb->used : 0;
    for (uint32_t k = 0; k < nkids; k++) {
        if ((rc = finish(r, (tnode *)kb->kv[2 * k + 1].p, &((tnode *)kb->kv[2 * k + 1].p)->v)))
            return rc;
    }
    qr_mapb *mb = &r->mb[t->depth];
    if (!r->mb_ready[t->depth]) {
        qr_mapb_init(mb, r->a, 16);
        r->mb_ready[t->depth] = true;
    } else {
        qr_mapb_reuse(mb);
    }
    for (uint32_t k = 0; k < nkids; k++)
        qr_mapb_put(mb, kb->kv[2 * k], ((tnode *)kb->kv[2 * k + 1].p)->v);
    *out = qr_mapb_finish(mb, QR_T_MAP);
    return r->a->exhausted ? oom(r) : QR_OK;
}

/* ---- the document ---- */
static int document(tr *r, tnode *root)
{
    tnode *cur = root;
    int rc;
    while (r->i < r->n) {
        skip_ws(r);
        if (r->i >= r->n)
            break;
        char c = r->s[r->i];
        if (c == '#') {
            if ((rc = comment(r)))
                return rc;
            continue;
        }
        if (at_newline(r)) {
            eat_newline(r);
            continue;
        }
        if (c == '[') {
            if ((rc = header(r, root, &cur)) || (rc = line_end(r, "a table header")))
                return rc;
            continue;
        }
        if (c == '\r')
            return fail(r, r->i, "carriage return not followed by a newline: end lines with "
                                 "'\\n' or '\\r\\n'");
        if ((rc = keyval(r, cur)) || (rc = line_end(r, "a value")))
            return rc;
    }
    return QR_OK;
}

int qr_toml_read(qr_arena *a, const char *src, size_t n, qr_val *out, qr_read_error *err)
{
    return qr_toml_read_ex(a, src, n, 0, out, err);
}

int qr_toml_read_ex(qr_arena *a, const char *src, size_t n, int flags, qr_val *out,
                    qr_read_error *err)
{
    tr *r = calloc(1, sizeof *r);
    if (!r)
        return QR_ENOMEM;
    r->no_text = flags & QR_TOML_NO_TEXT;
    r->a = a;
    r->s = src;
    r->n = n;
    r->err = err;
    qr_buf_init(&r->tmp);
    if (err) {
        err->msg[0] = 0;
        err->line = err->col = 0;
    }
    *out = qr_nil();
    int rc;
    size_t bad = utf8_bad((const unsigned char *)src, n);
    if (bad < n) {
        rc = r->no_text ? fail(r, bad, "invalid utf-8: a toml document must be utf-8 text")
                        : fail(r, bad,
                               "invalid utf-8 byte 0x%02x: a toml document must be utf-8 text",
                               (unsigned char)src[bad]);
        goto done;
    }
    if (n >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0)
        r->i = 3;
    tnode *root = node_new(r, N_TABLE, 1, 0);
    if (!root) {
        rc = QR_ENOMEM;
        goto done;
    }
    root->how = H_HEADER;
    if ((rc = document(r, root)))
        goto done;
    rc = finish(r, root, out);
done:
    if (rc == QR_ENOMEM && err) {
        snprintf(err->msg, sizeof err->msg, "out of memory while reading toml");
        err->line = err->col = 0;
    }
    if (rc)
        *out = qr_nil();
    qr_buf_release(&r->tmp);
    free(r);
    return rc;
}
