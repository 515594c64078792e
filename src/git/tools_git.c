/*
 * tools_git.c: the git tools (get_commits, get_author_stats, get_file_stats,
 * get_file_history, get_diff_stats): their registry records and handlers, which turn
 * checked parameters into a walk (repo.c) and statistics (numstat.c) and build the
 * results as values.
 *
 * Design: one walk serves every tool, so that a window ("since 1 month ago", a path, an
 * author) means the same commits everywhere and the same ones `git log` shows. Handlers
 * work in a scratch arena and copy only the result into the caller's arena, so a Lisp
 * program's memory limit counts what it gets, not what it took to compute it. The
 * repository and the statistics index are opened on the first call and kept in the
 * context (qr_git_ctx, which the host embeds); get_author_stats and get_file_stats, which read only authors, dates
 * and parents, let the walk take them from the index's commit graph, and count distinct
 * files and authors with ids rather than strings (the index gives one string per path,
 * so the pointer is looked up before the bytes are hashed). With a path, line counts
 * cover the files the path matches, as `git log --numstat -- PATH` counts them.
 * Parameters have no default limit: a program sees the whole window, and what is shown to
 * a person is cut by the registry's caller.
 *
 * Rejected: lazy statistics (a map a program filters on :files must hold them; the index
 * makes them cheap); per-tool walks with their own filter semantics; author identity by
 * name (two people share names; emails, after .mailmap, are what shortlog -e groups by).
 */
#include "git_int.h"

#include "quarry/date.h"
#include "quarry/tools.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- keywords of the results ---- */

typedef struct kws {
    qr_val hash, short_hash, author, email, date, timestamp, subject, message, parents, files,
        additions, deletions, paths, path, old_path, status, binary, commits, first, last, authors,
        from, to;
} kws;

static void kws_init(kws *k, qr_arena *a)
{
    k->hash = qr_kw_cstr(a, "hash");
    k->short_hash = qr_kw_cstr(a, "short_hash");
    k->author = qr_kw_cstr(a, "author");
    k->email = qr_kw_cstr(a, "email");
    k->date = qr_kw_cstr(a, "date");
    k->timestamp = qr_kw_cstr(a, "timestamp");
    k->subject = qr_kw_cstr(a, "subject");
    k->message = qr_kw_cstr(a, "message");
    k->parents = qr_kw_cstr(a, "parents");
    k->files = qr_kw_cstr(a, "files");
    k->additions = qr_kw_cstr(a, "additions");
    k->deletions = qr_kw_cstr(a, "deletions");
    k->paths = qr_kw_cstr(a, "paths");
    k->path = qr_kw_cstr(a, "path");
    k->old_path = qr_kw_cstr(a, "old_path");
    k->status = qr_kw_cstr(a, "status");
    k->binary = qr_kw_cstr(a, "binary");
    k->commits = qr_kw_cstr(a, "commits");
    k->first = qr_kw_cstr(a, "first");
    k->last = qr_kw_cstr(a, "last");
    k->authors = qr_kw_cstr(a, "authors");
    k->from = qr_kw_cstr(a, "from");
    k->to = qr_kw_cstr(a, "to");
}

/* ---- parameters ---- */

static bool arg_get(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

const char *qr__git_arg_str(qr_val args, qr_arena *a, const char *name)
{
    qr_val v;
    if (!arg_get(args, a, name, &v))
        return NULL;
    if (v.t == QR_T_STR)
        return v.s->data;
    if (v.t == QR_T_KW) {
        size_t n;
        const char *s = qr_sym_name(v.sym, &n);
        return qr_arena_strndup(a, s, n);
    }
    return NULL;
}

static bool arg_bool(qr_val args, qr_arena *a, const char *name)
{
    qr_val v;
    return arg_get(args, a, name, &v) && qr_truthy(v);
}

static int64_t arg_limit(qr_val args, qr_arena *a)
{
    qr_val v;
    if (!arg_get(args, a, "limit", &v))
        return -1;
    return v.t == QR_T_INT ? v.i : v.t == QR_T_DOUBLE ? (int64_t)v.d : -1;
}

static int parse_date(const char *name, const char *s, int64_t *out, qr_buf *err)
{
    char msg[QR_DATE_ERR_LEN];
    if (qr_clock_parse(s, strlen(s), out, msg, sizeof msg) != QR_OK) {
        qr_buf_printf(err, "parameter '%s': %s", name, msg);
        return QR_EINVAL;
    }
    return QR_OK;
}

/* What every history tool takes: the window and the walk's options. */
typedef struct window {
    qr_walk_opts w;
    qr_pathspec ps;
    const char *path;
    pcre2_code *grep;
} window;

static int parse_window(qr_git *g, qr_val args, qr_arena *a, window *win, qr_buf *err)
{
    memset(win, 0, sizeof *win);
    win->w.limit = arg_limit(args, a);
    win->w.ref = qr__git_arg_str(args, a, "ref");
    win->w.author = qr__git_arg_str(args, a, "author");
    const char *s;
    if ((s = qr__git_arg_str(args, a, "since"))) {
        if (parse_date("since", s, &win->w.since, err) != QR_OK)
            return QR_EINVAL;
        win->w.has_since = true;
    }
    if ((s = qr__git_arg_str(args, a, "until"))) {
        if (parse_date("until", s, &win->w.until, err) != QR_OK)
            return QR_EINVAL;
        win->w.has_until = true;
    }
    if ((s = qr__git_arg_str(args, a, "merges")))
        win->w.merges = !strcmp(s, "exclude") ? QR_MERGES_EXCLUDE
                        : !strcmp(s, "only")  ? QR_MERGES_ONLY
                                              : QR_MERGES_INCLUDE;
    win->w.first_parent = arg_bool(args, a, "first_parent");
    if ((win->path = qr__git_arg_str(args, a, "path"))) {
        int rc = qr__pathspec_parse(&win->ps, win->path, qr_git_workdir(g), a, err);
        if (rc != QR_OK)
            return rc;
        if (!qr__pathspec_all(&win->ps))
            win->w.path = &win->ps;
    }
    if ((s = qr__git_arg_str(args, a, "grep"))) {
        int code;
        PCRE2_SIZE off;
        win->grep =
            pcre2_compile((PCRE2_SPTR)s, strlen(s),
                          PCRE2_CASELESS | PCRE2_MULTILINE | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                          &code, &off, NULL);
        if (!win->grep) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof msg);
            qr_buf_printf(err, "parameter 'grep': bad regular expression '%s' at offset %zu: %s", s,
                          (size_t)off, (const char *)msg);
            return QR_EINVAL;
        }
        win->w.grep = win->grep;
    }
    return QR_OK;
}

static void window_release(window *win)
{
    pcre2_code_free(win->grep);
    win->grep = NULL;
}

/* ---- the context ---- */

static void warn(qr_git_ctx *h, qr_buf *msg)
{
    if (h->warn && msg->p)
        h->warn(h->warn_ud, msg->p);
}

int qr__git_host(void *ctx, qr_git **g, qr_buf *err)
{
    qr_git_ctx *h = ctx;
    if (!h) {
        qr_buf_puts(err, "no repository: the tool registry has no context (qr_tools_set_ctx)");
        return QR_EINVAL;
    }
    if (!h->git) {
        int rc = qr_git_open(h->repo_dir ? h->repo_dir : ".", &h->git, err);
        if (rc != QR_OK)
            return rc;
    }
    *g = h->git;
    return QR_OK;
}

void qr_git_ctx_release(qr_git_ctx *c)
{
    qr__git_shared_close(c);
    if (c->git_index)
        qr_git_index_close(c->git_index);
    if (c->git)
        qr_git_free(c->git);
    c->git_index = NULL;
    c->git = NULL;
    c->git_index_tried = c->git_index_warned = false;
}

