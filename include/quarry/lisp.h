/*
 * quarry/lisp.h: the sandboxed PTC-Lisp interpreter's embedding API.
 *
 * A session holds the definitions (`def`) that persist across the programs run in it,
 * the request context (`data/NAME`), and the tool hook (`(tool/NAME {...})`). Each run
 * reads, analyzes and evaluates one program under hard limits (time, memory, steps,
 * depth, output, regex backtracking) that the program cannot catch. A run that fails
 * leaves the session's definitions as they were.
 *
 * Ownership: the session owns its arena; values in a result (and the data map) live in
 * it and stay valid until the next run or qr_lisp_session_free. Strings in a result are
 * owned by the result and freed by qr_lisp_result_clear.
 */
#ifndef QUARRY_LISP_H
#define QUARRY_LISP_H

#include "quarry/req.h"
#include "quarry/value.h"

typedef struct qr_lisp_limits {
    uint64_t timeout_ms;   /* wall time, tools included; default 10000 */
    size_t max_memory;     /* bytes allocated by one run; default 64 MiB */
    uint64_t max_steps;    /* function calls plus loop iterations; default 100 million */
    uint32_t max_depth;    /* nested calls; default 10000 (also bounded by stack_bytes) */
    size_t stack_bytes;    /* C stack a run may use; default 4 MiB */
    size_t max_output;     /* bytes of println output kept; default 64 KiB (then cut) */
    uint32_t regex_match_limit; /* PCRE2 match limit; default 1,000,000 */
} qr_lisp_limits;

void qr_lisp_limits_default(qr_lisp_limits *l);

typedef enum qr_lisp_errkind {
    QR_LE_NONE = 0,
    QR_LE_PARSE,      /* parse-error */
    QR_LE_TYPE,       /* type-error */
    QR_LE_ARITY,      /* arity-error */
    QR_LE_UNBOUND,    /* unbound-symbol */
    QR_LE_ARITH,      /* arithmetic-error */
    QR_LE_INDEX,      /* index-error */
    QR_LE_TOOL,       /* tool-error */
    QR_LE_FAIL,       /* fail: (fail v) */
    QR_LE_TIMEOUT,    /* timeout */
    QR_LE_MEMORY,     /* memory-exceeded */
    QR_LE_STEPS,      /* step-limit */
    QR_LE_DEPTH,      /* depth-limit */
    QR_LE_REGEX,      /* regex-limit */
    QR_LE_INTERRUPT,  /* interrupted: qr_lisp_interrupt was called */
    QR_LE_THROW,      /* exception: (throw (ex-info ...)) that no catch caught */
} qr_lisp_errkind;

/* "type-error", "timeout", ... */
const char *qr_lisp_errkind_name(qr_lisp_errkind k);

typedef struct qr_lisp_result {
    qr_val value;          /* the program's value (or (return v)); nil on failure */
    qr_lisp_errkind kind;  /* QR_LE_NONE on success */
    char message[600];     /* one line: what failed, expected, found, hint */
    uint32_t line, col;    /* where, when known (0 otherwise) */
    qr_val fail_value;     /* the argument of (fail v) */
    char *output;          /* captured println output (malloc'd, NUL-terminated) */
    size_t output_len;
    bool output_truncated;
    uint64_t steps;
    size_t memory;         /* bytes allocated by the run */
    double read_ms, eval_ms;
} qr_lisp_result;

void qr_lisp_result_clear(qr_lisp_result *r);

/* The tool hook: called for (tool/NAME args). args is a map (or nil); req is the run's
 * request (qr_lisp_set_req, or one the run made with no limits beyond the program's own
 * deadline), never NULL: the tool's loops stop at the program's deadline and at a cancel.
 * On success store the result (allocated from `a`) in *out and return QR_OK; on failure
 * write a one-line message into err and return a negative code: QR_EINVAL for an unknown
 * tool or bad arguments, QR_ESTOPPED when the request stopped it, anything else for a
 * failure of the tool itself. */
