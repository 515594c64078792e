/*
 * codesearch.c: the search_codebase tool (seed 004, tier 2): a question about code in
 * plain words becomes SPARQL over the code graph. First a table of templates (no model):
 * the question, lower-cased and stripped of its final punctuation, is matched against
 * fixed phrasings, one of which may hold a name or a path; the name goes into the query as
 * a string literal (escaped), never as SPARQL text. Otherwise one model call: the system
 * prompt is the vocabulary with examples, fixed text so that it is byte-identical on every
 * call (the cached prefix; the Anthropic wire marks it cache_control), the question is the
 * user message, and the reply's query is parsed, checked read-only and run; when that
 * fails the error goes back once for a repair. At most two model calls per question. The
 * call, the request's budget, the token count, the repair and the trace events belong to
 * the turn module (quarry/turn.h); the trace is the one bound to the request, so a
 * search made inside `quarry ask` writes into ask's trace.
 *
 * Rejected: letting the model's text run unchecked (it is data: parsed and refused like
 * any query); embedding the question in the cached prefix (it would break the cache).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "quarry/codesearch.h"
#include "codeframe.h"
#include "quarry/code.h"
#include "quarry/date.h"
#include "quarry/tools.h"
#include "quarry/turn.h"
#include "quarry/words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PFX "PREFIX code: <https://quarry.dev/code#>\n"
/* an #include as written, under a disabled #if (?d 1) or not (?d 0) */
/* ?inactive true when ?m (the least ?d) is 1, unbound otherwise */
#define ONLY_INACTIVE "BIND(IF(?m = 1, true, ?unbound) AS ?inactive)"
#define INCLUDES_EITHER \
    "{ ?f code:includes ?h BIND(0 AS ?d) } UNION { ?f code:includesInactive ?h BIND(1 AS ?d) }"

/* ---- templates ---- */
typedef struct tmpl {
    const char *name;
    const char *const *pre;  /* phrasings before the argument (NULL-terminated) */
    const char *const *post; /* after it ("" for none) */
    bool path;               /* the argument is a file path, else an identifier */
    const char *query;       /* printf format with one %s (the escaped argument) or none */
} tmpl;

static const char *const none[] = {"", NULL};
static const char *const callers_pre[] = {"who calls ", "what calls ", "callers of ",
                                          "which functions call ", "who uses ", NULL};
static const char *const called_pre[] = {"where is ", "where's ", "where does ",
                                         "from where is ", NULL};
static const char *const called_post[] = {" called from", " called", " used", " invoked",
                                          " get called", " get called from", NULL};
static const char *const callees_pre[] = {"what does ", "which functions does ", NULL};
static const char *const callees_post[] = {" call", " calls", NULL};
static const char *const callees2_pre[] = {"callees of ", "what is called by ",
                                           "functions called by ",
                                           "what functions are called by ",
                                           "which functions are called by ",
                                           "what gets called by ", "what is called from ",
                                           NULL};
static const char *const defined_pre[] = {"where is ", "where's ", "in which file is ",
                                          "which file is ", "what file is ",
                                          "in what file is ", NULL};
static const char *const defined_post[] = {" defined", " declared", " macro defined",
                                           " function defined", " struct defined",
                                           " type defined", " in", "", NULL};
static const char *const defined2_pre[] = {"definition of ", "find the definition of ",
                                           "where can i find ", NULL};
static const char *const includes_pre[] = {"which files include ", "what includes ",
                                           "who includes ", "files that include ",
                                           "files including ", "what files include ",
                                           "which files #include ", "what files #include ",
                                           "who #includes ", "which files use ", NULL};
static const char *const deps_pre[] = {"what does ", "which headers does ",
                                       "what headers does ", "which files does ",
                                       "what files does ", NULL};
static const char *const deps_post[] = {" include", " #include", " includes",
                                        " depend on", " pull in", NULL};
static const char *const deps2_pre[] = {"includes of ", "headers included by ",
                                        "dependencies of ", "what are the dependencies of ",
                                        "what are the includes of ", "the includes of ",
                                        "headers of ", NULL};
static const char *const statics[] = {"static functions", "which functions are static",
                                      "what functions are static", "list static functions",
                                      "list the static functions", "all static functions",
                                      NULL};
static const char *const count_pre[] = {"how many functions are defined under ",
                                        "how many functions are defined in ",
                                        "how many functions are in ", "how many functions in ",
                                        "how many functions under ", "number of functions in ",
                                        "number of functions under ", "count functions in ",
                                        "count the functions in ", NULL};
static const char *const tcallers_pre[] = {"everything that eventually calls ",
                                           "what eventually calls ",
                                           "who eventually calls ",
                                           "all transitive callers of ",
                                           "transitive callers of ",
                                           "everything that calls into ",
                                           "what ends up calling ", NULL};
static const char *const structs_pre[] = {"structs defined in ", "structs in ",
                                          "what structs are defined in ",
                                          "which structs are defined in ",
                                          "list the structs in ", "structures defined in ",
                                          NULL};
static const char *const funcs_pre[] = {"functions in ", "functions of ", "list functions in ",
                                        "what functions are in ", "which functions are in ",
                                        "functions defined in ", "what functions are defined in ",
                                        "which functions are defined in ",
                                        "list the functions in ", "the functions in ",
                                        "functions declared in ", NULL};
static const char *const dead[] = {"static functions nobody calls", "unused static functions",
                                   "dead code", "dead functions", "uncalled static functions",
                                   "which static functions are never called",
                                   "static functions that are never called", NULL};
static const char *const recursive[] = {"recursive functions", "which functions are recursive",
                                        "which functions call themselves",
                                        "functions that call themselves", NULL};
static const char *const largest[] = {"largest functions", "biggest functions",
                                      "longest functions", "what are the largest functions",
                                      "which functions are the largest", NULL};
static const char *const most_inc[] = {"most included headers", "which headers are included most",
                                       "most included files", "the most included headers", NULL};

static const tmpl templates[] = {
    {"callers", callers_pre, none, false,
     PFX "SELECT DISTINCT ?caller ?file ?line WHERE {\n"
         "  ?callee code:name \"%s\" .\n"
         "  ?site code:callee ?callee ; code:line ?line .\n"
         "  ?f code:callSite ?site ; code:name ?caller ; code:file/code:path ?file .\n"
         "} ORDER BY ?file ?line"},
    {"callers", called_pre, called_post, false,
     PFX "SELECT DISTINCT ?caller ?file ?line WHERE {\n"
         "  ?callee code:name \"%s\" .\n"
         "  ?site code:callee ?callee ; code:line ?line .\n"
         "  ?f code:callSite ?site ; code:name ?caller ; code:file/code:path ?file .\n"
         "} ORDER BY ?file ?line"},
    {"callees", callees_pre, callees_post, false,
     PFX "SELECT DISTINCT ?callee ?line WHERE {\n"
         "  ?f a code:Function ; code:name \"%s\" ; code:callSite ?site .\n"
         "  ?site code:callee ?g ; code:line ?line . ?g code:name ?callee .\n"
         "} ORDER BY ?line ?callee"},
    {"callees", callees2_pre, none, false,
     PFX "SELECT DISTINCT ?callee ?line WHERE {\n"
         "  ?f a code:Function ; code:name \"%s\" ; code:callSite ?site .\n"
         "  ?site code:callee ?g ; code:line ?line . ?g code:name ?callee .\n"
         "} ORDER BY ?line ?callee"},
    {"definition", defined_pre, defined_post, false,
     PFX "SELECT ?kind ?file ?line ?end WHERE {\n"
         "  ?x code:name \"%s\" ; a ?k ; code:file/code:path ?file ; code:line ?line ;\n"
         "     code:endLine ?end .\n"
         "  BIND(STRAFTER(STR(?k), \"#\") AS ?kind)\n"
         "} ORDER BY ?kind ?file ?line"},
    {"definition", defined2_pre, none, false,
     PFX "SELECT ?kind ?file ?line ?end WHERE {\n"
         "  ?x code:name \"%s\" ; a ?k ; code:file/code:path ?file ; code:line ?line ;\n"
         "     code:endLine ?end .\n"
         "  BIND(STRAFTER(STR(?k), \"#\") AS ?kind)\n"
         "} ORDER BY ?kind ?file ?line"},
    {"includers", includes_pre, none, true,
     PFX "SELECT DISTINCT ?file WHERE {\n"
         "  ?f code:includes ?h ; code:path ?file . ?h code:name ?n .\n"
         "  OPTIONAL { ?h code:path ?p }\n"
         "  FILTER(?n = \"%1$s\" || ?n = CONCAT(\"<\", \"%1$s\", \">\") || ?p = \"%1$s\" ||\n"
         "         STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
         "} ORDER BY ?file"},
    {"file-includes", deps_pre, deps_post, true,
     PFX "SELECT DISTINCT ?header WHERE {\n"
         "  ?file code:path ?p FILTER(?p = \"%1$s\" || STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
         "  ?file code:includes ?h . ?h code:name ?n .\n"
         "  BIND(IF(STRSTARTS(?n, \"<\"), SUBSTR(?n, 2, STRLEN(?n) - 2), ?n) AS ?header)\n"
         "} ORDER BY ?header"},
    {"file-includes", deps2_pre, none, true,
     PFX "SELECT DISTINCT ?header WHERE {\n"
         "  ?file code:path ?p FILTER(?p = \"%1$s\" || STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
         "  ?file code:includes ?h . ?h code:name ?n .\n"
         "  BIND(IF(STRSTARTS(?n, \"<\"), SUBSTR(?n, 2, STRLEN(?n) - 2), ?n) AS ?header)\n"
         "} ORDER BY ?header"},
    {"file-structs", structs_pre, none, true,
     PFX "SELECT ?name ?line WHERE {\n"
         "  ?file code:path ?p FILTER(?p = \"%1$s\" || STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
         "  ?s a code:Struct ; code:file ?file ; code:name ?name ; code:line ?line .\n"
         "  FILTER(?name != \"(anonymous)\")\n"
         /* a struct with no tag of its own (typedef struct { ... } X) is the typedef X,
            as ctags and cscope list it, not a struct named X */
         "  FILTER NOT EXISTS { ?t a code:Typedef ; code:file ?file ; code:name ?name ; "
         "code:line ?line }\n"
         "} ORDER BY ?p ?line"},
    {"statics", statics, NULL, false,
     PFX "SELECT ?name ?file ?line WHERE {\n"
         "  ?f a code:Function ; code:static true ; code:name ?name ;\n"
         "     code:file/code:path ?file ; code:line ?line .\n"
         "  FILTER NOT EXISTS { ?f code:inactive true }\n"
         "} ORDER BY ?file ?line"},
    {"count-functions", count_pre, none, true,
     PFX "SELECT (COUNT(DISTINCT ?f) AS ?count) WHERE {\n"
         "  ?f a code:Function ; code:file/code:path ?p .\n"
         "  FILTER(?p = \"%1$s\" || STRSTARTS(?p, CONCAT(\"%1$s\", \"/\")) ||\n"
         "         (STRENDS(\"%1$s\", \"/\") && STRSTARTS(?p, \"%1$s\")))\n"
         "  FILTER NOT EXISTS { ?f code:inactive true }\n"
         "}"},
    {"transitive-callers", tcallers_pre, none, false,
     PFX "SELECT DISTINCT ?caller WHERE {\n"
         "  ?t code:name \"%s\" .\n"
         "  ?f code:calls+ ?t ; code:name ?caller .\n"
         "  FILTER(?f != ?t)\n"
         "} ORDER BY ?caller"},
    {"file-functions", funcs_pre, none, true,
     PFX "SELECT ?name ?line ?static WHERE {\n"
         "  ?file code:path ?p FILTER(?p = \"%1$s\" || STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
         "  ?f a code:Function ; code:file ?file ; code:name ?name ; code:line ?line ;\n"
         "     code:static ?static .\n"
         "} ORDER BY ?p ?line"},
    {"dead-statics", dead, NULL, false,
     PFX "SELECT ?name ?file ?line WHERE {\n"
         "  ?f a code:Function ; code:static true ; code:name ?name ;\n"
         "     code:file/code:path ?file ; code:line ?line .\n"
         "  FILTER NOT EXISTS { ?g code:calls ?f }\n"
         "  FILTER NOT EXISTS { ?f code:inactive true }\n"
         "} ORDER BY ?file ?line"},
    {"recursive", recursive, NULL, false,
     PFX "SELECT ?name ?file WHERE {\n"
         "  ?f code:calls ?f ; code:name ?name ; code:file/code:path ?file .\n"
         "} ORDER BY ?file ?name"},
    {"largest", largest, NULL, false,
     PFX "SELECT ?name ?file ?lines WHERE {\n"
         "  ?f a code:Function ; code:name ?name ; code:lineCount ?lines ;\n"
         "     code:file/code:path ?file .\n"
         "} ORDER BY DESC(?lines) ?name LIMIT 20"},
    {"most-included", most_inc, NULL, false,
     PFX "SELECT ?header (COUNT(DISTINCT ?f) AS ?includers) WHERE {\n"
         "  ?f code:includes ?h . ?h code:name ?header .\n"
         "} GROUP BY ?header ORDER BY DESC(?includers) ?header LIMIT 20"},
};

