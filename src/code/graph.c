/*
 * graph.c: the code graph of one commit or of the working tree. Lists the files (a
 * commit's tree, or the git index overlaid with the working tree's changes, each changed
 * file hashed as `git hash-object` does), indexes each blob the store lacks (extract.c,
 * ctags.c), then assembles nodes and edges from the stored per-blob results and resolves
 * names across files: calls to the function definition they reach (a static function in
 * the caller's file first, else the external definition, preferring the caller's file),
 * calls written through a project function-like macro to what its body calls (`via`),
 * includes to repository files, and which preprocessor branches are disabled (`#if 0`,
 * `#ifdef` of a macro no file defines). Blobs are parsed on one thread per processor, in
 * batches read and stored by the calling thread.
 *
 * Lookups are sorted index arrays (nodes by name, edges by from-key and by to-key) built
 * once per graph: deterministic, compact, and O(log n) for the queries.
 *
 * Rejected: storing resolved edges per commit (a commit's graph is cheap to assemble
 * from blobs, and per-commit rows would multiply the store by the history's length);
 * following symbolic links (a link can leave the tree; links are counted and skipped).
 */
#define _GNU_SOURCE /* qsort_r: the comparators take the graph, not a global */
#include "graph_int.h"

#include "../git/git_dl.h" /* libgit2, loaded on first use */
#include "ppconf.h"
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_BYTES (2u << 20)
#define BINARY_SNIFF 8000
#define MACRO_DEPTH 8
#define INDEX_BATCH 64       /* blobs read, parsed and stored together */
#define INDEX_THREADS_MAX 8  /* parsing threads at most */

/* ---- the index handle ---- */

/* The repository of path as libgit2 finds it: c->repo, c->gitdir (the common directory),
 * c->workdir. */
static int open_repo(qr_code *c, const char *path, qr_buf *err)
{
    if (!qr__git_load(err))
        return QR_EIO;
    git_libgit2_init();
    git_repository *repo = NULL;
    if (git_repository_open_ext(&repo, path ? path : ".", 0, NULL) != 0) {
        const git_error *ge = git_error_last();
        qr_buf_printf(err, "not a git repository: '%s'%s%s", path ? path : ".",
                      ge && ge->message ? ": " : "", ge && ge->message ? ge->message : "");
        git_libgit2_shutdown();
        return QR_EINVAL;
    }
    const char *common = git_repository_commondir(repo);
    size_t n = strlen(common);
    while (n > 1 && common[n - 1] == '/')
        n--;
    char *gitdir = strndup(common, n), *workdir = NULL;
    const char *wd = git_repository_workdir(repo);
    if (wd) {
        n = strlen(wd);
        while (n > 1 && wd[n - 1] == '/')
            n--;
        workdir = strndup(wd, n);
    }
    if (!gitdir || (wd && !workdir)) {
        free(gitdir);
        free(workdir);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return QR_ENOMEM;
    }
    /* libgit2's word wins over the fast discovery's (a path through a symbolic link may
     * read differently); a kept snapshot names libgit2's, so a difference only means the
     * fast path is not taken */
    free(c->gitdir);
    free(c->workdir);
    c->gitdir = gitdir;
    c->workdir = workdir;
    c->repo = repo;
    return QR_OK;
}

/* The repository of path found as git would in the plain layouts (a .git directory, or a
 * .git file naming a worktree's directory with its commondir), without libgit2: only a
 * working tree whose stat snapshot matches uses it (gcache.c), and the first need of git
 * opens the repository with libgit2 and checks it is the same. */
static bool fast_discover(qr_code *c, const char *path)
{
    char *dir = realpath(path ? path : ".", NULL);
    if (!dir)
        return false;
    bool found = false;
    qr_buf p;
    qr_buf_init(&p);
    for (;;) {
        struct stat sb;
        qr_buf_reset(&p);
        qr_buf_printf(&p, "%s/.git", strcmp(dir, "/") ? dir : "");
        if (p.failed)
            break;
        if (lstat(p.p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                size_t l = p.len;
                qr_buf_puts(&p, "/commondir");
                bool plain = !p.failed && access(p.p, F_OK) != 0;
                p.len = l;
                if (p.p)
                    p.p[l] = 0;
                qr_buf_puts(&p, "/HEAD");
                plain = plain && !p.failed && access(p.p, F_OK) == 0;
                p.len = l;
                if (p.p)
                    p.p[l] = 0;
                if (plain) {
                    c->gitdir = realpath(p.p, NULL);
                    c->workdir = strdup(dir);
                    found = c->gitdir && c->workdir;
                }
            } else if (S_ISREG(sb.st_mode)) {
                /* "gitdir: X": a linked worktree; its commondir names the repository */
                char *text = NULL, *ct = NULL;
                size_t len = 0, cl = 0;
                const char *why = NULL;
                if (qr_read_regular_file(p.p, 4096, &text, &len, &why) == QR_OK &&
                    len > 8 && !strncmp(text, "gitdir: ", 8)) {
                    while (len > 8 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                        text[--len] = 0;
                    qr_buf w;
                    qr_buf_init(&w);
                    if (text[8] == '/')
                        qr_buf_puts(&w, text + 8);
                    else
                        qr_buf_printf(&w, "%s/%s", dir, text + 8);
                    size_t wl = w.len;
                    qr_buf_puts(&w, "/commondir");
                    if (!w.failed &&
                        qr_read_regular_file(w.p, 4096, &ct, &cl, &why) == QR_OK && cl > 0) {
                        while (cl > 0 && (ct[cl - 1] == '\n' || ct[cl - 1] == '\r'))
                            ct[--cl] = 0;
                        w.len = wl;
                        w.p[wl] = 0;
                        qr_buf r;
                        qr_buf_init(&r);
                        if (ct[0] == '/')
                            qr_buf_puts(&r, ct);
                        else
                            qr_buf_printf(&r, "%s/%s", w.p, ct);
                        if (!r.failed) {
                            c->gitdir = realpath(r.p, NULL);
                            c->workdir = strdup(dir);
                            found = c->gitdir && c->workdir;
                        }
                        qr_buf_release(&r);
                    }
                    qr_buf_release(&w);
                }
                free(text);
                free(ct);
            }
            break;
        }
        if (!strcmp(dir, "/"))
            break;
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            slash[1] = 0;
        else
            *slash = 0;
    }
    qr_buf_release(&p);
    free(dir);
    if (!found) {
        free(c->gitdir);
        free(c->workdir);
        c->gitdir = c->workdir = NULL;
    }
    return found;
}

int qr__code_need_repo(qr_code *c, qr_buf *err)
{
    return c->repo ? QR_OK : open_repo(c, c->open_path, err);
}

int qr__code_need_store(qr_code *c, qr_buf *err)
{
    return c->store ? QR_OK : qr__code_store_open(c->gitdir, &c->store, err);
}

int qr_code_open(const char *path, qr_code **out, qr_buf *err)
{
    *out = NULL;
    qr_code *c = calloc(1, sizeof *c);
    if (!c)
        return QR_ENOMEM;
    c->open_path = strdup(path ? path : ".");
    if (!c->open_path) {
        free(c);
        return QR_ENOMEM;
    }
    int rc = QR_OK;
    if (!fast_discover(c, path)) {
        if ((rc = open_repo(c, path, err)) == QR_OK)
            rc = qr__code_need_store(c, err);
    }
    qr_buf db;
    qr_buf_init(&db);
    if (rc == QR_OK) {
        qr_buf_printf(&db, "%s/quarry/code.db", c->gitdir);
        c->db_path = qr_buf_detach(&db, NULL);
        if (!c->db_path)
            rc = QR_ENOMEM;
    }
    if (rc != QR_OK) {
        qr_code_close(c);
        return rc;
    }
    *out = c;
    return QR_OK;
}

void qr_code_close(qr_code *c)
{
    if (!c)
        return;
    qr__code_store_close(c->store);
    if (c->repo) {
        git_repository_free(c->repo);
        git_libgit2_shutdown();
    }
    free(c->gitdir);
    free(c->workdir);
    free(c->open_path);
    free(c->db_path);
    free(c);
}

const char *qr_code_db_path(const qr_code *c)
{
    return c->db_path;
}

/* ---- listing the files ---- */

typedef struct lister {
    qr_code_graph *g;
    size_t cap;
    int rc;
} lister;

static gfile *add_file(lister *l, const char *path, const git_oid *oid, bool on_disk)
{
    qr_code_graph *g = l->g;
    if (g->nfiles == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 256;
        gfile *nf = realloc(g->files, nc * sizeof *nf);
        if (!nf) {
            l->rc = QR_ENOMEM;
            return NULL;
        }
        g->files = nf;
        l->cap = nc;
    }
    gfile *f = &g->files[g->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = qr_arena_strndup(&g->a, path, strlen(path));
    git_oid_tostr(f->oid, sizeof f->oid, oid);
    f->on_disk = on_disk;
    if (!f->path)
        l->rc = QR_ENOMEM;
    return f;
}

static int tree_cb(const char *root, const git_tree_entry *e, void *payload)
{
    lister *l = payload;
    if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
        return 0;
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_puts(&p, root);
    qr_buf_puts(&p, git_tree_entry_name(e));
    if (p.failed) {
        l->rc = QR_ENOMEM;
        return -1;
    }
    gfile *f = add_file(l, p.p, git_tree_entry_id(e), false);
    if (f && git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)
        f->symlink = true;
    qr_buf_release(&p);
    return l->rc ? -1 : 0;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const gfile *)a)->path, ((const gfile *)b)->path);
}

static int git_fail(const char *what, const char *subject, qr_buf *err)
{
    const git_error *ge = git_error_last();
    qr_buf_printf(err, "%s '%s'%s%s", what, subject, ge && ge->message ? ": " : "",
                  ge && ge->message ? ge->message : "");
    return QR_EINVAL;
}

static int list_ref(qr_code *c, lister *l, const char *ref, qr_buf *err)
{
    git_object *obj = NULL;
    git_tree *tree = NULL;
    int rc = QR_OK;
    if (git_revparse_single(&obj, c->repo, ref) != 0)
        return git_fail("unknown revision", ref, err);
    if (git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) != 0) {
        rc = git_fail("not a commit or tree", ref, err);
        goto done;
    }
    git_oid_tostr(l->g->commit, sizeof l->g->commit, git_object_id(obj));
    if (git_tree_walk(tree, GIT_TREEWALK_PRE, tree_cb, l) != 0 && !l->rc)
        rc = git_fail("cannot read the tree of", ref, err);
    if (l->rc)
        rc = l->rc;
done:
    git_tree_free(tree);
    git_object_free(obj);
    return rc;
}

/* The files of a listing recorded on the team database (qr_code_opts.listing). */
static int take_listing(lister *l, const qr_code_listing *ls)
{
    qr_code_graph *g = l->g;
    for (size_t i = 0; i < ls->n && !l->rc; i++) {
        if (strlen(ls->oids[i]) != 40)
            continue;
        if (g->nfiles == l->cap) {
            size_t nc = l->cap ? l->cap * 2 : 256;
            gfile *nf = realloc(g->files, nc * sizeof *nf);
            if (!nf)
                return QR_ENOMEM;
            g->files = nf;
            l->cap = nc;
        }
        gfile *f = &g->files[g->nfiles++];
        memset(f, 0, sizeof *f);
        memcpy(f->oid, ls->oids[i], 41);
        if (!(f->path = qr_arena_strndup(&g->a, ls->paths[i], strlen(ls->paths[i]))))
            return QR_ENOMEM;
    }
    if (ls->commit && strlen(ls->commit) < sizeof g->commit)
        memcpy(g->commit, ls->commit, strlen(ls->commit) + 1);
    return l->rc;
}

static gfile *find_listed(qr_code_graph *g, const char *path)
{
    for (size_t i = 0; i < g->nfiles; i++)
        if (!strcmp(g->files[i].path, path))
            return &g->files[i];
    return NULL;
}

/* The git index overlaid with the working tree: modified and untracked files are hashed
 * from disk, deleted ones dropped. */
static int list_worktree(qr_code *c, lister *l, qr_buf *err)
{
    git_index *ix = NULL;
    git_status_list *sl = NULL;
    int rc = QR_OK;
    if (!c->workdir) {
        return list_ref(c, l, "HEAD", err);
    }
    git_oid head;
    if (git_reference_name_to_id(&head, c->repo, "HEAD") == 0)
        git_oid_tostr(l->g->commit, sizeof l->g->commit, &head);
    if (git_repository_index(&ix, c->repo) != 0)
        return git_fail("cannot read the index of", c->workdir, err);
    size_t n = git_index_entrycount(ix);
    for (size_t i = 0; i < n && !l->rc; i++) {
        const git_index_entry *e = git_index_get_byindex(ix, i);
        if (!e || GIT_INDEX_ENTRY_STAGE(e) != 0 || e->mode == GIT_FILEMODE_COMMIT)
            continue;
        gfile *f = add_file(l, e->path, &e->id, false);
        if (f && e->mode == GIT_FILEMODE_LINK)
            f->symlink = true;
    }
    if (l->rc) {
        rc = l->rc;
        goto done;
    }
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&sl, c->repo, &so) != 0) {
        rc = git_fail("cannot read the status of", c->workdir, err);
        goto done;
    }
    size_t ns = git_status_list_entrycount(sl);
    qr_buf full;
    qr_buf_init(&full);
    for (size_t i = 0; i < ns && !l->rc; i++) {
        const git_status_entry *s = git_status_byindex(sl, i);
        const git_diff_delta *d = s ? s->index_to_workdir : NULL;
        if (!d)
            continue;
        const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
        gfile *f = find_listed(l->g, path);
        if (s->status & GIT_STATUS_WT_DELETED) {
            if (f)
                f->deleted = true;
            continue;
        }
        if (!(s->status & (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_NEW | GIT_STATUS_WT_TYPECHANGE)))
            continue;
        qr_buf_reset(&full);
        qr_buf_printf(&full, "%s/%s", c->workdir, path);
        struct stat sb;
        if (full.failed || lstat(full.p, &sb) != 0)
            continue;
        git_oid oid;
        bool link = S_ISLNK(sb.st_mode);
        if (!link && !S_ISREG(sb.st_mode))
            continue;
        if (!link && git_repository_hashfile(&oid, c->repo, full.p, GIT_OBJECT_BLOB, path) != 0)
            continue;
        if (link)
            memset(&oid, 0, sizeof oid);
        if (!f)
            f = add_file(l, path, &oid, true);
        else {
            git_oid_tostr(f->oid, sizeof f->oid, &oid);
            f->on_disk = true;
        }
        if (f) {
            f->symlink = link;
            f->dirty = true;
        }
    }
    qr_buf_release(&full);
    rc = l->rc;
done:
    git_status_list_free(sl);
    git_index_free(ix);
    return rc;
}

int qr__code_worktree_oids(qr_code *c, char (**out)[41], size_t *n, qr_buf *err)
{
    *out = NULL;
    *n = 0;
    qr_code_graph *g = calloc(1, sizeof *g);
    if (!g)
        return QR_ENOMEM;
    g->c = c;
    qr_arena_init(&g->a, 0);
    lister l = {.g = g};
    int rc = c->workdir ? list_worktree(c, &l, err) : QR_OK;
    if (rc == QR_OK && g->nfiles) {
        *out = malloc(g->nfiles * sizeof **out);
        if (!*out)
            rc = QR_ENOMEM;
        for (size_t i = 0; rc == QR_OK && i < g->nfiles; i++)
            if (!g->files[i].deleted)
                memcpy((*out)[(*n)++], g->files[i].oid, 41);
    }
    qr_code_graph_free(g);
    return rc;
}

/* ---- reading and indexing blobs ---- */

