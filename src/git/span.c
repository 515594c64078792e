/*
 * span.c: the first and last commit times of a repository's history, for the line of
 * the agents' prompts that says what period the repository covers ("first commit
 * 2020-01-01, last commit 2026-11-23"), so a model can tell "in october" of which year
 * holds data.
 *
 * Design: one walk of the commits reachable from HEAD, reading only their headers
 * (committer times), without sorting, so its cost is one pass over the commit graph.
 * A walk that stops early (a shallow boundary, a missing object) keeps what it saw.
 *
 * The people of a history (qr_git_people): every author of a commit reachable from HEAD,
 * after .mailmap, by email, with their commit counts, from the same kind of walk; the
 * router looks names up in it, so a bare "ines" is read as an author only when this
 * repository has one.
 *
 * The files of HEAD's tree by name (qr_git_find_file): "http.c" said without its folders is
 * the file at the root, else the one file of that name anywhere in the tree.
 *
 * Rejected: HEAD's time as the last commit (a rebased or cherry-picked HEAD can be older
 * than a commit it contains), and the statistics index (absent with --no-index, and not
 * always complete).
 */
#include "git_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Walks at most this many commits, so the cost before a model call or a router lookup
 * stays bounded on very large histories (a million commits take seconds to walk): past
 * it, the span's first commit is unknown (0) and the people are those of the newest
 * commits walked. */
#define SPAN_MAX_COMMITS 300000

int qr_git_span(qr_git *g, int64_t *first, int64_t *last, qr_buf *err)
{
    *first = *last = 0;
    git_revwalk *w = NULL;
    int rc = QR_OK;
    if (git_revwalk_new(&w, g->repo) < 0 || git_revwalk_push_head(w) < 0) {
        qr_buf_puts(err, "the repository has no commits on HEAD");
        rc = QR_EINVAL;
        goto done;
    }
    git_oid oid;
    size_t n = 0;
    while (n < SPAN_MAX_COMMITS && git_revwalk_next(&oid, w) == 0) {
        git_commit *c;
        if (git_commit_lookup(&c, g->repo, &oid) < 0)
            break;
        int64_t t = (int64_t)git_commit_time(c);
        git_commit_free(c);
        if (!n || t < *first)
            *first = t;
        if (!n || t > *last)
            *last = t;
        n++;
    }
    if (!n) {
        qr_buf_puts(err, "the repository has no commits on HEAD");
        rc = QR_EINVAL;
    } else if (n == SPAN_MAX_COMMITS) {
        *first = 0; /* older commits were not walked: the first is not known */
    }
done:
    git_revwalk_free(w);
    return rc;
}

/* ---- the people of a history ---- */

/* A table of authors by email, for one walk. */
typedef struct people {
    qr_git_person *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1; 0 empty */
    size_t mask;
} people;

/* Adds s to x's aliases unless it is x's name, email or one of its aliases already. */
static int alias_add(qr_git_person *x, const char *s)
{
    if (!*s || strchr(s, '\n') || !strcmp(s, x->name) || !strcmp(s, x->email))
        return QR_OK;
    size_t sl = strlen(s), al = strlen(x->aliases);
    for (const char *a = x->aliases; *a;) {
        const char *e = strchr(a, '\n');
        size_t l = e ? (size_t)(e - a) : strlen(a);
        if (l == sl && !memcmp(a, s, l))
            return QR_OK;
        a += l + (e != NULL);
    }
    if (al > 4096) /* a person with hundreds of names: enough are kept */
        return QR_OK;
    char *v = realloc(x->aliases, al + sl + 2);
    if (!v)
        return QR_ENOMEM;
    if (al)
        v[al++] = '\n';
    memcpy(v + al, s, sl + 1);
    x->aliases = v;
    return QR_OK;
}

