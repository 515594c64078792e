/*
 * test_memory.c: unit tests for the memory store (src/memory/store*.c) on real SQLite
 * files under /tmp: node CRUD and validation, soft delete and restore, links, tags,
 * counters, full-text search with stemming, the generation counter (also across two
 * handles), the snapshot (CSR degrees, sorted and symmetric lists, merged parallel edges,
 * deleted nodes and self-loops excluded, tags, types, visits, refresh; and a randomized
 * store checked against a brute-force adjacency), exact export/import round trips, import
 * atomicity on a bad line, two processes writing at once, and a process killed with
 * SIGKILL in the middle of a large import.
 *
 * `test_memory --bench [NODES EDGES [FILE]]` builds a store of that size (default 100,000
 * nodes, 1,000,000 edges; in FILE, kept, when given) and prints how long the snapshot
 * takes to load (information only).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "check.h"
#include "quarry/memory.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void store_path(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static qr_mem *open_store(const char *name)
{
    char p[256];
    store_path(name, p, sizeof p);
    qr_buf err;
    qr_buf_init(&err);
    qr_mem *m = NULL;
    int rc = qr_mem_open(&m, p, QR_MEM_CREATE, &err);
    if (rc != QR_OK)
        fprintf(stderr, "open %s: %s\n", p, err.p ? err.p : "?");
    CHECK(rc == QR_OK);
    qr_buf_release(&err);
    return m;
}

static int add(qr_mem *m, const char *key, const char *content, const char *type, double w)
{
    qr_mem_node n = {.key = key, .content = content, .type = type, .weight = w};
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_node_add(m, &n, NULL, &err);
    qr_buf_release(&err);
    return rc;
}

static int link2(qr_mem *m, const char *a, const char *b, double s, const char *type)
{
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_link(m, a, b, s, type, NULL, &err);
    qr_buf_release(&err);
    return rc;
}

static uint64_t generation(qr_mem *m)
{
    uint64_t g = 0;
    CHECK(qr_mem_generation(m, &g, NULL) == QR_OK);
    return g;
}

/* The whole export as a malloc'd string. */
static char *export_str(qr_mem *m, size_t *len)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_export(m, f, NULL, &err);
    if (rc)
        fprintf(stderr, "export: %s\n", err.p);
    CHECK(rc == QR_OK);
    fclose(f);
    qr_buf_release(&err);
    if (len)
        *len = n;
    return p;
}

static void test_crud(void)
{
    qr_mem *m = open_store("crud.db");
    qr_mem_set_now(m, 1795000000);
    qr_buf err;
    qr_buf_init(&err);
    const char *tags[] = {"zeta", "alpha", "alpha"};
    qr_mem_node n = {.key = "journal#2026-11-20",
                     .content = "# Day\nlinked the **btree**",
                     .type = "episodic-daily",
                     .weight = 0.75,
                     .provenance = "manual",
                     .tags = tags,
                     .ntags = 3};
    int64_t id = 0;
    CHECK(qr_mem_node_add(m, &n, &id, &err) == QR_OK);
    CHECK(id > 0);
    /* the same key again: refused, with a hint */
    qr_buf_reset(&err);
    CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "'journal#2026-11-20' already exists") &&
          strstr(err.p, "mem update"));

    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node g;
    CHECK(qr_mem_node_get(m, "journal#2026-11-20", false, &a, &g, &err) == QR_OK);
    CHECK(g.id == id);
    CHECK_STR(g.content, "# Day\nlinked the **btree**");
    CHECK(g.content_len == strlen(g.content));
    CHECK_STR(g.type, "episodic-daily");
    CHECK(g.weight == 0.75);
    CHECK_STR(g.provenance, "manual");
    CHECK(g.created == 1795000000 && g.modified == 1795000000 && g.deleted == 0);
    CHECK(g.ntags == 2);
    if (g.ntags == 2) {
        CHECK_STR(g.tags[0], "alpha");
        CHECK_STR(g.tags[1], "zeta");
    }

    /* update: content, type, weight, tags; modified moves, created stays */
    qr_mem_set_now(m, 1795000100);
    const char *addt[] = {"beta"}, *rmt[] = {"zeta"};
    qr_mem_update u = {.content = "new text",
                       .type = "semantic",
                       .has_weight = true,
                       .weight = 0.25,
                       .add_tags = addt,
                       .nadd_tags = 1,
                       .remove_tags = rmt,
                       .nremove_tags = 1};
    CHECK(qr_mem_node_update(m, "journal#2026-11-20", &u, &err) == QR_OK);
    CHECK(qr_mem_node_get(m, "journal#2026-11-20", false, &a, &g, &err) == QR_OK);
    CHECK_STR(g.content, "new text");
    CHECK_STR(g.type, "semantic");
    CHECK(g.weight == 0.25);
    CHECK(g.created == 1795000000 && g.modified == 1795000100);
    CHECK(g.ntags == 2 && !strcmp(g.tags[0], "alpha") && !strcmp(g.tags[1], "beta"));
    /* removing a tag the node lacks fails and changes nothing */
    qr_buf_reset(&err);
    CHECK(qr_mem_tag_remove(m, "journal#2026-11-20", "zeta", &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "no tag 'zeta'"));
    CHECK(qr_mem_tag_add(m, "journal#2026-11-20", "gamma", &err) == QR_OK);
    CHECK(qr_mem_node_get(m, "journal#2026-11-20", false, &a, &g, &err) == QR_OK);
    CHECK(g.ntags == 3);

    /* counters */
    CHECK(qr_mem_node_count(m, "journal#2026-11-20", QR_MEM_USES, 3, &err) == QR_OK);
    CHECK(qr_mem_node_count(m, "journal#2026-11-20", QR_MEM_WRONGS, -5, &err) == QR_OK);
    CHECK(qr_mem_node_get(m, "journal#2026-11-20", false, &a, &g, &err) == QR_OK);
    CHECK(g.uses == 3 && g.wrongs == 0 && g.retrievals == 0);

    /* validation: each bad field is QR_EINVAL naming it */
    qr_buf_reset(&err);
    CHECK(add(m, "", "x", NULL, 0.5) == QR_EINVAL);
    CHECK(add(m, "k\nnewline", "x", NULL, 0.5) == QR_EINVAL);
    CHECK(add(m, "k", "x", "Semantic", 0.5) == QR_EINVAL);
    CHECK(add(m, "k", "x", "a b", 0.5) == QR_EINVAL);
    CHECK(add(m, "k", "x", NULL, 1.5) == QR_EINVAL);
    CHECK(add(m, "k", "x", NULL, NAN) == QR_EINVAL);
    CHECK(add(m, "k", "\xff bad utf8", NULL, 0.5) == QR_EINVAL);
    qr_mem_node bad = {.key = "k", .weight = 0.5, .tags = (const char *[]){"has space"}, .ntags = 1};
    CHECK(qr_mem_node_add(m, &bad, NULL, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "tag \"has space\" is not valid"));
    CHECK(add(m, "k", NULL, NULL, 0) == QR_OK); /* defaults: empty content, semantic */
    CHECK(qr_mem_node_get(m, "k", false, &a, &g, &err) == QR_OK);
    CHECK_STR(g.type, "semantic");
    CHECK_STR(g.content, "");
    qr_buf_reset(&err);
    CHECK(qr_mem_node_get(m, "nope", false, &a, &g, &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "no node 'nope'"));

    /* a missing file is not created by a read open */
    char p[256];
    store_path("missing.db", p, sizeof p);
    qr_mem *m2 = NULL;
    qr_buf_reset(&err);
    CHECK(qr_mem_open(&m2, p, 0, &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "no memory store at"));
    CHECK(access(p, F_OK) != 0);
    /* a foreign SQLite file is refused and left alone */
    store_path("foreign.db", p, sizeof p);
    sqlite3 *db;
    sqlite3_open(p, &db);
    sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(db);
    qr_buf_reset(&err);
    CHECK(qr_mem_open(&m2, p, QR_MEM_CREATE, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, "is not a quarry memory store"));

    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

