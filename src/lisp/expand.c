/*
 * expand.c: derived forms rewritten into core forms before analysis: defn, when,
 * when-not, if-not, cond, condp, if-let, when-let, if-some, when-some, ->, ->>, as->,
 * cond->, cond->>, some->, some->>, doseq, for, dotimes, comment, declare.
 *
 * Each is a C function from form to form (there is no defmacro: programs written by
 * models do not need one, and a fixed set keeps analysis predictable). `for` and `doseq`
 * become nested reduces over an accumulator; `:while` stops its binding's iteration with
 * `reduced`. Generated names end in __N__auto and cannot clash with a program's own.
 */
#include "lisp_int.h"

#include <string.h>

typedef qr_val (*expander)(lx_ax *ax, qr_val form, const qr_val *it, size_t n);

static qr_val S(lx_ax *ax, const char *name)
{
    return ax_sym(ax, name);
}

static qr_val list_of(lx_ax *ax, const qr_val *items, size_t n, qr_val pos)
{
    qr_val l = qr_vec_from(ax_arena(ax), QR_T_LIST, items, n);
    if (l.t == QR_T_LIST && l.c->len && (pos.t == QR_T_LIST || pos.t == QR_T_VEC)) {
        ((qr_coll *)l.c)->line = pos.c->line;
        ((qr_coll *)l.c)->col = pos.c->col;
    }
    return l;
}

/* (head a b ... rest...) */
static qr_val cons_list(lx_ax *ax, qr_val pos, int nfixed, const qr_val *fixed,
                        const qr_val *rest, size_t nrest)
{
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), (size_t)nfixed + nrest);
    for (int i = 0; i < nfixed; i++)
        qr_vecb_push(&vb, fixed[i]);
    for (size_t i = 0; i < nrest; i++)
        qr_vecb_push(&vb, rest[i]);
    qr_val l = qr_vecb_finish(&vb, QR_T_LIST);
    if (l.t == QR_T_LIST && l.c->len && (pos.t == QR_T_LIST || pos.t == QR_T_VEC)) {
        ((qr_coll *)l.c)->line = pos.c->line;
        ((qr_coll *)l.c)->col = pos.c->col;
    }
    return l;
}

static qr_val do_body(lx_ax *ax, qr_val pos, const qr_val *body, size_t n)
{
    if (n == 1)
        return body[0];
    qr_val d = S(ax, "do");
    return cons_list(ax, pos, 1, &d, body, n);
}

static qr_val x_defn(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 3 || it[1].t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "defn expects a name, a parameter vector and a body, "
                                        "as in (defn f [x] (* x 2))");
    size_t i = 2;
    if (i < n && it[i].t == QR_T_STR)
        i++; /* docstring */
    if (i < n && it[i].t == QR_T_MAP)
        i++; /* attribute map */
    if (i >= n)
        ax_error(ax, form, QR_LE_PARSE, "defn expects a parameter vector after the name");
    qr_val head[2] = {S(ax, "fn"), it[1]};
    qr_val fn = cons_list(ax, form, 2, head, it + i, n - i);
    qr_val def[3] = {S(ax, "def"), it[1], fn};
    return list_of(ax, def, 3, form);
}

static qr_val x_when(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 2)
        ax_error(ax, form, QR_LE_PARSE, "when expects a test");
    bool neg = strcmp(it[0].sym->text, "when-not") == 0;
    qr_val body = do_body(ax, form, it + 2, n - 2);
    if (n == 2)
        body = qr_nil();
    qr_val f[4] = {S(ax, "if"), it[1], neg ? qr_nil() : body, neg ? body : qr_nil()};
    return list_of(ax, f, 4, form);
}

static qr_val x_if_not(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 3 || n > 4)
        ax_error(ax, form, QR_LE_PARSE, "if-not expects a test, a then and an optional else");
    qr_val f[4] = {S(ax, "if"), it[1], n == 4 ? it[3] : qr_nil(), it[2]};
    return list_of(ax, f, 4, form);
}

