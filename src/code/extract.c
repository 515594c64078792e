/*
 * extract.c: what one C or C++ source holds, read from its tree-sitter syntax tree:
 * functions, prototypes, structs/unions/enums and their members, typedefs, macros,
 * globals (items), and the raw references (calls, includes, type uses, other identifier
 * uses, what a function-like macro's body calls). The result depends only on the bytes,
 * never on the file's path, so it is stored once per git blob; names are resolved across
 * files when a graph is assembled (graph.c).
 *
 * Design: one recursive walk with a small context (enclosing function, preprocessor
 * condition, file scope or not); depth is capped so that hostile nesting cannot exhaust
 * the stack (deeper subtrees are skipped, counted as errors). Every preprocessor branch is
 * walked; an item remembers the conditions it sits under (`#if 0`, `#ifdef X`,
 * `#if defined(X)`), and the assembly decides which are inactive, since whether X is
 * defined anywhere is a question about the whole project. A function-like macro's body
 * is raw text in the tree: its calls are found by a small token scan (an identifier
 * followed by '(' that is not a parameter or a keyword).
 *
 * Rejected: tree-sitter query files (a second language to maintain for what a switch on
 * node types says plainly); running the preprocessor (needs the build's flags, loses the
 * disabled branches the user asked about).
 */
#include "code_int.h"
#include "ppconf.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#define MAX_DEPTH 256

const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);

typedef struct vec {
    void *p;
    size_t n, cap, size;
} vec;

typedef struct ex {
    qr_arena *a;
    const char *src;
    const char *orig; /* src as the file has it, before the blanking passes */
    size_t len;
    bool cpp; /* read as C++: __cplusplus is defined */
    vec items, refs;
    uint32_t errors;
    uint32_t error_line[QR_CODE_ERROR_LINES], nerror_lines;
    bool oom;
    uint32_t macro_body; /* the start of a body macro_head walked already, else 0 */
} ex;

typedef struct ctx {
    const char *fn;   /* enclosing function */
    const char *cond; /* conditions so far */
    bool file_scope;
    int depth;
} ctx;

static void *vec_push(ex *e, vec *v)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 64;
        void *np = qr_arena_realloc(e->a, v->p, v->cap * v->size, nc * v->size);
        if (!np) {
            e->oom = true;
            return NULL;
        }
        v->p = np;
        v->cap = nc;
    }
    void *slot = (char *)v->p + v->n++ * v->size;
    memset(slot, 0, v->size);
    return slot;
}

static const char *dup(ex *e, const char *s, size_t n)
{
    char *d = qr_arena_strndup(e->a, s, n);
    if (!d)
        e->oom = true;
    return d;
}

/* The bytes [s, t) with runs of whitespace (and backslash-newlines) made one space. */
static const char *text_range(ex *e, uint32_t s, uint32_t t)
{
    if (t > e->len)
        t = (uint32_t)e->len;
    if (s > t)
        s = t;
    char *d = qr_arena_alloc(e->a, (size_t)(t - s) + 1);
    if (!d) {
        e->oom = true;
        return NULL;
    }
    size_t k = 0;
    bool sp = false;
    for (uint32_t i = s; i < t; i++) {
        unsigned char c = (unsigned char)e->src[i];
        if (c == '\\' && i + 1 < t && e->src[i + 1] == '\n') {
            i++;
            sp = true;
            continue;
        }
        if (isspace(c)) {
            sp = true;
            continue;
        }
        if (sp && k)
            d[k++] = ' ';
        sp = false;
        d[k++] = (char)c;
    }
    d[k] = 0;
    return d;
}

/* A node's text, whitespace collapsed. */
static const char *text(ex *e, TSNode n)
{
    return text_range(e, ts_node_start_byte(n), ts_node_end_byte(n));
}

/* A prototype's signature without its `;` (a skeleton adds its own). t: from the arena. */
static const char *no_semicolon(const char *t)
{
    if (!t)
        return t;
    char *p = (char *)t + strlen(t);
    while (p > t && (p[-1] == ';' || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r'))
        *--p = 0;
    return t;
}

static bool is(TSNode n, const char *type)
{
    return !strcmp(ts_node_type(n), type);
}

static TSNode field(TSNode n, const char *name)
{
    return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static uint32_t line_of(TSNode n)
{
    return ts_node_start_point(n).row + 1;
}

static uint32_t end_line_of(TSNode n)
{
    TSPoint p = ts_node_end_point(n);
    /* a node ending at column 0 ends on the line before (a trailing newline) */
    return p.column == 0 && p.row > ts_node_start_point(n).row ? p.row : p.row + 1;
}

static qr_code_item *item(ex *e, qr_code_kind k, const char *name, TSNode n, const ctx *c)
{
    qr_code_item *it = vec_push(e, &e->items);
    if (!it)
        return NULL;
    it->kind = k;
    it->name = name;
    it->cond = c->cond;
    it->line = line_of(n);
    it->end_line = end_line_of(n);
    it->start_byte = ts_node_start_byte(n);
    it->end_byte = ts_node_end_byte(n);
    return it;
}

static void ref(ex *e, qr_code_ref_kind k, const char *from, const char *name, uint32_t line,
                const char *cond)
{
    if (!name || !*name)
        return;
    /* consecutive duplicates (one name used twice on a line) are one reference */
    if (e->refs.n) {
        qr_code_ref *last = (qr_code_ref *)e->refs.p + e->refs.n - 1;
        if (last->kind == k && last->line == line && last->from == from &&
            !strcmp(last->name, name))
            return;
    }
    qr_code_ref *r = vec_push(e, &e->refs);
    if (!r)
        return;
    r->kind = k;
    r->from = from;
    r->name = name;
    r->line = line;
    r->cond = cond;
}

/* a, sep and b joined in the arena; NULL (and e->oom) when out of memory. */
static const char *join3(ex *e, const char *a, const char *sep, const char *b)
{
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
    char *d = qr_arena_alloc(e->a, la + ls + lb + 1);
    if (!d) {
        e->oom = true;
        return NULL;
    }
    memcpy(d, a, la);
    memcpy(d + la, sep, ls);
    memcpy(d + la + ls, b, lb + 1);
    return d;
}

static const char *cond_add(ex *e, const char *cond, const char *name)
{
    if (!cond)
        return name;
    const char *d = join3(e, cond, ",", name);
    return d ? d : cond;
}

static void walk(ex *e, TSNode n, ctx c);

/* The named children of a node, through a cursor (ts_node_named_child(n, i) walks from
 * the first child each time: quadratic over a header's top level). */
typedef struct kids {
    TSTreeCursor cur;
    bool more;
} kids;

static void kids_init(kids *k, TSNode n)
{
    k->cur = ts_tree_cursor_new(n);
    k->more = ts_tree_cursor_goto_first_child(&k->cur);
}

static bool kids_next(kids *k, TSNode *out)
{
    while (k->more) {
        TSNode ch = ts_tree_cursor_current_node(&k->cur);
        k->more = ts_tree_cursor_goto_next_sibling(&k->cur);
        if (ts_node_is_named(ch)) {
            *out = ch;
            return true;
        }
    }
    return false;
}

static void kids_done(kids *k)
{
    ts_tree_cursor_delete(&k->cur);
}

static void walk_children(ex *e, TSNode n, const ctx *c)
{
    kids k;
    TSNode ch;
    kids_init(&k, n);
    while (!e->oom && kids_next(&k, &ch))
        walk(e, ch, *c);
    kids_done(&k);
}

/* The children of n in field `declarator` (through a cursor: ts_node_field_name_for_child
 * of libtree-sitter 0.20.7 miscounts after unnamed children). At most max. */
static uint32_t declarators(TSNode n, TSNode *out, uint32_t max)
{
    uint32_t k = 0;
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            const char *f = ts_tree_cursor_current_field_name(&cur);
            if (f && !strcmp(f, "declarator") && k < max)
                out[k++] = ts_tree_cursor_current_node(&cur);
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    return k;
}

/* ---- declarators ---- */

/* The identifier a declarator declares (through pointers, arrays, init, parentheses). */
static TSNode decl_name(TSNode d)
{
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        const char *t = ts_node_type(d);
        if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier") ||
            !strcmp(t, "type_identifier") || !strcmp(t, "qualified_identifier") ||
            !strcmp(t, "destructor_name") || !strcmp(t, "operator_name") ||
            !strcmp(t, "primitive_type"))
            return d;
        TSNode inner = field(d, "declarator");
        if (ts_node_is_null(inner)) {
            /* parenthesized_declarator and attributed declarators have no field */
            if (ts_node_named_child_count(d) == 0)
                break;
            inner = ts_node_named_child(d, 0);
        }
        d = inner;
    }
    TSNode none = {0};
    return none;
}

/* The function_declarator a declarator declares a function with, or a null node (a
 * function pointer variable `int (*fp)(int)` is not a function). */
static TSNode decl_function(TSNode d)
{
    TSNode none = {0};
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        if (is(d, "function_declarator")) {
            TSNode inner = field(d, "declarator");
            /* `(*fp)(int)` is a pointer; `(name)(int)`, a name in parentheses (Lua's
             * `const char *(luaL_checklstring) (lua_State *L, ...)`), a function */
            if (!ts_node_is_null(inner) && is(inner, "parenthesized_declarator") &&
                !(ts_node_named_child_count(inner) == 1 &&
                  is(ts_node_named_child(inner, 0), "identifier")))
                return none;
            return d;
        }
        if (is(d, "pointer_declarator") || is(d, "attributed_declarator") ||
            is(d, "reference_declarator")) {
            TSNode inner = field(d, "declarator");
            if (ts_node_is_null(inner) && ts_node_named_child_count(d))
                inner = ts_node_named_child(d, ts_node_named_child_count(d) - 1);
            d = inner;
            continue;
        }
        return none;
    }
    return none;
}

/* The name of a function declared with a parenthesized name after a macro, as Lua's
 * `LUA_API lua_CFunction (lua_atpanic) (lua_State *L, ...)` is: the grammar reads
 * `lua_CFunction (lua_atpanic)` as a function declarator named after the return type
 * whose one parameter is the type `lua_atpanic`. Returns the name's node and sets *ret
 * to the return type's, or a null node when fd is not of that shape. */
static TSNode paren_name(TSNode fd, TSNode *ret)
{
    TSNode none = {0};
    if (ts_node_is_null(fd) || !is(fd, "function_declarator"))
        return none;
    TSNode inner = field(fd, "declarator");
    if (ts_node_is_null(inner) || !is(inner, "function_declarator"))
        return none;
    TSNode rt = field(inner, "declarator");
    TSNode ps = field(inner, "parameters");
    if (ts_node_is_null(rt) || ts_node_is_null(ps) ||
        !(is(rt, "identifier") || is(rt, "type_identifier") || is(rt, "primitive_type")) ||
        ts_node_named_child_count(ps) != 1)
        return none;
    TSNode p = ts_node_named_child(ps, 0);
    if (!is(p, "parameter_declaration") || !ts_node_is_null(field(p, "declarator")))
        return none;
    TSNode nm = field(p, "type");
    if (ts_node_is_null(nm) || !is(nm, "type_identifier"))
        return none;
    *ret = rt;
    return nm;
}

/* The type specifier with the qualifiers written around it (`const char`). */
static const char *base_type(ex *e, TSNode owner, TSNode type)
{
    if (ts_node_is_null(type))
        return "";
    if (ts_node_is_null(owner))
        return text(e, type);
    qr_buf b;
    qr_buf_init(&b);
    uint32_t k = ts_node_named_child_count(owner);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(owner, i);
        if (!ts_node_eq(ch, type) && !is(ch, "type_qualifier"))
            continue;
        const char *t = text(e, ch);
        if (!t)
            continue;
        if (b.len)
            qr_buf_putc(&b, ' ');
        qr_buf_puts(&b, t);
    }
    const char *r = b.p ? dup(e, b.p, b.len) : text(e, type);
    qr_buf_release(&b);
    return r;
}

/* The type of a declarator as written: the specifier's text and the declarator's
 * decorations without the name (`char *`, `int [8]`). */
static const char *decl_type(ex *e, TSNode owner, TSNode type, TSNode d)
{
    const char *t = base_type(e, owner, type);
    if (!t || ts_node_is_null(d))
        return t;
    TSNode name = decl_name(d);
    if (ts_node_is_null(name))
        return t;
    const char *whole = text(e, d);
    const char *nm = text(e, name);
    if (!whole || !nm)
        return t;
    /* remove the name and an initializer from the declarator's text */
    const char *at = strstr(whole, nm);
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, t);
    if (at) {
        const char *eq = strchr(at + strlen(nm), '=');
        size_t pre = (size_t)(at - whole);
        size_t post_end = eq ? (size_t)(eq - whole) : strlen(whole);
        if (pre || post_end > pre + strlen(nm))
            qr_buf_putc(&b, ' ');
        qr_buf_append(&b, whole, pre);
        qr_buf_append(&b, at + strlen(nm), post_end - pre - strlen(nm));
        while (b.len && b.p[b.len - 1] == ' ')
            b.p[--b.len] = 0;
    }
    const char *r = b.p ? dup(e, b.p, b.len) : t;
    qr_buf_release(&b);
    return r;
}

static bool has_storage(TSNode n, const char *what, ex *e)
{
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (is(ch, "storage_class_specifier")) {
            uint32_t s = ts_node_start_byte(ch), t = ts_node_end_byte(ch);
            size_t w = strlen(what);
            if (t <= e->len && t - s == w && !memcmp(e->src + s, what, w))
                return true;
        }
    }
    return false;
}

/* Walks what a declarator holds besides its name: array sizes, initializers, parameter
 * types. */
static void walk_declarator(ex *e, TSNode d, const ctx *c)
{
    if (ts_node_is_null(d) || c->depth > MAX_DEPTH)
        return;
    const char *t = ts_node_type(d);
    if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier"))
        return;
    if (!strcmp(t, "init_declarator")) {
        walk_declarator(e, field(d, "declarator"), c);
        TSNode v = field(d, "value");
        if (!ts_node_is_null(v))
            walk(e, v, *c);
        return;
    }
    ctx cc = *c;
    cc.depth++;
    uint32_t k = ts_node_named_child_count(d);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_named_child(d, i);
        if (is(ch, "identifier") || is(ch, "field_identifier"))
            continue;
        if (strstr(ts_node_type(ch), "declarator"))
            walk_declarator(e, ch, &cc);
        else
            walk(e, ch, cc);
    }
}

/* ---- definitions ---- */

static const char *type_name_of(ex *e, TSNode spec)
{
    TSNode nm = field(spec, "name");
    if (ts_node_is_null(nm))
        return NULL;
    return text(e, nm);
}

static qr_code_kind spec_kind(TSNode spec)
{
    return is(spec, "union_specifier")  ? QR_CODE_UNION
           : is(spec, "enum_specifier") ? QR_CODE_ENUM
                                        : QR_CODE_STRUCT;
}

static bool is_record(TSNode n)
{
    return is(n, "struct_specifier") || is(n, "union_specifier") || is(n, "enum_specifier") ||
           is(n, "class_specifier");
}

static void members(ex *e, TSNode body, const char *owner, const ctx *c);

/* A struct/union/enum specifier. With a body it defines the type (named `alias` when it
 * has no name of its own); without one it is a use of the type. */
static void record(ex *e, TSNode spec, const char *alias, const ctx *c)
{
    TSNode body = field(spec, "body");
    const char *name = type_name_of(e, spec);
    if (ts_node_is_null(body)) {
        if (name)
            ref(e, QR_CODE_REF_TYPE, c->fn, name, line_of(spec), c->cond);
        return;
    }
    uint32_t flags = 0;
    if (!name) {
        name = alias ? alias : "(anonymous)";
        flags |= QR_CODE_ANON;
    }
    qr_code_item *it = item(e, spec_kind(spec), name, spec, c);
    if (!it)
        return;
    it->flags |= flags;
    members(e, body, name, c);
}

