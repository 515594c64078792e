/*
 * stages.c: the stage table: one record per stage (name, kind, syntax, summary, example,
 * how its argument parses, and how it runs), which the parser, the runner, `quarry mem
 * query --help` and docs/pipeline.md all follow (as Redis keeps one record per command).
 *
 * Generators make the set (all, match:), filters keep the nodes whose predicate holds
 * (run through one loop in run.c, with '!' applied there), transforms sort and cut, graph
 * stages call the graph algorithms (quarry/graph.h) with the set as seeds and make their
 * result the set.
 *
 * Decisions (docs/pipeline.md): type:T matches T and the family T-* (type:episodic is
 * every episodic-* type); age: is the time since the last modification; not-visited:A,D
 * keeps nodes A never visited or last visited more than D ago (no D: never visited);
 * visited:A[,D] is its complement; key: and provenance: are globs.
 * Rejected: regular expressions for key: (globs are what keys are written with, and run
 * in bounded time); comparisons on created (sort:created covers the need so far).
 */
#include "pipeline_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- globs ---- */

/* Matches one class "[...]" at p (p[0] == '['); *len receives its length, 0 when the
 * class is not closed (then '[' is literal). */
static bool glob_class(const char *p, size_t pn, unsigned char c, size_t *len)
{
    size_t i = 1;
    bool neg = false;
    if (i < pn && (p[i] == '!' || p[i] == '^')) {
        neg = true;
        i++;
    }
    bool hit = false;
    bool first = true;
    while (i < pn && (p[i] != ']' || first)) {
        first = false;
        unsigned char lo = (unsigned char)p[i];
        if (lo == '\\' && i + 1 < pn)
            lo = (unsigned char)p[++i];
        unsigned char hi = lo;
        if (i + 2 < pn && p[i + 1] == '-' && p[i + 2] != ']') {
            hi = (unsigned char)p[i + 2];
            if (hi == '\\' && i + 3 < pn)
                hi = (unsigned char)p[++i + 2];
            i += 2;
        }
        if (c >= lo && c <= hi)
            hit = true;
        i++;
    }
    if (i >= pn) {
        *len = 0;
        return false;
    }
    *len = i + 1;
    return hit != neg;
}

bool pl_glob(const char *p, size_t pn, const char *s, size_t sn)
{
    size_t pi = 0, si = 0;
    size_t star_p = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            char c = p[pi];
            if (c == '*') {
                star_p = ++pi;
                star_s = si;
                continue;
            }
            if (c == '?') {
                pi++;
                si++;
                continue;
            }
            if (c == '[') {
                size_t len;
                bool hit = glob_class(p + pi, pn - pi, (unsigned char)s[si], &len);
                if (len) {
                    if (hit) {
                        pi += len;
                        si++;
                        continue;
                    }
                    goto backtrack;
                }
            }
            if (c == '\\' && pi + 1 < pn)
                c = p[++pi];
            if (c == s[si]) {
                pi++;
                si++;
                continue;
            }
        }
    backtrack:
        if (star_p == (size_t)-1)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

static bool has_wildcard(const char *p)
{
    return strpbrk(p, "*?[\\") != NULL;
}

/* ---- argument parsing helpers ---- */

static char *dup(qr_arena *a, const char *s, size_t n)
{
    return qr_arena_strndup(a, s, n);
}

static bool num(const char *s, size_t n, double *out)
{
    char buf[64];
    if (!n || n >= sizeof buf)
        return false;
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (!digits || i != n)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    return true;
}

/* "30s" "30m" "24h" "7d" "4w" -> seconds */
static bool duration(const char *s, size_t n, int64_t *out)
{
    if (n < 2 || n > 14)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    int64_t unit;
    switch (s[n - 1]) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: return false;
    }
    *out = v * unit; /* at most 10^13 * 604800 < 2^63 */
    return true;
}

static size_t cmp_op(const char *s, size_t n, pl_cmp *op)
{
    if (n >= 2 && s[0] == '>' && s[1] == '=')
        return *op = CMP_GE, 2;
    if (n >= 2 && s[0] == '<' && s[1] == '=')
        return *op = CMP_LE, 2;
    if (n >= 2 && s[0] == '=' && s[1] == '=')
        return *op = CMP_EQ, 2;
    if (n >= 1 && s[0] == '>')
        return *op = CMP_GT, 1;
    if (n >= 1 && s[0] == '<')
        return *op = CMP_LT, 1;
    if (n >= 1 && s[0] == '=')
        return *op = CMP_EQ, 1;
    return *op = CMP_EQ, 0;
}

