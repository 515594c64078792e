/*
 * repo.c: the git repository as libgit2 opens it: discovery, ref resolution, commit
 * metadata (author through .mailmap, subject as git's %s), shallow boundaries, git's
 * pathspecs, and the revision walk behind every history tool.
 *
 * Design: the walk is git's own algorithm (revision.c, get_revision_1 without --topo-order)
 * rewritten over libgit2 commit objects, so that the commits, their order and the effect
 * of every filter are the ones `git log` gives:
 *   - a queue ordered by committer date, newest first, ties in insertion order (git's
 *     commit_list_insert_by_date); each commit enters once;
 *   - --since cuts the walk: a commit older than it is dropped with its parents (so a
 *     parent with a newer, out-of-order date is not reached through it), --until filters;
 *     with a path, --since filters too (git log --since-as-filter): git's cut there loses
 *     whole windows of real histories whose dates are out of order;
 *   - with a path, history simplification as git does it by default: a commit whose tree
 *     is the same as a parent's within the pathspec ("TREESAME") is hidden, and a merge
 *     TREESAME to one parent is followed through that parent only; a root commit is
 *     TREESAME when the pathspec matches nothing in it;
 *   - first_parent follows first parents only; merges filters on the real parent count;
 *     a shallow clone's boundary commits have no parents (as git grafts them).
 * TREESAME is decided by a merge-join of the two trees in git's entry order that skips
 * equal subtrees and subtrees the pathspec cannot reach, and stops at the first change.
 * The walk can start from every ref at once (git log --all, for `quarry index`), and can
 * read each commit's header fields from the index's commit graph instead of the commit
 * objects when it needs no trees or messages (no path, no grep): the same queue, the same
 * rules, only another source for dates and parents; commits the graph lacks are read from
 * the pack and added to it, and a graph that fails makes the walk start again on the pack.
 * Reading 20,000 commit objects costs 100 to 130 ms (inflating them is most of it); the
 * graph, about 10 ms.
 *
 * Rejected: libgit2's revwalk (a binary heap: equal dates come out in another order than
 * git's, no history simplification, and no shallow grafts in 1.5); git_diff_tree_to_tree
 * for TREESAME (builds a whole delta list to answer a yes/no question); running `git log`
 * for the walk (a process per query where the 50 newest commits take a millisecond here);
 * a second walk written for the graph (two copies of git's rules to keep in step); caching
 * the list of reachable commits per ref tip (it serves only whole-history windows, where
 * the graph serves every window without a path).
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include "git_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <iconv.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- library setup and errors ---- */

