/*
 * test_git.c: unit tests for the git source on repositories built here with libgit2 (no
 * git command needed except for the line statistics, which are skipped without it):
 * pathspec matching, .mailmap as git reads it (case-insensitive emails and names), opening
 * (discovery from a subdirectory, the error outside a repository), ref resolution, the
 * walk (git's order among equal dates, --since cutting the walk, history simplification
 * for a path, first parent, merges, shallow boundaries, limits, an empty repository),
 * statistics (binary files, root commits, merges), and the tools through the registry.
 * The same behaviour is checked against git's own output in tests/cli/03_git.sh.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */

#include "check.h"
#include "git/git_int.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(p);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- building repositories with libgit2 ---- */

typedef struct file {
    const char *path, *content;
    size_t len; /* 0: strlen(content) */
} file;

/* Builds the tree of files[0..n) whose paths start with prefix (of length plen). */
static void build_tree(git_repository *repo, const file *files, size_t n, const char *prefix,
                       size_t plen, git_oid *out)
{
    git_treebuilder *tb = NULL;
    CHECK(git_treebuilder_new(&tb, repo, NULL) == 0);
    for (size_t i = 0; i < n; i++) {
        const char *p = files[i].path;
        if (strncmp(p, prefix, plen))
            continue;
        const char *rest = p + plen, *slash = strchr(rest, '/');
        if (!slash) {
            git_oid blob;
            size_t len = files[i].len ? files[i].len : strlen(files[i].content);
            CHECK(git_blob_create_from_buffer(&blob, repo, files[i].content, len) == 0);
            CHECK(git_treebuilder_insert(NULL, tb, rest, &blob, GIT_FILEMODE_BLOB) == 0);
            continue;
        }
        char name[128], sub[256];
        snprintf(name, sizeof name, "%.*s", (int)(slash - rest), rest);
        if (git_treebuilder_get(tb, name))
            continue;
        snprintf(sub, sizeof sub, "%s%s/", prefix, name);
        git_oid t;
        build_tree(repo, files, n, sub, strlen(sub), &t);
        CHECK(git_treebuilder_insert(NULL, tb, name, &t, GIT_FILEMODE_TREE) == 0);
    }
    CHECK(git_treebuilder_write(out, tb) == 0);
    git_treebuilder_free(tb);
}

/* A commit of files by who at time t with the given parents; updates ref when not NULL. */
static git_oid commit(git_repository *repo, const char *ref, const file *files, size_t n,
                      const char *who, int64_t t, const git_oid *parents, size_t np,
                      const char *msg)
{
    git_oid tree_id, id;
    build_tree(repo, files, n, "", 0, &tree_id);
    git_tree *tree = NULL;
    CHECK(git_tree_lookup(&tree, repo, &tree_id) == 0);
    const git_commit *pc[4] = {NULL};
    for (size_t i = 0; i < np; i++)
        CHECK(git_commit_lookup((git_commit **)&pc[i], repo, &parents[i]) == 0);
    char email[64];
    snprintf(email, sizeof email, "%s@example.com", who);
    git_signature *sig = NULL;
    CHECK(git_signature_new(&sig, who, email, t, 0) == 0);
    CHECK(git_commit_create(&id, repo, ref, sig, sig, NULL, msg, tree, np, pc) == 0);
    git_signature_free(sig);
    for (size_t i = 0; i < np; i++)
        git_commit_free((git_commit *)pc[i]);
    git_tree_free(tree);
    return id;
}

static git_repository *new_repo(const char *name, char *dir, size_t dirlen)
{
    snprintf(dir, dirlen, "%s/%s", root, name);
    git_repository *repo = NULL;
    CHECK(git_repository_init(&repo, dir, false) == 0);
    return repo;
}

/* The same walk reading the index's commit graph (filled as it goes, then read) gives the
 * same commits with the same fields, but no message or subject. */