static bool compare(double v, pl_cmp op, double x)
{
    switch (op) {
    case CMP_EQ: return v == x;
    case CMP_GT: return v > x;
    case CMP_GE: return v >= x;
    case CMP_LT: return v < x;
    case CMP_LE: return v <= x;
    }
    return false;
}

static int parse_cmp(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    (void)a;
    size_t k = cmp_op(s, n, &st->cmp);
    while (k < n && s[k] == ' ')
        k++;
    if (!num(s + k, n - k, &st->num)) {
        snprintf(msg, cap, "expected a comparison like %s, got '%.*s' (operators > >= < <= =)",
                 st->def->info.example, (int)n, s);
        return QR_EINVAL;
    }
    return QR_OK;
}

static int parse_age(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    (void)a;
    size_t k = cmp_op(s, n, &st->cmp);
    while (k < n && s[k] == ' ')
        k++;
    int64_t d;
    if (!duration(s + k, n - k, &d)) {
        snprintf(msg, cap,
                 "expected a comparison with a duration like age:<7d, got '%.*s' (units s m h "
                 "d w)",
                 (int)n, s);
        return QR_EINVAL;
    }
    st->num = (double)d;
    return QR_OK;
}

static int parse_word(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap,
                      const char *what)
{
    if (n > QR_MEM_WORD_MAX) {
        snprintf(msg, cap, "%s too long: %zu bytes, at most %d", what, n, QR_MEM_WORD_MAX);
        return QR_EINVAL;
    }
    if (!(st->str = dup(a, s, n)))
        return QR_ENOMEM;
    if (!qr_mem_word_valid(st->str)) {
        snprintf(msg, cap, "%s '%.*s' is not a word of [a-z0-9-]", what, (int)n, s);
        return QR_EINVAL;
    }
    return QR_OK;
}

static int parse_type(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    return parse_word(st, a, s, n, msg, cap, "type");
}

static int parse_glob(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    (void)msg;
    (void)cap;
    return (st->str = dup(a, s, n)) ? QR_OK : QR_ENOMEM;
}

static int parse_tag(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
            snprintf(msg, cap, "tag '%.*s' has white space; tags are single words", (int)n, s);
            return QR_EINVAL;
        }
    if (n > QR_MEM_WORD_MAX) {
        snprintf(msg, cap, "tag too long: %zu bytes, at most %d", n, QR_MEM_WORD_MAX);
        return QR_EINVAL;
    }
    return (st->str = dup(a, s, n)) ? QR_OK : QR_ENOMEM;
}

/* AGENT[,DURATION] */
static int parse_agent(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    const char *comma = memchr(s, ',', n);
    size_t an = comma ? (size_t)(comma - s) : n;
    while (an && s[an - 1] == ' ')
        an--;
    int rc = parse_word(st, a, s, an, msg, cap, "agent");
    if (rc || !comma)
        return rc;
    const char *d = comma + 1;
    size_t dn = n - (size_t)(d - s);
    while (dn && *d == ' ')
        d++, dn--;
    if (!duration(d, dn, &st->dur) || st->dur == 0) {
        snprintf(msg, cap, "expected a duration after '%s,' like 7d, got '%.*s' (units s m h d w)",
                 st->str, (int)dn, d);
        return QR_EINVAL;
    }
    return QR_OK;
}

static int parse_count(pl_stage *st, const char *s, size_t n, char *msg, size_t cap, double max,
                       const char *what)
{
    double v;
    if (!num(s, n, &v) || v < 0 || v > max || v != (double)(uint64_t)v) {
        snprintf(msg, cap, "expected %s, an integer from 0 to %.0f, got '%.*s'", what, max, (int)n,
                 s);
        return QR_EINVAL;
    }
    st->count = (uint64_t)v;
    return QR_OK;
}

static int parse_limit(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    (void)a;
    return parse_count(st, s, n, msg, cap, QR_PIPELINE_MAX_LIMIT, "a number of nodes");
}

static int parse_community(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg,
                           size_t cap)
{
    (void)a;
    return parse_count(st, s, n, msg, cap, 4294967295.0, "a community id");
}

