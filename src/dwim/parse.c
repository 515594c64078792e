/*
 * parse.c: the DWIM intent parser and router (seed 003). A terse line is cut into tokens
 * (words, quoted patterns, key=value parameters), each token is classified by shape and
 * by lookup (a path that exists, a symbol the code index knows, file:line, file:symbol,
 * Type.member), and every reading is scored: the verbs with their aliases, and every tool
 * of the registry with aliases and keywords taken from its own record (name, name parts,
 * summary words, parameter names), so a new tool is routable without touching this file.
 *
 * Scores: an alias or tool name written exactly as the first word that carries meaning
 * scores 0.95 (request, stop, filler and chatter words before it do not count), the next
 * 0.9, later 0.8; a typo (the shared measure of src/words: length-aware, a keyboard
 * neighbour or two letters swapped half an edit) costs 0.025 per half-edit, and a word
 * that is itself a request, filler or stop word is never a typo; words the reading does
 * not explain cost 0.2 each.
 * A verb named alone keeps its score: the verb is sure, and the missing target is
 * reported apart (qr_dwim_intent.missing_target, "missing": ["target"] in `dwim parse`),
 * so the loop asks for it rather than for the verb. Every key=value is kept: those naming
 * a verb's target (path=, pattern=, name=) are its target, the rest its parameters, which
 * qr_dwim_run honours (limit=) or refuses. Natural requests are read by intent frames
 * (every word of the line explained, one path) and who calls whom by the order of the
 * words (call_order). A typo as close to two readings asks. An edit, delete or exec runs
 * only from its exact name as the first word (or a frame). The bands: run 0.85, clarify
 * 0.6, suggest 0.3.
 */
#include "dwim_int.h"
#include "quarry/words.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* ---- the verbs ---- */

typedef struct verb_rec {
    const char *name;
    const char *tool;              /* what runs it */
    bool needs_target;             /* without a target it cannot run */
    const char *const aliases[16]; /* words that name it */
    /* natural wording: words with their weight (summed, capped) */
    const char *const keywords[16];
    const float weights[16];
} verb_rec;

static const verb_rec verbs[QR_DWIM_VERB_COUNT] = {
    [QR_DWIM_NONE] = {"none", NULL, false, {NULL}, {NULL}, {0}},
    [QR_DWIM_SKELETON] = {"skeleton",
                          "skeleton",
                          true,
                          {"skeleton", "skel", "outline", "structure", "symbols", "overview",
                           "tree", "ls", "ctags", NULL},
                          {"functions", "symbols", "declarations", "types", "structs",
                           "signatures", "defined", "contains", "list", NULL},
                          {0.35f, 0.35f, 0.3f, 0.2f, 0.2f, 0.3f, 0.15f, 0.15f, 0.1f}},
    [QR_DWIM_EXPAND] = {"expand",
                        "expand",
                        true,
                        {"expand", "body", "source", "impl", NULL},
                        {"body", "implementation", "code", "show", "source", "text", "full",
                         NULL},
                        {0.35f, 0.35f, 0.15f, 0.15f, 0.2f, 0.15f, 0.15f}},
    [QR_DWIM_READ] = {"read",
                      "read",
                      true,
                      {"read", "cat", "view", "open", "lines", "less", "head", "vim", "vi",
                       "emacs", "nano", "bat", "sed", NULL},
                      {"lines", "line", "contents", "open", "view", "print", "read", NULL},
                      {0.3f, 0.3f, 0.3f, 0.3f, 0.25f, 0.15f, 0.3f}},
    [QR_DWIM_GREP] = {"grep",
                      "grep",
                      true,
                      {"grep", "search", "find", "locate", "rg", "ag", "ack", NULL},
                      {"occurrences", "mentions", "matches", "regex", "pattern", "string",
                       "text", "contain", "containing", "mention", NULL},
                      {0.35f, 0.3f, 0.3f, 0.35f, 0.3f, 0.2f, 0.15f, 0.2f, 0.25f, 0.3f}},
    [QR_DWIM_FIX] = {"fix",
                     "fix",
                     false,
                     {"fix", "patch", "edit", "change", "replace", "rewrite", "modify", NULL},
                     {"bug", "broken", "wrong", "correct", "repair", NULL},
                     {0.3f, 0.3f, 0.2f, 0.2f, 0.3f}},
    [QR_DWIM_VALIDATE] = {"validate",
                          "validate",
                          false,
                          {"validate", "check", "lint", "build", "compile", "verify", "test",
                           NULL},
                          {"compiles", "errors", "warnings", "diagnostics", "builds", "passes",
                           "pass", "green", "tests", "works", "project", "repo", "repository",
                           NULL},
                          {0.4f, 0.3f, 0.3f, 0.35f, 0.4f, 0.3f, 0.2f, 0.2f, 0.3f, 0.2f, 0.1f,
                           0.1f, 0.1f}},
    [QR_DWIM_DONE] = {"done",
                      "done",
                      false,
                      {"done", "finished", "complete", "finish", "stop", "lgtm", NULL},
                      {"finished", "over", "nothing", "task", "work", "job", "all", NULL},
                      {0.3f, 0.1f, 0.1f, 0.2f, 0.2f, 0.2f, 0.1f}},
    [QR_DWIM_CALLERS] = {"callers",
                         "query_codebase",
                         true,
                         {"callers", "who_calls", "callers_of", "called_by", "calls_to",
                          "callsites", NULL},
                         {"calls", "called", "invoked", "invokes", "callers", "who", NULL},
                         {0.3f, 0.35f, 0.3f, 0.2f, 0.4f, 0.1f}},
    [QR_DWIM_CALLEES] = {"callees",
                         "query_codebase",
                         true,
                         {"callees", "calls", NULL},
                         {"callees", "call", NULL},
                         {0.4f, 0.2f}},
    [QR_DWIM_DEPS] = {"deps",
                      "query_codebase",
                      true,
                      {"deps", "includes", "dependencies", "imports", NULL},
                      {"includes", "include", "dependencies", "depends", "imports",
                       "headers", NULL},
                      {0.4f, 0.35f, 0.4f, 0.35f, 0.35f, 0.3f}},
    [QR_DWIM_REFERENCES] = {"references",
                            "query_codebase",
                            true,
                            {"references", "refs", "usages", "uses", "xrefs", "xref", NULL},
                            {"references", "uses", "used", "usages", "referenced",
                             "referencing", "refer", "refers", "mentions", "mentioning",
                             NULL},
                            {0.45f, 0.3f, 0.3f, 0.4f, 0.4f, 0.4f, 0.35f, 0.35f, 0.3f, 0.3f}},
    [QR_DWIM_DEFINITION] = {"definition",
                            "query_codebase",
                            true,
                            {"definition", "def", "goto", "declaration", "signature",
                             "jump", "peek", "hover", NULL},
                            {"defined", "definition", "declared", "where", "defines",
                             "declares", NULL},
                            {0.4f, 0.3f, 0.3f, 0.15f, 0.4f, 0.35f}},
    [QR_DWIM_PLAN] = {"plan", "plan", false, {"plan", "subtask", NULL}, {NULL}, {0}},
    [QR_DWIM_FETCH] = {"fetch", "fetch", true, {"fetch", "result", NULL}, {NULL}, {0}},
    [QR_DWIM_NOTE] = {"note", "note", false, {"note", "remember", NULL}, {NULL}, {0}},
    [QR_DWIM_TOOL] = {"tool", NULL, false, {NULL}, {NULL}, {0}},
};

const char *qr_dwim_verb_name(qr_dwim_verb v)
{
    return v < QR_DWIM_VERB_COUNT ? verbs[v].name : "none";
}

const char *qr_dwim_verb_needs(qr_dwim_verb v)
{
    switch (v) {
    case QR_DWIM_SKELETON: return "a file or directory";
    case QR_DWIM_READ:
    case QR_DWIM_DEPS: return "a file";
    case QR_DWIM_GREP: return "a pattern";
    case QR_DWIM_FETCH: return "a result id";
    case QR_DWIM_EXPAND:
    case QR_DWIM_CALLERS:
    case QR_DWIM_CALLEES:
    case QR_DWIM_REFERENCES:
    case QR_DWIM_DEFINITION: return "a symbol";
    default: return NULL;
    }
}

const char *qr_dwim_band(double c)
{
    if (c >= 0.85)
        return "run";
    if (c >= 0.6)
        return "clarify";
    if (c >= 0.3)
        return "suggest";
    return "reject";
}

static const char *const stopwords[] = {
    "the",  "a",    "an",  "of",   "in",   "this", "that", "file", "is",    "are",  "what",
    "which", "me",  "please", "for", "to", "all",  "and",  "on",   "at",   "does", "do",
    "who",  "how",  "it",  "its",  "with", "from", "by",   "i",    "want",  "can",  "you",
    "give", "there", "here", "my",  "be",   "some", "any",  "let",  "lets", "let's", "into",
    "inside", "up",  "get", "tell", "about", "where", "now", "i'm", "im", "we're", "we",
    "am", "just", "so", "i've", "we've", "have", "has", "been", "everything", "still",
    "again", "really", "could", "would", "through", "thru", "until", "under", "within",
    "across", "every", "each", "where's", "wheres", "think", "guess", "believe", NULL};

static bool is_stopword(const char *w)
{
    for (size_t i = 0; stopwords[i]; i++)
        if (!strcmp(w, stopwords[i]))
            return true;
    return false;
}

/* ---- tokens ---- */

typedef enum tok_kind {
    T_WORD,    /* a plain word */
    T_PATTERN, /* quoted text or /regex/ */
    T_PARAM,   /* key=value */
    T_NUMBER,
    T_PATH,     /* looks like a path (or exists) */
    T_FILELINE, /* path:N or path:N-M */
    T_FILESYM,  /* path:symbol */
    T_MEMBER,   /* Type.member */
    T_SYMBOL,   /* an identifier with _ or digits, a known symbol, or `struct X` */
    T_RANGE,    /* A-B: a range of lines ("lines 10-20 of F") */
    T_FLAG,     /* -i, -rn: a command-line flag as grep takes them */
} tok_kind;

typedef struct tok {
    tok_kind kind;
    char *text; /* as written (quotes removed) */
    char *low;  /* lowercased, '-' as '_' */
    char *key;  /* T_PARAM: the key */
    bool verified; /* the path exists or the symbol is known */
    bool used;     /* consumed as a verb word */
    bool quoted;   /* T_PARAM: key='value': a string whatever it looks like */
} tok;

