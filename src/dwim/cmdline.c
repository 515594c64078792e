/*
 * cmdline.c: a DWIM line written as another tool's command, or as an editor's action.
 *
 * Models and people type what their hands know: `cscope -dL3 foo`, `vim -t foo`,
 * `global -rx foo`, `head -50 x.c`, `git log -n 5 src/`, `git show --stat HEAD~1`,
 * `make -j4 check`, `:wq`, "find usages of foo", "go-to-definition foo". Each names what
 * it wants as surely as a verb's own name, and its flags say which verb and with which
 * arguments. This file reads such a line into the DWIM line that does the same
 * ("callers foo", "read x.c:1-50", "get_commits limit=5 path=src/"), which parse.c then
 * reads as any other line: one place decides what the verbs and tools take, and the
 * tables here are data (a program, its flags, the verb they mean).
 *
 * A line that only begins like a command ("make the tests pass", "more about X", "tail
 * recursion in eval") is left alone: each program's arguments must have the shapes it
 * takes (a path for a pager, a symbol for a tag lookup, a count for -n), or the line is
 * not rewritten and the parser reads its words.
 */
#include "dwim_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_W 24

typedef struct word {
    const char *s; /* in the arena, NUL-terminated, quotes removed */
    size_t n;
    bool quoted;
} word;

/* Cuts the first command of the line (up to a `|`, `;`, `&&` or `>` outside quotes) into
 * words; *rest points past the separator (NULL when none). Returns the word count, or
 * SIZE_MAX when the arena is exhausted or a quote is left open. */
static size_t split(const char *s, size_t n, qr_arena *a, word *w, const char **rest,
                    char *sep)
{
    size_t nw = 0, i = 0;
    *rest = NULL;
    *sep = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        if (s[i] == '|' || s[i] == ';' || s[i] == '>' || (s[i] == '&' && i + 1 < n && s[i + 1] == '&')) {
            *sep = s[i];
            i += s[i] == '&' ? 2 : 1;
            /* the line need not end in a NUL: what follows, copied */
            if (!(*rest = qr_arena_strndup(a, s + i, n - i)))
                return SIZE_MAX;
            break;
        }
        if (nw == MAX_W)
            return SIZE_MAX;
        char *out = qr_arena_alloc(a, n - i + 1);
        if (!out)
            return SIZE_MAX;
        size_t o = 0;
        bool quoted = false;
        while (i < n && !isspace((unsigned char)s[i]) && s[i] != '|' && s[i] != ';' &&
               s[i] != '>' && !(s[i] == '&' && i + 1 < n && s[i + 1] == '&')) {
            if (s[i] == '\'' || s[i] == '"') {
                char q = s[i++];
                const char *close = memchr(s + i, q, n - i);
                if (!close)
                    return SIZE_MAX;
                size_t l = (size_t)(close - (s + i));
                memcpy(out + o, s + i, l);
                quoted |= o == 0; /* 'PAT' is quoted; --since='2 weeks' is an option */
                o += l;
                i += l + 1;
                continue;
            }
            out[o++] = s[i++];
        }
        out[o] = '\0';
        w[nw++] = (word){out, o, quoted};
    }
    return nw;
}

static bool is(const word *w, const char *s)
{
    return !w->quoted && !strcmp(w->s, s);
}

static bool is_flag(const word *w)
{
    return !w->quoted && w->n >= 2 && (w->s[0] == '-' || w->s[0] == '+');
}

/* all digits, at least one (parse.c's reader, on a NUL-terminated word) */
static bool all_digits(const char *s)
{
    return qr__dwim_all_digits(s, strlen(s));
}

/* A path as a file argument: it exists, or it has a directory part or an extension. */
static bool path_shaped(const qr_dwim_lookup *lk, const word *w)
{
    if (w->n == 0 || w->n > 1024 || is_flag(w))
        return false;
    if (lk && lk->path_exists && lk->path_exists(lk->ud, w->s))
        return true;
    for (const char *p = w->s; *p; p++)
        if (isspace((unsigned char)*p) || *p == '(' || *p == '$')
            return false;
    const char *slash = strrchr(w->s, '/');
    const char *base = slash ? slash + 1 : w->s;
    const char *dot = strrchr(base, '.');
    return slash || (dot && dot != base && dot[1] && isalpha((unsigned char)dot[1]));
}

static bool symbol_shaped(const qr_dwim_lookup *lk, const word *w, bool must_be_known)
{
    if (!qr__dwim_is_ident(w->s))
        return false;
    if (lk && lk->symbol_known && lk->symbol_known(lk->ud, w->s))
        return true;
    return !must_be_known;
}

/* ---- building the canonical line ---- */

/* `key=value`, the value quoted when it holds a space or a quote of the other kind */
static void put_kv(qr_buf *b, const char *k, const char *v)
{
    qr_buf_printf(b, " %s=", k);
    if (strpbrk(v, " \t'\"")) {
        char q = strchr(v, '\'') ? (strchr(v, '"') ? '`' : '"') : '\'';
        qr_buf_printf(b, "%c%s%c", q, v, q);
    } else {
        qr_buf_puts(b, v);
    }
}

static void put_arg(qr_buf *b, const char *v, bool quote)
{
    if (quote || strpbrk(v, " \t")) {
        char q = strchr(v, '\'') ? (strchr(v, '"') ? '`' : '"') : '\'';
        qr_buf_printf(b, " %c%s%c", q, v, q);
    } else {
        qr_buf_printf(b, " %s", v);
    }
}

/* ---- the families ---- */

static const char *const pagers[] = {
    "cat",  "more", "less", "most",  "bat",   "batcat", "vim",  "vi",   "nvim", "gvim",
    "mvim", "view", "emacs", "emacsclient", "nano", "pico", "micro", "kak", "hx", "helix",
    "subl", "code", "gedit", "kate", "nl", "type", "ed", "ex", "pg", "head", "tail",
    "xdg-open", "notepad", "open", NULL};

static bool in_list(const char *w, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return true;
    return false;
}

