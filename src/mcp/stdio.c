/*
 * stdio.c: the stdio transport of the MCP server: newline-delimited JSON-RPC messages
 * read from one descriptor and written to another (the server's stdin and stdout), framed
 * by the shared reader and writer of quarry/jsonrpc.h (one message cap for every surface).
 *
 * Design: one reading thread. Complete lines are handed to qr_mcp_handle in order; a
 * message is never split or merged. With the server's workers running (the default),
 * qr_mcp_handle returns as soon as a call is queued, so this thread reads on: ping and
 * notifications/cancelled take effect while calls run. With one worker, calls run on
 * this thread; then, while a request runs, the server calls the poll hook before
 * answering: qr_jsonrpc_poll reads whatever input has already arrived, without blocking,
 * and shows each complete line to qr_mcp_peek, so a notifications/cancelled for the
 * running request (or for one queued behind it) takes effect. A line longer than the
 * limit is not kept but streamed through the id scanner by the reader, and answered with
 * an error that carries its id, so the client's request fails at once instead of waiting
 * for a timeout. A client that closes its end ends the loop: at end of input after the
 * last complete message (and a last line without a newline) is answered, at EPIPE as soon
 * as a write fails; either way the server exits with status 0, as the lifecycle's stdio
 * shutdown expects.
 *
 * Rejected: reading with stdio's FILE (its buffering hides what poll(2) would report as
 * available); closing the connection on an oversized message (one bad message should
 * cost one error).
 */
#include "mcp_int.h"

#include "quarry/jsonrpc.h"

#include <stdlib.h>

typedef struct stdio_io {
    qr_mcp_server *s;
    int out;
    qr_jsonrpc_reader rd;
} stdio_io;

static int io_send(void *ud, const char *msg, size_t len, const char *req_id, bool final)
{
    stdio_io *io = ud;
    (void)req_id;
    (void)final;
    if (!msg)
        return QR_OK; /* a request ended without a response: nothing to write */
    return qr_jsonrpc_write(io->out, QR_JSONRPC_LINES, msg, len);
}

static void peek_one(void *ud, const char *msg, size_t len)
{
    qr_mcp_peek(ud, msg, len);
}

/* The poll hook: shows every complete line that has arrived to qr_mcp_peek. */
static void io_poll(void *ud)
{
    stdio_io *io = ud;
    qr_jsonrpc_poll(&io->rd, peek_one, io->s);
}

int qr_mcp_serve_stdio(qr_mcp_server *s, int in_fd, int out_fd)
{
    stdio_io io = {.s = s, .out = out_fd};
    if (qr_jsonrpc_reader_init(&io.rd, in_fd, QR_JSONRPC_LINES, s->cfg.max_message) != QR_OK)
        return QR_ENOMEM;
    qr_mcp_set_io(s, io_send, io_poll, &io);
    /* calls run on the workers (when there are several), so this thread keeps reading:
     * pings and cancellations are answered while calls run */
    if (qr_mcp_start_workers(s) != QR_OK && s->cfg.log)
        s->cfg.log(s->cfg.log_ud, "cannot start worker threads: calls run one at a time");
    int rc = QR_OK;
    for (;;) {
        const char *msg;
        size_t len;
        int k = qr_jsonrpc_read(&io.rd, -1, NULL, &msg, &len);
        if (k == QR_OK)
            rc = qr_mcp_handle(s, msg, len);
        else if (k == QR_ELIMIT)
            rc = qr_mcp_handle_oversized(s, io.rd.bad_len, io.rd.has_id ? io.rd.id : NULL,
                                         io.rd.idlen);
        else if (k == QR_EIO)
            break; /* end of input, or a read error (read_errno) */
        else if (k != QR_EINVAL)
            rc = k;
        if (rc != QR_OK)
            break;
    }
    /* at end of input every call is answered; a client that stopped reading gets
     * nothing more, so what runs is stopped */
    qr_mcp_stop_workers(s, rc != QR_OK);
    qr_mcp_set_io(s, NULL, NULL, NULL);
    int read_errno = io.rd.read_errno;
    qr_jsonrpc_reader_release(&io.rd);
    if (rc == QR_EIO) /* the client stopped reading: a normal end */
        rc = QR_OK;
    if (rc == QR_OK && read_errno)
        rc = QR_EIO;
    return rc;
}
