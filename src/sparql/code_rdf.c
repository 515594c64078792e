/*
 * code_rdf.c: the code graph as RDF, under the vocabulary of docs/sparql.md (namespace
 * https://quarry.dev/code#, prefix `code:`). The adapter is fed the nodes, edges and files
 * of one assembled code graph (src/code) and writes their triples straight into the
 * store's id tables: strings are interned once in the dictionary, no N-Triples text is
 * produced and read back, and nothing of the code index is kept twice in text form.
 *
 * The interface takes plain records (qr_sparql_code_node, qr_sparql_code_edge) rather
 * than src/code's types, so the vocabulary and the triples are defined and tested here;
 * the glue that walks a qr_code_graph is a loop over its accessors.
 *
 * Resources: a file is <https://quarry.dev/code/file/PATH>; an item is
 * <https://quarry.dev/code/KIND/PATH#NAME> (members and enumerators: PARENT.NAME; a
 * second item of the same name in a file gets @LINE); a callee the graph could not
 * resolve is <https://quarry.dev/code/external/NAME>, a system header
 * <https://quarry.dev/code/header/NAME>. Call sites are blank nodes of class code:Call.
 */
#include "sparql_int.h"

#include "quarry/code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_NS "https://quarry.dev/code#"
#define CODE_RES "https://quarry.dev/code/"

struct qr_sparql_code_builder {
    qr_sparql_store *st;
    sq_id *node_ids;
    size_t nnodes, cap;
    size_t calls;
    uint8_t *used; /* by term id: already the resource of a node */
    size_t nused;
    int rc;
    qr_buf tmp;
    sq_id p_type, p_name, p_path, p_file, p_line, p_end, p_count, p_sig, p_typ, p_static,
        p_flike, p_inactive, p_cond, p_lang, p_parent, p_site, p_callee, p_via;
};

static sq_id intern(qr_sparql_code_builder *b, int kind, const char *s, size_t n,
                    const char *dt)
{
    sq_term t = {0};
    t.kind = (uint8_t)kind;
    t.lex = s;
    t.len = (uint32_t)n;
    t.dt = dt;
    sq_id id = sq_dict_intern(b->st, &t);
    if (!id)
        b->rc = QR_ENOMEM;
    return id;
}

static sq_id iri(qr_sparql_code_builder *b, const char *s)
{
    return intern(b, SQ_IRI, s, strlen(s), NULL);
}

static sq_id lit(qr_sparql_code_builder *b, const char *s)
{
    return intern(b, SQ_LIT, s, strlen(s), NULL);
}

static sq_id lit_int(qr_sparql_code_builder *b, int64_t v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return intern(b, SQ_LIT, buf, (size_t)n, XSD "integer");
}

static sq_id lit_bool(qr_sparql_code_builder *b, bool v)
{
    return intern(b, SQ_LIT, v ? "true" : "false", v ? 4 : 5, XSD "boolean");
}

static void add(qr_sparql_code_builder *b, sq_id s, sq_id p, sq_id o)
{
    if (b->rc || !s || !p || !o)
        return;
    if (sq_store_add_ids(b->st, SQ_DEFAULT_G, s, p, o))
        b->rc = QR_ENOMEM;
}

/* percent-encodes what may not stand in an IRI */
static void put_iri_part(qr_buf *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= 0x20 || c == '<' || c == '>' || c == '"' || c == '{' || c == '}' || c == '|' ||
            c == '\\' || c == '^' || c == '`' || c == '%' || c == '#' || c == '?' || c == '[' ||
            c == ']') /* RFC 3987: '[' and ']' only in a host */
            qr_buf_printf(out, "%%%02X", c);
        else
            qr_buf_putc(out, (char)c);
    }
}

static sq_id resource(qr_sparql_code_builder *b, const char *kind, const char *path,
                      const char *frag)
{
    qr_buf_reset(&b->tmp);
    qr_buf_puts(&b->tmp, CODE_RES);
    qr_buf_puts(&b->tmp, kind);
    qr_buf_putc(&b->tmp, '/');
    put_iri_part(&b->tmp, path);
    if (frag) {
        qr_buf_putc(&b->tmp, '#');
        put_iri_part(&b->tmp, frag);
    }
    if (b->tmp.failed) {
        b->rc = QR_ENOMEM;
        return 0;
    }
    return iri(b, b->tmp.p);
}

static sq_id cls(qr_sparql_code_builder *b, const char *name)
{
    char buf[96];
    snprintf(buf, sizeof buf, CODE_NS "%s", name);
    return iri(b, buf);
}

qr_sparql_code_builder *qr_sparql_code_begin(qr_sparql_store *st)
{
    qr_sparql_code_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->st = st;
    qr_buf_init(&b->tmp);
    b->p_type = iri(b, RDF_NS "type");
    b->p_name = cls(b, "name");
    b->p_path = cls(b, "path");
    b->p_file = cls(b, "file");
    b->p_line = cls(b, "line");
    b->p_end = cls(b, "endLine");
    b->p_count = cls(b, "lineCount");
    b->p_sig = cls(b, "signature");
    b->p_typ = cls(b, "type");
    b->p_static = cls(b, "static");
    b->p_flike = cls(b, "functionLike");
    b->p_inactive = cls(b, "inactive");
    b->p_cond = cls(b, "condition");
    b->p_lang = cls(b, "language");
    b->p_parent = cls(b, "parentName");
    b->p_site = cls(b, "callSite");
    b->p_callee = cls(b, "callee");
    b->p_via = cls(b, "via");
    if (b->rc) {
        qr_sparql_code_end(b);
        return NULL;
    }
    return b;
}