/* The index of the context's repository, or NULL (--no-index, or it cannot be opened). */
static qr_git_index **host_index(qr_git_ctx *h)
{
    if (h->no_index)
        return NULL;
    if (!h->git_index_tried) {
        h->git_index_tried = true;
        bool rebuilt = false;
        qr_buf e, msg;
        qr_buf_init(&e);
        qr_buf_init(&msg);
        if (qr_git_index_open(qr_git_dir(h->git), &h->git_index, &rebuilt, &e) != QR_OK) {
            h->git_index = NULL;
            qr_buf_printf(&msg, "statistics index not used: %s; computing without it",
                          e.p ? e.p : "cannot open it");
            warn(h, &msg);
        } else if (rebuilt) {
            h->git_index_warned = true;
            qr_buf_printf(&msg,
                          "statistics index '%s' was damaged or from another version: moved "
                          "aside and rebuilt",
                          qr_git_index_path(h->git_index));
            warn(h, &msg);
        }
        qr_buf_release(&e);
        qr_buf_release(&msg);
    }
    return &h->git_index;
}

static int stats_for(qr_git_ctx *h, const qr_commit_info *cs, size_t n, bool first_parent, qr_arena *a,
                     qr_commit_stats **out, qr_buf *err)
{
    *out = qr_arena_alloc(a, (n ? n : 1) * sizeof **out);
    if (!*out)
        return QR_ENOMEM;
    qr_git_index **ix = host_index(h);
    qr_progress progress = {h->progress, h->progress_ud, h->stop};
    int rc = qr__git_stats(h->git, ix, cs, n, first_parent, &progress, a, *out, err);
    if (ix && *ix && !h->git_index_warned && qr_git_index_rebuilt(*ix)) {
        h->git_index_warned = true;
        qr_buf msg;
        qr_buf_init(&msg);
        qr_buf_printf(&msg, "statistics index '%s' was damaged: moved aside and rebuilt",
                      qr_git_index_path(*ix));
        warn(h, &msg);
        qr_buf_release(&msg);
    }
    return rc;
}

/* For a tool that reads only the author, dates and parents of each commit: the walk may
 * take them from the index's commit graph (and add what it lacks). */
static void use_graph(qr_git_ctx *h, window *win)
{
    qr_git_index **ix = host_index(h);
    win->w.graph = ix ? *ix : NULL;
    win->w.graph_write = true;
    win->w.stop = h->stop;
}

/* ---- building results ---- */

static qr_val str(qr_arena *a, const char *s)
{
    return qr_str_new(a, s, strlen(s));
}

/* A path as results show it (quoted when it is not UTF-8: qr__path_shown). */
static qr_val path_str(qr_arena *a, const char *s)
{
    const char *shown = qr__path_shown(a, s, strlen(s));
    return shown ? str(a, shown) : qr_nil();
}

static qr_val oid_str(qr_arena *a, const git_oid *oid, size_t len)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, oid);
    return qr_str_new(a, hex, len);
}

static qr_val iso_date(qr_arena *a, int64_t t, int offset)
{
    char buf[QR_DATE_ISO_LEN];
    qr_date_format_iso(t, offset, buf, sizeof buf);
    return str(a, buf);
}

static qr_val status_str(qr_arena *a, char st)
{
    return qr_str_new(a, &st, 1);
}

/* The commit's fields shared by get_commits and get_file_history. */
static void put_commit_fields(qr_mapb *mb, const kws *k, qr_arena *a, const qr_commit_info *c)
{
    qr_mapb_put(mb, k->hash, oid_str(a, &c->oid, GIT_OID_HEXSZ));
    qr_mapb_put(mb, k->short_hash, oid_str(a, &c->oid, 7));
    qr_mapb_put(mb, k->author, str(a, c->author));
    qr_mapb_put(mb, k->email, str(a, c->email));
    qr_mapb_put(mb, k->date, iso_date(a, c->atime, c->aoffset));
    qr_mapb_put(mb, k->timestamp, qr_int(c->atime));
    qr_mapb_put(mb, k->subject, qr_str_new(a, c->subject, c->subject_len));
    qr_mapb_put(mb, k->message, str(a, c->message));
    qr_vecb pv;
    qr_vecb_init(&pv, a, c->nparents);
    for (uint32_t i = 0; i < c->nparents; i++)
        qr_vecb_push(&pv, oid_str(a, &c->parents[i], GIT_OID_HEXSZ));
    qr_mapb_put(mb, k->parents, qr_vecb_finish(&pv, QR_T_VEC));
}

static bool in_path(const window *win, const qr_file_stat *f)
{
    return !win->w.path || qr__pathspec_match(win->w.path, f->path, strlen(f->path));
}

static qr_val file_row(qr_mapb *mb, const kws *k, qr_arena *a, const qr_file_stat *f)
{
    qr_mapb_put(mb, k->path, path_str(a, f->path));
    qr_mapb_put(mb, k->additions, qr_int(f->additions));
    qr_mapb_put(mb, k->deletions, qr_int(f->deletions));
    qr_mapb_put(mb, k->status, status_str(a, f->status));
    if (f->binary)
        qr_mapb_put(mb, k->binary, qr_bool(true));
    qr_val v = qr_mapb_finish(mb, QR_T_MAP);
    qr_mapb_reuse(mb);
    return v;
}

static int finish(qr_arena *a, qr_val v, qr_val *out, qr_buf *err)
{
    if (a->exhausted || a->too_deep) {
        qr_buf_puts(err, "the result does not fit in the memory limit; narrow the window "
                         "(since, until, path, author) or give a limit");
        return QR_ENOMEM;
    }
    *out = v;
    return QR_OK;
}

/* ---- scratch memory ----
 * A handler's scratch arena (the walk, the statistics, the rows before the copy) is capped
 * by the memory budget of the request the tool runs for (qr_req_memory_cap: a Lisp
 * program's --max-memory, a flow's budget), set by with_req for the length of the call on
 * the calling thread (calls run on many threads at once, each for its own request). A
 * scratch arena that reaches it ends the call with QR_ELIMIT and says so. */
static _Thread_local size_t scratch_cap;

static void scratch_init(qr_arena *s)
{
    qr_arena_init(s, scratch_cap);
}

static int scratch_release(qr_arena *s, int rc, qr_buf *err)
{
    if (rc != QR_OK && s->exhausted && s->cap) {
        qr_buf_reset(err);
        qr_buf_printf(err,
                      "memory limit of %zu bytes reached: the tool's working memory for this "
                      "call; narrow 'path' or the time window",
                      s->cap);
        rc = QR_ELIMIT;
    }
    qr_arena_release(s);
    return rc;
}

static int fail_nomem(qr_buf *err, int rc)
{
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory");
    return rc;
}

/* ---- get_commits ---- */

