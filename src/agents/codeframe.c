/*
 * codeframe.c: search_codebase's frame reader (a question as relation x subject x
 * filters, see codeframe.h) and the one answer the graph's edges cannot give by
 * themselves: which functions nobody uses. It exists so that a new way of asking is read
 * by what its words mean and where the subject stands, not by one more fixed phrasing.
 * Words are looked up in one lexicon of the shared plain-words module (quarry/words.h),
 * with its typo measure, so "callrs of X" reads as "callers of X"; a word the code index
 * knows as a name is never taken for a frame word.
 *
 * Rejected: "unused" as "no calls edge in" (it listed 288 of redis's static functions:
 * callbacks whose address is taken, functions called only from a file that #includes
 * their .c file, names used inside macro bodies). The answer reads the text of the files
 * instead: a name is used when it appears in code outside its own definition.
 */
#include "codeframe.h"

#include "quarry/words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the frame words ---- */
enum {
    W_CALL = 1,  /* call, calls, invokes: active */
    W_CALLED,    /* called, invoked: passive */
    W_CALLERS,   /* callers */
    W_CALLEES,   /* callees */
    W_USE,       /* uses: a caller of a function, an includer of a file */
    W_USED,      /* used, referenced: passive */
    W_INCLUDE,   /* include, pulls in, depends on: active */
    W_INCLUDED,  /* included: passive */
    W_INCLUDERS, /* includers, dependents */
    W_DEPS,      /* dependencies, deps, includes (noun) */
    W_DEFINE,    /* defined, declared, implemented, definition */
    W_NEVER,     /* never, not, don't: "unused" before a passive call word */
    W_NOBODY,    /* nobody, no, nothing: "unused" before an active call word */
    W_UNUSED,    /* unused, dead, uncalled, unreferenced */
    W_STATIC,    /* static, private, file-local */
    W_FUNCS,     /* functions */
    W_STRUCTS,   /* structs */
    W_MACROS,    /* macros */
    W_FILES,     /* files, headers, sources */
    W_TRANS,     /* eventually, transitively, indirectly */
    W_COUNT,     /* how many, count, number */
    W_IN,        /* in, inside, within, under */
    W_BY,        /* by */
    W_FROM,      /* from */
    W_OF,        /* of */
    W_WHERE,     /* where, location */
    W_INACTIVE,  /* inactive, disabled */
    W_STOP,      /* words that carry no slot */
    W_OTHER,     /* rankings, recursion, reasons: questions no frame here answers */
    W_DEPTH,     /* levels, deep, depth, hops */
    W_FIELD,     /* field, member: "which struct has a field named X" */
    W_VIA,       /* through, via, expanded: calls a macro writes */
    W_RECUR,     /* recursive, recursion, themselves, itself */
    W_LIB,       /* library, libc, external, system: functions defined elsewhere */
    W_LIKE,      /* like, matching, starting, prefixed: a name pattern */
    W_NUMBER,    /* a count: "2", "three" */
    W_COUNT_IDS
};

static const char *const words_call[] = {"call",    "calls",    "calling", "invoke",
                                         "invokes", "invoking", NULL};
static const char *const words_called[] = {"called", "invoked", NULL};
static const char *const words_callers[] = {"caller", "callers", "call-sites", "callsites", NULL};
static const char *const words_callees[] = {"callee", "callees", NULL};
static const char *const words_use[] = {"use", "uses", "using", "need", "needs", NULL};
static const char *const words_used[] = {"used", "needed", NULL};
static const char *const words_include[] = {
    "include",   "includes",  "including", "#include", "#includes", "import",    "imports",
    "importing", "pull",      "pulls",     "depend",   "depends",   "depending", "require",
    "requires",  "requiring", "rely",      "relies",   "relying",   NULL};
static const char *const words_included[] = {"included", "#included", "imported",
                                             "pulled",   "required",  NULL};
static const char *const words_includers[] = {"includers", "dependents", "importers", NULL};
static const char *const words_deps[] = {"dependencies", "deps", "dependency", "prerequisites",
                                         NULL};
static const char *const words_define[] = {
    "defined",     "declared", "implemented", "definition", "definitions",
    "declaration", "define",   "lives",       "located",    "implementation",
    "locate",      "find",     "contains",    "contain",    "containing",
    "holds",       "has",      "declares",    "defines",    "#defined",
    "#define'd",   NULL};
/* a negative subject ("nobody calls X") and a negated verb ("X is never called") */
static const char *const words_nobody[] = {"nobody", "noone",   "no",   "nothing",
                                           "none",   "without", "zero", NULL};
static const char *const words_never[] = {"never",  "not",     "don't",   "dont",  "doesn't",
                                          "doesnt", "aren't",  "arent",   "isn't", "isnt",
                                          "wasn't", "weren't", "nowhere", NULL};
static const char *const words_unused[] = {"unused", "dead",     "uncalled",    "unreferenced",
                                           "orphan", "orphaned", "unreachable", NULL};
static const char *const words_static[] = {"static",     "private",  "file-local",
                                           "file-scope", "internal", NULL};
static const char *const words_funcs[] = {
    "function", "functions", "func",      "funcs",      "fn",     "fns",     "routine", "routines",
    "method",   "methods",   "procedure", "procedures", "symbol", "symbols", NULL};
static const char *const words_structs[] = {"struct", "structs", "structure", "structures",
                                            "record", "records", "typedef", "typedefs", NULL};
static const char *const words_macros[] = {"macro", "macros", "#define", "#defines", NULL};
static const char *const words_field[] = {"field", "fields", "member", "members", "named",
                                          NULL};
static const char *const words_files[] = {"file",    "files",  "header",  "headers", "source",
                                          "sources", "module", "modules", NULL};
static const char *const words_trans[] = {
    "eventually", "transitively", "transitive", "indirectly",  "indirect",
    "ultimately", "end",          "ends",       "recursively", NULL};
static const char *const words_count[] = {"how", "many", "count", "number", NULL};
static const char *const words_in[] = {"in", "inside", "within", "under", "below", NULL};
static const char *const words_by[] = {"by", NULL};
static const char *const words_from[] = {"from", NULL};
static const char *const words_of[] = {"of", "for", NULL};
static const char *const words_where[] = {"where", "where's", "wheres", "location", NULL};
static const char *const words_inactive[] = {"inactive", "disabled", NULL};
static const char *const words_via[] = {"through", "via", "expanded", "expanding", "expansion",
                                        "expansions", NULL};
static const char *const words_lib[] = {"library", "libc", "external", "system", "stdlib",
                                        "standard", "extern", NULL};
static const char *const words_recur[] = {"recursive", "recursion", "themselves", "itself",
                                          "self-recursive", NULL};
static const char *const words_like[] = {"like",     "matching", "match",    "matches",
                                         "starting", "starts",   "start",    "beginning",
                                         "begins",   "prefixed", "prefix",   "pattern",
                                         "glob",     NULL};
static const char *const words_other[] = {
    "most",    "least",      "largest",   "biggest",   "longest",    "smallest", "shortest",
    "fewest",  "top",        "why",
    "often",   "frequently", "popular",   "complex",   "lines",      "size",     "average",
    "between", "path",       "cycle",     "cycles",    "loop",       "loops",    "ranked",
    "rank",    "sorted",     NULL};
static const char *const words_depth[] = {"level", "levels", "deep",   "depth", "hop",
                                          "hops",  "steps",  "layers", NULL};
static const char *const words_stop[] = {
    "who",       "what",     "which",      "whom",     "whose",      "is",        "are",
    "was",       "were",     "be",         "been",     "does",       "do",        "did",
    "the",       "a",        "an",         "that",     "this",       "these",     "those",
    "all",       "every",    "each",       "any",      "list",       "show",      "me",
    "give",      "get",      "gets",       "there",    "ever",       "at",        "to",
    "and",       "i",        "can",        "you",      "it",         "its",       "up",
    "on",        "into",     "what's",     "who's",    "which's",    "tell",      "let",
    "know",      "see",      "display",    "print",    "please",     "directly",  "actually",
    "currently", "code",     "codebase",   "repo",     "repository", "project",   "place",
    "places",    "spot",     "spots",      "site",     "sites",      "kind",      "other",
    "else",      "anything", "everything", "everyone", "anyone",     "someone",   "something",
    "one",       "ones",     "exactly",    "else's",   "here",       "have",      "got",
    "with",      "make",     "makes",      "anywhere", "everywhere", "somewhere", "we",
    "our",       "us",       "my",         "or",       "across",     "throughout", "tree",
    "whole",     "entire",   "need",       "want",     "type",       NULL};

static const struct {
    const char *const *w;
    int id;
} frame_words[] = {{words_call, W_CALL},
                   {words_called, W_CALLED},
                   {words_callers, W_CALLERS},
                   {words_callees, W_CALLEES},
                   {words_use, W_USE},
                   {words_used, W_USED},
                   {words_include, W_INCLUDE},
                   {words_included, W_INCLUDED},
                   {words_includers, W_INCLUDERS},
                   {words_deps, W_DEPS},
                   {words_define, W_DEFINE},
                   {words_never, W_NEVER},
                   {words_nobody, W_NOBODY},
                   {words_unused, W_UNUSED},
                   {words_static, W_STATIC},
                   {words_funcs, W_FUNCS},
                   {words_structs, W_STRUCTS},
                   {words_macros, W_MACROS},
                   {words_files, W_FILES},
                   {words_trans, W_TRANS},
                   {words_count, W_COUNT},
                   {words_in, W_IN},
                   {words_by, W_BY},
                   {words_from, W_FROM},
                   {words_of, W_OF},
                   {words_where, W_WHERE},
                   {words_inactive, W_INACTIVE},
                   {words_stop, W_STOP},
                   {words_other, W_OTHER},
                   {words_depth, W_DEPTH},
                   {words_field, W_FIELD},
                   {words_via, W_VIA},
                   {words_recur, W_RECUR},
                   {words_lib, W_LIB},
                   {words_like, W_LIKE}};

