/*
 * fuzz_flow_run.c: libFuzzer harness for a flow file as `quarry flow run` takes it: the
 * input is checked (qr_flow_check_text), and a file that checks without errors runs
 * (qr_flow_run) under small budgets (200 ms, 2M steps, 32 MiB, 6 model calls, 3 agent
 * turns, 2 workers) with the real LLM client talking real HTTP to a scripted model: a
 * small server thread on 127.0.0.1, started once per process, that answers every POST in
 * the wire format its path asks for (OpenAI chat completions, or Anthropic messages when
 * the path ends in /messages). Its reply is picked by a hash of the request body: plain
 * text, a JSON array of findings, a JSON object, a number, or a call of one of the tools
 * the request offers (so agents run their tool loop). The run's tools are the product
 * registry bound to a real host on a small git repository made at the first input,
 * restricted to the tools that only read (no writes, network, model or exec), and the
 * files group (read_file, search_files) on that repository's tree, without edit_file.
 *
 * Files that declare an MCP tool (`tool X = mcp "stdio:CMD"`) are checked but not run: the
 * fuzzer would otherwise write commands for the run to start.
 *
 * Whatever the file, nothing may crash, leak or hang past libFuzzer's timeout; a run ends
 * with one of qr_flow_run's documented codes, and a failed run has a one-line message.
 */
#define _GNU_SOURCE
#include "quarry/flow.h"
#include "quarry/host.h"
#include "quarry/llm.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[4096];
static qr_tools *tools;
static qr_host host;
static qr_llm_config llm;
static char url[64];

/* ---- the scripted model ---- */

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* The k-th tool name the request offers (OpenAI: "function":{"name":"X"; Anthropic: a
 * "name":"X" followed by "input_schema"), or false. */
static bool offered_tool(const char *body, bool anthropic, uint64_t k, char *out, size_t cap)
{
    const char *key = anthropic ? "\"name\":\"" : "\"function\":{\"name\":\"";
    const char *tl = strstr(body, "\"tools\":[");
    if (!tl)
        return false;
    size_t found = 0;
    char names[8][65];
    for (const char *p = strstr(tl, key); p && found < 8; p = strstr(p + 1, key)) {
        const char *s = p + strlen(key), *e = strchr(s, '"');
        if (!e || (size_t)(e - s) >= sizeof names[0])
            continue;
        if (anthropic && strncmp(e, "\",\"description\"", 15) && strncmp(e, "\",\"input_schema\"", 16))
            continue;
        memcpy(names[found], s, (size_t)(e - s));
        names[found][e - s] = 0;
        found++;
    }
    if (!found)
        return false;
    snprintf(out, cap, "%s", names[k % found]);
    return true;
}

static void reply_for(const char *body, bool anthropic, qr_buf *out)
{
    uint64_t h = fnv(body, strlen(body));
    static const char *const texts[] = {
        "ok",
        "[{\\\"file\\\":\\\"a.c\\\",\\\"line\\\":3,\\\"message\\\":\\\"leak\\\","
        "\\\"confidence\\\":90},{\\\"file\\\":\\\"b.c\\\",\\\"line\\\":1,\\\"message\\\":"
        "\\\"x\\\",\\\"confidence\\\":10}]",
        "{\\\"answer\\\":\\\"yes\\\",\\\"score\\\":7,\\\"items\\\":[1,2]}",
        "42",
        "```json\\n{\\\"answer\\\": \\\"fenced\\\"}\\n```",
        "",
    };
    char tool[65];
    bool call = (h >> 8) % 3 == 0 && offered_tool(body, anthropic, h >> 16, tool, sizeof tool);
    const char *text = texts[h % (sizeof texts / sizeof texts[0])];
    if (anthropic) {
        qr_buf_puts(out, "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
                         "\"model\":\"m\",\"content\":[");
        if (call)
            qr_buf_printf(out, "{\"type\":\"tool_use\",\"id\":\"tu_%u\",\"name\":\"%s\","
                               "\"input\":{\"limit\":2}}",
                          (unsigned)(h & 0xffff), tool);
        else
            qr_buf_printf(out, "{\"type\":\"text\",\"text\":\"%s\"}", text);
        qr_buf_printf(out, "],\"stop_reason\":\"%s\",\"usage\":{\"input_tokens\":11,"
                           "\"output_tokens\":5}}",
                      call ? "tool_use" : "end_turn");
    } else {
        qr_buf_puts(out, "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"m\","
                         "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",");
        if (call)
            qr_buf_printf(out, "\"content\":null,\"tool_calls\":[{\"id\":\"call_%u\","
                               "\"type\":\"function\",\"function\":{\"name\":\"%s\","
                               "\"arguments\":\"{\\\"limit\\\":2}\"}}]},"
                               "\"finish_reason\":\"tool_calls\"}]",
                          (unsigned)(h & 0xffff), tool);
        else
            qr_buf_printf(out, "\"content\":\"%s\"},\"finish_reason\":\"stop\"}]", text);
        qr_buf_puts(out, ",\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5,"
                         "\"total_tokens\":16}}");
    }
}

static void serve_one(int fd)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return;
    size_t head = 0, want = 0;
    for (;;) {
        if (len == cap) {
            char *nb = cap < (64u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb)
                goto out;
            buf = nb;
            cap *= 2;
        }
        ssize_t k = recv(fd, buf + len, cap - len, 0);
        if (k <= 0)
            goto out;
        len += (size_t)k;
        buf[len] = 0;
        if (!head) {
            char *e = strstr(buf, "\r\n\r\n");
            if (!e)
                continue;
            head = (size_t)(e - buf) + 4;
            char *cl = strcasestr(buf, "\r\ncontent-length:");
            want = cl && cl < e ? strtoul(cl + 17, NULL, 10) : 0;
        }
        if (len >= head + want)
            break;
    }
    buf[head + want] = 0;
    char *sp = strchr(buf, ' '), *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
    bool anthropic = sp && sp2 && sp2 - sp > 9 && !strncmp(sp2 - 9, "/messages", 9);
    qr_buf body;
    qr_buf_init(&body);
    reply_for(buf + head, anthropic, &body);
    char hd[200];
    int hn = snprintf(hd, sizeof hd,
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                      "%zu\r\nConnection: close\r\n\r\n",
                      body.len);
    if (!body.failed && send(fd, hd, (size_t)hn, MSG_NOSIGNAL) == hn)
        (void)!send(fd, body.p, body.len, MSG_NOSIGNAL);
    qr_buf_release(&body);
out:
    free(buf);
}

static void *model_main(void *arg)
{
    int ls = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0)
            continue;
        serve_one(fd);
        close(fd);
    }
    return NULL;
}

