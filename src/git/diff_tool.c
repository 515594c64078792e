/*
 * diff_tool.c: get_diff, the patch text of a change: one commit against its first parent
 * (a root commit against the empty tree), or between two commits (from, to, or a range
 * 'A..B' / 'A...B' as get_diff_stats reads it), split per file and paged. The other git
 * tools give line counts; a review needs the lines themselves, removed ones included.
 *
 * Design: `git diff` runs as a child (quarry/proc.h: no shell, the scrubbed environment
 * and qr_proc_git_env, the call's stop), with the repository's own diff drivers, textconv
 * and colour switched off and the a/ b/ prefixes fixed, so the text is the same whatever
 * the user's configuration says. The path parameter is read by the same pathspec parser
 * as the other git tools (a file, a directory, a glob, git's magic) and handed to git in
 * its canonical form. Renames are not paired (--no-renames, as get_diff_stats counts).
 * Each file is one row {:path :status :additions :deletions :patch}; a page is up to
 * `limit` files from `offset` and at most `max_chars` characters of patch text (at least
 * one file), and says where the next page starts (:next_offset, nil at the end); a file
 * whose patch alone is longer is cut at a line end (:cut true: narrow `path` to it and
 * ask with a larger max_chars, or read the file).
 * Rejected: libgit2's patch printer (a second diff engine whose text can differ from
 * git's for the same change); one text blob with a character offset (a page would end
 * inside a file and the model would have to find the file's header again).
 */
#include "git_int.h"

#include "quarry/proc.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>

/* The empty tree: what a root commit is compared with. */
#define EMPTY_TREE "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

static int64_t arg_int(qr_val args, qr_arena *a, const char *name, int64_t def)
{
    qr_val v;
    if (args.t != QR_T_MAP || !qr_map_get(args, qr_kw_cstr(a, name), &v) || v.t != QR_T_INT)
        return def;
    return v.i;
}

/* The two trees to compare, as hex ids (or EMPTY_TREE), into from/to. */
static int resolve_pair(qr_git *g, qr_val args, qr_arena *a, char *from, char *to,
                        qr_buf *err)
{
    const char *commit = qr__git_arg_str(args, a, "commit"), *f = qr__git_arg_str(args, a, "from"),
               *t = qr__git_arg_str(args, a, "to");
    git_oid of, ot;
    bool unborn = false;
    int rc;
    if (commit && (f || t)) {
        qr_buf_puts(err, "give either 'commit' or 'from' (and 'to'), not both");
        return QR_EINVAL;
    }
    if (commit) {
        if ((rc = qr__git_resolve(g, commit, &ot, &unborn, err)) != QR_OK)
            return rc;
        if (unborn) {
            qr_buf_printf(err, "unknown ref '%s': the repository has no commits yet", commit);
            return QR_EINVAL;
        }
        qr_commit_info ci;
        if ((rc = qr__git_commit_info(g, &ot, a, &ci, err)) != QR_OK)
            return rc;
        if (ci.nparents)
            git_oid_tostr(from, GIT_OID_HEXSZ + 1, &ci.parents[0]);
        else
            memcpy(from, EMPTY_TREE, sizeof EMPTY_TREE);
        git_oid_tostr(to, GIT_OID_HEXSZ + 1, &ot);
        return QR_OK;
    }
    if (!f) {
        qr_buf_puts(err, "missing what to compare: give 'commit' (its own change), or 'from' "
                         "(and 'to', default HEAD), or a range 'A..B' as 'from'");
        return QR_EINVAL;
    }
    if (!t && strstr(f, "..")) {
        qr_revs r;
        if ((rc = qr__git_resolve_revs(g, f, &r, err)) != QR_OK)
            return rc;
        bool sym = strstr(f, "...") != NULL;
        if (r.npos != (sym ? 2u : 1u) || r.nneg != 1) {
            qr_buf_printf(err,
                          sym ? "range '%s': the two sides have no merge base; give 'from' and "
                                "'to' instead"
                              : "range '%s': give one range A..B or A...B as 'from'",
                          f);
            return QR_EINVAL;
        }
        git_oid_tostr(from, GIT_OID_HEXSZ + 1, &r.neg[0]);
        git_oid_tostr(to, GIT_OID_HEXSZ + 1, &r.pos[r.npos - 1]);
        return QR_OK;
    }
    if (!t)
        t = "HEAD";
    const char *names[2] = {f, t};
    git_oid *ids[2] = {&of, &ot};
    for (int i = 0; i < 2; i++) {
        if ((rc = qr__git_resolve(g, names[i], ids[i], &unborn, err)) != QR_OK)
            return rc;
        if (unborn) {
            qr_buf_printf(err, "unknown ref '%s': the repository has no commits yet", names[i]);
            return QR_EINVAL;
        }
    }
    git_oid_tostr(from, GIT_OID_HEXSZ + 1, &of);
    git_oid_tostr(to, GIT_OID_HEXSZ + 1, &ot);
    return QR_OK;
}

