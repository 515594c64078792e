/*
 * test_dwim_diff.c: the unified-diff parser and applier of the fix verb as a table: each
 * row is a file's content, a diff, and either the content it must produce or the words
 * the refusal must hold (wrong context, overlapping hunks, bad counts, paths that leave
 * the tree, absolute paths, binary patches, CRLF files, `\ No newline at end of file`,
 * offsets, ambiguity). The files on disk (symlinks, atomic refusal of a whole edit, undo)
 * are tested through the CLI in tests/cli/17_dwim.sh, 18_dwim_do.sh and 37_dwim_safety.sh;
 * here: a write beneath an opened directory whose name was swapped for a symbolic link,
 * and the git directories fix refuses ($GIT_DIR too).
 */
#define _GNU_SOURCE
#include "check.h"

#include "dwim/dwim_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    char *t = NULL;
    size_t n;
    return qr_read_file(path, 1 << 20, &t, &n) == QR_OK ? t : NULL;
}

typedef struct row {
    const char *name;
    const char *file; /* the content of the (single) file the diff edits */
    const char *diff;
    const char *want; /* the new content, or NULL when refused */
    const char *err;  /* words the refusal holds */
} row;

#define F "a\nb\nc\nd\ne\nf\ng\nh\n"

static const row rows[] = {
    {"one hunk, git headers", F,
     "diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n+++ b/x.c\n"
     "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n",
     "a\nb\nC\nd\ne\nf\ng\nh\n", NULL},
    {"plain headers with timestamps", F,
     "--- x.c\t2024-01-01 00:00:00\n+++ x.c\t2024-01-02 00:00:00\n@@ -1,2 +1,3 @@\n a\n+a2\n b\n",
     "a\na2\nb\nc\nd\ne\nf\ng\nh\n", NULL},
    {"two hunks", F,
     "--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -7,2 +7,3 @@\n g\n h\n+i\n",
     "A\nb\nc\nd\ne\nf\ng\nh\ni\n", NULL},
    {"headerless hunk", F, "@@ -4,1 +4,1 @@\n-d\n+D\n", "a\nb\nc\nD\ne\nf\ng\nh\n", NULL},
    {"words before the diff", F, "Here it is:\n\n@@ -4 +4 @@\n-d\n+D\n",
     "a\nb\nc\nD\ne\nf\ng\nh\n", NULL},
    {"offset: the line numbers are wrong by 3", F, "@@ -7,2 +7,2 @@\n c\n-d\n+D\n",
     "a\nb\nc\nD\ne\nf\ng\nh\n", NULL},
    {"the offset carries to the next hunk", "x\nx\nx\n" F,
     "@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -5,1 +5,1 @@\n-e\n+E\n",
     "x\nx\nx\nA\nb\nc\nd\nE\nf\ng\nh\n", NULL},
    {"pure insertion after line 2", F, "@@ -2,0 +3,1 @@\n+new\n",
     "a\nb\nnew\nc\nd\ne\nf\ng\nh\n", NULL},
    {"insertion at the top", F, "@@ -0,0 +1 @@\n+top\n", "top\n" F, NULL},
    {"empty context line written without its space", "a\n\nb\n", "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n",
     "a\n\nB\n", NULL},
    {"CRLF file, LF diff: added lines get CRLF", "a\r\nb\r\nc\r\n",
     "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\r\nB\r\nc\r\n", NULL},
    {"CRLF file, CRLF diff", "a\r\nb\r\n", "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n",
     "a\r\nB\r\n", NULL},
    {"no newline at the end, kept", "a\nb", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n",
     "A\nb", NULL},
    {"no newline at the end, added", "a\nb\n", "@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n",
     "a\nb", NULL},
    {"no newline at the end, removed", "a\nb",
     "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n", NULL},
    {"appending after a last line without newline", "a", "@@ -1 +1,2 @@\n a\n+b\n", "a\nb\n",
     NULL},
    {"new file", "", "--- /dev/null\n+++ b/new.c\n@@ -0,0 +1,2 @@\n+int x;\n+int y;\n",
     "int x;\nint y;\n", NULL},
    {"deleted file", "a\nb\n", "--- a/x.c\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", "", NULL},

    {"wrong context", F, "@@ -2,3 +2,3 @@\n b\n-c\n+C\n D\n", NULL, "does not apply"},
    {"wrong context names the line", F, "@@ -2,2 +2,2 @@\n-x\n+C\n c\n", NULL, "line 2 reads 'b'"},
    {"too far away", "a\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n"
                     "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n"
                     "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n"
                     "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n"
                     "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n"
                     "0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n" "z\n",
     "@@ -1 +1 @@\n-z\n+Z\n", NULL, "not within 100 lines"},
    {"ambiguous", "x\nk\nx\nk\nx\n", "@@ -3,1 +3,1 @@\n-k\n+K\n", NULL, "equally far"},
    {"overlapping hunks", F, "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n@@ -3,1 +3,1 @@\n-c\n+X\n", NULL,
     "overlaps"},
    {"hunks out of order", F, "@@ -6,1 +6,1 @@\n-f\n+F\n@@ -2,1 +2,1 @@\n-b\n+B\n", NULL,
     "overlaps or precedes"},
    {"count too small", F, "@@ -2,1 +2,1 @@\n b\n-c\n+C\n", NULL, "more old lines"},
    {"count too large", F, "@@ -2,4 +2,4 @@\n b\n-c\n+C\n d\n", NULL, "ends early"},
    {"a line that is no hunk line", F, "@@ -2,2 +2,2 @@\n b\n*c\n", NULL,
     "must start with ' ', '-' or '+'"},
    {"bad hunk header", F, "@@ -a,2 +2,2 @@\n b\n", NULL, "must read"},
    {"prose after the diff", F, "@@ -4 +4 @@\n-d\n+D\nthat fixes it\n", NULL,
     "not part of a unified diff"},
    {"path escape", F, "--- a/../x.c\n+++ b/../x.c\n@@ -1 +1 @@\n-a\n+A\n", NULL,
     "leaves the working tree"},
    {"path escape inside", F, "--- a/src/../../x.c\n+++ b/src/../../x.c\n@@ -1 +1 @@\n-a\n+A\n",
     NULL, "leaves the working tree"},
    {"absolute path", F, "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+A\n", NULL,
     "absolute path"},
    {"binary", F, "diff --git a/x.png b/x.png\nGIT binary patch\nliteral 5\n", NULL, "binary"},
    {"binary files differ", F, "diff --git a/x b/x\nBinary files a/x and b/x differ\n", NULL,
     "binary"},
    {"rename", F, "--- a/x.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+A\n", NULL, "renames"},
    {"both /dev/null", F, "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n", NULL,
     "both sides"},
    {"no hunk", F, "--- a/x.c\n+++ b/x.c\n", NULL, "no hunk"},
    {"nothing", F, "just words\n", NULL, "no hunk"},
    {"no newline marker in the middle", F,
     "@@ -1,2 +1,1 @@\n-a\n\\ No newline at end of file\n b\n", NULL, "before the end"},
    {"no newline claimed but there is one", F, "@@ -8 +8 @@\n-h\n\\ No newline at end of file\n+H\n",
     NULL, "does not apply"},
    {"no newline after an empty added line", "a\nb\n", "@@ -2 +2 @@\n-b\n+\n\\ No newline\n", NULL,
     "after an empty added line"},
    {"a marker with no line before it", F, "\\ No newline at end of file\n", NULL,
     "follows no hunk line"},
    {"new file with two hunks", "", "--- /dev/null\n+++ b/n.c\n@@ -0,0 +1 @@\n+a\n@@ -0,0 +2 @@\n+b\n",
     NULL, "takes one hunk"},
    {"the same file twice", F,
     "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+A\n--- a/x.c\n+++ b/x.c\n@@ -2 +2 @@\n-b\n+B\n",
     NULL, "appears twice"},
    {"empty hunk", F, "@@ -1,0 +1,0 @@\n", NULL, "empty hunk"},
    {"quoted path", F, "--- \"a/x y.c\"\n+++ \"b/x y.c\"\n@@ -1 +1 @@\n-a\n+A\n", NULL, "quoted"},
    {"--- without +++", F, "--- a/x.c\n@@ -1 +1 @@\n-a\n+A\n", NULL, "not followed"},
};