/* strips "the function ", quotes, backticks and a trailing "()"; true when what is left
 * is one identifier (or, for a path, one path) */
static bool clean_arg(char *s, bool path)
{
    static const char *const fillers[] = {"the function ", "function ", "the file ", "file ",
                                          "the header ", "header ", "the macro ", "macro ",
                                          "the struct ", "struct ", "the ", NULL};
    for (size_t i = 0; fillers[i]; i++)
        if (!strncmp(s, fillers[i], strlen(fillers[i]))) {
            memmove(s, s + strlen(fillers[i]), strlen(s + strlen(fillers[i])) + 1);
            break;
        }
    size_t n = strlen(s);
    while (n && strchr("`'\"<> ", s[n - 1]))
        s[--n] = 0;
    size_t k = 0;
    while (s[k] && strchr("`'\"<> ", s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
    n = strlen(s);
    if (n > 2 && !strcmp(s + n - 2, "()"))
        s[n -= 2] = 0;
    if (!n || n > 200)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool ok = isalnum(c) || c == '_' || c >= 0x80 ||
                  (path && (c == '/' || c == '.' || c == '-' || c == '+'));
        if (!ok)
            return false;
    }
    return true;
}

/* The template's query, its name, and the identifier or path it was given (arg, "" for
 * none; *path says which). The question is read through the shared normalizer first
 * (src/words: quotes, spaces, chatter and politeness off). */
static char *match_template(const char *question_in, const char **name, char *targ,
                            size_t tcap, bool *tpath, bool fixed_only)
{
    char qbuf[1024];
    size_t qn = strlen(question_in);
    if (qn >= sizeof qbuf)
        qn = sizeof qbuf - 1;
    qr_words_normalize(question_in, qn, qbuf, sizeof qbuf);
    const char *question = qbuf;
    if (tcap)
        targ[0] = '\0';
    *tpath = false;
    size_t n = strlen(question);
    char *low = malloc(n + 1), *orig = malloc(n + 1);
    if (!low || !orig) {
        free(low);
        free(orig);
        return NULL;
    }
    /* trim spaces and final punctuation; collapse nothing else */
    size_t a = 0, b = n;
    while (a < b && isspace((unsigned char)question[a]))
        a++;
    while (b > a && (isspace((unsigned char)question[b - 1]) || strchr("?.!", question[b - 1])))
        b--;
    memcpy(orig, question + a, b - a);
    orig[b - a] = 0;
    for (size_t i = 0; i <= b - a; i++)
        low[i] = (char)tolower((unsigned char)orig[i]);
    char *result = NULL;
    for (size_t t = 0; t < sizeof templates / sizeof templates[0] && !result; t++) {
        const tmpl *tp = &templates[t];
        if (!tp->post) {
            for (size_t i = 0; tp->pre[i] && !result; i++)
                if (!strcmp(low, tp->pre[i]) ||
                    (!strncmp(low, "show ", 5) && !strcmp(low + 5, tp->pre[i])) ||
                    (!strncmp(low, "list ", 5) && !strcmp(low + 5, tp->pre[i]))) {
                    result = strdup(tp->query);
                    *name = tp->name;
                }
            continue;
        }
        if (fixed_only)
            continue;
        size_t len = strlen(low);
        for (size_t i = 0; tp->pre[i] && !result; i++) {
            size_t pl = strlen(tp->pre[i]);
            if (strncmp(low, tp->pre[i], pl))
                continue;
            for (size_t j = 0; tp->post[j] && !result; j++) {
                size_t sl = strlen(tp->post[j]);
                if (len < pl + sl + 1 || strcmp(low + len - sl, tp->post[j]))
                    continue;
                char arg[256];
                size_t al = len - pl - sl;
                if (al >= sizeof arg)
                    continue;
                memcpy(arg, orig + pl, al); /* the original case */
                arg[al] = 0;
                if (!clean_arg(arg, tp->path))
                    continue;
                size_t cap = strlen(tp->query) + 4 * strlen(arg) + 16;
                result = malloc(cap);
                if (result) {
                    snprintf(result, cap, tp->query, arg);
                    *name = tp->name;
                    snprintf(targ, tcap, "%s", arg);
                    *tpath = tp->path;
                }
            }
        }
    }
    free(low);
    free(orig);
    return result;
}

char *qr_codesearch_template(const char *question, const char **name)
{
    char arg[256];
    bool path;
    return match_template(question, name, arg, sizeof arg, &path, false);
}

static int run_query(qr_sparql_store *st, const qr_stop *stop, const char *q,
                     qr_sparql_result **out, qr_buf *why);

/* A name the question gave that the code index does not hold as written: "no such
 * function 'X'; did you mean 'Y'?" with the nearest names under the shared typo measure
 * (a name differing only in case first), so a misspelt or wrongly cased name is an error
 * that says what to write, never "0 rows". True (err written) when the name is unknown. */
static bool unknown_name(qr_sparql_store *st, const qr_stop *stop, const char *arg,
                         qr_buf *err)
{
    static const char q[] = PFX "SELECT DISTINCT ?n WHERE { ?x code:name ?n }";
    qr_sparql_result *names = NULL;
    qr_buf why;
    qr_buf_init(&why);
    int rc = run_query(st, stop, q, &names, &why);
    qr_buf_release(&why);
    if (rc != QR_OK) {
        qr_sparql_result_free(names);
        return false;
    }
    size_t an = strlen(arg), nr = qr_sparql_result_nrows(names);
    enum { NBEST = 3 };
    const char *best[NBEST] = {NULL};
    size_t bestlen[NBEST] = {0}, bestcost[NBEST] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    bool exact = false;
    for (size_t i = 0; i < nr && !exact; i++) {
        qr_sparql_term t;
        if (!qr_sparql_result_get(names, i, 0, &t) || !t.lex)
            continue;
        if (t.len == an && !memcmp(t.lex, arg, an)) {
            exact = true;
            break;
        }
        if (t.len > QR_WORDS_MAX || an > QR_WORDS_MAX)
            continue;
        size_t c = qr_words_cost(arg, an, t.lex, t.len);
        /* the typo bound, and a name that differs only in case is always a candidate */
        char tmp[QR_WORDS_MAX + 1];
        memcpy(tmp, t.lex, t.len);
        tmp[t.len] = '\0';
        /* names hold digits and underscores (LZ4_compress_default): the bound of the
         * shared measure on the longer name, at most two plain edits */
        size_t longer = an > t.len ? an : t.len;
        bool near = c == 0 || (c <= qr_words_allowed(longer) &&
                               qr_edit_distance(arg, an, tmp, t.len, QR_EDIT_TRANSPOSE) <= 2);
        if (!near)
            continue;
        for (size_t k = 0; k < NBEST; k++) {
            if (best[k] && bestlen[k] == t.len && !memcmp(best[k], t.lex, t.len))
                break;
            if (c < bestcost[k]) {
                memmove(&best[k + 1], &best[k], (NBEST - k - 1) * sizeof best[0]);
                memmove(&bestlen[k + 1], &bestlen[k], (NBEST - k - 1) * sizeof bestlen[0]);
                memmove(&bestcost[k + 1], &bestcost[k], (NBEST - k - 1) * sizeof bestcost[0]);
                best[k] = t.lex, bestlen[k] = t.len, bestcost[k] = c;
                break;
            }
        }
    }
    if (!exact) {
        qr_buf_printf(err, "no such function '%s' in the code index", arg);
        for (size_t k = 0; k < NBEST && best[k]; k++)
            qr_buf_printf(err, "%s'%.*s'", k ? ", " : "; did you mean ", (int)bestlen[k],
                          best[k]);
        qr_buf_puts(err, best[0] ? "?"
                                 : " (quarry code index builds it; names are case-sensitive)");
    }
    qr_sparql_result_free(names);
    return !exact;
}

/* ---- the model path ---- */
static const char prompt[] =
    "You translate questions about a C or C++ code base into one SPARQL 1.1 query (SELECT or "
    "ASK only) over its code graph. Reply with the query alone in a ```sparql block.\n"
    "\n"
    "Vocabulary (PREFIX code: <https://quarry.dev/code#>):\n"
    "Classes: code:File, code:Function (a definition), code:Declaration (a prototype), "
    "code:Struct, code:Union, code:Enum, code:Enumerator, code:Typedef, code:Member, "
    "code:Macro, code:Variable, code:External (a called name not defined in the code base), "
    "code:SystemHeader (<stdio.h>), code:Call (a call site).\n"
    "Properties: code:name (string; a file's base name), code:path (File: the relative "
    "path), code:language, code:file (item or Call -> File), code:line, code:endLine, "
    "code:lineCount (integers), code:signature, code:type (return/member/variable type), "
    "code:parentName, code:static (boolean), code:functionLike (macros), code:condition, "
    "code:inactive (true in a disabled #if branch), code:calls (Function -> Function or "
    "External), code:callSite (Function -> Call), code:callee (Call -> callee), code:via "
    "(Call: the macro it goes through), code:includes (File -> File or SystemHeader), "
    "code:declares, code:defines (File -> item), code:memberOf (Member or Enumerator -> "
    "Struct, Union or Enum), code:usesType, code:expands (Function -> Macro).\n"
    "\n"
    "Examples:\n"
    "# who calls parse_expr, with the call lines\n"
    "SELECT ?caller ?line WHERE { ?callee code:name \"parse_expr\" . ?s code:callee ?callee ; "
    "code:line ?line . ?f code:callSite ?s ; code:name ?caller }\n"
    "# functions reachable from main\n"
    "SELECT DISTINCT ?n WHERE { ?m a code:Function ; code:name \"main\" ; code:calls+ ?g . "
    "?g code:name ?n }\n"
    "# static functions nobody calls\n"
    "SELECT ?n WHERE { ?f a code:Function ; code:static true ; code:name ?n FILTER NOT "
    "EXISTS { ?g code:calls ?f } }\n"
    "# the five largest functions of src/\n"
    "SELECT ?n ?lines WHERE { ?f a code:Function ; code:name ?n ; code:lineCount ?lines ; "
    "code:file/code:path ?p FILTER STRSTARTS(?p, \"src/\") } ORDER BY DESC(?lines) LIMIT 5\n"
    "# structs with a member of type char *\n"
    "SELECT DISTINCT ?s WHERE { ?m a code:Member ; code:memberOf ?x ; code:type \"char *\" . "
    "?x code:name ?s }\n"
    "\n"
    "Rules: always declare the prefix; never write INSERT, DELETE, LOAD, CONSTRUCT, DESCRIBE "
    "or SERVICE (they are refused); add ORDER BY for lists; use LIMIT when the answer could "
    "be long.\n";

const char *qr_codesearch_prompt(void)
{
    return prompt;
}

/* the query in a reply: the first fenced block, else the whole text */
static char *extract_query(const char *text)
{
    const char *f = strstr(text, "```");
    if (f) {
        const char *start = strchr(f + 3, '\n');
        if (start) {
            start++;
            const char *end = strstr(start, "```");
            size_t n = end ? (size_t)(end - start) : strlen(start);
            char *q = malloc(n + 1);
            if (q) {
                memcpy(q, start, n);
                q[n] = 0;
            }
            return q;
        }
    }
    return strdup(text);
}

void qr_codesearch_ctx_release(qr_codesearch_ctx *c)
{
    qr_llm_free(c->llm);
    c->llm = NULL;
    c->llm_tried = false;
    c->llm_error[0] = 0;
}

static const char *arg_string(qr_val args, qr_arena *a, const char *name)
{
    qr_val v;
    if (args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), &v) && v.t == QR_T_STR)
        return v.s->data;
    return NULL;
}

