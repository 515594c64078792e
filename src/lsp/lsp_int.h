/*
 * lsp_int.h: what the language server's files share: an open document (its text, where
 * its lines start, its syntax tree and diagnostics, rebuilt on every change) and the
 * position helpers between the protocol's UTF-16 positions and byte offsets. server.c
 * holds the transport and the document store; features.c answers completion, hover,
 * definition and document symbols from a document's tree.
 */
#ifndef QUARRY_LSP_INT_H
#define QUARRY_LSP_INT_H

#include "quarry/flow.h"
#include "quarry/value.h"

typedef struct lsp_doc {
    char *uri;
    char *text;
    size_t n;
    size_t *lines; /* byte offset where each line starts */
    size_t nlines;
    qr_arena arena; /* the tree */
    qr_flow_file *file;
    qr_flow_diags diags;
} lsp_doc;

/* Byte offset of (line, UTF-16 character), both 0-based; clamped to the line. */
size_t lsp_offset(const lsp_doc *d, uint32_t line, uint32_t ch);
/* 0-based line and UTF-16 character of a byte offset. */
void lsp_position(const lsp_doc *d, size_t off, uint32_t *line, uint32_t *ch);
/* Byte offset of a 1-based line and code-point column (the checker's positions). */
size_t lsp_offset_cp(const lsp_doc *d, uint32_t line, uint32_t col);
/* Appends {"start":{...},"end":{...}} for the checker's span (1-based line, column and
 * length in code points). */
void lsp_range_cp(qr_buf *out, const lsp_doc *d, uint32_t line, uint32_t col, uint32_t len);

/* Each appends the JSON result of the request (never empty: "null" when nothing). */
void lsp_completion(qr_buf *out, const lsp_doc *d, size_t off);
void lsp_hover(qr_buf *out, const lsp_doc *d, size_t off);
void lsp_definition(qr_buf *out, const lsp_doc *d, size_t off);
void lsp_symbols(qr_buf *out, const lsp_doc *d);

#endif