static void test_table(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_buf err, out;
        qr_buf_init(&err);
        qr_buf_init(&out);
        qr_dwim_diff d;
        int rc = qr__dwim_diff_parse(r->diff, strlen(r->diff), &a, &d, &err);
        uint32_t first = 0;
        for (size_t f = 0; rc == QR_OK && f < d.nfiles; f++)
            rc = qr__dwim_diff_apply(&d, &d.files[f], "x.c", r->file, strlen(r->file), &out,
                                     &first, &err);
        if (r->want) {
            if (rc != QR_OK || strcmp(out.p ? out.p : "", r->want) != 0)
                fprintf(stderr, "row '%s': rc %d err '%s' got '%s'\n", r->name, rc,
                        err.p ? err.p : "", out.p ? out.p : "");
            CHECK(rc == QR_OK);
            CHECK_STR(out.p ? out.p : "", r->want);
        } else {
            if (rc == QR_OK || !err.p || !strstr(err.p, r->err))
                fprintf(stderr, "row '%s': rc %d err '%s' (wanted '%s')\n", r->name, rc,
                        err.p ? err.p : "", r->err);
            CHECK(rc == QR_EINVAL);
            CHECK(err.p && strstr(err.p, r->err));
        }
        qr_buf_release(&err);
        qr_buf_release(&out);
        qr_arena_release(&a);
    }
}