/* cat/less/vim/head ... FILE: read it (head -N its first N lines, sed -n 'A,Bp' lines A-B,
 * vim -t SYM the tag's definition) */
static bool pager(const qr_dwim_lookup *lk, word *w, size_t nw, const char *sep,
                  const char *rest, qr_buf *b)
{
    const char *prog = w[0].s;
    long count = -1;
    const word *file = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            /* vim -t SYM, view -t SYM: the tag */
            if (!strcmp(x->s, "-t") && i + 1 < nw &&
                (!strcmp(prog, "vim") || !strcmp(prog, "vi") || !strcmp(prog, "nvim") ||
                 !strcmp(prog, "gvim") || !strcmp(prog, "view")) &&
                nw == i + 2 && symbol_shaped(lk, &w[i + 1], false)) {
                qr_buf_printf(b, "definition %s", w[i + 1].s);
                return true;
            }
            if (!strcmp(prog, "head") || !strcmp(prog, "tail")) {
                if ((!strcmp(x->s, "-n") || !strcmp(x->s, "--lines")) && i + 1 < nw &&
                    all_digits(w[i + 1].s)) {
                    count = atol(w[++i].s);
                    continue;
                }
                if (!strncmp(x->s, "-n", 2) && all_digits(x->s + 2)) {
                    count = atol(x->s + 2);
                    continue;
                }
                if (!strncmp(x->s, "--lines=", 8) && all_digits(x->s + 8)) {
                    count = atol(x->s + 8);
                    continue;
                }
                if (x->s[0] == '-' && all_digits(x->s + 1)) {
                    count = atol(x->s + 1);
                    continue;
                }
            }
            continue; /* +120, -n, -R, --paging=never: how it shows, not what */
        }
        if (file || !path_shaped(lk, x))
            return false;
        file = x;
    }
    if (!file)
        return false;
    /* cat F | head -40: the first 40 lines */
    if (sep && *sep == '|' && !strcmp(prog, "cat") && rest) {
        const char *r = rest;
        while (*r == ' ')
            r++;
        if (!strncmp(r, "head -", 6) && isdigit((unsigned char)r[6]))
            count = atol(r + 6);
        else if (!strncmp(r, "head -n ", 8) && isdigit((unsigned char)r[8]))
            count = atol(r + 8);
    }
    if (!strcmp(prog, "head") && count < 0)
        count = 10;
    if (!strcmp(prog, "head") || (!strcmp(prog, "cat") && count > 0)) {
        if (count < 1 || count > 1000000)
            return false;
        qr_buf_printf(b, "read %s:1-%ld", file->s, count);
        return true;
    }
    qr_buf_printf(b, "read %s", file->s);
    return true;
}

static const char *const greps[] = {"grep", "egrep", "fgrep", "zgrep", "rg", "ripgrep", "ag",
                                    "ack", "ack-grep", "ugrep", "findstr", "sift", "pt",
                                    "git-grep", NULL};

/* grep/rg/ag/ack/git grep [-i -w -F ...] PATTERN [PATH]: grep, with the flags grep takes */
static bool grepper(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    const word *pat = NULL, *path = NULL;
    bool ci = false, wordm = false, fixed = !strcmp(w[0].s, "fgrep");
    static const char *const takes_value[] = {"-A", "-B", "-C", "-m", "-g", "-t", "-T",
                                              "-f", "--type", "--glob", "--max-count",
                                              "-M", "--context", NULL};
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x) && x->s[0] == '-') {
            if (!strcmp(x->s, "-e") || !strcmp(x->s, "--regexp")) {
                if (i + 1 >= nw || pat)
                    return false;
                pat = &w[++i];
                continue;
            }
            if (in_list(x->s, takes_value)) {
                i++;
                continue;
            }
            if (!strcmp(x->s, "--ignore-case"))
                ci = true;
            else if (!strcmp(x->s, "--word-regexp"))
                wordm = true;
            else if (!strcmp(x->s, "--fixed-strings"))
                fixed = true;
            else if (x->s[1] != '-')
                for (const char *p = x->s + 1; *p; p++) {
                    ci |= *p == 'i';
                    wordm |= *p == 'w';
                    fixed |= *p == 'F' || *p == 'Q';
                }
            continue;
        }
        if (!pat)
            pat = x;
        else if (!path && (path_shaped(lk, x) || !strcmp(x->s, ".") || !strcmp(x->s, "*")))
            path = x;
        else if (path && (path_shaped(lk, x) || strchr(x->s, '*')))
            continue; /* more files: the first says where */
        else
            return false;
    }
    if (!pat || !pat->n)
        return false;
    qr_buf_puts(b, "grep");
    if (ci || wordm || fixed)
        qr_buf_printf(b, " -%s%s%s", ci ? "i" : "", wordm ? "w" : "", fixed ? "F" : "");
    put_arg(b, pat->s, true);
    if (path && strcmp(path->s, ".") && strcmp(path->s, "*") && !strchr(path->s, '*'))
        qr_buf_printf(b, " %s", path->s);
    return true;
}

/* cscope -L<n> SYM (with -d, -k, -R...): the field numbers of cscope's line mode */
static bool cscope(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    int field = -1;
    const word *arg = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            const char *L = strchr(x->s, 'L');
            if (L && x->s[0] == '-' && x->s[1] != '-') {
                if (isdigit((unsigned char)L[1]))
                    field = L[1] - '0';
                else if (i + 1 < nw && w[i + 1].s[0] == '-' && isdigit((unsigned char)w[i + 1].s[1]) &&
                         !w[i + 1].s[2])
                    field = w[++i].s[1] - '0';
                continue;
            }
            if (x->s[0] == '-' && isdigit((unsigned char)x->s[1]) && !x->s[2]) {
                field = x->s[1] - '0';
                continue;
            }
            if (!strcmp(x->s, "-f") || !strcmp(x->s, "-P") || !strcmp(x->s, "-i") ||
                !strcmp(x->s, "-I") || !strcmp(x->s, "-s"))
                i++; /* its database, path prefix, file list, include dir or source dir */
            continue;
        }
        if (arg)
            return false;
        arg = x;
    }
    if (!arg || field < 0)
        return false;
    static const char *const verb[10] = {"references", "definition", "callees", "callers",
                                         "grep",       NULL,         "grep",    "read",
                                         "deps",       "references"};
    if (!verb[field])
        return false;
    if (field == 7 || field == 8) { /* a file: find it, or who includes it */
        if (!path_shaped(lk, arg) && !strchr(arg->s, '.'))
            return false;
        qr_buf_printf(b, field == 7 ? "read %s" : "deps %s reverse=true", arg->s);
        return true;
    }
    if (field == 4 || field == 6) {
        qr_buf_puts(b, "grep");
        put_arg(b, arg->s, true);
        return true;
    }
    if (!symbol_shaped(lk, arg, false))
        return false;
    qr_buf_printf(b, "%s %s", verb[field], arg->s);
    return true;
}

