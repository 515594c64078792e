/*
 * quarry/query.h: the query DSL (seed 000). A query is data, written as EDN or JSON:
 *
 *   {:fetch     [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
 *    :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}
 *                {:op :sort :on :large :as :ranked :by :files :order :desc}]
 *    :return    {:findings :ranked :summary "{{count:large}} large commits"}}
 *
 * It is validated as a whole first (against the tool registry, the request context and
 * what each step's records hold), and every problem is reported with a path into the
 * query, what was expected, what was found and a hint. A valid query compiles,
 * deterministically, to a readable PTC-Lisp program with one `def` per step, which runs
 * in the sandbox (quarry/lisp.h) like any other program. docs/query.md is the language
 * reference; the transform ops are one table (src/query/ops.c).
 *
 * Bindings are defined as `q-NAME` (so a binding may be called `rest` or `count`); names
 * given by the context are read as `data/NAME`, and `{{resolved:key}}` reads
 * `data/resolved`. Run a compiled program in a session whose data map is the context the
 * query was compiled against.
 *
 * Ownership: a qr_query_compiled owns every string in it (malloc); free them with
 * qr_query_compiled_clear. Nothing in it points into the options, the context or the
 * registry. A cache is owned by its creator and must outlive the compilations using it.
 *
 * Error codes: QR_OK; QR_EINVAL when the text is not a query or the query is invalid
 * (problems filled in, no program); QR_ENOMEM when memory ran out (a problem says so).
 * Not thread-safe: a cache is used by one thread at a time.
 */
#ifndef QUARRY_QUERY_H
#define QUARRY_QUERY_H

#include "quarry/lisp.h"
#include "quarry/tools.h"
#include "quarry/value.h"

/* Bounds on what a query may hold; beyond them it is invalid (with a problem saying so). */
#define QR_QUERY_MAX_TEXT (1u << 20) /* bytes of query text */
#define QR_QUERY_MAX_STEPS 256       /* fetches plus transforms */
#define QR_QUERY_MAX_NESTING 32      /* of :where predicates and expressions */

/* One thing wrong with a query. Every string is set ("" when there is nothing to say). */
typedef struct qr_query_problem {
    char *path;      /* into the query: ":transform[1] :where[2]"; "" for the whole query */
    char *path_json; /* the same path as a JSON array: ["transform",1,"where",2] */
    char *message;   /* what is wrong, the subject quoted: "unknown operator :>>" */
    char *expected;  /* what would be valid there: "one of := :not= :> ..." */
    char *found;     /* what was there, its type and printed form: "keyword :>>" */
    char *hint;      /* how to repair it: "did you mean :>=?" */
} qr_query_problem;

/* Where each step's `def` starts in the program, so a run-time error (which has a line)
 * can be traced to the step of the query that made it. */
typedef struct qr_query_step {
    char *path;    /* ":fetch[0]", ":transform[2]", ":return" */
    char *binding; /* the step's :as name ("" for :return) */
    uint32_t line; /* 1-based line of the program where the step starts */
} qr_query_step;

typedef struct qr_query_compiled {
    char *program; /* the Lisp source, NUL-terminated; NULL when invalid */
    size_t program_len;
    char *normalized; /* the normalized query as EDN (what the cache key hashes) */
    uint64_t hash;    /* of the normalized query and the context's shape */
    bool from_cache;  /* the program came from the cache */
    qr_query_problem *problems;
    size_t nproblems;
    qr_query_step *steps;
    size_t nsteps;
} qr_query_compiled;

/* An in-process cache of compiled programs, keyed by the hash of the normalized query
 * and of the context's shape (names, and the fields of records it holds). Least recently
 * used entries go first. */
typedef struct qr_query_cache qr_query_cache;
qr_query_cache *qr_query_cache_new(size_t capacity); /* NULL when out of memory */
void qr_query_cache_free(qr_query_cache *c);
/* Lookups that found, and did not find, a program. */
void qr_query_cache_stats(const qr_query_cache *c, uint64_t *hits, uint64_t *misses);

