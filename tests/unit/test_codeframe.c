/* test_codeframe.c: search_codebase's frame reader (src/agents/codeframe.c): a question
 * becomes relation x subject x filters whatever the wording; the side of the verb the
 * subject stands on gives the direction; what makes no single frame is refused. */
#include "agents/codeframe.h"
#include "check.h"

#include <string.h>

typedef struct want {
    const char *q;
    cf_rel rel;
    const char *subject;
    const char *in;
    int flags; /* 1 static, 2 transitive, 4 inactive, 8 headers, 16 count, 32 sources */
} want;

/* names the "index" holds: a word that is one is never read as a typo of a frame word */
static bool known(void *ud, const char *w)
{
    (void)ud;
    return !strcmp(w, "calloc") || !strcmp(w, "parse");
}

int main(void)
{
    static const want ok[] = {
        {"who calls parse", CF_CALLERS, "parse", "", 0},
        {"what calls serverLog", CF_CALLERS, "serverLog", "", 0},
        {"callers of `parse_line()`", CF_CALLERS, "parse_line", "", 0},
        {"parse_line's callers", CF_CALLERS, "parse_line", "", 0},
        {"where is parse_line called from?", CF_CALLERS, "parse_line", "", 0},
        {"which functions in ae.c call zmalloc", CF_CALLERS, "zmalloc", "ae.c", 0},
        {"what calls zmalloc from sds.c", CF_CALLERS, "zmalloc", "sds.c", 0},
        {"everything that eventually calls xmalloc", CF_CALLERS, "xmalloc", "", 2},
        {"callrs of parse_line", CF_CALLERS, "parse_line", "", 0},
        {"every caller of parse_line across the tree", CF_CALLERS, "parse_line", "", 0},
        {"which functions call themselves recursively", CF_RECURSIVE, "", "", 0},
        {"functions whose names start with kv_", CF_LIST, "kv_*", "", 0},
        {"functions in src/main.c with line numbers", CF_LIST, "", "src/main.c", 0},
        {"what does src/main.c define", CF_LIST, "", "src/main.c", 0},
        {"who calls parse_line recursively", CF_CALLERS, "parse_line", "", 2},
        {"what does main call", CF_CALLEES, "main", "", 0},
        {"what is called by main", CF_CALLEES, "main", "", 0},
        {"what functions are called from main", CF_CALLEES, "main", "", 0},
        {"what does main in src/main.c call", CF_CALLEES, "main", "src/main.c", 0},
        {"what does main call, including disabled code", CF_CALLEES, "main", "", 4},
        {"callees of http_handle", CF_CALLEES, "http_handle", "", 0},
        {"what files include server.h", CF_INCLUDERS, "server.h", "", 0},
        {"which files #include <stdio.h>", CF_INCLUDERS, "stdio.h", "", 0},
        {"where is backend.c included", CF_INCLUDERS, "backend.c", "", 0},
        {"which headers include zmalloc.h", CF_INCLUDERS, "zmalloc.h", "", 8},
        {"what does src/main.c include", CF_INCLUDES, "src/main.c", "", 0},
        {"dependencies of anet.c", CF_INCLUDES, "anet.c", "", 0},
        {"includes of lib/hash.c", CF_INCLUDES, "lib/hash.c", "", 0},
        {"what does intset.c depend on", CF_INCLUDES, "intset.c", "", 0},
        {"headers included by anet.c", CF_INCLUDES, "anet.c", "", 0},
        {"where is strbuf_append defined", CF_DEFINITION, "strbuf_append", "", 0},
        {"in which file is sock_open", CF_DEFINITION, "sock_open", "", 0},
        {"where's the MAX_LINE macro", CF_DEFINITION, "MAX_LINE", "", 0},
        /* the structs with a member of that name */
        {"which struct has a field named maxstack?", CF_FIELD, "maxstack", "", 0},
        {"nCcalls is a field of which struct?", CF_FIELD, "nCcalls", "", 0},
        {"which structs have a member called stack", CF_FIELD, "stack", "", 0},
        {"static functions nobody calls", CF_UNUSED, "", "", 1},
        {"functions with no callers", CF_UNUSED, "", "", 0},
        {"which functions aren't called anywhere", CF_UNUSED, "", "", 0},
        {"functions no one calls", CF_UNUSED, "", "", 0},
        {"list every function that is never invoked in src/", CF_UNUSED, "", "src/", 0},
        {"which includes does src/cli.c have", CF_INCLUDES, "src/cli.c", "", 0},
        {"which calls does kv_put make", CF_CALLEES, "kv_put", "", 0},
        {"callers of hash_bytes two levels deep", CF_CALLERS, "hash_bytes", "", 0},
        {"which functions are not called by anyone", CF_UNUSED, "", "", 0},
        {"which files pull in log.h", CF_INCLUDERS, "log.h", "", 0},
        {"what functions get called in kv_put", CF_CALLEES, "kv_put", "", 0},
        {"how many functions does src/wal.c have", CF_COUNT, "src/wal.c", "", 0},
        {"which functions in ae.c are never called?", CF_UNUSED, "", "ae.c", 0},
        {"dead code in src/net", CF_UNUSED, "", "src/net", 0},
        {"unused functions of adlist.c", CF_UNUSED, "", "adlist.c", 0},
        {"functions in adlist.c", CF_LIST, "", "adlist.c", 0},
        {"ae.c functions", CF_LIST, "", "ae.c", 0},
        {"which functions are static", CF_LIST, "", "", 1},
        {"how many functions are defined under src/", CF_COUNT, "src/", "", 0},
        {"how many static functions are in server.c", CF_COUNT, "server.c", "", 1},
        /* the name said first and taken up by "it" */
        {"parse_line -- who uses it?", CF_CALLERS, "parse_line", "", 0},
        {"kv_put: what does it call", CF_CALLEES, "kv_put", "", 0},
        /* a name with a part: *part* */
        {"list all functions with base64 in the name", CF_LIST, "*base64*", "", 0},
        {"functions whose name contains hash", CF_LIST, "*hash*", "", 0},
        {"show all #defines in src/x.h", CF_LIST, "", "src/x.h", 0},
        /* rankings */
        {"what are the 5 longest functions?", CF_LONGEST, "", "", 0},
        {"functions that end with _free in src/x.c", CF_LIST, "*_free", "src/x.c", 0},
        {"where do we define kv_put", CF_DEFINITION, "kv_put", "", 0},
        {"what is kv_put", CF_DEFINITION, "kv_put", "", 0},
        {"show the #include list of src/x.c", CF_INCLUDES, "src/x.c", "", 0},
        {"what's kv_put?", CF_DEFINITION, "kv_put", "", 0},
        {"which functions directly or indirectly call kv_put", CF_CALLERS, "kv_put", "", 2},
        {"biggest functions in src/", CF_LONGEST, "", "src/", 0},
        {"which three headers are included most often?", CF_MOST_INCLUDED, "", "", 0},
        {"most included headers", CF_MOST_INCLUDED, "", "", 0},
        {"how many callers does parse_line have", CF_CALLERS, "parse_line", "", 16},
        {"number of functions calling parse_line", CF_CALLERS, "parse_line", "", 16},
        {"which .c files include util.h", CF_INCLUDERS, "util.h", "", 32},
        {"how many files include util.h", CF_INCLUDERS, "util.h", "", 16},
        {"where is the kv_table type defined", CF_DEFINITION, "kv_table", "", 0},
        {"which .h files include util.h", CF_INCLUDERS, "util.h", "", 8},
        /* an aside that says one step overrides "end up"; "directly or indirectly" does not */
        {"what does kv_put end up calling (direct calls only)", CF_CALLEES, "kv_put", "", 0},
        {"what does kv_put eventually call", CF_CALLEES, "kv_put", "", 2},
        {"public (non-static) functions in util.c", CF_LIST, "", "util.c", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cf_frame f;
        bool r = qr__codeframe_read(ok[i].q, &f, known, NULL);
        CHECK(r);
        if (!r) {
            fprintf(stderr, "  not read: %s\n", ok[i].q);
            continue;
        }
        CHECK(f.rel == ok[i].rel);
        CHECK_STR(f.subject, ok[i].subject);
        CHECK_STR(f.in, ok[i].in);
        int flags = (f.statics ? 1 : 0) | (f.transitive ? 2 : 0) | (f.inactive ? 4 : 0) |
                    (f.headers ? 8 : 0) | (f.count ? 16 : 0) | (f.sources ? 32 : 0);
        CHECK(flags == ok[i].flags);
        CHECK(f.nonstatic == (strstr(ok[i].q, "non-static") != NULL));
        if (f.rel != ok[i].rel || flags != ok[i].flags)
            fprintf(stderr, "  misread: %s (rel %d flags %d)\n", ok[i].q, f.rel, flags);
    }
    /* no single frame: declined, never guessed */
    static const char *const no[] = {
        "most called functions",            /* a ranking of calls: not read here */
        "does parse_line call kv_put and kv_get", /* three names */
        "what does parse_line call and who calls it", /* two questions */
        "who calls both zmalloc and zfree", /* two names */
        "what does parse_line depend on",   /* include words need a file */
        "how does aeMain work",
        "who wrote ae.c",
        "which function calls aeMain the most",
        "what does ae.c include besides ae.h",
        "functions that call no other function", /* a negation after the verb */
        "functions that don't call anything",    /* a negated active verb */
        "which functions never call malloc",
        "what does main call that is static", /* a filter callees cannot apply */
        "which macros call parse_line",
        "how many callers of parse_line call kv_put", /* a count of a filtered list */
        "which functions reference parse_line",  /* a reference is not a call */
        "top 5 callers of parse_line",           /* a number with no depth word */
        "callers of parse_line 20 levels deep",  /* past the depth this reader runs */
        "x\" } } INSERT DATA { <a:a> <a:b> <a:c> } #",
        "",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        cf_frame f;
        bool r = qr__codeframe_read(no[i], &f, known, NULL);
        CHECK(!r);
        if (r)
            fprintf(stderr, "  read, should not be: %s (rel %d)\n", no[i], f.rel);
    }
    /* whether one call is there: X's callees named Y, or X's callers named Y */
    cf_frame y;
    CHECK(qr__codeframe_read("does parse_line ever call kv_put", &y, known, NULL) &&
          y.rel == CF_CALLEES && !strcmp(y.subject, "parse_line") && !strcmp(y.only, "kv_put"));
    CHECK(qr__codeframe_read("is kv_put called by parse_line?", &y, known, NULL) &&
          y.rel == CF_CALLERS && !strcmp(y.subject, "kv_put") && !strcmp(y.only, "parse_line"));
    CHECK(qr__codeframe_read("what are the 5 longest functions", &y, known, NULL) &&
          y.limit == 5);
    CHECK(qr__codeframe_read("which three headers are included most often", &y, known, NULL) &&
          y.limit == 3);
    CHECK(qr__codeframe_read("the longest function", &y, known, NULL) && y.limit == 1);
    CHECK(qr__codeframe_read("what functions call kv_put, and what calls those", &y, known,
                             NULL) &&
          y.rel == CF_CALLERS && y.depth == 2);
    CHECK(qr__codeframe_read("callers of the callers of kv_put", &y, known, NULL) &&
          y.rel == CF_CALLERS && y.depth == 2);
    cf_frame d;
    CHECK(qr__codeframe_read("what does kv_open call, 2 levels deep", &d, known, NULL) &&
          d.rel == CF_CALLEES && d.depth == 2 && !d.transitive);
    /* a name the index holds is never a typo of a frame word ("calloc" is not "callers") */
    cf_frame f;
    CHECK(qr__codeframe_read("callers of calloc", &f, known, NULL) && f.rel == CF_CALLERS);
    CHECK_STR(f.subject, "calloc");
    CHECK(!qr__codeframe_read("calloc parse", &f, known, NULL));
    CHECK_DONE();
}
