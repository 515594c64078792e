/*
 * test_caps.c: capabilities that mean what they say (issue 21, part 4). Walks every tool
 * record a client can be served (the product registry, qr_tools_default, and the MCP
 * server's own tools, qr_mcp_own_tools) and fails when a tool that writes or executes
 * says readOnlyHint true, or when any hint disagrees with the bits; checks the records
 * whose effect is known (the memory writes, dwim with --allow-exec) carry their bits;
 * then a real MCP server: by default it lists no writing or executing tool, with
 * --allow-write memory and --allow-exec it lists them with true hints (run_lisp, which can
 * then call them, included), and a refusal names the flag. Last, the memory write tools
 * on a real store through the registry's one call path.
 */
#include "check.h"
#include "quarry/host.h"
#include "quarry/mcp.h"
#include "quarry/memory.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static qr_val get(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    return qr_map_get(m, qr_kw_cstr(a, k), &v) ? v : qr_nil();
}

static bool flag(qr_arena *a, qr_val ann, const char *k)
{
    qr_val v = get(a, ann, k);
    CHECK(v.t == QR_T_BOOL); /* every hint is given, none left to a client's default */
    return v.t == QR_T_BOOL && v.b;
}

/* The MCP descriptor of one record, as the export builds it. */
static qr_val descriptor(qr_arena *a, const qr_tool *t)
{
    qr_tools *r = qr_tools_new();
    CHECK(qr_tools_add(r, t) == QR_OK);
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_tools_export(r, QR_TOOLS_MCP, false, &b) == QR_OK);
    qr_val v = qr_nil();
    qr_read_error e;
    CHECK(qr_json_read(a, b.p, b.len, &v, &e) == QR_OK);
    qr_buf_release(&b);
    qr_tools_free(r);
    CHECK(qr_vec_len(v) == 1);
    return qr_vec_at(v, 0);
}

typedef struct tally {
    int writes, exec, destroys, cumulative, all;
} tally;

/* The hints of one record against its bits. */
static void check_record(qr_arena *a, const qr_tool *t, tally *n)
{
    qr_val ann = get(a, descriptor(a, t), "annotations");
    bool ro = flag(a, ann, "readOnlyHint"), destructive = flag(a, ann, "destructiveHint");
    bool idem = flag(a, ann, "idempotentHint"), open = flag(a, ann, "openWorldHint");
    uint32_t c = t->caps;
    if ((c & (QR_TOOL_WRITES | QR_TOOL_EXEC)) && ro) {
        fprintf(stderr, "tool '%s' writes or executes but says readOnlyHint true\n", t->name);
        CHECK(!ro);
    }
    CHECK(ro == !(c & (QR_TOOL_WRITES | QR_TOOL_EXEC)));
    CHECK(destructive == ((c & (QR_TOOL_DESTROYS | QR_TOOL_EXEC)) != 0));
    CHECK(idem == !(c & (QR_TOOL_CUMULATIVE | QR_TOOL_EXEC)));
    CHECK(open == ((c & (QR_TOOL_NETWORK | QR_TOOL_MODEL | QR_TOOL_EXEC)) != 0));
    n->writes += (c & QR_TOOL_WRITES) != 0;
    n->exec += (c & QR_TOOL_EXEC) != 0;
    n->destroys += (c & QR_TOOL_DESTROYS) != 0;
    n->cumulative += (c & QR_TOOL_CUMULATIVE) != 0;
    n->all++;
}

static const qr_tool *find(const qr_tools *r, const char *name)
{
    return qr_tools_find(r, name, strlen(name));
}

