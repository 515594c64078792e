/*
 * lib_seq.c: placeholder table, filled in by the seq library.
 */
#include "lisp_int.h"

const qr_builtin qr_lib_seq[] = {
    {.hdr = {.name = NULL}},
};
