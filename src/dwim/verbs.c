/*
 * verbs.c: what the DWIM verbs do once a line is parsed: skeleton and expand read the
 * code graph (quarry/code.h) of the working tree; read prints bounded numbered lines;
 * grep runs PCRE2 over the files git tracks or would track (.gitignore respected);
 * validate runs the repository's check and parses the compiler's diagnostics; the code
 * graph routes and every registry tool run through the registry. Output is terse text
 * with line numbers, meant for a model's context as much as for a person.
 *
 * Paths a line names are resolved under the working tree's root and refused when they
 * leave it (.. or a symlink out): see dwim_resolve.
 */
#define _GNU_SOURCE
#include "dwim_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the working tree ---- */

char *qr_dwim_find_root(const char *dir, qr_buf *err)
{
    const char *argv[] = {"git", "-C", dir ? dir : ".", "rev-parse", "--show-toplevel", NULL};
    qr_buf o;
    qr_buf_init(&o);
    int status = 0;
    int rc = qr__dwim_spawn(argv, NULL, NULL, &o, NULL, &status);
    if (rc != QR_OK || status != 0 || o.len == 0) {
        qr_buf_printf(err, "'%s' is not in a git working tree", dir ? dir : ".");
        qr_buf_release(&o);
        return NULL;
    }
    while (o.len && (o.p[o.len - 1] == '\n' || o.p[o.len - 1] == '\r'))
        o.p[--o.len] = '\0';
    char *r = qr_buf_detach(&o, NULL);
    return r;
}

int qr__dwim_resolve(const qr_dwim_ctx *c, const char *path, bool must_exist, char **abs_out,
                     const char **rel_out, qr_buf *err)
{
    if (!path || !*path) {
        qr_buf_puts(err, "no path given");
        return QR_EINVAL;
    }
    size_t rl = strlen(c->root);
    qr_buf b;
    qr_buf_init(&b);
    if (path[0] == '/')
        qr_buf_puts(&b, path);
    else
        qr_buf_printf(&b, "%s/%s", c->root, path);
    char *real = realpath(b.p, NULL);
    if (!real && !must_exist && errno == ENOENT) {
        /* a new file: its directory must exist inside the tree */
        char *slash = strrchr(b.p, '/');
        *slash = '\0';
        char *dir = realpath(b.p, NULL);
        if (dir) {
            size_t dl = strlen(dir);
            real = malloc(dl + strlen(slash + 1) + 2);
            if (real)
                sprintf(real, "%s/%s", dir, slash + 1);
            free(dir);
        }
        *slash = '/';
    }
    if (!real) {
        qr_buf_printf(err, "no file '%s' in the working tree", path);
        qr_buf_release(&b);
        return QR_EINVAL;
    }
    qr_buf_release(&b);
    if (strncmp(real, c->root, rl) != 0 || (real[rl] != '/' && real[rl] != '\0')) {
        qr_buf_printf(err, "path '%s' is outside the working tree", path);
        free(real);
        return QR_EINVAL;
    }
    if (rel_out)
        *rel_out = real[rl] ? real + rl + 1 : real + rl;
    *abs_out = real;
    return QR_OK;
}

/* ---- lookups for the parser ---- */

static bool path_exists(void *ud, const char *path)
{
    qr_dwim_ctx *c = ud;
    char *abs;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr__dwim_resolve(c, path, true, &abs, NULL, &err);
    qr_buf_release(&err);
    if (rc != QR_OK)
        return false;
    free(abs);
    return true;
}

int qr__dwim_graph(qr_dwim_ctx *c, qr_code_graph **g, qr_buf *err)
{
    qr_code_ctx *h = &c->host->code;
    if (h->graph && !h->graph_ref) {
        *g = h->graph;
        return QR_OK;
    }
    if (!h->code) {
        int rc = qr_code_open(c->root, &h->code, err);
        if (rc != QR_OK)
            return rc;
    }
    qr_code_graph_free(h->graph);
    free(h->graph_ref);
    h->graph = NULL;
    h->graph_ref = NULL;
    qr_code_opts o = {.ref = NULL, .progress = h->progress, .progress_ud = h->progress_ud};
    int rc = qr_code_load(h->code, &o, &h->graph, err);
    if (rc != QR_OK)
        return rc;
    *g = h->graph;
    return QR_OK;
}

static bool symbol_known(void *ud, const char *name)
{
    qr_dwim_ctx *c = ud;
    qr_code_graph *g;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr__dwim_graph(c, &g, &err);
    qr_buf_release(&err);
    if (rc != QR_OK)
        return false;
    size_t n = qr_code_graph_nnodes(g);
    for (size_t i = 0; i < n; i++) {
        const qr_code_node *nd = qr_code_graph_node(g, i);
        if (nd->it.kind != QR_CODE_MEMBER && nd->it.kind != QR_CODE_ENUMERATOR &&
            nd->it.name && !strcmp(nd->it.name, name))
            return true;
    }
    return false;
}

