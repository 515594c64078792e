/* cmd_ask.c: placeholder while `quarry ask` is being built (not yet usable). */
#include "cli.h"

int cmd_ask(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_usage_error("ask", "not built yet");
    return EXIT_USAGE;
}
