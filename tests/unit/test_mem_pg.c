/*
 * test_mem_pg.c: what a memory store shared by many processes must do, on the backend a
 * location names: a SQLite file in a temporary directory always, and the PostgreSQL
 * database of QUARRY_TEST_PG_URL as well when it is set (tests/cli/50_mem_pg_faults.sh
 * runs this binary on a throwaway server; issue 26). One set of checks, run on each:
 *   - the snapshot one handle holds is refreshed when another handle writes (the change
 *     counter bumped in each write's transaction, checked before a read), and not
 *     reloaded when nothing changed;
 *   - a caller's transaction (qr_mem_begin): a rolled-back one leaves nothing, a failed
 *     write inside it is undone alone, a committed one is one generation;
 *   - four processes adding to one counter and re-weighting one note at once lose no
 *     increment (the counter changes in SQL, never read-modify-write in the client);
 *   - PostgreSQL only: four schedulers racing for one due agent: it runs once (each
 *     scheduler that claims it records a visit; exactly one visit and runs = 1).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "check.h"
#include "quarry/memory.h"
#include "quarry/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static qr_mem *open_store(const char *loc)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mem_open(&m, loc, QR_MEM_CREATE, &err) != QR_OK)
        fprintf(stderr, "open %s: %s\n", loc, err.p ? err.p : "?");
    qr_buf_release(&err);
    return m;
}

static int add(qr_mem *m, const char *key, const char *content)
{
    qr_mem_node n = {.key = key, .content = content, .weight = 0.5};
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_node_add(m, &n, NULL, &err);
    if (rc)
        fprintf(stderr, "add %s: %s\n", key, err.p ? err.p : "?");
    qr_buf_release(&err);
    return rc;
}

static void test_snapshot_refresh(const char *loc)
{
    qr_mem *a = open_store(loc), *b = open_store(loc);
    CHECK(a && b);
    if (!a || !b)
        return;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(add(a, "s1", "one") == QR_OK && add(a, "s2", "two") == QR_OK);
    const qr_mem_snapshot *s1 = NULL, *s2 = NULL, *s3 = NULL;
    CHECK(qr_mem_snapshot_get(a, &s1, &err) == QR_OK && s1);
    uint32_t n0 = s1 ? s1->n : 0;
    CHECK(n0 >= 2);
    /* nothing changed: the same snapshot, no load */
    qr_mem_snapshot_stats st0, st1;
    qr_mem_snapshot_stats_get(a, &st0);
    CHECK(qr_mem_snapshot_get(a, &s2, &err) == QR_OK && s2 == s1);
    qr_mem_snapshot_stats_get(a, &st1);
    CHECK(st1.sql_loads == st0.sql_loads);
    /* another handle (another agent) writes: the next read sees it */
    CHECK(add(b, "s3", "three") == QR_OK);
    bool created = false;
    CHECK(qr_mem_link(b, "s1", "s3", 0.5, NULL, &created, &err) == QR_OK && created);
    CHECK(qr_mem_snapshot_get(a, &s3, &err) == QR_OK && s3 && s3 != s1);
    if (s3 && s1) {
        CHECK(s3->n == n0 + 1);
        CHECK(s3->generation > s1->generation);
        int64_t i = qr_mem_snapshot_find(s3, "s3", 2), j = qr_mem_snapshot_find(s3, "s1", 2);
        CHECK(i >= 0 && j >= 0);
        if (i >= 0)
            CHECK(s3->graph.off[i + 1] - s3->graph.off[i] == 1);
        /* the old snapshot is unchanged for whoever holds it */
        CHECK(s1->n == n0 && qr_mem_snapshot_find(s1, "s3", 2) < 0);
    }
    qr_mem_snapshot_stats_get(a, &st1);
    CHECK(st1.sql_loads + st1.file_loads > st0.sql_loads + st0.file_loads);
    /* a delete elsewhere hides the node at the next read */
    CHECK(qr_mem_node_delete(b, "s3", &err) == QR_OK);
    const qr_mem_snapshot *s4 = NULL;
    CHECK(qr_mem_snapshot_get(a, &s4, &err) == QR_OK && s4 && s4->n == n0);
    qr_mem_snapshot_release(s1);
    qr_mem_snapshot_release(s2);
    qr_mem_snapshot_release(s3);
    qr_mem_snapshot_release(s4);
    qr_mem_close(a);
    qr_mem_close(b);
    qr_buf_release(&err);
}

static void test_transaction(const char *loc)
{
    qr_mem *m = open_store(loc);
    CHECK(m != NULL);
    if (!m)
        return;
    qr_buf err;
    qr_buf_init(&err);
    uint64_t g0 = 0, g1 = 0, g2 = 0;
    CHECK(qr_mem_generation(m, &g0, &err) == QR_OK);
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(add(m, "t1", "kept?") == QR_OK);
    qr_mem_rollback(m);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node n;
    CHECK(qr_mem_node_get(m, "t1", true, &a, &n, &err) == QR_ERUNTIME);
    CHECK(qr_mem_generation(m, &g1, &err) == QR_OK && g1 == g0);
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(add(m, "t2", "kept") == QR_OK);
    qr_buf_reset(&err);
    /* a write that fails inside it is undone alone */
    CHECK(qr_mem_link(m, "t2", "nosuch", 0.5, NULL, NULL, &err) == QR_ERUNTIME);
    CHECK(add(m, "t3", "kept too") == QR_OK);
    CHECK(qr_mem_link(m, "t2", "t3", 0.25, "cites", NULL, &err) == QR_OK);
    CHECK(qr_mem_commit(m, &err) == QR_OK);
    CHECK(qr_mem_generation(m, &g2, &err) == QR_OK && g2 == g0 + 1);
    CHECK(qr_mem_node_get(m, "t3", false, &a, &n, &err) == QR_OK);
    qr_mem_edge *e = NULL;
    size_t ne = 0;
    CHECK(qr_mem_edges(m, "t2", false, &a, &e, &ne, &err) == QR_OK && ne == 1);
    if (ne == 1)
        CHECK(!strcmp(e[0].target, "t3") && e[0].strength == 0.25);
    qr_arena_release(&a);
    qr_mem_close(m);
    qr_buf_release(&err);
}

