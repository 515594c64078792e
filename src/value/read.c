/*
 * read.c: the reader for EDN and for the Lisp's source syntax (EDN plus 'x, #'x,
 * #(...), #"regex"), producing values directly in one pass.
 *
 * Lists and vectors remember the line and column where they start, so the evaluator can
 * place its errors. Every error names what was expected, what was found and where.
 * Nesting is bounded (QR_MAX_DEPTH) so hostile input cannot exhaust the stack: the bound
 * counts every recursion of read_form, so prefix forms ('''''x, #_#_#_x) count like brackets.
 * Characters read as one-character strings: the Lisp has no character type.
 */
#include "quarry/value.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    qr_arena *a;
    const char *s;
    size_t n, i;
    uint32_t line, col;
    int flags;
    int depth;
    qr_read_error *err;
    /* inside #(...): highest %N seen and whether %& was seen */
    bool in_anon;
    int anon_max;
    bool anon_rest;
} reader;

static int oom(reader *r)
{
    if (r->err) {
        snprintf(r->err->msg, sizeof r->err->msg, "out of memory while reading");
        r->err->line = r->line;
        r->err->col = r->col;
    }
    return QR_ENOMEM;
}

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    /* a refused allocation is sticky and wins: what was read after it may be incomplete */
    if (r->a->exhausted)
        return oom(r);
    if (r->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
        va_end(ap);
        qr_utf8_clean(r->err->msg, sizeof r->err->msg); /* it may quote the input */
        r->err->line = r->line;
        r->err->col = r->col;
    }
    return QR_EINVAL;
}

static int peek(reader *r)
{
    return r->i < r->n ? (unsigned char)r->s[r->i] : -1;
}

static int next(reader *r)
{
    if (r->i >= r->n)
        return -1;
    int c = (unsigned char)r->s[r->i++];
    if (c == '\n') {
        r->line++;
        r->col = 1;
    } else if ((c & 0xc0) != 0x80) {
        r->col++;
    }
    return c;
}

static void skip_ws(reader *r)
{
    for (;;) {
        int c = peek(r);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f' ||
            c == '\v') {
            next(r);
        } else if (c == ';') {
            while (peek(r) != -1 && peek(r) != '\n')
                next(r);
        } else {
            return;
        }
    }
}

static bool is_delim(int c)
{
    return c == -1 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' ||
           c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == '"' || c == ';' || c == '\f' || c == '\v';
}

static int read_form(reader *r, qr_val *out);

static int check_oom(reader *r)
{
    if (r->a->exhausted)
        return oom(r);
    if (r->a->too_deep)
        return fail(r, "value nested deeper than %d levels", QR_MAX_DEPTH);
    return QR_OK;
}

/* Reads forms until `close`; t is the collection to build. */
static int read_seq(reader *r, int close, qr_type t, uint32_t line, uint32_t col, qr_val *out)
{
    qr_vecb vb;
    qr_mapb mb;
    bool is_map = t == QR_T_MAP || t == QR_T_SET;
    if (is_map)
        qr_mapb_init(&mb, r->a, 8);
    else
        qr_vecb_init(&vb, r->a, 0);
    qr_val pending_key = qr_nil();
    bool have_key = false;
    for (;;) {
        skip_ws(r);
        int c = peek(r);
        if (c == -1) {
            r->line = line;
            r->col = col;
            return fail(r, "unterminated %s: expected '%c' before the end of input",
                        t == QR_T_LIST ? "list" : t == QR_T_VEC ? "vector"
                                       : t == QR_T_MAP ? "map" : "set",
                        close);
        }
        if (c == close) {
            next(r);
            break;
        }
        if (c == ')' || c == ']' || c == '}')
            return fail(r, "unexpected '%c': expected '%c' to close the form at %u:%u", c,
                        close, line, col);
        if (c == '#' && r->i + 1 < r->n && r->s[r->i + 1] == '_') {
            next(r);
            next(r);
            qr_val ignored;
            int rc = read_form(r, &ignored);
            if (rc)
                return rc;
            continue;
        }
        qr_val x;
        uint32_t xl = r->line, xc = r->col;
        int rc = read_form(r, &x);
        if (rc)
            return rc;
        if (t == QR_T_SET) {
            if (qr_mapb_slot(&mb, x))
                return (r->line = xl, r->col = xc, fail(r, "duplicate item in set literal"));
            qr_mapb_put(&mb, x, x);
        } else if (t == QR_T_MAP) {
            if (!have_key) {
                if (qr_mapb_slot(&mb, x))
                    return (r->line = xl, r->col = xc, fail(r, "duplicate key in map literal"));
                pending_key = x;
                have_key = true;
            } else {
                qr_mapb_put(&mb, pending_key, x);
                have_key = false;
            }
        } else {
            qr_vecb_push(&vb, x);
        }
        if ((rc = check_oom(r)))
            return rc;
    }
    if (have_key) {
        r->line = line;
        r->col = col;
        return fail(r, "map literal has an odd number of forms: a key has no value");
    }
    *out = is_map ? qr_mapb_finish(&mb, t) : qr_vecb_finish(&vb, t);
    int rc = check_oom(r);
    if (rc)
        return rc;
    if (!is_map && out->c->len) {
        qr_coll *c = (qr_coll *)out->c;
        c->line = line;
        c->col = col;
    }
    return QR_OK;
}

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

