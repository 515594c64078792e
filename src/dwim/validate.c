/*
 * validate.c: the validate verb and child processes. The check command comes from the
 * repository's .quarry.toml (`check = "make -k"`, or `check = ["make", "-k"]`, at the top
 * or under [dwim]; other keys get a warning), else is discovered from the files present:
 * the test command first (a Makefile's `test:` or `check:` target, a CTest build
 * directory, package.json's test script, Cargo.toml, go.mod, a pytest configuration),
 * then a build (a Makefile: `make -k`; compile_commands.json: each file's compiler with
 * -fsyntax-only). A line may name the check (`validate make test`), but only one of
 * those: the configured command, a discovered one, or make with a test or build target
 * the Makefile defines; never a command line of the model's own. The output is parsed
 * into diagnostics (gcc and clang print file:line:col: severity: message; tests that
 * print the same shape count too), identical ones shown once with their count, errors
 * first; a failed check with no error line shows its output's tail. Children run through
 * quarry/proc.h: no shell, a scrubbed environment (a check command a repository names
 * sees no key of ours), their own process group.
 * Rejected: running whatever the line names (a model's shell line would run with the
 * user's rights); guessing test commands from file extensions alone (a .py file is not a
 * pytest suite).
 */
#define _GNU_SOURCE
#include "dwim_int.h"

#include "quarry/proc.h"
#include "quarry/toml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int qr__dwim_spawn(const char *const *argv, const char *dir, const qr_stop *stop, qr_buf *out,
                   qr_buf *err_out, int *status)
{
    /* git runs with the repository's commands switched off (quarry/proc.h) */
    qr_proc_opts o = {.argv = argv,
                      .dir = dir,
                      .merge_stderr = !err_out,
                      .stop = stop,
                      .env_add = !strcmp(argv[0], "git") ? qr_proc_git_env : NULL};
    qr_proc_result r;
    qr_proc_result_init(&r);
    int rc = qr_proc_run(&o, &r);
    *status = r.status;
    qr_buf_append(out, r.out.p ? r.out.p : "", r.out.len);
    if (err_out)
        qr_buf_append(err_out, r.err.p ? r.err.p : "", r.err.len);
    qr_proc_result_clear(&r);
    if (rc == QR_OK && out->failed)
        rc = QR_ENOMEM;
    return rc == QR_OK || rc == QR_ENOMEM || rc == QR_ESTOPPED ? rc : QR_EIO;
}

size_t qr_dwim_parse_diags(const char *text, size_t n, qr_arena *a, qr_dwim_diag **out)
{
    size_t cap = 16, nd = 0;
    qr_dwim_diag *d = qr_arena_alloc(a, cap * sizeof *d);
    *out = d;
    if (!d)
        return 0;
    for (const char *p = text, *end = text + n; p < end;) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
        const char *next = e ? e + 1 : end;
        /* file:line[:col]: severity: message */
        const char *c1 = memchr(p, ':', l);
        if (!c1 || c1 == p)
            goto skip;
        const char *q = c1 + 1, *le = p + l;
        uint32_t line = 0, col = 0;
        if (q >= le || !isdigit((unsigned char)*q))
            goto skip;
        while (q < le && isdigit((unsigned char)*q) && line < 100000000)
            line = line * 10 + (uint32_t)(*q++ - '0');
        if (q >= le || *q != ':')
            goto skip;
        q++;
        if (q < le && isdigit((unsigned char)*q)) {
            while (q < le && isdigit((unsigned char)*q) && col < 100000000)
                col = col * 10 + (uint32_t)(*q++ - '0');
            if (q >= le || *q != ':')
                goto skip;
            q++;
        }
        while (q < le && *q == ' ')
            q++;
        static const char *const sev[] = {"fatal error", "error", "warning", "note", NULL};
        const char *s = NULL;
        for (size_t i = 0; sev[i]; i++) {
            size_t sl = strlen(sev[i]);
            if ((size_t)(le - q) > sl && !memcmp(q, sev[i], sl) && q[sl] == ':') {
                s = sev[i];
                q += sl + 1;
                break;
            }
        }
        /* a command line make echoes (echo "t.c:3: error: ...") names no file */
        if (!s || line == 0 || memchr(p, '"', (size_t)(c1 - p)) || memchr(p, '\'', (size_t)(c1 - p)))
            goto skip;
        while (q < le && *q == ' ')
            q++;
        if (nd == cap) {
            qr_dwim_diag *bigger = qr_arena_realloc(a, d, cap * sizeof *d, 2 * cap * sizeof *d);
            if (!bigger)
                return nd;
            d = bigger;
            cap *= 2;
            *out = d;
        }
        d[nd].file = qr_arena_strndup(a, p, (size_t)(c1 - p));
        d[nd].severity = s;
        d[nd].message = qr_arena_strndup(a, q, (size_t)(le - q));
        d[nd].line = line;
        d[nd].col = col;
        if (!d[nd].file || !d[nd].message)
            return nd;
        nd++;
    skip:
        p = next;
    }
    return nd;
}

