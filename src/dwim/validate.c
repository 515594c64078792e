/*
 * validate.c: the validate verb and child processes. The check command comes from the
 * repository's .quarry.toml (`check = "make -k"`, or `check = ["make", "-k"]`), else is
 * discovered: a Makefile means `make -k`, a compile_commands.json means each file's
 * compiler with -fsyntax-only. Its output is parsed into diagnostics (gcc and clang print
 * file:line:col: severity: message) and summarised, errors first. Children run through
 * quarry/proc.h: no shell, a scrubbed environment (a check command a repository names
 * sees no key of ours), their own process group.
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
        if (!s || line == 0)
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

/* The check command of .quarry.toml: check = "cmd args" or ["cmd", "args"]. */
static size_t configured_check(qr_dwim_ctx *c, qr_arena *a, const char **argv, size_t max)
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
    if (rc != QR_OK)
        return 0;
    qr_val cfg;
    qr_read_error e;
    size_t argc = 0;
    if (qr_toml_read(a, text, n, &cfg, &e) == QR_OK) {
        qr_val v;
        if (qr_map_get(cfg, qr_kw_cstr(a, "check"), &v) ||
            qr_map_get(cfg, qr_str_cstr(a, "check"), &v)) {
            if (v.t == QR_T_STR)
                argc = split_words(a, v.s->data, argv, max);
            else if (qr_is_seqcoll(v)) {
                for (size_t i = 0; i < qr_vec_len(v) && argc + 1 < max; i++)
                    if (qr_vec_at(v, i).t == QR_T_STR)
                        argv[argc++] = qr_vec_at(v, i).s->data;
                argv[argc] = NULL;
            }
        }
    }
    free(text);
    return argc;
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

int qr__dwim_validate(qr_dwim_ctx *c, qr_arena *a, qr_buf *out, qr_buf *err)
{
    const char *argv[64];
    size_t argc = configured_check(c, a, argv, 64);
    qr_buf log;
    qr_buf_init(&log);
    int status = 0, rc = QR_OK;
    const char *what;
    if (argc) {
        what = argv[0];
        rc = qr__dwim_spawn(argv, c->root, c->req ? &c->req->stop : NULL, &log, NULL, &status);
        if (rc == QR_ESTOPPED) {
            qr_buf_printf(err, "the check command '%s' was ", argv[0]);
            qr_req_fail(c->req, err);
            goto done;
        }
        if (rc != QR_OK) {
            qr_buf_printf(err, "cannot run the check command '%s' of .quarry.toml", argv[0]);
            rc = QR_EINVAL;
            goto done;
        }
    } else if (exists_in(c->root, "Makefile") || exists_in(c->root, "makefile") ||
               exists_in(c->root, "GNUmakefile")) {
        what = "make -k";
        const char *mk[] = {"make", "-k", NULL};
        rc = qr__dwim_spawn(mk, c->root, c->req ? &c->req->stop : NULL, &log, NULL, &status);
        if (rc == QR_ESTOPPED) {
            qr_buf_puts(err, "'make -k' was ");
            qr_req_fail(c->req, err);
            goto done;
        }
        if (rc != QR_OK) {
            qr_buf_puts(err, "cannot run 'make'");
            rc = QR_EIO;
            goto done;
        }
    } else if (exists_in(c->root, "compile_commands.json")) {
        what = "cc -fsyntax-only";
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
        qr_buf_puts(err, "no check command: set check = \"...\" in .quarry.toml, or add a "
                         "Makefile or compile_commands.json");
        rc = QR_EINVAL;
        goto done;
    }
    qr_dwim_diag *d;
    size_t nd = qr_dwim_parse_diags(log.p ? log.p : "", log.len, a, &d);
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
            qr_buf_printf(out, "%s:%u:%u: %s: %s\n", d[i].file, d[i].line, d[i].col,
                          d[i].severity, d[i].message);
            shown++;
        }
    if (status != 0 && nd == 0 && log.len) {
        /* no diagnostics to show: the tail of the output */
        size_t from = log.len > 1500 ? log.len - 1500 : 0;
        qr_buf_append(out, log.p + from, log.len - from);
        if (log.p[log.len - 1] != '\n')
            qr_buf_putc(out, '\n');
    }
done:
    qr_buf_release(&log);
    return rc;
}
