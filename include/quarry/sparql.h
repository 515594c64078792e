/*
 * quarry/sparql.h: quarry's own read-only SPARQL 1.1 engine (seed 004, tiers 2-3).
 *
 * A store (qr_sparql_store) holds RDF terms encoded in a dictionary and quads in sorted
 * permutation indexes; it is filled from N-Triples/Turtle files (read with libserd) or
 * triple by triple (the code graph adapter). A query is parsed once (qr_sparql_parse) into
 * the SPARQL algebra; parsing recognises the whole SPARQL 1.1 query and update grammar,
 * and a parsed query that is not SELECT or ASK (CONSTRUCT, DESCRIBE, SERVICE, any update)
 * is refused with QR_SPARQL_REFUSED and a message saying why: read-only is a property of
 * the parsed query, never of its first word.
 *
 * Errors: functions return 0 or a negative QR_E* code and fill a qr_sparql_error, whose
 * kind tells a syntax error, a refused query, a limit and a runtime failure apart.
 * Ownership: a store owns its terms and quads; a query owns its algebra; a result owns its
 * rows. Each has a _free. Nothing here prints or exits.
 */
#ifndef QUARRY_SPARQL_H
#define QUARRY_SPARQL_H

#include "quarry/base.h"
#include "quarry/value.h"

#include <signal.h>

typedef enum qr_sparql_error_kind {
    QR_SPARQL_NONE = 0,
    QR_SPARQL_SYNTAX,  /* the text is not SPARQL 1.1 (exit 2) */
    QR_SPARQL_REFUSED, /* valid SPARQL but not a read-only SELECT/ASK (exit 2) */
    QR_SPARQL_LIMIT,   /* a limit ended the evaluation (exit 1) */
    QR_SPARQL_RUNTIME, /* evaluation or loading failed otherwise (exit 1) */
    QR_SPARQL_INPUT,   /* an RDF file could not be read or parsed (exit 2) */
} qr_sparql_error_kind;

typedef struct qr_sparql_error {
    qr_sparql_error_kind kind;
    uint32_t line, col; /* for syntax errors, 1-based; 0 when unknown */
    char msg[512];      /* one line, lowercase, subject in 'quotes' */
} qr_sparql_error;

/* Limits on one evaluation; 0 means none for each. */
typedef struct qr_sparql_limits {
    uint64_t timeout_ms;      /* wall time */
    uint64_t max_rows;        /* rows in the result (before LIMIT cuts them: an error) */
    size_t max_memory;        /* bytes of intermediate solutions and new terms */
    const qr_stop *stop;      /* the request's (NULL: none): a cancel or its deadline stops
                               * the evaluation (QR_ESTOPPED, kind QR_SPARQL_LIMIT) */
    int64_t now;              /* NOW() in epoch seconds (the caller's clock, QUARRY_NOW) */
} qr_sparql_limits;

/* ---- the store ---- */
typedef struct qr_sparql_store qr_sparql_store;

qr_sparql_store *qr_sparql_store_new(void);
void qr_sparql_store_free(qr_sparql_store *st);

/* Loads an N-Triples (.nt) or Turtle (anything else) file into the default graph (graph
 * NULL) or the named graph `graph`. base: the base IRI (NULL: the file's URI). Returns
 * QR_OK, QR_EIO or QR_EINVAL with err filled (kind QR_SPARQL_INPUT). */
int qr_sparql_store_load_file(qr_sparql_store *st, const char *path, const char *graph,
                              const char *base, qr_sparql_error *err);
/* The same for text already in memory; syntax: "ntriples" or "turtle". */
int qr_sparql_store_load_text(qr_sparql_store *st, const char *text, size_t len,
                              const char *syntax, const char *graph, const char *base,
                              qr_sparql_error *err);

/* Term kinds for qr_sparql_store_add. */
typedef enum qr_sparql_term_kind {
    QR_SPARQL_IRI = 1,
    QR_SPARQL_BLANK = 2,
    QR_SPARQL_LITERAL = 3,
} qr_sparql_term_kind;

