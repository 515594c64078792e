/*
 * commands.c: the command table: one record per command and subcommand (command.h),
 * read by dispatch, help, suggestions, `quarry help --commands|--json` (which `make
 * install` turns into man pages and shell completion) and `quarry complete`.
 *
 * Records with `run` are parsed from their parameters (command.c); records with `own`
 * keep their hand-written parser, and their parameters list exactly the options that
 * parser accepts (tests/cli/33_command_records.sh holds them to it). Options shared by
 * many commands are declared once below as macros, as options.c parses them once.
 *
 * Rejected: one record per option kind with bit masks (CLI_OPT_*): a record holds its
 * options in the same form tools hold their parameters, so one parser and one validator
 * serve both.
 */
#include "command.h"

#include "cmd_mem_agent.h"
#include "cmd_mem_query.h"

/* ---- parameters ---- */

#define P_STR(n, d) {.name = n, .type = QR_TOOL_STRING, .desc = d}
#define P_FLAG(n, d) {.name = n, .type = QR_TOOL_BOOLEAN, .desc = d}
#define P_INT(n, d) {.name = n, .type = QR_TOOL_INTEGER, .desc = d}
#define P_ENUM(n, v, d) {.name = n, .type = QR_TOOL_STRING, .enum_values = v, .desc = d}
#define P_LIST(n, d) {.name = n, .type = QR_TOOL_ARRAY, .items = QR_TOOL_STRING, .desc = d}
#define P_END {.name = NULL}

#define P_REPO P_STR("repo", "the repository (default: the one containing the working directory)")
#define P_STORE P_STR("store", "the memory store (default: $QUARRY_MEMORY)")
#define P_NO_INDEX P_FLAG("no-index", "compute git statistics without the statistics index")
#define P_DATA P_STR("data", "the context: a JSON or EDN map, read as data/NAME")
/* numbers the commands read as text, so that their messages stay those of options.c */
#define P_LIMIT_OUTPUT P_STR("limit-output", "rows of a result to print (0: all)")
#define P_LIMITS                                                                               \
    P_STR("timeout-ms", "wall time limit in milliseconds, tools included"),                   \
        P_STR("max-memory", "memory limit, e.g. 64M"),                                        \
        P_STR("max-output", "printed output kept, e.g. 64K"),                                 \
        P_STR("max-steps", "evaluation step limit"), P_STR("max-depth", "call depth limit")

static const char *const fmt_edn_json_table[] = {"edn", "json", "table", NULL};
static const char *const fmt_text_json[] = {"text", "json", NULL};
static const char *const fmt_text_edn_json_table[] = {"text", "edn", "json", "table", NULL};
static const char *const fmt_edn_json[] = {"edn", "json", NULL};
static const char *const fmt_compile[] = {"text", "edn", "json", NULL};
static const char *const fmt_tools[] = {"text",   "json",          "mcp",
                                        "openai", "openai-strict", "anthropic", NULL};
static const qr_tool_param version_params[] = {
    P_ENUM("format", fmt_text_json, "text (default) or json"), P_END};
static const char *const fmt_sparql[] = {"json", "xml", "csv", "tsv", "table", NULL};
static const char *const fmt_dot_svg[] = {"dot", "svg", NULL};

#define P_FORMAT P_ENUM("format", fmt_edn_json_table, "how to print (default: table on a terminal, else json)")

/* ---- top-level commands ---- */

static const char *const lisp_pos[] = {"file", NULL};
static const char *const lisp_shorts[] = {"-e", "eval", NULL};
static const char *const query_pos[] = {"query", NULL};
static const char *const ask_pos[] = {"question", NULL};

static const qr_tool_param lisp_params[] = {
    P_STR("file", "the program file ('-': stdin)"),
    P_STR("eval", "the program text (also -e)"), P_DATA,
    P_ENUM("format", fmt_edn_json, "how to print the result (default edn)"), P_LIMITS, P_REPO, P_STORE, P_NO_INDEX,
    P_STR("seed", "seed of rand, rand-int, rand-nth, shuffle"),
    P_FLAG("stats", "print timing and usage as a JSON line on stderr"),
    P_STR("repeat", "run the program N times"),
    P_LIST("run-tests", "run golden test files (tests/lang/)"), P_END};

