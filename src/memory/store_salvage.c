/*
 * store_salvage.c: copying what can still be read from a damaged memory store into a
 * fresh one (qr_mem_salvage), the way out when a store is refused as damaged and a plain
 * export stops at the first unreadable page.
 *
 * Design. The damaged file is opened read-only and never written. Every row is read on its
 * own, so one unreadable page costs the rows on it and no others: nodes and visits by
 * point lookups of each rowid from 1 to max(id) (when max(id) itself cannot be read,
 * probing goes on until 100,000 ids in a row gave nothing); tags and links by their
 * primary key's first column (the node), one lookup per salvaged node. Each row is written
 * into the destination through the store's own checks, each in a savepoint of one
 * transaction, so a row whose bytes were damaged but still readable (a bad weight, text
 * that is not UTF-8, a key seen twice) is dropped and counted, and the destination holds
 * only rows a store accepts. Links and visits join through a map from the damaged file's
 * node ids to the new ones; one whose node was lost is dropped. The full-text index is
 * rebuilt by the destination's triggers, not read.
 *
 * What is lost: every row on an unreadable page (a damaged interior page hides every row
 * below it from lookups), tags and links stored on unreadable pages, links and visits of
 * lost nodes, and meta (generation, creation time), which export does not carry either.
 * Damage inside a row's bytes that still reads as valid values cannot be seen (SQLite
 * keeps no checksums) and is copied as it reads.
 *
 * Rejected: driving the sqlite3 shell's .recover (a runtime dependency on a separate
 * program and its output format; its lost_and_found rows would still need mapping onto
 * the schema); sqlite3_recover_* (not in Debian's libsqlite3); a table scan that resumes
 * after an error (a scan cannot step past a damaged page, lookups can).
 */
#include "memory_int.h"

#include <stdlib.h>
#include <string.h>

/* Ids probed past the last row found when max(id) cannot be read. */
#define SALVAGE_PROBE_GAP 100000

typedef struct id_pair {
    int64_t from, to;
} id_pair;

typedef struct salvage_ctx {
    sqlite3 *src;
    qr_mem *dst;
    id_pair *map; /* sorted by from: ids are probed in ascending order */
    size_t n, cap;
    qr_mem_salvage_report *rep;
    qr_buf *err;
    qr_buf rowerr; /* a refused row's message, dropped */
} salvage_ctx;

static bool map_add(salvage_ctx *c, int64_t from, int64_t to)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 1024;
        id_pair *p = realloc(c->map, nc * sizeof *p);
        if (!p)
            return false;
        c->map = p;
        c->cap = nc;
    }
    c->map[c->n++] = (id_pair){from, to};
    return true;
}

static bool map_get(const salvage_ctx *c, int64_t from, int64_t *to)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->map[mid].from < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->n && c->map[lo].from == from) {
        *to = c->map[lo].to;
        return true;
    }
    return false;
}

static const char *text_col(sqlite3_stmt *st, int c)
{
    const char *p = (const char *)sqlite3_column_text(st, c);
    /* a value that is not text (damaged bytes) or holds a NUL is not the store's */
    if (!p || sqlite3_column_type(st, c) != SQLITE_TEXT ||
        strlen(p) != (size_t)sqlite3_column_bytes(st, c))
        return NULL;
    return p;
}