/* The content of a file: *data is malloc'd. QR_OK, or 1 when over max (size set). */
static int read_content(qr_code *c, const gfile *f, size_t max, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (f->on_disk) {
        if (!c->workdir)
            return QR_EIO;
        qr_buf p;
        qr_buf_init(&p);
        qr_buf_printf(&p, "%s/%s", c->workdir, f->path);
        struct stat sb;
        if (p.failed || lstat(p.p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            qr_buf_release(&p);
            return QR_EIO;
        }
        if (max && (size_t)sb.st_size > max) {
            *len = (size_t)sb.st_size;
            qr_buf_release(&p);
            return 1;
        }
        int rc = qr_read_file(p.p, 0, data, len);
        qr_buf_release(&p);
        return rc;
    }
    if (!c->repo && c->workdir && !f->symlink) {
        /* git not opened (the kept graph answered): the file on disk, if it is the blob */
        qr_buf p;
        qr_buf_init(&p);
        qr_buf_printf(&p, "%s/%s", c->workdir, f->path);
        char *d = NULL;
        size_t n = 0;
        if (!p.failed && qr_read_file(p.p, 0, &d, &n) == QR_OK) {
            char id[41];
            qr__code_blob_id(d, n, id);
            if (!strcmp(id, f->oid) && !(max && n > max)) {
                qr_buf_release(&p);
                *data = d;
                *len = n;
                return QR_OK;
            }
        }
        free(d);
        qr_buf_release(&p);
    }
    git_oid oid;
    git_blob *b = NULL;
    qr_buf ignored;
    qr_buf_init(&ignored);
    int nr = qr__code_need_repo(c, &ignored);
    qr_buf_release(&ignored);
    if (nr != QR_OK || git_oid_fromstr(&oid, f->oid) != 0 || git_blob_lookup(&b, c->repo, &oid) != 0)
        return QR_EIO;
    size_t n = (size_t)git_blob_rawsize(b);
    if (max && n > max) {
        *len = n;
        git_blob_free(b);
        return 1;
    }
    *data = malloc(n + 1);
    if (!*data) {
        git_blob_free(b);
        return QR_ENOMEM;
    }
    memcpy(*data, git_blob_rawcontent(b), n);
    (*data)[n] = 0;
    *len = n;
    git_blob_free(b);
    return QR_OK;
}

/* One blob to index: read by the calling thread (libgit2 handles are not shared between
 * threads), extracted by any worker, stored by the calling thread in listing order. */
typedef struct blob_job {
    gfile *f;
    char *data;
    size_t len;
    int read_rc; /* read_content's: QR_OK, 1 (too large) or an error (unreadable) */
    bool extract; /* the worker's part: a text blob to parse */
    int xr;
    qr_arena tmp;
    qr_code_blob b;
} blob_job;

static void job_read(qr_code *c, blob_job *j, size_t max)
{
    memset(&j->b, 0, sizeof j->b);
    j->b.file.lang = j->f->lang;
    j->read_rc = read_content(c, j->f, max, &j->data, &j->len);
    j->b.bytes = j->len;
    j->extract = false;
    if (j->read_rc == 1)
        j->b.status = QR_CODE_BLOB_LARGE;
    else if (j->read_rc == QR_OK && memchr(j->data, 0, j->len < BINARY_SNIFF ? j->len : BINARY_SNIFF))
        j->b.status = QR_CODE_BLOB_BINARY;
    else if (j->read_rc == QR_OK)
        j->extract = true;
}

static void job_extract(blob_job *j)
{
    qr_arena_init(&j->tmp, 0);
    j->xr = j->f->lang == QR_CODE_LANG_CTAGS
                ? qr__code_ctags(j->f->path, j->data, j->len, &j->tmp, &j->b.file)
                : qr_code_extract(j->f->lang, j->data, j->len, &j->tmp, &j->b.file);
    j->b.status = j->xr == QR_OK ? QR_CODE_BLOB_OK : QR_CODE_BLOB_FAILED;
    if (j->xr != QR_OK)
        memset(&j->b.file, 0, sizeof j->b.file);
    j->b.file.lang = j->f->lang;
}

/* Stores what the job found (an unreadable blob is listed, not indexed) and frees it. */
static int job_store(qr_code *c, qr_code_graph *g, blob_job *j, qr_buf *err)
{
    int rc = QR_OK;
    if (j->read_rc == QR_OK || j->read_rc == 1) {
        rc = qr__code_store_put(c->store, j->f->oid, &j->b, err);
        g->stats.blobs_indexed_now++;
    }
    if (j->extract)
        qr_arena_release(&j->tmp);
    free(j->data);
    j->data = NULL;
    return rc;
}

typedef struct extract_pool {
    blob_job *jobs;
    size_t n;
    size_t next; /* the next job to take, under mu */
    pthread_mutex_t mu;
    const qr_stop *stop; /* on a stop the jobs left are skipped (not stored) */
} extract_pool;

static void *extract_worker(void *arg)
{
    extract_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        if (p->jobs[i].extract && qr_stop_check(p->stop)) {
            /* a stop in the middle of a batch: this blob is left for the next run */
            p->jobs[i].extract = false;
            p->jobs[i].read_rc = QR_ESTOPPED;
        } else if (p->jobs[i].extract) {
            job_extract(&p->jobs[i]);
        }
    }
}

/* Parsing threads: one per online processor, at most INDEX_THREADS_MAX; QUARRY_THREADS
 * sets the number (1: no threads). */
static size_t index_threads(void)
{
    const char *e = getenv("QUARRY_THREADS");
    long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > INDEX_THREADS_MAX ? INDEX_THREADS_MAX : (size_t)n;
}

/* Extracts a batch of read jobs on `threads` threads (this one among them). A thread
 * that cannot start leaves its share to the others. */
static void extract_batch(blob_job *jobs, size_t n, size_t threads, const qr_stop *stop)
{
    extract_pool p = {.jobs = jobs, .n = n, .stop = stop};
    pthread_mutex_init(&p.mu, NULL);
    pthread_t tid[INDEX_THREADS_MAX];
    size_t started = 0;
    for (size_t t = 1; t < threads && t < n; t++)
        if (pthread_create(&tid[started], NULL, extract_worker, &p) == 0)
            started++;
    extract_worker(&p);
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&p.mu);
}

/* ---- assembly ---- */

static int push_node(qr_code_graph *g, const qr_code_node *n)
{
    if (g->nnodes == g->capn) {
        size_t nc = g->capn ? g->capn * 2 : 1024;
        qr_code_node *nn = realloc(g->nodes, nc * sizeof *nn);
        if (!nn)
            return QR_ENOMEM;
        g->nodes = nn;
        g->capn = nc;
    }
    g->nodes[g->nnodes++] = *n;
    return QR_OK;
}

static int push_edge(qr_code_graph *g, const qr_code_edge *e)
{
    if (g->nedges == g->cape) {
        size_t nc = g->cape ? g->cape * 2 : 1024;
        qr_code_edge *ne = realloc(g->edges, nc * sizeof *ne);
        if (!ne)
            return QR_ENOMEM;
        g->edges = ne;
        g->cape = nc;
    }
    g->edges[g->nedges++] = *e;
    return QR_OK;
}

/* The comparators get the graph as qsort_r's context: never a global, since MCP workers
 * assemble graphs on several threads at once. */
static int cmp_by_name(const void *a, const void *b, void *ctx)
{
    const qr_code_graph *sort_graph = ctx;
    const qr_code_node *x = &sort_graph->nodes[*(const size_t *)a];
    const qr_code_node *y = &sort_graph->nodes[*(const size_t *)b];
    int c = strcmp(x->it.name, y->it.name);
    if (c)
        return c;
    c = strcmp(x->file, y->file);
    if (c)
        return c;
    return x->it.line < y->it.line ? -1 : x->it.line > y->it.line;
}

static int cmp_edge_keys(const void *a, const void *b, const qr_code_graph *sort_graph, bool to)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const qr_code_edge *x = &sort_graph->edges[i], *y = &sort_graph->edges[j];
    int c = to ? strcmp(x->to_key, y->to_key) : strcmp(x->from_key, y->from_key);
    return c ? c : (i > j) - (i < j);
}

static int cmp_by_from(const void *a, const void *b, void *ctx)
{
    return cmp_edge_keys(a, b, ctx, false);
}

static int cmp_by_to(const void *a, const void *b, void *ctx)
{
    return cmp_edge_keys(a, b, ctx, true);
}