void qr_dwim_lookup_init(qr_dwim_lookup *lk, qr_dwim_ctx *c)
{
    lk->tools = c->tools;
    lk->path_exists = path_exists;
    lk->symbol_known = c->host ? symbol_known : NULL;
    lk->ud = c;
}

/* ---- results as data (--format edn|json|table) ---- */

/* Where a verb run here puts its result as data besides its text: rows pushed as they are
 * printed, then the result map. NULL when only text is wanted. */
typedef struct vout {
    qr_arena *a;
    qr_vecb rows;
    qr_val res;
} vout;

static qr_val kv(qr_arena *a, qr_val m, const char *k, qr_val v)
{
    return qr_map_assoc(a, m, qr_kw_cstr(a, k), v);
}

static qr_val vstr(qr_arena *a, const char *s, size_t n)
{
    return qr_str_new(a, s, n);
}

static qr_val vcstr(qr_arena *a, const char *s)
{
    return s ? qr_str_new(a, s, strlen(s)) : qr_nil();
}

/* ---- skeleton ---- */

static void one_line(qr_buf *out, const char *s)
{
    /* a signature on one line, spaces squeezed */
    bool sp = false;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            sp = true;
            continue;
        }
        if (sp)
            qr_buf_putc(out, ' ');
        sp = false;
        qr_buf_putc(out, *s);
    }
}

static void skeleton_node(qr_buf *out, const qr_code_node *n, bool indent)
{
    const qr_code_item *it = &n->it;
    qr_buf_printf(out, "%s%u", indent ? "    " : "", it->line);
    if (it->end_line > it->line)
        qr_buf_printf(out, "-%u", it->end_line);
    qr_buf_putc(out, ' ');
    switch (it->kind) {
    case QR_CODE_FUNCTION:
    case QR_CODE_DECLARATION:
        if (it->signature)
            one_line(out, it->signature);
        else
            qr_buf_printf(out, "%s()", it->name);
        if (it->kind == QR_CODE_DECLARATION)
            qr_buf_putc(out, ';');
        break;
    case QR_CODE_MEMBER:
        if (it->type)
            qr_buf_printf(out, "%s ", it->type);
        qr_buf_puts(out, it->name);
        break;
    case QR_CODE_MACRO:
        qr_buf_printf(out, "#define %s%s", it->name, it->signature ? it->signature : "");
        break;
    case QR_CODE_TYPEDEF:
        qr_buf_printf(out, "typedef %s%s%s", it->type ? it->type : "", it->type ? " " : "",
                      it->name);
        break;
    default:
        qr_buf_printf(out, "%s %s", qr_code_kind_name(it->kind), it->name);
    }
    if (n->inactive)
        qr_buf_puts(out, "  [inactive]");
    qr_buf_putc(out, '\n');
}

