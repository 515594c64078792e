/*
 * fuzz_flow.c: libFuzzer harness for the workflow language's parser, checker and
 * formatter. Any input parses and checks to a bounded list of diagnostics, each with a
 * known code, a position inside the file (or just past its end), a non-empty one-line
 * UTF-8 message; rendering them (text and JSON) works. A file with no syntax error
 * formats, the formatted text parses without errors, and formatting it again changes
 * nothing. Never a crash or a hang.
 */
#include "quarry/flow.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_diags(const qr_flow_diags *d, const char *src, size_t n)
{
    if (d->n > QR_FLOW_MAX_DIAGS + 1)
        abort();
    uint32_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += src[i] == '\n';
    for (size_t i = 0; i < d->n; i++) {
        const qr_flow_diag *g = &d->v[i];
        if ((g->code[0] != 'E' && g->code[0] != 'W') || strlen(g->code) != 5)
            abort();
        if (!g->message || !*g->message || strchr(g->message, '\n') ||
            !qr_utf8_valid(g->message, strlen(g->message)))
            abort();
        if (g->help && (strchr(g->help, '\n') || !qr_utf8_valid(g->help, strlen(g->help))))
            abort();
        if (g->line < 1 || g->line > lines + 1 || g->col < 1 || g->len < 1)
            abort();
    }
}

static char *format(const char *src, size_t n, size_t *outn, bool *ok)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags d;
    qr_flow_diags_init(&d);
    qr_flow_file *f = NULL;
    if (qr_flow_check_text(&a, src, n, &f, &d) != QR_OK)
        abort();
    check_diags(&d, src, n);
    qr_buf r;
    qr_buf_init(&r);
    qr_flow_diags_render(&d, "fuzz.flow", src, n, false, &r);
    qr_flow_diags_json(&d, "fuzz.flow", true, &r);
    qr_buf_release(&r);
    bool syntax = false;
    for (size_t i = 0; i < d.n; i++)
        if (!strcmp(d.v[i].code, "E0007") || !strcmp(d.v[i].code, "E0008"))
            syntax = true;
    char *out = NULL;
    *ok = !syntax;
    if (!syntax) {
        qr_buf b;
        qr_buf_init(&b);
        if (qr_flow_format(f, &b) != QR_OK)
            abort();
        out = qr_buf_detach(&b, outn);
        if (!out) {
            out = calloc(1, 1);
            *outn = 0;
        }
    }
    qr_flow_diags_clear(&d);
    qr_arena_release(&a);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = 0;
    size_t n1 = 0, n2 = 0;
    bool ok1, ok2;
    char *f1 = format(src, size, &n1, &ok1);
    if (f1) {
        char *f2 = format(f1, n1, &n2, &ok2);
        if (!ok2 || !f2 || n1 != n2 || memcmp(f1, f2, n1))
            abort();
        free(f2);
    }
    free(f1);
    free(src);
    return 0;
}
