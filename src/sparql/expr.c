/*
 * expr.c: SPARQL expressions and the function library (17.4): operators with the numeric
 * type promotion of XPath, string functions over code points, REGEX and REPLACE on PCRE2
 * with match and depth limits (compiled patterns cached per evaluation), hashes with
 * libcrypto, date/time accessors, casts (17.5), and the aggregates (18.5). An expression
 * error (unbound variable, wrong type) is the return value -1, which FILTER treats as
 * false and BIND as unbound, as the specification says.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "num.h"

#include <ctype.h>
#include <math.h>
#include <openssl/evp.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unicode/ustring.h>

#define ERR (-1)

bool sq_datetime_value(const sq_term *t, double *secs, int *tz_min, bool *has_tz);
void **sq_ctx_regex_cache(sq_ctx *c);

/* ---- regex cache ---- */
typedef struct rx_entry {
    struct rx_entry *next;
    char *pat, *flags;
    pcre2_code *code;
    pcre2_match_data *md;
} rx_entry;

typedef struct rx_cache {
    rx_entry *head;
    pcre2_match_context *mc;
    size_t n;
} rx_cache;

void sq_regex_cache_free(void *cache);
void sq_regex_cache_free(void *cache)
{
    rx_cache *rc = cache;
    if (!rc)
        return;
    for (rx_entry *e = rc->head, *nx; e; e = nx) {
        nx = e->next;
        pcre2_code_free(e->code);
        pcre2_match_data_free(e->md);
        free(e->pat);
        free(e->flags);
        free(e);
    }
    pcre2_match_context_free(rc->mc);
    free(rc);
}

/* The compiled pattern for (pat, flags), compiled once per evaluation. An invalid pattern
 * or flag ends the query with a syntax error naming it (XPath's fn:matches raises
 * FORX0002/FORX0001 there; filtering every row out would hide the mistake). */
static rx_entry *regex_get(sq_ctx *c, const sq_term *pat, const sq_term *flags)
{
    void **slot = sq_ctx_regex_cache(c);
    rx_cache *rc = *slot;
    if (!rc) {
        rc = calloc(1, sizeof *rc);
        if (!rc)
            return NULL;
        rc->mc = pcre2_match_context_create(NULL);
        if (rc->mc) {
            /* per call: one catastrophic pattern fails fast instead of at the time limit */
            pcre2_set_match_limit(rc->mc, SQ_REGEX_MATCH_LIMIT);
            pcre2_set_depth_limit(rc->mc, SQ_REGEX_DEPTH_LIMIT);
            pcre2_set_heap_limit(rc->mc, 20000); /* KiB */
        }
        *slot = rc;
    }
    const char *fl = flags ? flags->lex : "";
    for (rx_entry *e = rc->head; e; e = e->next)
        if (!strcmp(e->pat, pat->lex) && !strcmp(e->flags, fl))
            return e;
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    for (const char *f = fl; *f; f++) {
        switch (*f) {
        case 'i': opts |= PCRE2_CASELESS; break;
        case 's': opts |= PCRE2_DOTALL; break;
        case 'm': opts |= PCRE2_MULTILINE; break;
        case 'x': opts |= PCRE2_EXTENDED; break;
        case 'q': opts |= PCRE2_LITERAL; break;
        default:
            sq_ctx_fail(c, QR_SPARQL_SYNTAX,
                        "invalid regular expression flags '%.64s' for pattern '%.200s': the "
                        "flags are i, s, m, x and q",
                        fl, pat->lex);
        }
    }
    if (rc->n > 256)
        sq_ctx_fail(c, QR_SPARQL_LIMIT,
                    "more than 256 distinct regular expressions in one query: use fewer "
                    "patterns");
    int ec;
    PCRE2_SIZE eo;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (cc)
        pcre2_set_max_pattern_length(cc, 65536);
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat->lex, pat->len, opts, &ec, &eo, cc);
    pcre2_compile_context_free(cc);
    if (!code) {
        PCRE2_UCHAR why[160];
        if (pcre2_get_error_message(ec, why, sizeof why) < 0)
            snprintf((char *)why, sizeof why, "error %d", ec);
        sq_ctx_fail(c, QR_SPARQL_SYNTAX, "invalid regular expression '%.200s': %s at offset %zu",
                    pat->lex, (const char *)why, (size_t)eo);
    }
    /* the JIT where the system allows it (it may not: SELinux, no executable memory);
     * without it the interpreter runs under the same limits */
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    rx_entry *e = calloc(1, sizeof *e);
    if (!e) {
        pcre2_code_free(code);
        return NULL;
    }
    e->code = code;
    e->md = pcre2_match_data_create_from_pattern(code, NULL);
    e->pat = strdup(pat->lex);
    e->flags = strdup(fl);
    if (!e->md || !e->pat || !e->flags) {
        pcre2_code_free(code);
        pcre2_match_data_free(e->md);
        free(e->pat);
        free(e->flags);
        free(e);
        return NULL;
    }
    e->next = rc->head;
    rc->head = e;
    rc->n++;
    return e;
}

/* a match that ran into a limit ends the query (never a silent "no match") */
static void regex_limit(sq_ctx *c, int rc, const char *pat)
{
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
        sq_ctx_fail(c, QR_SPARQL_LIMIT,
                    "regular expression '%.200s' hit its backtracking limit on one value: "
                    "rewrite it without nested repetition (such as (a+)+)",
                    pat);
    PCRE2_UCHAR why[160];
    if (pcre2_get_error_message(rc, why, sizeof why) < 0)
        snprintf((char *)why, sizeof why, "error %d", rc);
    sq_ctx_fail(c, QR_SPARQL_RUNTIME, "regular expression '%.200s' failed: %s", pat,
                (const char *)why);
}

static pcre2_match_context *regex_mc(sq_ctx *c)
{
    rx_cache *rc = *sq_ctx_regex_cache(c);
    return rc ? rc->mc : NULL;
}

size_t sq_ctx_width(sq_ctx *c);
uint64_t sq_ctx_row_serial(sq_ctx *c);

/* ---- helpers ---- */
static bool is_lit(const sq_term *t)
{
    return t->kind == SQ_LIT;
}

static bool is_xsd(const sq_term *t, const char *local)
{
    return t->kind == SQ_LIT && t->dt && !strncmp(t->dt, XSD, sizeof XSD - 1) &&
           !strcmp(t->dt + sizeof XSD - 1, local);
}

