/*
 * quarry/code.h: the code graph (seed 004, tier 1). Source files are indexed by git blob
 * id into an SQLite database beside the statistics index (<gitdir>/quarry/code.db), so a
 * file's graph is computed once for every commit that contains it; the graph of a commit
 * (or of the working tree, whose changed files are hashed as `git hash-object` does and
 * indexed on the fly) is assembled from its files' entries and resolved across files.
 *
 * C and C++ are parsed with tree-sitter (grammars compiled in); other languages get their
 * definitions from universal-ctags (lexical: see docs/code.md for what is exact where).
 *
 * Ownership: qr_code (an open index) and qr_code_graph (one assembled graph) are owned by
 * the caller (_open/_close, _load/_free). Nodes and edges and every string in them live as
 * long as their graph. Values a query returns are built in the arena the caller passes.
 * Errors: functions return QR_OK or a negative QR_E* code and write a one-line message
 * (lowercase, subject in 'quotes') into the qr_buf given: QR_EINVAL for bad input (not a
 * repository, unknown ref, unknown query type, a symbol that is not there, with the
 * nearest names), QR_EIO for a failing git or database, QR_ENOMEM.
 */
#ifndef QUARRY_CODE_H
#define QUARRY_CODE_H

#include "quarry/req.h"
#include "quarry/value.h"

/* ---- what one file holds (the extractor; pure: no repository, no database) ---- */

typedef enum qr_code_kind {
    QR_CODE_FILE = 0,
    QR_CODE_FUNCTION,    /* a definition (with a body) */
    QR_CODE_DECLARATION, /* a prototype, kept apart from the definition */
    QR_CODE_STRUCT,
    QR_CODE_UNION,
    QR_CODE_ENUM,
    QR_CODE_ENUMERATOR, /* parent: its enum */
    QR_CODE_TYPEDEF,    /* type: what it names */
    QR_CODE_MEMBER,     /* parent: its struct or union; type: the member's type */
    QR_CODE_MACRO,      /* function-like when QR_CODE_FUNC_LIKE; signature: "(a, b)" */
    QR_CODE_VARIABLE,   /* a global (file-scope) variable */
    QR_CODE_KIND_COUNT
} qr_code_kind;

/* Raw references of one file, resolved across files when a graph is assembled. */
typedef enum qr_code_ref_kind {
    QR_CODE_REF_CALL = 0,   /* from: the enclosing function; name: the callee as written,
                             * ".m" for a call through struct member m (`c->cmd->m(c)`);
                             * from NULL, name "M(a, b)": a line holding only a macro
                             * invocation at file scope (what it defines: graph.c) */
    QR_CODE_REF_INCLUDE,    /* name: "x.h" or <x.h> as written */
    QR_CODE_REF_TYPE,       /* a type named in a function or struct (uses-type) */
    QR_CODE_REF_NAME,       /* any other use of an identifier (find_references) */
    QR_CODE_REF_MACRO_CALL, /* from: a function-like macro; name: what its body calls */
    QR_CODE_REF_KIND_COUNT
} qr_code_ref_kind;

enum {
    QR_CODE_STATIC = 1u << 0,    /* static function or variable (private to its file) */
    QR_CODE_FUNC_LIKE = 1u << 1, /* a function-like macro */
    QR_CODE_EXTERN = 1u << 2,    /* an extern variable declaration */
    QR_CODE_ANON = 1u << 3,      /* an anonymous struct/union/enum named by its typedef */
    QR_CODE_LEXICAL = 1u << 4,   /* found by ctags (a name and a line), not parsed */
    QR_CODE_EXPANDED = 1u << 5,  /* a function a macro defines where it is invoked (jq's
                                  * `LIBM_DD(acos)` defining f_acos); parent: the macro */
};

typedef enum qr_code_lang {
    QR_CODE_LANG_NONE = 0, /* not indexed (unknown language) */
    QR_CODE_LANG_C,
    QR_CODE_LANG_CPP,
    QR_CODE_LANG_CTAGS, /* any language universal-ctags knows */
} qr_code_lang;

