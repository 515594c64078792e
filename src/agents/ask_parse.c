/*
 * ask_parse.c: reading what a model replied. Models wrap data in prose and fences, write
 * EDN or JSON, and sometimes the seed's (return {...}) form; all of those are accepted.
 * The data is located (the first fenced block, else the first balanced {...} or (...) in
 * the text) and read with quarry's own readers, JSON first (a JSON object is not valid
 * EDN), then EDN. Nothing a model wrote is evaluated here: a reply is data.
 *
 * Rejected: asking providers for JSON mode or tool calls to get structured output (not
 * every OpenAI-compatible server supports them, and the DSL reads better as EDN).
 */
#include "ask_int.h"

#include <string.h>

bool ask_is_name(qr_val v, const char *name)
{
    size_t n = strlen(name);
    if (v.t == QR_T_KW) {
        size_t len;
        const char *s = qr_sym_name(v.sym, &len);
        return len == n && !memcmp(s, name, n) && v.sym->ns_len == 0;
    }
    if (v.t == QR_T_STR)
        return v.s->len == n && !memcmp(v.s->data, name, n);
    return false;
}

bool ask_get(qr_arena *a, qr_val m, const char *k, qr_val *out)
{
    return m.t == QR_T_MAP && qr_map_lookup(m, qr_kw_cstr(a, k), out);
}

/* The body of the first ``` fence: after its info string, up to the closing fence (or
 * the end of the text when it is not closed). */
static bool fenced(const char *text, size_t n, size_t *from, size_t *to)
{
    const char *open = NULL;
    for (size_t i = 0; i + 3 <= n; i++) {
        if (!memcmp(text + i, "```", 3)) {
            open = text + i;
            break;
        }
    }
    if (!open)
        return false;
    const char *p = open + 3, *end = text + n;
    while (p < end && *p != '\n')
        p++;
    if (p < end)
        p++;
    const char *close = p;
    while (close + 3 <= end && memcmp(close, "```", 3))
        close++;
    if (close + 3 > end)
        close = end;
    *from = (size_t)(p - text);
    *to = (size_t)(close - text);
    return true;
}

/* From the first '{' or '(' , the end of the balanced form (strings, escapes and
 * comments respected); the rest of the text when it never closes. */
static bool balanced(const char *s, size_t n, size_t *from, size_t *to)
{
    size_t i = 0;
    while (i < n && s[i] != '{' && s[i] != '(')
        i++;
    if (i == n)
        return false;
    *from = i;
    int depth = 0;
    bool str = false;
    for (; i < n; i++) {
        char c = s[i];
        if (str) {
            if (c == '\\' && i + 1 < n)
                i++;
            else if (c == '"')
                str = false;
            continue;
        }
        if (c == '"') {
            str = true;
        } else if (c == ';') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '\\' && i + 1 < n) {
            i++; /* a character literal such as \{ */
        } else if (c == '{' || c == '(' || c == '[') {
            depth++;
        } else if (c == '}' || c == ')' || c == ']') {
            if (--depth == 0) {
                *to = i + 1;
                return true;
            }
        }
    }
    *to = n;
    return true;
}

/* (return X) → X */
static qr_val unwrap_return(qr_val v)
{
    if (v.t == QR_T_LIST && qr_vec_len(v) == 2) {
        qr_val head = qr_vec_at(v, 0);
        size_t len;
        if (head.t == QR_T_SYM) {
            const char *nm = qr_sym_name(head.sym, &len);
            if (len == 6 && !memcmp(nm, "return", 6))
                return qr_vec_at(v, 1);
        }
    }
    return v;
}

int qr_ask_parse_reply(qr_arena *a, const char *text, size_t n, qr_val *out, bool *json,
                       qr_buf *err)
{
    *json = false;
    size_t from = 0, to = n, bf, bt;
    fenced(text, n, &from, &to);
    if (!balanced(text + from, to - from, &bf, &bt)) {
        qr_buf_puts(err, "the reply holds no EDN map: expected {:mode ...} in a ```edn block");
        return QR_EINVAL;
    }
    const char *s = text + from + bf;
    size_t len = bt - bf;
    qr_read_error je, ee;
    if (s[0] == '{' && qr_json_read(a, s, len, out, &je) == QR_OK) {
        *json = true;
        return QR_OK;
    }
    qr_val forms;
    int rc = qr_read_all(a, s, len, QR_READ_EDN, &forms, &ee);
    if (rc == QR_ENOMEM)
        return rc;
    if (rc != QR_OK) {
        qr_buf_printf(err, "the reply does not parse as EDN: %s (line %u, column %u of the form)",
                      ee.msg, ee.line, ee.col);
        return QR_EINVAL;
    }
    if (qr_vec_len(forms) == 0) {
        qr_buf_puts(err, "the reply holds no EDN form");
        return QR_EINVAL;
    }
    *out = unwrap_return(qr_vec_at(forms, 0));
    return QR_OK;
}

