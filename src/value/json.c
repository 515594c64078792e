/*
 * json.c: a JSON reader (RFC 8259) that builds values directly, with no intermediate
 * tree. Object keys become keywords when they can be written as keywords, else strings,
 * so `(:name commit)` works on tool results. Numbers without fraction or exponent that
 * fit in 64 bits are integers, others doubles. Duplicate keys: the last one wins.
 * String values may go to an arena of their own (qr_json_read_split): records then sit
 * next to each other in memory and a scan over one field of 100,000 of them streams
 * through caches instead of skipping over every record's text.
 */
#include "quarry/value.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jr {
    qr_arena *a;
    qr_arena *sa; /* where string values go (a, or a separate arena) */
    const char *s;
    size_t n, i;
    int depth;
    qr_read_error *err;
    qr_buf tmp;
    qr_mapb *scratch; /* one map builder per nesting level, reused */
    int nscratch;
    const qr_str **dedup; /* short strings seen so far (open addressing), or NULL */
} jr;

/* Short string values repeat in records (authors, emails, states): one shared string per
 * distinct text makes equal keys identical pointers (no byte compare when grouping) and
 * keeps hot text in few cache lines. */
#define DEDUP_SLOTS 8192
#define DEDUP_MAX_LEN 48

static qr_val jstr_value(jr *r, const char *p, size_t n)
{
    if (n > DEDUP_MAX_LEN || r->n < 65536) /* small documents: not worth the table */
        return qr_str_new(r->sa, p, n);
    if (!r->dedup) {
        r->dedup = qr_arena_zalloc(r->a, DEDUP_SLOTS * sizeof *r->dedup);
        if (!r->dedup)
            return qr_nil();
    }
    uint64_t h = qr_hash_text(p, n) | 1;
    size_t j = h & (DEDUP_SLOTS - 1);
    for (int probe = 0; probe < 8; probe++, j = (j + 1) & (DEDUP_SLOTS - 1)) {
        const qr_str *e = r->dedup[j];
        if (!e) {
            qr_val v = qr_str_new(r->sa, p, n);
            if (v.t == QR_T_STR) {
                ((qr_str *)v.s)->hash = h; /* the same hash qr_str_hash computes */
                r->dedup[j] = v.s;
            }
            return v;
        }
        if (e->hash == h && e->len == n && memcmp(e->data, p, n) == 0) {
            qr_val v = {.t = QR_T_STR};
            v.s = e;
            return v;
        }
    }
    return qr_str_new(r->sa, p, n);
}

static int jfail(jr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int jfail(jr *r, const char *fmt, ...)
{
    if (r->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
        va_end(ap);
        qr_utf8_clean(r->err->msg, sizeof r->err->msg); /* it may quote the input */
        /* compute line and column of r->i */
        uint32_t line = 1, col = 1;
        for (size_t k = 0; k < r->i && k < r->n; k++) {
            if (r->s[k] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)r->s[k] & 0xc0) != 0x80) {
                col++;
            }
        }
        r->err->line = line;
        r->err->col = col;
    }
    return QR_EINVAL;
}

static void ws(jr *r)
{
    while (r->i < r->n) {
        char c = r->s[r->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        r->i++;
    }
}

static int jcheck(jr *r)
{
    if (r->a->too_deep)
        return jfail(r, "value nested deeper than %d levels", QR_MAX_DEPTH);
    if (r->a->exhausted)
        return QR_ENOMEM;
    return QR_OK;
}

static int hex4(jr *r, uint32_t *out)
{
    if (r->n - r->i < 4)
        return jfail(r, "bad \\u escape: expected 4 hex digits");
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = r->s[r->i++];
        int h = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (h < 0)
            return jfail(r, "bad \\u escape: expected 4 hex digits");
        v = v * 16 + (uint32_t)h;
    }
    *out = v;
    return QR_OK;
}

