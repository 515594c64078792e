/*
 * quarry/llm.h: the language-model client. One HTTP client (libcurl) for two wire formats:
 * OpenAI-compatible chat completions (llama.cpp's server, Ollama, vLLM, OpenAI, most
 * gateways) and the Anthropic Messages API. It sends one request and returns the model's
 * text with its token usage; retries (429, 5xx, connection errors) with exponential
 * backoff and jitter, bounded by max_retries; honours a Retry-After header up to a cap.
 *
 * Prompt caching: a request's `system` text is the stable prefix of an agent's prompt
 * (role, tool summary, DSL reference), byte-identical across calls. It is always sent
 * first; with Anthropic it carries cache_control {"type":"ephemeral"}; OpenAI-compatible
 * servers cache identical prefixes on their own.
 *
 * Configuration (qr_llm_config_load), later sources overriding earlier ones key by key:
 *   1. defaults; 2. ~/.config/quarry/config.toml ($XDG_CONFIG_HOME when set);
 *   3. <repository>/.quarry.toml; 4. the environment:
 *   QUARRY_LLM_URL, QUARRY_LLM_MODEL, QUARRY_LLM_API_KEY, QUARRY_LLM_PROVIDER
 *   (openai|anthropic; guessed from the URL when unset: "anthropic" in the host name
 *   means anthropic, anything else openai), QUARRY_LLM_TIMEOUT_MS,
 *   QUARRY_LLM_MAX_RETRIES, QUARRY_LLM_RETRY_BASE_MS, QUARRY_LLM_STREAM (0|1).
 * The TOML files hold the same keys in an [llm] table: url, model, api_key, provider,
 * timeout_ms, connect_timeout_ms, max_retries, retry_base_ms, retry_max_ms, max_tokens,
 * stream. A repository's .quarry.toml may not set url, api_key or provider (a cloned
 * repository could send the user's key elsewhere); numbers are bounded (max_retries at
 * most 10, timeout_ms at most an hour) so no file can make a command hang.
 * The API key is never printed, logged or written to a trace; the request JSON given by
 * qr_llm_request_json never holds it (keys travel in headers).
 *
 * Ownership: a config owns its strings (malloc; qr_llm_config_clear). A client copies the
 * config. A response owns its strings (qr_llm_response_clear). Requests are borrowed for
 * the call only.
 *
 * Error codes: QR_OK; QR_EIO when the model could not be reached or answered with an HTTP
 * error after the retries (response.error says which, in one line, naming the URL but
 * never the key: "HTTP 401 from https://...: the API key was rejected; check
 * QUARRY_LLM_API_KEY"); QR_EINVAL for a bad configuration or a response body that is not
 * the wire format (response.error says what was wrong); QR_ENOMEM.
 * Not thread-safe: one client per thread.
 */
#ifndef QUARRY_LLM_H
#define QUARRY_LLM_H

#include "quarry/base.h"

typedef enum qr_llm_provider {
    QR_LLM_NONE = 0, /* not configured */
    QR_LLM_OPENAI,   /* POST {url}/chat/completions (url given up to /v1, or the full path) */
    QR_LLM_ANTHROPIC /* POST {url}/v1/messages (url given as the host, or the full path) */
} qr_llm_provider;

/* "openai", "anthropic", or "none". */
const char *qr_llm_provider_name(qr_llm_provider p);

typedef struct qr_llm_config {
    char *url;     /* NULL: not configured */
    char *model;   /* NULL: not configured */
    char *api_key; /* NULL: none (local servers) */
    qr_llm_provider provider;
    uint32_t timeout_ms;         /* one attempt, reply included; default 120000 */
    uint32_t connect_timeout_ms; /* default 10000 */
    uint32_t max_retries;        /* retries after the first attempt; default 3 */
    uint32_t retry_base_ms;      /* first backoff; doubles each retry, with jitter; 500 */
    uint32_t retry_max_ms;       /* cap on one wait, Retry-After included; default 30000 */
    uint32_t max_tokens;         /* of one reply; default 2048 */
    bool stream;                 /* ask for a streamed reply (SSE); default false */
} qr_llm_config;

/* Defaults, nothing configured. */
void qr_llm_config_init(qr_llm_config *c);
/* Fills c from the files and the environment (see above). repo_root: the repository's
 * work tree (for .quarry.toml), or NULL. On a malformed file or value: QR_EINVAL and one
 * line in err ("/path/.quarry.toml:3:7: expected '='"). A missing file is not an error. */
int qr_llm_config_load(qr_llm_config *c, const char *repo_root, char *err, size_t errlen);
void qr_llm_config_clear(qr_llm_config *c);
/* url and model are set and the provider is known. */
bool qr_llm_configured(const qr_llm_config *c);

typedef struct qr_llm_usage {
    uint64_t input;       /* prompt tokens not read from the cache (as the API reports) */
    uint64_t output;      /* completion tokens */
    uint64_t cache_write; /* prompt tokens written to the cache */
    uint64_t cache_read;  /* prompt tokens read from the cache */
} qr_llm_usage;