/* GNU global: SYM is its definition, -r its references, -s other symbols, -g a pattern,
 * -f a file's definitions */
static bool global(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    const char *verb = "definition";
    const word *arg = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            if (x->s[1] == '-') {
                if (!strcmp(x->s, "--reference"))
                    verb = "references";
                else if (!strcmp(x->s, "--grep"))
                    verb = "grep";
                else if (!strcmp(x->s, "--file"))
                    verb = "skeleton";
                continue;
            }
            for (const char *p = x->s + 1; *p; p++)
                verb = *p == 'r' || *p == 's' ? "references"
                       : *p == 'g'            ? "grep"
                       : *p == 'f'            ? "skeleton"
                                              : verb;
            continue;
        }
        if (arg)
            return false;
        arg = x;
    }
    if (!arg)
        return false;
    if (!strcmp(verb, "grep")) {
        qr_buf_puts(b, "grep");
        put_arg(b, arg->s, true);
        return true;
    }
    if (!strcmp(verb, "skeleton") ? !path_shaped(lk, arg) : !symbol_shaped(lk, arg, false))
        return false;
    qr_buf_printf(b, "%s %s", verb, arg->s);
    return true;
}

/* readtags [-t TAGS] [-e] SYM, cflow [-r] -m SYM: a definition, a call tree */
static bool tags_or_cflow(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    bool cflow = !strcmp(w[0].s, "cflow");
    bool reverse = false;
    const word *sym = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            if (!strcmp(x->s, "-t") && !cflow) {
                i++;
                continue;
            }
            if (cflow && (!strcmp(x->s, "-m") || !strcmp(x->s, "--main"))) {
                if (i + 1 >= nw || sym)
                    return false;
                sym = &w[++i];
                continue;
            }
            if (cflow && !strncmp(x->s, "--main=", 7)) {
                continue; /* the value is read below */
            }
            if (cflow && (!strcmp(x->s, "-r") || !strcmp(x->s, "--reverse")))
                reverse = true;
            continue;
        }
        if (cflow) {
            if (path_shaped(lk, x))
                continue; /* the files cflow reads */
            if (sym)
                return false;
            sym = x;
            continue;
        }
        if (sym)
            return false;
        sym = x;
    }
    if (cflow && !sym)
        for (size_t i = 1; i < nw; i++)
            if (!strncmp(w[i].s, "--main=", 7))
                sym = &(word){w[i].s + 7, w[i].n - 7, false};
    if (!sym || !symbol_shaped(lk, sym, false))
        return false;
    qr_buf_printf(b, "%s %s", cflow ? (reverse ? "callers" : "callees") : "definition", sym->s);
    return true;
}

/* ls / tree / dir / find DIR / nm x.o / ctags -R: what a directory or file holds */
static bool lister(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    const char *prog = w[0].s;
    const word *dir = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            /* tree -L 2, find -name '*.c', -maxdepth 1: the option's value */
            if (!strcmp(x->s, "-L") || !strcmp(x->s, "-name") || !strcmp(x->s, "-iname") ||
                !strcmp(x->s, "-maxdepth") || !strcmp(x->s, "-type") || !strcmp(x->s, "-I") ||
                !strcmp(x->s, "-path") || !strcmp(x->s, "-P"))
                i++;
            continue;
        }
        if (dir)
            return false;
        if (!strcmp(x->s, ".") || !strcmp(x->s, "./") || path_shaped(lk, x) ||
            (lk && lk->path_exists && lk->path_exists(lk->ud, x->s)))
            dir = x;
        else
            return false;
    }
    if (!strcmp(prog, "nm") || !strcmp(prog, "objdump")) {
        /* the object's source: x.o is x.c */
        if (!dir || dir->n < 3 || strcmp(dir->s + dir->n - 2, ".o"))
            return false;
        char *src = (char *)dir->s;
        src[dir->n - 1] = 'c';
        qr_buf_printf(b, "skeleton %s", src);
        return true;
    }
    if (!strcmp(prog, "find") && !dir)
        return false;
    qr_buf_printf(b, "skeleton %s", dir ? dir->s : ".");
    return true;
}

/* make [-jN] [check|test|all], ninja, meson test, tox ...: the repository's check */
static const char *const builders[] = {
    "make", "gmake", "ninja", "meson", "tox", "nox", "bazel", "cmake", "mvn", "gradle",
    "./gradlew", "yarn", "pnpm", "npm", "jest", "mocha", "vitest", "rspec", "phpunit",
    "dotnet", "zig", "just", "ctest", "pytest", "cargo", "go", "./configure", "scons",
    "autoreconf", "./autogen.sh", "python", "python3", NULL};

