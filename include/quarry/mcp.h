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

/* The revision the server prefers, and every one it accepts, newest first. */
#define QR_MCP_PROTOCOL_VERSION "2025-11-25"
extern const char *const qr_mcp_protocol_versions[]; /* NULL-terminated */

/* Defaults of qr_mcp_config_init. */
#define QR_MCP_MAX_MESSAGE (16u << 20) /* bytes of one message */
#define QR_MCP_PAGE_SIZE 100           /* tools in one tools/list page */

typedef struct qr_mcp_config {
    /* the repository a call without a `repo` argument works on (NULL: the working
     * directory) */
    const char *repo_dir;
    /* compute git statistics without the statistics index */
    bool no_index;
    /* the memory store the memory tools use (NULL: $QUARRY_MEMORY); calls may name no
     * other store */
    const char *memory_path;
    /* largest message accepted, in bytes (larger ones are answered with an error) */
    size_t max_message;
    /* tools per tools/list page (at least 1) */
    size_t page_size;
    /* rows of a vector result given to the client (0: all); the result then says how
     * many were left out */
    size_t max_rows;
    /* limits of each run_lisp / run_query program */
    qr_lisp_limits limits;
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
 * QR_OK, or QR_EIO when the client is gone. poll, when set, is called while a request is
 * handled and before its response is sent, so the transport can read what arrived
 * meanwhile and pass cancellations to qr_mcp_peek. */
typedef int (*qr_mcp_send_fn)(void *ud, const char *msg, size_t len);
typedef void (*qr_mcp_poll_fn)(void *ud);
void qr_mcp_set_io(qr_mcp_server *s, qr_mcp_send_fn send, qr_mcp_poll_fn poll, void *ud);

/* Handles one message (msg[0..len), one JSON text). Sends its response, if any, and any
 * notifications. Returns QR_OK, or QR_EIO when a send failed. */
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

/* ---- stdio transport ---- */
/* Serves newline-delimited messages read from in_fd, writing to out_fd, until end of
 * input (after answering every complete message) or until the client stops reading.
 * A message may end with "\r\n"; empty lines are skipped; a last line without a newline
 * is handled. Returns QR_OK on end of input or a closed output (EPIPE: the caller must
 * ignore SIGPIPE), QR_EIO when reading fails, QR_ENOMEM. */
int qr_mcp_serve_stdio(qr_mcp_server *s, int in_fd, int out_fd);

/* Finds the request id of a JSON-RPC message from its bytes without parsing the whole
 * message (the member "id" of the top-level object, wherever it is), as the stdio
 * transport does for a message too large to read. Feed it chunks in order. */
typedef struct qr_mcp_idscan {
    uint32_t depth;
    uint8_t state;
    bool in_str, esc, done;
    char key[4];
    uint8_t keylen;
    char id[130];
    uint8_t idlen;
    bool found;
} qr_mcp_idscan;
void qr_mcp_idscan_init(qr_mcp_idscan *sc);
void qr_mcp_idscan_feed(qr_mcp_idscan *sc, const char *p, size_t n);
/* The id's JSON text (a string or an integer) or NULL when none was found. */
const char *qr_mcp_idscan_result(const qr_mcp_idscan *sc, size_t *len);

#endif
