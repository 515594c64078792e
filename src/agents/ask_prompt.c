/*
 * ask_prompt.c: the text the agents of `quarry ask` read, built per role from what that
 * role uses (issue 25):
 *
 *   all roles   INTRO, then CONVENTIONS (windows by committer date in the user's zone,
 *               calendar words, the date forms since/until take); which date :date is
 *               and that merges are included are in the DSL reference (the Compiler's
 *               Lisp part says them too)
 *   Architect   + TOOLS (the question's domains) + QUERY DSL + role
 *   Fetcher     + TOOLS (the question's domains) + QUERY DSL + role
 *   Compiler    + TOOLS (the question's domains) + PTC-LISP (generated from the Lisp
 *               builtin table, with the program's limits) + role
 *   Evaluator   + QUERY DSL without fetches (it has no tools) + role
 *
 * The tools come from the registry, the DSL from its op table and the query module's
 * reference (qr_query_reference), so neither drifts from what runs; the Compiler's function list is every name of the Lisp builtin
 * table (qr_lisp_each_builtin), so it is complete by construction. A question is read
 * for its domains: history always, the code graph's tools (query_codebase, sparql_query)
 * only when it names code (functions, calls, structs, macros...), since their 1.5K
 * characters are noise to a question about commits.
 *
 * Caching: nothing here depends on the question's words beyond its domains, nor on the
 * time or the data (today's date goes in the user message: qr_ask_prompt_today). The
 * shared part (*shared_len) is INTRO + CONVENTIONS + TOOLS, byte-identical for the
 * Architect, the Fetcher and the Compiler of one domain set (Anthropic gets a cache
 * breakpoint after it, so a Fetcher or a Compiler reads it from the Architect's cache
 * entry); the Evaluator shares INTRO + CONVENTIONS, which is all it has in common.
 *
 * Rejected: one block of tools and DSL for every role (issue 13's choice: the Evaluator
 * paid 5.8K characters of tools it cannot call and the Compiler the DSL it does not
 * write, for one cache entry); a hand-written list of Lisp functions (it listed a third
 * of them, and missed mod and quot); pointers to docs/ pages (a model cannot read them:
 * a "docs/..." clause of a tool's summary is cut here); the DSL before the tools (the
 * Evaluator would then share 6K more characters with the Architect, and the Compiler
 * 3.6K less: plans gain, intents lose, and the richer DSL should make both rarer).
 */
#include "ask_int.h"

#include "quarry/date.h"
#include "quarry/lisp.h"
#include "quarry/query.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- domains ---- */

/* The code graph's tools: shown only to a question about code. Any other tool that reads
 * the repository is a history tool. */
static bool code_tool(const qr_tool *t)
{
    return !strcmp(t->name, "query_codebase") || !strcmp(t->name, "sparql_query");
}

/* The history tools shown only when a question needs them (get_commits, get_author_stats
 * and get_file_stats answer the rest, a path given to them included): one file's history
 * across renames for a question naming a file, the changes between two refs for one
 * naming a range or a version, the patch text for one asking for the lines themselves. */
static unsigned history_domain(const qr_tool *t)
{
    if (!strcmp(t->name, "get_diff"))
        return QR_ASK_PATCH;
    if (!strcmp(t->name, "get_file_history"))
        return QR_ASK_FILE;
    if (!strcmp(t->name, "get_diff_stats"))
        return QR_ASK_RANGE;
    return QR_ASK_HISTORY;
}

/* Whether the word at p..p+n looks like a path (a '/' inside, or a name with a short
 * extension: src/a.c, Makefile.am, README.md); *version when it is a version instead
 * (v1.2, 2.0.1). */