static qr_val x_cond(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if ((n - 1) % 2)
        ax_error(ax, form, QR_LE_PARSE, "cond expects test/expression pairs; the last test "
                                        "has no expression");
    qr_val acc = qr_nil();
    for (size_t i = n - 1; i > 1; i -= 2) {
        qr_val f[4] = {S(ax, "if"), it[i - 1], it[i], acc};
        acc = list_of(ax, f, 4, form);
    }
    return acc;
}

static qr_val no_match(lx_ax *ax, qr_val form, const char *what, qr_val val)
{
    qr_val f[3] = {S(ax, "clojure.core/--no-match"), qr_str_cstr(ax_arena(ax), what), val};
    return list_of(ax, f, 3, form);
}

static bool is_kw(qr_val v, const char *name)
{
    return v.t == QR_T_KW && strcmp(v.sym->text, name) == 0;
}

/* (condp pred e t1 r1 t2 :>> f default): a clause is "test result" or "test :>> fn", the
 * latter calling fn on what (pred test e) returned, as Clojure does */
static qr_val x_condp(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 3)
        ax_error(ax, form, QR_LE_PARSE, "condp expects a predicate, an expression and clauses");
    qr_val p = ax_gensym(ax, "pred"), e = ax_gensym(ax, "expr");
    /* clause starts, scanned forwards (a clause's width depends on its second item) */
    size_t *start = qr_arena_alloc(ax_arena(ax), sizeof(size_t) * (n + 1));
    size_t nclauses = 0, i = 3;
    while (i + 1 < n) {
        start[nclauses++] = i;
        if (is_kw(it[i + 1], ">>")) {
            if (i + 2 >= n)
                ax_error(ax, form, QR_LE_PARSE, "condp: ':>>' must be followed by a function");
            i += 3;
        } else {
            i += 2;
        }
    }
    qr_val acc = i < n ? it[n - 1] : no_match(ax, form, "condp", e);
    for (size_t k = nclauses; k > 0; k--) {
        size_t c = start[k - 1];
        qr_val test[3] = {p, it[c], e};
        qr_val tv = list_of(ax, test, 3, form);
        if (is_kw(it[c + 1], ">>")) {
            qr_val r = ax_gensym(ax, "res");
            qr_val call[2] = {it[c + 2], r};
            qr_val f[4] = {S(ax, "if"), r, list_of(ax, call, 2, form), acc};
            qr_val bv[2] = {r, tv};
            qr_val let[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, bv, 2),
                             list_of(ax, f, 4, form)};
            acc = list_of(ax, let, 3, form);
        } else {
            qr_val f[4] = {S(ax, "if"), tv, it[c + 1], acc};
            acc = list_of(ax, f, 4, form);
        }
    }
    qr_val bv[4] = {p, it[1], e, it[2]};
    qr_val let[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, bv, 4), acc};
    return list_of(ax, let, 3, form);
}

/* if-let, when-let, if-some, when-some */
static qr_val x_if_let(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    const char *h = it[0].sym->text;
    bool is_when = h[0] == 'w', is_some = strstr(h, "some") != NULL;
    if (n < 3 || it[1].t != QR_T_VEC || it[1].c->len != 2)
        ax_error(ax, form, QR_LE_PARSE, "%s expects a binding vector of one name and a value, "
                                        "as in (%s [x (f)] ...)",
                 h, h);
    if (!is_when && n > 4)
        ax_error(ax, form, QR_LE_PARSE, "%s expects a then and an optional else", h);
    qr_val t = ax_gensym(ax, "test");
    qr_val then = is_when ? do_body(ax, form, it + 2, n - 2) : it[2];
    qr_val els = !is_when && n == 4 ? it[3] : qr_nil();
    qr_val inner_bv[2] = {qr_vec_at(it[1], 0), t};
    qr_val inner[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, inner_bv, 2), then};
    qr_val test = t;
    if (is_some) {
        qr_val sm[2] = {S(ax, "clojure.core/some?"), t};
        test = list_of(ax, sm, 2, form);
    }
    qr_val ifs[4] = {S(ax, "if"), test, list_of(ax, inner, 3, form), els};
    qr_val outer_bv[2] = {t, qr_vec_at(it[1], 1)};
    qr_val outer[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, outer_bv, 2),
                       list_of(ax, ifs, 4, form)};
    return list_of(ax, outer, 3, form);
}

