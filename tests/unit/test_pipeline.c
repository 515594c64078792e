/*
 * test_pipeline.c: unit tests for the pipeline language (src/pipeline/): parsing every
 * stage, normalized text, the implicit `all`, bare words as match:, negation, and errors
 * (stage index, byte offset, did-you-mean, limits); running on a small store built in a
 * temp dir through memory.h with a fixed `now`: every filter, sorts with key ties, limit,
 * visits, match with stemming, spread seeded from match, communities checked against
 * qr_graph_community, sort:priority checked against the documented formula computed here
 * from the graph functions, the in-memory and file caches (a corrupt file is ignored),
 * per-stage stats, and the memory_query tool through the registry and a host.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "check.h"
#include "quarry/host.h"
#include "quarry/pipeline.h"
#include "quarry/tools.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY 86400
#define T0 1773100800 /* 2026-03-10T00:00:00Z */

static char dir[64];
static char store[128];

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- parsing ---- */

static qr_pipeline *parse_ok(const char *text)
{
    qr_pipeline *p = NULL;
    qr_pipeline_error e;
    int rc = qr_pipeline_parse(text, strlen(text), &p, &e);
    if (rc) {
        fprintf(stderr, "parse '%s' failed: %s\n", text, e.message);
        check_failures++;
    }
    return p;
}

static void check_text(const char *text, const char *want)
{
    qr_pipeline *p = parse_ok(text);
    if (!p)
        return;
    qr_buf b;
    qr_buf_init(&b);
    qr_pipeline_text(p, &b);
    CHECK_STR(b.p, want);
    qr_buf_release(&b);
    qr_pipeline_free(p);
}

static void check_err(const char *text, int stage, uint32_t offset, const char *substr)
{
    qr_pipeline *p = NULL;
    qr_pipeline_error e;
    int rc = qr_pipeline_parse(text, strlen(text), &p, &e);
    CHECK(rc == QR_EINVAL);
    CHECK(p == NULL);
    if (rc != QR_EINVAL)
        return;
    if (e.stage != stage || e.offset != offset || !strstr(e.message, substr)) {
        fprintf(stderr, "'%s': got stage %d offset %u '%s', want %d %u '...%s...'\n", text, e.stage,
                e.offset, e.message, stage, offset, substr);
        check_failures++;
    }
    CHECK(e.message[0] >= 'a' && e.message[0] <= 'z');
}

