/*
 * test_mem_agent.c: memory agents as files (quarry/mem_agent.h): valid agent
 * files and every kind of invalid one with its exact message and line; the
 * template filled for a fixed store and a fixed `now`, byte for byte; replies
 * in each accepted form and every kind of invalid action; a plan applied to a
 * real store and read back; the schedule rule and the state file; the daemon's
 * loop (one round, and a stopped request).
 */
#include "check.h"

#include "quarry/mem_agent.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static const char valid_agent[] = "# the linker\n"
                                  "[query]\n"
                                  "pipeline = \"all | type:episodic | limit:20\"\n"
                                  "\n"
                                  "[prompt]\n"
                                  "template = \"\"\"\n"
                                  "Agent {{agent}} at {{now}}.\n"
                                  "{{nodes}}\n"
                                  "{{ topology }}\n"
                                  "\"\"\"\n"
                                  "\n"
                                  "[execution]\n"
                                  "model = \"sonnet\"\n"
                                  "actions = [\"link-add\", \"weight\"]\n"
                                  "schedule = \"6h\"\n";

static qr_mem_agent *parse(const char *text, qr_buf *err)
{
    qr_mem_agent *a = NULL;
    qr_buf_reset(err);
    int rc = qr_mem_agent_parse(&a, "linker", "agents/linker.toml", text, strlen(text), 0, err);
    CHECK((rc == QR_OK) == (a != NULL));
    return a;
}

static void test_valid(void)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = parse(valid_agent, &err);
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->name, "linker");
        CHECK_STR(a->pipeline_text, "all | type:episodic | limit:20");
        CHECK_STR(a->model, "sonnet");
        CHECK(a->actions == (QR_MEM_AGENT_LINK_ADD | QR_MEM_AGENT_WEIGHT));
        CHECK_STR(a->schedule, "6h");
        CHECK(a->period == 6 * 3600);
        CHECK(a->template_path == NULL);
        CHECK(!strncmp(a->template, "Agent {{agent}}", 15));
    }
    qr_mem_agent_free(a);

    /* defaults: no model, on-demand; template_file beside the agent file */
    write_file("t.md", "Look at {{nodes}}\n");
    write_file("reader.toml", "[query]\npipeline = \"all\"\n[prompt]\ntemplate_file = \"t.md\"\n"
                              "[execution]\nactions = []\n");
    char p[256];
    snprintf(p, sizeof p, "%s/reader.toml", tmpdir);
    a = NULL;
    CHECK(qr_mem_agent_load(&a, p, &err) == QR_OK);
    if (a) {
        CHECK_STR(a->name, "reader");
        CHECK(a->model == NULL);
        CHECK(a->actions == 0);
        CHECK_STR(a->schedule, "on-demand");
        CHECK(a->period == 0);
        CHECK_STR(a->template, "Look at {{nodes}}\n");
        char want[256];
        snprintf(want, sizeof want, "%s/t.md", tmpdir);
        CHECK_STR(a->template_path, want);
    }
    qr_mem_agent_free(a);
    qr_buf_release(&err);
}

static void expect_invalid(int line, const char *text, const char *want)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = NULL;
    int rc = qr_mem_agent_parse(&a, "linker", "agents/linker.toml", text, strlen(text), 0, &err);
    if (rc != QR_EINVAL || a || !err.p || !strstr(err.p, want)) {
        fprintf(stderr,
                "test_mem_agent.c:%d: rc %d, want error containing \"%s\", got "
                "\"%s\"\n",
                line, rc, want, err.p ? err.p : "");
        check_failures++;
    }
    qr_mem_agent_free(a);
    qr_buf_release(&err);
}
#define INVALID(text, want) expect_invalid(__LINE__, text, want)

#define Q "[query]\npipeline = \"all\"\n"
#define P "[prompt]\ntemplate = \"{{nodes}}\"\n"
#define E "[execution]\nactions = [\"weight\"]\n"

static void test_invalid(void)
{
    INVALID("[querry]\npipeline = \"all\"\n" P E,
            "agents/linker.toml:1: unknown table [querry]; did you mean [query]?");
    INVALID(Q P E "[extra]\n", "agents/linker.toml:7: unknown table [extra]: an agent file has");
    INVALID(Q P "[execution]\nactions = []\nshedule = \"daily\"\n",
            "agents/linker.toml:7: unknown key [execution] shedule; did you mean "
            "'schedule'?");
    INVALID(Q P "[execution]\nactions = []\ncolour = 1\n",
            "agents/linker.toml:7: unknown key [execution] colour; [execution] "
            "holds model, "
            "actions, schedule");
    INVALID(Q "[prompt]\ntemplate = \"x\"\nschedule = \"daily\"\n" E,
            "agents/linker.toml:5: key 'schedule' belongs in the [execution] "
            "table, not [prompt]");
    INVALID("pipeline = \"all\"\n" P E,
            "agents/linker.toml:1: key 'pipeline' belongs in the [query] table");
    INVALID("query = \"all\"\n" P E, "agents/linker.toml:1: 'query' must be a table");
    INVALID("[query]\n" P E, "agents/linker.toml:1: missing [query] pipeline");
    INVALID("[query]\npipeline = 3\n" P E,
            "agents/linker.toml:2: [query] pipeline must be a string, not");
    INVALID("[query]\npipeline = \"  \"\n" P E,
            "agents/linker.toml:2: [query] pipeline must not be empty");
    INVALID("[query]\npipeline = \"all | bogus:1\"\n" P E,
            "agents/linker.toml:2: [query] pipeline: ");
    INVALID(Q "[prompt]\n" E, "agents/linker.toml:3: missing [prompt] template");
    INVALID(Q E, "missing [prompt] table");
    INVALID(Q "[prompt]\ntemplate = \"a\"\ntemplate_file = \"b.md\"\n" E,
            "agents/linker.toml:5: [prompt] has both template and template_file; "
            "keep one");
    INVALID(Q "[prompt]\ntemplate = \"a\"\nplaceholders = [\"NODES\"]\n" E,
            "agents/linker.toml:5: [prompt] placeholders lists NODES, but the template has no "
            "{{NODES}}");
    INVALID(Q "[prompt]\ntemplate = \"{{nodes}}\"\nplaceholders = [\"EDGES\"]\n" E,
            "agents/linker.toml:5: [prompt] placeholders: item 1 is not NODES or TOPOLOGY");
    INVALID(Q "[prompt]\ntemplate = \"\"\"\nline one\nline two {{nodse}}\n\"\"\"\n" E,
            "agents/linker.toml:6: unknown placeholder {{nodse}} in the template; "
            "did you mean "
            "{{nodes}}?");
    INVALID(Q "[prompt]\ntemplate = \"x {{whatever}}\"\n" E,
            "agents/linker.toml:4: unknown placeholder {{whatever}} in the "
            "template; known:");
    INVALID(Q "[prompt]\ntemplate = \"x {{nodes\"\n" E,
            "agents/linker.toml:4: unclosed placeholder '{{'");
    INVALID(Q "[prompt]\ntemplate = \"{{node:}}\"\n" E, "unknown placeholder {{node:}}");
    INVALID(Q "[prompt]\ntemplate_file = \"no-such-file.md\"\n" E,
            "agents/linker.toml:4: cannot read template_file "
            "'agents/no-such-file.md'");
    INVALID(Q P "[execution]\nactions = [\"link-ad\"]\n",
            "agents/linker.toml:6: unknown action 'link-ad'; did you mean "
            "'link-add'?");
    INVALID(Q P "[execution]\nactions = [\"delete-everything\"]\n",
            "unknown action 'delete-everything': expected link-add, weight, "
            "write or refine");
    INVALID(Q P "[execution]\nactions = [\"weight\", \"weight\"]\n",
            "agents/linker.toml:6: action 'weight' is listed twice");
    INVALID(Q P "[execution]\nactions = \"weight\"\n",
            "[execution] actions must be a list of action names");
    INVALID(Q P "[execution]\nactions = [1]\n", "[execution] actions[0] must be a string");
    INVALID(Q P "[execution]\nschedule = \"daily\"\n",
            "agents/linker.toml:5: missing [execution] actions");
    INVALID(Q P, "missing [execution] table");
    INVALID(Q P E "schedule = \"sometimes\"\n",
            "agents/linker.toml:7: bad schedule \"sometimes\": expected daily, "
            "hourly, weekly, "
            "on-demand, or a duration");
    INVALID(Q P E "schedule = \"0h\"\n", "bad schedule \"0h\"");
    INVALID(Q P E "schedule = \"400d\"\n", "bad schedule \"400d\"");
    INVALID(Q P E "schedule = \"30s\"\n", "bad schedule \"30s\"");
    INVALID(Q P E "model = \"\"\n", "agents/linker.toml:7: [execution] model must not be empty");
    INVALID("[query\npipeline = \"all\"\n", "agents/linker.toml:1: ");
    INVALID("\xff\xfe", "agents/linker.toml:1: the agent file is not UTF-8 text");

    /* the name and the file */
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = NULL;
    const char *t = Q P E;
    CHECK(qr_mem_agent_parse(&a, "Linker", "agents/Linker.toml", t, strlen(t), 0, &err) ==
          QR_EINVAL);
    CHECK(err.p && strstr(err.p, "'Linker' is not an agent name"));
    qr_buf_reset(&err);
    const char *tf = Q "[prompt]\ntemplate_file = \"t.md\"\n" E;
    CHECK(qr_mem_agent_parse(&a, "x", "agents/x.toml", tf, strlen(tf), QR_MEM_AGENT_NO_FILES,
                             &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "template_file is not allowed here"));
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_load(&a, "/nonexistent/dir/x.toml", &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, "cannot read the agent file"));
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_load(&a, "/nonexistent/dir/x.txt", &err) == QR_EINVAL);
    /* a placeholder error inside a template file names that file and its line */
    write_file("bad.md", "first\nsecond {{topolgy}}\n");
    write_file("tb.toml", Q "[prompt]\ntemplate_file = \"bad.md\"\n" E);
    char p[256], want[300];
    snprintf(p, sizeof p, "%s/tb.toml", tmpdir);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_load(&a, p, &err) == QR_EINVAL);
    snprintf(want, sizeof want,
             "%s/bad.md:2: unknown placeholder {{topolgy}} in the template; "
             "did you mean {{topology}}?",
             tmpdir);
    CHECK_STR(err.p, want);
    CHECK(a == NULL);
    qr_buf_release(&err);
}

