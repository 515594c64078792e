/*
 * quarry/mem_agent.h: memory agents defined as data (seed 002,
 * "agent-as-config"; docs/memory-agents.md). An agent is a TOML file
 * agents/NAME.toml holding a pipeline query (which nodes it looks at), a prompt
 * template (what the model is told), the actions its reply may take, and a
 * schedule. One run: run the query, fill the template, make one model call,
 * parse the actions out of the reply, check every one, apply them, record a
 * visit on every node the prompt showed.
 *
 *   [query]
 *   pipeline = "all | type:episodic | not-visited:linker,7d | sort:priority |
 * limit:20" [prompt] template = """..."""        # or template_file =
 * "linker.md" (beside the agent file) [execution] model = "sonnet"            #
 * optional; overrides the configured model actions = ["link-add", "weight"]   #
 * link-add, weight, write, refine schedule = "daily"          # daily, hourly,
 * weekly, on-demand, or 30m, 6h, 2d, 1w
 *
 * Ownership: a loaded agent owns its strings and its parsed pipeline
 * (qr_mem_agent_free). A prompt, a plan and a report own their memory (their
 * _clear functions). Nothing here prints or exits; the CLI
 * (src/cli/cmd_mem_agent.c) does.
 *
 * Error codes: QR_OK; QR_EINVAL for a bad agent file (err holds one line,
 * "agents/linker.toml:LINE: what, expected what; hint") and for a reply with
 * invalid actions (the problems are listed in the plan); QR_ERUNTIME when the
 * store refuses a write or a query fails while running; QR_EIO when a file
 * cannot be read or written or the model could not be reached; QR_ENOMEM.
 */
#ifndef QUARRY_MEM_AGENT_H
#define QUARRY_MEM_AGENT_H

#include "quarry/llm.h"
#include "quarry/memory.h"
#include "quarry/turn.h"

struct qr_pipeline;

/* The actions a reply may take (a bit set in qr_mem_agent.actions). */
enum {
    QR_MEM_AGENT_LINK_ADD = 1, /* link two existing nodes */
    QR_MEM_AGENT_WEIGHT = 2,   /* set an existing node's weight */
    QR_MEM_AGENT_WRITE = 4,    /* add a new node (provenance "agent:NAME") */
    QR_MEM_AGENT_REFINE = 8,   /* replace an existing node's content */
};
/* "link-add", "weight", "write", "refine" for one bit; NULL otherwise. */
const char *qr_mem_agent_action_name(unsigned kind);

/* Bounds on a prompt: content of one node is cut at NODE_BYTES (the prompt says
 * so), and the {{nodes}} section stops taking nodes once it holds NODES_BYTES
 * (those left out are not visited, so a later run shows them); {{topology}}
 * stops listing links and degrees at TOPOLOGY_BYTES (saying how many it left
 * out). The whole filled prompt (the template's text, {{nodes}} and {{topology}}
 * once each, every {{node:KEY}}) is at most PROMPT_MAX bytes: a template whose
 * worst case passes it is refused at load, and a fill that passes it anyway
 * fails with QR_ELIMIT. */
#define QR_MEM_AGENT_NODE_BYTES 4000
#define QR_MEM_AGENT_NODES_BYTES 100000
#define QR_MEM_AGENT_TOPOLOGY_BYTES 50000
#define QR_MEM_AGENT_PROMPT_MAX 250000
/* Largest agent file, template file and reply read; most actions in one reply.
 */
#define QR_MEM_AGENT_FILE_MAX (1u << 20)
#define QR_MEM_AGENT_MAX_ACTIONS 500
/* Problems kept for one reply (later ones are counted in nproblems_dropped). */
#define QR_MEM_AGENT_MAX_PROBLEMS 64

typedef struct qr_mem_agent {
    char *name;                   /* the file's stem: [a-z0-9-]+ */
    char *path;                   /* the agent file as it was named */
    char *pipeline_text;          /* [query] pipeline as written */
    struct qr_pipeline *pipeline; /* parsed */
    char *template;               /* the template's text (from the file or template_file) */
    size_t template_len;
    char *template_path; /* template_file as resolved, or NULL for an inline
                            template */
    char *model;         /* [execution] model, or NULL */
    unsigned actions;    /* QR_MEM_AGENT_* bits */
    char *schedule;      /* as written ("daily"); "on-demand" when absent */
    int64_t period;      /* seconds between runs; 0 for on-demand */
} qr_mem_agent;

