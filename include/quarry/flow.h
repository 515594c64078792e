/*
 * quarry/flow.h: the workflow language of seed 001 (concrete syntax in
 * ../shared/specs/flow-language.md). One file holds models, tools, schemas, prompts,
 * agents and flows; `qr_flow_parse` reads it into a syntax tree, `qr_flow_check` finds
 * what is wrong before anything runs, `qr_flow_format` prints the canonical layout and
 * `qr_flow_run` runs a flow on quarry's LLM client and tool registry.
 *
 * Positions: lines and columns are 1-based; columns count code points. Every diagnostic
 * has a stable code (E0001...; the list is in docs/flow.md), a one-line message, an
 * optional help line, and a span (line, column, length in code points).
 *
 * Ownership: a parsed file (qr_flow_file) lives in the arena given to qr_flow_parse and
 * points into the source text, which must outlive it. Diagnostics are malloc-owned by a
 * qr_flow_diags (qr_flow_diags_clear). Nothing here prints or exits.
 *
 * Error codes: qr_flow_parse returns QR_OK even for a file with syntax errors (they are
 * diagnostics; the tree holds what could be parsed); QR_ENOMEM when the arena is
 * exhausted. qr_flow_run returns QR_OK, QR_ERUNTIME (the flow failed; the message is in
 * its error buffer), QR_ELIMIT (a budget ran out: calls, tokens, time, steps, memory or
 * nesting), QR_ESTOPPED (budget.stop asked it to end) or QR_ENOMEM.
 */
#ifndef QUARRY_FLOW_H
#define QUARRY_FLOW_H

#include "quarry/base.h"
#include "quarry/value.h"

/* ---- diagnostics ---- */
typedef enum { QR_FLOW_ERROR = 0, QR_FLOW_WARNING = 1 } qr_flow_severity;

typedef struct qr_flow_diag {
    qr_flow_severity severity;
    char code[8];  /* "E0001" */
    char *message; /* one line, lowercase */
    char *help;    /* one line, or NULL */
    uint32_t line, col, len;
} qr_flow_diag;

typedef struct qr_flow_diags {
    qr_flow_diag *v;
    size_t n, cap;
    size_t errors, warnings;
    bool truncated; /* more than QR_FLOW_MAX_DIAGS were found */
} qr_flow_diags;

/* Diagnostics kept per file; past this one "too many diagnostics" note ends the list. */
#define QR_FLOW_MAX_DIAGS 200

