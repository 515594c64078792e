/*
 * test_code.c: unit tests for the code graph (src/code): the extractor on C snippets
 * (functions static or not, prototypes apart from definitions, structs, unions, enums,
 * typedefs, members, macros with parameters, globals, calls with their lines, includes,
 * what a macro body calls, preprocessor conditions, syntax errors, hostile nesting,
 * C++), and the assembled graph of real git repositories made with `git` in a temporary
 * directory: resolution of static functions per file, calls through project macros
 * (`via`), inactive branches, include resolution, the working tree's uncommitted changes,
 * blobs never parsed twice, another ref, bad files counted, and the queries' paging and
 * "did you mean" errors.
 */
#include "check.h"
#include "code/graph_int.h"
#include "code/ppconf.h"
#include "code/store_int.h"
#include "quarry/code.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const qr_code_item *find_item(const qr_code_file *f, qr_code_kind k, const char *name)
{
    for (size_t i = 0; i < f->nitems; i++)
        if (f->items[i].kind == k && !strcmp(f->items[i].name, name))
            return &f->items[i];
    return NULL;
}

static const qr_code_ref *find_ref(const qr_code_file *f, qr_code_ref_kind k, const char *from,
                                   const char *name)
{
    for (size_t i = 0; i < f->nrefs; i++) {
        const qr_code_ref *r = &f->refs[i];
        if (r->kind == k && !strcmp(r->name, name) &&
            ((!from && !r->from) || (from && r->from && !strcmp(r->from, from))))
            return r;
    }
    return NULL;
}