/* First position in g->by_name whose name is >= name. */
size_t qr__code_name_lower(const qr_code_graph *g, const char *name)
{
    size_t lo = 0, hi = g->nnamed;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(g->nodes[g->by_name[mid]].it.name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t edge_lower(const qr_code_graph *g, const size_t *idx, bool to, const char *key)
{
    size_t lo = 0, hi = g->nedges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const qr_code_edge *e = &g->edges[idx[mid]];
        if (strcmp(to ? e->to_key : e->from_key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t qr__code_edges_from(const qr_code_graph *g, const char *key, size_t *first)
{
    qr__code_need_edges(g);
    size_t i = edge_lower(g, g->by_from, false, key), j = i;
    while (j < g->nedges && !strcmp(g->edges[g->by_from[j]].from_key, key))
        j++;
    *first = i;
    return j - i;
}

size_t qr__code_edges_to(const qr_code_graph *g, const char *key, size_t *first)
{
    qr__code_need_edges(g);
    size_t i = edge_lower(g, g->by_to, true, key), j = i;
    while (j < g->nedges && !strcmp(g->edges[g->by_to[j]].to_key, key))
        j++;
    *first = i;
    return j - i;
}

/* The file index of a path, or -1. */
int64_t qr__code_file_index(const qr_code_graph *g, const char *path)
{
    size_t lo = 0, hi = g->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(g->files[mid].path, path);
        if (!c)
            return (int64_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds the macro name w[0..n) to the build's (g->defines, sorted later). */
static void push_define(void *ud, const char *w, size_t n)
{
    qr_code_graph *g = ud;
    if (g->ndefines == g->capdefines) {
        size_t nc = g->capdefines ? g->capdefines * 2 : 32;
        const char **nd = qr_arena_realloc(&g->a, g->defines, g->capdefines * sizeof *nd,
                                           nc * sizeof *nd);
        if (!nd)
            return;
        g->defines = nd;
        g->capdefines = nc;
    }
    char *d = qr_arena_alloc(&g->a, n + 1);
    if (!d)
        return;
    memcpy(d, w, n);
    d[n] = 0;
    g->defines[g->ndefines++] = d;
}

/* Adds the macro names that `-D` options define in text (a compile_commands.json, or
 * QUARRY_CODE_DEFINES): each `-DNAME`, `-DNAME=VALUE` or `-D NAME` (also split into two
 * JSON strings, "-D", "NAME"), and in QUARRY_CODE_DEFINES bare names too. */
static void add_defines(qr_code_graph *g, const char *t, size_t len, bool bare)
{
    for (size_t i = 0; i < len; i++) {
        size_t j;
        if (t[i] == '-' && i + 1 < len && t[i + 1] == 'D' &&
            (i == 0 || strchr(" \t\n\",[", t[i - 1]))) {
            j = i + 2;
            while (j < len && strchr(" \t\n\",", t[j]))
                j++;
        } else if (bare && (i == 0 || strchr(" \t,", t[i - 1])) &&
                   (isalpha((unsigned char)t[i]) || t[i] == '_')) {
            j = i;
        } else {
            continue;
        }
        size_t k = j;
        if (k < len && (isalpha((unsigned char)t[k]) || t[k] == '_'))
            while (k < len && (isalnum((unsigned char)t[k]) || t[k] == '_'))
                k++;
        if (k == j)
            continue;
        push_define(g, t + j, k - j);
        i = k;
    }
}

/* ---- the configuration headers the build generated ---- */

#define GEN_DIRS 128
#define GEN_HEADERS 512

/* The include directories of a compile_commands.json: those in the working tree (-I and
 * -iquote, and each compiled file's own directory, where a quoted #include looks first)
 * and those outside it (-I, -iquote, -idirafter; not -isystem or /usr/), and the files
 * -include names outside it, each a real path, once. */
typedef struct gen_dirs {
    char *in[GEN_DIRS], *out[GEN_DIRS], *incl[GEN_DIRS];
    size_t nin, nout, nincl;
    char *inc[GEN_DIRS]; /* the -I and -iquote directories in the tree alone */
    size_t ninc;
    const char *root; /* the working tree's real path */
    char **names;     /* the entries of the directories in the tree, sorted */
    size_t nnames, capnames;
} gen_dirs;

/* The names of the entries of d's directories in the tree into d->names, sorted: one
 * readdir each instead of a stat per header and directory (a query reads them too). */
static void gen_tree_names(gen_dirs *d)
{
    for (size_t i = 0; i < d->nin; i++) {
        DIR *dh = opendir(d->in[i]);
        struct dirent *de;
        while (dh && (de = readdir(dh))) {
            if (d->nnames == d->capnames) {
                size_t nc = d->capnames ? d->capnames * 2 : 256;
                char **nn = realloc(d->names, nc * sizeof *nn);
                if (!nn)
                    break;
                d->names = nn;
                d->capnames = nc;
            }
            if ((d->names[d->nnames] = strdup(de->d_name)))
                d->nnames++;
        }
        if (dh)
            closedir(dh);
    }
    if (d->nnames)
        qsort(d->names, d->nnames, sizeof *d->names, cmp_cstr);
}

static void gen_add(char **list, size_t *n, const char *path)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], path))
            return;
    if (*n < GEN_DIRS && (list[*n] = strdup(path)))
        (*n)++;
}

/* Files the working tree's root holds, path a real path: root itself or below it. */
static bool gen_inside(const gen_dirs *d, const char *path)
{
    size_t n = strlen(d->root);
    return !strncmp(path, d->root, n) && (path[n] == '/' || !path[n]);
}

/* Adds the directory or file arg (relative to dir) to d: opt 'I' an -I or -iquote
 * directory, 'A' an -idirafter one, 'F' a compiled file (its directory, in the tree),
 * 'N' an -include file. */
static void gen_path(gen_dirs *d, const char *dir, const char *arg, char opt)
{
    char joined[PATH_MAX], real[PATH_MAX];
    if (arg[0] == '/' || !dir)
        snprintf(joined, sizeof joined, "%s", arg);
    else if ((size_t)snprintf(joined, sizeof joined, "%s/%s", dir, arg) >= sizeof joined)
        return;
    if (opt == 'F') {
        char *slash = strrchr(joined, '/');
        if (!slash)
            return;
        *slash = 0;
    }
    if (!realpath(joined, real))
        return;
    bool in = gen_inside(d, real);
    if (opt == 'N') {
        if (!in)
            gen_add(d->incl, &d->nincl, real);
    } else if (in) {
        if (opt != 'A')
            gen_add(d->in, &d->nin, real);
        if (opt == 'I')
            gen_add(d->inc, &d->ninc, real);
    } else if (strncmp(real, "/usr/", 5)) {
        gen_add(d->out, &d->nout, real);
    }
}

/* The next JSON string of t[..len) from *i (its text unescaped into buf), with whether it
 * is a key (a ':' follows). false at the end. */
static bool gen_json_str(const char *t, size_t len, size_t *i, char *buf, size_t cap, bool *key)
{
    while (*i < len && t[*i] != '"')
        (*i)++;
    if (*i >= len)
        return false;
    size_t o = 0;
    for ((*i)++; *i < len && t[*i] != '"'; (*i)++) {
        char ch = t[*i];
        if (ch == '\\' && *i + 1 < len) {
            ch = t[++*i];
            ch = ch == 'n' || ch == 't' ? ' ' : ch;
        }
        if (o + 1 < cap)
            buf[o++] = ch;
    }
    buf[o] = 0;
    (*i)++;
    size_t k = *i;
    while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r'))
        k++;
    *key = k < len && t[k] == ':';
    return true;
}

/* The end of the JSON object that opens at t[i] ('{'): just past its '}'. */
static size_t gen_json_object(const char *t, size_t len, size_t i)
{
    int depth = 0;
    bool str = false;
    for (; i < len; i++) {
        if (str) {
            if (t[i] == '\\')
                i++;
            else if (t[i] == '"')
                str = false;
        } else if (t[i] == '"') {
            str = true;
        } else if (t[i] == '{') {
            depth++;
        } else if (t[i] == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return len;
}

/* One argument of a compile command, with the option the one before left pending. */
static void gen_arg(gen_dirs *d, const char *dir, const char *a, char *pending)
{
    if (*pending) {
        if (*pending != 'S')
            gen_path(d, dir, a, *pending);
        *pending = 0;
    } else if (!strcmp(a, "-I") || !strcmp(a, "-iquote")) {
        *pending = 'I';
    } else if (!strcmp(a, "-idirafter")) {
        *pending = 'A';
    } else if (!strcmp(a, "-include")) {
        *pending = 'N';
    } else if (!strcmp(a, "-isystem")) {
        *pending = 'S';
    } else if (a[0] == '-' && a[1] == 'I') {
        gen_path(d, dir, a + 2, 'I');
    }
}

/* Reads the include directories of each entry of compile_commands.json text into d. */
static void gen_read_commands(gen_dirs *d, const char *t, size_t len)
{
    char *buf = malloc(1u << 16), *dir = malloc(PATH_MAX);
    for (size_t i = 0; buf && dir && i < len; i++) {
        if (t[i] != '{')
            continue;
        size_t end = gen_json_object(t, len, i);
        /* its directory first: it may come after the arguments */
        bool key;
        char last[16] = "";
        dir[0] = 0;
        for (size_t j = i; gen_json_str(t, end, &j, buf, 1u << 16, &key);) {
            if (!key && !strcmp(last, "directory"))
                snprintf(dir, PATH_MAX, "%s", buf);
            snprintf(last, sizeof last, "%s", key ? buf : "");
        }
        char pending = 0;
        const char *at = dir[0] ? dir : NULL;
        for (size_t j = i; gen_json_str(t, end, &j, buf, 1u << 16, &key);) {
            if (key) {
                snprintf(last, sizeof last, "%s", buf);
            } else if (!strcmp(last, "arguments")) {
                gen_arg(d, at, buf, &pending);
            } else if (!strcmp(last, "command")) {
                char *save = NULL;
                for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                    gen_arg(d, at, w, &pending);
                pending = 0;
            } else if (!strcmp(last, "file")) {
                gen_path(d, at, buf, 'F');
            }
        }
        i = end - 1;
    }
    free(buf);
    free(dir);
}

/* A #define of a generated header: the name, and "NAME=0" beside it when its value is 0
 * (macro_value reads it: `#define HAVE_DECL_X 0` then `#if HAVE_DECL_X`). */
static void gen_define(void *ud, const char *w, size_t n, bool zero)
{
    push_define(ud, w, n);
    char buf[256];
    if (zero && n + 3 <= sizeof buf) {
        memcpy(buf, w, n);
        memcpy(buf + n, "=0", 3);
        push_define(ud, buf, n + 2);
    }
}

/* Reads the #define lines of the header at path in its one configuration. */
static void gen_header(qr_code_graph *g, const char *path, size_t *budget)
{
    char *text = NULL;
    size_t len = 0;
    const char *why = NULL;
    if (*budget == 0)
        return;
    (*budget)--;
    if (qr_read_regular_file(path, 1u << 20, &text, &len, &why) == QR_OK)
        qr__ppconf_defines(text, len, gen_define, g);
    free(text);
}

/* The headers of directory out[/sub] no include directory of the tree has (by the same
 * name, sub/name): what the build generated, read for their #defines. One level of
 * subdirectories (<event2/event-config.h>). */
static void gen_dir(qr_code_graph *g, const gen_dirs *d, const char *out, const char *sub,
                    size_t *budget)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s%s", out, sub ? "/" : "", sub ? sub : "");
    DIR *dh = opendir(path);
    if (!dh)
        return;
    struct dirent *de;
    while ((de = readdir(dh)) && *budget) {
        const char *nm = de->d_name;
        size_t n = strlen(nm);
        if (nm[0] == '.')
            continue;
        bool header = n > 2 && !strcmp(nm + n - 2, ".h");
        if (!header && strchr(nm, '.'))
            continue; /* an object, a source: not a header or a directory */
        char full[PATH_MAX], rel[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(full, sizeof full, "%s/%s", path, nm) >= sizeof full ||
            stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            bool listed = false; /* an include directory of its own (jq's b-jq/src) */
            for (size_t k = 0; k < d->nout && !listed; k++)
                listed = !strcmp(d->out[k], full);
            if (!sub && !listed)
                gen_dir(g, d, out, nm, budget);
            continue;
        }
        if (!header || !S_ISREG(st.st_mode))
            continue;
        /* by its own name, or by its name below the directory */
        bool tree_has = d->nnames && bsearch(&nm, d->names, d->nnames, sizeof *d->names,
                                             cmp_cstr);
        snprintf(rel, sizeof rel, "%s%s%s", sub ? sub : "", sub ? "/" : "", nm);
        for (size_t k = 0; sub && k < d->nin && !tree_has; k++) {
            char in[PATH_MAX];
            if ((size_t)snprintf(in, sizeof in, "%s/%s", d->in[k], rel) < sizeof in)
                tree_has = access(in, F_OK) == 0;
        }
        if (!tree_has)
            gen_header(g, full, budget);
    }
    closedir(dh);
}

/* The build's -I and -iquote directories in the working tree, relative to its root ("" for
 * the root), into g->incdirs in the order met: where an #include looks (nginx writes
 * `#include <ngx_core.h>` and compiles with -I src/core). */
static void keep_include_dirs(qr_code_graph *g, const gen_dirs *d)
{
    size_t rn = strlen(d->root);
    for (size_t i = 0; i < d->ninc; i++) {
        const char *rel = d->inc[i] + rn + (d->inc[i][rn] == '/');
        bool seen = false;
        for (size_t j = 0; j < g->nincdirs && !seen; j++)
            seen = !strcmp(g->incdirs[j], rel);
        if (seen || g->nincdirs >= GEN_DIRS)
            continue;
        if (!g->incdirs && !(g->incdirs = qr_arena_alloc(&g->a, GEN_DIRS * sizeof *g->incdirs)))
            return;
        size_t n = strlen(rel);
        char *c = qr_arena_alloc(&g->a, n + 1);
        if (!c)
            return;
        memcpy(c, rel, n + 1);
        g->incdirs[g->nincdirs++] = c;
    }
}

/* The macros the configuration headers the build generated define, as if on the command
 * line: the headers of the compile commands' include directories outside the working
 * tree that the tree does not have itself (curl_config.h, ngx_auto_config.h,
 * event2/event-config.h; a dependency's headers the tree includes too), and the files
 * -include names, each read in its one configuration (ppconf.c). A header some file
 * includes is not known here (the graph is not assembled yet, and the kept graph's key is
 * made of these names): a header no file includes adds names no condition asks about. */
static void read_generated_defines(qr_code_graph *g, const char *text, size_t len)
{
    char root[PATH_MAX];
    if (!realpath(g->c->workdir, root))
        return;
    gen_dirs d = {.root = root};
    gen_read_commands(&d, text, len);
    keep_include_dirs(g, &d);
    if (d.nout)
        gen_tree_names(&d);
    size_t budget = GEN_HEADERS;
    for (size_t i = 0; i < d.nincl; i++)
        gen_header(g, d.incl[i], &budget);
    for (size_t i = 0; i < d.nout; i++)
        gen_dir(g, &d, d.out[i], NULL, &budget);
    for (size_t i = 0; i < d.nin; i++)
        free(d.in[i]);
    for (size_t i = 0; i < d.nout; i++)
        free(d.out[i]);
    for (size_t i = 0; i < d.nincl; i++)
        free(d.incl[i]);
    for (size_t i = 0; i < d.ninc; i++)
        free(d.inc[i]);
    for (size_t i = 0; i < d.nnames; i++)
        free(d.names[i]);
    free(d.names);
}

/* The macros the build defines on the compiler's command line: the -D options of
 * compile_commands.json in the working tree's root or its build/, the configuration
 * headers it generated (read_generated_defines), and QUARRY_CODE_DEFINES. A condition on
 * one of them is active, as one on a macro some file defines. */
static void read_build_defines(qr_code_graph *g)
{
    if (g->defines_read)
        return;
    g->defines_read = true;
    const char *env = getenv("QUARRY_CODE_DEFINES");
    if (env)
        add_defines(g, env, strlen(env), true);
    static const char *const where[] = {"compile_commands.json", "build/compile_commands.json"};
    for (size_t w = 0; g->c->workdir && w < sizeof where / sizeof *where; w++) {
        qr_buf path = {0};
        char *text = NULL;
        size_t len = 0;
        const char *why = NULL;
        qr_buf_printf(&path, "%s/%s", g->c->workdir, where[w]);
        if (path.p && qr_read_regular_file(path.p, 64u << 20, &text, &len, &why) == QR_OK) {
            add_defines(g, text, len, false);
            read_generated_defines(g, text, len);
        }
        free(text);
        qr_buf_release(&path);
    }
    if (g->ndefines)
        qsort(g->defines, g->ndefines, sizeof *g->defines, cmp_cstr);
}

static bool cond_inactive(const qr_code_graph *g, const char *cond, int depth, int64_t tu);

static int cmp_size(const void *a, const void *b);

/* Whether a macro defined in file mi can be seen by translation unit tu (a .c file whose
 * closure is made, see tu_of): mi is tu or a file tu includes. Without a translation unit
 * (a header, read in whichever file includes it), every definition counts. */
static bool seen_by(const qr_code_graph *g, int64_t tu, size_t mi)
{
    if (tu < 0 || mi == (size_t)tu)
        return true;
    const gfile *f = &g->files[tu];
    return f->closure && bsearch(&mi, f->closure, f->nclosure, sizeof mi, cmp_size) != NULL;
}

/* Whether the build or a file defines the macro name[0..n): a -D option, or a #define
 * that is itself compiled in (zlib defines Z_PREFIX_SET only under Z_PREFIX, which nothing
 * defines, so `#ifdef Z_PREFIX_SET ... #else` keeps its #else). In a .c file (tu >= 0),
 * only a #define in it or in a file it includes counts: Lua's ltests.h defines LUA_DEBUG
 * for test builds, which ltests.c does not include, so ltests.c's `#if defined(LUA_DEBUG)`
 * is compiled out as in the real build. Definitions nest a few levels at most; past
 * MACRO_COND_DEPTH a definition counts. */
#define MACRO_COND_DEPTH 4
/* Whether condition list cond begins with the terms chain[0..n) (then a ',' or its end). */
static bool cond_within(const char *cond, const char *chain, size_t n)
{
    return cond && !strncmp(cond, chain, n) && (cond[n] == ',' || !cond[n]);
}

/* chain, when not NULL: the condition list up to a term "!name" being judged; a #define of
 * the name under that same chain is inside the group the term opens and does not count
 * (`#if !defined(X)` / ... / `#define X ...` / `#endif`, Lua's l_inspectstat, zlib's
 * HAVE_MEMCPY: the preprocessor judges the #if before it reads what it holds). */
static bool macro_defined_as(const qr_code_graph *g, const char *name, size_t n, int depth,
                             int64_t tu, const char *chain, size_t nchain);

static bool macro_defined(const qr_code_graph *g, const char *name, size_t n, int depth,
                          int64_t tu)
{
    return macro_defined_as(g, name, n, depth, tu, NULL, 0);
}

static bool macro_defined_as(const qr_code_graph *g, const char *name, size_t n, int depth,
                             int64_t tu, const char *chain, size_t nchain)
{
    char buf[256];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, name, n);
    buf[n] = 0;
    const char *key = buf;
    if (g->ndefines && bsearch(&key, g->defines, g->ndefines, sizeof *g->defines, cmp_cstr))
        return true;
    for (size_t i = qr__code_name_lower(g, buf);
         i < g->nnamed && !strcmp(g->nodes[g->by_name[i]].it.name, buf); i++) {
        size_t k = g->by_name[i];
        const qr_code_node *m = &g->nodes[k];
        if (m->it.kind == QR_CODE_MACRO && (!g->node_file || seen_by(g, tu, g->node_file[k])) &&
            !(chain && cond_within(m->it.cond, chain, nchain)) &&
            (depth >= MACRO_COND_DEPTH || !cond_inactive(g, m->it.cond, depth + 1, tu)))
            return true;
    }
    return false;
}

/* The value of macro name[0..n) in an #if: 1 when the build defines it (-D), the number
 * its first visible compiled-in #define stands for, 0 when nothing defines it; -1 when
 * that is not known (a #define that is not a plain number). */
static int macro_value(const qr_code_graph *g, const char *name, size_t n, int depth,
                       int64_t tu)
{
    char buf[256];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, name, n);
    buf[n] = 0;
    const char *key = buf;
    if (g->ndefines && bsearch(&key, g->defines, g->ndefines, sizeof *g->defines, cmp_cstr)) {
        /* -DX is 1, -DX=V is V: the value is not kept; a generated header's 0 is */
        char zk[260];
        const char *z = zk;
        snprintf(zk, sizeof zk, "%s=0", buf);
        return bsearch(&z, g->defines, g->ndefines, sizeof *g->defines, cmp_cstr) ? 0 : -1;
    }
    bool any = false;
    for (size_t i = qr__code_name_lower(g, buf);
         i < g->nnamed && !strcmp(g->nodes[g->by_name[i]].it.name, buf); i++) {
        size_t k = g->by_name[i];
        const qr_code_node *m = &g->nodes[k];
        if (m->it.kind != QR_CODE_MACRO || (g->node_file && !seen_by(g, tu, g->node_file[k])) ||
            (depth < MACRO_COND_DEPTH && cond_inactive(g, m->it.cond, depth + 1, tu)))
            continue;
        if (any)
            return -1; /* defined twice: which one holds here is not known */
        any = true;
        const char *v = m->it.type;
        if (!v || (m->it.flags & QR_CODE_FUNC_LIKE))
            return -1;
        while (*v == ' ' || *v == '(')
            v++;
        if (!isdigit((unsigned char)*v))
            return -1;
        char *end;
        unsigned long long x = strtoull(v, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L' || *end == ')' ||
               *end == ' ')
            end++;
        if (*end)
            return -1;
        if (x == 0)
            continue; /* 0: judged with the others (none other: 0) */
        return 1;
    }
    return 0;
}

/* A condition list is inactive when it holds "0", a macro no file (and no build option)
 * defines, "!X" for a macro X that one does define, "=X" for a macro whose value is 0
 * (or that nothing defines), "!=X" for one whose value is a number other than 0, and a
 * disjunction "|A|=B|&C&=D..." none of whose parts (defined A, B's value not 0, both
 * defined C and D's value not 0) holds. */
static bool cond_inactive(const qr_code_graph *g, const char *cond, int depth, int64_t tu)
{
    if (!cond)
        return false;
    for (const char *p = cond; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 1 && *p == '|') {
            /* "|A|=B": a disjunction, false when A is not defined and B's value is 0 */
            bool any = false;
            for (const char *q = p; q < p + n && !any;) {
                const char *x = q + 1, *xe = memchr(x, '|', (size_t)(p + n - x));
                if (!xe)
                    xe = p + n;
                if (*x == '&') { /* "&A&=B": a part that holds when all of its own do */
                    any = true;
                    for (const char *y = x; y < xe && any;) {
                        const char *a = y + 1, *ae = memchr(a, '&', (size_t)(xe - a));
                        if (!ae)
                            ae = xe;
                        if (*a == '=')
                            any = ae - a > 1 &&
                                  macro_value(g, a + 1, (size_t)(ae - a - 1), depth, tu) != 0;
                        else
                            any = ae > a && macro_defined(g, a, (size_t)(ae - a), depth, tu);
                        y = ae;
                    }
                } else if (*x == '=')
                    any = xe - x > 1 && macro_value(g, x + 1, (size_t)(xe - x - 1), depth, tu) != 0;
                else
                    any = xe > x && macro_defined(g, x, (size_t)(xe - x), depth, tu);
                q = xe;
            }
            if (!any)
                return true;
        } else if (n > 1 && *p == '=') {
            if (macro_value(g, p + 1, n - 1, depth, tu) == 0)
                return true;
        } else if (n > 2 && p[0] == '!' && p[1] == '=') {
            if (macro_value(g, p + 2, n - 2, depth, tu) == 1)
                return true;
        } else if ((n == 1 && *p == '0') ||
                   (*p == '!' ? macro_defined_as(g, p + 1, n - 1, depth, tu, cond,
                                                 (size_t)(p + n - cond))
                              : !macro_defined(g, p, n, depth, tu))) {
            return true;
        }
        p += n + (e ? 1 : 0);
    }
    return false;
}

bool qr__code_cond_inactive(const qr_code_graph *g, const char *cond)
{
    return cond_inactive(g, cond, 0, -1);
}