typedef struct qr_code_item {
    qr_code_kind kind;
    const char *name;
    const char *parent;    /* struct/union/enum of a member or enumerator, else NULL */
    const char *type;      /* return type, member/variable type, typedef target, or NULL */
    const char *signature; /* function/declaration: text up to the body; macro: params */
    /* preprocessor condition: NULL (unconditional), or comma-separated macro names the
     * code needs defined, "0" for `#if 0` (inactive whatever is defined) */
    const char *cond;
    uint32_t line, end_line; /* 1-based, inclusive */
    uint32_t start_byte, end_byte;
    uint32_t flags; /* QR_CODE_STATIC, ... */
} qr_code_item;

typedef struct qr_code_ref {
    qr_code_ref_kind kind;
    const char *from; /* the enclosing function (or macro), or NULL at file scope */
    const char *name;
    const char *cond;
    uint32_t line;
} qr_code_ref;

typedef struct qr_code_file {
    qr_code_lang lang;
    qr_code_item *items;
    size_t nitems;
    qr_code_ref *refs;
    size_t nrefs;
    uint32_t errors; /* syntax errors tree-sitter recovered from */
    uint32_t lines;
    /* the lines of the first QR_CODE_ERROR_LINES of them, ascending, nerror_lines used */
#define QR_CODE_ERROR_LINES 8
    uint32_t error_line[QR_CODE_ERROR_LINES];
    uint32_t nerror_lines;
} qr_code_file;

/* Extracts the items and references of one C or C++ source (src need not be
 * NUL-terminated or valid UTF-8). Everything is allocated from `a`. Never fails on bad
 * input (syntax errors are counted); QR_ENOMEM when `a` is exhausted. */
int qr_code_extract(qr_code_lang lang, const char *src, size_t len, qr_arena *a,
                    qr_code_file *out);
/* The language of a path by its extension (.c/.h C; .cc/.cpp/.cxx/.hpp/.hh/.hxx C++;
 * extensions ctags knows: QR_CODE_LANG_CTAGS), QR_CODE_LANG_NONE otherwise. */
qr_code_lang qr_code_lang_of(const char *path);
const char *qr_code_kind_name(qr_code_kind k);
const char *qr_code_lang_name(qr_code_lang l);

/* ---- the index and assembled graphs ---- */

typedef struct qr_code qr_code;

typedef void (*qr_code_progress_fn)(void *ud, const char *what, size_t done, size_t total);

/* The files of a repository as its last `quarry code index` recorded them on the team
 * database (qr_code_shared_listing): paths and hex blob ids, n each. */
typedef struct qr_code_listing {
    const char *name;   /* the repository's name in the team database */
    const char *commit; /* the commit indexed (hex), or NULL */
    const char *location; /* where the indexer found it (a directory on its machine) */
    const char **paths;
    const char **oids;
    size_t n;
} qr_code_listing;

typedef struct qr_code_opts {
    /* the files to assemble instead of listing git (a handle of qr_code_open_shared):
     * their rows are read from the team database and a blob it lacks is left out, never
     * parsed (ref is then ignored); NULL: list git */
    const qr_code_listing *listing;
    /* a commit-ish, or NULL for the working tree (HEAD plus uncommitted changes) */
    const char *ref;
    /* files larger than this are not parsed (counted as too large); 0: 2 MiB */
    size_t max_bytes;
    qr_code_progress_fn progress;
    void *progress_ud;
    /* the request's stop (NULL: none): checked between batches of files to index; the
     * batches stored before a stop are kept (the load fails with QR_ESTOPPED) */
    const qr_stop *stop;
} qr_code_opts;

/* Opens (creating) the index of the repository containing `path`. */
int qr_code_open(const char *path, qr_code **out, qr_buf *err);
void qr_code_close(qr_code *c);
/* The database's path. */
const char *qr_code_db_path(const qr_code *c);

