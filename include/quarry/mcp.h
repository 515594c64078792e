/*
 * quarry/mcp.h: the Model Context Protocol server (`quarry mcp`): every tool of the
 * registry, plus run_lisp (a sandboxed program) and run_query (a query of the query DSL),
 * served to MCP clients (Claude Code, Cursor, the official SDKs) over JSON-RPC 2.0.
 *
 * Protocol revision 2025-11-25, negotiated down to 2025-06-18, 2025-03-26 and 2024-11-05:
 * initialize, ping, tools/list (cursor pagination), tools/call (structuredContent and
 * text), logging/setLevel with notifications/message, notifications/progress for a
 * request that carries a progressToken, notifications/cancelled. Methods are dispatched
 * from one table of records (name, handler, whether it may come before initialize, the
 * revisions it exists in), so the stateless 2026-07-28 revision (server/discover, no
 * handshake) is records added to that table.
 *
 * The server is transport-independent: a transport hands it one message at a time
 * (qr_mcp_handle) and gets what it sends back through the send hook (qr_mcp_set_io).
 * qr_mcp_serve_stdio is the stdio transport (newline-delimited JSON on two descriptors).
 *
 * Errors: functions return QR_OK or a negative QR_E* code: QR_ENOMEM when out of memory,
 * QR_EIO when the send hook failed (the client is gone: the caller should stop).
 * Everything a client sends, however malformed, is answered with a JSON-RPC error or a
 * tool result with isError true, never with a crash or a code here.
 *
 * Ownership: the server owns its registries, its hosts (one per repository it was asked
 * about) and the tool list; strings in qr_mcp_config are borrowed and must outlive it.
 */
#ifndef QUARRY_MCP_H
#define QUARRY_MCP_H

#include "quarry/lisp.h"
#include "quarry/jsonrpc.h"

/* The revision the server prefers, and every one it accepts, newest first. */
#define QR_MCP_PROTOCOL_VERSION "2025-11-25"
extern const char *const qr_mcp_protocol_versions[]; /* NULL-terminated */

/* Defaults of qr_mcp_config_init. */
#define QR_MCP_MAX_MESSAGE QR_JSONRPC_MAX_MESSAGE /* bytes of one message */
#define QR_MCP_PAGE_SIZE 100           /* tools in one tools/list page */
#define QR_MCP_WORKERS 4               /* calls run at once */

typedef struct qr_mcp_config {
    /* the repository a call without a `repo` argument works on (NULL: the working
     * directory) */
    const char *repo_dir;
    /* compute git statistics without the statistics index */
    bool no_index;
    /* the memory store the memory tools use (NULL: $QUARRY_MEMORY); calls may name no
     * other store */
    const char *memory_path;
    /* what the server's tools may do beyond reading (docs/capabilities.md): both false
     * by default, so a client gets reading tools only. allow_write_memory serves the
     * tools that write the memory store (`--allow-write memory`), allow_exec those that
     * run repository code, e.g. dwim's validate (`--allow-exec`). Without them those
     * tools are not listed, and a call of one is refused with a message naming the flag. */
    bool allow_write_memory;
    bool allow_exec;
    /* largest message accepted, in bytes (larger ones are answered with an error) */
    size_t max_message;
    /* tools per tools/list page (at least 1) */
    size_t page_size;
    /* rows of a vector result given to the client (0: all); the result then says how
     * many were left out */
    size_t max_rows;
    /* limits of each run_lisp / run_query program */
    qr_lisp_limits limits;
    /* calls run at once by the pool of threads (qr_mcp_start_workers); 1: one at a time,
     * in order, while the reading thread still answers ping and cancellations */
    size_t workers;
    /* serverInfo.version */
    const char *version;
    /* a line for the person running the server (stderr), or NULL: warnings of the
     * sources and transport failures; messages for the client go as notifications */
    void (*log)(void *ud, const char *line);
    void *log_ud;
} qr_mcp_config;

void qr_mcp_config_init(qr_mcp_config *c);

typedef struct qr_mcp_server qr_mcp_server;

/* Builds the tool list from the product registry. QR_ENOMEM, or QR_EINVAL with a
 * message in err when a tool record cannot be served (a bug the tests catch). */
int qr_mcp_server_new(const qr_mcp_config *c, qr_mcp_server **out, qr_buf *err);
void qr_mcp_server_free(qr_mcp_server *s);

/* The transport: send writes one message (JSON text without a newline) and returns
 * QR_OK, or QR_EIO when the client is gone. req_id says which request the message
 * belongs to, for a transport that answers each request on its own connection (HTTP):
 * the JSON text of its id ("null" for an error to a message whose id could not be read),
 * or NULL for a message about no request (a log message); final is true for the
 * response itself and false for a progress notification. A request that ends without a
 * response (it was cancelled) is reported once as msg NULL, len 0, final true. poll, when
 * set, is called while a request is handled and before its response is sent, so the
 * transport can read what arrived meanwhile and pass cancellations to qr_mcp_peek. */