/* The words of a command line (split on spaces; no shell). */
static size_t split_words(qr_arena *a, const char *s, const char **argv, size_t max)
{
    size_t n = 0;
    while (*s && n + 1 < max) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *b = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        argv[n++] = qr_arena_strndup(a, b, (size_t)(s - b));
    }
    argv[n] = NULL;
    return n;
}

static qr_val cfg_get(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    if (m.t == QR_T_MAP &&
        (qr_map_get(m, qr_kw_cstr(a, k), &v) || qr_map_get(m, qr_str_cstr(a, k), &v)))
        return v;
    return qr_nil();
}

static const char *key_name(qr_arena *a, qr_val k)
{
    if (k.t == QR_T_STR)
        return k.s->data;
    if (k.t == QR_T_KW || k.t == QR_T_SYM) {
        size_t n;
        const char *s = qr_sym_name(k.sym, &n);
        const char *d = qr_arena_strndup(a, s, n);
        return d ? d : "?";
    }
    return "?";
}

/* The check command of .quarry.toml: check = "cmd args" or ["cmd", "args"], under [dwim]
 * or at the top. Keys quarry does not know get a warning line in warn. */
static size_t configured_check(qr_dwim_ctx *c, qr_arena *a, const char **argv, size_t max,
                               qr_buf *warn)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/.quarry.toml", c->root);
    char *text;
    size_t n;
    /* a settings file: never through a symbolic link, a FIFO or a device (a committed
     * .quarry.toml -> /dev/stdin would read the MCP stream itself) */
    int rc = qr_read_regular_file(p.p, 1u << 20, &text, &n, NULL);
    qr_buf_release(&p);
    argv[0] = NULL;
    if (rc != QR_OK)
        return 0;
    qr_val cfg;
    qr_read_error e;
    size_t argc = 0;
    if (qr_toml_read(a, text, n, &cfg, &e) != QR_OK) {
        qr_buf_puts(warn, "warning: .quarry.toml does not parse; its check is not used\n");
        free(text);
        return 0;
    }
    free(text);
    qr_val dwim = cfg_get(a, cfg, "dwim");
    /* what each table may hold ([llm] is checked by the model configuration) */
    for (size_t i = 0; cfg.t == QR_T_MAP && i < qr_map_len(cfg); i++) {
        const char *k = key_name(a, qr_map_key_at(cfg, i));
        if (strcmp(k, "check") && strcmp(k, "dwim") && strcmp(k, "llm"))
            qr_buf_printf(warn, "warning: .quarry.toml: unknown key '%s' (ignored; known: "
                                "check, [dwim] check, [llm] ...)\n", k);
    }
    if (dwim.t == QR_T_MAP)
        for (size_t i = 0; i < qr_map_len(dwim); i++) {
            const char *k = key_name(a, qr_map_key_at(dwim, i));
            if (strcmp(k, "check"))
                qr_buf_printf(warn, "warning: .quarry.toml: unknown key '%s' in [dwim] "
                                    "(ignored; known: check)\n", k);
        }
    qr_val v = cfg_get(a, dwim, "check");
    if (v.t == QR_T_NIL)
        v = cfg_get(a, cfg, "check");
    if (v.t == QR_T_STR)
        argc = split_words(a, v.s->data, argv, max);
    else if (qr_is_seqcoll(v)) {
        for (size_t i = 0; i < qr_vec_len(v) && argc + 1 < max; i++)
            if (qr_vec_at(v, i).t == QR_T_STR)
                argv[argc++] = qr_vec_at(v, i).s->data;
        argv[argc] = NULL;
    } else if (v.t != QR_T_NIL)
        qr_buf_puts(warn, "warning: .quarry.toml: check must be a string or an array of "
                          "strings; ignored\n");
    return argc;
}

