/*
 * ask.c: the control loop of `quarry ask` (seed 000; quarry/ask.h has the contract).
 *
 * One Lisp session holds the whole question: every model reply is read into its arena,
 * every query and program runs in it, and the answer stays there for the caller. A run
 * that fails rewinds only what it made, so values from earlier steps stay valid.
 *
 * The ladder: tier 1 (router) → Architect → {query: compile and run | intent: Compiler
 * writes Lisp | plan: per step a Fetcher query, then an Evaluator query whose :return
 * holds :action}. Each model turn goes through `converse`, which owns the budget and the
 * single repair turn: the turn's checker (parse, validate, compile, run) either accepts
 * the reply or returns the structured error the repair prompt carries.
 *
 * Rejected: a tool-calling loop where the model calls tools itself (unbounded turns and
 * tokens, the failure modes seed 000 was written against); giving the Evaluator raw data
 * (it gets each binding's size, fields and a 3-record sample: enough to write transforms,
 * a fraction of the tokens).
 */
#include "ask_int.h"

#include "quarry/date.h"
#include "quarry/query.h"
#include "quarry/codesearch.h"
#include "quarry/router.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLE_RECORDS ASK_SAMPLE_ROWS
#define SAMPLE_CHARS 400
#define BINDINGS_SHOWN 16     /* the Evaluator sees at most this many bindings */
#define RESOLVED_CHARS 2000   /* resolved values, as shown in a prompt */
#define HINTS_CHARS 1000      /* the Evaluator's hints, as shown to the Fetcher */

typedef struct ask_run {
    const qr_ask_opts *o;
    qr_ask_result *r;
    qr_lisp_session *s;
    qr_arena *a;
    uint32_t max_calls;
    double t0;
    size_t calls_cap;
    qr_buf today; /* the TODAY lines every user message starts with (made once) */
    qr_req *req;  /* the question's request (the caller's, or one of its own) */
    char router_why[512]; /* what tier 1 found ambiguous ("2 authors match 'bob': ..."), or "" */
    char router_unread[256]; /* the words tier 1 did not read when it declined, or "" */
} ask_run;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

static void set_error(ask_run *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(ask_run *R, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->r->error, sizeof R->r->error, fmt, ap);
    va_end(ap);
}

/* ---- trace (the common format: quarry/turn.h, docs/trace.md) ---- */

static bool tracing(const ask_run *R)
{
    return R->o->trace != NULL;
}

static void trace_begin(ask_run *R, qr_buf *b, const char *event)
{
    qr_trace_begin(R->o->trace, b, event, "ask");
}

static void trace_str(qr_buf *b, const char *key, const char *s, size_t n)
{
    qr_trace_str(b, key, s ? s : "", s ? n : 0);
}

static void trace_val(qr_buf *b, const char *key, qr_val v)
{
    qr_buf_printf(b, ",\"%s\":", key);
    qr_print_json(b, v, false);
}

static void trace_end(ask_run *R, qr_buf *b)
{
    qr_trace_emit(R->o->trace, b);
}

/* ---- tools, timed for the trace ---- */

static int traced_tool(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a,
                       qr_val *out, qr_buf *err)
{
    ask_run *R = ud;
    double t = now_ms();
    /* only the tools the agents are shown: what a model writes cannot reach the others */
    const qr_tool *tool = qr_tools_find(R->o->tools, name, strlen(name));
    int rc;
    if (tool && !qr_ask_tool_offered(R->o->tools, tool)) {
        qr_buf_printf(err, "tool '%s' is not available to quarry ask", name);
        rc = QR_EINVAL;
    } else {
        rc = qr_tools_lisp_dispatch(R->o->tools, req, name, args, a, out, err);
    }
    if (tracing(R)) {
        qr_buf args_json;
        qr_buf_init(&args_json);
        qr_print_json(&args_json, args, false);
        qr_trace_tool(R->o->trace, "ask", name, args_json.p, args_json.len, now_ms() - t,
                      rc == QR_OK && qr_is_seqcoll(*out) ? (int64_t)qr_vec_len(*out) : -1,
                      rc != QR_OK ? (err->p ? err->p : "failed") : NULL);
        qr_buf_release(&args_json);
    }
    return rc;
}

/* ---- running queries and programs ---- */

static void keep_string(char **slot, const char *s, size_t n)
{
    free(*slot);
    *slot = dup_n(s, n);
}

/* Runs a program in the session with `data` as its context. */
static int run_program(ask_run *R, const char *src, size_t n, qr_val data,
                       const qr_query_compiled *q, qr_val *out, qr_buf *err)
{
    keep_string(&R->r->program, src, n);
    qr_lisp_set_data(R->s, data.t == QR_T_MAP ? data : qr_map_empty());
    qr_lisp_result res;
    double t = now_ms();
    int rc = qr_lisp_run(R->s, src, n, &res);
    if (tracing(R)) {
        qr_buf b;
        trace_begin(R, &b, "run");
        trace_str(&b, "program", src, n);
        qr_buf_printf(&b, ",\"ms\":%.2f,\"steps\":%llu", now_ms() - t,
                      (unsigned long long)res.steps);
        if (rc != QR_OK)
            trace_str(&b, "error", res.message, strlen(res.message));
        trace_end(R, &b);
    }
    if (rc == QR_OK) {
        *out = res.value;
    } else {
        qr_query_describe_failure(q, &res, err);
        rc = rc == QR_ENOMEM ? rc : QR_ERUNTIME;
    }
    qr_lisp_result_clear(&res);
    return rc;
}

