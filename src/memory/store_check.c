/*
 * store_check.c: a damaged store is refused for writes, and the check that finds the
 * damage is paid only when the file changed in a way quarry did not vouch for.
 *
 * SQLite writes through a damaged page it does not touch, so `mem add` succeeded on a
 * store `mem query` called malformed, and every write on top of damage makes it harder to
 * salvage. Before the first write of a handle the file is checked with PRAGMA quick_check
 * (the b-tree structure of every page; not the indexes against their tables, which
 * integrity_check adds at about three times the cost). That reads the whole file: 0.33 to
 * 0.44 s on the 100,000-note bench store (77 MB), which a one-shot `quarry mem add` paid
 * every time.
 *
 * The marker. A handle that passed the check (or skipped it, below) and wrote, and saw no
 * change to the files but its own between its writes, records at close the stamp of the
 * database and its WAL (qr_file_stamp: device, inode, size, modification and change time
 * to the nanosecond). The next handle skips the check when the files still have exactly
 * that stamp. Any change made since, by another SQLite writer, by a program writing bytes
 * into the file, by truncation, by replacing the file, even with the modification time set
 * back, changes the change time (which no program can set), so the check runs again.
 * Own writes are told from others' by stamping the files right after each commit of this
 * handle and comparing before the next write and at close: a change in between (another
 * process's) means this handle records nothing. What stays unseen: a change landing in
 * the microseconds between a commit and its stamp, or within one tick of the file
 * system's clock with the size unchanged; the damage is then found by the read that meets
 * it, as before the check existed.
 *
 * Where the marker lives: in quarry's private state directory (qr_state_dir,
 * store-checks/<hash of the store's real path>, mode 0700), never beside the store. A
 * store may sit inside a repository, where a model-driven `dwim fix --write` edits files;
 * a marker beside it could be rewritten there after the store was damaged. The state
 * directory is outside every path a sandboxed program may name, and even a program that
 * could write it would have to know the damaged file's inode and change time to the
 * nanosecond, which nothing in the sandbox reports. Without a state directory (no HOME)
 * the check simply always runs. Rejected: the SQLite file change counter or data_version
 * (in WAL mode the header's counter moves only at checkpoints, data_version only sees
 * other SQLite connections, and neither sees bytes written over a page); a marker inside
 * the database (writing it changes the file it describes); a MAC over the marker (its key
 * would sit in the same state directory).
 *
 * QUARRY_DEBUG containing "store" prints one line to stderr saying whether the check ran
 * or was skipped, so tests observe it without timing anything.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "memory_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool debug_on(void)
{
    const char *d = getenv("QUARRY_DEBUG");
    return d && strstr(d, "store");
}

/* The store's real path (SQLite resolves symbolic links to find the WAL beside the real
 * file), computed once; NULL for ":memory:" or when it cannot be resolved. */
static const char *real_path(qr_mem *m)
{
    if (!m->real && strcmp(m->path, ":memory:"))
        m->real = realpath(m->path, NULL);
    return m->real;
}

/* The stamp of the database and its WAL now; false when there is none to take. */
static bool take_stamp(qr_mem *m, char out[QR__MEM_STAMP_LEN])
{
    const char *real = real_path(m);
    if (!real)
        return false;
    char db[QR_FILE_STAMP_LEN], wal[QR_FILE_STAMP_LEN];
    qr_buf w;
    qr_buf_init(&w);
    qr_buf_printf(&w, "%s-wal", real);
    bool ok = !w.failed;
    if (ok) {
        qr_file_stamp(real, db);
        qr_file_stamp(w.p, wal);
        ok = snprintf(out, QR__MEM_STAMP_LEN, "%s %s", db, wal) < QR__MEM_STAMP_LEN;
    }
    qr_buf_release(&w);
    return ok;
}

/* The marker's path and the exact text it holds when stamp is the files' state. */
static bool marker(qr_mem *m, const char *stamp, qr_buf *path, qr_buf *text)
{
    const char *real = real_path(m);
    if (!real || qr_state_dir("store-checks", path) != QR_OK)
        return false;
    qr_buf_printf(path, "/%016llx", (unsigned long long)qr_hash_bytes(real, strlen(real)));
    qr_buf_printf(text, "quarry-store-check 1\n%s\n%s\n", real, stamp);
    return !path->failed && !text->failed;
}