typedef struct qr_sparql_term {
    qr_sparql_term_kind kind;
    const char *lex; /* IRI, blank node label or lexical form */
    size_t len;
    const char *datatype; /* literals: datatype IRI or NULL (xsd:string) */
    const char *lang;     /* literals: language tag or NULL */
} qr_sparql_term;

/* Adds one triple to the default graph (graph NULL) or a named graph. The strings are
 * copied. Returns QR_OK or QR_ENOMEM. Indexes are rebuilt lazily before the next query. */
int qr_sparql_store_add(qr_sparql_store *st, const char *graph, const qr_sparql_term *s,
                        const qr_sparql_term *p, const qr_sparql_term *o);
size_t qr_sparql_store_size(const qr_sparql_store *st);
/* Appends the default graph as N-Triples (sorted by subject) to out. QR_OK or QR_ENOMEM. */
int qr_sparql_store_write_ntriples(qr_sparql_store *st, qr_buf *out);

/* ---- queries ---- */
typedef struct qr_sparql_query qr_sparql_query;

typedef enum qr_sparql_form {
    QR_SPARQL_SELECT = 1,
    QR_SPARQL_ASK,
    QR_SPARQL_CONSTRUCT,
    QR_SPARQL_DESCRIBE,
    QR_SPARQL_UPDATE,
} qr_sparql_form;

/* Parses text (len bytes; NUL not needed) with the base IRI `base` (NULL: none). On
 * success *out is a query of any form; qr_sparql_check_readonly tells whether it may run.
 * Returns QR_OK, QR_EINVAL (kind QR_SPARQL_SYNTAX) or QR_ENOMEM. */
int qr_sparql_parse(const char *text, size_t len, const char *base, qr_sparql_query **out,
                    qr_sparql_error *err);
qr_sparql_form qr_sparql_query_form(const qr_sparql_query *q);
/* QR_OK for a SELECT or ASK without SERVICE; else QR_EINVAL with kind QR_SPARQL_REFUSED
 * and a message: "read-only: INSERT DATA is an update", "CONSTRUCT is not supported",
 * "DESCRIBE is not supported", "SERVICE is not supported: ...". */
int qr_sparql_check_readonly(const qr_sparql_query *q, qr_sparql_error *err);
/* Parse then check: the one call surfaces use. */
int qr_sparql_prepare(const char *text, size_t len, const char *base, qr_sparql_query **out,
                      qr_sparql_error *err);
/* The same under a budget: lim's timeout_ms (counted from this call) and stop bound the
 * parse too, QR_ELIMIT or QR_ESTOPPED with kind QR_SPARQL_LIMIT (lim NULL: none). The
 * CLI and the tool pass the limits the evaluation will run under. */
int qr_sparql_prepare_limited(const char *text, size_t len, const char *base,
                              const qr_sparql_limits *lim, qr_sparql_query **out,
                              qr_sparql_error *err);
void qr_sparql_query_free(qr_sparql_query *q);

/* ---- results ---- */
typedef struct qr_sparql_result qr_sparql_result;

/* Runs a prepared query over the store. Returns QR_OK with *out set, QR_ELIMIT (kind
 * QR_SPARQL_LIMIT: time, rows, memory or stop), QR_ERUNTIME or QR_ENOMEM. */
int qr_sparql_exec(qr_sparql_store *st, const qr_sparql_query *q, const qr_sparql_limits *lim,
                   qr_sparql_result **out, qr_sparql_error *err);
void qr_sparql_result_free(qr_sparql_result *r);

bool qr_sparql_result_is_ask(const qr_sparql_result *r);
bool qr_sparql_result_boolean(const qr_sparql_result *r);
size_t qr_sparql_result_nvars(const qr_sparql_result *r);
const char *qr_sparql_result_var(const qr_sparql_result *r, size_t i);
size_t qr_sparql_result_nrows(const qr_sparql_result *r);
/* The term at row i, column j; false when unbound. The strings live as long as the store. */
bool qr_sparql_result_get(const qr_sparql_result *r, size_t i, size_t j, qr_sparql_term *t);