static const char *const sort_fields[SF_N] = {
    [SF_PRIORITY] = "priority",       [SF_SCORE] = "score",     [SF_TIMESTAMP] = "timestamp",
    [SF_CREATED] = "created",         [SF_WEIGHT] = "weight",   [SF_DEGREE] = "degree",
    [SF_CONTENT_LEN] = "content-len", [SF_KEY_LEN] = "key-len", [SF_KEY] = "key",
};

static int parse_sort(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    (void)a;
    /* the direction after a comma or a space: sort:weight,desc and sort:weight desc */
    size_t fn = 0;
    while (fn < n && s[fn] != ',' && s[fn] != ' ')
        fn++;
    const char *comma = NULL;
    if (fn < n) {
        size_t k = fn;
        while (k < n && s[k] == ' ')
            k++;
        if (k < n && s[k] == ',')
            k++;
        comma = s + k - 1;
    }
    int f = 0;
    while (f < SF_N && !(strlen(sort_fields[f]) == fn && !memcmp(sort_fields[f], s, fn)))
        f++;
    if (f == SF_N) {
        const char *near = pl_nearest(s, fn, sort_fields, SF_N);
        snprintf(msg, cap,
                 "unknown sort field '%.*s'%s%s%s; fields: priority, score, timestamp, created, "
                 "weight, degree, content-len, key-len, key",
                 (int)fn, s, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return QR_EINVAL;
    }
    st->field = f;
    st->asc = f == SF_KEY; /* keys A to Z; everything else largest first */
    if (comma) {
        const char *d = comma + 1;
        size_t dn = n - (size_t)(d - s);
        while (dn && *d == ' ')
            d++, dn--;
        if (dn == 3 && !memcmp(d, "asc", 3))
            st->asc = true;
        else if (dn == 4 && !memcmp(d, "desc", 4))
            st->asc = false;
        else {
            snprintf(msg, cap, "expected asc or desc after '%s', got '%.*s'", sort_fields[f],
                     (int)dn, d);
            return QR_EINVAL;
        }
    }
    return QR_OK;
}

/* match:TERMS: words, or "quoted phrases" */
static int parse_terms(pl_stage *st, qr_arena *a, const char *s, size_t n, char *msg, size_t cap)
{
    char *terms[PL_MAX_TERMS];
    size_t nt = 0, i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        if (i >= n)
            break;
        size_t b, e;
        if (s[i] == '"') {
            b = ++i;
            while (i < n && s[i] != '"')
                i++;
            if (i >= n) {
                snprintf(msg, cap, "unclosed '\"' in the terms; close the phrase");
                return QR_EINVAL;
            }
            e = i++;
        } else {
            b = i;
            while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
                i++;
            e = i;
        }
        if (e == b)
            continue;
        if (nt == PL_MAX_TERMS) {
            snprintf(msg, cap, "too many terms: at most %d", PL_MAX_TERMS);
            return QR_EINVAL;
        }
        if (!(terms[nt++] = dup(a, s + b, e - b)))
            return QR_ENOMEM;
    }
    if (!nt) {
        snprintf(msg, cap, "no terms to match; write match:WORD [WORD...]");
        return QR_EINVAL;
    }
    st->terms = qr_arena_alloc(a, nt * sizeof *st->terms);
    if (!st->terms)
        return QR_ENOMEM;
    memcpy(st->terms, terms, nt * sizeof *terms);
    st->nterms = nt;
    return QR_OK;
}

/* ---- generators ---- */

static int run_all(pl_run *r, const pl_stage *st)
{
    (void)st;
    int rc = pl_reserve(r, r->s->n);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < r->s->n; i++) {
        r->hits[i].node = i;
        r->hits[i].score = 1.0;
    }
    r->n = r->s->n;
    return QR_OK;
}

static int run_match(pl_run *r, const pl_stage *st)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_hit *h = NULL;
    size_t nh = 0;
    int rc = qr_mem_search(r->m, (const char *const *)st->terms, st->nterms, QR_MEM_MATCH_ANY, 0,
                           &a, &h, &nh, r->err);
    if (rc == QR_EINVAL) {
        /* terms with no words ("match:--"): nothing matches */
        qr_buf_reset(r->err);
        rc = QR_OK;
        nh = 0;
    }
    if (!rc)
        rc = pl_reserve(r, nh);
    if (!rc) {
        r->n = 0;
        /* scores relative to the best hit (1), so that they seed graph stages as other
         * generators do: raw BM25 of a common term is about 1e-6, which a spread from it
         * would never carry past its threshold */
        double best = 0;
        for (size_t i = 0; i < nh; i++)
            if (h[i].score > best)
                best = h[i].score;
        for (size_t i = 0; i < nh; i++) {
            int64_t k = qr_mem_snapshot_find_id(r->s, h[i].id);
            if (k < 0)
                continue; /* added after the snapshot was taken */
            r->hits[r->n].node = (uint32_t)k;
            r->hits[r->n].score = best > 0 ? h[i].score / best : 0;
            r->n++;
        }
        pl_sort_by_score(r);
    }
    qr_arena_release(&a);
    return rc;
}