void qr_flow_diags_init(qr_flow_diags *d);
void qr_flow_diags_clear(qr_flow_diags *d);
/* Adds one (message and help are formatted copies; help may be NULL). */
void qr_flow_diag_add(qr_flow_diags *d, qr_flow_severity sev, const char *code, uint32_t line,
                      uint32_t col, uint32_t len, const char *help, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/* Sorts by position (stable), as compilers print them. */
void qr_flow_diags_sort(qr_flow_diags *d);

/* Renders d as a compiler does: "error[E0001]: ...", " --> FILE:L:C", the source line
 * with carets under the span, "= help: ...". src is the file's text (for the lines). */
void qr_flow_diags_render(const qr_flow_diags *d, const char *file, const char *src, size_t n,
                          bool color, qr_buf *out);
/* The JSON object of one file: {"file":..,"valid":..,"diagnostics":[...]}. valid is
 * false when there are errors, or warnings under strict. */
void qr_flow_diags_json(const qr_flow_diags *d, const char *file, bool strict, qr_buf *out);

/* ---- the syntax tree ---- */
typedef struct qr_flow_pos {
    uint32_t line, col, len; /* len: code points of the token or name */
} qr_flow_pos;

typedef struct qr_flow_name {
    const char *s; /* points into the source */
    uint32_t n;
    qr_flow_pos pos;
} qr_flow_name;

typedef enum qr_flow_expr_kind {
    QR_FX_NAME,      /* a variable (or a prompt) by name; dollar when written $x */
    QR_FX_FIELD,     /* .a.b inside filter ... where: a field of the current item */
    QR_FX_STRING,    /* s/n: the decoded text; raw: the literal as written */
    QR_FX_NUMBER,    /* raw: the literal */
    QR_FX_BOOL,      /* op: 0 or 1 */
    QR_FX_NULL,
    QR_FX_LIST,      /* items */
    QR_FX_OBJECT,    /* keys, items */
    QR_FX_GET,       /* a.name */
    QR_FX_CALL,      /* name(items) */
    QR_FX_UNARY,     /* op a: '-' or 'n' (not) */
    QR_FX_BINARY,    /* a op b */
    QR_FX_FILTER,    /* filter a where b */
    QR_FX_PAREN,     /* (a), kept for the formatter */
    QR_FX_RUN_AGENT, /* run agent name [with a] */
    QR_FX_RUN_FLOW,  /* run name [with a] */
    QR_FX_CALL_LLM,  /* call llm name [with a] [using model "model"] */
} qr_flow_expr_kind;

/* Binary operators (op of QR_FX_BINARY). */
enum {
    QR_FOP_OR = 1, QR_FOP_AND, QR_FOP_EQ, QR_FOP_NE, QR_FOP_LT, QR_FOP_LE, QR_FOP_GT,
    QR_FOP_GE, QR_FOP_CONTAINS, QR_FOP_NORM_EQ, QR_FOP_ADD, QR_FOP_SUB, QR_FOP_MUL,
    QR_FOP_DIV, QR_FOP_MOD,
};
/* The operator as written ("or", "==", "contains", "~"...). */
const char *qr_flow_op_text(int op);

typedef struct qr_flow_expr qr_flow_expr;
struct qr_flow_expr {
    qr_flow_expr_kind kind;
    qr_flow_pos pos;
    int op;
    qr_flow_name name;    /* NAME, FIELD (dotted text), GET, CALL, RUN_*, CALL_LLM */
    const char *s;        /* STRING: decoded (arena) */
    size_t n;
    const char *raw;      /* STRING, NUMBER: as written (source) */
    size_t rawn;
    bool dollar;          /* NAME written $x */
    qr_flow_expr *a, *b;  /* operands; RUN_* and CALL_LLM: a is the `with` expression */
    qr_flow_expr **items; /* LIST, OBJECT (values), CALL (arguments) */
    qr_flow_name *keys;   /* OBJECT */
    size_t nitems;
    qr_flow_name model;   /* CALL_LLM using model "model" (n == 0 when absent) */
    uint32_t height;      /* nodes on the longest path down, at most QR_FLOW_MAX_EXPR_HEIGHT */
};

/* The deepest expression tree the parser builds (a longer chain of operators is error
 * E0007), so every walk of a tree is bounded. */
#define QR_FLOW_MAX_EXPR_HEIGHT 1000

typedef enum qr_flow_stmt_kind {
    QR_FS_ASSIGN,   /* target = expr */
    QR_FS_EXPR,     /* run agent / run flow / call llm as a statement */
    QR_FS_FOR,      /* for var in expr do body end */
    QR_FS_IF,       /* if expr: body [else: orelse] */
    QR_FS_PARALLEL, /* parallel do body end */
    QR_FS_PUSH,     /* push expr to target */
    QR_FS_RETURN,   /* return [expr] */
    QR_FS_LOG,      /* log expr */
} qr_flow_stmt_kind;

typedef struct qr_flow_stmt qr_flow_stmt;
struct qr_flow_stmt {
    qr_flow_stmt_kind kind;
    qr_flow_pos pos;
    uint32_t end_line;
    qr_flow_name *target; /* ASSIGN and PUSH: the path a.b.c; FOR: [var] */
    size_t ntarget;
    qr_flow_expr *e;
    qr_flow_stmt **body, **orelse;
    size_t nbody, norelse;
    uint32_t end_kw_line; /* FOR, PARALLEL: the line of `end`; IF: last line of the block */
};

typedef enum qr_flow_decl_kind {
    QR_FD_MODEL,
    QR_FD_TOOL,
    QR_FD_SCHEMA,
    QR_FD_PROMPT,
    QR_FD_AGENT,
    QR_FD_FLOW,
} qr_flow_decl_kind;

/* A schema field's type. */
typedef enum { QR_FT_STRING, QR_FT_INT, QR_FT_FLOAT, QR_FT_BOOL, QR_FT_REF, QR_FT_LIST,
               QR_FT_ANY } qr_flow_type_kind;
typedef struct qr_flow_type qr_flow_type;
struct qr_flow_type {
    qr_flow_type_kind kind;
    qr_flow_name ref;   /* REF: the schema's name */
    qr_flow_type *elem; /* LIST */
    bool optional;
};

/* One property line of a block (model, agent) or a schema field, or a prompt modifier. */
typedef struct qr_flow_prop {
    qr_flow_name key;
    qr_flow_name *names; /* agent: tools/delegate/use lists, instruction, prompt, produces */
    size_t nnames;
    const char *value; /* a string's decoded text or a raw value (model blocks) */
    size_t valuen;
    const char *raw; /* as written, for the formatter */
    size_t rawn;
    qr_flow_type *type; /* schema fields */
    bool list;          /* prompt `expecting S[]` */
    uint32_t line;
} qr_flow_prop;

typedef struct qr_flow_decl {
    qr_flow_decl_kind kind;
    qr_flow_name name; /* agent: n == 0 when written `agent:` (it is then called main) */
    qr_flow_pos pos;   /* of the keyword */
    uint32_t end_line;
    bool block;        /* model written as a block */
    /* model `= provider/model` and tool `= builtin x.y` / `= mcp "url"`: */
    const char *value; /* model: "provider/model"; tool: the dotted name or the url */
    size_t valuen;
    const char *raw; /* the right side as written */
    size_t rawn;
    bool mcp;                 /* tool: an MCP server */
    const char *auth;         /* tool: the bearer token (decoded), or NULL */
    size_t authn;
    const char *auth_raw;
    size_t auth_rawn;
    qr_flow_prop *props;      /* model block, schema fields, agent properties, prompt modifiers */
    size_t nprops;
    bool has_body;            /* prompt */
    const char *body;         /* prompt: the body's text */
    size_t bodyn;
    const char *body_raw;     /* with its quotes */
    size_t body_rawn;
    qr_flow_pos body_pos;
    uint32_t body_line;       /* line where the body starts */
    qr_flow_stmt **stmts;     /* flow */
    size_t nstmts;
} qr_flow_decl;

typedef struct qr_flow_comment {
    uint32_t line, col;
    const char *s; /* from '#' to the end of the line, trailing blanks cut */
    size_t n;
    bool own_line; /* nothing but blanks before it on its line */
} qr_flow_comment;

typedef struct qr_flow_file {
    const char *src;
    size_t n;
    const char *header; /* "streetrace v1" when the file starts so (after comments and
                         * blank lines, if any), else NULL */
    size_t headern;
    uint32_t header_line; /* the version line's line number (1-based), 0 without one */
    qr_flow_decl **decls;
    size_t ndecls;
    qr_flow_comment *comments;
    size_t ncomments;
    uint8_t *blank; /* blank[l] != 0: line l (1-based) holds only blanks */
    uint32_t nlines;
} qr_flow_file;

/* Parses src[0..n) (`name` is only used in messages). Syntax and indentation problems
 * go to diags (E0007, E0008); the tree keeps every declaration that parsed. */
int qr_flow_parse(qr_arena *a, const char *src, size_t n, qr_flow_file **out,
                  qr_flow_diags *diags);

/* Semantic checks (E0001..E0015, W0002, W0003) of a parsed file, appended to diags. */
int qr_flow_check(const qr_flow_file *f, qr_flow_diags *diags);

/* Parse and check in one call; diagnostics sorted. */
int qr_flow_check_text(qr_arena *a, const char *src, size_t n, qr_flow_file **out,
                       qr_flow_diags *diags);

/* The canonical layout of a file that parsed without errors, appended to out. */
int qr_flow_format(const qr_flow_file *f, qr_buf *out);

/* ---- builtin functions of expressions ----
 * One record per function: the checker (arity, "did you mean"), the runtime, the
 * language server's completion and docs/flow.md's list all read this table. Most call
 * the Lisp builtin named in `lisp` through qr_lisp_call, so a flow gets the sandbox's
 * semantics, messages and limits; docs/decisions.md records where a flow function
 * deliberately differs. */
struct qr_flow_call; /* the run-time context of one call (src/flow) */
typedef int (*qr_flow_builtin_fn)(struct qr_flow_call *c, int argc, const qr_val *argv,
                                  qr_val *out);
typedef struct qr_flow_builtin {
    const char *name;
    int min_args, max_args;
    qr_flow_builtin_fn fn; /* NULL: the Lisp builtin `lisp`, called as it is */
    const char *lisp;  /* the Lisp builtin it calls, or NULL (json, parse_json) */
    const char *usage; /* "join(list, sep)" */
    const char *doc;   /* one line */
} qr_flow_builtin;

/* The table, ending with a record whose name is NULL. */
const qr_flow_builtin *qr_flow_builtins(void);
/* Calls b on argc values: its own function, or the Lisp builtin it names. */
int qr_flow_builtin_call(const qr_flow_builtin *b, struct qr_flow_call *c, int argc,
                         const qr_val *argv, qr_val *out);
/* The record of s[0..n), or NULL. */
const qr_flow_builtin *qr_flow_builtin_find(const char *s, size_t n);

/* Lookups in a parsed file (NULL when absent). An agent's name is "main" when unnamed. */
const qr_flow_decl *qr_flow_find(const qr_flow_file *f, qr_flow_decl_kind kind, const char *s,
                                 size_t n);
/* The schema a variable's value has, as the file says (src/flow/infer.c): from its first
 * setting (`x = call llm P`, P expecting S; `x = run agent A`; an agent that `produces x`;
 * `x = filter y ...`; `for x in y`; `x = y`; `x = y.field` of a schema type). A list of S
 * gives S. only_one: NULL unless exactly one statement or agent sets it (the checker's
 * rule, so a variable set twice is never judged by one of them). NULL when unknown. */
const qr_flow_decl *qr_flow_var_schema(const qr_flow_file *f, const char *s, size_t n,
                                       bool only_one);
/* The same for an expression; item: the schema of the current item inside
 * `filter ... where` (for `.field`), or NULL. */
const qr_flow_decl *qr_flow_expr_schema(const qr_flow_file *f, const qr_flow_expr *e,
                                        const qr_flow_decl *item, bool only_one);

/* The builtin tool groups an agent's `tools` line may name ("git", "memory", "files",
 * "quarry"), NULL-terminated; static. */
const char *const *qr_flow_tool_groups(void);

/* The name a declaration goes by ("main" for an unnamed agent). */
qr_flow_name qr_flow_decl_name(const qr_flow_decl *d);
const char *qr_flow_decl_kind_name(qr_flow_decl_kind k);

/* ---- running ---- */
/* What one run may spend. Every field's 0 means the library's default (below), so a
 * zeroed budget is a sane one, never "no limit"; a surface that wants more says so. All
 * of a run's work counts against the one budget, `parallel do` workers included: one
 * struct, so that a caller's request object can fill it in.
 *   max_calls   model calls per run                               (QR_FLOW_DEFAULT_CALLS)
 *   max_tokens  input + output tokens per run                     (QR_FLOW_DEFAULT_TOKENS)
 *   max_ms      wall time per run                                 (QR_FLOW_DEFAULT_MS)
 *   max_steps   statements, loop turns, function calls, filtered
 *               items, and the Lisp steps of the functions        (QR_FLOW_DEFAULT_STEPS)
 *   max_memory  bytes of the values the run builds                (QR_FLOW_DEFAULT_MEMORY)
 *   max_turns   model turns of one agent run                      (QR_FLOW_DEFAULT_TURNS)
 *   workers     statements of one `parallel do` run at once       (QR_FLOW_DEFAULT_WORKERS)
 *   stop        when not NULL, the run ends (QR_ESTOPPED) once qr_stop_check says so:
 *               a cancel from another thread, or its deadline */
typedef struct qr_flow_budget {
    uint32_t max_calls;
    uint64_t max_tokens;
    uint32_t max_ms;
    uint64_t max_steps;
    size_t max_memory;
    uint32_t max_turns;
    uint32_t workers;
    const qr_stop *stop;
} qr_flow_budget;

#define QR_FLOW_DEFAULT_CALLS 100u
#define QR_FLOW_DEFAULT_TOKENS 1000000u
#define QR_FLOW_DEFAULT_MS 600000u
#define QR_FLOW_DEFAULT_STEPS 100000000u
#define QR_FLOW_DEFAULT_MEMORY ((size_t)256 << 20)
#define QR_FLOW_DEFAULT_TURNS 8u
#define QR_FLOW_DEFAULT_WORKERS 4u

/* Fills b with the defaults (stop NULL). */
void qr_flow_budget_default(qr_flow_budget *b);
/* Replaces every 0 field of b with its default. */
void qr_flow_budget_fill(qr_flow_budget *b);

struct qr_llm_config;
struct qr_tools;

typedef struct qr_flow_run_opts {
    const char *flow;  /* entry flow or agent name, or NULL for the default rules */
    const char *input; /* input_prompt, or NULL for "" */
    size_t inputn;
    const struct qr_llm_config *llm; /* the configured model (URL, key...) */
    struct qr_tools *tools;          /* quarry's registry (builtin tools), may be NULL */
    qr_flow_budget budget;
    /* trace: one JSON object a line, or NULL */
    void (*trace)(void *ud, const char *line, size_t n);
    void *trace_ud;
    /* log statements and notes: one line, or NULL */
    void (*log)(void *ud, const char *line);
    void *log_ud;
    /* the request the run belongs to (quarry/req.h): its cancel and deadline stop the run,
     * its tools and its model calls; NULL: the run makes its own from the budget */
    struct qr_req *req;
    /* the working tree the `files` tools read (absolute; NULL: they are not offered), and
     * whether they may change files there (edit_file is offered only then) */
    const char *root;
    bool write_files;
    struct qr_host *host; /* the sources edit_file refreshes (quarry/host.h); with root */
} qr_flow_run_opts;

typedef struct qr_flow_result {
    char *value; /* the returned value printed (a string as is, else JSON); malloc */
    size_t len;
    uint32_t calls;
    uint64_t tokens_in, tokens_out;
    char error[600]; /* one line when the run failed */
} qr_flow_result;

void qr_flow_result_clear(qr_flow_result *r);
/* Runs the entry point of a file that checked without errors. */
int qr_flow_run(const qr_flow_file *f, const qr_flow_run_opts *o, qr_flow_result *out);

#endif
