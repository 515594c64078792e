/*
 * test_tools.c: unit tests for the tool registry with tools defined here (the product
 * registry is empty until the git tools land): record checks at registration, argument
 * validation and its messages, defaults and normalization, capabilities that can only be
 * cleared, every export format parsed back and checked for shape, command-line flags,
 * calls from a Lisp session (no output cap there), and the output cap and table.
 */
#include "check.h"
#include "quarry/lisp.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdlib.h>

/* ---- the test tools ---- */

static int count_int(qr_val v, int64_t *sum)
{
    for (size_t i = 0; i < qr_vec_len(v); i++)
        *sum += qr_vec_at(v, i).i;
    return QR_OK;
}

static qr_val arg(qr_arena *a, qr_val args, const char *name)
{
    qr_val v;
    return qr_map_get(args, qr_kw_cstr(a, name), &v) ? v : qr_nil();
}

static int sum_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)ctx;
    (void)err;
    int64_t total = arg(a, args, "start").i;
    count_int(arg(a, args, "numbers"), &total);
    qr_val scale = arg(a, args, "scale");
    *out = qr_is_nil(scale) ? qr_int(total) : qr_double((double)total * qr_to_double(scale));
    return QR_OK;
}

/* returns the normalized arguments it was given, and the context */
static int echo_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)err;
    *out = ctx ? qr_map_assoc(a, args, qr_kw_cstr(a, "ctx"), qr_str_cstr(a, ctx)) : args;
    return QR_OK;
}

static int fail_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)ctx;
    (void)args;
    (void)a;
    (void)out;
    qr_buf_puts(err, "the repository is locked");
    return QR_ERUNTIME;
}

static int rows_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)ctx;
    (void)err;
    int64_t n = arg(a, args, "n").i;
    qr_vecb vb;
    qr_vecb_init(&vb, a, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        qr_mapb m;
        qr_mapb_init(&m, a, 2);
        qr_mapb_put(&m, qr_kw_cstr(a, "i"), qr_int(i));
        qr_mapb_put(&m, qr_kw_cstr(a, "name"), qr_str_cstr(a, i % 2 ? "odd" : "even"));
        qr_vecb_push(&vb, qr_mapb_finish(&m, QR_T_MAP));
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return QR_OK;
}

static const char *const modes[] = {"fast", "exact", NULL};
static const char *const colors[] = {"red", "green", "blue", NULL};

static const qr_tool_param sum_params[] = {
    {.name = "numbers",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_INTEGER,
     .required = true,
     .desc = "the integers to add"},
    {.name = "start",
     .type = QR_TOOL_INTEGER,
     .def = "0",
     .has_min = true,
     .min = -1000,
     .has_max = true,
     .max = 1000,
     .desc = "added to the total"},
    {.name = "mode",
     .type = QR_TOOL_STRING,
     .def = "\"exact\"",
     .enum_values = modes,
     .desc = "how to add"},
    {.name = "tags",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .enum_values = colors,
     .desc = "labels"},
    {.name = "scale", .type = QR_TOOL_NUMBER, .desc = "multiply the total by this"},
    {.name = "verbose", .type = QR_TOOL_BOOLEAN, .def = "false", .desc = "say more"},
    {.name = "max_count",
     .type = QR_TOOL_INTEGER,
     .has_min = true,
     .min = 1,
     .desc = "at most this many"},
    {.name = NULL},
};

static const qr_tool sum_tool = {
    .name = "sum",
    .summary = "Add integers.",
    .params = sum_params,
    .result = "the total, an integer (a double when scaled)",
    .result_schema = "{\"type\": \"number\"}",
    .handler = sum_fn,
    .caps = 0,
};

static const qr_tool_param echo_params[] = {
    {.name = "message", .type = QR_TOOL_STRING, .required = true, .desc = "what to say"},
    {.name = "times",
     .type = QR_TOOL_INTEGER,
     .def = "1",
     .has_min = true,
     .min = 1,
     .has_max = true,
     .max = 10,
     .desc = "how many times"},
    {.name = "opts", .type = QR_TOOL_OBJECT, .desc = "anything else"},
    {.name = NULL},
};

static const qr_tool echo_tool = {
    .name = "echo",
    .summary = "Return the parameters as the tool received them.",
    .params = echo_params,
    .result = "a map of the parameters",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"message\": {\"type\": "
                     "\"string\"}}, \"required\": [\"message\"]}",
    .handler = echo_fn,
    .caps = QR_TOOL_READS_REPO,
};

static const qr_tool fail_tool = {
    .name = "fail",
    .summary = "Always fails.",
    .handler = fail_fn,
    .caps = QR_TOOL_READS_REPO | QR_TOOL_WRITES,
};

static const qr_tool net_tool = {
    .name = "fetch_url",
    .summary = "Fetch a URL.",
    .handler = echo_fn,
    .caps = QR_TOOL_NETWORK,
};

static const qr_tool_param rows_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER, .def = "120", .has_min = true, .min = 0},
    {.name = NULL},
};

static const qr_tool rows_tool = {
    .name = "rows",
    .summary = "Make n rows.",
    .params = rows_params,
    .handler = rows_fn,
};

static qr_tools *make_registry(void)
{
    qr_tools *r = qr_tools_new();
    CHECK(r != NULL);
    CHECK(qr_tools_add(r, &sum_tool) == QR_OK);
    CHECK(qr_tools_add(r, &echo_tool) == QR_OK);
    CHECK(qr_tools_add(r, &fail_tool) == QR_OK);
    CHECK(qr_tools_add(r, &net_tool) == QR_OK);
    CHECK(qr_tools_add(r, &rows_tool) == QR_OK);
    return r;
}

static qr_val edn(qr_arena *a, const char *src)
{
    qr_val forms;
    qr_read_error e;
    int rc = qr_read_all(a, src, strlen(src), QR_READ_EDN, &forms, &e);
    CHECK(rc == QR_OK);
    return rc == QR_OK ? qr_vec_at(forms, 0) : qr_nil();
}