enum {
    QR_MEM_AGENT_NO_FILES = 1, /* refuse template_file (the fuzz harness: no file reads) */
};

/* True when s[0..n) is an agent name: 1..QR_MEM_WORD_MAX bytes of [a-z0-9-]. */
bool qr_mem_agent_name_valid(const char *s, size_t n);
/* Reads schedule text: "daily", "hourly", "weekly", "on-demand" (period 0), or
 * a count and a unit m, h, d or w ("30m", "6h", "2d"; 1 minute to 365 days).
 * QR_EINVAL when not. */
int qr_mem_agent_schedule_parse(const char *s, size_t n, int64_t *period);

/* Reads and checks the agent file at path (its stem is the name). Every problem
 * is an error: a TOML syntax error, an unknown table or key (with "did you
 * mean"), a missing pipeline or template, a pipeline that does not parse, an
 * unknown action, a bad schedule, a template placeholder that does not exist.
 * err gets "PATH:LINE: message". */
int qr_mem_agent_load(qr_mem_agent **out, const char *path, qr_buf *err);
/* The same from text already read: name is the agent's name, path is used in
 * messages and to resolve template_file (flags: QR_MEM_AGENT_NO_FILES). */
int qr_mem_agent_parse(qr_mem_agent **out, const char *name, const char *path, const char *text,
                       size_t len, int flags, qr_buf *err);
void qr_mem_agent_free(qr_mem_agent *a);

/* Checks a template: {{nodes}}, {{topology}}, {{node:KEY}}, {{agent}}, {{now}}
 * (spaces inside the braces allowed). QR_EINVAL for an unknown or unclosed
 * placeholder, {{nodes}} or {{topology}} used more than once, or a template
 * whose text and placeholders can fill more than QR_MEM_AGENT_PROMPT_MAX bytes;
 * *line gets the 1-based line of the template where it is, and err the message
 * (no position). */
int qr_mem_agent_template_check(const char *t, size_t n, uint32_t *line, qr_buf *err);
/* Whether the template uses the placeholder {{name}} ("nodes" or "topology", in any case). */
bool qr_mem_agent_template_has(const char *t, size_t n, const char *name);

/* ---- the query ---- */
/* Runs the agent's pipeline on the store; *keys (malloc'd array of malloc'd
 * strings, free with qr_mem_agent_keys_free) gets the keys of the nodes it
 * returned, in order. */
int qr_mem_agent_select(const qr_mem_agent *a, qr_mem *m, int64_t now, char ***keys, size_t *nkeys,
                        qr_buf *err);
void qr_mem_agent_keys_free(char **keys, size_t n);

/* ---- the prompt ---- */
typedef struct qr_mem_agent_prompt {
    qr_buf system; /* quarry's reply contract for this agent: stable, the cached
                      prefix */
    qr_buf user;   /* the filled template */
    char **shown;  /* keys of the nodes in the prompt, in order (they get the
                      visits) */
    size_t nshown;
    size_t omitted; /* nodes selected but left out to bound the prompt */
    size_t cut;     /* nodes whose content was cut at QR_MEM_AGENT_NODE_BYTES */
} qr_mem_agent_prompt;

/* Fills the agent's template for the nodes with these keys (each must be live)
 * at time now (unix seconds, written as ISO-8601 UTC). Deterministic: the same
 * store, keys and now give the same bytes. QR_ERUNTIME when a key, or the KEY
 * of {{node:KEY}}, is not in the store; QR_ELIMIT when the prompt would pass
 * QR_MEM_AGENT_PROMPT_MAX bytes (only for a template qr_mem_agent_template_check
 * would refuse). */
int qr_mem_agent_fill(const qr_mem_agent *a, qr_mem *m, const char *const *keys, size_t nkeys,
                      int64_t now, qr_mem_agent_prompt *out, qr_buf *err);
void qr_mem_agent_prompt_clear(qr_mem_agent_prompt *p);

/* ---- the reply ---- */
typedef struct qr_mem_agent_action {
    unsigned kind;       /* one QR_MEM_AGENT_* bit */
    const char *key;     /* weight, write, refine */
    const char *source;  /* link-add */
    const char *target;  /* link-add */
    const char *type;    /* link-add (edge type, default "related"), write (node type) */
    const char *content; /* write, refine */
    size_t content_len;
    double value; /* weight: the weight; link-add: the strength; write: the weight */
} qr_mem_agent_action;

