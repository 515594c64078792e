/*
 * test_flow.c: the workflow language's parser, checker and formatter. Each case is a
 * small file and the diagnostics it must produce (code, line, column, and a substring of
 * the message or help); valid files must produce none; formatting must be idempotent and
 * keep the file's meaning (the formatted file checks the same); bad input of every kind
 * named in issue 17 (tabs mixed with spaces, unterminated strings, deep nesting, other
 * dialects' constructs) yields diagnostics, never a crash.
 */
#include "check.h"
#include "quarry/flow.h"

#include <stdlib.h>

typedef struct want {
    const char *code;
    unsigned line, col;
    const char *text; /* in the message or the help */
} want;

static int diags_of(const char *src, qr_flow_diags *d)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags_init(d);
    int rc = qr_flow_check_text(&a, src, strlen(src), NULL, d);
    qr_arena_release(&a);
    return rc;
}

static void expect_diags(const char *name, const char *src, const want *w, size_t nw)
{
    qr_flow_diags d;
    CHECK(diags_of(src, &d) == QR_OK);
    bool ok = d.n == nw;
    for (size_t i = 0; ok && i < nw; i++) {
        const qr_flow_diag *g = &d.v[i];
        ok = !strcmp(g->code, w[i].code) && g->line == w[i].line && g->col == w[i].col &&
             (strstr(g->message, w[i].text) || (g->help && strstr(g->help, w[i].text)));
    }
    if (!ok) {
        fprintf(stderr, "case '%s': got %zu diagnostic(s), want %zu\n", name, d.n, nw);
        for (size_t i = 0; i < d.n; i++)
            fprintf(stderr, "  %s %u:%u %s | %s\n", d.v[i].code, d.v[i].line, d.v[i].col,
                    d.v[i].message, d.v[i].help ? d.v[i].help : "");
        check_failures++;
    }
    qr_flow_diags_clear(&d);
}

#define EXPECT(name, src, ...)                                                               \
    do {                                                                                     \
        static const want w_[] = {__VA_ARGS__};                                              \
        expect_diags(name, src, w_, sizeof w_ / sizeof w_[0]);                               \
    } while (0)
#define EXPECT_NONE(name, src) expect_diags(name, src, NULL, 0)

static const char *const REVIEW =
    "model main = anthropic/claude-sonnet\n"
    "\n"
    "schema Finding:\n"
    "    file: string\n"
    "    line: int\n"
    "    message: string\n"
    "    confidence: int\n"
    "\n"
    "prompt reviewer_instruction: \"\"\"You review C code. Report findings.\"\"\"\n"
    "prompt review_input expecting Finding[]: \"\"\"Review this change: $change\"\"\"\n"
    "prompt summary_prompt: \"\"\"Summarize: $confident\"\"\"\n"
    "\n"
    "agent reviewer:\n"
    "    tools git\n"
    "    instruction reviewer_instruction\n"
    "    prompt review_input\n"
    "    produces findings\n"
    "\n"
    "flow main:\n"
    "    change = input_prompt\n"
    "    run agent reviewer\n"
    "    confident = filter findings where .confidence >= 80\n"
    "    summary = call llm summary_prompt\n"
    "    return summary\n";

static void test_valid(void)
{
    EXPECT_NONE("spec example", REVIEW);
    EXPECT_NONE("header and soft keywords",
                "streetrace v1\n"
                "prompt p: '''x $on'''\n"
                "agent:\n    instruction p\n    prompt p\n"
                "flow main:\n"
                "    on = 1\n    filter = [1, 2]\n    run = filter + [on]\n"
                "    if not (on == 2) and run contains 1:\n        log \"yes\"\n"
                "    else:\n        log \"no\"\n"
                "    for x in run do\n        push x to out\n    end\n"
                "    parallel do\n        a = run agent main with out\n        run agent main\n    end\n"
                "    obj = { k: [1, 2.5, -3], \"s\": null }\n"
                "    obj.k = len(out) * 2 % 3\n"
                "    return obj\n");
    EXPECT_NONE("split prompt declaration",
                "schema S:\n    a: string?\n    b: list[S]\n"
                "prompt p expecting S using model \"main\"\n"
                "prompt p: \"\"\"hi\"\"\"\n"
                "flow main:\n    x = call llm p with input_prompt\n    return x\n");
    EXPECT_NONE("tools and model block",
                "model fast:\n    provider: openai\n    name: gpt-4o-mini\n"
                "tool gh = mcp \"https://example.com/mcp\" with auth bearer \"${env:TOKEN}\"\n"
                "tool g = builtin quarry.git\n"
                "prompt i: \"\"\"x\"\"\"\n"
                "agent a:\n    tools gh, g, memory\n    instruction i\n    description \"d\"\n"
                "flow main:\n    return run agent a with \"go\"\n");
}

