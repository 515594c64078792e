/*
 * test_memory.c: unit tests for the memory store (src/memory/store*.c) on real SQLite
 * files under /tmp: node CRUD and validation, soft delete and restore, links, tags,
 * counters, full-text search with stemming, the generation counter (also across two
 * handles), the snapshot (CSR degrees, sorted and symmetric lists, merged parallel edges,
 * deleted nodes and self-loops excluded, tags, types, visits, refresh; and a randomized
 * store checked against a brute-force adjacency), exact export/import round trips, import
 * atomicity on a bad line, two processes writing at once, and a process killed with
 * SIGKILL in the middle of a large import. The snapshot file (STORE.snapshot): written,
 * reused by the next handle (its stats, the file's inode and mtime unchanged, every field
 * equal to a snapshot built from SQL), rebuilt after a write, and each kind of damage
 * (truncation, bit flips, wrong version, generation or write id, hostile counts and
 * values under a forged checksum) refused for its reason with a correct snapshot rebuilt.
 *
 * `test_memory --bench [NODES EDGES [FILE]]` builds a store of that size (default 100,000
 * nodes, 1,000,000 edges; in FILE, kept, when given) and prints how long the snapshot
 * takes to load (information only).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "check.h"
#include "memory/memory_int.h"
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

/* several writes in one transaction: all or none, one generation bump, and a second
 * handle sees nothing until the commit */