static void test_extract_c(void)
{
    static const char src[] =
        "#include \"a.h\"\n"                                       /* 1 */
        "#include <stdio.h>\n"                                     /* 2 */
        "#define MAX 10\n"                                         /* 3 */
        "#define CALL(f, x) (wrap(f(x)) + other(x))\n"             /* 4 */
        "typedef struct node { int v; struct node *next; } node;\n" /* 5 */
        "union u { int i; float f; };\n"                           /* 6 */
        "enum e { A, B = 3 };\n"                                   /* 7 */
        "typedef unsigned long ulong;\n"                           /* 8 */
        "static int counter, *ptr;\n"                              /* 9 */
        "extern const char *name;\n"                               /* 10 */
        "int proto(int a);\n"                                      /* 11 */
        "int (*fp)(int);\n"                                        /* 12 */
        "static int helper(int v)\n"                               /* 13 */
        "{\n"                                                      /* 14 */
        "    return proto(v) + CALL(proto, v);\n"                  /* 15 */
        "}\n"                                                      /* 16 */
        "char *pub(node *n, ulong k) { printf(\"x\"); return 0; }\n" /* 17 */
        "#if 0\n"                                                  /* 18 */
        "void off(void) { helper(1); }\n"                          /* 19 */
        "#endif\n"                                                 /* 20 */
        "#ifdef FEATURE\n"                                         /* 21 */
        "void feat(void) {}\n"                                     /* 22 */
        "#else\n"                                                  /* 23 */
        "void nofeat(void) {}\n"                                   /* 24 */
        "#endif\n";                                                /* 25 */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f;
    CHECK(qr_code_extract(QR_CODE_LANG_C, src, sizeof src - 1, &a, &f) == QR_OK);
    CHECK(f.errors == 0);
    CHECK(f.lines == 25);

    const qr_code_item *it = find_item(&f, QR_CODE_FUNCTION, "helper");
    CHECK(it && (it->flags & QR_CODE_STATIC) && it->line == 13 && it->end_line == 16);
    if (it) {
        CHECK_STR(it->type, "int");
        CHECK_STR(it->signature, "static int helper(int v)");
    }
    it = find_item(&f, QR_CODE_FUNCTION, "pub");
    CHECK(it && !(it->flags & QR_CODE_STATIC) && it->line == 17);
    if (it)
        CHECK_STR(it->type, "char *");
    CHECK(find_item(&f, QR_CODE_DECLARATION, "proto") != NULL);
    CHECK(find_item(&f, QR_CODE_FUNCTION, "proto") == NULL);
    /* a function pointer variable is a variable, not a prototype */
    CHECK(find_item(&f, QR_CODE_VARIABLE, "fp") != NULL);
    CHECK(find_item(&f, QR_CODE_DECLARATION, "fp") == NULL);
    it = find_item(&f, QR_CODE_VARIABLE, "counter");
    CHECK(it && (it->flags & QR_CODE_STATIC));
    it = find_item(&f, QR_CODE_VARIABLE, "ptr");
    CHECK(it && (it->flags & QR_CODE_STATIC));
    if (it)
        CHECK_STR(it->type, "int *");
    it = find_item(&f, QR_CODE_VARIABLE, "name");
    CHECK(it && (it->flags & QR_CODE_EXTERN));

    CHECK(find_item(&f, QR_CODE_STRUCT, "node") != NULL);
    it = find_item(&f, QR_CODE_TYPEDEF, "node");
    CHECK(it != NULL);
    if (it)
        CHECK_STR(it->type, "struct node");
    it = find_item(&f, QR_CODE_MEMBER, "next");
    CHECK(it != NULL);
    if (it) {
        CHECK_STR(it->parent, "node");
        CHECK_STR(it->type, "struct node *");
    }
    CHECK(find_item(&f, QR_CODE_UNION, "u") != NULL);
    it = find_item(&f, QR_CODE_MEMBER, "f");
    CHECK(it && it->parent && !strcmp(it->parent, "u"));
    CHECK(find_item(&f, QR_CODE_ENUM, "e") != NULL);
    it = find_item(&f, QR_CODE_ENUMERATOR, "B");
    CHECK(it && it->parent && !strcmp(it->parent, "e"));
    it = find_item(&f, QR_CODE_TYPEDEF, "ulong");
    CHECK(it != NULL);
    if (it)
        CHECK_STR(it->type, "unsigned long");

    it = find_item(&f, QR_CODE_MACRO, "MAX");
    CHECK(it && !(it->flags & QR_CODE_FUNC_LIKE));
    it = find_item(&f, QR_CODE_MACRO, "CALL");
    CHECK(it && (it->flags & QR_CODE_FUNC_LIKE));
    if (it)
        CHECK_STR(it->signature, "(f, x)");
    /* the body calls wrap and other; f is a parameter */
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "CALL", "wrap") != NULL);
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "CALL", "other") != NULL);
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "CALL", "f") == NULL);

    const qr_code_ref *r = find_ref(&f, QR_CODE_REF_CALL, "helper", "proto");
    CHECK(r && r->line == 15);
    CHECK(find_ref(&f, QR_CODE_REF_CALL, "helper", "CALL") != NULL);
    CHECK(find_ref(&f, QR_CODE_REF_CALL, "pub", "printf") != NULL);
    r = find_ref(&f, QR_CODE_REF_INCLUDE, NULL, "\"a.h\"");
    CHECK(r && r->line == 1);
    CHECK(find_ref(&f, QR_CODE_REF_INCLUDE, NULL, "<stdio.h>") != NULL);
    CHECK(find_ref(&f, QR_CODE_REF_TYPE, "pub", "ulong") != NULL);

    it = find_item(&f, QR_CODE_FUNCTION, "off");
    CHECK(it && it->cond && !strcmp(it->cond, "0"));
    r = find_ref(&f, QR_CODE_REF_CALL, "off", "helper");
    CHECK(r && r->cond && !strcmp(r->cond, "0"));
    it = find_item(&f, QR_CODE_FUNCTION, "feat");
    CHECK(it && it->cond && !strcmp(it->cond, "FEATURE"));
    it = find_item(&f, QR_CODE_FUNCTION, "nofeat"); /* the #else: FEATURE undefined */
    CHECK(it && it->cond && !strcmp(it->cond, "!FEATURE"));
    qr_arena_release(&a);
}

