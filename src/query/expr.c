/*
 * expr.c: the expression languages inside a query: :where predicates
 * ([:> :files 5], [:and P Q], [:in :author ["ann" "bob"]]), arithmetic of :compute
 * ([:+ [:* :deletions 2] :additions]) and literal data (params, return values), each
 * checked into a canonical form and emitted as Lisp.
 *
 * Field references: a keyword is a field of the record (on either side of a comparison,
 * so [:> :additions :deletions] compares two fields); JSON, which has no keywords, writes
 * the field on the left as a string and on the right as {"field": "deletions"}. A string
 * on the right is always text. Arithmetic reads strings as fields (there is no text
 * arithmetic).
 *
 * Semantics (the reference for docs/query.md and the property test): a missing field is
 * nil. := and :not= are Clojure's =. :> :>= :< :<= order two numbers, or two strings by
 * code point; anything else (nil, mixed types) makes them false. :contains and :matches
 * read the field as text (str): nil is "", a number its digits. Arithmetic gives nil
 * when an operand is not a number, and / gives nil for a zero divisor (and a double, as
 * the Lisp's / does).
 *
 * Emission: plain Clojure, (> (:files x) 5), when the operands are known numbers that are
 * always present (numeric fields of tool results, literals); otherwise the operands are
 * bound in a let and checked first. Known types let contradictions be reported before
 * anything runs ([:> :author 5], [:sum :message]).
 *
 * Rejected: helper functions defined at the top of every program (the program would not
 * read on its own); guards everywhere (the seed's examples would not read like the
 * seed); letting comparisons with nil raise type errors (a filter over records where a
 * field is sometimes missing would fail instead of skipping them).
 */
#include "query_int.h"

#include <math.h>
#include <string.h>

/* ---- operators ---- */

enum {
    W_EQ,
    W_NE,
    W_GT,
    W_GE,
    W_LT,
    W_LE,
    W_CONTAINS,
    W_MATCHES,
    W_IN,
    W_EXISTS,
    W_AND,
    W_OR,
    W_NOT,
    W_ANY,
    W_ALL,
    W_COUNT
};
static const char *const where_ops[W_COUNT] = {"=",  "not=",   ">",  ">=",  "<",   "<=",
                                               "contains", "matches", "in", "exists", "and",
                                               "or", "not",    "any", "all"};
static const char where_expected[] =
    "one of := :not= :> :>= :< :<= :contains :matches :in :exists :and :or :not :any :all";

/* Operators of other languages, and what to write instead. */
static const struct {
    const char *wrong, *right;
} misspelt[] = {
    {"!=", "not="},
    {"<>", "not="},
    {"ne", "not="},
    {"neq", "not="},
    {"==", "="},
    {"eq", "="},
    {"is", "="},
    {"equals", "="},
    {"gt", ">"},
    {"gte", ">="},
    {"ge", ">="},
    {"lt", "<"},
    {"lte", "<="},
    {"le", "<="},
    {"=>", ">="},
    {"=<", "<="},
    {"like", "contains"},
    {"includes", "contains"},
    {"includes?", "contains"},
    {"str-contains?", "contains"},
    {"contains?", "contains"},
    {"has", "contains"},
    {"regex", "matches"},
    {"match", "matches"},
    {"re-find", "matches"},
    {"matches?", "matches"},
    {"exist", "exists"},
    {"exists?", "exists"},
    {"some?", "exists"},
    {"present", "exists"},
    {"&&", "and"},
    {"||", "or"},
    {"!", "not"},
    {"one-of", "in"},
    {"in?", "in"},
    {"add", "+"},
    {"plus", "+"},
    {"sub", "-"},
    {"minus", "-"},
    {"mul", "*"},
    {"times", "*"},
    {"div", "/"},
    {"divide", "/"},
};

static const char *const arith_ops[] = {"+", "-", "*", "/"};
static const char arith_expected[] = "one of :+ :- :* :/";

/* Functions of computed values, one record each: the check reads the arity and the kind
 * of each operand from it, etype the result's type, the DSL reference its usage
 * (qr_query_each_function). Date parts compile to the Lisp's date-part (lib_date.c), path
 * parts to regexes, collection functions to some/every?/filter over the field. */
enum {
    F_IF,
    F_STR,
    F_DIRNAME,
    F_BASENAME,
    F_TOPDIR,
    F_EXT,
    F_STEM,
    F_STRIPEXT,
    F_COUNTOF,
    F_YEAR,
    F_QUARTER,
    F_MONTH,
    F_WEEK,
    F_DAY,
    F_WEEKDAY,
    F_WEEKDAYNUM,
    F_HOUR,
    F_FIRSTWORD,
    F_LOWER,
    F_UPPER,
    F_TRIM,
    F_SUBSTR,
    F_LENGTH,
    F_NTH,
    F_PLUCK,
    F_COUNTIF,
    F_COUNT
};
static const char *const fn_ops[F_COUNT] = {
    "if",    "str",    "dirname",  "basename",    "top-dir",    "ext",   "stem",
    "strip-ext", "count-of", "year", "quarter",   "month",      "week",  "day",
    "weekday", "weekday-num", "hour", "first-word", "lower", "upper", "trim",
    "substr", "length", "nth", "pluck", "count-if"};
static const struct {
    size_t min, max; /* operands */
    uint8_t type;    /* of the result */
    bool safe;       /* never nil */
    const char *group;
    const char *usage;
} fn_info[F_COUNT] = {
    {3, 3, FT_ANY, false, "logic", "[:if PREDICATE THEN ELSE]"},
    {1, 16, FT_STR, true, "text", "[:str x ...] (joined as text; nil is \"\")"},
    {1, 1, FT_STR, true, "path", "[:dirname :path] (\"\" at the top)"},
    {1, 1, FT_STR, true, "path", "[:basename :path]"},
    {1, 1, FT_STR, true, "path", "[:top-dir :path] (the first directory)"},
    {1, 1, FT_STR, true, "path", "[:ext :path] (\"c\" for src/a.c, \"\" for Makefile)"},
    {1, 1, FT_STR, true, "path", "[:stem :path] (\"a\")"},
    {1, 1, FT_STR, true, "path", "[:strip-ext :path] (\"src/a\")"},
    {1, 1, FT_NUM, true, "binding", "[:count-of :binding] (how many items another binding holds)"},
    {1, 1, FT_NUM, false, "date", "[:year :date] 2024"},
    {1, 1, FT_STR, false, "date", "[:quarter :date] \"2024-Q1\""},
    {1, 1, FT_STR, false, "date", "[:month :date] \"2024-03\""},
    {1, 1, FT_STR, false, "date", "[:week :date] \"2024-W09\" (ISO)"},
    {1, 1, FT_STR, false, "date", "[:day :date] \"2024-03-04\""},
    {1, 1, FT_STR, false, "date", "[:weekday :date] \"Monday\""},
    {1, 1, FT_NUM, false, "date", "[:weekday-num :date] 1 (Monday) to 7"},
    {1, 1, FT_NUM, false, "date", "[:hour :date] 0 to 23"},
    {1, 1, FT_STR, true, "text", "[:first-word :subject] (\"fix\" for \"fix: crash\", \"\" when none)"},
    {1, 1, FT_STR, true, "text", "[:lower x]"},
    {1, 1, FT_STR, true, "text", "[:upper x]"},
    {1, 1, FT_STR, true, "text", "[:trim x]"},
    {2, 3, FT_STR, true, "text", "[:substr x START END?] (from 0)"},
    {1, 1, FT_NUM, true, "collection", "[:length x] (characters or items; 0 for nil)"},
    {2, 2, FT_ANY, false, "collection", "[:nth :parents 1] (from 0; nil past the end)"},
    {2, 2, FT_COLL, true, "collection", "[:pluck :paths :path] (a field of each item)"},
    {2, 2, FT_NUM, true, "collection", "[:count-if :paths PREDICATE] (see :any)"},
};

