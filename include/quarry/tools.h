/*
 * quarry/tools.h: the tool registry. One record per tool (name, one-line summary,
 * parameters, result shape, handler, capability bits) drives everything that calls or
 * describes tools: validation, the Lisp's (tool/NAME {...}), `quarry tool`, `quarry tools`,
 * the OpenAI / Anthropic / MCP schemas, and later the MCP server and the agents' prompts.
 *
 * Records are static data: a registry keeps pointers to them (and to their parameter
 * arrays and strings), so they must outlive it. Defaults are EDN (or JSON) text, parsed
 * anew into the arena of each call, so nothing a call returns points into the registry.
 *
 * Calls go through one path: arguments (a map, or nil for {}) are checked against the
 * record and normalized, then the handler runs with a map whose keys are keywords, in the
 * order the parameters are declared, with defaults filled in and absent optional
 * parameters left out. Error messages are one line, lowercase, and say what to change:
 *   tool 'get_commits': unknown parameter 'sinse'; did you mean 'since'? parameters: ...
 *
 * Error codes: functions return QR_OK or a negative QR_E* code. QR_EINVAL means the call
 * was wrong (unknown tool, bad parameters, a capability the registry does not allow);
 * anything a handler returns is passed up unchanged.
 */
#ifndef QUARRY_TOOLS_H
#define QUARRY_TOOLS_H

#include "quarry/req.h"
#include "quarry/value.h"

/* JSON Schema types of a parameter (and of an array's items). */
typedef enum qr_tool_type {
    QR_TOOL_ANY = 0, /* only for array items: items of any type */
    QR_TOOL_STRING,
    QR_TOOL_INTEGER,
    QR_TOOL_NUMBER,
    QR_TOOL_BOOLEAN,
    QR_TOOL_ARRAY,
    QR_TOOL_OBJECT,
} qr_tool_type;

/* "string", "integer", "number", "boolean", "array", "object" ("any" for QR_TOOL_ANY). */
const char *qr_tool_type_name(qr_tool_type t);

/* Capability bits: what a tool may touch. A registry allows a set of them; a sandbox can
 * only clear bits (qr_tools_restrict), never set them again. A tool is usable only when
 * every bit it carries is allowed. docs/capabilities.md says what each surface allows. */
enum {
    QR_TOOL_READS_REPO = 1u << 0,   /* reads the repository and quarry's indexes of it */
    QR_TOOL_READS_MEMORY = 1u << 1, /* reads the memory store */
    QR_TOOL_WRITES = 1u << 2,       /* changes a store, an index or a file */
    QR_TOOL_NETWORK = 1u << 3,      /* talks to the network */
    QR_TOOL_MODEL = 1u << 4,        /* calls a language model (spends tokens) */
    QR_TOOL_EXEC = 1u << 5,         /* runs code of the repository (a check command, make):
                                       it may do anything its user may */
    /* qualifiers of QR_TOOL_WRITES (a record with one of them must carry WRITES too;
     * qr_tools_add refuses it otherwise); a registry may clear them alone, e.g. to allow
     * writes but no deletes */
    QR_TOOL_DESTROYS = 1u << 6,   /* a write removes or hides data (a delete, an unlink) */
    QR_TOOL_CUMULATIVE = 1u << 7, /* each call adds a record: calling twice with the same
                                     arguments is not the same as calling once */
    QR_TOOL_ALL_CAPS = (1u << 8) - 1,
};
/* Name of one capability bit ("reads-repo", "network", "exec", "destroys", ...), or NULL. */
const char *qr_tool_cap_name(uint32_t bit);

/* The MCP annotations of a tool, derived from its capability bits here and nowhere else
 * (the MCP export and the server read this):
 *   read_only    no WRITES and no EXEC
 *   destructive  DESTROYS, or EXEC (repository code may do anything)
 *   idempotent   not CUMULATIVE and not EXEC (a read, or a write whose repetition
 *                changes nothing more: setting a field, linking, a delete)
 *   open_world   NETWORK, MODEL or EXEC (the tool reaches beyond the repository and the
 *                stores: a model's endpoint is a service on the network) */
typedef struct qr_tool_hints {
    bool read_only, destructive, idempotent, open_world;
} qr_tool_hints;
qr_tool_hints qr_tool_hints_of(uint32_t caps);

