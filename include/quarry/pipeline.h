/*
 * quarry/pipeline.h: the pipeline language over the memory graph (seed 002; docs/pipeline.md).
 * One language for search ("nodes related to these terms") and selection ("episodic nodes
 * not seen by the linker in 7 days, by priority"):
 *
 *   all | type:episodic | not-visited:linker,7d | sort:priority | limit:20
 *   match:btree journal | spread,max_hops=2 | limit:10
 *
 * Stages compose left to right over a scored set of nodes. Generators (all, match:, key:)
 * make a set; filters keep some of it; transforms sort and cut; graph algorithms (spread,
 * spectral, confluence, geodesic, manifold) explore from it. A pipeline is parsed and
 * validated as a whole before it runs (a generator first, no unknown stage, every
 * parameter well formed), with "did you mean" for near misses; each stage kind is one
 * record in a table (src/pipeline/).
 *
 * Ownership: a parsed pipeline owns its memory (qr_pipeline_free). A result holds a
 * reference to the snapshot its node indexes point into, released by
 * qr_pipeline_result_clear.
 *
 * Error codes: QR_OK; QR_EINVAL for a malformed pipeline (the error says which stage, at
 * which byte, what was expected, and a hint); QR_ERUNTIME when a stage failed while
 * running (an unknown agent is not an error: it has no visits); QR_ENOMEM.
 */
#ifndef QUARRY_PIPELINE_H
#define QUARRY_PIPELINE_H

#include "quarry/memory.h"

typedef struct qr_pipeline qr_pipeline;

/* Limits (checked by the parsers): text size, stages, and parameter ranges. */
#define QR_PIPELINE_MAX_TEXT (64u << 10)
#define QR_PIPELINE_MAX_STAGES 64
#define QR_PIPELINE_MAX_HOPS 10
#define QR_PIPELINE_MAX_K 1000
#define QR_PIPELINE_MAX_LIMIT 1000000
/* The dimension of the spectral embedding the spectral stages and sort:priority use. */
#define QR_PIPELINE_SPECTRAL_DIM 8

typedef struct qr_pipeline_error {
    int stage;         /* 0-based index of the offending stage, -1 for the whole pipeline */
    uint32_t offset;   /* byte offset in the text of the problem (the stage's start, or the
                        * parameter at fault); for qr_pipeline_parse_stages, in the stages
                        * joined by " | " */
    char message[400]; /* one line: "stage 2 'sprad' at byte 6: unknown stage ...; did
                        * you mean 'spread'?" (stages counted from 1 in the text) */
} qr_pipeline_error;

/* Parses "stage | stage | ...". Bare words before the first stage that is not a word
 * (terms) mean a match: generator. */
int qr_pipeline_parse(const char *text, size_t n, qr_pipeline **out, qr_pipeline_error *err);
/* The same from separate stages (the CLI's repeated -p STAGE). */
int qr_pipeline_parse_stages(const char *const *stages, size_t nstages, qr_pipeline **out,
                             qr_pipeline_error *err);
void qr_pipeline_free(qr_pipeline *p);
/* The normalized text of a parsed pipeline ("all | type:episodic | limit:20"). */
void qr_pipeline_text(const qr_pipeline *p, qr_buf *out);

typedef struct qr_pipeline_hit {
    uint32_t node; /* index into result.snap */
    double score;
} qr_pipeline_hit;

/* A hit's score as results show it: scores are computed from weights and link strengths
 * stored as 32-bit floats, so they carry a float's precision; this is the double of the
 * shortest decimal that reads back as the same float (0.45, not 0.44999998807907104),
 * which the JSON and EDN printers print as such. Non-finite values are returned as they
 * are. */
double qr_pipeline_score_shown(double score);

typedef struct qr_pipeline_result {
    const qr_mem_snapshot *snap; /* held until qr_pipeline_result_clear */
    qr_pipeline_hit *hits;       /* in result order */
    size_t n;
} qr_pipeline_result;

/* Number of stages of a parsed pipeline (an implicit leading `all` included). */
size_t qr_pipeline_count(const qr_pipeline *p);

/* What one stage did, for --explain: hits after it, time spent, and a note (how the
 * embedding was obtained, which seeds were used...). */
typedef struct qr_pipeline_stat {
    char stage[160]; /* the stage's normalized text, cut */
    size_t count;    /* hits after the stage */
    double ms;       /* wall time of the stage */
    char note[160];  /* "" or e.g. "embedding: loaded from 'm.db.spectral'" */
} qr_pipeline_stat;

/* Run statistics per stage: stats[i] for stage i (malloc-owned, freed by
 * qr_pipeline_stats_clear); nstats is qr_pipeline_count(p) after a successful run. */
