/*
 * command.h: a CLI command as a record. Name, summary, synopsis, description, parameters
 * in the form tools use (qr_tool_param, quarry/tools.h), flags, subcommands (records
 * too), and a handler. One table of them (commands.c) drives dispatch, --help, "did you
 * mean" for commands, subcommands and options, `--format json` errors, the command list
 * the man pages are made from, and shell completion (`quarry complete`).
 *
 * A record's parameters are spelled as its options without the dashes ("max-turns" is
 * --max-turns); `positional` names the parameters the words that are no option fill, in
 * order. A record with `run` is parsed here: qr_tool_parse_argv types the options,
 * qr_tool_validate checks enums, bounds and required ones, and the handler receives the
 * normalized map. A record with `own` keeps its own option parser (argv[0] is its name);
 * its parameters must still be every option that parser accepts, so that help,
 * suggestions and completion tell the truth about it (tests/cli/33_command_records.sh
 * feeds every declared option back to the command and fails when it is refused as
 * unknown).
 */
#ifndef QUARRY_CLI_COMMAND_H
#define QUARRY_CLI_COMMAND_H

#include "cli.h"

#include "quarry/tools.h"

enum {
    CLI_CMD_NEEDS_REPO = 1u << 0,  /* works on a git repository: declares --repo DIR,
                                      and cli_args.repo holds it (NULL: the working one) */
    CLI_CMD_NEEDS_STORE = 1u << 1, /* works on the memory store: declares --store FILE;
                                      cli_args.store is it, else $QUARRY_MEMORY */
    CLI_CMD_FILES = 1u << 2,       /* its words are files: completion offers them */
};

typedef struct cli_command cli_command;

/* What a parsed command's handler receives. */
typedef struct cli_args {
    const cli_command *cmd;
    const char *path;  /* "code index": for messages */
    qr_val map;        /* the normalized argument map (keyword keys, defaults filled in) */
    qr_arena *a;       /* the arena the map lives in; the handler may allocate from it */
    const char *repo;  /* CLI_CMD_NEEDS_REPO: --repo, or NULL */
    const char *store; /* CLI_CMD_NEEDS_STORE: --store, else $QUARRY_MEMORY, or NULL */
    cli_format fmt;    /* --format edn|json|table when the record has it, else FMT_DEFAULT */
    qr_req *req;       /* the command's request (cli_req) */
} cli_args;

struct cli_command {
    const char *name;
    const char *summary;       /* one line */
    const char *usage;         /* the synopsis, without "usage: " (lines after the first
                                  are indented by the caller) */
    const char *help;          /* the description after the synopsis, or NULL */
    const char *page;          /* a hand-written --help page printed instead of the
                                  generated one (it must name every option; the test
                                  checks), or NULL */
    void (*page_fn)(FILE *f);  /* the same, for a page with numbers from the library */
    const qr_tool_param *params;      /* ended by a NULL name; NULL for none */
    const char *const *positional;    /* ended by NULL; NULL for none */
    const char *too_many;             /* the usage error for a word no positional takes
                                         (NULL: "unexpected argument 'W'") */
    const char *const *shorts;        /* pairs: a short option and the parameter it
                                         stands for ("-e", "eval"), ended by NULL */
    const char *rest;                 /* an array parameter that takes every word after
                                         its option (lisp's --run-tests FILE...) */
    unsigned flags;                   /* CLI_CMD_* */
    const cli_command *subs;          /* ended by a NULL name; NULL for none */
    int (*run)(const cli_args *args); /* parsed here; NULL when `own` */
    int (*own)(int argc, char **argv);
};

/* The command table (commands.c), ended by a NULL name. */
extern const cli_command cli_commands[];

/* The record of a command path ("code index", "mem", "flow run"), or NULL. */
const cli_command *cli_command_find(const char *path);
/* Runs the command of argv[0] (quarry's own argv without the program name). */
int cli_command_dispatch(int argc, char **argv);
/* Prints the generated help of a record (usage, description, options, subcommands). */
void cli_command_help(const cli_command *c, const char *path, FILE *f);

/* Handlers of the records in commands.c that live elsewhere. */
int cli_cmd_help(const cli_args *args);
int cli_cmd_version(const cli_args *args);
int cli_cmd_complete(int argc, char **argv);
int cli_cmd_index(const cli_args *args);
int cli_cmd_lsp(const cli_args *args);
int cli_cmd_code_index(const cli_args *args);
int cli_cmd_code_dump(const cli_args *args);
int cli_cmd_code_graph(const cli_args *args);
int cli_cmd_code_gc(const cli_args *args);
int cli_cmd_code_query(int argc, char **argv);
int cli_cmd_compile(const cli_args *args);
int cli_cmd_query(const cli_args *args);
int cli_cmd_ask(const cli_args *args);
int cli_cmd_lisp(const cli_args *args);
extern const char cli_compile_page[], cli_query_page[], cli_ask_page[], cli_lisp_page[];
int cli_flow_check(const cli_args *args);
int cli_flow_fmt(const cli_args *args);
int cli_flow_run_args(const cli_args *args);
void cli_flow_run_page(FILE *f);
extern const char cli_flow_page[];
int cli_cmd_do(const cli_args *args);
int cli_cmd_dwim(const cli_args *args);
extern const char cli_do_page[], cli_dwim_page[];
int cli_cmd_mcp(const cli_args *args);
extern const char cli_mcp_page[];
void cli_mcp_page_fn(FILE *f);
int cli_cmd_sparql(const cli_args *args);
extern const char cli_sparql_page[];
int cli_cmd_tools(const cli_args *args);
int cli_cmd_db_init(const cli_args *args);
int cli_cmd_db_migrate(const cli_args *args);
int cli_cmd_db_status(const cli_args *args);
extern const char cli_tools_page[];

/* The options of the commands that run programs and queries (cli_run_opts, cli.h) from a
 * parsed record: --repo, --store, --data, --format, --limit-output, --no-index and the
 * sandbox limits, with the messages cli_run_option gives. -1 after a usage error. */
int cli_run_opts_from(const cli_args *args, cli_run_opts *o);
/* The sandbox limits alone, applied over what lim holds. -1 after a usage error. */
int cli_limits_from(const cli_args *args, qr_lisp_limits *lim);

/* Argument map accessors: the value of parameter name, or the fallback when absent. */
const char *cli_arg_str(const cli_args *args, const char *name, const char *fallback);
bool cli_arg_bool(const cli_args *args, const char *name);
int64_t cli_arg_int(const cli_args *args, const char *name, int64_t fallback);
/* Every string of an array parameter: *n of them, in an array from args->a. */
const char **cli_arg_strs(const cli_args *args, const char *name, size_t *n);

#endif