/* Threads x into step as first (last = false) or last argument. */
static qr_val thread(lx_ax *ax, qr_val x, qr_val step, bool last)
{
    if (step.t != QR_T_LIST) {
        qr_val f[2] = {step, x};
        return list_of(ax, f, 2, step);
    }
    size_t sn = step.c->len;
    const qr_val *s = qr_vec_items(step);
    if (sn == 0)
        ax_error(ax, step, QR_LE_PARSE, "cannot thread into an empty list");
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), sn + 1);
    qr_vecb_push(&vb, s[0]);
    if (!last)
        qr_vecb_push(&vb, x);
    for (size_t i = 1; i < sn; i++)
        qr_vecb_push(&vb, s[i]);
    if (last)
        qr_vecb_push(&vb, x);
    qr_val l = qr_vecb_finish(&vb, QR_T_LIST);
    ((qr_coll *)l.c)->line = step.c->line;
    ((qr_coll *)l.c)->col = step.c->col;
    return l;
}

static qr_val x_thread(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 2)
        ax_error(ax, form, QR_LE_PARSE, "%s expects an initial value", it[0].sym->text);
    bool last = strcmp(it[0].sym->text, "->>") == 0;
    qr_val acc = it[1];
    for (size_t i = 2; i < n; i++)
        acc = thread(ax, acc, it[i], last);
    return acc;
}

static qr_val x_as_thread(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 3 || it[2].t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "as-> expects a value and a name, as in (as-> x v ...)");
    qr_vecb bv;
    qr_vecb_init(&bv, ax_arena(ax), 2 * (n - 2));
    qr_vecb_push(&bv, it[2]);
    qr_vecb_push(&bv, it[1]);
    for (size_t i = 3; i < n; i++) {
        qr_vecb_push(&bv, it[2]);
        qr_vecb_push(&bv, it[i]);
    }
    qr_val f[3] = {S(ax, "let"), qr_vecb_finish(&bv, QR_T_VEC), it[2]};
    return list_of(ax, f, 3, form);
}

/* cond->, cond->>, some->, some->> */
static qr_val x_cond_thread(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    const char *h = it[0].sym->text;
    bool is_some = h[0] == 's', last = strstr(h, "->>") != NULL;
    if (n < 2)
        ax_error(ax, form, QR_LE_PARSE, "%s expects an initial value", h);
    if (!is_some && (n - 2) % 2)
        ax_error(ax, form, QR_LE_PARSE, "%s expects test/form pairs after the value", h);
    qr_val g = ax_gensym(ax, "v");
    qr_vecb bv;
    qr_vecb_init(&bv, ax_arena(ax), 2 * n);
    qr_vecb_push(&bv, g);
    qr_vecb_push(&bv, it[1]);
    size_t step = is_some ? 1 : 2;
    for (size_t i = 2; i + step - 1 < n; i += step) {
        qr_val test, f;
        if (is_some) {
            qr_val nn[2] = {S(ax, "clojure.core/nil?"), g};
            test = list_of(ax, nn, 2, form);
            qr_val ifs[4] = {S(ax, "if"), test, qr_nil(), thread(ax, g, it[i], last)};
            f = list_of(ax, ifs, 4, form);
        } else {
            qr_val ifs[4] = {S(ax, "if"), it[i], thread(ax, g, it[i + 1], last), g};
            f = list_of(ax, ifs, 4, form);
        }
        qr_vecb_push(&bv, g);
        qr_vecb_push(&bv, f);
    }
    qr_val l[3] = {S(ax, "let"), qr_vecb_finish(&bv, QR_T_VEC), g};
    return list_of(ax, l, 3, form);
}

