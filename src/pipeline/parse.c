/*
 * parse.c: pipeline text to stages. "all | type:episodic | sort:weight | limit:20" is cut
 * at '|' into stages; each stage is `[!]name`, `[!]name:ARG` (generators, filters,
 * transforms) or `name,param=value,...` (graph stages); the stage table (stages.c) parses
 * each ARG. Bare words in the first stage ("btree journal | spread") are match: terms.
 * The pipeline is then validated as a whole: a generator first (a filter or transform
 * first gets an implicit `all`; a graph stage first is an error, it has no seeds), `all`
 * and `match:` only first, `!` only on filters, the limits of quarry/pipeline.h.
 *
 * Errors name the stage (counted from 1 in the message, 0-based in the struct) and the
 * byte where the problem is, say what was expected, and suggest the nearest stage or
 * parameter name ("did you mean 'spread'?", edit distance at most 2).
 *
 * Design: the text is never modified; every string a stage keeps is copied into the
 * pipeline's arena, so a parsed pipeline is one allocation chain freed at once.
 * Rejected: quoting or escaping '|' (keys and terms with '|' are rare; a key glob can
 * match one with '?'); a first bare word that is a near miss of a stage name read as a
 * search term (a typo of `spread` would silently search for "sprad"; the error says how
 * to search for it: match:sprad).
 */
#include "pipeline_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

typedef struct seg {
    const char *p;
    size_t n;
    uint32_t off; /* of p in the (joined) text */
} seg;

/* Cuts an incomplete UTF-8 sequence off the end of s (left by a truncating snprintf). */
static void utf8_trim(char *s)
{
    size_t n = strlen(s);
    size_t i = n;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80 && n - i < 3)
        i--;
    if (i == 0 || !((unsigned char)s[i - 1] & 0x80))
        return; /* ends in ASCII */
    unsigned char c = (unsigned char)s[i - 1];
    size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (n - (i - 1) < want)
        s[i - 1] = 0;
}

static void verr(qr_pipeline_error *e, int stage, const seg *sg, uint32_t off, const char *fmt,
                 va_list ap)
{
    if (!e)
        return;
    e->stage = stage;
    e->offset = off;
    char detail[320];
    vsnprintf(detail, sizeof detail, fmt, ap);
    utf8_trim(detail);
    if (stage < 0 || !sg) {
        snprintf(e->message, sizeof e->message, "%s", detail);
        utf8_trim(e->message);
        return;
    }
    /* the stage as written, cut at 40 bytes on a character boundary */
    size_t n = sg->n;
    const char *ell = "";
    if (n > 40) {
        n = 40;
        while (n > 0 && ((unsigned char)sg->p[n] & 0xc0) == 0x80)
            n--;
        ell = "...";
    }
    snprintf(e->message, sizeof e->message, "stage %d '%.*s%s' at byte %u: %s", stage + 1, (int)n,
             sg->p, ell, off, detail);
    utf8_trim(e->message);
}

