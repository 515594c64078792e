/*
 * shared_tools.c: get_commits, get_author_stats and get_file_stats across repositories:
 * what their `repos` parameter asks of the shared statistics index on the team database
 * (quarry/git.h; the rows shared_index.c publishes), answered by one SQL statement each
 * over the views of published rows, with the results of the one-repository tools plus
 * :repo, the repository's name.
 *
 * Design. The records (parameters, result shapes) stay those of tools_git.c: a handler
 * that finds `repos` comes here instead of walking a local repository, so the registry is
 * still the one place a parameter is declared. The window means what it means locally:
 * since and until on committer dates, author a case-insensitive part of the name or email
 * (mapped or as recorded), merges included, excluded or alone, and a path is git's
 * pathspec, matched by the same code (pathspec.c) against the distinct paths the chosen
 * repositories hold, whose matches go to the statement as an array; line counts then
 * cover the matching files, and only commits with a matching file are counted. Rows are
 * per repository (an author of two repositories is two rows) and sorted as the local tool
 * sorts them, then by repository, so one repository's rows are the local tool's rows.
 * Differences, documented in docs/team.md: only HEAD's history is indexed (no `ref`, no
 * `first_parent`), `grep` is refused (the messages are stored, but PCRE2 is not the
 * server's regex), and since cuts by date rather than where a date-ordered walk stops.
 * Who an author is and which commit is an author's first and last follow git_int.h's
 * rules, as the local tools do (ASCII case folded whatever the database's locale).
 *
 * Rejected: pulling every row to the client and reusing the local aggregation (a question
 * over 100 repositories would move every file row across the network); a separate tool
 * (get_org_author_stats...) per question (the model would have two names for one thing).
 */
#include "git_int.h"

#include "quarry/date.h"
#include "quarry/store.h"
#include "quarry/tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the connection ---- */

static int shared_store(qr_git_ctx *h, qr_store **out, qr_buf *err)
{
    if (h->shared) {
        *out = h->shared;
        return QR_OK;
    }
    if (!h->shared_url || !*h->shared_url) {
        qr_buf_puts(err, "'repos' reads the shared statistics index, and none is configured: "
                         "set QUARRY_DATABASE_URL to the team database (docs/team.md), or "
                         "leave 'repos' out to ask this repository");
        return QR_EINVAL;
    }
    if (qr_store_backend_of(h->shared_url) != QR_STORE_POSTGRES) {
        qr_buf_puts(err, "QUARRY_DATABASE_URL is not a postgres:// or postgresql:// URL");
        return QR_EINVAL;
    }
    qr_store *st = calloc(1, sizeof *st);
    if (!st)
        return QR_ENOMEM;
    int rc = qr_git_shared_open(st, h->shared_url, err);
    if (rc) {
        free(st);
        return rc;
    }
    h->shared = st;
    *out = st;
    return QR_OK;
}

void qr__git_shared_close(qr_git_ctx *h)
{
    if (h->shared) {
        qr_store_close(h->shared);
        free(h->shared);
        h->shared = NULL;
    }
}

/* ---- parameters ---- */

static bool arg(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

/* An array literal of text items for a statement parameter. */
static void lit_str(qr_buf *b, const char *s, size_t n)
{
    if (b->len > 1)
        qr_buf_putc(b, ',');
    qr_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            qr_buf_putc(b, '\\');
        qr_buf_putc(b, s[i]);
    }
    qr_buf_putc(b, '"');
}