static int read_u4(reader *r, uint32_t *cp)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(peek(r));
        if (h < 0)
            return fail(r, "bad unicode escape: expected 4 hex digits after \\u");
        next(r);
        v = v * 16 + (uint32_t)h;
    }
    *cp = v;
    return QR_OK;
}

static int read_string(reader *r, qr_val *out)
{
    uint32_t line = r->line, col = r->col;
    next(r); /* opening quote */
    qr_buf b;
    qr_buf_init(&b);
    int rc = QR_OK;
    for (;;) {
        int c = next(r);
        if (c == -1) {
            r->line = line;
            r->col = col;
            rc = fail(r, "unterminated string: expected '\"' before the end of input");
            goto done;
        }
        if (c == '"')
            break;
        if (c != '\\') {
            char ch = (char)c;
            qr_buf_append(&b, &ch, 1);
            continue;
        }
        int e = next(r);
        char ch;
        switch (e) {
        case 'n': ch = '\n'; break;
        case 't': ch = '\t'; break;
        case 'r': ch = '\r'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'u': {
            uint32_t cp;
            if ((rc = read_u4(r, &cp)))
                goto done;
            if (cp >= 0xd800 && cp <= 0xdbff && peek(r) == '\\' && r->i + 1 < r->n &&
                r->s[r->i + 1] == 'u') {
                next(r);
                next(r);
                uint32_t lo;
                if ((rc = read_u4(r, &lo)))
                    goto done;
                if (lo >= 0xdc00 && lo <= 0xdfff)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                else
                    cp = 0xfffd;
            }
            char tmp[4];
            qr_buf_append(&b, tmp, qr_utf8_encode(cp, tmp));
            continue;
        }
        default: {
            char cb[8];
            rc = fail(r, "unsupported escape '\\%s' in string: expected one of \\n \\t \\r "
                         "\\b \\f \\\" \\\\ \\uXXXX",
                      e < 0 ? " " : qr_char_shown(e, cb));
            goto done;
        }
        }
        qr_buf_append(&b, &ch, 1);
    }
    if (b.failed) {
        rc = QR_ENOMEM;
        goto done;
    }
    *out = qr_str_new(r->a, b.p ? b.p : "", b.len);
    rc = check_oom(r);
done:
    qr_buf_release(&b);
    return rc;
}

static int read_regex(reader *r, qr_val *out)
{
    uint32_t line = r->line, col = r->col;
    next(r); /* '"' */
    qr_buf b;
    qr_buf_init(&b);
    int rc = QR_OK;
    for (;;) {
        int c = next(r);
        if (c == -1) {
            r->line = line;
            r->col = col;
            rc = fail(r, "unterminated regex literal: expected '\"'");
            goto done;
        }
        if (c == '"')
            break;
        char ch = (char)c;
        if (c == '\\' && peek(r) == '"') {
            next(r);
            ch = '"';
        } else if (c == '\\' && peek(r) != -1) {
            qr_buf_append(&b, &ch, 1);
            ch = (char)next(r);
        }
        qr_buf_append(&b, &ch, 1);
    }
    qr_read_error e;
    rc = qr_regex_compile(r->a, b.p ? b.p : "", b.len, out, &e);
    if (rc == QR_EINVAL) {
        r->line = line;
        r->col = col;
        rc = fail(r, "bad regex literal: %s", e.msg);
    }
done:
    qr_buf_release(&b);
    return rc;
}