static void check_graph_walk(qr_git *g, const qr_walk_opts *o, const qr_commit_info *want,
                             size_t nwant)
{
    if ((o->path && !qr__pathspec_all(o->path)) || o->grep)
        return;
    qr_git_index *ix = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_git_index_open(qr_git_dir(g), &ix, NULL, &err) == QR_OK);
    for (int round = 0; ix && round < 2; round++) {
        qr_walk_opts go = *o;
        go.graph = ix;
        go.graph_write = true;
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_commit_info *cs;
        size_t n = 0;
        CHECK(qr__git_walk(g, &go, &a, &cs, &n, &err) == QR_OK);
        CHECK(n == nwant);
        for (size_t i = 0; i < n && i < nwant; i++) {
            const qr_commit_info *x = &cs[i], *y = &want[i];
            bool same = git_oid_equal(&x->oid, &y->oid) && !strcmp(x->author, y->author) &&
                        !strcmp(x->email, y->email) && !strcmp(x->raw_author, y->raw_author) &&
                        !strcmp(x->raw_email, y->raw_email) && x->atime == y->atime &&
                        x->aoffset == y->aoffset && x->ctime == y->ctime &&
                        x->nparents == y->nparents && !strcmp(x->subject, "") &&
                        !strcmp(x->message, "");
            for (uint32_t k = 0; same && k < x->nparents; k++)
                same = git_oid_equal(&x->parents[k], &y->parents[k]);
            CHECK(same);
        }
        qr_arena_release(&a);
    }
    qr_git_index_close(ix);
    qr_buf_release(&err);
}

/* The walk's commits as their subjects joined by spaces (checking the graph walk too). */
static const char *walk_subjects(qr_git *g, const qr_walk_opts *o)
{
    static char buf[1024];
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_commit_info *cs;
    size_t n;
    buf[0] = 0;
    if (qr__git_walk(g, o, &a, &cs, &n, &err) != QR_OK) {
        snprintf(buf, sizeof buf, "error: %s", err.p ? err.p : "?");
    } else {
        size_t len = 0;
        for (size_t i = 0; i < n && len < sizeof buf; i++)
            len +=
                (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "", cs[i].subject);
        check_graph_walk(g, o, cs, n);
    }
    qr_buf_release(&err);
    qr_arena_release(&a);
    return buf;
}

/* ---- pathspecs ---- */

static bool pmatch(const char *pat, const char *path)
{
    qr_pathspec ps;
    qr__pathspec_init(&ps, pat);
    return qr__pathspec_match(&ps, path, strlen(path));
}

static void test_pathspec(void)
{
    CHECK(pmatch("src", "src"));
    CHECK(pmatch("src", "src/a.c"));
    CHECK(pmatch("src/", "src/a/b.c"));
    CHECK(!pmatch("src/", "src"));
    CHECK(!pmatch("src", "srcx/a.c"));
    CHECK(!pmatch("sr", "src/a.c"));
    CHECK(pmatch("*.c", "a/b/c.c"));
    CHECK(pmatch("src/*.c", "src/a/b.c")); /* '*' matches '/' as in git */
    CHECK(!pmatch("*.c", "a.h"));
    CHECK(pmatch("a[1].txt", "a[1].txt")); /* a glob that matches itself literally */
    CHECK(pmatch("a?c", "abc"));
    CHECK(pmatch(".", "anything/at/all"));
    CHECK(pmatch("", "x"));
    CHECK(pmatch("./src", "src/x"));
    qr_pathspec ps;
    qr__pathspec_init(&ps, "./");
    CHECK(qr__pathspec_all(&ps));
}

/* A pathspec with git's magic and normalisation; "!" before the path means the parse
 * must fail. */
static bool pspec(const char *spec, const char *path)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_pathspec ps;
    bool m = qr__pathspec_parse(&ps, spec, "/work/repo", &a, &err) == QR_OK &&
             qr__pathspec_match(&ps, path, strlen(path));
    qr_buf_release(&err);
    qr_arena_release(&a);
    return m;
}

static int pspec_rc(const char *spec)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_pathspec ps;
    int rc = qr__pathspec_parse(&ps, spec, "/work/repo", &a, &err);
    CHECK(rc == QR_OK || (err.len && strstr(err.p, spec)));
    qr_buf_release(&err);
    qr_arena_release(&a);
    return rc;
}