static void test_parse(void)
{
    /* every stage, as the table's example */
    for (size_t i = 0; i < qr_pipeline_stage_count(); i++) {
        const qr_pipeline_stage_info *s = qr_pipeline_stage_at(i);
        char text[200];
        snprintf(text, sizeof text, "%s%s", s->kind == QR_STAGE_GENERATOR ? "" : "all | ",
                 s->example);
        qr_pipeline *p = parse_ok(text);
        CHECK(p && qr_pipeline_count(p) == (s->kind == QR_STAGE_GENERATOR ? 1u : 2u));
        qr_pipeline_free(p);
    }
    CHECK(qr_pipeline_stage_at(qr_pipeline_stage_count()) == NULL);
    check_text("all|type:episodic |  sort:weight,asc| limit:20",
               "all | type:episodic | sort:weight,asc | limit:20");
    check_text("type:semantic", "all | type:semantic");
    check_text("sort:key", "all | sort:key");
    check_text("!type:semantic | limit:3", "all | !type:semantic | limit:3");
    check_text("btree journal | spread", "match:btree journal | spread");
    check_text("B-tree", "match:B-tree");
    check_text("match:\"spreading activation\" btree", "match:\"spreading activation\" btree");
    check_text("all | spread,max_hops=2, edge_decay=0.25 | spectral,k=3",
               "all | spread,max_hops=2, edge_decay=0.25 | spectral,k=3");
    check_text("all | not-visited:linker,7d | visited:linker | age:<=24h | age:>30m | "
               "key-len:>=60 | content-len:>1000 | weight:0.5 | degree:>3 | community:2 | "
               "provenance:agent:* | tag:todo | key:journal#*",
               "all | not-visited:linker,7d | visited:linker | age:<=24h | age:>30m | "
               "key-len:>=60 | content-len:>1000 | weight:0.5 | degree:>3 | community:2 | "
               "provenance:agent:* | tag:todo | key:journal#*");
    {
        const char *st[] = {"all", " type:episodic ", "limit:5"};
        qr_pipeline *p = NULL;
        qr_pipeline_error e;
        CHECK(qr_pipeline_parse_stages(st, 3, &p, &e) == QR_OK);
        qr_buf b;
        qr_buf_init(&b);
        if (p)
            qr_pipeline_text(p, &b);
        CHECK_STR(b.p, "all | type:episodic | limit:5");
        qr_buf_release(&b);
        qr_pipeline_free(p);
        const char *bad[] = {"all", "sprad"};
        CHECK(qr_pipeline_parse_stages(bad, 2, &p, &e) == QR_EINVAL);
        CHECK(e.stage == 1 && e.offset == 6 && strstr(e.message, "did you mean 'spread'?"));
    }

    check_err("all | sprad", 1, 6,
              "stage 2 'sprad' at byte 6: unknown stage 'sprad'; did you "
              "mean 'spread'?");
    check_err("sprad", 0, 0, "write match:sprad");
    check_err("all | frobnicate:3", 1, 6, "unknown stage 'frobnicate'; stages: all, match,");
    check_err("all | spread,max_hop=2", 1, 13,
              "unknown parameter 'max_hop' of spread; did you mean 'max_hops'?");
    check_err("all | spread,max_hops=11", 1, 22, "'max_hops' must be an integer in [0, 10]");
    /* out of range before it is made an integer (no undefined conversion) */
    check_err("all | spread,max_hops=1e20", 1, 22, "'max_hops' must be an integer in [0, 10]");
    check_err("all | spread,max_hops=-1e300", 1, 22, "'max_hops' must be an integer in [0, 10]");
    check_err("all | spread,max_hops=2.5", 1, 22, "'max_hops' must be an integer in [0, 10]");
    check_err("all | spread,edge_decay=0", 1, 24, "must be a number in (0, 1]");
    check_err("all | spread,max_hops=2,max_hops=3", 1, 24, "given twice");
    check_err("all | spread:max_hops=2", 1, 12, "takes parameters after ','");
    check_err("all | spectral,k=1001", 1, 17, "'k' must be an integer in [1, 1000]");
    check_err("all | spectral,k=2.5", 1, 17, "must be an integer");
    check_err("all | spectral,k", 1, 15, "parameter 'k' has no value");
    check_err("spread", 0, 0, "needs seeds");
    check_err("all | all", 1, 6, "must be the first stage");
    check_err("all | match:x", 1, 6, "must be the first stage");
    check_err("all | !sort:weight", 1, 6, "'!' negates filters only; 'sort' is a transform");
    check_err("all | !", 1, 6, "'!' must be followed by a filter");
    check_err("all || limit:2", 1, 5, "stage 2 is empty");
    check_err("all | ", 1, 5, "stage 2 is empty");
    check_err("", -1, 0, "empty pipeline");
    check_err("  ", -1, 0, "empty pipeline");
    check_err("all | limit:2000000", 1, 12, "an integer from 0 to 1000000");
    check_err("all | limit:-1", 1, 12, "an integer from 0 to 1000000");
    check_err("all | limit", 1, 11, "'limit' needs an argument: limit:N");
    check_err("all | limit:", 1, 12, "'limit' needs an argument");
    check_err("all | age:<7x", 1, 10, "duration like age:<7d");
    check_err("all | weight:>abc", 1, 13, "expected a comparison like weight:>0.5");
    check_err("all | sort:wieght", 1, 11, "unknown sort field 'wieght'; did you mean 'weight'?");
    check_err("all | sort:weight,up", 1, 11, "expected asc or desc");
    check_err("all | type:Episodic", 1, 11, "type 'Episodic' is not a word");
    check_err("all | not-visited:linker,0d", 1, 18, "expected a duration after 'linker,'");
    check_err("all | not-visited:linker,", 1, 18, "expected a duration");
    check_err("all | tag:a b", 1, 10, "white space");
    check_err("all | type,episodic", 1, 10, "takes its argument after ':'");
    check_err("all | all:x", 1, 9, "'all' takes no argument");
    check_err("all | type episodic", 1, 10, "separate stages with '|'");
    check_err("match:\"open", 0, 6, "unclosed");
    check_err("all | \x01", -1, 6, "control character 0x01");
    check_err("all | \xff", -1, 0, "not valid UTF-8");
    {
        /* limits: 64 stages, 64 KiB */
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "all");
        for (int i = 0; i < 63; i++)
            qr_buf_puts(&b, " | limit:5");
        qr_pipeline *p = parse_ok(b.p);
        CHECK(p && qr_pipeline_count(p) == 64);
        qr_pipeline_free(p);
        qr_buf_puts(&b, " | limit:5");
        qr_pipeline_error e;
        CHECK(qr_pipeline_parse(b.p, b.len, &p, &e) == QR_EINVAL && strstr(e.message, "too many "
                                                                                      "stages"));
        CHECK(e.stage == QR_PIPELINE_MAX_STAGES); /* the 65th, named by its index 64 */
        /* more stages past the limit name the same first one (the fuzzer found stage 65) */
        qr_buf_puts(&b, " | limit:5 | limit:5");
        CHECK(qr_pipeline_parse(b.p, b.len, &p, &e) == QR_EINVAL && !p &&
              e.stage == QR_PIPELINE_MAX_STAGES && strstr(e.message, "stage 65 "));
        qr_buf_reset(&b);
        qr_buf_puts(&b, "match:");
        while (b.len <= QR_PIPELINE_MAX_TEXT)
            qr_buf_puts(&b, "word ");
        CHECK(qr_pipeline_parse(b.p, b.len, &p, &e) == QR_EINVAL &&
              strstr(e.message, "pipeline too long"));
        qr_buf_release(&b);
    }
}

