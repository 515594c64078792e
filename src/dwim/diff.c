/*
 * diff.c: unified diffs for the fix verb, parsed strictly and applied in memory (no
 * `patch`, no `git apply`). What models write is accepted: `--- a/x.c` / `+++ b/x.c`
 * headers (git's a/ b/ prefixes dropped, a tab and a timestamp after the path ignored),
 * `diff --git` and `index` lines, several files with several hunks each, `/dev/null` for a
 * new or a deleted file, `\ No newline at end of file`, and hunks without file headers (they
 * apply to the file the fix line names). Refused at parse time: a hunk whose lines do not
 * add up to its header's counts, a line that is no hunk line, hunks out of order or
 * overlapping, absolute paths, `..`, quoted paths, renames, copies and binary patches.
 *
 * Applying (qr__dwim_diff_apply): each hunk's old side (context and removed lines) is
 * looked for at the line its header names, shifted by the offset the previous hunk was
 * found at, then at 1, 2, ... QR__DWIM_DIFF_MAX_OFFSET lines before and after (patch's
 * fuzz 0 with an offset search): the nearest place wins, two places equally near are
 * refused as ambiguous, a hunk may not start before the end of the previous one. Lines
 * compare exactly, but for a carriage return at their end (so a CRLF file matches a diff
 * written with LF); added lines take the file's line ending.
 */
#include "dwim_int.h"

#include <stdio.h>
#include <string.h>

/* a line of the text: [s, s + n) without its end of line; e: its end-of-line bytes */
typedef struct span {
    const char *s;
    size_t n, e;
} span;

/* Splits text into lines (allocated from a; *count 0 for empty text). */
static span *split_lines(const char *t, size_t n, qr_arena *a, size_t *count)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += t[i] == '\n';
    k += n && t[n - 1] != '\n';
    span *v = qr_arena_alloc(a, (k ? k : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t j = 0;
    const char *p = t, *end = t + n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
        v[j].s = p;
        v[j].n = l;
        v[j].e = e ? 1 : 0;
        if (e && l && p[l - 1] == '\r') {
            v[j].n--;
            v[j].e = 2;
        }
        j++;
        p = e ? e + 1 : end;
    }
    *count = j;
    return v;
}

static bool starts(const span *l, const char *prefix)
{
    size_t k = strlen(prefix);
    return l->n >= k && !memcmp(l->s, prefix, k);
}

/* A number of a hunk header; false when there is none or it is absurd. */
static bool number(const char **p, const char *end, uint32_t *out)
{
    uint64_t v = 0;
    const char *s = *p;
    while (s < end && *s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > 100000000u)
            return false;
        s++;
    }
    if (s == *p)
        return false;
    *p = s;
    *out = (uint32_t)v;
    return true;
}

/* "@@ -A[,B] +C[,D] @@[ text]" */
static bool hunk_header(const span *l, qr_dwim_hunk *h)
{
    const char *p = l->s + 3, *end = l->s + l->n;
    if (p >= end || *p++ != '-' || !number(&p, end, &h->old_start))
        return false;
    h->old_count = 1;
    if (p < end && *p == ',' && (++p, !number(&p, end, &h->old_count)))
        return false;
    if (end - p < 2 || p[0] != ' ' || p[1] != '+')
        return false;
    p += 2;
    if (!number(&p, end, &h->new_start))
        return false;
    h->new_count = 1;
    if (p < end && *p == ',' && (++p, !number(&p, end, &h->new_count)))
        return false;
    if (end - p < 3 || memcmp(p, " @@", 3) != 0)
        return false;
    /* a count of 0 names the line before; otherwise the first line (never 0) */
    if ((h->old_count && !h->old_start) || (h->new_count && !h->new_start))
        return false;
    return true;
}