typedef int (*qr_lisp_tool_fn)(void *ud, qr_req *req, const char *name, qr_val args,
                               qr_arena *a, qr_val *out, qr_buf *err);

typedef struct qr_lisp_session qr_lisp_session;

/* Returns NULL when out of memory. limits may be NULL for the defaults. */
qr_lisp_session *qr_lisp_session_new(const qr_lisp_limits *limits);
void qr_lisp_session_free(qr_lisp_session *s);
qr_lisp_limits *qr_lisp_session_limits(qr_lisp_session *s);
/* The arena values given to the session (the data map) must be built in. */
qr_arena *qr_lisp_session_arena(qr_lisp_session *s);
/* A second arena that lives as long as the session, for the text of large data (see
 * qr_json_read_split): values built in either may be given to the session. */
qr_arena *qr_lisp_session_text_arena(qr_lisp_session *s);
/* data must be a map (keys keywords or strings) allocated from the session's arenas. */
void qr_lisp_set_data(qr_lisp_session *s, qr_val data);
void qr_lisp_set_tools(qr_lisp_session *s, qr_lisp_tool_fn fn, void *ud);
/* Runs the session's programs for request req (NULL: none; the caller keeps it alive while
 * runs use it). A run's limits become the smaller of the session's own and what the
 * request has left: its deadline, its steps (a run spends its steps from the request),
 * its memory budget. A cancel of the request stops a run as qr_lisp_interrupt does. */
void qr_lisp_set_req(qr_lisp_session *s, qr_req *req);
/* Seeds the generator of rand, rand-int, rand-nth, shuffle and random-sample: the same
 * seed and the same programs give the same numbers. A new session's seed is 1. */
void qr_lisp_set_seed(qr_lisp_session *s, uint64_t seed);

/* Runs a program. Returns QR_OK, QR_EINVAL (the program could not be read or analyzed;
 * kind is parse-error, unbound-symbol, arity-error...), or QR_ERUNTIME (it ran and failed,
 * limits included). res is always filled in; clear it with qr_lisp_result_clear. */
int qr_lisp_run(qr_lisp_session *s, const char *src, size_t n, qr_lisp_result *res);

/* Calls the builtin function `name` (as a program names it: "count", "clojure.string/join")
 * on argv, as the call (name argv...) would run: the same semantics and error messages,
 * under the session's limits (time, steps, depth, memory, interrupt). Values are
 * allocated in arena a (NULL: the session's arena); the memory limit counts from a's use
 * when the call starts, and a's own cap (when smaller) still holds, so a host can share
 * one budget among its calls. res->value (ranges realised as lists) lives in a.
 * Returns QR_OK; QR_EINVAL when no builtin has that name (kind unbound-symbol) or argc
 * is outside its arity (arity-error); QR_ERUNTIME when the call failed (res->kind and
 * res->message as for qr_lisp_run), in which case what it allocated in a is given back
 * and a's flags are as they were. One call at a time per session (not thread-safe);
 * qr_lisp_interrupt stops a call in progress. Clear res with qr_lisp_result_clear. */
int qr_lisp_call(qr_lisp_session *s, qr_arena *a, const char *name, int argc,
                 const qr_val *argv, qr_lisp_result *res);

/* Asks the run in progress on s to stop by cancelling its request (the one set with
 * qr_lisp_set_req, which stays cancelled, or else the session's own, which serves one run):
 * it fails with `interrupted` at its next check (every 1024 evaluation steps, as often
 * inside printing, equality, hashing and sorting, and after every tool call; the tools it
 * calls see the same request), leaving the session as it was, as any failed run does. Safe
 * to call from another thread or a signal handler (atomic stores). Made while no run is in
 * progress, it stops the next run at its first check. */
void qr_lisp_interrupt(qr_lisp_session *s);

/* Names of every builtin function and special form, for help and completion: calls fn
 * for each with its name, argument list and docstring. */
void qr_lisp_each_builtin(void (*fn)(void *ud, const char *name, const char *args,
                                     const char *doc),
                          void *ud);

#endif