/* ---- the store ---- */

typedef struct tnode {
    const char *key, *type, *content, *prov, *tag;
    double weight;
    int64_t age_days; /* created = modified = T0 - age */
} tnode;

static const tnode nodes[] = {
    {"btree", "semantic", "A btree keeps keys sorted; linking pages speeds scans.", "", "db", 0.9,
     30},
    {"lsm-tree", "semantic", "An LSM tree buffers writes and merges sorted runs.", "", NULL, 0.6,
     60},
    {"fts5", "semantic", "Full-text search with porter stemming.", "agent:linker", NULL, 0.3, 1},
    {"journal#2026-03-01", "episodic-daily", "Linked the btree notes to the journal.", "", "todo",
     0.4, 9},
    {"journal#2026-03-08", "episodic-session", "Spreading activation over the graph.", "", "todo",
     0.7, 2},
    {"a1", "semantic", "pages", "", NULL, 0.5, 20},
    {"b1", "semantic", "runs", "", NULL, 0.5, 20},
    {"b2", "semantic", "merges", "", NULL, 0.2, 15},
    {"odd", "episodicx", "not in the episodic family", "", NULL, 0.5, 5},
    {"lonely", "semantic", "no links at all, a long note about nothing in particular", "", NULL,
     0.8, 100},
};
#define NNODES (sizeof nodes / sizeof nodes[0])

static const struct {
    const char *a, *b;
    double s;
} links[] = {
    {"btree", "lsm-tree", 0.9},
    {"btree", "journal#2026-03-01", 0.8},
    {"btree", "a1", 0.7},
    {"lsm-tree", "a1", 0.6},
    {"lsm-tree", "journal#2026-03-01", 0.5},
    {"fts5", "journal#2026-03-08", 0.9},
    {"fts5", "b1", 0.8},
    {"fts5", "b2", 0.7},
    {"b1", "b2", 0.9},
    {"journal#2026-03-08", "b1", 0.6},
    {"a1", "b1", 0.1},
    {"odd", "b2", 0.5},
};

static qr_mem *build_store(void)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_mem *m = NULL;
    snprintf(store, sizeof store, "%s/m.db", dir);
    CHECK(qr_mem_open(&m, store, QR_MEM_CREATE, &err) == QR_OK);
    for (size_t i = 0; i < NNODES; i++) {
        qr_mem_node n = {0};
        n.key = nodes[i].key;
        n.type = nodes[i].type;
        n.content = nodes[i].content;
        n.provenance = nodes[i].prov;
        n.weight = nodes[i].weight;
        n.created = n.modified = T0 - nodes[i].age_days * DAY;
        const char *tags[1] = {nodes[i].tag};
        n.tags = tags;
        n.ntags = nodes[i].tag ? 1 : 0;
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        CHECK(qr_mem_link(m, links[i].a, links[i].b, links[i].s, NULL, NULL, &err) == QR_OK);
    CHECK(qr_mem_visit(m, "btree", "linker", T0 - 3 * DAY, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "journal#2026-03-01", "linker", T0 - 40 * DAY, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "fts5", "linker", T0 - 8 * DAY, "ok", &err) == QR_OK);
    CHECK(qr_mem_visit(m, "fts5", "linker", T0 - 20 * DAY, "ok", &err) == QR_OK);
    if (err.len)
        fprintf(stderr, "store: %s\n", err.p);
    qr_buf_release(&err);
    return m;
}

