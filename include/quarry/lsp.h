/*
 * quarry/lsp.h: `quarry lsp`, a Language Server Protocol server (3.17) for workflow files
 * (quarry/flow.h), over stdio with Content-Length framing. It keeps the open documents
 * (full sync), publishes the checker's diagnostics on every change, and answers
 * completion, hover, go to definition, document symbols and formatting (the canonical
 * layout of `quarry flow fmt`). Positions are UTF-16 code units, as the protocol's default
 * encoding says.
 *
 * qr_lsp_serve reads requests from in_fd and writes responses and notifications to
 * out_fd until `exit` (or the end of input). Returns 0 when the client sent shutdown
 * before exit, 1 otherwise (what the protocol asks the process to exit with).
 */
#ifndef QUARRY_LSP_H
#define QUARRY_LSP_H

int qr_lsp_serve(int in_fd, int out_fd);

#endif