static int64_t arg_int(qr_val args, qr_arena *a, const char *name, int64_t def)
{
    qr_val v;
    if (args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), &v) && v.t == QR_T_INT)
        return v.i;
    return def;
}

/* parses, checks and runs q; on failure writes "KIND: message" into why */
static int run_query(qr_sparql_store *st, const qr_stop *stop, const char *q,
                     qr_sparql_result **out, qr_buf *why)
{
    qr_sparql_query *pq;
    qr_sparql_error e;
    qr_sparql_limits lim = {0};
    lim.stop = stop;
    lim.timeout_ms = 10000;
    lim.max_memory = (size_t)256 << 20;
    lim.now = qr_clock_now();
    int rc = qr_sparql_prepare(q, strlen(q), NULL, &pq, &e);
    if (rc == QR_OK) {
        rc = qr_sparql_exec(st, pq, &lim, out, &e);
        qr_sparql_query_free(pq);
    }
    if (rc) {
        const char *kind = e.kind == QR_SPARQL_SYNTAX    ? "syntax error"
                           : e.kind == QR_SPARQL_REFUSED ? "refused"
                           : e.kind == QR_SPARQL_LIMIT   ? "limit"
                                                         : "error";
        if (e.line)
            qr_buf_printf(why, "%s at %u:%u: %s", kind, e.line, e.col, e.msg);
        else
            qr_buf_printf(why, "%s: %s", kind, e.msg);
    }
    return rc;
}

/* The model path's reply checker: the query in the reply must parse, be read-only and run;
 * its failure (kind, place, message) is the complaint the repair carries. */
typedef struct query_check {
    qr_sparql_store *st;
    const qr_stop *stop;
    char **sparql;
    qr_sparql_result **res;
    const char *key; /* the model's API key, or NULL */
} query_check;

static int check_query(void *ud, const qr_llm_response *reply, qr_buf *complaint)
{
    query_check *qc = ud;
    free(*qc->sparql);
    /* the key is masked in the reply before it is run: a query that quotes it (a comment,
     * a literal it selects) can return it neither as its text nor in its rows */
    qr_buf text;
    qr_buf_init(&text);
    qr_buf_puts(&text, reply->text ? reply->text : "");
    if (qc->key)
        qr_secrets_scrub(&text, &qc->key, 1);
    *qc->sparql = text.failed ? NULL : extract_query(text.p ? text.p : "");
    qr_buf_release(&text);
    if (!*qc->sparql)
        return QR_ENOMEM;
    qr_sparql_result_free(*qc->res);
    *qc->res = NULL;
    return run_query(qc->st, qc->stop, *qc->sparql, qc->res, complaint);
}