/* A word as close to two frame words under the shared typo measure ("callrs": calls,
 * callers, called): the frame word fewest plain edits away; between a verb and its noun
 * ("calls", "callers") the noun when "of" follows. 0 when still undecided. */
static int closest(const char *w, size_t n, bool of)
{
    size_t best = SIZE_MAX;
    int id = 0, id2 = 0;
    for (size_t i = 0; i < sizeof frame_words / sizeof frame_words[0]; i++)
        for (size_t j = 0; frame_words[i].w[j]; j++) {
            const char *x = frame_words[i].w[j];
            size_t xl = strlen(x);
            if (!qr_words_typo(w, n, x, xl))
                continue;
            size_t d = qr_edit_distance(w, n, x, xl, QR_EDIT_TRANSPOSE);
            if (d < best)
                best = d, id = frame_words[i].id, id2 = 0;
            else if (d == best && frame_words[i].id != id)
                id2 = frame_words[i].id;
        }
    if (!id2)
        return id;
    static const int pairs[][2] = {{W_CALL, W_CALLERS}, {W_INCLUDE, W_INCLUDERS}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if ((id == pairs[i][0] && id2 == pairs[i][1]) || (id == pairs[i][1] && id2 == pairs[i][0]))
            return of ? pairs[i][1] : pairs[i][0];
    return 0;
}

static qr_lex *lexicon(void)
{
    static qr_lex *lex;
    if (lex)
        return lex;
    qr_lex *l = qr_lex_new();
    if (!l)
        return NULL;
    for (size_t i = 0; i < sizeof frame_words / sizeof frame_words[0]; i++)
        if (qr_lex_add_list(l, frame_words[i].w, frame_words[i].id) != QR_OK) {
            qr_lex_free(l);
            return NULL;
        }
    lex = l; /* built once, kept for the life of the process */
    return lex;
}

/* ---- tokens ---- */
#define MAXTOK 48

typedef struct tok {
    char w[CF_MAX + 1]; /* as written, quotes and "()" and "'s" off */
    int id;             /* a frame word, or 0: a name or a path */
    bool path;          /* looks like a file or directory path */
    bool ident;         /* one C identifier */
    long num;           /* W_NUMBER: its value */
    bool star;          /* an identifier with '*' in it: a name pattern ("HT_*") */
    bool fuzzy;         /* id is a typo's reading ("hash" as "has"), not the word itself */
    bool known;         /* a name the index holds */
} tok;

/* "HT_*", "*_free", "ev*buf": identifier characters and at least one '*' */
static bool star_ident(const char *w)
{
    bool letter = false;
    for (const char *c = w; *c; c++) {
        if (*c == '*')
            continue;
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
        letter = true;
    }
    return letter;
}

static bool looks_path(const char *w)
{
    if (strchr(w, '/'))
        return true;
    const char *dot = strrchr(w, '.');
    if (!dot || dot == w || !dot[1])
        return false;
    for (const char *p = dot + 1; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '+')
            return false;
    return true;
}

static bool is_ident(const char *w)
{
    if (!(isalpha((unsigned char)w[0]) || w[0] == '_'))
        return false;
    for (const char *p = w; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

static bool path_chars(const char *w)
{
    for (const char *p = w; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_./-+", *p))
            return false;
    return w[0] != '\0';
}

/* splits q into tokens; false when a token is neither a word, a name nor a path */
static bool tokenize(const char *q, tok *t, size_t *nt, bool (*known)(void *, const char *),
                     void *ud)
{
    qr_lex *lex = lexicon();
    if (!lex)
        return false;
    size_t n = 0;
    const char *p = q;
    while (*p) {
        while (*p && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && !isspace((unsigned char)*p) && *p != ',')
            p++;
        size_t len = (size_t)(p - s);
        if (n >= MAXTOK || len > CF_MAX)
            return false;
        char w[CF_MAX + 1];
        memcpy(w, s, len);
        w[len] = '\0';
        /* quotes, backticks, brackets and final punctuation off */
        size_t a = 0, b = len;
        while (a < b && strchr("`'\"<([{", w[a]))
            a++;
        while (b > a && strchr("`'\"?!.:;>)]}", w[b - 1]))
            b--;
        if (b - a >= 2 && w[b - 2] == '(' && w[b - 1] == ')')
            b -= 2; /* foo() */
        else if (b - a >= 2 && w[b - 1] == '(')
            b--; /* `foo()`: the ')' went with the quote */
        while (b > a && strchr("`'\"", w[b - 1]))
            b--;
        if (b - a > 2 && w[b - 2] == '\'' && (w[b - 1] == 's' || w[b - 1] == 'S'))
            b -= 2; /* X's */
        if (b == a || strspn(w + a, "-:;") == b - a)
            continue; /* a dash or a colon alone: punctuation ("X -- who uses it?") */
        memmove(w, w + a, b - a);
        w[b - a] = '\0';
        tok *k = &t[n];
        snprintf(k->w, sizeof k->w, "%s", w);
        k->path = looks_path(w) && path_chars(w);
        k->ident = is_ident(w);
        k->star = !k->path && strchr(w, '*') && star_ident(w);
        k->id = 0;
        k->fuzzy = false;
        k->num = 0;
        k->known = k->ident && known && known(ud, w);
        if (!k->path) {
            char low[CF_MAX + 1];
            size_t wl = strlen(w);
            bool alpha = true;
            for (size_t i = 0; i <= wl; i++) {
                low[i] = (char)tolower((unsigned char)w[i]);
                if (i < wl && !(isalpha((unsigned char)w[i]) || strchr("-'#", w[i])))
                    alpha = false;
            }
            qr_lex_hit h = qr_lex_find(lex, low, wl);
            bool lower = !strcmp(low, w);
            bool typo_ok = alpha && lower && !(known && known(ud, w));
            if (h.id == QR_LEX_AMBIGUOUS && h.cost > 0 && typo_ok) {
                const char *nx = p;
                while (*nx == ' ' || *nx == ',')
                    nx++;
                bool of = !strncasecmp(nx, "of ", 3) || !strncasecmp(nx, "for ", 4);
                int id = closest(low, wl, of);
                if (id > 0)
                    h.id = id;
            }
            /* an exact frame word; a typo of one only when it is lower case and no name */
            if (h.id > 0 && (h.cost == 0 || typo_ok)) {
                k->id = h.id;
                k->fuzzy = h.cost > 0;
            }
            long num = qr_words_number(w, wl);
            /* a number word read as a typo of another ("three" of "there") is the number */
            if ((k->id == 0 || k->id == W_STOP) && num >= 0 &&
                (isdigit((unsigned char)w[0]) || k->id == 0 || h.cost > 0)) {
                k->id = W_NUMBER;
                k->num = num;
            }
            if (k->id == 0 && !k->ident && !k->star && !path_chars(w))
                return false;
        }
        n++;
    }
    *nt = n;
    return true;
}

static int find(const tok *t, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return (int)i;
    return -1;
}

static bool has(const tok *t, size_t n, int id)
{
    return find(t, n, id) >= 0;
}

static bool read_frame(tok *t, size_t n, cf_frame *f);

/* an auxiliary ("does", "do", "did") between tokens a and b */
static bool aux_between(const tok *t, int a, int b)
{
    for (int i = a + 1; i < b; i++)
        if (!strcasecmp(t[i].w, "does") || !strcasecmp(t[i].w, "do") || !strcasecmp(t[i].w, "did"))
            return true;
    return false;
}

/* the filters each relation can apply: any other filter the question gives would be
 * silently dropped, so the frame is refused instead */
static bool frame_fits(const tok *t, size_t n, const cf_frame *f)
{
    cf_rel r = f->rel;
    if (f->statics && r != CF_UNUSED && r != CF_LIST && r != CF_COUNT)
        return false; /* "what does X call that is static" */
    if (f->transitive && r != CF_CALLERS && r != CF_CALLEES && r != CF_INCLUDERS &&
        r != CF_INCLUDES)
        return false;
    if (f->depth && r != CF_CALLERS && r != CF_CALLEES)
        return false;
    if (f->inactive && r != CF_CALLERS && r != CF_CALLEES && r != CF_LIST && r != CF_RECURSIVE)
        return false;
    if (f->via && r != CF_CALLEES && r != CF_CALLERS)
        return false;
    if (f->pattern && r != CF_LIST)
        return false;
    if (f->external && r != CF_CALLEES)
        return false;
    if ((f->headers || f->sources) && r != CF_INCLUDERS)
        return false; /* "functions in .c files": not read */
    if (f->what != CF_FUNCTIONS && r != CF_LIST && r != CF_DEFINITION && r != CF_FIELD &&
        r != CF_MEMBERS)
        return false; /* "which macros call X" */
    if (has(t, n, W_COUNT) && r != CF_COUNT && !f->count)
        return false; /* "how many includers": a count this reader does not make */
    if (f->in[0] && (r == CF_INCLUDERS || r == CF_INCLUDES || r == CF_COUNT))
        return false;
    return true;
}

bool qr__codeframe_read(const char *question, cf_frame *f, bool (*known)(void *ud, const char *w),
                        void *ud)
{
    memset(f, 0, sizeof *f);
    tok t[MAXTOK];
    size_t n = 0;
    if (!tokenize(question, t, &n, known, ud) || n == 0)
        return false;
    /* "how many callers does X have", "number of functions calling X": the callers
       counted (one step, no other filter) */
    bool ok = read_frame(t, n, f);
    if (ok && has(t, n, W_COUNT) && f->rel == CF_CALLERS && !f->transitive && !f->depth &&
        !f->only[0] && !f->in[0])
        f->count = true;
    /* "how many files include H": its includers counted */
    if (ok && has(t, n, W_COUNT) && f->rel == CF_INCLUDERS)
        f->count = true;
    if (!ok || !frame_fits(t, n, f)) {
        memset(f, 0, sizeof *f);
        return false;
    }
    return true;
}

/* A word as written, compared without case. */
static bool word_is(const tok *t, size_t n, size_t i, const char *w)
{
    return i < n && !strcasecmp(t[i].w, w);
}

/* "X -- who uses it?", "ngx_palloc: what calls it": the name said first and taken up by
 * "it" after the verb stands where "it" is. */
static void take_pronoun(tok *t, size_t n)
{
    int name = -1, it = -1, names = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].id == 0 && t[i].ident)
            names++, name = name < 0 ? (int)i : name;
        if (it < 0 && (word_is(t, n, i, "it") || word_is(t, n, i, "them")))
            it = (int)i;
    }
    if (names != 1 || it < 0 || name > it)
        return;
    bool verb_between = false;
    for (int i = name + 1; i < it; i++)
        verb_between |= t[i].id == W_CALL || t[i].id == W_USE || t[i].id == W_INCLUDE ||
                        t[i].id == W_CALLED || t[i].id == W_USED;
    if (!verb_between)
        return;
    tok x = t[name];
    t[name] = t[it];
    t[name].id = W_STOP;
    t[it] = x;
}

/* "functions with base64 in the name", "whose name contains base64", "names containing
 * base64": the name pattern *X*; the words that said it carry no slot. */
static void take_contains(tok *t, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++) {
        int x = -1;
        size_t from = i, to = i;
        /* X in the name / in their names / in its name */
        if ((t[i].id == 0 || t[i].fuzzy) && t[i].ident && t[i + 1].id == W_IN) {
            size_t k = i + 2;
            if (word_is(t, n, k, "the") || word_is(t, n, k, "their") || word_is(t, n, k, "its"))
                k++;
            if (word_is(t, n, k, "name") || word_is(t, n, k, "names"))
                x = (int)i, from = i + 1, to = k;
        }
        /* name(s) contain(s|ing) X, name has X */
        if (x < 0 && (word_is(t, n, i, "name") || word_is(t, n, i, "names")) &&
            (word_is(t, n, i + 1, "contains") || word_is(t, n, i + 1, "containing") ||
             word_is(t, n, i + 1, "contain") || word_is(t, n, i + 1, "has") ||
             word_is(t, n, i + 1, "having") || word_is(t, n, i + 1, "includes") ||
             word_is(t, n, i + 1, "including") || word_is(t, n, i + 1, "with")) &&
            (t[i + 2].id == 0 || t[i + 2].fuzzy) && t[i + 2].ident)
            x = (int)i + 2, from = i, to = i + 1;
        /* "ending with _handler", "that end in _free", "suffixed _t": the pattern *X */
        bool suffix = false;
        if (x < 0 &&
            (word_is(t, n, i, "end") || word_is(t, n, i, "ends") || word_is(t, n, i, "ending") ||
             word_is(t, n, i, "suffixed") || word_is(t, n, i, "suffix")) &&
            (word_is(t, n, i + 1, "with") || word_is(t, n, i + 1, "in") ||
             word_is(t, n, i + 1, "by")) &&
            (t[i + 2].id == 0 || t[i + 2].fuzzy) && t[i + 2].ident)
            x = (int)i + 2, from = i, to = i + 1, suffix = true;
        if (x < 0 && (word_is(t, n, i, "suffixed") || word_is(t, n, i, "suffix")) &&
            (t[i + 1].id == 0 || t[i + 1].fuzzy) && t[i + 1].ident)
            x = (int)i + 1, from = i, to = i, suffix = true;
        if (x < 0)
            continue;
        size_t wl = strlen(t[x].w);
        if (wl + 3 > sizeof t[x].w)
            return;
        memmove(t[x].w + 1, t[x].w, wl);
        t[x].w[0] = '*';
        t[x].w[wl + 1] = suffix ? '\0' : '*';
        t[x].w[wl + 2] = '\0';
        t[x].star = true;
        t[x].id = 0;
        for (size_t k = from; k <= to; k++)
            t[k].id = W_STOP;
        /* "whose", "with" before: the pattern's */
        if (from > 0 && (word_is(t, n, from - 1, "whose") || word_is(t, n, from - 1, "with")))
            t[from - 1].id = W_STOP;
        return;
    }
}

