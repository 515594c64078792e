/*
 * quarry/memory.h: the memory store (seed 002): a typed, weighted graph of notes kept in
 * one SQLite file the caller names, and the read-only in-memory snapshot of it that the
 * pipeline stages and graph algorithms run on.
 *
 * The same store runs on PostgreSQL when the location is a postgresql:// URL (the team
 * database's mem_* tables, docs/team.md): every operation below, with the same messages,
 * naming the server instead of a file and never the URL; many processes on many machines
 * share it (each write one transaction, counters and weights changed in SQL).
 *
 * A node is a note: a unique human-readable key ("journal#2026-11-20"), markdown content,
 * a type word ([a-z0-9-]+: episodic-session, episodic-daily, episodic-weekly,
 * episodic-monthly, semantic, or any other), a weight in [0, 1], a provenance string,
 * creation and modification times (unix seconds, UTC), three counters (retrievals, uses,
 * wrongs) and a set of tags. Edges are directed in the store (source, target, type) with a
 * strength in (0, 1]; the snapshot's graph is undirected. Visits record that an agent
 * looked at a node (time and outcome). Deletes are soft: a deleted node keeps its row and
 * its edges and is hidden from everything but qr_mem_node_get(..., include_deleted) and
 * qr_mem_node_restore; its edges reappear when it is restored.
 *
 * Ownership: a qr_mem handle is used by one thread at a time; several processes may share
 * the file (SQLite WAL, a 5 s busy timeout, writers queue at BEGIN IMMEDIATE). Every write
 * is one transaction: a killed process leaves the store as it was before the write. Strings
 * handed back (nodes, edges, search hits, errors) are allocated from the arena the caller
 * passes, or appended to the caller's qr_buf. Snapshots are reference counted and owned by
 * the handle (see qr_mem_snapshot_get).
 *
 * Errors: QR_EINVAL bad input (a key, type, tag, weight, strength or import line that is
 * not valid; the message says which and why), QR_ERUNTIME a request that cannot be done
 * on the store as it is (a key not found, already present, a link that does not exist),
 * QR_EIO SQLite failed or the store is busy (message says "store ... is busy"), or the
 * file is not a quarry memory store, QR_ENOMEM. Messages are appended to `err` (one line,
 * lowercase, subject quoted, with a hint).
 */
#ifndef QUARRY_MEMORY_H
#define QUARRY_MEMORY_H

#include <stdio.h>

#include "quarry/base.h"
#include "quarry/graph.h"

typedef struct qr_mem qr_mem;

/* The schema version this build reads and writes (PRAGMA user_version). */
#define QR_MEM_SCHEMA_VERSION 1
/* Limits on what a node holds (bytes). */
#define QR_MEM_KEY_MAX 1024
#define QR_MEM_WORD_MAX 64 /* types, tags, edge types, agent names */
#define QR_MEM_PROVENANCE_MAX 1024
#define QR_MEM_CONTENT_MAX (64u << 20)

/* ---- opening ---- */
enum {
    QR_MEM_CREATE = 1, /* create the file (and schema) when it does not exist */
    QR_MEM_NO_SNAPSHOT_FILE = 2, /* neither read nor write STORE.snapshot (see below) */
};
/* Opens the store at path (":memory:" for a private in-memory store). Without
 * QR_MEM_CREATE a missing file is QR_ERUNTIME ("no memory store at 'path'"). A file that
 * is not a quarry memory store, or has a newer schema, is QR_EIO and is left untouched
 * (the store is user data: never moved aside or rebuilt; what the file is gets read before
 * anything, WAL included, is set on it); a file that is not SQLite at all says so. */
int qr_mem_open(qr_mem **out, const char *path, int flags, qr_buf *err);
void qr_mem_close(qr_mem *m);
/* The damaged-store check of this handle (done before its first write): not yet, ran
 * (PRAGMA quick_check passed), or skipped because the files are exactly as a handle that
 * checked them left them after its own writes (docs/memory.md, src/memory/store_check.c). */
