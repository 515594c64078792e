/*
 * fuzz_sparql.c: libFuzzer harness for the SPARQL parser and evaluator. The input is a
 * query; when it parses and is read-only it runs over a small fixed graph under tight
 * limits (time, rows, memory), so runaway paths and joins end with an error, never a hang.
 */
#include "quarry/sparql.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static qr_sparql_store *fixture(void)
{
    static qr_sparql_store *st;
    if (st)
        return st;
    st = qr_sparql_store_new();
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
    if (qr_sparql_prepare((const char *)data, size, "http://base/", &q, &err))
        return 0;
    qr_sparql_limits lim = {0};
    lim.timeout_ms = 500;
    lim.max_rows = 10000;
    lim.max_memory = 32u << 20;
    qr_sparql_result *r;
    if (qr_sparql_exec(fixture(), q, &lim, &r, &err) == QR_OK) {
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