static void test_transaction(void)
{
    qr_mem *m = open_store("tx.db");
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_node a = {.key = "a", .content = "alpha"}, b = {.key = "b", .content = "beta"};
    CHECK(qr_mem_node_add(m, &a, NULL, &err) == QR_OK);
    uint64_t g0, g1;
    CHECK(qr_mem_generation(m, &g0, &err) == QR_OK);

    /* rolled back: nothing stays */
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(qr_mem_begin(m, &err) == QR_EINVAL);
    CHECK(qr_mem_node_add(m, &b, NULL, &err) == QR_OK);
    CHECK(qr_mem_link(m, "a", "b", 0.5, NULL, NULL, &err) == QR_OK);
    const qr_mem_snapshot *snap;
    CHECK(qr_mem_snapshot_get(m, &snap, &err) == QR_EINVAL);
    qr_mem_rollback(m);
    qr_arena ar;
    qr_arena_init(&ar, 0);
    qr_mem_node got;
    CHECK(qr_mem_node_get(m, "b", true, &ar, &got, &err) == QR_ERUNTIME);
    CHECK(qr_mem_generation(m, &g1, &err) == QR_OK && g1 == g0);

    /* committed: everything, one bump; a failing write inside is undone alone */
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(qr_mem_node_add(m, &b, NULL, &err) == QR_OK);
    qr_buf_reset(&err);
    CHECK(qr_mem_node_add(m, &a, NULL, &err) == QR_ERUNTIME); /* exists */
    CHECK(qr_mem_link(m, "a", "b", 0.5, NULL, NULL, &err) == QR_OK);
    CHECK(qr_mem_visit(m, "a", "linker", 0, "ok", &err) == QR_OK);
    qr_mem *other = open_store("tx.db");
    CHECK(qr_mem_node_get(other, "b", true, &ar, &got, &err) == QR_ERUNTIME);
    CHECK(qr_mem_commit(m, &err) == QR_OK);
    CHECK(qr_mem_commit(m, &err) == QR_EINVAL);
    CHECK(qr_mem_generation(m, &g1, &err) == QR_OK && g1 == g0 + 1);
    CHECK(qr_mem_node_get(other, "b", false, &ar, &got, &err) == QR_OK);
    CHECK(qr_mem_snapshot_get(other, &snap, &err) == QR_OK);
    CHECK(snap->n == 2 && snap->graph.off[snap->n] == 2 && snap->nagents == 1);
    qr_mem_snapshot_release(snap);
    qr_mem_close(other);
    qr_arena_release(&ar);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* SQLite rolls a whole transaction back by itself after an I/O error, a full disk or out
 * of memory. Provoked here by a raw ROLLBACK on the handle's connection: every operation
 * after it fails (before the fix, the next write ran as a savepoint in autocommit and was
 * kept alone, without a generation bump), the commit says so, nothing is kept, and the
 * handle works normally once the transaction is ended. */
static void test_transaction_lost(void)
{
    qr_mem *m = open_store("txlost.db");
    qr_buf err;
    qr_buf_init(&err);
    qr_arena ar;
    qr_arena_init(&ar, 0);
    qr_mem_node got;
    CHECK(add(m, "a", "alpha", NULL, 0.5) == QR_OK);
    uint64_t g0 = generation(m);

    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(add(m, "b", "beta", NULL, 0.5) == QR_OK);
    CHECK(sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
    qr_mem_node c = {.key = "c", .content = "gamma"};
    CHECK(qr_mem_node_add(m, &c, NULL, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, "was rolled back by SQLite after an earlier error"));
    CHECK(link2(m, "a", "b", 0.5, NULL) == QR_EIO);
    qr_buf_reset(&err);
    CHECK(qr_mem_node_get(m, "a", false, &ar, &got, &err) == QR_EIO); /* reads too */
    qr_buf_reset(&err);
    CHECK(qr_mem_commit(m, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, "none of its writes were kept"));
    CHECK(qr_mem_commit(m, &err) == QR_EINVAL); /* ended */
    qr_mem *other = open_store("txlost.db");
    CHECK(qr_mem_node_get(other, "b", true, &ar, &got, &err) == QR_ERUNTIME);
    CHECK(qr_mem_node_get(other, "c", true, &ar, &got, &err) == QR_ERUNTIME);
    CHECK(generation(other) == g0);

    /* ended by a rollback instead: quiet, and the next writes are ordinary ones */
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(add(m, "d", "", NULL, 0.5) == QR_OK);
    CHECK(sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
    qr_mem_rollback(m);
    CHECK(add(m, "e", "", NULL, 0.5) == QR_OK);
    CHECK(generation(other) == g0 + 1);
    CHECK(qr_mem_node_get(other, "d", true, &ar, &got, &err) == QR_ERUNTIME);
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(add(m, "f", "", NULL, 0.5) == QR_OK);
    CHECK(qr_mem_commit(m, &err) == QR_OK);
    CHECK(generation(other) == g0 + 2);
    CHECK(qr_mem_node_get(other, "f", false, &ar, &got, &err) == QR_OK);
    qr_mem_close(other);
    qr_arena_release(&ar);
    qr_buf_release(&err);
    qr_mem_close(m);
}

static char *slurp(const char *path, size_t *len);
static void spit(const char *path, const char *b, size_t len);
static bool file_is(const char *path, const char *bytes, size_t len);

/* A file that is not a store is refused and left exactly as it was: a SQLite database in
 * rollback-journal mode stays in it (quarry once set WAL, which rewrites the header, before
 * looking at what the file was), an empty file opened to read stays empty, and a file
 * that is not SQLite is named so, not called damaged. A new store still gets WAL. */
static void test_open_foreign(void)
{
    char p[256], aux[300];
    qr_buf err;
    qr_buf_init(&err);
    qr_mem *m = NULL;
    store_path("journal.db", p, sizeof p);
    sqlite3 *db;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    char *emsg = NULL;
    int src = sqlite3_exec(
        db, "PRAGMA journal_mode = DELETE; CREATE TABLE t(x); INSERT INTO t VALUES (1)", NULL,
        NULL, &emsg);
    if (src != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", p, emsg ? emsg : "?");
    sqlite3_free(emsg);
    CHECK(src == SQLITE_OK);
    sqlite3_close(db);
    size_t len0 = 0;
    char *before = slurp(p, &len0);
    CHECK(before && len0 >= 100 && before[18] == 1 && before[19] == 1); /* rollback journal */
    for (int create = 0; create < 2 && before; create++) {
        qr_buf_reset(&err);
        CHECK(qr_mem_open(&m, p, create ? QR_MEM_CREATE : 0, &err) == QR_EIO && !m);
        CHECK(err.p && strstr(err.p, "is not a quarry memory store"));
        CHECK(file_is(p, before, len0));
    }
    snprintf(aux, sizeof aux, "%s-wal", p);
    CHECK(access(aux, F_OK) != 0);
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK &&
          sqlite3_step(st) == SQLITE_ROW &&
          !strcmp((const char *)sqlite3_column_text(st, 0), "delete"));
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(before);

    /* empty: refused for reading and left empty; created as a store in WAL */
    store_path("empty.db", p, sizeof p);
    spit(p, "", 0);
    qr_buf_reset(&err);
    CHECK(qr_mem_open(&m, p, 0, &err) == QR_ERUNTIME && !m);
    CHECK(err.p && strstr(err.p, "is empty"));
    CHECK(file_is(p, "", 0));
    snprintf(aux, sizeof aux, "%s-wal", p);
    CHECK(access(aux, F_OK) != 0);
    CHECK(qr_mem_open(&m, p, QR_MEM_CREATE, &err) == QR_OK);
    qr_mem_close(m);
    size_t len = 0;
    char *head = slurp(p, &len);
    CHECK(head && len >= 100 && head[18] == 2 && head[19] == 2); /* WAL */
    free(head);

    /* not SQLite at all */
    store_path("notdb.txt", p, sizeof p);
    spit(p, "hello", 5);
    for (int create = 0; create < 2; create++) {
        qr_buf_reset(&err);
        m = NULL;
        CHECK(qr_mem_open(&m, p, create ? QR_MEM_CREATE : 0, &err) == QR_EIO && !m);
        CHECK(err.p && strstr(err.p, "is not a SQLite database") && !strstr(err.p, "damaged"));
        CHECK(file_is(p, "hello", 5));
    }
    snprintf(aux, sizeof aux, "%s-wal", p);
    CHECK(access(aux, F_OK) != 0);
    qr_buf_release(&err);
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
    /* run 0 reads SQL (and writes STORE.snapshot), runs 1 and 2 load that file, run 3
     * reads SQL again without the file */
    char side[300];
    snprintf(side, sizeof side, "%s.snapshot", p);
    unlink(side);
    for (int run = 0; run < 4; run++) {
        if (qr_mem_open(&m, p, run == 3 ? QR_MEM_NO_SNAPSHOT_FILE : 0, NULL) != QR_OK)
            return 1;
        double t1 = now_s();
        const qr_mem_snapshot *s;
        qr_buf err;
        qr_buf_init(&err);
        int rc = qr_mem_snapshot_get(m, &s, &err);
        double t2 = now_s();
        if (rc == QR_OK) {
            qr_mem_snapshot_stats ss;
            qr_mem_snapshot_stats_get(m, &ss);
            struct stat sb;
            printf("snapshot load %d: %.3f s from %s (%u nodes, %u adjacencies)%s\n", run,
                   t2 - t1, ss.file_loads ? "STORE.snapshot" : "SQL", s->n, s->graph.off[s->n],
                   ss.file_writes ? ", file written" : "");
            if (ss.file_writes && stat(side, &sb) == 0)
                printf("  STORE.snapshot: %lld bytes\n", (long long)sb.st_size);
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

/* ---- the snapshot file (STORE.snapshot) ---- */

static qr_mem *open_flags(const char *name, int flags)
{
    char p[256];
    store_path(name, p, sizeof p);
    qr_buf err;
    qr_buf_init(&err);
    qr_mem *m = NULL;
    int rc = qr_mem_open(&m, p, flags, &err);
    if (rc != QR_OK)
        fprintf(stderr, "open %s: %s\n", p, err.p ? err.p : "?");
    CHECK(rc == QR_OK);
    qr_buf_release(&err);
    return m;
}

static const qr_mem_snapshot *snap_of(qr_mem *m)
{
    const qr_mem_snapshot *s = NULL;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_snapshot_get(m, &s, &err);
    if (rc)
        fprintf(stderr, "snapshot: %s\n", err.p ? err.p : "?");
    CHECK(rc == QR_OK && s);
    qr_buf_release(&err);
    return s;
}

static qr_mem_snapshot_stats stats_of(const qr_mem *m)
{
    qr_mem_snapshot_stats st;
    qr_mem_snapshot_stats_get(m, &st);
    return st;
}

#define SAME(cond)                                                                           \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: snapshots differ: %s\n", __FILE__, __LINE__, #cond);     \
            return false;                                                                    \
        }                                                                                    \
    } while (0)

static bool same_names(const char *const *a, const char *const *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(a[k], b[k]))
            return false;
    return true;
}

#define SAME_ARRAY(f, count) SAME(!(count) || !memcmp(a->f, b->f, (size_t)(count) * sizeof *a->f))

/* Every field of two snapshots, and the lookups of b answering as a's data says. */
static bool snap_same(const qr_mem_snapshot *a, const qr_mem_snapshot *b)
{
    SAME(a && b);
    uint32_t n = a->n;
    SAME(a->n == b->n && a->generation == b->generation);
    SAME_ARRAY(id, n);
    SAME_ARRAY(key_len, n);
    for (uint32_t i = 0; i < n; i++)
        SAME(!strcmp(a->key[i], b->key[i]));
    SAME(a->ntypes == b->ntypes && same_names(a->types, b->types, a->ntypes));
    SAME_ARRAY(type, n);
    SAME_ARRAY(weight, n);
    SAME_ARRAY(created, n);
    SAME_ARRAY(modified, n);
    SAME_ARRAY(content_len, n);
    SAME(a->nprovenances == b->nprovenances &&
         same_names(a->provenances, b->provenances, a->nprovenances));
    SAME_ARRAY(provenance, n);
    SAME_ARRAY(retrievals, n);
    SAME_ARRAY(uses, n);
    SAME_ARRAY(wrongs, n);
    SAME_ARRAY(tag_off, n + 1);
    SAME_ARRAY(tag_ids, a->tag_off[n]);
    SAME(a->ntag_names == b->ntag_names &&
         same_names(a->tag_names, b->tag_names, a->ntag_names));
    SAME(a->graph.n == b->graph.n);
    SAME_ARRAY(graph.off, n + 1);
    SAME_ARRAY(graph.adj, a->graph.off[n]);
    SAME_ARRAY(graph.w, a->graph.off[n]);
    SAME(a->nagents == b->nagents && same_names(a->agents, b->agents, a->nagents));
    for (uint32_t ag = 0; ag < a->nagents; ag++)
        for (uint32_t i = 0; i < n; i++)
            SAME(qr_mem_snapshot_last_visit(a, ag, i) == qr_mem_snapshot_last_visit(b, ag, i));
    for (uint32_t i = 0; i < n; i++) {
        SAME(qr_mem_snapshot_find(b, a->key[i], a->key_len[i]) == i);
        SAME(qr_mem_snapshot_find_id(b, a->id[i]) == i);
    }
    SAME(qr_mem_snapshot_find(b, "absent", 6) == -1);
    SAME(qr_graph_check(&b->graph, NULL) == QR_OK);
    return true;
}

/* A store with every kind of field: types, provenances, tags, counters, parallel and
 * deleted links, visits by two agents, a deleted node. */
static void fill_rich(qr_mem *m)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_set_now(m, 1000);
    static const char *const tags_a[] = {"btree", "work"}, *const tags_c[] = {"work"};
    qr_mem_node a = {.key = "alpha", .content = "one", .type = "semantic", .weight = 0.5,
                     .provenance = "manual", .tags = tags_a, .ntags = 2, .retrievals = 3,
                     .uses = 2, .wrongs = 1};
    qr_mem_node c = {.key = "gamma", .content = "three", .type = "episodic-daily",
                     .weight = 0.125, .provenance = "agent:linker", .tags = tags_c, .ntags = 1};
    CHECK(qr_mem_node_add(m, &a, NULL, &err) == QR_OK);
    CHECK(add(m, "beta", "two", "procedural", 1) == QR_OK);
    CHECK(qr_mem_node_add(m, &c, NULL, &err) == QR_OK);
    CHECK(add(m, "delta", "", NULL, 0) == QR_OK);
    CHECK(add(m, "eps", "gone", NULL, 0.75) == QR_OK);
    CHECK(add(m, "zeta", "lonely", "semantic", 0.25) == QR_OK);
    CHECK(link2(m, "alpha", "beta", 0.5, NULL) == QR_OK);
    CHECK(link2(m, "beta", "alpha", 0.875, "cites") == QR_OK);
    CHECK(link2(m, "alpha", "gamma", 0.375, NULL) == QR_OK);
    CHECK(link2(m, "gamma", "delta", 1, NULL) == QR_OK);
    CHECK(link2(m, "delta", "eps", 0.25, NULL) == QR_OK);
    CHECK(qr_mem_visit(m, "alpha", "linker", 500, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "alpha", "linker", 700, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "gamma", "linker", 600, "", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "beta", "replay", 800, "", &err) == QR_OK);
    CHECK(qr_mem_node_delete(m, "eps", &err) == QR_OK);
    qr_buf_release(&err);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    return b;
}

static void spit(const char *path, const char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(b, 1, len, f) == len);
        fclose(f);
    }
}