/* ---- filters ---- */

static bool pred_key(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    if (c->i) /* no wildcard: equality */
        return !strcmp(r->s->key[i], st->str);
    return pl_glob(st->str, strlen(st->str), r->s->key[i], r->s->key_len[i]);
}

static int prep_key(pl_run *r, const pl_stage *st, pl_fctx *c)
{
    (void)r;
    c->i = !has_wildcard(st->str);
    return QR_OK;
}

static int prep_type(pl_run *r, const pl_stage *st, pl_fctx *c)
{
    const qr_mem_snapshot *s = r->s;
    c->mask = calloc(s->ntypes ? s->ntypes : 1, 1);
    if (!c->mask)
        return QR_ENOMEM;
    size_t tn = strlen(st->str);
    for (uint32_t t = 0; t < s->ntypes; t++) {
        const char *name = s->types[t];
        c->mask[t] = !strncmp(name, st->str, tn) && (name[tn] == 0 || name[tn] == '-');
    }
    return QR_OK;
}

static bool pred_type(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)st;
    return c->mask[r->s->type[i]];
}

static int prep_tag(pl_run *r, const pl_stage *st, pl_fctx *c)
{
    const qr_mem_snapshot *s = r->s;
    c->i = -1;
    size_t lo = 0, hi = s->ntag_names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(s->tag_names[mid], st->str);
        if (!d) {
            c->i = (int64_t)mid;
            break;
        }
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return QR_OK;
}

static bool pred_tag(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)st;
    if (c->i < 0)
        return false;
    for (uint32_t k = r->s->tag_off[i]; k < r->s->tag_off[i + 1]; k++)
        if (r->s->tag_ids[k] == (uint32_t)c->i)
            return true;
    return false;
}

static bool pred_key_len(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    return compare((double)r->s->key_len[i], st->cmp, st->num);
}

static bool pred_weight(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    /* the snapshot keeps the store's doubles: compared as SQL would compare them */
    return compare(r->s->weight[i], st->cmp, st->num);
}

static bool pred_age(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    return compare((double)(r->now - r->s->modified[i]), st->cmp, st->num);
}

static bool pred_content_len(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    return compare((double)r->s->content_len[i], st->cmp, st->num);
}

static bool pred_degree(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    const qr_graph *g = &r->s->graph;
    return compare((double)(g->off[i + 1] - g->off[i]), st->cmp, st->num);
}

static bool pred_provenance(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)c;
    const char *p = r->s->provenances[r->s->provenance[i]];
    return pl_glob(st->str, strlen(st->str), p, strlen(p));
}

static int prep_agent(pl_run *r, const pl_stage *st, pl_fctx *c)
{
    c->i = qr_mem_snapshot_agent(r->s, st->str);
    return QR_OK;
}

static bool pred_visited(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    if (c->i < 0)
        return false;
    int64_t last = qr_mem_snapshot_last_visit(r->s, c->i, i);
    return last > 0 && (st->dur == 0 || r->now - last <= st->dur);
}

static bool pred_not_visited(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    return !pred_visited(r, st, c, i);
}

static int prep_community(pl_run *r, const pl_stage *st, pl_fctx *c)
{
    (void)st;
    const qr_graph_communities *cm;
    int rc = pl_cache_communities(r, &cm);
    c->p = cm;
    return rc;
}

static bool pred_community(const pl_run *r, const pl_stage *st, const pl_fctx *c, uint32_t i)
{
    (void)r;
    const qr_graph_communities *cm = c->p;
    return cm->of[i] == st->count;
}

/* ---- transforms ---- */

int pl_run_sort(pl_run *r, const pl_stage *st)
{
    return pl_sort(r, st->field, st->asc, r->n);
}

