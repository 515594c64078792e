/*
 * lib_string.c: placeholder table, filled in by the string library.
 */
#include "lisp_int.h"

const qr_builtin qr_lib_string[] = {
    {.hdr = {.name = NULL}},
};
