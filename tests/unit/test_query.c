/*
 * test_query.c: unit tests for the query DSL compiler: the programs seed 000's queries
 * compile to (exactly), the same queries as JSON, bindings named like builtins, problem
 * records (paths, expected, found, hints), the cache, run-time errors traced to their
 * step, a property test (random valid queries over random data give what a reference
 * evaluator written here gives), and a mutation fuzz loop (any text gives a program that
 * the interpreter accepts, or problems).
 *
 * The reference evaluator follows docs/query.md, not the compiler: a missing field is
 * nil; ordering compares two numbers or two strings, else false; :contains reads the
 * field as text; arithmetic on a non-number is nil and / by zero is nil; sorts are
 * stable; a join merges each left record with its first match.
 */
#include "check.h"
#include "quarry/lisp.h"
#include "quarry/query.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <math.h>
#include <stdlib.h>

static qr_tools *tools;

/* ---- helpers ---- */

static int compile(const char *src, qr_val context, qr_query_compiled *out)
{
    qr_query_opts o;
    qr_query_opts_init(&o, tools);
    o.context = context;
    return qr_query_compile(&o, src, strlen(src), out);
}

/* The program a query compiles to ("" when invalid; the problems are printed). */
static char *program_of(const char *src)
{
    qr_query_compiled q;
    int rc = compile(src, qr_nil(), &q);
    char *r;
    if (rc != QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_query_problems_text(&q, &b);
        fprintf(stderr, "unexpected problems:\n%s", b.p ? b.p : "");
        qr_buf_release(&b);
        r = strdup("");
    } else {
        r = strdup(q.program);
    }
    qr_query_compiled_clear(&q);
    return r;
}

static void expect_program(const char *src, const char *want)
{
    char *got = program_of(src);
    CHECK_STR(got, want);
    free(got);
}

/* The text of the problems of an invalid query ("" when valid). */
static char *problems_of(const char *src, qr_val context)
{
    qr_query_compiled q;
    int rc = compile(src, context, &q);
    qr_buf b;
    qr_buf_init(&b);
    if (rc != QR_OK)
        qr_query_problems_text(&q, &b);
    char *r = strdup(b.p ? b.p : "");
    qr_buf_release(&b);
    qr_query_compiled_clear(&q);
    return r;
}

static void expect_problem(const char *src, const char *want_substring)
{
    char *got = problems_of(src, qr_nil());
    if (!strstr(got, want_substring)) {
        fprintf(stderr, "%s:%d: problems of %s\n  lack: %s\n  got: %s\n", __FILE__, __LINE__, src,
                want_substring, got);
        check_failures++;
    }
    free(got);
}

static qr_val read_value(qr_arena *a, const char *text)
{
    qr_val forms;
    qr_read_error e;
    if (qr_read_all(a, text, strlen(text), QR_READ_EDN, &forms, &e) != QR_OK ||
        qr_vec_len(forms) != 1) {
        fprintf(stderr, "cannot read %s: %s\n", text, e.msg);
        abort();
    }
    return qr_vec_at(forms, 0);
}

/* ---- seed 000, compiled ---- */

static void test_seed_programs(void)
{
    /* example 1 and use case 1 */
    expect_program("{:query\n"
                   "  {:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\"}}]\n"
                   "   :return {:findings :commits\n"
                   "            :summary \"Found {{count:commits}} commits from last week\"}}}",
                   "(def q-commits (tool/get_commits {:since \"1 week ago\"}))\n"
                   "(return {:findings q-commits\n"
                   "         :summary (str \"Found \" (count q-commits) \" commits from last "
                   "week\")})\n");
    /* example 2 */
    expect_program(
        "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\"}}]\n"
        " :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}\n"
        "             {:op :sort :on :large :as :ranked :by :files :order :desc}]\n"
        " :return {:findings :ranked :summary \"{{count:large}} large commits (5+ files)\"}}",
        "(def q-commits (tool/get_commits {:since \"1 week ago\"}))\n"
        "(def q-large (filter (fn [x] (> (:files x) 5)) q-commits))\n"
        "(def q-ranked (sort-by :files :desc q-large))\n"
        "(return {:findings q-ranked\n"
        "         :summary (str (count q-large) \" large commits (5+ files)\")})\n");
    /* example 3 */
    expect_program(
        "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 month ago\"}}]\n"
        " :transform [{:op :group :on :commits :as :by_author :by :author}\n"
        "             {:op :aggregate :on :by_author :as :stats\n"
        "              :compute {:count [:count] :files [:sum :files]}}\n"
        "             {:op :sort :on :stats :as :ranked :by :count :order :desc}]\n"
        " :return {:findings :ranked :summary \"{{count:ranked}} authors contributed this "
        "month\"}}",
        "(def q-commits (tool/get_commits {:since \"1 month ago\"}))\n"
        "(def q-by_author (group-by :author q-commits))\n"
        "(def q-stats\n"
        "  (map (fn [[k items]]\n"
        "         {:author k\n"
        "          :count (count items)\n"
        "          :files (sum-by :files items)})\n"
        "       q-by_author))\n"
        "(def q-ranked (sort-by :count :desc q-stats))\n"
        "(return {:findings q-ranked\n"
        "         :summary (str (count q-ranked) \" authors contributed this month\")})\n");
    /* example 4, step 1: get_author_stats has :commits, which :count is read as */
    expect_program(
        "{:fetch [{:tool :get_author_stats :as :authors :params {:since \"1 month ago\"}}]\n"
        " :transform [{:op :sort :on :authors :as :ranked :by :count :order :desc}\n"
        "             {:op :first :on :ranked :as :top}]\n"
        " :return {:step_result {:top_contributor \"{{top:author}}\"}}}",
        "(def q-authors (tool/get_author_stats {:since \"1 month ago\"}))\n"
        ";; :count is read as :commits (the field get_author_stats results have)\n"
        "(def q-ranked (sort-by :commits :desc q-authors))\n"
        "(def q-top (first q-ranked))\n"
        "(return {:step_result {:top_contributor (:author q-top)}})\n");
    /* the seed's map with computed fields, take/drop (a binding named rest), join */
    expect_program("{:fetch [{:tool :get_commits :as :commits}]\n"
                   " :transform [{:op :map :on :commits :as :with_score :select [:hash :author]\n"
                   "              :compute {:risk [:+ [:* :deletions 2] :additions]}}\n"
                   "             {:op :sort :on :with_score :as :ranked :by :risk :order :desc}\n"
                   "             {:op :take :on :ranked :as :top5 :n 5}\n"
                   "             {:op :drop :on :ranked :as :rest :n 5}]\n"
                   " :return {:findings :top5 :rest \"{{count:rest}}\"}}",
                   "(def q-commits (tool/get_commits {}))\n"
                   "(def q-with_score\n"
                   "  (map (fn [x] {:hash (:hash x)\n"
                   "                :author (:author x)\n"
                   "                :risk (+ (* (:deletions x) 2) (:additions x))})\n"
                   "       q-commits))\n"
                   "(def q-ranked (sort-by :risk :desc q-with_score))\n"
                   "(def q-top5 (take 5 q-ranked))\n"
                   "(def q-rest (drop 5 q-ranked))\n"
                   "(return {:findings q-top5\n"
                   "         :rest (count q-rest)})\n");
    expect_program(
        "{:fetch [{:tool :get_commits :as :commits} {:tool :get_author_stats :as :author_details}]"
        " :transform [{:op :join :left :commits :right :author_details :on [:= :author :author]"
        " :as :enriched}]"
        " :return {:findings :enriched}}",
        "(def q-commits (tool/get_commits {}))\n"
        "(def q-author_details (tool/get_author_stats {}))\n"
        "(def q-enriched\n"
        "  (let [index (dissoc (group-by :author q-author_details) nil)]\n"
        "    (map (fn [l] (merge l (first (get index (:author l))))) q-commits)))\n"
        "(return {:findings q-enriched})\n");
    /* predicates: contains reads text, matches a regex literal, :in a set, not, exists */
    expect_program(
        "{:fetch [{:tool :get_commits :as :c :params {:limit 10 :merges :exclude}}]"
        " :transform [{:op :filter :on :c :as :f :where [:and [:contains :message \"fix\"]"
        " [:matches :subject \"^(feat|fix)\\\\b\"] [:in :author [\"ann\" \"bob\" \"ann\"]]"
        " [:not [:= :author \"bot\"]]]}]"
        " :return {:n \"{{count:f}}\"}}",
        "(def q-c (tool/get_commits {:limit 10 :merges \"exclude\"}))\n"
        "(def q-f\n"
        "  (filter (fn [x] (and (includes? (str (:message x)) \"fix\")\n"
        "                       (re-find #\"^(feat|fix)\\b\" (str (:subject x)))\n"
        "                       (contains? #{\"ann\" \"bob\"} (:author x))\n"
        "                       (not (= (:author x) \"bot\"))))\n"
        "          q-c))\n"
        "(return {:n (count q-f)})\n");
    /* text ordering (dates), division, field against field */
    expect_program(
        "{:fetch [{:tool :get_commits :as :c}]"
        " :transform [{:op :filter :on :c :as :f :where [:>= :date \"2024-01-05\"]}"
        " {:op :filter :on :f :as :g :where [:> :additions :deletions]}"
        " {:op :map :on :g :as :m :compute {:per_file [:/ :additions :files]}}]"
        " :return {:m :m}}",
        "(def q-c (tool/get_commits {}))\n"
        "(def q-f\n"
        "  (filter (fn [x] (let [v1 (:date x)] (and (string? v1) (>= (compare v1 \"2024-01-05\") "
        "0))))\n"
        "          q-c))\n"
        "(def q-g (filter (fn [x] (> (:additions x) (:deletions x))) q-f))\n"
        "(def q-m\n"
        "  (map (fn [x] (assoc x :per_file (let [v1 (:files x)] (when (not (zero? v1)) (/ "
        "(:additions x) v1)))))\n"
        "       q-g))\n"
        "(return {:m q-m})\n");
}

