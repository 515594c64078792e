/*
 * pathspec.c: git's pathspecs as the history tools take them, and the quoted form of a
 * path that is not UTF-8.
 *
 * A pathspec is read as git reads one given at the top of the work tree: the magic
 * signature first (`:(icase,exclude,glob,literal,top)` or the short `:!`, `:^`, `:/`),
 * then the path, normalised ("./" and "//" dropped, "dir/.." resolved; climbing above the
 * root is refused, as git refuses it, and so is an absolute path outside the work tree).
 * Matching is git's: the exact path, a leading directory, or a wildcard match; without
 * `glob` magic a '*' also matches '/', with it '*' stops at '/' and "**" crosses
 * directories (git's wildmatch); `icase` folds ASCII case; `exclude` inverts (one
 * excluding pathspec alone means "everything but"). Magic git knows but quarry does not
 * support (`attr:`) and magic git does not know are errors, not silent mismatches.
 *
 * Paths come back as git stores them (bytes). One that is not valid UTF-8 cannot travel
 * in JSON, so it is given in git's C-quoted form ("caf\351.txt", with the quotes), which
 * a pathspec accepts back: a path parameter that starts and ends with '"' is unquoted
 * first. A UTF-8 name that itself starts and ends with '"' is quoted as well, so the
 * quoted form never collides with a real name.
 *
 * Rejected: fnmatch(3) (no "**", and its FNM_PATHNAME differs from git's at the edges);
 * quoting every non-ASCII byte as git's core.quotePath does (unreadable for UTF-8 names).
 */
#include "git_int.h"

#include <limits.h>
#include <string.h>

/* ---- wildcard matching (git's wildmatch, written from its documented behaviour) ---- */