static void libgit2_options(void)
{
    /* objects come from the repository's own store; hashing each one again costs about
     * 30% of a walk */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

static void libgit2_setup(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* repositories open on several threads */
    git_libgit2_init();
    pthread_once(&once, libgit2_options);
}

static const char *git_msg(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown error";
}

static char *dup_trim_slash(const char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        n--;
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

int qr_git_open(const char *path, qr_git **out, qr_buf *err)
{
    *out = NULL;
    if (!path || !*path)
        path = ".";
    if (!qr__git_load(err))
        return QR_EIO;
    libgit2_setup();
    qr_git *g = calloc(1, sizeof *g);
    if (!g) {
        git_libgit2_shutdown();
        return QR_ENOMEM;
    }
    int rc = git_repository_open_ext(&g->repo, path, 0, NULL);
    if (rc != 0) {
        char abs[PATH_MAX];
        const char *shown = realpath(path, abs) ? abs : path;
        if (rc == GIT_ENOTFOUND)
            qr_buf_printf(err,
                          "not a git repository: '%s' (nor any parent directory); run "
                          "inside a repository or give --repo DIR",
                          shown);
        else
            qr_buf_printf(err, "cannot open the git repository at '%s': %s", shown, git_msg());
        qr_git_free(g);
        return QR_EINVAL;
    }
    const char *common = git_repository_commondir(g->repo);
    g->gitdir = dup_trim_slash(common ? common : git_repository_path(g->repo));
    const char *wd = git_repository_workdir(g->repo);
    g->workdir = wd ? dup_trim_slash(wd) : NULL;
    if (!g->gitdir || (wd && !g->workdir)) {
        qr_git_free(g);
        return QR_ENOMEM;
    }
    *out = g;
    return QR_OK;
}

void qr_git_free(qr_git *g)
{
    if (!g)
        return;
    qr__mailmap_free(g->mailmap);
    git_repository_free(g->repo);
    free(g->gitdir);
    free(g->workdir);
    free(g->shallow);
    free(g);
    git_libgit2_shutdown();
}

const char *qr_git_dir(const qr_git *g)
{
    return g->gitdir;
}

const char *qr_git_workdir(const qr_git *g)
{
    return g->workdir;
}

const char *qr__git_rundir(const qr_git *g)
{
    return g->workdir ? g->workdir : g->gitdir;
}

/* ---- shallow boundaries ---- */

static int oid_cmp(const void *a, const void *b)
{
    return git_oid_cmp(a, b);
}

static void load_shallow(qr_git *g)
{
    g->shallow_loaded = true;
    qr_buf path;
    qr_buf_init(&path);
    qr_buf_printf(&path, "%s/shallow", g->gitdir);
    char *text = NULL;
    size_t len = 0;
    if (path.failed || qr_read_file(path.p, 0, &text, &len) != QR_OK) {
        qr_buf_release(&path);
        return;
    }
    qr_buf_release(&path);
    size_t cap = len / 41 + 1, n = 0;
    g->shallow = malloc(cap * sizeof *g->shallow);
    for (char *p = text; g->shallow && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (n < cap && strlen(p) == GIT_OID_HEXSZ && git_oid_fromstr(&g->shallow[n], p) == 0)
            n++;
        if (!nl)
            break;
        p = nl + 1;
    }
    free(text);
    g->nshallow = g->shallow ? n : 0;
    if (n > 1)
        qsort(g->shallow, n, sizeof *g->shallow, oid_cmp);
}

bool qr__git_is_shallow(qr_git *g, const git_oid *oid)
{
    if (!g->shallow_loaded)
        load_shallow(g);
    return g->nshallow && bsearch(oid, g->shallow, g->nshallow, sizeof *g->shallow, oid_cmp);
}

/* ---- refs ---- */

int qr__git_resolve(qr_git *g, const char *ref, git_oid *out, bool *unborn, qr_buf *err)
{
    *unborn = false;
    if (!ref || !*ref)
        ref = "HEAD";
    git_object *obj = NULL, *commit = NULL;
    int rc = git_revparse_single(&obj, g->repo, ref);
    if (rc != 0 && !strcmp(ref, "HEAD") && git_repository_head_unborn(g->repo) == 1) {
        *unborn = true;
        return QR_OK;
    }
    if (rc != 0) {
        qr_buf_printf(err,
                      "unknown ref '%s': not a branch, tag, commit id or revision of this "
                      "repository",
                      ref);
        return QR_EINVAL;
    }
    rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
    git_object_free(obj);
    if (rc != 0) {
        qr_buf_printf(err, "ref '%s' does not name a commit", ref);
        return QR_EINVAL;
    }
    git_oid_cpy(out, git_object_id(commit));
    git_object_free(commit);
    return QR_OK;
}

/* One side of a range: "" means HEAD, as in git. */
static int resolve_side(qr_git *g, const char *s, size_t n, const char *whole, git_oid *out,
                        qr_buf *err)
{
    char name[512];
    if (n >= sizeof name) {
        qr_buf_printf(err, "unknown ref in '%s': a revision is at most %zu bytes", whole,
                      sizeof name - 1);
        return QR_EINVAL;
    }
    memcpy(name, n ? s : "HEAD", n ? n : 4);
    name[n ? n : 4] = '\0';
    bool unborn;
    int rc = qr__git_resolve(g, name, out, &unborn, err);
    if (rc == QR_OK && unborn) {
        qr_buf_printf(err, "unknown ref 'HEAD' in '%s': the repository has no commits yet", whole);
        return QR_EINVAL;
    }
    return rc;
}

static int revs_add(git_oid *arr, size_t *n, const git_oid *oid, const char *whole, qr_buf *err)
{
    if (*n == QR_REVS_MAX) {
        qr_buf_printf(err, "ref '%s' names more than %d revisions", whole, QR_REVS_MAX);
        return QR_EINVAL;
    }
    git_oid_cpy(&arr[(*n)++], oid);
    return QR_OK;
}

int qr__git_resolve_revs(qr_git *g, const char *ref, qr_revs *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    if (!ref || !*ref)
        ref = "HEAD";
    if (!strstr(ref, "..")) {
        /* one revision, unless it only reads as a list ("^A B"); a revision may hold
         * spaces and '^' ("HEAD@{1 day ago}", "main^2") */
        git_oid oid;
        size_t mark = err->len;
        int rc = qr__git_resolve(g, ref, &oid, &out->unborn, err);
        bool list = rc == QR_EINVAL && strpbrk(ref, " \t^");
        if (!list) {
            if (rc == QR_OK && !out->unborn)
                rc = revs_add(out->pos, &out->npos, &oid, ref, err);
            return rc;
        }
        err->len = mark;
        if (err->p)
            err->p[mark] = '\0';
    }
    out->range = true;
    int rc = QR_OK;
    for (const char *p = ref; rc == QR_OK && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, " \t");
        if (!n)
            break;
        const char *dots = NULL;
        for (size_t i = 0; i + 1 < n; i++)
            if (p[i] == '.' && p[i + 1] == '.') {
                dots = p + i;
                break;
            }
        git_oid a, b;
        if (p[0] == '^' && !dots) {
            if ((rc = resolve_side(g, p + 1, n - 1, ref, &a, err)) == QR_OK)
                rc = revs_add(out->neg, &out->nneg, &a, ref, err);
        } else if (dots) {
            bool sym = (size_t)(dots - p) + 2 < n && dots[2] == '.';
            size_t la = (size_t)(dots - p), skip = sym ? 3 : 2;
            const char *rb = dots + skip;
            size_t lb = n - la - skip;
            rc = resolve_side(g, p, la, ref, &a, err);
            if (rc == QR_OK)
                rc = resolve_side(g, rb, lb, ref, &b, err);
            if (rc == QR_OK && sym) {
                /* A...B: what either reaches and not both (their merge bases hidden) */
                git_oidarray bases = {0};
                int mrc = git_merge_bases(&bases, g->repo, &a, &b);
                rc = revs_add(out->pos, &out->npos, &a, ref, err);
                if (rc == QR_OK)
                    rc = revs_add(out->pos, &out->npos, &b, ref, err);
                for (size_t i = 0; rc == QR_OK && mrc == 0 && i < bases.count; i++)
                    rc = revs_add(out->neg, &out->nneg, &bases.ids[i], ref, err);
                git_oidarray_dispose(&bases);
            } else if (rc == QR_OK) {
                rc = revs_add(out->neg, &out->nneg, &a, ref, err);
                if (rc == QR_OK)
                    rc = revs_add(out->pos, &out->npos, &b, ref, err);
            }
        } else {
            if ((rc = resolve_side(g, p, n, ref, &a, err)) == QR_OK)
                rc = revs_add(out->pos, &out->npos, &a, ref, err);
        }
        p += n;
    }
    return rc;
}

/* ---- commit metadata ---- */

static const qr_mailmap *mailmap(qr_git *g)
{
    if (!g->mailmap_loaded) {
        g->mailmap_loaded = true;
        if (qr__mailmap_load(g->repo, &g->mailmap) != QR_OK)
            g->mailmap = NULL;
    }
    return g->mailmap;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* git's %s: skip blank lines, then the lines up to the next blank one, each without its
 * trailing whitespace, joined by one space. */
static const char *subject_of(qr_arena *a, const char *msg, size_t *outlen)
{
    qr_buf b;
    qr_buf_init(&b);
    const char *p = msg;
    bool started = false, first = true;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        size_t t = len;
        while (t && blank(p[t - 1]))
            t--;
        if (t == 0) {
            if (started)
                break;
        } else {
            started = true;
            if (!first)
                qr_buf_putc(&b, ' ');
            qr_buf_append(&b, p, t);
            first = false;
        }
        p += len + (eol ? 1 : 0);
    }
    const char *s = qr_arena_strndup(a, b.p ? b.p : "", b.len);
    *outlen = b.len;
    qr_buf_release(&b);
    return s;
}

/* The commit's declared encoding when git would convert from it (not UTF-8), or NULL. */
static const char *foreign_encoding(git_commit *c)
{
    const char *enc = git_commit_message_encoding(c);
    if (!enc || !*enc || !strcasecmp(enc, "utf-8") || !strcasecmp(enc, "utf8"))
        return NULL;
    return enc;
}

/* s[0..n) converted from enc to UTF-8 (NUL-terminated, in a), as git log shows a commit
 * with an `encoding` header; s itself (copied) when enc is NULL or iconv cannot convert
 * it (an unknown encoding, or bytes invalid in it), as git keeps the original then. */
static char *to_utf8(qr_arena *a, const char *enc, const char *s, size_t n)
{
    if (!enc || !n)
        return qr_arena_strndup(a, s, n);
    iconv_t cd = iconv_open("UTF-8", enc);
    if (cd == (iconv_t)-1)
        return qr_arena_strndup(a, s, n);
    size_t cap = n * 4 + 4, left = cap;
    char *buf = malloc(cap), *o = buf;
    char *in = (char *)s;
    size_t inleft = n;
    bool ok = buf && iconv(cd, &in, &inleft, &o, &left) != (size_t)-1 && inleft == 0 &&
              iconv(cd, NULL, NULL, &o, &left) != (size_t)-1;
    iconv_close(cd);
    char *r = ok ? qr_arena_strndup(a, buf, (size_t)(o - buf)) : qr_arena_strndup(a, s, n);
    free(buf);
    return r;
}

static int fill_info(qr_git *g, git_commit *c, qr_arena *a, qr_commit_info *out)
{
    memset(out, 0, sizeof *out);
    git_oid_cpy(&out->oid, git_commit_id(c));
    const git_signature *sig = git_commit_author(c);
    const char *enc = foreign_encoding(c);
    const char *name = sig->name ? sig->name : "", *email = sig->email ? sig->email : "";
    if (enc) {
        name = to_utf8(a, enc, name, strlen(name));
        email = to_utf8(a, enc, email, strlen(email));
        if (!name || !email)
            return QR_ENOMEM;
    }
    const char *mname = name, *memail = email;
    qr__mailmap_map(mailmap(g), &mname, &memail);
    out->raw_author = qr_arena_strndup(a, name, strlen(name));
    out->raw_email = qr_arena_strndup(a, email, strlen(email));
    out->author = mname == name ? out->raw_author : qr_arena_strndup(a, mname, strlen(mname));
    out->email = memail == email ? out->raw_email : qr_arena_strndup(a, memail, strlen(memail));
    out->atime = sig->when.time;
    out->aoffset = sig->when.offset;
    out->ctime = git_commit_time(c);
    const char *msg = git_commit_message(c);
    if (!msg)
        msg = "";
    if (enc && !(msg = to_utf8(a, enc, msg, strlen(msg))))
        return QR_ENOMEM;
    size_t mlen = strlen(msg);
    while (mlen && blank(msg[mlen - 1]))
        mlen--;
    out->message = qr_arena_strndup(a, msg, mlen);
    out->subject = subject_of(a, msg, &out->subject_len);
    unsigned np = git_commit_parentcount(c);
    if (np && qr__git_is_shallow(g, git_commit_id(c)))
        np = 0;
    out->nparents = np;
    if (np) {
        out->parents = qr_arena_alloc(a, np * sizeof *out->parents);
        if (out->parents)
            for (unsigned i = 0; i < np; i++)
                git_oid_cpy(&out->parents[i], git_commit_parent_id(c, i));
    }
    bool fail = !out->raw_author || !out->raw_email || !out->author || !out->email ||
                !out->message || !out->subject || (np && !out->parents);
    return fail ? QR_ENOMEM : QR_OK;
}

int qr__git_commit_info(qr_git *g, const git_oid *oid, qr_arena *a, qr_commit_info *out,
                        qr_buf *err)
{
    git_commit *c = NULL;
    if (git_commit_lookup(&c, g->repo, oid) != 0) {
        char hex[GIT_OID_HEXSZ + 1];
        git_oid_tostr(hex, sizeof hex, oid);
        qr_buf_printf(err, "cannot read commit '%s': %s", hex, git_msg());
        return QR_EIO;
    }
    int rc = fill_info(g, c, a, out);
    git_commit_free(c);
    return rc;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return true;
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i]) {
            int a = (unsigned char)p[i], b = (unsigned char)needle[i];
            if (a >= 'A' && a <= 'Z')
                a += 32;
            if (b >= 'A' && b <= 'Z')
                b += 32;
            if (a != b)
                break;
            i++;
        }
        if (i == n)
            return true;
    }
    return false;
}

