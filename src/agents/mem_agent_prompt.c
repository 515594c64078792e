/*
 * mem_agent_prompt.c: a memory agent's prompt. Checks a template's placeholders
 * ({{nodes}}, {{topology}}, {{node:KEY}}, {{agent}}, {{now}}) and fills them
 * from the store for the nodes a query selected; writes the system text that
 * tells the model how to answer (the actions this agent may take, as data).
 *
 * Design: one scanner walks the template for both the check (at load, so a typo
 * is an error before any run) and the fill; text outside placeholders is copied
 * byte for byte. Output is a pure function of the store, the keys and `now`
 * (numbers with %g, times as ISO-8601 UTC), so a prompt can be compared in
 * tests and cached by a provider. The size is bounded at every level: each
 * node's content is cut at QR_MEM_AGENT_NODE_BYTES (at a character boundary,
 * with a note saying how much was cut); nodes stop being taken once the section
 * reaches QR_MEM_AGENT_NODES_BYTES (the nodes left out are reported and get no
 * visit, so the next run sees them); {{topology}} stops listing links and
 * degrees at QR_MEM_AGENT_TOPOLOGY_BYTES, saying how many it left out. Each
 * placeholder thus has a worst case, and the check at load adds them up with
 * the template's text: {{nodes}} and {{topology}} may appear once each (a
 * template repeating them once made a 294 MB prompt), and a template whose
 * worst case passes QR_MEM_AGENT_PROMPT_MAX is refused, naming the line. The
 * fill enforces the same cap again (a template set by hand, or a worst case
 * reasoned wrongly, fails with QR_ELIMIT rather than growing without bound).
 * The reply contract is the system text, not
 * part of the template: every agent gets the same, exact rules for its actions,
 * and the template only says what to do. Rejected: a general template language
 * (conditionals, loops; the seed asks for named slots); an escape for literal
 * "{{" (no prompt has needed one; an unknown placeholder is an error, so a
 * stray "{{" is seen at load); cutting the whole prompt at a byte limit (it
 * would cut the instructions that follow the nodes).
 */
#include "quarry/date.h"
#include "quarry/mem_agent.h"

#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { PH_NODES, PH_TOPOLOGY, PH_NODE, PH_AGENT, PH_NOW } ph_kind;

typedef struct ph {
    size_t start, end; /* the placeholder's bytes, braces included */
    ph_kind kind;
    const char *arg; /* PH_NODE: the key */
    size_t argn;
} ph;

static const char *const ph_names[] = {"nodes", "topology", "node:KEY", "agent", "now"};

/* The most bytes one expansion can take (what the budget at load counts): a
 * node's cut note is under 96 bytes; a section's closing note under 256. */
#define CUT_NOTE_MAX 96
#define SECTION_NOTE_MAX 256

static size_t ph_worst(ph_kind k)
{
    switch (k) {
    case PH_NODES: return QR_MEM_AGENT_NODES_BYTES + SECTION_NOTE_MAX;
    case PH_TOPOLOGY: return QR_MEM_AGENT_TOPOLOGY_BYTES + 2 * SECTION_NOTE_MAX;
    case PH_NODE: return QR_MEM_AGENT_NODE_BYTES + CUT_NOTE_MAX;
    case PH_AGENT: return QR_MEM_WORD_MAX;
    case PH_NOW: return QR_DATE_ISO_LEN;
    }
    return 0;
}

static uint32_t line_at(const char *t, size_t pos)
{
    uint32_t line = 1;
    for (size_t i = 0; i < pos; i++)
        line += t[i] == '\n';
    return line;
}

/* Finds the next placeholder at or after *pos. Returns 1 with *out set, 0 when
 * there is none, QR_EINVAL (err, *line) for a malformed one. */
