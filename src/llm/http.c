/*
 * http.c: a plain HTTP POST on the libcurl the model client loads (curl_dl.c), for the
 * JSON-over-HTTP protocols other than model APIs that quarry speaks as a client: MCP's
 * Streamable HTTP transport (src/flow/mcp_client.c). One transfer per call, bounded in
 * size (LLM_MAX_BODY) and time, no redirects, no retries (the caller's protocol decides),
 * SIGPIPE kept away as in the client.
 */
#include "llm_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void qr_http_reply_init(qr_http_reply *r)
{
    memset(r, 0, sizeof *r);
    qr_buf_init(&r->body);
    qr_buf_init(&r->headers);
}

void qr_http_reply_clear(qr_http_reply *r)
{
    qr_buf_release(&r->body);
    qr_buf_release(&r->headers);
    memset(r, 0, sizeof *r);
}

bool qr_http_header(const qr_http_reply *r, const char *name, char *out, size_t cap)
{
    size_t k = strlen(name);
    const char *p = r->headers.p, *end = p ? p + r->headers.len : NULL;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n > k && p[k] == ':' && !strncasecmp(p, name, k)) {
            const char *v = p + k + 1, *ve = p + n;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
                ve--;
            size_t vn = (size_t)(ve - v) < cap - 1 ? (size_t)(ve - v) : cap - 1;
            memcpy(out, v, vn);
            out[vn] = 0;
            return true;
        }
        p += n + 1;
    }
    return false;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    qr_http_reply *r = ud;
    size_t n = size * nmemb;
    if (r->body.len + n > LLM_MAX_BODY)
        return 0;
    qr_buf_append(&r->body, p, n);
    return r->body.failed ? 0 : n;
}

static size_t on_head(char *p, size_t size, size_t nmemb, void *ud)
{
    qr_http_reply *r = ud;
    size_t n = size * nmemb;
    if (n >= 5 && !memcmp(p, "HTTP/", 5))
        qr_buf_reset(&r->headers); /* a new response (after 100 Continue) */
    if (r->headers.len + n > (64u << 10))
        return 0;
    qr_buf_append(&r->headers, p, n);
    return n;
}

int qr_http_post(const char *url, const char *const *headers, const char *body, size_t n,
                 uint32_t timeout_ms, qr_http_reply *out)
{
    const char *why;
    if (llm_curl_load(&why) != QR_OK) {
        snprintf(out->error, sizeof out->error, "%s", why);
        return QR_EIO;
    }
    CURL *c = llm_cu.easy_init();
    if (!c) {
        snprintf(out->error, sizeof out->error, "cannot start an HTTP transfer");
        return QR_ENOMEM;
    }
    struct curl_slist *h = NULL;
    bool failed = false;
    for (size_t i = 0; headers && headers[i]; i++) {
        struct curl_slist *nh = llm_cu.slist_append(h, headers[i]);
        if (!nh)
            failed = true;
        else
            h = nh;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    llm_cu.easy_setopt(c, CURLOPT_URL, url);
    llm_cu.easy_setopt(c, CURLOPT_POST, 1L);
    llm_cu.easy_setopt(c, CURLOPT_POSTFIELDS, body);
    llm_cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
    llm_cu.easy_setopt(c, CURLOPT_HTTPHEADER, h);
    llm_cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    llm_cu.easy_setopt(c, CURLOPT_WRITEDATA, out);
    llm_cu.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_head);
    llm_cu.easy_setopt(c, CURLOPT_HEADERDATA, out);
    llm_cu.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    llm_cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    llm_cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    llm_cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    llm_cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    llm_cu.easy_setopt(c, CURLOPT_USERAGENT, "quarry/" QR_VERSION);
    int rc = QR_OK;
    if (failed) {
        rc = QR_ENOMEM;
        snprintf(out->error, sizeof out->error, "out of memory building the request headers");
    } else {
        CURLcode cc = llm_perform_quietly(c, NULL);
        long status = 0;
        llm_cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        out->status = (int)status;
        if (cc != CURLE_OK) {
            rc = QR_EIO;
            snprintf(out->error, sizeof out->error, "POST %s failed: %s", url,
                     errbuf[0] ? errbuf : llm_cu.easy_strerror(cc));
        }
    }
    llm_cu.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    llm_cu.slist_free_all(h);
    llm_cu.easy_cleanup(c);
    return rc;
}