/* `#if` on defined(): `!defined(X)` as #ifndef, a disjunction as one term ("|A|=B"), its
 * #else as the negation of each part; `#if !defined(G)` then `#define G` is a guard. */
static void test_extract_defined_conditions(void)
{
    static const char src[] = "#if !defined(C) && !defined(D)\nint cd(void) { return 0; }\n#endif\n"
                              "#if defined(A) || B || defined(_WIN32)\nint ab(void) { return 0; }\n"
                              "#else\nint none(void) { return 0; }\n#endif\n"
                              "#if !defined(G)\n#define G\nint g(void) { return 0; }\n#endif\n"
                              "#if defined(E) || f(1)\nint ef(void) { return 0; }\n#endif\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f;
    CHECK(qr_code_extract(QR_CODE_LANG_C, src, sizeof src - 1, &a, &f) == QR_OK);
    const qr_code_item *it = find_item(&f, QR_CODE_FUNCTION, "cd");
    CHECK(it && it->cond && !strcmp(it->cond, "!C,!D"));
    it = find_item(&f, QR_CODE_FUNCTION, "ab");
    CHECK(it && it->cond && !strcmp(it->cond, "|A|=B")); /* _WIN32: the host's, false */
    it = find_item(&f, QR_CODE_FUNCTION, "none");
    CHECK(it && it->cond && !strcmp(it->cond, "!A,!=B"));
    it = find_item(&f, QR_CODE_FUNCTION, "g");
    CHECK(it && !it->cond);
    it = find_item(&f, QR_CODE_FUNCTION, "ef"); /* a part not judged: the whole is not */
    CHECK(it && !it->cond);
    qr_arena_release(&a);
}

/* A generated configuration header's #defines in its one configuration, with their 0. */
static char pp_names[256];
static void pp_name(void *ud, const char *w, size_t n, bool zero)
{
    (void)ud;
    size_t l = strlen(pp_names);
    snprintf(pp_names + l, sizeof pp_names - l, "%s%.*s%s", l ? " " : "", (int)n, w,
             zero ? "=0" : "");
}

static void test_ppconf_defines(void)
{
    static const char src[] = "/* generated */\n#define HAVE_A 1\n/* #undef HAVE_B */\n"
                              "#define HAVE_DECL_C 0 /* no */\n#define D 0x10\n"
                              "#ifdef __APPLE__\n#define APPLE_ONLY 1\n#endif\n"
                              "#ifndef E\n# define E \\\n  2\n#endif\n#define F(x) 0\n"
                              "#if HAVE_A\n#define G\n#endif\n";
    pp_names[0] = 0;
    CHECK(qr__ppconf_defines(src, sizeof src - 1, pp_name, NULL));
    CHECK(!strcmp(pp_names, "HAVE_A HAVE_DECL_C=0 D E F G"));
}