/* Seed 000's queries as JSON compile to the programs of their EDN forms. */
static void test_json_form(void)
{
    const char *pairs[][2] = {
        {"{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\" :limit 50}}]"
         " :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}"
         " {:op :sort :on :large :as :ranked :by :files :order :desc}]"
         " :return {:findings :ranked :summary \"{{count:large}} large commits\"}}",
         "{\"fetch\": [{\"tool\": \"get_commits\", \"as\": \"commits\", \"params\": {\"limit\": "
         "50, \"since\": \"1 week ago\"}}], \"transform\": [{\"op\": \"filter\", \"on\": "
         "\"commits\", \"as\": \"large\", \"where\": [\">\", \"files\", 5]}, {\"as\": "
         "\"ranked\", \"op\": \"sort\", \"on\": \"large\", \"by\": \"files\", \"order\": "
         "\"desc\"}], \"return\": {\"findings\": \"ranked\", \"summary\": \"{{count:large}} "
         "large commits\"}}"},
        {"{:fetch [{:tool :get_commits :as :commits}]"
         " :transform [{:op :group :on :commits :as :by_author :by :author}"
         " {:op :aggregate :on :by_author :as :stats :compute {:count [:count] :files [:sum "
         ":files]}}]"
         " :return {:findings :stats}}",
         "{\"query\": {\"fetch\": [{\"tool\": \"get_commits\", \"as\": \"commits\"}], "
         "\"transform\": [{\"op\": \"group\", \"on\": \"commits\", \"as\": \"by_author\", "
         "\"by\": \"author\"}, {\"op\": \"aggregate\", \"on\": \"by_author\", \"as\": "
         "\"stats\", \"compute\": {\"count\": [\"count\"], \"files\": [\"sum\", "
         "\"files\"]}}]}, \"return\": {\"findings\": \"stats\"}}"},
        {"{:fetch [{:tool :get_commits :as :c}]"
         " :transform [{:op :filter :on :c :as :f :where [:or [:> :additions :deletions]"
         " [:contains :message \"refactor\"]]}"
         " {:op :map :on :f :as :m :select [:hash] :compute {:risk [:+ [:* :deletions 2] "
         ":additions] :who :author}}]"
         " :return {:findings :m}}",
         "{\"fetch\": [{\"tool\": \"get_commits\", \"as\": \"c\"}], \"transform\": [{\"op\": "
         "\"filter\", \"on\": \"c\", \"as\": \"f\", \"where\": [\"or\", [\">\", \"additions\", "
         "{\"field\": \"deletions\"}], [\"contains\", \"message\", \"refactor\"]]}, {\"op\": "
         "\"map\", \"on\": \"f\", \"as\": \"m\", \"select\": [\"hash\"], \"compute\": "
         "{\"risk\": [\"+\", [\"*\", \"deletions\", 2], \"additions\"], \"who\": "
         "\"author\"}}], \"return\": {\"findings\": \"m\"}}"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        qr_query_compiled e, j;
        int re = compile(pairs[i][0], qr_nil(), &e);
        /* the second pair has its return outside the wrapped query: unwrap it here */
        int rj = compile(pairs[i][1], qr_nil(), &j);
        if (i == 1) {
            CHECK(rj == QR_EINVAL); /* {"query": ..., "return": ...} is not a wrapper */
            qr_query_compiled_clear(&j);
            const char *fixed = "{\"fetch\": [{\"tool\": \"get_commits\", \"as\": \"commits\"}], "
                                "\"transform\": [{\"op\": \"group\", \"on\": \"commits\", \"as\": "
                                "\"by_author\", \"by\": \"author\"}, {\"op\": \"aggregate\", "
                                "\"on\": \"by_author\", \"as\": \"stats\", \"compute\": "
                                "{\"count\": [\"count\"], \"files\": [\"sum\", \"files\"]}}], "
                                "\"return\": {\"findings\": \"stats\"}}";
            rj = compile(fixed, qr_nil(), &j);
        }
        CHECK(re == QR_OK && rj == QR_OK);
        if (re == QR_OK && rj == QR_OK) {
            CHECK_STR(j.program, e.program);
            CHECK_STR(j.normalized, e.normalized);
            CHECK(j.hash == e.hash);
        }
        qr_query_compiled_clear(&e);
        qr_query_compiled_clear(&j);
    }
}

/* ---- bindings ---- */

static void each_builtin(void *ud, const char *name, const char *args, const char *doc)
{
    (void)args;
    (void)doc;
    int *bad = ud;
    if (!strncmp(name, "q-", 2)) {
        fprintf(stderr, "builtin '%s' starts with the binding prefix q-\n", name);
        (*bad)++;
    }
}

static qr_val run_with(const char *query, const char *data, qr_lisp_session **sp,
                       qr_query_compiled *q, int *rc, bool quiet)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    *sp = s;
    qr_val ctx = data ? read_value(qr_lisp_session_arena(s), data) : qr_nil();
    if (data)
        qr_lisp_set_data(s, ctx);
    *rc = compile(query, ctx, q);
    if (*rc != QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_query_problems_text(q, &b);
        fprintf(stderr, "problems:\n%s", b.p ? b.p : "");
        qr_buf_release(&b);
        return qr_nil();
    }
    qr_lisp_result res;
    *rc = qr_lisp_run(s, q->program, q->program_len, &res);
    qr_val v = res.value;
    if (*rc != QR_OK && !quiet)
        fprintf(stderr, "run failed: %s: %s\n%s", qr_lisp_errkind_name(res.kind), res.message,
                q->program);
    qr_lisp_result_clear(&res);
    return v;
}

static void expect_run(const char *query, const char *data, const char *want)
{
    qr_lisp_session *s;
    qr_query_compiled q;
    int rc;
    qr_val v = run_with(query, data, &s, &q, &rc, false);
    CHECK(rc == QR_OK);
    if (rc == QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_print(&b, v, QR_PRINT_READABLY);
        CHECK_STR(b.p, want);
        qr_buf_release(&b);
    }
    qr_query_compiled_clear(&q);
    qr_lisp_session_free(s);
}

static void test_bindings(void)
{
    int bad = 0;
    qr_lisp_each_builtin(each_builtin, &bad);
    CHECK(bad == 0);
    /* bindings named like builtins and special forms, and like the program's locals */
    expect_run("{:transform [{:op :sort :on :rows :as :rest :by :n :order :desc}"
               " {:op :filter :on :rest :as :count :where [:> :n 1]}"
               " {:op :take :on :count :as :filter :n 2}"
               " {:op :map :on :filter :as :fn :select [:n]}"
               " {:op :first :on :fn :as :first}"
               " {:op :group :on :rest :as :x :by :g}"
               " {:op :aggregate :on :x :as :items :compute {:k [:count] :total [:sum :n]}}"
               " {:op :distinct :on :rest :as :def :by :g}]"
               " :return {:all :rest :count \"{{count:count}}\" :first :first :top \"{{first}}\""
               " :groups :items :def \"{{count:def}}\"}}",
               "{:rows [{:n 1 :g \"a\"} {:n 3 :g \"b\"} {:n 2 :g \"a\"}]}",
               "{:all [{:n 3, :g \"b\"} {:n 2, :g \"a\"} {:n 1, :g \"a\"}], :count 2, :first {:n "
               "3}, :top {:n 3}, :groups [{:g \"b\", :k 1, :total 3} {:g \"a\", :k 2, :total 3}], "
               ":def 2}");
    /* a context name and a binding of the same name: the binding wins from its step on */
    expect_run("{:transform [{:op :filter :on :rows :as :kept :where [:exists :n]}"
               " {:op :take :on :rows :as :rows :n 1}]"
               " :return {:kept \"{{count:kept}}\" :rows \"{{count:rows}}\"}}",
               "{:rows [{:n 1} {:m 2} {:n 3}]}", "{:kept 2, :rows 1}");
    /* resolved values, templates in where values and params */
    expect_run("{:transform [{:op :filter :on :rows :as :mine :where [:= :who "
               "\"{{resolved:top}}\"]}]"
               " :return {:who \"{{resolved:top}}\" :n \"{{count:mine}}\" :first "
               "\"{{first:mine:n}}\" :text \"{{resolved:top}} has {{count:mine}}\"}}",
               "{:rows [{:who \"ann\" :n 1} {:who \"bob\" :n 2} {:who \"ann\" :n 3}] :resolved "
               "{:top \"ann\"}}",
               "{:who \"ann\", :n 2, :first 1, :text \"ann has 2\"}");
    /* no :return: every binding of the query, by name */
    expect_run("{:transform [{:op :take :on :rows :as :a :n 1} {:op :last :on :rows :as :b}]}",
               "{:rows [1 2 3]}", "{:a [1], :b 3}");
    /* missing fields: ordering false, arithmetic nil, division by zero nil */
    expect_run("{:transform [{:op :filter :on :rows :as :big :where [:> :n 1]}"
               " {:op :map :on :rows :as :m :select [:n] :compute {:half [:/ :n :d] :sum [:+ :n "
               ":d]}}]"
               " :return {:big :big :m :m}}",
               "{:rows [{:n 2 :d 0} {:d 4} {:n 8 :d 2} {:n \"x\" :d 1}]}",
               "{:big [{:n 2, :d 0} {:n 8, :d 2}], :m [{:n 2, :half nil, :sum 2} {:n nil, :half "
               "nil, :sum nil} {:n 8, :half 4.0, :sum 10} {:n \"x\", :half nil, :sum nil}]}");
}

