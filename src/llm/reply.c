/*
 * reply.c: the pieces both wire formats and the client share: the reply accumulator, JSON
 * field helpers over quarry's own value model, the message of an HTTP error body, the
 * classification of HTTP statuses with their one-line explanations, endpoint URLs and the
 * provider guess, and scrubbing the API key out of any text that leaves the client.
 *
 * Design: a response body is read whole with qr_json_read into a scratch arena and the
 * few fields needed are looked up by keyword; no schema binding. Rejected: a streaming
 * JSON tokenizer for bodies (replies are small; the value reader is already fuzzed).
 */
#include "llm_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void llm_reply_init(llm_reply *r)
{
    memset(r, 0, sizeof *r);
    qr_buf_init(&r->text);
}

void llm_reply_release(llm_reply *r)
{
    qr_buf_release(&r->text);
}

void llm_reply_fail(llm_reply *r, bool malformed, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    r->malformed = malformed;
    char tmp[sizeof r->error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    llm_one_line(r->error, sizeof r->error, tmp, strlen(tmp));
}

bool llm_field(qr_arena *a, qr_val m, const char *key, qr_val *out)
{
    if (m.t != QR_T_MAP)
        return false;
    qr_val k = qr_kw_cstr(a, key);
    if (k.t != QR_T_KW)
        return false;
    return qr_map_lookup(m, k, out);
}

const char *llm_field_str(qr_arena *a, qr_val m, const char *key, size_t *n)
{
    qr_val v;
    if (!llm_field(a, m, key, &v) || v.t != QR_T_STR) {
        *n = 0;
        return NULL;
    }
    *n = v.s->len;
    return v.s->data;
}

bool llm_field_u64(qr_arena *a, qr_val m, const char *key, uint64_t *out)
{
    qr_val v;
    if (!llm_field(a, m, key, &v) || v.t != QR_T_INT || v.i < 0)
        return false;
    *out = (uint64_t)v.i;
    return true;
}

void llm_one_line(char *out, size_t outlen, const char *s, size_t n)
{
    if (!outlen)
        return;
    size_t j = 0;
    size_t i = 0;
    while (i < n && j + 1 < outlen) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            out[j++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xfffd && k == 1) { /* not UTF-8: keep the line valid */
            if (j + 3 >= outlen)
                break;
            memcpy(out + j, "\xef\xbf\xbd", 3);
            j += 3;
        } else {
            if (j + k >= outlen)
                break;
            memcpy(out + j, s + i, k);
            j += k;
        }
        i += k;
    }
    /* trim trailing spaces left by a final newline */
    while (j > 0 && out[j - 1] == ' ')
        j--;
    out[j] = 0;
}

void llm_error_message(const char *body, size_t n, char *out, size_t outlen)
{
    qr_arena a;
    qr_arena_init(&a, LLM_MAX_BODY * 4);
    qr_val v, e;
    qr_read_error err;
    const char *msg = NULL;
    size_t mlen = 0;
    if (n && qr_json_read(&a, body, n, &v, &err) == QR_OK) {
        if (llm_field(&a, v, "error", &e)) {
            if (e.t == QR_T_STR) {
                msg = e.s->data;
                mlen = e.s->len;
            } else {
                msg = llm_field_str(&a, e, "message", &mlen);
            }
        }
        if (!msg)
            msg = llm_field_str(&a, v, "message", &mlen);
        if (!msg)
            msg = llm_field_str(&a, v, "detail", &mlen);
    }
    if (!msg) { /* not JSON (a proxy's HTML page, say): its first line */
        msg = body;
        mlen = 0;
        while (mlen < n && body[mlen] != '\n' && body[mlen] != '\r')
            mlen++;
    }
    llm_one_line(out, outlen, msg, mlen);
    qr_arena_release(&a);
}

int llm_status_class(int status)
{
    if (status >= 200 && status < 300)
        return LLM_STATUS_OK;
    if (status == 408 || status == 429 || (status >= 500 && status < 600))
        return LLM_STATUS_RETRY;
    return LLM_STATUS_FAIL;
}