static bool builder(word *w, size_t nw, const char *orig, size_t on, qr_buf *b)
{
    const char *prog = w[0].s;
    /* python -m pytest / unittest only */
    if (!strcmp(prog, "python") || !strcmp(prog, "python3"))
        if (nw < 3 || strcmp(w[1].s, "-m") ||
            (strcmp(w[2].s, "pytest") && strcmp(w[2].s, "unittest")))
            return false;
    static const char *const words_ok[] = {
        "test",   "tests",   "check",  "all",      "build",   "run",  "install", "verify",
        "lint",   "clippy",  "vet",    "unittest", "pytest",  "-m",   "ci",      "compile",
        "debug",  "release", "default", "coverage", "distcheck", "unit", "integration",
        "--build", "build/", ".",      "./...",    "...",     "-C",   "--target", NULL};
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x) || in_list(x->s, words_ok))
            continue;
        /* make -C build test, cmake --build build: a directory */
        if (i > 1 && (!strcmp(w[i - 1].s, "-C") || !strcmp(w[i - 1].s, "--build") ||
                      !strcmp(w[i - 1].s, "--target")))
            continue;
        return false;
    }
    /* the test runners validate names itself keep their command (validate.c decides
       whether it is the repository's own) */
    static const char *const named[] = {"make", "ctest", "npm", "pytest", "cargo", "go", NULL};
    if (in_list(prog, named)) {
        size_t e = on;
        while (e > 0 && isspace((unsigned char)orig[e - 1]))
            e--;
        qr_buf_puts(b, "validate ");
        qr_buf_append(b, orig, e);
        return true;
    }
    qr_buf_puts(b, "validate");
    return true;
}

/* ---- git ---- */

static bool revish(const char *s)
{
    if (!*s || strlen(s) > 200)
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("._-/~^@{}", *p)))
            return false;
    return true;
}

/* A path given to git: one that exists, or one after `--`. */
static bool git_path(const qr_dwim_lookup *lk, const word *x, bool after_dashes)
{
    return after_dashes || (lk && lk->path_exists && lk->path_exists(lk->ud, x->s)) ||
           (!lk && path_shaped(lk, x));
}

static bool file_like(const char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '/')
        return false;
    const char *slash = strrchr(s, '/');
    const char *base = slash ? slash + 1 : s;
    return strchr(base + 1, '.') != NULL;
}

/* the option's value: --since=X or --since X */
static const char *opt_value(word *w, size_t nw, size_t *i, const char *name)
{
    size_t l = strlen(name);
    if (!strncmp(w[*i].s, name, l) && w[*i].s[l] == '=')
        return w[*i].s + l + 1;
    if (!strcmp(w[*i].s, name) && *i + 1 < nw) {
        (*i)++;
        return w[*i].s;
    }
    return NULL;
}

static bool git(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    if (nw < 2)
        return false;
    const char *sub = w[1].s;
    const char *limit = NULL, *since = NULL, *until = NULL, *author = NULL, *grep = NULL,
               *merges = NULL, *path = NULL, *rev = NULL, *rev2 = NULL;
    bool stat = false, follow = false, first_parent = false, dashes = false;
    for (size_t i = 2; i < nw; i++) {
        word *x = &w[i];
        const char *v;
        if (!dashes && is(x, "--")) {
            dashes = true;
            continue;
        }
        if (!dashes && is_flag(x)) {
            if ((v = opt_value(w, nw, &i, "--since")) || (v = opt_value(w, nw, &i, "--after")))
                since = v;
            else if ((v = opt_value(w, nw, &i, "--until")) || (v = opt_value(w, nw, &i, "--before")))
                until = v;
            else if ((v = opt_value(w, nw, &i, "--author")) || (v = opt_value(w, nw, &i, "--committer")))
                author = v;
            else if ((v = opt_value(w, nw, &i, "--grep")))
                grep = v;
            else if ((v = opt_value(w, nw, &i, "--max-count")) || (v = opt_value(w, nw, &i, "-n")))
                limit = v;
            else if (!strncmp(x->s, "-n", 2) && all_digits(x->s + 2))
                limit = x->s + 2;
            else if (x->s[0] == '-' && all_digits(x->s + 1))
                limit = x->s + 1;
            else if (is(x, "--no-merges"))
                merges = "exclude";
            else if (is(x, "--merges"))
                merges = "only";
            else if (is(x, "--first-parent"))
                first_parent = true;
            else if (is(x, "--follow"))
                follow = true;
            else if (is(x, "--stat") || is(x, "--shortstat") || is(x, "--numstat") ||
                     is(x, "--name-only") || is(x, "--name-status") || is(x, "--dirstat"))
                stat = true;
            else if (!strcmp(sub, "blame") && (is(x, "-L") || is(x, "-C") || is(x, "-M")))
                i += is(x, "-L");
            continue;
        }
        if (!strcmp(sub, "tag") || !strcmp(sub, "grep")) {
            if (rev)
                return false;
            rev = x->s; /* a tag pattern, or grep's pattern */
            continue;
        }
        if (git_path(lk, x, dashes)) {
            if (path)
                return false;
            path = x->s;
            continue;
        }
        if (!revish(x->s))
            return false;
        if (!rev)
            rev = x->s;
        else if (!rev2)
            rev2 = x->s;
        else
            return false;
    }
    if (limit && !all_digits(limit))
        return false;
    if (!strcmp(sub, "log") || !strcmp(sub, "whatchanged") || !strcmp(sub, "shortlog") ||
        !strcmp(sub, "blame") || !strcmp(sub, "annotate")) {
        bool blame = !strcmp(sub, "blame") || !strcmp(sub, "annotate");
        if (blame && !path)
            return false;
        const char *tool = !strcmp(sub, "shortlog") ? "get_author_stats"
                           : blame || (path && (follow || file_like(path)))
                               ? "get_file_history"
                               : "get_commits";
        qr_buf_puts(b, tool);
        if (path)
            put_kv(b, "path", path);
        if (rev && !blame)
            put_kv(b, "ref", rev);
        if (limit)
            put_kv(b, "limit", limit);
        if (since)
            put_kv(b, "since", since);
        if (until)
            put_kv(b, "until", until);
        if (author)
            put_kv(b, "author", author);
        if (grep && strcmp(tool, "get_author_stats"))
            put_kv(b, "grep", grep);
        if (merges)
            put_kv(b, "merges", merges);
        if (first_parent)
            qr_buf_puts(b, " first_parent=true");
        return true;
    }
    if (!strcmp(sub, "tag") || !strcmp(sub, "describe")) {
        qr_buf_puts(b, "get_tags");
        if (!strcmp(sub, "describe"))
            qr_buf_puts(b, " limit=1");
        else if (rev)
            put_kv(b, "pattern", rev);
        return true;
    }
    if (!strcmp(sub, "grep")) {
        if (!rev)
            return false;
        qr_buf_puts(b, "grep");
        put_arg(b, rev, true);
        if (path)
            qr_buf_printf(b, " %s", path);
        return true;
    }
    if (!strcmp(sub, "show")) {
        if (rev2)
            return false;
        const char *r = rev ? rev : "HEAD";
        if (stat) {
            qr_buf_printf(b, "get_diff_stats from=%s^ to=%s", r, r);
        } else {
            qr_buf_puts(b, "get_diff");
            put_kv(b, "commit", r);
        }
        if (path)
            put_kv(b, "path", path);
        return true;
    }
    if (!strcmp(sub, "diff")) {
        qr_buf_puts(b, stat ? "get_diff_stats" : "get_diff");
        if (rev)
            put_kv(b, "from", rev);
        if (rev2)
            put_kv(b, "to", rev2);
        if (path)
            put_kv(b, "path", path);
        return true;
    }
    if (!strcmp(sub, "ls-files") || !strcmp(sub, "ls-tree")) {
        qr_buf_printf(b, "skeleton %s", path ? path : ".");
        return true;
    }
    return false;
}

