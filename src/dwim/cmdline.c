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
#include "quarry/words.h"

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
    word mainw; /* --main=SYM's value, alive as long as sym may point at it */
    if (cflow && !sym)
        for (size_t i = 1; i < nw; i++)
            if (!strncmp(w[i].s, "--main=", 7)) {
                mainw = (word){w[i].s + 7, w[i].n - 7, false};
                sym = &mainw;
            }
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
    if ((!strcmp(prog, "find") || !strcmp(prog, "fd")) && !dir)
        return false;
    qr_buf_printf(b, "skeleton %s", dir ? dir->s : ".");
    return true;
}

/* make [-jN] [check|test|all], ninja, meson test, tox ...: the repository's check */
static const char *const builders[] = {
    "make", "gmake", "ninja", "meson", "tox", "nox", "bazel", "cmake", "mvn", "gradle",
    "./gradlew", "yarn", "pnpm", "npm", "jest", "mocha", "vitest", "rspec", "phpunit",
    "dotnet", "zig", "just", "ctest", "pytest", "cargo", "go", "./configure", "scons",
    "autoreconf", "./autogen.sh", "autogen.sh", "./bootstrap", "bootstrap", "configure",
    "python", "python3", NULL};

static bool builder(word *w, size_t nw, const char *orig, size_t on, qr_buf *b)
{
    const char *prog = w[0].s;
    /* python -m pytest / unittest only */
    if (!strcmp(prog, "python") || !strcmp(prog, "python3"))
        if (nw < 3 || strcmp(w[1].s, "-m") ||
            (strcmp(w[2].s, "pytest") && strcmp(w[2].s, "unittest")))
            return false;
    static const char *const words_ok[] = {
        "test",   "tests",   "check",  "all",      "build",   "run",  "verify",
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

/* A project's own test script, whatever its arguments: `./runtest`, `runtest-cluster`,
 * `./run_tests.sh`, `test.sh`, `tclsh tests/test_helper.tcl`. */
static bool test_script(const char *prog)
{
    const char *base = strrchr(prog, '/');
    base = base ? base + 1 : prog;
    static const char *const heads[] = {"runtest", "run_tests", "run-tests", "runtests",
                                        "run_test", "run-test", "test.sh", "tests.sh",
                                        "check.sh", NULL};
    for (size_t i = 0; heads[i]; i++)
        if (!strncmp(base, heads[i], strlen(heads[i])))
            return true;
    return !strcmp(prog, "tclsh") || !strcmp(prog, "bats") || !strcmp(prog, "prove");
}

/* cc/gcc/clang FILE: the build's check of that file, or with -M/-MM/-H what it includes */
static const char *const compilers[] = {"cc", "gcc", "clang", "tcc", "c99", "c89", "g++",
                                        "clang++", "c++", "cpp", "include-what-you-use",
                                        "iwyu", "clang-tidy", "cppcheck", "scan-build", NULL};

static bool compiler(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    bool deps = !strcmp(w[0].s, "include-what-you-use") || !strcmp(w[0].s, "iwyu");
    const word *file = NULL;
    for (size_t i = 1; i < nw; i++) {
        const word *x = &w[i];
        if (is_flag(x)) {
            deps |= is(x, "-M") || is(x, "-MM") || is(x, "-H") || is(x, "--trace-includes");
            if (is(x, "-o") || is(x, "-I") || is(x, "-D") || is(x, "-include") || is(x, "-MF"))
                i++;
            continue;
        }
        if (!path_shaped(lk, x) || file)
            return false;
        file = x;
    }
    if (!file)
        return false;
    if (deps)
        qr_buf_printf(b, "deps %s", file->s);
    else
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

/* git's subcommands this file reads, for a slip in one ("git lgo", "git shwo", "git
 * blmae"): two neighbouring letters swapped, or a typo by the one measure (words.h). */
static const char *const git_subs[] = {"log", "show", "diff", "blame", "grep", "shortlog",
                                       "tag", "describe", "annotate", "whatchanged",
                                       "ls-files", "ls-tree", NULL};

static const char *git_sub(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; git_subs[i]; i++)
        if (!strcmp(s, git_subs[i]))
            return s;
    for (size_t i = 0; git_subs[i]; i++) {
        const char *t = git_subs[i];
        if (strlen(t) != n)
            continue;
        size_t d = 0;
        while (d < n && s[d] == t[d])
            d++;
        if (d + 1 < n && s[d] == t[d + 1] && s[d + 1] == t[d] && !strcmp(s + d + 2, t + d + 2))
            return t;
    }
    for (size_t i = 0; git_subs[i]; i++)
        if (qr_words_typo(s, n, git_subs[i], strlen(git_subs[i])))
            return git_subs[i];
    return s;
}

static bool git(const qr_dwim_lookup *lk, word *w, size_t nw, qr_buf *b)
{
    if (nw < 2)
        return false;
    const char *sub = git_sub(w[1].s);
    /* git show REV:PATH (or cat-file -p REV:PATH): a file's text */
    if ((!strcmp(sub, "show") && nw == 3) ||
        (!strcmp(sub, "cat-file") && nw == 4 && is(&w[2], "-p"))) {
        const char *colon = strchr(w[nw - 1].s, ':');
        word f = {colon ? colon + 1 : "", colon ? strlen(colon + 1) : 0, false};
        if (colon && colon > w[nw - 1].s && f.n && path_shaped(lk, &f)) {
            qr_buf_printf(b, "read %s", f.s);
            return true;
        }
    }
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
            if (!strcmp(sub, "grep") &&
                ((v = opt_value(w, nw, &i, "-e")) || (v = opt_value(w, nw, &i, "--regexp")))) {
                if (rev)
                    return false;
                rev = v; /* git grep -e PAT */
            } else if ((v = opt_value(w, nw, &i, "--since")) || (v = opt_value(w, nw, &i, "--after")))
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
        if (!strcmp(sub, "tag") || (!strcmp(sub, "grep") && !rev && !dashes)) {
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
        if (path && !strchr(path, '*')) /* a glob ('*.c') narrows nothing grep takes */
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
    {"go to declaration or usages", "definition", A_SYM},
    {"goto declaration or usages", "definition", A_SYM},
    {"declaration or usages", "definition", A_SYM},
    {"lsp definitions", "definition", A_SYM},
    {"lsp implementations", "definition", A_SYM},
    {"lsp type definitions", "definition", A_SYM},
    {"lsp workspace symbols", "definition", A_SYM},
    {"lsp dynamic workspace symbols", "definition", A_SYM},
    {"telescope lsp workspace symbols", "definition", A_SYM},
    {"telescope lsp implementations", "definition", A_SYM},
    {"project symbols", "definition", A_SYM},
    {"project symbol", "definition", A_SYM},
    {"outline toggle", "skeleton", A_FILE},
    {"toggle outline", "skeleton", A_FILE},
    {"file finder", "read", A_FILE},
    {"file finder toggle", "read", A_FILE},
    {"workspace new search", "grep", A_ANY},
    {"project search", "grep", A_ANY},
    {"new search", "grep", A_ANY},
    {"deploy search", "grep", A_ANY},
    {":tselect", "definition", A_SYM},
    {":tj", "definition", A_SYM},
    {":stag", "definition", A_SYM},
    {":ptag", "definition", A_SYM},
    {":stjump", "definition", A_SYM},
    {":ptjump", "definition", A_SYM},
    {":sts", "definition", A_SYM},
    {":pts", "definition", A_SYM},
    {"go to", "definition", A_SYM},
    {"goto", "definition", A_SYM},
    {"go to class", "definition", A_SYM},
    {"goto class", "definition", A_SYM},
    {"go to struct", "definition", A_SYM},
    {"quick implementations", "definition", A_SYM},
    {"quick java doc", "definition", A_SYM},
    {"quick doc", "definition", A_SYM},
    {"open symbol by name", "definition", A_SYM},
    {"open symbol by name", "skeleton", A_FILE},
    {"xref find apropos", "definition", A_SYM},
    {"signature help", "definition", A_SYM},
    {"text document signature help", "definition", A_SYM},
    {"jump definition", "definition", A_SYM},
    {"jump declaration", "definition", A_SYM},
    {"jump implementation", "definition", A_SYM},
    {"jump references", "references", A_SYM},
    {"jump used", "references", A_SYM},
    {"document highlight", "references", A_SYM},
    {"text document document highlight", "references", A_SYM},
    {"reference search trigger", "references", A_SYM},
    {"references project", "references", A_SYM},
    {"references in project", "references", A_SYM},
    {"find selected symbol in project", "references", A_SYM},
    {"find usages in file", "references", A_SYM},
    {"find usages in project", "references", A_SYM},
    {"go to", "read", A_FILE},
    {"telescope find files", "read", A_FILE},
    {"telescope git files", "read", A_FILE},
    {"files", "read", A_FILE},
    {"folding range", "skeleton", A_FILE},
    {"text document folding range", "skeleton", A_FILE},
    {"focus on outline view", "skeleton", A_FILE},
    {"outline focus", "skeleton", A_FILE},
    {"speedbar", "skeleton", A_FILE},
    {"space s", "skeleton", A_FILE},
    {"space s", "definition", A_SYM},
    {"space /", "grep", A_ANY},
    {"space f", "read", A_FILE},
    {"show panel find in files", "grep", A_ANY},
    {"panel find in files", "grep", A_ANY},
    {"search file", "grep", A_ANY},
    {"magit log buffer file", "get_file_history", A_FILE},
    {"str replace editor str replace", "fix", A_FILE},
    {"str replace editor create", "fix", A_FILE},
    {"str replace editor insert", "fix", A_FILE},
    /* editors' commands, and the words of command ids (`Edit.GoToDefinition`,
     * `textDocument/documentSymbol`, `read_file`), which reread() cuts into words */
    {":e", "read", A_FILE},
    {":edit", "read", A_FILE},
    {":o", "read", A_FILE},
    {":open", "read", A_FILE},
    {":find", "read", A_FILE},
    {":badd", "read", A_FILE},
    {":split", "read", A_FILE},
    {":sp", "read", A_FILE},
    {":vs", "read", A_FILE},
    {":vsp", "read", A_FILE},
    {":vsplit", "read", A_FILE},
    {":tabe", "read", A_FILE},
    {":tabedit", "read", A_FILE},
    {":tabnew", "read", A_FILE},
    {":view", "read", A_FILE},
    {":sview", "read", A_FILE},
    {":new", "read", A_FILE},
    {":vnew", "read", A_FILE},
    {":r", "read", A_FILE},
    {"tabe", "read", A_FILE},
    {"tabedit", "read", A_FILE},
    {"tabnew", "read", A_FILE},
    {"vsp", "read", A_FILE},
    {"vsplit", "read", A_FILE},
    {"sview", "read", A_FILE},
    {"read file", "read", A_FILE},
    {"view file", "read", A_FILE},
    {"cat file", "read", A_FILE},
    {"get file", "read", A_FILE},
    {"file read", "read", A_FILE},
    {"read file contents", "read", A_FILE},
    {"get file contents", "read", A_FILE},
    {"show file contents", "read", A_FILE},
    {"open resource", "read", A_FILE},
    {"open quickly", "read", A_FILE},
    {"goto anything", "read", A_FILE},
    {"go to anything", "read", A_FILE},
    {"file picker", "read", A_FILE},
    {"find files", "read", A_FILE},
    {"find file in project", "read", A_FILE},
    {"project find file", "read", A_FILE},
    {"fzf", "read", A_FILE},
    {"gf", "read", A_FILE},
    {"c x c f", "read", A_FILE},
    {"ctrl p", "read", A_FILE},
    {"ctrl+p", "read", A_FILE},
    {"cmd p", "read", A_FILE},
    {"cmd+p", "read", A_FILE},
    {"str replace editor view", "read", A_FILE},
    {"str replace based edit tool view", "read", A_FILE},
    {"text editor view", "read", A_FILE},
    {"list dir", "skeleton", A_FILE},
    {"list directory", "skeleton", A_FILE},
    {"list directory contents", "skeleton", A_FILE},
    {"list files", "skeleton", A_FILE},
    {"list files in", "skeleton", A_FILE},
    {"ls dir", "skeleton", A_FILE},
    {"read dir", "skeleton", A_FILE},
    {"list folder", "skeleton", A_FILE},
    {"directory tree", "skeleton", A_FILE},
    {"project tree", "skeleton", A_FILE},
    {"file tree", "skeleton", A_FILE},
    {"explorer", "skeleton", A_FILE},
    {"nerdtree", "skeleton", A_FILE},
    {"dired", "skeleton", A_FILE},
    {"netrw", "skeleton", A_FILE},
    {"outline", "skeleton", A_FILE},
    {"quick outline", "skeleton", A_FILE},
    {"show outline", "skeleton", A_FILE},
    {"symbols outline", "skeleton", A_FILE},
    {"symbols outline open", "skeleton", A_FILE},
    {"document symbol", "skeleton", A_FILE},
    {"document symbols", "skeleton", A_FILE},
    {"text document document symbol", "skeleton", A_FILE},
    {"lsp document symbol", "skeleton", A_FILE},
    {"lsp document symbols", "skeleton", A_FILE},
    {"telescope lsp document symbols", "skeleton", A_FILE},
    {"show document items", "skeleton", A_FILE},
    {"document items", "skeleton", A_FILE},
    {"file structure popup", "skeleton", A_FILE},
    {"go to symbol in editor", "skeleton", A_FILE},
    {"goto symbol in editor", "skeleton", A_FILE},
    {"go to symbol in file", "skeleton", A_FILE},
    {"go to symbol", "skeleton", A_FILE},
    {"goto symbol", "skeleton", A_FILE},
    {"goto symbol", "definition", A_SYM},
    {"symbol picker", "skeleton", A_FILE},
    {"symbols", "skeleton", A_FILE},
    {"get symbols", "skeleton", A_FILE},
    {"list symbols in", "skeleton", A_FILE},
    {"imenu", "skeleton", A_FILE},
    {"lsp ui imenu", "skeleton", A_FILE},
    {"counsel imenu", "skeleton", A_FILE},
    {"helm imenu", "skeleton", A_FILE},
    {"tagbar", "skeleton", A_FILE},
    {"tagbar toggle", "skeleton", A_FILE},
    {"tagbar open", "skeleton", A_FILE},
    {"vista", "skeleton", A_FILE},
    {"aerial toggle", "skeleton", A_FILE},
    {"aerial", "skeleton", A_FILE},
    {"taglist", "skeleton", A_FILE},
    {"tlist toggle", "skeleton", A_FILE},
    {"fold all", "skeleton", A_FILE},
    {"editor fold all", "skeleton", A_FILE},
    {"collapse all", "skeleton", A_FILE},
    {"zm", "skeleton", A_FILE},
    {"ctags x", "skeleton", A_FILE},
    {"structure", "skeleton", A_FILE},
    {"show structure", "skeleton", A_FILE},
    {"class view", "skeleton", A_FILE},
    {"view class view", "skeleton", A_FILE},
    {"file members", "skeleton", A_FILE},
    {"go to symbol in workspace", "definition", A_SYM},
    {"goto symbol in project", "definition", A_SYM},
    {"go to symbol in project", "definition", A_SYM},
    {"workspace symbol picker", "definition", A_SYM},
    {"workspace symbols", "definition", A_SYM},
    {"show all symbols", "definition", A_SYM},
    {"navigate to", "definition", A_SYM},
    {"navigate to symbol", "definition", A_SYM},
    {"navigate symbol", "definition", A_SYM},
    {"go to all", "definition", A_SYM},
    {"open type", "definition", A_SYM},
    {"open symbol", "definition", A_SYM},
    {"goto declaration", "definition", A_SYM},
    {"goto implementation", "definition", A_SYM},
    {"goto implementations", "definition", A_SYM},
    {"go to implementations", "definition", A_SYM},
    {"go to type", "definition", A_SYM},
    {"goto type definition", "definition", A_SYM},
    {"goto definition", "definition", A_SYM},
    {"reveal definition", "definition", A_SYM},
    {"open declaration", "definition", A_SYM},
    {"open definition", "definition", A_SYM},
    {"quick definition", "definition", A_SYM},
    {"jump to declaration", "definition", A_SYM},
    {"jump to tag", "definition", A_SYM},
    {"jump to symbol", "definition", A_SYM},
    {"find tag", "definition", A_SYM},
    {"find declaration", "definition", A_SYM},
    {"get definition", "definition", A_SYM},
    {"show definition", "definition", A_SYM},
    {"find definitions", "definition", A_SYM},
    {"find definition of", "definition", A_SYM},
    {"go definition", "definition", A_SYM},
    {"definition", "definition", A_SYM},
    {"declaration", "definition", A_SYM},
    {"implementation", "definition", A_SYM},
    {"type definition", "definition", A_SYM},
    {"text document definition", "definition", A_SYM},
    {"text document declaration", "definition", A_SYM},
    {"text document implementation", "definition", A_SYM},
    {"text document type definition", "definition", A_SYM},
    {"workspace symbol", "definition", A_SYM},
    {"lsp definition", "definition", A_SYM},
    {"lsp declaration", "definition", A_SYM},
    {"lsp goto definition", "definition", A_SYM},
    {"lsp find declaration", "definition", A_SYM},
    {"lsp buf definition", "definition", A_SYM},
    {"vim lsp buf definition", "definition", A_SYM},
    {"telescope lsp definitions", "definition", A_SYM},
    {"eglot find declaration", "definition", A_SYM},
    {"ggtags find tag", "definition", A_SYM},
    {"ggtags find definition", "definition", A_SYM},
    {"find tag other window", "definition", A_SYM},
    {"ctags search", "definition", A_SYM},
    {"ctags", "definition", A_SYM},
    {"cs find g", "definition", A_SYM},
    {"cscope find g", "definition", A_SYM},
    {"m-.", "definition", A_SYM},
    {"ctrl ]", "definition", A_SYM},
    {"ctrl+]", "definition", A_SYM},
    {"c-]", "definition", A_SYM},
    {"f3", "definition", A_SYM},
    {"cmd click", "definition", A_SYM},
    {"ctrl click", "definition", A_SYM},
    {"find symbol", "definition", A_SYM},
    {"search symbol", "definition", A_SYM},
    {"lookup", "definition", A_SYM},
    {"look up", "definition", A_SYM},
    {"goto reference", "references", A_SYM},
    {"goto references", "references", A_SYM},
    {"go to reference", "references", A_SYM},
    {"reference", "references", A_SYM},
    {"references", "references", A_SYM},
    {"refs", "references", A_SYM},
    {"find refs", "references", A_SYM},
    {"get references", "references", A_SYM},
    {"list references to", "references", A_SYM},
    {"find usage", "references", A_SYM},
    {"usages", "references", A_SYM},
    {"show usages of", "references", A_SYM},
    {"highlight usages", "references", A_SYM},
    {"find all references", "references", A_SYM},
    {"text document references", "references", A_SYM},
    {"lsp references", "references", A_SYM},
    {"lsp find references", "references", A_SYM},
    {"lsp buf references", "references", A_SYM},
    {"vim lsp buf references", "references", A_SYM},
    {"telescope lsp references", "references", A_SYM},
    {"references view find references", "references", A_SYM},
    {"xref find references", "references", A_SYM},
    {"ggtags find reference", "references", A_SYM},
    {"references workspace", "references", A_SYM},
    {"references in workspace", "references", A_SYM},
    {"find selected symbol in workspace", "references", A_SYM},
    {"find symbol in workspace", "references", A_SYM},
    {"find selected symbol", "references", A_SYM},
    {"cs find s", "references", A_SYM},
    {"cscope find s", "references", A_SYM},
    {"m-?", "references", A_SYM},
    {"where used", "references", A_SYM},
    {"where is it used", "references", A_SYM},
    {"cross references", "references", A_SYM},
    {"xrefs", "references", A_SYM},
    {"xref", "references", A_SYM},
    {"call hierarchy incoming calls", "callers", A_SYM},
    {"incoming call hierarchy", "callers", A_SYM},
    {"open call hierarchy", "callers", A_SYM},
    {"find call hierarchy", "callers", A_SYM},
    {"view call hierarchy", "callers", A_SYM},
    {"peek call hierarchy", "callers", A_SYM},
    {"prepare call hierarchy", "callers", A_SYM},
    {"text document prepare call hierarchy", "callers", A_SYM},
    {"lsp incoming calls", "callers", A_SYM},
    {"lsp buf incoming calls", "callers", A_SYM},
    {"vim lsp buf incoming calls", "callers", A_SYM},
    {"telescope lsp incoming calls", "callers", A_SYM},
    {"callers", "callers", A_SYM},
    {"get callers", "callers", A_SYM},
    {"find callers", "callers", A_SYM},
    {"list callers", "callers", A_SYM},
    {"show callers", "callers", A_SYM},
    {"find callers of", "callers", A_SYM},
    {"functions calling", "callers", A_SYM},
    {"cs find c", "callers", A_SYM},
    {"cscope find c", "callers", A_SYM},
    {"call hierarchy outgoing calls", "callees", A_SYM},
    {"outgoing call hierarchy", "callees", A_SYM},
    {"lsp outgoing calls", "callees", A_SYM},
    {"lsp buf outgoing calls", "callees", A_SYM},
    {"vim lsp buf outgoing calls", "callees", A_SYM},
    {"telescope lsp outgoing calls", "callees", A_SYM},
    {"callees", "callees", A_SYM},
    {"get callees", "callees", A_SYM},
    {"find callees", "callees", A_SYM},
    {"list callees", "callees", A_SYM},
    {"show callees", "callees", A_SYM},
    {"functions called by", "callees", A_SYM},
    {"cs find d", "callees", A_SYM},
    {"cscope find d", "callees", A_SYM},
    {"global search", "grep", A_ANY},
    {"live grep", "grep", A_ANY},
    {"telescope live grep", "grep", A_ANY},
    {"telescope grep string", "grep", A_ANY},
    {"grep string", "grep", A_ANY},
    {"grep search", "grep", A_ANY},
    {"search files", "grep", A_ANY},
    {"search code", "grep", A_ANY},
    {"code search", "grep", A_ANY},
    {"codebase search", "grep", A_ANY},
    {"search codebase for", "grep", A_ANY},
    {"find text", "grep", A_ANY},
    {"search text", "grep", A_ANY},
    {"text search", "grep", A_ANY},
    {"file search", "grep", A_ANY},
    {"search in project", "grep", A_ANY},
    {"find in workspace", "grep", A_ANY},
    {"search workspace", "grep", A_ANY},
    {"search in workspace", "grep", A_ANY},
    {"find in path", "grep", A_ANY},
    {"search find in files", "grep", A_ANY},
    {"edit find in files", "grep", A_ANY},
    {"project find regexp", "grep", A_ANY},
    {"project search", "grep", A_ANY},
    {"rgrep", "grep", A_ANY},
    {"lgrep", "grep", A_ANY},
    {"vimgrep", "grep", A_ANY},
    {"lvimgrep", "grep", A_ANY},
    {"grepadd", "grep", A_ANY},
    {"occur", "grep", A_ANY},
    {"multi occur", "grep", A_ANY},
    {"counsel rg", "grep", A_ANY},
    {"counsel ag", "grep", A_ANY},
    {"counsel git grep", "grep", A_ANY},
    {"helm grep", "grep", A_ANY},
    {"helm ag", "grep", A_ANY},
    {"helm rg", "grep", A_ANY},
    {"consult ripgrep", "grep", A_ANY},
    {"consult grep", "grep", A_ANY},
    {"deadgrep", "grep", A_ANY},
    {"ggrep", "grep", A_ANY},
    {"rg", "grep", A_ANY},
    {"ag", "grep", A_ANY},
    {"ack", "grep", A_ANY},
    {"search", "grep", A_ANY},
    {"find in files", "grep", A_ANY},
    {"hover", "definition", A_SYM},
    {"text document hover", "definition", A_SYM},
    {"lsp hover", "definition", A_SYM},
    {"lsp buf hover", "definition", A_SYM},
    {"quick documentation", "expand", A_SYM},
    {"quick doc", "expand", A_SYM},
    {"show hover", "definition", A_SYM},
    {"peek", "expand", A_SYM},
    {"show code", "expand", A_SYM},
    {"get code", "expand", A_SYM},
    {"view source", "expand", A_SYM},
    {"view function", "expand", A_SYM},
    {"show implementation", "expand", A_SYM},
    {"expand symbol", "expand", A_SYM},
    {"include browser", "deps", A_FILE},
    {"includes", "deps", A_FILE},
    {"list includes", "deps", A_FILE},
    {"show includes", "deps", A_FILE},
    {"dependencies", "deps", A_FILE},
    {"dependencies of", "deps", A_FILE},
    {"file dependencies", "deps", A_FILE},
    {"get dependencies", "deps", A_FILE},
    {"cs find i", "deps", A_FILE},
    {"imports", "deps", A_FILE},
    {"apply diff to", "fix", A_FILE},
    {"edit file", "fix", A_FILE},
    {"str replace", "fix", A_FILE},
    {"search replace", "fix", A_FILE},
    {"replace in file", "fix", A_FILE},
    {"patch", "fix", A_FILE},
    /* the history's own words, alone */
    {"history", "get_commits", A_NONE},
    {"tig", "get_commits", A_NONE},
    {"tig", "get_file_history", A_FILE},
    {"tig blame", "get_file_history", A_FILE},
    {"tig log", "get_commits", A_NONE},
    {"gitk", "get_commits", A_NONE},
    {"gitk", "get_file_history", A_FILE},
    {"lazygit log", "get_commits", A_NONE},
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
    {"projectile test project", "validate", A_NONE},
    {"projectile compile project", "validate", A_NONE},
    {"projectile run project", "validate", A_NONE},
    {"run task", "validate", A_NONE},
    {"run task build", "validate", A_NONE},
    {"run task test", "validate", A_NONE},
    {"build and debug", "validate", A_NONE},
    {"build and debug active file", "validate", A_NONE},
    {"build active file", "validate", A_NONE},
    {"build for testing", "validate", A_NONE},
    {"compile dirty", "validate", A_NONE},
    {"run class", "validate", A_NONE},
    {"run build", "validate", A_NONE},
    {"build", "validate", A_NONE},
    {"compile", "validate", A_NONE},
    {"recompile", "validate", A_NONE},
    {"build project", "validate", A_NONE},
    {"rebuild project", "validate", A_NONE},
    {"make project", "validate", A_NONE},
    {"compile project", "validate", A_NONE},
    {"build module", "validate", A_NONE},
    {"build all", "validate", A_NONE},
    {"rebuild all", "validate", A_NONE},
    {"build solution", "validate", A_NONE},
    {"rebuild solution", "validate", A_NONE},
    {"build task", "validate", A_NONE},
    {"run build task", "validate", A_NONE},
    {"run build", "validate", A_NONE},
    {"run test task", "validate", A_NONE},
    {"test task", "validate", A_NONE},
    {"product build", "validate", A_NONE},
    {"product test", "validate", A_NONE},
    {"run tests", "validate", A_NONE},
    {"run all tests", "validate", A_NONE},
    {"run all tests in project", "validate", A_NONE},
    {"test run all tests", "validate", A_NONE},
    {"test run all", "validate", A_NONE},
    {"run all", "validate", A_NONE},
    {"test all", "validate", A_NONE},
    {"test", "validate", A_NONE},
    {"tests", "validate", A_NONE},
    {"run test suite", "validate", A_NONE},
    {"unit tests", "validate", A_NONE},
    {"check", "validate", A_NONE},
    {"magit log", "get_commits", A_NONE},
    {"magit log all", "get_commits", A_NONE},
    {"magit log current", "get_commits", A_NONE},
    {"vc print log", "get_commits", A_NONE},
    {"vc print root log", "get_commits", A_NONE},
    {"git log", "get_commits", A_NONE},
    {"show log", "get_commits", A_NONE},
    {"view history", "get_commits", A_NONE},
    {"show history", "get_commits", A_NONE},
    {"git history", "get_commits", A_NONE},
    {"commit log", "get_commits", A_NONE},
    {"vc annotate", "get_file_history", A_FILE},
    {"magit blame", "get_file_history", A_FILE},
    {"git blame", "get_file_history", A_FILE},
    {"show history", "get_file_history", A_FILE},
    {"file history", "get_file_history", A_FILE},
    {"show file history", "get_file_history", A_FILE},
    {"view file history", "get_file_history", A_FILE},
    {"git file history", "get_file_history", A_FILE},
    {"annotate with git blame", "get_file_history", A_FILE},
    {"gitlens show file history", "get_file_history", A_FILE},
    {"findin files", "grep", A_ANY},
    {"find in files", "grep", A_ANY},
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
    {"tests pass", "done", A_NONE},
    {"all tests pass", "done", A_NONE},
    {"tests passing", "done", A_NONE},
    {"tests are passing", "done", A_NONE},
    {"all tests passing", "done", A_NONE},
    {"tests are green", "done", A_NONE},
    {"all green", "done", A_NONE},
    {"ci is green", "done", A_NONE},
    {"ci passes", "done", A_NONE},
    {"build is green", "done", A_NONE},
    {"everything passes", "done", A_NONE},
    {"everything works", "done", A_NONE},
    {"nothing else needed", "done", A_NONE},
    {"nothing needed", "done", A_NONE},
    {"no further changes needed", "done", A_NONE},
    {"we're done here", "done", A_NONE},
    {"we are done here", "done", A_NONE},
    {"i'm done here", "done", A_NONE},
    {"that's everything", "done", A_NONE},
    {"that is everything", "done", A_NONE},
    {"completed successfully", "done", A_NONE},
    {"finish task", "done", A_NONE},
    {"submit result", "done", A_NONE},
    {"submit results", "done", A_NONE},
    {"submit answer", "done", A_NONE},
    {"mark complete", "done", A_NONE},
    {"mark done", "done", A_NONE},
    {"mark as done", "done", A_NONE},
    {"all finished", "done", A_NONE},
    {"all set", "done", A_NONE},
    {"we're all set", "done", A_NONE},
    {"we are all set", "done", A_NONE},
    {"you're all set", "done", A_NONE},
    {"we're good", "done", A_NONE},
    {"we are good", "done", A_NONE},
    {"we're good here", "done", A_NONE},
    {"good here", "done", A_NONE},
    {"done here", "done", A_NONE},
    {"i'm finished", "done", A_NONE},
    {"im finished", "done", A_NONE},
    {"finito", "done", A_NONE},
    {"no more changes", "done", A_NONE},
    {"no changes needed", "done", A_NONE},
    {"no further action", "done", A_NONE},
    {"no further action needed", "done", A_NONE},
    {"nothing to change", "done", A_NONE},
    {"nothing else to do", "done", A_NONE},
    {"complete task", "done", A_NONE},
    {"task finished", "done", A_NONE},
    {"task is complete", "done", A_NONE},
    {"task is done", "done", A_NONE},
    {"work is done", "done", A_NONE},
    {"attempt completion", "done", A_NONE},
    {"end turn", "done", A_NONE},
    {"end of task", "done", A_NONE},
    {"end session", "done", A_NONE},
    {"stop", "done", A_NONE},
    {"that will do", "done", A_NONE},
    {"that'll do", "done", A_NONE},
    {"good to merge", "done", A_NONE},
    {"approve and merge", "done", A_NONE},
    {"approved and merged", "done", A_NONE},
    {"shippit", "done", A_NONE},
    {"thumbsup", "done", A_NONE},
    {"thumbs up", "done", A_NONE},
    {"white check mark", "done", A_NONE},
    {"heavy check mark", "done", A_NONE},
    {"check mark", "done", A_NONE},
    {"ballot box with check", "done", A_NONE},
    {"ok hand", "done", A_NONE},
    {"r+", "done", A_NONE},
    {"sgtm", "done", A_NONE},
    {"lgtm!", "done", A_NONE},
    {"wfm", "done", A_NONE},
    {"bye", "done", A_NONE},
    {"goodbye", "done", A_NONE},
    {"wq", "done", A_NONE},
    {"qa", "done", A_NONE},
    {"wqa", "done", A_NONE},
    {"xa", "done", A_NONE},
    {"write quit", "done", A_NONE},
    {"save and exit", "done", A_NONE},
    {"save and quit", "done", A_NONE},
    {"save and close", "done", A_NONE},
    {"c x c c", "done", A_NONE},
    {"c x c s", "done", A_NONE},
    {"kill emacs", "done", A_NONE},
    {"save buffers kill emacs", "done", A_NONE},
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
                                            "here", "successfully", "now", "for now",
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
        if (!best) {
            /* an emoji or a mark (`LGTM 🚀`, `ship it 🚢`) or a `:short_code:`: said
             * around a sign-off, they change nothing */
            size_t we = 0, alnum = 0;
            while (l[we] && l[we] != ' ')
                alnum += isalnum((unsigned char)l[we++]) ? 1 : 0;
            if (alnum && !(we > 2 && l[0] == ':' && l[we - 1] == ':'))
                return false;
            best = we;
        }
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
        while (n && strchr(".!,;?:", s[n - 1]))
            n--; /* "f12,", "Find in Files:", "Go to File..." */
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

/* Parameter names whose value is the argument an action takes (`search_files
 * pattern=foo`, `find_symbol name=foo`). */
static const char *const arg_keys[] = {"pattern", "query", "regex", "q", "text", "search",
                                       "symbol", "name", "path", "file", "target", "term",
                                       "filename", "file_path", "target_file", NULL};

/* A phrase's argument from the words after it: lead words skipped, `key=value` read as
 * its value, further `key=value` words carried as parameters. A phrase of more than six
 * letters may stand alone (a bare "find references": the verb, its target asked for). */
static bool phrase_args(const qr_dwim_lookup *lk, const phrase *ph, word *w, size_t nw,
                        qr_buf *b, bool cmd)
{
    size_t k = 0;
    while (k < nw && !w[k].quoted && in_list(w[k].s, lead_words))
        k++;
    word arg[2];
    size_t narg = 0;
    const word *extra[MAX_W];
    size_t nextra = 0;
    for (; k < nw; k++) {
        const char *eq = w[k].quoted ? NULL : strchr(w[k].s, '=');
        if (eq && eq > w[k].s) {
            char key[32];
            size_t kl = (size_t)(eq - w[k].s);
            if (kl >= sizeof key)
                return false;
            memcpy(key, w[k].s, kl);
            key[kl] = '\0';
            if (!narg && in_list(key, arg_keys) && eq[1]) {
                arg[narg++] = (word){eq + 1, strlen(eq + 1), false};
                continue;
            }
            extra[nextra++] = &w[k];
            continue;
        }
        /* a search's second word: where it looks (Vim's `vimgrep /PAT/ GLOB`, `rgrep PAT src/`) */
        if (narg && !(narg == 1 && ph->arg == A_ANY && (strchr(w[k].s, '*') || path_shaped(lk, &w[k]))))
            return false;
        arg[narg++] = w[k];
    }
    if (!narg) {
        if (ph->arg != A_NONE && strlen(ph->words) <= 6 && !cmd)
            return false;
        if (nextra)
            return false;
        qr_buf_puts(b, ph->verb);
        return true;
    }
    switch (ph->arg) {
    case A_NONE:
        return false;
    case A_SYM:
        /* a short or common word ("tag", "gr", "locate") only before a symbol the code
           index knows */
        if (!symbol_shaped(lk, &arg[0], strlen(ph->words) <= 6))
            return false;
        qr_buf_printf(b, "%s %s", ph->verb, arg[0].s);
        break;
    case A_FILE:
        if (!path_shaped(lk, &arg[0]))
            return false;
        if (!strncmp(ph->verb, "get_", 4))
            qr_buf_printf(b, "%s path=%s", ph->verb, arg[0].s);
        else
            qr_buf_printf(b, "%s %s", ph->verb, arg[0].s);
        break;
    case A_ANY: {
        const char *pat = arg[0].s;
        size_t pl = arg[0].n;
        if (!arg[0].quoted && pl > 2 && pat[0] == '/' && pat[pl - 1] == '/') {
            char *x = (char *)pat; /* /PAT/, Vim's delimiters: the words are the arena's */
            x[pl - 1] = '\0';
            pat = x + 1;
        }
        qr_buf_puts(b, ph->verb);
        put_arg(b, pat, true);
        if (narg == 2 && !strchr(arg[1].s, '*') && strcmp(arg[1].s, "."))
            qr_buf_printf(b, " %s", arg[1].s);
        break;
    }
    }
    for (size_t i = 0; i < nextra; i++)
        qr_buf_printf(b, " %s", extra[i]->s);
    return true;
}

static bool phrase_line(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                        qr_buf *b, bool cmd)
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
    /* the phrases the line begins with, longest first, until one's argument fits ("go to
     * symbol" before a symbol is its definition, before a file its outline) */
    bool tried[sizeof phrases / sizeof phrases[0]] = {false};
    for (;;) {
        const phrase *best = NULL;
        size_t bw = 0, blen = 0, bi = 0;
        for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
            if (tried[i] || !strcmp(phrases[i].verb, "done"))
                continue;
            size_t m = phrase_words(phrases[i].words, w, nw);
            if (m && strlen(phrases[i].words) > blen) {
                bw = m;
                blen = strlen(phrases[i].words);
                best = &phrases[i];
                bi = i;
            }
        }
        if (!best)
            return false;
        tried[bi] = true;
        if (phrase_args(lk, best, w + bw, nw - bw, b, cmd))
            return true;
        qr_buf_reset(b);
    }
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

/* One reading of the line: a program's command, an action's phrase, or the history asked
 * with a count; the canonical line in b. */
static bool read_command(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                         qr_buf *b, bool cmd)
{
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
            ok = git(lk, c, cn, b);
        else if ((!strcmp(prog, "log") || !strcmp(prog, "shortlog")) && cn >= 2 &&
                 is_flag(&c[1]) && cn < MAX_W) {
            /* git's subcommand said without git ("log -n7 src/core") */
            word g[MAX_W];
            g[0] = (word){"git", 3, false};
            memcpy(g + 1, c, cn * sizeof *c);
            ok = git(lk, g, cn + 1, b);
        }
        else if (!strcmp(prog, "sed") && cn == 4 && is(&c[1], "-n") && path_shaped(lk, &c[3])) {
            /* sed -n 'A,Bp' F / sed -n 'Ap' F */
            long lo, hi;
            char p;
            if (sscanf(c[2].s, "%ld,%ld%c", &lo, &hi, &p) == 3 && p == 'p' && lo >= 1 && hi >= lo)
                ok = (qr_buf_printf(b, "read %s:%ld-%ld", c[3].s, lo, hi), true);
            else if (sscanf(c[2].s, "%ld%c", &lo, &p) == 2 && p == 'p' && lo >= 1)
                ok = (qr_buf_printf(b, "read %s:%ld-%ld", c[3].s, lo, lo), true);
        } else if (!strcmp(prog, "awk") && cn == 3 && path_shaped(lk, &c[2])) {
            /* awk 'NR>=A && NR<=B' F, awk 'NR==A,NR==B' F */
            long lo, hi;
            if ((sscanf(c[1].s, "NR>=%ld && NR<=%ld", &lo, &hi) == 2 ||
                 sscanf(c[1].s, "NR>=%ld&&NR<=%ld", &lo, &hi) == 2 ||
                 sscanf(c[1].s, "NR==%ld,NR==%ld", &lo, &hi) == 2) && lo >= 1 && hi >= lo)
                ok = (qr_buf_printf(b, "read %s:%ld-%ld", c[2].s, lo, hi), true);
        } else if (in_list(prog, compilers) && !sep)
            ok = compiler(lk, c, cn, b);
        else if (in_list(prog, pagers))
            ok = pager(lk, c, cn, &sep, rest, b);
        else if (in_list(prog, greps))
            ok = grepper(lk, c, cn, b);
        else if (!strcmp(prog, "cscope"))
            ok = cscope(lk, c, cn, b);
        else if (!strcmp(prog, "global") || !strcmp(prog, "gtags"))
            ok = global(lk, c, cn, b);
        else if (!strcmp(prog, "readtags") || !strcmp(prog, "cflow"))
            ok = tags_or_cflow(lk, c, cn, b);
        else if ((!strcmp(prog, "ctags") || !strcmp(prog, "uctags") ||
                  !strcmp(prog, "universal-ctags")) && cn >= 3 && !sep) {
            /* ctags -x [--c-kinds=f ...] FILE: the file's definitions, a line each */
            bool x = false, other = false;
            const word *file = NULL;
            for (size_t i = 1; i < cn && !other; i++) {
                if (is_flag(&c[i]))
                    x |= is(&c[i], "-x") || is(&c[i], "--output-format=xref");
                else if (!file && path_shaped(lk, &c[i]))
                    file = &c[i];
                else
                    other = true;
            }
            if (x && file && !other)
                ok = (qr_buf_printf(b, "skeleton %s", file->s), true);
        } else if ((!strcmp(prog, "gti") || !strcmp(prog, "igt")) && cn >= 2 && cn < MAX_W) {
            /* git misspelt as its own first word */
            word g[MAX_W];
            memcpy(g, c, cn * sizeof *c);
            g[0] = (word){"git", 3, false};
            ok = git(lk, g, cn, b);
        }
        else if (!strcmp(prog, "ls") || !strcmp(prog, "tree") || !strcmp(prog, "dir") ||
                 !strcmp(prog, "find") || !strcmp(prog, "nm") || !strcmp(prog, "objdump") ||
                 !strcmp(prog, "exa") || !strcmp(prog, "eza") || !strcmp(prog, "lsd") ||
                 !strcmp(prog, "ll") || !strcmp(prog, "fd"))
            ok = lister(lk, c, cn, b);
        else if (in_list(prog, builders) && !sep)
            ok = builder(c, cn, on, (size_t)(line + n - on), b);
        else if (test_script(prog) && !sep)
            ok = (qr_buf_puts(b, "validate"), true); /* ./runtest --single unit/type/list */
        /* ./configure && make, make clean && make check: a build said as a chain */
        if (!ok && sep == '&' && in_list(prog, builders))
            ok = (qr_buf_puts(b, "validate"), true);
    }
    if (!ok) {
        qr_buf_reset(b);
        ok = phrase_line(lk, line, n, a, b, cmd);
    }
    if (!ok) {
        qr_buf_reset(b);
        ok = history_phrase(lk, line, n, a, b);
    }
    if (!ok)
        qr_buf_reset(b);
    return ok;
}

/* ---- commands named the way their editors and frameworks name them ---- */

/* What an editor puts before a command: Vim's and Kakoune's `:` (and `:!`, a shell
 * command), Emacs's `M-x`, a chat tool's `/`, a shell's `!`. The length to skip, 0 none. */
static size_t command_prefix(const char *l, size_t n)
{
    if (n > 4 && !strncasecmp(l, "m-x ", 4))
        return 4;
    if (n > 2 && l[0] == ':' && l[1] == '!')
        return 2;
    if (n > 1 && (l[0] == ':' || l[0] == '/' || l[0] == '!') && isalpha((unsigned char)l[1]))
        return 1;
    return 0;
}

/* A word that names a file: one the tree has, or a name with a short lower-case extension
 * (`x.c`, `notes.md`), not a dotted command id (`workbench.action.quickOpen`). */
static bool file_named(const qr_dwim_lookup *lk, const char *s)
{
    if (lk && lk->path_exists && lk->path_exists(lk->ud, s))
        return true;
    const char *slash = strrchr(s, '/');
    const char *dot = strrchr(slash ? slash + 1 : s, '.');
    if (!dot || !dot[1] || strlen(dot + 1) > 4)
        return false;
    for (const char *x = dot + 1; *x; x++)
        if (!islower((unsigned char)*x) && !isdigit((unsigned char)*x) && *x != '+')
            return false;
    return true;
}

/* Keys editors bind to an action, as the phrase of the action. */
static const struct {
    const char *key, *words;
} keys[] = {{"m-.", "go to definition"},
            {"m-?", "find references"},
            {"c-]", "go to definition"},
            {"ctrl+]", "go to definition"},
            {"<c-]>", "go to definition"},
            {"f12", "go to definition"},
            {"shift+f12", "find references"},
            {"alt+f12", "peek definition"},
            {"alt+f7", "find usages"},
            {"ctrl+alt+f7", "find usages"},
            {"ctrl+alt+h", "call hierarchy"},
            {"ctrl+shift+h", "call hierarchy"},
            {"shift+alt+h", "call hierarchy"},
            {"ctrl+shift+o", "go to symbol in editor"},
            {"cmd+shift+o", "go to symbol in editor"},
            {"ctrl+f12", "file structure"},
            {"cmd+f12", "file structure"},
            {"ctrl+t", "go to symbol in workspace"},
            {"cmd+t", "go to symbol in workspace"},
            {"ctrl+shift+f", "find in files"},
            {"cmd+shift+f", "find in files"},
            {"ctrl+shift+n", "go to file"},
            {"cmd+shift+n", "go to file"},
            {"cmd+shift+o", "go to file"},
            {"cmd+u", "run tests"},
            {"ctrl+shift+b", "build"},
            {"ctrl+f9", "build"},
            {"cmd+f9", "build"},
            {"gd", "go to definition"},
            {"gr", "find references"},
            {"gi", "go to implementation"},
            {"ctrl+click", "go to definition"},
            {"cmd+click", "go to definition"},
            {"ctrl+p", "quick open"},
            {"cmd+p", "quick open"},
            {":e", "quick open"},
            {":grep", "find in files"},
            {":vimgrep", "find in files"},
            {":rg", "find in files"},
            {":ag", "find in files"},
            {":tag", "go to definition"},
            {":ts", "go to definition"},
            {"readtags", "go to definition"},
            {NULL, NULL}};

/* The word w[0..n) is the key k: case folded, '-' and '+' alike. */
static bool same_key(const char *w, size_t n, const char *k)
{
    if (strlen(k) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)w[i]);
        if (c == '-' && i > 0 && i + 1 < n)
            c = '+';
        char d = k[i] == '-' && i > 0 && i + 1 < n ? '+' : k[i];
        if (c != d)
            return false;
    }
    return true;
}

