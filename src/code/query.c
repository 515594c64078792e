/*
 * query.c: the query types of query_codebase (seed 004, tier 1, generalized to C) over an
 * assembled graph: find_file, list_files, find_function, list_functions,
 * get_dependencies, get_call_graph, find_struct, list_structs, find_type, find_macro,
 * find_references, search_by_name, get_skeleton, get_definition, get_index_stats.
 *
 * Every answer is a map. Lists sit under :results with :total, :offset, :limit and
 * :next_offset (nil on the last page), so a caller pages with the same two numbers
 * everywhere. A name that matches nothing is an error that names the nearest symbols of
 * the kind asked for (qr_edit_distance), which is what a model repairs its call from.
 * Inactive code (`#if 0`, `#ifdef` of a macro nothing defines) is included and marked
 * unless include_inactive is false.
 *
 * Rejected: one result shape per type without paging (a model cannot ask for "the
 * rest"); silently empty answers for misspelled names.
 */
#include "graph_int.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

typedef struct q {
    qr_code_graph *g;
    const qr_stop *stop; /* the request's: walks check it */
    qr_arena *a;
    qr_buf *err;
    qr_val args;
    const char *type, *name, *file, *site_file, *pattern, *match, *visibility, *direction, *kind;
    int64_t depth, limit, offset;
    bool reverse, inactive, sites;
    pcre2_code *re;
    pcre2_match_data *md;
    qr_vecb rows;
    size_t total;
} q;

/* ---- arguments ---- */

static bool arg(const q *x, const char *name, qr_val *out)
{
    return x->args.t == QR_T_MAP && qr_map_get(x->args, qr_kw_cstr(x->a, name), out) &&
           !qr_is_nil(*out);
}

static const char *arg_str(const q *x, const char *name)
{
    qr_val v;
    if (!arg(x, name, &v))
        return NULL;
    if (v.t == QR_T_STR)
        return v.s->data;
    if (v.t == QR_T_KW) {
        size_t n;
        const char *s = qr_sym_name(v.sym, &n);
        return qr_arena_strndup(x->a, s, n);
    }
    return NULL;
}

static int64_t arg_int(const q *x, const char *name, int64_t def)
{
    qr_val v;
    if (!arg(x, name, &v))
        return def;
    return v.t == QR_T_INT ? v.i : v.t == QR_T_DOUBLE ? (int64_t)v.d : def;
}

static bool arg_bool(const q *x, const char *name, bool def)
{
    qr_val v;
    if (!arg(x, name, &v))
        return def;
    return qr_truthy(v);
}

/* ---- values ---- */

static qr_val s(q *x, const char *t)
{
    return t ? qr_str_new(x->a, t, strlen(t)) : qr_nil();
}

static qr_val kw(q *x, const char *t)
{
    return qr_kw_cstr(x->a, t);
}

static qr_val node_row(q *x, size_t i)
{
    const qr_code_node *n = &x->g->nodes[i];
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, 10);
    qr_mapb_put(&mb, kw(x, "kind"), s(x, qr_code_kind_name(n->it.kind)));
    qr_mapb_put(&mb, kw(x, "name"), s(x, n->it.name));
    qr_mapb_put(&mb, kw(x, "file"), s(x, n->file));
    qr_mapb_put(&mb, kw(x, "line"), qr_int(n->it.line));
    qr_mapb_put(&mb, kw(x, "end_line"), qr_int(n->it.end_line));
    if (n->it.kind == QR_CODE_FUNCTION || n->it.kind == QR_CODE_DECLARATION ||
        n->it.kind == QR_CODE_VARIABLE)
        qr_mapb_put(&mb, kw(x, "static"), qr_bool(n->it.flags & QR_CODE_STATIC));
    if (n->it.parent)
        qr_mapb_put(&mb, kw(x, "parent"), s(x, n->it.parent));
    if (n->it.kind == QR_CODE_MACRO) {
        qr_mapb_put(&mb, kw(x, "function_like"), qr_bool(n->it.flags & QR_CODE_FUNC_LIKE));
        if (n->it.signature)
            qr_mapb_put(&mb, kw(x, "params"), s(x, n->it.signature));
        if (n->it.type)
            qr_mapb_put(&mb, kw(x, "body"), s(x, n->it.type));
    } else {
        if (n->it.signature)
            qr_mapb_put(&mb, kw(x, "signature"), s(x, n->it.signature));
        if (n->it.type)
            qr_mapb_put(&mb, kw(x, n->it.kind == QR_CODE_FUNCTION ||
                                           n->it.kind == QR_CODE_DECLARATION
                                       ? "returns"
                                       : "type"),
                        s(x, n->it.type));
    }
    if (n->it.flags & QR_CODE_LEXICAL)
        qr_mapb_put(&mb, kw(x, "lexical"), qr_bool(true));
    if (n->inactive)
        qr_mapb_put(&mb, kw(x, "inactive"), qr_bool(true));
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static bool in_page(const q *x)
{
    return x->total >= (size_t)x->offset && x->total < (size_t)(x->offset + x->limit);
}

static void node(q *x, size_t i)
{
    if (in_page(x))
        qr_vecb_push(&x->rows, node_row(x, i));
    x->total++;
}

static qr_val paged(q *x, qr_mapb *extra)
{
    qr_mapb local, *mb = extra;
    if (!mb) {
        qr_mapb_init(&local, x->a, 6);
        mb = &local;
    }
    qr_mapb_put(mb, kw(x, "query_type"), s(x, x->type));
    qr_mapb_put(mb, kw(x, "total"), qr_int((int64_t)x->total));
    qr_mapb_put(mb, kw(x, "offset"), qr_int(x->offset));
    qr_mapb_put(mb, kw(x, "limit"), qr_int(x->limit));
    size_t next = (size_t)(x->offset + x->limit);
    qr_mapb_put(mb, kw(x, "next_offset"), next < x->total ? qr_int((int64_t)next) : qr_nil());
    qr_mapb_put(mb, kw(x, "results"), qr_vecb_finish(&x->rows, QR_T_VEC));
    return qr_mapb_finish(mb, QR_T_MAP);
}

/* ---- matching ---- */

