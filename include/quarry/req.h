/*
 * quarry/req.h: one request, one budget, one stop.
 *
 * Every surface makes one qr_req for each piece of work a user or a client asked for (a
 * CLI command, an MCP tools/call, a flow run, an `ask`, a memory agent run) and passes it
 * to every tool it calls (qr_tools_invoke) and every engine those tools run. Each
 * engine's loop checks the same object at its natural tick (Lisp steps, SPARQL rows,
 * pipeline stages, graph walks, git walks, indexer batches, flow statements, model
 * turns), so a cancel, a deadline or a spent budget stops all of it the same way.
 * Cancel and timeout are one concept: both end the work with QR_ESTOPPED and a message
 * from qr_req_describe.
 *
 * The request embeds a qr_stop as its first member: code below that only needs "should I
 * stop?" takes a `const qr_stop *` (&req->stop), and a NULL qr_stop never stops.
 *
 * Threads: qr_req_cancel may be called from any thread or a signal handler; the spend
 * functions are atomic, so parallel work (a flow's parallel statements) may share one
 * request. Deadlines are changed only by the thread that owns the work
 * (qr_req_narrow/qr_req_restore).
 *
 * Ownership: the caller owns the request (usually on its stack); it holds no pointers.
 */
#ifndef QUARRY_REQ_H
#define QUARRY_REQ_H

#include "quarry/base.h"

/* What one request may spend. 0 means "no limit" for each field. */
typedef struct qr_budget {
    uint64_t time_ms;     /* wall time from qr_req_init */
    uint64_t steps;       /* evaluation steps: Lisp steps, rows, links, statements */
    size_t memory;        /* bytes one run may allocate (Lisp arena, flow values, scratch) */
    size_t output;        /* bytes of printed output kept */
    uint32_t model_calls; /* calls to a language model */
    uint64_t tokens;      /* prompt plus completion tokens */
} qr_budget;

/* Why a request stopped; the first reason wins and is kept. */
typedef enum qr_req_reason {
    QR_REQ_RUNNING = 0,
    QR_REQ_CANCELLED,   /* qr_req_cancel (a client's cancel, Ctrl-C) */
    QR_REQ_TIME,        /* the deadline passed */
    QR_REQ_STEPS,       /* the step budget is spent */
    QR_REQ_MODEL_CALLS, /* the model-call budget is spent */
    QR_REQ_TOKENS,      /* the token budget is spent */
} qr_req_reason;

typedef struct qr_req {
    qr_stop stop; /* first: &req->stop is what stop-only code takes */
    qr_budget budget;
    uint64_t start_ns;
    _Atomic uint64_t steps;       /* spent so far */
    _Atomic uint64_t tokens;      /* spent so far */
    _Atomic uint32_t model_calls; /* made so far */
    _Atomic int reason;           /* qr_req_reason; QR_REQ_RUNNING until stopped */
    void *trace; /* the trace the work writes to (a qr_trace, quarry/turn.h), or NULL */
} qr_req;

/* Starts a request with budget b (NULL: no limits); its deadline is b->time_ms from now. */
void qr_req_init(qr_req *r, const qr_budget *b);
/* Stops the request (any thread, signal handlers included). */
void qr_req_cancel(qr_req *r);
/* True when the work should stop: cancelled, past its deadline, or a budget spent. Records
 * the first reason. r may be NULL (never stops). Cheap: an atomic load and, when a
 * deadline is set, a clock read. */
bool qr_req_stopped(qr_req *r);
/* Why it stopped (QR_REQ_RUNNING while it runs). */
qr_req_reason qr_req_why(const qr_req *r);
/* Appends one lowercase phrase saying why the work stopped: "cancelled", "time limit of
 * 5000 ms reached", "step budget of 1000 steps spent", ... */
void qr_req_describe(const qr_req *r, qr_buf *b);
/* Appends "stopped: " and qr_req_describe's phrase, and returns QR_ESTOPPED: the one line
 * every engine writes when it stops for the request. */
int qr_req_fail(const qr_req *r, qr_buf *err);

/* Spends n steps. QR_OK, or QR_ESTOPPED when the request is (now) stopped. r may be NULL. */
int qr_req_spend_steps(qr_req *r, uint64_t n);
/* Steps left (UINT64_MAX without a step budget; 0 when spent). */
uint64_t qr_req_steps_left(const qr_req *r);
/* Milliseconds left before the deadline (UINT64_MAX without one; 0 when passed). */
uint64_t qr_req_ms_left(const qr_req *r);
/* The memory a run may allocate: the smaller of own (0: none) and the request's budget;
 * 0 when neither sets one. */
size_t qr_req_memory_cap(const qr_req *r, size_t own);

/* Before a model call: counts the call and returns QR_OK, or QR_ESTOPPED (with the message
 * in err) when the request is stopped or its model calls or tokens are spent. The count is
 * reserved atomically: threads sharing a request never exceed its model-call budget. */
int qr_req_may_call_model(qr_req *r, qr_buf *err);
/* After a model call: counts the tokens it spent. */
void qr_req_spend_model(qr_req *r, uint64_t tokens);
/* Clears a stop (cancel or spent budget) so the request runs again, counters kept: for a
 * request that serves one run after another (a Lisp session's own). Safe against a
 * concurrent qr_req_cancel (atomic stores; a cancel racing the clear may be lost). */
void qr_req_rearm(qr_req *r);

/* Narrows the deadline to at most ms from now (a program's own time limit inside a longer
 * request) and returns what to give qr_req_restore to undo it. Only the thread doing the
 * work may call these. */
typedef struct qr_req_saved {
    uint64_t deadline_ns, limit_ms;
} qr_req_saved;
qr_req_saved qr_req_narrow(qr_req *r, uint64_t ms);
void qr_req_restore(qr_req *r, qr_req_saved s);

#endif
