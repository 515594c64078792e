/*
 * quarry/toml.h: quarry's own TOML reader (Debian 12 packages no C library for it), for
 * the files quarry reads: the model configuration (config.toml, .quarry.toml) and memory
 * agent definitions (agents/NAME.toml). It reads a document straight into a map value.
 *
 * Supported (TOML 1.0): comments; bare, quoted and dotted keys; [tables] and [[arrays of
 * tables]]; basic and literal strings, single- and multi-line, with every escape;
 * integers (decimal, 0x, 0o, 0b, with underscores); floats (with exponent, inf, nan);
 * booleans; arrays (nested, multi-line, trailing comma); inline tables. Offset and local
 * date-times, dates and times are read as strings holding their text. Defining a key or
 * a table twice, and every other malformation, is an error with its line and column.
 *
 * Values: tables become maps with string keys in the order they were written; arrays
 * become vectors; integers ints; floats doubles; booleans booleans. A multi-line string's
 * CRLF line ends read as "\n". A float too large for a double (1e999) is an error, as is
 * an integer outside int64. A BOM at the start is skipped; the input must be UTF-8.
 *
 * Ownership: the values are allocated in the arena a (so is scratch, which stays there
 * until the arena is released); src is only read and need not be NUL-terminated.
 * Error codes: QR_OK (*out is the document's map); QR_EINVAL for malformed input;
 * QR_ELIMIT when the document nests deeper than QR_TOML_MAX_DEPTH (the root map counts
 * as one level, each table, array and inline table inside it as one more); QR_ENOMEM when
 * the arena refuses. On every error *out is nil and err (when not NULL) holds a message;
 * for QR_EINVAL and QR_ELIMIT also the 1-based line and column (in characters) where the
 * problem is, for QR_ENOMEM line and column 0.
 */
#ifndef QUARRY_TOML_H
#define QUARRY_TOML_H

#include "quarry/value.h"

#define QR_TOML_MAX_DEPTH 64

int qr_toml_read(qr_arena *a, const char *src, size_t n, qr_val *out, qr_read_error *err);

/* Flags of qr_toml_read_ex. QR_TOML_NO_TEXT: error messages give the position and what
 * was expected but quote no text of the document (no key, value or letter; ASCII
 * punctuation such as ':' is still named), for files whose errors a model or a log may
 * see and whose content is not the reader's to show. */
enum { QR_TOML_NO_TEXT = 1 };
int qr_toml_read_ex(qr_arena *a, const char *src, size_t n, int flags, qr_val *out,
                    qr_read_error *err);

#endif
