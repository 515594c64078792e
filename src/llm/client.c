/*
 * client.c: the language-model client: one libcurl easy handle per client (reused, so the
 * connection stays alive between calls), one POST per attempt, and the retry loop.
 *
 * An attempt ends in one of three ways: a reply (QR_OK), a retryable failure (connection
 * refused or reset, timeout, HTTP 408/429/5xx, an error event in a stream, a stream cut
 * before its end marker) or a final one (other HTTP statuses, a body that is not the wire
 * format). Between attempts the client waits retry_base_ms * 2^k, +-25% jitter, capped by
 * retry_max_ms; a Retry-After header (seconds) replaces the computed wait, within the same
 * cap. Each retry is reported through the log hook in one line. The body of a streamed
 * reply (config.stream) is parsed as it arrives (sse.c); when a server ignores "stream"
 * and answers with plain JSON, that is parsed instead.
 *
 * The API key only ever goes into a request header. Every message that leaves the client
 * (response.error, log lines) is scrubbed of it, in case a server echoes it back.
 *
 * Rejected: the curl multi interface (one request at a time per client is the contract;
 * agents that want parallel calls use a client per thread); following redirects (a POST
 * redirected elsewhere would carry the key to another host).
 */
#include "llm_int.h"

#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct qr_llm {
    qr_llm_config cfg; /* own copies of the strings */
    char *endpoint;
    CURL *curl;
    void (*log)(void *ud, const char *line);
    void *log_ud;
    uint64_t rng;
    const qr_stop *stop; /* the current call's (qr_llm_request.stop) */
};

uint64_t qr_llm_usage_prompt(const qr_llm_usage *u)
{
    return u->input + u->cache_write + u->cache_read;
}

uint64_t qr_llm_usage_tokens(const qr_llm_usage *u)
{
    return qr_llm_usage_prompt(u) + u->output;
}

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

qr_llm *qr_llm_new(const qr_llm_config *c)
{
    qr_llm *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->cfg = *c;
    l->cfg.url = dup_or_null(c->url);
    l->cfg.model = dup_or_null(c->model);
    l->cfg.api_key = dup_or_null(c->api_key);
    if (l->cfg.provider == QR_LLM_NONE && l->cfg.url)
        l->cfg.provider = llm_guess_provider(l->cfg.url);
    if (l->cfg.url)
        l->endpoint = llm_endpoint_for(l->cfg.provider, l->cfg.url);
    /* without libcurl the client still exists; each call then says why it cannot work */
    if (llm_curl_load(NULL) == QR_OK && !(l->curl = llm_cu.easy_init())) {
        qr_llm_free(l);
        return NULL;
    }
    if ((c->url && !l->cfg.url) || (c->model && !l->cfg.model) ||
        (c->api_key && !l->cfg.api_key) || (l->cfg.url && !l->endpoint)) {
        qr_llm_free(l);
        return NULL;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    l->rng = qr_hash_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                         (uint64_t)(uintptr_t)l) |
             1;
    return l;
}

void qr_llm_free(qr_llm *l)
{
    if (!l)
        return;
    if (l->curl)
        llm_cu.easy_cleanup(l->curl);
    free(l->endpoint);
    qr_llm_config_clear(&l->cfg);
    free(l);
}

void qr_llm_set_log(qr_llm *l, void (*fn)(void *ud, const char *line), void *ud)
{
    l->log = fn;
    l->log_ud = ud;
}

const char *qr_llm_endpoint(const qr_llm *l)
{
    return l->endpoint ? l->endpoint : "";
}

const char *qr_llm_api_key(const qr_llm *l)
{
    return l && l->cfg.api_key && l->cfg.api_key[0] ? l->cfg.api_key : NULL;
}

int qr_llm_request_json(const qr_llm *l, const qr_llm_request *r, qr_buf *out)
{
    if (l->cfg.provider == QR_LLM_ANTHROPIC)
        return llm_anthropic_body(&l->cfg, r, out);
    return llm_openai_body(&l->cfg, r, out);
}

void qr_llm_response_clear(qr_llm_response *r)
{
    free(r->text);
    free(r->stop_reason);
    free(r->tool_calls);
    memset(r, 0, sizeof *r);
}