bool qr__git_author_matches(const qr_commit_info *c, const char *needle)
{
    return contains_nocase(c->author, needle) || contains_nocase(c->email, needle) ||
           contains_nocase(c->raw_author, needle) || contains_nocase(c->raw_email, needle);
}

const char *qr__git_author_key(const char *email, qr_arena *a)
{
    const char *e = email;
    while (*e && !(*e >= 'A' && *e <= 'Z'))
        e++;
    if (!*e)
        return email;
    size_t n = strlen(email);
    char *low = qr_arena_strndup(a, email, n);
    if (!low)
        return NULL;
    for (size_t i = (size_t)(e - email); i < n; i++)
        if (low[i] >= 'A' && low[i] <= 'Z')
            low[i] = (char)(low[i] + 32);
    return low;
}

int qr__git_commit_order(const qr_commit_info *x, const qr_commit_info *y)
{
    if (x->atime != y->atime)
        return x->atime < y->atime ? -1 : 1;
    if (x->ctime != y->ctime)
        return x->ctime < y->ctime ? -1 : 1;
    if (x->aoffset != y->aoffset)
        return x->aoffset < y->aoffset ? -1 : 1;
    return git_oid_cmp(&x->oid, &y->oid);
}

/* ---- TREESAME: do two trees differ within the pathspec? ---- */