static int fail(qr_pipeline_error *e, int stage, const seg *sg, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(qr_pipeline_error *e, int stage, const seg *sg, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(e, stage, sg, off, fmt, ap);
    va_end(ap);
    return QR_EINVAL;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void trim(seg *s)
{
    while (s->n && is_ws(s->p[0])) {
        s->p++;
        s->n--;
        s->off++;
    }
    while (s->n && is_ws(s->p[s->n - 1]))
        s->n--;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* ---- suggestions ---- */

/* The nearest candidate within distance 2 (1 for words of 3 bytes or fewer), or NULL. */
const char *pl_nearest(const char *s, size_t n, const char *const *cands, size_t ncands)
{
    const char *best = NULL;
    size_t bd = n <= 3 ? 2 : 3;
    for (size_t i = 0; i < ncands; i++) {
        size_t d = qr_edit_distance(s, n, cands[i], strlen(cands[i]), 0);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}

static const char *nearest_stage(const char *s, size_t n)
{
    const char *names[64];
    size_t k = 0;
    for (size_t i = 0; i < pl_ndefs && k < 64; i++)
        names[k++] = pl_defs[i].info.name;
    return pl_nearest(s, n, names, k);
}

static void stage_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < pl_ndefs && used < cap; i++)
        used +=
            (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", pl_defs[i].info.name);
}

static int unknown_stage(qr_pipeline_error *e, int idx, const seg *sg, const char *name, size_t n,
                         bool first_word)
{
    const char *near = nearest_stage(name, n);
    char names[400];
    stage_names(names, sizeof names);
    if (near)
        return fail(e, idx, sg, sg->off, "unknown stage '%.*s'; did you mean '%s'?%s%.*s%s", (int)n,
                    name, near, first_word ? " (to search for the word, write match:" : "",
                    first_word ? (int)n : 0, name, first_word ? ")" : "");
    return fail(e, idx, sg, sg->off, "unknown stage '%.*s'; stages: %s", (int)n, name, names);
}

/* ---- graph parameters: name=value,name=value ---- */

static bool parse_number(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    size_t i = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
    }
    if (!digits)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, ed++;
        if (!ed)
            return false;
    }
    if (i != n)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return *out == *out && *out < 1e300 && *out > -1e300;
}

static int parse_params(qr_pipeline_error *e, int idx, const seg *sg, const char *p, size_t n,
                        uint32_t off, pl_stage *st)
{
    const pl_def *d = st->def;
    size_t np = 0;
    while (d->params[np].name)
        np++;
    bool given[PL_MAX_PARAMS] = {false};
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && p[j] != ',')
            j++;
        seg item = {p + i, j - i, off + (uint32_t)i};
        trim(&item);
        if (!item.n)
            return fail(e, idx, sg, item.off,
                        "empty parameter; write %s,NAME=VALUE,... (parameters of %s: %s)",
                        d->info.name, d->info.name, d->info.syntax);
        const char *eq = memchr(item.p, '=', item.n);
        if (!eq)
            return fail(e, idx, sg, item.off,
                        "parameter '%.*s' has no value; write NAME=VALUE (%s)", (int)item.n, item.p,
                        d->info.syntax);
        seg nm = {item.p, (size_t)(eq - item.p), item.off};
        seg val = {eq + 1, item.n - nm.n - 1, item.off + (uint32_t)nm.n + 1};
        trim(&nm);
        trim(&val);
        size_t k = 0;
        while (k < np &&
               !(strlen(d->params[k].name) == nm.n && !memcmp(d->params[k].name, nm.p, nm.n)))
            k++;
        if (k == np) {
            const char *names[PL_MAX_PARAMS];
            for (size_t q = 0; q < np; q++)
                names[q] = d->params[q].name;
            const char *near = pl_nearest(nm.p, nm.n, names, np);
            char list[160];
            size_t used = 0;
            list[0] = 0;
            for (size_t q = 0; q < np && used < sizeof list; q++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", q ? ", " : "",
                                         names[q]);
            if (near)
                return fail(e, idx, sg, nm.off,
                            "unknown parameter '%.*s' of %s; did you mean '%s'? parameters: %s",
                            (int)nm.n, nm.p, d->info.name, near, list);
            return fail(e, idx, sg, nm.off, "unknown parameter '%.*s' of %s; parameters: %s",
                        (int)nm.n, nm.p, d->info.name, list);
        }
        const pl_param *pp = &d->params[k];
        if (given[k])
            return fail(e, idx, sg, nm.off, "parameter '%s' given twice", pp->name);
        given[k] = true;
        double v;
        bool ok = parse_number(val.p, val.n, &v);
        /* the range first: converting 1e20 to an integer to test it would be undefined */
        bool in_range = ok && v >= pp->min && v <= pp->max && !(pp->min_open && v == pp->min);
        if (in_range && pp->integer && v != floor(v))
            in_range = false;
        if (!in_range) {
            char range[96];
            snprintf(range, sizeof range, "%s %s%g, %g]",
                     pp->integer ? "an integer in" : "a number in", pp->min_open ? "(" : "[",
                     pp->min, pp->max);
            return fail(e, idx, sg, val.off, "parameter '%s' must be %s, got '%.*s'", pp->name,
                        range, (int)val.n, val.p);
        }
        st->pv[k] = v;
        i = j + 1;
    }
    return QR_OK;
}

/* The normalized text of a stage: prefix, then the stage as written with runs of white
 * space made one space (the stage is trimmed already). NULL when out of memory. */