static int ask_model(qr_codesearch_ctx *c, qr_req *rq, const char *question,
                     qr_sparql_store *st, char **sparql, qr_sparql_result **res, int *calls,
                     qr_buf *err)
{
    if (!c->llm && !c->llm_tried) {
        c->llm_tried = true;
        qr_llm_config cfg;
        qr_llm_config_init(&cfg);
        if (qr_llm_config_load(&cfg, c->repo_dir, c->llm_error, sizeof c->llm_error) ==
                QR_OK &&
            qr_llm_configured(&cfg))
            c->llm = qr_llm_new(&cfg);
        qr_llm_config_clear(&cfg);
    }
    if (!c->llm && c->llm_error[0]) {
        /* the configuration could not be read: say why, not that there is none */
        qr_buf_printf(err, "no template answers '%s', and the model's configuration could not "
                           "be read: %s", question, c->llm_error);
        return QR_EINVAL;
    }
    if (!c->llm) {
        qr_buf_printf(err,
                      "no template answers '%s' and no model is configured (QUARRY_LLM_URL, "
                      "QUARRY_LLM_MODEL); read without a model: who calls X (in FILE, N levels "
                      "deep, eventually), what does X call, where is X defined, which files "
                      "include H, what does FILE include, functions / structs / macros in "
                      "FILE, static functions, (static) functions nobody calls (in FILE), how "
                      "many functions in DIR, recursive functions, largest functions, most "
                      "included headers; one name per question; or write SPARQL with "
                      "sparql_query",
                      question);
        return QR_EINVAL;
    }
    qr_llm_message msg = {.role = "user", .content = question, .len = strlen(question)};
    query_check qc = {
        .st = st, .stop = &rq->stop, .sparql = sparql, .res = res, .key = qr_llm_api_key(c->llm)};
    qr_turn t = {.agent = "search_codebase",
                 .system = prompt,
                 .system_len = sizeof prompt - 1,
                 .messages = &msg,
                 .nmessages = 1,
                 .max_repairs = 1,
                 .check = check_query,
                 .check_ud = &qc,
                 .repair_before = "That query failed: ",
                 .repair_after = ". Reply with a corrected query only."};
    qr_turn_ctx tc = {.llm = c->llm, .req = rq, .source = "search_codebase"};
    qr_turn_result tr;
    int rc = qr_turn_run(&tc, &t, &tr);
    *calls = (int)tr.calls;
    if (rc == QR_EINVAL)
        qr_buf_printf(err, "the model's query failed twice: %s; query: %s",
                      tr.complaint.p ? tr.complaint.p : "", *sparql ? *sparql : "");
    else if (rc == QR_EIO)
        qr_buf_printf(err, "the model call failed: %s", tr.error);
    else if (rc != QR_OK)
        qr_buf_puts(err, tr.error);
    /* the error quotes the model's query and complaint: never the key, whatever they say */
    const char *key = qr_llm_api_key(c->llm);
    if (key)
        qr_secrets_scrub(err, &key, 1);
    qr_turn_result_clear(&tr);
    return rc;
}

/* ---- frames (codeframe.h) made into queries ---- */

/* FILTER(?VAR is the file IN, a file of that name, or under the directory IN) */
static void place_filter(qr_buf *q, const char *var, const char *in)
{
    if (!in || !in[0])
        return;
    char d[CF_MAX + 1];
    snprintf(d, sizeof d, "%s", in);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    qr_buf_printf(q,
                  "  FILTER(?%1$s = \"%2$s\" || STRENDS(?%1$s, CONCAT(\"/\", \"%2$s\")) ||\n"
                  "         STRSTARTS(?%1$s, CONCAT(\"%2$s\", \"/\")))\n",
                  var, d);
}

static char *buf_take(qr_buf *b)
{
    if (b->failed) {
        qr_buf_release(b);
        return NULL;
    }
    char *r = strdup(b->p ? b->p : "");
    qr_buf_release(b);
    return r;
}

/* The definitions of function `name` the callees of a frame are read from: the active
 * ones (under f->in when given); the inactive ones only when there is no other or the
 * question asks for disabled code. Sets *ndefs (0: no function of that name) and whether
 * the inactive ones count; the caller names the files. */
static int callee_defs(qr_sparql_store *st, const qr_stop *stop, const cf_frame *f,
                       size_t *nactive, size_t *ninactive, qr_buf *err)
{
    qr_buf q;
    qr_buf_init(&q);
    qr_buf_printf(&q,
                  PFX "SELECT ?file ?line ?inactive WHERE {\n"
                      "  ?f a code:Function ; code:name \"%s\" ; code:file/code:path ?file ;\n"
                      "     code:line ?line .\n"
                      "  OPTIONAL { ?f code:inactive ?inactive }\n",
                  f->subject);
    place_filter(&q, "file", f->in);
    qr_buf_puts(&q, "}");
    char *text = buf_take(&q);
    if (!text)
        return QR_ENOMEM;
    qr_sparql_result *r = NULL;
    qr_buf why;
    qr_buf_init(&why);
    int rc = run_query(st, stop, text, &r, &why);
    free(text);
    if (rc)
        qr_buf_printf(err, "the definitions of '%s' could not be read: %s", f->subject,
                      why.p ? why.p : "");
    qr_buf_release(&why);
    *nactive = *ninactive = 0;
    for (size_t i = 0; rc == QR_OK && i < qr_sparql_result_nrows(r); i++) {
        qr_sparql_term t;
        bool off = qr_sparql_result_get(r, i, 2, &t) && t.lex && t.len == 4 &&
                   !memcmp(t.lex, "true", 4);
        if (off)
            (*ninactive)++;
        else
            (*nactive)++;
    }
    qr_sparql_result_free(r);
    return rc;
}

/* Whether the struct written at line `line` of root/path has no tag: after "struct" (on
 * that line or the next) comes '{'. False when the file cannot be read. */
static bool untagged_at(const char *root, const char *path, long line)
{
    char full[8192];
    if (snprintf(full, sizeof full, "%s/%s", root, path) >= (int)sizeof full)
        return false;
    FILE *fp = fopen(full, "r");
    if (!fp)
        return false;
    char buf[2048], two[4200] = "";
    for (long n = 1; fgets(buf, sizeof buf, fp) && n <= line + 1; n++)
        if (n >= line && strlen(two) + strlen(buf) < sizeof two)
            strcat(two, buf);
    fclose(fp);
    const char *k = strstr(two, "struct");
    if (!k)
        return false;
    k += 6;
    while (*k && isspace((unsigned char)*k))
        k++;
    return *k == '{';
}

/* FILTER(?name NOT IN (...)): the structs the listing f asks for that have no tag, read
 * from the working tree at root (a struct and a typedef of one name on one line are
 * either `typedef struct { ... } X` or `typedef struct X { ... } X`; only the text says
 * which). Nothing when root is NULL. */
static int untagged_filter(qr_sparql_store *st, const qr_stop *stop, const cf_frame *f,
                           const char *root, qr_buf *q, qr_buf *err)
{
    if (!root)
        return QR_OK;
    qr_buf c;
    qr_buf_init(&c);
    qr_buf_puts(&c, PFX "SELECT ?name ?file ?line WHERE {\n"
                        "  ?s a code:Struct ; code:name ?name ; code:file ?ff ; code:line ?line .\n"
                        "  ?t a code:Typedef ; code:name ?name ; code:file ?ff ; code:line ?line .\n"
                        "  ?ff code:path ?file .\n");
    place_filter(&c, "file", f->in);
    qr_buf_puts(&c, "}");
    if (c.failed) {
        qr_buf_release(&c);
        return QR_ENOMEM;
    }
    qr_sparql_result *r = NULL;
    qr_buf why;
    qr_buf_init(&why);
    int rc = run_query(st, stop, c.p, &r, &why);
    qr_buf_release(&c);
    if (rc) {
        qr_buf_printf(err, "the structs could not be read: %s", why.p ? why.p : "");
        qr_buf_release(&why);
        return rc;
    }
    qr_buf_release(&why);
    bool any = false;
    for (size_t i = 0; i < qr_sparql_result_nrows(r); i++) {
        qr_sparql_term tn, tf, tl;
        if (!qr_sparql_result_get(r, i, 0, &tn) || !qr_sparql_result_get(r, i, 1, &tf) ||
            !qr_sparql_result_get(r, i, 2, &tl) || !tn.lex || !tf.lex || !tl.lex)
            continue;
        char path[4096], name[512], num[32];
        snprintf(path, sizeof path, "%.*s", (int)tf.len, tf.lex);
        snprintf(name, sizeof name, "%.*s", (int)tn.len, tn.lex);
        snprintf(num, sizeof num, "%.*s", (int)tl.len, tl.lex);
        if (!untagged_at(root, path, atol(num)))
            continue;
        qr_buf_puts(q, any ? ", " : "  FILTER(?name NOT IN (");
        qr_buf_putc(q, '"');
        for (const char *k = name; *k; k++)
            if (isalnum((unsigned char)*k) || *k == '_')
                qr_buf_putc(q, *k);
        qr_buf_putc(q, '"');
        any = true;
    }
    if (any)
        qr_buf_puts(q, "))\n");
    qr_sparql_result_free(r);
    return QR_OK;
}

/* The SPARQL of a frame (every relation but CF_UNUSED), its name, and whether its subject
 * is a name to check when no row comes back. NULL with *rc set on an error; NULL with
 * *rc QR_OK when the frame has no query here. */