static char *print(qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print(&b, v, QR_PRINT_READABLY);
    return qr_buf_detach(&b, NULL);
}

/* Calls a tool with EDN arguments; returns the printed result or the error message. */
static char *call(qr_tools *r, const char *name, const char *args, int *rc)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val out;
    *rc = qr_tools_call(r, name, NULL, args ? edn(&a, args) : qr_nil(), &a, &out, &err);
    char *s;
    if (*rc == QR_OK) {
        CHECK(err.len == 0);
        s = print(out);
    } else {
        s = strdup(err.p ? err.p : "");
    }
    qr_buf_release(&err);
    qr_arena_release(&a);
    return s;
}

static void expect_call(qr_tools *r, const char *name, const char *args, int want_rc,
                        const char *want)
{
    int rc;
    char *got = call(r, name, args, &rc);
    if (rc != want_rc)
        fprintf(stderr, "call %s %s: rc %d, want %d\n", name, args ? args : "nil", rc, want_rc);
    CHECK(rc == want_rc);
    CHECK_STR(got, want);
    free(got);
}

/* ---- tests ---- */

static const qr_tool_param bad_default_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER, .def = "\"ten\""},
    {.name = NULL},
};
static const qr_tool_param enum_on_int_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER, .enum_values = modes},
    {.name = NULL},
};
static const qr_tool_param required_default_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER, .required = true, .def = "1"},
    {.name = NULL},
};
static const qr_tool_param dup_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER},
    {.name = "n", .type = QR_TOOL_STRING},
    {.name = NULL},
};
static const qr_tool_param bad_enum_default_params[] = {
    {.name = "mode", .type = QR_TOOL_STRING, .def = "\"slow\"", .enum_values = modes},
    {.name = NULL},
};
static const qr_tool_param bad_bound_default_params[] = {
    {.name = "n", .type = QR_TOOL_INTEGER, .def = "0", .has_min = true, .min = 1},
    {.name = NULL},
};

static void expect_rejected(const qr_tool *t, const char *want)
{
    qr_tools *r = qr_tools_new();
    CHECK(qr_tools_add(r, t) == QR_EINVAL);
    CHECK_STR(qr_tools_error(r), want);
    CHECK(qr_tools_count(r) == 0);
    qr_tools_free(r);
}

static void test_registration(void)
{
    qr_tools *r = make_registry();
    CHECK(qr_tools_count(r) == 5);
    CHECK(qr_tools_at(r, 0) == &sum_tool);
    CHECK(qr_tools_at(r, 4) == &rows_tool);
    CHECK(qr_tools_at(r, 5) == NULL);
    CHECK(qr_tools_find(r, "echo", 4) == &echo_tool);
    CHECK(qr_tools_find(r, "ech", 3) == NULL);
    CHECK(qr_tools_add(r, &sum_tool) == QR_EINVAL);
    CHECK_STR(qr_tools_error(r), "tool 'sum' is registered twice");
    CHECK(qr_tools_count(r) == 5);
    qr_tools_free(r);

    /* many tools: the index grows and every one is still found */
    static qr_tool many[100];
    static char names[100][16];
    r = qr_tools_new();
    for (int i = 0; i < 100; i++) {
        snprintf(names[i], sizeof names[i], "tool_%d", i);
        many[i] = (qr_tool){.name = names[i], .summary = "x", .handler = echo_fn};
        CHECK(qr_tools_add(r, &many[i]) == QR_OK);
    }
    for (int i = 0; i < 100; i++)
        CHECK(qr_tools_find(r, names[i], strlen(names[i])) == &many[i]);
    qr_tools_free(r);

    qr_tool t = {.name = "has space", .summary = "x", .handler = echo_fn};
    expect_rejected(&t, "tool name 'has space' is not valid: expected a letter, then letters, "
                        "digits, '_' or '-', at most 64 in all");
    t.name = "ok";
    t.summary = "";
    expect_rejected(&t, "tool 'ok': no summary");
    t.summary = "x";
    t.handler = NULL;
    expect_rejected(&t, "tool 'ok': no handler");
    t.handler = echo_fn;
    t.params = bad_default_params;
    expect_rejected(&t, "tool 'ok': bad default: parameter 'n' expects an integer, got string "
                        "\"ten\"");
    t.params = enum_on_int_params;
    expect_rejected(&t, "tool 'ok': parameter 'n' has an enum, which needs a string (or array "
                        "of strings) parameter and at least one value");
    t.params = required_default_params;
    expect_rejected(&t, "tool 'ok': parameter 'n' is required and has a default");
    t.params = dup_params;
    expect_rejected(&t, "tool 'ok': parameter 'n' is declared twice");
    t.params = bad_enum_default_params;
    expect_rejected(&t, "tool 'ok': bad default: parameter 'mode' must be one of \"fast\", "
                        "\"exact\", got string \"slow\"");
    t.params = bad_bound_default_params;
    expect_rejected(&t, "tool 'ok': bad default: parameter 'n' must be at least 1, got 0");
    t.params = NULL;
    t.result_schema = "[1, 2]";
    expect_rejected(&t, "tool 'ok': the result schema is not a JSON object");
    t.result_schema = NULL;
    t.caps = 1u << 20;
    expect_rejected(&t, "tool 'ok': unknown capability bits");

    /* the product registry: every built-in record is valid (else it does not build) */
    r = qr_tools_default();
    CHECK(r != NULL);
    CHECK(r && qr_tools_find(r, "get_commits", 11) != NULL);
    qr_tools_free(r);
}

