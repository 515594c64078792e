/*
 * cli.h: what the subcommands share: option parsing helpers,
 * error reporting (one line on stderr, JSON with --format json) and exit codes.
 */
#ifndef QUARRY_CLI_H
#define QUARRY_CLI_H

#include <stdarg.h>

#include "quarry/lisp.h"

#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

typedef enum { FMT_DEFAULT, FMT_EDN, FMT_JSON, FMT_TABLE } cli_format;

int cmd_tool(int argc, char **argv);
int cmd_mem(int argc, char **argv);

/* Parses "edn", "json", "table"; returns -1 for anything else. */
int cli_parse_format(const char *s);
/* Parses a size with an optional K, M or G suffix; returns false on bad input. */
bool cli_parse_size(const char *s, size_t *out);
bool cli_parse_u64(const char *s, uint64_t *out);
/* Parses one sandbox limit option (--timeout-ms, --max-memory, --max-output, --max-steps,
 * --max-depth) a with its value v (NULL when missing) into lim. Returns 1 when a was such
 * an option and v was good, 0 when a is not one, -1 after printing a usage error. */
int cli_limit_option(const char *cmd, const char *a, const char *v, qr_lisp_limits *lim);
/* The options of the commands that run a program, a query or a question (lisp, query,
 * compile, ask, mcp), read in one place (cli_run_opts_from, command.h) so their spelling,
 * bounds and messages agree. The strings point into the parsed arguments. */
typedef struct cli_run_opts {
    const char *repo, *store, *data;
    cli_format fmt;
    bool no_index;
    uint64_t limit;     /* --limit-output; QR_TOOLS_OUTPUT_ROWS unless given */
    qr_lisp_limits lim; /* qr_lisp_limits_default unless given */
} cli_run_opts;
void cli_run_opts_init(cli_run_opts *o);
/* Starts a host for a command's tools from its options: the repository, the store, the
 * statistics index switch, and the terminal's warning and progress hooks. Release it
 * with qr_host_release. */
struct qr_host;
void cli_host_init(struct qr_host *h, const cli_run_opts *o);

/* The command's one request (quarry/req.h): every tool and engine the command runs checks
 * it. The first call starts it (no budget: a command's limits are its options) and makes
 * the first SIGINT or SIGTERM cancel it, so the work stops at its next check and what it
 * finished is kept; a second signal ends the process as usual. */
qr_req *cli_req(void);
/* Makes fn the handler of SIGINT and SIGTERM, with sigaction flags (SA_RESTART or 0). */
void cli_on_stop_signals(void (*fn)(int), int flags);

/* Text the command must never print (the model's API key): cli_write masks it, as the
 * trace writer does (every copy, and every 8-character piece). s is copied; NULL or ""
 * is ignored. */
void cli_add_secret(const char *s);
/* Writes b to f with the secrets masked (b is changed). */
void cli_write(qr_buf *b, FILE *f);

/* A lease (--lease of `mem agent`, `mem daemon` and `index --worker`): N seconds, or N
 * with s, m or h; 1 second to 1 day. False when v is not one. */
bool cli_parse_lease(const char *v, int64_t *out);

/* Prints "quarry: <kind>: msg" (or a JSON object with --format json) to stderr. */
void cli_error(cli_format fmt, const char *kind, uint32_t line, uint32_t col, const char *msg);
/* Prints "quarry: warning: msg" to stderr (the hosts' warn hook; ud is unused). */
void cli_warn(void *ud, const char *msg);
/* Draws a progress bar on stderr when it is a terminal (the hosts' progress hook); erases
 * it when done == total. */
void cli_progress(void *ud, const char *what, size_t done, size_t total);
void cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "quarry CMD: unknown option 'OPT' (did you mean '--X'?); see 'quarry CMD --help'": the
 * suggestion is the closest option of the command's record (command.h), when one is
 * close. */
void cli_unknown_option(const char *cmd, const char *opt);
/* "quarry: msg" on stderr, or a JSON usage error with --format json. */
void cli_usage_plain(const char *msg);
/* The overview `quarry --help` prints: the commands and what they do. */
void cli_overview(FILE *f);
/* cli_usage_error with a va_list. */
void cli_usage_verror(const char *cmd, const char *fmt, va_list ap);
/* The candidate a mistyped word most likely meant (a third of its length in edits at
 * most), or NULL: the one suggestion of "did you mean". */
const char *cli_closest(const char *word, const char *const *cands, size_t n);
/* The width tables are fitted to: $COLUMNS when set, else the terminal's when stdout is
 * one, else 0 (no limit: a pipe gets whole rows). */
size_t cli_table_width(void);
/* Where the documentation pages (docs/NAME.md) are: PREFIX/share/doc/quarry beside an
 * installed binary (PREFIX/bin/quarry, as `make install` puts them), else "docs" (the
 * source tree's, for a binary run from its build directory). */
const char *cli_doc_dir(void);

/* Query helpers shared by `query` and `compile` (cmd_query.c). The query text: arg, or
 * stdin when arg is NULL or "-". */
int cli_query_text(const char *cmd, const char *arg, cli_format fmt, char **text, size_t *len);
/* Reads --data FILE (JSON, else EDN) as a map into a (strings of JSON into `strings`). */
int cli_query_data(const char *path, qr_arena *a, qr_arena *strings, cli_format fmt, qr_val *out);
/* Prints the problems of an invalid query on stderr (one line each, or JSON). */
struct qr_query_compiled;
void cli_query_problems(const struct qr_query_compiled *c, cli_format fmt);

/* Prints a query's :return (or any result) as `quarry query` does: a table (summary line,
 * findings cut to `limit` rows, then the other keys), EDN or JSON. */
void cli_print_result(qr_arena *a, qr_val v, cli_format fmt, size_t limit);

/* Golden test runner: runs every case in the files; prints failures and a summary. */
int cli_run_golden(int nfiles, char **files);

#endif