static int read_char(reader *r, qr_val *out)
{
    next(r); /* backslash */
    size_t start = r->i;
    /* one character at least, then a token */
    if (peek(r) == -1)
        return fail(r, "expected a character after '\\'");
    uint32_t cp;
    size_t k = qr_utf8_decode(r->s + r->i, r->n - r->i, &cp);
    for (size_t j = 0; j < k; j++)
        next(r);
    while (!is_delim(peek(r)))
        next(r);
    const char *tok = r->s + start;
    size_t n = r->i - start;
    static const struct {
        const char *name;
        const char *val;
    } named[] = {{"newline", "\n"}, {"space", " "},     {"tab", "\t"},
                 {"return", "\r"},  {"backspace", "\b"}, {"formfeed", "\f"}};
    if (n == k) {
        *out = qr_str_new(r->a, tok, n);
        return check_oom(r);
    }
    for (size_t j = 0; j < sizeof named / sizeof named[0]; j++) {
        if (strlen(named[j].name) == n && memcmp(named[j].name, tok, n) == 0) {
            *out = qr_str_new(r->a, named[j].val, 1);
            return check_oom(r);
        }
    }
    if (tok[0] == 'u' && n == 5) {
        uint32_t v = 0;
        for (int j = 1; j < 5; j++) {
            int h = hexval((unsigned char)tok[j]);
            if (h < 0)
                return fail(r, "bad character literal '\\%.*s'", (int)n, tok);
            v = v * 16 + (uint32_t)h;
        }
        char tmp[4];
        *out = qr_str_new(r->a, tmp, qr_utf8_encode(v, tmp));
        return check_oom(r);
    }
    return fail(r, "unknown character literal '\\%.*s': expected one character or newline, "
                   "space, tab, return, backspace, formfeed, uXXXX",
                (int)(n > 40 ? 40 : n), tok);
}

static int read_number(reader *r, const char *tok, size_t n, qr_val *out)
{
    char buf[128];
    if (n >= sizeof buf)
        return fail(r, "number literal too long");
    memcpy(buf, tok, n);
    buf[n] = 0;
    bool is_float = false;
    for (size_t j = 0; j < n; j++)
        if (buf[j] == '.' || ((buf[j] == 'e' || buf[j] == 'E') && !strstr(buf, "0x") &&
                              !strstr(buf, "0X")))
            is_float = true;
    char *end;
    errno = 0;
    if (!is_float) {
        int base = 10;
        const char *p = buf;
        bool neg = false;
        if (*p == '+' || *p == '-')
            neg = *p++ == '-';
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
            base = 16;
            p += 2;
        }
        if (!*p)
            return fail(r, "bad number literal '%s'", buf);
        unsigned long long u = strtoull(p, &end, base);
        if (*end == 'N' && end[1] == 0)
            end++;
        if (*end || errno == ERANGE || (*p == '-'))
            return fail(r, errno == ERANGE ? "integer literal '%s' is out of the 64-bit range"
                                           : "bad number literal '%s'",
                        buf);
        if (neg ? u > (unsigned long long)INT64_MAX + 1 : u > (unsigned long long)INT64_MAX)
            return fail(r, "integer literal '%s' is out of the 64-bit range", buf);
        *out = qr_int(neg ? (int64_t)(0 - u) : (int64_t)u);
        return QR_OK;
    }
    double d = strtod(buf, &end);
    if (*end == 'M' && end[1] == 0)
        end++;
    if (*end)
        return fail(r, "bad number literal '%s'", buf);
    *out = qr_double(d);
    return QR_OK;
}

