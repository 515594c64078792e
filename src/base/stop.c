/*
 * stop.c: the monotonic clock and qr_stop, the request to stop long work that a host
 * shares with the loops it runs (see quarry/base.h).
 *
 * Design: one atomic flag and a deadline in a small struct the host owns, rather than a
 * callback: a loop checks it with a load and, only when a deadline is set, a clock read;
 * another thread stops the work with one atomic store, which is also safe in a signal
 * handler. Rejected: a global "stop everything" flag (one MCP server runs several calls
 * at once, and cancelling one must leave the others running); signals to the worker
 * thread (they interrupt system calls the libraries below do not all retry).
 */
#include "quarry/base.h"

#include <stdatomic.h>
#include <time.h>

uint64_t qr_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void qr_stop_init(qr_stop *s, uint64_t timeout_ms)
{
    atomic_init(&s->requested, 0);
    qr_stop_set_deadline(s, timeout_ms);
}

void qr_stop_set_deadline(qr_stop *s, uint64_t timeout_ms)
{
    s->limit_ms = timeout_ms;
    s->deadline_ns = 0;
    if (timeout_ms) {
        uint64_t now = qr_clock_ns(), add = timeout_ms * 1000000ull;
        /* a limit too large to add is no limit */
        s->deadline_ns = timeout_ms <= UINT64_MAX / 1000000ull && add <= UINT64_MAX - now
                             ? now + add
                             : 0;
    }
}

void qr_stop_request(qr_stop *s)
{
    atomic_store(&s->requested, 1);
}

bool qr_stop_check(const qr_stop *s)
{
    if (!s)
        return false;
    if (atomic_load_explicit(&((qr_stop *)s)->requested, memory_order_relaxed))
        return true;
    return s->deadline_ns && qr_clock_ns() > s->deadline_ns;
}

void qr_stop_describe(const qr_stop *s, qr_buf *b)
{
    /* requested holds a qr_req_reason when the stop belongs to a request (quarry/req.h):
     * 1 is a cancel, 3 and above a spent budget */
    int why = s ? atomic_load(&((qr_stop *)s)->requested) : 0;
    if (why >= 3)
        qr_buf_puts(b, why == 3 ? "step budget spent"
                       : why == 4 ? "model-call budget spent"
                                  : "token budget spent");
    else if (why)
        qr_buf_puts(b, "cancelled");
    else if (s)
        qr_buf_printf(b, "time limit of %llu ms reached", (unsigned long long)s->limit_ms);
    else
        qr_buf_puts(b, "stopped");
}

int qr_stop_fail(const qr_stop *s, qr_buf *err)
{
    qr_buf_puts(err, "stopped: ");
    qr_stop_describe(s, err);
    return QR_ESTOPPED;
}