static void test_validation(void)
{
    qr_tools *r = make_registry();
    expect_call(r, "sum", "{:numbers [1 2 3]}", QR_OK, "6");
    expect_call(r, "sum", "{\"numbers\" [1 2 3] \"start\" 10}", QR_OK, "16");
    expect_call(r, "sum", "{:numbers [1 2] :scale 1.5}", QR_OK, "4.5");
    expect_call(r, "sum", "{:nubmers [1]}", QR_EINVAL,
                "tool 'sum': unknown parameter 'nubmers'; did you mean 'numbers'? parameters: "
                "numbers, start, mode, tags, scale, verbose, max_count");
    expect_call(r, "sum", "{:numbers [1] :max-count 2}", QR_EINVAL,
                "tool 'sum': unknown parameter 'max-count'; did you mean 'max_count'? "
                "parameters: numbers, start, mode, tags, scale, verbose, max_count");
    expect_call(r, "sum", "{:numbers [1] :zzzzzz 2}", QR_EINVAL,
                "tool 'sum': unknown parameter 'zzzzzz'; parameters: numbers, start, mode, "
                "tags, scale, verbose, max_count");
    expect_call(r, "fail", "{:x 1}", QR_EINVAL,
                "tool 'fail': unknown parameter 'x'; this tool takes no parameters");
    expect_call(r, "sum", "{:numbers \"1,2\"}", QR_EINVAL,
                "tool 'sum': parameter 'numbers' expects an array of integers, got string "
                "\"1,2\"");
    expect_call(r, "sum", "{:numbers [1 \"x\"]}", QR_EINVAL,
                "tool 'sum': parameter 'numbers' item at index 1 expects an integer, got "
                "string \"x\"");
    expect_call(r, "sum", "{:numbers [1] :start 2.5}", QR_EINVAL,
                "tool 'sum': parameter 'start' expects an integer, got double 2.5");
    expect_call(r, "sum", "{}", QR_EINVAL,
                "tool 'sum': missing required parameter 'numbers' (an array of integers)");
    expect_call(r, "sum", NULL, QR_EINVAL,
                "tool 'sum': missing required parameter 'numbers' (an array of integers)");
    expect_call(r, "sum", "{:numbers nil}", QR_EINVAL,
                "tool 'sum': missing required parameter 'numbers' (an array of integers)");
    expect_call(r, "sum", "{:numbers [1] :mode \"quick\"}", QR_EINVAL,
                "tool 'sum': parameter 'mode' must be one of \"fast\", \"exact\", got string "
                "\"quick\"");
    expect_call(r, "sum", "{:numbers [1] :mode \"exakt\"}", QR_EINVAL,
                "tool 'sum': parameter 'mode' must be one of \"fast\", \"exact\", got string "
                "\"exakt\"; did you mean \"exact\"?");
    expect_call(r, "sum", "{:numbers [1] :tags [\"red\" \"pink\"]}", QR_EINVAL,
                "tool 'sum': parameter 'tags' item at index 1 must be one of \"red\", "
                "\"green\", \"blue\", got string \"pink\"");
    expect_call(r, "sum", "{:numbers [] :start 5000}", QR_EINVAL,
                "tool 'sum': parameter 'start' must be at most 1000, got 5000");
    expect_call(r, "sum", "{:numbers [] :max_count 0}", QR_EINVAL,
                "tool 'sum': parameter 'max_count' must be at least 1, got 0");
    expect_call(r, "sum", "{:numbers [] :verbose \"yes\"}", QR_EINVAL,
                "tool 'sum': parameter 'verbose' expects true or false, got string \"yes\"");
    expect_call(r, "sum", "{:numbers [1] \"numbers\" [2]}", QR_EINVAL,
                "tool 'sum': parameter 'numbers' is given twice, as a keyword and as a string");
    expect_call(r, "sum", "{1 2}", QR_EINVAL,
                "tool 'sum': parameter names must be keywords or strings, got integer 1");
    expect_call(r, "sum", "[1 2]", QR_EINVAL,
                "tool 'sum': parameters must be a map, got vector [1 2]");
    expect_call(r, "echo", "{:message \"hi\" :opts [1]}", QR_EINVAL,
                "tool 'echo': parameter 'opts' expects an object (map), got vector [1]");
    /* a NUL inside a string is refused, not cut (handlers pass strings on as C strings) */
    expect_call(r, "echo", "{:message \"hi\\u0000there\"}", QR_EINVAL,
                "tool 'echo': parameter 'message' holds a NUL character (\\u0000); strings "
                "with NUL are refused rather than cut: remove it");
    expect_call(r, "sum", "{:numbers [1] :tags [\"red\" \"gr\\u0000een\"]}", QR_EINVAL,
                "tool 'sum': parameter 'tags' item at index 1 holds a NUL character "
                "(\\u0000); strings with NUL are refused rather than cut: remove it");
    /* a long value is cut in the message */
    expect_call(r, "echo",
                "{:message [\"aaaaaaaaaaaaaaaaaaaa\" \"bbbbbbbbbbbbbbbbbbbbbbbbb\" "
                "\"cccccccccccccccccccc\"]}",
                QR_EINVAL,
                "tool 'echo': parameter 'message' expects a string, got vector "
                "[\"aaaaaaaaaaaaaaaaaaaa\" \"bbbbbbbbbbbbbbbbbbbbbbbbb\" \"cccc...");

    /* unknown tools, with and without a close name */
    expect_call(r, "smu", "{}", QR_EINVAL,
                "unknown tool 'smu'; did you mean 'sum'? tools: sum, echo, fail, fetch_url, rows");
    expect_call(r, "frobnicate", "{}", QR_EINVAL,
                "unknown tool 'frobnicate'; tools: sum, echo, fail, fetch_url, rows");

    /* a failing handler: its code and message come back, with the tool named */
    expect_call(r, "fail", NULL, QR_ERUNTIME, "tool 'fail': the repository is locked");
    qr_tools_free(r);

    qr_tools *empty = qr_tools_new();
    expect_call(empty, "get_commits", "{}", QR_EINVAL,
                "unknown tool 'get_commits'; no tools are registered");
    qr_tools_free(empty);
}