/* Functions of computed values (:if :str :dirname :basename :top-dir :count-of) and
 * :concat: what a model needed the intent path for. */
static void test_functions(void)
{
    expect_run("{:transform [{:op :map :on :rows :as :m :select [:path]"
               " :compute {:size [:if [:> :n 10] \"large\" \"small\"]"
               " :label [:str :who \" (\" :n \")\"]"
               " :dir [:dirname :path] :base [:basename :path] :top [:top-dir :path]"
               " :share [:/ :n [:count-of :rows]]}}]"
               " :return {:m :m}}",
               "{:rows [{:path \"src/lisp/eval.c\" :who \"ann\" :n 12}"
               " {:path \"README.md\" :who \"bob\" :n 2}]}",
               "{:m [{:path \"src/lisp/eval.c\", :size \"large\", :label \"ann (12)\", :dir "
               "\"src/lisp\", :base \"eval.c\", :top \"src\", :share 6.0} {:path \"README.md\", "
               ":size \"small\", :label \"bob (2)\", :dir \"\", :base \"README.md\", :top \"\", "
               ":share 1.0}]}");
    /* :if nests, and a missing field makes the predicate false */
    expect_run("{:transform [{:op :map :on :rows :as :m :select []"
               " :compute {:k [:if [:> :n 5] [:if [:> :n 50] \"huge\" \"big\"] \"small\"]}}]"
               " :return {:m :m}}",
               "{:rows [{:n 100} {:n 7} {:x 1}]}",
               "{:m [{:k \"huge\"} {:k \"big\"} {:k \"small\"}]}");
    /* a fraction between bindings: the share of one author's commits */
    expect_run("{:transform [{:op :filter :on :rows :as :ann :where [:= :who \"ann\"]}"
               " {:op :take :on :rows :as :one :n 1}"
               " {:op :map :on :one :as :frac :select [] :compute {:share [:/ [:count-of :ann] "
               "[:count-of :rows]]}}]"
               " :return {:share \"{{first:frac:share}}\"}}",
               "{:rows [{:who \"ann\"} {:who \"bob\"} {:who \"ann\"} {:who \"cy\"}]}",
               "{:share 0.5}");
    /* :concat: the items of both, fields of either */
    expect_run("{:transform [{:op :take :on :a :as :x :n 1}"
               " {:op :concat :on [:x :b] :as :all}"
               " {:op :sort :on :all :as :s :by :n}]"
               " :return {:all :s}}",
               "{:a [{:n 3 :p 1} {:n 9}] :b [{:n 1 :q 2}]}",
               "{:all [{:n 1, :q 2} {:n 3, :p 1}]}");
    /* JSON: a string naming a field is the field, any other string is text */
    expect_run("{\"transform\": [{\"op\": \"map\", \"on\": \"rows\", \"as\": \"m\", "
               "\"select\": [], \"compute\": {\"t\": [\"str\", \"who\", \" wrote \", \"n\"]}}],"
               " \"return\": {\"m\": \"m\"}}",
               "{:rows [{:who \"ann\" :n 2}]}", "{:m [{:t \"ann wrote 2\"}]}");
    /* problems: arity, text in arithmetic, unknown binding */
    expect_problem("{:transform [{:op :map :on :rows :as :m :compute {:k [:if [:> :n 1] 1]}}]}",
                   ":compute :k: :if with 2 operands; expected [:if PREDICATE THEN ELSE]");
    expect_problem("{:transform [{:op :map :on :rows :as :m :compute {:k [:+ 1 [:str \"a\"]]}}]}",
                   "holds text, not numbers");
    expect_problem("{:transform [{:op :map :on :rows :as :m :compute {:k [:count-of :rowz]}}]}",
                   "unknown binding :rowz");
    expect_problem("{:transform [{:op :concat :on :rows :as :all}]}",
                   "bad :on :rows; expected a vector of 2 to 16 bindings");
}

/* issue 25: what the DSL could not say. Date parts read as written (the author's own
 * offset); paths' extension, stem and directory; words; items of a record's collection. */
static void ref_has_name(void *ud, const char *group, const char *name, const char *usage)
{
    const char *text = ud;
    (void)group;
    char want[64];
    snprintf(want, sizeof want, "[:%s ", name);
    if (!strstr(text, want) || !strstr(usage, want)) {
        fprintf(stderr, "reference lacks %s\n", want);
        CHECK(false);
    }
}

static void test_issue25_functions(void)
{
    expect_run("{:transform [{:op :map :on :rows :as :m :select []"
               " :compute {:y [:year :d] :q [:quarter :d] :mo [:month :d] :w [:week :d]"
               " :day [:day :d] :wd [:weekday :d] :wn [:weekday-num :d] :h [:hour :d]}}]"
               " :return {:m :m}}",
               "{:rows [{:d \"2024-12-30T23:30:00-05:00\"} {:d \"2021-01-03T00:10:00+09:00\"}"
               " {:d 0} {:d \"not a date\"}]}",
               "{:m [{:y 2024, :q \"2024-Q4\", :mo \"2024-12\", :w \"2025-W01\", :day \"2024-12-30\","
               " :wd \"Monday\", :wn 1, :h 23} {:y 2021, :q \"2021-Q1\", :mo \"2021-01\", :w "
               "\"2020-W53\", :day \"2021-01-03\", :wd \"Sunday\", :wn 7, :h 0} {:y 1970, :q "
               "\"1970-Q1\", :mo \"1970-01\", :w \"1970-W01\", :day \"1970-01-01\", :wd "
               "\"Thursday\", :wn 4, :h 0} {:y nil, :q nil, :mo nil, :w nil, :day nil, :wd nil, "
               ":wn nil, :h nil}]}");
    expect_run("{:transform [{:op :map :on :rows :as :m :select []"
               " :compute {:e [:ext :p] :s [:stem :p] :x [:strip-ext :p] :d [:dirname :p]}}]"
               " :return {:m :m}}",
               "{:rows [{:p \"src/a.tar.gz\"} {:p \"Makefile\"} {:p \"etc/.bashrc\"}"
               " {:p \"v1.2/run\"} {:p nil}]}",
               "{:m [{:e \"gz\", :s \"a.tar\", :x \"src/a.tar\", :d \"src\"} {:e \"\", :s "
               "\"Makefile\", :x \"Makefile\", :d \"\"} {:e \"\", :s \".bashrc\", :x "
               "\"etc/.bashrc\", :d \"etc\"} {:e \"\", :s \"run\", :x \"v1.2/run\", :d \"v1.2\"} "
               "{:e \"\", :s \"\", :x \"\", :d \"\"}]}");
    expect_run("{:transform [{:op :map :on :rows :as :m :select []"
               " :compute {:w [:first-word :m] :l [:lower [:first-word :m]] :u [:upper :m]"
               " :t [:trim :m] :s [:substr :m 2 4] :s2 [:substr :m 3] :n [:length :m]}}]"
               " :return {:m :m}}",
               "{:rows [{:m \"  Fix: don't crash \"} {:m \"\"}]}",
               "{:m [{:w \"Fix\", :l \"fix\", :u \"  FIX: DON'T CRASH \", :t \"Fix: don't crash\","
               " :s \"Fi\", :s2 \"ix: don't crash \", :n 19} {:w \"\", :l \"\", :u \"\", :t \"\", :s "
               "\"\", :s2 \"\", :n 0}]}");
    /* collections: the item's fields first, then the record's; :it for plain items */
    expect_run("{:transform [{:op :filter :on :rows :as :both"
               " :where [:any :paths [:and [:= [:ext :path] \"c\"]"
               " [:in [:str [:strip-ext :path] \".h\"] [:pluck :paths :path]]]]}"
               " {:op :map :on :rows :as :m :select [:id]"
               " :compute {:c [:count-if :paths [:= [:ext :path] \"c\"]] :p2 [:nth :parents 1]"
               " :np [:length :parents] :big [:if [:all :paths [:> :additions :min]] 1 0]"
               " :self [:if [:any :parents [:= :it :id]] 1 0]}}"
               " {:op :map :on :both :as :bids :select [:id]}]"
               " :return {:both :bids :m :m}}",
               "{:rows [{:id \"a\" :min 1 :parents [\"p\" \"q\"] :paths [{:path \"src/x.c\" "
               ":additions 3} {:path \"src/x.h\" :additions 2}]}"
               " {:id \"b\" :min 2 :parents [\"b\"] :paths [{:path \"x.c\" :additions 1} {:path "
               "\"src/x.h\" :additions 9}]} {:id \"c\" :min 0}]}",
               "{:both [{:id \"a\"}], :m [{:id \"a\", :c 1, :p2 \"q\", :np 2, :big 1, :self 0} {:id \"b\", "
               ":c 1, :p2 nil, :np 1, :big 0, :self 1} {:id \"c\", :c 0, :p2 nil, :np 0, :big 1, "
               ":self 0}]}");
    expect_problem("{:transform [{:op :map :on :rows :as :m :compute {:k [:nth :parents -1]}}]}",
                   ":compute :k[2]: bad index -1; expected an integer from 0");
    expect_problem("{:transform [{:op :filter :on :rows :as :m :where [:any :paths]}]}",
                   ":any with 1 operand; expected [:any :field PREDICATE]");
    expect_problem("{:fetch [{:tool :get_author_stats :as :a} {:tool :get_commits :as :c"
                   " :params {:author \"{{first:r:email}}\"}}]"
                   " :transform [{:op :sort :on :a :as :r :by :commits}]}",
                   "every :fetch runs before the :transform steps");
    /* the reference lists every function with its usage */
    qr_buf b;
    qr_buf_init(&b);
    qr_query_reference(&b);
    CHECK(b.p && strstr(b.p, "{{last:name:field}}") && strstr(b.p, "author date"));
    qr_query_each_function(ref_has_name, b.p);
    qr_buf_release(&b);
}

