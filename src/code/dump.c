/*
 * dump.c: the code graph as text for other tools: JSON lines (`quarry code dump`, one
 * node or edge a line, in the shapes docs/code.md lists) and Graphviz DOT pictures of a
 * neighbourhood (`quarry code graph`), clustered by file, static functions and
 * unresolved callees styled apart.
 *
 * Design: nodes in file order then edges in assembly order, so two dumps of one tree are
 * byte-identical and diff well; optional fields appear only when set ("static" always on
 * functions and declarations, "inactive" only when true).
 */
#include "graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const edge_names[] = {"calls",     "includes",  "declares", "defines",
                                         "member-of", "uses-type", "expands"};

const char *qr__code_edge_name(qr_code_edge_kind k)
{
    return (unsigned)k < QR_CODE_E_KIND_COUNT ? edge_names[k] : "unknown";
}

static void field_str(qr_buf *b, const char *k, const char *v)
{
    qr_buf_printf(b, ",\"%s\":", k);
    qr_buf_json_string(b, v, strlen(v));
}

static bool under(const char *path, const char *const *prefixes, size_t n)
{
    if (!n)
        return true;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(prefixes[i]);
        while (l && prefixes[i][l - 1] == '/')
            l--;
        if (!l || (!strncmp(path, prefixes[i], l) && (path[l] == 0 || path[l] == '/')))
            return true;
    }
    return false;
}

void qr__code_node_json(const qr_code_graph *g, const qr_code_node *n, qr_buf *b)
{
    (void)g;
    qr_buf_puts(b, "{\"node\":");
    qr_buf_json_string(b, qr_code_kind_name(n->it.kind), strlen(qr_code_kind_name(n->it.kind)));
    field_str(b, "name", n->it.name);
    if (n->it.kind == QR_CODE_FILE) {
        field_str(b, "lang", qr_code_lang_name(n->lang));
        qr_buf_printf(b, ",\"lines\":%u}", n->it.end_line);
        return;
    }
    field_str(b, "file", n->file);
    qr_buf_printf(b, ",\"line\":%u,\"end_line\":%u", n->it.line, n->it.end_line);
    if (n->it.kind == QR_CODE_FUNCTION || n->it.kind == QR_CODE_DECLARATION ||
        n->it.kind == QR_CODE_VARIABLE)
        qr_buf_printf(b, ",\"static\":%s", n->it.flags & QR_CODE_STATIC ? "true" : "false");
    if (n->it.parent)
        field_str(b, n->it.flags & QR_CODE_EXPANDED ? "expanded_from" : "parent", n->it.parent);
    if (n->it.kind == QR_CODE_MACRO)
        qr_buf_printf(b, ",\"function_like\":%s",
                      n->it.flags & QR_CODE_FUNC_LIKE ? "true" : "false");
    if (n->it.signature && n->it.kind == QR_CODE_MACRO)
        field_str(b, "params", n->it.signature);
    else if (n->it.signature)
        field_str(b, "signature", n->it.signature);
    if (n->it.type && n->it.kind != QR_CODE_MACRO)
        field_str(b, n->it.kind == QR_CODE_FUNCTION || n->it.kind == QR_CODE_DECLARATION
                         ? "returns"
                         : "type",
                  n->it.type);
    if (n->it.flags & QR_CODE_EXTERN)
        qr_buf_puts(b, ",\"extern\":true");
    if (n->it.flags & QR_CODE_ANON)
        qr_buf_puts(b, ",\"anonymous\":true");
    if (n->it.flags & QR_CODE_LEXICAL)
        qr_buf_puts(b, ",\"lexical\":true");
    if (n->inactive)
        qr_buf_puts(b, ",\"inactive\":true");
    qr_buf_putc(b, '}');
}

