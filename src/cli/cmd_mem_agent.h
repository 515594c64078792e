/*
 * cmd_mem_agent.h: `quarry mem agent` (list, run) and `quarry mem daemon`, the
 * memory agents defined as TOML files (quarry/mem_agent.h,
 * docs/memory-agents.md). Both follow cmd_mem.h's subcommand convention; their
 * table entries in cmd_mem.c use the usage, summary and help below.
 */
#ifndef QUARRY_CMD_MEM_AGENT_H
#define QUARRY_CMD_MEM_AGENT_H

#include "cmd_mem.h"

int cmd_mem_agent(int argc, char **argv, cli_mem_opts *o);
int cmd_mem_daemon(int argc, char **argv, cli_mem_opts *o);

#define CLI_MEM_AGENT_USAGE "quarry mem agent list | run NAME [--dry-run] [--agents DIR]"
#define CLI_MEM_AGENT_SUMMARY "list the memory agents, or run one now"
#define CLI_MEM_DAEMON_USAGE                                                                       \
    "quarry mem daemon [--agents DIR] [--once] [--interval SECONDS] [--log "                       \
    "FILE]"
#define CLI_MEM_DAEMON_SUMMARY "run the memory agents on their schedules"
extern const char cli_mem_agent_help[];
extern const char cli_mem_daemon_help[];

#endif