static bool path_or_version(const char *p, size_t n, bool *version)
{
    size_t slash = 0, dot = 0, digits = 0, last_dot = n;
    for (size_t i = 0; i < n; i++) {
        slash += p[i] == '/';
        if (p[i] == '.') {
            dot++;
            last_dot = i;
        }
        digits += isdigit((unsigned char)p[i]) != 0;
    }
    /* v1.2, V2.0, 2.0.1 (a bare 1.5 is a number) */
    bool v = p[0] == 'v' || p[0] == 'V';
    *version = dot && digits + dot + (v ? 1 : 0) == n && (v || dot >= 2);
    if (*version)
        return false;
    return (slash && n > 1) || (dot && last_dot > 0 && n - last_dot - 1 >= 1 &&
                                n - last_dot - 1 <= 4 && isalpha((unsigned char)p[last_dot + 1]));
}

static bool prefix_ci(const char *s, const char *stem, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != stem[i])
            return false;
    return true;
}

unsigned qr_ask_question_domains(const char *question)
{
    /* word beginnings that make a question one about code */
    static const char *const stems[] = {
        "function", "func",   "call",  "struct",   "macro",    "typedef",  "defin",
        "declar",   "includ", "symbol", "variable", "enum",     "class",    "code",
        "sparql",   "method", "header", "type",     "signature", "skeleton", "outline",
        "identifier", NULL};
    /* whole words that ask for the changed lines themselves, for one file's history, for
     * the changes between two points */
    static const char *const patch_words[] = {"patch", "patches", "diff", "diffs", "hunk",
                                              "hunks", "removed lines", "added lines",
                                              "lines added", "lines removed", NULL};
    static const char *const file_words[] = {"history of", "renamed", "rename", "created",
                                             "file's", NULL};
    static const char *const range_words[] = {"between", "compare", "compared", "diff",
                                              "release", "tag", "tags", "version", NULL};
    unsigned d = QR_ASK_HISTORY;
    const char *q = question ? question : "";
    for (const char *w = q; *w;) { /* whitespace-separated words: paths, versions, ranges */
        while (*w && isspace((unsigned char)*w))
            w++;
        const char *e = w;
        while (*e && !isspace((unsigned char)*e))
            e++;
        size_t n = (size_t)(e - w);
        while (n && strchr("?!,;:\"'()", w[n - 1])) /* trailing punctuation */
            n--;
        bool version;
        if (n && path_or_version(w, n, &version))
            d |= QR_ASK_FILE;
        bool range = false;
        for (size_t i = 0; i + 1 < n && !range; i++)
            range = w[i] == '.' && w[i + 1] == '.';
        if (n && (version || range))
            d |= QR_ASK_RANGE;
        w = e;
    }
    for (const char *p = q; *p; p++) {
        if (!isalpha((unsigned char)*p) || (p > question && isalnum((unsigned char)p[-1])))
            continue;
        for (size_t i = 0; stems[i]; i++) {
            size_t n = strlen(stems[i]);
            if (prefix_ci(p, stems[i], n))
                d |= QR_ASK_CODE;
        }
        for (size_t i = 0; patch_words[i]; i++) {
            size_t n = strlen(patch_words[i]);
            if (prefix_ci(p, patch_words[i], n) && !isalnum((unsigned char)p[n]))
                d |= QR_ASK_PATCH;
        }
        for (size_t i = 0; file_words[i]; i++) {
            size_t n = strlen(file_words[i]);
            if (prefix_ci(p, file_words[i], n) && !isalnum((unsigned char)p[n]))
                d |= QR_ASK_FILE;
        }
        for (size_t i = 0; range_words[i]; i++) {
            size_t n = strlen(range_words[i]);
            if (prefix_ci(p, range_words[i], n) && !isalnum((unsigned char)p[n]))
                d |= QR_ASK_RANGE;
        }
    }
    return d;
}

/* ---- tool summary ---- */

static bool key_param(const char *name)
{
    /* since and merges are in CONVENTIONS; a limit's order is its tool's (returns:) */
    static const char *const keys[] = {"author", "path", "grep", "commits", NULL};
    for (size_t i = 0; keys[i]; i++)
        if (!strcmp(name, keys[i]))
            return true;
    return false;
}