typedef enum qr_code_edge_kind {
    QR_CODE_E_CALLS = 0,
    QR_CODE_E_INCLUDES,
    QR_CODE_E_DECLARES, /* file -> declaration */
    QR_CODE_E_DEFINES,  /* file -> function, type, macro, variable */
    QR_CODE_E_MEMBER_OF,
    QR_CODE_E_USES_TYPE,
    QR_CODE_E_EXPANDS, /* a function -> the project macro a call is written through */
    QR_CODE_E_KIND_COUNT
} qr_code_edge_kind;

/* A node of an assembled graph: an item with its file (repository-relative path). */
typedef struct qr_code_node {
    qr_code_item it;
    const char *file;
    qr_code_lang lang;
    bool inactive; /* in a preprocessor branch disabled as the code stands */
} qr_code_node;

typedef struct qr_code_edge {
    qr_code_edge_kind kind;
    int64_t from, to;     /* node indexes, -1 when not a node (a file, an unresolved name) */
    const char *from_key; /* "FILE:NAME" for a function, a path for a file, or a name */
    const char *to_key;   /* likewise; an unresolved callee is its bare name, a system
                             header as written, <stdio.h> */
    const char *file;     /* where the edge is written */
    const char *via;      /* calls: the project macro the call is written through, or NULL */
    uint32_t line;
    bool inactive;
    bool guess; /* calls: several translation units define the callee and the calling file
                   sees none of them, so which one the linker joins is a guess */
} qr_code_edge;

/* Counts of one assembly, for get_index_stats. */
typedef struct qr_code_stats {
    size_t files, parsed, ctags_files, skipped_binary, skipped_large, skipped_symlink,
        skipped_path, skipped_lang, parse_errors, files_with_errors, blobs_indexed_now,
        nodes, edges, unresolved_calls;
} qr_code_stats;

typedef struct qr_code_graph qr_code_graph;

/* Assembles the graph of opts->ref (or the working tree), indexing what is missing. */
int qr_code_load(qr_code *c, const qr_code_opts *opts, qr_code_graph **out, qr_buf *err);
void qr_code_graph_free(qr_code_graph *g);

size_t qr_code_graph_nnodes(const qr_code_graph *g);
const qr_code_node *qr_code_graph_node(const qr_code_graph *g, size_t i);
size_t qr_code_graph_nedges(const qr_code_graph *g);
const qr_code_edge *qr_code_graph_edge(const qr_code_graph *g, size_t i);
/* The indexed files, in path order. */
size_t qr_code_graph_nfiles(const qr_code_graph *g);
const char *qr_code_graph_file(const qr_code_graph *g, size_t i, qr_code_lang *lang);
const qr_code_stats *qr_code_graph_stats(const qr_code_graph *g);
/* Lookups for evaluators over the graph (the SPARQL views): each returns how many match
 * and points *idx at that many indexes, valid as long as the graph. Nodes named `name`
 * (files excluded), sorted by file and line; edges whose from_key (or to_key) is `key`,
 * in assembly order. */
size_t qr_code_graph_named(const qr_code_graph *g, const char *name, const size_t **idx);
size_t qr_code_graph_edges_from(const qr_code_graph *g, const char *key, const size_t **idx);
size_t qr_code_graph_edges_to(const qr_code_graph *g, const char *key, const size_t **idx);
/* The key of node i as edges name it: a file's path, "FILE:NAME" for a function,
 * "FILE:struct NAME" for a struct, union or enum, "FILE:STRUCT.MEMBER" for a member. */
const char *qr_code_graph_node_key(qr_code_graph *g, size_t i);
/* The file node of a repository path, or -1. */
int64_t qr_code_graph_file_node(const qr_code_graph *g, const char *path);
/* The source text of a node (get_definition), allocated from `a`; NULL when gone. */
const char *qr_code_graph_text(qr_code_graph *g, const qr_code_node *n, qr_arena *a);