static const char *const tools_pos[] = {"names", NULL};
static const qr_tool_param tools_params[] = {
    P_LIST("names", "the tools to describe (default: all)"),
    P_ENUM("format", fmt_tools, "how to describe the tools"),
    P_FLAG("compact", "JSON formats on one line"),
    P_STR("allow-write", "the served list of a server started with --allow-write WHAT"),
    P_FLAG("allow-exec", "the served list of a server started with --allow-exec"), P_REPO, P_END};

static const qr_tool_param tool_params[] = {
    P_STR("args", "all parameters as one JSON or EDN map ('-': stdin)"), P_FORMAT,
    P_LIMIT_OUTPUT, P_STR("trace", "write the call's model turns as JSON lines"), P_REPO,
    P_NO_INDEX, P_END};

static const qr_tool_param mcp_params[] = {
    P_STR("allow-write", "also serve the tools that write WHAT (memory)"),
    P_FLAG("allow-exec", "let tools run repository code"),
    P_STR("http", "serve the Streamable HTTP transport on a loopback ADDR"), P_REPO, P_STORE,
    P_NO_INDEX, P_STR("max-rows", "rows of a list result sent to the client"),
    P_STR("max-message", "largest message accepted, e.g. 16M"),
    P_STR("page-size", "tools per tools/list page"), P_STR("workers", "calls run at once"),
    P_LIMITS, P_END};

static const char *const index_format[] = {"text", "json", NULL};
static const qr_tool_param index_params[] = {
    P_REPO,
    P_FLAG("status", "report instead of building: file, schema, commits indexed, reachable, "
                     "missing, size (builds nothing)"),
    {.name = "format", .type = QR_TOOL_STRING, .enum_values = index_format, .def = "\"text\"",
     .desc = "how to print"},
    P_FLAG("enqueue", "add the repository to the shared index's queue (--store)"),
    P_FLAG("code", "with --enqueue: and to the shared code index, so that every worker run "
                   "on it also brings its code graph to HEAD"),
    P_FLAG("worker", "index the shared index's queued repositories until none is left (--store)"),
    P_STR("store", "the team database of the shared index: postgresql://... (default: "
                   "$QUARRY_DATABASE_URL)"),
    P_STR("name", "with --enqueue: the repository's name in the shared index (default: its "
                  "directory's name)"),
    P_STR("lease", "with --worker: how long a claim on a repository lasts without news "
                   "(every batch renews it; 15m)"),
    P_INT("batch", "with --worker: commits per transaction (500)"),
    P_INT("wait", "with --worker: when the queue is empty, look again every this many "
                  "seconds instead of exiting, until interrupted (0: exit; 1 to 3600)"),
    P_END};

static const qr_tool_param query_params[] = {P_STR("query", "the query ('-': stdin)"), P_DATA, P_FORMAT, P_LIMIT_OUTPUT, P_REPO, P_STORE,
                                             P_NO_INDEX, P_LIMITS, P_END};

static const qr_tool_param compile_params[] = {
    P_STR("query", "the query ('-': stdin)"), P_DATA, P_ENUM("format", fmt_compile, "text or edn: the program; json: an object"),
    P_FLAG("ops", "list the transform ops"), P_REPO, P_END};

static const qr_tool_param ask_params[] = {
    P_STR("question", "the question"),
    P_FLAG("explain", "on stderr: the tier that answered, the query, the calls"),
    P_STR("trace", "write every step as JSON lines"),
    P_STR("max-calls", "budget of model calls for the question"),
    P_FLAG("no-router", "always ask the model"), P_FORMAT, P_LIMIT_OUTPUT, P_REPO, P_STORE,
    P_NO_INDEX, P_LIMITS, P_END};

static const char *const sparql_pos[] = {"text", NULL};
static const qr_tool_param sparql_params[] = {
    P_STR("text", "the query ('-': stdin)"), P_REPO, P_STR("ref", "the code graph of a commit instead of the working tree"),
    P_LIST("data", "add an N-Triples or Turtle file to the default graph (repeatable)"),
    P_LIST("graph", "load FILE as the named graph IRI (IRI=FILE; repeatable)"),
    P_STR("query", "read the query from FILE"), P_STR("base", "base IRI of the query"),
    P_ENUM("format", fmt_sparql, "how to print"),
    P_STR("timeout-ms", "stop after N ms of evaluation"),
    P_STR("max-rows", "fail when the result has more than N rows"),
    P_STR("max-memory", "cap the memory of one evaluation"),
    P_STR("export-nt", "write the default graph as N-Triples to FILE"),
    P_STR("repeat", "run the query N times"), P_END};

