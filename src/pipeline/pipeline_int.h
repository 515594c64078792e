/*
 * pipeline_int.h: what the pipeline's files share: a parsed stage, the stage records of
 * the table (stages.c), the state of a run (run.c) and the graph cache (cache.c).
 *
 *   parse.c   text -> stages: splitting, names, arguments, parameters, validation
 *   stages.c  the table: one record per stage (name, kind, syntax, docs, parse, run)
 *   run.c     the runner: the scored set, sorting with key ties, priority, stats
 *   cache.c   the spectral embedding and communities, in memory and in STORE.spectral
 */
#ifndef QUARRY_PIPELINE_INT_H
#define QUARRY_PIPELINE_INT_H

#include "quarry/pipeline.h"
#include "quarry/value.h"

typedef enum { CMP_EQ, CMP_GT, CMP_GE, CMP_LT, CMP_LE } pl_cmp;

typedef enum {
    SF_PRIORITY,
    SF_SCORE,
    SF_TIMESTAMP,
    SF_CREATED,
    SF_WEIGHT,
    SF_DEGREE,
    SF_CONTENT_LEN,
    SF_KEY_LEN,
    SF_KEY,
    SF_N
} pl_sort_field;

#define PL_MAX_PARAMS 4

typedef struct pl_fctx {
    int64_t i;           /* a tag, agent or community index */
    const void *p;       /* e.g. the communities */
    unsigned char *mask; /* malloc-owned, e.g. the matching types */
} pl_fctx;
#define PL_MAX_TERMS 64

struct pl_def;

typedef struct pl_stage {
    const struct pl_def *def;
    bool negate;
    bool implicit; /* the `all` put in front of a pipeline that starts with a filter */
    uint32_t offset;
    char *text; /* normalized */
    /* arguments (which ones depends on the stage) */
    char *str; /* type, glob, provenance, agent, tag */
    char **terms;
    size_t nterms;
    pl_cmp cmp;
    double num;  /* comparison operand; durations in seconds */
    int64_t dur; /* not-visited / visited window, seconds; 0: none */
    int field;   /* sort */
    bool asc;
    uint64_t count;           /* limit, community id */
    double pv[PL_MAX_PARAMS]; /* graph parameters, in the order of the def's params */
} pl_stage;

struct qr_pipeline {
    qr_arena a; /* every string and the stage array */
    pl_stage *stages;
    size_t n;
};

/* ---- running ---- */

typedef struct pl_run {
    qr_mem *m;
    const qr_mem_snapshot *s;
    int64_t now;
    qr_pipeline_hit *hits;
    size_t n, cap;
    qr_pipeline_cache *cache;
    bool no_file_cache;
    const pl_stage *not_visited; /* the latest not-visited stage run, for sort:priority */
    char note[160];
    qr_buf *err;
    const qr_stop *stop; /* the request's: checked before each stage and inside walks */
} pl_run;

/* Makes room for n hits (keeps the first r->n). */
int pl_reserve(pl_run *r, size_t n);
/* Sorts the hits by score descending, ties by key. */
void pl_sort_by_score(pl_run *r);
/* Makes a graph stage's result the set (releasing h), sorted by score then key. */
int pl_take_hits(pl_run *r, qr_graph_hits *h);
/* The current set as graph seeds (scores below 0 or NaN taken as 0); malloc-owned. */
int pl_seeds(pl_run *r, qr_graph_item **out);
/* Sorts by a field (sort:FIELD), ties by key; for SF_PRIORITY the score becomes the
 * priority. Only the first `keep` need to be in order (a limit:keep follows; r->n when
 * none). */
int pl_sort(pl_run *r, int field, bool asc, size_t keep);
/* The run functions of sort: and limit: (the runner fuses them into a partial sort). */
int pl_run_sort(pl_run *r, const pl_stage *st);
int pl_run_limit(pl_run *r, const pl_stage *st);

/* ---- the table ---- */

typedef struct pl_param {
    const char *name;
    bool integer;
    double min, max;
    bool min_open; /* min itself not allowed */
    double def;
} pl_param;

typedef struct pl_def {
    qr_pipeline_stage_info info;
    /* what comes after ':' ("" when none); NULL for graph stages (params instead) */
    int (*parse)(pl_stage *st, qr_arena *a, const char *arg, size_t n, char *msg, size_t cap);
    /* filters: prep (optional) fills a context once per run, pred tests one node
     * (negation is applied by the runner); the runner frees ctx.mask */
    int (*prep)(pl_run *r, const pl_stage *st, struct pl_fctx *c);
    bool (*pred)(const pl_run *r, const pl_stage *st, const struct pl_fctx *c, uint32_t node);
    /* generators, transforms, graph stages */
    int (*run)(pl_run *r, const pl_stage *st);
    /* graph stages: parameters (name NULL ends; at most PL_MAX_PARAMS) */
    const pl_param *params;
    bool needs_arg; /* "name:" must be followed by something */
} pl_def;

extern const pl_def pl_defs[];
extern const size_t pl_ndefs;
const pl_def *pl_find_def(const char *name, size_t n);
const pl_def *pl_def_all(void);

/* ---- cache.c ---- */
/* The embedding / communities / centroid distances of r->s's graph, from the run's
 * cache, the file next to the store, or computed (and then stored in both). The note
 * says which. Pointers stay valid until the cache is freed or changes graph. */
int pl_cache_embedding(pl_run *r, const qr_graph_embedding **out);
int pl_cache_communities(pl_run *r, const qr_graph_communities **out);
int pl_cache_centroid_dist(pl_run *r, const double **out);

/* The nearest candidate within edit distance 2 (1 for words of 3 bytes or fewer), or
 * NULL: for "did you mean". */
const char *pl_nearest(const char *s, size_t n, const char *const *cands, size_t ncands);

/* Glob match: '*', '?', '[...]' ('!' or '^' negates, ranges), '\\' escapes. Linear
 * backtracking on the last '*' only, so O(len(p) * len(s)). */
bool pl_glob(const char *p, size_t pn, const char *s, size_t sn);

/* ---- the memory tools (tools_memory.c, tools_memory_write.c) ---- */
struct qr_tool;
struct qr_mem;
/* The store a memory tool's call uses: the context's (or $QUARRY_MEMORY), or the call's
 * `store` when the context allows any store; a program naming another store is refused
 * with one fixed message (QR_EINVAL). *out may be NULL: no store is configured. */
/* t (unix seconds) as ISO-8601 UTC with a Z ("2024-05-01T10:00:00Z"), built in a: the one
 * way the memory tools write a time. */
qr_val pl_iso_time(qr_arena *a, int64_t t);
int pl_memory_path(qr_memory_ctx *h, qr_val args, qr_arena *a, const char **out, qr_buf *err);
/* Opens the store at path (qr_mem_open flags), kept in the context (h->mem; a call naming
 * another store closes the kept one), or, without a context, a fresh handle in *own that
 * the caller closes. */
int pl_memory_open(qr_memory_ctx *h, const char *path, int flags, struct qr_mem **m,
                   struct qr_mem **own, qr_buf *err);
extern const struct qr_tool pl_memory_get_tool, pl_memory_add_tool, pl_memory_update_tool,
    pl_memory_delete_tool, pl_memory_restore_tool, pl_memory_link_tool, pl_memory_unlink_tool,
    pl_memory_visit_tool;

#endif