static const char *key_of(qr_code_graph *g, const char *file, const char *name)
{
    size_t a = strlen(file), b = strlen(name);
    char *k = qr_arena_alloc(&g->a, a + b + 2);
    if (!k)
        return name;
    memcpy(k, file, a);
    k[a] = ':';
    memcpy(k + a + 1, name, b + 1);
    return k;
}

const char *qr__code_node_key(qr_code_graph *g, size_t i)
{
    qr_code_node *n = &g->nodes[i];
    if (n->it.kind == QR_CODE_FILE)
        return n->file;
    if (!g->keys[i]) {
        if (n->it.kind == QR_CODE_MEMBER && n->it.parent) {
            size_t a = strlen(n->it.parent), b = strlen(n->it.name);
            char *k = qr_arena_alloc(&g->a, a + b + 2);
            if (k) {
                memcpy(k, n->it.parent, a);
                k[a] = '.';
                memcpy(k + a + 1, n->it.name, b + 1);
                g->keys[i] = key_of(g, n->file, k);
            }
        } else if (n->it.kind == QR_CODE_STRUCT || n->it.kind == QR_CODE_UNION ||
                   n->it.kind == QR_CODE_ENUM) {
            /* "struct point" beside a typedef "point" */
            const char *kw = qr_code_kind_name(n->it.kind);
            size_t a = strlen(kw), b = strlen(n->it.name);
            char *k = qr_arena_alloc(&g->a, a + b + 2);
            if (k) {
                memcpy(k, kw, a);
                k[a] = ' ';
                memcpy(k + a + 1, n->it.name, b + 1);
                g->keys[i] = key_of(g, n->file, k);
            }
        } else {
            g->keys[i] = key_of(g, n->file, n->it.name);
        }
    }
    return g->keys[i] ? g->keys[i] : n->it.name;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The files `f` includes, directly or not (file indexes, sorted), made on first use. */
static const gfile *closure_of(qr_code_graph *g, int64_t fi)
{
    gfile *f = &g->files[fi];
    if (f->closure_done)
        return f;
    f->closure_done = true;
    size_t n = 0, cap = 16;
    size_t *q = malloc(cap * sizeof *q);
    if (!q)
        return f;
    for (size_t i = 0; i < f->ndirect; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = q[j] == f->direct[i];
        if (!seen)
            q[n++] = f->direct[i];
        if (n == cap)
            break;
    }
    for (size_t head = 0; head < n; head++) {
        const gfile *h = &g->files[q[head]];
        for (size_t i = 0; i < h->ndirect; i++) {
            bool seen = h->direct[i] == (size_t)fi;
            for (size_t j = 0; j < n && !seen; j++)
                seen = q[j] == h->direct[i];
            if (seen)
                continue;
            if (n == cap) {
                size_t *nq = realloc(q, cap * 2 * sizeof *q);
                if (!nq)
                    goto done;
                q = nq;
                cap *= 2;
            }
            q[n++] = h->direct[i];
        }
    }
done:
    qsort(q, n, sizeof *q, cmp_size);
    f->closure = q;
    f->nclosure = n;
    return f;
}

/* Whether file pi is file fi or one fi includes. */
static bool visible_from(qr_code_graph *g, int64_t fi, int64_t pi)
{
    if (fi < 0 || pi < 0)
        return false;
    if (fi == pi)
        return true;
    const gfile *f = closure_of(g, fi);
    size_t want = (size_t)pi;
    return f->closure && bsearch(&want, f->closure, f->nclosure, sizeof want, cmp_size) != NULL;
}

/* File i as a translation unit for the preprocessor judgement: i when it is a C source
 * (`.c`), with its include closure made; -1 for a header or another language. */
static int64_t tu_of(qr_code_graph *g, size_t i)
{
    const char *p = g->files[i].path;
    size_t n = strlen(p);
    if (g->files[i].lang != QR_CODE_LANG_C || n < 2 || strcmp(p + n - 2, ".c"))
        return -1;
    const gfile *f = closure_of(g, (int64_t)i);
    return f->closure ? (int64_t)i : -1;
}

static bool c_family(qr_code_lang l)
{
    return l == QR_CODE_LANG_C || l == QR_CODE_LANG_CPP;
}

/* How far a definition the caller's file cannot see is from it, when the linker's choice
 * must be guessed: 0 in the caller's directory, 2 elsewhere in the same language family
 * (C and C++), 4 in another language (a C call never reaches a C# method of the same
 * name in a contrib/ folder). */
static int guess_distance(const qr_code_graph *g, int64_t fi, int64_t ni)
{
    if (fi < 0 || ni < 0)
        return 2;
    const gfile *a = &g->files[fi], *b = &g->files[ni];
    if (c_family(a->lang) != c_family(b->lang))
        return 4;
    const char *sa = strrchr(a->path, '/'), *sb = strrchr(b->path, '/');
    size_t da = sa ? (size_t)(sa - a->path) : 0, db = sb ? (size_t)(sb - b->path) : 0;
    return da == db && !memcmp(a->path, b->path, da) ? 0 : 2;
}

/* The node of kind k (or any definition kind when k < 0) named `name`, as the code of
 * `file` sees it: one in `file` first, then one in a header it includes, then (for what
 * the linker joins: non-static functions and variables; and types, as a guess) one
 * anywhere. Macros and static functions are seen only in `file` and what it includes.
 * Active ones before inactive ones; -1 when none. */
bool qr__code_fnptr_type(const char *type)
{
    return type && strstr(type, "(*") && strchr(type, ')');
}

int64_t qr__code_resolve(qr_code_graph *g, const char *name, int k, const char *file)
{
    return qr__code_resolve_guess(g, name, k, file, NULL);
}

int64_t qr__code_resolve_guess(qr_code_graph *g, const char *name, int k, const char *file,
                               bool *guess)
{
    int64_t best = -1;
    size_t far = 0; /* candidates the file cannot see (ranks 4 and up) */
    int best_rank = 99; /* 0 same file, 2 visible, 4-8 a guess (guess_distance); +1 inactive */
    int64_t fi = -2; /* the index of `file`, looked up once a candidate needs it */
    for (size_t i = qr__code_name_lower(g, name);
         i < g->nnamed && !strcmp(g->nodes[g->by_name[i]].it.name, name); i++) {
        const qr_code_node *n = &g->nodes[g->by_name[i]];
        bool kind_ok = k >= 0 ? n->it.kind == (qr_code_kind)k
                              : n->it.kind != QR_CODE_DECLARATION && n->it.kind != QR_CODE_MEMBER &&
                                    n->it.kind != QR_CODE_ENUMERATOR;
        if (!kind_ok)
            continue;
        if (fi == -2)
            fi = file ? qr__code_file_index(g, file) : -1;
        int64_t ni = g->node_file ? (int64_t)g->node_file[g->by_name[i]] : -1;
        bool same = file && (n->file == file || (fi >= 0 && ni == fi) || !strcmp(n->file, file));
        bool local = n->it.kind == QR_CODE_MACRO || (n->it.flags & QR_CODE_STATIC);
        int rank;
        if (same)
            rank = 0;
        else if (visible_from(g, fi, ni))
            rank = 2;
        else if (!local) {
            rank = 4 + guess_distance(g, fi, ni);
            far++;
        } else
            continue;
        rank += n->inactive ? 1 : 0;
        if (rank < best_rank) {
            best_rank = rank;
            best = (int64_t)g->by_name[i];
        }
    }
    if (guess)
        *guess = best_rank >= 4 && far > 1;
    return best;
}

/* The function in file whose lines hold `line` named `name` (-1 when none). */
static int64_t enclosing(qr_code_graph *g, const gfile *f, const char *name, uint32_t line,
                         qr_code_kind kind)
{
    if (!name)
        return -1;
    /* consecutive references mostly sit in one function: try the last answer first */
    int64_t last = g->last_enclosing;
    if (last >= (int64_t)f->node0 && last < (int64_t)(f->node0 + f->nnodes)) {
        const qr_code_node *n = &g->nodes[last];
        if (n->it.kind == kind && line >= n->it.line && line <= n->it.end_line &&
            !strcmp(n->it.name, name))
            return last;
    }
    int64_t found = -1;
    int64_t any = -1;
    for (size_t i = f->node0; i < f->node0 + f->nnodes; i++) {
        const qr_code_node *n = &g->nodes[i];
        if (n->it.kind != kind || strcmp(n->it.name, name))
            continue;
        if (line >= n->it.line && line <= n->it.end_line) {
            found = (int64_t)i;
            break;
        }
        if (any < 0)
            any = (int64_t)i;
    }
    if (found >= 0) {
        g->last_enclosing = found;
        return found;
    }
    return any;
}

typedef struct call_site {
    const gfile *f;
    int64_t caller;
    const char *caller_key;
    uint32_t line;
    bool inactive;
} call_site;

static int add_call(qr_code_graph *g, const call_site *s, const char *name, const char *via,
                    int depth, const char **stack);

/* A call written through the function-like macro m: what its body calls, resolved from
 * the call site (static functions of the caller's file are visible there). */
static int expand_macro(qr_code_graph *g, const call_site *s, int64_t m, const char *via, int depth,
                        const char **stack)
{
    const qr_code_node *mn = &g->nodes[m];
    int64_t fi = qr__code_file_index(g, mn->file);
    if (fi < 0)
        return QR_OK;
    const gfile *mf = &g->files[fi];
    for (size_t r = 0; r < mf->file.nrefs; r++) {
        const qr_code_ref *ref = &mf->file.refs[r];
        if (ref->kind != QR_CODE_REF_MACRO_CALL || !ref->from || strcmp(ref->from, mn->it.name))
            continue;
        /* this definition's body only: `#ifdef DEBUG / #define F(x) f_debug(x) / #else /
         * #define F(x) ...` are two macros named F, and a call reaches the one chosen */
        if (ref->line < mn->it.line || ref->line > mn->it.end_line)
            continue;
        int rc = add_call(g, s, ref->name, via, depth + 1, stack);
        if (rc)
            return rc;
    }
    return QR_OK;
}

/* The name an object-like macro stands for when its whole replacement is one identifier
 * other than its own name (`#define s_free zfree`), interned in the graph's arena; NULL
 * for any other macro. */
static const char *macro_alias(qr_code_graph *g, int64_t m)
{
    const qr_code_item *it = &g->nodes[m].it;
    if ((it->flags & QR_CODE_FUNC_LIKE) || !it->type)
        return NULL;
    const char *b = it->type;
    while (*b == ' ' || *b == '\t')
        b++;
    if (!(isalpha((unsigned char)*b) || *b == '_'))
        return NULL;
    const char *e = b;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    for (const char *t = e; *t; t++)
        if (!isspace((unsigned char)*t))
            return NULL;
    size_t n = (size_t)(e - b);
    if (n == strlen(it->name) && !memcmp(b, it->name, n))
        return NULL;
    if (!*e)
        return b;
    char *d = qr_arena_alloc(&g->a, n + 1);
    if (!d)
        return NULL;
    memcpy(d, b, n);
    d[n] = 0;
    return d;
}

/* The edge saying a call at s is written through macro node m (cscope's and cflow's
 * callee). */
static int push_expands(qr_code_graph *g, const call_site *s, int64_t m)
{
    qr_code_edge x = {.kind = QR_CODE_E_EXPANDS,
                      .from = s->caller,
                      .to = m,
                      .from_key = s->caller_key,
                      .to_key = g->nodes[m].it.name,
                      .file = s->f->path,
                      .line = s->line,
                      .inactive = s->inactive};
    return push_edge(g, &x);
}

static int add_call(qr_code_graph *g, const call_site *s, const char *name, const char *via,
                    int depth, const char **stack)
{
    if (depth >= MACRO_DEPTH)
        return QR_OK;
    int64_t m = qr__code_resolve(g, name, QR_CODE_MACRO, s->f->path);
    if (m >= 0 && g->nodes[m].inactive) {
        /* a macro compiled out does not hide the function of its name compiled in (curl's
         * curl_simple_lock_lock: a macro on Windows, an inline function here) */
        int64_t fn = qr__code_resolve(g, name, QR_CODE_FUNCTION, s->f->path);
        if (fn >= 0 && !g->nodes[fn].inactive)
            m = -1;
    }
    /* an alias is followed when it is compiled in: zlib's `#define adler32_z z_adler32_z`
     * under Z_PREFIX, which no file defines, is not */
    const char *alias = m >= 0 && !g->nodes[m].inactive ? macro_alias(g, m) : NULL;
    if (alias) {
        /* `#define s_free zfree`: a call of s_free is a call of zfree, made through s_free */
        for (int d = 0; d < depth; d++)
            if (stack[d] && !strcmp(stack[d], name))
                return QR_OK;
        stack[depth] = name;
        /* the call is written through the alias, as through a function-like macro:
         * `s_free(p)` names s_free, which cscope and cflow list as the callee */
        int rc = via ? QR_OK : push_expands(g, s, m);
        if (rc)
            return rc;
        if (qr__code_resolve(g, alias, QR_CODE_FUNCTION, s->f->path) >= 0 ||
            qr__code_resolve(g, alias, QR_CODE_MACRO, s->f->path) >= 0)
            return add_call(g, s, alias, via ? via : name, depth + 1, stack);
        /* `#define zmemcpy memcpy`: a call of what the project does not define */
        qr_code_edge e = {.kind = QR_CODE_E_CALLS,
                          .from = s->caller,
                          .to = -1,
                          .from_key = s->caller_key,
                          .to_key = alias,
                          .file = s->f->path,
                          .via = via ? via : name,
                          .line = s->line,
                          .inactive = s->inactive};
        g->stats.unresolved_calls++;
        return push_edge(g, &e);
    }
    if (m >= 0 && (g->nodes[m].it.flags & QR_CODE_FUNC_LIKE)) {
        for (int d = 0; d < depth; d++)
            if (stack[d] && !strcmp(stack[d], name))
                return QR_OK; /* a macro does not expand inside itself */
        stack[depth] = name;
        int rc = via ? QR_OK : push_expands(g, s, m);
        if (rc)
            return rc;
        return expand_macro(g, s, m, via ? via : g->nodes[m].it.name, depth, stack);
    }
    bool guess = false;
    int64_t t = qr__code_resolve_guess(g, name, QR_CODE_FUNCTION, s->f->path, &guess);
    if (t < 0 && !via) {
        /* a call through a project function-pointer variable (`monotime
         * (*getMonotonicUs)(void)`): the call reaches that variable */
        int64_t v = qr__code_resolve(g, name, QR_CODE_VARIABLE, s->f->path);
        if (v >= 0 && qr__code_fnptr_type(g->nodes[v].it.type))
            t = v;
    }
    if (via && t < 0)
        return QR_OK; /* inside a macro body, only calls of project functions are kept */
    qr_code_edge e = {.kind = QR_CODE_E_CALLS,
                      .from = s->caller,
                      .to = t,
                      .from_key = s->caller_key,
                      .to_key = t >= 0 ? qr__code_node_key(g, (size_t)t) : name,
                      .file = s->f->path,
                      .via = via,
                      .line = s->line,
                      .inactive = s->inactive,
                      .guess = t >= 0 && guess};
    if (t < 0)
        g->stats.unresolved_calls++;
    return push_edge(g, &e);
}

/* A header the C library, POSIX or Windows name (<stdio.h>, <pthread.h>, <windows.h>):
 * never a file of the tree by its name alone. */
static bool system_header(const char *name)
{
    static const char *const H[] = {
        "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
        "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h",
        "stdarg.h", "stdatomic.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
        "stdnoreturn.h", "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h",
        "wctype.h", "aio.h", "arpa/inet.h", "cpio.h", "dirent.h", "dlfcn.h", "fcntl.h",
        "fnmatch.h", "glob.h", "grp.h", "iconv.h", "langinfo.h", "libgen.h", "monetary.h",
        "mqueue.h", "netdb.h", "nl_types.h", "poll.h", "pthread.h", "pwd.h", "regex.h",
        "sched.h", "search.h", "semaphore.h", "spawn.h", "strings.h", "syslog.h", "tar.h",
        "termios.h", "ulimit.h", "unistd.h", "utime.h", "utmpx.h", "wordexp.h", "alloca.h",
        "malloc.h", "memory.h", "features.h", "endian.h", "getopt.h", "err.h", "paths.h",
        "sysexits.h", "execinfo.h", "link.h", "elf.h", "windows.h", "winsock2.h",
        "ws2tcpip.h", "io.h", "process.h", "direct.h", "conio.h", "tchar.h", "intrin.h",
        "crtdbg.h", "shlwapi.h", "psapi.h", "objbase.h", NULL};
    for (size_t i = 0; H[i]; i++)
        if (!strcmp(name, H[i]))
            return true;
    return false;
}

/* The repository file an #include names, or NULL (a system header as written). */
static const char *resolve_include(qr_code_graph *g, const gfile *f, const char *written)
{
    size_t n = strlen(written);
    if (n < 3)
        return NULL;
    bool quoted = written[0] == '"';
    char inner[1024];
    if (n - 2 >= sizeof inner)
        return NULL;
    memcpy(inner, written + 1, n - 2);
    inner[n - 2] = 0;
    qr_buf p;
    qr_buf_init(&p);
    const char *found = NULL;
    if (quoted) {
        const char *slash = strrchr(f->path, '/');
        if (slash)
            qr_buf_append(&p, f->path, (size_t)(slash - f->path) + 1);
        qr_buf_puts(&p, inner);
        /* normalize "./" and "../" */
        if (!p.failed) {
            char *s = p.p;
            char out[2048];
            size_t o = 0;
            bool bad = false;
            for (char *seg = s; *seg && !bad;) {
                char *e = strchr(seg, '/');
                size_t len = e ? (size_t)(e - seg) : strlen(seg);
                if (len == 1 && seg[0] == '.') {
                } else if (len == 2 && seg[0] == '.' && seg[1] == '.') {
                    if (!o)
                        bad = true;
                    else {
                        while (o && out[o - 1] != '/')
                            o--;
                        if (o)
                            o--;
                        while (o && out[o - 1] != '/')
                            o--;
                    }
                } else if (o + len + 2 < sizeof out) {
                    memcpy(out + o, seg, len);
                    o += len;
                    if (e)
                        out[o++] = '/';
                }
                seg = e ? e + 1 : seg + len;
            }
            out[o] = 0;
            int64_t i = bad ? -1 : qr__code_file_index(g, out);
            if (i >= 0)
                found = g->files[i].path;
        }
    }
    /* then the build's include directories, as the compiler looks */
    for (size_t d = 0; !found && d < g->nincdirs && !strstr(inner, ".."); d++) {
        qr_buf q;
        qr_buf_init(&q);
        qr_buf_printf(&q, "%s%s%s", g->incdirs[d], g->incdirs[d][0] ? "/" : "", inner);
        int64_t i = q.p ? qr__code_file_index(g, q.p) : -1;
        if (i >= 0)
            found = g->files[i].path;
        qr_buf_release(&q);
    }
    if (!found) {
        int64_t i = qr__code_file_index(g, inner);
        if (i >= 0 && (quoted || strchr(inner, '/')))
            found = g->files[i].path;
    }
    if (!found && (quoted || strchr(inner, '/'))) {
        /* a file whose path ends with /inner (an -I directory): the shortest */
        size_t in = strlen(inner);
        for (size_t i = 0; i < g->nfiles; i++) {
            const char *fp = g->files[i].path;
            size_t fl = strlen(fp);
            if (fl > in && fp[fl - in - 1] == '/' && !strcmp(fp + fl - in, inner) &&
                !g->files[i].deleted && (!found || strlen(found) > fl))
                found = fp;
        }
    }
    if (!found && !quoted && !strchr(inner, '/') && g->nincdirs == 0 &&
        !system_header(inner)) {
        /* `#include <janet.h>` with no build to say where the -I points: the one file of
           that name in the tree (Janet builds with -Isrc/include); a name two files have,
           or a header the C library and POSIX name, stays a system header */
        size_t in = strlen(inner), hits = 0;
        const char *one = NULL;
        for (size_t i = 0; i < g->nfiles && hits < 2; i++) {
            const char *fp = g->files[i].path;
            size_t fl = strlen(fp);
            if (!g->files[i].deleted && fl >= in && !strcmp(fp + fl - in, inner) &&
                (fl == in || fp[fl - in - 1] == '/'))
                one = fp, hits++;
        }
        if (hits == 1)
            found = one;
    }
    qr_buf_release(&p);
    return found;
}

/* uses-type edges from a struct to the repository's types its member n names (words of
 * the member's type: `struct X` a struct, other identifiers a typedef). */
static int member_types(qr_code_graph *g, const gfile *f, int64_t owner, const qr_code_node *n)
{
    const char *t = n->it.type;
    if (!t)
        return QR_OK;
    int kind = QR_CODE_TYPEDEF;
    while (*t) {
        if (!(isalpha((unsigned char)*t) || *t == '_')) {
            t++;
            continue;
        }
        const char *b = t;
        while (isalnum((unsigned char)*t) || *t == '_')
            t++;
        char word[128];
        size_t w = (size_t)(t - b);
        if (w >= sizeof word)
            continue;
        memcpy(word, b, w);
        word[w] = 0;
        if (!strcmp(word, "struct") || !strcmp(word, "union") || !strcmp(word, "enum")) {
            kind = word[0] == 's' ? QR_CODE_STRUCT : word[0] == 'u' ? QR_CODE_UNION : QR_CODE_ENUM;
            continue;
        }
        int64_t to = qr__code_resolve(g, word, kind, f->path);
        kind = QR_CODE_TYPEDEF;
        if (to < 0 || to == owner)
            continue;
        qr_code_edge e = {.kind = QR_CODE_E_USES_TYPE,
                          .from = owner,
                          .to = to,
                          .from_key = qr__code_node_key(g, (size_t)owner),
                          .to_key = qr__code_node_key(g, (size_t)to),
                          .file = f->path,
                          .line = n->it.line,
                          .inactive = n->inactive};
        int rc = push_edge(g, &e);
        if (rc)
            return rc;
    }
    return QR_OK;
}

/* ---- functions a macro defines where it is invoked ---- */

/* The name template of a function a macro's replacement text defines: the words before
 * the `(` that the first top-level `{` follows (`static jv f_ ## name(jq_state *jq, jv
 * input) { ...`): its pieces joined by `##` ("f_", "name"), as [b, e) ranges of body
 * in out[], at most max; the count, 0 when the body defines no function or its name uses
 * no parameter (hasparam is checked by the caller). *head_end is where the name starts. */
static int fn_template(const char *body, size_t *pb, size_t *pe, int max, size_t *head_end)
{
    size_t n = strlen(body), brace = n;
    int pd = 0;
    for (size_t i = 0; i < n; i++) {
        if (body[i] == '(')
            pd++;
        else if (body[i] == ')')
            pd--;
        else if (body[i] == '{' && pd == 0) {
            brace = i;
            break;
        } else if (body[i] == ';' && pd == 0)
            return 0; /* a statement before any body: not a definition */
    }
    if (brace == n)
        return 0;
    size_t k = brace;
    while (k > 0 && isspace((unsigned char)body[k - 1]))
        k--;
    if (k == 0 || body[k - 1] != ')')
        return 0;
    pd = 0;
    size_t open = 0;
    bool found = false;
    for (size_t j = k; j-- > 0;) {
        if (body[j] == ')')
            pd++;
        else if (body[j] == '(' && --pd == 0) {
            open = j;
            found = true;
            break;
        }
    }
    if (!found)
        return 0;
    /* the name: identifiers joined by ## right before the ( */
    int np = 0;
    size_t j = open;
    for (;;) {
        while (j > 0 && isspace((unsigned char)body[j - 1]))
            j--;
        size_t e = j;
        while (j > 0 && (isalnum((unsigned char)body[j - 1]) || body[j - 1] == '_'))
            j--;
        if (j == e || np == max)
            return 0;
        /* prepend */
        memmove(pb + 1, pb, (size_t)np * sizeof *pb);
        memmove(pe + 1, pe, (size_t)np * sizeof *pe);
        pb[0] = j;
        pe[0] = e;
        np++;
        size_t t = j;
        while (t > 0 && isspace((unsigned char)body[t - 1]))
            t--;
        if (t >= 2 && body[t - 1] == '#' && body[t - 2] == '#') {
            j = t - 2;
            continue;
        }
        break;
    }
    /* a head another macro writes (`JANET_CORE_FN(janet_##fop, "usage", doc) {`, as
     * head_macro_definitions reads them in a file): an upper-case name, its first
     * argument the function's name */
    bool upper = np == 1 && pe[0] - pb[0] >= 4;
    for (size_t x = pb[0]; upper && x < pe[0]; x++)
        upper = !islower((unsigned char)body[x]);
    if (upper) {
        size_t a = open + 1, e = a;
        while (a < k && isspace((unsigned char)body[a]))
            a++;
        int n2 = 0;
        for (e = a; e < k && n2 < max;) {
            size_t b0 = e;
            while (e < k && (isalnum((unsigned char)body[e]) || body[e] == '_'))
                e++;
            if (e == b0)
                return 0;
            pb[n2] = b0;
            pe[n2++] = e;
            while (e < k && isspace((unsigned char)body[e]))
                e++;
            if (e + 1 < k && body[e] == '#' && body[e + 1] == '#') {
                for (e += 2; e < k && isspace((unsigned char)body[e]);)
                    e++;
                continue;
            }
            break;
        }
        if (!n2 || e >= k || (body[e] != ',' && body[e] != ')'))
            return 0;
        np = n2;
    }
    *head_end = pb[0];
    return np;
}

/* The index of parameter word[0..n) in a macro's "(a, b)" parameter list, or -1. */
static int param_index(const char *params, const char *word, size_t n)
{
    int idx = 0;
    for (const char *p = params; p && *p;) {
        while (*p && !(isalnum((unsigned char)*p) || *p == '_')) {
            if (*p == ',')
                idx++;
            p++;
        }
        const char *b = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        if ((size_t)(p - b) == n && n && !memcmp(b, word, n))
            return idx;
    }
    return -1;
}

#define MACRO_FN_ARGS 16

/* Splits "M(a, b)" into its arguments (trimmed, into the arena); the count, -1 when it
 * does not read so. */
static int split_args(qr_code_graph *g, const char *inv, const char **args, int max)
{
    const char *p = strchr(inv, '(');
    if (!p)
        return -1;
    p++;
    int n = 0, pd = 0;
    const char *b = p;
    for (; *p; p++) {
        if (*p == '(')
            pd++;
        else if ((*p == ')' && pd == 0) || (*p == ',' && pd == 0)) {
            const char *x = b, *y = p;
            while (x < y && isspace((unsigned char)*x))
                x++;
            while (y > x && isspace((unsigned char)y[-1]))
                y--;
            if (n == max)
                return -1;
            char *a = qr_arena_alloc(&g->a, (size_t)(y - x) + 1);
            if (!a)
                return -1;
            memcpy(a, x, (size_t)(y - x));
            a[y - x] = 0;
            args[n++] = a;
            if (*p == ')')
                return n;
            b = p + 1;
        } else if (*p == ')')
            pd--;
    }
    return -1;
}

/* A function-like macro whose body defines a function (macro_functions below). */
typedef struct macro_fn {
    const qr_code_item *m;
    size_t pb[8], pe[8], head;
    int np;
    const qr_code_ref *calls; /* the MACRO_CALL refs of its body: contiguous in its file */
    size_t ncalls;
    bool single; /* its body defines one function (one brace group at its top level) */
} macro_fn;

static int cmp_macro_fn(const void *a, const void *b)
{
    return strcmp(((const macro_fn *)a)->m->name, ((const macro_fn *)b)->m->name);
}

/* A C file of the graph that is there: neither deleted nor failed to read. */
static bool live_c(const gfile *f)
{
    return !f->deleted && f->status >= 0 && f->lang == QR_CODE_LANG_C;
}

/* The function-defining macros of the project (see fn_template), sorted by name (the
 * first of a name first); *n their count. NULL when none or out of memory. */
static macro_fn *macro_fns(qr_code_graph *g, size_t *n)
{
    macro_fn *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t x = 0; x < g->nfiles; x++) {
        const gfile *h = &g->files[x];
        if (!live_c(h))
            continue;
        for (size_t k = 0; k < h->file.nitems; k++) {
            const qr_code_item *it = &h->file.items[k];
            if (it->kind != QR_CODE_MACRO || !(it->flags & QR_CODE_FUNC_LIKE) || !it->type ||
                !strchr(it->type, '{'))
                continue;
            macro_fn c = {.m = it};
            c.np = fn_template(it->type, c.pb, c.pe, 8, &c.head);
            int groups = 0, bd = 0;
            for (const char *q = it->type; *q; q++) {
                if (*q == '"' || *q == '\'') { /* a literal's braces are no group */
                    char lq = *q;
                    for (q++; *q && *q != lq; q++)
                        if (*q == '\\' && q[1])
                            q++;
                    if (!*q)
                        break;
                } else if (*q == '{' && bd++ == 0) {
                    groups++;
                } else if (*q == '}' && bd > 0) {
                    bd--;
                }
            }
            c.single = groups == 1;
            bool uses = false;
            for (int q = 0; q < c.np && !uses; q++)
                uses = param_index(it->signature, it->type + c.pb[q], c.pe[q] - c.pb[q]) >= 0;
            if (!c.np || !uses)
                continue;
            for (size_t r = 0; r < h->file.nrefs; r++) {
                const qr_code_ref *mc = &h->file.refs[r];
                bool mine = mc->kind == QR_CODE_REF_MACRO_CALL && mc->from &&
                            !strcmp(mc->from, it->name) && mc->line >= it->line &&
                            mc->line <= it->end_line;
                if (mine && !c.calls)
                    c.calls = mc;
                if (mine)
                    c.ncalls = (size_t)(mc - c.calls) + 1;
                else if (c.calls)
                    break;
            }
            if (*n == cap) {
                size_t nc = cap ? cap * 2 : 16;
                macro_fn *nv = realloc(v, nc * sizeof *nv);
                if (!nv) {
                    free(v);
                    *n = 0;
                    return NULL;
                }
                v = nv;
                cap = nc;
            }
            v[(*n)++] = c;
        }
    }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_macro_fn); /* stable enough: one of a name is taken */
    return v;
}