static int entry_cmp(const git_tree_entry *x, const git_tree_entry *y)
{
    const char *n1 = git_tree_entry_name(x), *n2 = git_tree_entry_name(y);
    size_t l1 = strlen(n1), l2 = strlen(n2), len = l1 < l2 ? l1 : l2;
    int c = memcmp(n1, n2, len);
    if (c)
        return c;
    unsigned char c1 = len < l1                                    ? (unsigned char)n1[len]
                       : git_tree_entry_type(x) == GIT_OBJECT_TREE ? '/'
                                                                   : 0;
    unsigned char c2 = len < l2                                    ? (unsigned char)n2[len]
                       : git_tree_entry_type(y) == GIT_OBJECT_TREE ? '/'
                                                                   : 0;
    return c1 < c2 ? -1 : c1 > c2;
}

static int read_error(const git_oid *oid, qr_buf *err);

/* What a tree comparison does: answer yes or no within ps (each NULL), or list in each
 * file that differs (ps NULL: all of them) and go on. */
typedef struct tree_cmp {
    const qr_pathspec *ps;
    void (*each)(void *ud, const char *path, size_t n);
    void *ud;
} tree_cmp;

static int trees_differ(qr_git *g, const tree_cmp *tc, const git_tree *a, const git_tree *b,
                        qr_buf *path);

/* One entry present on one side only (other NULL) or changed between the sides. */
static int entry_differs(qr_git *g, const tree_cmp *tc, const git_tree_entry *x,
                         const git_tree_entry *y, qr_buf *path)
{
    const git_tree_entry *e = x ? x : y;
    const qr_pathspec *ps = tc->ps;
    size_t base = path->len;
    qr_buf_puts(path, git_tree_entry_name(e));
    if (path->failed)
        return QR_ENOMEM;
    int rc;
    if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
        rc = !ps || qr__pathspec_match(ps, path->p, path->len);
        if (rc && tc->each) {
            tc->each(tc->ud, path->p, path->len);
            rc = 0;
        }
    } else if (ps && !qr__pathspec_reaches(ps, path->p, path->len)) {
        rc = 0;
    } else if (!tc->each && qr__pathspec_covers(ps, path->p, path->len) && x && y) {
        rc = 1; /* different tree ids: something under it changed */
    } else {
        git_tree *ta = NULL, *tb = NULL;
        rc = 0;
        if (x && git_tree_lookup(&ta, g->repo, git_tree_entry_id(x)) != 0)
            rc = QR_EIO;
        if (rc == 0 && y && git_tree_lookup(&tb, g->repo, git_tree_entry_id(y)) != 0)
            rc = QR_EIO;
        if (rc == 0) {
            qr_buf_putc(path, '/');
            rc = trees_differ(g, tc, ta, tb, path);
        }
        git_tree_free(ta);
        git_tree_free(tb);
    }
    path->len = base;
    path->p[base] = '\0';
    return rc;
}

static int trees_differ(qr_git *g, const tree_cmp *tc, const git_tree *a, const git_tree *b,
                        qr_buf *path)
{
    size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        const git_tree_entry *x = i < na ? git_tree_entry_byindex(a, i) : NULL;
        const git_tree_entry *y = j < nb ? git_tree_entry_byindex(b, j) : NULL;
        int c = !x ? 1 : !y ? -1 : entry_cmp(x, y);
        int rc;
        if (c == 0) {
            i++, j++;
            if (git_oid_equal(git_tree_entry_id(x), git_tree_entry_id(y)) &&
                git_tree_entry_filemode(x) == git_tree_entry_filemode(y))
                continue;
            /* equal names in git's order are both trees or both not */
            rc = entry_differs(g, tc, x, y, path);
        } else if (c < 0) {
            i++;
            rc = entry_differs(g, tc, x, NULL, path);
        } else {
            j++;
            rc = entry_differs(g, tc, NULL, y, path);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* 1 when commit trees ta and tb differ within ps, 0 when not, < 0 on error. */
static int commit_trees_differ(qr_git *g, const qr_pathspec *ps, const git_tree *ta,
                               const git_tree *tb)
{
    if (ta && tb && git_oid_equal(git_tree_id(ta), git_tree_id(tb)))
        return 0;
    qr_buf path;
    qr_buf_init(&path);
    tree_cmp tc = {ps, NULL, NULL};
    int rc = trees_differ(g, &tc, ta, tb, &path);
    qr_buf_release(&path);
    return rc;
}

int qr__git_tree_changes(qr_git *g, const git_oid *from, const git_oid *to,
                         void (*each)(void *ud, const char *path, size_t n), void *ud, qr_buf *err)
{
    git_commit *cf = NULL, *ct = NULL;
    git_tree *tf = NULL, *tt = NULL;
    int rc = QR_OK;
    if (git_commit_lookup(&cf, g->repo, from) != 0 || git_commit_tree(&tf, cf) != 0)
        rc = read_error(from, err);
    else if (git_commit_lookup(&ct, g->repo, to) != 0 || git_commit_tree(&tt, ct) != 0)
        rc = read_error(to, err);
    if (rc == QR_OK && !git_oid_equal(git_tree_id(tf), git_tree_id(tt))) {
        qr_buf path;
        qr_buf_init(&path);
        tree_cmp tc = {NULL, each, ud};
        rc = trees_differ(g, &tc, tf, tt, &path);
        qr_buf_release(&path);
        if (rc == QR_EIO && !err->len)
            qr_buf_puts(err, "cannot read a tree of the repository");
        else if (rc == QR_ENOMEM && !err->len)
            qr_buf_puts(err, "out of memory comparing two trees");
    }
    git_tree_free(tf);
    git_tree_free(tt);
    git_commit_free(cf);
    git_commit_free(ct);
    return rc;
}

/* ---- the walk ---- */

/* A queued commit: a commit object (reading the pack) or a row of the index's commit
 * graph (see qr_walk_opts.graph). */
typedef struct heap_item {
    git_commit *c;
    const qr_graph_commit *gc;
    int64_t ctime;
    uint64_t seq;
} heap_item;

/* The author of graph rows, through .mailmap, cached per identity (rows read from the
 * graph share their strings per identity, so the pointers are the key). */
typedef struct ident_memo {
    const char *kname, *kemail; /* NULL kname: empty slot */
    const char *author, *email, *raw_author, *raw_email;
} ident_memo;

typedef struct walk {
    qr_git *g;
    heap_item *heap;
    size_t n, cap;
    uint64_t seq;
    git_oid *seen; /* open addressing; the zero id marks an empty slot */
    size_t seen_n, seen_cap;
    /* reading the graph */
    qr_graph_reader *gr;
    qr_arena fresh_a; /* rows read from the pack because the graph lacked them */
    qr_graph_commit **fresh;
    size_t nfresh, capfresh;
    ident_memo *memo;
    size_t memo_n, memo_cap;
    /* with a graph loaded whole: its rows seen, by slot (the seen table then holds only
     * the commits the graph lacks) */
    unsigned char *row_seen;
    size_t nrow_seen;
    /* a range: the commits its negative ends reach (git's UNINTERESTING), never queued */
    struct walk *hidden;
} walk;

/* The graph failed: the walk starts again reading the pack. */
#define WALK_GRAPH_FAILED (-200)

static bool heap_before(const heap_item *x, const heap_item *y)
{
    return x->ctime > y->ctime || (x->ctime == y->ctime && x->seq < y->seq);
}

static int heap_push(walk *w, heap_item it)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        heap_item *p = realloc(w->heap, cap * sizeof *p);
        if (!p)
            return QR_ENOMEM;
        w->heap = p;
        w->cap = cap;
    }
    it.seq = w->seq++;
    size_t i = w->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_before(&it, &w->heap[up]))
            break;
        w->heap[i] = w->heap[up];
        i = up;
    }
    w->heap[i] = it;
    return QR_OK;
}