static int get_commits_run(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git *g;
    qr_val repos;
    if (arg_get(args, a, "repos", &repos)) /* across repositories: the shared index */
        return qr__git_shared_tool(ctx, QR_SHARED_COMMITS, args, repos, a, out, err);
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    window win;
    if ((rc = parse_window(g, args, a, &win, err)) != QR_OK) {
        window_release(&win);
        return rc;
    }
    bool with_paths = arg_bool(args, a, "with_paths");
    qr_arena s;
    scratch_init(&s);
    qr_commit_info *cs;
    qr_commit_stats *st = NULL;
    size_t n;
    win.w.stop = ((qr_git_ctx *)ctx)->stop;
    rc = qr__git_walk(g, &win.w, &s, &cs, &n, err);
    if (rc == QR_OK)
        rc = stats_for(ctx, cs, n, win.w.first_parent, &s, &st, err);
    if (rc == QR_OK) {
        kws k;
        kws_init(&k, a);
        qr_mapb mb, fb;
        qr_mapb_init(&mb, a, 16);
        qr_mapb_init(&fb, a, 6);
        qr_vecb vb;
        qr_vecb_init(&vb, a, n);
        for (size_t i = 0; i < n; i++) {
            put_commit_fields(&mb, &k, a, &cs[i]);
            int64_t files = 0, adds = 0, dels = 0;
            qr_vecb pb;
            if (with_paths)
                qr_vecb_init(&pb, a, st[i].nfiles);
            for (uint32_t j = 0; j < st[i].nfiles; j++) {
                const qr_file_stat *f = &st[i].files[j];
                if (!in_path(&win, f))
                    continue;
                files++;
                adds += f->additions;
                dels += f->deletions;
                if (with_paths)
                    qr_vecb_push(&pb, file_row(&fb, &k, a, f));
            }
            qr_mapb_put(&mb, k.files, qr_int(files));
            qr_mapb_put(&mb, k.additions, qr_int(adds));
            qr_mapb_put(&mb, k.deletions, qr_int(dels));
            if (with_paths)
                qr_mapb_put(&mb, k.paths, qr_vecb_finish(&pb, QR_T_VEC));
            qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
            qr_mapb_reuse(&mb);
        }
        rc = finish(a, qr_vecb_finish(&vb, QR_T_VEC), out, err);
    }
    rc = scratch_release(&s, rc, err);
    window_release(&win);
    return fail_nomem(err, rc);
}

/* ---- tables keyed by strings ---- */

typedef struct tab_entry {
    uint64_t h;
    const char *s; /* NULL: empty slot */
    uint32_t tag;
    uint32_t val;
} tab_entry;

typedef struct tab {
    tab_entry *e;
    size_t n, cap;
} tab;

static uint64_t tab_hash(const char *s, uint32_t tag)
{
    return qr_hash_combine(qr_hash_bytes(s, strlen(s)), tag);
}

/* The entry for (tag, s), added with val = UINT32_MAX when absent; NULL when out of
 * memory. s must outlive the table. */
static tab_entry *tab_get(tab *t, uint32_t tag, const char *s)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        tab_entry *e = calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i].s)
                continue;
            size_t j = t->e[i].h & (cap - 1);
            while (e[j].s)
                j = (j + 1) & (cap - 1);
            e[j] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = cap;
    }
    uint64_t h = tab_hash(s, tag);
    size_t j = h & (t->cap - 1);
    while (t->e[j].s) {
        if (t->e[j].h == h && t->e[j].tag == tag && !strcmp(t->e[j].s, s))
            return &t->e[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->e[j] = (tab_entry){h, s, tag, UINT32_MAX};
    t->n++;
    return &t->e[j];
}

static void tab_free(tab *t)
{
    free(t->e);
    memset(t, 0, sizeof *t);
}

/* Dense ids for strings. The string's address is looked up first: stats read from the
 * index share one string per distinct path and the commit graph one per author, so most
 * lookups hash a pointer instead of the bytes (2 to 3 ms less on 20,000 commits). */
typedef struct ptr_id {
    const char *p; /* NULL: empty slot */
    uint32_t id;
} ptr_id;

typedef struct strids {
    ptr_id *e;
    size_t n, cap;
    tab by_str;
    uint32_t next;
} strids;

static size_t ptr_slot(const ptr_id *e, size_t cap, const char *p)
{
    size_t j = qr_hash_mix((uintptr_t)p) & (cap - 1);
    while (e[j].p && e[j].p != p)
        j = (j + 1) & (cap - 1);
    return j;
}

/* The id of s (equal strings, equal ids; ids from 0 up); false when out of memory. s must
 * outlive the table. */
static bool strid_get(strids *t, const char *s, uint32_t *id)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        ptr_id *e = calloc(cap, sizeof *e);
        if (!e)
            return false;
        for (size_t i = 0; i < t->cap; i++)
            if (t->e[i].p)
                e[ptr_slot(e, cap, t->e[i].p)] = t->e[i];
        free(t->e);
        t->e = e;
        t->cap = cap;
    }
    size_t j = ptr_slot(t->e, t->cap, s);
    if (!t->e[j].p) {
        tab_entry *te = tab_get(&t->by_str, 0, s);
        if (!te)
            return false;
        if (te->val == UINT32_MAX)
            te->val = t->next++;
        t->e[j] = (ptr_id){s, te->val};
        t->n++;
    }
    *id = t->e[j].id;
    return true;
}

static void strids_free(strids *t)
{
    free(t->e);
    tab_free(&t->by_str);
    memset(t, 0, sizeof *t);
}

/* A set of (a, b) pairs of ids. */
typedef struct pairset {
    uint64_t *e; /* a << 32 | b, + 1 so that 0 marks an empty slot */
    size_t n, cap;
} pairset;

/* Adds (a, b): 1 when it was new, 0 when already there, QR_ENOMEM. */
static int pair_add(pairset *t, uint32_t a, uint32_t b)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        uint64_t *e = calloc(cap, sizeof *e);
        if (!e)
            return QR_ENOMEM;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i])
                continue;
            size_t j = qr_hash_mix(t->e[i]) & (cap - 1);
            while (e[j])
                j = (j + 1) & (cap - 1);
            e[j] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = cap;
    }
    uint64_t k = ((uint64_t)a << 32 | b) + 1;
    size_t j = qr_hash_mix(k) & (t->cap - 1);
    while (t->e[j]) {
        if (t->e[j] == k)
            return 0;
        j = (j + 1) & (t->cap - 1);
    }
    t->e[j] = k;
    t->n++;
    return 1;
}

/* ---- get_author_stats ---- */

typedef struct author_row {
    const qr_commit_info *first, *last; /* last: the commit whose name is shown */
    int64_t commits, additions, deletions, files;
} author_row;

/* Most commits first; ties as git shortlog -n leaves them: by name, then email. */
static int author_cmp(const void *x, const void *y)
{
    const author_row *a = x, *b = y;
    if (a->commits != b->commits)
        return a->commits > b->commits ? -1 : 1;
    int c = strcmp(a->last->author, b->last->author);
    return c ? c : strcmp(a->last->email, b->last->email);
}