/* "the 5 longest functions", "biggest functions in src/", "which three headers are
 * included most often", "top 10 most included headers": a ranking of functions by lines or
 * of headers by their includers, with how many (a number or none: ten). Any other word
 * that is not filler is not this frame. */
static bool read_ranking(const tok *t, size_t n, int in, cf_frame *f)
{
    bool longest = false, most = false, funcs = false, headers = false, included = false;
    bool one = false; /* "the longest function": one */
    int limit = 0;
    for (size_t i = 0; i < n; i++) {
        const char *w = t[i].w;
        switch (t[i].id) {
        case W_OTHER:
            if (!strcasecmp(w, "longest") || !strcasecmp(w, "largest") ||
                !strcasecmp(w, "biggest"))
                longest = true;
            else if (!strcasecmp(w, "most") || !strcasecmp(w, "often") ||
                     !strcasecmp(w, "frequently") || !strcasecmp(w, "popular"))
                most = true;
            else if (strcasecmp(w, "top") && strcasecmp(w, "lines") && strcasecmp(w, "size") &&
                     strcasecmp(w, "ranked") && strcasecmp(w, "sorted"))
                return false;
            break;
        case W_NUMBER:
            if (limit || t[i].num < 1 || t[i].num > 100)
                return false;
            limit = (int)t[i].num;
            break;
        case W_FUNCS:
            funcs = true;
            one |= strcasecmp(w, "function") == 0 || strcasecmp(w, "func") == 0 ||
                   strcasecmp(w, "routine") == 0 || strcasecmp(w, "method") == 0;
            break;
        case W_FILES:
            headers = true;
            break;
        case W_INCLUDED:
        case W_INCLUDE:
        case W_DEPS:
            included = true;
            break;
        case W_STOP:
        case W_OF:
        case W_IN:
        case W_BY:
            break;
        default:
            if ((int)i != in)
                return false;
        }
    }
    if (longest && funcs && !most && !headers && !included) {
        f->rel = CF_LONGEST;
        if (in >= 0)
            snprintf(f->in, sizeof f->in, "%s", t[in].w);
    } else if (most && included && !longest && !funcs && in < 0) {
        f->rel = CF_MOST_INCLUDED;
        (void)headers; /* "which headers", "which files", or neither ("most included") */
    } else {
        return false;
    }
    f->limit = limit ? limit : one ? 1 : 0;
    return true;
}

/* Words around the frame that say nothing to it, or a filter in other words: ".c files"
 * (sources only), ".h files" (headers only), "whose names start with", "with (their) line
 * numbers" (every row has its line), "in htop" (a word after "in" or "across" that is no
 * name the index holds, no path and no frame word: the project, the whole tree). */