static int next_ph(const char *t, size_t n, size_t pos, ph *out, uint32_t *line, qr_buf *err)
{
    const char *open = NULL;
    for (size_t i = pos; i + 1 < n; i++)
        if (t[i] == '{' && t[i + 1] == '{') {
            open = t + i;
            break;
        }
    if (!open)
        return 0;
    size_t s = (size_t)(open - t), i = s + 2;
    while (i + 1 < n && !(t[i] == '}' && t[i + 1] == '}') && t[i] != '\n' && i - s < 1200)
        i++;
    if (i + 1 >= n || t[i] != '}') {
        *line = line_at(t, s);
        if (err)
            qr_buf_printf(err, "unclosed placeholder '{{' in the template: write {{nodes}}, "
                               "{{topology}}, {{node:KEY}}, {{agent}} or {{now}} on one line");
        return QR_EINVAL;
    }
    const char *a = t + s + 2, *b = t + i;
    while (a < b && (*a == ' ' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    size_t len = (size_t)(b - a);
    out->start = s;
    out->end = i + 2;
    out->arg = NULL;
    out->argn = 0;
    static const struct {
        const char *w;
        ph_kind k;
    } words[] = {
        {"nodes", PH_NODES}, {"topology", PH_TOPOLOGY}, {"agent", PH_AGENT}, {"now", PH_NOW}};
    /* names in any case: the seed's own agent writes {{NODES}} and {{TOPOLOGY}} */
    for (size_t k = 0; k < 4; k++)
        if (len == strlen(words[k].w) && !strncasecmp(a, words[k].w, len)) {
            out->kind = words[k].k;
            return 1;
        }
    if (len > 5 && !strncasecmp(a, "node:", 5)) {
        const char *k = a + 5;
        while (k < b && (*k == ' ' || *k == '\t'))
            k++;
        if (k < b && (size_t)(b - k) <= QR_MEM_KEY_MAX) {
            out->kind = PH_NODE;
            out->arg = k;
            out->argn = (size_t)(b - k);
            return 1;
        }
    }
    *line = line_at(t, s);
    if (err) {
        const char *sug = NULL;
        size_t best = (size_t)-1;
        for (size_t k = 0; k < 5; k++) {
            size_t d = qr_edit_distance(a, len, ph_names[k], strlen(ph_names[k]), 0);
            if (d < best) {
                best = d;
                sug = ph_names[k];
            }
        }
        size_t k = len < 60 ? len : 60;
        while (k < len && k > 0 && ((unsigned char)a[k] & 0xC0) == 0x80)
            k--;
        qr_buf_printf(err, "unknown placeholder {{%.*s}} in the template", (int)k, a);
        if (best <= 2 && len)
            qr_buf_printf(err, "; did you mean {{%s}}?", sug);
        else
            qr_buf_printf(err, "; known: {{nodes}}, {{topology}}, {{node:KEY}}, {{agent}}, "
                               "{{now}}");
    }
    return QR_EINVAL;
}

static void budget_error(qr_buf *err)
{
    if (err)
        qr_buf_printf(err,
                      "the template can make a prompt larger than %u bytes, the most quarry "
                      "sends: its text, up to %u bytes for {{nodes}}, %u for {{topology}} "
                      "and %u for each {{node:KEY}}; shorten the template or use fewer "
                      "{{node:KEY}}",
                      QR_MEM_AGENT_PROMPT_MAX, QR_MEM_AGENT_NODES_BYTES,
                      QR_MEM_AGENT_TOPOLOGY_BYTES, QR_MEM_AGENT_NODE_BYTES);
}

bool qr_mem_agent_template_has(const char *t, size_t n, const char *name)
{
    size_t pos = 0;
    ph p;
    uint32_t line;
    while (next_ph(t, n, pos, &p, &line, NULL) == 1) {
        if ((p.kind == PH_NODES && !strcmp(name, "nodes")) ||
            (p.kind == PH_TOPOLOGY && !strcmp(name, "topology")))
            return true;
        pos = p.end;
    }
    return false;
}

int qr_mem_agent_template_check(const char *t, size_t n, uint32_t *line, qr_buf *err)
{
    size_t pos = 0, worst = 0;
    size_t first[2] = {0, 0}; /* where {{nodes}} and {{topology}} first are, +1 */
    ph p;
    *line = 0;
    for (;;) {
        int r = next_ph(t, n, pos, &p, line, err);
        if (r < 0)
            return r;
        size_t text = (r ? p.start : n) - pos;
        if (text > QR_MEM_AGENT_PROMPT_MAX - worst) {
            *line = line_at(t, pos + (QR_MEM_AGENT_PROMPT_MAX - worst));
            budget_error(err);
            return QR_EINVAL;
        }
        worst += text;
        if (r == 0)
            return QR_OK;
        if (p.kind == PH_NODES || p.kind == PH_TOPOLOGY) {
            size_t *f = &first[p.kind == PH_TOPOLOGY];
            if (*f) {
                const char *w = p.kind == PH_NODES ? "nodes" : "topology";
                *line = line_at(t, p.start);
                /* the first one's place relative to this one: *line is made
                 * absolute by the caller, a second number could not be */
                uint32_t up = *line - line_at(t, *f - 1);
                if (err) {
                    qr_buf_printf(err, "{{%s}} is used twice in the template (the first ", w);
                    if (up)
                        qr_buf_printf(err, "%u line%s up)", up, up == 1 ? "" : "s");
                    else
                        qr_buf_puts(err, "on the same line)");
                    qr_buf_printf(err, "; it expands to all the selected nodes' %s, so use it once",
                                  p.kind == PH_NODES ? "text" : "links");
                }
                return QR_EINVAL;
            }
            *f = p.start + 1;
        }
        if (ph_worst(p.kind) > QR_MEM_AGENT_PROMPT_MAX - worst) {
            *line = line_at(t, p.start);
            budget_error(err);
            return QR_EINVAL;
        }
        worst += ph_worst(p.kind);
        pos = p.end;
    }
}

/* ---- filling ---- */

static void iso(int64_t t, char *buf)
{
    qr_date_format_iso(t, 0, buf, QR_DATE_ISO_LEN);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00"))
        strcpy(buf + n - 6, "Z");
}

/* Bytes of content shown: at most QR_MEM_AGENT_NODE_BYTES, cut at a character
 * start. */
static size_t shown_len(const char *s, size_t n)
{
    if (n <= QR_MEM_AGENT_NODE_BYTES)
        return n;
    size_t k = QR_MEM_AGENT_NODE_BYTES;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    return k;
}

static void put_content(qr_buf *b, const qr_mem_node *nd, size_t *cut)
{
    size_t k = shown_len(nd->content, nd->content_len);
    qr_buf_append(b, nd->content, k);
    if (k && nd->content[k - 1] != '\n')
        qr_buf_putc(b, '\n');
    if (k < nd->content_len) {
        qr_buf_printf(b, "[content cut: the first %zu of %zu bytes are shown]\n", k,
                      nd->content_len);
        if (cut)
            (*cut)++;
    }
}

static void put_nodes(qr_buf *b, const qr_mem_node *nodes, size_t n, size_t omitted)
{
    if (n == 0)
        qr_buf_puts(b, "(no nodes)\n");
    for (size_t i = 0; i < n; i++) {
        char mod[QR_DATE_ISO_LEN];
        iso(nodes[i].modified, mod);
        qr_buf_printf(b, "%s### node %zu of %zu: %s\n", i ? "\n" : "", i + 1, n, nodes[i].key);
        qr_buf_printf(b, "type: %s | weight: %g | modified: %s\n", nodes[i].type, nodes[i].weight,
                      mod);
        put_content(b, &nodes[i], NULL);
    }
    if (omitted)
        qr_buf_printf(b,
                      "\n(%zu more node%s matched the query but %s left out to keep the "
                      "prompt small; a later run shows %s)\n",
                      omitted, omitted == 1 ? "" : "s", omitted == 1 ? "was" : "were",
                      omitted == 1 ? "it" : "them");
}

static bool in_set(const qr_mem_node *nodes, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(nodes[i].key, key))
            return true;
    return false;
}

/* Appends one formatted line to b unless the section (from byte start) would pass
 * cap; false when it was left out. */
static bool put_capped(qr_buf *b, size_t start, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool put_capped(qr_buf *b, size_t start, size_t cap, const char *fmt, ...)
{
    size_t before = b->len;
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(b, fmt, ap);
    va_end(ap);
    if (b->failed || b->len - start <= cap)
        return true;
    b->len = before;
    if (b->p)
        b->p[before] = 0;
    return false;
}

static int put_topology(qr_buf *b, qr_mem *m, qr_arena *a, const qr_mem_node *nodes, size_t n,
                        qr_buf *err)
{
    size_t start = b->len;
    qr_buf_puts(b, "Links among these nodes (source -> target: type, strength):\n");
    size_t links = 0, links_left = 0;
    for (size_t i = 0; i < n; i++) {
        qr_mem_edge *e = NULL;
        size_t ne = 0;
        int rc = qr_mem_edges(m, nodes[i].key, false, a, &e, &ne, err);
        if (rc != QR_OK)
            return rc;
        for (size_t j = 0; j < ne; j++) {
            if (strcmp(e[j].source, nodes[i].key) || !in_set(nodes, n, e[j].target))
                continue;
            /* links take at most half of the section, so the degrees always show */
            if (!links_left &&
                put_capped(b, start, QR_MEM_AGENT_TOPOLOGY_BYTES / 2, "- %s -> %s: %s, %g\n",
                           e[j].source, e[j].target, e[j].type, e[j].strength))
                links++;
            else
                links_left++;
        }
    }
    if (!links && !links_left)
        qr_buf_puts(b, "- (none)\n");
    if (links_left)
        qr_buf_printf(b, "(%zu more link%s among these nodes left out to keep the prompt small)\n",
                      links_left, links_left == 1 ? "" : "s");
    qr_buf_puts(b, "Degree of each node in the whole graph (how many nodes it is "
                   "linked to):\n");
    const qr_mem_snapshot *s = NULL;
    int rc = qr_mem_snapshot_get(m, &s, err);
    if (rc != QR_OK)
        return rc;
    size_t i = 0;
    for (; i < n; i++) {
        int64_t k = qr_mem_snapshot_find(s, nodes[i].key, strlen(nodes[i].key));
        uint32_t deg = k >= 0 ? s->graph.off[k + 1] - s->graph.off[k] : 0;
        if (!put_capped(b, start, QR_MEM_AGENT_TOPOLOGY_BYTES, "- %s: %u\n", nodes[i].key, deg))
            break;
    }
    if (i < n)
        qr_buf_printf(b, "(the degrees of %zu more node%s left out to keep the prompt small)\n",
                      n - i, n - i == 1 ? "" : "s");
    qr_mem_snapshot_release(s);
    return QR_OK;
}

static void put_system(qr_buf *b, const qr_mem_agent *ag)
{
    qr_buf_printf(b,
                  "You are the memory agent '%s'. You maintain a graph of notes: each node "
                  "has "
                  "a unique key, a type, a weight in [0, 1] and markdown content; nodes "
                  "are "
                  "linked by typed edges with a strength in (0, 1].\n\n"
                  "Answer with your actions as data: one ```json fenced block holding a "
                  "JSON "
                  "array of action objects. Write [] when there is nothing to do. Only the "
                  "actions below are allowed; each object has exactly the fields shown "
                  "(those "
                  "marked optional may be left out) and no others. Write keys exactly as "
                  "the "
                  "prompt gives them. If any action is invalid, none is applied.\n\n"
                  "Allowed actions:\n",
                  ag->name);
    if (ag->actions & QR_MEM_AGENT_LINK_ADD)
        qr_buf_puts(b, "- {\"action\": \"link-add\", \"source\": KEY, \"target\": KEY, "
                       "\"strength\": 0.7, \"type\": \"related\"}: link two existing nodes; "
                       "strength in (0, 1]; type optional ([a-z0-9-]+, default "
                       "\"related\")\n");
    if (ag->actions & QR_MEM_AGENT_WEIGHT)
        qr_buf_puts(b, "- {\"action\": \"weight\", \"key\": KEY, \"weight\": 0.8}: set an "
                       "existing node's weight, in [0, 1]\n");
    if (ag->actions & QR_MEM_AGENT_WRITE)
        qr_buf_puts(b, "- {\"action\": \"write\", \"key\": NEW-KEY, \"content\": TEXT, "
                       "\"type\": \"semantic\", \"weight\": 0.5}: add a new node; the key "
                       "must "
                       "not exist yet; type [a-z0-9-]+; weight optional (default 0.5)\n");
    if (ag->actions & QR_MEM_AGENT_REFINE)
        qr_buf_puts(b, "- {\"action\": \"refine\", \"key\": KEY, \"content\": TEXT}: replace "
                       "an existing node's content with a better version\n");
    if (!ag->actions)
        qr_buf_puts(b, "- none: this agent only reads; answer with []\n");
}

void qr_mem_agent_prompt_clear(qr_mem_agent_prompt *p)
{
    qr_buf_release(&p->system);
    qr_buf_release(&p->user);
    qr_mem_agent_keys_free(p->shown, p->nshown);
    memset(p, 0, sizeof *p);
}

void qr_mem_agent_keys_free(char **keys, size_t n)
{
    for (size_t i = 0; keys && i < n; i++)
        free(keys[i]);
    free(keys);
}

static int too_big(const qr_mem_agent *ag, uint32_t line, qr_buf *err)
{
    if (err)
        qr_buf_printf(err,
                      "agent '%s': the filled prompt passes %u bytes at line %u of the "
                      "template; use {{nodes}} and {{topology}} once each and fewer "
                      "{{node:KEY}}",
                      ag->name, QR_MEM_AGENT_PROMPT_MAX, line);
    return QR_ELIMIT;
}

int qr_mem_agent_fill(const qr_mem_agent *ag, qr_mem *m, const char *const *keys, size_t nkeys,
                      int64_t now, qr_mem_agent_prompt *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    qr_buf_init(&out->system);
    qr_buf_init(&out->user);
    qr_arena a;
    qr_arena_init(&a, 0);
    int rc = QR_ENOMEM;
    qr_mem_node *nodes = nkeys ? calloc(nkeys, sizeof *nodes) : NULL;
    if (nkeys && !nodes)
        goto done;
    size_t n = 0, used = 0;
    for (; n < nkeys; n++) {
        rc = qr_mem_node_get(m, keys[n], false, &a, &nodes[n], err);
        if (rc != QR_OK)
            goto done;
        /* an upper bound of what put_nodes writes for it: header lines (two numbers,
         * a %g and a date: under 160 bytes with the key and type), content, cut note */
        size_t cost = shown_len(nodes[n].content, nodes[n].content_len) + strlen(keys[n]) +
                      strlen(nodes[n].type) + 160 + CUT_NOTE_MAX;
        if (n > 0 && used + cost > QR_MEM_AGENT_NODES_BYTES)
            break;
        used += cost;
    }
    out->omitted = nkeys - n;
    for (size_t i = 0; i < n; i++)
        if (shown_len(nodes[i].content, nodes[i].content_len) < nodes[i].content_len)
            out->cut++;
    /* only what {{nodes}} shows the model is shown (and gets a visit): a template
     * without it shows none of the selected nodes' text */
    size_t nshow = qr_mem_agent_template_has(ag->template, ag->template_len, "nodes") ? n : 0;
    rc = QR_ENOMEM;
    if (nshow && !(out->shown = calloc(nshow, sizeof *out->shown)))
        goto done;
    for (size_t i = 0; i < nshow; i++, out->nshown++)
        if (!(out->shown[i] = strdup(nodes[i].key)))
            goto done;

    put_system(&out->system, ag);
    char nowbuf[QR_DATE_ISO_LEN];
    iso(now, nowbuf);
    const char *t = ag->template;
    size_t tn = ag->template_len, pos = 0;
    for (;;) {
        ph p;
        uint32_t line;
        int r = next_ph(t, tn, pos, &p, &line, NULL);
        if (r < 0) {
            rc = QR_EINVAL;
            if (err)
                qr_buf_printf(err, "agent '%s': the template is not valid (line %u)", ag->name,
                              line);
            goto done;
        }
        size_t text = (r ? p.start : tn) - pos;
        if (text > QR_MEM_AGENT_PROMPT_MAX - out->user.len) {
            rc = too_big(ag, line_at(t, pos), err);
            goto done;
        }
        qr_buf_append(&out->user, t + pos, text);
        if (r == 0)
            break;
        pos = p.end;
        switch (p.kind) {
        case PH_NODES: put_nodes(&out->user, nodes, n, out->omitted); break;
        case PH_TOPOLOGY:
            if ((rc = put_topology(&out->user, m, &a, nodes, n, err)) != QR_OK)
                goto done;
            break;
        case PH_AGENT: qr_buf_puts(&out->user, ag->name); break;
        case PH_NOW: qr_buf_puts(&out->user, nowbuf); break;
        case PH_NODE: {
            char *k = strndup(p.arg, p.argn);
            rc = QR_ENOMEM;
            if (!k)
                goto done;
            qr_mem_node nd;
            qr_buf tmp;
            qr_buf_init(&tmp);
            rc = qr_mem_node_get(m, k, false, &a, &nd, &tmp);
            if (rc == QR_ERUNTIME && err)
                qr_buf_printf(err,
                              "agent '%s': template placeholder {{node:%s}}: no node '%s' "
                              "in the store; add it or change the template",
                              ag->name, k, k);
            else if (rc != QR_OK && err)
                qr_buf_append(err, tmp.p ? tmp.p : "", tmp.len);
            qr_buf_release(&tmp);
            free(k);
            if (rc != QR_OK)
                goto done;
            put_content(&out->user, &nd, NULL);
            break;
        }
        }
        /* each expansion is bounded, so the prompt never grows far past the cap */
        if (out->user.len > QR_MEM_AGENT_PROMPT_MAX) {
            rc = too_big(ag, line_at(t, p.start), err);
            goto done;
        }
    }
    rc = out->user.failed || out->system.failed ? QR_ENOMEM : QR_OK;
done:
    free(nodes);
    qr_arena_release(&a);
    if (rc != QR_OK)
        qr_mem_agent_prompt_clear(out);
    return rc;
}