/* Four processes: 50 retrieval counts and 50 re-weights each on one note. */
static void test_atomic_counters(const char *loc)
{
    qr_mem *m = open_store(loc);
    CHECK(m && add(m, "hub", "counted") == QR_OK);
    qr_mem_close(m);
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            qr_mem *c = open_store(loc);
            qr_buf err;
            qr_buf_init(&err);
            int bad = !c;
            for (int i = 0; c && i < 50; i++) {
                qr_mem_update u = {.has_weight = true, .weight = (k * 50 + i) / 1000.0};
                if (qr_mem_node_count(c, "hub", QR_MEM_RETRIEVALS, 1, &err) ||
                    qr_mem_node_update(c, "hub", &u, &err)) {
                    fprintf(stderr, "child %d: %s\n", k, err.p ? err.p : "?");
                    bad = 1;
                    break;
                }
            }
            qr_mem_close(c);
            _exit(bad);
        }
    }
    for (int k = 0; k < 4; k++) {
        int status = 0;
        CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
    }
    m = open_store(loc);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node n;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(m && qr_mem_node_get(m, "hub", false, &a, &n, &err) == QR_OK);
    CHECK(n.retrievals == 200);
    CHECK(n.weight >= 0 && n.weight < 0.2);
    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* Four schedulers race for one due agent: whoever claims it runs it (a visit by the agent
 * on a note) and ends its run; it runs once. */
static void test_scheduler_race(const char *url)
{
    qr_store st;
    qr_buf err, name;
    qr_buf_init(&err);
    qr_buf_init(&name);
    CHECK(qr_store_pg_connect(&st, "test", url, &err) == QR_OK);
    CHECK(qr_store_agent_schedule(&st, "consolidate", 100, &err) == QR_OK);
    qr_store_close(&st);
    qr_mem *m = open_store(url);
    CHECK(m && add(m, "race-target", "visited once") == QR_OK);
    qr_mem_close(m);
    int pipes[4][2];
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        if (pipe(pipes[k]) != 0)
            return;
        kids[k] = fork();
        if (kids[k] == 0) {
            close(pipes[k][1]);
            char go;
            (void)!read(pipes[k][0], &go, 1); /* all start together */
            qr_store s;
            qr_buf e, who;
            qr_buf_init(&e);
            qr_buf_init(&who);
            char holder[16];
            snprintf(holder, sizeof holder, "sched-%d", k);
            bool claimed = false, held = false;
            int rc = qr_store_pg_connect(&s, "test", url, &e);
            if (rc == QR_OK)
                rc = qr_store_agent_claim(&s, holder, 150, 60, &who, &claimed, &e);
            if (rc == QR_OK && claimed) {
                qr_mem *c = open_store(url);
                rc = c ? qr_mem_visit(c, "race-target", who.p, 150, holder, &e) : QR_EIO;
                qr_mem_close(c);
                if (rc == QR_OK)
                    rc = qr_store_agent_done(&s, who.p, holder, 1000, &held, &e);
            }
            qr_store_close(&s);
            _exit(rc == QR_OK ? 0 : 1);
        }
        close(pipes[k][0]);
    }
    for (int k = 0; k < 4; k++)
        close(pipes[k][1]); /* EOF: go */
    for (int k = 0; k < 4; k++) {
        int status = 0;
        CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
    }
    m = open_store(url);
    qr_mem_stats s;
    qr_arena a;
    qr_arena_init(&a, 0);
    CHECK(m && qr_mem_stats_get(m, &a, &s, &err) == QR_OK);
    CHECK(s.visits == 1);
    qr_arena_release(&a);
    qr_mem_close(m);
    CHECK(qr_store_pg_connect(&st, "test", url, &err) == QR_OK);
    qr_store_rows r;
    CHECK(qr_store_pg_exec(&st, "SELECT runs, due, holder IS NULL FROM due_agents"
                               " WHERE agent = 'consolidate'",
                           0, NULL, &r, "read", NULL, &err) == QR_OK);
    CHECK(r.n == 1);
    if (r.n == 1) {
        CHECK(!strcmp(qr_store_rows_get(&r, 0, 0), "1"));
        CHECK(!strcmp(qr_store_rows_get(&r, 0, 1), "1000"));
        CHECK(!strcmp(qr_store_rows_get(&r, 0, 2), "t"));
    }
    qr_store_rows_free(&r);
    qr_store_close(&st);
    qr_buf_release(&err);
    qr_buf_release(&name);
}

static void run_all(const char *loc)
{
    test_snapshot_refresh(loc);
    test_transaction(loc);
    test_atomic_counters(loc);
}

int main(void)
{
    char dir[] = "/tmp/quarry-mem-pg-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/mem.db", dir);
    run_all(path);
    const char *pg = getenv("QUARRY_TEST_PG_URL");
    if (pg && *pg) {
        run_all(pg);
        test_scheduler_race(pg);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    CHECK_DONE();
}