/* Runs text and returns the keys as "k1 k2 ..." (static buffer). */
static char got[4096];
static const char *keys_of(qr_mem *m, const char *text)
{
    got[0] = 0;
    qr_pipeline *p = parse_ok(text);
    if (!p)
        return "(parse error)";
    qr_pipeline_result r = {0};
    qr_buf err;
    qr_buf_init(&err);
    qr_pipeline_run_opts o = {0};
    o.now = T0;
    o.no_file_cache = true;
    int rc = qr_pipeline_run_ex(p, m, &o, &r, &err);
    if (rc) {
        snprintf(got, sizeof got, "(error %d: %s)", rc, err.p ? err.p : "");
    } else {
        size_t used = 0;
        for (size_t i = 0; i < r.n && used < sizeof got; i++)
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", i ? " " : "",
                                     r.snap->key[r.hits[i].node]);
    }
    qr_buf_release(&err);
    qr_pipeline_result_clear(&r);
    qr_pipeline_free(p);
    return got;
}

#define CHECK_KEYS(m, text, want) CHECK_STR(keys_of(m, text), want)

static void test_filters(qr_mem *m)
{
    CHECK_KEYS(m, "all",
               "btree lsm-tree fts5 journal#2026-03-01 journal#2026-03-08 a1 b1 b2 odd lonely");
    CHECK_KEYS(m, "type:episodic", "journal#2026-03-01 journal#2026-03-08");
    CHECK_KEYS(m, "type:episodic-daily", "journal#2026-03-01");
    CHECK_KEYS(m, "type:episodicx", "odd");
    CHECK_KEYS(m, "all | !type:semantic | sort:key", "journal#2026-03-01 journal#2026-03-08 odd");
    CHECK_KEYS(m, "key:journal#*", "journal#2026-03-01 journal#2026-03-08");
    CHECK_KEYS(m, "key:btree", "btree");
    CHECK_KEYS(m, "key:[bl]*", "btree lsm-tree b1 b2 lonely");
    CHECK_KEYS(m, "key:?1", "a1 b1");
    CHECK_KEYS(m, "key:*-03-0[!1]", "journal#2026-03-08");
    CHECK_KEYS(m, "key-len:>=18", "journal#2026-03-01 journal#2026-03-08");
    CHECK_KEYS(m, "key-len:2", "a1 b1 b2");
    CHECK_KEYS(m, "weight:>0.6", "btree journal#2026-03-08 lonely");
    CHECK_KEYS(m, "weight:0.3", "fts5");
    CHECK_KEYS(m, "weight:<=0.3", "fts5 b2");
    CHECK_KEYS(m, "age:<7d", "fts5 journal#2026-03-08 odd");
    CHECK_KEYS(m, "age:>=60d", "lsm-tree lonely");
    CHECK_KEYS(m, "age:<49h", "fts5 journal#2026-03-08");
    CHECK_KEYS(m, "content-len:>50", "btree lonely");
    CHECK_KEYS(m, "content-len:<6", "a1 b1");
    CHECK_KEYS(m, "provenance:agent:*", "fts5");
    CHECK_KEYS(m, "tag:todo", "journal#2026-03-01 journal#2026-03-08");
    CHECK_KEYS(m, "tag:nope", "");
    CHECK_KEYS(m, "degree:0", "lonely");
    CHECK_KEYS(m, "degree:>=4", "b1");
    CHECK_KEYS(m, "degree:3", "btree lsm-tree fts5 a1 b2");
    CHECK_KEYS(m, "not-visited:linker,7d | sort:key",
               "a1 b1 b2 fts5 journal#2026-03-01 journal#2026-03-08 lonely lsm-tree odd");
    CHECK_KEYS(m, "visited:linker", "btree fts5 journal#2026-03-01");
    CHECK_KEYS(m, "visited:linker,7d", "btree");
    CHECK_KEYS(m, "visited:linker,8d", "btree fts5");
    CHECK_KEYS(m, "not-visited:linker | limit:3", "lsm-tree journal#2026-03-08 a1");
    CHECK_KEYS(m, "not-visited:ghost | limit:2", "btree lsm-tree");
    CHECK_KEYS(m, "visited:ghost", "");
    CHECK_KEYS(m, "!visited:linker,7d | type:episodic", "journal#2026-03-01 journal#2026-03-08");
}