static void test_errors(void)
{
    EXPECT("E0001 agent with suggestion",
           "prompt i: \"\"\"x\"\"\"\nagent reviewer:\n    instruction i\n    prompt i\n"
           "flow main:\n    run agent reviwer\n",
           {"E0001", 6, 15, "did you mean 'reviewer'?"});
    EXPECT("E0001 flow that is an agent",
           "prompt i: \"\"\"x\"\"\"\nagent reviewer:\n    instruction i\n    prompt i\n"
           "flow main:\n    run reviewer\n",
           {"E0001", 6, 9, "write 'run agent reviewer'"});
    EXPECT("E0001 tool, prompt, schema, model",
           "prompt i expecting Findng using model \"fast\": \"\"\"x\"\"\"\n"
           "schema Finding:\n    a: Findig\n"
           "agent a:\n    tools gti\n    instruction j\n",
           {"E0001", 1, 20, "undefined schema 'Findng'"},
           {"E0001", 1, 39, "undefined model 'fast'"},
           {"E0001", 3, 8, "did you mean 'Finding'?"},
           {"E0001", 5, 11, "did you mean 'git'?"},
           {"E0001", 6, 17, "undefined prompt 'j'"});
    EXPECT("E0002 never assigned",
           "flow main:\n    findings = 1\n    x = findngs + 1\n",
           {"E0002", 3, 9, "did you mean 'findings'?"});
}

