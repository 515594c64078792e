/*
 * reference.c: the query DSL's reference as a model reads it (qr_query_reference): the
 * predicates, arithmetic, every function of the function table (expr.c, through
 * qr_query_each_function), aggregates, templates, chaining and the dates' conventions.
 * The agents' prompts and the MCP reference resource take it from here, so the text a
 * model writes queries from cannot drift from what the compiler accepts: a function
 * added to the table is in the reference with its usage.
 *
 * The transform ops are listed by qr_query_each_op (ops.c), which callers format in
 * their own way; this text is everything else. docs/query.md is the long form.
 *
 * Rejected: the reference as a static string beside the prompts (it had drifted: the
 * prompts did not list {{last:...}}); the whole of docs/query.md (three times the size,
 * and written for people).
 */
#include "query_int.h"

#include <string.h>

typedef struct fn_ref {
    qr_buf *b;
    const char *group;
    size_t col; /* the column the line has reached */
    bool first;
} fn_ref;

/* One group's usages after its title, "; " between them, wrapped at 88 columns. */
static void fn_line(void *ud, const char *group, const char *name, const char *usage)
{
    fn_ref *r = ud;
    (void)name;
    if (strcmp(group, r->group))
        return;
    size_t n = strlen(usage);
    if (r->col + n + 2 > 88) {
        qr_buf_puts(r->b, r->first ? "\n    " : ";\n    ");
        r->col = 4;
    } else if (!r->first) {
        qr_buf_puts(r->b, "; ");
        r->col += 2;
    } else {
        qr_buf_putc(r->b, ' ');
        r->col++;
    }
    r->first = false;
    qr_buf_puts(r->b, usage);
    r->col += n;
}

static void functions(qr_buf *b, const char *group, const char *title)
{
    fn_ref r = {b, group, strlen(title) + 1, true};
    qr_buf_printf(b, "%s:", title);
    qr_query_each_function(fn_line, &r);
    qr_buf_putc(b, '\n');
}

void qr_query_reference(qr_buf *b)
{
    qr_buf_puts(
        b,
        "Predicates (:where): [:= :f v] [:not= :f v] [:> :f n] [:>= :f n] [:< :f n] [:<= :f n]\n"
        "  [:contains :f \"text\"] (case-sensitive) [:matches :f \"regex\"] [:in :f [v ...]]\n"
        "  [:in X :coll] (X is an item of a collection the record holds) [:exists :f]\n"
        "  [:and P ...] [:or P ...] [:not P]. A keyword operand is a field; an operand may be\n"
        "  a function: [:= [:weekday :date] \"Monday\"], [:not [:in [:lower [:first-word\n"
        "  :subject]] [\"add\" \"fix\"]]].\n"
        "  [:any :coll P] [:all :coll P]: P holds for some / every item of a collection\n"
        "  field. Inside P the item's fields come first (:paths items are {:path :additions\n"
        "  :deletions :status}), then the record's; an item that is no record is :it.\n"
        "  e.g. commits changing a .c file and its .h (get_commits with :with_paths true):\n"
        "  [:any :paths [:and [:= [:ext :path] \"c\"]\n"
        "                     [:in [:str [:strip-ext :path] \".h\"] [:pluck :paths :path]]]]\n"
        "Arithmetic (:compute values, operands): [:+ a b] [:- a b] [:* a b] [:/ a b] over\n"
        "  fields and numbers; nil when an operand is no number.\n"
        "Functions (in :compute values and operands):\n");
    functions(b, "logic", " logic");
    functions(b, "text", " text");
    functions(b, "path", " paths");
    functions(b, "collection", " collections (:paths, :parents)");
    functions(b, "binding", " bindings");
    functions(b, "date", " dates (to group by one: a :map, then a :group)");
    qr_buf_puts(
        b,
        "  :date is the author date in the author's own UTC offset, so [:hour :date] is the\n"
        "  author's hour; :timestamp is read in UTC; since/until windows count committer\n"
        "  dates in the user's zone. Merges are included unless :params {:merges :exclude};\n"
        "  :parents lists parent hashes, the first parent first ([:nth :parents 1] is ^2).\n"
        "Aggregates (:aggregate :compute): [:count] [:count :f] [:sum :f] [:avg :f] [:min :f]\n"
        "  [:max :f] [:count-distinct :f]; nils are skipped.\n"
        "Templates in :return, :params and :where strings: {{name}} {{count:name}}\n"
        "  {{first:name}} {{first:name:field}} {{last:name}} {{last:name:field}}\n"
        "  {{name:field}} (a one-record binding, from :first or :last) {{sum:name:field}}\n"
        "  (avg, min, max) {{resolved:key}} (a value an earlier plan step resolved).\n"
        "  A string that is one template keeps its value's type.\n"
        "Chaining: a later :fetch may use an earlier :fetch's binding in :params:\n"
        "  [{:tool :get_author_stats :as :top :params {:limit 1}}\n"
        "   {:tool :get_commits :as :theirs :params {:author \"{{first:top:email}}\"}}]\n"
        "  is ONE query. Every :fetch runs before the :transform steps, so a fetch cannot use\n"
        "  a transform's result; get_author_stats ranks by commits (most first), so\n"
        "  {{last:stats:email}} is the least active author of its window.\n");
}
