/*
 * lib_regex.c: placeholder table, filled in by the regex library.
 */
#include "lisp_int.h"

const qr_builtin qr_lib_regex[] = {
    {.hdr = {.name = NULL}},
};
