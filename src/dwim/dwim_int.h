/*
 * dwim_int.h: what the files of src/dwim share: running a child process, resolving a
 * path inside the working tree, the code graph of the working tree, validate and fix.
 */
#ifndef QUARRY_DWIM_INT_H
#define QUARRY_DWIM_INT_H

#include "quarry/dwim.h"

/* Runs argv (no shell) in dir (NULL: here), stdout and stderr into out (err_out NULL:
 * both into out); *status is the exit code (128+signal when killed). QR_EIO when it
 * cannot start. */
int qr__dwim_spawn(const char *const *argv, const char *dir, qr_buf *out, qr_buf *err_out,
                   int *status);
/* path (relative to the root, or absolute) resolved with symlinks; refused outside the
 * root. must_exist false: a new file whose directory exists. *abs_out is malloc'd;
 * *rel_out points into it. */
int qr__dwim_resolve(const qr_dwim_ctx *c, const char *path, bool must_exist, char **abs_out,
                     const char **rel_out, qr_buf *err);
int qr__dwim_graph(qr_dwim_ctx *c, qr_code_graph **g, qr_buf *err);
int qr__dwim_validate(qr_dwim_ctx *c, qr_arena *a, qr_buf *out, qr_buf *err);
int qr__dwim_fix(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_arena *a, qr_buf *out,
                 qr_buf *err);

#endif