static char *collapse(qr_arena *a, const char *prefix, const char *p, size_t n)
{
    size_t pn = strlen(prefix);
    char *t = qr_arena_alloc(a, pn + n + 1);
    if (!t)
        return NULL;
    memcpy(t, prefix, pn);
    size_t k = pn;
    for (size_t j = 0; j < n; j++) {
        if (is_ws(p[j])) {
            if (k > pn && t[k - 1] != ' ')
                t[k++] = ' ';
        } else {
            t[k++] = p[j];
        }
    }
    t[k] = 0;
    return t;
}

/* The character at p, quoted, whole (the text is valid UTF-8): "'x'" or "'é'". */
static void show_char(const char *p, size_t n, char out[16])
{
    size_t len = 1;
    unsigned char c = (unsigned char)p[0];
    if (c >= 0xf0)
        len = 4;
    else if (c >= 0xe0)
        len = 3;
    else if (c >= 0xc0)
        len = 2;
    if (len > n)
        len = n;
    snprintf(out, 16, "'%.*s'", (int)len, p);
}

/* ---- one stage ---- */

static int parse_stage(qr_pipeline *pl, qr_pipeline_error *e, int idx, seg sg, pl_stage *st)
{
    memset(st, 0, sizeof *st);
    st->offset = sg.off;
    const char *p = sg.p;
    size_t n = sg.n;
    size_t i = 0;
    if (n && p[0] == '!') {
        st->negate = true;
        i = 1;
    }
    size_t name_at = i;
    while (i < n && name_char(p[i]))
        i++;
    const char *name = p + name_at;
    size_t nn = i - name_at;
    if (!nn) {
        if (st->negate)
            return fail(e, idx, &sg, sg.off,
                        "'!' must be followed by a filter, as in !type:semantic");
        char what[16];
        show_char(p + i, n - i, what);
        return fail(e, idx, &sg, sg.off + (uint32_t)i,
                    "expected a stage name ([a-z0-9-]), got %s; stages look like all, "
                    "type:episodic, sort:weight, spread,max_hops=2",
                    what);
    }
    const pl_def *d = pl_find_def(name, nn);
    if (!d)
        return unknown_stage(e, idx, &sg, name, nn, idx == 0 && !st->negate && i == n);
    st->def = d;
    if (st->negate && d->info.kind != QR_STAGE_FILTER)
        return fail(e, idx, &sg, sg.off, "'!' negates filters only; '%s' is a %s", d->info.name,
                    qr_pipeline_kind_name(d->info.kind));
    char sep = i < n ? p[i] : 0;
    if (sep && sep != ':' && sep != ',') {
        if (is_ws(sep))
            return fail(e, idx, &sg, sg.off + (uint32_t)i,
                        "unexpected text after '%s'; separate stages with '|' (%s)", d->info.name,
                        d->info.syntax);
        char what[16];
        show_char(p + i, n - i, what);
        return fail(e, idx, &sg, sg.off + (uint32_t)i, "unexpected %s after '%s'; expected %s",
                    what, d->info.name, d->info.syntax);
    }
    if (d->params) {
        for (size_t k = 0; d->params[k].name; k++)
            st->pv[k] = d->params[k].def;
        if (sep == ':')
            return fail(e, idx, &sg, sg.off + (uint32_t)i,
                        "graph stage '%s' takes parameters after ',', not ':'; write %s",
                        d->info.name, d->info.syntax);
        if (sep == ',') {
            int rc = parse_params(e, idx, &sg, p + i + 1, n - i - 1, sg.off + (uint32_t)i + 1, st);
            if (rc)
                return rc;
        }
    } else {
        if (sep == ',')
            return fail(e, idx, &sg, sg.off + (uint32_t)i,
                        "'%s' takes its argument after ':'; write %s (e.g. %s)", d->info.name,
                        d->info.syntax, d->info.example);
        seg arg = {p + i + (sep ? 1 : 0), sep ? n - i - 1 : 0, sg.off + (uint32_t)i + 1};
        trim(&arg);
        if (d->needs_arg && !arg.n)
            return fail(e, idx, &sg, sep ? arg.off : sg.off + (uint32_t)i,
                        "'%s' needs an argument: %s (e.g. %s)", d->info.name, d->info.syntax,
                        d->info.example);
        if (!d->needs_arg && sep)
            return fail(e, idx, &sg, sg.off + (uint32_t)i, "'%s' takes no argument; write just %s",
                        d->info.name, d->info.name);
        if (d->parse) {
            char msg[300];
            msg[0] = 0;
            int rc = d->parse(st, &pl->a, arg.p, arg.n, msg, sizeof msg);
            if (rc == QR_ENOMEM)
                return fail(e, idx, &sg, sg.off, "out of memory");
            if (rc)
                return fail(e, idx, &sg, arg.off, "%s", msg);
        }
    }
    if (!(st->text = collapse(&pl->a, "", p, n)))
        return fail(e, idx, &sg, sg.off, "out of memory");
    return QR_OK;
}