static void test_registry_walk(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    tally n = {0};
    qr_tools *r = qr_tools_default();
    CHECK(r != NULL);
    for (size_t i = 0; i < qr_tools_count(r); i++)
        check_record(&a, qr_tools_at(r, i), &n);
    for (const qr_tool *const *t = qr_mcp_own_tools; *t; t++)
        check_record(&a, *t, &n);
    /* the walk saw the tools that write, destroy, add up and execute (it cannot pass by
     * walking read-only tools only) */
    CHECK(n.all >= 20);
    CHECK(n.writes >= 7 && n.destroys >= 2 && n.cumulative >= 1 && n.exec >= 1);

    /* the records whose effect is known carry their bits */
    const char *writers[] = {"memory_add", "memory_update", "memory_delete", "memory_restore",
                             "memory_link", "memory_unlink", "memory_visit"};
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        const qr_tool *t = find(r, writers[i]);
        CHECK(t && (t->caps & QR_TOOL_WRITES));
    }
    CHECK(find(r, "memory_delete")->caps & QR_TOOL_DESTROYS);
    CHECK(find(r, "memory_unlink")->caps & QR_TOOL_DESTROYS);
    CHECK(find(r, "memory_visit")->caps & QR_TOOL_CUMULATIVE);
    CHECK(!(find(r, "memory_get")->caps & QR_TOOL_WRITES));
    int dwims = 0, dwim_exec = 0;
    for (const qr_tool *const *t = qr_mcp_own_tools; *t; t++)
        if (!strcmp((*t)->name, "dwim")) {
            dwims++;
            dwim_exec += ((*t)->caps & QR_TOOL_EXEC) != 0;
        }
    CHECK(dwims == 2 && dwim_exec == 1);

    /* the JSON export names the new bits */
    qr_buf b;
    qr_buf_init(&b);
    qr_tools *one = qr_tools_new();
    CHECK(qr_tools_add(one, find(r, "memory_delete")) == QR_OK);
    CHECK(qr_tools_export(one, QR_TOOLS_JSON, false, &b) == QR_OK);
    CHECK(b.p && strstr(b.p, "\"capabilities\":[\"reads-memory\",\"writes\",\"destroys\"]"));
    qr_buf_release(&b);
    qr_tools_free(one);
    CHECK_STR(qr_tool_cap_name(QR_TOOL_EXEC), "exec");
    CHECK_STR(qr_tool_cap_name(QR_TOOL_CUMULATIVE), "cumulative");
    qr_tools_free(r);
    qr_arena_release(&a);
}

static int nop(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)ctx, (void)req, (void)args, (void)a, (void)err;
    *out = qr_nil();
    return QR_OK;
}

static void test_qualifiers_need_writes(void)
{
    qr_tools *r = qr_tools_new();
    qr_tool bad = {.name = "wipe", .summary = "wipes", .handler = nop, .caps = QR_TOOL_DESTROYS};
    CHECK(qr_tools_add(r, &bad) == QR_EINVAL);
    CHECK(strstr(qr_tools_error(r), "capability 'destroys' qualifies a write") != NULL);
    qr_tool good = bad;
    good.caps = QR_TOOL_WRITES | QR_TOOL_DESTROYS;
    CHECK(qr_tools_add(r, &good) == QR_OK);
    /* a refusal names what allows it, once however many bits it misses */
    qr_tools_restrict(r, QR_TOOL_READS_REPO);
    qr_tools_set_cap_hint(r, QR_TOOL_WRITES, "pass --allow-write");
    qr_tools_set_cap_hint(r, QR_TOOL_DESTROYS, "pass --allow-write");
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val out;
    CHECK(qr_tools_call(r, "wipe", NULL, qr_nil(), &a, &out, &err) == QR_EINVAL);
    CHECK_STR(err.p, "tool 'wipe': not available in this session (it needs capability 'writes' "
                     "and capability 'destroys', which is not allowed); pass --allow-write");
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_tools_free(r);
}