/* The repositories asked for: NULL in *filter for all of them, else an array literal. */
static int parse_repos(qr_store *st, qr_val repos, qr_buf *lit, bool *all, qr_buf *err)
{
    *all = false;
    if (!qr_is_seqcoll(repos) || qr_vec_len(repos) == 0) {
        qr_buf_puts(err, "parameter 'repos': give a list of repository names or ids, or "
                         "[\"all\"]");
        return QR_EINVAL;
    }
    qr_buf_putc(lit, '{');
    for (size_t i = 0; i < qr_vec_len(repos); i++) {
        qr_val v = qr_vec_at(repos, i);
        if (v.t != QR_T_STR) {
            qr_buf_puts(err, "parameter 'repos': each item is a repository name or id (a "
                             "string), or \"all\"");
            return QR_EINVAL;
        }
        if (!strcmp(v.s->data, "all"))
            *all = true;
        lit_str(lit, v.s->data, strlen(v.s->data));
    }
    qr_buf_putc(lit, '}');
    if (lit->failed)
        return QR_ENOMEM;
    if (*all)
        return QR_OK;
    /* a name that names nothing is an error that lists what there is */
    const char *p[] = {lit->p};
    qr_store_rows r;
    int rc = qr_store_pg_exec(st,
                              "SELECT x FROM unnest($1::text[]) AS x WHERE NOT EXISTS"
                              " (SELECT 1 FROM git_repos WHERE name = x OR id = x)",
                              1, p, &r, "read the repositories", NULL, err);
    if (rc)
        return rc;
    if (r.n > 0) {
        qr_buf_printf(err, "parameter 'repos': no repository '%s' in the shared index",
                      qr_store_rows_get(&r, 0, 0));
        qr_store_rows_free(&r);
        rc = qr_store_pg_exec(st,
                              "SELECT string_agg(name, ', ' ORDER BY name COLLATE \"C\")"
                              " FROM (SELECT DISTINCT name FROM git_repos WHERE gen > 0"
                              " LIMIT 50) AS n",
                              0, NULL, &r, "read the repositories", NULL, err);
        if (rc == QR_OK) {
            const char *names = qr_store_rows_get(&r, 0, 0);
            qr_buf_printf(err, "; it has: %s (or give [\"all\"])",
                          names && *names ? names : "none indexed yet");
            qr_store_rows_free(&r);
        }
        return QR_EINVAL;
    }
    qr_store_rows_free(&r);
    return QR_OK;
}

static int refuse(const char *param, const char *why, qr_buf *err)
{
    qr_buf_printf(err, "parameter '%s' is not taken with 'repos': %s", param, why);
    return QR_EINVAL;
}

/* The paths of the chosen repositories that pathspec spec matches, as an array literal. */
static int match_paths(qr_store *st, const char *repos, const char *spec, qr_arena *a,
                       qr_buf *lit, qr_buf *err)
{
    qr_pathspec ps;
    int rc = qr__pathspec_parse(&ps, spec, NULL, a, err);
    if (rc)
        return rc;
    qr_store_rows r;
    const char *p[] = {repos};
    rc = qr_store_pg_exec(st,
                          "SELECT DISTINCT f.path FROM (SELECT repo, path FROM git_files"
                          " UNION ALL SELECT repo, unnest(paths) FROM git_merge_parents) AS f"
                          " JOIN git_repos r ON r.id = f.repo WHERE $1::text[] IS NULL"
                          " OR r.name = ANY($1::text[]) OR r.id = ANY($1::text[])",
                          1, p, &r, "read the paths of the repositories", NULL, err);
    if (rc)
        return rc;
    qr_buf_putc(lit, '{');
    for (int i = 0; i < r.n; i++) {
        const char *path = qr_store_rows_get(&r, i, 0);
        size_t n = strlen(path);
        if (qr__pathspec_all(&ps) || qr__pathspec_match(&ps, path, n))
            lit_str(lit, path, n);
    }
    qr_buf_putc(lit, '}');
    qr_store_rows_free(&r);
    return lit->failed ? QR_ENOMEM : QR_OK;
}

/* ---- the statements ----
 * $1 repos (NULL: all), $2 since, $3 until, $4 author, $5 merges (0 include, 1 exclude,
 * 2 only), $6 the matching paths (NULL: no path), $7 limit (NULL: none).
 * c: the commits of the window (only the columns the question reads: the rows are long,
 * and the commits' sort and join keys are text); f: their files (matching the path); cc:
 * the commits counted, with ln, la, ld their files and lines (of the matching files when
 * there is a path, and then only the commits with one). Without a path cc is c itself,
 * so a question that reads no file never joins git_files. Measured on five real histories
 * (26k commits, 63k file rows): get_author_stats of everything took 450 to 670 ms with
 * one window for both cases and the first and last dates as four sorted array_agg, 290 ms
 * as below. */

#define FOLD QR_GIT_FOLD_SQL /* ASCII case only, whatever the database's locale */
#define C_FILTER(since)                                                                            \
    " ($1::text[] IS NULL"                                                                         \
    "  OR c.repo_name = ANY($1::text[]) OR c.repo = ANY($1::text[]))"                              \
    " AND ($2::bigint IS NULL OR " since " >= $2::bigint)"                                         \
    " AND ($3::bigint IS NULL OR c.ctime <= $3::bigint)"                                           \
    " AND ($4::text IS NULL OR strpos(" FOLD("c.author") ", " FOLD("$4") ") > 0"                 \
    "  OR strpos(" FOLD("c.email") ", " FOLD("$4") ") > 0"                                         \
    "  OR strpos(" FOLD("c.raw_author") ", " FOLD("$4") ") > 0"                                    \
    "  OR strpos(" FOLD("c.raw_email") ", " FOLD("$4") ") > 0)"                                    \
    " AND ($5::integer = 0 OR ($5::integer = 1 AND c.nparents < 2)"                                \
    "  OR ($5::integer = 2 AND c.nparents >= 2))"