/* Prints the graph as JSON lines (docs/code.md): nodes, then edges, restricted to files
 * under one of the prefixes (none: everything). */
void qr_code_dump(const qr_code_graph *g, const char *const *prefixes, size_t nprefixes,
                  qr_buf *out);

/* A Graphviz DOT picture of the neighbourhood of `what` (a function name, or a file path
 * or name), to `depth` steps, clustered by file; static functions filled grey,
 * unresolved callees and system headers dashed, inactive edges dotted. QR_EINVAL with the
 * nearest names when `what` is neither. */
enum {
    QR_CODE_DOT_AUTO = -1, /* callers and callees of a function; what a file includes and
                              what includes it */
    QR_CODE_DOT_CALLERS = 1,
    QR_CODE_DOT_CALLEES = 2,
    QR_CODE_DOT_INCLUDES = 3, /* only what the file includes */
};
/* The walk is get_call_graph's (callees onward from callees, callers onward from
 * callers), so the picture shows what the query answers; at most max_nodes nodes are
 * drawn (0: QR_CODE_DOT_MAX_NODES, < 0: no cap), the rest counted in a note. */
#define QR_CODE_DOT_MAX_NODES 60
int qr_code_dot(qr_code_graph *g, const char *what, int mode, int depth, int max_nodes,
                qr_buf *out, qr_buf *err);

/* Runs one query_codebase query (args: the tool's normalized argument map). */
int qr_code_query(qr_code_graph *g, const qr_stop *stop, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err);

/* What `quarry code gc` did. */
typedef struct qr_code_gc_stats {
    int64_t blobs_before, blobs_removed, bytes_before, bytes_after;
    size_t commits; /* commits walked */
} qr_code_gc_stats;

/* A handle on the team database's code graph with no repository of its own, for graphs of
 * listings (qr_code_opts.listing): the rows come from the database; a definition's text
 * only from the repository containing `local` (NULL: "."), when it holds the blob.
 * QR_EINVAL when QUARRY_DATABASE_URL is not set ("... set QUARRY_DATABASE_URL ...") or the
 * database has no code schema; QR_EIO when it cannot be reached. */
int qr_code_open_shared(const char *local, qr_code **out, qr_buf *err);
/* The repositories the team database's code graph holds, by name in byte order (from a):
 * *names, *n. QR_EINVAL on a handle of the SQLite index. */
int qr_code_shared_repos(qr_code *c, qr_arena *a, const char ***names, size_t *n, qr_buf *err);
/* The files recorded for repository `name` (strings from a), 1 when there is none of
 * that name, QR_EINVAL on a handle of the SQLite index, QR_EIO. */
int qr_code_shared_listing(qr_code *c, const char *name, qr_arena *a, qr_code_listing *out,
                           qr_buf *err);

/* On the team database, records the repository of g (named by its directory) as indexed:
 * the commit g was listed from (worktree: its working tree's files) and each file by path,
 * blob id and language, replacing what it recorded before; with the SQLite index, nothing
 * (QR_OK). QR_EIO with the server's reason (a read-only role: permission denied), or when
 * a `quarry code gc` pruned some of g's blobs since they were loaded (nothing recorded,
 * the kept graphs cleared: load again and publish). */
int qr_code_publish(qr_code_graph *g, bool worktree, qr_buf *err);

/* The code graph through the statistics index's queue (`quarry index --enqueue --code`,
 * `quarry index --worker`; docs/team.md). qr_code_want: the repository containing dir
 * joins the team database's code index (code_repos) unless it is there, not indexed yet.
 * qr_code_refresh: when the repository at location is in it, its graph at HEAD is
 * assembled (the blobs the database lacks parsed and stored; progress as qr_code_load's)
 * and recorded as qr_code_publish does (*done true); a repository not in it: QR_OK,
 * *done false. Both: QR_EINVAL when QUARRY_DATABASE_URL is not set, QR_EIO, QR_ESTOPPED. */
