/*
 * store_snapshot.c: the read-only in-memory snapshot of a memory store (memory.h) that the
 * pipeline filters, sorts and graph algorithms run on.
 *
 * Design. One read transaction reads the generation, then four scans: live nodes by id
 * (every column but content, which is last in the row so its pages are never read; its
 * length is a column), tags by (node, tag) (the primary key order, so each node's tags
 * arrive together and sorted), edges (source, target, strength) and the last visit per
 * (agent, node) from the (agent, node, time) index. Arrays are malloc'd, strings go to one
 * arena. Types, provenances, tags and agents are interned (an open-addressing table per
 * kind) and then renumbered in sorted order, so an index compares like its string.
 * On PostgreSQL the same scans run through the statement seam (store_sql.c) with their
 * order spelled out (ORDER BY, COLLATE "C" where SQLite's order is its bytes), in one
 * REPEATABLE READ transaction; there is no STORE.snapshot file (a server has no path).
 *
 * The CSR graph is built without sorting: the directed entries (each edge both ways,
 * self-loops and edges touching a deleted node dropped) are bucketed by source into a
 * first CSR, which is then transposed; as the graph is symmetric, the transpose is the
 * same graph with every neighbour list in ascending order, and parallel edges (several
 * types, or both directions) are then adjacent and merged by max strength in one pass.
 * O(nodes + edges) time, two passes over 2E entries.
 *
 * Visits: per agent, an open-addressing hash from dense node index to the last visit time,
 * sized to twice its entries: memory is proportional to the visits, not agents x nodes.
 *
 * Store ids map to dense indexes through a plain array when they are dense (rowids
 * usually are, and the first is not negative), else through a hash. Measured with
 * `test_memory --bench` (100,000 nodes, 1,000,000 random edges, Release, 2 shared cores):
 * 0.22 to 0.27 s per load, about a third of it SQLite stepping the edge rows; with the id
 * hash instead of the array it was 0.4 to 0.7 s. Checking an unchanged generation: 15 to
 * 100 us.
 *
 * STORE.snapshot (store_snapfile.c): a handle's first load tries that file (same
 * generation and write id, every check passed: 12 ms for the store above); a load from
 * SQL rewrites it. The key and id lookups are built by one function for both paths.
 *
 * Rejected: ORDER BY in SQL for the adjacency (a temp B-tree over 2M rows is slower than
 * two counting passes); one array per agent of n times (agents x nodes memory); sorting
 * nodes by key for the dense index (id order is the table's order: no sort, and stable
 * across reloads for the nodes that stay).
 */
#include "memory_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef qr__snap_priv snap_priv;

static void *block(snap_priv *p, size_t n, size_t size, bool zero)
{
    size_t bytes;
    if (!qr_size_mul(n ? n : 1, size, &bytes) || p->nblocks == (int)(sizeof p->blocks /
                                                                      sizeof p->blocks[0]))
        return NULL;
    void *b = zero ? calloc(1, bytes) : malloc(bytes);
    if (b)
        p->blocks[p->nblocks++] = b;
    return b;
}

void *qr__mem_snapshot_block(qr_mem_snapshot *s, size_t n, size_t size, bool zero)
{
    return block(s->priv, n, size, zero);
}

bool qr__mem_snapshot_adopt(qr_mem_snapshot *s, void *b)
{
    snap_priv *p = s->priv;
    if (p->nblocks == (int)(sizeof p->blocks / sizeof p->blocks[0])) {
        free(b);
        return false;
    }
    p->blocks[p->nblocks++] = b;
    return true;
}

qr_mem_snapshot *qr__mem_snapshot_new(void)
{
    qr_mem_snapshot *s = calloc(1, sizeof *s);
    snap_priv *p = calloc(1, sizeof *p);
    if (!s || !p) {
        free(s);
        free(p);
        return NULL;
    }
    qr_arena_init(&p->strings, 0);
    s->priv = p;
    s->refs = 1;
    return s;
}

