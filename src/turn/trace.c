/*
 * trace.c: the one trace writer (quarry/turn.h; the format is docs/trace.md). Every
 * command's --trace FILE and every library caller that wants events makes one qr_trace;
 * the turn module, the agents and the surfaces write events into it with the same
 * begin/field/emit helpers, so each line has "event", "source" and "t_ms" first.
 *
 * Design: an event is built in the caller's buffer and only the final write takes the
 * writer's lock (a trace may be shared by MCP workers or a flow's parallel statements).
 * Before the write the line is scrubbed of every known secret: whole occurrences and any
 * run of SCRUB_RUN characters taken from a secret (a server may echo part of a key), the
 * same rule the llm client applies to its error lines. The writer keeps the totals of the
 * model calls that went through it, so the "end" event needs nothing from the caller.
 * A request carries the trace its work writes to (qr_req.trace, opaque to the base layer;
 * qr_trace_bind): work started under it (search_codebase inside ask) finds the trace there.
 * Rejected: a process-wide table of requests (global mutable state shared by every MCP
 * worker), a thread-local "current trace" (MCP workers hop threads).
 */
#include "quarry/turn.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRUB_RUN 8

struct qr_trace {
    pthread_mutex_t mu;
    FILE *f;
    void (*fn)(void *ud, const char *line, size_t len);
    void *ud;
    uint64_t t0_ns;
    char **secrets;
    size_t nsecrets;
    /* totals, under mu */
    uint64_t calls, repairs, failed, tools;
    qr_llm_usage usage;
    uint64_t tokens;
};

static qr_trace *trace_alloc(void)
{
    qr_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    t->t0_ns = qr_clock_ns();
    return t;
}

qr_trace *qr_trace_open(const char *path, qr_buf *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        qr_buf_printf(err, "cannot write the trace file '%s': %s", path, strerror(errno));
        return NULL;
    }
    qr_trace *t = trace_alloc();
    if (!t) {
        fclose(f);
        qr_buf_puts(err, "out of memory");
        return NULL;
    }
    t->f = f;
    return t;
}

qr_trace *qr_trace_new(void (*fn)(void *ud, const char *line, size_t len), void *ud)
{
    qr_trace *t = trace_alloc();
    if (t) {
        t->fn = fn;
        t->ud = ud;
    }
    return t;
}

void qr_trace_free(qr_trace *t)
{
    if (!t)
        return;
    if (t->f)
        fclose(t->f);
    for (size_t i = 0; i < t->nsecrets; i++)
        free(t->secrets[i]);
    free(t->secrets);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int qr_trace_add_secret(qr_trace *t, const char *secret)
{
    if (!t || !secret || strlen(secret) < 4)
        return QR_OK;
    int rc = QR_OK;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->nsecrets; i++)
        if (!strcmp(t->secrets[i], secret))
            goto done;
    char **v = realloc(t->secrets, (t->nsecrets + 1) * sizeof *v);
    char *s = strdup(secret);
    if (!v || !s) {
        if (v)
            t->secrets = v;
        free(s);
        rc = QR_ENOMEM;
        goto done;
    }
    t->secrets = v;
    t->secrets[t->nsecrets++] = s;
done:
    pthread_mutex_unlock(&t->mu);
    return rc;
}

/* The length of the longest piece of key that text[0..n) starts with (0 when shorter than
 * the run that counts). */
static size_t secret_match(const char *text, size_t n, const char *key, size_t klen)
{
    size_t run = klen < SCRUB_RUN ? klen : SCRUB_RUN, best = 0;
    for (size_t k = 0; k + run <= klen; k++) {
        size_t m = 0;
        while (m < n && k + m < klen && text[m] == key[k + m])
            m++;
        if (m >= run && m > best)
            best = m;
    }
    return best;
}

