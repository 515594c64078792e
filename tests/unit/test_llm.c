/*
 * test_llm.c: the language-model client. Without the network: request bodies of both
 * formats (system first, cache_control, no key), response bodies and error bodies, the
 * SSE parser fed in every two-piece split and byte by byte (LF and CRLF line ends),
 * status classification and messages, endpoints, provider guessing, key scrubbing, and
 * configuration (environment, TOML files in a temporary XDG_CONFIG_HOME and repository,
 * precedence, bad values, unknown keys with "did you mean"). Against the real scripted
 * model server (tests/llm/model_server.py, started per test over 127.0.0.1): plain and
 * streamed replies in both formats, usage with a cache write then a cache read, 429 then
 * success, 500 until the retries run out, 401, a garbage body, a timeout, connection
 * refused, and the key in the right header of the server's log.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include "check.h"
#include "llm/llm_int.h"
#include "quarry/llm.h"
#include "quarry/value.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char KEY[] = "test-key-123-secret";

/* ---- helpers ---- */

static qr_llm_message user_msg(const char *text)
{
    qr_llm_message m = {"user", text, strlen(text)};
    return m;
}

static qr_llm_request simple_request(const qr_llm_message *m, size_t n, const char *system)
{
    qr_llm_request r = {.system = system,
                        .system_len = system ? strlen(system) : 0,
                        .messages = m,
                        .nmessages = n};
    return r;
}

static void base_config(qr_llm_config *c, qr_llm_provider p, const char *url)
{
    qr_llm_config_init(c);
    c->url = strdup(url);
    c->model = strdup("test-model");
    c->api_key = strdup(KEY);
    c->provider = p;
    c->retry_base_ms = 2;
    c->retry_max_ms = 20;
    c->timeout_ms = 10000;
}

/* ---- request bodies ---- */

static void test_request_json(void)
{
    qr_llm_config c;
    base_config(&c, QR_LLM_OPENAI, "http://localhost:8080/v1");
    c.max_tokens = 100;
    qr_llm *l = qr_llm_new(&c);
    CHECK(l != NULL);
    qr_llm_message m[2] = {user_msg("hi \"there\""), {"assistant", "ok", 2}};
    qr_llm_request r = simple_request(m, 2, "you are\nquarry");
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_llm_request_json(l, &r, &b) == QR_OK);
    CHECK_STR(b.p, "{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"you "
                   "are\\nquarry\"},{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"},{"
                   "\"role\":\"assistant\",\"content\":\"ok\"}],\"max_tokens\":100,"
                   "\"temperature\":0,\"stream\":false}");
    CHECK(strstr(b.p, KEY) == NULL);
    CHECK_STR(qr_llm_endpoint(l), "http://localhost:8080/v1/chat/completions");
    qr_llm_free(l);

    /* streaming asks for the usage chunk; no system text: no system message */
    c.stream = true;
    l = qr_llm_new(&c);
    qr_buf_reset(&b);
    r = simple_request(m, 1, NULL);
    r.max_tokens = 7;
    CHECK(qr_llm_request_json(l, &r, &b) == QR_OK);
    CHECK_STR(b.p, "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi "
                   "\\\"there\\\"\"}],\"max_tokens\":7,\"temperature\":0,\"stream\":true,"
                   "\"stream_options\":{\"include_usage\":true}}");
    qr_llm_free(l);

    c.provider = QR_LLM_ANTHROPIC;
    c.stream = false;
    free(c.url);
    c.url = strdup("https://api.anthropic.com/");
    l = qr_llm_new(&c);
    qr_buf_reset(&b);
    r = simple_request(m, 2, "sys");
    CHECK(qr_llm_request_json(l, &r, &b) == QR_OK);
    CHECK_STR(b.p, "{\"model\":\"test-model\",\"max_tokens\":100,\"system\":[{\"type\":\"text\","
                   "\"text\":\"sys\",\"cache_control\":{\"type\":\"ephemeral\"}}],\"messages\":[{"
                   "\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"},{\"role\":\"assistant\","
                   "\"content\":\"ok\"}],\"temperature\":0,\"stream\":false}");
    CHECK(strstr(b.p, KEY) == NULL);
    CHECK_STR(qr_llm_endpoint(l), "https://api.anthropic.com/v1/messages");

    /* a shared block: a cache breakpoint after it, and one after the whole system text */
    qr_buf_reset(&b);
    r = simple_request(m, 1, "SHARED role");
    r.shared_len = 6;
    CHECK(qr_llm_request_json(l, &r, &b) == QR_OK);
    CHECK(strstr(b.p, "\"system\":[{\"type\":\"text\",\"text\":\"SHARED\",\"cache_control\":{"
                      "\"type\":\"ephemeral\"}},{\"type\":\"text\",\"text\":\" role\","
                      "\"cache_control\":{\"type\":\"ephemeral\"}}]") != NULL);
    /* a shared length that is not shorter than the text: one block */
    qr_buf_reset(&b);
    r.shared_len = 11;
    CHECK(qr_llm_request_json(l, &r, &b) == QR_OK);
    CHECK(strstr(b.p, "\"system\":[{\"type\":\"text\",\"text\":\"SHARED role\",") != NULL);

    /* no messages: refused */
    qr_buf_reset(&b);
    r = simple_request(m, 0, "sys");
    CHECK(qr_llm_request_json(l, &r, &b) == QR_EINVAL);
    qr_llm_free(l);
    qr_buf_release(&b);
    qr_llm_config_clear(&c);
}