static void test_extract_conditions(void)
{
    static const char src[] = "#if 1\nint on(void) { return 1; }\n#else\nint off(void) { return 0; }\n"
                              "#endif\n"
                              "#if defined(A)\nint a(void) { return 0; }\n#elif 0\n"
                              "int z(void) { return 0; }\n#elif defined B\nint b(void) { return 0; }\n"
                              "#else\nint c(void) { return 0; }\n#endif\n"
                              "#ifndef GUARD\nint g(void) { return 0; }\n#endif\n"
                              "#ifndef H_H\n#define H_H\nint h(void) { return 0; }\n#endif\n"
                              "#ifdef X\n#ifdef Y\nint xy(void) { return 0; }\n#endif\n#endif\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f;
    CHECK(qr_code_extract(QR_CODE_LANG_C, src, sizeof src - 1, &a, &f) == QR_OK);
    const qr_code_item *it = find_item(&f, QR_CODE_FUNCTION, "on");
    CHECK(it && !it->cond);
    it = find_item(&f, QR_CODE_FUNCTION, "off");
    CHECK(it && it->cond && !strcmp(it->cond, "0"));
    it = find_item(&f, QR_CODE_FUNCTION, "a");
    CHECK(it && it->cond && !strcmp(it->cond, "A"));
    /* the branches after `#if defined(A)` hold only when A is not defined ("!A"), as
     * after #ifdef A; the #else after `#elif defined B` only when B is not either */
    it = find_item(&f, QR_CODE_FUNCTION, "z");
    CHECK(it && it->cond && !strcmp(it->cond, "!A,0"));
    it = find_item(&f, QR_CODE_FUNCTION, "b");
    CHECK(it && it->cond && !strcmp(it->cond, "!A,B"));
    it = find_item(&f, QR_CODE_FUNCTION, "c");
    CHECK(it && it->cond && !strcmp(it->cond, "!A,!B"));
    it = find_item(&f, QR_CODE_FUNCTION, "g");
    CHECK(it && it->cond && !strcmp(it->cond, "!GUARD")); /* holds when nothing defines it */
    it = find_item(&f, QR_CODE_FUNCTION, "h");
    CHECK(it && !it->cond); /* a header guard is not judged */
    it = find_item(&f, QR_CODE_FUNCTION, "xy");
    CHECK(it && it->cond && !strcmp(it->cond, "X,Y"));
    qr_arena_release(&a);
}

/* Issue 23's shapes at the extractor: comments inside directives (a block comment over
 * two lines, a line comment, `//` inside a string, CRLF line ends), a
 * statement macro without `;`, a parenthesized name, a stringizing macro body. */
static void test_extract_real_c(void)
{
    static const char src[] =
        "#define A(x) do { /* one \\\r\n two */ \\\r\n    f_a(x); /* c */ \\\r\n} while (0)\r\n"
        "#define S(x) s_call(x, \"//\") // tail\n"
        "#define B(x) g_b(#x) /* spans\n   two lines */ + h_b(x)\n"
        "int after(int v) { GET(v)\n if (v) { return 0; } return 1; }\n"
        "EXPORT int (named) (int v) { return v; }\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f;
    CHECK(qr_code_extract(QR_CODE_LANG_C, src, sizeof src - 1, &a, &f) == QR_OK);
    const qr_code_item *it = find_item(&f, QR_CODE_MACRO, "A");
    CHECK(it && it->line == 1 && it->end_line == 4);
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "A", "f_a") != NULL);
    it = find_item(&f, QR_CODE_MACRO, "S");
    CHECK(it && it->line == 5 && it->type && !strcmp(it->type, "s_call(x, \"//\")"));
    it = find_item(&f, QR_CODE_MACRO, "B");
    CHECK(it && it->line == 6 && it->end_line == 7);
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "B", "g_b") != NULL);
    CHECK(find_ref(&f, QR_CODE_REF_MACRO_CALL, "B", "h_b") != NULL);
    it = find_item(&f, QR_CODE_FUNCTION, "after");
    CHECK(it && it->line == 8);
    CHECK(!find_item(&f, QR_CODE_FUNCTION, "if") && !find_item(&f, QR_CODE_FUNCTION, "GET"));
    CHECK(find_ref(&f, QR_CODE_REF_CALL, "after", "GET") != NULL);
    it = find_item(&f, QR_CODE_FUNCTION, "named");
    CHECK(it && it->line == 10 && it->type && !strcmp(it->type, "int"));
    CHECK(!find_item(&f, QR_CODE_FUNCTION, "int"));
    qr_arena_release(&a);
}

