#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "log.h"

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*end == 'k' || *end == 'K')
        v *= 1024;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024;
    return v;
}

static int print_stats(kv_store *db, FILE *out)
{
    fprintf(out, "store %p\n", (void *)db);
    return 0;
}

static int (*stats_hook)(kv_store *, FILE *) = print_stats;

static int cmd_get(kv_store *db, const char *key)
{
    char buf[4096];
    int n = kv_get(db, key, buf, sizeof buf);

    if (n < 0)
        return 1;
    fwrite(buf, 1, (size_t)n, stdout);
    return 0;
}

static int cmd_put(kv_store *db, const char *key, const char *val)
{
    return kv_put(db, key, val, strlen(val)) < 0;
}

int main(int argc, char **argv)
{
    kv_store *db;
    int rc = 2;

    if (argc < 3)
        return 2;
    log_set_level(getenv("KV_DEBUG") ? LOG_DEBUG : LOG_WARN);
    db = kv_open(argv[1], 0);
    if (strcmp(argv[2], "get") == 0 && argc > 3)
        rc = cmd_get(db, argv[3]);
    else if (strcmp(argv[2], "put") == 0 && argc > 4)
        rc = cmd_put(db, argv[3], argv[4]);
    else if (strcmp(argv[2], "del") == 0 && argc > 3)
        rc = kv_del(db, argv[3]) < 0;
    else if (strcmp(argv[2], "stats") == 0)
        rc = stats_hook(db, stdout);
    else if (strcmp(argv[2], "compact") == 0)
        rc = kv_compact(db) < 0;
    else if (strcmp(argv[2], "reserve") == 0 && argc > 3)
        rc = parse_size(argv[3]) < 0;
    kv_close(db);
    return rc;
}