typedef struct qr_tool_param {
    /* [A-Za-z][A-Za-z0-9_-]*, at most 64 bytes */
    const char *name;
    qr_tool_type type;
    /* a required parameter has no default */
    bool required;
    /* the default as EDN or JSON text ("50", "\"HEAD\"", "[]"), or NULL */
    const char *def;
    /* one line for people and models */
    const char *desc;
    /* the same in a few words, where a prompt lists many tools (the ask roles' TOOLS);
     * NULL: desc */
    const char *brief;
    /* NULL-terminated allowed strings (for string parameters and arrays of strings), or
     * NULL for any */
    const char *const *enum_values;
    /* arrays: the type of each item (QR_TOOL_ANY for any) */
    qr_tool_type items;
    /* integer and number parameters: inclusive bounds, each when its flag is set */
    bool has_min, has_max;
    double min, max;
    /* string parameters: the value's own check (a date, a regex), run wherever the
     * parameter is validated (calls, queries before they run); QR_OK, or QR_EINVAL with
     * one line in err saying what is wrong ("unknown date 'next tuesday'; ..."), without
     * the parameter's name, which callers add. NULL: none. */
    int (*check)(const char *s, size_t n, qr_buf *err);
    /* the name of another parameter that takes this one's place: a call gives one of the
     * two (both are optional in the schema, and the handler says when neither or both
     * came). An export that must leave the other out (OpenAI's strict mode cannot describe
     * a parameter that takes any JSON object) makes this one required, so a strict model
     * still has a way to pass the value. NULL: none. */
    const char *alt;
} qr_tool_param;

/* The handler: args is the normalized map (keyword keys, defaults filled in). Store the
 * result, allocated from `a`, in *out and return QR_OK; on failure write a one-line
 * message into err (without the "tool 'NAME': " prefix, which callers add) and return a
 * negative code. ctx is the registry's context (qr_tools_set_ctx). req is the request the
 * call belongs to (never NULL): the handler passes it to every engine it runs, whose loops
 * check it, and returns QR_ESTOPPED with qr_req_fail's message when it stopped. */
typedef int (*qr_tool_fn)(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                          qr_buf *err);

typedef struct qr_tool {
    /* [A-Za-z][A-Za-z0-9_-]*, at most 64 bytes */
    const char *name;
    /* one line: what it does and when to use it */
    const char *summary;
    /* ended by an entry whose name is NULL; NULL for none */
    const qr_tool_param *params;
    /* a short description of the result, and its JSON Schema as JSON text (or NULL) */
    const char *result;
    const char *result_schema;
    qr_tool_fn handler;
    /* QR_TOOL_* capability bits */
    uint32_t caps;
    /* a short name for people ("Commits of a window"), shown by MCP clients; NULL: made
     * from the name ("get_commits" -> "Get commits") */
    const char *title;
    /* the columns of a table of its rows that a reader needs, most needed first,
     * NULL-terminated (NULL: none named): a table too wide for the terminal leaves the
     * other columns out first and these last (qr_tools_render_table_keys) */
    const char *const *columns;
} qr_tool;

typedef struct qr_tools qr_tools;

/* A new empty registry that allows every capability; NULL when out of memory. */
qr_tools *qr_tools_new(void);
void qr_tools_free(qr_tools *r);

/* Adds a record (kept by pointer). Returns QR_EINVAL when the record is malformed (bad
 * name, duplicate name, a default that does not parse or does not fit its parameter, an
 * enum on a non-string, a result schema that is not a JSON object...), with the reason
 * in qr_tools_error; QR_ENOMEM when out of memory. */
int qr_tools_add(qr_tools *r, const qr_tool *t);
/* qr_tools_add for a tool whose handler works on a part of the registry's context: it
 * receives (char *)ctx + ctx_offset (NULL while the context is NULL). A host that embeds
 * each source's context registers that source's tools at the offset of its part, so a
 * source knows only its own context type and the host stays above the sources. */
int qr_tools_add_part(qr_tools *r, const qr_tool *t, size_t ctx_offset);
/* The message of the last failed qr_tools_add ("" when none). */
const char *qr_tools_error(const qr_tools *r);

/* Lookup by name; NULL when absent. Finds tools whatever their capabilities. */
const qr_tool *qr_tools_find(const qr_tools *r, const char *name, size_t len);
/* Appends the message for a name that is no tool: "unknown tool 'x'", then a suggestion
 * and the names of the usable tools, or "; no tools are registered". */
