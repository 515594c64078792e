/*
 * quarry/codesearch.h: questions about code in plain words, answered with SPARQL over the
 * code graph (seed 004, tier 2). With no model, a question is read as a frame (relation x
 * subject x filters, src/agents/codeframe.h: callers, callees, includers, includes,
 * definition, unused, list, count) and a few fixed questions keep a template (recursive
 * functions, the largest functions, the most included headers); "unused" is computed on
 * the graph and the files' text, not in SPARQL. Any other question costs one model call
 * whose stable prefix is the vocabulary with examples (byte-identical every time, so
 * providers cache it), and the SPARQL it writes is parsed, checked read-only, run, and
 * repaired once with the structured error when it fails.
 *
 * Ownership: the caller owns the context; qr_codesearch_ctx_release frees the model
 * client. Errors: QR_EINVAL (no template matched and no model is configured, or the
 * repaired query still failed: the message says which), QR_ENOMEM, the store's errors.
 */
#ifndef QUARRY_CODESEARCH_H
#define QUARRY_CODESEARCH_H

#include "quarry/llm.h"
#include "quarry/sparql.h"

/* The SPARQL of the phrasing table's template that matches question, in a malloc'd
 * string, and the template's name; NULL when none matches. The tool reads frames first;
 * this table is what `quarry ask` routes code questions by. */
char *qr_codesearch_template(const char *question, const char **name);

/* The system prompt of the model path (the vocabulary and examples): stable text. */
const char *qr_codesearch_prompt(void);

typedef struct qr_codesearch_ctx {
    qr_sparql_ctx *sparql;  /* the graph (the host's sparql_query context) */
    const char *repo_dir;   /* where the model configuration is looked up */
    qr_llm *llm;            /* opened on the first question a template cannot answer */
    bool llm_tried;
    char llm_error[400]; /* why the configuration could not be read ("" when it was) */
} qr_codesearch_ctx;

void qr_codesearch_ctx_release(qr_codesearch_ctx *c);

struct qr_tool;
extern const struct qr_tool *const qr_codesearch_tools[];

#endif