static void test_endpoints(void)
{
    struct {
        qr_llm_provider p;
        const char *url, *want;
    } cases[] = {
        {QR_LLM_OPENAI, "http://h:8080/v1", "http://h:8080/v1/chat/completions"},
        {QR_LLM_OPENAI, "http://h:8080/v1/", "http://h:8080/v1/chat/completions"},
        {QR_LLM_OPENAI, "http://h:8080", "http://h:8080/v1/chat/completions"},
        {QR_LLM_OPENAI, "http://h/x/chat/completions", "http://h/x/chat/completions"},
        {QR_LLM_OPENAI, "https://gw.example/openai/v1", "https://gw.example/openai/v1/chat/completions"},
        {QR_LLM_ANTHROPIC, "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"},
        {QR_LLM_ANTHROPIC, "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"},
        {QR_LLM_ANTHROPIC, "http://h/v1/messages", "http://h/v1/messages"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *e = llm_endpoint_for(cases[i].p, cases[i].url);
        CHECK_STR(e, cases[i].want);
        free(e);
    }
    CHECK(llm_guess_provider("https://api.anthropic.com") == QR_LLM_ANTHROPIC);
    CHECK(llm_guess_provider("https://Anthropic.gateway.example:443/v1") == QR_LLM_ANTHROPIC);
    CHECK(llm_guess_provider("http://localhost:8080/v1") == QR_LLM_OPENAI);
    CHECK(llm_guess_provider("http://proxy.example/anthropic") == QR_LLM_OPENAI); /* path only */
    CHECK(llm_guess_provider(NULL) == QR_LLM_NONE);
    CHECK_STR(qr_llm_provider_name(QR_LLM_ANTHROPIC), "anthropic");
    CHECK_STR(qr_llm_provider_name(QR_LLM_OPENAI), "openai");
    CHECK_STR(qr_llm_provider_name(QR_LLM_NONE), "none");
}

/* ---- response bodies ---- */

static void test_parse_bodies(void)
{
    llm_reply r;
    llm_reply_init(&r);
    const char *oa = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                     "\"Hello \\u00e9\"},\"finish_reason\":\"length\"}],\"usage\":{"
                     "\"prompt_tokens\":100,\"completion_tokens\":7,\"prompt_tokens_details\":{"
                     "\"cached_tokens\":64}}}";
    CHECK(llm_openai_parse(oa, strlen(oa), &r) == QR_OK);
    CHECK_STR(r.text.p, "Hello \xc3\xa9");
    CHECK_STR(r.stop, "length");
    CHECK(r.usage.input == 36 && r.usage.cache_read == 64 && r.usage.output == 7);
    CHECK(r.usage.cache_write == 0);
    llm_reply_release(&r);

    /* null content, no usage (some local servers) */
    llm_reply_init(&r);
    const char *oa2 = "{\"choices\":[{\"message\":{\"content\":null}}]}";
    CHECK(llm_openai_parse(oa2, strlen(oa2), &r) == QR_OK);
    CHECK(r.text.len == 0 && r.usage.input == 0 && r.stop[0] == 0);
    llm_reply_release(&r);

    const char *bad[] = {"not json", "[1,2]", "{\"choices\":[]}", "{\"choices\":[{}]}",
                         "{\"choices\":[{\"message\":{\"content\":5}}]}", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        llm_reply_init(&r);
        CHECK(llm_openai_parse(bad[i], strlen(bad[i]), &r) == QR_EINVAL);
        CHECK(r.failed && r.malformed && r.error[0]);
        CHECK(strchr(r.error, '\n') == NULL);
        llm_reply_release(&r);
        llm_reply_init(&r);
        CHECK(llm_anthropic_parse(bad[i], strlen(bad[i]), &r) == QR_EINVAL);
        CHECK(r.failed && r.malformed);
        llm_reply_release(&r);
    }
    /* a 200 carrying an error object */
    llm_reply_init(&r);
    const char *oerr = "{\"error\":{\"message\":\"model is loading\"}}";
    CHECK(llm_openai_parse(oerr, strlen(oerr), &r) == QR_EIO);
    CHECK(strstr(r.error, "model is loading") != NULL && !r.malformed);
    llm_reply_release(&r);

    llm_reply_init(&r);
    const char *an = "{\"id\":\"m\",\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":"
                     "\"one \"},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{}},"
                     "{\"type\":\"text\",\"text\":\"two\"}],\"stop_reason\":\"max_tokens\","
                     "\"usage\":{\"input_tokens\":12,\"output_tokens\":3,"
                     "\"cache_creation_input_tokens\":1000,\"cache_read_input_tokens\":0}}";
    CHECK(llm_anthropic_parse(an, strlen(an), &r) == QR_OK);
    CHECK_STR(r.text.p, "one two");
    CHECK_STR(r.stop, "max_tokens");
    CHECK(r.usage.input == 12 && r.usage.output == 3 && r.usage.cache_write == 1000 &&
          r.usage.cache_read == 0);
    llm_reply_release(&r);

    char msg[200];
    const char *e1 = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                     "\"message\":\"max_tokens:\\nbad\"}}";
    llm_error_message(e1, strlen(e1), msg, sizeof msg);
    CHECK_STR(msg, "max_tokens: bad");
    llm_error_message("{\"error\":\"plain\"}", 17, msg, sizeof msg);
    CHECK_STR(msg, "plain");
    llm_error_message("{\"detail\":\"Not Found\"}", 22, msg, sizeof msg);
    CHECK_STR(msg, "Not Found");
    llm_error_message("<html>\n<body>502</body>", 23, msg, sizeof msg);
    CHECK_STR(msg, "<html>");
    llm_error_message("", 0, msg, sizeof msg);
    CHECK_STR(msg, "");
}

/* ---- SSE ---- */

static const char OPENAI_STREAM[] =
    ": keep-alive comment\n"
    "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}],"
    "\"usage\":null}\n\n"
    "data:{\"choices\":[{\"delta\":{\"content\":\"lo\\n\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":2,"
    "\"prompt_tokens_details\":{\"cached_tokens\":40}}}\n\n"
    "data: [DONE]\n\n";

static const char ANTHROPIC_STREAM[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":9,"
    "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":300,\"output_tokens\":1}}}\n"
    "\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
    "\"text\":\"\"}}\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\"Hi \"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\"\\u00e9t\\u00e9\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
    "\"usage\":{\"output_tokens\":4}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

/* Feeds text in pieces cut at a and b (a <= b), returns the reply's text (static). */
static const char *stream_text(qr_llm_provider p, const char *text, size_t n, size_t a,
                               size_t b, llm_reply *r)
{
    llm_stream s;
    llm_stream_init(&s, p, r);
    int rc = llm_stream_feed(&s, text, a);
    if (rc == QR_OK)
        rc = llm_stream_feed(&s, text + a, b - a);
    if (rc == QR_OK)
        rc = llm_stream_feed(&s, text + b, n - b);
    if (rc == QR_OK)
        rc = llm_stream_finish(&s);
    llm_stream_release(&s);
    static char out[200];
    snprintf(out, sizeof out, "%s%s", rc == QR_OK ? "" : "ERR:", r->text.p ? r->text.p : "");
    return out;
}

/* LF line ends turned into CRLF. */
static char *crlf(const char *s)
{
    qr_buf b;
    qr_buf_init(&b);
    for (; *s; s++) {
        if (*s == '\n')
            qr_buf_putc(&b, '\r');
        qr_buf_putc(&b, *s);
    }
    return qr_buf_detach(&b, NULL);
}

static void check_split_everywhere(qr_llm_provider p, const char *text, const char *want,
                                   qr_llm_usage wu, const char *wstop)
{
    size_t n = strlen(text);
    int bad = 0;
    for (size_t a = 0; a <= n; a++) {
        llm_reply r;
        llm_reply_init(&r);
        const char *got = stream_text(p, text, n, a, a, &r);
        if (strcmp(got, want) != 0 || !r.finished || strcmp(r.stop, wstop) != 0 ||
            memcmp(&r.usage, &wu, sizeof wu) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "split at %zu: got \"%s\" stop \"%s\"\n", a, got, r.stop);
        }
        llm_reply_release(&r);
    }
    /* byte by byte */
    llm_reply r;
    llm_reply_init(&r);
    llm_stream s;
    llm_stream_init(&s, p, &r);
    for (size_t i = 0; i < n; i++)
        CHECK(llm_stream_feed(&s, text + i, 1) == QR_OK);
    CHECK(llm_stream_finish(&s) == QR_OK);
    CHECK_STR(r.text.p, want);
    llm_stream_release(&s);
    llm_reply_release(&r);
    CHECK(bad == 0);
}

static void test_sse(void)
{
    qr_llm_usage ou = {.input = 10, .output = 2, .cache_read = 40};
    check_split_everywhere(QR_LLM_OPENAI, OPENAI_STREAM, "Hello\n", ou, "stop");
    char *c1 = crlf(OPENAI_STREAM);
    check_split_everywhere(QR_LLM_OPENAI, c1, "Hello\n", ou, "stop");
    free(c1);
    qr_llm_usage au = {.input = 9, .output = 4, .cache_read = 300};
    check_split_everywhere(QR_LLM_ANTHROPIC, ANTHROPIC_STREAM, "Hi \xc3\xa9t\xc3\xa9", au,
                           "end_turn");
    char *c2 = crlf(ANTHROPIC_STREAM);
    check_split_everywhere(QR_LLM_ANTHROPIC, c2, "Hi \xc3\xa9t\xc3\xa9", au, "end_turn");
    free(c2);

    /* a last event without its blank line still counts; CR-only line ends */
    llm_reply r;
    llm_reply_init(&r);
    const char *t = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\rdata: [DONE]";
    CHECK_STR(stream_text(QR_LLM_OPENAI, t, strlen(t), 3, 9, &r), "a");
    CHECK(r.finished);
    llm_reply_release(&r);

    /* multi-line data joins with '\n' (JSON allows the newline as whitespace) */
    llm_reply_init(&r);
    t = "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"b\"}}]}\n\n";
    CHECK_STR(stream_text(QR_LLM_OPENAI, t, strlen(t), 0, 0, &r), "b");
    CHECK(!r.finished); /* no [DONE], no finish_reason */
    llm_reply_release(&r);

    /* an error event */
    llm_reply_init(&r);
    t = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
        "\"message\":\"Overloaded\"}}\n\n";
    CHECK_STR(stream_text(QR_LLM_ANTHROPIC, t, strlen(t), 5, 20, &r), "ERR:");
    CHECK(r.failed && r.retryable && !r.malformed && strstr(r.error, "Overloaded"));
    llm_reply_release(&r);

    /* a chunk that is not JSON */
    llm_reply_init(&r);
    t = "data: {oops\n\n";
    CHECK_STR(stream_text(QR_LLM_OPENAI, t, strlen(t), 1, 2, &r), "ERR:");
    CHECK(r.failed && r.malformed);
    llm_reply_release(&r);
}

/* ---- statuses, messages, scrubbing ---- */

static void test_status(void)
{
    CHECK(llm_status_class(200) == LLM_STATUS_OK);
    CHECK(llm_status_class(429) == LLM_STATUS_RETRY);
    CHECK(llm_status_class(500) == LLM_STATUS_RETRY);
    CHECK(llm_status_class(503) == LLM_STATUS_RETRY);
    CHECK(llm_status_class(529) == LLM_STATUS_RETRY);
    CHECK(llm_status_class(408) == LLM_STATUS_RETRY);
    CHECK(llm_status_class(400) == LLM_STATUS_FAIL);
    CHECK(llm_status_class(401) == LLM_STATUS_FAIL);
    CHECK(llm_status_class(403) == LLM_STATUS_FAIL);
    CHECK(llm_status_class(404) == LLM_STATUS_FAIL);

    qr_llm_config c;
    base_config(&c, QR_LLM_OPENAI, "http://h/v1");
    char msg[400];
    const char *body = "{\"error\":{\"message\":\"Incorrect API key provided: test-key-123-secret\"}}";
    llm_status_message(&c, "http://h/v1/chat/completions", 401, body, strlen(body), msg,
                       sizeof msg);
    CHECK_STR(msg, "HTTP 401 from http://h/v1/chat/completions: the API key was rejected; check "
                   "QUARRY_LLM_API_KEY");
    const char *b404 = "{\"error\":{\"message\":\"model 'test-model' not found\"}}";
    llm_status_message(&c, "http://h/v1/chat/completions", 404, b404, strlen(b404), msg,
                       sizeof msg);
    CHECK(strstr(msg, "'test-model'") && strstr(msg, "'http://h/v1'") &&
          strstr(msg, "QUARRY_LLM_MODEL"));
    const char *b400 = "{\"error\":{\"message\":\"bad key test-key-123-secret here\"}}";
    llm_status_message(&c, "E", 400, b400, strlen(b400), msg, sizeof msg);
    CHECK_STR(msg, "HTTP 400 from E: bad key [redacted] here");
    free(c.api_key);
    c.api_key = NULL;
    llm_status_message(&c, "E", 403, "", 0, msg, sizeof msg);
    CHECK_STR(msg, "HTTP 403 from E: the server wants an API key; set QUARRY_LLM_API_KEY");
    qr_llm_config_clear(&c);

    char s[40] = "a KEYKEY b KEYKEY";
    llm_scrub(s, sizeof s, "KEYKEY");
    CHECK_STR(s, "a [redacted] b [redacted]");
    char small[12] = "xx KEYKEY y";
    llm_scrub(small, sizeof small, "KEYKEY");
    CHECK(strstr(small, "KEYKEY") == NULL && strlen(small) < sizeof small);
    /* a message cut before the whole key: the piece of its start is masked too */
    const char *key = "sk-SECRET-user-key-1234567890";
    char pad[400];
    memset(pad, 'x', 147);
    snprintf(pad + 147, sizeof pad - 147, "%s and more", key);
    char big[600];
    snprintf(big, sizeof big, "{\"error\":{\"message\":\"%s\"}}", pad);
    qr_llm_config kc;
    qr_llm_config_init(&kc);
    kc.api_key = strdup(key);
    llm_status_message(&kc, "E", 400, big, strlen(big), msg, sizeof msg);
    CHECK(strstr(msg, "sk-SECRE") == NULL && strstr(msg, "SECRET") == NULL);
    qr_llm_config_clear(&kc);
    char cut[64] = "text then sk-SECRET-us";
    llm_scrub(cut, sizeof cut, key);
    CHECK_STR(cut, "text then [redacted]");
    char harmless[64] = "sk- is a common prefix";
    llm_scrub(harmless, sizeof harmless, key);
    CHECK_STR(harmless, "sk- is a common prefix");
    /* any 8 characters in a row from anywhere in the key, not only its start */
    char mid[128] = "echo: user-key-12 and 34567890 and RET-user, not RET-use here";
    llm_scrub(mid, sizeof mid, key);
    CHECK_STR(mid, "echo: [redacted] and [redacted] and [redacted], not RET-use here");
    char tail[64] = "x1234567890";
    llm_scrub(tail, sizeof tail, key);
    CHECK_STR(tail, "x[redacted]");
    char seven[64] = "1234567 is too short to be a piece";
    llm_scrub(seven, sizeof seven, key);
    CHECK_STR(seven, "1234567 is too short to be a piece");
    /* a key of under 8 characters: only the whole of it */
    char whole[64] = "k: abc1234 and bc1234, abc123 and abc12";
    llm_scrub(whole, sizeof whole, "abc1234");
    CHECK_STR(whole, "k: [redacted] and bc1234, [redacted] and abc12");
    const char *b401 = "{\"error\":{\"message\":\"no such key ...ER-key-1234567890\"}}";
    qr_llm_config_init(&kc);
    kc.api_key = strdup(key);
    llm_status_message(&kc, "E", 400, b401, strlen(b401), msg, sizeof msg);
    CHECK(strstr(msg, "1234567890") == NULL && strstr(msg, "[redacted]") != NULL);
    qr_llm_config_clear(&kc);
    char shortkey[10] = "abc";
    llm_scrub(shortkey, sizeof shortkey, "abc"); /* too short to be a key */
    CHECK_STR(shortkey, "abc");
}

/* ---- configuration ---- */

static const char *ENV_VARS[] = {
    "QUARRY_LLM_URL",         "QUARRY_LLM_MODEL",          "QUARRY_LLM_API_KEY",
    "QUARRY_LLM_PROVIDER",    "QUARRY_LLM_TIMEOUT_MS",     "QUARRY_LLM_MAX_RETRIES",
    "QUARRY_LLM_RETRY_BASE_MS", "QUARRY_LLM_STREAM",       "QUARRY_LLM_MAX_TOKENS",
    "QUARRY_LLM_RETRY_MAX_MS", "QUARRY_LLM_CONNECT_TIMEOUT_MS",
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof ENV_VARS / sizeof ENV_VARS[0]; i++)
        unsetenv(ENV_VARS[i]);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Loads with the given user file (NULL: none) and repo file (NULL: none); err out. */
static int load_with(const char *dir, const char *user, const char *repo, qr_llm_config *c,
                     char *err, size_t errlen)
{
    char p[300];
    snprintf(p, sizeof p, "%s/xdg/quarry/config.toml", dir);
    if (user)
        write_text(p, user);
    else
        unlink(p);
    snprintf(p, sizeof p, "%s/repo/.quarry.toml", dir);
    if (repo)
        write_text(p, repo);
    else
        unlink(p);
    snprintf(p, sizeof p, "%s/repo", dir);
    return qr_llm_config_load(c, p, err, errlen);
}

static void test_config(void)
{
    char dir[] = "/tmp/qr-llmcfg-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[300];
    const char *sub[] = {"xdg", "xdg/quarry", "repo", "home", "home/.config",
                         "home/.config/quarry"};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        mkdir(p, 0700);
    }
    snprintf(p, sizeof p, "%s/xdg", dir);
    setenv("XDG_CONFIG_HOME", p, 1);
    clear_env();
    qr_llm_config c;
    char err[400];

    /* nothing anywhere: the defaults, not configured */
    CHECK(load_with(dir, NULL, NULL, &c, err, sizeof err) == QR_OK);
    CHECK(!qr_llm_configured(&c) && c.url == NULL && c.provider == QR_LLM_NONE);
    CHECK(c.timeout_ms == 120000 && c.max_retries == 3 && c.retry_base_ms == 500 &&
          c.max_tokens == 2048 && !c.stream && c.connect_timeout_ms == 10000 &&
          c.retry_max_ms == 30000);
    qr_llm_config_clear(&c);

    /* the user file; other tables are not ours */
    const char *user = "# mine\n[memory]\nanything = 1\n\n[llm]\nurl = \"https://api.anthropic.com\"\n"
                       "model = \"claude-x\"\napi_key = \"sk-user\"\ntimeout_ms = 5_000\n"
                       "stream = true\n";
    CHECK(load_with(dir, user, NULL, &c, err, sizeof err) == QR_OK);
    CHECK(qr_llm_configured(&c) && c.provider == QR_LLM_ANTHROPIC);
    CHECK_STR(c.model, "claude-x");
    CHECK_STR(c.api_key, "sk-user");
    CHECK(c.timeout_ms == 5000 && c.stream && c.max_retries == 3);
    qr_llm_config_clear(&c);

    /* the repository's file overrides key by key */
    const char *repo = "[llm]\nmodel = 'claude-y'\nmax_retries = 0\n";
    CHECK(load_with(dir, user, repo, &c, err, sizeof err) == QR_OK);
    CHECK_STR(c.model, "claude-y");
    CHECK_STR(c.url, "https://api.anthropic.com");
    CHECK(c.max_retries == 0 && c.timeout_ms == 5000);
    qr_llm_config_clear(&c);

    /* the environment overrides both; the provider is guessed from the final URL */
    setenv("QUARRY_LLM_URL", "http://localhost:8080/v1", 1);
    setenv("QUARRY_LLM_STREAM", "0", 1);
    setenv("QUARRY_LLM_MAX_RETRIES", "5", 1);
    setenv("QUARRY_LLM_API_KEY", "", 1); /* empty: as if unset */
    CHECK(load_with(dir, user, repo, &c, err, sizeof err) == QR_OK);
    CHECK(c.provider == QR_LLM_OPENAI && !c.stream && c.max_retries == 5);
    CHECK_STR(c.url, "http://localhost:8080/v1");
    CHECK_STR(c.api_key, "sk-user");
    CHECK_STR(c.model, "claude-y");
    qr_llm_config_clear(&c);
    setenv("QUARRY_LLM_PROVIDER", "anthropic", 1);
    CHECK(load_with(dir, user, repo, &c, err, sizeof err) == QR_OK);
    CHECK(c.provider == QR_LLM_ANTHROPIC);
    qr_llm_config_clear(&c);
    clear_env();

    /* no XDG_CONFIG_HOME: ~/.config/quarry/config.toml */
    unsetenv("XDG_CONFIG_HOME");
    const char *old_home = getenv("HOME");
    char *saved_home = old_home ? strdup(old_home) : NULL;
    snprintf(p, sizeof p, "%s/home", dir);
    setenv("HOME", p, 1);
    snprintf(p, sizeof p, "%s/home/.config/quarry/config.toml", dir);
    write_text(p, "[llm]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"qwen\"\n");
    CHECK(qr_llm_config_load(&c, NULL, err, sizeof err) == QR_OK);
    CHECK_STR(c.model, "qwen");
    CHECK(c.provider == QR_LLM_OPENAI && c.api_key == NULL);
    qr_llm_config_clear(&c);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    free(saved_home);
    snprintf(p, sizeof p, "%s/xdg", dir);
    setenv("XDG_CONFIG_HOME", p, 1);

    /* bad values: the file, the line, the key, what was expected */
    char upath[300], rpath[300];
    snprintf(upath, sizeof upath, "%s/xdg/quarry/config.toml", dir);
    snprintf(rpath, sizeof rpath, "%s/repo/.quarry.toml", dir);
    struct {
        const char *user, *repo, *file, *want;
    } bad[] = {
        {"[llm]\nmodel = \"m\"\ntimeout_ms = -5\n", NULL, upath,
         ":3: [llm] timeout_ms must be an integer from 1 to 3600000, not -5"},
        {NULL, "\n[llm]\n  timeout_ms = \"5000\"\n", rpath,
         ":3: [llm] timeout_ms must be an integer from 1 to 3600000, not \"5000\""},
        {"[llm]\nstream = \"yes\"\n", NULL, upath, ":2: [llm] stream must be true or false"},
        {"[llm]\nprovider = \"gemini\"\n", NULL, upath,
         ":2: [llm] provider must be 'openai' or 'anthropic', not \"gemini\""},
        {NULL, "[llm]\ntimeout_sm = 10\n", rpath,
         ":2: unknown key [llm] timeout_sm; did you mean 'timeout_ms'?"},
        {NULL, "[llm]\nmodle = \"x\"\n", rpath, ":2: unknown key [llm] modle; did you mean 'model'?"},
        {NULL, "[llm]\ntemperature = 0.5\n", rpath,
         ":2: unknown key [llm] temperature; the keys are url, model"},
        {"[llm]\napi_key = 12345\n", NULL, upath, ":2: [llm] api_key must be a string, not (hidden)"},
        {"[llm]\nmax_retries = -1\n", NULL, upath, ":2: [llm] max_retries must be an integer from 0 to 10"},
        /* a config cannot make a command wait forever */
        {NULL, "[llm]\nmax_retries = 4294967295\n", rpath, ":2: [llm] max_retries must be an integer from 0 to 10"},
        {"[llm]\ntimeout_ms = 4294967295\n", NULL, upath, ":2: [llm] timeout_ms must be an integer from 1 to 3600000"},
        /* a repository may not say where requests go, nor with which key */
        {NULL, "[llm]\nurl = \"http://127.0.0.1:9/v1\"\n", rpath,
         ":2: [llm] url cannot be set in a repository's .quarry.toml"},
        {NULL, "[llm]\napi_key = \"sk-repo\"\n", rpath,
         ":2: [llm] api_key cannot be set in a repository's .quarry.toml"},
        {NULL, "[llm]\nprovider = \"openai\"\n", rpath,
         ":2: [llm] provider cannot be set in a repository's .quarry.toml"},
        {"[llm]\nurl = \"x\"\nurl = \"y\"\n", NULL, upath, ":3:"},
        {"llm = 5\n", NULL, upath, ": 'llm' must be a table"},
        {"[llm]\nurl = \"localhost:8080\"\n", NULL, NULL,
         "the model URL 'localhost:8080' must start with http:// or https://"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc = load_with(dir, bad[i].user, bad[i].repo, &c, err, sizeof err);
        CHECK(rc == QR_EINVAL);
        bool ok = strstr(err, bad[i].want) != NULL &&
                  (!bad[i].file || strncmp(err, bad[i].file, strlen(bad[i].file)) == 0);
        if (!ok)
            fprintf(stderr, "case %zu: got \"%s\", want \"%s%s\"\n", i, err,
                    bad[i].file ? bad[i].file : "", bad[i].want);
        CHECK(ok);
        CHECK(c.url == NULL && c.model == NULL); /* cleared on error */
        qr_llm_config_clear(&c);
    }

    /* bad environment values name the variable, never the key's value */
    struct {
        const char *var, *val, *want;
    } benv[] = {
        {"QUARRY_LLM_TIMEOUT_MS", "abc", "QUARRY_LLM_TIMEOUT_MS must be an integer from 1 to 3600000, not 'abc'"},
        {"QUARRY_LLM_TIMEOUT_MS", "0", "QUARRY_LLM_TIMEOUT_MS must be an integer from 1 to 3600000, not '0'"},
        {"QUARRY_LLM_RETRY_BASE_MS", "99999999999", "must be an integer from 1 to 60000"},
        {"QUARRY_LLM_STREAM", "yes", "QUARRY_LLM_STREAM must be 0 or 1, not 'yes'"},
        {"QUARRY_LLM_PROVIDER", "OpenAI", "QUARRY_LLM_PROVIDER must be 'openai' or 'anthropic'"},
    };
    for (size_t i = 0; i < sizeof benv / sizeof benv[0]; i++) {
        clear_env();
        setenv(benv[i].var, benv[i].val, 1);
        err[0] = 0;
        CHECK(load_with(dir, NULL, NULL, &c, err, sizeof err) == QR_EINVAL);
        if (!strstr(err, benv[i].want))
            fprintf(stderr, "env case %zu: got \"%s\"\n", i, err);
        CHECK(strstr(err, benv[i].want) != NULL);
        qr_llm_config_clear(&c);
    }
    clear_env();
    setenv("QUARRY_LLM_MAX_RETRIES", "0", 1); /* zero retries is allowed */
    CHECK(load_with(dir, NULL, NULL, &c, err, sizeof err) == QR_OK && c.max_retries == 0);
    qr_llm_config_clear(&c);
    clear_env();

    CHECK_STR(llm_config_suggest("QUARRY_LLM_MODLE", true), "QUARRY_LLM_MODEL");
    CHECK(llm_config_suggest("completely_different", false) == NULL);

    unsetenv("XDG_CONFIG_HOME");
    snprintf(p, sizeof p, "rm -rf '%s'", dir);
    CHECK(system(p) == 0);
}

/* ---- the scripted model server ---- */

typedef struct server {
    pid_t pid;
    int port;
    char dir[64];
    char log[128];
} server;

static const char *source_dir(void)
{
    static char buf[1024];
    const char *s = getenv("QUARRY_SOURCE_DIR");
    if (s && *s)
        return s;
    /* __FILE__ is absolute in CMake builds: .../tests/unit/test_llm.c */
    snprintf(buf, sizeof buf, "%s", __FILE__);
    char *p = strstr(buf, "tests/unit/");
    if (p)
        *p = 0;
    return *buf ? buf : ".";
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool server_start(server *s, const char *script)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/qr-llm-XXXXXX");
    if (!mkdtemp(s->dir))
        return false;
    char path[160], portfile[160], exe[1100];
    snprintf(path, sizeof path, "%s/script.json", s->dir);
    snprintf(portfile, sizeof portfile, "%s/port", s->dir);
    snprintf(s->log, sizeof s->log, "%s/log.jsonl", s->dir);
    snprintf(exe, sizeof exe, "%s/tests/llm/model_server.py", source_dir());
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs(script, f);
    fclose(f);
    s->pid = fork();
    if (s->pid == 0) {
        execlp("python3", "python3", exe, "--script", path, "--log", s->log, "--port-file",
               portfile, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1000; i++) { /* up to ~20 s on a loaded machine */
        FILE *pf = fopen(portfile, "r");
        if (pf) {
            int ok = fscanf(pf, "%d", &s->port);
            fclose(pf);
            if (ok == 1 && s->port > 0)
                return true;
        }
        int st;
        if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
            s->pid = 0;
            return false;
        }
        sleep_ms(20);
    }
    return false;
}

static void server_stop(server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int st;
        waitpid(s->pid, &st, 0);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", s->dir);
}

/* The server's log as a vector of maps. */
static qr_val server_log(server *s, qr_arena *a)
{
    char *text = NULL;
    size_t n = 0;
    qr_vecb vb;
    qr_vecb_init(&vb, a, 8);
    if (qr_read_file(s->log, 0, &text, &n) == QR_OK) {
        char *line = text;
        while (line < text + n) {
            char *end = strchr(line, '\n');
            if (!end)
                end = text + n;
            qr_val v;
            qr_read_error err;
            if (end > line && qr_json_read(a, line, (size_t)(end - line), &v, &err) == QR_OK)
                qr_vecb_push(&vb, v);
            line = end + 1;
        }
    }
    free(text);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* v.k1.k2... as a string, or "" */
static const char *path_str(qr_arena *a, qr_val v, const char *k1, const char *k2)
{
    qr_val x;
    if (!llm_field(a, v, k1, &x))
        return "";
    if (k2 && !llm_field(a, x, k2, &x))
        return "";
    return x.t == QR_T_STR ? x.s->data : "";
}

typedef struct logsink {
    int n;
    char last[600];
    bool key_seen;
} logsink;

static void on_log(void *ud, const char *line)
{
    logsink *ls = ud;
    ls->n++;
    snprintf(ls->last, sizeof ls->last, "%s", line);
    if (strstr(line, KEY))
        ls->key_seen = true;
}

typedef struct call {
    int rc;
    qr_llm_response resp;
    logsink log;
} call;

/* One qr_llm_complete against the server, with the given provider and options. */
static void do_call(server *s, qr_llm_provider p, bool stream, uint32_t retries, const char *system,
                    call *out)
{
    char url[100];
    if (p == QR_LLM_ANTHROPIC)
        snprintf(url, sizeof url, "http://127.0.0.1:%d", s->port);
    else
        snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", s->port);
    qr_llm_config c;
    base_config(&c, p, url);
    c.stream = stream;
    c.max_retries = retries;
    qr_llm *l = qr_llm_new(&c);
    memset(&out->log, 0, sizeof out->log);
    qr_llm_set_log(l, on_log, &out->log);
    qr_llm_message m = user_msg("what changed in src/?");
    qr_llm_request r = simple_request(&m, 1, system);
    out->rc = qr_llm_complete(l, &r, &out->resp);
    qr_llm_free(l);
    qr_llm_config_clear(&c);
}

static void test_server_plain(void)
{
    server s;
    if (!server_start(&s, "{\"responses\":[{\"text\":\"the answer\"},{\"text\":\"second\","
                          "\"stop_reason\":\"end_turn\"},{\"text\":\"third\",\"usage\":{"
                          "\"input\":5,\"output\":6,\"cache_read\":7}}]}")) {
        CHECK(!"model server did not start");
        return;
    }
    call c;
    do_call(&s, QR_LLM_OPENAI, false, 3, "You are quarry's test agent. Answer briefly.", &c);
    CHECK(c.rc == QR_OK);
    CHECK_STR(c.resp.text, "the answer");
    CHECK(c.resp.len == 10);
    CHECK_STR(c.resp.stop_reason, "stop");
    CHECK(c.resp.attempts == 1 && c.resp.http_status == 200 && c.resp.error[0] == 0);
    /* prompt chars / 4: (44 + 21) / 4 = 16; output 10 / 4 = 2 */
    CHECK(c.resp.usage.input == 16 && c.resp.usage.output == 2);
    CHECK(c.resp.usage.cache_read == 0 && c.resp.usage.cache_write == 0);
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_ANTHROPIC, false, 3, "You are quarry's test agent. Answer briefly.", &c);
    CHECK(c.rc == QR_OK);
    CHECK_STR(c.resp.text, "second");
    CHECK_STR(c.resp.stop_reason, "end_turn");
    /* the system text goes to the cache: 44 / 4 written, the message 21 / 4 input */
    CHECK(c.resp.usage.input == 5 && c.resp.usage.cache_write == 11 &&
          c.resp.usage.cache_read == 0 && c.resp.usage.output == 1);
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_OPENAI, false, 3, NULL, &c);
    CHECK(c.rc == QR_OK);
    CHECK(c.resp.usage.input == 5 && c.resp.usage.output == 6 && c.resp.usage.cache_read == 7);
    qr_llm_response_clear(&c.resp);

    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val log = server_log(&s, &a);
    CHECK(log.t == QR_T_VEC && qr_vec_len(log) == 3);
    if (qr_vec_len(log) == 3) {
        qr_val e0 = qr_vec_at(log, 0), e1 = qr_vec_at(log, 1), e2 = qr_vec_at(log, 2);
        CHECK_STR(path_str(&a, e0, "path", NULL), "/v1/chat/completions");
        CHECK_STR(path_str(&a, e0, "headers", "authorization"), "Bearer test-key-123-secret");
        CHECK_STR(path_str(&a, e0, "headers", "x-api-key"), "");
        CHECK_STR(path_str(&a, e0, "headers", "content-type"), "application/json");
        qr_val body, msgs, sys;
        CHECK(llm_field(&a, e0, "body", &body) && llm_field(&a, body, "messages", &msgs));
        CHECK(msgs.t == QR_T_VEC && qr_vec_len(msgs) == 2);
        if (msgs.t == QR_T_VEC && qr_vec_len(msgs) == 2) {
            CHECK_STR(path_str(&a, qr_vec_at(msgs, 0), "role", NULL), "system");
            CHECK_STR(path_str(&a, qr_vec_at(msgs, 1), "content", NULL), "what changed in src/?");
        }
        CHECK_STR(path_str(&a, body, "model", NULL), "test-model");

        CHECK_STR(path_str(&a, e1, "path", NULL), "/v1/messages");
        CHECK_STR(path_str(&a, e1, "headers", "x-api-key"), KEY);
        CHECK_STR(path_str(&a, e1, "headers", "anthropic-version"), "2023-06-01");
        CHECK_STR(path_str(&a, e1, "headers", "authorization"), "");
        CHECK(llm_field(&a, e1, "body", &body) && llm_field(&a, body, "system", &sys));
        CHECK(sys.t == QR_T_VEC && qr_vec_len(sys) == 1);
        if (sys.t == QR_T_VEC && qr_vec_len(sys) == 1)
            CHECK_STR(path_str(&a, qr_vec_at(sys, 0), "cache_control", "type"), "ephemeral");
        /* no system text: no system message */
        CHECK(llm_field(&a, e2, "body", &body) && llm_field(&a, body, "messages", &msgs));
        CHECK(msgs.t == QR_T_VEC && qr_vec_len(msgs) == 1);
    }
    qr_arena_release(&a);
    server_stop(&s);
}

