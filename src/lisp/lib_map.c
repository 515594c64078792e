/*
 * lib_map.c: placeholder table, filled in by the map library.
 */
#include "lisp_int.h"

const qr_builtin qr_lib_map[] = {
    {.hdr = {.name = NULL}},
};