/* marks id as a node's resource; true when it already was */
static bool mark_used(qr_sparql_code_builder *b, sq_id id)
{
    if (id >= b->nused) {
        size_t nn = b->nused ? b->nused : 4096;
        while (nn <= id)
            nn *= 2;
        uint8_t *u = realloc(b->used, nn);
        if (!u) {
            b->rc = QR_ENOMEM;
            return false;
        }
        memset(u + b->nused, 0, nn - b->nused);
        b->used = u;
        b->nused = nn;
    }
    bool was = b->used[id];
    b->used[id] = 1;
    return was;
}

static sq_id file_res(qr_sparql_code_builder *b, const char *path)
{
    return resource(b, "file", path, NULL);
}

int qr_sparql_code_add_file(qr_sparql_code_builder *b, const char *path, const char *lang,
                        uint32_t lines)
{
    sq_id f = file_res(b, path);
    add(b, f, b->p_type, cls(b, "File"));
    add(b, f, b->p_path, lit(b, path));
    const char *slash = strrchr(path, '/');
    add(b, f, b->p_name, lit(b, slash ? slash + 1 : path));
    if (lang)
        add(b, f, b->p_lang, lit(b, lang));
    if (lines)
        add(b, f, b->p_count, lit_int(b, lines));
    return b->rc;
}

static const char *class_of(const char *kind)
{
    static const char *const map[][2] = {
        {"function", "Function"}, {"declaration", "Declaration"}, {"struct", "Struct"},
        {"union", "Union"},       {"enum", "Enum"},               {"enumerator", "Enumerator"},
        {"typedef", "Typedef"},   {"member", "Member"},           {"macro", "Macro"},
        {"variable", "Variable"}, {"file", "File"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], kind))
            return map[i][1];
    return NULL;
}

int qr_sparql_code_add_node(qr_sparql_code_builder *b, const qr_sparql_code_node *n)
{
    if (b->nnodes == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        sq_id *ni = realloc(b->node_ids, nc * sizeof *ni);
        if (!ni)
            return b->rc = QR_ENOMEM;
        b->node_ids = ni;
        b->cap = nc;
    }
    const char *c = class_of(n->kind);
    if (!c) {
        b->node_ids[b->nnodes++] = 0;
        return b->rc;
    }
    if (!strcmp(n->kind, "file")) {
        sq_id f = file_res(b, n->file);
        b->node_ids[b->nnodes++] = f;
        qr_sparql_code_add_file(b, n->file, n->lang, n->end_line);
        return b->rc;
    }
    char frag[512];
    if (n->parent)
        snprintf(frag, sizeof frag, "%s.%s", n->parent, n->name);
    else
        snprintf(frag, sizeof frag, "%s", n->name);
    sq_id s = resource(b, n->kind, n->file, frag);
    /* a second item of the same name and kind in one file (an #if branch) gets @LINE */
    if (s && mark_used(b, s)) {
        char f2[560];
        snprintf(f2, sizeof f2, "%s@%u", frag, n->line);
        s = resource(b, n->kind, n->file, f2);
    }
    if (b->rc)
        return b->rc;
    mark_used(b, s);
    b->node_ids[b->nnodes++] = s;
    add(b, s, b->p_type, cls(b, c));
    add(b, s, b->p_name, lit(b, n->name));
    add(b, s, b->p_file, file_res(b, n->file));
    add(b, s, b->p_line, lit_int(b, n->line));
    add(b, s, b->p_end, lit_int(b, n->end_line));
    if (n->end_line >= n->line)
        add(b, s, b->p_count, lit_int(b, (int64_t)n->end_line - n->line + 1));
    if (n->signature)
        add(b, s, b->p_sig, lit(b, n->signature));
    if (n->type)
        add(b, s, b->p_typ, lit(b, n->type));
    if (n->parent)
        add(b, s, b->p_parent, lit(b, n->parent));
    if (n->cond)
        add(b, s, b->p_cond, lit(b, n->cond));
    if (!strcmp(n->kind, "function") || !strcmp(n->kind, "variable"))
        add(b, s, b->p_static, lit_bool(b, n->is_static));
    if (!strcmp(n->kind, "macro"))
        add(b, s, b->p_flike, lit_bool(b, n->function_like));
    if (n->inactive)
        add(b, s, b->p_inactive, lit_bool(b, true));
    return b->rc;
}

