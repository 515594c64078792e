/*
 * quarry/dwim.h: the DWIM intent parser and its verbs (seed 003). A model (or a person)
 * writes one terse line ("skeleton src/lisp/eval.c", "expand lx_eval", "grep 'qr_buf_'",
 * "callers qr_eval", "get_commits since=2024-01-01"); a deterministic parser routes it to
 * a verb or to any tool of the registry, with a confidence and the next best readings.
 *
 * Confidence bands: run at 0.85 or more, clarify (show the top three) from 0.6, suggest
 * from 0.3, reject below (qr_dwim_band).
 *
 * Ownership: everything an intent points to lives in the arena given to qr_dwim_parse.
 * Errors: QR_OK or a negative QR_E* code with one lowercase line in the qr_buf given.
 */
#ifndef QUARRY_DWIM_H
#define QUARRY_DWIM_H

#include "quarry/host.h"
#include "quarry/tools.h"
#include "quarry/value.h"

typedef enum qr_dwim_verb {
    QR_DWIM_NONE = 0,
    QR_DWIM_SKELETON,
    QR_DWIM_EXPAND,
    QR_DWIM_READ,
    QR_DWIM_GREP,
    QR_DWIM_FIX,
    QR_DWIM_VALIDATE,
    QR_DWIM_DONE,
    QR_DWIM_CALLERS,
    QR_DWIM_CALLEES,
    QR_DWIM_DEPS,
    QR_DWIM_REFERENCES,
    QR_DWIM_DEFINITION,
    QR_DWIM_PLAN,
    QR_DWIM_FETCH,
    QR_DWIM_NOTE,
    QR_DWIM_TOOL, /* a tool of the registry, named in qr_dwim_intent.tool */
    QR_DWIM_VERB_COUNT
} qr_dwim_verb;

/* "skeleton", "expand", ..., "tool"; "none" for QR_DWIM_NONE. */
const char *qr_dwim_verb_name(qr_dwim_verb v);

/* "run" (>= 0.85), "clarify" (>= 0.6), "suggest" (>= 0.3) or "reject". */
const char *qr_dwim_band(double confidence);

typedef struct qr_dwim_alt {
    qr_dwim_verb verb;
    const char *tool; /* the tool it would run */
    double confidence;
} qr_dwim_alt;

typedef struct qr_dwim_intent {
    qr_dwim_verb verb;
    const char *target;   /* the first target, or NULL */
    const char **targets; /* every target recognised, in order */
    size_t ntargets;
    const char *content; /* `fix: TEXT`, `plan: TEXT`, or lines after the first; or NULL */
    const char *tool;    /* what runs it: "skeleton", "query_codebase", "get_commits"... */
    qr_val params;       /* its arguments: a map with keyword keys */
    double confidence;
    qr_dwim_alt alts[3]; /* the next best readings, best first */
    size_t nalts;
    /* the line's first word names a tool of the lookup's registry that the registry holds
     * back (qr_tools_usable false: a write or exec capability not granted), or NULL; the
     * rest of the intent is the reading without it, and a caller should refuse the line
     * naming the tool (qr_tools_explain_refused) rather than run that reading */
    const qr_tool *refused;
    /* the verb is named but the target it needs is not: the line is sure of the verb
     * (its confidence says so) and whoever sent it is asked for the target
     * (qr_dwim_verb_needs), not for the verb; "missing": ["target"] in the JSON */
    bool missing_target;
} qr_dwim_intent;

/* What a verb needs as its target, for asking ("a file or directory", "a symbol",
 * "a pattern", "a file"), or NULL for a verb that needs none. */
const char *qr_dwim_verb_needs(qr_dwim_verb v);

/* What the parser may look up: the registry whose tools are routing targets, and whether
 * a path exists or a symbol is known (each NULL: judged by shape alone). */
typedef struct qr_dwim_lookup {
    const qr_tools *tools;
    bool (*path_exists)(void *ud, const char *path);
    bool (*symbol_known)(void *ud, const char *name);
    void *ud;
} qr_dwim_lookup;

/* Parses one line (text need not be NUL-terminated; lines after the first are content).
 * Never fails on bad input (it gets a low confidence); QR_ENOMEM when `a` is exhausted. */
int qr_dwim_parse(const qr_dwim_lookup *lk, const char *text, size_t n, qr_arena *a,
                  qr_dwim_intent *out);

/* The intent as one JSON object: {"verb","target","targets","content","tool","params",
 * "confidence","alternatives":[{"verb","tool","confidence"}]}. */
void qr_dwim_intent_json(const qr_dwim_intent *in, qr_buf *out);

/* ---- running intents (src/dwim/verbs.c) ---- */