/* Whether path is under want: a path prefix, a bare file name anywhere, or a glob. */
static bool path_matches(const char *want, const char *path)
{
    size_t l = strlen(want);
    while (l > 1 && want[l - 1] == '/')
        l--;
    if (!strncmp(path, want, l) && (path[l] == 0 || path[l] == '/'))
        return true;
    /* a bare file name matches wherever it is */
    size_t pl = strlen(path);
    if (!strchr(want, '/') && pl > l && path[pl - l - 1] == '/' && !strcmp(path + pl - l, want))
        return true;
    return !fnmatch(want, path, 0);
}

static bool file_ok(const q *x, const char *path)
{
    return !x->file || path_matches(x->file, path);
}

static bool active_ok(const q *x, const qr_code_node *n)
{
    return x->inactive || !n->inactive;
}

static int compile_pattern(q *x)
{
    if (!x->pattern || strcmp(x->match, "regex"))
        return QR_OK;
    int code;
    PCRE2_SIZE off;
    x->re = pcre2_compile((PCRE2_SPTR)x->pattern, strlen(x->pattern),
                          PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
    if (!x->re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        qr_buf_printf(x->err, "parameter 'pattern': bad regular expression '%s' at offset %zu: %s",
                      x->pattern, (size_t)off, (const char *)msg);
        return QR_EINVAL;
    }
    x->md = pcre2_match_data_create_from_pattern(x->re, NULL);
    return x->md ? QR_OK : QR_ENOMEM;
}

/* Fuzzy: the pattern's characters in order, case-insensitive; the score is the span. */
static bool fuzzy(const char *pat, const char *name, size_t *score)
{
    const char *p = pat, *first = NULL, *last = NULL;
    for (const char *c = name; *c && *p; c++)
        if ((*c | 32) == (*p | 32)) {
            if (!first)
                first = c;
            last = c;
            p++;
        }
    if (*p)
        return false;
    *score = (size_t)(last - first) * 4 + strlen(name);
    return true;
}

static bool name_ok(q *x, const char *name)
{
    if (!x->pattern)
        return true;
    if (!strcmp(x->match, "regex")) {
        pcre2_match_context *mc = pcre2_match_context_create(NULL);
        if (mc)
            pcre2_set_match_limit(mc, 100000);
        int rc = pcre2_match(x->re, (PCRE2_SPTR)name, strlen(name), 0, 0, x->md, mc);
        pcre2_match_context_free(mc);
        return rc >= 0;
    }
    if (!strcmp(x->match, "fuzzy")) {
        size_t sc;
        return fuzzy(x->pattern, name, &sc);
    }
    return !fnmatch(x->pattern, name, 0);
}

static bool kind_in(qr_code_kind k, const qr_code_kind *ks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ks[i] == k)
            return true;
    return false;
}

/* "no KIND 'name'; did you mean 'a', 'b'?" */
static int not_found(q *x, const char *what, const char *name, const qr_code_kind *ks, size_t nk)
{
    const qr_code_graph *g = x->g;
    size_t nlen = strlen(name);
    size_t limit = nlen < 6 ? 2 : nlen / 3;
    const char *best[3] = {0};
    size_t bestd[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    const char *prev = NULL;
    for (size_t j = 0; j < g->nnamed; j++) {
        const qr_code_node *n = &g->nodes[g->by_name[j]];
        if (!kind_in(n->it.kind, ks, nk) || (prev && !strcmp(prev, n->it.name)))
            continue;
        prev = n->it.name;
        size_t d = qr_edit_distance(name, nlen, n->it.name, strlen(n->it.name),
                                    QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (d > limit)
            continue;
        for (int k = 0; k < 3; k++)
            if (d < bestd[k]) {
                for (int m = 2; m > k; m--) {
                    best[m] = best[m - 1];
                    bestd[m] = bestd[m - 1];
                }
                best[k] = n->it.name;
                bestd[k] = d;
                break;
            }
    }
    qr_buf_printf(x->err, "no %s '%s'%s%s", what, name, x->file ? " in " : "",
                  x->file ? x->file : "");
    for (int k = 0; k < 3 && best[k]; k++)
        qr_buf_printf(x->err, "%s'%s'", k ? ", " : "; did you mean ", best[k]);
    if (best[0])
        qr_buf_putc(x->err, '?');
    else
        qr_buf_puts(x->err, "; search_by_name with a pattern finds names by part");
    return QR_EINVAL;
}

static int need(q *x, const char *what, const char *v)
{
    if (v)
        return QR_OK;
    qr_buf_printf(x->err, "query_type '%s' needs parameter '%s'", x->type, what);
    return QR_EINVAL;
}

/* Nodes named x->name of the given kinds (in file order). */
static size_t by_name(q *x, const qr_code_kind *ks, size_t nk, bool page)
{
    size_t found = 0;
    const qr_code_graph *g = x->g;
    for (size_t j = qr__code_name_lower(g, x->name);
         j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
        const qr_code_node *n = &g->nodes[g->by_name[j]];
        if (!kind_in(n->it.kind, ks, nk) || !file_ok(x, n->file) || !active_ok(x, n))
            continue;
        found++;
        if (page)
            node(x, g->by_name[j]);
    }
    return found;
}

static int find_kinds(q *x, const char *what, const qr_code_kind *ks, size_t nk, qr_val *out)
{
    int rc = need(x, "name", x->name);
    if (rc)
        return rc;
    if (!by_name(x, ks, nk, true))
        return not_found(x, what, x->name, ks, nk);
    *out = paged(x, NULL);
    return QR_OK;
}

/* ---- the query types ---- */

static int q_find_file(q *x, qr_val *out)
{
    const char *want = x->name ? x->name : x->pattern;
    int rc = need(x, "name", want);
    if (rc)
        return rc;
    const qr_code_graph *g = x->g;
    size_t wl = strlen(want);
    for (size_t i = 0; i < g->nfiles; i++) {
        const char *p = g->files[i].path;
        size_t pl = strlen(p);
        bool ok = !strcmp(p, want) || (pl > wl && p[pl - wl - 1] == '/' && !strcmp(p + pl - wl, want)) ||
                  !fnmatch(want, p, 0);
        if (ok && g->files[i].file_node >= 0 && g->files[i].status >= 0) {
            if (in_page(x)) {
                qr_mapb mb;
                qr_mapb_init(&mb, x->a, 4);
                qr_mapb_put(&mb, kw(x, "file"), s(x, p));
                qr_mapb_put(&mb, kw(x, "lang"), s(x, qr_code_lang_name(g->files[i].lang)));
                qr_mapb_put(&mb, kw(x, "lines"), qr_int(g->files[i].file.lines));
                qr_mapb_put(&mb, kw(x, "blob"), s(x, g->files[i].oid));
                qr_vecb_push(&x->rows, qr_mapb_finish(&mb, QR_T_MAP));
            }
            x->total++;
        }
    }
    if (!x->total) {
        /* nearest paths by their last component */
        const char *best = NULL;
        size_t bd = SIZE_MAX;
        const char *wb = strrchr(want, '/') ? strrchr(want, '/') + 1 : want;
        for (size_t i = 0; i < g->nfiles; i++) {
            const char *p = g->files[i].path;
            const char *b = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
            size_t d = qr_edit_distance(wb, strlen(wb), b, strlen(b), QR_EDIT_FOLD);
            if (d < bd && d <= 3) {
                bd = d;
                best = p;
            }
        }
        qr_buf_printf(x->err, "no file '%s' in the index", want);
        if (best)
            qr_buf_printf(x->err, "; did you mean '%s'?", best);
        return QR_EINVAL;
    }
    *out = paged(x, NULL);
    return QR_OK;
}

static int q_list_files(q *x, qr_val *out)
{
    const qr_code_graph *g = x->g;
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->status < 0 || !file_ok(x, f->path) || (x->pattern && fnmatch(x->pattern, f->path, 0)))
            continue;
        if (in_page(x)) {
            size_t fns = 0, types = 0;
            for (size_t k = f->node0; k < f->node0 + f->nnodes; k++) {
                qr_code_kind kk = g->nodes[k].it.kind;
                fns += kk == QR_CODE_FUNCTION;
                types += kk == QR_CODE_STRUCT || kk == QR_CODE_UNION || kk == QR_CODE_ENUM ||
                         kk == QR_CODE_TYPEDEF;
            }
            size_t first, incl = 0;
            size_t ne = qr__code_edges_from(g, f->path, &first);
            for (size_t k = 0; k < ne; k++)
                incl += g->edges[g->by_from[first + k]].kind == QR_CODE_E_INCLUDES;
            const char *slash = strrchr(f->path, '/');
            qr_mapb mb;
            qr_mapb_init(&mb, x->a, 8);
            qr_mapb_put(&mb, kw(x, "file"), s(x, f->path));
            qr_mapb_put(&mb, kw(x, "dir"),
                        slash ? qr_str_new(x->a, f->path, (size_t)(slash - f->path)) : s(x, "."));
            qr_mapb_put(&mb, kw(x, "lang"), s(x, qr_code_lang_name(f->lang)));
            qr_mapb_put(&mb, kw(x, "lines"), qr_int(f->file.lines));
            qr_mapb_put(&mb, kw(x, "functions"), qr_int((int64_t)fns));
            qr_mapb_put(&mb, kw(x, "types"), qr_int((int64_t)types));
            qr_mapb_put(&mb, kw(x, "includes"), qr_int((int64_t)incl));
            if (f->file.errors)
                qr_mapb_put(&mb, kw(x, "parse_errors"), qr_int(f->file.errors));
            qr_vecb_push(&x->rows, qr_mapb_finish(&mb, QR_T_MAP));
        }
        x->total++;
    }
    *out = paged(x, NULL);
    return QR_OK;
}