/* A copy of an n-element array in the arena with room for twice *cap elements (first
 * when *cap is 0), *cap updated; NULL when the arena is out of memory. */
static void *arena_grow(qr_arena *a, const void *cur, size_t n, size_t *cap, size_t first,
                        size_t size)
{
    size_t nc = *cap ? *cap * 2 : first;
    void *p = qr_arena_alloc(a, nc * size);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, cur, n * size);
    *cap = nc;
    return p;
}

/* One more slot at the end of a file's items (or refs) that a pass rewrites: the array is
 * copied from the file's own on first growth (orig), then doubled; the slot, not cleared,
 * or NULL when out of memory. */
static qr_code_item *item_slot(qr_arena *a, qr_code_item **items, const qr_code_item *orig,
                               size_t *n, size_t *cap, size_t first)
{
    if (!*items || *n == *cap) {
        qr_code_item *ni = arena_grow(a, *items ? *items : orig, *n, cap, first, sizeof *ni);
        if (!ni)
            return NULL;
        *items = ni;
    }
    return &(*items)[(*n)++];
}

static qr_code_ref *ref_slot(qr_arena *a, qr_code_ref **refs, const qr_code_ref *orig, size_t *n,
                             size_t *cap, size_t first)
{
    if (!*refs || *n == *cap) {
        qr_code_ref *nr = arena_grow(a, *refs ? *refs : orig, *n, cap, first, sizeof *nr);
        if (!nr)
            return NULL;
        *refs = nr;
    }
    return &(*refs)[(*n)++];
}

/* The object-like macro named name, the one in file `prefer` first; NULL when none. */
static const qr_code_item *object_macro(const qr_code_graph *g, const char *name,
                                        const gfile *prefer)
{
    const qr_code_item *any = NULL;
    for (size_t x = 0; x < g->nfiles; x++) {
        const gfile *h = &g->files[x];
        if (!live_c(h))
            continue;
        for (size_t k = 0; k < h->file.nitems; k++) {
            const qr_code_item *m = &h->file.items[k];
            if (m->kind != QR_CODE_MACRO || (m->flags & QR_CODE_FUNC_LIKE) || !m->type ||
                strcmp(m->name, name))
                continue;
            if (h == prefer)
                return m;
            if (!any)
                any = m;
        }
    }
    return any;
}