/* max(id) of a table with an integer key, or -1 when it cannot be read. */
static int64_t max_id(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Runs one write in a savepoint of the destination's transaction: kept when it passes,
 * undone alone when refused. Returns QR_OK, or the error when the destination itself
 * fails (then the salvage stops). *kept says which. */
static int begin_row(salvage_ctx *c)
{
    qr_buf_reset(&c->rowerr);
    return qr__mem_begin_write(c->dst, c->err);
}

static int end_row(salvage_ctx *c, int rc, bool *kept)
{
    *kept = rc == QR_OK;
    if (rc == QR_OK)
        return qr__mem_commit_write(c->dst, c->err);
    qr__mem_rollback(c->dst);
    /* a row the store refuses is dropped; anything else is the destination failing */
    if (rc == QR_EINVAL || rc == QR_ERUNTIME)
        return QR_OK;
    qr_buf_append(c->err, c->rowerr.p ? c->rowerr.p : "", c->rowerr.len);
    return rc;
}

/* The tags of node id in the damaged file: false when they cannot be read. */
static bool read_tags(salvage_ctx *c, sqlite3_stmt *st, int64_t id, qr_arena *a,
                      const char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    sqlite3_bind_int64(st, 1, id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = text_col(st, 0);
        if (!t) {
            c->rep->tags_dropped++;
            continue;
        }
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            const char **p = qr_arena_alloc(a, nc * sizeof *p);
            if (!p)
                break;
            if (*n)
                memcpy(p, *out, *n * sizeof *p);
            *out = p;
            cap = nc;
        }
        char *d = qr_arena_alloc(a, strlen(t) + 1);
        if (!d)
            break;
        strcpy(d, t);
        (*out)[(*n)++] = d;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE;
}

static int salvage_nodes(salvage_ctx *c)
{
    sqlite3_stmt *st = NULL, *tags = NULL;
    int rc = QR_OK;
    if (sqlite3_prepare_v2(c->src,
                           "SELECT key, type, weight, provenance, created, modified, retrievals,"
                           " uses, wrongs, deleted, content FROM nodes WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(c->src, "SELECT tag FROM tags WHERE node = ?1 ORDER BY tag", -1,
                           &tags, NULL) != SQLITE_OK) {
        /* the schema itself cannot be read: nothing can be found by lookups */
        c->rep->schema_unreadable = true;
        goto done;
    }
    int64_t max = max_id(c->src, "SELECT max(id) FROM nodes");
    int64_t last_found = 0, lost_pending = 0;
    qr_arena a;
    qr_arena_init(&a, 0);
    for (int64_t id = 1; rc == QR_OK; id++) {
        if (max >= 0 ? id > max : id - last_found > SALVAGE_PROBE_GAP)
            break;
        sqlite3_bind_int64(st, 1, id);
        int s = sqlite3_step(st);
        if (s == SQLITE_DONE) {
            sqlite3_reset(st);
            continue;
        }
        if (s != SQLITE_ROW) {
            sqlite3_reset(st);
            lost_pending++;
            continue;
        }
        c->rep->node_rows_lost += lost_pending;
        lost_pending = 0;
        last_found = id;
        qr_arena_mark mk = qr_arena_get_mark(&a);
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = text_col(st, 0);
        n.type = text_col(st, 1);
        n.weight = sqlite3_column_double(st, 2);
        n.provenance = text_col(st, 3);
        n.created = sqlite3_column_int64(st, 4);
        n.modified = sqlite3_column_int64(st, 5);
        n.retrievals = sqlite3_column_int64(st, 6);
        n.uses = sqlite3_column_int64(st, 7);
        n.wrongs = sqlite3_column_int64(st, 8);
        n.deleted = sqlite3_column_type(st, 9) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 9);
        n.content = text_col(st, 10);
        bool whole = n.key && n.type && n.provenance && n.content &&
                     sqlite3_column_type(st, 2) != SQLITE_NULL && n.created > 0 &&
                     n.modified > 0;
        const char **tv = NULL;
        if (whole && !read_tags(c, tags, id, &a, &tv, &n.ntags)) {
            c->rep->nodes_without_tags++;
            tv = NULL;
            n.ntags = 0;
        }
        n.tags = tv;
        bool kept = false;
        int64_t nid = 0;
        if (!whole) {
            c->rep->nodes_dropped++;
        } else if ((rc = begin_row(c)) == QR_OK) {
            rc = end_row(c, qr__mem_node_insert(c->dst, &n, &nid, &c->rowerr), &kept);
            if (rc == QR_OK && kept && !map_add(c, id, nid))
                rc = QR_ENOMEM;
            if (rc == QR_OK) {
                if (kept)
                    c->rep->nodes++;
                else
                    c->rep->nodes_dropped++;
            }
        }
        sqlite3_reset(st);
        qr_arena_rewind(&a, mk);
    }
    if (max >= 0)
        c->rep->node_rows_lost += lost_pending;
    qr_arena_release(&a);
done:
    sqlite3_finalize(st);
    sqlite3_finalize(tags);
    return rc;
}

