/*
 * problems.c: how the query compiler reports what is wrong. A check pushes the key or
 * index it descends into, so a problem records where it is (":transform[1] :where[2]")
 * as text and as a JSON array; each problem has a message (the subject quoted), what
 * was expected there, what was found (type and printed form) and a hint. They are what a
 * model reads to repair its query, so every check says all four. Also the small name
 * helpers every check uses, and suggestions by edit distance.
 *
 * Design: problems are malloc'd (they are returned to the caller after the scratch arena
 * is gone); formatting goes through the arena. A failed allocation sets one sticky flag
 * that becomes a single "out of memory" problem at the API boundary.
 * Rejected: stopping at the first problem (a model would need one round trip per
 * mistake); reusing the tool registry's private suggestion helper (another layer's
 * internals).
 */
#include "query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qq_push_key(qq_ctx *c, const char *key)
{
    if (c->depth < QQ_PATH_MAX)
        c->path[c->depth] = (qq_seg){.key = key, .index = 0};
    c->depth++;
}

void qq_push_index(qq_ctx *c, long i)
{
    if (c->depth < QQ_PATH_MAX)
        c->path[c->depth] = (qq_seg){.key = NULL, .index = i};
    c->depth++;
}

void qq_pop(qq_ctx *c)
{
    if (c->depth)
        c->depth--;
}

static void path_text(qq_ctx *c, qr_buf *b)
{
    size_t n = c->depth < QQ_PATH_MAX ? c->depth : QQ_PATH_MAX;
    for (size_t i = 0; i < n; i++) {
        if (c->path[i].key)
            qr_buf_printf(b, "%s:%s", b->len ? " " : "", c->path[i].key);
        else
            qr_buf_printf(b, "[%ld]", c->path[i].index);
    }
}

static void path_json(qq_ctx *c, qr_buf *b)
{
    size_t n = c->depth < QQ_PATH_MAX ? c->depth : QQ_PATH_MAX;
    qr_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            qr_buf_putc(b, ',');
        if (c->path[i].key)
            qr_buf_json_string(b, c->path[i].key, strlen(c->path[i].key));
        else
            qr_buf_printf(b, "%ld", c->path[i].index);
    }
    qr_buf_putc(b, ']');
}