/* True when the file at path holds exactly len bytes equal to bytes. */
static bool file_is(const char *path, const char *bytes, size_t len)
{
    size_t n = 0;
    char *b = slurp(path, &n);
    bool same = b && n == len && (!len || !memcmp(b, bytes, len));
    free(b);
    return same;
}

/* Entries of the test directory whose name starts with prefix. */
static int count_prefixed(const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

static void test_snapshot_file(void)
{
    char p[256], side[300];
    store_path("sf.db", p, sizeof p);
    snprintf(side, sizeof side, "%s.snapshot", p);
    qr_mem *m = open_store("sf.db");
    fill_rich(m);

    /* the first load reads SQL and writes the file */
    const qr_mem_snapshot *s = snap_of(m);
    qr_mem_snapshot_stats st = stats_of(m);
    CHECK(st.sql_loads == 1 && st.file_writes == 1 && st.file_loads == 0 && st.file_rejects == 0);
    struct stat sb1, sb2;
    CHECK(stat(side, &sb1) == 0 && sb1.st_size > 128);
    CHECK(count_prefixed("sf.db.snapshot.tmp.") == 0); /* renamed into place */

    /* a handle that never touches the file gives the reference, built from SQL */
    qr_mem *ref = open_flags("sf.db", QR_MEM_NO_SNAPSHOT_FILE);
    const qr_mem_snapshot *r = snap_of(ref);
    st = stats_of(ref);
    CHECK(st.sql_loads == 1 && st.file_writes == 0 && st.file_loads == 0);
    CHECK(snap_same(r, s));

    /* the next process (handle) loads the file: same fields, file untouched */
    qr_mem *b = open_flags("sf.db", 0);
    const qr_mem_snapshot *fs = snap_of(b);
    st = stats_of(b);
    CHECK(st.file_loads == 1 && st.sql_loads == 0 && st.file_writes == 0 && st.file_rejects == 0);
    CHECK(snap_same(r, fs));
    CHECK(stat(side, &sb2) == 0 && sb2.st_ino == sb1.st_ino && sb2.st_size == sb1.st_size &&
          sb2.st_mtim.tv_sec == sb1.st_mtim.tv_sec && sb2.st_mtim.tv_nsec == sb1.st_mtim.tv_nsec);
    const qr_mem_snapshot *again = snap_of(b); /* no write: the same one */
    CHECK(again == fs);
    qr_mem_snapshot_release(again);
    CHECK(qr_mem_snapshot_agent(fs, "replay") == 1);
    CHECK(qr_mem_snapshot_last_visit(fs, 0, (uint32_t)qr_mem_snapshot_find(fs, "alpha", 5)) ==
          700);

    /* a write: the handle reloads from SQL and rewrites the file; what it held stays */
    CHECK(add(b, "eta", "new", NULL, 0.5) == QR_OK);
    const qr_mem_snapshot *fs2 = snap_of(b);
    st = stats_of(b);
    CHECK(fs2 != fs && fs2->n == fs->n + 1 && st.sql_loads == 1 && st.file_writes == 1);
    CHECK(fs->n == r->n && !strcmp(fs->key[0], "alpha") && qr_graph_check(&fs->graph, NULL) == 0);
    qr_mem_snapshot_release(fs);
    CHECK(stat(side, &sb2) == 0 && sb2.st_ino != sb1.st_ino);
    qr_mem *c = open_flags("sf.db", 0);
    const qr_mem_snapshot *cs = snap_of(c);
    CHECK(stats_of(c).file_loads == 1 && snap_same(fs2, cs));
    qr_mem_snapshot_release(cs);
    qr_mem_close(c);

    /* a write through a handle that does not write the file: the file is stale */
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_node_delete(ref, "eta", &err) == QR_OK);
    qr_mem_snapshot_release(r);
    r = snap_of(ref);
    c = open_flags("sf.db", 0);
    cs = snap_of(c);
    st = stats_of(c);
    CHECK(st.file_rejects == 1 && st.sql_loads == 1 && st.file_writes == 1 && st.file_loads == 0);
    CHECK(st.last_reject && !strcmp(st.last_reject, "stale: another generation"));
    CHECK(snap_same(r, cs));
    qr_mem_snapshot_release(cs);
    qr_mem_close(c);

    qr_mem_snapshot_release(fs2);
    qr_mem_snapshot_release(s);
    qr_mem_snapshot_release(r);
    qr_buf_release(&err);
    qr_mem_close(b);
    qr_mem_close(ref);
    qr_mem_close(m);
}

