/*
 * quarry/jsonrpc.h: JSON-RPC message framing on a byte stream, the one implementation the
 * MCP stdio server, the language server and the flow runtime's MCP client share.
 *
 * Two framings: newline-delimited JSON (MCP's stdio transport: one message a line, "\r\n"
 * accepted, blank lines skipped, a last line without a newline is a message) and
 * Content-Length headers (LSP: "Content-Length: N\r\n\r\n" then N bytes; other header
 * fields are ignored). QR_JSONRPC_AUTO picks per message: a frame that starts with '{' or
 * '[' is a line, anything else a header.
 *
 * One cap for every message (QR_JSONRPC_MAX_MESSAGE unless the caller sets a smaller
 * one). A message over the cap is an error for that message only: its bytes are read
 * and dropped (through the id scanner, so the sender's request can be answered with an
 * error that carries its id) and reading goes on with the next one. A header whose
 * Content-Length is missing, malformed, duplicated or conflicting is an error for that
 * frame; when the body's end cannot be known, reading resynchronizes at the next
 * "Content-Length:" (in AUTO framing also at a line that starts with '{' or '[').
 *
 * Ownership: a reader owns its buffer (qr_jsonrpc_reader_release frees it), never the
 * descriptor. A message returned by qr_jsonrpc_read points into that buffer and stays
 * valid until the next call of qr_jsonrpc_read or qr_jsonrpc_poll on the same reader.
 */
#ifndef QUARRY_JSONRPC_H
#define QUARRY_JSONRPC_H

#include "quarry/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cap of one message, for every quarry surface that speaks JSON-RPC. */
#define QR_JSONRPC_MAX_MESSAGE (16u << 20)
/* The longest header block of a Content-Length frame. */
#define QR_JSONRPC_MAX_HEADER 8192u

typedef enum {
    QR_JSONRPC_LINES = 0, /* newline-delimited JSON */
    QR_JSONRPC_HEADERS,   /* Content-Length framing */
    QR_JSONRPC_AUTO,      /* reading: per message, by its first byte */
} qr_jsonrpc_framing;

/* Finds the request id of a JSON-RPC message from its bytes without parsing the whole
 * message (the member "id" of the top-level object, wherever it is). Feed it chunks in
 * order. */
typedef struct qr_jsonrpc_idscan {
    uint32_t depth;
    uint8_t state;
    bool in_str, esc, done;
    char key[4];
    uint8_t keylen;
    char id[130];
    uint8_t idlen;
    bool found;
} qr_jsonrpc_idscan;
void qr_jsonrpc_idscan_init(qr_jsonrpc_idscan *sc);
void qr_jsonrpc_idscan_feed(qr_jsonrpc_idscan *sc, const char *p, size_t n);
/* The id's JSON text (a string or a number) or NULL when none was found. */
const char *qr_jsonrpc_idscan_result(const qr_jsonrpc_idscan *sc, size_t *len);

typedef struct qr_jsonrpc_reader {
    int fd;
    qr_jsonrpc_framing framing;
    size_t max; /* the message cap */
    char *buf;
    size_t pos, len, cap; /* unread data is buf[pos..len) */
    size_t peeked;        /* complete frames before this were shown by qr_jsonrpc_poll */
    bool eof;             /* end of input (or a read error) was seen */
    int read_errno;       /* the error of a failed read(2), else 0 */
    bool hunting;         /* after a bad header: dropping input until "Content-Length:" */
    bool hunt_bol;        /* while hunting: buf[pos] starts a line */
    /* After QR_ELIMIT: the size of the dropped message and its id (has_id). */
    size_t bad_len;
    bool has_id;
    char id[130];
    size_t idlen;
    /* After any result but QR_OK: one line saying what happened. */
    char error[200];
} qr_jsonrpc_reader;

/* max 0 means QR_JSONRPC_MAX_MESSAGE. QR_OK or QR_ENOMEM. */
int qr_jsonrpc_reader_init(qr_jsonrpc_reader *r, int fd, qr_jsonrpc_framing framing, size_t max);
void qr_jsonrpc_reader_release(qr_jsonrpc_reader *r);

/* Reads the next message into *msg, *len (one JSON text, not checked as JSON). Waits at
 * most timeout_ms for input (negative: without limit) and stops waiting when stop says so
 * (it is checked every 50 ms; NULL: never). Returns
 *   QR_OK       a message;
 *   QR_ELIMIT   a message over the cap was dropped: bad_len, has_id/id/idlen say which;
 *   QR_EINVAL   a frame with a bad header was dropped (error says why);
 *   QR_EIO      end of input (read_errno 0), a read error (read_errno set) or no input
 *               within timeout_ms (error says which);
 *   QR_ESTOPPED stop was set;
 *   QR_ENOMEM.
 * After QR_ELIMIT and QR_EINVAL the next call reads on. */
int qr_jsonrpc_read(qr_jsonrpc_reader *r, int timeout_ms, const qr_stop *stop, const char **msg,
                    size_t *len);

/* Reads whatever input has already arrived, without blocking, and calls fn once for each
 * complete message after the one last returned that it has not shown before (messages
 * still to be returned by qr_jsonrpc_read: a server looks for a cancel while it works).
 * It may move the buffer, but drops and reorders nothing. */
void qr_jsonrpc_poll(qr_jsonrpc_reader *r, void (*fn)(void *ud, const char *msg, size_t len),
                     void *ud);

/* Writes one message msg[0..len) framed as framing (LINES or HEADERS; a line message must
 * hold no newline, which quarry's JSON printer never writes). On a socket it is sent
 * with MSG_NOSIGNAL, so a peer that went away is an error, not SIGPIPE. QR_OK or QR_EIO
 * (errno kept). Concurrent writers must serialize their calls. */
int qr_jsonrpc_write(int fd, qr_jsonrpc_framing framing, const char *msg, size_t len);

#endif