static int list_kinds(q *x, const qr_code_kind *ks, size_t nk, qr_val *out)
{
    const qr_code_graph *g = x->g;
    bool pub = !strcmp(x->visibility, "public"), priv = !strcmp(x->visibility, "private");
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->status < 0 || !file_ok(x, f->path))
            continue;
        for (size_t k = f->node0; k < f->node0 + f->nnodes; k++) {
            const qr_code_node *n = &g->nodes[k];
            if (!kind_in(n->it.kind, ks, nk) || !active_ok(x, n) || !name_ok(x, n->it.name))
                continue;
            bool st = n->it.flags & QR_CODE_STATIC;
            if ((pub && st) || (priv && !st))
                continue;
            node(x, k);
        }
    }
    *out = paged(x, NULL);
    return QR_OK;
}

static int q_find_function(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_FUNCTION, QR_CODE_DECLARATION};
    return find_kinds(x, "function", ks, 2, out);
}

static int q_list_functions(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_FUNCTION};
    return list_kinds(x, ks, 1, out);
}

/* A struct/union/enum row with its members (or enumerators). */
static qr_val record_row(q *x, size_t i)
{
    qr_val r = node_row(x, i);
    const qr_code_node *n = &x->g->nodes[i];
    qr_vecb mv;
    qr_vecb_init(&mv, x->a, 8);
    const char *key = qr__code_node_key(x->g, i);
    size_t first, ne = qr__code_edges_to(x->g, key, &first);
    for (size_t k = 0; k < ne; k++) {
        const qr_code_edge *e = &x->g->edges[x->g->by_to[first + k]];
        if (e->kind != QR_CODE_E_MEMBER_OF || e->from < 0)
            continue;
        const qr_code_node *m = &x->g->nodes[e->from];
        qr_mapb mb;
        qr_mapb_init(&mb, x->a, 3);
        qr_mapb_put(&mb, kw(x, "name"), s(x, m->it.name));
        if (m->it.type)
            qr_mapb_put(&mb, kw(x, "type"), s(x, m->it.type));
        qr_mapb_put(&mb, kw(x, "line"), qr_int(m->it.line));
        qr_vecb_push(&mv, qr_mapb_finish(&mb, QR_T_MAP));
    }
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, qr_map_len(r) + 1);
    for (size_t k = 0; k < qr_map_len(r); k++)
        qr_mapb_put(&mb, qr_map_key_at(r, k), qr_map_val_at(r, k));
    qr_mapb_put(&mb, kw(x, n->it.kind == QR_CODE_ENUM ? "enumerators" : "members"),
                qr_vecb_finish(&mv, QR_T_VEC));
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static int records(q *x, const qr_code_kind *ks, size_t nk, bool by, const char *what, qr_val *out)
{
    const qr_code_graph *g = x->g;
    if (by) {
        int rc = need(x, "name", x->name);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        const qr_code_node *n = &g->nodes[i];
        if (!kind_in(n->it.kind, ks, nk) || !file_ok(x, n->file) || !active_ok(x, n))
            continue;
        if (by ? strcmp(n->it.name, x->name) != 0 : !name_ok(x, n->it.name))
            continue;
        if (in_page(x))
            qr_vecb_push(&x->rows, n->it.kind == QR_CODE_TYPEDEF ? node_row(x, i) : record_row(x, i));
        x->total++;
    }
    if (by && !x->total)
        return not_found(x, what, x->name, ks, nk);
    *out = paged(x, NULL);
    return QR_OK;
}