static void test_pathspec_magic(void)
{
    /* normalisation */
    CHECK(pspec("src/../a.txt", "a.txt"));
    CHECK(!pspec("src/../a.txt", "src/a.txt"));
    CHECK(pspec("./src//x/./y.c", "src/x/y.c"));
    CHECK(pspec("src/a/..", "src/b.c"));
    CHECK(pspec("/work/repo/src", "src/b.c"));
    CHECK(pspec("/work/repo", "anything"));
    CHECK(pspec_rc("..") == QR_EINVAL);
    CHECK(pspec_rc("../x") == QR_EINVAL);
    CHECK(pspec_rc("src/../../x") == QR_EINVAL);
    CHECK(pspec_rc("/work/repository/x") == QR_EINVAL);
    CHECK(pspec_rc("/etc/passwd") == QR_EINVAL);
    /* magic */
    CHECK(pspec(":(icase)SRC/A.C", "src/a.c"));
    CHECK(pspec(":(icase)SRC", "Src/x"));
    CHECK(!pspec("SRC", "src/x"));
    CHECK(pspec(":!src", "README"));
    CHECK(!pspec(":!src", "src/a.c"));
    CHECK(!pspec(":^src", "src/a.c"));
    CHECK(pspec(":(exclude)src", "srcx"));
    CHECK(!pspec(":(exclude,icase)SRC", "src/a"));
    CHECK(pspec(":/src", "src/a.c"));
    CHECK(pspec(":(top)src", "src/a.c"));
    CHECK(pspec(":(literal)a*b", "a*b"));
    CHECK(!pspec(":(literal)a*b", "axb"));
    CHECK(pspec("a*b", "axb"));
    CHECK(pspec("src/*.c", "src/a/b.c"));
    CHECK(!pspec(":(glob)src/*.c", "src/a/b.c"));
    CHECK(pspec(":(glob)src/*.c", "src/b.c"));
    CHECK(pspec(":(glob)**/b.c", "src/a/b.c"));
    CHECK(pspec(":(glob)**/b.c", "b.c"));
    CHECK(pspec(":(glob)**/*.md", "docs/api/index.md"));
    CHECK(!pspec(":(glob)**/*.md", "docs/api/index.mdx"));
    CHECK(pspec(":(glob)docs/**/*", "docs/a/b/c"));
    CHECK(pspec(":(glob)src/**", "src/a/b.c"));
    CHECK(pspec(":(glob)src/**/b.c", "src/b.c"));
    CHECK(pspec(":(glob)src/**/b.c", "src/x/y/b.c"));
    CHECK(!pspec(":(glob)src/**/b.c", "srcx/b.c"));
    CHECK(pspec(":(glob,icase)SRC/*.C", "src/b.c"));
    CHECK(pspec("[ab]?.[[:digit:]]", "bx.7"));
    CHECK(!pspec("[!ab]?.[[:digit:]]", "bx.7"));
    /* a pattern built to backtrack ends (git's abort rules; a step budget behind them) */
    char pat[200], text[400];
    size_t k = 0;
    for (int i = 0; i < 60; i++)
        pat[k++] = '*', pat[k++] = i % 2 ? '*' : 'a', pat[k++] = i % 3 ? '/' : 'a';
    memset(text, 'a', sizeof text - 1);
    for (size_t i = 7; i < sizeof text - 1; i += 9)
        text[i] = '/';
    text[sizeof text - 2] = 'b';
    text[sizeof text - 1] = '\0';
    CHECK(!qr__wildmatch(pat, k, text, strlen(text), true, false));
    CHECK(!qr__wildmatch(pat, k, text, strlen(text), false, true));
    CHECK(pspec_rc(":(foo)x") == QR_EINVAL);
    CHECK(pspec_rc(":(attr:binary)x") == QR_EINVAL);
    CHECK(pspec_rc(":(glob,literal)x") == QR_EINVAL);
    CHECK(pspec_rc(":(icase") == QR_EINVAL);
    /* what the walk asks: can a directory hold a match, does it hold only matches */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_pathspec ps;
    CHECK(qr__pathspec_parse(&ps, ":!src/vendor", NULL, &a, &err) == QR_OK);
    CHECK(qr__pathspec_reaches(&ps, "src", 3) && !qr__pathspec_covers(&ps, "src", 3));
    CHECK(!qr__pathspec_reaches(&ps, "src/vendor", 10));
    CHECK(qr__pathspec_covers(&ps, "docs", 4));
    CHECK(qr__pathspec_parse(&ps, ":(icase)SRC", NULL, &a, &err) == QR_OK);
    CHECK(qr__pathspec_reaches(&ps, "Src", 3) && qr__pathspec_covers(&ps, "src/x", 5));
    CHECK(qr__pathspec_parse(&ps, "/abs", NULL, &a, &err) == QR_EINVAL); /* bare: no work tree */
    /* as git's argument */
    const char *g = NULL;
    CHECK(qr__pathspec_parse(&ps, ":!src/", NULL, &a, &err) == QR_OK);
    CHECK(qr__pathspec_to_git(&ps, &a, &g) == QR_OK);
    CHECK_STR(g, ":(top,exclude,literal)src/");
    CHECK(qr__pathspec_parse(&ps, "x/../*.c", NULL, &a, &err) == QR_OK);
    CHECK(qr__pathspec_to_git(&ps, &a, &g) == QR_OK);
    CHECK_STR(g, ":(top)*.c");
    qr_buf_release(&err);
    qr_arena_release(&a);
}

