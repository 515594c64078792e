/*
 * store_pg.c: the code index on the team database (PostgreSQL, migration 4 in
 * src/store/pg_schema.c), the second backend of the blob-level seam in store.c. store.c
 * chooses it when QUARRY_DATABASE_URL is set (the setting the shared statistics index
 * reads) and passes every read and write of a blob's rows here, so the graph assembly
 * (graph.c) runs unchanged over either backend:
 *
 *   code_blobs(v, oid, ...), code_items(v, oid, seq, ...), code_refs(v, oid, seq, ...),
 *   code_names(v, oid, data)     the SQLite tables' rows, v = CODE_STORE_VERSION
 *   code_repos(name, location, commit, worktree, v, indexed_at, files)
 *   code_files(repo, path, oid, lang)     what a repository's last `quarry code index` saw
 *
 * Design. A blob is keyed by its id and the extractor's version, never by repository:
 * forks and vendored copies share its rows, and it is parsed by whichever indexer meets it
 * first (INSERT ... ON CONFLICT DO NOTHING: two indexers racing on one blob both finish,
 * one set of rows stays). Writes are buffered: a put appends the blob's rows to one
 * PostgreSQL array literal per column, and the batch's commit sends each table in one
 * INSERT ... SELECT FROM unnest(...), all four in one transaction, so a blob's rows appear
 * together or not at all and a batch of 64 blobs costs six round trips, not thousands.
 * Text goes in valid UTF-8 (the database refuses anything else): invalid bytes, which only
 * a non-UTF-8 source file yields, become U+FFFD. A graph's load reads the rows of all its
 * blobs in one statement (qr__code_pg_prefetch: blob, items and refs rows as one UNION
 * ALL, which the client orders: the server's sort cost four times the query) and then
 * parses each blob from that result, as a statement per
 * blob spent most of a cold query waiting on the server; a blob read alone (one stored
 * since) is the same statement for one id, and the blobs of a batch just committed are
 * given back from a copy kept as they were stored (the graph reads each back at once). The
 * identifier uses are one more statement, when find_references asks.
 *
 * `quarry code gc` (qr__code_pg_prune) deletes the rows of the blobs no repository's
 * recorded files hold at the version that recorded them (code_files joined with
 * code_repos.v), never by what one repository reaches. A writer's blobs are not recorded
 * until its publish, so every session that stores rows holds an advisory lock (GC_LOCK)
 * shared from its first batch until it records a repository, starts another load, or
 * disconnects (a killed indexer's lock goes with its connection); gc takes it exclusive
 * with pg_try_advisory_lock, looking again for a while, so it never prunes a blob an
 * indexer in flight still needs, and it never makes writers queue behind it.
 *
 * Rejected: one serialized record per blob (the point of the shared store is SQL over the
 * rows, across repositories); pruning shared rows by what the asking repository reaches
 * (a blob one repository stopped reaching may be another's); pruning by age (a column
 * and a migration, and an old blob of a live listing is as needed as a new one); a
 * connection per query (the store stays open for the life of the qr_code handle).
 */
#include "store_int.h"

#include "quarry/date.h"
#include "quarry/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* one array literal per column of a table's buffered rows */
enum { B_COLS = 8, I_COLS = 14, R_COLS = 8, N_COLS = 3 };
#define ALL_COLS (B_COLS + I_COLS + R_COLS + N_COLS)

/* a blob's rows among those read ahead (qr__code_pg_prefetch) */
typedef struct ahead_ix {
    const char *oid; /* in the result */
    int first, count;
} ahead_ix;

/* a blob put in the current batch, as the database will give it back */
typedef struct memo_ent {
    char oid[41];
    qr_code_blob b;
} memo_ent;

struct qr_code_pg {
    qr_store st;
    /* the blobs of the last batch, as stored (strings cleaned as lit_text cleans them):
     * the graph reads each back right after the batch's commit, and gets it from here
     * instead of a statement per blob */
    qr_arena memo_a;
    memo_ent *memo;
    size_t nmemo, capmemo;
    bool memo_stale;     /* the batch was committed: the next put starts a new one */
    qr_store_rows ahead; /* the rows read ahead */
    int *order;          /* their numbers by blob, part, seq (sort_rows) */
    ahead_ix *ix;        /* their blobs, sorted by id: positions in order */
    size_t nix;
    char v[16];           /* CODE_STORE_VERSION as text */
    qr_buf col[ALL_COLS]; /* code_blobs' columns, then code_items', code_refs', code_names' */
    qr_buf *blobs, *items, *refs, *names;
    size_t pending; /* blobs buffered */
    bool held;      /* GC_LOCK held shared: rows stored and not yet recorded */
};

/* the advisory lock between writers (shared) and `quarry code gc` (exclusive) */
#define GC_LOCK "7163726567630026"

/* Gives GC_LOCK back (the rows stored since are recorded, or not needed any more). */
static void unhold(qr_code_pg *p);

static void drop_ahead(qr_code_pg *p);

static void reset_cols(qr_code_pg *p)
{
    for (size_t i = 0; i < ALL_COLS; i++) {
        qr_buf_reset(&p->col[i]);
        qr_buf_putc(&p->col[i], '{');
    }
    p->pending = 0;
}