/* ---- problems ---- */

static void test_problems(void)
{
    expect_problem("{:fetch [{:tool :get_comits :as :c}]}",
                   ":fetch[0] :tool: unknown tool :get_comits; expected one of :get_commits");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :filter :on :c :as "
                   ":d :where [:and [:> :files 1] [:>> :files 5]]}]}",
                   ":transform[0] :where[2][0]: unknown operator :>>; expected one of := :not= "
                   ":> :>= :< :<= :contains :matches :in :exists :and :or :not");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :filter :on :c :as "
                   ":d :where [:!= :author \"x\"]}]}",
                   "write :not=");
    expect_problem("{:fetch [{:tool :get_commits :as :c :params {:sinse \"x\"}}]}",
                   ":fetch[0] :params: unknown parameter :sinse for tool get_commits");
    expect_problem("{:fetch [{:tool :get_commits :as :c :params {:limit 0}}]}",
                   "parameter 'limit' must be at least 1, got 0");
    expect_problem("{:fetch [{:tool :get_file_history :as :h}]}",
                   "missing required parameter 'path' of tool get_file_history");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :sort :on :c :as :r "
                   ":by :filez}]}",
                   "unknown field :filez; expected a field of get_commits results:");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :filter :on :c :as "
                   ":d :where [:> :author 5]}]}",
                   ":> compares :author (text) with 5 (numbers): never true");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :filter :on :d :as "
                   ":e :where [:> :files 1]} {:op :filter :on :c :as :d :where [:> :files 1]}]}",
                   ":d is defined later, at :transform[1]");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :group :on :c :as :g "
                   ":by :author} {:op :sort :on :g :as :s :by :author}]}",
                   "aggregate the group first");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :return {:s \"{{c:author}}\"}}",
                   "write {{first:c:author}}");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :return {:s \"{{resolved:x}}\"}}",
                   "the context has none");
    expect_problem(
        "{:fetch [{:tool :get_commits :as :commits}] :return {:findings :comits}}",
        ":comits names no binding; expected a binding: :commits; did you mean :commits?");
    expect_problem("{:mode :intent :intent \"do things\"}", "this is not a query but :intent");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :aggregate :on :c "
                   ":as :s :compute {:n [:mean :files]}}]}",
                   "write :avg");
    expect_problem("{:fetch [{:tool :get_commits :as :c}] :transform [{:op :filter :on :c :as "
                   ":d :where [:matches :message \"(\"]}]}",
                   "bad regular expression");
    expect_problem("{:fetch [", "the query cannot be read as EDN");
    expect_problem("{\"fetch\": [}", "the query cannot be read as JSON");

    /* every problem says where, what, what was expected, what was found and a hint */
    const char *bad = "{:fetch [{:tool :get_comits :as 5 :params {:x 1}} {:tool :get_commits "
                      ":as :c :params {:limit \"x\" :merges \"no\"}}]"
                      " :transform [{:op :fliter :on :c :as :d} {:op :filter :on :cc :as :e "
                      ":where [:> :files \"5\"]} {:op :sort :on :c :as :s :by [:files :up]}"
                      " {:op :map :on :c :as :m} {:op :take :on :c :as :t :n -2}"
                      " {:op :aggregate :on :c :as :a :compute {:x [:sum :author]}}"
                      " {:op :join :left :c :right :s :on [:< :a :b] :as :j}]"
                      " :return {:x \"{{nope}}\" :y \"{{count:c\" :z :cc}}";
    qr_query_compiled q;
    CHECK(compile(bad, qr_nil(), &q) == QR_EINVAL);
    CHECK(q.program == NULL);
    CHECK(q.nproblems >= 12);
    for (size_t i = 0; i < q.nproblems; i++) {
        const qr_query_problem *p = &q.problems[i];
        CHECK(p->path[0] == ':');
        CHECK(p->path_json[0] == '[' && p->path_json[1] == '"');
        CHECK(p->message[0] && p->expected[0] && p->found[0]);
        if (!p->hint[0])
            fprintf(stderr, "no hint: %s: %s\n", p->path, p->message);
        CHECK(p->hint[0]);
    }
    qr_buf b;
    qr_buf_init(&b);
    qr_query_problems_json(&q, &b);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    qr_read_error e;
    CHECK(qr_json_read(&a, b.p, b.len, &v, &e) == QR_OK);
    CHECK(v.t == QR_T_VEC && qr_vec_len(v) == q.nproblems);
    qr_arena_release(&a);
    qr_buf_release(&b);
    qr_query_compiled_clear(&q);
}

/* ---- cache and run-time errors ---- */

static void test_cache(void)
{
    qr_query_cache *k = qr_query_cache_new(2);
    qr_query_opts o;
    qr_query_opts_init(&o, tools);
    o.cache = k;
    const char *edn = "{:fetch [{:tool :get_commits :as :c :params {:since \"1 week ago\" "
                      ":limit 5}}] :return {:n \"{{count:c}}\"}}";
    const char *json = "{\"return\": {\"n\": \"{{count:c}}\"}, \"fetch\": [{\"as\": \"c\", "
                       "\"params\": {\"limit\": 5, \"since\": \"1 week ago\"}, \"tool\": "
                       "\"get_commits\"}]}";
    qr_query_compiled a, b, c2;
    CHECK(qr_query_compile(&o, edn, strlen(edn), &a) == QR_OK && !a.from_cache);
    CHECK(qr_query_compile(&o, json, strlen(json), &b) == QR_OK && b.from_cache);
    CHECK_STR(b.program, a.program);
    CHECK(b.nsteps == a.nsteps && b.steps[0].line == a.steps[0].line);
    uint64_t hits, misses;
    qr_query_cache_stats(k, &hits, &misses);
    CHECK(hits == 1 && misses == 1);
    /* a context changes the key */
    qr_arena ar;
    qr_arena_init(&ar, 0);
    o.context = read_value(&ar, "{:other [1 2]}");
    CHECK(qr_query_compile(&o, edn, strlen(edn), &c2) == QR_OK && !c2.from_cache);
    qr_query_compiled_clear(&a);
    qr_query_compiled_clear(&b);
    qr_query_compiled_clear(&c2);
    /* eviction: fill past capacity */
    for (int i = 0; i < 5; i++) {
        char text[200];
        snprintf(text, sizeof text, "{:fetch [{:tool :get_commits :as :c :params {:limit %d}}]}",
                 i + 1);
        qr_query_compiled x;
        CHECK(qr_query_compile(&o, text, strlen(text), &x) == QR_OK);
        qr_query_compiled_clear(&x);
    }
    qr_arena_release(&ar);
    qr_query_cache_free(k);
}

static void test_runtime_step(void)
{
    qr_lisp_session *s;
    qr_query_compiled q;
    int rc;
    /* :n is text in one record: sorting by it fails at run time, in the sort step */
    run_with("{:transform [{:op :filter :on :rows :as :f :where [:exists :n]}"
             " {:op :sort :on :f :as :s :by :n}] :return {:s :s}}",
             "{:rows [{:n 1} {:n \"x\"}]}", &s, &q, &rc, true);
    CHECK(rc == QR_ERUNTIME);
    qr_lisp_result res;
    rc = qr_lisp_run(s, q.program, q.program_len, &res);
    const qr_query_step *st = qr_query_step_at(&q, res.line);
    CHECK(st && !strcmp(st->path, ":transform[1]") && !strcmp(st->binding, "s"));
    qr_lisp_result_clear(&res);
    qr_query_compiled_clear(&q);
    qr_lisp_session_free(s);
}

/* ---- the property test: random queries, a reference evaluator ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

typedef struct gfield {
    char name[32];
    bool num;
} gfield;

typedef struct gshape {
    gfield f[24];
    int n;
} gshape;

static const char *const strs[] = {"x", "y", "zz", "xy", ""};
static const char *const names[] = {"rest", "count", "filter", "map",   "first",
                                    "x",    "items", "k",      "index", "l",
                                    "r",    "v1",    "sort",   "data",  "q-x"};

/* Row 0 has every field: a field no record has is an error (a misspelling), so the
 * queries, which may use any field, stay valid; later rows leave fields out. */