/* Rewrites b with every secret masked (called under t->mu). */
static void scrub(const qr_trace *t, qr_buf *b)
{
    qr_secrets_scrub(b, (const char *const *)t->secrets, t->nsecrets);
}

void qr_trace_scrub(qr_trace *t, qr_buf *b)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    scrub(t, b);
    pthread_mutex_unlock(&t->mu);
}

void qr_secrets_scrub(qr_buf *b, const char *const *secrets, size_t nsecrets)
{
    if (!nsecrets || !b->len)
        return;
    qr_buf o;
    qr_buf_init(&o);
    bool changed = false;
    for (size_t i = 0; i < b->len;) {
        size_t m = 0;
        for (size_t s = 0; s < nsecrets; s++) {
            size_t k = secret_match(b->p + i, b->len - i, secrets[s], strlen(secrets[s]));
            if (k > m)
                m = k;
        }
        if (m) {
            qr_buf_puts(&o, "[redacted]");
            i += m;
            changed = true;
        } else {
            qr_buf_putc(&o, b->p[i++]);
        }
    }
    if (changed) {
        qr_buf tmp = *b;
        *b = o;
        o = tmp;
    }
    qr_buf_release(&o);
}

void qr_trace_begin(const qr_trace *t, qr_buf *b, const char *event, const char *source)
{
    qr_buf_init(b);
    if (!t)
        return;
    qr_buf_puts(b, "{\"event\":");
    qr_buf_json_string(b, event, strlen(event));
    qr_buf_puts(b, ",\"source\":");
    qr_buf_json_string(b, source ? source : "quarry", source ? strlen(source) : 6);
    qr_buf_printf(b, ",\"t_ms\":%.1f", (double)(qr_clock_ns() - t->t0_ns) / 1e6);
}

void qr_trace_str(qr_buf *b, const char *key, const char *s, size_t n)
{
    qr_buf_printf(b, ",\"%s\":", key);
    if (s)
        qr_buf_json_string(b, s, n);
    else
        qr_buf_puts(b, "null");
}

void qr_trace_cstr(qr_buf *b, const char *key, const char *s)
{
    qr_trace_str(b, key, s, s ? strlen(s) : 0);
}

void qr_trace_int(qr_buf *b, const char *key, int64_t v)
{
    qr_buf_printf(b, ",\"%s\":%lld", key, (long long)v);
}

void qr_trace_num(qr_buf *b, const char *key, double v)
{
    qr_buf_printf(b, ",\"%s\":%.2f", key, v);
}

void qr_trace_bool(qr_buf *b, const char *key, bool v)
{
    qr_buf_printf(b, ",\"%s\":%s", key, v ? "true" : "false");
}

void qr_trace_json(qr_buf *b, const char *key, const char *json, size_t n)
{
    qr_buf_printf(b, ",\"%s\":", key);
    if (json && n)
        qr_buf_append(b, json, n);
    else
        qr_buf_puts(b, "null");
}

void qr_trace_usage(qr_buf *b, const char *key, const qr_llm_usage *u)
{
    qr_buf_printf(b,
                  ",\"%s\":{\"input\":%llu,\"output\":%llu,\"cache_read\":%llu,"
                  "\"cache_write\":%llu,\"tokens\":%llu}",
                  key, (unsigned long long)u->input, (unsigned long long)u->output,
                  (unsigned long long)u->cache_read, (unsigned long long)u->cache_write,
                  (unsigned long long)qr_llm_usage_tokens(u));
}

void qr_trace_emit(qr_trace *t, qr_buf *b)
{
    if (t && b->len) {
        qr_buf_putc(b, '}');
        pthread_mutex_lock(&t->mu);
        scrub(t, b);
        if (t->f) {
            fwrite(b->p, 1, b->len, t->f);
            fputc('\n', t->f);
            fflush(t->f);
        } else if (t->fn) {
            t->fn(t->ud, b->p, b->len);
        }
        pthread_mutex_unlock(&t->mu);
    }
    qr_buf_release(b);
}