int qr__code_pg_open(const char *url, qr_code_pg **out, qr_buf *err)
{
    *out = NULL;
    qr_code_pg *p = calloc(1, sizeof *p);
    if (!p)
        return QR_ENOMEM;
    for (size_t i = 0; i < ALL_COLS; i++)
        qr_buf_init(&p->col[i]);
    qr_arena_init(&p->memo_a, 0);
    p->blobs = p->col;
    p->items = p->blobs + B_COLS;
    p->refs = p->items + I_COLS;
    p->names = p->refs + R_COLS;
    reset_cols(p);
    snprintf(p->v, sizeof p->v, "%d", qr__code_store_version());
    qr_store_spec spec = {
        .what = "the shared code index", .location = url, .flags = QR_STORE_POSTGRES_OK};
    int rc = qr_store_open(&p->st, &spec, err);
    if (rc == QR_OK && p->st.kind != QR_STORE_OURS) {
        qr_buf_printf(err, "the shared code index on %s %s: run 'quarry db %s'", p->st.server,
                      p->st.kind == QR_STORE_EMPTY ? "has no schema yet" : "has an older schema",
                      p->st.kind == QR_STORE_EMPTY ? "init" : "migrate");
        rc = QR_EINVAL;
    }
    if (rc != QR_OK) {
        qr__code_pg_close(p);
        return rc == QR_EINVAL || rc == QR_ENOMEM ? rc : QR_EIO;
    }
    *out = p;
    return QR_OK;
}

void qr__code_pg_close(qr_code_pg *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < ALL_COLS; i++)
        qr_buf_release(&p->col[i]);
    drop_ahead(p);
    free(p->memo);
    qr_arena_release(&p->memo_a);
    qr_store_close(&p->st);
    free(p);
}

const char *qr__code_pg_server(const qr_code_pg *p)
{
    return p->st.server ? p->st.server : "postgresql server";
}

/* ---- writing ---- */

/* Appends one item to an array literal: NULL, or s quoted, made valid UTF-8. */
static void lit_text(qr_buf *b, const char *s)
{
    if (b->len > 1)
        qr_buf_putc(b, ',');
    if (!s) {
        qr_buf_puts(b, "NULL");
        return;
    }
    qr_buf_putc(b, '"');
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x80) {
            if (ch == '"' || ch == '\\')
                qr_buf_putc(b, '\\');
            qr_buf_putc(b, (char)ch);
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (k == 0)
            k = 1;
        if (cp == 0xFFFD && !(k == 3 && !memcmp(s + i, "\xEF\xBF\xBD", 3))) {
            char enc[4];
            qr_buf_append(b, enc, qr_utf8_encode(0xFFFD, enc));
        } else {
            qr_buf_append(b, s + i, k);
        }
        i += k;
    }
    qr_buf_putc(b, '"');
}

static void lit_int(qr_buf *b, int64_t v)
{
    if (b->len > 1)
        qr_buf_putc(b, ',');
    qr_buf_printf(b, "%lld", (long long)v);
}

static void lit_close(qr_buf *b, qr_buf *out)
{
    qr_buf_reset(out);
    qr_buf_append(out, b->p, b->len);
    qr_buf_putc(out, '}');
}

/* s in a, as the database gives it back: invalid UTF-8 as U+FFFD (lit_text) */
static const char *clean_dup(qr_arena *a, const char *s, bool *nomem)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *r;
    if (qr_utf8_valid(s, n)) {
        r = qr_arena_strndup(a, s, n);
    } else {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_putc(&b, '{');
        lit_text(&b, s); /* {"...": quoted and escaped; take the text back out */
        qr_buf out;
        qr_buf_init(&out);
        for (size_t i = 2; b.p && i + 1 < b.len; i++) {
            if (b.p[i] == '\\')
                i++;
            qr_buf_putc(&out, b.p[i]);
        }
        r = qr_arena_strndup(a, out.p ? out.p : "", out.len);
        qr_buf_release(&b);
        qr_buf_release(&out);
    }
    if (!r)
        *nomem = true;
    return r;
}

/* A copy of b in a as qr__code_pg_get would give it (refs without the identifier uses,
 * strings cleaned, a NULL name as ""). */
static void copy_blob(qr_arena *a, const qr_code_blob *b, qr_code_blob *out, bool *nomem)
{
    *out = *b;
    out->file.items = NULL;
    out->file.refs = NULL;
    out->file.nitems = out->file.nrefs = 0;
    if (b->status != QR_CODE_BLOB_OK)
        return;
    size_t nrefs = 0;
    for (size_t i = 0; i < b->file.nrefs; i++)
        nrefs += b->file.refs[i].kind != QR_CODE_REF_NAME;
    if (b->file.nitems &&
        !(out->file.items = qr_arena_zalloc(a, b->file.nitems * sizeof(qr_code_item)))) {
        *nomem = true;
        return;
    }
    if (nrefs && !(out->file.refs = qr_arena_zalloc(a, nrefs * sizeof(qr_code_ref)))) {
        *nomem = true;
        return;
    }
    for (size_t i = 0; i < b->file.nitems; i++) {
        const qr_code_item *f = &b->file.items[i];
        qr_code_item *t = &out->file.items[out->file.nitems++];
        *t = *f;
        t->name = clean_dup(a, f->name, nomem);
        t->parent = clean_dup(a, f->parent, nomem);
        t->type = clean_dup(a, f->type, nomem);
        t->signature = clean_dup(a, f->signature, nomem);
        t->cond = clean_dup(a, f->cond, nomem);
        if (!t->name)
            t->name = "";
    }
    for (size_t i = 0; i < b->file.nrefs; i++) {
        const qr_code_ref *f = &b->file.refs[i];
        if (f->kind == QR_CODE_REF_NAME)
            continue;
        qr_code_ref *t = &out->file.refs[out->file.nrefs++];
        *t = *f;
        t->from = clean_dup(a, f->from, nomem);
        t->name = clean_dup(a, f->name, nomem);
        t->cond = clean_dup(a, f->cond, nomem);
        if (!t->name)
            t->name = "";
    }
}