static int get_author_stats_run(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git *g;
    qr_val repos;
    if (arg_get(args, a, "repos", &repos)) /* across repositories: the shared index */
        return qr__git_shared_tool(ctx, QR_SHARED_AUTHORS, args, repos, a, out, err);
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    window win;
    if ((rc = parse_window(g, args, a, &win, err)) != QR_OK) {
        window_release(&win);
        return rc;
    }
    int64_t top = win.w.limit;
    win.w.limit = -1;
    qr_arena s;
    scratch_init(&s);
    qr_commit_info *cs;
    qr_commit_stats *st = NULL;
    size_t n, nrows = 0;
    author_row *rows = NULL;
    strids by_email = {0}, paths = {0};
    pairset pairs = {0};
    use_graph(ctx, &win);
    rc = qr__git_walk(g, &win.w, &s, &cs, &n, err);
    if (rc == QR_OK)
        rc = stats_for(ctx, cs, n, win.w.first_parent, &s, &st, err);
    if (rc == QR_OK && n && !(rows = calloc(n, sizeof *rows)))
        rc = QR_ENOMEM;
    for (size_t i = 0; rc == QR_OK && i < n; i++) {
        const qr_commit_info *c = &cs[i];
        uint32_t aid;
        /* one author per address whatever its ASCII case (git_int.h: the shared index
           groups by the same key); the table keeps the pointer */
        const char *key = qr__git_author_key(c->email, &s);
        if (!key || !strid_get(&by_email, key, &aid)) {
            rc = QR_ENOMEM;
            break;
        }
        if (aid == nrows) { /* a new author */
            nrows++;
            rows[aid].first = rows[aid].last = c;
        }
        author_row *r = &rows[aid];
        r->commits++;
        if (qr__git_commit_order(c, r->first) < 0)
            r->first = c;
        if (qr__git_commit_order(c, r->last) > 0)
            r->last = c;
        for (uint32_t j = 0; j < st[i].nfiles; j++) {
            const qr_file_stat *f = &st[i].files[j];
            if (!in_path(&win, f))
                continue;
            r->additions += f->additions;
            r->deletions += f->deletions;
            uint32_t pid;
            int added = strid_get(&paths, f->path, &pid) ? pair_add(&pairs, aid, pid) : QR_ENOMEM;
            if (added < 0) {
                rc = QR_ENOMEM;
                break;
            }
            r->files += added;
        }
    }
    if (rc == QR_OK) {
        if (nrows > 1)
            qsort(rows, nrows, sizeof *rows, author_cmp);
        if (top >= 0 && (size_t)top < nrows)
            nrows = (size_t)top;
        kws k;
        kws_init(&k, a);
        qr_mapb mb;
        qr_mapb_init(&mb, a, 8);
        qr_vecb vb;
        qr_vecb_init(&vb, a, nrows);
        for (size_t i = 0; i < nrows; i++) {
            const author_row *r = &rows[i];
            qr_mapb_put(&mb, k.author, str(a, r->last->author));
            qr_mapb_put(&mb, k.email, str(a, r->last->email));
            qr_mapb_put(&mb, k.commits, qr_int(r->commits));
            qr_mapb_put(&mb, k.additions, qr_int(r->additions));
            qr_mapb_put(&mb, k.deletions, qr_int(r->deletions));
            qr_mapb_put(&mb, k.files, qr_int(r->files));
            qr_mapb_put(&mb, k.first, iso_date(a, r->first->atime, r->first->aoffset));
            qr_mapb_put(&mb, k.last, iso_date(a, r->last->atime, r->last->aoffset));
            qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
            qr_mapb_reuse(&mb);
        }
        rc = finish(a, qr_vecb_finish(&vb, QR_T_VEC), out, err);
    }
    free(rows);
    strids_free(&by_email);
    strids_free(&paths);
    free(pairs.e);
    rc = scratch_release(&s, rc, err);
    window_release(&win);
    return fail_nomem(err, rc);
}

/* ---- get_file_stats ---- */

typedef struct file_row_acc {
    const char *path;
    const qr_commit_info *last;
    int64_t commits, additions, deletions, authors;
} file_acc;