static void take_asides(tok *t, size_t n, cf_frame *f)
{
    for (size_t i = 0; i + 1 < n; i++) {
        const char *w = t[i].w;
        if (t[i + 1].id == W_FILES && w[0] == '.' && w[1]) {
            if (!strcmp(w, ".h") || !strcmp(w, ".hpp") || !strcmp(w, ".hh"))
                f->headers = true, t[i].id = W_STOP;
            else if (!strcmp(w, ".c") || !strcmp(w, ".cc") || !strcmp(w, ".cpp"))
                f->sources = true, t[i].id = W_STOP;
        }
        if (word_is(t, n, i, "whose") && (word_is(t, n, i + 1, "name") ||
                                          word_is(t, n, i + 1, "names")))
            t[i].id = t[i + 1].id = W_STOP;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        size_t j = i + 1;
        if (!word_is(t, n, i, "with"))
            continue;
        if (word_is(t, n, j, "their") || word_is(t, n, j, "the") || word_is(t, n, j, "its"))
            j++;
        if (!(word_is(t, n, j, "line") || word_is(t, n, j, "lines")))
            continue;
        if (word_is(t, n, j + 1, "numbers") || word_is(t, n, j + 1, "number"))
            j++;
        for (size_t k = i; k <= j; k++)
            t[k].id = W_STOP;
        if (i > 0 && word_is(t, n, i - 1, "along"))
            t[i - 1].id = W_STOP;
    }
    /* "public", "exported", "non-static": the functions other files can call */
    for (size_t i = 0; i < n; i++) {
        if (word_is(t, n, i, "public") || word_is(t, n, i, "exported") ||
            word_is(t, n, i, "non-static") || word_is(t, n, i, "nonstatic") ||
            word_is(t, n, i, "extern") || word_is(t, n, i, "externally-visible")) {
            f->nonstatic = true;
            t[i].id = W_STOP;
        } else if (word_is(t, n, i, "non") && word_is(t, n, i + 1, "static")) {
            f->nonstatic = true;
            t[i].id = t[i + 1].id = W_STOP;
        }
    }
    /* "(direct calls only)", "directly": one step, whatever else says eventually ("what
     * does X end up calling (direct calls only)"); the call word of the aside is not a
     * second question when another one asks */
    for (size_t i = 0; i < n; i++) {
        if (!(word_is(t, n, i, "direct") || word_is(t, n, i, "directly") ||
              word_is(t, n, i, "immediate") || word_is(t, n, i, "immediately")))
            continue;
        /* "directly or indirectly", "indirect or direct": the whole chain */
        if (word_is(t, n, i + 1, "or") || word_is(t, n, i + 1, "and") ||
            (i > 0 && (word_is(t, n, i - 1, "or") || word_is(t, n, i - 1, "and")))) {
            t[i].id = W_STOP;
            continue;
        }
        f->direct = true;
        t[i].id = W_STOP;
        size_t j = i + 1;
        bool call_next = j < n && (t[j].id == W_CALL || t[j].id == W_CALLEES ||
                                   t[j].id == W_CALLERS || t[j].id == W_CALLED);
        bool other = false;
        for (size_t k = 0; k < n; k++)
            other |= k != j && (t[k].id == W_CALL || t[k].id == W_CALLEES ||
                                t[k].id == W_CALLERS || t[k].id == W_CALLED);
        if (call_next && other) {
            t[j].id = W_STOP;
            if (word_is(t, n, j + 1, "only"))
                t[j + 1].id = W_STOP;
        }
    }
    for (size_t i = 0; f->direct && i < n; i++)
        if (t[i].id == W_TRANS)
            t[i].id = W_STOP;
    for (size_t i = 0; i + 1 < n; i++) {
        /* a project's name: lower-case letters only ("kv_put" is a function's) */
        const char *w = t[i + 1].w;
        bool plain = w[0] != '\0';
        for (const char *c = w; *c; c++)
            plain &= islower((unsigned char)*c) != 0;
        if ((word_is(t, n, i, "in") || word_is(t, n, i, "across")) && t[i + 1].id == 0 &&
            t[i + 1].ident && !t[i + 1].known && !t[i + 1].path && i + 2 == n && plain)
            t[i].id = t[i + 1].id = W_STOP;
    }
}

