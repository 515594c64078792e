/*
 * cmd_mem_salvage.c: `quarry mem export --salvage`: the way out for a damaged store. A
 * damaged store is refused for writes and a plain export stops at the first unreadable
 * page; this reads every row that can still be read (qr_mem_salvage, which opens the file
 * read-only) into a fresh store in a private temporary file, exports that as JSON lines
 * (so the output is exactly what `quarry mem import` takes), and says what was lost.
 *
 * Rejected: rewriting the damaged file in place (it is the user's data and the only copy
 * of what could not be read; a later tool may get more out of it); writing the salvaged
 * store beside it under a made-up name (the user picks where the rescue goes, with import).
 */
#define _XOPEN_SOURCE 700 /* mkstemp */
#include "cmd_mem.h"

#include "quarry/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void remove_store_files(const char *p)
{
    static const char *const sfx[] = {"", "-wal", "-shm", "-journal", ".snapshot"};
    char buf[4200];
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        snprintf(buf, sizeof buf, "%s%s", p, sfx[i]);
        unlink(buf);
    }
}

/* "lost: 3 note rows unreadable, ..." (empty when nothing was lost). */
static void lost_text(qr_buf *b, const qr_mem_salvage_report *r)
{
    struct {
        int64_t n;
        const char *what;
    } parts[] = {
        {r->node_rows_lost, "note rows unreadable"},
        {r->nodes_dropped, "notes with damaged values dropped"},
        {r->nodes_without_tags, "notes kept without their unreadable tags"},
        {r->tags_dropped, "damaged tags dropped"},
        {r->nodes_without_edges, "notes whose links could not all be read"},
        {r->edges_dropped, "links dropped (damaged, or to a lost note)"},
        {r->visit_rows_lost, "visit rows unreadable"},
        {r->visits_dropped, "visits dropped (damaged, or of a lost note)"},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].n)
            continue;
        qr_buf_puts(b, b->len ? ", " : "lost: ");
        qr_buf_printf(b, "%lld %s", (long long)parts[i].n, parts[i].what);
    }
}

int cli_mem_export_salvage(cli_mem_opts *o, const char *out_path)
{
    const char *store = o->store;
    if (!store) {
        store = getenv("QUARRY_MEMORY");
        if (store && !*store)
            store = NULL;
    }
    if (!store) {
        cli_error(o->asked, "usage", 0, 0, "no memory store: give --store FILE or set QUARRY_MEMORY");
        return EXIT_USAGE;
    }
    qr_buf err, msg;
    qr_buf_init(&err);
    qr_buf_init(&msg);
    int st = EXIT_FAILED;
    struct stat sb;
    if (qr_store_backend_of(store) == QR_STORE_POSTGRES) {
        /* salvage reads a damaged SQLite file; a URL is never printed */
        cli_error(o->asked, "usage", 0, 0,
                  "--salvage reads a damaged SQLite store file; the memory store named is "
                  "on PostgreSQL: export it without --salvage");
        st = EXIT_USAGE;
        goto out;
    }
    if (stat(store, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        qr_buf_printf(&err, "cannot salvage '%s': %s", store,
                      errno == ENOENT ? "no such file" : "not a regular file");
        cli_error(o->asked, "error", 0, 0, err.p);
        goto out;
    }
    /* the fresh store lives in a private temporary file until it is exported */
    const char *tmpdir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/quarry-salvage-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        qr_buf_printf(&err, "cannot create a temporary store in '%s': %s",
                      tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        cli_error(o->asked, "error", 0, 0, err.p);
        goto out;
    }
    close(fd);
    qr_mem *dst = NULL;
    qr_mem_salvage_report rep;
    int rc = qr_mem_open(&dst, tmp, QR_MEM_CREATE | QR_MEM_NO_SNAPSHOT_FILE, &err);
    if (rc == QR_OK)
        rc = qr_mem_salvage(store, dst, &rep, &err);
    if (rc == QR_OK && rep.schema_unreadable && rep.nodes == 0) {
        qr_buf_printf(&err,
                      "cannot salvage '%s': its schema cannot be read (the first pages are "
                      "damaged), so no row can be found; sqlite3's '.recover' command may "
                      "still find rows",
                      store);
        rc = QR_EIO;
    }
    FILE *f = stdout;
    qr_buf part;
    qr_buf_init(&part);
    bool to_stdout = !out_path || !strcmp(out_path, "-");
    if (rc == QR_OK && !to_stdout) {
        qr_buf_printf(&part, "%s.tmp-%ld", out_path, (long)getpid());
        f = part.p ? fopen(part.p, "w") : NULL;
        if (!f) {
            qr_buf_printf(&err, "cannot write '%s': %s", part.p ? part.p : out_path,
                          strerror(errno));
            rc = QR_EIO;
        }
    }
    qr_mem_counts c = {0, 0, 0};
    if (rc == QR_OK)
        rc = qr_mem_export(dst, f, &c, &err);
    if (f && !to_stdout) {
        if (fclose(f) != 0 && rc == QR_OK) {
            qr_buf_printf(&err, "cannot write '%s': %s", part.p, strerror(errno));
            rc = QR_EIO;
        }
        if (rc == QR_OK && rename(part.p, out_path) != 0) {
            qr_buf_printf(&err, "cannot write '%s': %s", out_path, strerror(errno));
            rc = QR_EIO;
        }
        if (rc != QR_OK)
            remove(part.p);
    }
    qr_buf_release(&part);
    qr_mem_close(dst);
    remove_store_files(tmp);
    if (rc != QR_OK) {
        st = cli_mem_fail(o, rc, &err);
        goto out;
    }
    qr_buf lost;
    qr_buf_init(&lost);
    lost_text(&lost, &rep);
    qr_buf_printf(&msg, "salvaged %lld note%s, %lld link%s, %lld visit%s from '%s'%s%s",
                  (long long)c.nodes, c.nodes == 1 ? "" : "s", (long long)c.edges,
                  c.edges == 1 ? "" : "s", (long long)c.visits, c.visits == 1 ? "" : "s", store,
                  lost.len ? "; " : "; nothing unreadable was found", lost.len ? lost.p : "");
    cli_mem_field fl[] = {
        {"nodes", NULL, (double)c.nodes, true},
        {"edges", NULL, (double)c.edges, true},
        {"visits", NULL, (double)c.visits, true},
        {"node_rows_lost", NULL, (double)rep.node_rows_lost, true},
        {"nodes_dropped", NULL, (double)rep.nodes_dropped, true},
        {"nodes_without_tags", NULL, (double)rep.nodes_without_tags, true},
        {"nodes_without_edges", NULL, (double)rep.nodes_without_edges, true},
        {"edges_dropped", NULL, (double)rep.edges_dropped, true},
        {"visit_rows_lost", NULL, (double)rep.visit_rows_lost, true},
        {"visits_dropped", NULL, (double)rep.visits_dropped, true},
    };
    /* the JSON lines go to stdout when no FILE is named: the report goes to stderr then */
    cli_mem_print_result(to_stdout ? stderr : stdout, o->fmt, msg.p, fl,
                         sizeof fl / sizeof fl[0]);
    qr_buf_release(&lost);
    st = EXIT_OK;
out:
    qr_buf_release(&err);
    qr_buf_release(&msg);
    return st;
}
