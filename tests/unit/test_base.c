/*
 * test_base.c: unit tests for the base layer: the capped arena (cap, marks, realloc in
 * place), the buffer (also over fixed memory), UTF-8 helpers, hashing, the edit distance,
 * replacing a file, reading a settings file only when it is a regular file, a file's
 * stamp (changed by a write even with the mtime set back) and the state directory.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink */
#include "check.h"
#include "quarry/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail_calls;
static void count_fail(void *ud, int code)
{
    (void)ud;
    (void)code;
    fail_calls++;
}

static void test_arena(void)
{
    qr_arena a;
    qr_arena_init(&a, 1000);
    void *p = qr_arena_alloc(&a, 100);
    CHECK(p != NULL);
    CHECK(((uintptr_t)p & 15) == 0);
    CHECK(a.used == 112);
    a.on_fail = count_fail;
    CHECK(qr_arena_alloc(&a, 2000) == NULL);
    CHECK(a.exhausted);
    CHECK(fail_calls == 1);
    qr_arena_mark m = qr_arena_get_mark(&a);
    (void)m;
    qr_arena_release(&a);

    /* rewinding drops what came after the mark and keeps what came before */
    qr_arena_init(&a, 0);
    char *keep = qr_arena_strndup(&a, "keep", 4);
    qr_arena_mark mark = qr_arena_get_mark(&a);
    for (int i = 0; i < 1000; i++)
        CHECK(qr_arena_alloc(&a, 1000) != NULL);
    CHECK(a.used > 1000000);
    qr_arena_rewind(&a, mark);
    CHECK(a.used == mark.used);
    CHECK_STR(keep, "keep");

    /* realloc of the last block grows in place */
    char *r = qr_arena_alloc(&a, 32);
    memcpy(r, "abc", 4);
    char *r2 = qr_arena_realloc(&a, r, 32, 64);
    CHECK(r2 == r);
    CHECK_STR(r2, "abc");
    qr_arena_release(&a);

    /* a size that overflows is refused, never wrapped */
    qr_arena_init(&a, 0);
    CHECK(qr_arena_alloc(&a, SIZE_MAX - 4) == NULL);
    qr_arena_release(&a);
}

static void test_buf(void)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, "ab");
    qr_buf_printf(&b, "%d-%s", 42, "x");
    CHECK_STR(b.p, "ab42-x");
    qr_buf_reset(&b);
    qr_buf_json_string(&b, "a\"b\n\x01", 5);
    CHECK_STR(b.p, "\"a\\\"b\\n\\u0001\"");
    qr_buf_reset(&b);
    qr_buf_json_string(&b, "a\xff\xc3\xa9", 4);
    CHECK_STR(b.p, "\"a\\ufffd\xc3\xa9\"");
    size_t n;
    char *d = qr_buf_detach(&b, &n);
    CHECK(n == strlen(d));
    free(d);
    CHECK(b.p == NULL);
}

static void test_width(void)
{
    CHECK(qr_utf8_width("abc", 3) == 3);
    CHECK(qr_utf8_width("\xe5\xb1\xb1\xe7\x94\xb0", 6) == 4);     /* two CJK */
    CHECK(qr_utf8_width("e\xcc\x81", 3) == 1);                     /* e + combining acute */
    CHECK(qr_utf8_width("\xf0\x9f\x9a\x80", 4) == 2);              /* rocket emoji */
    CHECK(qr_utf8_width("\xea\xb9\x80", 3) == 2);                  /* Hangul syllable */
    CHECK(qr_utf8_width("\xe2\x80\x8b", 3) == 0);                  /* zero width space */
    CHECK(qr_utf8_width("\xef\xbc\xa1", 3) == 2);                  /* fullwidth A */
    CHECK(qr_utf8_width("\xc3\xa9\xc3\x85", 4) == 2);              /* precomposed */
    CHECK(qr_utf8_width("\xff", 1) == 1);                          /* invalid byte */
    CHECK(qr_cp_width(0x0301) == 0 && qr_cp_width(0x4e00) == 2 && qr_cp_width('a') == 1);
    CHECK(qr_cp_width(0x1f600) == 2 && qr_cp_width(0xfe0f) == 0 && qr_cp_width(0x2026) == 1);
    CHECK(qr_cp_width(0x20000) == 2 && qr_cp_width(0x10ffff) == 1 && qr_cp_width(0x7) == 0);
}