/* The path of a ---/+++ line: NULL for /dev/null; prefix ("a/" or "b/") dropped. */
static int header_path(const span *l, const char *prefix, qr_arena *a, const char **out,
                       unsigned lineno, qr_buf *err)
{
    const char *s = l->s + 4, *end = l->s + l->n;
    const char *tab = memchr(s, '\t', (size_t)(end - s));
    if (tab)
        end = tab;
    while (end > s && end[-1] == ' ')
        end--;
    size_t n = (size_t)(end - s);
    if (n == 9 && !memcmp(s, "/dev/null", 9)) {
        *out = NULL;
        return QR_OK;
    }
    if (!n) {
        qr_buf_printf(err, "line %u: a file header without a path", lineno);
        return QR_EINVAL;
    }
    if (*s == '"') {
        qr_buf_printf(err, "line %u: quoted paths are not supported", lineno);
        return QR_EINVAL;
    }
    if (n > 2 && !memcmp(s, prefix, 2)) {
        s += 2;
        n -= 2;
    }
    if (*s == '/') {
        qr_buf_printf(err, "line %u: absolute path '%.*s' (paths are relative to the "
                           "working tree)", lineno, (int)n, s);
        return QR_EINVAL;
    }
    /* no .. component */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
            qr_buf_printf(err, "line %u: path '%.*s' leaves the working tree", lineno, (int)n,
                          s);
            return QR_EINVAL;
        }
        i = j + 1;
    }
    if (memchr(s, '\0', n)) {
        qr_buf_printf(err, "line %u: a path with a NUL byte", lineno);
        return QR_EINVAL;
    }
    *out = qr_arena_strndup(a, s, n);
    return *out ? QR_OK : QR_ENOMEM;
}

bool qr__dwim_diff_like(const char *text, size_t n)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    size_t k;
    span *v = split_lines(text, n, &a, &k);
    bool yes = false;
    for (size_t i = 0; v && i < k && !yes; i++)
        yes = (starts(&v[i], "--- ") && i + 1 < k && starts(&v[i + 1], "+++ ")) ||
              starts(&v[i], "@@ -") || starts(&v[i], "diff --git ");
    qr_arena_release(&a);
    return yes;
}

static const char *const ignored[] = {"index ", "new file mode ", "deleted file mode ",
                                      "old mode ", "new mode ", "similarity index ",
                                      "dissimilarity index ", NULL};