/* Validates and compiles a query against the context, then runs it. */
static int run_query(ask_run *R, qr_val query, bool json, qr_val context, qr_val *out,
                     qr_buf *err)
{
    qr_query_opts qo;
    qr_query_opts_init(&qo, R->o->tools);
    qo.context = context;
    qr_query_compiled q = {0};
    int rc = qr_query_compile_value(&qo, query, json, &q);
    if (q.normalized)
        keep_string(&R->r->query, q.normalized, strlen(q.normalized));
    if (tracing(R)) {
        qr_buf b;
        trace_begin(R, &b, "compile");
        trace_val(&b, "query", query);
        if (q.program)
            trace_str(&b, "program", q.program, q.program_len);
        if (rc != QR_OK) {
            qr_buf_puts(&b, ",\"problems\":");
            qr_query_problems_json(&q, &b);
        }
        trace_end(R, &b);
    }
    if (rc != QR_OK) {
        qr_buf_puts(err, "invalid query:\n");
        qr_query_problems_text(&q, err);
        qr_query_compiled_clear(&q);
        return rc;
    }
    rc = run_program(R, q.program, q.program_len, context, &q, out, err);
    qr_query_compiled_clear(&q);
    return rc;
}

/* ---- model turns (the turn module owns the call, the budget and the repair) ---- */

/* Checks one reply: QR_OK when it is usable (results kept in ctx), else an error whose
 * message (in err) goes into the repair prompt. */
typedef int (*reply_check)(ask_run *R, void *ctx, const char *text, size_t n, qr_buf *err);

typedef struct turn_check {
    ask_run *R;
    reply_check check;
    void *ctx;
} turn_check;

static int check_reply(void *ud, const qr_llm_response *reply, qr_buf *complaint)
{
    turn_check *tc = ud;
    return tc->check(tc->R, tc->ctx, reply->text ? reply->text : "", reply->len, complaint);
}

/* Each call, as --explain shows it. */
static void record_call(void *ud, const qr_turn_call_info *ci)
{
    ask_run *R = ud;
    if (R->r->ncalls == R->calls_cap) {
        size_t cap = R->calls_cap ? 2 * R->calls_cap : 8;
        qr_ask_call *c = realloc(R->r->calls, cap * sizeof *c);
        if (!c)
            return; /* the total below still counts it */
        R->r->calls = c;
        R->calls_cap = cap;
    }
    qr_ask_call *c = &R->r->calls[R->r->ncalls++];
    memset(c, 0, sizeof *c);
    snprintf(c->agent, sizeof c->agent, "%s", ci->agent);
    c->repair = ci->repair > 0;
    c->ok = ci->ok;
    c->usage = ci->usage;
    c->attempts = ci->attempts;
    c->ms = ci->ms;
    R->r->total.input += ci->usage.input;
    R->r->total.output += ci->usage.output;
    R->r->total.cache_write += ci->usage.cache_write;
    R->r->total.cache_read += ci->usage.cache_read;
}