typedef struct qr_mem_agent_problem {
    long index;      /* 0-based index of the action, -1 for the reply as a whole */
    char action[16]; /* the action's name when known, else "" */
    char field[32];  /* the field at fault, else "" */
    char why[320];   /* what is wrong and what was expected */
} qr_mem_agent_problem;

typedef struct qr_mem_agent_plan {
    qr_arena arena; /* the actions' strings */
    qr_mem_agent_action *actions;
    size_t n;
    qr_mem_agent_problem *problems;
    size_t nproblems;
    size_t nproblems_dropped;
} qr_mem_agent_plan;

/* Reads the actions out of a reply: the one ```json (or ```edn, or unlabelled)
 * fenced block, else the whole reply; holding a JSON array of objects, JSON
 * lines (one object a line), or an EDN vector of maps. Each action is checked:
 * allowed by `allowed`, known, no field missing or extra, numbers in range, and
 * (when m is not NULL) the keys it names exist (link-add, weight, refine; or
 * were written by an earlier action of the reply) or do not (write). QR_OK when
 * every action is valid; QR_EINVAL when there is at least one problem (all are
 * listed; the plan then must not be applied); QR_EIO when the store could not
 * be read; QR_ENOMEM. Clear the plan in every case. */
int qr_mem_agent_parse_reply(qr_mem_agent_plan *out, unsigned allowed, qr_mem *m, const char *text,
                             size_t len);
void qr_mem_agent_plan_clear(qr_mem_agent_plan *p);
/* "action 2 (link-add) 'target': ..." for a problem, appended to out. */
void qr_mem_agent_problem_format(const qr_mem_agent_problem *p, qr_buf *out);

/* Applies a valid plan in order (writes with provenance "agent:NAME"); a write
 * that still fails (another process changed the store since the plan was checked)
 * stops it, with err saying which. Call it inside qr_mem_begin / qr_mem_commit so
 * that the plan goes in whole or not at all (qr_mem_agent_run does, with the
 * visits in the same transaction). */
int qr_mem_agent_apply(qr_mem *m, const char *agent, const qr_mem_agent_plan *p, size_t *applied,
                       qr_buf *err);

/* ---- one run ---- */
typedef struct qr_mem_agent_report {
    size_t selected; /* nodes the query returned */
    qr_mem_agent_prompt prompt;
    bool called; /* a model call was made */
    char *reply; /* the model's text (malloc), or NULL */
    size_t reply_len;
    qr_llm_usage usage;
    double ms;           /* of the model call */
    char llm_error[400]; /* when the call failed */
    qr_mem_agent_plan plan;
    size_t applied; /* actions applied */
    size_t visits;  /* visits recorded */
} qr_mem_agent_report;

/* One run of agent a on the store at time now (0: the clock): select, fill, and
 * unless llm is NULL (a dry run: nothing is sent or written), one call, parse,
 * apply, visit. A query returning no node makes no call (report.selected == 0,
 * QR_OK). Returns QR_OK, QR_EINVAL (the reply had invalid actions: report.plan
 * lists them; nothing applied), QR_EIO (the model failed: report.llm_error),
 * QR_ERUNTIME (the query or a write failed; err), QR_ELIMIT (the prompt would
 * pass QR_MEM_AGENT_PROMPT_MAX; err), QR_ENOMEM. The caller holds the agent's
 * lock (qr_mem_agent_lock) around a run that is not a dry run. Clear the report
 * in every case. */
int qr_mem_agent_run(const qr_mem_agent *a, qr_mem *m, qr_llm *llm, int64_t now,
                     qr_mem_agent_report *report, qr_buf *err);
/* The same run, its model call made as one turn of the turn module (quarry/turn.h) in tc:
 * tc->llm (NULL: a dry run), tc->req (its budget and stop; NULL: none) and the trace
 * (tc->trace, else the one bound to tc->req): the call's events, then a "mem_agent"
 * event (the agent, nodes selected, actions, problems, applied, visits). A request that
 * refuses the call or is cancelled during it: QR_ESTOPPED, report.llm_error says why,
 * nothing applied. qr_mem_agent_run is this with tc = {llm}. */
int qr_mem_agent_run_turn(const qr_mem_agent *a, qr_mem *m, const qr_turn_ctx *tc, int64_t now,
                          qr_mem_agent_report *report, qr_buf *err);
void qr_mem_agent_report_clear(qr_mem_agent_report *r);

