/*
 * shared_index.c: the statistics index of many repositories on the team database
 * (quarry/git.h, "the statistics index shared on PostgreSQL"; tables by migration 3 in
 * src/store/pg_schema.c): a repository's stable id, the indexing queue, and the worker
 * that claims a repository, indexes it and publishes the result.
 *
 * Design. A worker reads git exactly as `quarry index` and the tools do: the revision
 * walk (repo.c) from HEAD, and the statistics through the local SQLite index
 * (numstat.c's qr__git_stats_ensure, then qr__git_stats), so a row in the database is what
 * the local tools compute. What it writes is the difference between the commits HEAD
 * reaches and the rows the database holds for the repository, whatever the last run did:
 * a run killed half-way, a history rewritten by a force push and a first run are the same
 * case, and the result is that of a clean run. Rows go in by batches, one transaction
 * each (an INSERT ... SELECT FROM unnest() of text arrays per table: two statements per
 * batch), and each batch first renews the lease with `UPDATE ... WHERE holder = me`:
 * a worker whose lease ended and was claimed by another writes nothing more. The rows of a
 * run carry generation gen + 1 and stay invisible through the *_live views until the last
 * transaction drops what HEAD no longer reaches and sets git_repos.gen: a reader sees a
 * repository as of one finished run. Authors are stored through the .mailmap of the run
 * that wrote them, and as recorded: each run maps the recorded identities again and
 * rewrites those whose mapping moved, in the publishing transaction. Text is stored
 * valid UTF-8 (the database's encoding refuses anything else): paths as the tools show
 * them (qr__path_shown: quoted when they are not UTF-8; path_key then holds their bytes,
 * which the tools sort by), names and messages with invalid bytes as U+FFFD. A run that
 * fails is recorded in git_repos.error and its repository waits one lease, so that one
 * repository that cannot be read never holds the queue. For each merge, the files in which
 * it differs from each parent (migration 6; qr__git_tree_changes, the comparison the
 * local walk's history simplification makes) are written after the commits, for every
 * merge of the repository that has none yet: a path window then shows a merge, and follows
 * its parents, as the local walk does (shared_tools.c).
 *
 * Rejected: one transaction for the whole run (a large history would hold one for
 * minutes, and a killed worker would keep nothing); COPY (libpq's copy protocol in the
 * store layer for a gain the unnest form already gives: one round trip per batch and
 * table); storing merges' files as commits' files (the tools show merges with none: a
 * merge's files are kept apart, per parent, for the path window alone); the server's clock
 * for leases (quarry's clock, so QUARRY_NOW pins a test, as for the memory agents).
 */
#include "git_int.h"

#include "quarry/date.h"
#include "quarry/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH 500

/* ---- the id ---- */

static void default_name(qr_git *g, qr_buf *out)
{
    qr_repo_dir_name(qr_git_workdir(g) ? qr_git_workdir(g) : qr_git_dir(g), !qr_git_workdir(g),
                     out);
}

/* The root a walk from HEAD reaches: the oldest parentless commit (by committer date,
 * then the smallest id); a shallow boundary counts when there is no true root. */
static const qr_commit_info *root_of(qr_git *g, const qr_commit_info *cs, size_t n)
{
    const qr_commit_info *best = NULL;
    for (int pass = 0; pass < 2 && !best; pass++)
        for (size_t i = 0; i < n; i++) {
            const qr_commit_info *c = &cs[i];
            bool root = pass == 0 ? c->nparents == 0 && !qr__git_is_shallow(g, &c->oid)
                                  : qr__git_is_shallow(g, &c->oid) || c->nparents == 0;
            if (!root)
                continue;
            if (!best || c->ctime < best->ctime ||
                (c->ctime == best->ctime && git_oid_cmp(&c->oid, &best->oid) < 0))
                best = c;
        }
    return best;
}

static int id_from(qr_git *g, const char *name, const qr_commit_info *cs, size_t n, qr_buf *id,
                   qr_buf *err)
{
    const qr_commit_info *r = root_of(g, cs, n);
    if (!r) {
        qr_buf_printf(err, "repository '%s' has no commits yet: nothing to index",
                      qr_git_workdir(g) ? qr_git_workdir(g) : qr_git_dir(g));
        return QR_EINVAL;
    }
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &r->oid);
    qr_buf_puts(id, hex);
    qr_buf_putc(id, '/');
    if (name && *name)
        qr_buf_puts(id, name);
    else
        default_name(g, id);
    return id->failed ? QR_ENOMEM : QR_OK;
}

static int walk_head(qr_git *g, bool messages, qr_git_index *ix, const qr_stop *stop, qr_arena *a,
                     qr_commit_info **cs, size_t *n, qr_buf *err)
{
    qr_walk_opts o = {.limit = -1, .stop = stop};
    if (!messages) {
        o.graph = ix;
        o.graph_write = ix != NULL;
    }
    return qr__git_walk(g, &o, a, cs, n, err);
}