/* for and doseq: bindings from index i on, around `inner`, threading accumulator acc. */
static qr_val comprehend(lx_ax *ax, qr_val form, const qr_val *b, size_t nb, size_t i,
                         qr_val acc, qr_val innermost)
{
    if (i >= nb)
        return innermost;
    qr_val k = b[i];
    if (i + 1 >= nb)
        ax_error(ax, form, QR_LE_PARSE, "binding vector needs an even number of forms");
    if (k.t == QR_T_KW) {
        qr_val rest = comprehend(ax, form, b, nb, i + 2, acc, innermost);
        const char *m = k.sym->text;
        if (!strcmp(m, "when")) {
            qr_val f[4] = {S(ax, "if"), b[i + 1], rest, acc};
            return list_of(ax, f, 4, form);
        }
        if (!strcmp(m, "let")) {
            if (b[i + 1].t != QR_T_VEC)
                ax_error(ax, form, QR_LE_PARSE, ":let expects a binding vector");
            qr_val f[3] = {S(ax, "let"), b[i + 1], rest};
            return list_of(ax, f, 3, form);
        }
        if (!strcmp(m, "while")) {
            qr_val red[2] = {S(ax, "clojure.core/reduced"), acc};
            qr_val f[4] = {S(ax, "if"), b[i + 1], rest, list_of(ax, red, 2, form)};
            return list_of(ax, f, 4, form);
        }
        ax_error(ax, form, QR_LE_PARSE, "unknown modifier :%s: expected :when, :let or :while",
                 m);
    }
    /* (reduce (fn [acc pattern] rest) acc coll) */
    qr_val rest = comprehend(ax, form, b, nb, i + 2, acc, innermost);
    qr_val params[2] = {acc, k};
    qr_val fn[3] = {S(ax, "fn"), qr_vec_from(ax_arena(ax), QR_T_VEC, params, 2), rest};
    qr_val red[4] = {S(ax, "clojure.core/reduce"), list_of(ax, fn, 3, form), acc, b[i + 1]};
    return list_of(ax, red, 4, form);
}

static qr_val x_for(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    bool is_doseq = strcmp(it[0].sym->text, "doseq") == 0;
    if (n < 3 || it[1].t != QR_T_VEC)
        ax_error(ax, form, QR_LE_PARSE, "%s expects a binding vector and a body, as in (%s [x "
                                        "xs] ...)",
                 it[0].sym->text, it[0].sym->text);
    if (!is_doseq && n != 3)
        ax_error(ax, form, QR_LE_PARSE, "for expects exactly one body expression");
    size_t nb = it[1].c->len;
    if (nb == 0 || nb % 2)
        ax_error(ax, form, QR_LE_PARSE, "binding vector needs an even number of forms");
    const qr_val *b = qr_vec_items(it[1]);
    if (b[0].t == QR_T_KW)
        ax_error(ax, form, QR_LE_PARSE, "the first binding must be a name and a collection");
    qr_val acc = ax_gensym(ax, "acc");
    qr_val innermost;
    if (is_doseq) {
        qr_vecb vb;
        qr_vecb_init(&vb, ax_arena(ax), n);
        qr_vecb_push(&vb, S(ax, "do"));
        for (size_t i = 2; i < n; i++)
            qr_vecb_push(&vb, it[i]);
        qr_vecb_push(&vb, acc);
        innermost = qr_vecb_finish(&vb, QR_T_LIST);
    } else {
        qr_val c[3] = {S(ax, "clojure.core/conj"), acc, it[2]};
        innermost = list_of(ax, c, 3, form);
    }
    qr_val body = comprehend(ax, form, b, nb, 0, acc, innermost);
    qr_val bv[2] = {acc, is_doseq ? qr_nil() : qr_vec_empty(QR_T_VEC)};
    qr_val let[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, bv, 2), body};
    qr_val l = list_of(ax, let, 3, form);
    if (!is_doseq)
        return l;
    qr_val d[3] = {S(ax, "do"), l, qr_nil()};
    return list_of(ax, d, 3, form);
}