static int salvage_edges(salvage_ctx *c)
{
    sqlite3_stmt *st = NULL;
    int rc = QR_OK;
    if (sqlite3_prepare_v2(c->src,
                           "SELECT target, type, strength FROM edges WHERE source = ?1"
                           " ORDER BY target, type",
                           -1, &st, NULL) != SQLITE_OK) {
        c->rep->schema_unreadable = true;
        sqlite3_finalize(st);
        return QR_OK;
    }
    for (size_t i = 0; i < c->n && rc == QR_OK; i++) {
        sqlite3_bind_int64(st, 1, c->map[i].from);
        int s = SQLITE_DONE;
        while (rc == QR_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t to;
            const char *type = text_col(st, 1);
            if (!type || !map_get(c, sqlite3_column_int64(st, 0), &to) || to == c->map[i].to) {
                c->rep->edges_dropped++;
                continue;
            }
            bool kept = false;
            if ((rc = begin_row(c)) == QR_OK)
                rc = end_row(c,
                             qr__mem_edge_put(c->dst, c->map[i].to, to,
                                              sqlite3_column_double(st, 2), type, NULL,
                                              &c->rowerr),
                             &kept);
            if (rc == QR_OK)
                *(kept ? &c->rep->edges : &c->rep->edges_dropped) += 1;
        }
        if (rc == QR_OK && s != SQLITE_DONE)
            c->rep->nodes_without_edges++;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int salvage_visits(salvage_ctx *c)
{
    sqlite3_stmt *st = NULL;
    int rc = QR_OK;
    if (sqlite3_prepare_v2(c->src, "SELECT node, agent, time, outcome FROM visits WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        c->rep->schema_unreadable = true;
        sqlite3_finalize(st);
        return QR_OK;
    }
    int64_t max = max_id(c->src, "SELECT max(id) FROM visits");
    int64_t last_found = 0, lost_pending = 0;
    for (int64_t id = 1; rc == QR_OK; id++) {
        if (max >= 0 ? id > max : id - last_found > SALVAGE_PROBE_GAP)
            break;
        sqlite3_bind_int64(st, 1, id);
        int s = sqlite3_step(st);
        if (s == SQLITE_ROW) {
            c->rep->visit_rows_lost += lost_pending;
            lost_pending = 0;
            last_found = id;
            int64_t node;
            const char *agent = text_col(st, 1), *outcome = text_col(st, 3);
            int64_t time = sqlite3_column_int64(st, 2);
            bool kept = false;
            if (!agent || !outcome || time <= 0 ||
                !map_get(c, sqlite3_column_int64(st, 0), &node)) {
                c->rep->visits_dropped++;
            } else if ((rc = begin_row(c)) == QR_OK) {
                rc = end_row(c,
                             qr__mem_visit_insert(c->dst, node, agent, time, outcome,
                                                  &c->rowerr),
                             &kept);
                if (rc == QR_OK)
                    *(kept ? &c->rep->visits : &c->rep->visits_dropped) += 1;
            }
        } else if (s != SQLITE_DONE) {
            lost_pending++;
        }
        sqlite3_reset(st);
    }
    if (max >= 0)
        c->rep->visit_rows_lost += lost_pending;
    sqlite3_finalize(st);
    return rc;
}

int qr_mem_salvage(const char *path, qr_mem *dst, qr_mem_salvage_report *rep, qr_buf *err)
{
    memset(rep, 0, sizeof *rep);
    salvage_ctx c = {.dst = dst, .rep = rep, .err = err};
    qr_buf_init(&c.rowerr);
    int src = sqlite3_open_v2(path, &c.src, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    int rc = QR_OK;
    if (src != SQLITE_OK) {
        qr_buf_printf(err, "cannot open '%s' to salvage it: %s", path,
                      c.src ? sqlite3_errmsg(c.src) : sqlite3_errstr(src));
        rc = QR_EIO;
        goto done;
    }
    sqlite3_extended_result_codes(c.src, 1);
    if ((rc = qr_mem_begin(dst, err)))
        goto done;
    if ((rc = salvage_nodes(&c)) == QR_OK && (rc = salvage_edges(&c)) == QR_OK)
        rc = salvage_visits(&c);
    if (rc == QR_OK)
        rc = qr_mem_commit(dst, err);
    else
        qr_mem_rollback(dst);
done:
    sqlite3_close(c.src);
    free(c.map);
    qr_buf_release(&c.rowerr);
    return rc;
}