/* A function whose head a macro writes (`YY_DECL { ... }`, extract.c's macro_head):
 * named as the macro's replacement names it, the word before its first parenthesis
 * (`int yylex (YYSTYPE *lval, ...)`), through the aliases that rename that (jq's
 * `#define yylex jq_yylex`); its calls are that function's. */
static int macro_heads(qr_code_graph *g)
{
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (!live_c(f))
            continue;
        for (size_t k = 0; k < f->file.nitems; k++) {
            const qr_code_item *fn = &f->file.items[k];
            if (fn->kind != QR_CODE_FUNCTION || !(fn->flags & QR_CODE_EXPANDED) ||
                !fn->parent || strcmp(fn->parent, fn->name))
                continue;
            const qr_code_item *m = object_macro(g, fn->parent, f);
            const char *paren = m ? strchr(m->type, '(') : NULL;
            if (!paren)
                continue;
            const char *e = paren;
            while (e > m->type && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            const char *b = e;
            while (b > m->type && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
                b--;
            if (b == e || isdigit((unsigned char)*b))
                continue;
            const char *name = qr_arena_strndup(&g->a, b, (size_t)(e - b));
            if (!name)
                return QR_ENOMEM;
            for (int hop = 0; hop < 4; hop++) { /* `#define yylex jq_yylex` */
                const qr_code_item *a = object_macro(g, name, f);
                const char *v = a ? a->type : NULL, *ve;
                while (v && *v == ' ')
                    v++;
                for (ve = v; v && (isalnum((unsigned char)*ve) || *ve == '_'); ve++)
                    ;
                if (!v || ve == v || *ve || isdigit((unsigned char)*v) || !strcmp(v, name))
                    break;
                name = v;
            }
            qr_code_item *items = qr_arena_alloc(&g->a, f->file.nitems * sizeof *items);
            qr_code_ref *refs = qr_arena_alloc(&g->a, (f->file.nrefs ? f->file.nrefs : 1) *
                                                          sizeof *refs);
            if (!items || !refs)
                return QR_ENOMEM;
            memcpy(items, f->file.items, f->file.nitems * sizeof *items);
            if (f->file.nrefs)
                memcpy(refs, f->file.refs, f->file.nrefs * sizeof *refs);
            const char *written = fn->name;
            for (size_t q = 0; q < f->file.nrefs; q++)
                if (refs[q].from && !strcmp(refs[q].from, written) &&
                    refs[q].line >= fn->line && refs[q].line <= fn->end_line)
                    refs[q].from = name;
            items[k].name = name;
            f->file.items = items;
            f->file.refs = refs;
        }
    }
    return QR_OK;
}

/* Whether an object-like macro's replacement is only invocations `M(...) M(...)`. */
static bool invocation_list(const char *v)
{
    int n = 0;
    for (const char *p = v; p && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (!(isalpha((unsigned char)*p) || *p == '_'))
            return false;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        while (*p == ' ')
            p++;
        if (*p != '(')
            return false;
        int d = 0;
        for (; *p; p++) {
            if (*p == '(')
                d++;
            else if (*p == ')' && --d == 0) {
                p++;
                break;
            }
        }
        if (d)
            return false;
        n++;
    }
    return n > 0;
}

static int cmp_item_name(const void *a, const void *b)
{
    return strcmp((*(const qr_code_item *const *)a)->name, (*(const qr_code_item *const *)b)->name);
}

/* The macros of the project's present C files that `want` accepts, sorted by name; *n
 * their count. NULL (n 0) when none or out of memory (*oom set then). */
static const qr_code_item **macros_where(qr_code_graph *g, bool (*want)(const qr_code_item *),
                                         size_t *n, bool *oom)
{
    const qr_code_item **v = NULL;
    size_t cap = 0;
    *n = 0;
    *oom = false;
    for (size_t x = 0; x < g->nfiles; x++) {
        const gfile *h = &g->files[x];
        if (!live_c(h))
            continue;
        for (size_t k = 0; k < h->file.nitems; k++) {
            if (!want(&h->file.items[k]))
                continue;
            if (*n == cap) {
                size_t nc = cap ? cap * 2 : 16;
                const qr_code_item **nv = realloc(v, nc * sizeof *nv);
                if (!nv) {
                    free(v);
                    *n = 0;
                    *oom = true;
                    return NULL;
                }
                v = nv;
                cap = nc;
            }
            v[(*n)++] = &h->file.items[k];
        }
    }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_item_name);
    return v;
}

/* An object-like macro whose replacement is a list of invocations (list_invocations). */
static bool invocation_list_macro(const qr_code_item *it)
{
    return it->kind == QR_CODE_MACRO && !(it->flags & QR_CODE_FUNC_LIKE) &&
           invocation_list(it->type);
}

/* An object-like macro named alone at file scope whose replacement is a list of
 * invocations (jq's builtin.h `#define BINOPS BINOP(plus) BINOP(minus) ...`, named in
 * builtin.c after `#define BINOP(name) static jv f_ ## name(...) {...}`): each
 * invocation is added to the naming file as a file-scope invocation at that line, which
 * macro_functions then reads as it reads one written there (f_plus, f_minus). */
static int list_invocations(qr_code_graph *g)
{
    size_t nl = 0;
    bool oom;
    const qr_code_item **lists = macros_where(g, invocation_list_macro, &nl, &oom);
    if (oom)
        return QR_ENOMEM;
    if (!nl)
        return QR_OK;
    int rc = QR_OK;
    for (size_t i = 0; i < g->nfiles && rc == QR_OK; i++) {
        gfile *f = &g->files[i];
        if (!live_c(f))
            continue;
        qr_code_ref *refs = NULL;
        size_t r0 = f->file.nrefs, nrefs = r0, capr = 0;
        for (size_t r = 0; r < r0 && rc == QR_OK; r++) {
            const qr_code_ref *use = refs ? &refs[r] : &f->file.refs[r];
            if (use->kind != QR_CODE_REF_CALL || use->from || strchr(use->name, '('))
                continue;
            qr_code_item key = {.name = use->name};
            const qr_code_item *kp = &key;
            const qr_code_item **hit = bsearch(&kp, lists, nl, sizeof *lists, cmp_item_name);
            if (!hit)
                continue;
            uint32_t line = use->line;
            const char *cond = use->cond;
            for (const char *p = (*hit)->type; *p;) {
                while (*p == ' ' || *p == '\t')
                    p++;
                if (!*p)
                    break;
                const char *b = p;
                int d = 0;
                for (; *p; p++) {
                    if (*p == '(')
                        d++;
                    else if (*p == ')' && --d == 0) {
                        p++;
                        break;
                    }
                }
                /* "BINOP(plus)", blanks before the parenthesis dropped */
                qr_buf nb;
                qr_buf_init(&nb);
                for (const char *q = b; q < p; q++)
                    if (!(*q == ' ' && q + 1 < p && q[1] == '('))
                        qr_buf_putc(&nb, *q);
                const char *inv = nb.p && !nb.failed ? qr_arena_strndup(&g->a, nb.p, nb.len)
                                                     : NULL;
                qr_buf_release(&nb);
                if (!inv) {
                    rc = QR_ENOMEM;
                    break;
                }
                qr_code_ref *cr = ref_slot(&g->a, &refs, f->file.refs, &nrefs, &capr, r0 + 64);
                if (!cr) {
                    rc = QR_ENOMEM;
                    break;
                }
                memset(cr, 0, sizeof *cr);
                cr->kind = QR_CODE_REF_CALL;
                cr->name = inv;
                cr->line = line;
                cr->cond = cond;
            }
        }
        if (refs) {
            f->file.refs = refs;
            f->file.nrefs = nrefs;
        }
    }
    free(lists);
    return rc;
}

/* The first function-defining macro named key in fns (sorted by name), or NULL. */
static const macro_fn *find_fn(const macro_fn *fns, size_t nfns, const char *key)
{
    size_t lo = 0, hi = nfns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(fns[mid].m->name, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nfns && !strcmp(fns[lo].m->name, key) ? &fns[lo] : NULL;
}

/* Whether a function-like macro's body is one invocation of another and nothing else
 * (`#define JANET_DEFINE_MATHOP(fop, doc) JANET_DEFINE_NAMED_MATHOP(#fop, fop, doc)`). */
static bool forwards(const qr_code_item *it)
{
    if (it->kind != QR_CODE_MACRO || !(it->flags & QR_CODE_FUNC_LIKE) || !it->type)
        return false;
    const char *p = it->type;
    while (isspace((unsigned char)*p))
        p++;
    const char *b = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    if (p == b || *p != '(')
        return false;
    int pd = 0;
    for (; *p; p++) {
        if (*p == '(')
            pd++;
        else if (*p == ')' && --pd == 0)
            break;
    }
    if (!*p)
        return false;
    for (p++; *p; p++)
        if (!isspace((unsigned char)*p))
            return false;
    return true;
}

/* The invocation `inv` of forwarding macro m as the invocation its body makes: each
 * parameter replaced by its argument, `#p` by the argument in quotes, `##` joining its
 * neighbours. NULL when it does not read so or memory ran out. */
static const char *forwarded(qr_code_graph *g, const qr_code_item *m, const char *inv)
{
    const char *args[MACRO_FN_ARGS];
    int nargs = split_args(g, inv, args, MACRO_FN_ARGS);
    if (nargs < 0)
        return NULL;
    qr_buf o;
    qr_buf_init(&o);
    const char *p = m->type;
    while (isspace((unsigned char)*p))
        p++;
    bool quote = false;
    while (*p) {
        if (*p == '"' || *p == '\'') { /* a literal: as written */
            char q = *p;
            qr_buf_append(&o, p++, 1);
            while (*p && *p != q) {
                if (*p == '\\' && p[1])
                    qr_buf_append(&o, p++, 1);
                qr_buf_append(&o, p++, 1);
            }
            if (*p)
                qr_buf_append(&o, p++, 1);
            continue;
        }
        if (p[0] == '#' && p[1] == '#') { /* joined: no blanks either side */
            while (o.len && isspace((unsigned char)o.p[o.len - 1]))
                o.len--;
            for (p += 2; isspace((unsigned char)*p);)
                p++;
            continue;
        }
        if (*p == '#') {
            quote = true;
            for (p++; isspace((unsigned char)*p);)
                p++;
            continue;
        }
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *b = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            int pi = param_index(m->signature, b, (size_t)(p - b));
            const char *v = pi >= 0 && pi < nargs ? args[pi] : NULL;
            if (quote)
                qr_buf_putc(&o, '"');
            if (v)
                qr_buf_puts(&o, v);
            else
                qr_buf_append(&o, b, (size_t)(p - b));
            if (quote)
                qr_buf_putc(&o, '"');
            quote = false;
            continue;
        }
        qr_buf_append(&o, p++, 1);
    }
    const char *r = o.p && !o.failed ? qr_arena_strndup(&g->a, o.p, o.len) : NULL;
    qr_buf_release(&o);
    return r;
}

/* What file-scope invocations of function-defining macros define: for each line
 * `M(args)` (a call ref with no caller, extract.c) where some function-like macro M's
 * body defines a function whose name uses a parameter, a function item named as the
 * expansion names it (f_acos), at the invocation's line and under its conditions,
 * flagged QR_CODE_EXPANDED with the macro as parent, and calls from it of what the body
 * calls (a parameter replaced by its argument). Items and refs are added to the
 * invoking file before nodes are made, as if it had been written there. */
static int macro_functions(qr_code_graph *g)
{
    size_t nfns = 0, nfwd = 0;
    macro_fn *fns = NULL;
    const qr_code_item **fwd = NULL;
    bool looked = false, fwd_looked = false;
    int rc = QR_OK;
    for (size_t i = 0; i < g->nfiles && rc == QR_OK; i++) {
        gfile *f = &g->files[i];
        if (!live_c(f))
            continue;
        qr_code_item *items = NULL;
        qr_code_ref *refs = NULL;
        size_t nitems = f->file.nitems, capi = 0, nrefs = f->file.nrefs, capr = 0;
        for (size_t r = 0; r < f->file.nrefs; r++) {
            const qr_code_ref *inv = &f->file.refs[r];
            if (inv->kind != QR_CODE_REF_CALL || inv->from)
                continue;
            if (!looked) {
                fns = macro_fns(g, &nfns);
                looked = true;
            }
            const char *paren = strchr(inv->name, '(');
            if (!nfns || !paren || paren == inv->name)
                continue;
            size_t mlen = (size_t)(paren - inv->name);
            char key[256];
            if (mlen >= sizeof key)
                continue;
            memcpy(key, inv->name, mlen);
            key[mlen] = 0;
            const macro_fn *c = find_fn(fns, nfns, key);
            /* a macro that forwards to a function-defining one (at most three steps):
               the invocation its body makes */
            const char *call = inv->name, *invoked = NULL;
            for (int step = 0; !c && step < 3; step++) {
                if (!fwd_looked) {
                    bool oom;
                    fwd = macros_where(g, forwards, &nfwd, &oom);
                    fwd_looked = true;
                }
                qr_code_item kitem = {.name = key};
                const qr_code_item *kp = &kitem, **hit =
                    nfwd ? bsearch(&kp, fwd, nfwd, sizeof *fwd, cmp_item_name) : NULL;
                if (!hit || !(call = forwarded(g, *hit, call)))
                    break;
                invoked = invoked ? invoked : (*hit)->name;
                const char *pp = strchr(call, '(');
                size_t ml = pp ? (size_t)(pp - call) : 0;
                if (!ml || ml >= sizeof key)
                    break;
                memcpy(key, call, ml);
                key[ml] = 0;
                /* through a forwarder, only a macro that defines one function: of one
                   that defines several (tree.h's RB_GENERATE_INTERNAL) only the first
                   would be read, and its siblings' calls into it would count as missed */
                const macro_fn *fc = find_fn(fns, nfns, key);
                if (fc && fc->single)
                    c = fc;
            }
            if (!c)
                continue;
            const qr_code_item *m = c->m;
            const char *args[MACRO_FN_ARGS];
            int nargs = split_args(g, call, args, MACRO_FN_ARGS);
            if (nargs < 0)
                continue;
            qr_buf nm;
            qr_buf_init(&nm);
            for (int q = 0; q < c->np; q++) {
                int pi = param_index(m->signature, m->type + c->pb[q], c->pe[q] - c->pb[q]);
                if (pi >= 0 && pi < nargs)
                    qr_buf_puts(&nm, args[pi]);
                else
                    qr_buf_append(&nm, m->type + c->pb[q], c->pe[q] - c->pb[q]);
            }
            const char *name = nm.p && !nm.failed ? qr_arena_strndup(&g->a, nm.p, nm.len)
                                                  : NULL;
            qr_buf_release(&nm);
            if (!name)
                continue;
            qr_code_item *it =
                item_slot(&g->a, &items, f->file.items, &nitems, &capi, f->file.nitems + 16);
            if (!it) {
                rc = QR_ENOMEM;
                break;
            }
            memset(it, 0, sizeof *it);
            it->kind = QR_CODE_FUNCTION;
            it->name = name;
            it->parent = invoked ? invoked : m->name;
            it->flags = QR_CODE_EXPANDED;
            const char *st = strstr(m->type, "static");
            if (st && (size_t)(st - m->type) < c->head)
                it->flags |= QR_CODE_STATIC;
            it->signature = inv->name;
            it->cond = inv->cond;
            it->line = it->end_line = inv->line;
            for (size_t k = 0; k < c->ncalls; k++) {
                const qr_code_ref *mc = &c->calls[k];
                int pi = param_index(m->signature, mc->name, strlen(mc->name));
                qr_code_ref *cr =
                    ref_slot(&g->a, &refs, f->file.refs, &nrefs, &capr, f->file.nrefs + 64);
                if (!cr) {
                    rc = QR_ENOMEM;
                    break;
                }
                memset(cr, 0, sizeof *cr);
                cr->kind = QR_CODE_REF_CALL;
                cr->from = name;
                cr->name = pi >= 0 && pi < nargs ? args[pi] : mc->name;
                cr->line = inv->line;
                cr->cond = inv->cond;
            }
        }
        if (items) {
            f->file.items = items;
            f->file.nitems = nitems;
        }
        if (refs) {
            f->file.refs = refs;
            f->file.nrefs = nrefs;
        }
    }
    free(fns);
    free(fwd);
    return rc;
}