bool qr_ask_tool_offered(const qr_tools *tools, const qr_tool *t)
{
    return qr_tools_usable(tools, t) && (t->caps & QR_TOOL_READS_REPO) &&
           !(t->caps & (QR_TOOL_WRITES | QR_TOOL_MODEL | QR_TOOL_NETWORK));
}

/* A parameter's type as a model should write it: its allowed values when it has a list
 * ("include|exclude|only"), else its JSON type, arrays by their items ("[string]"). */
static void param_type(const qr_tool_param *p, qr_buf *out)
{
    if (p->enum_values) {
        bool arr = p->type == QR_TOOL_ARRAY;
        if (arr)
            qr_buf_putc(out, '[');
        for (size_t i = 0; p->enum_values[i]; i++)
            qr_buf_printf(out, "%s\"%s\"", i ? "|" : "", p->enum_values[i]);
        if (arr)
            qr_buf_putc(out, ']');
        return;
    }
    if (p->type == QR_TOOL_ARRAY)
        qr_buf_printf(out, "[%s]", p->items == QR_TOOL_ANY ? "any" : qr_tool_type_name(p->items));
    else
        qr_buf_puts(out, qr_tool_type_name(p->type));
}

/* Text for a model, without pointers to pages it cannot read: a clause naming "docs/..."
 * is cut from the ':', ';' or ',' that opens it to the end of the path. */
static void put_readable(qr_buf *out, const char *s)
{
    for (;;) {
        const char *d = strstr(s, "docs/");
        if (!d) {
            qr_buf_puts(out, s);
            return;
        }
        const char *cut = d;
        while (cut > s && !strchr(":;,(", cut[-1]))
            cut--;
        if (cut > s && cut[-1] != '(')
            cut--; /* the punctuation opening the clause goes with it */
        qr_buf_append(out, s, (size_t)(cut - s));
        s = d;
        while (*s && !strchr(" )\n", *s))
            s++;
        if (s > d && s[-1] == '.' && *s != ')')
            s--; /* a sentence's full stop stays */
    }
}

/* The history window: the optional parameters that several tools take alike (since,
 * until, author, path...), written once as WINDOW and named in each signature that has
 * them all, rather than repeated in four signatures. */
#define WINDOW_MAX 16

typedef struct window_set {
    const qr_tool_param *p[WINDOW_MAX];
    size_t n;
} window_set;

static bool tool_shown(const qr_tools *tools, const qr_tool *t, unsigned domains)
{
    unsigned want = code_tool(t) ? QR_ASK_CODE : history_domain(t);
    return qr_ask_tool_offered(tools, t) && (domains & want);
}

static bool same_param(const qr_tool_param *a, const qr_tool_param *b)
{
    if (strcmp(a->name, b->name) || a->type != b->type || a->items != b->items ||
        a->required != b->required || !a->enum_values != !b->enum_values)
        return false;
    for (size_t i = 0; a->enum_values && (a->enum_values[i] || b->enum_values[i]); i++)
        if (!a->enum_values[i] || !b->enum_values[i] ||
            strcmp(a->enum_values[i], b->enum_values[i]))
            return false;
    return true;
}

static bool has_param(const qr_tool *t, const qr_tool_param *p)
{
    for (const qr_tool_param *q = t->params; q && q->name; q++)
        if (same_param(p, q))
            return true;
    return false;
}

static bool has_window(const qr_tool *t, const window_set *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (!has_param(t, w->p[i]))
            return false;
    return w->n > 0;
}

static bool in_window(const window_set *w, const qr_tool_param *p)
{
    for (size_t i = 0; i < w->n; i++)
        if (same_param(w->p[i], p))
            return true;
    return false;
}

/* The optional parameters of the first shown tool that at least three shown tools take
 * alike; none unless there are three of them and three tools take them all. */