/* One file's part of git diff's output: [s, s + n). */
typedef struct fpart {
    const char *s;
    size_t n;
} fpart;

/* The path a file's part names: the +++ line (the --- line for a deletion), else the
 * `diff --git a/X b/X` line (binary or mode-only changes); quoted paths unquoted. */
static const char *part_path(qr_arena *a, const fpart *p, char *status)
{
    const char *plus = NULL, *minus = NULL;
    size_t pl = 0, ml = 0;
    *status = 'M';
    for (const char *q = p->s, *end = p->s + p->n; q < end;) {
        const char *e = memchr(q, '\n', (size_t)(end - q));
        size_t l = e ? (size_t)(e - q) : (size_t)(end - q);
        if (l > 4 && !memcmp(q, "@@ ", 3))
            break;
        if (l >= 13 && !memcmp(q, "new file mode", 13))
            *status = 'A';
        else if (l >= 17 && !memcmp(q, "deleted file mode", 17))
            *status = 'D';
        else if (l > 4 && !memcmp(q, "+++ ", 4))
            plus = q + 4, pl = l - 4;
        else if (l > 4 && !memcmp(q, "--- ", 4))
            minus = q + 4, ml = l - 4;
        q = e ? e + 1 : end;
    }
    const char *s = NULL;
    size_t n = 0;
    if (plus && !(pl == 9 && !memcmp(plus, "/dev/null", 9)))
        s = plus, n = pl;
    else if (minus && !(ml == 9 && !memcmp(minus, "/dev/null", 9)))
        s = minus, n = ml;
    if (!s) { /* diff --git a/X b/X: the second half */
        const char *e = memchr(p->s, '\n', p->n);
        size_t l = e ? (size_t)(e - p->s) : p->n;
        const char *b = NULL;
        for (size_t i = 11; i + 3 <= l; i++)
            if (!memcmp(p->s + i, " b/", 3) || !memcmp(p->s + i, " \"b/", 4))
                b = p->s + i + 1;
        if (!b)
            return qr_arena_strndup(a, "?", 1);
        s = b;
        n = (size_t)(p->s + l - b);
    }
    const char *raw = qr_arena_strndup(a, s, n);
    if (!raw)
        return NULL;
    if (raw[0] == '"') {
        const char *u;
        qr_buf e;
        qr_buf_init(&e);
        int rc = qr__path_unquote(a, raw, &u, &e);
        qr_buf_release(&e);
        if (rc == QR_OK)
            raw = u;
    }
    if ((raw[0] == 'a' || raw[0] == 'b') && raw[1] == '/')
        raw += 2;
    return raw;
}

static void count_lines(const fpart *p, int64_t *adds, int64_t *dels)
{
    bool hunks = false;
    for (const char *q = p->s, *end = p->s + p->n; q < end;) {
        const char *e = memchr(q, '\n', (size_t)(end - q));
        size_t l = e ? (size_t)(e - q) : (size_t)(end - q);
        if (l >= 3 && !memcmp(q, "@@ ", 3))
            hunks = true;
        else if (hunks && l && *q == '+')
            (*adds)++;
        else if (hunks && l && *q == '-')
            (*dels)++;
        q = e ? e + 1 : end;
    }
}

