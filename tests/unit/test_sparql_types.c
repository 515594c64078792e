/*
 * test_sparql_types.c: issue 28 at the API: exact integers and decimals beyond 64 bits,
 * dates against dateTimes, Unicode case mapping, regex errors and limits, the named BOM
 * and NUL bytes, the budget over parsing (a stop ends a 100,000-projection parse), the
 * memory cap over what a query makes (a string-doubling BIND), and top-k ORDER BY agreeing
 * with the full sort on every LIMIT/OFFSET window.
 */
#include "check.h"

#include "quarry/sparql.h"

#include <stdlib.h>
#include <string.h>

static qr_sparql_store *store;

/* runs q under lim (NULL: none); the TSV, or "ERR <kind> <message>" (malloc'd) */
static char *run(const char *q, const qr_sparql_limits *lim)
{
    qr_sparql_query *pq;
    qr_sparql_error err;
    qr_buf b;
    qr_buf_init(&b);
    qr_sparql_limits none = {0};
    if (qr_sparql_prepare_limited(q, strlen(q), NULL, lim, &pq, &err)) {
        qr_buf_printf(&b, "ERR %d %s", err.kind, err.msg);
        return qr_buf_detach(&b, NULL);
    }
    qr_sparql_result *r;
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

#define X "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "

#define EXPECT(q, want)                                                                      \
    do {                                                                                     \
        char *got_ = run(q, NULL);                                                           \
        CHECK_STR(got_, want);                                                               \
        free(got_);                                                                          \
    } while (0)

/* the answer contains `part` (error messages: the subject they must name) */
#define EXPECT_HAS(q, lim, part)                                                             \
    do {                                                                                     \
        char *got_ = run(q, lim);                                                            \
        if (!strstr(got_, part)) {                                                           \
            fprintf(stderr, "%s:%d: expected \"%s\" in \"%s\"\n", __FILE__, __LINE__, part,  \
                    got_);                                                                   \
            check_failures++;                                                                \
        }                                                                                    \
        free(got_);                                                                          \
    } while (0)

static void add_int(int i, int v)
{
    char s[64], o[32];
    snprintf(s, sizeof s, "http://e/r%d", i);
    snprintf(o, sizeof o, "%d", v);
    qr_sparql_term ts = {QR_SPARQL_IRI, s, strlen(s), NULL, NULL};
    qr_sparql_term tp = {QR_SPARQL_IRI, "http://e/v", 10, NULL, NULL};
    qr_sparql_term to = {QR_SPARQL_LITERAL, o, strlen(o),
                         "http://www.w3.org/2001/XMLSchema#integer", NULL};
    CHECK(qr_sparql_store_add(store, NULL, &ts, &tp, &to) == QR_OK);
}

int main(void)
{
    store = qr_sparql_store_new();
    CHECK(store != NULL);
    /* 1000 rows whose values repeat (ties), in an order unrelated to their value */
    for (int i = 0; i < 1000; i++)
        add_int(i, (i * 7919) % 97);

    /* numbers: exact beyond 64 bits and 15 digits */
    EXPECT("ASK { FILTER(99999999999999999999 = 99999999999999999998) }", "?_askResult\nfalse\n");
    EXPECT("SELECT (12345678901234567890123 - 12345678901234567890120 AS ?d) {}", "?d\n3\n");
    EXPECT("SELECT (9223372036854775807 + 1 AS ?d) {}", "?d\n9223372036854775808\n");
    EXPECT("SELECT (-9223372036854775807 - 2 AS ?d) {}", "?d\n-9223372036854775809\n");
    EXPECT("SELECT (1 / 3 AS ?d) {}", "?d\n0.333333333333333333\n");
    EXPECT("SELECT (1 / 3000000 AS ?d) {}", "?d\n0.000000333333333333333333\n");
    EXPECT("SELECT (AVG(?x) AS ?a) { VALUES ?x { 1 2 2 } }", "?a\n1.666666666666666666\n");
    EXPECT("ASK { FILTER(0.1 + 0.2 = 0.3) }", "?_askResult\ntrue\n");
    EXPECT("SELECT (0.1 * 3 AS ?d) (1.50 + 1 AS ?e) (2.0 - 2 AS ?f) {}", "?d\t?e\t?f\n0.3\t2.5\t0.0\n");
    EXPECT(X "SELECT (xsd:integer(\"99999999999999999999\") AS ?d) {}", "?d\n99999999999999999999\n");
    EXPECT("SELECT (FLOOR(-2.5) AS ?a) (CEIL(-2.5) AS ?b) (ROUND(-2.5) AS ?c) (ABS(-99999999999999999999) AS ?d) {}",
           "?a\t?b\t?c\t?d\n-3.0\t-2.0\t-2.0\t99999999999999999999\n");
    EXPECT(X "SELECT (STR(1.0) AS ?s) (xsd:string(12345678901234567890.50) AS ?t) {}",
           "?s\t?t\n\"1.0\"\t\"12345678901234567890.5\"\n");

    /* dates: an xsd:date against an xsd:dateTime is a type error; impossible dates fail */
    EXPECT(X "SELECT (COALESCE(\"2024-03-01\"^^xsd:date < \"2024-03-02T00:00:00\"^^xsd:dateTime, \"err\") AS ?x) {}",
           "?x\n\"err\"\n");
    EXPECT(X "SELECT (COALESCE(xsd:dateTime(\"2024-02-30T00:00:00\"), \"err\") AS ?x) {}", "?x\n\"err\"\n");
    EXPECT(X "SELECT (COALESCE(xsd:dateTime(\"2024-02-29T24:00:00\"), \"err\") AS ?x) {}",
           "?x\n\"2024-02-29T24:00:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>\n");
    EXPECT(X "SELECT (COALESCE(xsd:dateTime(\"2024-02-29T24:00:01\"), \"err\") AS ?x) {}", "?x\n\"err\"\n");

    /* Unicode case mapping, full (SpecialCasing) */
    EXPECT("SELECT (UCASE(\"émile straße\") AS ?u) (LCASE(\"ÉCOLE\") AS ?l) {}",
           "?u\t?l\n\"ÉMILE STRASSE\"\t\"école\"\n");

    /* regexes: an invalid one names itself; a catastrophic one stops at its limit */
    EXPECT_HAS("SELECT * { FILTER(REGEX(\"a\", \"(((\")) }", NULL, "ERR 1 invalid regular expression '((('");
    EXPECT_HAS("SELECT * { FILTER(REGEX(\"a\", \"a\", \"k\")) }", NULL, "flags 'k'");
    EXPECT_HAS("SELECT * { FILTER(REGEX(\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\", \"^(a|aa)+$\")) }",
               NULL, "ERR 3 regular expression '^(a|aa)+$' hit its backtracking limit");

    /* bytes that print as nothing are named */
    EXPECT_HAS("\xEF\xBB\xBFSELECT * {}", NULL, "byte order mark (U+FEFF");
    {
        qr_sparql_query *pq = NULL;
        qr_sparql_error err;
        CHECK(qr_sparql_prepare("SELECT * {\0}", 12, NULL, &pq, &err) == QR_EINVAL);
        CHECK(strstr(err.msg, "NUL byte (0x00)") != NULL);
        CHECK(err.line == 1 && err.col == 11);
    }

    /* the budget covers parsing: a stop ends a 100,000-projection parse, which otherwise
     * parses (the variables are hashed: linear) */
    {
        qr_buf q;
        qr_buf_init(&q);
        qr_buf_puts(&q, "SELECT");
        for (int i = 0; i < 100000; i++)
            qr_buf_printf(&q, " (%d AS ?v%d)", i, i);
        qr_buf_puts(&q, " {}");
        CHECK(!q.failed);
        qr_stop stop;
        qr_stop_init(&stop, 0);
        qr_stop_request(&stop);
        qr_sparql_limits lim = {.stop = &stop};
        qr_sparql_query *pq = NULL;
        qr_sparql_error err;
        CHECK(qr_sparql_prepare_limited(q.p, q.len, NULL, &lim, &pq, &err) == QR_ESTOPPED);
        CHECK(err.kind == QR_SPARQL_LIMIT);
        CHECK_STR(err.msg, "the query was stopped while parsing");
        CHECK(pq == NULL);
        CHECK(qr_sparql_prepare_limited(q.p, q.len, NULL, NULL, &pq, &err) == QR_OK);
        qr_sparql_query_free(pq);
        qr_buf_release(&q);
    }

    /* the memory cap counts the strings and terms a query makes: a string doubling 30
     * times (16 GB) stops at an 8 MB cap */
    {
        qr_buf q;
        qr_buf_init(&q);
        qr_buf_puts(&q, "SELECT (STRLEN(?a30) AS ?n) { BIND(\"xxxxxxxxxxxxxxxx\" AS ?a0)");
        for (int i = 1; i <= 30; i++)
            qr_buf_printf(&q, " BIND(CONCAT(?a%d, ?a%d) AS ?a%d)", i - 1, i - 1, i);
        qr_buf_puts(&q, " }");
        qr_sparql_limits lim = {.max_memory = 8u << 20};
        EXPECT_HAS(q.p, &lim, "ERR 3 memory limit reached (8388608 bytes)");
        qr_buf_release(&q);
    }

    /* top-k ORDER BY + LIMIT/OFFSET gives the window of the full stable sort */
    {
        char *full = run("SELECT ?r ?v { ?r <http://e/v> ?v } ORDER BY DESC(?v)", NULL);
        CHECK(full != NULL && strncmp(full, "ERR", 3));
        static const int windows[][2] = {{0, 1}, {0, 10}, {5, 10}, {37, 20}, {0, 499}, {490, 9}};
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            char q[160];
            snprintf(q, sizeof q,
                     "SELECT ?r ?v { ?r <http://e/v> ?v } ORDER BY DESC(?v) OFFSET %d LIMIT %d",
                     windows[w][0], windows[w][1]);
            char *got = run(q, NULL);
            /* the expected window: header, then lines offset+1 .. offset+limit of full */
            qr_buf want;
            qr_buf_init(&want);
            const char *line = full;
            for (int ln = 0; *line; ln++) {
                const char *nl = strchr(line, '\n');
                size_t n = (size_t)(nl - line) + 1;
                if (ln == 0 || (ln > windows[w][0] && ln <= windows[w][0] + windows[w][1]))
                    qr_buf_append(&want, line, n);
                line += n;
            }
            CHECK_STR(got, want.p);
            free(got);
            qr_buf_release(&want);
        }
        free(full);
    }

    /* correlated EXISTS and MINUS keep their meaning */
    EXPECT("SELECT (COUNT(*) AS ?n) { ?r <http://e/v> ?v FILTER EXISTS { ?s <http://e/v> ?v FILTER(?s != ?r) } }",
           "?n\n1000\n");
    EXPECT("SELECT (COUNT(*) AS ?n) { ?r <http://e/v> ?v FILTER NOT EXISTS { ?s <http://e/v> ?w FILTER(?w > ?v) } }",
           "?n\n10\n");
    EXPECT("SELECT (COUNT(*) AS ?n) { ?r <http://e/v> ?v MINUS { ?r <http://e/v> 0 } }", "?n\n989\n");
    qr_sparql_store_free(store);
    CHECK_DONE();
}
