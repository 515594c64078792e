/*
 * sse.c: an incremental Server-Sent Events parser (the WHATWG event-stream format) and
 * the streamed reply built on it. Bytes arrive in whatever pieces curl hands over, split
 * at any byte, a CRLF pair included; the parser keeps the partial line, the event name and
 * the data lines of the event being read, and calls back once per complete event (blank
 * line). Lines end with LF, CR or CRLF; a leading ':' is a comment; "data:" lines of one
 * event join with '\n'; one space after the colon is dropped; "id" and "retry" are
 * ignored (a reply is never resumed). A line or an event longer than LLM_MAX_BODY stops
 * the parse with QR_ELIMIT.
 *
 * Rejected: splitting on "\n\n" in the accumulated body after the transfer (no
 * incremental use, wrong on CR line ends); parsing JSON across events (each event's data
 * is one whole JSON document in both wire formats).
 */
#include "llm_int.h"

#include <string.h>

void llm_sse_init(llm_sse *s, llm_sse_fn fn, void *ud)
{
    memset(s, 0, sizeof *s);
    qr_buf_init(&s->line);
    qr_buf_init(&s->event);
    qr_buf_init(&s->data);
    s->fn = fn;
    s->ud = ud;
}

void llm_sse_release(llm_sse *s)
{
    qr_buf_release(&s->line);
    qr_buf_release(&s->event);
    qr_buf_release(&s->data);
}

static void dispatch(llm_sse *s)
{
    if (s->has_data && s->rc == QR_OK) {
        int rc = s->fn(s->ud, s->event.p ? s->event.p : "", s->event.len,
                       s->data.p ? s->data.p : "", s->data.len);
        if (rc != QR_OK)
            s->rc = rc;
    }
    qr_buf_reset(&s->event);
    qr_buf_reset(&s->data);
    s->has_data = false;
}

static bool field_is(const char *f, size_t n, const char *name)
{
    size_t k = strlen(name);
    return n == k && memcmp(f, name, k) == 0;
}

/* One complete line (without its end) in s->line. */
static void line_done(llm_sse *s)
{
    const char *l = s->line.p ? s->line.p : "";
    size_t n = s->line.len;
    if (n == 0) {
        dispatch(s);
    } else if (l[0] != ':') {
        const char *colon = memchr(l, ':', n);
        size_t fl = colon ? (size_t)(colon - l) : n;
        const char *v = colon ? colon + 1 : l + n;
        size_t vl = n - (size_t)(v - l);
        if (vl && *v == ' ') {
            v++;
            vl--;
        }
        if (field_is(l, fl, "data")) {
            if (s->data.len + vl + 1 > LLM_MAX_BODY) {
                s->rc = QR_ELIMIT;
            } else {
                if (s->has_data)
                    qr_buf_putc(&s->data, '\n');
                qr_buf_append(&s->data, v, vl);
                s->has_data = true;
            }
        } else if (field_is(l, fl, "event")) {
            qr_buf_reset(&s->event);
            qr_buf_append(&s->event, v, vl);
        }
    }
    qr_buf_reset(&s->line);
    if (s->rc == QR_OK && (s->data.failed || s->event.failed))
        s->rc = QR_ENOMEM;
}

int llm_sse_feed(llm_sse *s, const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && s->rc == QR_OK) {
        if (s->after_cr) {
            s->after_cr = false;
            if (p[i] == '\n') { /* the LF of a CRLF whose CR ended the line */
                i++;
                continue;
            }
        }
        size_t j = i;
        while (j < n && p[j] != '\n' && p[j] != '\r')
            j++;
        if (j > i) {
            if (s->line.len + (j - i) > LLM_MAX_BODY) {
                s->rc = QR_ELIMIT;
                break;
            }
            qr_buf_append(&s->line, p + i, j - i);
            if (s->line.failed) {
                s->rc = QR_ENOMEM;
                break;
            }
        }
        if (j == n)
            break;
        s->after_cr = p[j] == '\r';
        i = j + 1;
        line_done(s);
    }
    return s->rc;
}

int llm_sse_finish(llm_sse *s)
{
    if (s->rc == QR_OK && s->line.len)
        line_done(s);
    dispatch(s);
    return s->rc;
}

/* ---- a streamed reply ---- */

static int on_event(void *ud, const char *event, size_t elen, const char *data, size_t dlen)
{
    llm_stream *st = ud;
    if (st->provider == QR_LLM_ANTHROPIC)
        return llm_anthropic_event(event, elen, data, dlen, st->rep);
    return llm_openai_event(data, dlen, st->rep);
}

void llm_stream_init(llm_stream *s, qr_llm_provider p, llm_reply *rep)
{
    llm_sse_init(&s->sse, on_event, s);
    s->provider = p;
    s->rep = rep;
}

static int stream_rc(llm_stream *s, int rc)
{
    if (rc == QR_ELIMIT)
        llm_reply_fail(s->rep, true, "a stream event is longer than %u bytes",
                       (unsigned)LLM_MAX_BODY);
    else if (rc == QR_ENOMEM)
        llm_reply_fail(s->rep, false, "out of memory reading the stream");
    return rc;
}

int llm_stream_feed(llm_stream *s, const char *p, size_t n)
{
    return stream_rc(s, llm_sse_feed(&s->sse, p, n));
}

int llm_stream_finish(llm_stream *s)
{
    return stream_rc(s, llm_sse_finish(&s->sse));
}

void llm_stream_release(llm_stream *s)
{
    llm_sse_release(&s->sse);
}
