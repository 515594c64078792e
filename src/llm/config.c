/*
 * config.c: the model configuration's settings: defaults, the one table of keys (name in
 * the [llm] TOML table, environment variable, kind, field), setting a key from a string
 * (the environment) or a value (a TOML file) with validation, and the "did you mean"
 * hint for unknown keys. Where the settings come from (files, then the environment) is
 * config_file.c.
 *
 * Design: every source goes through the same table, so a key cannot be readable from the
 * environment and silently ignored in a file, and the error names the source the way its
 * user wrote it ("QUARRY_LLM_TIMEOUT_MS" or "/path/.quarry.toml:3: [llm] timeout_ms").
 * Rejected: accepting integers written as strings in TOML ("5000"): a typed file should
 * say what it means, and the error shows how.
 */
#include "llm_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *qr_llm_provider_name(qr_llm_provider p)
{
    switch (p) {
    case QR_LLM_OPENAI: return "openai";
    case QR_LLM_ANTHROPIC: return "anthropic";
    default: return "none";
    }
}

void qr_llm_config_init(qr_llm_config *c)
{
    memset(c, 0, sizeof *c);
    c->provider = QR_LLM_NONE;
    c->timeout_ms = 120000;
    c->connect_timeout_ms = 10000;
    c->max_retries = 3;
    c->retry_base_ms = 500;
    c->retry_max_ms = 30000;
    c->max_tokens = 2048;
    c->stream = false;
}

void qr_llm_config_clear(qr_llm_config *c)
{
    free(c->url);
    if (c->api_key)
        memset(c->api_key, 0, strlen(c->api_key));
    free(c->api_key);
    free(c->model);
    qr_llm_config_init(c);
}

bool qr_llm_configured(const qr_llm_config *c)
{
    return c->url && *c->url && c->model && *c->model && c->provider != QR_LLM_NONE;
}

enum { K_STR, K_PROVIDER, K_POSITIVE, K_COUNT, K_BOOL };

typedef struct key_spec {
    const char *name; /* in the [llm] table */
    const char *env;
    int kind;
    size_t off;   /* of the field in qr_llm_config */
    uint32_t max; /* numbers: the largest value accepted (a config cannot hang a command) */
} key_spec;

#define F(field) offsetof(qr_llm_config, field)
static const key_spec keys[] = {
    {"url", "QUARRY_LLM_URL", K_STR, F(url), 0},
    {"model", "QUARRY_LLM_MODEL", K_STR, F(model), 0},
    {"api_key", "QUARRY_LLM_API_KEY", K_STR, F(api_key), 0},
    {"provider", "QUARRY_LLM_PROVIDER", K_PROVIDER, F(provider), 0},
    {"timeout_ms", "QUARRY_LLM_TIMEOUT_MS", K_POSITIVE, F(timeout_ms), 3600000},
    {"connect_timeout_ms", "QUARRY_LLM_CONNECT_TIMEOUT_MS", K_POSITIVE, F(connect_timeout_ms),
     600000},
    {"max_retries", "QUARRY_LLM_MAX_RETRIES", K_COUNT, F(max_retries), 10},
    {"retry_base_ms", "QUARRY_LLM_RETRY_BASE_MS", K_POSITIVE, F(retry_base_ms), 60000},
    {"retry_max_ms", "QUARRY_LLM_RETRY_MAX_MS", K_POSITIVE, F(retry_max_ms), 600000},
    {"max_tokens", "QUARRY_LLM_MAX_TOKENS", K_POSITIVE, F(max_tokens), 1000000},
    {"stream", "QUARRY_LLM_STREAM", K_BOOL, F(stream), 0},
};
#undef F
#define NKEYS (sizeof keys / sizeof keys[0])

const char *llm_config_suggest(const char *name, bool env)
{
    const char *best = NULL;
    size_t bd = 99;
    for (size_t i = 0; i < NKEYS; i++) {
        const char *k = env ? keys[i].env : keys[i].name;
        size_t d = qr_edit_distance(name, strlen(name), k, strlen(k), 0);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    size_t n = strlen(name);
    size_t limit = n <= 4 ? 1 : n <= 10 ? 2 : 3;
    return bd <= limit ? best : NULL;
}

static const key_spec *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return QR_EINVAL;
}

static const char *what_kind(const key_spec *k)
{
    static _Thread_local char range[64];
    switch (k->kind) {
    case K_POSITIVE:
        snprintf(range, sizeof range, "an integer from 1 to %u", k->max);
        return range;
    case K_COUNT:
        snprintf(range, sizeof range, "an integer from 0 to %u", k->max);
        return range;
    case K_BOOL: return "true or false";
    case K_PROVIDER: return "'openai' or 'anthropic'";
    default: return "a string";
    }
}

static int set_string(qr_llm_config *c, const key_spec *k, const char *s, size_t n)
{
    char **slot = (char **)((char *)c + k->off);
    char *d = malloc(n + 1);
    if (!d)
        return QR_ENOMEM;
    memcpy(d, s, n);
    d[n] = 0;
    if (*slot && k->off == offsetof(qr_llm_config, api_key))
        memset(*slot, 0, strlen(*slot));
    free(*slot);
    *slot = d;
    return QR_OK;
}