#define STATS_COLS                                                                                 \
    "c.repo, c.repo_name, c.oid, c.author, c.email, c.atime, c.aoffset, c.ctime, c.nfiles,"       \
    " c.nparents,"                                                                                 \
    " c.additions, c.deletions"
/* the files of the window with the columns of their commits that the tails read, so that
 * no tail joins two lists the planner cannot size (the walk of a path window is estimated
 * at a few rows, and a join planned for a few rows took minutes on libevent) */
#define F_COLS                                                                                     \
    "f.repo, f.oid, f.path, f.path_key, f.additions, f.deletions, c.repo_name, c.email, c.atime," \
    " c.ctime, c.aoffset"
#define COMMIT_COLS STATS_COLS ", c.subject, c.message, c.parents, c.walk_pos, c.walk_time"

/* with a path: the commits the local walk meets (w), which are those its history
 * simplification follows from each repository's HEAD (repo.c: a merge whose tree is the
 * same as a parent's within the path is followed through the first such parent only,
 * `follow`; NULL when it differs from every parent), decided per merge and parent from the
 * files in which they differ (git_merge_parents.paths); since filters by date, as the local walk
 * does with a path. Counted (cc): a commit with a matching file, and a merge the walk
 * shows (sm: it differs from every parent), with no files and no lines, as the local
 * tools show a merge. A merge published before migration 6 has no parents' rows: its
 * parents are all followed and it is not counted, until its repository's next run. The
 * walk is one recursive statement, a generation per step, which looks each merge up by
 * its key (a join with a list of the merges made the planner scan that list per step:
 * 1.3 s on libevent, 0.17 s so). */
#define MERGE_DIFFERS(q, paths)                                                                    \
    "EXISTS (SELECT 1 FROM unnest(" q ".paths) AS x(path) WHERE x.path = ANY(" paths "::text[]))"
/* the parent a merge c is followed through alone (NULL: all of them) */
#define FOLLOW(paths)                                                                              \
    "(SELECT min(q.idx) FILTER (WHERE NOT " MERGE_DIFFERS("q", paths) ") AS follow"               \
    " FROM git_merge_parents q WHERE c.nparents >= 2 AND q.repo = c.repo AND q.oid = c.oid)"
/* rs: the repositories ($1) and their HEADs; w: the commits a path window walks */
#define WALK(paths)                                                                                \
    "WITH RECURSIVE rs AS (SELECT r.id AS repo, r.head FROM git_repos r WHERE r.gen > 0"          \
    "  AND r.head IS NOT NULL AND ($1::text[] IS NULL OR r.name = ANY($1::text[])"                 \
    "  OR r.id = ANY($1::text[]))),"                                                               \
    " w(repo, oid) AS (SELECT repo, head FROM rs UNION SELECT c.repo, p.parent FROM w"             \
    "  JOIN git_commits c ON c.repo = w.repo AND c.oid = w.oid CROSS JOIN LATERAL"                 \
    "  unnest(string_to_array(c.parents, ' ')) WITH ORDINALITY AS p(parent, i)"                   \
    "  LEFT JOIN LATERAL " FOLLOW(paths) " AS m ON true"                                          \
    "  WHERE m.follow IS NULL OR p.i - 1 = m.follow)"
#define WINDOW_PATH(cols)                                                                          \
    WALK("$6") ","                                                                                 \
    " c AS (SELECT " cols " FROM git_commits_live c JOIN w USING (repo, oid) WHERE"                \
    C_FILTER("c.ctime") "),"                                                                       \
    " f AS (SELECT " F_COLS " FROM git_files f JOIN c USING (repo, oid)"                          \
    "  WHERE f.path = ANY($6::text[])),"                                                           \
    " cc AS (SELECT c.*, l.n AS ln, l.a AS la, l.d AS ld FROM c CROSS JOIN LATERAL"                \
    "  (SELECT count(*) AS n, sum(x.additions) AS a, sum(x.deletions) AS d FROM git_files x"       \
    "  WHERE x.repo = c.repo AND x.oid = c.oid AND x.path = ANY($6::text[])) AS l WHERE l.n > 0"  \
    "  UNION ALL SELECT c.*, 0::bigint, 0::numeric, 0::numeric FROM c WHERE c.nparents >= 2"       \
    "  AND EXISTS (SELECT 1 FROM git_merge_parents q WHERE q.repo = c.repo AND q.oid = c.oid)"     \
    "  AND NOT EXISTS (SELECT 1 FROM git_merge_parents q WHERE q.repo = c.repo AND q.oid = c.oid"  \
    "  AND NOT " MERGE_DIFFERS("q", "$6") "))"
