/*
 * turn.c: one model turn (quarry/turn.h). qr_turn_call is the single place quarry calls a
 * model: it asks the request whether a call may be made, passes the request's stop to the
 * client (a cancel ends the transfer; each attempt waits at most the time left), counts
 * the call and its tokens in the request with the one token formula, and writes the
 * "llm_request" and "llm_response" trace events. qr_turn_run adds the rule every agent
 * shared in its own copy before: check the reply, and when the checker refuses, send the
 * reply back as an assistant message followed by the complaint as a user message, at most
 * max_repairs times. The conversation grows by those two messages per repair; the first
 * messages and the system text (the cached prefix) are never changed.
 *
 * Rejected: a callback-per-agent "prompt builder" object (every caller already has its
 * messages in hand; a pointer and a count are the narrowest contract), and letting the
 * checker rewrite the conversation (repairs would stop being comparable across agents).
 */
#include "quarry/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qr__trace_count_call(qr_trace *t, uint32_t repair, bool ok, const qr_llm_usage *u);

qr_trace *qr_turn_trace(const qr_turn_ctx *c)
{
    if (!c)
        return NULL;
    return c->trace ? c->trace : qr_trace_for(c->req);
}

static void trace_request(qr_trace *tr, const qr_turn_ctx *c, const char *agent,
                          uint32_t repair, const qr_llm_request *r)
{
    qr_buf b;
    qr_trace_begin(tr, &b, "llm_request", c->source);
    qr_trace_cstr(&b, "agent", agent);
    qr_trace_int(&b, "repair", repair);
    qr_trace_str(&b, "system", r->system ? r->system : "", r->system ? r->system_len : 0);
    qr_buf_puts(&b, ",\"messages\":[");
    for (size_t i = 0; i < r->nmessages; i++) {
        const qr_llm_message *m = &r->messages[i];
        qr_buf_puts(&b, i ? ",{\"role\":" : "{\"role\":");
        qr_buf_json_string(&b, m->role, strlen(m->role));
        qr_buf_puts(&b, ",\"content\":");
        qr_buf_json_string(&b, m->content ? m->content : "", m->content ? m->len : 0);
        if (m->tool_calls)
            qr_trace_json(&b, "tool_calls", m->tool_calls, m->tool_calls_len);
        if (m->tool_call_id)
            qr_trace_cstr(&b, "tool_call_id", m->tool_call_id);
        qr_buf_putc(&b, '}');
    }
    qr_buf_putc(&b, ']');
    if (r->tools)
        qr_trace_bool(&b, "tools", true);
    qr_trace_emit(tr, &b);
}

static void trace_response(qr_trace *tr, const qr_turn_ctx *c, const char *agent,
                           uint32_t repair, int rc, const qr_llm_response *o)
{
    qr_buf b;
    qr_trace_begin(tr, &b, "llm_response", c->source);
    qr_trace_cstr(&b, "agent", agent);
    qr_trace_int(&b, "repair", repair);
    qr_trace_str(&b, "text", o->text, o->len);
    if (o->tool_calls)
        qr_trace_json(&b, "tool_calls", o->tool_calls, o->tool_calls_len);
    qr_trace_usage(&b, "usage", &o->usage);
    qr_trace_int(&b, "attempts", o->attempts);
    qr_trace_int(&b, "http_status", o->http_status);
    qr_trace_num(&b, "ms", o->ms);
    if (o->stop_reason)
        qr_trace_cstr(&b, "stop_reason", o->stop_reason);
    if (rc != QR_OK)
        qr_trace_cstr(&b, "error", o->error[0] ? o->error : "the model call failed");
    qr_trace_emit(tr, &b);
}