void qr__mem_snapshot_free(qr_mem_snapshot *s)
{
    if (!s)
        return;
    snap_priv *p = s->priv;
    if (p) {
        if (p->maps && !p->maps_borrowed)
            for (uint32_t i = 0; i < s->nagents; i++) {
                free(p->maps[i].node);
                free(p->maps[i].time);
            }
        for (int i = 0; i < p->nblocks; i++)
            free(p->blocks[i]);
        qr_arena_release(&p->strings);
        if (p->map)
            munmap(p->map, p->map_len);
        free(p);
    }
    free(s);
}

void qr_mem_snapshot_release(const qr_mem_snapshot *cs)
{
    qr_mem_snapshot *s = (qr_mem_snapshot *)cs;
    if (s && --s->refs == 0)
        qr__mem_snapshot_free(s);
}

static uint32_t pow2_at_least(size_t n)
{
    uint32_t c = 16;
    while (c < n * 2 && c < (1u << 31))
        c <<= 1;
    return c;
}

static uint64_t id_hash(int64_t id)
{
    return qr_hash_mix((uint64_t)id);
}

/* ---- interning ---- */

typedef struct interner {
    qr_arena *a;
    const char **names; /* by first-seen number */
    uint32_t n, cap;
    uint32_t *slots;    /* number + 1 */
    uint32_t mask;
    uint32_t *rank;     /* number -> sorted position, after finish */
} interner;

static void interner_free(interner *in)
{
    free(in->names);
    free(in->slots);
    free(in->rank);
}

/* Returns the number of s[0..len), or UINT32_MAX when out of memory. */
static uint32_t intern(interner *in, const char *s, size_t len)
{
    if (in->n * 2 >= in->mask) {
        uint32_t nmask = in->mask ? in->mask * 2 + 1 : 63;
        uint32_t *ns = calloc((size_t)nmask + 1, sizeof *ns);
        if (!ns)
            return UINT32_MAX;
        for (uint32_t i = 0; i < in->n; i++) {
            uint64_t h = qr_hash_bytes(in->names[i], strlen(in->names[i]));
            uint32_t j = (uint32_t)h & nmask;
            while (ns[j])
                j = (j + 1) & nmask;
            ns[j] = i + 1;
        }
        free(in->slots);
        in->slots = ns;
        in->mask = nmask;
    }
    uint64_t h = qr_hash_bytes(s, len);
    uint32_t j = (uint32_t)h & in->mask;
    while (in->slots[j]) {
        const char *o = in->names[in->slots[j] - 1];
        if (strlen(o) == len && !memcmp(o, s, len))
            return in->slots[j] - 1;
        j = (j + 1) & in->mask;
    }
    if (in->n == in->cap) {
        uint32_t ncap = in->cap ? in->cap * 2 : 16;
        const char **nn = realloc(in->names, ncap * sizeof *nn);
        if (!nn)
            return UINT32_MAX;
        in->names = nn;
        in->cap = ncap;
    }
    const char *copy = qr_arena_strndup(in->a, s, len);
    if (!copy)
        return UINT32_MAX;
    in->names[in->n] = copy;
    in->slots[j] = in->n + 1;
    return in->n++;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts the names into a block of p and fills in->rank; false when out of memory. */
static bool intern_finish(interner *in, snap_priv *p, const char *const **sorted)
{
    const char **v = block(p, in->n, sizeof *v, false);
    in->rank = malloc((in->n ? in->n : 1) * sizeof *in->rank);
    if (!v || !in->rank)
        return false;
    if (in->n)
        memcpy(v, in->names, in->n * sizeof *v);
    qsort(v, in->n, sizeof *v, cmp_cstr);
    for (uint32_t r = 0; r < in->n; r++) {
        /* find the number of v[r]: look it up again */
        size_t len = strlen(v[r]);
        uint32_t j = (uint32_t)qr_hash_bytes(v[r], len) & in->mask;
        while (in->names[in->slots[j] - 1] != v[r])
            j = (j + 1) & in->mask;
        in->rank[in->slots[j] - 1] = r;
    }
    *sorted = v;
    return true;
}

/* ---- loading ---- */

typedef struct loader {
    qr_mem *m;
    qr_mem_snapshot *s;
    snap_priv *p;
    qr_buf *err;
    uint32_t cap; /* node arrays' capacity */
} loader;

static int oom(loader *L)
{
    qr_buf_printf(L->err, "out of memory loading a snapshot of memory store '%s'", L->m->path);
    return QR_ENOMEM;
}

static int64_t lookup_id(const qr_mem_snapshot *s, int64_t id)
{
    const snap_priv *p = s->priv;
    if (p->dense)
        return id >= 0 && id < p->dense_n ? p->dense[id] : -1;
    uint32_t j = (uint32_t)id_hash(id) & p->id_mask;
    for (uint32_t v; (v = p->id_slots[j]); j = (j + 1) & p->id_mask)
        if (s->id[v - 1] == id)
            return v - 1;
    return -1;
}

int qr__mem_snapshot_index(qr_mem_snapshot *s)
{
    snap_priv *p = s->priv;
    uint32_t n = s->n;
    p->key_mask = pow2_at_least(n) - 1;
    p->key_slots = block(p, (size_t)p->key_mask + 1, sizeof *p->key_slots, true);
    if (!p->key_slots)
        return QR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)qr_hash_bytes(s->key[i], s->key_len[i]) & p->key_mask;
        while (p->key_slots[j])
            j = (j + 1) & p->key_mask;
        p->key_slots[j] = i + 1;
    }
    /* ids are rowids, usually 1..n with few holes: then a plain array maps them (the
     * edge scan looks up two ids per row; the hash's random probes cost twice as much) */
    const int64_t *id = s->id;
    int64_t max_id = n ? id[n - 1] : 0;
    if ((!n || id[0] >= 0) && max_id < 4 * (int64_t)n + 1024) {
        p->dense_n = max_id + 1;
        p->dense = block(p, (size_t)p->dense_n, sizeof *p->dense, false);
        if (!p->dense)
            return QR_ENOMEM;
        memset(p->dense, 0xff, (size_t)p->dense_n * sizeof *p->dense);
        for (uint32_t k = 0; k < n; k++)
            p->dense[id[k]] = (int32_t)k;
        return QR_OK;
    }
    p->id_mask = p->key_mask;
    p->id_slots = block(p, (size_t)p->id_mask + 1, sizeof *p->id_slots, true);
    if (!p->id_slots)
        return QR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)id_hash(id[i]) & p->id_mask;
        while (p->id_slots[j])
            j = (j + 1) & p->id_mask;
        p->id_slots[j] = i + 1;
    }
    return QR_OK;
}

