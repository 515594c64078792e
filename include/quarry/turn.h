/*
 * quarry/turn.h: one way to ask a model (issue 21, part 2). The layer between `llm` and the
 * agents: every model call quarry makes (ask's agents, search_codebase, the DWIM loop,
 * memory agents, flow runs) goes through here, so the budget, the token count, the
 * repair rule and the trace are the same everywhere. An agent supplies its prompt (system
 * text and messages) and a reply checker, and nothing else.
 *
 * One model turn (qr_turn_run):
 *   1. the request's budget is checked (qr_req_may_call_model) and the turn's own cap of
 *      calls, if it has one;
 *   2. the model is called with the request's stop (a cancel ends the transfer);
 *   3. the call and its tokens are counted in the request (qr_req_spend_model; the one
 *      token formula, qr_llm_usage_tokens);
 *   4. the reply goes to the caller's checker; when it refuses, its complaint goes back to
 *      the model as a repair message (the reply as an assistant message, then the
 *      complaint as a user message), at most max_repairs times.
 * Every step is a trace event (docs/trace.md; schema docs/trace.schema.json).
 *
 * The trace (qr_trace): one writer of JSON lines, to a file or a callback, shared by a
 * whole command. Each line is one JSON object with "event", "source" and "t_ms" first.
 * Every line is scrubbed of the secrets the writer knows (the API key of every client a
 * turn used, and whatever qr_trace_add_secret added) before it is written. The writer
 * keeps the totals (calls, repairs, tokens, tool calls) that its "end" event reports.
 * A trace may be bound to a request (qr_trace_bind) so that work started under that
 * request (a tool such as search_codebase called from an `ask` program) writes to the
 * same trace without being handed it.
 *
 * Ownership: the caller owns contexts, turns and their strings for the call; a trace is
 * owned by whoever made it (qr_trace_free); a result owns its text (qr_turn_result_clear).
 * Threads: a trace may be shared by threads (its writes are serialised); a turn context's
 * client is not thread-safe (one client per thread, as qr_llm).
 *
 * Error codes: see qr_turn_call and qr_turn_run.
 */
#ifndef QUARRY_TURN_H
#define QUARRY_TURN_H

#include "quarry/llm.h"
#include "quarry/req.h"

/* ---- the trace writer ---- */

typedef struct qr_trace qr_trace;

/* A trace written to the file at path (created or truncated). NULL with one line in err
 * when the file cannot be opened ("cannot write the trace file 'x': Permission denied"). */
qr_trace *qr_trace_open(const char *path, qr_buf *err);
/* A trace handed line by line to fn (line: one JSON object, no newline). NULL: no memory. */
qr_trace *qr_trace_new(void (*fn)(void *ud, const char *line, size_t len), void *ud);
/* Closes the file (if any) and frees t. NULL is fine. */
void qr_trace_free(qr_trace *t);
/* Text never to be written: every occurrence, and every run of 8 of its characters, is
 * replaced by "[redacted]". Strings under 4 bytes are ignored. QR_OK or QR_ENOMEM. */
int qr_trace_add_secret(qr_trace *t, const char *secret);
/* Masks in b the secrets t knows, by the rule above: for any text that leaves the process
 * besides the trace (a command's output, an error, a tool result sent to a model). NULL t:
 * nothing to mask. Thread-safe. */
void qr_trace_scrub(qr_trace *t, qr_buf *b);
/* The same rule over an explicit list (for a caller without a trace). */
void qr_secrets_scrub(qr_buf *b, const char *const *secrets, size_t nsecrets);

/* Building one event: begin writes {"event":E,"source":S,"t_ms":T; the field helpers
 * append ,"key":value; emit closes the object, scrubs it, writes it as one line and
 * releases b. With t NULL, begin only initialises b and emit only releases it. */
void qr_trace_begin(const qr_trace *t, qr_buf *b, const char *event, const char *source);
void qr_trace_str(qr_buf *b, const char *key, const char *s, size_t n); /* s NULL: null */
void qr_trace_cstr(qr_buf *b, const char *key, const char *s);          /* s NULL: null */
void qr_trace_int(qr_buf *b, const char *key, int64_t v);
void qr_trace_num(qr_buf *b, const char *key, double v);
void qr_trace_bool(qr_buf *b, const char *key, bool v);
/* json must be one JSON value already. */
void qr_trace_json(qr_buf *b, const char *key, const char *json, size_t n);
/* "usage":{"input":..,"output":..,"cache_read":..,"cache_write":..,"tokens":..} */
void qr_trace_usage(qr_buf *b, const char *key, const qr_llm_usage *u);
void qr_trace_emit(qr_trace *t, qr_buf *b);

/* Writes an event another module built whole: json[0..n) must be one JSON object whose
 * first member is "event" ({"event":"log",...}); "source" and "t_ms" are inserted after
 * it, so the line has the fixed fields. For a runtime adopting this writer without
 * rebuilding its events (the flow runtime's flow_trace). QR_EINVAL (nothing written) when
 * json does not start with {"event":"...". */
int qr_trace_emit_object(qr_trace *t, const char *source, const char *json, size_t n);

/* A "tool" event: a tool call made for the model (args: its JSON, or NULL), its time, the
 * rows it returned (negative: not a list) and its error (NULL: none). Counted in the
 * totals. */
