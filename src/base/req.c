/*
 * req.c: the request object every surface makes for one piece of work and every engine
 * checks (see quarry/req.h): one deadline, one set of budgets, one stop.
 *
 * Design: the request embeds the qr_stop that stop-only loops already check, and a spent
 * budget is recorded there too (its `requested` field holds the reason), so a git walk
 * that sees only &req->stop stops for a spent step budget exactly as for a cancel, and
 * describes it rightly. Counters are atomics: parallel statements of one flow share one
 * request. Rejected: a callback per check (a function call on every Lisp tick), and a
 * budget per engine (the thing this replaces: five ways to stop, none reaching all).
 */
#include "quarry/req.h"

#include <stdatomic.h>

void qr_req_init(qr_req *r, const qr_budget *b)
{
    qr_budget none = {0};
    r->budget = b ? *b : none;
    qr_stop_init(&r->stop, r->budget.time_ms);
    r->start_ns = qr_clock_ns();
    atomic_init(&r->steps, 0);
    atomic_init(&r->tokens, 0);
    atomic_init(&r->model_calls, 0);
    atomic_init(&r->reason, QR_REQ_RUNNING);
    r->trace = NULL;
}

/* Records why the request stopped (the first reason wins) and raises the stop flag. */
static void stop_for(qr_req *r, qr_req_reason why)
{
    int expect = QR_REQ_RUNNING;
    atomic_compare_exchange_strong(&r->reason, &expect, (int)why);
    int zero = 0;
    atomic_compare_exchange_strong(&r->stop.requested, &zero, (int)why);
}

void qr_req_cancel(qr_req *r)
{
    if (r)
        stop_for(r, QR_REQ_CANCELLED);
}

bool qr_req_stopped(qr_req *r)
{
    if (!r)
        return false;
    int why = atomic_load_explicit(&r->stop.requested, memory_order_relaxed);
    if (why) {
        if (atomic_load_explicit(&r->reason, memory_order_relaxed) == QR_REQ_RUNNING)
            stop_for(r, why == 1 ? QR_REQ_CANCELLED : (qr_req_reason)why);
        return true;
    }
    /* a deadline is not recorded as the reason: a narrowed one (a program's own limit)
     * is lifted again when the program ends, and the request runs on */
    return r->stop.deadline_ns && qr_clock_ns() > r->stop.deadline_ns;
}

qr_req_reason qr_req_why(const qr_req *r)
{
    if (!r)
        return QR_REQ_RUNNING;
    int why = atomic_load(&((qr_req *)r)->reason);
    if (why == QR_REQ_RUNNING && r->stop.deadline_ns && qr_clock_ns() > r->stop.deadline_ns)
        return QR_REQ_TIME;
    return (qr_req_reason)why;
}

void qr_req_describe(const qr_req *r, qr_buf *b)
{
    switch (qr_req_why(r)) {
    case QR_REQ_STEPS:
        qr_buf_printf(b, "step budget of %llu steps spent",
                      (unsigned long long)r->budget.steps);
        return;
    case QR_REQ_MODEL_CALLS:
        qr_buf_printf(b, "model-call budget of %u calls spent", r->budget.model_calls);
        return;
    case QR_REQ_TOKENS:
        qr_buf_printf(b, "token budget of %llu tokens spent",
                      (unsigned long long)r->budget.tokens);
        return;
    default: qr_stop_describe(r ? &r->stop : NULL, b);
    }
}

int qr_req_fail(const qr_req *r, qr_buf *err)
{
    qr_buf_puts(err, "stopped: ");
    qr_req_describe(r, err);
    return QR_ESTOPPED;
}

int qr_req_spend_steps(qr_req *r, uint64_t n)
{
    if (!r)
        return QR_OK;
    uint64_t used = atomic_fetch_add(&r->steps, n) + n;
    if (r->budget.steps && used > r->budget.steps)
        stop_for(r, QR_REQ_STEPS);
    return qr_req_stopped(r) ? QR_ESTOPPED : QR_OK;
}

uint64_t qr_req_steps_left(const qr_req *r)
{
    if (!r || !r->budget.steps)
        return UINT64_MAX;
    uint64_t used = atomic_load(&((qr_req *)r)->steps);
    return used >= r->budget.steps ? 0 : r->budget.steps - used;
}

uint64_t qr_req_ms_left(const qr_req *r)
{
    if (!r || !r->stop.deadline_ns)
        return UINT64_MAX;
    uint64_t now = qr_clock_ns();
    return now >= r->stop.deadline_ns ? 0 : (r->stop.deadline_ns - now) / 1000000ull;
}

size_t qr_req_memory_cap(const qr_req *r, size_t own)
{
    size_t mine = r ? r->budget.memory : 0;
    if (!mine)
        return own;
    if (!own)
        return mine;
    return mine < own ? mine : own;
}

int qr_req_may_call_model(qr_req *r, qr_buf *err)
{
    if (!r)
        return QR_OK;
    if (r->budget.tokens && atomic_load(&r->tokens) >= r->budget.tokens)
        stop_for(r, QR_REQ_TOKENS);
    if (qr_req_stopped(r))
        return qr_req_fail(r, err);
    /* the call is counted here, reserved with a compare-and-swap, so parallel work sharing
     * the request never makes more calls than its budget */
    uint32_t n = atomic_load(&r->model_calls);
    do {
        if (r->budget.model_calls && n >= r->budget.model_calls) {
            stop_for(r, QR_REQ_MODEL_CALLS);
            return qr_req_fail(r, err);
        }
    } while (!atomic_compare_exchange_weak(&r->model_calls, &n, n + 1));
    return QR_OK;
}

void qr_req_spend_model(qr_req *r, uint64_t tokens)
{
    if (r)
        atomic_fetch_add(&r->tokens, tokens);
}

void qr_req_rearm(qr_req *r)
{
    atomic_store(&r->reason, QR_REQ_RUNNING);
    atomic_store(&r->stop.requested, 0);
}

qr_req_saved qr_req_narrow(qr_req *r, uint64_t ms)
{
    qr_req_saved s = {r->stop.deadline_ns, r->stop.limit_ms};
    if (!ms)
        return s;
    uint64_t now = qr_clock_ns();
    uint64_t add = ms <= UINT64_MAX / 1000000ull ? ms * 1000000ull : UINT64_MAX;
    uint64_t d = add <= UINT64_MAX - now ? now + add : 0;
    if (d && (!r->stop.deadline_ns || d < r->stop.deadline_ns)) {
        r->stop.deadline_ns = d;
        r->stop.limit_ms = ms;
    }
    return s;
}

void qr_req_restore(qr_req *r, qr_req_saved s)
{
    r->stop.deadline_ns = s.deadline_ns;
    r->stop.limit_ms = s.limit_ms;
}