/* ---- editor actions and sign-offs: phrases ---- */

typedef enum arg_kind { A_NONE, A_SYM, A_FILE, A_ANY } arg_kind;

typedef struct phrase {
    const char *words; /* lower case, one space between words; '-' and '_' read as spaces */
    const char *verb;
    arg_kind arg;
} phrase;

static const phrase phrases[] = {
    /* an IDE's and an editor's actions */
    {"go to definition", "definition", A_SYM},
    {"goto definition", "definition", A_SYM},
    {"go to def", "definition", A_SYM},
    {"goto def", "definition", A_SYM},
    {"jump to definition", "definition", A_SYM},
    {"jump to def", "definition", A_SYM},
    {"find definition", "definition", A_SYM},
    {"show definition", "definition", A_SYM},
    {"peek definition", "definition", A_SYM},
    {"open definition", "definition", A_SYM},
    {"lookup definition", "definition", A_SYM},
    {"go to declaration", "definition", A_SYM},
    {"goto declaration", "definition", A_SYM},
    {"go to implementation", "definition", A_SYM},
    {"go to symbol", "definition", A_SYM},
    {"find symbol", "definition", A_SYM},
    {"search symbol", "definition", A_SYM},
    {"lookup symbol", "definition", A_SYM},
    {"look up symbol", "definition", A_SYM},
    {"symbol", "definition", A_SYM},
    {"workspace symbol", "definition", A_SYM},
    {"go to type definition", "definition", A_SYM},
    {"definition of", "definition", A_SYM},
    {"find declaration", "definition", A_SYM},
    {":tag", "definition", A_SYM},
    {":ts", "definition", A_SYM},
    {":tjump", "definition", A_SYM},
    {"tag", "definition", A_SYM},
    {"gd", "definition", A_SYM},
    {"gD", "definition", A_SYM},
    {"f12", "definition", A_SYM},
    {"decl", "definition", A_SYM},
    {"whereis", "definition", A_SYM},
    {"where is", "definition", A_SYM},
    {"locate", "definition", A_SYM},
    {"xref find references", "references", A_SYM},
    {"xref find definitions", "definition", A_SYM},
    {"lsp find references", "references", A_SYM},
    {"lsp find definition", "definition", A_SYM},
    {"find usages", "references", A_SYM},
    {"find usages of", "references", A_SYM},
    {"find all usages", "references", A_SYM},
    {"find all usages of", "references", A_SYM},
    {"find references", "references", A_SYM},
    {"find references to", "references", A_SYM},
    {"find all references", "references", A_SYM},
    {"find all references to", "references", A_SYM},
    {"show references", "references", A_SYM},
    {"show usages", "references", A_SYM},
    {"peek references", "references", A_SYM},
    {"go to references", "references", A_SYM},
    {"list references", "references", A_SYM},
    {"all references", "references", A_SYM},
    {"shift f12", "references", A_SYM},
    {"shift+f12", "references", A_SYM},
    {"usages of", "references", A_SYM},
    {"references to", "references", A_SYM},
    {"refs to", "references", A_SYM},
    {"gr", "references", A_SYM},
    {"call hierarchy", "callers", A_SYM},
    {"show call hierarchy", "callers", A_SYM},
    {"incoming calls", "callers", A_SYM},
    {"incoming calls to", "callers", A_SYM},
    {"callers of", "callers", A_SYM},
    {"who calls", "callers", A_SYM},
    {"calls to", "callers", A_SYM},
    {"call sites of", "callers", A_SYM},
    {"outgoing calls", "callees", A_SYM},
    {"outgoing calls from", "callees", A_SYM},
    {"calls from", "callees", A_SYM},
    {"callees of", "callees", A_SYM},
    {"document symbols", "skeleton", A_FILE},
    {"file structure", "skeleton", A_FILE},
    {"file outline", "skeleton", A_FILE},
    {"outline view", "skeleton", A_FILE},
    {"structure view", "skeleton", A_FILE},
    {"list symbols", "skeleton", A_FILE},
    {"list functions", "skeleton", A_FILE},
    {"list functions in", "skeleton", A_FILE},
    {"signatures", "skeleton", A_FILE},
    {"toc", "skeleton", A_FILE},
    {"quick open", "read", A_FILE},
    {"go to file", "read", A_FILE},
    {"goto file", "read", A_FILE},
    {"open file", "read", A_FILE},
    {"find file", "read", A_FILE},
    {"show file", "read", A_FILE},
    {"print file", "read", A_FILE},
    {"find in files", "grep", A_ANY},
    {"search in files", "grep", A_ANY},
    {"find in project", "grep", A_ANY},
    {"search project", "grep", A_ANY},
    {"search everywhere", "grep", A_ANY},
    {"ctrl shift f", "grep", A_ANY},
    {"ctrl+shift+f", "grep", A_ANY},
    {"show function", "expand", A_SYM},
    {"show body", "expand", A_SYM},
    {"show body of", "expand", A_SYM},
    {"show source", "expand", A_SYM},
    {"show source of", "expand", A_SYM},
    {"requires", "deps", A_FILE},
    {"include graph", "deps", A_FILE},
    {"include tree", "deps", A_FILE},
    {"include hierarchy", "deps", A_FILE},
    {"dependency graph", "deps", A_FILE},
    {"dependency tree", "deps", A_FILE},
    {"dep graph", "deps", A_FILE},
    {"apply patch", "fix", A_FILE},
    {"apply patch to", "fix", A_FILE},
    {"apply the patch to", "fix", A_FILE},
    {"apply diff", "fix", A_FILE},
    {"apply edit", "fix", A_FILE},
    {"apply edits to", "fix", A_FILE},
    {"imports of", "deps", A_FILE},
    {"includes of", "deps", A_FILE},
    /* the history's own words, alone */
    {"history", "get_commits", A_NONE},
    {"commits", "get_commits", A_NONE},
    {"recent commits", "get_commits", A_NONE},
    {"contributors", "get_author_stats", A_NONE},
    {"authors", "get_author_stats", A_NONE},
    {"committers", "get_author_stats", A_NONE},
    {"top contributors", "get_author_stats", A_NONE},
    {"releases", "get_tags", A_NONE},
    {"tags", "get_tags", A_NONE},
    {"blame", "get_file_history", A_FILE},
    {"annotate", "get_file_history", A_FILE},
    /* the check, said as a habit */
    {"run tests", "validate", A_NONE},
    {"run test", "validate", A_NONE},
    {"run the tests", "validate", A_NONE},
    {"run all tests", "validate", A_NONE},
    {"run unit tests", "validate", A_NONE},
    {"run the test suite", "validate", A_NONE},
    {"run checks", "validate", A_NONE},
    {"run ci", "validate", A_NONE},
    {"run the build", "validate", A_NONE},
    {"build and test", "validate", A_NONE},
    {"compile and test", "validate", A_NONE},
    {"rebuild", "validate", A_NONE},
    {"typecheck", "validate", A_NONE},
    /* sign-offs */
    {"done", "done", A_NONE},
    {"lgtm", "done", A_NONE},
    {"ship it", "done", A_NONE},
    {"shipit", "done", A_NONE},
    {":wq", "done", A_NONE},
    {":wq!", "done", A_NONE},
    {":x", "done", A_NONE},
    {":q", "done", A_NONE},
    {":q!", "done", A_NONE},
    {"zz", "done", A_NONE},
    {"exit", "done", A_NONE},
    {"quit", "done", A_NONE},
    {"bye", "done", A_NONE},
    {"that's it", "done", A_NONE},
    {"thats it", "done", A_NONE},
    {"that's all", "done", A_NONE},
    {"that is all", "done", A_NONE},
    {"all done", "done", A_NONE},
    {"i'm done", "done", A_NONE},
    {"im done", "done", A_NONE},
    {"i am done", "done", A_NONE},
    {"we're done", "done", A_NONE},
    {"we are done", "done", A_NONE},
    {"task complete", "done", A_NONE},
    {"task completed", "done", A_NONE},
    {"task done", "done", A_NONE},
    {"job done", "done", A_NONE},
    {"work done", "done", A_NONE},
    {"work complete", "done", A_NONE},
    {"complete", "done", A_NONE},
    {"completed", "done", A_NONE},
    {"finished", "done", A_NONE},
    {"finish", "done", A_NONE},
    {"submit", "done", A_NONE},
    {"approved", "done", A_NONE},
    {"approve", "done", A_NONE},
    {"+1", "done", A_NONE},
    {"looks good", "done", A_NONE},
    {"looks good to me", "done", A_NONE},
    {"all good", "done", A_NONE},
    {"good to go", "done", A_NONE},
    {"ready to merge", "done", A_NONE},
    {"merging", "done", A_NONE},
    {"merge", "done", A_NONE},
    {"merged", "done", A_NONE},
    {"shipping", "done", A_NONE},
    {"shipped", "done", A_NONE},
    {"merge it", "done", A_NONE},
    {"nothing else", "done", A_NONE},
    {"nothing more", "done", A_NONE},
    {"nothing left", "done", A_NONE},
    {"nothing more to do", "done", A_NONE},
    {"nothing left to do", "done", A_NONE},
    {"no further changes", "done", A_NONE},
    {"wrap up", "done", A_NONE},
    {"wrapping up", "done", A_NONE},
    {"mission accomplished", "done", A_NONE},
    {"signing off", "done", A_NONE},
    {"sign off", "done", A_NONE},
    {"end", "done", A_NONE},
    {"eof", "done", A_NONE},
    {"\xf0\x9f\x91\x8d", "done", A_NONE},     /* thumbs up */
    {"\xe2\x9c\x85", "done", A_NONE},         /* check mark */
    {"\xe2\x9c\x94", "done", A_NONE},         /* heavy check mark */
    {"\xe2\x9c\x94\xef\xb8\x8f", "done", A_NONE},
};