/* A path that is not UTF-8 is shown C-quoted, and the quoted form is read back. */
static void test_path_quoting(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    const char *raw[] = {"caf\351.txt", "ok/caf\303\251.txt", "\"quoted\"", "a\"b\\c\td\n\377",
                         "plain", "\303"};
    const char *shown[] = {"\"caf\\351.txt\"", "ok/caf\303\251.txt", "\"\\\"quoted\\\"\"",
                           "\"a\\\"b\\\\c\\td\\n\\377\"", "plain", "\"\\303\""};
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
        const char *s = qr__path_shown(&a, raw[i], strlen(raw[i]));
        CHECK_STR(s, shown[i]);
        const char *back = NULL;
        CHECK(qr__path_unquote(&a, s, &back, &err) == QR_OK);
        CHECK_STR(back, raw[i]);
        CHECK(pspec(s, raw[i]));
    }
    const char *back;
    CHECK(qr__path_unquote(&a, "\"bad\\q\"", &back, &err) == QR_EINVAL);
    CHECK(qr__path_unquote(&a, "\"nul\\000\"", &back, &err) == QR_EINVAL);
    CHECK(qr__path_unquote(&a, "\"a\"b\"", &back, &err) == QR_EINVAL);
    CHECK(qr__path_unquote(&a, "\"end\\\"", &back, &err) == QR_EINVAL);
    qr_buf_release(&err);
    qr_arena_release(&a);
}

/* ---- .mailmap ---- */

static void test_mailmap(void)
{
    char dir[512];
    git_repository *repo = new_repo("mailmap", dir, sizeof dir);
    write_file(dir, ".mailmap",
               "# comment line\n"
               "Proper Name <proper@example.com>\n"
               "<new@example.com> <OLD@Example.com>\n"
               "Jane Doe <jane@example.com> jd <JD@example.com>\n"
               "Other <other@example.com> <jd@example.com>\n"
               "not an entry\n");
    qr_mailmap *m = NULL;
    CHECK(qr__mailmap_load(repo, &m) == QR_OK);
    const char *name = "whoever", *email = "PROPER@example.com";
    CHECK(qr__mailmap_map(m, &name, &email));
    CHECK_STR(name, "Proper Name");
    CHECK_STR(email, "PROPER@example.com"); /* a name-only line keeps the email */
    name = "x", email = "old@example.COM";
    CHECK(qr__mailmap_map(m, &name, &email));
    CHECK_STR(name, "x");
    CHECK_STR(email, "new@example.com");
    name = "JD", email = "jd@example.com"; /* the name-specific entry, any case */
    CHECK(qr__mailmap_map(m, &name, &email));
    CHECK_STR(name, "Jane Doe");
    CHECK_STR(email, "jane@example.com");
    name = "Someone", email = "jd@example.com"; /* another name: the plain entry */
    CHECK(qr__mailmap_map(m, &name, &email));
    CHECK_STR(name, "Other");
    CHECK_STR(email, "other@example.com");
    name = "Nobody", email = "nobody@example.com";
    CHECK(!qr__mailmap_map(m, &name, &email));
    CHECK_STR(name, "Nobody");
    qr__mailmap_free(m);
    git_repository_free(repo);
}