static bool heap_pop(walk *w, heap_item *out)
{
    if (!w->n)
        return false;
    *out = w->heap[0];
    heap_item last = w->heap[--w->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const heap_item *best = &last;
        if (l < w->n && heap_before(&w->heap[l], best))
            m = l, best = &w->heap[l];
        if (r < w->n && heap_before(&w->heap[r], best))
            m = r;
        if (m == i)
            break;
        w->heap[i] = w->heap[m];
        i = m;
    }
    if (w->n)
        w->heap[i] = last;
    return true;
}

static size_t oid_slot(const git_oid *o, size_t mask)
{
    uint64_t h;
    memcpy(&h, o->id, sizeof h);
    return (size_t)(h & mask);
}

/* git_oid_is_zero, inline: the seen table asks it for every slot it probes or moves. */
static bool oid_zero(const git_oid *o)
{
    uint64_t w[2];
    uint32_t x;
    memcpy(w, o->id, 16);
    memcpy(&x, o->id + 16, 4);
    return !(w[0] | w[1] | x);
}

/* Makes room for n more ids without growing again. */
static int seen_reserve(walk *w, size_t n)
{
    if ((w->seen_n + n) * 2 <= w->seen_cap)
        return QR_OK;
    size_t cap = w->seen_cap ? w->seen_cap : 1024;
    while (cap / 2 < w->seen_n + n)
        if ((cap *= 2) > SIZE_MAX / (2 * sizeof(git_oid)))
            return QR_ENOMEM;
    git_oid *t = calloc(cap, sizeof *t);
    if (!t)
        return QR_ENOMEM;
    for (size_t i = 0; i < w->seen_cap; i++) {
        if (oid_zero(&w->seen[i]))
            continue;
        size_t s = oid_slot(&w->seen[i], cap - 1);
        while (!oid_zero(&t[s]))
            s = (s + 1) & (cap - 1);
        t[s] = w->seen[i];
    }
    free(w->seen);
    w->seen = t;
    w->seen_cap = cap;
    return QR_OK;
}

/* Marks oid seen; returns 1 when it was new, 0 when already seen, < 0 on error. */
static int seen_add(walk *w, const git_oid *oid)
{
    if ((w->seen_n + 1) * 2 > w->seen_cap) {
        int rc = seen_reserve(w, w->seen_n + 1); /* doubles the table */
        if (rc != QR_OK)
            return rc;
    }
    size_t s = oid_slot(oid, w->seen_cap - 1);
    while (!oid_zero(&w->seen[s])) {
        if (git_oid_equal(&w->seen[s], oid))
            return 0;
        s = (s + 1) & (w->seen_cap - 1);
    }
    w->seen[s] = *oid;
    w->seen_n++;
    return 1;
}

static bool seen_has(const walk *w, const git_oid *oid)
{
    if (!w->seen_cap)
        return false;
    size_t s = oid_slot(oid, w->seen_cap - 1);
    while (!oid_zero(&w->seen[s])) {
        if (git_oid_equal(&w->seen[s], oid))
            return true;
        s = (s + 1) & (w->seen_cap - 1);
    }
    return false;
}

static int read_error(const git_oid *oid, qr_buf *err)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, oid);
    qr_buf_printf(err, "cannot read commit '%s': %s", hex, git_msg());
    return QR_EIO;
}