/* Words said around a sign-off ("ok, that's it, thanks"): they change nothing. */
static const char *const interjections[] = {"ok", "okay", "great", "cool", "good", "nice",
                                            "perfect", "alright", "thanks", "thank you",
                                            "thx", "ty", "yes", "yep", "yup", "so", "well",
                                            "now", "all", "ok so", "the task is", "i think",
                                            NULL};

/* The line's words, lower case, each separated by one space; '-' and '_' between letters
 * as spaces when cut is true; trailing . ! , ; : stripped from each word (not a leading ':'). */
static char *flatten(const char *s, size_t n, qr_arena *a, bool cut)
{
    char *o = qr_arena_alloc(a, n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (cut && (c == '-' || c == '_') && i > 0 && i + 1 < n &&
            isalpha((unsigned char)s[i - 1]) && isalpha((unsigned char)s[i + 1]))
            c = ' ';
        if (isspace(c)) {
            if (k && o[k - 1] != ' ')
                o[k++] = ' ';
            continue;
        }
        if ((c == '.' || c == '!' || c == ',' || c == ';' || c == '?') &&
            (i + 1 == n || isspace((unsigned char)s[i + 1]))) {
            if (k && o[k - 1] != ' ' && c == ',')
                o[k++] = ' ';
            continue;
        }
        o[k++] = (char)tolower(c);
    }
    while (k && o[k - 1] == ' ')
        k--;
    o[k] = '\0';
    return o;
}