static const char *const dwim_pos[] = {"word1", "word2", NULL};
static const qr_tool_param dwim_params[] = {
    P_STR("word1", "parse, undo, or the line"), P_STR("word2", "the line after parse"), P_REPO, P_FLAG("write", "let the intent change files"),
    P_FLAG("force", "run even a low-confidence reading"),
    P_ENUM("format", fmt_text_edn_json_table, "how to print: text (the default), or the result as data"), P_END};

static const char *const do_pos[] = {"task", NULL};
static const qr_tool_param do_params[] = {
    P_STR("task", "the task"), P_REPO, P_FLAG("write", "let the task change files"),
    P_STR("max-turns", "model turns at most"), P_STR("trace", "write every turn as JSON lines"),
    P_END};

static const qr_tool_param lsp_params[] = {
    P_FLAG("stdio", "what editors pass; stdio is the only transport"), P_END};

static const qr_tool_param help_params[] = {
    P_STR("command", "the command whose help to show"),
    P_STR("subcommand", "its subcommand"),
    P_FLAG("commands", "list the commands, one a line: NAME, a tab, what it does"),
    P_FLAG("json", "list every command and subcommand with its options as JSON"),
    P_FLAG("man", "print the man page of quarry, or of COMMAND [SUBCOMMAND], as roff"),
    P_END};
static const char *const help_pos[] = {"command", "subcommand", NULL};

/* ---- code ---- */

static const char *const code_fmt[] = {"edn", "json", "table", NULL};
static const qr_tool_param code_index_params[] = {
    P_REPO, P_STR("ref", "the code graph of a commit (default: the working tree)"),
    P_ENUM("format", code_fmt, "how to print (default: table on a terminal, else json)"),
    P_END};
static const qr_tool_param code_dump_params[] = {
    P_REPO, P_STR("ref", "the code graph of a commit (default: the working tree)"),
    P_LIST("path", "only the files under PREFIX (repeatable)"), P_END};
static const qr_tool_param code_graph_params[] = {
    P_STR("what", "the function or file"), P_FLAG("callers", "draw who calls it"),
    P_FLAG("callees", "draw what it calls"), P_FLAG("includes", "draw what a file includes"),
    {.name = "depth", .type = QR_TOOL_INTEGER, .def = "1", .has_min = true, .min = 1,
     .has_max = true, .max = 64, .desc = "how many steps out"},
    {.name = "max-nodes", .type = QR_TOOL_INTEGER, .def = "60", .has_min = true, .min = 1,
     .desc = "draw at most N nodes (the rest are counted in a note)"},
    {.name = "format", .type = QR_TOOL_STRING, .enum_values = fmt_dot_svg, .def = "\"dot\"",
     .desc = "Graphviz DOT, or SVG drawn by Graphviz's dot"},
    P_REPO, P_STR("ref", "the code graph of a commit (default: the working tree)"), P_END};
static const char *const code_graph_pos[] = {"what", NULL};

static const char *const code_gc_fmt[] = {"json", "table", NULL};
static const qr_tool_param code_gc_params[] = {
    P_REPO, P_ENUM("format", code_gc_fmt, "how to print (default: table)"), P_END};
static const char code_query_help[] =
    "\nTYPE is one of:\n"
    "  find_file find_function find_struct find_type find_macro   one by --name\n"
    "  list_files list_functions list_structs search_by_name       --pattern, --match, --kind\n"
    "  get_call_graph      --name, --direction callers|callees|both, --depth, --file, --site_file\n"
    "  get_dependencies    --file, --reverse, --depth\n"
    "  find_references     --name\n"
    "  get_skeleton        --file\n"
    "  get_definition      --name, --kind\n"
    "  get_index_stats     counts, and the files and lines the parser recovered in\n"
    "Every TYPE takes --ref, --include_inactive, --limit, --offset and --format; 'quarry code\n"
    "query TYPE --help' describes each parameter. Example: quarry code query get_call_graph\n"
    "--name main --direction callees\n";