static void test_schedule(void)
{
    int64_t p = -1;
    CHECK(qr_mem_agent_schedule_parse("daily", 5, &p) == QR_OK && p == 86400);
    CHECK(qr_mem_agent_schedule_parse("hourly", 6, &p) == QR_OK && p == 3600);
    CHECK(qr_mem_agent_schedule_parse("weekly", 6, &p) == QR_OK && p == 604800);
    CHECK(qr_mem_agent_schedule_parse("on-demand", 9, &p) == QR_OK && p == 0);
    CHECK(qr_mem_agent_schedule_parse("30m", 3, &p) == QR_OK && p == 1800);
    CHECK(qr_mem_agent_schedule_parse("2d", 2, &p) == QR_OK && p == 172800);
    CHECK(qr_mem_agent_schedule_parse("1w", 2, &p) == QR_OK && p == 604800);
    CHECK(qr_mem_agent_schedule_parse("365d", 4, &p) == QR_OK);
    CHECK(qr_mem_agent_schedule_parse("366d", 4, &p) == QR_EINVAL);
    CHECK(qr_mem_agent_schedule_parse("m", 1, &p) == QR_EINVAL);
    CHECK(qr_mem_agent_schedule_parse("5", 1, &p) == QR_EINVAL);
    CHECK(qr_mem_agent_schedule_parse("5 h", 3, &p) == QR_EINVAL);
    CHECK(qr_mem_agent_schedule_parse("99999999999999999999h", 21, &p) == QR_EINVAL);

    qr_mem_agent a;
    memset(&a, 0, sizeof a);
    qr_mem_agent_state s;
    memset(&s, 0, sizeof s);
    int64_t next = -1;
    /* on-demand: never */
    CHECK(!qr_mem_agent_due(&a, &s, 1000000, &next) && next == 0);
    a.period = 86400;
    /* never ran: due */
    CHECK(qr_mem_agent_due(&a, &s, 1000000, &next) && next == 0);
    s.last_ok = s.last_attempt = 1000000;
    CHECK(!qr_mem_agent_due(&a, &s, 1000000 + 86399, &next) && next == 1000000 + 86400);
    CHECK(qr_mem_agent_due(&a, &s, 1000000 + 86400, NULL));
    /* a failed run: retried after min(period, 1 hour) */
    s.last_attempt = 1000000 + 90000;
    CHECK(!qr_mem_agent_due(&a, &s, 1000000 + 90000 + 3599, &next) &&
          next == 1000000 + 90000 + 3600);
    CHECK(qr_mem_agent_due(&a, &s, 1000000 + 90000 + 3600, NULL));
    a.period = 600;
    CHECK(qr_mem_agent_due(&a, &s, 1000000 + 90000 + 600, NULL));
}

static void test_state(void)
{
    char store[256], sp[300];
    snprintf(store, sizeof store, "%s/m.db", tmpdir);
    qr_buf b, err;
    qr_buf_init(&b);
    qr_buf_init(&err);
    qr_mem_agent_state_path(store, &b);
    snprintf(sp, sizeof sp, "%s.agents.json", store);
    CHECK_STR(b.p, sp);
    qr_mem_agent_state s;
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK);
    CHECK(s.last_ok == 0 && s.last_attempt == 0 && !s.error[0]);
    CHECK(qr_mem_agent_state_record(sp, "linker", 1000, true, NULL, &err) == QR_OK);
    CHECK(qr_mem_agent_state_record(sp, "other", 1500, true, NULL, &err) == QR_OK);
    CHECK(qr_mem_agent_state_record(sp, "linker", 2000, false, "the \"model\" failed", &err) ==
          QR_OK);
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK);
    CHECK(s.last_ok == 1000 && s.last_attempt == 2000);
    CHECK_STR(s.error, "the \"model\" failed");
    CHECK(qr_mem_agent_state_get(sp, "other", &s, &err) == QR_OK);
    CHECK(s.last_ok == 1500 && s.last_attempt == 1500 && !s.error[0]);
    CHECK(qr_mem_agent_state_record(sp, "linker", 3000, true, NULL, &err) == QR_OK);
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK);
    CHECK(s.last_ok == 3000 && !s.error[0]);
    /* no temporary file left behind */
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", sp, (long)getpid());
    CHECK(access(tmp, F_OK) != 0);
    /* a file in another format is an error, not silently replaced */
    FILE *f = fopen(sp, "w");
    fputs("[1, 2]", f);
    fclose(f);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_EIO);
    CHECK(err.p && strstr(err.p, "is not in its format"));
    CHECK(qr_mem_agent_state_record(sp, "linker", 4000, true, NULL, &err) == QR_EIO);
    unlink(sp);
    qr_buf_release(&b);
    qr_buf_release(&err);
}