static int find_op(const char *s, size_t n, const char *const *ops, size_t nops)
{
    for (size_t i = 0; i < nops; i++)
        if (strlen(ops[i]) == n && !memcmp(ops[i], s, n))
            return (int)i;
    return -1;
}

static const char *op_hint(qq_ctx *c, const char *s, size_t n, const char *const *ops, size_t nops,
                           const char *otherwise)
{
    for (size_t i = 0; i < sizeof misspelt / sizeof misspelt[0]; i++)
        if (strlen(misspelt[i].wrong) == n && !memcmp(misspelt[i].wrong, s, n) &&
            find_op(misspelt[i].right, strlen(misspelt[i].right), ops, nops) >= 0)
            return qq_fmt(c, "write :%s", misspelt[i].right);
    return qq_did_you_mean(c, s, n, ops, nops, ":", otherwise);
}

/* ---- types of canonical expressions ---- */

typedef struct et {
    uint8_t type; /* qq_ftype */
    bool safe;    /* never nil, always of its type */
    bool lit;     /* a literal */
} et;

static et etype(const qq_shape *s, qr_val e)
{
    et r = {FT_ANY, false, false};
    switch (e.t) {
    case QR_T_KW: {
        size_t n;
        const char *nm = qr_sym_name(e.sym, &n);
        const qq_field *f = qq_field_find(s, nm, n);
        if (f) {
            r.type = f->type;
            r.safe = f->always && f->type != FT_ANY && f->type != FT_NIL;
        }
        return r;
    }
    case QR_T_STR:
        if (qq_has_template(e.s))
            return r;
        return (et){FT_STR, true, true};
    case QR_T_INT:
    case QR_T_DOUBLE: return (et){FT_NUM, true, true};
    case QR_T_BOOL: return (et){FT_BOOL, true, true};
    case QR_T_NIL: return (et){FT_NIL, false, true};
    case QR_T_VEC: {
        size_t n = qr_vec_len(e);
        if (n == 0 || qr_vec_at(e, 0).t != QR_T_KW) /* a literal vector (the values of :in) */
            return (et){FT_COLL, true, true};
        size_t on;
        const char *op = qr_sym_name(qr_vec_at(e, 0).sym, &on);
        int fn = find_op(op, on, fn_ops, F_COUNT);
        if (fn == F_IF) {
            et a = etype(s, qr_vec_at(e, 2)), b = etype(s, qr_vec_at(e, 3));
            if (a.type == b.type)
                return (et){a.type, a.safe && b.safe, false};
            return r;
        }
        if (fn >= 0)
            return (et){fn_info[fn].type, fn_info[fn].safe, false};
        bool safe = true;
        for (size_t i = 1; i < n; i++) {
            et k = etype(s, qr_vec_at(e, i));
            safe = safe && k.safe && k.type == FT_NUM;
        }
        if (op[0] == '/') {
            qr_val d = qr_vec_at(e, n - 1);
            safe = safe && qr_is_number(d) && qr_to_double(d) != 0;
        }
        return (et){FT_NUM, safe, false};
    }
    default: return r;
    }
}

static bool definite(uint8_t t)
{
    return t != FT_ANY && t != FT_NIL;
}

/* ---- literals ---- */

bool qq_check_literal(qq_ctx *c, qr_val v, qr_val *out, int depth)
{
    if (depth > QR_QUERY_MAX_NESTING) {
        qq_problem(c, NULL, "deeper data", "data nested at most 32 levels deep",
                   "flatten the value", "value nested too deeply");
        return false;
    }
    switch (v.t) {
    case QR_T_NIL:
    case QR_T_BOOL:
    case QR_T_INT:
    case QR_T_DOUBLE:
    case QR_T_KW: *out = v; return true;
    case QR_T_STR: {
        *out = v;
        bool whole;
        return qq_has_template(v.s) ? qq_check_template(c, v.s, out, &whole) : true;
    }
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_SET: {
        size_t n = v.t == QR_T_SET ? qr_map_len(v) : qr_vec_len(v);
        qr_vecb vb;
        qr_vecb_init(&vb, c->a, n);
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
            qr_val it = v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), co;
            qq_push_index(c, (long)i);
            if (qq_check_literal(c, it, &co, depth + 1))
                qr_vecb_push(&vb, co);
            else
                ok = false;
            qq_pop(c);
        }
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return ok;
    }
    case QR_T_MAP: {
        qr_mapb mb;
        qr_mapb_init(&mb, c->a, qr_map_len(v));
        bool ok = true;
        for (size_t i = 0; i < qr_map_len(v); i++) {
            qr_val k = qr_map_key_at(v, i), co;
            if (k.t != QR_T_KW && k.t != QR_T_STR && k.t != QR_T_INT) {
                qq_problem(c, &k, NULL, "keys that are keywords, strings or integers",
                           "write the key as a keyword, e.g. :name", "bad map key %s",
                           qq_show(c, k));
                ok = false;
                continue;
            }
            const char *kn;
            size_t kl;
            qq_push_key(c,
                        qq_name_of(k, &kn, &kl) ? qr_arena_strndup(c->a, kn, kl) : qq_show(c, k));
            if (qq_check_literal(c, qr_map_val_at(v, i), &co, depth + 1))
                qr_mapb_put(&mb, k, co);
            else
                ok = false;
            qq_pop(c);
        }
        *out = qr_mapb_finish(&mb, QR_T_MAP);
        return ok;
    }
    default:
        qq_problem(c, &v, NULL,
                   "data: nil, true/false, a number, a string, a keyword, or a "
                   "vector or map of them",
                   v.t == QR_T_SYM ? "a symbol is code, not data: quote text as a string"
                                   : "write the value as data",
                   "%s is not data", qr_type_name((qr_type)v.t));
        return false;
    }
}