static int file_cmp(const void *x, const void *y)
{
    const file_acc *a = x, *b = y;
    if (a->commits != b->commits)
        return a->commits > b->commits ? -1 : 1;
    int64_t ca = a->additions + a->deletions, cb = b->additions + b->deletions;
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* The directory a file is counted under when directories are ranked: the one a level
 * below base ("" or a directory ending in '/'), written to out with its '/'; false when
 * the file is not inside such a directory. */
static bool dir_under(const char *path, const char *base, char *out, size_t cap)
{
    size_t bl = strlen(base);
    if (bl && strncmp(path, base, bl))
        return false;
    const char *slash = strchr(path + bl, '/');
    if (!slash || (size_t)(slash - path) + 2 > cap)
        return false;
    memcpy(out, path, (size_t)(slash - path) + 1);
    out[slash - path + 1] = '\0';
    return true;
}

/* The directory directories are ranked under: the path parameter when it names a
 * directory plainly ("services/", "services"), else the top level (""). */
static void rank_base(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    if (!path || !path[0] || strpbrk(path, "*?[:!\\") || strlen(path) + 2 > cap)
        return;
    snprintf(out, cap, "%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/");
}

static int get_file_stats_run(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git *g;
    qr_val repos;
    if (arg_get(args, a, "repos", &repos)) { /* across repositories: the shared index */
        const char *by_arg = qr__git_arg_str(args, a, "by");
        if (by_arg && strcmp(by_arg, "file")) {
            qr_buf_puts(err, "parameter 'by': directories are ranked in one repository only; "
                             "leave out repos, or by");
            return QR_EINVAL;
        }
        return qr__git_shared_tool(ctx, QR_SHARED_FILES, args, repos, a, out, err);
    }
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    window win;
    if ((rc = parse_window(g, args, a, &win, err)) != QR_OK) {
        window_release(&win);
        return rc;
    }
    int64_t top = win.w.limit;
    win.w.limit = -1;
    qr_arena s;
    scratch_init(&s);
    qr_commit_info *cs;
    qr_commit_stats *st = NULL;
    size_t n, nrows = 0, caprows = 0;
    file_acc *rows = NULL;
    strids by_path = {0}, emails = {0};
    pairset pairs = {0}, dir_commits = {0};
    const char *by = qr__git_arg_str(args, a, "by");
    bool dirs = by && !strcmp(by, "directory");
    char base[512];
    rank_base(win.path, base, sizeof base);
    use_graph(ctx, &win);
    rc = qr__git_walk(g, &win.w, &s, &cs, &n, err);
    if (rc == QR_OK)
        rc = stats_for(ctx, cs, n, win.w.first_parent, &s, &st, err);
    for (size_t i = 0; rc == QR_OK && i < n; i++) {
        for (uint32_t j = 0; rc == QR_OK && j < st[i].nfiles; j++) {
            const qr_file_stat *f = &st[i].files[j];
            if (!in_path(&win, f))
                continue;
            uint32_t pid, eid;
            const char *key = f->path;
            if (dirs) {
                char d[512];
                if (!dir_under(f->path, base, d, sizeof d))
                    continue;
                if (!(key = qr_arena_strndup(&s, d, strlen(d)))) {
                    rc = QR_ENOMEM;
                    break;
                }
            }
            if (!strid_get(&by_path, key, &pid)) {
                rc = QR_ENOMEM;
                break;
            }
            if (pid == nrows) { /* a new path */
                if (nrows == caprows) {
                    size_t cap = caprows ? caprows * 2 : 256;
                    file_acc *p = realloc(rows, cap * sizeof *p);
                    if (!p) {
                        rc = QR_ENOMEM;
                        break;
                    }
                    rows = p;
                    caprows = cap;
                }
                rows[nrows++] = (file_acc){.path = key, .last = &cs[i]};
            }
            file_acc *r = &rows[pid];
            /* a directory counts each commit once, however many of its files it changed */
            int fresh = dirs ? pair_add(&dir_commits, pid, (uint32_t)i) : 1;
            if (fresh < 0) {
                rc = QR_ENOMEM;
                break;
            }
            r->commits += fresh;
            r->additions += f->additions;
            r->deletions += f->deletions;
            if (qr__git_commit_order(&cs[i], r->last) > 0)
                r->last = &cs[i];
            /* authors as get_author_stats counts them: an email whatever its ASCII case */
            const char *akey = qr__git_author_key(cs[i].email, &s);
            int added =
                akey && strid_get(&emails, akey, &eid) ? pair_add(&pairs, pid, eid) : QR_ENOMEM;
            if (added < 0) {
                rc = QR_ENOMEM;
                break;
            }
            r->authors += added;
        }
    }
    if (rc == QR_OK) {
        if (nrows > 1)
            qsort(rows, nrows, sizeof *rows, file_cmp);
        if (top >= 0 && (size_t)top < nrows)
            nrows = (size_t)top;
        kws k;
        kws_init(&k, a);
        qr_mapb mb;
        qr_mapb_init(&mb, a, 6);
        qr_vecb vb;
        qr_vecb_init(&vb, a, nrows);
        for (size_t i = 0; i < nrows; i++) {
            const file_acc *r = &rows[i];
            qr_mapb_put(&mb, k.path, path_str(a, r->path));
            qr_mapb_put(&mb, k.commits, qr_int(r->commits));
            qr_mapb_put(&mb, k.additions, qr_int(r->additions));
            qr_mapb_put(&mb, k.deletions, qr_int(r->deletions));
            qr_mapb_put(&mb, k.authors, qr_int(r->authors));
            qr_mapb_put(&mb, k.last, iso_date(a, r->last->atime, r->last->aoffset));
            qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
            qr_mapb_reuse(&mb);
        }
        rc = finish(a, qr_vecb_finish(&vb, QR_T_VEC), out, err);
    }
    free(rows);
    strids_free(&by_path);
    strids_free(&emails);
    free(pairs.e);
    free(dir_commits.e);
    rc = scratch_release(&s, rc, err);
    window_release(&win);
    return fail_nomem(err, rc);
}

/* ---- get_file_history ---- */

static int get_file_history_run(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git *g;
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    window win;
    if ((rc = parse_window(g, args, a, &win, err)) != QR_OK) {
        window_release(&win);
        return rc;
    }
    if (!win.path || qr__pathspec_all(&win.ps)) {
        window_release(&win);
        qr_buf_puts(err, "parameter 'path' must name a file (relative to the repository root)");
        return QR_EINVAL;
    }
    qr_revs revs;
    rc = qr__git_resolve_revs(g, win.w.ref, &revs, err);
    if (rc != QR_OK || revs.npos == 0) {
        window_release(&win);
        if (rc == QR_OK)
            *out = qr_vec_empty(QR_T_VEC);
        return rc;
    }
    /* a file (or a directory): git log --follow; a pattern (a glob, icase, exclude):
     * `git log -M` for what it matches, as git follows renames only for one path; one row
     * per file and commit either way */
    bool pattern = qr__pathspec_has_magic(&win.ps);
    const char *spec = NULL;
    if ((rc = qr__pathspec_to_git(&win.ps, a, &spec)) != QR_OK) {
        window_release(&win);
        return fail_nomem(err, rc);
    }
    qr_follow_opts fo = {
        .revs = &revs,
        .spec = spec,
        .path = pattern ? NULL : qr_arena_strndup(a, win.ps.pat, win.ps.len),
        .per_file = true,
        .follow = !pattern,
        .has_since = win.w.has_since,
        .has_until = win.w.has_until,
        .since = win.w.since,
        .until = win.w.until,
        .merges = win.w.merges,
        .first_parent = win.w.first_parent,
        .stop = ctx ? ((qr_git_ctx *)ctx)->stop : NULL,
        .max_output = scratch_cap,
        /* "the last change": git stops after the commits asked for, when each is a row
           (one file followed; a pattern's merge has none) and none is filtered here after
           it (author, message) */
        .max_count = pattern || win.w.author || win.grep ? -1 : win.w.limit,
    };
    qr_arena s;
    scratch_init(&s);
    qr_follow_entry *fe, *me = NULL;
    size_t n, m = 0;
    rc = qr__git_follow(g, &fo, &s, &fe, &n, err);
    /* git log --follow lists no merge; git log -- FILE lists a merge whose tree differs
     * in the file from every parent (a sync merge that brings a change made on both
     * sides). Those merges are interleaved by committer date, the walk's order, so the
     * history is the lineage across renames and the merges git shows for the file. */
    if (rc == QR_OK && fo.follow && win.w.merges != QR_MERGES_EXCLUDE && !win.w.first_parent) {
        qr_follow_opts mo = fo;
        mo.follow = false;
        mo.merges = QR_MERGES_ONLY;
        rc = qr__git_follow(g, &mo, &s, &me, &m, err);
    }
    if (rc == QR_OK) {
        kws k;
        kws_init(&k, a);
        qr_mapb mb;
        qr_mapb_init(&mb, a, 16);
        qr_vecb vb;
        qr_vecb_init(&vb, a, n + m);
        size_t shown = 0, i = 0, j = 0;
        qr_commit_info ci, cj;
        bool have_i = false, have_j = false;
        while (rc == QR_OK && (i < n || j < m)) {
            if (win.w.limit >= 0 && (int64_t)shown >= win.w.limit)
                break;
            if (i < n && !have_i) {
                if ((rc = qr__git_commit_info(g, &fe[i].oid, &s, &ci, err)) != QR_OK)
                    break;
                have_i = true;
            }
            if (j < m && !have_j) {
                if ((rc = qr__git_commit_info(g, &me[j].oid, &s, &cj, err)) != QR_OK)
                    break;
                have_j = true;
            }
            /* the newer by committer date; a merge before the lineage's row of its date */
            bool merge = j < m && (i >= n || cj.ctime >= ci.ctime);
            const qr_follow_entry *e = merge ? &me[j] : &fe[i];
            qr_commit_info c = merge ? cj : ci;
            if (merge)
                j++, have_j = false;
            else
                i++, have_i = false;
            if ((win.w.author && !qr__git_author_matches(&c, win.w.author)))
                continue;
            if (win.grep && !qr__git_message_matches(win.grep, c.message))
                continue;
            shown++;
            put_commit_fields(&mb, &k, a, &c);
            qr_mapb_put(&mb, k.path, path_str(a, e->path));
            if (e->old_path)
                qr_mapb_put(&mb, k.old_path, path_str(a, e->old_path));
            qr_mapb_put(&mb, k.status, status_str(a, e->status));
            qr_mapb_put(&mb, k.additions, qr_int(e->additions));
            qr_mapb_put(&mb, k.deletions, qr_int(e->deletions));
            if (e->binary)
                qr_mapb_put(&mb, k.binary, qr_bool(true));
            qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
            qr_mapb_reuse(&mb);
        }
        if (rc == QR_OK)
            rc = finish(a, qr_vecb_finish(&vb, QR_T_VEC), out, err);
    }
    rc = scratch_release(&s, rc, err);
    window_release(&win);
    return fail_nomem(err, rc);
}

/* ---- get_diff_stats ---- */

typedef struct path_acc {
    const char *path;
    int64_t additions, deletions, commits;
    char status;
    bool binary;
} path_acc;

static int diff_oids(qr_git *g, const window *win, const git_oid *of, const git_oid *ot,
                     qr_arena *a, qr_val *out, qr_buf *err);

static int diff_between(qr_git *g, const window *win, const char *from, const char *to, qr_arena *a,
                        qr_val *out, qr_buf *err)
{
    git_oid of, ot;
    bool unborn;
    if (!to && strstr(from, "..")) {
        /* from "A..B": git diff A B; "A...B": from their merge base to B */
        qr_revs r;
        int rc = qr__git_resolve_revs(g, from, &r, err);
        if (rc != QR_OK)
            return rc;
        bool sym = strstr(from, "...") != NULL;
        if (r.npos != (sym ? 2u : 1u) || r.nneg != 1) {
            qr_buf_printf(err,
                          sym ? "range '%s': the two sides have no merge base; give 'from' and "
                                "'to' instead"
                              : "range '%s': give one range A..B or A...B as 'from'",
                          from);
            return QR_EINVAL;
        }
        of = r.neg[0];
        ot = r.pos[r.npos - 1];
        return diff_oids(g, win, &of, &ot, a, out, err);
    }
    if (!to)
        to = "HEAD";
    int rc = qr__git_resolve(g, from, &of, &unborn, err);
    if (rc == QR_OK && unborn) {
        qr_buf_printf(err, "unknown ref '%s': the repository has no commits yet", from);
        return QR_EINVAL;
    }
    if (rc == QR_OK)
        rc = qr__git_resolve(g, to, &ot, &unborn, err);
    if (rc == QR_OK && unborn) {
        qr_buf_printf(err, "unknown ref '%s': the repository has no commits yet", to);
        return QR_EINVAL;
    }
    if (rc != QR_OK)
        return rc;
    return diff_oids(g, win, &of, &ot, a, out, err);
}

static int diff_oids(qr_git *g, const window *win, const git_oid *of, const git_oid *ot,
                     qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_arena s;
    scratch_init(&s);
    qr_commit_stats st;
    int rc = qr__git_diff_stats(g, of, ot, &s, &st, err);
    if (rc == QR_OK) {
        kws k;
        kws_init(&k, a);
        qr_mapb mb, fb;
        qr_mapb_init(&mb, a, 6);
        qr_mapb_init(&fb, a, 5);
        qr_vecb pb;
        qr_vecb_init(&pb, a, st.nfiles);
        int64_t files = 0, adds = 0, dels = 0;
        for (uint32_t j = 0; j < st.nfiles; j++) {
            const qr_file_stat *f = &st.files[j];
            if (!in_path(win, f))
                continue;
            files++;
            adds += f->additions;
            dels += f->deletions;
            qr_vecb_push(&pb, file_row(&fb, &k, a, f));
        }
        qr_mapb_put(&mb, k.from, oid_str(a, of, GIT_OID_HEXSZ));
        qr_mapb_put(&mb, k.to, oid_str(a, ot, GIT_OID_HEXSZ));
        qr_mapb_put(&mb, k.files, qr_int(files));
        qr_mapb_put(&mb, k.additions, qr_int(adds));
        qr_mapb_put(&mb, k.deletions, qr_int(dels));
        qr_mapb_put(&mb, k.paths, qr_vecb_finish(&pb, QR_T_VEC));
        rc = finish(a, qr_mapb_finish(&mb, QR_T_MAP), out, err);
    }
    rc = scratch_release(&s, rc, err);
    return rc;
}

static int path_acc_cmp(const void *x, const void *y)
{
    const path_acc *a = x, *b = y;
    int64_t ca = a->additions + a->deletions, cb = b->additions + b->deletions;
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->path, b->path);
}