static const cli_command code_subs[] = {
    {.name = "index", .summary = "build the code index of a ref or the working tree and say what it holds",
     .usage = "quarry code index [--repo DIR] [--ref REF] [--format edn|json|table]",
     .params = code_index_params, .flags = CLI_CMD_NEEDS_REPO, .run = cli_cmd_code_index},
    {.name = "query", .summary = "one query_codebase query: quarry tool query_codebase --query-type TYPE",
     .usage = "quarry code query TYPE [--PARAM VALUE ...]", .help = code_query_help,
     .own = cli_cmd_code_query},
    {.name = "dump", .summary = "print the whole graph as JSON lines (docs/code.md)",
     .usage = "quarry code dump [--repo DIR] [--ref REF] [--path PREFIX]...",
     .params = code_dump_params, .flags = CLI_CMD_NEEDS_REPO, .run = cli_cmd_code_dump},
    {.name = "graph", .summary = "draw the neighbourhood of a function or file as DOT or SVG",
     .usage = "quarry code graph SYMBOL|FILE [--callers|--callees|--includes] [--depth N]\n"
              "[--max-nodes N] [--format dot|svg] [--repo DIR] [--ref REF]",
     .params = code_graph_params, .positional = code_graph_pos, .flags = CLI_CMD_NEEDS_REPO,
     .run = cli_cmd_code_graph},
    {.name = "gc", .summary = "prune the code index of blobs no ref, index or working tree reaches",
     .usage = "quarry code gc [--repo DIR] [--format json|table]",
     .params = code_gc_params, .flags = CLI_CMD_NEEDS_REPO, .run = cli_cmd_code_gc},
    {.name = NULL}};

static const char code_help[] =
    "\nThe code graph: files, functions, types, macros, includes and calls, indexed per git\n"
    "blob in <gitdir>/quarry/code.db. Without --ref: the working tree, uncommitted changes\n"
    "included. 'quarry tool query_codebase --help' lists the query parameters; TYPE is one\n"
    "of find_file, list_files, find_function, list_functions, get_dependencies,\n"
    "get_call_graph, find_struct, list_structs, find_type, find_macro, find_references,\n"
    "search_by_name, get_skeleton, get_definition, get_index_stats.\n"
    "\n"
    "Files are parsed on one thread per processor (at most 8); QUARRY_THREADS=N sets the\n"
    "number (1: no threads). QUARRY_CTAGS names the ctags binary for other languages.\n";

/* ---- flow ---- */

static const char *const flow_files_pos[] = {"files", NULL};
static const qr_tool_param flow_check_params[] = {
    P_LIST("files", "the files, and the *.flow and *.sr files under directories"),
    P_ENUM("format", fmt_text_json, "how to print the diagnostics"),
    P_FLAG("strict", "warnings fail too"), P_END};
static const qr_tool_param flow_fmt_params[] = {
    P_LIST("files", "the files, and the *.flow and *.sr files under directories"),
    P_FLAG("check", "only say which files are not formatted"),
    P_FLAG("stdout", "print the formatted text instead of rewriting the file"), P_END};
static const char *const flow_run_pos[] = {"file", NULL};
static const qr_tool_param flow_run_params[] = {
    P_STR("file", "the flow file"),
    P_STR("flow", "run this flow (or agent) instead"),
    P_STR("input", "the run's input ('-': stdin)"), P_STR("trace", "write every step as JSON lines"),
    P_STR("max-calls", "budget of model calls"), P_STR("max-tokens", "budget of tokens"),
    P_STR("max-time-ms", "budget of wall time"), P_STR("max-steps", "budget of statements"),
    P_STR("max-memory", "budget of the memory the run's values take"),
    P_STR("max-turns", "model turns of one agent run"),
    P_STR("workers", "statements of a 'parallel do' run at once"),
    P_STR("allow-write", "offer agents edit_file too (files)"), P_REPO, P_END};