/* One turn of an agent: the call, the check, and at most one repair turn. */
static int converse(ask_run *R, const char *agent, const char *user, size_t user_len,
                    reply_check check, void *ctx)
{
    qr_buf prefix, first_msg, after;
    qr_buf_init(&prefix);
    qr_buf_init(&first_msg);
    qr_buf_init(&after);
    size_t shared_len = 0;
    int rc = qr_ask_prompt_prefix(R->o->tools, agent, qr_ask_question_domains(R->o->question),
                                  &R->o->limits, &prefix, &shared_len);
    if (rc != QR_OK)
        goto done;
    if (!R->today.len) {
        int64_t first = 0, last = 0;
        if (!R->o->repo_span || R->o->repo_span(R->o->repo_span_ud, &first, &last) != QR_OK)
            first = last = 0;
        int64_t now = qr_clock_now();
        qr_ask_prompt_today(now, qr_clock_offset_at(now), first, last, &R->today);
    }
    qr_buf_append(&first_msg, R->today.p, R->today.len);
    qr_buf_putc(&first_msg, '\n');
    qr_buf_append(&first_msg, user, user_len);
    qr_buf_printf(&after,
                  "\n\nQUESTION (north star): %s\n"
                  "Reply again with the corrected reply only, in the same form.",
                  R->o->question);
    qr_llm_message msg = {.role = "user", .content = first_msg.p, .len = first_msg.len};
    turn_check tc = {.R = R, .check = check, .ctx = ctx};
    uint32_t left = R->r->ncalls < R->max_calls ? R->max_calls - (uint32_t)R->r->ncalls : 0;
    if (!left) {
        set_error(R, "the budget of %u model calls is spent before the %s could answer",
                  R->max_calls, agent);
        rc = QR_ELIMIT;
        goto done;
    }
    qr_turn t = {.agent = agent,
                 .system = prefix.p,
                 .system_len = prefix.len,
                 .shared_len = shared_len,
                 .messages = &msg,
                 .nmessages = 1,
                 .max_repairs = 1,
                 .max_calls = left,
                 .check = check_reply,
                 .check_ud = &tc,
                 .repair_before = "Your reply could not be used.\n",
                 .repair_after = after.p,
                 .on_call = record_call,
                 .on_call_ud = R};
    qr_turn_ctx c = {.llm = R->o->llm, .req = R->req, .trace = R->o->trace, .source = "ask"};
    qr_turn_result res;
    rc = qr_turn_run(&c, &t, &res);
    if (rc == QR_ELIMIT) {
        set_error(R, "the budget of %u model calls is spent before the %s could %s",
                  R->max_calls, agent, res.calls ? "repair its reply" : "answer");
    } else if (rc == QR_EIO) {
        set_error(R, "the %s's model call failed: %s", agent, res.error);
        rc = QR_ERUNTIME; /* the question was fine; the model was not */
    } else if (rc == QR_EINVAL) {
        char line[400];
        size_t k = 0;
        for (size_t i = 0; i < res.complaint.len && k + 1 < sizeof line; i++)
            line[k++] = res.complaint.p[i] == '\n' ? ' ' : res.complaint.p[i];
        line[k] = 0;
        set_error(R, "the %s's reply was still unusable after a repair turn: %s", agent, line);
        rc = QR_ERUNTIME;
    } else if (rc == QR_ESTOPPED) {
        set_error(R, "the %s could not answer: %s", agent, res.error);
    } else if (rc != QR_OK && rc != QR_ENOMEM) {
        set_error(R, "the %s's turn failed: %s", agent, res.error);
        rc = QR_ERUNTIME;
    }
    qr_turn_result_clear(&res);
done:
    qr_buf_release(&prefix);
    qr_buf_release(&first_msg);
    qr_buf_release(&after);
    return rc;
}

/* ---- answers ---- */

static qr_val as_answer(ask_run *R, qr_val v)
{
    qr_val f;
    if (v.t == QR_T_MAP && (ask_get(R->a, v, "findings", &f) || ask_get(R->a, v, "summary", &f)))
        return v;
    qr_mapb b;
    qr_mapb_init(&b, R->a, 1);
    qr_mapb_put(&b, qr_kw_cstr(R->a, "findings"), v);
    return qr_mapb_finish(&b, QR_T_MAP);
}

/* An answer with no rows says so, and where the history ends (issue 25: "who contributed
 * most last year" on a history whose last commit is older printed "...most commits:  ()").
 * The summary keeps its first clause (up to "; "), the count; what follows it describes
 * the first rows, which an empty answer does not have. */
static qr_val empty_answer(ask_run *R, qr_val v)
{
    qr_val f, sum;
    if (v.t != QR_T_MAP || !ask_get(R->a, v, "findings", &f))
        return v;
    if (!(f.t == QR_T_NIL || (qr_is_seqcoll(f) && qr_vec_len(f) == 0)))
        return v;
    qr_buf b;
    qr_buf_init(&b);
    if (ask_get(R->a, v, "summary", &sum) && sum.t == QR_T_STR && sum.s->len) {
        size_t n = 0;
        while (n < sum.s->len && !(sum.s->data[n] == ';' && n + 1 < sum.s->len &&
                                   sum.s->data[n + 1] == ' '))
            n++;
        while (n && strchr(" .:", sum.s->data[n - 1]))
            n--;
        qr_buf_append(&b, sum.s->data, n);
        qr_buf_puts(&b, "; ");
    }
    qr_buf_puts(&b, "nothing matched");
    int64_t first = 0, last = 0;
    if (R->o->repo_span && R->o->repo_span(R->o->repo_span_ud, &first, &last) == QR_OK && last) {
        char a[QR_DATE_ISO_LEN], z[QR_DATE_ISO_LEN];
        qr_date_format_iso(first, qr_clock_offset_at(first), a, sizeof a);
        qr_date_format_iso(last, qr_clock_offset_at(last), z, sizeof z);
        qr_buf_printf(&b, ": the repository's history runs from %.10s to %.10s", a, z);
    }
    qr_val out = v;
    if (!b.failed)
        out = qr_map_assoc(R->a, v, qr_kw_cstr(R->a, "summary"), qr_str_new(R->a, b.p, b.len));
    qr_buf_release(&b);
    return out;
}

/* ---- the Architect ---- */

typedef struct arch_ctx {
    ask_mode mode;
    qr_val payload; /* the intent string or the steps */
    qr_val answer;
} arch_ctx;

