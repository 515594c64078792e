/*
 * diag.c: the workflow language's diagnostics: collected (at most QR_FLOW_MAX_DIAGS a
 * file, so a 10 MB file of garbage yields a bounded report), sorted by position, and
 * rendered either as compilers do (rustc's layout: header, arrow with the position, the
 * source line, carets under the span, help) or as JSON for tools and the language server.
 *
 * Rendering walks the source once for all diagnostics (they are sorted), and shows a
 * window of a long line around the span, so output stays small whatever the input.
 */
#include "flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qr_flow_diags_init(qr_flow_diags *d)
{
    memset(d, 0, sizeof *d);
}

void qr_flow_diags_clear(qr_flow_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].message);
        free(d->v[i].help);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

static char *vdup(const char *fmt, va_list ap)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_vprintf(&b, fmt, ap);
    if (b.failed || !b.p) {
        qr_buf_release(&b);
        return NULL;
    }
    size_t n;
    char *s = qr_buf_detach(&b, &n);
    qr_utf8_clean(s, n + 1 < 1024 ? n + 1 : 1024);
    return s;
}

static void push(qr_flow_diags *d, qr_flow_severity sev, const char *code, uint32_t line,
                 uint32_t col, uint32_t len, char *help, char *msg)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 8;
        qr_flow_diag *v = realloc(d->v, nc * sizeof *v);
        if (!v) {
            free(help);
            free(msg);
            return;
        }
        d->v = v;
        d->cap = nc;
    }
    qr_flow_diag *g = &d->v[d->n++];
    g->severity = sev;
    snprintf(g->code, sizeof g->code, "%s", code);
    g->message = msg;
    g->help = help;
    g->line = line ? line : 1;
    g->col = col ? col : 1;
    g->len = len ? len : 1;
    if (sev == QR_FLOW_ERROR)
        d->errors++;
    else
        d->warnings++;
}

