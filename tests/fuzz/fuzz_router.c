/*
 * fuzz_router.c: libFuzzer harness for the tier-1 question router: any text either
 * matches no rule or yields a query that the query compiler accepts with no problems
 * (a matched question whose query is invalid would be a wrong answer, so it aborts).
 */
#include "quarry/query.h"
#include "quarry/router.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A repository with releases jq-1.7 and jq-1.8.0 and one person "zed", so that tags,
 * exclusions and the nearest release of a missing one are read too. */
static bool fz_release(void *ud, const char *version, char *out, size_t cap)
{
    (void)ud;
    if (!strcmp(version, "1.7"))
        snprintf(out, cap, "jq-1.7");
    else if (!strcmp(version, "1.8.0") || !strcmp(version, "1.8"))
        snprintf(out, cap, "jq-1.8.0 jq-1.7");
    else if (!strcmp(version, "3.6a")) /* TAG PREV BEFORE NEXT, as the host answers */
        snprintf(out, cap, "3.6a 3.6 3.6 3.6b");
    else if (!strcmp(version, "3.7"))
        snprintf(out, cap, "3.7 3.6a 3.6b -");
    else {
        snprintf(out, cap, "~jq-1.8.0");
        return false;
    }
    return true;
}

static bool fz_author(void *ud, const char *name, char *out, size_t cap)
{
    (void)ud;
    if (strcmp(name, "zed"))
        return false;
    snprintf(out, cap, "Zed");
    return true;
}

/* The repository's files and tags as the host says them: http.c at the root, util.c in
 * two folders, regress.c in one; the tags v1.0 and release-2.1-stable. */
static int fz_file(void *ud, const char *name, char *out, size_t cap)
{
    (void)ud;
    if (!strcmp(name, "http.c")) {
        snprintf(out, cap, "http.c");
        return 1;
    }
    if (!strcmp(name, "regress.c")) {
        snprintf(out, cap, "test/regress.c");
        return 1;
    }
    if (!strcmp(name, "util.c")) {
        snprintf(out, cap, "a/util.c, b/util.c");
        return 2;
    }
    return strchr(name, '/') && strlen(name) % 2 ? 1 : 0;
}

static bool fz_tag(void *ud, const char *name, char *out, size_t cap)
{
    (void)ud;
    if (!strcmp(name, ":latest") || !strcmp(name, ":previous")) {
        snprintf(out, cap, "%s", name[1] == 'l' ? "3.7" : "3.6a");
        return true;
    }
    if (strcmp(name, "v1.0") && strcmp(name, "release-2.1-stable") && strcmp(name, "3.7") &&
        strcmp(name, "3.6a"))
        return false;
    snprintf(out, cap, "%s", name);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qr_tools *tools;
    if (!tools && !(tools = qr_tools_default()))
        abort();
    char why[256];
    qr_router_opts ro = {.now = 1795483800, .author = fz_author, .release = fz_release,
                         .file = fz_file, .tag = fz_tag, .project = "tmux", .why = why,
                         .why_cap = sizeof why};
    /* with no knowledge of the repository, then with some */
    for (int pass = 0; pass < 2; pass++) {
        qr_route r;
        if (!qr_router_match_opts((const char *)data, size, pass ? &ro : NULL, &r))
            continue;
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
    }
    return 0;
}