typedef enum { QR_MEM_CHECK_NONE, QR_MEM_CHECK_RAN, QR_MEM_CHECK_SKIPPED } qr_mem_check;
qr_mem_check qr_mem_check_state(const qr_mem *m);
/* The store's file, or on PostgreSQL the server as qr_store_server_name spells it (never
 * the URL): for messages. */
const char *qr_mem_path(const qr_mem *m);
/* True when the store is on a database server (a postgresql:// URL): it has no file, so
 * nothing may be written beside it (no STORE.snapshot, no STORE.spectral). */
bool qr_mem_on_server(const qr_mem *m);
/* True when m was opened at location (the path or URL given to qr_mem_open, compared as
 * given): a caller that keeps a handle asks this before opening the same store again.
 * qr_mem_path cannot serve there: on a server it names the server, not the URL. */
bool qr_mem_is_at(const qr_mem *m, const char *location);
/* One transaction around several writes: after qr_mem_begin (which takes the write lock,
 * waiting up to the busy timeout), every write of this handle joins it, and either all of
 * them become visible at qr_mem_commit (one generation bump) or none do, after
 * qr_mem_rollback or a crash. A write that fails inside it is undone alone (the caller
 * then commits or rolls back the rest). Reads inside it see its writes. QR_EINVAL for a
 * begin while one is open, or a commit with none; QR_EIO when busy or on I/O errors (a
 * failed commit has rolled everything back). When SQLite itself has rolled the whole
 * transaction back (it does after some I/O errors, a full disk or out of memory), every
 * later operation of the handle and qr_mem_commit are QR_EIO saying so, and nothing of it
 * is kept, until qr_mem_commit or qr_mem_rollback ends it. Closing the handle with one
 * open rolls it back. No snapshot can be taken while one is open (QR_EINVAL). */
int qr_mem_begin(qr_mem *m, qr_buf *err);
int qr_mem_commit(qr_mem *m, qr_buf *err);
void qr_mem_rollback(qr_mem *m);
/* Fixes the clock writes use for created/modified (unix seconds); 0 restores the real
 * clock. For reproducible tests and examples. */
void qr_mem_set_now(qr_mem *m, int64_t now);

/* ---- nodes ---- */
typedef struct qr_mem_node {
    int64_t id;            /* store id (rowid); stable while the node exists */
    const char *key;       /* NUL-terminated */
    const char *content;   /* markdown, NUL-terminated ("" when empty) */
    size_t content_len;    /* bytes */
    const char *type;      /* [a-z0-9-]+ */
    double weight;         /* 0..1 */
    const char *provenance; /* free text, "" when none */
    int64_t created, modified; /* unix seconds */
    int64_t retrievals, uses, wrongs;
    int64_t deleted;       /* time of the soft delete, 0 when live */
    const char *const *tags; /* sorted, distinct */
    size_t ntags;
} qr_mem_node;

/* Adds a node. Uses key, content (NULL = ""), type (NULL = "semantic"), weight,
 * provenance (NULL = ""), tags; created/modified of 0 mean now; the counters and deleted
 * are taken as given (import) and are 0 for a fresh note. A key already present (deleted
 * or not) is QR_ERUNTIME. *id_out (may be NULL) receives the new id. */
int qr_mem_node_add(qr_mem *m, const qr_mem_node *n, int64_t *id_out, qr_buf *err);
/* Reads the node with this key (a deleted one only with include_deleted); strings and
 * tags come from a. Not found: QR_ERUNTIME. */
int qr_mem_node_get(qr_mem *m, const char *key, bool include_deleted, qr_arena *a,
                    qr_mem_node *out, qr_buf *err);

/* A change to a node: NULL fields and has_weight false leave it as it is. Tags in
 * add_tags are added, those in remove_tags removed (removing a tag the node lacks is
 * QR_ERUNTIME). modified becomes now when anything changed. */
