/*
 * fix.c: the fix verb and its undo log. An edit is a search/replace block
 *     <<<<<<< SEARCH / old text / ======= / new text / >>>>>>> REPLACE
 * on the file the line names, or a new text for a named symbol (its whole definition,
 * replaced by its byte range in the code graph). Edits happen only with write permission
 * (quarry dwim --write, quarry do --write); the path is resolved under the working tree
 * (no .., no symlink out), the file is re-read just before it is replaced and the edit is
 * refused when it changed since it was read, and the file is replaced atomically
 * (qr_write_file_atomic). Each edit first saves the old file into the undo log
 * (<root>/.git/quarry/dwim-undo/NNNNNN.{path,orig}); qr_dwim_undo restores the newest.
 */
#define _GNU_SOURCE
#include "dwim_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void undo_dir(const qr_dwim_ctx *c, qr_buf *p)
{
    qr_buf_printf(p, "%s/.git/quarry/dwim-undo", c->root);
}

static int mkdirs(const char *path)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n >= sizeof tmp)
        return QR_EIO;
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return QR_EIO;
            *p = '/';
        }
    return mkdir(tmp, 0777) == 0 || errno == EEXIST ? QR_OK : QR_EIO;
}

/* The number of the newest entry (0: none). */
static unsigned newest_entry(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned best = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned k;
        char ext[8];
        if (sscanf(e->d_name, "%6u.%7s", &k, ext) == 2 && !strcmp(ext, "path") && k > best)
            best = k;
    }
    closedir(d);
    return best;
}

static int log_edit(const qr_dwim_ctx *c, const char *rel, const char *old, size_t n, bool existed)
{
    qr_buf dir, p;
    qr_buf_init(&dir);
    qr_buf_init(&p);
    undo_dir(c, &dir);
    int rc = mkdirs(dir.p);
    if (rc == QR_OK) {
        unsigned k = newest_entry(dir.p) + 1;
        qr_buf_printf(&p, "%s/%06u.orig", dir.p, k);
        rc = existed ? qr_write_file_atomic(p.p, old, n, 0600) : QR_OK;
        if (rc == QR_OK) {
            qr_buf_reset(&p);
            qr_buf_printf(&p, "%s/%06u.path", dir.p, k);
            qr_buf line;
            qr_buf_init(&line);
            qr_buf_printf(&line, "%s\n%s\n", existed ? "existed" : "new", rel);
            rc = qr_write_file_atomic(p.p, line.p, line.len, 0600);
            qr_buf_release(&line);
        }
    }
    qr_buf_release(&dir);
    qr_buf_release(&p);
    return rc;
}

/* Replaces rel (abs) with data when it still holds `was` (what the edit was made on). */
static int replace_file(const qr_dwim_ctx *c, const char *abs, const char *rel, const char *was,
                        size_t wn, bool existed, const char *data, size_t n, qr_buf *err)
{
    char *now = NULL;
    size_t nn = 0;
    struct stat st;
    unsigned mode = 0644;
    if (existed) {
        /* test hook: a writer that changes the file between the read and the write */
        const char *race = getenv("QUARRY_DWIM_TEST_RACE");
        if (race && *race) {
            FILE *f = fopen(abs, "a");
            if (f) {
                fputs("/* changed underneath */\n", f);
                fclose(f);
            }
        }
        if (lstat(abs, &st) != 0 || !S_ISREG(st.st_mode)) {
            qr_buf_printf(err, "'%s' is not a regular file", rel);
            return QR_EINVAL;
        }
        mode = st.st_mode & 0777;
        if (qr_read_file(abs, 64u << 20, &now, &nn) != QR_OK || nn != wn ||
            memcmp(now, was, wn) != 0) {
            free(now);
            qr_buf_printf(err, "'%s' changed since it was read; read it again", rel);
            return QR_EINVAL;
        }
        free(now);
    } else if (access(abs, F_OK) == 0) {
        qr_buf_printf(err, "'%s' appeared since it was read; read it again", rel);
        return QR_EINVAL;
    }
    int rc = log_edit(c, rel, was, wn, existed);
    if (rc != QR_OK) {
        qr_buf_puts(err, "cannot write the undo log");
        return rc;
    }
    rc = qr_write_file_atomic(abs, data, n, mode);
    if (rc != QR_OK)
        qr_buf_printf(err, "cannot write '%s'", rel);
    return rc;
}