static void test_extract_bad(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f;
    static const char broken[] = "int ok(void) { return 1; }\nint bad( { )) ;\nint also(void) {}\n";
    CHECK(qr_code_extract(QR_CODE_LANG_C, broken, sizeof broken - 1, &a, &f) == QR_OK);
    CHECK(f.errors > 0);
    CHECK(find_item(&f, QR_CODE_FUNCTION, "ok") != NULL);
    /* deep nesting: no crash, bounded */
    size_t n = 200000;
    char *deep = malloc(n + 32);
    strcpy(deep, "int f(void) { return ");
    size_t k = strlen(deep);
    for (size_t i = 0; i < n / 2; i++)
        deep[k++] = '(';
    deep[k++] = '1';
    for (size_t i = 0; i < n / 2; i++)
        deep[k++] = ')';
    memcpy(deep + k, "; }\n", 5);
    CHECK(qr_code_extract(QR_CODE_LANG_C, deep, k + 4, &a, &f) == QR_OK);
    free(deep);
    /* a capped arena: QR_ENOMEM, not a crash */
    qr_arena small;
    qr_arena_init(&small, 256);
    static const char many[] = "int a1(void){}\nint a2(void){}\nint a3(void){}\nint a4(void){}\n"
                               "int a5(void){}\nint a6(void){}\nint a7(void){}\nint a8(void){}\n";
    CHECK(qr_code_extract(QR_CODE_LANG_C, many, sizeof many - 1, &small, &f) == QR_ENOMEM);
    qr_arena_release(&small);
    /* C++: classes and methods */
    static const char cpp[] = "class A { public: int m(int x) { return g(x); } };\n"
                              "int A::n() { return 0; }\n";
    CHECK(qr_code_extract(QR_CODE_LANG_CPP, cpp, sizeof cpp - 1, &a, &f) == QR_OK);
    CHECK(find_item(&f, QR_CODE_FUNCTION, "A::n") != NULL);
    CHECK(find_item(&f, QR_CODE_STRUCT, "A") != NULL);
    CHECK(qr_code_lang_of("x/y.c") == QR_CODE_LANG_C);
    CHECK(qr_code_lang_of("x/y.hpp") == QR_CODE_LANG_CPP);
    CHECK(qr_code_lang_of("x/y.py") == QR_CODE_LANG_CTAGS);
    CHECK(qr_code_lang_of("x.d/README") == QR_CODE_LANG_NONE);
    qr_arena_release(&a);
}

/* ---- graphs of real repositories ---- */

static char repo[256];

static void sh(const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full,
             "cd '%s' && { %s; } >/dev/null 2>&1", repo, cmd);
    CHECK(system(full) == 0);
}