static void members(ex *e, TSNode body, const char *owner, const ctx *c)
{
    if (c->depth > MAX_DEPTH) {
        e->errors++;
        return;
    }
    ctx cc = *c;
    cc.depth++;
    kids ks;
    TSNode m;
    kids_init(&ks, body);
    while (!e->oom && kids_next(&ks, &m)) {
        if (is(m, "enumerator")) {
            TSNode nm = field(m, "name");
            if (ts_node_is_null(nm))
                continue;
            qr_code_item *it = item(e, QR_CODE_ENUMERATOR, text(e, nm), m, &cc);
            if (it)
                it->parent = owner;
            TSNode v = field(m, "value");
            if (!ts_node_is_null(v))
                walk(e, v, cc);
            continue;
        }
        if (is(m, "field_declaration")) {
            TSNode type = field(m, "type");
            if (!ts_node_is_null(type)) {
                if (is_record(type))
                    record(e, type, NULL, &cc);
                else
                    walk(e, type, cc);
            }
            TSNode ds[64];
            uint32_t nd = declarators(m, ds, 64);
            for (uint32_t j = 0; j < nd; j++) {
                TSNode d = ds[j];
                TSNode nm = decl_name(d);
                if (ts_node_is_null(nm))
                    continue;
                qr_code_item *it = item(e, QR_CODE_MEMBER, text(e, nm), m, &cc);
                if (it) {
                    it->line = line_of(nm); /* one of several on a declaration's lines */
                    it->parent = owner;
                    it->type = decl_type(e, m, type, d);
                }
                walk_declarator(e, d, &cc);
            }
            continue;
        }
        if (is(m, "preproc_def") || is(m, "preproc_function_def") ||
            is(m, "preproc_include")) {
            /* a #define among the members (libevent's EVBUFFER_DANGLING flags written
               beside their field): a macro, as at file scope */
            walk(e, m, cc);
            continue;
        }
        if (strncmp(ts_node_type(m), "preproc_", 8) == 0) {
            /* members under #if: walk the branch as a struct body */
            members(e, m, owner, &cc);
            continue;
        }
        walk(e, m, cc);
    }
    kids_done(&ks);
}

static void function_def(ex *e, TSNode n, const ctx *c)
{
    TSNode d = field(n, "declarator");
    TSNode fd = decl_function(d);
    TSNode type = field(n, "type");
    TSNode body = field(n, "body");
    TSNode nm = decl_name(ts_node_is_null(fd) ? d : field(fd, "declarator"));
    TSNode pret = {0};
    TSNode pn = paren_name(fd, &pret);
    if (!ts_node_is_null(pn))
        nm = pn;
    if (ts_node_is_null(nm) || ts_node_is_null(body)) {
        walk_children(e, n, c);
        return;
    }
    const char *name = text(e, nm);
    qr_code_item *it = item(e, QR_CODE_FUNCTION, name, n, c);
    if (!it)
        return;
    if (has_storage(n, "static", e))
        it->flags |= QR_CODE_STATIC;
    if (!ts_node_is_null(pn))
        it->type = text(e, pret);
    else
        it->type = ts_node_is_null(fd) ? base_type(e, n, type) : decl_type(e, n, type, d);
    if (it->type && !ts_node_is_null(fd) && ts_node_is_null(pn)) {
        /* decl_type left the parameter list in: cut it */
        const char *params = text(e, field(fd, "parameters"));
        char *p = params ? strstr((char *)it->type, params) : NULL;
        if (p) {
            *p = 0;
            while (p > it->type && p[-1] == ' ')
                *--p = 0;
        }
    }
    it->signature = text_range(e, ts_node_start_byte(n), ts_node_start_byte(body));
    /* a head a macro writes (head_macro_definitions): the invocation as written, and no
       return type guessed */
    uint32_t h0 = ts_node_start_byte(n), h1 = ts_node_start_byte(body);
    if (e->orig && e->orig != e->src && h1 <= e->len && h1 > h0 + 4 &&
        !memcmp(e->src + h0, "int ", 4) && isupper((unsigned char)e->orig[h0])) {
        const char *keep = e->src;
        e->src = e->orig;
        it->signature = text_range(e, h0, h1);
        e->src = keep;
        it->type = NULL;
    }
    ctx cc = *c;
    cc.fn = name;
    cc.file_scope = false;
    cc.depth++;
    if (!ts_node_is_null(type)) {
        if (is_record(type))
            record(e, type, NULL, &cc);
        else
            walk(e, type, cc);
    }
    if (!ts_node_is_null(pn)) {
        if (is(pret, "type_identifier"))
            ref(e, QR_CODE_REF_TYPE, name, text(e, pret), line_of(pret), c->cond);
        walk_declarator(e, field(fd, "parameters"), &cc);
    } else {
        walk_declarator(e, d, &cc);
    }
    walk(e, body, cc);
}

static bool is_keyword(ex *e, TSNode n)
{
    static const char *const kws[] = {"if", "switch", "while", "for", "return", "sizeof",
                                      "do", "else", "case", NULL};
    uint32_t s = ts_node_start_byte(n), t = ts_node_end_byte(n);
    for (const char *const *k = kws; *k; k++)
        if (t <= e->len && strlen(*k) == t - s && !memcmp(e->src + s, *k, t - s))
            return true;
    return false;
}

static bool is_name(TSNode n)
{
    return is(n, "identifier") || is(n, "type_identifier") || is(n, "primitive_type");
}

/* What a declarator of a false function definition held, read back as the expression it
 * was: `name(...)` is a call of name (a macro or a function), a parameter `T(...)` a call
 * of T, other names uses. */
static void recover(ex *e, TSNode n, const ctx *c)
{
    if (ts_node_is_null(n) || c->depth > MAX_DEPTH)
        return;
    ctx cc = *c;
    cc.depth++;
    if (is_name(n)) {
        if (!is_keyword(e, n) && !is(n, "primitive_type"))
            ref(e, QR_CODE_REF_NAME, c->fn, text(e, n), line_of(n), c->cond);
        return;
    }
    if (is(n, "function_declarator")) {
        TSNode d = field(n, "declarator");
        if (!ts_node_is_null(d) && is_name(d)) {
            if (!is_keyword(e, d))
                ref(e, QR_CODE_REF_CALL, c->fn, text(e, d), line_of(d), c->cond);
        } else {
            recover(e, d, &cc);
        }
        recover(e, field(n, "parameters"), &cc);
        return;
    }
    if (is(n, "parameter_declaration")) {
        TSNode type = field(n, "type");
        TSNode d = field(n, "declarator");
        if (!ts_node_is_null(d) && is(d, "abstract_function_declarator") &&
            !ts_node_is_null(type) && is_name(type)) {
            if (!is_keyword(e, type))
                ref(e, QR_CODE_REF_CALL, c->fn, text(e, type), line_of(type), c->cond);
            recover(e, field(d, "parameters"), &cc);
            return;
        }
        recover(e, type, &cc);
        recover(e, d, &cc);
        return;
    }
    if (is(n, "parameter_list") || is(n, "parenthesized_declarator") ||
        is(n, "abstract_function_declarator") || is(n, "pointer_declarator") ||
        is(n, "abstract_pointer_declarator")) {
        kids ks;
        TSNode ch;
        kids_init(&ks, n);
        while (!e->oom && kids_next(&ks, &ch))
            recover(e, ch, &cc);
        kids_done(&ks);
        return;
    }
    walk(e, n, cc);
}

/* A function definition inside a function's body, which C does not have: the parser's
 * recovery from a statement macro written without a `;` (`GET_TYPE(v)` then `if (...)`,
 * `vmcase(OP_ADD) {`). Not an item: its head is read back as the calls and uses it was,
 * and its body belongs to the enclosing function. */
static void false_function(ex *e, TSNode n, const ctx *c)
{
    TSNode type = field(n, "type");
    TSNode d = field(n, "declarator");
    if (!ts_node_is_null(type)) {
        if (is(type, "macro_type_specifier")) {
            TSNode nm = field(type, "name");
            if (!ts_node_is_null(nm))
                ref(e, QR_CODE_REF_CALL, c->fn, text(e, nm), line_of(nm), c->cond);
            recover(e, field(type, "type"), c);
        } else if (is(type, "type_identifier") && !ts_node_is_null(d) &&
                   (is(d, "parenthesized_declarator") || is(d, "function_declarator"))) {
            /* `vmcase(OP_ADD) {`: the macro read as a type, its arguments as a declarator;
             * `else if (x) {` after such a macro: no call of `else` (nor of `if`) */
            if (!is_keyword(e, type))
                ref(e, QR_CODE_REF_CALL, c->fn, text(e, type), line_of(type), c->cond);
        } else if (is_record(type)) {
            record(e, type, NULL, c);
        } else {
            walk(e, type, *c);
        }
    }
    recover(e, d, c);
    kids ks;
    TSNode ch;
    kids_init(&ks, n);
    while (!e->oom && kids_next(&ks, &ch))
        if (!ts_node_eq(ch, type) && !ts_node_eq(ch, d))
            walk(e, ch, *c);
    kids_done(&ks);
}

static void declaration(ex *e, TSNode n, const ctx *c)
{
    TSNode type = field(n, "type");
    ctx cc = *c;
    cc.depth++;
    if (!ts_node_is_null(type)) {
        if (is_record(type))
            record(e, type, NULL, &cc);
        else
            walk(e, type, cc);
    }
    bool is_static = has_storage(n, "static", e);
    bool is_extern = has_storage(n, "extern", e);
    TSNode ds[64];
    uint32_t nd = declarators(n, ds, 64);
    for (uint32_t j = 0; j < nd; j++) {
        TSNode d = ds[j];
        if (c->file_scope || !ts_node_is_null(decl_function(d))) {
            TSNode fd = decl_function(d);
            TSNode nm = decl_name(ts_node_is_null(fd) ? d : field(fd, "declarator"));
            TSNode pret = {0};
            TSNode pn = paren_name(fd, &pret);
            if (!ts_node_is_null(pn))
                nm = pn;
            if (!ts_node_is_null(nm) && (c->file_scope || !ts_node_is_null(fd))) {
                bool fn = !ts_node_is_null(fd);
                qr_code_item *it =
                    item(e, fn ? QR_CODE_DECLARATION : QR_CODE_VARIABLE, text(e, nm), n, c);
                if (it) {
                    if (!fn)
                        it->line = line_of(nm);
                    it->flags |= (is_static ? QR_CODE_STATIC : 0) |
                                 (is_extern && !fn ? QR_CODE_EXTERN : 0);
                    it->type = ts_node_is_null(pn) ? decl_type(e, n, type, d) : text(e, pret);
                    if (fn && !ts_node_is_null(pn)) {
                        it->signature = no_semicolon(text(e, n));
                    } else if (fn) {
                        it->signature = no_semicolon(text(e, n));
                        const char *params = text(e, field(fd, "parameters"));
                        char *p = params && it->type ? strstr((char *)it->type, params) : NULL;
                        if (p) {
                            *p = 0;
                            while (p > it->type && p[-1] == ' ')
                                *--p = 0;
                        }
                    }
                }
            }
        }
        walk_declarator(e, d, &cc);
    }
}

static void type_definition(ex *e, TSNode n, const ctx *c)
{
    TSNode type = field(n, "type");
    const char *first = NULL;
    TSNode ds[64];
    uint32_t nd = declarators(n, ds, 64);
    for (uint32_t j = 0; j < nd; j++) {
        TSNode d = ds[j];
        TSNode nm = decl_name(d);
        if (ts_node_is_null(nm))
            continue;
        const char *name = text(e, nm);
        if (!first)
            first = name;
        qr_code_item *it = item(e, QR_CODE_TYPEDEF, name, n, c);
        if (!it)
            continue;
        if (!ts_node_is_null(type) && is_record(type) &&
            !ts_node_is_null(field(type, "body"))) {
            const char *tn = type_name_of(e, type);
            const char *kw = is(type, "union_specifier")  ? "union"
                             : is(type, "enum_specifier") ? "enum"
                                                          : "struct";
            qr_buf b;
            qr_buf_init(&b);
            qr_buf_printf(&b, "%s %s", kw, tn ? tn : name);
            it->type = b.p ? dup(e, b.p, b.len) : NULL;
            qr_buf_release(&b);
        } else {
            it->type = decl_type(e, n, type, d);
        }
        walk_declarator(e, d, c);
    }
    if (!ts_node_is_null(type)) {
        if (is_record(type))
            record(e, type, first, c);
        else
            walk(e, type, *c);
    }
}

/* ---- the preprocessor ---- */

static bool is_ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* Whether src[b..b+w) is one of a function-like macro's parameter names (params may be
 * null: none). */
static bool is_param(const ex *e, TSNode params, uint32_t b, uint32_t w)
{
    uint32_t np = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
    for (uint32_t q = 0; q < np; q++) {
        TSNode pn = ts_node_named_child(params, q);
        uint32_t ps = ts_node_start_byte(pn), pt = ts_node_end_byte(pn);
        if (pt - ps == w && pt <= e->len && !memcmp(e->src + ps, e->src + b, w))
            return true;
    }
    return false;
}

/* The calls a function-like macro's body makes: identifiers followed by '(' that are not
 * its parameters, keywords or operands of # and ## (a call whose argument stringizes a
 * parameter, `_serverAssert(#e, ...)`, is a call). */
static void macro_calls(ex *e, const char *name, TSNode params, TSNode value, const ctx *c)
{
    if (ts_node_is_null(value))
        return;
    uint32_t s = ts_node_start_byte(value), t = ts_node_end_byte(value);
    if (t > e->len)
        t = (uint32_t)e->len;
    static const char *const keywords[] = {"if",     "while",   "for",     "switch", "return",
                                           "sizeof", "defined", "_Alignof", "alignof",
                                           "typeof", "__typeof__", "_Generic", "do", NULL};
    uint32_t line = line_of(value);
    for (uint32_t i = s; i < t;) {
        unsigned char ch = (unsigned char)e->src[i];
        if (ch == '\n')
            line++;
        if (ch == '"' || ch == '\'') {
            /* skip a string or character literal */
            for (i++; i < t && (unsigned char)e->src[i] != ch; i++)
                if (e->src[i] == '\\')
                    i++;
            i++;
            continue;
        }
        if (!(isalpha(ch) || ch == '_')) {
            i++;
            continue;
        }
        uint32_t b = i;
        while (i < t && is_ident_char((unsigned char)e->src[i]))
            i++;
        uint32_t w = i - b;
        uint32_t j = i;
        while (j < t && (e->src[j] == ' ' || e->src[j] == '\t'))
            j++;
        if (j >= t || e->src[j] != '(')
            continue;
        /* operands of # and ## are pasted, not called */
        uint32_t p = b;
        while (p > s && (e->src[p - 1] == ' ' || e->src[p - 1] == '\t'))
            p--;
        if (p > s && e->src[p - 1] == '#')
            continue;
        bool skip = false;
        for (const char *const *k = keywords; *k && !skip; k++)
            skip = strlen(*k) == w && !memcmp(*k, e->src + b, w);
        skip = skip || is_param(e, params, b, w);
        if (!skip)
            ref(e, QR_CODE_REF_MACRO_CALL, name, dup(e, e->src + b, w), line, c->cond);
        /* `SELECT(__VA_ARGS__, BLOCK_3, BLOCK_2, BLOCK_1)(__VA_ARGS__)`: the invocation's
         * result is called, one of the names among its arguments (jq's BLOCK(...) picks
         * BLOCK_n by its argument count): each such name is a callee the body may reach */
        uint32_t k = j, depth = 0;
        for (; k < t; k++) {
            if (e->src[k] == '(')
                depth++;
            else if (e->src[k] == ')' && --depth == 0)
                break;
        }
        uint32_t after = k + 1;
        while (after < t && (e->src[after] == ' ' || e->src[after] == '\t'))
            after++;
        if (k >= t || after >= t || e->src[after] != '(')
            continue;
        for (uint32_t a = j + 1; a < k;) {
            if (!(isalpha((unsigned char)e->src[a]) || e->src[a] == '_')) {
                a++;
                continue;
            }
            uint32_t ab = a;
            while (a < k && is_ident_char((unsigned char)e->src[a]))
                a++;
            uint32_t aw = a - ab;
            bool param = (aw == 11 && !memcmp(e->src + ab, "__VA_ARGS__", 11)) ||
                         is_param(e, params, ab, aw);
            if (!param)
                ref(e, QR_CODE_REF_MACRO_CALL, name, dup(e, e->src + ab, aw), line, c->cond);
        }
    }
}

