/*
 * loop.c: `quarry do`, the DWIM loop (seed 003). Each turn the model gets the same terse
 * system role and one user message built anew: the task path (root goal to the current
 * leaf, each node with its status and one-line summary), the live notes, and the last
 * result as a preview with its id; it answers one line, which the parser routes and the
 * verbs run. The context is a path, not a transcript: its size does not grow with the
 * number of turns (bench/dwim measures it).
 *
 * Loop lines beside the verbs: `plan: GOAL` opens a subtask, `done[: SUMMARY]` closes the
 * current one (the root ends the loop), `fetch ID` shows the next part of a cached result
 * (paged: each fetch goes on where the prompt last stopped, so a long result is read
 * whole in a few turns, and no new result is made), `fetch nN` a note whole,
 * `note[ when]: TEXT` keeps a note (when: `done` expires it when the current subtask
 * closes, `N` after N turns, `'PATTERN'` when a result contains it; none: until
 * `drop ID`). The loop stops with what it has on a stall (the same line three times in a
 * row, or no new result for stall_turns turns), at max_turns model calls, when the
 * model fails, or when the request (ctx->req) stops. Each call is one turn of the turn
 * module (quarry/turn.h: budget, stop, token count, trace events), with no repair: a line
 * that does not parse is answered by its result ("unclear ...") on the next turn.
 *
 * The user message has a budget (PROMPT_BUDGET characters, about 500 tokens at four
 * characters a token) whatever the number of turns: the path shows the root and the two
 * deepest nodes, notes and the SEEN list are cut to fixed shares, and the last result
 * gets what is left (at most preview_chars, at least MIN_PREVIEW), cut at a line end.
 * Rejected: a transcript (grows with the turns); page numbers fixed in advance (the
 * room for a page depends on the notes of the turn).
 *
 * The loop remembers what the model read (ctx->reads, filled by read, expand and
 * skeleton): the prompt lists it under SEEN with the result ids; the same read line again,
 * while its file is unchanged, is answered from the result cache without running; and fix
 * checks each file against the content it had when it was read.
 */
#include "dwim_int.h"

#include "quarry/llm.h"
#include "quarry/turn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_DEPTH = 8,
    MAX_NOTES = 16,
    MAX_RESULTS = 256,
    MAX_SEEN_SHOWN = 5,
    PROMPT_BUDGET = 2000, /* characters of the user message: about 500 tokens */
    MIN_PREVIEW = 400,    /* of the last result, whatever the rest takes */
    NOTE_SHOWN = 100,     /* characters of one note in the prompt (fetch nN: whole) */
    NOTES_SHARE = 320,    /* of the notes section */
    SEEN_SHARE = 300,     /* of the SEEN list */
};

typedef struct node {
    char *goal, *summary;
    const char *status; /* "active", "done" */
} node;

typedef enum { X_MANUAL, X_ON_DONE, X_TURNS, X_PATTERN } expiry;

typedef struct note {
    int id;
    char *text;
    expiry how;
    int depth;     /* X_ON_DONE: the subtask it belongs to */
    uint32_t until_turn;
    char *pattern; /* X_PATTERN */
} note;

typedef struct loop {
    const qr_dwim_loop_opts *o;
    node path[MAX_DEPTH];
    int depth; /* nodes in path */
    note notes[MAX_NOTES];
    size_t nnotes;
    int next_note;
    char *results[MAX_RESULTS]; /* by id - 1 */
    char *lines[MAX_RESULTS];   /* the line that made each */
    size_t shown_to[MAX_RESULTS]; /* how far the prompt showed each */
    size_t nresults;
    char *last_line;
    int last_id;     /* the result the prompt shows */
    size_t last_from; /* from this offset (a fetch goes on where the last view stopped) */
    uint64_t seen[MAX_RESULTS]; /* hashes of results, for progress */
    size_t nseen;
    struct qr_dwim_reads reads; /* what the model read: the SEEN list, repeats, fix */
} loop;

