/*
 * test_llm_tools.c: function calling in the LLM client's two wire formats: the request
 * body for tool definitions, an assistant message with calls and the tool results
 * (OpenAI: tool_calls with arguments as JSON text, role "tool"; Anthropic: tool_use
 * blocks, consecutive results merged into one user message of tool_result blocks), no
 * streaming with tools, and the calls read back from both formats' replies into the
 * neutral JSON (arguments that are not an object kept as a string).
 */
#include "check.h"
#include "llm/llm_int.h"
#include "quarry/llm.h"
#include "quarry/value.h"

#include <stdlib.h>

static const char TOOLS[] = "[{\"name\":\"get_commits\",\"description\":\"List commits\","
                            "\"input_schema\":{\"type\":\"object\",\"properties\":{\"limit\":"
                            "{\"type\":\"integer\"}}}}]";
static const char CALLS[] = "[{\"id\":\"c1\",\"name\":\"get_commits\",\"arguments\":{\"limit\":2}},"
                            "{\"id\":\"c2\",\"name\":\"get_commits\",\"arguments\":{}}]";

static void body(qr_llm_provider p, bool stream, qr_buf *out)
{
    qr_llm_config c;
    qr_llm_config_init(&c);
    c.model = "m";
    c.stream = stream;
    c.max_tokens = 100;
    qr_llm_message m[4] = {
        {.role = "user", .content = "q", .len = 1},
        {.role = "assistant", .content = "", .len = 0, .tool_calls = CALLS,
         .tool_calls_len = sizeof CALLS - 1},
        {.role = "tool", .content = "r1", .len = 2, .tool_call_id = "c1"},
        {.role = "tool", .content = "r2", .len = 2, .tool_call_id = "c2"},
    };
    qr_llm_request r = {.system = "sys", .system_len = 3, .messages = m, .nmessages = 4,
                        .tools = TOOLS, .tools_len = sizeof TOOLS - 1};
    CHECK((p == QR_LLM_ANTHROPIC ? llm_anthropic_body(&c, &r, out) : llm_openai_body(&c, &r, out)) ==
          QR_OK);
}

static void test_bodies(void)
{
    qr_buf b;
    qr_buf_init(&b);
    body(QR_LLM_OPENAI, true, &b);
    CHECK_STR(b.p, "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"sys\"},"
                   "{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":null,"
                   "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":"
                   "\"get_commits\",\"arguments\":\"{\\\"limit\\\":2}\"}},{\"id\":\"c2\",\"type\":"
                   "\"function\",\"function\":{\"name\":\"get_commits\",\"arguments\":\"{}\"}}]},"
                   "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"r1\"},{\"role\":\"tool\","
                   "\"tool_call_id\":\"c2\",\"content\":\"r2\"}],\"max_tokens\":100,\"temperature\":0,"
                   "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_commits\","
                   "\"description\":\"List commits\",\"parameters\":{\"type\":\"object\","
                   "\"properties\":{\"limit\":{\"type\":\"integer\"}}}}}],\"stream\":false}");
    qr_buf_reset(&b);
    body(QR_LLM_ANTHROPIC, true, &b);
    CHECK_STR(b.p, "{\"model\":\"m\",\"max_tokens\":100,\"system\":[{\"type\":\"text\",\"text\":"
                   "\"sys\",\"cache_control\":{\"type\":\"ephemeral\"}}],\"messages\":[{\"role\":"
                   "\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":[{\"type\":"
                   "\"tool_use\",\"id\":\"c1\",\"name\":\"get_commits\",\"input\":{\"limit\":2}},"
                   "{\"type\":\"tool_use\",\"id\":\"c2\",\"name\":\"get_commits\",\"input\":{}}]},"
                   "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c1\","
                   "\"content\":\"r1\"},{\"type\":\"tool_result\",\"tool_use_id\":\"c2\",\"content\":"
                   "\"r2\"}]}],\"tools\":[{\"name\":\"get_commits\",\"description\":\"List commits\","
                   "\"input_schema\":{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":"
                   "\"integer\"}}}}],\"temperature\":0,\"stream\":false}");
    qr_buf_release(&b);
    /* malformed neutral JSON is a bad request, not a crash */
    qr_llm_config c;
    qr_llm_config_init(&c);
    qr_llm_message m = {.role = "user", .content = "q", .len = 1};
    qr_llm_request r = {.messages = &m, .nmessages = 1, .tools = "{oops", .tools_len = 5};
    qr_buf_init(&b);
    CHECK(llm_openai_body(&c, &r, &b) == QR_EINVAL);
    qr_buf_reset(&b);
    CHECK(llm_anthropic_body(&c, &r, &b) == QR_EINVAL);
    qr_buf_release(&b);
}

static void test_replies(void)
{
    llm_reply r;
    llm_reply_init(&r);
    const char *oa = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,"
                     "\"tool_calls\":[{\"id\":\"x1\",\"type\":\"function\",\"function\":{\"name\":"
                     "\"get_commits\",\"arguments\":\"{\\\"limit\\\": 3}\"}},{\"id\":\"x2\",\"type\":"
                     "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"not json\"}}]},"
                     "\"finish_reason\":\"tool_calls\"}]}";
    CHECK(llm_openai_parse(oa, strlen(oa), &r) == QR_OK);
    CHECK(r.ncalls == 2);
    qr_buf_putc(&r.calls, ']');
    CHECK_STR(r.calls.p, "[{\"id\":\"x1\",\"name\":\"get_commits\",\"arguments\":{\"limit\": 3}},"
                         "{\"id\":\"x2\",\"name\":\"f\",\"arguments\":\"not json\"}]");
    CHECK_STR(r.stop, "tool_calls");
    llm_reply_release(&r);

    llm_reply_init(&r);
    const char *an = "{\"content\":[{\"type\":\"text\",\"text\":\"Looking.\"},{\"type\":\"tool_use\","
                     "\"id\":\"tu1\",\"name\":\"get_commits\",\"input\":{\"limit\":1}},{\"type\":"
                     "\"tool_use\",\"name\":\"g\",\"input\":{}}],\"stop_reason\":\"tool_use\"}";
    CHECK(llm_anthropic_parse(an, strlen(an), &r) == QR_OK);
    CHECK(r.ncalls == 2);
    qr_buf_putc(&r.calls, ']');
    CHECK_STR(r.calls.p, "[{\"id\":\"tu1\",\"name\":\"get_commits\",\"arguments\":{\"limit\":1}},"
                         "{\"id\":\"call_2\",\"name\":\"g\",\"arguments\":{}}]");
    CHECK_STR(r.text.p, "Looking.");
    llm_reply_release(&r);
}

int main(void)
{
    test_bodies();
    test_replies();
    CHECK_DONE();
}