/* ---- preprocessor conditions ---- */

/* The host's knowledge of macro `name` (what the compiler and the C library's headers
 * define before any project file is read, ppconf.c): true when known, with *defined and
 * *value set; a condition on these is judged where it is written, not left to "does some
 * file define it". __cplusplus is defined exactly when the file is read as C++. Names
 * unknown here are the project's, judged when a graph is assembled. */
static bool host_macro_of(const ex *e, const char *name, bool *defined, long long *value)
{
    if (name && !strcmp(name, "__cplusplus")) {
        *defined = e->cpp;
        *value = e->cpp ? 201703 : 0;
        return true;
    }
    return qr__pp_host_macro(name, defined, value);
}

/* The value of a condition from host facts alone: 1 (true, *v holds it), 0 when it cannot
 * be known here (a project macro, a function-like macro, an operator left out).
 * `||` and `&&` are judged when one side decides them. */
static int host_eval(ex *e, TSNode n, long long *v, int depth)
{
    if (ts_node_is_null(n) || depth > 64)
        return 0;
    if (is(n, "number_literal")) {
        const char *t = text(e, n);
        if (!t)
            return 0;
        char *end;
        long long x = strtoll(t, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        if (*end)
            return 0;
        *v = x;
        return 1;
    }
    if (is(n, "identifier")) {
        bool def;
        if (!host_macro_of(e, text(e, n), &def, v))
            return 0;
        return 1; /* an undefined name is 0 in #if */
    }
    if (is(n, "preproc_defined")) {
        bool def;
        long long ignored;
        if (!host_macro_of(e, text(e, ts_node_named_child(n, 0)), &def, &ignored))
            return 0;
        *v = def;
        return 1;
    }
    if (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
        return host_eval(e, ts_node_named_child(n, 0), v, depth + 1);
    const char *op = NULL;
    TSNode o = field(n, "operator");
    if (!ts_node_is_null(o))
        op = text(e, o);
    if (!op)
        return 0;
    if (is(n, "unary_expression")) {
        long long a;
        if (!host_eval(e, field(n, "argument"), &a, depth + 1))
            return 0;
        if (!strcmp(op, "!"))
            *v = !a;
        else if (!strcmp(op, "-"))
            *v = -a;
        else if (!strcmp(op, "~"))
            *v = ~a;
        else if (!strcmp(op, "+"))
            *v = a;
        else
            return 0;
        return 1;
    }
    if (!is(n, "binary_expression"))
        return 0;
    long long a = 0, b = 0;
    int ka = host_eval(e, field(n, "left"), &a, depth + 1);
    int kb = host_eval(e, field(n, "right"), &b, depth + 1);
    if (!strcmp(op, "||") || !strcmp(op, "&&")) {
        bool any = !strcmp(op, "||");
        if ((ka && (a != 0) == any) || (kb && (b != 0) == any)) {
            *v = any;
            return 1;
        }
        if (!ka || !kb)
            return 0;
        *v = any ? (a || b) : (a && b);
        return 1;
    }
    if (!ka || !kb)
        return 0;
    if (!strcmp(op, "=="))
        *v = a == b;
    else if (!strcmp(op, "!="))
        *v = a != b;
    else if (!strcmp(op, "<"))
        *v = a < b;
    else if (!strcmp(op, "<="))
        *v = a <= b;
    else if (!strcmp(op, ">"))
        *v = a > b;
    else if (!strcmp(op, ">="))
        *v = a >= b;
    else if (!strcmp(op, "+"))
        *v = (long long)((unsigned long long)a + (unsigned long long)b);
    else if (!strcmp(op, "-"))
        *v = (long long)((unsigned long long)a - (unsigned long long)b);
    else if (!strcmp(op, "&"))
        *v = a & b;
    else if (!strcmp(op, "|"))
        *v = a | b;
    else
        return 0;
    return 1;
}

/* prefix followed by the identifier n's text, from the arena. */
static const char *value_term(ex *e, const char *prefix, TSNode n)
{
    const char *t = text(e, n);
    return t ? join3(e, prefix, "", t) : NULL;
}

/* n without the parentheses around it. */
static TSNode unparen(TSNode n)
{
    while (!ts_node_is_null(n) && is(n, "parenthesized_expression") &&
           ts_node_named_child_count(n) == 1)
        n = ts_node_named_child(n, 0);
    return n;
}

/* The name X of `defined(X)` or `defined X` (in parentheses or not), else NULL. */
static const char *defined_name(ex *e, TSNode n)
{
    n = unparen(n);
    if (ts_node_is_null(n) || !is(n, "preproc_defined"))
        return NULL;
    TSNode nm = ts_node_named_child(n, 0);
    return ts_node_is_null(nm) ? NULL : text(e, nm);
}

/* The name X of `!defined(X)`, else NULL. */
static const char *not_defined_name(ex *e, TSNode n)
{
    n = unparen(n);
    if (ts_node_is_null(n) || !is(n, "unary_expression"))
        return NULL;
    TSNode uo = field(n, "operator");
    const char *u = ts_node_is_null(uo) ? NULL : text(e, uo);
    return u && !strcmp(u, "!") ? defined_name(e, field(n, "argument")) : NULL;
}

static const char *negated(ex *e, const char *name);

/* A conjunction `defined(A) && B && ...` inside a disjunction, as one of its parts:
 * "&A&=B" (it holds when A is defined and B's value is not 0); NULL when an operand is
 * anything else, or the host decides one false (the part never holds: "" then). */
/* The operands of a chain of one binary operator ("&&", "||"), parentheses off, left to
 * right, in ops (at most cap); -1 when there are more. */
static int operands(ex *e, TSNode n, const char *opname, TSNode *ops, int cap)
{
    TSNode stack[32];
    int top = 0, nops = 0;
    stack[top++] = unparen(n);
    while (top) {
        TSNode x = stack[--top];
        TSNode o = field(x, "operator");
        const char *op = ts_node_is_null(o) ? NULL : text(e, o);
        if (is(x, "binary_expression") && op && !strcmp(op, opname)) {
            if (top + 2 > 32)
                return -1;
            stack[top++] = unparen(field(x, "right"));
            stack[top++] = unparen(field(x, "left"));
        } else if (nops < cap) {
            ops[nops++] = x;
        } else {
            return -1;
        }
    }
    return nops;
}

static const char *conjunction(ex *e, TSNode n)
{
    TSNode ops[16];
    int nops = operands(e, n, "&&", ops, 16);
    if (nops < 0)
        return NULL;
    const char *term = "";
    for (int i = 0; i < nops; i++) {
        long long v;
        if (host_eval(e, ops[i], &v, 0)) {
            if (!v)
                return ""; /* never holds */
            continue;
        }
        const char *d = defined_name(e, ops[i]);
        const char *t = d ? join3(e, "&", "", d)
                        : is(ops[i], "identifier") ? value_term(e, "&=", ops[i]) : NULL;
        if (!t || !(term = join3(e, term, "", t)))
            return NULL;
    }
    return *term ? term : NULL; /* all true: the host decides, not judged here */
}

/* A disjunction `defined(A) || B || ...` as one condition term: "|A|=B" (it holds when A
 * is defined or B's value is not 0; the assembly judges it), and with alt set, the
 * negation of each operand as terms for the #else: "!A,!=B". An operand that is a
 * conjunction of such operands is a part "|&A&=B" (curl's `#if (defined(USE_NGTCP2) &&
 * defined(USE_NGHTTP3)) || defined(USE_QUICHE)`), and then the #else is not judged.
 * Operands the host decides false are left out; NULL when an operand is anything else
 * (not judged). */
static const char *disjunction(ex *e, TSNode n, const char **alt)
{
    TSNode ops[32];
    int nops = operands(e, n, "||", ops, 32);
    if (nops < 0)
        return NULL;
    const char *term = "", *neg = NULL;
    bool conj = false;
    for (int i = 0; i < nops; i++) {
        long long v;
        if (host_eval(e, ops[i], &v, 0)) {
            if (v)
                return NULL; /* always true: host_eval decides the whole */
            continue;
        }
        const char *d = defined_name(e, ops[i]);
        TSNode o = field(ops[i], "operator");
        const char *op = ts_node_is_null(o) ? NULL : text(e, o);
        if (!d && is(ops[i], "binary_expression") && op && !strcmp(op, "&&")) {
            /* a conjunction the host reduces to one operand is that operand, and a
             * disjunction there joins this one (Janet's janet.h: `#if ((defined(__x86_64__)
             * || ...) && (defined(JANET_POSIX) || defined(JANET_WINDOWS))) || ...`, where
             * x86-64 leaves "|JANET_POSIX|JANET_WINDOWS" and the #else defining JANET_32 is
             * judged by them) */
            TSNode cops[16];
            int ncops = operands(e, ops[i], "&&", cops, 16), left = -1, nleft = 0;
            bool never = false;
            for (int k = 0; k < ncops && !never; k++) {
                long long cv;
                if (host_eval(e, cops[k], &cv, 0))
                    never = !cv;
                else
                    left = k, nleft++;
            }
            if (never)
                continue; /* never holds: left out as a false operand */
            if (nleft == 1) {
                TSNode one = unparen(cops[left]);
                TSNode oo = field(one, "operator");
                const char *oop = ts_node_is_null(oo) ? NULL : text(e, oo);
                if (is(one, "binary_expression") && oop && !strcmp(oop, "||")) {
                    TSNode more[32];
                    int nmore = operands(e, one, "||", more, 32);
                    if (nmore < 0 || nops + nmore > 32)
                        return NULL;
                    for (int k = 0; k < nmore; k++)
                        ops[nops++] = more[k];
                    continue;
                }
                ops[i--] = one; /* read again as an operand of its own */
                continue;
            }
        }
        if (!d && is(ops[i], "binary_expression") && op && !strcmp(op, "&&")) {
            const char *cj = conjunction(e, ops[i]);
            if (!cj)
                return NULL;
            if (!*cj)
                continue; /* never holds: left out as a false operand */
            if (!(term = join3(e, term, "|", cj)))
                return NULL;
            conj = true;
            continue;
        }
        const char *t = d ? join3(e, "|", "", d)
                        : is(ops[i], "identifier") ? value_term(e, "|=", ops[i]) : NULL;
        const char *nt = d ? negated(e, d)
                         : is(ops[i], "identifier") ? value_term(e, "!=", ops[i]) : NULL;
        if (!t || !nt)
            return NULL;
        term = join3(e, term, "", t);
        neg = neg ? join3(e, neg, ",", nt) : nt;
        if (!term || !neg)
            return NULL;
    }
    if (alt)
        *alt = conj ? NULL : neg;
    return *term ? term : NULL;
}

/* The conditions a branch's body sits under, added to `cond`: each project macro the
 * condition requires to be defined (`X`, `defined(X)`, joined by `&&`), "0" when the host
 * facts make it false; parts that are neither are not judged (their code counts as
 * active). *known is 1 or 0 when the host facts decide the whole condition, else -1. */
static const char *cond_terms(ex *e, TSNode n, const char *cond, int *known, int depth)
{
    long long v;
    if (ts_node_is_null(n) || depth > 64) {
        *known = -1;
        return cond;
    }
    if (host_eval(e, n, &v, 0)) {
        *known = v != 0;
        return v ? cond : cond_add(e, cond, "0");
    }
    *known = -1;
    if (is(n, "preproc_defined")) {
        TSNode nm = ts_node_named_child(n, 0);
        const char *t = ts_node_is_null(nm) ? NULL : text(e, nm);
        return t ? cond_add(e, cond, t) : cond;
    }
    if (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
        return cond_terms(e, ts_node_named_child(n, 0), cond, known, depth + 1);
    /* `#if X` and `#if !X` on a project macro: "=X" (X's value is not 0) and "!=X", which
     * the assembly judges from X's #define when it is a number (jq's decNumber: `#define
     * DECCHECK 0`, then `#if DECCHECK`) */
    if (is(n, "identifier"))
        return cond_add(e, cond, value_term(e, "=", n));
    if (is(n, "unary_expression")) {
        TSNode uo = field(n, "operator"), arg = field(n, "argument");
        const char *u = ts_node_is_null(uo) ? NULL : text(e, uo);
        if (u && !strcmp(u, "!") && !ts_node_is_null(arg) && is(arg, "identifier"))
            return cond_add(e, cond, value_term(e, "!=", arg));
        /* `!defined(X)`: "!X", as `#ifndef X` */
        const char *nd = not_defined_name(e, n);
        const char *neg = nd ? negated(e, nd) : NULL;
        if (neg)
            return cond_add(e, cond, neg);
    }
    TSNode o = field(n, "operator");
    const char *op = ts_node_is_null(o) ? NULL : text(e, o);
    if (is(n, "binary_expression") && op && !strcmp(op, "||")) {
        const char *t = disjunction(e, n, NULL);
        return t ? cond_add(e, cond, t) : cond;
    }
    if (is(n, "binary_expression") && op && !strcmp(op, "&&")) {
        int k;
        cond = cond_terms(e, field(n, "left"), cond, &k, depth + 1);
        cond = cond_terms(e, field(n, "right"), cond, &k, depth + 1);
        *known = -1;
        return cond;
    }
    return cond;
}

static const char *else_term(ex *e, TSNode cn, int known);

/* The branches of #if/#ifdef/#elif: the body under `c` plus the branch's own conditions
 * (`body_cond`), the alternatives without them; when the host facts decide the branch
 * (known 1), every alternative is inactive. */
static void preproc_branch(ex *e, TSNode n, const char *body_cond, int known,
                           const char *alt_term, const ctx *c)
{
    if (c->depth > MAX_DEPTH) {
        e->errors++;
        return;
    }
    ctx body = *c;
    body.depth++;
    body.cond = body_cond;
    TSNode cond = field(n, "condition");
    TSNode name = field(n, "name");
    TSNode alt = field(n, "alternative");
    kids ks;
    TSNode ch;
    kids_init(&ks, n);
    while (!e->oom && kids_next(&ks, &ch)) {
        if (ts_node_eq(ch, cond) || ts_node_eq(ch, name) || ts_node_eq(ch, alt))
            continue;
        walk(e, ch, body);
    }
    kids_done(&ks);
    if (ts_node_is_null(alt))
        return;
    ctx other = *c;
    other.depth++;
    if (known == 1)
        other.cond = cond_add(e, c->cond, "0");
    else if (alt_term)
        other.cond = cond_add(e, c->cond, alt_term);
    if (is(alt, "preproc_elif")) {
        int k;
        TSNode acn = field(alt, "condition");
        const char *bc = cond_terms(e, acn, other.cond, &k, 0);
        preproc_branch(e, alt, bc, k, else_term(e, acn, k), &other);
    } else {
        walk_children(e, alt, &other);
    }
}

static bool header_guard(ex *e, TSNode n, const char *name);

/* The term the #else (or the next #elif) of a branch on condition cn adds: `#if X`'s
 * holds when X's value is 0 ("!=X"), `#if !X`'s when it is not ("=X"), `#if
 * defined(X)`'s when X is not defined ("!X"), `#if !defined(X)`'s when it is ("X"), a
 * disjunction's when no part holds ("!A,!=B"); NULL when not judged (known: whether the
 * host facts decide cn, see cond_terms). */
static const char *else_term(ex *e, TSNode cn, int known)
{
    cn = unparen(cn);
    if (known >= 0 || ts_node_is_null(cn))
        return NULL;
    if (is(cn, "identifier"))
        return value_term(e, "!=", cn);
    const char *dn = defined_name(e, cn);
    if (dn)
        return negated(e, dn);
    const char *ndn = not_defined_name(e, cn);
    if (ndn)
        return ndn;
    TSNode co = field(cn, "operator");
    const char *cop = ts_node_is_null(co) ? NULL : text(e, co);
    if (is(cn, "unary_expression")) {
        TSNode arg = field(cn, "argument");
        if (cop && !strcmp(cop, "!") && !ts_node_is_null(arg) && is(arg, "identifier"))
            return value_term(e, "=", arg);
        return NULL;
    }
    const char *alt = NULL;
    if (is(cn, "binary_expression") && cop && !strcmp(cop, "||"))
        disjunction(e, cn, &alt);
    if (is(cn, "binary_expression") && cop && !strcmp(cop, "&&")) {
        /* `#if defined(__x86_64__) && defined(X)`: the host holds the rest, so the #else
         * is X's */
        TSNode ops[16];
        int nops = operands(e, cn, "&&", ops, 16), left = -1;
        for (int k = 0; k < nops; k++) {
            long long v;
            if (!host_eval(e, ops[k], &v, 0)) {
                if (left >= 0)
                    return NULL;
                left = k;
            } else if (!v) {
                return NULL; /* never holds: known, not reached here */
            }
        }
        return left >= 0 ? else_term(e, ops[left], -1) : NULL;
    }
    return alt;
}

static void preproc_if(ex *e, TSNode n, const ctx *c)
{
    int known;
    TSNode cn = field(n, "condition");
    const char *bc = cond_terms(e, cn, c->cond, &known, 0);
    const char *ndn = known < 0 ? not_defined_name(e, cn) : NULL;
    if (ndn && header_guard(e, n, ndn)) { /* `#if !defined(X)` then `#define X` */
        preproc_branch(e, n, c->cond, -1, NULL, c);
        return;
    }
    preproc_branch(e, n, bc, known, else_term(e, cn, known), c);
}

/* Whether `#ifndef X` (or `#if !defined(X)`) opens a header guard: its first line inside
 * is `#define X`. */
static bool header_guard(ex *e, TSNode n, const char *name)
{
    TSNode nm = field(n, "name"), cn = field(n, "condition");
    for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (ts_node_eq(ch, nm) || ts_node_eq(ch, cn) || is(ch, "comment"))
            continue;
        if (!is(ch, "preproc_def"))
            return false;
        const char *d = text(e, field(ch, "name"));
        return d && !strcmp(d, name);
    }
    return false;
}

/* "!X": the branch holds only when no file and no build option defines X. */
static const char *negated(ex *e, const char *name)
{
    size_t n = strlen(name);
    char *d = qr_arena_alloc(e->a, n + 2);
    if (!d) {
        e->oom = true;
        return NULL;
    }
    d[0] = '!';
    memcpy(d + 1, name, n + 1);
    return d;
}

static void preproc_ifdef(ex *e, TSNode n, const ctx *c)
{
    TSNode first = ts_node_child(n, 0);
    bool ifndef = !ts_node_is_null(first) && ts_node_end_byte(first) - ts_node_start_byte(first) == 7;
    TSNode nm = field(n, "name");
    const char *name = ts_node_is_null(nm) ? NULL : text(e, nm);
    bool def;
    long long ignored;
    if (host_macro_of(e, name, &def, &ignored)) {
        bool taken = def != ifndef;
        preproc_branch(e, n, taken ? c->cond : cond_add(e, c->cond, "0"), taken, NULL, c);
        return;
    }
    if (!name) {
        preproc_branch(e, n, c->cond, -1, NULL, c);
        return;
    }
    const char *neg = negated(e, name);
    if (!neg)
        return;
    if (!ifndef)
        preproc_branch(e, n, cond_add(e, c->cond, name), -1, neg, c);
    else if (header_guard(e, n, name))
        preproc_branch(e, n, c->cond, -1, NULL, c);
    else
        preproc_branch(e, n, cond_add(e, c->cond, neg), -1, name, c);
}

/* ---- the walk ---- */

/* `monotime (*getMonotonicUs)(void) = NULL;` at file scope: with a typedef'd return type
 * and no storage class the parser cannot tell it from an expression, and reads a call of
 * `monotime` whose result is called. C has no expression statement outside a function, so
 * the shape `T(*N)(args)` (optionally `= value`) there is a function-pointer variable N of
 * type `T (*)(args)`. False when n is not of that shape (then it is walked as it is). */
static bool fn_pointer_variable(ex *e, TSNode n, const ctx *c)
{
    if (ts_node_named_child_count(n) != 1)
        return false;
    TSNode x = ts_node_named_child(n, 0), value = {0};
    if (is(x, "assignment_expression")) {
        TSNode op = ts_node_child(x, 1);
        if (ts_node_is_null(op) || !is(op, "="))
            return false;
        value = field(x, "right");
        x = field(x, "left");
    }
    if (ts_node_is_null(x) || !is(x, "call_expression"))
        return false;
    TSNode args = field(x, "arguments"), inner = field(x, "function");
    if (ts_node_is_null(args) || ts_node_is_null(inner) || !is(inner, "call_expression"))
        return false;
    TSNode type = field(inner, "function"), iargs = field(inner, "arguments");
    if (ts_node_is_null(type) || !is(type, "identifier") || ts_node_is_null(iargs) ||
        ts_node_named_child_count(iargs) != 1 || is_keyword(e, type))
        return false;
    TSNode star = ts_node_named_child(iargs, 0);
    if (!is(star, "pointer_expression"))
        return false;
    TSNode op = ts_node_child(star, 0), name = field(star, "argument");
    if (ts_node_is_null(op) || !is(op, "*") || ts_node_is_null(name) || !is(name, "identifier"))
        return false;
    qr_code_item *it = item(e, QR_CODE_VARIABLE, text(e, name), n, c);
    if (!it)
        return true;
    it->line = line_of(name);
    const char *tt = text(e, type), *at = text(e, args);
    if (tt && at) {
        size_t a = strlen(tt), b = strlen(at);
        char *d = qr_arena_alloc(e->a, a + b + 5);
        if (d) {
            memcpy(d, tt, a);
            memcpy(d + a, " (*)", 4);
            memcpy(d + a + 4, at, b + 1);
            it->type = d;
        } else {
            e->oom = true;
        }
    }
    ref(e, QR_CODE_REF_TYPE, c->fn, tt, line_of(type), c->cond);
    ctx cc = *c;
    cc.depth++;
    walk(e, args, cc);
    walk(e, value, cc);
    return true;
}

/* `YY_DECL` then `{ ... }` at file scope (every flex scanner: `#define YY_DECL int yylex
 * (YYSTYPE *lval, ...)`): a function whose head a macro writes. An item named after the
 * macro, flagged QR_CODE_EXPANDED with the macro as its parent, holding the body's calls;
 * the assembly names it as the macro's replacement does (graph.c). */
static void macro_head(ex *e, TSNode stmt, TSNode id, const ctx *c)
{
    TSNode body = ts_node_next_named_sibling(stmt);
    while (!ts_node_is_null(body) && is(body, "comment"))
        body = ts_node_next_named_sibling(body);
    if (ts_node_is_null(body) || !is(body, "compound_statement"))
        return;
    const char *name = text(e, id);
    qr_code_item *it = item(e, QR_CODE_FUNCTION, name, stmt, c);
    if (!it)
        return;
    it->end_line = end_line_of(body);
    it->end_byte = ts_node_end_byte(body);
    it->flags |= QR_CODE_EXPANDED;
    it->parent = name;
    it->signature = name;
    ctx cc = *c;
    cc.fn = name;
    cc.file_scope = false;
    cc.depth++;
    walk(e, body, cc);
    e->macro_body = ts_node_start_byte(body);
}

static void walk(ex *e, TSNode n, ctx c)
{
    if (e->oom || ts_node_is_null(n))
        return;
    if (c.depth > MAX_DEPTH) {
        e->errors++;
        return;
    }
    c.depth++;
    const char *t = ts_node_type(n);
    if (ts_node_is_missing(n) || !strcmp(t, "ERROR")) {
        e->errors++;
        uint32_t line = line_of(n);
        bool seen = false;
        for (uint32_t k = 0; k < e->nerror_lines && !seen; k++)
            seen = e->error_line[k] == line;
        if (!seen && e->nerror_lines < QR_CODE_ERROR_LINES)
            e->error_line[e->nerror_lines++] = line;
    }
    switch (t[0]) {
    case 'c':
        if (e->macro_body && c.file_scope && !c.fn && !strcmp(t, "compound_statement") &&
            ts_node_start_byte(n) == e->macro_body)
            return; /* walked as macro_head's function */
        if (!strcmp(t, "call_expression")) {
            TSNode f = field(n, "function");
            if (!ts_node_is_null(f) && is(f, "identifier")) {
                /* `else (x)`: the parser's recovery after a statement macro without a `;`
                 * (redis's `GET_NUMERIC_TYPE(value)` then `if ... else if (...)`) */
                if (!is_keyword(e, f))
                    ref(e, QR_CODE_REF_CALL, c.fn, text(e, f), line_of(f), c.cond);
            } else {
                /* a call through a function pointer kept in a struct: `c->cmd->proc(c)`,
                 * `(*s->fn)(x)`, `(s.fn)(x)`: a call of the member, as cscope shows it */
                TSNode g = f;
                while (!ts_node_is_null(g) && (is(g, "parenthesized_expression") ||
                                               is(g, "pointer_expression")))
                    g = is(g, "pointer_expression") ? field(g, "argument")
                                                    : ts_node_named_child(g, 0);
                TSNode fld = !ts_node_is_null(g) && is(g, "field_expression") ? field(g, "field")
                                                                                : g;
                if (c.fn && !ts_node_is_null(g) && is(g, "field_expression") &&
                    !ts_node_is_null(fld) && is(fld, "field_identifier")) {
                    uint32_t b = ts_node_start_byte(fld), z = ts_node_end_byte(fld);
                    char *nm = z <= e->len && z > b ? qr_arena_alloc(e->a, z - b + 2) : NULL;
                    if (nm) { /* ".proc" */
                        nm[0] = '.';
                        memcpy(nm + 1, e->src + b, z - b);
                        nm[z - b + 1] = 0;
                        ref(e, QR_CODE_REF_CALL, c.fn, nm, line_of(fld), c.cond);
                    }
                }
                walk(e, f, c);
            }
            walk(e, field(n, "arguments"), c);
            return;
        }
        if (!strcmp(t, "class_specifier")) {
            record(e, n, NULL, &c);
            return;
        }
        break;
    case 'd':
        if (!strcmp(t, "declaration")) {
            declaration(e, n, &c);
            return;
        }
        break;
    case 'e':
        if (!strcmp(t, "enum_specifier")) {
            record(e, n, NULL, &c);
            return;
        }
        if (!strcmp(t, "expression_statement") && c.file_scope && !c.fn &&
            fn_pointer_variable(e, n, &c))
            return;
        if (!strcmp(t, "expression_statement") && c.file_scope && !c.fn &&
            ts_node_named_child_count(n) == 1 && is(ts_node_named_child(n, 0), "identifier")) {
            /* a macro named alone at file scope (jq's `BINOPS`, a list of invocations):
             * an invocation without arguments, as file_scope_invocations records them */
            TSNode id = ts_node_named_child(n, 0);
            ref(e, QR_CODE_REF_CALL, NULL, text(e, id), line_of(id), c.cond);
            macro_head(e, n, id, &c);
        }
        break;
    case 'f':
        if (!strcmp(t, "function_definition")) {
            TSNode up = ts_node_parent(n);
            if (c.fn && !ts_node_is_null(up) && !is(up, "field_declaration_list") &&
                !is(up, "declaration_list"))
                false_function(e, n, &c);
            else
                function_def(e, n, &c);
            return;
        }
        if (!strcmp(t, "field_identifier"))
            return;
        break;
    case 'i':
        if (!strcmp(t, "identifier")) {
            ref(e, QR_CODE_REF_NAME, c.fn, text(e, n), line_of(n), c.cond);
            return;
        }
        break;
    case 'm':
        if (c.fn && !strcmp(t, "macro_type_specifier")) {
            /* a statement `VERBOSE(char buf[LEN]);` (curl), read by the parser's recovery
             * as a type alone in a function's body: a call of the macro */
            TSNode up = ts_node_parent(n), nm = field(n, "name");
            if (!ts_node_is_null(up) && is(up, "compound_statement") && !ts_node_is_null(nm))
                ref(e, QR_CODE_REF_CALL, c.fn, text(e, nm), line_of(nm), c.cond);
        }
        break;
    case 'p':
        if (!strcmp(t, "preproc_include")) {
            TSNode p = field(n, "path");
            if (!ts_node_is_null(p))
                ref(e, QR_CODE_REF_INCLUDE, NULL, text(e, p), line_of(n), c.cond);
            return;
        }
        if (!strcmp(t, "preproc_def") || !strcmp(t, "preproc_function_def")) {
            TSNode nm = field(n, "name");
            if (ts_node_is_null(nm))
                return;
            const char *name = text(e, nm);
            qr_code_item *it = item(e, QR_CODE_MACRO, name, n, &c);
            if (!it)
                return;
            TSNode params = field(n, "parameters");
            if (!ts_node_is_null(params)) {
                it->flags |= QR_CODE_FUNC_LIKE;
                it->signature = text(e, params);
                macro_calls(e, name, params, field(n, "value"), &c);
            }
            TSNode v = field(n, "value");
            if (!ts_node_is_null(v))
                it->type = text(e, v); /* the replacement text */
            return;
        }
        if (!strcmp(t, "preproc_if") || !strcmp(t, "preproc_elif")) {
            preproc_if(e, n, &c);
            return;
        }
        if (!strcmp(t, "preproc_ifdef")) {
            preproc_ifdef(e, n, &c);
            return;
        }
        if (!strcmp(t, "preproc_call") || !strcmp(t, "preproc_arg"))
            return;
        if (!strcmp(t, "parameter_declaration")) {
            walk(e, field(n, "type"), c);
            walk_declarator(e, field(n, "declarator"), &c);
            return;
        }
        break;
    case 's':
        if (!strcmp(t, "struct_specifier")) {
            record(e, n, NULL, &c);
            return;
        }
        if (!strcmp(t, "string_literal") || !strcmp(t, "system_lib_string"))
            return;
        break;
    case 't':
        if (!strcmp(t, "type_definition")) {
            type_definition(e, n, &c);
            return;
        }
        if (!strcmp(t, "type_identifier")) {
            ref(e, QR_CODE_REF_TYPE, c.fn, text(e, n), line_of(n), c.cond);
            return;
        }
        break;
    case 'u':
        if (!strcmp(t, "union_specifier")) {
            record(e, n, NULL, &c);
            return;
        }
        break;
    default:
        break;
    }
    walk_children(e, n, &c);
}

/* ---- macro invocations at file scope ---- */

/* Where the comment that starts at src[i] ends: a line comment at its newline (not taken),
 * a block comment past its closing star-slash; i itself when no comment starts there. */
static size_t past_comment(const char *src, size_t i, size_t len)
{
    if (src[i] != '/' || i + 1 >= len)
        return i;
    if (src[i + 1] == '/') {
        while (i < len && src[i] != '\n')
            i++;
        return i;
    }
    if (src[i + 1] != '*')
        return i;
    for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
        ;
    return i + 2;
}

/* Records each line that holds only `NAME(args)` (a `;` after it allowed) outside every
 * brace, comment, string and directive, as a call ref with no caller named "NAME(args)":
 * a macro that defines a function where it is invoked (jq's libm.h is 116 lines of
 * `LIBM_DD(acos)`), which the grammar reads as anything from an identifier to a
 * declaration. The assembly (graph.c) makes the functions once it knows the macros. */
static void file_scope_invocations(ex *e, const char *src, size_t len)
{
    size_t counted = 0, cursor = 0, nwalk = e->refs.n;
    uint32_t line = 1;
    int depth = 0;
    bool line_start = true;
    for (size_t i = 0; i < len && !e->oom;) {
        char ch = src[i];
        if (ch == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            i++;
            continue;
        }
        size_t after = past_comment(src, i, len);
        if (after != i) {
            i = after;
            continue;
        }
        if (ch == '#' && line_start) { /* a directive, with its continuations */
            while (i < len && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n')
                    i++;
                i++;
            }
            continue;
        }
        if (ch == '"' || ch == '\'') {
            for (i++; i < len && src[i] != ch && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
            i++;
            line_start = false;
            continue;
        }
        if (depth == 0 && line_start && (isalpha((unsigned char)ch) || ch == '_')) {
            size_t b = i, k = i;
            while (k < len && (isalnum((unsigned char)src[k]) || src[k] == '_'))
                k++;
            size_t nend = k;
            while (k < len && (src[k] == ' ' || src[k] == '\t'))
                k++;
            if (k < len && src[k] == '(') {
                int pd = 0;
                size_t a = k;
                for (; k < len && src[k] != '\n'; k++) {
                    if (src[k] == '(')
                        pd++;
                    else if (src[k] == ')' && --pd == 0)
                        break;
                }
                if (k < len && src[k] == ')' && pd == 0) {
                    size_t z = k + 1;
                    while (z < len && (src[z] == ' ' || src[z] == '\t' || src[z] == '\r' ||
                                       src[z] == ';'))
                        z++;
                    if ((z >= len || src[z] == '\n') && nend > b) {
                        for (; counted < b; counted++)
                            line += src[counted] == '\n';
                        /* the conditions it sits under: those of what the walk found on
                         * its line (it walked in order, so a cursor follows) */
                        const char *cond = NULL;
                        for (; cursor < nwalk; cursor++) {
                            const qr_code_ref *r = (const qr_code_ref *)e->refs.p + cursor;
                            if (r->line > line)
                                break;
                            if (r->line == line && !r->from) {
                                cond = r->cond;
                                break;
                            }
                        }
                        /* as written: the copy parsed may have blanked parts of it */
                        const char *keep = e->src;
                        if (e->orig)
                            e->src = e->orig;
                        const char *nm = text_range(e, (uint32_t)b, (uint32_t)(k + 1));
                        e->src = keep;
                        (void)a;
                        if (nm)
                            ref(e, QR_CODE_REF_CALL, NULL, nm, line, cond);
                        i = z;
                        continue;
                    }
                }
            }
            i = nend;
            line_start = false;
            continue;
        }
        if (ch == '{')
            depth++;
        else if (ch == '}' && depth > 0)
            depth--;
        line_start = false;
        i++;
    }
}

/* ---- copies the parser reads ---- */

/* The copy a pass writes into: *out, or when there is none yet a new one of src[0..len)
 * (NUL-terminated, for the callers that search it); NULL when memory ran out. */
static char *own_copy(char **out, const char *src, size_t len)
{
    if (!*out) {
        *out = malloc(len + 1);
        if (*out) {
            memcpy(*out, src, len);
            (*out)[len] = '\0';
        }
    }
    return *out;
}

/* ---- comments inside directives ---- */

/* A copy of src with the comments inside preprocessor directives made blanks, or NULL
 * when there are none (nothing to change) or memory ran out (the source is parsed as
 * is). The grammar ends a directive at a comment followed by a line continuation
 * (`#define F(x) do { /+ c +/ \`), so the macro is cut short and its next lines are
 * read as code. Offsets and lines are kept: each byte of a comment becomes a space, and a
 * newline inside a block comment stays, with a `\` before it, a continuation the
 * directive already had through the comment. String and character literals are
 * skipped, so a comment opener inside one is left alone. */
static char *blank_directive_comments(const char *src, size_t len)
{
    char *out = NULL;
    bool line_start = true, directive = false;
    for (size_t i = 0; i < len;) {
        char ch = src[i];
        if (ch == '\\' && i + 1 < len && (src[i + 1] == '\n' || src[i + 1] == '\r')) {
            i += src[i + 1] == '\r' && i + 2 < len && src[i + 2] == '\n' ? 3 : 2;
            continue; /* a line splice: the same logical line goes on */
        }
        if (ch == '\n') {
            line_start = true;
            directive = false;
            i++;
            continue;
        }
        if (ch == '"' || ch == '\'') {
            for (i++; i < len && src[i] != ch && src[i] != '\n'; i++)
                if (src[i] == '\\' && i + 1 < len && src[i + 1] != '\n')
                    i++;
            if (i < len && src[i] == ch)
                i++;
            line_start = false;
            continue;
        }
        if (ch == '/' && i + 1 < len && (src[i + 1] == '*' || src[i + 1] == '/')) {
            bool block = src[i + 1] == '*';
            size_t end = i + 2;
            if (block) {
                while (end < len && !(src[end] == '*' && end + 1 < len && src[end + 1] == '/'))
                    end++;
                end = end < len ? end + 2 : len;
            } else {
                while (end < len && src[end] != '\n')
                    end++;
                /* keep a final continuation: the directive goes on */
                while (end > i + 2 && (src[end - 1] == '\\' || src[end - 1] == '\r'))
                    end--;
            }
            if (directive) {
                if (!own_copy(&out, src, len))
                    return NULL;
                for (size_t k = i; k < end; k++) {
                    if (src[k] == '\n')
                        out[k - 1] = '\\'; /* k > i + 1: the opener comes first */
                    else
                        out[k] = ' ';
                }
            }
            i = end;
            continue;
        }
        if (ch == '#' && line_start)
            directive = true;
        if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\f' && ch != '\v')
            line_start = false;
        i++;
    }
    return out;
}

/* ---- the extern "C" wrapper ---- */

/* Whether src[b..e) reads as `words` once blanks are dropped ("#ifdef__cplusplus"). */
static bool line_is(const char *src, size_t b, size_t e, const char *words)
{
    size_t k = 0;
    for (size_t i = b; i < e; i++) {
        if (src[i] == ' ' || src[i] == '\t' || src[i] == '\r')
            continue;
        if (!words[k] || src[i] != words[k])
            return false;
        k++;
    }
    return !words[k];
}

/* Whether a line opens the C++-only branch: #ifdef __cplusplus, #if defined(__cplusplus)
 * or #if defined __cplusplus. */
static bool opens_cplusplus(const char *src, size_t b, size_t e)
{
    return line_is(src, b, e, "#ifdef__cplusplus") ||
           line_is(src, b, e, "#ifdefined(__cplusplus)") ||
           line_is(src, b, e, "#ifdefined__cplusplus");
}

/* A copy of src (or of `own`, a copy made before, reused) with the C++ linkage wrapper
 * made blanks: the lines `extern "C" {`, `}` and `extern "C"` that sit alone between
 * `#ifdef __cplusplus` and `#endif`. The brace opens in one preprocessor branch and closes
 * in another, so the grammar reads the whole header as the body of the first branch,
 * under its condition, and every declaration in it became inactive; a bare `extern "C"`
 * (jq's util.c, before `void *alloca(size_t);`) swallows what follows the #endif the
 * same way. Lines and offsets
 * are kept. Returns own (or NULL) when there is nothing to change or memory ran out. */
static char *blank_cplusplus_wrapper(const char *src, size_t len, char *own)
{
    char *out = own;
    size_t i = 0, b, e;
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        if (!opens_cplusplus(src, b, e))
            continue;
        size_t j = i, mb, me, body_b = 0, body_e = 0;
        int body = 0;
        bool ok = false;
        while (body <= 1 && qr__pp_next_line(src, len, &j, &mb, &me)) {
            if (line_is(src, mb, me, "#endif")) {
                ok = body == 1;
                break;
            }
            if (line_is(src, mb, me, "")) /* a blank line */
                continue;
            if (line_is(src, mb, me, "extern\"C\"{") || line_is(src, mb, me, "}") ||
                line_is(src, mb, me, "extern\"C\"")) {
                body_b = mb;
                body_e = me;
                body++;
                continue;
            }
            break;
        }
        if (!ok)
            continue;
        if (!own_copy(&out, src, len))
            return NULL;
        memset(out + body_b, ' ', body_e - body_b);
        i = j;
    }
    return out;
}

/* ---- empty #defines with trailing blanks ---- */

/* A copy of src (or `own`, reused) where a `#define NAME` or `#define NAME(params)` with
 * no replacement but blanks after it ends its line at the name: the blanks move to the
 * start of the next line. The grammar reads the line after such a directive as its
 * replacement (`#define B   ` then `#endif`: the #endif is lost, the group runs on to the
 * file's end, and a header whose guard loses its #endif is one error at the root). The
 * blanks come from the source itself or from blank_directive_comments (curl's
 * curl_setup.h: `#  define CURL_INLINE /+ empty +/` made it read the whole header in one
 * configuration). Lines, and every byte past the moved newline, stay where they were.
 * Returns own (or NULL) when nothing changes or memory ran out. */
static char *blank_define_tails(const char *src, size_t len, char *own)
{
    char *out = own;
    size_t i = 0, b, e;
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        size_t nb, k;
        if (!qr__pp_define_name(src, b, e, &nb, &k))
            continue;
        if (k < e && src[k] == '(') {
            while (k < e && src[k] != ')')
                k++;
            if (k >= e)
                continue;
            k++;
        }
        size_t t = k;
        bool blanks = false;
        while (t < e && (src[t] == ' ' || src[t] == '\t' || src[t] == '\r')) {
            blanks |= src[t] != '\r';
            t++;
        }
        if (t < e || !blanks || e >= len || src[e] != '\n')
            continue; /* a replacement, nothing after the name, or the file's last line */
        if (!own_copy(&out, src, len))
            return NULL;
        out[k] = '\n';
        memset(out + k + 1, ' ', e - k);
    }
    return out;
}

/* ---- annotation macros ---- */

/* One step of the blanking scanners over what is not code: a newline (a line starts), a
 * blank, a directive line (at a line's start, with its continuations), a comment, a string
 * or character literal. Returns the index past it, or i when src[i] is code; *line_start
 * says whether only blanks came since the last newline. */
static size_t past_noncode(const char *src, size_t i, size_t len, bool *line_start)
{
    char ch = src[i];
    if (ch == '\n') {
        *line_start = true;
        return i + 1;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r')
        return i + 1;
    if (ch == '#' && *line_start) {
        while (i < len && src[i] != '\n') {
            if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n')
                i++;
            i++;
        }
        return i;
    }
    *line_start = false;
    size_t after = past_comment(src, i, len);
    if (after != i)
        return after;
    if (ch == '"' || ch == '\'') {
        for (i++; i < len && src[i] != ch && src[i] != '\n'; i++)
            if (src[i] == '\\')
                i++;
        return i + 1;
    }
    return i;
}

/* One step of a file-scope scanner: past what is not code (past_noncode), else past one
 * character, counting braces into *depth (0: file scope). Returns the next index. */
static size_t scope_step(const char *src, size_t i, size_t len, bool *line_start, int *depth)
{
    size_t next = past_noncode(src, i, len, line_start);
    if (next != i)
        return next;
    if (src[i] == '{')
        ++*depth;
    else if (src[i] == '}' && *depth > 0)
        --*depth;
    return i + 1;
}

/* Whether the upper-case name src[b..e) says an attribute in one of its parts
 * ("ATTR_ALLOC_SIZE1", "G_GNUC_PRINTF", "CURL_PRINTF"): a macro with arguments on a line
 * of its own may also define a function (jq's `LIBM_DD(asin)`), and those are read. */
static bool attribute_name(const char *src, size_t b, size_t e)
{
    static const char *const PART[] = {"ATTR", "ATTRIBUTE", "PRINTF", "FORMAT", "NONNULL",
                                       "MALLOC", "ALLOC", "NORETURN", "UNUSED", "DEPRECATED",
                                       "WARN", "PURE", "ALIGNED", "PACKED", "ACCESS",
                                       "RETNONNULL", "SENTINEL", "GNUC", "NODISCARD", NULL};
    for (size_t k = b; k < e;) {
        size_t pe = k;
        while (pe < e && src[pe] != '_')
            pe++;
        /* the part without a trailing number: ATTR_ALLOC_SIZE1's SIZE1, ATTR_NONNULL_N */
        size_t pn = pe;
        while (pn > k && isdigit((unsigned char)src[pn - 1]))
            pn--;
        for (size_t x = 0; PART[x]; x++)
            if (strlen(PART[x]) == pn - k && !memcmp(src + k, PART[x], pn - k))
                return true;
        k = pe + 1;
    }
    return false;
}

/* Whether src[i..e) holds only upper-case macro names, each maybe with an argument list,
 * one at least with one and a name that says an attribute ("ATTR_RETNONNULL ATTR_MALLOC
 * ATTR_ALLOC_SIZE1(1)"). */
static bool attribute_line(const char *src, size_t i, size_t e)
{
    bool args = false, any = false;
    while (i < e) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (!(isupper((unsigned char)c) || c == '_'))
            return false;
        size_t wb = i;
        bool upper = false;
        while (i < e && (isupper((unsigned char)src[i]) || isdigit((unsigned char)src[i]) ||
                         src[i] == '_'))
            upper |= isupper((unsigned char)src[i++]) != 0;
        if (i < e && (islower((unsigned char)src[i])) )
            return false;
        if (!upper || i - wb < 3)
            return false;
        any = true;
        size_t we = i;
        while (i < e && (src[i] == ' ' || src[i] == '\t'))
            i++;
        if (i < e && src[i] == '(') {
            if (!attribute_name(src, wb, we))
                return false;
            int d = 0;
            for (; i < e; i++) {
                if (src[i] == ';' || src[i] == '{' || src[i] == '}' || src[i] == '"')
                    return false;
                if (src[i] == '(')
                    d++;
                else if (src[i] == ')' && --d == 0) {
                    i++;
                    break;
                }
            }
            if (d)
                return false;
            args = true;
        }
    }
    return any && args;
}

/* A copy of src (or `own`, reused) where a line at file scope made only of annotation
 * macros with arguments, defined in another file, is blanks when a declaration follows:
 * htop's XUtils.h writes `ATTR_RETNONNULL ATTR_MALLOC ATTR_ALLOC_SIZE1(1)` on a line of
 * its own before `void* xMalloc(size_t size);` (the macros are Macros.h's), which the
 * grammar read as an old-style definition named ATTR_ALLOC_SIZE1 whose parameter
 * declarations ran to the next body, losing every function between. A type is never
 * written with arguments, so `BOOL WINAPI` on its own line is left. Returns own (or NULL)
 * when nothing changes or memory ran out. */
static char *blank_attribute_lines(const char *src, size_t len, char *own)
{
    char *out = own;
    int depth = 0;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        char ch = src[i];
        if (line_start && depth == 0 && ch != '\n' && ch != '#' && ch != ' ' && ch != '\t') {
            size_t e = i;
            while (e < len && src[e] != '\n')
                e++;
            size_t nx = e;
            while (nx < len && (src[nx] == '\n' || src[nx] == ' ' || src[nx] == '\t' ||
                                src[nx] == '\r'))
                nx++;
            if (attribute_line(src, i, e) && nx < len &&
                (isalpha((unsigned char)src[nx]) || src[nx] == '_')) {
                if (!own_copy(&out, src, len))
                    return NULL;
                memset(out + i, ' ', e - i);
                i = e;
                continue;
            }
        }
        i = scope_step(src, i, len, &line_start, &depth);
    }
    return out;
}