/* The file's layout (store_snapfile.c), to aim damage at one array. */
typedef struct snap_layout {
    uint32_t n, ntypes, nprov, ntagn, ntags, nadj, nagents, nvslots;
    uint64_t nstr;
    size_t id, weight, tag_off, tag_ids, off, adj, w, vslots, vnode, type, str, key_len;
} snap_layout;

static snap_layout layout_of_image(const char *img)
{
    snap_layout l;
    uint32_t c[8];
    memcpy(c, img + QR__SNAPFILE_OFF_COUNTS, sizeof c);
    memcpy(&l.nstr, img + QR__SNAPFILE_OFF_COUNTS + 32, 8);
    l.n = c[0], l.ntypes = c[1], l.nprov = c[2], l.ntagn = c[3], l.ntags = c[4], l.nadj = c[5];
    l.nagents = c[6], l.nvslots = c[7];
    size_t n = l.n;
    l.id = 128;
    l.weight = 128 + 8 * 6 * n;
    l.key_len = l.weight + 8 * (n + l.nvslots);
    l.tag_off = l.key_len + 3 * 4 * n;
    l.tag_ids = l.tag_off + 4 * (n + 1);
    l.off = l.tag_ids + 4 * (size_t)l.ntags;
    l.adj = l.off + 4 * (n + 1);
    l.w = l.adj + 4 * (size_t)l.nadj;
    l.vslots = l.w + 4 * (size_t)l.nadj;
    l.vnode = l.vslots + 4 * (size_t)l.nagents;
    l.type = l.vnode + 4 * (size_t)l.nvslots;
    l.str = l.type + 2 * n;
    return l;
}

static void put32_at(char *img, size_t off, uint32_t v)
{
    memcpy(img + off, &v, 4);
}

static void put64_at(char *img, size_t off, uint64_t v)
{
    memcpy(img + off, &v, 8);
}

static void putf_at(char *img, size_t off, float v)
{
    memcpy(img + off, &v, 4);
}

static void putd_at(char *img, size_t off, double v)
{
    memcpy(img + off, &v, 8);
}

static uint64_t get_u64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

