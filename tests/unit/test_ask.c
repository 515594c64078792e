/*
 * test_ask.c: the pieces of `quarry ask` that need no model: reading model replies (fences,
 * prose, EDN, JSON, (return ...)), telling their mode, and the agents' stable prompt
 * prefixes (each role's own: what it omits, what it shares byte for byte). The whole
 * loop runs against the scripted model server in tests/cli/13_ask.sh.
 */
#include "agents/ask_int.h"
#include "check.h"

#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(qr_arena *a, const char *text, qr_val *out, bool *json, qr_buf *err)
{
    qr_buf_reset(err);
    return qr_ask_parse_reply(a, text, strlen(text), out, json, err);
}

static ask_mode mode_of(qr_arena *a, const char *text)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_val v, payload;
    bool json;
    ask_mode m = ASK_MODE_NONE;
    if (parse(a, text, &v, &json, &err) == QR_OK)
        ask_reply_mode(a, v, &m, &payload, &err);
    qr_buf_release(&err);
    return m;
}

static void test_parse(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val v;
    bool json;

    /* a fenced EDN block inside prose */
    CHECK(parse(&a, "Sure.\n```edn\n{:mode :query :query {:fetch []}}\n```\nDone.", &v, &json,
                &err) == QR_OK);
    CHECK(v.t == QR_T_MAP && !json);
    /* bare EDN with trailing prose */
    CHECK(parse(&a, "{:mode :intent :intent \"x\"} and that is all", &v, &json, &err) == QR_OK);
    CHECK(v.t == QR_T_MAP);
    /* JSON */
    CHECK(parse(&a, "```json\n{\"mode\": \"query\", \"query\": {\"fetch\": []}}\n```", &v, &json,
                &err) == QR_OK);
    CHECK(json && v.t == QR_T_MAP);
    /* the seed's (return {...}) form */
    CHECK(parse(&a, "(return {:mode :plan :steps [{:id 1 :goal \"g\" :needs []}]})", &v, &json,
                &err) == QR_OK);
    CHECK(v.t == QR_T_MAP);
    /* braces inside strings do not end the form */
    CHECK(parse(&a, "x {:mode :intent :intent \"a } b\"} y", &v, &json, &err) == QR_OK);
    /* an unclosed fence reads to the end */
    CHECK(parse(&a, "```clojure\n{:mode :intent :intent \"x\"}", &v, &json, &err) == QR_OK);
    /* nothing to read */
    CHECK(parse(&a, "I cannot help with that.", &v, &json, &err) == QR_EINVAL);
    CHECK(err.len > 0);
    CHECK(parse(&a, "{:mode :query :query {:fetch [}", &v, &json, &err) == QR_EINVAL);
    CHECK(strstr(err.p, "does not parse") != NULL);

    qr_buf_release(&err);
    qr_arena_release(&a);
}

static void test_modes(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    CHECK(mode_of(&a, "{:mode :query :query {:fetch []}}") == ASK_MODE_QUERY);
    CHECK(mode_of(&a, "{:query {:fetch []}}") == ASK_MODE_QUERY);
    CHECK(mode_of(&a, "{:fetch [{:tool :get_commits :as :c}]}") == ASK_MODE_QUERY);
    CHECK(mode_of(&a, "{:mode :intent :intent \"do it\"}") == ASK_MODE_INTENT);
    CHECK(mode_of(&a, "{\"mode\": \"intent\", \"intent\": \"do it\"}") == ASK_MODE_INTENT);
    CHECK(mode_of(&a, "{:mode :plan :steps [{:id 1 :goal \"a\" :needs []}]}") == ASK_MODE_PLAN);
    CHECK(mode_of(&a, "{:plan [{:goal \"a\"}]}") == ASK_MODE_PLAN);
    /* malformed */
    CHECK(mode_of(&a, "{:mode :guess}") == ASK_MODE_NONE);
    CHECK(mode_of(&a, "{:mode :intent :intent \"\"}") == ASK_MODE_NONE);
    CHECK(mode_of(&a, "{:mode :plan :steps []}") == ASK_MODE_NONE);
    CHECK(mode_of(&a, "{:mode :plan :steps [{:id 1}]}") == ASK_MODE_NONE);
    CHECK(mode_of(&a, "{:mode :query :query [1 2]}") == ASK_MODE_NONE);
    CHECK(mode_of(&a, "[1 2 3]") == ASK_MODE_NONE);

    qr_buf err;
    qr_buf_init(&err);
    qr_val v, p;
    ask_mode m;
    bool json;
    CHECK(parse(&a, "{:mode :guess}", &v, &json, &err) == QR_OK);
    qr_buf_reset(&err);
    CHECK(ask_reply_mode(&a, v, &m, &p, &err) == QR_EINVAL);
    CHECK(strstr(err.p, "expected :query, :intent or :plan") != NULL);
    qr_buf_release(&err);
    qr_arena_release(&a);
}