/* ---- schedule state ----
 * Last-run times survive restarts in a small JSON file beside the store,
 * STORE.agents.json
 * ({"agents":{"linker":{"last_ok":T,"last_attempt":T,"error":"..."}}}),
 * rewritten whole through a new temporary file (mkstemp) and rename(2) under a
 * lock (fcntl) on STORE.agents.lock, so a daemon and a manual run never lose
 * each other's update or leave half a file. Times read from it are held in
 * [0, now + 1 year]. */
typedef struct qr_mem_agent_state {
    int64_t last_ok;      /* end of the last successful run; 0: never */
    int64_t last_attempt; /* end of the last run, successful or not; 0: never */
    char error[300];      /* the last failure's message when it was the last run */
} qr_mem_agent_state;

/* The state file's path for a store file, appended to out. */
void qr_mem_agent_state_path(const char *store_path, qr_buf *out);
/* Reads the state of one agent (all zero when the file or the agent is absent).
 * A file that is not the state format is QR_EIO. */
int qr_mem_agent_state_get(const char *state_path, const char *agent, qr_mem_agent_state *out,
                           qr_buf *err);
/* Records a run that ended at time `when`: ok, or failed with error. */
int qr_mem_agent_state_record(const char *state_path, const char *agent, int64_t when, bool ok,
                              const char *error, qr_buf *err);

/* ---- who runs what ----
 * A run holds a lock on its agent from the due check until its state is
 * recorded, so two processes (two daemons, a daemon and `mem agent run`) never
 * run one agent at once; a daemon also holds a lock of its own for its lifetime.
 * Both are fcntl locks on one byte of STORE.agents.run.lock (byte 0: the
 * daemon; an agent: a byte chosen by a fixed hash of its name), taken without
 * waiting and released when the process ends, however it ends. The file is not
 * STORE.agents.lock: closing any descriptor of a file drops all of a process's
 * fcntl locks on it, and qr_mem_agent_state_record opens and closes that one. */
typedef struct qr_mem_agent_locks {
    int fd; /* the lock file, -1 when closed */
} qr_mem_agent_locks;

/* Opens (creating it) the lock file for a state file (qr_mem_agent_state_path).
 * QR_EIO when it cannot be opened (err); l->fd is then -1. */
int qr_mem_agent_locks_open(qr_mem_agent_locks *l, const char *state_path, qr_buf *err);
/* Closes the file, releasing every lock taken through it. */
void qr_mem_agent_locks_close(qr_mem_agent_locks *l);
/* Takes the daemon's lock: QR_OK; QR_ERUNTIME when another process holds it
 * (err: "a memory daemon is already running on the store 'S' (pid N); ...");
 * QR_EIO. store_path is for the message. */
int qr_mem_agent_lock_daemon(qr_mem_agent_locks *l, const char *store_path, qr_buf *err);
/* Takes agent's run lock: QR_OK; QR_ERUNTIME when another process holds it (err:
 * "agent 'X' is running in another process (pid N); ..."); QR_EIO. Within one
 * process the lock is not exclusive (fcntl semantics). */
int qr_mem_agent_lock(qr_mem_agent_locks *l, const char *agent, qr_buf *err);
void qr_mem_agent_unlock(qr_mem_agent_locks *l, const char *agent);

/* The scheduler's rule. An on-demand agent is never due. Another is due at now
 * when it never ran successfully or its period has passed since its last
 * success, unless its last run failed less than min(period, 1 hour) ago (a
 * failing agent is retried, not hammered). *next (may be NULL) gets the time it
 * becomes due (0 for on-demand). The daemon runs a due agent only when its
 * query returns at least one node. */
bool qr_mem_agent_due(const qr_mem_agent *a, const qr_mem_agent_state *s, int64_t now,
                      int64_t *next);

/* ---- run state and leases on a PostgreSQL store ----
 * A store on a server keeps no file: the run state above is a row of the database's
 * due_agents table (qr_mem_sched_*, quarry/memory.h) and the run lock is a lease on it,
 * which any scheduler on any machine may claim; an expired lease (its holder crashed) is
 * claimable again. */
/* Seconds a scheduler's lease lasts unless told otherwise: longer than a run (one model
 * call with its retries), so that a live holder never loses it. */