/* Words that run the command after them: an agent framework's shell tool, a shell. */
static const char *const runners[] = {"run_terminal_cmd", "run_command", "run_shell_command",
                                      "execute_command", "exec_command", "shell", "terminal",
                                      "bash", "sh", "zsh", "exec", "cmd", "run", "lua", "call",
                                      "ycmcompleter", "cocaction", "normal", "silent", NULL};

/* A command id's words: `workbench.action.findInFiles` "workbench action find in files",
 * `textDocument/references` "text document references", `read_file` "read file",
 * `Edit.GoToDefinition` "edit go to definition", `xref-find-definitions`, `:shipit:`.
 * NULL when the word has no such parts. */
static char *id_words(const char *s, size_t n, qr_arena *a)
{
    char *o = qr_arena_alloc(a, 2 * n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    bool cut = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool sepc = c == '.' || c == '/' || c == '_' || c == '-' || c == ':' || c == '(' ||
                    c == ')' || c == '\'' || c == '"' || c == ',';
        if (sepc) {
            if (k && o[k - 1] != ' ')
                o[k++] = ' ';
            cut = true;
            continue;
        }
        /* fooBar, HTTPServer's "Server", but not the digits of "f12" */
        if (isupper(c) && k && o[k - 1] != ' ' && i > 0 &&
            (islower((unsigned char)s[i - 1]) ||
             (isupper((unsigned char)s[i - 1]) && i + 1 < n && islower((unsigned char)s[i + 1])))) {
            o[k++] = ' ';
            cut = true;
        }
        o[k++] = (char)tolower(c);
    }
    while (k && o[k - 1] == ' ')
        k--;
    o[k] = '\0';
    return cut && k ? o : NULL;
}

