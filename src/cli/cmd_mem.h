/*
 * cmd_mem.h: what the `quarry mem` subcommands share (cmd_mem.c and the files that add
 * query, agent, daemon): the subcommand record, the common options (--store, --format,
 * --help), opening the store, error reporting and printing a node.
 *
 * Adding a subcommand: write `int cmd_mem_NAME(int argc, char **argv, cli_mem_opts *o)`
 * (argv[0] is the subcommand's name; parse the rest with cli_mem_option for the common
 * options), declare it here, and add one cli_mem_cmd line to the table in cmd_mem.c.
 */
#ifndef QUARRY_CMD_MEM_H
#define QUARRY_CMD_MEM_H

#include "cli.h"

#include "quarry/memory.h"

typedef struct cli_mem_opts {
    const char *store; /* --store FILE; NULL: $QUARRY_MEMORY */
    cli_format fmt;    /* --format; FMT_DEFAULT until cli_mem_format resolves it */
    cli_format asked;  /* --format as given (FMT_DEFAULT when none): errors are JSON only
                          when --format json was asked for, not because stdout is a pipe */
    const char *sub;   /* the subcommand's name, for messages */
} cli_mem_opts;

typedef struct cli_mem_cmd {
    const char *name;
    int (*run)(int argc, char **argv, cli_mem_opts *o);
    const char *usage;   /* one line: "quarry mem add KEY ..." */
    const char *summary; /* one line, for `quarry mem --help` */
    const char *help;    /* printed after the usage by `quarry mem NAME --help` */
} cli_mem_cmd;

/* The common options, at argv[*i]: --store FILE, --format edn|json|table, -h/--help.
 * Returns 1 when it consumed the option (advancing *i past its value), 0 when argv[*i] is
 * not one of them, 2 when it printed the help (exit 0), -1 after printing a usage error
 * (exit 2). */
int cli_mem_option(int argc, char **argv, int *i, cli_mem_opts *o);
/* Resolves FMT_DEFAULT: table on a terminal, JSON otherwise. */
cli_format cli_mem_format(cli_mem_opts *o);
/* Opens the store from --store, else $QUARRY_MEMORY (create: for write commands).
 * Returns an exit code: EXIT_OK with *out set, or the error already printed. */
int cli_mem_open(cli_mem_opts *o, bool create, qr_mem **out);
/* Prints the library error (err) and returns the exit code for rc: 2 for QR_EINVAL, 1 for
 * anything else. */
int cli_mem_fail(cli_mem_opts *o, int rc, const qr_buf *err);
/* Prints a usage error for the subcommand and returns EXIT_USAGE. */
int cli_mem_usage(cli_mem_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unknown option of `quarry mem [SUB]`, with the one suggestion the rest of the CLI
 * gives (from the subcommand's usage and help); returns EXIT_USAGE. */
int cli_mem_unknown_option(cli_mem_opts *o, const char *opt);
/* Prints one node with its links in the resolved format (table, JSON or EDN). */
void cli_mem_print_node(FILE *f, cli_format fmt, const qr_mem_node *n, const qr_mem_edge *edges,
                        size_t nedges);
/* One entry of a small result map: a string value, or (str NULL) a number: an integer
 * when `integer` is set, else a double (1.0 prints as 1.0). */
typedef struct cli_mem_field {
    const char *name;
    const char *str;
    double num;
    bool integer;
} cli_mem_field;
/* Prints a result as a JSON/EDN map of the fields, or as the `text` line in table format. */
void cli_mem_print_result(FILE *f, cli_format fmt, const char *text, const cli_mem_field *fields,
                          size_t n);

/* `quarry mem export --salvage [FILE]` (cmd_mem_salvage.c): what can still be read from a
 * damaged store, as JSON lines; the report on stderr (stdout with FILE). */
int cli_mem_export_salvage(cli_mem_opts *o, const char *out_path);

int cmd_mem_add(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_get(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_update(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_delete(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_restore(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_link(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_unlink(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_import(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_export(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_stats(int argc, char **argv, cli_mem_opts *o);

#endif
