/*
 * graph_int.h: the layout of an assembled code graph (graph.c) shared with the queries
 * (query.c), the dump and the pictures (dump.c), and the ctags reader (ctags.c).
 */
#ifndef QUARRY_CODE_GRAPH_INT_H
#define QUARRY_CODE_GRAPH_INT_H

#include "store_int.h"

#include "../git/git_dl.h" /* libgit2, loaded on first use */

struct qr_code {
    git_repository *repo;
    char *gitdir;  /* the common git directory, absolute */
    char *workdir; /* NULL when bare */
    qr_code_store *store;
    /* found without libgit2 (qr_code_open's fast discovery): repo and store are opened on
     * first need (qr__code_need_repo/_store), so a query the kept graph answers starts
     * neither */
    char *open_path;
    char *db_path;
};

int qr__code_need_repo(qr_code *c, qr_buf *err);
int qr__code_need_store(qr_code *c, qr_buf *err);

typedef struct gfile {
    const char *path;
    char oid[41];
    qr_code_lang lang;
    int status; /* QR_CODE_BLOB_*, or < 0 while not indexed */
    bool on_disk, dirty, deleted, symlink;
    qr_code_file file;
    int64_t file_node;
    size_t node0, nnodes; /* its items: nodes[node0 .. node0 + nnodes) */
    size_t *direct;       /* repository files it includes (malloc'd) */
    size_t ndirect;
    size_t *closure; /* and what those include, sorted (malloc'd, made on first use) */
    size_t nclosure;
    bool closure_done;
    qr_code_ref *names; /* identifier uses, read on first use (qr__code_file_names) */
    size_t nnames;
    bool names_loaded;
} gfile;

struct qr_code_graph {
    qr_code *c;
    qr_arena a;
    char commit[41]; /* the commit listed (or HEAD under a working tree), "" when none */
    gfile *files;    /* sorted by path */
    size_t nfiles;
    qr_code_node *nodes;
    size_t nnodes, capn;
    qr_code_edge *edges;
    size_t nedges, cape;
    const char **keys; /* per node, "FILE:NAME", made on demand */
    size_t *node_file; /* per node, the index of its file */
    int64_t last_enclosing; /* the function the last reference was in (a cache) */
    size_t *by_name;   /* non-file nodes sorted by name, file, line */
    size_t nnamed;
    size_t *by_from, *by_to; /* edges sorted by from_key / to_key */
    qr_code_stats stats;
    /* every reference but includes, sorted by name, file, line (find_references), made on
     * first use: refs[i] in files[ref_file[i]] */
    const qr_code_ref **refs;
    size_t *ref_file;
    size_t nrefs;
    bool refs_done;
    size_t ref_queries; /* find_references asked so far */
    /* the macros the build's -D options define (compile_commands.json,
     * QUARRY_CODE_DEFINES), sorted */
    const char **defines;
    size_t ndefines, capdefines;
    /* the build's -I and -iquote directories in the working tree, relative to its root,
     * in the order met (compile_commands.json): where an #include looks */
    const char **incdirs;
    size_t nincdirs;
    char *cache_buf; /* the kept graph this one was mapped from (gcache.c), or NULL */
    size_t cache_len;
    /* a graph read from a kept one: nodes, edges and node_file live in region (munmap),
     * by_name, by_from and by_to in the mapping (not freed) */
    void *region;
    size_t region_len;
    bool lookups_mapped;
    /* edges not filled yet from the mapping (qr__code_need_edges fills them) */
    bool edges_pending;
    const void *edges_src;
    const char *edges_strs;
    size_t edges_strlen;
    bool defines_read;
};