static bool parse_provider(const char *s, size_t n, qr_llm_provider *p)
{
    if (n == 6 && memcmp(s, "openai", 6) == 0)
        *p = QR_LLM_OPENAI;
    else if (n == 9 && memcmp(s, "anthropic", 9) == 0)
        *p = QR_LLM_ANTHROPIC;
    else
        return false;
    return true;
}

/* A value longer than this is never quoted back for a setting that is not a string: no
 * number, flag or provider name is that long, but a key pasted into the wrong field is. */
#define SHOWN_MAX 12

/* The value shown in an error: never the key's, nor a long value of a non-string setting
 * (a key pasted into timeout_ms must not be printed back). */
static void shown(char *out, size_t outlen, const key_spec *k, const char *s, size_t n)
{
    if (k->off == offsetof(qr_llm_config, api_key))
        snprintf(out, outlen, "(hidden)");
    else if (k->kind != K_STR && n > SHOWN_MAX)
        snprintf(out, outlen, "(hidden: %zu characters)", n);
    else
        llm_one_line(out, outlen, s, n);
}

static int set_number(qr_llm_config *c, const key_spec *k, int64_t v)
{
    if (v < (k->kind == K_COUNT ? 0 : 1) || v > (int64_t)k->max)
        return QR_EINVAL;
    *(uint32_t *)((char *)c + k->off) = (uint32_t)v;
    return QR_OK;
}

int llm_config_set_env(qr_llm_config *c, const char *var, const char *s, char *err,
                       size_t errlen)
{
    const key_spec *k = NULL;
    for (size_t i = 0; i < NKEYS && !k; i++)
        if (strcmp(keys[i].env, var) == 0)
            k = &keys[i];
    if (!k)
        return fail(err, errlen, "unknown setting '%s'", var);
    size_t n = strlen(s);
    char val[80];
    shown(val, sizeof val, k, s, n);
    switch (k->kind) {
    case K_STR:
        return set_string(c, k, s, n);
    case K_PROVIDER:
        if (!parse_provider(s, n, &c->provider))
            return fail(err, errlen, "%s must be %s, not '%s'", var, what_kind(k), val);
        return QR_OK;
    case K_BOOL:
        if (strcmp(s, "1") == 0 || strcmp(s, "true") == 0)
            c->stream = true;
        else if (strcmp(s, "0") == 0 || strcmp(s, "false") == 0)
            c->stream = false;
        else
            return fail(err, errlen, "%s must be 0 or 1, not '%s'", var, val);
        return QR_OK;
    default: {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (!n || errno || *end || s[0] == '+' || s[0] == ' ' || set_number(c, k, v) != QR_OK)
            return fail(err, errlen, "%s must be %s, not '%s'", var, what_kind(k), val);
        return QR_OK;
    }
    }
}

int llm_config_set_value(qr_llm_config *c, const char *name, qr_val v, const char *where,
                         char *err, size_t errlen)
{
    const key_spec *k = find_key(name);
    if (!k) {
        const char *hint = llm_config_suggest(name, false);
        if (hint)
            return fail(err, errlen, "%s: unknown key [llm] %s; did you mean '%s'?", where, name,
                        hint);
        return fail(err, errlen,
                    "%s: unknown key [llm] %s; the keys are url, model, api_key, provider, "
                    "timeout_ms, connect_timeout_ms, max_retries, retry_base_ms, retry_max_ms, "
                    "max_tokens, stream",
                    where, name);
    }
    bool ok = false;
    switch (k->kind) {
    case K_STR:
        if (v.t == QR_T_STR)
            return set_string(c, k, v.s->data, v.s->len);
        break;
    case K_PROVIDER:
        ok = v.t == QR_T_STR && parse_provider(v.s->data, v.s->len, &c->provider);
        break;
    case K_BOOL:
        if (v.t == QR_T_BOOL) {
            c->stream = v.b;
            ok = true;
        }
        break;
    default:
        ok = v.t == QR_T_INT && set_number(c, k, v.i) == QR_OK;
        break;
    }
    if (ok)
        return QR_OK;
    qr_buf b;
    qr_buf_init(&b);
    if (k->off == offsetof(qr_llm_config, api_key))
        qr_buf_puts(&b, "(hidden)");
    else if (k->kind != K_STR && v.t == QR_T_STR && v.s->len > SHOWN_MAX)
        qr_buf_printf(&b, "(hidden: a string of %zu characters)", (size_t)v.s->len);
    else
        qr_print_short(&b, v, 60);
    int rc = fail(err, errlen, "%s: [llm] %s must be %s, not %s", where, name,
                  what_kind(k), b.p ? b.p : "?");
    qr_buf_release(&b);
    return rc;
}

int llm_config_env(qr_llm_config *c, char *err, size_t errlen)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const char *s = getenv(keys[i].env);
        if (!s || !*s) /* set but empty counts as unset */
            continue;
        int rc = llm_config_set_env(c, keys[i].env, s, err, errlen);
        if (rc != QR_OK)
            return rc;
    }
    return QR_OK;
}

void llm_config_finish(qr_llm_config *c)
{
    if (c->provider == QR_LLM_NONE && c->url && *c->url)
        c->provider = llm_guess_provider(c->url);
    if (c->retry_max_ms < c->retry_base_ms)
        c->retry_max_ms = c->retry_base_ms;
}
