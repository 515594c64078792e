/*
 * fuzz_dwim.c: libFuzzer harness for a DWIM line as the product runs it: the real tool
 * registry (qr_tools_default) bound to a real host, on a real git repository with C files
 * made in a temporary directory at the first input and indexed by the code indexer, the
 * parser's path and symbol checks asking that tree (qr_dwim_lookup_init). Any bytes parse
 * without a crash or hang, the confidence stays in [0, 1], the alternatives are at most
 * three and no better than the reading chosen, the JSON printed for it reads back as
 * JSON; then a line the parser would run (confidence 0.85 or more) runs, when its verb or
 * tool only reads (no fix, validate, plan, fetch or note; no tool that writes, runs code
 * or talks to the network), under a request with a deadline, printing its result in one
 * of the four formats (the input's length picks it): JSON output reads back as JSON.
 *
 * A parser-only harness with stand-in lookups (the previous one) ran 108K inputs without
 * reaching the crash of a key=value parameter beside a known symbol: the crash needs the
 * real registry and a symbol the index knows, so the harness has both.
 */
#define _GNU_SOURCE
#include "quarry/dwim.h"
#include "quarry/host.h"
#include "quarry/req.h"
#include "quarry/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[4096];
static qr_tools *tools;
static qr_host host;

static void put(const char *rel, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
}

static void sh(const char *cmd)
{
    char line[8400];
    snprintf(line, sizeof line, "cd '%s' && %s >/dev/null 2>&1", root, cmd);
    if (system(line) != 0)
        abort();
}

/* A repository with two commits of C files, indexed once (the graph is kept by the host). */
static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/quarry-fuzz-dwim-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        abort();
    char p[4200];
    snprintf(p, sizeof p, "%s/src", root);
    if (mkdir(p, 0755) != 0)
        abort();
    put("src/a.c", "#include \"a.h\"\n\nstruct acc {\n    int total;\n};\n\n"
                   "int add(int a, int b)\n{\n    return a + b;\n}\n\n"
                   "static int twice(int a)\n{\n    return add(a, a);\n}\n\n"
                   "int main(void)\n{\n    return twice(1) - 2;\n}\n");
    put("src/a.h", "int add(int a, int b);\n");
    put("a.c", "int lx_eval(int x)\n{\n    return x * 2;\n}\n");
    put("README", "a small tree\n");
    sh("git init -q -b main . && git config user.name F && git config user.email f@x && "
       "git add -A && git commit -q -m one && echo '/* two */' >> a.c && "
       "git commit -q -am two");
    if (!(tools = qr_tools_default()))
        abort();
    qr_host_init(&host, root);
    qr_tools_set_ctx(tools, &host);
    /* index now: the first symbol lookup assembles the graph */
    qr_dwim_ctx c = {.host = &host, .tools = tools, .root = root};
    qr_dwim_lookup lk;
    qr_dwim_lookup_init(&lk, &c);
    if (!lk.symbol_known(lk.ud, "add") || !lk.symbol_known(lk.ud, "main"))
        abort();
}

static void cleanup(void)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (root[0] && system(cmd) != 0)
        fprintf(stderr, "fuzz_dwim: cannot remove %s\n", root);
}

/* Whether running the intent only reads. */
static bool read_only(const qr_dwim_intent *in)
{
    switch (in->verb) {
    case QR_DWIM_SKELETON:
    case QR_DWIM_EXPAND:
    case QR_DWIM_READ:
    case QR_DWIM_GREP:
    case QR_DWIM_CALLERS:
    case QR_DWIM_CALLEES:
    case QR_DWIM_DEPS:
    case QR_DWIM_REFERENCES:
    case QR_DWIM_DEFINITION:
        return true;
    case QR_DWIM_TOOL: {
        const qr_tool *t = in->tool ? qr_tools_find(tools, in->tool, strlen(in->tool)) : NULL;
        return t && !(t->caps & (QR_TOOL_WRITES | QR_TOOL_EXEC | QR_TOOL_NETWORK));
    }
    default:
        return false;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tools) {
        setup();
        atexit(cleanup);
    }
    qr_req req;
    qr_req_init(&req, &(qr_budget){.time_ms = 2000, .steps = 1000000, .memory = 64u << 20});
    qr_dwim_ctx c = {.host = &host, .tools = tools, .root = root, .req = &req};
    qr_dwim_lookup lk;
    qr_dwim_lookup_init(&lk, &c);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_intent in;
    int rc = qr_dwim_parse(&lk, (const char *)data, size, &a, &in);
    if (rc != QR_OK)
        abort();
    if (!(in.confidence >= 0 && in.confidence <= 1) || in.nalts > 3)
        abort();
    for (size_t i = 0; i < in.nalts; i++)
        if (in.alts[i].confidence > in.confidence)
            abort();
    qr_buf b;
    qr_buf_init(&b);
    qr_dwim_intent_json(&in, &b);
    qr_val v;
    qr_read_error e;
    /* the JSON must read back whenever the input was valid UTF-8 (strings are copied) */
    if (qr_utf8_valid((const char *)data, size) && !memchr(data, 0, size) &&
        qr_json_read(&a, b.p, b.len, &v, &e) != QR_OK)
        abort();
    qr_buf_release(&b);
    if (in.confidence >= 0.85 && read_only(&in)) {
        qr_buf out, err;
        qr_buf_init(&out);
        qr_buf_init(&err);
        c.format = (qr_dwim_format)(size % 4);
        rc = qr_dwim_run(&c, &in, &out, &err);
        /* a failure says why in one line */
        if (rc != QR_OK && (!err.p || !err.len))
            abort();
        /* a result as JSON is one JSON value (when the files it shows are UTF-8) */
        if (rc == QR_OK && c.format == QR_DWIM_FMT_JSON && out.len &&
            qr_utf8_valid(out.p, out.len) && qr_json_read(&a, out.p, out.len, &v, &e) != QR_OK)
            abort();
        qr_buf_release(&out);
        qr_buf_release(&err);
    }
    qr_arena_release(&a);
    return 0;
}