static int q_find_struct(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_STRUCT, QR_CODE_UNION};
    return records(x, ks, 2, true, "struct", out);
}

static int q_list_structs(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_STRUCT, QR_CODE_UNION};
    return records(x, ks, 2, false, "struct", out);
}

static int q_find_type(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_TYPEDEF, QR_CODE_ENUM, QR_CODE_UNION,
                                      QR_CODE_STRUCT};
    return records(x, ks, 4, true, "type", out);
}

static int q_find_macro(q *x, qr_val *out)
{
    static const qr_code_kind ks[] = {QR_CODE_MACRO};
    if (!x->name && x->pattern)
        return list_kinds(x, ks, 1, out);
    return find_kinds(x, "macro", ks, 1, out);
}

static int q_search_by_name(q *x, qr_val *out)
{
    int rc = need(x, "pattern", x->pattern);
    if (rc)
        return rc;
    const qr_code_graph *g = x->g;
    int want = -1;
    if (x->kind) {
        for (int k = 1; k < QR_CODE_KIND_COUNT; k++)
            if (!strcmp(qr_code_kind_name((qr_code_kind)k), x->kind))
                want = k;
    }
    if (!strcmp(x->match, "fuzzy")) {
        /* ranked: best score first, then name and file */
        size_t n = 0;
        size_t *idx = malloc((g->nnamed ? g->nnamed : 1) * sizeof *idx);
        size_t *score = malloc((g->nnodes ? g->nnodes : 1) * sizeof *score);
        if (!idx || !score) {
            free(idx);
            free(score);
            return QR_ENOMEM;
        }
        for (size_t j = 0; j < g->nnamed; j++) {
            size_t i = g->by_name[j];
            const qr_code_node *nd = &g->nodes[i];
            size_t sc;
            if ((want >= 0 && (int)nd->it.kind != want) || !file_ok(x, nd->file) ||
                !active_ok(x, nd) || !fuzzy(x->pattern, nd->it.name, &sc))
                continue;
            score[i] = sc;
            idx[n++] = i;
        }
        /* stable insertion by score (by_name order breaks ties) */
        for (size_t a = 1; a < n; a++) {
            size_t v = idx[a], b = a;
            while (b > 0 && score[idx[b - 1]] > score[v]) {
                idx[b] = idx[b - 1];
                b--;
            }
            idx[b] = v;
        }
        for (size_t k = 0; k < n; k++)
            node(x, idx[k]);
        free(idx);
        free(score);
    } else {
        for (size_t j = 0; j < g->nnamed; j++) {
            size_t i = g->by_name[j];
            const qr_code_node *nd = &g->nodes[i];
            if ((want >= 0 && (int)nd->it.kind != want) || !file_ok(x, nd->file) ||
                !active_ok(x, nd) || !name_ok(x, nd->it.name))
                continue;
            node(x, i);
        }
    }
    *out = paged(x, NULL);
    return QR_OK;
}

/* The file a query is about (`file`, else `name`): a repository path, or a file name or
 * path suffix that only one file ends with. Errors name the candidates, or the nearest. */
static int need_file(q *x, int64_t *fi)
{
    const char *f = x->file ? x->file : x->name;
    int rc = need(x, "file", f);
    if (rc)
        return rc;
    if ((*fi = qr__code_file_index(x->g, f)) >= 0)
        return QR_OK;
    size_t fl = strlen(f), found = 0;
    for (size_t i = 0; i < x->g->nfiles; i++) {
        const char *p = x->g->files[i].path;
        size_t pl = strlen(p);
        if (pl > fl && p[pl - fl - 1] == '/' && !strcmp(p + pl - fl, f)) {
            if (!found++)
                *fi = (int64_t)i;
            else if (found == 2)
                qr_buf_printf(x->err, "file '%s' is ambiguous: '%s', '%s'", f,
                              x->g->files[*fi].path, p);
            else if (found <= 5)
                qr_buf_printf(x->err, ", '%s'", p);
        }
    }
    if (found == 1)
        return QR_OK;
    if (found > 1) {
        qr_buf_puts(x->err, found > 5 ? ", ...; give the whole path" : "; give the whole path");
        return QR_EINVAL;
    }
    x->name = f;
    x->file = NULL;
    qr_val ignore;
    q_find_file(x, &ignore); /* fails, naming the nearest files */
    return QR_EINVAL;
}

static int q_get_skeleton(q *x, qr_val *out)
{
    int64_t fi;
    int rc = need_file(x, &fi);
    if (rc)
        return rc;
    const gfile *gf = &x->g->files[fi];
    for (size_t k = gf->node0; k < gf->node0 + gf->nnodes; k++) {
        const qr_code_node *n = &x->g->nodes[k];
        if (!active_ok(x, n))
            continue;
        node(x, k);
    }
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, 8);
    qr_mapb_put(&mb, kw(x, "file"), s(x, gf->path));
    qr_mapb_put(&mb, kw(x, "lang"), s(x, qr_code_lang_name(gf->lang)));
    qr_mapb_put(&mb, kw(x, "lines"), qr_int(gf->file.lines));
    *out = paged(x, &mb);
    return QR_OK;
}

