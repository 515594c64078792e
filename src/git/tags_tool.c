/*
 * tags_tool.c: get_tags, the repository's tags as releases: each tag's name, the commit it
 * names, its date and its subject, newest first. The other git tools take a tag as a ref;
 * questions about the releases themselves ("what's the latest release", "which release
 * came before v2.0.0", "how many tags are there", "when was v1.2 tagged") need the list.
 *
 * Design: the tag names from libgit2 (git_tag_list), each peeled to its commit. An
 * annotated tag's date and subject are the tagger's and the tag message's first line; a
 * lightweight tag's are its commit's. The order is by that date, newest first, ties by
 * name, so the first row is the latest release as git's `tag --sort=-creatordate` shows
 * it. A tag that names no commit (a tree or blob) is left out. `pattern` is a shell glob
 * matched against the whole name (fnmatch, no FNM_PATHNAME: '*' crosses '/').
 * Rejected: ordering by version number (a project's names need not be versions, and
 * "latest" in a history means the newest); `git for-each-ref` as a child (a process for
 * what libgit2 reads from the refs directly).
 */
#include "git_int.h"

#include "quarry/date.h"
#include "quarry/tools.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tag_row {
    const char *name;
    char hash[GIT_OID_HEXSZ + 1];
    int64_t time;
    int offset;
    bool annotated;
    char *subject; /* malloc'd */
} tag_row;

static int tag_cmp(const void *x, const void *y)
{
    const tag_row *a = x, *b = y;
    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The first line of a message, malloc'd ("" for none). */
static char *first_line(const char *msg)
{
    if (!msg)
        msg = "";
    while (*msg == '\n')
        msg++;
    size_t n = strcspn(msg, "\n");
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, msg, n);
        s[n] = '\0';
    }
    return s;
}

void qr__git_tag_when(const git_object *obj, const git_commit *c, int64_t *time, int *offset)
{
    if (git_object_type(obj) == GIT_OBJECT_TAG) {
        const git_signature *who = git_tag_tagger((const git_tag *)obj);
        *time = who ? who->when.time : git_commit_time(c);
        *offset = who ? who->when.offset : 0;
    } else {
        *time = git_commit_time(c);
        *offset = git_commit_time_offset(c);
    }
}

/* One tag's row; false when it names no commit (left out). */
static bool read_tag(qr_git *g, const char *name, tag_row *r)
{
    char ref[512];
    snprintf(ref, sizeof ref, "refs/tags/%s", name);
    git_object *obj = NULL, *commit = NULL;
    if (git_revparse_single(&obj, g->repo, ref) < 0)
        return false;
    if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
        git_object_free(obj);
        return false;
    }
    memset(r, 0, sizeof *r);
    r->name = name;
    git_oid_tostr(r->hash, sizeof r->hash, git_object_id(commit));
    const git_commit *c = (const git_commit *)commit;
    int64_t when;
    int off;
    qr__git_tag_when(obj, c, &when, &off);
    r->time = when;
    r->offset = off;
    r->annotated = git_object_type(obj) == GIT_OBJECT_TAG;
    r->subject = first_line(r->annotated ? git_tag_message((const git_tag *)obj)
                                         : git_commit_message(c));
    git_object_free(commit);
    git_object_free(obj);
    return r->subject != NULL;
}

static int get_tags_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                       qr_buf *err)
{
    qr_git *g;
    int rc = qr__git_host(ctx, &g, err);
    if (rc != QR_OK)
        return rc;
    const char *pattern = qr__git_arg_str(args, a, "pattern");
    int64_t limit = -1;
    qr_val v;
    if (args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, "limit"), &v) && v.t == QR_T_INT)
        limit = v.i;
    git_strarray names = {0};
    if (git_tag_list(&names, g->repo) < 0) {
        qr_buf_puts(err, "cannot list the repository's tags");
        return QR_EIO;
    }
    tag_row *rows = names.count ? calloc(names.count, sizeof *rows) : NULL;
    size_t n = 0;
    if (names.count && !rows)
        rc = QR_ENOMEM;
    for (size_t i = 0; rc == QR_OK && i < names.count; i++) {
        if ((i & 63) == 0 && qr_stop_check(&req->stop)) {
            qr_stop_fail(&req->stop, err);
            rc = QR_ESTOPPED;
            break;
        }
        if (pattern && fnmatch(pattern, names.strings[i], 0) != 0)
            continue;
        if (read_tag(g, names.strings[i], &rows[n]))
            n++;
    }
    if (rc == QR_OK) {
        if (n > 1)
            qsort(rows, n, sizeof *rows, tag_cmp);
        size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
        qr_mapb mb;
        qr_mapb_init(&mb, a, 8);
        qr_vecb vb;
        qr_vecb_init(&vb, a, shown);
        for (size_t i = 0; i < shown; i++) {
            const tag_row *r = &rows[i];
            char date[QR_DATE_ISO_LEN];
            qr_date_format_iso(r->time, r->offset, date, sizeof date);
            qr_mapb_put(&mb, qr_kw_cstr(a, "name"), qr_str_cstr(a, r->name));
            qr_mapb_put(&mb, qr_kw_cstr(a, "hash"), qr_str_cstr(a, r->hash));
            qr_mapb_put(&mb, qr_kw_cstr(a, "short_hash"), qr_str_new(a, r->hash, 7));
            qr_mapb_put(&mb, qr_kw_cstr(a, "date"), qr_str_cstr(a, date));
            qr_mapb_put(&mb, qr_kw_cstr(a, "timestamp"), qr_int(r->time));
            qr_mapb_put(&mb, qr_kw_cstr(a, "annotated"), qr_bool(r->annotated));
            qr_mapb_put(&mb, qr_kw_cstr(a, "subject"), qr_str_cstr(a, r->subject));
            qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
            qr_mapb_reuse(&mb);
        }
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        if (a->exhausted || a->too_deep) {
            qr_buf_puts(err, "the tags do not fit in the memory limit; give a pattern or a "
                             "limit");
            rc = QR_ENOMEM;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(rows[i].subject);
    free(rows);
    git_strarray_dispose(&names);
    if (rc == QR_ESTOPPED)
        qr_req_fail(req, err);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory");
    return rc;
}

static const qr_tool_param get_tags_params[] = {
    {.name = "pattern",
     .type = QR_TOOL_STRING,
     .desc = "only tags whose whole name matches this shell glob ('v2.*', 'release-*'; '*' "
             "also matches '/')"},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .has_min = true,
     .min = 1,
     .desc = "at most this many tags, newest first; none: all of them"},
    {.name = NULL},
};

extern const qr_tool qr__git_get_tags_tool; /* registered in tools_git.c */
const qr_tool qr__git_get_tags_tool = {
    .name = "get_tags",
    .summary = "List the repository's tags (its releases), newest first: each tag's name, "
               "the commit it names, its date and subject.",
    .params = get_tags_params,
    .result = "a vector of {:name :hash :short_hash :date :timestamp :annotated :subject}, "
              "newest first; an annotated tag's date and subject are the tagger's and its "
              "message's, a lightweight tag's are its commit's",
    .result_schema =
        "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
        "\"name\": {\"type\": \"string\"}, \"hash\": {\"type\": \"string\"}, "
        "\"short_hash\": {\"type\": \"string\"}, \"date\": {\"type\": \"string\"}, "
        "\"timestamp\": {\"type\": \"integer\"}, \"annotated\": {\"type\": \"boolean\"}, "
        "\"subject\": {\"type\": \"string\"}}}}",
    .handler = get_tags_fn,
    .caps = QR_TOOL_READS_REPO,
};