void llm_status_message(const qr_llm_config *c, const char *endpoint, int status,
                        const char *body, size_t n, char *out, size_t outlen)
{
    char said[200];
    llm_error_message(body, n, said, sizeof said);
    char tmp[600];
    if (status == 401 || status == 403) {
        if (c->api_key && *c->api_key)
            snprintf(tmp, sizeof tmp,
                     "HTTP %d from %s: the API key was rejected; check QUARRY_LLM_API_KEY",
                     status, endpoint);
        else
            snprintf(tmp, sizeof tmp,
                     "HTTP %d from %s: the server wants an API key; set QUARRY_LLM_API_KEY",
                     status, endpoint);
    } else if (status == 404) {
        snprintf(tmp, sizeof tmp,
                 "HTTP 404 from %s: no model '%s' at URL '%s'%s%s; check QUARRY_LLM_MODEL and "
                 "QUARRY_LLM_URL",
                 endpoint, c->model ? c->model : "", c->url ? c->url : "",
                 *said ? ", server said: " : "", said);
    } else if (*said) {
        snprintf(tmp, sizeof tmp, "HTTP %d from %s: %s", status, endpoint, said);
    } else {
        snprintf(tmp, sizeof tmp, "HTTP %d from %s", status, endpoint);
    }
    llm_one_line(out, outlen, tmp, strlen(tmp));
    llm_scrub(out, outlen, c->api_key);
}

void llm_scrub(char *s, size_t cap, const char *key)
{
    if (!key || !s || !cap)
        return;
    size_t klen = strlen(key);
    if (klen < 4)
        return;
    /* Masked: any run of LLM_SCRUB_RUN characters taken from anywhere in the key (a server
     * may echo a part of it, or a message cut at a byte limit may hold a piece), the whole
     * of a shorter key, and a piece of the key's start of at least 6 characters (a message
     * cut just after the key began). */
    size_t run = klen < LLM_SCRUB_RUN ? klen : LLM_SCRUB_RUN;
    size_t least = klen < 6 ? klen : 6;
    static const char mask[] = "[redacted]";
    const size_t mlen = sizeof mask - 1;
    size_t n = strlen(s), o = 0;
    char *out = malloc(cap);
    if (!out) { /* cannot rewrite: drop the text rather than risk the key */
        s[0] = 0;
        return;
    }
    for (size_t i = 0; i < n && o + 1 < cap;) {
        /* the longest piece of the key, from any position j in it, that starts at s[i] */
        size_t best = 0;
        for (size_t j = 0; j < klen && best < klen - j; j++) {
            if (key[j] != s[i])
                continue;
            size_t m = 0;
            while (j + m < klen && i + m < n && s[i + m] == key[j + m])
                m++;
            if (m >= run || (j == 0 && m >= least))
                if (m > best)
                    best = m;
        }
        if (best) {
            size_t k = mlen < cap - 1 - o ? mlen : cap - 1 - o;
            memcpy(out + o, mask, k);
            o += k;
            i += best;
        } else {
            out[o++] = s[i++];
        }
    }
    out[o] = 0;
    memcpy(s, out, o + 1);
    free(out);
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* True when url is "scheme://host[:port]" with no path. */
static bool no_path(const char *url, size_t n)
{
    const char *p = strstr(url, "://");
    if (!p)
        return false;
    p += 3;
    return memchr(p, '/', n - (size_t)(p - url)) == NULL;
}

char *llm_endpoint_for(qr_llm_provider p, const char *url)
{
    if (!url)
        return NULL;
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    const char *suffix = "";
    if (p == QR_LLM_ANTHROPIC) {
        if (ends_with(url, n, "/messages"))
            suffix = "";
        else if (ends_with(url, n, "/v1"))
            suffix = "/messages";
        else
            suffix = "/v1/messages";
    } else {
        if (ends_with(url, n, "/chat/completions"))
            suffix = "";
        else if (no_path(url, n))
            suffix = "/v1/chat/completions";
        else
            suffix = "/chat/completions";
    }
    size_t sl = strlen(suffix);
    char *e = malloc(n + sl + 1);
    if (!e)
        return NULL;
    memcpy(e, url, n);
    memcpy(e + n, suffix, sl + 1);
    return e;
}

qr_llm_provider llm_guess_provider(const char *url)
{
    if (!url)
        return QR_LLM_NONE;
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    size_t hl = strcspn(h, "/:?#");
    for (size_t i = 0; i + 9 <= hl; i++) {
        static const char word[] = "anthropic";
        size_t k = 0;
        while (k < 9 && (h[i + k] | 0x20) == word[k])
            k++;
        if (k == 9)
            return QR_LLM_ANTHROPIC;
    }
    return QR_LLM_OPENAI;
}