static int q_get_definition(q *x, qr_val *out)
{
    int rc = need(x, "name", x->name);
    if (rc)
        return rc;
    static const qr_code_kind order[] = {QR_CODE_FUNCTION, QR_CODE_STRUCT, QR_CODE_UNION,
                                         QR_CODE_ENUM,     QR_CODE_TYPEDEF, QR_CODE_MACRO,
                                         QR_CODE_VARIABLE, QR_CODE_DECLARATION,
                                         QR_CODE_ENUMERATOR, QR_CODE_MEMBER};
    const qr_code_graph *g = x->g;
    for (size_t o = 0; o < sizeof order / sizeof *order; o++) {
        for (size_t j = qr__code_name_lower(g, x->name);
             j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
            size_t i = g->by_name[j];
            const qr_code_node *n = &g->nodes[i];
            if (n->it.kind != order[o] || !file_ok(x, n->file) || !active_ok(x, n))
                continue;
            if (x->kind && strcmp(qr_code_kind_name(n->it.kind), x->kind))
                continue;
            const char *text = qr_code_graph_text(x->g, n, x->a);
            if (text && (n->it.flags & QR_CODE_LEXICAL)) {
                /* ctags gives lines, not bytes */
                const char *p = text;
                for (uint32_t l = 1; l < n->it.line && p; l++) {
                    p = strchr(p, '\n');
                    p = p ? p + 1 : NULL;
                }
                const char *e = p;
                for (uint32_t l = n->it.line; l <= n->it.end_line && e; l++) {
                    e = strchr(e, '\n');
                    e = e ? e + 1 : NULL;
                }
                text = p ? qr_arena_strndup(x->a, p, e ? (size_t)(e - p) : strlen(p)) : NULL;
            }
            qr_val r = node_row(x, i);
            qr_mapb mb;
            qr_mapb_init(&mb, x->a, qr_map_len(r) + 1);
            for (size_t k = 0; k < qr_map_len(r); k++)
                qr_mapb_put(&mb, qr_map_key_at(r, k), qr_map_val_at(r, k));
            qr_mapb_put(&mb, kw(x, "text"), s(x, text));
            *out = qr_mapb_finish(&mb, QR_T_MAP);
            return QR_OK;
        }
    }
    return not_found(x, "symbol", x->name, order, sizeof order / sizeof *order);
}

/* ---- graphs: dependencies and calls ---- */

/* The keys met by a breadth-first walk, with their depths, and a hash set of them (open
 * addressing over key contents), so that a function with thousands of callers is not a
 * quadratic walk. */
typedef struct walkq {
    const char **keys;
    int64_t *depth;
    size_t n, cap;
    size_t *slots; /* index + 1, 0 empty */
    size_t nslots;
} walkq;

static size_t wq_slot(const walkq *w, const char *k)
{
    size_t m = w->nslots - 1, i = (size_t)qr_hash_bytes(k, strlen(k)) & m;
    while (w->slots[i] && strcmp(w->keys[w->slots[i] - 1], k))
        i = (i + 1) & m;
    return i;
}

static bool wq_has(const walkq *w, const char *k)
{
    return w->nslots && w->slots[wq_slot(w, k)];
}

static int wq_push(walkq *w, const char *k, int64_t d)
{
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 32;
        const char **nk = realloc(w->keys, nc * sizeof *nk);
        if (!nk)
            return QR_ENOMEM;
        w->keys = nk;
        int64_t *nd = realloc(w->depth, nc * sizeof *nd);
        if (!nd)
            return QR_ENOMEM;
        w->depth = nd;
        w->cap = nc;
    }
    if ((w->n + 1) * 2 > w->nslots) {
        size_t ns = w->nslots ? w->nslots * 2 : 64;
        size_t *sl = calloc(ns, sizeof *sl);
        if (!sl)
            return QR_ENOMEM;
        free(w->slots);
        w->slots = sl;
        w->nslots = ns;
        for (size_t i = 0; i < w->n; i++)
            w->slots[wq_slot(w, w->keys[i])] = i + 1;
    }
    w->keys[w->n] = k;
    w->depth[w->n++] = d;
    w->slots[wq_slot(w, k)] = w->n;
    return QR_OK;
}

static void wq_free(walkq *w)
{
    free(w->keys);
    free(w->depth);
    free(w->slots);
}

/* Breadth-first from the start keys along edges of kind k (forward: from -> to), one row
 * per edge met, up to x->depth. */
static int bfs(q *x, walkq *w, qr_code_edge_kind k, bool forward, const char *dir)
{
    const qr_code_graph *g = x->g;
    for (size_t head = 0; head < w->n; head++) {
        if ((head & 255) == 255 && qr_stop_check(x->stop)) {
            qr_stop_fail(x->stop, x->err);
            return QR_ESTOPPED;
        }
        if (w->depth[head] >= x->depth)
            continue;
        size_t first;
        size_t ne = forward ? qr__code_edges_from(g, w->keys[head], &first)
                            : qr__code_edges_to(g, w->keys[head], &first);
        for (size_t j = 0; j < ne; j++) {
            const qr_code_edge *e = &g->edges[forward ? g->by_from[first + j] : g->by_to[first + j]];
            if (e->kind != k || (!x->inactive && e->inactive))
                continue;
            /* site_file: a call written elsewhere is neither shown nor followed */
            if (k == QR_CODE_E_CALLS && x->site_file && !(e->file && path_matches(x->site_file, e->file)))
                continue;
            const char *next = forward ? e->to_key : e->from_key;
            if (in_page(x)) {
                qr_mapb mb;
                qr_mapb_init(&mb, x->a, 8);
                if (dir)
                    qr_mapb_put(&mb, kw(x, "direction"), s(x, dir));
                qr_mapb_put(&mb, kw(x, "depth"), qr_int(w->depth[head] + 1));
                qr_mapb_put(&mb, kw(x, "from"), s(x, e->from_key));
                qr_mapb_put(&mb, kw(x, "to"), s(x, e->to_key));
                qr_mapb_put(&mb, kw(x, "file"), s(x, e->file));
                qr_mapb_put(&mb, kw(x, "line"), qr_int(e->line));
                if (k == QR_CODE_E_INCLUDES) {
                    /* <...> is a system header; a "..." one the tree lacks is unresolved */
                    bool sys = e->to < 0 && e->to_key[0] == '<';
                    qr_mapb_put(&mb, kw(x, "system"), qr_bool(sys));
                    if (e->to < 0 && !sys)
                        qr_mapb_put(&mb, kw(x, "resolved"), qr_bool(false));
                }
                if (k == QR_CODE_E_CALLS && e->to < 0)
                    qr_mapb_put(&mb, kw(x, "resolved"), qr_bool(false));
                if (e->guess)
                    qr_mapb_put(&mb, kw(x, "guess"), qr_bool(true));
                if (e->via)
                    qr_mapb_put(&mb, kw(x, "via"), s(x, e->via));
                if (e->inactive)
                    qr_mapb_put(&mb, kw(x, "inactive"), qr_bool(true));
                qr_vecb_push(&x->rows, qr_mapb_finish(&mb, QR_T_MAP));
            }
            x->total++;
            if (w->depth[head] + 1 < x->depth && !wq_has(w, next)) {
                int rc = wq_push(w, next, w->depth[head] + 1);
                if (rc)
                    return rc;
            }
        }
    }
    return QR_OK;
}

