/*
 * wire_anthropic.c: the Anthropic Messages format. Request: the system text as text
 * blocks marked cache_control {"type":"ephemeral"} (cache breakpoints: everything up to
 * and including a marked block is cached and read back on the next call with the same
 * prefix): one after the part shared by several agents (shared_len) when there is one,
 * one after the whole system text; then the conversation, temperature 0. Reply: the text blocks of content[] concatenated,
 * stop_reason, and usage (input_tokens, output_tokens, cache_creation_input_tokens,
 * cache_read_input_tokens; input_tokens already excludes the cached parts).
 * Streamed: message_start (usage so far), content_block_start/_delta (text), message_delta
 * (stop_reason, cumulative output_tokens), message_stop, ping, error.
 *
 * Rejected: a cache breakpoint on the last user message too: quarry's conversations are
 * short, and a breakpoint on text that changes every call only pays the cache-write price.
 */
#include "llm_int.h"

#include <string.h>

int llm_anthropic_body(const qr_llm_config *c, const qr_llm_request *r, qr_buf *out)
{
    if (!r->nmessages || !r->messages)
        return QR_EINVAL;
    for (size_t i = 0; i < r->nmessages; i++)
        if (!r->messages[i].role || (!r->messages[i].content && r->messages[i].len))
            return QR_EINVAL;
    const char *model = c->model ? c->model : "";
    qr_buf_puts(out, "{\"model\":");
    qr_buf_json_string(out, model, strlen(model));
    qr_buf_printf(out, ",\"max_tokens\":%u", r->max_tokens ? r->max_tokens : c->max_tokens);
    if (r->system) {
        /* a breakpoint after the block every agent shares, and one after the whole
         * system text */
        size_t shared = r->shared_len < r->system_len ? r->shared_len : 0;
        qr_buf_puts(out, ",\"system\":[");
        if (shared) {
            qr_buf_puts(out, "{\"type\":\"text\",\"text\":");
            qr_buf_json_string(out, r->system, shared);
            qr_buf_puts(out, ",\"cache_control\":{\"type\":\"ephemeral\"}},");
        }
        qr_buf_puts(out, "{\"type\":\"text\",\"text\":");
        qr_buf_json_string(out, r->system + shared, r->system_len - shared);
        qr_buf_puts(out, ",\"cache_control\":{\"type\":\"ephemeral\"}}]");
    }
    qr_buf_puts(out, ",\"messages\":[");
    for (size_t i = 0; i < r->nmessages; i++) {
        const qr_llm_message *m = &r->messages[i];
        if (i)
            qr_buf_putc(out, ',');
        qr_buf_puts(out, "{\"role\":");
        qr_buf_json_string(out, m->role, strlen(m->role));
        qr_buf_puts(out, ",\"content\":");
        qr_buf_json_string(out, m->content ? m->content : "", m->len);
        qr_buf_putc(out, '}');
    }
    qr_buf_printf(out, "],\"temperature\":0,\"stream\":%s}", c->stream ? "true" : "false");
    return out->failed ? QR_ENOMEM : QR_OK;
}

/* Fields present in usage overwrite u (message_delta repeats only some of them). */
static void read_usage(qr_arena *a, qr_val usage, qr_llm_usage *u)
{
    if (usage.t != QR_T_MAP)
        return;
    llm_field_u64(a, usage, "input_tokens", &u->input);
    llm_field_u64(a, usage, "output_tokens", &u->output);
    llm_field_u64(a, usage, "cache_creation_input_tokens", &u->cache_write);
    llm_field_u64(a, usage, "cache_read_input_tokens", &u->cache_read);
}

static int read_json(qr_arena *a, const char *s, size_t n, qr_val *v, llm_reply *rep,
                     const char *what)
{
    qr_read_error err;
    int rc = qr_json_read(a, s, n, v, &err);
    if (rc == QR_ENOMEM) {
        llm_reply_fail(rep, false, "out of memory reading the %s", what);
        return QR_ENOMEM;
    }
    if (rc != QR_OK) {
        llm_reply_fail(rep, true, "the %s is not JSON: %s at %u:%u", what, err.msg, err.line,
                       err.col);
        return QR_EINVAL;
    }
    if (v->t != QR_T_MAP) {
        llm_reply_fail(rep, true, "the %s is a JSON %s, not an object", what,
                       qr_type_name((qr_type)v->t));
        return QR_EINVAL;
    }
    return QR_OK;
}

static bool is(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    return s && n == k && memcmp(s, word, k) == 0;
}