/* ---- one attempt ---- */

typedef struct xfer {
    qr_llm *l;
    qr_buf body; /* a whole body (not streamed, or an error) */
    llm_reply rep;
    llm_stream stream;
    bool decided;   /* whether the body streams was settled on its first bytes */
    bool streaming; /* the body goes through the SSE parser */
    bool too_big;
    size_t received; /* bytes of the response so far, streamed or not */
    long retry_after; /* seconds, -1 when the header was absent */
} xfer;

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (!x->decided) {
        x->decided = true;
        long status = 0;
        char *ctype = NULL;
        llm_cu.easy_getinfo(x->l->curl, CURLINFO_RESPONSE_CODE, &status);
        llm_cu.easy_getinfo(x->l->curl, CURLINFO_CONTENT_TYPE, &ctype);
        x->streaming = x->l->cfg.stream && status >= 200 && status < 300 && ctype &&
                       strncmp(ctype, "text/event-stream", 17) == 0;
    }
    /* a stream is bounded like a body: a server that never stops cannot fill memory */
    x->received += n;
    if (x->received > LLM_MAX_BODY) {
        x->too_big = true;
        return 0;
    }
    if (x->streaming)
        return llm_stream_feed(&x->stream, p, n) == QR_OK ? n : 0;
    if (x->body.len + n > LLM_MAX_BODY) {
        x->too_big = true;
        return 0;
    }
    qr_buf_append(&x->body, p, n);
    return x->body.failed ? 0 : n;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    static const char name[] = "retry-after:";
    const size_t k = sizeof name - 1;
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        x->retry_after = -1; /* a new response (after a 100 Continue, say) */
    } else if (n > k && strncasecmp(p, name, k) == 0) {
        size_t i = k;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        long v = 0;
        size_t digits = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9' && v < 1000000) {
            v = v * 10 + (p[i++] - '0');
            digits++;
        }
        if (digits) /* an HTTP date is ignored: the computed backoff applies */
            x->retry_after = v;
    }
    return n;
}

/* curl_easy_perform with SIGPIPE blocked in this thread, and one raised meanwhile taken
 * back: a server closing the connection under a write must not kill the process, and
 * CURLOPT_NOSIGNAL (needed with threads) leaves that to the caller. A SIGPIPE that was
 * already pending stays pending. */
/* The transfer on the multi interface, checking stop between waits of at most 50 ms. */
static CURLcode perform_stoppable(CURL *c, const qr_stop *stop)
{
    CURLM *m = llm_cu.multi_init();
    if (!m)
        return CURLE_OUT_OF_MEMORY;
    if (llm_cu.multi_add_handle(m, c) != CURLM_OK) {
        llm_cu.multi_cleanup(m);
        return CURLE_FAILED_INIT;
    }
    CURLcode cc = CURLE_OK;
    int running = 1;
    while (running) {
        if (llm_cu.multi_perform(m, &running) != CURLM_OK) {
            cc = CURLE_FAILED_INIT;
            break;
        }
        if (!running)
            break;
        if (qr_stop_check(stop)) {
            cc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (llm_cu.multi_poll(m, NULL, 0, 50, NULL) != CURLM_OK) {
            cc = CURLE_FAILED_INIT;
            break;
        }
    }
    if (!running) {
        int left;
        CURLMsg *msg;
        while ((msg = llm_cu.multi_info_read(m, &left)))
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == c)
                cc = msg->data.result;
    }
    llm_cu.multi_remove_handle(m, c);
    llm_cu.multi_cleanup(m);
    return cc;
}