static char *frame_sparql(qr_sparql_store *st, const qr_stop *stop, const cf_frame *f,
                          const char *root, const char **name, bool *check_name, int *rc,
                          qr_buf *err)
{
    qr_buf q;
    qr_buf_init(&q);
    *rc = QR_OK;
    *check_name = false;
    const char *s = f->subject;
    if ((f->rel == CF_CALLERS || f->rel == CF_CALLEES) && f->depth >= 2) {
        /* "two levels deep": each function within that many calls, at its nearest */
        *check_name = true;
        *name = f->rel == CF_CALLERS ? "callers-depth" : "callees-depth";
        qr_buf_printf(&q,
                      PFX "SELECT ?%s ?file (MIN(?d) AS ?depth) WHERE {\n"
                          "  ?t code:name \"%s\" .\n",
                      f->rel == CF_CALLERS ? "caller" : "callee", s);
        for (int d = 1; d <= f->depth; d++) {
            qr_buf_printf(&q, "  %s{ ", d > 1 ? "UNION " : "");
            qr_buf_puts(&q, f->rel == CF_CALLERS ? "?f " : "?t ");
            /* each step any call written, under a disabled #if too (code:calls holds
               the active ones only): a tree without its generated configuration would
               lose whole chains */
            for (int k = 0; k < d; k++)
                qr_buf_printf(&q, "%scode:callSite/code:callee", k ? "/" : "");
            qr_buf_printf(&q, " %s BIND(%d AS ?d) }\n", f->rel == CF_CALLERS ? "?t" : "?f",
                          d);
        }
        qr_buf_printf(&q,
                      "  ?f code:name ?%s .\n"
                      "  OPTIONAL { ?f code:file/code:path ?file }\n"
                      "  FILTER(?f != ?t)\n",
                      f->rel == CF_CALLERS ? "caller" : "callee");
        if (f->rel == CF_CALLERS) {
            place_filter(&q, "file", f->in);
        } else if (f->in[0]) { /* "what does X in FILE call": that definition */
            qr_buf_puts(&q, "  ?t code:file/code:path ?tfile .\n");
            place_filter(&q, "tfile", f->in);
        }
        qr_buf_printf(&q, "} GROUP BY ?%1$s ?file ORDER BY ?depth ?%1$s ?file",
                      f->rel == CF_CALLERS ? "caller" : "callee");
        char *r = buf_take(&q);
        if (!r)
            *rc = QR_ENOMEM;
        return r;
    }
    switch (f->rel) {
    case CF_CALLERS:
        *check_name = true;
        if (f->count) {
            /* the functions that call it (or a macro of that name), each definition once,
               under a disabled #if too, as the list counts them */
            *name = "count-callers";
            qr_buf_printf(&q,
                          PFX "SELECT (COUNT(DISTINCT ?f) AS ?count) WHERE {\n"
                              "  { ?callee code:name \"%1$s\" . ?site code:callee ?callee }\n"
                              "  UNION { ?site code:via \"%1$s\" }\n"
                              "  ?f a code:Function ; code:callSite ?site .\n"
                              "}",
                          s);
            break;
        }
        if (f->transitive) {
            *name = "transitive-callers";
            qr_buf_printf(&q,
                          PFX "SELECT DISTINCT ?caller ?file WHERE {\n"
                              "  ?t code:name \"%s\" .\n"
                              "  ?f (code:callSite/code:callee)+ ?t ; code:name ?caller ;\n"
                              "     code:file/code:path ?file .\n"
                              "  FILTER(?f != ?t)\n",
                          s);
            place_filter(&q, "file", f->in);
            qr_buf_puts(&q, "} ORDER BY ?caller ?file");
            break;
        }
        /* a call written through a macro counts for the macro and for what it calls;
         * ?via says which macro */
        *name = "callers";
        qr_buf_printf(&q,
                      PFX "SELECT DISTINCT ?caller ?file ?line ?via ?callee_file ?inactive "
                          "WHERE {\n"
                          "  { ?callee code:name \"%1$s\" . ?site code:callee ?callee }\n"
                          "  UNION { ?site code:via \"%1$s\" }\n"
                          "  ?site code:line ?line .\n"
                          "  ?f a code:Function ; code:callSite ?site ; code:name ?caller ;\n"
                          "     code:file/code:path ?file .\n"
                          "  OPTIONAL { ?site code:via ?via }\n"
                          /* which definition is called, when two share the name */
                          "  OPTIONAL { ?site code:callee ?cd . ?cd code:name \"%1$s\" ;\n"
                          "             code:file/code:path ?callee_file .\n"
                          "             FILTER(EXISTS { ?o code:name \"%1$s\" ; a code:Function "
                          ". FILTER(?o != ?cd) }) }\n",
                      s);
        /* every call written, under a disabled #if too (marked): whether a branch is
           compiled is the build's to say, and a tree without its generated configuration
           (libevent's event-config.h) would lose whole backends */
        qr_buf_puts(&q, "  OPTIONAL { ?site code:inactive ?inactive }\n");
        place_filter(&q, "file", f->in);
        if (f->only[0])
            qr_buf_printf(&q, "  FILTER(?caller = \"%s\")\n", f->only);
        qr_buf_puts(&q, "} ORDER BY ?file ?line ?caller");
        break;
    case CF_CALLEES: {
        *check_name = true;
        *name = "callees";
        size_t on = 0, off = 0;
        if ((*rc = callee_defs(st, stop, f, &on, &off, err)))
            return NULL;
        /* every active definition, each with its file (eight mains are eight answers);
         * code under a false #if only when there is no other or it is asked for */
        bool with_inactive = f->inactive || on == 0;
        qr_buf_printf(&q,
                      PFX "SELECT DISTINCT ?callee %2$s ?file ?function_line WHERE {\n"
                          "  ?f a code:Function ; code:name \"%1$s\" ; code:file/code:path ?file "
                          ";\n"
                          "     code:line ?function_line .\n",
                      s, f->transitive ? "" : "?line ?via");
        if (!with_inactive)
            qr_buf_puts(&q, "  FILTER NOT EXISTS { ?f code:inactive true }\n");
        place_filter(&q, "file", f->in);
        if (f->transitive)
            qr_buf_puts(&q, "  ?f code:calls+ ?g . ?g code:name ?callee .\n"
                            "  FILTER(?g != ?f)\n"
                            "} ORDER BY ?file ?function_line ?callee");
        else if (!f->external && !f->via && !f->only[0])
            /* the calls written in the body; through a macro, the macro when the tree also
               defines a function of its name (Janet's janet_wrap_nil: a macro with
               NaN-boxing, a function of wrap.c without: that call either way) */
            qr_buf_puts(&q, "  ?f code:callSite ?site .\n"
                            "  { ?site code:callee ?g ; code:line ?line . ?g code:name ?callee ; "
                            "a code:Function .\n"
                            "    FILTER NOT EXISTS { ?site code:via ?v0 } }\n"
                            "  UNION { ?site code:via ?callee ; code:line ?line .\n"
                            "    ?fn a code:Function ; code:name ?callee }\n"
                            "} ORDER BY ?file ?function_line ?line ?callee");
        else
            /* those a macro's body writes only when asked ("through macros"): a reader of
               the function sees the macro, not them */
            qr_buf_printf(&q, "  ?f code:callSite ?site .\n"
                              "  ?site code:callee ?g ; code:line ?line . ?g code:name ?callee .\n"
                              "%s"
                              "  OPTIONAL { ?site code:via ?via }\n%s%s%s%s"
                              "} ORDER BY ?file ?function_line ?line ?callee",
                          f->external ? "" : "  ?g a code:Function .\n",
                          f->via || f->only[0] ? "" : "  FILTER(!BOUND(?via))\n",
                          f->only[0] ? "  FILTER(?callee = \"" : "", f->only,
                          f->only[0] ? "\")\n" : "");
        break;
    }
    case CF_INCLUDERS:
        /* one step: every #include written, those under a disabled #if too (the line is
         * in the file; :inactive 1 says only there); the chain: the active ones */
        *name = f->count ? "count-includers" : "includers";
        /* "how many files include H": the same files, counted */
        qr_buf_puts(&q, f->count ? PFX "SELECT (COUNT(?file) AS ?count) WHERE { { SELECT ?file "
                                       "(MIN(?d) AS ?m) WHERE {\n"
                                 : PFX "SELECT ?file ?inactive WHERE { { SELECT ?file (MIN(?d) "
                                       "AS ?m) WHERE {\n");
        qr_buf_printf(&q,
                      "  %2$s\n"
                          "  ?f code:path ?file . ?h code:name ?n .\n"
                          "  OPTIONAL { ?h code:path ?p }\n"
                          "  FILTER(?n = \"%1$s\" || ?n = CONCAT(\"<\", \"%1$s\", \">\") || "
                          "?p = \"%1$s\" ||\n"
                          "         STRENDS(?p, CONCAT(\"/\", \"%1$s\")))\n"
                          "%3$s"
                          "} GROUP BY ?file } %4$s }%5$s",
                      s, f->transitive ? "?f code:includes+ ?h BIND(0 AS ?d)" : INCLUDES_EITHER,
                      f->headers   ? "  FILTER(REGEX(?file, \"[.](h|hh|hpp|hxx|H)$\"))\n"
                      : f->sources ? "  FILTER(REGEX(?file, \"[.](c|cc|cpp|cxx|C)$\"))\n"
                                   : "",
                      f->count ? "" : ONLY_INACTIVE, f->count ? "" : " ORDER BY ?file");
        break;
    case CF_INCLUDES:
        *name = "file-includes";
        qr_buf_printf(&q,
                      PFX "SELECT ?header ?inactive WHERE { { SELECT ?header (MIN(?d) AS ?m) "
                          "WHERE {\n"
                          "  ?f code:path ?p FILTER(?p = \"%1$s\" || STRENDS(?p, "
                          "CONCAT(\"/\", \"%1$s\")))\n"
                          "  %2$s\n"
                          "  ?h code:name ?n .\n"
                          "  BIND(IF(STRSTARTS(?n, \"<\"), SUBSTR(?n, 2, STRLEN(?n) - 2), ?n) AS "
                          "?header)\n"
                          "} GROUP BY ?header } " ONLY_INACTIVE " } ORDER BY ?header",
                      s,
                      /* the whole chain is the tree's headers: a system header's own
                         includes are not in the index, so listing the first of them would
                         be a chain cut short */
                      f->transitive ? "?f code:includes+ ?h FILTER EXISTS { ?h code:path ?hp } "
                                      "BIND(0 AS ?d)"
                                    : INCLUDES_EITHER);
        break;
    case CF_FIELD:
        *check_name = true;
        *name = "field";
        qr_buf_printf(&q,
                      PFX "SELECT DISTINCT ?struct ?file ?line WHERE {\n"
                          "  ?m a code:Member ; code:name \"%s\" ; code:parentName ?struct ;\n"
                          "     code:file/code:path ?file ; code:line ?line .\n"
                          "} ORDER BY ?file ?line",
                      s);
        break;
    case CF_MEMBERS:
        *check_name = true;
        *name = "members";
        qr_buf_printf(&q,
                      PFX "SELECT ?member ?type ?file ?line WHERE {\n"
                          "  ?m a code:Member ; code:parentName \"%s\" ; code:name ?member ;\n"
                          "     code:file/code:path ?file ; code:line ?line .\n"
                          "  OPTIONAL { ?m code:type ?type }\n"
                          "} ORDER BY ?file ?line",
                      s);
        break;
    case CF_DEFINITION:
        *check_name = true;
        *name = "definition";
        qr_buf_printf(&q,
                      PFX "SELECT ?kind ?file ?line ?end WHERE {\n"
                          "  ?x code:name \"%s\" ; a ?k ; code:file/code:path ?file ; "
                          "code:line ?line ;\n"
                          "     code:endLine ?end .\n"
                          "  BIND(STRAFTER(STR(?k), \"#\") AS ?kind)\n",
                      s);
        /* a struct member of that name only when nothing else has it ("where is client
         * defined": the struct, not every member called client) */
        qr_buf_printf(&q,
                      "  FILTER(?kind != \"Member\" || NOT EXISTS { ?o code:name \"%s\" ; a ?ko "
                      "FILTER(?ko != code:Member) })\n",
                      s);
        /* the struct itself; its typedef only when no struct of that name exists
         * (typedef struct { ... } X) */
        if (f->kind_given && f->what == CF_STRUCTS)
            qr_buf_printf(&q,
                          "  FILTER(?kind IN (\"Struct\", \"Union\", \"Enum\") ||\n"
                          "         (?kind = \"Typedef\" && NOT EXISTS { ?y code:name \"%s\" ; "
                          "a ?k0 FILTER(?k0 IN (code:Struct, code:Union, code:Enum)) }))\n",
                          s);
        else if (f->kind_given && f->what == CF_MACROS)
            qr_buf_puts(&q, "  FILTER(?kind = \"Macro\")\n");
        else if (f->kind_given)
            qr_buf_puts(&q, "  FILTER(?kind IN (\"Function\", \"Declaration\"))\n");
        place_filter(&q, "file", f->in);
        qr_buf_puts(&q, "} ORDER BY ?kind ?file ?line");
        break;
    case CF_LIST: {
        const char *cls = f->what == CF_STRUCTS  ? (f->typedefs ? "Typedef" : "Struct")
                          : f->what == CF_MACROS ? "Macro"
                                                 : "Function";
        *name = f->what == CF_STRUCTS  ? (f->typedefs ? "file-typedefs" : "file-structs")
                : f->what == CF_MACROS ? "file-macros"
                : f->statics           ? "statics"
                : f->nonstatic         ? "public-functions"
                                       : "file-functions";
        /* what one file defines is what is written in it: under a disabled #if too, marked
           :inactive; across a directory or the tree, the active code unless asked */
        const char *dot = strrchr(f->in, '.');
        bool one_file = dot && !strchr(dot, '/') && f->in[strlen(f->in) - 1] != '/';
        /* names by a pattern are a search of what is written, as grep's would be */
        bool with_inactive = f->inactive || one_file || f->pattern;
        if (f->what == CF_FUNCTIONS)
            qr_buf_printf(&q, PFX "SELECT ?name ?file ?line %s%s WHERE {\n"
                                  "  ?f a code:Function ; code:name ?name ; code:file/code:path "
                                  "?file ;\n"
                                  "     code:line ?line ; code:static ?static .\n"
                                  "%s",
                          f->statics ? "" : "?static", with_inactive ? " ?inactive" : "",
                          f->statics     ? "  FILTER(?static)\n"
                          : f->nonstatic ? "  FILTER(!?static)\n"
                                         : "");
        else
            qr_buf_printf(&q, PFX "SELECT ?name ?file ?line%s WHERE {\n"
                                  "  ?f a code:%s ; code:name ?name ; code:file/code:path ?file "
                                  ";\n"
                                  "     code:line ?line .\n"
                                  /* a struct with no name (a member's type written in place)
                                     is no struct a question can name */
                                  "  FILTER(?name != \"(anonymous)\")\n",
                          with_inactive ? " ?inactive" : "", cls);
        /* a struct with no tag of its own (typedef struct { ... } X) is the typedef X, as
           ctags and cscope list it, not a struct named X */
        if (f->what == CF_STRUCTS && !f->typedefs &&
            (*rc = untagged_filter(st, stop, f, root, &q, err))) {
            qr_buf_release(&q);
            return NULL;
        }
        if (with_inactive)
            qr_buf_puts(&q, "  OPTIONAL { ?f code:inactive ?inactive }\n");
        else
            qr_buf_puts(&q, "  FILTER NOT EXISTS { ?f code:inactive true }\n");
        if (f->pattern) {
            /* the frame reader let only identifier characters and '*' through */
            *name = f->what == CF_STRUCTS  ? "structs-named"
                    : f->what == CF_MACROS ? "macros-named"
                                           : "functions-named";
            qr_buf_puts(&q, "  FILTER(REGEX(?name, \"^");
            for (const char *c = s; *c; c++)
                if (*c == '*')
                    qr_buf_puts(&q, ".*");
                else
                    qr_buf_printf(&q, "%c", *c);
            qr_buf_puts(&q, "$\"))\n");
        }
        place_filter(&q, "file", f->in);
        qr_buf_puts(&q, "} ORDER BY ?file ?line");
        break;
    }
    case CF_LONGEST:
        /* each definition by its lines, as written (end line - first line + 1) */
        *name = "largest";
        qr_buf_puts(&q, PFX "SELECT ?name ?file ?lines WHERE {\n"
                            "  ?f a code:Function ; code:name ?name ; code:lineCount ?lines ;\n"
                            "     code:file/code:path ?file .\n");
        place_filter(&q, "file", f->in);
        qr_buf_printf(&q, "} ORDER BY DESC(?lines) ?name LIMIT %d", f->limit ? f->limit : 10);
        break;
    case CF_MOST_INCLUDED:
        /* a header by how many files #include it (its name as written, <> off) */
        *name = "most-included";
        qr_buf_printf(&q,
                      PFX "SELECT ?header (COUNT(DISTINCT ?f) AS ?includers) WHERE {\n"
                          "  ?f code:includes ?h . ?h code:name ?n .\n"
                          "  BIND(IF(STRSTARTS(?n, \"<\"), SUBSTR(?n, 2, STRLEN(?n) - 2), ?n) "
                          "AS ?header)\n"
                          "} GROUP BY ?header ORDER BY DESC(?includers) ?header LIMIT %d",
                      f->limit ? f->limit : 10);
        break;
    case CF_RECURSIVE:
        /* a function whose body calls itself (directly): every call written, and every
           function, under a disabled #if too (marked), as the callers and the counts:
           htop's hwloc code is compiled out in a tree without its configure run */
        *name = "recursive";
        qr_buf_puts(&q, PFX "SELECT DISTINCT ?name ?file ?line ?inactive WHERE {\n"
                            "  ?f a code:Function ; code:callSite/code:callee ?f ; "
                            "code:name ?name ;\n"
                            "     code:file/code:path ?file ; code:line ?line .\n"
                            "  OPTIONAL { ?f code:inactive ?inactive }\n");
        place_filter(&q, "file", f->in);
        qr_buf_puts(&q, "} ORDER BY ?file ?line");
        break;
    case CF_COUNT:
        *name = "count-functions";
        /* the functions written there, under a disabled #if too, as for the callers: a
           tree without its build's configuration (nginx's NGX_HAVE_*) would lose whole
           features otherwise */
        qr_buf_puts(&q, PFX "SELECT (COUNT(DISTINCT ?f) AS ?count) WHERE {\n"
                            "  ?f a code:Function ; code:file/code:path ?p .\n");
        if (f->statics)
            qr_buf_puts(&q, "  ?f code:static true .\n");
        else if (f->nonstatic)
            qr_buf_puts(&q, "  ?f code:static false .\n");
        place_filter(&q, "p", s);
        qr_buf_puts(&q, "}");
        break;
    default:
        qr_buf_release(&q);
        return NULL;
    }
    char *r = buf_take(&q);
    if (!r)
        *rc = QR_ENOMEM;
    return r;
}