static void test_server_stream_and_cache(void)
{
    server s;
    if (!server_start(&s, "{\"responses\":[{\"text\":\"streamed reply, in pieces\"},"
                          "{\"text\":\"streamed reply, in pieces\"},{\"text\":\"again\"},"
                          "{\"text\":\"again\"},{\"text\":\"x\"}]}")) {
        CHECK(!"model server did not start");
        return;
    }
    const char *sys = "A long, stable system prompt that is cached: role, tools, DSL.";
    call c;
    do_call(&s, QR_LLM_OPENAI, true, 0, sys, &c);
    CHECK(c.rc == QR_OK);
    CHECK_STR(c.resp.text, "streamed reply, in pieces");
    CHECK_STR(c.resp.stop_reason, "stop");
    CHECK(c.resp.usage.output == 6 && c.resp.usage.input == 20 && c.resp.usage.cache_read == 0);
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_ANTHROPIC, true, 0, sys, &c);
    CHECK(c.rc == QR_OK);
    CHECK_STR(c.resp.text, "streamed reply, in pieces");
    CHECK_STR(c.resp.stop_reason, "end_turn");
    CHECK(c.resp.usage.output == 6 && c.resp.usage.cache_write == 15 &&
          c.resp.usage.cache_read == 0 && c.resp.usage.input == 5);
    qr_llm_response_clear(&c.resp);

    /* the same prefix again: read from the cache */
    do_call(&s, QR_LLM_ANTHROPIC, false, 0, sys, &c);
    CHECK(c.rc == QR_OK);
    CHECK(c.resp.usage.cache_read == 15 && c.resp.usage.cache_write == 0 &&
          c.resp.usage.input == 5);
    qr_llm_response_clear(&c.resp);
    do_call(&s, QR_LLM_OPENAI, false, 0, sys, &c);
    CHECK(c.rc == QR_OK);
    CHECK(c.resp.usage.cache_read == 15 && c.resp.usage.input == 5);
    qr_llm_response_clear(&c.resp);

    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val log = server_log(&s, &a), body, so;
    CHECK(qr_vec_len(log) == 4);
    if (qr_vec_len(log) >= 2) {
        CHECK(llm_field(&a, qr_vec_at(log, 0), "body", &body));
        CHECK(llm_field(&a, body, "stream_options", &so));
        CHECK_STR(path_str(&a, qr_vec_at(log, 0), "headers", "accept"), "text/event-stream");
        qr_val st;
        CHECK(llm_field(&a, qr_vec_at(log, 1), "body", &body) &&
              llm_field(&a, body, "stream", &st) && st.t == QR_T_BOOL && st.b);
    }
    qr_arena_release(&a);
    server_stop(&s);
}