static bool reread(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                   qr_buf *b, int depth);

/* What is left of the line once a wrapper is taken off (a prefix, a category, a runner),
 * blanks before it skipped: read as a command, or read again. */
static bool read_rest(const qr_dwim_lookup *lk, const char *r, size_t rn, qr_arena *a,
                      qr_buf *b, int depth)
{
    while (rn && isspace((unsigned char)*r))
        r++, rn--;
    return rn && (read_command(lk, r, rn, a, b, true) || reread(lk, r, rn, a, b, depth + 1));
}

/* The line read again without what wraps its command: a prefix (`:e x.c`, `M-x
 * xref-find-definitions f`), a runner (`run_terminal_cmd make test`), or a command id cut
 * into its words, from the longest tail that reads (`textDocument/definition f` as
 * "definition f", `workbench.action.findInFiles X` as "find in files X"). A first word that
 * names a tool, a path or a symbol the index knows is left whole. */
static bool reread(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a,
                   qr_buf *b, int depth)
{
    if (depth > 3)
        return false;
    while (n && isspace((unsigned char)*line))
        line++, n--;
    /* an emoji's short code (`:shipit:`, `:white_check_mark:`): its words */
    if (n > 2 && line[0] == ':' && line[n - 1] == ':' && !memchr(line, ' ', n)) {
        char *ws = id_words(line, n, a);
        if (ws && read_command(lk, ws, strlen(ws), a, b, true))
            return true;
    }
    size_t p = command_prefix(line, n);
    if (p) {
        if (read_rest(lk, line + p, n - p, a, b, depth))
            return true;
        const char *r = line + p;
        size_t rn = n - p;
        while (rn && isspace((unsigned char)*r))
            r++, rn--;
        /* the command's first word as its program would take it: lower case, without
         * Vim's `!` (`:Make`, `:grep! PAT`) */
        char *c = qr_arena_strndup(a, r, rn);
        if (!c)
            return false;
        size_t cw = 0;
        for (; cw < rn && !isspace((unsigned char)c[cw]); cw++)
            c[cw] = (char)tolower((unsigned char)c[cw]);
        if (cw > 1 && c[cw - 1] == '!')
            c[cw - 1] = ' ';
        if (rn && strncmp(c, r, rn) && read_command(lk, c, rn, a, b, true))
            return true;
    }
    /* a call written as a function (`read_file("x.c")`, `grep_search(query="f")`): its
     * name and arguments as words */
    if (n > 3 && line[n - 1] == ')' && isalpha((unsigned char)line[0])) {
        const char *op = memchr(line, '(', n);
        size_t k = 0;
        while (k < n && (isalnum((unsigned char)line[k]) || line[k] == '_' || line[k] == '.'))
            k++;
        if (op && (size_t)(op - line) == k) {
            char *c = qr_arena_strndup(a, line, n);
            if (!c)
                return false;
            c[k] = ' ';
            c[n - 1] = ' ';
            for (size_t i = k; i < n; i++)
                if (c[i] == ',' || c[i] == '"' || c[i] == '\'')
                    c[i] = ' ';
            if (read_rest(lk, c, n, a, b, depth))
                return true;
        }
    }
    /* a key hint in parentheses ("Go To Definition (F12) f"): left out */
    for (size_t i = 1; i + 2 < n; i++) {
        if (line[i] != '(' || line[i - 1] != ' ')
            continue;
        const char *close = memchr(line + i, ')', n - i);
        if (!close || close - (line + i) > 24 || memchr(line + i, ' ', (size_t)(close - (line + i))))
            break;
        size_t cut = (size_t)(close - (line + i)) + 1;
        char *m = qr_arena_alloc(a, n - cut + 1);
        if (!m)
            return false;
        memcpy(m, line, i);
        memcpy(m + i, close + 1, n - i - cut);
        m[n - cut] = '\0';
        if (read_rest(lk, m, n - cut, a, b, depth))
            return true;
        break;
    }
    /* a palette's "toggle" ("outline: toggle", "project symbols: toggle f", Zed's
     * `outline::Toggle`): the panel it opens, without the word */
    {
        char *m = qr_arena_strndup(a, line, n);
        if (!m)
            return false;
        size_t mn = strlen(m);
        bool cut = false;
        for (size_t i = 0; i + 6 <= mn; i++) {
            bool start = i == 0 || m[i - 1] == ' ' || m[i - 1] == ':';
            bool end = i + 6 == mn || m[i + 6] == ' ';
            if (!start || !end || strncasecmp(m + i, "toggle", 6))
                continue;
            memset(m + i, ' ', 6);
            for (size_t j = i; j > 0 && (m[j - 1] == ':' || m[j - 1] == ' '); j--)
                m[j - 1] = ' ';
            cut = true;
        }
        if (cut && read_rest(lk, m, mn, a, b, depth))
            return true;
    }
    /* a menu path ("Product > Build", "Search > Text"): its items as words */
    if (!memchr(line, '\'', n) && !memchr(line, '"', n)) {
        char *m = qr_arena_strndup(a, line, n);
        if (!m)
            return false;
        /* the line need not end in a NUL, its copy does; where each item begins */
        size_t item[8], nitem = 0, mn = strlen(m);
        for (char *g = m; (g = strstr(g, " > ")) != NULL; g += 3) {
            g[1] = ' ';
            if (nitem < sizeof item / sizeof item[0])
                item[nitem++] = (size_t)(g - m) + 3;
        }
        if (nitem && read_rest(lk, m, mn, a, b, depth))
            return true;
        /* else its last items alone ("Navigate > Declaration f", "Call Hierarchy >
         * Callers f") */
        for (size_t i = 0; i < nitem; i++)
            if (read_command(lk, m + item[i], mn - item[i], a, b, true))
                return true;
    }
    size_t w0 = 0;
    while (w0 < n && !isspace((unsigned char)line[w0]))
        w0++;
    /* a key said for its action (`M-. f`, `F12 f`, `Ctrl+Alt+H f`) */
    for (size_t i = 0; keys[i].key; i++) {
        if (!same_key(line, w0, keys[i].key))
            continue;
        size_t kl = strlen(keys[i].words);
        char *m = qr_arena_alloc(a, kl + (n - w0) + 1);
        if (!m)
            return false;
        memcpy(m, keys[i].words, kl);
        memcpy(m + kl, line + w0, n - w0);
        m[kl + n - w0] = '\0';
        return read_command(lk, m, kl + n - w0, a, b, true);
    }
    /* a command palette's category ("Tasks: Run Build Task", "Test: Run All Tests"), not a
     * verb's own `fix: TEXT` */
    if (w0 > 2 && w0 < n && line[w0 - 1] == ':' && isalpha((unsigned char)line[0])) {
        bool alpha = true, verb = false;
        for (size_t i = 0; i + 1 < w0; i++)
            alpha &= isalpha((unsigned char)line[i]) || line[i] == '/' || line[i] == '+';
        for (int v = QR_DWIM_SKELETON; v < QR_DWIM_VERB_COUNT; v++) {
            const char *name = qr_dwim_verb_name((qr_dwim_verb)v);
            verb |= name && strlen(name) == w0 - 1 && !strncasecmp(name, line, w0 - 1);
        }
        if (alpha && !verb && read_rest(lk, line + w0, n - w0, a, b, depth))
            return true;
    }
    const char *tail = line + w0;
    size_t tn = n - w0;
    while (tn && isspace((unsigned char)*tail))
        tail++, tn--;
    char first[64];
    if (w0 >= sizeof first)
        return false;
    memcpy(first, line, w0);
    first[w0] = '\0';
    char lfirst[64];
    for (size_t i = 0; i <= w0; i++)
        lfirst[i] = (char)tolower((unsigned char)first[i]);
    if (tn && in_list(lfirst, runners)) {
        const char *r = tail;
        size_t rn = tn;
        /* execute_command command="make check" */
        if (rn > 8 && !strncmp(r, "command=", 8))
            r += 8, rn -= 8;
        else if (rn > 4 && !strncmp(r, "cmd=", 4))
            r += 4, rn -= 4;
        if (rn > 3 && !strncmp(r, "-c ", 3)) /* bash -c 'make test' */
            r += 3, rn -= 3;
        if (rn >= 2 && (*r == '\'' || *r == '"') && r[rn - 1] == *r)
            r++, rn -= 2;
        if (read_rest(lk, r, rn, a, b, depth))
            return true;
    }
    word fw = {first, w0, false};
    if (w0 && first[w0 - 1] == ':')
        return false; /* `fix: TEXT`, `done: TEXT`: a verb's content on its line */
    if (p || (lk && lk->tools && qr_tools_find(lk->tools, first, w0)) || file_named(lk, first) ||
        symbol_shaped(lk, &fw, true))
        return false;
    char *ws = id_words(line + p, w0 - p, a);
    if (!ws)
        return false;
    /* the tails of the id's words, longest first, each with the rest of the line */
    for (const char *t = ws; t && *t; t = strchr(t, ' ') ? strchr(t, ' ') + 1 : NULL) {
        size_t l1 = strlen(t);
        char *cand = qr_arena_alloc(a, l1 + tn + 2);
        if (!cand)
            return false;
        memcpy(cand, t, l1);
        size_t cl = l1;
        if (tn) {
            cand[cl++] = ' ';
            memcpy(cand + cl, tail, tn);
            cl += tn;
        }
        cand[cl] = '\0';
        if (read_command(lk, cand, cl, a, b, true))
            return true;
        /* a verb's own name ("definition" of textDocument/definition) */
        size_t vn = strcspn(t, " ");
        char vw[32];
        if (vn < sizeof vw && !strchr(t, ' ')) {
            memcpy(vw, t, vn);
            vw[vn] = '\0';
            for (int v = QR_DWIM_SKELETON; v <= QR_DWIM_DEFINITION; v++) {
                const char *name = qr_dwim_verb_name((qr_dwim_verb)v);
                if (name && !strcmp(name, vw)) {
                    qr_buf_append(b, cand, cl);
                    return true;
                }
            }
        }
    }
    return false;
}