int qr_git_shared_open(qr_store *st, const char *url, qr_buf *err)
{
    memset(st, 0, sizeof *st);
    if (qr_store_backend_of(url) != QR_STORE_POSTGRES) {
        qr_buf_puts(err, "the shared index is on PostgreSQL: the URL must begin with "
                         "postgres:// or postgresql:// (it is not shown: it may hold a "
                         "password)");
        return QR_EINVAL;
    }
    qr_store_spec spec = {.what = "the shared statistics index", .location = url,
                          .flags = QR_STORE_POSTGRES_OK};
    int rc = qr_store_open(st, &spec, err);
    if (rc == QR_OK && st->kind != QR_STORE_OURS) {
        qr_buf_printf(err, "the shared statistics index on %s %s: run 'quarry db %s'",
                      st->server,
                      st->kind == QR_STORE_EMPTY ? "has no schema yet" : "has an older schema",
                      st->kind == QR_STORE_EMPTY ? "init" : "migrate");
        qr_store_close(st);
        return QR_EINVAL;
    }
    return rc == QR_OK ? QR_OK : rc == QR_EINVAL ? QR_EINVAL : QR_EIO;
}

int qr_git_shared_id(qr_git *g, const char *name, qr_buf *id, qr_buf *err)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_info *cs = NULL;
    size_t n = 0;
    int rc = walk_head(g, false, NULL, NULL, &a, &cs, &n, err);
    if (rc == QR_OK)
        rc = id_from(g, name, cs, n, id, err);
    qr_arena_release(&a);
    return rc;
}

/* ---- the queue ---- */

static void put_i64(char out[24], int64_t v)
{
    snprintf(out, 24, "%lld", (long long)v);
}

int qr_git_shared_enqueue(qr_store *st, qr_git *g, const char *name, qr_buf *id, qr_buf *err)
{
    qr_buf nm;
    qr_buf_init(&nm);
    if (name && *name)
        qr_buf_puts(&nm, name);
    else
        default_name(g, &nm);
    int rc = qr_git_shared_id(g, nm.p, id, err);
    if (rc == QR_OK && !qr_utf8_valid(id->p, id->len)) {
        qr_buf_puts(err, "the repository's name is not UTF-8: give one with --name");
        rc = QR_EINVAL;
    }
    if (rc == QR_OK) {
        char now[24];
        put_i64(now, qr_clock_now());
        const char *loc = qr_git_workdir(g) ? qr_git_workdir(g) : qr_git_dir(g);
        const char *p[] = {id->p, nm.p, loc, now};
        /* a known repository keeps its place in the queue; `requested` tells a worker
         * indexing it now that it must run again */
        rc = qr_store_pg_exec(st,
                              "INSERT INTO git_repos(id, name, location, queued, requested)"
                              " VALUES ($1, $2, $3, $4::bigint, 1)"
                              " ON CONFLICT (id) DO UPDATE SET location = excluded.location,"
                              " queued = coalesce(git_repos.queued, excluded.queued),"
                              " requested = git_repos.requested + 1",
                              4, p, NULL, "enqueue a repository", NULL, err);
    }
    qr_buf_release(&nm);
    return rc;
}

/* ---- text arrays ---- */

/* An array literal being built: {"a","b"}. */
typedef struct arr {
    qr_buf b;
    size_t n;
} arr;

static void arr_init(arr *x)
{
    qr_buf_init(&x->b);
    qr_buf_putc(&x->b, '{');
    x->n = 0;
}

static void arr_sep(arr *x)
{
    if (x->n++)
        qr_buf_putc(&x->b, ',');
}

/* A text item, made valid UTF-8 (invalid bytes as U+FFFD) and quoted. */
static void arr_str(arr *x, const char *s, size_t n)
{
    arr_sep(x);
    qr_buf_putc(&x->b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (c == '"' || c == '\\')
                qr_buf_putc(&x->b, '\\');
            qr_buf_putc(&x->b, (char)c);
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (cp == 0xFFFD && !(k == 3 && !memcmp(s + i, "\xEF\xBF\xBD", 3))) {
            char enc[4];
            qr_buf_append(&x->b, enc, qr_utf8_encode(0xFFFD, enc));
        } else {
            qr_buf_append(&x->b, s + i, k);
        }
        i += k;
    }
    qr_buf_putc(&x->b, '"');
}

static void arr_cstr(arr *x, const char *s)
{
    arr_str(x, s ? s : "", s ? strlen(s) : 0);
}

static void arr_int(arr *x, int64_t v)
{
    arr_sep(x);
    qr_buf_printf(&x->b, "%lld", (long long)v);
}

static const char *arr_done(arr *x)
{
    qr_buf_putc(&x->b, '}');
    return x->b.p;
}

static void arr_free(arr *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        qr_buf_release(&x[i].b);
}

/* ---- the worker ---- */

enum { C_OID, C_AUTHOR, C_EMAIL, C_RAW_AUTHOR, C_RAW_EMAIL, C_ATIME, C_AOFFSET, C_CTIME,
       C_NPARENTS, C_PARENTS, C_SUBJECT, C_MESSAGE, C_NFILES, C_ADD, C_DEL, C_WALK, C_WTIME, C_N };
enum { F_OID, F_SEQ, F_PATH, F_KEY, F_ADD, F_DEL, F_BINARY, F_STATUS, F_N };