static const char system_role[] =
    "You work on a code repository one terse line per turn. Answer with exactly one line "
    "(a fix may add lines after it). Lines:\n"
    "skeleton PATH | expand SYMBOL | read FILE[:A-B] | grep 'REGEX' | callers SYM | "
    "callees SYM | deps FILE | references SYM | validate [make test] | TOOL key=value\n"
    "fetch ID (the rest of a result, part by part) | fetch nN (a note whole)\n"
    "fix + a unified diff (--- a/F, +++ b/F, @@ -l,n +l,n @@ hunks with context)\n"
    "fix FILE + a block: <<<<<<< SEARCH / old / ======= / new / >>>>>>> REPLACE\n"
    "fix SYMBOL + its whole new text\n"
    "plan: GOAL (open a subtask) | done: SUMMARY (close it; at the root, finish)\n"
    "note: TEXT | note done: TEXT | note 3: TEXT | note 'PATTERN': TEXT | drop ID\n";

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dups(const char *s)
{
    return dupn(s, strlen(s));
}

static void one_line_into(qr_buf *b, const char *s, size_t max)
{
    size_t n = 0;
    for (; *s && n < max; s++, n++)
        qr_buf_putc(b, *s == '\n' ? ' ' : *s);
    if (*s)
        qr_buf_puts(b, "...");
}

/* The task path: the root, then (deeper than three) a gap, then the two deepest nodes. */
static void path_into(loop *L, qr_buf *b)
{
    qr_buf_puts(b, "TASK\n");
    for (int i = 0; i < L->depth; i++) {
        if (L->depth > 3 && i > 0 && i < L->depth - 2) {
            if (i == 1)
                qr_buf_printf(b, "  ... %d subtasks between\n", L->depth - 3);
            continue;
        }
        /* indented by the place shown: root, (gap,) then one level per node */
        int place = L->depth > 3 && i > 0 ? i - (L->depth - 3) : i;
        qr_buf_printf(b, "%*s%d. [%s] ", 2 * place, "", i + 1, L->path[i].status);
        one_line_into(b, L->path[i].goal, i ? 100 : 200);
        if (L->path[i].summary) {
            qr_buf_puts(b, " - ");
            one_line_into(b, L->path[i].summary, 80);
        }
        qr_buf_putc(b, '\n');
    }
}

/* The live notes, newest last, each cut at NOTE_SHOWN; those past the share by id only. */
static void notes_into(loop *L, qr_buf *b)
{
    if (!L->nnotes)
        return;
    qr_buf_puts(b, "NOTES (fetch nN reads one whole)\n");
    size_t first = 0;
    /* the newest that fit in the share, older ones named only */
    size_t used = 0;
    for (size_t i = L->nnotes; i-- > 0;) {
        size_t l = strlen(L->notes[i].text);
        used += 8 + (l > NOTE_SHOWN ? NOTE_SHOWN + 3 : l);
        if (used > NOTES_SHARE) {
            first = i + 1;
            break;
        }
    }
    if (first) {
        qr_buf_puts(b, "older:");
        for (size_t i = 0; i < first; i++)
            qr_buf_printf(b, " n%d", L->notes[i].id);
        qr_buf_putc(b, '\n');
    }
    for (size_t i = first; i < L->nnotes; i++) {
        qr_buf_printf(b, "n%d: ", L->notes[i].id);
        one_line_into(b, L->notes[i].text, NOTE_SHOWN);
        qr_buf_putc(b, '\n');
    }
}

/* What was read, newest first, one short line per result, within SEEN_SHARE. */
static void seen_into(loop *L, qr_buf *b)
{
    int shown = 0, last = 0;
    size_t start = b->len;
    for (size_t i = L->reads.n; i-- > 0 && shown < MAX_SEEN_SHOWN;) {
        const qr_dwim_seen *e = &L->reads.v[i];
        if (!e->id || e->id == last)
            continue;
        if (!shown++)
            qr_buf_puts(b, "SEEN (fetch ID shows one again)\n");
        last = e->id;
        size_t before = b->len;
        qr_buf_printf(b, "#%04d ", e->id);
        one_line_into(b, e->rel, 60);
        qr_buf_putc(b, ' ');
        one_line_into(b, e->what, 40);
        if (!e->key && strcmp(e->what, "edited") != 0)
            qr_buf_puts(b, " (edited since)");
        qr_buf_putc(b, '\n');
        if (b->len - start > SEEN_SHARE) { /* over the share: this one goes */
            b->len = before;
            if (b->p)
                b->p[b->len] = '\0';
            break;
        }
    }
}