typedef struct qr_pipeline_result_stats {
    qr_pipeline_stat *stats;
    size_t nstats;
} qr_pipeline_result_stats;

/* A cache of what the graph stages derive from the store's graph (the spectral embedding
 * and the communities), keyed by the graph's fingerprint, so they are computed once per
 * process while the graph is unchanged. Keep one next to a long-lived store handle (the
 * tools' host does); one thread at a time. NULL from new when out of memory. */
typedef struct qr_pipeline_cache qr_pipeline_cache;
qr_pipeline_cache *qr_pipeline_cache_new(void);
void qr_pipeline_cache_free(qr_pipeline_cache *c);

typedef struct qr_pipeline_run_opts {
    int64_t now;              /* unix seconds age:, visits and priority compare with; 0: clock */
    qr_pipeline_cache *cache; /* NULL: a cache for this run only */
    /* The embedding and communities are also kept in a file next to the store
     * (STORE.spectral, docs/pipeline.md), read when its graph fingerprint matches and
     * rewritten (atomically) when computed. no_file_cache: neither read nor write it. */
    bool no_file_cache;
    qr_pipeline_result_stats *stats; /* NULL: none collected */
    const qr_stop *stop; /* the request's (NULL: none): checked before each stage and in
                          * the graph walks; a stop fails the run with QR_ESTOPPED */
} qr_pipeline_run_opts;

/* Runs p on the store's current snapshot. now: the time age: and not-visited: compare
 * with (unix seconds; 0 for the clock). Equivalent to qr_pipeline_run_ex with only now
 * set. */
int qr_pipeline_run(const qr_pipeline *p, qr_mem *m, int64_t now, qr_pipeline_result *out,
                    qr_buf *err);
/* opts NULL: the defaults. *out is set on QR_OK only. */
int qr_pipeline_run_ex(const qr_pipeline *p, qr_mem *m, const qr_pipeline_run_opts *opts,
                       qr_pipeline_result *out, qr_buf *err);
void qr_pipeline_result_clear(qr_pipeline_result *r);
/* Frees what a run collected into stats (the struct itself is the caller's). */
void qr_pipeline_stats_clear(qr_pipeline_result_stats *s);

/* ---- the stage table, for help and docs ---- */
typedef enum {
    QR_STAGE_GENERATOR,
    QR_STAGE_FILTER,
    QR_STAGE_TRANSFORM,
    QR_STAGE_GRAPH,
} qr_pipeline_stage_kind;

typedef struct qr_pipeline_stage_info {
    const char *name; /* "not-visited" */
    qr_pipeline_stage_kind kind;
    const char *syntax;  /* "not-visited:AGENT[,DURATION]" */
    const char *summary; /* one line */
    const char *example; /* "not-visited:linker,7d" */
} qr_pipeline_stage_info;

/* The stage table in order: i from 0 to qr_pipeline_stage_count() - 1 (static data;
 * NULL past the end). */
size_t qr_pipeline_stage_count(void);
const qr_pipeline_stage_info *qr_pipeline_stage_at(size_t i);
/* "generator", "filter", "transform", "graph". */
const char *qr_pipeline_kind_name(qr_pipeline_stage_kind k);

/* The memory tools (memory_query, src/pipeline/tools_memory.c; memory_get and the writes
 * memory_add, _update, _delete, _restore, _link, _unlink and _visit, which carry
 * QR_TOOL_WRITES, src/pipeline/tools_memory_write.c), NULL-terminated, for the product
 * registry. Their handlers take a qr_memory_ctx as ctx (the host above embeds
 * one and registers these tools at its offset: qr_tools_add_part) and keep the store and
 * the pipeline cache in it. */
struct qr_tool;
extern const struct qr_tool *const qr_memory_tools[];

/* What the memory tools work on. The caller owns the context and memory_path;
 * qr_memory_ctx_release closes the store and frees the cache (the context can be used
 * again). */
typedef struct qr_memory_ctx {
    /* the store a call that names none uses ($QUARRY_MEMORY, --store), or NULL */
    const char *memory_path;
    /* a call may name any store file in its `store` argument: only for a person at the
     * terminal (`quarry tool`). Off (the default) for programs (Lisp, queries, MCP,
     * agents): a call may then name only memory_path, and any other name is refused with
     * one fixed message, whatever the file is or whether it exists */
    bool any_store;
    qr_mem *mem;                       /* opened on first use (path: qr_mem_path) */
    qr_pipeline_cache *pipeline_cache; /* embedding and communities of mem's graph */
} qr_memory_ctx;

void qr_memory_ctx_release(qr_memory_ctx *c);

#endif