void qr_tools_explain_unknown(const qr_tools *r, const char *name, qr_buf *err);
/* Iteration in registration order: i from 0 to qr_tools_count - 1. */
size_t qr_tools_count(const qr_tools *r);
const qr_tool *qr_tools_at(const qr_tools *r, size_t i);
/* True when every capability t needs is allowed by r. Exports list only usable tools, and
 * a call to a tool that is not usable fails with QR_EINVAL. */
bool qr_tools_usable(const qr_tools *r, const qr_tool *t);

/* Clears every allowed capability not in keep (allowed &= keep); bits never come back. */
void qr_tools_restrict(qr_tools *r, uint32_t keep);
uint32_t qr_tools_allowed(const qr_tools *r);
/* What a person must do to allow one capability bit on this surface ("start the server
 * with --allow-write memory"): appended after "; " to the message of a call refused for
 * lacking that bit, so the refusal names the flag. hint is kept by pointer (static text);
 * NULL removes it. A bit that is not exactly one capability is ignored. */
void qr_tools_set_cap_hint(qr_tools *r, uint32_t bit, const char *hint);
/* Appends the refusal of a tool that is not usable in r: "not available in this session
 * (it needs capability 'writes', which is not allowed); HINT". Nothing when it is usable. */
void qr_tools_explain_refused(const qr_tools *r, const qr_tool *t, qr_buf *err);
/* The context handlers receive (a host object that gives them the repository, the
 * stores, ...; each tool gets its part of it: qr_tools_add_part). NULL until set. */
void qr_tools_set_ctx(qr_tools *r, void *ctx);

/* ---- calling ---- */
/* Finds the tool and checks args against it: *tool and *norm (the normalized map, built
 * in `a`) are set on success. Returns QR_EINVAL with a message in err on a bad call,
 * QR_ENOMEM when `a` is exhausted. */
int qr_tools_prepare(const qr_tools *r, const char *name, qr_val args, qr_arena *a,
                     const qr_tool **tool, qr_val *norm, qr_buf *err);
/* Runs the handler of t on normalized arguments, for request req (NULL: a request with no
 * limits). A request already stopped starts nothing: QR_ESTOPPED, "stopped: <why>".
 * Returns the handler's code unchanged; on failure err holds "tool 'NAME': " and the
 * handler's message (or "failed" when it gave none). */
int qr_tools_invoke(const qr_tools *r, const qr_tool *t, qr_req *req, qr_val norm, qr_arena *a,
                    qr_val *out, qr_buf *err);
/* qr_tools_prepare, then qr_tools_invoke. */
int qr_tools_call(const qr_tools *r, const char *name, qr_req *req, qr_val args, qr_arena *a,
                  qr_val *out, qr_buf *err);
/* The same call shaped as the Lisp's tool hook (qr_lisp_tool_fn): pass the registry as
 * ud to qr_lisp_set_tools; the program's request reaches the tool. Messages leave out the
 * "tool 'NAME': " prefix, which the interpreter adds. */
int qr_tools_lisp_dispatch(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a,
                           qr_val *out, qr_buf *err);

/* Checks args against one record without a registry (capabilities are not checked).
 * Messages start with "tool 'NAME': ". */
int qr_tool_validate(const qr_tool *t, qr_val args, qr_arena *a, qr_val *norm, qr_buf *err);

/* Parses command-line flags (`--name value`, `--name=value`, repeated flags and
 * comma-separated values for arrays, a bare `--flag` for true, JSON or EDN for objects
 * and for arrays written as [...]) into an argument map built in `a`, by each parameter's
 * type. A flag matches a parameter with '-' and '_' taken as equal; an unknown flag is
 * kept as a string so that validation reports it with its suggestions. Returns QR_EINVAL
 * with a message ("tool 'NAME': ...") when a value does not parse or a word is not a flag.
 * base, when a map, holds arguments given another way (e.g. --args); flags override it. */
int qr_tool_parse_argv(const qr_tool *t, int argc, char *const *argv, qr_val base, qr_arena *a,
                       qr_val *args, qr_buf *err);

/* ---- generated descriptions ---- */
typedef enum qr_tools_format {
    QR_TOOLS_TEXT = 0,  /* for people: "name  summary", then one line per parameter */
    QR_TOOLS_JSON,      /* [{name, summary, parameters, result, capabilities}] */
    QR_TOOLS_OPENAI,    /* Chat Completions `tools`: [{type:"function", function:{...}}] */
    QR_TOOLS_ANTHROPIC, /* Messages API `tools`: [{name, description, input_schema}] */
    QR_TOOLS_MCP,       /* MCP 2025-11-25 tools/list entries: [{name, description,
                           inputSchema, outputSchema?, annotations}] */
} qr_tools_format;