static bool marker_matches(qr_mem *m, const char *stamp)
{
    qr_buf path, want;
    qr_buf_init(&path);
    qr_buf_init(&want);
    bool same = false;
    if (marker(m, stamp, &path, &want)) {
        char *have = NULL;
        size_t n = 0;
        if (qr_read_regular_file(path.p, 16384, &have, &n, NULL) == QR_OK)
            same = n == want.len && !memcmp(have, want.p, n);
        free(have);
    }
    qr_buf_release(&path);
    qr_buf_release(&want);
    return same;
}

/* Best effort: without the marker the next handle checks. */
static void marker_save(qr_mem *m, const char *stamp)
{
    qr_buf path, text;
    qr_buf_init(&path);
    qr_buf_init(&text);
    if (marker(m, stamp, &path, &text))
        (void)qr_write_file_atomic(path.p, text.p, text.len, 0600);
    qr_buf_release(&path);
    qr_buf_release(&text);
}

static int run_quick_check(qr_mem *m, qr_buf *err)
{
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(m->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src != SQLITE_ROW) {
        sqlite3_finalize(st);
        return qr__mem_fail(m, src, "check", err);
    }
    const char *r = (const char *)sqlite3_column_text(st, 0);
    if (r && !strcmp(r, "ok")) {
        sqlite3_finalize(st);
        return QR_OK;
    }
    if (err) {
        char first[200];
        /* SQLite's report opens with "*** in database main ***": quote the line after */
        if (r && !strncmp(r, "*** ", 4) && strchr(r, '\n'))
            r = strchr(r, '\n') + 1;
        size_t n = r ? strcspn(r, "\n") : 0;
        if (n >= sizeof first)
            n = sizeof first - 1;
        memcpy(first, r ? r : "", n);
        first[n] = 0;
        qr_buf_printf(err,
                      "memory store '%s' is damaged (%s), so it is not written and was left "
                      "as it was: save what can still be read with 'quarry mem export "
                      "--salvage' and import that into a new store (docs/memory.md), or "
                      "restore a backup",
                      m->path, first);
    }
    sqlite3_finalize(st);
    return QR_EIO;
}

int qr__mem_check_before_write(qr_mem *m, qr_buf *err)
{
    char now[QR__MEM_STAMP_LEN];
    bool have = take_stamp(m, now);
    if (m->check != QR_MEM_CHECK_NONE) {
        /* checked before: a change since this handle's last write is someone else's */
        if (!have || strcmp(now, m->stamp))
            m->vouch = false;
        return QR_OK;
    }
    if (have && marker_matches(m, now)) {
        m->check = QR_MEM_CHECK_SKIPPED;
        if (debug_on())
            fprintf(stderr,
                    "quarry: debug: memory store '%s': unchanged since quarry's last checked "
                    "write; integrity check skipped\n",
                    m->path);
    } else {
        int rc = run_quick_check(m, err);
        if (debug_on())
            fprintf(stderr, "quarry: debug: memory store '%s': integrity check ran: %s\n", m->path,
                    rc == QR_OK ? "ok" : "refused");
        if (rc != QR_OK)
            return rc;
        m->check = QR_MEM_CHECK_RAN;
    }
    m->vouch = have;
    if (have)
        memcpy(m->stamp, now, sizeof now);
    return QR_OK;
}

void qr__mem_after_commit(qr_mem *m)
{
    if (m->check == QR_MEM_CHECK_NONE || !m->vouch)
        return;
    m->wrote = true;
    if (!take_stamp(m, m->stamp))
        m->vouch = false;
}

void qr__mem_close_files(qr_mem *m)
{
    char now[QR__MEM_STAMP_LEN];
    /* nothing but this handle's own writes since its check: vouch for what close leaves
     * (the last connection checkpoints the WAL into the file and removes it) */
    bool save = m->wrote && m->vouch && take_stamp(m, now) && !strcmp(now, m->stamp);
    sqlite3_close(m->db);
    m->db = NULL;
    if (save && take_stamp(m, now))
        marker_save(m, now);
}

qr_mem_check qr_mem_check_state(const qr_mem *m)
{
    return m->check;
}