static void memo_clear(qr_code_pg *p)
{
    p->nmemo = 0;
    p->memo_stale = false;
    qr_arena_release(&p->memo_a);
    qr_arena_init(&p->memo_a, 0);
}

/* Keeps b as the database will give it back; a failure only means no memo for it. */
static void memo_put(qr_code_pg *p, const char *oid, const qr_code_blob *b)
{
    if (p->memo_stale)
        memo_clear(p);
    if (strlen(oid) != 40)
        return;
    if (p->nmemo == p->capmemo) {
        size_t nc = p->capmemo ? p->capmemo * 2 : 64;
        memo_ent *nm = realloc(p->memo, nc * sizeof *nm);
        if (!nm)
            return;
        p->memo = nm;
        p->capmemo = nc;
    }
    memo_ent *e = &p->memo[p->nmemo];
    memcpy(e->oid, oid, 41);
    bool nomem = false;
    copy_blob(&p->memo_a, b, &e->b, &nomem);
    if (!nomem && !p->memo_a.exhausted)
        p->nmemo++;
}

int qr__code_pg_put(qr_code_pg *p, const char *oid, const qr_code_blob *b, qr_buf *err)
{
    (void)err;
    memo_put(p, oid, b);
    qr_buf *c = p->blobs;
    lit_int(&c[0], qr__code_store_version());
    lit_text(&c[1], oid);
    lit_int(&c[2], (int64_t)b->file.lang);
    lit_int(&c[3], b->status);
    lit_int(&c[4], (int64_t)b->bytes);
    lit_int(&c[5], b->file.lines);
    lit_int(&c[6], b->file.errors);
    char el[QR_CODE_ERROR_LINES_TEXT];
    qr__code_error_lines_text(&b->file, el);
    lit_text(&c[7], el);
    c = p->items;
    for (size_t i = 0; i < b->file.nitems; i++) {
        const qr_code_item *it = &b->file.items[i];
        lit_int(&c[0], qr__code_store_version());
        lit_text(&c[1], oid);
        lit_int(&c[2], (int64_t)i);
        lit_int(&c[3], (int64_t)it->kind);
        lit_text(&c[4], it->name);
        lit_text(&c[5], it->parent);
        lit_text(&c[6], it->type);
        lit_text(&c[7], it->signature);
        lit_text(&c[8], it->cond);
        lit_int(&c[9], it->line);
        lit_int(&c[10], it->end_line);
        lit_int(&c[11], it->start_byte);
        lit_int(&c[12], it->end_byte);
        lit_int(&c[13], it->flags);
    }
    qr_buf packed;
    qr_buf_init(&packed);
    c = p->refs;
    for (size_t i = 0; i < b->file.nrefs; i++) {
        const qr_code_ref *r = &b->file.refs[i];
        if (r->kind == QR_CODE_REF_NAME) {
            qr_buf_printf(&packed, "%u\t%s\t%s\t%s\n", r->line, r->from ? r->from : "",
                          r->cond ? r->cond : "", r->name);
            continue;
        }
        lit_int(&c[0], qr__code_store_version());
        lit_text(&c[1], oid);
        lit_int(&c[2], (int64_t)i);
        lit_int(&c[3], (int64_t)r->kind);
        lit_text(&c[4], r->from);
        lit_text(&c[5], r->name);
        lit_text(&c[6], r->cond);
        lit_int(&c[7], r->line);
    }
    if (packed.len) {
        lit_int(&p->names[0], qr__code_store_version());
        lit_text(&p->names[1], oid);
        lit_text(&p->names[2], packed.p);
    }
    bool failed = packed.failed;
    qr_buf_release(&packed);
    p->pending++;
    for (size_t i = 0; i < ALL_COLS; i++)
        failed |= p->col[i].failed;
    return failed ? QR_ENOMEM : QR_OK;
}

static int exec(qr_code_pg *p, const char *sql, int n, const char *const *params,
                qr_store_rows *rows, const char *doing, qr_buf *err)
{
    return qr_store_pg_exec(&p->st, sql, n, params, rows, doing, NULL, err);
}

/* Ends a failed transaction; its own failure adds nothing to the first error. */
static void rollback(qr_code_pg *p)
{
    qr_buf e;
    qr_buf_init(&e);
    (void)exec(p, "ROLLBACK", 0, NULL, NULL, "roll back", &e);
    qr_buf_release(&e);
}