static void test_sorts(qr_mem *m)
{
    CHECK_KEYS(m, "sort:weight | limit:3", "btree lonely journal#2026-03-08");
    /* a1, b1 and odd weigh 0.5: ties by key */
    CHECK_KEYS(m, "sort:weight,asc",
               "b2 fts5 journal#2026-03-01 a1 b1 odd lsm-tree "
               "journal#2026-03-08 lonely btree");
    CHECK_KEYS(m, "sort:key | limit:4", "a1 b1 b2 btree");
    /* sort then a small limit takes the partial sort: the same rows as the full one */
    CHECK_KEYS(m, "sort:weight,asc | limit:2", "b2 fts5");
    CHECK_KEYS(m, "sort:degree | limit:2", "b1 a1");
    CHECK_KEYS(m, "sort:weight | limit:1", "btree");
    CHECK_KEYS(m, "sort:weight | limit:100 | limit:1", "btree");
    CHECK_KEYS(m, "sort:key,desc | limit:3", "odd lsm-tree lonely");
    CHECK_KEYS(m, "sort:timestamp | limit:3", "fts5 journal#2026-03-08 odd");
    CHECK_KEYS(m, "sort:timestamp,asc | limit:2", "lonely lsm-tree");
    CHECK_KEYS(m, "sort:created | limit:1", "fts5");
    /* degree 4: b1; 3: btree, lsm-tree, fts5, a1, b2; 2: the journals (ties by key) */
    CHECK_KEYS(m, "sort:degree | limit:7", "b1 a1 b2 btree fts5 lsm-tree journal#2026-03-01");
    CHECK_KEYS(m, "sort:content-len | limit:2", "lonely btree");
    CHECK_KEYS(m, "sort:key-len,asc | limit:3", "a1 b1 b2");
    CHECK_KEYS(m, "all | limit:0", "");
    CHECK_KEYS(m, "all | limit:2 | sort:key,desc", "lsm-tree btree");
}

static void test_match_and_graph(qr_mem *m)
{
    /* stemming: "linking" finds "linking", "Linked" and "links" */
    const char *k = keys_of(m, "match:linking | sort:key");
    CHECK_STR(k, "btree journal#2026-03-01 lonely");
    CHECK_KEYS(m, "linking | sort:key", "btree journal#2026-03-01 lonely");
    CHECK_KEYS(m, "match:\"porter stemming\"", "fts5");
    CHECK_KEYS(m, "match:\"stemming porter\"", "");
    CHECK_KEYS(m, "match:zzzz", "");
    CHECK_KEYS(m, "match:-- | limit:3", "");
    /* spread from the match: btree's neighbours within a hop, the seed first */
    CHECK_KEYS(m, "match:btree | spread,max_hops=1 | sort:key",
               "a1 btree journal#2026-03-01 lsm-tree");
    k = keys_of(m, "match:\"keeps keys\" | spread,max_hops=1,edge_decay=1");
    CHECK(!strncmp(k, "btree lsm-tree", 14));
    /* an empty set gives no seeds: empty, not an error */
    CHECK_KEYS(m, "key:nothing | spread", "");
    CHECK_KEYS(m, "key:nothing | spectral", "");
    /* confluence: reached from both btree and fts5 within 2 hops */
    CHECK_KEYS(m, "key:btree | spread,max_hops=0", "btree");
    CHECK_KEYS(m, "key:[bf]t* | sort:key", "btree fts5");
    CHECK_KEYS(m, "key:[bf]t* | confluence,max_hops=2 | sort:key", "a1 b1");
    CHECK_KEYS(m, "key:[bf]t* | confluence,max_hops=2,min_seeds=3", "");
    /* the nearest in the embedding is in btree's group */
    k = keys_of(m, "key:btree | spectral,k=1");
    CHECK(!strcmp(k, "lsm-tree") || !strcmp(k, "a1") || !strcmp(k, "journal#2026-03-01"));
    CHECK_KEYS(m, "key:btree | spectral,k=1000 | key:btree", "");
    /* geodesic between btree and fts5 runs over a1 and b1 */
    k = keys_of(m, "key:[bf]t* | geodesic,max_hops=3,min_alignment=0 | sort:key");
    CHECK_STR(k, "a1 b1");
    /* one seed has no direction: a runtime error naming the stage */
    k = keys_of(m, "key:btree | manifold");
    CHECK(!strncmp(k, "(error -3: stage 2 'manifold': ", 31));
}

static void test_communities(qr_mem *m)
{
    const qr_mem_snapshot *s;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_snapshot_get(m, &s, &err) == QR_OK);
    qr_graph_communities c;
    CHECK(qr_graph_community(&s->graph, NULL, &c, &err) == QR_OK);
    for (uint32_t id = 0; id < c.count; id++) {
        char text[64], want[512];
        snprintf(text, sizeof text, "community:%u | sort:key", id);
        /* the members, in key order */
        const char *mem[NNODES];
        size_t nm = 0;
        for (uint32_t i = 0; i < s->n; i++)
            if (c.of[i] == id)
                mem[nm++] = s->key[i];
        for (size_t a = 1; a < nm; a++)
            for (size_t b = a; b > 0 && strcmp(mem[b - 1], mem[b]) > 0; b--) {
                const char *t = mem[b];
                mem[b] = mem[b - 1];
                mem[b - 1] = t;
            }
        size_t used = 0;
        want[0] = 0;
        for (size_t a = 0; a < nm; a++)
            used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", a ? " " : "", mem[a]);
        CHECK_KEYS(m, text, want);
    }
    /* the planted split: btree and fts5 are apart, btree with lsm-tree */
    int64_t bt = qr_mem_snapshot_find(s, "btree", 5), ft = qr_mem_snapshot_find(s, "fts5", 4),
            ls = qr_mem_snapshot_find(s, "lsm-tree", 8);
    CHECK(c.of[bt] != c.of[ft] && c.of[bt] == c.of[ls]);
    qr_graph_communities_release(&c);
    qr_mem_snapshot_release(s);
    qr_buf_release(&err);
}

