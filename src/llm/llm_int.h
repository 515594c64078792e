/*
 * llm_int.h: what the language-model client's files share. The client (client.c) owns
 * the HTTP transfer and the retry loop; the two wire formats (wire_openai.c,
 * wire_anthropic.c) turn a request into a JSON body and a body or stream event back into
 * a reply; sse.c splits a byte stream into Server-Sent Events; reply.c holds the reply
 * accumulator, the JSON field helpers, error-body messages, status classification and
 * key scrubbing. The parsers are exposed here so unit tests and the fuzz harness reach
 * them without HTTP.
 */
#ifndef QUARRY_LLM_INT_H
#define QUARRY_LLM_INT_H

#include "quarry/llm.h"
#include "quarry/value.h"

/* Largest response body (or one SSE event) accepted: a reply of max_tokens is far
 * smaller; anything bigger is not a model's answer. */
#define LLM_MAX_BODY (32u << 20)

/* A reply as it is assembled, from one body or from stream events. */
typedef struct llm_reply {
    qr_buf text;
    qr_llm_usage usage;
    char stop[48];   /* stop reason, "" when none was given */
    bool finished;   /* stream: an end marker or a stop reason was seen */
    bool failed;     /* the body or an event carried an error, or was not the format */
    bool retryable;  /* with failed: the server said it was overloaded (stream error) */
    bool malformed;  /* with failed: the body was not the wire format (QR_EINVAL) */
    char error[300]; /* with failed: what was wrong, one line */
    qr_buf calls;    /* the tool calls, as a JSON array being built ("[{...},{...}") */
    size_t ncalls;
} llm_reply;