static void test_normalization(void)
{
    qr_tools *r = make_registry();
    /* defaults filled in, declaration order, keyword keys */
    expect_call(r, "echo", "{\"message\" \"hi\"}", QR_OK, "{:message \"hi\", :times 1}");
    expect_call(r, "echo", "{:times 3 :message :hello :opts {\"k\" 1}}", QR_OK,
                "{:message \"hello\", :times 3, :opts {\"k\" 1}}");
    /* an integral double is an integer (JSON Schema counts 1.0 as one); nil means absent */
    expect_call(r, "echo", "{:message \"x\" :times 2.0 :opts nil}", QR_OK,
                "{:message \"x\", :times 2}");
    /* lists and sets are arrays, given back as vectors; keywords are strings */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val norm;
    CHECK(qr_tool_validate(&sum_tool,
                           edn(&a, "{:numbers (1 2) :mode :fast \"tags\" #{\"red\"} :max_count "
                                   "3.0 :scale 2}"),
                           &a, &norm, &err) == QR_OK);
    CHECK(err.len == 0);
    char *s = print(norm);
    CHECK_STR(s, "{:numbers [1 2], :start 0, :mode \"fast\", :tags [\"red\"], :scale 2, "
                 ":verbose false, :max_count 3}");
    free(s);
    CHECK(qr_tool_validate(&sum_tool, edn(&a, "{:numbers [:a]}"), &a, &norm, &err) == QR_EINVAL);
    CHECK_STR(err.p, "tool 'sum': parameter 'numbers' item at index 0 expects an integer, got "
                     "keyword :a");
    qr_buf_release(&err);
    qr_arena_release(&a);

    /* an arena cap at every size: each call either succeeds or reports out of memory */
    bool succeeded = false;
    for (size_t cap = 16; cap < 16384 && !succeeded; cap += 16) {
        qr_arena args_arena, small;
        qr_arena_init(&args_arena, 0);
        qr_arena_init(&small, cap);
        qr_val in = edn(&args_arena, "{:numbers (1 2) :mode :fast :tags #{\"red\" :blue}}");
        qr_buf e;
        qr_buf_init(&e);
        qr_val out;
        int rc = qr_tools_call(r, "sum", NULL, in, &small, &out, &e);
        CHECK(rc == QR_OK || rc == QR_ENOMEM);
        if (rc == QR_ENOMEM)
            CHECK(e.p && strstr(e.p, "out of memory"));
        succeeded = rc == QR_OK;
        if (succeeded)
            CHECK(out.t == QR_T_INT && out.i == 3);
        qr_buf_release(&e);
        qr_arena_release(&small);
        qr_arena_release(&args_arena);
    }
    CHECK(succeeded);

    /* the registry's context reaches handlers */
    qr_tools_set_ctx(r, "repo-handle");
    expect_call(r, "echo", "{:message \"m\"}", QR_OK,
                "{:message \"m\", :times 1, :ctx \"repo-handle\"}");
    qr_tools_free(r);
}

static void test_capabilities(void)
{
    qr_tools *r = make_registry();
    CHECK(qr_tools_allowed(r) == QR_TOOL_ALL_CAPS);
    CHECK(qr_tools_usable(r, &net_tool));
    qr_tools_restrict(r, (uint32_t)~QR_TOOL_NETWORK);
    CHECK(!qr_tools_usable(r, &net_tool));
    /* bits never come back */
    qr_tools_restrict(r, QR_TOOL_ALL_CAPS);
    CHECK(!qr_tools_usable(r, &net_tool));
    expect_call(r, "fetch_url", "{}", QR_EINVAL,
                "tool 'fetch_url': not available in this session (it needs capability "
                "'network', which is not allowed)");
    qr_tools_restrict(r, QR_TOOL_READS_REPO);
    expect_call(r, "fail", "{}", QR_EINVAL,
                "tool 'fail': not available in this session (it needs capability 'writes', "
                "which is not allowed)");
    expect_call(r, "sum", "{:numbers [2]}", QR_OK, "2");
    /* unusable tools are left out of suggestions and exports */
    expect_call(r, "fetch", "{}", QR_EINVAL, "unknown tool 'fetch'; tools: sum, echo, rows");
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_tools_export(r, QR_TOOLS_ANTHROPIC, false, &b) == QR_OK);
    CHECK(strstr(b.p, "fetch_url") == NULL && strstr(b.p, "\"fail\"") == NULL);
    CHECK(strstr(b.p, "\"echo\"") != NULL);
    qr_buf_release(&b);
    qr_tools_free(r);
    /* tools that need no capability stay usable; others go */
    r = qr_tools_new();
    CHECK(qr_tools_add(r, &net_tool) == QR_OK);
    qr_tools_restrict(r, 0);
    qr_buf_init(&b);
    CHECK(qr_tools_export(r, QR_TOOLS_TEXT, false, &b) == QR_OK);
    CHECK_STR(b.p, "no tools are available in this session\n");
    qr_buf_reset(&b);
    CHECK(qr_tools_export(r, QR_TOOLS_MCP, false, &b) == QR_OK);
    CHECK_STR(b.p, "[]\n");
    qr_buf_release(&b);
    qr_tools_free(r);
}

/* ---- exports ---- */

static qr_val json_export(qr_tools *r, qr_tools_format f, qr_arena *a, bool pretty)
{
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_tools_export(r, f, pretty, &b) == QR_OK);
    qr_val v = qr_nil();
    qr_read_error e;
    int rc = qr_json_read(a, b.p, b.len, &v, &e);
    if (rc != QR_OK)
        fprintf(stderr, "export %d is not JSON: %s: %s\n", (int)f, e.msg, b.p);
    CHECK(rc == QR_OK);
    CHECK(v.t == QR_T_VEC);
    qr_buf_release(&b);
    return v;
}

static qr_val get(qr_arena *a, qr_val m, const char *key)
{
    qr_val v;
    if (m.t != QR_T_MAP || !qr_map_get(m, qr_kw_cstr(a, key), &v))
        return qr_nil();
    return v;
}

static bool is_str(qr_val v, const char *s)
{
    return v.t == QR_T_STR && !strcmp(v.s->data, s);
}