static const char insert_commits[] =
    "INSERT INTO git_commits(repo, gen, oid, author, email, raw_author, raw_email, atime,"
    " aoffset, ctime, nparents, parents, subject, message, nfiles, additions, deletions,"
    " walk_pos, walk_time) SELECT $1, $2::bigint, u.* FROM unnest($3::text[], $4::text[],"
    " $5::text[], $6::text[], $7::text[], $8::bigint[], $9::integer[], $10::bigint[],"
    " $11::integer[], $12::text[], $13::text[], $14::text[], $15::integer[], $16::bigint[],"
    " $17::bigint[], $18::bigint[], $19::bigint[]) AS u"
    " ON CONFLICT (repo, oid) DO NOTHING";

static const char insert_files[] =
    "INSERT INTO git_files(repo, oid, seq, path, path_key, additions, deletions, is_binary,"
    " status) SELECT $1, u.* FROM unnest($2::text[], $3::integer[], $4::text[], $5::bytea[],"
    " $6::bigint[], $7::bigint[], $8::boolean[], $9::text[]) AS u"
    " ON CONFLICT (repo, oid, seq) DO NOTHING";

/* Renews the lease of holder on id; QR_EIO when it is no longer held. */
static int renew(qr_store *st, const char *id, const char *holder, int64_t lease_s, qr_buf *err)
{
    char until[24];
    put_i64(until, qr_clock_now() + lease_s);
    const char *p[] = {id, holder, until};
    qr_store_rows r;
    int rc = qr_store_pg_exec(st,
                              "UPDATE git_repos SET lease_until = $3::bigint"
                              " WHERE id = $1 AND holder = $2",
                              3, p, &r, "renew the lease of a repository", NULL, err);
    if (rc)
        return rc;
    bool held = r.changed == 1;
    qr_store_rows_free(&r);
    if (!held) {
        qr_buf_printf(err, "lost the lease on repository '%s': it ended and another worker "
                           "took the repository over (give a longer --lease)", id);
        return QR_EIO;
    }
    return QR_OK;
}

static void rollback(qr_store *st)
{
    qr_buf e;
    qr_buf_init(&e);
    qr_store_pg_exec(st, "ROLLBACK", 0, NULL, NULL, "roll back", NULL, &e);
    qr_buf_release(&e);
}

static void hex_of(const git_oid *o, char out[GIT_OID_HEXSZ + 1])
{
    git_oid_tostr(out, GIT_OID_HEXSZ + 1, o);
}

/* Writes commits cs[0..n) with their statistics st and their places in the walk from
 * HEAD (pos and wtime: see walk_pos) in one transaction. */
static int write_batch(qr_store *st, const char *id, const char *holder, int64_t lease_s,
                       const char *gen, const qr_commit_info *cs, const int64_t *pos,
                       const int64_t *wtime,
                       const qr_commit_stats *stats, size_t n, qr_arena *a, qr_buf *err)
{
    arr c[C_N], f[F_N];
    for (int i = 0; i < C_N; i++)
        arr_init(&c[i]);
    for (int i = 0; i < F_N; i++)
        arr_init(&f[i]);
    char hex[GIT_OID_HEXSZ + 1];
    qr_buf parents;
    qr_buf_init(&parents);
    for (size_t i = 0; i < n; i++) {
        const qr_commit_info *ci = &cs[i];
        hex_of(&ci->oid, hex);
        qr_buf_reset(&parents);
        for (uint32_t k = 0; k < ci->nparents; k++) {
            char ph[GIT_OID_HEXSZ + 1];
            hex_of(&ci->parents[k], ph);
            if (k)
                qr_buf_putc(&parents, ' ');
            qr_buf_puts(&parents, ph);
        }
        arr_cstr(&c[C_OID], hex);
        arr_cstr(&c[C_AUTHOR], ci->author);
        arr_cstr(&c[C_EMAIL], ci->email);
        arr_cstr(&c[C_RAW_AUTHOR], ci->raw_author);
        arr_cstr(&c[C_RAW_EMAIL], ci->raw_email);
        arr_int(&c[C_ATIME], ci->atime);
        arr_int(&c[C_AOFFSET], ci->aoffset);
        arr_int(&c[C_CTIME], ci->ctime);
        arr_int(&c[C_NPARENTS], ci->nparents);
        arr_str(&c[C_PARENTS], parents.p ? parents.p : "", parents.len);
        arr_str(&c[C_SUBJECT], ci->subject ? ci->subject : "", ci->subject ? ci->subject_len : 0);
        arr_cstr(&c[C_MESSAGE], ci->message);
        arr_int(&c[C_NFILES], stats[i].nfiles);
        arr_int(&c[C_ADD], stats[i].additions);
        arr_int(&c[C_DEL], stats[i].deletions);
        arr_int(&c[C_WALK], pos[i]);
        arr_int(&c[C_WTIME], wtime[i]);
        for (uint32_t k = 0; k < stats[i].nfiles; k++) {
            const qr_file_stat *fs = &stats[i].files[k];
            const char *shown = qr__path_shown(a, fs->path, strlen(fs->path));
            arr_cstr(&f[F_OID], hex);
            arr_int(&f[F_SEQ], k);
            arr_cstr(&f[F_PATH], shown ? shown : fs->path);
            arr_sep(&f[F_KEY]);
            if (shown && strcmp(shown, fs->path)) {
                /* shown quoted: the path's own bytes, which the tools sort by */
                qr_buf_puts(&f[F_KEY].b, "\"\\\\x");
                for (const unsigned char *b = (const unsigned char *)fs->path; *b; b++)
                    qr_buf_printf(&f[F_KEY].b, "%02x", *b);
                qr_buf_putc(&f[F_KEY].b, '"');
            } else {
                qr_buf_puts(&f[F_KEY].b, "NULL");
            }
            arr_int(&f[F_ADD], fs->additions);
            arr_int(&f[F_DEL], fs->deletions);
            arr_sep(&f[F_BINARY]);
            qr_buf_puts(&f[F_BINARY].b, fs->binary ? "t" : "f");
            arr_str(&f[F_STATUS], &fs->status, 1);
        }
    }
    const char *cp[2 + C_N], *fp[1 + F_N];
    cp[0] = id;
    cp[1] = gen;
    for (int i = 0; i < C_N; i++)
        cp[2 + i] = arr_done(&c[i]);
    fp[0] = id;
    for (int i = 0; i < F_N; i++)
        fp[1 + i] = arr_done(&f[i]);
    bool nomem = parents.failed;
    for (int i = 0; i < C_N; i++)
        nomem |= c[i].b.failed;
    for (int i = 0; i < F_N; i++)
        nomem |= f[i].b.failed;
    int rc = nomem ? QR_ENOMEM : QR_OK;
    if (rc == QR_OK &&
        (rc = qr_store_pg_exec(st, "BEGIN", 0, NULL, NULL, "begin a transaction", NULL, err)) ==
            QR_OK) {
        if ((rc = renew(st, id, holder, lease_s, err)) ||
            (rc = qr_store_pg_exec(st, insert_commits, 2 + C_N, cp, NULL,
                                   "write the commits of a repository", NULL, err)) ||
            (f[F_OID].n && (rc = qr_store_pg_exec(st, insert_files, 1 + F_N, fp, NULL,
                                                  "write the files of a repository", NULL,
                                                  err))) ||
            (rc = qr_store_pg_exec(st, "COMMIT", 0, NULL, NULL, "commit a batch of commits",
                                   NULL, err)))
            rollback(st);
    }
    arr_free(c, C_N);
    arr_free(f, F_N);
    qr_buf_release(&parents);
    return rc;
}