/* The tools a server lists, as {name: annotations}. */
static qr_val served(qr_arena *a, bool write, bool exec)
{
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.repo_dir = "/nonexistent/quarry-unit";
    cfg.workers = 1;
    cfg.allow_write_memory = write;
    cfg.allow_exec = exec;
    qr_mcp_server *s = NULL;
    qr_buf out, err;
    qr_buf_init(&out);
    qr_buf_init(&err);
    CHECK(qr_mcp_server_new(&cfg, &s, &err) == QR_OK);
    CHECK(qr_mcp_export(s, "mcp", NULL, 0, false, &out, &err) == QR_OK);
    qr_mcp_server_free(s);
    qr_val v = qr_nil();
    qr_read_error e;
    CHECK(qr_json_read(a, out.p, out.len, &v, &e) == QR_OK);
    qr_buf_release(&out);
    qr_buf_release(&err);
    qr_mapb m;
    qr_mapb_init(&m, a, qr_vec_len(v));
    for (size_t i = 0; i < qr_vec_len(v); i++) {
        qr_val d = qr_vec_at(v, i);
        qr_mapb_put(&m, get(a, d, "name"), get(a, d, "annotations"));
    }
    return qr_mapb_finish(&m, QR_T_MAP);
}

static qr_val ann_of(qr_arena *a, qr_val list, const char *name)
{
    qr_val v;
    return qr_map_get(list, qr_str_cstr(a, name), &v) ? v : qr_nil();
}

static void test_server_permissions(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    /* by default: reading tools only, every one of them read-only */
    qr_val def = served(&a, false, false);
    CHECK(qr_is_nil(ann_of(&a, def, "memory_add")));
    CHECK(qr_is_nil(ann_of(&a, def, "memory_visit")));
    CHECK(!qr_is_nil(ann_of(&a, def, "memory_get")));
    CHECK(!qr_is_nil(ann_of(&a, def, "dwim")));
    for (size_t i = 0; i < qr_map_len(def); i++)
        CHECK(flag(&a, qr_map_val_at(def, i), "readOnlyHint"));
    /* with writes: the writers are listed, and so is the truth about run_lisp, which can
     * call them */
    qr_val w = served(&a, true, false);
    CHECK(!flag(&a, ann_of(&a, w, "memory_add"), "readOnlyHint"));
    CHECK(flag(&a, ann_of(&a, w, "memory_delete"), "destructiveHint"));
    CHECK(!flag(&a, ann_of(&a, w, "memory_visit"), "idempotentHint"));
    CHECK(!flag(&a, ann_of(&a, w, "run_lisp"), "readOnlyHint"));
    CHECK(!flag(&a, ann_of(&a, w, "run_query"), "readOnlyHint"));
    CHECK(flag(&a, ann_of(&a, w, "memory_query"), "readOnlyHint"));
    /* with exec only: dwim runs repository code, run_lisp stays read-only */
    qr_val x = served(&a, false, true);
    CHECK(!flag(&a, ann_of(&a, x, "dwim"), "readOnlyHint"));
    CHECK(flag(&a, ann_of(&a, x, "dwim"), "destructiveHint"));
    CHECK(flag(&a, ann_of(&a, x, "run_lisp"), "readOnlyHint"));
    CHECK(qr_is_nil(ann_of(&a, x, "memory_add")));
    qr_arena_release(&a);
}

/* ---- the memory write tools on a real store ---- */

static int call(qr_tools *r, qr_arena *a, const char *name, const char *edn, qr_val *out,
                qr_buf *err)
{
    qr_val forms = qr_nil();
    qr_read_error e;
    CHECK(qr_read_all(a, edn, strlen(edn), QR_READ_EDN, &forms, &e) == QR_OK);
    qr_val args = qr_vec_at(forms, 0);
    qr_buf_reset(err);
    return qr_tools_call(r, name, NULL, args, a, out, err);
}