static void test_errors2(void)
{
    EXPECT("E0003 duplicates",
           "prompt i: \"\"\"x\"\"\"\nprompt i: \"\"\"y\"\"\"\n"
           "flow main:\n    x = 1\nflow main:\n    y = 2\n",
           {"E0003", 2, 8, "duplicate definition of prompt 'i'"},
           {"E0003", 5, 6, "duplicate definition of flow 'main'"});
    EXPECT("E0007 syntax, several at once",
           "flow main:\n    x = 1 +\n    y = 2\n    z = ]\n    w = (1 +\n    v = 2\n",
           {"E0007", 2, 12, "expected an expression"},
           {"E0007", 4, 9, "expected an expression"},
           {"E0007", 6, 7, "expected ')'"});
    EXPECT("E0007 unsupported constructs",
           "match x:\n    y\nflow main:\n    on start do\n        log 1\n    end\n"
           "    loop:\n        log 2\n    x = 1\n",
           {"E0007", 1, 1, "unsupported construct 'match'"},
           {"E0007", 4, 5, "unsupported construct 'on'"},
           {"E0007", 7, 5, "unsupported construct 'loop'"});
    EXPECT("E0007 unterminated triple string",
           "prompt p: \"\"\"never closed\nflow main:\n    x = 1\n",
           {"E0007", 1, 11, "unterminated string"});
    EXPECT("E0007 unterminated string",
           "flow main:\n    x = \"abc\n    y = 1\n",
           {"E0007", 2, 9, "unterminated string"});
    EXPECT("E0007 flow parameters",
           "flow main $a:\n    x = 1\n",
           {"E0007", 1, 11, "flows take no parameters"});
    EXPECT("E0008 tabs and spaces mixed",
           "flow main:\n    x = 1\n\ty = 2\n",
           {"E0008", 3, 1, "indented with tabs"});
    EXPECT("E0008 both in one line",
           "flow main:\n \tx = 1\n",
           {"E0008", 2, 1, "tabs and spaces mixed"});
    EXPECT("E0008 dedent to no level",
           "flow main:\n    if x:\n        y = 1\n      z = 2\n",
           {"E0008", 4, 1, "matches no enclosing block"});
    EXPECT("E0010 agent without instruction",
           "prompt p: \"\"\"x\"\"\"\nagent a:\n    prompt p\n",
           {"E0010", 2, 7, "agent 'a' has no 'instruction'"});
    EXPECT("E0010 run agent without prompt nor with",
           "prompt p: \"\"\"x\"\"\"\nagent a:\n    instruction p\nflow main:\n    run agent a\n",
           {"E0010", 5, 15, "needs 'with'"});
    EXPECT("E0011 cycle and self",
           "prompt p: \"\"\"x\"\"\"\n"
           "agent a:\n    instruction p\n    delegate b\n"
           "agent b:\n    instruction p\n    use a\n"
           "agent c:\n    instruction p\n    use c\n",
           {"E0011", 7, 9, "a -> b -> a"},
           {"E0011", 10, 9, "c -> c"});
    EXPECT("E0013 declared only",
           "prompt p expecting S\nschema S:\n    a: int\n",
           {"E0013", 1, 8, "prompt 'p' is declared but has no body"});
    EXPECT("E0014 conflicting modifiers",
           "schema S:\n    a: int\nschema T:\n    b: int\n"
           "prompt p expecting S\nprompt p expecting T[]: \"\"\"x\"\"\"\n",
           {"E0014", 6, 10, "'expecting S' and 'expecting T[]'"});
    EXPECT("E0015 undefined variable in a prompt",
           "prompt p: \"\"\"a $known and\n  ${unknwn.field} $$notvar\"\"\"\n"
           "flow main:\n    known = 1\n    unknown = 2\n    x = call llm p\n",
           {"E0015", 2, 3, "did you mean 'unknown'?"});
    EXPECT("W0002 delegate and use",
           "prompt p: \"\"\"x\"\"\"\n"
           "agent a:\n    instruction p\n    delegate b\n    use b\n"
           "agent b:\n    instruction p\n",
           {"W0002", 5, 5, "both 'delegate' and 'use'"});
    EXPECT("W0004 unknown builtin tool set",
           "tool cli = builtin streetrace.cli\ntool g = builtin quarry.git\n"
           "tool fs = builtin streetrace.fs\ntool f = builtin quarry.files\n",
           {"W0004", 1, 6, "unknown builtin tool set 'streetrace.cli'"});
    EXPECT("W0003 agent runs before its variable is set",
           "prompt i: \"\"\"x\"\"\"\nprompt rp: \"\"\"Review $change\"\"\"\n"
           "agent r:\n    instruction i\n    prompt rp\n    produces out\n"
           "flow main:\n    run agent r\n    change = input_prompt\n    return out\n",
           {"W0003", 8, 15, "first set at line 9"});
    EXPECT("W0003 not in parallel siblings",
           "prompt i: \"\"\"x\"\"\"\nprompt rp: \"\"\"Review $a1\"\"\"\n"
           "agent r:\n    instruction i\n    prompt rp\n"
           "flow main:\n    parallel do\n        a1 = run agent r with \"x\"\n"
           "        a2 = run agent r\n    end\n",
           {"W0003", 9, 24, "agent 'r' runs before 'a1'"});
}

static void test_flat_namespace(void)
{
    /* assigned in a flow that runs later: the namespace is flat, no E0002 */
    EXPECT_NONE("flat", "flow a:\n    y = x\nflow main:\n    x = 1\n    run a\n");
}

/* fmt(src) == expected, and fmt(expected) == expected */
static void expect_fmt(const char *src, const char *expected)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *in = pass ? expected : src;
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_flow_diags d;
        qr_flow_diags_init(&d);
        qr_flow_file *f = NULL;
        CHECK(qr_flow_parse(&a, in, strlen(in), &f, &d) == QR_OK);
        CHECK(d.errors == 0);
        qr_buf out;
        qr_buf_init(&out);
        CHECK(qr_flow_format(f, &out) == QR_OK);
        CHECK_STR(out.p ? out.p : "", expected);
        qr_buf_release(&out);
        qr_flow_diags_clear(&d);
        qr_arena_release(&a);
    }
}

static void test_fmt(void)
{
    expect_fmt(REVIEW, REVIEW);
    expect_fmt("model  m=openai/gpt-4o   # fast\nflow main:\n  $x=1+2*(3-1)   # x\n"
               "  # about y\n\n\n  y = {a:1,\"b\":[1,2]}\n  if x>1:\n    log x\n  for i in [1] do\n"
               "      push i to ys\n  end\n# end\n",
               "model m = openai/gpt-4o  # fast\n\nflow main:\n    x = 1 + 2 * (3 - 1)  # x\n"
               "    # about y\n\n    y = { a: 1, \"b\": [1, 2] }\n    if x > 1:\n        log x\n"
               "    for i in [1] do\n        push i to ys\n    end\n\n# end\n");
    expect_fmt("schema S:\n  a: S[]\n  b: str?\nprompt p:\n    \"\"\"body\n  kept  \"\"\"\n",
               "schema S:\n    a: list[S]\n    b: string?\n\nprompt p: \"\"\"body\n  kept  \"\"\"\n");
}