/* Reads a string body after the opening quote into r->tmp. */
static int jstring(jr *r)
{
    qr_buf_reset(&r->tmp);
    size_t start = r->i;
    for (;;) {
        if (r->i >= r->n)
            return jfail(r, "unterminated string");
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '"') {
            qr_buf_append(&r->tmp, r->s + start, r->i - start);
            r->i++;
            break;
        }
        if (c < 0x20)
            return jfail(r, "control character in string: escape it");
        if (c != '\\') {
            r->i++;
            continue;
        }
        qr_buf_append(&r->tmp, r->s + start, r->i - start);
        r->i++;
        if (r->i >= r->n)
            return jfail(r, "unterminated string");
        char e = r->s[r->i++], ch;
        switch (e) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            uint32_t cp;
            int rc = hex4(r, &cp);
            if (rc)
                return rc;
            if (cp >= 0xd800 && cp <= 0xdbff && r->n - r->i >= 6 && r->s[r->i] == '\\' &&
                r->s[r->i + 1] == 'u') {
                r->i += 2;
                uint32_t lo;
                if ((rc = hex4(r, &lo)))
                    return rc;
                cp = (lo >= 0xdc00 && lo <= 0xdfff)
                         ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                         : 0xfffd;
            }
            char u[4];
            qr_buf_append(&r->tmp, u, qr_utf8_encode(cp, u));
            start = r->i;
            continue;
        }
        default: {
            char cb[8];
            return jfail(r, "bad escape '\\%s' in string", qr_char_shown(e, cb));
        }
        }
        qr_buf_append(&r->tmp, &ch, 1);
        start = r->i;
    }
    return r->tmp.failed ? QR_ENOMEM : QR_OK;
}

static int jnumber(jr *r, qr_val *out)
{
    size_t start = r->i;
    bool is_float = false;
    if (r->i < r->n && r->s[r->i] == '-')
        r->i++;
    if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9'))
        return jfail(r, "bad number: expected a digit");
    if (r->s[r->i] == '0' && r->i + 1 < r->n && r->s[r->i + 1] >= '0' && r->s[r->i + 1] <= '9')
        return jfail(r, "bad number: leading zero");
    while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
        r->i++;
    if (r->i < r->n && r->s[r->i] == '.') {
        is_float = true;
        r->i++;
        if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9'))
            return jfail(r, "bad number: expected a digit after '.'");
        while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
            r->i++;
    }
    if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        is_float = true;
        r->i++;
        if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
            r->i++;
        if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9'))
            return jfail(r, "bad number: expected a digit in the exponent");
        while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
            r->i++;
    }
    char buf[64];
    size_t len = r->i - start;
    if (!is_float && len < 19) {
        int64_t v = 0;
        size_t k = start;
        bool neg = r->s[k] == '-';
        if (neg)
            k++;
        for (; k < r->i; k++)
            v = v * 10 + (r->s[k] - '0');
        *out = qr_int(neg ? -v : v);
        return QR_OK;
    }
    char *heap = NULL, *p = buf;
    if (len >= sizeof buf) {
        heap = malloc(len + 1);
        if (!heap)
            return QR_ENOMEM;
        p = heap;
    }
    memcpy(p, r->s + start, len);
    p[len] = 0;
    if (!is_float) {
        errno = 0;
        long long v = strtoll(p, NULL, 10);
        if (errno != ERANGE) {
            free(heap);
            *out = qr_int(v);
            return QR_OK;
        }
    }
    *out = qr_double(strtod(p, NULL));
    free(heap);
    return QR_OK;
}