static void test_shape(void)
{
    /* what the parser hands the fix verb: files, paths without a/ b/, counts */
    const char *t = "--- a/src/x.c\n+++ b/src/x.c\n@@ -1,2 +1,3 @@ int main(void)\n a\n+b\n c\n"
                    "--- /dev/null\n+++ b/src/new.c\n@@ -0,0 +1 @@\n+n\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_dwim_diff d;
    CHECK(qr__dwim_diff_parse(t, strlen(t), &a, &d, &err) == QR_OK);
    CHECK(d.nfiles == 2);
    CHECK_STR(d.files[0].old_path, "src/x.c");
    CHECK_STR(d.files[0].new_path, "src/x.c");
    CHECK(d.files[0].nhunks == 1 && d.files[0].hunks[0].old_count == 2 &&
          d.files[0].hunks[0].new_count == 3 && d.files[0].hunks[0].nlines == 3);
    CHECK(d.files[1].old_path == NULL);
    CHECK_STR(d.files[1].new_path, "src/new.c");
    CHECK(qr__dwim_diff_like(t, strlen(t)));
    CHECK(!qr__dwim_diff_like("<<<<<<< SEARCH\n-a\n", 18));
    /* where the first hunk was found */
    qr_buf out;
    qr_buf_init(&out);
    uint32_t first = 0;
    CHECK(qr__dwim_diff_apply(&d, &d.files[0], "x", "z\na\nc\n", 6, &out, &first, &err) ==
          QR_OK);
    CHECK(first == 3);
    CHECK_STR(out.p, "z\na\nb\nc\n");
    qr_buf_release(&out);
    qr_buf_release(&err);
    qr_arena_release(&a);
}

/* A parent directory swapped for a symbolic link between the check and the write: the
 * write goes into the directory that was checked (opened), never through the link, and a
 * new walk refuses the link. */