/* A JSON Schema of parameters as this module promises it. */
static void check_input_schema(qr_arena *a, qr_val s, const char *tool)
{
    CHECK(s.t == QR_T_MAP);
    CHECK(is_str(get(a, s, "type"), "object"));
    qr_val props = get(a, s, "properties");
    CHECK(props.t == QR_T_MAP);
    qr_val ap = get(a, s, "additionalProperties");
    CHECK(ap.t == QR_T_BOOL && !ap.b);
    qr_val req = get(a, s, "required");
    if (!strcmp(tool, "sum")) {
        CHECK(qr_map_len(props) == 7);
        CHECK(req.t == QR_T_VEC && qr_vec_len(req) == 1 && is_str(qr_vec_at(req, 0), "numbers"));
        qr_val numbers = get(a, props, "numbers");
        CHECK(is_str(get(a, numbers, "type"), "array"));
        CHECK(is_str(get(a, get(a, numbers, "items"), "type"), "integer"));
        qr_val mode = get(a, props, "mode");
        CHECK(is_str(get(a, mode, "type"), "string"));
        CHECK(qr_vec_len(get(a, mode, "enum")) == 2);
        CHECK(is_str(get(a, mode, "default"), "exact"));
        qr_val start = get(a, props, "start");
        CHECK(get(a, start, "minimum").t == QR_T_INT && get(a, start, "minimum").i == -1000);
        CHECK(get(a, start, "maximum").i == 1000);
        CHECK(get(a, start, "default").t == QR_T_INT);
        qr_val tags = get(a, props, "tags");
        CHECK(qr_vec_len(get(a, get(a, tags, "items"), "enum")) == 3);
        CHECK(is_str(get(a, get(a, props, "scale"), "type"), "number"));
        CHECK(is_str(get(a, get(a, props, "verbose"), "type"), "boolean"));
    } else if (!strcmp(tool, "fail")) {
        CHECK(qr_map_len(props) == 0);
        CHECK(qr_is_nil(req)); /* no "required" when nothing is */
    }
}

static void test_exports(void)
{
    qr_tools *r = make_registry();
    qr_arena a;
    qr_arena_init(&a, 0);

    qr_val v = json_export(r, QR_TOOLS_OPENAI, &a, true);
    CHECK(qr_vec_len(v) == 5);
    for (size_t i = 0; i < qr_vec_len(v); i++) {
        qr_val e = qr_vec_at(v, i), fn = get(&a, e, "function");
        CHECK(qr_map_len(e) == 2);
        CHECK(is_str(get(&a, e, "type"), "function"));
        CHECK(qr_map_len(fn) == 3);
        CHECK(get(&a, fn, "name").t == QR_T_STR);
        CHECK(get(&a, fn, "description").t == QR_T_STR);
        check_input_schema(&a, get(&a, fn, "parameters"), get(&a, fn, "name").s->data);
    }
    CHECK(is_str(get(&a, get(&a, qr_vec_at(v, 0), "function"), "description"),
                 "Add integers.\n\nReturns: the total, an integer (a double when scaled)"));

    v = json_export(r, QR_TOOLS_ANTHROPIC, &a, false);
    CHECK(qr_vec_len(v) == 5);
    for (size_t i = 0; i < qr_vec_len(v); i++) {
        qr_val e = qr_vec_at(v, i);
        CHECK(qr_map_len(e) == 3);
        CHECK(get(&a, e, "name").t == QR_T_STR);
        CHECK(get(&a, e, "description").t == QR_T_STR);
        check_input_schema(&a, get(&a, e, "input_schema"), get(&a, e, "name").s->data);
    }

    v = json_export(r, QR_TOOLS_MCP, &a, true);
    CHECK(qr_vec_len(v) == 5);
    for (size_t i = 0; i < qr_vec_len(v); i++) {
        qr_val e = qr_vec_at(v, i);
        const char *name = get(&a, e, "name").s->data;
        check_input_schema(&a, get(&a, e, "inputSchema"), name);
        qr_val out = get(&a, e, "outputSchema"), ann = get(&a, e, "annotations");
        /* MCP allows only object-rooted output schemas: echo has one, sum's is a number */
        if (!strcmp(name, "echo"))
            CHECK(is_str(get(&a, out, "type"), "object"));
        else
            CHECK(qr_is_nil(out));
        CHECK(get(&a, ann, "readOnlyHint").b == (strcmp(name, "fail") != 0));
        CHECK(get(&a, ann, "openWorldHint").b == (strcmp(name, "fetch_url") == 0));
    }

    v = json_export(r, QR_TOOLS_JSON, &a, true);
    qr_val e = qr_vec_at(v, 1);
    CHECK(is_str(get(&a, e, "name"), "echo"));
    CHECK(is_str(get(&a, e, "summary"), "Return the parameters as the tool received them."));
    check_input_schema(&a, get(&a, e, "parameters"), "echo");
    CHECK(is_str(get(&a, get(&a, e, "result"), "description"), "a map of the parameters"));
    CHECK(get(&a, get(&a, e, "result"), "schema").t == QR_T_MAP);
    qr_val caps = get(&a, e, "capabilities");
    CHECK(qr_vec_len(caps) == 1 && is_str(qr_vec_at(caps, 0), "reads-repo"));
    qr_arena_release(&a);

    /* one exact rendering, shown in docs/tools.md */
    qr_tools *one = qr_tools_new();
    CHECK(qr_tools_add(one, &echo_tool) == QR_OK);
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_tools_export(one, QR_TOOLS_ANTHROPIC, false, &b) == QR_OK);
    CHECK_STR(b.p,
              "[{\"name\":\"echo\",\"description\":\"Return the parameters as the tool received "
              "them.\\n\\nReturns: a map of the parameters.\",\"input_schema\":{\"type\":"
              "\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":"
              "\"what to say\"},\"times\":{\"type\":\"integer\",\"description\":\"how many "
              "times\",\"minimum\":1,\"maximum\":10,\"default\":1},\"opts\":{\"type\":\"object\","
              "\"description\":\"anything else\"}},\"required\":[\"message\"],"
              "\"additionalProperties\":false}}]\n");
    qr_buf_reset(&b);
    CHECK(qr_tools_export(one, QR_TOOLS_TEXT, false, &b) == QR_OK);
    CHECK_STR(b.p, "echo  Return the parameters as the tool received them.\n"
                   "    message  string, required          what to say\n"
                   "    times    integer 1..10, default 1  how many times\n"
                   "    opts     object                    anything else\n"
                   "    returns: a map of the parameters\n");
    qr_tools_free(one);

    qr_buf_reset(&b);
    qr_tool_describe(&sum_tool, &b);
    CHECK_STR(b.p, "sum  Add integers.\n"
                   "    numbers    array of integer, required      the integers to add\n"
                   "    start      integer -1000..1000, default 0  added to the total\n"
                   "    mode       fast|exact, default \"exact\"     how to add\n"
                   "    tags       array of red|green|blue         labels\n"
                   "    scale      number                          multiply the total by this\n"
                   "    verbose    boolean, default false          say more\n"
                   "    max_count  integer >= 1                    at most this many\n"
                   "    returns: the total, an integer (a double when scaled)\n");

    /* an empty registry: [] in every JSON format, a sentence in text */
    qr_tools *empty = qr_tools_new();
    for (int f = QR_TOOLS_TEXT; f <= QR_TOOLS_MCP; f++) {
        qr_buf_reset(&b);
        CHECK(qr_tools_export(empty, (qr_tools_format)f, true, &b) == QR_OK);
        CHECK_STR(b.p, f == QR_TOOLS_TEXT ? "no tools are registered\n" : "[]\n");
    }
    qr_tools_free(empty);
    qr_buf_release(&b);

    CHECK(qr_tools_format_parse("openai") == QR_TOOLS_OPENAI);
    CHECK(qr_tools_format_parse("mcp") == QR_TOOLS_MCP);
    CHECK(qr_tools_format_parse("xml") == -1);
    qr_tools_free(r);
}