enum { MAX_TOKS = 48 };

static char *lower_dup(qr_arena *a, const char *s, size_t n)
{
    char *d = qr_arena_strndup(a, s, n);
    if (!d)
        return NULL;
    for (char *p = d; *p; p++) {
        *p = (char)tolower((unsigned char)*p);
        if (*p == '-')
            *p = '_';
    }
    return d;
}

bool qr__dwim_is_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

bool qr__dwim_all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static const char *const code_exts[] = {
    "c",  "h",  "cc", "cpp", "cxx", "hpp", "hh", "py",  "js",   "ts",  "go",   "rs", "java",
    "rb", "sh", "md", "txt", "toml", "json", "yml", "yaml", "mk", "cmake", "lua", "el", NULL};

static bool has_code_ext(const char *s)
{
    const char *dot = strrchr(s, '.');
    if (!dot || dot == s)
        return false;
    for (size_t i = 0; code_exts[i]; i++)
        if (!strcmp(dot + 1, code_exts[i]))
            return true;
    return false;
}

static void classify(const qr_dwim_lookup *lk, tok *t)
{
    const char *s = t->text;
    size_t n = strlen(s);
    bool path_ok = lk && lk->path_exists && n < 4096 && lk->path_exists(lk->ud, s);
    const char *colon = strrchr(s, ':');
    if (qr__dwim_all_digits(s, n)) {
        t->kind = T_NUMBER;
        return;
    }
    if (n >= 2 && n <= 5 && s[0] == '-' && isalpha((unsigned char)s[1])) {
        bool letters = true;
        for (size_t i = 1; i < n; i++)
            letters &= isalpha((unsigned char)s[i]) != 0;
        if (letters) {
            t->kind = T_FLAG;
            return;
        }
    }
    const char *rdash = strchr(s, '-');
    if (rdash && rdash != s && qr__dwim_all_digits(s, (size_t)(rdash - s)) &&
        qr__dwim_all_digits(rdash + 1, strlen(rdash + 1))) {
        t->kind = T_RANGE;
        return;
    }
    /* sed's "100,140p": the lines 100-140 (written back as a range, no longer than it) */
    const char *comma = strchr(s, ',');
    if (comma && comma != s && qr__dwim_all_digits(s, (size_t)(comma - s)) && n >= 4 &&
        s[n - 1] == 'p' && comma + 1 < s + n - 1 &&
        qr__dwim_all_digits(comma + 1, (size_t)(s + n - 1 - (comma + 1)))) {
        t->text[comma - s] = '-';
        t->text[n - 1] = '\0';
        t->kind = T_RANGE;
        return;
    }
    if (colon && colon != s && colon[1] && !path_ok) {
        const char *rest = colon + 1;
        size_t rn = strlen(rest);
        const char *dash = strchr(rest, '-');
        bool range = dash ? qr__dwim_all_digits(rest, (size_t)(dash - rest)) &&
                                qr__dwim_all_digits(dash + 1, strlen(dash + 1))
                          : qr__dwim_all_digits(rest, rn);
        char *path = t->text; /* checked up to the colon */
        size_t pn = (size_t)(colon - s);
        char save = path[pn];
        path[pn] = '\0';
        bool pexists = lk && lk->path_exists && lk->path_exists(lk->ud, path);
        bool pshape = strchr(path, '/') || has_code_ext(path);
        path[pn] = save;
        if (range && (pexists || pshape)) {
            t->kind = T_FILELINE;
            t->verified = pexists;
            return;
        }
        if (qr__dwim_is_ident(rest) && (pexists || pshape)) {
            t->kind = T_FILESYM;
            t->verified = pexists;
            return;
        }
    }
    if (path_ok) {
        t->kind = T_PATH;
        t->verified = true;
        return;
    }
    if (strchr(s, '/') || has_code_ext(s)) {
        t->kind = T_PATH;
        /* "SRC/wal.h": a path the tree has only in another case is that path */
        if (lk && lk->path_exists && n < 4096 && strcmp(t->low, s) != 0) {
            char *low = t->low; /* lowercased with '-' as '_': put the dashes back */
            char save[4096];
            memcpy(save, low, n + 1);
            for (size_t i = 0; i < n; i++)
                if (s[i] == '-')
                    low[i] = '-';
            if (lk->path_exists(lk->ud, low)) {
                memcpy(t->text, low, n + 1);
                t->verified = true;
            }
            memcpy(low, save, n + 1);
        }
        return;
    }
    const char *dot = strchr(s, '.');
    if (dot && dot != s && dot[1] && !strchr(dot + 1, '.')) {
        char *c = t->text;
        size_t dn = (size_t)(dot - s);
        c[dn] = '\0';
        bool ok = qr__dwim_is_ident(c) && qr__dwim_is_ident(dot + 1);
        c[dn] = '.';
        if (ok) {
            t->kind = T_MEMBER;
            return;
        }
    }
    if (qr__dwim_is_ident(s)) {
        /* a stop word the index also has as a name ("to", a member of some struct) is the
           word: a symbol must not be spelled like grammar */
        if (lk && lk->symbol_known && !is_stopword(t->low) && lk->symbol_known(lk->ud, s)) {
            t->kind = T_SYMBOL;
            t->verified = true;
            return;
        }
        bool lowerword = true;
        for (const char *p = s; *p; p++)
            if (!islower((unsigned char)*p))
                lowerword = false;
        t->kind = lowerword ? T_WORD : T_SYMBOL;
        return;
    }
    t->kind = T_WORD;
}

/* Cuts the first line into tokens. */
static bool is_request_word(const char *w);
static bool exact_alias(const char *w);
static bool is_stopword(const char *w);

static void fix_request_typo(qr_arena *a, tok *t)
{
    static const char *const REQ[] = {"show", "display", "search", "find", "open", "print",
                                      "list", "locate", "lookup", NULL};
    size_t n = strlen(t->low);
    if (n < 4 || is_request_word(t->low) || exact_alias(t->low) || is_stopword(t->low))
        return;
    for (int v = QR_DWIM_SKELETON; v < QR_DWIM_TOOL; v++)
        for (size_t i = 0; verbs[v].aliases[i]; i++)
            if (qr_words_typo(t->low, n, verbs[v].aliases[i], strlen(verbs[v].aliases[i])))
                return; /* a verb's alias is as near: the verb's reading decides */
    const char *pick = NULL;
    for (size_t i = 0; REQ[i]; i++)
        if (qr_words_typo(t->low, n, REQ[i], strlen(REQ[i]))) {
            if (pick)
                return; /* two requests as near: not sure */
            pick = REQ[i];
        }
    if (!pick)
        return;
    char *w = qr_arena_strndup(a, pick, strlen(pick));
    if (w)
        t->low = w;
}

static size_t tokenize(const qr_dwim_lookup *lk, const char *s, size_t n, qr_arena *a, tok *toks)
{
    size_t nt = 0, i = 0;
    while (i < n && nt < MAX_TOKS) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        tok *t = &toks[nt];
        memset(t, 0, sizeof *t);
        char q = s[i];
        if (q == '"' || q == '\'' || q == '`' || (q == '/' && i + 1 < n && s[i + 1] != '/' &&
                                                   memchr(s + i + 1, '/', n - i - 1) &&
                                                   nt > 0)) {
            size_t j = i + 1;
            while (j < n && s[j] != q)
                j++;
            if (q == '/' && (j + 1 < n && !isspace((unsigned char)s[j + 1]))) {
                /* a path like /usr/x, not a /regex/ */
                goto word;
            }
            t->kind = T_PATTERN;
            t->text = qr_arena_strndup(a, s + i + 1, j - i - 1);
            t->low = lower_dup(a, s + i + 1, j - i - 1);
            if (!t->text || !t->low)
                return SIZE_MAX;
            i = j < n ? j + 1 : j;
            nt++;
            continue;
        }
    word:;
        size_t j = i;
        /* key='a value' (or "..." or `...`): the quotes hold the value, spaces and all */
        size_t k = i;
        while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
            k++;
        if (k > i && k + 1 < n && s[k] == '=' &&
            (s[k + 1] == '\'' || s[k + 1] == '"' || s[k + 1] == '`') &&
            is_ident_start(s[i])) {
            const char *close = memchr(s + k + 2, s[k + 1], n - k - 2);
            if (close) {
                t->kind = T_PARAM;
                t->quoted = true;
                t->key = qr_arena_strndup(a, s + i, k - i);
                t->text = qr_arena_strndup(a, s + k + 2, (size_t)(close - s - k - 2));
                t->low = lower_dup(a, s + i, (size_t)(close - s - i) + 1);
                if (!t->key || !t->text || !t->low)
                    return SIZE_MAX;
                for (char *p = t->key; *p; p++)
                    if (*p == '-')
                        *p = '_';
                i = (size_t)(close - s) + 1;
                nt++;
                continue;
            }
        }
        while (j < n && !isspace((unsigned char)s[j]))
            j++;
        size_t wn = j - i;
        /* trailing punctuation of prose */
        while (wn > 1 && (s[i + wn - 1] == '?' || s[i + wn - 1] == ',' || s[i + wn - 1] == '!' ||
                          (s[i + wn - 1] == '.' && nt > 0 && j == n)))
            wn--;
        /* a possessive of something the tree knows ("trim's body", "src/x.c's functions")
           is that thing */
        if (wn > 3 && s[i + wn - 2] == '\'' && (s[i + wn - 1] == 's' || s[i + wn - 1] == 'S')) {
            char stem[256];
            size_t sn = wn - 2;
            if (sn < sizeof stem) {
                memcpy(stem, s + i, sn);
                stem[sn] = '\0';
                if ((lk && lk->symbol_known && qr__dwim_is_ident(stem) && lk->symbol_known(lk->ud, stem)) ||
                    (lk && lk->path_exists && lk->path_exists(lk->ud, stem)) ||
                    strchr(stem, '/') || has_code_ext(stem))
                    wn = sn;
            }
        }
        t->text = qr_arena_strndup(a, s + i, wn);
        t->low = lower_dup(a, s + i, wn);
        if (!t->text || !t->low)
            return SIZE_MAX;
        const char *eq = memchr(s + i, '=', wn);
        if (eq && eq != s + i && qr__dwim_is_ident((t->key = qr_arena_strndup(a, s + i, (size_t)(eq - s - i))) ? t->key : "")) {
            t->kind = T_PARAM;
            t->text = qr_arena_strndup(a, eq + 1, wn - (size_t)(eq - s - i) - 1);
            if (!t->text)
                return SIZE_MAX;
            /* key=value: the key keeps its case; '-' in it as '_' */
            for (char *p = t->key; *p; p++)
                if (*p == '-')
                    *p = '_';
        } else {
            t->key = NULL;
            classify(lk, t);
            /* the line's first word misspelt as a request ("shwo FILE", "dispaly"): that
               request, when no verb's alias is as near */
            if (nt == 0 && t->kind == T_WORD)
                fix_request_typo(a, t);
        }
        i = j;
        nt++;
    }
    /* two-word synonyms of an alias ("look for X" is search, "go to X" goto): the first
     * word reads as the alias, the second as a stop word */
    static const char *const phrases[][3] = {{"look", "for", "search"}, {"look", "up", "search"},
                                             {"go", "to", "goto"},      {"jump", "to", "goto"},
                                             {"dig", "into", "expand"},
                                             /* an editor's call hierarchy */
                                             {"outgoing", "calls", "callees"},
                                             {"incoming", "calls", "callers"},
                                             /* git's own search */
                                             {"git", "grep", "grep"}};
    for (size_t k = 0; k + 1 < nt; k++)
        for (size_t p = 0; p < sizeof phrases / sizeof phrases[0]; p++)
            if (toks[k].kind == T_WORD && toks[k + 1].kind == T_WORD &&
                !strcmp(toks[k].low, phrases[p][0]) && !strcmp(toks[k + 1].low, phrases[p][1])) {
                toks[k].low = (char *)phrases[p][2];
                toks[k + 1].low = (char *)"the";
            }
    /* `struct X`, `union X`, `enum X`: one symbol */
    for (size_t k = 0; k + 1 < nt; k++) {
        if (toks[k].kind == T_WORD &&
            (!strcmp(toks[k].low, "struct") || !strcmp(toks[k].low, "union") ||
             !strcmp(toks[k].low, "enum")) &&
            qr__dwim_is_ident(toks[k + 1].text)) {
            size_t l1 = strlen(toks[k].low), l2 = strlen(toks[k + 1].text);
            char *c = qr_arena_alloc(a, l1 + l2 + 2);
            if (!c)
                return SIZE_MAX;
            memcpy(c, toks[k].low, l1);
            c[l1] = ' ';
            memcpy(c + l1 + 1, toks[k + 1].text, l2 + 1);
            toks[k].text = c;
            toks[k].kind = T_SYMBOL;
            toks[k].verified = toks[k + 1].verified;
            memmove(&toks[k + 1], &toks[k + 2], (nt - k - 2) * sizeof *toks);
            nt--;
        }
    }
    return nt;
}