/* without ($6 is named so that its type is known): since as the local walk without a
 * path, which stops at the first commit older than it (in its order, walk_time, the
 * oldest committer date met so far, is the date it checks) */
#define WINDOW_ALL(cols)                                                                           \
    "WITH c AS (SELECT " cols " FROM git_commits_live c WHERE"                                     \
    C_FILTER("coalesce(c.walk_time, c.ctime)") " AND $6::text[] IS NULL),"                         \
    " f AS (SELECT " F_COLS " FROM git_files f JOIN c USING (repo, oid)),"                        \
    " cc AS (SELECT c.*, c.nfiles AS ln, c.additions AS la, c.deletions AS ld FROM c)"

/* one author per email whatever its ASCII case, shown as in their last commit; first and
 * last: the least and greatest commits in git_int.h's order, as two-element arrays
 * (author date and its offset) */
#define AUTHORS_TAIL                                                                               \
    ", fa AS (SELECT f.repo, " FOLD("f.email") " AS k, count(DISTINCT f.path) AS files"           \
    "  FROM f GROUP BY f.repo, k),"                                                                \
    " ag AS (SELECT repo, min(repo_name) AS repo_name, " FOLD("email") " AS k,"                   \
    "  array_agg(ARRAY[author, email] ORDER BY " QR_GIT_LAST_FIRST_SQL ") AS who,"                 \
    "  count(*) AS commits, sum(la) AS additions, sum(ld) AS deletions,"                           \
    "  min(ARRAY[atime, ctime, aoffset]) AS f3, max(ARRAY[atime, ctime, aoffset]) AS l3"           \
    "  FROM cc GROUP BY repo, k)"                                                                  \
    " SELECT ag.repo_name, ag.who[1][1], ag.who[1][2], ag.commits, ag.additions, ag.deletions,"          \
    "  coalesce(fa.files, 0), f3[1], f3[3], l3[1], l3[3] FROM ag LEFT JOIN fa USING (repo, k)"     \
    " ORDER BY ag.commits DESC, ag.who[1][1] COLLATE \"C\", ag.who[1][2] COLLATE \"C\","          \
    "  ag.repo_name COLLATE \"C\", ag.repo COLLATE \"C\" LIMIT $7::bigint"

#define FILES_TAIL                                                                                 \
    " SELECT min(f.repo_name), f.path, count(*) AS commits, sum(f.additions) AS a,"                \
    "  sum(f.deletions) AS d, count(DISTINCT " FOLD("f.email") "),"                                \
    "  (max(ARRAY[f.atime, f.ctime, f.aoffset]))[1], (max(ARRAY[f.atime, f.ctime, f.aoffset]))[3]" \
    " FROM f GROUP BY f.repo, f.path, f.path_key"                                                  \
    " ORDER BY commits DESC, sum(f.additions) + sum(f.deletions) DESC,"                            \
    "  coalesce(f.path_key, convert_to(f.path, 'UTF8')),"                                          \
    "  min(f.repo_name) COLLATE \"C\", f.repo COLLATE \"C\" LIMIT $7::bigint"

/* in each repository's walk order, as the local tool lists them (walk_pos, which orders
 * equal committer dates and a child dated before its parent), repositories interleaved by
 * walk_time, the oldest committer date the walk met up to the commit, which never rises
 * along a walk (shared_index.c); rows of a repository not indexed since migration 5 have
 * neither and go by committer date */
#define COMMITS_TAIL                                                                               \
    " SELECT repo_name, oid, author, email, atime, aoffset, subject, message, parents, ln, la, ld," \
    "  repo"                                                                                       \
    " FROM cc ORDER BY coalesce(walk_time, ctime) DESC, repo_name COLLATE \"C\","                  \
    "  repo COLLATE \"C\", walk_pos DESC NULLS LAST, ctime DESC, oid COLLATE \"C\""                \
    " LIMIT $7::bigint"