/* ---- the merges' files ---- */

enum { MP_OID, MP_IDX, MP_PARENT, MP_PATHS, MP_N };
#define MERGE_PATHS_PER_BATCH 20000

/* The rows of git_merge_parents being built for one batch; paths: the array literal of
 * the parent being compared, which goes in as one item of the MP_PATHS array. */
typedef struct merge_rows {
    arr p[MP_N], paths;
    size_t npaths;
    qr_arena *a;
} merge_rows;

static void merge_rows_init(merge_rows *m, qr_arena *a)
{
    for (int i = 0; i < MP_N; i++)
        arr_init(&m->p[i]);
    m->npaths = 0;
    m->a = a;
}

static void merge_path(void *ud, const char *path, size_t n)
{
    merge_rows *m = ud;
    const char *shown = qr__path_shown(m->a, path, n);
    if (shown)
        arr_cstr(&m->paths, shown);
    else
        arr_str(&m->paths, path, n);
    m->npaths++;
}

static int write_merges(qr_store *st, const char *id, const qr_git_worker_opts *o, merge_rows *m,
                        qr_buf *err)
{
    const char *pp[1 + MP_N];
    bool nomem = false;
    pp[0] = id;
    for (int i = 0; i < MP_N; i++) {
        pp[1 + i] = arr_done(&m->p[i]);
        nomem |= m->p[i].b.failed;
    }
    if (nomem)
        return QR_ENOMEM;
    int rc = qr_store_pg_exec(st, "BEGIN", 0, NULL, NULL, "begin a transaction", NULL, err);
    if (rc)
        return rc;
    if ((rc = renew(st, id, o->holder, o->lease_s, err)) ||
        (rc = qr_store_pg_exec(st,
                               "INSERT INTO git_merge_parents(repo, oid, idx, parent, paths)"
                               " SELECT $1, u.o, u.i, u.p, u.l::text[] FROM unnest($2::text[],"
                               " $3::integer[], $4::text[], $5::text[]) AS u(o, i, p, l)"
                               " ON CONFLICT (repo, oid, idx) DO NOTHING",
                               1 + MP_N, pp, NULL, "write the parents of merges", NULL, err)) ||
        (rc = qr_store_pg_exec(st, "COMMIT", 0, NULL, NULL, "commit a batch of merges", NULL, err)))
        rollback(st);
    return rc;
}

/* For every merge of the repository without them (those this run wrote, and those a run
 * before migration 6 published), the files in which it differs from each parent: what a
 * path window needs to decide as the local walk does (git's history simplification)
 * whether the merge is shown and which parents the walk follows. In batches of at most
 * `batch` merges and about MERGE_PATHS_PER_BATCH files, one transaction each, so that a
 * merge's rows are all there or none. */
