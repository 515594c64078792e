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
                          " UNION ALL SELECT repo, path FROM git_merge_paths) AS f"
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
 * files in which they differ (git_merge_paths); since filters by date, as the local walk
 * does with a path. Counted (cc): a commit with a matching file, and a merge the walk
 * shows (sm: it differs from every parent), with no files and no lines, as the local
 * tools show a merge. A merge published before migration 6 has no parents' rows: its
 * parents are all followed and it is not counted, until its repository's next run. The
 * walk is one recursive statement, a generation per step, which looks each merge up by
 * its key (a join with a list of the merges made the planner scan that list per step:
 * 1.3 s on libevent, 0.17 s so). */
#define MERGE_DIFFERS(q)                                                                           \
    "EXISTS (SELECT 1 FROM git_merge_paths x WHERE x.repo = " q ".repo AND x.oid = " q ".oid"     \
    " AND x.idx = " q ".idx AND x.path = ANY($6::text[]))"
#define WINDOW_PATH(cols)                                                                          \
    "WITH RECURSIVE rs AS (SELECT r.id AS repo, r.head FROM git_repos r WHERE r.gen > 0"          \
    "  AND r.head IS NOT NULL AND ($1::text[] IS NULL OR r.name = ANY($1::text[])"                 \
    "  OR r.id = ANY($1::text[]))),"                                                               \
    " w(repo, oid) AS (SELECT repo, head FROM rs UNION SELECT c.repo, p.parent FROM w"             \
    "  JOIN git_commits c ON c.repo = w.repo AND c.oid = w.oid CROSS JOIN LATERAL"                 \
    "  unnest(string_to_array(c.parents, ' ')) WITH ORDINALITY AS p(parent, i)"                   \
    "  LEFT JOIN LATERAL (SELECT min(q.idx) FILTER (WHERE NOT " MERGE_DIFFERS("q") ") AS follow"  \
    "   FROM git_merge_parents q WHERE c.nparents >= 2 AND q.repo = c.repo AND q.oid = c.oid)"     \
    "   AS m ON true WHERE m.follow IS NULL OR p.i - 1 = m.follow),"                               \
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
    "  AND NOT " MERGE_DIFFERS("q") "))"
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
    " SELECT repo_name, oid, author, email, atime, aoffset, subject, message, parents, ln, la, ld"  \
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

static qr_val build(int kind, const qr_store_rows *r, qr_arena *a)
{
    qr_vecb vb;
    qr_vecb_init(&vb, a, (size_t)r->n);
    qr_mapb mb;
    qr_mapb_init(&mb, a, 14);
    for (int i = 0; i < r->n; i++) {
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
        qr_store_rows r;
        rc = qr_store_pg_exec(st, sql, 7, p, &r, "read the shared statistics index", NULL, err);
        if (rc == QR_OK) {
            *out = build(kind, &r, a);
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