static void gen_row(qr_arena *a, qr_mapb *m, bool all)
{
    if (all || rnd(100) < 85)
        qr_mapb_put(m, qr_kw_cstr(a, "a"), qr_int((int64_t)rnd(9) - 3));
    if (all || rnd(100) < 85)
        qr_mapb_put(m, qr_kw_cstr(a, "b"), qr_str_cstr(a, strs[rnd(5)]));
    qr_mapb_put(m, qr_kw_cstr(a, "c"), qr_int(rnd(5)));
    if (all || rnd(100) < 70)
        qr_mapb_put(m, qr_kw_cstr(a, "d"), qr_double(0.5 * rnd(6)));
}

static qr_val gen_data(qr_arena *a)
{
    qr_mapb top;
    qr_mapb_init(&top, a, 2);
    qr_vecb rows;
    size_t n = rnd(13);
    qr_vecb_init(&rows, a, n);
    for (size_t i = 0; i < n; i++) {
        qr_mapb m;
        qr_mapb_init(&m, a, 4);
        gen_row(a, &m, i == 0);
        qr_vecb_push(&rows, qr_mapb_finish(&m, QR_T_MAP));
    }
    qr_mapb_put(&top, qr_kw_cstr(a, "rows"), qr_vecb_finish(&rows, QR_T_VEC));
    qr_vecb other;
    n = rnd(6);
    qr_vecb_init(&other, a, n);
    for (size_t i = 0; i < n; i++) {
        qr_mapb m;
        qr_mapb_init(&m, a, 2);
        qr_mapb_put(&m, qr_kw_cstr(a, "k"), qr_str_cstr(a, strs[rnd(3)]));
        qr_mapb_put(&m, qr_kw_cstr(a, "v"), qr_int(rnd(4)));
        qr_vecb_push(&other, qr_mapb_finish(&m, QR_T_MAP));
    }
    qr_mapb_put(&top, qr_kw_cstr(a, "other"), qr_vecb_finish(&other, QR_T_VEC));
    return qr_mapb_finish(&top, QR_T_MAP);
}

static const gfield *pick(const gshape *s, int want_num)
{
    for (int tries = 0; tries < 20; tries++) {
        const gfield *f = &s->f[rnd((uint32_t)s->n)];
        if (want_num < 0 || f->num == (want_num == 1))
            return f;
    }
    return NULL;
}

static void gen_expr(qr_buf *b, const gshape *s, int depth)
{
    const gfield *f = pick(s, 1);
    if (depth > 1 || rnd(3) == 0 || !f) {
        if (f && rnd(2))
            qr_buf_printf(b, ":%s", f->name);
        else
            qr_buf_printf(b, "%d", (int)rnd(5) - 1);
        return;
    }
    static const char *const ops[] = {"+", "-", "*", "/"};
    const char *op = ops[rnd(4)];
    qr_buf_printf(b, "[:%s ", op);
    gen_expr(b, s, depth + 1);
    qr_buf_putc(b, ' ');
    if (op[0] == '/' && rnd(2))
        qr_buf_printf(b, ":%s", f->name); /* a field divisor: may be 0 or nil */
    else if (op[0] == '/' && rnd(2))
        qr_buf_printf(b, "%d", rnd(2) ? 2 : -1); /* a literal 0 divisor is refused */
    else if (op[0] == '/')
        qr_buf_printf(b, "[:+ :%s 1]", f->name); /* an expression: may be 0 */
    else
        gen_expr(b, s, depth + 1);
    if (op[0] != '/' && rnd(3) == 0) {
        qr_buf_putc(b, ' ');
        gen_expr(b, s, depth + 1);
    }
    qr_buf_putc(b, ']');
}

static void gen_pred(qr_buf *b, const gshape *s, int depth)
{
    int kind = (int)rnd(depth > 1 ? 7 : 10);
    const gfield *f = pick(s, -1);
    if (!f) {
        qr_buf_puts(b, "[:exists :c]");
        return;
    }
    static const char *const cmp[] = {"=", "not=", ">", ">=", "<", "<="};
    switch (kind) {
    case 0:
    case 1:
    case 2:
        if (f->num) {
            qr_buf_printf(b, "[:%s ", cmp[rnd(6)]);
            if (rnd(4) == 0)
                gen_expr(b, s, 1);
            else
                qr_buf_printf(b, ":%s", f->name);
            const gfield *g = pick(s, 1);
            if (g && rnd(3) == 0)
                qr_buf_printf(b, " :%s]", g->name);
            else
                qr_buf_printf(b, " %d]", (int)rnd(7) - 2);
        } else {
            qr_buf_printf(b, "[:%s :%s \"%s\"]", cmp[rnd(6)], f->name, strs[rnd(5)]);
        }
        return;
    case 3: {
        const gfield *t = pick(s, 0); /* :contains looks for text in a text field */
        if (t)
            qr_buf_printf(b, "[:contains :%s \"%s\"]", t->name, strs[rnd(4)]);
        else
            qr_buf_printf(b, "[:exists :%s]", f->name);
        return;
    }
    case 4:
        if (f->num)
            qr_buf_printf(b, "[:in :%s [%d %d]]", f->name, (int)rnd(5) - 2, (int)rnd(5));
        else
            qr_buf_printf(b, "[:in :%s [\"%s\" \"%s\"]]", f->name, strs[rnd(5)], strs[rnd(5)]);
        return;
    case 5:
    case 6: qr_buf_printf(b, "[:exists :%s]", f->name); return;
    default: {
        static const char *const logic[] = {"and", "or", "not"};
        const char *l = logic[rnd(3)];
        qr_buf_printf(b, "[:%s ", l);
        int n = l[0] == 'n' ? 1 : 1 + (int)rnd(3);
        for (int i = 0; i < n; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_buf sub;
            qr_buf_init(&sub);
            gen_pred(&sub, s, depth + 1);
            if (!sub.len)
                qr_buf_puts(&sub, "[:exists :c]");
            qr_buf_append(b, sub.p, sub.len);
            qr_buf_release(&sub);
        }
        qr_buf_putc(b, ']');
        return;
    }
    }
}

static void shape_add(gshape *s, const char *name, bool num)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->f[i].name, name)) {
            s->f[i].num = num;
            return;
        }
    if (s->n < 24) {
        snprintf(s->f[s->n].name, sizeof s->f[s->n].name, "%s", name);
        s->f[s->n++].num = num;
    }
}