static void test_utf8(void)
{
    const char *s = "h\xc3\xa9llo \xf0\x9f\x98\x80";
    size_t n = strlen(s);
    CHECK(qr_utf8_count(s, n) == 7);
    CHECK(qr_utf8_valid(s, n));
    CHECK(!qr_utf8_valid("\xc3", 1));
    CHECK(!qr_utf8_valid("\xed\xa0\x80", 3)); /* a surrogate */
    CHECK(qr_utf8_offset(s, n, 2) == 3);
    uint32_t cp;
    CHECK(qr_utf8_decode(s + 1, n - 1, &cp) == 2 && cp == 0xe9);
    char out[4];
    CHECK(qr_utf8_encode(0x1f600, out) == 4 && memcmp(out, "\xf0\x9f\x98\x80", 4) == 0);
    CHECK(qr_utf8_decode("\xff", 1, &cp) == 1 && cp == 0xfffd);
}

static void test_hash(void)
{
    CHECK(qr_hash_bytes("abc", 3) == qr_hash_bytes("abc", 3));
    CHECK(qr_hash_bytes("abc", 3) != qr_hash_bytes("abd", 3));
    CHECK(qr_hash_bytes("", 0) != qr_hash_bytes("a", 1));
    size_t over;
    CHECK(!qr_size_mul(SIZE_MAX / 2, 3, &over));
    CHECK(qr_size_add(1, 2, &over) && over == 3);
}

static void test_edit_distance(void)
{
    CHECK(qr_edit_distance("limit", 5, "limit", 5, 0) == 0);
    CHECK(qr_edit_distance("", 0, "abc", 3, 0) == 3);
    CHECK(qr_edit_distance("sinse", 5, "since", 5, 0) == 1);
    CHECK(qr_edit_distance("kitten", 6, "sitting", 7, 0) == 3);
    /* a swap of neighbours: two edits, or one with QR_EDIT_TRANSPOSE */
    CHECK(qr_edit_distance("fitler", 6, "filter", 6, 0) == 2);
    CHECK(qr_edit_distance("fitler", 6, "filter", 6, QR_EDIT_TRANSPOSE) == 1);
    /* folding: case, and '-' against '_' */
    CHECK(qr_edit_distance("First-Parent", 12, "first_parent", 12, 0) == 3);
    CHECK(qr_edit_distance("First-Parent", 12, "first_parent", 12, QR_EDIT_FOLD) == 0);
    /* too long to be anyone's typo */
    char big[QR_EDIT_MAX + 2];
    memset(big, 'a', sizeof big);
    CHECK(qr_edit_distance(big, QR_EDIT_MAX + 1, "a", 1, 0) == SIZE_MAX);
    CHECK(qr_edit_distance(big, QR_EDIT_MAX, big, QR_EDIT_MAX, 0) == 0);
}

static void test_hash_text(void)
{
    /* stable within the process, seeded apart from the persistent hash */
    CHECK(qr_hash_text("author", 6) == qr_hash_text("author", 6));
    CHECK(qr_hash_text("author", 6) != qr_hash_text("authos", 6));
    CHECK(qr_hash_text("author", 6) != qr_hash_bytes("author", 6));
    CHECK(qr_hash_bytes("author", 6) == qr_hash_bytes("author", 6));
}

static void test_write_atomic(void)
{
    char dir[] = "/tmp/quarry-base-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], other[128];
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(other, sizeof other, "%s/victim", dir);
    CHECK(qr_write_file_atomic(path, "one", 3, 0600) == QR_OK);
    CHECK(qr_write_file_atomic(path, "second", 6, 0600) == QR_OK);
    char *t;
    size_t n;
    CHECK(qr_read_file(path, 0, &t, &n) == QR_OK && n == 6 && !memcmp(t, "second", 6));
    free(t);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    /* a symlink planted at the old, guessable temporary name is never written through */
    char guess[160];
    snprintf(guess, sizeof guess, "%s.tmp.%ld", path, (long)getpid());
    FILE *v = fopen(other, "w");
    fputs("keep", v);
    fclose(v);
    CHECK(symlink(other, guess) == 0);
    CHECK(qr_write_file_atomic(path, "third", 5, 0600) == QR_OK);
    CHECK(qr_read_file(other, 0, &t, &n) == QR_OK && n == 4 && !memcmp(t, "keep", 4));
    free(t);
    /* a directory that does not exist: an error, nothing left behind */
    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such", dir);
    CHECK(qr_write_file_atomic(bad, "x", 1, 0600) == QR_EIO);
    unlink(guess);
    unlink(other);
    unlink(path);
    CHECK(rmdir(dir) == 0); /* empty: no temporary file was left */
}

/* Settings files: only a regular file itself is read; a FIFO is refused without blocking,
 * a symbolic link is not followed, a directory is not a file, a bound is kept. */