/* A path the question gave (a file, a bare file name, a directory) that no indexed file
 * matches: "no file 'X' in the code index; did you mean 'Y'?" (file names within the shared
 * typo measure). True (err written) when nothing matches. */
static bool unknown_path(qr_code_graph *g, const char *path, qr_buf *err)
{
    size_t nf = qr_code_graph_nfiles(g), pl = strlen(path);
    while (pl > 1 && path[pl - 1] == '/')
        pl--;
    enum { NBEST = 3 };
    const char *best[NBEST] = {NULL};
    size_t bestc = SIZE_MAX, nbest = 0;
    for (size_t i = 0; i < nf; i++) {
        const char *f = qr_code_graph_file(g, i, NULL);
        size_t fl = strlen(f);
        if ((fl == pl && !memcmp(f, path, pl)) ||
            (fl > pl && !memcmp(f, path, pl) && f[pl] == '/') ||
            (fl > pl && f[fl - pl - 1] == '/' && !memcmp(f + fl - pl, path, pl)))
            return false;
        const char *base = strrchr(f, '/');
        base = base ? base + 1 : f;
        const char *pb = strrchr(path, '/');
        pb = pb ? pb + 1 : path;
        size_t bl = strlen(base), pbl = strlen(pb);
        if (bl > QR_WORDS_MAX || pbl > QR_WORDS_MAX)
            continue;
        size_t c = qr_words_cost(pb, pbl, base, bl);
        size_t longer = bl > pbl ? bl : pbl;
        if (c > qr_words_allowed(longer) || c > bestc)
            continue;
        if (c < bestc)
            nbest = 0, bestc = c;
        if (nbest < NBEST)
            best[nbest++] = f; /* the closest, in path order */
    }
    qr_buf_printf(err, "no file '%s' in the code index", path);
    for (size_t k = 0; k < nbest; k++)
        qr_buf_printf(err, "%s'%s'", k ? ", " : "; did you mean ", best[k]);
    if (nbest)
        qr_buf_puts(err, "?");
    return true;
}