CURLcode llm_perform_quietly(CURL *c, const qr_stop *stop)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    CURLcode cc = stop ? perform_stoppable(c, stop) : llm_cu.easy_perform(c);
    if (!was_pending) {
        sigemptyset(&pending);
        sigpending(&pending);
        if (sigismember(&pending, SIGPIPE)) {
            struct timespec zero = {0, 0};
            sigtimedwait(&pipe_set, NULL, &zero);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return cc;
}

typedef struct outcome {
    int rc;      /* QR_OK, QR_EIO, QR_EINVAL, QR_ENOMEM */
    bool retry;  /* with rc != QR_OK: worth another attempt */
    int status;  /* HTTP status, 0 when none came */
    long retry_after;
    char msg[400];
} outcome;

static void transport_message(qr_llm *l, CURLcode cc, const char *errbuf, outcome *o)
{
    const char *why = *errbuf ? errbuf : llm_cu.easy_strerror(cc);
    o->rc = QR_EIO;
    switch (cc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        o->retry = true;
        snprintf(o->msg, sizeof o->msg, "cannot reach the model at %s: %s; is the server running?",
                 l->endpoint, why);
        break;
    case CURLE_OPERATION_TIMEDOUT:
        o->retry = true;
        snprintf(o->msg, sizeof o->msg,
                 "no answer from the model at %s within the time limit (%s); raise timeout_ms "
                 "if the model is slow",
                 l->endpoint, why);
        break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        o->retry = true;
        snprintf(o->msg, sizeof o->msg, "the connection to %s failed: %s", l->endpoint, why);
        break;
    default:
        o->retry = false;
        snprintf(o->msg, sizeof o->msg, "the request to %s failed: %s", l->endpoint, why);
        break;
    }
}

static void attempt(qr_llm *l, const qr_buf *req, struct curl_slist *hdrs, outcome *o,
                    llm_reply *keep)
{
    xfer x = {.l = l, .retry_after = -1};
    qr_buf_init(&x.body);
    llm_reply_init(&x.rep);
    llm_stream_init(&x.stream, l->cfg.provider, &x.rep);
    char errbuf[CURL_ERROR_SIZE] = "";

    CURL *c = l->curl;
    llm_cu.easy_setopt(c, CURLOPT_URL, l->endpoint);
    llm_cu.easy_setopt(c, CURLOPT_POST, 1L);
    llm_cu.easy_setopt(c, CURLOPT_POSTFIELDS, req->p);
    llm_cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
    llm_cu.easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    llm_cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    llm_cu.easy_setopt(c, CURLOPT_WRITEDATA, &x);
    llm_cu.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    llm_cu.easy_setopt(c, CURLOPT_HEADERDATA, &x);
    llm_cu.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    llm_cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    /* each attempt waits at most what the request has left before its deadline */
    uint64_t tmo = l->cfg.timeout_ms;
    if (l->stop && l->stop->deadline_ns) {
        uint64_t now = qr_clock_ns();
        uint64_t left = now >= l->stop->deadline_ns ? 1 : (l->stop->deadline_ns - now) / 1000000u + 1;
        if (!tmo || left < tmo)
            tmo = left;
    }
    llm_cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)tmo);
    llm_cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)l->cfg.connect_timeout_ms);
    llm_cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    llm_cu.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    llm_cu.easy_setopt(c, CURLOPT_USERAGENT, "quarry/" QR_VERSION);
    CURLcode cc = llm_perform_quietly(c, l->stop);
    llm_cu.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    long status = 0;
    llm_cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    o->status = (int)status;
    o->retry_after = x.retry_after;
    o->retry = false;
    o->rc = QR_OK;
    o->msg[0] = 0;

    if (x.streaming && cc == CURLE_OK)
        llm_stream_finish(&x.stream);
    if (x.too_big) {
        o->rc = QR_EINVAL;
        snprintf(o->msg, sizeof o->msg, "the response from %s is larger than %u MB", l->endpoint,
                 (unsigned)(LLM_MAX_BODY >> 20));
    } else if (x.body.failed) {
        o->rc = QR_ENOMEM;
        snprintf(o->msg, sizeof o->msg, "out of memory reading the response from %s",
                 l->endpoint);
    } else if (x.streaming && x.rep.failed) {
        o->rc = x.rep.malformed ? QR_EINVAL : QR_EIO;
        o->retry = !x.rep.malformed && x.rep.retryable;
        snprintf(o->msg, sizeof o->msg, "bad stream from %s: %s", l->endpoint, x.rep.error);
    } else if (cc != CURLE_OK && qr_stop_check(l->stop)) {
        /* stopped by the request: not a failure of the model, and never retried */
        qr_buf why;
        qr_buf_init(&why);
        qr_stop_describe(l->stop, &why);
        o->rc = QR_ESTOPPED;
        o->retry = false;
        snprintf(o->msg, sizeof o->msg, "stopped: %s", why.p ? why.p : "");
        qr_buf_release(&why);
    } else if (cc != CURLE_OK) {
        transport_message(l, cc, errbuf, o);
    } else if (llm_status_class(o->status) != LLM_STATUS_OK) {
        o->rc = QR_EIO;
        o->retry = llm_status_class(o->status) == LLM_STATUS_RETRY;
        llm_status_message(&l->cfg, l->endpoint, o->status, x.body.p ? x.body.p : "",
                           x.body.len, o->msg, sizeof o->msg);
    } else if (x.streaming) {
        if (!x.rep.finished) {
            o->rc = QR_EIO;
            o->retry = true;
            snprintf(o->msg, sizeof o->msg, "the stream from %s ended before its last event",
                     l->endpoint);
        }
    } else {
        int rc = l->cfg.provider == QR_LLM_ANTHROPIC
                     ? llm_anthropic_parse(x.body.p ? x.body.p : "", x.body.len, &x.rep)
                     : llm_openai_parse(x.body.p ? x.body.p : "", x.body.len, &x.rep);
        if (rc != QR_OK) {
            o->rc = rc == QR_EIO ? QR_EIO : rc;
            o->retry = rc == QR_EIO && x.rep.retryable;
            snprintf(o->msg, sizeof o->msg, "bad response from %s: %s", l->endpoint,
                     x.rep.error);
        }
    }
    if (o->rc == QR_OK) {
        llm_reply_release(keep);
        *keep = x.rep; /* hands the text over */
        llm_reply_init(&x.rep);
    }
    llm_stream_release(&x.stream);
    llm_reply_release(&x.rep);
    qr_buf_release(&x.body);
    llm_scrub(o->msg, sizeof o->msg, l->cfg.api_key);
}

