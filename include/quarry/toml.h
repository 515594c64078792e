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
 * become vectors; integers ints; floats doubles.
 *
 * Ownership: everything is allocated in the arena a.
 * Error codes: QR_OK; QR_EINVAL for malformed input (err filled in); QR_ELIMIT when the
 * document nests deeper than QR_TOML_MAX_DEPTH; QR_ENOMEM.
 */
#ifndef QUARRY_TOML_H
#define QUARRY_TOML_H

#include "quarry/value.h"

#define QR_TOML_MAX_DEPTH 64

int qr_toml_read(qr_arena *a, const char *src, size_t n, qr_val *out, qr_read_error *err);

#endif
