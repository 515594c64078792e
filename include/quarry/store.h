/*
 * quarry/store.h: opening a persistent store, the one seam every source's database goes
 * through (the statistics index, the code index, the memory store). Today one backend:
 * SQLite, a file (or ":memory:") in WAL mode with a busy timeout, whose PRAGMA
 * application_id says what the file is and PRAGMA user_version which schema it holds.
 * A PostgreSQL backend (a postgresql:// URL in the same spec) is meant to go behind this
 * seam; until it is built such a location is refused with a message saying so.
 *
 * What qr_store_open does, in order: opens (creating the file only with QR_STORE_CREATE),
 * sets the busy timeout and extended result codes, then reads what the file is before
 * changing anything (a foreign file keeps its journal mode):
 *   - this application id and a newer user_version: refused ("... newer than this quarry
 *     reads (N): upgrade quarry"), QR_EIO;
 *   - this application id and this version: QR_STORE_OURS;
 *   - an empty database: with QR_STORE_CREATE and a schema_sql, the schema is created
 *     under the write lock (once, when several processes race), application_id and
 *     user_version are set, after_create runs in the same transaction: QR_STORE_OURS with
 *     `created`; else QR_STORE_EMPTY;
 *   - anything else (another application's database, an older schema of ours):
 *     QR_STORE_OTHER, untouched; the caller decides (a cache is moved aside and rebuilt,
 *     the memory store refuses it).
 * A store of ours (or just created) gets journal_mode WAL (checked: a file that stays in
 * another mode is refused), synchronous NORMAL, and foreign keys with
 * QR_STORE_FOREIGN_KEYS.
 *
 * Errors: QR_OK; QR_EIO with a message in err; QR_EINVAL for a location no backend
 * serves; QR_ENOMEM. When SQLite itself failed, st->sqlite_rc holds its (extended) code
 * and err holds nothing: the caller turns it into its own message (qr_store_describe
 * gives the plain one), since whether a corrupt file is rebuilt, refused or salvaged is
 * the store's decision. Ownership: st->db is open after qr_store_open (whatever it
 * returned, unless NULL) and the caller closes it with qr_store_close.
 */
#ifndef QUARRY_STORE_H
#define QUARRY_STORE_H

#include "quarry/base.h"

#include <stdbool.h>
#include <stdint.h>

struct sqlite3;

#define QR_STORE_BUSY_TIMEOUT_MS 5000

enum {
    QR_STORE_CREATE = 1 << 0,       /* create a missing file, and the schema in an empty one */
    QR_STORE_FOREIGN_KEYS = 1 << 1, /* PRAGMA foreign_keys = ON */
};

typedef enum {
    QR_STORE_SQLITE = 0,
    QR_STORE_POSTGRES, /* not built yet: refused */
} qr_store_backend;

typedef enum {
    QR_STORE_OURS = 0, /* this application and schema version (possibly just created) */
    QR_STORE_EMPTY,    /* an empty database (without QR_STORE_CREATE or schema_sql) */
    QR_STORE_OTHER,    /* another application's database, or an older schema of ours */
} qr_store_kind;

typedef struct qr_store_spec {
    const char *what;        /* the store in messages: "memory store", "code index" */
    const char *location;    /* a file path or ":memory:" (later: a postgresql:// URL) */
    uint32_t application_id; /* PRAGMA application_id of this kind of store */
    int schema_version;      /* PRAGMA user_version of the schema this binary reads */
    const char *schema_sql;  /* creates the schema in an empty store (NULL: never) */
    /* runs after schema_sql in the creating transaction (NULL: none); returns an SQLite
     * result code */
    int (*after_create)(struct sqlite3 *db, void *ud);
    void *ud;
    int flags;           /* QR_STORE_* */
    int busy_timeout_ms; /* 0: QR_STORE_BUSY_TIMEOUT_MS */
} qr_store_spec;

typedef struct qr_store {
    qr_store_backend backend;
    struct sqlite3 *db;
    qr_store_kind kind;
    bool created;                 /* the schema was created by this open */
    int64_t app_id, version;      /* what the file said before anything was set */
    int sqlite_rc;                /* when SQLite failed: its code (else 0) */
    const char *failed_op;        /* and at what: "open", "read", "set up" or "create" */
} qr_store;

/* Runs sql, a query of one integer (a PRAGMA, a count), into *out (NULL: not kept; no row
 * gives 0). Returns SQLite's result code: SQLITE_OK (0) or the failure. */
int qr_store_query_int(struct sqlite3 *db, const char *sql, int64_t *out);

/* An after_create for schemas with a meta(key, value) table: sets the value of key
 * 'created' to now (quarry's clock, so QUARRY_NOW pins it) as ISO-8601 UTC. */
int qr_store_stamp_created(struct sqlite3 *db, void *ud);

/* The backend a location names: QR_STORE_POSTGRES for postgres:// and postgresql:// URLs,
 * else QR_STORE_SQLITE. */
qr_store_backend qr_store_backend_of(const char *location);
int qr_store_open(qr_store *st, const qr_store_spec *spec, qr_buf *err);
/* Appends the plain message of a failed SQLite step: "cannot OP WHAT 'LOCATION': why". */
void qr_store_describe(const qr_store *st, const qr_store_spec *spec, qr_buf *err);
void qr_store_close(qr_store *st);

#endif
