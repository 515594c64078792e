/*
 * test_mem_check.c: unit tests for the damaged-store check's marker (store_check.c) on
 * real store files: a store left as quarry's last checked write left it skips the check
 * (qr_mem_check_state says so), also after a read-only handle; a change by another SQLite
 * connection, bytes written over a page with the modification time set back, a truncated
 * file, a file replaced by a copy, and writes of another handle between this handle's
 * own all make the next write check again, and the damaged or truncated file is refused
 * and left as it was; without a state directory the check always runs; the marker sits
 * in the state directory, not beside the store.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include "check.h"
#include "quarry/memory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], path[128], state[128];
static char last_err[512]; /* the message of the last add that failed */

static char *slurp(const char *p, size_t *n)
{
    char *t = NULL;
    return qr_read_file(p, 0, &t, n) == QR_OK ? t : NULL;
}

/* Opens the store, adds one node (key), closes; returns the add's result and the check
 * state the handle saw. */
static int add(const char *key, qr_mem_check *seen)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_open(&m, path, QR_MEM_CREATE, &err);
    if (rc == QR_OK) {
        qr_mem_set_now(m, 1773100800);
        char content[400];
        snprintf(content, sizeof content, "note %s with words to fill a page %0300d", key, 7);
        qr_mem_node n = {.key = key, .content = content, .weight = 0.5};
        rc = qr_mem_node_add(m, &n, NULL, &err);
        *seen = qr_mem_check_state(m);
        qr_mem_close(m);
    } else {
        *seen = QR_MEM_CHECK_NONE;
    }
    snprintf(last_err, sizeof last_err, "%s", rc != QR_OK && err.p ? err.p : "");
    qr_buf_release(&err);
    return rc;
}

static void sql(const char *stmt)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, stmt, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", stmt, msg ? msg : "?");
    CHECK(rc == SQLITE_OK);
    sqlite3_free(msg);
    sqlite3_close(db);
}

