/*
 * mailmap.c: .mailmap, read and applied as git does (mailmap.c in git 2.39), so that
 * authors here are the ones `git log` and `git shortlog -sne` print.
 *
 * Sources, in git's order (later entries override earlier ones): the working tree's
 * .mailmap (not in a bare repository), the blob named by mailmap.blob (HEAD:.mailmap by
 * default in a bare repository), the file named by mailmap.file. A line is
 * `Proper Name <proper@email> Commit Name <commit@email>` with either name and the proper
 * email optional; '#' starts a comment line. Emails, then names, match ignoring ASCII case.
 *
 * Design: entries in one array sorted by email (case-folded), each with its name-specific
 * sub-entries, looked up by binary search; everything lives in one arena freed with the
 * map.
 * Rejected: libgit2's git_mailmap, which compares emails and names case-sensitively and so
 * maps fewer commits than git does on real histories (a "John@Example.com" commit is not
 * matched by a "john@example.com" line).
 */
#include "git_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct mm_info {
    const char *name, *email; /* replacements, NULL when not given */
} mm_info;

typedef struct mm_named {
    const char *old_name;
    mm_info info;
} mm_named;

typedef struct mm_entry {
    const char *old_email;
    mm_info simple;
    mm_named *named;
    size_t nnamed, capnamed;
} mm_entry;

struct qr_mailmap {
    qr_arena arena;
    mm_entry *entries;
    size_t n, cap;
    bool sorted;
};

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int casecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = ascii_lower((unsigned char)*a), cb = ascii_lower((unsigned char)*b);
        if (ca != cb || !ca)
            return ca - cb;
    }
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* git's parse_name_and_email on buffer (modified in place). Returns the rest of the line
 * after '>' (NULL when nothing follows), and sets *name, *email (NULL when absent). */
static char *parse_name_and_email(char *buffer, char **name, char **email, bool allow_empty)
{
    *name = *email = NULL;
    char *left = strchr(buffer, '<');
    if (!left)
        return NULL;
    char *right = strchr(left + 1, '>');
    if (!right)
        return NULL;
    if (!allow_empty && left + 1 == right)
        return NULL;
    char *nstart = buffer, *nend = left - 1;
    while (nstart < left && is_space(*nstart))
        nstart++;
    while (nend > nstart && is_space(*nend))
        nend--;
    *name = nstart <= nend && nstart < left ? nstart : NULL;
    *email = left + 1;
    if (*name)
        nend[1] = '\0';
    *right++ = '\0';
    return *right == '\0' ? NULL : right;
}

static mm_entry *find_entry(qr_mailmap *m, const char *email)
{
    if (m->sorted) {
        size_t lo = 0, hi = m->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = casecmp(m->entries[mid].old_email, email);
            if (c == 0)
                return &m->entries[mid];
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        if (!casecmp(m->entries[i].old_email, email))
            return &m->entries[i];
    return NULL;
}

static const char *keep(qr_mailmap *m, const char *s)
{
    return s ? qr_arena_strndup(&m->arena, s, strlen(s)) : NULL;
}

static int add_mapping(qr_mailmap *m, char *new_name, char *new_email, char *old_name,
                       char *old_email)
{
    if (!old_email) {
        old_email = new_email;
        new_email = NULL;
    }
    mm_entry *e = find_entry(m, old_email);
    if (!e) {
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 16;
            mm_entry *p = realloc(m->entries, cap * sizeof *p);
            if (!p)
                return QR_ENOMEM;
            m->entries = p;
            m->cap = cap;
        }
        e = &m->entries[m->n++];
        memset(e, 0, sizeof *e);
        e->old_email = keep(m, old_email);
        if (!e->old_email)
            return QR_ENOMEM;
    }
    if (!old_name) {
        if (new_name)
            e->simple.name = keep(m, new_name);
        if (new_email)
            e->simple.email = keep(m, new_email);
        return m->arena.exhausted ? QR_ENOMEM : QR_OK;
    }
    mm_named *nm = NULL;
    for (size_t i = 0; i < e->nnamed; i++)
        if (!casecmp(e->named[i].old_name, old_name))
            nm = &e->named[i];
    if (!nm) {
        if (e->nnamed == e->capnamed) {
            size_t cap = e->capnamed ? e->capnamed * 2 : 2;
            mm_named *p = qr_arena_alloc(&m->arena, cap * sizeof *p);
            if (!p)
                return QR_ENOMEM;
            if (e->nnamed)
                memcpy(p, e->named, e->nnamed * sizeof *p);
            e->named = p;
            e->capnamed = cap;
        }
        nm = &e->named[e->nnamed++];
        nm->old_name = keep(m, old_name);
    }
    nm->info.name = keep(m, new_name);
    nm->info.email = keep(m, new_email);
    return m->arena.exhausted ? QR_ENOMEM : QR_OK;
}

static int read_line(qr_mailmap *m, char *line)
{
    if (line[0] == '#')
        return QR_OK;
    char *name1, *email1, *name2 = NULL, *email2 = NULL;
    char *rest = parse_name_and_email(line, &name1, &email1, false);
    if (rest)
        parse_name_and_email(rest, &name2, &email2, true);
    return email1 ? add_mapping(m, name1, email1, name2, email2) : QR_OK;
}