/* ---- scoring ---- */

/* Whether w is one of verb v's aliases with two neighbouring letters swapped. */
static bool verb_anagram(const char *w, qr_dwim_verb v)
{
    size_t n = strlen(w);
    for (size_t i = 0; verbs[v].aliases[i]; i++) {
        const char *a = verbs[v].aliases[i];
        if (strlen(a) != n)
            continue;
        size_t k = 0;
        while (k < n && tolower((unsigned char)w[k]) == a[k])
            k++;
        if (k + 1 < n && tolower((unsigned char)w[k]) == a[k + 1] &&
            tolower((unsigned char)w[k + 1]) == a[k] && !strcmp(w + k + 2, a + k + 2))
            return true;
    }
    return false;
}

/* How well word w names `name`: 1.0 exact (case, -/_ folded), less per edit for a typo,
 * 0 when too far. Short words must match exactly. */
static double name_match(const char *w, const char *name)
{
    size_t wn = strlen(w), nn = strlen(name);
    size_t d = qr_words_cost(w, wn, name, nn);
    if (d == 0)
        return 1.0;
    if (!qr_words_typo(w, wn, name, nn))
        return 0;
    /* a short alias with an 's' added is a plural noun more often than a typo ("a joke
       about cats" is not `cat`) */
    if (nn <= 4 && wn == nn + 1 && (w[wn - 1] == 's' || w[wn - 1] == 'S') &&
        !strncasecmp(w, name, nn))
        return 0;
    /* a word of four letters with one letter changed for one not beside it on the keyboard
       is another word more often than a typo ("play" is not "plan") */
    if (wn <= 4 && wn == nn && d >= 2) {
        size_t diff = 0;
        for (size_t k = 0; k < wn; k++)
            diff += tolower((unsigned char)w[k]) != tolower((unsigned char)name[k]);
        if (diff == 1)
            return 0; /* one letter swapped for a far one; a transposition ("fxi") stays */
    }
    return 1.0 - 0.025 * (double)d;
}

static bool target_kind(tok_kind k)
{
    return k != T_WORD && k != T_PARAM && k != T_FLAG;
}

typedef struct cand {
    qr_dwim_verb verb;
    const qr_tool *tool;
    double score;
    int verb_tok; /* the token that named it, or -1 */
    bool framed;  /* an intent frame read the whole line as it */
} cand;

