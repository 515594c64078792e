/*
 * lib_regex.c: regexes (PCRE2 in UTF mode): re-pattern, re-find, re-matches, re-seq, and
 * the matcher (regex_match.h) that clojure.string/split, replace and replace-first share.
 *
 * Results follow Clojure: a match is the matched string when the pattern has no groups,
 * else [whole g1 g2 ...] with nil for a group that did not take part; no match is nil,
 * and re-seq of nothing is nil too. Successive matches advance as Java's Matcher.find
 * does (after an empty match, one character further), so re-seq, split and replace
 * agree with Clojure on patterns that can match the empty string.
 *
 * Every match runs under the session's PCRE2 match context with the run's limits
 * (match limit, depth, heap); reaching one is a regex-limit error naming the pattern,
 * never a hang. PCRE2's match data (and the ~20 KB of backtracking frames it sets aside)
 * comes from the arena and is handed back right after each match with an arena mark and
 * rewind: a program calling re-find in a loop would otherwise pay those bytes, which
 * count against its memory limit, on every call.
 */
#include "regex_match.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

_Static_assert(PCRE2_UNSET == LX_RX_UNSET, "LX_RX_UNSET must equal PCRE2_UNSET");

/* Nested backtracking points one match may hold. */
#define RX_DEPTH_LIMIT QR_REGEX_DEPTH_LIMIT

static void *rx_malloc(size_t n, void *ud)
{
    return qr_arena_alloc(ud, n);
}

static void rx_free(void *p, void *ud)
{
    (void)p;
    (void)ud;
}

void lx_rx_init(qr_lx *lx, lx_rx *m, const qr_regex *re)
{
    uint32_t n = 0;
    if (pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &n) != 0)
        n = 0;
    m->lx = lx;
    m->re = re;
    m->ngroups = n;
    m->ov = qr_arena_alloc(lx->a, sizeof(size_t) * 2 * ((size_t)n + 1));
    m->subj = NULL;
    m->subj_n = 0;
    m->again = m->known = m->valid = false;
    m->fast = NULL;
}

/* The pattern compiled again without PCRE2_MATCH_INVALID_UTF (the same matches on valid
 * UTF-8), or NULL. With that option PCRE2 checks the subject from the start offset to
 * the end on every call, ignoring PCRE2_NO_UTF_CHECK, so a loop over the matches of a
 * long subject would be quadratic. */
static pcre2_code *compile_fast(qr_lx *lx, const qr_regex *re)
{
    uint32_t opts = 0;
    if (pcre2_pattern_info(re->code, PCRE2_INFO_ARGOPTIONS, &opts) != 0)
        return NULL;
    pcre2_general_context *gc = pcre2_general_context_create(rx_malloc, rx_free, lx->a);
    pcre2_compile_context *cc = gc ? pcre2_compile_context_create(gc) : NULL;
    if (!cc)
        return NULL;
    pcre2_set_max_pattern_length(cc, 1 << 16);
    pcre2_set_parens_nest_limit(cc, 200);
    int code;
    PCRE2_SIZE off;
    return pcre2_compile((PCRE2_SPTR)re->source->data, re->source->len,
                         opts & ~(uint32_t)PCRE2_MATCH_INVALID_UTF, &code, &off, cc);
}

static _Noreturn void match_failed(lx_rx *m, int rc)
{
    qr_lx *lx = m->lx;
    const qr_str *src = m->re->source;
    int shown = src->len > 80 ? 80 : (int)src->len;
    const char *more = src->len > 80 ? "..." : "";
    switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
        lx_throw(lx, QR_LE_REGEX,
                 "regex backtracking limit reached matching #\"%.*s%s\" (simplify the pattern: "
                 "avoid nested repetition such as (a+)+, and a repeated group of alternatives "
                 "over a long string: (a|b)* is [ab]*)",
                 shown, src->data, more);
    case PCRE2_ERROR_NOMEMORY:
        lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached",
                 lx->s->limits.max_memory);
    default: {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
            strcpy((char *)msg, "unknown error");
        lx_throw(lx, QR_LE_TYPE, "regex #\"%.*s%s\" failed to match: %s", shown, src->data, more,
                 (const char *)msg);
    }
    }
}

