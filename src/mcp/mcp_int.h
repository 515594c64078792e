/*
 * mcp_int.h: what the MCP server's files share: the server object, the request being
 * handled, and the calls between the protocol layer (server.c), the tools (tools_mcp.c)
 * and the transports (stdio.c).
 */
#ifndef QUARRY_MCP_INT_H
#define QUARRY_MCP_INT_H

#include "quarry/host.h"
#include "quarry/mcp.h"
#include "quarry/tools.h"

#include <pthread.h>
#include <stdatomic.h>

/* JSON-RPC 2.0 error codes */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    /* implementation-defined (-32000..-32019 stays so in 2026-07-28) */
    RPC_NOT_INITIALIZED = -32000,
    RPC_RESOURCE_NOT_FOUND = -32002, /* resources/read of an unknown uri (MCP) */
};

/* One repository's host, opened on the first call that names it. */
typedef struct mcp_host {
    char *key; /* the directory's real path, or NULL for the default before it resolves */
    char *dir; /* what repo_dir points to */
    qr_host host;
    uint64_t last_used;
    bool in_use;
} mcp_host;

#define MCP_MAX_HOSTS 8     /* hosts a worker keeps open */
#define MCP_CANCEL_RING 64
#define MCP_MAX_WORKERS 64
#define MCP_MAX_QUEUE 256   /* calls waiting for a worker; more are refused */

/* One entry of the tool list: the descriptor served by tools/list and how to call it. */
typedef struct mcp_tool {
    const qr_tool *tool;
    bool own;            /* one of the server's own tools (run_lisp, run_query) */
    qr_val desc;         /* the descriptor (in the server's list arena) */
    qr_val desc_legacy;  /* the same without outputSchema, for revisions before 2025-06-18 */
    bool repo_arg;       /* `repo` was added to its input schema: take it out of calls */
    bool offset_arg;     /* `offset` was added to its input schema: the server pages */
    bool wrapped;        /* its structuredContent is {"result": value} */
} mcp_tool;

typedef struct mcp_req mcp_req;

/* What one thread needs to run calls: registries whose context it sets per call, its
 * own hosts (a repository's libgit2 handles and index connection are used by one thread
 * only), and its cache of compiled queries. */
typedef struct mcp_worker {
    struct qr_mcp_server *s;
    qr_tools *tools;               /* the product registry */
    qr_tools *own;                 /* run_lisp, run_query, dwim */
    /* the records `own` holds: the server's own tools with their capability bits widened
     * by those of the tools they can call (tools_mcp.c) */
    qr_tool own_records[4];
    struct qr_query_cache *qcache; /* compiled run_query programs */
    mcp_host hosts[MCP_MAX_HOSTS];
    uint64_t tick;
    mcp_req *cur; /* the call it runs (under the server's lock), or NULL */
    pthread_t thread;
    bool started;
} mcp_worker;

struct qr_mcp_server {
    qr_mcp_config cfg;

    /* transport */
    qr_mcp_send_fn send;
    qr_mcp_poll_fn poll;
    void *io_ud;
    atomic_bool io_failed;
    pthread_mutex_t out_mu; /* one message at a time on the transport */

    /* lifecycle (written by the reading thread before any call is queued) */
    bool initialized; /* initialize was answered */
    char version[16]; /* the negotiated revision */
    atomic_int log_level; /* index into the level names: messages below it are not sent */

    /* tools (read-only once built) */
    qr_arena list_arena;
    mcp_tool *list;
    size_t nlist;

    /* workers: workers[0] runs calls inline until the pool starts */
    mcp_worker *workers;
    size_t nworkers;

    /* the pool (under mu) */
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* a call was queued, or the pool stops */
    pthread_cond_t idle_cv; /* a call finished */
    mcp_req *q_head, *q_tail;
    size_t q_len, busy;
    bool pool, stopping;

    /* cancellations seen while no pool runs (request ids as JSON text), newest
     * overwriting oldest */
    char *cancelled[MCP_CANCEL_RING];
    size_t cancel_next;
};

/* What a method handler works with, and what it leaves for the dispatcher to send: one
 * request from its message to its answer, owning the arena its values live in. */