void qq_emit_regex(qr_buf *b, const char *p, size_t n)
{
    /* the reader keeps "\x" as two characters except \" (a quote), and a program cannot
     * hold control characters: so a quote, escaped or not, is written \" (in PCRE2 \" is a
     * quote too), and a control character, escaped or not, as \x{HH} */
    qr_buf_puts(b, "#\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '\\' && i + 1 < n) {
            unsigned char nx = (unsigned char)p[i + 1];
            if (nx == '"')
                qr_buf_puts(b, "\\\"");
            else if (nx < 0x20 || nx == 0x7f)
                qr_buf_printf(b, "\\x{%02x}", nx);
            else
                qr_buf_append(b, p + i, 2);
            i++;
        } else if (ch == '"') {
            qr_buf_puts(b, "\\\"");
        } else if (ch < 0x20 || ch == 0x7f) {
            qr_buf_printf(b, "\\x{%02x}", ch);
        } else {
            qr_buf_putc(b, (char)ch);
        }
    }
    qr_buf_putc(b, '"');
}

void qq_emit_literal(qq_ctx *c, qr_val v, qr_buf *b)
{
    switch (v.t) {
    case QR_T_STR:
        if (qq_has_template(v.s)) {
            qq_emit_template(c, v.s, b);
            return;
        }
        qr_print(b, v, QR_PRINT_READABLY);
        return;
    case QR_T_VEC:
        qr_buf_putc(b, '[');
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qq_emit_literal(c, qr_vec_at(v, i), b);
        }
        qr_buf_putc(b, ']');
        return;
    case QR_T_MAP:
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < qr_map_len(v); i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_print(b, qr_map_key_at(v, i), QR_PRINT_READABLY);
            qr_buf_putc(b, ' ');
            qq_emit_literal(c, qr_map_val_at(v, i), b);
        }
        qr_buf_putc(b, '}');
        return;
    default: qr_print(b, v, QR_PRINT_READABLY); return;
    }
}

void qq_emit_field(qr_buf *b, qr_val kw, const char *x)
{
    qr_buf_putc(b, '(');
    qr_print(b, kw, QR_PRINT_READABLY);
    qr_buf_printf(b, " %s)", x);
}

/* ---- operands ---- */

/* A {:field x} reference (JSON's way to name a field on the right of a comparison). */
static bool field_ref_map(qr_val v, qr_val *name)
{
    return v.t == QR_T_MAP && qr_map_len(v) == 1 && qq_get(v, "field", name);
}

static bool check_arith(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, int depth);

static bool check_field(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out)
{
    const qq_field *f;
    return qq_resolve_field(c, s, v, out, &f);
}

/* An operand of a predicate. right: strings are text there, fields on the left. */
static bool check_operand(qq_ctx *c, const qq_shape *s, qr_val v, bool right, qr_val *out,
                          int depth)
{
    qr_val name;
    switch (v.t) {
    case QR_T_KW: return check_field(c, s, v, out);
    case QR_T_STR:
        if (!right)
            return check_field(c, s, v, out);
        return qq_check_literal(c, v, out, depth);
    case QR_T_MAP:
        if (field_ref_map(v, &name)) {
            qq_push_key(c, "field");
            bool ok = check_field(c, s, name, out);
            qq_pop(c);
            return ok;
        }
        break;
    case QR_T_VEC:
    case QR_T_LIST: return check_arith(c, s, v, out, depth + 1);
    case QR_T_INT:
    case QR_T_BOOL:
    case QR_T_NIL: *out = v; return true;
    case QR_T_DOUBLE:
        if (!isfinite(v.d)) {
            qq_problem(c, &v, NULL, "a finite number", "use a number such as 1e9",
                       "%s cannot be compared", qq_show(c, v));
            return false;
        }
        *out = v;
        return true;
    default: break;
    }
    qq_problem(c, &v, NULL,
               right ? "a value (number, string, true/false, nil), a field keyword, or an "
                       "arithmetic vector such as [:+ :additions :deletions]"
                     : "a field keyword such as :files, or an arithmetic vector",
               "compare a field with a value: [:> :files 5]", "bad operand %s", qq_show(c, v));
    return false;
}

/* An operand of a function: a field, a literal, or a nested expression. */
static bool check_fn_operand(qq_ctx *c, const qq_shape *s, qr_val a, qr_val *co, int depth)
{
    qr_val name;
    /* JSON has no keywords: a string there is a field when the records have one of that
     * name, else text */
    if (a.t == QR_T_KW || (a.t == QR_T_STR && c->json && qq_field_find(s, a.s->data, a.s->len)))
        return check_field(c, s, a, co);
    if (field_ref_map(a, &name))
        return check_field(c, s, name, co);
    if (a.t == QR_T_VEC || a.t == QR_T_LIST)
        return check_arith(c, s, a, co, depth + 1);
    if (a.t == QR_T_STR || a.t == QR_T_INT || a.t == QR_T_BOOL || a.t == QR_T_NIL ||
        (a.t == QR_T_DOUBLE && isfinite(a.d)))
        return qq_check_literal(c, a, co, depth);
    qq_problem(c, &a, NULL, "a field keyword, a value or an expression",
               "e.g. [:str :author \" \" :email]", "bad operand %s", qq_show(c, a));
    return false;
}

/* The predicate of :any, :all and :count-if, checked over each item: the item's fields
 * (a record's) over the record's, or :it (an item that is no record). What the items
 * hold is not known to the compiler, so their fields are not checked. */
static bool check_item_where(qq_ctx *c, qr_val v, qr_val *out, int depth)
{
    qq_shape item;
    qq_shape_unknown(&item, "the items");
    return qq_check_where(c, &item, v, out, depth + 1);
}