bool lx_rx_exec(lx_rx *m, const char *s, size_t n, size_t from, bool whole)
{
    qr_lx *lx = m->lx;
    if (from > n)
        return false;
    pcre2_match_context *mc = lx->s->regex_match_ctx;
    pcre2_set_match_limit(mc, lx->s->limits.regex_match_limit);
    pcre2_set_depth_limit(mc, RX_DEPTH_LIMIT);
    /* backtracking frames (KiB): a quarter of the memory limit, between 1 and 64 MiB */
    size_t heap_kib = lx->s->limits.max_memory / 4096;
    if (heap_kib < 1024)
        heap_kib = 1024;
    if (heap_kib > QR_REGEX_HEAP_KIB)
        heap_kib = QR_REGEX_HEAP_KIB;
    pcre2_set_heap_limit(mc, (uint32_t)heap_kib);

    uint32_t opts = whole ? PCRE2_ANCHORED | PCRE2_ENDANCHORED : 0;
    const pcre2_code *code = m->re->code;
    /* a loop over the matches of a long valid subject uses the pattern compiled for
     * valid UTF-8, and checks the subject once instead of on every call */
    if (m->subj == s && m->subj_n == n) {
        m->again = true;
    } else {
        m->subj = s;
        m->subj_n = n;
        m->again = m->known = m->valid = false;
    }
    if (m->again && n > 256) {
        if (!m->known) {
            m->known = true;
            m->valid = qr_utf8_valid(s, n);
            lx_tick_n(lx, n);
            if (m->valid && !m->fast)
                m->fast = compile_fast(lx, m->re);
        }
        if (m->valid && m->fast) {
            code = m->fast;
            opts |= PCRE2_NO_UTF_CHECK;
        }
    }

    /* everything PCRE2 allocates for this match is given back below */
    qr_arena_mark mark = qr_arena_get_mark(lx->a);
    pcre2_general_context *gc = pcre2_general_context_create(rx_malloc, rx_free, lx->a);
    pcre2_match_data *md = gc ? pcre2_match_data_create_from_pattern(code, gc) : NULL;
    if (!md) {
        qr_arena_rewind(lx->a, mark);
        match_failed(m, PCRE2_ERROR_NOMEMORY);
    }
    int rc = pcre2_match(code, (PCRE2_SPTR)s, n, from, opts, md, mc);
    if (rc >= 0) {
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        uint32_t have = pcre2_get_ovector_count(md);
        for (uint32_t g = 0; g <= m->ngroups; g++) {
            bool set = g < have && ov[2 * g] != PCRE2_UNSET && ov[2 * g + 1] != PCRE2_UNSET;
            m->ov[2 * g] = set ? ov[2 * g] : LX_RX_UNSET;
            m->ov[2 * g + 1] = set ? ov[2 * g + 1] : LX_RX_UNSET;
        }
        /* \K can put the start after the end; treat such a match as empty */
        if (m->ov[1] < m->ov[0])
            m->ov[1] = m->ov[0];
    }
    qr_arena_rewind(lx->a, mark);
    if (rc == PCRE2_ERROR_NOMATCH)
        return false;
    if (rc < 0)
        match_failed(m, rc);
    return true;
}

size_t lx_rx_next(const lx_rx *m, const char *s, size_t n)
{
    size_t start = m->ov[0], end = m->ov[1];
    if (end > start)
        return end;
    if (end >= n)
        return n + 1;
    uint32_t cp;
    return end + qr_utf8_decode(s + end, n - end, &cp);
}

