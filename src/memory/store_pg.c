/*
 * store_pg.c: the memory store on PostgreSQL (issue 26): the team database's mem_* tables
 * (migration 1, src/store/pg_schema.c), reached through the store seam's statements
 * (qr_store_pg_exec: libpq stays in the store layer).
 *
 * What runs here: opening (an empty database gets its schema with QR_MEM_CREATE, an older
 * one is refused with the migrate command), adding notes with their tags, linking,
 * visiting, import and export (the JSONL of store_io.c, byte for byte: so a store moves
 * from SQLite to PostgreSQL and back exactly), and stats. Every other operation is
 * refused by qr__mem_pg_unsupported before it could reach m->db, which is NULL here.
 *
 * Design. Many processes on many machines write one store: every write is one transaction
 * that ends by bumping mem_state.generation with UPDATE ... SET generation = generation +
 * 1 (a row lock, so concurrent writers queue and no count is lost); a link that exists
 * gets its new strength by INSERT ... ON CONFLICT DO UPDATE, one statement, instead of a
 * read then a write in the client; a key added by two agents at once is refused for the
 * second by the unique index, with the message the SQLite store gives. Export runs in one
 * REPEATABLE READ READ ONLY transaction (a consistent snapshot while others write), and
 * orders with COLLATE "C" so that its order is SQLite's (bytes), whatever the database's
 * collation. Messages name the store by its server (m->path holds qr_store_server_name's
 * text), never by its URL.
 *
 * Rejected: a second implementation of validation (qr__mem_node_insert and the import
 * parser check every field before they call here); SERIALIZABLE for writes (the unique
 * key and the row-locked counter already give each write its effect, without retries).
 */
#include "memory_int.h"

#include "quarry/date.h"
#include "quarry/store.h"
#include "quarry/value.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qr__mem_pg_open(qr_mem *m, const char *url, bool create, qr_buf *err)
{
    qr_store *st = calloc(1, sizeof *st);
    if (!st) {
        qr_buf_puts(err, "out of memory opening the memory store");
        return QR_ENOMEM;
    }
    qr_store_spec spec = {.what = "memory store",
                          .location = url,
                          .flags = QR_STORE_POSTGRES_OK | (create ? QR_STORE_CREATE : 0)};
    int rc = qr_store_open(st, &spec, err);
    m->pg = st;
    free(m->path);
    m->path = st->server ? strdup(st->server) : strdup("postgresql server");
    if (!m->path)
        rc = rc ? rc : QR_ENOMEM;
    if (rc != QR_OK)
        return rc == QR_EINVAL ? QR_EINVAL : rc;
    size_t latest;
    qr_store_pg_migrations(&latest);
    if (st->kind == QR_STORE_EMPTY) {
        qr_buf_printf(err,
                      "the memory store at %s has no schema yet: run 'quarry db init', or "
                      "add a note or import one to create it",
                      m->path);
        return QR_ERUNTIME;
    }
    if (st->kind == QR_STORE_OTHER) {
        qr_buf_printf(err,
                      "the database at %s has schema version %lld, older than this quarry's "
                      "(%zu): run 'quarry db migrate'",
                      m->path, (long long)st->version, latest);
        return QR_EIO;
    }
    return QR_OK;
}

void qr__mem_pg_close(qr_mem *m)
{
    if (!m->pg)
        return;
    qr_store_close(m->pg);
    free(m->pg);
    m->pg = NULL;
}

int qr__mem_pg_unsupported(qr_mem *m, const char *what, qr_buf *err)
{
    qr_buf_printf(err,
                  "the memory store at %s is on PostgreSQL, where %s is not built yet (add, "
                  "link, import, export and stats are): export it to a SQLite store for that",
                  m->path, what);
    return QR_ERUNTIME;
}

static int exec(qr_mem *m, const char *sql, int n, const char *const *params,
                qr_store_rows *rows, const char *doing, char state[6], qr_buf *err)
{
    return qr_store_pg_exec(m->pg, sql, n, params, rows, doing, state, err);
}

int qr__mem_pg_begin_write(qr_mem *m, qr_buf *err)
{
    if (m->user_tx)
        return qr__mem_pg_unsupported(m, "a caller's transaction (qr_mem_begin)", err);
    return exec(m, "BEGIN", 0, NULL, NULL, "write the memory store", NULL, err);
}

int qr__mem_pg_commit_write(qr_mem *m, qr_buf *err)
{
    int rc = exec(m,
                  "UPDATE mem_state SET generation = generation + 1,"
                  " write_id = floor(random() * 9.2e18)::bigint",
                  0, NULL, NULL, "write the memory store", NULL, err);
    if (rc == QR_OK)
        rc = exec(m, "COMMIT", 0, NULL, NULL, "commit to the memory store", NULL, err);
    if (rc != QR_OK)
        qr__mem_pg_rollback(m);
    return rc;
}