/* A copy of src (or `own`, reused) where each argument of a file-scope line `NAME(args)`
 * that is only an operator (`OPMETHOD(int64_t, s64, add, +)`, Janet's inttypes.c: a macro
 * that defines a function where it is invoked, its operator pasted into the body) is
 * made underscores of its length, and so is one that is a type (`const Janet *`, capi.c's
 * `DEFINE_GETTER(tuple, TUPLE, const Janet *)`): no expression holds a lone `+` or a type,
 * and the grammar lost the rest of the file after the first such line (60 functions of
 * inttypes.c, 50 of capi.c). The invocation is recorded as written
 * (file_scope_invocations reads the original). */
static char *operator_arguments(const char *src, size_t len, char *own)
{
    char *out = own;
    int depth = 0;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        if (!(line_start && depth == 0 && (isalpha((unsigned char)src[i]) || src[i] == '_'))) {
            i = scope_step(src, i, len, &line_start, &depth);
            continue;
        }
        /* a macro's name: no lower-case letter (a function's head or prototype is left) */
        size_t k = i;
        bool lower = false;
        while (k < len && (isalnum((unsigned char)src[k]) || src[k] == '_'))
            lower |= islower((unsigned char)src[k++]) != 0;
        while (k < len && (src[k] == ' ' || src[k] == '\t'))
            k++;
        if (lower || k >= len || src[k] != '(') {
            i = scope_step(src, i, len, &line_start, &depth);
            continue;
        }
        /* the arguments, on this line, split at commas outside parentheses */
        size_t a = k + 1, e = a;
        int pd = 1;
        for (; e < len && src[e] != '\n' && pd > 0; e++)
            if (src[e] == '(')
                pd++;
            else if (src[e] == ')')
                pd--;
        /* the line ends there (a `;` allowed), and no body follows: an invocation */
        size_t eol = e;
        while (eol < len && (src[eol] == ' ' || src[eol] == '\t' || src[eol] == '\r' ||
                             src[eol] == ';'))
            eol++;
        size_t nx = eol;
        while (nx < len && isspace((unsigned char)src[nx]))
            nx++;
        if (pd != 0 || (eol < len && src[eol] != '\n') || (nx < len && src[nx] == '{')) {
            i = scope_step(src, i, len, &line_start, &depth);
            continue;
        }
        for (size_t x = a; x < e;) {
            size_t y = x;
            int d = 0;
            while (y < e - 1 && !(d == 0 && src[y] == ','))
                d += src[y] == '(' ? 1 : src[y] == ')' ? -1 : 0, y++;
            size_t b0 = x, b1 = y;
            while (b0 < b1 && isspace((unsigned char)src[b0]))
                b0++;
            while (b1 > b0 && isspace((unsigned char)src[b1 - 1]))
                b1--;
            bool op = b1 > b0;
            for (size_t z = b0; z < b1 && op; z++)
                op = strchr("+-*/%&|^~<>!=", src[z]) != NULL;
            /* a type (`const Janet *`, `unsigned int`): two words side by side, or a
             * trailing star, is no expression either */
            bool type = b1 > b0 && src[b1 - 1] == '*';
            for (size_t z = b0; z + 1 < b1 && !type; z++)
                if (isspace((unsigned char)src[z]) && (isalnum((unsigned char)src[z - 1]) || src[z - 1] == '_')) {
                    size_t w = z;
                    while (w < b1 && isspace((unsigned char)src[w]))
                        w++;
                    type = w < b1 && (isalpha((unsigned char)src[w]) || src[w] == '_');
                }
            for (size_t z = b0; z < b1 && type; z++)
                type = isalnum((unsigned char)src[z]) || src[z] == '_' || src[z] == '*' ||
                       src[z] == ' ' || src[z] == '\t';
            if (op || type) {
                if (!own_copy(&out, src, len))
                    return own;
                memset(out + b0, '_', b1 - b0);
            }
            x = y + 1;
        }
        i = e;
        line_start = false;
    }
    return out;
}