static qr_val x_dotimes(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 2 || it[1].t != QR_T_VEC || it[1].c->len != 2 || qr_vec_at(it[1], 0).t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "dotimes expects [name count], as in (dotimes [i 3] ...)");
    qr_val i = qr_vec_at(it[1], 0), lim = ax_gensym(ax, "n");
    qr_vecb body;
    qr_vecb_init(&body, ax_arena(ax), n + 2);
    qr_vecb_push(&body, S(ax, "do"));
    for (size_t k = 2; k < n; k++)
        qr_vecb_push(&body, it[k]);
    qr_val inc[2] = {S(ax, "clojure.core/inc"), i};
    qr_val rec[2] = {S(ax, "recur"), list_of(ax, inc, 2, form)};
    qr_vecb_push(&body, list_of(ax, rec, 2, form));
    qr_val lt[3] = {S(ax, "clojure.core/<"), i, lim};
    qr_val when[4] = {S(ax, "if"), list_of(ax, lt, 3, form), qr_vecb_finish(&body, QR_T_LIST),
                      qr_nil()};
    qr_val lbv[2] = {i, qr_int(0)};
    qr_val loop[3] = {S(ax, "loop"), qr_vec_from(ax_arena(ax), QR_T_VEC, lbv, 2),
                      list_of(ax, when, 4, form)};
    qr_val bv[2] = {lim, qr_vec_at(it[1], 1)};
    qr_val let[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, bv, 2),
                     list_of(ax, loop, 3, form)};
    return list_of(ax, let, 3, form);
}

static qr_val x_comment(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    (void)ax;
    (void)form;
    (void)it;
    (void)n;
    return qr_nil();
}

static qr_val x_declare(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), n);
    qr_vecb_push(&vb, S(ax, "do"));
    for (size_t i = 1; i < n; i++) {
        if (it[i].t != QR_T_SYM)
            ax_error(ax, form, QR_LE_PARSE, "declare expects names");
        qr_val d[2] = {S(ax, "def"), it[i]};
        qr_vecb_push(&vb, list_of(ax, d, 2, form));
    }
    qr_vecb_push(&vb, qr_nil());
    return qr_vecb_finish(&vb, QR_T_LIST);
}

/* (when-first [x coll] body) = (let [s (seq coll)] (when s (let [x (first s)] body))) */
static qr_val x_when_first(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 2 || it[1].t != QR_T_VEC || it[1].c->len != 2)
        ax_error(ax, form, QR_LE_PARSE, "when-first expects a binding vector of one name and a "
                                        "collection, as in (when-first [x xs] ...)");
    qr_val s = ax_gensym(ax, "s");
    qr_val seqf[2] = {S(ax, "seq"), qr_vec_at(it[1], 1)};
    qr_val firstf[2] = {S(ax, "first"), s};
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), n + 1);
    qr_vecb_push(&vb, S(ax, "let"));
    qr_val ibv[2] = {qr_vec_at(it[1], 0), list_of(ax, firstf, 2, form)};
    qr_vecb_push(&vb, qr_vec_from(ax_arena(ax), QR_T_VEC, ibv, 2));
    for (size_t i = 2; i < n; i++)
        qr_vecb_push(&vb, it[i]);
    qr_val inner = qr_vecb_finish(&vb, QR_T_LIST);
    qr_val when[3] = {S(ax, "when"), s, inner};
    qr_val obv[2] = {s, list_of(ax, seqf, 2, form)};
    qr_val let[3] = {S(ax, "let"), qr_vec_from(ax_arena(ax), QR_T_VEC, obv, 2),
                     list_of(ax, when, 3, form)};
    return list_of(ax, let, 3, form);
}

/* (defonce name expr) = (if (--defined? 'name) nil (def name expr)) */
static qr_val x_defonce(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n != 3 || it[1].t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "defonce expects a name and a value, as in (defonce x 1)");
    qr_val q[2] = {S(ax, "quote"), it[1]};
    qr_val test[2] = {S(ax, "--defined?"), list_of(ax, q, 2, form)};
    qr_val def[3] = {S(ax, "def"), it[1], it[2]};
    qr_val iff[4] = {S(ax, "if"), list_of(ax, test, 2, form), qr_nil(), list_of(ax, def, 3, form)};
    return list_of(ax, iff, 4, form);
}

/* (with-out-str body) = (let [m (--out-mark)] body (--out-take m)): what body printed,
 * taken back out of the run's output */
static qr_val x_with_out_str(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    qr_val m = ax_gensym(ax, "out");
    qr_val mark[1] = {S(ax, "--out-mark")};
    qr_val take[2] = {S(ax, "--out-take"), m};
    qr_val bv[2] = {m, list_of(ax, mark, 1, form)};
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), n + 2);
    qr_vecb_push(&vb, S(ax, "let"));
    qr_vecb_push(&vb, qr_vec_from(ax_arena(ax), QR_T_VEC, bv, 2));
    for (size_t i = 1; i < n; i++)
        qr_vecb_push(&vb, it[i]);
    qr_vecb_push(&vb, list_of(ax, take, 2, form));
    return qr_vecb_finish(&vb, QR_T_LIST);
}