static void find_window(const qr_tools *tools, unsigned domains, window_set *w)
{
    w->n = 0;
    const qr_tool *first = NULL;
    for (size_t i = 0; i < qr_tools_count(tools) && !first; i++)
        if (tool_shown(tools, qr_tools_at(tools, i), domains))
            first = qr_tools_at(tools, i);
    for (const qr_tool_param *p = first ? first->params : NULL; p && p->name; p++) {
        if (p->required || w->n == WINDOW_MAX)
            continue;
        size_t k = 0;
        for (size_t i = 0; i < qr_tools_count(tools); i++)
            k += tool_shown(tools, qr_tools_at(tools, i), domains) &&
                 has_param(qr_tools_at(tools, i), p);
        if (k >= 3)
            w->p[w->n++] = p;
    }
    size_t users = 0;
    for (size_t i = 0; i < qr_tools_count(tools); i++)
        users += tool_shown(tools, qr_tools_at(tools, i), domains) &&
                 has_window(qr_tools_at(tools, i), w);
    if (w->n < 3 || users < 3)
        w->n = 0;
}

static void param_sig(const qr_tool_param *p, bool first, qr_buf *out)
{
    qr_buf_printf(out, "%s%s%s: ", first ? "" : ", ", p->name, p->required ? "" : "?");
    param_type(p, out);
}

/* One line per tool of the domains (its signature and summary), the parameters models
 * get wrong without a word (dates, paths, names), each description given once, and what
 * the tool returns. */
static void tool_summary(const qr_tools *tools, unsigned domains, qr_buf *out)
{
    window_set w;
    find_window(tools, domains, &w);
    if (w.n) {
        /* wrapped at about 88 columns, as the rest of the prompt */
        const char *head = "WINDOW, the parameters of a history window: ";
        qr_buf_puts(out, head);
        size_t col = strlen(head);
        for (size_t i = 0; i < w.n; i++) {
            qr_buf one;
            qr_buf_init(&one);
            param_sig(w.p[i], true, &one);
            if (i && col + one.len + 2 > 88) {
                qr_buf_puts(out, ",\n  ");
                col = 2;
            } else if (i) {
                qr_buf_puts(out, ", ");
                col += 2;
            }
            qr_buf_append(out, one.p, one.len);
            col += one.len;
            qr_buf_release(&one);
        }
        qr_buf_putc(out, '\n');
    }
    const char *said[64];
    size_t nsaid = 0;
    for (size_t i = 0; i < qr_tools_count(tools); i++) {
        const qr_tool *t = qr_tools_at(tools, i);
        if (!tool_shown(tools, t, domains))
            continue;
        bool win = has_window(t, &w), any = false;
        qr_buf_printf(out, "- %s(", t->name);
        for (const qr_tool_param *p = t->params; p && p->name; p++) {
            if (win && in_window(&w, p))
                continue;
            param_sig(p, !any, out);
            any = true;
        }
        if (win)
            qr_buf_puts(out, any ? ", WINDOW" : "WINDOW");
        qr_buf_puts(out, "): ");
        put_readable(out, t->summary);
        qr_buf_putc(out, '\n');
        for (const qr_tool_param *p = t->params; p && p->name; p++) {
            if (!key_param(p->name) || !p->desc)
                continue;
            bool seen = false;
            for (size_t k = 0; k < nsaid && !seen; k++)
                seen = !strcmp(said[k], p->desc);
            if (seen)
                continue;
            if (nsaid < sizeof said / sizeof said[0])
                said[nsaid++] = p->desc;
            qr_buf_printf(out, "    %s: ", p->name);
            put_readable(out, p->brief ? p->brief : p->desc);
            qr_buf_putc(out, '\n');
        }
        if (t->result) {
            qr_buf_puts(out, "    returns: ");
            put_readable(out, t->result);
            qr_buf_putc(out, '\n');
        }
    }
}

/* ---- the facts every role needs ---- */