/* ---- a small store ---- */

static qr_mem *make_store(void)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_open(&m, ":memory:", QR_MEM_CREATE, &err) == QR_OK);
    qr_mem_set_now(m, 1763800000); /* 2025-11-22T08:26:40Z */
    static const struct {
        const char *key, *type, *content;
        double w;
    } nodes[] = {
        {"journal#1", "episodic", "We split the btree pages.\n", 0.5},
        {"journal#2", "episodic", "Pages of 4 KiB; caches", 0.25},
        {"btree", "semantic", "A btree keeps keys sorted.", 0.75},
        {"gone", "semantic", "deleted note", 0.5},
    };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = nodes[i].key;
        n.type = nodes[i].type;
        n.content = nodes[i].content;
        n.content_len = strlen(nodes[i].content);
        n.weight = nodes[i].w;
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    CHECK(qr_mem_link(m, "journal#1", "journal#2", 0.5, "follows", NULL, &err) == QR_OK);
    CHECK(qr_mem_link(m, "journal#1", "btree", 0.8, NULL, NULL, &err) == QR_OK);
    CHECK(qr_mem_node_delete(m, "gone", &err) == QR_OK);
    qr_buf_release(&err);
    return m;
}

static void test_fill(void)
{
    qr_mem *m = make_store();
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = parse(valid_agent, &err);
    CHECK(a != NULL);
    if (!a || !m)
        return;
    const char *keys[] = {"journal#1", "journal#2"};
    qr_mem_agent_prompt p;
    CHECK(qr_mem_agent_fill(a, m, keys, 2, 1763900000, &p, &err) == QR_OK);
    CHECK_STR(p.user.p, "Agent linker at 2025-11-23T12:13:20Z.\n"
                        "### node 1 of 2: journal#1\n"
                        "type: episodic | weight: 0.5 | modified: 2025-11-22T08:26:40Z\n"
                        "We split the btree pages.\n"
                        "\n"
                        "### node 2 of 2: journal#2\n"
                        "type: episodic | weight: 0.25 | modified: 2025-11-22T08:26:40Z\n"
                        "Pages of 4 KiB; caches\n"
                        "\n"
                        "Links among these nodes (source -> target: type, strength):\n"
                        "- journal#1 -> journal#2: follows, 0.5\n"
                        "Degree of each node in the whole graph (how many nodes it is linked "
                        "to):\n"
                        "- journal#1: 2\n"
                        "- journal#2: 1\n"
                        "\n");
    CHECK(p.nshown == 2 && p.omitted == 0 && p.cut == 0);
    CHECK_STR(p.shown[0], "journal#1");
    CHECK(strstr(p.system.p, "You are the memory agent 'linker'") != NULL);
    CHECK(strstr(p.system.p, "\"action\": \"link-add\"") != NULL);
    CHECK(strstr(p.system.p, "\"action\": \"weight\"") != NULL);
    CHECK(strstr(p.system.p, "\"action\": \"write\"") == NULL);
    /* deterministic */
    qr_mem_agent_prompt p2;
    CHECK(qr_mem_agent_fill(a, m, keys, 2, 1763900000, &p2, &err) == QR_OK);
    CHECK(p2.user.len == p.user.len && !memcmp(p.user.p, p2.user.p, p.user.len));
    qr_mem_agent_prompt_clear(&p2);
    qr_mem_agent_prompt_clear(&p);
    qr_mem_agent_free(a);

    /* {{node:KEY}}, no nodes, a missing node */
    const char *t = Q "[prompt]\ntemplate = \"[{{node:btree}}] {{nodes}}\"\n" E;
    CHECK((a = parse(t, &err)) != NULL);
    CHECK(qr_mem_agent_fill(a, m, NULL, 0, 1763900000, &p, &err) == QR_OK);
    CHECK_STR(p.user.p, "[A btree keeps keys sorted.\n] (no nodes)\n");
    qr_mem_agent_prompt_clear(&p);
    const char *gone[] = {"gone"};
    CHECK(qr_mem_agent_fill(a, m, gone, 1, 1763900000, &p, &err) == QR_ERUNTIME);
    qr_mem_agent_free(a);
    t = Q "[prompt]\ntemplate = \"{{node:nope}}\"\n" E;
    CHECK((a = parse(t, &err)) != NULL);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_fill(a, m, NULL, 0, 1763900000, &p, &err) == QR_ERUNTIME);
    CHECK(err.p && strstr(err.p, "template placeholder {{node:nope}}: no node 'nope'"));
    qr_mem_agent_free(a);

    /* the size bounds: a long node is cut, nodes past the budget left out */
    size_t big = 3 * QR_MEM_AGENT_NODE_BYTES;
    char *text = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        text[i] = (char)('a' + i % 26);
    text[QR_MEM_AGENT_NODE_BYTES - 1] = (char)0xc3; /* a 2-byte character across the cut */
    text[QR_MEM_AGENT_NODE_BYTES] = (char)0xa9;
    text[big] = 0;
    enum { NBIG = 40 };
    char *bkeys[NBIG];
    for (int i = 0; i < NBIG; i++) {
        char k[32];
        snprintf(k, sizeof k, "big-%02d", i);
        bkeys[i] = strdup(k);
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = k;
        n.content = text;
        n.content_len = big;
        n.weight = 0.5;
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    t = Q "[prompt]\ntemplate = \"{{nodes}}\"\n" E;
    CHECK((a = parse(t, &err)) != NULL);
    CHECK(qr_mem_agent_fill(a, m, (const char *const *)bkeys, NBIG, 1763900000, &p, &err) == QR_OK);
    CHECK(p.nshown > 10 && p.nshown < NBIG);
    CHECK(p.omitted == NBIG - p.nshown);
    CHECK(p.cut == p.nshown);
    CHECK(p.user.len < QR_MEM_AGENT_NODES_BYTES + 2000);
    CHECK(qr_utf8_valid(p.user.p, p.user.len));
    char note[120];
    snprintf(note, sizeof note, "[content cut: the first %d of %zu bytes are shown]",
             QR_MEM_AGENT_NODE_BYTES - 1, big);
    CHECK(strstr(p.user.p, note) != NULL);
    snprintf(note, sizeof note, "(%zu more nodes matched the query but were left out", p.omitted);
    CHECK(strstr(p.user.p, note) != NULL);
    qr_mem_agent_prompt_clear(&p);
    qr_mem_agent_free(a);
    for (int i = 0; i < NBIG; i++)
        free(bkeys[i]);
    free(text);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* ---- replies ---- */

static unsigned all_actions =
    QR_MEM_AGENT_LINK_ADD | QR_MEM_AGENT_WEIGHT | QR_MEM_AGENT_WRITE | QR_MEM_AGENT_REFINE;

static void expect_ok(int line, qr_mem *m, const char *reply, size_t want_n)
{
    qr_mem_agent_plan p;
    int rc = qr_mem_agent_parse_reply(&p, all_actions, m, reply, strlen(reply));
    if (rc != QR_OK || p.n != want_n) {
        fprintf(stderr, "test_mem_agent.c:%d: rc %d, %zu actions (want %zu)\n", line, rc, p.n,
                want_n);
        for (size_t i = 0; i < p.nproblems; i++) {
            qr_buf b;
            qr_buf_init(&b);
            qr_mem_agent_problem_format(&p.problems[i], &b);
            fprintf(stderr, "  %s\n", b.p);
            qr_buf_release(&b);
        }
        check_failures++;
    }
    qr_mem_agent_plan_clear(&p);
}
#define REPLY_OK(m, reply, n) expect_ok(__LINE__, m, reply, n)

/* Checks that the reply is rejected with exactly the problems listed
 * (formatted, joined by "\n"). */
static void expect_problems(int line, qr_mem *m, unsigned allowed, const char *reply,
                            const char *want)
{
    qr_mem_agent_plan p;
    int rc = qr_mem_agent_parse_reply(&p, allowed, m, reply, strlen(reply));
    qr_buf b;
    qr_buf_init(&b);
    for (size_t i = 0; i < p.nproblems; i++) {
        if (i)
            qr_buf_putc(&b, '\n');
        qr_mem_agent_problem_format(&p.problems[i], &b);
    }
    if (rc != QR_EINVAL || p.n != 0 || !b.p || strcmp(b.p, want)) {
        fprintf(stderr, "test_mem_agent.c:%d: rc %d, n %zu\n  want: %s\n  got:  %s\n", line, rc,
                p.n, want, b.p ? b.p : "(none)");
        check_failures++;
    }
    qr_buf_release(&b);
    qr_mem_agent_plan_clear(&p);
}
#define PROBLEMS(m, allowed, reply, want) expect_problems(__LINE__, m, allowed, reply, want)

static void test_reply_forms(void)
{
    qr_mem *m = make_store();
    REPLY_OK(m,
             "I'll link them.\n```json\n[{\"action\": \"link-add\", \"source\": "
             "\"journal#2\", "
             "\"target\": \"btree\", \"strength\": 0.6}]\n```\nDone.",
             1);
    REPLY_OK(m, "```\n[]\n```", 0);
    REPLY_OK(m, "  [{\"action\":\"weight\",\"key\":\"btree\",\"weight\":1}]  ", 1);
    REPLY_OK(m,
             "{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0}\n\n"
             "{\"action\":\"refine\",\"key\":\"btree\",\"content\":\"better\"}\n",
             2);
    REPLY_OK(m, "```jsonl\n{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0.1}\n```", 1);
    REPLY_OK(m,
             "{\n  \"action\": \"weight\",\n  \"key\": \"btree\",\n  \"weight\": "
             "0.3\n}",
             1);
    REPLY_OK(m,
             "```edn\n[{:action \"link-add\" :source \"journal#2\" :target \"btree\" "
             ":strength 0.5 :type :see-also}\n {:action :weight :key \"btree\" "
             ":weight 0.9}]\n```",
             2);
    REPLY_OK(m,
             "{:action \"weight\" :key \"btree\" :weight 0.2}\n{:action "
             "\"weight\" :key "
             "\"journal#1\" :weight 0.2}",
             2);
    /* a python block is prose; the json block is the data */
    REPLY_OK(m, "```python\nprint([1])\n```\n```json\n[]\n```", 0);
    /* a write, then actions on the key it adds */
    REPLY_OK(m,
             "[{\"action\":\"write\",\"key\":\"new\",\"content\":\"x\",\"type\":"
             "\"semantic\"},"
             "{\"action\":\"link-add\",\"source\":\"new\",\"target\":\"btree\","
             "\"strength\":1},"
             "{\"action\":\"refine\",\"key\":\"new\",\"content\":\"y\"}]",
             3);
    /* parsed without a store: keys are not looked up */
    REPLY_OK(NULL, "[{\"action\":\"weight\",\"key\":\"anything\",\"weight\":0.5}]", 1);

    qr_mem_agent_plan p;
    const char *lr = "[{\"action\":\"link-add\",\"source\":\"journal#2\",\"target\":"
                     "\"btree\",\"strength\":0.25}]";
    CHECK(qr_mem_agent_parse_reply(&p, all_actions, m, lr, strlen(lr)) == QR_OK);
    CHECK(p.n == 1 && p.actions[0].kind == QR_MEM_AGENT_LINK_ADD);
    CHECK_STR(p.actions[0].type, "related");
    CHECK(p.actions[0].value == 0.25);
    qr_mem_agent_plan_clear(&p);
    qr_mem_close(m);
}

static void test_reply_problems(void)
{
    qr_mem *m = make_store();
    unsigned lw = QR_MEM_AGENT_LINK_ADD | QR_MEM_AGENT_WEIGHT;
    PROBLEMS(m, lw, "I think these are related.",
             "reply: the reply holds no actions: expected a ```json block "
             "holding a JSON array "
             "of action objects ([] when there is nothing to do)");
    /* content the store would refuse is refused here, before anything is applied */
    PROBLEMS(m, all_actions,
             "[{\"action\": \"write\", \"key\": \"n1\", \"content\": \"a\\u0001b\", "
             "\"type\": \"semantic\"},\n"
             " {\"action\": \"refine\", \"key\": \"btree\", \"content\": \"x\\u007fy\"},\n"
             " {\"action\": \"refine\", \"key\": \"btree\", \"content\": \"ok\\ttab\\r\\n\"}]",
             "action 1 (write) 'content': holds control characters or is not UTF-8 (only tab and "
             "line breaks are allowed)\n"
             "action 2 (refine) 'content': holds control characters or is not UTF-8 (only tab and "
             "line breaks are allowed)");
    PROBLEMS(m, lw, "```json\n[]\n```\nor\n```json\n[]\n```",
             "reply: the reply has 2 ```json blocks; put every action in one block");
    PROBLEMS(m, lw, "```json\n\n```",
             "reply: the actions block is empty: write [] when there is nothing "
             "to do");
    PROBLEMS(m, lw, "```json\n[{\"action\": \"weight\",]\n```",
             "reply: the actions are not valid JSON: 1:22: expected a string key "
             "in object");
    PROBLEMS(m, lw, "[1, \"x\"]",
             "action 1: expected an object {\"action\": ..., ...}, found integer 1\n"
             "action 2: expected an object {\"action\": ..., ...}, found string "
             "\"x\"");
    PROBLEMS(m, lw, "[{\"key\": \"btree\"}, {\"action\": 3}, {\"action\": \"delete\"}]",
             "action 1 'action': missing: every object names its action "
             "(link-add, weight, "
             "write, refine)\n"
             "action 2 'action': must be a string such as \"link-add\", not "
             "integer 3\n"
             "action 3 'action': unknown action 'delete': expected link-add, "
             "weight, write or "
             "refine");
    PROBLEMS(m, lw,
             "[{\"action\":\"write\",\"key\":\"n\",\"content\":\"c\",\"type\":"
             "\"semantic\"}]",
             "action 1 (write): this agent may not write (its file allows: "
             "link-add, weight)");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":\"btree\"}]",
             "action 1 (weight) 'weight': missing: weight needs it");
    PROBLEMS(m, lw,
             "[{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0.5,"
             "\"reason\":\"x\"}]",
             "action 1 (weight) 'reason': unknown field: weight takes action, "
             "key, weight");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":\"btree\",\"weight\":\"high\"}]",
             "action 1 (weight) 'weight': must be a number in [0, 1], not string "
             "\"high\"");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":\"btree\",\"weight\":1.5}]",
             "action 1 (weight) 'weight': 1.5 is out of range: expected [0, 1]");
    PROBLEMS(m, lw,
             "[{\"action\":\"link-add\",\"source\":\"btree\",\"target\":\"journal#1\","
             "\"strength\":0}]",
             "action 1 (link-add) 'strength': 0 is out of range: expected (0, 1]");
    PROBLEMS(m, lw,
             "[{\"action\":\"link-add\",\"source\":\"btree\",\"target\":\"btree\","
             "\"strength\":0.5}]",
             "action 1 (link-add) 'target': a node cannot be linked to itself");
    PROBLEMS(m, lw,
             "[{\"action\":\"link-add\",\"source\":\"nope\",\"target\":\"gone\","
             "\"strength\":0.5,\"type\":\"Not A Type\"}]",
             "action 1 (link-add) 'type': \"Not A Type\" is not a type: use 1 to "
             "64 characters "
             "of a-z, 0-9 and '-'\n"
             "action 1 (link-add) 'source': no node 'nope' in the store; use a "
             "key from the "
             "prompt\n"
             "action 1 (link-add) 'target': no node 'gone' in the store (it was "
             "deleted)");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":7,\"weight\":0.5}]",
             "action 1 (weight) 'key': must be a string, not integer 7");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":\"\",\"weight\":0.5}]",
             "action 1 (weight) 'key': a key is 1 to 1024 bytes");
    PROBLEMS(m, lw, "[{\"action\":\"weight\",\"key\":\"a\\nb\",\"weight\":0.5}]",
             "action 1 (weight) 'key': a key holds no control characters or newlines");
    PROBLEMS(m, all_actions,
             "[{\"action\":\"write\",\"key\":\"btree\",\"content\":\"c\","
             "\"type\":\"semantic\"},"
             "{\"action\":\"write\",\"key\":\"gone\",\"content\":\"c\",\"type\":"
             "\"semantic\"},"
             "{\"action\":\"write\",\"key\":\"n\",\"content\":\"c\",\"type\":"
             "\"semantic\"},"
             "{\"action\":\"write\",\"key\":\"n\",\"content\":\" "
             "\",\"type\":\"semantic\"},"
             "{\"action\":\"write\",\"key\":\"n2\",\"content\":\"c\"},"
             "{\"action\":\"refine\",\"key\":\"missing\",\"content\":\"c\"}]",
             "action 1 (write) 'key': 'btree' already exists; choose a new key, "
             "or refine the "
             "existing node\n"
             "action 2 (write) 'key': 'gone' belongs to a deleted node; choose a "
             "new key, or "
             "refine the existing node\n"
             "action 4 (write) 'content': must not be empty\n"
             "action 4 (write) 'key': 'n' is written twice in this reply; choose "
             "a new key, or "
             "refine the existing node\n"
             "action 5 (write) 'type': missing: write needs it\n"
             "action 6 (refine) 'key': no node 'missing' in the store; use a key "
             "from the prompt");
    PROBLEMS(m, lw, "{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0.5}\nnot json\n",
             "reply: line 2 of the actions is not a JSON object: unexpected character "
             "'n': "
             "expected a JSON value (write a JSON array, or one object per line)");
    PROBLEMS(m, lw, "[{:action \"weight\" :key \"btree\" :weight}]",
             "reply: the actions are not valid EDN: 1:2: map literal has an odd "
             "number of "
             "forms: a key has no value");
    PROBLEMS(m, lw, "\xff[]", "reply: the reply is not UTF-8 text");

    /* all or nothing: one bad action among good ones rejects the plan */
    qr_mem_agent_plan p;
    const char *r = "[{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0.5},"
                    "{\"action\":\"weight\",\"key\":\"nope\",\"weight\":0.5}]";
    CHECK(qr_mem_agent_parse_reply(&p, lw, m, r, strlen(r)) == QR_EINVAL);
    CHECK(p.n == 0 && p.nproblems == 1 && p.problems[0].index == 1);
    qr_mem_agent_plan_clear(&p);

    /* too many problems: the rest are counted, not dropped silently */
    qr_buf many;
    qr_buf_init(&many);
    qr_buf_putc(&many, '[');
    for (int i = 0; i < 100; i++)
        qr_buf_printf(&many, "%s1", i ? "," : "");
    qr_buf_putc(&many, ']');
    CHECK(qr_mem_agent_parse_reply(&p, lw, m, many.p, many.len) == QR_EINVAL);
    CHECK(p.nproblems == QR_MEM_AGENT_MAX_PROBLEMS &&
          p.nproblems_dropped == 100 - QR_MEM_AGENT_MAX_PROBLEMS);
    qr_mem_agent_plan_clear(&p);
    qr_buf_release(&many);
    qr_mem_close(m);
}