/* How much of r from `from` fits in room characters: cut at a line end when one is in
 * the second half. */
static size_t view_len(const char *r, size_t n, size_t from, size_t room)
{
    if (n - from <= room)
        return n - from;
    size_t take = room;
    for (size_t k = take; k > room / 2; k--)
        if (r[from + k - 1] == '\n')
            return k;
    return take;
}

static void build_prompt(loop *L, uint32_t turn, qr_buf *b)
{
    const qr_dwim_loop_opts *o = L->o;
    path_into(L, b);
    notes_into(L, b);
    seen_into(L, b);
    if (L->last_id) {
        int id = L->last_id;
        const char *r = L->results[id - 1];
        size_t n = strlen(r), from = L->last_from <= n ? L->last_from : 0;
        size_t max = o->preview_chars ? o->preview_chars : 1200;
        qr_buf_printf(b, "LAST #%04d `", id);
        one_line_into(b, L->lines[id - 1] ? L->lines[id - 1] : "", 100);
        qr_buf_puts(b, "`");
        if (from)
            qr_buf_printf(b, " from char %zu of %zu", from + 1, n);
        qr_buf_putc(b, '\n');
        /* what is left of the budget, less the two lines after the result */
        size_t used = b->len + 100;
        size_t room = used < PROMPT_BUDGET ? PROMPT_BUDGET - used : 0;
        if (room > max)
            room = max;
        if (room < MIN_PREVIEW)
            room = MIN_PREVIEW;
        size_t take = view_len(r, n, from, room);
        qr_buf_append(b, r + from, take);
        if (from + take < n)
            qr_buf_printf(b, "%s... %zu more chars: fetch %04d goes on", take && r[from + take - 1] == '\n' ? "" : "\n",
                          n - from - take, id);
        qr_buf_putc(b, '\n');
        L->shown_to[id - 1] = from + take;
    }
    qr_buf_printf(b, "TURN %u/%u. Your line:", turn, o->max_turns);
}

/* `fetch ID` (the next part of result ID) and `fetch nN` (note N whole). Returns 0 when
 * the line is neither; 1 for a result shown again (*id, *from set; res says what), 2 for
 * a line answered in res (a note, or no such result). *progress: new text. */
static int fetch_line(loop *L, const char *line, qr_buf *res, int *id, size_t *from,
                      bool *progress)
{
    if (strncasecmp(line, "fetch", 5) != 0 || !isspace((unsigned char)line[5]))
        return 0;
    const char *s = line + 5;
    while (isspace((unsigned char)*s))
        s++;
    bool note_ref = *s == 'n' || *s == 'N';
    if (note_ref)
        s++;
    while (*s == '#')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    long k = strtol(s, NULL, 10);
    if (note_ref) {
        for (size_t i = 0; i < L->nnotes; i++)
            if (L->notes[i].id == k) {
                qr_buf_printf(res, "n%ld: %s", k, L->notes[i].text);
                *progress = true;
                return 2;
            }
        qr_buf_printf(res, "no note n%ld", k);
        return 2;
    }
    if (k < 1 || (size_t)k > L->nresults) {
        qr_buf_printf(res, "no result #%04ld (results so far: #0001 to #%04zu)", k, L->nresults);
        return 2;
    }
    const char *r = L->results[k - 1];
    size_t n = strlen(r), to = L->shown_to[k - 1];
    *id = (int)k;
    /* on from where it was last shown; from the start once it was shown to the end */
    *from = to < n ? to : 0;
    *progress = to < n;
    if (*from)
        qr_buf_printf(res, "#%04ld from char %zu of %zu", k, *from + 1, n);
    else
        qr_buf_printf(res, "#%04ld again from its start (%zu chars)", k, n);
    return 1;
}

static bool fence(const char *s)
{
    return !strncmp(s, "```", 3);
}

/* The model's line: the first non-empty line outside a code fence. A fix keeps the lines
 * after it (its edit): when they open with a fence, up to the fence that closes it;
 * otherwise up to a fence or the end. A reply that is a unified diff with no line before
 * it (`--- a/x.c`, `diff --git`, `@@ -1,3 +1,4 @@`) is a fix of that diff. */
