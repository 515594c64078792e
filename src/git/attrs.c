/*
 * attrs.c: the fingerprint of the attributes that decide what `git log --numstat`
 * counts, so that the statistics index keys each commit's lines by the attributes in
 * force when they were computed.
 *
 * git counts a file's lines unless its attributes make it binary (`binary`, `-diff`, a
 * `diff=DRIVER` whose diff.DRIVER.binary is set, or a macro that expands to one of them),
 * and it reads the attributes for every commit from the files in force now, not from the
 * commit: the work tree's .gitattributes (or the index's copy when the file is not checked
 * out), $GIT_DIR/info/attributes, the global file (core.attributesFile, else
 * $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes) and the system file
 * (/etc/gitattributes unless GIT_ATTR_NOSYSTEM). Committing `*.svg binary` thus changes the
 * numbers of every old commit that touched an .svg file.
 *
 * The fingerprint hashes, from each of those files, only the lines that can change a
 * diff's binary-ness: those naming `diff` or `binary` or a macro, and the macro
 * definitions (`[attr]NAME ...`); plus the diff.*.binary settings and
 * core.bigFileThreshold (larger blobs are binary to git). Editing a `text` or `eol` rule,
 * or a comment, keeps the index. The .gitattributes files looked at are the root one and
 * the work tree's copy of every one the index tracks; an untracked .gitattributes below
 * the root is not seen (finding one would mean a stat in every directory per query).
 *
 * Rejected: asking `git check-attr` for every path in the history (a process and a pass
 * over every path per query); keying by the content of whole files (a comment would throw
 * the index away).
 */
#include "git_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ATTR_FILE_MAX (1u << 20) /* a bigger attributes file is hashed whole */

typedef struct fp_state {
    uint64_t h;
    qr_buf macros; /* "\n" + each macro name + "\n" */
} fp_state;

static void mix(fp_state *st, const char *s, size_t n)
{
    st->h = qr_hash_combine(st->h, qr_hash_bytes(s, n));
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The attribute names of line[0..n) after its pattern, calling fn on each. */
static bool line_names(const char *line, size_t n, bool (*fn)(void *, const char *, size_t),
                       void *ud)
{
    size_t i = 0;
    while (i < n && space(line[i]))
        i++;
    if (i < n && line[i] == '"') { /* a quoted pattern */
        for (i++; i < n && line[i] != '"'; i++)
            if (line[i] == '\\')
                i++;
        i++;
    } else {
        while (i < n && !space(line[i]))
            i++;
    }
    while (i < n) {
        while (i < n && space(line[i]))
            i++;
        size_t s = i;
        while (i < n && !space(line[i]))
            i++;
        if (s == i)
            break;
        const char *w = line + s;
        size_t len = i - s;
        if (*w == '-' || *w == '!')
            w++, len--;
        const char *eq = memchr(w, '=', len);
        if (eq)
            len = (size_t)(eq - w);
        if (len && fn(ud, w, len))
            return true;
    }
    return false;
}

static bool note_macro(fp_state *st, const char *line, size_t n)
{
    size_t i = 0;
    while (i < n && space(line[i]))
        i++;
    if (n - i < 6 || memcmp(line + i, "[attr]", 6))
        return false;
    i += 6;
    size_t s = i;
    while (i < n && !space(line[i]))
        i++;
    qr_buf_append(&st->macros, line + s, i - s);
    qr_buf_putc(&st->macros, '\n');
    return true;
}

static bool matters(void *ud, const char *w, size_t len)
{
    const fp_state *st = ud;
    if ((len == 4 && !memcmp(w, "diff", 4)) || (len == 6 && !memcmp(w, "binary", 6)))
        return true;
    /* a macro name: "\nNAME\n" in the list */
    const char *m = st->macros.p;
    for (size_t i = 0; m && i + len + 1 < st->macros.len; i++)
        if (m[i] == '\n' && !memcmp(m + i + 1, w, len) && m[i + 1 + len] == '\n')
            return true;
    return false;
}

/* The macros text defines, first, so that a line may use a macro defined later. */
static void collect_macros(fp_state *st, const char *text, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *e = memchr(text + i, '\n', n - i);
        size_t len = e ? (size_t)(e - (text + i)) : n - i;
        note_macro(st, text + i, len);
        i += len + 1;
    }
}