typedef int (*qr_mcp_send_fn)(void *ud, const char *msg, size_t len, const char *req_id,
                              bool final);
typedef void (*qr_mcp_poll_fn)(void *ud);
void qr_mcp_set_io(qr_mcp_server *s, qr_mcp_send_fn send, qr_mcp_poll_fn poll, void *ud);

/* Concurrency. Without workers, qr_mcp_handle runs every request before it returns, in
 * order. qr_mcp_start_workers starts cfg.workers threads: from then on
 * qr_mcp_handle answers ping, initialize, tools/list, logging/setLevel and cancellations
 * at once on the calling thread and queues tools/call for the workers, so a long call
 * never holds up the others; a notifications/cancelled drops a queued call or stops a
 * running one (its program interrupted, its history walks and git processes stopped)
 * and suppresses its response and any further progress. Each worker has its own hosts
 * (one per repository it was asked about): a repository's libgit2 handles and index
 * connection are never shared between threads, and two calls on one repository run at
 * once. Responses may then come in any order (JSON-RPC matches them by id).
 * qr_mcp_stop_workers waits for every queued and running call to be answered (abandon:
 * drops the queued ones and stops the running ones, for a client that is gone), then
 * joins the threads. The send hook is called from several threads, one call at a time. */
int qr_mcp_start_workers(qr_mcp_server *s);
void qr_mcp_stop_workers(qr_mcp_server *s, bool abandon);

/* Handles one message (msg[0..len), one JSON text). Sends its response, if any, and any
 * notifications (with workers running, a call's response later, from a worker). Returns
 * QR_OK, or QR_EIO when a send failed. */
int qr_mcp_handle(qr_mcp_server *s, const char *msg, size_t len);
/* Answers a message the transport dropped because it was larger than max_message: an
 * Invalid Request error for the request id the transport found in it (id_json, the id's
 * JSON text), or for a null id when it found none (id_json NULL). */
int qr_mcp_handle_oversized(qr_mcp_server *s, size_t len, const char *id_json, size_t id_len);
/* Looks at a message that arrived while another one is being handled, without handling
 * it: a notifications/cancelled is recorded at once, so the cancelled request gets no
 * response (and is skipped when it has not started). The transport still passes the
 * message to qr_mcp_handle in its turn. */
void qr_mcp_peek(qr_mcp_server *s, const char *msg, size_t len);

/* ---- the tool list for other agent hosts ----
 * The tools exactly as tools/list serves them (run_lisp, run_query, dwim, `repo` and
 * `offset`, titles), as a JSON array in one of the formats of qr_mcp_export_formats:
 * "mcp" (tools/list entries), "openai" (Chat Completions tools), "openai-strict" (the
 * same in OpenAI's strict mode: every property required, optional ones nullable, no
 * default, additionalProperties false; parameters that take any JSON object are left
 * out, and the alternative a record names for one (qr_tool_param.alt) is then required
 * and not nullable) and "anthropic" (Messages API tools). Descriptions are at most
 * QR_TOOLS_DESCRIPTION_MAX characters. names (nnames of them) picks tools; none:
 * all. QR_EINVAL with a message in err for an unknown format or tool; QR_ENOMEM. */
extern const char *const qr_mcp_export_formats[]; /* NULL-terminated */
/* The server's own tool records (run_lisp, run_query, dwim in both of its forms: the one
 * served with --allow-exec carries QR_TOOL_EXEC), NULL-terminated, for tests that walk
 * every record a client can be served. Static data. */
extern const struct qr_tool *const qr_mcp_own_tools[];
int qr_mcp_export(qr_mcp_server *s, const char *format, const char *const *names, size_t nnames,
                  bool pretty, qr_buf *out, qr_buf *err);
/* The names of the tools a server started with cfg serves, in tools/list order, separated
 * by single spaces, appended to out (for help pages and docs that must not drift from the
 * list). QR_OK, QR_ENOMEM, or the error of qr_mcp_server_new with its message in err. */
int qr_mcp_served_names(const qr_mcp_config *cfg, qr_buf *out, qr_buf *err);
/* Runs one tool of the served list as tools/call would (the server's `repo` and `offset`
 * arguments understood, the same checks and handlers), without a transport: what
 * `quarry tool NAME --args -` uses to replay a call of run_lisp, run_query or dwim. The
 * handler's value (allocated from `a`; not paged, not wrapped) goes to *out. req: the
 * call's request (NULL: no limits). Returns the handler's code: QR_EINVAL for an unknown
 * or held-back tool or a bad call, with the message in err ("tool 'NAME': ..."). Call it
 * from one thread at a time, before qr_mcp_start_workers. */
int qr_mcp_call(qr_mcp_server *s, const char *name, qr_val args, qr_req *req,
                qr_arena *a, qr_val *out, qr_buf *err);