static int check_architect(ask_run *R, void *vctx, const char *text, size_t n, qr_buf *err)
{
    arch_ctx *c = vctx;
    qr_val v, payload;
    bool json = false;
    int rc = qr_ask_parse_reply(R->a, text, n, &v, &json, err);
    if (rc != QR_OK)
        return rc;
    rc = ask_reply_mode(R->a, v, &c->mode, &payload, err);
    if (rc != QR_OK)
        return rc;
    c->payload = payload;
    if (c->mode != ASK_MODE_QUERY)
        return QR_OK;
    R->r->tier = 2;
    return run_query(R, payload, json, qr_nil(), &c->answer, err);
}

/* ---- the Compiler (intents) ---- */

static int check_compiler(ask_run *R, void *vctx, const char *text, size_t n, qr_buf *err)
{
    qr_val *answer = vctx;
    qr_buf code;
    qr_buf_init(&code);
    qr_ask_extract_code(text, n, &code);
    int rc = run_program(R, code.p ? code.p : "", code.len, qr_nil(), NULL, answer, err);
    qr_buf_release(&code);
    return rc;
}

/* ---- plans ---- */

static void print_steps(qr_buf *b, qr_val steps, size_t current)
{
    for (size_t i = 0; i < qr_vec_len(steps); i++) {
        qr_val st = qr_vec_at(steps, i), goal;
        qr_buf_printf(b, "  %s step %zu: ", i == current ? "->" : "  ", i + 1);
        if (st.t == QR_T_MAP) {
            bool found = false;
            for (size_t k = 0; k < qr_map_len(st); k++) {
                if (ask_is_name(qr_map_key_at(st, k), "goal")) {
                    goal = qr_map_val_at(st, k);
                    qr_print(b, goal, QR_PRINT_DISPLAY);
                    found = true;
                }
            }
            if (!found)
                qr_print_short(b, st, 200);
        }
        qr_buf_puts(b, i < current ? " (done)\n" : "\n");
    }
}

static void step_context(ask_run *R, qr_buf *b, qr_val steps, size_t current, qr_val resolved)
{
    qr_buf_printf(b, "QUESTION (north star): %s\n\nPLAN\n", R->o->question);
    print_steps(b, steps, current);
    qr_buf_puts(b, "\nRESOLVED by earlier steps (use as {{resolved:key}}): ");
    qr_print_short(b, resolved, RESOLVED_CHARS);
    qr_buf_putc(b, '\n');
}

/* The shape of each binding the Fetcher made: size, fields and a short sample. */
static void describe_data(qr_buf *b, qr_val data)
{
    size_t shown = 0;
    for (size_t i = 0; i < qr_map_len(data); i++) {
        if (++shown > BINDINGS_SHOWN) {
            qr_buf_printf(b, "- ... %zu more bindings\n", qr_map_len(data) - i);
            break;
        }
        qr_val k = qr_map_key_at(data, i), v = qr_map_val_at(data, i);
        if (ask_is_name(k, "resolved"))
            continue;
        qr_buf_puts(b, "- ");
        qr_print(b, k, QR_PRINT_READABLY);
        if (qr_is_seqcoll(v)) {
            size_t n = qr_vec_len(v);
            qr_buf_printf(b, ": a vector of %zu item%s", n, n == 1 ? "" : "s");
            if (n && qr_vec_at(v, 0).t == QR_T_MAP) {
                qr_val first = qr_vec_at(v, 0);
                qr_buf_puts(b, "; fields");
                for (size_t f = 0; f < qr_map_len(first); f++) {
                    qr_buf_putc(b, ' ');
                    qr_print(b, qr_map_key_at(first, f), QR_PRINT_READABLY);
                }
            }
            qr_buf_puts(b, "\n");
            for (size_t j = 0; j < n && j < SAMPLE_RECORDS; j++) {
                qr_buf_puts(b, "    ");
                qr_print_short(b, qr_vec_at(v, j), SAMPLE_CHARS);
                qr_buf_putc(b, '\n');
            }
            if (n > SAMPLE_RECORDS)
                qr_buf_printf(b, "    ... %zu more\n", n - SAMPLE_RECORDS);
        } else {
            qr_buf_puts(b, ": ");
            qr_print_short(b, v, SAMPLE_CHARS);
            qr_buf_putc(b, '\n');
        }
    }
}

typedef struct step_ctx {
    qr_val resolved;
    qr_val data;   /* fetcher: the bindings it made */
    qr_val result; /* evaluator: its :return */
} step_ctx;

static qr_val resolved_context(ask_run *R, qr_val resolved, qr_val data)
{
    qr_val ctx = data.t == QR_T_MAP ? data : qr_map_empty();
    return qr_map_assoc(R->a, ctx, qr_kw_cstr(R->a, "resolved"), resolved);
}

