/*
 * test_mem_salvage.c: unit tests for a damaged memory store (issue 11): a real store file
 * with one leaf page of its nodes table overwritten is refused for every write (add, link,
 * a caller's transaction) with the damage named and the file left byte for byte as it
 * was, while a sound store pays the check once per handle; qr_mem_salvage copies every
 * other node with its tags, links between kept nodes and visits of kept nodes, reports
 * exactly the rows of the damaged page as lost, and never writes the damaged file.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "check.h"
#include "quarry/memory.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#define NOTES 300

static char dir[64];
static char path[128];

static char *slurp(const char *p, size_t *n)
{
    char *t = NULL;
    return qr_read_file(p, 0, &t, n) == QR_OK ? t : NULL;
}

static void build(void)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_open(&m, path, QR_MEM_CREATE, &err) == QR_OK);
    if (!m)
        return;
    qr_mem_set_now(m, 1773100800);
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    char key[32], content[300], tag[8];
    for (int i = 0; i < NOTES; i++) {
        snprintf(key, sizeof key, "n%03d", i);
        snprintf(content, sizeof content, "note %d with enough words to fill pages %0200d", i, i);
        snprintf(tag, sizeof tag, "t%d", i % 3);
        const char *tags[] = {tag};
        qr_mem_node n = {.key = key, .content = content, .weight = 0.5, .tags = tags, .ntags = 1};
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    char other[32];
    for (int i = 0; i + 1 < NOTES; i++) {
        snprintf(key, sizeof key, "n%03d", i);
        snprintf(other, sizeof other, "n%03d", i + 1);
        CHECK(qr_mem_link(m, key, other, 0.5, NULL, NULL, &err) == QR_OK);
    }
    for (int i = 0; i < NOTES; i += 10) {
        snprintf(key, sizeof key, "n%03d", i);
        CHECK(qr_mem_visit(m, key, "linker", 1772000000, "seen", &err) == QR_OK);
    }
    CHECK(qr_mem_commit(m, &err) == QR_OK);
    qr_mem_close(m);
    qr_buf_release(&err);
}

/* The third leaf page of the nodes table, the row ids on it, and the page size. */
static bool leaf_page(int64_t *page, int64_t *first_id, int64_t *cells, int64_t *psize)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    bool ok = false;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT pageno, ncell, (SELECT page_size FROM pragma_page_size)"
                           " FROM dbstat WHERE name = 'nodes' AND pagetype = 'leaf'"
                           " ORDER BY pageno LIMIT 1 OFFSET 2",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *page = sqlite3_column_int64(st, 0);
        *cells = sqlite3_column_int64(st, 1);
        *psize = sqlite3_column_int64(st, 2);
        ok = true;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* the rows of that page: leaves of a rowid table hold consecutive ids here (the notes
     * were inserted in id order), so the first is after the cells of the pages before */
    if (ok && sqlite3_prepare_v2(db,
                                 "SELECT coalesce(sum(ncell), 0) FROM dbstat WHERE name = 'nodes'"
                                 " AND pagetype = 'leaf' AND pageno < ?1",
                                 -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, *page);
        ok = sqlite3_step(st) == SQLITE_ROW;
        *first_id = sqlite3_column_int64(st, 0) + 1;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

static void overwrite(int64_t page, int64_t psize)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    char *junk = malloc((size_t)psize);
    memset(junk, 'Z', (size_t)psize);
    CHECK(fseek(f, (long)((page - 1) * psize), SEEK_SET) == 0);
    CHECK(fwrite(junk, 1, (size_t)psize, f) == (size_t)psize);
    fclose(f);
    free(junk);
}

static void test_sound_store(void)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_open(&m, path, 0, &err) == QR_OK);
    qr_mem_node n = {.key = "fresh", .content = "x", .weight = 0.5};
    CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    CHECK(qr_mem_link(m, "fresh", "n000", 0.5, NULL, NULL, &err) == QR_OK);
    qr_mem_close(m);
    qr_buf_release(&err);
}