/* {"type":"error","error":{"type":"overloaded_error","message":"..."}} */
static bool error_object(qr_arena *a, qr_val root, llm_reply *rep)
{
    qr_val e;
    if (!llm_field(a, root, "error", &e) || qr_is_nil(e))
        return false;
    size_t n = 0, tn = 0;
    const char *msg = llm_field_str(a, e, "message", &n);
    const char *type = llm_field_str(a, e, "type", &tn);
    char one[200];
    llm_one_line(one, sizeof one, msg ? msg : "(no message)", msg ? n : 12);
    llm_reply_fail(rep, false, "the server answered with an error: %s", one);
    rep->retryable = !type || is(type, tn, "overloaded_error") || is(type, tn, "api_error");
    return true;
}

int llm_anthropic_parse(const char *body, size_t n, llm_reply *rep)
{
    qr_arena a;
    qr_arena_init(&a, (size_t)LLM_MAX_BODY * 4);
    qr_val root, content, v;
    int rc = read_json(&a, body, n, &root, rep, "response");
    if (rc != QR_OK)
        goto done;
    if (error_object(&a, root, rep)) {
        rc = QR_EIO;
        goto done;
    }
    if (!llm_field(&a, root, "content", &content) || content.t != QR_T_VEC) {
        llm_reply_fail(rep, true, "the response has no 'content' array: not a message");
        rc = QR_EINVAL;
        goto done;
    }
    for (size_t i = 0; i < qr_vec_len(content); i++) {
        qr_val b = qr_vec_at(content, i);
        size_t tl, xl;
        const char *type = llm_field_str(&a, b, "type", &tl);
        const char *text = llm_field_str(&a, b, "text", &xl);
        if (type && tl == 4 && memcmp(type, "text", 4) == 0 && text)
            qr_buf_append(&rep->text, text, xl);
    }
    size_t sl;
    const char *stop = llm_field_str(&a, root, "stop_reason", &sl);
    if (stop)
        llm_one_line(rep->stop, sizeof rep->stop, stop, sl);
    if (llm_field(&a, root, "usage", &v))
        read_usage(&a, v, &rep->usage);
    rep->finished = true;
    rc = rep->text.failed ? QR_ENOMEM : QR_OK;
done:
    qr_arena_release(&a);
    return rc;
}

int llm_anthropic_event(const char *event, size_t elen, const char *data, size_t n,
                        llm_reply *rep)
{
    qr_arena a;
    qr_arena_init(&a, (size_t)LLM_MAX_BODY * 4);
    qr_val root, v, sub;
    int rc = read_json(&a, data, n, &root, rep, "stream event");
    if (rc != QR_OK)
        goto done;
    /* the data's own "type" names the event; the SSE event line is the fallback */
    size_t tl;
    const char *type = llm_field_str(&a, root, "type", &tl);
    if (!type) {
        type = event;
        tl = elen;
    }
    if (is(type, tl, "error") || (llm_field(&a, root, "error", &v) && !qr_is_nil(v))) {
        if (!error_object(&a, root, rep))
            llm_reply_fail(rep, false, "the server sent an error event without a message");
        rc = QR_EIO;
    } else if (is(type, tl, "message_start")) {
        if (llm_field(&a, root, "message", &sub) && llm_field(&a, sub, "usage", &v))
            read_usage(&a, v, &rep->usage);
    } else if (is(type, tl, "content_block_start")) {
        size_t bl, xl;
        if (llm_field(&a, root, "content_block", &sub)) {
            const char *bt = llm_field_str(&a, sub, "type", &bl);
            const char *text = llm_field_str(&a, sub, "text", &xl);
            if (is(bt, bl, "text") && text)
                qr_buf_append(&rep->text, text, xl);
        }
    } else if (is(type, tl, "content_block_delta")) {
        size_t dl, xl;
        if (llm_field(&a, root, "delta", &sub)) {
            const char *dt = llm_field_str(&a, sub, "type", &dl);
            const char *text = llm_field_str(&a, sub, "text", &xl);
            if (is(dt, dl, "text_delta") && text)
                qr_buf_append(&rep->text, text, xl);
        }
    } else if (is(type, tl, "message_delta")) {
        size_t sl;
        if (llm_field(&a, root, "delta", &sub)) {
            const char *stop = llm_field_str(&a, sub, "stop_reason", &sl);
            if (stop) {
                llm_one_line(rep->stop, sizeof rep->stop, stop, sl);
                rep->finished = true;
            }
        }
        if (llm_field(&a, root, "usage", &v))
            read_usage(&a, v, &rep->usage);
    } else if (is(type, tl, "message_stop")) {
        rep->finished = true;
    }
    /* ping, content_block_stop and event types added later: nothing to take */
    if (rc == QR_OK && rep->text.failed)
        rc = QR_ENOMEM;
done:
    qr_arena_release(&a);
    return rc;
}
