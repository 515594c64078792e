/*
 * code_int.h: what the files of the code graph share inside src/code (the store, the
 * assembled graph's layout, ctags).
 */
#ifndef QUARRY_CODE_INT_H
#define QUARRY_CODE_INT_H

#include "quarry/code.h"

#endif
