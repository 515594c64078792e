/*
 * quarry/ask.h: `quarry ask`, the cost ladder of seed 000 (docs/ask.md). A question in
 * plain words is answered by the cheapest tier that can:
 *
 *   tier 1  the deterministic router (quarry/router.h) emits a query: no model call;
 *   tier 2  the Architect (1 call) writes a query in the DSL, compiled deterministically;
 *   tier 3  the Architect writes an intent, the Compiler (1 call) writes the Lisp;
 *   tier 4  the Architect writes a plan; per step a Fetcher (1 call) writes a fetch query
 *           and an Evaluator (1 call, no tools) transforms the data and decides: :done,
 *           :advance (with a result that later steps read as {{resolved:key}}), :fetch
 *           (with hints, the Fetcher tries again) or :revise (new remaining steps).
 *
 * Every prompt starts with the same stable prefix for its agent (role, tool summary, DSL
 * reference: byte-identical across calls, so providers cache it) and every request holds
 * the original question (the north star). Model output that does not parse, does not
 * validate or fails when run earns one repair turn that carries the structured error;
 * after that the run fails with what it had. The total number of model calls never
 * exceeds max_calls.
 *
 * Ownership: the caller owns the options and everything they point to (registry, client),
 * which must outlive the call. A result owns its strings (malloc) and the Lisp session
 * whose arena holds the answer; free with qr_ask_result_clear.
 *
 * Error codes: QR_OK (an answer); QR_EINVAL when the question cannot be answered without
 * a model and none is configured (error says how to configure one), or is empty;
 * QR_ERUNTIME when the run failed (model unreachable or answering garbage, output still
 * invalid after the repair, a query failing when run); QR_ELIMIT when the budget of model
 * calls was spent first; QR_ESTOPPED when the request (opts.req) was cancelled, passed its
 * deadline or spent its model calls or tokens. In each, error says why and the partial
 * state (resolved values) is kept in the result. QR_ENOMEM.
 *
 * Every model call goes through the turn module (quarry/turn.h): one budget, one token
 * count, one repair rule (max_repairs 1) and the common trace events.
 *
 * A "model call" is one request the agents make; the client's retries of that request
 * (on 429, 5xx, a dropped connection: answers a provider does not bill) are not counted.
 */
#ifndef QUARRY_ASK_H
#define QUARRY_ASK_H

#include "quarry/lisp.h"
#include "quarry/llm.h"
#include "quarry/tools.h"
#include "quarry/turn.h"

#define QR_ASK_DEFAULT_MAX_CALLS 8

typedef struct qr_ask_opts {
    const char *question;
    qr_tools *tools;        /* the registry, its context (the host) set */
    qr_llm *llm;            /* NULL: no model; tier 1 only */
    uint32_t max_calls;     /* budget of model calls; 0: QR_ASK_DEFAULT_MAX_CALLS */
    bool no_router;         /* skip tier 1 (always ask the model) */
    qr_lisp_limits limits;  /* of every program run */
    /* where every step goes as a trace event (docs/trace.md: prompts, replies, compiled
     * code, tool calls with durations, errors; source "ask"). NULL: nowhere. It is bound
     * to the request for the question, so tools the question calls (search_codebase)
     * write to it too. Never holds the API key. The caller writes the "end" event. */
    qr_trace *trace;
    /* the repository's first and last commit times (epoch seconds), asked for once,
     * before the first model call, for the TODAY lines of the prompts; NULL or a
     * failing call (QR_OK not returned): not stated */
    int (*repo_span)(void *ud, int64_t *first, int64_t *last);
    void *repo_span_ud;
    /* the repository's authors, for the router (qr_router_opts.author); NULL: names
     * only after a marker */
    bool (*author)(void *ud, const char *name, char *out, size_t cap);
    void *author_ud;
    /* releases by version number, for the router (qr_router_opts.release), with author_ud */
    bool (*release)(void *ud, const char *version, char *out, size_t cap);
    /* files said without their folders, for the router (qr_router_opts.file), with
       author_ud */
    int (*file)(void *ud, const char *name, char *out, size_t cap);
    /* tags named whole, for the router (qr_router_opts.tag), with author_ud */
    bool (*tag)(void *ud, const char *name, char *out, size_t cap);
    /* the project's name, for the router (qr_router_opts.project); NULL: none */
    const char *project;
    /* the request the question belongs to (quarry/req.h): its deadline, cancel and
     * budgets bound every program, tool and model call of the question. NULL: the
     * question makes its own, with no limits beyond the ones above. */
    qr_req *req;
} qr_ask_opts;