static int run_skeleton(qr_dwim_ctx *c, const char *target, qr_buf *out, qr_buf *err,
                        vout *vo)
{
    char *abs;
    const char *rel;
    int rc = qr__dwim_resolve(c, target, true, &abs, &rel, err);
    if (rc != QR_OK)
        return rc;
    struct stat st;
    bool dir = stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
    qr_code_graph *g;
    if ((rc = qr__dwim_graph(c, &g, err)) != QR_OK) {
        free(abs);
        return rc;
    }
    size_t nn = qr_code_graph_nnodes(g), rows = 0, max = c->max_rows ? c->max_rows : 400;
    size_t rl = strlen(rel);
    if (!dir) {
        qr_buf_printf(out, "%s\n", rel);
        bool any_file = false;
        for (size_t i = 0; i < qr_code_graph_nfiles(g); i++)
            if (!strcmp(qr_code_graph_file(g, i, NULL), rel))
                any_file = true;
        if (!any_file) {
            qr_buf_printf(err, "file '%s' is not in the code index (not a language it parses)",
                          rel);
            free(abs);
            return QR_EINVAL;
        }
        for (size_t i = 0; i < nn && rows < max; i++) {
            const qr_code_node *n = qr_code_graph_node(g, i);
            if (strcmp(n->file, rel) != 0 || n->it.kind == QR_CODE_ENUMERATOR ||
                n->it.kind == QR_CODE_FILE)
                continue;
            size_t at = out->len;
            skeleton_node(out, n, n->it.kind == QR_CODE_MEMBER);
            rows++;
            if (vo) {
                /* the row's declaration as printed, after its line numbers */
                const char *d = out->p + at, *e = out->p + out->len - 1; /* at the '\n' */
                while (d < e && (*d == ' ' || isdigit((unsigned char)*d) || *d == '-'))
                    d++;
                if (n->inactive && (size_t)(e - d) >= 12)
                    e -= 12; /* "  [inactive]" */
                qr_val r = qr_map_empty();
                r = kv(vo->a, r, "line", qr_int(n->it.line));
                r = kv(vo->a, r, "end_line", qr_int(n->it.end_line));
                r = kv(vo->a, r, "kind", vcstr(vo->a, qr_code_kind_name(n->it.kind)));
                r = kv(vo->a, r, "name", vcstr(vo->a, n->it.name));
                r = kv(vo->a, r, "declaration", vstr(vo->a, d, (size_t)(e - d)));
                r = kv(vo->a, r, "inactive", qr_bool(n->inactive));
                qr_vecb_push(&vo->rows, r);
            }
        }
    } else {
        for (size_t f = 0; f < qr_code_graph_nfiles(g) && rows < max; f++) {
            const char *path = qr_code_graph_file(g, f, NULL);
            if (rl && (strncmp(path, rel, rl) != 0 || path[rl] != '/'))
                continue;
            qr_buf_printf(out, "%s:", path);
            size_t shown = 0, more = 0;
            qr_vecb names;
            if (vo)
                qr_vecb_init(&names, vo->a, 8);
            for (size_t i = 0; i < nn; i++) {
                const qr_code_node *n = qr_code_graph_node(g, i);
                if (strcmp(n->file, path) != 0)
                    continue;
                qr_code_kind k = n->it.kind;
                bool top = (k == QR_CODE_FUNCTION && !(n->it.flags & QR_CODE_STATIC)) ||
                           k == QR_CODE_STRUCT || k == QR_CODE_UNION || k == QR_CODE_ENUM ||
                           (k == QR_CODE_TYPEDEF) ||
                           (k == QR_CODE_DECLARATION && strstr(path, ".h"));
                if (!top)
                    continue;
                if (shown < 8)
                    qr_buf_printf(out, " %s", n->it.name);
                else
                    more++;
                if (vo)
                    qr_vecb_push(&names, vcstr(vo->a, n->it.name));
                shown++;
            }
            if (vo) {
                qr_val r = kv(vo->a, qr_map_empty(), "file", vcstr(vo->a, path));
                r = kv(vo->a, r, "symbols", qr_vecb_finish(&names, QR_T_VEC));
                qr_vecb_push(&vo->rows, r);
            }
            if (more)
                qr_buf_printf(out, " (+%zu)", more);
            qr_buf_putc(out, '\n');
            rows++;
        }
    }
    if (rows >= max)
        qr_buf_printf(out, "... cut at %zu rows\n", max);
    if (vo) {
        qr_val r = kv(vo->a, qr_map_empty(), "path", vcstr(vo->a, rel));
        r = kv(vo->a, r, "results", qr_vecb_finish(&vo->rows, QR_T_VEC));
        vo->res = kv(vo->a, r, "cut", qr_bool(rows >= max));
    }
    if (!dir)
        qr__dwim_seen_add(c, rel, "skeleton");
    free(abs);
    return QR_OK;
}

/* ---- expand ---- */