/* [kind][with a path] */
static const char *const statements[3][2] = {
    [QR_SHARED_COMMITS] = {WINDOW_ALL(COMMIT_COLS) COMMITS_TAIL,
                           WINDOW_PATH(COMMIT_COLS) COMMITS_TAIL},
    [QR_SHARED_AUTHORS] = {WINDOW_ALL(STATS_COLS) AUTHORS_TAIL,
                           WINDOW_PATH(STATS_COLS) AUTHORS_TAIL},
    [QR_SHARED_FILES] = {WINDOW_ALL(STATS_COLS) FILES_TAIL, WINDOW_PATH(STATS_COLS) FILES_TAIL},
};

/* the commits a path window walks, with what orders the walk: $1 repos, $2 the matching
 * paths; each row: repository, id, committer date, parents, the one parent followed (or
 * NULL), and the repository's HEAD */
static const char walk_order_sql[] =
    WALK("$2") " SELECT c.repo, c.oid, c.ctime, c.parents, m.follow, rs.head FROM w"
    " JOIN git_commits c USING (repo, oid) JOIN rs USING (repo)"
    " LEFT JOIN LATERAL " FOLLOW("$2") " AS m ON true";

/* ---- the order of a path window's commits ----
 * The local walk with a path (repo.c) meets commits in the order of its own queue: by
 * committer date, ties in the order they entered it, and a commit enters when the first
 * commit that follows it as a parent is met; with a path, fewer parents are followed than
 * in the walk of the whole history, so commits can enter later, and where dates are out of
 * order (libevent: 1,336 commits under *.h, some in another place) come out elsewhere
 * than walk_pos says. The same queue is run here over the commits the statement walked,
 * per repository from its HEAD, to give each its place. */

typedef struct wnode {
    const char *repo, *oid, *parents;
    int64_t ctime, pos, wtime;
    int follow; /* -1: every parent */
    bool queued;
} wnode;

static int wnode_cmp(const void *x, const void *y)
{
    const wnode *a = x, *b = y;
    int c = strcmp(a->repo, b->repo);
    return c ? c : strcmp(a->oid, b->oid);
}

static wnode *wnode_find(wnode *v, size_t n, const char *repo, const char *oid, size_t oidlen)
{
    char key[GIT_OID_HEXSZ + 1];
    if (oidlen > GIT_OID_HEXSZ)
        return NULL;
    memcpy(key, oid, oidlen);
    key[oidlen] = '\0';
    wnode k = {.repo = repo, .oid = key};
    return bsearch(&k, v, n, sizeof *v, wnode_cmp);
}

typedef struct wq {
    wnode **h;
    uint64_t *seq;
    size_t n, cap;
    uint64_t next;
} wq;

/* x comes out of the queue before y: newer committer date, then entered first */
static bool wq_before(const wq *q, size_t x, size_t y)
{
    if (q->h[x]->ctime != q->h[y]->ctime)
        return q->h[x]->ctime > q->h[y]->ctime;
    return q->seq[x] < q->seq[y];
}

static void wq_swap(wq *q, size_t x, size_t y)
{
    wnode *t = q->h[x];
    q->h[x] = q->h[y];
    q->h[y] = t;
    uint64_t s = q->seq[x];
    q->seq[x] = q->seq[y];
    q->seq[y] = s;
}

static int wq_push(wq *q, wnode *w)
{
    if (!w || w->queued)
        return QR_OK;
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        wnode **h = realloc(q->h, cap * sizeof *h);
        if (!h)
            return QR_ENOMEM;
        q->h = h;
        uint64_t *sq = realloc(q->seq, cap * sizeof *sq);
        if (!sq)
            return QR_ENOMEM;
        q->seq = sq;
        q->cap = cap;
    }
    w->queued = true;
    size_t i = q->n++;
    q->h[i] = w;
    q->seq[i] = q->next++;
    while (i && wq_before(q, i, (i - 1) / 2)) {
        wq_swap(q, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return QR_OK;
}

static wnode *wq_pop(wq *q)
{
    if (!q->n)
        return NULL;
    wnode *top = q->h[0];
    q->n--;
    if (q->n) {
        q->h[0] = q->h[q->n];
        q->seq[0] = q->seq[q->n];
        size_t i = 0;
        for (;;) {
            size_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < q->n && wq_before(q, l, m))
                m = l;
            if (r < q->n && wq_before(q, r, m))
                m = r;
            if (m == i)
                break;
            wq_swap(q, i, m);
            i = m;
        }
    }
    return top;
}