static int q_get_dependencies(q *x, qr_val *out)
{
    int64_t fi;
    int rc = need_file(x, &fi);
    if (rc)
        return rc;
    walkq w = {0};
    rc = wq_push(&w, x->g->files[fi].path, 0);
    if (!rc)
        rc = bfs(x, &w, QR_CODE_E_INCLUDES, !x->reverse, NULL);
    wq_free(&w);
    if (rc)
        return rc;
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, 8);
    qr_mapb_put(&mb, kw(x, "file"), s(x, x->g->files[fi].path));
    qr_mapb_put(&mb, kw(x, "reverse"), qr_bool(x->reverse));
    qr_mapb_put(&mb, kw(x, "depth"), qr_int(x->depth));
    *out = paged(x, &mb);
    return QR_OK;
}

static int q_get_call_graph(q *x, qr_val *out)
{
    int rc = need(x, "name", x->name);
    if (rc)
        return rc;
    const qr_code_graph *g = x->g;
    walkq start = {0};
    for (size_t j = qr__code_name_lower(g, x->name);
         j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
        size_t i = g->by_name[j];
        const qr_code_node *n = &g->nodes[i];
        if (n->it.kind != QR_CODE_FUNCTION || !file_ok(x, n->file))
            continue;
        if ((rc = wq_push(&start, qr__code_node_key(x->g, i), 0))) {
            wq_free(&start);
            return rc;
        }
    }
    for (size_t j = qr__code_name_lower(g, x->name);
         !start.n && j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
        /* a function-pointer variable: its callers are the calls through it */
        size_t i = g->by_name[j];
        const qr_code_node *n = &g->nodes[i];
        if (n->it.kind != QR_CODE_VARIABLE || !qr__code_fnptr_type(n->it.type) ||
            !file_ok(x, n->file))
            continue;
        size_t first;
        if (qr__code_edges_to(g, qr__code_node_key(x->g, i), &first) &&
            (rc = wq_push(&start, qr__code_node_key(x->g, i), 0))) {
            wq_free(&start);
            return rc;
        }
    }
    bool macro = false;
    for (size_t j = qr__code_name_lower(g, x->name);
         !start.n && j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
        /* a function-like macro: its callees are what its body calls, its callers the
         * functions that expand it */
        size_t i = g->by_name[j];
        const qr_code_node *n = &g->nodes[i];
        if (n->it.kind != QR_CODE_MACRO || !(n->it.flags & QR_CODE_FUNC_LIKE) ||
            !file_ok(x, n->file))
            continue;
        macro = true;
    }
    for (size_t j = qr__code_name_lower(g, x->name);
         macro && j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
        size_t i = g->by_name[j];
        const qr_code_node *n = &g->nodes[i];
        if (n->it.kind != QR_CODE_MACRO || !(n->it.flags & QR_CODE_FUNC_LIKE) ||
            !file_ok(x, n->file))
            continue;
        if ((rc = wq_push(&start, qr__code_node_key(x->g, i), 0))) {
            wq_free(&start);
            return rc;
        }
    }
    if (!start.n) {
        /* an unresolved callee (a library function) has callers by its bare name */
        size_t first;
        if (qr__code_edges_to(g, x->name, &first) && !x->file) {
            rc = wq_push(&start, x->name, 0);
        } else {
            static const qr_code_kind ks[] = {QR_CODE_FUNCTION};
            wq_free(&start);
            if (x->file) {
                /* defined, but not under `file`: say where (every file that defines it,
                 * the first four named), and how to ask for callers there */
                size_t nd = 0;
                qr_buf where;
                qr_buf_init(&where);
                for (size_t j = qr__code_name_lower(g, x->name);
                     j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++) {
                    const qr_code_node *n = &g->nodes[g->by_name[j]];
                    if (n->it.kind != QR_CODE_FUNCTION)
                        continue;
                    if (nd < 4)
                        qr_buf_printf(&where, "%s'%s'", nd ? ", " : "", n->file);
                    nd++;
                }
                if (nd > 4)
                    qr_buf_printf(&where, " and %zu more", nd - 4);
                if (nd) {
                    qr_buf_printf(x->err,
                                  "function '%s' is defined in %s, not under '%s' (file "
                                  "picks where the function is defined; site_file keeps "
                                  "the calls written in a file)",
                                  x->name, where.p ? where.p : "", x->file);
                    qr_buf_release(&where);
                    return QR_EINVAL;
                }
                qr_buf_release(&where);
            }
            return not_found(x, "function", x->name, ks, 1);
        }
    }
    bool callers = strcmp(x->direction, "callees") != 0;
    bool callees = strcmp(x->direction, "callers") != 0;
    qr_vecb fns;
    qr_vecb_init(&fns, x->a, start.n);
    for (size_t i = 0; i < start.n; i++)
        qr_vecb_push(&fns, s(x, start.keys[i]));
    if (callees && !rc) {
        walkq w = {0};
        for (size_t i = 0; i < start.n && !rc; i++)
            rc = wq_push(&w, start.keys[i], 0);
        if (!rc)
            rc = bfs(x, &w, QR_CODE_E_CALLS, true, "callee");
        wq_free(&w);
    }
    if (callers && !rc) {
        walkq w = {0};
        if (macro) /* an expansion's edge is to the macro's name */
            rc = wq_push(&w, x->name, 0);
        for (size_t i = 0; i < start.n && !rc && !macro; i++)
            rc = wq_push(&w, start.keys[i], 0);
        if (!rc)
            rc = bfs(x, &w, macro ? QR_CODE_E_EXPANDS : QR_CODE_E_CALLS, false, "caller");
        wq_free(&w);
    }
    wq_free(&start);
    if (rc)
        return rc;
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, 10);
    qr_mapb_put(&mb, kw(x, "functions"), qr_vecb_finish(&fns, QR_T_VEC));
    qr_mapb_put(&mb, kw(x, "direction"), s(x, x->direction));
    qr_mapb_put(&mb, kw(x, "depth"), qr_int(x->depth));
    *out = paged(x, &mb);
    return QR_OK;
}