int pl_run_limit(pl_run *r, const pl_stage *st)
{
    if (r->n > st->count)
        r->n = (size_t)st->count;
    return QR_OK;
}

/* ---- graph stages ---- */

static int run_spread(pl_run *r, const pl_stage *st)
{
    qr_graph_spread_params p;
    qr_graph_spread_params_init(&p);
    p.max_hops = (uint32_t)st->pv[0];
    p.edge_decay = st->pv[1];
    p.min_activation = st->pv[2];
    qr_graph_item *seeds;
    int rc = pl_seeds(r, &seeds);
    if (rc)
        return rc;
    qr_graph_hits h = {0};
    p.stop = r->stop;
    rc = qr_graph_spread(&r->s->graph, seeds, r->n, &p, &h, r->err);
    free(seeds);
    return rc ? rc : pl_take_hits(r, &h);
}

static int run_confluence(pl_run *r, const pl_stage *st)
{
    qr_graph_confluence_params p;
    qr_graph_confluence_params_init(&p);
    p.max_hops = (uint32_t)st->pv[0];
    p.edge_decay = st->pv[1];
    p.min_seeds = (uint32_t)st->pv[2];
    qr_graph_item *seeds;
    int rc = pl_seeds(r, &seeds);
    if (rc)
        return rc;
    qr_graph_hits h = {0};
    p.stop = r->stop;
    rc = qr_graph_confluence(&r->s->graph, seeds, r->n, &p, &h, r->err);
    free(seeds);
    return rc ? rc : pl_take_hits(r, &h);
}

static int run_spectral(pl_run *r, const pl_stage *st)
{
    if (!r->n)
        return QR_OK;
    const qr_graph_embedding *e;
    int rc = pl_cache_embedding(r, &e);
    if (rc)
        return rc;
    qr_graph_knn_params p;
    qr_graph_knn_params_init(&p);
    p.k = (uint32_t)st->pv[0];
    qr_graph_item *seeds;
    if ((rc = pl_seeds(r, &seeds)))
        return rc;
    qr_graph_hits h = {0};
    rc = qr_graph_spectral_knn(e, seeds, r->n, &p, &h, r->err);
    free(seeds);
    return rc ? rc : pl_take_hits(r, &h);
}

static int run_geodesic(pl_run *r, const pl_stage *st)
{
    if (!r->n)
        return QR_OK;
    if (r->n > QR_GRAPH_MAX_PAIR_SEEDS) {
        qr_buf_printf(r->err,
                      "geodesic takes at most %d seeds, the set has %zu; put limit:%d (after a "
                      "sort) before it",
                      QR_GRAPH_MAX_PAIR_SEEDS, r->n, QR_GRAPH_MAX_PAIR_SEEDS);
        return QR_ERUNTIME;
    }
    if (st->pv[1] > st->pv[0]) {
        qr_buf_printf(r->err, "geodesic: slack (%g) must not exceed max_hops (%g)", st->pv[1],
                      st->pv[0]);
        return QR_ERUNTIME;
    }
    const qr_graph_embedding *e;
    int rc = pl_cache_embedding(r, &e);
    if (rc)
        return rc;
    qr_graph_geodesic_params p;
    qr_graph_geodesic_params_init(&p);
    p.max_hops = (uint32_t)st->pv[0];
    p.slack = (uint32_t)st->pv[1];
    p.min_alignment = st->pv[2];
    qr_graph_item *seeds;
    if ((rc = pl_seeds(r, &seeds)))
        return rc;
    qr_graph_hits h = {0};
    rc = qr_graph_geodesic(&r->s->graph, e, seeds, r->n, &p, &h, r->err);
    free(seeds);
    return rc ? rc : pl_take_hits(r, &h);
}

static int run_manifold(pl_run *r, const pl_stage *st)
{
    if (!r->n)
        return QR_OK;
    const qr_graph_embedding *e;
    int rc = pl_cache_embedding(r, &e);
    if (rc)
        return rc;
    qr_graph_manifold_params p;
    qr_graph_manifold_params_init(&p);
    p.limit = (uint32_t)st->pv[0];
    p.perp_weight = st->pv[1];
    qr_graph_item *seeds;
    if ((rc = pl_seeds(r, &seeds)))
        return rc;
    qr_graph_hits h = {0};
    rc = qr_graph_manifold(e, seeds, r->n, &p, &h, r->err);
    free(seeds);
    if (rc == QR_EINVAL) {
        /* fewer than two seeds with a direction: a runtime condition, not a bad call */
        return QR_ERUNTIME;
    }
    return rc ? rc : pl_take_hits(r, &h);
}

