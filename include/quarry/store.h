/*
 * quarry/store.h: opening a persistent store, the one seam every source's database goes
 * through (the statistics index, the code index, the memory store). Today one backend:
 * SQLite, a file (or ":memory:") in WAL mode with a busy timeout, whose PRAGMA
 * application_id says what the file is and PRAGMA user_version which schema it holds.
 * The other: PostgreSQL on libpq, selected by a postgres:// or postgresql:// URL in the
 * same location (below, "PostgreSQL"); libpq is linked into this layer only.
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
 * PostgreSQL: qr_store_open connects (st->pg) and reads the version of the team
 * database's schema, which numbered migrations make (schema_migrations, one row per
 * migration applied; qr_store_pg_migrate). application_id, schema_version and schema_sql
 * are SQLite's and ignored there. A schema newer than this binary's migrations is refused
 * (QR_EIO, "... newer than this quarry reads (N): upgrade quarry"); all migrations
 * applied: QR_STORE_OURS; no schema_migrations table: with QR_STORE_CREATE every
 * migration is applied (QR_STORE_OURS with `created`), else QR_STORE_EMPTY; an older
 * schema: QR_STORE_OTHER (the caller says to run `quarry db migrate`; never migrated
 * implicitly). Messages name the server as qr_store_server_name spells it and never hold
 * the URL or its password: libpq's own text is included with both masked.
 *
 * Errors: QR_OK; QR_EIO with a message in err (a PostgreSQL failure always has one);
 * QR_EINVAL for a location no backend serves or a URL libpq cannot parse; QR_ENOMEM.
 * When SQLite itself failed, st->sqlite_rc holds its (extended) code and err holds
 * nothing: the caller turns it into its own message (qr_store_describe
 * gives the plain one), since whether a corrupt file is rebuilt, refused or salvaged is
 * the store's decision. Ownership: st->db (SQLite) or st->pg and st->server (PostgreSQL)
 * are held after qr_store_open whatever it returned, and the caller releases them with
 * qr_store_close.
 */
#ifndef QUARRY_STORE_H
#define QUARRY_STORE_H

#include "quarry/base.h"

#include <stdbool.h>
#include <stdint.h>

struct sqlite3;
struct pg_conn;   /* libpq's PGconn */
struct pg_result; /* libpq's PGresult */

#define QR_STORE_BUSY_TIMEOUT_MS 5000

enum {
    QR_STORE_CREATE = 1 << 0,       /* create a missing file, and the schema in an empty one */
    QR_STORE_FOREIGN_KEYS = 1 << 1, /* PRAGMA foreign_keys = ON */
    QR_STORE_POSTGRES_OK = 1 << 2,  /* the caller reads st->pg: without it a PostgreSQL
                                       URL is refused (QR_EINVAL, "WHAT is not on
                                       PostgreSQL yet"), as no st->db would come back */
};

typedef enum {
    QR_STORE_SQLITE = 0,
    QR_STORE_POSTGRES, /* a postgres:// or postgresql:// URL, on libpq */
} qr_store_backend;

typedef enum {
    QR_STORE_OURS = 0, /* this application and schema version (possibly just created) */
    QR_STORE_EMPTY,    /* an empty database (without QR_STORE_CREATE or schema_sql) */
    QR_STORE_OTHER,    /* another application's database, or an older schema of ours */
} qr_store_kind;