static const char intro[] =
    "quarry answers questions about a git repository: a model writes a query or a\n"
    "program (it never sees the data), and quarry runs it on its tools.\n";

static const char conventions[] =
    "\nCONVENTIONS (every tool and result)\n"
    "- since/until select commits by committer date (as git log does) and take\n"
    "  \"2024-03-01\", ISO-8601, \"3 days ago\", \"yesterday\", \"today\", @epoch; their days are\n"
    "  counted in the time zone given under TODAY.\n"
    "- \"last week\" is the last 7 days up to now (\"1 week ago\"), not the previous calendar\n"
    "  week; \"last month\" is \"1 month ago\"; \"this week\" starts on Monday 00:00, \"this\n"
    "  month\" on the 1st, \"this quarter\" on 1 January, April, July or October (the latest\n"
    "  begun), \"this year\" on 1 January; \"in october\" and \"Q3\" are the most recent ones\n"
    "  begun by TODAY; a calendar window runs from its first day 00:00 (since) to 00:00 of\n"
    "  the day after it (until).\n";

/* What the DSL reference says of dates and merges, for the Compiler, which does not get
 * that reference. */
static const char lisp_dates[] =
    "Dates: :date is the author date, ISO-8601 in the author's own UTC offset (its day and\n"
    "  hour are the author's); :timestamp is the same instant in epoch seconds; :first and\n"
    "  :last are author dates. Merge commits are included unless merges is \"exclude\"; a\n"
    "  merge's :files, :additions and :deletions are 0 unless first_parent is true;\n"
    "  :parents lists the parents' hashes, the first parent first.\n";

/* ---- the query DSL (Architect, Fetcher; the Evaluator without fetches) ---- */

/* The ops whose form neither the head's example nor their keys show get their example. */
static bool op_needs_example(const char *name)
{
    static const char *const shown[] = {"filter", "sort",  "take",     "drop", "first",
                                        "last",   "group", "distinct", "concat", NULL};
    for (size_t i = 0; shown[i]; i++)
        if (!strcmp(name, shown[i]))
            return false;
    return true;
}

static void op_line(void *ud, const char *name, const char *required, const char *optional,
                    const char *summary, const char *example)
{
    qr_buf *out = ud;
    /* pairs said in one line */
    if (!strcmp(name, "last") || !strcmp(name, "drop"))
        return;
    if (!strcmp(name, "first")) {
        qr_buf_puts(out, "- :first / :last (:on): the first / last item (a record), or nil.\n");
        return;
    }
    if (!strcmp(name, "take")) {
        qr_buf_puts(out, "- :take / :drop (:on :n): the first :n items / the items after them.\n");
        return;
    }
    qr_buf_printf(out, "- :%s (%s%s%s): %s.", name, required, optional[0] ? " " : "", optional,
                  summary);
    if (example && example[0] && op_needs_example(name))
        qr_buf_printf(out, " e.g. %s", example);
    qr_buf_putc(out, '\n');
}

static const char dsl_head[] =
    "\nQUERY DSL (EDN). A query is a map:\n"
    "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\"}}]\n"
    " :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}\n"
    "             {:op :sort :on :large :as :ranked :by :files :order :desc}]\n"
    " :return {:findings :ranked :summary \"{{count:large}} large commits\"}}\n"
    "Every step binds its result to :as; later steps name it with :on. Transform ops:\n";

static const char dsl_head_eval[] =
    "\nQUERY DSL (EDN), over the bindings you are shown. A query is a map:\n"
    "{:transform [{:op :filter :on :commits :as :large :where [:> :files 5]}\n"
    "             {:op :sort :on :large :as :ranked :by :files :order :desc}]\n"
    " :return {:action :done :findings :ranked :summary \"{{count:large}} large commits\"}}\n"
    "Every step binds its result to :as; later steps name it with :on. Transform ops:\n";