/* ---- opening, refs, the walk ---- */

static void test_open(void)
{
    char dir[512], sub[600];
    git_repository *repo = new_repo("open", dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/deep", dir);
    CHECK(mkdir(sub, 0755) == 0);
    qr_git *g = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_git_open(sub, &g, &err) == QR_OK);
    if (g) {
        CHECK(strstr(qr_git_dir(g), "/open/.git") != NULL);
        CHECK(strstr(qr_git_workdir(g), "/open") != NULL);
        /* an empty repository: HEAD is unborn, the walk is empty, other refs unknown */
        git_oid oid;
        bool unborn = false;
        CHECK(qr__git_resolve(g, NULL, &oid, &unborn, &err) == QR_OK && unborn);
        qr_walk_opts o = {.limit = -1};
        CHECK_STR(walk_subjects(g, &o), "");
        CHECK(qr__git_resolve(g, "main", &oid, &unborn, &err) == QR_EINVAL);
        CHECK(err.p && strstr(err.p, "unknown ref 'main'"));
        qr_git_free(g);
    }
    qr_buf_reset(&err);
    g = NULL;
    CHECK(qr_git_open("/", &g, &err) == QR_EINVAL);
    CHECK(g == NULL);
    CHECK(err.p && !strncmp(err.p, "not a git repository: '/'", 25));
    qr_buf_release(&err);
    git_repository_free(repo);
}