typedef enum {
    D_TRUNC1, D_TRUNC64, D_EMPTY, D_EXTEND, D_FLIP_BODY, D_FLIP_LAST, D_FLIP_COUNT, D_MAGIC,
    D_BOM, D_VERSION, D_SCHEMA, D_GENERATION, D_WRITE_ID, D_PADDING, D_HUGE_N, D_BIG_N, D_BIG_ADJ,
    D_HUGE_STR, D_NAME_COUNT, D_ADJ_RANGE, D_ADJ_SELF, D_ASYM, D_W_NAN, D_W_ZERO, D_OFF_DECREASE,
    D_OFF_END, D_OFF_JUMP, D_TAG_OFF_JUMP, D_TAG_RANGE, D_TYPE_RANGE, D_WEIGHT, D_IDS,
    D_KEY_NUL, D_KEY_LEN, D_VISIT_NODE, D_VISIT_POW2, D_STR_END, D_NAMES_ORDER, D_COUNT
} damage;

static const struct {
    const char *name;
    bool seal; /* recompute the checksum after the damage (a forged file) */
    const char *why;
} damages[D_COUNT] = {
    [D_TRUNC1] = {"truncated by one byte", false, "truncated or extended"},
    [D_TRUNC64] = {"truncated into the header", false, "not a snapshot file"},
    [D_EMPTY] = {"empty", false, "not a snapshot file"},
    [D_EXTEND] = {"extended", false, "truncated or extended"},
    [D_FLIP_BODY] = {"bit flip in the body", false, "checksum mismatch"},
    [D_FLIP_LAST] = {"bit flip in the last byte", false, "checksum mismatch"},
    [D_FLIP_COUNT] = {"bit flip in a count", false, "length does not match the counts"},
    [D_MAGIC] = {"wrong magic", true, "not a snapshot file"},
    [D_BOM] = {"other byte order", true, "written on a machine of another byte order"},
    [D_VERSION] = {"format version 1 (f32 weights)", true, "another format version"},
    [D_SCHEMA] = {"schema version 99", true, "another schema version"},
    [D_GENERATION] = {"another generation", true, "stale: another generation"},
    [D_WRITE_ID] = {"another write id", true, "stale: another write id"},
    [D_PADDING] = {"header padding", true, "header padding is not zero"},
    [D_HUGE_N] = {"n = 2^30", true, "counts out of range"},
    [D_BIG_N] = {"n = 2^30 - 2", true, "counts out of range"},
    [D_BIG_ADJ] = {"two more adjacencies", true, "length does not match the counts"},
    [D_HUGE_STR] = {"string bytes 2^63", true, "counts out of range"},
    /* found by fuzz_mem_snapshot: name counts size allocations, not the layout */
    [D_NAME_COUNT] = {"provenances 2^30", true, "counts out of range"},
    [D_ADJ_RANGE] = {"neighbour n", true, "neighbour out of range, the node itself or not ascending"},
    [D_ADJ_SELF] = {"neighbour itself", true, "neighbour out of range, the node itself or not ascending"},
    [D_ASYM] = {"one-sided strength", true, "graph not symmetric"},
    [D_W_NAN] = {"strength NaN", true, "strength out of range"},
    [D_W_ZERO] = {"strength 0", true, "strength out of range"},
    [D_OFF_DECREASE] = {"offsets decrease", true, "offsets decrease"},
    [D_OFF_END] = {"last offset", true, "offsets do not match the counts"},
    /* an offset far past its array that comes down again at the next node: the whole
     * array is checked before node 0's loop would walk past the image */
    [D_OFF_JUMP] = {"off[1] past the adjacencies", true, "offsets decrease"},
    [D_TAG_OFF_JUMP] = {"tag_off[1] past the tags", true, "offsets decrease"},
    [D_TAG_RANGE] = {"tag index", true, "tag index out of range or not ascending"},
    [D_TYPE_RANGE] = {"type index", true, "type or provenance index out of range"},
    [D_WEIGHT] = {"weight 2", true, "weight out of range"},
    [D_IDS] = {"ids repeat", true, "ids not ascending"},
    [D_KEY_NUL] = {"NUL in a key", true, "key outside the strings or holding NUL"},
    [D_KEY_LEN] = {"key length past the end", true, "key outside the strings or holding NUL"},
    [D_VISIT_NODE] = {"visit node n + 1", true, "visit node out of range"},
    [D_VISIT_POW2] = {"visit table of 17", true, "visit table size is not a power of two"},
    [D_STR_END] = {"unterminated names", true, "names outside the strings, empty or not sorted"},
    [D_NAMES_ORDER] = {"types out of order", true, "names outside the strings, empty or not sorted"},
};