#define QR_MEM_AGENT_LEASE_DEFAULT 900
/* The run state of a server's row, as qr_mem_agent_due reads it. */
void qr_mem_agent_state_of(const qr_mem_sched *s, qr_mem_agent_state *out);
/* This process's name as a lease holder: "HOST pid N". */
void qr_mem_agent_holder(char *out, size_t cap);
/* One run of a that holder has claimed (qr_mem_sched_claim gave before): qr_mem_agent_run_turn,
 * then the state is recorded and the lease ended. A successful run records its state in the
 * transaction of its actions and visits, and only while holder still holds the lease: when
 * another process claimed it meanwhile (the lease expired), the run is rolled back whole
 * (QR_ERUNTIME, err says so). A failed run that called the model records its failure; a
 * run that called none (no nodes, a dry run) only ends the lease. Returns as
 * qr_mem_agent_run_turn. */
int qr_mem_agent_run_leased(const qr_mem_agent *a, qr_mem *m, const qr_turn_ctx *tc, int64_t now,
                            const char *holder, const qr_mem_sched *before,
                            qr_mem_agent_report *r, qr_buf *err);

/* ---- the daemon ----
 * The scheduler loop any surface can run (`quarry mem daemon` does). Each round: rescan
 * the agent directory (changed files read again, broken ones logged once and skipped),
 * run every due agent whose query returns nodes, in name order, one at a time, under its
 * lock, record its state; then sleep interval_s seconds. On a PostgreSQL store the lock is
 * a lease (qr_mem_agent_run_leased) and any number of daemons may run. */

/* The message of a run that needs a model when none is configured. */
#define QR_MEM_AGENT_NO_MODEL                                                                   \
    "no model is configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL (or [llm] url and "       \
    "model in ~/.config/quarry/config.toml; docs/llm.md), or see the prompt with --dry-run"

/* An agent file of a directory: NAME.toml. */
typedef struct qr_mem_agent_file {
    char *name; /* malloc'd */
    char *path; /* malloc'd */
} qr_mem_agent_file;
/* The *.toml files of dir (dot files left out), sorted by name, into *out (free with
 * qr_mem_agent_files_free); their count, or -1 when the directory cannot be read (errno
 * says why). */
long qr_mem_agent_list_files(const char *dir, qr_mem_agent_file **out);
void qr_mem_agent_files_free(qr_mem_agent_file *v, long n);
/* A model client for agent a: cfg with the agent's `model` when it names one; NULL when
 * no model is configured or out of memory. Free with qr_llm_free. */
qr_llm *qr_mem_agent_client(qr_llm_config *cfg, const qr_mem_agent *a);
/* A one-line summary of a run that returned rc (for the state file and the log) into
 * out (cap bytes): the invalid actions, the model's failure, or err. */
void qr_mem_agent_failure_text(int rc, const qr_mem_agent_report *r, const qr_buf *err,
                               char *out, size_t cap);

typedef struct qr_mem_agent_daemon {
    const char *dir;     /* the agent files */
    qr_mem *mem;         /* the store the agents work on (the caller's) */
    qr_llm_config *llm;  /* the model configuration (the caller's; an agent's model
                            replaces its model for that agent's client) */
    uint64_t interval_s; /* between rounds (0: 60) */
    bool once;           /* one round, then return */
    int64_t lease_s;     /* on a PostgreSQL store: a claim's lease in seconds
                            (0: QR_MEM_AGENT_LEASE_DEFAULT) */
    /* one JSON object per event, without a newline: start, agent-load, agent-remove,
     * agent-run, agent-skip, retry, error, stop (docs/memory-agents.md); NULL: none */
    void (*log)(void *ud, const char *json);
    /* when the request stopped the loop (with `once` too): the stop event's reason
     * ("SIGTERM"); NULL: "cancelled". A `once` round that ends by itself has the reason
     * "once" and does not call it. */
    const char *(*stop_reason)(void *ud);
    void *log_ud; /* for log and stop_reason */
} qr_mem_agent_daemon;

/* Runs the loop until req stops (checked between agents and while sleeping, never inside
 * a run: a run in progress finishes, writes included) or, with once, after one round.
 * *runs_failed counts the runs that failed (each logged as an error). Returns QR_OK;
 * QR_ERUNTIME when another daemon holds the store file (err says which pid); QR_EIO when
 * the lock file cannot be opened; QR_ENOMEM. Thread: the caller's; req may be cancelled from
 * a signal handler or another thread. */
int qr_mem_agent_daemon_run(const qr_mem_agent_daemon *o, qr_req *req, size_t *runs_failed,
                            qr_buf *err);

#endif