static void test_server_failures(void)
{
    server s;
    if (!server_start(&s, "{\"responses\":["
                          "{\"status\":429,\"retry_after\":0,\"text\":\"slow down\"},"
                          "{\"text\":\"after 429\"},"
                          "{\"status\":500},{\"status\":500},{\"status\":503},"
                          "{\"status\":401,\"text\":\"invalid x-api-key\"},"
                          "{\"garbage\":\"<html>not json</html>\"},"
                          "{\"status\":404,\"text\":\"model not found\"},"
                          "{\"status\":400,\"text\":\"your key test-key-123-secret is odd\"},"
                          "{\"delay_ms\":3000,\"text\":\"too late\"},"
                          "{\"garbage\":\"data: nonsense\"}"
                          "]}")) {
        CHECK(!"model server did not start");
        return;
    }
    call c;
    do_call(&s, QR_LLM_OPENAI, false, 3, "sys", &c);
    CHECK(c.rc == QR_OK);
    CHECK_STR(c.resp.text, "after 429");
    CHECK(c.resp.attempts == 2 && c.log.n == 1);
    CHECK(strstr(c.log.last, "HTTP 429") && strstr(c.log.last, "slow down") &&
          strstr(c.log.last, "retrying in 0 ms (attempt 2 of 4)"));
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_ANTHROPIC, false, 2, "sys", &c);
    CHECK(c.rc == QR_EIO);
    CHECK(c.resp.attempts == 3 && c.log.n == 2 && c.resp.http_status == 503);
    CHECK(c.resp.text == NULL);
    CHECK(strstr(c.resp.error, "HTTP 503 from http://127.0.0.1:") &&
          strstr(c.resp.error, "gave up after 3 attempts"));
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_ANTHROPIC, false, 3, "sys", &c);
    CHECK(c.rc == QR_EIO && c.resp.attempts == 1 && c.log.n == 0 && c.resp.http_status == 401);
    CHECK(strstr(c.resp.error, "QUARRY_LLM_API_KEY") && !strstr(c.resp.error, KEY));
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_OPENAI, false, 3, "sys", &c);
    CHECK(c.rc == QR_EINVAL && c.resp.attempts == 1);
    CHECK(strstr(c.resp.error, "bad response from") && strstr(c.resp.error, "not JSON"));
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_OPENAI, false, 3, "sys", &c);
    CHECK(c.rc == QR_EIO && c.resp.attempts == 1 && c.resp.http_status == 404);
    CHECK(strstr(c.resp.error, "'test-model'") && strstr(c.resp.error, "model not found"));
    qr_llm_response_clear(&c.resp);

    do_call(&s, QR_LLM_OPENAI, false, 3, "sys", &c);
    CHECK(c.rc == QR_EIO && c.resp.attempts == 1);
    CHECK(!strstr(c.resp.error, KEY) && strstr(c.resp.error, "[redacted]"));
    qr_llm_response_clear(&c.resp);

    /* a timeout, no retries; the server's late answer is dropped */
    {
        char url[100];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", s.port);
        qr_llm_config cf;
        base_config(&cf, QR_LLM_OPENAI, url);
        cf.timeout_ms = 300;
        cf.max_retries = 0;
        qr_llm *l = qr_llm_new(&cf);
        qr_llm_message m = user_msg("q");
        qr_llm_request r = simple_request(&m, 1, NULL);
        qr_llm_response resp;
        CHECK(qr_llm_complete(l, &r, &resp) == QR_EIO);
        CHECK(strstr(resp.error, "no answer from the model") && resp.attempts == 1);
        qr_llm_response_clear(&resp);
        qr_llm_free(l);
        qr_llm_config_clear(&cf);
    }

    /* stream asked, a plain JSON answer that is not JSON: parsed as a body, refused */
    do_call(&s, QR_LLM_OPENAI, true, 3, "sys", &c);
    CHECK(c.rc == QR_EINVAL && c.resp.attempts == 1);
    qr_llm_response_clear(&c.resp);

    /* script exhausted: the server says so, a 500 retried until the end */
    do_call(&s, QR_LLM_OPENAI, false, 1, "sys", &c);
    CHECK(c.rc == QR_EIO && c.resp.attempts == 2);
    CHECK(strstr(c.resp.error, "model_server: script exhausted") != NULL);
    CHECK(!c.log.key_seen);
    qr_llm_response_clear(&c.resp);
    server_stop(&s);
}