static char *model_line(const char *text)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        const char *s = p;
        while (l && isspace((unsigned char)*s)) {
            s++;
            l--;
        }
        while (l && isspace((unsigned char)s[l - 1]))
            l--;
        if (!l || fence(s)) {
            p = e ? e + 1 : p + strlen(p);
            continue;
        }
        bool diff = !strncmp(p, "--- ", 4) || !strncmp(p, "diff --git ", 11) ||
                    !strncmp(p, "@@ -", 4);
        bool fix = diff || ((l == 3 || (l > 3 && s[3] == ' ')) && !strncasecmp(s, "fix", 3) &&
                            !memchr(s, ':', l));
        if (!fix || (!e && !diff))
            return dupn(s, l);
        qr_buf b;
        qr_buf_init(&b);
        if (diff)
            qr_buf_puts(&b, "fix");
        else
            qr_buf_append(&b, s, l);
        /* the edit: from the next line (or this one, for a bare diff) */
        const char *q = diff ? p : e + 1;
        while (*q == '\n')
            q++;
        bool fenced = fence(q);
        if (fenced)
            q = strchr(q, '\n') ? strchr(q, '\n') + 1 : q + strlen(q);
        while (*q) {
            const char *qe = strchr(q, '\n');
            size_t ql = qe ? (size_t)(qe - q) : strlen(q);
            if (fence(q))
                break;
            qr_buf_putc(&b, '\n');
            qr_buf_append(&b, q, ql);
            q = qe ? qe + 1 : q + ql;
        }
        return qr_buf_detach(&b, NULL);
    }
    return NULL;
}

static void expire_notes(loop *L, uint32_t turn, const char *result, int closed_depth)
{
    size_t k = 0;
    for (size_t i = 0; i < L->nnotes; i++) {
        note *n = &L->notes[i];
        bool gone = (n->how == X_TURNS && turn >= n->until_turn) ||
                    (n->how == X_ON_DONE && closed_depth > 0 && n->depth >= closed_depth) ||
                    (n->how == X_PATTERN && result && strstr(result, n->pattern));
        if (gone) {
            free(n->text);
            free(n->pattern);
        } else
            L->notes[k++] = *n;
    }
    L->nnotes = k;
}

/* note[ WHEN]: TEXT and drop ID; returns true when the line was one, with its result. */
static bool note_line(loop *L, const char *line, uint32_t turn, qr_buf *res)
{
    if (!strncasecmp(line, "drop ", 5)) {
        const char *s = line + 5;
        while (*s == ' ' || *s == 'n' || *s == '#')
            s++;
        int id = atoi(s);
        for (size_t i = 0; i < L->nnotes; i++)
            if (L->notes[i].id == id) {
                free(L->notes[i].text);
                free(L->notes[i].pattern);
                L->notes[i] = L->notes[--L->nnotes];
                qr_buf_printf(res, "dropped n%d", id);
                return true;
            }
        qr_buf_printf(res, "no note n%d", id);
        return true;
    }
    if (strncasecmp(line, "note", 4) != 0 || (line[4] != ' ' && line[4] != ':'))
        return false;
    const char *colon = strchr(line, ':');
    if (!colon)
        return false;
    note n = {.id = ++L->next_note, .how = X_MANUAL, .depth = L->depth};
    const char *when = line + 4;
    while (*when == ' ')
        when++;
    size_t wl = (size_t)(colon - when);
    while (wl && when[wl - 1] == ' ')
        wl--;
    if (wl == 4 && !strncmp(when, "done", 4))
        n.how = X_ON_DONE;
    else if (wl && isdigit((unsigned char)*when)) {
        n.how = X_TURNS;
        n.until_turn = turn + (uint32_t)atoi(when);
    } else if (wl >= 2 && (when[0] == '\'' || when[0] == '"') && when[wl - 1] == when[0]) {
        n.how = X_PATTERN;
        n.pattern = dupn(when + 1, wl - 2);
    }
    const char *t = colon + 1;
    while (*t == ' ')
        t++;
    n.text = dups(t);
    if (L->nnotes == MAX_NOTES) { /* the oldest goes */
        free(L->notes[0].text);
        free(L->notes[0].pattern);
        memmove(L->notes, L->notes + 1, (MAX_NOTES - 1) * sizeof *L->notes);
        L->nnotes--;
    }
    L->notes[L->nnotes++] = n;
    qr_buf_printf(res, "noted n%d", n.id);
    return true;
}

