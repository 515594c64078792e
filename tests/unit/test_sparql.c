/*
 * test_sparql.c: unit tests of the SPARQL engine: parsing and the read-only check (the
 * refusal messages), a store filled triple by triple, evaluation of the main algebra
 * forms, limits ending a runaway with a typed error, and the result writers.
 */
#include "check.h"

#include "quarry/req.h"
#include "quarry/sparql.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static qr_sparql_store *store;

static void add(const char *s, const char *p, const char *o, bool lit)
{
    qr_sparql_term ts = {QR_SPARQL_IRI, s, strlen(s), NULL, NULL};
    qr_sparql_term tp = {QR_SPARQL_IRI, p, strlen(p), NULL, NULL};
    qr_sparql_term to = {lit ? QR_SPARQL_LITERAL : QR_SPARQL_IRI, o, strlen(o), NULL, NULL};
    CHECK(qr_sparql_store_add(store, NULL, &ts, &tp, &to) == QR_OK);
}

/* runs q and returns its TSV (malloc'd), or the error message prefixed by "ERR " */
static char *run(const char *q, const qr_sparql_limits *lim)
{
    qr_sparql_query *pq;
    qr_sparql_error err;
    qr_buf b;
    qr_buf_init(&b);
    if (qr_sparql_prepare(q, strlen(q), NULL, &pq, &err)) {
        qr_buf_printf(&b, "ERR %d %s", err.kind, err.msg);
        return qr_buf_detach(&b, NULL);
    }
    qr_sparql_result *r;
    qr_sparql_limits none = {0};
    if (qr_sparql_exec(store, pq, lim ? lim : &none, &r, &err)) {
        qr_buf_printf(&b, "ERR %d %s", err.kind, err.msg);
        qr_sparql_query_free(pq);
        return qr_buf_detach(&b, NULL);
    }
    qr_sparql_write(r, QR_SPARQL_FMT_TSV, 0, 0, &b);
    qr_sparql_result_free(r);
    qr_sparql_query_free(pq);
    return qr_buf_detach(&b, NULL);
}

#define EXPECT(q, want)                                                                      \
    do {                                                                                     \
        char *got_ = run(q, NULL);                                                           \
        CHECK_STR(got_, want);                                                               \
        free(got_);                                                                          \
    } while (0)

#define EXPECT_PREFIX(q, want)                                                               \
    do {                                                                                     \
        char *got_ = run(q, NULL);                                                           \
        if (strncmp(got_, want, strlen(want))) {                                             \
            fprintf(stderr, "%s:%d: expected prefix \"%s\", got \"%s\"\n", __FILE__,         \
                    __LINE__, want, got_);                                                   \
            check_failures++;                                                                \
        }                                                                                    \
        free(got_);                                                                          \
    } while (0)

#define P "PREFIX : <http://e/> "

/* Long operator chains: a 20K-term `||`, `&&` or `+` chain (a 40 KB query) is one node with
 * all its operands, so neither the parser, the grouping check nor the evaluator recurses once
 * per term. Run on a thread with a small stack (an MCP worker's size) so a recursion per term
 * fails here every time, not only when the main stack happens to be too small. */
static char *chain_query(const char *head, const char *term, const char *op, const char *last,
                         const char *tail, int n)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_puts(&b, head);
    for (int i = 0; i < n; i++) {
        qr_buf_puts(&b, term);
        qr_buf_puts(&b, op);
    }
    qr_buf_puts(&b, last);
    qr_buf_puts(&b, tail);
    return qr_buf_detach(&b, NULL);
}

static void *long_chains(void *unused)
{
    (void)unused;
    EXPECT(P "SELECT ?x { ?x :name ?n } ORDER BY ?x", "?x\n<http://e/a>\n<http://e/b>\n");
    char *q = chain_query("SELECT ((", "1", " + ", "1", ") AS ?n) {}", 20000);
    char *got = run(q, NULL);
    CHECK_STR(got, "?n\n20001\n");
    free(got);
    free(q);
    q = chain_query("PREFIX : <http://e/> SELECT ?x { ?x :name ?n FILTER(", "?x = :zz", " || ",
                    "?x = :a", ") }", 20000);
    got = run(q, NULL);
    CHECK_STR(got, "?x\n<http://e/a>\n");
    free(got);
    free(q);
    q = chain_query("PREFIX : <http://e/> SELECT ?x { ?x :name ?n FILTER(", "true", " && ",
                    "?x = :b", ") }", 20000);
    got = run(q, NULL);
    CHECK_STR(got, "?x\n<http://e/b>\n");
    free(got);
    free(q);
    q = chain_query("PREFIX : <http://e/> SELECT ?x (SUM(", "1", " * ", "1", ") AS ?s) "
                    "{ ?x :name ?n } GROUP BY ?x ORDER BY ?x", 20000);
    got = run(q, NULL);
    CHECK_STR(got, "?x\t?s\n<http://e/a>\t1\n<http://e/b>\t1\n");
    free(got);
    free(q);
    /* a chain keeps the left-to-right meaning of the tree it replaces, errors included */
    EXPECT("SELECT ((10 - 2 - 3) AS ?v) ((2 * 3 / 4 - 1) AS ?w) {}", "?v\t?w\n5\t0.5\n");
    EXPECT("SELECT ?v { BIND(1 AS ?v) FILTER(?nope || ?v = 1 || ?nope) }", "?v\n1\n");
    EXPECT("SELECT ?v { BIND(1 AS ?v) FILTER(?nope || ?v = 2) }", "?v\n");
    EXPECT("SELECT ?v { BIND(1 AS ?v) FILTER(!(?nope && ?v = 2)) }", "?v\n1\n");
    EXPECT("SELECT ?v { BIND(1 AS ?v) FILTER(!(?nope && ?v = 1)) }", "?v\n");
    return NULL;
}