static void test_connection_refused(void)
{
    /* a port nothing listens on: bind one, note it, close it */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    close(fd);
    server s = {.port = ntohs(sa.sin_port)};
    call c;
    do_call(&s, QR_LLM_OPENAI, false, 1, "sys", &c);
    CHECK(c.rc == QR_EIO && c.resp.attempts == 2 && c.log.n == 1 && c.resp.http_status == 0);
    CHECK(strstr(c.resp.error, "cannot reach the model at http://127.0.0.1:") &&
          strstr(c.resp.error, "is the server running?"));
    CHECK(strstr(c.log.last, "retrying in"));
    qr_llm_response_clear(&c.resp);

    /* not configured: a clear message, no attempt */
    qr_llm_config cf;
    qr_llm_config_init(&cf);
    qr_llm *l = qr_llm_new(&cf);
    qr_llm_message m = user_msg("q");
    qr_llm_request r = simple_request(&m, 1, NULL);
    CHECK(qr_llm_complete(l, &r, &c.resp) == QR_EINVAL);
    CHECK(strstr(c.resp.error, "QUARRY_LLM_URL") && c.resp.attempts == 0);
    qr_llm_response_clear(&c.resp);
    qr_llm_free(l);
}

/* A streamed reply that never ends is cut at the body limit, not read until memory runs
 * out; the failure is final (not retried). */
static void test_server_flood(void)
{
    server s;
    if (!server_start(&s, "{\"responses\":[{\"flood_mb\":48},{\"flood_mb\":48}]}")) {
        CHECK(!"model server did not start");
        return;
    }
    call c;
    do_call(&s, QR_LLM_OPENAI, true, 3, NULL, &c);
    CHECK(c.rc == QR_EINVAL);
    CHECK(strstr(c.resp.error, "larger than 32 MB") != NULL);
    CHECK(c.resp.attempts == 1);
    qr_llm_response_clear(&c.resp);
    do_call(&s, QR_LLM_ANTHROPIC, true, 3, NULL, &c);
    CHECK(c.rc == QR_EINVAL && c.resp.attempts == 1);
    qr_llm_response_clear(&c.resp);
    server_stop(&s);
}

int main(void)
{
    test_request_json();
    test_endpoints();
    test_parse_bodies();
    test_sse();
    test_status();
    test_config();
    test_server_plain();
    test_server_stream_and_cache();
    test_server_failures();
    test_server_flood();
    test_connection_refused();
    CHECK_DONE();
}