/* sort:priority against the formula of docs/pipeline.md, computed here */
static void test_priority(qr_mem *m)
{
    const qr_mem_snapshot *s;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_snapshot_get(m, &s, &err) == QR_OK);
    qr_graph_spectral_params sp;
    qr_graph_spectral_params_init(&sp);
    sp.dim = QR_PIPELINE_SPECTRAL_DIM;
    qr_graph_embedding *e = NULL;
    qr_graph_communities c;
    CHECK(qr_graph_spectral(&s->graph, &sp, &e, &err) == QR_OK);
    CHECK(qr_graph_community(&s->graph, NULL, &c, &err) == QR_OK);
    double dist[NNODES];
    CHECK(qr_graph_centroid_distance(e, &c, dist, &err) == QR_OK);
    int64_t agent = qr_mem_snapshot_agent(s, "linker");
    for (int variant = 0; variant < 2; variant++) {
        /* variant 0: a not-visited stage whose agent has no visits (ref: creation);
         * variant 1: none (ref: modification); both with the 7 day horizon */
        double want[NNODES];
        for (uint32_t i = 0; i < s->n; i++) {
            int64_t ref = variant == 0 ? s->created[i] : s->modified[i];
            double overdue = log2(1.0 + (double)(T0 - ref) / (7.0 * DAY));
            double iso = s->graph.off[i + 1] == s->graph.off[i] ? 2.0 : dist[i];
            want[i] = overdue * (0.5 + iso) * (0.5 + (double)s->weight[i]);
        }
        const char *text =
            variant == 0 ? "all | not-visited:ghost | sort:priority" : "all | sort:priority";
        qr_pipeline *p = parse_ok(text);
        qr_pipeline_result r = {0};
        qr_pipeline_run_opts o = {0};
        o.now = T0;
        o.no_file_cache = true;
        CHECK(p && qr_pipeline_run_ex(p, m, &o, &r, &err) == QR_OK);
        CHECK(r.n == s->n);
        for (size_t k = 0; k < r.n; k++) {
            uint32_t i = r.hits[k].node;
            CHECK(fabs(r.hits[k].score - want[i]) < 1e-9 * (1 + want[i]));
            if (k) {
                uint32_t j = r.hits[k - 1].node;
                CHECK(want[j] > want[i] ||
                      (want[j] == want[i] && strcmp(s->key[j], s->key[i]) < 0));
            }
        }
        qr_pipeline_result_clear(&r);
        qr_pipeline_free(p);
    }
    /* the linker's visits: fts5 was visited 8 days ago (its last visit), btree 3 */
    {
        qr_pipeline *p = parse_ok("all | not-visited:linker,14d | sort:priority");
        qr_pipeline_result r = {0};
        qr_pipeline_run_opts o = {0};
        o.now = T0;
        o.no_file_cache = true;
        CHECK(p && qr_pipeline_run_ex(p, m, &o, &r, &err) == QR_OK);
        for (size_t k = 0; k < r.n; k++) {
            uint32_t i = r.hits[k].node;
            int64_t last = qr_mem_snapshot_last_visit(s, agent, i);
            int64_t ref = last ? last : s->created[i];
            double overdue = log2(1.0 + (double)(T0 - ref) / (14.0 * DAY));
            double iso = s->graph.off[i + 1] == s->graph.off[i] ? 2.0 : dist[i];
            double w = overdue * (0.5 + iso) * (0.5 + (double)s->weight[i]);
            CHECK(fabs(r.hits[k].score - w) < 1e-9 * (1 + w));
            CHECK(strcmp(s->key[i], "btree") != 0); /* visited 3 days ago: filtered */
        }
        qr_pipeline_result_clear(&r);
        qr_pipeline_free(p);
    }
    qr_graph_embedding_free(e);
    qr_graph_communities_release(&c);
    qr_mem_snapshot_release(s);
    qr_buf_release(&err);
}