static void test_apply(void)
{
    qr_mem *m = make_store();
    qr_mem_set_now(m, 1763900000);
    const char *r = "```json\n["
                    "{\"action\":\"write\",\"key\":\"idea\",\"content\":\"Split early.\","
                    "\"type\":\"semantic\",\"weight\":0.6},"
                    "{\"action\":\"link-add\",\"source\":\"idea\",\"target\":\"btree\","
                    "\"strength\":0.9,\"type\":\"derived-from\"},"
                    "{\"action\":\"link-add\",\"source\":\"journal#1\",\"target\":\"journal#"
                    "2\","
                    "\"strength\":0.7,\"type\":\"follows\"},"
                    "{\"action\":\"weight\",\"key\":\"journal#2\",\"weight\":0.125},"
                    "{\"action\":\"refine\",\"key\":\"btree\",\"content\":\"A btree keeps "
                    "keys "
                    "sorted in pages.\"}"
                    "]\n```";
    qr_mem_agent_plan p;
    CHECK(qr_mem_agent_parse_reply(&p, all_actions, m, r, strlen(r)) == QR_OK);
    CHECK(p.n == 5);
    size_t applied = 0;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_agent_apply(m, "linker", &p, &applied, &err) == QR_OK);
    CHECK(applied == 5);
    qr_mem_agent_plan_clear(&p);

    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node n;
    CHECK(qr_mem_node_get(m, "idea", false, &a, &n, &err) == QR_OK);
    CHECK_STR(n.content, "Split early.");
    CHECK_STR(n.type, "semantic");
    CHECK_STR(n.provenance, "agent:linker");
    CHECK(n.weight == 0.6);
    CHECK(qr_mem_node_get(m, "journal#2", false, &a, &n, &err) == QR_OK);
    CHECK(n.weight == 0.125);
    CHECK(n.modified == 1763900000);
    CHECK(qr_mem_node_get(m, "btree", false, &a, &n, &err) == QR_OK);
    CHECK_STR(n.content, "A btree keeps keys sorted in pages.");
    qr_mem_edge *e;
    size_t ne;
    CHECK(qr_mem_edges(m, "idea", false, &a, &e, &ne, &err) == QR_OK);
    CHECK(ne == 1 && !strcmp(e[0].target, "btree") && !strcmp(e[0].type, "derived-from") &&
          e[0].strength > 0.89 && e[0].strength < 0.91);
    CHECK(qr_mem_edges(m, "journal#1", false, &a, &e, &ne, &err) == QR_OK);
    bool found = false;
    for (size_t i = 0; i < ne; i++)
        if (!strcmp(e[i].target, "journal#2") && !strcmp(e[i].type, "follows"))
            found = e[i].strength > 0.69 && e[i].strength < 0.71; /* updated from 0.5 */
    CHECK(found);

    /* a plan that the store refuses part way, inside a transaction: nothing stays */
    r = "[{\"action\":\"weight\",\"key\":\"btree\",\"weight\":0.3},"
        "{\"action\":\"weight\",\"key\":\"journal#1\",\"weight\":0.3}]";
    CHECK(qr_mem_agent_parse_reply(&p, all_actions, m, r, strlen(r)) == QR_OK);
    CHECK(qr_mem_node_delete(m, "journal#1", &err) == QR_OK);
    qr_buf_reset(&err);
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    CHECK(qr_mem_agent_apply(m, "linker", &p, &applied, &err) == QR_ERUNTIME);
    CHECK(applied == 1);
    CHECK(err.p && strstr(err.p, "action 2 of 2 (weight) failed"));
    qr_mem_rollback(m);
    CHECK(qr_mem_node_get(m, "btree", false, &a, &n, &err) == QR_OK);
    CHECK(n.weight != 0.3); /* the first action went back too */
    qr_mem_agent_plan_clear(&p);
    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* ---- review fixes: bounds, template_file, locks, state file, content ---- */