/* A copy of src (or `own`, reused) where a file-scope `NAME(fn, ...) {` (an upper-case
 * macro, its first argument a name, then a body) reads as the function it defines:
 * Janet writes its 318 built-ins as `JANET_CORE_FN(cfun_stream_close, "(ev/close
 * stream)", "doc...") { ... }`, the macro expanding to the function's head with the
 * first argument as its name (`Janet cfun_stream_close(int32_t argc, Janet *argv)`). C
 * allows nothing else there: a call cannot stand at file scope, and an old-style
 * definition has lower-case names for parameters, not literals. The invocation becomes
 * `int fn(   )` over the same lines (the rest blanks), so the function, its lines and the
 * calls of its body are read. Returns own (or NULL) when nothing changes or memory ran
 * out. */
static char *head_macro_definitions(const char *src, size_t len, char *own)
{
    char *out = own;
    int depth = 0;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        char ch = src[i];
        if (line_start && depth == 0 && (isupper((unsigned char)ch) || ch == '_')) {
            size_t b = i, k = i;
            bool lower = false;
            while (k < len && (isalnum((unsigned char)src[k]) || src[k] == '_'))
                lower |= islower((unsigned char)src[k++]) != 0;
            size_t me = k;
            while (k < len && (src[k] == ' ' || src[k] == '\t'))
                k++;
            size_t open = k;
            bool ok = !lower && me - b >= 4 && k < len && src[k] == '(';
            /* the first argument: a name */
            size_t nb = 0, ne = 0;
            if (ok) {
                k++;
                while (k < len && isspace((unsigned char)src[k]))
                    k++;
                nb = k;
                ok = k < len && (isalpha((unsigned char)src[k]) || src[k] == '_');
                while (ok && k < len && (isalnum((unsigned char)src[k]) || src[k] == '_'))
                    k++;
                ne = k;
                while (ok && k < len && (src[k] == ' ' || src[k] == '\t'))
                    k++;
                ok = ok && k < len && (src[k] == ',' || src[k] == ')');
            }
            /* the rest of the arguments, balanced (literals may hold parentheses), within
               40 lines; then only blanks and comments before the body's brace */
            size_t close = 0;
            if (ok) {
                int d = 1, lines = 0;
                if (src[k] == ')')
                    d = 0, close = k;
                else
                    k++;
                while (d > 0 && k < len && lines < 40) {
                    char c = src[k];
                    if (c == '"' || c == '\'') {
                        for (k++; k < len && src[k] != c && src[k] != '\n'; k++)
                            if (src[k] == '\\')
                                k++;
                        k++;
                        continue;
                    }
                    if (c == '\n')
                        lines++;
                    else if (c == ';' || c == '{' || c == '}')
                        break;
                    else if (c == '(')
                        d++;
                    else if (c == ')' && --d == 0)
                        close = k;
                    k++;
                }
                ok = close > 0;
                size_t z = close + 1;
                while (ok && z < len) {
                    size_t after = past_comment(src, z, len);
                    if (after != z) {
                        z = after;
                        continue;
                    }
                    if (!isspace((unsigned char)src[z]))
                        break;
                    z++;
                }
                ok = ok && z < len && src[z] == '{';
                /* the head is written on the first line: "int " + name + "(" fits there */
                for (size_t x = b; ok && x < nb; x++)
                    ok = src[x] != '\n';
            }
            if (ok) {
                if (!own_copy(&out, src, len))
                    return NULL;
                (void)open;
                char name[256];
                size_t nl = ne - nb;
                if (nl < sizeof name && 4 + nl + 1 <= (ne - b)) {
                    memcpy(name, src + nb, nl);
                    for (size_t x = b; x < close; x++)
                        if (out[x] != '\n')
                            out[x] = ' ';
                    memcpy(out + b, "int ", 4);
                    memcpy(out + b + 4, name, nl);
                    out[b + 4 + nl] = '(';
                    out[close] = ')';
                }
                i = close + 1;
                line_start = false;
                continue;
            }
        }
        i = scope_step(src, i, len, &line_start, &depth);
    }
    return out;
}