static void test_code(void)
{
    qr_buf b;
    qr_buf_init(&b);
    const char *t = "Here:\n```clojure\n(return 1)\n```\n";
    qr_ask_extract_code(t, strlen(t), &b);
    CHECK_STR(b.p, "(return 1)\n");
    qr_buf_reset(&b);
    qr_ask_extract_code("(+ 1 2)", 7, &b);
    CHECK_STR(b.p, "(+ 1 2)");
    qr_buf_release(&b);
}

/* Every builtin of the Lisp table is in the Compiler's list (by its short name under its
 * namespace's heading): the list cannot drift from what runs. */
typedef struct builtin_check {
    const char *prompt;
    size_t missing;
} builtin_check;

static void check_builtin(void *ud, const char *name, const char *args, const char *doc)
{
    (void)args;
    (void)doc;
    builtin_check *c = ud;
    const char *slash = strchr(name, '/');
    const char *base = slash && slash > name && slash[1] ? slash + 1 : name;
    size_t n = strlen(base);
    for (const char *p = c->prompt; (p = strstr(p, base)); p++)
        if ((p[-1] == ' ' || p[-1] == '\n') && (p[n] == ' ' || p[n] == '\n'))
            return;
    c->missing++;
    fprintf(stderr, "not in the Compiler's prompt: %s\n", name);
}

static void prompt_of(const qr_tools *tools, const char *agent, unsigned domains, qr_buf *b,
                      size_t *shared)
{
    qr_buf_init(b);
    CHECK(qr_ask_prompt_prefix(tools, agent, domains, NULL, b, shared) == QR_OK);
    qr_buf c;
    qr_buf_init(&c);
    size_t s2 = 0;
    CHECK(qr_ask_prompt_prefix(tools, agent, domains, NULL, &c, &s2) == QR_OK);
    /* byte-identical across calls: what prompt caching needs */
    CHECK(c.len == b->len && !memcmp(c.p, b->p, c.len) && s2 == *shared);
    qr_buf_release(&c);
}