static int get_diff_run(qr_git_ctx *h, const qr_stop *stop, qr_val args, qr_arena *a,
                        qr_val *out, qr_buf *err)
{
    qr_git *g;
    int hrc = qr__git_host(h, &g, err);
    if (hrc != QR_OK)
        return hrc;
    char from[GIT_OID_HEXSZ + 1], to[GIT_OID_HEXSZ + 1];
    int rc = resolve_pair(g, args, a, from, to, err);
    if (rc != QR_OK)
        return rc;
    const char *spec = NULL, *path = qr__git_arg_str(args, a, "path");
    if (path) {
        qr_pathspec ps;
        if ((rc = qr__pathspec_parse(&ps, path, qr_git_workdir(g), a, err)) != QR_OK)
            return rc;
        if (!qr__pathspec_all(&ps) && (rc = qr__pathspec_to_git(&ps, a, &spec)) != QR_OK)
            return rc;
    }
    int64_t offset = arg_int(args, a, "offset", 0), limit = arg_int(args, a, "limit", 20);
    int64_t max_chars = arg_int(args, a, "max_chars", 20000);
    const char *argv[] = {"git",
                          "-C",
                          qr__git_rundir(g),
                          "--no-pager",
                          "-c",
                          "core.quotePath=false",
                          "diff",
                          "--no-color",
                          "--no-ext-diff",
                          "--no-textconv",
                          "--no-renames",
                          "--diff-algorithm=myers",
                          "--src-prefix=a/",
                          "--dst-prefix=b/",
                          from,
                          to,
                          "--",
                          spec,
                          NULL};
    qr_proc_opts po = {.argv = argv, .env_add = qr_proc_git_env, .stop = stop};
    qr_proc_result pr;
    qr_proc_result_init(&pr);
    rc = qr_proc_run(&po, &pr);
    if (rc == QR_ESTOPPED) {
        qr_buf_puts(err, "git diff was ");
        goto done;
    }
    if (rc != QR_OK || pr.status != 0) {
        qr_buf_printf(err, "git diff failed%s%.*s", pr.err.len ? ": " : "",
                      (int)(pr.err.len > 200 ? 200 : pr.err.len), pr.err.p ? pr.err.p : "");
        while (err->len && (err->p[err->len - 1] == '\n'))
            err->p[--err->len] = '\0';
        rc = rc == QR_OK ? QR_EIO : rc;
        goto done;
    }
    /* the files: each part starts at a `diff --git ` line */
    const char *text = pr.out.p ? pr.out.p : "";
    size_t n = pr.out.len, nparts = 0, cap = 16;
    fpart *parts = qr_arena_alloc(a, cap * sizeof *parts);
    for (size_t i = 0; parts && i < n;) {
        const char *e = memchr(text + i, '\n', n - i);
        size_t next = e ? (size_t)(e - text) + 1 : n;
        if (n - i >= 11 && !memcmp(text + i, "diff --git ", 11)) {
            if (nparts == cap) {
                parts = qr_arena_realloc(a, parts, cap * sizeof *parts, 2 * cap * sizeof *parts);
                cap *= 2;
                if (!parts)
                    break;
            }
            parts[nparts++] = (fpart){text + i, 0};
        }
        if (nparts)
            parts[nparts - 1].n = next - (size_t)(parts[nparts - 1].s - text);
        i = next;
    }
    if (!parts) {
        rc = QR_ENOMEM;
        goto done;
    }
    qr_val kpath = qr_kw_cstr(a, "path"), kstatus = qr_kw_cstr(a, "status"),
           kadd = qr_kw_cstr(a, "additions"), kdel = qr_kw_cstr(a, "deletions"),
           kpatch = qr_kw_cstr(a, "patch"), kcut = qr_kw_cstr(a, "cut");
    qr_vecb vb;
    qr_vecb_init(&vb, a, 8);
    qr_mapb mb;
    qr_mapb_init(&mb, a, 6);
    size_t used = 0, i = offset > 0 ? (size_t)offset : 0;
    for (; i < nparts && (int64_t)(i - (size_t)offset) < limit; i++) {
        const fpart *p = &parts[i];
        if (used && used + p->n > (size_t)max_chars)
            break; /* the next page starts with this file */
        char status;
        const char *fp = part_path(a, p, &status);
        int64_t adds = 0, dels = 0;
        count_lines(p, &adds, &dels);
        size_t take = p->n;
        bool cut = false;
        if (take > (size_t)max_chars) { /* alone and too long: cut at a line end */
            take = (size_t)max_chars;
            while (take > 0 && p->s[take - 1] != '\n')
                take--;
            if (!take)
                take = (size_t)max_chars;
            cut = true;
        }
        char st[2] = {status, '\0'};
        qr_mapb_put(&mb, kpath, qr_str_cstr(a, fp ? fp : "?"));
        qr_mapb_put(&mb, kstatus, qr_str_cstr(a, st));
        qr_mapb_put(&mb, kadd, qr_int(adds));
        qr_mapb_put(&mb, kdel, qr_int(dels));
        qr_mapb_put(&mb, kpatch, qr_str_new(a, p->s, take));
        if (cut)
            qr_mapb_put(&mb, kcut, qr_bool(true));
        qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
        qr_mapb_reuse(&mb);
        used += take;
    }
    qr_mapb mr;
    qr_mapb_init(&mr, a, 6);
    qr_mapb_put(&mr, qr_kw_cstr(a, "from"), qr_str_cstr(a, from));
    qr_mapb_put(&mr, qr_kw_cstr(a, "to"), qr_str_cstr(a, to));
    qr_mapb_put(&mr, qr_kw_cstr(a, "files"), qr_int((int64_t)nparts));
    qr_mapb_put(&mr, qr_kw_cstr(a, "offset"), qr_int(offset));
    qr_mapb_put(&mr, qr_kw_cstr(a, "next_offset"), i < nparts ? qr_int((int64_t)i) : qr_nil());
    qr_mapb_put(&mr, qr_kw_cstr(a, "patches"), qr_vecb_finish(&vb, QR_T_VEC));
    *out = qr_mapb_finish(&mr, QR_T_MAP);
    if (a->exhausted || a->too_deep) {
        qr_buf_puts(err, "the result does not fit in the memory limit; give a smaller "
                         "max_chars or limit, or narrow 'path'");
        rc = QR_ENOMEM;
    }
done:
    qr_proc_result_clear(&pr);
    return rc;
}