static int check_fetcher(ask_run *R, void *vctx, const char *text, size_t n, qr_buf *err)
{
    step_ctx *c = vctx;
    qr_val v, q;
    ask_mode mode;
    bool json = false;
    int rc = qr_ask_parse_reply(R->a, text, n, &v, &json, err);
    if (rc != QR_OK)
        return rc;
    rc = ask_reply_mode(R->a, v, &mode, &q, err);
    if (rc != QR_OK)
        return rc;
    if (mode != ASK_MODE_QUERY) {
        qr_buf_puts(err, "the Fetcher replies with {:mode :query :query {:fetch [...]}}");
        return QR_EINVAL;
    }
    qr_val f;
    if (!ask_get(R->a, q, "fetch", &f) || !qr_is_seqcoll(f) || qr_vec_len(f) == 0) {
        qr_buf_puts(err, "the Fetcher's query needs a non-empty :fetch vector of tool calls");
        return QR_EINVAL;
    }
    /* what it fetched is the map of its bindings: a :return would hide them */
    q = qr_map_dissoc(R->a, q, qr_kw_cstr(R->a, "return"));
    q = qr_map_dissoc(R->a, q, qr_str_cstr(R->a, "return"));
    qr_val ctx = resolved_context(R, c->resolved, qr_nil());
    return run_query(R, q, json, ctx, &c->data, err);
}

static int check_evaluator(ask_run *R, void *vctx, const char *text, size_t n, qr_buf *err)
{
    step_ctx *c = vctx;
    qr_val v, q, act;
    ask_mode mode;
    bool json = false;
    int rc = qr_ask_parse_reply(R->a, text, n, &v, &json, err);
    if (rc != QR_OK)
        return rc;
    rc = ask_reply_mode(R->a, v, &mode, &q, err);
    if (rc != QR_OK)
        return rc;
    if (mode != ASK_MODE_QUERY) {
        qr_buf_puts(err, "the Evaluator replies with {:mode :query :query {:transform [...] "
                         ":return {:action ...}}}");
        return QR_EINVAL;
    }
    qr_val f;
    if (ask_get(R->a, q, "fetch", &f) && qr_is_seqcoll(f) && qr_vec_len(f)) {
        qr_buf_puts(err, "the Evaluator has no tools: remove :fetch and work on the data names");
        return QR_EINVAL;
    }
    qr_val ctx = resolved_context(R, c->resolved, c->data);
    rc = run_query(R, q, json, ctx, &c->result, err);
    if (rc != QR_OK)
        return rc;
    if (!ask_get(R->a, c->result, "action", &act) ||
        !(ask_is_name(act, "done") || ask_is_name(act, "advance") || ask_is_name(act, "fetch") ||
          ask_is_name(act, "revise"))) {
        qr_buf_puts(err, "the :return must hold :action :done, :advance, :fetch or :revise");
        return QR_EINVAL;
    }
    return QR_OK;
}

/* The answer of a plan whose Fetcher repeated itself: the records it fetched (its first
 * binding that holds a list), said to be what they are. */
static qr_val repeated_answer(ask_run *R, qr_val data)
{
    qr_val rows = qr_vec_empty(QR_T_VEC);
    for (size_t k = 0; data.t == QR_T_MAP && k < qr_map_len(data); k++)
        if (qr_is_seqcoll(qr_map_val_at(data, k))) {
            rows = qr_map_val_at(data, k);
            break;
        }
    qr_mapb b;
    qr_mapb_init(&b, R->a, 2);
    qr_mapb_put(&b, qr_kw_cstr(R->a, "findings"), rows);
    qr_mapb_put(&b, qr_kw_cstr(R->a, "summary"),
                qr_str_cstr(R->a, "the plan stopped early: asked for more data, the Fetcher "
                                  "repeated its last query; these are the records it got"));
    return qr_mapb_finish(&b, QR_T_MAP);
}

/* The plan loop; *last_fetch keeps the Fetcher's last query (normalized EDN; the caller
 * frees it). */