static int fill_merges(qr_store *st, qr_git *g, const char *id, const qr_git_worker_opts *o,
                       size_t batch, qr_buf *err)
{
    qr_store_rows r;
    const char *ip[] = {id};
    int rc = qr_store_pg_exec(st,
                              "SELECT c.oid, c.parents FROM git_commits c WHERE c.repo = $1"
                              " AND c.nparents >= 2 AND NOT EXISTS (SELECT 1 FROM"
                              " git_merge_parents p WHERE p.repo = c.repo AND p.oid = c.oid)",
                              1, ip, &r, "read the merges of a repository", NULL, err);
    if (rc)
        return rc;
    qr_arena a;
    qr_arena_init(&a, 0);
    merge_rows m;
    merge_rows_init(&m, &a);
    size_t inbatch = 0;
    for (int i = 0; rc == QR_OK && i < r.n; i++) {
        if (qr_stop_check(o->stop)) {
            rc = qr_stop_fail(o->stop, err);
            break;
        }
        const char *hex = qr_store_rows_get(&r, i, 0), *ps = qr_store_rows_get(&r, i, 1);
        git_oid moid;
        if (git_oid_fromstr(&moid, hex) != 0) {
            qr_buf_printf(err, "repository '%s': a stored commit id is not one: '%s'", id, hex);
            rc = QR_EIO;
            break;
        }
        for (int k = 0; rc == QR_OK && ps && *ps; k++) {
            size_t len = strcspn(ps, " ");
            char ph[GIT_OID_HEXSZ + 1];
            git_oid poid;
            snprintf(ph, sizeof ph, "%.*s", (int)(len < GIT_OID_HEXSZ ? len : GIT_OID_HEXSZ), ps);
            if (len != GIT_OID_HEXSZ || git_oid_fromstr(&poid, ph) != 0) {
                qr_buf_printf(err,
                              "repository '%s': merge %s has a parent that is not a "
                              "commit id",
                              id, hex);
                rc = QR_EIO;
                break;
            }
            arr_init(&m.paths);
            rc = qr__git_tree_changes(g, &poid, &moid, merge_path, &m, err);
            arr_done(&m.paths);
            if (rc == QR_OK && m.paths.b.failed)
                rc = QR_ENOMEM;
            if (rc == QR_OK) {
                arr_cstr(&m.p[MP_OID], hex);
                arr_int(&m.p[MP_IDX], k);
                arr_cstr(&m.p[MP_PARENT], ph);
                arr_str(&m.p[MP_PATHS], m.paths.b.p, m.paths.b.len);
            }
            qr_buf_release(&m.paths.b);
            if (rc)
                break;
            ps += len;
            while (*ps == ' ')
                ps++;
        }
        if (rc)
            break;
        inbatch++;
        if (inbatch >= batch || m.npaths >= MERGE_PATHS_PER_BATCH || i + 1 == r.n) {
            rc = write_merges(st, id, o, &m, err);
            arr_free(m.p, MP_N);
            qr_arena_release(&a);
            qr_arena_init(&a, 0);
            merge_rows_init(&m, &a);
            inbatch = 0;
            if (rc == QR_OK && o->progress)
                o->progress(o->progress_ud, "writing merges", (size_t)i + 1, (size_t)r.n);
        }
    }
    arr_free(m.p, MP_N);
    qr_arena_release(&a);
    qr_store_rows_free(&r);
    return rc;
}