/* A line that read a file before, while the file is as it was then: answered from the
 * result cache with a note, without running it again. */
static bool repeat_read(loop *L, const qr_dwim_intent *in, const char *line, qr_buf *res)
{
    if (in->verb != QR_DWIM_READ && in->verb != QR_DWIM_EXPAND && in->verb != QR_DWIM_SKELETON)
        return false;
    for (size_t i = L->reads.n; i-- > 0;) {
        const qr_dwim_seen *e = &L->reads.v[i];
        if (!e->key || strcmp(e->key, line) != 0 || e->id < 1 || (size_t)e->id > L->nresults)
            continue;
        uint64_t h;
        size_t n;
        if (!qr__dwim_file_hash(L->o->ctx, e->rel, &h, &n) || h != e->hash || n != e->size)
            return false; /* it changed: read it again */
        qr_buf_printf(res, "#%04d again (%s unchanged since; answered from the cache)\n",
                      e->id, e->rel);
        qr_buf_puts(res, L->results[e->id - 1]);
        return true;
    }
    return false;
}

/* The "turn" event: the line, its verb, its result (after the model call's own events). */
static void trace_turn(const qr_dwim_loop_opts *o, uint32_t turn, const char *line,
                       const qr_dwim_intent *in, int id, size_t prompt_chars,
                       size_t result_chars)
{
    if (!o->trace)
        return;
    qr_buf b;
    qr_trace_begin(o->trace, &b, "turn", "dwim");
    qr_trace_int(&b, "turn", turn);
    qr_trace_cstr(&b, "line", line);
    if (in) {
        qr_trace_cstr(&b, "verb", in->verb == QR_DWIM_TOOL ? in->tool : qr_dwim_verb_name(in->verb));
        qr_trace_num(&b, "confidence", in->confidence);
    }
    qr_trace_int(&b, "result", id);
    qr_trace_int(&b, "result_chars", (int64_t)result_chars);
    qr_trace_int(&b, "prompt_chars", (int64_t)prompt_chars);
    qr_trace_emit(o->trace, &b);
}