static void test_render(void)
{
    const char *src = "prompt i: \"\"\"x\"\"\"\nagent reviewer:\n    instruction i\n    prompt i\n"
                      "flow main:\n    run agent reviwer\n";
    qr_flow_diags d;
    diags_of(src, &d);
    qr_buf out;
    qr_buf_init(&out);
    qr_flow_diags_render(&d, "review.flow", src, strlen(src), false, &out);
    CHECK_STR(out.p, "error[E0001]: undefined agent 'reviwer'\n"
                     " --> review.flow:6:15\n"
                     "  |\n"
                     "6 |     run agent reviwer\n"
                     "  |               ^^^^^^^\n"
                     "  = help: did you mean 'reviewer'?\n\n");
    qr_buf_reset(&out);
    qr_flow_diags_json(&d, "review.flow", false, &out);
    CHECK_STR(out.p, "{\"file\":\"review.flow\",\"valid\":false,\"diagnostics\":[{\"severity\":"
                     "\"error\",\"code\":\"E0001\",\"message\":\"undefined agent 'reviwer'\","
                     "\"line\":6,\"column\":15,\"length\":7,\"help\":\"did you mean "
                     "'reviewer'?\"}]}");
    qr_buf_release(&out);
    qr_flow_diags_clear(&d);
}

static void test_bad_input(void)
{
    /* none of these may crash; each yields at least one error */
    static const char *const bad[] = {
        "\"\"\"", "'''", "flow", "flow main:", "flow main:\n    x =", "agent", "agent:\n",
        "prompt", "prompt p:", "schema S:\n    a: list[", "model m =", "tool t = mcp",
        "flow main:\n    for x in y do\n        log x\n", "\xff\xfe", "flow main:\n    x = $",
        "flow main:\n    x = filter", "flow main:\n    run agent", "flow main:\n    call llm",
        "flow main:\n\tx = 1\n    y = 2\n", "flow main:\n    x = {a: }", "policy p:\n    x\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        qr_flow_diags d;
        CHECK(diags_of(bad[i], &d) == QR_OK);
        if (!d.errors)
            fprintf(stderr, "no error for bad input %zu\n", i), check_failures++;
        qr_flow_diags_clear(&d);
    }
    /* deep nesting: expressions and blocks */
    size_t n = 20000;
    char *deep = malloc(n * 2 + 64);
    strcpy(deep, "flow main:\n    x = ");
    size_t k = strlen(deep);
    for (size_t i = 0; i < n; i++)
        deep[k++] = '[';
    deep[k] = 0;
    qr_flow_diags d;
    CHECK(diags_of(deep, &d) == QR_OK);
    CHECK(d.errors > 0);
    CHECK(d.n && strstr(d.v[0].message, "nesting too deep"));
    qr_flow_diags_clear(&d);
    free(deep);
    /* many errors: capped */
    qr_buf b;
    qr_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        qr_buf_puts(&b, "oops\n");
    CHECK(diags_of(b.p, &d) == QR_OK);
    CHECK(d.n == QR_FLOW_MAX_DIAGS + 1 && d.truncated);
    qr_flow_diags_clear(&d);
    qr_buf_release(&b);
}