/* A name an annotation macro has (blank_annotations): its spelling, its length, and
 * whether it takes arguments. */
typedef struct annot_name {
    const char *p;
    size_t n;
    bool func;
} annot_name;

static int annot_cmp(const void *x, const void *y)
{
    const annot_name *a = x, *b = y;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return memcmp(a->p, b->p, a->n);
}

/* What a #define's replacement src[k..e) is, for blank_annotations: 0 nothing, 1 an
 * attribute alone (`__attribute__((x))`, `__declspec(x)`), 2 one word (*wb, *wl), 3
 * anything else. */
static int annot_replacement(const char *src, size_t k, size_t e, size_t *wb, size_t *wl)
{
    while (k < e && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r'))
        k++;
    if (k >= e)
        return 0;
    size_t kw = e - k >= 13 && !memcmp(src + k, "__attribute__", 13) ? 13
                : e - k >= 10 && !memcmp(src + k, "__declspec", 10) ? 10
                                                                      : 0;
    if (kw) { /* the attribute alone: `__attribute__((x)) presult` is a type too */
        size_t q = k + kw;
        int pd = 0;
        while (q < e && (src[q] == ' ' || src[q] == '\t'))
            q++;
        for (; q < e; q++) {
            if (src[q] == '(')
                pd++;
            else if (src[q] == ')' && --pd == 0) {
                q++;
                break;
            }
        }
        while (q < e && (src[q] == ' ' || src[q] == '\t' || src[q] == '\r'))
            q++;
        return pd == 0 && q >= e ? 1 : 3;
    }
    *wb = k;
    while (k < e && (isalnum((unsigned char)src[k]) || src[k] == '_'))
        k++;
    *wl = k - *wb;
    while (k < e && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r'))
        k++;
    return *wl && k >= e ? 2 : 3;
}

/* A copy of src (or `own`, reused) where the uses of the annotation macros this file
 * defines are blanks: object-like macros whose replacement is empty or an attribute
 * (`__attribute__`, `__declspec`, or another such macro), as redis's redismodule.h
 * writes `REDISMODULE_API void (*RedisModule_Alloc)(size_t bytes) REDISMODULE_ATTR;`;
 * and function-like ones every definition of which is empty or an attribute, one at least
 * an attribute, blanked with their arguments (curl's `#define ALLOC_SIZE(s)
 * __attribute__((__alloc_size__(s)))`, else empty, before `void *curl_dbg_malloc(...)`).
 * The grammar cannot read an unknown word before the type or after the declarator, and
 * 349 function-pointer variables were lost. As many names as the file defines: curl's
 * curl_setup.h has some 150 empty #defines before its annotation macros, and a cap of 32
 * left them unread, made the grammar give up on the file and read it in one
 * configuration, where macros defined under the build's conditions (USE_THREADS under
 * USE_RESOLV_THREADED) were lost. Directives are left as they are. Returns own (or NULL)
 * when nothing changes or memory ran out. */
static char *blank_annotations(const char *src, size_t len, char *own)
{
    annot_name *names = NULL; /* object-like ones found, then the function-like ones */
    size_t nn = 0, cap = 0;
    annot_name *fn = NULL; /* function-like definitions: func set when one is an attribute */
    bool *fn_bad = NULL;   /* and when one is neither empty nor an attribute */
    size_t nfn = 0, capfn = 0;
    bool oom = false;
    size_t i = 0, b, e;
    /* the definitions: `#define NAME` then nothing, __attribute__, __declspec, or a name
     * already found */
    while (!oom && qr__pp_next_line(src, len, &i, &b, &e)) {
        size_t nb, k;
        if (!qr__pp_define_name(src, b, e, &nb, &k))
            continue;
        size_t nl = k - nb;
        if (src[nb] == '_') /* __STDC__-like names are the compiler's */
            continue;
        size_t wb = 0, wl = 0;
        if (k < e && src[k] == '(') { /* function-like: past its parameters */
            while (k < e && src[k] != ')')
                k++;
            if (k >= e)
                continue;
            int r = annot_replacement(src, k + 1, e, &wb, &wl);
            size_t x = 0;
            while (x < nfn && !(fn[x].n == nl && !memcmp(fn[x].p, src + nb, nl)))
                x++;
            if (x == nfn) {
                if (nfn == capfn) {
                    size_t nc = capfn ? 2 * capfn : 16;
                    annot_name *np = realloc(fn, nc * sizeof *np);
                    bool *nbad = np ? realloc(fn_bad, nc * sizeof *nbad) : NULL;
                    if (np)
                        fn = np;
                    if (!nbad) {
                        oom = true;
                        break;
                    }
                    fn_bad = nbad;
                    capfn = nc;
                }
                fn[nfn] = (annot_name){src + nb, nl, false};
                fn_bad[nfn++] = false;
            }
            if (r == 1)
                fn[x].func = true;
            else if (r != 0)
                fn_bad[x] = true;
            continue;
        }
        int r = annot_replacement(src, k, e, &wb, &wl);
        bool annot = r == 0 || r == 1;
        for (size_t x = 0; x < nn && !annot && r == 2; x++)
            annot = names[x].n == wl && !memcmp(names[x].p, src + wb, wl);
        if (!annot)
            continue;
        if (nn == cap) {
            size_t nc = cap ? 2 * cap : 32;
            annot_name *np = realloc(names, nc * sizeof *np);
            if (!np) {
                oom = true;
                break;
            }
            names = np;
            cap = nc;
        }
        names[nn++] = (annot_name){src + nb, nl, false};
    }
    for (size_t x = 0; x < nfn && !oom; x++) {
        if (!fn[x].func || fn_bad[x])
            continue;
        if (nn == cap) {
            size_t nc = cap ? 2 * cap : 32;
            annot_name *np = realloc(names, nc * sizeof *np);
            if (!np) {
                oom = true;
                break;
            }
            names = np;
            cap = nc;
        }
        names[nn++] = (annot_name){fn[x].p, fn[x].n, true};
    }
    free(fn);
    free(fn_bad);
    if (oom || !nn) {
        free(names);
        return own;
    }
    qsort(names, nn, sizeof *names, annot_cmp);
    char *out = own;
    bool line_start = true;
    for (i = 0; i < len;) {
        char ch = src[i];
        size_t next = past_noncode(src, i, len, &line_start);
        if (next != i) {
            i = next;
            continue;
        }
        if (isalpha((unsigned char)ch) || ch == '_') {
            size_t wb = i;
            while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_'))
                i++;
            annot_name key = {src + wb, i - wb, false};
            const annot_name *hit = bsearch(&key, names, nn, sizeof *names, annot_cmp);
            if (!hit)
                continue;
            size_t end = i;
            if (hit->func) { /* the name and its arguments, when it has them */
                size_t q = i;
                while (q < len && (src[q] == ' ' || src[q] == '\t'))
                    q++;
                if (q >= len || src[q] != '(')
                    continue;
                int pd = 0;
                for (; q < len; q++) {
                    if (src[q] == '(')
                        pd++;
                    else if (src[q] == ')' && --pd == 0)
                        break;
                    else if (src[q] == ';' || src[q] == '{' || src[q] == '}' || src[q] == '#')
                        break;
                }
                if (q >= len || src[q] != ')')
                    continue;
                end = q + 1;
            }
            if (!out) {
                out = malloc(len ? len : 1);
                if (!out) {
                    free(names);
                    return NULL;
                }
                memcpy(out, src, len);
            }
            for (size_t x = wb; x < end; x++)
                if (out[x] != '\n')
                    out[x] = ' ';
            i = end;
            continue;
        }
        i++;
    }
    free(names);
    return out;
}

/* ---- preprocessor branches with unbalanced braces ---- */

/* The braces src[b..e) opens less those it closes, comments, strings and character
 * literals skipped. */
static int brace_balance(const char *src, size_t b, size_t e)
{
    int n = 0;
    for (size_t i = b; i < e; i++) {
        char ch = src[i];
        if (ch == '/' && i + 1 < e && src[i + 1] == '/') {
            while (i < e && src[i] != '\n')
                i++;
        } else if (ch == '/' && i + 1 < e && src[i + 1] == '*') {
            for (i += 2; i + 1 < e && !(src[i] == '*' && src[i + 1] == '/'); i++)
                ;
            i++;
        } else if (ch == '"' || ch == '\'') {
            for (i++; i < e && src[i] != ch && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
        } else if (ch == '{') {
            n++;
        } else if (ch == '}') {
            n--;
        }
    }
    return n;
}

#define GROUP_DEPTH 64
#define GROUP_BRANCHES 32

/* The first and last significant characters of src[b..e): blanks, comments and directive
 * lines skipped, a string or character literal one '"' or '\''. 0 for none. */
static void sig_ends(const char *src, size_t b, size_t e, char *first, char *last,
                     size_t *last_at, size_t *first_at)
{
    *first = *last = 0;
    bool line_start = true;
    for (size_t i = b; i < e; i++) {
        char ch = src[i];
        if (ch == '\n') {
            line_start = true;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v')
            continue;
        if (ch == '#' && line_start) {
            while (i < e && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < e && src[i + 1] == '\n')
                    i++;
                i++;
            }
            i--; /* the newline: the next line starts */
            continue;
        }
        line_start = false;
        if (ch == '/' && i + 1 < e && src[i + 1] == '/') {
            while (i + 1 < e && src[i + 1] != '\n')
                i++;
            continue;
        }
        if (ch == '/' && i + 1 < e && src[i + 1] == '*') {
            for (i += 2; i + 1 < e && !(src[i] == '*' && src[i + 1] == '/'); i++)
                ;
            i++;
            continue;
        }
        if (ch == '"' || ch == '\'') {
            for (i++; i < e && src[i] != ch && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
        }
        if (!*first) {
            *first = ch;
            if (first_at)
                *first_at = i;
        }
        *last = ch;
        if (last_at)
            *last_at = i;
    }
}

/* Whether a branch ends where an expression cannot (`i =`, `a +`) or begins where a
 * statement cannot (`|| b`, `= 2`, `, 1e23`): the group sits inside an expression. A
 * comma at the end is not: enumerator lists take preprocessor groups. */
static bool mid_expression(char first, char last)
{
    return (last && strchr("=+-*/%&|^<>!?([", last)) || (first && strchr("|&=?<>/%^,", first));
}

/* Whether the branch whose first significant character is src[at] (sig_ends' first_at)
 * begins with the word `else`: it goes on with the statement before the #if (curl's `if
 * (a) x; / #ifdef USE_IPV6 / else if (b) y; / #endif`), which the grammar cannot read
 * across the directive. */
static bool begins_else(const char *src, size_t at, size_t e)
{
    return e - at >= 4 && !memcmp(src + at, "else", 4) &&
           (e - at == 4 || !is_ident_char((unsigned char)src[at + 4]));
}

/* Whether a branch whose last significant character is src[at] (the branch starting at
 * b) ends a statement's head, not a statement: `else`, `do`, a label, or a line `if (...)`,
 * `while (...)`, `for (...)`, `switch (...)` (jq's jv_dtoa.c: `#ifdef Honor_FLT_ROUNDS /
 * if (bc->rounding == 1) / #endif / { ... }`). */
static bool open_statement(const char *src, size_t b, size_t at)
{
    size_t w = at + 1;
    while (w > b && is_ident_char((unsigned char)src[w - 1]))
        w--;
    size_t n = at + 1 - w;
    if ((n == 4 && !memcmp(src + w, "else", 4)) || (n == 2 && !memcmp(src + w, "do", 2)))
        return true;
    if (src[at] == ':' && (at == b || src[at - 1] != ':'))
        return true; /* a label: `have_i:` needs its statement */
    if (src[at] != ')')
        return false;
    size_t ls = at; /* the line's first word */
    while (ls > b && src[ls - 1] != '\n')
        ls--;
    while (ls < at && (src[ls] == ' ' || src[ls] == '\t'))
        ls++;
    if (ls < at && src[ls] == '}')
        for (ls++; ls < at && (src[ls] == ' ' || src[ls] == '\t'); ls++)
            ;
    static const char *const heads[] = {"if", "while", "for", "switch", "else", NULL};
    for (const char *const *h = heads; *h; h++) {
        size_t k = strlen(*h);
        if (at - ls > k && !memcmp(src + ls, *h, k) && !is_ident_char((unsigned char)src[ls + k]))
            return true;
    }
    return false;
}

/* A copy of src (or `own`, reused) where each #if group whose branches do not each close
 * the braces they open keeps only the code of the branch the file's own configuration
 * takes (ppconf.c: its #defines so far and the host's facts; other names undefined, so
 * mostly the #else, or nothing after an #if alone); the other branches become blanks,
 * their directive lines and line breaks kept. `#if DECSUBSET / if (x) { / #endif ... #if
 * DECSUBSET / } / #endif` (jq's decNumber) and `#ifdef WIN32 / int umain(...) { / #else
 * / int main(...) { / #endif` (jq's main.c) are not C the grammar can read: it gave up on
 * the rest of the function (and of the file), losing definitions and calls. Groups on one
 * condition are read alike, so their braces stay paired: taking the last branch of each
 * instead kept jv_dtoa.c's `#ifdef Avoid_Underflow / ... / #else / if (x) {` and dropped
 * the `}` of the `#ifndef Avoid_Underflow` after it. A group inside an expression
 * (`#ifndef Sudden_Underflow / i = / #endif / b->wds = 1;`, jq's jv_dtoa.c, where the
 * grammar lost the function and the file's 60 functions after it) keeps its taken branch,
 * else its last one, and loses its directive lines too: the grammar reads no directive
 * between an expression's tokens. Returns own (or NULL) when nothing changes or memory
 * ran out. */
static char *blank_unbalanced_branches(const char *src, size_t len, char *own)
{
    struct group {
        size_t start[GROUP_BRANCHES], end[GROUP_BRANCHES];
        size_t if_b;  /* where the #if line begins */
        char before;  /* the last significant character before the #if line */
        bool word_before; /* ... ends a word other than `else` or `do` */
        int n;
        int taken;   /* the branch the file's own configuration takes, -1 none */
        bool unknown; /* the #if names a macro the file does not define or #undef */
        bool broken; /* too many branches: left alone */
    };
    struct group *st = malloc(GROUP_DEPTH * sizeof *st);
    qr_ppconf *conf = qr__ppconf_new(src);
    if (!st || !conf) {
        free(st);
        qr__ppconf_free(conf);
        return own;
    }
    char *out = own;
    int depth = 0;
    size_t i = 0, b, e;
    size_t seen = 0; /* src[..seen) scanned for `last` */
    char last = 0;
    size_t last_at = 0;
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        /* a directive goes on past a backslash-newline */
        while (e > b && src[e - 1] == '\\' && qr__pp_next_line(src, len, &i, &e, &e))
            ;
        bool tk, unknown;
        int d = qr__ppconf_line(conf, b, e, &tk, &unknown);
        if (d == 1) {
            if (depth < GROUP_DEPTH) {
                char f, l;
                sig_ends(src, seen, b, &f, &l, &last_at, NULL);
                if (l)
                    last = l;
                seen = b;
                st[depth].n = 1;
                st[depth].taken = tk ? 0 : -1;
                st[depth].unknown = unknown;
                st[depth].broken = false;
                st[depth].start[0] = i;
                st[depth].if_b = b;
                st[depth].before = last;
                st[depth].word_before = false;
                if (is_ident_char((unsigned char)last)) { /* `static CONST double` then #if */
                    size_t w = last_at + 1, we = w;
                    while (w > 0 && is_ident_char((unsigned char)src[w - 1]))
                        w--;
                    st[depth].word_before = !((we - w == 4 && !memcmp(src + w, "else", 4)) ||
                                              (we - w == 2 && !memcmp(src + w, "do", 2)));
                }
                if (depth > 0 && depth <= GROUP_DEPTH) {
                    /* first in its enclosing branch: what precedes is what precedes that
                     * group (`double / #ifdef A / x[] = .. / #else / #ifdef B / x[]`) */
                    struct group *up = &st[depth - 1];
                    sig_ends(src, up->start[up->n - 1], b, &f, &l, NULL, NULL);
                    if (!f) {
                        st[depth].before = up->before;
                        st[depth].word_before = up->word_before;
                    }
                }
            }
            depth++;
        } else if (d == 2 && depth > 0 && depth <= GROUP_DEPTH) {
            struct group *g = &st[depth - 1];
            if (g->n >= GROUP_BRANCHES) {
                g->broken = true;
            } else if (!g->broken) {
                g->end[g->n - 1] = b;
                g->start[g->n++] = i;
                if (tk)
                    g->taken = g->n - 1;
            }
        } else if (d == 3 && depth > 0) {
            depth--;
            if (depth >= GROUP_DEPTH || st[depth].broken)
                continue;
            struct group *g = &st[depth];
            g->end[g->n - 1] = b;
            const char *cur = out ? out : src;
            bool unbalanced = false, inside = false;
            for (int k = 0; k < g->n && !unbalanced; k++)
                unbalanced = brace_balance(cur, g->start[k], g->end[k]) != 0;
            if (!unbalanced) {
                char f, l, after, dummy;
                sig_ends(src, i, len < i + 4096 ? len : i + 4096, &after, &dummy, NULL, NULL);
                /* after a string: a concatenation goes on (jq's builtin.c `"def ...;"
                 * / #ifndef HAVE_FREXP / "def frexp: ..." / #endif / ;`) */
                inside = (g->before && strchr("=+-*/%&|^<>!?([\"", g->before)) ||
                         (after && strchr("|&=?<>/%^)],", after)) || g->word_before;
                /* a declaration's head split over the branches, each ending in a word or
                 * a '*' and a word after the #endif (Janet's os.c: `#ifdef JANET_EV /
                 * static JANET_NO_RETURN void / #else / static Janet / #endif /
                 * os_proc_wait_impl(JanetProc *proc) {`): the grammar read the rest of
                 * the enclosing group as broken and its 40 functions as inactive */
                bool head = is_ident_char((unsigned char)after), any_word = false;
                for (int k = 0; k < g->n && !inside; k++) {
                    size_t at = 0, first_at = 0;
                    sig_ends(src, g->start[k], g->end[k], &f, &l, &at, &first_at);
                    inside = mid_expression(f, l) || (l && open_statement(src, g->start[k], at)) ||
                             (f == 'e' && begins_else(src, first_at, g->end[k]));
                    /* an attribute alone (`#ifdef __MVS__ / __attribute__((destructor)) /
                     * #endif / void f(void) {`, libuv's threadpool.c) is a head's part too */
                    bool attr = l == ')' && first_at < g->end[k] &&
                                (g->end[k] - first_at >= 13 &&
                                 (!memcmp(src + first_at, "__attribute__", 13) ||
                                  !memcmp(src + first_at, "__declspec(", 11)));
                    if (l && !(is_ident_char((unsigned char)l) || l == '*' || attr))
                        head = false;
                    any_word |= l != 0;
                }
                inside |= head && any_word;
                if (!inside)
                    continue;
            }
            if (!own_copy(&out, src, len))
                break;
            /* the branch the file's own configuration takes stays (paired groups on one
             * condition, `#ifdef X` / `#else` / `if (a) {` then `#ifndef X` / `}`, keep
             * their braces paired); when it takes none, nothing does, but in an expression
             * the last branch does, and so does an #if alone on a macro the file neither
             * defines nor #undefs (jq's jv_print.c `#ifdef USE_DECNUM` / `... else {` /
             * `#endif` then `#ifdef USE_DECNUM` / `}` / `#endif`: USE_DECNUM comes from
             * the build, which this reading cannot see, and the code is kept) */
            int keep = g->taken >= 0                   ? g->taken
                       : inside || (g->n == 1 && g->unknown) ? g->n - 1
                                                              : -1;
            for (int k = 0; k < g->n; k++) {
                if (k == keep)
                    continue;
                for (size_t x = g->start[k]; x < g->end[k]; x++)
                    if (out[x] != '\n')
                        out[x] = ' ';
            }
            /* a kept branch that leaves a brace open (`#if FASTMUL / if (x) {...} else { /
             * #endif`, jq's decMultiplyOp) is read as plain code, as in an expression */
            bool plain = inside || (keep >= 0 && brace_balance(out, g->start[keep],
                                                                g->end[keep]) != 0);
            if (plain) { /* the directive lines: #if, each #elif/#else, #endif */
                for (int k = 0; k <= g->n; k++) {
                    size_t db = k == 0 ? g->if_b : g->end[k - 1];
                    size_t de = k == 0 ? g->start[0] : k < g->n ? g->start[k] : i;
                    for (size_t x = db; x < de && x < len; x++)
                        if (out[x] != '\n')
                            out[x] = ' ';
                }
            }
        }
    }
    free(st);
    qr__ppconf_free(conf);
    return out;
}

/* ---- unknown macros among declaration specifiers ---- */

typedef struct tok {
    uint32_t b, e;
    char kind; /* 'i' a word, 'D' a directive line, '0' a number or literal, else the char */
} tok;

#define TOKS_MAX (1u << 20)

/* src as tokens: words, numbers and literals, single punctuation characters, and one 'D'
 * for each directive line; comments skipped. NULL (n 0) when memory ran out. */
static tok *tokenize(const char *src, size_t len, size_t *n)
{
    size_t cap = 1024, k = 0;
    tok *t = malloc(cap * sizeof *t);
    *n = 0;
    if (!t)
        return NULL;
    bool line_start = true;
    for (size_t i = 0; i < len;) {
        char ch = src[i];
        if (ch == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (isspace((unsigned char)ch)) {
            i++;
            continue;
        }
        size_t after = past_comment(src, i, len);
        if (after != i) {
            i = after;
            continue;
        }
        if (k == cap) {
            tok *nt = cap < TOKS_MAX ? realloc(t, 2 * cap * sizeof *t) : NULL;
            if (!nt) {
                free(t);
                return NULL;
            }
            t = nt;
            cap *= 2;
        }
        size_t b = i;
        char kind;
        if (ch == '#' && line_start) {
            while (i < len && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n')
                    i++;
                i++;
            }
            kind = 'D';
        } else if (ch == '"' || ch == '\'') {
            for (i++; i < len && src[i] != ch && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
            i++;
            kind = '0';
        } else if (is_ident_char((unsigned char)ch)) {
            kind = isdigit((unsigned char)ch) ? '0' : 'i';
            while (i < len && (is_ident_char((unsigned char)src[i]) ||
                               (kind == '0' && src[i] == '.')))
                i++;
        } else {
            kind = ch;
            i++;
        }
        line_start = false;
        t[k].b = (uint32_t)b;
        t[k].e = (uint32_t)(i < len ? i : len);
        t[k].kind = kind;
        k++;
    }
    *n = k;
    return t;
}

static bool word_in(const char *src, const tok *t, const char *const *words)
{
    size_t n = t->e - t->b;
    for (const char *const *w = words; *w; w++)
        if (strlen(*w) == n && !memcmp(src + t->b, *w, n))
            return true;
    return false;
}

static const char *const type_keywords[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "bool", "_Complex", "struct", "union", "enum", NULL};
static const char *const other_keywords[] = {
    "auto", "const", "extern", "inline", "register", "restrict", "static", "typedef",
    "volatile", "_Atomic", "_Noreturn", "_Thread_local", "_Alignas", "asm", NULL};
static const char *const statement_keywords[] = {
    "return", "goto", "case", "default", "if", "else", "while", "for", "do", "switch",
    "break", "continue", "sizeof", NULL};

static bool all_caps(const char *src, const tok *t)
{
    for (uint32_t i = t->b; i < t->e; i++)
        if (islower((unsigned char)src[i]))
            return false;
    return true;
}

/* Whether a star stands among the tokens t[a..k). */
static bool star_between(const tok *t, size_t a, size_t k)
{
    for (size_t j = a; j < k; j++)
        if (t[j].kind == '*')
            return true;
    return false;
}

/* Marks in `blank` the words of the run of words and stars around token k that can only
 * be macros: C allows one type name among declaration specifiers, so in `ZEXTERN int
 * ZEXPORT deflate(`, `local once_t made =`, `static CONST double tens[]` or a cast
 * `(struct inflate_state FAR *)` the words beside a type keyword, or beside another
 * word taken as the type, are macros the file cannot see (zlib's zconf.h defines
 * ZEXTERN, ZEXPORT, FAR; zutil.h `local`). The type kept among words: not the run's first
 * word (`ZEXTERN gzFile ZEXPORT`), the first not in capitals (`z_crc_t FAR`), else the
 * first (`FILE FAR *`). A word after a star is never the type: nginx's `u_char *
 * ngx_cdecl ngx_sprintf(` keeps `u_char` (it had kept the macro, blanked the type and lost
 * the function, whose 400 callers linked to nothing). A run holding a statement keyword, or not between the tokens a
 * declaration or a cast stands between, is left alone. */
static void specifier_run(const char *src, const tok *t, size_t n, size_t k, bool *blank)
{
    if (k >= n || (t[k].kind != 'i' && t[k].kind != '*'))
        return;
    size_t a = k, z = k;
    while (a > 0 && (t[a - 1].kind == 'i' || t[a - 1].kind == '*'))
        a--;
    while (z + 1 < n && (t[z + 1].kind == 'i' || t[z + 1].kind == '*'))
        z++;
    char left = a > 0 ? t[a - 1].kind : ';', right = z + 1 < n ? t[z + 1].kind : ';';
    if (!strchr(";{}(,):D", left) || !strchr("([=;,):", right))
        return;
    bool cast = left == '(' && right == ')';
    bool has_name = !cast && t[z].kind == 'i' && !word_in(src, &t[z], type_keywords) &&
                    !word_in(src, &t[z], other_keywords);
    size_t last = has_name ? z : z + 1; /* the specifiers: t[a..last) */
    size_t cand[16];
    int nc = 0;
    bool type_kw = false;
    for (size_t j = a; j < last; j++) {
        if (t[j].kind != 'i')
            continue;
        if (word_in(src, &t[j], statement_keywords))
            return;
        if (word_in(src, &t[j], type_keywords)) {
            type_kw = true;
            size_t n0 = t[j].e - t[j].b;
            if ((n0 == 6 && (!memcmp(src + t[j].b, "struct", 6))) ||
                (n0 == 5 && !memcmp(src + t[j].b, "union", 5)) ||
                (n0 == 4 && !memcmp(src + t[j].b, "enum", 4)))
                j++; /* the tag */
            continue;
        }
        if (word_in(src, &t[j], other_keywords) || src[t[j].b] == '_')
            continue; /* __attribute__, __inline, _Noreturn: the compiler's */
        if (nc < 16)
            cand[nc++] = j;
    }
    if (cast && !type_kw && t[z].kind != '*')
        return; /* `(a * b)`: an expression */
    if (!nc || (!type_kw && nc < 2))
        return;
    int keep = -1;
    if (!type_kw) {
        /* the type stands before the first star: a word after one is a macro */
        int lim = 0;
        while (lim < nc && !star_between(t, a, cand[lim]))
            lim++;
        int from = cand[0] == a ? 1 : 0;
        for (int x = from; x < lim && keep < 0; x++)
            if (!all_caps(src, &t[cand[x]]))
                keep = x;
        if (keep < 0)
            keep = from < lim ? from : 0;
    }
    for (int x = 0; x < nc; x++)
        if (x != keep)
            blank[cand[x]] = true;
}

/* The error and missing nodes of a syntax tree, their start bytes in pos (at most max). */
static size_t error_spots(TSNode root, uint32_t *pos, size_t max)
{
    size_t n = 0;
    TSTreeCursor c = ts_tree_cursor_new(root);
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&c);
        bool err = ts_node_is_missing(x) || !strcmp(ts_node_type(x), "ERROR");
        if (err && n < max)
            pos[n++] = ts_node_start_byte(x);
        if (err) {
            /* the words inside an ERROR node are the run too */
            TSNode ch = ts_node_named_child(x, 0);
            for (uint32_t i = 0; !ts_node_is_null(ch) && i < 8 && n < max; i++) {
                pos[n++] = ts_node_start_byte(ch);
                ch = ts_node_next_named_sibling(ch);
            }
        }
        if (ts_node_has_error(x) && ts_tree_cursor_goto_first_child(&c))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(&c))
            if (!ts_tree_cursor_goto_parent(&c)) {
                ts_tree_cursor_delete(&c);
                return n;
            }
    }
}

#define SPOTS_MAX 4096

/* A copy of src (or `own`, reused) where the words specifier_run judges macros, in the
 * runs around the parse errors of tree, are blanks (*changed); own (or NULL) when there
 * are none.
 * The caller parses again: `ZEXTERN int ZEXPORT deflate(...)` then reads as a prototype
 * and `int ZEXPORT deflateResetKeep(...) {` as a function (zlib had lost it). */
static char *blank_specifier_macros(TSNode root, const char *src, size_t len, char *own,
                                    bool *changed)
{
    *changed = false;
    uint32_t *pos = malloc(SPOTS_MAX * sizeof *pos);
    if (!pos)
        return own;
    size_t np = error_spots(root, pos, SPOTS_MAX), nt = 0;
    tok *t = np ? tokenize(src, len, &nt) : NULL;
    bool *blank = t ? calloc(nt ? nt : 1, sizeof *blank) : NULL;
    if (!blank) {
        free(pos);
        free(t);
        return own;
    }
    for (size_t q = 0; q < np; q++) {
        size_t lo = 0, hi = nt; /* the first token ending after pos[q] */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (t[mid].e <= pos[q])
                lo = mid + 1;
            else
                hi = mid;
        }
        specifier_run(src, t, nt, lo, blank);
        if (lo > 0)
            specifier_run(src, t, nt, lo - 1, blank);
    }
    char *out = own;
    for (size_t j = 0; j < nt; j++) {
        if (!blank[j])
            continue;
        if (!own_copy(&out, src, len))
            break;
        memset(out + t[j].b, ' ', t[j].e - t[j].b);
        *changed = true;
    }
    free(blank);
    free(t);
    free(pos);
    return out;
}

/* ---- one configuration, when nothing else parses ---- */

typedef struct pp_range {
    size_t b, e;
} pp_range;

static int range_cmp(const void *x, const void *y)
{
    const pp_range *a = x, *b = y;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* The #if groups of src that hold only directives, blanks and comments in all their
 * branches (`#ifdef _WIN32 / #define sclose(x) closesocket(x) / #else / #define sclose(x)
 * close(x) / #endif`), each from its #if line to past its #endif line, sorted; *n of
 * them. NULL when there are none or memory ran out. */
static pp_range *directive_groups(const char *src, size_t len, size_t *n)
{
    size_t open[GROUP_DEPTH], body[GROUP_DEPTH];
    pp_range *out = NULL;
    size_t cap = 0;
    int depth = 0;
    *n = 0;
    size_t i = 0, b, e;
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        while (e > b && src[e - 1] == '\\' && qr__pp_next_line(src, len, &i, &e, &e))
            ;
        int d = qr__pp_directive(src, b, e);
        if (d == 1) {
            if (depth < GROUP_DEPTH) {
                open[depth] = b;
                body[depth] = i;
            }
            depth++;
        } else if (d == 3 && depth > 0 && --depth < GROUP_DEPTH) {
            char first, last;
            sig_ends(src, body[depth], b, &first, &last, NULL, NULL);
            if (first)
                continue;
            if (*n == cap) {
                size_t nc = cap ? 2 * cap : 64;
                pp_range *np = realloc(out, nc * sizeof *np);
                if (!np)
                    break;
                out = np;
                cap = nc;
            }
            out[(*n)++] = (pp_range){open[depth], i};
        }
    }
    if (out)
        qsort(out, *n, sizeof *out, range_cmp);
    return out;
}

/* A copy of src (or `own`, reused) read as one configuration: each #if group holding code
 * keeps the branch the preprocessor would take (ppconf.c: the file's own #define and
 * #undef lines met so far and the host's facts; undefined names are 0), the others
 * blank, and its directive lines blank too; unless `strict`, a group of directives alone
 * in compiled code stays as written, with all its branches and conditions (curl's
 * curl_setup.h defines 315 macros that way; read strictly it keeps a third). Only for a
 * file the grammar cannot read otherwise (its root an error: jq's jv_dtoa.c, 4,300 lines
 * of `#ifdef` inside statements, was read as no function at all): what the other
 * branches of code groups hold is lost, and what is kept no longer carries their
 * condition. */
static char *one_configuration(const char *src, size_t len, char *own, bool strict)
{
    qr_ppconf *c = qr__ppconf_new(src);
    if (!c)
        return own;
    char *out = own;
    if (!out) {
        out = malloc(len ? len : 1);
        if (!out) {
            qr__ppconf_free(c);
            return own;
        }
        memcpy(out, src, len);
    }
    size_t nkept = 0;
    pp_range *kept = strict ? NULL : directive_groups(src, len, &nkept);
    size_t i = 0, b, e, as_written = 0; /* src[..as_written) stays */
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        while (e > b && src[e - 1] == '\\' && qr__pp_next_line(src, len, &i, &e, &e))
            ;
        bool taken, unknown, was_active = qr__ppconf_active(c);
        int d = qr__ppconf_line(c, b, e, &taken, &unknown);
        if (b < as_written)
            continue;
        if (d == 1 && was_active && kept) {
            pp_range key = {b, 0};
            pp_range *r = bsearch(&key, kept, nkept, sizeof *kept, range_cmp);
            if (r) {
                as_written = r->e;
                continue;
            }
        }
        if (d || !qr__ppconf_active(c))
            for (size_t x = b; x < i && x < len; x++)
                if (out[x] != '\n')
                    out[x] = ' ';
    }
    free(kept);
    qr__ppconf_free(c);
    return out;
}