static bool read_frame(tok *t, size_t n, cf_frame *f)
{
    take_pronoun(t, n);
    take_contains(t, n);
    take_asides(t, n, f);
    /* "does X call Y", "is X ever called by Y", "does X use Y": whether that one call is
       there: X's callees that are Y, or X's callers that are Y (a row, or none) */
    static const char *const AUX[] = {"does", "do", "did", "is", "are", "was", "can", "could",
                                      "will", "would", NULL};
    bool yesno = false;
    for (size_t k = 0; AUX[k] && n; k++)
        yesno |= word_is(t, n, 0, AUX[k]);
    int names[3], nn = 0;
    for (size_t i = 0; i < n && nn < 3; i++)
        if (t[i].id == 0 && t[i].ident)
            names[nn++] = (int)i;
    if (yesno && nn == 2) {
        int a = names[0], b = names[1], verb = 0;
        bool other = false;
        for (int i = a + 1; i < b; i++) {
            int id = t[i].id;
            if (id == W_CALL || id == W_USE)
                verb = verb ? -1 : W_CALL;
            else if (id == W_CALLED || id == W_USED)
                verb = verb ? -1 : W_CALLED;
            else if (id != W_STOP && id != W_BY && id != W_FROM && id != W_IN && id != 0)
                other = true;
        }
        for (int i = b + 1; i < (int)n; i++)
            other |= t[i].id != W_STOP;
        if (verb > 0 && !other && !has(t, n, W_OTHER)) {
            f->rel = verb == W_CALL ? CF_CALLEES : CF_CALLERS;
            snprintf(f->subject, sizeof f->subject, "%s", t[a].w);
            snprintf(f->only, sizeof f->only, "%s", t[b].w);
            f->external = verb == W_CALL; /* "does X call memcpy": a library call too */
            return true;
        }
    }
    /* "pull in": one verb, not a place */
    for (size_t i = 1; i < n; i++)
        if (t[i].id == W_IN && (t[i - 1].id == W_INCLUDE || t[i - 1].id == W_INCLUDED) &&
            !strncasecmp(t[i - 1].w, "pull", 4))
            t[i].id = W_STOP;
    /* the subject: the one word that is no frame word; "in FILE" / "under DIR" (a path
     * after in, inside, under, or a path ending the question after "from"): where */
    int subj = -1, in = -1, nsubj = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].id)
            continue;
        bool after_in =
            i > 0 && (t[i - 1].id == W_IN || (t[i - 1].id == W_FROM && t[i].path && i + 1 == n));
        if (after_in && in < 0 && path_chars(t[i].w)) {
            in = (int)i;
            continue;
        }
        nsubj++;
        subj = (int)i;
    }
    if (nsubj > 1)
        return false; /* two names: which one is asked about is not clear */
    /* "what gets called in kv_put": a name (not a path) after "in" with no other subject
     * is the subject, "in" standing for "by" */
    if (subj < 0 && in >= 0 && !t[in].path && t[in].ident && t[in - 1].id == W_IN &&
        (has(t, n, W_CALLED) || has(t, n, W_CALL))) {
        subj = in;
        in = -1;
        t[subj - 1].id = W_BY;
    }
    if (has(t, n, W_OTHER) && subj < 0 && read_ranking(t, n, in, f))
        return true;
    if (has(t, n, W_OTHER))
        return false;
    /* "including disabled code", "with inactive code": a filter, not an include verb */
    for (size_t i = 0; i < n; i++)
        if (t[i].id == W_INACTIVE || t[i].id == W_LIB)
            for (size_t j = i >= 3 ? i - 3 : 0; j < i; j++)
                if (t[j].id == W_INCLUDE || t[j].id == W_USE)
                    t[j].id = W_STOP;
    /* "functions that call themselves recursively": with no name to follow, "recursively"
       says recursion, not "eventually" */
    for (size_t i = 0; subj < 0 && i < n; i++)
        if (word_is(t, n, i, "recursively"))
            t[i].id = W_RECUR;
    f->statics = has(t, n, W_STATIC);
    f->transitive = has(t, n, W_TRANS);
    /* "what calls X, and what calls those", "callers of the callers of X": two steps */
    int calls_said = 0, second = -1;
    for (size_t i = 0; i < n; i++)
        if (t[i].id == W_CALL || t[i].id == W_CALLERS || t[i].id == W_CALLED) {
            calls_said++;
            if (calls_said == 2)
                second = (int)i;
        }
    bool again = false;
    for (size_t i = 0; second >= 0 && i < n; i++)
        again |= word_is(t, n, i, "those") || word_is(t, n, i, "them") ||
                 word_is(t, n, i, "these") || word_is(t, n, i, "their") ||
                 (t[i].id == W_CALLERS && (int)i != second);
    if (calls_said == 2 && again && !has(t, n, W_NUMBER) && !has(t, n, W_DEPTH) &&
        !has(t, n, W_TRANS)) {
        for (size_t i = (size_t)second; i < n; i++)
            if (t[i].id == W_CALL || t[i].id == W_CALLERS || t[i].id == W_CALLED)
                t[i].id = W_STOP;
        f->depth = 2;
    } else if (calls_said >= 2 && !has(t, n, W_NUMBER) && !has(t, n, W_DEPTH) &&
               !has(t, n, W_TRANS)) {
        /* two call words not read as two steps ("what does X call and who calls it"):
           two questions, or which one is asked is not clear */
        return false;
    }
    /* "two levels deep", "depth 3", "within 2 hops": a number only with a depth word */
    int num = find(t, n, W_NUMBER);
    if (num >= 0) {
        if (!has(t, n, W_DEPTH) || t[num].num < 1 || t[num].num > 8 ||
            find(t + num + 1, n - (size_t)num - 1, W_NUMBER) >= 0)
            return false;
        f->depth = (int)t[num].num;
        f->transitive = false;
    } else if (has(t, n, W_DEPTH) && f->depth != 2) {
        return false;
    }
    f->inactive = has(t, n, W_INACTIVE);
    /* "through macros", "with macros expanded": how calls are counted, not what is listed */
    for (size_t i = 0; i < n; i++)
        if (t[i].id == W_VIA)
            for (size_t j = i >= 2 ? i - 2 : 0; j < n && j <= i + 2; j++)
                if (t[j].id == W_MACROS)
                    t[j].id = W_STOP;
    f->via = has(t, n, W_VIA);
    /* "including library calls", "with libc functions": what is called, defined or not */
    for (size_t i = 0; i < n; i++)
        if (t[i].id == W_LIB)
            for (size_t j = i + 1; j < n && j <= i + 2; j++)
                if (t[j].id == W_CALL || t[j].id == W_FUNCS || t[j].id == W_CALLEES)
                    t[j].id = W_STOP;
    f->external = has(t, n, W_LIB);
    if (has(t, n, W_STRUCTS))
        f->what = CF_STRUCTS;
    else if (has(t, n, W_MACROS) && !has(t, n, W_FUNCS))
        f->what = CF_MACROS;
    for (size_t i = 0; i < n; i++)
        f->typedefs |= t[i].id == W_STRUCTS &&
                       (!strcasecmp(t[i].w, "typedef") || !strcasecmp(t[i].w, "typedefs"));
    int vcall = find(t, n, W_CALL), vcalled = find(t, n, W_CALLED), vuse = find(t, n, W_USE),
        vused = find(t, n, W_USED), vinc = find(t, n, W_INCLUDE), vinced = find(t, n, W_INCLUDED);
    /* a negation of being called: "nobody calls", "no callers" (a negative subject before
     * an active word), "never called", "isn't used" (a negated passive word); any other
     * ("functions that never call X", "don't call anything") is not "unused" */
    bool never = false, never_other = false;
    for (size_t i = 0; i < n; i++) {
        if (t[i].id != W_NEVER && t[i].id != W_NOBODY)
            continue;
        bool ok = false;
        for (size_t j = i + 1; j < n && !ok; j++) {
            int id = t[j].id;
            if (t[i].id == W_NOBODY)
                ok = id == W_CALL || id == W_USE || id == W_CALLERS || id == W_CALLED ||
                     id == W_USED;
            else
                ok = id == W_CALLED || id == W_USED;
            if (id == W_CALL || id == W_USE || id == W_CALLERS || id == W_CALLED || id == W_USED)
                break; /* only the first call word after the negation counts */
        }
        if (ok)
            never = true;
        else
            never_other = true;
    }
    bool never_after = never_other;
    bool callish = vcall >= 0 || vcalled >= 0 || vuse >= 0 || vused >= 0 || has(t, n, W_CALLERS);
    bool subject_path = subj >= 0 && t[subj].path;

    /* unused: "unused", "dead", or a negation with a call word ("never called", "nobody
     * calls", "no callers"); the only name allowed is where ("in FILE") */
    if (has(t, n, W_UNUSED) || (never && callish)) {
        if (never_after)
            return false;
        if (subj >= 0 && in < 0 && subject_path) {
            in = subj;
            subj = -1;
        }
        if (subj >= 0 || f->what != CF_FUNCTIONS)
            return false;
        f->rel = CF_UNUSED;
        if (in >= 0)
            snprintf(f->in, sizeof f->in, "%s", t[in].w);
        return true;
    }
    if (never || never_after)
        return false; /* a negation this reader does not know how to apply */
    if (in >= 0)
        snprintf(f->in, sizeof f->in, "%s", t[in].w);
    /* how many FUNCS in DIR */
    if (has(t, n, W_COUNT) && has(t, n, W_FUNCS) && !callish && vinc < 0) {
        const tok *w = subj >= 0 ? &t[subj] : in >= 0 ? &t[in] : NULL;
        if (!w || (subj >= 0 && in >= 0) || !path_chars(w->w))
            return false;
        f->rel = CF_COUNT;
        f->subject_path = true;
        if (f->what != CF_FUNCTIONS)
            return false;
        snprintf(f->subject, sizeof f->subject, "%s", w->w);
        f->in[0] = '\0';
        return true;
    }
    /* "recursive functions (in FILE)", "which functions call themselves" */
    if (has(t, n, W_RECUR)) {
        if (subj >= 0 || f->what != CF_FUNCTIONS || has(t, n, W_COUNT) || vinc >= 0 ||
            vinced >= 0 || f->statics)
            return false;
        f->rel = CF_RECURSIVE;
        return true;
    }
    /* "macros named like HT_*", "functions starting with evbuffer_", "functions matching
       *_free": the names of that pattern; "starting with X" is "X*" */
    if (subj >= 0 && (t[subj].star || (t[subj].ident && has(t, n, W_LIKE))) &&
        (has(t, n, W_FUNCS) || has(t, n, W_MACROS) || has(t, n, W_STRUCTS)) && !callish &&
        vinc < 0 && vinced < 0 && !has(t, n, W_COUNT)) {
        f->rel = CF_LIST;
        f->pattern = true;
        bool prefix = !t[subj].star;
        for (size_t i = 0; i < n && prefix; i++)
            if (t[i].id == W_LIKE && (!strcmp(t[i].w, "like") || !strcmp(t[i].w, "matching") ||
                                       !strcmp(t[i].w, "match") || !strcmp(t[i].w, "matches") ||
                                       !strcmp(t[i].w, "pattern") || !strcmp(t[i].w, "glob")))
                prefix = false;
        if (!t[subj].star && !prefix)
            return false; /* "functions like foo": like it how? */
        size_t wl = strlen(t[subj].w);
        if (wl + 1 >= sizeof f->subject)
            return false;
        memcpy(f->subject, t[subj].w, wl);
        f->subject[wl] = prefix ? '*' : '\0';
        f->subject[wl + 1] = '\0';
        return true;
    }
    if (has(t, n, W_LIKE))
        return false;
    if (subj < 0) {
        /* lists with no subject: "static functions", "static functions in server.c" */
        if (f->statics && has(t, n, W_FUNCS) && !callish && vinc < 0 && vinced < 0 &&
            !has(t, n, W_COUNT)) {
            f->rel = CF_LIST;
            return true;
        }
        /* "functions in FILE", "structs in ae.h" */
        if (in >= 0 && (has(t, n, W_FUNCS) || has(t, n, W_STRUCTS) || has(t, n, W_MACROS)) &&
            !callish && vinc < 0 && vinced < 0 && !has(t, n, W_COUNT) && t[in].path) {
            f->rel = CF_LIST;
            return true;
        }
        return false;
    }
    snprintf(f->subject, sizeof f->subject, "%s", t[subj].w);
    f->subject_path = subject_path;
    if (!subject_path && !t[subj].ident)
        return false;

    /* "which struct has a field named X", "X is a member of which struct": the structs
       (and unions) that have a member of that name */
    if (has(t, n, W_FIELD) && !subject_path) {
        for (size_t i = 0; i < n; i++)
            if (t[i].id && t[i].id != W_FIELD && t[i].id != W_STRUCTS && t[i].id != W_STOP &&
                t[i].id != W_OF && t[i].id != W_IN && t[i].id != W_WHERE &&
                t[i].id != W_DEFINE &&
                !(t[i].id == W_CALLED && i > 0 && t[i - 1].id == W_FIELD)) /* "a field called x" */
                return false;
        /* which way: "which struct has a field named X", "X is a member of which struct"
           ask for the structs; "what fields does X have", "members of struct X", "X's
           fields" for X's members */
        size_t fi = n;
        for (size_t i = 0; i < n && fi == n; i++)
            if (t[i].id == W_FIELD)
                fi = i;
        bool structs_first = false, named = false, which_after = false;
        for (size_t i = 0; i < fi; i++)
            structs_first |= t[i].id == W_STRUCTS;
        named = subj > 0 && (t[subj - 1].id == W_CALLED || !strcmp(t[subj - 1].w, "named") ||
                             !strcmp(t[subj - 1].w, "called"));
        for (size_t i = fi + 1; i < n; i++)
            which_after |= (size_t)subj < fi && (!strcasecmp(t[i].w, "which") ||
                                         !strcasecmp(t[i].w, "what") ||
                                         !strcasecmp(t[i].w, "any") || !strcasecmp(t[i].w, "a"));
        f->rel = structs_first || named || which_after ? CF_FIELD : CF_MEMBERS;
        return !f->in[0];
    }
    /* calls */
    if (has(t, n, W_CALLERS) && !has(t, n, W_CALLEES)) {
        if (subject_path)
            return false;
        f->rel = CF_CALLERS;
        return true;
    }
    if (has(t, n, W_CALLEES) && !has(t, n, W_CALLERS)) {
        if (subject_path)
            return false;
        f->rel = CF_CALLEES;
        return true;
    }
    int verb = vcall >= 0 ? vcall : vcalled >= 0 ? vcalled : -1;
    bool passive = vcall < 0 && vcalled >= 0;
    /* "which calls does kv_put make": an auxiliary between the word and the subject makes
     * the word a noun of what the subject does */
    bool noun_call = verb >= 0 && aux_between(t, verb, subj);
    if (verb < 0 && !subject_path) {
        /* "who uses X", "where is X used" for a function */
        verb = vuse >= 0 ? vuse : vused >= 0 ? vused : -1;
        passive = vuse < 0 && vused >= 0;
    }
    if (verb >= 0 && vinc < 0 && vinced < 0) {
        if (subject_path)
            return false;
        bool after = subj > verb;
        /* passive: "what is called by X" names the caller after "by" or "from" */
        bool agent = false;
        for (int i = verb + 1; i < subj; i++)
            if (t[i].id == W_BY || t[i].id == W_FROM)
                agent = true;
        if (noun_call)
            f->rel = CF_CALLEES;
        else if (passive)
            f->rel = after && agent ? CF_CALLEES : after ? CF_NONE : CF_CALLERS;
        else
            f->rel = after ? CF_CALLERS : CF_CALLEES;
        /* "what does X call in FILE": the callee side has no place filter here */
        return f->rel != CF_NONE;
    }
    /* includes: a path, or a name given with include words */
    int iverb = vinc >= 0 ? vinc : vinced >= 0 ? vinced : -1;
    bool ipassive = vinc < 0 && vinced >= 0;
    if (iverb < 0 && subject_path) {
        iverb = vuse >= 0 ? vuse : vused >= 0 ? vused : -1;
        ipassive = vuse < 0 && vused >= 0;
    }
    if (iverb >= 0 && verb < 0) {
        if (!subject_path)
            return false; /* "what does parse_line depend on": not a file */
        bool after = subj > iverb;
        bool agent = false;
        for (int i = iverb + 1; i < subj; i++)
            if (t[i].id == W_BY || t[i].id == W_FROM)
                agent = true;
        if (!ipassive && after && iverb + 1 < (int)n && t[iverb + 1].id == W_OF)
            agent = ipassive = true; /* "includes of X", "the includes for X": a noun */
        /* "the #include list of X", "include lines in X": a noun too */
        if (!ipassive && after && iverb + 2 < (int)n &&
            (word_is(t, n, (size_t)iverb + 1, "list") || word_is(t, n, (size_t)iverb + 1, "lines") ||
             word_is(t, n, (size_t)iverb + 1, "statements") ||
             word_is(t, n, (size_t)iverb + 1, "directives")) &&
            (t[iverb + 2].id == W_OF || t[iverb + 2].id == W_IN))
            agent = ipassive = true;
        if (!ipassive && aux_between(t, iverb, subj))
            agent = ipassive = after = true; /* "which includes does F have" */
        if (ipassive)
            f->rel = after && agent ? CF_INCLUDES : after ? CF_NONE : CF_INCLUDERS;
        else
            f->rel = after ? CF_INCLUDERS : CF_INCLUDES;
        f->subject_path = true;
        /* "which headers include H": the includers that are headers */
        for (int i = 0; i < iverb && f->rel == CF_INCLUDERS; i++)
            if (t[i].id == W_FILES && !strncasecmp(t[i].w, "header", 6))
                f->headers = true;
        return f->rel != CF_NONE && !f->in[0];
    }
    if (has(t, n, W_INCLUDERS) && subject_path) {
        f->rel = CF_INCLUDERS;
        return !f->in[0];
    }
    if (has(t, n, W_DEPS) && subject_path) {
        f->rel = CF_INCLUDES;
        return !f->in[0];
    }
    if (subject_path) {
        /* "functions in FILE", "structs of ae.h", "FILE's functions", "headers of FILE" */
        /* "what does FILE define", "what is defined in FILE": its functions */
        bool defines = has(t, n, W_DEFINE) && !has(t, n, W_FUNCS) && !has(t, n, W_STRUCTS) &&
                       !has(t, n, W_MACROS) && !has(t, n, W_CALL) && !has(t, n, W_CALLED) &&
                       !has(t, n, W_USE) && !has(t, n, W_USED);
        if ((has(t, n, W_FUNCS) || has(t, n, W_STRUCTS) || has(t, n, W_MACROS) || defines) &&
            in < 0 && !has(t, n, W_WHERE) && !has(t, n, W_COUNT)) {
            snprintf(f->in, sizeof f->in, "%s", f->subject);
            f->subject[0] = '\0';
            f->subject_path = false;
            f->rel = CF_LIST;
            return true;
        }
        if (has(t, n, W_FILES) && find(t, n, W_FILES) < subj && has(t, n, W_OF) &&
            !has(t, n, W_FUNCS)) {
            f->rel = CF_INCLUDES; /* "headers of anet.c" */
            return !f->in[0];
        }
        return false;
    }
    /* a definition: "where is X (defined)", "definition of X", "find X", "in which file
     * is X", "what file has X" */
    if (has(t, n, W_DEFINE) || has(t, n, W_WHERE) || has(t, n, W_FILES)) {
        for (size_t i = 0; i < n; i++)
            if (t[i].id && t[i].id != W_DEFINE && t[i].id != W_WHERE && t[i].id != W_STOP &&
                t[i].id != W_OF && t[i].id != W_IN && t[i].id != W_FUNCS && t[i].id != W_STRUCTS &&
                t[i].id != W_MACROS && t[i].id != W_FILES && t[i].id != W_STATIC)
                return false;
        f->rel = CF_DEFINITION;
        f->kind_given = has(t, n, W_FUNCS) || has(t, n, W_STRUCTS) || has(t, n, W_MACROS);
        if (has(t, n, W_FUNCS) + has(t, n, W_STRUCTS) + has(t, n, W_MACROS) > 1)
            return false;
        return true;
    }
    /* "what is X", "what's X", "what does X look like": its definition */
    bool what = word_is(t, n, 0, "what") || word_is(t, n, 0, "what's") ||
                word_is(t, n, 0, "whats");
    bool look = false;
    for (size_t i = 0; i < n; i++) {
        if ((int)i == subj)
            continue;
        if (word_is(t, n, i, "look") || word_is(t, n, i, "like"))
            look = true;
        else if (t[i].id != W_STOP)
            return false;
    }
    if (what && !subject_path && (look || n <= 3)) {
        f->rel = CF_DEFINITION;
        return true;
    }
    return false;
}