static const pl_param spread_params[] = {
    {"max_hops", true, 0, QR_PIPELINE_MAX_HOPS, false, 3},
    {"edge_decay", false, 0, 1, true, 0.5},
    {"min_activation", false, 0, 1, false, 0.01},
    {NULL, false, 0, 0, false, 0},
};
static const pl_param confluence_params[] = {
    {"max_hops", true, 1, QR_PIPELINE_MAX_HOPS, false, 3},
    {"edge_decay", false, 0, 1, true, 0.5},
    {"min_seeds", true, 1, 1000, false, 2},
    {NULL, false, 0, 0, false, 0},
};
static const pl_param spectral_params[] = {
    {"k", true, 1, QR_PIPELINE_MAX_K, false, 20},
    {NULL, false, 0, 0, false, 0},
};
static const pl_param geodesic_params[] = {
    {"max_hops", true, 1, QR_PIPELINE_MAX_HOPS, false, 4},
    {"slack", true, 0, QR_PIPELINE_MAX_HOPS, false, 0},
    {"min_alignment", false, 0, 1, false, 0.5},
    {NULL, false, 0, 0, false, 0},
};
static const pl_param manifold_params[] = {
    {"limit", true, 1, QR_PIPELINE_MAX_K, false, 20},
    {"perp_weight", false, 0, 100, false, 1.0},
    {NULL, false, 0, 0, false, 0},
};

/* ---- interference-pairs ---- */

#define PL_PAIR_MAX_SET 4096 /* nodes of the set whose pairs are compared */

typedef struct pl_pair {
    uint32_t a, b; /* nodes, a < b */
    double sim;
} pl_pair;

