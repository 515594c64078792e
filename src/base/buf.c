/*
 * buf.c: a growable, malloc-owned byte buffer for text that outlives an evaluation
 * (printed results, error messages, captured output).
 *
 * Appends never fail loudly: a failed allocation sets the sticky `failed` flag and later
 * appends are ignored, so a writer checks once at the end. JSON strings written here are
 * always valid UTF-8 (invalid bytes become U+FFFD).
 *
 * A fixed buffer (qr_buf_init_fixed) writes into memory the caller owns, such as a string
 * allocated in an arena at its final size, so text can be built in place, never copied.
 */
#include "quarry/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qr_buf_init(qr_buf *b)
{
    memset(b, 0, sizeof *b);
}

void qr_buf_init_fixed(qr_buf *b, char *p, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->cap = cap;
    b->fixed = true;
    b->failed = cap == 0;
    if (cap)
        p[0] = 0;
}

static bool grow(qr_buf *b, size_t extra)
{
    size_t need;
    if (b->failed || !qr_size_add(b->len, extra, &need) || !qr_size_add(need, 1, &need)) {
        b->failed = true;
        return false;
    }
    if (need <= b->cap)
        return true;
    if (b->fixed) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (!qr_size_mul(cap, 2, &cap)) {
            b->failed = true;
            return false;
        }
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void qr_buf_append(qr_buf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void qr_buf_puts(qr_buf *b, const char *s)
{
    qr_buf_append(b, s, strlen(s));
}

void qr_buf_putc(qr_buf *b, char c)
{
    qr_buf_append(b, &c, 1);
}

void qr_buf_vprintf(qr_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !grow(b, (size_t)n))
        return;
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void qr_buf_printf(qr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void qr_buf_json_string(qr_buf *b, const char *s, size_t n)
{
    qr_buf_putc(b, '"');
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        if (c >= 0x80) {
            /* JSON text must be UTF-8: a byte that does not start a valid sequence (a
             * non-UTF-8 file name, say) becomes U+FFFD */
            uint32_t cp;
            size_t k = qr_utf8_decode(s + i, n - i, &cp);
            if (cp == 0xfffd && k == 1) {
                qr_buf_append(b, s + start, i - start);
                qr_buf_puts(b, "\\ufffd");
                start = i + 1;
            } else {
                i += k - 1;
            }
            continue;
        }
        char tmp[8];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(tmp, sizeof tmp, "\\u%04x", c);
                esc = tmp;
            }
        }
        if (esc) {
            qr_buf_append(b, s + start, i - start);
            qr_buf_puts(b, esc);
            start = i + 1;
        }
    }
    qr_buf_append(b, s + start, n - start);
    qr_buf_putc(b, '"');
}

void qr_buf_reset(qr_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = 0;
}

char *qr_buf_detach(qr_buf *b, size_t *len)
{
    char *p = b->p;
    if (b->fixed) { /* the caller's memory: the caller gets a copy */
        p = malloc(b->len + 1);
        if (p) {
            memcpy(p, b->p, b->len);
            p[b->len] = 0;
        }
    } else if (!p) {
        p = malloc(1);
        if (p)
            p[0] = 0;
    }
    if (len)
        *len = b->len;
    memset(b, 0, sizeof *b);
    return p;
}

void qr_buf_release(qr_buf *b)
{
    if (!b->fixed)
        free(b->p);
    memset(b, 0, sizeof *b);
}