/* ---- unused functions ---- */

/* a name -> the candidates that carry it (open addressing) */
typedef struct cand {
    size_t node;   /* the function's node */
    size_t file;   /* its file's index in the graph */
    size_t *scope; /* static: the files that may use it (its own and its includers) */
    size_t nscope;
    bool used;
    struct cand *next; /* the next candidate of the same name */
} cand;

typedef struct slot {
    const char *name;
    cand *first;
} slot;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static slot *lookup(slot *tab, size_t cap, const char *s, size_t n)
{
    for (size_t i = hash(s, n) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (!tab[i].name)
            return &tab[i];
        if (strlen(tab[i].name) == n && !memcmp(tab[i].name, s, n))
            return &tab[i];
    }
}

static bool in_place(const char *path, const char *in)
{
    if (!in || !in[0])
        return true;
    size_t pl = strlen(path), il = strlen(in);
    while (il && in[il - 1] == '/')
        il--;
    if (!il)
        return true;
    if (pl == il && !memcmp(path, in, il))
        return true;
    if (pl > il && !memcmp(path, in, il) && path[il] == '/')
        return true; /* a directory */
    if (pl > il && path[pl - il - 1] == '/' && !memcmp(path + pl - il, in, il))
        return true; /* a bare file name */
    return false;
}

static bool is_c(qr_code_lang l)
{
    return l == QR_CODE_LANG_C || l == QR_CODE_LANG_CPP;
}

/* true when offset off of file fi lies inside a definition or prototype named name */
static bool own_text(qr_code_graph *g, size_t fi, const char *name, size_t nlen, size_t off)
{
    char nm[CF_MAX + 1];
    if (nlen > CF_MAX)
        return false;
    memcpy(nm, name, nlen);
    nm[nlen] = '\0';
    const size_t *idx;
    size_t k = qr_code_graph_named(g, nm, &idx);
    const char *path = qr_code_graph_file(g, fi, NULL);
    for (size_t i = 0; i < k; i++) {
        const qr_code_node *nd = qr_code_graph_node(g, idx[i]);
        if ((nd->it.kind != QR_CODE_FUNCTION && nd->it.kind != QR_CODE_DECLARATION) ||
            strcmp(nd->file, path))
            continue;
        if (off >= nd->it.start_byte && off < nd->it.end_byte)
            return true;
    }
    return false;
}

/* the files that #include file fi, transitively, with fi itself */
static size_t includers_of(qr_code_graph *g, size_t fi, size_t **out)
{
    size_t nf = qr_code_graph_nfiles(g), n = 0;
    size_t *list = malloc((nf + 1) * sizeof *list);
    bool *seen = calloc(nf + 1, 1);
    if (!list || !seen) {
        free(list);
        free(seen);
        *out = NULL;
        return 0;
    }
    list[n++] = fi;
    seen[fi] = true;
    /* the #include lines the index left unresolved ("<ngx_core.h>" where the build's -I
       finds it), and those it resolved to a header in another folder than the includer's
       (htop's root files include "Platform.h", which the build finds in linux/ through
       -I, the index without a build in another platform's folder): matched by the
       header's file name, so a file that includes it through a search path counts (a name
       several headers share counts for each: more includers, never fewer) */
    size_t ne = qr_code_graph_nedges(g), nun = 0;
    size_t *unres = malloc((ne + 1) * sizeof *unres);
    for (size_t i = 0; unres && i < ne; i++) {
        const qr_code_edge *e = qr_code_graph_edge(g, i);
        if (e->kind != QR_CODE_E_INCLUDES || !e->file || !e->to_key)
            continue;
        const char *ts = strrchr(e->to_key, '/'), *fs = strrchr(e->file, '/');
        size_t td = ts ? (size_t)(ts - e->to_key) : 0, fd = fs ? (size_t)(fs - e->file) : 0;
        if (e->to < 0 || td != fd || strncmp(e->to_key, e->file, td))
            unres[nun++] = i;
    }
    for (size_t at = 0; at < n; at++) {
        const size_t *idx;
        const char *path = qr_code_graph_file(g, list[at], NULL);
        size_t k = qr_code_graph_edges_to(g, path, &idx);
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t bl = strlen(base);
        for (size_t i = 0; i < k + nun; i++) {
            const qr_code_edge *e = qr_code_graph_edge(g, i < k ? idx[i] : unres[i - k]);
            if (i >= k) {
                const char *w = e->to_key;
                size_t wl = strlen(w);
                if (wl && (w[0] == '<' || w[0] == '"'))
                    w++, wl -= 2;
                if (wl < bl || strncmp(w + wl - bl, base, bl) ||
                    (wl > bl && w[wl - bl - 1] != '/'))
                    continue;
            }
            if (e->kind != QR_CODE_E_INCLUDES || !e->file)
                continue;
            /* the includer's index: files are in path order */
            size_t lo = 0, hi = nf;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(qr_code_graph_file(g, mid, NULL), e->file) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < nf && !strcmp(qr_code_graph_file(g, lo, NULL), e->file) && !seen[lo]) {
                seen[lo] = true;
                list[n++] = lo;
            }
        }
    }
    free(seen);
    free(unres);
    *out = list;
    return n;
}