static void test_write_beneath_opened_dir(void)
{
    char root[] = "/tmp/quarry-test-beneath-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/tree", root);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/tree/sub", root);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/outside", root);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/tree", root);
    qr_buf err;
    qr_buf_init(&err);
    int dfd = -1;
    const char *leaf = NULL;
    CHECK(qr__dwim_open_parent(p, "sub/f.c", &dfd, &leaf, &err) == QR_OK);
    CHECK_STR(leaf, "f.c");
    /* the swap: sub moves away, a link to the outside takes its name */
    snprintf(p, sizeof p, "%s/tree/sub", root);
    snprintf(q, sizeof q, "%s/tree/sub.old", root);
    CHECK(rename(p, q) == 0);
    snprintf(q, sizeof q, "%s/outside", root);
    CHECK(symlink(q, p) == 0);
    CHECK(qr__dwim_write_at(dfd, leaf, "new\n", 4, 0640) == QR_OK);
    close(dfd);
    snprintf(p, sizeof p, "%s/outside/f.c", root);
    CHECK(access(p, F_OK) != 0); /* nothing outside */
    snprintf(p, sizeof p, "%s/tree/sub.old/f.c", root);
    char *t = slurp(p);
    CHECK(t && !strcmp(t, "new\n"));
    free(t);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
    /* a walk now refuses the link */
    snprintf(p, sizeof p, "%s/tree", root);
    qr_buf_reset(&err);
    CHECK(qr__dwim_open_parent(p, "sub/f.c", &dfd, &leaf, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "('sub') is a symbolic link"));
    CHECK(qr__dwim_open_parent(p, "../tree/f.c", &dfd, &leaf, &err) == QR_EINVAL);
    /* the file itself as a link is read as no file */
    snprintf(p, sizeof p, "%s/tree/sub.old/l.c", root);
    CHECK(symlink("/etc/passwd", p) == 0);
    snprintf(p, sizeof p, "%s/tree", root);
    CHECK(qr__dwim_open_parent(p, "sub.old/l.c", &dfd, &leaf, &err) == QR_OK);
    char *data;
    size_t n;
    CHECK(qr__dwim_read_at(dfd, leaf, 1 << 20, &data, &n, &st) == QR_EIO);
    close(dfd);
    qr_buf_release(&err);
    snprintf(p, sizeof p, "rm -rf '%s'", root);
    CHECK(system(p) == 0);
}

/* The git directories fix refuses: the worktree's own, and $GIT_DIR wherever it points
 * (here a directory inside the tree that is not named .git), and any .git component. */
static void test_git_dirs_refused(void)
{
    char root[] = "/tmp/quarry-test-gitdirs-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "git init -q '%s' && mkdir '%s/meta' '%s/src'", root, root,
             root);
    CHECK(system(cmd) == 0);
    char *real = realpath(root, NULL);
    qr_dwim_ctx c = {.root = real};
    char meta[600];
    snprintf(meta, sizeof meta, "%s/meta", real);
    setenv("GIT_DIR", meta, 1);
    qr_dwim_gitdirs g;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr__dwim_gitdirs_init(&g, &c, &err) == QR_OK);
    unsetenv("GIT_DIR");
    char abs[700];
    snprintf(abs, sizeof abs, "%s/.git/config", real);
    CHECK(qr__dwim_gitdirs_hold(&g, abs, ".git/config"));
    snprintf(abs, sizeof abs, "%s/meta/hooks/pre-commit", real);
    CHECK(qr__dwim_gitdirs_hold(&g, abs, "meta/hooks/pre-commit"));
    snprintf(abs, sizeof abs, "%s/src/a.c", real);
    CHECK(!qr__dwim_gitdirs_hold(&g, abs, "src/a.c"));
    snprintf(abs, sizeof abs, "%s/vendor/lib/.GIT/config", real);
    CHECK(qr__dwim_gitdirs_hold(&g, abs, "vendor/lib/.GIT/config"));
    snprintf(abs, sizeof abs, "%s/.github/x.yml", real);
    CHECK(!qr__dwim_gitdirs_hold(&g, abs, ".github/x.yml"));
    qr__dwim_gitdirs_release(&g);
    qr_buf_release(&err);
    free(real);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_write_beneath_opened_dir();
    test_git_dirs_refused();
    test_table();
    test_shape();
    CHECK_DONE();
}