typedef struct qr_mem_update {
    const char *content;
    const char *type;
    const char *provenance;
    bool has_weight;
    double weight;
    const char *const *add_tags;
    size_t nadd_tags;
    const char *const *remove_tags;
    size_t nremove_tags;
} qr_mem_update;
int qr_mem_node_update(qr_mem *m, const char *key, const qr_mem_update *u, qr_buf *err);
/* Soft delete (the node must be live) and restore (it must be deleted). */
int qr_mem_node_delete(qr_mem *m, const char *key, qr_buf *err);
int qr_mem_node_restore(qr_mem *m, const char *key, qr_buf *err);

/* Counters the agents keep: adds delta to one of them (the result is clamped at 0). */
typedef enum { QR_MEM_RETRIEVALS, QR_MEM_USES, QR_MEM_WRONGS } qr_mem_counter;
int qr_mem_node_count(qr_mem *m, const char *key, qr_mem_counter which, int64_t delta,
                      qr_buf *err);

/* ---- tags ---- */
/* Tags: 1..QR_MEM_WORD_MAX bytes, no whitespace or control characters. Adding a tag the
 * node has is a no-op; removing one it lacks is QR_ERUNTIME. Both change modified. */
int qr_mem_tag_add(qr_mem *m, const char *key, const char *tag, qr_buf *err);
int qr_mem_tag_remove(qr_mem *m, const char *key, const char *tag, qr_buf *err);

/* ---- edges ---- */
typedef struct qr_mem_edge {
    const char *source, *target; /* keys */
    double strength;             /* (0, 1] */
    const char *type;            /* [a-z0-9-]+ */
} qr_mem_edge;

/* Links two live, distinct nodes (type NULL = "related"). An existing (source, target,
 * type) edge gets the new strength; *created (may be NULL) says whether it is new. */
int qr_mem_link(qr_mem *m, const char *source, const char *target, double strength,
                const char *type, bool *created, qr_buf *err);
/* Removes the edge (source, target, type), or every edge from source to target when type
 * is NULL. *removed receives how many; none is QR_ERUNTIME. */
int qr_mem_unlink(qr_mem *m, const char *source, const char *target, const char *type,
                  int64_t *removed, qr_buf *err);
/* The edges of one node in both directions whose other end is live (a deleted node's own
 * edges are listed when it is read with include_deleted): outgoing first, each group
 * ordered by the other key, then type. Strings from a. */
int qr_mem_edges(qr_mem *m, const char *key, bool include_deleted, qr_arena *a,
                 qr_mem_edge **out, size_t *n, qr_buf *err);

/* ---- visits (recorded by agent runs) ---- */
/* agent: a word like a type; outcome: free text (NULL = ""); time 0 = now. The node must
 * be live. */
int qr_mem_visit(qr_mem *m, const char *key, const char *agent, int64_t time,
                 const char *outcome, qr_buf *err);

/* ---- full-text search (FTS5 over key and content, porter stemming) ---- */
typedef struct qr_mem_hit {
    int64_t id;
    double score; /* -bm25: larger is better */
} qr_mem_hit;
enum {
    QR_MEM_MATCH_ANY = 0, /* a node matching any term */
    QR_MEM_MATCH_ALL = 1, /* only nodes matching every term */
};
/* Ranks live nodes against the terms (each term is matched as a phrase after the same
 * tokenizing and stemming as the text, so "linking" finds "linked"; FTS5 operators in a
 * term are not interpreted). Best first, ties by id; at most limit (0 = no limit). *hits
 * from a. No terms, or terms with no words, is QR_EINVAL. */
int qr_mem_search(qr_mem *m, const char *const *terms, size_t nterms, int mode, size_t limit,
                  qr_arena *a, qr_mem_hit **hits, size_t *n, qr_buf *err);