const char *qq_path_text(qq_ctx *c)
{
    qr_buf b;
    qr_buf_init(&b);
    path_text(c, &b);
    char *s = qr_arena_strndup(c->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return s ? s : "";
}

char *qq_fmt(qq_ctx *c, const char *fmt, ...)
{
    qr_buf b;
    qr_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (b.failed)
        c->oom = true;
    char *s = qr_arena_strndup(c->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    if (!s) {
        c->oom = true;
        return (char *)"";
    }
    return s;
}

const char *qq_describe(qq_ctx *c, qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_describe(&b, v);
    char *s = qr_arena_strndup(c->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return s ? s : "";
}

const char *qq_show(qq_ctx *c, qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print_short(&b, v, 80);
    char *s = qr_arena_strndup(c->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return s ? s : "";
}

static char *dup_or_empty(const char *s, bool *oom)
{
    char *d = strdup(s ? s : "");
    if (!d)
        *oom = true;
    return d;
}

void qq_problem(qq_ctx *c, const qr_val *found, const char *found_text, const char *expected,
                const char *hint, const char *fmt, ...)
{
    if (c->nprobs == c->capprobs) {
        size_t cap = c->capprobs ? 2 * c->capprobs : 8;
        qr_query_problem *p = realloc(c->probs, cap * sizeof *p);
        if (!p) {
            c->oom = true;
            return;
        }
        c->probs = p;
        c->capprobs = cap;
    }
    qr_buf b;
    qr_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    qr_buf ft;
    qr_buf_init(&ft);
    if (found)
        qr_describe(&ft, *found);
    else
        qr_buf_puts(&ft, found_text ? found_text : "");
    qr_buf pt, pj;
    qr_buf_init(&pt);
    qr_buf_init(&pj);
    path_text(c, &pt);
    path_json(c, &pj);
    qr_query_problem *p = &c->probs[c->nprobs];
    bool oom = b.failed || ft.failed || pt.failed || pj.failed;
    p->message = dup_or_empty(b.p, &oom);
    p->found = dup_or_empty(ft.p, &oom);
    p->path = dup_or_empty(pt.p, &oom);
    p->path_json = dup_or_empty(pj.p, &oom);
    p->expected = dup_or_empty(expected, &oom);
    p->hint = dup_or_empty(hint, &oom);
    c->nprobs++;
    if (oom)
        c->oom = true;
    qr_buf_release(&b);
    qr_buf_release(&ft);
    qr_buf_release(&pt);
    qr_buf_release(&pj);
}

void qq_problems_free(qr_query_problem *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].path);
        free(p[i].path_json);
        free(p[i].message);
        free(p[i].expected);
        free(p[i].found);
        free(p[i].hint);
    }
    free(p);
}

void qr_query_problems_text(const qr_query_compiled *c, qr_buf *out)
{
    for (size_t i = 0; i < c->nproblems; i++) {
        const qr_query_problem *p = &c->problems[i];
        if (p->path && p->path[0])
            qr_buf_printf(out, "%s: ", p->path);
        qr_buf_puts(out, p->message ? p->message : "");
        if (p->expected && p->expected[0])
            qr_buf_printf(out, "; expected %s", p->expected);
        if (p->hint && p->hint[0])
            qr_buf_printf(out, "; %s", p->hint);
        qr_buf_putc(out, '\n');
    }
}

static void json_field(qr_buf *out, const char *name, const char *v, bool comma)
{
    if (comma)
        qr_buf_putc(out, ',');
    qr_buf_json_string(out, name, strlen(name));
    qr_buf_putc(out, ':');
    qr_buf_json_string(out, v ? v : "", v ? strlen(v) : 0);
}

void qr_query_problems_json(const qr_query_compiled *c, qr_buf *out)
{
    qr_buf_putc(out, '[');
    for (size_t i = 0; i < c->nproblems; i++) {
        const qr_query_problem *p = &c->problems[i];
        if (i)
            qr_buf_putc(out, ',');
        qr_buf_puts(out, "{\"path\":");
        qr_buf_puts(out, p->path_json && p->path_json[0] ? p->path_json : "[]");
        json_field(out, "at", p->path, true);
        json_field(out, "message", p->message, true);
        json_field(out, "expected", p->expected, true);
        json_field(out, "found", p->found, true);
        json_field(out, "hint", p->hint, true);
        qr_buf_putc(out, '}');
    }
    qr_buf_putc(out, ']');
}

/* ---- names ---- */

bool qq_name_of(qr_val v, const char **s, size_t *n)
{
    if (v.t == QR_T_KW) {
        const char *t = qr_sym_name(v.sym, n);
        if (v.sym->ns_len) { /* :a/b: the whole text */
            *n = v.sym->len;
            t = v.sym->text;
        }
        *s = t;
        return true;
    }
    if (v.t == QR_T_STR) {
        *s = v.s->data;
        *n = v.s->len;
        return true;
    }
    return false;
}

bool qq_get(qr_val m, const char *key, qr_val *out)
{
    if (m.t != QR_T_MAP)
        return false;
    size_t n = qr_map_len(m);
    size_t kl = strlen(key);
    for (size_t i = 0; i < n; i++) {
        const char *s;
        size_t sn;
        if (qq_name_of(qr_map_key_at(m, i), &s, &sn) && sn == kl && !memcmp(s, key, kl)) {
            *out = qr_map_val_at(m, i);
            return true;
        }
    }
    return false;
}

bool qq_valid_binding(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return false;
    char c0 = s[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-'))
            return false;
    }
    return true;
}

qr_val qq_kw(qq_ctx *c, const char *s, size_t n)
{
    qr_val k = qr_kw(c->a, s, n);
    if (k.t != QR_T_KW)
        c->oom = true;
    return k;
}

/* ---- suggestions ---- */

const char *qq_suggest(const char *s, size_t n, const char *const *cands, size_t ncands)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < ncands; i++) {
        if (!cands[i])
            continue;
        size_t d =
            qr_edit_distance(s, n, cands[i], strlen(cands[i]), QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    /* a typo: at most a third of the name, and never more than 3 edits */
    size_t limit = n / 3 > 3 ? 3 : (n / 3 < 1 ? 1 : n / 3);
    return bestd <= limit ? best : NULL;
}

const char *qq_did_you_mean(qq_ctx *c, const char *s, size_t n, const char *const *cands,
                            size_t ncands, const char *prefix, const char *otherwise)
{
    const char *sug = qq_suggest(s, n, cands, ncands);
    if (sug)
        return qq_fmt(c, "did you mean %s%s%s?", prefix, sug, prefix[0] == '"' ? "\"" : "");
    return otherwise;
}
