/*
 * test_git_index.c: unit tests for the persistent statistics index (src/git/index.c):
 * round trips (paths with spaces and non-UTF-8 bytes, binary files, every status, merges),
 * missing and malformed ids, duplicate puts, counts, reopening, rebuilding a database that
 * is garbage, damaged, from another version, foreign, or found damaged while open, two
 * handles and two writing processes at once, arenas that run out, and a bulk get of 20,000 commits
 * (timed for information only). Also the internals the walk and `quarry index` use: the
 * commit graph (round trips, identities shared, lookups switching to one scan, damage),
 * which commits are indexed (qr__index_has_many), and the check at open that is skipped
 * while the file is unchanged. Each test uses a fresh fake git directory under /tmp.
 */
#include "check.h"
#include "git/git_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *make_gitdir(void)
{
    char tmpl[] = "/tmp/quarry-index-XXXXXX";
    char *d = mkdtemp(tmpl);
    CHECK(d != NULL);
    return d ? strdup(d) : NULL;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void db_path(const char *gitdir, char *out, size_t n)
{
    snprintf(out, n, "%s/quarry/index.db", gitdir);
}

/* Files in <gitdir>/quarry whose name starts with prefix. */
static int count_files(const char *gitdir, const char *prefix)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/quarry", gitdir);
    DIR *d = opendir(p);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* Runs SQL on the database with a plain SQLite connection, as another program would. */
static void raw_sql(const char *gitdir, const char *sql)
{
    char p[4096];
    db_path(gitdir, p, sizeof p);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "raw_sql: %s\n", msg ? msg : "?");
    CHECK(rc == SQLITE_OK);
    sqlite3_free(msg);
    sqlite3_close(db);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define OID_A "0123456789abcdef0123456789abcdef01234567"
#define OID_B "fedcba9876543210fedcba9876543210fedcba98"
#define OID_C "00000000000000000000000000000000000000c0"

static qr_file_stat files_a[] = {
    {"dir with space/a b.c", 3, 1, false, 'M'},
    {"img/\xff\xfe raw.png", 0, 0, true, 'A'},
    {"gone.txt", 0, 10, false, 'D'},
    {"link", 1, 1, false, 'T'},
    {"caf\xc3\xa9/\"quoted\"\ttab", 5, 0, false, 'A'},
};

static qr_commit_stats stats_a(void)
{
    qr_commit_stats s = {.nfiles = 5, .additions = 9, .deletions = 12, .files = files_a};
    memcpy(s.oid, OID_A, 41);
    return s;
}

static qr_commit_stats stats_merge(void)
{
    qr_commit_stats s = {.nfiles = 0, .additions = 0, .deletions = 0, .files = NULL};
    memcpy(s.oid, OID_B, 41);
    return s;
}

static void check_a(const qr_commit_stats *got)
{
    CHECK_STR(got->oid, OID_A);
    CHECK(got->nfiles == 5);
    CHECK(got->additions == 9 && got->deletions == 12);
    CHECK(got->files != NULL);
    for (uint32_t i = 0; got->files && i < 5 && i < got->nfiles; i++) {
        CHECK_STR(got->files[i].path, files_a[i].path);
        CHECK(got->files[i].additions == files_a[i].additions);
        CHECK(got->files[i].deletions == files_a[i].deletions);
        CHECK(got->files[i].binary == files_a[i].binary);
        CHECK(got->files[i].status == files_a[i].status);
    }
}

static qr_git_index *open_ok(const char *gitdir, bool want_rebuilt)
{
    qr_git_index *ix = NULL;
    bool rebuilt = !want_rebuilt;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_git_index_open(gitdir, &ix, &rebuilt, &err);
    if (rc != QR_OK)
        fprintf(stderr, "open: %s\n", err.p ? err.p : "?");
    CHECK(rc == QR_OK);
    CHECK(rebuilt == want_rebuilt);
    qr_buf_release(&err);
    return ix;
}

static int64_t count_of(qr_git_index *ix)
{
    int64_t n = -1, bytes = -1;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_git_index_count(ix, &n, &bytes, &err) == QR_OK);
    CHECK(bytes > 0);
    qr_buf_release(&err);
    return n;
}