static bool check_fn(qq_ctx *c, const qq_shape *s, qr_val v, int fn, qr_val *out, int depth)
{
    size_t n = qr_vec_len(v), nargs = n - 1;
    if (nargs < fn_info[fn].min || nargs > fn_info[fn].max) {
        qq_problem(c, &v, NULL, fn_info[fn].usage, "give the function its operands",
                   ":%s with %zu operand%s", fn_ops[fn], nargs, nargs == 1 ? "" : "s");
        return false;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, c->a, n);
    qr_vecb_push(&vb, qq_kw(c, fn_ops[fn], strlen(fn_ops[fn])));
    bool ok = true;
    for (size_t i = 1; i < n; i++) {
        qr_val a = qr_vec_at(v, i), co = qr_nil();
        qq_push_index(c, (long)i);
        bool good;
        if (fn == F_IF && i == 1) {
            good = qq_check_where(c, s, a, &co, depth + 1);
        } else if (fn == F_COUNTIF && i == 2) {
            good = check_item_where(c, a, &co, depth);
        } else if ((fn == F_NTH && i == 2) || (fn == F_SUBSTR && i >= 2)) {
            good = a.t == QR_T_INT && a.i >= 0;
            if (good)
                co = a;
            else
                qq_problem(c, &a, NULL, "an integer from 0", fn_info[fn].usage,
                           "bad index %s", qq_show(c, a));
        } else if (fn == F_PLUCK && i == 2) {
            const char *fs;
            size_t fl;
            good = qq_name_of(a, &fs, &fl) && fl > 0 && qr_kw_valid(fs, fl);
            if (good)
                co = qq_kw(c, fs, fl);
            else
                qq_problem(c, &a, NULL, "the name of the items' field, e.g. :path",
                           fn_info[fn].usage, "bad field %s", qq_show(c, a));
        } else if (fn == F_COUNTOF) {
            int b = qq_need_binding(c, a, "count-of");
            good = b >= 0;
            if (good) /* canonical: the binding's name as a keyword */
                co = qq_kw(c, c->binds[b].name, strlen(c->binds[b].name));
        } else {
            good = check_fn_operand(c, s, a, &co, depth);
        }
        if (good)
            qr_vecb_push(&vb, co);
        ok = ok && good;
        qq_pop(c);
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return ok;
}

static bool check_arith(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, int depth)
{
    if (depth > QR_QUERY_MAX_NESTING) {
        qq_problem(c, NULL, "deeper nesting", "expressions nested at most 32 levels deep",
                   "split the computation into several :map steps",
                   "expression nested too "
                   "deeply");
        return false;
    }
    size_t n = qr_vec_len(v);
    const char *on;
    size_t onl;
    if (n == 0 || !qq_name_of(qr_vec_at(v, 0), &on, &onl)) {
        qq_problem(c, &v, NULL, "an arithmetic vector [:op x y] with :op one of :+ :- :* :/",
                   "e.g. [:+ [:* :deletions 2] :additions]", "bad expression %s", qq_show(c, v));
        return false;
    }
    int op = find_op(on, onl, arith_ops, 4);
    int fn = op < 0 ? find_op(on, onl, fn_ops, F_COUNT) : -1;
    if (fn >= 0)
        return check_fn(c, s, v, fn, out, depth);
    if (op < 0) {
        qr_val o = qr_vec_at(v, 0);
        qq_push_index(c, 0);
        qq_problem(c, &o, NULL, arith_expected,
                   op_hint(c, on, onl, arith_ops, 4,
                           "aggregates (:sum, :avg ...) belong in an :aggregate step"),
                   "unknown arithmetic operator :%.*s", (int)onl, on);
        qq_pop(c);
        return false;
    }
    size_t nargs = n - 1;
    bool bad_arity = op == 3 ? nargs != 2 : (op == 1 ? nargs < 1 : nargs < 2);
    if (bad_arity) {
        qq_problem(c, &v, NULL,
                   op == 3 ? "2 operands: [:/ x y]"
                           : (op == 1 ? "1 or more operands" : "2 or more operands"),
                   "e.g. [:+ :additions :deletions]", ":%s with %zu operand%s", arith_ops[op],
                   nargs, nargs == 1 ? "" : "s");
        return false;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, c->a, n);
    qr_vecb_push(&vb, qq_kw(c, arith_ops[op], strlen(arith_ops[op])));
    bool ok = true;
    for (size_t i = 1; i < n; i++) {
        qr_val a = qr_vec_at(v, i), co = qr_nil(), name;
        qq_push_index(c, (long)i);
        bool good;
        if (a.t == QR_T_KW || a.t == QR_T_STR) {
            good = check_field(c, s, a, &co);
        } else if (field_ref_map(a, &name)) {
            good = check_field(c, s, name, &co);
        } else if (a.t == QR_T_VEC || a.t == QR_T_LIST) {
            good = check_arith(c, s, a, &co, depth + 1);
        } else if (a.t == QR_T_INT || (a.t == QR_T_DOUBLE && isfinite(a.d))) {
            co = a;
            good = true;
        } else {
            qq_problem(c, &a, NULL, "a number, a field keyword or an arithmetic vector",
                       "arithmetic works on numbers", "bad operand %s", qq_show(c, a));
            good = false;
        }
        if (good) {
            et t = etype(s, co);
            if (definite(t.type) && t.type != FT_NUM) {
                qq_problem(c, &a, NULL, "a number",
                           "arithmetic works on numbers; pick a numeric field",
                           "%s holds %s, not numbers", qq_show(c, co), qq_ftype_name(t.type));
                good = false;
            } else if (op == 3 && i == 2 && qr_is_number(co) && qr_to_double(co) == 0) {
                qq_problem(c, &a, NULL, "a divisor other than 0", "divide by a non-zero number",
                           "division by zero");
                good = false;
            }
        }
        if (good)
            qr_vecb_push(&vb, co);
        ok = ok && good;
        qq_pop(c);
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return ok;
}

bool qq_check_expr(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, uint8_t *type, bool *always,
                   int depth)
{
    bool ok;
    qr_val name;
    if (v.t == QR_T_KW || (v.t == QR_T_STR && c->json)) {
        ok = check_field(c, s, v, out);
    } else if (field_ref_map(v, &name)) {
        qq_push_key(c, "field");
        ok = check_field(c, s, name, out);
        qq_pop(c);
    } else if (v.t == QR_T_VEC || v.t == QR_T_LIST) {
        ok = check_arith(c, s, v, out, depth + 1);
    } else if (v.t == QR_T_STR || v.t == QR_T_INT || v.t == QR_T_DOUBLE || v.t == QR_T_BOOL ||
               v.t == QR_T_NIL) {
        ok = qq_check_literal(c, v, out, depth);
    } else {
        qq_problem(c, &v, NULL,
                   "a field keyword (:author), an arithmetic vector ([:+ :a :b]) or a value",
                   "e.g. {:risk [:+ [:* :deletions 2] :additions]}", "bad computed value %s",
                   qq_show(c, v));
        return false;
    }
    if (ok) {
        et t = etype(s, *out);
        *type = t.type;
        *always = t.safe;
    }
    return ok;
}

/* ---- predicates ---- */

static bool check_string_arg(qq_ctx *c, qr_val v, const char *what)
{
    if (v.t == QR_T_STR)
        return true;
    qq_problem(c, &v, NULL, "a string", qq_fmt(c, "write the %s in double quotes", what),
               "%s must be a string, not %s", what, qr_type_name((qr_type)v.t));
    return false;
}

/* The right side of :in is a collection the record holds, not a vector of values: a
 * field keyword, or a vector whose first item names a function ([:pluck :paths :path]). */
static bool is_collection_expr(qr_val v)
{
    const char *nm;
    size_t n;
    if (v.t == QR_T_KW || field_ref_map(v, &(qr_val){0}))
        return true;
    if ((v.t != QR_T_VEC && v.t != QR_T_LIST) || qr_vec_len(v) == 0 || qr_vec_at(v, 0).t != QR_T_KW)
        return false;
    nm = qr_sym_name(qr_vec_at(v, 0).sym, &n);
    return find_op(nm, n, fn_ops, F_COUNT) >= 0;
}

static qr_val coll_ref(qq_ctx *c, qr_val e)
{
    qr_mapb mb;
    qr_mapb_init(&mb, c->a, 1);
    qr_mapb_put(&mb, qq_kw(c, "coll", 4), e);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

bool qq_check_where(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, int depth)
{
    if (depth > QR_QUERY_MAX_NESTING) {
        qq_problem(c, NULL, "deeper nesting", "predicates nested at most 32 levels deep",
                   "flatten nested :and and :or", "predicate nested too deeply");
        return false;
    }
    const char *on;
    size_t onl;
    if ((v.t != QR_T_VEC && v.t != QR_T_LIST) || qr_vec_len(v) == 0 ||
        !qq_name_of(qr_vec_at(v, 0), &on, &onl)) {
        qq_problem(c, &v, NULL, "a predicate vector [:op field value]",
                   "e.g. [:> :files 5], [:contains :message \"fix\"], [:and P Q]",
                   "bad predicate %s", qq_show(c, v));
        return false;
    }
    size_t n = qr_vec_len(v);
    int op = find_op(on, onl, where_ops, W_COUNT);
    if (op < 0) {
        qr_val o = qr_vec_at(v, 0);
        qq_push_index(c, 0);
        bool arith = find_op(on, onl, arith_ops, 4) >= 0;
        qq_problem(c, &o, NULL, where_expected,
                   arith ? "arithmetic goes inside a comparison: [:> [:+ :a :b] 10]"
                         : op_hint(c, on, onl, where_ops, W_COUNT,
                                   "a predicate starts with its operator: [:> :files 5]"),
                   "unknown operator :%.*s", (int)onl, on);
        qq_pop(c);
        return false;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, c->a, n);
    qr_vecb_push(&vb, qq_kw(c, where_ops[op], strlen(where_ops[op])));
    bool ok = true;
    if (op == W_AND || op == W_OR || op == W_NOT) {
        if ((op == W_NOT && n != 2) || n < 2) {
            qq_problem(c, &v, NULL,
                       op == W_NOT ? "one predicate: [:not P]" : "one or more predicates",
                       op == W_NOT ? "e.g. [:not [:= :author \"bot\"]]"
                                   : "e.g. [:and [:> :files 5] [:= :author \"ann\"]]",
                       ":%s with %zu predicate%s", where_ops[op], n - 1, n == 2 ? "" : "s");
            return false;
        }
        for (size_t i = 1; i < n; i++) {
            qr_val co;
            qq_push_index(c, (long)i);
            if (qq_check_where(c, s, qr_vec_at(v, i), &co, depth + 1))
                qr_vecb_push(&vb, co);
            else
                ok = false;
            qq_pop(c);
        }
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return ok;
    }
    if (op == W_EXISTS) {
        if (n != 2) {
            qq_problem(c, &v, NULL, "one field: [:exists :field]", "e.g. [:exists :old_path]",
                       ":exists with %zu operands", n - 1);
            return false;
        }
        qr_val co;
        qq_push_index(c, 1);
        ok = check_field(c, s, qr_vec_at(v, 1), &co);
        qq_pop(c);
        if (ok)
            qr_vecb_push(&vb, co);
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return ok;
    }
    if (op == W_ANY || op == W_ALL) {
        if (n != 3) {
            qq_problem(c, &v, NULL, qq_fmt(c, "[:%s :field PREDICATE]", where_ops[op]),
                       "e.g. [:any :paths [:= [:ext :path] \"c\"]]", ":%s with %zu operand%s",
                       where_ops[op], n - 1, n == 2 ? "" : "s");
            return false;
        }
        qr_val coll, pred;
        qq_push_index(c, 1);
        ok = check_fn_operand(c, s, qr_vec_at(v, 1), &coll, depth);
        qq_pop(c);
        qq_push_index(c, 2);
        ok = check_item_where(c, qr_vec_at(v, 2), &pred, depth) && ok;
        qq_pop(c);
        if (!ok)
            return false;
        qr_vecb_push(&vb, coll);
        qr_vecb_push(&vb, pred);
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return true;
    }
    if (n != 3) {
        qq_problem(c, &v, NULL, qq_fmt(c, "[:%s field value]", where_ops[op]),
                   op == W_IN ? "e.g. [:in :author [\"ann\" \"bob\"]]"
                              : "combine several conditions with [:and P Q]",
                   ":%s with %zu operand%s", where_ops[op], n - 1, n == 2 ? "" : "s");
        return false;
    }
    qr_val l, r = qr_nil();
    qq_push_index(c, 1);
    bool lok = check_operand(c, s, qr_vec_at(v, 1), false, &l, depth);
    qq_pop(c);
    qr_val rv = qr_vec_at(v, 2);
    qq_push_index(c, 2);
    bool rok;
    if (op == W_CONTAINS || op == W_MATCHES) {
        rok = check_string_arg(c, rv, op == W_MATCHES ? "pattern" : "text to look for");
        if (rok && op == W_MATCHES && qq_has_template(rv.s)) {
            qq_problem(c, &rv, NULL, "a literal regular expression",
                       "patterns are checked before the query runs; use :contains with "
                       "a template",
                       "a :matches pattern cannot hold a template");
            rok = false;
        } else if (rok && op == W_MATCHES) {
            qr_val re;
            qr_read_error err;
            if (qr_regex_compile(c->a, rv.s->data, rv.s->len, &re, &err) != QR_OK) {
                qq_problem(c, &rv, NULL, "a PCRE2 regular expression",
                           "check the pattern's brackets; inside EDN and JSON strings a "
                           "backslash is written twice",
                           "bad regular expression: %s", err.msg);
                rok = false;
            }
        }
        if (rok)
            rok = qq_check_literal(c, rv, &r, depth);
    } else if (op == W_IN && is_collection_expr(rv)) {
        /* [:in X :parents], [:in X [:pluck :paths :path]]: a collection the record holds */
        rok = check_fn_operand(c, s, rv, &r, depth);
        if (rok) /* canonical: {:coll E}, never a vector of values */
            r = coll_ref(c, r);
    } else if (op == W_IN) {
        rok = rv.t == QR_T_VEC || rv.t == QR_T_LIST || rv.t == QR_T_SET;
        if (!rok) {
            qq_problem(c, &rv, NULL, "a vector of values", "e.g. [:in :author [\"ann\" \"bob\"]]",
                       ":in needs a vector of values, not %s", qr_type_name((qr_type)rv.t));
        } else {
            size_t m = rv.t == QR_T_SET ? qr_map_len(rv) : qr_vec_len(rv);
            qr_vecb ib;
            qr_vecb_init(&ib, c->a, m);
            for (size_t i = 0; i < m; i++) {
                qr_val it = rv.t == QR_T_SET ? qr_map_key_at(rv, i) : qr_vec_at(rv, i);
                bool scalar = it.t == QR_T_NIL || it.t == QR_T_BOOL || it.t == QR_T_INT ||
                              (it.t == QR_T_DOUBLE && isfinite(it.d)) || it.t == QR_T_KW ||
                              (it.t == QR_T_STR && !qq_has_template(it.s));
                if (!scalar) {
                    qq_push_index(c, (long)i);
                    qq_problem(c, &it, NULL, "a number, string, keyword, true/false or nil",
                               ":in compares the field with each value", "bad value %s in :in",
                               qq_show(c, it));
                    qq_pop(c);
                    rok = false;
                    continue;
                }
                bool dup = false; /* a set literal may not repeat an item */
                for (size_t j = 0; j < i && !dup; j++) {
                    qr_val o = rv.t == QR_T_SET ? qr_map_key_at(rv, j) : qr_vec_at(rv, j);
                    dup = qr_equal(o, it);
                }
                if (!dup)
                    qr_vecb_push(&ib, it);
            }
            r = qr_vecb_finish(&ib, QR_T_VEC);
        }
    } else {
        rok = check_operand(c, s, rv, true, &r, depth);
    }
    qq_pop(c);
    if (!lok || !rok)
        return false;
    /* contradictions the types show */
    et lt = etype(s, l), rt = etype(s, r);
    const char *lshow = qq_show(c, l), *rshow = qq_show(c, r);
    if (op == W_CONTAINS || op == W_MATCHES) {
        if (definite(lt.type) && lt.type != FT_STR) {
            qq_problem(c, NULL, qq_fmt(c, "%s holding %s", lshow, qq_ftype_name(lt.type)),
                       "a field holding text",
                       lt.type == FT_NUM ? "compare numbers with := :> :< ..." : "",
                       ":%s looks for text, but %s holds %s", where_ops[op], lshow,
                       qq_ftype_name(lt.type));
            return false;
        }
    } else if (op >= W_GT && op <= W_LE) {
        const et *bad = (lt.type == FT_BOOL || lt.type == FT_NIL || lt.type == FT_COLL)   ? &lt
                        : (rt.type == FT_BOOL || rt.type == FT_NIL || rt.type == FT_COLL) ? &rt
                                                                                          : NULL;
        if (bad) {
            qq_problem(c, NULL, qq_fmt(c, "%s", qq_ftype_name(bad->type)),
                       "numbers, or strings (compared as text)",
                       bad->type == FT_NIL ? "test for a missing field with [:not [:exists :f]]"
                                           : "compare with := instead",
                       ":%s orders numbers or text, not %s", where_ops[op],
                       qq_ftype_name(bad->type));
            return false;
        }
        if ((lt.type == FT_NUM && rt.type == FT_STR) || (lt.type == FT_STR && rt.type == FT_NUM)) {
            bool lnum = lt.type == FT_NUM;
            qq_problem(c, NULL, qq_fmt(c, "%s and %s", lshow, rshow),
                       "both sides numbers, or both text",
                       lnum && rt.lit ? qq_fmt(c, "write the number without quotes")
                                      : "compare a field with a value of its own type",
                       ":%s compares %s (%s) with %s (%s): never true", where_ops[op], lshow,
                       qq_ftype_name(lt.type), rshow, qq_ftype_name(rt.type));
            return false;
        }
    } else if (op == W_EQ || op == W_NE) {
        if (definite(lt.type) && definite(rt.type) && lt.type != rt.type && lt.type != FT_COLL &&
            rt.type != FT_COLL) {
            qq_problem(c, NULL, qq_fmt(c, "%s and %s", lshow, rshow), "both sides of the same type",
                       rt.lit && rt.type == FT_STR && lt.type == FT_NUM
                           ? "write the number without quotes"
                           : "compare a field with a value of its own type",
                       ":%s compares %s (%s) with %s (%s): %s", where_ops[op], lshow,
                       qq_ftype_name(lt.type), rshow, qq_ftype_name(rt.type),
                       op == W_EQ ? "never true" : "always true");
            return false;
        }
    }
    qr_vecb_push(&vb, l);
    qr_vecb_push(&vb, r);
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return true;
}

/* ---- emission ---- */

static void emit_operand(qq_ctx *c, const qq_shape *s, qr_val e, const char *x, qr_buf *b)
{
    if (e.t == QR_T_KW)
        qq_emit_field(b, e, x);
    else if (e.t == QR_T_VEC)
        qq_emit_expr(c, s, e, x, b);
    else
        qq_emit_literal(c, e, b);
}

static void emit_arith(qq_ctx *c, const qq_shape *s, qr_val e, const char *x, qr_buf *b)
{
    size_t n = qr_vec_len(e), on;
    const char *op = qr_sym_name(qr_vec_at(e, 0).sym, &on);
    bool div = op[0] == '/';
    /* which operands need a check; they are bound to locals */
    enum { MAXK = 64 };
    int local[MAXK];
    bool need_num[MAXK];
    size_t nbound = 0;
    for (size_t i = 1; i < n && i < MAXK; i++) {
        qr_val k = qr_vec_at(e, i);
        et t = etype(s, k);
        need_num[i] = !(t.safe && t.type == FT_NUM);
        bool zero_check = div && i == 2 && !(qr_is_number(k) && qr_to_double(k) != 0);
        local[i] = (need_num[i] || zero_check) ? ++c->tmp : 0;
        nbound += local[i] != 0;
    }
    if (nbound == 0) {
        qr_buf_printf(b, "(%s", op);
        for (size_t i = 1; i < n; i++) {
            qr_buf_putc(b, ' ');
            emit_operand(c, s, qr_vec_at(e, i), x, b);
        }
        qr_buf_putc(b, ')');
        return;
    }
    qr_buf_puts(b, "(let [");
    bool first = true;
    for (size_t i = 1; i < n && i < MAXK; i++) {
        if (!local[i])
            continue;
        qr_buf_printf(b, "%sv%d ", first ? "" : " ", local[i]);
        emit_operand(c, s, qr_vec_at(e, i), x, b);
        first = false;
    }
    qr_buf_puts(b, "] (when ");
    size_t nconds = 0;
    for (size_t i = 1; i < n && i < MAXK; i++)
        nconds += (local[i] && need_num[i]) + (div && i == 2 && local[i]);
    if (nconds > 1)
        qr_buf_puts(b, "(and ");
    first = true;
    for (size_t i = 1; i < n && i < MAXK; i++) {
        if (local[i] && need_num[i]) {
            qr_buf_printf(b, "%s(number? v%d)", first ? "" : " ", local[i]);
            first = false;
        }
        if (div && i == 2 && local[i]) {
            qr_buf_printf(b, "%s(not (zero? v%d))", first ? "" : " ", local[i]);
            first = false;
        }
    }
    if (nconds > 1)
        qr_buf_putc(b, ')');
    qr_buf_printf(b, " (%s", op);
    for (size_t i = 1; i < n; i++) {
        qr_buf_putc(b, ' ');
        if (i < MAXK && local[i])
            qr_buf_printf(b, "v%d", local[i]);
        else
            emit_operand(c, s, qr_vec_at(e, i), x, b);
    }
    qr_buf_puts(b, ")))");
}

/* The extension: after the last dot of the last part, a dot that does not start it. */
#define EXT_RE "[^/.]\\.([^./]*)$"
/* The path up to that dot. */
#define STRIP_RE "^(.*[^/.])\\.[^./]*$"
/* A word: letters, digits, _ and, inside it, ' and -. */
#define WORD_RE "[\\p{L}\\p{N}_](?:[\\p{L}\\p{N}_'-]*[\\p{L}\\p{N}_])?"

/* (fn [iN] (let [x (merge x (if (map? iN) iN {:it iN}))] PREDICATE)): the predicate over
 * one item, the item's fields over the record's. */
static void emit_item_fn(qq_ctx *c, qr_val pred, const char *x, qr_buf *b)
{
    int v = ++c->tmp;
    qq_shape item;
    qq_shape_unknown(&item, "the items");
    qr_buf_printf(b, "(fn [i%d] (let [%s (merge %s (if (map? i%d) i%d {:it i%d}))] ", v, x, x, v,
                  v, v);
    int col = c->where_col;
    c->where_col = 0;
    qq_emit_where(c, &item, pred, x, b);
    c->where_col = col;
    qr_buf_puts(b, "))");
}

static void emit_fn(qq_ctx *c, const qq_shape *s, int fn, qr_val e, const char *x, qr_buf *b)
{
    size_t n = qr_vec_len(e);
    switch (fn) {
    case F_IF:
        qr_buf_puts(b, "(if ");
        qq_emit_where(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_vec_at(e, 2), x, b);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_vec_at(e, 3), x, b);
        qr_buf_putc(b, ')');
        return;
    case F_STR:
        qr_buf_puts(b, "(str");
        for (size_t i = 1; i < n; i++) {
            qr_buf_putc(b, ' ');
            qq_emit_expr(c, s, qr_vec_at(e, i), x, b);
        }
        qr_buf_putc(b, ')');
        return;
    case F_COUNTOF: {
        size_t bn;
        const char *bs = qr_sym_name(qr_vec_at(e, 1).sym, &bn);
        qr_buf_printf(b, "(count %s)", qq_sym(c, qq_lookup(c, bs, bn)));
        return;
    }
    case F_YEAR:
    case F_QUARTER:
    case F_MONTH:
    case F_WEEK:
    case F_DAY:
    case F_WEEKDAY:
    case F_WEEKDAYNUM:
    case F_HOUR:
        qr_buf_printf(b, "(date-part :%s ", fn_ops[fn]);
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_putc(b, ')');
        return;
    case F_EXT:
        qr_buf_puts(b, "(or (second (re-find ");
        qq_emit_regex(b, EXT_RE, strlen(EXT_RE));
        qr_buf_puts(b, " (str ");
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_puts(b, "))) \"\")");
        return;
    case F_STEM:
    case F_STRIPEXT: {
        int v = ++c->tmp;
        qr_buf_printf(b, "(let [v%d (str ", v);
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_puts(b, ")] ");
        if (fn == F_STEM) {
            qr_buf_puts(b, "(re-find ");
            qq_emit_regex(b, "[^/]*$", 6);
            qr_buf_putc(b, ' ');
        }
        qr_buf_puts(b, "(or (second (re-find ");
        qq_emit_regex(b, STRIP_RE, strlen(STRIP_RE));
        qr_buf_printf(b, " v%d)) v%d)%s)", v, v, fn == F_STEM ? ")" : "");
        return;
    }
    case F_FIRSTWORD:
        qr_buf_puts(b, "(or (re-find ");
        qq_emit_regex(b, WORD_RE, strlen(WORD_RE));
        qr_buf_puts(b, " (str ");
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_puts(b, ")) \"\")");
        return;
    case F_LOWER:
    case F_UPPER:
    case F_TRIM:
        qr_buf_printf(b, "(%s (str ", fn == F_LOWER ? "lower-case" : fn == F_UPPER ? "upper-case" : "trim");
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_puts(b, "))");
        return;
    case F_SUBSTR: {
        int v = ++c->tmp;
        qr_buf_printf(b, "(let [v%d (str ", v);
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_printf(b, ")] (subs v%d (min %lld (count v%d))", v, (long long)qr_vec_at(e, 2).i, v);
        if (n > 3)
            qr_buf_printf(b, " (max (min %lld (count v%d)) (min %lld (count v%d)))",
                          (long long)qr_vec_at(e, 3).i, v, (long long)qr_vec_at(e, 2).i, v);
        qr_buf_puts(b, "))");
        return;
    }
    case F_LENGTH: {
        int v = ++c->tmp;
        qr_buf_printf(b, "(let [v%d ", v);
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_printf(b, "] (if (or (string? v%d) (coll? v%d)) (count v%d) 0))", v, v, v);
        return;
    }
    case F_NTH:
        qr_buf_puts(b, "(get ");
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_printf(b, " %lld)", (long long)qr_vec_at(e, 2).i);
        return;
    case F_PLUCK:
        qr_buf_puts(b, "(mapv ");
        qr_print(b, qr_vec_at(e, 2), QR_PRINT_READABLY);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_putc(b, ')');
        return;
    case F_COUNTIF:
        qr_buf_puts(b, "(count (filter ");
        emit_item_fn(c, qr_vec_at(e, 2), x, b);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
        qr_buf_puts(b, "))");
        return;
    default: break;
    }
    /* path functions, on the operand read as text */
    const char *re = fn == F_DIRNAME ? "^.*(?=/)" : fn == F_BASENAME ? "[^/]*$" : "^[^/]*(?=/)";
    qr_buf_puts(b, "(or (re-find ");
    qq_emit_regex(b, re, strlen(re));
    qr_buf_puts(b, " (str ");
    qq_emit_expr(c, s, qr_vec_at(e, 1), x, b);
    qr_buf_puts(b, ")) \"\")");
}

void qq_emit_expr(qq_ctx *c, const qq_shape *s, qr_val e, const char *x, qr_buf *b)
{
    int fn = -1;
    if (e.t == QR_T_VEC && qr_vec_len(e) && qr_vec_at(e, 0).t == QR_T_KW) {
        size_t on;
        const char *op = qr_sym_name(qr_vec_at(e, 0).sym, &on);
        fn = find_op(op, on, fn_ops, F_COUNT);
    }
    if (fn >= 0)
        emit_fn(c, s, fn, e, x, b);
    else if (e.t == QR_T_VEC && qr_vec_len(e) && qr_vec_at(e, 0).t == QR_T_KW)
        emit_arith(c, s, e, x, b);
    else
        emit_operand(c, s, e, x, b);
}

/* (> a b) for numbers, (> (compare a b) 0) for text, with checks on what is not known. */
static void emit_ordering(qq_ctx *c, const qq_shape *s, const char *op, qr_val l, qr_val r,
                          const char *x, qr_buf *b)
{
    et lt = etype(s, l), rt = etype(s, r);
    int cls = (lt.type == FT_NUM || rt.type == FT_NUM)   ? FT_NUM
              : (lt.type == FT_STR || rt.type == FT_STR) ? FT_STR
                                                         : FT_ANY;
    bool lneed = !(lt.safe && lt.type == cls), rneed = !(rt.safe && rt.type == cls);
    if (cls == FT_ANY)
        lneed = rneed = true;
    int lv = lneed ? ++c->tmp : 0, rv = rneed ? ++c->tmp : 0;
    qr_buf ls, rs;
    qr_buf_init(&ls);
    qr_buf_init(&rs);
    if (lneed)
        qr_buf_printf(&ls, "v%d", lv);
    else
        emit_operand(c, s, l, x, &ls);
    if (rneed)
        qr_buf_printf(&rs, "v%d", rv);
    else
        emit_operand(c, s, r, x, &rs);
    const char *L = ls.p ? ls.p : "", *R = rs.p ? rs.p : "";
    if (lneed || rneed) {
        qr_buf_puts(b, "(let [");
        if (lneed) {
            qr_buf_printf(b, "v%d ", lv);
            emit_operand(c, s, l, x, b);
        }
        if (rneed) {
            qr_buf_printf(b, "%sv%d ", lneed ? " " : "", rv);
            emit_operand(c, s, r, x, b);
        }
        qr_buf_puts(b, "] ");
    }
    if (cls == FT_ANY) {
        qr_buf_printf(b,
                      "(or (and (number? %s) (number? %s) (%s %s %s)) "
                      "(and (string? %s) (string? %s) (%s (compare %s %s) 0)))",
                      L, R, op, L, R, L, R, op, L, R);
    } else {
        const char *pred = cls == FT_NUM ? "number?" : "string?";
        int nchecks = lneed + rneed;
        if (nchecks)
            qr_buf_puts(b, "(and ");
        if (lneed)
            qr_buf_printf(b, "(%s %s) ", pred, L);
        if (rneed)
            qr_buf_printf(b, "(%s %s) ", pred, R);
        if (cls == FT_NUM)
            qr_buf_printf(b, "(%s %s %s)", op, L, R);
        else
            qr_buf_printf(b, "(%s (compare %s %s) 0)", op, L, R);
        if (nchecks)
            qr_buf_putc(b, ')');
    }
    if (lneed || rneed)
        qr_buf_putc(b, ')');
    qr_buf_release(&ls);
    qr_buf_release(&rs);
}

void qq_emit_where(qq_ctx *c, const qq_shape *s, qr_val w, const char *x, qr_buf *b)
{
    size_t on, n = qr_vec_len(w);
    const char *opn = qr_sym_name(qr_vec_at(w, 0).sym, &on);
    int op = find_op(opn, on, where_ops, W_COUNT);
    if (op != W_AND && op != W_OR && op != W_NOT)
        c->where_col = 0;
    switch (op) {
    case W_AND:
    case W_OR:
    case W_NOT: {
        int col = c->where_col; /* only the top level is laid out */
        c->where_col = 0;
        qr_buf_printf(b, "(%s", where_ops[op]);
        for (size_t i = 1; i < n; i++) {
            if (col > 0 && i > 1 && op != W_NOT) {
                qr_buf_putc(b, '\n');
                for (int k = 0; k < col + (int)strlen(where_ops[op]) + 2; k++)
                    qr_buf_putc(b, ' ');
            } else {
                qr_buf_putc(b, ' ');
            }
            qq_emit_where(c, s, qr_vec_at(w, i), x, b);
        }
        qr_buf_putc(b, ')');
        return;
    }
    case W_EXISTS:
        qr_buf_puts(b, "(some? ");
        qq_emit_field(b, qr_vec_at(w, 1), x);
        qr_buf_putc(b, ')');
        return;
    case W_EQ:
    case W_NE:
        qr_buf_printf(b, "(%s ", where_ops[op]);
        emit_operand(c, s, qr_vec_at(w, 1), x, b);
        qr_buf_putc(b, ' ');
        emit_operand(c, s, qr_vec_at(w, 2), x, b);
        qr_buf_putc(b, ')');
        return;
    case W_GT:
    case W_GE:
    case W_LT:
    case W_LE: emit_ordering(c, s, where_ops[op], qr_vec_at(w, 1), qr_vec_at(w, 2), x, b); return;
    case W_CONTAINS: {
        qr_val r = qr_vec_at(w, 2);
        qr_buf_puts(b, "(includes? (str ");
        emit_operand(c, s, qr_vec_at(w, 1), x, b);
        qr_buf_puts(b, ") ");
        if (qq_has_template(r.s)) {
            qr_buf_puts(b, "(str ");
            qq_emit_template(c, r.s, b);
            qr_buf_putc(b, ')');
        } else {
            qr_print(b, r, QR_PRINT_READABLY);
        }
        qr_buf_putc(b, ')');
        return;
    }
    case W_MATCHES: {
        qr_val r = qr_vec_at(w, 2);
        qr_buf_puts(b, "(re-find ");
        qq_emit_regex(b, r.s->data, r.s->len);
        qr_buf_puts(b, " (str ");
        emit_operand(c, s, qr_vec_at(w, 1), x, b);
        qr_buf_puts(b, "))");
        return;
    }
    case W_ANY:
    case W_ALL:
        qr_buf_puts(b, op == W_ANY ? "(boolean (some " : "(every? ");
        emit_item_fn(c, qr_vec_at(w, 2), x, b);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_vec_at(w, 1), x, b);
        qr_buf_puts(b, op == W_ANY ? "))" : ")");
        return;
    case W_IN: {
        qr_val r = qr_vec_at(w, 2), coll;
        if (r.t == QR_T_MAP && qq_get(r, "coll", &coll)) {
            qr_buf_puts(b, "(contains? (set ");
            qq_emit_expr(c, s, coll, x, b);
            qr_buf_puts(b, ") ");
            emit_operand(c, s, qr_vec_at(w, 1), x, b);
            qr_buf_putc(b, ')');
            return;
        }
        qr_buf_puts(b, "(contains? #{");
        for (size_t i = 0; i < qr_vec_len(r); i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_print(b, qr_vec_at(r, i), QR_PRINT_READABLY);
        }
        qr_buf_puts(b, "} ");
        emit_operand(c, s, qr_vec_at(w, 1), x, b);
        qr_buf_putc(b, ')');
        return;
    }
    default: qr_buf_puts(b, "nil"); return;
    }
}

void qr_query_each_function(void (*fn)(void *ud, const char *group, const char *name,
                                       const char *usage),
                            void *ud)
{
    for (size_t i = 0; i < F_COUNT; i++)
        fn(ud, fn_info[i].group, fn_ops[i], fn_info[i].usage);
}