void qr__mem_pg_rollback(qr_mem *m)
{
    qr_buf ignored;
    qr_buf_init(&ignored);
    exec(m, "ROLLBACK", 0, NULL, NULL, "roll back", NULL, &ignored);
    qr_buf_release(&ignored);
}

static int64_t num(const qr_store_rows *r, int row, int col)
{
    const char *v = qr_store_rows_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

int qr__mem_pg_node_id(qr_mem *m, const char *key, int64_t *id, int64_t *deleted, bool *found,
                       qr_buf *err)
{
    qr_store_rows r;
    const char *p[] = {key};
    int rc = exec(m, "SELECT id, deleted FROM mem_nodes WHERE key = $1", 1, p, &r,
                  "read the memory store", NULL, err);
    if (rc)
        return rc;
    *found = r.n == 1;
    if (*found) {
        *id = num(&r, 0, 0);
        *deleted = num(&r, 0, 1);
    }
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr__mem_pg_node_insert(qr_mem *m, const qr_mem_node *n, const char *type, const char *prov,
                           const char *content, int64_t created, int64_t modified,
                           int64_t *id_out, qr_buf *err)
{
    char weight[40], c[24], mo[24], re[24], us[24], wr[24], del[24], len[24];
    snprintf(weight, sizeof weight, "%.17g", n->weight);
    snprintf(c, sizeof c, "%" PRId64, created);
    snprintf(mo, sizeof mo, "%" PRId64, modified);
    snprintf(re, sizeof re, "%" PRId64, n->retrievals);
    snprintf(us, sizeof us, "%" PRId64, n->uses);
    snprintf(wr, sizeof wr, "%" PRId64, n->wrongs);
    snprintf(del, sizeof del, "%" PRId64, n->deleted);
    snprintf(len, sizeof len, "%zu", strlen(content));
    const char *p[] = {n->key, type, weight, prov, c, mo, re, us, wr,
                       n->deleted ? del : NULL, len, content};
    qr_store_rows r;
    char state[6];
    int rc = exec(m,
                  "INSERT INTO mem_nodes(key, type, weight, provenance, created, modified,"
                  " retrievals, uses, wrongs, deleted, content_len, content) VALUES ($1, $2,"
                  " $3::double precision, $4, $5::bigint, $6::bigint, $7::bigint, $8::bigint,"
                  " $9::bigint, $10::bigint, $11::bigint, $12) RETURNING id",
                  12, p, &r, "write the memory store", state, err);
    if (rc) {
        if (!strcmp(state, "23505")) { /* another agent added the key first */
            err->len = 0;
            qr_buf_printf(err, "node '%s' already exists: change it with 'quarry mem update'",
                          n->key);
            return QR_ERUNTIME;
        }
        return rc;
    }
    int64_t id = num(&r, 0, 0);
    qr_store_rows_free(&r);
    char ids[24];
    snprintf(ids, sizeof ids, "%" PRId64, id);
    for (size_t i = 0; i < n->ntags; i++) {
        const char *tp[] = {ids, n->tags[i]};
        if ((rc = exec(m, "INSERT INTO mem_tags(node, tag) VALUES ($1::bigint, $2)"
                          " ON CONFLICT DO NOTHING",
                       2, tp, NULL, "write the memory store", NULL, err)))
            return rc;
    }
    if (id_out)
        *id_out = id;
    return QR_OK;
}

int qr__mem_pg_edge_put(qr_mem *m, int64_t src, int64_t dst, double strength, const char *type,
                        bool *created, qr_buf *err)
{
    char s[24], d[24], w[40];
    snprintf(s, sizeof s, "%" PRId64, src);
    snprintf(d, sizeof d, "%" PRId64, dst);
    snprintf(w, sizeof w, "%.17g", strength);
    const char *p[] = {s, d, type, w};
    qr_store_rows r;
    /* one statement: a new link, or the new strength of one that exists (xmax is 0 on a
     * row this statement inserted) */
    int rc = exec(m,
                  "INSERT INTO mem_edges(source, target, type, strength)"
                  " VALUES ($1::bigint, $2::bigint, $3, $4::double precision)"
                  " ON CONFLICT (source, target, type) DO UPDATE SET strength = excluded.strength"
                  " RETURNING xmax = 0",
                  4, p, &r, "write the memory store", NULL, err);
    if (rc)
        return rc;
    const char *v = qr_store_rows_get(&r, 0, 0);
    if (created)
        *created = v && !strcmp(v, "t");
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr__mem_pg_visit_insert(qr_mem *m, int64_t node, const char *agent, int64_t time,
                            const char *outcome, qr_buf *err)
{
    char n[24], t[24];
    snprintf(n, sizeof n, "%" PRId64, node);
    snprintf(t, sizeof t, "%" PRId64, time);
    const char *p[] = {n, agent, t, outcome};
    return exec(m, "INSERT INTO mem_visits(node, agent, time, outcome)"
                   " VALUES ($1::bigint, $2, $3::bigint, $4)",
                4, p, NULL, "write the memory store", NULL, err);
}

/* ---- export: the lines store_io.c writes, in its order ---- */

static void put_str(qr_buf *b, const char *name, const char *v)
{
    qr_buf_printf(b, ",\"%s\":", name);
    qr_buf_json_string(b, v ? v : "", v ? strlen(v) : 0);
}

static void put_time(qr_buf *b, const char *name, int64_t t)
{
    char iso[QR_DATE_ISO_LEN];
    qr__mem_format_time(t, iso, sizeof iso);
    qr_buf_printf(b, ",\"%s\":\"%s\"", name, iso);
}

static void put_double(qr_buf *b, const char *name, const char *v)
{
    qr_buf_printf(b, ",\"%s\":", name);
    qr_print_double(b, v ? strtod(v, NULL) : 0);
}

static int export_all(qr_mem *m, FILE *out, qr_buf *b, qr_mem_counts *c, qr_buf *err)
{
    qr_store_rows nodes, tags, edges, visits;
    int rc;
    if ((rc = exec(m,
                   "SELECT key, type, weight, provenance, created, modified, retrievals,"
                   " uses, wrongs, deleted, content FROM mem_nodes ORDER BY key COLLATE \"C\"",
                   0, NULL, &nodes, "read the memory store", NULL, err)))
        return rc;
    if ((rc = exec(m,
                   "SELECT n.key, g.tag FROM mem_tags g JOIN mem_nodes n ON n.id = g.node"
                   " ORDER BY n.key COLLATE \"C\", g.tag COLLATE \"C\"",
                   0, NULL, &tags, "read the memory store", NULL, err))) {
        qr_store_rows_free(&nodes);
        return rc;
    }
    int t = 0;
    for (int i = 0; i < nodes.n && rc == QR_OK; i++) {
        const char *key = qr_store_rows_get(&nodes, i, 0);
        qr_buf_puts(b, "{\"kind\":\"node\"");
        put_str(b, "key", key);
        put_str(b, "type", qr_store_rows_get(&nodes, i, 1));
        put_double(b, "weight", qr_store_rows_get(&nodes, i, 2));
        put_str(b, "provenance", qr_store_rows_get(&nodes, i, 3));
        put_time(b, "created", num(&nodes, i, 4));
        put_time(b, "modified", num(&nodes, i, 5));
        qr_buf_printf(b, ",\"retrievals\":%lld,\"uses\":%lld,\"wrongs\":%lld,\"tags\":[",
                      (long long)num(&nodes, i, 6), (long long)num(&nodes, i, 7),
                      (long long)num(&nodes, i, 8));
        for (int k = 0; t < tags.n && !strcmp(qr_store_rows_get(&tags, t, 0), key); t++, k++) {
            if (k)
                qr_buf_putc(b, ',');
            const char *tag = qr_store_rows_get(&tags, t, 1);
            qr_buf_json_string(b, tag, strlen(tag));
        }
        qr_buf_putc(b, ']');
        if (qr_store_rows_get(&nodes, i, 9))
            put_time(b, "deleted", num(&nodes, i, 9));
        put_str(b, "content", qr_store_rows_get(&nodes, i, 10));
        qr_buf_putc(b, '}');
        if ((rc = qr__mem_export_line(b, out, err)) == QR_OK)
            c->nodes++;
    }
    qr_store_rows_free(&nodes);
    qr_store_rows_free(&tags);
    if (rc)
        return rc;
    if ((rc = exec(m,
                   "SELECT s.key, t.key, e.type, e.strength FROM mem_edges e"
                   " JOIN mem_nodes s ON s.id = e.source JOIN mem_nodes t ON t.id = e.target"
                   " ORDER BY s.key COLLATE \"C\", t.key COLLATE \"C\", e.type COLLATE \"C\"",
                   0, NULL, &edges, "read the memory store", NULL, err)))
        return rc;
    for (int i = 0; i < edges.n && rc == QR_OK; i++) {
        qr_buf_puts(b, "{\"kind\":\"edge\"");
        put_str(b, "source", qr_store_rows_get(&edges, i, 0));
        put_str(b, "target", qr_store_rows_get(&edges, i, 1));
        put_str(b, "type", qr_store_rows_get(&edges, i, 2));
        put_double(b, "strength", qr_store_rows_get(&edges, i, 3));
        qr_buf_putc(b, '}');
        if ((rc = qr__mem_export_line(b, out, err)) == QR_OK)
            c->edges++;
    }
    qr_store_rows_free(&edges);
    if (rc)
        return rc;
    if ((rc = exec(m,
                   "SELECT n.key, v.agent, v.time, v.outcome FROM mem_visits v"
                   " JOIN mem_nodes n ON n.id = v.node ORDER BY v.time, n.key COLLATE \"C\","
                   " v.agent COLLATE \"C\", v.outcome COLLATE \"C\"",
                   0, NULL, &visits, "read the memory store", NULL, err)))
        return rc;
    for (int i = 0; i < visits.n && rc == QR_OK; i++) {
        qr_buf_puts(b, "{\"kind\":\"visit\"");
        put_str(b, "node", qr_store_rows_get(&visits, i, 0));
        put_str(b, "agent", qr_store_rows_get(&visits, i, 1));
        put_time(b, "time", num(&visits, i, 2));
        put_str(b, "outcome", qr_store_rows_get(&visits, i, 3));
        qr_buf_putc(b, '}');
        if ((rc = qr__mem_export_line(b, out, err)) == QR_OK)
            c->visits++;
    }
    qr_store_rows_free(&visits);
    return rc;
}

int qr__mem_pg_export(qr_mem *m, FILE *out, qr_mem_counts *counts, qr_buf *err)
{
    qr_mem_counts c = {0, 0, 0};
    int rc = exec(m, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL, NULL,
                  "read the memory store", NULL, err);
    if (rc)
        return rc;
    qr_buf b;
    qr_buf_init(&b);
    rc = export_all(m, out, &b, &c, err);
    qr_buf_release(&b);
    if (rc == QR_OK && fflush(out) != 0) {
        qr_buf_printf(err, "cannot write the export: %s", strerror(errno));
        rc = QR_EIO;
    }
    if (rc) {
        qr__mem_pg_rollback(m);
        return rc;
    }
    if (counts)
        *counts = c;
    return exec(m, "COMMIT", 0, NULL, NULL, "read the memory store", NULL, err);
}

int qr__mem_pg_stats(qr_mem *m, qr_arena *a, qr_mem_stats *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    qr_store_rows r;
    int rc = exec(m,
                  "SELECT (SELECT count(*) FROM mem_nodes WHERE deleted IS NULL),"
                  " (SELECT count(*) FROM mem_nodes WHERE deleted IS NOT NULL),"
                  " (SELECT count(*) FROM mem_edges e JOIN mem_nodes s ON s.id = e.source"
                  "  JOIN mem_nodes t ON t.id = e.target"
                  "  WHERE s.deleted IS NULL AND t.deleted IS NULL),"
                  " (SELECT count(*) FROM mem_edges),"
                  " (SELECT count(*) FROM mem_visits),"
                  " (SELECT count(*) FROM mem_tags g JOIN mem_nodes n ON n.id = g.node"
                  "  WHERE n.deleted IS NULL),"
                  " (SELECT generation FROM mem_state),"
                  " pg_total_relation_size('mem_nodes') + pg_total_relation_size('mem_edges')"
                  " + pg_total_relation_size('mem_tags') + pg_total_relation_size('mem_visits')",
                  0, NULL, &r, "read the memory store", NULL, err);
    if (rc)
        return rc;
    out->nodes = num(&r, 0, 0);
    out->deleted = num(&r, 0, 1);
    out->edges = num(&r, 0, 2);
    out->hidden_edges = num(&r, 0, 3) - out->edges;
    out->visits = num(&r, 0, 4);
    out->tags = num(&r, 0, 5);
    out->generation = (uint64_t)num(&r, 0, 6);
    out->file_bytes = num(&r, 0, 7);
    qr_store_rows_free(&r);
    if ((rc = exec(m,
                   "SELECT type, count(*) FROM mem_nodes WHERE deleted IS NULL"
                   " GROUP BY type ORDER BY type COLLATE \"C\"",
                   0, NULL, &r, "read the memory store", NULL, err)))
        return rc;
    if (r.n) {
        out->types = qr_arena_alloc(a, (size_t)r.n * sizeof *out->types);
        if (!out->types) {
            qr_store_rows_free(&r);
            qr_buf_puts(err, "out of memory");
            return QR_ENOMEM;
        }
        for (int i = 0; i < r.n; i++) {
            const char *t = qr_store_rows_get(&r, i, 0);
            out->types[i].type = qr_arena_strndup(a, t, strlen(t));
            out->types[i].count = num(&r, i, 1);
        }
        out->ntypes = (size_t)r.n;
    }
    qr_store_rows_free(&r);
    return QR_OK;
}