/* Hashes the lines of one attributes file that can change a diff (label: where from). */
static void hash_lines(fp_state *st, const char *label, const char *text, size_t n)
{
    bool labelled = false; /* a file without a line that matters adds nothing */
    if (n > ATTR_FILE_MAX) {
        mix(st, label, strlen(label) + 1);
        mix(st, text, n);
        return;
    }
    for (size_t i = 0; i < n;) {
        const char *e = memchr(text + i, '\n', n - i);
        size_t len = e ? (size_t)(e - (text + i)) : n - i;
        const char *line = text + i;
        size_t k = 0;
        while (k < len && space(line[k]))
            k++;
        bool keep = k < len && line[k] != '#' &&
                    ((len - k >= 6 && !memcmp(line + k, "[attr]", 6)) ||
                     line_names(line, len, matters, st));
        if (keep && !labelled) {
            mix(st, label, strlen(label) + 1);
            labelled = true;
        }
        if (keep)
            mix(st, line, len); /* each line is its own hash: the boundaries count */
        i += len + 1;
    }
}

static bool read_whole(const char *path, char **text, size_t *n)
{
    return qr_read_file(path, 16u << 20, text, n) == QR_OK;
}

typedef struct attr_file {
    char *label;
    char *text;
    size_t n;
} attr_file;

typedef struct attr_files {
    attr_file *v;
    size_t n, cap;
    bool failed;
} attr_files;

static void files_add(attr_files *fs, const char *label, char *text, size_t n)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? fs->cap * 2 : 8;
        attr_file *v = realloc(fs->v, cap * sizeof *v);
        if (!v) {
            fs->failed = true;
            free(text);
            return;
        }
        fs->v = v;
        fs->cap = cap;
    }
    char *l = strdup(label);
    if (!l) {
        fs->failed = true;
        free(text);
        return;
    }
    fs->v[fs->n++] = (attr_file){l, text, n};
}

static void add_path(attr_files *fs, const char *label, const char *path)
{
    char *text = NULL;
    size_t n = 0;
    if (path && read_whole(path, &text, &n))
        files_add(fs, label, text, n);
}

/* A tracked .gitattributes, as git log reads it: the work tree's copy (git log does not
 * read the index, so a file deleted from the work tree counts as absent). */
static void add_tracked(attr_files *fs, qr_git *g, const git_index_entry *e)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/%s", g->workdir, e->path);
    if (!p.failed)
        add_path(fs, e->path, p.p);
    else
        fs->failed = true;
    qr_buf_release(&p);
}

static bool is_attr_path(const char *path)
{
    size_t n = strlen(path);
    return (n == 14 && !strcmp(path, ".gitattributes")) ||
           (n > 15 && !strcmp(path + n - 15, "/.gitattributes"));
}

static void add_global(attr_files *fs, git_config *cfg)
{
    git_buf v = {0};
    if (cfg && git_config_get_string_buf(&v, cfg, "core.attributesfile") == 0) {
        qr_buf p;
        qr_buf_init(&p);
        const char *home = getenv("HOME");
        if (v.ptr[0] == '~' && v.ptr[1] == '/' && home)
            qr_buf_printf(&p, "%s%s", home, v.ptr + 1);
        else
            qr_buf_puts(&p, v.ptr);
        if (!p.failed)
            add_path(fs, "global", p.p);
        qr_buf_release(&p);
        git_buf_dispose(&v);
        return;
    }
    qr_buf p;
    qr_buf_init(&p);
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        qr_buf_printf(&p, "%s/git/attributes", xdg);
    else if (home)
        qr_buf_printf(&p, "%s/.config/git/attributes", home);
    if (p.len && !p.failed)
        add_path(fs, "global", p.p);
    qr_buf_release(&p);
}

