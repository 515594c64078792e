/*
 * span.c: the first and last commit times of a repository's history, for the line of
 * the agents' prompts that says what period the repository covers ("first commit
 * 2020-01-01, last commit 2026-11-23"), so a model can tell "in october" of which year
 * holds data.
 *
 * Design: one walk of the commits reachable from HEAD, reading only their headers
 * (committer times), without sorting, so its cost is one pass over the commit graph.
 * A walk that stops early (a shallow boundary, a missing object) keeps what it saw.
 *
 * Rejected: HEAD's time as the last commit (a rebased or cherry-picked HEAD can be older
 * than a commit it contains), and the statistics index (absent with --no-index, and not
 * always complete).
 */
#include "git_int.h"

/* Walks at most this many commits (a history beyond it has its span underestimated). */
#define SPAN_MAX_COMMITS 5000000

int qr_git_span(qr_git *g, int64_t *first, int64_t *last, qr_buf *err)
{
    *first = *last = 0;
    git_revwalk *w = NULL;
    int rc = QR_OK;
    if (git_revwalk_new(&w, g->repo) < 0 || git_revwalk_push_head(w) < 0) {
        qr_buf_puts(err, "the repository has no commits on HEAD");
        rc = QR_EINVAL;
        goto done;
    }
    git_oid oid;
    size_t n = 0;
    while (n < SPAN_MAX_COMMITS && git_revwalk_next(&oid, w) == 0) {
        git_commit *c;
        if (git_commit_lookup(&c, g->repo, &oid) < 0)
            break;
        int64_t t = (int64_t)git_commit_time(c);
        git_commit_free(c);
        if (!n || t < *first)
            *first = t;
        if (!n || t > *last)
            *last = t;
        n++;
    }
    if (!n) {
        qr_buf_puts(err, "the repository has no commits on HEAD");
        rc = QR_EINVAL;
    }
done:
    git_revwalk_free(w);
    return rc;
}