/* Programs that change things or reach elsewhere and never read, search or check the
 * tree, and git's subcommands that do the same: a line that runs one names no verb
 * (`rm -rf build` is no build, `git push origin main` no history). */
static const char *const foreign[] = {
    "rm", "rmdir", "mv", "cp", "chmod", "chown", "chgrp", "kill", "killall", "pkill", "ssh",
    "scp", "rsync", "sftp", "docker", "podman", "kubectl", "pip", "pip3", "pipx", "apt",
    "apt-get", "brew", "yum", "dnf", "pacman", "apk", "sudo", "doas", "curl", "wget",
    "mkdir", "shutdown", "reboot", "systemctl", "crontab", "passwd", "useradd", "unset",
    "chroot", "mkfs", "umount", "telnet", "tar", "unzip", "gzip", "gunzip", "shred", "nohup",
    "vagrant", "terraform", "ansible", "gcloud", "heroku", "conda", "whoami", "htop", NULL};
static const char *const git_changes[] = {
    "push", "pull", "fetch", "clone", "init", "add", "commit", "rebase", "reset", "checkout",
    "switch", "stash", "cherry-pick", "revert", "merge", "restore", "clean", "am", "rm", "mv",
    "remote", "config", "gc", "prune", "bisect", "worktree", "submodule", "status", "branch",
    "apply", "format-patch", "send-email", "notes", "filter-branch", NULL};

bool qr__dwim_foreign(const char *line, size_t n, qr_arena *a)
{
    if (n == 0 || n > 4096)
        return false;
    word w[MAX_W];
    const char *rest;
    char sep;
    size_t nw = split(line, n, a, w, &rest, &sep);
    if (nw == SIZE_MAX || nw == 0)
        return false;
    size_t o = is(&w[0], "$") ? 1 : 0;
    if (o >= nw || w[o].quoted)
        return false;
    /* a program said with flags or arguments, or alone when it has no other sense */
    if (in_list(w[o].s, foreign))
        return nw - o >= 2 || !strcmp(w[o].s, "rm") || !strcmp(w[o].s, "sudo");
    return !strcmp(w[o].s, "git") && o + 1 < nw && in_list(w[o + 1].s, git_changes);
}

const char *qr__dwim_cmdline(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a)
{
    if (n == 0 || n > 4096)
        return NULL;
    qr_buf b;
    qr_buf_init(&b);
    bool ok = read_command(lk, line, n, a, &b, false) || reread(lk, line, n, a, &b, 0);
    const char *r = ok && b.len && !b.failed ? qr_arena_strndup(a, b.p, b.len) : NULL;
    qr_buf_release(&b);
    return r;
}