static int people_add(people *P, const char *name, const char *email, const char *raw_name,
                      const char *raw_email)
{
    size_t el = strlen(email);
    uint64_t h = qr_hash_bytes(email, el);
    size_t j = (size_t)h & P->mask;
    for (; P->slot[j]; j = (j + 1) & P->mask) {
        qr_git_person *x = &P->v[P->slot[j] - 1];
        if (!strcmp(x->email, email)) {
            x->commits++;
            int rc = alias_add(x, name);
            if (rc == QR_OK)
                rc = alias_add(x, raw_name);
            if (rc == QR_OK)
                rc = alias_add(x, raw_email);
            return rc;
        }
    }
    if (P->n == P->cap) {
        size_t cap = P->cap * 2;
        qr_git_person *v = realloc(P->v, cap * sizeof *v);
        uint32_t *slot = calloc(cap * 2, sizeof *slot);
        if (!v || !slot) {
            if (v)
                P->v = v;
            free(slot);
            return QR_ENOMEM;
        }
        P->v = v;
        P->cap = cap;
        free(P->slot);
        P->slot = slot;
        P->mask = cap * 2 - 1;
        for (size_t i = 0; i < P->n; i++) {
            size_t k = (size_t)qr_hash_bytes(P->v[i].email, strlen(P->v[i].email)) & P->mask;
            while (P->slot[k])
                k = (k + 1) & P->mask;
            P->slot[k] = (uint32_t)i + 1;
        }
        j = (size_t)h & P->mask;
        while (P->slot[j])
            j = (j + 1) & P->mask;
    }
    qr_git_person *x = &P->v[P->n];
    x->name = strdup(name);
    x->email = strdup(email);
    x->aliases = strdup("");
    x->commits = 1;
    if (!x->name || !x->email || !x->aliases) {
        free(x->name);
        free(x->email);
        free(x->aliases);
        return QR_ENOMEM;
    }
    P->slot[j] = (uint32_t)++P->n;
    int rc = alias_add(x, raw_name);
    return rc == QR_OK ? alias_add(x, raw_email) : rc;
}

int qr_git_people(qr_git *g, qr_git_person **out, size_t *n, qr_buf *err)
{
    *out = NULL;
    *n = 0;
    people P = {.cap = 64};
    P.v = malloc(P.cap * sizeof *P.v);
    P.slot = calloc(P.cap * 2, sizeof *P.slot);
    P.mask = P.cap * 2 - 1;
    git_revwalk *w = NULL;
    int rc = QR_OK;
    if (!P.v || !P.slot) {
        rc = QR_ENOMEM;
        goto done;
    }
    if (!g->mailmap_loaded) {
        g->mailmap_loaded = true;
        if (qr__mailmap_load(g->repo, &g->mailmap) != QR_OK)
            g->mailmap = NULL;
    }
    if (git_revwalk_new(&w, g->repo) < 0 || git_revwalk_push_head(w) < 0) {
        qr_buf_puts(err, "the repository has no commits on HEAD");
        rc = QR_EINVAL;
        goto done;
    }
    git_oid oid;
    for (size_t k = 0; k < SPAN_MAX_COMMITS && git_revwalk_next(&oid, w) == 0; k++) {
        git_commit *c;
        if (git_commit_lookup(&c, g->repo, &oid) < 0)
            break;
        const git_signature *a = git_commit_author(c);
        const char *name = a && a->name ? a->name : "", *email = a && a->email ? a->email : "";
        const char *raw_name = name, *raw_email = email;
        if (g->mailmap)
            qr__mailmap_map(g->mailmap, &name, &email);
        rc = people_add(&P, name, email, raw_name, raw_email);
        git_commit_free(c);
        if (rc != QR_OK)
            goto done;
    }
done:
    git_revwalk_free(w);
    free(P.slot);
    if (rc != QR_OK) {
        qr_git_people_free(P.v, P.n);
        return rc;
    }
    *out = P.v;
    *n = P.n;
    return QR_OK;
}

void qr_git_people_free(qr_git_person *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].email);
        free(v[i].aliases);
    }
    free(v);
}

/* ---- releases by their version number ---- */

/* A tag's version: up to four numbers after an optional "v" or a project's prefix, with
 * '.' or '_' between them ("curl-8_1_0"), and at most one letter after the last ("3.6a",
 * a release after 3.6 and before 3.6b), in v[4] (a = 1; 0 when none); nothing else. False
 * when the name is not one. */
enum { VN = 5 };
static bool tag_version(const char *name, long v[VN])
{
    const char *c = name;
    /* a project's prefix, "jq-1.7" (letters and a '-'), or a "v" */
    while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
        c++;
    if (c > name && *c == '-')
        c++;
    else
        c = name + (*name == 'v' || *name == 'V');
    for (int k = 0; k < VN; k++)
        v[k] = 0;
    for (int k = 0; k < 4; k++) {
        if (*c < '0' || *c > '9')
            return false;
        char *end;
        v[k] = strtol(c, &end, 10);
        c = end;
        if (*c >= 'a' && *c <= 'z' && !c[1] && k > 0) {
            v[4] = *c - 'a' + 1;
            return true;
        }
        if (!*c)
            return true;
        if (*c != '.' && *c != '_')
            return false;
        c++;
    }
    return false;
}