void llm_reply_init(llm_reply *r);
void llm_reply_release(llm_reply *r);
/* Marks r failed with a formatted message (kept when one was already set). */
void llm_reply_fail(llm_reply *r, bool malformed, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- JSON field helpers (keyword keys; NULL-safe on non-maps) ---- */
bool llm_field(qr_arena *a, qr_val m, const char *key, qr_val *out);
/* The string at key, or NULL (sets *n). */
const char *llm_field_str(qr_arena *a, qr_val m, const char *key, size_t *n);
/* A non-negative integer at key into *out; false when absent or not one. */
bool llm_field_u64(qr_arena *a, qr_val m, const char *key, uint64_t *out);
/* Copies s[0..n) into out (at most outlen - 1 bytes, cut at a character boundary), with
 * control characters (newlines included) turned into spaces: one line. */
void llm_one_line(char *out, size_t outlen, const char *s, size_t n);

/* ---- function calling (wire_tools.c) ---- */
/* Appends ',"tools":[...]' for the neutral tool list in provider p's format. */
int llm_tools_json(qr_llm_provider p, const char *tools, size_t n, qr_buf *out);
/* Appends the calls of an assistant message, comma-separated: OpenAI tool_calls entries
 * or Anthropic tool_use blocks. */
int llm_calls_json(qr_llm_provider p, const char *calls, size_t n, qr_buf *out);
/* Adds one call the model made to r->calls (args: the arguments' JSON text). */
void llm_reply_add_call(llm_reply *r, const char *id, size_t idn, const char *name,
                        size_t namen, const char *args, size_t argsn);

/* ---- the wire formats ---- */
/* The JSON body for r under config c, appended to out (never holds the key). QR_EINVAL
 * when r has no messages or a message without a role. */
int llm_openai_body(const qr_llm_config *c, const qr_llm_request *r, qr_buf *out);
int llm_anthropic_body(const qr_llm_config *c, const qr_llm_request *r, qr_buf *out);
/* Parses a whole (non-streamed) response body into rep. QR_OK; QR_EINVAL when it is not
 * the wire format, QR_EIO when it carries an error object, QR_ENOMEM; on failure
 * rep->failed and rep->error are set. */
int llm_openai_parse(const char *body, size_t n, llm_reply *rep);
int llm_anthropic_parse(const char *body, size_t n, llm_reply *rep);
/* One streamed event (the SSE event name, possibly empty, and its data). The same
 * return codes as the parsers; QR_EIO for an error event (rep->retryable when the server
 * said it was overloaded). */
int llm_openai_event(const char *data, size_t n, llm_reply *rep);
int llm_anthropic_event(const char *event, size_t elen, const char *data, size_t n,
                        llm_reply *rep);
/* The message of an HTTP error body: {"error":{"message":...}} (both formats),
 * {"error":"..."} or {"message":...}; else the body's first line. One line in out. */
void llm_error_message(const char *body, size_t n, char *out, size_t outlen);

/* ---- Server-Sent Events ---- */
typedef int (*llm_sse_fn)(void *ud, const char *event, size_t elen, const char *data,
                          size_t dlen);
typedef struct llm_sse {
    qr_buf line;  /* the line being read */
    qr_buf event; /* the event name of the event being read */
    qr_buf data;  /* its data lines, joined by '\n' */
    bool has_data;
    bool after_cr; /* the last byte was '\r': a following '\n' ends nothing */
    int rc;        /* sticky: the first non-zero return of fn, or QR_ENOMEM/QR_ELIMIT */
    llm_sse_fn fn;
    void *ud;
} llm_sse;
void llm_sse_init(llm_sse *s, llm_sse_fn fn, void *ud);
/* Feeds bytes (split anywhere); calls fn for each complete event. Returns s->rc. */
int llm_sse_feed(llm_sse *s, const char *p, size_t n);
/* End of stream: dispatches an event left without its blank line. Returns s->rc. */
int llm_sse_finish(llm_sse *s);
void llm_sse_release(llm_sse *s);

/* A streamed reply in one wire format: SSE events dispatched to the format's handler. */
typedef struct llm_stream {
    llm_sse sse;
    qr_llm_provider provider;
    llm_reply *rep;
} llm_stream;
void llm_stream_init(llm_stream *s, qr_llm_provider p, llm_reply *rep);
/* QR_OK, or an error with rep->failed set (QR_EINVAL, QR_ELIMIT, QR_ENOMEM). */
int llm_stream_feed(llm_stream *s, const char *p, size_t n);
int llm_stream_finish(llm_stream *s);
void llm_stream_release(llm_stream *s);

/* ---- HTTP status classes ---- */
enum { LLM_STATUS_OK, LLM_STATUS_RETRY, LLM_STATUS_FAIL };
int llm_status_class(int status);
/* The one-line message for a failed HTTP status: "HTTP 401 from URL: ...". body is the
 * error body (its message is quoted for statuses without a fixed explanation). */
void llm_status_message(const qr_llm_config *c, const char *endpoint, int status,
                        const char *body, size_t n, char *out, size_t outlen);

/* Replaces with "[redacted]", in the NUL-terminated s (of capacity cap), every run of
 * LLM_SCRUB_RUN characters found anywhere in key (the whole key when shorter; keys under
 * 4 bytes are left alone) and every piece of the key's start of at least 6 characters. */
#define LLM_SCRUB_RUN 8
void llm_scrub(char *s, size_t cap, const char *key);

/* ---- configuration (config.c) ---- */
/* Sets the key of environment variable var from its text. QR_EINVAL with a message
 * naming var (never the key's value), QR_ENOMEM. */
int llm_config_set_env(qr_llm_config *c, const char *var, const char *s, char *err,
                       size_t errlen);
/* Sets [llm] key name from a TOML value; where ("PATH:LINE") prefixes an error. An unknown
 * name is an error with a "did you mean" when one key is close. */
int llm_config_set_value(qr_llm_config *c, const char *name, qr_val v, const char *where,
                         char *err, size_t errlen);
/* Applies every QUARRY_LLM_* variable that is set and not empty. */
int llm_config_env(qr_llm_config *c, char *err, size_t errlen);
/* After all sources: guesses the provider from the URL when none was named. */
void llm_config_finish(qr_llm_config *c);
/* The key (env: the variable) closest to name, or NULL when none is close. */
const char *llm_config_suggest(const char *name, bool env);

/* ---- endpoints and providers ---- */
/* The URL requests go to, malloc'd; NULL when out of memory. */
char *llm_endpoint_for(qr_llm_provider p, const char *url);
/* "anthropic" in the URL's host name: anthropic; anything else: openai. */
qr_llm_provider llm_guess_provider(const char *url);

/* ---- libcurl, loaded on first use (curl_dl.c) ---- */
#include <curl/curl.h>

typedef struct llm_curl_api {
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    /* the multi interface, for a transfer a stop can end at once (llm_perform_quietly) */
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
} llm_curl_api;

/* The functions, valid once llm_curl_load returned QR_OK. */
extern llm_curl_api llm_cu;
/* Loads libcurl once per process: QR_OK, or QR_EIO with *why saying what failed. */
int llm_curl_load(const char **why);
/* curl_easy_perform with SIGPIPE kept from killing the process (client.c). With a stop
 * (not NULL), the transfer runs on the multi interface, waking every 50 ms to check it:
 * a cancel or a deadline ends it within that (CURLE_ABORTED_BY_CALLBACK), where curl's
 * own progress callback can be a second late while the server is silent. */
CURLcode llm_perform_quietly(CURL *c, const qr_stop *stop);

#endif
