/*
 * test_ask.c: the pieces of `quarry ask` that need no model: reading model replies (fences,
 * prose, EDN, JSON, (return ...)), telling their mode, and the agents' stable prompt
 * prefixes. The whole loop runs against the scripted model server in tests/cli/13_ask.sh.
 */
#include "agents/ask_int.h"
#include "check.h"

#include "quarry/host.h"
#include "quarry/tools.h"

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

static void test_prefix(void)
{
    qr_tools *tools = qr_tools_default();
    CHECK(tools != NULL);
    const char *agents[] = {"architect", "compiler", "fetcher", "evaluator"};
    qr_buf shared;
    qr_buf_init(&shared);
    for (size_t i = 0; i < 4; i++) {
        qr_buf a, b;
        qr_buf_init(&a);
        qr_buf_init(&b);
        size_t sa = 0, sb = 0;
        CHECK(qr_ask_prompt_prefix(tools, agents[i], &a, &sa) == QR_OK);
        CHECK(qr_ask_prompt_prefix(tools, agents[i], &b, &sb) == QR_OK);
        /* byte-identical across calls: what prompt caching needs */
        CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len) && sa == sb);
        /* the shared block comes first and is byte-identical across agents */
        CHECK(sa > 1000 && sa < a.len);
        if (i == 0)
            qr_buf_append(&shared, a.p, sa);
        else
            CHECK(sa == shared.len && !memcmp(a.p, shared.p, sa));
        /* it holds most of each agent's prompt (what a cache can serve) */
        CHECK(sa * 10 >= a.len * 7);
        /* every tool the registry has, by signature with types and allowed values */
        CHECK(strstr(a.p, "- get_commits(since?: string, until?: string, author?: string") !=
              NULL);
        CHECK(strstr(a.p, "merges?: \"include\"|\"exclude\"|\"only\"") != NULL);
        CHECK(strstr(a.p, "first_parent?: boolean") != NULL);
        CHECK(strstr(a.p, "- get_file_history(path: string, ") != NULL);
        /* the DSL reference comes from the op table, and states the window rules */
        CHECK(strstr(a.p, "- :aggregate (") != NULL);
        CHECK(strstr(a.p, "{{resolved:key}}") != NULL);
        CHECK(strstr(a.p, "\"last week\" means the last 7 days") != NULL);
        /* the role follows the shared block */
        CHECK(strstr(a.p + sa, "You are the ") == a.p + sa);
        if (!strcmp(agents[i], "compiler"))
            CHECK(strstr(a.p + sa, "(tool/get_commits") != NULL);
        qr_buf_release(&a);
        qr_buf_release(&b);
    }
    qr_buf_release(&shared);
    qr_buf x;
    qr_buf_init(&x);
    CHECK(qr_ask_prompt_prefix(tools, "nobody", &x, NULL) == QR_EINVAL);
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