/* The one token count of a call, for budgets and reports: every prompt token (cached or
 * not) plus the completion. */
uint64_t qr_llm_usage_tokens(const qr_llm_usage *u);
/* The prompt part of it: input + cache_write + cache_read. */
uint64_t qr_llm_usage_prompt(const qr_llm_usage *u);

/* Function calling (tools). Tool definitions, calls and results cross this API as JSON
 * text in one neutral shape; each wire format translates it:
 *   tools:      [{"name": ..., "description": ..., "input_schema": {JSON Schema}}]
 *   tool calls: [{"id": ..., "name": ..., "arguments": {an object}}]
 * An assistant message that called tools carries its calls (tool_calls); each result goes
 * back as a message of role "tool" whose tool_call_id names the call (Anthropic: merged
 * into one user message of tool_result blocks). A request with tools is never streamed. */
typedef struct qr_llm_message {
    const char *role; /* "user", "assistant" or "tool" */
    const char *content;
    size_t len;
    const char *tool_calls; /* assistant: JSON array of its tool calls, or NULL */
    size_t tool_calls_len;
    const char *tool_call_id; /* tool: the id of the call this is the result of */
} qr_llm_message;

typedef struct qr_llm_request {
    const char *system; /* the stable, cached prefix; NULL for none */
    size_t system_len;
    const qr_llm_message *messages; /* at least one; the first is "user" */
    size_t nmessages;
    uint32_t max_tokens; /* 0: the config's */
    /* the first shared_len bytes of system are shared with other requests (other
     * agents): Anthropic gets a cache breakpoint after them too. 0: none */
    size_t shared_len;
    const char *tools;   /* JSON array of tool definitions, or NULL for none */
    size_t tools_len;
    /* the request's stop (NULL: none): a cancel ends the transfer at once and the call
     * fails with QR_ESTOPPED (never retried); each attempt waits at most what is left
     * before its deadline */
    const qr_stop *stop;
} qr_llm_request;

typedef struct qr_llm_response {
    char *text; /* the reply's text (malloc, NUL-terminated); NULL on failure */
    size_t len;
    qr_llm_usage usage;
    int http_status;   /* of the last attempt; 0 when no HTTP answer came */
    uint32_t attempts; /* 1 + retries made */
    double ms;         /* wall time of the call, waits included */
    char *stop_reason; /* "stop", "end_turn", "length", "max_tokens"...; may be NULL */
    char error[400];   /* one line on failure, "" on success */
    char *tool_calls;  /* JSON array of the tool calls the model made (malloc), or NULL */
    size_t tool_calls_len;
} qr_llm_response;

typedef struct qr_llm qr_llm;

/* A client for config c (copied). NULL when out of memory. */
qr_llm *qr_llm_new(const qr_llm_config *c);
void qr_llm_free(qr_llm *l);
/* Where a note about a retry goes ("HTTP 429 from URL; retrying in 1.2 s (attempt 2 of
 * 4)"): one line, no newline. NULL: nowhere. */
void qr_llm_set_log(qr_llm *l, void (*fn)(void *ud, const char *line), void *ud);
/* Sends r and waits for the reply. out is always filled in; clear it. */
int qr_llm_complete(qr_llm *l, const qr_llm_request *r, qr_llm_response *out);
void qr_llm_response_clear(qr_llm_response *r);
/* The JSON body qr_llm_complete sends for r (never holds the key), appended to out. */
int qr_llm_request_json(const qr_llm *l, const qr_llm_request *r, qr_buf *out);
/* The endpoint URL requests go to. */
const char *qr_llm_endpoint(const qr_llm *l);
/* The API key the client sends (NULL: none), for scrubbers only (the trace writer masks
 * it in every line it writes): never print it. */
const char *qr_llm_api_key(const qr_llm *l);

/* ---- plain HTTP POST ----
 * For other JSON-over-HTTP protocols (MCP's Streamable HTTP transport, used by `quarry
 * flow run`), on the same libcurl the client loads. No retries. */
typedef struct qr_http_reply {
    int status;      /* 0 when no HTTP answer came */
    qr_buf body;     /* at most 32 MB */
    qr_buf headers;  /* the response's header lines as received ("Name: value\r\n") */
    char error[300]; /* one line when no answer came */
} qr_http_reply;

void qr_http_reply_init(qr_http_reply *r);
void qr_http_reply_clear(qr_http_reply *r);
/* The value of header `name` (case-insensitive) into out (cut to cap - 1); false when
 * absent. */
bool qr_http_header(const qr_http_reply *r, const char *name, char *out, size_t cap);
/* POSTs body[0..n) to url with the given header lines (NULL-terminated, "Name: value"),
 * within timeout_ms for the whole exchange. QR_OK when an HTTP answer came (whatever its
 * status), QR_EIO (error says why) when none did, QR_ENOMEM. */
int qr_http_post(const char *url, const char *const *headers, const char *body, size_t n,
                 uint32_t timeout_ms, qr_http_reply *out);

#endif