static int version_cmp(const long a[VN], const long b[VN])
{
    for (int k = 0; k < VN; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* The commit a tag names and when the tag was made (qr__git_tag_when), from one lookup;
 * false when it names no commit. */
static bool tag_point(qr_git *g, const char *name, git_oid *out, int64_t *time)
{
    char ref[300];
    snprintf(ref, sizeof ref, "refs/tags/%s", name);
    git_object *o = NULL, *c = NULL;
    if (git_revparse_single(&o, g->repo, ref) < 0)
        return false;
    bool ok = git_object_peel(&c, o, GIT_OBJECT_COMMIT) == 0;
    if (ok) {
        int off;
        git_oid_cpy(out, git_object_id(c));
        qr__git_tag_when(o, (const git_commit *)c, time, &off);
    }
    git_object_free(c);
    git_object_free(o);
    return ok;
}

static bool tag_commit(qr_git *g, const char *name, git_oid *out)
{
    int64_t t;
    return tag_point(g, name, out, &t);
}

/* When a tag was made; -1 when it names no commit. */
static int64_t tag_time(qr_git *g, const char *name)
{
    git_oid o;
    int64_t t;
    return tag_point(g, name, &o, &t) ? t : -1;
}

bool qr_git_config_string(qr_git *g, const char *key, char *out, size_t cap)
{
    git_config *cfg = NULL;
    git_buf v = {0};
    bool ok = cap && git_repository_config_snapshot(&cfg, g->repo) == 0 &&
              git_config_get_string_buf(&v, cfg, key) == 0 && v.ptr && strlen(v.ptr) < cap;
    if (ok)
        snprintf(out, cap, "%s", v.ptr);
    git_buf_dispose(&v);
    git_config_free(cfg);
    return ok;
}


/* The release just before (dir -1) or after (dir 1) the one at hit, by version, written
 * to out when the tags' dates agree (no release between them by date either); "" when
 * none or when version and date disagree (a patch of an older series tagged later). */
static void release_neighbour(qr_git *g, const git_strarray *names, size_t hit, int dir,
                              char *out, size_t cap)
{
    out[0] = '\0';
    long hv[VN], bv[VN] = {0};
    int64_t ht = tag_time(g, names->strings[hit]);
    tag_version(names->strings[hit], hv);
    size_t by_version = names->count, by_date = names->count;
    int64_t bt = 0;
    for (size_t i = 0; i < names->count; i++) {
        long v[VN];
        if (i == hit || !tag_version(names->strings[i], v) || version_cmp(v, hv) * dir <= 0)
            continue;
        if (by_version == names->count || version_cmp(v, bv) * dir < 0)
            memcpy(bv, v, sizeof bv), by_version = i;
        int64_t t = tag_time(g, names->strings[i]);
        if (t < 0 || ht < 0 || (t - ht) * dir <= 0)
            continue; /* tagged on the other side of it: not its neighbour by date */
        if (by_date == names->count || (t - bt) * dir < 0)
            bt = t, by_date = i;
    }
    if (by_version < names->count && by_version == by_date &&
        strlen(names->strings[by_version]) < cap)
        snprintf(out, cap, "%s", names->strings[by_version]);
}

/* A tag's version and its index in the tag list, for sorting. */
typedef struct ranked {
    long v[VN];
    size_t i;
} ranked;

static int by_version_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int c = version_cmp(y->v, x->v);
    return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

bool qr_git_release(qr_git *g, const char *version, char *tag, size_t tag_cap, char *prev,
                    size_t prev_cap, char *before, size_t before_cap, char *next,
                    size_t next_cap, bool *ambiguous)
{
    *ambiguous = false;
    tag[0] = prev[0] = '\0';
    if (next && next_cap)
        next[0] = '\0';
    if (before && before_cap)
        before[0] = '\0';
    long want[VN];
    if (!tag_version(version, want))
        return false;
    git_strarray names = {0};
    if (git_tag_list(&names, g->repo) < 0)
        return false;
    /* the said number matches a tag's number when equal, or equal but for zeros added */
    size_t hit = names.count, hits = 0;
    for (size_t i = 0; i < names.count; i++) {
        long v[VN];
        if (tag_version(names.strings[i], v) && version_cmp(v, want) == 0) {
            if (hit == names.count || strcmp(names.strings[i], names.strings[hit]))
                hits++;
            hit = i;
        }
    }
    bool ok = hits == 1;
    *ambiguous = hits > 1;
    if (!hits) {
        /* none: the nearest release in prev, the greatest below, else the least above */
        long lo[VN] = {-1}, hi[VN] = {0};
        size_t below = names.count, above = names.count;
        for (size_t i = 0; i < names.count; i++) {
            long v[VN];
            if (!tag_version(names.strings[i], v))
                continue;
            if (version_cmp(v, want) < 0 && version_cmp(v, lo) > 0)
                memcpy(lo, v, sizeof lo), below = i;
            if (version_cmp(v, want) > 0 && (above == names.count || version_cmp(v, hi) < 0))
                memcpy(hi, v, sizeof hi), above = i;
        }
        size_t near = below < names.count ? below : above;
        if (near < names.count && strlen(names.strings[near]) < prev_cap)
            snprintf(prev, prev_cap, "%s", names.strings[near]);
    }
    git_oid at;
    if (ok && strlen(names.strings[hit]) < tag_cap && tag_commit(g, names.strings[hit], &at)) {
        snprintf(tag, tag_cap, "%s", names.strings[hit]);
        long hv[VN];
        tag_version(names.strings[hit], hv);
        /* the lower versions, greatest first: the first this one grew from is the one (an
           ancestry walk each, so the nearest is asked first: libuv's 300 tags took seconds
           asked in name order) */
        ranked *low = malloc((names.count ? names.count : 1) * sizeof *low);
        size_t nlow = 0;
        for (size_t i = 0; low && i < names.count; i++) {
            if (i != hit && tag_version(names.strings[i], low[nlow].v) &&
                version_cmp(low[nlow].v, hv) < 0)
                low[nlow++].i = i;
        }
        if (low)
            qsort(low, nlow, sizeof *low, by_version_desc);
        for (size_t k = 0; k < nlow; k++) {
            git_oid o;
            if (!tag_commit(g, names.strings[low[k].i], &o))
                continue;
            /* only a release this one grew from: a tag on a maintenance branch is not */
            if (git_oid_equal(&o, &at) || git_graph_descendant_of(g->repo, &at, &o) == 1) {
                if (strlen(names.strings[low[k].i]) < prev_cap)
                    snprintf(prev, prev_cap, "%s", names.strings[low[k].i]);
                break;
            }
        }
        free(low);
        if (next && next_cap)
            release_neighbour(g, &names, hit, 1, next, next_cap);
        if (before && before_cap)
            release_neighbour(g, &names, hit, -1, before, before_cap);
    } else {
        ok = false;
    }
    git_strarray_dispose(&names);
    return ok;
}

/* ---- a file by its name ---- */

typedef struct find_file {
    const char *name;
    char *out;
    size_t cap;
    size_t hits;
    bool root;
    bool nocase;         /* compared without case ("STATUS.C" for status.c) */
    char root_name[256]; /* the root's entry, as the tree spells it */
} find_file;

static int find_file_cb(const char *root, const git_tree_entry *e, void *payload)
{
    find_file *f = payload;
    git_object_t t = git_tree_entry_type(e);
    const char *en = git_tree_entry_name(e);
    if (t != GIT_OBJECT_BLOB || (f->nocase ? strcasecmp(en, f->name) : strcmp(en, f->name)))
        return 0;
    if (!root[0] && !f->root) {
        f->root = true;
        snprintf(f->root_name, sizeof f->root_name, "%s", en);
    }
    if (f->hits < 4) {
        size_t used = strlen(f->out);
        snprintf(f->out + used, f->cap - used, "%s%s%s", f->hits ? ", " : "", root, en);
    }
    f->hits++;
    return 0;
}

int qr_git_find_file(qr_git *g, const char *name, char *out, size_t cap)
{
    if (!cap)
        return -1;
    out[0] = '\0';
    if (!name[0])
        return -1;
    if (strchr(name, '/')) {
        /* a path: whether HEAD's tree has a file there; "src/" (a '/' at its end), a
           directory */
        size_t nl = strlen(name);
        bool dir = name[nl - 1] == '/';
        char trimmed[4096];
        if (dir) {
            if (nl < 2 || nl >= sizeof trimmed)
                return 0;
            memcpy(trimmed, name, nl - 1);
            trimmed[nl - 1] = '\0';
        }
        git_object *tree = NULL;
        git_tree_entry *e = NULL;
        if (git_revparse_single(&tree, g->repo, "HEAD^{tree}") < 0)
            return -1;
        int found = git_tree_entry_bypath(&e, (git_tree *)tree, dir ? trimmed : name) == 0 &&
                    git_tree_entry_type(e) == (dir ? GIT_OBJECT_TREE : GIT_OBJECT_BLOB);
        git_tree_entry_free(e);
        git_object_free(tree);
        if (found)
            snprintf(out, cap, "%s", name);
        return found;
    }
    git_object *obj = NULL;
    git_tree *tree = NULL;
    if (git_revparse_single(&obj, g->repo, "HEAD^{tree}") < 0)
        return -1;
    tree = (git_tree *)obj;
    find_file f = {.name = name, .out = out, .cap = cap};
    int rc = git_tree_walk(tree, GIT_TREEWALK_PRE, find_file_cb, &f);
    if (rc >= 0 && !f.hits) {
        /* none spelt so: the same name in another case ("STATUS.C") */
        f.nocase = true;
        rc = git_tree_walk(tree, GIT_TREEWALK_PRE, find_file_cb, &f);
    }
    git_object_free(obj);
    if (rc < 0)
        return -1;
    if (f.root) {
        snprintf(out, cap, "%s", f.root_name);
        return 1;
    }
    return f.hits > 1 ? 2 : (int)f.hits;
}

/* The release tags (a version's name) on HEAD's line, newest first by their dates:
 * ":latest" the newest, ":previous" the one before it. A release tagged on another line
 * (a maintenance branch's "3.7c" after HEAD's "3.7b") is passed over, as git describe
 * passes it: "since the last release" counts from the release this history holds. */
typedef struct {
    int64_t when;
    size_t at;
} dated_tag;

static int newer_first(const void *a, const void *b)
{
    const dated_tag *x = a, *y = b;
    return x->when < y->when ? 1 : x->when > y->when ? -1 : (x->at > y->at) - (x->at < y->at);
}

static bool recent_release(qr_git *g, const git_strarray *names, int back, char *out,
                           size_t cap)
{
    git_oid at, head;
    if (!names->count || git_reference_name_to_id(&head, g->repo, "HEAD") < 0)
        return false;
    dated_tag *tags = malloc(names->count * sizeof *tags);
    if (!tags)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < names->count; i++)
        /* a release is named with a number ("v2.1", "release-2.1.12-stable"), not
           "prod-freeze" */
        if (strpbrk(names->strings[i], "0123456789"))
            tags[n++] = (dated_tag){tag_time(g, names->strings[i]), i};
    qsort(tags, n, sizeof *tags, newer_first);
    /* newest first, so the ancestry is asked only of the few newest */
    bool ok = false;
    for (size_t k = 0; k < n && !ok; k++) {
        const char *name = names->strings[tags[k].at];
        if (!tag_commit(g, name, &at) ||
            !(git_oid_equal(&at, &head) || git_graph_descendant_of(g->repo, &head, &at) == 1))
            continue;
        if (back-- > 0)
            continue;
        ok = strlen(name) + 1 < cap;
        if (ok)
            snprintf(out, cap, "%s", name);
    }
    free(tags);
    return ok;
}

bool qr_git_tag_named(qr_git *g, const char *name, char *out, size_t cap)
{
    if (!cap)
        return false;
    out[0] = '\0';
    git_strarray names = {0};
    if (!name[0] || git_tag_list(&names, g->repo) < 0)
        return false;
    if (!strcmp(name, ":latest") || !strcmp(name, ":previous")) {
        bool ok = recent_release(g, &names, name[1] == 'p', out, cap);
        git_strarray_dispose(&names);
        return ok;
    }
    size_t hit = names.count, hits = 0;
    for (size_t i = 0; i < names.count; i++)
        if (strcasecmp(names.strings[i], name) == 0) {
            hit = i;
            hits++;
        }
    bool ok = hits == 1;
    if (hits > 1) {
        /* tags equal but for case: the one spelled exactly so, else none */
        for (size_t i = 0; i < names.count; i++)
            if (strcmp(names.strings[i], name) == 0) {
                hit = i;
                ok = true;
            }
    }
    if (ok)
        snprintf(out, cap, "%s", names.strings[hit]);
    git_strarray_dispose(&names);
    return ok && strlen(out) + 1 < cap;
}
