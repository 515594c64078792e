/*
 * cmd_mem_query.h: `quarry mem query` (cmd_mem_query.c), a subcommand of `quarry mem`
 * with the signature of cmd_mem.h's table: add
 *     {"query", cmd_mem_query, CMD_MEM_QUERY_USAGE, CMD_MEM_QUERY_SUMMARY, CMD_MEM_QUERY_HELP},
 * to the table in cmd_mem.c.
 */
#ifndef QUARRY_CMD_MEM_QUERY_H
#define QUARRY_CMD_MEM_QUERY_H

#include "cmd_mem.h"

#define CMD_MEM_QUERY_USAGE "quarry mem query PIPELINE | -p STAGE [-p STAGE ...] [OPTIONS]"
#define CMD_MEM_QUERY_SUMMARY "select notes with a pipeline (all | type:episodic | limit:20)"
extern const char cmd_mem_query_help[];
#define CMD_MEM_QUERY_HELP cmd_mem_query_help

int cmd_mem_query(int argc, char **argv, cli_mem_opts *o);

#endif