/* Sets pos (0 first) and wtime (the oldest committer date met so far) of every walked
 * commit in v, sorted by wnode_cmp, running the queue per repository from heads. */
static int walk_places(wnode *v, size_t n, const qr_store_rows *r)
{
    wq q = {0};
    int rc = QR_OK;
    for (size_t i = 0; rc == QR_OK && i < n; i++) {
        if (i && !strcmp(v[i].repo, v[i - 1].repo))
            continue;
        const char *head = NULL;
        for (int k = 0; k < r->n && !head; k++)
            if (!strcmp(qr_store_rows_get(r, k, 0), v[i].repo))
                head = qr_store_rows_get(r, k, 5);
        if (!head)
            continue;
        rc = wq_push(&q, wnode_find(v, n, v[i].repo, head, strlen(head)));
        int64_t pos = 0, low = INT64_MAX;
        wnode *w;
        while (rc == QR_OK && (w = wq_pop(&q))) {
            w->pos = pos++;
            low = w->ctime < low ? w->ctime : low;
            w->wtime = low;
            const char *ps = w->parents;
            for (int k = 0; rc == QR_OK && ps && *ps; k++) {
                size_t len = strcspn(ps, " ");
                if (w->follow < 0 || w->follow == k)
                    rc = wq_push(&q, wnode_find(v, n, w->repo, ps, len));
                ps += len;
                while (*ps == ' ')
                    ps++;
            }
        }
    }
    free(q.h);
    free(q.seq);
    return rc;
}

typedef struct placed {
    int row;
    const wnode *w;
    const char *repo_name;
} placed;

/* newest walk_time first, then by repository, then in the walk's order */
static int placed_cmp(const void *x, const void *y)
{
    const placed *a = x, *b = y;
    if (a->w->wtime != b->w->wtime)
        return a->w->wtime > b->w->wtime ? -1 : 1;
    int c = strcmp(a->repo_name, b->repo_name);
    if (c)
        return c;
    if ((c = strcmp(a->w->repo, b->w->repo)))
        return c;
    return a->w->pos < b->w->pos ? -1 : a->w->pos > b->w->pos;
}

/* The rows of a path window's get_commits (commits: repo_name, oid, ..., repo in column
 * 12) in the local walk's order, at most limit (< 0: all): their row numbers in *order. */
static int walk_order(qr_store *st, const char *repos, const char *paths,
                      const qr_store_rows *commits, int64_t limit, int **order, int *norder,
                      qr_buf *err)
{
    *order = NULL;
    *norder = 0;
    const char *p[] = {repos, paths};
    qr_store_rows r;
    int rc = qr_store_pg_exec(st, walk_order_sql, 2, p, &r, "read the walk of a path window",
                              NULL, err);
    if (rc)
        return rc;
    wnode *v = calloc((size_t)r.n + 1, sizeof *v);
    placed *pl = calloc((size_t)commits->n + 1, sizeof *pl);
    int *ord = malloc(((size_t)commits->n + 1) * sizeof *ord);
    if (!v || !pl || !ord) {
        rc = QR_ENOMEM;
        goto done;
    }
    for (int i = 0; i < r.n; i++) {
        const char *f = qr_store_rows_get(&r, i, 4);
        v[i] = (wnode){.repo = qr_store_rows_get(&r, i, 0),
                       .oid = qr_store_rows_get(&r, i, 1),
                       .ctime = strtoll(qr_store_rows_get(&r, i, 2), NULL, 10),
                       .parents = qr_store_rows_get(&r, i, 3),
                       .follow = f && *f ? atoi(f) : -1};
    }
    qsort(v, (size_t)r.n, sizeof *v, wnode_cmp);
    if ((rc = walk_places(v, (size_t)r.n, &r)))
        goto done;
    int m = 0;
    for (int i = 0; i < commits->n; i++) {
        const char *oid = qr_store_rows_get(commits, i, 1);
        const wnode *w = wnode_find(v, (size_t)r.n, qr_store_rows_get(commits, i, 12), oid,
                                    strlen(oid));
        if (w && w->queued)
            pl[m++] = (placed){i, w, qr_store_rows_get(commits, i, 0)};
    }
    qsort(pl, (size_t)m, sizeof *pl, placed_cmp);
    if (limit >= 0 && limit < m)
        m = (int)limit;
    for (int i = 0; i < m; i++)
        ord[i] = pl[i].row;
    *order = ord;
    *norder = m;
    ord = NULL;
done:
    free(v);
    free(pl);
    free(ord);
    qr_store_rows_free(&r);
    return rc;
}