static unsigned char fold(unsigned char c, bool icase)
{
    return icase && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool class_has(const char *name, size_t n, unsigned char c)
{
#define CLS(s, test)                                                                               \
    if (n == sizeof s - 1 && !memcmp(name, s, n))                                                  \
        return (test);
    CLS("alpha", (c | 32) >= 'a' && (c | 32) <= 'z')
    CLS("digit", c >= '0' && c <= '9')
    CLS("alnum", ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9'))
    CLS("upper", c >= 'A' && c <= 'Z')
    CLS("lower", c >= 'a' && c <= 'z')
    CLS("space", c == ' ' || (c >= '\t' && c <= '\r'))
    CLS("blank", c == ' ' || c == '\t')
    CLS("punct", c > ' ' && c < 127 && !(((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9')))
    CLS("xdigit", (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'))
    CLS("cntrl", c < ' ' || c == 127)
    CLS("print", c >= ' ' && c < 127)
    CLS("graph", c > ' ' && c < 127)
#undef CLS
    return false;
}

/* A bracket expression at p (just after '['): *matched and the position after ']', or
 * NULL when it is not closed (then '[' is an ordinary character). */
static const char *bracket(const char *p, const char *pe, unsigned char c, bool icase, bool *matched)
{
    bool neg = p < pe && (*p == '!' || *p == '^');
    if (neg)
        p++;
    bool hit = false, first = true;
    unsigned char fc = fold(c, icase);
    while (p < pe && (*p != ']' || first)) {
        first = false;
        if (*p == '[' && p + 1 < pe && p[1] == ':') {
            const char *e = p + 2;
            while (e + 1 < pe && !(e[0] == ':' && e[1] == ']'))
                e++;
            if (e + 1 >= pe)
                return NULL;
            hit = hit || class_has(p + 2, (size_t)(e - (p + 2)), c) ||
                  (icase && class_has(p + 2, (size_t)(e - (p + 2)), fold(c, true)));
            p = e + 2;
            continue;
        }
        unsigned char lo = (unsigned char)*p;
        if (lo == '\\' && p + 1 < pe)
            lo = (unsigned char)*++p;
        p++;
        unsigned char hi = lo;
        if (p + 1 < pe && *p == '-' && p[1] != ']') {
            hi = (unsigned char)p[1];
            if (hi == '\\' && p + 2 < pe)
                hi = (unsigned char)*++p;
            p += 2;
        }
        if ((c >= lo && c <= hi) || (icase && fc >= fold(lo, true) && fc <= fold(hi, true)))
            hit = true;
    }
    if (p >= pe)
        return NULL;
    *matched = hit != neg;
    return p + 1;
}

enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

/* The most steps one match may take: git's abort rules keep a match polynomial, and this
 * bounds what is left (a pattern that needs more does not match). */
#define WILD_BUDGET 100000

typedef struct wild_ctx {
    const char *p0, *pe, *te;
    bool pathname, icase;
    long budget;
} wild_ctx;

/* Does pattern p match text t (to the ends of both)? pathname: '*', '?' and brackets do
 * not match '/', and "**" between slashes (or at either end) matches any number of
 * directories. The abort codes are git's: once the text ran out, or a single '*' met a
 * '/', no later start of an enclosing '*' can match either. */
static int wild(wild_ctx *w, const char *p, const char *t)
{
    for (; p < w->pe; p++, t++) {
        if (--w->budget < 0)
            return WM_ABORT_ALL;
        unsigned char c = (unsigned char)*p;
        if (t >= w->te && c != '*')
            return WM_ABORT_ALL;
        unsigned char tc = t < w->te ? (unsigned char)*t : 0;
        if (c == '*') {
            const char *q = p;
            while (q < w->pe && *q == '*')
                q++;
            bool match_slash = !w->pathname;
            if (w->pathname && q - p >= 2 && (p == w->p0 || p[-1] == '/') &&
                (q == w->pe || *q == '/')) {
                if (q == w->pe)
                    return WM_MATCH; /* a trailing "**": everything below */
                /* "**" + "/": no directory at all, or any ending before a '/' */
                if (wild(w, q + 1, t) == WM_MATCH)
                    return WM_MATCH;
                match_slash = true;
            }
            p = q;
            if (p == w->pe)
                return !match_slash && memchr(t, '/', (size_t)(w->te - t)) ? WM_ABORT_TO_STARSTAR
                                                                           : WM_MATCH;
            for (; t < w->te; t++) {
                int r = wild(w, p, t);
                if (r != WM_NOMATCH) {
                    if (!match_slash || r != WM_ABORT_TO_STARSTAR)
                        return r;
                } else if (!match_slash && *t == '/') {
                    return WM_ABORT_TO_STARSTAR;
                }
            }
            return WM_ABORT_ALL;
        }
        if (c == '?') {
            if (w->pathname && tc == '/')
                return WM_NOMATCH;
        } else if (c == '[') {
            bool m = false;
            const char *after = bracket(p + 1, w->pe, tc, w->icase, &m);
            if (after) {
                if (!m || (w->pathname && tc == '/'))
                    return WM_NOMATCH;
                p = after - 1;
            } else if (tc != '[') {
                return WM_NOMATCH;
            }
        } else {
            if (c == '\\' && p + 1 < w->pe)
                c = (unsigned char)*++p;
            if (fold(c, w->icase) != fold(tc, w->icase))
                return WM_NOMATCH;
        }
    }
    return t == w->te ? WM_MATCH : WM_NOMATCH;
}

bool qr__wildmatch(const char *pat, size_t plen, const char *text, size_t tlen, bool pathname,
                   bool icase)
{
    wild_ctx w = {pat, pat + plen, text + tlen, pathname, icase, WILD_BUDGET};
    return wild(&w, pat, text) == WM_MATCH;
}

/* ---- the quoted form of a path ---- */

static bool needs_quote(const char *s, size_t n)
{
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
        return true;
    return !qr_utf8_valid(s, n);
}

const char *qr__path_shown(qr_arena *a, const char *s, size_t n)
{
    if (!needs_quote(s, n))
        return s;
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_putc(&b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        size_t k = c >= 0x80 ? qr_utf8_decode(s + i, n - i, &cp) : 1;
        if (c >= 0x80 && !(k == 1 && cp == 0xFFFD)) {
            qr_buf_append(&b, s + i, k); /* a valid character stays as it is */
            i += k;
            continue;
        }
        static const char esc[] = "\a\b\t\n\v\f\r", let[] = "abtnvfr";
        const char *e = c ? strchr(esc, c) : NULL;
        if (c == '"' || c == '\\')
            qr_buf_printf(&b, "\\%c", c);
        else if (e)
            qr_buf_printf(&b, "\\%c", let[e - esc]);
        else if (c < 0x20 || c >= 0x7f)
            qr_buf_printf(&b, "\\%03o", c);
        else
            qr_buf_putc(&b, (char)c);
        i++;
    }
    qr_buf_putc(&b, '"');
    const char *out = b.failed ? NULL : qr_arena_strndup(a, b.p, b.len);
    qr_buf_release(&b);
    return out;
}

int qr__path_unquote(qr_arena *a, const char *s, const char **out, qr_buf *err)
{
    size_t n = strlen(s);
    *out = s;
    if (n < 2 || s[0] != '"' || s[n - 1] != '"')
        return QR_OK;
    char *r = qr_arena_alloc(a, n);
    if (!r)
        return QR_ENOMEM;
    size_t k = 0;
    static const char esc[] = "\a\b\t\n\v\f\r", let[] = "abtnvfr";
    for (size_t i = 1; i + 1 < n; i++) {
        char c = s[i];
        if (c == '"')
            goto bad;
        if (c != '\\') {
            r[k++] = c;
            continue;
        }
        if (i + 2 >= n)
            goto bad;
        c = s[++i];
        const char *l = c ? strchr(let, c) : NULL;
        if (c == '"' || c == '\\') {
            r[k++] = c;
        } else if (l) {
            r[k++] = esc[l - let];
        } else if (c >= '0' && c <= '3' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '7' &&
                   s[i + 2] >= '0' && s[i + 2] <= '7') {
            int v = (c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0');
            if (!v)
                goto bad;
            r[k++] = (char)v;
            i += 2;
        } else {
            goto bad;
        }
    }
    r[k] = '\0';
    *out = r;
    return QR_OK;
bad:
    qr_buf_printf(err,
                  "bad quoted path '%s': inside the quotes only \\\\, \\\", \\a \\b \\t \\n \\v "
                  "\\f \\r and \\NNN (three octal digits, not 000) may follow a backslash",
                  s);
    return QR_EINVAL;
}

/* ---- parsing ---- */

static int magic_word(qr_pathspec *ps, const char *w, size_t n, const char *spec, qr_buf *err)
{
#define IS(s) (n == sizeof s - 1 && !memcmp(w, s, n))
    if (IS("top"))
        return QR_OK;
    if (IS("icase"))
        ps->icase = true;
    else if (IS("exclude"))
        ps->exclude = true;
    else if (IS("glob"))
        ps->wild = true;
    else if (IS("literal"))
        ps->literal = true;
    else if (n >= 5 && !memcmp(w, "attr:", 5)) {
        qr_buf_printf(err,
                      "pathspec '%s': the 'attr' magic is not supported; use top, icase, "
                      "exclude, glob or literal",
                      spec);
        return QR_EINVAL;
    } else {
        qr_buf_printf(err,
                      "pathspec '%s': unknown magic '%.*s'; git's magic words are top, icase, "
                      "exclude, glob and literal (short forms ':/', ':!', ':^')",
                      spec, (int)n, w);
        return QR_EINVAL;
    }
#undef IS
    return QR_OK;
}

/* Reads the magic signature of spec; *rest is the path after it. */
static int parse_magic(qr_pathspec *ps, const char *spec, const char **rest, qr_buf *err)
{
    const char *p = spec;
    *rest = spec;
    if (*p != ':')
        return QR_OK;
    p++;
    if (*p == '(') {
        const char *close = strchr(p, ')');
        if (!close) {
            qr_buf_printf(err, "pathspec '%s': missing ')' at the end of the magic signature", spec);
            return QR_EINVAL;
        }
        for (const char *w = p + 1; w < close;) {
            const char *e = w;
            while (e < close && *e != ',')
                e++;
            if (e > w && magic_word(ps, w, (size_t)(e - w), spec, err) != QR_OK)
                return QR_EINVAL;
            w = e + 1;
        }
        *rest = close + 1;
    } else {
        for (; *p == '/' || *p == '!' || *p == '^'; p++)
            if (*p != '/')
                ps->exclude = true;
        if (*p == ':')
            p++;
        *rest = p;
    }
    if (ps->wild && ps->literal) {
        qr_buf_printf(err, "pathspec '%s': the magic 'literal' and 'glob' cannot be combined", spec);
        return QR_EINVAL;
    }
    return QR_OK;
}

/* Normalises path into a (from the root: "./" and "//" dropped, ".." resolved); refuses
 * what climbs above the root. workdir: an absolute path inside it is made relative. */
static int normalise(qr_arena *a, const char *spec, const char *path, const char *workdir,
                     const char **out, qr_buf *err)
{
    if (path[0] == '/') {
        size_t w = workdir ? strlen(workdir) : 0;
        if (!workdir || strncmp(path, workdir, w) || (path[w] && path[w] != '/')) {
            qr_buf_printf(err,
                          "pathspec '%s' is outside the repository%s%s%s; give a path from "
                          "the repository's root",
                          spec, workdir ? " at '" : "", workdir ? workdir : "", workdir ? "'" : "");
            return QR_EINVAL;
        }
        path += w;
    }
    size_t n = strlen(path);
    char *r = qr_arena_alloc(a, n + 1);
    if (!r)
        return QR_ENOMEM;
    size_t k = 0;
    bool trailing = n && path[n - 1] == '/';
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0)
            break;
        if (len == 1 && p[0] == '.') {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (k == 0) {
                qr_buf_printf(err,
                              "pathspec '%s' is outside the repository: '..' climbs above its "
                              "root; give a path from the repository's root",
                              spec);
                return QR_EINVAL;
            }
            while (k && r[k - 1] != '/')
                k--;
            if (k)
                k--; /* the '/' before the dropped component */
        } else {
            if (k)
                r[k++] = '/';
            memcpy(r + k, p, len);
            k += len;
        }
        p += len;
    }
    if (trailing && k)
        r[k++] = '/';
    r[k] = '\0';
    *out = r;
    return QR_OK;
}

int qr__pathspec_parse(qr_pathspec *ps, const char *spec, const char *workdir, qr_arena *a,
                       qr_buf *err)
{
    memset(ps, 0, sizeof *ps);
    if (!spec)
        return QR_OK;
    const char *s, *path;
    int rc = qr__path_unquote(a, spec, &s, err);
    if (rc == QR_OK)
        rc = parse_magic(ps, s, &path, err);
    if (rc == QR_OK && !ps->literal)
        rc = normalise(a, spec, path, workdir, &path, err);
    if (rc != QR_OK)
        return rc;
    size_t n = strlen(path);
    while (n && path[n - 1] == '/') {
        n--;
        ps->dir_only = true;
    }
    ps->pat = path;
    ps->len = n;
    ps->lit = ps->literal ? n : strcspn(path, "*?[\\");
    if (ps->lit > n)
        ps->lit = n;
    ps->glob = ps->lit < n;
    return QR_OK;
}

void qr__pathspec_init(qr_pathspec *ps, const char *pat)
{
    memset(ps, 0, sizeof *ps);
    if (!pat)
        return;
    while (pat[0] == '.' && pat[1] == '/')
        pat += 2;
    size_t n = strlen(pat);
    if (n == 1 && pat[0] == '.')
        n = 0;
    while (n && pat[n - 1] == '/') {
        n--;
        ps->dir_only = true;
    }
    ps->pat = pat;
    ps->len = n;
    ps->lit = strcspn(pat, "*?[\\");
    if (ps->lit > n)
        ps->lit = n;
    ps->glob = ps->lit < n;
}

bool qr__pathspec_all(const qr_pathspec *ps)
{
    return !ps || ((!ps->pat || ps->len == 0) && !ps->exclude);
}

bool qr__pathspec_has_magic(const qr_pathspec *ps)
{
    return ps && (ps->icase || ps->exclude || ps->wild || (ps->glob && !ps->literal));
}

static bool same(const qr_pathspec *ps, const char *a, const char *b, size_t n)
{
    if (!ps->icase)
        return !memcmp(a, b, n);
    for (size_t i = 0; i < n; i++)
        if (fold((unsigned char)a[i], true) != fold((unsigned char)b[i], true))
            return false;
    return true;
}

/* The pathspec's own pattern, before exclude inverts it. */
static bool base_match(const qr_pathspec *ps, const char *path, size_t n)
{
    if (!ps->pat || ps->len == 0)
        return true;
    if (n > ps->len && same(ps, path, ps->pat, ps->len) && path[ps->len] == '/')
        return true;
    if (n == ps->len && same(ps, path, ps->pat, n) && !ps->dir_only)
        return true;
    if (!ps->glob)
        return false;
    return qr__wildmatch(ps->pat, ps->len, path, n, ps->wild, ps->icase);
}

bool qr__pathspec_match(const qr_pathspec *ps, const char *path, size_t n)
{
    if (!ps)
        return true;
    bool m = base_match(ps, path, n);
    return ps->exclude ? !m : m;
}

static bool base_reaches(const qr_pathspec *ps, const char *dir, size_t n)
{
    if (!ps->pat || ps->len == 0)
        return true;
    if (ps->glob) {
        /* a match starts with the literal part: it and "dir/" agree as far as both go */
        size_t m = ps->lit < n ? ps->lit : n;
        if (!same(ps, ps->pat, dir, m))
            return false;
        return ps->lit <= n || ps->pat[n] == '/';
    }
    if (ps->len <= n) /* the pattern is dir itself or a directory above it */
        return same(ps, ps->pat, dir, ps->len) && (ps->len == n || dir[ps->len] == '/');
    return same(ps, ps->pat, dir, n) && ps->pat[n] == '/';
}

static bool base_covers(const qr_pathspec *ps, const char *dir, size_t n)
{
    if (!ps->pat || ps->len == 0)
        return true;
    if (ps->glob || ps->len > n)
        return false;
    return same(ps, ps->pat, dir, ps->len) && (ps->len == n || dir[ps->len] == '/');
}

bool qr__pathspec_reaches(const qr_pathspec *ps, const char *dir, size_t n)
{
    if (qr__pathspec_all(ps))
        return true;
    return ps->exclude ? !base_covers(ps, dir, n) : base_reaches(ps, dir, n);
}

bool qr__pathspec_covers(const qr_pathspec *ps, const char *dir, size_t n)
{
    if (qr__pathspec_all(ps))
        return true;
    return ps->exclude ? !base_reaches(ps, dir, n) : base_covers(ps, dir, n);
}

int qr__pathspec_to_git(const qr_pathspec *ps, qr_arena *a, const char **out)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, ":(top");
    if (ps->icase)
        qr_buf_puts(&b, ",icase");
    if (ps->exclude)
        qr_buf_puts(&b, ",exclude");
    if (ps->wild)
        qr_buf_puts(&b, ",glob");
    if (ps->literal || !ps->glob)
        qr_buf_puts(&b, ",literal");
    qr_buf_putc(&b, ')');
    qr_buf_append(&b, ps->pat ? ps->pat : "", ps->len);
    if (ps->dir_only)
        qr_buf_putc(&b, '/');
    *out = b.failed ? NULL : qr_arena_strndup(a, b.p, b.len);
    qr_buf_release(&b);
    return *out ? QR_OK : QR_ENOMEM;
}