/* (assert x) and (assert x message) = (when-not x (throw (ex-info "Assert failed: ..."
 * {}))): an exception that (catch Throwable e ...) or (catch Exception e ...) takes */
static qr_val x_assert(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n != 2 && n != 3)
        ax_error(ax, form, QR_LE_PARSE, "assert expects a test and an optional message");
    qr_val q[2] = {S(ax, "quote"), it[1]};
    qr_val shown[2] = {S(ax, "pr-str"), list_of(ax, q, 2, form)};
    qr_val text[5] = {S(ax, "str"), qr_str_new(ax_arena(ax), "Assert failed: ", 15)};
    size_t nt = 2;
    if (n == 3) {
        text[nt++] = it[2];
        text[nt++] = qr_str_new(ax_arena(ax), "\n", 1);
    }
    text[nt++] = list_of(ax, shown, 2, form);
    qr_val exi[3] = {S(ax, "ex-info"), list_of(ax, text, nt, form), qr_map_empty()};
    qr_val thr[2] = {S(ax, "throw"), list_of(ax, exi, 3, form)};
    qr_val wn[3] = {S(ax, "when-not"), it[1], list_of(ax, thr, 2, form)};
    return list_of(ax, wn, 3, form);
}

/* (where field) = (--where field); (where field op value) = (--where field 'op value):
 * the operator is quoted, since `in` and `includes` name no function (lib_ptc.c) */
static qr_val x_where(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n != 2 && n != 4)
        ax_error(ax, form, QR_LE_PARSE, "where expects a field, or a field, an operator and a "
                                        "value, as in (where :status = \"active\")");
    if (n == 2) {
        qr_val w[2] = {S(ax, "--where"), it[1]};
        return list_of(ax, w, 2, form);
    }
    qr_val q[2] = {S(ax, "quote"), it[2]};
    qr_val w[4] = {S(ax, "--where"), it[1], list_of(ax, q, 2, form), it[3]};
    return list_of(ax, w, 4, form);
}

/* ---- try / catch / finally ----
 * (try body* (catch Class e handler*)* (finally f*)) becomes calls of the internal
 * --try with thunks: (--try (fn [] body) nil "Class" (fn [e] handler) ...) and, when there
 * is a finally, an outer (--try (fn [] inner) (fn [] f)). --try (lib_compat.c) decides
 * what a class catches; limits, (fail v) and (return v) are never caught. */

static const char *const catch_classes[] = {
    "Exception", "Throwable", "RuntimeException", "Error", "Object", "ExceptionInfo",
    "clojure.lang.ExceptionInfo", "java.lang.Exception", "java.lang.Throwable",
    "java.lang.RuntimeException", "ArithmeticException", "java.lang.ArithmeticException",
    "IllegalArgumentException", "java.lang.IllegalArgumentException",
    "IndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException",
    "ClassCastException", "java.lang.ClassCastException", "NumberFormatException",
    "java.lang.NumberFormatException",
};

static bool head_sym(qr_val f, const char *name)
{
    return f.t == QR_T_LIST && f.c->len > 0 && qr_vec_at(f, 0).t == QR_T_SYM &&
           strcmp(qr_vec_at(f, 0).sym->text, name) == 0;
}

static qr_val thunk(lx_ax *ax, qr_val form, qr_val param, const qr_val *body, size_t n)
{
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), n + 2);
    qr_vecb_push(&vb, S(ax, "fn"));
    qr_vecb_push(&vb, qr_vec_from(ax_arena(ax), QR_T_VEC, &param, qr_is_nil(param) ? 0 : 1));
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&vb, body[i]);
    qr_val f = qr_vecb_finish(&vb, QR_T_LIST);
    (void)form;
    return f;
}