/* ---- command-line flags ---- */

static char *argv_result(const qr_tool *t, const char *base, int argc, char **argv, int *rc)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val args, norm;
    *rc = qr_tool_parse_argv(t, argc, argv, base ? edn(&a, base) : qr_nil(), &a, &args, &err);
    if (*rc == QR_OK)
        *rc = qr_tool_validate(t, args, &a, &norm, &err);
    char *s = *rc == QR_OK ? print(norm) : strdup(err.p ? err.p : "");
    qr_buf_release(&err);
    qr_arena_release(&a);
    return s;
}

#define ARGV(...) ((char *[]){__VA_ARGS__}), (int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *))

static void expect_argv(const qr_tool *t, const char *base, char **argv, int argc, int want_rc,
                        const char *want)
{
    int rc;
    char *got = argv_result(t, base, argc, argv, &rc);
    CHECK(rc == want_rc);
    CHECK_STR(got, want);
    free(got);
}

static void test_argv(void)
{
    expect_argv(&sum_tool, NULL,
                ARGV("--numbers", "1,2", "--numbers", "3", "--mode=fast", "--verbose",
                     "--max-count", "2", "--scale", "1.5", "--tags", "[\"red\", \"blue\"]"),
                QR_OK,
                "{:numbers [1 2 3], :start 0, :mode \"fast\", :tags [\"red\" \"blue\"], "
                ":scale 1.5, :verbose true, :max_count 2}");
    expect_argv(&sum_tool, NULL, ARGV("--numbers", "", "--verbose", "false", "--start", "-5"),
                QR_OK, "{:numbers [], :start -5, :mode \"exact\", :verbose false}");
    expect_argv(&sum_tool, NULL, ARGV("--numbers", "1", "--start", "1x"), QR_EINVAL,
                "tool 'sum': parameter 'start' expects an integer, got '1x'");
    expect_argv(&sum_tool, NULL, ARGV("--numbers", "1,x"), QR_EINVAL,
                "tool 'sum': parameter 'numbers' expects comma-separated integer items or a "
                "JSON array, got '1,x'");
    expect_argv(&sum_tool, NULL, ARGV("--numbers"), QR_EINVAL,
                "tool 'sum': flag '--numbers' needs a value (comma-separated items)");
    expect_argv(&sum_tool, NULL, ARGV("--numbers", "1", "--start", "--verbose"), QR_EINVAL,
                "tool 'sum': flag '--start' needs a value (an integer)");
    expect_argv(&sum_tool, NULL, ARGV("--numbers", "1", "stray"), QR_EINVAL,
                "tool 'sum': expected a parameter flag such as --name VALUE, got 'stray'");
    /* an unknown flag reaches validation, which suggests the right name */
    expect_argv(&sum_tool, NULL, ARGV("--nubmers", "1"), QR_EINVAL,
                "tool 'sum': unknown parameter 'nubmers'; did you mean 'numbers'? parameters: "
                "numbers, start, mode, tags, scale, verbose, max_count");
    /* --args supplies a base map; flags override its keys */
    expect_argv(&echo_tool, "{\"message\" \"from args\" :times 2}",
                ARGV("--times", "3", "--opts", "{\"k\": [1]}"), QR_OK,
                "{:message \"from args\", :times 3, :opts {:k [1]}}");
    expect_argv(&echo_tool, NULL, ARGV("--message", "x", "--opts", "{:k"), QR_EINVAL,
                "tool 'echo': parameter 'opts' expects an object (map) as JSON or EDN, such as "
                "{\"key\": 1}, got '{:k'");
    expect_argv(&echo_tool, NULL, ARGV("--message", "007", "--times=10"), QR_OK,
                "{:message \"007\", :times 10}");
}

/* ---- the Lisp ---- */

static char *lisp(qr_lisp_session *s, const char *src, qr_lisp_result *res)
{
    int rc = qr_lisp_run(s, src, strlen(src), res);
    if (rc == QR_OK)
        return print(res->value);
    return strdup(qr_lisp_errkind_name(res->kind));
}

