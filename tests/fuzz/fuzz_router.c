/*
 * fuzz_router.c: libFuzzer harness for the tier-1 question router: any text either
 * matches no rule or yields a query that the query compiler accepts with no problems
 * (a matched question whose query is invalid would be a wrong answer, so it aborts).
 */
#include "quarry/query.h"
#include "quarry/router.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qr_tools *tools;
    if (!tools && !(tools = qr_tools_default()))
        abort();
    qr_route r;
    if (!qr_router_match((const char *)data, size, &r))
        return 0;
    if (!r.query || !r.rule || !r.explain)
        abort();
    qr_query_opts o;
    qr_query_opts_init(&o, tools);
    qr_query_compiled c;
    int rc = qr_query_compile(&o, r.query, strlen(r.query), &c);
    if (rc != QR_OK && rc != QR_ENOMEM)
        abort();
    qr_query_compiled_clear(&c);
    qr_route_clear(&r);
    return 0;
}
