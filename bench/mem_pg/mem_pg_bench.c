/*
 * mem_pg_bench.c: eight processes writing one memory store at once (issue 26, part 5):
 * `mem_pg_bench STORE [WRITERS [N]]` opens STORE (a SQLite file, or a postgresql:// URL),
 * adds one shared note, then forks WRITERS processes (default 8) that start together and
 * each make N notes (default 1,000), N links (each new note to the shared one) and N
 * visits (of the shared note), one write per call, through the public API (memory.h):
 * every process contends for the same store and the same rows. It prints one JSON line:
 * the backend, writes, wall seconds, writes per second, p50/p99/max latency of one write
 * in ms, the writes that failed (an error returned), and the writes lost: acknowledged
 * (returned QR_OK) but not in the store afterwards (counted there: notes, links, visits).
 * Lost must be 0. Latencies go to a shared anonymous mapping; the clock is
 * CLOCK_MONOTONIC. Information only: run by bench/mem_pg/run.sh, never by the tests.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "quarry/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* one child: N of each write; lat[3N] latencies (negative: failed) */
static int writer(const char *store, int k, int n, double *lat, int go)
{
    char g;
    if (read(go, &g, 1) < 0) /* EOF when the parent closes it: start */
        return 1;
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mem_open(&m, store, 0, &err) != QR_OK) {
        fprintf(stderr, "writer %d: %s\n", k, err.p ? err.p : "?");
        return 1;
    }
    char key[64], agent[32], content[96];
    snprintf(agent, sizeof agent, "writer-%d", k);
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof key, "w%d-%d", k, i);
        snprintf(content, sizeof content, "note %d of writer %d", i, k);
        qr_mem_node note = {.key = key, .content = content, .weight = 0.5};
        for (int op = 0; op < 3; op++) {
            qr_buf_reset(&err);
            double t0 = now_ms();
            int rc = op == 0   ? qr_mem_node_add(m, &note, NULL, &err)
                     : op == 1 ? qr_mem_link(m, key, "hub", 0.5, NULL, NULL, &err)
                               : qr_mem_visit(m, "hub", agent, 0, "seen", &err);
            double dt = now_ms() - t0;
            lat[3 * i + op] = rc == QR_OK ? dt : -1;
            if (rc != QR_OK)
                fprintf(stderr, "writer %d: %s\n", k, err.p ? err.p : "?");
        }
    }
    qr_mem_close(m);
    qr_buf_release(&err);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mem_pg_bench STORE [WRITERS [N]]\n");
        return 2;
    }
    const char *store = argv[1];
    int writers = argc > 2 ? atoi(argv[2]) : 8, n = argc > 3 ? atoi(argv[3]) : 1000;
    if (writers < 1 || writers > 64 || n < 1) {
        fprintf(stderr, "mem_pg_bench: WRITERS is 1..64 and N at least 1\n");
        return 2;
    }
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_node hub = {.key = "hub", .content = "the note every writer links and visits",
                       .weight = 0.5};
    if (qr_mem_open(&m, store, QR_MEM_CREATE, &err) != QR_OK ||
        qr_mem_node_add(m, &hub, NULL, &err) != QR_OK) {
        fprintf(stderr, "mem_pg_bench: %s\n", err.p ? err.p : "?");
        return 1;
    }
    qr_mem_close(m);
    size_t total = (size_t)writers * 3 * (size_t)n;
    double *lat = mmap(NULL, total * sizeof *lat, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int go[2];
    if (lat == MAP_FAILED || pipe(go) != 0) {
        perror("mem_pg_bench");
        return 1;
    }
    pid_t *kids = calloc((size_t)writers, sizeof *kids);
    for (int k = 0; k < writers; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            close(go[1]);
            _exit(writer(store, k, n, lat + (size_t)k * 3 * (size_t)n, go[0]));
        }
    }
    close(go[0]);
    usleep(200000); /* let every writer reach its read */
    double t0 = now_ms();
    close(go[1]);
    int bad = 0;
    for (int k = 0; k < writers; k++) {
        int status = 0;
        if (kids[k] <= 0 || waitpid(kids[k], &status, 0) != kids[k] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            bad++;
    }
    double wall = (now_ms() - t0) / 1e3;
    int64_t ok[3] = {0, 0, 0}, failed = 0;
    double *sorted = malloc(total * sizeof *sorted);
    size_t ns = 0;
    for (size_t i = 0; i < total; i++) {
        if (lat[i] < 0) {
            failed++;
        } else {
            ok[i % 3]++;
            sorted[ns++] = lat[i];
        }
    }
    qsort(sorted, ns, sizeof *sorted, cmp_double);
    qr_mem_stats st;
    qr_arena a;
    qr_arena_init(&a, 0);
    if (qr_mem_open(&m, store, 0, &err) != QR_OK || qr_mem_stats_get(m, &a, &st, &err) != QR_OK) {
        fprintf(stderr, "mem_pg_bench: %s\n", err.p ? err.p : "?");
        return 1;
    }
    int64_t lost = (ok[0] - (st.nodes - 1)) + (ok[1] - st.edges) + (ok[2] - st.visits);
    printf("{\"backend\":\"%s\",\"writers\":%d,\"writes\":%zu,\"seconds\":%.2f,"
           "\"writes_per_s\":%.0f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f,"
           "\"failed\":%lld,\"lost\":%lld,\"crashed_writers\":%d}\n",
           strncmp(store, "postgres", 8) ? "sqlite-wal" : "postgresql", writers, total, wall,
           (double)ns / wall, ns ? sorted[ns / 2] : 0, ns ? sorted[(size_t)(ns * 0.99)] : 0,
           ns ? sorted[ns - 1] : 0, (long long)failed, (long long)lost, bad);
    qr_arena_release(&a);
    qr_mem_close(m);
    free(sorted);
    free(kids);
    qr_buf_release(&err);
    return lost || bad ? 1 : 0;
}