/* A graph row for commit c (read from the pack), kept to be added to the graph. */
static int graph_row_of(walk *w, git_commit *c, const qr_graph_commit **out)
{
    if (w->nfresh == w->capfresh) {
        size_t cap = w->capfresh ? w->capfresh * 2 : 64;
        qr_graph_commit **p = realloc(w->fresh, cap * sizeof *p);
        if (!p)
            return QR_ENOMEM;
        w->fresh = p;
        w->capfresh = cap;
    }
    qr_arena *a = &w->fresh_a;
    qr_graph_commit *r = qr_arena_zalloc(a, sizeof *r);
    unsigned np = git_commit_parentcount(c);
    git_oid *parents = np ? qr_arena_alloc(a, np * sizeof *parents) : NULL;
    const git_signature *sig = git_commit_author(c);
    const char *name = sig->name ? sig->name : "", *email = sig->email ? sig->email : "";
    if (!r || (np && !parents))
        return QR_ENOMEM;
    git_oid_cpy(&r->oid, git_commit_id(c));
    r->ctime = git_commit_time(c);
    r->atime = sig->when.time;
    r->aoffset = sig->when.offset;
    /* stored as git log shows it: converted from the commit's declared encoding */
    const char *enc = foreign_encoding(c);
    r->name = to_utf8(a, enc, name, strlen(name));
    r->email = to_utf8(a, enc, email, strlen(email));
    if (!r->name || !r->email)
        return QR_ENOMEM;
    for (unsigned i = 0; i < np; i++)
        git_oid_cpy(&parents[i], git_commit_parent_id(c, i));
    r->nparents = np;
    r->parents = parents;
    r->slot = UINT32_MAX;
    w->fresh[w->nfresh++] = r;
    *out = r;
    return QR_OK;
}

/* Queues oid unless it was queued before (or a range hides it). */
static int enqueue(walk *w, const git_oid *oid, qr_buf *err)
{
    int rc;
    git_commit *c = NULL;
    heap_item it = {0};
    if (w->hidden && seen_has(w->hidden, oid))
        return QR_OK;
    if (w->gr) {
        /* a graph loaded whole is asked first: its rows are marked seen by slot */
        if (!w->row_seen && (rc = seen_add(w, oid)) <= 0)
            return rc;
        qr_buf gerr;
        qr_buf_init(&gerr);
        rc = qr__graph_get(w->gr, oid, &it.gc, &gerr);
        qr_buf_release(&gerr);
        if (rc < 0)
            return WALK_GRAPH_FAILED;
        if (w->row_seen) {
            int seen;
            if (rc == QR_OK && it.gc->slot < w->nrow_seen) {
                seen = w->row_seen[it.gc->slot];
                w->row_seen[it.gc->slot] = 1;
            } else if ((seen = seen_add(w, oid)) < 0) {
                return seen;
            } else {
                seen = !seen;
            }
            if (seen)
                return QR_OK;
        }
        if (rc == 1) { /* not in the graph yet */
            if (git_commit_lookup(&c, w->g->repo, oid) != 0)
                return read_error(oid, err);
            rc = graph_row_of(w, c, &it.gc);
            git_commit_free(c);
            if (rc != QR_OK)
                return rc;
        }
        it.ctime = it.gc->ctime;
        return heap_push(w, it);
    }
    if ((rc = seen_add(w, oid)) <= 0)
        return rc;
    if (git_commit_lookup(&c, w->g->repo, oid) != 0)
        return read_error(oid, err);
    it.c = c;
    it.ctime = git_commit_time(c);
    rc = heap_push(w, it);
    if (rc != QR_OK)
        git_commit_free(c);
    return rc;
}

/* Queues HEAD and the commit every ref peels to (refs to other objects are skipped). */
static int enqueue_all_refs(walk *w, qr_buf *err)
{
    git_reference_iterator *it = NULL;
    if (git_reference_iterator_new(&it, w->g->repo) != 0) {
        qr_buf_printf(err, "cannot list the refs: %s", git_msg());
        return QR_EIO;
    }
    int rc = QR_OK;
    git_reference *ref = NULL;
    while (rc == QR_OK && git_reference_next(&ref, it) == 0) {
        git_object *obj = NULL;
        if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0)
            rc = enqueue(w, git_object_id(obj), err);
        git_object_free(obj);
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
    git_oid head;
    bool unborn;
    qr_buf herr;
    qr_buf_init(&herr);
    if (rc == QR_OK && qr__git_resolve(w->g, "HEAD", &head, &unborn, &herr) == QR_OK && !unborn)
        rc = enqueue(w, &head, err);
    qr_buf_release(&herr);
    return rc;
}

static void walk_release(walk *w)
{
    for (size_t i = 0; i < w->n; i++)
        git_commit_free(w->heap[i].c);
    free(w->heap);
    free(w->seen);
    qr__graph_close(w->gr);
    qr_arena_release(&w->fresh_a);
    free(w->fresh);
    free(w->memo);
    free(w->row_seen);
    if (w->hidden)
        free(w->hidden->seen);
    free(w->hidden);
}

/* History simplification for commit c with np parents: sets *treesame and *follow (the
 * one parent to follow, or -1 for the usual ones). */
static int simplify(walk *w, const qr_walk_opts *o, git_commit *c, unsigned np, bool *treesame,
                    int *follow, qr_buf *err)
{
    *treesame = false;
    *follow = -1;
    git_tree *tc = NULL;
    if (git_commit_tree(&tc, c) != 0)
        return read_error(git_commit_id(c), err);
    int rc = 0;
    if (np == 0) {
        rc = commit_trees_differ(w->g, o->path, NULL, tc);
        *treesame = rc == 0;
    }
    unsigned upto = o->first_parent && np ? 1 : np;
    for (unsigned i = 0; i < upto; i++) {
        git_commit *p = NULL;
        git_tree *tp = NULL;
        if (git_commit_parent(&p, c, i) != 0 || git_commit_tree(&tp, p) != 0) {
            rc = read_error(git_commit_parent_id(c, i), err);
            git_commit_free(p);
            break;
        }
        rc = commit_trees_differ(w->g, o->path, tp, tc);
        git_tree_free(tp);
        git_commit_free(p);
        if (rc < 0)
            break;
        if (rc == 0) {
            *treesame = true;
            *follow = (int)i;
            break;
        }
    }
    git_tree_free(tc);
    if (rc == QR_ENOMEM || rc == QR_EIO)
        return rc;
    if (rc < 0)
        return QR_EIO;
    return QR_OK;
}

/* Matching the message against the grep pattern, with limits on backtracking. */
typedef struct grep_state {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
} grep_state;