/* The words of a tool's record: name, its parts, parameter names, summary words. */
static double tool_keyword_score(const qr_tool *t, tok *toks, size_t nt, int *named_by,
                                 double *name_score)
{
    *named_by = -1;
    *name_score = 0;
    double kw = 0;
    size_t nparts = 0, parts_hit = 0;
    char part[65];
    /* exact or typo'd name */
    for (size_t k = 0; k < nt; k++) {
        if (toks[k].kind == T_PARAM || toks[k].kind == T_PATTERN)
            continue;
        double m = name_match(toks[k].low, t->name);
        if (m > 0 && strlen(t->name) >= 4) {
            double s = m * (k == 0 ? 0.95 : 0.9);
            if (s > *name_score) {
                *name_score = s;
                *named_by = (int)k;
            }
        }
    }
    /* name parts in any order ("commits get") */
    const char *p = t->name;
    while (*p) {
        size_t l = strcspn(p, "_-");
        if (l > 0 && l < sizeof part) {
            memcpy(part, p, l);
            part[l] = '\0';
            for (char *c = part; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            nparts++;
            for (size_t k = 0; k < nt; k++) {
                if (toks[k].kind == T_WORD && strlen(part) >= 3) {
                    size_t wl = strlen(toks[k].low);
                    /* plural or singular of the part counts */
                    bool hit = !strcmp(toks[k].low, part) ||
                               (wl == l + 1 && toks[k].low[l] == 's' &&
                                !strncmp(toks[k].low, part, l)) ||
                               (l == wl + 1 && part[wl] == 's' && !strncmp(toks[k].low, part, wl));
                    if (hit) {
                        parts_hit++;
                        kw += 0.25;
                        break;
                    }
                }
            }
        }
        p += l;
        while (*p == '_' || *p == '-')
            p++;
    }
    if (nparts >= 2 && parts_hit == nparts && *name_score < 0.87)
        *name_score = 0.87;
    /* parameter names */
    for (const qr_tool_param *pp = t->params; pp && pp->name; pp++)
        for (size_t k = 0; k < nt; k++)
            if ((toks[k].kind == T_WORD && !strcmp(toks[k].low, pp->name)) ||
                (toks[k].kind == T_PARAM && !strcmp(toks[k].key, pp->name))) {
                kw += 0.15;
                break;
            }
    /* summary words */
    if (t->summary) {
        for (size_t k = 0; k < nt; k++) {
            if (toks[k].kind != T_WORD || strlen(toks[k].low) < 4 || is_stopword(toks[k].low))
                continue;
            const char *s = t->summary;
            size_t wl = strlen(toks[k].low);
            while (*s) {
                while (*s && !isalnum((unsigned char)*s))
                    s++;
                size_t l = 0;
                while (isalnum((unsigned char)s[l]) || s[l] == '_')
                    l++;
                if (l && (l == wl || l == wl + 1) &&
                    qr_edit_distance(s, wl, toks[k].low, wl, QR_EDIT_FOLD) == 0) {
                    kw += 0.08;
                    break;
                }
                s += l;
            }
        }
    }
    return kw > 0.75 ? 0.75 : kw;
}

/* Words that say what kind of thing the target is, never the target itself: "expand the
 * function", "show the callers of the method X". */
static bool is_filler(const char *w)
{
    static const char *const words[] = {
        "function", "functions", "method", "methods", "symbol", "symbols", "code", "module",
        "directory", "dir", "folder", "package", "lines", "line", "whole", "full", "entire",
        "contents", "content", "files", "routine", "procedure", "macro", "type", "first", "last",
        NULL};
    for (size_t i = 0; words[i]; i++)
        if (!strcmp(w, words[i]))
            return true;
    return false;
}

/* Words that ask for something rather than say what: "find", "show", "get"... */
static bool is_request_word(const char *w)
{
    static const char *const words[] = {"find", "search", "locate", "show", "get", "list",
                                        "give", "view", "open", "display", "print", "lookup",
                                        NULL};
    for (size_t i = 0; words[i]; i++)
        if (!strcmp(w, words[i]))
            return true;
    return false;
}

/* w is written exactly as one of the verbs' aliases. */
static bool exact_alias(const char *w)
{
    for (int v = QR_DWIM_SKELETON; v < QR_DWIM_TOOL; v++)
        for (size_t i = 0; verbs[v].aliases[i]; i++)
            if (qr_words_cost(w, strlen(w), verbs[v].aliases[i], strlen(verbs[v].aliases[i])) == 0)
                return true;
    return false;
}

static double verb_keyword_score(const verb_rec *v, tok *toks, size_t nt, int *named_by,
                                 double *name_score)
{
    *named_by = -1;
    *name_score = 0;
    double kw = 0;
    for (size_t k = 0; k < nt; k++) {
        if (toks[k].kind == T_PARAM || toks[k].kind == T_PATTERN || toks[k].kind == T_NUMBER)
            continue;
        const char *w = toks[k].low;
        /* "who calls X" / "what calls X" ask for callers; "X calls" for callees */
        bool asks_callers = k > 0 && !strcmp(w, "calls") &&
                            (!strcmp(toks[k - 1].low, "who") || !strcmp(toks[k - 1].low, "what"));
        if (asks_callers && !strcmp(v->name, "callers") && 0.9 > *name_score) {
            *name_score = 0.9;
            *named_by = (int)k;
        }
        if (asks_callers && !strcmp(v->name, "callees"))
            continue;
        /* a word that is exactly some verb's alias is not a typo of another's
           ("callers" is no misspelt "callees") */
        bool exact_other = exact_alias(w) || is_request_word(w) || is_filler(w) ||
                           is_stopword(w);
        /* after a possessive a word is a thing owned, not an intent ("my cat is asleep",
           "your view of it") */
        static const char *const POSS[] = {"my", "your", "his", "her", "their", "our", NULL};
        bool owned = false;
        for (size_t i = 0; k > 0 && POSS[i]; i++)
            if (!strcmp(toks[k - 1].low, POSS[i]))
                owned = true;
        if (owned)
            continue;
        for (size_t i = 0; v->aliases[i]; i++) {
            double m = name_match(w, v->aliases[i]);
            if (m <= 0 || (m < 1.0 && exact_other))
                continue;
            /* the verb word leads a terse line; deeper in prose it counts less */
            /* its place among the words that carry meaning ("show the callers": first) */
            size_t pos = 0;
            for (size_t j = 0; j < k; j++)
                if (!(toks[j].kind == T_NUMBER || toks[j].kind == T_RANGE ||
                      ((toks[j].kind == T_WORD || toks[j].kind == T_SYMBOL) &&
                       (is_stopword(toks[j].low) || is_request_word(toks[j].low) ||
                        is_filler(toks[j].low) || qr_words_is_chatter(toks[j].low)))))
                    pos++;
            double s = m * (pos == 0 ? 0.95 : pos == 1 ? 0.9 : 0.8);
            if (s > *name_score) {
                *name_score = s;
                *named_by = (int)k;
            }
        }
        for (size_t i = 0; v->keywords[i]; i++)
            if (!strcmp(w, v->keywords[i]))
                kw += v->weights[i];
    }
    return kw;
}

/* ---- params ---- */

static qr_val put(qr_arena *a, qr_val m, const char *k, qr_val v)
{
    return qr_map_assoc(a, m, qr_kw_cstr(a, k), v);
}

static qr_val str(qr_arena *a, const char *s)
{
    return qr_str_cstr(a, s);
}

/* A param value as written: integers and booleans as such, else a string. */
static qr_val param_value(qr_arena *a, const char *s)
{
    size_t n = strlen(s);
    if (qr__dwim_all_digits(s, n) && n < 18)
        return qr_int(strtoll(s, NULL, 10));
    if (!strcmp(s, "true"))
        return qr_bool(true);
    if (!strcmp(s, "false"))
        return qr_bool(false);
    return str(a, s);
}

/* The lines a read line asks for, written apart from its file: "10-20", "10 20",
 * "10 to 20", "lines 10 through 20", "the first 20 lines" (1-20), "line 7" (7-7). */
static void read_lines(const tok *toks, size_t nt, long *lo, long *hi)
{
    size_t nums = 0;
    *lo = *hi = 0;
    for (size_t k = 0; k < nt && nums < 2; k++) {
        if (toks[k].kind == T_RANGE) {
            char *end;
            *lo = strtol(toks[k].text, &end, 10);
            *hi = *end == '-' ? strtol(end + 1, NULL, 10) : *lo;
            return;
        }
        if (toks[k].kind != T_NUMBER || strlen(toks[k].text) >= 10)
            continue;
        long v = strtol(toks[k].text, NULL, 10);
        if (nums == 0 && k > 0 && (!strcmp(toks[k - 1].low, "first") || !strcmp(toks[k - 1].low, "top"))) {
            *lo = 1;
            *hi = v;
            return;
        }
        if (nums == 0)
            *lo = v;
        else
            *hi = v;
        nums++;
    }
    if (nums == 1)
        *hi = *lo;
}

static qr_val verb_params(qr_arena *a, qr_dwim_verb v, const char *target, tok *toks, size_t nt,
                          const char *content)
{
    qr_val m = qr_map_empty();
    switch (v) {
    case QR_DWIM_SKELETON:
        if (target)
            m = put(a, m, "path", str(a, target));
        break;
    case QR_DWIM_EXPAND:
    case QR_DWIM_FETCH:
        if (target)
            m = put(a, m, v == QR_DWIM_FETCH ? "id" : "symbol", str(a, target));
        break;
    case QR_DWIM_READ: {
        if (!target)
            break;
        const char *colon = strrchr(target, ':');
        long lo = 0, hi = 0;
        if (colon && isdigit((unsigned char)colon[1])) {
            m = put(a, m, "path", qr_str_new(a, target, (size_t)(colon - target)));
            char *end;
            lo = strtol(colon + 1, &end, 10);
            hi = *end == '-' ? strtol(end + 1, NULL, 10) : lo;
        } else {
            m = put(a, m, "path", str(a, target));
            read_lines(toks, nt, &lo, &hi);
        }
        if (lo > 0)
            m = put(a, m, "start", qr_int(lo));
        if (hi > 0)
            m = put(a, m, "end", qr_int(hi));
        break;
    }
    case QR_DWIM_GREP:
        if (target) {
            /* grep's own flags: -i ignores case, -w matches whole words, -F fixed text */
            bool ci = false, word = false, fixed = false;
            for (size_t k = 0; k < nt; k++)
                if (toks[k].kind == T_FLAG) {
                    ci |= strchr(toks[k].text, 'i') != NULL;
                    word |= strchr(toks[k].text, 'w') != NULL;
                    fixed |= strchr(toks[k].text, 'F') != NULL;
                }
            size_t l = strlen(target) + 32;
            char *pat = qr_arena_alloc(a, l);
            if (!pat)
                break;
            snprintf(pat, l, "%s%s%s%s%s%s", ci ? "(?i)" : "", word ? "\\b(?:" : "",
                     fixed ? "\\Q" : "", target, fixed ? "\\E" : "", word ? ")\\b" : "");
            m = put(a, m, "pattern", str(a, pat));
        }
        /* grep 'PAT' src/: the path said after the pattern is where to search */
        for (size_t k = 0; target && k < nt; k++)
            if (toks[k].kind == T_PATH && toks[k].text != target) {
                m = put(a, m, "path", str(a, toks[k].text));
                break;
            }
        break;
    case QR_DWIM_FIX:
        if (target)
            m = put(a, m, "target", str(a, target));
        if (content)
            m = put(a, m, "content", str(a, content));
        break;
    case QR_DWIM_DONE:
    case QR_DWIM_PLAN:
    case QR_DWIM_NOTE:
        if (content)
            m = put(a, m, v == QR_DWIM_DONE ? "summary" : "text", str(a, content));
        break;
    case QR_DWIM_CALLERS:
    case QR_DWIM_CALLEES:
        m = put(a, m, "query_type", str(a, "get_call_graph"));
        if (target)
            m = put(a, m, "name", str(a, target));
        m = put(a, m, "direction", str(a, v == QR_DWIM_CALLERS ? "callers" : "callees"));
        break;
    case QR_DWIM_DEPS:
        m = put(a, m, "query_type", str(a, "get_dependencies"));
        if (target)
            m = put(a, m, "file", str(a, target));
        break;
    case QR_DWIM_REFERENCES:
        m = put(a, m, "query_type", str(a, "find_references"));
        if (target)
            m = put(a, m, "name", str(a, target));
        break;
    case QR_DWIM_DEFINITION:
        m = put(a, m, "query_type", str(a, "get_definition"));
        if (target)
            m = put(a, m, "name", str(a, target));
        break;
    default:
        break;
    }
    return m;
}

/* A tool's params: key=value tokens, then a lone target for its one required string. */
static qr_val tool_params(qr_arena *a, const qr_tool *t, const char *target, tok *toks, size_t nt)
{
    qr_val m = qr_map_empty();
    for (size_t k = 0; k < nt; k++)
        if (toks[k].kind == T_PARAM)
            m = put(a, m, toks[k].key,
                    toks[k].quoted ? str(a, toks[k].text) : param_value(a, toks[k].text));
    if (target) {
        const qr_tool_param *only = NULL;
        size_t nreq = 0;
        for (const qr_tool_param *p = t->params; p && p->name; p++)
            if (p->required) {
                nreq++;
                only = p;
            }
        qr_val given;
        if (nreq == 1 && only->type == QR_TOOL_STRING &&
            !qr_map_get(m, qr_kw_cstr(a, only->name), &given))
            m = put(a, m, only->name, str(a, target));
    }
    return m;
}

/* The keys that name a verb's target when written key=value. */
static bool is_target_key(qr_dwim_verb v, const char *key)
{
    static const char *const PATHK[] = {"path", "file", "dir", "directory", NULL};
    static const char *const SYMK[] = {"symbol", "name", "function", "func", "fn", NULL};
    static const char *const PATK[] = {"pattern", "regex", "re", "query", "pat", NULL};
    const char *const *keys = NULL;
    switch (v) {
    case QR_DWIM_SKELETON:
    case QR_DWIM_READ:
    case QR_DWIM_DEPS:
        keys = PATHK;
        break;
    case QR_DWIM_EXPAND:
    case QR_DWIM_CALLERS:
    case QR_DWIM_CALLEES:
    case QR_DWIM_REFERENCES:
    case QR_DWIM_DEFINITION:
        keys = SYMK;
        break;
    case QR_DWIM_GREP:
        keys = PATK;
        break;
    case QR_DWIM_FETCH:
        return key && !strcmp(key, "id");
    default:
        return false;
    }
    for (size_t i = 0; key && keys[i]; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

/* key=value terms the verb did not take as its target: every one is kept in params, none
 * dropped; qr_dwim_run refuses a key the verb or its tool does not take (limit=5 on grep
 * and skeleton bounds what they show). */
static qr_val kept_params(qr_arena *a, qr_val m, tok *toks, size_t nt)
{
    for (size_t k = 0; k < nt; k++) {
        if (toks[k].kind != T_PARAM || toks[k].used)
            continue;
        qr_val given;
        if (qr_map_get(m, qr_kw_cstr(a, toks[k].key), &given))
            continue;
        m = put(a, m, toks[k].key,
                toks[k].quoted ? str(a, toks[k].text) : param_value(a, toks[k].text));
    }
    return m;
}

/* ---- intent frames ----
 * A natural request is read as a whole: at least one of `need` and of `must` (when
 * given), every other plain word one of `allow` or a stop word, and the targets the
 * frame takes (one file, or none). A frame that fits lifts its verb or tool to `score`;
 * a line with any other word is not a fit, so "show me why src/x.c breaks" stays unread. */
enum { T_NONE, T_FILE, T_FILE_OR_DIR, T_ONE_SYMBOL };

typedef struct frame {
    const char *const need[32];
    const char *const must[6];
    const char *const allow[32];
    int targets; /* T_NONE: no target at all; T_FILE: one file; T_FILE_OR_DIR: one path */
    qr_dwim_verb verb;
    const char *tool;
    double score;
} frame;

static const frame frames[] = {
    {{"show", "print", "display", "cat", "dump", "contents", "look", "view", "open", NULL},
     {NULL},
     {"file", "contents", "content", "full", "whole", "text", "source", "me", "of", "at",
      "into", "let", "looks", "like", NULL},
     T_FILE, QR_DWIM_READ, NULL, 0.88},
    {{"what's", "whats", "explain", "summarize", "summarise", "summary", "describe",
      "methods", "functions", "symbols", "declarations", "overview", "outline", "in",
      "inside", "structs", "struct", "types", "macros", "typedefs", "enums", "files",
      "directory", "folder", NULL},
     {NULL},
     {"what", "in", "is", "inside", "this", "file", "module", "directory", "dir", "folder",
      "package", "all", "get", "list", "show", "me", "of", "defined", "declared", "give",
      "quick", "the", "a", "an", "brief", "short", "there", "are", NULL},
     T_FILE_OR_DIR, QR_DWIM_SKELETON, NULL, 0.86},
    {{"is", "what's", "whats", "about", "explain", "describe", "mean", "means", NULL},
     {NULL},
     {"what", "is", "tell", "me", "about", "the", "a", "an", "of", "does", "do", "mean",
      "means", "function", "type", "struct", "macro", NULL},
     T_ONE_SYMBOL, QR_DWIM_DEFINITION, NULL, 0.86},
    /* "where is X defined", "which file declares X", "where does X live" */
    {{"defined", "declared", "implemented", "located", "lives", "live", "declares", "defines",
      NULL},
     {"where", "where's", "wheres", "which", "what", NULL},
     {"where", "is", "are", "was", "the", "a", "function", "macro", "struct", "type", "file",
      "in", "which", "what", "does", "do", "of", NULL},
     T_ONE_SYMBOL, QR_DWIM_DEFINITION, NULL, 0.88},
    {{"depend", "depends", "dependencies", "include", "includes", "imports", "import",
      "headers", NULL},
     {NULL},
     {"what", "which", "does", "do", "on", "of", "files", "file", "headers", "header",
      "pull", "pulls", "in", "the", "list", "show", "me", NULL},
     T_FILE, QR_DWIM_DEPS, NULL, 0.86},
    {{"history", "log", "blame", "annotate", NULL},
     {NULL},
     {"show", "me", "of", "file", "git", "commit", "commits", "change", "changes", "for",
      "list", NULL},
     T_FILE, QR_DWIM_TOOL, "get_file_history", 0.88},
    /* "list the commits that touched F", "changes to F", "F's history" */
    {{"commits", "changes", "revisions", NULL},
     {NULL},
     {"list", "show", "me", "the", "that", "which", "touched", "changed", "modified",
      "touching", "changing", "modifying", "to", "of", "for", "all", "recent", "latest",
      "last", "made", "affecting", NULL},
     T_FILE, QR_DWIM_TOOL, "get_file_history", 0.88},
    /* git's own words: "git log", "git shortlog -sn" */
    {{"log", NULL},
     {NULL},
     {"git", "show", "me", NULL},
     T_NONE, QR_DWIM_TOOL, "get_commits", 0.86},
    {{"shortlog", NULL},
     {NULL},
     {"git", NULL},
     T_NONE, QR_DWIM_TOOL, "get_author_stats", 0.88},
    {{"tag", "tags", "releases", NULL},
     {NULL},
     {"git", "list", "show", "all", "me", "the", NULL},
     T_NONE, QR_DWIM_TOOL, "get_tags", 0.88},
    {{"checks", "tests", "test", "suite", NULL},
     {"run", "execute", NULL},
     {"run", "all", "unit", "execute", "suite", "the", NULL},
     T_NONE, QR_DWIM_VALIDATE, NULL, 0.88},
    {{"commits", "changed", "changes", "happened", NULL},
     {"recent", "latest", "newest", "recently", "lately", NULL},
     {"show", "recent", "latest", "newest", "last", "me", "list", "what", "has", "was",
      "were", "the", NULL},
     T_NONE, QR_DWIM_TOOL, "get_commits", 0.88},
    {{"touched", "changed", "modified", "edited", "change", "changes", "wrote", "created",
      NULL},
     {"who", "when", "last", "recently", "lately", NULL},
     {"who", "when", "was", "were", "last", "recently", "lately", "most", "the", "file", "did",
      "has", "had", NULL},
     T_FILE, QR_DWIM_TOOL, "get_file_history", 0.86},
    {{"files", NULL},
     {"most", "often", "frequently", NULL},
     {"which", "change", "changed", "changes", "most", "often", "frequently", "are", NULL},
     T_NONE, QR_DWIM_TOOL, "get_file_stats", 0.88},
    {{"contributed", "contributor", "contributors", "committers", "authors", "wrote",
      "committed", NULL},
     {"most", "top", "biggest", "main", NULL},
     {"who", "most", "top", "biggest", "main", "code", "commits", "lines", "ever", "has",
      "have", "the", "are", "to", "this", "repo", "repository", "project", "codebase", "here",
      "so", "far", NULL},
     T_NONE, QR_DWIM_TOOL, "get_author_stats", 0.86},
};

static bool in_words(const char *w, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return true;
    return false;
}

/* A file, not a directory: a name with an extension after its last '/'. */
static bool file_shaped(const char *s)
{
    const char *base = strrchr(s, '/');
    base = base ? base + 1 : s;
    const char *dot = strrchr(base, '.');
    return dot && dot != base && dot[1];
}

static bool frame_fits(const frame *f, const tok *toks, size_t nt)
{
    bool need = false, must = !f->must[0];
    size_t targets = 0, files = 0, syms = 0;
    for (size_t k = 0; k < nt; k++) {
        /* a command line's flags ("git log --follow F", "shortlog -sn") say how git
           would print it; the rows say it all */
        if (toks[k].kind == T_FLAG || !strncmp(toks[k].text, "--", 2))
            continue;
        /* a frame's word is its word even where the code has a symbol or the tree a
           directory of that name ("run the tests" beside tests/) */
        bool named = in_words(toks[k].low, f->need) || in_words(toks[k].low, f->allow) ||
                     (f->must[0] && in_words(toks[k].low, f->must));
        bool word = toks[k].kind == T_WORD ||
                    ((toks[k].kind == T_SYMBOL || toks[k].kind == T_PATH) && named &&
                     !strchr(toks[k].text, '/') && !strchr(toks[k].text, '.'));
        if (word) {
            const char *w = toks[k].low;
            bool n = in_words(w, f->need), m = f->must[0] && in_words(w, f->must);
            need |= n;
            must |= m;
            if (!n && !m && !in_words(w, f->allow) && !is_stopword(w))
                return false;
        } else if (toks[k].kind == T_PATH) {
            targets++;
            files += file_shaped(toks[k].text);
        } else if (f->targets == T_ONE_SYMBOL && toks[k].kind == T_SYMBOL && toks[k].verified) {
            syms++;
        } else {
            return false; /* a pattern, a number, a symbol, key=value: not this frame */
        }
    }
    return need && must &&
           (f->targets == T_FILE          ? targets == 1 && files == 1
            : f->targets == T_FILE_OR_DIR ? targets == 1
            : f->targets == T_ONE_SYMBOL  ? syms == 1 && targets == 0
                                          : targets == 0 && syms == 0);
}

/* ---- the parser ---- */

/* The reading was named by its own name or alias as written (case and -/_ aside), not by
 * a typo of it, a keyword or a frame. */
static bool named_exactly(const cand *c, const tok *toks)
{
    int b = c->verb_tok;
    if (b < 0)
        return false;
    const char *w = toks[b].low;
    size_t wn = strlen(w);
    if (c->tool)
        return qr_words_cost(w, wn, c->tool->name, strlen(c->tool->name)) == 0;
    for (size_t j = 0; verbs[c->verb].aliases[j]; j++)
        if (qr_words_cost(w, wn, verbs[c->verb].aliases[j], strlen(verbs[c->verb].aliases[j])) == 0)
            return true;
    /* "who calls X": the phrase names it */
    return false;
}

static void lift(cand *cs, size_t nc, qr_dwim_verb v, double score)
{
    for (size_t i = 0; i < nc; i++)
        if (!cs[i].tool && cs[i].verb == v && cs[i].score < score)
            cs[i].score = score;
}

static void cap(cand *cs, size_t nc, qr_dwim_verb v, double score)
{
    for (size_t i = 0; i < nc; i++)
        if (!cs[i].tool && cs[i].verb == v && cs[i].score > score)
            cs[i].score = score;
}

/* Which way an include question goes, by the same word order: the file after an include
 * word is included ("what includes src/util.h", "which files include util.h": the files
 * that include it, reverse), the file before it includes ("what does src/main.c
 * include"), and "included by F" asks what F includes. True for reverse; lifts deps. */
static bool include_order(const tok *toks, size_t nt, cand *cs, size_t nc)
{
    static const char *const active[] = {"include", "includes", "import", "imports", NULL};
    static const char *const passive[] = {"included", "imported", NULL};
    size_t c = nt, t = nt, ntargets = 0;
    for (size_t k = 0; k < nt; k++) {
        if (c == nt && toks[k].kind == T_WORD &&
            (in_words(toks[k].low, active) || in_words(toks[k].low, passive)))
            c = k;
        else if (toks[k].kind == T_PATH) {
            ntargets++;
            if (t == nt)
                t = k;
        } else if (target_kind(toks[k].kind))
            return false;
    }
    if (c == nt || t == nt || ntargets != 1 || c == 0)
        return false;
    bool by = c + 1 < nt && !strcmp(toks[c + 1].low, "by");
    bool reverse = in_words(toks[c].low, passive) ? !by && t < c : t > c;
    lift(cs, nc, QR_DWIM_DEPS, 0.88);
    return reverse;
}

static void call_order(const tok *toks, size_t nt, cand *cs, size_t nc)
{
    static const char *const active[] = {"call", "calls", "invoke", "invokes", "use", "uses",
                                          "using", "reach", "reaches", NULL};
    static const char *const passive[] = {"called", "used", "invoked", "referenced", NULL};
    size_t c = nt, t = nt, ntargets = 0;
    for (size_t k = 0; k < nt; k++) {
        if (c == nt && toks[k].kind == T_WORD &&
            (in_words(toks[k].low, active) || in_words(toks[k].low, passive)))
            c = k;
        else if (toks[k].kind == T_SYMBOL || toks[k].kind == T_MEMBER ||
                 toks[k].kind == T_FILESYM) {
            ntargets++;
            if (t == nt)
                t = k;
        } else if (target_kind(toks[k].kind))
            return; /* a path, a pattern: another question */
    }
    /* a terse line that opens with the word is that verb ("calls X": callees) */
    if (c == nt || t == nt || ntargets != 1 || c == 0)
        return;
    bool is_use = !strncmp(toks[c].low, "us", 2) || !strcmp(toks[c].low, "referenced");
    bool by = c + 1 < nt && !strcmp(toks[c + 1].low, "by");
    if (in_words(toks[c].low, passive)) {
        if (by && t > c) { /* "functions called by X" */
            lift(cs, nc, QR_DWIM_CALLEES, 0.88);
            cap(cs, nc, QR_DWIM_CALLERS, 0.7);
        } else if (t < c) { /* "where is X used", "where is X called" */
            lift(cs, nc, is_use ? QR_DWIM_REFERENCES : QR_DWIM_CALLERS, 0.88);
            lift(cs, nc, is_use ? QR_DWIM_CALLERS : QR_DWIM_REFERENCES, 0.8);
            cap(cs, nc, QR_DWIM_CALLEES, 0.7);
        }
        return;
    }
    if (t > c) { /* "who calls X", "who uses X" */
        lift(cs, nc, is_use ? QR_DWIM_REFERENCES : QR_DWIM_CALLERS, 0.88);
        lift(cs, nc, is_use ? QR_DWIM_CALLERS : QR_DWIM_REFERENCES, 0.8);
        cap(cs, nc, QR_DWIM_CALLEES, 0.7);
    } else { /* "what does X call" */
        lift(cs, nc, QR_DWIM_CALLEES, 0.88);
        cap(cs, nc, QR_DWIM_CALLERS, 0.7);
        cap(cs, nc, QR_DWIM_REFERENCES, 0.7);
        cap(cs, nc, QR_DWIM_SKELETON, 0.7);
    }
}

static int by_score(const cand *x, const cand *y)
{
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return 0;
}

/* A validate line naming its check: a validate alias, then one of the test runners
 * (make, ctest, npm, pytest, cargo, go) and its words. Sets out to that reading. */
static int validate_named(const char *text, size_t n, qr_arena *a, qr_dwim_intent *out)
{
    static const char *const first[] = {"validate", "check", "verify", "test", "run", NULL};
    static const char *const runners[] = {"make", "ctest", "npm", "pytest", "cargo", "go",
                                          NULL};
    size_t i = 0;
    while (i < n && isspace((unsigned char)text[i]))
        i++;
    size_t w0 = i;
    while (i < n && !isspace((unsigned char)text[i]))
        i++;
    size_t w0n = i - w0;
    while (i < n && isspace((unsigned char)text[i]))
        i++;
    size_t w1 = i;
    while (i < n && !isspace((unsigned char)text[i]))
        i++;
    size_t w1n = i - w1;
    bool ok0 = false, ok1 = false;
    for (size_t k = 0; first[k]; k++)
        ok0 |= strlen(first[k]) == w0n && !strncasecmp(text + w0, first[k], w0n);
    /* "make test", "make check", "ctest", "pytest -x": a test runner said as the line */
    bool runner0 = false;
    for (size_t k = 0; runners[k]; k++)
        runner0 |= strlen(runners[k]) == w0n && !strncmp(text + w0, runners[k], w0n);
    bool says_test = (w1n == 4 && !strncmp(text + w1, "test", 4)) ||
                     (w1n == 5 && !strncmp(text + w1, "tests", 5)) ||
                     (w1n == 5 && !strncmp(text + w1, "check", 5)) ||
                     (w0n == 5 && !strncmp(text + w0, "ctest", 5)) ||
                     (w0n == 6 && !strncmp(text + w0, "pytest", 6));
    if (runner0 && says_test) {
        w1 = w0; /* the command is the whole line */
        ok0 = ok1 = true;
    }
    /* "vaildate make test": validate's name misspelt, as a verb alone is read */
    bool typo = !ok0 && qr_words_typo(text + w0, w0n, "validate", 8);
    ok0 |= typo;
    for (size_t k = 0; runners[k] && !ok1; k++)
        ok1 |= strlen(runners[k]) == w1n && !strncmp(text + w1, runners[k], w1n);
    if (!ok0 || !ok1)
        return QR_OK;
    size_t e = n;
    while (e > w1 && isspace((unsigned char)text[e - 1]))
        e--;
    const char *cmd = qr_arena_strndup(a, text + w1, e - w1);
    const char **targets = qr_arena_alloc(a, sizeof *targets);
    if (!cmd || !targets)
        return QR_ENOMEM;
    targets[0] = cmd;
    out->verb = QR_DWIM_VALIDATE;
    out->tool = "validate";
    out->target = cmd;
    out->targets = targets;
    out->ntargets = 1;
    out->params = put(a, qr_map_empty(), "command", str(a, cmd));
    out->confidence = typo ? 0.9 : 0.95;
    return QR_OK;
}

static int parse_once(const qr_dwim_lookup *lk, const char *text, size_t n, qr_arena *a,
                      qr_dwim_intent *out)
{
    memset(out, 0, sizeof *out);
    out->params = qr_map_empty();
    /* the first line is the intent; the rest (a patch, a block) is its content */
    const char *nl = memchr(text, '\n', n);
    size_t ln = nl ? (size_t)(nl - text) : n;
    /* a tool the registry holds back, named as the line's first word */
    if (lk && lk->tools) {
        size_t wn = 0;
        while (wn < ln && !strchr(" \t\r", text[wn]))
            wn++;
        const qr_tool *t = qr_tools_find(lk->tools, text, wn);
        if (t && !qr_tools_usable(lk->tools, t))
            out->refused = t;
    }
    const char *content = NULL;
    if (nl && (size_t)(nl - text) + 1 < n) {
        if (!(content = qr_arena_strndup(a, nl + 1, n - ln - 1)))
            return QR_ENOMEM;
    }
    /* `verb: text` carries content on the line */
    size_t head = ln;
    for (size_t i = 0; i < ln; i++) {
        if (text[i] == ':' && (i + 1 == ln || text[i + 1] == ' ')) {
            size_t w = 0;
            while (w < i && !isspace((unsigned char)text[w]))
                w++;
            if (w == i && i > 0) { /* the first word ends with the colon */
                size_t c = i + 1;
                while (c < ln && text[c] == ' ')
                    c++;
                const char *line_content = qr_arena_strndup(a, text + c, ln - c);
                if (!line_content)
                    return QR_ENOMEM;
                if (content) {
                    size_t l1 = strlen(line_content), l2 = strlen(content);
                    char *both = qr_arena_alloc(a, l1 + l2 + 2);
                    if (!both)
                        return QR_ENOMEM;
                    memcpy(both, line_content, l1);
                    both[l1] = '\n';
                    memcpy(both + l1 + 1, content, l2 + 1);
                    line_content = both;
                }
                content = line_content;
                head = i;
            }
            break;
        }
    }
    out->content = content && *content ? content : NULL;
    /* `validate make test`: the check named on the line (validate.c allows only the
     * repository's own test commands) */
    if (validate_named(text, head, a, out) != QR_OK)
        return QR_ENOMEM;
    if (out->verb == QR_DWIM_VALIDATE)
        return QR_OK;

    /* chatter and politeness off the ends ("hey, could you ...", "... please"): the one
     * normalizer of src/words; a line with quotes is read as written (the normalizer
     * squeezes spaces, and a quoted pattern or value keeps its own) */
    const char *norm = text;
    size_t normn = head;
    if (!memchr(text, '\'', head) && !memchr(text, '"', head) && !memchr(text, '`', head)) {
        char *nb = qr_arena_alloc(a, head + 1);
        if (!nb)
            return QR_ENOMEM;
        normn = qr_words_normalize(text, head, nb, head + 1);
        norm = nb;
    }
    tok toks[MAX_TOKS];
    size_t nt = tokenize(lk, norm, normn, a, toks);
    if (nt == SIZE_MAX)
        return QR_ENOMEM;
    if (nt == 0)
        return QR_OK;

    size_t ntools = lk && lk->tools ? qr_tools_count(lk->tools) : 0;
    cand *cs = qr_arena_alloc(a, (QR_DWIM_VERB_COUNT + ntools) * sizeof *cs);
    if (!cs)
        return QR_ENOMEM;
    size_t nc = 0;
    size_t ntargets_any = 0;
    for (size_t k = 0; k < nt; k++)
        if (target_kind(toks[k].kind))
            ntargets_any++;

    for (int v = QR_DWIM_SKELETON; v < QR_DWIM_TOOL; v++) {
        int by;
        double ns;
        double kw = verb_keyword_score(&verbs[v], toks, nt, &by, &ns);
        double s;
        /* targets other than the verb's own word */
        size_t ntg = ntargets_any - (by >= 0 && target_kind(toks[by].kind) ? 1 : 0);
        /* an unknown plain word after the verb can be its target (expand main) */
        bool word_target = false;
        if (by >= 0 && ntg == 0)
            for (size_t k = (size_t)by + 1; k < nt; k++)
                if (toks[k].kind == T_WORD && !is_stopword(toks[k].low)) {
                    word_target = true;
                    break;
                }
        if (by >= 0) {
            s = ns;
            /* a verb with a plain word after it ("expand main") is a little less sure of
               that word; one named alone is sure of itself: the missing target is
               reported apart (qr_dwim_intent_json) and asked for */
            if (verbs[v].needs_target && ntg == 0 && word_target)
                s -= 0.05;
            if (kw > 0.3 && s < 0.95)
                s += 0.03;
            /* words the reading does not explain ("make coffee", "check the weather") */
            size_t extra = 0;
            bool first_word = verbs[v].needs_target && !ntg;
            for (size_t k = 0; k < nt; k++) {
                if ((int)k == by || toks[k].kind != T_WORD || is_stopword(toks[k].low) ||
                    is_request_word(toks[k].low) || qr_words_is_chatter(toks[k].low) ||
                    (verbs[v].needs_target && is_filler(toks[k].low)))
                    continue;
                bool keyword = false;
                for (size_t i = 0; verbs[v].keywords[i]; i++)
                    if (!strcmp(toks[k].low, verbs[v].keywords[i]))
                        keyword = true;
                if (keyword)
                    continue;
                if (first_word && (int)k > by) {
                    first_word = false;
                    continue;
                }
                extra++;
            }
            s -= 0.2 * (double)extra;
        } else {
            s = kw > 0 ? 0.3 + (kw > 0.5 ? 0.5 : kw) : 0;
            if (s > 0 && ntg > 0)
                s += 0.08;
            if (s > 0.8)
                s = 0.8;
        }
        /* content lines make a fix, a plan or a note more likely */
        if (out->content && (v == QR_DWIM_FIX || v == QR_DWIM_PLAN || v == QR_DWIM_NOTE ||
                             v == QR_DWIM_DONE) && by == 0)
            s = s < 0.95 ? 0.95 : s;
        cs[nc++] = (cand){(qr_dwim_verb)v, NULL, s, by, false};
    }
    for (size_t i = 0; i < ntools; i++) {
        const qr_tool *t = qr_tools_at(lk->tools, i);
        if (!qr_tools_usable(lk->tools, t))
            continue;
        int by;
        double ns;
        double kw = tool_keyword_score(t, toks, nt, &by, &ns);
        double s = ns > 0 ? ns : kw;
        cs[nc++] = (cand){QR_DWIM_TOOL, t, s, by, false};
    }
    /* "find callers of X", "search the references to X", "open the skeleton of x.c": a
     * request word that is also a verb's alias (find, search, view...) asks for what the
     * next word names when that word names another verb; that verb wins, and the request
     * word's own reading stays an alternative */
    for (size_t i = 0; i < nc; i++) {
        int b1 = cs[i].verb_tok;
        if (cs[i].tool || b1 < 0 || !is_request_word(toks[b1].low))
            continue;
        size_t named = nc; /* the best reading the next word names */
        for (size_t j = 0; j < nc; j++) {
            int b2 = cs[j].verb_tok;
            if (j == i || cs[j].tool || b2 <= b1 || b2 - b1 > 3 || is_request_word(toks[b2].low))
                continue;
            bool next = true; /* only stopwords between the two */
            for (int k = b1 + 1; k < b2; k++)
                if (toks[k].kind != T_WORD || !is_stopword(toks[k].low))
                    next = false;
            if (next && (named == nc || cs[j].score > cs[named].score))
                named = j;
        }
        if (named < nc && cs[named].score < cs[i].score + 0.02)
            cs[named].score = cs[i].score + 0.02;
    }
    /* natural requests read as intent frames (a request word, one file): "show src/x.c",
     * "what's in src/x.c", "history of src/x.c", "run the checks" */
    for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++) {
        if (!frame_fits(&frames[f], toks, nt))
            continue;
        /* its words are not targets, even where the code has a symbol of that name */
        for (size_t k = 0; k < nt; k++)
            if (toks[k].kind == T_SYMBOL &&
                (in_words(toks[k].low, frames[f].need) || in_words(toks[k].low, frames[f].allow) ||
                 (frames[f].must[0] && in_words(toks[k].low, frames[f].must))))
                toks[k].used = true;
        for (size_t i = 0; i < nc; i++) {
            bool same = frames[f].tool ? cs[i].tool && !strcmp(cs[i].tool->name, frames[f].tool)
                                       : !cs[i].tool && cs[i].verb == frames[f].verb;
            if (same && cs[i].score < frames[f].score) {
                cs[i].score = frames[f].score;
                cs[i].framed = true;
            }
        }
        break;
    }
    /* who calls whom, read from the order of the words: the symbol after a call word is
     * called ("who calls X", "which functions call X", "who uses X": callers, or its
     * references), the symbol before it calls ("what does X call", "what functions does
     * X use": callees), and "called by X" / "used by X" asks what X calls */
    call_order(toks, nt, cs, nc);
    bool deps_reverse = include_order(toks, nt, cs, nc);
    /* a bare target: what a person most likely wants of it */
    bool named = false;
    for (size_t i = 0; i < nc; i++)
        if (cs[i].verb_tok >= 0)
            named = true;
    if (!named && nt == 1 && target_kind(toks[0].kind)) {
        qr_dwim_verb v = toks[0].kind == T_FILELINE  ? QR_DWIM_READ
                         : toks[0].kind == T_PATTERN ? QR_DWIM_GREP
                         : toks[0].kind == T_PATH    ? QR_DWIM_SKELETON
                                                     : QR_DWIM_EXPAND;
        double s = toks[0].verified ? 0.65 : 0.45;
        for (size_t i = 0; i < nc; i++)
            if (cs[i].verb == v && cs[i].score < s)
                cs[i].score = s;
    }
    /* a verb or tool that edits, deletes or runs code is run only when its name is written
     * exactly as the line's first word (or a frame read the whole line, "run the tests"):
     * a typo of one ("edti", "memroy_add", "exit" for edit) or a reading from keywords
     * stays in the suggest band (validate, which runs only the repository's own check,
     * runs from a typo of its name as the first word), and its name later in prose
     * ("does it compile") asks */
    for (size_t i = 0; i < nc; i++) {
        bool writes = cs[i].tool ? (cs[i].tool->caps & (QR_TOOL_WRITES | QR_TOOL_EXEC |
                                                        QR_TOOL_DESTROYS)) != 0
                                 : cs[i].verb == QR_DWIM_FIX;
        bool runs = !cs[i].tool && cs[i].verb == QR_DWIM_VALIDATE;
        if ((!writes && !runs) || cs[i].framed)
            continue;
        int b = cs[i].verb_tok;
        bool exact = named_exactly(&cs[i], toks);
        /* validate runs only the repository's own check (a vetted command, docs/dwim.md):
           its name misspelt as the first word ("valdiate") is still validate; a word
           read from prose ("does it compile") asks */
        bool typo_first = runs && !exact && b == 0 && cs[i].score >= 0.85;
        double most = typo_first ? 1.0 : !exact ? (writes ? 0.55 : 0.8) : b != 0 ? 0.8 : 1.0;
        /* an edit with nothing named to edit and no block ("rewrite everything") asks */
        if (!cs[i].tool && cs[i].verb == QR_DWIM_FIX && !out->content && !ntargets_any &&
            most > 0.8 && !(exact && b == 0 && nt == 1))
            most = 0.8; /* "fix" alone is sure of its verb: its file is asked for */
        if (cs[i].score > most)
            cs[i].score = most;
    }
    /* sort (stable insertion: verbs before tools on ties) */
    for (size_t i = 1; i < nc; i++) {
        cand c = cs[i];
        size_t j = i;
        while (j > 0 && by_score(&c, &cs[j - 1]) < 0) {
            cs[j] = cs[j - 1];
            j--;
        }
        cs[j] = c;
    }
    /* two readings as near, one of them the typed word's own letters swapped ("callres":
     * callers, not callees by a neighbour key): the swap is the likelier slip */
    if (nc > 1 && cs[0].score > 0.8 && cs[0].verb_tok >= 0 &&
        cs[0].verb_tok == cs[1].verb_tok && cs[0].score - cs[1].score < 0.015 &&
        !cs[0].tool && !cs[1].tool && cs[0].verb != cs[1].verb) {
        const char *w = toks[cs[0].verb_tok].low;
        bool a0 = verb_anagram(w, cs[0].verb), a1 = verb_anagram(w, cs[1].verb);
        if (a0 != a1) {
            if (a1) {
                cand c = cs[0];
                cs[0] = cs[1];
                cs[1] = c;
            }
            cs[1].score = cs[0].score - 0.02;
        }
    }
    /* a typo as close to two readings ("calles": callers or callees) is not sure of
     * either: it asks with both */
    if (nc > 1 && cs[0].score > 0.8 && cs[0].verb_tok >= 0 &&
        cs[0].verb_tok == cs[1].verb_tok && cs[0].score - cs[1].score < 0.015 &&
        !named_exactly(&cs[0], toks) && !named_exactly(&cs[1], toks) &&
        (cs[0].tool != cs[1].tool || cs[0].verb != cs[1].verb)) {
        cs[0].score = 0.8;
        cs[1].score = 0.8;
        for (size_t i = 2; i < nc; i++) /* the list stays best first */
            if (cs[i].score > 0.8)
                cs[i].score = 0.8;
    }
    cand best = cs[0];
    if (best.score <= 0) {
        out->verb = QR_DWIM_NONE;
        return QR_OK;
    }
    out->verb = best.verb;
    out->confidence = best.score > 1 ? 1 : best.score;
    out->tool = best.tool ? best.tool->name : verbs[best.verb].tool;
    for (size_t i = 1; i < nc && out->nalts < 3; i++) {
        if (cs[i].score < 0.1) /* too weak to be worth listing */
            break;
        out->alts[out->nalts++] = (qr_dwim_alt){cs[i].verb,
                                               cs[i].tool ? cs[i].tool->name
                                                          : verbs[cs[i].verb].tool,
                                               cs[i].score > 1 ? 1 : cs[i].score};
    }
    /* targets: every target-shaped token but the verb's own word; for a verb needing one
     * and having none, the first plain non-stop word after it. A read's numbers and
     * ranges are its lines, not targets. */
    out->targets = qr_arena_alloc(a, (nt + 1) * sizeof *out->targets);
    tok_kind *tkinds = qr_arena_alloc(a, (nt + 1) * sizeof *tkinds);
    if (!out->targets || !tkinds)
        return QR_ENOMEM;
    for (size_t k = 0; k < nt; k++)
        if ((int)k != best.verb_tok && target_kind(toks[k].kind) && !toks[k].used &&
            !((toks[k].kind == T_NUMBER || toks[k].kind == T_RANGE) &&
              best.verb == QR_DWIM_READ) &&
            !(toks[k].kind == T_RANGE && best.verb != QR_DWIM_GREP) &&
            /* "show callers of X" asks for X's callers, even where a symbol is named show */
            !((int)k < best.verb_tok && toks[k].kind != T_PATTERN &&
              is_request_word(toks[k].low))) {
            tkinds[out->ntargets] = toks[k].kind;
            out->targets[out->ntargets++] = toks[k].text;
        }
    /* the target of the verb's kind first: a file for skeleton, read and deps, a symbol
     * for expand and the graph verbs, a pattern for grep */
    if (best.verb != QR_DWIM_TOOL && out->ntargets > 1) {
        size_t pick = out->ntargets;
        for (size_t i = 0; i < out->ntargets && pick == out->ntargets; i++) {
            tok_kind k = tkinds[i];
            switch (best.verb) {
            case QR_DWIM_SKELETON:
            case QR_DWIM_READ:
            case QR_DWIM_DEPS:
                if (k == T_PATH || k == T_FILELINE)
                    pick = i;
                break;
            case QR_DWIM_EXPAND:
            case QR_DWIM_CALLERS:
            case QR_DWIM_CALLEES:
            case QR_DWIM_REFERENCES:
            case QR_DWIM_DEFINITION:
                if (k == T_SYMBOL || k == T_MEMBER || k == T_FILESYM)
                    pick = i;
                break;
            case QR_DWIM_GREP:
                if (k == T_PATTERN)
                    pick = i;
                break;
            default:
                break;
            }
        }
        if (pick > 0 && pick < out->ntargets) {
            const char *t = out->targets[pick];
            tok_kind tk = tkinds[pick];
            memmove(out->targets + 1, out->targets, pick * sizeof *out->targets);
            memmove(tkinds + 1, tkinds, pick * sizeof *tkinds);
            out->targets[0] = t;
            tkinds[0] = tk;
        }
    }
    if (out->ntargets == 0 && best.verb_tok >= 0 && best.verb != QR_DWIM_TOOL &&
        verbs[best.verb].needs_target)
        for (size_t k = (size_t)best.verb_tok + 1; k < nt; k++)
            if (toks[k].kind == T_WORD && !is_stopword(toks[k].low) &&
                !is_request_word(toks[k].low) && !is_filler(toks[k].low)) {
                out->targets[out->ntargets++] = toks[k].text;
                break;
            }
    /* path=src/main.c, pattern=x, name=die: the target named by its key comes first */
    if (best.verb != QR_DWIM_TOOL)
        for (size_t k = 0; k < nt; k++)
            if (toks[k].kind == T_PARAM && is_target_key(best.verb, toks[k].key) &&
                !(best.verb == QR_DWIM_GREP && !strcmp(toks[k].key, "path"))) {
                memmove(out->targets + 1, out->targets, out->ntargets * sizeof *out->targets);
                out->targets[0] = toks[k].text;
                out->ntargets++;
                toks[k].used = true;
                break;
            }
    /* a tool's target is what its path=, name= or commit= names ("git log --follow F" is
       get_file_history path=F: its target is F) */
    if (best.verb == QR_DWIM_TOOL && out->ntargets == 0) {
        static const char *const keys[] = {"path", "file", "name", "symbol", "commit", "pattern", NULL};
        for (size_t j = 0; keys[j] && !out->ntargets; j++)
            for (size_t k = 0; k < nt; k++)
                if (toks[k].kind == T_PARAM && !strcmp(toks[k].key, keys[j])) {
                    out->targets[out->ntargets++] = toks[k].text;
                    break;
                }
    }
    out->target = out->ntargets ? out->targets[0] : NULL;
    out->missing_target = !out->target && best.verb != QR_DWIM_TOOL &&
                          (verbs[best.verb].needs_target ||
                           (best.verb == QR_DWIM_FIX && !out->content));
    /* "struct evbuffer" for the graph verbs: the symbol is evbuffer, of kind struct (the
       code tools take the name and the kind apart; expand reads "struct X" itself) */
    const char *kind = NULL;
    if (out->target && (best.verb == QR_DWIM_DEFINITION || best.verb == QR_DWIM_CALLERS ||
                        best.verb == QR_DWIM_CALLEES || best.verb == QR_DWIM_REFERENCES)) {
        static const char *const KW[] = {"struct ", "union ", "enum "};
        for (size_t k = 0; k < 3 && !kind; k++)
            if (!strncmp(out->target, KW[k], strlen(KW[k]))) {
                kind = k == 0 ? "struct" : k == 1 ? "union" : "enum";
                out->target = out->targets[0] = out->target + strlen(KW[k]);
            }
    }
    if (best.verb == QR_DWIM_TOOL) {
        out->params = tool_params(a, best.tool, out->target, toks, nt);
    } else {
        out->params = verb_params(a, best.verb, out->target, toks, nt, out->content);
        if (kind && best.verb == QR_DWIM_DEFINITION)
            out->params = put(a, out->params, "kind", str(a, kind));
        out->params = kept_params(a, out->params, toks, nt);
        qr_val given;
        if (best.verb == QR_DWIM_DEPS && deps_reverse &&
            !qr_map_get(out->params, qr_kw_cstr(a, "reverse"), &given))
            out->params = put(a, out->params, "reverse", qr_bool(true));
        /* "lines 10-20 of src/main.c": the target says the lines as read takes them */
        qr_val lo, hi;
        const char *colon = out->target ? strrchr(out->target, ':') : NULL;
        if (best.verb == QR_DWIM_READ && !(colon && isdigit((unsigned char)colon[1])) &&
            qr_map_get(out->params, qr_kw_cstr(a, "start"), &lo) && lo.t == QR_T_INT &&
            qr_map_get(out->params, qr_kw_cstr(a, "end"), &hi) && hi.t == QR_T_INT) {
            size_t l = strlen(out->target) + 48;
            char *t = qr_arena_alloc(a, l);
            if (!t)
                return QR_ENOMEM;
            snprintf(t, l, "%s:%lld-%lld", out->target, (long long)lo.i, (long long)hi.i);
            out->target = out->targets[0] = t;
        }
    }
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

void qr_dwim_intent_json(const qr_dwim_intent *in, qr_buf *b)
{
    qr_buf_puts(b, "{\"verb\":");
    qr_buf_json_string(b, qr_dwim_verb_name(in->verb), strlen(qr_dwim_verb_name(in->verb)));
    qr_buf_puts(b, ",\"target\":");
    if (in->target)
        qr_buf_json_string(b, in->target, strlen(in->target));
    else
        qr_buf_puts(b, "null");
    qr_buf_puts(b, ",\"targets\":[");
    for (size_t i = 0; i < in->ntargets; i++) {
        if (i)
            qr_buf_putc(b, ',');
        qr_buf_json_string(b, in->targets[i], strlen(in->targets[i]));
    }
    qr_buf_puts(b, "],\"content\":");
    if (in->content)
        qr_buf_json_string(b, in->content, strlen(in->content));
    else
        qr_buf_puts(b, "null");
    qr_buf_puts(b, ",\"tool\":");
    if (in->tool)
        qr_buf_json_string(b, in->tool, strlen(in->tool));
    else
        qr_buf_puts(b, "null");
    qr_buf_puts(b, ",\"params\":");
    qr_print_json(b, in->params, false);
    /* what the line did not say that the verb needs: the loop asks for it */
    if (in->missing_target)
        qr_buf_puts(b, ",\"missing\":[\"target\"]");
    qr_buf_printf(b, ",\"confidence\":%.2f,\"alternatives\":[", in->confidence);
    for (size_t i = 0; i < in->nalts; i++) {
        const char *v = qr_dwim_verb_name(in->alts[i].verb);
        qr_buf_puts(b, i ? ",{\"verb\":" : "{\"verb\":");
        qr_buf_json_string(b, v, strlen(v));
        qr_buf_puts(b, ",\"tool\":");
        if (in->alts[i].tool)
            qr_buf_json_string(b, in->alts[i].tool, strlen(in->alts[i].tool));
        else
            qr_buf_puts(b, "null");
        qr_buf_printf(b, ",\"confidence\":%.2f}", in->alts[i].confidence);
    }
    qr_buf_puts(b, "]}");
}

/* A line in another tool's words is first read as the DWIM line that does the same
 * (cmdline.c).
 * `callers: wal_checksum`: the colon form carries content for the verbs that take it
 * (fix, plan, done); for a verb that needs a target, what follows the colon is the target,
 * so the line is read again with the colon as a space. */
int qr_dwim_parse(const qr_dwim_lookup *lk, const char *text, size_t n, qr_arena *a,
                  qr_dwim_intent *out)
{
    /* another tool's command ("cscope -L3 f", "git log -n 5"): read as the line that does
       the same, the content lines kept */
    const char *nl0 = memchr(text, '\n', n);
    size_t ln0 = nl0 ? (size_t)(nl0 - text) : n;
    const char *canon = qr__dwim_cmdline(lk, text, ln0, a);
    if (canon) {
        size_t cl = strlen(canon);
        char *t = qr_arena_alloc(a, cl + (n - ln0) + 1);
        if (!t)
            return QR_ENOMEM;
        memcpy(t, canon, cl);
        memcpy(t + cl, text + ln0, n - ln0);
        t[cl + n - ln0] = '\0';
        text = t;
        n = cl + n - ln0;
    }
    int rc = parse_once(lk, text, n, a, out);
    if (rc == QR_OK && !canon && qr__dwim_foreign(text, ln0, a)) {
        /* `rm -rf build`, `git push`: no verb, however its words read */
        const qr_tool *refused = out->refused;
        memset(out, 0, sizeof *out);
        out->params = qr_map_empty();
        out->refused = refused;
        return QR_OK;
    }
    if (rc != QR_OK || !out->missing_target || !out->content)
        return rc;
    const char *nl = memchr(text, '\n', n);
    size_t ln = nl ? (size_t)(nl - text) : n;
    size_t w = 0;
    while (w < ln && !isspace((unsigned char)text[w]))
        w++;
    if (w < 2 || text[w - 1] != ':' || w == ln)
        return rc;
    char *copy = qr_arena_strndup(a, text, n);
    if (!copy)
        return QR_ENOMEM;
    copy[w - 1] = ' ';
    qr_dwim_intent again;
    rc = parse_once(lk, copy, n, a, &again);
    if (rc == QR_OK && !again.missing_target && again.verb == out->verb)
        *out = again;
    return rc;
}