/* The phrase p starts line l at a word boundary: the length matched, or 0. */
static size_t starts(const char *l, const char *p)
{
    size_t n = strlen(p);
    if (strncasecmp(l, p, n))
        return 0;
    return l[n] == '\0' || l[n] == ' ' ? n : 0;
}

/* A sign-off line: sign-off phrases and interjections only. */
static bool sign_off(const char *l)
{
    bool any = false;
    while (*l) {
        while (*l == ' ')
            l++;
        if (!*l)
            break;
        /* a dash between the parts ("ok - that's it") */
        size_t d = 0;
        while (l[d] == '-' || !strncmp(l + d, "\xe2\x80\x94", 3) || !strncmp(l + d, "\xe2\x80\x93", 3))
            d += l[d] == '-' ? 1 : 3;
        if (d && (l[d] == ' ' || !l[d])) {
            l += d;
            continue;
        }
        size_t best = 0;
        bool done = false;
        for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
            size_t m;
            if (!strcmp(phrases[i].verb, "done") && (m = starts(l, phrases[i].words)) > best) {
                best = m;
                done = true;
            }
        }
        for (size_t i = 0; interjections[i]; i++) {
            size_t m = starts(l, interjections[i]);
            if (m > best) {
                best = m;
                done = false;
            }
        }
        if (!best)
            return false;
        any |= done;
        l += best;
    }
    return any;
}

static const char *const lead_words[] = {"the", "of", "to", "for", "in", "on", "at", NULL};

/* The phrase (lower case words, one space apart) against the words of the line cut at '-'
 * and '_' between letters: the number of the line's words it covers whole, or 0. */
static size_t phrase_words(const char *ph, word *w, size_t nw)
{
    size_t k = 0;
    const char *p = ph;
    while (k < nw) {
        const char *s = w[k].s;
        size_t n = w[k].n;
        while (n && strchr(".!,;?", s[n - 1]))
            n--; /* "f12," */
        size_t i = 0;
        while (i < n) {
            if (!*p)
                return 0; /* the phrase ends inside this word */
            char c = s[i];
            if ((c == '-' || c == '_') && i > 0 && i + 1 < n && isalpha((unsigned char)s[i - 1]) &&
                isalpha((unsigned char)s[i + 1]))
                c = ' ';
            if (tolower((unsigned char)c) != *p)
                return 0;
            p++;
            i++;
        }
        k++;
        if (!*p)
            return k;
        if (*p != ' ')
            return 0;
        p++;
    }
    return 0;
}

static bool phrase_line(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                        qr_buf *b)
{
    char *l = flatten(line, n, a, true);
    if (!l || !*l)
        return false;
    if (sign_off(l)) {
        qr_buf_puts(b, "done");
        return true;
    }
    word w[MAX_W];
    const char *rest;
    char sep;
    size_t nw = split(line, n, a, w, &rest, &sep);
    if (nw == SIZE_MAX || nw == 0 || sep)
        return false;
    /* the longest phrase the line begins with */
    const phrase *best = NULL;
    size_t bw = 0, blen = 0;
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
        if (!strcmp(phrases[i].verb, "done"))
            continue;
        size_t m = phrase_words(phrases[i].words, w, nw);
        if (m && strlen(phrases[i].words) > blen) {
            bw = m;
            blen = strlen(phrases[i].words);
            best = &phrases[i];
        }
    }
    if (!best)
        return false;
    size_t k = bw;
    while (k < nw && !w[k].quoted && in_list(w[k].s, lead_words))
        k++;
    size_t left = nw - k;
    switch (best->arg) {
    case A_NONE:
        if (left)
            return false;
        qr_buf_puts(b, best->verb);
        return true;
    case A_SYM:
        /* a short or common word ("tag", "gr", "locate") only before a symbol the code
           index knows */
        if (left != 1 || !symbol_shaped(lk, &w[k], strlen(best->words) <= 6))
            return false;
        qr_buf_printf(b, "%s %s", best->verb, w[k].s);
        return true;
    case A_FILE:
        if (left != 1 || !path_shaped(lk, &w[k]))
            return false;
        if (!strncmp(best->verb, "get_", 4))
            qr_buf_printf(b, "%s path=%s", best->verb, w[k].s);
        else
            qr_buf_printf(b, "%s %s", best->verb, w[k].s);
        return true;
    case A_ANY:
        if (left != 1)
            return false;
        qr_buf_puts(b, best->verb);
        put_arg(b, w[k].s, true);
        return true;
    }
    return false;
}

/* The history asked with a count: "the last 5 commits", "the 3 most recent changes to
 * x.c", "top 5 contributors", "the diff of HEAD~1", "what changed in the last commit". */
