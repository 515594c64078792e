/*
 * index_graph.c: the commit graph kept in the statistics index (table `graph`, identities
 * in `idents`; schema in index.c): each commit's committer date, author as recorded,
 * author date and parents, so that a walk reads no commit objects from the pack.
 *
 * Design. A reader (qr__graph_open) holds one read transaction. When the walk will visit
 * most of the graph (a whole history), it loads every row at once: the rows into a list,
 * then into an open-addressing table sized once (20,000 rows in about 5 ms). Otherwise it
 * looks rows up one by one, and after GRAPH_LOOKUPS_MAX lookups loads the rest at once,
 * since by then the window is clearly large. Identities are loaded whole at the start and
 * shared: rows of one author point to the same two strings, which the walk uses to apply
 * .mailmap once per identity. A row that does not decode (parents not whole ids, an
 * identity that does not exist) is damage: the database is rebuilt for the next use and
 * the reader fails, so that the walk reads the pack instead. Writing (qr__graph_put) is
 * one write transaction: identities found or added through a table local to the call,
 * rows inserted or left alone.
 *
 * Rejected: the graph in the `commits` table (merges and shallow boundaries have a graph
 * row but no statistics, and the statistics scan would carry bytes it does not need);
 * hexadecimal or per-row author strings (three times larger); a lookup per commit for a
 * whole history (about 2 us each against 0.25 us a row for one scan).
 */
#include "index_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A graph reader that was not asked to load everything looks rows up one by one (about
 * 2 us each) until this many, then loads the rest in one scan (about 0.25 us a row). */
#define GRAPH_LOOKUPS_MAX 4096

/* ---- reading ---- */

typedef struct ident {
    const char *name, *email;
} ident;

struct qr_graph_reader {
    qr_git_index *ix;
    qr_arena a;
    bool in_tx;   /* the read transaction of the lookups is open */
    bool scanned; /* every row is in tab */
    size_t lookups;
    ident *idents; /* by id; ids are assigned from 1 up */
    size_t nidents;
    qr_graph_commit **tab; /* open addressing on the id; NULL = empty */
    size_t cap, n;
};