static int grep_init(grep_state *gs, void *code)
{
    memset(gs, 0, sizeof *gs);
    if (!code)
        return QR_OK;
    gs->code = code;
    gs->md = pcre2_match_data_create_from_pattern(code, NULL);
    gs->mc = pcre2_match_context_create(NULL);
    if (!gs->md || !gs->mc)
        return QR_ENOMEM;
    pcre2_set_match_limit(gs->mc, 1000000);
    pcre2_set_depth_limit(gs->mc, 10000);
    return QR_OK;
}

static void grep_release(grep_state *gs)
{
    pcre2_match_context_free(gs->mc);
    pcre2_match_data_free(gs->md);
}

static bool grep_matches(grep_state *gs, const char *msg)
{
    return pcre2_match(gs->code, (PCRE2_SPTR)msg, strlen(msg), 0, 0, gs->md, gs->mc) >= 0;
}

bool qr__git_message_matches(void *code, const char *msg)
{
    grep_state gs;
    bool hit = grep_init(&gs, code) == QR_OK && grep_matches(&gs, msg);
    grep_release(&gs);
    return hit;
}

/* The author of a graph row through .mailmap, memoized per identity; strings in a. */
static int graph_author(walk *w, const qr_graph_commit *gc, qr_arena *a, qr_commit_info *out)
{
    if ((w->memo_n + 1) * 2 > w->memo_cap) {
        size_t cap = w->memo_cap ? w->memo_cap * 2 : 64;
        ident_memo *t = calloc(cap, sizeof *t);
        if (!t)
            return QR_ENOMEM;
        for (size_t i = 0; i < w->memo_cap; i++) {
            if (!w->memo[i].kname)
                continue;
            size_t s = qr_hash_combine((uintptr_t)w->memo[i].kname, (uintptr_t)w->memo[i].kemail) &
                       (cap - 1);
            while (t[s].kname)
                s = (s + 1) & (cap - 1);
            t[s] = w->memo[i];
        }
        free(w->memo);
        w->memo = t;
        w->memo_cap = cap;
    }
    size_t s = qr_hash_combine((uintptr_t)gc->name, (uintptr_t)gc->email) & (w->memo_cap - 1);
    while (w->memo[s].kname && (w->memo[s].kname != gc->name || w->memo[s].kemail != gc->email))
        s = (s + 1) & (w->memo_cap - 1);
    ident_memo *m = &w->memo[s];
    if (!m->kname) {
        const char *mname = gc->name, *memail = gc->email;
        qr__mailmap_map(mailmap(w->g), &mname, &memail);
        m->raw_author = qr_arena_strndup(a, gc->name, strlen(gc->name));
        m->raw_email = qr_arena_strndup(a, gc->email, strlen(gc->email));
        m->author = mname == gc->name ? m->raw_author : qr_arena_strndup(a, mname, strlen(mname));
        m->email = memail == gc->email ? m->raw_email : qr_arena_strndup(a, memail, strlen(memail));
        if (!m->raw_author || !m->raw_email || !m->author || !m->email)
            return QR_ENOMEM;
        m->kname = gc->name;
        m->kemail = gc->email;
        w->memo_n++;
    }
    out->author = m->author;
    out->email = m->email;
    out->raw_author = m->raw_author;
    out->raw_email = m->raw_email;
    return QR_OK;
}

/* fill_info for a graph row: no message or subject; np parents as the walk sees them. */
static int fill_from_graph(walk *w, const qr_graph_commit *gc, unsigned np, qr_arena *a,
                           qr_commit_info *out)
{
    memset(out, 0, sizeof *out);
    git_oid_cpy(&out->oid, &gc->oid);
    int rc = graph_author(w, gc, a, out);
    if (rc != QR_OK)
        return rc;
    out->atime = gc->atime;
    out->aoffset = gc->aoffset;
    out->ctime = gc->ctime;
    out->message = out->subject = "";
    out->nparents = np;
    if (np) {
        git_oid *parents = qr_arena_alloc(a, np * sizeof *parents);
        if (!parents)
            return QR_ENOMEM;
        memcpy(parents, gc->parents, np * sizeof *parents);
        out->parents = parents;
    }
    return QR_OK;
}

static void item_free(heap_item *it)
{
    git_commit_free(it->c);
    it->c = NULL;
}

/* Marks in h (a walk used as a set) every commit the ids reach, parents as git sees them
 * (none past a shallow boundary). */
static int hide_ancestors(qr_git *g, walk *h, const git_oid *ids, size_t n, qr_buf *err)
{
    size_t cap = n + 64, top = 0;
    git_oid *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return QR_ENOMEM;
    int rc = QR_OK;
    for (size_t i = 0; i < n; i++)
        stack[top++] = ids[i];
    while (rc == QR_OK && top) {
        git_oid id = stack[--top];
        int added = seen_add(h, &id);
        if (added <= 0) {
            rc = added;
            continue;
        }
        git_commit *c = NULL;
        if (git_commit_lookup(&c, g->repo, &id) != 0) {
            rc = read_error(&id, err);
            break;
        }
        unsigned np = qr__git_is_shallow(g, &id) ? 0 : git_commit_parentcount(c);
        if (top + np > cap) {
            cap = (top + np) * 2;
            git_oid *t = realloc(stack, cap * sizeof *t);
            if (!t)
                rc = QR_ENOMEM;
            else
                stack = t;
        }
        for (unsigned i = 0; rc == QR_OK && i < np; i++)
            stack[top++] = *git_commit_parent_id(c, i);
        git_commit_free(c);
    }
    free(stack);
    return rc;
}

