/*
 * options.c: the options several subcommands share, parsed in one place so that their
 * spelling, bounds and messages cannot drift apart: the sandbox limits of the programs a
 * command runs (--timeout-ms, --max-memory, --max-output, --max-steps, --max-depth).
 *
 * Rejected: a getopt-style table for every option of every command (each command's own
 * options read better next to the code that uses them).
 */
#include "cli.h"

#include <string.h>

bool cli_is_limit_option(const char *a)
{
    return !strcmp(a, "--timeout-ms") || !strcmp(a, "--max-memory") ||
           !strcmp(a, "--max-output") || !strcmp(a, "--max-steps") || !strcmp(a, "--max-depth");
}

int cli_limit_option(const char *cmd, const char *a, const char *v, qr_lisp_limits *lim)
{
    if (!cli_is_limit_option(a))
        return 0;
    if (!v) {
        cli_usage_error(cmd, "option '%s' needs a value", a);
        return -1;
    }
    if (!strcmp(a, "--timeout-ms")) {
        if (!cli_parse_u64(v, &lim->timeout_ms) || lim->timeout_ms == 0) {
            cli_usage_error(cmd, "bad --timeout-ms '%s': expected milliseconds > 0", v);
            return -1;
        }
    } else if (!strcmp(a, "--max-memory") || !strcmp(a, "--max-output")) {
        size_t *dst = a[6] == 'm' ? &lim->max_memory : &lim->max_output;
        if (!cli_parse_size(v, dst) || (*dst == 0 && dst == &lim->max_memory)) {
            cli_usage_error(cmd, "bad %s '%s': expected a size such as 64M", a, v);
            return -1;
        }
    } else if (!strcmp(a, "--max-steps")) {
        if (!cli_parse_u64(v, &lim->max_steps) || lim->max_steps == 0) {
            cli_usage_error(cmd, "bad --max-steps '%s'", v);
            return -1;
        }
    } else {
        uint64_t d;
        if (!cli_parse_u64(v, &d) || d == 0 || d > 1000000) {
            cli_usage_error(cmd, "bad --max-depth '%s'", v);
            return -1;
        }
        lim->max_depth = (uint32_t)d;
    }
    return 1;
}
