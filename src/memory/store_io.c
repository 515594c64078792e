/*
 * store_io.c: import and export of a memory store as JSON lines (format in memory.h).
 *
 * Design. Export runs in one read transaction and writes nodes by key, edges by
 * (source, target, type) and visits by (time, node, agent, outcome), every field always
 * present (deleted only when set) in a fixed order, doubles in their shortest round-trip
 * form and times as ISO-8601 UTC: so export -> import into an empty store -> export gives
 * the same bytes. Import parses each line with the value layer's JSON reader (into an
 * arena rewound after every line), checks kinds, field names and types itself, and writes
 * everything inside one BEGIN IMMEDIATE transaction that is rolled back on the first bad
 * line: the store either has the whole file or none of it (a process killed mid-import
 * leaves an uncommitted WAL tail that SQLite discards).
 *
 * Rejected: a streaming multi-transaction import (a half-imported file is harder to
 * repair than a rejected one); silently merging into existing keys (an import that meets
 * a key already in the store is an error, so a backup is never mixed into live data by
 * accident); forward references (an edge must come after both its nodes, as export writes
 * them, so one pass suffices and the error names the line).
 *
 * Both backends run this one code (the statements through store_sql.c's seam, PostgreSQL's
 * ordered with COLLATE "C" so that its order is SQLite's bytes whatever the database's
 * collation): a store moves from SQLite to PostgreSQL and back with the same bytes. A
 * node's tags come from one tags query ordered like the nodes and walked beside them,
 * rather than a query per node (a round trip each on a server).
 */
#include "memory_int.h"

#include "quarry/date.h"
#include "quarry/value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- export ---- */

static void put_time(qr_buf *b, const char *name, int64_t t)
{
    char iso[QR_DATE_ISO_LEN];
    qr__mem_format_time(t, iso, sizeof iso);
    qr_buf_printf(b, ",\"%s\":\"%s\"", name, iso);
}

static void put_str(qr_buf *b, const char *name, const qr__mem_q *q, int c)
{
    size_t n;
    const char *p = qr__mem_q_col_text(q, c, &n);
    qr_buf_printf(b, ",\"%s\":", name);
    qr_buf_json_string(b, p, n);
}

int qr__mem_export_line(qr_buf *b, FILE *out, qr_buf *err)
{
    if (b->failed) {
        qr_buf_puts(err, "out of memory exporting the memory store");
        return QR_ENOMEM;
    }
    qr_buf_putc(b, '\n');
    if (fwrite(b->p, 1, b->len, out) != b->len) {
        qr_buf_printf(err, "cannot write the export: %s", strerror(errno));
        return QR_EIO;
    }
    qr_buf_reset(b);
    return QR_OK;
}

/* Writes one row of an export query as a line (a node also takes its tags from the tags
 * query, stepping it past them). */
typedef void (*put_row_fn)(qr_buf *b, const qr__mem_q *q, qr__mem_q *tags, bool *tags_row);

/* A node, with its tags from the tags query (ordered by the same key, then tag). */
static void put_node(qr_buf *b, const qr__mem_q *q, qr__mem_q *tags, bool *trow)
{
    size_t klen;
    const char *key = qr__mem_q_col_text(q, 0, &klen);
    qr_buf_puts(b, "{\"kind\":\"node\"");
    put_str(b, "key", q, 0);
    put_str(b, "type", q, 1);
    qr_buf_puts(b, ",\"weight\":");
    qr_print_double(b, qr__mem_q_col_double(q, 2));
    put_str(b, "provenance", q, 3);
    put_time(b, "created", qr__mem_q_col_int(q, 4));
    put_time(b, "modified", qr__mem_q_col_int(q, 5));
    qr_buf_printf(b, ",\"retrievals\":%lld,\"uses\":%lld,\"wrongs\":%lld,\"tags\":[",
                  (long long)qr__mem_q_col_int(q, 6), (long long)qr__mem_q_col_int(q, 7),
                  (long long)qr__mem_q_col_int(q, 8));
    for (int k = 0; *trow; k++) {
        size_t tn;
        const char *tkey = qr__mem_q_col_text(tags, 0, &tn);
        if (tn != klen || memcmp(tkey, key, klen))
            break;
        if (k)
            qr_buf_putc(b, ',');
        size_t tl;
        const char *tag = qr__mem_q_col_text(tags, 1, &tl);
        qr_buf_json_string(b, tag, tl);
        if (qr__mem_q_step(tags, trow, "read", NULL) != QR_OK)
            *trow = false;
    }
    qr_buf_putc(b, ']');
    if (!qr__mem_q_col_null(q, 9))
        put_time(b, "deleted", qr__mem_q_col_int(q, 9));
    put_str(b, "content", q, 10);
    qr_buf_putc(b, '}');
}