static int diff_commits(qr_git_ctx *h, const window *win, qr_val list, qr_arena *a, qr_val *out,
                        qr_buf *err)
{
    qr_git *g = h->git;
    size_t n = qr_vec_len(list), m = 0;
    qr_arena s;
    scratch_init(&s);
    qr_commit_info *cs = qr_arena_alloc(&s, (n ? n : 1) * sizeof *cs);
    qr_commit_stats *st = NULL;
    tab seen = {0}, by_path = {0};
    path_acc *rows = NULL;
    size_t nrows = 0, caprows = 0;
    int rc = cs ? QR_OK : QR_ENOMEM;
    for (size_t i = 0; rc == QR_OK && i < n; i++) {
        qr_val v = qr_vec_at(list, i);
        const char *ref = v.t == QR_T_STR ? v.s->data : "";
        git_oid oid;
        bool unborn;
        rc = qr__git_resolve(g, ref, &oid, &unborn, err);
        if (rc == QR_OK && unborn) {
            qr_buf_printf(err, "unknown ref '%s': the repository has no commits yet", ref);
            rc = QR_EINVAL;
        }
        if (rc != QR_OK)
            break;
        char hex[GIT_OID_HEXSZ + 1];
        git_oid_tostr(hex, sizeof hex, &oid);
        const char *key = qr_arena_strndup(&s, hex, GIT_OID_HEXSZ);
        tab_entry *e = key ? tab_get(&seen, 0, key) : NULL;
        if (!e) {
            rc = QR_ENOMEM;
            break;
        }
        if (e->val != UINT32_MAX)
            continue;
        e->val = (uint32_t)m;
        rc = qr__git_commit_info(g, &oid, &s, &cs[m++], err);
    }
    if (rc == QR_OK)
        rc = stats_for(h, cs, m, false, &s, &st, err);
    if (rc == QR_OK) {
        kws k;
        kws_init(&k, a);
        qr_mapb mb, cb;
        qr_mapb_init(&mb, a, 5);
        qr_mapb_init(&cb, a, m);
        qr_mapb fb;
        qr_mapb_init(&fb, a, 3);
        int64_t adds = 0, dels = 0;
        for (size_t i = 0; rc == QR_OK && i < m; i++) {
            int64_t files = 0, ca = 0, cd = 0;
            for (uint32_t j = 0; j < st[i].nfiles; j++) {
                const qr_file_stat *f = &st[i].files[j];
                if (!in_path(win, f))
                    continue;
                files++;
                ca += f->additions;
                cd += f->deletions;
                tab_entry *e = tab_get(&by_path, 0, f->path);
                if (!e) {
                    rc = QR_ENOMEM;
                    break;
                }
                if (e->val == UINT32_MAX) {
                    if (nrows == caprows) {
                        size_t cap = caprows ? caprows * 2 : 64;
                        path_acc *p = realloc(rows, cap * sizeof *p);
                        if (!p) {
                            rc = QR_ENOMEM;
                            break;
                        }
                        rows = p;
                        caprows = cap;
                    }
                    e->val = (uint32_t)nrows;
                    rows[nrows++] = (path_acc){.path = f->path};
                }
                path_acc *r = &rows[e->val];
                r->additions += f->additions;
                r->deletions += f->deletions;
                r->commits++;
            }
            adds += ca;
            dels += cd;
            qr_mapb_put(&fb, k.files, qr_int(files));
            qr_mapb_put(&fb, k.additions, qr_int(ca));
            qr_mapb_put(&fb, k.deletions, qr_int(cd));
            qr_mapb_put(&cb, oid_str(a, &cs[i].oid, GIT_OID_HEXSZ), qr_mapb_finish(&fb, QR_T_MAP));
            qr_mapb_reuse(&fb);
        }
        if (rc == QR_OK) {
            if (nrows > 1)
                qsort(rows, nrows, sizeof *rows, path_acc_cmp);
            qr_vecb pb;
            qr_vecb_init(&pb, a, nrows);
            for (size_t i = 0; i < nrows; i++) {
                qr_mapb_put(&fb, k.path, path_str(a, rows[i].path));
                qr_mapb_put(&fb, k.additions, qr_int(rows[i].additions));
                qr_mapb_put(&fb, k.deletions, qr_int(rows[i].deletions));
                qr_mapb_put(&fb, k.commits, qr_int(rows[i].commits));
                qr_vecb_push(&pb, qr_mapb_finish(&fb, QR_T_MAP));
                qr_mapb_reuse(&fb);
            }
            qr_mapb_put(&mb, k.files, qr_int((int64_t)nrows));
            qr_mapb_put(&mb, k.additions, qr_int(adds));
            qr_mapb_put(&mb, k.deletions, qr_int(dels));
            qr_mapb_put(&mb, k.paths, qr_vecb_finish(&pb, QR_T_VEC));
            qr_mapb_put(&mb, k.commits, qr_mapb_finish(&cb, QR_T_MAP));
            rc = finish(a, qr_mapb_finish(&mb, QR_T_MAP), out, err);
        }
    }
    free(rows);
    tab_free(&seen);
    tab_free(&by_path);
    rc = scratch_release(&s, rc, err);
    return rc;
}

static int get_diff_stats_run(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git *g;
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    window win;
    if ((rc = parse_window(g, args, a, &win, err)) != QR_OK) {
        window_release(&win);
        return rc;
    }
    const char *from = qr__git_arg_str(args, a, "from"), *to = qr__git_arg_str(args, a, "to");
    qr_val list;
    bool have_list = arg_get(args, a, "commits", &list) && qr_is_seqcoll(list);
    if (have_list && (from || to)) {
        qr_buf_puts(err, "give either 'from' and 'to' (two commits to compare) or 'commits' (a "
                         "list of commit hashes), not both");
        rc = QR_EINVAL;
    } else if (have_list) {
        rc = diff_commits(ctx, &win, list, a, out, err);
    } else if (from) {
        rc = diff_between(g, &win, from, to, a, out, err);
    } else {
        qr_buf_puts(err, "missing what to compare: give 'from' (and 'to', default HEAD), or "
                         "'commits' (a list of commit hashes)");
        rc = QR_EINVAL;
    }
    window_release(&win);
    return fail_nomem(err, rc);
}