/* Adds every line of text[0..n) (copied: parsing writes into it). */
static int read_text(qr_mailmap *m, const char *text, size_t n)
{
    char *buf = malloc(n + 1);
    if (!buf)
        return QR_ENOMEM;
    memcpy(buf, text, n);
    buf[n] = '\0';
    int rc = QR_OK;
    char *p = buf, *end = buf + n;
    while (p < end && rc == QR_OK) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *next = nl ? nl + 1 : end;
        if (nl)
            *nl = '\0';
        rc = read_line(m, p);
        p = next;
    }
    free(buf);
    return rc;
}

static int read_file(qr_mailmap *m, const char *path)
{
    char *text;
    size_t len;
    if (qr_read_file(path, 64u << 20, &text, &len) != QR_OK)
        return QR_OK; /* absent or unreadable: git ignores it too */
    int rc = read_text(m, text, len);
    free(text);
    return rc;
}

static int read_blob(qr_mailmap *m, git_repository *repo, const char *rev)
{
    git_object *obj = NULL, *blob = NULL;
    int rc = QR_OK;
    if (git_revparse_single(&obj, repo, rev) == 0 &&
        git_object_peel(&blob, obj, GIT_OBJECT_BLOB) == 0) {
        const git_blob *b = (const git_blob *)blob;
        rc = read_text(m, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
    }
    git_object_free(blob);
    git_object_free(obj);
    return rc;
}

static int entry_cmp(const void *a, const void *b)
{
    return casecmp(((const mm_entry *)a)->old_email, ((const mm_entry *)b)->old_email);
}

int qr__mailmap_parse(const char *text, size_t n, qr_mailmap **out)
{
    qr_mailmap *m = calloc(1, sizeof *m);
    if (!m)
        return QR_ENOMEM;
    qr_arena_init(&m->arena, 0);
    int rc = read_text(m, text, n);
    if (rc != QR_OK) {
        qr__mailmap_free(m);
        return rc;
    }
    if (m->n > 1)
        qsort(m->entries, m->n, sizeof *m->entries, entry_cmp);
    m->sorted = true;
    *out = m;
    return QR_OK;
}

int qr__mailmap_load(git_repository *repo, qr_mailmap **out)
{
    qr_mailmap *m = calloc(1, sizeof *m);
    if (!m)
        return QR_ENOMEM;
    qr_arena_init(&m->arena, 0);
    int rc = QR_OK;
    git_config *cfg = NULL;
    git_buf blob_rev = {0}, file = {0};
    bool have_blob = false, have_file = false;
    if (git_repository_config_snapshot(&cfg, repo) == 0) {
        have_blob = git_config_get_string_buf(&blob_rev, cfg, "mailmap.blob") == 0;
        have_file = git_config_get_path(&file, cfg, "mailmap.file") == 0;
    }
    bool bare = git_repository_is_bare(repo);
    if (!bare) {
        const char *wd = git_repository_workdir(repo);
        qr_buf path;
        qr_buf_init(&path);
        qr_buf_printf(&path, "%s.mailmap", wd);
        rc = path.failed ? QR_ENOMEM : read_file(m, path.p);
        qr_buf_release(&path);
    }
    if (rc == QR_OK && (have_blob || bare))
        rc = read_blob(m, repo, have_blob ? blob_rev.ptr : "HEAD:.mailmap");
    if (rc == QR_OK && have_file) {
        if (file.ptr[0] == '/' || bare) {
            rc = read_file(m, file.ptr);
        } else {
            /* relative to the top of the working tree, where git runs */
            qr_buf path;
            qr_buf_init(&path);
            qr_buf_printf(&path, "%s%s", git_repository_workdir(repo), file.ptr);
            rc = path.failed ? QR_ENOMEM : read_file(m, path.p);
            qr_buf_release(&path);
        }
    }
    git_buf_dispose(&blob_rev);
    git_buf_dispose(&file);
    git_config_free(cfg);
    if (rc != QR_OK) {
        qr__mailmap_free(m);
        return rc;
    }
    if (m->n > 1)
        qsort(m->entries, m->n, sizeof *m->entries, entry_cmp);
    m->sorted = true;
    *out = m;
    return QR_OK;
}

void qr__mailmap_free(qr_mailmap *m)
{
    if (!m)
        return;
    free(m->entries);
    qr_arena_release(&m->arena);
    free(m);
}

bool qr__mailmap_map(const qr_mailmap *m, const char **name, const char **email)
{
    if (!m || !m->n)
        return false;
    const mm_entry *e = find_entry((qr_mailmap *)m, *email);
    if (!e)
        return false;
    const mm_info *info = &e->simple;
    for (size_t i = 0; i < e->nnamed; i++)
        if (!casecmp(e->named[i].old_name, *name)) {
            info = &e->named[i].info;
            break;
        }
    if (!info->name && !info->email)
        return false;
    if (info->email)
        *email = info->email;
    if (info->name)
        *name = info->name;
    return true;
}
