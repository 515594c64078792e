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

typedef struct qr_pipeline_error {
    int stage;        /* 0-based index of the offending stage, -1 for the whole pipeline */
    uint32_t offset;  /* byte offset in the text where the stage starts */
    char message[400];
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

typedef struct qr_pipeline_result {
    const qr_mem_snapshot *snap; /* held until qr_pipeline_result_clear */
    qr_pipeline_hit *hits;       /* in result order */
    size_t n;
} qr_pipeline_result;

/* Runs p on the store's current snapshot. now: the time age: and not-visited: compare
 * with (unix seconds; 0 for the clock). */
int qr_pipeline_run(const qr_pipeline *p, qr_mem *m, int64_t now, qr_pipeline_result *out,
                    qr_buf *err);
void qr_pipeline_result_clear(qr_pipeline_result *r);

#endif