static int run_expand(qr_dwim_ctx *c, const char *target, qr_arena *a, qr_buf *out, qr_buf *err,
                      vout *vo)
{
    qr_code_graph *g;
    int rc = qr__dwim_graph(c, &g, err);
    if (rc != QR_OK)
        return rc;
    /* file.c:name, struct name, Type.member, name */
    const char *file = NULL, *name = target, *parent = NULL;
    int kind = -1;
    char *t = qr_arena_strndup(a, target, strlen(target));
    if (!t)
        return QR_ENOMEM;
    char *colon = strrchr(t, ':');
    if (colon) {
        *colon = '\0';
        file = t;
        name = colon + 1;
    } else if (!strncmp(t, "struct ", 7) || !strncmp(t, "union ", 6) || !strncmp(t, "enum ", 5)) {
        kind = t[0] == 's' ? QR_CODE_STRUCT : t[0] == 'u' ? QR_CODE_UNION : QR_CODE_ENUM;
        name = strchr(t, ' ') + 1;
    } else if (strchr(t, '.')) {
        char *dot = strchr(t, '.');
        *dot = '\0';
        parent = t;
        name = dot + 1;
        kind = QR_CODE_MEMBER;
    }
    static const int order[] = {QR_CODE_FUNCTION, QR_CODE_STRUCT,   QR_CODE_UNION,
                                QR_CODE_ENUM,     QR_CODE_TYPEDEF,  QR_CODE_MACRO,
                                QR_CODE_VARIABLE, QR_CODE_DECLARATION, QR_CODE_MEMBER,
                                QR_CODE_ENUMERATOR};
    size_t nn = qr_code_graph_nnodes(g);
    const qr_code_node *best = NULL;
    for (size_t o = 0; o < sizeof order / sizeof order[0] && !best; o++) {
        if (kind >= 0 && order[o] != kind)
            continue;
        for (size_t i = 0; i < nn; i++) {
            const qr_code_node *n = qr_code_graph_node(g, i);
            if ((int)n->it.kind != order[o] || strcmp(n->it.name, name) != 0)
                continue;
            if (parent && (!n->it.parent || strcmp(n->it.parent, parent) != 0))
                continue;
            if (file) {
                size_t fl = strlen(file), pl = strlen(n->file);
                if (!(pl >= fl && !strcmp(n->file + pl - fl, file) &&
                      (pl == fl || n->file[pl - fl - 1] == '/')))
                    continue;
            }
            if (!best || (best->inactive && !n->inactive))
                best = n;
        }
    }
    if (!best) {
        qr_buf_printf(err, "no symbol '%s' in the code index", target);
        return QR_EINVAL;
    }
    const char *text = qr_code_graph_text(g, best, a);
    if (!text) {
        qr_buf_printf(err, "the text of '%s' is gone from '%s'", target, best->file);
        return QR_EINVAL;
    }
    qr_buf_printf(out, "%s:%u-%u %s %s\n", best->file, best->it.line, best->it.end_line,
                  qr_code_kind_name(best->it.kind), best->it.name);
    uint32_t line = best->it.line;
    const char *p = text;
    size_t max = c->max_lines ? c->max_lines : 200, shown = 0;
    while (*p && shown < max) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        qr_buf_printf(out, "%6u  %.*s\n", line++, (int)l, p);
        shown++;
        p = e ? e + 1 : p + l;
    }
    if (*p)
        qr_buf_printf(out, "... cut at %zu lines (read %s:%u-%u for the rest)\n", max,
                      best->file, line, best->it.end_line);
    if (vo) {
        qr_val r = kv(vo->a, qr_map_empty(), "file", vcstr(vo->a, best->file));
        r = kv(vo->a, r, "line", qr_int(best->it.line));
        r = kv(vo->a, r, "end_line", qr_int(best->it.end_line));
        r = kv(vo->a, r, "kind", vcstr(vo->a, qr_code_kind_name(best->it.kind)));
        r = kv(vo->a, r, "name", vcstr(vo->a, best->it.name));
        r = kv(vo->a, r, "cut", qr_bool(*p != '\0'));
        vo->res = kv(vo->a, r, "text", vstr(vo->a, text, (size_t)(p - text)));
    }
    char what[200];
    snprintf(what, sizeof what, "expand %.120s (lines %u-%u)", best->it.name, best->it.line,
             best->it.end_line);
    qr__dwim_seen_add(c, best->file, what);
    return QR_OK;
}

/* ---- read ---- */

static int run_read(qr_dwim_ctx *c, const char *path, int64_t lo, int64_t hi, qr_buf *out,
                    qr_buf *err, vout *vo)
{
    char *abs;
    const char *rel;
    int rc = qr__dwim_resolve(c, path, true, &abs, &rel, err);
    if (rc != QR_OK)
        return rc;
    char *text;
    size_t n;
    rc = qr_read_file(abs, 64u << 20, &text, &n);
    if (rc != QR_OK) {
        qr_buf_printf(err, "cannot read '%s'", path);
        free(abs);
        return rc == QR_ENOMEM ? rc : QR_EINVAL;
    }
    size_t max = c->max_lines ? c->max_lines : 200;
    /* the file's lines, so the header names the lines shown (a 22-line file: 1-22) */
    size_t total = 0;
    for (const char *q = text, *qe = text + n; q < qe; total++) {
        const char *e = memchr(q, '\n', (size_t)(qe - q));
        q = e ? e + 1 : qe;
    }
    if (lo < 1)
        lo = 1;
    if (hi < lo)
        hi = lo + (int64_t)max - 1;
    if (hi - lo + 1 > (int64_t)max)
        hi = lo + (int64_t)max - 1;
    if (hi > (int64_t)total)
        hi = (int64_t)total;
    if (total == 0) {
        qr_buf_printf(out, "%s: an empty file\n", rel);
        qr__dwim_seen_add(c, rel, "empty");
        free(text);
        free(abs);
        return QR_OK;
    }
    if (lo > (int64_t)total) {
        qr_buf_printf(err, "'%s' has %zu line%s; line %lld is past its end", rel, total,
                      total == 1 ? "" : "s", (long long)lo);
        free(text);
        free(abs);
        return QR_EINVAL;
    }
    qr_buf_printf(out, "%s:%lld-%lld\n", rel, (long long)lo, (long long)hi);
    int64_t line = 1;
    const char *p = text, *end = text + n, *from = NULL, *to = NULL;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
        if (line == lo)
            from = p;
        if (line == hi)
            to = p + l;
        if (line >= lo && line <= hi)
            qr_buf_printf(out, "%6lld  %.*s\n", (long long)line, (int)l, p);
        line++;
        p = e ? e + 1 : end;
    }
    if ((int64_t)total > hi)
        qr_buf_printf(out, "... %zu lines in all\n", total);
    if (vo) {
        qr_val r = kv(vo->a, qr_map_empty(), "path", vcstr(vo->a, rel));
        r = kv(vo->a, r, "start", qr_int(lo));
        r = kv(vo->a, r, "end", qr_int(hi));
        r = kv(vo->a, r, "lines", qr_int((int64_t)total));
        vo->res = kv(vo->a, r, "text", from && to ? vstr(vo->a, from, (size_t)(to - from))
                                                 : vcstr(vo->a, ""));
    }
    char what[64];
    snprintf(what, sizeof what, "lines %lld-%lld", (long long)lo,
             (long long)(hi < (int64_t)total ? hi : (int64_t)total));
    qr__dwim_seen_add(c, rel, what);
    free(text);
    free(abs);
    return QR_OK;
}