static const cli_command flow_subs[] = {
    {.name = "check", .summary = "check flow files: syntax, names, types",
     .usage = "quarry flow check FILE|DIR... [--format text|json] [--strict]",
     .page = cli_flow_page, .params = flow_check_params, .positional = flow_files_pos,
     .flags = CLI_CMD_FILES, .run = cli_flow_check},
    {.name = "fmt", .summary = "format flow files in place",
     .usage = "quarry flow fmt FILE|DIR... [--check] [--stdout]", .page = cli_flow_page,
     .params = flow_fmt_params, .positional = flow_files_pos, .flags = CLI_CMD_FILES,
     .run = cli_flow_fmt},
    {.name = "run", .summary = "run a flow file",
     .usage = "quarry flow run FILE [OPTIONS]", .page_fn = cli_flow_run_page,
     .params = flow_run_params, .positional = flow_run_pos,
     .too_many = "one file at a time", .flags = CLI_CMD_FILES | CLI_CMD_NEEDS_REPO,
     .run = cli_flow_run_args},
    {.name = NULL}};

/* ---- mem (its own dispatcher, cmd_mem.c; declared here for help and completion) ---- */

#define P_MEM_COMMON P_STORE, P_FORMAT
#define P_MEM_NOTE                                                                             \
    P_STR("content", "the note's markdown"), P_STR("file", "read the content from a file"),    \
        P_STR("type", "a word of [a-z0-9-]"), P_STR("weight", "importance from 0 to 1"),       \
        P_STR("provenance", "where the note came from"), P_LIST("tag", "a tag (repeatable)")
static const qr_tool_param mem_params[] = {P_MEM_COMMON, P_END};
static const qr_tool_param mem_add_params[] = {P_MEM_NOTE, P_MEM_COMMON, P_END};
static const qr_tool_param mem_get_params[] = {P_FLAG("deleted", "also find a deleted note"),
                                               P_MEM_COMMON, P_END};
static const qr_tool_param mem_update_params[] = {
    P_MEM_NOTE, P_LIST("untag", "remove a tag (repeatable)"), P_MEM_COMMON, P_END};
static const qr_tool_param mem_link_params[] = {P_STR("strength", "above 0, at most 1"),
                                                P_STR("type", "a word of [a-z0-9-]"),
                                                P_MEM_COMMON, P_END};
static const qr_tool_param mem_unlink_params[] = {
    P_STR("type", "remove only the link of this type"), P_MEM_COMMON, P_END};
static const qr_tool_param mem_export_params[] = {
    P_FLAG("salvage", "read what can still be read of a damaged store"), P_MEM_COMMON, P_END};
static const qr_tool_param mem_query_params[] = {
    P_STR("stage", "one stage (repeatable; also -p)"),
    P_FLAG("explain", "each stage, the count after it and its time"),
    P_STR("now", "the time age: and visits compare with"),
    P_FLAG("no-cache", "neither read nor write the spectral cache"),
    P_INT("repeat", "run N times; print timings"), P_FLAG("stages", "list the stages and exit"),
    P_MEM_COMMON, P_END};
static const qr_tool_param mem_agent_params[] = {
    P_FLAG("dry-run", "print the filled prompt; no model call, no write"),
    P_STR("trace", "write the model call and the run as JSON lines"),
    P_STR("agents", "the agent files"),
    P_STR("lease", "on a PostgreSQL store: the agent's lease (15m)"), P_MEM_COMMON, P_END};
static const qr_tool_param mem_daemon_params[] = {
    P_STR("agents", "the agent files"), P_FLAG("once", "one round, then exit"),
    P_INT("interval", "seconds between rounds"), P_STR("log", "append the JSON-lines log to FILE"),
    P_STR("lease", "on a PostgreSQL store: how long a claim on an agent lasts (15m)"),
    P_MEM_COMMON, P_END};