static void test_memory_writes(void)
{
    char dir[] = "/tmp/quarry-caps-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/m.db", dir);
    qr_host h;
    qr_host_init(&h, NULL);
    h.mem.memory_path = path;
    qr_tools *r = qr_tools_default();
    qr_tools_set_ctx(r, &h);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val v;
    /* a link before the store exists does not create it */
    CHECK(call(r, &a, "memory_link", "{:source \"a\" :target \"b\"}", &v, &err) != QR_OK);
    CHECK(access(path, F_OK) != 0);
    CHECK(call(r, &a, "memory_add", "{:key \"a\" :content \"alpha\" :tags [\"x\"]}", &v, &err) ==
          QR_OK);
    CHECK_STR(get(&a, v, "added").s->data, "a");
    CHECK(call(r, &a, "memory_add", "{:key \"b\" :weight 0.9}", &v, &err) == QR_OK);
    CHECK(call(r, &a, "memory_add", "{:key \"a\"}", &v, &err) == QR_ERUNTIME);
    CHECK_STR(err.p, "tool 'memory_add': note 'a' already exists: change it with memory_update");
    CHECK(call(r, &a, "memory_link", "{:source \"a\" :target \"b\" :strength 0.7}", &v, &err) ==
          QR_OK);
    CHECK(get(&a, v, "created").b);
    CHECK(call(r, &a, "memory_link", "{:source \"a\" :target \"b\" :strength 0.8}", &v, &err) ==
          QR_OK);
    CHECK(!get(&a, v, "created").b);
    CHECK(call(r, &a, "memory_visit", "{:key \"a\" :agent \"linker\"}", &v, &err) == QR_OK);
    CHECK(call(r, &a, "memory_visit", "{:key \"a\" :agent \"Not A Word\"}", &v, &err) ==
          QR_EINVAL);
    CHECK(call(r, &a, "memory_update", "{:key \"a\" :weight 0.25 :add_tags [\"y\"]}", &v, &err) ==
          QR_OK);
    CHECK(call(r, &a, "memory_update", "{:key \"a\"}", &v, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "nothing to change"));
    CHECK(call(r, &a, "memory_get", "{:key \"a\"}", &v, &err) == QR_OK);
    CHECK(get(&a, v, "weight").d == 0.25);
    CHECK(qr_vec_len(get(&a, v, "tags")) == 2);
    qr_val links = get(&a, v, "links");
    CHECK(qr_vec_len(links) == 1);
    CHECK(get(&a, qr_vec_at(links, 0), "strength").d == 0.8);
    CHECK_STR(get(&a, v, "content").s->data, "alpha");
    /* the visit is there for a pipeline: a is visited by linker, b is not */
    CHECK(call(r, &a, "memory_query", "{:pipeline \"all | not-visited:linker,7d\"}", &v, &err) ==
          QR_OK);
    CHECK(qr_vec_len(v) == 1 && !strcmp(get(&a, qr_vec_at(v, 0), "key").s->data, "b"));
    CHECK(call(r, &a, "memory_unlink", "{:source \"a\" :target \"b\"}", &v, &err) == QR_OK);
    CHECK(get(&a, v, "removed").i == 1);
    CHECK(call(r, &a, "memory_delete", "{:key \"b\"}", &v, &err) == QR_OK);
    CHECK(call(r, &a, "memory_get", "{:key \"b\"}", &v, &err) == QR_ERUNTIME);
    CHECK(call(r, &a, "memory_restore", "{:key \"b\"}", &v, &err) == QR_OK);
    CHECK(call(r, &a, "memory_get", "{:key \"b\"}", &v, &err) == QR_OK);
    /* a program names no other store */
    CHECK(call(r, &a, "memory_add", "{:key \"c\" :store \"/tmp/other.db\"}", &v, &err) ==
          QR_EINVAL);
    CHECK(err.p && strstr(err.p, "'store' may only name"));
    /* and a registry that cleared WRITES keeps reading but writes nothing */
    qr_tools_restrict(r, (uint32_t)~QR_TOOL_WRITES);
    CHECK(call(r, &a, "memory_add", "{:key \"c\"}", &v, &err) == QR_EINVAL);
    CHECK(call(r, &a, "memory_get", "{:key \"c\"}", &v, &err) == QR_ERUNTIME);
    CHECK(call(r, &a, "memory_get", "{:key \"a\"}", &v, &err) == QR_OK);
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_tools_free(r);
    qr_host_release(&h);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_registry_walk();
    test_qualifiers_need_writes();
    test_server_permissions();
    test_memory_writes();
    CHECK_DONE();
}