static void expect_lisp(qr_lisp_session *s, const char *src, const char *want,
                        const char *message_part)
{
    qr_lisp_result res;
    char *got = lisp(s, src, &res);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "program: %s\n  message: %s\n", src, res.message);
    CHECK_STR(got, want);
    if (message_part && !strstr(res.message, message_part)) {
        fprintf(stderr, "message: %s\n  lacks: %s\n", res.message, message_part);
        CHECK(false);
    }
    free(got);
    qr_lisp_result_clear(&res);
}

static void test_lisp(void)
{
    qr_tools *r = make_registry();
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    qr_lisp_set_tools(s, qr_tools_lisp_dispatch, r);
    expect_lisp(s, "(tool/sum {:numbers [1 2 3]})", "6", NULL);
    expect_lisp(s, "(tool/sum {:numbers (range 5) :start 10})", "20", NULL);
    expect_lisp(s, "(tool/echo {\"message\" \"hi\"})", "{:message \"hi\", :times 1}", NULL);
    expect_lisp(s, "(:times (tool/echo {:message \"x\" :times 4}))", "4", NULL);
    /* results are ordinary values */
    expect_lisp(s, "(->> (tool/rows {:n 6}) (filter #(= \"odd\" (:name %))) (map :i))", "[1 3 5]",
                NULL);
    /* no output cap inside a program */
    expect_lisp(s, "(count (tool/rows {}))", "120", NULL);
    expect_lisp(s, "(count (tool/rows {:n 500}))", "500", NULL);
    /* the same messages as everywhere else, with the tool named once */
    expect_lisp(s, "(tool/sum {:nubmers [1]})", "tool-error",
                "tool 'sum': unknown parameter 'nubmers'; did you mean 'numbers'? parameters: "
                "numbers, start, mode, tags, scale, verbose, max_count");
    expect_lisp(s, "(tool/sum {:numbers [1] :mode \"exakt\"})", "tool-error",
                "tool 'sum': parameter 'mode' must be one of \"fast\", \"exact\", got string "
                "\"exakt\"; did you mean \"exact\"?");
    expect_lisp(s, "(tool/sum)", "tool-error",
                "tool 'sum': missing required parameter 'numbers' (an array of integers)");
    expect_lisp(s, "(tool/smu {:numbers [1]})", "tool-error",
                "unknown tool 'smu'; did you mean 'sum'?");
    expect_lisp(s, "(tool/fail {})", "tool-error", "tool 'fail': the repository is locked");
    /* a sandbox that clears a capability: the tool is refused, the others still work */
    qr_tools_restrict(r, (uint32_t)~QR_TOOL_NETWORK);
    expect_lisp(s, "(tool/fetch_url {})", "tool-error",
                "tool 'fetch_url': not available in this session (it needs capability "
                "'network', which is not allowed)");
    expect_lisp(s, "(tool/sum {:numbers [4]})", "4", NULL);
    qr_lisp_session_free(s);
    qr_tools_free(r);
}

/* ---- output for people ---- */

static void test_output(void)
{
    qr_tools *r = make_registry();
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val out;
    CHECK(qr_tools_call(r, "rows", NULL, qr_nil(), &a, &out, &err) == QR_OK);
    size_t omitted;
    qr_val cut = qr_tools_cap_output(&a, out, QR_TOOLS_OUTPUT_ROWS, &omitted);
    CHECK(qr_vec_len(cut) == 50 && omitted == 70);
    cut = qr_tools_cap_output(&a, out, 0, &omitted);
    CHECK(qr_vec_len(cut) == 120 && omitted == 0);
    cut = qr_tools_cap_output(&a, out, 500, &omitted);
    CHECK(qr_vec_len(cut) == 120 && omitted == 0);
    cut = qr_tools_cap_output(&a, qr_int(5), 1, &omitted);
    CHECK(cut.t == QR_T_INT && omitted == 0);

    qr_buf b;
    qr_buf_init(&b);
    qr_tools_render_table(&b, qr_tools_cap_output(&a, out, 3, &omitted));
    CHECK_STR(b.p, "i  name\n"
                   "0  even\n"
                   "1  odd\n"
                   "2  even\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "[{:sha \"abc\" :files 12 :msg \"fix\\nbug\"} "
                                      "{:sha \"d\" :files 3 :author \"ann\"}]"));
    CHECK_STR(b.p, "sha  files  msg      author\n"
                   "abc     12  fix bug\n"
                   "d        3           ann\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "[\"a.c\" \"b.c\" 3]"));
    CHECK_STR(b.p, "a.c\nb.c\n3\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "{:total 12 :authors [\"ann\" \"bob\"]}"));
    CHECK_STR(b.p, "total    12\nauthors  [\"ann\" \"bob\"]\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "[]"));
    CHECK_STR(b.p, "(no results)\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "\"plain\""));
    CHECK_STR(b.p, "plain\n");
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "[{:m \"0123456789012345678901234567890123456789012345678"
                                      "9012345678901234567890\"}]"));
    CHECK_STR(b.p, "m\n012345678901234567890123456789012345678901234567890123456...\n");
    /* wide characters line up by display columns; combining accents take none */
    qr_buf_reset(&b);
    qr_tools_render_table(&b, edn(&a, "[{:who \"\u5c71\u7530\" :n 1} {:who \"Jose\u0301\" :n 22}]"));
    CHECK_STR(b.p, "who   n\n"
                   "\xe5\xb1\xb1\xe7\x94\xb0   1\n"
                   "Jose\xcc\x81  22\n");
    /* fitted to a width: the widest text column is cut, numbers and narrow ones kept */
    qr_buf_reset(&b);
    qr_val rows = edn(&a, "[{:sha \"abcdef12\" :subject \"a long subject that does not fit\" :n 12345}"
                          " {:sha \"0123abcd\" :subject \"short\" :n 7}]");
    qr_tools_render_table_width(&b, rows, 30);
    CHECK_STR(b.p, "sha       subject        n\n"
                   "abcdef12  a long sub...  12345\n"
                   "0123abcd  short              7\n");
    qr_buf_reset(&b);
    qr_tools_render_table_width(&b, rows, 0);
    CHECK(strstr(b.p, "a long subject that does not fit") != NULL);
    /* a cut never splits a wide character: its column is left blank */
    qr_buf_reset(&b);
    qr_tools_render_table_width(&b, edn(&a, "[{:a \"\u5c71\u5c71\u5c71\u5c71\u5c71\u5c71\u5c71\"}]"), 10);
    CHECK_STR(b.p, "a\n"
                   "\xe5\xb1\xb1\xe5\xb1\xb1\xe5\xb1\xb1 ...\n");
    qr_buf_release(&b);
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_tools_free(r);
}