/* ---- the records ---- */

static const char *const merges_values[] = {"include", "exclude", "only", NULL};
static const char *const by_values[] = {"file", "directory", NULL};

/* since/until are checked where they are validated (a query's literal params fail before
 * anything runs, exit 2, rather than in the tool call) */
/* Every git tool runs under its call's request: the history walks and git processes it
 * starts check the request's stop (a cancel, the deadline, a spent budget) through the
 * context's `stop`, which holds it for the length of the call. */
static int with_req(int (*run)(void *, qr_val, qr_arena *, qr_val *, qr_buf *), void *ctx,
                    qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_git_ctx *h = ctx;
    if (!h) /* no host: the tool says so itself */
        return run(ctx, args, a, out, err);
    const qr_stop *prev = h->stop;
    size_t prev_cap = scratch_cap;
    h->stop = &req->stop;
    scratch_cap = qr_req_memory_cap(req, 0);
    int rc = run(ctx, args, a, out, err);
    h->stop = prev;
    scratch_cap = prev_cap;
    return rc;
}

static int get_commits_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    return with_req(get_commits_run, ctx, req, args, a, out, err);
}

static int get_author_stats_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    return with_req(get_author_stats_run, ctx, req, args, a, out, err);
}

static int get_file_stats_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    return with_req(get_file_stats_run, ctx, req, args, a, out, err);
}

static int get_file_history_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    return with_req(get_file_history_run, ctx, req, args, a, out, err);
}

static int get_diff_stats_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    return with_req(get_diff_stats_run, ctx, req, args, a, out, err);
}

static int check_date(const char *s, size_t n, qr_buf *err)
{
    char msg[QR_DATE_ERR_LEN];
    int64_t t;
    if (qr_clock_parse(s, n, &t, msg, sizeof msg) != QR_OK) {
        qr_buf_puts(err, msg);
        return QR_EINVAL;
    }
    return QR_OK;
}

#define P_SINCE                                                                                    \
    {                                                                                              \
        .name = "since", .type = QR_TOOL_STRING, .check = check_date,                              \
        .desc = "only commits from this point on (committer date, as git log --since; with a "     \
                "path, as --since-as-filter): \"2 weeks ago\", \"yesterday\", \"2024-03-01\", "      \
                "ISO-8601, @epoch"                                                                 \
    }
#define P_UNTIL                                                                                    \
    {                                                                                              \
        .name = "until", .type = QR_TOOL_STRING, .check = check_date,                              \
        .desc = "only commits up to this point (committer date, as git log --until); same "        \
                "forms as since"                                                                   \
    }
#define P_AUTHOR                                                                                   \
    {                                                                                              \
        .name = "author", .type = QR_TOOL_STRING,                                                  \
        .desc = "only commits whose author name or email contains this (case-insensitive; "        \
                ".mailmap applied)",                                                               \
        .brief = "name or email, a case-insensitive part of it (.mailmap applied)"                 \
    }
#define P_PATH                                                                                     \
    {                                                                                              \
        .name = "path", .type = QR_TOOL_STRING,                                                    \
        .desc = "only commits changing this git pathspec (from the repository root): a file, "    \
                "a directory, a glob like '*.c' whose '*' also matches '/', or git's magic "       \
                "':(icase)', ':(glob)' ('**' crosses directories), ':(literal)', ':!' / "          \
                "':(exclude)' (everything but); a path shown quoted (\"caf\\351.txt\") is "         \
                "taken back as such; line counts cover the matching files",                        \
        .brief = "a git pathspec from the root: a file, a directory, a glob ('*' also "           \
                 "matches '/'), ':(icase)', ':!' (everything but); line counts cover the "        \
                 "matching files"                                                                  \
    }
#define P_REF                                                                                      \
    {                                                                                              \
        .name = "ref", .type = QR_TOOL_STRING, .def = "\"HEAD\"",                                  \
        .desc = "where the history starts: a branch, tag, commit or revision, or a range as "      \
                "git log takes one: 'A..B' (in B, not in A), 'A...B' (in either, not both), "     \
                "'^A B' (an empty side of '..' is HEAD)"                                           \
    }
#define P_MERGES                                                                                   \
    {                                                                                              \
        .name = "merges", .type = QR_TOOL_STRING, .def = "\"include\"",                            \
        .enum_values = merges_values,                                                              \
        .desc = "merge commits: include them, exclude them, or only them"                          \
    }
#define P_FIRST_PARENT                                                                             \
    {                                                                                              \
        .name = "first_parent", .type = QR_TOOL_BOOLEAN, .def = "false",                           \
        .desc = "follow only the first parent of merges (git log --first-parent); merges then "    \
                "carry their diff against it"                                                      \
    }
#define P_GREP                                                                                     \
    {                                                                                              \
        .name = "grep", .type = QR_TOOL_STRING,                                                    \
        .desc = "only commits whose message matches this regular expression (PCRE2, "              \
                "case-insensitive)"                                                                \
    }
#define P_REPOS                                                                                    \
    {                                                                                              \
        .name = "repos", .type = QR_TOOL_ARRAY, .items = QR_TOOL_STRING,                           \
        .desc = "ask these repositories of the shared statistics index instead of this one: "      \
                "their names or ids, or [\"all\"]; each row then names its :repo (needs "          \
                "QUARRY_DATABASE_URL; the history of each repository's HEAD, without ref, "       \
                "first_parent or grep)",                                                           \
        .brief = "other repositories of the shared index (names, or [\"all\"]); rows get :repo"  \
    }
#define P_LIMIT(what)                                                                              \
    {                                                                                              \
        .name = "limit", .type = QR_TOOL_INTEGER, .has_min = true, .min = 1,                       \
        .desc = "at most this many " what "; none: all of them"                                    \
    }

static const qr_tool_param get_commits_params[] = {
    P_SINCE,
    P_UNTIL,
    P_AUTHOR,
    P_PATH,
    P_REF,
    P_LIMIT("commits, newest first"),
    P_GREP,
    P_MERGES,
    P_FIRST_PARENT,
    {.name = "with_paths",
     .type = QR_TOOL_BOOLEAN,
     .def = "false",
     .desc = "add :paths, each changed file with its additions, deletions and status"},
    P_REPOS,
    {.name = NULL},
};

/* the columns a table of its rows keeps when the terminal is narrow (issue 24) */
static const char *const get_commits_tool_columns[] = {
    "short_hash", "subject", "author", "date", "additions", "deletions", NULL};

static const qr_tool get_commits_tool = {
    .name = "get_commits",
    .summary = "List the commits of a history window, newest first, with their line "
               "statistics (as git log --numstat --no-renames counts them).",
    .params = get_commits_params,
    .result = "a vector of {:hash :short_hash :author :email :date :timestamp :subject "
              ":message :parents :files :additions :deletions} (+ :paths [{:path "
              ":additions :deletions :status}] with with_paths); merges carry 0 files unless "
              "first_parent",
    .result_schema = "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
                     "\"hash\": {\"type\": \"string\"}, \"short_hash\": {\"type\": \"string\"}, "
                     "\"author\": {\"type\": \"string\"}, \"email\": {\"type\": \"string\"}, "
                     "\"date\": {\"type\": \"string\"}, \"timestamp\": {\"type\": \"integer\"}, "
                     "\"subject\": {\"type\": \"string\"}, \"message\": {\"type\": \"string\"}, "
                     "\"parents\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}, "
                     "\"files\": {\"type\": \"integer\"}, \"additions\": {\"type\": \"integer\"}, "
                     "\"deletions\": {\"type\": \"integer\"}, "
                     "\"paths\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}}}}}",
    .handler = get_commits_fn,
    .caps = QR_TOOL_READS_REPO,
    .columns = get_commits_tool_columns,
};