/* One count(*) through the seam. */
static int count_rows(loader *L, const char *lite, const char *pg, int64_t *count)
{
    qr__mem_q q;
    bool row = false;
    int rc = qr__mem_q_open(&q, L->m, -1, lite, pg, L->err);
    if (rc == QR_OK)
        rc = qr__mem_q_step(&q, &row, "read", L->err);
    *count = row ? qr__mem_q_col_int(&q, 0) : 0;
    qr__mem_q_close(&q);
    return rc;
}

static int load_nodes(loader *L, interner *types, interner *provs, uint16_t **type_num,
                      uint32_t **prov_num)
{
    qr_mem *m = L->m;
    qr_mem_snapshot *s = L->s;
    snap_priv *p = L->p;
    int64_t count = 0;
    int rc = count_rows(L, "SELECT count(*) FROM nodes WHERE deleted IS NULL",
                        "SELECT count(*) FROM mem_nodes WHERE deleted IS NULL", &count);
    if (rc)
        return rc;
    if (count >= (int64_t)UINT32_MAX / 4) {
        qr_buf_printf(L->err, "memory store '%s' has too many nodes for a snapshot", m->path);
        return QR_ELIMIT;
    }
    uint32_t n = (uint32_t)count;
    int64_t *id = block(p, n, sizeof *id, false);
    const char **key = block(p, n, sizeof *key, false);
    uint32_t *key_len = block(p, n, sizeof *key_len, false);
    uint16_t *type = block(p, n, sizeof *type, false);
    double *weight = block(p, n, sizeof *weight, false);
    int64_t *created = block(p, n, sizeof *created, false);
    int64_t *modified = block(p, n, sizeof *modified, false);
    uint32_t *clen = block(p, n, sizeof *clen, false);
    uint32_t *prov = block(p, n, sizeof *prov, false);
    int64_t *retr = block(p, n, sizeof *retr, false);
    int64_t *uses = block(p, n, sizeof *uses, false);
    int64_t *wrongs = block(p, n, sizeof *wrongs, false);
    if (!id || !key || !key_len || !type || !weight || !created || !modified || !clen ||
        !prov || !retr || !uses || !wrongs)
        return oom(L);
    qr__mem_q st;
    bool row = false;
    if ((rc = qr__mem_q_open(&st, m, -1,
                             "SELECT id, key, type, weight, provenance, created, modified,"
                             " retrievals, uses, wrongs, content_len FROM nodes"
                             " WHERE deleted IS NULL ORDER BY id",
                             "SELECT id, key, type, weight, provenance, created, modified,"
                             " retrievals, uses, wrongs, content_len FROM mem_nodes"
                             " WHERE deleted IS NULL ORDER BY id",
                             L->err)))
        return rc;
    uint32_t i = 0;
    while ((rc = qr__mem_q_step(&st, &row, "read", L->err)) == QR_OK && row && i < n) {
        id[i] = qr__mem_q_col_int(&st, 0);
        size_t klen, tlen, plen;
        const char *k = qr__mem_q_col_text(&st, 1, &klen);
        key[i] = qr_arena_strndup(&p->strings, k, klen);
        key_len[i] = (uint32_t)klen;
        const char *tx = qr__mem_q_col_text(&st, 2, &tlen);
        uint32_t t = intern(types, tx, tlen);
        const char *px = qr__mem_q_col_text(&st, 4, &plen);
        uint32_t pv = intern(provs, px, plen);
        if (!key[i] || t == UINT32_MAX || pv == UINT32_MAX || t > UINT16_MAX) {
            qr__mem_q_close(&st);
            if (t != UINT32_MAX && t > UINT16_MAX) {
                qr_buf_printf(L->err, "memory store '%s' has more than 65536 node types",
                              m->path);
                return QR_ELIMIT;
            }
            return oom(L);
        }
        type[i] = (uint16_t)t;
        prov[i] = pv;
        weight[i] = qr__mem_q_col_double(&st, 3);
        created[i] = qr__mem_q_col_int(&st, 5);
        modified[i] = qr__mem_q_col_int(&st, 6);
        retr[i] = qr__mem_q_col_int(&st, 7);
        uses[i] = qr__mem_q_col_int(&st, 8);
        wrongs[i] = qr__mem_q_col_int(&st, 9);
        int64_t cl = qr__mem_q_col_int(&st, 10);
        clen[i] = cl > UINT32_MAX ? UINT32_MAX : (uint32_t)cl;
        i++;
    }
    qr__mem_q_close(&st);
    if (rc)
        return rc;
    s->n = i;
    s->id = id;
    s->key = key;
    s->key_len = key_len;
    s->weight = weight;
    s->created = created;
    s->modified = modified;
    s->content_len = clen;
    s->retrievals = retr;
    s->uses = uses;
    s->wrongs = wrongs;
    *type_num = type;
    *prov_num = prov;
    s->type = type;
    s->provenance = prov;
    return qr__mem_snapshot_index(s) ? oom(L) : QR_OK;
}