/* ---- the retry loop ---- */

static uint64_t next_rand(qr_llm *l)
{
    uint64_t x = l->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    l->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* The wait before retry number k (0-based), in ms. */
static uint32_t backoff_ms(qr_llm *l, uint32_t k, long retry_after)
{
    uint64_t cap = l->cfg.retry_max_ms;
    if (retry_after >= 0) {
        uint64_t w = (uint64_t)retry_after * 1000u;
        return (uint32_t)(w < cap ? w : cap);
    }
    uint64_t w = l->cfg.retry_base_ms;
    for (uint32_t i = 0; i < k && w < cap; i++)
        w *= 2;
    /* jitter: a factor in [0.75, 1.25) */
    double f = 0.75 + 0.5 * (double)(next_rand(l) >> 11) / 9007199254740992.0;
    double j = (double)w * f;
    return (uint32_t)(j < (double)cap ? j : (double)cap);
}

static void sleep_ms(uint32_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static struct curl_slist *add_header(struct curl_slist *h, bool *failed, const char *line)
{
    struct curl_slist *n = llm_cu.slist_append(h, line);
    if (!n) {
        *failed = true;
        return h;
    }
    return n;
}

static struct curl_slist *make_headers(const qr_llm *l, bool *failed)
{
    struct curl_slist *h = NULL;
    h = add_header(h, failed, "Content-Type: application/json");
    h = add_header(h, failed,
                   l->cfg.stream ? "Accept: text/event-stream" : "Accept: application/json");
    h = add_header(h, failed, "Expect:"); /* no 100-continue round trip for big prompts */
    const char *key = l->cfg.api_key;
    if (l->cfg.provider == QR_LLM_ANTHROPIC)
        h = add_header(h, failed, "anthropic-version: 2023-06-01");
    if (key && *key) {
        size_t n = strlen(key) + 32;
        char *line = malloc(n);
        if (!line) {
            *failed = true;
            return h;
        }
        if (l->cfg.provider == QR_LLM_ANTHROPIC)
            snprintf(line, n, "x-api-key: %s", key);
        else
            snprintf(line, n, "Authorization: Bearer %s", key);
        h = add_header(h, failed, line);
        memset(line, 0, n);
        free(line);
    }
    return h;
}

int qr_llm_complete(qr_llm *l, const qr_llm_request *r, qr_llm_response *out)
{
    memset(out, 0, sizeof *out);
    double t0 = now_ms();
    qr_buf req;
    qr_buf_init(&req);
    llm_reply rep;
    llm_reply_init(&rep);
    struct curl_slist *hdrs = NULL;
    int rc = QR_OK;

    if (!qr_llm_configured(&l->cfg) || !l->endpoint) {
        snprintf(out->error, sizeof out->error,
                 "no model configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL (or [llm] url "
                 "and model in ~/.config/quarry/config.toml)");
        rc = QR_EINVAL;
        goto done;
    }
    const char *why;
    if (!l->curl && llm_curl_load(&why) != QR_OK) {
        snprintf(out->error, sizeof out->error, "%s", why);
        rc = QR_EIO;
        goto done;
    }
    rc = qr_llm_request_json(l, r, &req);
    if (rc != QR_OK) {
        snprintf(out->error, sizeof out->error, "%s",
                 rc == QR_ENOMEM ? "out of memory building the request"
                                 : "bad request: it needs at least one message, each with a role");
        goto done;
    }
    bool failed = false;
    hdrs = make_headers(l, &failed);
    if (failed) {
        rc = QR_ENOMEM;
        snprintf(out->error, sizeof out->error, "out of memory building the request headers");
        goto done;
    }
    uint32_t max_attempts = l->cfg.max_retries + 1;
    outcome o;
    l->stop = r->stop;
    for (uint32_t k = 0;; k++) {
        out->attempts = k + 1;
        attempt(l, &req, hdrs, &o, &rep);
        out->http_status = o.status;
        if (o.rc == QR_OK || !o.retry || k + 1 >= max_attempts)
            break;
        if (qr_stop_check(l->stop))
            break;
        uint32_t wait = backoff_ms(l, k, o.retry_after);
        if (l->log) {
            char line[600];
            if (wait < 1000)
                snprintf(line, sizeof line, "%s; retrying in %u ms (attempt %u of %u)", o.msg,
                         wait, k + 2, max_attempts);
            else
                snprintf(line, sizeof line, "%s; retrying in %.1f s (attempt %u of %u)", o.msg,
                         wait / 1000.0, k + 2, max_attempts);
            llm_scrub(line, sizeof line, l->cfg.api_key);
            l->log(l->log_ud, line);
        }
        /* the wait before a retry ends early on a stop */
        for (uint32_t waited = 0; waited < wait && !qr_stop_check(l->stop); waited += 50)
            sleep_ms(wait - waited < 50 ? wait - waited : 50);
        if (qr_stop_check(l->stop))
            break;
    }
    l->stop = NULL;
    rc = o.rc;
    if (rc != QR_OK) {
        if (out->attempts > 1 && o.retry)
            snprintf(out->error, sizeof out->error, "%.340s (gave up after %u attempts)", o.msg,
                     out->attempts);
        else
            snprintf(out->error, sizeof out->error, "%s", o.msg);
        goto done;
    }
    out->usage = rep.usage;
    size_t len = 0;
    char *text = qr_buf_detach(&rep.text, &len);
    if (!text)
        text = calloc(1, 1);
    out->text = text;
    out->len = text ? len : 0;
    if (rep.stop[0])
        out->stop_reason = dup_or_null(rep.stop);
    if (rep.ncalls) {
        qr_buf_putc(&rep.calls, ']');
        out->tool_calls = qr_buf_detach(&rep.calls, &out->tool_calls_len);
        if (!out->tool_calls) {
            free(out->text);
            out->text = NULL;
        }
    }
    if (!out->text || (rep.stop[0] && !out->stop_reason)) {
        free(out->text);
        free(out->stop_reason);
        out->text = out->stop_reason = NULL;
        out->len = 0;
        rc = QR_ENOMEM;
        snprintf(out->error, sizeof out->error, "out of memory copying the reply");
    }
done:
    llm_scrub(out->error, sizeof out->error, l->cfg.api_key);
    llm_cu.slist_free_all(hdrs);
    llm_reply_release(&rep);
    qr_buf_release(&req);
    out->ms = now_ms() - t0;
    return rc;
}