typedef struct alias_pair {
    const char *from, *to;
} alias_pair;

static int cmp_alias(const void *a, const void *b)
{
    return strcmp(((const alias_pair *)a)->from, ((const alias_pair *)b)->from);
}

static const char *alias_of(const alias_pair *al, size_t n, const char *name)
{
    alias_pair k = {.from = name};
    const alias_pair *hit = n ? bsearch(&k, al, n, sizeof *al, cmp_alias) : NULL;
    return hit ? hit->to : NULL;
}

/* What a .c file #included by another .c file is compiled as there, when the includer
 * first renames its functions (jq's decDouble.c and decQuad.c `#define decFloatAdd
 * decDoubleAdd`, a hundred such lines, then `#include "decBasic.c"`): for each function
 * of the included file that an alias of the includer (an object-like #define above the
 * #include whose replacement is one other name) renames, a function item with the new
 * name at the same lines, flagged QR_CODE_EXPANDED with the written name as parent,
 * calling what the written function calls with the includer's renaming applied
 * (decFloatZero is decDoubleZero there). The written function's calls are compiled out
 * (condition "0"): under its own name it is never compiled. Items and refs are added to
 * the included file before nodes are made, as macro_functions does. */
static int included_instances(qr_code_graph *g)
{
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *inc = &g->files[i];
        if (!live_c(inc))
            continue;
        for (size_t r = 0; r < inc->file.nrefs; r++) {
            const qr_code_ref *ir = &inc->file.refs[r];
            if (ir->kind != QR_CODE_REF_INCLUDE)
                continue;
            const char *to = resolve_include(g, inc, ir->name);
            size_t tl = to ? strlen(to) : 0;
            if (tl < 3 || strcmp(to + tl - 2, ".c"))
                continue;
            int64_t fi = qr__code_file_index(g, to);
            if (fi < 0 || (size_t)fi == i)
                continue;
            gfile *f = &g->files[fi];
            if (!live_c(f))
                continue;
            /* the includer's aliases above the #include */
            size_t nal = 0;
            alias_pair *al = NULL;
            for (size_t k = 0; k < inc->file.nitems; k++) {
                const qr_code_item *m = &inc->file.items[k];
                if (m->kind != QR_CODE_MACRO || (m->flags & QR_CODE_FUNC_LIKE) || !m->type ||
                    m->line >= ir->line)
                    continue;
                const char *b = m->type, *e;
                while (*b == ' ')
                    b++;
                for (e = b; isalnum((unsigned char)*e) || *e == '_'; e++)
                    ;
                if (e == b || isdigit((unsigned char)*b) || *e ||
                    ((size_t)(e - b) == strlen(m->name) && !memcmp(b, m->name, (size_t)(e - b))))
                    continue;
                alias_pair *na = realloc(al, (nal + 1) * sizeof *al);
                if (!na) {
                    free(al);
                    return QR_ENOMEM;
                }
                al = na;
                al[nal].from = m->name;
                al[nal].to = b;
                nal++;
            }
            if (!nal)
                continue;
            qsort(al, nal, sizeof *al, cmp_alias);
            size_t n0 = f->file.nitems, r0 = f->file.nrefs;
            size_t nitems = n0, capi = 0, nrefs = r0, capr = 0;
            qr_code_item *items = NULL;
            qr_code_ref *refs = NULL;
            int rc = QR_OK;
            for (size_t k = 0; k < n0 && rc == QR_OK; k++) {
                const qr_code_item *fn = &f->file.items[k];
                const char *nn;
                if (fn->kind != QR_CODE_FUNCTION || (fn->flags & QR_CODE_EXPANDED) ||
                    !(nn = alias_of(al, nal, fn->name)))
                    continue;
                qr_code_item *it =
                    item_slot(&g->a, &items, f->file.items, &nitems, &capi, n0 + 64);
                if (!it) {
                    rc = QR_ENOMEM;
                    break;
                }
                *it = *fn;
                it->name = nn;
                it->parent = fn->name;
                it->flags |= QR_CODE_EXPANDED;
                for (size_t q = 0; q < r0; q++) {
                    const qr_code_ref *cr0 =
                        refs ? &refs[q] : &f->file.refs[q];
                    if (cr0->kind != QR_CODE_REF_CALL || !cr0->from ||
                        strcmp(cr0->from, fn->name) || cr0->line < fn->line ||
                        cr0->line > fn->end_line)
                        continue;
                    qr_code_ref *cr =
                        ref_slot(&g->a, &refs, f->file.refs, &nrefs, &capr, r0 + 256);
                    if (!cr) {
                        rc = QR_ENOMEM;
                        break;
                    }
                    cr0 = &refs[q]; /* the array may have moved */
                    *cr = *cr0;
                    cr->from = nn;
                    const char *callee = cr0->name[0] != '.' ? alias_of(al, nal, cr0->name) : NULL;
                    if (callee)
                        cr->name = callee;
                }
            }
            free(al);
            if (rc)
                return rc;
            if (items) {
                f->file.items = items;
                f->file.nitems = nitems;
            }
            if (refs) {
                f->file.refs = refs;
                f->file.nrefs = nrefs;
            }
        }
    }
    /* the written function's own calls: never compiled under its name */
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (!live_c(f))
            continue;
        qr_code_ref *refs = NULL;
        for (size_t k = 0; k < f->file.nitems; k++) {
            const qr_code_item *in = &f->file.items[k];
            if (in->kind != QR_CODE_FUNCTION || !(in->flags & QR_CODE_EXPANDED) || !in->parent)
                continue;
            bool written = false; /* the function it renames, at the same lines */
            for (size_t j = 0; j < f->file.nitems && !written; j++) {
                const qr_code_item *w = &f->file.items[j];
                written = w->kind == QR_CODE_FUNCTION && !(w->flags & QR_CODE_EXPANDED) &&
                          w->line == in->line && !strcmp(w->name, in->parent);
            }
            if (!written)
                continue;
            for (size_t q = 0; q < f->file.nrefs; q++) {
                const qr_code_ref *cr = &f->file.refs[q];
                if (cr->kind != QR_CODE_REF_CALL || !cr->from || strcmp(cr->from, in->parent) ||
                    cr->line < in->line || cr->line > in->end_line)
                    continue;
                size_t ol = cr->cond ? strlen(cr->cond) : 0;
                if ((ol == 1 && cr->cond[0] == '0') || (ol > 2 && !strcmp(cr->cond + ol - 2, ",0")))
                    continue; /* marked already (another includer) */
                if (!refs) {
                    refs = qr_arena_alloc(&g->a, f->file.nrefs * sizeof *refs);
                    if (!refs)
                        return QR_ENOMEM;
                    memcpy(refs, f->file.refs, f->file.nrefs * sizeof *refs);
                    f->file.refs = refs;
                    cr = &refs[q];
                }
                char *d = qr_arena_alloc(&g->a, ol + 3);
                if (!d)
                    return QR_ENOMEM;
                if (ol)
                    memcpy(d, cr->cond, ol);
                memcpy(d + ol, ol ? ",0" : "0", ol ? 3 : 2);
                refs[q].cond = d;
            }
        }
    }
    return QR_OK;
}

static int assemble(qr_code_graph *g)
{
    int rc = macro_heads(g);
    if (rc == QR_OK)
        rc = list_invocations(g);
    if (rc == QR_OK)
        rc = macro_functions(g);
    if (rc == QR_OK)
        rc = included_instances(g);
    if (rc)
        return rc;
    /* nodes: a file node, then its items */
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        qr_code_node fn = {.file = f->path, .lang = f->lang};
        fn.it.kind = QR_CODE_FILE;
        fn.it.name = f->path;
        fn.it.line = 1;
        fn.it.end_line = f->file.lines;
        f->file_node = (int64_t)g->nnodes;
        if ((rc = push_node(g, &fn)))
            return rc;
        f->node0 = g->nnodes;
        for (size_t k = 0; k < f->file.nitems; k++) {
            qr_code_node n = {.it = f->file.items[k], .file = f->path, .lang = f->lang};
            if ((rc = push_node(g, &n)))
                return rc;
        }
        f->nnodes = g->nnodes - f->node0;
    }
    g->node_file = malloc((g->nnodes ? g->nnodes : 1) * sizeof *g->node_file);
    if (!g->node_file)
        return QR_ENOMEM;
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        g->node_file[f->file_node] = i;
        for (size_t k = f->node0; k < f->node0 + f->nnodes; k++)
            g->node_file[k] = i;
    }
    g->keys = calloc(g->nnodes ? g->nnodes : 1, sizeof *g->keys);
    g->by_name = malloc((g->nnodes ? g->nnodes : 1) * sizeof *g->by_name);
    if (!g->keys || !g->by_name)
        return QR_ENOMEM;
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].it.kind != QR_CODE_FILE)
            g->by_name[g->nnamed++] = i;
    qsort_r(g->by_name, g->nnamed, sizeof *g->by_name, cmp_by_name, g);
    /* includes first: which files a file includes decides which macros and static
     * functions its code sees */
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        for (size_t r = 0; r < f->file.nrefs; r++) {
            const qr_code_ref *ref = &f->file.refs[r];
            if (ref->kind != QR_CODE_REF_INCLUDE)
                continue;
            const char *to = resolve_include(g, f, ref->name);
            qr_code_edge e = {.kind = QR_CODE_E_INCLUDES,
                              .from = f->file_node,
                              .to = -1,
                              .from_key = f->path,
                              .to_key = to ? to : ref->name,
                              .file = f->path,
                              .line = ref->line,
                              .inactive = qr__code_cond_inactive(g, ref->cond)};
            if (to) {
                int64_t ti = qr__code_file_index(g, to);
                /* an #include compiled out (judged with every #define counted, so only
                 * when nothing could enable it: `#ifdef __OS400__ / #include
                 * "config-os400.h"`) adds nothing its includer sees */
                if (ti >= 0)
                    e.to = g->files[ti].file_node;
                if (ti >= 0 && !e.inactive) {
                    size_t *nd = realloc(f->direct, (f->ndirect + 1) * sizeof *nd);
                    if (!nd)
                        return QR_ENOMEM;
                    f->direct = nd;
                    f->direct[f->ndirect++] = (size_t)ti;
                }
            }
            if ((rc = push_edge(g, &e)))
                return rc;
        }
    }

    /* which code is compiled out, judged in each .c file from what it includes */
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        int64_t tu = tu_of(g, i);
        for (size_t k = f->node0; k < f->node0 + f->nnodes; k++)
            g->nodes[k].inactive = cond_inactive(g, g->nodes[k].it.cond, 0, tu);
    }

    /* edges */
    const char *stack[MACRO_DEPTH];
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        for (size_t k = f->node0; k < f->node0 + f->nnodes; k++) {
            qr_code_node *n = &g->nodes[k];
            qr_code_edge e = {.from = f->file_node,
                              .to = (int64_t)k,
                              .from_key = f->path,
                              .file = f->path,
                              .line = n->it.line,
                              .inactive = n->inactive};
            switch (n->it.kind) {
            case QR_CODE_DECLARATION:
                e.kind = QR_CODE_E_DECLARES;
                break;
            case QR_CODE_VARIABLE:
                e.kind = n->it.flags & QR_CODE_EXTERN ? QR_CODE_E_DECLARES : QR_CODE_E_DEFINES;
                break;
            case QR_CODE_MEMBER:
            case QR_CODE_ENUMERATOR: {
                int64_t owner = -1;
                for (size_t j = k; j-- > f->node0;) {
                    const qr_code_node *o = &g->nodes[j];
                    if ((o->it.kind == QR_CODE_STRUCT || o->it.kind == QR_CODE_UNION ||
                         o->it.kind == QR_CODE_ENUM) &&
                        n->it.parent && !strcmp(o->it.name, n->it.parent)) {
                        owner = (int64_t)j;
                        break;
                    }
                }
                if (owner < 0)
                    continue;
                e.kind = QR_CODE_E_MEMBER_OF;
                e.from = (int64_t)k;
                e.from_key = qr__code_node_key(g, k);
                e.to = owner;
                e.to_key = qr__code_node_key(g, (size_t)owner);
                if ((rc = push_edge(g, &e)))
                    return rc;
                if (n->it.kind == QR_CODE_MEMBER && (rc = member_types(g, f, owner, n)))
                    return rc;
                continue;
            }
            default:
                e.kind = QR_CODE_E_DEFINES;
                break;
            }
            e.to_key = qr__code_node_key(g, k);
            if ((rc = push_edge(g, &e)))
                return rc;
        }
        const char *last_type_fn = NULL;
        int64_t tu = tu_of(g, i);
        for (size_t r = 0; r < f->file.nrefs; r++) {
            const qr_code_ref *ref = &f->file.refs[r];
            bool inactive = cond_inactive(g, ref->cond, 0, tu);
            if (ref->kind == QR_CODE_REF_INCLUDE) {
                continue; /* done before, so that what a file includes is known */
            } else if (ref->kind == QR_CODE_REF_CALL && ref->from && ref->name[0] == '.') {
                /* a call through a struct member (`c->cmd->proc(c)`): an edge to the member
                 * of that name the caller's file sees (redisCommand.proc), none when no
                 * struct of the project has one */
                int64_t caller = enclosing(g, f, ref->from, ref->line, QR_CODE_FUNCTION);
                int64_t t = qr__code_resolve(g, ref->name + 1, QR_CODE_MEMBER, f->path);
                if (caller < 0 || t < 0)
                    continue;
                qr_code_edge ce = {.kind = QR_CODE_E_CALLS,
                                   .from = caller,
                                   .to = t,
                                   .from_key = qr__code_node_key(g, (size_t)caller),
                                   .to_key = qr__code_node_key(g, (size_t)t),
                                   .file = f->path,
                                   .line = ref->line,
                                   .inactive = inactive};
                if ((rc = push_edge(g, &ce)))
                    return rc;
            } else if (ref->kind == QR_CODE_REF_CALL && ref->from) {
                int64_t caller = enclosing(g, f, ref->from, ref->line, QR_CODE_FUNCTION);
                call_site s = {.f = f,
                               .caller = caller,
                               .caller_key = caller >= 0 ? qr__code_node_key(g, (size_t)caller)
                                                         : key_of(g, f->path, ref->from),
                               .line = ref->line,
                               .inactive = inactive};
                memset(stack, 0, sizeof stack);
                if ((rc = add_call(g, &s, ref->name, NULL, 0, stack)))
                    return rc;
            } else if (ref->kind == QR_CODE_REF_MACRO_CALL && ref->from) {
                /* what a function-like macro's body calls: an edge from the macro to a
                 * project function, so that the macro's callees can be asked for */
                int64_t m = enclosing(g, f, ref->from, ref->line, QR_CODE_MACRO);
                int64_t t = qr__code_resolve(g, ref->name, QR_CODE_FUNCTION, f->path);
                if (m < 0 || t < 0)
                    continue;
                qr_code_edge ce = {.kind = QR_CODE_E_CALLS,
                                   .from = m,
                                   .to = t,
                                   .from_key = qr__code_node_key(g, (size_t)m),
                                   .to_key = qr__code_node_key(g, (size_t)t),
                                   .file = f->path,
                                   .line = ref->line,
                                   .inactive = inactive};
                if ((rc = push_edge(g, &ce)))
                    return rc;
            } else if (ref->kind == QR_CODE_REF_TYPE && ref->from) {
                int64_t user = enclosing(g, f, ref->from, ref->line, QR_CODE_FUNCTION);
                if (user < 0)
                    continue;
                int64_t t = qr__code_resolve(g, ref->name, QR_CODE_TYPEDEF, f->path);
                if (t < 0)
                    t = qr__code_resolve(g, ref->name, QR_CODE_STRUCT, f->path);
                if (t < 0)
                    t = qr__code_resolve(g, ref->name, QR_CODE_UNION, f->path);
                if (t < 0)
                    t = qr__code_resolve(g, ref->name, QR_CODE_ENUM, f->path);
                if (t < 0)
                    continue; /* a type of the system headers */
                const char *tk = qr__code_node_key(g, (size_t)t);
                /* one edge per function and type */
                bool dup = false;
                if (last_type_fn == ref->from)
                    for (size_t j = g->nedges; j-- > 0;) {
                        const qr_code_edge *pe = &g->edges[j];
                        if (pe->kind != QR_CODE_E_USES_TYPE || pe->from != user)
                            break;
                        if (pe->to == t) {
                            dup = true;
                            break;
                        }
                    }
                last_type_fn = ref->from;
                if (dup)
                    continue;
                qr_code_edge e = {.kind = QR_CODE_E_USES_TYPE,
                                  .from = user,
                                  .to = t,
                                  .from_key = qr__code_node_key(g, (size_t)user),
                                  .to_key = tk,
                                  .file = f->path,
                                  .line = ref->line,
                                  .inactive = inactive};
                if ((rc = push_edge(g, &e)))
                    return rc;
            }
        }
    }
    g->by_from = malloc((g->nedges ? g->nedges : 1) * sizeof *g->by_from);
    g->by_to = malloc((g->nedges ? g->nedges : 1) * sizeof *g->by_to);
    if (!g->by_from || !g->by_to)
        return QR_ENOMEM;
    for (size_t i = 0; i < g->nedges; i++)
        g->by_from[i] = g->by_to[i] = i;
    qsort_r(g->by_from, g->nedges, sizeof *g->by_from, cmp_by_from, g);
    qsort_r(g->by_to, g->nedges, sizeof *g->by_to, cmp_by_to, g);
    g->stats.nodes = g->nnodes;
    g->stats.edges = g->nedges;
    return g->a.exhausted ? QR_ENOMEM : QR_OK;
}