static void test_read_regular(void)
{
    char dir[] = "/tmp/quarry-base-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], fifo[128], link[128], sub[128], missing[128];
    snprintf(path, sizeof path, "%s/conf.toml", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.toml", dir);
    snprintf(link, sizeof link, "%s/link.toml", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(missing, sizeof missing, "%s/missing.toml", dir);
    CHECK(qr_write_file_atomic(path, "a = 1\n", 6, 0600) == QR_OK);
    char *t = NULL;
    size_t n = 0;
    const char *why = "unset";
    CHECK(qr_read_regular_file(path, 100, &t, &n, &why) == QR_OK && n == 6 &&
          !memcmp(t, "a = 1\n", 6) && why == NULL);
    free(t);
    /* larger than the bound */
    CHECK(qr_read_regular_file(path, 5, &t, &n, &why) == QR_EINVAL);
    /* a FIFO nobody writes to: refused at once (a blocking open would hang here) */
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(qr_read_regular_file(fifo, 0, &t, &n, &why) == QR_EIO && errno == ENXIO);
    CHECK_STR(why, "is not a regular file");
    /* a symbolic link, even to a regular file, is not followed */
    CHECK(symlink(path, link) == 0);
    CHECK(qr_read_regular_file(link, 0, &t, &n, &why) == QR_EIO && errno == ELOOP);
    CHECK_STR(why, "is a symbolic link, which is not followed");
    /* a directory; a missing file */
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(qr_read_regular_file(sub, 0, &t, &n, &why) == QR_EIO && errno == ENXIO);
    CHECK(qr_read_regular_file(missing, 0, &t, &n, NULL) == QR_EIO && errno == ENOENT);
    unlink(fifo);
    unlink(link);
    unlink(path);
    rmdir(sub);
    CHECK(rmdir(dir) == 0);
}

/* A fixed buffer writes into the caller's memory and never grows past it. */
static void test_buf_fixed(void)
{
    char mem[8];
    qr_buf b;
    qr_buf_init_fixed(&b, mem, sizeof mem);
    qr_buf_puts(&b, "abc");
    qr_buf_printf(&b, "%d", 1234);
    CHECK(!b.failed && b.len == 7 && b.p == mem && !strcmp(mem, "abc1234"));
    qr_buf_putc(&b, 'x'); /* the NUL needs the eighth byte */
    CHECK(b.failed && b.p == mem && b.len == 7 && !strcmp(mem, "abc1234"));
    size_t n = 0;
    char *copy = qr_buf_detach(&b, &n);
    CHECK(copy && copy != mem && n == 7 && !strcmp(copy, "abc1234"));
    free(copy);
    qr_buf_init_fixed(&b, mem, sizeof mem);
    qr_buf_release(&b); /* forgets mem, frees nothing */
    CHECK(b.p == NULL && b.len == 0);
}

/* A stamp changes with any write, even one that sets the modification time back; the
 * state directory is made under XDG_STATE_HOME, mode 0700. */
static void test_stamp_and_state_dir(void)
{
    char dir[] = "/tmp/quarry-base-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[64], s0[QR_FILE_STAMP_LEN], s1[QR_FILE_STAMP_LEN], s2[QR_FILE_STAMP_LEN];
    snprintf(p, sizeof p, "%s/f", dir);
    qr_file_stamp(p, s0);
    CHECK(!strcmp(s0, "-"));
    CHECK(qr_write_file_atomic(p, "abcd", 4, 0644) == QR_OK);
    qr_file_stamp(p, s1);
    qr_file_stamp(p, s2);
    CHECK(strcmp(s1, "-") && !strcmp(s1, s2));
    struct stat before;
    CHECK(stat(p, &before) == 0);
    struct timespec tick = {0, 20000000}; /* past the file system clock's tick */
    nanosleep(&tick, NULL);
    FILE *f = fopen(p, "r+");
    CHECK(f && fputc('Z', f) == 'Z');
    if (f)
        fclose(f);
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    CHECK(utimensat(AT_FDCWD, p, times, 0) == 0);
    qr_file_stamp(p, s2);
    CHECK(strcmp(s1, s2)); /* same size and mtime: the change time moved */

    char state[64];
    snprintf(state, sizeof state, "%s/state", dir);
    char *old = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
    setenv("XDG_STATE_HOME", state, 1);
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_state_dir("a/b", &b) == QR_OK && b.p && strstr(b.p, "/state/quarry/a/b"));
    struct stat sb;
    CHECK(b.p && stat(b.p, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700);
    setenv("XDG_STATE_HOME", "relative", 1); /* ignored, as XDG says: HOME then */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("HOME");
    CHECK(qr_state_dir(NULL, &b) == QR_EIO);
    if (home)
        setenv("HOME", home, 1);
    free(home);
    if (old)
        setenv("XDG_STATE_HOME", old, 1);
    else
        unsetenv("XDG_STATE_HOME");
    free(old);
    qr_buf_release(&b);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_buf_fixed();
    test_stamp_and_state_dir();
    test_read_regular();
    test_edit_distance();
    test_write_atomic();
    test_hash_text();
    test_arena();
    test_buf();
    test_utf8();
    test_width();
    test_hash();
    CHECK_DONE();
}