void qr__code_edge_json(const qr_code_edge *e, qr_buf *b)
{
    qr_buf_puts(b, "{\"edge\":");
    qr_buf_json_string(b, edge_names[e->kind], strlen(edge_names[e->kind]));
    field_str(b, "from", e->from_key);
    field_str(b, "to", e->to_key);
    if (e->kind == QR_CODE_E_CALLS || e->kind == QR_CODE_E_INCLUDES ||
        e->kind == QR_CODE_E_EXPANDS || e->kind == QR_CODE_E_USES_TYPE)
        qr_buf_printf(b, ",\"line\":%u", e->line);
    if (e->via)
        field_str(b, "via", e->via);
    if (e->kind == QR_CODE_E_CALLS && e->to < 0)
        qr_buf_puts(b, ",\"resolved\":false");
    if (e->guess)
        qr_buf_puts(b, ",\"guess\":true");
    if (e->inactive)
        qr_buf_puts(b, ",\"inactive\":true");
    qr_buf_putc(b, '}');
}

void qr_code_dump(const qr_code_graph *g, const char *const *prefixes, size_t nprefixes,
                  qr_buf *out)
{
    for (size_t i = 0; i < g->nnodes; i++) {
        const qr_code_node *n = &g->nodes[i];
        if (!under(n->file, prefixes, nprefixes))
            continue;
        qr__code_node_json(g, n, out);
        qr_buf_putc(out, '\n');
    }
    qr__code_need_edges(g);
    for (size_t i = 0; i < g->nedges; i++) {
        const qr_code_edge *e = &g->edges[i];
        if (!under(e->file, prefixes, nprefixes))
            continue;
        qr__code_edge_json(e, out);
        qr_buf_putc(out, '\n');
    }
}

/* ---- pictures ---- */

typedef struct dotset {
    const char **keys;
    size_t n, cap;
} dotset;

static bool set_has(const dotset *s, const char *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->keys[i], k))
            return true;
    return false;
}

static bool set_add(dotset *s, const char *k)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->keys[i], k))
            return false;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        const char **nk = realloc(s->keys, nc * sizeof *nk);
        if (!nk)
            return false;
        s->keys = nk;
        s->cap = nc;
    }
    s->keys[s->n++] = k;
    return true;
}

static void dot_id(qr_buf *b, const char *k)
{
    qr_buf_putc(b, '"');
    for (const char *p = k; *p; p++) {
        if (*p == '"' || *p == '\\')
            qr_buf_putc(b, '\\');
        qr_buf_putc(b, *p);
    }
    qr_buf_putc(b, '"');
}

