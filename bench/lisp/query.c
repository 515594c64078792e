/*
 * query.c -- the records benchmark query hand-written in plain C.
 *
 * Build: cc -O2 -o query_c query.c      (run.sh does this)
 * Usage: query_c commits.tsv
 *
 * Loads the TSV (author, timestamp, files, additions, deletions per line)
 * into an array of structs (not timed; each author string is its own copy,
 * as a JSON parser would make it). Then times only the query with
 * clock_gettime(CLOCK_MONOTONIC). Prints the answer as JSON on stdout and
 * `time_ms: N` on stderr.
 *
 * Query: keep files >= 3 and additions > 10; stable sort by timestamp desc;
 * group by author; per author count, sum additions, sum deletions, average
 * files and latest (first timestamp in the group); top 10 by additions desc,
 * then author asc.
 *
 * The query part does what the other versions do: it groups by the author
 * *string* (a hash table keyed by string contents), not by pre-interned ids.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char *author;
    int64_t timestamp;
    int64_t files, additions, deletions;
    size_t pos;                 /* original position, for a stable sort */
} Commit;

typedef struct {
    const char *author;
    int64_t commits, additions, deletions, files;
    int64_t latest;
} Row;

static void die(const char *msg) {
    fprintf(stderr, "query_c: %s\n", msg);
    exit(1);
}

/* ---- loading (not timed) ---- */

static Commit *load(const char *path, size_t *out_n) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open input");
    size_t cap = 1024, n = 0;
    Commit *cs = malloc(cap * sizeof *cs);
    char *line = NULL;
    size_t linecap = 0;
    while (getline(&line, &linecap, f) > 0) {
        char *tab = strchr(line, '\t');
        if (!tab) die("bad line");
        *tab = '\0';
        if (n == cap) cs = realloc(cs, (cap *= 2) * sizeof *cs);
        if (!cs) die("out of memory");
        Commit *c = &cs[n];
        c->author = strdup(line);
        char *p = tab + 1;
        c->timestamp = strtoll(p, &p, 10);
        c->files = strtoll(p, &p, 10);
        c->additions = strtoll(p, &p, 10);
        c->deletions = strtoll(p, &p, 10);
        c->pos = n++;
    }
    free(line);
    fclose(f);
    *out_n = n;
    return cs;
}

/* ---- the query (timed) ---- */

static int by_timestamp_desc(const void *pa, const void *pb) {
    const Commit *a = *(Commit *const *)pa, *b = *(Commit *const *)pb;
    if (a->timestamp != b->timestamp) return a->timestamp < b->timestamp ? 1 : -1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;   /* qsort is not stable */
}

static int by_additions_desc_author(const void *pa, const void *pb) {
    const Row *a = pa, *b = pb;
    if (a->additions != b->additions) return a->additions < b->additions ? 1 : -1;
    return strcmp(a->author, b->author);
}

static uint64_t hash_str(const char *s) {      /* FNV-1a */
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

/* Returns the number of rows written to *out (at most 10). */
static size_t query(Commit *cs, size_t n, Row **out) {
    /* 1. filter */
    Commit **kept = malloc(n * sizeof *kept);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cs[i].files >= 3 && cs[i].additions > 10) kept[k++] = &cs[i];

    /* 2. stable sort by timestamp desc */
    qsort(kept, k, sizeof *kept, by_timestamp_desc);

    /* 3+4. group by author with an open-addressing hash table and aggregate
     * on the fly; the first commit seen for an author is its latest. */
    size_t cap = 64;
    while (cap < 2 * k + 2) cap *= 2;     /* never fills up */
    Row *rows = malloc(k * sizeof *rows + 1);
    size_t *slots = calloc(cap, sizeof *slots);   /* 0 = empty, else row+1 */
    size_t nrows = 0;
    for (size_t i = 0; i < k; i++) {
        const Commit *c = kept[i];
        size_t s = hash_str(c->author) & (cap - 1);
        Row *r = NULL;
        while (slots[s]) {
            Row *cand = &rows[slots[s] - 1];
            if (strcmp(cand->author, c->author) == 0) { r = cand; break; }
            s = (s + 1) & (cap - 1);
        }
        if (!r) {
            r = &rows[nrows++];
            slots[s] = nrows;
            *r = (Row){ .author = c->author, .latest = c->timestamp };
        }
        r->commits++;
        r->additions += c->additions;
        r->deletions += c->deletions;
        r->files += c->files;
    }

    /* 5. top 10 by additions desc, author asc */
    qsort(rows, nrows, sizeof *rows, by_additions_desc_author);
    free(slots);
    free(kept);
    *out = rows;
    return nrows < 10 ? nrows : 10;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 2) die("usage: query_c commits.tsv");
    size_t n;
    Commit *cs = load(argv[1], &n);

    double t0 = now_ms();
    Row *rows;
    size_t m = query(cs, n, &rows);
    double t1 = now_ms();

    /* authors are plain ASCII names without quotes or backslashes */
    putchar('[');
    for (size_t i = 0; i < m; i++) {
        const Row *r = &rows[i];
        printf("%s{\"author\":\"%s\",\"commits\":%lld,\"additions\":%lld,"
               "\"deletions\":%lld,\"avg_files\":%.17g,\"latest\":%lld}",
               i ? "," : "", r->author, (long long)r->commits,
               (long long)r->additions, (long long)r->deletions,
               (double)r->files / (double)r->commits, (long long)r->latest);
    }
    puts("]");
    fprintf(stderr, "time_ms: %.3f\n", t1 - t0);
    return 0;
}