/* Sends the buffered rows of one table: INSERT ... SELECT FROM unnest of its arrays. */
static int flush_table(qr_code_pg *p, const char *table, const char *const *types, qr_buf *cols,
                       size_t ncols, const char *order, qr_buf *err)
{
    if (cols[0].len <= 1)
        return QR_OK; /* no rows */
    qr_buf sql;
    qr_buf_init(&sql);
    qr_buf_printf(&sql, "INSERT INTO %s SELECT * FROM unnest(", table);
    for (size_t i = 0; i < ncols; i++)
        qr_buf_printf(&sql, "%s$%zu::%s[]", i ? ", " : "", i + 1, types[i]);
    /* in key order: two indexers writing overlapping blobs take their row locks in the
     * same order, so neither waits on the other in a cycle (a deadlock PostgreSQL would
     * break by failing one) */
    qr_buf_printf(&sql, ") ORDER BY %s ON CONFLICT DO NOTHING", order);
    qr_buf lits[I_COLS];
    const char *params[I_COLS];
    for (size_t i = 0; i < ncols; i++) {
        qr_buf_init(&lits[i]);
        lit_close(&cols[i], &lits[i]);
        params[i] = lits[i].p;
    }
    bool failed = sql.failed;
    for (size_t i = 0; i < ncols; i++)
        failed |= lits[i].failed;
    int rc = failed ? QR_ENOMEM : exec(p, sql.p, (int)ncols, params, NULL, "store code rows", err);
    for (size_t i = 0; i < ncols; i++)
        qr_buf_release(&lits[i]);
    qr_buf_release(&sql);
    return rc;
}

int qr__code_pg_commit(qr_code_pg *p, qr_buf *err)
{
    if (!p->pending)
        return QR_OK;
    static const char *const bt[B_COLS] = {"int",  "text", "int",  "int",
                                           "int8", "int8", "int8", "text"};
    static const char *const it[I_COLS] = {"int",  "text", "int",  "int",  "text", "text", "text",
                                           "text", "text", "int8", "int8", "int8", "int8", "int8"};
    static const char *const rt[R_COLS] = {"int",  "text", "int",  "int",
                                           "text", "text", "text", "int8"};
    static const char *const nt[N_COLS] = {"int", "text", "text"};
    int rc = QR_OK;
    if (!p->held && (rc = exec(p, "SELECT pg_advisory_lock_shared(" GC_LOCK ")", 0, NULL, NULL,
                               "take the code index's write lock", err)) == QR_OK)
        p->held = true; /* until recorded: gc waits for these rows' listing */
    if (rc == QR_OK)
        rc = exec(p, "BEGIN", 0, NULL, NULL, "begin storing code rows", err);
    if (rc == QR_OK)
        rc = flush_table(p, "code_blobs", bt, p->blobs, B_COLS, "2", err);
    if (rc == QR_OK)
        rc = flush_table(p, "code_items", it, p->items, I_COLS, "2, 3", err);
    if (rc == QR_OK)
        rc = flush_table(p, "code_refs", rt, p->refs, R_COLS, "2, 3", err);
    if (rc == QR_OK)
        rc = flush_table(p, "code_names", nt, p->names, N_COLS, "2", err);
    if (rc == QR_OK)
        rc = exec(p, "COMMIT", 0, NULL, NULL, "commit code rows", err);
    else
        rollback(p);
    reset_cols(p);
    if (rc == QR_OK)
        p->memo_stale = true; /* stored: served until the next batch begins */
    else
        memo_clear(p);
    return rc;
}

/* ---- reading ---- */

static const char *dup(qr_arena *a, const qr_store_rows *r, int row, int col)
{
    const char *s = qr_store_rows_get(r, row, col);
    return s ? qr_arena_strndup(a, s, strlen(s)) : NULL;
}

static int64_t num(const qr_store_rows *r, int row, int col)
{
    const char *s = qr_store_rows_get(r, row, col);
    return s ? strtoll(s, NULL, 10) : 0;
}

/* A blob's rows in one statement: its code_blobs row (part 0), then its items (1) and its
 * references (2), each in seq order; every column as text, as libpq gives them anyway.
 * Column 0 is the blob id, so that the rows of many blobs (AHEAD_SQL) read the same. */
#define ROWS_SQL(WHERE)                                                                            \
    "SELECT oid, 0 AS part, 0 AS seq, lang::text, status::text, bytes::text, lines::text,"         \
    " errors::text, error_lines, NULL, NULL, NULL, NULL, NULL FROM code_blobs"                     \
    " WHERE v = $1::int AND " WHERE                                                                \
    " UNION ALL SELECT oid, 1, seq, kind::text, name, parent, type, signature, cond,"              \
    " line::text, end_line::text, start_byte::text, end_byte::text, flags::text"                   \
    " FROM code_items WHERE v = $1::int AND " WHERE                                                \
    " UNION ALL SELECT oid, 2, seq, kind::text, from_name, name, cond, line::text, NULL,"          \
    " NULL, NULL, NULL, NULL, NULL FROM code_refs WHERE v = $1::int AND " WHERE
/* unordered: the server's sort of a whole graph's rows cost four times the query (428
 * against 107 ms for redis's 135,000 rows); sort_rows orders them here */