static void test_round_trip(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    CHECK(!qr_git_index_rebuilt(ix));
    char p[4096];
    snprintf(p, sizeof p, "%s/quarry", dir);
    struct stat sb;
    CHECK(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0755);
    db_path(dir, p, sizeof p);
    CHECK_STR(qr_git_index_path(ix), p);
    CHECK(count_of(ix) == 0);

    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_stats in[2] = {stats_a(), stats_merge()};
    CHECK(qr_git_index_put(ix, in, 2, &err) == QR_OK);
    CHECK(count_of(ix) == 2);

    qr_commit_stats got;
    memset(&got, 0, sizeof got);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);
    /* either case in, lowercase out */
    char upper[41];
    for (int i = 0; i < 41; i++)
        upper[i] = (char)(OID_A[i] >= 'a' && OID_A[i] <= 'f' ? OID_A[i] - 32 : OID_A[i]);
    memset(&got, 0, sizeof got);
    CHECK(qr_git_index_get(ix, upper, &a, &got, &err) == QR_OK);
    check_a(&got);

    /* a merge: no files */
    memset(&got, 0xab, sizeof got);
    CHECK(qr_git_index_get(ix, OID_B, &a, &got, &err) == QR_OK);
    CHECK_STR(got.oid, OID_B);
    CHECK(got.nfiles == 0 && got.files == NULL && got.additions == 0 && got.deletions == 0);

    /* missing: 1, out untouched */
    memset(&got, 0, sizeof got);
    CHECK(qr_git_index_get(ix, OID_C, &a, &got, &err) == 1);
    CHECK(got.oid[0] == 0);
    CHECK(err.len == 0);

    /* malformed ids */
    CHECK(qr_git_index_get(ix, "abc", &a, &got, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "invalid commit id 'abc'"));
    qr_buf_reset(&err);
    CHECK(qr_git_index_get(ix, "0123456789abcdef0123456789abcdef0123456g", &a, &got, &err) ==
          QR_EINVAL);
    qr_buf_reset(&err);
    CHECK(qr_git_index_get(ix, "0123456789abcdef0123456789abcdef012345678", &a, &got, &err) ==
          QR_EINVAL);
    qr_buf_reset(&err);

    /* duplicate put: the first entry stays */
    qr_file_stat other[] = {{"x", 100, 100, false, 'M'}};
    qr_commit_stats dup = {.nfiles = 1, .additions = 100, .deletions = 100, .files = other};
    memcpy(dup.oid, OID_A, 41);
    qr_commit_stats twice[2] = {dup, dup};
    CHECK(qr_git_index_put(ix, twice, 2, &err) == QR_OK);
    CHECK(count_of(ix) == 2);
    memset(&got, 0, sizeof got);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);

    /* bad input is refused and nothing of the batch is stored */
    qr_file_stat bad_status[] = {{"y", 1, 0, false, 'R'}};
    qr_commit_stats bad = {.nfiles = 1, .additions = 1, .files = bad_status};
    memcpy(bad.oid, OID_C, 41);
    CHECK(qr_git_index_put(ix, &bad, 1, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "invalid statistics for commit '" OID_C "'"));
    qr_buf_reset(&err);
    qr_commit_stats no_files = {.nfiles = 2, .files = NULL};
    memcpy(no_files.oid, OID_C, 41);
    CHECK(qr_git_index_put(ix, &no_files, 1, &err) == QR_EINVAL);
    qr_buf_reset(&err);
    qr_commit_stats bad_oid = stats_merge();
    strcpy(bad_oid.oid, "nothex");
    CHECK(qr_git_index_put(ix, &bad_oid, 1, &err) == QR_EINVAL);
    qr_buf_reset(&err);
    CHECK(count_of(ix) == 2);
    CHECK(qr_git_index_put(ix, NULL, 0, &err) == QR_OK);

    /* reopening keeps everything */
    qr_git_index_close(ix);
    ix = open_ok(dir, false);
    CHECK(count_of(ix) == 2);
    memset(&got, 0, sizeof got);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);
    qr_git_index_close(ix);

    /* the schema: version, application id, meta */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT (SELECT user_version FROM pragma_user_version),"
                             " (SELECT journal_mode FROM pragma_journal_mode),"
                             " (SELECT value FROM meta WHERE key = 'quarry_version')",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int(st, 0) == QR_GIT_INDEX_SCHEMA_VERSION);
    CHECK_STR((const char *)sqlite3_column_text(st, 1), "wal");
    CHECK_STR((const char *)sqlite3_column_text(st, 2), "0.1.0");
    sqlite3_finalize(st);
    sqlite3_close(db);

    qr_arena_release(&a);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

static void put_a(qr_git_index *ix)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_commit_stats s = stats_a();
    CHECK(qr_git_index_put(ix, &s, 1, &err) == QR_OK);
    qr_buf_release(&err);
}

static void write_file(const char *path, const char *data, size_t n, off_t at, bool truncate)
{
    int fd = open(path, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0), 0644);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(pwrite(fd, data, n, at) == (ssize_t)n);
    close(fd);
}