/* One walk, reading the graph of o->graph (use_graph) or the commit objects. */
static int walk_run(qr_git *g, const qr_walk_opts *o, bool use_graph, qr_arena *a,
                    qr_commit_info **out, size_t *n, qr_buf *err)
{
    walk w = {.g = g};
    qr_arena_init(&w.fresh_a, 0);
    grep_state gs;
    qr_commit_info *res = NULL;
    size_t nres = 0, capres = 0;
    bool use_path = o->path && !qr__pathspec_all(o->path);
    int rc = grep_init(&gs, o->grep);
    if (rc == QR_OK && use_graph) {
        qr_buf gerr;
        qr_buf_init(&gerr);
        bool whole = !o->has_since && o->limit < 0;
        rc = qr__graph_open(o->graph, whole, &w.gr, &gerr) == QR_OK ? QR_OK : WALK_GRAPH_FAILED;
        qr_buf_release(&gerr);
        w.nrow_seen = rc == QR_OK && whole ? qr__graph_loaded(w.gr) : 0;
        if (w.nrow_seen && !(w.row_seen = calloc(w.nrow_seen, 1)))
            rc = QR_ENOMEM;
    }
    if (rc == QR_OK && o->all_refs) {
        rc = enqueue_all_refs(&w, err);
    } else if (rc == QR_OK) {
        qr_revs revs;
        rc = qr__git_resolve_revs(g, o->ref, &revs, err);
        if (rc == QR_OK && revs.nneg) {
            rc = (w.hidden = calloc(1, sizeof *w.hidden)) ? QR_OK : QR_ENOMEM;
            if (rc == QR_OK)
                rc = hide_ancestors(g, w.hidden, revs.neg, revs.nneg, err);
        }
        for (size_t i = 0; rc == QR_OK && i < revs.npos; i++)
            rc = enqueue(&w, &revs.pos[i], err);
    }
    heap_item it = {0};
    size_t popped = 0;
    while (rc == QR_OK && (o->limit < 0 || (int64_t)nres < o->limit) && heap_pop(&w, &it)) {
        if ((++popped & 255) == 0 && qr_stop_check(o->stop)) {
            item_free(&it);
            qr_stop_fail(o->stop, err);
            rc = QR_ESTOPPED;
            break;
        }
        int64_t ctime = it.ctime;
        /* older than since: without a path the walk stops there, as git log's does; with
           one, git's cut follows the one parent simplification keeps and can lose the
           whole window behind an out-of-order date (libevent: 0 commits under test/ in
           2020 where 56 have those dates), so the walk goes on and the date filters, as
           git log --since-as-filter does */
        bool too_old = o->has_since && ctime < o->since;
        if (too_old && !use_path) {
            item_free(&it);
            continue;
        }
        const git_oid *id = it.c ? git_commit_id(it.c) : &it.gc->oid;
        unsigned np = it.c ? git_commit_parentcount(it.c) : it.gc->nparents;
        if (np && qr__git_is_shallow(g, id))
            np = 0;
        bool treesame = false;
        int follow = -1;
        if (use_path && (rc = simplify(&w, o, it.c, np, &treesame, &follow, err)) != QR_OK)
            break;
        if (follow >= 0)
            rc = enqueue(
                &w, it.c ? git_commit_parent_id(it.c, (unsigned)follow) : &it.gc->parents[follow],
                err);
        else
            for (unsigned i = 0; i < np && rc == QR_OK; i++) {
                rc = enqueue(&w, it.c ? git_commit_parent_id(it.c, i) : &it.gc->parents[i], err);
                if (o->first_parent)
                    break;
            }
        if (rc != QR_OK)
            break;
        bool show = !too_old && !treesame && !(o->has_until && ctime > o->until);
        if (show && o->merges == QR_MERGES_EXCLUDE && np > 1)
            show = false;
        if (show && o->merges == QR_MERGES_ONLY && np < 2)
            show = false;
        if (!show) {
            item_free(&it);
            continue;
        }
        if (nres == capres) {
            size_t cap = capres ? capres * 2 : 64;
            qr_commit_info *p = realloc(res, cap * sizeof *p);
            if (!p) {
                rc = QR_ENOMEM;
                break;
            }
            res = p;
            capres = cap;
        }
        /* a graph row's author strings are memoized in a for later rows: made before the
         * mark, so that filtering this commit out does not free them */
        if (!it.c && (rc = graph_author(&w, it.gc, a, &res[nres])) != QR_OK)
            break;
        qr_arena_mark mark = qr_arena_get_mark(a);
        rc = it.c ? fill_info(g, it.c, a, &res[nres])
                  : fill_from_graph(&w, it.gc, np, a, &res[nres]);
        item_free(&it);
        if (rc != QR_OK)
            break;
        if ((o->author && !qr__git_author_matches(&res[nres], o->author)) ||
            (o->grep && !grep_matches(&gs, res[nres].message))) {
            qr_arena_rewind(a, mark);
            continue;
        }
        nres++;
    }
    item_free(&it);
    /* what was read from the pack goes into the graph (a cache: failures are ignored) */
    qr__graph_close(w.gr);
    w.gr = NULL;
    if (rc == QR_OK && use_graph && o->graph_write && w.nfresh) {
        qr_graph_commit *rows = malloc(w.nfresh * sizeof *rows);
        if (rows) {
            for (size_t i = 0; i < w.nfresh; i++)
                rows[i] = *w.fresh[i];
            qr_buf gerr;
            qr_buf_init(&gerr);
            qr__graph_put(o->graph, rows, w.nfresh, &gerr);
            qr_buf_release(&gerr);
            free(rows);
        }
    }
    walk_release(&w);
    grep_release(&gs);
    if (rc == QR_OK && nres) {
        *out = qr_arena_alloc(a, nres * sizeof **out);
        if (!*out)
            rc = QR_ENOMEM;
        else
            memcpy(*out, res, nres * sizeof **out);
    }
    free(res);
    if (rc == QR_OK)
        *n = nres;
    return rc;
}

int qr__git_walk(qr_git *g, const qr_walk_opts *o, qr_arena *a, qr_commit_info **out, size_t *n,
                 qr_buf *err)
{
    *out = NULL;
    *n = 0;
    bool use_path = o->path && !qr__pathspec_all(o->path);
    bool use_graph = o->graph && !use_path && !o->grep;
    qr_arena_mark mark = qr_arena_get_mark(a);
    int rc = walk_run(g, o, use_graph, a, out, n, err);
    if (rc == WALK_GRAPH_FAILED) {
        /* the index is a cache: walk the commit objects instead */
        qr_arena_rewind(a, mark);
        qr_buf_reset(err);
        rc = walk_run(g, o, false, a, out, n, err);
    }
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory walking the history");
    return rc;
}