static bool linked(const qr_graph *g, uint32_t a, uint32_t b)
{
    uint32_t lo = g->off[a], hi = g->off[a + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->adj[mid] == b)
            return true;
        if (g->adj[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* most similar first; ties by the nodes' indexes (creation order): deterministic */
static int pair_cmp(const void *x, const void *y)
{
    const pl_pair *p = x, *q = y;
    if (p->sim != q->sim)
        return p->sim > q->sim ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* interference-pairs: pairs of nodes of the set that are linked to the same nodes (the
 * cosine of their weighted link vectors at least min_sim) yet not to each other: notes
 * that play the same part in the graph without a link saying how they differ, which is
 * what the separator agent is shown. Only pairs that share a neighbour can score above
 * 0, so each node's two-hop neighbourhood is all that is visited. The set becomes the
 * nodes of the best `limit` pairs, pair by pair (each node once, at its best pair),
 * scored by the pair's similarity. */
static int run_interference(pl_run *r, const pl_stage *st)
{
    if (!r->n)
        return QR_OK;
    if (r->n > PL_PAIR_MAX_SET) {
        qr_buf_printf(r->err,
                      "interference-pairs compares the pairs of the set, which has %zu nodes "
                      "(at most %d); narrow it first (type:, key:, or sort:... then limit:N)",
                      r->n, PL_PAIR_MAX_SET);
        return QR_ERUNTIME;
    }
    const qr_graph *g = &r->s->graph;
    double min_sim = st->pv[0];
    size_t limit = (size_t)st->pv[1];
    uint32_t N = g->n;
    int rc = QR_OK;
    size_t cap = 0, np = 0;
    pl_pair *pairs = NULL;
    double *norm = calloc(N ? N : 1, sizeof *norm), *acc = calloc(N ? N : 1, sizeof *acc);
    unsigned char *in_set = calloc(N ? N : 1, 1);
    uint32_t *touched = malloc((N ? N : 1) * sizeof *touched);
    if (!norm || !acc || !in_set || !touched) {
        rc = QR_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < r->n; i++) {
        uint32_t a = r->hits[i].node;
        in_set[a] = 1;
        double s2 = 0;
        for (uint32_t e = g->off[a]; e < g->off[a + 1]; e++)
            s2 += (double)g->w[e] * g->w[e];
        norm[a] = sqrt(s2);
    }
    for (size_t i = 0; i < r->n && rc == QR_OK; i++) {
        uint32_t a = r->hits[i].node, nt = 0;
        if (in_set[a] != 1 || norm[a] == 0)
            continue;
        in_set[a] = 2; /* pairs are counted from their first node only */
        for (uint32_t e = g->off[a]; e < g->off[a + 1]; e++) {
            uint32_t x = g->adj[e];
            for (uint32_t f = g->off[x]; f < g->off[x + 1]; f++) {
                uint32_t b = g->adj[f];
                if (b == a || in_set[b] != 1)
                    continue;
                if (acc[b] == 0)
                    touched[nt++] = b;
                acc[b] += (double)g->w[e] * g->w[f];
            }
        }
        for (uint32_t t = 0; t < nt && rc == QR_OK; t++) {
            uint32_t b = touched[t];
            double sim = acc[b] / (norm[a] * norm[b]);
            acc[b] = 0;
            if (sim < min_sim || linked(g, a, b))
                continue;
            if (np == cap) {
                size_t nc = cap ? cap * 2 : 64;
                pl_pair *p = realloc(pairs, nc * sizeof *p);
                if (!p) {
                    rc = QR_ENOMEM;
                    break;
                }
                pairs = p;
                cap = nc;
            }
            pairs[np++] = (pl_pair){a < b ? a : b, a < b ? b : a, sim};
        }
        for (uint32_t t = 0; t < nt; t++)
            acc[touched[t]] = 0;
    }
    if (rc == QR_OK) {
        if (np) /* (qsort of no array is undefined) */
            qsort(pairs, np, sizeof *pairs, pair_cmp);
        /* each pair's two nodes in turn, each node once, until `limit` pairs are in */
        size_t out = 0, taken = 0;
        for (size_t k = 0; k < np && taken < limit; k++) {
            bool new_pair = false;
            uint32_t ends[2] = {pairs[k].a, pairs[k].b};
            for (int x = 0; x < 2; x++) {
                bool seen = false;
                for (size_t q = 0; q < out && !seen; q++)
                    seen = r->hits[q].node == ends[x];
                if (!seen) {
                    r->hits[out].node = ends[x];
                    r->hits[out].score = pairs[k].sim;
                    out++;
                    new_pair = true;
                }
            }
            taken += new_pair;
        }
        r->n = out;
    }
done:
    free(norm);
    free(acc);
    free(in_set);
    free(touched);
    free(pairs);
    return rc;
}

static const pl_param interference_params[] = {
    {"min_sim", false, -1, 1, false, 0.5},
    {"limit", true, 1, QR_PIPELINE_MAX_K, false, 10},
    {NULL, false, 0, 0, false, 0},
};

#define GEN QR_STAGE_GENERATOR
#define FIL QR_STAGE_FILTER
#define TRA QR_STAGE_TRANSFORM
#define GRA QR_STAGE_GRAPH

/* clang-format off */
const pl_def pl_defs[] = {
    {{"all", GEN, "all", "every live node, in creation order, score 1", "all"},
     NULL, NULL, NULL, run_all, NULL, false},
    {{"match", GEN, "match:TERM [TERM...]",
      "full-text search of keys and content (stemmed; \"quoted phrases\"), any term, best first "
      "by BM25", "match:btree journal"},
     parse_terms, NULL, NULL, run_match, NULL, true},
    {{"key", FIL, "key:GLOB", "key matches the glob (* ? [a-z], \\ escapes)", "key:journal#*"},
     parse_glob, prep_key, pred_key, NULL, NULL, true},
    {{"type", FIL, "type:TYPE", "type is TYPE or TYPE-* (type:episodic: every episodic-* type)",
      "type:episodic"},
     parse_type, prep_type, pred_type, NULL, NULL, true},
    {{"tag", FIL, "tag:TAG", "the node has the tag", "tag:todo"},
     parse_tag, prep_tag, pred_tag, NULL, NULL, true},
    {{"key-len", FIL, "key-len:[OP]N", "key length in bytes compared with N", "key-len:>=60"},
     parse_cmp, NULL, pred_key_len, NULL, NULL, true},
    {{"weight", FIL, "weight:[OP]X", "weight (0..1) compared with X", "weight:>0.5"},
     parse_cmp, NULL, pred_weight, NULL, NULL, true},
    {{"age", FIL, "age:[OP]DURATION", "time since the last modification (30m 24h 7d 4w)",
      "age:<7d"},
     parse_age, NULL, pred_age, NULL, NULL, true},
    {{"content-len", FIL, "content-len:[OP]N", "content length in bytes compared with N",
      "content-len:>1000"},
     parse_cmp, NULL, pred_content_len, NULL, NULL, true},
    {{"degree", FIL, "degree:[OP]N", "number of linked nodes compared with N", "degree:>3"},
     parse_cmp, NULL, pred_degree, NULL, NULL, true},
    {{"provenance", FIL, "provenance:GLOB", "provenance matches the glob", "provenance:manual"},
     parse_glob, NULL, pred_provenance, NULL, NULL, true},
    {{"visited", FIL, "visited:AGENT[,DURATION]",
      "the agent visited the node (within DURATION)", "visited:linker,30d"},
     parse_agent, prep_agent, pred_visited, NULL, NULL, true},
    {{"not-visited", FIL, "not-visited:AGENT[,DURATION]",
      "the agent never visited the node (or not within DURATION)", "not-visited:linker,7d"},
     parse_agent, prep_agent, pred_not_visited, NULL, NULL, true},
    {{"community", FIL, "community:N",
      "in community N (label propagation; 0 is the largest)", "community:0"},
     parse_community, prep_community, pred_community, NULL, NULL, true},
    {{"sort", TRA, "sort:FIELD[,asc|desc]",
      "order by priority, score, timestamp, created, weight, degree, content-len, key-len "
      "(largest first) or key (A to Z); ties by key", "sort:weight"},
     parse_sort, NULL, NULL, pl_run_sort, NULL, true},
    {{"limit", TRA, "limit:N", "keep the first N", "limit:20"},
     parse_limit, NULL, NULL, pl_run_limit, NULL, true},
    {{"spread", GRA, "spread[,max_hops=3][,edge_decay=0.5][,min_activation=0.01]",
      "spreading activation from the set along the links", "spread,max_hops=2"},
     NULL, NULL, NULL, run_spread, spread_params, false},
    {{"spectral", GRA, "spectral[,k=20]",
      "the k nodes nearest the set in the spectral embedding", "spectral,k=10"},
     NULL, NULL, NULL, run_spectral, spectral_params, false},
    {{"confluence", GRA, "confluence[,max_hops=3][,edge_decay=0.5][,min_seeds=2]",
      "nodes reached from at least min_seeds nodes of the set", "confluence,min_seeds=3"},
     NULL, NULL, NULL, run_confluence, confluence_params, false},
    {{"geodesic", GRA, "geodesic[,max_hops=4][,slack=0][,min_alignment=0.5]",
      "nodes on short paths between nodes of the set (at most 64) that stay straight in the "
      "embedding", "geodesic,max_hops=3"},
     NULL, NULL, NULL, run_geodesic, geodesic_params, false},
    {{"manifold", GRA, "manifold[,limit=20][,perp_weight=1]",
      "nodes beyond the set along its principal direction in the embedding",
      "manifold,limit=10"},
     NULL, NULL, NULL, run_manifold, manifold_params, false},
    {{"interference-pairs", GRA, "interference-pairs[,min_sim=0.5][,limit=10]",
      "pairs of nodes of the set (at most 4096) linked to the same nodes but not to each "
      "other: the nodes of the best limit pairs, pair by pair, scored by similarity",
      "interference-pairs,min_sim=0.8,limit=5"},
     NULL, NULL, NULL, run_interference, interference_params, false},
};
/* clang-format on */

const size_t pl_ndefs = sizeof pl_defs / sizeof pl_defs[0];

const pl_def *pl_find_def(const char *name, size_t n)
{
    for (size_t i = 0; i < pl_ndefs; i++)
        if (strlen(pl_defs[i].info.name) == n && !memcmp(pl_defs[i].info.name, name, n))
            return &pl_defs[i];
    return NULL;
}

const pl_def *pl_def_all(void)
{
    return &pl_defs[0];
}

size_t qr_pipeline_stage_count(void)
{
    return pl_ndefs;
}

const qr_pipeline_stage_info *qr_pipeline_stage_at(size_t i)
{
    return i < pl_ndefs ? &pl_defs[i].info : NULL;
}

const char *qr_pipeline_kind_name(qr_pipeline_stage_kind k)
{
    switch (k) {
    case QR_STAGE_GENERATOR: return "generator";
    case QR_STAGE_FILTER: return "filter";
    case QR_STAGE_TRANSFORM: return "transform";
    case QR_STAGE_GRAPH: return "graph";
    }
    return "stage";
}