static int cmp_hex(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static bool has_hex(char **v, size_t n, const char *h)
{
    return n && bsearch(&h, v, n, sizeof *v, cmp_hex) != NULL;
}

/* git_commits.walk_pos of the i-th of n commits a walk from HEAD meets: counted from the
 * last, so that commits added on top of a history leave the others' places alone (a run
 * updates only the places that moved: a merge that brings in older commits moves some).
 * walk_time is the oldest committer date among the commits the walk met up to this one:
 * it never rises along the walk, so get_commits across repositories orders by it (then
 * by walk_pos) and keeps each repository's walk order with a plain sort. */
static int64_t walk_pos(size_t i, size_t n)
{
    return (int64_t)(n - 1 - i);
}

/* A commit the database holds for the repository: its id and place in the walk (-1:
 * none recorded, a row written before migration 5). */
typedef struct held {
    const char *hex;
    int64_t pos, wtime;
} held;

static int cmp_held(const void *x, const void *y)
{
    return strcmp(((const held *)x)->hex, ((const held *)y)->hex);
}

static const held *find_held(const held *v, size_t n, const char *h)
{
    held key = {h, 0, 0};
    return n ? bsearch(&key, v, n, sizeof *v, cmp_held) : NULL;
}

/* Claims a repository: *claimed, and its id, location, generation and request count. */
static int claim(qr_store *st, const qr_git_worker_opts *o, qr_store_rows *r, bool *claimed,
                 qr_buf *err)
{
    char now[24], until[24];
    int64_t t = qr_clock_now();
    put_i64(now, t);
    put_i64(until, t + o->lease_s);
    const char *p[] = {o->holder, now, until};
    int rc = qr_store_pg_exec(st,
                              "UPDATE git_repos SET holder = $1, lease_until = $3::bigint"
                              " WHERE id = (SELECT id FROM git_repos WHERE queued IS NOT NULL"
                              "  AND (lease_until IS NULL OR lease_until <= $2::bigint)"
                              "  ORDER BY queued, id COLLATE \"C\" LIMIT 1"
                              "  FOR UPDATE SKIP LOCKED)"
                              " RETURNING id, location, gen, requested",
                              3, p, r, "claim a repository", NULL, err);
    *claimed = rc == QR_OK && r->n == 1;
    return rc;
}

/* Gives the repository back after a failed run: the failure is recorded in its row and
 * it is left alone for one lease period (a repository that fails at once, its directory
 * gone, must not hold the queue: workers go on to the next and retry it later). Returns
 * whether the database took it (false: it is unreachable, and the lease ends by time). */
static bool release(qr_store *st, const char *id, const qr_git_worker_opts *o, const char *why)
{
    qr_buf e;
    qr_buf_init(&e);
    char until[24];
    put_i64(until, qr_clock_now() + o->lease_s);
    const char *p[] = {id, o->holder, until, why};
    bool ok = qr_store_pg_exec(st,
                               "UPDATE git_repos SET holder = NULL, lease_until = $3::bigint,"
                               " error = $4 WHERE id = $1 AND holder = $2",
                               4, p, NULL, "release a repository", NULL, &e) == QR_OK;
    qr_buf_release(&e);
    return ok;
}

/* The progress of the statistics computed before the first batch (minutes, on a large
 * history seen for the first time): passed on, and the lease renewed a few times per
 * lease period, so a long computation keeps its repository. A failed renewal is left to
 * the next batch, which renews in its transaction and stops when the lease is lost. */
typedef struct keeper {
    qr_store *st;
    const qr_git_worker_opts *o;
    const char *id;
    uint64_t last_ns;
} keeper;

static void keep_lease(void *ud, const char *what, size_t done, size_t total)
{
    keeper *k = ud;
    if (k->o->progress)
        k->o->progress(k->o->progress_ud, what, done, total);
    uint64_t now = qr_clock_ns();
    if (now - k->last_ns < (uint64_t)k->o->lease_s * 1000000000u / 4)
        return;
    k->last_ns = now;
    qr_buf e;
    qr_buf_init(&e);
    renew(k->st, k->id, k->o->holder, k->o->lease_s, &e);
    qr_buf_release(&e);
}

static int index_claimed(qr_store *st, const qr_git_worker_opts *o, const char *id,
                         const char *location, int64_t gen, const char *requested,
                         qr_git_worker_run *run, qr_buf *err)
{
    qr_git *g = NULL;
    qr_git_index *ix = NULL;
    qr_arena a, s;
    qr_arena_init(&a, 0);
    qr_arena_init(&s, 0);
    qr_commit_info *cs = NULL;
    size_t n = 0, nhave = 0, nhead = 0, nmiss = 0;
    held *have = NULL;
    char **head = NULL;
    size_t *miss = NULL;
    qr_store_rows rows = {0};
    arr extras, moved[3]; /* moved: held commits whose place changed: ids, places, times */
    int64_t *wtime = NULL;
    arr_init(&extras);
    for (int i = 0; i < 3; i++)
        arr_init(&moved[i]);
    size_t batch = o->batch ? o->batch : DEFAULT_BATCH;
    char genbuf[24];
    put_i64(genbuf, gen + 1);
    int rc = qr_git_open(location, &g, err);
    if (rc) {
        qr_buf_reset(err);
        qr_buf_printf(err, "repository '%s': cannot open its location '%s' on this machine",
                      id, location);
        rc = QR_EIO;
        goto done;
    }
    bool rebuilt = false;
    qr_buf ierr;
    qr_buf_init(&ierr);
    if (qr_git_index_open(qr_git_dir(g), &ix, &rebuilt, &ierr) != QR_OK) {
        qr_git_index_close(ix);
        ix = NULL; /* statistics computed without the local cache */
    }
    qr_buf_release(&ierr);
    if ((rc = walk_head(g, true, NULL, o->stop, &a, &cs, &n, err)))
        goto done;
    /* the id must still name this repository (a location reused by another one) */
    {
        qr_buf want;
        qr_buf_init(&want);
        const char *slash = strchr(id, '/');
        rc = n ? id_from(g, slash ? slash + 1 : "", cs, n, &want, err) : QR_OK;
        if (rc == QR_OK && n && (!want.p || strcmp(want.p, id))) {
            qr_buf_printf(err, "repository '%s': its location '%s' now holds another "
                               "repository ('%s')", id, location, want.p ? want.p : "");
            rc = QR_EINVAL;
        }
        qr_buf_release(&want);
        if (rc)
            goto done;
    }
    const char *ip[] = {id};
    if (n && !(wtime = qr_arena_alloc(&a, n * sizeof *wtime))) {
        rc = QR_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        wtime[i] = i && wtime[i - 1] < cs[i].ctime ? wtime[i - 1] : cs[i].ctime;
    if ((rc = qr_store_pg_exec(st, "SELECT oid, coalesce(walk_pos, -1), coalesce(walk_time, 0)"
                               " FROM git_commits"
                               " WHERE repo = $1",
                               1, ip, &rows, "read the commits of a repository", NULL, err)))
        goto done;
    nhave = (size_t)rows.n;
    if (!(have = calloc(nhave + 1, sizeof *have)) || !(head = calloc(n + 1, sizeof *head)) ||
        !(miss = calloc(n + 1, sizeof *miss))) {
        rc = QR_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < nhave; i++) {
        have[i].pos = strtoll(qr_store_rows_get(&rows, (int)i, 1), NULL, 10);
        have[i].wtime = strtoll(qr_store_rows_get(&rows, (int)i, 2), NULL, 10);
        if (!(have[i].hex = qr_arena_strndup(&a, qr_store_rows_get(&rows, (int)i, 0),
                                             GIT_OID_HEXSZ))) {
            rc = QR_ENOMEM;
            goto done;
        }
    }
    qsort(have, nhave, sizeof *have, cmp_held);
    for (size_t i = 0; i < n; i++) {
        char hex[GIT_OID_HEXSZ + 1];
        hex_of(&cs[i].oid, hex);
        if (!(head[nhead++] = qr_arena_strndup(&a, hex, GIT_OID_HEXSZ))) {
            rc = QR_ENOMEM;
            goto done;
        }
        const held *h = find_held(have, nhave, hex);
        if (!h)
            miss[nmiss++] = i;
        else if (h->pos != walk_pos(i, n) || h->wtime != wtime[i]) {
            /* moved: set when the run is published */
            arr_cstr(&moved[0], hex);
            arr_int(&moved[1], walk_pos(i, n));
            arr_int(&moved[2], wtime[i]);
        }
    }
    qsort(head, nhead, sizeof *head, cmp_hex);
    for (size_t i = 0; i < nhave; i++)
        if (!has_hex(head, nhead, have[i].hex)) {
            arr_cstr(&extras, have[i].hex);
            run->removed++;
        }
    /* the statistics the local index lacks, computed as `quarry index` does, all at once
     * (git's parallel ranges); then each batch reads them back */
    if (ix && nmiss) {
        qr_commit_info *want = qr_arena_alloc(&a, nmiss * sizeof *want);
        if (!want) {
            rc = QR_ENOMEM;
            goto done;
        }
        for (size_t k = 0; k < nmiss; k++)
            want[k] = cs[miss[k]];
        keeper kp = {st, o, id, qr_clock_ns()};
        qr_progress p = {keep_lease, &kp, o->stop};
        size_t added = 0;
        if (qr__git_index_bind(g, ix) != QR_OK ||
            qr__git_stats_ensure(g, ix, want, nmiss, &p, &added, err) != QR_OK) {
            if (qr_stop_check(o->stop)) {
                rc = qr_stop_fail(o->stop, err);
                goto done;
            }
            qr_buf_reset(err);
        }
    }
    for (size_t k = 0; k < nmiss; k += batch) {
        if (qr_stop_check(o->stop)) {
            rc = qr_stop_fail(o->stop, err);
            goto done;
        }
        size_t m = nmiss - k < batch ? nmiss - k : batch;
        qr_commit_info *bc = qr_arena_alloc(&s, m * sizeof *bc);
        qr_commit_stats *bs = qr_arena_alloc(&s, m * sizeof *bs);
        int64_t *bp = qr_arena_alloc(&s, m * sizeof *bp);
        int64_t *bw = qr_arena_alloc(&s, m * sizeof *bw);
        if (!bc || !bs || !bp || !bw) {
            rc = QR_ENOMEM;
            goto done;
        }
        for (size_t j = 0; j < m; j++) {
            bc[j] = cs[miss[k + j]];
            bp[j] = walk_pos(miss[k + j], n);
            bw[j] = wtime[miss[k + j]];
        }
        qr_progress p = {NULL, NULL, o->stop};
        if ((rc = qr__git_stats(g, &ix, bc, m, false, &p, &s, bs, err)) ||
            (rc = write_batch(st, id, o->holder, o->lease_s, genbuf, bc, bp, bw, bs, m, &s,
                              err)))
            goto done;
        run->added += (int64_t)m;
        if (o->progress)
            o->progress(o->progress_ud, "writing commits", k + m, nmiss);
        qr_arena_release(&s);
        qr_arena_init(&s, 0);
    }
    if ((rc = fill_merges(st, g, id, o, batch, err)))
        goto done;
    /* the caller's step (the code graph), inside the lease, before the run is published:
     * a step cut short leaves the repository queued for the next run */
    if (o->step) {
        keeper kp = {st, o, id, qr_clock_ns()};
        if ((rc = o->step(o->step_ud, location, keep_lease, &kp, err)))
            goto done;
        if (qr_stop_check(o->stop)) {
            rc = qr_stop_fail(o->stop, err);
            goto done;
        }
    }
    /* .mailmap may have changed since the rows were written: the authors of every
     * identity whose mapping moved are rewritten when the run is published */
    arr remap[4];
    for (int i = 0; i < 4; i++)
        arr_init(&remap[i]);
    qr_store_rows_free(&rows);
    if ((rc = qr_store_pg_exec(st,
                               "SELECT raw_author, raw_email, author, email FROM git_commits"
                               " WHERE repo = $1 GROUP BY 1, 2, 3, 4",
                               1, ip, &rows, "read the authors of a repository", NULL, err))) {
        arr_free(remap, 4);
        goto done;
    }
    {
        qr_mailmap *mm = NULL;
        if (qr__mailmap_load(g->repo, &mm) != QR_OK)
            mm = NULL;
        for (int i = 0; i < rows.n; i++) {
            const char *ra = qr_store_rows_get(&rows, i, 0), *re = qr_store_rows_get(&rows, i, 1);
            const char *name = ra, *email = re;
            qr__mailmap_map(mm, &name, &email);
            if (strcmp(name, qr_store_rows_get(&rows, i, 2)) ||
                strcmp(email, qr_store_rows_get(&rows, i, 3))) {
                arr_cstr(&remap[0], ra);
                arr_cstr(&remap[1], re);
                arr_cstr(&remap[2], name);
                arr_cstr(&remap[3], email);
            }
        }
        qr__mailmap_free(mm);
    }
    const char *mp[] = {id, arr_done(&remap[0]), arr_done(&remap[1]), arr_done(&remap[2]),
                        arr_done(&remap[3])};
    bool remap_nomem = remap[0].b.failed || remap[1].b.failed || remap[2].b.failed ||
                       remap[3].b.failed;
    size_t nremap = remap[0].n;
    /* publish: what HEAD no longer reaches goes, the run's rows become visible */
    {
        git_oid hoid;
        bool unborn = false;
        char hhex[GIT_OID_HEXSZ + 1] = "";
        if (n && qr__git_resolve(g, "HEAD", &hoid, &unborn, err) == QR_OK && !unborn)
            hex_of(&hoid, hhex);
        qr_buf_reset(err);
        char now[24], total[24];
        put_i64(now, qr_clock_now());
        put_i64(total, (int64_t)n);
        const char *dp[] = {id, arr_done(&extras)};
        const char *wp[] = {id, arr_done(&moved[0]), arr_done(&moved[1]),
                            arr_done(&moved[2])};
        const char *pp[] = {id, o->holder, genbuf, *hhex ? hhex : NULL, now, total, requested};
        if (extras.b.failed || moved[0].b.failed || moved[1].b.failed || moved[2].b.failed ||
            remap_nomem) {
            rc = QR_ENOMEM;
            arr_free(remap, 4);
            goto done;
        }
        if ((rc = qr_store_pg_exec(st, "BEGIN", 0, NULL, NULL, "begin a transaction", NULL,
                                   err))) {
            arr_free(remap, 4);
            goto done;
        }
        if ((rc = renew(st, id, o->holder, o->lease_s, err)) ||
            (extras.n && (rc = qr_store_pg_exec(st,
                                                "DELETE FROM git_commits WHERE repo = $1"
                                                " AND oid = ANY($2::text[])",
                                                2, dp, NULL, "drop unreachable commits", NULL,
                                                err))) ||
            (moved[0].n && (rc = qr_store_pg_exec(st,
                                                  "UPDATE git_commits c SET walk_pos = u.p,"
                                                  " walk_time = u.t FROM unnest($2::text[],"
                                                  " $3::bigint[], $4::bigint[]) AS u(o, p, t)"
                                                  " WHERE c.repo = $1 AND c.oid = u.o",
                                                  4, wp, NULL, "order the commits", NULL,
                                                  err))) ||
            (nremap && (rc = qr_store_pg_exec(st,
                                              "UPDATE git_commits c SET author = u.a, email = u.e"
                                              " FROM unnest($2::text[], $3::text[], $4::text[],"
                                              " $5::text[]) AS u(ra, re, a, e)"
                                              " WHERE c.repo = $1 AND c.raw_author = u.ra"
                                              " AND c.raw_email = u.re",
                                              5, mp, NULL, "apply .mailmap", NULL, err))) ||
            (rc = qr_store_pg_exec(
                 st,
                 "UPDATE git_repos SET gen = $3::bigint, head = $4, indexed_at = $5::bigint,"
                 " commits = $6::bigint, runs = runs + 1, holder = NULL, lease_until = NULL,"
                 " error = NULL,"
                 " queued = CASE WHEN requested > $7::bigint THEN queued ELSE NULL END"
                 " WHERE id = $1 AND holder = $2",
                 7, pp, NULL, "publish a repository", NULL, err)) ||
            (rc = qr_store_pg_exec(st, "COMMIT", 0, NULL, NULL, "publish a repository", NULL,
                                   err))) {
            rollback(st);
            arr_free(remap, 4);
            goto done;
        }
        arr_free(remap, 4);
        run->commits = (int64_t)n;
    }
done:
    qr_store_rows_free(&rows);
    qr_buf_release(&extras.b);
    arr_free(moved, 3);
    free(have);
    free(head);
    free(miss);
    qr_arena_release(&s);
    qr_arena_release(&a);
    qr_git_index_close(ix);
    qr_git_free(g);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory indexing a repository");
    return rc;
}

int qr_git_shared_work(qr_store *st, const qr_git_worker_opts *o, qr_git_worker_run *run,
                       qr_buf *err)
{
    memset(run, 0, sizeof *run);
    qr_store_rows r;
    bool claimed = false;
    int rc = claim(st, o, &r, &claimed, err);
    if (rc || !claimed) {
        if (!rc)
            qr_store_rows_free(&r);
        return rc;
    }
    run->claimed = true;
    const char *id = qr_store_rows_get(&r, 0, 0);
    snprintf(run->id, sizeof run->id, "%s", id);
    int64_t gen = strtoll(qr_store_rows_get(&r, 0, 2), NULL, 10);
    rc = index_claimed(st, o, id, qr_store_rows_get(&r, 0, 1), gen, qr_store_rows_get(&r, 0, 3),
                       run, err);
    if (rc) {
        /* the row holds the message as people read it: valid UTF-8, one line */
        char why[1024];
        snprintf(why, sizeof why, "%s", err->p ? err->p : "failed");
        qr_utf8_clean(why, sizeof why);
        run->released = release(st, id, o, why);
    }
    qr_store_rows_free(&r);
    return rc;
}