typedef struct qr_query_opts {
    /* the tools :fetch may name, checked against their records (required) */
    const qr_tools *tools;
    /* the request context: a map whose keys the query may name as bindings (read as
     * data/NAME) and whose :resolved map {{resolved:key}} reads; nil for none. Used
     * during the call only. */
    qr_val context;
    /* optional cache (NULL: none) */
    qr_query_cache *cache;
} qr_query_opts;

void qr_query_opts_init(qr_query_opts *o, const qr_tools *tools);

/* Reads a query from text (JSON, else one EDN form), validates it and compiles it.
 * A map {:query Q} or {:mode :query :query Q} is unwrapped. out is always filled in;
 * clear it with qr_query_compiled_clear. */
int qr_query_compile(const qr_query_opts *o, const char *src, size_t n, qr_query_compiled *out);
/* The same for a query already read as a value; json says it came from JSON (where a
 * :return string naming a binding refers to it, as a keyword does in EDN). */
int qr_query_compile_value(const qr_query_opts *o, qr_val query, bool json, qr_query_compiled *out);
void qr_query_compiled_clear(qr_query_compiled *c);

/* One line per problem: "PATH: MESSAGE; expected EXPECTED; HINT". */
void qr_query_problems_text(const qr_query_compiled *c, qr_buf *out);
/* A JSON array of {"path", "at", "message", "expected", "found", "hint"} objects, where
 * "path" is the array form and "at" the text form. */
void qr_query_problems_json(const qr_query_compiled *c, qr_buf *out);
/* The step whose code holds program line `line`, or NULL. */
const qr_query_step *qr_query_step_at(const qr_query_compiled *c, uint32_t line);

/* ---- running (src/query/run.c): the one path `quarry query`, MCP's run_query and
 * `quarry ask` take from a query to its result ---- */

/* Appends "KIND in PATH (:binding): MESSAGE" for a failed run of q's program (the step
 * is found by res->line; without one, "KIND at line N: MESSAGE" or "KIND: MESSAGE").
 * q may be NULL for a program that came from no query. */
void qr_query_describe_failure(const qr_query_compiled *q, const qr_lisp_result *res,
                               qr_buf *out);

/* Compiles a query, given as text (src, n) or, when src is NULL, as the value `query`
 * (json: it came from JSON), then runs its program in s (whose tools and data the caller
 * set; o->context should be the data). *c is always filled in (clear it with
 * qr_query_compiled_clear); *res is filled in when the program ran (clear it with
 * qr_lisp_result_clear), and *ran says so. Returns QR_OK; QR_EINVAL (or QR_ENOMEM) when
 * the query did not compile (its problems are in c); the run's code when it failed, with
 * qr_query_describe_failure's line in err. */
int qr_query_run(qr_lisp_session *s, const qr_query_opts *o, const char *src, size_t n,
                 qr_val query, bool json, qr_query_compiled *c, qr_lisp_result *res, bool *ran,
                 qr_buf *err);

/* The transform ops, from the one table that defines them: calls fn for each with its
 * name, required keys, optional keys (space-separated, e.g. ":on :as :where"), a one-line
 * summary and an example. */
void qr_query_each_op(void (*fn)(void *ud, const char *name, const char *required,
                                 const char *optional, const char *summary, const char *example),
                      void *ud);

/* The functions of :compute values and operands ([:weekday :date], [:ext :path] ...),
 * from the one table that defines them: calls fn for each with its group ("date", "path",
 * "text", "collection", "logic", "binding"), its name and a one-line usage with an
 * example. */
void qr_query_each_function(void (*fn)(void *ud, const char *group, const char *name,
                                       const char *usage),
                            void *ud);

/* Appends the DSL's reference for a model writing queries (plain text, lines of at most
 * about 90 columns): predicates, arithmetic, every function (qr_query_each_function),
 * aggregates, templates, chaining, and which date and zone the date parts read. The
 * transform ops are qr_query_each_op's. Never fails (b's own out-of-memory flag aside). */
void qr_query_reference(qr_buf *b);

#endif