/* The first stage as bare words ("btree journal"): a match: stage. */
static bool bare_terms(const seg *sg)
{
    if (!sg->n || sg->p[0] == '!')
        return false;
    for (size_t i = 0; i < sg->n; i++)
        if (sg->p[i] == ':' || sg->p[i] == ',' || sg->p[i] == '=')
            return false;
    size_t w = 0;
    while (w < sg->n && !is_ws(sg->p[w]))
        w++;
    bool one_word = w == sg->n;
    bool is_name = true;
    for (size_t i = 0; i < w; i++)
        is_name = is_name && name_char(sg->p[i]);
    if (is_name && pl_find_def(sg->p, w))
        return false;
    /* a single word that looks like a misspelt stage is reported as one */
    if (one_word && is_name && nearest_stage(sg->p, w))
        return false;
    return true;
}

/* ---- the whole pipeline ---- */

static int build(const seg *segs, size_t nsegs, qr_pipeline **out, qr_pipeline_error *e)
{
    if (nsegs > QR_PIPELINE_MAX_STAGES)
        return fail(e, QR_PIPELINE_MAX_STAGES, &segs[QR_PIPELINE_MAX_STAGES],
                    segs[QR_PIPELINE_MAX_STAGES].off, "too many stages: at most %d",
                    QR_PIPELINE_MAX_STAGES);
    qr_pipeline *pl = calloc(1, sizeof *pl);
    if (!pl)
        return fail(e, -1, NULL, 0, "out of memory");
    qr_arena_init(&pl->a, 0);
    pl->stages = qr_arena_zalloc(&pl->a, (nsegs + 1) * sizeof *pl->stages);
    int rc = QR_OK;
    if (!pl->stages) {
        rc = fail(e, -1, NULL, 0, "out of memory");
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < nsegs; i++) {
        seg sg = segs[i];
        pl_stage *st = &pl->stages[k];
        if (i == 0 && bare_terms(&sg)) {
            /* as if written match:TERMS */
            memset(st, 0, sizeof *st);
            st->def = pl_find_def("match", 5);
            st->offset = sg.off;
            char msg[300];
            msg[0] = 0;
            rc = st->def->parse(st, &pl->a, sg.p, sg.n, msg, sizeof msg);
            if (rc) {
                rc = rc == QR_ENOMEM ? fail(e, 0, &sg, sg.off, "out of memory")
                                     : fail(e, 0, &sg, sg.off, "%s", msg);
                goto done;
            }
            if (!(st->text = collapse(&pl->a, "match:", sg.p, sg.n))) {
                rc = fail(e, 0, &sg, sg.off, "out of memory");
                goto done;
            }
        } else if ((rc = parse_stage(pl, e, (int)i, sg, st)) != QR_OK) {
            goto done;
        }
        qr_pipeline_stage_kind kind = st->def->info.kind;
        if (i == 0 && (kind == QR_STAGE_FILTER || kind == QR_STAGE_TRANSFORM)) {
            /* an implicit `all` in front */
            pl->stages[1] = *st;
            memset(st, 0, sizeof *st);
            st->def = pl_def_all();
            st->implicit = true;
            st->offset = sg.off;
            st->text = (char *)"all";
            k++;
        } else if (i == 0 && kind == QR_STAGE_GRAPH) {
            rc = fail(e, 0, &sg, sg.off,
                      "graph stage '%s' needs seeds: start with a generator (all, match:TERMS, "
                      "key:GLOB), e.g. 'match:btree | %s'",
                      st->def->info.name, st->text);
            goto done;
        } else if (i > 0 && kind == QR_STAGE_GENERATOR) {
            rc = fail(e, (int)i, &sg, sg.off,
                      "'%s' makes a new set and must be the first stage; to narrow the set, "
                      "use filters (type:, key:, tag:...)",
                      st->def->info.name);
            goto done;
        }
        k++;
    }
    pl->n = k;
    if (pl->a.exhausted)
        rc = fail(e, -1, NULL, 0, "out of memory");
done:
    if (rc) {
        qr_pipeline_free(pl);
        return rc;
    }
    *out = pl;
    return QR_OK;
}