/* ---- statistics ---- */
typedef struct qr_mem_type_count {
    const char *type;
    int64_t count;
} qr_mem_type_count;
typedef struct qr_mem_stats {
    int64_t nodes;          /* live */
    int64_t deleted;        /* soft-deleted */
    int64_t edges;          /* edges between live nodes */
    int64_t hidden_edges;   /* edges with a deleted end */
    int64_t visits;
    int64_t tags;           /* (node, tag) pairs on live nodes */
    int64_t fts_bytes;      /* size of the full-text index's data */
    int64_t file_bytes;     /* page_count * page_size */
    uint64_t generation;
    qr_mem_type_count *types; /* live nodes by type, ordered by type */
    size_t ntypes;
} qr_mem_stats;
int qr_mem_stats_get(qr_mem *m, qr_arena *a, qr_mem_stats *out, qr_buf *err);

/* The change counter: bumped by every committed write, by any process. */
int qr_mem_generation(qr_mem *m, uint64_t *out, qr_buf *err);

/* ---- import and export (JSON lines) ----
 * One JSON object per line, its kind in "kind" ("node", "edge", "visit"; on import a line
 * without "kind" is a node when it has "key", an edge when it has "source", a visit when
 * it has "agent"). Times are ISO-8601 UTC ("2026-11-20T10:00:00Z"; on import any offset
 * qr_date_parse reads with a zone, or unix seconds as a number).
 *   node  {"kind","key","type","weight","provenance","created","modified","retrievals",
 *          "uses","wrongs","tags",["deleted",]"content"}   only "key" is required
 *   edge  {"kind","source","target","type","strength"}       source and target required
 *   visit {"kind","node","agent","time","outcome"}           node and agent required
 * Export writes every node (deleted ones with "deleted"), ordered by key, then every edge
 * ordered by source, target, type, then every visit ordered by time, node, agent,
 * outcome: exporting, importing into an empty store and exporting again gives the same
 * bytes. Import is one transaction: a bad line (bad JSON, unknown kind or field, wrong
 * type, a key already in the store, an edge or visit naming a key not yet seen) is
 * QR_EINVAL with "line N: ..." and nothing is imported. Blank lines are skipped. */
typedef struct qr_mem_counts {
    int64_t nodes, edges, visits;
} qr_mem_counts;
int qr_mem_import(qr_mem *m, const char *text, size_t len, qr_mem_counts *counts, qr_buf *err);
int qr_mem_export(qr_mem *m, FILE *out, qr_mem_counts *counts, qr_buf *err);

/* ---- salvage of a damaged store ----
 * Copies every row that can still be read from the store file at path (opened read-only,
 * never written) into dst (normally a new, empty store), each row through the store's own
 * checks in one transaction of dst: nodes with their tags, links between salvaged nodes,
 * visits of salvaged nodes. What was copied and what was lost is counted in *rep. Returns
 * QR_OK (even when little could be read: see rep), QR_EIO when path cannot be opened at
 * all or dst fails (dst then holds nothing of it), QR_ENOMEM. */
typedef struct qr_mem_salvage_report {
    int64_t nodes, edges, visits;      /* copied */
    int64_t node_rows_lost;            /* node ids that could not be read */
    int64_t nodes_dropped;             /* read but refused (damaged values, a repeated key) */
    int64_t nodes_without_tags;        /* copied, but their tags could not be read */
    int64_t tags_dropped;              /* tags read but not text */
    int64_t nodes_without_edges;       /* copied, but their links could not all be read */
    int64_t edges_dropped;             /* read but refused, or to a node that was lost */
    int64_t visit_rows_lost, visits_dropped;
    bool schema_unreadable; /* the file's schema could not be read: nothing is reachable */
} qr_mem_salvage_report;
int qr_mem_salvage(const char *path, qr_mem *dst, qr_mem_salvage_report *rep, qr_buf *err);