static void test_damaged(int64_t page, int64_t first, int64_t cells, int64_t psize)
{
    overwrite(page, psize);
    size_t n0, n1;
    char *before = slurp(path, &n0);
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    /* opening and reading away from the damage still work: the check is for writes */
    CHECK(qr_mem_open(&m, path, 0, &err) == QR_OK);
    if (!m)
        return;
    char msg[300];
    snprintf(msg, sizeof msg, "memory store '%s' is damaged (", path);
    qr_mem_node n = {.key = "new-note", .content = "x", .weight = 0.5};
    CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, msg) && strstr(err.p, "quarry mem export --salvage"));
    /* the link's nodes are on sound pages: SQLite alone would write it */
    qr_buf_reset(&err);
    CHECK(qr_mem_link(m, "n290", "n000", 0.5, NULL, NULL, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, msg));
    qr_buf_reset(&err);
    CHECK(qr_mem_begin(m, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, msg));
    qr_buf_reset(&err);
    CHECK(qr_mem_import(m, "", 0, NULL, &err) != QR_OK);
    qr_mem_close(m);
    char *after = slurp(path, &n1);
    CHECK(before && after && n0 == n1 && !memcmp(before, after, n0));
    free(before);
    free(after);

    /* salvage into a private store: everything but the page's rows */
    CHECK(qr_mem_open(&m, ":memory:", QR_MEM_CREATE, &err) == QR_OK);
    qr_mem_salvage_report r;
    qr_buf_reset(&err);
    CHECK(qr_mem_salvage(path, m, &r, &err) == QR_OK);
    CHECK(r.node_rows_lost == cells && r.nodes == NOTES + 1 - cells);
    CHECK(r.nodes_dropped == 0 && r.nodes_without_tags == 0 && !r.schema_unreadable);
    /* links: fresh->n000 and the chain, minus those from or to a lost note; visits of
     * lost notes */
    /* ids 1..300 are n000..n299 (301 is "fresh"): the page holds n(first-1) onwards;
     * lost: the link from each lost note, and the one into the first (read, dropped) */
    CHECK(r.edges == NOTES - (cells + 1) && r.edges_dropped == 1);
    int64_t visits = 0;
    for (int i = 0; i < NOTES; i += 10)
        visits += !(i + 1 >= first && i + 1 < first + cells);
    CHECK(r.visits == visits && r.visit_rows_lost == 0);
    /* a kept note is whole: content, tags, counters */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node got;
    char key[16];
    snprintf(key, sizeof key, "n%03d", (int)(first + cells - 1)); /* the note after the page */
    CHECK(qr_mem_node_get(m, key, false, &a, &got, &err) == QR_OK);
    CHECK(got.ntags == 1 && strstr(got.content, "with enough words") && got.weight == 0.5);
    snprintf(key, sizeof key, "n%03d", (int)(first - 1)); /* the first note of the page */
    qr_buf_reset(&err);
    CHECK(qr_mem_node_get(m, key, true, &a, &got, &err) == QR_ERUNTIME);
    qr_arena_release(&a);
    qr_mem_close(m);
    /* the damaged file was only read */
    after = slurp(path, &n1);
    CHECK(after && n1 == n0);
    free(after);
    qr_buf_release(&err);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/quarry-salvage-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/notes.db", dir);
    build();
    test_sound_store();
    int64_t page = 0, first = 0, cells = 0, psize = 0;
    CHECK(leaf_page(&page, &first, &cells, &psize) && cells > 0 && cells < NOTES);
    if (cells > 0)
        test_damaged(page, first, cells, psize);
    char p[256];
    static const char *const sfx[] = {"", "-wal", "-shm", ".snapshot"};
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        unlink(p);
    }
    rmdir(dir);
    CHECK_DONE();
}