/* The reference of predicates, functions, aggregates and templates is the query module's
 * own (qr_query_reference, generated from its function table); the Evaluator, which
 * fetches nothing, gets it without its last paragraph, Chaining. */
static void dsl_reference(qr_buf *out, bool fetches)
{
    qr_buf_puts(out, fetches ? dsl_head : dsl_head_eval);
    qr_query_each_op(op_line, out);
    size_t start = out->len;
    qr_query_reference(out);
    if (!fetches && !out->failed) {
        const char *ch = strstr(out->p + start, "\nChaining:");
        if (ch)
            out->len = (size_t)(ch - out->p) + 1;
        qr_buf_puts(out, "Fields are those the bindings you are shown have.\n");
    } else if (out->len && out->p[out->len - 1] != '\n') {
        qr_buf_putc(out, '\n');
    }
}

/* ---- PTC-Lisp (the Compiler), from the builtin table ---- */

/* Namespaces a program may also write short: the short form is the one listed. */
static const char *short_ns(const char *ns, size_t n)
{
    static const char *const longs[][2] = {
        {"clojure.string", "str"}, {"clojure.set", "set"}, {"clojure.walk", "walk"}};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        if (strlen(longs[i][0]) == n && !strncmp(ns, longs[i][0], n))
            return longs[i][1];
    return NULL;
}

#define LISP_GROUPS 16

typedef struct lisp_names {
    qr_buf group[LISP_GROUPS]; /* group 0: names without a namespace */
    char ns[LISP_GROUPS][24];
    size_t ngroups;
    size_t col[LISP_GROUPS];
} lisp_names;