static int load_tags(loader *L)
{
    qr_mem *m = L->m;
    qr_mem_snapshot *s = L->s;
    snap_priv *p = L->p;
    interner tags = {.a = &p->strings};
    uint32_t *off = block(p, (size_t)s->n + 1, sizeof *off, true);
    uint32_t cap = 1024, used = 0;
    uint32_t *ids = malloc(cap * sizeof *ids);
    if (!off || !ids) {
        free(ids);
        return oom(L);
    }
    /* SQLite: the WITHOUT ROWID table's own (node, tag) order */
    qr__mem_q st;
    bool row = false;
    int ret = qr__mem_q_open(&st, m, -1, "SELECT node, tag FROM tags",
                             "SELECT node, tag FROM mem_tags ORDER BY node, tag COLLATE \"C\"",
                             L->err);
    int64_t last = -1;
    while (ret == QR_OK && (ret = qr__mem_q_step(&st, &row, "read", L->err)) == QR_OK && row) {
        int64_t i = lookup_id(s, qr__mem_q_col_int(&st, 0));
        if (i < 0)
            continue; /* a deleted node */
        if (i < last) {
            /* rows arrive in (node, tag) order and dense indexes follow ids */
            qr_buf_printf(L->err, "memory store '%s': tags out of order", m->path);
            ret = QR_EIO;
            break;
        }
        last = i;
        size_t tlen;
        const char *tx = qr__mem_q_col_text(&st, 1, &tlen);
        uint32_t t = intern(&tags, tx, tlen);
        if (t == UINT32_MAX || (used == cap && cap > UINT32_MAX / 4)) {
            ret = oom(L);
            break;
        }
        if (used == cap) {
            uint32_t *nv = realloc(ids, (size_t)cap * 2 * sizeof *ids);
            if (!nv) {
                ret = oom(L);
                break;
            }
            ids = nv;
            cap *= 2;
        }
        ids[used++] = t;
        off[i + 1]++;
    }
    qr__mem_q_close(&st);
    const char *const *names = NULL;
    uint32_t *out = NULL;
    if (ret == QR_OK && (!intern_finish(&tags, p, &names) ||
                         !(out = block(p, used, sizeof *out, false))))
        ret = oom(L);
    if (ret == QR_OK) {
        for (uint32_t i = 0; i < s->n; i++)
            off[i + 1] += off[i];
        for (uint32_t k = 0; k < used; k++)
            out[k] = tags.rank[ids[k]];
        s->tag_off = off;
        s->tag_ids = out;
        s->tag_names = names;
        s->ntag_names = tags.n;
    }
    free(ids);
    interner_free(&tags);
    return ret;
}