static void test_rebuild_garbage(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    put_a(ix);
    qr_git_index_close(ix);

    char p[4096];
    db_path(dir, p, sizeof p);
    char junk[8192];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 7 + 3);
    write_file(p, junk, sizeof junk, 0, true);

    ix = open_ok(dir, true);
    CHECK(qr_git_index_rebuilt(ix));
    CHECK(count_of(ix) == 0);
    CHECK(count_files(dir, "index.db.broken-") == 1);
    put_a(ix);
    CHECK(count_of(ix) == 1);
    qr_git_index_close(ix);
    /* a healthy database is not rebuilt again */
    ix = open_ok(dir, false);
    CHECK(count_of(ix) == 1);
    qr_git_index_close(ix);

    /* an empty file is simply filled */
    unlink(p);
    write_file(p, "", 0, 0, true);
    ix = open_ok(dir, false);
    CHECK(count_of(ix) == 0);
    qr_git_index_close(ix);
    remove_tree(dir);
    free(dir);
}

/* A valid header over damaged pages: PRAGMA quick_check finds it at open. */
static void test_rebuild_damaged_pages(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    qr_file_stat files[40];
    char names[40][32];
    qr_commit_stats s[200];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "some/longer/path/name_%02d.c", i);
        files[i] = (qr_file_stat){names[i], i, 1, false, 'M'};
    }
    for (int i = 0; i < 200; i++) {
        s[i] = (qr_commit_stats){.nfiles = 40, .additions = 1, .deletions = 1, .files = files};
        snprintf(s[i].oid, sizeof s[i].oid, "%040x", i + 1);
    }
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_git_index_put(ix, s, 200, &err) == QR_OK);
    qr_git_index_close(ix);

    char p[4096];
    db_path(dir, p, sizeof p);
    struct stat sb;
    CHECK(stat(p, &sb) == 0 && sb.st_size > 8 * 4096);
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    for (off_t at = 4096; at + (off_t)sizeof junk <= sb.st_size; at += 2 * 4096)
        write_file(p, junk, sizeof junk, at, false);

    ix = open_ok(dir, true);
    CHECK(count_of(ix) == 0);
    CHECK(count_files(dir, "index.db.broken-") == 1);
    qr_git_index_close(ix);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

static void test_rebuild_other_version(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    put_a(ix);
    qr_git_index_close(ix);
    /* an older schema is a cache to rebuild */
    raw_sql(dir, "PRAGMA user_version = 2");
    ix = open_ok(dir, true);
    CHECK(count_of(ix) == 0);
    qr_git_index_close(ix);
    ix = open_ok(dir, false);
    qr_git_index_close(ix);

    /* a newer one belongs to a newer quarry: refused, and left as it is */
    raw_sql(dir, "PRAGMA user_version = 7");
    int broken = count_files(dir, "index.db.broken-");
    qr_buf err;
    qr_buf_init(&err);
    bool rebuilt = false;
    ix = NULL;
    CHECK(qr_git_index_open(dir, &ix, &rebuilt, &err) == QR_EIO);
    CHECK(ix == NULL && !rebuilt);
    CHECK(err.p && strstr(err.p, "' has schema version 7, newer than this quarry reads (3): "
                                 "upgrade quarry"));
    CHECK(count_files(dir, "index.db.broken-") == broken);
    qr_buf_release(&err);
    raw_sql(dir, "PRAGMA user_version = 3");

    /* someone else's database at our path */
    char p[4096];
    db_path(dir, p, sizeof p);
    unlink(p);
    raw_sql(dir, "CREATE TABLE notes(x); INSERT INTO notes VALUES (1)");
    ix = open_ok(dir, true);
    CHECK(count_of(ix) == 0);
    put_a(ix);
    qr_git_index_close(ix);
    CHECK(count_files(dir, "index.db.broken-") >= 2);
    remove_tree(dir);
    free(dir);
}