static char *read_in(const char *root, const char *name, size_t max)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/%s", root, name);
    char *text = NULL;
    size_t n;
    if (qr_read_regular_file(p.p, max, &text, &n, NULL) != QR_OK)
        text = NULL;
    qr_buf_release(&p);
    return text;
}

static bool exists_in(const char *root, const char *name)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/%s", root, name);
    bool ok = access(p.p, F_OK) == 0;
    qr_buf_release(&p);
    return ok;
}

/* Whether a makefile's text defines target (a rule line `target:` or `a target b:`, not
 * a variable `x := y`). */
static bool make_target(const char *mk, const char *target)
{
    size_t tl = strlen(target);
    for (const char *p = mk; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (*p == '\t' || *p == '#')
            continue;
        const char *q = p;
        while (*q && *q != '\n' && *q != ':' && *q != '=')
            q++;
        if (*q != ':' || q[1] == '=')
            continue;
        for (const char *w = p; w < q;) {
            while (w < q && (*w == ' ' || *w == '\t'))
                w++;
            const char *we = w;
            while (we < q && *we != ' ' && *we != '\t')
                we++;
            if ((size_t)(we - w) == tl && !memcmp(w, target, tl))
                return true;
            w = we;
        }
    }
    return false;
}

/* The commands validate may run here, best first: the test commands whose files are
 * present, then the builds. Each is a space-separated command line (from a). */
enum { MAX_CANDS = 12 };
static size_t discover(const qr_dwim_ctx *c, qr_arena *a, const char **cands, char **mk_out)
{
    size_t n = 0;
    static const char *const makefiles[] = {"GNUmakefile", "makefile", "Makefile", NULL};
    char *mk = NULL;
    for (size_t i = 0; makefiles[i] && !mk; i++)
        mk = read_in(c->root, makefiles[i], 4u << 20);
    if (mk && make_target(mk, "test"))
        cands[n++] = "make test";
    if (mk && make_target(mk, "check"))
        cands[n++] = "make check";
    if (exists_in(c->root, "build/CTestTestfile.cmake"))
        cands[n++] = "ctest --test-dir build --output-on-failure";
    else if (exists_in(c->root, "CTestTestfile.cmake"))
        cands[n++] = "ctest --output-on-failure";
    char *pkg = read_in(c->root, "package.json", 1u << 20);
    if (pkg) {
        qr_val v, scripts;
        qr_read_error e;
        if (qr_json_read(a, pkg, strlen(pkg), &v, &e) == QR_OK &&
            (scripts = cfg_get(a, v, "scripts")).t == QR_T_MAP &&
            cfg_get(a, scripts, "test").t == QR_T_STR)
            cands[n++] = "npm test";
        free(pkg);
    }
    if (exists_in(c->root, "Cargo.toml"))
        cands[n++] = "cargo test";
    if (exists_in(c->root, "go.mod"))
        cands[n++] = "go test ./...";
    bool pytest = exists_in(c->root, "pytest.ini") || exists_in(c->root, "conftest.py");
    static const char *const py[][2] = {{"pyproject.toml", "[tool.pytest"},
                                        {"setup.cfg", "[tool:pytest]"},
                                        {"tox.ini", "[pytest]"}};
    for (size_t i = 0; i < 3 && !pytest; i++) {
        char *t = read_in(c->root, py[i][0], 1u << 20);
        pytest = t && strstr(t, py[i][1]);
        free(t);
    }
    if (pytest)
        cands[n++] = "pytest -q";
    if (mk)
        cands[n++] = "make -k";
    if (exists_in(c->root, "compile_commands.json"))
        cands[n++] = "cc -fsyntax-only";
    *mk_out = mk;
    return n;
}