static size_t gslot(qr_graph_commit *const *tab, size_t cap, const unsigned char *oid)
{
    size_t i = (size_t)qr__ix_oid_hash(oid) & (cap - 1);
    while (tab[i] && memcmp(tab[i]->oid.id, oid, 20) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Adds rows[0..n) to the table, sized once for what it will then hold. */
static bool gtab_add(qr_graph_reader *r, qr_graph_commit *const *rows, size_t n)
{
    if ((r->n + n) * 2 > r->cap) {
        size_t cap = qr__ix_table_size(r->n + n);
        qr_graph_commit **t = cap ? calloc(cap, sizeof *t) : NULL;
        if (!t)
            return false;
        for (size_t i = 0; i < r->cap; i++)
            if (r->tab[i])
                t[gslot(t, cap, r->tab[i]->oid.id)] = r->tab[i];
        free(r->tab);
        r->tab = t;
        r->cap = cap;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = gslot(r->tab, r->cap, rows[k]->oid.id);
        if (!r->tab[i])
            r->n++;
        r->tab[i] = rows[k];
    }
    return true;
}

/* A BLOB column as a NUL-terminated string in the reader's arena ("" for an empty one);
 * NULL when the arena is full, or a NUL inside (*broken set). */
static const char *blob_str(qr_graph_reader *r, sqlite3_stmt *st, int c, bool *broken)
{
    const char *p = sqlite3_column_blob(st, c);
    size_t n = (size_t)sqlite3_column_bytes(st, c);
    if (n && memchr(p, 0, n)) {
        *broken = true;
        return NULL;
    }
    return qr_arena_strndup(&r->a, n ? p : "", n);
}

static int load_idents(qr_graph_reader *r, qr_buf *err)
{
    sqlite3_stmt *st = r->ix->st[ST_IDENT_ALL];
    int src = SQLITE_DONE, rc = QR_OK;
    while (rc == QR_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id <= 0 || id > INT32_MAX) {
            rc = IX_BROKEN;
            break;
        }
        if ((size_t)id >= r->nidents) {
            size_t n = r->nidents ? r->nidents : 64;
            while (n <= (size_t)id)
                n *= 2;
            ident *p = realloc(r->idents, n * sizeof *p);
            if (!p) {
                rc = qr__ix_arena_full(r->ix, err);
                break;
            }
            memset(p + r->nidents, 0, (n - r->nidents) * sizeof *p);
            r->idents = p;
            r->nidents = n;
        }
        bool broken = false;
        ident *e = &r->idents[id];
        e->name = blob_str(r, st, 1, &broken);
        e->email = e->name ? blob_str(r, st, 2, &broken) : NULL;
        if (!e->name || !e->email)
            rc = broken ? IX_BROKEN : qr__ix_arena_full(r->ix, err);
    }
    if (rc == QR_OK && src != SQLITE_DONE)
        rc = qr__ix_fail(r->ix, src, "read", err);
    sqlite3_reset(st);
    return rc;
}

/* The row in columns c.. (ctime, atime, aoffset, ident, parents) of st, for oid. */
static int decode_graph_row(qr_graph_reader *r, sqlite3_stmt *st, int c, const unsigned char *oid,
                            qr_graph_commit **out, qr_buf *err)
{
    int64_t id = sqlite3_column_int64(st, c + 3), off = sqlite3_column_int64(st, c + 2);
    const void *par = sqlite3_column_blob(st, c + 4);
    size_t plen = (size_t)sqlite3_column_bytes(st, c + 4);
    if (id <= 0 || (uint64_t)id >= r->nidents || !r->idents[id].name || plen % 20 ||
        plen / 20 > UINT32_MAX || off < INT_MIN || off > INT_MAX)
        return IX_BROKEN;
    qr_graph_commit *g = qr_arena_alloc(&r->a, sizeof *g);
    git_oid *parents = plen ? qr_arena_alloc(&r->a, plen) : NULL;
    if (!g || (plen && !parents))
        return qr__ix_arena_full(r->ix, err);
    memcpy(g->oid.id, oid, 20);
    g->ctime = sqlite3_column_int64(st, c);
    g->atime = sqlite3_column_int64(st, c + 1);
    g->aoffset = (int)off;
    g->name = r->idents[id].name;
    g->email = r->idents[id].email;
    g->nparents = (uint32_t)(plen / 20);
    g->slot = UINT32_MAX;
    if (plen)
        memcpy(parents, par, plen);
    g->parents = parents;
    *out = g;
    return QR_OK;
}

/* Loads every row: first into a list, then into a table sized once. */
static int scan_graph(qr_graph_reader *r, qr_buf *err)
{
    sqlite3_stmt *st = r->ix->st[ST_GRAPH_SCAN];
    int src = SQLITE_DONE, rc = QR_OK;
    qr_graph_commit **rows = NULL;
    size_t n = 0, cap = 0;
    while (rc == QR_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *oid = sqlite3_column_blob(st, 0);
        if (!oid || sqlite3_column_bytes(st, 0) != 20) {
            rc = IX_BROKEN;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            qr_graph_commit **p = realloc(rows, cap * sizeof *p);
            if (!p) {
                rc = qr__ix_arena_full(r->ix, err);
                break;
            }
            rows = p;
        }
        rc = decode_graph_row(r, st, 1, oid, &rows[n], err);
        n += rc == QR_OK;
    }
    if (rc == QR_OK && src != SQLITE_DONE)
        rc = qr__ix_fail(r->ix, src, "read", err);
    sqlite3_reset(st);
    for (size_t k = 0; rc == QR_OK && k < n && k < UINT32_MAX; k++)
        rows[k]->slot = (uint32_t)k;
    if (rc == QR_OK && !gtab_add(r, rows, n))
        rc = qr__ix_arena_full(r->ix, err);
    free(rows);
    if (rc == QR_OK)
        r->scanned = true;
    return rc;
}

size_t qr__graph_loaded(const qr_graph_reader *r)
{
    return r->n;
}

/* Ends the read transaction: COMMIT when all went well, else ROLLBACK. */
static int end_read(qr_graph_reader *r, int rc, qr_buf *err)
{
    if (!r->in_tx)
        return rc;
    r->in_tx = false;
    if (rc == QR_OK)
        rc = qr__ix_run(r->ix, ST_COMMIT, "read", err);
    if (rc != QR_OK)
        qr__ix_rollback(r->ix);
    return rc;
}

/* What a reader does when it meets an error: ends its transaction; a damaged file is
 * rebuilt (empty) for the next use and reported as QR_EIO, so the caller reads commits
 * from the pack instead. The reader answers nothing after that. */
static int reader_fail(qr_graph_reader *r, int rc, qr_buf *err)
{
    end_read(r, rc, err);
    if (rc == IX_BROKEN) {
        qr_buf_reset(err);
        if (qr__ix_rebuild(r->ix, err) == QR_OK)
            qr_buf_printf(err, "statistics index '%s' was damaged: rebuilt", r->ix->path);
        rc = QR_EIO;
    }
    r->ix = NULL;
    return rc;
}

int qr__graph_open(qr_git_index *ix, bool whole, qr_graph_reader **out, qr_buf *err)
{
    *out = NULL;
    qr_graph_reader *r = calloc(1, sizeof *r);
    if (!r)
        return qr__ix_arena_full(ix, err);
    r->ix = ix;
    qr_arena_init(&r->a, 0);
    int rc = qr__ix_ensure_open(ix, err);
    if (rc == QR_OK && (rc = qr__ix_run(ix, ST_BEGIN, "read", err)) == QR_OK)
        r->in_tx = true;
    if (rc == QR_OK)
        rc = load_idents(r, err);
    if (rc == QR_OK && whole) {
        rc = scan_graph(r, err);
        rc = end_read(r, rc, err);
    }
    if (rc != QR_OK) {
        rc = reader_fail(r, rc, err);
        qr__graph_close(r);
        return rc;
    }
    *out = r;
    return QR_OK;
}

int qr__graph_get(qr_graph_reader *r, const git_oid *oid, const qr_graph_commit **out, qr_buf *err)
{
    *out = NULL;
    if (!r->ix) {
        qr_buf_puts(err, "the commit graph reader failed before");
        return QR_EIO;
    }
    int rc = QR_OK;
    if (!r->scanned && ++r->lookups > GRAPH_LOOKUPS_MAX) {
        rc = scan_graph(r, err);
        rc = end_read(r, rc, err);
        if (rc != QR_OK)
            return reader_fail(r, rc, err);
    }
    if (r->scanned) {
        if (!r->cap)
            return 1;
        qr_graph_commit *g = r->tab[gslot(r->tab, r->cap, oid->id)];
        *out = g;
        return g ? QR_OK : 1;
    }
    sqlite3_stmt *st = r->ix->st[ST_GRAPH_GET];
    sqlite3_bind_blob(st, 1, oid->id, 20, SQLITE_STATIC);
    int src = sqlite3_step(st);
    qr_graph_commit *g = NULL;
    if (src == SQLITE_ROW)
        rc = decode_graph_row(r, st, 0, oid->id, &g, err);
    else if (src != SQLITE_DONE)
        rc = qr__ix_fail(r->ix, src, "read", err);
    qr__ix_done_with(st);
    if (rc != QR_OK)
        return reader_fail(r, rc, err);
    *out = g;
    return g ? QR_OK : 1;
}

void qr__graph_close(qr_graph_reader *r)
{
    if (!r)
        return;
    if (r->ix) {
        qr_buf e;
        qr_buf_init(&e);
        end_read(r, QR_OK, &e);
        qr_buf_release(&e);
    }
    qr_arena_release(&r->a);
    free(r->idents);
    free(r->tab);
    free(r);
}

/* ---- writing ---- */

/* (name, email) -> ident id, for one put call (keys point into the caller's rows) */
typedef struct ident_slot {
    uint64_t h;
    const char *name, *email; /* name NULL = empty slot */
    int64_t id;
} ident_slot;

typedef struct ident_ids {
    ident_slot *s;
    size_t cap, len;
} ident_ids;

static uint64_t ident_hash(const char *name, const char *email)
{
    return qr_hash_combine(qr_hash_bytes(name, strlen(name)), qr_hash_bytes(email, strlen(email)));
}

static size_t ident_find(const ident_ids *m, const char *name, const char *email, uint64_t h)
{
    size_t i = (size_t)h & (m->cap - 1);
    while (m->s[i].name &&
           (m->s[i].h != h || strcmp(m->s[i].name, name) || strcmp(m->s[i].email, email)))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool ident_put(ident_ids *m, const char *name, const char *email, uint64_t h, int64_t id)
{
    if ((m->len + 1) * 2 > m->cap) {
        size_t cap = qr__ix_table_size(m->len + 1);
        ident_ids g = {cap ? calloc(cap, sizeof *g.s) : NULL, cap, 0};
        if (!g.s)
            return false;
        for (size_t i = 0; i < m->cap; i++)
            if (m->s[i].name)
                g.s[ident_find(&g, m->s[i].name, m->s[i].email, m->s[i].h)] = m->s[i];
        g.len = m->len;
        free(m->s);
        *m = g;
    }
    size_t i = ident_find(m, name, email, h);
    if (!m->s[i].name)
        m->len++;
    m->s[i] = (ident_slot){h, name, email, id};
    return true;
}

static int ident_id(qr_git_index *ix, ident_ids *m, const char *name, const char *email,
                    int64_t *id, qr_buf *err)
{
    uint64_t h = ident_hash(name, email);
    *id = 0;
    if (m->cap) {
        size_t i = ident_find(m, name, email, h);
        if (m->s[i].name) {
            *id = m->s[i].id;
            return QR_OK;
        }
    }
    size_t nl = strlen(name), el = strlen(email);
    sqlite3_stmt *st = ix->st[ST_IDENT_FIND];
    sqlite3_bind_blob(st, 1, name, (int)nl, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, email, (int)el, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        rc = QR_OK;
    } else if (rc == SQLITE_DONE) {
        sqlite3_stmt *add = ix->st[ST_IDENT_ADD];
        sqlite3_bind_blob(add, 1, name, (int)nl, SQLITE_STATIC);
        sqlite3_bind_blob(add, 2, email, (int)el, SQLITE_STATIC);
        rc = sqlite3_step(add);
        rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "write", err);
        qr__ix_done_with(add);
        *id = sqlite3_last_insert_rowid(ix->db);
    } else {
        rc = qr__ix_fail(ix, rc, "write", err);
    }
    qr__ix_done_with(st);
    if (rc == QR_OK && !ident_put(m, name, email, h, *id)) {
        qr_buf_printf(err, "out of memory writing statistics index '%s'", ix->path);
        rc = QR_ENOMEM;
    }
    return rc;
}

static int do_graph_put(qr_git_index *ix, const qr_graph_commit *cs, size_t n, qr_buf *err)
{
    ident_ids m = {0};
    int rc = qr__ix_run(ix, ST_BEGIN_WRITE, "write", err);
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        const qr_graph_commit *c = &cs[i];
        int64_t id = 0;
        if ((rc = ident_id(ix, &m, c->name, c->email, &id, err)))
            break;
        sqlite3_stmt *st = ix->st[ST_GRAPH_PUT];
        sqlite3_bind_blob(st, 1, c->oid.id, 20, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, c->ctime);
        sqlite3_bind_int64(st, 3, c->atime);
        sqlite3_bind_int64(st, 4, c->aoffset);
        sqlite3_bind_int64(st, 5, id);
        if (c->nparents)
            sqlite3_bind_blob(st, 6, c->parents, (int)(20 * c->nparents), SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "write", err);
        qr__ix_done_with(st);
    }
    if (rc == QR_OK)
        rc = qr__ix_run(ix, ST_COMMIT, "write", err);
    if (rc != QR_OK)
        qr__ix_rollback(ix);
    free(m.s);
    return rc;
}

int qr__graph_put(qr_git_index *ix, const qr_graph_commit *cs, size_t n, qr_buf *err)
{
    for (size_t i = 0; i < n; i++) {
        const qr_graph_commit *c = &cs[i];
        if (!c->name || !c->email || (c->nparents && !c->parents) || c->nparents > 1000000) {
            char hex[41];
            qr__ix_format_oid(c->oid.id, hex);
            qr_buf_printf(err, "invalid commit graph row for commit '%s'", hex);
            return QR_EINVAL;
        }
    }
    if (n == 0)
        return QR_OK;
    int rc = qr__ix_ensure_open(ix, err);
    if (rc == QR_OK)
        rc = do_graph_put(ix, cs, n, err);
    if (rc == IX_BROKEN) {
        rc = qr__ix_rebuild(ix, err);
        if (rc == QR_OK)
            rc = do_graph_put(ix, cs, n, err);
        if (rc == IX_BROKEN)
            rc = qr__ix_still_broken(ix, err);
    }
    return rc;
}