static bool history_phrase(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                           qr_buf *b)
{
    word w[MAX_W];
    const char *rest;
    char sep;
    size_t nw = split(line, n, a, w, &rest, &sep);
    if (nw == SIZE_MAX || nw == 0 || sep)
        return false;
    static const char *const lead[] = {"show", "list", "get", "give", "me", "display", "print",
                                       "the", "please", "fetch", "see", NULL};
    size_t k = 0;
    char low[MAX_W][32];
    for (size_t i = 0; i < nw; i++) {
        size_t l = w[i].n < 31 ? w[i].n : 31;
        for (size_t c = 0; c < l; c++)
            low[i][c] = (char)tolower((unsigned char)w[i].s[c]);
        low[i][l] = '\0';
        while (l && strchr("?.!,", low[i][l - 1]))
            low[i][--l] = '\0';
    }
    while (k < nw && in_list(low[k], lead))
        k++;
    static const char *const recent[] = {"last", "latest", "recent", "newest", NULL};
    static const char *const commits[] = {"commits", "changes", "commit", NULL};
    static const char *const people[] = {"contributors", "authors", "committers", "people",
                                         "developers", "devs", NULL};
    long count = 0;
    size_t i = k;
    /* "top 5 contributors", "the 5 top contributors" */
    if (i + 3 == nw && in_list(low[i + 2], people) &&
        ((!strcmp(low[i], "top") && all_digits(low[i + 1])) ||
         (all_digits(low[i]) && !strcmp(low[i + 1], "top")))) {
        count = atol(all_digits(low[i]) ? low[i] : low[i + 1]);
        if (count < 1 || count > 100000)
            return false;
        qr_buf_printf(b, "get_author_stats limit=%ld", count);
        return true;
    }
    /* "the last 5 commits", "the 3 most recent commits", "recent commits" with a count */
    if (i < nw && all_digits(low[i])) {
        count = atol(low[i]);
        i++;
    }
    if (i < nw && !strcmp(low[i], "most"))
        i++;
    if (!(i < nw && in_list(low[i], recent)))
        return false;
    i++;
    if (!count && i < nw && all_digits(low[i]))
        count = atol(low[i++]);
    if (!(i < nw && in_list(low[i], commits)))
        return false;
    bool one = !strcmp(low[i], "commit");
    i++;
    const word *path = NULL;
    if (i + 1 < nw && (!strcmp(low[i], "to") || !strcmp(low[i], "in") || !strcmp(low[i], "on") ||
                       !strcmp(low[i], "for") || !strcmp(low[i], "touching")) &&
        path_shaped(lk, &w[i + 1])) {
        path = &w[i + 1];
        i += 2;
    }
    if (i != nw || (one && count > 1) || count < 0 || count > 100000)
        return false;
    if (!count)
        count = one ? 1 : 0;
    if (!count)
        return false; /* "recent commits": the parser's frame reads it */
    bool file = path && strchr(path->s, '.') && path->s[path->n - 1] != '/';
    qr_buf_printf(b, "%s limit=%ld", file ? "get_file_history" : "get_commits", count);
    if (path)
        qr_buf_printf(b, " path=%s", path->s);
    return true;
}

const char *qr__dwim_cmdline(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a)
{
    if (n == 0 || n > 4096)
        return NULL;
    qr_buf b;
    qr_buf_init(&b);
    word w[MAX_W];
    const char *rest;
    char sep;
    bool ok = false;
    size_t nw = split(line, n, a, w, &rest, &sep);
    if (nw != SIZE_MAX && nw > 0) {
        /* `git grep`, `git log`: git's subcommands; a leading `$ ` prompt is not a word */
        size_t o = is(&w[0], "$") ? 1 : 0;
        word *c = w + o;
        size_t cn = nw - o;
        const char *prog = cn ? c[0].s : "";
        const char *on = line;
        if (o) { /* the command as written, without the prompt */
            const char *d = memchr(line, '$', n);
            on = d ? d + 1 : line;
        }
        if (!cn || c[0].quoted)
            ok = false;
        else if (!strcmp(prog, "git") && cn >= 2)
            ok = git(lk, c, cn, &b);
        else if ((!strcmp(prog, "log") || !strcmp(prog, "shortlog")) && cn >= 2 &&
                 is_flag(&c[1]) && cn < MAX_W) {
            /* git's subcommand said without git ("log -n7 src/core") */
            word g[MAX_W];
            g[0] = (word){"git", 3, false};
            memcpy(g + 1, c, cn * sizeof *c);
            ok = git(lk, g, cn + 1, &b);
        }
        else if (!strcmp(prog, "sed") && cn == 4 && is(&c[1], "-n") && path_shaped(lk, &c[3])) {
            /* sed -n 'A,Bp' F / sed -n 'Ap' F */
            long lo, hi;
            char p;
            if (sscanf(c[2].s, "%ld,%ld%c", &lo, &hi, &p) == 3 && p == 'p' && lo >= 1 && hi >= lo)
                ok = (qr_buf_printf(&b, "read %s:%ld-%ld", c[3].s, lo, hi), true);
            else if (sscanf(c[2].s, "%ld%c", &lo, &p) == 2 && p == 'p' && lo >= 1)
                ok = (qr_buf_printf(&b, "read %s:%ld-%ld", c[3].s, lo, lo), true);
        } else if (in_list(prog, pagers))
            ok = pager(lk, c, cn, &sep, rest, &b);
        else if (in_list(prog, greps))
            ok = grepper(lk, c, cn, &b);
        else if (!strcmp(prog, "cscope"))
            ok = cscope(lk, c, cn, &b);
        else if (!strcmp(prog, "global") || !strcmp(prog, "gtags"))
            ok = global(lk, c, cn, &b);
        else if (!strcmp(prog, "readtags") || !strcmp(prog, "cflow"))
            ok = tags_or_cflow(lk, c, cn, &b);
        else if (!strcmp(prog, "ls") || !strcmp(prog, "tree") || !strcmp(prog, "dir") ||
                 !strcmp(prog, "find") || !strcmp(prog, "nm") || !strcmp(prog, "objdump"))
            ok = lister(lk, c, cn, &b);
        else if (in_list(prog, builders) && !sep)
            ok = builder(c, cn, on, (size_t)(line + n - on), &b);
        /* ./configure && make, make clean && make check: a build said as a chain */
        if (!ok && sep == '&' && in_list(prog, builders))
            ok = (qr_buf_puts(&b, "validate"), true);
    }
    if (!ok) {
        qr_buf_reset(&b);
        ok = phrase_line(lk, line, n, a, &b);
    }
    if (!ok) {
        qr_buf_reset(&b);
        ok = history_phrase(lk, line, n, a, &b);
    }
    const char *r = ok && b.len && !b.failed ? qr_arena_strndup(a, b.p, b.len) : NULL;
    qr_buf_release(&b);
    return r;
}