static void test_delete_links(void)
{
    qr_mem *m = open_store("links.db");
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    CHECK(add(m, "a", "", NULL, 0.5) == QR_OK);
    CHECK(add(m, "b", "", NULL, 0.5) == QR_OK);
    CHECK(add(m, "c", "", NULL, 0.5) == QR_OK);
    bool created = false;
    CHECK(qr_mem_link(m, "a", "b", 0.4, NULL, &created, &err) == QR_OK && created);
    CHECK(qr_mem_link(m, "a", "b", 0.9, NULL, &created, &err) == QR_OK && !created);
    CHECK(qr_mem_link(m, "a", "b", 0.2, "cites", &created, &err) == QR_OK && created);
    CHECK(qr_mem_link(m, "c", "a", 1.0, NULL, &created, &err) == QR_OK && created);
    CHECK(link2(m, "a", "a", 0.5, NULL) == QR_EINVAL);
    CHECK(link2(m, "a", "b", 0, NULL) == QR_EINVAL);
    CHECK(link2(m, "a", "b", 0.5, "Bad Type") == QR_EINVAL);
    CHECK(link2(m, "a", "zz", 0.5, NULL) == QR_ERUNTIME);

    qr_mem_edge *e;
    size_t ne;
    CHECK(qr_mem_edges(m, "a", false, &a, &e, &ne, &err) == QR_OK);
    CHECK(ne == 3);
    if (ne == 3) {
        /* outgoing first, by other key then type; then incoming */
        CHECK(!strcmp(e[0].target, "b") && !strcmp(e[0].type, "cites") && e[0].strength == 0.2);
        CHECK(!strcmp(e[1].target, "b") && !strcmp(e[1].type, "related") &&
              e[1].strength == 0.9);
        CHECK(!strcmp(e[2].source, "c") && !strcmp(e[2].target, "a"));
    }

    /* soft delete hides b and its links; restore brings both back */
    uint64_t g0 = generation(m);
    CHECK(qr_mem_node_delete(m, "b", &err) == QR_OK);
    CHECK(generation(m) == g0 + 1);
    qr_mem_node n;
    qr_buf_reset(&err);
    CHECK(qr_mem_node_get(m, "b", false, &a, &n, &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "is deleted") && strstr(err.p, "mem restore b"));
    CHECK(qr_mem_node_get(m, "b", true, &a, &n, &err) == QR_OK && n.deleted > 0);
    CHECK(qr_mem_edges(m, "a", false, &a, &e, &ne, &err) == QR_OK && ne == 1);
    CHECK(link2(m, "a", "b", 0.5, NULL) == QR_ERUNTIME);
    CHECK(add(m, "b", "", NULL, 0.5) == QR_ERUNTIME);
    CHECK(qr_mem_node_delete(m, "b", &err) == QR_ERUNTIME);
    qr_mem_stats st;
    CHECK(qr_mem_stats_get(m, &a, &st, &err) == QR_OK);
    CHECK(st.nodes == 2 && st.deleted == 1 && st.edges == 1 && st.hidden_edges == 2);
    CHECK(qr_mem_node_restore(m, "b", &err) == QR_OK);
    CHECK(qr_mem_node_restore(m, "b", &err) == QR_ERUNTIME);
    CHECK(qr_mem_edges(m, "a", false, &a, &e, &ne, &err) == QR_OK && ne == 3);

    int64_t removed = 0;
    CHECK(qr_mem_unlink(m, "a", "b", "cites", &removed, &err) == QR_OK && removed == 1);
    CHECK(qr_mem_unlink(m, "a", "b", "cites", &removed, &err) == QR_ERUNTIME);
    CHECK(qr_mem_unlink(m, "b", "a", NULL, &removed, &err) == QR_ERUNTIME);
    CHECK(qr_mem_unlink(m, "c", "a", NULL, &removed, &err) == QR_OK && removed == 1);
    CHECK(qr_mem_edges(m, "a", false, &a, &e, &ne, &err) == QR_OK && ne == 1);

    /* a failed write does not bump the generation; reads do not either */
    uint64_t g1 = generation(m);
    CHECK(link2(m, "a", "nope", 0.5, NULL) == QR_ERUNTIME);
    CHECK(qr_mem_node_get(m, "a", false, &a, &n, &err) == QR_OK);
    CHECK(generation(m) == g1);

    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

static bool hit_has(const qr_mem_hit *h, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (h[i].id == id)
            return true;
    return false;
}

static void test_search(void)
{
    qr_mem *m = open_store("fts.db");
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    int64_t ida, idb, idc;
    qr_mem_node n1 = {.key = "btree-notes", .content = "We linked the btree pages.", .weight = 1};
    qr_mem_node n2 = {.key = "other", .content = "Cooking pasta tonight.", .weight = 1};
    qr_mem_node n3 = {.key = "links", .content = "linking linking linking btree", .weight = 1};
    CHECK(qr_mem_node_add(m, &n1, &ida, &err) == QR_OK);
    CHECK(qr_mem_node_add(m, &n2, &idb, &err) == QR_OK);
    CHECK(qr_mem_node_add(m, &n3, &idc, &err) == QR_OK);
    const char *t1[] = {"linking"};
    qr_mem_hit *h;
    size_t nh;
    CHECK(qr_mem_search(m, t1, 1, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK);
    CHECK(nh == 2 && hit_has(h, nh, ida) && hit_has(h, nh, idc) && !hit_has(h, nh, idb));
    if (nh == 2)
        CHECK(h[0].id == idc && h[0].score >= h[1].score && h[1].score > 0);
    /* ALL vs ANY */
    const char *t2[] = {"pasta", "btree"};
    CHECK(qr_mem_search(m, t2, 2, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK && nh == 3);
    CHECK(qr_mem_search(m, t2, 2, QR_MEM_MATCH_ALL, 0, &a, &h, &nh, &err) == QR_OK && nh == 0);
    CHECK(qr_mem_search(m, t2, 2, QR_MEM_MATCH_ANY, 1, &a, &h, &nh, &err) == QR_OK && nh == 1);
    /* the key is searched too */
    const char *t3[] = {"notes"};
    CHECK(qr_mem_search(m, t3, 1, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK && nh == 1 &&
          h[0].id == ida);
    /* FTS5 syntax in a term is just text */
    const char *t4[] = {"btree\" OR NEAR(pasta", "*"};
    CHECK(qr_mem_search(m, t4, 2, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK);
    const char *t5[] = {"***", ""};
    CHECK(qr_mem_search(m, t5, 2, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_EINVAL);
    /* deleted nodes are not found; an update re-indexes */
    CHECK(qr_mem_node_delete(m, "links", &err) == QR_OK);
    CHECK(qr_mem_search(m, t1, 1, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK && nh == 1 &&
          h[0].id == ida);
    qr_mem_update u = {.content = "nothing about trees"};
    CHECK(qr_mem_node_update(m, "btree-notes", &u, &err) == QR_OK);
    CHECK(qr_mem_search(m, t1, 1, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK && nh == 0);
    const char *t6[] = {"tree"};
    CHECK(qr_mem_search(m, t6, 1, QR_MEM_MATCH_ANY, 0, &a, &h, &nh, &err) == QR_OK && nh == 1);
    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* neighbour j of node i in the snapshot's graph, or -1 */
static int64_t adj_find(const qr_graph *g, uint32_t i, uint32_t j, float *w)
{
    for (uint32_t k = g->off[i]; k < g->off[i + 1]; k++)
        if (g->adj[k] == j) {
            if (w)
                *w = g->w[k];
            return k;
        }
    return -1;
}

static void check_csr_shape(const qr_graph *g)
{
    CHECK(g->off[0] == 0);
    for (uint32_t i = 0; i < g->n; i++) {
        CHECK(g->off[i] <= g->off[i + 1]);
        for (uint32_t k = g->off[i]; k < g->off[i + 1]; k++) {
            CHECK(g->adj[k] < g->n && g->adj[k] != i);
            CHECK(g->w[k] > 0 && g->w[k] <= 1);
            if (k > g->off[i])
                CHECK(g->adj[k - 1] < g->adj[k]); /* ascending, no duplicates */
            float back;
            CHECK(adj_find(g, g->adj[k], i, &back) >= 0 && back == g->w[k]);
        }
    }
}

static void test_snapshot(void)
{
    char p[256];
    qr_mem *m = open_store("snap.db");
    qr_mem_set_now(m, 1000);
    qr_buf err;
    qr_buf_init(&err);
    const char *ta[] = {"x", "b-tag"}, *tc[] = {"x"};
    qr_mem_node na = {.key = "a", .type = "semantic", .weight = 0.5, .tags = ta, .ntags = 2,
                      .content = "12345", .provenance = "manual"};
    qr_mem_node nc = {.key = "c", .type = "episodic-daily", .weight = 0.25, .tags = tc, .ntags = 1,
                      .provenance = "agent"};
    CHECK(qr_mem_node_add(m, &na, NULL, &err) == QR_OK);
    CHECK(add(m, "b", "", "semantic", 1) == QR_OK);
    CHECK(qr_mem_node_add(m, &nc, NULL, &err) == QR_OK);
    CHECK(add(m, "d", "", "semantic", 0) == QR_OK);
    CHECK(add(m, "e", "", "semantic", 0) == QR_OK);
    CHECK(link2(m, "a", "b", 0.5, "related") == QR_OK);
    CHECK(link2(m, "b", "a", 0.875, "cites") == QR_OK); /* parallel, other direction: max */
    CHECK(link2(m, "a", "b", 0.25, "cites") == QR_OK);  /* parallel, same direction */
    CHECK(link2(m, "a", "c", 0.375, NULL) == QR_OK);
    CHECK(link2(m, "c", "d", 0.125, NULL) == QR_OK);
    CHECK(link2(m, "d", "e", 1, NULL) == QR_OK);
    CHECK(qr_mem_visit(m, "a", "linker", 500, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "a", "linker", 700, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "a", "linker", 600, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "c", "replay", 800, "", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "e", "replay", 900, "", &err) == QR_OK);
    CHECK(qr_mem_node_delete(m, "e", &err) == QR_OK);
    /* a self-loop can only come from outside the API: write one directly */
    store_path("snap.db", p, sizeof p);
    sqlite3 *db;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    CHECK(sqlite3_exec(db,
                       "INSERT INTO edges(source, target, type, strength)"
                       " SELECT id, id, 'self', 1 FROM nodes WHERE key = 'b';"
                       "UPDATE meta SET value = value + 1 WHERE key = 'generation'",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);

    const qr_mem_snapshot *s;
    CHECK(qr_mem_snapshot_get(m, &s, &err) == QR_OK);
    if (!s) {
        qr_mem_close(m);
        return;
    }
    CHECK(s->n == 4);
    int64_t ia = qr_mem_snapshot_find(s, "a", 1), ib = qr_mem_snapshot_find(s, "b", 1),
            ic = qr_mem_snapshot_find(s, "c", 1), id = qr_mem_snapshot_find(s, "d", 1);
    CHECK(ia == 0 && ib == 1 && ic == 2 && id == 3); /* creation order */
    CHECK(qr_mem_snapshot_find(s, "e", 1) == -1);
    CHECK(qr_mem_snapshot_find(s, "zz", 2) == -1);
    CHECK(qr_mem_snapshot_find_id(s, s->id[2]) == 2);
    const qr_graph *g = &s->graph;
    CHECK(g->n == 4);
    check_csr_shape(g);
    CHECK(g->off[1] - g->off[0] == 2); /* a: b, c */
    CHECK(g->off[2] - g->off[1] == 1); /* b: a (self-loop dropped) */
    CHECK(g->off[3] - g->off[2] == 2); /* c: a, d */
    CHECK(g->off[4] - g->off[3] == 1); /* d: c (e deleted) */
    float w = 0;
    CHECK(adj_find(g, 0, 1, &w) >= 0 && w == 0.875f);
    CHECK(adj_find(g, 0, 2, &w) >= 0 && w == 0.375f);
    CHECK(adj_find(g, 2, 3, &w) >= 0 && w == 0.125f);
    /* fields */
    CHECK(s->ntypes == 2 && !strcmp(s->types[0], "episodic-daily") &&
          !strcmp(s->types[1], "semantic"));
    CHECK(s->type[0] == 1 && s->type[2] == 0);
    CHECK(s->weight[0] == 0.5f && s->weight[1] == 1.0f && s->weight[2] == 0.25f);
    CHECK(s->content_len[0] == 5 && s->content_len[1] == 0);
    CHECK(s->created[0] == 1000 && s->modified[0] == 1000);
    CHECK(s->nprovenances == 3 && !strcmp(s->provenances[s->provenance[0]], "manual") &&
          !strcmp(s->provenances[s->provenance[2]], "agent") &&
          !strcmp(s->provenances[s->provenance[1]], ""));
    CHECK(s->ntag_names == 2 && !strcmp(s->tag_names[0], "b-tag") &&
          !strcmp(s->tag_names[1], "x"));
    CHECK(s->tag_off[1] - s->tag_off[0] == 2 && s->tag_ids[s->tag_off[0]] == 0 &&
          s->tag_ids[s->tag_off[0] + 1] == 1);
    CHECK(s->tag_off[2] == s->tag_off[1]); /* b has none */
    CHECK(s->tag_off[3] - s->tag_off[2] == 1 && s->tag_ids[s->tag_off[2]] == 1);
    CHECK(s->key_len[0] == 1 && !strcmp(s->key[3], "d"));
    /* visits */
    CHECK(s->nagents == 2);
    int64_t linker = qr_mem_snapshot_agent(s, "linker"), replay = qr_mem_snapshot_agent(s, "replay");
    CHECK(linker == 0 && replay == 1 && qr_mem_snapshot_agent(s, "nobody") == -1);
    CHECK(qr_mem_snapshot_last_visit(s, linker, 0) == 700);
    CHECK(qr_mem_snapshot_last_visit(s, linker, 2) == 0);
    CHECK(qr_mem_snapshot_last_visit(s, replay, 2) == 800);
    CHECK(qr_mem_snapshot_last_visit(s, -1, 2) == 0);

    /* no write: the same snapshot; a write through another handle: a new one, while the
     * old one stays valid for whoever holds it */
    const qr_mem_snapshot *s2;
    CHECK(qr_mem_snapshot_get(m, &s2, &err) == QR_OK && s2 == s);
    qr_mem_snapshot_release(s2);
    qr_mem *other = open_store("snap.db");
    CHECK(qr_mem_node_restore(other, "e", &err) == QR_OK);
    qr_mem_close(other);
    CHECK(qr_mem_snapshot_get(m, &s2, &err) == QR_OK && s2 != s);
    CHECK(s2->n == 5 && s2->generation > s->generation);
    CHECK(qr_mem_snapshot_last_visit(s2, qr_mem_snapshot_agent(s2, "replay"), 4) == 900);
    check_csr_shape(&s2->graph);
    CHECK(s->n == 4 && !strcmp(s->key[3], "d")); /* the old one intact */
    qr_mem_snapshot_release(s);
    qr_mem_snapshot_release(s2);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* A random store checked against a brute-force adjacency matrix. */
static void test_snapshot_random(void)
{
    enum { N = 60, E = 600 };
    qr_mem *m = open_store("rand.db");
    qr_buf err;
    qr_buf_init(&err);
    char key[16], key2[16];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "n%02d", i);
        CHECK(add(m, key, "", NULL, 0.5) == QR_OK);
    }
    static float want[N][N];
    memset(want, 0, sizeof want);
    unsigned seed = 12345;
    static const char *const types[] = {"related", "cites", "follows"};
    for (int k = 0; k < E; k++) {
        seed = seed * 1103515245u + 12345u;
        int u = (int)((seed >> 8) % N);
        seed = seed * 1103515245u + 12345u;
        int v = (int)((seed >> 8) % N);
        seed = seed * 1103515245u + 12345u;
        float s = (float)((seed >> 8) % 64 + 1) / 64.0f;
        const char *t = types[(seed >> 20) % 3];
        if (u == v)
            continue;
        snprintf(key, sizeof key, "n%02d", u);
        snprintf(key2, sizeof key2, "n%02d", v);
        CHECK(link2(m, key, key2, s, t) == QR_OK);
    }
    /* the truth is what the store holds after relinks: read it back */
    char p[256];
    store_path("rand.db", p, sizeof p);
    sqlite3 *db;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT s.key, t.key, e.strength FROM edges e JOIN nodes s ON"
                             " s.id = e.source JOIN nodes t ON t.id = e.target",
                             -1, &st, NULL) == SQLITE_OK);
    /* delete every 7th node first, in the store and in the truth */
    for (int i = 0; i < N; i += 7) {
        snprintf(key, sizeof key, "n%02d", i);
        CHECK(qr_mem_node_delete(m, key, &err) == QR_OK);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int u = atoi((const char *)sqlite3_column_text(st, 0) + 1);
        int v = atoi((const char *)sqlite3_column_text(st, 1) + 1);
        float s = (float)sqlite3_column_double(st, 2);
        if (u % 7 == 0 || v % 7 == 0)
            continue;
        if (s > want[u][v])
            want[u][v] = want[v][u] = s;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    const qr_mem_snapshot *s;
    CHECK(qr_mem_snapshot_get(m, &s, &err) == QR_OK);
    if (s) {
        CHECK(s->n == N - (N + 6) / 7);
        check_csr_shape(&s->graph);
        size_t edges = 0;
        for (int u = 0; u < N; u++)
            for (int v = 0; v < N; v++) {
                if (!want[u][v])
                    continue;
                edges++;
                snprintf(key, sizeof key, "n%02d", u);
                snprintf(key2, sizeof key2, "n%02d", v);
                int64_t iu = qr_mem_snapshot_find(s, key, 3), iv = qr_mem_snapshot_find(s, key2, 3);
                float w = 0;
                CHECK(iu >= 0 && iv >= 0 && adj_find(&s->graph, (uint32_t)iu, (uint32_t)iv, &w) >= 0 &&
                      w == want[u][v]);
            }
        CHECK(s->graph.off[s->n] == edges);
        qr_mem_snapshot_release(s);
    }
    qr_buf_release(&err);
    qr_mem_close(m);
}

static const char rich_export[] =
    "{\"kind\":\"node\",\"key\":\"a \\\"quoted\\\" key\",\"type\":\"semantic\",\"weight\":0.30000000000000004,"
    "\"provenance\":\"manual\",\"created\":\"2026-11-20T10:00:00Z\",\"modified\":"
    "\"2026-11-21T10:00:00Z\",\"retrievals\":3,\"uses\":2,\"wrongs\":1,\"tags\":[\"t1\",\"t2\"],"
    "\"content\":\"line 1\\nline 2 \xc3\xa9\\t\xe2\x98\xba\"}\n"
    "{\"kind\":\"node\",\"key\":\"journal#2026-11-20\",\"type\":\"episodic-daily\",\"weight\":1.0,"
    "\"provenance\":\"\",\"created\":\"2026-11-20T00:00:00Z\",\"modified\":"
    "\"2026-11-20T00:00:00Z\",\"retrievals\":0,\"uses\":0,\"wrongs\":0,\"tags\":[],"
    "\"deleted\":\"2026-11-22T00:00:00Z\",\"content\":\"\"}\n"
    "{\"kind\":\"node\",\"key\":\"z\",\"type\":\"x-1\",\"weight\":0.0,\"provenance\":\"agent:linker\","
    "\"created\":\"1970-01-01T00:00:01Z\",\"modified\":\"2026-11-20T00:00:00Z\",\"retrievals\":0,"
    "\"uses\":0,\"wrongs\":0,\"tags\":[],\"content\":\"z\"}\n"
    "{\"kind\":\"edge\",\"source\":\"a \\\"quoted\\\" key\",\"target\":\"journal#2026-11-20\","
    "\"type\":\"related\",\"strength\":0.1}\n"
    "{\"kind\":\"edge\",\"source\":\"a \\\"quoted\\\" key\",\"target\":\"z\",\"type\":\"cites\","
    "\"strength\":1.0E-5}\n"
    "{\"kind\":\"edge\",\"source\":\"a \\\"quoted\\\" key\",\"target\":\"z\",\"type\":\"related\","
    "\"strength\":1.0}\n"
    "{\"kind\":\"visit\",\"node\":\"z\",\"agent\":\"linker\",\"time\":\"2026-11-20T10:00:00Z\","
    "\"outcome\":\"ok\"}\n"
    "{\"kind\":\"visit\",\"node\":\"journal#2026-11-20\",\"agent\":\"replay\",\"time\":"
    "\"2026-11-21T10:00:00Z\",\"outcome\":\"\"}\n";

static void test_round_trip(void)
{
    qr_mem *m = open_store("rt1.db");
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_counts c;
    int rc = qr_mem_import(m, rich_export, strlen(rich_export), &c, &err);
    if (rc)
        fprintf(stderr, "import: %s\n", err.p);
    CHECK(rc == QR_OK && c.nodes == 3 && c.edges == 3 && c.visits == 2);
    size_t n1;
    char *e1 = export_str(m, &n1);
    /* already in export form, so the export is the input byte for byte */
    CHECK(e1 && n1 == strlen(rich_export) && !memcmp(e1, rich_export, n1));
    if (e1 && strcmp(e1, rich_export))
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", e1, rich_export);
    /* a store built through the API, exported, imported, exported again */
    qr_mem *m2 = open_store("rt2.db");
    qr_mem_set_now(m2, 1795000000);
    CHECK(add(m2, "k1", "hello", "semantic", 1.0 / 3.0) == QR_OK);
    CHECK(add(m2, "k2", "world", "episodic-session", 0.1 + 0.2) == QR_OK);
    CHECK(link2(m2, "k2", "k1", 0.7, NULL) == QR_OK);
    CHECK(qr_mem_visit(m2, "k1", "linker", 0, "done", &err) == QR_OK);
    CHECK(qr_mem_node_count(m2, "k1", QR_MEM_RETRIEVALS, 9, &err) == QR_OK);
    size_t n2, n3;
    char *e2 = export_str(m2, &n2);
    qr_mem *m3 = open_store("rt3.db");
    CHECK(qr_mem_import(m3, e2, n2, NULL, &err) == QR_OK);
    char *e3 = export_str(m3, &n3);
    CHECK(e2 && e3 && n2 == n3 && !memcmp(e2, e3, n2));
    CHECK(e2 && strstr(e2, "\"weight\":0.3333333333333333,") && strstr(e2, "\"retrievals\":9"));
    /* keys missing kind are told by their fields */
    qr_mem *m4 = open_store("rt4.db");
    const char bare[] = "{\"key\":\"p\"}\n\n{\"key\":\"q\",\"created\":1700000000}\r\n"
                        "{\"source\":\"p\",\"target\":\"q\"}\n"
                        "{\"agent\":\"linker\",\"node\":\"q\",\"time\":\"2026-11-20T11:00:00+01:00\"}";
    rc = qr_mem_import(m4, bare, strlen(bare), &c, &err);
    CHECK(rc == QR_OK && c.nodes == 2 && c.edges == 1 && c.visits == 1);
    char *e4 = export_str(m4, NULL);
    CHECK(e4 && strstr(e4, "\"created\":\"2023-11-14T22:13:20Z\"") &&
          strstr(e4, "\"time\":\"2026-11-20T10:00:00Z\"") && strstr(e4, "\"strength\":0.5"));
    free(e1);
    free(e2);
    free(e3);
    free(e4);
    qr_buf_release(&err);
    qr_mem_close(m);
    qr_mem_close(m2);
    qr_mem_close(m3);
    qr_mem_close(m4);
}

static void expect_import_error(qr_mem *m, const char *text, const char *want)
{
    qr_buf err;
    qr_buf_init(&err);
    uint64_t g0 = generation(m);
    char *before = export_str(m, NULL);
    int rc = qr_mem_import(m, text, strlen(text), NULL, &err);
    CHECK(rc == QR_EINVAL);
    if (!err.p || !strstr(err.p, want)) {
        fprintf(stderr, "import error: want '%s', got '%s'\n", want, err.p ? err.p : "");
        check_failures++;
    }
    char *after = export_str(m, NULL);
    CHECK(before && after && !strcmp(before, after));
    CHECK(generation(m) == g0);
    free(before);
    free(after);
    qr_buf_release(&err);
}

static void test_import_errors(void)
{
    qr_mem *m = open_store("imp.db");
    CHECK(add(m, "existing", "x", NULL, 0.5) == QR_OK);
    const char good[] = "{\"key\":\"n1\"}\n{\"key\":\"n2\"}\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\", \"weight\": 2}\n", good);
    expect_import_error(m, buf, "line 3: weight 2 is out of range");
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\"\n", good);
    expect_import_error(m, buf, "line 3: bad JSON");
    snprintf(buf, sizeof buf, "%s{\"key\":\"existing\"}\n", good);
    expect_import_error(m, buf, "line 3: node 'existing' already exists");
    snprintf(buf, sizeof buf, "%s{\"source\":\"n1\",\"target\":\"nope\"}\n", good);
    expect_import_error(m, buf, "line 3: no node 'nope'");
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\",\"colour\":\"red\"}\n", good);
    expect_import_error(m, buf, "line 3: unknown field \"colour\"");
    snprintf(buf, sizeof buf, "%s[1,2]\n", good);
    expect_import_error(m, buf, "line 3: expected a JSON object");
    snprintf(buf, sizeof buf, "%s{\"kind\":\"thing\"}\n", good);
    expect_import_error(m, buf, "line 3: unknown kind 'thing'");
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\",\"created\":\"yesterday\"}\n", good);
    expect_import_error(m, buf, "line 3: field \"created\" must be an ISO-8601 time");
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\",\"tags\":[1]}\n", good);
    expect_import_error(m, buf, "line 3: field \"tags\" must be an array of strings");
    snprintf(buf, sizeof buf, "%s{\"source\":\"n1\",\"target\":\"n2\"}\n"
                              "{\"source\":\"n1\",\"target\":\"n2\"}\n", good);
    expect_import_error(m, buf, "line 4: the 'related' link from 'n1' to 'n2' appears twice");
    snprintf(buf, sizeof buf, "%s{\"key\":\"n3\",\"content\":\"a\\u0000b\"}\n", good);
    expect_import_error(m, buf, "line 3: field \"content\" holds a NUL character");
    expect_import_error(m, "{\"x\":1}", "line 1: cannot tell what this line is");
    qr_mem_close(m);
}

/* Two processes adding nodes at once: each add succeeds or fails with "busy"; the store
 * ends up with exactly the nodes that succeeded and passes the integrity checks. */
static void test_concurrent_writers(void)
{
    enum { PER = 150 };
    qr_mem *m = open_store("conc.db");
    qr_mem_close(m);
    int pipes[2][2];
    pid_t pids[2];
    for (int k = 0; k < 2; k++) {
        CHECK(pipe(pipes[k]) == 0);
        pids[k] = fork();
        if (pids[k] == 0) {
            close(pipes[k][0]);
            qr_mem *cm = open_store("conc.db");
            int ok = 0, busy = 0, other = 0;
            for (int i = 0; i < PER; i++) {
                char key[32];
                snprintf(key, sizeof key, "p%d-%03d", k, i);
                qr_mem_node n = {.key = key, .content = "concurrent words", .weight = 0.5};
                qr_buf err;
                qr_buf_init(&err);
                int rc = qr_mem_node_add(cm, &n, NULL, &err);
                if (rc == QR_OK)
                    ok++;
                else if (err.p && strstr(err.p, "is busy"))
                    busy++;
                else
                    other++;
                qr_buf_release(&err);
            }
            qr_mem_close(cm);
            int res[3] = {ok, busy, other};
            if (write(pipes[k][1], res, sizeof res) != sizeof res)
                _exit(3);
            _exit(0);
        }
        close(pipes[k][1]);
    }
    int total_ok = 0;
    for (int k = 0; k < 2; k++) {
        int res[3] = {0, 0, 1};
        CHECK(read(pipes[k][0], res, sizeof res) == sizeof res);
        close(pipes[k][0]);
        int status = 0;
        waitpid(pids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK(res[2] == 0);
        CHECK(res[0] + res[1] == PER);
        total_ok += res[0];
    }
    m = open_store("conc.db");
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_stats st;
    CHECK(qr_mem_stats_get(m, &a, &st, NULL) == QR_OK);
    CHECK(st.nodes == total_ok);
    CHECK(st.generation == (uint64_t)total_ok);
    qr_arena_release(&a);
    qr_mem_close(m);
    char p[256];
    store_path("conc.db", p, sizeof p);
    sqlite3 *db;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    sqlite3_stmt *q;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(q) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "ok"));
    sqlite3_finalize(q);
    CHECK(sqlite3_exec(db, "INSERT INTO nodes_fts(nodes_fts) VALUES ('integrity-check')", NULL,
                       NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

/* A child imports a large file; once its write transaction has spilled pages into the WAL
 * (so it is certainly mid-import) it is killed. The store must be exactly as before. */
static void test_killed_import(void)
{
    qr_mem *m = open_store("kill.db");
    CHECK(add(m, "before", "kept", NULL, 0.5) == QR_OK);
    char *before = export_str(m, NULL);
    uint64_t g0 = generation(m);
    qr_mem_close(m);
    /* ~ 40 MB of nodes: far more than the page cache holds, so the WAL grows mid-way */
    enum { NODES = 150000 };
    qr_buf text;
    qr_buf_init(&text);
    for (int i = 0; i < NODES; i++)
        qr_buf_printf(&text,
                      "{\"key\":\"big-%06d\",\"content\":\"%0240d words words words\","
                      "\"tags\":[\"t%d\"]}\n",
                      i, i, i % 50);
    CHECK(!text.failed);
    char wal[256];
    store_path("kill.db-wal", wal, sizeof wal);
    struct stat sb;
    off_t wal0 = stat(wal, &sb) == 0 ? sb.st_size : 0;
    pid_t pid = fork();
    if (pid == 0) {
        qr_mem *cm = open_store("kill.db");
        qr_buf err;
        qr_buf_init(&err);
        qr_mem_import(cm, text.p, text.len, NULL, &err);
        _exit(7); /* reaching here means the import finished before the kill */
    }
    bool killed = false;
    for (int spin = 0; spin < 200000; spin++) {
        if (stat(wal, &sb) == 0 && sb.st_size > wal0 + (8 << 20)) {
            kill(pid, SIGKILL);
            killed = true;
            break;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            pid = -1;
            break;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (pid > 0) {
        if (!killed)
            kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    } else {
        fprintf(stderr, "killed import: the child finished before the WAL grew\n");
        check_failures++;
    }
    qr_buf_release(&text);
    m = open_store("kill.db");
    char *after = export_str(m, NULL);
    CHECK(before && after && !strcmp(before, after));
    CHECK(generation(m) == g0);
    /* and the store still takes writes */
    CHECK(add(m, "after", "", NULL, 0.5) == QR_OK);
    qr_mem_close(m);
    free(before);
    free(after);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Builds a store of nodes x edges with plain SQLite (fast), then times snapshot loads. */
static int bench(long nodes, long edges, const char *keep)
{
    char p[256];
    if (keep)
        snprintf(p, sizeof p, "%s", keep);
    else
        store_path("bench.db", p, sizeof p);
    qr_mem *m = NULL;
    if (qr_mem_open(&m, p, QR_MEM_CREATE, NULL) != QR_OK)
        return 1;
    qr_mem_close(m);
    sqlite3 *db;
    sqlite3_open(p, &db);
    double t0 = now_s();
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "INSERT INTO nodes(key, type, weight, provenance, created, modified,"
                       " content_len, content) VALUES (?1, ?2, 0.5, 'bench', ?3, ?3, ?4, ?5)",
                       -1, &st, NULL);
    static const char *const types[] = {"semantic", "episodic-daily", "episodic-session"};
    char key[64], content[400];
    for (long i = 0; i < nodes; i++) {
        snprintf(key, sizeof key, "node-%07ld", i);
        int len = snprintf(content, sizeof content, "note %ld about things %0200ld", i, i);
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, types[i % 3], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, 1700000000 + i);
        sqlite3_bind_int64(st, 4, len);
        sqlite3_bind_text(st, 5, content, len, SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db,
                       "INSERT OR IGNORE INTO edges(source, target, type, strength)"
                       " VALUES (?1, ?2, 'related', ?3)",
                       -1, &st, NULL);
    uint64_t x = 88172645463325252ull;
    for (long k = 0; k < edges; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long u = (long)(x % (uint64_t)nodes) + 1;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long v = (long)(x % (uint64_t)nodes) + 1;
        sqlite3_bind_int64(st, 1, u);
        sqlite3_bind_int64(st, 2, v);
        sqlite3_bind_double(st, 3, (double)(x % 1000 + 1) / 1000.0);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "UPDATE meta SET value = value + 1 WHERE key = 'generation'; COMMIT", NULL,
                 NULL, NULL);
    sqlite3_close(db);
    printf("built %ld nodes, %ld edges in %.2f s\n", nodes, edges, now_s() - t0);
    for (int run = 0; run < 3; run++) {
        if (qr_mem_open(&m, p, 0, NULL) != QR_OK)
            return 1;
        double t1 = now_s();
        const qr_mem_snapshot *s;
        qr_buf err;
        qr_buf_init(&err);
        int rc = qr_mem_snapshot_get(m, &s, &err);
        double t2 = now_s();
        if (rc == QR_OK) {
            printf("snapshot load %d: %.3f s (%u nodes, %u adjacencies)\n", run, t2 - t1, s->n,
                   s->graph.off[s->n]);
            const qr_mem_snapshot *again;
            double t3 = now_s();
            qr_mem_snapshot_get(m, &again, &err);
            printf("  unchanged check: %.6f s\n", now_s() - t3);
            qr_mem_snapshot_release(again);
            qr_mem_snapshot_release(s);
        } else {
            printf("snapshot failed: %s\n", err.p);
        }
        qr_buf_release(&err);
        qr_mem_close(m);
    }
    return 0;
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "/tmp/quarry-mem-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        int rc = bench(argc > 2 ? atol(argv[2]) : 100000, argc > 3 ? atol(argv[3]) : 1000000,
                       argc > 4 ? argv[4] : NULL);
        remove_dir();
        return rc;
    }
    test_crud();
    test_delete_links();
    test_search();
    test_snapshot();
    test_snapshot_random();
    test_round_trip();
    test_import_errors();
    test_concurrent_writers();
    test_killed_import();
    remove_dir();
    CHECK_DONE();
}