static const char get_sql[] = ROWS_SQL("oid = $2");
static const char ahead_sql[] = ROWS_SQL("oid = ANY($2::text[])");

typedef struct rowkey {
    const char *oid;
    int part, seq, row;
} rowkey;

static int cmp_rowkey(const void *x, const void *y)
{
    const rowkey *a = x, *b = y;
    int c = strcmp(a->oid, b->oid);
    if (c)
        return c;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The rows of r ordered by blob, part, seq: *order (malloc'd) holds their numbers. */
static int sort_rows(const qr_store_rows *r, int **order)
{
    *order = NULL;
    if (r->n <= 0)
        return QR_OK;
    rowkey *k = malloc((size_t)r->n * sizeof *k);
    int *o = malloc((size_t)r->n * sizeof *o);
    if (!k || !o) {
        free(k);
        free(o);
        return QR_ENOMEM;
    }
    for (int i = 0; i < r->n; i++)
        k[i] = (rowkey){.oid = qr_store_rows_get(r, i, 0),
                        .part = (int)num(r, i, 1),
                        .seq = (int)num(r, i, 2),
                        .row = i};
    qsort(k, (size_t)r->n, sizeof *k, cmp_rowkey);
    for (int i = 0; i < r->n; i++)
        o[i] = k[i].row;
    free(k);
    *order = o;
    return QR_OK;
}

/* The blob of the count rows of r numbered at[0...] (its part 0 row first, then its items
 * and refs in seq order), strings from a. */
static int parse_blob(const qr_store_rows *r, const int *at, int count, qr_arena *a,
                      qr_code_blob *out)
{
    memset(out, 0, sizeof *out);
    int rc = QR_OK;
    out->file.lang = (qr_code_lang)num(r, at[0], 3);
    out->status = (int)num(r, at[0], 4);
    out->bytes = (size_t)num(r, at[0], 5);
    out->file.lines = (uint32_t)num(r, at[0], 6);
    out->file.errors = (uint32_t)num(r, at[0], 7);
    qr__code_error_lines(qr_store_rows_get(r, at[0], 8), &out->file);
    if (out->status != QR_CODE_BLOB_OK)
        return QR_OK;
    size_t nitems = 0, nrefs = 0;
    for (int i = 1; i < count; i++) {
        if (num(r, at[i], 1) == 1)
            nitems++;
        else
            nrefs++;
    }
    if (nitems && !(out->file.items = qr_arena_zalloc(a, nitems * sizeof(qr_code_item))))
        rc = QR_ENOMEM;
    if (nrefs && !(out->file.refs = qr_arena_zalloc(a, nrefs * sizeof(qr_code_ref))))
        rc = QR_ENOMEM;
    for (int i = 1; rc == QR_OK && i < count; i++) {
        if (num(r, at[i], 1) == 1) {
            qr_code_item *it = &out->file.items[out->file.nitems++];
            it->kind = (qr_code_kind)num(r, at[i], 3);
            it->name = dup(a, r, at[i], 4);
            it->parent = dup(a, r, at[i], 5);
            it->type = dup(a, r, at[i], 6);
            it->signature = dup(a, r, at[i], 7);
            it->cond = dup(a, r, at[i], 8);
            it->line = (uint32_t)num(r, at[i], 9);
            it->end_line = (uint32_t)num(r, at[i], 10);
            it->start_byte = (uint32_t)num(r, at[i], 11);
            it->end_byte = (uint32_t)num(r, at[i], 12);
            it->flags = (uint32_t)num(r, at[i], 13);
            if (!it->name)
                it->name = "";
        } else {
            qr_code_ref *x = &out->file.refs[out->file.nrefs++];
            x->kind = (qr_code_ref_kind)num(r, at[i], 3);
            x->from = dup(a, r, at[i], 4);
            x->name = dup(a, r, at[i], 5);
            x->cond = dup(a, r, at[i], 6);
            x->line = (uint32_t)num(r, at[i], 7);
            if (!x->name)
                x->name = "";
        }
    }
    if (rc != QR_OK)
        return rc;
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static int cmp_ahead(const void *x, const void *y)
{
    return strcmp(((const ahead_ix *)x)->oid, ((const ahead_ix *)y)->oid);
}

static void drop_ahead(qr_code_pg *p)
{
    qr_store_rows_free(&p->ahead);
    memset(&p->ahead, 0, sizeof p->ahead);
    free(p->order);
    p->order = NULL;
    free(p->ix);
    p->ix = NULL;
    p->nix = 0;
}

int qr__code_pg_prefetch(qr_code_pg *p, const char *const *oids, size_t n, qr_buf *err)
{
    drop_ahead(p);
    if (!n)
        return QR_OK;
    unhold(p); /* a new load: what the last one stored and did not record is no one's */
    qr_buf lit;
    qr_buf_init(&lit);
    qr_buf_putc(&lit, '{');
    for (size_t i = 0; i < n; i++)
        lit_text(&lit, oids[i]);
    qr_buf_putc(&lit, '}');
    int rc = lit.failed ? QR_ENOMEM : QR_OK;
    if (rc == QR_OK) {
        const char *params[] = {p->v, lit.p};
        rc = exec(p, ahead_sql, 2, params, &p->ahead, "read the code index", err);
    }
    qr_buf_release(&lit);
    if (rc == QR_OK)
        rc = sort_rows(&p->ahead, &p->order);
    if (rc == QR_OK && p->ahead.n && !(p->ix = calloc((size_t)p->ahead.n, sizeof *p->ix)))
        rc = QR_ENOMEM;
    for (int i = 0; rc == QR_OK && i < p->ahead.n; i++) {
        int row = p->order[i];
        const char *oid = qr_store_rows_get(&p->ahead, row, 0);
        if (p->nix && !strcmp(p->ix[p->nix - 1].oid, oid)) {
            p->ix[p->nix - 1].count++;
            continue;
        }
        /* a blob's first row is its part 0 (rows without one are never written) */
        p->ix[p->nix++] = (ahead_ix){.oid = oid, .first = i, .count = 1};
    }
    if (rc != QR_OK) {
        drop_ahead(p);
        return rc;
    }
    /* sorted already: by the same strcmp order */
    return QR_OK;
}

int qr__code_pg_get(qr_code_pg *p, const char *oid, qr_arena *a, qr_code_blob *out, qr_buf *err)
{
    if (p->memo_stale) { /* only a committed batch: its rows are the database's */
        for (size_t i = 0; i < p->nmemo; i++)
            if (!strcmp(p->memo[i].oid, oid)) {
                bool nomem = false;
                copy_blob(a, &p->memo[i].b, out, &nomem);
                return nomem || a->exhausted ? QR_ENOMEM : QR_OK;
            }
    }
    if (p->nix) {
        ahead_ix key = {.oid = oid};
        const ahead_ix *hit = bsearch(&key, p->ix, p->nix, sizeof *p->ix, cmp_ahead);
        if (hit)
            return num(&p->ahead, p->order[hit->first], 1) != 0
                       ? 1
                       : parse_blob(&p->ahead, p->order + hit->first, hit->count, a, out);
        /* not read ahead: absent then, or stored since; ask */
    }
    memset(out, 0, sizeof *out);
    const char *params[] = {p->v, oid};
    qr_store_rows r = {0};
    int rc = exec(p, get_sql, 2, params, &r, "read the code index", err);
    if (rc)
        return rc;
    int *order = NULL;
    rc = sort_rows(&r, &order);
    if (rc == QR_OK && (r.n == 0 || num(&r, order[0], 1) != 0))
        rc = 1; /* absent */
    else if (rc == QR_OK)
        rc = parse_blob(&r, order, r.n, a, out);
    free(order);
    qr_store_rows_free(&r);
    return rc;
}

int qr__code_pg_names(qr_code_pg *p, const char *oid, qr_arena *a, char **data, size_t *len,
                      qr_buf *err)
{
    *data = NULL;
    *len = 0;
    const char *params[] = {p->v, oid};
    qr_store_rows r = {0};
    int rc = exec(p, "SELECT data FROM code_names WHERE v = $1::int AND oid = $2", 2, params, &r,
                  "read the code index", err);
    if (rc)
        return rc;
    const char *s = r.n ? qr_store_rows_get(&r, 0, 0) : NULL;
    if (s) {
        *len = strlen(s);
        *data = qr_arena_strndup(a, s, *len);
        if (!*data)
            rc = QR_ENOMEM;
    }
    qr_store_rows_free(&r);
    return rc;
}

int qr__code_pg_count(qr_code_pg *p, int64_t *blobs, int64_t *items, int64_t *refs)
{
    const char *params[] = {p->v};
    qr_store_rows r = {0};
    qr_buf err;
    qr_buf_init(&err);
    int rc = exec(p,
                  "SELECT (SELECT count(*) FROM code_blobs WHERE v = $1::int),"
                  " (SELECT count(*) FROM code_items WHERE v = $1::int),"
                  " (SELECT count(*) FROM code_refs WHERE v = $1::int)",
                  1, params, &r, "count the code index", &err);
    qr_buf_release(&err);
    if (rc == QR_OK && r.n == 1) {
        *blobs = num(&r, 0, 0);
        *items = num(&r, 0, 1);
        *refs = num(&r, 0, 2);
    }
    qr_store_rows_free(&r);
    return rc;
}

static int64_t num(const qr_store_rows *r, int row, int col);

int qr__code_pg_record(qr_code_pg *p, const char *name, const char *location, const char *commit,
                       bool worktree, const char *const *paths, const char *const *oids,
                       const int *langs, size_t n, qr_buf *err)
{
    qr_buf lp, lo, ll, nfiles, now;
    qr_buf_init(&lp);
    qr_buf_init(&lo);
    qr_buf_init(&ll);
    qr_buf_init(&nfiles);
    qr_buf_init(&now);
    qr_buf_putc(&lp, '{');
    qr_buf_putc(&lo, '{');
    qr_buf_putc(&ll, '{');
    for (size_t i = 0; i < n; i++) {
        lit_text(&lp, paths[i]);
        lit_text(&lo, oids[i]);
        lit_int(&ll, langs[i]);
    }
    qr_buf_putc(&lp, '}');
    qr_buf_putc(&lo, '}');
    qr_buf_putc(&ll, '}');
    qr_buf_printf(&nfiles, "%zu", n);
    qr_buf_printf(&now, "%lld", (long long)qr_clock_now());
    int rc = lp.failed || lo.failed || ll.failed || nfiles.failed || now.failed ? QR_ENOMEM : QR_OK;
    if (rc == QR_OK)
        rc = exec(p, "BEGIN", 0, NULL, NULL, "begin recording the repository", err);
    if (rc == QR_OK) {
        const char *params[] = {name, location, commit,  worktree ? "t" : "f",
                                p->v, now.p,    nfiles.p};
        rc = exec(p,
                  "INSERT INTO code_repos VALUES ($1, $2, $3, $4::boolean, $5::int, $6::int8,"
                  " $7::int8) ON CONFLICT (name) DO UPDATE SET location = EXCLUDED.location,"
                  " commit = EXCLUDED.commit, worktree = EXCLUDED.worktree, v = EXCLUDED.v,"
                  " indexed_at = EXCLUDED.indexed_at, files = EXCLUDED.files",
                  7, params, NULL, "record the repository", err);
    }
    if (rc == QR_OK) {
        const char *params[] = {name};
        rc = exec(p, "DELETE FROM code_files WHERE repo = $1", 1, params, NULL,
                  "record the repository's files", err);
    }
    if (rc == QR_OK && n) {
        const char *params[] = {name, lp.p, lo.p, ll.p};
        rc = exec(p,
                  "INSERT INTO code_files SELECT $1, * FROM unnest($2::text[], $3::text[],"
                  " $4::int[]) ON CONFLICT DO NOTHING",
                  4, params, NULL, "record the repository's files", err);
    }
    /* every file's rows must still be there: a gc between the load and now (it waits for
     * this transaction, and this for it) may have pruned a blob the load found stored and
     * unrecorded; then nothing is recorded, and the caller loads again */
    int64_t missing = 0;
    if (rc == QR_OK)
        rc = exec(p, "SELECT pg_advisory_xact_lock_shared(" GC_LOCK ")", 0, NULL, NULL,
                  "take the code index's write lock", err);
    if (rc == QR_OK && n) {
        const char *params[] = {lo.p, p->v};
        qr_store_rows r = {0};
        rc = exec(p,
                  "SELECT count(*) FROM unnest($1::text[]) o WHERE NOT EXISTS (SELECT 1 FROM"
                  " code_blobs b WHERE b.v = $2::int AND b.oid = o)",
                  2, params, &r, "check the repository's blobs", err);
        if (rc == QR_OK && r.n == 1)
            missing = num(&r, 0, 0);
        qr_store_rows_free(&r);
    }
    if (rc == QR_OK && missing) {
        qr_buf_printf(err, "%lld of the files of '%s' lost their rows to 'quarry code gc' on %s "
                           "while they were indexed",
                      (long long)missing, name, qr__code_pg_server(p));
        rc = QR_CODE_PRUNED;
    }
    if (rc == QR_OK)
        rc = exec(p, "COMMIT", 0, NULL, NULL, "commit the repository's record", err);
    else
        rollback(p);
    if (rc == QR_OK)
        unhold(p); /* its blobs are in code_files now: gc keeps them */
    qr_buf_release(&lp);
    qr_buf_release(&lo);
    qr_buf_release(&ll);
    qr_buf_release(&nfiles);
    qr_buf_release(&now);
    return rc;
}

int qr__code_pg_want(qr_code_pg *p, const char *name, const char *location, qr_buf *err)
{
    const char *params[] = {name, location, p->v};
    return exec(p,
                "INSERT INTO code_repos VALUES ($1, $2, NULL, false, $3::int, 0, 0)"
                " ON CONFLICT (name) DO NOTHING",
                3, params, NULL, "queue the repository's code graph", err);
}

int qr__code_pg_repos(qr_code_pg *p, qr_arena *a, const char ***names, size_t *n, qr_buf *err)
{
    *names = NULL;
    *n = 0;
    qr_store_rows r = {0};
    int rc = exec(p, "SELECT name FROM code_repos ORDER BY convert_to(name, 'UTF8')", 0, NULL, &r,
                  "list the repositories of the code index", err);
    if (rc)
        return rc;
    *names = qr_arena_zalloc(a, ((size_t)r.n + 1) * sizeof **names);
    if (!*names)
        rc = QR_ENOMEM;
    for (int i = 0; rc == QR_OK && i < r.n; i++)
        if (!((*names)[(*n)++] = dup(a, &r, i, 0)))
            rc = QR_ENOMEM;
    qr_store_rows_free(&r);
    return rc;
}

int qr__code_pg_listing(qr_code_pg *p, const char *name, qr_arena *a, qr_code_listing *out,
                        qr_buf *err)
{
    memset(out, 0, sizeof *out);
    const char *params[] = {name};
    qr_store_rows r = {0};
    int rc = exec(p, "SELECT commit, location FROM code_repos WHERE name = $1", 1, params, &r,
                  "read the repositories of the code index", err);
    if (rc)
        return rc;
    bool found = r.n == 1;
    out->name = qr_arena_strndup(a, name, strlen(name));
    out->commit = found ? dup(a, &r, 0, 0) : NULL;
    out->location = found ? dup(a, &r, 0, 1) : NULL;
    qr_store_rows_free(&r);
    if (!found)
        return 1;
    rc = exec(p,
              "SELECT path, oid FROM code_files WHERE repo = $1 ORDER BY convert_to(path, 'UTF8')",
              1, params, &r, "read the files of the code index", err);
    if (rc)
        return rc;
    out->paths = qr_arena_zalloc(a, ((size_t)r.n + 1) * sizeof *out->paths);
    out->oids = qr_arena_zalloc(a, ((size_t)r.n + 1) * sizeof *out->oids);
    if (!out->paths || !out->oids || !out->name)
        rc = QR_ENOMEM;
    for (int i = 0; rc == QR_OK && i < r.n; i++) {
        out->paths[i] = dup(a, &r, i, 0);
        out->oids[i] = dup(a, &r, i, 1);
        if (!out->paths[i] || !out->oids[i])
            rc = QR_ENOMEM;
        out->n = (size_t)i + 1;
    }
    qr_store_rows_free(&r);
    return rc;
}

/* ---- gc ---- */

static void unhold(qr_code_pg *p)
{
    if (!p->held)
        return;
    qr_buf e;
    qr_buf_init(&e);
    if (exec(p, "SELECT pg_advisory_unlock_shared(" GC_LOCK ")", 0, NULL, NULL,
             "give back the code index's write lock", &e) == QR_OK)
        p->held = false;
    qr_buf_release(&e);
}

static int64_t tables_bytes(qr_code_pg *p)
{
    qr_store_rows r = {0};
    qr_buf e;
    qr_buf_init(&e);
    int64_t n = 0;
    if (exec(p,
             "SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(ARRAY['code_blobs',"
             " 'code_items', 'code_refs', 'code_names']) t",
             0, NULL, &r, "measure the code index", &e) == QR_OK &&
        r.n == 1)
        n = num(&r, 0, 0);
    qr_store_rows_free(&r);
    qr_buf_release(&e);
    return n;
}

int qr__code_pg_prune(qr_code_pg *p, const qr_stop *stop, int wait_ms, qr_code_gc_stats *out,
                      qr_buf *err)
{
    int rc = qr__code_pg_commit(p, err);
    if (rc != QR_OK)
        return rc;
    unhold(p);
    int64_t items, refs;
    qr__code_pg_count(p, &out->blobs_before, &items, &refs);
    out->bytes_before = tables_bytes(p);
    /* the lock exclusive: no session holds rows it has not recorded yet */
    qr_store_rows r = {0};
    bool got = false;
    for (int waited = 0; rc == QR_OK; waited += 100) {
        rc = exec(p, "SELECT pg_try_advisory_lock(" GC_LOCK ")", 0, NULL, &r,
                  "take the code index's gc lock", err);
        got = rc == QR_OK && r.n == 1 && !strcmp(qr_store_rows_get(&r, 0, 0), "t");
        qr_store_rows_free(&r);
        if (rc != QR_OK || got)
            break;
        if (qr_stop_check(stop))
            return qr_stop_fail(stop, err);
        if (waited >= wait_ms) {
            int64_t holders = 0;
            if (exec(p,
                     "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                     " AND ((classid::int8 << 32) | objid::int8) = " GC_LOCK,
                     0, NULL, &r, "read the code index's locks", err) == QR_OK &&
                r.n == 1)
                holders = num(&r, 0, 0);
            qr_store_rows_free(&r);
            qr_buf_reset(err);
            qr_buf_printf(err,
                          "cannot prune the shared code index on %s: %lld session%s stored "
                          "code rows not recorded yet (an indexer in flight, or a server "
                          "that parsed files the database lacked); waited %d s, try again "
                          "when they are done",
                          qr__code_pg_server(p), (long long)holders, holders == 1 ? "" : "s",
                          wait_ms / 1000);
            return QR_EIO;
        }
        struct timespec d = {0, 100 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    if (rc != QR_OK)
        return rc;
    /* the blobs no repository's recorded files hold at the version that recorded them */
    rc = exec(p,
              "WITH gone AS (DELETE FROM code_blobs b WHERE NOT EXISTS (SELECT 1 FROM"
              " code_files f JOIN code_repos r ON r.name = f.repo WHERE f.oid = b.oid AND"
              " r.v = b.v) RETURNING b.v, b.oid),"
              " di AS (DELETE FROM code_items i USING gone g WHERE i.v = g.v AND i.oid = g.oid),"
              " dr AS (DELETE FROM code_refs x USING gone g WHERE x.v = g.v AND x.oid = g.oid),"
              " dn AS (DELETE FROM code_names n USING gone g WHERE n.v = g.v AND n.oid = g.oid)"
              " SELECT count(*) FROM gone",
              0, NULL, &r, "prune the code index", err);
    if (rc == QR_OK && r.n == 1)
        out->blobs_removed = num(&r, 0, 0);
    qr_store_rows_free(&r);
    qr_buf e;
    qr_buf_init(&e);
    (void)exec(p, "SELECT pg_advisory_unlock(" GC_LOCK ")", 0, NULL, NULL,
               "give back the code index's gc lock", &e);
    qr_buf_release(&e);
    out->bytes_after = tables_bytes(p);
    return rc;
}
