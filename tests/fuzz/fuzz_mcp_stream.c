/*
 * fuzz_mcp_stream.c: libFuzzer harness for a stream of MCP requests as the HTTP transport
 * hands them to a session: the input is split at newlines, and each line goes the way a
 * POST body does (src/mcp/http.c): an oversized one to qr_mcp_handle_oversized with the
 * id the scanner found, else qr_mcp_peek (a cancellation takes effect at once), then
 * read once (mcp_read_message) and handed over with mcp_handle_read, to a server whose
 * pool of two worker threads is running, so tools/call is queued and runs while later
 * lines (pings, cancellations, more calls) arrive. A line "DELETE" ends the session as
 * the transport does (workers stopped, queued and running calls abandoned) and starts a
 * new one; at the end of the input the session's calls are waited for.
 *
 * The server has its real tool registry (reading tools: no --allow-write or --allow-exec)
 * over a small git repository with C files made in a temporary directory at the first
 * input; programs and tool calls run under short limits (100 ms, 8 MiB, 200K steps).
 * Every message the server sends must be one JSON object on one line that reads back, a
 * response must name its request, and nothing may crash, leak or hang.
 */
#define _GNU_SOURCE
#include "mcp/mcp_int.h"
#include "quarry/mcp.h"
#include "mcp_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[4096];

static void put(const char *rel, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
}

/* A repository of three commits with C files in two folders. */
static void setup(void)
{
    unsetenv("QUARRY_MEMORY");
    unsetenv("QUARRY_SPARQL_DATA");
    unsetenv("QUARRY_LLM_URL"); /* search_codebase finds no model: no call leaves */
    unsetenv("QUARRY_LLM_MODEL");
    unsetenv("QUARRY_LLM_API_KEY");
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/quarry-fuzz-mcpstream-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        abort();
    char p[4200];
    snprintf(p, sizeof p, "%s/.no-config", root); /* no user configuration is read */
    setenv("XDG_CONFIG_HOME", p, 1);
    snprintf(p, sizeof p, "%s/src", root);
    if (mkdir(p, 0755) != 0)
        abort();
    put("src/a.c", "#include \"a.h\"\n\nint add(int a, int b)\n{\n    return a + b;\n}\n\n"
                   "static int twice(int a)\n{\n    return add(a, a);\n}\n\n"
                   "int main(void)\n{\n    return twice(1) - 2;\n}\n");
    put("src/a.h", "int add(int a, int b);\n");
    put("util.c", "int lx_eval(int x)\n{\n    return x * 2;\n}\n");
    put("README", "a small tree\n");
    char line[8400];
    snprintf(line, sizeof line,
             "cd '%s' && git init -q -b main . && git config user.name Ann && git config "
             "user.email ann@x && git add -A && git commit -q -m 'add sources' && "
             "echo '/* two */' >> util.c && git commit -q -am 'util: note' && "
             "git config user.name Bob && git config user.email bob@y && "
             "echo 'more' >> README && git commit -q -am 'readme' >/dev/null 2>&1",
             root);
    if (system(line) != 0)
        abort();
}

static void cleanup(void)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (root[0] && system(cmd) != 0)
        fprintf(stderr, "fuzz_mcp_stream: cannot remove %s\n", root);
}

static qr_mcp_server *session_new(const qr_mcp_config *cfg)
{
    qr_mcp_server *s;
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mcp_server_new(cfg, &s, &err) != QR_OK)
        abort();
    qr_buf_release(&err);
    qr_mcp_set_io(s, check_send, NULL, NULL);
    if (qr_mcp_start_workers(s) != QR_OK)
        abort();
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0]) {
        setup();
        atexit(cleanup);
    }
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.repo_dir = root;
    cfg.no_index = true;
    cfg.max_message = 1u << 16;
    cfg.page_size = 3;
    cfg.max_rows = 4;
    cfg.workers = 2;
    cfg.limits.timeout_ms = 100;
    cfg.limits.max_memory = 8u << 20;
    cfg.limits.max_steps = 200000;
    qr_mcp_server *s = session_new(&cfg);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n == 6 && !memcmp(p, "DELETE", 6)) {
            qr_mcp_stop_workers(s, true);
            qr_mcp_server_free(s);
            s = session_new(&cfg);
        } else if (n > cfg.max_message) {
            qr_mcp_idscan sc;
            qr_mcp_idscan_init(&sc);
            qr_mcp_idscan_feed(&sc, p, n);
            size_t idlen;
            const char *id = qr_mcp_idscan_result(&sc, &idlen);
            qr_mcp_handle_oversized(s, n, id, idlen);
        } else if (n) {
            qr_mcp_peek(s, p, n);
            qr_arena a;
            mcp_message_arena_init(&a);
            qr_val m = qr_nil();
            qr_read_error e;
            int rc = mcp_read_message(&a, p, n, &m, &e);
            mcp_handle_read(s, &a, rc, m, &e, n);
            qr_arena_release(&a);
        }
        p = nl ? nl + 1 : end;
    }
    qr_mcp_stop_workers(s, false);
    qr_mcp_server_free(s);
    return 0;
}
