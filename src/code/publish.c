/*
 * publish.c: what `quarry code index` records of a repository on the team database
 * (qr_code_publish, quarry/code.h): the repository's name and location, the commit its
 * graph was listed from, and every file of that graph by path, blob id and language
 * (code_repos and code_files, migration 4). The blobs' own rows are written by the graph
 * load itself (store.c, store_pg.c); this says which of them make up which repository, so
 * SQL over the team database can ask which repositories hold a function or share a blob.
 *
 * Design: one transaction that replaces the repository's file list, so a reader sees the
 * last index's list whole. The name is the working tree's directory name (the git
 * directory's, without ".git", for a bare repository), as `quarry index` names it.
 * Also the handle with no repository of its own that reads those listings back
 * (qr_code_open_shared), for questions across repositories (tools_code.c), and the
 * queue's code step (qr_code_want, qr_code_refresh): a repository in code_repos is kept at
 * its HEAD by every run of the statistics worker on it (src/git/shared_index.c calls the
 * step the CLI hands it, inside its lease, before it publishes the run). The step is a
 * `quarry code index --ref HEAD`: blob rows go in by the load's batches (idempotent, so a
 * run killed half-way leaves only rows a clean run writes too) and the listing in one
 * transaction at the end, so a killed run's claim ends and the next worker's run gives
 * what a clean one gives.
 *
 * Rejected: recording on every load (queries would write, and a read-only role could not
 * query); keying by location (a clone moved on disk would become another repository).
 */
#include "graph_int.h"

#include <stdlib.h>
#include <string.h>

static void default_name(const qr_code *c, qr_buf *out)
{
    qr_repo_dir_name(c->workdir ? c->workdir : c->gitdir, !c->workdir, out);
}

/* qr_code_publish, with QR_CODE_PRUNED passed up (a gc pruned some of g's blobs) */
static int publish(qr_code_graph *g, bool worktree, qr_buf *err)
{
    qr_code *c = g->c;
    int rc = qr__code_need_store(c, err);
    if (rc != QR_OK || !qr__code_store_shared(c->store))
        return rc;
    const char **paths = calloc(g->nfiles ? g->nfiles : 1, sizeof *paths);
    const char **oids = calloc(g->nfiles ? g->nfiles : 1, sizeof *oids);
    int *langs = calloc(g->nfiles ? g->nfiles : 1, sizeof *langs);
    qr_buf name;
    qr_buf_init(&name);
    default_name(c, &name);
    if (!paths || !oids || !langs || name.failed) {
        rc = QR_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < g->nfiles; i++) {
        paths[i] = g->files[i].path;
        oids[i] = g->files[i].oid;
        langs[i] = (int)g->files[i].lang;
    }
    rc = qr__code_store_record(c->store, name.p, c->workdir ? c->workdir : c->gitdir,
                               g->commit[0] ? g->commit : NULL, worktree, paths, oids, langs,
                               g->nfiles, err);
done:
    free(paths);
    free(oids);
    free(langs);
    qr_buf_release(&name);
    return rc;
}

int qr_code_publish(qr_code_graph *g, bool worktree, qr_buf *err)
{
    int rc = publish(g, worktree, err);
    if (rc == QR_CODE_PRUNED) {
        qr__code_gcache_clear(g->c->gitdir, NULL); /* the next load parses them again */
        qr_buf_puts(err, ": nothing recorded; run 'quarry code index' again");
        rc = QR_EIO;
    }
    return rc;
}

int qr_code_open_shared(const char *local, qr_code **out, qr_buf *err)
{
    *out = NULL;
    qr_code *c = calloc(1, sizeof *c);
    if (!c || !(c->open_path = strdup(local ? local : "."))) {
        free(c);
        return QR_ENOMEM;
    }
    int rc = qr__code_need_store(c, err);
    if (rc != QR_OK) {
        qr_code_close(c);
        return rc;
    }
    *out = c;
    return QR_OK;
}

int qr_code_shared_repos(qr_code *c, qr_arena *a, const char ***names, size_t *n, qr_buf *err)
{
    int rc = qr__code_need_store(c, err);
    return rc != QR_OK ? rc : qr__code_store_repos(c->store, a, names, n, err);
}

int qr_code_shared_listing(qr_code *c, const char *name, qr_arena *a, qr_code_listing *out,
                           qr_buf *err)
{
    int rc = qr__code_need_store(c, err);
    return rc != QR_OK ? rc : qr__code_store_listing(c->store, name, a, out, err);
}

static int open_at(const char *dir, qr_code **c, qr_buf *name, qr_buf *err)
{
    int rc = qr_code_open(dir, c, err);
    if (rc == QR_OK && (rc = qr__code_need_repo(*c, err)) == QR_OK &&
        (rc = qr__code_need_store(*c, err)) == QR_OK && !qr__code_store_shared((*c)->store)) {
        qr_buf_puts(err, "the code graph's queue is on the team database: set "
                         "QUARRY_DATABASE_URL (or give the worker --store)");
        rc = QR_EINVAL;
    }
    if (rc == QR_OK) {
        default_name(*c, name);
        if (name->failed)
            rc = QR_ENOMEM;
    }
    return rc;
}

int qr_code_want(const char *dir, qr_buf *err)
{
    qr_code *c = NULL;
    qr_buf name;
    qr_buf_init(&name);
    int rc = open_at(dir, &c, &name, err);
    if (rc == QR_OK)
        rc = qr__code_store_want(c->store, name.p, c->workdir ? c->workdir : c->gitdir, err);
    qr_buf_release(&name);
    qr_code_close(c);
    return rc;
}

int qr_code_refresh(const char *location, const qr_stop *stop, qr_code_progress_fn progress,
                    void *ud, bool *done, qr_buf *err)
{
    *done = false;
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    qr_buf name;
    qr_buf_init(&name);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_listing ls;
    int rc = open_at(location, &c, &name, err);
    int have = rc == QR_OK ? qr__code_store_listing(c->store, name.p, &a, &ls, err) : rc;
    /* queued for its code graph: HEAD's, recorded; loaded again (once) when a gc pruned
     * some of its blobs in between, which the record then says */
    for (int tries = 0; have == QR_OK && tries < 2 && !*done; tries++) {
        qr_code_opts o = {.ref = "HEAD", .progress = progress, .progress_ud = ud, .stop = stop};
        qr_code_graph_free(g);
        g = NULL;
        if ((rc = qr_code_load(c, &o, &g, err)) != QR_OK)
            break;
        rc = publish(g, false, err);
        if (rc == QR_CODE_PRUNED) {
            qr__code_gcache_clear(c->gitdir, NULL);
            if (tries == 0)
                qr_buf_reset(err);
            else
                rc = QR_EIO;
            continue;
        }
        if (rc != QR_OK)
            break;
        *done = true;
    }
    if (have != QR_OK && have != 1)
        rc = have; /* the listing could not be read */
    qr_code_graph_free(g);
    qr_arena_release(&a);
    qr_buf_release(&name);
    qr_code_close(c);
    return rc;
}