static int plan_loop(ask_run *R, qr_val steps, char **last_fetch)
{
    R->r->tier = 4;
    qr_val resolved = qr_map_empty(), hints = qr_nil();
    size_t i = 0;
    uint32_t rounds = 0;
    while (i < qr_vec_len(steps)) {
        if (++rounds > 32) { /* the budget stops it first; this is a guard */
            set_error(R, "the plan did not finish");
            return QR_ERUNTIME;
        }
        step_ctx c = {.resolved = resolved, .data = qr_nil(), .result = qr_nil()};
        R->r->resolved = resolved;
        qr_buf u;
        qr_buf_init(&u);
        step_context(R, &u, steps, i, resolved);
        if (hints.t != QR_T_NIL) {
            qr_buf_puts(&u, "HINTS from the Evaluator (what was missing last time): ");
            qr_print_short(&u, hints, HINTS_CHARS);
            qr_buf_putc(&u, '\n');
        }
        qr_buf_printf(&u, "\nWrite the fetch query for step %zu.\n", i + 1);
        int rc = converse(R, "fetcher", u.p, u.len, check_fetcher, &c);
        qr_buf_release(&u);
        if (rc != QR_OK)
            return rc;
        /* asked to fetch again, the Fetcher wrote the query it wrote last time: asking
         * again would spend the budget on the same data, so the plan ends with it */
        bool repeated = hints.t != QR_T_NIL && *last_fetch && R->r->query &&
                        !strcmp(*last_fetch, R->r->query);
        free(*last_fetch);
        *last_fetch = R->r->query ? dup_n(R->r->query, strlen(R->r->query)) : NULL;
        if (repeated) {
            R->r->answer = repeated_answer(R, c.data);
            if (tracing(R)) {
                qr_buf b;
                trace_begin(R, &b, "repeated_fetch");
                qr_buf_printf(&b, ",\"step\":%zu", i + 1);
                trace_end(R, &b);
            }
            return QR_OK;
        }
        qr_buf_init(&u);
        step_context(R, &u, steps, i, resolved);
        qr_buf_printf(&u, "\nDATA the Fetcher got (use these names with :on; a vector shows "
                          "%d sample rows, your query runs on all of it):\n",
                      SAMPLE_RECORDS);
        describe_data(&u, c.data);
        qr_buf_printf(&u, "\nWrite the Evaluator query for step %zu%s.\n", i + 1,
                      i + 1 == qr_vec_len(steps) ? " (the last step: finish with :done)" : "");
        rc = converse(R, "evaluator", u.p, u.len, check_evaluator, &c);
        qr_buf_release(&u);
        if (rc != QR_OK)
            return rc;
        qr_val act, x;
        ask_get(R->a, c.result, "action", &act);
        if (tracing(R)) {
            qr_buf b;
            trace_begin(R, &b, "step");
            qr_buf_printf(&b, ",\"step\":%zu", i + 1);
            trace_val(&b, "action", act);
            trace_val(&b, "result", c.result);
            trace_end(R, &b);
        }
        hints = qr_nil();
        if (ask_is_name(act, "done")) {
            qr_val ans = qr_map_dissoc(R->a, c.result, qr_kw_cstr(R->a, "action"));
            R->r->answer = as_answer(R, ans);
            return QR_OK;
        } else if (ask_is_name(act, "advance")) {
            if (ask_get(R->a, c.result, "result", &x) && x.t == QR_T_MAP) {
                for (size_t k = 0; k < qr_map_len(x); k++)
                    resolved = qr_map_assoc(R->a, resolved, qr_map_key_at(x, k), qr_map_val_at(x, k));
            } else if (ask_get(R->a, c.result, "result", &x)) {
                char key[32];
                snprintf(key, sizeof key, "step%zu", i + 1);
                resolved = qr_map_assoc(R->a, resolved, qr_kw_cstr(R->a, key), x);
            }
            i++;
        } else if (ask_is_name(act, "fetch")) {
            hints = ask_get(R->a, c.result, "hints", &x) ? x : qr_str_cstr(R->a, "(none given)");
        } else { /* revise */
            qr_val steps_v;
            qr_buf why;
            qr_buf_init(&why);
            ask_mode m;
            bool good = ask_get(R->a, c.result, "steps", &x) &&
                        ask_reply_mode(R->a, c.result, &m, &steps_v, &why) == QR_OK &&
                        m == ASK_MODE_PLAN && i + qr_vec_len(steps_v) <= ASK_MAX_STEPS;
            if (!good) {
                set_error(R, "the Evaluator's revised plan is not usable: %s",
                          why.len ? why.p : "it needs :steps, at most 8 in all");
                qr_buf_release(&why);
                return QR_ERUNTIME;
            }
            qr_buf_release(&why);
            x = steps_v;
            qr_vecb vb;
            qr_vecb_init(&vb, R->a, i + qr_vec_len(x));
            for (size_t k = 0; k < i; k++)
                qr_vecb_push(&vb, qr_vec_at(steps, k));
            for (size_t k = 0; k < qr_vec_len(x); k++)
                qr_vecb_push(&vb, qr_vec_at(x, k));
            steps = qr_vecb_finish(&vb, QR_T_VEC);
        }
        R->r->resolved = resolved;
    }
    /* every step advanced: the resolved values are the answer */
    qr_mapb b;
    qr_mapb_init(&b, R->a, 2);
    qr_vecb one;
    qr_vecb_init(&one, R->a, 1);
    qr_vecb_push(&one, resolved);
    qr_mapb_put(&b, qr_kw_cstr(R->a, "findings"), qr_vecb_finish(&one, QR_T_VEC));
    qr_mapb_put(&b, qr_kw_cstr(R->a, "summary"),
                qr_str_cstr(R->a, "every step of the plan finished; its resolved values"));
    R->r->answer = qr_mapb_finish(&b, QR_T_MAP);
    return QR_OK;
}

static int run_plan(ask_run *R, qr_val steps)
{
    char *last_fetch = NULL;
    int rc = plan_loop(R, steps, &last_fetch);
    free(last_fetch);
    return rc;
}

/* ---- entry ---- */

void qr_ask_opts_init(qr_ask_opts *o, const char *question, qr_tools *tools, qr_llm *llm)
{
    memset(o, 0, sizeof *o);
    o->question = question;
    o->tools = tools;
    o->llm = llm;
    o->max_calls = QR_ASK_DEFAULT_MAX_CALLS;
    qr_lisp_limits_default(&o->limits);
}