int qr_turn_call(const qr_turn_ctx *c, const char *agent, uint32_t repair,
                 const qr_llm_request *r, qr_llm_response *out)
{
    memset(out, 0, sizeof *out);
    qr_trace *tr = qr_turn_trace(c);
    if (!c->llm) {
        snprintf(out->error, sizeof out->error, "no model is configured");
        return QR_EINVAL;
    }
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_req_may_call_model(c->req, &err);
    if (rc != QR_OK) {
        snprintf(out->error, sizeof out->error, "%s", err.p ? err.p : "stopped");
        qr_buf_release(&err);
        if (tr) {
            qr_buf b;
            qr_trace_begin(tr, &b, "model_refused", c->source);
            qr_trace_cstr(&b, "agent", agent);
            qr_trace_int(&b, "repair", repair);
            qr_trace_cstr(&b, "error", out->error);
            qr_trace_emit(tr, &b);
        }
        return QR_ESTOPPED;
    }
    qr_buf_release(&err);
    if (tr) {
        if (qr_trace_add_secret(tr, qr_llm_api_key(c->llm)) != QR_OK) {
            snprintf(out->error, sizeof out->error, "out of memory");
            return QR_ENOMEM; /* the key could not be masked: write nothing */
        }
        trace_request(tr, c, agent, repair, r);
    }
    qr_llm_request q = *r;
    if (c->req)
        q.stop = &c->req->stop;
    rc = qr_llm_complete(c->llm, &q, out);
    qr_req_spend_model(c->req, qr_llm_usage_tokens(&out->usage));
    if (tr) {
        trace_response(tr, c, agent, repair, rc, out);
        qr__trace_count_call(tr, repair, rc == QR_OK, &out->usage);
    }
    return rc;
}

/* ---- the turn ---- */

static void one_line(char *dst, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++)
        dst[k++] = s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
    dst[k] = 0;
}

static void add_usage(qr_llm_usage *sum, const qr_llm_usage *u)
{
    sum->input += u->input;
    sum->output += u->output;
    sum->cache_read += u->cache_read;
    sum->cache_write += u->cache_write;
}