/* Damages a copy of the image; returns its new length. */
static size_t do_damage(damage d, char *img, size_t len)
{
    snap_layout l = layout_of_image(img);
    uint32_t u;
    switch (d) {
    case D_TRUNC1: return len - 1;
    case D_TRUNC64: return 64;
    case D_EMPTY: return 0;
    case D_EXTEND: memset(img + len, 0, 8); return len + 8;
    case D_FLIP_BODY: img[len / 2] ^= 0x10; break;
    case D_FLIP_LAST: img[len - 1] ^= 0x01; break;
    case D_FLIP_COUNT: img[QR__SNAPFILE_OFF_COUNTS + 20] ^= 0x02; break; /* adjacencies */
    case D_MAGIC: img[0] = 'X'; break;
    case D_BOM: put32_at(img, 8, 0x04030201u); break;
    case D_VERSION: put32_at(img, QR__SNAPFILE_OFF_VERSION, 1); break;
    case D_SCHEMA: put32_at(img, QR__SNAPFILE_OFF_SCHEMA, 99); break;
    case D_GENERATION: img[QR__SNAPFILE_OFF_GENERATION] ^= 1; break;
    case D_WRITE_ID: img[QR__SNAPFILE_OFF_WRITE_ID] ^= 1; break;
    case D_PADDING: img[127] = 1; break;
    case D_HUGE_N: put32_at(img, QR__SNAPFILE_OFF_COUNTS, 1u << 30); break;
    case D_BIG_N: put32_at(img, QR__SNAPFILE_OFF_COUNTS, (1u << 30) - 2); break;
    case D_BIG_ADJ: put32_at(img, QR__SNAPFILE_OFF_COUNTS + 20, l.nadj + 2); break;
    case D_HUGE_STR: put64_at(img, QR__SNAPFILE_OFF_COUNTS + 32, 1ull << 63); break;
    case D_NAME_COUNT: put32_at(img, QR__SNAPFILE_OFF_COUNTS + 8, 1u << 30); break;
    case D_ADJ_RANGE: put32_at(img, l.adj, l.n); break;
    case D_ADJ_SELF: put32_at(img, l.adj, 0); break; /* node 0 lists itself */
    case D_ASYM: putf_at(img, l.w, 0.0625f); break;
    case D_W_NAN: putf_at(img, l.w, NAN); break;
    case D_W_ZERO: putf_at(img, l.w, 0.0f); break;
    case D_OFF_DECREASE: /* off[2] = off[1] - 1 (node 0 has neighbours) */
        memcpy(&u, img + l.off + 4, 4);
        put32_at(img, l.off + 8, u - 1);
        break;
    case D_OFF_END: put32_at(img, l.off + 4 * (size_t)l.n, 0); break;
    case D_OFF_JUMP: put32_at(img, l.off + 4, l.nadj + 1000); break;
    case D_TAG_OFF_JUMP: put32_at(img, l.tag_off + 4, l.ntags + 1000); break;
    case D_TAG_RANGE: put32_at(img, l.tag_ids, l.ntagn); break;
    case D_TYPE_RANGE: {
        uint16_t t = (uint16_t)l.ntypes;
        memcpy(img + l.type, &t, 2);
        break;
    }
    case D_WEIGHT: putd_at(img, l.weight, 2.0); break;
    case D_IDS: memcpy(img + l.id + 8, img + l.id, 8); break;
    case D_KEY_NUL: img[l.str] = 0; break;
    case D_KEY_LEN: put32_at(img, l.key_len, (uint32_t)l.nstr); break;
    case D_VISIT_NODE:
        for (size_t k = 0; k < l.nvslots; k++) {
            memcpy(&u, img + l.vnode + 4 * k, 4);
            if (u) {
                put32_at(img, l.vnode + 4 * k, l.n + 1);
                break;
            }
        }
        break;
    case D_VISIT_POW2: put32_at(img, l.vslots, 17); break;
    case D_STR_END: img[l.str + l.nstr - 1] = 'x'; break;
    case D_NAMES_ORDER: {
        /* the first type name (after the keys) starts with 'z': sorted no more */
        size_t pos = l.str;
        for (uint32_t i = 0; i < l.n; i++)
            pos += strlen(img + pos) + 1;
        img[pos] = 'z';
        break;
    }
    case D_COUNT: break;
    }
    return len;
}

static void test_snapshot_file_damage(void)
{
    char p[256], side[300];
    store_path("dmg.db", p, sizeof p);
    snprintf(side, sizeof side, "%s.snapshot", p);
    qr_mem *m = open_store("dmg.db");
    fill_rich(m);
    qr_mem_snapshot_release(snap_of(m));
    CHECK(stats_of(m).file_writes == 1);
    qr_mem_close(m);
    size_t len = 0;
    char *good = slurp(side, &len);
    CHECK(good && len > 128);
    if (!good)
        return;
    snap_layout l = layout_of_image(good);
    CHECK(l.n == 5 && l.nagents == 2 && l.ntypes == 3 && l.nadj == 6 && l.nvslots == 32);
    CHECK(l.str + l.nstr == len); /* the test's copy of the layout is right */
    qr_mem *ref = open_flags("dmg.db", QR_MEM_NO_SNAPSHOT_FILE);
    const qr_mem_snapshot *r = snap_of(ref);
    char *img = malloc(len + 8);
    for (int d = 0; d < D_COUNT && img; d++) {
        memcpy(img, good, len);
        size_t n = do_damage((damage)d, img, len);
        if (damages[d].seal)
            qr__mem_snapfile_seal(img, n);
        spit(side, img, n);
        qr_mem *h = open_flags("dmg.db", 0);
        const qr_mem_snapshot *s = snap_of(h);
        qr_mem_snapshot_stats st = stats_of(h);
        bool ok = st.file_rejects == 1 && st.file_loads == 0 && st.sql_loads == 1 &&
                  st.file_writes == 1 && st.last_reject &&
                  !strcmp(st.last_reject, damages[d].why) && snap_same(r, s);
        if (!ok)
            fprintf(stderr, "damage '%s': rejected as '%s', expected '%s'\n", damages[d].name,
                    st.last_reject ? st.last_reject : "(not rejected)", damages[d].why);
        CHECK(ok);
        qr_mem_snapshot_release(s);
        qr_mem_close(h);
        /* rebuilt: the file is whole again */
        size_t len2 = 0;
        char *again = slurp(side, &len2);
        CHECK(again && len2 == len && !memcmp(again, good, len));
        free(again);
    }
    free(img);

    /* the same checks straight on images: every damaged one refused, the good one loads */
    for (int d = 0; d < D_COUNT; d++) {
        char *b = malloc(len + 8);
        memcpy(b, good, len);
        size_t n = do_damage((damage)d, b, len);
        if (damages[d].seal)
            qr__mem_snapfile_seal(b, n);
        qr_mem_snapshot *s = NULL;
        const char *why = NULL;
        CHECK(qr__mem_snapfile_parse(b, n, r->generation, ((qr__snap_priv *)r->priv)->write_id,
                                     &s, &why) == QR_ERUNTIME &&
              !s && why);
    }
    char *b = malloc(len);
    memcpy(b, good, len);
    qr_mem_snapshot *s = NULL;
    const char *why = NULL;
    CHECK(qr__mem_snapfile_parse(b, len, r->generation, ((qr__snap_priv *)r->priv)->write_id, &s,
                                 &why) == QR_OK &&
          snap_same(r, s));
    qr_mem_snapshot_release(s);

    /* the side file is a directory: ignored, and not replaced */
    unlink(side);
    CHECK(mkdir(side, 0755) == 0);
    qr_mem *h = open_flags("dmg.db", 0);
    const qr_mem_snapshot *hs = snap_of(h);
    qr_mem_snapshot_stats st = stats_of(h);
    CHECK(st.file_rejects == 1 && st.last_reject && !strcmp(st.last_reject, "not a regular file"));
    CHECK(st.sql_loads == 1 && st.file_writes == 0 && snap_same(r, hs));
    CHECK(count_prefixed("dmg.db.snapshot.tmp.") == 0); /* the rename failed: none left */
    qr_mem_snapshot_release(hs);
    qr_mem_close(h);
    rmdir(side);

    /* a symlink planted at the temporary name an older quarry used (STORE.snapshot.tmp.PID,
     * opened with O_TRUNC) is not followed: its target keeps its bytes, and the file is
     * written under a fresh name with the store's permission bits, then renamed */
    char tmp[320], victim[256];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", side, (long)getpid());
    store_path("victim.txt", victim, sizeof victim);
    spit(victim, "precious", 8);
    CHECK(symlink(victim, tmp) == 0);
    CHECK(chmod(p, 0640) == 0);
    h = open_flags("dmg.db", 0);
    hs = snap_of(h);
    st = stats_of(h);
    CHECK(st.sql_loads == 1 && st.file_writes == 1 && snap_same(r, hs));
    size_t vlen = 0;
    char *v = slurp(victim, &vlen);
    CHECK(v && vlen == 8 && !memcmp(v, "precious", 8));
    free(v);
    struct stat lsb;
    CHECK(lstat(tmp, &lsb) == 0 && S_ISLNK(lsb.st_mode));
    CHECK(lstat(side, &lsb) == 0 && S_ISREG(lsb.st_mode) && (size_t)lsb.st_size == len &&
          (lsb.st_mode & 0777) == 0640);
    CHECK(count_prefixed("dmg.db.snapshot.tmp.") == 1); /* only the planted link */
    qr_mem_snapshot_release(hs);
    qr_mem_close(h);
    unlink(tmp);
    unlink(victim);
    chmod(p, 0644);

    qr_mem_snapshot_release(r);
    qr_mem_close(ref);
    free(good);
}

