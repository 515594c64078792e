/*
 * wire_tools.c: function calling in both wire formats. quarry passes tool definitions,
 * the calls a model made and their results as JSON text in one neutral shape (see
 * quarry/llm.h); this file translates that shape into each format's request fields and
 * reads each format's tool calls back into it.
 *
 *   OpenAI:    tools [{type:function, function:{name, description, parameters}}];
 *              assistant {tool_calls:[{id, type:function, function:{name, arguments:
 *              "<JSON text>"}}]}; results {role:tool, tool_call_id, content}.
 *   Anthropic: tools [{name, description, input_schema}]; assistant content blocks
 *              {type:tool_use, id, name, input}; results {type:tool_result, tool_use_id,
 *              content} blocks in one user message.
 *
 * A call's arguments that are not a JSON object (a model's mistake) are kept as a JSON
 * string, so the caller can say so to the model instead of failing the reply.
 */
#include "llm_int.h"

#include <stdio.h>
#include <string.h>

static int read_array(qr_arena *a, const char *s, size_t n, qr_val *out)
{
    qr_read_error err;
    if (qr_json_read(a, s, n, out, &err) != QR_OK || out->t != QR_T_VEC)
        return QR_EINVAL;
    return QR_OK;
}

static void put_str_field(qr_buf *out, qr_arena *a, qr_val m, const char *key)
{
    size_t n = 0;
    const char *s = llm_field_str(a, m, key, &n);
    qr_buf_json_string(out, s ? s : "", s ? n : 0);
}

static void put_value_field(qr_buf *out, qr_arena *a, qr_val m, const char *key,
                            const char *dflt)
{
    qr_val v;
    if (llm_field(a, m, key, &v) && !qr_is_nil(v))
        qr_print_json(out, v, false);
    else
        qr_buf_puts(out, dflt);
}

int llm_tools_json(qr_llm_provider p, const char *tools, size_t n, qr_buf *out)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    int rc = read_array(&a, tools, n, &v);
    if (rc == QR_OK) {
        qr_buf_puts(out, ",\"tools\":[");
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            qr_val t = qr_vec_at(v, i);
            if (i)
                qr_buf_putc(out, ',');
            if (p == QR_LLM_ANTHROPIC) {
                qr_buf_puts(out, "{\"name\":");
                put_str_field(out, &a, t, "name");
                qr_buf_puts(out, ",\"description\":");
                put_str_field(out, &a, t, "description");
                qr_buf_puts(out, ",\"input_schema\":");
                put_value_field(out, &a, t, "input_schema", "{\"type\":\"object\"}");
                qr_buf_putc(out, '}');
            } else {
                qr_buf_puts(out, "{\"type\":\"function\",\"function\":{\"name\":");
                put_str_field(out, &a, t, "name");
                qr_buf_puts(out, ",\"description\":");
                put_str_field(out, &a, t, "description");
                qr_buf_puts(out, ",\"parameters\":");
                put_value_field(out, &a, t, "input_schema", "{\"type\":\"object\"}");
                qr_buf_puts(out, "}}");
            }
        }
        qr_buf_putc(out, ']');
    }
    qr_arena_release(&a);
    return rc;
}

int llm_calls_json(qr_llm_provider p, const char *calls, size_t n, qr_buf *out)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    int rc = read_array(&a, calls, n, &v);
    if (rc == QR_OK) {
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            qr_val c = qr_vec_at(v, i);
            if (i)
                qr_buf_putc(out, ',');
            if (p == QR_LLM_ANTHROPIC) {
                qr_buf_puts(out, "{\"type\":\"tool_use\",\"id\":");
                put_str_field(out, &a, c, "id");
                qr_buf_puts(out, ",\"name\":");
                put_str_field(out, &a, c, "name");
                qr_buf_puts(out, ",\"input\":");
                qr_val args;
                if (llm_field(&a, c, "arguments", &args) && args.t == QR_T_MAP)
                    qr_print_json(out, args, false);
                else
                    qr_buf_puts(out, "{}");
                qr_buf_putc(out, '}');
            } else {
                qr_buf_puts(out, "{\"id\":");
                put_str_field(out, &a, c, "id");
                qr_buf_puts(out, ",\"type\":\"function\",\"function\":{\"name\":");
                put_str_field(out, &a, c, "name");
                qr_buf_puts(out, ",\"arguments\":");
                qr_val args;
                qr_buf text;
                qr_buf_init(&text);
                if (llm_field(&a, c, "arguments", &args) && args.t == QR_T_STR)
                    qr_buf_append(&text, args.s->data, args.s->len);
                else if (llm_field(&a, c, "arguments", &args) && !qr_is_nil(args))
                    qr_print_json(&text, args, false);
                else
                    qr_buf_puts(&text, "{}");
                qr_buf_json_string(out, text.p ? text.p : "", text.len);
                qr_buf_release(&text);
                qr_buf_puts(out, "}}");
            }
        }
    }
    qr_arena_release(&a);
    return rc;
}

void llm_reply_add_call(llm_reply *r, const char *id, size_t idn, const char *name,
                        size_t namen, const char *args, size_t argsn)
{
    qr_buf *b = &r->calls;
    qr_buf_puts(b, r->ncalls ? "," : "[");
    qr_buf_puts(b, "{\"id\":");
    char gen[32];
    if (!id || !idn) {
        snprintf(gen, sizeof gen, "call_%zu", r->ncalls + 1);
        id = gen;
        idn = strlen(gen);
    }
    qr_buf_json_string(b, id, idn);
    qr_buf_puts(b, ",\"name\":");
    qr_buf_json_string(b, name ? name : "", name ? namen : 0);
    qr_buf_puts(b, ",\"arguments\":");
    /* an object stays an object; anything else becomes a string */
    qr_arena a;
    qr_arena_init(&a, (size_t)LLM_MAX_BODY * 4);
    qr_val v;
    qr_read_error err;
    size_t k = 0;
    while (k < argsn && (args[k] == ' ' || args[k] == '\n' || args[k] == '\t' || args[k] == '\r'))
        k++;
    if (args && k == argsn)
        qr_buf_puts(b, "{}");
    else if (args && qr_json_read(&a, args, argsn, &v, &err) == QR_OK && v.t == QR_T_MAP)
        qr_buf_append(b, args, argsn);
    else
        qr_buf_json_string(b, args ? args : "", args ? argsn : 0);
    qr_arena_release(&a);
    qr_buf_putc(b, '}');
    r->ncalls++;
}