static void put_edge(qr_buf *b, const qr__mem_q *q, qr__mem_q *tags, bool *trow)
{
    (void)tags, (void)trow;
    qr_buf_puts(b, "{\"kind\":\"edge\"");
    put_str(b, "source", q, 0);
    put_str(b, "target", q, 1);
    put_str(b, "type", q, 2);
    qr_buf_puts(b, ",\"strength\":");
    qr_print_double(b, qr__mem_q_col_double(q, 3));
    qr_buf_putc(b, '}');
}

static void put_visit(qr_buf *b, const qr__mem_q *q, qr__mem_q *tags, bool *trow)
{
    (void)tags, (void)trow;
    qr_buf_puts(b, "{\"kind\":\"visit\"");
    put_str(b, "node", q, 0);
    put_str(b, "agent", q, 1);
    put_time(b, "time", qr__mem_q_col_int(q, 2));
    put_str(b, "outcome", q, 3);
    qr_buf_putc(b, '}');
}

/* Runs one export query (SQLite's text, PostgreSQL's: bytes order, COLLATE "C") and
 * writes each row as a line with put; *count gets the lines. */
static int export_rows(qr_mem *m, const char *lite, const char *pg, put_row_fn put,
                       qr__mem_q *tags, bool *trow, FILE *out, qr_buf *b, int64_t *count,
                       qr_buf *err)
{
    qr__mem_q q;
    int rc = qr__mem_q_open(&q, m, -1, lite, pg, err);
    bool row = false;
    while (rc == QR_OK && (rc = qr__mem_q_step(&q, &row, "read", err)) == QR_OK && row) {
        put(b, &q, tags, trow);
        if ((rc = qr__mem_export_line(b, out, err)) == QR_OK)
            (*count)++;
    }
    qr__mem_q_close(&q);
    return rc;
}

static int export_all(qr_mem *m, FILE *out, qr_buf *b, qr_mem_counts *c, qr_buf *err)
{
    qr__mem_q tags;
    bool trow = false;
    int rc = qr__mem_q_open(&tags, m, -1,
                            "SELECT n.key, g.tag FROM tags g JOIN nodes n ON n.id = g.node"
                            " ORDER BY n.key, g.tag",
                            "SELECT n.key, g.tag FROM mem_tags g JOIN mem_nodes n ON n.id = g.node"
                            " ORDER BY n.key COLLATE \"C\", g.tag COLLATE \"C\"",
                            err);
    if (rc == QR_OK)
        rc = qr__mem_q_step(&tags, &trow, "read", err);
    if (rc == QR_OK)
        rc = export_rows(m,
                         "SELECT key, type, weight, provenance, created, modified, retrievals,"
                         " uses, wrongs, deleted, content FROM nodes ORDER BY key",
                         "SELECT key, type, weight, provenance, created, modified, retrievals,"
                         " uses, wrongs, deleted, content FROM mem_nodes"
                         " ORDER BY key COLLATE \"C\"",
                         put_node, &tags, &trow, out, b, &c->nodes, err);
    qr__mem_q_close(&tags);
    if (rc == QR_OK)
        rc = export_rows(m,
                         "SELECT s.key, t.key, e.type, e.strength FROM edges e"
                         " JOIN nodes s ON s.id = e.source JOIN nodes t ON t.id = e.target"
                         " ORDER BY s.key, t.key, e.type",
                         "SELECT s.key, t.key, e.type, e.strength FROM mem_edges e"
                         " JOIN mem_nodes s ON s.id = e.source JOIN mem_nodes t ON t.id = e.target"
                         " ORDER BY s.key COLLATE \"C\", t.key COLLATE \"C\", e.type COLLATE \"C\"",
                         put_edge, NULL, NULL, out, b, &c->edges, err);
    if (rc == QR_OK)
        rc = export_rows(m,
                         "SELECT n.key, v.agent, v.time, v.outcome FROM visits v"
                         " JOIN nodes n ON n.id = v.node"
                         " ORDER BY v.time, n.key, v.agent, v.outcome",
                         "SELECT n.key, v.agent, v.time, v.outcome FROM mem_visits v"
                         " JOIN mem_nodes n ON n.id = v.node ORDER BY v.time, n.key COLLATE \"C\","
                         " v.agent COLLATE \"C\", v.outcome COLLATE \"C\"",
                         put_visit, NULL, NULL, out, b, &c->visits, err);
    return rc;
}