static void start_model(void)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 16) != 0 ||
        getsockname(ls, (struct sockaddr *)&sa, &sl) != 0)
        abort();
    snprintf(url, sizeof url, "http://127.0.0.1:%u/v1", (unsigned)ntohs(sa.sin_port));
    pthread_t t;
    if (pthread_create(&t, NULL, model_main, (void *)(intptr_t)ls) != 0)
        abort();
    pthread_detach(t);
    qr_llm_config_init(&llm);
    llm.url = url;
    llm.model = "scripted";
    llm.provider = QR_LLM_OPENAI;
    llm.timeout_ms = 2000;
    llm.connect_timeout_ms = 1000;
    llm.max_retries = 0;
    llm.retry_base_ms = 1;
    llm.retry_max_ms = 1;
    llm.max_tokens = 64;
}

/* ---- the repository the tools read ---- */

static void put(const char *rel, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
}

static void setup(void)
{
    unsetenv("QUARRY_MEMORY");
    unsetenv("QUARRY_SPARQL_DATA");
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/quarry-fuzz-flowrun-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        abort();
    put("a.c", "int add(int a, int b)\n{\n    return a + b;\n}\n\nint main(void)\n{\n"
               "    return add(1, -1);\n}\n");
    put("README", "a small tree\n");
    char line[8400];
    snprintf(line, sizeof line,
             "cd '%s' && git init -q -b main . && git config user.name F && git config "
             "user.email f@x && git add -A && git commit -q -m one && echo '/* two */' >> a.c "
             "&& git commit -q -am two >/dev/null 2>&1",
             root);
    if (system(line) != 0)
        abort();
    if (!(tools = qr_tools_default()))
        abort();
    qr_tools_restrict(tools, QR_TOOL_READS_REPO | QR_TOOL_READS_MEMORY);
    qr_host_init(&host, root);
    qr_tools_set_ctx(tools, &host);
    start_model();
}

static void cleanup(void)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (root[0] && system(cmd) != 0)
        fprintf(stderr, "fuzz_flow_run: cannot remove %s\n", root);
}

static void no_log(void *ud, const char *line)
{
    (void)ud;
    if (strchr(line, '\n'))
        abort(); /* a log statement is one line */
}

/* A `tool X = mcp "stdio:COMMAND"` (or an https URL) would make the run start any
 * program or reach any host the fuzzer writes: such files are checked, never run. */
static bool declares_mcp(const qr_flow_file *f)
{
    for (size_t i = 0; i < f->ndecls; i++)
        if (f->decls[i]->kind == QR_FD_TOOL && f->decls[i]->mcp)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    if (!tools) {
        setup();
        atexit(cleanup);
    }
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = 0;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags d;
    qr_flow_diags_init(&d);
    qr_flow_file *f = NULL;
    if (qr_flow_check_text(&a, src, size, &f, &d) != QR_OK)
        abort();
    if (!d.errors && f && !declares_mcp(f)) {
        qr_flow_run_opts o;
        memset(&o, 0, sizeof o);
        o.input = "review a.c";
        o.inputn = strlen(o.input);
        o.llm = &llm;
        o.tools = tools;
        o.root = root; /* the files group reads the small tree; never writes it */
        o.host = &host;
        o.budget = (qr_flow_budget){.max_calls = 6,
                                    .max_tokens = 4000,
                                    .max_ms = 200,
                                    .max_steps = 2000000,
                                    .max_memory = 32u << 20,
                                    .max_turns = 3,
                                    .workers = 2};
        o.log = no_log;
        qr_flow_result r;
        int rc = qr_flow_run(f, &o, &r);
        if (rc != QR_OK && rc != QR_ERUNTIME && rc != QR_ELIMIT && rc != QR_ESTOPPED &&
            rc != QR_ENOMEM)
            abort();
        if (rc != QR_OK && (!r.error[0] || strchr(r.error, '\n')))
            abort(); /* a failed run says why, in one line */
        if (r.calls > o.budget.max_calls)
            abort();
        qr_flow_result_clear(&r);
        qr_host_release(&host); /* what the tools opened, closed as the command would */
    }
    qr_flow_diags_clear(&d);
    qr_arena_release(&a);
    free(src);
    return 0;
}