void qr_flow_diag_add(qr_flow_diags *d, qr_flow_severity sev, const char *code, uint32_t line,
                      uint32_t col, uint32_t len, const char *help, const char *fmt, ...)
{
    if (d->truncated)
        return;
    if (d->n >= QR_FLOW_MAX_DIAGS) {
        d->truncated = true;
        char *m = strdup("too many diagnostics; the rest are not shown");
        if (m)
            push(d, QR_FLOW_ERROR, code, line, col, len, NULL, m);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = vdup(fmt, ap);
    va_end(ap);
    char *h = NULL;
    if (help) {
        h = strdup(help);
        if (h)
            qr_utf8_clean(h, strlen(h) + 1 < 1024 ? strlen(h) + 1 : 1024);
    }
    if (!msg) {
        free(h);
        return;
    }
    push(d, sev, code, line, col, len, h, msg);
}

static int cmp_diag(const void *x, const void *y)
{
    const qr_flow_diag *a = x, *b = y;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return 0;
}

void qr_flow_diags_sort(qr_flow_diags *d)
{
    /* insertion sort: stable, and lists are short (at most QR_FLOW_MAX_DIAGS + 1) */
    for (size_t i = 1; i < d->n; i++) {
        qr_flow_diag t = d->v[i];
        size_t j = i;
        while (j > 0 && cmp_diag(&d->v[j - 1], &t) > 0) {
            d->v[j] = d->v[j - 1];
            j--;
        }
        d->v[j] = t;
    }
}

/* Appends the code points [from, to) of line s[0..n) (1-based, to exclusive), tabs kept,
 * control characters and invalid bytes as spaces / U+FFFD. With carets: spaces (tabs
 * where the line has them) instead of the text. */
static void put_window(qr_buf *out, const char *s, size_t n, uint32_t from, uint32_t to,
                       bool blank)
{
    uint32_t c = 1;
    size_t i = 0;
    while (i < n && c < to) {
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (c >= from) {
            if (cp == '\t')
                qr_buf_putc(out, '\t');
            else if (blank)
                qr_buf_putc(out, ' ');
            else if (cp < 0x20 || cp == 0x7f)
                qr_buf_putc(out, ' ');
            else
                qr_buf_append(out, s + i, k);
        }
        i += k;
        c++;
    }
}

void qr_flow_diags_render(const qr_flow_diags *d, const char *file, const char *src, size_t n,
                          bool color, qr_buf *out)
{
    const char *line_p = src;
    uint32_t line_no = 1;
    for (size_t i = 0; i < d->n; i++) {
        const qr_flow_diag *g = &d->v[i];
        bool err = g->severity == QR_FLOW_ERROR;
        if (color)
            qr_buf_puts(out, err ? "\033[1;31m" : "\033[1;33m");
        qr_buf_printf(out, "%s[%s]", err ? "error" : "warning", g->code);
        if (color)
            qr_buf_puts(out, "\033[0;1m");
        qr_buf_printf(out, ": %s\n", g->message);
        if (color)
            qr_buf_puts(out, "\033[0m");
        char num[16];
        int w = snprintf(num, sizeof num, "%u", g->line);
        qr_buf_printf(out, "%*s--> %s:%u:%u\n", w, "", file, g->line, g->col);
        /* find the line (diagnostics are sorted; restart when one is not) */
        if (g->line < line_no) {
            line_p = src;
            line_no = 1;
        }
        const char *e = src + n;
        while (line_no < g->line && line_p < e) {
            const char *nl = memchr(line_p, '\n', (size_t)(e - line_p));
            if (!nl) {
                line_p = e;
                break;
            }
            line_p = nl + 1;
            line_no++;
        }
        if (line_no == g->line && src) {
            const char *nl = memchr(line_p, '\n', (size_t)(e - line_p));
            size_t len = nl ? (size_t)(nl - line_p) : (size_t)(e - line_p);
            if (len && line_p[len - 1] == '\r')
                len--;
            uint32_t from = g->col > 60 ? g->col - 40 : 1;
            uint32_t to = from + 160;
            uint32_t caret_to = g->col + g->len;
            if (caret_to > to)
                caret_to = to;
            qr_buf_printf(out, "%*s |\n%s | %s", w, "", num, from > 1 ? "..." : "");
            put_window(out, line_p, len, from, to, false);
            if (flow_cp_len(line_p, len) >= to)
                qr_buf_puts(out, "...");
            qr_buf_printf(out, "\n%*s | %s", w, "", from > 1 ? "   " : "");
            put_window(out, line_p, len, from, g->col, true);
            /* carets past the end of the line (an unexpected end of input) still show */
            if (color)
                qr_buf_puts(out, err ? "\033[1;31m" : "\033[1;33m");
            for (uint32_t k = g->col; k < caret_to || k == g->col; k++)
                qr_buf_putc(out, '^');
            if (color)
                qr_buf_puts(out, "\033[0m");
            qr_buf_putc(out, '\n');
        }
        if (g->help)
            qr_buf_printf(out, "%*s = help: %s\n", w, "", g->help);
        qr_buf_putc(out, '\n');
    }
}

void qr_flow_diags_json(const qr_flow_diags *d, const char *file, bool strict, qr_buf *out)
{
    bool valid = d->errors == 0 && !(strict && d->warnings);
    qr_buf_puts(out, "{\"file\":");
    qr_buf_json_string(out, file, strlen(file));
    qr_buf_printf(out, ",\"valid\":%s,\"diagnostics\":[", valid ? "true" : "false");
    for (size_t i = 0; i < d->n; i++) {
        const qr_flow_diag *g = &d->v[i];
        if (i)
            qr_buf_putc(out, ',');
        qr_buf_printf(out, "{\"severity\":\"%s\",\"code\":\"%s\",\"message\":",
                      g->severity == QR_FLOW_ERROR ? "error" : "warning", g->code);
        qr_buf_json_string(out, g->message, strlen(g->message));
        qr_buf_printf(out, ",\"line\":%u,\"column\":%u,\"length\":%u", g->line, g->col, g->len);
        if (g->help) {
            qr_buf_puts(out, ",\"help\":");
            qr_buf_json_string(out, g->help, strlen(g->help));
        }
        qr_buf_putc(out, '}');
    }
    qr_buf_puts(out, "]}");
}