/* Parses "text", "json", "openai", "anthropic", "mcp"; -1 for anything else. */
int qr_tools_format_parse(const char *s);
/* Appends the description of every usable tool in the format (JSON pretty-printed when
 * pretty, each ending with a newline). Returns QR_OK, or QR_ENOMEM. */
int qr_tools_export(const qr_tools *r, qr_tools_format f, bool pretty, qr_buf *out);
/* The text description of one tool (what `quarry tools` prints for it). */
void qr_tool_describe(const qr_tool *t, qr_buf *out);
/* The JSON Schema of a tool's parameters as a value built in `a`:
 * {"type":"object","properties":{...},"required":[...],"additionalProperties":false}
 * ("required" only when some parameter is required). nil when `a` is exhausted. */
qr_val qr_tool_input_schema(const qr_tool *t, qr_arena *a);
/* The tool's title: its own, or one made from its name. */
void qr_tool_title(const qr_tool *t, qr_buf *out);
/* The description given to models: the summary, then "Returns: " and the result (ended
 * with a period when it ends in no sentence's end), fitted to QR_TOOLS_DESCRIPTION_MAX
 * (qr_tools_fit_description). */
void qr_tool_description(const qr_tool *t, qr_buf *out);
/* The longest description a tool list gives a model, in characters (code points): the
 * OpenAI API refuses a function description over 1,024 characters, and MCP clients pass
 * the MCP list on to it. */
#define QR_TOOLS_DESCRIPTION_MAX 1024
/* Cuts the text in b from byte `from` on to at most max characters (code points) when it
 * is longer: at the end of the last whole sentence that fits (". ", "! ", "? " or a line
 * end after one), else at the last space, with "..." (never inside a word or a UTF-8
 * sequence). Text that fits is left as it is. */
void qr_tools_fit_description(qr_buf *b, size_t from, size_t max);

/* ---- output for people and models ---- */
/* Longest failure message of a tool call, in bytes: longer ones are cut (with how much
 * was left out), so input quoted in a message never makes it large. */
#define QR_TOOLS_ERROR_MAX 600
/* Default number of rows of a vector result printed by the CLI (and given to a model). */
#define QR_TOOLS_OUTPUT_ROWS 50
/* When v is a vector or list longer than max_rows (> 0), returns its first max_rows items
 * and sets *omitted to how many were left out; else returns v and sets *omitted to 0. */
qr_val qr_tools_cap_output(qr_arena *a, qr_val v, size_t max_rows, size_t *omitted);
/* One page of a list result, for a surface that cuts results (MCP, the CLI): the rows
 * [offset, offset + max_rows) of a vector or list v (max_rows 0: every row from offset),
 * as a vector. `total` is v's length, `shown` the rows returned, `next` the offset of the
 * next page (0 when this page is the last). A value that is not a list is returned whole
 * (total 1, shown 1). An offset past the end gives an empty page. */
typedef struct qr_tools_page {
    size_t offset, shown, total, next;
} qr_tools_page;
qr_val qr_tools_page_of(qr_arena *a, qr_val v, size_t offset, size_t max_rows, qr_tools_page *pg);
/* Renders a result as plain text for a terminal: a vector of maps as a table (columns are
 * the union of their keys, cells cut at 60 characters), a vector of scalars one per line,
 * a map as key and value (values cut at 200), anything else printed as with str.
 * Newlines inside cells and values print as spaces. */
void qr_tools_render_table(qr_buf *out, qr_val v);
/* The same, fitted to a terminal `width` columns wide (0: no limit): a table of rows that
 * would be wider has its widest columns of prose cut, then its other text columns (to 8
 * columns at the least; numbers are never cut), then columns left out from the right with
 * a line saying so; a map's values are cut to the width left beside the keys. Widths are
 * display columns (qr_utf8_width). */
void qr_tools_render_table_width(qr_buf *out, qr_val v, size_t width);
/* The same, keeping the columns a reader needs (keys: column names, most needed first,
 * NULL-terminated; a tool's `columns`): when the table is too wide, the other columns are
 * left out first, from the right, then the text of what is left is cut as above, and the
 * named columns are left out last, the least needed first. With keys NULL, a column of
 * numbers the rows are ordered by (never rising, or never falling, over 3 rows or more)
 * is kept to the last: a ranked result keeps what it ranks by. */
void qr_tools_render_table_keys(qr_buf *out, qr_val v, size_t width, const char *const *keys);

#endif
