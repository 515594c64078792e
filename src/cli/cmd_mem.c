/* cmd_mem.c: placeholder while `quarry mem` is being built (not yet usable). */
#include "cli.h"

int cmd_mem(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_usage_error("mem", "not built yet");
    return EXIT_USAGE;
}
