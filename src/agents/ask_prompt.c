/*
 * ask_prompt.c: the text the agents of `quarry ask` read. Each agent's prompt is a stable
 * prefix (its role, the tool summary and the DSL reference, generated from the tool
 * registry and the op table, so they never drift from what runs) followed by the part of
 * one call (the north star question, the plan, resolved values, data samples, hints).
 * The prefix comes first and is byte-identical across calls, which is what lets a
 * provider cache it; nothing in it depends on the question, the time or the data.
 *
 * Rejected: one prefix shared by all agents (the roles would move into the variable part,
 * which is repeated on every call and costs more than one cache entry per agent); the
 * full `quarry tools` text (three times longer, and models need only the signatures).
 */
#include "ask_int.h"

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
            qr_buf_printf(out, "%s%s%s", p == t->params ? "" : ", ", p->name,
                          p->required ? "" : "?");
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
    "Aggregates (:aggregate :compute): [:count] [:sum :f] [:avg :f] [:min :f] [:max :f] "
    "[:count-distinct :f].\n"
    "Templates in :return, :params and :where strings: {{name}} {{count:name}}\n"
    "  {{first:name:field}} {{name:field}} (a one-record binding) {{sum:name:field}}\n"
    "  {{resolved:key}} (a value an earlier plan step resolved).\n"
    ":return is a map; a keyword that names a binding is its value:\n"
    "  {:findings :ranked :summary \"...\"}. Dates: \"1 week ago\", \"yesterday\",\n"
    "  \"2024-03-01\", ISO-8601. Fields are those the tools return (see returns:).\n";

static void dsl_reference(qr_buf *out)
{
    qr_buf_puts(out, dsl_head);
    qr_query_each_op(op_line, out);
    qr_buf_puts(out, dsl_tail);
}

/* ---- roles ---- */

static const char role_architect[] =
    "You are the Architect of quarry, a tool that answers questions about a git\n"
    "repository. You never see the data: you decide how to get the answer, and a\n"
    "deterministic engine runs what you write. Reply with ONE EDN map in a ```edn block,\n"
    "nothing else, in one of three modes:\n"
    "1. {:mode :query :query QUERY}  when one query of the DSL below answers the question\n"
    "   (tools, then filter/sort/group/aggregate/take). Prefer this whenever it fits.\n"
    "2. {:mode :intent :intent \"...\"}  when the computation needs logic the DSL lacks\n"
    "   (custom scoring, conditionals, several passes): describe exactly what to compute,\n"
    "   with tools, parameters, fields and the output; a compiler turns it into code.\n"
    "3. {:mode :plan :steps [{:id 1 :goal \"...\" :needs []} {:id 2 :goal \"...\" :needs "
    "[1]}]}\n"
    "   only when a later step needs a value found by an earlier one (e.g. first find the\n"
    "   most active author, then look at that author's commits). At most 4 steps.\n"
    "The :return of a query holds :findings (a binding: the rows to show) and :summary\n"
    "(one sentence with templates). Keep the question's time window and names exactly.\n";

static const char role_compiler[] =
    "You are the Compiler of quarry. You turn an intent into a PTC-Lisp program that runs\n"
    "in a sandbox. PTC-Lisp is a subset of Clojure: def, let, fn, if, when, cond, and, or,\n"
    "->, ->>, map, filter, remove, reduce, sort-by, group-by, frequencies, take, drop,\n"
    "first, last, count, sum via (reduce + 0 xs), assoc, merge, get, select-keys, keys,\n"
    "vals, str, subs, str-contains?, re-find, max-key, min-key, distinct, into, vec.\n"
    "No macros, no try, no mutation, no I/O. Call a tool as (tool/get_commits {:since\n"
    "\"1 week ago\"}); it returns a vector of maps with keyword keys. End the program with\n"
    "(return {:findings ROWS :summary \"one sentence\"}) where ROWS is a vector of maps.\n"
    "Reply with the program only, in one ```clojure block.\n";

static const char role_fetcher[] =
    "You are the Fetcher of quarry, running one step of a plan. You only get data: write\n"
    "a query with a :fetch clause (tool calls) and, at most, :transform steps that narrow\n"
    "the data; no :return. The Evaluator will see what you fetched, by your :as names.\n"
    "Use {{resolved:key}} in :params for values earlier steps found. Keep the question's\n"
    "time window. Reply with ONE EDN map in a ```edn block: {:mode :query :query QUERY}.\n";

static const char role_evaluator[] =
    "You are the Evaluator of quarry, running one step of a plan. You have no tools: you\n"
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

int qr_ask_prompt_prefix(const qr_tools *tools, const char *agent, qr_buf *out)
{
    const char *role = !strcmp(agent, "architect")   ? role_architect
                       : !strcmp(agent, "compiler")  ? role_compiler
                       : !strcmp(agent, "fetcher")   ? role_fetcher
                       : !strcmp(agent, "evaluator") ? role_evaluator
                                                     : NULL;
    if (!role)
        return QR_EINVAL;
    qr_buf_puts(out, role);
    qr_buf_puts(out, "\nTOOLS\n");
    tool_summary(tools, out);
    if (strcmp(agent, "compiler")) {
        qr_buf_putc(out, '\n');
        dsl_reference(out);
    }
    return QR_OK;
}