static void test_walk(void)
{
    char dir[512];
    git_repository *repo = new_repo("walk", dir, sizeof dir);
    /* root (t=100); a and b (both t=200) on two branches; merge (t=300); old (t=150,
     * out of order) on top; then top (t=400) */
    file f0[] = {{"README", "r\n", 0}, {"src/a.c", "a\n", 0}};
    git_oid root_id = commit(repo, NULL, f0, 2, "ann", 100, NULL, 0, "root");
    file fa[] = {{"README", "r\n", 0}, {"src/a.c", "a\nA\n", 0}};
    git_oid a = commit(repo, NULL, fa, 2, "bob", 200, &root_id, 1, "a");
    file fb[] = {{"README", "r\nb\n", 0}, {"src/a.c", "a\n", 0}};
    git_oid b = commit(repo, NULL, fb, 2, "cat", 200, &root_id, 1, "b");
    file fm[] = {{"README", "r\nb\n", 0}, {"src/a.c", "a\nA\n", 0}};
    git_oid pm[2] = {a, b};
    git_oid m = commit(repo, NULL, fm, 2, "dan", 300, pm, 2, "merge");
    file fo[] = {{"README", "r\nb\n", 0}, {"src/a.c", "a\nA\n", 0}, {"bin", "\0\1\2", 3}};
    git_oid old = commit(repo, NULL, fo, 3, "ann", 150, &m, 1, "old");
    commit(repo, "HEAD", fo, 3, "bob", 400, &old, 1, "top");

    qr_git *g = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_git_open(dir, &g, &err) == QR_OK);
    if (!g) {
        git_repository_free(repo);
        return;
    }
    qr_walk_opts o = {.limit = -1};
    /* equal dates come out in the order they were queued: a (first parent) before b */
    CHECK_STR(walk_subjects(g, &o), "top old merge a b root");
    o.limit = 2;
    CHECK_STR(walk_subjects(g, &o), "top old");
    o.limit = -1;
    /* since cuts the walk at "old" (t=150): nothing behind it is reached */
    o.has_since = true, o.since = 160;
    CHECK_STR(walk_subjects(g, &o), "top");
    o.since = 140;
    CHECK_STR(walk_subjects(g, &o), "top old merge a b");
    o.has_since = false;
    o.has_until = true, o.until = 200;
    CHECK_STR(walk_subjects(g, &o), "old a b root");
    o.has_until = false;
    o.merges = QR_MERGES_ONLY;
    CHECK_STR(walk_subjects(g, &o), "merge");
    o.merges = QR_MERGES_EXCLUDE;
    CHECK_STR(walk_subjects(g, &o), "top old a b root");
    o.merges = QR_MERGES_INCLUDE;
    o.first_parent = true;
    CHECK_STR(walk_subjects(g, &o), "top old merge a root");
    o.first_parent = false;
    o.author = "BOB";
    CHECK_STR(walk_subjects(g, &o), "top a");
    /* authors seen first on commits filtered out, then again (the graph walk memoizes
     * each author's strings: they must survive the commits it drops) */
    o.author = "dan";
    CHECK_STR(walk_subjects(g, &o), "merge");
    o.author = NULL;
    /* a path: commits that change it; the merge is TREESAME to its first parent for
     * src (a brought the change), so only that side is followed */
    qr_pathspec ps;
    qr__pathspec_init(&ps, "src");
    o.path = &ps;
    CHECK_STR(walk_subjects(g, &o), "a root");
    qr__pathspec_init(&ps, "README");
    CHECK_STR(walk_subjects(g, &o), "b root");
    qr__pathspec_init(&ps, "*.c");
    CHECK_STR(walk_subjects(g, &o), "a root");
    qr__pathspec_init(&ps, "bin");
    CHECK_STR(walk_subjects(g, &o), "old");
    qr__pathspec_init(&ps, "nothing");
    CHECK_STR(walk_subjects(g, &o), "");
    o.path = NULL;
    /* refs and revisions */
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &b);
    o.ref = hex;
    CHECK_STR(walk_subjects(g, &o), "b root");
    o.ref = "HEAD~2^2";
    CHECK_STR(walk_subjects(g, &o), "b root");
    o.ref = "HEAD";

    /* statistics: git's numstat, when git is there */
    if (system("git --version >/dev/null 2>&1") == 0) {
        qr_arena ar;
        qr_arena_init(&ar, 0);
        qr_commit_info *cs;
        size_t n;
        CHECK(qr__git_walk(g, &o, &ar, &cs, &n, &err) == QR_OK && n == 6);
        qr_commit_stats st[6];
        CHECK(qr__git_stats(g, NULL, cs, n, false, NULL, &ar, st, &err) == QR_OK);
        CHECK(st[0].nfiles == 0);                          /* top: nothing changed */
        CHECK(st[1].nfiles == 1 && st[1].files[0].binary); /* old: the binary file */
        CHECK(st[1].files[0].status == 'A' && st[1].additions == 0);
        CHECK(st[2].nfiles == 0); /* merge: none */
        CHECK(st[3].nfiles == 1 && st[3].additions == 1 && st[3].deletions == 0);
        CHECK(!strcmp(st[3].files[0].path, "src/a.c") && st[3].files[0].status == 'M');
        CHECK(st[5].nfiles == 2 && st[5].additions == 2); /* root: against the empty tree */
        /* first parent: the merge carries its diff against a (b's README line) */
        CHECK(qr__git_stats(g, NULL, cs, n, true, NULL, &ar, st, &err) == QR_OK);
        CHECK(st[2].nfiles == 1 && st[2].additions == 1 && !strcmp(st[2].files[0].path, "README"));
        /* between two commits */
        qr_commit_stats d;
        CHECK(qr__git_diff_stats(g, &root_id, &old, &ar, &d, &err) == QR_OK);
        CHECK(d.nfiles == 3 && d.additions == 2 && d.deletions == 0);
        qr_arena_release(&ar);
    }

    /* every ref at once: a branch HEAD does not reach, and a tag on a blob (skipped) */
    file fs[] = {{"README", "side\n", 0}};
    commit(repo, "refs/heads/side", fs, 1, "eve", 250, &a, 1, "side");
    git_oid blob;
    git_reference *tag = NULL;
    CHECK(git_blob_create_from_buffer(&blob, repo, "x", 1) == 0);
    CHECK(git_reference_create(&tag, repo, "refs/tags/blob", &blob, 0, NULL) == 0);
    git_reference_free(tag);
    qr_walk_opts all = {.limit = -1, .all_refs = true};
    CHECK_STR(walk_subjects(g, &all), "top side a old merge b root");

    /* a shallow boundary: "merge" listed in .git/shallow has no parents */
    char shallow[600], mhex[GIT_OID_HEXSZ + 2];
    git_oid_tostr(mhex, GIT_OID_HEXSZ + 1, &m);
    strcat(mhex, "\n");
    snprintf(shallow, sizeof shallow, "%s/.git", dir);
    write_file(shallow, "shallow", mhex);
    qr_git_free(g);
    g = NULL;
    CHECK(qr_git_open(dir, &g, &err) == QR_OK);
    if (g) {
        CHECK_STR(walk_subjects(g, &o), "top old merge");
        qr_git_free(g);
    }
    qr_buf_release(&err);
    git_repository_free(repo);
}