typedef enum qr_sparql_format {
    QR_SPARQL_FMT_JSON = 1, /* W3C SPARQL 1.1 Query Results JSON */
    QR_SPARQL_FMT_XML,      /* W3C SPARQL Query Results XML */
    QR_SPARQL_FMT_CSV,
    QR_SPARQL_FMT_TSV,
    QR_SPARQL_FMT_TABLE, /* aligned columns for people */
} qr_sparql_format;

/* Parses "json", "xml", "csv", "tsv", "table"; -1 otherwise. */
int qr_sparql_format_parse(const char *s);
/* Writes rows [offset, offset+count) (count 0: all) of r in format f to out. */
void qr_sparql_write(const qr_sparql_result *r, qr_sparql_format f, size_t offset, size_t count,
                     qr_buf *out);

/* ---- the code graph as RDF (src/sparql/code_rdf.c; vocabulary: docs/sparql.md) ----
 * Feed one assembled code graph: its files, then its nodes in index order (edges refer to
 * them by index), then its edges. Kinds are the code graph's names: nodes "file",
 * "function", "declaration", "struct", "union", "enum", "enumerator", "typedef", "member",
 * "macro", "variable"; edges "calls", "includes", "declares", "defines", "member_of",
 * "uses_type", "expands". Triples go straight into the store's default graph. Each call
 * returns QR_OK or QR_ENOMEM (sticky); _end frees the builder and returns the first
 * error. */
typedef struct qr_sparql_code_node {
    const char *kind, *name, *file, *lang;
    const char *parent, *type, *signature, *cond; /* NULL when absent */
    uint32_t line, end_line;
    bool is_static, function_like, inactive;
} qr_sparql_code_node;

typedef struct qr_sparql_code_edge {
    const char *kind;
    int64_t from, to;             /* node indexes, -1 when not a node */
    const char *from_key, *to_key; /* a path, a header as written or an unresolved name */
    const char *file, *via;        /* where the edge is written; the macro a call goes via */
    uint32_t line;
    bool inactive;
} qr_sparql_code_edge;

typedef struct qr_sparql_code_builder qr_sparql_code_builder;
qr_sparql_code_builder *qr_sparql_code_begin(qr_sparql_store *st);
int qr_sparql_code_add_file(qr_sparql_code_builder *b, const char *path, const char *lang,
                        uint32_t lines);
int qr_sparql_code_add_node(qr_sparql_code_builder *b, const qr_sparql_code_node *n);
int qr_sparql_code_add_edge(qr_sparql_code_builder *b, const qr_sparql_code_edge *e);
int qr_sparql_code_end(qr_sparql_code_builder *b);
/* The glue: every file, node and edge of one assembled code graph (quarry/code.h). */
struct qr_code_graph;
int qr_sparql_load_code_graph(qr_sparql_store *st, const struct qr_code_graph *g);

/* ---- the sparql_query tool (tier 3) ----
 * Its handler takes a qr_sparql_ctx (the host embeds one: qr_tools_add_part). The store
 * is loaded from `data_paths` on first use and kept until qr_sparql_ctx_release. */
struct qr_code_ctx;
typedef struct qr_sparql_ctx {
    const char *data_paths;  /* RDF files of the default graph, separated by ':'; or NULL:
                              * the code graph of `code`'s repository (its working tree) */
    struct qr_code_ctx *code; /* the host's code index (shared with query_codebase) */
    qr_sparql_store *store;   /* loaded on first use */
    qr_sparql_limits limits;  /* memory cap and interrupt for tool calls (time: per call) */
} qr_sparql_ctx;

struct qr_tool;
extern const struct qr_tool *const qr_sparql_tools[];
void qr_sparql_ctx_release(qr_sparql_ctx *c);
/* The context's store, built on first use (the code graph, or the data files). */
int qr_sparql_ctx_store(qr_sparql_ctx *c, qr_sparql_store **out, qr_buf *err);
/* Rows [offset, offset+limit) of r as the tool returns them: {:vars :rows :total
 * :truncated (+ :next_offset :hint)} or {:boolean b}, built in a. */
int qr_sparql_result_page(const qr_sparql_result *r, size_t offset, size_t limit, qr_arena *a,
                          qr_val *out, qr_buf *err);

#endif