/* ---- results ---- */

static qr_val text(qr_arena *a, const char *s)
{
    return qr_str_new(a, s ? s : "", s ? strlen(s) : 0);
}

static int64_t num(const qr_store_rows *r, int row, int col)
{
    const char *s = qr_store_rows_get(r, row, col);
    return s ? strtoll(s, NULL, 10) : 0;
}

static qr_val iso(qr_arena *a, const qr_store_rows *r, int row, int tcol, int ocol)
{
    char buf[QR_DATE_ISO_LEN];
    qr_date_format_iso(num(r, row, tcol), (int)num(r, row, ocol), buf, sizeof buf);
    return text(a, buf);
}

static qr_val kw(qr_arena *a, const char *s)
{
    return qr_kw_cstr(a, s);
}

/* The rows of r, in the order of order[0..nrows) when order is not NULL. */
static qr_val build(int kind, const qr_store_rows *r, const int *order, int nrows, qr_arena *a)
{
    if (!order)
        nrows = r->n;
    qr_vecb vb;
    qr_vecb_init(&vb, a, (size_t)nrows);
    qr_mapb mb;
    qr_mapb_init(&mb, a, 14);
    for (int k = 0; k < nrows; k++) {
        int i = order ? order[k] : k;
        qr_mapb_put(&mb, kw(a, "repo"), text(a, qr_store_rows_get(r, i, 0)));
        if (kind == QR_SHARED_AUTHORS) {
            qr_mapb_put(&mb, kw(a, "author"), text(a, qr_store_rows_get(r, i, 1)));
            qr_mapb_put(&mb, kw(a, "email"), text(a, qr_store_rows_get(r, i, 2)));
            qr_mapb_put(&mb, kw(a, "commits"), qr_int(num(r, i, 3)));
            qr_mapb_put(&mb, kw(a, "additions"), qr_int(num(r, i, 4)));
            qr_mapb_put(&mb, kw(a, "deletions"), qr_int(num(r, i, 5)));
            qr_mapb_put(&mb, kw(a, "files"), qr_int(num(r, i, 6)));
            qr_mapb_put(&mb, kw(a, "first"), iso(a, r, i, 7, 8));
            qr_mapb_put(&mb, kw(a, "last"), iso(a, r, i, 9, 10));
        } else if (kind == QR_SHARED_FILES) {
            qr_mapb_put(&mb, kw(a, "path"), text(a, qr_store_rows_get(r, i, 1)));
            qr_mapb_put(&mb, kw(a, "commits"), qr_int(num(r, i, 2)));
            qr_mapb_put(&mb, kw(a, "additions"), qr_int(num(r, i, 3)));
            qr_mapb_put(&mb, kw(a, "deletions"), qr_int(num(r, i, 4)));
            qr_mapb_put(&mb, kw(a, "authors"), qr_int(num(r, i, 5)));
            qr_mapb_put(&mb, kw(a, "last"), iso(a, r, i, 6, 7));
        } else {
            const char *oid = qr_store_rows_get(r, i, 1);
            qr_mapb_put(&mb, kw(a, "hash"), text(a, oid));
            qr_mapb_put(&mb, kw(a, "short_hash"), qr_str_new(a, oid, strlen(oid) < 7 ? strlen(oid) : 7));
            qr_mapb_put(&mb, kw(a, "author"), text(a, qr_store_rows_get(r, i, 2)));
            qr_mapb_put(&mb, kw(a, "email"), text(a, qr_store_rows_get(r, i, 3)));
            qr_mapb_put(&mb, kw(a, "date"), iso(a, r, i, 4, 5));
            qr_mapb_put(&mb, kw(a, "timestamp"), qr_int(num(r, i, 4)));
            qr_mapb_put(&mb, kw(a, "subject"), text(a, qr_store_rows_get(r, i, 6)));
            qr_mapb_put(&mb, kw(a, "message"), text(a, qr_store_rows_get(r, i, 7)));
            qr_vecb pv;
            const char *ps = qr_store_rows_get(r, i, 8);
            qr_vecb_init(&pv, a, 2);
            while (ps && *ps) {
                size_t n = strcspn(ps, " ");
                qr_vecb_push(&pv, qr_str_new(a, ps, n));
                ps += n;
                while (*ps == ' ')
                    ps++;
            }
            qr_mapb_put(&mb, kw(a, "parents"), qr_vecb_finish(&pv, QR_T_VEC));
            qr_mapb_put(&mb, kw(a, "files"), qr_int(num(r, i, 9)));
            qr_mapb_put(&mb, kw(a, "additions"), qr_int(num(r, i, 10)));
            qr_mapb_put(&mb, kw(a, "deletions"), qr_int(num(r, i, 11)));
        }
        qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
        qr_mapb_reuse(&mb);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

int qr__git_shared_tool(qr_git_ctx *h, int kind, qr_val args, qr_val repos, qr_arena *a,
                        qr_val *out, qr_buf *err)
{
    if (!h) {
        qr_buf_puts(err, "no context: the tool registry has no context (qr_tools_set_ctx)");
        return QR_EINVAL;
    }
    qr_val v;
    const char *s;
    if ((s = qr__git_arg_str(args, a, "ref")) && strcmp(s, "HEAD"))
        return refuse("ref", "the shared index holds each repository's HEAD history", err);
    if (arg(args, a, "first_parent", &v) && qr_truthy(v))
        return refuse("first_parent", "the shared index holds each commit's own changes", err);
    if (arg(args, a, "grep", &v))
        return refuse("grep", "filter the :subject or :message of the rows instead", err);
    if (arg(args, a, "with_paths", &v) && qr_truthy(v))
        return refuse("with_paths", "ask get_file_stats with 'repos' for the files", err);
    char since[24] = "", until[24] = "", merges[4] = "0", limit[24] = "";
    const char *names[] = {"since", "until"};
    char *bufs[] = {since, until};
    for (int i = 0; i < 2; i++) {
        if (!(s = qr__git_arg_str(args, a, names[i])))
            continue;
        int64_t t;
        char msg[QR_DATE_ERR_LEN];
        if (qr_clock_parse(s, strlen(s), &t, msg, sizeof msg) != QR_OK) {
            qr_buf_printf(err, "parameter '%s': %s", names[i], msg);
            return QR_EINVAL;
        }
        snprintf(bufs[i], 24, "%lld", (long long)t);
    }
    if ((s = qr__git_arg_str(args, a, "merges")))
        snprintf(merges, sizeof merges, "%d", !strcmp(s, "exclude") ? 1 : !strcmp(s, "only") ? 2 : 0);
    if (arg(args, a, "limit", &v) && (v.t == QR_T_INT || v.t == QR_T_DOUBLE))
        snprintf(limit, sizeof limit, "%lld", (long long)(v.t == QR_T_INT ? v.i : (int64_t)v.d));
    qr_store *st;
    int rc = shared_store(h, &st, err);
    if (rc)
        return rc;
    qr_buf rl, pl;
    qr_buf_init(&rl);
    qr_buf_init(&pl);
    bool all = false;
    rc = parse_repos(st, repos, &rl, &all, err);
    const char *path = qr__git_arg_str(args, a, "path");
    if (rc == QR_OK && path)
        rc = match_paths(st, all ? NULL : rl.p, path, a, &pl, err);
    if (rc == QR_OK) {
        const char *p[] = {all ? NULL : rl.p,
                           *since ? since : NULL,
                           *until ? until : NULL,
                           qr__git_arg_str(args, a, "author"),
                           merges,
                           path ? pl.p : NULL,
                           *limit ? limit : NULL};
        const char *sql = statements[kind][path != NULL];
        /* a path window's commits are put in the local walk's order here, then cut */
        bool reorder = kind == QR_SHARED_COMMITS && path;
        if (reorder)
            p[6] = NULL;
        qr_store_rows r;
        int *order = NULL, norder = 0;
        rc = qr_store_pg_exec(st, sql, 7, p, &r, "read the shared statistics index", NULL, err);
        if (rc == QR_OK && reorder &&
            (rc = walk_order(st, p[0], pl.p, &r, *limit ? strtoll(limit, NULL, 10) : -1, &order,
                             &norder, err)))
            qr_store_rows_free(&r);
        if (rc == QR_OK) {
            *out = build(kind, &r, order, norder, a);
            free(order);
            qr_store_rows_free(&r);
            if (a->exhausted || a->too_deep) {
                qr_buf_puts(err, "the result does not fit in the memory limit; narrow the "
                                 "window (since, until, path, author, repos) or give a limit");
                rc = QR_ENOMEM;
            }
        }
    }
    qr_buf_release(&rl);
    qr_buf_release(&pl);
    return rc;
}