/* The one file whose path, or whose path's end after a '/', is `path` but for case
 * ("EPOLL.C" for epoll.c): true with that file's path in out; false when none is, or
 * several are. */
static bool path_by_case(qr_code_graph *g, const char *path, char *out, size_t cap)
{
    size_t nf = qr_code_graph_nfiles(g), pl = strlen(path);
    const char *hit = NULL;
    for (size_t i = 0; i < nf; i++) {
        const char *f = qr_code_graph_file(g, i, NULL);
        size_t fl = strlen(f);
        if ((fl == pl && !strcasecmp(f, path)) ||
            (fl > pl && f[fl - pl - 1] == '/' && !strcasecmp(f + fl - pl, path))) {
            if (hit)
                return false;
            hit = f;
        }
    }
    if (!hit || strlen(hit) >= cap)
        return false;
    snprintf(out, cap, "%s", hit);
    return true;
}

/* the top directory of the working tree that holds dir (NULL: the current one): the
 * nearest directory up from it with a .git entry */
static bool work_tree_root(const char *dir, char *out, size_t cap)
{
    char *abs = realpath(dir ? dir : ".", NULL);
    if (!abs)
        return false;
    bool found = false;
    for (;;) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.git", abs);
        if (access(probe, F_OK) == 0) {
            found = strlen(abs) < cap;
            if (found)
                snprintf(out, cap, "%s", abs);
            break;
        }
        char *slash = strrchr(abs, '/');
        if (!slash || slash == abs)
            break;
        *slash = '\0';
    }
    free(abs);
    return found;
}

/* the graph says whether a word is a name it holds (the frame reader never reads such a
 * word as a typo of a frame word) */
static bool known_name(void *ud, const char *w)
{
    const size_t *idx;
    return ud && qr_code_graph_named(ud, w, &idx) > 0;
}

static int search_repos(qr_codesearch_ctx *c, qr_req *req, qr_val args, qr_val repos,
                        qr_arena *a, qr_val *out, qr_buf *err);

static int search_codebase_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    qr_codesearch_ctx *c = ctx;
    qr_val repos;
    if (args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, "repos"), &repos) &&
        !qr_is_nil(repos)) /* across repositories: the team database */
        return search_repos(c, req, args, repos, a, out, err);
    const char *question = arg_string(args, a, "question");
    if (!question) {
        qr_buf_puts(err, "parameter 'question' must be a string");
        return QR_EINVAL;
    }
    int64_t limit = arg_int(args, a, "limit", 50), offset = arg_int(args, a, "offset", 0);
    qr_sparql_store *st;
    int rc = qr_sparql_ctx_store(c->sparql, &st, err);
    if (rc)
        return rc;
    /* the code graph itself, when the store is made of it (not of RDF files) */
    qr_code_graph *g = NULL;
    if ((!c->sparql->data_paths || !c->sparql->data_paths[0]) && c->sparql->code)
        g = c->sparql->code->graph;
    const char *tname = NULL;
    char targ[256] = "";
    bool tpath = false;
    char *sparql = NULL;
    qr_sparql_result *res = NULL;
    int calls = 0;
    bool paged = false;
    const char *note = NULL;

    /* first the frame reader: relation x subject x filters */
    char qn[1024];
    size_t ql = strlen(question);
    qr_words_normalize(question, ql < sizeof qn ? ql : sizeof qn - 1, qn, sizeof qn);
    cf_frame fr;
    bool framed = ql < sizeof qn && qr__codeframe_read(qn, &fr, known_name, g);
    if (framed && g && fr.subject[0] && !fr.subject_path && !fr.pattern &&
        !known_name(g, fr.subject)) {
        /* a name the index lacks: say so, and which it holds near it (a name only a call
           or a declaration holds, a function whose definition the index could not read, is
           asked on) */
        if (unknown_name(st, &req->stop, fr.subject, err))
            return QR_EINVAL;
    }
    const char *place = !framed               ? NULL
                        : fr.subject_path     ? fr.subject
                        : fr.in[0]            ? fr.in
                                              : NULL;
    /* a path the index lacks: said in another case than the tree's ("FUNCTIONS DEFINED IN
       EPOLL.C"), the one file it names; else an error naming the nearest (a header
       includers ask of may be a system one, the index's or not) */
    if (framed && g && place) {
        qr_buf miss; /* the error, said only when no file fits */
        qr_buf_init(&miss);
        char fixed[CF_MAX + 1];
        if (unknown_path(g, place, &miss)) {
            if (path_by_case(g, place, fixed, sizeof fixed)) {
                /* as said: a name without folders stays one ("NGX_CORE.H": ngx_core.h,
                   which an #include <ngx_core.h> the index did not resolve names too) */
                const char *base = strrchr(fixed, '/');
                const char *keep = strchr(place, '/') || !base ? fixed : base + 1;
                snprintf(place == fr.subject ? fr.subject : fr.in, CF_MAX + 1, "%s", keep);
            } else if (fr.rel != CF_INCLUDERS) {
                qr_buf_append(err, miss.p, miss.len);
                qr_buf_release(&miss);
                return QR_EINVAL;
            }
        }
        qr_buf_release(&miss);
    }
    /* "which files include NGX_CORE.H": a header the tree has in another case */
    if (framed && g && fr.rel == CF_INCLUDERS && !strchr(fr.subject, '/')) {
        char fixed[CF_MAX + 1];
        qr_buf quiet;
        qr_buf_init(&quiet);
        if (unknown_path(g, fr.subject, &quiet) &&
            path_by_case(g, fr.subject, fixed, sizeof fixed)) {
            const char *base = strrchr(fixed, '/');
            snprintf(fr.subject, sizeof fr.subject, "%s", base ? base + 1 : fixed);
        }
        qr_buf_release(&quiet);
    }
    if (framed) {
        if (fr.rel == CF_UNUSED) {
            tname = fr.statics ? "dead-statics" : "unused";
            if (!g) {
                qr_buf_puts(err, "'unused' needs the code graph of the repository, not RDF "
                                 "data files (QUARRY_SPARQL_DATA)");
                return QR_EINVAL;
            }
            char root[4096];
            bool have_root = work_tree_root(c->sparql->code->repo_dir, root, sizeof root);
            rc = qr__codeframe_unused(g, have_root ? root : NULL, &req->stop, &fr,
                                      (size_t)offset, (size_t)limit, a, out, err);
            if (rc)
                return rc;
            paged = true;
            sparql = strdup("");
            if (!sparql)
                return QR_ENOMEM;
            note = "a function is unused when its name appears in no code outside its own "
                   "definitions and prototypes (calls, addresses taken, tables, macro bodies, "
                   "## pastes and a string that is the name count; comments do not): for a "
                   "static function, in its file and the files that #include it; files a "
                   "source #includes that the index lacks are read from the working tree; "
                   "main is never listed; :inactive marks one under a disabled #if";
        } else {
            bool check = false;
            char root[4096];
            bool have_root = c->sparql && c->sparql->code &&
                             work_tree_root(c->sparql->code->repo_dir, root, sizeof root);
            sparql = frame_sparql(st, &req->stop, &fr, have_root ? root : NULL, &tname, &check,
                                  &rc, err);
            if (rc) {
                free(sparql);
                return rc;
            }
            if (sparql && check)
                snprintf(targ, sizeof targ, "%s", fr.subject);
        }
    }
    if (!sparql)
        /* the fixed questions the frames do not cover (recursive functions, the largest,
         * the most included headers); a question with a name is the frames' alone */
        sparql = match_template(question, &tname, targ, sizeof targ, &tpath, true);
    if (paged) {
        /* answered by the frame itself */
    } else if (sparql) {
        qr_buf why;
        qr_buf_init(&why);
        rc = run_query(st, &req->stop, sparql, &res, &why);
        if (rc)
            qr_buf_printf(err, "template '%s' failed: %s", tname, why.p ? why.p : "");
        qr_buf_release(&why);
        /* no rows for a name: is it a name the index holds at all? */
        if (rc == QR_OK && targ[0] && !tpath && qr_sparql_result_nrows(res) == 0 &&
            unknown_name(st, &req->stop, targ, err))
            rc = QR_EINVAL;
        /* a definition the index holds no row of, for a name it knows (called, or
           declared): not "nothing", which would say there is none */
        if (rc == QR_OK && framed && fr.rel == CF_DEFINITION && qr_sparql_result_nrows(res) == 0) {
            qr_buf_printf(err, "the code index holds no definition of '%s' (it is called or "
                               "declared, but its definition was not read)", fr.subject);
            rc = QR_EINVAL;
        }
        /* the members of a name that is no struct the index read (a typedef of another
           name, a function): declined, not "it has none" */
        if (rc == QR_OK && framed && fr.rel == CF_MEMBERS && qr_sparql_result_nrows(res) == 0) {
            qr_buf_printf(err, "the code index holds no struct or union named '%s' with "
                               "members (a typedef of another name is asked by that name)",
                          fr.subject);
            rc = QR_EINVAL;
        }
        /* "does X call Y" of a Y the index does not know: no such function, not "no" */
        if (rc == QR_OK && framed && fr.only[0] && qr_sparql_result_nrows(res) == 0 &&
            unknown_name(st, &req->stop, fr.only, err))
            rc = QR_EINVAL;
        if (rc == QR_OK && framed && fr.only[0])
            note = qr_sparql_result_nrows(res) ? "yes: the rows are the calls"
                                               : "no: there is no such call";
        /* nobody includes a header no file matches: say so, not "0 rows" */
        if (rc == QR_OK && framed && fr.rel == CF_INCLUDERS && g &&
            qr_sparql_result_nrows(res) == 0 && unknown_path(g, fr.subject, err))
            rc = QR_EINVAL;
    } else {
        rc = ask_model(c, req, question, st, &sparql, &res, &calls, err);
    }
    if (rc == QR_OK && !paged)
        rc = qr_sparql_result_page(res, (size_t)offset, (size_t)limit, a, out, err);
    if (rc == QR_OK) {
        /* the page, plus how it was answered */
        qr_mapb mb;
        qr_mapb_init(&mb, a, 12);
        char how[64];
        snprintf(how, sizeof how, "%s%s", tname ? "template:" : "model",
                 tname ? tname : "");
        qr_mapb_put(&mb, qr_kw_cstr(a, "how"), qr_str_new(a, how, strlen(how)));
        qr_mapb_put(&mb, qr_kw_cstr(a, "model_calls"), qr_int(calls));
        qr_mapb_put(&mb, qr_kw_cstr(a, "sparql"), qr_str_new(a, sparql, strlen(sparql)));
        if (note)
            qr_mapb_put(&mb, qr_kw_cstr(a, "note"), qr_str_new(a, note, strlen(note)));
        for (size_t i = 0; i < qr_map_len(*out); i++)
            qr_mapb_put(&mb, qr_map_key_at(*out, i), qr_map_val_at(*out, i));
        *out = qr_mapb_finish(&mb, QR_T_MAP);
    }
    qr_sparql_result_free(res);
    free(sparql);
    return rc;
}