static int jvalue(jr *r, qr_val *out)
{
    ws(r);
    if (r->i >= r->n)
        return jfail(r, "unexpected end of input: expected a value");
    char c = r->s[r->i];
    int rc;
    switch (c) {
    case '{': {
        if (++r->depth > QR_MAX_DEPTH)
            return jfail(r, "nested deeper than %d levels", QR_MAX_DEPTH);
        r->i++;
        if (r->depth > r->nscratch) {
            int ncap = r->nscratch ? r->nscratch * 2 : 16;
            while (ncap < r->depth) /* arrays count towards depth too */
                ncap *= 2;
            qr_mapb *ns = qr_arena_alloc(r->a, sizeof(qr_mapb) * (size_t)ncap);
            if (!ns)
                return QR_ENOMEM;
            if (r->nscratch)
                memcpy(ns, r->scratch, sizeof(qr_mapb) * (size_t)r->nscratch);
            for (int k = r->nscratch; k < ncap; k++)
                ns[k].buf = NULL;
            r->scratch = ns;
            r->nscratch = ncap;
        }
        qr_mapb *mbp = &r->scratch[r->depth - 1];
        if (!mbp->buf)
            qr_mapb_init(mbp, r->a, 16);
        else
            qr_mapb_reuse(mbp);
        ws(r);
        if (r->i < r->n && r->s[r->i] == '}') {
            r->i++;
        } else {
            for (;;) {
                ws(r);
                if (r->i >= r->n || r->s[r->i] != '"')
                    return jfail(r, "expected a string key in object");
                r->i++;
                if ((rc = jstring(r)))
                    return rc;
                const char *k = r->tmp.p ? r->tmp.p : "";
                qr_val key = qr_kw_valid(k, r->tmp.len) ? qr_kw(r->a, k, r->tmp.len)
                                                        : qr_str_new(r->a, k, r->tmp.len);
                ws(r);
                if (r->i >= r->n || r->s[r->i] != ':')
                    return jfail(r, "expected ':' after object key");
                r->i++;
                qr_val v;
                if ((rc = jvalue(r, &v)))
                    return rc;
                qr_mapb_put(mbp, key, v);
                if ((rc = jcheck(r)))
                    return rc;
                ws(r);
                if (r->i < r->n && r->s[r->i] == ',') {
                    r->i++;
                    continue;
                }
                if (r->i < r->n && r->s[r->i] == '}') {
                    r->i++;
                    break;
                }
                return jfail(r, "expected ',' or '}' in object");
            }
        }
        r->depth--;
        *out = qr_mapb_finish(mbp, QR_T_MAP);
        return jcheck(r);
    }
    case '[': {
        if (++r->depth > QR_MAX_DEPTH)
            return jfail(r, "nested deeper than %d levels", QR_MAX_DEPTH);
        r->i++;
        qr_vecb vb;
        qr_vecb_init(&vb, r->a, 0);
        ws(r);
        if (r->i < r->n && r->s[r->i] == ']') {
            r->i++;
        } else {
            for (;;) {
                qr_val v;
                if ((rc = jvalue(r, &v)))
                    return rc;
                qr_vecb_push(&vb, v);
                if ((rc = jcheck(r)))
                    return rc;
                ws(r);
                if (r->i < r->n && r->s[r->i] == ',') {
                    r->i++;
                    continue;
                }
                if (r->i < r->n && r->s[r->i] == ']') {
                    r->i++;
                    break;
                }
                return jfail(r, "expected ',' or ']' in array");
            }
        }
        r->depth--;
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return jcheck(r);
    }
    case '"':
        r->i++;
        if ((rc = jstring(r)))
            return rc;
        *out = jstr_value(r, r->tmp.p ? r->tmp.p : "", r->tmp.len);
        if (r->sa->exhausted)
            return QR_ENOMEM;
        return jcheck(r);
    case 't':
        if (r->n - r->i >= 4 && memcmp(r->s + r->i, "true", 4) == 0) {
            r->i += 4;
            *out = qr_bool(true);
            return QR_OK;
        }
        break;
    case 'f':
        if (r->n - r->i >= 5 && memcmp(r->s + r->i, "false", 5) == 0) {
            r->i += 5;
            *out = qr_bool(false);
            return QR_OK;
        }
        break;
    case 'n':
        if (r->n - r->i >= 4 && memcmp(r->s + r->i, "null", 4) == 0) {
            r->i += 4;
            *out = qr_nil();
            return QR_OK;
        }
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return jnumber(r, out);
    }
    char cb[8];
    return jfail(r, "unexpected character '%s': expected a JSON value", qr_char_shown(c, cb));
}

int qr_json_read(qr_arena *a, const char *src, size_t n, qr_val *out, qr_read_error *err)
{
    return qr_json_read_split(a, a, src, n, out, err);
}

int qr_json_read_split(qr_arena *a, qr_arena *strings, const char *src, size_t n, qr_val *out,
                       qr_read_error *err)
{
    jr r = {.a = a, .sa = strings, .s = src, .n = n, .err = err};
    qr_buf_init(&r.tmp);
    if (err) {
        err->msg[0] = 0;
        err->line = err->col = 0;
    }
    if (n >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0)
        r.i = 3;
    int rc = jvalue(&r, out);
    if (rc == QR_OK) {
        ws(&r);
        if (r.i < r.n)
            rc = jfail(&r, "unexpected text after the JSON value");
    }
    if (rc == QR_ENOMEM && err)
        snprintf(err->msg, sizeof err->msg, "out of memory while reading JSON");
    qr_buf_release(&r.tmp);
    return rc;
}