/* ---- stdio transport ---- */
/* Serves newline-delimited messages read from in_fd, writing to out_fd, until end of
 * input (after answering every complete message) or until the client stops reading.
 * A message may end with "\r\n"; empty lines are skipped; a last line without a newline
 * is handled. Returns QR_OK on end of input or a closed output (EPIPE: the caller must
 * ignore SIGPIPE), QR_EIO when reading fails, QR_ENOMEM. */
int qr_mcp_serve_stdio(qr_mcp_server *s, int in_fd, int out_fd);

/* The id scanner of a message too large to read (quarry/jsonrpc.h), under the names the
 * HTTP transport and the tests use. */
typedef qr_jsonrpc_idscan qr_mcp_idscan;
static inline void qr_mcp_idscan_init(qr_mcp_idscan *sc)
{
    qr_jsonrpc_idscan_init(sc);
}
static inline void qr_mcp_idscan_feed(qr_mcp_idscan *sc, const char *p, size_t n)
{
    qr_jsonrpc_idscan_feed(sc, p, n);
}
/* The id's JSON text (a string or an integer) or NULL when none was found. */
static inline const char *qr_mcp_idscan_result(const qr_mcp_idscan *sc, size_t *len)
{
    return qr_jsonrpc_idscan_result(sc, len);
}


/* ---- Streamable HTTP transport ---- */
/* Serves MCP's Streamable HTTP transport (revisions 2025-03-26 and later) on one loopback
 * address, at the endpoint /mcp, until stop_fd becomes readable (or, with stop_fd -1,
 * for ever). addr is "127.0.0.1:PORT", "localhost:PORT" or "[::1]:PORT" (any 127.x.y.z);
 * PORT 0 picks a free port. Each session (begun by an initialize POST, named by the
 * Mcp-Session-Id header afterwards, ended by DELETE) is a server of its own made from
 * cfg, with its own pool of cfg.workers threads; at most QR_MCP_HTTP_SESSIONS run at
 * once. A tools/call is answered as a text/event-stream (its progress notifications,
 * then its response), other requests as application/json, notifications with 202.
 * Requests whose Origin or Host is not a loopback one are refused with 403; heads are
 * limited to QR_MCP_HTTP_MAX_HEAD bytes, bodies to cfg.max_message; a client that sends its
 * head or body too slowly is answered 408 and disconnected. ready, when set, is called
 * once listening, with the endpoint's URL ("http://127.0.0.1:43117/mcp"). Returns QR_OK
 * when stopped, QR_EINVAL with a message in err for an address that is malformed or not
 * a loopback one, QR_EIO with a message when the address cannot be bound, QR_ENOMEM. */
#define QR_MCP_HTTP_SESSIONS 32
int qr_mcp_serve_http(const qr_mcp_config *cfg, const char *addr, int stop_fd,
                      void (*ready)(void *ud, const char *url), void *ud, qr_buf *err);
/* Checks addr as qr_mcp_serve_http would, without binding it. */
int qr_mcp_http_check_addr(const char *addr, qr_buf *err);

/* The HTTP/1.1 request head parser the transport uses (fuzzed on its own). */
#define QR_MCP_HTTP_MAX_HEAD 16384
#define QR_MCP_HTTP_MAX_HEADERS 64
#define QR_MCP_HTTP_MAX_TARGET 2048
typedef struct qr_mcp_http_header {
    const char *name, *value; /* slices of the parsed buffer */
    size_t name_len, value_len;
} qr_mcp_http_header;
typedef struct qr_mcp_http_request {
    const char *method, *target;
    size_t method_len, target_len;
    int minor; /* HTTP/1.minor */
    qr_mcp_http_header headers[QR_MCP_HTTP_MAX_HEADERS];
    size_t nheaders;
    size_t head_len; /* bytes through the empty line that ends the head */
    uint64_t content_length;
    bool has_length, has_transfer_encoding;
} qr_mcp_http_request;
/* Parses the head at buf[0..len): 1 when it is complete (r->head_len bytes), 0 when more
 * bytes are needed, or the negated HTTP status to answer: -400 malformed, -414 target
 * too long, -431 head too large, -505 version not supported. */
int qr_mcp_http_parse_request(qr_mcp_http_request *r, const char *buf, size_t len);
/* How many headers called name (case-insensitive) the request has; the first one's value
 * in *value, *len (NULL, 0 when none). */
size_t qr_mcp_http_header_get(const qr_mcp_http_request *r, const char *name, const char **value,
                          size_t *len);
/* Whether a comma-separated header value lists token (media types: parameters ignored). */
bool qr_mcp_http_header_has(const char *value, size_t len, const char *token);
/* Whether a Host value ("127.0.0.1:8080", "localhost", "[::1]:1") or an Origin value
 * ("http://localhost:3000") names a loopback address. */
bool qr_mcp_http_loopback_host(const char *v, size_t n);
bool qr_mcp_http_loopback_origin(const char *v, size_t n);

#endif