/* Finds the SEARCH/REPLACE markers in content. */
static bool split_block(const char *s, const char **old, size_t *on, const char **neu, size_t *nn)
{
    const char *a = strstr(s, "<<<<<<< SEARCH\n");
    if (!a)
        return false;
    a += strlen("<<<<<<< SEARCH\n");
    const char *m = strstr(a, "=======\n");
    if (!m)
        return false;
    const char *b = m + strlen("=======\n");
    const char *e = strstr(b, ">>>>>>> REPLACE");
    if (!e)
        return false;
    *old = a;
    *on = (size_t)(m - a);
    *neu = b;
    *nn = (size_t)(e - b);
    return true;
}

int qr__dwim_fix(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_arena *a, qr_buf *out, qr_buf *err)
{
    (void)a;
    if (!c->write) {
        qr_buf_puts(err, "fix changes files: run with --write");
        return QR_EINVAL;
    }
    if (!in->content) {
        qr_buf_puts(err, "fix needs an edit: a SEARCH/REPLACE block on the lines after "
                         "`fix FILE`, or the new text of a symbol after `fix SYMBOL`");
        return QR_EINVAL;
    }
    const char *old, *neu;
    size_t on, nn;
    bool block = split_block(in->content, &old, &on, &neu, &nn);
    if (!in->target) {
        qr_buf_puts(err, "fix needs a file (with a SEARCH/REPLACE block) or a symbol");
        return QR_EINVAL;
    }
    char *abs = NULL;
    const char *rel;
    int rc;
    char *text = NULL;
    size_t n = 0;
    size_t from = 0, to = 0; /* the bytes replaced */
    const char *repl;
    size_t rn;
    if (block) {
        if ((rc = qr__dwim_resolve(c, in->target, true, &abs, &rel, err)) != QR_OK)
            return rc;
        if (qr_read_file(abs, 64u << 20, &text, &n) != QR_OK) {
            qr_buf_printf(err, "cannot read '%s'", in->target);
            rc = QR_EINVAL;
            goto done;
        }
        const char *hit = on ? memmem(text, n, old, on) : NULL;
        if (!hit) {
            qr_buf_printf(err, "the SEARCH text is not in '%s'", rel);
            rc = QR_EINVAL;
            goto done;
        }
        if (memmem(hit + 1, n - (size_t)(hit - text) - 1, old, on)) {
            qr_buf_printf(err, "the SEARCH text occurs more than once in '%s'; give more lines",
                          rel);
            rc = QR_EINVAL;
            goto done;
        }
        from = (size_t)(hit - text);
        to = from + on;
        repl = neu;
        rn = nn;
    } else {
        /* a new text for a symbol: its definition's bytes */
        qr_code_graph *g;
        if ((rc = qr__dwim_graph(c, &g, err)) != QR_OK)
            return rc;
        const qr_code_node *best = NULL;
        for (size_t i = 0; i < qr_code_graph_nnodes(g); i++) {
            const qr_code_node *nd = qr_code_graph_node(g, i);
            if (strcmp(nd->it.name, in->target) != 0 || nd->it.kind == QR_CODE_DECLARATION ||
                nd->it.kind == QR_CODE_MEMBER)
                continue;
            if (best) {
                qr_buf_printf(err, "symbol '%s' is defined more than once; give FILE:NAME "
                                   "or a SEARCH/REPLACE block", in->target);
                return QR_EINVAL;
            }
            best = nd;
        }
        if (!best) {
            qr_buf_printf(err, "no symbol '%s' in the code index", in->target);
            return QR_EINVAL;
        }
        if ((rc = qr__dwim_resolve(c, best->file, true, &abs, &rel, err)) != QR_OK)
            return rc;
        if (qr_read_file(abs, 64u << 20, &text, &n) != QR_OK) {
            qr_buf_printf(err, "cannot read '%s'", best->file);
            rc = QR_EINVAL;
            goto done;
        }
        if (best->it.end_byte > n || best->it.start_byte > best->it.end_byte) {
            qr_buf_printf(err, "'%s' changed since it was indexed; read it again", best->file);
            rc = QR_EINVAL;
            goto done;
        }
        from = best->it.start_byte;
        to = best->it.end_byte;
        repl = in->content;
        rn = strlen(in->content);
        while (rn && repl[rn - 1] == '\n')
            rn--;
    }
    {
        qr_buf nb;
        qr_buf_init(&nb);
        qr_buf_append(&nb, text, from);
        qr_buf_append(&nb, repl, rn);
        qr_buf_append(&nb, text + to, n - to);
        rc = replace_file(c, abs, rel, text, n, true, nb.p ? nb.p : "", nb.len, err);
        if (rc == QR_OK) {
            /* the line numbers the edit touched */
            unsigned line = 1;
            for (size_t i = 0; i < from; i++)
                line += text[i] == '\n';
            qr_buf_printf(out, "edited %s at line %u: -%zu +%zu bytes (quarry dwim undo "
                               "restores it)\n", rel, line, to - from, rn);
            /* the graph of the working tree is stale now */
            qr_code_graph_free(c->host->code.graph);
            c->host->code.graph = NULL;
        }
        qr_buf_release(&nb);
    }
done:
    free(text);
    free(abs);
    return rc;
}

