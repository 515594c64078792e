/*
 * mcp_check.h: what the MCP fuzz harnesses (fuzz_mcp.c, fuzz_mcp_stream.c) assert of every
 * message the server sends: a request ends answered, a response names its request, each
 * message is one JSON object on one line that reads back. A header of one static
 * function, so each harness stays one translation unit.
 */
#ifndef QUARRY_FUZZ_MCP_CHECK_H
#define QUARRY_FUZZ_MCP_CHECK_H

#include "quarry/base.h"
#include "quarry/value.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int check_send(void *ud, const char *msg, size_t len, const char *req_id, bool final)
{
    (void)ud;
    if (!msg)
        return final && req_id ? QR_OK : (abort(), QR_OK); /* a request ended unanswered */
    if (final && !req_id)
        abort(); /* a response always names its request */
    if (len < 2 || msg[0] != '{' || msg[len - 1] != '}' || memchr(msg, '\n', len))
        abort(); /* one object, one line */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    qr_read_error e;
    if (qr_json_read(&a, msg, len, &v, &e) != QR_OK || v.t != QR_T_MAP)
        abort(); /* what the server writes must read back */
    qr_arena_release(&a);
    return QR_OK;
}

#endif