/* a string literal argument: simple, xsd:string or language-tagged */
static bool strarg(const sq_term *t)
{
    return t->kind == SQ_LIT && !t->dt;
}

/* arg1 and arg2 compatible (17.4.3.1.2) */
static bool compatible_args(const sq_term *a, const sq_term *b)
{
    if (!strarg(a) || !strarg(b))
        return false;
    if (!b->lang)
        return true;
    return a->lang && !strcmp(a->lang, b->lang);
}

static sq_term numeric_result(qr_arena *a, int rank, double d, int64_t i)
{
    if (rank == 1)
        return sq_make_int(a, i);
    return sq_make_double(a, d, rank == 2 ? XSD "decimal" : rank == 3 ? XSD "float" : XSD "double");
}

/* integer and decimal operands, exactly: an integer result for + - * of integers, a
 * decimal otherwise (division keeps 18 digits, num.c) */
static int arith_exact(sq_ctx *c, int op, const sq_term *x, const sq_term *y, bool integer,
                       sq_term *out)
{
    sq_dec a, b, r;
    sq_dec_init(&a);
    sq_dec_init(&b);
    sq_dec_init(&r);
    int rc = ERR;
    if (sq_dec_set_term(&a, x) && sq_dec_set_term(&b, y) && sq_dec_op(&r, op, &a, &b)) {
        /* the text's room first: past the memory cap, the GMP values are freed before
         * the limit unwinds the evaluation */
        size_t need = mpz_sizeinbase(r.m, 10) + r.scale + 8;
        if (sq_ctx_over(c, need)) {
            sq_dec_clear(&a);
            sq_dec_clear(&b);
            sq_dec_clear(&r);
            sq_ctx_reserve(c, need);
        }
        *out = sq_dec_term(sq_ctx_arena(c), &r, integer && op != E_DIV);
        rc = out->kind ? 0 : ERR;
    }
    sq_dec_clear(&a);
    sq_dec_clear(&b);
    sq_dec_clear(&r);
    return rc;
}

static int arith(sq_ctx *c, int op, const sq_term *x, const sq_term *y, sq_term *out)
{
    double a, b;
    int64_t i, j;
    int ra, rb;
    if (!sq_numeric_value(x, &a, &i, &ra) || !sq_numeric_value(y, &b, &j, &rb))
        return ERR;
    int r = ra > rb ? ra : rb;
    qr_arena *ar = sq_ctx_arena(c);
    if (r == 1 && op != E_DIV) {
        int64_t v;
        bool ovf = op == E_ADD ? __builtin_add_overflow(i, j, &v)
                   : op == E_SUB ? __builtin_sub_overflow(i, j, &v)
                                 : __builtin_mul_overflow(i, j, &v);
        if (!ovf) {
            *out = sq_make_int(ar, v);
            return 0;
        }
    }
    /* by datatype (an integer beyond 64 bits reads as rank 2 above): never a double */
    int ta = sq_numeric_rank(x), tb = sq_numeric_rank(y);
    if (ta <= 2 && tb <= 2)
        return arith_exact(c, op, x, y, ta == 1 && tb == 1, out);
    if (op == E_DIV) {
        if (r == 1)
            r = 2;
        if (r == 2 && b == 0)
            return ERR;
    }
    double v = op == E_ADD ? a + b : op == E_SUB ? a - b : op == E_MUL ? a * b : a / b;
    *out = numeric_result(ar, r, v, 0);
    return 0;
}

/* sq_ctx_reserve, releasing b first when the cap would be passed (that does not return) */
static void reserve_buf(sq_ctx *c, size_t n, qr_buf *b)
{
    if (sq_ctx_over(c, n)) {
        qr_buf_release(b);
        sq_ctx_reserve(c, n);
    }
}

static int eval_args(sq_ctx *c, const sq_expr *e, const sq_id *row, sq_term *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sq_expr_eval(c, e->args[i], row, &v[i]))
            return ERR;
    return 0;
}

static size_t cp_len(const char *s, size_t n)
{
    return qr_utf8_count(s, n);
}