/* The ERROR and MISSING nodes of a tree (a subtree without errors is not entered). */
static size_t count_errors(TSNode root)
{
    size_t n = 0;
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&cur);
        if (ts_node_is_missing(x) || !strcmp(ts_node_type(x), "ERROR"))
            n++;
        if (ts_node_has_error(x) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        while (!ts_tree_cursor_goto_next_sibling(&cur))
            if (!ts_tree_cursor_goto_parent(&cur)) {
                ts_tree_cursor_delete(&cur);
                return n;
            }
    }
}

/* How badly a tree reads: its ERROR and MISSING nodes, and a root that is an error
 * above any number of them. */
static size_t tree_badness(TSTree *t)
{
    TSNode root = ts_tree_root_node(t);
    return count_errors(root) + (strcmp(ts_node_type(root), "ERROR") ? 0 : SIZE_MAX / 2);
}

static const TSLanguage *language(qr_code_lang lang)
{
    return lang == QR_CODE_LANG_CPP ? tree_sitter_cpp() : tree_sitter_c();
}

int qr_code_extract(qr_code_lang lang, const char *src, size_t len, qr_arena *a,
                    qr_code_file *out)
{
    memset(out, 0, sizeof *out);
    out->lang = lang;
    if (len > UINT32_MAX / 2)
        return QR_EINVAL;
    for (size_t i = 0; i < len; i++)
        if (src[i] == '\n')
            out->lines++;
    if (len && src[len - 1] != '\n')
        out->lines++;
    TSParser *p = ts_parser_new();
    if (!p)
        return QR_ENOMEM;
    if (!ts_parser_set_language(p, language(lang))) {
        ts_parser_delete(p);
        return QR_EINVAL;
    }
    const char *orig = src;
    char *clean = blank_directive_comments(src, len);
    clean = blank_define_tails(clean ? clean : src, len, clean);
    clean = blank_cplusplus_wrapper(clean ? clean : src, len, clean);
    clean = blank_unbalanced_branches(clean ? clean : src, len, clean);
    clean = blank_annotations(clean ? clean : src, len, clean);
    clean = blank_attribute_lines(clean ? clean : src, len, clean);
    clean = head_macro_definitions(clean ? clean : src, len, clean);
    clean = operator_arguments(clean ? clean : src, len, clean);
    if (clean)
        src = clean;
    TSTree *tree = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    if (tree && ts_node_has_error(ts_tree_root_node(tree))) {
        bool changed;
        char *again = blank_specifier_macros(ts_tree_root_node(tree), src, len, clean, &changed);
        if (again && changed) { /* the same bytes but for blanks: parse them again */
            clean = again;
            src = clean;
            ts_tree_delete(tree);
            tree = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
        }
    }
    if (tree && !strcmp(ts_node_type(ts_tree_root_node(tree)), "ERROR")) {
        /* the grammar gave up on the file: one configuration, its directive groups as
         * written, then with them too read as one configuration; the reading whose root
         * is no error, then with the fewest errors, is kept (curl's curl_setup.h: as
         * written, `#elif defined(inline)` still made the root an error, in which nested
         * groups lose their enclosing condition) */
        size_t best = tree_badness(tree);
        char *best_text = NULL;
        for (int strict = 0; strict < 2 && best; strict++) {
            char *one = one_configuration(src, len, NULL, strict);
            TSTree *t2 = one ? ts_parser_parse_string(p, NULL, one, (uint32_t)len) : NULL;
            size_t bad = t2 ? tree_badness(t2) : SIZE_MAX;
            if (bad < best) {
                ts_tree_delete(tree);
                tree = t2;
                free(best_text);
                best_text = one;
                best = bad;
            } else {
                if (t2)
                    ts_tree_delete(t2);
                free(one);
            }
        }
        if (best_text) {
            free(clean);
            clean = best_text;
            src = clean;
        }
    }
    if (!tree) {
        ts_parser_delete(p);
        free(clean);
        return QR_ENOMEM;
    }
    ex e = {.a = a, .src = src, .orig = orig, .len = len, .cpp = lang == QR_CODE_LANG_CPP};
    e.items.size = sizeof(qr_code_item);
    e.refs.size = sizeof(qr_code_ref);
    ctx c = {.file_scope = true};
    TSNode root = ts_tree_root_node(tree);
    walk_children(&e, root, &c);
    if (lang == QR_CODE_LANG_C)
        file_scope_invocations(&e, src, len);
    ts_tree_delete(tree);
    ts_parser_delete(p);
    free(clean);
    if (e.oom || a->exhausted)
        return QR_ENOMEM;
    out->items = e.items.p;
    out->nitems = e.items.n;
    out->refs = e.refs.p;
    out->nrefs = e.refs.n;
    out->errors = e.errors;
    /* ascending: the walk meets a nested error before a later sibling's, not always in
     * line order */
    for (uint32_t k = 1; k < e.nerror_lines; k++)
        for (uint32_t j = k; j > 0 && e.error_line[j - 1] > e.error_line[j]; j--) {
            uint32_t x = e.error_line[j];
            e.error_line[j] = e.error_line[j - 1];
            e.error_line[j - 1] = x;
        }
    memcpy(out->error_line, e.error_line, sizeof out->error_line);
    out->nerror_lines = e.nerror_lines;
    return QR_OK;
}

