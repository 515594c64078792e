/*
 * golden.c: the golden test runner behind `quarry lisp --run-tests FILE...`.
 *
 * A file holds cases separated by blank lines: program lines, then `=> VALUE` (the
 * result printed with pr-str) or `=! KIND` (the error kind), then optionally `-> TEXT`
 * (the captured output, with \n for newlines). Each case runs in a fresh session with
 * the default limits, or those of a `=limits KEY=N ...` line in the case (keys timeout-ms,
 * max-steps, max-memory, max-output, max-depth: a case that must end at one limit sets the
 * others far enough that the result does not depend on the machine's speed). Failures
 * print as FILE:LINE with expected and actual values.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct gcase {
    const char *file;
    int line;
    qr_buf prog;
    char *expect; /* after "=> " or "=! " */
    bool expect_error;
    char *output; /* after "-> ", or NULL */
    qr_lisp_limits limits;
} gcase;

/* "=limits timeout-ms=60000 max-steps=2000000": false on an unknown key or a bad number. */
static bool parse_limits(qr_lisp_limits *l, const char *p)
{
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\r')
            break;
        const char *eq = strchr(p, '=');
        if (!eq)
            return false;
        char *end;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ' ' && *end != '\r'))
            return false;
        size_t kn = (size_t)(eq - p);
        if (kn == 10 && !strncmp(p, "timeout-ms", kn))
            l->timeout_ms = v;
        else if (kn == 9 && !strncmp(p, "max-steps", kn))
            l->max_steps = v;
        else if (kn == 10 && !strncmp(p, "max-memory", kn))
            l->max_memory = (size_t)v;
        else if (kn == 10 && !strncmp(p, "max-output", kn))
            l->max_output = (size_t)v;
        else if (kn == 9 && !strncmp(p, "max-depth", kn))
            l->max_depth = (uint32_t)v;
        else
            return false;
        p = end;
    }
    return true;
}

static char *unescape_output(const char *s)
{
    qr_buf b;
    qr_buf_init(&b);
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == 'n') {
            qr_buf_putc(&b, '\n');
            s++;
        } else if (s[0] == '\\' && s[1] == '\\') {
            qr_buf_putc(&b, '\\');
            s++;
        } else {
            qr_buf_putc(&b, *s);
        }
    }
    return qr_buf_detach(&b, NULL);
}

/* Runs one case; returns true when it passes. */
static bool run_case(gcase *c)
{
    qr_lisp_session *s = qr_lisp_session_new(&c->limits);
    qr_lisp_result res;
    int rc = qr_lisp_run(s, c->prog.p ? c->prog.p : "", c->prog.len, &res);
    bool ok;
    qr_buf got;
    qr_buf_init(&got);
    if (rc == QR_OK)
        qr_print(&got, res.value, QR_PRINT_READABLY);
    if (c->expect_error)
        ok = rc != QR_OK && !strcmp(qr_lisp_errkind_name(res.kind), c->expect);
    else
        ok = rc == QR_OK && got.p && !strcmp(got.p, c->expect);
    if (ok && c->output) {
        char *want = unescape_output(c->output);
        ok = res.output && !strcmp(res.output, want);
        if (!ok)
            fprintf(stderr, "%s:%d: output: expected \"%s\", got \"%s\"\n", c->file, c->line,
                    c->output, res.output ? res.output : "");
        free(want);
    } else if (!ok) {
        fprintf(stderr, "%s:%d: %s\n  expected: %s%s\n  got:      ", c->file, c->line,
                c->prog.p, c->expect_error ? "error " : "", c->expect);
        if (rc == QR_OK)
            fprintf(stderr, "%s\n", got.p ? got.p : "");
        else
            fprintf(stderr, "error %s: %s\n", qr_lisp_errkind_name(res.kind), res.message);
    }
    qr_buf_release(&got);
    qr_lisp_result_clear(&res);
    qr_lisp_session_free(s);
    return ok;
}

int cli_run_golden(int nfiles, char **files)
{
    int passed = 0, failed = 0;
    for (int f = 0; f < nfiles; f++) {
        char *text;
        size_t len;
        if (qr_read_file(files[f], 0, &text, &len) != QR_OK) {
            fprintf(stderr, "quarry: cannot read test file '%s'\n", files[f]);
            return EXIT_USAGE;
        }
        gcase c = {.file = files[f]};
        qr_lisp_limits_default(&c.limits);
        qr_buf_init(&c.prog);
        int lineno = 0;
        char *p = text;
        bool in_case = false;
        while (p && *p) {
            char *nl = strchr(p, '\n');
            if (nl)
                *nl = 0;
            lineno++;
            bool blank = strspn(p, " \t\r") == strlen(p);
            if (!strncmp(p, "=> ", 3) || !strncmp(p, "=! ", 3)) {
                c.expect = p + 3;
                c.expect_error = p[1] == '!';
                size_t el = strlen(c.expect);
                while (el && (c.expect[el - 1] == '\r' || c.expect[el - 1] == ' '))
                    c.expect[--el] = 0;
            } else if (!strncmp(p, "-> ", 3) && c.expect) {
                c.output = p + 3;
            } else if (!strncmp(p, "=limits ", 8)) {
                if (!parse_limits(&c.limits, p + 8)) {
                    fprintf(stderr, "%s:%d: bad =limits line: expected KEY=N with KEY one of "
                                    "timeout-ms, max-steps, max-memory, max-output, max-depth\n",
                            c.file, lineno);
                    failed++;
                }
            } else if (blank) {
                if (in_case) {
                    if (!c.expect) {
                        fprintf(stderr, "%s:%d: case has no => or =! line\n", c.file, c.line);
                        failed++;
                    } else if (run_case(&c)) {
                        passed++;
                    } else {
                        failed++;
                    }
                }
                qr_buf_reset(&c.prog);
                c.expect = c.output = NULL;
                qr_lisp_limits_default(&c.limits);
                in_case = false;
            } else {
                if (!in_case) {
                    in_case = true;
                    c.line = lineno;
                }
                if (c.prog.len)
                    qr_buf_putc(&c.prog, '\n');
                qr_buf_puts(&c.prog, p);
            }
            p = nl ? nl + 1 : NULL;
        }
        if (in_case) {
            if (c.expect && run_case(&c))
                passed++;
            else
                failed++;
        }
        qr_buf_release(&c.prog);
        free(text);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? EXIT_FAILED : EXIT_OK;
}