/* One row of find_references (when in the page and active as asked). */
static void ref_row(q *x, const gfile *f, const qr_code_ref *ref)
{
    static const char *const kinds[] = {"call", "include", "type", "use", "macro-body"};
    if (!x->inactive && qr__code_cond_inactive(x->g, ref->cond))
        return;
    if (in_page(x)) {
        qr_mapb mb;
        qr_mapb_init(&mb, x->a, 6);
        qr_mapb_put(&mb, kw(x, "file"), s(x, f->path));
        qr_mapb_put(&mb, kw(x, "line"), qr_int(ref->line));
        qr_mapb_put(&mb, kw(x, "kind"), s(x, kinds[ref->kind]));
        qr_mapb_put(&mb, kw(x, ref->kind == QR_CODE_REF_MACRO_CALL ? "macro" : "function"),
                    s(x, ref->from));
        qr_vecb_push(&x->rows, qr_mapb_finish(&mb, QR_T_MAP));
    }
    x->total++;
}

static void ref_row_kept(void *ud, const gfile *f, const qr_code_ref *ref)
{
    ref_row(ud, f, ref);
}

static int q_find_references(q *x, qr_val *out)
{
    int rc = need(x, "name", x->name);
    if (rc)
        return rc;
    const qr_code_graph *g = x->g;
    bool known = false;
    for (size_t j = qr__code_name_lower(g, x->name);
         j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, x->name); j++)
        known = true;
    if (!x->g->refs_done && x->g->ref_queries == 0 &&
        qr__code_refs_kept(x->g, x->name, ref_row_kept, x, &known)) {
        /* answered from the references kept beside the kept graph */
        x->g->ref_queries++;
    } else if (!x->g->refs_done && x->g->ref_queries++ == 0) {
        /* the first question of a graph scans (a process answering one question should
         * not sort every reference); the second builds the index */
        for (size_t i = 0; i < g->nfiles; i++) {
            if ((rc = qr__code_file_names(x->g, i, x->err)))
                return rc;
            const gfile *f = &g->files[i];
            if (f->status < 0 || f->deleted || !file_ok(x, f->path))
                continue;
            size_t a = 0, b = 0;
            while (a < f->file.nrefs || b < f->nnames) {
                const qr_code_ref *ref;
                if (b >= f->nnames ||
                    (a < f->file.nrefs && f->file.refs[a].line <= f->names[b].line))
                    ref = &f->file.refs[a++];
                else
                    ref = &f->names[b++];
                if (ref->kind == QR_CODE_REF_INCLUDE || strcmp(ref->name, x->name))
                    continue;
                known = true;
                ref_row(x, f, ref);
            }
        }
        qr__code_refs_keep(x->g);
    } else {
        if ((rc = qr__code_ref_index(x->g, x->err)))
            return rc;
        size_t lo = 0, hi = g->nrefs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(g->refs[mid]->name, x->name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
        for (size_t i = lo; i < g->nrefs && !strcmp(g->refs[i]->name, x->name); i++) {
            const gfile *f = &g->files[g->ref_file[i]];
            known = true;
            if (file_ok(x, f->path))
                ref_row(x, f, g->refs[i]);
        }
    }
    if (!known) {
        static const qr_code_kind ks[] = {
            QR_CODE_FUNCTION, QR_CODE_DECLARATION, QR_CODE_STRUCT,   QR_CODE_UNION,
            QR_CODE_ENUM,     QR_CODE_ENUMERATOR,  QR_CODE_TYPEDEF,  QR_CODE_MACRO,
            QR_CODE_VARIABLE};
        return not_found(x, "symbol", x->name, ks, sizeof ks / sizeof *ks);
    }
    *out = paged(x, NULL);
    return QR_OK;
}

/* The files the parser recovered from errors in, most errors first (then by path), at
 * most ERROR_FILES of them: [{:file :parse_errors}], where parse_errors alone does not say. */