int qr_code_dot(qr_code_graph *g, const char *what, int mode, int depth, int max_nodes,
                qr_buf *out, qr_buf *err)
{
    dotset nodes = {0}, edges_seen = {0}, left_out = {0};
    if (max_nodes == 0)
        max_nodes = QR_CODE_DOT_MAX_NODES;
    size_t *edges = NULL, nedges = 0, cape = 0;
    int rc = QR_OK;
    bool file_mode = false;
    int64_t fi = qr__code_file_index(g, what);
    if (fi < 0 && mode != QR_CODE_DOT_CALLERS && mode != QR_CODE_DOT_CALLEES) {
        /* a bare file name */
        size_t wl = strlen(what);
        for (size_t i = 0; i < g->nfiles && fi < 0; i++) {
            size_t pl = strlen(g->files[i].path);
            if (pl > wl && g->files[i].path[pl - wl - 1] == '/' &&
                !strcmp(g->files[i].path + pl - wl, what))
                fi = (int64_t)i;
        }
    }
    if (fi >= 0 && mode != QR_CODE_DOT_CALLERS && mode != QR_CODE_DOT_CALLEES) {
        file_mode = true;
        set_add(&nodes, g->files[fi].path);
    } else {
        if (mode == QR_CODE_DOT_INCLUDES) {
            qr_buf_printf(err, "no file '%s' in the index", what);
            return QR_EINVAL;
        }
        for (size_t j = qr__code_name_lower(g, what);
             j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, what); j++)
            if (g->nodes[g->by_name[j]].it.kind == QR_CODE_FUNCTION)
                set_add(&nodes, qr__code_node_key(g, g->by_name[j]));
        if (!nodes.n) {
            /* the error names the nearest functions, as query_codebase does */
            qr_arena a;
            qr_arena_init(&a, 0);
            qr_mapb mb;
            qr_mapb_init(&mb, &a, 2);
            qr_mapb_put(&mb, qr_kw_cstr(&a, "query_type"), qr_str_cstr(&a, "get_call_graph"));
            qr_mapb_put(&mb, qr_kw_cstr(&a, "name"), qr_str_cstr(&a, what));
            qr_val out_v;
            rc = qr_code_query(g, NULL, qr_mapb_finish(&mb, QR_T_MAP), &a, &out_v, err);
            qr_arena_release(&a);
            if (rc == QR_OK)
                set_add(&nodes, what); /* a library function: its callers */
            else
                return rc;
        }
    }
    size_t start_n = nodes.n;
    /* breadth-first over the node set as it grows, with each node's depth and the way it
     * was reached: as get_call_graph walks, callees onward from a callee and callers
     * onward from a caller (what the query answers, not every neighbour of every node) */
    int *dep = calloc(1, sizeof *dep);
    unsigned char *way = calloc(1, 1); /* 1: onward forward, 2: onward backward */
    size_t depcap = 1;
    if (!dep || !way)
        rc = QR_ENOMEM;
    for (size_t head = 0; head < nodes.n && rc == QR_OK; head++) {
        int d = head < start_n ? 0 : (head < depcap ? dep[head] : depth);
        if (d >= depth)
            continue;
        for (int dir = 0; dir < 2; dir++) {
            bool forward = dir == 0;
            if (head >= start_n && head < depcap && !(way[head] & (forward ? 1 : 2)))
                continue;
            if (file_mode && !forward && mode == QR_CODE_DOT_INCLUDES)
                continue; /* --includes: what it includes; else both ways */
            if (!file_mode && forward && mode == QR_CODE_DOT_CALLERS)
                continue;
            if (!file_mode && !forward && mode == QR_CODE_DOT_CALLEES)
                continue;
            size_t first;
            size_t ne = forward ? qr__code_edges_from(g, nodes.keys[head], &first)
                                : qr__code_edges_to(g, nodes.keys[head], &first);
            for (size_t k = 0; k < ne; k++) {
                size_t ei = forward ? g->by_from[first + k] : g->by_to[first + k];
                const qr_code_edge *e = &g->edges[ei];
                if (e->kind != (file_mode ? QR_CODE_E_INCLUDES : QR_CODE_E_CALLS))
                    continue;
                const char *next = forward ? e->to_key : e->from_key;
                if (max_nodes > 0 && nodes.n >= (size_t)max_nodes && !set_has(&nodes, next)) {
                    set_add(&left_out, next); /* past the cap: counted, not drawn */
                    continue;
                }
                /* one arrow per pair (sites are many) */
                char pair[1024];
                snprintf(pair, sizeof pair, "%s\x1f%s\x1f%s", e->from_key, e->to_key,
                         e->via ? e->via : "");
                const char *pk = qr_arena_strndup(&g->a, pair, strlen(pair));
                if (!pk || !set_add(&edges_seen, pk))
                    continue;
                if (nedges == cape) {
                    cape = cape ? cape * 2 : 32;
                    size_t *ne2 = realloc(edges, cape * sizeof *edges);
                    if (!ne2) {
                        rc = QR_ENOMEM;
                        break;
                    }
                    edges = ne2;
                }
                edges[nedges++] = ei;
                if (set_add(&nodes, next)) {
                    if (nodes.n > depcap) {
                        size_t nc = nodes.cap;
                        int *nd = realloc(dep, nc * sizeof *nd);
                        unsigned char *nw = nd ? realloc(way, nc) : NULL;
                        if (nd)
                            dep = nd;
                        if (!nd || !nw) {
                            rc = QR_ENOMEM;
                            break;
                        }
                        way = nw;
                        depcap = nc;
                    }
                    dep[nodes.n - 1] = d + 1;
                    way[nodes.n - 1] = forward ? 1 : 2;
                }
            }
        }
    }
    if (rc == QR_OK) {
        qr_buf_puts(out, "digraph quarry {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n");
        /* clusters by file */
        dotset files = {0};
        for (size_t i = 0; i < nodes.n; i++) {
            const char *k = nodes.keys[i];
            const char *colon = strrchr(k, ':');
            if (file_mode || !colon)
                continue;
            char *f = qr_arena_strndup(&g->a, k, (size_t)(colon - k));
            if (f)
                set_add(&files, f);
        }
        for (size_t c = 0; c < files.n; c++) {
            qr_buf_printf(out, "  subgraph cluster_%zu {\n    label=", c);
            dot_id(out, files.keys[c]);
            qr_buf_puts(out, ";\n    style=rounded;\n");
            size_t fl = strlen(files.keys[c]);
            for (size_t i = 0; i < nodes.n; i++) {
                const char *k = nodes.keys[i];
                const char *colon = strrchr(k, ':');
                if (!colon || (size_t)(colon - k) != fl || strncmp(k, files.keys[c], fl))
                    continue;
                qr_buf_puts(out, "    ");
                dot_id(out, k);
                qr_buf_puts(out, " [label=");
                dot_id(out, colon + 1);
                int64_t ni = -1;
                for (size_t j = qr__code_name_lower(g, colon + 1);
                     j < g->nnamed && !strcmp(g->nodes[g->by_name[j]].it.name, colon + 1); j++)
                    if (!strcmp(g->nodes[g->by_name[j]].file, files.keys[c]) &&
                        g->nodes[g->by_name[j]].it.kind == QR_CODE_FUNCTION)
                        ni = (int64_t)g->by_name[j];
                if (ni >= 0 && (g->nodes[ni].it.flags & QR_CODE_STATIC))
                    qr_buf_puts(out, ", style=filled, fillcolor=\"#e8e8e8\"");
                if (i < start_n)
                    qr_buf_puts(out, ", penwidth=2");
                qr_buf_puts(out, "];\n");
            }
            qr_buf_puts(out, "  }\n");
        }
        for (size_t i = 0; i < nodes.n; i++) {
            const char *k = nodes.keys[i];
            bool in_file = file_mode ? qr__code_file_index(g, k) >= 0 : strrchr(k, ':') != NULL;
            if (!file_mode && in_file)
                continue;
            qr_buf_puts(out, "  ");
            dot_id(out, k);
            qr_buf_puts(out, in_file ? (i < start_n ? " [penwidth=2];\n" : ";\n")
                                     : " [style=dashed, shape=ellipse];\n");
        }
        for (size_t i = 0; i < nedges; i++) {
            const qr_code_edge *e = &g->edges[edges[i]];
            qr_buf_puts(out, "  ");
            dot_id(out, e->from_key);
            qr_buf_puts(out, " -> ");
            dot_id(out, e->to_key);
            bool attrs = e->via || e->inactive;
            if (attrs) {
                qr_buf_puts(out, " [");
                if (e->via) {
                    qr_buf_puts(out, "label=");
                    char lab[300];
                    snprintf(lab, sizeof lab, "via %s", e->via);
                    dot_id(out, lab);
                }
                if (e->inactive)
                    qr_buf_puts(out, e->via ? ", style=dotted" : "style=dotted");
                qr_buf_putc(out, ']');
            }
            qr_buf_puts(out, ";\n");
        }
        if (left_out.n)
            qr_buf_printf(out,
                          "  \"(more)\" [shape=note, label=\"%zu more not drawn (--max-nodes "
                          "%d; --depth or --callers/--callees narrow it)\"];\n",
                          left_out.n, max_nodes);
        qr_buf_puts(out, "}\n");
        free(files.keys);
    }
    free(dep);
    free(way);
    free(left_out.keys);
    free(edges);
    free(nodes.keys);
    free(edges_seen.keys);
    if (rc == QR_OK && out->failed)
        rc = QR_ENOMEM;
    return rc;
}
