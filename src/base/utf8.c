/*
 * utf8.c: decoding, encoding, validating and counting UTF-8.
 *
 * Strings in quarry are UTF-8 and indexed by code point (Clojure counts UTF-16 units;
 * code points are what a user means by a character, and a surrogate pair cannot be
 * split here). Invalid bytes decode as U+FFFD and count as one character each.
 */
#include "quarry/base.h"

#include <stdio.h>
#include <string.h>

size_t qr_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (n < len) {
        *cp = 0xfffd;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        v = (v << 6) | (u[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
        *cp = 0xfffd;
        return 1;
    }
    *cp = v;
    return len;
}

size_t qr_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        cp = 0xfffd;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

bool qr_utf8_valid(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xfffd && k == 1)
            return false;
        i += k;
    }
    return true;
}

size_t qr_utf8_count(const char *s, size_t n)
{
    size_t count = 0, i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
        } else {
            uint32_t cp;
            i += qr_utf8_decode(s + i, n - i, &cp);
        }
        count++;
    }
    return count;
}

size_t qr_utf8_offset(const char *s, size_t n, size_t idx)
{
    size_t i = 0;
    while (idx > 0 && i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
        } else {
            uint32_t cp;
            i += qr_utf8_decode(s + i, n - i, &cp);
        }
        idx--;
    }
    return i;
}

const char *qr_char_shown(int c, char buf[8])
{
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f) {
        buf[0] = (char)u;
        buf[1] = 0;
    } else {
        snprintf(buf, 8, "\\x%02x", u);
    }
    return buf;
}

void qr_utf8_clean(char *s, size_t cap)
{
    if (!s || !cap)
        return;
    size_t n = strnlen(s, cap - 1);
    char out[1024];
    size_t lim = cap < sizeof out ? cap : sizeof out, o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        bool bad = (k == 1 && (unsigned char)s[i] >= 0x80) || cp < 0x20 || cp == 0x7f;
        if (bad) {
            if (o + 4 >= lim)
                break;
            snprintf(out + o, 5, "\\x%02x", (unsigned char)s[i]);
            o += 4;
            i += 1;
        } else {
            if (o + k >= lim)
                break;
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = 0;
    memcpy(s, out, o + 1);
}