void qr_ask_result_clear(qr_ask_result *r)
{
    free(r->rule);
    free(r->query);
    free(r->program);
    free(r->calls);
    qr_lisp_session_free(r->session);
    memset(r, 0, sizeof *r);
}

static int tier1(ask_run *R, bool *answered)
{
    qr_route route = {0};
    *answered = false;
    qr_router_opts ro = {.author = R->o->author, .author_ud = R->o->author_ud,
                         .release = R->o->release, .file = R->o->file,
                         .tag = R->o->tag, .project = R->o->project,
                         .why = R->router_why, .why_cap = sizeof R->router_why,
                         .unread = R->router_unread, .unread_cap = sizeof R->router_unread};
    if (!qr_router_match_opts(R->o->question, strlen(R->o->question), &ro, &route))
        return QR_OK;
    R->r->tier = 1;
    R->r->rule = route.rule ? dup_n(route.rule, strlen(route.rule)) : NULL;
    if (tracing(R)) {
        qr_buf b;
        trace_begin(R, &b, "route");
        trace_str(&b, "rule", route.rule, route.rule ? strlen(route.rule) : 0);
        trace_str(&b, "explain", route.explain, route.explain ? strlen(route.explain) : 0);
        trace_str(&b, "query", route.query, route.query ? strlen(route.query) : 0);
        trace_end(R, &b);
    }
    qr_query_opts qo;
    qr_query_opts_init(&qo, R->o->tools);
    qr_query_compiled q = {0};
    int rc = qr_query_compile(&qo, route.query, strlen(route.query), &q);
    keep_string(&R->r->query, route.query, strlen(route.query));
    qr_buf err;
    qr_buf_init(&err);
    if (rc != QR_OK) {
        qr_query_problems_text(&q, &err);
        set_error(R, "the router's query for rule '%s' is invalid (a bug): %.*s", route.rule,
                  (int)err.len, err.p ? err.p : "");
        rc = QR_ERUNTIME;
    } else {
        qr_val v;
        rc = run_program(R, q.program, q.program_len, qr_nil(), &q, &v, &err);
        if (rc == QR_OK) {
            R->r->answer = as_answer(R, v);
            *answered = true;
        } else if (rc != QR_ENOMEM) {
            set_error(R, "%.*s", (int)err.len, err.p ? err.p : "");
        }
    }
    qr_buf_release(&err);
    qr_query_compiled_clear(&q);
    qr_route_clear(&route);
    return rc;
}

/* Tier 1 for code: a question the search_codebase templates know is answered by that tool
 * (SPARQL over the code graph, no model). */
static int tier1_code(ask_run *R, bool *answered)
{
    const char *tname = NULL;
    char *sparql = qr_codesearch_template(R->o->question, &tname);
    *answered = false;
    if (!sparql || !qr_tools_find(R->o->tools, "search_codebase", 15)) {
        free(sparql);
        return QR_OK;
    }
    free(sparql);
    R->r->tier = 1;
    char rule[64];
    snprintf(rule, sizeof rule, "code-%s", tname);
    R->r->rule = dup_n(rule, strlen(rule));
    qr_mapb b;
    qr_mapb_init(&b, R->a, 1);
    qr_mapb_put(&b, qr_kw_cstr(R->a, "question"),
                qr_str_new(R->a, R->o->question, strlen(R->o->question)));
    qr_val v;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_tools_call(R->o->tools, "search_codebase", R->req, qr_mapb_finish(&b, QR_T_MAP),
                           R->a, &v, &err);
    if (rc == QR_OK) {
        qr_val rows = qr_nil(), total = qr_nil(), q = qr_nil();
        ask_get(R->a, v, "rows", &rows);
        ask_get(R->a, v, "total", &total);
        ask_get(R->a, v, "sparql", &q);
        if (q.t == QR_T_STR)
            keep_string(&R->r->query, q.s->data, q.s->len);
        char sum[160];
        snprintf(sum, sizeof sum, "%lld result(s) from the code graph (template %s)",
                 total.t == QR_T_INT ? (long long)total.i : 0LL, tname);
        qr_mapb_init(&b, R->a, 3);
        qr_mapb_put(&b, qr_kw_cstr(R->a, "findings"), rows);
        qr_mapb_put(&b, qr_kw_cstr(R->a, "summary"), qr_str_new(R->a, sum, strlen(sum)));
        R->r->answer = qr_mapb_finish(&b, QR_T_MAP);
        *answered = true;
    } else if (rc != QR_ENOMEM) {
        set_error(R, "%.*s", (int)err.len, err.p ? err.p : "");
    }
    qr_buf_release(&err);
    return rc;
}