#define MEM_SUB(n, s, u, p) {.name = n, .summary = s, .usage = u, .params = p, .own = cmd_mem}
static const cli_command mem_subs[] = {
    MEM_SUB("add", "add a note; the key must be new", "quarry mem add KEY [OPTIONS]", mem_add_params),
    MEM_SUB("get", "print a note with its links", "quarry mem get KEY [--deleted]", mem_get_params),
    MEM_SUB("update", "change a note's content, type, weight, provenance or tags",
            "quarry mem update KEY [OPTIONS]", mem_update_params),
    MEM_SUB("delete", "delete a note (soft)", "quarry mem delete KEY", mem_params),
    MEM_SUB("restore", "bring back a deleted note", "quarry mem restore KEY", mem_params),
    MEM_SUB("link", "link two notes", "quarry mem link SOURCE TARGET [OPTIONS]", mem_link_params),
    MEM_SUB("unlink", "remove the links from SOURCE to TARGET",
            "quarry mem unlink SOURCE TARGET [--type T]", mem_unlink_params),
    MEM_SUB("import", "add the nodes, links and visits of a JSON-lines file",
            "quarry mem import FILE | -", mem_params),
    MEM_SUB("export", "write the whole store as JSON lines", "quarry mem export [--salvage] [FILE]",
            mem_export_params),
    MEM_SUB("stats", "count the notes by type, links, tags and visits", "quarry mem stats",
            mem_params),
    MEM_SUB("query", CMD_MEM_QUERY_SUMMARY, CMD_MEM_QUERY_USAGE, mem_query_params),
    MEM_SUB("agent", CLI_MEM_AGENT_SUMMARY, CLI_MEM_AGENT_USAGE, mem_agent_params),
    MEM_SUB("daemon", CLI_MEM_DAEMON_SUMMARY, CLI_MEM_DAEMON_USAGE, mem_daemon_params),
    {.name = NULL}};

/* ---- db (cmd_db.c): the team database's schema on PostgreSQL ---- */

static const qr_tool_param db_params[] = {
    P_STR("url", "the database: postgres:// or postgresql:// URL (default: $QUARRY_DATABASE_URL)"),
    P_ENUM("format", fmt_text_json, "text (default) or json"), P_END};
static const cli_command db_subs[] = {
    {.name = "init", .summary = "create quarry's schema in an empty PostgreSQL database",
     .usage = "quarry db init [--url URL] [--format text|json]",
     .help = "\nApplies every migration to a database that has no quarry schema yet, in one\n"
             "transaction. A database that has one already is refused (exit 2): 'quarry db\n"
             "migrate' upgrades it.\n",
     .params = db_params, .run = cli_cmd_db_init},
    {.name = "migrate", .summary = "apply the pending migrations in one transaction",
     .usage = "quarry db migrate [--url URL] [--format text|json]",
     .help = "\nApplies the migrations the database lacks, in order, in one transaction under a\n"
             "lock (two processes migrating at once apply each once); a failure rolls them all\n"
             "back (exit 1). A schema newer than this quarry knows is refused (exit 2).\n",
     .params = db_params, .run = cli_cmd_db_migrate},
    {.name = "status", .summary = "print the schema version and the pending migrations",
     .usage = "quarry db status [--url URL] [--format text|json]",
     .help = "\nPrints the server (host or socket, port, database: never the URL), the schema\n"
             "version and the migrations this quarry would apply. Changes nothing. A schema\n"
             "newer than this quarry knows is reported as an error (exit 2).\n",
     .params = db_params, .run = cli_cmd_db_status},
    {.name = NULL}};
static const char db_help[] =
    "\nThe schema of the team database on PostgreSQL (docs/team.md): numbered migrations,\n"
    "recorded in its schema_migrations table. The database is named by --url or\n"
    "$QUARRY_DATABASE_URL (postgres:// or postgresql://; libpq's other settings, such as\n"
    "PGPASSWORD and ~/.pgpass, apply). Messages name the server, never the URL or its\n"
    "password. Exit status: 0 done, 1 the server cannot be reached or a migration failed,\n"
    "2 a usage error or a schema newer than this quarry knows.\n";

/* ---- the table ---- */