/* ---- across repositories (`repos`): the question asked of each repository's graph on
 * the team database by qr_code_ask_repos (the one path of every tool's repos); a query a
 * model wrote for the first repository is run as it is over the others (one model call
 * for the question, not one per repository). ---- */
typedef struct across {
    qr_codesearch_ctx *c;
    qr_val args;  /* the call's, without repos, offset and limit */
    qr_val first; /* the first answer (nil until one) */
    const char *model_sparql;
    int64_t calls;
} across;

static int search_one(void *ud, qr_req *req, const qr_code_listing *ls, qr_code_graph *g,
                      int64_t want, qr_arena *a, qr_vecb *rows, int64_t *total, qr_buf *err)
{
    across *x = ud;
    qr_code_ctx cc = {.repo_dir = ls->location, .graph = g};
    qr_sparql_ctx sc = {.code = &cc, .limits = x->c->sparql->limits};
    qr_val res = qr_nil(), v;
    int rc;
    if (x->model_sparql) {
        qr_sparql_store *st;
        qr_sparql_result *r = NULL;
        if ((rc = qr_sparql_ctx_store(&sc, &st, err)) == QR_OK)
            rc = run_query(st, &req->stop, x->model_sparql, &r, err);
        if (rc == QR_OK)
            rc = qr_sparql_result_page(r, 0, (size_t)want, a, &res, err);
        qr_sparql_result_free(r);
    } else {
        qr_codesearch_ctx sub = *x->c;
        sub.sparql = &sc;
        qr_val args = qr_map_assoc(a, x->args, qr_kw_cstr(a, "offset"), qr_int(0));
        args = qr_map_assoc(a, args, qr_kw_cstr(a, "limit"), qr_int(want));
        rc = search_codebase_fn(&sub, req, args, a, &res, err);
        x->c->llm = sub.llm; /* opened for this question: the context's from now on */
        x->c->llm_tried = sub.llm_tried;
        memcpy(x->c->llm_error, sub.llm_error, sizeof sub.llm_error);
        if (rc == QR_OK && qr_map_get(res, qr_kw_cstr(a, "model_calls"), &v) && v.t == QR_T_INT)
            x->calls += v.i;
        if (rc == QR_OK && qr_map_get(res, qr_kw_cstr(a, "how"), &v) && v.t == QR_T_STR &&
            !strcmp(v.s->data, "model") && qr_map_get(res, qr_kw_cstr(a, "sparql"), &v) &&
            v.t == QR_T_STR)
            x->model_sparql = v.s->data;
    }
    qr_sparql_ctx_release(&sc); /* the store; the graph is the caller's */
    if (rc != QR_OK)
        return rc;
    if (qr_is_nil(x->first))
        x->first = res;
    if (qr_map_get(res, qr_kw_cstr(a, "rows"), &v))
        for (size_t i = 0; i < qr_vec_len(v); i++)
            qr_vecb_push(rows, qr_vec_at(v, i));
    *total += qr_map_get(res, qr_kw_cstr(a, "total"), &v) && v.t == QR_T_INT ? v.i : 0;
    return QR_OK;
}

static int search_repos(qr_codesearch_ctx *c, qr_req *req, qr_val args, qr_val repos,
                        qr_arena *a, qr_val *out, qr_buf *err)
{
    if (c->sparql->data_paths && c->sparql->data_paths[0]) {
        qr_buf_puts(err, "parameter 'repos': it asks the code graphs of the shared code index, "
                         "and QUARRY_SPARQL_DATA names RDF files instead; unset one of them");
        return QR_EINVAL;
    }
    int64_t limit = arg_int(args, a, "limit", 50), offset = arg_int(args, a, "offset", 0);
    across x = {.c = c,
                .first = qr_nil(),
                .args = qr_map_dissoc(a, args, qr_kw_cstr(a, "repos"))};
    qr_code_across res;
    int rc = qr_code_ask_repos(c->sparql->code ? c->sparql->code->repo_dir : NULL, req, repos,
                               offset, limit, search_one, &x, a, &res, err);
    if (rc != QR_OK)
        return rc;
    /* the first answer's how, query and vars, with repo first; the rows of all */
    qr_mapb mb;
    qr_mapb_init(&mb, a, 12);
    static const char *const keep[] = {"how", "sparql", "note", NULL};
    qr_val v;
    for (size_t k = 0; keep[k]; k++)
        if (qr_map_get(x.first, qr_kw_cstr(a, keep[k]), &v))
            qr_mapb_put(&mb, qr_kw_cstr(a, keep[k]), v);
    qr_mapb_put(&mb, qr_kw_cstr(a, "model_calls"), qr_int(x.calls));
    qr_mapb_put(&mb, qr_kw_cstr(a, "repos"), res.repos);
    qr_vecb vars;
    qr_vecb_init(&vars, a, 4);
    qr_vecb_push(&vars, qr_str_cstr(a, "repo"));
    if (qr_map_get(x.first, qr_kw_cstr(a, "vars"), &v))
        for (size_t i = 0; i < qr_vec_len(v); i++)
            qr_vecb_push(&vars, qr_vec_at(v, i));
    qr_mapb_put(&mb, qr_kw_cstr(a, "vars"), qr_vecb_finish(&vars, QR_T_VEC));
    qr_mapb_put(&mb, qr_kw_cstr(a, "rows"), res.rows);
    qr_mapb_put(&mb, qr_kw_cstr(a, "total"), qr_int(res.total));
    qr_mapb_put(&mb, qr_kw_cstr(a, "truncated"), qr_bool(res.next_offset >= 0));
    if (res.next_offset >= 0)
        qr_mapb_put(&mb, qr_kw_cstr(a, "next_offset"), qr_int(res.next_offset));
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static const qr_tool_param search_codebase_params[] = {
    {.name = "question",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "a question about the code in plain words (who calls X, what does X call, where "
             "is X defined, which files include H, ...)"},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .def = "50",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 10000,
     .desc = "at most this many rows come back (a page)"},
    {.name = "offset",
     .type = QR_TOOL_INTEGER,
     .def = "0",
     .has_min = true,
     .min = 0,
     .desc = "the first row of the page (the previous call's next_offset)"},
    {.name = "repos",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .desc = "ask these repositories of the shared code index instead of this one: their "
             "names, or [\"all\"]; each row then names its repo (needs QUARRY_DATABASE_URL; "
             "each repository as its last `quarry code index` recorded it)",
     .brief = "other repositories of the shared code index (names, or [\"all\"]); rows get repo"},
    {.name = NULL},
};

static const qr_tool search_codebase_tool = {
    .name = "search_codebase",
    .summary = "Answer a question about the code in plain words: common questions by template "
               "(no model: the question is read as relation, subject and filters), others by "
               "one model call that writes SPARQL over the code graph.",
    .params = search_codebase_params,
    .result = "{:how \"template:NAME\" or \"model\" :model_calls N :sparql \"...\" :vars "
              ":rows :total :truncated (+ :next_offset :hint; :note when the rows are not "
              "from SPARQL)}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"how\": {\"type\": \"string\"}, "
                     "\"model_calls\": {\"type\": \"integer\"}, \"sparql\": {\"type\": "
                     "\"string\"}, \"note\": {\"type\": \"string\"}, \"vars\": {\"type\": "
                     "\"array\"}, \"rows\": {\"type\": \"array\"}, \"total\": {\"type\": "
                     "\"integer\"}, \"truncated\": {\"type\": \"boolean\"}}}",
    .handler = search_codebase_fn,
    .caps = QR_TOOL_READS_REPO | QR_TOOL_MODEL,
};

const qr_tool *const qr_codesearch_tools[] = {&search_codebase_tool, NULL};