/* compile_commands.json: each entry's file compiled with -fsyntax-only by `cc`. */
static int syntax_only(qr_dwim_ctx *c, qr_arena *a, qr_buf *log, int *worst, size_t *runs)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/compile_commands.json", c->root);
    char *text;
    size_t n;
    int rc = qr_read_file(p.p, 32u << 20, &text, &n);
    qr_buf_release(&p);
    if (rc != QR_OK)
        return QR_EIO;
    qr_val db;
    qr_read_error e;
    rc = qr_json_read(a, text, n, &db, &e);
    free(text);
    if (rc != QR_OK || !qr_is_seqcoll(db))
        return QR_EINVAL;
    for (size_t i = 0; i < qr_vec_len(db) && i < 2000; i++) {
        qr_val ent = qr_vec_at(db, i), f, d;
        if (ent.t != QR_T_MAP || !qr_map_get(ent, qr_str_cstr(a, "file"), &f) || f.t != QR_T_STR)
            continue;
        const char *dir = qr_map_get(ent, qr_str_cstr(a, "directory"), &d) && d.t == QR_T_STR
                              ? d.s->data
                              : c->root;
        const char *argv[] = {"cc", "-fsyntax-only", f.s->data, NULL};
        int st = 0;
        int sr = qr__dwim_spawn(argv, dir, c->req ? &c->req->stop : NULL, log, NULL, &st);
        if (sr != QR_OK)
            return sr == QR_ESTOPPED ? sr : QR_EIO;
        if (st > *worst)
            *worst = st;
        (*runs)++;
    }
    return QR_OK;
}