#define ERROR_FILES 20
static qr_val error_files(q *x)
{
    const qr_code_graph *g = x->g;
    size_t top[ERROR_FILES], n = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        uint32_t e = g->files[i].file.errors;
        if (!e)
            continue;
        /* insert i in order: more errors first; files are sorted by path already */
        size_t at = n;
        while (at > 0 && g->files[top[at - 1]].file.errors < e)
            at--;
        if (at >= ERROR_FILES)
            continue;
        if (n < ERROR_FILES)
            n++;
        memmove(top + at + 1, top + at, (n - 1 - at) * sizeof *top);
        top[at] = i;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, x->a, n);
    for (size_t k = 0; k < n; k++) {
        qr_mapb mb;
        qr_mapb_init(&mb, x->a, 3);
        qr_mapb_put(&mb, kw(x, "file"), s(x, g->files[top[k]].path));
        qr_mapb_put(&mb, kw(x, "parse_errors"), qr_int(g->files[top[k]].file.errors));
        /* where: the first lines with an error (issue 23) */
        const qr_code_file *cf = &g->files[top[k]].file;
        qr_vecb lb;
        qr_vecb_init(&lb, x->a, cf->nerror_lines);
        for (uint32_t l = 0; l < cf->nerror_lines; l++)
            qr_vecb_push(&lb, qr_int(cf->error_line[l]));
        qr_mapb_put(&mb, kw(x, "lines"), qr_vecb_finish(&lb, QR_T_VEC));
        qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static int q_get_index_stats(q *x, qr_val *out)
{
    const qr_code_stats *st = &x->g->stats;
    qr_mapb mb;
    qr_mapb_init(&mb, x->a, 24);
#define PUT(k, v) qr_mapb_put(&mb, kw(x, k), qr_int((int64_t)(v)))
    qr_mapb_put(&mb, kw(x, "commit"), x->g->commit[0] ? s(x, x->g->commit) : qr_nil());
    PUT("files", st->files);
    PUT("parsed", st->parsed);
    PUT("ctags_files", st->ctags_files);
    PUT("skipped_binary", st->skipped_binary);
    PUT("skipped_large", st->skipped_large);
    PUT("skipped_symlink", st->skipped_symlink);
    PUT("skipped_path", st->skipped_path);
    PUT("skipped_language", st->skipped_lang);
    PUT("parse_errors", st->parse_errors);
    PUT("files_with_errors", st->files_with_errors);
    PUT("indexed_now", st->blobs_indexed_now);
    PUT("nodes", st->nodes);
    PUT("edges", st->edges);
    PUT("unresolved_calls", st->unresolved_calls);
    size_t counts[QR_CODE_KIND_COUNT] = {0};
    for (size_t i = 0; i < x->g->nnodes; i++)
        counts[x->g->nodes[i].it.kind]++;
    qr_mapb kinds;
    qr_mapb_init(&kinds, x->a, QR_CODE_KIND_COUNT);
    for (int k = 0; k < QR_CODE_KIND_COUNT; k++)
        qr_mapb_put(&kinds, kw(x, qr_code_kind_name((qr_code_kind)k)), qr_int((int64_t)counts[k]));
    qr_mapb_put(&mb, kw(x, "by_kind"), qr_mapb_finish(&kinds, QR_T_MAP));
    size_t ecounts[QR_CODE_E_KIND_COUNT] = {0};
    qr__code_need_edges(x->g);
    for (size_t i = 0; i < x->g->nedges; i++)
        ecounts[x->g->edges[i].kind]++;
    qr_mapb ek;
    qr_mapb_init(&ek, x->a, QR_CODE_E_KIND_COUNT);
    for (int k = 0; k < QR_CODE_E_KIND_COUNT; k++)
        qr_mapb_put(&ek, kw(x, qr__code_edge_name((qr_code_edge_kind)k)), qr_int((int64_t)ecounts[k]));
    qr_mapb_put(&mb, kw(x, "by_edge"), qr_mapb_finish(&ek, QR_T_MAP));
    int64_t blobs, items, refs;
    qr_buf ignored;
    qr_buf_init(&ignored);
    int sr = qr__code_need_store(x->g->c, &ignored);
    qr_buf_release(&ignored);
    if (sr == QR_OK && qr__code_store_count(x->g->c->store, &blobs, &items, &refs) == QR_OK) {
        PUT("stored_blobs", blobs);
        PUT("stored_items", items);
        PUT("stored_refs", refs);
    }
    /* the team database is named by its server, never by its URL */
    bool shared = sr == QR_OK && qr__code_store_shared(x->g->c->store);
    qr_mapb_put(&mb, kw(x, "database"),
                s(x, shared ? qr__code_store_path(x->g->c->store) : qr_code_db_path(x->g->c)));
    qr_mapb_put(&mb, kw(x, "error_files"), error_files(x));
#undef PUT
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    return QR_OK;
}

/* ---- dispatch ---- */

typedef struct qtype {
    const char *name;
    int (*run)(q *x, qr_val *out);
} qtype;

static const qtype types[] = {
    {"find_file", q_find_file},
    {"list_files", q_list_files},
    {"find_function", q_find_function},
    {"list_functions", q_list_functions},
    {"get_dependencies", q_get_dependencies},
    {"get_call_graph", q_get_call_graph},
    {"find_struct", q_find_struct},
    {"list_structs", q_list_structs},
    {"find_type", q_find_type},
    {"find_macro", q_find_macro},
    {"find_references", q_find_references},
    {"search_by_name", q_search_by_name},
    {"get_skeleton", q_get_skeleton},
    {"get_definition", q_get_definition},
    {"get_index_stats", q_get_index_stats},
};

const char *const qr__code_query_types[] = {
    "find_file",      "list_files",      "find_function",   "list_functions",
    "get_dependencies", "get_call_graph", "find_struct",    "list_structs",
    "find_type",      "find_macro",      "find_references", "search_by_name",
    "get_skeleton",   "get_definition",  "get_index_stats", NULL};

int qr_code_query(qr_code_graph *g, const qr_stop *stop, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    q x;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.stop = stop;
    x.a = a;
    x.err = err;
    x.args = args;
    x.type = arg_str(&x, "query_type");
    if (!x.type) {
        qr_buf_puts(err, "parameter 'query_type' is required");
        return QR_EINVAL;
    }
    x.name = arg_str(&x, "name");
    x.file = arg_str(&x, "file");
    x.site_file = arg_str(&x, "site_file");
    x.pattern = arg_str(&x, "pattern");
    x.match = arg_str(&x, "match");
    x.visibility = arg_str(&x, "visibility");
    x.direction = arg_str(&x, "direction");
    x.kind = arg_str(&x, "kind");
    if (!x.match)
        x.match = "glob";
    if (!x.visibility)
        x.visibility = "all";
    if (!x.direction)
        x.direction = "both";
    x.depth = arg_int(&x, "depth", 1);
    x.limit = arg_int(&x, "limit", 50);
    x.offset = arg_int(&x, "offset", 0);
    if (x.depth < 1)
        x.depth = 1;
    if (x.limit < 0)
        x.limit = 0;
    if (x.offset < 0)
        x.offset = 0;
    x.reverse = arg_bool(&x, "reverse", false);
    x.inactive = arg_bool(&x, "include_inactive", true);
    qr_vecb_init(&x.rows, a, 16);
    const qtype *t = NULL;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(types[i].name, x.type))
            t = &types[i];
    if (!t) {
        qr_buf_printf(err, "unknown query_type '%s'; one of:", x.type);
        for (size_t i = 0; i < sizeof types / sizeof *types; i++)
            qr_buf_printf(err, "%s %s", i ? "," : "", types[i].name);
        return QR_EINVAL;
    }
    int rc = compile_pattern(&x);
    if (!rc)
        rc = t->run(&x, out);
    pcre2_match_data_free(x.md);
    pcre2_code_free(x.re);
    if (!rc && a->exhausted)
        rc = QR_ENOMEM;
    return rc;
}