static const qr_tool_param get_author_stats_params[] = {
    P_SINCE,  P_UNTIL,        P_AUTHOR, P_PATH,         P_REF, P_LIMIT("authors, most commits first"),
    P_MERGES, P_FIRST_PARENT, P_REPOS,  {.name = NULL},
};

/* the columns a table of its rows keeps when the terminal is narrow (issue 24) */
static const char *const get_author_stats_tool_columns[] = {
    "author", "commits", "additions", "deletions", "files", NULL};

static const qr_tool get_author_stats_tool = {
    .name = "get_author_stats",
    .summary = "Count each author's commits and changed lines in a history window (authors "
               "by email after .mailmap, its case ignored; the name shown is the latest one).",
    .params = get_author_stats_params,
    .result = "a vector of {:author :email :commits :additions :deletions :files :first "
              ":last}, most commits first; :files counts distinct files, :first and :last "
              "are author dates",
    .result_schema =
        "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
        "\"author\": {\"type\": \"string\"}, \"email\": {\"type\": \"string\"}, "
        "\"commits\": {\"type\": \"integer\"}, \"additions\": {\"type\": \"integer\"}, "
        "\"deletions\": {\"type\": \"integer\"}, \"files\": {\"type\": \"integer\"}, "
        "\"first\": {\"type\": \"string\"}, \"last\": {\"type\": \"string\"}}}}",
    .handler = get_author_stats_fn,
    .caps = QR_TOOL_READS_REPO,
    .columns = get_author_stats_tool_columns,
};

static const qr_tool_param get_file_stats_params[] = {
    P_SINCE,  P_UNTIL,        P_AUTHOR, P_PATH,         P_REF, P_LIMIT("files, most changed first"),
    P_MERGES, P_FIRST_PARENT, P_REPOS,
    {.name = "by", .type = QR_TOOL_STRING, .def = "\"file\"", .enum_values = by_values,
     .desc = "rank files, or directories: each directory one level below path when path is "
             "a directory (the top-level ones otherwise), its :commits the commits that "
             "changed something in it, each counted once; files outside any such directory "
             "are left out"},
    {.name = NULL},
};

/* the columns a table of its rows keeps when the terminal is narrow (issue 24) */
static const char *const get_file_stats_tool_columns[] = {
    "path", "commits", "additions", "deletions", "authors", NULL};

static const qr_tool get_file_stats_tool = {
    .name = "get_file_stats",
    .summary = "Rank the files changed in a history window by how many commits changed "
               "them, with their changed lines and authors.",
    .params = get_file_stats_params,
    .result = "a vector of {:path :commits :additions :deletions :authors :last}, most "
              "commits first; :authors counts distinct authors (an email whatever its ASCII "
              "case, as get_author_stats), :last is the latest author date",
    .result_schema =
        "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
        "\"path\": {\"type\": \"string\"}, \"commits\": {\"type\": \"integer\"}, "
        "\"additions\": {\"type\": \"integer\"}, \"deletions\": {\"type\": \"integer\"}, "
        "\"authors\": {\"type\": \"integer\"}, \"last\": {\"type\": \"string\"}}}}",
    .handler = get_file_stats_fn,
    .caps = QR_TOOL_READS_REPO,
    .columns = get_file_stats_tool_columns,
};

static const qr_tool_param get_file_history_params[] = {
    {.name = "path",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "the file (from the repository root); earlier names are followed across "
             "renames, as git log --follow does; a pattern (a glob, ':(icase)', ':!') "
             "gives every matching file, one row per commit and file, without following "
             "renames (git follows only one file)",
     .brief = "the file, followed across renames; a pattern gives every matching file"},
    P_SINCE,
    P_UNTIL,
    P_AUTHOR,
    P_REF,
    P_LIMIT("commits, newest first"),
    P_GREP,
    P_MERGES,
    P_FIRST_PARENT,
    {.name = NULL},
};

/* the columns a table of its rows keeps when the terminal is narrow (issue 24) */
static const char *const get_file_history_tool_columns[] = {
    "short_hash", "subject", "path", "author", "date", "additions", "deletions", NULL};

static const qr_tool get_file_history_tool = {
    .name = "get_file_history",
    .summary = "List the commits that changed one file, newest first, following renames "
               "(git log --follow) and with the merges git log -- FILE lists for it, with "
               "the file's name and line counts in each.",
    .params = get_file_history_params,
    .result = "a vector of {:hash :short_hash :author :email :date :timestamp :subject "
              ":message :parents :path :status :additions :deletions} (+ :old_path where "
              "the file was renamed); the counts are the file's own",
    .result_schema =
        "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
        "\"hash\": {\"type\": \"string\"}, \"short_hash\": {\"type\": \"string\"}, "
        "\"author\": {\"type\": \"string\"}, \"email\": {\"type\": \"string\"}, "
        "\"date\": {\"type\": \"string\"}, \"timestamp\": {\"type\": \"integer\"}, "
        "\"subject\": {\"type\": \"string\"}, \"message\": {\"type\": \"string\"}, "
        "\"parents\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}, "
        "\"path\": {\"type\": \"string\"}, "
        "\"old_path\": {\"type\": \"string\"}, \"status\": {\"type\": \"string\"}, "
        "\"additions\": {\"type\": \"integer\"}, \"deletions\": {\"type\": \"integer\"}}}}",
    .handler = get_file_history_fn,
    .caps = QR_TOOL_READS_REPO,
    .columns = get_file_history_tool_columns,
};

static const qr_tool_param get_diff_stats_params[] = {
    {.name = "from",
     .type = QR_TOOL_STRING,
     .desc = "the commit to compare from (a branch, tag, commit or revision), or a range "
             "without 'to': 'A..B' (git diff A B) or 'A...B' (from their merge base to B)"},
    {.name = "to",
     .type = QR_TOOL_STRING,
     .desc = "the commit to compare to; default HEAD when from is given"},
    {.name = "commits",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .desc = "instead of from/to: commits whose own changes are summed (e.g. the :hash of "
             "get_commits results)",
     .brief = "instead of from/to: commits whose own changes are summed"},
    {.name = "path",
     .type = QR_TOOL_STRING,
     .desc = "count only files matching this git pathspec: a file, a directory, a glob or "
             "git's magic (':(icase)', ':(glob)', ':!')",
     .brief = "count only files matching this pathspec"},
    {.name = NULL},
};

static const qr_tool get_diff_stats_tool = {
    .name = "get_diff_stats",
    .summary = "Changed lines per file and in total, between two commits (from, to) or "
               "summed over a list of commits (commits).",
    .params = get_diff_stats_params,
    .result = "from/to: {:from :to :files :additions :deletions :paths [{:path :additions "
              ":deletions :status}]}; commits: {:files :additions :deletions :paths [{:path "
              ":additions :deletions :commits}] :commits {hash {:files :additions "
              ":deletions}}}",
    .result_schema = "{\"type\": \"object\", \"properties\": {"
                     "\"files\": {\"type\": \"integer\"}, \"additions\": {\"type\": "
                     "\"integer\"}, \"deletions\": {\"type\": \"integer\"}, "
                     "\"paths\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}}, "
                     "\"commits\": {\"type\": \"object\"}}}",
    .handler = get_diff_stats_fn,
    .caps = QR_TOOL_READS_REPO,
};

extern const qr_tool qr__git_get_diff_tool; /* diff_tool.c: a change's patch text */
extern const qr_tool qr__git_get_tags_tool; /* tags_tool.c: the tags, newest first */

const qr_tool *const qr_git_tools[] = {
    &get_commits_tool,      &get_author_stats_tool, &get_file_stats_tool,
    &get_file_history_tool, &get_diff_stats_tool,   &qr__git_get_diff_tool,
    &qr__git_get_tags_tool,
    NULL,
};