/* Descriptions a model is given: whole sentences, within the 1,024 characters the OpenAI
 * API takes; a longer one is cut after its last whole sentence, never inside a word. */
static void test_description_limit(void)
{
    qr_buf b;
    qr_buf_init(&b);
    /* short text is left alone */
    qr_buf_puts(&b, "One. Two.");
    qr_tools_fit_description(&b, 0, 1024);
    CHECK_STR(b.p, "One. Two.");
    /* cut at the last sentence that fits */
    qr_buf_reset(&b);
    qr_buf_puts(&b, "First sentence. Second one! Third sentence runs past the limit");
    qr_tools_fit_description(&b, 0, 40);
    CHECK_STR(b.p, "First sentence. Second one!");
    /* a sentence end on a line end counts; bytes before `from` are not counted or cut */
    qr_buf_reset(&b);
    qr_buf_puts(&b, "KEEP: Alpha beta.\nGamma delta epsilon zeta");
    qr_tools_fit_description(&b, 6, 20);
    CHECK_STR(b.p, "KEEP: Alpha beta.");
    /* no sentence ends in time: the last whole word, and "..." */
    qr_buf_reset(&b);
    qr_buf_puts(&b, "averyveryverylongword another word and more");
    qr_tools_fit_description(&b, 0, 30);
    CHECK_STR(b.p, "averyveryverylongword...");
    /* characters, not bytes: 30 two-byte characters fit in 30 */
    qr_buf_reset(&b);
    for (int i = 0; i < 30; i++)
        qr_buf_puts(&b, "\xc3\xa9");
    qr_tools_fit_description(&b, 0, 30);
    CHECK(b.len == 60);

    /* a record whose summary is long: its description is cut at a sentence, and the
     * result's description, when it fits, ends with a period */
    static char summary[3000];
    size_t n = 0;
    while (n + 40 < sizeof summary) {
        memcpy(summary + n, "This sentence is exactly forty chars.. ", 39);
        n += 39;
    }
    summary[n] = '\0';
    qr_tool long_tool = {.name = "long", .summary = summary, .result = "a value",
                         .handler = echo_fn, .caps = QR_TOOL_READS_REPO};
    qr_buf_reset(&b);
    qr_tool_description(&long_tool, &b);
    CHECK(qr_utf8_count(b.p, b.len) <= QR_TOOLS_DESCRIPTION_MAX);
    CHECK(b.len > QR_TOOLS_DESCRIPTION_MAX - 45);
    CHECK(b.p[b.len - 1] == '.');
    qr_tool short_tool = {.name = "short", .summary = "Say hi.", .result = "a greeting",
                          .handler = echo_fn, .caps = QR_TOOL_READS_REPO};
    qr_buf_reset(&b);
    qr_tool_description(&short_tool, &b);
    CHECK_STR(b.p, "Say hi.\n\nReturns: a greeting.");
    qr_buf_release(&b);
}

/* A narrow table keeps the columns a reader needs: those a tool names, or the one a
 * ranked result is ordered by. */
static void test_key_columns(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf b;
    qr_buf_init(&b);
    qr_val rows = edn(&a, "[{:hash \"0123456789abcdef0123456789abcdef01234567\" :email "
                          "\"ann@example.com\" :ts 1700000000 :subject \"Fix the parser\"}"
                          " {:hash \"1123456789abcdef0123456789abcdef01234567\" :email "
                          "\"bob@example.com\" :ts 1600000000 :subject \"Add a test\"}]");
    static const char *const keys[] = {"subject", "email", NULL};
    qr_tools_render_table_keys(&b, rows, 40, keys);
    CHECK_STR(b.p, "email            subject\n"
                   "ann@example.com  Fix the parser\n"
                   "bob@example.com  Add a test\n"
                   "(2 of 4 columns left out to fit 40 columns; --format json shows all)\n");
    /* narrower: the least needed of them goes too */
    qr_buf_reset(&b);
    qr_tools_render_table_keys(&b, rows, 20, keys);
    CHECK_STR(b.p, "subject\n"
                   "Fix the parser\n"
                   "Add a test\n"
                   "(3 of 4 columns left out to fit 20 columns; --format json shows all)\n");
    /* a table that fits is whole, in its order */
    qr_buf_reset(&b);
    qr_tools_render_table_keys(&b, rows, 0, keys);
    CHECK(strstr(b.p, "hash") == b.p);
    /* no names: the column a ranked result is ordered by stays, the others go from the
     * right */
    qr_val ranked = edn(&a, "[{:name \"alpha\" :path \"src/one/two/three.c\" :files 2 :lines 30}"
                            " {:name \"beta\" :path \"src/one/two/four.c\" :files 9 :lines 20}"
                            " {:name \"gamma\" :path \"src/one/five.c\" :files 1 :lines 10}]");
    qr_buf_reset(&b);
    qr_tools_render_table_width(&b, ranked, 26);
    CHECK_STR(b.p, "name   path          lines\n"
                   "alpha  src/one/t...     30\n"
                   "beta   src/one/t...     20\n"
                   "gamma  src/one/f...     10\n"
                   "(1 of 4 columns left out to fit 26 columns; --format json shows all)\n");
    qr_buf_release(&b);
    qr_arena_release(&a);
}

int main(void)
{
    test_registration();
    test_validation();
    test_normalization();
    test_capabilities();
    test_exports();
    test_argv();
    test_lisp();
    test_output();
    test_description_limit();
    test_key_columns();
    CHECK_DONE();
}