void qr_trace_tool(qr_trace *t, const char *source, const char *tool, const char *args,
                   size_t args_len, double ms, int64_t rows, const char *error);
/* The "end" event: whether the command succeeded, its error (NULL: none), and the totals
 * of every turn written to this trace. */
void qr_trace_end(qr_trace *t, const char *source, bool ok, const char *error);

/* Binds t to request r (its `trace` field) until qr_trace_unbind: qr_trace_for(r) returns
 * it. Only the thread that owns the request binds and unbinds. Returns true when it bound
 * (false: r or t NULL, or r already bound to a trace). */
bool qr_trace_bind(qr_req *r, qr_trace *t);
void qr_trace_unbind(qr_req *r);
/* The trace bound to r, or NULL. */
qr_trace *qr_trace_for(const qr_req *r);

/* ---- model turns ---- */

/* Who asks, with what: shared by every turn of one piece of work. */
typedef struct qr_turn_ctx {
    qr_llm *llm;        /* the client (borrowed) */
    qr_req *req;        /* the request: budget, stop (NULL: no limits) */
    qr_trace *trace;    /* NULL: the trace bound to req, if any */
    const char *source; /* who calls, for the trace: "ask", "dwim", "search_codebase",
                           "mem_agent", "flow" */
} qr_turn_ctx;

/* The trace a context writes to (its own, else the one bound to its request), or NULL. */
qr_trace *qr_turn_trace(const qr_turn_ctx *c);

/* One call, no checking: the budget, the request's stop, the count and the trace events
 * ("llm_request", then "llm_response"; "model_refused" when the budget refuses). r->stop
 * is replaced by the context's request's stop when it has one. agent names the caller's
 * role in the trace; repair is 0 for a first call, k for the k-th repair.
 * out is always filled in (clear it). Returns QR_OK; QR_ESTOPPED when the request refused
 * the call or was cancelled during it (out->error: "stopped: ..."); otherwise what
 * qr_llm_complete returned (QR_EIO, QR_EINVAL, QR_ENOMEM) with out->error. */
int qr_turn_call(const qr_turn_ctx *c, const char *agent, uint32_t repair,
                 const qr_llm_request *r, qr_llm_response *out);

/* One call as the turn saw it (for callers that report each call). */
typedef struct qr_turn_call_info {
    const char *agent;
    uint32_t repair; /* 0: the first call; k: the k-th repair */
    bool ok;         /* the model answered */
    qr_llm_usage usage;
    uint32_t attempts;
    int http_status;
    double ms;
} qr_turn_call_info;

/* Checks a reply. QR_OK: accepted. QR_ENOMEM or QR_ESTOPPED: the turn ends with that code
 * (nothing to repair). Any other code: refused, with the complaint in complaint (what the
 * model needs to repair its reply; it goes back in the repair message). */
typedef int (*qr_turn_check)(void *ud, const qr_llm_response *reply, qr_buf *complaint);

typedef struct qr_turn {
    const char *agent; /* the caller's role, for the trace ("architect", "linker", ...) */
    const char *system;
    size_t system_len;
    size_t shared_len; /* see qr_llm_request */
    const qr_llm_message *messages; /* the conversation so far; the first is "user" */
    size_t nmessages;
    const char *tools; /* JSON tool definitions (qr_llm_request), or NULL */
    size_t tools_len;
    uint32_t max_tokens;  /* 0: the client's */
    uint32_t max_repairs; /* repair turns allowed after the first reply */
    uint32_t max_calls;   /* this turn's own cap on calls (0: none beyond the request's) */
    qr_turn_check check;  /* NULL: every reply with text is accepted */
    void *check_ud;
    /* the repair message is before + complaint + after (NULL: "Your reply could not be
     * used: " and "\nReply again with the corrected reply only, in the same form.") */
    const char *repair_before, *repair_after;
    /* told of each call as it ends (NULL: not told) */
    void (*on_call)(void *ud, const qr_turn_call_info *call);
    void *on_call_ud;
} qr_turn;

typedef struct qr_turn_result {
    uint32_t calls;     /* model calls made */
    uint32_t repairs;   /* repair turns among them */
    qr_llm_usage usage; /* summed over the calls */
    uint64_t tokens;    /* qr_llm_usage_tokens summed */
    double ms;          /* the calls' wall time, summed */
    char *text;         /* the accepted reply, or the last one refused (malloc); or NULL */
    size_t len;
    qr_buf complaint;   /* the checker's last complaint ("" when none) */
    char error[600];    /* one line when the turn failed */
} qr_turn_result;

/* Runs one turn: call, check, repair (see the top of this file). out is always filled in
 * (clear it). Returns QR_OK (out->text is the accepted reply); QR_ESTOPPED (the request's
 * budget, deadline or cancel; out->error says which); QR_ELIMIT (t->max_calls reached
 * before the turn was done); QR_EIO (the model failed, or sent no text; out->error);
 * QR_EINVAL (still refused after max_repairs repairs: out->complaint has the last
 * complaint, out->error says so in one line); QR_ENOMEM; or QR_ESTOPPED/QR_ENOMEM from
 * the checker. */
int qr_turn_run(const qr_turn_ctx *c, const qr_turn *t, qr_turn_result *out);
void qr_turn_result_clear(qr_turn_result *r);

#endif