static qr_val x_try(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    size_t nbody = 1;
    while (nbody < n && !head_sym(it[nbody], "catch") && !head_sym(it[nbody], "finally"))
        nbody++;
    qr_vecb vb;
    qr_vecb_init(&vb, ax_arena(ax), 2 * n + 3);
    qr_vecb_push(&vb, S(ax, "clojure.core/--try"));
    qr_vecb_push(&vb, thunk(ax, form, qr_nil(), it + 1, nbody - 1));
    qr_vecb_push(&vb, qr_nil());
    qr_val fin = qr_nil();
    size_t ncatch = 0;
    for (size_t i = nbody; i < n; i++) {
        qr_val c = it[i];
        if (head_sym(c, "finally")) {
            if (i != n - 1)
                ax_error(ax, form, QR_LE_PARSE, "try: finally must be the last clause");
            fin = thunk(ax, form, qr_nil(), qr_vec_items(c) + 1, c.c->len - 1);
            continue;
        }
        if (!head_sym(c, "catch"))
            ax_error(ax, form, QR_LE_PARSE, "try: only catch and finally may follow the body");
        if (c.c->len < 3 || qr_vec_at(c, 2).t != QR_T_SYM)
            ax_error(ax, form, QR_LE_PARSE, "catch expects a class and a name, as in "
                                            "(catch Exception e ...)");
        qr_val cls = qr_vec_at(c, 1);
        const char *cname = NULL;
        if (cls.t == QR_T_SYM) {
            for (size_t k = 0; k < sizeof catch_classes / sizeof catch_classes[0]; k++)
                if (strcmp(catch_classes[k], cls.sym->text) == 0)
                    cname = catch_classes[k];
        } else if (is_kw(cls, "default")) {
            cname = "Throwable";
        }
        if (!cname)
            ax_error(ax, form, QR_LE_PARSE, "catch: unknown class; write (catch Exception e ...) "
                                            "or (catch clojure.lang.ExceptionInfo e ...)");
        qr_vecb_push(&vb, qr_str_cstr(ax_arena(ax), cname));
        qr_vecb_push(&vb, thunk(ax, form, qr_vec_at(c, 2), qr_vec_items(c) + 3, c.c->len - 3));
        ncatch++;
    }
    qr_val inner = qr_vecb_finish(&vb, QR_T_LIST);
    if (qr_is_nil(fin))
        return inner;
    qr_val body = ncatch ? thunk(ax, form, qr_nil(), &inner, 1) : qr_vec_at(inner, 1);
    qr_val outer[3] = {S(ax, "clojure.core/--try"), body, fin};
    return list_of(ax, outer, 3, form);
}

/* ---- ns and require: a header models write, checked and then a no-op ---- */

/* The namespaces a program may require and the aliases the name lookup understands. */
static const struct {
    const char *ns;
    const char *aliases[3];
} known_ns[] = {
    {"clojure.string", {"str", "string", "clojure.string"}},
    {"clojure.set", {"set", "clojure.set", NULL}},
    {"clojure.walk", {"walk", "clojure.walk", NULL}},
    {"clojure.core", {"clojure.core", NULL, NULL}},
};

static void check_libspec(lx_ax *ax, qr_val form, qr_val spec)
{
    if (spec.t == QR_T_LIST && spec.c->len == 2 && qr_vec_at(spec, 0).t == QR_T_SYM &&
        strcmp(qr_vec_at(spec, 0).sym->text, "quote") == 0)
        spec = qr_vec_at(spec, 1);
    qr_val name = spec;
    size_t n = 1;
    if (spec.t == QR_T_VEC) {
        n = spec.c->len;
        name = n ? qr_vec_at(spec, 0) : qr_nil();
    }
    if (name.t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "require expects a namespace name or a vector such as "
                                        "[clojure.string :as str]");
    size_t k = 0, nk = sizeof known_ns / sizeof known_ns[0];
    while (k < nk && strcmp(known_ns[k].ns, name.sym->text) != 0)
        k++;
    if (k == nk)
        ax_error(ax, form, QR_LE_UNBOUND, "unknown namespace '%s': only clojure.string, "
                                       "clojure.set and clojure.walk can be required",
                 name.sym->text);
    for (size_t i = 1; i < n; i += 2) {
        qr_val opt = qr_vec_at(spec, i);
        qr_val arg = i + 1 < n ? qr_vec_at(spec, i + 1) : qr_nil();
        if (is_kw(opt, "as") && arg.t == QR_T_SYM) {
            bool ok = false;
            for (int a = 0; a < 3 && known_ns[k].aliases[a]; a++)
                ok = ok || strcmp(known_ns[k].aliases[a], arg.sym->text) == 0;
            if (!ok)
                ax_error(ax, form, QR_LE_PARSE, "alias '%s' for %s is not supported: use :as %s",
                         arg.sym->text, known_ns[k].ns, known_ns[k].aliases[0]);
        } else {
            ax_error(ax, form, QR_LE_PARSE, "require of '%s': only ':as %s' is supported (write "
                                            "%s/name, not :refer)",
                     known_ns[k].ns, known_ns[k].aliases[0], known_ns[k].aliases[0]);
        }
    }
}