static int check_text(const char *t, size_t n, uint32_t base, int stage, qr_pipeline_error *e)
{
    if (!qr_utf8_valid(t, n))
        return fail(e, stage, NULL, base, "the pipeline is not valid UTF-8");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if ((c < 0x20 && !is_ws((char)c)) || c == 0x7f)
            return fail(e, stage, NULL, base + (uint32_t)i,
                        "control character 0x%02x at byte %u; write the pipeline as plain text", c,
                        base + (uint32_t)i);
    }
    return QR_OK;
}

int qr_pipeline_parse(const char *text, size_t n, qr_pipeline **out, qr_pipeline_error *err)
{
    *out = NULL;
    if (err) {
        err->stage = -1;
        err->offset = 0;
        err->message[0] = 0;
    }
    if (n > QR_PIPELINE_MAX_TEXT)
        return fail(err, -1, NULL, 0, "pipeline too long: %zu bytes, at most %u", n,
                    QR_PIPELINE_MAX_TEXT);
    int rc = check_text(text, n, 0, -1, err);
    if (rc)
        return rc;
    seg segs[QR_PIPELINE_MAX_STAGES];
    size_t ns = 0, i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && text[j] != '|')
            j++;
        seg s = {text + i, j - i, (uint32_t)i};
        trim(&s);
        if (!s.n) {
            if (ns == 0 && j == n)
                return fail(err, -1, NULL, 0,
                            "empty pipeline: give at least one stage, e.g. 'all | limit:20'");
            return fail(err, (int)ns, NULL, (uint32_t)i,
                        "stage %zu is empty: remove the extra '|' or put a stage between", ns + 1);
        }
        /* the first stage past the limit is the one named (index 64, "stage 65"), however
         * many follow it: build() names the same one */
        if (ns == QR_PIPELINE_MAX_STAGES)
            return fail(err, (int)ns, &s, s.off, "too many stages: at most %d",
                        QR_PIPELINE_MAX_STAGES);
        segs[ns++] = s;
        i = j + 1;
    }
    return build(segs, ns, out, err);
}

int qr_pipeline_parse_stages(const char *const *stages, size_t nstages, qr_pipeline **out,
                             qr_pipeline_error *err)
{
    *out = NULL;
    if (err) {
        err->stage = -1;
        err->offset = 0;
        err->message[0] = 0;
    }
    if (nstages == 0)
        return fail(err, -1, NULL, 0, "empty pipeline: give at least one stage, e.g. -p all");
    if (nstages > QR_PIPELINE_MAX_STAGES)
        return fail(err, -1, NULL, 0, "too many stages: %zu, at most %d", nstages,
                    QR_PIPELINE_MAX_STAGES);
    seg segs[QR_PIPELINE_MAX_STAGES];
    size_t total = 0;
    for (size_t i = 0; i < nstages; i++) {
        size_t n = strlen(stages[i]);
        if (total + n > QR_PIPELINE_MAX_TEXT)
            return fail(err, -1, NULL, 0, "pipeline too long: more than %u bytes",
                        QR_PIPELINE_MAX_TEXT);
        int rc = check_text(stages[i], n, (uint32_t)total, (int)i, err);
        if (rc)
            return rc;
        seg s = {stages[i], n, (uint32_t)total};
        trim(&s);
        if (!s.n)
            return fail(err, (int)i, NULL, (uint32_t)total, "stage %zu is empty", i + 1);
        segs[i] = s;
        total += n + 3; /* as if joined with " | " */
    }
    return build(segs, nstages, out, err);
}

void qr_pipeline_free(qr_pipeline *p)
{
    if (!p)
        return;
    qr_arena_release(&p->a);
    free(p);
}

size_t qr_pipeline_count(const qr_pipeline *p)
{
    return p ? p->n : 0;
}

void qr_pipeline_text(const qr_pipeline *p, qr_buf *out)
{
    for (size_t i = 0; i < p->n; i++) {
        if (i)
            qr_buf_puts(out, " | ");
        qr_buf_puts(out, p->stages[i].text);
    }
}