/* How qr_dwim_run prints a result: TEXT is the terse text a model reads (the default);
 * EDN, JSON and TABLE print the same result as data: a verb run here gives a map (skeleton
 * and grep their rows under :results, read and expand the source under :text, validate,
 * fix and done their text under :text), a tool its own result. */
typedef enum qr_dwim_format {
    QR_DWIM_FMT_TEXT = 0,
    QR_DWIM_FMT_EDN,
    QR_DWIM_FMT_JSON,
    QR_DWIM_FMT_TABLE,
} qr_dwim_format;

typedef struct qr_dwim_ctx {
    qr_host *host;    /* the sources (its code graph serves skeleton, expand...) */
    qr_tools *tools;  /* the registry tool routes run through */
    const char *root; /* the working tree's top directory (absolute) */
    bool write;       /* fix may change files */
    /* bounds: lines read, grep matches, skeleton rows (0: 200, 50, 400) */
    size_t max_lines, max_matches, max_rows;
    /* what was read so far (the loop's memory, src/dwim/loop.c; NULL: none): read,
     * expand and skeleton record the file and its content; fix refuses a file whose
     * content moved on since it was read */
    struct qr_dwim_reads *reads;
    /* the request the line runs for (NULL: none): its tools, greps and processes stop on
     * its cancel or deadline */
    qr_req *req;
    /* set by qr_dwim_run when the line ran and its answer is a failure (validate: the
     * check failed), so a caller can exit 1 */
    bool failed;
    qr_dwim_format format; /* how results print (0: text) */
    size_t width;          /* TABLE: the terminal's columns (0: no limit) */
} qr_dwim_ctx;

/* The top of the working tree containing dir (git rev-parse --show-toplevel), malloc'd;
 * NULL with a message in err when dir is in no repository. */
char *qr_dwim_find_root(const char *dir, qr_buf *err);

/* A lookup whose path and symbol checks ask c (paths under c->root; symbols from the code
 * graph, assembled on first use). */
void qr_dwim_lookup_init(qr_dwim_lookup *lk, qr_dwim_ctx *c);

/* Runs an intent (whatever its confidence) and appends its result as text to out.
 * QR_EINVAL with a message for a target that is not there, a verb that needs what the
 * line lacks, or a fix without write permission. */
int qr_dwim_run(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_buf *out, qr_buf *err);

/* Restores the file of the newest edit fix made (the undo log), and drops that entry.
 * QR_EINVAL "nothing to undo" when the log is empty. */
int qr_dwim_undo(qr_dwim_ctx *c, qr_buf *out, qr_buf *err);

/* One compiler diagnostic (gcc and clang print the same shape). */
typedef struct qr_dwim_diag {
    const char *file, *severity, *message;
    uint32_t line, col;
} qr_dwim_diag;

/* Parses compiler output ("file:line:col: severity: message" lines, the column optional)
 * into diags allocated from `a`. Lines of another shape are skipped. */
size_t qr_dwim_parse_diags(const char *text, size_t n, qr_arena *a, qr_dwim_diag **out);

/* ---- the loop (src/dwim/loop.c): quarry do ---- */

struct qr_llm;

typedef struct qr_dwim_loop_opts {
    qr_dwim_ctx *ctx;
    struct qr_llm *llm;
    const char *task;
    uint32_t max_turns;   /* model calls at most; 0: 20 */
    uint32_t stall_turns; /* turns without a new result before it stops; 0: 5 */
    size_t preview_chars; /* of the last result in the prompt; 0: 1200 */
    /* where the trace events go (docs/trace.md, source "dwim": each model call, then a
     * "turn" event with the line, its verb and its result; NULL: nowhere). The loop
     * binds it to ctx->req while it runs, so tools a line calls write to it too. The
     * caller writes the "end" event. */
    struct qr_trace *trace;
    /* each turn's line and result (NULL: none) */
    void (*on_turn)(void *ud, uint32_t turn, const char *line, const char *result);
    void *on_turn_ud;
} qr_dwim_loop_opts;

typedef struct qr_dwim_loop_result {
    char *summary;    /* malloc'd: done's summary, or what the path holds */
    const char *stop; /* "done", "max-turns", "stall: ...", "model-error", "stopped" */
    uint32_t turns, calls, edits;
    uint64_t input_tokens, output_tokens; /* as the model reported them */
} qr_dwim_loop_result;

/* Runs the loop until done, a stall, the budget or a model failure (QR_EIO with the
 * message in err; r still says what was done). Each model call is one turn of the turn
 * module (quarry/turn.h) under ctx->req: when the request is cancelled or its model calls,
 * tokens or time are spent, the loop stops with r->stop "stopped" and QR_ESTOPPED (err
 * says why). */
int qr_dwim_loop_run(const qr_dwim_loop_opts *o, qr_dwim_loop_result *r, qr_buf *err);
void qr_dwim_loop_result_clear(qr_dwim_loop_result *r);

#endif