static int markers(void)
{
    char p[200];
    snprintf(p, sizeof p, "%s/quarry/store-checks", state);
    DIR *d = opendir(p);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_unchanged_skips(void)
{
    qr_mem_check seen;
    CHECK(add("a", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN); /* created: checked */
    CHECK(markers() == 1);
    CHECK(add("b", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    CHECK(add("c", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    /* a handle that only reads changes nothing, and checks nothing */
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_open(&m, path, 0, &err) == QR_OK);
    qr_mem_node n;
    qr_arena a;
    qr_arena_init(&a, 0);
    CHECK(m && qr_mem_node_get(m, "a", false, &a, &n, &err) == QR_OK);
    CHECK(m && qr_mem_check_state(m) == QR_MEM_CHECK_NONE);
    qr_arena_release(&a);
    qr_mem_close(m);
    qr_buf_release(&err);
    CHECK(add("d", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    /* nothing beside the store but SQLite's own files and the snapshot */
    char p[200];
    snprintf(p, sizeof p, "%s.checked", path);
    CHECK(access(p, F_OK) != 0);
}

static void test_sqlite_writer_checks(void)
{
    qr_mem_check seen;
    sql("UPDATE meta SET value = value + 1 WHERE key = 'generation'");
    CHECK(add("e", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
    CHECK(add("f", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    /* a no-op change writes nothing (SQLite compares the bytes): still unchanged */
    sql("UPDATE meta SET value = value WHERE key = 'created'");
    CHECK(add("g", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
}

/* Another handle writes between this handle's writes: this handle vouches for nothing. */
static void test_interleaved_handles(void)
{
    qr_mem *h1 = NULL, *h2 = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_open(&h1, path, 0, &err) == QR_OK);
    CHECK(qr_mem_open(&h2, path, 0, &err) == QR_OK);
    if (!h1 || !h2)
        return;
    qr_mem_node n = {.key = "h1a", .content = "x", .weight = 0.5};
    CHECK(qr_mem_node_add(h1, &n, NULL, &err) == QR_OK);
    CHECK(qr_mem_check_state(h1) == QR_MEM_CHECK_SKIPPED);
    n.key = "h2a";
    CHECK(qr_mem_node_add(h2, &n, NULL, &err) == QR_OK);
    CHECK(qr_mem_check_state(h2) == QR_MEM_CHECK_RAN); /* h1 changed the files */
    n.key = "h1b";
    CHECK(qr_mem_node_add(h1, &n, NULL, &err) == QR_OK);
    qr_mem_close(h2);
    qr_mem_close(h1);
    qr_mem_check seen;
    CHECK(add("after-both", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
    CHECK(add("after-check", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    qr_buf_release(&err);
}

/* The first leaf page of the nodes table, from SQLite's dbstat: one a new node (a higher
 * rowid) does not touch, so only the check can find the damage there. */
static int64_t page_of(int64_t *page_size)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t page = 0;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT pageno FROM dbstat WHERE name = 'nodes' AND "
                             "pagetype = 'leaf' ORDER BY pageno LIMIT 1",
                             -1, &st, NULL) == SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    CHECK(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW)
        *page_size = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return page;
}

/* Bytes written over a page of the nodes table, then the modification time set back to
 * what it was: the change time still moved, so the check runs and refuses the file. */
static void test_damage_with_mtime_set_back(void)
{
    qr_mem_check seen;
    for (int i = 0; i < 40; i++) { /* enough nodes for several leaf pages */
        char k[16];
        snprintf(k, sizeof k, "fill%02d", i);
        CHECK(add(k, &seen) == QR_OK);
    }
    CHECK(add("last-clean", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    int64_t psize = 0, page = page_of(&psize);
    CHECK(page > 1 && psize >= 512);
    struct stat before;
    CHECK(stat(path, &before) == 0);
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    char junk[65536];
    memset(junk, 'Z', sizeof junk);
    if (fd >= 0 && page > 1 && psize >= 512 && psize <= (int64_t)sizeof junk)
        CHECK(pwrite(fd, junk, (size_t)psize, (off_t)((page - 1) * psize)) == (ssize_t)psize);
    struct timespec ts[2] = {before.st_atim, before.st_mtim};
    CHECK(fd >= 0 && futimens(fd, ts) == 0);
    if (fd >= 0)
        close(fd);
    struct stat after;
    CHECK(stat(path, &after) == 0 && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
          after.st_mtim.tv_nsec == before.st_mtim.tv_nsec && after.st_size == before.st_size);
    size_t n0 = 0, n1 = 0;
    char *b0 = slurp(path, &n0);
    CHECK(add("on-damage", &seen) == QR_EIO);
    CHECK(strstr(last_err, "is damaged (")); /* found by the check, not by the write */
    char *b1 = slurp(path, &n1);
    CHECK(b0 && b1 && n0 == n1 && !memcmp(b0, b1, n0)); /* left as it was */
    free(b0);
    free(b1);
    CHECK(add("on-damage-again", &seen) == QR_EIO); /* a refusal records nothing */
}

/* A sound store, cut short: refused (at open or by the check), never written. */
static void test_truncated(void)
{
    snprintf(path, sizeof path, "%s/trunc.db", dir);
    qr_mem_check seen;
    for (int i = 0; i < 40; i++) {
        char k[16];
        snprintf(k, sizeof k, "t%02d", i);
        CHECK(add(k, &seen) == QR_OK);
    }
    CHECK(add("t-clean", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size > 8192);
    CHECK(truncate(path, sb.st_size / 2) == 0);
    size_t n0 = 0, n1 = 0;
    char *b0 = slurp(path, &n0);
    CHECK(add("on-truncated", &seen) != QR_OK);
    CHECK(strstr(last_err, "is damaged (") || strstr(last_err, "malformed"));
    char *b1 = slurp(path, &n1);
    CHECK(b0 && b1 && n0 == n1 && !memcmp(b0, b1, n0));
    free(b0);
    free(b1);
}

/* The file replaced by a byte-identical copy (a new inode): checked again. */
static void test_replaced(void)
{
    snprintf(path, sizeof path, "%s/copy.db", dir);
    qr_mem_check seen;
    CHECK(add("c1", &seen) == QR_OK);
    CHECK(add("c2", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
    size_t n = 0;
    char *b = slurp(path, &n);
    CHECK(b && qr_write_file_atomic(path, b, n, 0644) == QR_OK);
    free(b);
    CHECK(add("c3", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
}

/* No state directory: no marker, so every first write checks. */
static void test_no_state_dir(void)
{
    snprintf(path, sizeof path, "%s/nostate.db", dir);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    qr_mem_check seen;
    CHECK(add("x1", &seen) == QR_OK);
    CHECK(add("x2", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
    CHECK(add("x3", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
    setenv("XDG_STATE_HOME", state, 1);
    if (home)
        setenv("HOME", home, 1);
    free(home);
    CHECK(add("x4", &seen) == QR_OK && seen == QR_MEM_CHECK_RAN);
    CHECK(add("x5", &seen) == QR_OK && seen == QR_MEM_CHECK_SKIPPED);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/quarry-memcheck-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/s.db", dir);
    snprintf(state, sizeof state, "%s/state", dir);
    setenv("XDG_STATE_HOME", state, 1);
    test_unchanged_skips();
    test_sqlite_writer_checks();
    test_interleaved_handles();
    test_damage_with_mtime_set_back();
    test_truncated();
    test_replaced();
    test_no_state_dir();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}