int qr__dwim_diff_parse(const char *text, size_t n, qr_arena *a, qr_dwim_diff *out,
                       qr_buf *err)
{
    memset(out, 0, sizeof *out);
    size_t k;
    span *v = split_lines(text, n, a, &k);
    /* upper bounds: every line a hunk line, every second line a file or hunk */
    qr_dwim_hline *hl = v ? qr_arena_alloc(a, (k + 1) * sizeof *hl) : NULL;
    qr_dwim_hunk *hk = v ? qr_arena_alloc(a, (k / 2 + 1) * sizeof *hk) : NULL;
    qr_dwim_fdiff *fd = v ? qr_arena_zalloc(a, (k / 2 + 1) * sizeof *fd) : NULL;
    if (!v || !hl || !hk || !fd)
        return QR_ENOMEM;
    out->lines = hl;
    out->files = fd;
    size_t nl = 0, nh = 0, nf = 0;
    qr_dwim_fdiff *cur = NULL;
    uint32_t rem_old = 0, rem_new = 0; /* lines the open hunk still needs */
    bool seen = false, after_hunk = false, git_header = false;
    for (size_t i = 0; i < k; i++) {
        const span *l = &v[i];
        unsigned ln = (unsigned)(i + 1);
        if (memchr(l->s, '\0', l->n)) {
            qr_buf_printf(err, "line %u: a NUL byte (binary patches are not supported)", ln);
            return QR_EINVAL;
        }
        if (l->n && l->s[0] == '\\') {
            if (!after_hunk || !nl) {
                qr_buf_printf(err, "line %u: '\\' follows no hunk line", ln);
                return QR_EINVAL;
            }
            if (hl[nl - 1].nonl) {
                qr_buf_printf(err, "line %u: a second '\\ No newline' for one line", ln);
                return QR_EINVAL;
            }
            if (hl[nl - 1].kind == '+' && hl[nl - 1].n == 0) {
                /* an empty last line without its newline is no line at all */
                qr_buf_printf(err, "line %u: '\\ No newline' after an empty added line", ln);
                return QR_EINVAL;
            }
            hl[nl - 1].nonl = true;
            continue;
        }
        if (rem_old || rem_new) {
            char c = l->n ? l->s[0] : ' ';
            bool old = c == ' ' || c == '-', neu = c == ' ' || c == '+';
            if (!old && !neu) {
                qr_buf_printf(err, "line %u: a hunk line must start with ' ', '-' or '+' (the "
                                   "hunk at line %u still needs %u old and %u new lines)",
                              ln, hk[nh - 1].line, rem_old, rem_new);
                return QR_EINVAL;
            }
            if ((old && !rem_old) || (neu && !rem_new)) {
                qr_buf_printf(err, "line %u: the hunk at line %u has more %s lines than its "
                                   "header says", ln, hk[nh - 1].line,
                              old && !rem_old ? "old" : "new");
                return QR_EINVAL;
            }
            rem_old -= old;
            rem_new -= neu;
            hl[nl++] = (qr_dwim_hline){.kind = c, .s = l->n ? l->s + 1 : l->s,
                                       .n = l->n ? l->n - 1 : 0};
            hk[nh - 1].nlines++;
            after_hunk = true;
            continue;
        }
        bool prev_hunk = after_hunk;
        after_hunk = false;
        if (starts(l, "@@ ")) {
            qr_dwim_hunk h = {.first = nl, .line = ln};
            if (!hunk_header(l, &h)) {
                qr_buf_printf(err, "line %u: a hunk header must read '@@ -A,B +C,D @@'", ln);
                return QR_EINVAL;
            }
            if (!cur) {
                if (nf) {
                    qr_buf_printf(err, "line %u: a hunk without file headers after another "
                                       "file's hunks", ln);
                    return QR_EINVAL;
                }
                cur = &fd[nf++];
                cur->headerless = true;
                cur->hunks = &hk[nh];
            }
            if (cur->nhunks) {
                /* in 0-based lines: [begin, begin + old_count) */
                const qr_dwim_hunk *p = &cur->hunks[cur->nhunks - 1];
                uint64_t pend = (uint64_t)(p->old_count ? p->old_start - 1 : p->old_start) +
                                p->old_count;
                if ((uint64_t)(h.old_count ? h.old_start - 1 : h.old_start) < pend) {
                    qr_buf_printf(err, "line %u: the hunk overlaps or precedes the one at "
                                       "line %u", ln, p->line);
                    return QR_EINVAL;
                }
            }
            hk[nh++] = h;
            cur->nhunks++;
            rem_old = h.old_count;
            rem_new = h.new_count;
            if (!rem_old && !rem_new) {
                qr_buf_printf(err, "line %u: an empty hunk", ln);
                return QR_EINVAL;
            }
            seen = true;
            continue;
        }
        if (starts(l, "--- ")) {
            if (i + 1 >= k || !starts(&v[i + 1], "+++ ")) {
                qr_buf_printf(err, "line %u: '---' is not followed by a '+++' line", ln);
                return QR_EINVAL;
            }
            if (cur && !cur->nhunks) {
                qr_buf_printf(err, "line %u: the file before has no hunk", ln);
                return QR_EINVAL;
            }
            cur = &fd[nf++];
            cur->hunks = &hk[nh];
            cur->line = ln;
            int rc = header_path(l, "a/", a, &cur->old_path, ln, err);
            if (rc == QR_OK)
                rc = header_path(&v[i + 1], "b/", a, &cur->new_path, ln + 1, err);
            if (rc != QR_OK)
                return rc;
            if (!cur->old_path && !cur->new_path) {
                qr_buf_printf(err, "line %u: both sides are /dev/null", ln);
                return QR_EINVAL;
            }
            if (cur->old_path && cur->new_path && strcmp(cur->old_path, cur->new_path) != 0) {
                qr_buf_printf(err, "line %u: renames are not supported ('%s' to '%s')", ln,
                              cur->old_path, cur->new_path);
                return QR_EINVAL;
            }
            for (size_t f = 0; f + 1 < nf; f++) {
                const char *a1 = fd[f].new_path ? fd[f].new_path : fd[f].old_path;
                const char *a2 = cur->new_path ? cur->new_path : cur->old_path;
                if (a1 && !strcmp(a1, a2)) {
                    qr_buf_printf(err, "line %u: '%s' appears twice in the diff", ln, a2);
                    return QR_EINVAL;
                }
            }
            git_header = false;
            seen = true;
            i++;
            continue;
        }
        if (starts(l, "diff --git ")) {
            if (cur && !cur->nhunks && !git_header) {
                qr_buf_printf(err, "line %u: the file before has no hunk", ln);
                return QR_EINVAL;
            }
            cur = NULL;
            git_header = true;
            seen = true;
            continue;
        }
        if (starts(l, "GIT binary patch") || starts(l, "Binary files ")) {
            qr_buf_printf(err, "line %u: binary patches are not supported", ln);
            return QR_EINVAL;
        }
        if (starts(l, "rename ") || starts(l, "copy ")) {
            qr_buf_printf(err, "line %u: renames and copies are not supported", ln);
            return QR_EINVAL;
        }
        bool skip = l->n == 0;
        for (size_t j = 0; ignored[j] && !skip; j++)
            skip = git_header && starts(l, ignored[j]);
        if (skip || !seen)
            continue; /* blank lines, git's extended headers, words before the diff */
        if (prev_hunk && (l->s[0] == ' ' || l->s[0] == '-' || l->s[0] == '+')) {
            qr_buf_printf(err, "line %u: the hunk at line %u has more %s lines than its "
                               "header says", ln, hk[nh - 1].line,
                          l->s[0] == '+' ? "new" : "old");
            return QR_EINVAL;
        }
        qr_buf_printf(err, "line %u: not part of a unified diff: '%.*s'", ln,
                      (int)(l->n < 60 ? l->n : 60), l->s);
        return QR_EINVAL;
    }
    if (rem_old || rem_new) {
        qr_buf_printf(err, "the hunk at line %u ends early: %u old and %u new lines missing",
                      hk[nh - 1].line, rem_old, rem_new);
        return QR_EINVAL;
    }
    if (!nf) {
        qr_buf_puts(err, "no hunk ('@@ -A,B +C,D @@') in the diff");
        return QR_EINVAL;
    }
    for (size_t f = 0; f < nf; f++) {
        const qr_dwim_fdiff *d = &fd[f];
        if (!d->nhunks) {
            qr_buf_printf(err, "'%s' has no hunk", d->new_path ? d->new_path : d->old_path);
            return QR_EINVAL;
        }
        if ((!d->old_path && !d->headerless &&
             (d->nhunks != 1 || d->hunks[0].old_count || d->hunks[0].old_start)) ||
            (!d->new_path && !d->headerless &&
             (d->nhunks != 1 || d->hunks[0].new_count || d->hunks[0].new_start))) {
            qr_buf_printf(err, "line %u: a new or deleted file takes one hunk: @@ -0,0 +1,N "
                               "@@ or @@ -1,N +0,0 @@", d->line);
            return QR_EINVAL;
        }
        /* '\ No newline' only after the last line of its side */
        for (size_t h = 0; h < d->nhunks; h++) {
            const qr_dwim_hunk *hh = &d->hunks[h];
            for (size_t j = 0; j < hh->nlines; j++) {
                const qr_dwim_hline *x = &hl[hh->first + j];
                if (!x->nonl)
                    continue;
                for (size_t m = j + 1; m < hh->nlines; m++) {
                    char c = hl[hh->first + m].kind;
                    if ((x->kind != '+' && c != '+') || (x->kind != '-' && c != '-')) {
                        qr_buf_printf(err, "the hunk at line %u: '\\ No newline at end of "
                                           "file' before the end of the file",
                                      hh->line);
                        return QR_EINVAL;
                    }
                }
                if (h + 1 < d->nhunks) {
                    qr_buf_printf(err, "the hunk at line %u: '\\ No newline at end of file' "
                                       "in a hunk that is not the last", hh->line);
                    return QR_EINVAL;
                }
            }
        }
    }
    out->nfiles = nf;
    return QR_OK;
}