qr_val lx_rx_groups(lx_rx *m, const char *s)
{
    qr_lx *lx = m->lx;
    if (m->ngroups == 0)
        return qr_str_new(lx->a, s + m->ov[0], m->ov[1] - m->ov[0]);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, (size_t)m->ngroups + 1);
    for (uint32_t g = 0; g <= m->ngroups; g++) {
        size_t a = m->ov[2 * g], b = m->ov[2 * g + 1];
        qr_vecb_push(&vb, a == LX_RX_UNSET ? qr_nil() : qr_str_new(lx->a, s + a, b - a));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

int lx_rx_group_number(const lx_rx *m, const char *name, size_t len)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, name, len);
    buf[len] = 0;
    int r = pcre2_substring_number_from_name(m->re->code, (PCRE2_SPTR)buf);
    return r > 0 ? r : -1;
}

/* ---- builtins ---- */

static const qr_regex *arg_regex(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t == QR_T_REGEX)
        return v.re;
    lx_type_error(lx, fname, argn, "a regex (#\"...\" or (re-pattern s))", v);
}

static qr_val bi_regex_re_pattern(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_REGEX)
        return x;
    const qr_str *s = lx_arg_str(lx, "re-pattern", 1, x);
    qr_val out;
    qr_read_error err;
    int rc = qr_regex_compile(lx->a, s->data, s->len, &out, &err);
    if (rc == QR_ENOMEM)
        lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached",
                 lx->s->limits.max_memory);
    if (rc != QR_OK)
        lx_throw(lx, QR_LE_TYPE, "'re-pattern' got an invalid regex: %s", err.msg);
    return out;
}

static qr_val bi_regex_re_find(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_regex *re = arg_regex(lx, "re-find", 1, argv[0]);
    const qr_str *s = lx_arg_str(lx, "re-find", 2, argv[1]);
    lx_rx m;
    lx_rx_init(lx, &m, re);
    if (!lx_rx_exec(&m, s->data, s->len, 0, false))
        return qr_nil();
    return lx_rx_groups(&m, s->data);
}

static qr_val bi_regex_re_matches(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_regex *re = arg_regex(lx, "re-matches", 1, argv[0]);
    const qr_str *s = lx_arg_str(lx, "re-matches", 2, argv[1]);
    lx_rx m;
    lx_rx_init(lx, &m, re);
    if (!lx_rx_exec(&m, s->data, s->len, 0, true))
        return qr_nil();
    return lx_rx_groups(&m, s->data);
}

static qr_val bi_regex_re_seq(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_regex *re = arg_regex(lx, "re-seq", 1, argv[0]);
    const qr_str *s = lx_arg_str(lx, "re-seq", 2, argv[1]);
    lx_rx m;
    lx_rx_init(lx, &m, re);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 0);
    size_t count = 0;
    for (size_t pos = 0; pos <= s->len && lx_rx_exec(&m, s->data, s->len, pos, false);
         pos = lx_rx_next(&m, s->data, s->len)) {
        qr_vecb_push(&vb, lx_rx_groups(&m, s->data));
        count++;
        lx_tick(lx);
    }
    return count ? qr_vecb_finish(&vb, QR_T_VEC) : qr_nil();
}

const qr_builtin qr_lib_regex[] = {
    QR_BUILTIN("re-pattern", bi_regex_re_pattern, 1, 1, "[s]", "the regex that string s spells (a regex is returned as is)"),
    QR_BUILTIN("re-find", bi_regex_re_find, 2, 2, "[re s]", "the first match of re in s: a string, or [whole g1 ...] when re has groups; nil when none"),
    QR_BUILTIN("re-matches", bi_regex_re_matches, 2, 2, "[re s]", "like re-find, but re must match the whole of s"),
    QR_BUILTIN("re-seq", bi_regex_re_seq, 2, 2, "[re s]", "a vector of every match of re in s, shaped as re-find returns them; nil when none"),
    {.hdr = {.name = NULL}},
};