const cli_command cli_commands[] = {
    {.name = "lisp", .summary = "run a PTC-Lisp program in the sandbox; prints the result as EDN",
     .usage = "quarry lisp [-e EXPR | FILE] [--data FILE] [--format edn|json]",
     .page = cli_lisp_page, .params = lisp_params, .positional = lisp_pos,
     .too_many = "give one program: -e EXPR, a FILE or '-'", .shorts = lisp_shorts,
     .rest = "run-tests", .flags = CLI_CMD_NEEDS_REPO | CLI_CMD_FILES, .run = cli_cmd_lisp},
    {.name = "tools",
     .summary = "list the tools and their parameters, or export them as model tool schemas",
     .usage = "quarry tools [NAME...] [--format text|json|openai|anthropic|mcp]",
     .page = cli_tools_page, .params = tools_params, .positional = tools_pos,
     .run = cli_cmd_tools},
    {.name = "tool", .summary = "call one tool with parameters given as flags",
     .usage = "quarry tool NAME [--PARAM VALUE ...] [--format edn|json|table]",
     .params = tool_params, .flags = CLI_CMD_NEEDS_REPO, .own = cmd_tool},
    {.name = "mcp",
     .summary = "serve the tools to an MCP client (Claude Code, Cursor...) over stdio or loopback HTTP",
     .usage = "quarry mcp [--repo DIR] [--http ADDR] [OPTIONS]", .page_fn = cli_mcp_page_fn, .params = mcp_params,
     .flags = CLI_CMD_NEEDS_REPO | CLI_CMD_NEEDS_STORE, .run = cli_cmd_mcp},
    {.name = "index",
     .summary = "build the statistics index of a repository, or report it (--status)",
     .usage = "quarry index [--repo DIR] [--status] [--format text|json]\n"
              "quarry index --status --store URL [--format text|json]\n"
              "quarry index --enqueue [--repo DIR] [--name NAME] [--code] [--store URL]\n"
              "quarry index --worker [--store URL] [--lease DURATION] [--batch N]",
     .help = "\nBuilds the statistics index of a repository: the line statistics (what git log\n"
             "--numstat --no-renames shows) and the commit graph of every commit reachable from\n"
             "HEAD or any ref (branches, tags, remote-tracking branches, notes, stash), computed\n"
             "with git for the commits the index lacks and kept in <git dir>/quarry/index.db. The\n"
             "git tools fill the index as they go; this fills it at once, ahead of the first\n"
             "question. Merges carry no statistics and are not stored. Running it again computes\n"
             "only what is new. A progress bar shows on stderr when it is a terminal; a damaged\n"
             "index, or one from another version, is moved aside and rebuilt with a warning.\n"
             "Prints one line: the commits indexed now, the commits in the index, the time.\n"
             "\nThe shared index (docs/team.md): one PostgreSQL database (--store or\n"
             "$QUARRY_DATABASE_URL, after 'quarry db init') holds the statistics of many\n"
             "repositories, each named by its root commit and a name (--status --store URL\n"
             "lists them: commits, head, queued, claimed). --enqueue adds the\n"
             "repository at --repo to its queue (or asks for a new run) and prints its id.\n"
             "--worker claims a queued repository with a lease, indexes the commits of its\n"
             "HEAD that the database lacks (through the local index), writes them in\n"
             "transactions of --batch commits, publishes the run, and takes the next, until\n"
             "the queue is empty; any number of workers may run on any machines that see\n"
             "the repositories at the location they were enqueued from. A killed worker's\n"
             "lease ends and another worker finishes its repository. The git tools then\n"
             "answer across repositories with 'repos' (quarry tool get_author_stats --repos\n"
             "all). --enqueue --code also puts the repository in the shared code index: each\n"
             "worker run on it then brings its code graph to HEAD too, in the same lease,\n"
             "before it publishes (query_codebase --repos all answers from it).\n",
     .params = index_params, .flags = CLI_CMD_NEEDS_REPO, .run = cli_cmd_index},
    {.name = "query",
     .summary = "run a query written in the query DSL (EDN or JSON) and print its :return",
     .usage = "quarry query 'QUERY' | - [--data FILE] [--format edn|json|table]",
     .page = cli_query_page, .params = query_params, .positional = query_pos,
     .too_many = "give one query (quote it as one argument)", .flags = CLI_CMD_NEEDS_REPO,
     .run = cli_cmd_query},
    {.name = "compile",
     .summary = "print the PTC-Lisp program a query compiles to, without running it",
     .usage = "quarry compile 'QUERY' | - [--data FILE] [--format text|json]",
     .page = cli_compile_page, .params = compile_params, .positional = query_pos,
     .too_many = "give one query (quote it as one argument)", .run = cli_cmd_compile},
    {.name = "ask",
     .summary = "answer a question about the repository, with a model only where one is needed",
     .usage = "quarry ask \"QUESTION\" [--explain] [--trace FILE] [--max-calls N]",
     .page = cli_ask_page, .params = ask_params, .positional = ask_pos,
     .too_many = "give one question (quote it as one argument)", .flags = CLI_CMD_NEEDS_REPO,
     .run = cli_cmd_ask},
    {.name = "mem", .summary = "the memory graph: add, get, link, query notes; run memory agents",
     .usage = "quarry mem COMMAND [--store FILE] ...", .params = mem_params,
     .flags = CLI_CMD_NEEDS_STORE, .subs = mem_subs, .own = cmd_mem},
    {.name = "code",
     .summary = "the code graph: functions, types, macros, includes and calls, per git blob",
     .usage = "quarry code index|query|dump|graph|gc [--repo DIR] [--ref REF] ...", .help = code_help,
     .subs = code_subs},
    {.name = "db",
     .summary = "the team database on PostgreSQL: create and upgrade its schema",
     .usage = "quarry db init|migrate|status [--url URL] [--format text|json]", .help = db_help,
     .subs = db_subs},
    {.name = "sparql",
     .summary = "run a read-only SPARQL 1.1 query (SELECT or ASK) over RDF files",
     .usage = "quarry sparql (QUERY | --query FILE | -) [--data FILE]... [--graph IRI=FILE] "
              "[--format json|xml|csv|tsv|table]",
     .page = cli_sparql_page, .params = sparql_params, .positional = sparql_pos,
     .too_many = "give one query (quote it as one argument)", .flags = CLI_CMD_NEEDS_REPO,
     .run = cli_cmd_sparql},
    {.name = "flow",
     .summary = "the workflow language: check, format and run .flow files (docs/flow.md)",
     .usage = "quarry flow check|fmt|run FILE... [OPTIONS]",
     .page = cli_flow_page,
     .subs = flow_subs},
    {.name = "lsp",
     .summary = "a Language Server Protocol server for workflow files, on stdio (for editors)",
     .usage = "quarry lsp",
     .help = "\nA Language Server Protocol server for workflow files (.flow, .sr) on stdin and\n"
             "stdout, for editors: diagnostics as the file changes (the codes of 'quarry flow\n"
             "check'), completion, hover, go to definition, document symbols and formatting\n"
             "('quarry flow fmt'). docs/flow.md tells how to configure an editor. Exit status:\n"
             "0 after shutdown and exit, 1 when the client exits without shutdown or goes away.\n",
     .params = lsp_params, .run = cli_cmd_lsp},
    {.name = "dwim",
     .summary = "run one terse intent (skeleton, expand, read, grep, fix, validate, any tool)",
     .usage = "quarry dwim \"LINE\" [--repo DIR] [--write] [--force] [--format text|edn|json|table]\n"
              "quarry dwim parse \"LINE\" [--repo DIR] [--format text|edn|json|table]\n"
              "quarry dwim undo [--repo DIR]",
     .page = cli_dwim_page, .params = dwim_params, .positional = dwim_pos,
     .too_many = "one line at a time: quote it", .flags = CLI_CMD_NEEDS_REPO,
     .run = cli_cmd_dwim},
    {.name = "do",
     .summary = "let the model work on a task one terse line per turn (quarry dwim's verbs)",
     .usage = "quarry do \"TASK\" [--write] [--max-turns N] [--trace FILE] [--repo DIR]",
     .page = cli_do_page, .params = do_params, .positional = do_pos,
     .too_many = "one task: quote it", .flags = CLI_CMD_NEEDS_REPO, .run = cli_cmd_do},
    {.name = "help", .summary = "show help for quarry or one command",
     .usage = "quarry help [COMMAND [SUBCOMMAND] | --commands | --json] [--man]",
     .help = "\nShows the help of quarry or of one command; --commands lists the commands, one a\n"
             "line: NAME, a tab, what it does; --json lists every command and subcommand with\n"
             "its options, as completion sees them; --man prints a man page made from the\n"
             "records (what make install installs).\n",
     .params = help_params, .positional = help_pos, .run = cli_cmd_help},
    {.name = "complete", .summary = "print the completions of a command line (for shells)",
     .usage = "quarry complete WORD... CURRENT", .own = cli_cmd_complete},
    {.name = "version", .summary = "print the version", .usage = "quarry version [--format text|json]",
     .help = "Prints 'quarry VERSION'; with --format json, {\"name\": \"quarry\", \"version\":\n"
             "\"VERSION\"}.\n",
     .params = version_params, .run = cli_cmd_version},
    {.name = NULL}};
