/*
 * run_int.h: what the workflow language's run-time files share: the run (one per
 * qr_flow_run: options, budgets, trace, tools, MCP servers, behind one mutex) and the
 * frame (one per thread of execution: its arena, its variables, its model clients, its
 * error). run.c evaluates statements and expressions; run_model.c renders prompts, calls
 * models, runs agents with tools and validates replies against schemas; mcp_client.c
 * talks to MCP servers over stdio.
 */
#ifndef QUARRY_FLOW_RUN_INT_H
#define QUARRY_FLOW_RUN_INT_H

#include "flow_int.h"
#include "quarry/lisp.h"
#include "quarry/llm.h"
#include "quarry/tools.h"
#include "quarry/turn.h"
#include "quarry/value.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct flow_mcp flow_mcp;

typedef struct flow_run {
    const qr_flow_file *f;
    const qr_flow_run_opts *o;
    qr_flow_budget b;
    /* the run's one request: the caller's (o->req) or own_req; every tool and model call
     * of the run, parallel statements included, runs for it */
    qr_req *req;
    qr_req own_req;
    qr_trace *trace; /* the run's trace writer (o->trace), or NULL */
    /* every secret the run knows (the model's API key, MCP bearer tokens), held by a
     * trace writer that writes nothing so that its scrubbing rule masks them in what leaves
     * the run: its value, its error, its log lines, tool results sent to the model */
    qr_trace *secrets;
    pthread_mutex_t lock; /* budgets, trace, log, tool calls, MCP servers */
    uint32_t calls;
    uint64_t tokens_in, tokens_out;
    double t0;
    /* the run's shared budget of steps and memory: every frame (parallel workers too)
     * adds to these, so all of a run's work counts against one figure */
    _Atomic uint64_t steps;
    _Atomic size_t mem_used; /* bytes in the frames' arenas, as last published */
    _Atomic int active;      /* frames running at once (1, or the workers of parallel) */
    bool curl_ready; /* a model client was made on the main thread (see parallel) */
    /* MCP servers, started on first use: one per `tool X = mcp` declaration */
    const qr_flow_decl **mcp_decl;
    flow_mcp **mcp;
    size_t nmcp;
} flow_run;

/* A variable table: open addressing, names copied into the frame's arena. */
typedef struct flow_var {
    const char *name;
    size_t n;
    qr_val v;
    bool written; /* set in this frame (not only a copy read from the parent's) */
} flow_var;

typedef struct flow_vars {
    flow_var *v;
    size_t cap, n;
} flow_vars;

typedef struct flow_client {
    const qr_flow_decl *model; /* NULL: the configured default */
    qr_llm *llm;
} flow_client;

typedef struct flow_frame flow_frame;
struct flow_frame {
    flow_run *run;
    qr_arena *a;
    flow_vars vars;
    const flow_frame *parent; /* parallel workers read their parent's variables */
    flow_client *clients;
    size_t nclients;
    qr_buf err;     /* the error of a failed statement, one line */
    int depth;      /* flows and agents nested */
    bool returned;
    bool ret_value;  /* the return that ended the flow gave a value (`return null` too) */
    bool flow_valued; /* the flow flow_run_flow ran last returned with a value */
    qr_val ret;
    bool has_item; /* inside filter ... where */
    qr_val item;
    size_t mem_published;  /* the part of a->used already counted in run->mem_used */
    qr_lisp_session *lisp; /* the builtins' sandbox, made on first use */
    int expr_depth;        /* expressions being evaluated, nested */
    uint32_t ticks;        /* flow_tick calls, to read the clock every so many */
    char *stack_base;      /* a local of the thread's first frame, to measure the stack */
};

/* The run-time context of one builtin call (src/flow/builtins.c). */
struct qr_flow_call {
    flow_frame *fr;
    uint32_t line;
    const qr_flow_builtin *b;
};