/* the resource at one end of an edge */
static sq_id end_res(qr_sparql_code_builder *b, int64_t idx, const char *key, const char *kind,
                     bool to)
{
    if (idx >= 0 && (size_t)idx < b->nnodes && b->node_ids[idx])
        return b->node_ids[idx];
    if (!key)
        return 0;
    if (!strcmp(kind, "includes") && to) {
        if (key[0] == '<' || !strchr(key, '/')) {
            sq_id h = resource(b, "header", key, NULL);
            add(b, h, b->p_type, cls(b, "SystemHeader"));
            add(b, h, b->p_name, lit(b, key));
            return h;
        }
        return file_res(b, key);
    }
    if (!to && (!strcmp(kind, "includes") || !strcmp(kind, "declares") ||
                !strcmp(kind, "defines")))
        return file_res(b, key);
    if (!strcmp(kind, "calls") && to) {
        sq_id x = resource(b, "external", key, NULL);
        add(b, x, b->p_type, cls(b, "External"));
        add(b, x, b->p_name, lit(b, key));
        return x;
    }
    return 0;
}

int qr_sparql_code_add_edge(qr_sparql_code_builder *b, const qr_sparql_code_edge *e)
{
    static const char *const props[][2] = {
        {"calls", "calls"},        {"includes", "includes"},   {"declares", "declares"},
        {"defines", "defines"},    {"member_of", "memberOf"},  {"uses_type", "usesType"},
        {"expands", "expands"},
    };
    const char *prop = NULL;
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++)
        if (!strcmp(props[i][0], e->kind))
            prop = props[i][1];
    if (!prop)
        return b->rc;
    sq_id from = end_res(b, e->from, e->from_key, e->kind, false);
    sq_id to = end_res(b, e->to, e->to_key, e->kind, true);
    if (!from || !to)
        return b->rc;
    if (!e->inactive)
        add(b, from, cls(b, prop), to);
    else if (!strcmp(e->kind, "includes")) /* an #include under a disabled #if is still
                                               written in the file */
        add(b, from, cls(b, "includesInactive"), to);
    if (!strcmp(e->kind, "calls")) {
        char label[48];
        snprintf(label, sizeof label, "call%zu", ++b->calls);
        sq_id site = intern(b, SQ_BLANK, label, strlen(label), NULL);
        add(b, from, b->p_site, site);
        add(b, site, b->p_type, cls(b, "Call"));
        add(b, site, b->p_callee, to);
        if (e->file)
            add(b, site, b->p_file, file_res(b, e->file));
        add(b, site, b->p_line, lit_int(b, e->line));
        if (e->via)
            add(b, site, b->p_via, lit(b, e->via));
        if (e->inactive)
            add(b, site, b->p_inactive, lit_bool(b, true));
    }
    return b->rc;
}

int qr_sparql_code_end(qr_sparql_code_builder *b)
{
    if (!b)
        return QR_OK;
    int rc = b->rc;
    free(b->node_ids);
    free(b->used);
    qr_buf_release(&b->tmp);
    free(b);
    return rc;
}

/* ---- the glue: one assembled qr_code_graph ---- */
static const char *const edge_kinds[QR_CODE_E_KIND_COUNT] = {
    "calls", "includes", "declares", "defines", "member_of", "uses_type", "expands",
};

int qr_sparql_load_code_graph(qr_sparql_store *st, const qr_code_graph *g)
{
    qr_sparql_code_builder *b = qr_sparql_code_begin(st);
    if (!b)
        return QR_ENOMEM;
    for (size_t i = 0, n = qr_code_graph_nfiles(g); i < n; i++) {
        qr_code_lang lang;
        const char *path = qr_code_graph_file(g, i, &lang);
        qr_sparql_code_add_file(b, path, qr_code_lang_name(lang), 0);
    }
    for (size_t i = 0, n = qr_code_graph_nnodes(g); i < n; i++) {
        const qr_code_node *x = qr_code_graph_node(g, i);
        qr_sparql_code_node y = {0};
        y.kind = qr_code_kind_name(x->it.kind);
        y.name = x->it.name;
        y.file = x->file;
        y.lang = qr_code_lang_name(x->lang);
        y.parent = x->it.parent;
        y.type = x->it.type;
        y.signature = x->it.signature;
        y.cond = x->it.cond;
        y.line = x->it.line;
        y.end_line = x->it.end_line;
        y.is_static = x->it.flags & QR_CODE_STATIC;
        y.function_like = x->it.flags & QR_CODE_FUNC_LIKE;
        y.inactive = x->inactive;
        qr_sparql_code_add_node(b, &y);
    }
    for (size_t i = 0, n = qr_code_graph_nedges(g); i < n; i++) {
        const qr_code_edge *x = qr_code_graph_edge(g, i);
        if ((unsigned)x->kind >= QR_CODE_E_KIND_COUNT)
            continue;
        qr_sparql_code_edge y = {0};
        y.kind = edge_kinds[x->kind];
        y.from = x->from;
        y.to = x->to;
        y.from_key = x->from_key;
        y.to_key = x->to_key;
        y.file = x->file;
        y.via = x->via;
        y.line = x->line;
        y.inactive = x->inactive;
        qr_sparql_code_add_edge(b, &y);
    }
    return qr_sparql_code_end(b);
}