/* Whether path names a table of C meant to be #included (`.def`, `.inc`: redis's
 * commands.def inside commands.c's array initializer, jq's config_opts.inc) in a directory
 * that holds C sources too; zlib's win32/zlib.def, a linker's module definition beside
 * none, is not one. */
static bool included_table(const qr_code_graph *g, const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || (strcmp(dot, ".def") && strcmp(dot, ".inc")))
        return false;
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        const char *p = g->files[i].path;
        size_t n = strlen(p);
        if (g->files[i].deleted || strncmp(p, path, dir) || strchr(p + dir, '/') || n < dir + 3)
            continue;
        if (!strcmp(p + n - 2, ".c") || !strcmp(p + n - 2, ".h"))
            return true;
    }
    return false;
}

static bool path_ok(const char *p)
{
    return qr_utf8_valid(p, strlen(p));
}

int qr_code_load(qr_code *c, const qr_code_opts *opts, qr_code_graph **out, qr_buf *err)
{
    *out = NULL;
    qr_code_graph *g = calloc(1, sizeof *g);
    if (!g)
        return QR_ENOMEM;
    g->c = c;
    qr_arena_init(&g->a, 0);
    lister l = {.g = g};
    const char *ref = opts ? opts->ref : NULL;
    size_t max = opts && opts->max_bytes ? opts->max_bytes : DEFAULT_MAX_BYTES;
    const char **listed = NULL; /* the working tree's listing, for its stat snapshot */
    size_t nlisted = 0;
    int rc;
    if (!ref && !c->repo && c->workdir) {
        read_build_defines(g);
        if (qr__code_gcache_fast(g)) {
            *out = g;
            return QR_OK;
        }
    }
    const qr_code_listing *given = opts ? opts->listing : NULL; /* the team database's */
    if ((!given && (rc = qr__code_need_repo(c, err)) != QR_OK) ||
        (rc = qr__code_need_store(c, err)) != QR_OK)
        goto fail;
    struct timespec start;
    clock_gettime(CLOCK_REALTIME, &start);
    rc = given ? take_listing(&l, given)
         : ref ? list_ref(c, &l, ref, err)
               : list_worktree(c, &l, err);
    if (rc != QR_OK)
        goto fail;
    if (g->nfiles) /* qsort of NULL is undefined even for 0 elements */
        qsort(g->files, g->nfiles, sizeof *g->files, cmp_file);
    if (!ref && c->workdir && g->nfiles) {
        listed = malloc(g->nfiles * sizeof *listed);
        for (size_t i = 0; listed && i < g->nfiles; i++)
            listed[nlisted++] = g->files[i].path;
    }
    /* drop what is not indexed, counting why */
    size_t kept = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile f = g->files[i];
        if (f.deleted)
            continue;
        g->stats.files++;
        f.lang = qr_code_lang_of(f.path);
        if (f.symlink) {
            g->stats.skipped_symlink++;
            continue;
        }
        if (!path_ok(f.path)) {
            g->stats.skipped_path++;
            continue;
        }
        if (f.lang == QR_CODE_LANG_NONE && included_table(g, f.path))
            f.lang = QR_CODE_LANG_C;
        if (f.lang == QR_CODE_LANG_NONE) {
            g->stats.skipped_lang++;
            continue;
        }
        g->files[kept++] = f;
    }
    g->nfiles = kept;
    read_build_defines(g);
    if (qr__code_gcache_load(g)) {
        if (listed)
            qr__code_snap_save(g, listed, nlisted, &start);
        free(listed);
        *out = g;
        return QR_OK;
    }
    /* the team database: the rows of every blob in one statement (store_pg.c) */
    bool ahead = qr__code_store_shared(c->store) && g->nfiles > 1;
    if (ahead) {
        const char **ids = malloc(g->nfiles * sizeof *ids);
        for (size_t i = 0; ids && i < g->nfiles; i++)
            ids[i] = g->files[i].oid;
        if (ids)
            qr__code_store_prefetch(c->store, ids, g->nfiles);
        free(ids);
    }
    size_t todo = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        qr_code_blob b;
        rc = qr__code_store_get(c->store, f->oid, &g->a, &b, err);
        if (rc == 1 && given) {
            f->status = -1; /* not on the team database: no repository to parse it from */
            continue;
        }
        if (rc == 1) {
            todo++;
            f->status = -2; /* to index */
            continue;
        }
        if (rc != QR_OK)
            goto fail;
        f->status = b.status;
        f->file = b.file;
    }
    if (ahead)
        qr__code_store_prefetch(c->store, NULL, 0);
    if (todo) {
        /* in batches: read (this thread), extract (all threads), store (this thread, in
         * listing order, so the store's rows do not depend on the threads' timing) */
        size_t threads = todo < INDEX_BATCH / 4 ? 1 : index_threads();
        blob_job *jobs = calloc(INDEX_BATCH, sizeof *jobs);
        if (!jobs) {
            rc = QR_ENOMEM;
            goto fail;
        }
        size_t done = 0, i = 0;
        rc = QR_OK;
        while (i < g->nfiles && rc == QR_OK) {
            /* a stop ends the work between batches: the batches stored so far are kept,
             * and the next load indexes only the rest */
            if (opts && qr_stop_check(opts->stop)) {
                qr_stop_fail(opts->stop, err);
                rc = QR_ESTOPPED;
                break;
            }
            size_t n = 0;
            for (; i < g->nfiles && n < INDEX_BATCH; i++)
                if (g->files[i].status == -2) {
                    jobs[n].f = &g->files[i];
                    job_read(c, &jobs[n++], max);
                }
            if (opts && opts->progress)
                opts->progress(opts->progress_ud, "indexing code files", done, todo);
            extract_batch(jobs, n, threads, opts ? opts->stop : NULL);
            for (size_t k = 0; k < n; k++) {
                int sr = job_store(c, g, &jobs[k], err);
                if (sr != QR_OK && rc == QR_OK)
                    rc = sr;
            }
            done += n;
            if (rc == QR_OK)
                rc = qr__code_store_commit(c->store, err);
            for (size_t k = 0; k < n && rc == QR_OK; k++) {
                gfile *f = jobs[k].f;
                qr_code_blob b;
                int gr = qr__code_store_get(c->store, f->oid, &g->a, &b, err);
                if (gr == 1) {
                    f->status = -1;
                    continue;
                }
                if (gr != QR_OK) {
                    rc = gr;
                    break;
                }
                f->status = b.status;
                f->file = b.file;
            }
        }
        free(jobs);
        if (rc != QR_OK)
            goto fail;
        if (opts && opts->progress)
            opts->progress(opts->progress_ud, "indexing code files", todo, todo);
        if (qr__code_gc_due(c)) {
            /* the graph being assembled holds its rows already: prune what nothing reaches */
            qr_code_gc_stats gs;
            qr_buf ge;
            qr_buf_init(&ge);
            (void)qr_code_gc(c, opts ? opts->stop : NULL, &gs, &ge);
            qr_buf_release(&ge);
        }
    }
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        switch (f->status) {
        case QR_CODE_BLOB_OK:
            if (f->lang == QR_CODE_LANG_CTAGS)
                g->stats.ctags_files++;
            else
                g->stats.parsed++;
            g->stats.parse_errors += f->file.errors;
            if (f->file.errors)
                g->stats.files_with_errors++;
            break;
        case QR_CODE_BLOB_BINARY:
            g->stats.skipped_binary++;
            break;
        case QR_CODE_BLOB_LARGE:
            g->stats.skipped_large++;
            break;
        default:
            break;
        }
    }
    if ((rc = assemble(g)) != QR_OK) {
        if (rc == QR_ENOMEM)
            qr_buf_puts(err, "out of memory assembling the code graph");
        goto fail;
    }
    qr__code_gcache_save(g);
    if (listed)
        qr__code_snap_save(g, listed, nlisted, &start);
    free(listed);
    *out = g;
    return QR_OK;
fail:
    free(listed);
    qr_code_graph_free(g);
    return rc;
}

void qr_code_graph_free(qr_code_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nfiles; i++) {
        free(g->files[i].direct);
        free(g->files[i].closure);
    }
    free(g->refs);
    free(g->ref_file);
    free(g->files);
    free(g->keys);
    if (g->region) {
        munmap(g->region, g->region_len);
    } else {
        free(g->node_file);
        free(g->nodes);
        free(g->edges);
    }
    if (!g->lookups_mapped) {
        free(g->by_name);
        free(g->by_from);
        free(g->by_to);
    }
    if (g->cache_buf)
        munmap(g->cache_buf, g->cache_len);
    qr_arena_release(&g->a);
    free(g);
}

size_t qr_code_graph_nnodes(const qr_code_graph *g)
{
    return g->nnodes;
}

const qr_code_node *qr_code_graph_node(const qr_code_graph *g, size_t i)
{
    return i < g->nnodes ? &g->nodes[i] : NULL;
}

size_t qr_code_graph_nedges(const qr_code_graph *g)
{
    return g->nedges;
}

const qr_code_edge *qr_code_graph_edge(const qr_code_graph *g, size_t i)
{
    qr__code_need_edges(g);
    return i < g->nedges ? &g->edges[i] : NULL;
}

size_t qr_code_graph_nfiles(const qr_code_graph *g)
{
    return g->nfiles;
}

const char *qr_code_graph_file(const qr_code_graph *g, size_t i, qr_code_lang *lang)
{
    if (i >= g->nfiles)
        return NULL;
    if (lang)
        *lang = g->files[i].lang;
    return g->files[i].path;
}

const qr_code_stats *qr_code_graph_stats(const qr_code_graph *g)
{
    return &g->stats;
}

const char *qr_code_graph_text(qr_code_graph *g, const qr_code_node *n, qr_arena *a)
{
    int64_t fi = qr__code_file_index(g, n->file);
    if (fi < 0)
        return NULL;
    char *data = NULL;
    size_t len = 0;
    if (read_content(g->c, &g->files[fi], 0, &data, &len) != QR_OK)
        return NULL;
    const char *r = NULL;
    if (n->it.kind == QR_CODE_FILE)
        r = qr_arena_strndup(a, data, len);
    else if (n->it.start_byte <= n->it.end_byte && n->it.end_byte <= len)
        r = qr_arena_strndup(a, data + n->it.start_byte, n->it.end_byte - n->it.start_byte);
    free(data);
    return r;
}

int qr__code_file_names(qr_code_graph *g, size_t fi, qr_buf *err)
{
    gfile *f = &g->files[fi];
    if (f->names_loaded || f->status != QR_CODE_BLOB_OK)
        return QR_OK;
    int rc = qr__code_need_store(g->c, err);
    if (rc != QR_OK)
        return rc;
    rc = qr__code_store_names(g->c->store, f->oid, &g->a, &f->names, &f->nnames, err);
    if (rc == QR_OK)
        f->names_loaded = true;
    return rc;
}

static int cmp_ref(const void *a, const void *b, void *ctx)
{
    const qr_code_graph *sort_graph = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const qr_code_ref *rx = sort_graph->refs[x], *ry = sort_graph->refs[y];
    int c = strcmp(rx->name, ry->name);
    if (c)
        return c;
    if (sort_graph->ref_file[x] != sort_graph->ref_file[y])
        return sort_graph->ref_file[x] < sort_graph->ref_file[y] ? -1 : 1;
    if (rx->line != ry->line)
        return rx->line < ry->line ? -1 : 1;
    return (x > y) - (x < y);
}

int qr__code_ref_index(qr_code_graph *g, qr_buf *err)
{
    if (g->refs_done)
        return QR_OK;
    size_t n = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        int rc = qr__code_file_names(g, i, err);
        if (rc)
            return rc;
        if (g->files[i].status < 0 || g->files[i].deleted)
            continue;
        n += g->files[i].file.nrefs + g->files[i].nnames;
    }
    const qr_code_ref **refs = malloc((n ? n : 1) * sizeof *refs);
    size_t *files = malloc((n ? n : 1) * sizeof *files);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!refs || !files || !order) {
        free(refs);
        free(files);
        free(order);
        return QR_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->status < 0 || f->deleted)
            continue;
        for (size_t r = 0; r < f->file.nrefs; r++)
            if (f->file.refs[r].kind != QR_CODE_REF_INCLUDE) {
                refs[k] = &f->file.refs[r];
                files[k++] = i;
            }
        for (size_t r = 0; r < f->nnames; r++) {
            refs[k] = &f->names[r];
            files[k++] = i;
        }
    }
    g->refs = refs;
    g->ref_file = files;
    g->nrefs = k;
    for (size_t i = 0; i < k; i++)
        order[i] = i;
    qsort_r(order, k, sizeof *order, cmp_ref, g);
    /* apply the order */
    const qr_code_ref **r2 = malloc((k ? k : 1) * sizeof *r2);
    size_t *f2 = malloc((k ? k : 1) * sizeof *f2);
    if (!r2 || !f2) {
        free(r2);
        free(f2);
        free(order);
        return QR_ENOMEM;
    }
    for (size_t i = 0; i < k; i++) {
        r2[i] = refs[order[i]];
        f2[i] = files[order[i]];
    }
    free(refs);
    free(files);
    free(order);
    g->refs = r2;
    g->ref_file = f2;
    g->refs_done = true;
    return QR_OK;
}

size_t qr_code_graph_named(const qr_code_graph *g, const char *name, const size_t **idx)
{
    size_t i = qr__code_name_lower(g, name), j = i;
    while (j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, name))
        j++;
    *idx = g->by_name ? g->by_name + i : NULL;
    return j - i;
}

size_t qr_code_graph_edges_from(const qr_code_graph *g, const char *key, const size_t **idx)
{
    size_t first, n = qr__code_edges_from(g, key, &first);
    *idx = g->by_from ? g->by_from + first : NULL;
    return n;
}

size_t qr_code_graph_edges_to(const qr_code_graph *g, const char *key, const size_t **idx)
{
    size_t first, n = qr__code_edges_to(g, key, &first);
    *idx = g->by_to ? g->by_to + first : NULL;
    return n;
}

const char *qr_code_graph_node_key(qr_code_graph *g, size_t i)
{
    return i < g->nnodes ? qr__code_node_key(g, i) : NULL;
}

int64_t qr_code_graph_file_node(const qr_code_graph *g, const char *path)
{
    int64_t fi = qr__code_file_index(g, path);
    return fi < 0 ? -1 : g->files[fi].file_node;
}