/* Does the old side of h match the file's lines from p? */
static bool matches(const qr_dwim_diff *d, const qr_dwim_hunk *h, const span *fl, size_t nfl,
                    size_t p, size_t *bad)
{
    size_t k = p;
    for (size_t j = 0; j < h->nlines; j++) {
        const qr_dwim_hline *x = &d->lines[h->first + j];
        if (x->kind == '+')
            continue;
        size_t xn = x->n && x->s[x->n - 1] == '\r' ? x->n - 1 : x->n;
        if (k >= nfl || fl[k].n != xn || memcmp(fl[k].s, x->s, xn) != 0 ||
            (x->nonl && (k + 1 != nfl || fl[k].e))) {
            if (bad)
                *bad = k;
            return false;
        }
        k++;
    }
    return true;
}

int qr__dwim_diff_apply(const qr_dwim_diff *d, const qr_dwim_fdiff *f, const char *name,
                        const char *text, size_t n, qr_buf *out, uint32_t *first_line,
                        qr_buf *err)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    size_t nfl;
    span *fl = split_lines(text, n, &a, &nfl);
    if (!fl) {
        qr_arena_release(&a);
        return QR_ENOMEM;
    }
    const char *eol = nfl && fl[0].e == 2 ? "\r\n" : "\n";
    size_t eoln = strlen(eol);
    size_t cursor = 0;          /* the next file line not yet copied */
    long long offset = 0;       /* where the previous hunk was found, against its header */
    bool open_line = false;     /* the output ends with a line that has no end of line */
    int rc = QR_OK;
    for (size_t h = 0; h < f->nhunks && rc == QR_OK; h++) {
        const qr_dwim_hunk *hk = &f->hunks[h];
        long long base = hk->old_count ? (long long)hk->old_start - 1 : hk->old_start;
        long long want = base + offset;
        long long found = -1;
        size_t bad = (size_t)-1;
        for (long long dist = 0; dist <= QR__DWIM_DIFF_MAX_OFFSET && found < 0; dist++) {
            long long at[2] = {want - dist, want + dist};
            int hits = 0;
            for (int s = 0; s < (dist ? 2 : 1); s++) {
                long long p = at[s];
                if (p < (long long)cursor || p + hk->old_count > (long long)nfl)
                    continue;
                if (!hk->old_count && dist)
                    continue; /* an insertion without context goes where it says */
                if (matches(d, hk, fl, nfl, (size_t)p, dist ? NULL : &bad)) {
                    if (hits++) {
                        qr_buf_printf(err, "hunk %zu of '%s' (@@ -%u,%u) matches at lines %lld "
                                           "and %lld, equally far from line %lld; give more "
                                           "context", h + 1, name, hk->old_start,
                                      hk->old_count, at[0] + 1, at[1] + 1, want + 1);
                        rc = QR_EINVAL;
                    }
                    found = p;
                }
            }
        }
        if (rc != QR_OK)
            break;
        if (found < 0) {
            qr_buf_printf(err, "hunk %zu of '%s' (@@ -%u,%u) does not apply: its old lines are "
                               "not within %d lines of line %lld", h + 1, name, hk->old_start,
                          hk->old_count, QR__DWIM_DIFF_MAX_OFFSET, want + 1);
            if (bad != (size_t)-1 && bad < nfl)
                qr_buf_printf(err, " (line %zu reads '%.*s')", bad + 1,
                              (int)(fl[bad].n < 60 ? fl[bad].n : 60), fl[bad].s);
            rc = QR_EINVAL;
            break;
        }
        if (h == 0 && first_line) {
            /* the first line the hunk changes */
            size_t k = (size_t)found, j = 0;
            for (; j < hk->nlines && d->lines[hk->first + j].kind == ' '; j++)
                k++;
            *first_line = (uint32_t)k + 1;
        }
        offset = found - base;
        /* the lines before the hunk, as they were */
        for (; cursor < (size_t)found; cursor++) {
            if (open_line)
                qr_buf_append(out, eol, eoln);
            qr_buf_append(out, fl[cursor].s, fl[cursor].n + fl[cursor].e);
            open_line = !fl[cursor].e;
        }
        for (size_t j = 0; j < hk->nlines; j++) {
            const qr_dwim_hline *x = &d->lines[hk->first + j];
            if (x->kind == '-') {
                cursor++;
                continue;
            }
            if (open_line)
                qr_buf_append(out, eol, eoln);
            if (x->kind == ' ') {
                /* a context line stays as the file has it */
                qr_buf_append(out, fl[cursor].s, fl[cursor].n + fl[cursor].e);
                open_line = !fl[cursor].e;
                cursor++;
            } else {
                size_t xn = x->n && x->s[x->n - 1] == '\r' ? x->n - 1 : x->n;
                qr_buf_append(out, x->s, xn);
                if (!x->nonl)
                    qr_buf_append(out, eol, eoln);
                open_line = x->nonl;
            }
        }
    }
    for (; rc == QR_OK && cursor < nfl; cursor++) {
        if (open_line)
            qr_buf_append(out, eol, eoln);
        qr_buf_append(out, fl[cursor].s, fl[cursor].n + fl[cursor].e);
        open_line = !fl[cursor].e;
    }
    if (rc == QR_OK && out->failed)
        rc = QR_ENOMEM;
    qr_arena_release(&a);
    return rc;
}