int main(void)
{
    store = qr_sparql_store_new();
    CHECK(store != NULL);
    add("http://e/a", "http://e/calls", "http://e/b", false);
    add("http://e/b", "http://e/calls", "http://e/c", false);
    add("http://e/c", "http://e/calls", "http://e/a", false);
    add("http://e/a", "http://e/name", "main", true);
    add("http://e/b", "http://e/name", "helper", true);
    CHECK(qr_sparql_store_size(store) == 5);
    {
        pthread_attr_t at;
        pthread_t th;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 256u << 10);
        CHECK(pthread_create(&th, &at, long_chains, NULL) == 0);
        pthread_join(th, NULL);
        pthread_attr_destroy(&at);
    }

    /* refusals: by the parsed form, never by the first word */
    EXPECT("PREFIX : <http://e/> INSERT DATA { :a :b :c }",
           "ERR 2 read-only: INSERT DATA is an update");
    EXPECT("# SELECT\n BASE <http://e/> DELETE WHERE { ?s ?p ?o }",
           "ERR 2 read-only: DELETE WHERE is an update");
    EXPECT("\\u0049NSERT DATA { <a:b> <a:c> <a:d> }", "ERR 2 read-only: INSERT DATA is an update");
    EXPECT_PREFIX("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "ERR 2 CONSTRUCT is not supported");
    EXPECT_PREFIX("DESCRIBE <http://e/a>", "ERR 2 DESCRIBE is not supported");
    EXPECT_PREFIX("SELECT * { SERVICE <http://x/> { ?s ?p ?o } }", "ERR 2 SERVICE is not supported");
    EXPECT_PREFIX("SELECT * { { CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } } }", "ERR 1 ");
    EXPECT_PREFIX("SELECT ?x WHERE { ?x :p ?y }", "ERR 1 unknown prefix ':'");
    EXPECT_PREFIX("SELECT ?x (COUNT(*) AS ?n) { ?x ?p ?o }", "ERR 1 variable '?x' is projected but is not grouped");

    /* evaluation */
    EXPECT(P "SELECT ?n { ?x :name ?n } ORDER BY ?n", "?n\n\"helper\"\n\"main\"\n");
    EXPECT(P "SELECT ?y { :a :calls+ ?y } ORDER BY ?y",
           "?y\n<http://e/a>\n<http://e/b>\n<http://e/c>\n");
    EXPECT(P "SELECT (COUNT(*) AS ?n) { ?x :calls/:calls ?y }", "?n\n3\n");
    EXPECT(P "SELECT ?x { ?x :calls ?y FILTER NOT EXISTS { ?x :name ?n } }", "?x\n<http://e/c>\n");
    EXPECT(P "SELECT ?x ?n { ?x :calls ?y OPTIONAL { ?x :name ?n } } ORDER BY ?x",
           "?x\t?n\n<http://e/a>\t\"main\"\n<http://e/b>\t\"helper\"\n<http://e/c>\t\n");
    EXPECT(P "SELECT ?x { ?x :calls ?y MINUS { ?x :name \"main\" } } ORDER BY ?x",
           "?x\n<http://e/b>\n<http://e/c>\n");
    EXPECT(P "SELECT ?u { ?x :name ?n BIND(UCASE(?n) AS ?u) FILTER REGEX(?n, '^m') }",
           "?u\n\"MAIN\"\n");
    EXPECT(P "SELECT ?v { VALUES ?v { 1 2 } } ORDER BY DESC(?v) LIMIT 1", "?v\n2\n");
    EXPECT(P "ASK { :a :calls :b }", "?_askResult\ntrue\n");
    EXPECT(P "SELECT ?s { { SELECT ?s (COUNT(?o) AS ?c) { ?s :calls ?o } GROUP BY ?s } "
             "FILTER(?c = 1) } ORDER BY ?s LIMIT 1",
           "?s\n<http://e/a>\n");

    /* limits end a runaway with a typed error */
    qr_sparql_limits lim = {0};
    lim.max_rows = 2;
    char *got = run(P "SELECT * { ?s ?p ?o }", &lim);
    CHECK(!strncmp(got, "ERR 3 row limit reached", 23));
    free(got);
    qr_req stop;
    qr_req_init(&stop, NULL);
    qr_req_cancel(&stop);
    qr_sparql_limits lim2 = {0};
    lim2.stop = &stop.stop;
    got = run(P "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o }", &lim2);
    CHECK_STR(got, "ERR 3 the query was stopped: cancelled");
    free(got);
    qr_sparql_limits lim3 = {0};
    lim3.max_memory = 1 << 16;
    got = run(P "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o }", &lim3);
    CHECK(!strncmp(got, "ERR 3 memory limit reached", 26));
    free(got);

    /* Turtle through libserd, and a bad file */
    qr_sparql_error err;
    const char *ttl = "@prefix : <http://f/> . :x :p \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .";
    CHECK(qr_sparql_store_load_text(store, ttl, strlen(ttl), "turtle", "http://g/", NULL, &err) == QR_OK);
    EXPECT("SELECT ?v { GRAPH <http://g/> { ?s ?p ?v } }", "?v\n1\n");
    const char *bad = "<http://a> <http://b> .";
    CHECK(qr_sparql_store_load_text(store, bad, strlen(bad), "ntriples", NULL, NULL, &err) == QR_EINVAL);
    CHECK(err.kind == QR_SPARQL_INPUT);

    qr_sparql_store_free(store);

    /* the code graph adapter: a small graph fed as src/code assembles it */
    store = qr_sparql_store_new();
    qr_sparql_code_builder *cb = qr_sparql_code_begin(store);
    CHECK(cb != NULL);
    CHECK(qr_sparql_code_add_file(cb, "src/main.c", "c", 40) == QR_OK);
    CHECK(qr_sparql_code_add_file(cb, "src/util.h", "c", 10) == QR_OK);
    qr_sparql_code_node nodes[] = {
        {.kind = "function", .name = "main", .file = "src/main.c", .line = 3, .end_line = 20},
        {.kind = "function", .name = "helper", .file = "src/main.c", .line = 22, .end_line = 30,
         .is_static = true},
        {.kind = "function", .name = "unused", .file = "src/main.c", .line = 32, .end_line = 34,
         .is_static = true},
        {.kind = "struct", .name = "point", .file = "src/util.h", .line = 1, .end_line = 4},
        {.kind = "member", .name = "x", .parent = "point", .type = "int", .file = "src/util.h",
         .line = 2, .end_line = 2},
        {.kind = "function", .name = "helper", .file = "src/main.c", .line = 36, .end_line = 37,
         .is_static = true, .inactive = true},
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        CHECK(qr_sparql_code_add_node(cb, &nodes[i]) == QR_OK);
    qr_sparql_code_edge edges[] = {
        {.kind = "calls", .from = 0, .to = 1, .file = "src/main.c", .line = 5},
        {.kind = "calls", .from = 0, .to = -1, .to_key = "printf", .file = "src/main.c", .line = 6},
        {.kind = "calls", .from = 1, .to = 1, .file = "src/main.c", .line = 25},
        {.kind = "includes", .from = -1, .to = -1, .from_key = "src/main.c",
         .to_key = "src/util.h", .file = "src/main.c", .line = 1},
        {.kind = "includes", .from = -1, .to = -1, .from_key = "src/main.c",
         .to_key = "<stdio.h>", .file = "src/main.c", .line = 2},
        {.kind = "member_of", .from = 4, .to = 3, .file = "src/util.h", .line = 2},
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        CHECK(qr_sparql_code_add_edge(cb, &edges[i]) == QR_OK);
    CHECK(qr_sparql_code_end(cb) == QR_OK);
#define C "PREFIX code: <https://quarry.dev/code#> "
    EXPECT(C "SELECT ?n { ?f code:calls ?g . ?g code:name \"helper\" . ?f code:name ?n } ORDER BY ?n",
           "?n\n\"helper\"\n\"main\"\n");
    EXPECT(C "SELECT ?n { ?f a code:Function ; code:static true ; code:name ?n "
             "FILTER NOT EXISTS { ?g code:calls ?f } FILTER NOT EXISTS { ?f code:inactive true } }",
           "?n\n\"unused\"\n");
    EXPECT(C "SELECT ?h { ?f code:path \"src/main.c\" ; code:includes ?x . ?x code:name ?h } ORDER BY ?h",
           "?h\n\"<stdio.h>\"\n\"util.h\"\n");
    EXPECT(C "SELECT ?l ?e { ?f code:callSite ?c . ?c code:callee ?x . ?x a code:External ; "
             "code:name ?e . ?c code:line ?l }",
           "?l\t?e\n6\t\"printf\"\n");
    EXPECT(C "SELECT ?t { ?m code:memberOf ?s . ?s code:name \"point\" . ?m code:type ?t }",
           "?t\n\"int\"\n");
    EXPECT(C "SELECT (COUNT(*) AS ?n) { ?f code:name \"helper\" ; a code:Function }", "?n\n2\n");
    EXPECT(C "SELECT ?f { ?f code:name \"helper\" ; code:inactive true }",
           "?f\n<https://quarry.dev/code/function/src/main.c#helper@36>\n");
    qr_sparql_store_free(store);
    CHECK_DONE();
}