static void config_entry(const git_config_entry *e, fp_state *st)
{
    mix(st, e->name, strlen(e->name) + 1);
    mix(st, e->value ? e->value : "", e->value ? strlen(e->value) + 1 : 1);
}

/* diff.<driver>.binary and core.bigFileThreshold (names as libgit2 gives them: section
 * and key in lower case) */
static bool config_matters(const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, "core.bigfilethreshold"))
        return true;
    return n > 12 && !strncmp(name, "diff.", 5) && !strcmp(name + n - 7, ".binary");
}

static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
                 !strcasecmp(v, "on"));
}

int qr__git_attrs_fingerprint(qr_git *g, uint64_t *out)
{
    *out = 0;
    attr_files fs = {0};
    git_config *cfg = NULL;
    if (git_repository_config_snapshot(&cfg, g->repo) != 0)
        cfg = NULL;
    if (!env_true("GIT_ATTR_NOSYSTEM"))
        add_path(&fs, "system", "/etc/gitattributes");
    add_global(&fs, cfg);
    if (g->workdir) {
        qr_buf p;
        qr_buf_init(&p);
        qr_buf_printf(&p, "%s/.gitattributes", g->workdir);
        bool root_tracked = false;
        git_index *ix = NULL;
        if (git_repository_index(&ix, g->repo) == 0) {
            git_index_read(ix, 0); /* picks up a changed index file; errors keep the old */
            size_t n = git_index_entrycount(ix);
            for (size_t i = 0; i < n; i++) {
                const git_index_entry *e = git_index_get_byindex(ix, i);
                if (e && GIT_INDEX_ENTRY_STAGE(e) == 0 && is_attr_path(e->path)) {
                    root_tracked = root_tracked || !strcmp(e->path, ".gitattributes");
                    add_tracked(&fs, g, e);
                }
            }
            git_index_free(ix);
        }
        if (!root_tracked && !p.failed)
            add_path(&fs, ".gitattributes", p.p);
        qr_buf_release(&p);
    }
    qr_buf info;
    qr_buf_init(&info);
    qr_buf_printf(&info, "%s/info/attributes", g->gitdir);
    if (!info.failed)
        add_path(&fs, "info", info.p);
    qr_buf_release(&info);

    fp_state st = {.h = 0x71756172727961ULL};
    qr_buf_init(&st.macros);
    qr_buf_putc(&st.macros, '\n');
    for (size_t i = 0; i < fs.n; i++)
        collect_macros(&st, fs.v[i].text, fs.v[i].n);
    for (size_t i = 0; i < fs.n; i++)
        hash_lines(&st, fs.v[i].label, fs.v[i].text, fs.v[i].n);
    /* every entry, filtered here: libgit2 1.5's regex matching leaks its match data */
    git_config_iterator *it = NULL;
    if (cfg && git_config_iterator_new(&it, cfg) == 0) {
        git_config_entry *e;
        while (git_config_next(&e, it) == 0)
            if (config_matters(e->name))
                config_entry(e, &st);
        git_config_iterator_free(it);
    }
    git_config_free(cfg);
    int rc = fs.failed || st.macros.failed ? QR_ENOMEM : QR_OK;
    for (size_t i = 0; i < fs.n; i++) {
        free(fs.v[i].label);
        free(fs.v[i].text);
    }
    free(fs.v);
    qr_buf_release(&st.macros);
    /* 0 is what an index handle that was never told the attributes uses */
    *out = st.h ? st.h : 1;
    return rc;
}

int qr__git_index_bind(qr_git *g, qr_git_index *ix)
{
    uint64_t fp;
    int rc = qr__git_attrs_fingerprint(g, &fp);
    if (rc == QR_OK)
        qr_git_index_set_attrs(ix, fp);
    return rc;
}

uint64_t qr__attrs_hash_text(const char *text, size_t n)
{
    fp_state st = {.h = 0x71756172727961ULL};
    qr_buf_init(&st.macros);
    qr_buf_putc(&st.macros, '\n');
    collect_macros(&st, text, n);
    hash_lines(&st, "text", text, n);
    qr_buf_release(&st.macros);
    return st.h;
}
