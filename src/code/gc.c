/*
 * gc.c: `quarry code gc`, pruning the code index (<gitdir>/quarry/code.db) of blobs that
 * nothing reaches any more. The index is keyed by blob id and rows are never updated, so
 * every version of every file ever indexed stays; this keeps the blobs some ref (branch,
 * tag, remote, note, stash: every reference), HEAD, the git index or the working tree
 * (uncommitted files, hashed as `git hash-object` does) still reaches, and drops the
 * rest, then compacts the file. The graphs kept on disk (gcache.c) are removed with them.
 *
 * Run by hand, or by qr_code_load after indexing when the database passes a size
 * (QUARRY_CODE_GC_BYTES, default 256 MiB) and has grown by a quarter of that since the
 * last gc (so a repository whose reachable index alone is that big is not pruned on every
 * load).
 *
 * On the team database (QUARRY_DATABASE_URL) the rows are every repository's: gc keeps the
 * blobs some repository's recorded files hold (code_files, at the extractor version that
 * recorded them) and prunes the rest, whatever this repository reaches; it waits (up to
 * QUARRY_CODE_GC_WAIT seconds, default 30) until no indexer holds rows it has not recorded
 * yet (store_pg.c's lock), and says so when one still does.
 *
 * Reachable is computed as git does for its own gc, without reflogs: every commit from
 * every reference, parents followed, every tree of those commits (each tree once).
 * Rejected: pruning by age (a blob of an old tag is as reachable as today's).
 */
#include "graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define AUTO_GC_BYTES (256ll << 20)

/* a set of object ids: open addressing on the id's first bytes */
typedef struct oidset {
    git_oid *v;
    unsigned char *used;
    size_t cap, n;
} oidset;

static size_t oid_hash(const git_oid *o)
{
    size_t h;
    memcpy(&h, o->id, sizeof h);
    return h;
}

/* 1 when added, 0 when there already, -1 out of memory */
static int oidset_add(oidset *s, const git_oid *o)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        git_oid *nv = malloc(nc * sizeof *nv);
        unsigned char *nu = calloc(nc, 1);
        if (!nv || !nu) {
            free(nv);
            free(nu);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                size_t j = oid_hash(&s->v[i]) & (nc - 1);
                while (nu[j])
                    j = (j + 1) & (nc - 1);
                nu[j] = 1;
                nv[j] = s->v[i];
            }
        free(s->v);
        free(s->used);
        s->v = nv;
        s->used = nu;
        s->cap = nc;
    }
    size_t j = oid_hash(o) & (s->cap - 1);
    while (s->used[j]) {
        if (!memcmp(s->v[j].id, o->id, sizeof o->id))
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->used[j] = 1;
    s->v[j] = *o;
    s->n++;
    return 1;
}

static void oidset_free(oidset *s)
{
    free(s->v);
    free(s->used);
}

typedef struct reach {
    git_repository *repo;
    oidset commits, trees, blobs;
    git_oid *stack; /* commits to visit */
    size_t nstack, capstack;
    const qr_stop *stop;
    int rc;
} reach;

static void push_commit(reach *r, const git_oid *o)
{
    int a = oidset_add(&r->commits, o);
    if (a < 0) {
        r->rc = QR_ENOMEM;
        return;
    }
    if (!a)
        return;
    if (r->nstack == r->capstack) {
        size_t nc = r->capstack ? r->capstack * 2 : 256;
        git_oid *ns = realloc(r->stack, nc * sizeof *ns);
        if (!ns) {
            r->rc = QR_ENOMEM;
            return;
        }
        r->stack = ns;
        r->capstack = nc;
    }
    r->stack[r->nstack++] = *o;
}