static qr_val x_require(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    for (size_t i = 1; i < n; i++)
        check_libspec(ax, form, it[i]);
    return qr_nil();
}

/* (ns name "doc"? (:require spec ...)*) */
static qr_val x_ns(lx_ax *ax, qr_val form, const qr_val *it, size_t n)
{
    if (n < 2 || it[1].t != QR_T_SYM)
        ax_error(ax, form, QR_LE_PARSE, "ns expects a name, as in (ns my.program (:require ...))");
    for (size_t i = 2; i < n; i++) {
        qr_val c = it[i];
        if (i == 2 && (c.t == QR_T_STR || c.t == QR_T_MAP))
            continue;
        if (c.t != QR_T_LIST || c.c->len == 0 || !is_kw(qr_vec_at(c, 0), "require"))
            ax_error(ax, form, QR_LE_PARSE, "ns: only (:require ...) clauses are supported");
        for (size_t j = 1; j < c.c->len; j++)
            check_libspec(ax, form, qr_vec_at(c, j));
    }
    return qr_nil();
}

static const struct {
    const char *name;
    expander fn;
} expanders[] = {
    {"defn", x_defn},       {"defn-", x_defn},         {"when", x_when},
    {"when-not", x_when},   {"if-not", x_if_not},      {"cond", x_cond},
    {"condp", x_condp},     {"if-let", x_if_let},      {"when-let", x_if_let},
    {"if-some", x_if_let},  {"when-some", x_if_let},   {"->", x_thread},
    {"->>", x_thread},      {"as->", x_as_thread},     {"cond->", x_cond_thread},
    {"cond->>", x_cond_thread}, {"some->", x_cond_thread}, {"some->>", x_cond_thread},
    {"doseq", x_for},       {"for", x_for},            {"dotimes", x_dotimes},
    {"comment", x_comment}, {"declare", x_declare},    {"ns", x_ns},
    {"require", x_require}, {"try", x_try},
    {"when-first", x_when_first}, {"defonce", x_defonce},
    {"with-out-str", x_with_out_str}, {"assert", x_assert},
    {"where", x_where},
};

static const char *const core_forms[] = {"quote", "if",  "do",   "let",   "let*", "loop",
                                         "loop*", "fn",  "fn*",  "letfn", "case", "recur",
                                         "def",   "var", "and",  "or",    "return", "fail"};

bool lx_is_special(const qr_sym *sym)
{
    if (sym->ns_len)
        return false;
    for (size_t i = 0; i < sizeof core_forms / sizeof core_forms[0]; i++)
        if (!strcmp(sym->text, core_forms[i]))
            return true;
    for (size_t i = 0; i < sizeof expanders / sizeof expanders[0]; i++)
        if (!strcmp(sym->text, expanders[i].name))
            return true;
    return false;
}

bool lx_expand(lx_ax *ax, qr_val form, qr_val *out)
{
    qr_val head = qr_vec_at(form, 0);
    if (head.t != QR_T_SYM || head.sym->ns_len)
        return false;
    for (size_t i = 0; i < sizeof expanders / sizeof expanders[0]; i++) {
        if (!strcmp(head.sym->text, expanders[i].name)) {
            *out = expanders[i].fn(ax, form, qr_vec_items(form), form.c->len);
            return true;
        }
    }
    return false;
}