void qr_ask_extract_code(const char *text, size_t n, qr_buf *out)
{
    size_t from = 0, to = n;
    fenced(text, n, &from, &to);
    qr_buf_append(out, text + from, to - from);
}

int ask_reply_mode(qr_arena *a, qr_val v, ask_mode *mode, qr_val *payload, qr_buf *err)
{
    *mode = ASK_MODE_NONE;
    if (v.t != QR_T_MAP) {
        qr_buf_puts(err, "the reply must be a map {:mode :query|:intent|:plan ...}, got ");
        qr_describe(err, v);
        return QR_EINVAL;
    }
    qr_val m, x;
    if (ask_get(a, v, "mode", &m)) {
        if (ask_is_name(m, "query")) {
            if (!ask_get(a, v, "query", &x)) {
                qr_buf_puts(err, "{:mode :query} needs a :query map");
                return QR_EINVAL;
            }
            *mode = ASK_MODE_QUERY;
        } else if (ask_is_name(m, "intent")) {
            if (!ask_get(a, v, "intent", &x) || x.t != QR_T_STR || x.s->len == 0) {
                qr_buf_puts(err, "{:mode :intent} needs an :intent string");
                return QR_EINVAL;
            }
            *mode = ASK_MODE_INTENT;
        } else if (ask_is_name(m, "plan")) {
            if (!ask_get(a, v, "steps", &x) && !ask_get(a, v, "plan", &x)) {
                qr_buf_puts(err, "{:mode :plan} needs :steps [{:id 1 :goal \"...\" :needs []} ...]");
                return QR_EINVAL;
            }
            *mode = ASK_MODE_PLAN;
        } else {
            qr_buf_puts(err, "unknown :mode ");
            qr_describe(err, m);
            qr_buf_puts(err, "; expected :query, :intent or :plan");
            return QR_EINVAL;
        }
    } else if (ask_get(a, v, "query", &x)) {
        *mode = ASK_MODE_QUERY;
    } else if (ask_get(a, v, "intent", &x) && x.t == QR_T_STR) {
        *mode = ASK_MODE_INTENT;
    } else if (ask_get(a, v, "steps", &x) || ask_get(a, v, "plan", &x)) {
        *mode = ASK_MODE_PLAN;
    } else if (ask_get(a, v, "fetch", &x) || ask_get(a, v, "transform", &x) ||
               ask_get(a, v, "return", &x)) {
        *mode = ASK_MODE_QUERY; /* a bare query */
        x = v;
    } else {
        qr_buf_puts(err, "the reply has no :mode; expected {:mode :query :query {...}}, "
                         "{:mode :intent :intent \"...\"} or {:mode :plan :steps [...]}");
        return QR_EINVAL;
    }
    if (*mode == ASK_MODE_PLAN) {
        if (!qr_is_seqcoll(x) || qr_vec_len(x) == 0) {
            qr_buf_puts(err, ":steps must be a non-empty vector of {:id :goal :needs} maps");
            *mode = ASK_MODE_NONE;
            return QR_EINVAL;
        }
        for (size_t i = 0; i < qr_vec_len(x); i++) {
            qr_val st = qr_vec_at(x, i), g;
            if (!ask_get(a, st, "goal", &g) || g.t != QR_T_STR) {
                qr_buf_printf(err, ":steps[%zu] needs a :goal string", i);
                *mode = ASK_MODE_NONE;
                return QR_EINVAL;
            }
        }
        if (qr_vec_len(x) > ASK_MAX_STEPS) {
            qr_buf_printf(err, "a plan has at most %d steps", ASK_MAX_STEPS);
            *mode = ASK_MODE_NONE;
            return QR_EINVAL;
        }
    }
    if (*mode == ASK_MODE_QUERY && x.t != QR_T_MAP) {
        qr_buf_puts(err, ":query must be a map {:fetch ... :transform ... :return ...}");
        *mode = ASK_MODE_NONE;
        return QR_EINVAL;
    }
    *payload = x;
    return QR_OK;
}