int qr_code_want(const char *dir, qr_buf *err);
int qr_code_refresh(const char *location, const qr_stop *stop, qr_code_progress_fn progress,
                    void *ud, bool *done, qr_buf *err);

/* Prunes the index of the blobs no reference, HEAD, the git index or the working tree
 * reaches (every commit of every reference, parents followed), compacts the database and
 * removes the graphs kept on disk; qr_code_load does it by itself when the database
 * passes QUARRY_CODE_GC_BYTES (default 256 MiB) and has grown by a quarter of that
 * since the last gc. On the team database (QUARRY_DATABASE_URL) it prunes instead the
 * blobs no repository's recorded files hold, once no session holds rows it has not
 * recorded (waiting up to QUARRY_CODE_GC_WAIT seconds, 30; then QR_EIO saying so);
 * bytes are the code tables' size and commits 0.
 * QR_EIO (git or the database failing), QR_ESTOPPED, QR_ENOMEM. */
int qr_code_gc(qr_code *c, const qr_stop *stop, qr_code_gc_stats *out, qr_buf *err);

/* ---- one question asked of many repositories of the team database (tools_code.c) ----
 * The one path of every tool's `repos` parameter (query_codebase, sparql_query,
 * search_codebase): the names checked against what the database holds ("all": every one,
 * by name), each repository's graph assembled from its listing, asked, and the rows
 * joined, each naming its :repo, and paged as one list. */

/* One repository's answer: g is its graph as its last `quarry code index` recorded it
 * (ls says which); push at most `want` rows (maps; :repo is put first by the caller) to
 * rows and add how many it has in all to *total. QR_EINVAL with a message: nothing there
 * (the message is the error only when no repository answers); other errors end the call. */
typedef int (*qr_code_repo_fn)(void *ud, qr_req *req, const qr_code_listing *ls,
                               qr_code_graph *g, int64_t want, qr_arena *a, qr_vecb *rows,
                               int64_t *total, qr_buf *err);

typedef struct qr_code_across {
    qr_val repos;        /* the names asked, a vector of strings, in the order asked */
    qr_val rows;         /* rows [offset, offset + limit) of the joined list */
    int64_t total;       /* the joined list's length */
    int64_t next_offset; /* -1 on the last page */
} qr_code_across;

/* Asks fn of each repository named by `repos` (a vector of names, or ["all"]) on the team
 * database; local: a directory whose repository gives definitions' text (NULL: ".").
 * QR_EINVAL: no database configured ("'repos' reads the shared code index, and none is
 * configured: ..."), a name it does not hold (the message lists those it does), or no
 * repository answered; QR_EIO, QR_ESTOPPED, QR_ENOMEM. Values from a. */
int qr_code_ask_repos(const char *local, qr_req *req, qr_val repos, int64_t offset,
                      int64_t limit, qr_code_repo_fn fn, void *ud, qr_arena *a,
                      qr_code_across *out, qr_buf *err);

/* ---- the query_codebase tool (src/code/tools_code.c) ----
 * Its handler takes a qr_code_ctx as ctx (the host above the sources embeds one and
 * registers the tool at its offset: qr_tools_add_part), opens the index on the first call
 * and keeps the last graph assembled (of one ref, or of the working tree) for the life of
 * the context. NULL-terminated, for the product registry. */
struct qr_tool;
extern const struct qr_tool *const qr_code_tools[];

typedef struct qr_code_ctx {
    /* the repository: a directory in it (--repo DIR), or NULL for the working directory */
    const char *repo_dir;
    /* progress of indexing (NULL: none) */
    qr_code_progress_fn progress;
    void *progress_ud;

    /* ---- opened on first use ---- */
    qr_code *code;
    qr_code_graph *graph;
    char *graph_ref; /* malloc'd; NULL: the graph is of the working tree */
} qr_code_ctx;

/* Closes the index and frees the graph; keeps the settings. */
void qr_code_ctx_release(qr_code_ctx *c);

#endif