int qr_trace_emit_object(qr_trace *t, const char *source, const char *json, size_t n)
{
    static const char head[] = "{\"event\":\"";
    size_t h = sizeof head - 1, e = h;
    if (n < h || memcmp(json, head, h) != 0)
        return QR_EINVAL;
    while (e < n && json[e] != '"')
        e += json[e] == '\\' ? 2 : 1;
    if (e >= n)
        return QR_EINVAL;
    if (!t)
        return QR_OK;
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_append(&b, json, e + 1); /* {"event":"NAME" */
    qr_buf_puts(&b, ",\"source\":");
    qr_buf_json_string(&b, source ? source : "quarry", source ? strlen(source) : 6);
    qr_buf_printf(&b, ",\"t_ms\":%.1f", (double)(qr_clock_ns() - t->t0_ns) / 1e6);
    /* the rest, without its closing brace (emit adds it) */
    size_t rest = e + 1, end = n;
    while (end > rest && json[end - 1] != '}')
        end--;
    if (end > rest)
        qr_buf_append(&b, json + rest, end - 1 - rest);
    qr_trace_emit(t, &b);
    return QR_OK;
}

/* Called by turn.c after each call (not public: the totals are the writer's own). */
void qr__trace_count_call(qr_trace *t, uint32_t repair, bool ok, const qr_llm_usage *u);
void qr__trace_count_call(qr_trace *t, uint32_t repair, bool ok, const qr_llm_usage *u)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->calls++;
    t->repairs += repair ? 1 : 0;
    t->failed += ok ? 0 : 1;
    t->usage.input += u->input;
    t->usage.output += u->output;
    t->usage.cache_read += u->cache_read;
    t->usage.cache_write += u->cache_write;
    t->tokens += qr_llm_usage_tokens(u);
    pthread_mutex_unlock(&t->mu);
}

void qr_trace_tool(qr_trace *t, const char *source, const char *tool, const char *args,
                   size_t args_len, double ms, int64_t rows, const char *error)
{
    if (!t)
        return;
    qr_buf b;
    qr_trace_begin(t, &b, "tool", source);
    qr_trace_cstr(&b, "tool", tool);
    qr_trace_json(&b, "args", args, args ? args_len : 0);
    qr_trace_num(&b, "ms", ms);
    if (rows >= 0)
        qr_trace_int(&b, "rows", rows);
    if (error)
        qr_trace_cstr(&b, "error", error);
    pthread_mutex_lock(&t->mu);
    t->tools++;
    pthread_mutex_unlock(&t->mu);
    qr_trace_emit(t, &b);
}

void qr_trace_end(qr_trace *t, const char *source, bool ok, const char *error)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    uint64_t calls = t->calls, repairs = t->repairs, failed = t->failed, tools = t->tools;
    qr_llm_usage u = t->usage;
    pthread_mutex_unlock(&t->mu);
    qr_buf b;
    qr_trace_begin(t, &b, "end", source);
    qr_trace_bool(&b, "ok", ok);
    qr_trace_int(&b, "calls", (int64_t)calls);
    qr_trace_int(&b, "repairs", (int64_t)repairs);
    qr_trace_int(&b, "failed_calls", (int64_t)failed);
    qr_trace_int(&b, "tool_calls", (int64_t)tools);
    qr_trace_usage(&b, "usage", &u);
    if (error)
        qr_trace_cstr(&b, "error", error);
    qr_trace_emit(t, &b);
}

/* ---- requests to traces ---- */

bool qr_trace_bind(qr_req *r, qr_trace *t)
{
    if (!r || !t || r->trace)
        return false;
    r->trace = t;
    return true;
}

void qr_trace_unbind(qr_req *r)
{
    if (r)
        r->trace = NULL;
}

qr_trace *qr_trace_for(const qr_req *r)
{
    return r ? r->trace : NULL;
}