typedef struct qr_store_spec {
    const char *what;        /* the store in messages: "memory store", "code index" */
    const char *location;    /* a file path, ":memory:" or a postgresql:// URL */
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
    struct pg_conn *pg;           /* PostgreSQL: the connection (owned) */
    char *server;                 /* PostgreSQL: the server as qr_store_server_name spells it */
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

/* ---- PostgreSQL ---- */

/* A numbered migration of the team database's schema: applied once, in order, in the
 * transaction of qr_store_pg_migrate, and recorded in schema_migrations. */
typedef struct qr_store_migration {
    int version; /* 1, 2, 3...: the list is numbered without gaps */
    const char *name;
    const char *sql;
} qr_store_migration;

/* The migrations this binary knows, in order; *n gets their number (the latest version). */
const qr_store_migration *qr_store_pg_migrations(size_t *n);

/* Appends to out the server a PostgreSQL URL names, safe to print anywhere: "postgresql
 * server HOST:PORT, database DB" (HOST may be a socket directory; libpq's defaults fill
 * what the URL leaves out). Never the user, the password nor the rest of the URL; a URL
 * libpq cannot parse gives "postgresql server (an invalid URL, not shown)". */
void qr_store_server_name(const char *url, qr_buf *out);
/* Appends the password a PostgreSQL URL holds, decoded, and returns true; false (nothing
 * appended) when it holds none or cannot be parsed. For a caller that masks it in what it
 * prints (cli_add_secret): the store's own messages never hold it. */
bool qr_store_url_password(const char *url, qr_buf *out);

/* Connects to the PostgreSQL server of url without reading any schema (quarry db uses it
 * to report and migrate any version). st is closed with qr_store_close whatever this
 * returns. QR_OK; QR_EINVAL for a URL libpq cannot parse; QR_EIO when the connection
 * fails ("WHAT: cannot connect to SERVER: libpq's reason, masked"). */
int qr_store_pg_connect(qr_store *st, const char *what, const char *url, qr_buf *err);
/* The schema version of a connected database: *initialized is whether schema_migrations
 * exists, *version the highest migration recorded (0: none). QR_OK or QR_EIO. */
int qr_store_pg_version(qr_store *st, bool *initialized, int64_t *version, qr_buf *err);
/* Applies the pending migrations in one transaction, under an advisory lock (two
 * migrating processes apply each migration once); *applied gets their number. A schema
 * newer than this binary's is refused (QR_EINVAL, "... newer than this quarry knows (N):
 * upgrade quarry") and nothing is changed; a failing migration rolls every one back
 * (QR_EIO, naming the migration). */
int qr_store_pg_migrate(qr_store *st, int *applied, qr_buf *err);

/* The rows of a statement, as text (libpq's text format). */
typedef struct qr_store_rows {
    struct pg_result *res;
    int n, cols;
    int64_t changed; /* rows an INSERT, UPDATE or DELETE touched */
} qr_store_rows;

/* Runs one statement on a connected store, with nparams text parameters ($1...; NULL is
 * SQL NULL), so that the layers above use PostgreSQL without linking libpq. rows (NULL: not
 * kept) gets the result, freed with qr_store_rows_free. QR_OK; QR_EIO with "cannot DOING
 * on SERVER: the server's reason" in err, and the SQLSTATE (five characters, "23505" for a
 * unique violation) in sqlstate when non-NULL. */
int qr_store_pg_exec(qr_store *st, const char *sql, int nparams, const char *const *params,
                     qr_store_rows *rows, const char *doing, char sqlstate[6], qr_buf *err);
/* ---- due agents: the scheduler's leases (table due_agents, migration 1) ----
 * Times are Unix seconds from the caller (quarry's clock), never the server's, so that
 * QUARRY_NOW pins them. An agent is claimable when due <= now and it holds no lease, or
 * its lease ended (lease_until <= now: a crashed holder's claim expires). */

/* Makes agent due at `due` (adding it, or moving its time; a lease it holds is kept). */
int qr_store_agent_schedule(qr_store *st, const char *agent, int64_t due, qr_buf *err);
/* Claims the earliest claimable agent (ties by name) for holder until now + lease_s, with
 * SELECT ... FOR UPDATE SKIP LOCKED: concurrent claimers never get the same agent and never
 * wait on one another. Appends its name to agent and sets *claimed; none claimable: QR_OK
 * with *claimed false. */
int qr_store_agent_claim(qr_store *st, const char *holder, int64_t now, int64_t lease_s,
                         qr_buf *agent, bool *claimed, qr_buf *err);
/* Ends holder's run of agent: next due at next_due, the lease cleared, runs + 1. *held is
 * false (and nothing changes) when holder no longer holds it (its lease expired and
 * another claimed it). */
int qr_store_agent_done(qr_store *st, const char *agent, const char *holder, int64_t next_due,
                        bool *held, qr_buf *err);

/* The value at row, col ("" out of range), or NULL for SQL NULL. */
const char *qr_store_rows_get(const qr_store_rows *r, int row, int col);
void qr_store_rows_free(qr_store_rows *r);

#endif