static size_t file_index(qr_code_graph *g, const char *path)
{
    size_t nf = qr_code_graph_nfiles(g), lo = 0, hi = nf;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(qr_code_graph_file(g, mid, NULL), path) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nf && !strcmp(qr_code_graph_file(g, lo, NULL), path) ? lo : SIZE_MAX;
}

/* calls fn(name, len, offset) for each identifier of C text outside comments, string and
 * character literals, and for a string literal that is one identifier */
static void scan_idents(const char *s, size_t n,
                        void (*fn)(void *ud, const char *w, size_t len, size_t off), void *ud)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
                i++;
            i += 2;
        } else if (c == '"' || c == '\'') {
            size_t b = ++i;
            bool ident = c == '"' && i < n && (isalpha((unsigned char)s[i]) || s[i] == '_');
            while (i < n && s[i] != c && s[i] != '\n') {
                if (s[i] == '\\')
                    i++, ident = false;
                else if (!isalnum((unsigned char)s[i]) && s[i] != '_')
                    ident = false;
                i++;
            }
            /* "RedisModule_OnLoad": a name looked up by its string (dlsym) is a use */
            if (ident && i < n && s[i] == '"' && i > b)
                fn(ud, s + b, i - b, b);
            i++;
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t b = i;
            while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
                i++;
            fn(ud, s + b, i - b, b);
        } else if (isdigit((unsigned char)c)) {
            while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.'))
                i++;
        } else {
            i++;
        }
    }
}

/* "RM_ ## name": a name made by pasting; the part written beside ## (a prefix or a
 * suffix of the names the macro makes) */
typedef struct paste {
    char part[CF_MAX + 1];
    bool prefix;
} paste;

typedef struct pastes {
    paste *v;
    size_t n, cap;
} pastes;

/* the second pass: what is left of a candidate's name without a pasted part ("Alloc" for
 * RM_Alloc under "RM_ ## name") stands for it where it is written */
typedef struct alias {
    char *name;
    cand *c;
} alias;

typedef struct scan {
    qr_code_graph *g;
    slot *tab;
    size_t cap;
    size_t fi;
    bool foreign; /* the text is a file fi includes, not fi's own (no definitions in it) */
    const char *text;
    size_t n;
    pastes *pp; /* where the pastes found are collected (first pass), or NULL */
    alias *al;  /* the second pass: aliases sorted by name, or NULL */
    size_t nal;
} scan;

static void note_paste(scan *sc, const char *w, size_t len, size_t off)
{
    if (!sc->pp || len > CF_MAX)
        return;
    size_t e = off + len, b = off;
    while (e < sc->n && (sc->text[e] == ' ' || sc->text[e] == '\t'))
        e++;
    while (b > 0 && (sc->text[b - 1] == ' ' || sc->text[b - 1] == '\t'))
        b--;
    bool pre = e + 1 < sc->n && sc->text[e] == '#' && sc->text[e + 1] == '#';
    bool suf = b >= 2 && sc->text[b - 1] == '#' && sc->text[b - 2] == '#';
    if (!pre && !suf)
        return;
    for (size_t i = 0; i < sc->pp->n; i++)
        if (sc->pp->v[i].prefix == pre && strlen(sc->pp->v[i].part) == len &&
            !memcmp(sc->pp->v[i].part, w, len))
            return;
    if (sc->pp->n == sc->pp->cap) {
        size_t nc = sc->pp->cap ? 2 * sc->pp->cap : 16;
        paste *v = realloc(sc->pp->v, nc * sizeof *v);
        if (!v)
            return;
        sc->pp->v = v;
        sc->pp->cap = nc;
    }
    paste *p = &sc->pp->v[sc->pp->n++];
    memcpy(p->part, w, len);
    p->part[len] = '\0';
    p->prefix = pre;
}

static bool in_scope(const cand *c, size_t fi)
{
    if (!c->scope)
        return true;
    for (size_t k = 0; k < c->nscope; k++)
        if (c->scope[k] == fi)
            return true;
    return false;
}

static int alias_cmp(const void *a, const void *b)
{
    return strcmp(((const alias *)a)->name, ((const alias *)b)->name);
}

static void on_alias(scan *sc, const char *w, size_t len)
{
    size_t lo = 0, hi = sc->nal;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(sc->al[mid].name, w, len);
        if (c == 0 && sc->al[mid].name[len])
            c = 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < sc->nal && !strncmp(sc->al[i].name, w, len) && !sc->al[i].name[len];
         i++)
        if (!sc->al[i].c->used && in_scope(sc->al[i].c, sc->fi))
            sc->al[i].c->used = true;
}

static bool shadowed(qr_code_graph *g, size_t fi, const char *name, size_t self);

static void on_ident(void *ud, const char *w, size_t len, size_t off)
{
    scan *sc = ud;
    if (sc->al) {
        on_alias(sc, w, len);
        return;
    }
    note_paste(sc, w, len, off);
    slot *sl = lookup(sc->tab, sc->cap, w, len);
    if (!sl->name)
        return;
    bool pending = false;
    for (cand *c = sl->first; c; c = c->next)
        pending |= !c->used;
    if (!pending || (!sc->foreign && own_text(sc->g, sc->fi, w, len, off)))
        return;
    for (cand *c = sl->first; c; c = c->next) {
        if (c->used)
            continue;
        if (!c->scope) {
            char nm[CF_MAX + 1];
            if (len <= CF_MAX) {
                memcpy(nm, w, len);
                nm[len] = '\0';
                if (shadowed(sc->g, sc->fi, nm, c->node))
                    continue;
            }
            c->used = true;
            continue;
        }
        for (size_t k = 0; k < c->nscope; k++)
            if (c->scope[k] == sc->fi) {
                c->used = true;
                break;
            }
    }
}

/* true when file fi defines a static function `name` other than node self: there the
 * name means that one */
static bool shadowed(qr_code_graph *g, size_t fi, const char *name, size_t self)
{
    const size_t *idx;
    size_t k = qr_code_graph_named(g, name, &idx);
    const char *path = qr_code_graph_file(g, fi, NULL);
    for (size_t i = 0; i < k; i++) {
        const qr_code_node *nd = qr_code_graph_node(g, idx[i]);
        if (idx[i] != self && nd->it.kind == QR_CODE_FUNCTION && (nd->it.flags & QR_CODE_STATIC) &&
            !strcmp(nd->file, path))
            return true;
    }
    return false;
}

/* the contents of root/rel (malloc'd, NUL-terminated), or NULL when it cannot be read */
static char *read_file(const char *root, const char *rel, size_t *len)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >= sizeof path || strstr(rel, ".."))
        return NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    enum { CAP = 8 << 20 };
    char *b = malloc(CAP + 1);
    size_t n = b ? fread(b, 1, CAP, fp) : 0;
    fclose(fp);
    if (!b)
        return NULL;
    b[n] = '\0';
    *len = n;
    return b;
}

/* Scans, as part of file fi, each file fi #includes in quotes that the index does not
 * hold. One that is in no directory the include can name, is not disabled and is not a
 * header (a library's, on some include path) makes the answer unknowable: QR_EINVAL
 * naming it. */
static int scan_unindexed(qr_code_graph *g, const char *root, size_t fi, const scan *tmpl,
                          qr_buf *err)
{
    const char *path = qr_code_graph_file(g, fi, NULL);
    const size_t *idx;
    size_t k = qr_code_graph_edges_from(g, path, &idx);
    for (size_t i = 0; i < k; i++) {
        const qr_code_edge *e = qr_code_graph_edge(g, idx[i]);
        if (e->kind != QR_CODE_E_INCLUDES || e->to >= 0 || !e->to_key || e->to_key[0] != '"')
            continue;
        size_t wl = strlen(e->to_key);
        if (wl < 3 || e->to_key[wl - 1] != '"')
            continue;
        char inner[1024], rel[2048];
        snprintf(inner, sizeof inner, "%.*s", (int)(wl - 2), e->to_key + 1);
        const char *slash = strrchr(path, '/');
        char *text = NULL;
        size_t len = 0;
        if (slash) {
            snprintf(rel, sizeof rel, "%.*s/%s", (int)(slash - path), path, inner);
            text = root ? read_file(root, rel, &len) : NULL;
        }
        if (!text && root)
            text = read_file(root, inner, &len);
        if (!text) {
            /* a header from elsewhere (a library's, found on an include path) declares
             * its own names, not ours; a missing table or .c might use ours */
            const char *dot = strrchr(inner, '.');
            if (e->inactive || (dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hpp") ||
                                        !strcmp(dot, ".hh") || !strcmp(dot, ".hxx"))))
                continue;
            qr_buf_printf(err,
                          "cannot tell which functions are unused: %s includes \"%s\", which "
                          "the code index does not hold and the working tree lacks",
                          path, inner);
            return QR_EINVAL;
        }
        scan sc = *tmpl;
        sc.fi = fi;
        sc.foreign = true;
        sc.text = text;
        sc.n = len;
        scan_idents(text, len, on_ident, &sc);
        free(text);
    }
    return QR_OK;
}