/* {{nodes}} / {{topology}} once each; a template whose worst case passes the
 * prompt cap is refused at load, on its line. */
static void test_template_bounds(void)
{
    INVALID(Q "[prompt]\ntemplate = \"\"\"\n{{nodes}}\nand\n{{ nodes }}\n\"\"\"\n" E,
            "agents/linker.toml:7: {{nodes}} is used twice in the template (the first 2 lines up); "
            "it expands to all the selected nodes' text, so use it once");
    INVALID(
        Q "[prompt]\ntemplate = \"{{topology}} {{nodes}} {{topology}}\"\n" E,
        "agents/linker.toml:4: {{topology}} is used twice in the template (the first on the same "
        "line)");
    /* {{node:KEY}} counts against the budget: about 24 fit beside {{nodes}} and {{topology}} */
    qr_buf t;
    qr_buf_init(&t);
    qr_buf_puts(&t, Q "[prompt]\ntemplate = \"\"\"\n{{nodes}}\n{{topology}}\n");
    for (int i = 0; i < 40; i++)
        qr_buf_printf(&t, "{{node:k%d}}\n", i);
    qr_buf_puts(&t, "\"\"\"\n" E);
    char want[200];
    snprintf(
        want, sizeof want,
        "agents/linker.toml:%d: the template can make a prompt larger than %u bytes",
        7 + (QR_MEM_AGENT_PROMPT_MAX - QR_MEM_AGENT_NODES_BYTES - QR_MEM_AGENT_TOPOLOGY_BYTES) /
                (QR_MEM_AGENT_NODE_BYTES + 96),
        QR_MEM_AGENT_PROMPT_MAX);
    INVALID(t.p, want);
    /* the template's own text counts too */
    qr_buf_reset(&t);
    qr_buf_puts(&t, Q "[prompt]\ntemplate = \"\"\"\n{{nodes}}\n");
    for (int i = 0; i < 3000; i++)
        qr_buf_puts(&t, "0123456789012345678901234567890123456789012345678901234567890123456789\n");
    qr_buf_puts(&t, "\"\"\"\n" E);
    INVALID(t.p, "the template can make a prompt larger than");
    /* a template at the limits still loads */
    qr_buf_reset(&t);
    qr_buf_puts(&t, Q "[prompt]\ntemplate = \"\"\"\n{{nodes}}\n{{topology}}\n");
    for (int i = 0; i < 20; i++)
        qr_buf_printf(&t, "{{node:k%d}} {{agent}} {{now}}\n", i);
    qr_buf_puts(&t, "\"\"\"\n" E);
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = parse(t.p, &err);
    CHECK(a != NULL);
    qr_mem_agent_free(a);
    qr_buf_release(&t);
    qr_buf_release(&err);
}

