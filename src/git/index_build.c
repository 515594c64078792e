/*
 * index_build.c: what `quarry index` asks of the statistics index: fill it for every
 * commit reachable from HEAD and every ref (the commit graph, then the statistics), and
 * report how complete it is.
 *
 * Design: no engine of its own. The walk is the tools' walk (repo.c) started from every
 * ref at once; it reads the commit graph from the index and adds the commits it had to
 * read from the pack. The statistics the index lacks are computed by numstat.c's parallel
 * `git log --numstat` ranges, in batches stored one after the other. The status runs the
 * same walk without writing and asks the index which storable commits it holds.
 *
 * Rejected: `git rev-list --all` for the reachable set (a process and a parser for what
 * the walk does anyway, and the commit graph would stay empty); one transaction for the
 * whole run (an interrupted run on a large history would keep nothing); counting merges
 * as missing (the index never stores them, so they would never stop being missing).
 */
#include "git_int.h"

#include <stdlib.h>
#include <string.h>

static int walk_all(qr_git *g, qr_git_index *ix, bool write, qr_arena *a, qr_commit_info **cs,
                    size_t *n, qr_buf *err)
{
    qr_walk_opts o = {.limit = -1, .all_refs = true, .graph = ix, .graph_write = write};
    return qr__git_walk(g, &o, a, cs, n, err);
}

int qr_git_index_status(qr_git *g, qr_git_index *ix, qr_git_index_state *st, qr_buf *err)
{
    memset(st, 0, sizeof *st);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_info *cs = NULL;
    size_t n = 0, m = 0;
    git_oid *oids = NULL;
    bool *found = NULL;
    int rc = walk_all(g, ix, false, &a, &cs, &n, err);
    if (rc == QR_OK && (!(oids = calloc(n ? n : 1, sizeof *oids)) || !(found = malloc(n ? n : 1))))
        rc = QR_ENOMEM;
    for (size_t i = 0; rc == QR_OK && i < n; i++) {
        if (qr__git_stats_storable(g, &cs[i]))
            git_oid_cpy(&oids[m++], &cs[i].oid);
        else
            st->unstored++;
    }
    st->reachable = (int64_t)n;
    st->missing = (int64_t)m;
    if (rc == QR_OK && ix)
        rc = qr__git_index_bind(g, ix);
    if (rc == QR_OK && ix) {
        rc = qr__index_has_many(ix, oids, m, found, err);
        for (size_t k = 0; rc == QR_OK && k < m; k++)
            st->missing -= found[k];
        if (rc == QR_OK)
            rc = qr_git_index_count(ix, &st->indexed, &st->bytes, err);
    }
    free(oids);
    free(found);
    qr_arena_release(&a);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory reading the state of the statistics index");
    return rc;
}

int qr_git_index_update(qr_git *g, qr_git_index *ix, qr_git_progress_fn progress, void *ud,
                        const qr_stop *stop, int64_t *added, qr_buf *err)
{
    if (added)
        *added = 0;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_info *cs = NULL;
    size_t n = 0, k = 0;
    int rc = walk_all(g, ix, true, &a, &cs, &n, err);
    qr_progress p = {progress, ud, stop};
    if (rc == QR_OK)
        rc = qr__git_stats_ensure(g, ix, cs, n, &p, &k, err);
    if (added)
        *added = (int64_t)k;
    qr_arena_release(&a);
    return rc;
}