/* one pass over the C files (every one, or those marked) and what they #include */
static int scan_pass(qr_code_graph *g, const char *root, const qr_stop *stop, bool all_files,
                     const bool *scan_file, const scan *tmpl, qr_buf *err)
{
    size_t nf = qr_code_graph_nfiles(g);
    for (size_t fi = 0; fi < nf; fi++) {
        qr_code_lang lang;
        qr_code_graph_file(g, fi, &lang);
        if (!(all_files || scan_file[fi]) || !is_c(lang))
            continue;
        if (qr_stop_check(stop)) {
            qr_stop_describe(stop, err);
            return QR_ESTOPPED;
        }
        /* a file it #includes that is not indexed (redis's commands.c includes the
         * command table commands.def): read from the working tree as part of it */
        int rc = scan_unindexed(g, root, fi, tmpl, err);
        if (rc)
            return rc;
        int64_t node = qr_code_graph_file_node(g, qr_code_graph_file(g, fi, NULL));
        if (node < 0)
            continue;
        qr_arena ta;
        qr_arena_init(&ta, 0);
        const char *text = qr_code_graph_text(g, qr_code_graph_node(g, (size_t)node), &ta);
        if (text) {
            scan sc = *tmpl;
            sc.fi = fi;
            sc.text = text;
            sc.n = strlen(text);
            scan_idents(text, sc.n, on_ident, &sc);
        }
        qr_arena_release(&ta);
    }
    return QR_OK;
}

int qr__codeframe_unused(qr_code_graph *g, const char *root, const qr_stop *stop, const cf_frame *f,
                         size_t offset, size_t limit, qr_arena *a, qr_val *out, qr_buf *err)
{
    size_t nn = qr_code_graph_nnodes(g), nf = qr_code_graph_nfiles(g);
    size_t ncand = 0;
    for (size_t i = 0; i < nn; i++) {
        const qr_code_node *nd = qr_code_graph_node(g, i);
        if (nd->it.kind == QR_CODE_FUNCTION)
            ncand++;
    }
    size_t cap = 16;
    while (cap < 2 * ncand + 16)
        cap *= 2;
    cand *cs = calloc(ncand + 1, sizeof *cs);
    slot *tab = calloc(cap, sizeof *tab);
    bool *scan_file = calloc(nf + 1, 1);
    pastes pp = {0};
    alias *al = NULL;
    size_t nal = 0, alcap = 0;
    int rc = QR_OK;
    if (!cs || !tab || !scan_file) {
        rc = QR_ENOMEM;
        goto done;
    }
    size_t nc = 0;
    bool all_files = false;
    for (size_t i = 0; i < nn; i++) {
        const qr_code_node *nd = qr_code_graph_node(g, i);
        if (nd->it.kind != QR_CODE_FUNCTION || !is_c(nd->lang) ||
            (nd->it.flags & QR_CODE_LEXICAL) || !strcmp(nd->it.name, "main"))
            continue;
        bool st = (nd->it.flags & QR_CODE_STATIC) != 0;
        if ((f->statics && !st) || !in_place(nd->file, f->in))
            continue;
        cand *c = &cs[nc++];
        c->node = i;
        c->file = file_index(g, nd->file);
        if (c->file == SIZE_MAX) {
            nc--;
            continue;
        }
        if (st) {
            c->nscope = includers_of(g, c->file, &c->scope);
            if (!c->scope) {
                rc = QR_ENOMEM;
                goto done;
            }
            for (size_t k = 0; k < c->nscope; k++)
                scan_file[c->scope[k]] = true;
        } else {
            all_files = true;
        }
        /* a call edge in (a call the graph resolved) is a use too */
        const size_t *idx;
        size_t k = qr_code_graph_edges_to(g, qr_code_graph_node_key(g, i), &idx);
        for (size_t j = 0; j < k && !c->used; j++) {
            const qr_code_edge *e = qr_code_graph_edge(g, idx[j]);
            if (e->kind == QR_CODE_E_CALLS && e->from != (int64_t)i)
                c->used = true;
        }
        slot *sl = lookup(tab, cap, nd->it.name, strlen(nd->it.name));
        sl->name = nd->it.name;
        c->next = sl->first;
        sl->first = c;
    }
    scan base = {.g = g, .tab = tab, .cap = cap, .pp = &pp};
    if ((rc = scan_pass(g, root, stop, all_files, scan_file, &base, err)))
        goto done;
    /* names made by pasting: "RM_ ## name" makes RM_Alloc of REGISTER_API(Alloc) */
    for (size_t i = 0; i < nc; i++) {
        const char *nm = qr_code_graph_node(g, cs[i].node)->it.name;
        size_t nl = strlen(nm);
        for (size_t k = 0; k < pp.n && !cs[i].used; k++) {
            size_t pl = strlen(pp.v[k].part);
            if (pl >= nl || (pp.v[k].prefix ? strncmp(nm, pp.v[k].part, pl)
                                            : strcmp(nm + nl - pl, pp.v[k].part)))
                continue;
            if (nal == alcap) {
                size_t ncap = alcap ? 2 * alcap : 64;
                alias *v = realloc(al, ncap * sizeof *v);
                if (!v) {
                    rc = QR_ENOMEM;
                    goto done;
                }
                al = v;
                alcap = ncap;
            }
            al[nal].name = pp.v[k].prefix ? strdup(nm + pl) : strndup(nm, nl - pl);
            al[nal].c = &cs[i];
            if (!al[nal].name) {
                rc = QR_ENOMEM;
                goto done;
            }
            nal++;
        }
    }
    if (nal) {
        qsort(al, nal, sizeof *al, alias_cmp);
        scan second = {.g = g, .tab = tab, .cap = cap, .al = al, .nal = nal};
        if ((rc = scan_pass(g, root, stop, all_files, scan_file, &second, err)))
            goto done;
    }
    /* the page: nodes are in file and line order */
    size_t total = 0;
    qr_vecb rows;
    qr_vecb_init(&rows, a, 16);
    for (size_t i = 0; i < nc; i++) {
        const cand *c = &cs[i];
        if (c->used)
            continue;
        if (total >= offset && total < offset + limit) {
            const qr_code_node *nd = qr_code_graph_node(g, c->node);
            qr_mapb mb;
            qr_mapb_init(&mb, a, 4);
            qr_mapb_put(&mb, qr_kw_cstr(a, "name"),
                        qr_str_new(a, nd->it.name, strlen(nd->it.name)));
            qr_mapb_put(&mb, qr_kw_cstr(a, "file"), qr_str_new(a, nd->file, strlen(nd->file)));
            qr_mapb_put(&mb, qr_kw_cstr(a, "line"), qr_int(nd->it.line));
            if (nd->inactive) /* under a disabled #if: unused in this build, too */
                qr_mapb_put(&mb, qr_kw_cstr(a, "inactive"), qr_bool(true));
            qr_vecb_push(&rows, qr_mapb_finish(&mb, QR_T_MAP));
        }
        total++;
    }
    static const char *const vars[] = {"name", "file", "line", "inactive"};
    qr_vecb vb;
    qr_vecb_init(&vb, a, 4);
    for (size_t i = 0; i < 4; i++)
        qr_vecb_push(&vb, qr_str_new(a, vars[i], strlen(vars[i])));
    qr_mapb mb;
    qr_mapb_init(&mb, a, 6);
    qr_mapb_put(&mb, qr_kw_cstr(a, "vars"), qr_vecb_finish(&vb, QR_T_VEC));
    qr_mapb_put(&mb, qr_kw_cstr(a, "rows"), qr_vecb_finish(&rows, QR_T_VEC));
    qr_mapb_put(&mb, qr_kw_cstr(a, "total"), qr_int((int64_t)total));
    bool more = offset + limit < total;
    qr_mapb_put(&mb, qr_kw_cstr(a, "truncated"), qr_bool(more));
    if (more)
        qr_mapb_put(&mb, qr_kw_cstr(a, "next_offset"), qr_int((int64_t)(offset + limit)));
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    if (a->exhausted) {
        qr_buf_puts(err, "the result does not fit in the memory limit; lower 'limit'");
        rc = QR_ENOMEM;
    }
done:
    for (size_t i = 0; i < nal; i++)
        free(al[i].name);
    free(al);
    free(pp.v);
    if (cs)
        for (size_t i = 0; i < ncand; i++)
            free(cs[i].scope);
    free(cs);
    free(tab);
    free(scan_file);
    return rc;
}