void qr_ask_opts_init(qr_ask_opts *o, const char *question, qr_tools *tools, qr_llm *llm);

/* One model call, as --explain shows it. */
typedef struct qr_ask_call {
    char agent[16]; /* "architect", "compiler", "fetcher", "evaluator" */
    bool repair;    /* a repair turn */
    bool ok;        /* the model answered (its output may still have been invalid) */
    qr_llm_usage usage;
    uint32_t attempts;
    double ms;
} qr_ask_call;

typedef struct qr_ask_result {
    int tier;            /* 1..4; 0 when nothing answered */
    char *rule;          /* tier 1: the router's rule; else NULL */
    char *query;         /* the last query run (EDN), or NULL */
    char *program;       /* the last program run (Lisp), or NULL */
    qr_val answer;       /* the :return map ({:findings :summary ...}); nil on failure */
    qr_val resolved;     /* plan mode: values resolved by finished steps; nil otherwise */
    qr_ask_call *calls;  /* model calls, in order */
    size_t ncalls;
    qr_llm_usage total;  /* summed over the calls */
    double ms;           /* wall time of the whole question */
    char error[600];     /* one line when the run failed */
    qr_lisp_session *session; /* owns answer and resolved (their arena) */
} qr_ask_result;

int qr_ask(const qr_ask_opts *o, qr_ask_result *out);
void qr_ask_result_clear(qr_ask_result *r);

/* ---- pieces, exposed for tests ---- */
/* The domains a question is about, for the tools its prompts show: QR_ASK_HISTORY
 * always, QR_ASK_CODE too when it names code (functions, calls, structs, macros...),
 * QR_ASK_PATCH when it asks for the changed lines themselves (a patch, a diff),
 * QR_ASK_FILE when it names a file (a path, "history of", "renamed"), QR_ASK_RANGE when it
 * names two points to compare (a version, "v1..v2", "between"). */
enum { QR_ASK_HISTORY = 1u, QR_ASK_CODE = 2u, QR_ASK_PATCH = 4u, QR_ASK_FILE = 8u,
       QR_ASK_RANGE = 16u };
unsigned qr_ask_question_domains(const char *question);
/* The stable system prompt of an agent ("architect", "compiler", "fetcher", "evaluator"),
 * built from what that agent uses and appended to out: conventions, then the tools of the
 * domains (not for the Evaluator, which has none), then the query DSL reference (the
 * Compiler: the PTC-Lisp functions, from the builtin table, and the program limits in
 * limits, NULL for the defaults), then the role. *shared_len (when not NULL) is the
 * length of the part shared byte for byte: conventions and tools for the Architect, the
 * Fetcher and the Compiler of one domain set, the conventions alone for the Evaluator.
 * domains 0 means QR_ASK_HISTORY. QR_EINVAL for an unknown agent. */
int qr_ask_prompt_prefix(const qr_tools *tools, const char *agent, unsigned domains,
                         const qr_lisp_limits *limits, qr_buf *out, size_t *shared_len);
/* The lines that start every call's user message: today's date and weekday, the time,
 * the time zone (UTC offset in minutes), and the repository's first and last commit
 * dates when both are known (non-zero). */
void qr_ask_prompt_today(int64_t now, int tz_offset_min, int64_t first, int64_t last,
                         qr_buf *out);
/* Finds the data in a model's reply: the first fenced block (```edn, ```clojure, ```json,
 * ```lisp or bare ```), else the whole text; an outer (return X) is unwrapped. Reads it
 * as JSON (*json set) or EDN into `a`. QR_EINVAL with a message in err when nothing
 * parses. */
int qr_ask_parse_reply(qr_arena *a, const char *text, size_t n, qr_val *out, bool *json,
                       qr_buf *err);
/* The Lisp program in a Compiler reply: the fenced block, else the whole text (copied to
 * out). */
void qr_ask_extract_code(const char *text, size_t n, qr_buf *out);

#endif