/* ---- run.c ---- */
/* A variable's value; a parallel worker gets (and keeps) its own copy of a parent's. */
bool flow_var_get(flow_frame *fr, const char *s, size_t n, qr_val *out);
void flow_var_set(flow_frame *fr, const char *s, size_t n, qr_val v);
/* Sets fr->err ("line L: ...") and returns QR_ERUNTIME. */
int flow_fail(flow_frame *fr, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The value as prompts insert it: strings as is, numbers printed, lists and objects as
 * JSON, nil as "". */
void flow_stringify(qr_buf *out, qr_val v);
/* flow_stringify for a value of any size: appends v (as JSON when json, else as prompts
 * insert it) to out, bounded by the room left in the run's memory budget and by its time
 * and stop. QR_OK, or QR_ELIMIT / QR_ESTOPPED with fr->err set and out as it was. */
int flow_print(flow_frame *fr, uint32_t line, qr_buf *out, qr_val v, bool json);
/* A field of an object by name (keyword or string key); nil when absent. */
qr_val flow_field(qr_arena *a, qr_val obj, const char *s, size_t n);
/* Adds s to the secrets the run masks (and its trace masks). */
void flow_secret(flow_run *r, const char *s);
/* Masks the run's secrets in b. */
void flow_scrub(flow_run *r, qr_buf *b);
/* One line to the trace (a JSON object without its braces' newline). */
void flow_trace(flow_run *r, const qr_buf *obj);
/* Checks the budgets before a model call: QR_OK or QR_ELIMIT with fr->err set. */
int flow_budget_check(flow_frame *fr, uint32_t line);
/* The checks of every statement and loop turn: the stop, the time, n more steps, and the
 * memory the frame's arena holds (published to the run, and the arena's cap set to the
 * room left). QR_OK, or QR_ELIMIT / QR_ESTOPPED with fr->err set. */
int flow_tick(flow_frame *fr, uint32_t line, uint64_t n);
/* Publishes what fr's arena holds to the run; returns QR_ELIMIT (fr->err set) when the
 * run's memory budget is spent, else sets the arena's cap to the room left. */
int flow_mem_sync(flow_frame *fr, uint32_t line);
/* Calls the Lisp builtin `lisp` for the flow function `fname` under the run's limits,
 * allocating in fr's arena; a failure becomes fr->err ("line L: fname() ...") and
 * QR_ERUNTIME, QR_ELIMIT or QR_ESTOPPED. */
int flow_lisp_call(flow_frame *fr, uint32_t line, const char *fname, const char *lisp,
                   int argc, const qr_val *argv, qr_val *out);
/* "a string", "a list", "an object", "null"... */
const char *flow_type_of(qr_val v);
bool flow_is_list(qr_val v);
/* == of flows: numbers by value, strings and keywords by text, else qr_equal. */
bool flow_values_equal(qr_val a, qr_val b);
void flow_budget_add(flow_run *r, const qr_llm_usage *u);
double flow_now_ms(void);
/* Runs a flow's statements in fr. */
int flow_run_flow(flow_frame *fr, const qr_flow_decl *flow, qr_val *out);
qr_val flow_copy(qr_arena *a, qr_val v);

/* ---- run_model.c ---- */
/* Renders a prompt's body with the context. */
int flow_render_prompt(flow_frame *fr, const qr_flow_decl *p, uint32_t line, qr_buf *out);
int flow_call_llm(flow_frame *fr, const qr_flow_expr *e, qr_val *out);
int flow_run_agent(flow_frame *fr, const qr_flow_decl *agent, const qr_flow_expr *with,
                   const char *input, size_t inputn, uint32_t line, qr_val *out);
void flow_frame_release(flow_frame *fr);

/* The conversation of one call or agent run: messages whose strings it owns. */
typedef struct convo {
    qr_llm_message *m;
    size_t n, cap;
    char **owned;
    size_t nowned;
} convo;
bool flow_convo_add(convo *c, const char *role, const char *s, size_t n, const char *calls,
                    size_t callsn, const char *call_id);
void flow_convo_free(convo *c);
/* The client for a model declaration (NULL: the configured default), made on first use
 * in this frame. NULL with fr->err set when no model is configured. */
qr_llm *flow_client_for(flow_frame *fr, const qr_flow_decl *model, uint32_t line);
/* `using model` on the call, else the prompt's, else `main`, else the first model. */
const qr_flow_decl *flow_pick_model(flow_frame *fr, const qr_flow_name *call_model,
                                    const qr_flow_decl *prompt);
/* One model call with budget and trace; the error goes to fr->err. */
int flow_complete(flow_frame *fr, qr_llm *l, const char *what, const qr_llm_request *req,
                  uint32_t line, qr_llm_response *resp);
/* The final reply checked against `exp` (NULL: the text), asking again at most 3 times. */
int flow_finish_reply(flow_frame *fr, qr_llm *l, const char *what, const char *system,
                      size_t systemn, convo *c, const char *tools, size_t toolsn,
                      const qr_flow_prop *exp, qr_llm_response *resp, uint32_t line,
                      qr_val *out);
/* Appends "Reply with only JSON: ..." describing the expected schema. */
void flow_schema_instruction(const qr_flow_file *f, const qr_flow_prop *exp, qr_buf *out);
int flow_eval_expr(flow_frame *fr, const qr_flow_expr *e, qr_val *out);

/* ---- mcp_client.c ---- */
/* Starts the server (command line cmd via /bin/sh -c), initializes the session. */
int flow_mcp_start(const char *cmd, flow_mcp **out, qr_buf *err);
/* A session with an MCP server over Streamable HTTP (token: bearer, or NULL). */
int flow_mcp_start_http(const char *url, const char *token, flow_mcp **out, qr_buf *err);
void flow_mcp_stop(flow_mcp *m);
/* The server's tools as the neutral JSON list ([{name, description, input_schema}]). */
int flow_mcp_tools(flow_mcp *m, qr_buf *out, qr_buf *err);
/* Calls a tool; *text receives the result's text; *is_error when the tool failed. */
int flow_mcp_call(flow_mcp *m, const char *name, const char *args_json, size_t argsn,
                  qr_buf *text, bool *is_error, qr_buf *err);

#endif