static int load_edges(loader *L)
{
    qr_mem *m = L->m;
    qr_mem_snapshot *s = L->s;
    snap_priv *p = L->p;
    uint32_t n = s->n;
    int64_t count = 0;
    int crc = count_rows(L, "SELECT count(*) FROM edges", "SELECT count(*) FROM mem_edges", &count);
    if (crc)
        return crc;
    if (count > (int64_t)(UINT32_MAX / 2 - 1)) {
        qr_buf_printf(L->err, "memory store '%s' has too many links for a snapshot", m->path);
        return QR_ELIMIT;
    }
    size_t e2 = (size_t)count * 2;
    /* first pass: entries by source, unsorted */
    uint32_t *src = malloc((e2 ? e2 : 1) * sizeof *src); /* per edge: u, v interleaved */
    float *sw = malloc((count ? (size_t)count : 1) * sizeof *sw);
    uint32_t *off1 = calloc((size_t)n + 2, sizeof *off1);
    uint32_t *adj1 = malloc((e2 ? e2 : 1) * sizeof *adj1);
    float *w1 = malloc((e2 ? e2 : 1) * sizeof *w1);
    uint32_t *off = block(p, (size_t)n + 1, sizeof *off, true);
    uint32_t *adj = block(p, e2, sizeof *adj, false);
    float *w = block(p, e2, sizeof *w, false);
    int ret = QR_OK;
    if (!src || !sw || !off1 || !adj1 || !w1 || !off || !adj || !w) {
        ret = oom(L);
        goto done;
    }
    qr__mem_q st;
    bool row = false;
    int rc = qr__mem_q_open(&st, m, -1, "SELECT source, target, strength FROM edges",
                            "SELECT source, target, strength FROM mem_edges"
                            " ORDER BY source, target, type COLLATE \"C\"",
                            L->err);
    size_t ne = 0;
    while (rc == QR_OK && (rc = qr__mem_q_step(&st, &row, "read", L->err)) == QR_OK && row &&
           ne < (size_t)count) {
        int64_t u = lookup_id(s, qr__mem_q_col_int(&st, 0));
        int64_t v = lookup_id(s, qr__mem_q_col_int(&st, 1));
        if (u < 0 || v < 0 || u == v)
            continue;
        src[2 * ne] = (uint32_t)u;
        src[2 * ne + 1] = (uint32_t)v;
        sw[ne] = (float)qr__mem_q_col_double(&st, 2);
        off1[u + 2]++;
        off1[v + 2]++;
        ne++;
    }
    qr__mem_q_close(&st);
    if (rc) {
        ret = rc;
        goto done;
    }
    /* off1[i + 1] = start of node i (shifted by one so it can serve as a fill cursor) */
    for (uint32_t i = 0; i < n; i++)
        off1[i + 2] += off1[i + 1];
    for (size_t k = 0; k < ne; k++) {
        uint32_t u = src[2 * k], v = src[2 * k + 1];
        uint32_t a = off1[u + 1]++;
        adj1[a] = v;
        w1[a] = sw[k];
        a = off1[v + 1]++;
        adj1[a] = u;
        w1[a] = sw[k];
    }
    /* now off1[i] is the start of node i; transpose into (off, adj, w): iterating u in
     * order appends u to each neighbour's list, so every list comes out ascending */
    uint32_t *cur = src; /* reuse: n + 1 cursors fit in 2E entries only when E is large */
    if ((size_t)n + 1 > (e2 ? e2 : 1)) {
        free(src);
        src = malloc(((size_t)n + 1) * sizeof *src);
        if (!src) {
            ret = oom(L);
            goto done;
        }
        cur = src;
    }
    for (uint32_t i = 0; i <= n; i++)
        off[i] = off1[i];
    for (uint32_t i = 0; i < n; i++)
        cur[i] = off1[i];
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t k = off1[u]; k < off1[u + 1]; k++) {
            uint32_t v = adj1[k];
            uint32_t a = cur[v]++;
            adj[a] = u;
            w[a] = w1[k];
        }
    /* merge parallel entries (adjacent now) by max strength, compacting in place */
    uint32_t outp = 0;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t b = off[u], e = off[u + 1];
        off[u] = outp;
        for (uint32_t k = b; k < e; k++) {
            if (outp > off[u] && adj[outp - 1] == adj[k]) {
                if (w[k] > w[outp - 1])
                    w[outp - 1] = w[k];
                continue;
            }
            adj[outp] = adj[k];
            w[outp] = w[k];
            outp++;
        }
    }
    off[n] = outp;
    s->graph.n = n;
    s->graph.off = off;
    s->graph.adj = adj;
    s->graph.w = w;
