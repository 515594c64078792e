/*
 * wire_openai.c: the OpenAI-compatible chat completions format (OpenAI, llama.cpp's
 * server, Ollama, vLLM, most gateways). Request: the system text as the first message,
 * then the conversation, temperature 0; when streaming, stream_options.include_usage so
 * the last chunk carries the usage. Reply: choices[0].message.content (or, streamed, the
 * concatenated choices[0].delta.content), finish_reason, and usage with prompt_tokens,
 * completion_tokens and prompt_tokens_details.cached_tokens (cached tokens are part of
 * prompt_tokens: input = prompt_tokens - cached_tokens).
 *
 * Tools (function calling) go through wire_tools.c; a request with tools is not streamed.
 * Rejected: sending "n" or "top_p": the servers above disagree on the extras; "max_completion_tokens": llama.cpp and Ollama
 * still read max_tokens, which OpenAI accepts for chat models.
 */
#include "llm_int.h"

#include <string.h>

int llm_openai_body(const qr_llm_config *c, const qr_llm_request *r, qr_buf *out)
{
    if (!r->nmessages || !r->messages)
        return QR_EINVAL;
    for (size_t i = 0; i < r->nmessages; i++)
        if (!r->messages[i].role || (!r->messages[i].content && r->messages[i].len))
            return QR_EINVAL;
    const char *model = c->model ? c->model : "";
    qr_buf_puts(out, "{\"model\":");
    qr_buf_json_string(out, model, strlen(model));
    qr_buf_puts(out, ",\"messages\":[");
    bool first = true;
    if (r->system) {
        qr_buf_puts(out, "{\"role\":\"system\",\"content\":");
        qr_buf_json_string(out, r->system, r->system_len);
        qr_buf_putc(out, '}');
        first = false;
    }
    for (size_t i = 0; i < r->nmessages; i++) {
        const qr_llm_message *m = &r->messages[i];
        if (!first)
            qr_buf_putc(out, ',');
        first = false;
        qr_buf_puts(out, "{\"role\":");
        qr_buf_json_string(out, m->role, strlen(m->role));
        if (m->tool_call_id) {
            qr_buf_puts(out, ",\"tool_call_id\":");
            qr_buf_json_string(out, m->tool_call_id, strlen(m->tool_call_id));
        }
        qr_buf_puts(out, ",\"content\":");
        if (m->tool_calls && !m->len)
            qr_buf_puts(out, "null");
        else
            qr_buf_json_string(out, m->content ? m->content : "", m->len);
        if (m->tool_calls) {
            qr_buf_puts(out, ",\"tool_calls\":[");
            if (llm_calls_json(QR_LLM_OPENAI, m->tool_calls, m->tool_calls_len, out) != QR_OK)
                return QR_EINVAL;
            qr_buf_putc(out, ']');
        }
        qr_buf_putc(out, '}');
    }
    qr_buf_printf(out, "],\"max_tokens\":%u,\"temperature\":0,",
                  r->max_tokens ? r->max_tokens : c->max_tokens);
    if (r->tools) {
        /* llm_tools_json starts with a comma; the object goes on after it */
        qr_buf tools;
        qr_buf_init(&tools);
        if (llm_tools_json(QR_LLM_OPENAI, r->tools, r->tools_len, &tools) != QR_OK) {
            qr_buf_release(&tools);
            return QR_EINVAL;
        }
        qr_buf_append(out, tools.p + 1, tools.len - 1);
        qr_buf_release(&tools);
        qr_buf_puts(out, ",\"stream\":false}");
    } else if (c->stream)
        qr_buf_puts(out, "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    else
        qr_buf_puts(out, "\"stream\":false}");
    return out->failed ? QR_ENOMEM : QR_OK;
}

/* usage: {"prompt_tokens", "completion_tokens", "prompt_tokens_details":{"cached_tokens"}} */
static void read_usage(qr_arena *a, qr_val usage, qr_llm_usage *u)
{
    if (usage.t != QR_T_MAP)
        return;
    uint64_t prompt = 0, cached = 0, completion = 0;
    llm_field_u64(a, usage, "prompt_tokens", &prompt);
    llm_field_u64(a, usage, "completion_tokens", &completion);
    qr_val details;
    if (llm_field(a, usage, "prompt_tokens_details", &details))
        llm_field_u64(a, details, "cached_tokens", &cached);
    if (cached > prompt)
        cached = prompt;
    u->input = prompt - cached;
    u->cache_read = cached;
    u->cache_write = 0;
    u->output = completion;
}

static void set_stop(llm_reply *rep, const char *s, size_t n)
{
    llm_one_line(rep->stop, sizeof rep->stop, s, n);
}

/* A body or chunk carrying {"error": ...}: the server's message. */
static bool error_object(qr_arena *a, qr_val root, llm_reply *rep)
{
    qr_val e;
    if (!llm_field(a, root, "error", &e) || qr_is_nil(e))
        return false;
    size_t n = 0;
    const char *msg = e.t == QR_T_STR ? e.s->data : llm_field_str(a, e, "message", &n);
    if (e.t == QR_T_STR)
        n = e.s->len;
    char one[200];
    llm_one_line(one, sizeof one, msg ? msg : "(no message)", msg ? n : 12);
    llm_reply_fail(rep, false, "the server answered with an error: %s", one);
    rep->retryable = true;
    return true;
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

int llm_openai_parse(const char *body, size_t n, llm_reply *rep)
{
    qr_arena a;
    qr_arena_init(&a, (size_t)LLM_MAX_BODY * 4);
    qr_val root, choices, c0, msg, v;
    int rc = read_json(&a, body, n, &root, rep, "response");
    if (rc != QR_OK)
        goto done;
    if (error_object(&a, root, rep)) {
        rc = QR_EIO;
        goto done;
    }
    if (!llm_field(&a, root, "choices", &choices) || choices.t != QR_T_VEC ||
        qr_vec_len(choices) == 0) {
        llm_reply_fail(rep, true, "the response has no 'choices' array: not a chat completion");
        rc = QR_EINVAL;
        goto done;
    }
    c0 = qr_vec_at(choices, 0);
    if (!llm_field(&a, c0, "message", &msg) || msg.t != QR_T_MAP) {
        llm_reply_fail(rep, true, "the response's choices[0] has no 'message' object");
        rc = QR_EINVAL;
        goto done;
    }
    if (llm_field(&a, msg, "tool_calls", &v) && v.t == QR_T_VEC) {
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            qr_val call = qr_vec_at(v, i), fn, args;
            size_t idn = 0, nn = 0;
            const char *id = llm_field_str(&a, call, "id", &idn);
            if (!llm_field(&a, call, "function", &fn))
                continue;
            const char *name = llm_field_str(&a, fn, "name", &nn);
            qr_buf text;
            qr_buf_init(&text);
            if (llm_field(&a, fn, "arguments", &args) && args.t == QR_T_STR)
                qr_buf_append(&text, args.s->data, args.s->len);
            else if (llm_field(&a, fn, "arguments", &args) && !qr_is_nil(args))
                qr_print_json(&text, args, false);
            llm_reply_add_call(rep, id, idn, name, nn, text.p ? text.p : "", text.len);
            qr_buf_release(&text);
        }
    }
    if (llm_field(&a, msg, "content", &v)) {
        if (v.t == QR_T_STR)
            qr_buf_append(&rep->text, v.s->data, v.s->len);
        else if (!qr_is_nil(v)) {
            llm_reply_fail(rep, true, "the response's message content is a %s, not a string",
                           qr_type_name((qr_type)v.t));
            rc = QR_EINVAL;
            goto done;
        }
    }
    size_t sl;
    const char *stop = llm_field_str(&a, c0, "finish_reason", &sl);
    if (stop)
        set_stop(rep, stop, sl);
    if (llm_field(&a, root, "usage", &v))
        read_usage(&a, v, &rep->usage);
    rep->finished = true;
    rc = rep->text.failed ? QR_ENOMEM : QR_OK;
done:
    qr_arena_release(&a);
    return rc;
}

int llm_openai_event(const char *data, size_t n, llm_reply *rep)
{
    while (n && (data[n - 1] == ' ' || data[n - 1] == '\t'))
        n--;
    if (n == 6 && memcmp(data, "[DONE]", 6) == 0) {
        rep->finished = true;
        return QR_OK;
    }
    qr_arena a;
    qr_arena_init(&a, (size_t)LLM_MAX_BODY * 4);
    qr_val root, choices, v;
    int rc = read_json(&a, data, n, &root, rep, "stream chunk");
    if (rc != QR_OK)
        goto done;
    if (error_object(&a, root, rep)) {
        rc = QR_EIO;
        goto done;
    }
    if (llm_field(&a, root, "choices", &choices) && choices.t == QR_T_VEC &&
        qr_vec_len(choices) > 0) {
        qr_val c0 = qr_vec_at(choices, 0), delta;
        if (llm_field(&a, c0, "delta", &delta) && llm_field(&a, delta, "content", &v) &&
            v.t == QR_T_STR)
            qr_buf_append(&rep->text, v.s->data, v.s->len);
        size_t sl;
        const char *stop = llm_field_str(&a, c0, "finish_reason", &sl);
        if (stop) {
            set_stop(rep, stop, sl);
            rep->finished = true;
        }
    }
    if (llm_field(&a, root, "usage", &v))
        read_usage(&a, v, &rep->usage);
    rc = rep->text.failed ? QR_ENOMEM : QR_OK;
done:
    qr_arena_release(&a);
    return rc;
}