static int read_token(reader *r, qr_val *out)
{
    uint32_t line = r->line, col = r->col;
    size_t start = r->i;
    while (!is_delim(peek(r)))
        next(r);
    const char *tok = r->s + start;
    size_t n = r->i - start;
    for (size_t j = 0; j < n; j++) {
        unsigned char c = (unsigned char)tok[j];
        if (c < 0x20 || c == 0x7f) {
            r->line = line;
            r->col = col;
            return fail(r, "control character 0x%02x in a name or number", c);
        }
    }
    if (n == 0) {
        r->line = line;
        r->col = col;
        {
            char cb[8];
            return fail(r, "unexpected character '%s'", qr_char_shown(peek(r), cb));
        }
    }
    if ((tok[0] >= '0' && tok[0] <= '9') ||
        ((tok[0] == '-' || tok[0] == '+') && n > 1 && tok[1] >= '0' && tok[1] <= '9'))
    {
        uint32_t end_line = r->line, end_col = r->col;
        r->line = line;
        r->col = col;
        int rc = read_number(r, tok, n, out);
        if (rc == QR_OK) {
            r->line = end_line;
            r->col = end_col;
        }
        return rc;
    }
    if (tok[0] == ':') {
        if (n == 1 || tok[1] == ':')
            return (r->line = line, r->col = col,
                    fail(r, "bad keyword '%.*s': expected a name after ':'", (int)n, tok));
        *out = qr_kw(r->a, tok + 1, n - 1);
        return check_oom(r);
    }
    if (n == 3 && memcmp(tok, "nil", 3) == 0) {
        *out = qr_nil();
        return QR_OK;
    }
    if (n == 4 && memcmp(tok, "true", 4) == 0) {
        *out = qr_bool(true);
        return QR_OK;
    }
    if (n == 5 && memcmp(tok, "false", 5) == 0) {
        *out = qr_bool(false);
        return QR_OK;
    }
    if (r->in_anon && tok[0] == '%') {
        if (n == 1) {
            if (r->anon_max < 1)
                r->anon_max = 1;
            *out = qr_symbol(r->a, "%1", 2);
            return check_oom(r);
        }
        if (n == 2 && tok[1] == '&') {
            r->anon_rest = true;
        } else {
            long k = 0;
            size_t j = 1;
            while (j < n && j < 4 && tok[j] >= '0' && tok[j] <= '9')
                k = k * 10 + (tok[j++] - '0');
            if (j != n || k < 1 || k > 20)
                return (r->line = line, r->col = col,
                        fail(r, "bad argument '%.*s' in #(): expected %%, %%1..%%20 or %%&",
                             (int)n, tok));
            if (k > r->anon_max)
                r->anon_max = (int)k;
        }
    }
    *out = qr_symbol(r->a, tok, n);
    return check_oom(r);
}

static int wrap(reader *r, const char *head, uint32_t line, uint32_t col, qr_val *out)
{
    qr_val x;
    int rc = read_form(r, &x);
    if (rc)
        return rc;
    qr_val items[2] = {qr_symbol(r->a, head, strlen(head)), x};
    *out = qr_vec_from(r->a, QR_T_LIST, items, 2);
    if ((rc = check_oom(r)))
        return rc;
    ((qr_coll *)out->c)->line = line;
    ((qr_coll *)out->c)->col = col;
    return QR_OK;
}

static int read_anon_fn(reader *r, uint32_t line, uint32_t col, qr_val *out)
{
    if (r->in_anon)
        return fail(r, "nested #() forms are not allowed: use (fn [...] ...) for the inner one");
    r->in_anon = true;
    r->anon_max = 0;
    r->anon_rest = false;
    next(r); /* '(' */
    qr_val body;
    int rc = read_seq(r, ')', QR_T_LIST, line, col, &body);
    r->in_anon = false;
    if (rc)
        return rc;
    qr_vecb params;
    qr_vecb_init(&params, r->a, 0);
    for (int k = 1; k <= r->anon_max; k++) {
        char name[8];
        int len = snprintf(name, sizeof name, "%%%d", k);
        qr_vecb_push(&params, qr_symbol(r->a, name, (size_t)len));
    }
    if (r->anon_rest) {
        qr_vecb_push(&params, qr_symbol(r->a, "&", 1));
        qr_vecb_push(&params, qr_symbol(r->a, "%&", 2));
    }
    qr_val items[3] = {qr_symbol(r->a, "fn", 2), qr_vecb_finish(&params, QR_T_VEC), body};
    *out = qr_vec_from(r->a, QR_T_LIST, items, 3);
    if ((rc = check_oom(r)))
        return rc;
    ((qr_coll *)out->c)->line = line;
    ((qr_coll *)out->c)->col = col;
    return QR_OK;
}