qr_code_lang qr_code_lang_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return QR_CODE_LANG_NONE;
    dot++;
    if (!strcmp(dot, "c") || !strcmp(dot, "h"))
        return QR_CODE_LANG_C;
    static const char *const cpp[] = {"cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++",
                                      "C", "H", "ipp", "tpp", NULL};
    for (const char *const *x = cpp; *x; x++)
        if (!strcmp(dot, *x))
            return QR_CODE_LANG_CPP;
    static const char *const tags[] = {"py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "rs",
                                       "java", "sh", "bash", "rb", "lua", "pl", "pm", "php",
                                       "kt", "scala", "swift", "cs", "ex", "exs", "erl",
                                       "hs", "ml", "el", "lisp", "clj", "tcl", "r", "R",
                                       "m", "mk", "cmake", "sql", "vim", NULL};
    for (const char *const *x = tags; *x; x++)
        if (!strcmp(dot, *x))
            return QR_CODE_LANG_CTAGS;
    return QR_CODE_LANG_NONE;
}

const char *qr_code_kind_name(qr_code_kind k)
{
    static const char *const names[] = {"file",       "function", "declaration", "struct",
                                        "union",      "enum",     "enumerator",  "typedef",
                                        "member",     "macro",    "variable"};
    return (unsigned)k < QR_CODE_KIND_COUNT ? names[k] : "unknown";
}

const char *qr_code_lang_name(qr_code_lang l)
{
    switch (l) {
    case QR_CODE_LANG_C:
        return "c";
    case QR_CODE_LANG_CPP:
        return "c++";
    case QR_CODE_LANG_CTAGS:
        return "ctags";
    default:
        return "none";
    }
}
