/*
 * test_dwim_diff.c: the unified-diff parser and applier of the fix verb as a table: each
 * row is a file's content, a diff, and either the content it must produce or the words
 * the refusal must hold (wrong context, overlapping hunks, bad counts, paths that leave
 * the tree, absolute paths, binary patches, CRLF files, `\ No newline at end of file`,
 * offsets, ambiguity). The files on disk (symlinks, atomic refusal of a whole edit, undo)
 * are tested through the CLI in tests/cli/17_dwim.sh and 18_dwim_do.sh.
 */
#include "check.h"

#include "dwim/dwim_int.h"

#include <stdio.h>
#include <string.h>

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

int main(void)
{
    test_table();
    test_shape();
    CHECK_DONE();
}