/* ---- the snapshot ----
 * Every live node, in a dense index 0..n-1 ordered by store id (that is, creation order),
 * with the fields the pipeline filters and sorts on in parallel arrays, the undirected
 * graph in CSR form, and the last visit time per (agent, node). Content itself is not
 * loaded (only its length): read it with qr_mem_node_get. Immutable once built. */
typedef struct qr_mem_visit_map qr_mem_visit_map; /* one agent's hash: node -> last time */

typedef struct qr_mem_snapshot {
    uint32_t n;                 /* live nodes */
    uint64_t generation;        /* of the store when loaded */
    const int64_t *id;          /* [n] store id */
    const char *const *key;     /* [n] NUL-terminated */
    const uint32_t *key_len;    /* [n] bytes */
    const uint16_t *type;       /* [n] index into types */
    const char *const *types;   /* [ntypes] distinct type names, sorted */
    uint32_t ntypes;
    const double *weight;       /* [n] 0..1, as the store holds it */
    const int64_t *created;     /* [n] unix seconds */
    const int64_t *modified;    /* [n] unix seconds */
    const uint32_t *content_len; /* [n] bytes of content */
    const uint32_t *provenance; /* [n] index into provenances */
    const char *const *provenances; /* [nprovenances] distinct strings, sorted */
    uint32_t nprovenances;
    const int64_t *retrievals, *uses, *wrongs; /* [n] */
    const uint32_t *tag_off;    /* [n+1] node i's tags are tag_ids[tag_off[i]..tag_off[i+1]) */
    const uint32_t *tag_ids;    /* indexes into tag_names, ascending per node */
    const char *const *tag_names; /* [ntag_names] distinct tags, sorted */
    uint32_t ntag_names;
    qr_graph graph;             /* undirected: an edge is in both lists; neighbours ascending;
                                 * parallel edges (any types, either direction) merged by max
                                 * strength; self-loops and edges to deleted nodes dropped */
    const char *const *agents;  /* [nagents] agents with visits, sorted */
    uint32_t nagents;
    const qr_mem_visit_map *const *visits; /* [nagents] */
    /* private */
    int refs;
    void *priv;
} qr_mem_snapshot;

/* The handle's snapshot, loaded on first use and reloaded when the store's generation has
 * changed since (one small query per call when it has not). The caller holds a reference
 * until qr_mem_snapshot_release; a reload never changes a snapshot someone holds. */
int qr_mem_snapshot_get(qr_mem *m, const qr_mem_snapshot **out, qr_buf *err);
void qr_mem_snapshot_release(const qr_mem_snapshot *s);

/* The snapshot file. The first qr_mem_snapshot_get of a handle on a file store looks for
 * STORE.snapshot (the store's path with ".snapshot" added), a binary copy of the snapshot
 * that the last process to load one from SQL wrote there, and uses it when it belongs to
 * the store as it is now (same generation and same write id: a token every write changes,
 * so a store deleted and created again, or restored from a copy, never matches an old
 * file) and passes every check (size, checksum, bounds, sorted and symmetric adjacency).
 * Otherwise the snapshot is read from SQL and the file rewritten (a temporary file, then
 * rename(2)), unless the store is read-only, its directory is not writable, the store is
 * ":memory:", or the handle was opened with QR_MEM_NO_SNAPSHOT_FILE. Problems with the
 * file are never errors: a damaged or foreign file is ignored and replaced. Writes made to
 * the SQLite file by other programs must bump meta.generation (as every quarry write
 * does) or delete STORE.snapshot. */
typedef struct qr_mem_snapshot_stats {
    uint64_t sql_loads;     /* snapshots built from SQL by this handle */
    uint64_t file_loads;    /* snapshots loaded from STORE.snapshot */
    uint64_t file_writes;   /* STORE.snapshot files written */
    uint64_t file_rejects;  /* files present but not used (stale, damaged, foreign) */
    const char *last_reject; /* why the last one was not used (a static string), or NULL */
} qr_mem_snapshot_stats;
void qr_mem_snapshot_stats_get(const qr_mem *m, qr_mem_snapshot_stats *out);