static void hex_digest(const char *md, const unsigned char *in, size_t n, char *out)
{
    unsigned char buf[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!EVP_Digest(in, n, buf, &len, EVP_get_digestbyname(md), NULL)) {
        out[0] = 0;
        return;
    }
    for (unsigned i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", buf[i]);
}

static sq_term str_like(qr_arena *a, const sq_term *model, const char *s, size_t n)
{
    return sq_make_str(a, s, n, NULL, model->lang);
}

/* UCASE/LCASE: Unicode's full case mapping (XPath fn:upper-case: SpecialCasing.txt
 * included, so 'ß' becomes "SS", 'ﬁ' "FI", and a final sigma lowercases to 'ς'), with
 * ICU's root locale (no Turkish dotless i). ASCII-only text takes the short path. */
static int case_map(qr_arena *a, const char *s, size_t n, bool upper, char **out, size_t *outn)
{
    bool ascii = true;
    for (size_t i = 0; i < n && ascii; i++)
        ascii = !((unsigned char)s[i] & 0x80);
    if (ascii) {
        char *d = qr_arena_strndup(a, s, n);
        if (!d)
            return ERR;
        for (size_t i = 0; i < n; i++)
            d[i] = (char)(upper ? toupper((unsigned char)d[i]) : tolower((unsigned char)d[i]));
        *out = d;
        *outn = n;
        return 0;
    }
    if (n > (size_t)INT32_MAX / 4)
        return ERR;
    UErrorCode ec = U_ZERO_ERROR;
    int32_t ulen = 0;
    u_strFromUTF8WithSub(NULL, 0, &ulen, s, (int32_t)n, 0xFFFD, NULL, &ec);
    if (ec != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(ec))
        return ERR;
    UChar *src = qr_arena_alloc(a, ((size_t)ulen + 1) * sizeof(UChar));
    if (!src)
        return ERR;
    ec = U_ZERO_ERROR;
    u_strFromUTF8WithSub(src, ulen + 1, NULL, s, (int32_t)n, 0xFFFD, NULL, &ec);
    if (U_FAILURE(ec))
        return ERR;
    /* full mappings at most triple the length (UAX #44: SpecialCasing) */
    int32_t cap = ulen * 3 + 1;
    UChar *dst = qr_arena_alloc(a, (size_t)cap * sizeof(UChar));
    if (!dst)
        return ERR;
    ec = U_ZERO_ERROR;
    int32_t dlen = upper ? u_strToUpper(dst, cap, src, ulen, "", &ec)
                         : u_strToLower(dst, cap, src, ulen, "", &ec);
    if (U_FAILURE(ec))
        return ERR;
    int32_t blen = 0;
    ec = U_ZERO_ERROR;
    u_strToUTF8(NULL, 0, &blen, dst, dlen, &ec);
    if (ec != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(ec))
        return ERR;
    char *d = qr_arena_alloc(a, (size_t)blen + 1);
    if (!d)
        return ERR;
    ec = U_ZERO_ERROR;
    u_strToUTF8(d, blen + 1, NULL, dst, dlen, &ec);
    if (U_FAILURE(ec))
        return ERR;
    *out = d;
    *outn = (size_t)blen;
    return 0;
}

static int cast(sq_ctx *c, const char *dt, const sq_term *v, sq_term *out)
{
    qr_arena *a = sq_ctx_arena(c);
    const char *local = dt + sizeof XSD - 1;
    if (v->kind == SQ_BLANK)
        return ERR;
    if (!strcmp(local, "string")) {
        /* typed values cast to their canonical string (XPath casting rules) */
        double d0;
        int64_t i0;
        int r0;
        if (is_xsd(v, "boolean") && sq_ebv(v) >= 0) {
            *out = sq_make_str(a, sq_ebv(v) ? "true" : "false", sq_ebv(v) ? 4 : 5, NULL, NULL);
            return 0;
        }
        int tr0 = sq_numeric_rank(v);
        if ((tr0 == 1 || tr0 == 2) && sq_numeric_value(v, &d0, &i0, &r0)) {
            /* XPath: a whole decimal casts as the integer it is ("1"), others canonically */
            sq_dec x;
            sq_dec_init(&x);
            bool ok = sq_dec_set_term(&x, v);
            size_t n = 0;
            char *lex = ok ? sq_dec_lex(a, &x, x.scale == 0, &n) : NULL;
            sq_dec_clear(&x);
            if (!lex)
                return ERR;
            *out = sq_make_str(a, lex, n, NULL, NULL);
            return out->kind ? 0 : ERR;
        }
        if (sq_numeric_value(v, &d0, &i0, &r0)) {
            char buf[64];
            if (r0 == 1) {
                snprintf(buf, sizeof buf, "%lld", (long long)i0);
            } else if (isnan(d0)) {
                snprintf(buf, sizeof buf, "NaN");
            } else if (isinf(d0)) {
                snprintf(buf, sizeof buf, d0 < 0 ? "-INF" : "INF");
            } else if (r0 == 2 || (fabs(d0) >= 1e-6 && fabs(d0) < 1e6) || d0 == 0) {
                int prec = r0 == 3 ? 6 : 15;
                for (; prec < 17; prec++) {
                    snprintf(buf, sizeof buf, "%.*g", prec, d0);
                    double back = strtod(buf, NULL);
                    if (r0 == 3 ? (float)back == (float)d0 : back == d0)
                        break;
                }
                if (strchr(buf, 'e'))
                    snprintf(buf, sizeof buf, "%.6f", d0);
            } else {
                *out = sq_make_double(a, d0, XSD "double");
                *out = sq_make_str(a, out->lex, out->len, NULL, NULL);
                return out->kind ? 0 : ERR;
            }
            *out = sq_make_str(a, buf, strlen(buf), NULL, NULL);
            return out->kind ? 0 : ERR;
        }
        if (v->kind == SQ_IRI || is_lit(v)) {
            *out = sq_make_str(a, v->lex, v->len, NULL, NULL);
            return 0;
        }
        return ERR;
    }
    if (v->kind == SQ_IRI)
        return ERR;
    double d;
    int64_t i;
    int r;
    bool num = sq_numeric_value(v, &d, &i, &r);
    bool isbool = is_xsd(v, "boolean");
    if (sq_numeric_rank(v) && !num)
        return ERR;
    if (!strcmp(local, "boolean")) {
        if (isbool) {
            int b = sq_ebv(v);
            if (b < 0)
                return ERR;
            *out = sq_make_bool(b);
            return 0;
        }
        if (num) {
            *out = sq_make_bool(!(d == 0 || isnan(d)));
            return 0;
        }
        if (strarg(v) && !v->lang) {
            if (!strcmp(v->lex, "true") || !strcmp(v->lex, "1")) {
                *out = sq_make_bool(true);
                return 0;
            }
            if (!strcmp(v->lex, "false") || !strcmp(v->lex, "0")) {
                *out = sq_make_bool(false);
                return 0;
            }
        }
        return ERR;
    }
    if (!strcmp(local, "dateTime")) {
        if (is_xsd(v, "dateTime") || (strarg(v) && !v->lang)) {
            sq_term t = *v;
            t.dt = XSD "dateTime";
            t.lang = NULL;
            double s;
            int tz;
            bool h;
            if (!sq_datetime_value(&t, &s, &tz, &h))
                return ERR;
            *out = t;
            return 0;
        }
        return ERR;
    }
    /* numeric targets */
    sq_term src = *v;
    if (isbool) {
        int b = sq_ebv(v);
        d = b;
        i = b;
        r = 1;
        num = true;
    } else if (!num) {
        if (!strarg(v) || v->lang)
            return ERR;
        sq_term t = *v;
        t.dt = !strcmp(local, "integer") ? XSD "integer"
               : !strcmp(local, "decimal") ? XSD "decimal" : XSD "double";
        if (!sq_numeric_value(&t, &d, &i, &r))
            return ERR;
        if (!strcmp(local, "decimal") && (strchr(v->lex, 'e') || strchr(v->lex, 'E')))
            return ERR;
        num = true;
        src = t;
    }
    int tr = isbool ? 0 : sq_numeric_rank(&src);
    if ((tr == 1 || tr == 2) && (!strcmp(local, "integer") || !strcmp(local, "decimal"))) {
        /* exactly: xsd:integer("99999999999999999999"), xsd:decimal(1.000000000000000000001) */
        sq_dec x;
        sq_dec_init(&x);
        bool ok = sq_dec_set_term(&x, &src);
        bool integer = !strcmp(local, "integer");
        if (ok && integer && x.scale) {
            mpz_t p;
            mpz_init(p);
            mpz_ui_pow_ui(p, 10, x.scale);
            mpz_tdiv_q(x.m, x.m, p);
            mpz_clear(p);
            x.scale = 0;
        }
        if (ok)
            *out = sq_dec_term(a, &x, integer);
        sq_dec_clear(&x);
        return ok && out->kind ? 0 : ERR;
    }
    if (!strcmp(local, "integer")) {
        if (isnan(d) || isinf(d))
            return ERR;
        *out = sq_make_int(a, r == 1 ? i : (int64_t)trunc(d));
    } else if (!strcmp(local, "decimal")) {
        if (isnan(d) || isinf(d))
            return ERR;
        *out = sq_make_double(a, r == 1 ? (double)i : d, XSD "decimal");
    } else if (!strcmp(local, "float")) {
        *out = sq_make_double(a, (float)d, XSD "float");
    } else {
        *out = sq_make_double(a, d, XSD "double");
    }
    return out->kind ? 0 : ERR;
}

static int datetime_part(const sq_term *v, int fn, qr_arena *a, sq_term *out)
{
    double secs0;
    int tz0;
    bool has0;
    if (!sq_datetime_value(v, &secs0, &tz0, &has0)) /* also refuses impossible dates */
        return ERR;
    int y, mo, d, h = 0, mi = 0, n = 0;
    const char *s = v->lex;
    bool neg = *s == '-';
    if (neg)
        s++;
    if (sscanf(s, "%d-%d-%d%n", &y, &mo, &d, &n) != 3)
        return ERR;
    s += n;
    double sec = 0;
    const char *tz = s;
    if (*s == 'T') {
        s++;
        if (sscanf(s, "%d:%d:%n", &h, &mi, &n) != 2)
            return ERR;
        s += n;
        char *end;
        sec = strtod(s, &end);
        tz = end;
    }
    switch (fn) {
    case F_YEAR: *out = sq_make_int(a, neg ? -y : y); return 0;
    case F_MONTH: *out = sq_make_int(a, mo); return 0;
    case F_DAY: *out = sq_make_int(a, d); return 0;
    case F_HOURS: *out = sq_make_int(a, h); return 0;
    case F_MINUTES: *out = sq_make_int(a, mi); return 0;
    case F_SECONDS: {
        const char *secs = strrchr(v->lex, ':');
        size_t len = (size_t)(tz - (secs ? secs + 1 : tz));
        if (secs && secs + 1 < tz && !strchr(secs, 'T'))
            *out = sq_make_str(a, secs + 1, len, XSD "decimal", NULL);
        else
            *out = sq_make_double(a, sec, XSD "decimal");
        if (out->kind && !strchr(out->lex, '.'))
            *out = sq_make_double(a, sec, XSD "decimal");
        return 0;
    }
    case F_TZ:
        *out = sq_make_str(a, tz, strlen(tz), NULL, NULL);
        return 0;
    case F_TIMEZONE: {
        if (!*tz)
            return ERR;
        int th = 0, tm = 0, sign = 1;
        if (*tz != 'Z') {
            sign = *tz == '-' ? -1 : 1;
            if (sscanf(tz + 1, "%d:%d", &th, &tm) != 2)
                return ERR;
        }
        char buf[32];
        if (th == 0 && tm == 0)
            snprintf(buf, sizeof buf, "PT0S");
        else if (tm)
            snprintf(buf, sizeof buf, "%sPT%dH%dM", sign < 0 ? "-" : "", th, tm);
        else
            snprintf(buf, sizeof buf, "%sPT%dH", sign < 0 ? "-" : "", th);
        *out = sq_make_str(a, buf, strlen(buf), XSD "dayTimeDuration", NULL);
        return 0;
    }
    default:
        return ERR;
    }
}

static int call_func(sq_ctx *c, const sq_expr *e, const sq_id *row, sq_term *out)
{
    qr_arena *a = sq_ctx_arena(c);
    sq_term v[4];
    int fn = e->fn;
    switch (fn) {
    case F_BOUND: {
        int var = e->args[0]->var;
        sq_id id = row[var];
        if (!id && sq_ctx_outer(c))
            id = sq_ctx_outer(c)[var];
        *out = sq_make_bool(id != 0);
        return 0;
    }
    case F_COALESCE:
        for (size_t i = 0; i < e->nargs; i++)
            if (!sq_expr_eval(c, e->args[i], row, out))
                return 0;
        return ERR;
    case F_IF: {
        if (sq_expr_eval(c, e->args[0], row, &v[0]))
            return ERR;
        int b = sq_ebv(&v[0]);
        if (b < 0)
            return ERR;
        return sq_expr_eval(c, e->args[b ? 1 : 2], row, out);
    }
    case F_CONCAT: {
        /* every argument first: evaluating one may stop the query (a longjmp from its
         * tick), and no malloc'd buffer may be live then (it leaked on a cancel) */
        sq_term *ts = e->nargs ? qr_arena_alloc(a, e->nargs * sizeof *ts) : NULL;
        if (e->nargs && !ts)
            return ERR;
        for (size_t i = 0; i < e->nargs; i++)
            if (sq_expr_eval(c, e->args[i], row, &ts[i]) || !strarg(&ts[i]))
                return ERR;
        qr_buf b;
        qr_buf_init(&b);
        const char *lang = NULL;
        bool same_lang = true;
        for (size_t i = 0; i < e->nargs; i++) {
            sq_term t = ts[i];
            if (b.len + t.len > b.len) {
                /* the buffer and the arena copy: both count against the memory cap */
                size_t need = 2 * (b.len + t.len);
                if (need / 2 != b.len + t.len) {
                    qr_buf_release(&b);
                    return ERR;
                }
                reserve_buf(c, need, &b);
            }
            if (i == 0)
                lang = t.lang;
            else if (!lang || !t.lang || strcmp(lang, t.lang))
                same_lang = false;
            qr_buf_append(&b, t.lex, t.len);
        }
        if (!e->nargs || !same_lang)
            lang = NULL;
        *out = sq_make_str(a, b.p ? b.p : "", b.len, NULL, lang);
        qr_buf_release(&b);
        return out->kind ? 0 : ERR;
    }
    case F_RAND: {
        /* per thread: MCP workers evaluate queries at once */
        static _Thread_local uint64_t seed = 0x9e3779b97f4a7c15ULL;
        seed = qr_hash_mix(seed + 1);
        *out = sq_make_double(a, (double)(seed >> 11) / 9007199254740992.0, XSD "double");
        return 0;
    }
    case F_NOW: {
        int64_t t = sq_ctx_now(c);
        int64_t days = t / 86400, rem = t % 86400;
        if (rem < 0) {
            rem += 86400;
            days--;
        }
        int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
        int64_t doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
        int64_t m = mp + (mp < 10 ? 3 : -9);
        char buf[64];
        snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                 (long long)(y + (m <= 2)), (long long)m, (long long)d, (long long)(rem / 3600),
                 (long long)(rem % 3600 / 60), (long long)(rem % 60));
        *out = sq_make_str(a, buf, strlen(buf), XSD "dateTime", NULL);
        return 0;
    }
    case F_UUID:
    case F_STRUUID: {
        uint64_t h1 = qr_hash_mix(sq_ctx_bnode_serial(c) * 0x100000001b3ULL ^ (uint64_t)(uintptr_t)c);
        uint64_t h2 = qr_hash_mix(h1 + 0x1234567);
        char buf[64];
        snprintf(buf, sizeof buf, "%s%08x-%04x-4%03x-%04x-%012llx", fn == F_UUID ? "urn:uuid:" : "",
                 (unsigned)(h1 >> 32), (unsigned)(h1 >> 16) & 0xffff, (unsigned)h1 & 0xfff,
                 (unsigned)((h2 >> 48) & 0x3fff) | 0x8000,
                 (unsigned long long)(h2 & 0xffffffffffffULL));
        if (fn == F_UUID) {
            out->kind = SQ_IRI;
            out->lex = qr_arena_strndup(a, buf, strlen(buf));
            out->len = (uint32_t)strlen(buf);
            out->dt = out->lang = NULL;
        } else {
            *out = sq_make_str(a, buf, strlen(buf), NULL, NULL);
        }
        return 0;
    }
    case F_BNODE: {
        char buf[64];
        if (e->nargs) {
            if (sq_expr_eval(c, e->args[0], row, &v[0]) || !strarg(&v[0]) || v[0].lang)
                return ERR;
            /* the same label within one row gives the same node */
            uint64_t h = qr_hash_combine(qr_hash_bytes(v[0].lex, v[0].len), sq_ctx_row_serial(c));
            snprintf(buf, sizeof buf, "q%llx", (unsigned long long)h);
        } else {
            snprintf(buf, sizeof buf, "q%llu", (unsigned long long)sq_ctx_bnode_serial(c));
        }
        out->kind = SQ_BLANK;
        out->lex = qr_arena_strndup(a, buf, strlen(buf));
        out->len = (uint32_t)strlen(buf);
        out->dt = out->lang = NULL;
        return 0;
    }
    default:
        break;
    }
    if (e->nargs > 4 || eval_args(c, e, row, v, e->nargs))
        return ERR;
    switch (fn) {
    case F_STR:
        if (v[0].kind == SQ_BLANK)
            return ERR;
        *out = sq_make_str(a, v[0].lex, v[0].len, NULL, NULL);
        return 0;
    case F_LANG:
        if (!is_lit(&v[0]))
            return ERR;
        *out = sq_make_str(a, v[0].lang ? v[0].lang : "", v[0].lang ? strlen(v[0].lang) : 0,
                           NULL, NULL);
        return 0;
    case F_LANGMATCHES: {
        if (!strarg(&v[0]) || !strarg(&v[1]) || v[0].lang || v[1].lang)
            return ERR;
        const char *tag = v[0].lex, *range = v[1].lex;
        bool m;
        if (!strcmp(range, "*"))
            m = tag[0] != 0;
        else {
            size_t rl = strlen(range);
            m = !strncasecmp(tag, range, rl) && (tag[rl] == 0 || tag[rl] == '-');
        }
        *out = sq_make_bool(m);
        return 0;
    }
    case F_DATATYPE: {
        if (!is_lit(&v[0]))
            return ERR;
        const char *dt = v[0].lang ? RDF_NS "langString" : v[0].dt ? v[0].dt : XSD "string";
        out->kind = SQ_IRI;
        out->lex = dt;
        out->len = (uint32_t)strlen(dt);
        out->dt = out->lang = NULL;
        return 0;
    }
    case F_IRI: {
        if (v[0].kind == SQ_IRI) {
            *out = v[0];
            return 0;
        }
        if (!strarg(&v[0]) || v[0].lang)
            return ERR;
        out->kind = SQ_IRI;
        out->lex = sq_resolve_iri(a, sq_ctx_base(c), v[0].lex, v[0].len);
        if (!out->lex)
            return ERR;
        out->len = (uint32_t)strlen(out->lex);
        out->dt = out->lang = NULL;
        return 0;
    }
    case F_ABS:
    case F_CEIL:
    case F_FLOOR:
    case F_ROUND: {
        double d;
        int64_t i;
        int r;
        if (!sq_numeric_value(&v[0], &d, &i, &r))
            return ERR;
        if (r == 1 && i != INT64_MIN) {
            *out = sq_make_int(a, fn == F_ABS && i < 0 ? -i : i);
            return 0;
        }
        int tr = sq_numeric_rank(&v[0]);
        if (tr <= 2) {
            sq_dec x, y;
            sq_dec_init(&x);
            sq_dec_init(&y);
            bool ok = sq_dec_set_term(&x, &v[0]);
            if (ok && fn == F_ABS) {
                mpz_abs(y.m, x.m);
                y.scale = x.scale;
            } else if (ok) {
                sq_dec_round(&y, fn, &x);
            }
            if (ok)
                *out = sq_dec_term(a, &y, tr == 1);
            sq_dec_clear(&x);
            sq_dec_clear(&y);
            return ok && out->kind ? 0 : ERR;
        }
        double x = fn == F_ABS ? fabs(d) : fn == F_CEIL ? ceil(d) : fn == F_FLOOR ? floor(d)
                                                                   : floor(d + 0.5);
        *out = numeric_result(a, r, x, 0);
        return 0;
    }
    case F_STRLEN:
        if (!strarg(&v[0]))
            return ERR;
        *out = sq_make_int(a, (int64_t)cp_len(v[0].lex, v[0].len));
        return 0;
    case F_SUBSTR: {
        double st, ln = 0;
        int64_t i;
        int r;
        if (!strarg(&v[0]) || !sq_numeric_value(&v[1], &st, &i, &r))
            return ERR;
        if (e->nargs == 3 && !sq_numeric_value(&v[2], &ln, &i, &r))
            return ERR;
        size_t n = cp_len(v[0].lex, v[0].len);
        double from = floor(st + 0.5), to = e->nargs == 3 ? from + floor(ln + 0.5) : (double)n + 1;
        if (isnan(from) || isnan(to))
            to = from = 0;
        if (from < 1)
            from = 1;
        if (to > (double)n + 1)
            to = (double)n + 1;
        if (to < from)
            to = from;
        size_t b0 = qr_utf8_offset(v[0].lex, v[0].len, (size_t)from - 1);
        size_t b1 = qr_utf8_offset(v[0].lex, v[0].len, (size_t)to - 1);
        *out = str_like(a, &v[0], v[0].lex + b0, b1 - b0);
        return 0;
    }
    case F_UCASE:
    case F_LCASE: {
        if (!strarg(&v[0]))
            return ERR;
        char *s;
        size_t n;
        if (case_map(a, v[0].lex, v[0].len, fn == F_UCASE, &s, &n))
            return ERR;
        *out = str_like(a, &v[0], s, n);
        return 0;
    }
    case F_ENCODE_FOR_URI: {
        if (!strarg(&v[0]))
            return ERR;
        qr_buf b;
        qr_buf_init(&b);
        for (size_t i = 0; i < v[0].len; i++) {
            unsigned char ch = (unsigned char)v[0].lex[i];
            if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~')
                qr_buf_putc(&b, (char)ch);
            else
                qr_buf_printf(&b, "%%%02X", ch);
        }
        reserve_buf(c, b.len + 1, &b); /* the arena copy's cap check, with b released */
        *out = sq_make_str(a, b.p ? b.p : "", b.len, NULL, NULL);
        qr_buf_release(&b);
        return 0;
    }
    case F_CONTAINS:
    case F_STRSTARTS:
    case F_STRENDS:
    case F_STRBEFORE:
    case F_STRAFTER: {
        if (!compatible_args(&v[0], &v[1]))
            return ERR;
        const char *h = v[0].lex, *n = v[1].lex;
        size_t hn = v[0].len, nn = v[1].len;
        if (fn == F_STRSTARTS) {
            *out = sq_make_bool(nn <= hn && !memcmp(h, n, nn));
            return 0;
        }
        if (fn == F_STRENDS) {
            *out = sq_make_bool(nn <= hn && !memcmp(h + hn - nn, n, nn));
            return 0;
        }
        const char *found = NULL;
        for (size_t i = 0; i + nn <= hn; i++)
            if (!memcmp(h + i, n, nn)) {
                found = h + i;
                break;
            }
        if (fn == F_CONTAINS) {
            *out = sq_make_bool(found != NULL);
            return 0;
        }
        if (!found) {
            *out = sq_make_str(a, "", 0, NULL, NULL);
            return 0;
        }
        if (fn == F_STRBEFORE)
            *out = sq_make_str(a, h, (size_t)(found - h), NULL, nn || found > h ? v[0].lang : v[0].lang);
        else
            *out = sq_make_str(a, found + nn, hn - (size_t)(found - h) - nn, NULL, v[0].lang);
        return 0;
    }
    case F_YEAR: case F_MONTH: case F_DAY: case F_HOURS: case F_MINUTES: case F_SECONDS:
    case F_TIMEZONE: case F_TZ:
        return datetime_part(&v[0], fn, a, out);
    case F_MD5: case F_SHA1: case F_SHA256: case F_SHA384: case F_SHA512: {
        if (!strarg(&v[0]) || v[0].lang)
            return ERR;
        const char *md = fn == F_MD5 ? "MD5" : fn == F_SHA1 ? "SHA1" : fn == F_SHA256 ? "SHA256"
                         : fn == F_SHA384 ? "SHA384" : "SHA512";
        char hex[2 * EVP_MAX_MD_SIZE + 1];
        hex_digest(md, (const unsigned char *)v[0].lex, v[0].len, hex);
        *out = sq_make_str(a, hex, strlen(hex), NULL, NULL);
        return hex[0] ? 0 : ERR;
    }
    case F_STRLANG:
        if (!strarg(&v[0]) || v[0].lang || !strarg(&v[1]) || v[1].lang || !v[1].len)
            return ERR;
        {
            char *l = qr_arena_strndup(a, v[1].lex, v[1].len);
            for (char *p = l; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            *out = sq_make_str(a, v[0].lex, v[0].len, NULL, l);
        }
        return 0;
    case F_STRDT:
        if (!strarg(&v[0]) || v[0].lang || v[1].kind != SQ_IRI)
            return ERR;
        *out = sq_make_str(a, v[0].lex, v[0].len,
                           strcmp(v[1].lex, XSD "string") ? v[1].lex : NULL, NULL);
        return 0;
    case F_SAMETERM:
        *out = sq_make_bool(sq_term_same(&v[0], &v[1]));
        return 0;
    case F_ISIRI:
        *out = sq_make_bool(v[0].kind == SQ_IRI);
        return 0;
    case F_ISBLANK:
        *out = sq_make_bool(v[0].kind == SQ_BLANK);
        return 0;
    case F_ISLITERAL:
        *out = sq_make_bool(v[0].kind == SQ_LIT);
        return 0;
    case F_ISNUMERIC:
        *out = sq_make_bool(sq_numeric_rank(&v[0]) && sq_lex_valid(&v[0]));
        return 0;
    case F_REGEX:
    case F_REPLACE: {
        if (!strarg(&v[0]))
            return ERR;
        size_t pi = 1, fi = fn == F_REGEX ? 2 : 3;
        if (!strarg(&v[pi]) || v[pi].lang)
            return ERR;
        if (e->nargs > fi && (!strarg(&v[fi]) || v[fi].lang))
            return ERR;
        rx_entry *rx = regex_get(c, &v[pi], e->nargs > fi ? &v[fi] : NULL);
        if (!rx)
            return ERR;
        if (fn == F_REGEX) {
            int rc = pcre2_match(rx->code, (PCRE2_SPTR)v[0].lex, v[0].len, 0, 0, rx->md,
                                 regex_mc(c));
            if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
                regex_limit(c, rc, rx->pat);
            *out = sq_make_bool(rc >= 0);
            return 0;
        }
        if (!strarg(&v[2]) || v[2].lang)
            return ERR;
        /* the replacement uses $1..$9 as SPARQL (XPath) does */
        qr_buf rep;
        qr_buf_init(&rep);
        for (size_t i = 0; i < v[2].len; i++) {
            char ch = v[2].lex[i];
            if (ch == '\\' && i + 1 < v[2].len) {
                qr_buf_putc(&rep, v[2].lex[++i]);
                if (rep.p[rep.len - 1] == '$')
                    qr_buf_putc(&rep, '$');
            } else if (ch == '$' && i + 1 < v[2].len && isdigit((unsigned char)v[2].lex[i + 1])) {
                qr_buf_printf(&rep, "${%c}", v[2].lex[++i]);
            } else {
                qr_buf_putc(&rep, ch);
            }
        }
        size_t outlen = v[0].len * 2 + rep.len + 64;
        reserve_buf(c, outlen, &rep);
        for (int tries = 0; tries < 8; tries++) {
            char *dst = qr_arena_alloc(a, outlen + 1);
            PCRE2_SIZE ol = outlen;
            int rc = pcre2_substitute(rx->code, (PCRE2_SPTR)v[0].lex, v[0].len, 0,
                                      PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
                                          PCRE2_SUBSTITUTE_UNSET_EMPTY,
                                      rx->md, regex_mc(c), (PCRE2_SPTR)(rep.p ? rep.p : ""),
                                      rep.len, (PCRE2_UCHAR *)dst, &ol);
            if (rc == PCRE2_ERROR_NOMEMORY) {
                outlen = ol + 1;
                reserve_buf(c, outlen, &rep);
                continue;
            }
            qr_buf_release(&rep);
            if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
                rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
                regex_limit(c, rc, rx->pat);
            if (rc < 0)
                return ERR;
            *out = str_like(a, &v[0], dst, ol);
            return 0;
        }
        qr_buf_release(&rep);
        return ERR;
    }
    default:
        return ERR;
    }
}

static int compare(const sq_expr *e, const sq_term *a, const sq_term *b, sq_term *out)
{
    int r;
    if (e->op == E_EQ || e->op == E_NE) {
        r = sq_term_equal(a, b);
        if (r < 0)
            return ERR;
        *out = sq_make_bool(e->op == E_EQ ? r : !r);
        return 0;
    }
    int lt;
    if (e->op == E_LT || e->op == E_GE) {
        if (sq_term_less(a, b, &lt))
            return ERR;
        *out = sq_make_bool(e->op == E_LT ? lt : !lt);
        return 0;
    }
    if (sq_term_less(b, a, &lt))
        return ERR;
    *out = sq_make_bool(e->op == E_GT ? lt : !lt);
    return 0;
}

int sq_expr_eval(sq_ctx *c, const sq_expr *e, const sq_id *row, sq_term *out)
{
    sq_ctx_tick(c);
    sq_term a, b;
    switch (e->op) {
    case E_VAR: {
        sq_id id = row ? row[e->var] : 0;
        if (!id && sq_ctx_outer(c))
            id = sq_ctx_outer(c)[e->var];
        if (!id)
            return ERR;
        *out = *sq_ctx_term(c, id);
        return 0;
    }
    case E_CONST:
        *out = e->t;
        return 0;
    case E_OR:
    case E_AND: {
        /* n-ary (parse_expr.c): the first decisive operand wins; else an error if any
         * operand errs (17.2: || and && are commutative in their error handling) */
        bool any_err = false;
        bool decisive = e->op == E_OR;
        for (size_t i = 0; i < e->nargs; i++) {
            int r = sq_expr_eval(c, e->args[i], row, &a) ? -1 : sq_ebv(&a);
            if (r < 0)
                any_err = true;
            else if ((r == 1) == decisive) {
                *out = sq_make_bool(decisive);
                return 0;
            }
        }
        if (any_err)
            return ERR;
        *out = sq_make_bool(!decisive);
        return 0;
    }
    case E_EQ: case E_NE: case E_LT: case E_GT: case E_LE: case E_GE:
        if (sq_expr_eval(c, e->args[0], row, &a) || sq_expr_eval(c, e->args[1], row, &b))
            return ERR;
        return compare(e, &a, &b, out);
    case E_ARITH:
        /* a chain folded left to right, as the left-deep tree it stands for */
        if (sq_expr_eval(c, e->args[0], row, &a))
            return ERR;
        for (size_t i = 1; i < e->nargs; i++) {
            if (sq_expr_eval(c, e->args[i], row, &b) || arith(c, e->ops[i], &a, &b, &a))
                return ERR;
        }
        *out = a;
        return 0;
    case E_NOT: {
        if (sq_expr_eval(c, e->args[0], row, &a))
            return ERR;
        int v = sq_ebv(&a);
        if (v < 0)
            return ERR;
        *out = sq_make_bool(!v);
        return 0;
    }
    case E_NEG:
    case E_POS: {
        if (sq_expr_eval(c, e->args[0], row, &a) || !sq_numeric_rank(&a))
            return ERR;
        if (e->op == E_POS) {
            *out = a;
            return 0;
        }
        sq_term zero = sq_make_int(sq_ctx_arena(c), 0);
        return arith(c, E_SUB, &zero, &a, out);
    }
    case E_IN:
    case E_NOTIN: {
        if (sq_expr_eval(c, e->args[0], row, &a))
            return ERR;
        bool err = false;
        for (size_t i = 1; i < e->nargs; i++) {
            if (sq_expr_eval(c, e->args[i], row, &b)) {
                err = true;
                continue;
            }
            int r = sq_term_equal(&a, &b);
            if (r == 1) {
                *out = sq_make_bool(e->op == E_IN);
                return 0;
            }
            if (r < 0)
                err = true;
        }
        if (err)
            return ERR;
        *out = sq_make_bool(e->op == E_NOTIN);
        return 0;
    }
    case E_FUNC:
        return call_func(c, e, row, out);
    case E_CAST:
        if (sq_expr_eval(c, e->args[0], row, &a))
            return ERR;
        return cast(c, e->t.lex, &a, out);
    case E_CALL:
        return ERR;
    case E_EXISTS:
    case E_NOTEXISTS: {
        bool found;
        sq_ctx_exists(c, e->pat, row, &found);
        *out = sq_make_bool(e->op == E_EXISTS ? found : !found);
        return 0;
    }
    case E_AGG:
        return sq_ctx_agg_value(c, e->agg, out);
    default:
        return ERR;
    }
}

/* ---- aggregates ---- */
static const sq_id *table_row_at(const void *t, size_t i, size_t w);

int sq_aggregate(sq_ctx *c, const sq_agg *g, const void *tab, const uint32_t *rows, size_t n,
                 sq_term *out);

typedef struct tview {
    size_t n, cap;
    sq_id *r;
} tview;

static const sq_id *table_row_at(const void *t, size_t i, size_t w)
{
    const tview *tv = t;
    return tv->r + i * w;
}

size_t sq_ctx_width(sq_ctx *c);

/* SUM or AVG of integers and decimals only, in one accumulator: int64 while it fits, then
 * exact (GMP). Returns 0 with *out, ERR, or 1 when a value is of another type (the caller
 * then adds with the general operator). */
static int sum_exact(sq_ctx *c, const sq_id *vals, size_t nv, bool avg, sq_term *out)
{
    bool all_int = true;
    for (size_t i = 0; i < nv; i++) {
        int r = sq_numeric_rank(sq_ctx_term(c, vals[i]));
        if (r != 1 && r != 2)
            return 1;
        all_int = all_int && r == 1;
    }
    if (!nv) {
        *out = sq_make_int(sq_ctx_arena(c), 0);
        return 0;
    }
    int64_t acc = 0;
    bool big = false;
    sq_dec dacc, x, t;
    sq_dec_init(&dacc);
    sq_dec_init(&x);
    sq_dec_init(&t);
    int rc = 0;
    for (size_t i = 0; i < nv && !rc; i++) {
        const sq_term *v = sq_ctx_term(c, vals[i]);
        if (!big && sq_numeric_rank(v) == 1) {
            double d;
            int64_t iv;
            int r;
            if (!sq_numeric_value(v, &d, &iv, &r))
                rc = ERR;
            else if (r == 1 && !__builtin_add_overflow(acc, iv, &acc))
                continue;
        }
        if (rc)
            break;
        if (!big) {
            mpz_set_si(dacc.m, (long)acc);
            dacc.scale = 0;
            big = true;
        }
        if (!sq_dec_set_term(&x, v)) {
            rc = ERR;
            break;
        }
        sq_dec_op(&t, E_ADD, &dacc, &x);
        mpz_swap(dacc.m, t.m);
        dacc.scale = t.scale;
        if ((i & 1023) == 0)
            sq_ctx_tick(c);
    }
    if (!rc) {
        if (!big) {
            mpz_set_si(dacc.m, (long)acc);
            dacc.scale = 0;
        }
        if (avg) {
            mpz_set_ui(x.m, (unsigned long)nv);
            x.scale = 0;
            sq_dec_op(&t, E_DIV, &dacc, &x);
            mpz_swap(dacc.m, t.m);
            dacc.scale = t.scale;
        }
        size_t need = mpz_sizeinbase(dacc.m, 10) + dacc.scale + 8;
        if (sq_ctx_over(c, need)) {
            sq_dec_clear(&dacc);
            sq_dec_clear(&x);
            sq_dec_clear(&t);
            sq_ctx_reserve(c, need);
        }
        if (!big && !avg)
            *out = sq_make_int(sq_ctx_arena(c), acc);
        else
            *out = sq_dec_term(sq_ctx_arena(c), &dacc, all_int && !avg);
        rc = out->kind ? 0 : ERR;
    }
    sq_dec_clear(&dacc);
    sq_dec_clear(&x);
    sq_dec_clear(&t);
    return rc;
}

int sq_aggregate(sq_ctx *c, const sq_agg *g, const void *tab, const uint32_t *rows, size_t n,
                 sq_term *out)
{
    qr_arena *a = sq_ctx_arena(c);
    size_t w = sq_ctx_width(c);
    /* collect the values (ids, so DISTINCT is by term) */
    sq_id *vals = qr_arena_alloc(a, (n + 1) * sizeof(sq_id));
    size_t nv = 0;
    bool err = false;
    for (size_t i = 0; i < n; i++) {
        const sq_id *r = table_row_at(tab, rows[i], w);
        if (g->star) {
            vals[nv++] = 1;
            continue;
        }
        sq_term v;
        if (sq_expr_eval(c, g->arg, r, &v)) {
            err = true;
            continue;
        }
        vals[nv++] = sq_ctx_intern(c, &v);
    }
    if (g->distinct && !g->star && nv > 1) {
        /* first occurrences, in order, through an open-addressing set of ids */
        size_t cap = 16;
        while (cap < nv * 2)
            cap *= 2;
        sq_id *set = qr_arena_zalloc(a, cap * sizeof(sq_id));
        size_t m = 0;
        for (size_t i = 0; i < nv; i++) {
            size_t k = qr_hash_mix(vals[i]) & (cap - 1);
            while (set[k] && set[k] != vals[i])
                k = (k + 1) & (cap - 1);
            if (!set[k]) {
                set[k] = vals[i];
                vals[m++] = vals[i];
            }
            sq_ctx_tick(c);
        }
        nv = m;
    }
    switch (g->fn) {
    case AG_COUNT:
        *out = sq_make_int(a, (int64_t)nv);
        return 0;
    case AG_SAMPLE:
        if (!nv)
            return ERR;
        *out = *sq_ctx_term(c, vals[0]);
        return 0;
    case AG_MIN:
    case AG_MAX: {
        if (!nv)
            return ERR;
        const sq_term *best = sq_ctx_term(c, vals[0]);
        for (size_t i = 1; i < nv; i++) {
            const sq_term *t = sq_ctx_term(c, vals[i]);
            int r = sq_term_order(t, best);
            if ((g->fn == AG_MIN && r < 0) || (g->fn == AG_MAX && r > 0))
                best = t;
        }
        *out = *best;
        return 0;
    }
    case AG_SUM:
    case AG_AVG: {
        if (err)
            return ERR;
        int rc = sum_exact(c, vals, nv, g->fn == AG_AVG, out);
        if (rc <= 0)
            return rc;
        sq_term acc = sq_make_int(a, 0);
        for (size_t i = 0; i < nv; i++)
            if (arith(c, E_ADD, &acc, sq_ctx_term(c, vals[i]), &acc))
                return ERR;
        if (g->fn == AG_SUM) {
            *out = acc;
            return 0;
        }
        if (!nv) {
            *out = sq_make_int(a, 0);
            return 0;
        }
        sq_term cnt = sq_make_int(a, (int64_t)nv);
        return arith(c, E_DIV, &acc, &cnt, out);
    }
    case AG_GROUP_CONCAT: {
        qr_buf b;
        qr_buf_init(&b);
        const char *sep = g->sep ? g->sep : " ";
        for (size_t i = 0; i < nv; i++) {
            const sq_term *t = sq_ctx_term(c, vals[i]);
            if (!strarg(t) && t->kind != SQ_LIT) {
                qr_buf_release(&b);
                return ERR;
            }
            reserve_buf(c, 2 * (b.len + t->len + strlen(sep)), &b);
            if (i)
                qr_buf_puts(&b, sep);
            qr_buf_append(&b, t->lex, t->len);
        }
        *out = sq_make_str(a, b.p ? b.p : "", b.len, NULL, NULL);
        qr_buf_release(&b);
        return 0;
    }
    default:
        return ERR;
    }
}
