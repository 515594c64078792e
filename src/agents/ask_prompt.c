/*
 * ask_prompt.c: the text the agents of `quarry ask` read. Every agent's system prompt
 * starts with one shared block, byte-identical for the Architect, the Compiler, the
 * Fetcher and the Evaluator: what quarry is, the tools (signatures with each parameter's
 * type and allowed values, generated from the registry) and the DSL reference (from the
 * op table), so they never drift from what runs. The role follows it. A provider caches
 * the shared block once for all four agents (Anthropic: a cache breakpoint after it, and
 * one after the role); nothing in the system prompt depends on the question, the time or
 * the data. Today's date, the time zone and the repository's span go at the top of each
 * call's user message (qr_ask_prompt_today), since they change from day to day.
 *
 * Rejected: one prefix per agent with the role first (agents then shared only "You are
 * the ", so a plan's calls could be served from the cache for a third of their text);
 * leaving the tool list out of the Evaluator's prompt (it would save about 2,600
 * characters of cached text at the price of a separate cache entry); the full `quarry
 * tools` text (three times longer, and models need only the signatures).
 */
#include "ask_int.h"

#include "quarry/date.h"
#include "quarry/query.h"

#include <string.h>

/* ---- tool summary ---- */

static bool key_param(const char *name)
{
    static const char *const keys[] = {"since", "author", "path", "limit", "grep",
                                       "merges", "commits", "from", NULL};
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

/* One line per tool (its signature and summary), the parameters models get wrong without
 * a word (dates, paths, names), each description given once (a later tool whose
 * parameter reads the same says "as above"), and what the tool returns. */
static void tool_summary(const qr_tools *tools, qr_buf *out)
{
    const char *said[64];
    size_t nsaid = 0;
    for (size_t i = 0; i < qr_tools_count(tools); i++) {
        const qr_tool *t = qr_tools_at(tools, i);
        if (!qr_ask_tool_offered(tools, t))
            continue;
        qr_buf_printf(out, "- %s(", t->name);
        for (const qr_tool_param *p = t->params; p && p->name; p++) {
            qr_buf_printf(out, "%s%s%s: ", p == t->params ? "" : ", ", p->name,
                          p->required ? "" : "?");
            param_type(p, out);
        }
        qr_buf_printf(out, "): %s\n", t->summary);
        bool above = false;
        for (const qr_tool_param *p = t->params; p && p->name; p++) {
            if (!key_param(p->name) || !p->desc)
                continue;
            bool seen = false;
            for (size_t k = 0; k < nsaid && !seen; k++)
                seen = !strcmp(said[k], p->desc);
            if (seen) {
                above = true;
                continue;
            }
            if (nsaid < sizeof said / sizeof said[0])
                said[nsaid++] = p->desc;
            qr_buf_printf(out, "    %s: %s\n", p->name, p->desc);
        }
        if (above)
            qr_buf_puts(out, "    (other parameters as above)\n");
        if (t->result)
            qr_buf_printf(out, "    returns: %s\n", t->result);
    }
}

/* ---- DSL reference ---- */

static void op_line(void *ud, const char *name, const char *required, const char *optional,
                    const char *summary, const char *example)
{
    qr_buf *out = ud;
    qr_buf_printf(out, "- :%s (%s%s%s): %s. e.g. %s\n", name, required, optional[0] ? " " : "",
                  optional, summary, example);
}

static const char dsl_head[] =
    "QUERY DSL (EDN). A query is a map:\n"
    "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\"}}]\n"
    " :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}\n"
    "             {:op :sort :on :large :as :ranked :by :files :order :desc}]\n"
    " :return {:findings :ranked :summary \"{{count:large}} large commits\"}}\n"
    "Every step binds its result to :as; later steps name it with :on. Transform ops:\n";

static const char dsl_tail[] =
    "Predicates (:where): [:= :f v] [:not= :f v] [:> :f n] [:>= :f n] [:< :f n] [:<= :f n]\n"
    "  [:contains :f \"text\"] (case-sensitive) [:matches :f \"regex\"] [:in :f [v ...]]\n"
    "  [:exists :f] [:and P ...] [:or P ...] [:not P]. A keyword operand is a field.\n"
    "Arithmetic (:compute values): [:+ a b] [:- a b] [:* a b] [:/ a b] over fields and "
    "numbers.\n"
    "Functions (:compute values): [:if PREDICATE A B] [:str x ...] (text) [:dirname :path]\n"
    "  [:basename :path] [:top-dir :path] [:count-of :binding] (its number of items, e.g.\n"
    "  a fraction [:/ [:count-of :mine] [:count-of :all]]). A field keyword as a value\n"
    "  renames: :select [] :compute {:who :author}.\n"
    "Chaining: a later :fetch may use an earlier binding of the same query in :params,\n"
    "  e.g. [{:tool :get_author_stats :as :top :params {:limit 1}}\n"
    "        {:tool :get_commits :as :theirs :params {:author \"{{first:top:email}}\"}}]:\n"
    "  \"find X, then X's data\" is ONE query, not a plan.\n"
    "Aggregates (:aggregate :compute): [:count] [:sum :f] [:avg :f] [:min :f] [:max :f] "
    "[:count-distinct :f].\n"
    "Templates in :return, :params and :where strings: {{name}} {{count:name}}\n"
    "  {{first:name:field}} {{name:field}} (a one-record binding) {{sum:name:field}}\n"
    "  {{resolved:key}} (a value an earlier plan step resolved).\n"
    ":return is a map; a keyword that names a binding is its value:\n"
    "  {:findings :ranked :summary \"...\"}; other keys are kept as given.\n"
    "Sort by several keys: :by [[:commits :desc] [:author :asc]]. A :join merges each\n"
    "  left record with its match; on a field both have, the right record's value wins.\n"
    "Fields are those the tools return (see returns:).\n"
    "DATES AND WINDOWS (since/until): \"2024-03-01\", ISO-8601, \"3 days ago\",\n"
    "  \"yesterday\", \"today\", @epoch. Days and times are in the time zone given under\n"
    "  TODAY. \"last week\" means the last 7 days up to now (\"1 week ago\"), not the\n"
    "  previous calendar week; \"last month\" is \"1 month ago\"; \"this week\" starts\n"
    "  on Monday 00:00, \"this month\" on the 1st, \"this year\" on 1 January of\n"
    "  TODAY's year; \"in october\" is the most recent October up to TODAY; a calendar\n"
    "  window runs from its first day 00:00 (since) to 00:00 of the day after it (until).\n";

static void dsl_reference(qr_buf *out)
{
    qr_buf_puts(out, dsl_head);
    qr_query_each_op(op_line, out);
    qr_buf_puts(out, dsl_tail);
}

/* ---- roles ---- */

static const char shared_intro[] =
    "quarry answers questions about a git repository. Models never see the data: they\n"
    "write queries in the DSL below (or PTC-Lisp programs) and a deterministic engine\n"
    "runs them on these tools.\n";

static const char role_architect[] =
    "You are the Architect. You decide how to get the answer. Reply with ONE EDN map in\n"
    "a ```edn block,\n"
    "nothing else, in one of three modes:\n"
    "1. {:mode :query :query QUERY}  when one query of the DSL below answers the question\n"
    "   (tools, then filter/sort/group/aggregate/take). Prefer this whenever it fits.\n"
    "2. {:mode :intent :intent \"...\"}  when the computation needs logic the DSL lacks\n"
    "   (custom scoring, conditionals, several passes): describe exactly what to compute,\n"
    "   with tools, parameters, fields and the output; a compiler turns it into code.\n"
    "3. {:mode :plan :steps [{:id 1 :goal \"...\" :needs []} {:id 2 :goal \"...\" :needs "
    "[1]}]}\n"
    "   only when someone must look at intermediate data before deciding what to fetch\n"
    "   next. \"The most active author's commits\" is one chained query (see Chaining),\n"
    "   not a plan. At most 4 steps.\n"
    "The :return of a query holds :findings (a binding: the rows to show) and :summary\n"
    "(one sentence with templates). Keep the question's time window and names exactly.\n";

static const char role_compiler[] =
    "You are the Compiler. You turn an intent into a PTC-Lisp program that runs\n"
    "in a sandbox. PTC-Lisp is a subset of Clojure: def, let, fn, if, when, cond, and, or,\n"
    "->, ->>, map, filter, remove, reduce, sort-by, group-by, frequencies, take, drop,\n"
    "first, last, count, sum via (reduce + 0 xs), assoc, merge, get, select-keys, keys,\n"
    "vals, str, subs, str-contains?, re-find, max-key, min-key, distinct, into, vec.\n"
    "No macros, no try, no mutation, no I/O. Call a tool as (tool/get_commits {:since\n"
    "\"1 week ago\"}); it returns a vector of maps with keyword keys. End the program with\n"
    "(return {:findings ROWS :summary \"one sentence\"}) where ROWS is a vector of maps.\n"
    "Reply with the program only, in one ```clojure block.\n";

static const char role_fetcher[] =
    "You are the Fetcher, running one step of a plan. You only get data: write\n"
    "a query with a :fetch clause (tool calls) and, at most, :transform steps that narrow\n"
    "the data; no :return. The Evaluator will see what you fetched, by your :as names.\n"
    "Use {{resolved:key}} in :params for values earlier steps found. Keep the question's\n"
    "time window. Reply with ONE EDN map in a ```edn block: {:mode :query :query QUERY}.\n";

static const char role_evaluator[] =
    "You are the Evaluator, running one step of a plan. You have no tools: you\n"
    "get the data the Fetcher bound (by name, with its fields and a sample) and write a\n"
    "query of :transform steps over those names and a :return that decides what happens:\n"
    "  {:action :done :findings :BINDING :summary \"...\"}  the question is answered;\n"
    "  {:action :advance :result {:key \"{{top:author}}\"}}  this step's goal is met; the\n"
    "      result map is kept as resolved values for later steps ({{resolved:key}});\n"
    "  {:action :fetch :hints [\"what data is missing\"]}  the Fetcher must try again;\n"
    "  {:action :revise :steps [{:id 3 :goal \"...\" :needs []}]}  replace the remaining "
    "steps.\n"
    "On the last step of the plan, answer with :done. Reply with ONE EDN map in a ```edn\n"
    "block: {:mode :query :query {:transform [...] :return {...}}}.\n";

int qr_ask_prompt_prefix(const qr_tools *tools, const char *agent, qr_buf *out,
                         size_t *shared_len)
{
    const char *role = !strcmp(agent, "architect")   ? role_architect
                       : !strcmp(agent, "compiler")  ? role_compiler
                       : !strcmp(agent, "fetcher")   ? role_fetcher
                       : !strcmp(agent, "evaluator") ? role_evaluator
                                                     : NULL;
    if (!role)
        return QR_EINVAL;
    size_t start = out->len;
    qr_buf_puts(out, shared_intro);
    qr_buf_puts(out, "\nTOOLS\n");
    tool_summary(tools, out);
    qr_buf_putc(out, '\n');
    dsl_reference(out);
    qr_buf_puts(out, "\nYOUR ROLE\n");
    if (shared_len)
        *shared_len = out->len - start;
    qr_buf_puts(out, role);
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