/* argv as one space-separated line (from a). */
static const char *join_words(qr_arena *a, const char *const *argv)
{
    qr_buf b;
    qr_buf_init(&b);
    for (size_t i = 0; argv[i]; i++)
        qr_buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
    const char *s = qr_arena_strndup(a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return s;
}

/* Whether the named command (its words) is one validate may run here: the configured
 * one, a discovered one, or make [-k] with a test or build target the Makefile has. */
static bool allowed(const char *named, const char *configured, const char *const *cands,
                    size_t nc, const char *mk)
{
    if (configured && !strcmp(named, configured))
        return true;
    for (size_t i = 0; i < nc; i++)
        if (!strcmp(named, cands[i]))
            return true;
    if (!mk)
        return false;
    static const char *const targets[] = {"test", "tests", "check", "all", "build", NULL};
    const char *t = named;
    if (!strncmp(t, "make ", 5))
        t += 5;
    else
        return !strcmp(named, "make");
    if (!strncmp(t, "-k ", 3))
        t += 3;
    for (size_t i = 0; targets[i]; i++)
        if (!strcmp(t, targets[i]) && make_target(mk, t))
            return true;
    return false;
}

/* A diagnostic's identity, for showing identical ones once. */
static bool same_diag(const qr_dwim_diag *x, const qr_dwim_diag *y)
{
    return x->line == y->line && x->col == y->col && !strcmp(x->file, y->file) &&
           !strcmp(x->severity, y->severity) && !strcmp(x->message, y->message);
}

int qr__dwim_validate(qr_dwim_ctx *c, const char *named, qr_arena *a, qr_buf *out,
                      qr_buf *err)
{
    const char *argv[64];
    qr_buf warn, log;
    qr_buf_init(&warn);
    qr_buf_init(&log);
    size_t argc = configured_check(c, a, argv, 64, &warn);
    const char *configured = argc ? join_words(a, argv) : NULL;
    const char *cands[MAX_CANDS];
    char *mk = NULL;
    size_t nc = discover(c, a, cands, &mk);
    int status = 0, rc = QR_OK;
    const char *what;
    if (named) {
        /* the words of the line, one space apart */
        const char *words[64];
        if (!split_words(a, named, words, 64) || !allowed(join_words(a, words), configured,
                                                          cands, nc, mk)) {
            qr_buf_printf(err, "'%s' is not a check of this repository: validate runs ", named);
            size_t shown = 0;
            if (configured)
                qr_buf_printf(err, "'%s' (.quarry.toml)", configured), shown++;
            for (size_t i = 0; i < nc; i++, shown++)
                qr_buf_printf(err, "%s'%s'", shown ? ", " : "", cands[i]);
            if (!shown)
                qr_buf_puts(err, "nothing here: set check = \"...\" in .quarry.toml");
            rc = QR_EINVAL;
            goto done;
        }
        what = join_words(a, words);
    } else if (configured)
        what = configured;
    else if (nc)
        what = cands[0];
    else {
        qr_buf_puts(err, "no check command: set check = \"...\" in .quarry.toml (or under "
                         "[dwim]), or add a Makefile with a test target");
        rc = QR_EINVAL;
        goto done;
    }
    if (!strcmp(what, "cc -fsyntax-only") && (!configured || strcmp(what, configured))) {
        size_t runs = 0;
        rc = syntax_only(c, a, &log, &status, &runs);
        if (rc == QR_ESTOPPED) {
            qr_buf_puts(err, "'cc -fsyntax-only' was ");
            qr_req_fail(c->req, err);
            goto done;
        }
        if (rc != QR_OK) {
            qr_buf_puts(err, "cannot use 'compile_commands.json'");
            rc = QR_EINVAL;
            goto done;
        }
    } else {
        /* the configured command as written (an array's words may hold spaces) */
        const char *words[64];
        const char *const *run = argv;
        if (!configured || strcmp(what, configured) != 0) {
            split_words(a, what, words, 64);
            run = words;
        }
        rc = qr__dwim_spawn(run, c->root, c->req ? &c->req->stop : NULL, &log, NULL, &status);
        if (rc == QR_ESTOPPED) {
            qr_buf_printf(err, "the check command '%s' was ", what);
            qr_req_fail(c->req, err);
            goto done;
        }
        if (rc != QR_OK) {
            qr_buf_printf(err, "cannot run the check command '%s'%s", what,
                          configured && !strcmp(what, configured) ? " of .quarry.toml" : "");
            rc = configured && !strcmp(what, configured) ? QR_EINVAL : QR_EIO;
            goto done;
        }
    }
    c->failed = status != 0;
    qr_buf_append(out, warn.p ? warn.p : "", warn.len);
    qr_dwim_diag *d;
    size_t nd = qr_dwim_parse_diags(log.p ? log.p : "", log.len, a, &d);
    /* identical diagnostics (a header's error in every file that includes it) once, with
     * how many times they came */
    size_t *times = nd ? qr_arena_zalloc(a, nd * sizeof *times) : NULL;
    size_t nu = 0;
    for (size_t i = 0; i < nd && times; i++) {
        size_t j = 0;
        while (j < nu && !same_diag(&d[j], &d[i]))
            j++;
        if (j == nu)
            d[nu++] = d[i];
        times[j]++;
    }
    if (times)
        nd = nu;
    size_t errs = 0, warns = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!strcmp(d[i].severity, "error") || !strcmp(d[i].severity, "fatal error"))
            errs++;
        else if (!strcmp(d[i].severity, "warning"))
            warns++;
    }
    qr_buf_printf(out, "%s: %s (exit %d), %zu error%s, %zu warning%s\n", what,
                  status == 0 ? "ok" : "failed", status, errs, errs == 1 ? "" : "s", warns,
                  warns == 1 ? "" : "s");
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0, shown = 0; i < nd && shown < 30; i++) {
            bool is_err = d[i].severity[0] != 'w' && d[i].severity[0] != 'n';
            if ((pass == 0) != is_err || d[i].severity[0] == 'n')
                continue;
            qr_buf_printf(out, "%s:%u:", d[i].file, d[i].line);
            if (d[i].col)
                qr_buf_printf(out, "%u:", d[i].col);
            qr_buf_printf(out, " %s: %s", d[i].severity, d[i].message);
            if (times && times[i] > 1)
                qr_buf_printf(out, " (%zu times)", times[i]);
            qr_buf_putc(out, '\n');
            shown++;
        }
    if (status != 0 && errs == 0 && log.len) {
        /* no error line to show: the tail of the output */
        size_t from = log.len > 1500 ? log.len - 1500 : 0;
        qr_buf_append(out, log.p + from, log.len - from);
        if (log.p[log.len - 1] != '\n')
            qr_buf_putc(out, '\n');
    }
done:
    free(mk);
    qr_buf_release(&warn);
    qr_buf_release(&log);
    return rc;
}