/* The fill enforces the cap itself: a template set by hand (no load check) with
 * {{nodes}} 3000 times fails with QR_ELIMIT instead of a prompt of megabytes; and
 * {{topology}} stops listing links and degrees at its budget. */
static void test_fill_bounds(void)
{
    qr_mem *m = make_store();
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = parse(Q P E, &err);
    CHECK(a != NULL);
    if (!a || !m)
        return;
    char *big = malloc(2 * QR_MEM_AGENT_NODE_BYTES + 1);
    memset(big, 'x', 2 * QR_MEM_AGENT_NODE_BYTES);
    big[2 * QR_MEM_AGENT_NODE_BYTES] = 0;
    enum { NB = 8 };
    char *keys[NB];
    for (int i = 0; i < NB; i++) {
        char k[32];
        snprintf(k, sizeof k, "wide-%d", i);
        keys[i] = strdup(k);
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = k;
        n.content = big;
        n.content_len = strlen(big);
        n.weight = 0.5;
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    qr_buf t;
    qr_buf_init(&t);
    for (int i = 0; i < 3000; i++)
        qr_buf_puts(&t, "{{nodes}}\n");
    free(a->template);
    a->template_len = t.len;
    a->template = qr_buf_detach(&t, NULL);
    qr_mem_agent_prompt p;
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_fill(a, m, (const char *const *)keys, NB, 1763900000, &p, &err) ==
          QR_ELIMIT);
    char want[200];
    snprintf(want, sizeof want,
             "agent 'linker': the filled prompt passes %u bytes at line 8 of the template",
             QR_MEM_AGENT_PROMPT_MAX);
    CHECK(err.p && strstr(err.p, want));
    CHECK(p.user.len == 0 && p.nshown == 0);
    /* {{node:KEY}} repeated counts the same way */
    free(a->template);
    qr_buf_init(&t);
    for (int i = 0; i < 100; i++)
        qr_buf_puts(&t, "{{node:wide-1}}");
    a->template_len = t.len;
    a->template = qr_buf_detach(&t, NULL);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_fill(a, m, NULL, 0, 1763900000, &p, &err) == QR_ELIMIT);
    qr_mem_agent_free(a);

    /* topology: 120 nodes, each linked to the next 40: 4800 links among them */
    enum { NT = 120, FAN = 40 };
    char *tk[NT];
    CHECK(qr_mem_begin(m, &err) == QR_OK);
    for (int i = 0; i < NT; i++) {
        char k[32];
        snprintf(k, sizeof k, "t-%03d", i);
        tk[i] = strdup(k);
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = k;
        n.content = "short";
        n.content_len = 5;
        n.weight = 0.5;
        CHECK(qr_mem_node_add(m, &n, NULL, &err) == QR_OK);
    }
    for (int i = 0; i < NT; i++)
        for (int j = 1; j <= FAN; j++)
            CHECK(qr_mem_link(m, tk[i], tk[(i + j) % NT], 0.5, NULL, NULL, &err) == QR_OK);
    CHECK(qr_mem_commit(m, &err) == QR_OK);
    CHECK((a = parse(Q "[prompt]\ntemplate = \"{{topology}}\"\n" E, &err)) != NULL);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_fill(a, m, (const char *const *)tk, NT, 1763900000, &p, &err) == QR_OK);
    /* {{topology}} alone shows links and degrees, not the nodes' text: nothing is shown
     * for a visit to be recorded on */
    CHECK(p.nshown == 0);
    CHECK(p.user.len <= QR_MEM_AGENT_TOPOLOGY_BYTES + 512);
    CHECK(p.user.p && strstr(p.user.p, " more links among these nodes left out to keep the "
                                       "prompt small)\n"));
    /* the degrees still show, after the links */
    CHECK(p.user.p && strstr(p.user.p, "- t-119: 80\n"));
    qr_mem_agent_prompt_clear(&p);
    qr_mem_agent_free(a);
    for (int i = 0; i < NT; i++)
        free(tk[i]);
    for (int i = 0; i < NB; i++)
        free(keys[i]);
    free(big);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* template_file stays inside the agent directory: no absolute path, no "..", no
 * symbolic link, only a regular file. Each is a file:line error; nothing is read. */