/* Writes a random valid query over data/rows (and data/other) into q. */
static void gen_query(qr_buf *q)
{
    gshape s = {.n = 0};
    shape_add(&s, "a", true);
    shape_add(&s, "b", false);
    shape_add(&s, "c", true);
    shape_add(&s, "d", true);
    char cur[32] = "rows";
    int used[sizeof names / sizeof names[0]] = {0};
    int nsteps = 1 + (int)rnd(5);
    bool terminal = false;
    qr_buf_puts(q, "{:transform [");
    for (int i = 0; i < nsteps && !terminal; i++) {
        char as[32];
        int ni = (int)rnd(sizeof names / sizeof names[0]);
        if (used[ni]++)
            snprintf(as, sizeof as, "%s%d", names[ni], i);
        else
            snprintf(as, sizeof as, "%s", names[ni]);
        int op = (int)rnd(11);
        switch (op) {
        case 0:
        case 1: {
            qr_buf w;
            qr_buf_init(&w);
            gen_pred(&w, &s, 0);
            if (!w.len)
                qr_buf_puts(&w, "[:exists :c]");
            qr_buf_printf(q, "{:op :filter :on :%s :as :%s :where %s} ", cur, as, w.p);
            qr_buf_release(&w);
            break;
        }
        case 2: {
            const gfield *f1 = pick(&s, -1), *f2 = pick(&s, -1);
            if (rnd(2) || f1 == f2)
                qr_buf_printf(q, "{:op :sort :on :%s :as :%s :by :%s :order :%s} ", cur, as,
                              f1->name, rnd(2) ? "desc" : "asc");
            else
                qr_buf_printf(q, "{:op :sort :on :%s :as :%s :by [[:%s :%s] :%s]} ", cur, as,
                              f1->name, rnd(2) ? "desc" : "asc", f2->name);
            break;
        }
        case 3:
            qr_buf_printf(q, "{:op :%s :on :%s :as :%s :n %d} ", rnd(2) ? "take" : "drop", cur, as,
                          (int)rnd(6));
            break;
        case 4: {
            gshape ns = {.n = 0};
            bool select = rnd(3) != 0;
            qr_buf_printf(q, "{:op :map :on :%s :as :%s", cur, as);
            if (select) {
                qr_buf_puts(q, " :select [");
                int k = 1 + (int)rnd(2);
                for (int j = 0; j < k; j++) {
                    const gfield *f = pick(&s, -1);
                    bool dup = false;
                    for (int z = 0; z < ns.n; z++)
                        dup = dup || !strcmp(ns.f[z].name, f->name);
                    if (dup)
                        continue;
                    qr_buf_printf(q, ":%s ", f->name);
                    shape_add(&ns, f->name, f->num);
                }
                qr_buf_puts(q, "]");
            } else {
                ns = s;
            }
            char cname[16];
            snprintf(cname, sizeof cname, "e%d", i);
            qr_buf_printf(q, " :compute {:%s ", cname);
            gen_expr(q, &s, 0);
            qr_buf_puts(q, "}} ");
            shape_add(&ns, cname, true);
            s = ns;
            break;
        }
        case 5:
        case 6: {
            const gfield *g = pick(&s, -1);
            char gname[40];
            snprintf(gname, sizeof gname, "%s_g", as);
            qr_buf_printf(q, "{:op :group :on :%s :as :%s :by :%s} ", cur, gname, g->name);
            qr_buf_printf(q, "{:op :aggregate :on :%s :as :%s :compute {", gname, as);
            gshape ns = {.n = 0};
            shape_add(&ns, g->name, g->num);
            static const char *const aggs[] = {"count", "sum", "avg",
                                               "min",   "max", "count-distinct"};
            int k = 1 + (int)rnd(3);
            for (int j = 0; j < k; j++) {
                const char *fn = aggs[rnd(6)];
                const gfield *f = pick(&s, (fn[0] == 's' || fn[0] == 'a') ? 1 : -1);
                char rn[32];
                snprintf(rn, sizeof rn, "r%d_%d", i, j);
                if (!strcmp(fn, "count") && rnd(2))
                    qr_buf_printf(q, ":%s [:count] ", rn);
                else
                    qr_buf_printf(q, ":%s [:%s :%s] ", rn, fn, f->name);
                shape_add(&ns, rn, fn[0] != 'm' || f->num);
            }
            qr_buf_puts(q, "}} ");
            s = ns;
            break;
        }
        case 7: {
            bool hasb = false;
            for (int z = 0; z < s.n; z++)
                hasb = hasb || (!strcmp(s.f[z].name, "b") && !s.f[z].num);
            if (hasb) {
                qr_buf_printf(q, "{:op :join :left :%s :right :other :on [:= :b :k] :as :%s%s} ",
                              cur, as, rnd(2) ? " :type :inner" : "");
                shape_add(&s, "k", false);
                shape_add(&s, "v", true);
            } else {
                qr_buf_printf(q, "{:op :distinct :on :%s :as :%s} ", cur, as);
            }
            break;
        }
        case 8:
            if (rnd(2))
                qr_buf_printf(q, "{:op :distinct :on :%s :as :%s} ", cur, as);
            else
                qr_buf_printf(q, "{:op :distinct :on :%s :as :%s :by :%s} ", cur, as,
                              pick(&s, -1)->name);
            break;
        default:
            qr_buf_printf(q, "{:op :%s :on :%s :as :%s} ", rnd(2) ? "first" : "last", cur, as);
            terminal = true;
            break;
        }
        snprintf(cur, sizeof cur, "%s", as);
    }
    if (terminal)
        qr_buf_printf(q, "] :return {:result :%s}}", cur);
    else
        qr_buf_printf(q, "] :return {:result :%s :n \"{{count:%s}}\"}}", cur, cur);
}

/* -- the reference evaluator -- */

typedef struct env {
    qr_arena *a;
    const char *name[64];
    qr_val val[64];
    bool group[64];
    qr_val gby[64]; /* a group's :by field */
    int n;
} env;

static qr_val kw(qr_arena *a, const char *s)
{
    return qr_kw_cstr(a, s);
}

static qr_val field(qr_val rec, qr_val k)
{
    qr_val v;
    if (rec.t == QR_T_MAP && qr_map_lookup(rec, k, &v))
        return v;
    return qr_nil();
}

static const char *kwname(qr_val k)
{
    size_t n;
    return qr_sym_name(k.sym, &n);
}

static bool is_op(qr_val v, const char *op)
{
    return v.t == QR_T_KW && !strcmp(kwname(v), op);
}

static qr_val ref_expr(qr_arena *a, qr_val e, qr_val x)
{
    if (e.t == QR_T_KW)
        return field(x, e);
    if (e.t != QR_T_VEC)
        return e;
    const char *op = kwname(qr_vec_at(e, 0));
    size_t n = qr_vec_len(e);
    qr_val acc = ref_expr(a, qr_vec_at(e, 1), x);
    if (!qr_is_number(acc))
        return qr_nil();
    if (n == 2 && op[0] == '-')
        return acc.t == QR_T_INT ? qr_int(-acc.i) : qr_double(-acc.d);
    for (size_t i = 2; i < n; i++) {
        qr_val y = ref_expr(a, qr_vec_at(e, i), x);
        if (!qr_is_number(y))
            return qr_nil();
        if (op[0] == '/') {
            if (qr_to_double(y) == 0)
                return qr_nil();
            acc = qr_double(qr_to_double(acc) / qr_to_double(y));
        } else if (acc.t == QR_T_INT && y.t == QR_T_INT) {
            acc = qr_int(op[0] == '+' ? acc.i + y.i : op[0] == '-' ? acc.i - y.i : acc.i * y.i);
        } else {
            double p = qr_to_double(acc), q = qr_to_double(y);
            acc = qr_double(op[0] == '+' ? p + q : op[0] == '-' ? p - q : p * q);
        }
    }
    return acc;
}

static void text_of(qr_val v, qr_buf *b)
{
    if (v.t != QR_T_NIL)
        qr_print(b, v, QR_PRINT_DISPLAY);
}

static bool ref_pred(qr_arena *a, qr_val w, qr_val x)
{
    const char *op = kwname(qr_vec_at(w, 0));
    size_t n = qr_vec_len(w);
    if (!strcmp(op, "and") || !strcmp(op, "or")) {
        bool and = op[0] == 'a';
        for (size_t i = 1; i < n; i++)
            if (ref_pred(a, qr_vec_at(w, i), x) != and)
                return !and;
        return and;
    }
    if (!strcmp(op, "not"))
        return !ref_pred(a, qr_vec_at(w, 1), x);
    qr_val l = ref_expr(a, qr_vec_at(w, 1), x);
    if (!strcmp(op, "exists"))
        return l.t != QR_T_NIL;
    qr_val rv = qr_vec_at(w, 2);
    if (!strcmp(op, "in")) {
        for (size_t i = 0; i < qr_vec_len(rv); i++)
            if (qr_equal(qr_vec_at(rv, i), l))
                return true;
        return false;
    }
    if (!strcmp(op, "contains")) {
        qr_buf t;
        qr_buf_init(&t);
        text_of(l, &t);
        bool r = strstr(t.p ? t.p : "", rv.s->data) != NULL;
        qr_buf_release(&t);
        return r;
    }
    qr_val r = ref_expr(a, rv, x);
    if (!strcmp(op, "="))
        return qr_equal(l, r);
    if (!strcmp(op, "not="))
        return !qr_equal(l, r);
    int c;
    if (qr_is_number(l) && qr_is_number(r)) {
        double p = qr_to_double(l), q = qr_to_double(r);
        c = p < q ? -1 : p > q;
    } else if (l.t == QR_T_STR && r.t == QR_T_STR) {
        int m = strcmp(l.s->data, r.s->data);
        c = m < 0 ? -1 : m > 0;
    } else {
        return false;
    }
    if (!strcmp(op, ">"))
        return c > 0;
    if (!strcmp(op, ">="))
        return c >= 0;
    if (!strcmp(op, "<"))
        return c < 0;
    return c <= 0;
}

static int cmp_vals(qr_val x, qr_val y)
{
    int c = 0;
    if (!qr_compare(x, y, &c))
        abort(); /* the generator sorts only comparable fields */
    return c;
}