int qr_dwim_undo(qr_dwim_ctx *c, qr_buf *out, qr_buf *err)
{
    qr_buf dir, p;
    qr_buf_init(&dir);
    qr_buf_init(&p);
    undo_dir(c, &dir);
    unsigned k = newest_entry(dir.p);
    int rc = QR_OK;
    char *rec = NULL, *orig = NULL, *abs = NULL;
    size_t rn = 0, on = 0;
    if (!k) {
        qr_buf_puts(err, "nothing to undo");
        rc = QR_EINVAL;
        goto done;
    }
    qr_buf_printf(&p, "%s/%06u.path", dir.p, k);
    if (qr_read_file(p.p, 1u << 16, &rec, &rn) != QR_OK) {
        qr_buf_puts(err, "the undo log is unreadable");
        rc = QR_EIO;
        goto done;
    }
    char *nl = strchr(rec, '\n');
    if (!nl) {
        qr_buf_puts(err, "the undo log is damaged");
        rc = QR_EIO;
        goto done;
    }
    *nl = '\0';
    char *rel = nl + 1;
    rel[strcspn(rel, "\n")] = '\0';
    bool existed = !strcmp(rec, "existed");
    const char *r;
    if ((rc = qr__dwim_resolve(c, rel, false, &abs, &r, err)) != QR_OK)
        goto done;
    if (existed) {
        qr_buf o;
        qr_buf_init(&o);
        qr_buf_printf(&o, "%s/%06u.orig", dir.p, k);
        rc = qr_read_file(o.p, 64u << 20, &orig, &on);
        if (rc == QR_OK)
            rc = qr_write_file_atomic(abs, orig, on, 0644);
        if (rc == QR_OK)
            unlink(o.p);
        qr_buf_release(&o);
    } else {
        rc = unlink(abs) == 0 || errno == ENOENT ? QR_OK : QR_EIO;
    }
    if (rc != QR_OK) {
        qr_buf_printf(err, "cannot restore '%s'", rel);
        goto done;
    }
    unlink(p.p);
    qr_buf_printf(out, "restored %s\n", r);
done:
    free(rec);
    free(orig);
    free(abs);
    qr_buf_release(&dir);
    qr_buf_release(&p);
    return rc;
}