done:
    free(src);
    free(sw);
    free(off1);
    free(adj1);
    free(w1);
    return ret;
}

static int load_visits(loader *L)
{
    qr_mem *m = L->m;
    qr_mem_snapshot *s = L->s;
    snap_priv *p = L->p;
    /* (agent, node, max time) rows grouped by agent, in agent order */
    qr__mem_q st;
    bool row = false;
    int rc = qr__mem_q_open(
        &st, m, -1,
        "SELECT agent, node, max(time), count(*) OVER (PARTITION BY agent)"
        " FROM visits GROUP BY agent, node ORDER BY agent, node",
        "SELECT agent COLLATE \"C\", node, max(time), count(*) OVER (PARTITION BY agent)"
        " FROM mem_visits GROUP BY agent, node ORDER BY 1, node",
        L->err);
    const char **agents = NULL;
    qr_mem_visit_map *maps = NULL, **mapp = NULL;
    uint32_t nagents = 0, cap = 0;
    int ret = QR_OK;
    while (rc == QR_OK && (rc = qr__mem_q_step(&st, &row, "read", L->err)) == QR_OK && row) {
        size_t alen;
        const char *agent = qr__mem_q_col_text(&st, 0, &alen);
        if (!nagents || strlen(agents[nagents - 1]) != alen ||
            memcmp(agents[nagents - 1], agent, alen)) {
            if (nagents == cap) {
                uint32_t ncap = cap ? cap * 2 : 8;
                const char **na = realloc(agents, ncap * sizeof *na);
                qr_mem_visit_map *nm = na ? realloc(maps, ncap * sizeof *nm) : NULL;
                if (na)
                    agents = na;
                if (nm)
                    maps = nm;
                if (!na || !nm) {
                    ret = oom(L);
                    break;
                }
                cap = ncap;
            }
            int64_t rows = qr__mem_q_col_int(&st, 3);
            uint32_t slots = pow2_at_least((size_t)(rows > 0 ? rows : 1));
            qr_mem_visit_map *vm = &maps[nagents];
            vm->mask = slots - 1;
            vm->node = calloc(slots, sizeof *vm->node);
            vm->time = calloc(slots, sizeof *vm->time); /* zeros: written as they are */
            agents[nagents] = qr_arena_strndup(&p->strings, agent, alen);
            nagents++;
            if (!vm->node || !vm->time || !agents[nagents - 1]) {
                ret = oom(L);
                break;
            }
        }
        int64_t i = lookup_id(s, qr__mem_q_col_int(&st, 1));
        if (i < 0)
            continue;
        qr_mem_visit_map *vm = &maps[nagents - 1];
        uint32_t j = (uint32_t)qr_hash_mix((uint64_t)i) & vm->mask;
        while (vm->node[j])
            j = (j + 1) & vm->mask;
        vm->node[j] = (uint32_t)i + 1;
        vm->time[j] = qr__mem_q_col_int(&st, 2);
    }
    qr__mem_q_close(&st);
    if (ret == QR_OK)
        ret = rc;
    /* hand everything to the snapshot so it is freed either way */
    p->maps = maps;
    s->nagents = nagents;
    if (agents) {
        const char **ab = block(p, nagents, sizeof *ab, false);
        mapp = block(p, nagents, sizeof *mapp, false);
        if (ab && mapp) {
            memcpy(ab, agents, nagents * sizeof *ab);
            for (uint32_t k = 0; k < nagents; k++)
                mapp[k] = &maps[k];
        } else if (ret == QR_OK) {
            ret = oom(L);
        }
        free(agents);
        s->agents = ab;
        s->visits = (const qr_mem_visit_map *const *)mapp;
    }
    if (maps && p->nblocks < (int)(sizeof p->blocks / sizeof p->blocks[0]))
        p->blocks[p->nblocks++] = maps;
    else if (maps) {
        /* no room to track it: free it with the per-agent tables now (cannot happen with
         * the fixed number of blocks this file allocates) */
        ret = ret ? ret : oom(L);
    }
    return ret;
}