struct mcp_req {
    qr_mcp_server *s;
    qr_arena arena;
    qr_arena *a;   /* &arena */
    qr_val id;     /* nil for a notification */
    qr_val params; /* a map, or nil when absent */
    qr_val result; /* set on success */
    int err_code;  /* set on failure (with err) */
    qr_buf err;
    qr_val err_data; /* nil or extra data for the error */

    /* a request in flight */
    const struct mcp_method *rec;
    const char *id_text; /* its id as JSON text, or NULL */
    mcp_worker *w;       /* the worker running it */
    qr_req req;          /* its request: a cancel stops everything the call runs */
    bool cancelled;      /* under the server's lock */
    mcp_req *next;       /* in the queue */

    /* progress */
    qr_val progress_token;
    bool has_progress;
    double progress_last; /* the last value sent: each must be larger */
    double progress_base; /* the totals of earlier rounds of this request */
    size_t progress_round_done, progress_round_total;
    uint64_t progress_at_ms;
};

/* Handler outcome. */
enum { MCP_REPLY = 0, MCP_FAIL = 1, MCP_SILENT = 2, MCP_DEFER = 3 };

/* server.c */
int mcp_fail(mcp_req *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
qr_val mcp_get(qr_arena *a, qr_val map, const char *key);
bool mcp_has(qr_arena *a, qr_val map, const char *key);
/* "string \"abc\"", "array [1,2]", "null": a value's JSON type and short JSON text. */
void mcp_describe(qr_buf *b, qr_val v);
/* Sends a notification {"jsonrpc":"2.0","method":...,"params":...}; with `unless`, not
 * when that request was cancelled (checked under the transport's lock, so nothing about
 * a request follows its cancellation). rel: the JSON text of the id of the request it
 * reports on, or NULL (see qr_mcp_send_fn). */
int mcp_notify(qr_mcp_server *s, const char *method, qr_val params, const qr_stop *unless,
               const char *rel);
/* A log message to the client (when level passes logging/setLevel) and to cfg.log. */
void mcp_log(qr_mcp_server *s, const char *level, const char *msg);
/* True when the revision in use is at least rev ("2025-06-18"). */
bool mcp_since(const qr_mcp_server *s, const char *rev);
uint64_t mcp_now_ms(void);

/* Reading one message: its values may take at most MCP_PARSE_ARENA_MIN plus
 * MCP_PARSE_ARENA_FACTOR times its length (what qr_json_read builds from the densest
 * JSON, a long array of one-digit numbers, is about 12 times its text). The transports
 * read with mcp_read_message, the HTTP one to find a request's id before the session
 * gets it: both with the same cap. */
#define MCP_PARSE_ARENA_MIN ((size_t)4 << 20)
#define MCP_PARSE_ARENA_FACTOR 24u
size_t mcp_parse_cap(size_t len);
/* qr_json_read of one message into a, under mcp_parse_cap(len) (a's own cap restored). */
int mcp_read_message(qr_arena *a, const char *msg, size_t len, qr_val *m, qr_read_error *e);

/* The arena a message is read into (the cap of a whole request). */
void mcp_message_arena_init(qr_arena *a);
/* qr_mcp_handle for a message the transport read already (into an arena from
 * mcp_message_arena_init, with mcp_read_message): the request takes the arena over (a is
 * left empty), so a message is read once. */
int mcp_handle_read(qr_mcp_server *s, qr_arena *a, int rc, qr_val m, const qr_read_error *e,
                    size_t len);

/* tools_mcp.c */
int mcp_tools_init(qr_mcp_server *s, qr_buf *err);
void mcp_tools_release(qr_mcp_server *s);
int mcp_tools_list(qr_mcp_server *s, mcp_req *r);
/* catalog_mcp.c: resources (the Lisp and query DSL references) and prompts */
int mcp_resources_list(qr_mcp_server *s, mcp_req *r);
int mcp_resources_read(qr_mcp_server *s, mcp_req *r);
int mcp_resources_templates_list(qr_mcp_server *s, mcp_req *r);
int mcp_prompts_list(qr_mcp_server *s, mcp_req *r);
int mcp_prompts_get(qr_mcp_server *s, mcp_req *r);

/* Sets up a worker's registries (tools NULL: failed) and releases them with its hosts. */
int mcp_worker_init(qr_mcp_server *s, mcp_worker *w);
void mcp_worker_release(mcp_worker *w);
int mcp_tools_call(qr_mcp_server *s, mcp_req *r);

#endif
