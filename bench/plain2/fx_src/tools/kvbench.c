#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kv.h"
#include "util.h"

struct bench_result {
    double put_ms;
    double get_ms;
    long n;
};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void bench_loop(kv_store *db, long n, struct bench_result *r)
{
    char key[32], buf[64];
    long i;
    double t0 = now_ms();

    for (i = 0; i < n; i++) {
        snprintf(key, sizeof key, "k%ld", i);
        kv_put(db, key, key, sizeof key);
    }
    r->put_ms = now_ms() - t0;
    t0 = now_ms();
    for (i = 0; i < n; i++) {
        snprintf(key, sizeof key, "k%ld", i);
        kv_get(db, key, buf, sizeof buf);
    }
    r->get_ms = now_ms() - t0;
    r->n = n;
}

int main(int argc, char **argv)
{
    struct bench_result r;
    long n = argc > 1 ? parse_size(argv[1]) : 100000;
    kv_store *db = kv_open("/tmp/kvbench.db", 0);

    bench_loop(db, n, &r);
    printf("%ld ops: put %.1f ms, get %.1f ms\n", r.n, r.put_ms, r.get_ms);
    kv_close(db);
    return 0;
}