static int load(qr_mem *m, qr_mem_snapshot **out, qr_buf *err)
{
    *out = NULL;
    qr_mem_snapshot *s = qr__mem_snapshot_new();
    if (!s) {
        qr_buf_printf(err, "out of memory loading a snapshot of memory store '%s'", m->path);
        return QR_ENOMEM;
    }
    snap_priv *p = s->priv;
    loader L = {.m = m, .s = s, .p = p, .err = err};
    interner types = {.a = &p->strings}, provs = {.a = &p->strings};
    uint16_t *type_num = NULL;
    uint32_t *prov_num = NULL;
    int rc = qr__mem_begin_read(m, err);
    if (rc)
        goto fail;
    if ((rc = qr__mem_version(m, &s->generation, &p->write_id, err)) ||
        (rc = load_nodes(&L, &types, &provs, &type_num, &prov_num)))
        goto fail_tx;
    const char *const *tnames, *const *pnames;
    if (!intern_finish(&types, p, &tnames) || !intern_finish(&provs, p, &pnames)) {
        rc = oom(&L);
        goto fail_tx;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        type_num[i] = (uint16_t)types.rank[type_num[i]];
        prov_num[i] = provs.rank[prov_num[i]];
    }
    s->types = tnames;
    s->ntypes = types.n;
    s->provenances = pnames;
    s->nprovenances = provs.n;
    if ((rc = load_tags(&L)) || (rc = load_edges(&L)) || (rc = load_visits(&L)))
        goto fail_tx;
    if ((rc = qr__mem_commit_read(m, err)))
        goto fail;
    interner_free(&types);
    interner_free(&provs);
    *out = s;
    return QR_OK;
fail_tx:
    qr__mem_rollback(m);
fail:
    interner_free(&types);
    interner_free(&provs);
    qr__mem_snapshot_free(s);
    return rc;
}