static int get_diff_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                       qr_buf *err)
{
    qr_git_ctx *h = ctx;
    int rc = get_diff_run(h, &req->stop, args, a, out, err);
    if (rc == QR_ESTOPPED)
        qr_req_fail(req, err);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory");
    return rc;
}

static const qr_tool_param get_diff_params[] = {
    {.name = "commit",
     .type = QR_TOOL_STRING,
     .desc = "a commit whose own change is shown (against its first parent; a root commit "
             "against the empty tree)"},
    {.name = "from",
     .type = QR_TOOL_STRING,
     .desc = "instead of commit: the commit to compare from, or a range 'A..B' / 'A...B'"},
    {.name = "to", .type = QR_TOOL_STRING, .desc = "the commit to compare to; default HEAD"},
    {.name = "path",
     .type = QR_TOOL_STRING,
     .desc = "only files matching this git pathspec: a file, a directory, a glob or git's "
             "magic (':(icase)', ':(glob)', ':!')"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .def = "0",
     .has_min = true,
     .min = 0,
     .desc = "the first file of the page (the :next_offset of the page before)"},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .def = "20",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 1000,
     .desc = "files per page at most"},
    {.name = "max_chars",
     .type = QR_TOOL_INTEGER,
     .def = "20000",
     .has_min = true,
     .min = 200,
     .has_max = true,
     .max = 1000000,
     .desc = "characters of patch text per page at most (a longer file is cut at a line "
             "end and marked :cut)"},
    {.name = NULL},
};

extern const qr_tool qr__git_get_diff_tool; /* registered in tools_git.c */
const qr_tool qr__git_get_diff_tool = {
    .name = "get_diff",
    .summary = "The patch text (git diff) of one commit against its first parent, or between "
               "two commits, one entry per file, paged.",
    .params = get_diff_params,
    .result = "{:from :to :files :offset :next_offset :patches [{:path :status :additions "
              ":deletions :patch}]} (:cut true on a file cut at max_chars); :next_offset is "
              "nil on the last page",
    .result_schema =
        "{\"type\": \"object\", \"properties\": {"
        "\"from\": {\"type\": \"string\"}, \"to\": {\"type\": \"string\"}, "
        "\"files\": {\"type\": \"integer\"}, \"offset\": {\"type\": \"integer\"}, "
        "\"next_offset\": {\"type\": [\"integer\", \"null\"]}, "
        "\"patches\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
        "\"path\": {\"type\": \"string\"}, \"status\": {\"type\": \"string\"}, "
        "\"additions\": {\"type\": \"integer\"}, \"deletions\": {\"type\": \"integer\"}, "
        "\"patch\": {\"type\": \"string\"}, \"cut\": {\"type\": \"boolean\"}}}}}}",
    .handler = get_diff_fn,
    .caps = QR_TOOL_READS_REPO,
};