/* Damage found by a query while the handle is open: the call rebuilds and runs again. */
static void test_rebuild_while_open(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    put_a(ix);
    /* a row whose packed file list does not decode */
    raw_sql(dir, "INSERT INTO commits VALUES (x'" OID_C "', 3, 1, 1, x'ffffffffffffffffffffffff', 0)");
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_stats got;
    CHECK(qr_git_index_get(ix, OID_C, &a, &got, &err) == 1);
    CHECK(qr_git_index_rebuilt(ix));
    CHECK(count_of(ix) == 0);
    CHECK(count_files(dir, "index.db.broken-") == 1);
    put_a(ix);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);

    /* a path id that names no path */
    raw_sql(dir, "INSERT INTO commits VALUES (x'" OID_C "', 1, 1, 1, x'7f01014d', 0)");
    const char *ids[2] = {OID_A, OID_C};
    bool found[2];
    qr_commit_stats many[2];
    CHECK(qr_git_index_get_many(ix, ids, 2, &a, many, found, &err) == QR_OK);
    CHECK(!found[0] && !found[1]);
    CHECK(count_files(dir, "index.db.broken-") == 2);
    qr_git_index_close(ix);
    qr_arena_release(&a);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

static void test_two_handles(void)
{
    char *dir = make_gitdir();
    qr_git_index *h1 = open_ok(dir, false);
    qr_git_index *h2 = open_ok(dir, false);
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_stats got;
    CHECK(qr_git_index_get(h2, OID_A, &a, &got, &err) == 1);
    put_a(h1);
    CHECK(qr_git_index_get(h2, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);
    qr_commit_stats m = stats_merge();
    CHECK(qr_git_index_put(h2, &m, 1, &err) == QR_OK);
    const char *ids[3] = {OID_B, OID_C, OID_A};
    bool found[3];
    qr_commit_stats many[3];
    CHECK(qr_git_index_get_many(h1, ids, 3, &a, many, found, &err) == QR_OK);
    CHECK(found[0] && !found[1] && found[2]);
    CHECK(many[0].nfiles == 0);
    check_a(&many[2]);
    CHECK(count_of(h1) == 2 && count_of(h2) == 2);
    qr_git_index_close(h1);
    qr_git_index_close(h2);
    qr_arena_release(&a);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

/* Two processes write 2,000 commits each at the same time, in batches of 50, while the
 * parent reads: the busy timeout and BEGIN IMMEDIATE make them take turns. */
static void test_two_processes(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    pid_t pids[2];
    for (int k = 0; k < 2; k++) {
        pids[k] = fork();
        CHECK(pids[k] >= 0);
        if (pids[k] != 0)
            continue;
        qr_git_index *mine = NULL;
        bool rebuilt = false;
        qr_buf err;
        qr_buf_init(&err);
        int rc = qr_git_index_open(dir, &mine, &rebuilt, &err);
        char path[2][32];
        qr_file_stat files[2];
        qr_commit_stats batch[50];
        for (int b = 0; b < 40 && rc == QR_OK; b++) {
            for (int i = 0; i < 50; i++) {
                int n = b * 50 + i;
                snprintf(path[0], sizeof path[0], "shared/%d.c", n % 300);
                snprintf(path[1], sizeof path[1], "own%d/%d.c", k, n);
                files[0] = (qr_file_stat){path[0], 1, 0, false, 'M'};
                files[1] = (qr_file_stat){path[1], 2, 0, false, 'A'};
                batch[i] = (qr_commit_stats){.nfiles = 2, .additions = 3, .files = files};
                snprintf(batch[i].oid, sizeof batch[i].oid, "%02x%038x", k + 1, n);
                /* the paths differ per commit: put each commit on its own */
                rc = qr_git_index_put(mine, &batch[i], 1, &err);
                if (rc)
                    break;
            }
        }
        if (rc)
            fprintf(stderr, "child %d: %s\n", k, err.p ? err.p : "?");
        qr_git_index_close(mine);
        qr_buf_release(&err);
        _exit(rc == QR_OK && !rebuilt ? 0 : 1);
    }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    for (int i = 0; i < 20; i++) {
        qr_commit_stats got;
        char oid[41];
        snprintf(oid, sizeof oid, "%02x%038x", 1, i);
        int rc = qr_git_index_get(ix, oid, &a, &got, &err);
        CHECK(rc == QR_OK || rc == 1);
    }
    for (int k = 0; k < 2; k++) {
        int status = -1;
        CHECK(pids[k] > 0 && waitpid(pids[k], &status, 0) == pids[k]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK(count_of(ix) == 4000);
    qr_commit_stats got;
    char last[41];
    snprintf(last, sizeof last, "%02x%038x", 2, 1999);
    CHECK(qr_git_index_get(ix, last, &a, &got, &err) == QR_OK);
    CHECK(got.nfiles == 2);
    if (got.nfiles == 2) {
        CHECK_STR(got.files[0].path, "shared/199.c");
        CHECK_STR(got.files[1].path, "own1/1999.c");
    }
    qr_git_index_close(ix);
    qr_arena_release(&a);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

static int fail_calls;
static void count_fail(void *ud, int code)
{
    (void)ud;
    (void)code;
    fail_calls++;
}

static void test_errors(void)
{
    char *dir = make_gitdir();
    qr_buf err;
    qr_buf_init(&err);

    /* a git directory that is a file: no directory can be made in it */
    char p[4096];
    snprintf(p, sizeof p, "%s/plainfile", dir);
    write_file(p, "x", 1, 0, true);
    qr_git_index *ix = (qr_git_index *)1;
    bool rebuilt = true;
    CHECK(qr_git_index_open(p, &ix, &rebuilt, &err) == QR_EIO);
    CHECK(ix == NULL && !rebuilt);
    CHECK(err.p && strstr(err.p, "cannot create directory '") &&
          strstr(err.p, "/plainfile/quarry'"));
    qr_buf_reset(&err);

    /* an arena that runs out: QR_ENOMEM, the hook is not called, nothing is kept */
    ix = open_ok(dir, false);
    put_a(ix);
    qr_arena a;
    qr_arena_init(&a, 64);
    a.on_fail = count_fail;
    qr_commit_stats got;
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_ENOMEM);
    CHECK(err.p && strstr(err.p, "out of memory"));
    CHECK(fail_calls == 0);
    CHECK(a.on_fail == count_fail);
    CHECK(a.used == 0);
    qr_arena_release(&a);
    qr_git_index_close(ix);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

/* 20,000 commits x 5 files over 3,000 paths: put, then get them all back. */
static void test_bulk(void)
{
    enum { NC = 20000, NF = 5, NP = 3000 };
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    char(*names)[48] = malloc(NP * sizeof *names);
    qr_file_stat *files = malloc((size_t)NC * NF * sizeof *files);
    qr_commit_stats *in = malloc(NC * sizeof *in);
    const char **ids = malloc((NC + 2) * sizeof *ids);
    qr_commit_stats *out = malloc((NC + 2) * sizeof *out);
    bool *found = malloc((NC + 2) * sizeof *found);
    CHECK(names && files && in && ids && out && found);
    if (!names || !files || !in || !ids || !out || !found)
        goto done;
    for (int i = 0; i < NP; i++)
        snprintf(names[i], sizeof names[i], "src/module%02d/sub dir/file_%04d.c", i % 40, i);
    uint64_t seed = 42, want_add = 0;
    for (int c = 0; c < NC; c++) {
        in[c] = (qr_commit_stats){.nfiles = NF, .files = files + (size_t)c * NF};
        /* ids spread over the key space, as real ones are */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(in[c].oid, sizeof in[c].oid, "%016llx%08x%016llx", (unsigned long long)seed, c,
                 (unsigned long long)(seed ^ 0x5555555555555555ULL));
        for (int f = 0; f < NF; f++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            qr_file_stat *fs = &in[c].files[f];
            *fs = (qr_file_stat){names[(seed >> 33) % NP], (int64_t)(seed >> 58), 1, false, 'M'};
            in[c].additions += fs->additions;
            in[c].deletions += 1;
        }
        want_add += (uint64_t)in[c].additions;
        ids[c] = in[c].oid;
    }
    qr_buf err;
    qr_buf_init(&err);
    double t0 = now_ms();
    CHECK(qr_git_index_put(ix, in, NC, &err) == QR_OK);
    double t1 = now_ms();
    CHECK(count_of(ix) == NC);
    qr_git_index_close(ix);
    ix = open_ok(dir, false);

    /* every commit, one unknown id and one repeated id */
    ids[NC] = OID_C;
    ids[NC + 1] = ids[17];
    qr_arena a;
    qr_arena_init(&a, 0);
    double t2 = now_ms();
    CHECK(qr_git_index_get_many(ix, ids, NC + 2, &a, out, found, &err) == QR_OK);
    double t3 = now_ms();
    uint64_t got_add = 0;
    size_t nfound = 0, same_path = 0;
    for (int c = 0; c < NC + 2; c++) {
        nfound += found[c];
        if (!found[c] || c >= NC)
            continue;
        got_add += (uint64_t)out[c].additions;
        CHECK(out[c].nfiles == NF);
        for (int f = 0; f < NF && out[c].nfiles == NF; f++) {
            if (strcmp(out[c].files[f].path, in[c].files[f].path) != 0 ||
                out[c].files[f].additions != in[c].files[f].additions) {
                CHECK(!"bulk entry differs");
                break;
            }
        }
        CHECK(!strcmp(out[c].oid, in[c].oid));
    }
    CHECK(nfound == NC + 1 && !found[NC] && found[NC + 1]);
    CHECK(!strcmp(out[NC + 1].oid, in[17].oid) && out[NC + 1].additions == in[17].additions);
    CHECK(got_add == want_add);
    /* equal paths are one string */
    for (int c = 1; c < NC; c++)
        same_path += out[c].files[0].path == out[0].files[0].path;
    CHECK(same_path > 0);

    /* the same ids, a few at a time (lookups instead of a scan) */
    qr_arena_release(&a);
    qr_arena_init(&a, 0);
    double t4 = now_ms();
    for (int c = 0; c < NC; c += 100)
        CHECK(qr_git_index_get_many(ix, ids + c, 100, &a, out + c, found + c, &err) == QR_OK);
    double t5 = now_ms();
    got_add = 0;
    for (int c = 0; c < NC; c++) {
        CHECK(found[c]);
        got_add += found[c] ? (uint64_t)out[c].additions : 0;
    }
    CHECK(got_add == want_add);
    printf("bulk: put %d commits x %d files %.1f ms; get_many all %.1f ms (scan); "
           "in batches of 100 %.1f ms (lookups)\n",
           NC, NF, t1 - t0, t3 - t2, t5 - t4);
    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_git_index_close(ix);
done:
    free(names);
    free(files);
    free(in);
    free(ids);
    free(out);
    free(found);
    remove_tree(dir);
    free(dir);
}

/* ---- the commit graph ---- */

static git_oid oid_of(unsigned i)
{
    git_oid o;
    memset(&o, 0, sizeof o);
    for (int k = 0; k < 4; k++)
        o.id[16 + k] = (unsigned char)(i >> (8 * (3 - k)));
    o.id[0] = 0xab;
    return o;
}

static bool same_row(const qr_graph_commit *a, const qr_graph_commit *b)
{
    if (!git_oid_equal(&a->oid, &b->oid) || a->ctime != b->ctime || a->atime != b->atime ||
        a->aoffset != b->aoffset || strcmp(a->name, b->name) || strcmp(a->email, b->email) ||
        a->nparents != b->nparents)
        return false;
    for (uint32_t i = 0; i < a->nparents; i++)
        if (!git_oid_equal(&a->parents[i], &b->parents[i]))
            return false;
    return true;
}

static void test_graph(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    qr_buf err;
    qr_buf_init(&err);
    git_oid p1 = oid_of(1), p2 = oid_of(2), both[2] = {oid_of(1), oid_of(2)};
    qr_graph_commit rows[4] = {
        {oid_of(1), 1700000000, 1700000000, 0, "Ann", "ann@example.com", 0, NULL, 0},
        {oid_of(2), 1700000100, 1690000000, -300, "", "\xff\xfe@raw", 1, &p1, 0},
        {oid_of(3), 1700000200, 1700000200, 330, "Ann", "ann@example.com", 2, both, 0},
        {oid_of(4), 1600000000, 1600000000, 60, "Ann", "ANN@example.com", 1, &p2, 0},
    };
    CHECK(qr__graph_put(ix, rows, 4, &err) == QR_OK);
    CHECK(qr__graph_put(ix, rows, 2, &err) == QR_OK); /* again: left alone */
    qr_graph_commit bad = rows[0];
    bad.name = NULL;
    CHECK(qr__graph_put(ix, &bad, 1, &err) == QR_EINVAL);
    qr_git_index_close(ix);

    ix = open_ok(dir, false);
    for (int whole = 0; whole < 2; whole++) {
        qr_graph_reader *r = NULL;
        CHECK(qr__graph_open(ix, whole, &r, &err) == QR_OK);
        if (!r)
            break;
        CHECK(qr__graph_loaded(r) == (whole ? 4u : 0u));
        const qr_graph_commit *got[4];
        for (int i = 0; i < 4; i++) {
            CHECK(qr__graph_get(r, &rows[i].oid, &got[i], &err) == QR_OK);
            CHECK(got[i] && same_row(got[i], &rows[i]));
        }
        /* equal identities share their strings; emails differing in case do not */
        CHECK(got[0]->name == got[2]->name && got[0]->email == got[2]->email);
        CHECK(got[0]->email != got[3]->email);
        git_oid absent = oid_of(99);
        const qr_graph_commit *none = rows;
        CHECK(qr__graph_get(r, &absent, &none, &err) == 1 && none == NULL);
        qr__graph_close(r);
    }
    qr_git_index_close(ix);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

/* A reader not asked to load everything looks rows up, then loads the rest at once. */
static void test_graph_many(void)
{
    enum { N = 5000 };
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    qr_buf err;
    qr_buf_init(&err);
    qr_graph_commit *rows = calloc(N, sizeof *rows);
    git_oid *parents = calloc(N, sizeof *parents);
    char(*names)[16] = calloc(N, 16);
    for (unsigned i = 0; rows && parents && names && i < N; i++) {
        snprintf(names[i], 16, "dev%u", i % 37);
        parents[i] = oid_of(i);
        rows[i] = (qr_graph_commit){oid_of(i + 1),
                                    1000 + i,
                                    2000 + i,
                                    (int)(i % 60),
                                    names[i],
                                    "dev@example.com",
                                    i ? 1 : 0,
                                    i ? &parents[i] : NULL,
                                    0};
    }
    CHECK(rows && parents && names && qr__graph_put(ix, rows, N, &err) == QR_OK);
    qr_graph_reader *r = NULL;
    CHECK(qr__graph_open(ix, false, &r, &err) == QR_OK);
    size_t ok = 0;
    for (unsigned i = N; r && i > 0; i--) {
        const qr_graph_commit *g = NULL;
        ok +=
            qr__graph_get(r, &rows[i - 1].oid, &g, &err) == QR_OK && g && same_row(g, &rows[i - 1]);
    }
    CHECK(ok == N);
    CHECK(r && qr__graph_loaded(r) == N); /* it switched to one scan on the way */
    qr__graph_close(r);
    qr_git_index_close(ix);
    qr_buf_release(&err);
    free(rows);
    free(parents);
    free(names);
    remove_tree(dir);
    free(dir);
}

/* A damaged graph row: the reader fails (the caller walks the pack instead) and the file
 * is rebuilt for the next use. */
static void test_graph_damaged(void)
{
    static const char *const damage[] = {
        /* parents that are not whole ids */
        "INSERT INTO graph VALUES (x'" OID_C "', 1, 1, 0, 1, x'00112233')",
        /* an identity that does not exist */
        "INSERT INTO graph VALUES (x'" OID_C "', 1, 1, 0, 77, NULL)",
    };
    for (size_t k = 0; k < sizeof damage / sizeof *damage; k++) {
        char *dir = make_gitdir();
        qr_git_index *ix = open_ok(dir, false);
        qr_buf err;
        qr_buf_init(&err);
        qr_graph_commit row = {oid_of(1), 5, 5, 0, "Ann", "ann@example.com", 0, NULL, 0};
        CHECK(qr__graph_put(ix, &row, 1, &err) == QR_OK);
        raw_sql(dir, damage[k]);
        for (int whole = 1; whole >= 0; whole--) {
            qr_graph_reader *r = NULL;
            int rc = qr__graph_open(ix, whole, &r, &err);
            if (whole) {
                CHECK(rc == QR_EIO && r == NULL);
                CHECK(qr_git_index_rebuilt(ix));
                CHECK(qr__graph_put(ix, &row, 1, &err) == QR_OK);
                raw_sql(dir, damage[k]);
                continue;
            }
            CHECK(rc == QR_OK);
            git_oid c;
            CHECK(git_oid_fromstr(&c, OID_C) == 0);
            const qr_graph_commit *g = NULL;
            CHECK(r && qr__graph_get(r, &c, &g, &err) == QR_EIO);
            CHECK(r && qr__graph_get(r, &row.oid, &g, &err) == QR_EIO); /* nothing after */
            qr__graph_close(r);
        }
        CHECK(count_files(dir, "index.db.broken-") == 2);
        CHECK(count_of(ix) == 0);
        qr_git_index_close(ix);
        qr_buf_release(&err);
        remove_tree(dir);
        free(dir);
    }
}

static void test_has_many(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    qr_buf err;
    qr_buf_init(&err);
    put_a(ix);
    git_oid a, b;
    CHECK(git_oid_fromstr(&a, OID_A) == 0 && git_oid_fromstr(&b, OID_B) == 0);
    /* few ids: looked up; many: one scan (the table is small next to them) */
    enum { N = 600 };
    git_oid ids[N];
    bool found[N];
    for (int n = 3; n <= N; n += N - 3) {
        for (int i = 0; i < n; i++)
            ids[i] = i % 3 == 0 ? a : i % 3 == 1 ? b : oid_of((unsigned)i);
        CHECK(qr__index_has_many(ix, ids, (size_t)n, found, &err) == QR_OK);
        int hits = 0;
        for (int i = 0; i < n; i++) {
            CHECK(found[i] == (i % 3 == 0));
            hits += found[i];
        }
        CHECK(hits == (n + 2) / 3);
    }
    CHECK(qr__index_has_many(ix, ids, 0, found, &err) == QR_OK);
    qr_git_index_close(ix);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

/* Rows are keyed by the attributes fingerprint too: under another one a commit is not
 * found (by lookup, scan, has_many or count), and a put replaces the row. */
static void test_attrs_key(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_commit_stats got;
    qr_git_index_set_attrs(ix, 11);
    put_a(ix);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK);
    check_a(&got);
    qr_git_index_set_attrs(ix, 12);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == 1);
    CHECK(count_of(ix) == 0);
    git_oid ids[300];
    bool found[300];
    CHECK(git_oid_fromstr(&ids[0], OID_A) == 0);
    for (unsigned i = 1; i < 300; i++)
        ids[i] = oid_of(i);
    CHECK(qr__index_has_many(ix, ids, 1, found, &err) == QR_OK && !found[0]);
    CHECK(qr__index_has_many(ix, ids, 300, found, &err) == QR_OK && !found[0]);
    /* the same commit computed under fingerprint 12: one row, now 12's */
    qr_commit_stats other = stats_a();
    other.additions = 4;
    CHECK(qr_git_index_put(ix, &other, 1, &err) == QR_OK);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK && got.additions == 4);
    CHECK(count_of(ix) == 1);
    /* under 12 again, a put of other numbers leaves the row alone */
    CHECK(qr_git_index_put(ix, (qr_commit_stats[]){stats_a()}, 1, &err) == QR_OK);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == QR_OK && got.additions == 4);
    const char *one[1] = {OID_A};
    bool f1[1];
    CHECK(qr_git_index_get_many(ix, one, 1, &a, &got, f1, &err) == QR_OK && f1[0]);
    qr_git_index_set_attrs(ix, 11);
    CHECK(qr_git_index_get(ix, OID_A, &a, &got, &err) == 1);
    CHECK(qr_git_index_get_many(ix, one, 1, &a, &got, f1, &err) == QR_OK && !f1[0]);
    qr_git_index_close(ix);
    qr_arena_release(&a);
    qr_buf_release(&err);
    remove_tree(dir);
    free(dir);
}

/* The check at open is skipped while the file is as it was when a check last passed, and
 * runs again once anything changed it. */
static void test_check_stamp(void)
{
    char *dir = make_gitdir();
    qr_git_index *ix = open_ok(dir, false);
    put_a(ix);
    qr_git_index_close(ix);
    char stamp[4096], p[4096];
    snprintf(stamp, sizeof stamp, "%s/quarry/index.checked", dir);
    db_path(dir, p, sizeof p);
    struct stat sb;
    ix = open_ok(dir, false); /* checks and records it */
    qr_git_index_close(ix);
    CHECK(stat(stamp, &sb) == 0 && sb.st_size > 0);
    ix = open_ok(dir, false);
    CHECK(count_of(ix) == 1);
    qr_git_index_close(ix);

    /* damage: the file changed, so the check runs and finds it */
    CHECK(stat(p, &sb) == 0);
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    for (off_t at = 4096; at + (off_t)sizeof junk <= sb.st_size; at += 4096)
        write_file(p, junk, sizeof junk, at, false);
    ix = open_ok(dir, true);
    CHECK(count_of(ix) == 0);
    qr_git_index_close(ix);

    /* damage that leaves size and modification time as they were: the change time moved
     * (no program can set it back), so the check at open still finds it and rebuilds */
    ix = open_ok(dir, false);
    put_a(ix);
    qr_git_index_close(ix);
    ix = open_ok(dir, false);
    qr_git_index_close(ix);
    CHECK(stat(p, &sb) == 0);
    for (off_t at = 4096; at + (off_t)sizeof junk <= sb.st_size; at += 4096)
        write_file(p, junk, sizeof junk, at, false);
    struct timespec times[2] = {sb.st_atim, sb.st_mtim};
    CHECK(utimensat(AT_FDCWD, p, times, 0) == 0);
    struct stat after;
    CHECK(stat(p, &after) == 0 && after.st_size == sb.st_size &&
          after.st_mtim.tv_nsec == sb.st_mtim.tv_nsec);
    ix = open_ok(dir, true);
    CHECK(count_of(ix) == 0);
    qr_git_index_close(ix);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    umask(022);
    test_round_trip();
    test_rebuild_garbage();
    test_rebuild_damaged_pages();
    test_rebuild_other_version();
    test_rebuild_while_open();
    test_two_handles();
    test_two_processes();
    test_errors();
    test_bulk();
    test_graph();
    test_graph_many();
    test_graph_damaged();
    test_has_many();
    test_attrs_key();
    test_check_stamp();
    CHECK_DONE();
}