/* ---- grep ---- */

static int run_grep(qr_dwim_ctx *c, const char *pattern, const char *where, qr_buf *out,
                    qr_buf *err, vout *vo)
{
    bool as_text = false;
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF |
                                   PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
    if (!re) {
        /* grep 'die(': what was meant is the text itself; it is searched as written and
           the answer says so */
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(ec, msg, sizeof msg);
        re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                           PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_LITERAL, &ec, &eo, NULL);
        if (!re) {
            qr_buf_printf(err, "bad pattern '%s': %s at offset %zu", pattern, (char *)msg,
                          (size_t)eo);
            return QR_EINVAL;
        }
        qr_buf_printf(out, "(not a regular expression: %s; searched as plain text)\n",
                      (char *)msg);
        as_text = true;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    /* the sandbox's limits (quarry/value.h): a pattern that backtracks without end fails
     * on the first line where it would */
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (!md || !mc) {
        pcre2_match_data_free(md);
        pcre2_match_context_free(mc);
        pcre2_code_free(re);
        return QR_ENOMEM;
    }
    pcre2_set_match_limit(mc, QR_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(mc, QR_REGEX_DEPTH_LIMIT);
    pcre2_set_heap_limit(mc, QR_REGEX_HEAP_KIB);
    /* grep 'PAT' src/: only the files under the path said (a pathspec, as git reads it) */
    const char *argv[] = {"git", "-C", c->root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard", where ? "--" : NULL, where, NULL};
    qr_buf files;
    qr_buf_init(&files);
    int status = 0;
    int rc = qr__dwim_spawn(argv, NULL, c->req ? &c->req->stop : NULL, &files, NULL, &status);
    if (rc != QR_OK || status != 0) {
        qr_buf_puts(err, "git ls-files failed");
        rc = QR_EIO;
        goto done;
    }
    size_t max = c->max_matches ? c->max_matches : 50, found = 0, nfiles = 0;
    bool cut = false;
    for (size_t off = 0; off < files.len && !cut;) {
        if (qr_req_stopped(c->req)) {
            rc = qr_req_fail(c->req, err);
            goto done;
        }
        const char *rel = files.p + off;
        size_t rl = strlen(rel);
        off += rl + 1;
        qr_buf path;
        qr_buf_init(&path);
        qr_buf_printf(&path, "%s/%s", c->root, rel);
        struct stat st;
        char *text = NULL;
        size_t n = 0;
        if (lstat(path.p, &st) != 0 || !S_ISREG(st.st_mode) ||
            qr_read_file(path.p, 8u << 20, &text, &n) != QR_OK) {
            qr_buf_release(&path);
            continue;
        }
        qr_buf_release(&path);
        if (memchr(text, '\0', n)) { /* binary */
            free(text);
            continue;
        }
        /* line starts, for numbers and context */
        const char *prev_line = NULL;
        size_t prev_len = 0;
        uint32_t line = 1;
        bool in_file = false;
        uint32_t last_shown = 0;
        for (const char *p = text, *end = text + n; p < end && !cut;) {
            /* a cancel or the deadline ends the walk between lines */
            if (qr_req_stopped(c->req)) {
                free(text);
                rc = qr_req_fail(c->req, err);
                goto done;
            }
            const char *e = memchr(p, '\n', (size_t)(end - p));
            size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
            int m = pcre2_match(re, (PCRE2_SPTR)p, l, 0, 0, md, mc);
            if (m < PCRE2_ERROR_NOMATCH) {
                PCRE2_UCHAR msg[128];
                pcre2_get_error_message(m, msg, sizeof msg);
                qr_buf_printf(err, "pattern '%s' is too costly at %s:%u (%s); write it "
                                   "without nested repetition",
                              pattern, rel, line, (char *)msg);
                free(text);
                rc = QR_EINVAL;
                goto done;
            }
            if (m >= 0) {
                if (!in_file)
                    nfiles++;
                in_file = true;
                if (found >= max) {
                    cut = true;
                    break;
                }
                if (prev_line && last_shown + 1 < line)
                    qr_buf_printf(out, "%s-%u-%.*s\n", rel, line - 1, (int)prev_len,
                                  prev_line);
                qr_buf_printf(out, "%s:%u:%.*s\n", rel, line, (int)(l > 300 ? 300 : l), p);
                if (vo) {
                    qr_val r = kv(vo->a, qr_map_empty(), "file", vcstr(vo->a, rel));
                    r = kv(vo->a, r, "line", qr_int(line));
                    r = kv(vo->a, r, "text", vstr(vo->a, p, l > 300 ? 300 : l));
                    qr_vecb_push(&vo->rows, r);
                }
                last_shown = line;
                found++;
                /* one line of context after, when it is no match itself */
                if (e && e + 1 < end) {
                    const char *q = e + 1;
                    const char *qe = memchr(q, '\n', (size_t)(end - q));
                    size_t ql = qe ? (size_t)(qe - q) : (size_t)(end - q);
                    if (pcre2_match(re, (PCRE2_SPTR)q, ql, 0, 0, md, mc) < 0) {
                        qr_buf_printf(out, "%s-%u-%.*s\n", rel, line + 1,
                                      (int)(ql > 300 ? 300 : ql), q);
                        last_shown = line + 1;
                    }
                }
            }
            prev_line = p;
            prev_len = l > 300 ? 300 : l;
            line++;
            p = e ? e + 1 : end;
        }
        free(text);
    }
    if (cut)
        qr_buf_printf(out, "... cut at %zu matches\n", max);
    else if (!found)
        qr_buf_printf(out, "no match for '%s'\n", pattern);
    else
        qr_buf_printf(out, "%zu match%s in %zu file%s\n", found, found == 1 ? "" : "es",
                      nfiles, nfiles == 1 ? "" : "s");
    if (vo) {
        qr_val r = kv(vo->a, qr_map_empty(), "pattern", vcstr(vo->a, pattern));
        r = kv(vo->a, r, "path", vcstr(vo->a, where));
        r = kv(vo->a, r, "as_text", qr_bool(as_text));
        r = kv(vo->a, r, "results", qr_vecb_finish(&vo->rows, QR_T_VEC));
        r = kv(vo->a, r, "matches", qr_int((int64_t)found));
        r = kv(vo->a, r, "files", qr_int((int64_t)nfiles));
        vo->res = kv(vo->a, r, "cut", qr_bool(cut));
    }
    rc = QR_OK;
done:
    qr_buf_release(&files);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    return rc;
}

/* ---- tools of the registry ---- */

static qr_val field(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    return m.t == QR_T_MAP && qr_map_get(m, qr_kw_cstr(a, k), &v) ? v : qr_nil();
}

/* get_diff's result as a model reads a patch: one line saying what it is, then git's own
 * text (an EDN string would escape every line break). False when res is not its shape. */
static bool patch_text(qr_arena *a, qr_val res, qr_buf *out)
{
    qr_val from = field(a, res, "from"), to = field(a, res, "to"), files = field(a, res, "files"),
           next = field(a, res, "next_offset"), off = field(a, res, "offset"),
           patches = field(a, res, "patches");
    if (from.t != QR_T_STR || to.t != QR_T_STR || files.t != QR_T_INT || off.t != QR_T_INT ||
        !qr_is_seqcoll(patches))
        return false;
    size_t n = qr_vec_len(patches);
    qr_buf_printf(out, "%.7s..%.7s: %lld file%s", from.s->data, to.s->data, (long long)files.i,
                  files.i == 1 ? "" : "s");
    if (n && (off.i > 0 || next.t == QR_T_INT))
        qr_buf_printf(out, ", %lld-%lld shown", (long long)off.i + 1, (long long)off.i + (long long)n);
    if (next.t == QR_T_INT)
        qr_buf_printf(out, " (next page: offset=%lld)", (long long)next.i);
    qr_buf_putc(out, '\n');
    for (size_t i = 0; i < n; i++) {
        qr_val p = qr_vec_at(patches, i), t = field(a, p, "patch");
        if (t.t != QR_T_STR)
            continue;
        qr_buf_append(out, t.s->data, t.s->len);
        if (qr_truthy(field(a, p, "cut")))
            qr_buf_puts(out, "... (cut: give path= and a larger max_chars)\n");
    }
    return true;
}

static int run_tool(qr_dwim_ctx *c, const char *name, qr_val params, qr_arena *a, qr_buf *out,
                    qr_buf *err, vout *vo)
{
    if (!c->tools) {
        qr_buf_printf(err, "no tool registry to run '%s'", name);
        return QR_EINVAL;
    }
    qr_val res;
    int rc = qr_tools_call(c->tools, name, c->req, params, a, &res, err);
    if (rc != QR_OK)
        return rc;
    if (vo)
        vo->res = res;
    if (!strcmp(name, "get_diff") && patch_text(a, res, out))
        return QR_OK;
    qr_print(out, res, 0);
    qr_buf_putc(out, '\n');
    return QR_OK;
}

static const char *param_str(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    if (qr_map_get(m, qr_kw_cstr(a, k), &v) && v.t == QR_T_STR)
        return v.s->data;
    return NULL;
}

static int64_t param_int(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    if (qr_map_get(m, qr_kw_cstr(a, k), &v) && v.t == QR_T_INT)
        return v.i;
    return 0;
}

/* A result as data: EDN, JSON, or a table as `quarry tool` prints one (a paged answer's
 * :results as rows, then the rest; a source :text whole below, not squashed into a cell). */
static void print_value(qr_buf *out, qr_val v, qr_dwim_format f, size_t width, qr_arena *a)
{
    if (f == QR_DWIM_FMT_JSON) {
        qr_print_json(out, v, false);
        qr_buf_putc(out, '\n');
        return;
    }
    if (f == QR_DWIM_FMT_EDN) {
        qr_print(out, v, QR_PRINT_READABLY);
        qr_buf_putc(out, '\n');
        return;
    }
    qr_val rows, text;
    qr_val rk = qr_kw_cstr(a, "results"), tk = qr_kw_cstr(a, "text");
    if (v.t == QR_T_MAP && qr_map_get(v, rk, &rows) && rows.t == QR_T_VEC) {
        if (qr_vec_len(rows))
            qr_tools_render_table_keys(out, rows, width, NULL);
        v = qr_map_dissoc(a, v, rk);
        if (qr_map_len(v)) {
            if (qr_vec_len(rows))
                qr_buf_putc(out, '\n');
            qr_tools_render_table_width(out, v, width);
        }
    } else if (v.t == QR_T_MAP && qr_map_get(v, tk, &text) && text.t == QR_T_STR) {
        v = qr_map_dissoc(a, v, tk);
        if (qr_map_len(v)) {
            qr_tools_render_table_width(out, v, width);
            qr_buf_putc(out, '\n');
        }
        qr_buf_append(out, text.s->data, text.s->len);
        if (!text.s->len || text.s->data[text.s->len - 1] != '\n')
            qr_buf_putc(out, '\n');
    } else {
        qr_tools_render_table_width(out, v, width);
    }
}

/* The keys a verb run here takes (NULL: its tool's schema decides), NULL-terminated. */
static const char *const *verb_keys(qr_dwim_verb v)
{
    static const char *const skel[] = {"path", "limit", NULL}, *const exp[] = {"symbol", NULL},
                             *const rd[] = {"path", "start", "end", NULL},
                             *const gr[] = {"pattern", "path", "limit", NULL},
                             *const fx[] = {"target", "content", NULL},
                             *const dn[] = {"summary", NULL}, *const val[] = {"command", NULL},
                             *const txt[] = {"text", NULL}, *const fe[] = {"id", NULL};
    switch (v) {
    case QR_DWIM_SKELETON: return skel;
    case QR_DWIM_EXPAND: return exp;
    case QR_DWIM_READ: return rd;
    case QR_DWIM_GREP: return gr;
    case QR_DWIM_FIX: return fx;
    case QR_DWIM_DONE: return dn;
    case QR_DWIM_VALIDATE: return val;
    case QR_DWIM_PLAN:
    case QR_DWIM_NOTE: return txt;
    case QR_DWIM_FETCH: return fe;
    default: return NULL;
    }
}

/* A key=value the verb does not take is refused, never dropped: "'grep' takes pattern,
 * path, limit; not 'foo'". */
static int check_keys(const qr_dwim_intent *in, qr_buf *err)
{
    const char *const *keys = verb_keys(in->verb);
    if (!keys || in->params.t != QR_T_MAP)
        return QR_OK;
    for (size_t i = 0; i < qr_map_len(in->params); i++) {
        qr_val k = qr_map_key_at(in->params, i);
        const char *name = k.t == QR_T_KW ? k.sym->text : k.t == QR_T_STR ? k.s->data : "";
        bool ok = false;
        for (size_t j = 0; keys[j] && !ok; j++)
            ok = !strcmp(name, keys[j]);
        if (ok)
            continue;
        qr_buf_printf(err, "'%s' takes ", qr_dwim_verb_name(in->verb));
        for (size_t j = 0; keys[j]; j++)
            qr_buf_printf(err, "%s%s", j ? ", " : "", keys[j]);
        qr_buf_printf(err, "; not '%s'", name);
        return QR_EINVAL;
    }
    return QR_OK;
}

int qr_dwim_run(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_buf *out, qr_buf *err)
{
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    int rc = check_keys(in, err);
    const char *needs = NULL;
    c->failed = false;
    if (rc != QR_OK) {
        qr_arena_release(&a);
        return rc;
    }
    /* limit=N bounds what skeleton and grep show */
    size_t saved_rows = c->max_rows, saved_matches = c->max_matches;
    int64_t limit = param_int(&a, in->params, "limit");
    qr_val lv;
    if (verb_keys(in->verb) && qr_map_get(in->params, qr_kw_cstr(&a, "limit"), &lv) &&
        (lv.t != QR_T_INT || lv.i < 1 || lv.i > 100000)) {
        qr_buf_puts(err, "limit=");
        qr_print(err, lv, 0);
        qr_buf_puts(err, " is out of range (a whole number 1-100000)");
        qr_arena_release(&a);
        return QR_EINVAL;
    }
    if (limit > 0 && in->verb == QR_DWIM_SKELETON)
        c->max_rows = (size_t)limit;
    if (limit > 0 && in->verb == QR_DWIM_GREP)
        c->max_matches = (size_t)limit;
    /* as data: the verb's text goes to a buffer of its own and its result is printed */
    qr_buf *text_out = out, tb;
    qr_buf_init(&tb);
    vout vbox, *vo = NULL;
    if (c->format != QR_DWIM_FMT_TEXT) {
        vbox.a = &a;
        qr_vecb_init(&vbox.rows, &a, 16);
        vbox.res = qr_nil();
        vo = &vbox;
        out = &tb;
    }
    switch (in->verb) {
    case QR_DWIM_SKELETON:
        if (!in->target)
            needs = "a file or directory";
        else
            rc = run_skeleton(c, in->target, out, err, vo);
        break;
    case QR_DWIM_EXPAND:
        if (!in->target)
            needs = "a symbol";
        else
            rc = run_expand(c, in->target, &a, out, err, vo);
        break;
    case QR_DWIM_READ: {
        const char *p = param_str(&a, in->params, "path");
        if (!p)
            needs = "a file";
        else
            rc = run_read(c, p, param_int(&a, in->params, "start"),
                          param_int(&a, in->params, "end"), out, err, vo);
        break;
    }
    case QR_DWIM_GREP:
        if (!in->target)
            needs = "a pattern";
        else
            rc = run_grep(c, param_str(&a, in->params, "pattern") ? param_str(&a, in->params, "pattern") : in->target,
                          param_str(&a, in->params, "path"), out, err, vo);
        break;
    case QR_DWIM_VALIDATE:
        rc = qr__dwim_validate(c, param_str(&a, in->params, "command"), &a, out, err);
        break;
    case QR_DWIM_FIX:
        rc = qr__dwim_fix(c, in, &a, out, err);
        break;
    case QR_DWIM_DONE:
        qr_buf_printf(out, "done%s%s\n", in->content ? ": " : "", in->content ? in->content : "");
        break;
    case QR_DWIM_CALLERS:
    case QR_DWIM_CALLEES:
    case QR_DWIM_DEPS:
    case QR_DWIM_REFERENCES:
    case QR_DWIM_DEFINITION:
        if (!in->target)
            needs = in->verb == QR_DWIM_DEPS ? "a file" : "a symbol";
        else
            rc = run_tool(c, "query_codebase", in->params, &a, out, err, vo);
        break;
    case QR_DWIM_TOOL:
        rc = run_tool(c, in->tool, in->params, &a, out, err, vo);
        break;
    case QR_DWIM_PLAN:
    case QR_DWIM_FETCH:
    case QR_DWIM_NOTE:
        qr_buf_printf(err, "'%s' works inside the loop (quarry do), not on its own",
                      qr_dwim_verb_name(in->verb));
        rc = QR_EINVAL;
        break;
    default:
        qr_buf_puts(err, "no verb or tool recognised");
        rc = QR_EINVAL;
    }
    if (needs) {
        qr_buf_printf(err, "'%s' needs %s", qr_dwim_verb_name(in->verb), needs);
        rc = QR_EINVAL;
    }
    c->max_rows = saved_rows;
    c->max_matches = saved_matches;
    if (vo && rc == QR_OK) {
        qr_val res = vo->res;
        if (res.t == QR_T_NIL) /* validate, fix, done: what they said */
            res = kv(&a, kv(&a, qr_map_empty(), "verb", vcstr(&a, qr_dwim_verb_name(in->verb))),
                     "text", vstr(&a, tb.p ? tb.p : "", tb.len));
        print_value(text_out, res, c->format, c->width, &a);
    }
    qr_buf_release(&tb);
    qr_arena_release(&a);
    return rc;
}
