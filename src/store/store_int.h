/*
 * store_int.h: what store.c (the seam and its SQLite backend) and pg.c (the PostgreSQL
 * backend) share inside the store layer.
 */
#ifndef QUARRY_STORE_INT_H
#define QUARRY_STORE_INT_H

#include "quarry/store.h"

/* qr_store_open for a PostgreSQL URL (st already zeroed, st->backend set). */
int qr__store_pg_open(qr_store *st, const qr_store_spec *spec, qr_buf *err);
/* Closes the PostgreSQL connection and frees st->server. */
void qr__store_pg_close(qr_store *st);

#endif