/* Dense index of the node with this key / store id, or -1 (absent or deleted). O(1). */
int64_t qr_mem_snapshot_find(const qr_mem_snapshot *s, const char *key, size_t len);
int64_t qr_mem_snapshot_find_id(const qr_mem_snapshot *s, int64_t id);
/* Index of an agent in s->agents, or -1 when it has no visits. */
int64_t qr_mem_snapshot_agent(const qr_mem_snapshot *s, const char *agent);
/* Last visit time of node i by agent index a (from qr_mem_snapshot_agent), 0 when never.
 * O(1) expected. */
int64_t qr_mem_snapshot_last_visit(const qr_mem_snapshot *s, int64_t agent, uint32_t node);

/* ---- validation helpers (shared with the CLI) ---- */
/* True when s is a type / edge type / agent word: [a-z0-9-]+, at most QR_MEM_WORD_MAX. */
bool qr_mem_word_valid(const char *s);
/* True when s[0..n) is text the store accepts as content (lines true: tab and line breaks
 * allowed) or as a one-line field (lines false): valid UTF-8, no NUL, no other control
 * character, no DEL. The rule every write applies, for callers that check first. */
bool qr_mem_text_valid(const char *s, size_t n, bool lines);

/* ---- scheduled agents' run state on a server (table due_agents; issue 26) ----
 * On a PostgreSQL store the memory agents' schedule lives in the database, shared by
 * every scheduler on every machine: one row per agent with its run state and a lease.
 * Times, leases' included, are quarry's clock as the caller gives it (now; QUARRY_NOW pins
 * it), as for qr_store_agent_claim (quarry/store.h). All are QR_EINVAL on an SQLite store (it keeps
 * STORE.agents.json, src/agents/mem_agent_run.c). QR_EIO when the server fails (err
 * names it), QR_ENOMEM. */
typedef struct qr_mem_sched {
    int64_t last_ok;      /* end of the last successful run; 0: never */
    int64_t last_attempt; /* end of the last run; 0: never */
    int64_t runs;         /* runs recorded */
    int64_t lease_left;   /* seconds left at now of the lease; 0: none or ended */
    char error[300];      /* the last run's failure, "" when it succeeded */
    char holder[128];     /* the lease's holder while lease_left > 0, else "" */
} qr_mem_sched;
/* The run state of agent (all zero when it never ran). */
int qr_mem_sched_get(qr_mem *m, const char *agent, int64_t now, qr_mem_sched *out, qr_buf *err);
/* Claims agent for holder until now + lease_s when nobody holds a lease on it that lasts
 * past now (an ended lease is taken over), with
 * SELECT ... FOR UPDATE SKIP LOCKED (a row another claimer is locking is not waited for:
 * it is taken). *claimed says whether it was; out gets the state (on a refusal, with the
 * holder and what is left of its lease). */
int qr_mem_sched_claim(qr_mem *m, const char *agent, const char *holder, int64_t now,
                       int64_t lease_s, qr_mem_sched *out, bool *claimed, qr_buf *err);
/* Records holder's run of agent that ended at `when` (ok, or failed with error), the next
 * due time next_due, runs + 1, and ends the lease. *held is false (nothing changed) when
 * holder no longer holds it (the lease expired and another claimed it). Inside a
 * qr_mem_begin transaction it commits with the run's writes, or not at all. */
int qr_mem_sched_record(qr_mem *m, const char *agent, const char *holder, int64_t when, bool ok,
                        const char *error, int64_t next_due, bool *held, qr_buf *err);
/* Ends holder's lease of agent without recording a run (its query had nothing to do). */
int qr_mem_sched_release(qr_mem *m, const char *agent, const char *holder, qr_buf *err);

#endif
