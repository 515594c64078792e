/*
 * fuzz_sparql.c: libFuzzer harness for the SPARQL parser and evaluator over a real graph.
 * The input is a query; when it parses and is read-only it runs under tight limits (time,
 * rows, memory), so runaway paths and joins end with an error, never a hang. The default
 * graph is the code graph of a small C repository the harness makes once (git init, a
 * commit, the code indexer, qr_sparql_load_code_graph: what `quarry sparql` queries), and
 * a Turtle fixture with numbers, language tags, datatypes and dates is loaded both into it
 * and as a named graph, so FILTERs, GRAPH and FROM NAMED have something to work on.
 * Rejected: a graph built triple by triple in the harness, which missed the shapes (blank
 * node call sites, inactive code, externals) that only the real view makes.
 */
#include "quarry/code.h"
#include "quarry/sparql.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *dir, const char *path, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, path);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* a repository with calls, includes, a macro, a struct, static and inactive functions */
static void load_code_graph(qr_sparql_store *st)
{
    char dir[] = "/tmp/fuzz_sparql_XXXXXX";
    if (!mkdtemp(dir))
        return;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/src %s/include", dir, dir);
    if (system(cmd) != 0)
        return;
    put(dir, "include/api.h",
        "#ifndef API_H\n#define API_H\n#define newlib(L, l) (setfuncs((L), (l)))\n"
        "void setfuncs(void *L, void *l);\nint shared(int x);\n"
        "typedef struct pt { int x; int y; } pt;\nstruct box { pt a; const struct pt *b; };\n"
        "#endif\n");
    put(dir, "src/one.c",
        "#include \"api.h\"\n#include <stdio.h>\n"
        "static int helper(void) { return 1; }\n"
        "static int unused(void) { return 0; }\n"
        "int shared(int x) { printf(\"%d\", x); return helper() + x; }\n"
        "void setfuncs(void *L, void *l) { (void)L; (void)l; }\n"
        "void open_lib(void *L) { newlib(L, 0); }\n"
        "#ifdef NOWHERE_DEFINED\nvoid gone(void) { shared(2); }\n#endif\n");
    put(dir, "src/two.c",
        "#include \"../include/api.h\"\nstatic int helper(void) { return 2; }\n"
        "int area(struct box *b) { return b->a.x * b->a.y; }\n"
        "int main(void) { return shared(helper()) + area(0); }\n");
    snprintf(cmd, sizeof cmd,
             "cd %s && git init -q . && git -c user.email=f@example.com -c user.name=F "
             "-c commit.gpgsign=false add -A && git -c user.email=f@example.com "
             "-c user.name=F -c commit.gpgsign=false commit -qm one",
             dir);
    if (system(cmd) != 0)
        return;
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    qr_buf err;
    qr_buf_init(&err);
    qr_code_opts o = {0};
    if (qr_code_open(dir, &c, &err) == QR_OK && qr_code_load(c, &o, &g, &err) == QR_OK)
        qr_sparql_load_code_graph(st, g);
    if (g)
        qr_code_graph_free(g);
    if (c)
        qr_code_close(c);
    qr_buf_release(&err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return;
}

static qr_sparql_store *fixture(void)
{
    static qr_sparql_store *st;
    if (st)
        return st;
    st = qr_sparql_store_new();
    load_code_graph(st);
    const char *ttl = "@prefix : <http://e/> .\n"
                      ":a :calls :b , :c . :b :calls :c . :c :calls :a .\n"
                      ":a :name \"main\" ; :size 10 . :b :name \"helper\"@en ; :size 2.5 .\n"
                      ":c :name \"x\"^^<http://e/t> ; :when \"2020-01-01T00:00:00Z\"^^"
                      "<http://www.w3.org/2001/XMLSchema#dateTime> .\n";
    qr_sparql_error err;
    qr_sparql_store_load_text(st, ttl, strlen(ttl), "turtle", NULL, NULL, &err);
    qr_sparql_store_load_text(st, ttl, strlen(ttl), "turtle", "http://g/", NULL, &err);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_sparql_query *q;
    qr_sparql_error err;
    qr_sparql_store *st = fixture();
    if (qr_sparql_prepare((const char *)data, size, "http://base/", &q, &err))
        return 0;
    qr_sparql_limits lim = {0};
    lim.timeout_ms = 500;
    lim.max_rows = 10000;
    lim.max_memory = 32u << 20;
    qr_sparql_result *r;
    if (qr_sparql_exec(st, q, &lim, &r, &err) == QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        for (int f = QR_SPARQL_FMT_JSON; f <= QR_SPARQL_FMT_TABLE; f++)
            qr_sparql_write(r, (qr_sparql_format)f, 0, 0, &b);
        qr_buf_release(&b);
        qr_sparql_result_free(r);
    }
    qr_sparql_query_free(q);
    return 0;
}