/* The shape a review found (a sealed file, after the checksum): tag_off[1] is a million
 * and every u32 from tag_off's end to the end of the image ascends and stays below the
 * tag-name count, so a reader that checked offset i + 1 only once node i's loop was done
 * walked tag_ids off the end of the image (ASan: heap-buffer-overflow; without ASan it
 * stopped later for another reason). head: a valid file's header (magic, versions,
 * generation, write id), whose counts and length are replaced. malloc'd, exactly *len. */
static char *walking_tags_image(const char *head, size_t *len)
{
    enum { N = 2, NTYPES = 20, NPROV = 1, NADJ = 2, NSTR = 4096 };
    uint32_t counts[8] = {N, NTYPES, NPROV, NSTR - 30 /* tag names */, 0, NADJ, 0, 0};
    size_t n = 128 + 8 * 7 * N + 4 * 3 * N + 4 * (N + 1) + 4 * (N + 1) + 2 * 4 * NADJ + 2 * N +
               NSTR;
    char *img = calloc(1, n);
    if (!img)
        return NULL;
    memcpy(img, head, 128);
    memcpy(img + QR__SNAPFILE_OFF_COUNTS, counts, sizeof counts);
    put64_at(img, QR__SNAPFILE_OFF_COUNTS + 32, NSTR);
    put64_at(img, QR__SNAPFILE_OFF_LENGTH, n);
    snap_layout l = layout_of_image(img);
    CHECK(l.str + NSTR == n);
    put64_at(img, l.id, 1);
    put64_at(img, l.id + 8, 2);
    putd_at(img, l.weight, 0.5);
    putd_at(img, l.weight + 8, 0.5);
    put32_at(img, l.tag_off + 4, 1000000); /* tag_off = 0, 1000000, 0 */
    /* off = 0 1 2 (= NADJ), then adj, w, both types (type[0] small) and the strings */
    uint32_t v = 0;
    for (size_t o = l.off; o + 4 <= n; o += 4)
        put32_at(img, o, v++);
    qr__mem_snapfile_seal(img, n);
    *len = n;
    return img;
}

/* Every offset array is checked whole before any loop reads through it. */
static void test_snapshot_file_offsets(void)
{
    qr_mem *m = open_store("offs.db");
    CHECK(add(m, "one", "", NULL, 0.5) == QR_OK);
    qr_mem_snapshot_release(snap_of(m));
    qr_mem_close(m);
    char p[256], side[300];
    store_path("offs.db", p, sizeof p);
    snprintf(side, sizeof side, "%s.snapshot", p);
    size_t glen = 0, len = 0;
    char *good = slurp(side, &glen);
    CHECK(good && glen > 128);
    char *img = good ? walking_tags_image(good, &len) : NULL;
    CHECK(img != NULL);
    if (img) {
        qr_mem_snapshot *s = NULL;
        const char *why = NULL;
        int rc = qr__mem_snapfile_parse(img, len, get_u64(good + QR__SNAPFILE_OFF_GENERATION),
                                        get_u64(good + QR__SNAPFILE_OFF_WRITE_ID), &s, &why);
        if (!why || strcmp(why, "offsets decrease"))
            fprintf(stderr, "walking tags: rejected as '%s'\n", why ? why : "(accepted)");
        CHECK(rc == QR_ERUNTIME && !s && why && !strcmp(why, "offsets decrease"));
    }
    free(good);
}

/* Weights are the store's doubles in the snapshot, built from SQL and read back from the
 * file: comparing them agrees with SQL (as f32, 0.50000001 was 0.5, so weight > 0.5
 * missed it, and 0.30000001 was below 0.3f). */