static int read_dispatch(reader *r, uint32_t line, uint32_t col, qr_val *out)
{
    next(r); /* '#' */
    int c = peek(r);
    if (c == '{') {
        next(r);
        return read_seq(r, '}', QR_T_SET, line, col, out);
    }
    if (c == '_') {
        next(r);
        qr_val ignored;
        int rc = read_form(r, &ignored);
        if (rc)
            return rc;
        skip_ws(r);
        if (peek(r) == -1 || peek(r) == ')' || peek(r) == ']' || peek(r) == '}')
            return 1; /* nothing follows the discarded form */
        return read_form(r, out);
    }
    if (c == '#') {
        next(r);
        size_t start = r->i;
        while (!is_delim(peek(r)))
            next(r);
        size_t n = r->i - start;
        const char *t = r->s + start;
        if (n == 3 && memcmp(t, "Inf", 3) == 0)
            *out = qr_double(INFINITY);
        else if (n == 4 && memcmp(t, "-Inf", 4) == 0)
            *out = qr_double(-INFINITY);
        else if (n == 3 && memcmp(t, "NaN", 3) == 0)
            *out = qr_double(NAN);
        else
            return fail(r, "unknown symbolic value '##%.*s': expected ##Inf, ##-Inf or ##NaN",
                        (int)n, t);
        return QR_OK;
    }
    if (r->flags & QR_READ_LISP) {
        if (c == '(')
            return read_anon_fn(r, line, col, out);
        if (c == '"')
            return read_regex(r, out);
        if (c == '\'') {
            next(r);
            return wrap(r, "var", line, col, out);
        }
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        /* a tagged literal such as #inst "..." or #uuid "...": keep the value */
        while (!is_delim(peek(r)))
            next(r);
        return read_form(r, out);
    }
    char cb[8];
    return fail(r, "unsupported dispatch '#%s'", c < 0 ? " " : qr_char_shown(c, cb));
}

/* Returns QR_OK with *out set, 1 when only a discarded form was found, or an error. Every
 * recursive path of the reader (brackets, and the prefix forms ' #' #_ and tagged literals,
 * which nest without brackets) passes through read_form, so its depth count is the one
 * bound on the reader's stack. */
static int read_form_at(reader *r, qr_val *out);
static int read_form(reader *r, qr_val *out)
{
    if (r->depth >= QR_MAX_DEPTH)
        return fail(r, "forms nested deeper than %d levels", QR_MAX_DEPTH);
    r->depth++;
    int rc = read_form_at(r, out);
    r->depth--;
    return rc;
}

static int read_form_at(reader *r, qr_val *out)
{
    skip_ws(r);
    uint32_t line = r->line, col = r->col;
    int c = peek(r);
    switch (c) {
    case -1: return fail(r, "unexpected end of input: expected a form");
    case '(': next(r); return read_seq(r, ')', QR_T_LIST, line, col, out);
    case '[': next(r); return read_seq(r, ']', QR_T_VEC, line, col, out);
    case '{': next(r); return read_seq(r, '}', QR_T_MAP, line, col, out);
    case ')':
    case ']':
    case '}': return fail(r, "unexpected '%c': no form is open", c);
    case '"': return read_string(r, out);
    case '\\': return read_char(r, out);
    case '#': {
        int rc = read_dispatch(r, line, col, out);
        if (rc == 1)
            return fail(r, "expected a form after #_ discard");
        return rc;
    }
    case '\'':
        if (r->flags & QR_READ_LISP) {
            next(r);
            return wrap(r, "quote", line, col, out);
        }
        break;
    case '`':
    case '~':
    case '@':
        if (r->flags & QR_READ_LISP)
            return fail(r, "'%c' is not supported: there are no macros or references", c);
        break;
    default: break;
    }
    return read_token(r, out);
}

int qr_read_all(qr_arena *a, const char *src, size_t n, int flags, qr_val *out,
                qr_read_error *err)
{
    reader r = {.a = a, .s = src, .n = n, .line = 1, .col = 1, .flags = flags, .err = err};
    if (err) {
        err->msg[0] = 0;
        err->line = err->col = 0;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, a, 0);
    for (;;) {
        skip_ws(&r);
        if (peek(&r) == -1)
            break;
        qr_val x;
        int rc;
        if (peek(&r) == '#' && r.i + 1 < n && src[r.i + 1] == '_') {
            next(&r);
            next(&r);
            qr_val ignored;
            if ((rc = read_form(&r, &ignored)))
                return rc;
            continue;
        }
        if ((rc = read_form(&r, &x)))
            return rc;
        qr_vecb_push(&vb, x);
        if ((rc = check_oom(&r)))
            return rc;
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return check_oom(&r);
}