static void test_prefix(void)
{
    qr_tools *tools = qr_tools_default();
    CHECK(tools != NULL);
    CHECK(qr_ask_question_domains("who contributed most last year") == QR_ASK_HISTORY);
    CHECK(qr_ask_question_domains("largest commits this quarter") == QR_ASK_HISTORY);
    CHECK(qr_ask_question_domains("which files were decoded") == QR_ASK_HISTORY);
    CHECK(qr_ask_question_domains("which Functions call qr_buf_puts") ==
          (QR_ASK_HISTORY | QR_ASK_CODE));
    CHECK(qr_ask_question_domains("who changed the struct layout") & QR_ASK_CODE);
    CHECK(qr_ask_question_domains("history of src/main.c") == (QR_ASK_HISTORY | QR_ASK_FILE));
    CHECK(qr_ask_question_domains("who renamed the parser?") & QR_ASK_FILE);
    CHECK(qr_ask_question_domains("lines changed between v1.0 and v2.0") ==
          (QR_ASK_HISTORY | QR_ASK_RANGE));
    CHECK(qr_ask_question_domains("what changed in v1.2..v1.3") & QR_ASK_RANGE);
    CHECK(qr_ask_question_domains("show the patch of the last commit") ==
          (QR_ASK_HISTORY | QR_ASK_PATCH));
    CHECK(qr_ask_question_domains("commits this week, please") == QR_ASK_HISTORY);
    CHECK(qr_ask_question_domains("who is different from 1.5 people") == QR_ASK_HISTORY);
    /* the tools a domain adds, and only with it */
    {
        qr_buf h, f;
        size_t sh = 0, sf2 = 0;
        prompt_of(tools, "architect", QR_ASK_HISTORY, &h, &sh);
        prompt_of(tools, "architect", QR_ASK_HISTORY | QR_ASK_FILE | QR_ASK_RANGE | QR_ASK_PATCH,
                  &f, &sf2);
        CHECK(strstr(h.p, "get_file_history") == NULL && strstr(h.p, "get_diff_stats") == NULL &&
              strstr(h.p, "get_diff(") == NULL);
        CHECK(strstr(f.p, "- get_file_history(path: string, ") != NULL &&
              strstr(f.p, "- get_diff_stats(") != NULL && strstr(f.p, "- get_diff(") != NULL);
        qr_buf_release(&h);
        qr_buf_release(&f);
    }
    const unsigned doms[] = {QR_ASK_HISTORY | QR_ASK_FILE, QR_ASK_HISTORY | QR_ASK_CODE | QR_ASK_FILE};
    for (size_t d = 0; d < 2; d++) {
        qr_buf arch, comp, fetch, eval;
        size_t sa = 0, sc = 0, sf = 0, se = 0;
        prompt_of(tools, "architect", doms[d], &arch, &sa);
        prompt_of(tools, "compiler", doms[d], &comp, &sc);
        prompt_of(tools, "fetcher", doms[d], &fetch, &sf);
        prompt_of(tools, "evaluator", doms[d], &eval, &se);
        const qr_buf *all[] = {&arch, &comp, &fetch, &eval};
        /* the Architect, Compiler and Fetcher share conventions and tools byte for byte */
        CHECK(sa > 2000 && sa == sc && sa == sf && sa < arch.len && sc < comp.len);
        CHECK(!memcmp(arch.p, comp.p, sa) && !memcmp(arch.p, fetch.p, sa));
        /* the Evaluator shares the conventions, which open every prompt */
        CHECK(se > 700 && se < sa && !memcmp(eval.p, arch.p, se));
        CHECK(strstr(eval.p, "CONVENTIONS") && eval.p + se == strstr(eval.p, "\nQUERY DSL"));
        for (size_t i = 0; i < 4; i++) {
            const char *p = all[i]->p;
            /* no page a model cannot read */
            CHECK(strstr(p, "docs/") == NULL);
            /* the defaults a model would guess */
            CHECK(strstr(p, "are included unless") != NULL); /* merge commits */
            CHECK(strstr(p, "the author date") != NULL);
            CHECK(strstr(p, "author's own UTC offset") || strstr(p, "with the author's offset"));
            CHECK(strstr(p, "committer date") != NULL);
            CHECK(strstr(p, "\"this quarter\" on 1 January, April, July or October") != NULL);
                        CHECK(strstr(p, "counted in the time zone given under TODAY") != NULL);
            CHECK(strstr(p, "\"last week\" is the last 7 days") != NULL);
            /* the code graph's tools only for a question about code */
            CHECK((strstr(p, "query_codebase") != NULL) == (d == 1 && i != 3));
            CHECK((strstr(p, "sparql") != NULL) == (d == 1 && i != 3));
            CHECK(strstr(p, "\nYOUR ROLE\nYou are the ") != NULL);
        }
        /* the tools, by signature with types and allowed values, for those who call them */
        for (size_t i = 0; i < 3; i++) {
            CHECK(strstr(all[i]->p, "WINDOW, the parameters of a history window: since?: "
                                    "string, until?: string,\n  author?: string") != NULL);
            CHECK(strstr(all[i]->p, "- get_commits(grep?: string") != NULL);
            CHECK(strstr(all[i]->p, "- get_author_stats(WINDOW): ") != NULL);
            CHECK(strstr(all[i]->p, "merges?: \"include\"|\"exclude\"|\"only\"") != NULL);
            CHECK(strstr(all[i]->p, "first_parent?: boolean") != NULL);
            CHECK(strstr(all[i]->p, "- get_file_history(path: string, ") != NULL);
        }
        /* the Evaluator has no tools: no tool documentation, no fetches */
        CHECK(strstr(eval.p, "TOOLS") == NULL && strstr(eval.p, "get_author_stats") == NULL);
        CHECK(strstr(eval.p, "returns:") == NULL && strstr(eval.p, "{:fetch") == NULL);
        CHECK(strstr(eval.p, ":tool ") == NULL && strstr(eval.p, "Chaining") == NULL);
        CHECK(strstr(eval.p, "(tool/") == NULL && strstr(eval.p, "PTC-LISP") == NULL);
        CHECK(strstr(eval.p, "3 sample\nrows (not the whole result") != NULL);
        CHECK(strstr(eval.p, "- :aggregate (") != NULL && strstr(eval.p, "{{first:") != NULL);
        CHECK(strstr(eval.p, "[:weekday :date]") != NULL); /* the query module's reference */
        /* the Architect and the Fetcher write the DSL, with fetches and chaining */
        for (size_t i = 0; i < 3; i += 2) {
            CHECK(strstr(all[i]->p, "- :aggregate (") != NULL);
            CHECK(strstr(all[i]->p, "{{resolved:key}}") != NULL);
            CHECK(strstr(all[i]->p, "Chaining:") != NULL);
            CHECK(strstr(all[i]->p, "PTC-LISP") == NULL);
        }
        /* the Architect reads "above" where the DSL is above it */
        const char *above = strstr(arch.p, "one query of the QUERY DSL above");
        CHECK(above != NULL && strstr(arch.p, "\nQUERY DSL") < above);
        CHECK(strstr(arch.p, "DSL below") == NULL);
        CHECK(strstr(arch.p, "3 sample rows, not the\n   whole result") != NULL);
        /* the Compiler writes Lisp, not the DSL: the whole builtin list and the limits */
        CHECK(strstr(comp.p, "QUERY DSL") == NULL && strstr(comp.p, ":op :filter") == NULL);
        CHECK(strstr(comp.p, "(tool/get_commits") != NULL);
        CHECK(strstr(comp.p, "Functions (the whole list: nothing else exists)") != NULL);
        CHECK(strstr(comp.p, " mod ") && strstr(comp.p, " quot ") && strstr(comp.p, " nth "));
        CHECK(strstr(comp.p, "\nstr/: join ") != NULL && strstr(comp.p, "starts-with?") != NULL);
        CHECK(strstr(comp.p, "clojure.string/join") == NULL); /* listed once, short */
        CHECK(strstr(comp.p, "Limits a program cannot catch: 10000 ms of wall time") != NULL);
        CHECK(strstr(comp.p, "64 MiB of memory") != NULL);
        builtin_check bc = {.prompt = comp.p, .missing = 0};
        qr_lisp_each_builtin(check_builtin, &bc);
        CHECK(bc.missing == 0);
        /* the Evaluator, with no tools, has a much shorter prompt than the Architect */
        CHECK(eval.len + 1500 < arch.len);
        for (size_t i = 0; i < 4; i++)
            qr_buf_release((qr_buf *)all[i]);
    }
    /* the program limits the Compiler is told are the question's */
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 2500;
    qr_buf x;
    qr_buf_init(&x);
    CHECK(qr_ask_prompt_prefix(tools, "compiler", 0, &lim, &x, NULL) == QR_OK);
    CHECK(strstr(x.p, "cannot catch: 2500 ms") != NULL);
    qr_buf_reset(&x);
    CHECK(qr_ask_prompt_prefix(tools, "nobody", 0, NULL, &x, NULL) == QR_EINVAL);
    qr_buf_release(&x);
    qr_tools_free(tools);
}

static void test_today(void)
{
    qr_buf b;
    qr_buf_init(&b);
    /* 2026-11-24 01:30 UTC is a Tuesday; in UTC-8 it is still Monday the 23rd */
    qr_ask_prompt_today(1795483800, 0, 1577836800, 1795400000, &b);
    CHECK_STR(b.p, "TODAY: 2026-11-24 (Tuesday), now 01:30, time zone UTC+00:00\n"
                   "REPOSITORY: first commit 2020-01-01, last commit 2026-11-23\n");
    qr_buf_reset(&b);
    qr_ask_prompt_today(1795483800, -480, 0, 0, &b);
    CHECK_STR(b.p, "TODAY: 2026-11-23 (Monday), now 17:30, time zone UTC-08:00\n");
    qr_buf_release(&b);
}

int main(void)
{
    test_parse();
    test_modes();
    test_code();
    test_prefix();
    test_today();
    return check_failures ? 1 : 0;
}