static void run_with_stats(qr_mem *m, qr_pipeline_cache *cache, const char *text, bool no_file,
                           qr_pipeline_result_stats *st, size_t *n)
{
    qr_pipeline *p = parse_ok(text);
    qr_pipeline_result r = {0};
    qr_buf err;
    qr_buf_init(&err);
    qr_pipeline_run_opts o = {0};
    o.now = T0;
    o.cache = cache;
    o.no_file_cache = no_file;
    o.stats = st;
    CHECK(p && qr_pipeline_run_ex(p, m, &o, &r, &err) == QR_OK);
    *n = r.n;
    qr_pipeline_result_clear(&r);
    qr_pipeline_free(p);
    qr_buf_release(&err);
}

static void test_cache_and_stats(qr_mem *m)
{
    char file[200];
    snprintf(file, sizeof file, "%s.spectral", store);
    unlink(file);
    qr_pipeline_cache *c = qr_pipeline_cache_new();
    qr_pipeline_result_stats st = {0};
    size_t n;
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(n == 3 && st.nstats == 3);
    CHECK(st.stats[0].count == NNODES && !strcmp(st.stats[0].stage, "all (implicit)"));
    CHECK(st.stats[1].count == 1 && !strcmp(st.stats[1].stage, "key:btree"));
    CHECK(st.stats[2].count == 3 && strstr(st.stats[2].note, "embedding: computed") &&
          strstr(st.stats[2].note, "saved to"));
    qr_pipeline_stats_clear(&st);
    struct stat sb;
    CHECK(stat(file, &sb) == 0 && sb.st_size > 72);
    /* the same cache: in memory */
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(st.nstats == 3 && strstr(st.stats[2].note, "embedding: in memory"));
    qr_pipeline_stats_clear(&st);
    qr_pipeline_cache_free(c);
    /* a new cache: from the file */
    c = qr_pipeline_cache_new();
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(n == 3 && st.nstats == 3 && strstr(st.stats[2].note, "embedding: loaded from"));
    qr_pipeline_stats_clear(&st);
    qr_pipeline_cache_free(c);
    /* a corrupt file is ignored and rewritten */
    FILE *f = fopen(file, "r+b");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 100, SEEK_SET);
        fputc(0x5a, f);
        fclose(f);
    }
    c = qr_pipeline_cache_new();
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(n == 3 && st.nstats == 3 && strstr(st.stats[2].note, "embedding: computed"));
    qr_pipeline_stats_clear(&st);
    qr_pipeline_cache_free(c);
    /* a truncated one too */
    CHECK(truncate(file, 50) == 0);
    c = qr_pipeline_cache_new();
    run_with_stats(m, c, "community:0", false, &st, &n);
    CHECK(st.nstats == 2 && strstr(st.stats[1].note, "communities:") &&
          strstr(st.stats[1].note, "computed"));
    qr_pipeline_stats_clear(&st);
    /* a graph change makes the cache stale: a new link */
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_link(m, "lonely", "odd", 0.5, NULL, NULL, &err) == QR_OK);
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(st.nstats == 3 && strstr(st.stats[2].note, "embedding: computed"));
    qr_pipeline_stats_clear(&st);
    /* a content change does not */
    qr_mem_update u = {0};
    u.content = "changed";
    CHECK(qr_mem_node_update(m, "lonely", &u, &err) == QR_OK);
    run_with_stats(m, c, "key:btree | spectral,k=3", false, &st, &n);
    CHECK(st.nstats == 3 && strstr(st.stats[2].note, "embedding: in memory"));
    qr_pipeline_stats_clear(&st);
    CHECK(qr_mem_unlink(m, "lonely", "odd", NULL, NULL, &err) == QR_OK);
    qr_pipeline_cache_free(c);
    qr_buf_release(&err);
}

static qr_val read1(qr_arena *a, const char *edn)
{
    qr_val v;
    qr_read_error re;
    if (qr_read_all(a, edn, strlen(edn), QR_READ_EDN, &v, &re) != QR_OK || qr_vec_len(v) != 1) {
        check_failures++;
        return qr_nil();
    }
    return qr_vec_at(v, 0);
}