size_t qr__code_name_lower(const qr_code_graph *g, const char *name);
size_t qr__code_edges_from(const qr_code_graph *g, const char *key, size_t *first);
size_t qr__code_edges_to(const qr_code_graph *g, const char *key, size_t *first);
int64_t qr__code_file_index(const qr_code_graph *g, const char *path);
const char *qr__code_node_key(qr_code_graph *g, size_t i);
int64_t qr__code_resolve(qr_code_graph *g, const char *name, int kind, const char *file);
/* The same; *guess (when not NULL) says whether the file sees none of several definitions
 * the linker could join (the one returned is the nearest: its directory, its language). */
int64_t qr__code_resolve_guess(qr_code_graph *g, const char *name, int kind, const char *file,
                               bool *guess);
/* Whether a variable's type is a pointer to a function ("monotime (*)(void)"). */
bool qr__code_fnptr_type(const char *type);

bool qr__code_cond_inactive(const qr_code_graph *g, const char *cond);
extern const char *const qr__code_query_types[];
/* Builds g->refs (reading every file's identifier uses) once. */
int qr__code_ref_index(qr_code_graph *g, qr_buf *err);
/* Reads the identifier uses of file fi (find_references) once. */
int qr__code_file_names(qr_code_graph *g, size_t fi, qr_buf *err);
const char *qr__code_edge_name(qr_code_edge_kind k);
void qr__code_node_json(const qr_code_graph *g, const qr_code_node *n, qr_buf *b);
void qr__code_edge_json(const qr_code_edge *e, qr_buf *b);

int qr__code_host_graph(void *ctx, const qr_stop *stop, const char *ref, qr_code_graph **out,
                        qr_buf *err);

/* Definitions of a file in a language ctags knows (universal-ctags, JSON output), as
 * items flagged QR_CODE_LEXICAL. QR_EIO when ctags cannot be run. */
int qr__code_ctags(const char *path, const char *src, size_t len, qr_arena *a, qr_code_file *out);

/* The assembled graph kept on disk (gcache.c). _load fills g (its files listed, sorted
 * and filtered, its defines read) from the kept graph of the same input: 1 on a hit, 0
 * otherwise (g unchanged). _save keeps an assembled graph (failures are ignored: a
 * cache). qr__code_gcache_clear (store_int.h) removes them all. */
int qr__code_gcache_load(qr_code_graph *g);
/* Fills a kept graph's edges on first need: every reader of g->edges calls it first
 * (qr__code_edges_from/_to do, and every public accessor). */
void qr__code_need_edges(const qr_code_graph *g);
void qr__code_gcache_save(const qr_code_graph *g);
/* The working tree's graph without libgit2: 1 when the stat snapshot kept by the last
 * listing still holds and its graph is read into g (g->defines read first). */
int qr__code_gcache_fast(qr_code_graph *g);
/* Keeps the stat snapshot of a working-tree listing (c->repo open): paths are every file
 * listed (repository-relative), start when the listing began. */
/* The id git gives a blob of these bytes (SHA-1 of "blob LEN\0" and them), hex. */
void qr__code_blob_id(const char *data, size_t len, char out[41]);
/* find_references from the references kept beside a kept graph (gcache.c): 1 when
 * answered (row called for each reference named `name`, in the order the scan of every
 * file gives; *known set when there is one), 0 when nothing is kept. _keep keeps them
 * after a scan that read every file's names. */
typedef void (*qr__code_ref_fn)(void *ud, const gfile *f, const qr_code_ref *ref);
int qr__code_refs_kept(qr_code_graph *g, const char *name, qr__code_ref_fn row, void *ud,
                       bool *known);
void qr__code_refs_keep(const qr_code_graph *g);
/* The blob ids of the git index overlaid with the working tree (malloc'd). */
int qr__code_worktree_oids(qr_code *c, char (**out)[41], size_t *n, qr_buf *err);
/* Whether the database is past its size for an automatic gc (gc.c). */
bool qr__code_gc_due(qr_code *c);
struct timespec;
void qr__code_snap_save(const qr_code_graph *g, const char *const *paths, size_t npaths,
                        const struct timespec *start);

#endif