static qr_val ref_sort(qr_arena *a, qr_val coll, qr_val keys)
{
    size_t n = qr_vec_len(coll);
    qr_val *v = qr_arena_alloc(a, (n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = qr_vec_at(coll, i);
    for (size_t i = 1; i < n; i++) { /* insertion sort: stable */
        qr_val t = v[i];
        size_t j = i;
        while (j > 0) {
            int c = 0;
            for (size_t k = 0; k < qr_vec_len(keys) && c == 0; k++) {
                qr_val kp = qr_vec_at(keys, k);
                c = cmp_vals(field(v[j - 1], qr_vec_at(kp, 0)), field(t, qr_vec_at(kp, 0)));
                if (is_op(qr_vec_at(kp, 1), "desc"))
                    c = -c;
            }
            if (c <= 0)
                break;
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
    return qr_vec_from(a, QR_T_VEC, v, n);
}

static qr_val ref_agg(qr_val e, qr_val items)
{
    const char *fn = kwname(qr_vec_at(e, 0));
    size_t n = qr_vec_len(items);
    if (qr_vec_len(e) == 1)
        return qr_int((int64_t)n);
    qr_val f = qr_vec_at(e, 1);
    if (!strcmp(fn, "count") || !strcmp(fn, "count-distinct")) {
        int64_t k = 0;
        for (size_t i = 0; i < n; i++) {
            qr_val v = field(qr_vec_at(items, i), f);
            if (v.t == QR_T_NIL)
                continue;
            bool seen = false;
            for (size_t j = 0; j < i && fn[5]; j++)
                seen = seen || qr_equal(field(qr_vec_at(items, j), f), v);
            k += !seen;
        }
        return qr_int(k);
    }
    if (!strcmp(fn, "sum") || !strcmp(fn, "avg")) {
        int64_t si = 0;
        double sd = 0;
        bool dbl = false;
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++) {
            qr_val v = field(qr_vec_at(items, i), f);
            if (v.t == QR_T_INT) {
                if (dbl)
                    sd += (double)v.i;
                else
                    si += v.i;
            } else if (v.t == QR_T_DOUBLE) {
                if (!dbl) {
                    dbl = true;
                    sd = (double)si;
                }
                sd += v.d;
            } else {
                continue;
            }
            cnt++;
        }
        if (fn[0] == 's')
            return dbl ? qr_double(sd) : qr_int(si);
        return cnt ? qr_double((dbl ? sd : (double)si) / (double)cnt) : qr_nil();
    }
    /* min, max: the field of the first item with the smallest (largest) value */
    qr_val best = qr_nil();
    for (size_t i = 0; i < n; i++) {
        qr_val v = field(qr_vec_at(items, i), f);
        if (v.t == QR_T_NIL)
            continue;
        int c = best.t == QR_T_NIL ? 0 : cmp_vals(v, best);
        if (best.t == QR_T_NIL || (fn[1] == 'i' ? c < 0 : c > 0))
            best = v;
    }
    return best;
}

static int env_find(env *e, const char *name)
{
    for (int i = e->n; i-- > 0;)
        if (!strcmp(e->name[i], name))
            return i;
    return -1;
}

static qr_val ref_step(env *e, qr_val st, bool *group, qr_val *gby)
{
    qr_arena *a = e->a;
    qr_val opv, on;
    qr_map_get(st, kw(a, "op"), &opv);
    const char *op = kwname(opv);
    *group = false;
    qr_val in = qr_nil();
    int ii = -1;
    if (qr_map_get(st, kw(a, "on"), &on) && on.t == QR_T_KW) {
        ii = env_find(e, kwname(on));
        in = e->val[ii];
    }
    qr_val arg;
    qr_vecb out;
    qr_vecb_init(&out, a, 8);
    if (!strcmp(op, "filter")) {
        qr_map_get(st, kw(a, "where"), &arg);
        for (size_t i = 0; i < qr_vec_len(in); i++)
            if (ref_pred(a, arg, qr_vec_at(in, i)))
                qr_vecb_push(&out, qr_vec_at(in, i));
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    if (!strcmp(op, "sort")) {
        qr_val by, order;
        qr_map_get(st, kw(a, "by"), &by);
        bool has_order = qr_map_get(st, kw(a, "order"), &order);
        qr_vecb keys;
        qr_vecb_init(&keys, a, 2);
        qr_val items = by.t == QR_T_VEC ? by : qr_vec_from(a, QR_T_VEC, &by, 1);
        for (size_t i = 0; i < qr_vec_len(items); i++) {
            qr_val k = qr_vec_at(items, i);
            qr_val pair[2] = {k, has_order ? order : kw(a, "asc")};
            if (k.t == QR_T_VEC) {
                pair[0] = qr_vec_at(k, 0);
                pair[1] = qr_vec_at(k, 1);
            }
            qr_vecb_push(&keys, qr_vec_from(a, QR_T_VEC, pair, 2));
        }
        return ref_sort(a, in, qr_vecb_finish(&keys, QR_T_VEC));
    }
    if (!strcmp(op, "take") || !strcmp(op, "drop")) {
        qr_map_get(st, kw(a, "n"), &arg);
        size_t n = qr_vec_len(in), k = (size_t)arg.i < n ? (size_t)arg.i : n;
        return op[0] == 't' ? qr_vec_slice(a, in, 0, k) : qr_vec_slice(a, in, k, n);
    }
    if (!strcmp(op, "first") || !strcmp(op, "last")) {
        size_t n = qr_vec_len(in);
        return n ? qr_vec_at(in, op[0] == 'f' ? 0 : n - 1) : qr_nil();
    }
    if (!strcmp(op, "map")) {
        qr_val sel, comp;
        bool has_sel = qr_map_get(st, kw(a, "select"), &sel);
        qr_map_get(st, kw(a, "compute"), &comp);
        for (size_t i = 0; i < qr_vec_len(in); i++) {
            qr_val x = qr_vec_at(in, i), m = has_sel ? qr_map_empty() : x;
            for (size_t j = 0; has_sel && j < qr_vec_len(sel); j++)
                m = qr_map_assoc(a, m, qr_vec_at(sel, j), field(x, qr_vec_at(sel, j)));
            for (size_t j = 0; j < qr_map_len(comp); j++)
                m = qr_map_assoc(a, m, qr_map_key_at(comp, j),
                                 ref_expr(a, qr_map_val_at(comp, j), x));
            qr_vecb_push(&out, m);
        }
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    if (!strcmp(op, "group")) {
        qr_map_get(st, kw(a, "by"), gby);
        *group = true;
        /* a vector of [key items] in first-seen order */
        qr_val keys[64], groups[64];
        size_t ng = 0;
        for (size_t i = 0; i < qr_vec_len(in); i++) {
            qr_val x = qr_vec_at(in, i), k = field(x, *gby);
            size_t g = 0;
            while (g < ng && !qr_equal(keys[g], k))
                g++;
            if (g == ng) {
                keys[ng] = k;
                groups[ng++] = qr_vec_empty(QR_T_VEC);
            }
            groups[g] = qr_vec_conj(a, groups[g], x);
        }
        for (size_t g = 0; g < ng; g++) {
            qr_val pair[2] = {keys[g], groups[g]};
            qr_vecb_push(&out, qr_vec_from(a, QR_T_VEC, pair, 2));
        }
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    if (!strcmp(op, "aggregate")) {
        qr_map_get(st, kw(a, "compute"), &arg);
        if (!e->group[ii]) {
            qr_val m = qr_map_empty();
            for (size_t j = 0; j < qr_map_len(arg); j++)
                m = qr_map_assoc(a, m, qr_map_key_at(arg, j), ref_agg(qr_map_val_at(arg, j), in));
            return m;
        }
        for (size_t g = 0; g < qr_vec_len(in); g++) {
            qr_val pair = qr_vec_at(in, g);
            qr_val m = qr_map_assoc(a, qr_map_empty(), e->gby[ii], qr_vec_at(pair, 0));
            for (size_t j = 0; j < qr_map_len(arg); j++)
                m = qr_map_assoc(a, m, qr_map_key_at(arg, j),
                                 ref_agg(qr_map_val_at(arg, j), qr_vec_at(pair, 1)));
            qr_vecb_push(&out, m);
        }
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    if (!strcmp(op, "join")) {
        qr_val left, right, type;
        qr_map_get(st, kw(a, "left"), &left);
        qr_map_get(st, kw(a, "right"), &right);
        bool inner = qr_map_get(st, kw(a, "type"), &type) && is_op(type, "inner");
        qr_val L = e->val[env_find(e, kwname(left))], R = e->val[env_find(e, kwname(right))];
        qr_val lk = kw(a, "b"), rk = kw(a, "k");
        for (size_t i = 0; i < qr_vec_len(L); i++) {
            qr_val l = qr_vec_at(L, i), k = field(l, lk), match = qr_nil();
            for (size_t j = 0; j < qr_vec_len(R) && k.t != QR_T_NIL && match.t == QR_T_NIL; j++)
                if (qr_equal(field(qr_vec_at(R, j), rk), k))
                    match = qr_vec_at(R, j);
            if (match.t == QR_T_NIL && inner)
                continue;
            for (size_t j = 0; match.t == QR_T_MAP && j < qr_map_len(match); j++)
                l = qr_map_assoc(a, l, qr_map_key_at(match, j), qr_map_val_at(match, j));
            qr_vecb_push(&out, l);
        }
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    if (!strcmp(op, "distinct")) {
        qr_val by;
        bool has_by = qr_map_get(st, kw(a, "by"), &by);
        for (size_t i = 0; i < qr_vec_len(in); i++) {
            qr_val x = qr_vec_at(in, i), k = has_by ? field(x, by) : x;
            bool seen = false;
            for (size_t j = 0; j < out.buf->used && !seen; j++)
                seen = qr_equal(has_by ? field(out.buf->items[j], by) : out.buf->items[j], k);
            if (!seen)
                qr_vecb_push(&out, x);
        }
        return qr_vecb_finish(&out, QR_T_VEC);
    }
    abort();
}

static qr_val ref_eval(qr_arena *a, qr_val query, qr_val data)
{
    env e = {.a = a, .n = 0};
    for (size_t i = 0; i < qr_map_len(data); i++) {
        e.name[e.n] = kwname(qr_map_key_at(data, i));
        e.val[e.n++] = qr_map_val_at(data, i);
    }
    qr_val steps, ret;
    qr_map_get(query, kw(a, "transform"), &steps);
    for (size_t i = 0; i < qr_vec_len(steps); i++) {
        qr_val st = qr_vec_at(steps, i), as;
        bool group;
        qr_val gby = qr_nil();
        qr_val v = ref_step(&e, st, &group, &gby);
        qr_map_get(st, kw(a, "as"), &as);
        e.name[e.n] = kwname(as);
        e.group[e.n] = group;
        e.gby[e.n] = gby;
        e.val[e.n++] = v;
    }
    qr_map_get(query, kw(a, "return"), &ret);
    qr_val r = qr_map_empty(), res;
    qr_map_get(ret, kw(a, "result"), &res);
    qr_val v = e.val[env_find(&e, kwname(res))];
    r = qr_map_assoc(a, r, kw(a, "result"), v);
    if (qr_map_len(ret) == 2)
        r = qr_map_assoc(a, r, kw(a, "n"), qr_int((int64_t)qr_vec_len(v)));
    return r;
}

static void test_property(void)
{
    int failures = 0, ran = 0;
    for (int iter = 0; iter < 3000 && failures < 5; iter++) {
        qr_lisp_session *s = qr_lisp_session_new(NULL);
        qr_arena *sa = qr_lisp_session_arena(s);
        qr_val data = gen_data(sa);
        qr_lisp_set_data(s, data);
        qr_buf qt;
        qr_buf_init(&qt);
        gen_query(&qt);
        qr_query_compiled q;
        int rc = compile(qt.p, data, &q);
        if (rc != QR_OK) {
            qr_buf b;
            qr_buf_init(&b);
            qr_query_problems_text(&q, &b);
            fprintf(stderr, "property: valid query refused:\n%s\n%s", qt.p, b.p ? b.p : "");
            failures++;
            qr_buf_release(&b);
        } else {
            qr_lisp_result res;
            rc = qr_lisp_run(s, q.program, q.program_len, &res);
            qr_arena ra;
            qr_arena_init(&ra, 0);
            qr_val query = read_value(&ra, qt.p);
            qr_val want = ref_eval(&ra, query, data);
            if (rc != QR_OK || !qr_equal(res.value, want)) {
                qr_buf b;
                qr_buf_init(&b);
                qr_print(&b, data, QR_PRINT_READABLY);
                qr_buf_puts(&b, "\n  got:  ");
                qr_print(&b, res.value, QR_PRINT_READABLY);
                qr_buf_puts(&b, "\n  want: ");
                qr_print(&b, want, QR_PRINT_READABLY);
                fprintf(stderr, "property: %s\n  query: %s\n  data: %s\n%s\n", res.message, qt.p,
                        b.p, q.program);
                qr_buf_release(&b);
                failures++;
            }
            ran++;
            qr_arena_release(&ra);
            qr_lisp_result_clear(&res);
        }
        qr_query_compiled_clear(&q);
        qr_buf_release(&qt);
        qr_lisp_session_free(s);
    }
    CHECK(failures == 0);
    CHECK(ran > 2000);
    fprintf(stderr, "property: %d random queries agreed with the reference\n", ran);
}

/* ---- mutation fuzz: any text compiles to a program the interpreter accepts, or to
 * problems; never a crash ---- */

static const char *const seeds[] = {
    "{:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\" :limit 50}}]"
    " :transform [{:op :filter :on :commits :as :large :where [:or [:> :files 5] [:contains "
    ":message \"refactor\"]]} {:op :sort :on :large :as :ranked :by :files :order :desc}"
    " {:op :take :on :ranked :as :top5 :n 5} {:op :drop :on :ranked :as :rest :n 5}]"
    " :return {:findings :top5 :summary \"Found {{count:large}} of {{count:commits}}\" "
    ":metadata {:total \"{{count:commits}}\"}}}",
    "{:fetch [{:tool :get_commits :as :c}] :transform [{:op :group :on :c :as :g :by :author}"
    " {:op :aggregate :on :g :as :s :compute {:n [:count] :f [:sum :files] :a [:avg :files] "
    ":m [:max :date] :d [:count-distinct :email]}} {:op :first :on :s :as :top}]"
    " :return {:top \"{{top:author}}\" :x \"{{first:s:n}}\"}}",
    "{:fetch [{:tool :get_author_stats :as :a}] :transform [{:op :map :on :a :as :m :select "
    "[:author] :compute {:r [:/ :additions [:+ :deletions 1]]}} {:op :join :left :m :right :a "
    ":on :author :as :j :type :inner} {:op :distinct :on :j :as :d :by [:author :email]}]"
    " :return {:d :d :action :done}}",
    "{\"fetch\": [{\"tool\": \"get_file_stats\", \"as\": \"files\", \"params\": {\"limit\": "
    "3}}], \"transform\": [{\"op\": \"filter\", \"on\": \"files\", \"as\": \"hot\", \"where\": "
    "[\"and\", [\">=\", \"commits\", 2], [\"matches\", \"path\", \"\\\\.c$\"], [\"in\", "
    "\"authors\", [1, 2]]]}], \"return\": {\"findings\": \"hot\"}}",
    "{:mode :query :query {:transform [{:op :sort :on :authors :as :ranked :by :count :order "
    ":desc} {:op :first :on :ranked :as :top}] :return {:action :advance :result "
    "{:top_contributor \"{{top:author}}\" :who \"{{resolved:top}}\"}}}}",
};

static int tool_stub(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)ud;
    (void)name;
    (void)args;
    (void)err;
    *out = qr_vec_empty(QR_T_VEC);
    (void)a;
    return QR_OK;
}

static const char *const tokens[] = {
    "{",         "}",        "[",       "]",          ":op",      ":filter",    ":on",
    ":as",       ":where",   ":>",      ":and",       ":files",   "\"{{",       "}}\"",
    "{{count:",  ":commits", ":return", ":transform", ":fetch",   "5",          "-1",
    "nil",       "\"x\"",    ":by",     ":sort",      ":group",   ":aggregate", ":compute",
    "[:count]",  ":join",    ":select", ":map",       ":n",       "1e400",      "\"\\\\\"",
    ":resolved", "#{1 2}",   "(a b)",   "sym",        ":matches", "\"(\"",      ":=",
};

static void test_mutations(void)
{
    qr_arena ca;
    qr_arena_init(&ca, 0);
    qr_val ctx = read_value(&ca, "{:authors [{:author \"a\" :count 3}] :resolved {:top \"a\"}}");
    int valid = 0, invalid = 0;
    for (int iter = 0; iter < 20000; iter++) {
        const char *seed = seeds[rnd(sizeof seeds / sizeof seeds[0])];
        size_t n = strlen(seed);
        char buf[4096];
        memcpy(buf, seed, n + 1);
        int edits = 1 + (int)rnd(4);
        for (int k = 0; k < edits; k++) {
            size_t at = rnd((uint32_t)n + 1);
            switch (rnd(4)) {
            case 0: /* delete a run */
            {
                size_t len = 1 + rnd(8);
                if (at + len > n)
                    len = n - at;
                memmove(buf + at, buf + at + len, n - at - len + 1);
                n -= len;
                break;
            }
            case 1: /* insert a token */
            {
                const char *t = tokens[rnd(sizeof tokens / sizeof tokens[0])];
                size_t tl = strlen(t);
                if (n + tl + 2 >= sizeof buf)
                    break;
                memmove(buf + at + tl + 1, buf + at, n - at + 1);
                memcpy(buf + at, t, tl);
                buf[at + tl] = ' ';
                n += tl + 1;
                break;
            }
            case 2: /* flip a byte */
                if (at < n)
                    buf[at] = (char)(buf[at] ^ (1 << rnd(7)));
                break;
            default: /* duplicate a run */
            {
                size_t len = 1 + rnd(30);
                if (at + len > n)
                    len = n - at;
                if (n + len + 1 >= sizeof buf)
                    break;
                memmove(buf + at + len, buf + at, n - at + 1);
                n += len;
                break;
            }
            }
        }
        qr_query_compiled q;
        int rc = compile(buf, (iter & 1) ? ctx : qr_nil(), &q);
        if (rc == QR_OK) {
            valid++;
            CHECK(q.program && q.nproblems == 0);
            qr_lisp_limits lim;
            qr_lisp_limits_default(&lim);
            lim.timeout_ms = 200;
            qr_lisp_session *s = qr_lisp_session_new(&lim);
            qr_arena *sa = qr_lisp_session_arena(s);
            qr_lisp_set_data(s, read_value(sa, "{:authors [{:author \"a\" :count 3}] "
                                               ":resolved {:top \"a\"}}"));
            qr_lisp_set_tools(s, tool_stub, NULL);
            qr_lisp_result res;
            int r2 = qr_lisp_run(s, q.program, q.program_len, &res);
            if (r2 == QR_EINVAL) { /* the compiler wrote a program the Lisp cannot read */
                fprintf(stderr, "mutation: bad program (%s: %s) for\n%s\n%s\n",
                        qr_lisp_errkind_name(res.kind), res.message, buf, q.program);
                check_failures++;
            }
            qr_lisp_result_clear(&res);
            qr_lisp_session_free(s);
        } else {
            invalid++;
            CHECK(rc == QR_EINVAL && !q.program && q.nproblems > 0);
            for (size_t i = 0; i < q.nproblems; i++)
                CHECK(q.problems[i].message[0] && q.problems[i].expected[0]);
        }
        qr_query_compiled_clear(&q);
    }
    fprintf(stderr, "mutations: %d valid, %d invalid\n", valid, invalid);
    CHECK(valid > 100 && invalid > 100);
    qr_arena_release(&ca);
}

int main(void)
{
    tools = qr_tools_default();
    CHECK(tools != NULL);
    test_seed_programs();
    test_json_form();
    test_bindings();
    test_functions();
    test_issue25_functions();
    test_problems();
    test_cache();
    test_runtime_step();
    test_property();
    test_mutations();
    qr_tools_free(tools);
    CHECK_DONE();
}