int qr_turn_run(const qr_turn_ctx *c, const qr_turn *t, qr_turn_result *out)
{
    memset(out, 0, sizeof *out);
    qr_buf_init(&out->complaint);
    qr_trace *tr = qr_turn_trace(c);
    size_t cap = t->nmessages + 2 * (size_t)t->max_repairs;
    qr_llm_message *msgs = calloc(cap ? cap : 1, sizeof *msgs);
    char **owned = calloc(2 * (size_t)t->max_repairs + 1, sizeof *owned);
    size_t nowned = 0;
    if (!msgs || !owned) {
        free(msgs);
        free(owned);
        snprintf(out->error, sizeof out->error, "out of memory");
        return QR_ENOMEM;
    }
    memcpy(msgs, t->messages, t->nmessages * sizeof *msgs);
    size_t n = t->nmessages;
    const char *before = t->repair_before ? t->repair_before : "Your reply could not be used: ";
    const char *after = t->repair_after
                            ? t->repair_after
                            : "\nReply again with the corrected reply only, in the same form.";
    int rc = QR_OK;
    for (uint32_t repair = 0;; repair++) {
        if (t->max_calls && out->calls >= t->max_calls) {
            snprintf(out->error, sizeof out->error,
                     "the budget of %u model calls is spent before the %s could %s",
                     t->max_calls, t->agent, repair ? "repair its reply" : "answer");
            rc = QR_ELIMIT;
            break;
        }
        qr_llm_request q = {.system = t->system,
                            .system_len = t->system_len,
                            .shared_len = t->shared_len,
                            .messages = msgs,
                            .nmessages = n,
                            .tools = t->tools,
                            .tools_len = t->tools_len,
                            .max_tokens = t->max_tokens};
        qr_llm_response resp;
        rc = qr_turn_call(c, t->agent, repair, &q, &resp);
        if (rc == QR_ESTOPPED && !resp.attempts) {
            /* refused before the call: nothing was spent */
            snprintf(out->error, sizeof out->error, "%s", resp.error);
            qr_llm_response_clear(&resp);
            break;
        }
        out->calls++;
        out->repairs += repair ? 1 : 0;
        add_usage(&out->usage, &resp.usage);
        out->tokens += qr_llm_usage_tokens(&resp.usage);
        out->ms += resp.ms;
        if (t->on_call) {
            qr_turn_call_info ci = {.agent = t->agent,
                                    .repair = repair,
                                    .ok = rc == QR_OK,
                                    .usage = resp.usage,
                                    .attempts = resp.attempts,
                                    .http_status = resp.http_status,
                                    .ms = resp.ms};
            t->on_call(t->on_call_ud, &ci);
        }
        if (rc == QR_OK && !resp.text && !resp.tool_calls) {
            snprintf(resp.error, sizeof resp.error, "the model sent no text");
            rc = QR_EIO;
        }
        if (rc != QR_OK) {
            snprintf(out->error, sizeof out->error, "%s",
                     resp.error[0] ? resp.error : "the model call failed");
            if (rc != QR_ENOMEM && rc != QR_ESTOPPED)
                rc = QR_EIO;
            qr_llm_response_clear(&resp);
            break;
        }
        free(out->text);
        out->text = resp.text;
        out->len = resp.len;
        qr_buf_reset(&out->complaint);
        int crc = t->check ? t->check(t->check_ud, &resp, &out->complaint) : QR_OK;
        resp.text = NULL;
        if (crc == QR_OK || crc == QR_ENOMEM || crc == QR_ESTOPPED) {
            if (crc != QR_OK)
                snprintf(out->error, sizeof out->error, "%s",
                         crc == QR_ENOMEM ? "out of memory"
                                          : (out->complaint.p ? out->complaint.p : "stopped"));
            qr_llm_response_clear(&resp);
            rc = crc;
            break;
        }
        if (tr) {
            qr_buf b;
            qr_trace_begin(tr, &b, "invalid_reply", c->source);
            qr_trace_cstr(&b, "agent", t->agent);
            qr_trace_int(&b, "repair", repair);
            qr_trace_str(&b, "error", out->complaint.p ? out->complaint.p : "",
                         out->complaint.len);
            qr_trace_emit(tr, &b);
        }
        if (repair >= t->max_repairs) {
            char line[400];
            one_line(line, sizeof line, out->complaint.p ? out->complaint.p : "",
                     out->complaint.len);
            snprintf(out->error, sizeof out->error,
                     "the %s's reply was still unusable after %u repair turn%s: %s", t->agent,
                     t->max_repairs, t->max_repairs == 1 ? "" : "s", line);
            qr_llm_response_clear(&resp);
            rc = QR_EINVAL;
            break;
        }
        /* the repair: the reply, then the complaint */
        qr_buf m;
        qr_buf_init(&m);
        qr_buf_puts(&m, before);
        qr_buf_append(&m, out->complaint.p ? out->complaint.p : "", out->complaint.len);
        qr_buf_puts(&m, after);
        char *reply = malloc(out->len + 1);
        if (!reply || !m.p) {
            free(reply);
            qr_buf_release(&m);
            qr_llm_response_clear(&resp);
            snprintf(out->error, sizeof out->error, "out of memory");
            rc = QR_ENOMEM;
            break;
        }
        if (out->len)
            memcpy(reply, out->text, out->len);
        reply[out->len] = 0;
        size_t mlen = m.len;
        char *mtext = qr_buf_detach(&m, NULL);
        owned[nowned++] = reply;
        owned[nowned++] = mtext;
        msgs[n++] = (qr_llm_message){.role = "assistant", .content = reply, .len = out->len};
        msgs[n++] = (qr_llm_message){.role = "user", .content = mtext, .len = mlen};
        qr_llm_response_clear(&resp);
    }
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    free(msgs);
    return rc;
}

void qr_turn_result_clear(qr_turn_result *r)
{
    free(r->text);
    qr_buf_release(&r->complaint);
    memset(r, 0, sizeof *r);
}