static void test_snapshot_weights(void)
{
    static const double w[] = {0.5, 0.50000001, 0.49999999, 0.3, 0.30000001, 0.29999999, 0, 1};
    enum { NW = sizeof w / sizeof w[0] };
    qr_mem *m = open_store("wt.db");
    char key[16];
    for (int i = 0; i < NW; i++) {
        snprintf(key, sizeof key, "w%d", i);
        CHECK(add(m, key, "", NULL, w[i]) == QR_OK);
    }
    const qr_mem_snapshot *from_sql = snap_of(m);
    qr_mem *b = open_flags("wt.db", 0);
    const qr_mem_snapshot *from_file = snap_of(b);
    CHECK(stats_of(m).sql_loads == 1 && stats_of(b).file_loads == 1);
    CHECK(from_sql->n == NW && from_file->n == NW);
    for (int i = 0; i < NW && from_sql->n == NW && from_file->n == NW; i++)
        CHECK(from_sql->weight[i] == w[i] && from_file->weight[i] == w[i]);
    static const char *const ops[] = {">", ">=", "<", "<=", "="};
    static const double th[] = {0.5, 0.3, 0.50000001, 0.30000001};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t t = 0; t < sizeof th / sizeof th[0]; t++) {
            char sql[128], want[128] = "", got_sql[128] = "", got_file[128] = "";
            snprintf(sql, sizeof sql,
                     "SELECT key FROM nodes WHERE deleted IS NULL AND weight %s ?1 ORDER BY id",
                     ops[o]);
            sqlite3_stmt *st = NULL;
            CHECK(sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) == SQLITE_OK);
            sqlite3_bind_double(st, 1, th[t]);
            while (sqlite3_step(st) == SQLITE_ROW) {
                strcat(want, (const char *)sqlite3_column_text(st, 0));
                strcat(want, " ");
            }
            sqlite3_finalize(st);
            for (int pass = 0; pass < 2; pass++) {
                const qr_mem_snapshot *s = pass ? from_file : from_sql;
                char *out = pass ? got_file : got_sql;
                for (uint32_t i = 0; i < s->n; i++) {
                    double x = s->weight[i], y = th[t];
                    bool hit = o == 0 ? x > y : o == 1 ? x >= y : o == 2 ? x < y : o == 3 ? x <= y
                                                                                   : x == y;
                    if (hit) {
                        strcat(out, s->key[i]);
                        strcat(out, " ");
                    }
                }
            }
            if (strcmp(want, got_sql) || strcmp(want, got_file))
                fprintf(stderr, "weight %s %.8f: sql '%s', snapshot '%s', from the file '%s'\n",
                        ops[o], th[t], want, got_sql, got_file);
            CHECK(!strcmp(want, got_sql) && !strcmp(want, got_file));
        }
    qr_mem_snapshot_release(from_sql);
    qr_mem_snapshot_release(from_file);
    qr_mem_close(b);
    qr_mem_close(m);
}

/* A store deleted and created again reaches the same generation: the write id tells the
 * old file apart. Also: an empty snapshot round trip, and no file for ":memory:". */
static void test_snapshot_file_identity(void)
{
    char p[256], side[300], aux[300];
    store_path("ident.db", p, sizeof p);
    snprintf(side, sizeof side, "%s.snapshot", p);
    qr_mem *m = open_store("ident.db");
    CHECK(add(m, "old", "", NULL, 0.5) == QR_OK);
    uint64_t gen = generation(m);
    qr_mem_snapshot_release(snap_of(m));
    CHECK(stats_of(m).file_writes == 1);
    qr_mem_close(m);
    unlink(p);
    snprintf(aux, sizeof aux, "%s-wal", p);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-shm", p);
    unlink(aux);
    CHECK(access(side, F_OK) == 0);
    m = open_store("ident.db");
    CHECK(add(m, "new", "", NULL, 0.5) == QR_OK);
    CHECK(generation(m) == gen);
    const qr_mem_snapshot *s = snap_of(m);
    qr_mem_snapshot_stats st = stats_of(m);
    CHECK(st.file_rejects == 1 && st.last_reject &&
          !strcmp(st.last_reject, "stale: another write id"));
    CHECK(s->n == 1 && !strcmp(s->key[0], "new"));
    qr_mem_snapshot_release(s);

    /* every node deleted: an empty snapshot, written and read back */
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_node_delete(m, "new", &err) == QR_OK);
    s = snap_of(m);
    CHECK(s->n == 0 && stats_of(m).file_writes == 2);
    qr_mem_snapshot_release(s);
    qr_mem *b = open_flags("ident.db", 0);
    s = snap_of(b);
    CHECK(stats_of(b).file_loads == 1 && s->n == 0 && s->graph.off[0] == 0 &&
          qr_mem_snapshot_find(s, "new", 3) == -1);
    qr_mem_snapshot_release(s);
    qr_mem_close(b);
    qr_mem_close(m);

    /* ":memory:" has no side file */
    CHECK(qr_mem_open(&m, ":memory:", QR_MEM_CREATE, &err) == QR_OK);
    CHECK(add(m, "k", "", NULL, 0.5) == QR_OK);
    s = snap_of(m);
    st = stats_of(m);
    CHECK(st.sql_loads == 1 && st.file_writes == 0 && st.file_loads == 0 && s->n == 1);
    CHECK(access(":memory:.snapshot", F_OK) != 0);
    qr_mem_snapshot_release(s);
    qr_mem_close(m);
    qr_buf_release(&err);
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
    test_transaction();
    test_transaction_lost();
    test_open_foreign();
    test_delete_links();
    test_search();
    test_snapshot();
    test_snapshot_random();
    test_snapshot_file();
    test_snapshot_file_damage();
    test_snapshot_file_offsets();
    test_snapshot_weights();
    test_snapshot_file_identity();
    test_round_trip();
    test_import_errors();
    test_concurrent_writers();
    test_killed_import();
    remove_dir();
    CHECK_DONE();
}