/* ---- the tools through the registry ---- */

static int warnings;

static void count_warning(void *ud, const char *msg)
{
    (void)ud, (void)msg;
    warnings++;
}

static void test_tools(void)
{
    char dir[512];
    git_repository *repo = new_repo("tools", dir, sizeof dir);
    file f0[] = {{"a.txt", "one\n", 0}};
    git_oid c0 = commit(repo, NULL, f0, 1, "ann", 1700000000, NULL, 0, "first\n\nbody\n");
    file f1[] = {{"a.txt", "one\ntwo\n", 0}, {"b.txt", "b\n", 0}};
    commit(repo, "HEAD", f1, 2, "bob", 1700003600, &c0, 1, "second  \nline two\n\nbody");
    git_repository_free(repo);

    qr_tools *r = qr_tools_default();
    CHECK(r != NULL);
    if (!r)
        return;
    qr_host h;
    qr_host_init(&h, dir);
    h.git.warn = count_warning;
    h.git.no_index = system("git --version >/dev/null 2>&1") != 0;
    qr_tools_set_ctx(r, &h);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err, out;
    qr_buf_init(&err);
    qr_buf_init(&out);
    qr_val res;
    CHECK(qr_tools_call(r, "get_commits", NULL, qr_nil(), &a, &res, &err) == QR_OK);
    CHECK(res.t == QR_T_VEC && qr_vec_len(res) == 2);
    if (res.t == QR_T_VEC && qr_vec_len(res) == 2) {
        qr_val c = qr_vec_at(res, 0), v;
        CHECK(qr_map_get(c, qr_kw_cstr(&a, "subject"), &v) && v.t == QR_T_STR);
        CHECK_STR(v.s->data, "second line two"); /* the first paragraph, joined */
        CHECK(qr_map_get(c, qr_kw_cstr(&a, "date"), &v));
        CHECK_STR(v.s->data, "2023-11-14T23:13:20+00:00");
        CHECK(qr_map_get(c, qr_kw_cstr(&a, "email"), &v));
        CHECK_STR(v.s->data, "bob@example.com");
        if (!h.git.no_index) {
            CHECK(qr_map_get(c, qr_kw_cstr(&a, "files"), &v) && v.i == 2);
            CHECK(qr_map_get(c, qr_kw_cstr(&a, "additions"), &v) && v.i == 2);
        }
    }
    /* a second call reuses the open repository (and the index it filled) */
    CHECK(qr_tools_call(r, "get_author_stats", NULL, qr_nil(), &a, &res, &err) == QR_OK);
    qr_print(&out, res, QR_PRINT_READABLY);
    CHECK(out.p && strstr(out.p, ":email \"bob@example.com\", :commits 1"));
    /* bad input is QR_EINVAL with a message */
    qr_val args;
    qr_read_error re;
    const char *src = "{:ref \"nope\"}";
    CHECK(qr_read_all(&a, src, strlen(src), QR_READ_EDN, &args, &re) == QR_OK);
    CHECK(qr_tools_call(r, "get_commits", NULL, qr_vec_at(args, 0), &a, &res, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "unknown ref 'nope'"));
    qr_host_release(&h);
    CHECK(warnings == 0);
    /* no host: an error, not a crash */
    qr_tools_set_ctx(r, NULL);
    qr_buf_reset(&err);
    CHECK(qr_tools_call(r, "get_commits", NULL, qr_nil(), &a, &res, &err) == QR_EINVAL);
    qr_buf_release(&err);
    qr_buf_release(&out);
    qr_arena_release(&a);
    qr_tools_free(r);
}

int main(void)
{
    git_libgit2_init();
    snprintf(root, sizeof root, "/tmp/quarry-test-git-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_pathspec();
    test_pathspec_magic();
    test_path_quoting();
    test_mailmap();
    test_open();
    test_walk();
    test_tools();
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    git_libgit2_shutdown();
    CHECK_DONE();
}