static void expect_tfile(int line, const char *tfile, const char *want)
{
    char p[256], text[512];
    snprintf(text, sizeof text, Q "[prompt]\ntemplate_file = \"%s\"\n" E, tfile);
    write_file("agents/tf.toml", text);
    snprintf(p, sizeof p, "%s/agents/tf.toml", tmpdir);
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = NULL;
    int rc = qr_mem_agent_load(&a, p, &err);
    char w[600];
    snprintf(w, sizeof w, "%s:4: %s", p, want);
    if (rc != QR_EINVAL || a || !err.p || strncmp(err.p, w, strlen(w))) {
        fprintf(stderr, "test_mem_agent.c:%d: rc %d\n  want: %s\n  got:  %s\n", line, rc, w,
                err.p ? err.p : "");
        check_failures++;
    }
    qr_mem_agent_free(a);
    qr_buf_release(&err);
}
#define TFILE(tfile, want) expect_tfile(__LINE__, tfile, want)

static void test_template_file(void)
{
    char d[256], p[300], secret[300];
    snprintf(d, sizeof d, "%s/agents", tmpdir);
    CHECK(mkdir(d, 0755) == 0);
    snprintf(p, sizeof p, "%s/agents/sub", tmpdir);
    CHECK(mkdir(p, 0755) == 0);
    write_file("secret.md", "SECRET {{nodes}}\n");
    snprintf(secret, sizeof secret, "%s/secret.md", tmpdir);
    char abs[400];
    snprintf(abs, sizeof abs, "%s", secret);
    qr_buf w;
    qr_buf_init(&w);
    qr_buf_printf(&w,
                  "template_file '%s' must be a path relative to the agent file's directory, "
                  "without '..'",
                  abs);
    TFILE(abs, w.p);
    qr_buf_release(&w);
    TFILE("../secret.md", "template_file '../secret.md' must be a path relative");
    TFILE("sub/../../secret.md", "template_file 'sub/../../secret.md' must be a path relative");
    /* a symbolic link in the directory, to a file outside it, and a linked directory */
    snprintf(p, sizeof p, "%s/agents/link.md", tmpdir);
    CHECK(symlink(secret, p) == 0);
    snprintf(p, sizeof p, "%s/agents/linkdir", tmpdir);
    CHECK(symlink(tmpdir, p) == 0);
    char want[400];
    snprintf(want, sizeof want,
             "template_file '%s/agents/link.md' is or passes through a symbolic "
             "link",
             tmpdir);
    TFILE("link.md", want);
    snprintf(want, sizeof want,
             "template_file '%s/agents/linkdir/secret.md' is or passes through "
             "a symbolic link",
             tmpdir);
    TFILE("linkdir/secret.md", want);
    /* a FIFO: refused without blocking (nobody ever writes to it) */
    snprintf(p, sizeof p, "%s/agents/fifo.md", tmpdir);
    CHECK(mkfifo(p, 0644) == 0);
    snprintf(want, sizeof want, "template_file '%s/agents/fifo.md' is not a regular file", tmpdir);
    TFILE("fifo.md", want);
    snprintf(want, sizeof want, "template_file '%s/agents/sub' is not a regular file", tmpdir);
    TFILE("sub", want);
    /* inside, in a subdirectory: fine */
    write_file("agents/sub/t.md", "in sub {{nodes}}\n");
    write_file("agents/ok.toml", Q "[prompt]\ntemplate_file = \"sub/t.md\"\n" E);
    snprintf(p, sizeof p, "%s/agents/ok.toml", tmpdir);
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = NULL;
    CHECK(qr_mem_agent_load(&a, p, &err) == QR_OK);
    CHECK(a && !strcmp(a->template, "in sub {{nodes}}\n"));
    qr_mem_agent_free(a);
    qr_buf_release(&err);
}

/* One process holds an agent's lock (and the daemon's): another is refused at
 * once, with the holder's pid; once it exits, the locks are free. */
static void test_locks(void)
{
    char sp[300];
    snprintf(sp, sizeof sp, "%s/locks.db.agents.json", tmpdir);
    int go[2], done[2];
    CHECK(pipe(go) == 0 && pipe(done) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        qr_mem_agent_locks l;
        char c = 0;
        if (qr_mem_agent_locks_open(&l, sp, NULL) != QR_OK ||
            qr_mem_agent_lock(&l, "linker", NULL) != QR_OK ||
            qr_mem_agent_lock_daemon(&l, "locks.db", NULL) != QR_OK)
            _exit(1);
        if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
            _exit(1);
        _exit(0);
    }
    char c = 0;
    CHECK(read(go[0], &c, 1) == 1);
    qr_mem_agent_locks l;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_agent_locks_open(&l, sp, &err) == QR_OK);
    CHECK(qr_mem_agent_lock(&l, "linker", &err) == QR_ERUNTIME);
    char want[200];
    snprintf(want, sizeof want,
             "agent 'linker' is running in another process (pid %ld); wait for that run to "
             "finish, then try again",
             (long)pid);
    CHECK_STR(err.p, want);
    qr_buf_reset(&err);
    CHECK(qr_mem_agent_lock_daemon(&l, "locks.db", &err) == QR_ERUNTIME);
    snprintf(want, sizeof want,
             "a memory daemon is already running on the store 'locks.db' (pid %ld)", (long)pid);
    CHECK(err.p && !strncmp(err.p, want, strlen(want)));
    /* another agent is not blocked */
    CHECK(qr_mem_agent_lock(&l, "tagger", &err) == QR_OK);
    qr_mem_agent_unlock(&l, "tagger");
    CHECK(write(done[1], "x", 1) == 1);
    int st = -1;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(qr_mem_agent_lock(&l, "linker", &err) == QR_OK);
    CHECK(qr_mem_agent_lock_daemon(&l, "locks.db", &err) == QR_OK);
    /* recording state (which opens and closes STORE.agents.lock) keeps them */
    CHECK(qr_mem_agent_state_record(sp, "linker", 1000, true, NULL, &err) == QR_OK);
    pid = fork();
    if (pid == 0) {
        qr_mem_agent_locks l2;
        _exit(qr_mem_agent_locks_open(&l2, sp, NULL) == QR_OK &&
                      qr_mem_agent_lock(&l2, "linker", NULL) == QR_ERUNTIME
                  ? 0
                  : 1);
    }
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    qr_mem_agent_locks_close(&l);
    close(go[0]);
    close(go[1]);
    close(done[0]);
    close(done[1]);
    qr_buf_release(&err);
}

/* A corrupt state file: times far in the future or negative are held in
 * [0, now + 1 year], and the schedule's sums saturate (no signed overflow). */