/* ---- STORE.snapshot (the codec is in store_snapfile.c) ---- */

/* Sets *out from the file when it matches the store now; nothing (QR_OK) when it does
 * not; an error only when the store cannot be read. */
static int load_from_file(qr_mem *m, qr_mem_snapshot **out, qr_buf *err)
{
    char path[4096];
    if (m->pg || !qr__mem_snapfile_path(m, path, sizeof path)) /* a server: no side file */
        return QR_OK;
    uint64_t gen, wid;
    int rc = qr__mem_version(m, &gen, &wid, err);
    if (rc)
        return rc;
    const char *why = NULL;
    if (qr__mem_snapfile_read(path, gen, wid, out, &why) == QR_OK) {
        m->snapstats.file_loads++;
        return QR_OK;
    }
    *out = NULL;
    if (why) {
        m->snapstats.file_rejects++;
        m->snapstats.last_reject = why;
    }
    return QR_OK;
}

/* Writes the file after a load from SQL, unless the store is read-only; failure to write
 * (a read-only directory, a full disk) only means the next process reads SQL again. */
static void save_to_file(qr_mem *m, const qr_mem_snapshot *s)
{
    char path[4096];
    if (m->pg || !qr__mem_snapfile_path(m, path, sizeof path) ||
        sqlite3_db_readonly(m->db, "main") != 0)
        return;
    if (qr__mem_snapfile_write(s, path, m->path) == QR_OK)
        m->snapstats.file_writes++;
}

void qr_mem_snapshot_stats_get(const qr_mem *m, qr_mem_snapshot_stats *out)
{
    *out = m->snapstats;
}

int qr_mem_snapshot_get(qr_mem *m, const qr_mem_snapshot **out, qr_buf *err)
{
    *out = NULL;
    if (m->user_tx) {
        /* it would hold writes that may still be rolled back, under a generation that
         * does not count them */
        if (err)
            qr_buf_puts(err, "no snapshot inside a transaction: take it before qr_mem_begin");
        return QR_EINVAL;
    }
    if (m->snap) {
        uint64_t gen;
        int rc = qr_mem_generation(m, &gen, err);
        if (rc)
            return rc;
        if (gen != m->snap->generation) {
            qr_mem_snapshot_release(m->snap);
            m->snap = NULL;
        }
    }
    if (!m->snap) {
        int rc = load_from_file(m, &m->snap, err);
        if (rc)
            return rc;
    }
    if (!m->snap) {
        int rc = load(m, &m->snap, err);
        if (rc)
            return rc;
        m->snapstats.sql_loads++;
        save_to_file(m, m->snap);
    }
    m->snap->refs++;
    *out = m->snap;
    return QR_OK;
}

int64_t qr_mem_snapshot_find(const qr_mem_snapshot *s, const char *key, size_t len)
{
    const snap_priv *p = s->priv;
    uint32_t j = (uint32_t)qr_hash_bytes(key, len) & p->key_mask;
    for (uint32_t v; (v = p->key_slots[j]); j = (j + 1) & p->key_mask)
        if (s->key_len[v - 1] == len && !memcmp(s->key[v - 1], key, len))
            return v - 1;
    return -1;
}

int64_t qr_mem_snapshot_find_id(const qr_mem_snapshot *s, int64_t id)
{
    return lookup_id(s, id);
}

int64_t qr_mem_snapshot_agent(const qr_mem_snapshot *s, const char *agent)
{
    uint32_t lo = 0, hi = s->nagents;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->agents[mid], agent);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int64_t qr_mem_snapshot_last_visit(const qr_mem_snapshot *s, int64_t agent, uint32_t node)
{
    if (agent < 0 || agent >= s->nagents || node >= s->n)
        return 0;
    const qr_mem_visit_map *vm = s->visits[agent];
    uint32_t j = (uint32_t)qr_hash_mix((uint64_t)node) & vm->mask;
    for (uint32_t v; (v = vm->node[j]); j = (j + 1) & vm->mask)
        if (v == node + 1)
            return vm->time[j];
    return 0;
}