static void walk_tree(reach *r, const git_oid *id, int depth)
{
    int a = oidset_add(&r->trees, id);
    if (a <= 0) {
        if (a < 0)
            r->rc = QR_ENOMEM;
        return;
    }
    git_tree *t = NULL;
    if (depth > 256 || git_tree_lookup(&t, r->repo, id) != 0)
        return;
    size_t n = git_tree_entrycount(t);
    for (size_t i = 0; i < n && !r->rc; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(t, i);
        git_object_t ty = git_tree_entry_type(e);
        if (ty == GIT_OBJECT_BLOB) {
            if (oidset_add(&r->blobs, git_tree_entry_id(e)) < 0)
                r->rc = QR_ENOMEM;
        } else if (ty == GIT_OBJECT_TREE) {
            walk_tree(r, git_tree_entry_id(e), depth + 1);
        }
    }
    git_tree_free(t);
}

/* a reference's target: a commit (walked), or a tree or blob it names directly */
static void push_target(reach *r, const char *name)
{
    git_oid id;
    if (git_reference_name_to_id(&id, r->repo, name) != 0)
        return;
    git_object *o = NULL;
    if (git_revparse_single(&o, r->repo, name) != 0)
        return;
    git_object *peeled = NULL;
    if (git_object_peel(&peeled, o, GIT_OBJECT_COMMIT) == 0) {
        push_commit(r, git_object_id(peeled));
        git_object_free(peeled);
    } else if (git_object_peel(&peeled, o, GIT_OBJECT_TREE) == 0) {
        walk_tree(r, git_object_id(peeled), 0);
        git_object_free(peeled);
    } else if (git_object_peel(&peeled, o, GIT_OBJECT_BLOB) == 0) {
        if (oidset_add(&r->blobs, git_object_id(peeled)) < 0)
            r->rc = QR_ENOMEM;
        git_object_free(peeled);
    }
    git_object_free(o);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int64_t file_bytes(const char *db)
{
    int64_t total = 0;
    static const char *const side[] = {"", "-wal"};
    for (size_t i = 0; i < 2; i++) {
        char p[4096];
        struct stat sb;
        snprintf(p, sizeof p, "%s%s", db, side[i]);
        if (stat(p, &sb) == 0)
            total += (int64_t)sb.st_size;
    }
    return total;
}

static void gc_mark_path(const qr_code *c, qr_buf *p)
{
    qr_buf_printf(p, "%s/quarry/code.gc", c->gitdir);
}

int qr_code_gc(qr_code *c, const qr_stop *stop, qr_code_gc_stats *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    int rc;
    if ((rc = qr__code_need_repo(c, err)) != QR_OK || (rc = qr__code_need_store(c, err)) != QR_OK)
        return rc;
    if (qr__code_store_shared(c->store)) {
        const char *w = getenv("QUARRY_CODE_GC_WAIT");
        long secs = w && *w ? atol(w) : 30;
        secs = secs < 0 ? 0 : secs > 3600 ? 3600 : secs;
        rc = qr__code_store_prune_shared(c->store, stop, (int)secs * 1000, out, err);
        if (rc == QR_OK && out->blobs_removed)
            qr__code_gcache_clear(c->gitdir, NULL);
        return rc;
    }
    int64_t items, refs;
    qr__code_store_count(c->store, &out->blobs_before, &items, &refs);
    out->bytes_before = file_bytes(c->db_path);
    reach r = {.repo = c->repo, .stop = stop};
    /* every reference, and HEAD (detached or not) */
    git_reference_iterator *it = NULL;
    if (git_reference_iterator_new(&it, c->repo) != 0) {
        qr_buf_printf(err, "cannot list the references of '%s'", c->gitdir);
        return QR_EIO;
    }
    git_reference *ref;
    while (git_reference_next(&ref, it) == 0) {
        git_object *o = NULL;
        if (git_reference_peel(&o, ref, GIT_OBJECT_ANY) == 0) {
            git_object *pc = NULL;
            if (git_object_peel(&pc, o, GIT_OBJECT_COMMIT) == 0) {
                push_commit(&r, git_object_id(pc));
                git_object_free(pc);
            } else if (git_object_peel(&pc, o, GIT_OBJECT_TREE) == 0) {
                walk_tree(&r, git_object_id(pc), 0);
                git_object_free(pc);
            } else if (oidset_add(&r.blobs, git_object_id(o)) < 0) {
                r.rc = QR_ENOMEM;
            }
            git_object_free(o);
        }
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
    push_target(&r, "HEAD");
    /* the commits, parents followed, and their trees */
    size_t visited = 0;
    while (r.nstack && !r.rc) {
        git_oid id = r.stack[--r.nstack];
        if ((++visited & 255) == 0 && qr_stop_check(stop)) {
            qr_stop_fail(stop, err);
            r.rc = QR_ESTOPPED;
            break;
        }
        git_commit *cm = NULL;
        if (git_commit_lookup(&cm, c->repo, &id) != 0)
            continue;
        git_tree *t = NULL;
        if (git_commit_tree(&t, cm) == 0) {
            walk_tree(&r, git_tree_id(t), 0);
            git_tree_free(t);
        }
        unsigned np = git_commit_parentcount(cm);
        for (unsigned i = 0; i < np; i++) {
            const git_oid *p = git_commit_parent_id(cm, i);
            if (p)
                push_commit(&r, p);
        }
        git_commit_free(cm);
    }
    /* the git index and the working tree */
    char (*listed)[41] = NULL;
    size_t nlisted = 0;
    if (!r.rc && (rc = qr__code_worktree_oids(c, &listed, &nlisted, err)) != QR_OK)
        r.rc = rc;
    out->commits = r.commits.n;
    const char **keep = NULL;
    char *hex = NULL;
    size_t nkeep = 0;
    if (!r.rc) {
        size_t cap = r.blobs.n + nlisted;
        keep = malloc((cap ? cap : 1) * sizeof *keep);
        hex = malloc((cap ? cap : 1) * 41);
        if (!keep || !hex)
            r.rc = QR_ENOMEM;
        for (size_t i = 0; !r.rc && i < r.blobs.cap; i++)
            if (r.blobs.used[i]) {
                git_oid_tostr(hex + 41 * nkeep, 41, &r.blobs.v[i]);
                keep[nkeep] = hex + 41 * nkeep;
                nkeep++;
            }
        for (size_t i = 0; !r.rc && i < nlisted; i++) {
            memcpy(hex + 41 * nkeep, listed[i], 41);
            keep[nkeep] = hex + 41 * nkeep;
            nkeep++;
        }
        if (!r.rc)
            qsort(keep, nkeep, sizeof *keep, cmp_str);
    }
    int64_t removed = 0;
    if (!r.rc)
        r.rc = qr__code_store_prune(c->store, keep, nkeep, &removed, err);
    if (!r.rc && removed)
        qr__code_gcache_clear(c->gitdir, NULL);
    out->blobs_removed = removed;
    out->bytes_after = file_bytes(c->db_path);
    if (!r.rc) {
        qr_buf mark;
        qr_buf_init(&mark);
        gc_mark_path(c, &mark);
        FILE *f = mark.failed ? NULL : fopen(mark.p, "w");
        if (f) {
            fprintf(f, "%lld\n", (long long)out->bytes_after);
            fclose(f);
        }
        qr_buf_release(&mark);
    }
    if (r.rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory pruning the code index");
    free(keep);
    free(hex);
    free(listed);
    free(r.stack);
    oidset_free(&r.commits);
    oidset_free(&r.trees);
    oidset_free(&r.blobs);
    return r.rc;
}

bool qr__code_gc_due(qr_code *c)
{
    const char *env = getenv("QUARRY_CODE_GC_BYTES");
    long long limit = env && *env ? atoll(env) : AUTO_GC_BYTES;
    if (limit <= 0 || !c->db_path)
        return false;
    int64_t now = file_bytes(c->db_path);
    if (now <= limit)
        return false;
    long long last = 0;
    qr_buf mark;
    qr_buf_init(&mark);
    gc_mark_path(c, &mark);
    FILE *f = mark.failed ? NULL : fopen(mark.p, "r");
    if (f) {
        if (fscanf(f, "%lld", &last) != 1)
            last = 0;
        fclose(f);
    }
    qr_buf_release(&mark);
    return now - last > limit / 4;
}
