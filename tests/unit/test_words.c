/*
 * test_words.c: the plain-words reader (src/words): chatter off both ends of a question,
 * the keyboard- and length-aware typo measure, the lexicon's exact / typo / ambiguous
 * answers (also over the real tool registry), key=value terms, numbers and ordinals.
 */
#include "check.h"

#include "quarry/words.h"

#include <stdint.h>
#include <string.h>

static const char *norm(const char *s)
{
    static char out[512];
    qr_words_normalize(s, strlen(s), out, sizeof out);
    return out;
}

static int dummy(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)err;
    (void)ctx;
    (void)req;
    (void)args;
    (void)a;
    (void)out;
    return QR_OK;
}

int main(void)
{
    /* ---- normalizer ---- */
    /* a remark after the question's '?', and an opening of what the asker is doing */
    CHECK_STR(norm("who calls f? just the function names is fine"), "who calls f?");
    CHECK_STR(norm("what changed in ed0fe56? I'm trying to review it"),
              "what changed in ed0fe56?");
    CHECK_STR(norm("who calls f? only in src/"), "who calls f? only in src/");
    CHECK_STR(norm("im new to janet -- what code invokes f?"), "what code invokes f?");
    CHECK_STR(norm("hey, sorry to bother you, but who last changed src/util.c?"),
              "who last changed src/util.c?");
    CHECK_STR(norm("quick question: how many commits did Hana make in 2025?"),
              "how many commits did Hana make in 2025?");
    CHECK_STR(norm("I was wondering, who is the most active contributor this year?"),
              "who is the most active contributor this year?");
    CHECK_STR(norm("ok so um, list the merges from 2025 pls"), "list the merges from 2025");
    /* a hedge clause runs to its "but" or comma, and goes with it */
    CHECK_STR(norm("sorry if this is a dumb question but who created the Makefile?"),
              "who created the Makefile?");
    CHECK_STR(norm("hi, sorry if this is a dumb question but who created the Makefile?"),
              "who created the Makefile?");
    CHECK_STR(norm("this might be obvious, but how many commits last week"),
              "how many commits last week");
    CHECK_STR(norm("not sure if this is the right place but who changed src/main.c"),
              "who changed src/main.c");
    /* no end to the clause within a dozen words, or a quote in it: the line stays */
    CHECK_STR(norm("sorry if \"x\" but y"), "if \"x\" but y");
    CHECK_STR(norm("dumb question"), "dumb question");
    CHECK_STR(norm("thx in advance - how many distinct authors touched lib/ ever?"),
              "how many distinct authors touched lib/ ever?");
    CHECK_STR(norm("hey there, can you show me the history of lib/hash.c please"),
              "show me the history of lib/hash.c");
    CHECK_STR(norm("Please, I need the last 4 commits by Hana Sato asap"),
              "the last 4 commits by Hana Sato");
    CHECK_STR(norm("  commits \t by   \xe2\x80\x9c" "bob" "\xe2\x80\x9d  "), "commits by \"bob\"");
    /* what carries meaning stays: a line that is only chatter, words inside quotes */
    CHECK_STR(norm("thanks"), "thanks");
    CHECK_STR(norm("please"), "please");
    CHECK_STR(norm("so what"), "what");
    CHECK_STR(norm("\"hey\" in messages"), "\"hey\" in messages");
    CHECK_STR(norm("hello world commits"), "world commits");
    CHECK_STR(norm("who calls okay_func"), "who calls okay_func");
    /* politeness misspelt by one slip goes too; a word two slips away stays */
    CHECK_STR(norm("pleaes list the 3 most recent commits to docs/"),
              "list the 3 most recent commits to docs/");
    CHECK_STR(norm("thansk, who changed src/a.c"), "who changed src/a.c");
    CHECK_STR(norm("helps who changed src/a.c"), "helps who changed src/a.c");
    CHECK_STR(norm("sorts commits by size"), "sorts commits by size");
    CHECK(qr_words_is_chatter("pls") && !qr_words_is_chatter("commits"));
    char tiny[4];
    CHECK(qr_words_normalize("abcdef", 6, tiny, sizeof tiny) == 3 && strcmp(tiny, "abc") == 0);

    /* ---- typos ---- */
    CHECK(qr_words_cost("view", 4, "view", 4) == 0);
    CHECK(qr_words_cost("VIEW", 4, "view", 4) == 0);
    CHECK(qr_words_cost("vuew", 4, "view", 4) == 1); /* u next to i */
    CHECK(qr_words_cost("vpew", 4, "view", 4) == 2); /* p is not next to i */
    CHECK(qr_words_cost("vew", 3, "view", 4) == 2);
    CHECK(qr_words_cost("veiw", 4, "view", 4) == 1); /* a swap is one edit */
    CHECK(qr_words_cost("a", 1, "b", 1) == qr_words_cost("b", 1, "a", 1));
    char big[QR_WORDS_MAX + 3];
    memset(big, 'a', QR_WORDS_MAX + 1);
    big[QR_WORDS_MAX + 1] = '\0';
    CHECK(qr_words_cost(big, QR_WORDS_MAX + 1, "a", 1) == SIZE_MAX);
    CHECK(qr_words_typo("skeltn", 6, "skeleton", 8));
    CHECK(qr_words_typo("qury", 4, "query", 5));
    CHECK(qr_words_typo("vew", 3, "view", 4));
    CHECK(qr_words_typo("auther", 6, "author", 6));
    CHECK(!qr_words_typo("top", 3, "tip", 3));     /* short words are exact */
    CHECK(qr_words_typo("fxi", 3, "fix", 3));      /* the last two swapped */
    CHECK(!qr_words_typo("xfi", 3, "fix", 3));     /* not the first */
    CHECK(qr_words_cost("qs", 2, "qa", 2) == 1 && qr_words_cost("qd", 2, "qs", 2) == 1);
    CHECK(qr_words_cost("q", 1, "s", 1) == 2 && qr_words_cost("p", 1, "a", 1) == 2);
    CHECK(!qr_words_typo("2024", 4, "2025", 4));   /* numbers are never typos */
    CHECK(!qr_words_typo("pkeletoq", 8, "skeleton", 8)); /* a first letter changed costs more */
    CHECK(!qr_words_typo("commit", 6, "expand", 6));
    CHECK(qr_words_allowed(3) == 0 && qr_words_allowed(5) == 2 && qr_words_allowed(9) == 4);

    /* ---- the lexicon ---- */
    qr_lex *lex = qr_lex_new();
    CHECK(lex != NULL);
    static const char *const SKEL[] = {"skeleton", "outline", "skel", NULL};
    static const char *const VIEW[] = {"view", "read", "cat", NULL};
    CHECK(qr_lex_add_list(lex, SKEL, 1) == QR_OK);
    CHECK(qr_lex_add_list(lex, VIEW, 2) == QR_OK);
    CHECK(qr_lex_add(lex, "", 3) == QR_EINVAL);
    CHECK(qr_lex_add(lex, "x", -1) == QR_EINVAL);
    CHECK(qr_lex_add(lex, big, 3) == QR_EINVAL);
    CHECK(qr_lex_add(lex, "Outline", 1) == QR_OK); /* already there, folded */
    CHECK(qr_lex_count(lex) == 6);
    qr_lex_hit h = qr_lex_find(lex, "SKELETON", 8);
    CHECK(h.id == 1 && h.cost == 0);
    h = qr_lex_find(lex, "skeltn", 6);
    CHECK(h.id == 1 && h.cost > 0 && strcmp(h.word, "skeleton") == 0);
    h = qr_lex_find(lex, "vew", 3);
    CHECK(h.id == 2);
    h = qr_lex_find(lex, "outlin", 6);
    CHECK(h.id == 1);
    h = qr_lex_find(lex, "commit", 6);
    CHECK(h.id == QR_LEX_NONE);
    h = qr_lex_find(lex, "ca", 2);
    CHECK(h.id == QR_LEX_NONE);
    /* one word, two meanings: said so */
    CHECK(qr_lex_add(lex, "show", 1) == QR_OK && qr_lex_add(lex, "show", 2) == QR_OK);
    h = qr_lex_find(lex, "show", 4);
    CHECK(h.id == QR_LEX_AMBIGUOUS && h.other >= 1);
    /* two entries at the same typo cost with different ids: ambiguous, not a guess */
    CHECK(qr_lex_add(lex, "parse", 4) == QR_OK && qr_lex_add(lex, "parte", 5) == QR_OK);
    h = qr_lex_find(lex, "parqe", 5);
    CHECK(h.id == QR_LEX_AMBIGUOUS);
    qr_lex_free(lex);
    qr_lex_free(NULL);

    /* the tool registry's words */
    static const char *const FMT[] = {"edn", "json", NULL};
    qr_tool_param P[3];
    memset(P, 0, sizeof P);
    P[0].name = "limit";
    P[0].type = QR_TOOL_INTEGER;
    P[0].desc = "rows";
    P[1].name = "format";
    P[1].type = QR_TOOL_STRING;
    P[1].desc = "f";
    P[1].enum_values = FMT;
    qr_tool t = {0};
    t.name = "search_codebase";
    t.summary = "search the code";
    t.params = P;
    t.handler = dummy;
    qr_tools *r = qr_tools_new();
    CHECK(r && qr_tools_add(r, &t) == QR_OK);
    lex = qr_lex_new();
    CHECK(qr_lex_add_tools(lex, r, 100) == QR_OK);
    CHECK(qr_lex_find(lex, "search_codebase", 15).id == 100);
    CHECK(qr_lex_find(lex, "codebse", 7).id == 100);
    CHECK(qr_lex_find(lex, "limit", 5).id == 100);
    CHECK(qr_lex_find(lex, "json", 4).id == 100);
    CHECK(qr_lex_find(lex, "commits", 7).id == QR_LEX_NONE);
    qr_lex_free(lex);
    qr_tools_free(r);

    /* ---- recognizers ---- */
    char k[32], v[64];
    CHECK(qr_words_kv("limit=5", 7, k, sizeof k, v, sizeof v) && !strcmp(k, "limit") &&
          !strcmp(v, "5"));
    CHECK(qr_words_kv("--author=Hana", 13, k, sizeof k, v, sizeof v) && !strcmp(k, "author") &&
          !strcmp(v, "Hana"));
    CHECK(qr_words_kv("since:14d", 9, k, sizeof k, v, sizeof v) && !strcmp(v, "14d"));
    CHECK(qr_words_kv("name='die'", 10, k, sizeof k, v, sizeof v) && !strcmp(v, "die"));
    CHECK(!qr_words_kv("http://x", 8, k, sizeof k, v, sizeof v));
    CHECK(!qr_words_kv("a/b=c", 5, k, sizeof k, v, sizeof v));
    CHECK(!qr_words_kv("=5", 2, k, sizeof k, v, sizeof v));
    CHECK(!qr_words_kv("limit=", 6, k, sizeof k, v, sizeof v));
    CHECK(!qr_words_kv("limit=5", 7, k, 3, v, sizeof v));
    CHECK(qr_words_number("7", 1) == 7 && qr_words_number("seven", 5) == 7 &&
          qr_words_number("Twelve", 6) == 12 && qr_words_number("dozen", 5) == 12);
    CHECK(qr_words_number("many", 4) == -1 && qr_words_number("99999999", 8) == -1 &&
          qr_words_number("", 0) == -1);
    CHECK(qr_words_ordinal("second", 6) == 2 && qr_words_ordinal("3rd", 3) == 3 &&
          qr_words_ordinal("21st", 4) == 21 && qr_words_ordinal("First", 5) == 1);
    CHECK(qr_words_ordinal("3", 1) == 0 && qr_words_ordinal("3xx", 3) == 0 &&
          qr_words_ordinal("secnd", 5) == 0 && qr_words_ordinal("0th", 3) == 0);
    CHECK_DONE();
}