int qr_ask(const qr_ask_opts *o, qr_ask_result *out)
{
    memset(out, 0, sizeof *out);
    out->answer = qr_nil();
    out->resolved = qr_nil();
    ask_run R = {.o = o, .r = out, .t0 = now_ms()};
    R.max_calls = o->max_calls ? o->max_calls : QR_ASK_DEFAULT_MAX_CALLS;
    size_t qlen = o->question ? strlen(o->question) : 0;
    while (qlen && (o->question[qlen - 1] == ' ' || o->question[qlen - 1] == '\n'))
        qlen--;
    if (qlen == 0) {
        set_error(&R, "the question is empty");
        return QR_EINVAL;
    }
    out->session = qr_lisp_session_new(&o->limits);
    if (!out->session)
        return QR_ENOMEM;
    R.s = out->session;
    R.a = qr_lisp_session_arena(R.s);
    qr_req own_req;
    if (!(R.req = o->req)) {
        qr_req_init(&own_req, NULL);
        R.req = &own_req;
    }
    qr_lisp_set_req(R.s, R.req);
    qr_lisp_set_tools(R.s, traced_tool, &R);
    /* tools the question calls (search_codebase) find the trace through the request */
    bool bound = tracing(&R) && qr_trace_bind(R.req, o->trace);
    if (tracing(&R)) {
        qr_buf b;
        trace_begin(&R, &b, "question");
        trace_str(&b, "question", o->question, strlen(o->question));
        qr_buf_printf(&b, ",\"max_calls\":%u,\"model\":%s", R.max_calls,
                      o->llm ? "true" : "false");
        trace_end(&R, &b);
    }
    int rc = QR_OK;
    bool answered = false;
    if (!o->no_router) {
        rc = tier1_code(&R, &answered);
        if (rc == QR_OK && !answered)
            rc = tier1(&R, &answered);
        if (answered || rc == QR_ENOMEM || (rc != QR_OK && !o->llm))
            goto done;
        if (rc != QR_OK) {
            /* the router read the question but its query failed: the model may do better */
            if (tracing(&R)) {
                qr_buf b;
                trace_begin(&R, &b, "route_failed");
                trace_str(&b, "error", out->error, strlen(out->error));
                trace_end(&R, &b);
            }
            out->error[0] = 0;
            out->tier = 0;
            free(out->rule);
            out->rule = NULL;
            rc = QR_OK;
        }
    }
    if (!o->llm) {
        if (R.router_why[0]) /* the router read it but for a name that is several people */
            set_error(&R, "no model is configured, and the question is ambiguous: %s",
                      R.router_why);
        else if (R.router_unread[0])
            set_error(&R, "no model is configured, and the question is not one quarry "
                          "answers without one (words it did not read: '%s'); set "
                          "QUARRY_LLM_URL and QUARRY_LLM_MODEL (see docs/llm.md), or ask "
                          "with a query: quarry query", R.router_unread);
        else
            set_error(&R, "no model is configured, and the question is not one quarry "
                          "answers without one; set QUARRY_LLM_URL and QUARRY_LLM_MODEL (see "
                          "docs/llm.md), or ask with a query: quarry query");
        rc = QR_EINVAL;
        goto done;
    }
    arch_ctx ac = {.mode = ASK_MODE_NONE, .payload = qr_nil(), .answer = qr_nil()};
    qr_buf u;
    qr_buf_init(&u);
    qr_buf_printf(&u, "QUESTION (north star): %s\n\nDecide how to answer it: reply with "
                      "{:mode :query ...}, {:mode :intent ...} or {:mode :plan ...}.\n",
                  o->question);
    rc = converse(&R, "architect", u.p, u.len, check_architect, &ac);
    qr_buf_release(&u);
    if (rc != QR_OK)
        goto done;
    if (ac.mode == ASK_MODE_QUERY) {
        out->tier = 2;
        out->answer = as_answer(&R, ac.answer);
    } else if (ac.mode == ASK_MODE_INTENT) {
        out->tier = 3;
        qr_buf_init(&u);
        qr_buf_printf(&u, "QUESTION (north star): %s\n\nINTENT: ", o->question);
        qr_print(&u, ac.payload, QR_PRINT_DISPLAY);
        qr_buf_puts(&u, "\n\nWrite the PTC-Lisp program.\n");
        qr_val v = qr_nil();
        rc = converse(&R, "compiler", u.p, u.len, check_compiler, &v);
        qr_buf_release(&u);
        if (rc == QR_OK)
            out->answer = as_answer(&R, v);
    } else {
        rc = run_plan(&R, ac.payload);
    }
done:
    if (rc == QR_OK)
        out->answer = empty_answer(&R, out->answer);
    if (bound)
        qr_trace_unbind(R.req);
    qr_lisp_set_req(R.s, NULL); /* own_req ends here; the session outlives it */
    qr_buf_release(&R.today);
    out->ms = now_ms() - R.t0;
    if (tracing(&R)) {
        qr_buf b;
        trace_begin(&R, &b, rc == QR_OK ? "answer" : "error");
        qr_buf_printf(&b, ",\"tier\":%d,\"calls\":%zu", out->tier, out->ncalls);
        if (rc == QR_OK)
            trace_val(&b, "answer", out->answer);
        else
            trace_str(&b, "error", out->error, strlen(out->error));
        trace_end(&R, &b);
    }
    if (rc == QR_ENOMEM && !out->error[0])
        set_error(&R, "out of memory");
    return rc;
}