/* Issue 24: StreetRace's files and the messages that misled. */
static void test_issue24(void)
{
    EXPECT_NONE("version line after comments and blank lines",
                "# A workflow\n# by someone\n\nstreetrace v1\n\nmodel main = anthropic/x\n");
    EXPECT("version line after a declaration is not one",
           "model main = anthropic/x\nstreetrace v1\n",
           {"E0007", 2, 1, "expected a declaration, found 'streetrace'"});
    EXPECT("model without a provider: the message names the value",
           "model main = live\n",
           {"E0007", 1, 14, "expected PROVIDER/MODEL after '=', found 'live'"});
    EXPECT("parallel: says 'do'",
           "flow main:\n    parallel:\n        x = 1\n    return 1\n",
           {"E0007", 2, 13, "expected 'do' after 'parallel', found ':'"});
    EXPECT("run agent with no name",
           "flow main:\n    run agent\n    x = run agent with 1\n",
           {"E0007", 2, 14, "expected an agent name after 'run agent'"},
           {"E0007", 3, 19, "expected an agent name after 'run agent'"});
    EXPECT("tools without commas: the hint",
           "prompt i: \"\"\"x\"\"\"\nagent a:\n    tools git repo\n    instruction i\n",
           {"E0007", 3, 15, "separate the names with commas: 'tools git, repo'"});
    EXPECT_NONE("tools: one tool of an MCP server, and a list",
                "tool repo = mcp \"stdio:quarry mcp\"\nprompt i: \"\"\"x\"\"\"\n"
                "agent a:\n    tools repo.dwim, repo.get_commits, quarry.git, files\n"
                "    instruction i\n");
    EXPECT("tools: the set of a subset must be defined",
           "prompt i: \"\"\"x\"\"\"\nagent a:\n    tools rpeo.dwim\n    instruction i\n",
           {"E0001", 3, 11, "undefined tool 'rpeo'"});
    EXPECT("other dialects' constructs named, their blocks skipped",
           "timeout t = 5 minutes\nafter output do\n    log 1\nend\n"
           "prompt i: \"\"\"x\"\"\"\n    escalate if ~\"NO\"\n"
           "agent a:\n    instruction i\n    retry r\n    history h\n    on input do\n"
           "        mask pii\n    end\n"
           "flow main:\n    push x as user to h\n    y = initial user prompt\n"
           "    z = run agent a with 1 history h\n    match y\n        when \"a\" -> log 1\n"
           "    end\n    return 1\n",
           {"E0007", 1, 1, "unsupported construct 'timeout'"},
           {"E0007", 2, 1, "unsupported construct 'after'"},
           {"E0007", 6, 5, "unsupported construct 'escalate'"},
           {"E0007", 9, 5, "unsupported construct 'retry'"},
           {"E0007", 10, 5, "unsupported construct 'history'"},
           {"E0007", 11, 5, "unsupported construct 'on'"},
           {"E0007", 15, 12, "unsupported construct 'push ... as ROLE'"},
           {"E0007", 16, 9, "unsupported construct 'initial user prompt'"},
           {"E0007", 17, 28, "unsupported construct 'history'"},
           {"E0007", 18, 5, "unsupported construct 'match'"});
    /* E0016: a field the schema does not have (one place knows the fields: infer.c) */
    static const char *const schemas =
        "schema Loc:\n    file: string\n    line: int\n"
        "schema Finding:\n    loc: Loc\n    message: string\n    confidence: int\n"
        "prompt find expecting Finding[]: \"\"\"f\"\"\"\n"
        "prompt one expecting Finding: \"\"\"o\"\"\"\n"
        "prompt rp: \"\"\"r\"\"\"\n"
        "agent a:\n    instruction rp\n    prompt one\n    produces made\n";
    char src[2048];
    snprintf(src, sizeof src, "%s%s", schemas,
             "flow main:\n    fs = call llm find\n    x = call llm one\n"
             "    sure = filter fs where .confidence > 1 and .loc.fle != \"\"\n"
             "    log x.mesage\n    log x.loc.lien\n    for f in sure do\n"
             "        log f.confidance\n    end\n    run agent a\n    log made.los\n"
             "    return x.loc.file + x.message\n");
    EXPECT("E0016 field typos on schema-typed values", src,
           {"E0016", 18, 52, "schema 'Loc' has no field 'fle'"},
           {"E0016", 19, 11, "did you mean 'message'?"},
           {"E0016", 20, 15, "did you mean 'line'?"},
           {"E0016", 22, 15, "did you mean 'confidence'?"},
           {"E0016", 25, 14, "schema 'Finding' has no field 'los'"});
    snprintf(src, sizeof src, "%s%s", schemas,
             "flow main:\n    x = call llm one\n    y = { anything: 1 }\n"
             "    log y.anything + y.other\n    z = call llm one\n    z = { other: 2 }\n"
             "    log z.other\n    w = x.loc\n    log w.file\n    return x.confidence\n");
    EXPECT_NONE("E0016: unknown shapes and variables set twice are not judged", src);
    expect_fmt("# about\n\nstreetrace v1\n\nmodel main = anthropic/x\n",
               "# about\n\nstreetrace v1\n\nmodel main = anthropic/x\n");
}

int main(void)
{
    test_valid();
    test_errors();
    test_errors2();
    test_flat_namespace();
    test_fmt();
    test_render();
    test_bad_input();
    test_issue24();
    CHECK_DONE();
}
