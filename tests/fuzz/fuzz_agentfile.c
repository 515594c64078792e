/*
 * fuzz_agentfile.c: libFuzzer harness for what a memory agent reads from outside: the
 * agent file (TOML, then the schema, the pipeline, the template's placeholders) and the
 * model's reply (fences, JSON, JSON lines, EDN, then every action's fields). Any input
 * either loads / parses or fails with a well-formed error: one line, "fuzz.toml:LINE: "
 * first, valid UTF-8; a rejected reply has at least one problem, each with an index in
 * range and a non-empty UTF-8 reason, and no actions. Never a crash or a hang.
 * An agent that loads is filled against a small in-memory store (one node whose
 * content is past the cut, two links): the fill succeeds or names a missing
 * {{node:KEY}}, and never passes QR_MEM_AGENT_PROMPT_MAX, which checks the
 * worst case the loader adds up; the three nodes count as shown only when the
 * template has {{nodes}} (a template without it, e.g. "#{nodes}}", shows none).
 */
#include "quarry/mem_agent.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Made once: a store with nodes a (long content), b and c, and links a->b, b->c. */
static qr_mem *store(void)
{
    static qr_mem *m;
    static bool made;
    if (made)
        return m;
    made = true;
    qr_buf err;
    qr_buf_init(&err);
    static char big[3 * QR_MEM_AGENT_NODE_BYTES];
    memset(big, 'x', sizeof big - 1);
    if (qr_mem_open(&m, ":memory:", QR_MEM_CREATE, &err) != QR_OK)
        abort();
    static const char *const keys[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        qr_mem_node n;
        memset(&n, 0, sizeof n);
        n.key = keys[i];
        n.content = i ? "short" : big;
        n.content_len = strlen(n.content);
        n.weight = 0.5;
        if (qr_mem_node_add(m, &n, NULL, &err) != QR_OK)
            abort();
    }
    if (qr_mem_link(m, "a", "b", 0.5, NULL, NULL, &err) != QR_OK ||
        qr_mem_link(m, "b", "c", 0.5, NULL, NULL, &err) != QR_OK)
        abort();
    qr_buf_release(&err);
    return m;
}

static void check_fill(const qr_mem_agent *a)
{
    static const char *const keys[] = {"a", "b", "c"};
    qr_mem_agent_prompt p;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_agent_fill(a, store(), keys, 3, 1763900000, &p, &err);
    /* only what {{nodes}} shows counts as shown (and gets a visit): all three or none */
    size_t shown = qr_mem_agent_template_has(a->template, a->template_len, "nodes") ? 3 : 0;
    if (rc == QR_OK) {
        if (p.user.len > QR_MEM_AGENT_PROMPT_MAX || p.nshown != shown ||
            !qr_utf8_valid(p.user.p ? p.user.p : "", p.user.len))
            abort();
    } else if ((rc != QR_ERUNTIME && rc != QR_ENOMEM) || !err.p) {
        abort();
    }
    qr_mem_agent_prompt_clear(&p);
    qr_buf_release(&err);
}

static void check_agent(const char *text, size_t size)
{
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_agent *a = NULL;
    int rc = qr_mem_agent_parse(&a, "fuzz", "fuzz.toml", text, size, QR_MEM_AGENT_NO_FILES, &err);
    if (rc == QR_OK) {
        if (!a || strcmp(a->name, "fuzz") || !a->pipeline || !a->template || !a->schedule ||
            a->period < 0 || (a->actions & ~15u))
            abort();
        uint32_t line;
        if (qr_mem_agent_template_check(a->template, a->template_len, &line, NULL) != QR_OK)
            abort();
        check_fill(a);
    } else {
        if (a || (rc != QR_EINVAL && rc != QR_ENOMEM) || !err.p)
            abort();
        if (strncmp(err.p, "fuzz.toml:", 10) || strchr(err.p, '\n') ||
            !qr_utf8_valid(err.p, err.len))
            abort();
        if (rc == QR_EINVAL && !(err.p[10] >= '1' && err.p[10] <= '9'))
            abort();
    }
    qr_mem_agent_free(a);
    qr_buf_release(&err);

    /* the template checker on its own: the whole input as a template */
    uint32_t line = 0;
    qr_buf terr;
    qr_buf_init(&terr);
    rc = qr_mem_agent_template_check(text, size, &line, &terr);
    if (rc != QR_OK) {
        size_t lines = 1;
        for (size_t i = 0; i < size; i++)
            lines += text[i] == '\n';
        if (rc != QR_EINVAL || line < 1 || line > lines || !terr.p || terr.len == 0)
            abort();
    }
    qr_buf_release(&terr);
}

static void check_reply(const char *text, size_t size)
{
    qr_mem_agent_plan p;
    unsigned all =
        QR_MEM_AGENT_LINK_ADD | QR_MEM_AGENT_WEIGHT | QR_MEM_AGENT_WRITE | QR_MEM_AGENT_REFINE;
    int rc = qr_mem_agent_parse_reply(&p, size % 2 ? all : QR_MEM_AGENT_WEIGHT, NULL, text, size);
    if (rc == QR_OK) {
        if (p.nproblems || p.n > QR_MEM_AGENT_MAX_ACTIONS)
            abort();
        for (size_t i = 0; i < p.n; i++) {
            const qr_mem_agent_action *x = &p.actions[i];
            if (!qr_mem_agent_action_name(x->kind) || !(x->value >= 0 && x->value <= 1))
                abort();
            if ((x->kind == QR_MEM_AGENT_LINK_ADD && (!x->source || !x->target || !x->type)) ||
                (x->kind != QR_MEM_AGENT_LINK_ADD && !x->key) ||
                ((x->kind == QR_MEM_AGENT_WRITE || x->kind == QR_MEM_AGENT_REFINE) && !x->content))
                abort();
        }
    } else if (rc == QR_EINVAL) {
        if (p.n != 0 || p.nproblems == 0 || p.nproblems > QR_MEM_AGENT_MAX_PROBLEMS)
            abort();
        for (size_t i = 0; i < p.nproblems; i++) {
            const qr_mem_agent_problem *q = &p.problems[i];
            size_t wl = strlen(q->why);
            if (q->index < -1 || q->index >= QR_MEM_AGENT_MAX_ACTIONS || wl == 0 ||
                !qr_utf8_valid(q->why, wl) || !qr_utf8_valid(q->field, strlen(q->field)))
                abort();
            qr_buf b;
            qr_buf_init(&b);
            qr_mem_agent_problem_format(q, &b);
            if (!b.p || !qr_utf8_valid(b.p, b.len))
                abort();
            qr_buf_release(&b);
        }
    } else if (rc != QR_ENOMEM) {
        abort();
    }
    qr_mem_agent_plan_clear(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (256u << 10))
        return 0;
    check_agent((const char *)data, size);
    check_reply((const char *)data, size);
    return 0;
}