static void put(const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", repo, path);
    char *slash = strrchr(full, '/');
    *slash = 0;
    char mk[600];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", full);
    CHECK(system(mk) == 0);
    *slash = '/';
    FILE *f = fopen(full, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int edge_count(const qr_code_graph *g, qr_code_edge_kind k, const char *from, const char *to,
                      const char *via, bool *inactive)
{
    int n = 0;
    for (size_t i = 0; i < qr_code_graph_nedges(g); i++) {
        const qr_code_edge *e = qr_code_graph_edge(g, i);
        if (e->kind != k || strcmp(e->from_key, from) || strcmp(e->to_key, to))
            continue;
        if ((via && (!e->via || strcmp(e->via, via))) || (!via && e->via))
            continue;
        if (inactive)
            *inactive = e->inactive;
        n++;
    }
    return n;
}

static qr_val query(qr_code_graph *g, qr_arena *a, const char *edn, qr_buf *err, int *rc)
{
    qr_val forms;
    qr_read_error re;
    CHECK(qr_read_all(a, edn, strlen(edn), QR_READ_EDN, &forms, &re) == QR_OK);
    qr_val out = qr_nil();
    qr_buf_reset(err);
    *rc = qr_code_query(g, NULL, qr_vec_at(forms, 0), a, &out, err);
    return out;
}

static int64_t get_int(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    return qr_map_get(m, qr_kw_cstr(a, k), &v) && v.t == QR_T_INT ? v.i : -1;
}

static void test_graph(void)
{
    char tmpl[] = "/tmp/quarry-code-XXXXXX";
    CHECK(mkdtemp(tmpl) != NULL);
    snprintf(repo, sizeof repo, "%s", tmpl);
    sh("git init -q . && git config user.email t@example.com && git config user.name T && "
       "git config commit.gpgsign false");
    put("include/api.h", "#ifndef API_H\n#define API_H\n"
                         "#define newlib(L, l) (setfuncs((L), (l)))\n"
                         "void setfuncs(void *L, void *l);\n"
                         "int shared(int x);\n"
                         "typedef struct pt { int x; } pt;\n"
                         "struct box { pt a; const struct pt *b; };\n#endif\n");
    put("src/one.c", "#include \"api.h\"\n#include <stdio.h>\n"
                     "static int helper(void) { return 1; }\n"
                     "int shared(int x) { return helper() + x; }\n"
                     "void setfuncs(void *L, void *l) { (void)L; (void)l; }\n"
                     "void open(void *L) { newlib(L, 0); }\n"
                     "#ifdef NOWHERE_DEFINED\nvoid gone(void) { shared(2); }\n#endif\n");
    put("src/two.c", "#include \"../include/api.h\"\n"
                     "static int helper(void) { return 2; }\n"
                     "int main(void) { return shared(helper()); }\n");
    put("data.bin.c", "x");
    sh("printf 'a\\000b' > data.bin.c && git add -A && git commit -qm one");

    qr_code *c = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_code_open(repo, &c, &err) == QR_OK);
    if (!c) {
        fprintf(stderr, "%s\n", err.p ? err.p : "");
        return;
    }
    qr_code_graph *g = NULL;
    qr_code_opts o = {0};
    CHECK(qr_code_load(c, &o, &g, &err) == QR_OK);
    if (!g)
        return;
    const qr_code_stats *st = qr_code_graph_stats(g);
    CHECK(st->parsed == 3);
    CHECK(st->skipped_binary == 1);
    CHECK(st->blobs_indexed_now == 4);
    /* each file's own static helper */
    CHECK(edge_count(g, QR_CODE_E_CALLS, "src/one.c:shared", "src/one.c:helper", NULL, NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_CALLS, "src/two.c:main", "src/two.c:helper", NULL, NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_CALLS, "src/two.c:main", "src/one.c:shared", NULL, NULL) == 1);
    /* through the project's macro */
    CHECK(edge_count(g, QR_CODE_E_EXPANDS, "src/one.c:open", "newlib", NULL, NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_CALLS, "src/one.c:open", "src/one.c:setfuncs", "newlib", NULL) ==
          1);
    bool inactive = false;
    CHECK(edge_count(g, QR_CODE_E_CALLS, "src/one.c:gone", "src/one.c:shared", NULL, &inactive) == 1);
    CHECK(inactive);
    CHECK(edge_count(g, QR_CODE_E_INCLUDES, "src/one.c", "include/api.h", NULL, NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_INCLUDES, "src/two.c", "include/api.h", NULL, NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_INCLUDES, "src/one.c", "<stdio.h>", NULL, NULL) == 1);
    /* a struct uses the types of its members */
    CHECK(edge_count(g, QR_CODE_E_USES_TYPE, "include/api.h:struct box", "include/api.h:pt", NULL,
                     NULL) == 1);
    CHECK(edge_count(g, QR_CODE_E_USES_TYPE, "include/api.h:struct box",
                     "include/api.h:struct pt", NULL, NULL) == 1);

    /* the lookups evaluators use */
    const size_t *idx;
    size_t n = qr_code_graph_named(g, "helper", &idx);
    CHECK(n == 2);
    if (n == 2) {
        CHECK_STR(qr_code_graph_node(g, idx[0])->file, "src/one.c");
        CHECK_STR(qr_code_graph_node_key(g, idx[1]), "src/two.c:helper");
    }
    n = qr_code_graph_edges_to(g, "src/one.c:shared", &idx);
    int callers = 0;
    for (size_t i = 0; i < n; i++)
        callers += qr_code_graph_edge(g, idx[i])->kind == QR_CODE_E_CALLS;
    CHECK(callers == 2);
    n = qr_code_graph_edges_from(g, "src/one.c", &idx);
    CHECK(n >= 2 && qr_code_graph_edge(g, idx[0])->kind == QR_CODE_E_INCLUDES);
    CHECK(qr_code_graph_file_node(g, "include/api.h") >= 0);
    CHECK(qr_code_graph_file_node(g, "nope.c") == -1);

    qr_arena a;
    qr_arena_init(&a, 0);
    int rc;
    qr_val v = query(g, &a, "{:query_type \"get_call_graph\" :name \"shared\"}", &err, &rc);
    CHECK(rc == QR_OK);
    CHECK(get_int(&a, v, "total") == 3); /* helper; main and gone call it */
    v = query(g, &a, "{:query_type \"get_call_graph\" :name \"shared\" :include_inactive false}",
              &err, &rc);
    CHECK(get_int(&a, v, "total") == 2);
    v = query(g, &a, "{:query_type \"list_functions\" :visibility \"private\" :limit 1}", &err, &rc);
    CHECK(rc == QR_OK && get_int(&a, v, "total") == 2 && get_int(&a, v, "next_offset") == 1);
    v = query(g, &a, "{:query_type \"find_function\" :name \"sharde\"}", &err, &rc);
    CHECK(rc == QR_EINVAL);
    CHECK_STR(err.p, "no function 'sharde'; did you mean 'shared'?");
    v = query(g, &a, "{:query_type \"get_dependencies\" :file \"include/api.h\" :reverse true}",
              &err, &rc);
    CHECK(rc == QR_OK && get_int(&a, v, "total") == 2);
    v = query(g, &a, "{:query_type \"get_definition\" :name \"helper\" :file \"src/two.c\"}", &err,
              &rc);
    qr_val text;
    CHECK(rc == QR_OK && qr_map_get(v, qr_kw_cstr(&a, "text"), &text) && text.t == QR_T_STR &&
          !strcmp(text.s->data, "static int helper(void) { return 2; }"));
    v = query(g, &a, "{:query_type \"search_by_name\" :pattern \"shd\" :match \"fuzzy\"}", &err, &rc);
    CHECK(rc == QR_OK && get_int(&a, v, "total") >= 1);
    v = query(g, &a, "{:query_type \"search_by_name\" :pattern \"^set\" :match \"regex\"}", &err, &rc);
    CHECK(rc == QR_OK && get_int(&a, v, "total") == 2); /* declaration and definition */
    qr_code_graph_free(g);

    /* the working tree: an uncommitted change is hashed and indexed; the rest is reused */
    put("src/two.c", "static int helper(void) { return 2; }\n"
                     "int main(void) { return helper(); }\n");
    CHECK(qr_code_load(c, &o, &g, &err) == QR_OK);
    if (g) {
        CHECK(qr_code_graph_stats(g)->blobs_indexed_now == 1);
        CHECK(edge_count(g, QR_CODE_E_CALLS, "src/two.c:main", "src/one.c:shared", NULL, NULL) == 0);
        qr_code_graph_free(g);
    }
    /* the committed graph is still there, and nothing is parsed again */
    o.ref = "HEAD";
    CHECK(qr_code_load(c, &o, &g, &err) == QR_OK);
    if (g) {
        CHECK(qr_code_graph_stats(g)->blobs_indexed_now == 0);
        CHECK(edge_count(g, QR_CODE_E_CALLS, "src/two.c:main", "src/one.c:shared", NULL, NULL) == 1);
        qr_code_graph_free(g);
    }
    o.ref = "no-such-ref";
    qr_buf_reset(&err);
    CHECK(qr_code_load(c, &o, &g, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "unknown revision 'no-such-ref'"));
    qr_arena_release(&a);
    qr_code_close(c);
    qr_buf_release(&err);
    char rm[400];
    snprintf(rm, sizeof rm, "rm -rf '%s'", repo);
    CHECK(system(rm) == 0);
}

/* ctags names an anonymous struct or function after a hash of the file name it is given;
 * the blob goes to a new temporary directory each time, so two builds of one tree gave
 * two different indexes. The same blob twice gives the same names. */
static void test_ctags_names_stable(void)
{
    if (system("ctags --version >/dev/null 2>&1") != 0) {
        printf("skip: no ctags\n");
        return;
    }
    static const char js[] = "foo(function(a){ return a; });\nvar o = {f: function(){}};\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_code_file f1, f2;
    CHECK(qr__code_ctags("web/app.js", js, sizeof js - 1, &a, &f1) == QR_OK);
    CHECK(qr__code_ctags("web/app.js", js, sizeof js - 1, &a, &f2) == QR_OK);
    CHECK(f1.nitems > 0 && f1.nitems == f2.nitems);
    bool anon = false;
    for (size_t i = 0; i < f1.nitems && i < f2.nitems; i++) {
        CHECK_STR(f1.items[i].name, f2.items[i].name);
        anon = anon || strstr(f1.items[i].name, "Anonymous") != NULL;
    }
    CHECK(anon); /* the case that matters was there */
    qr_arena_release(&a);
}

/* A commit that fails on a full disk reports the commit's own error; the rollback after
 * it (SQLite had already rolled back) used to replace it with "cannot rollback - no
 * transaction is active". The disk is made full for this process with RLIMIT_FSIZE. */
static void test_code_store_full_disk(void)
{
    char dir[] = "/tmp/quarry-test-codefull-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    qr_buf err;
    qr_buf_init(&err);
    qr_code_store *s = NULL;
    CHECK(qr__code_store_open(dir, &s, &err) == QR_OK);
    if (!s)
        return;
    enum { N = 4000 };
    qr_code_item *items = calloc(N, sizeof *items);
    char (*names)[48] = calloc(N, sizeof *names);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "function_with_a_long_name_%zu", i);
        items[i] = (qr_code_item){.kind = QR_CODE_FUNCTION, .name = names[i], .line = 1,
                                  .signature = "int function_with_a_long_name(void)"};
    }
    qr_code_blob b = {.status = QR_CODE_BLOB_OK, .bytes = 10};
    b.file.lang = QR_CODE_LANG_C;
    b.file.items = items;
    b.file.nitems = N;
    CHECK(qr__code_store_put(s, "0123456789abcdef0123456789abcdef01234567", &b, &err) == QR_OK);
    struct stat st;
    char db[256];
    snprintf(db, sizeof db, "%s/quarry/code.db", dir);
    CHECK(stat(db, &st) == 0);
    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = (rlim_t)st.st_size + 4096;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    int rc = qr__code_store_commit(s, &err);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CHECK(rc == QR_EIO);
    CHECK(err.p && !strstr(err.p, "no transaction is active"));
    CHECK(err.p && strstr(err.p, "commit failed"));
    if (err.p && strstr(err.p, "no transaction"))
        printf("  got: %s\n", err.p);
    /* the store works again: the next batch begins a new transaction */
    qr_buf_reset(&err);
    b.file.nitems = 1;
    CHECK(qr__code_store_put(s, "1123456789abcdef0123456789abcdef01234567", &b, &err) == QR_OK);
    CHECK(qr__code_store_commit(s, &err) == QR_OK);
    int64_t nb, ni, nr;
    CHECK(qr__code_store_count(s, &nb, &ni, &nr) == QR_OK && nb == 1 && ni == 1);
    qr__code_store_close(s);
    free(items);
    free(names);
    qr_buf_release(&err);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_ctags_names_stable();
    test_code_store_full_disk();
    test_extract_c();
    test_extract_conditions();
    test_extract_defined_conditions();
    test_ppconf_defines();
    test_extract_real_c();
    test_extract_bad();
    test_graph();
    CHECK_DONE();
}