static void test_tool(void)
{
    qr_tools *r = qr_tools_default();
    CHECK(r != NULL);
    if (!r)
        return;
    const qr_tool *t = qr_tools_find(r, "memory_query", 12);
    CHECK(t && t->caps == QR_TOOL_READS_MEMORY);
    qr_host h;
    qr_host_init(&h, NULL);
    h.mem.memory_path = store;
    qr_tools_set_ctx(r, &h);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val args = read1(&a, "{:pipeline \"type:episodic | sort:weight\" :limit 1}");
    qr_val out;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_tools_call(r, "memory_query", NULL, args, &a, &out, &err) == QR_OK);
    qr_buf b;
    qr_buf_init(&b);
    qr_print(&b, out, QR_PRINT_READABLY);
    CHECK_STR(b.p, "[{:key \"journal#2026-03-08\", :type \"episodic-session\", :weight 0.7, "
                   ":score 1.0, :modified \"2026-03-08T00:00:00Z\", :content \"Spreading "
                   "activation over the graph.\"}]");
    CHECK(h.mem.mem != NULL && h.mem.pipeline_cache != NULL);
    /* a bad pipeline: the parser's message */
    qr_buf_reset(&err);
    args = read1(&a, "{:pipeline \"all | sprad\"}");
    CHECK(qr_tools_call(r, "memory_query", NULL, args, &a, &out, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "tool 'memory_query': pipeline: stage 2 'sprad' at byte 6: "
                                 "unknown stage 'sprad'; did you mean 'spread'?"));
    /* a program names only the configured store: the same name, or the same file by
     * another name, works */
    char named[600];
    snprintf(named, sizeof named, "{:pipeline \"all\" :limit 1 :store \"%s\"}", store);
    qr_buf_reset(&err);
    CHECK(qr_tools_call(r, "memory_query", NULL, read1(&a, named), &a, &out, &err) == QR_OK);
    snprintf(named, sizeof named, "{:pipeline \"all\" :limit 1 :store \"%s/./%s\"}", dir,
             strrchr(store, '/') + 1);
    qr_buf_reset(&err);
    CHECK(qr_tools_call(r, "memory_query", NULL, read1(&a, named), &a, &out, &err) == QR_OK);
    /* any other name gets one message, whatever it names: missing, a directory, a file
     * that is not SQLite, another store; nothing is opened or written */
    const char *refused = "tool 'memory_query': 'store' may only name the memory store this "
                          "session was given (--store or QUARRY_MEMORY); leave 'store' out to "
                          "use it";
    char other[300], text[300];
    snprintf(other, sizeof other, "%s/other.db", dir);
    snprintf(text, sizeof text, "%s/text.txt", dir);
    qr_mem *om;
    CHECK(qr_mem_open(&om, other, QR_MEM_CREATE, &err) == QR_OK);
    qr_mem_close(om);
    CHECK(qr_write_file_atomic(text, "not sqlite", 10, 0600) == QR_OK);
    const char *names[] = {"/etc/passwd", "/nonexistent/none.db", dir, text, other};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(named, sizeof named, "{:pipeline \"all\" :store \"%s\"}", names[i]);
        qr_buf_reset(&err);
        CHECK(qr_tools_call(r, "memory_query", NULL, read1(&a, named), &a, &out, &err) == QR_EINVAL);
        CHECK_STR(err.p, refused);
    }
    snprintf(named, sizeof named, "%s.snapshot", other);
    CHECK(access(named, F_OK) != 0); /* the other store was not opened */
    /* a NUL inside the name is refused by the parameter check, not cut */
    qr_buf_reset(&err);
    args = read1(&a, "{:pipeline \"all\" :store \"a\\u0000b\"}");
    CHECK(qr_tools_call(r, "memory_query", NULL, args, &a, &out, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "parameter 'store' holds a NUL character"));
    /* a host that lets a person name any store (quarry tool) opens it */
    h.mem.any_store = true;
    qr_buf_reset(&err);
    snprintf(named, sizeof named, "{:pipeline \"all\" :store \"%s\"}", other);
    CHECK(qr_tools_call(r, "memory_query", NULL, read1(&a, named), &a, &out, &err) == QR_OK);
    CHECK(out.t == QR_T_VEC && qr_vec_len(out) == 0);
    CHECK(h.mem.mem && !strcmp(qr_mem_path(h.mem.mem), other));
    h.mem.any_store = false;
    /* no store */
    h.mem.memory_path = NULL;
    qr_mem_close(h.mem.mem);
    h.mem.mem = NULL;
    qr_buf_reset(&err);
    unsetenv("QUARRY_MEMORY");
    args = read1(&a, "{:pipeline \"all\"}");
    CHECK(qr_tools_call(r, "memory_query", NULL, args, &a, &out, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "no memory store"));
    qr_buf_release(&b);
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_host_release(&h);
    qr_tools_free(r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/quarry-pipeline-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse();
    qr_mem *m = build_store();
    if (m) {
        test_filters(m);
        test_sorts(m);
        test_match_and_graph(m);
        test_communities(m);
        test_priority(m);
        test_cache_and_stats(m);
        qr_mem_close(m);
        test_tool();
    }
    remove_dir();
    CHECK_DONE();
}