int qr_mem_export(qr_mem *m, FILE *out, qr_mem_counts *counts, qr_buf *err)
{
    qr_mem_counts c = {0, 0, 0};
    int rc = qr__mem_begin_read(m, err);
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
        qr__mem_rollback(m);
        return rc;
    }
    if (counts)
        *counts = c;
    return qr__mem_commit_read(m, err);
}

/* ---- import ---- */

/* The ids of the notes this import added, by key: an edge or a visit names its notes by
 * key, and an export writes them after the notes, so most look-ups are of keys just
 * inserted; on a server each look-up saved is a round trip (two per edge). Keys that
 * were in the store before the import are looked up there. Open addressing, keys in
 * their own arena (the line arena is rewound after each line). */
typedef struct key_ids {
    qr_arena keys;
    const char **key;
    int64_t *id;
    size_t n, cap; /* cap a power of two, at most half full */
} key_ids;

static void key_ids_put(key_ids *k, const char *key, int64_t id)
{
    if ((k->n + 1) * 2 > k->cap) {
        size_t ncap = k->cap ? k->cap * 2 : 1024;
        const char **nk = calloc(ncap, sizeof *nk);
        int64_t *ni = malloc(ncap * sizeof *ni);
        if (!nk || !ni) { /* only a cache: a look-up in the store does the same */
            free(nk);
            free(ni);
            return;
        }
        for (size_t i = 0; i < k->cap; i++) {
            if (!k->key[i])
                continue;
            size_t j = qr_hash_bytes(k->key[i], strlen(k->key[i])) & (ncap - 1);
            while (nk[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = k->key[i];
            ni[j] = k->id[i];
        }
        free(k->key);
        free(k->id);
        k->key = nk;
        k->id = ni;
        k->cap = ncap;
    }
    size_t len = strlen(key);
    const char *copy = qr_arena_strndup(&k->keys, key, len);
    if (!copy)
        return;
    size_t j = qr_hash_bytes(key, len) & (k->cap - 1);
    while (k->key[j])
        j = (j + 1) & (k->cap - 1);
    k->key[j] = copy;
    k->id[j] = id;
    k->n++;
}

static bool key_ids_get(const key_ids *k, const char *key, int64_t *id)
{
    if (!k->cap)
        return false;
    size_t j = qr_hash_bytes(key, strlen(key)) & (k->cap - 1);
    for (; k->key[j]; j = (j + 1) & (k->cap - 1))
        if (!strcmp(k->key[j], key)) {
            *id = k->id[j];
            return true;
        }
    return false;
}

typedef struct line_ctx {
    qr_mem *m;
    qr_arena *a;
    qr_val obj;
    qr_buf *msg; /* the line's error, without the "line N: " prefix */
    key_ids ids; /* the notes this import added */
} line_ctx;

/* A note named by an edge or a visit: added by this import, or already in the store. */
static int node_id(line_ctx *c, const char *key, int64_t *id)
{
    if (key_ids_get(&c->ids, key, id))
        return QR_OK;
    return qr__mem_node_id(c->m, key, true, false, id, NULL, c->msg);
}

static const char *field_name(qr_val k, size_t *n)
{
    if (k.t == QR_T_KW)
        return qr_sym_name(k.sym, n);
    if (k.t == QR_T_STR) {
        *n = k.s->len;
        return k.s->data;
    }
    *n = 0;
    return "";
}

static bool field(line_ctx *c, const char *name, qr_val *out)
{
    return qr_map_lookup(c->obj, qr_kw_cstr(c->a, name), out);
}

/* A string field (NULL when absent); false after an error. */
static bool get_str(line_ctx *c, const char *name, bool required, const char **out)
{
    qr_val v;
    *out = NULL;
    if (!field(c, name, &v)) {
        if (required)
            qr_buf_printf(c->msg, "missing field \"%s\"", name);
        return !required;
    }
    if (v.t != QR_T_STR) {
        qr_buf_printf(c->msg, "field \"%s\" must be a string, not ", name);
        qr_describe(c->msg, v);
        return false;
    }
    if (strlen(v.s->data) != v.s->len) {
        qr_buf_printf(c->msg, "field \"%s\" holds a NUL character", name);
        return false;
    }
    *out = v.s->data;
    return true;
}

static bool get_num(line_ctx *c, const char *name, double *out)
{
    qr_val v;
    if (!field(c, name, &v))
        return true;
    if (!qr_is_number(v)) {
        qr_buf_printf(c->msg, "field \"%s\" must be a number, not ", name);
        qr_describe(c->msg, v);
        return false;
    }
    *out = qr_to_double(v);
    return true;
}

static bool get_count(line_ctx *c, const char *name, int64_t *out)
{
    qr_val v;
    if (!field(c, name, &v))
        return true;
    if (v.t != QR_T_INT || v.i < 0) {
        qr_buf_printf(c->msg, "field \"%s\" must be an integer of 0 or more, not ", name);
        qr_describe(c->msg, v);
        return false;
    }
    *out = v.i;
    return true;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* "2026-11-20T10:00:00Z" or with an offset (+01:00), or unix seconds as an integer. */
static bool get_time(line_ctx *c, const char *name, bool required, int64_t *out)
{
    qr_val v;
    if (!field(c, name, &v)) {
        if (required)
            qr_buf_printf(c->msg, "missing field \"%s\"", name);
        return !required;
    }
    if (v.t == QR_T_INT && v.i > 0) {
        *out = v.i;
        return true;
    }
    if (v.t == QR_T_STR) {
        const char *s = v.s->data;
        size_t n = v.s->len;
        bool shape = n >= 20 && digits(s, 4) && s[4] == '-' && digits(s + 5, 2) &&
                     s[7] == '-' && digits(s + 8, 2) && s[10] == 'T' && digits(s + 11, 2) &&
                     s[13] == ':' && digits(s + 14, 2) && s[16] == ':' && digits(s + 17, 2);
        /* fractional seconds, as Python's isoformat() and JavaScript write them (kept to
         * the second: the store's times are whole seconds) */
        size_t k = 19;
        if (shape && k < n && s[k] == '.') {
            size_t d0 = ++k;
            while (k < n && k - d0 < 9 && s[k] >= '0' && s[k] <= '9')
                k++;
            shape = k > d0;
        }
        shape = shape && ((n - k == 1 && s[k] == 'Z') ||
                          (n - k == 6 && (s[k] == '+' || s[k] == '-') && digits(s + k + 1, 2) &&
                           s[k + 3] == ':' && digits(s + k + 4, 2)));
        int64_t t;
        if (shape && qr_date_parse(s, n, 0, 0, &t, NULL, 0) == QR_OK && t > 0) {
            *out = t;
            return true;
        }
    }
    qr_buf_printf(c->msg,
                  "field \"%s\" must be an ISO-8601 time with a zone such as "
                  "\"2026-11-20T10:00:00Z\" (or unix seconds), not ",
                  name);
    qr_describe(c->msg, v);
    return false;
}

static bool check_fields(line_ctx *c, const char *const *allowed)
{
    for (size_t i = 0; i < qr_map_len(c->obj); i++) {
        size_t n;
        const char *k = field_name(qr_map_key_at(c->obj, i), &n);
        bool ok = false;
        for (const char *const *f = allowed; *f && !ok; f++)
            ok = strlen(*f) == n && !memcmp(*f, k, n);
        if (!ok) {
            qr_buf_puts(c->msg, "unknown field ");
            qr_buf_json_string(c->msg, k, n);
            qr_buf_puts(c->msg, ": expected one of");
            for (const char *const *f = allowed; *f; f++)
                qr_buf_printf(c->msg, "%s\"%s\"", f == allowed ? " " : ", ", *f);
            return false;
        }
    }
    return true;
}

/* Maps a store error on this line to the line's message: not-found and exists are bad
 * input here (QR_EINVAL); I/O and memory errors pass through. */
static int line_error(int rc)
{
    return rc == QR_ERUNTIME ? QR_EINVAL : rc;
}

static int import_node(line_ctx *c, qr_mem_counts *counts)
{
    static const char *const allowed[] = {"kind", "key", "content", "type", "weight",
                                          "provenance", "created", "modified", "retrievals",
                                          "uses", "wrongs", "tags", "deleted", NULL};
    qr_mem_node n;
    memset(&n, 0, sizeof n);
    n.weight = 0.5;
    if (!check_fields(c, allowed) || !get_str(c, "key", true, &n.key) ||
        !get_str(c, "content", false, &n.content) || !get_str(c, "type", false, &n.type) ||
        !get_num(c, "weight", &n.weight) || !get_str(c, "provenance", false, &n.provenance) ||
        !get_time(c, "created", false, &n.created) ||
        !get_time(c, "modified", false, &n.modified) ||
        !get_time(c, "deleted", false, &n.deleted) ||
        !get_count(c, "retrievals", &n.retrievals) || !get_count(c, "uses", &n.uses) ||
        !get_count(c, "wrongs", &n.wrongs))
        return QR_EINVAL;
    qr_val tags;
    if (field(c, "tags", &tags)) {
        if (tags.t != QR_T_VEC) {
            qr_buf_puts(c->msg, "field \"tags\" must be an array of strings, not ");
            qr_describe(c->msg, tags);
            return QR_EINVAL;
        }
        size_t nt = qr_vec_len(tags);
        const char **tv = qr_arena_alloc(c->a, (nt ? nt : 1) * sizeof *tv);
        if (!tv)
            return QR_ENOMEM;
        for (size_t i = 0; i < nt; i++) {
            qr_val t = qr_vec_at(tags, i);
            if (t.t != QR_T_STR || strlen(t.s->data) != t.s->len) {
                qr_buf_puts(c->msg, "field \"tags\" must be an array of strings; it holds ");
                qr_describe(c->msg, t);
                return QR_EINVAL;
            }
            tv[i] = t.s->data;
        }
        n.tags = tv;
        n.ntags = nt;
    }
    int64_t id = 0;
    int rc = qr__mem_node_insert(c->m, &n, &id, c->msg);
    if (rc == QR_OK) {
        counts->nodes++;
        key_ids_put(&c->ids, n.key, id);
    }
    return line_error(rc);
}

static int import_edge(line_ctx *c, qr_mem_counts *counts)
{
    static const char *const allowed[] = {"kind", "source", "target", "type", "strength", NULL};
    const char *src, *dst, *type;
    double strength = 0.5;
    if (!check_fields(c, allowed) || !get_str(c, "source", true, &src) ||
        !get_str(c, "target", true, &dst) || !get_str(c, "type", false, &type) ||
        !get_num(c, "strength", &strength))
        return QR_EINVAL;
    if (!type)
        type = "related";
    if (!strcmp(src, dst)) {
        qr_buf_printf(c->msg, "a link from '%s' to itself: links join two different nodes", src);
        return QR_EINVAL;
    }
    int64_t s, t;
    int rc;
    if ((rc = node_id(c, src, &s)) || (rc = node_id(c, dst, &t)))
        return line_error(rc);
    bool created = false;
    if ((rc = qr__mem_edge_put(c->m, s, t, strength, type, &created, c->msg)))
        return line_error(rc);
    if (!created) {
        qr_buf_printf(c->msg, "the '%s' link from '%s' to '%s' appears twice", type, src, dst);
        return QR_EINVAL;
    }
    counts->edges++;
    return QR_OK;
}

static int import_visit(line_ctx *c, qr_mem_counts *counts)
{
    static const char *const allowed[] = {"kind", "node", "agent", "time", "outcome", NULL};
    const char *key, *agent, *outcome;
    int64_t time = 0, id;
    if (!check_fields(c, allowed) || !get_str(c, "node", true, &key) ||
        !get_str(c, "agent", true, &agent) || !get_time(c, "time", true, &time) ||
        !get_str(c, "outcome", false, &outcome))
        return QR_EINVAL;
    int rc = node_id(c, key, &id);
    if (rc == QR_OK)
        rc = qr__mem_visit_insert(c->m, id, agent, time, outcome ? outcome : "", c->msg);
    if (rc == QR_OK)
        counts->visits++;
    return line_error(rc);
}

static int import_line(line_ctx *c, const char *s, size_t n, qr_mem_counts *counts)
{
    qr_read_error re;
    int rc = qr_json_read(c->a, s, n, &c->obj, &re);
    if (rc == QR_ENOMEM)
        return rc;
    if (rc != QR_OK) {
        qr_buf_printf(c->msg, "bad JSON at column %u: %s", re.col, re.msg);
        return QR_EINVAL;
    }
    if (c->obj.t != QR_T_MAP) {
        qr_buf_puts(c->msg, "expected a JSON object (a node, edge or visit), not ");
        qr_describe(c->msg, c->obj);
        return QR_EINVAL;
    }
    const char *kind = NULL;
    qr_val tmp;
    if (!get_str(c, "kind", false, &kind))
        return QR_EINVAL;
    if (!kind)
        kind = field(c, "key", &tmp)      ? "node"
               : field(c, "source", &tmp) ? "edge"
               : field(c, "agent", &tmp)  ? "visit"
                                          : NULL;
    if (!kind) {
        qr_buf_puts(c->msg, "cannot tell what this line is: give \"kind\" (node, edge or visit), "
                            "or \"key\", \"source\" or \"agent\"");
        return QR_EINVAL;
    }
    if (!strcmp(kind, "node"))
        return import_node(c, counts);
    if (!strcmp(kind, "edge"))
        return import_edge(c, counts);
    if (!strcmp(kind, "visit"))
        return import_visit(c, counts);
    qr_buf_printf(c->msg, "unknown kind '%s': expected node, edge or visit", kind);
    return QR_EINVAL;
}

int qr_mem_import(qr_mem *m, const char *text, size_t len, qr_mem_counts *counts, qr_buf *err)
{
    qr_mem_counts c = {0, 0, 0};
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_arena_mark mark = qr_arena_get_mark(&a);
    qr_buf msg;
    qr_buf_init(&msg);
    line_ctx lc = {.m = m, .a = &a, .msg = &msg};
    qr_arena_init(&lc.ids.keys, 0);
    size_t lineno = 0;
    for (size_t pos = 0; pos < len && rc == QR_OK;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *s = text + pos;
        size_t n = end - pos;
        pos = end + 1;
        lineno++;
        if (n && s[n - 1] == '\r')
            n--;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k == n)
            continue;
        rc = import_line(&lc, s, n, &c);
        if (rc == QR_ENOMEM && !msg.len)
            qr_buf_puts(&msg, "out of memory");
        if (rc)
            qr_buf_printf(err, "line %zu: %s", lineno, msg.p ? msg.p : "cannot import");
        qr_arena_rewind(&a, mark);
    }
    qr_arena_release(&a);
    qr_arena_release(&lc.ids.keys);
    free(lc.ids.key);
    free(lc.ids.id);
    qr_buf_release(&msg);
    if (rc) {
        qr__mem_rollback(m);
        return rc;
    }
    if ((rc = qr__mem_commit_write(m, err)))
        return rc;
    if (counts)
        *counts = c;
    return QR_OK;
}