static void test_state_corrupt(void)
{
    qr_mem_agent a;
    memset(&a, 0, sizeof a);
    a.period = 86400;
    qr_mem_agent_state s;
    memset(&s, 0, sizeof s);
    s.last_ok = 9223372036854775000;
    s.last_attempt = 9223372036854775000;
    int64_t next = 0;
    CHECK(!qr_mem_agent_due(&a, &s, 1763900000, &next) && next == INT64_MAX);
    s.last_ok = 1;
    CHECK(!qr_mem_agent_due(&a, &s, 1763900000, &next) && next == INT64_MAX);

    char sp[300];
    snprintf(sp, sizeof sp, "%s/corrupt.db.agents.json", tmpdir);
    write_file("corrupt.db.agents.json",
               "{\"agents\": {\"linker\": {\"last_ok\": 9223372036854775000, "
               "\"last_attempt\": 9223372036854775000},"
               " \"old\": {\"last_ok\": -9223372036854775000, \"last_attempt\": -5}}}");
    qr_buf err;
    qr_buf_init(&err);
    /* the clamp is a year past the clock's now: pin it, so the check cannot straddle a
     * second boundary or depend on the day it runs */
    int64_t now = 1795483800; /* 2026-11-24T01:30:00Z */
    setenv("QUARRY_NOW", "1795483800", 1);
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK);
    CHECK(s.last_ok == now + 366 * 86400);
    CHECK(s.last_attempt == s.last_ok);
    CHECK(!qr_mem_agent_due(&a, &s, now, &next) && next == s.last_ok + 86400);
    CHECK(qr_mem_agent_state_get(sp, "old", &s, &err) == QR_OK);
    CHECK(s.last_ok == 0 && s.last_attempt == 0);
    CHECK(qr_mem_agent_due(&a, &s, now, NULL));
    /* rewriting the file writes the held values */
    CHECK(qr_mem_agent_state_record(sp, "other", 1000, true, NULL, &err) == QR_OK);
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK);
    CHECK(s.last_ok < now + 367 * 86400);
    unsetenv("QUARRY_NOW");
    unlink(sp);
    qr_buf_release(&err);
}

/* The state file's temporary file has an unpredictable name: a symbolic link
 * planted at the old name (STATE.tmp.PID) is not written through. */
static void test_state_tmp_link(void)
{
    char sp[300], tmp[400], victim[300];
    snprintf(sp, sizeof sp, "%s/plant.db.agents.json", tmpdir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", sp, (long)getpid());
    snprintf(victim, sizeof victim, "%s/victim.txt", tmpdir);
    write_file("victim.txt", "precious\n");
    CHECK(symlink(victim, tmp) == 0);
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_mem_agent_state_record(sp, "linker", 1000, true, NULL, &err) == QR_OK);
    char buf[64] = "";
    FILE *f = fopen(victim, "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    if (f)
        fclose(f);
    CHECK_STR(buf, "precious\n");
    struct stat st;
    CHECK(lstat(sp, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644);
    CHECK(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode)); /* left alone */
    qr_mem_agent_state s;
    CHECK(qr_mem_agent_state_get(sp, "linker", &s, &err) == QR_OK && s.last_ok == 1000);
    unlink(tmp);
    unlink(sp);
    qr_buf_release(&err);
}

/* A dry run goes through the real pipeline: the query's nodes make the prompt.
 */
static void test_dry_run(void)
{
    qr_mem *m = make_store();
    qr_buf err;
    qr_buf_init(&err);
    const char *t = "[query]\npipeline = \"all | type:episodic\"\n"
                    "[prompt]\ntemplate = \"{{nodes}}\"\n[execution]\nactions = []\n";
    qr_mem_agent *a = parse(t, &err);
    CHECK(a != NULL);
    qr_mem_agent_report r;
    CHECK(qr_mem_agent_run(a, m, NULL, 1763900000, &r, &err) == QR_OK);
    CHECK(r.selected == 2 && !r.called && r.visits == 0);
    CHECK(r.prompt.nshown == 2);
    CHECK(r.prompt.user.p && strstr(r.prompt.user.p, "### node 1 of 2: journal#1") &&
          strstr(r.prompt.user.p, "### node 2 of 2: journal#2"));
    qr_mem_agent_report_clear(&r);
    qr_mem_agent_free(a);
    qr_buf_release(&err);
    qr_mem_close(m);
}

/* ---- the daemon's loop ---- */

static void daemon_log(void *ud, const char *json)
{
    qr_buf_puts(ud, json);
    qr_buf_putc(ud, '\n');
}

static const char *daemon_why(void *ud)
{
    (void)ud;
    return "test-stop";
}

static void test_daemon(void)
{
    char dir[128], store[128];
    snprintf(dir, sizeof dir, "%s/dagents", tmpdir);
    snprintf(store, sizeof store, "%s/daemon.db", tmpdir);
    CHECK(mkdir(dir, 0700) == 0);
    write_file("dagents/linker.toml", "[query]\npipeline = \"all\"\n[prompt]\ntemplate = "
                                      "\"{{nodes}}\"\n[execution]\nactions = []\n"
                                      "schedule = \"1h\"\n");
    write_file("dagents/broken.toml", "[query]\n");
    qr_buf err, log;
    qr_buf_init(&err);
    qr_buf_init(&log);
    qr_mem *m = NULL;
    CHECK(qr_mem_open(&m, store, QR_MEM_CREATE, &err) == QR_OK);
    qr_llm_config cfg;
    qr_llm_config_init(&cfg); /* no model: the due agent's run fails, and is logged */
    qr_mem_agent_daemon o = {.dir = dir, .mem = m, .llm = &cfg, .once = true, .log = daemon_log,
                             .stop_reason = daemon_why, .log_ud = &log};
    qr_req req;
    qr_req_init(&req, NULL);
    size_t failed = 99;
    CHECK(qr_mem_agent_daemon_run(&o, &req, &failed, &err) == QR_OK);
    CHECK(failed == 1);
    CHECK(log.p && strstr(log.p, "\"event\":\"start\""));
    CHECK(log.p && strstr(log.p, "\"event\":\"agent-load\",\"agent\":\"linker\""));
    CHECK(log.p && strstr(log.p, "\"event\":\"error\",\"agent\":\"broken\""));
    CHECK(log.p && strstr(log.p, "\"agent\":\"linker\",\"message\":\"no model is configured"));
    CHECK(log.p && strstr(log.p, "\"event\":\"stop\",\"reason\":\"once\",\"failed_runs\":1}"));
    /* a stopped request ends the loop before any round, with the caller's reason */
    qr_buf_reset(&log);
    qr_req_cancel(&req);
    o.once = false;
    CHECK(qr_mem_agent_daemon_run(&o, &req, &failed, &err) == QR_OK);
    CHECK(failed == 0);
    CHECK(log.p && !strstr(log.p, "agent-load") && strstr(log.p, "\"event\":\"start\""));
    CHECK(log.p && strstr(log.p, "\"event\":\"stop\",\"reason\":\"test-stop\",\"failed_runs\":0}"));
    /* the directory's files, by name */
    qr_mem_agent_file *files = NULL;
    long n = qr_mem_agent_list_files(dir, &files);
    CHECK(n == 2 && !strcmp(files[0].name, "broken") && !strcmp(files[1].name, "linker"));
    qr_mem_agent_files_free(files, n);
    CHECK(qr_mem_agent_list_files("/nonexistent/agents", &files) == -1);
    qr_llm_config_clear(&cfg);
    qr_mem_close(m);
    qr_buf_release(&log);
    qr_buf_release(&err);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_mem_agent.XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    test_valid();
    test_invalid();
    test_schedule();
    test_state();
    test_fill();
    test_reply_forms();
    test_reply_problems();
    test_apply();
    test_dry_run();
    test_template_bounds();
    test_fill_bounds();
    test_template_file();
    test_locks();
    test_state_corrupt();
    test_state_tmp_link();
    test_daemon();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        check_failures++;
    CHECK_DONE();
}
