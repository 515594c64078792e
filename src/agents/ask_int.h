/*
 * ask_int.h: what the files of `quarry ask` share (src/agents/ask*.c).
 */
#ifndef QUARRY_ASK_INT_H
#define QUARRY_ASK_INT_H

#include "quarry/ask.h"

/* The most steps a plan may have, revisions included. */
#define ASK_MAX_STEPS 8

/* The records of each binding an Evaluator is shown (the prompts say so, in words made
 * from this number). */
#define ASK_SAMPLE_ROWS 3
#define ASK_STR_(x) #x
#define ASK_STR(x) ASK_STR_(x)

/* Whether the agents are shown, and may call, tool t: the repository's read-only tools. */
bool qr_ask_tool_offered(const qr_tools *tools, const qr_tool *t);

typedef enum ask_mode { ASK_MODE_NONE = 0, ASK_MODE_QUERY, ASK_MODE_INTENT, ASK_MODE_PLAN } ask_mode;

/* What an Architect, Fetcher or Evaluator reply asks for, read from the parsed value:
 * the mode, and its payload (the query, the intent string or the steps vector). json says
 * the reply was JSON. QR_EINVAL with a message in err when it is none of them. */
int ask_reply_mode(qr_arena *a, qr_val v, ask_mode *mode, qr_val *payload, qr_buf *err);
/* True when v is the keyword or string `name`. */
bool ask_is_name(qr_val v, const char *name);
/* The value under keyword key k of map m (a string key of the same name also counts). */
bool ask_get(qr_arena *a, qr_val m, const char *k, qr_val *out);

#endif