int qr_dwim_loop_run(const qr_dwim_loop_opts *o, qr_dwim_loop_result *r, qr_buf *err)
{
    memset(r, 0, sizeof *r);
    loop L;
    memset(&L, 0, sizeof L);
    L.o = o;
    struct qr_dwim_reads *outer = o->ctx->reads;
    o->ctx->reads = &L.reads;
    L.path[0] = (node){dups(o->task), NULL, "active"};
    L.depth = 1;
    uint32_t max_turns = o->max_turns ? o->max_turns : 20;
    uint32_t stall_turns = o->stall_turns ? o->stall_turns : 5;
    uint32_t idle = 0, same = 0;
    int rc = QR_OK;
    qr_dwim_lookup lk;
    qr_dwim_lookup_init(&lk, o->ctx);
    r->stop = "max-turns";
    qr_turn_ctx tc = {.llm = o->llm, .req = o->ctx->req, .trace = o->trace, .source = "dwim"};
    bool bound = qr_trace_bind(o->ctx->req, o->trace);
    for (uint32_t turn = 1; turn <= max_turns; turn++) {
        qr_buf prompt;
        qr_buf_init(&prompt);
        build_prompt(&L, turn, &prompt);
        qr_llm_message m = {.role = "user", .content = prompt.p, .len = prompt.len};
        qr_turn mt = {.agent = "dwim",
                     .system = system_role,
                     .system_len = sizeof system_role - 1,
                     .messages = &m,
                     .nmessages = 1,
                     .max_tokens = 600};
        qr_turn_result tres;
        int lrc = qr_turn_run(&tc, &mt, &tres);
        r->calls += tres.calls;
        r->turns = turn;
        r->input_tokens += qr_llm_usage_prompt(&tres.usage);
        r->output_tokens += tres.usage.output;
        if (lrc != QR_OK) {
            if (lrc == QR_ESTOPPED) {
                qr_buf_puts(err, tres.error);
                r->stop = "stopped";
            } else {
                qr_buf_printf(err, "the model failed: %s",
                              tres.error[0] ? tres.error : "no reply");
                r->stop = "model-error";
            }
            trace_turn(o, turn, NULL, NULL, 0, prompt.len, 0);
            qr_turn_result_clear(&tres);
            qr_buf_release(&prompt);
            rc = lrc == QR_ENOMEM || lrc == QR_ESTOPPED ? lrc : QR_EIO;
            break;
        }
        char *line = model_line(tres.text);
        qr_turn_result_clear(&tres);
        if (!line)
            line = dups("");
        /* the same line three times in a row is a stall */
        if (L.last_line && !strcmp(line, L.last_line))
            same++;
        else
            same = 1;
        qr_buf res;
        qr_buf_init(&res);
        bool progress = false, stop = false;
        qr_arena a;
        qr_arena_init(&a, 16u << 20);
        qr_dwim_intent in;
        memset(&in, 0, sizeof in);
        int closed = 0, fetched = 0, view_id = 0;
        size_t view_from = 0;
        if (note_line(&L, line, turn, &res)) {
            progress = true;
        } else if ((fetched = fetch_line(&L, line, &res, &view_id, &view_from, &progress))) {
            /* a page of a result: shown in the next prompt, no new result */
            if (progress)
                same = 0;
        } else if (qr_dwim_parse(&lk, line, strlen(line), &a, &in) != QR_OK) {
            qr_buf_puts(&res, "out of memory");
        } else if (in.verb == QR_DWIM_PLAN && in.confidence >= 0.85) {
            if (L.depth == MAX_DEPTH)
                qr_buf_printf(&res, "too deep: finish a subtask first (done)");
            else {
                L.path[L.depth++] = (node){dups(in.content ? in.content : "(subtask)"), NULL,
                                           "active"};
                qr_buf_printf(&res, "subtask %d opened", L.depth);
                progress = true;
            }
        } else if (in.verb == QR_DWIM_DONE && in.confidence >= 0.85) {
            node *cur = &L.path[L.depth - 1];
            cur->status = "done";
            free(cur->summary);
            cur->summary = dups(in.content ? in.content : "done");
            closed = L.depth;
            progress = true;
            if (L.depth == 1) {
                stop = true;
                r->stop = "done";
                free(r->summary);
                r->summary = dups(cur->summary);
                qr_buf_printf(&res, "task done");
            } else {
                /* the parent records what the subtask found */
                node *parent = &L.path[L.depth - 2];
                free(parent->summary);
                qr_buf s;
                qr_buf_init(&s);
                qr_buf_puts(&s, "last subtask: ");
                one_line_into(&s, cur->summary, 100);
                parent->summary = qr_buf_detach(&s, NULL);
                free(cur->goal);
                free(cur->summary);
                L.depth--;
                qr_buf_printf(&res, "subtask %d closed", L.depth + 1);
            }
        } else if (in.missing_target && in.confidence >= 0.85) {
            /* the verb is clear, its target is not: ask for the target */
            qr_buf_printf(&res, "%s of what? '%s' needs %s: write '%s %s'",
                          qr_dwim_verb_name(in.verb), qr_dwim_verb_name(in.verb),
                          qr_dwim_verb_needs(in.verb), qr_dwim_verb_name(in.verb),
                          in.verb == QR_DWIM_SKELETON ? "FILE|DIR"
                          : in.verb == QR_DWIM_GREP   ? "'PATTERN' [DIR]"
                          : in.verb == QR_DWIM_READ || in.verb == QR_DWIM_DEPS ? "FILE"
                          : in.verb == QR_DWIM_FETCH  ? "ID"
                                                      : "SYMBOL");
        } else if (in.confidence < 0.85) {
            qr_buf_printf(&res, "unclear (%s %.2f): ", qr_dwim_band(in.confidence),
                          in.confidence);
            if (in.verb == QR_DWIM_NONE)
                qr_buf_puts(&res, "no verb or tool recognised");
            else {
                qr_buf_printf(&res, "%s?",
                              in.verb == QR_DWIM_TOOL ? in.tool : qr_dwim_verb_name(in.verb));
                for (size_t i = 0; i < in.nalts; i++)
                    qr_buf_printf(&res, " or %s?",
                                  in.alts[i].verb == QR_DWIM_TOOL ? in.alts[i].tool
                                                                 : qr_dwim_verb_name(in.alts[i].verb));
            }
            qr_buf_puts(&res, " Write one line of the forms listed.");
        } else if (repeat_read(&L, &in, line, &res)) {
            /* answered from the cache: no progress */
        } else {
            qr_buf e;
            qr_buf_init(&e);
            size_t nreads = L.reads.n;
            int vrc = qr_dwim_run(o->ctx, &in, &res, &e);
            /* what this turn read (or wrote) is in the result it makes */
            int next_id = L.nresults < MAX_RESULTS ? (int)L.nresults + 1 : 0;
            for (size_t i = nreads; i < L.reads.n; i++) {
                L.reads.v[i].id = next_id;
                if (vrc == QR_OK && in.verb != QR_DWIM_FIX && next_id)
                    L.reads.v[i].key = dups(line);
            }
            if (vrc != QR_OK) {
                qr_buf_printf(&res, "error: %s", e.p ? e.p : "failed");
            } else {
                uint64_t h = qr_hash_bytes(res.p ? res.p : "", res.len);
                progress = true;
                for (size_t i = 0; i < L.nseen; i++)
                    if (L.seen[i] == h)
                        progress = false;
                if (progress && L.nseen < MAX_RESULTS)
                    L.seen[L.nseen++] = h;
                if (in.verb == QR_DWIM_FIX)
                    r->edits++;
            }
            qr_buf_release(&e);
        }
        /* keep the result (a fetch shows an old one from where it stopped) */
        int id = 0;
        if (fetched == 1) {
            id = view_id;
            L.last_from = view_from;
        } else {
            if (L.nresults < MAX_RESULTS) {
                L.results[L.nresults] = res.p ? dupn(res.p, res.len) : dups("");
                L.lines[L.nresults++] = dups(line);
                id = (int)L.nresults;
            }
            L.last_from = 0;
        }
        L.last_id = id;
        free(L.last_line);
        L.last_line = line;
        expire_notes(&L, turn, res.p, closed);
        trace_turn(o, turn, line, in.verb ? &in : NULL, id, prompt.len, res.len);
        if (o->on_turn)
            o->on_turn(o->on_turn_ud, turn, line, res.p ? res.p : "");
        qr_arena_release(&a);
        qr_buf_release(&res);
        qr_buf_release(&prompt);
        if (stop)
            break;
        idle = progress ? 0 : idle + 1;
        if (same >= 3) {
            r->stop = "stall: the same line three times";
            break;
        }
        if (idle >= stall_turns) {
            r->stop = "stall: no progress";
            break;
        }
    }
    if (!r->summary) {
        /* what it has: the deepest summaries */
        qr_buf s;
        qr_buf_init(&s);
        for (int i = 0; i < L.depth; i++)
            if (L.path[i].summary) {
                qr_buf_puts(&s, L.path[i].summary);
                qr_buf_putc(&s, ' ');
            }
        r->summary = s.p ? qr_buf_detach(&s, NULL) : dups("");
    }
    for (int i = 0; i < L.depth; i++) {
        free(L.path[i].goal);
        free(L.path[i].summary);
    }
    for (size_t i = 0; i < L.nnotes; i++) {
        free(L.notes[i].text);
        free(L.notes[i].pattern);
    }
    for (size_t i = 0; i < L.nresults; i++) {
        free(L.results[i]);
        free(L.lines[i]);
    }
    free(L.last_line);
    qr__dwim_reads_release(&L.reads);
    o->ctx->reads = outer;
    if (bound)
        qr_trace_unbind(o->ctx->req);
    return rc;
}

void qr_dwim_loop_result_clear(qr_dwim_loop_result *r)
{
    free(r->summary);
    r->summary = NULL;
}
