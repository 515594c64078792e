/*
 * tools_int.h: what the files of the tools layer share and nothing else sees: the record
 * checks done once at registration, argument checking without the "tool 'NAME': " prefix
 * (the Lisp adds its own), default parsing, suggestions by edit distance, and value
 * descriptions for error messages.
 */
#ifndef QUARRY_TOOLS_INT_H
#define QUARRY_TOOLS_INT_H

#include "quarry/tools.h"

/* Most parameters one tool may declare (validation keeps per-parameter state on the
 * stack). */
#define QR_TOOL_MAX_PARAMS 64
/* Longest tool or parameter name (OpenAI and Anthropic allow 64). */
#define QR_TOOL_MAX_NAME 64

/* Number of parameters in t->params. */
size_t qr__tool_nparams(const qr_tool *t);
/* True when s[0..n) is a valid tool or parameter name: [A-Za-z][A-Za-z0-9_-]{0,63}. */
bool qr__tool_name_valid(const char *s, size_t n);
/* Checks a record once, at registration; writes the reason into msg on failure. */
bool qr__tool_record_ok(const qr_tool *t, char *msg, size_t msgsize);

/* Checks and normalizes args; on failure appends the message body (no tool prefix) to
 * err and returns QR_EINVAL. QR_ENOMEM when the arena is exhausted. */
int qr__tool_check(const qr_tool *t, qr_val args, qr_arena *a, qr_val *norm, qr_buf *err);
/* Parses a parameter's default text (JSON, else EDN) into `a`. */
int qr__param_default(const qr_tool_param *p, qr_arena *a, qr_val *out);
/* "a string", "an integer", "an array of integers", ... */
const char *qr__type_expectation(qr_tool_type t);


/* The candidate closest to s[0..n) by edit distance (case and '-' / '_' ignored), or
 * NULL when none is close enough to be worth suggesting. */
const char *qr__suggest(const char *s, size_t n, const char *const *cands, size_t ncands);
/* True when a[0..an) and b equal with '-' and '_' taken as the same character. */
bool qr__name_matches_loose(const char *a, size_t an, const char *b);

#endif