/* Whether the space-separated list b already holds name. */
static bool listed(const qr_buf *b, const char *name, size_t n)
{
    for (const char *p = b->p; p && (p = strstr(p, name)); p++)
        if ((p == b->p || p[-1] == ' ' || p[-1] == '\n') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
            return true;
    return false;
}

static void add_name(void *ud, const char *name, const char *args, const char *doc)
{
    (void)args;
    (void)doc;
    lisp_names *L = ud;
    const char *slash = strchr(name, '/');
    size_t g = 0;
    const char *base = name;
    if (slash && slash > name && slash[1]) {
        const char *ns = name;
        size_t nslen = (size_t)(slash - name);
        const char *s = short_ns(ns, nslen);
        if (s) {
            ns = s;
            nslen = strlen(s);
        }
        for (g = 1; g < L->ngroups; g++)
            if (strlen(L->ns[g]) == nslen && !strncmp(L->ns[g], ns, nslen))
                break;
        if (g == L->ngroups) {
            if (g == LISP_GROUPS || nslen >= sizeof L->ns[0]) {
                g = 0; /* no room: listed whole among the others */
            } else {
                memcpy(L->ns[g], ns, nslen);
                L->ns[g][nslen] = 0;
                L->ngroups++;
            }
        }
        if (g)
            base = slash + 1;
    }
    size_t n = strlen(base);
    if (listed(&L->group[g], base, n))
        return;
    if (L->col[g] + n + 1 > 88) {
        qr_buf_puts(&L->group[g], "\n  ");
        L->col[g] = 2;
    } else if (L->group[g].len) {
        qr_buf_putc(&L->group[g], ' ');
        L->col[g]++;
    }
    qr_buf_append(&L->group[g], base, n);
    L->col[g] += n;
}

static void size_text(char *buf, size_t cap, uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(buf, cap, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(buf, cap, "%llu KiB", (unsigned long long)(bytes >> 10));
    else
        snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
}

static void lisp_reference(qr_buf *out, const qr_lisp_limits *limits)
{
    qr_lisp_limits def;
    if (!limits) {
        qr_lisp_limits_default(&def);
        limits = &def;
    }
    lisp_names L;
    memset(&L, 0, sizeof L);
    L.ngroups = 1;
    for (size_t g = 0; g < LISP_GROUPS; g++)
        qr_buf_init(&L.group[g]);
    qr_lisp_each_builtin(add_name, &L);
    qr_buf_puts(out,
                "\nPTC-LISP: a subset of Clojure. Forms: def defn let fn if if-not when when-not\n"
                "  cond condp case if-let when-let if-some when-some do loop recur for doseq\n"
                "  dotimes letfn -> ->> as-> cond-> cond->> some-> some->> try/catch, and\n"
                "  (return v) (fail v) which end the program. Literals: numbers, \"strings\",\n"
                "  :keywords, [vectors], {maps}, #{sets}, #\"regex\" (PCRE2). Keywords and maps\n"
                "  are functions: (:author c). No defmacro, atoms, mutation or I/O.\n"
                "Functions (the whole list: nothing else exists):\n  ");
    qr_buf_append(out, L.group[0].p, L.group[0].len);
    qr_buf_putc(out, '\n');
    for (size_t g = 1; g < L.ngroups; g++) {
        qr_buf_printf(out, "%s/: ", L.ns[g]);
        qr_buf_append(out, L.group[g].p, L.group[g].len);
        qr_buf_putc(out, '\n');
    }
    for (size_t g = 0; g < LISP_GROUPS; g++)
        qr_buf_release(&L.group[g]);
    qr_buf_puts(out, "(str/ is also string/ and clojure.string/; set/ clojure.set/; walk/ "
                     "clojure.walk/.)\n");
    char mem[32], outb[32];
    size_text(mem, sizeof mem, limits->max_memory);
    size_text(outb, sizeof outb, limits->max_output);
    qr_buf_puts(out, lisp_dates);
    qr_buf_printf(out,
                  "Limits a program cannot catch: %llu ms of wall time (tool calls included),\n"
                  "  %s of memory, %llu steps (calls and loop turns), call depth %u, %s of\n"
                  "  println output.\n",
                  (unsigned long long)limits->timeout_ms, mem,
                  (unsigned long long)limits->max_steps, limits->max_depth, outb);
}

/* ---- roles ---- */

static const char role_architect[] =
    "You are the Architect. Reply with ONE EDN map in a ```edn block, nothing else:\n"
    "1. {:mode :query :query QUERY} when one query of the QUERY DSL above answers the\n"
    "   question. Prefer this whenever it fits.\n"
    "2. {:mode :intent :intent \"...\"} when it needs logic the DSL lacks: say exactly what\n"
    "   to compute (tools, parameters, fields, output); a second call writes PTC-Lisp.\n"
    "3. {:mode :plan :steps [{:id 1 :goal \"...\" :needs []} {:id 2 :goal \"...\" :needs [1]}]}\n"
    "   only when someone must see intermediate data before deciding what to fetch next\n"
    "   (not for \"X, then X's data\": see Chaining). At most 4 steps, two calls each; a\n"
    "   step's Evaluator sees each result's size, fields and " ASK_STR(ASK_SAMPLE_ROWS)
    " sample rows, not the\n   whole result.\n"
    "A query's :return is {:findings BINDING :summary \"one sentence with templates\"};\n"
    "other keys are kept. Keep the question's time window and names exactly.\n";

static const char role_compiler[] =
    "You are the Compiler. You turn an intent into one PTC-Lisp program that runs in a\n"
    "sandbox. Call a tool as (tool/get_commits {:since \"1 week ago\"}); it returns what\n"
    "TOOLS says (vectors of maps with keyword keys). End the program with\n"
    "(return {:findings ROWS :summary \"one sentence\"}) where ROWS is a vector of maps.\n"
    "Reply with the program only, in one ```clojure block.\n";

static const char role_fetcher[] =
    "You are the Fetcher, running one step of a plan. You only get data: write\n"
    "a query with a :fetch clause (tool calls) and, at most, :transform steps that narrow\n"
    "the data; no :return. The Evaluator will see, by your :as names, each binding's\n"
    "size, fields and " ASK_STR(ASK_SAMPLE_ROWS) " sample rows. Use {{resolved:key}} in\n"
    ":params for values earlier steps found. Keep the question's time window. Reply\n"
    "with ONE EDN map in a ```edn block: {:mode :query :query QUERY}.\n";

static const char role_evaluator[] =
    "You are the Evaluator, running one step of a plan. You have no tools: you see\n"
    "each binding the Fetcher made by name, with its size, its fields and "
    ASK_STR(ASK_SAMPLE_ROWS) " sample\n"
    "rows (not the whole result: your query runs on all of it). Write a query of\n"
    ":transform steps over those names and a :return that decides what happens:\n"
    "  {:action :done :findings :BINDING :summary \"...\"}  the question is answered;\n"
    "  {:action :advance :result {:key \"{{top:author}}\"}}  this step's goal is met; the\n"
    "      result map is kept as resolved values for later steps ({{resolved:key}});\n"
    "  {:action :fetch :hints [\"what data is missing\"]}  the Fetcher must try again;\n"
    "  {:action :revise :steps [{:id 3 :goal \"...\" :needs []}]}  replace the remaining "
    "steps.\n"
    "On the last step of the plan, answer with :done. Reply with ONE EDN map in a ```edn\n"
    "block: {:mode :query :query {:transform [...] :return {...}}}.\n";

int qr_ask_prompt_prefix(const qr_tools *tools, const char *agent, unsigned domains,
                         const qr_lisp_limits *limits, qr_buf *out, size_t *shared_len)
{
    enum { ARCH, COMP, FETCH, EVAL } r;
    if (!strcmp(agent, "architect"))
        r = ARCH;
    else if (!strcmp(agent, "compiler"))
        r = COMP;
    else if (!strcmp(agent, "fetcher"))
        r = FETCH;
    else if (!strcmp(agent, "evaluator"))
        r = EVAL;
    else
        return QR_EINVAL;
    if (!domains)
        domains = QR_ASK_HISTORY;
    size_t start = out->len;
    qr_buf_puts(out, intro);
    qr_buf_puts(out, conventions);
    if (r != EVAL) {
        qr_buf_puts(out, "\nTOOLS\n");
        tool_summary(tools, domains, out);
    }
    if (shared_len)
        *shared_len = out->len - start;
    if (r == COMP)
        lisp_reference(out, limits);
    else
        dsl_reference(out, r != EVAL);
    qr_buf_puts(out, "\nYOUR ROLE\n");
    qr_buf_puts(out, r == ARCH ? role_architect
                     : r == COMP ? role_compiler
                     : r == FETCH ? role_fetcher
                                  : role_evaluator);
    return QR_OK;
}

void qr_ask_prompt_today(int64_t now, int tz_offset_min, int64_t first, int64_t last,
                         qr_buf *out)
{
    static const char *const wday[] = {"Thursday", "Friday",   "Saturday", "Sunday",
                                       "Monday",   "Tuesday",  "Wednesday"};
    char buf[QR_DATE_ISO_LEN];
    int64_t local = now + (int64_t)tz_offset_min * 60;
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    qr_date_format_iso(now, tz_offset_min, buf, sizeof buf);
    int off = tz_offset_min < 0 ? -tz_offset_min : tz_offset_min;
    qr_buf_printf(out, "TODAY: %.10s (%s), now %.5s, time zone UTC%c%02d:%02d\n", buf,
                  wday[((days % 7) + 7) % 7], buf + 11, tz_offset_min < 0 ? '-' : '+', off / 60,
                  off % 60);
    if (first && last) {
        char a[QR_DATE_ISO_LEN], b[QR_DATE_ISO_LEN];
        qr_date_format_iso(first, tz_offset_min, a, sizeof a);
        qr_date_format_iso(last, tz_offset_min, b, sizeof b);
        qr_buf_printf(out, "REPOSITORY: first commit %.10s, last commit %.10s\n", a, b);
    }
}
