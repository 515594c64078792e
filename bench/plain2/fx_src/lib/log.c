#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static int current_level = LOG_WARN;

static const char *level_name(int lvl)
{
    static const char *names[] = { "debug", "info", "warn", "error" };
    return (lvl >= 0 && lvl <= LOG_ERROR) ? names[lvl] : "?";
}

void log_set_level(int lvl)
{
    current_level = lvl;
}

void log_write(int lvl, const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    if (lvl < current_level)
        return;
    fprintf(stderr, "[%s] %s:%d: ", level_name(lvl), file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void kv_panic(const char *expr, const char *file, int line)
{
    log_write(LOG_ERROR, file, line, "check failed: %s", expr);
    abort();
}
